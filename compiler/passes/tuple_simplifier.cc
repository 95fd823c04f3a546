// Tuple simplification (see tuple_simplifier.h).
#include "compiler/passes/tuple_simplifier.h"

#include <algorithm>
#include <vector>

#include "compiler/support/planted_bugs.h"

namespace fusebox::passes {
namespace {

bool HasControlEdges(const Instruction& inst) {
  return !inst.control_predecessors().empty() || !inst.control_successors().empty();
}

// What `inst` can be replaced with, or null.
Instruction* Simplified(const Instruction& inst) {
  if (HasControlEdges(inst)) return nullptr;
  if (inst.opcode() == Opcode::kGetTupleElement) {
    Instruction* tuple = inst.operand(0);
    if (tuple->opcode() != Opcode::kTuple) return nullptr;
    const int64_t index = inst.tuple_index();
    if (index < 0 || index >= tuple->operand_count()) return nullptr;
    Instruction* element = tuple->operand(index);
    return element->shape() == inst.shape() ? element : nullptr;
  }
  if (inst.opcode() == Opcode::kTuple && inst.operand_count() > 0) {
    Instruction* source = nullptr;
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      const Instruction* gte = inst.operand(i);
      if (gte->opcode() != Opcode::kGetTupleElement) return nullptr;
      if (gte->tuple_index() != i && !BugPlanted(PlantedBug::kTupleSimplifierIgnoresOrder)) return nullptr;
      if (source == nullptr) source = gte->operand(0);
      if (gte->operand(0) != source) return nullptr;
    }
    if (!source->shape().IsTuple() || source->shape().tuple_size() != inst.operand_count()) {
      return nullptr;
    }
    return source->shape() == inst.shape() ? source : nullptr;
  }
  return nullptr;
}

// Removes `inst` if nothing uses it, then its tuple/get-tuple-element operands that this
// leaves unused.
void RemoveDeadTuplePlumbing(Computation& computation, Instruction* inst) {
  std::vector<Instruction*> work = {inst};
  while (!work.empty()) {
    Instruction* current = work.back();
    work.pop_back();
    if (current->user_count() != 0 || current->IsRoot() || HasControlEdges(*current)) continue;
    if (current->opcode() != Opcode::kTuple && current->opcode() != Opcode::kGetTupleElement) {
      continue;
    }
    std::vector<Instruction*> operands = current->operands();
    computation.RemoveInstruction(current);
    for (Instruction* op : operands) {
      if (std::find(work.begin(), work.end(), op) == work.end()) work.push_back(op);
    }
  }
}

bool RunOnComputation(Computation& computation) {
  bool changed = false;
  bool changed_this_sweep = true;
  while (changed_this_sweep) {
    changed_this_sweep = false;
    std::vector<Instruction*> order = computation.PostOrder();
    std::vector<Instruction*> replaced;
    for (Instruction* inst : order) {
      Instruction* replacement = Simplified(*inst);
      if (replacement == nullptr) continue;
      inst->ReplaceAllUsesWith(replacement);
      replaced.push_back(inst);
      changed_this_sweep = true;
    }
    // Removed after the sweep, so no pointer in `order` dangles while it is in use.
    for (Instruction* inst : replaced) RemoveDeadTuplePlumbing(computation, inst);
    changed |= changed_this_sweep;
  }
  return changed;
}

}  // namespace

StatusOr<bool> TupleSimplifier::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  for (const auto& computation : module.computations()) {
    changed |= RunOnComputation(*computation);
  }
  return changed;
}

}  // namespace fusebox::passes
