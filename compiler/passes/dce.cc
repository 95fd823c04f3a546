// Dead code elimination (see dce.h).
#include "compiler/passes/dce.h"

#include <vector>

namespace fusebox::passes {
namespace {

bool ComputationHasSideEffect(const Computation& computation,
                              std::unordered_map<const Computation*, bool>& cache) {
  auto it = cache.find(&computation);
  if (it != cache.end()) return it->second;
  // Provisionally false: a (malformed) recursive call graph then terminates.
  cache[&computation] = false;
  bool result = false;
  for (const auto& inst : computation.instructions()) {
    if (HasSideEffectNoRecurse(*inst)) {
      result = true;
      break;
    }
    bool callee_effect = false;
    for (const Computation* callee : inst->called_computations()) {
      if (callee != nullptr && ComputationHasSideEffect(*callee, cache)) {
        callee_effect = true;
        break;
      }
    }
    if (callee_effect) {
      result = true;
      break;
    }
  }
  cache[&computation] = result;
  return result;
}

bool IsDead(const Instruction& inst, std::unordered_map<const Computation*, bool>& cache) {
  if (inst.user_count() != 0 || inst.IsRoot()) return false;
  if (inst.opcode() == Opcode::kParameter) return false;
  // The instruction orders others; dropping it would drop that order too.
  if (!inst.control_successors().empty()) return false;
  return !HasSideEffect(inst, &cache);
}

}  // namespace

bool HasSideEffectNoRecurse(const Instruction& instruction) {
  switch (instruction.opcode()) {
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kRng:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    // Start/update/done of one async op must go (or stay) together; keep them all.
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return true;
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectiveReduce: {
      // Other participants wait for this one when it is on a channel (cross-module).
      const InstructionAttributes& a = instruction.attrs();
      return a.channel_id.has_value() || a.constrain_layout.value_or(false);
    }
    case Opcode::kCustomCall:
      return instruction.attrs().custom_call_has_side_effect;
    default:
      return false;
  }
}

bool HasSideEffect(const Instruction& instruction,
                   std::unordered_map<const Computation*, bool>* cache) {
  if (HasSideEffectNoRecurse(instruction)) return true;
  if (instruction.called_computations().empty()) return false;
  std::unordered_map<const Computation*, bool> local;
  std::unordered_map<const Computation*, bool>& memo = cache != nullptr ? *cache : local;
  for (const Computation* callee : instruction.called_computations()) {
    if (callee != nullptr && ComputationHasSideEffect(*callee, memo)) return true;
  }
  return false;
}

StatusOr<bool> DeadCodeElimination::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  // Only side-effect-free instructions are removed, so each computation's answer in the
  // cache stays valid for the whole run.
  std::unordered_map<const Computation*, bool> cache;
  std::vector<Computation*> computations;
  for (const auto& c : module.computations()) computations.push_back(c.get());
  for (Computation* computation : computations) {
    bool removed_any = true;
    while (removed_any) {
      removed_any = false;
      std::vector<Instruction*> order = computation->PostOrder();
      // Users come before their operands in reverse post order, so an operand that a
      // removal leaves dead is visited (and removed) later in the same sweep.
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        Instruction* inst = *it;
        if (!IsDead(*inst, cache)) continue;
        if (computation->RemoveInstruction(inst)) removed_any = true;
      }
      changed |= removed_any;
    }
  }
  if (module.RemoveUnreachableComputations() > 0) changed = true;
  return changed;
}

}  // namespace fusebox::passes
