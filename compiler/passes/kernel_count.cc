// Static kernel counting over the program computations of a module.
#include "compiler/passes/kernel_count.h"

#include <unordered_set>
#include <vector>

namespace fusebox::passes {

bool IsKernel(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
    case Opcode::kGetDimensionSize:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
    // Collectives are the runtime's exchanges between devices, not kernels (XLA's CPU
    // runtime calls its collectives library for them too).
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
      return false;
    default:
      return true;
  }
}

bool CallsProgram(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return true;
    default:
      return false;
  }
}

KernelCount CountKernels(const Module& module) {
  KernelCount count;
  // The computations CallsProgram reaches: async-start's as well.
  for (const Computation* comp : ProgramComputations(module, {.through_async_start = true})) {
    for (const auto& inst : comp->instructions()) {
      if (!IsKernel(*inst)) continue;
      ++count.kernels;
      std::string key(OpcodeName(inst->opcode()));
      if (inst->opcode() == Opcode::kFusion && inst->fusion_kind()) {
        key += "(" + std::string(FusionKindName(*inst->fusion_kind())) + ")";
      }
      ++count.by_opcode[key];
    }
  }
  return count;
}

std::string KernelCount::ToString() const {
  std::string out = std::to_string(kernels) + (kernels == 1 ? " kernel" : " kernels");
  if (!by_opcode.empty()) {
    out += " (";
    bool first = true;
    for (const auto& [op, n] : by_opcode) {
      if (!first) out += ", ";
      first = false;
      out += op + " " + std::to_string(n);
    }
    out += ")";
  }
  return out;
}

}  // namespace fusebox::passes
