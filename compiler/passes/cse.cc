// Common subexpression elimination (see cse.h).
#include "compiler/passes/cse.h"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/passes/dce.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::passes {
namespace {

// A collective whose only side effect is its channel (other devices wait for it): in an
// SPMD program every device runs the same code, so two equal ones can become one on all
// devices at once, as XLA's CSE merges them ignoring their channel ids.
bool ChannelCollective(const Instruction& inst, std::unordered_map<const Computation*, bool>& cache) {
  switch (inst.opcode()) {
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kAllToAll:
    case Opcode::kReduceScatter:
    case Opcode::kCollectivePermute:
      break;
    default:
      return false;
  }
  const InstructionAttributes& a = inst.attrs();
  if (!a.channel_id || a.constrain_layout.value_or(false)) return false;
  const Module* module = inst.parent() != nullptr ? inst.parent()->parent() : nullptr;
  if (module == nullptr || module->num_partitions.value_or(1) < 2 || module->replica_count.value_or(1) > 1) {
    return false;
  }
  for (const Computation* callee : inst.called_computations()) {
    if (callee == nullptr) return false;
    for (const auto& i : callee->instructions())
      if (HasSideEffect(*i, &cache)) return false;
  }
  return true;
}

// The attribute text of `inst` without its metadata, which says where an op came from
// and not what it computes, and without a channel collective's channel id.
std::string AttributesWithoutMetadata(Instruction& inst, bool without_channel) {
  std::optional<OpMetadata> metadata;
  if (inst.metadata() != nullptr) {
    metadata = *inst.metadata();
    inst.clear_metadata();
  }
  std::optional<int64_t> channel;
  if (without_channel) std::swap(channel, inst.mutable_attrs().channel_id);
  std::string text = inst.AttributesToString();
  if (without_channel) std::swap(channel, inst.mutable_attrs().channel_id);
  if (metadata) inst.set_metadata(std::move(*metadata));
  return text;
}

bool CanMerge(const Instruction& inst, std::unordered_map<const Computation*, bool>& cache) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
      return false;
    case Opcode::kConstant:
      if (inst.literal() == nullptr || inst.literal_elided()) return false;
      break;
    default:
      break;
  }
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return false;
  return !HasSideEffect(inst, &cache) || ChannelCollective(inst, cache);
}

bool SameOperands(const Instruction& a, const Instruction& b) {
  if (a.operands() == b.operands()) return true;
  return IsCommutative(a.opcode()) && a.operand_count() == 2 && b.operand_count() == 2 &&
         a.operand(0) == b.operand(1) && a.operand(1) == b.operand(0);
}

// A candidate with its attribute text, computed once.
struct Candidate {
  Instruction* instruction;
  std::string attributes;
};

// `inst` and `other` compute the same value (the opcode and operand ids already matched
// through the bucket key).
bool Equivalent(const Instruction& inst, const std::string& inst_attributes,
                const Candidate& other) {
  const Instruction& o = *other.instruction;
  if (inst.opcode() != o.opcode() || inst.shape() != o.shape()) return false;
  if (!SameOperands(inst, o)) return false;
  if (inst.called_computations() != o.called_computations()) return false;
  if (inst.parameter_number() != o.parameter_number()) return false;
  if (inst.opcode() == Opcode::kConstant && *inst.literal() != *o.literal() &&
      !BugPlanted(PlantedBug::kCseIgnoresConstantValues)) {
    return false;
  }
  return inst_attributes == other.attributes;
}

// Buckets instructions by opcode, operand ids (sorted for commutative ops) and shape;
// Equivalent() decides within a bucket.
std::string BucketKey(const Instruction& inst) {
  std::string key(OpcodeName(inst.opcode()));
  std::vector<int64_t> ids;
  ids.reserve(inst.operands().size());
  for (const Instruction* op : inst.operands()) ids.push_back(op->id());
  if (IsCommutative(inst.opcode())) std::sort(ids.begin(), ids.end());
  for (int64_t id : ids) key += " " + std::to_string(id);
  key += " ";
  inst.shape().AppendTo(&key, true);
  return key;
}

bool RunOnComputation(Computation& computation,
                      std::unordered_map<const Computation*, bool>& cache) {
  bool changed = false;
  std::unordered_map<std::string, std::vector<Candidate>> buckets;
  for (Instruction* inst : computation.PostOrder()) {
    if (!CanMerge(*inst, cache)) continue;
    std::string attributes = AttributesWithoutMetadata(*inst, ChannelCollective(*inst, cache));
    std::vector<Candidate>& bucket = buckets[BucketKey(*inst)];
    auto match = std::find_if(bucket.begin(), bucket.end(),
                              [&](const Candidate& c) { return Equivalent(*inst, attributes, c); });
    if (match == bucket.end()) {
      bucket.push_back({inst, std::move(attributes)});
      continue;
    }
    // Users not yet visited now point at the kept instruction, so their keys match
    // their twins' when their turn comes.
    inst->ReplaceAllUsesWith(match->instruction);
    computation.RemoveInstruction(inst);
    changed = true;
  }
  return changed;
}

}  // namespace

StatusOr<bool> CommonSubexpressionElimination::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  std::unordered_map<const Computation*, bool> cache;
  for (const auto& computation : module.computations()) {
    changed |= RunOnComputation(*computation, cache);
  }
  return changed;
}

}  // namespace fusebox::passes
