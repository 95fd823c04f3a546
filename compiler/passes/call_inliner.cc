// Call inlining (see call_inliner.h).
#include "compiler/passes/call_inliner.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace fusebox::passes {
namespace {

// Nested calls are inlined one level per round; deeper nesting than this means a
// recursive call graph, which HLO does not allow.
constexpr int kMaxRounds = 64;

void AddControlPredecessorOnce(Instruction* inst, Instruction* pred) {
  const auto& preds = inst->control_predecessors();
  if (pred == inst || std::find(preds.begin(), preds.end(), pred) != preds.end()) return;
  inst->AddControlPredecessor(pred);
}

Computation* CloneFusedComputation(Module& module, const Computation& source);

// Copies `source`'s instructions (parameters excluded when `map` already maps them)
// into `target`, in post order, with operands and control predecessors mapped through
// `map`; fills `map` and returns the copies in order.
std::vector<Instruction*> CopyBody(Module& module, const Computation& source, Computation& target,
                                   std::unordered_map<const Instruction*, Instruction*>& map) {
  std::vector<Instruction*> copies;
  for (Instruction* inst : source.PostOrder()) {
    if (map.count(inst)) continue;
    std::vector<Instruction*> operands;
    operands.reserve(inst->operands().size());
    for (const Instruction* op : inst->operands()) operands.push_back(map.at(op));
    std::unique_ptr<Instruction> clone =
        inst->CloneWithOperands(operands, module.UniqueName(inst->name()));
    Instruction* copy = target.AddInstruction(std::move(clone));
    if (inst->opcode() == Opcode::kFusion && inst->fused_computation() != nullptr) {
      Computation* fused = CloneFusedComputation(module, *inst->fused_computation());
      copy->set_called_computation(0, fused);
      fused->set_fusion_instruction(copy);
    }
    for (const Instruction* pred : inst->control_predecessors()) {
      auto it = map.find(pred);
      if (it != map.end()) AddControlPredecessorOnce(copy, it->second);
    }
    map[inst] = copy;
    copies.push_back(copy);
  }
  return copies;
}

Computation* CloneFusedComputation(Module& module, const Computation& source) {
  auto clone = std::make_unique<Computation>(module.UniqueName(source.name()));
  clone->set_execution_thread(source.execution_thread());
  clone->set_location(source.location());
  std::unordered_map<const Instruction*, Instruction*> map;
  CopyBody(module, source, *clone, map);
  clone->set_root(map.at(source.root()));
  return module.AddComputation(std::move(clone));
}

void InlineCall(Module& module, Instruction* call) {
  Computation& caller = *call->parent();
  const Computation& callee = *call->to_apply();
  std::unordered_map<const Instruction*, Instruction*> map;
  for (const Instruction* param : callee.parameters()) {
    if (param != nullptr) map[param] = call->operand(param->parameter_number());
  }
  std::vector<Instruction*> copies = CopyBody(module, callee, caller, map);
  Instruction* new_root = map.at(callee.root());

  std::unordered_map<const Instruction*, bool> in_body;
  for (Instruction* copy : copies) in_body[copy] = true;
  const std::vector<Instruction*> preds = call->control_predecessors();
  const std::vector<Instruction*> succs = call->control_successors();
  for (Instruction* copy : copies) {
    // Instructions fed only from outside the body start it; all others follow them.
    const bool starts = std::none_of(copy->operands().begin(), copy->operands().end(),
                                     [&](const Instruction* op) { return in_body.count(op); });
    if (starts) {
      for (Instruction* pred : preds) AddControlPredecessorOnce(copy, pred);
    }
    // Instructions nothing in the body uses end it (the root and dead side effects).
    const bool ends = std::none_of(copy->users().begin(), copy->users().end(),
                                   [&](const Instruction* user) { return in_body.count(user); });
    if (ends) {
      for (Instruction* succ : succs) AddControlPredecessorOnce(succ, copy);
    }
  }
  if (copies.empty()) {
    // The callee returns a parameter: its successors still follow its predecessors.
    for (Instruction* succ : succs) {
      for (Instruction* pred : preds) AddControlPredecessorOnce(succ, pred);
    }
  }

  call->ReplaceAllUsesWith(new_root);
  caller.RemoveInstruction(call);
}

std::vector<Instruction*> CallsToInline(const Module& module) {
  std::vector<Instruction*> calls;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kCall || inst->called_computations().size() != 1) continue;
      const Computation* callee = inst->to_apply();
      if (callee == nullptr || callee->root() == nullptr) continue;
      if (callee->execution_thread() != computation->execution_thread()) continue;
      calls.push_back(inst.get());
    }
  }
  return calls;
}

}  // namespace

StatusOr<bool> CallInliner::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<Instruction*> calls = CallsToInline(module);
    if (calls.empty()) break;
    for (Instruction* call : calls) InlineCall(module, call);
    changed = true;
  }
  if (!CallsToInline(module).empty()) {
    return InvalidArgument("call-inliner: calls are still nested after " +
                           std::to_string(kMaxRounds) +
                           " rounds of inlining; is the call graph recursive?");
  }
  if (changed) module.RemoveUnreachableComputations();
  return changed;
}

}  // namespace fusebox::passes
