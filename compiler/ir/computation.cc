// Computation bookkeeping: instruction ownership, parameters, name lookup, order.
#include "compiler/ir/computation.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/ir/module.h"

namespace fusebox {

Instruction* Computation::AddInstruction(std::unique_ptr<Instruction> instruction) {
  Instruction* raw = instruction.get();
  raw->set_parent(this);
  if (raw->id() < 0 && parent_ != nullptr) raw->set_id(parent_->NextInstructionId());
  by_name_.emplace(raw->name(), raw);
  if (raw->opcode() == Opcode::kParameter && raw->parameter_number() >= 0) {
    int64_t n = raw->parameter_number();
    // Guard against absurd parameter numbers from bad input.
    if (n < (1 << 20)) {
      if (static_cast<int64_t>(parameters_.size()) <= n) parameters_.resize(n + 1, nullptr);
      if (parameters_[n] == nullptr) parameters_[n] = raw;
    }
  }
  instructions_.push_back(std::move(instruction));
  return raw;
}

bool Computation::RemoveInstruction(Instruction* instruction) {
  if (instruction->user_count() != 0 || instruction == root_) return false;
  instruction->DetachFromOperands();
  auto it = by_name_.find(instruction->name());
  if (it != by_name_.end() && it->second == instruction) by_name_.erase(it);
  for (auto& p : parameters_) {
    if (p == instruction) p = nullptr;
  }
  auto pos = std::find_if(instructions_.begin(), instructions_.end(),
                          [&](const auto& u) { return u.get() == instruction; });
  if (pos != instructions_.end()) instructions_.erase(pos);
  return true;
}

void Computation::ReplaceInstruction(Instruction* old, Instruction* replacement) {
  for (Instruction* pred : old->control_predecessors()) replacement->AddControlPredecessor(pred);
  for (Instruction* successor : std::vector<Instruction*>(old->control_successors())) {
    successor->AddControlPredecessor(replacement);
  }
  old->ReplaceAllUsesWith(replacement);
  if (root_ == old) root_ = replacement;
  old->DetachFromOperands();
  RemoveInstruction(old);
}

void Computation::RenameInstruction(Instruction* instruction, std::string name) {
  auto it = by_name_.find(instruction->name());
  if (it != by_name_.end() && it->second == instruction) by_name_.erase(it);
  instruction->set_name(std::move(name));
  by_name_[instruction->name()] = instruction;
}

Instruction* Computation::FindInstruction(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Instruction*> Computation::PostOrder() const {
  // Iterative DFS from each instruction in text order; operands and control
  // predecessors come first. Cycles (which the verifier reports) are broken.
  std::vector<Instruction*> order;
  order.reserve(instructions_.size());
  std::unordered_set<const Instruction*> done, on_stack;
  struct Frame {
    Instruction* inst;
    size_t next;
  };
  std::vector<Frame> stack;
  for (const auto& start : instructions_) {
    if (done.count(start.get())) continue;
    stack.push_back({start.get(), 0});
    on_stack.insert(start.get());
    while (!stack.empty()) {
      Frame& top = stack.back();
      Instruction* inst = top.inst;
      size_t n_ops = inst->operands().size();
      size_t n_total = n_ops + inst->control_predecessors().size();
      if (top.next < n_total) {
        Instruction* dep = top.next < n_ops ? inst->operands()[top.next]
                                            : inst->control_predecessors()[top.next - n_ops];
        ++top.next;
        if (dep->parent() == this && !done.count(dep) && !on_stack.count(dep)) {
          stack.push_back({dep, 0});
          on_stack.insert(dep);
        }
        continue;
      }
      on_stack.erase(inst);
      done.insert(inst);
      order.push_back(inst);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace fusebox
