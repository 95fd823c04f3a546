// All-reduce combining (see all_reduce_combiner.h).
#include "compiler/passes/all_reduce_combiner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/module.h"

namespace fusebox::passes {
namespace {

// The reduction an all-reduce applies: the opcode of a computation (x, y) -> op(x, y),
// else the computation itself (only identical computations then combine).
std::string ReductionOf(const Computation& reducer) {
  const Instruction* root = reducer.root();
  if (root != nullptr && reducer.parameter_count() == 2 && root->operand_count() == 2 &&
      root->operand(0)->opcode() == Opcode::kParameter && root->operand(1)->opcode() == Opcode::kParameter &&
      root->operand(0) != root->operand(1) && IsElementwiseBinary(root->opcode()) && root->opcode() != Opcode::kCompare) {
    return std::string(OpcodeName(root->opcode()));
  }
  return "computation " + reducer.name();
}

// What must be equal for two all-reduces to combine.
struct Key {
  std::string reduction;
  PrimitiveType type;
  std::string groups;
  bool global_ids;
  bool channel;
  bool operator<(const Key& o) const {
    return std::tie(reduction, type, groups, global_ids, channel) <
           std::tie(o.reduction, o.type, o.groups, o.global_ids, o.channel);
  }
};

std::optional<Key> KeyOf(const Instruction& inst) {
  if (inst.opcode() != Opcode::kAllReduce || inst.operand_count() != 1 || inst.shape().IsTuple() ||
      !inst.shape().IsArray() || inst.to_apply() == nullptr || !inst.control_predecessors().empty() ||
      !inst.control_successors().empty()) {
    return std::nullopt;
  }
  const InstructionAttributes& a = inst.attrs();
  Key key;
  key.reduction = ReductionOf(*inst.to_apply());
  key.type = inst.shape().element_type();
  key.groups = a.replica_groups ? a.replica_groups->ToString() : "";
  key.global_ids = a.use_global_device_ids.value_or(false);
  key.channel = a.channel_id.has_value();
  return key;
}

// Joins `members` (in post order) into one all-reduce of a tuple.
void Combine(Computation& computation, const std::vector<Instruction*>& members) {
  Module* module = computation.parent();
  const Instruction& first = *members.front();
  std::vector<Shape> shapes;
  for (const Instruction* m : members) shapes.push_back(m->shape());
  auto combined = std::make_unique<Instruction>(Opcode::kAllReduce, module->UniqueName(first.name() + ".combined"),
                                                Shape::Tuple(shapes));
  for (const Instruction* m : members) combined->AppendOperand(m->operand(0));
  InstructionAttributes& attrs = combined->mutable_attrs();
  attrs.channel_id = first.attrs().channel_id;
  attrs.replica_groups = first.attrs().replica_groups;
  attrs.use_global_device_ids = first.attrs().use_global_device_ids;
  combined->AppendCalledComputation(first.to_apply());
  combined->set_call_form(CallForm::kToApply);
  Instruction* all = computation.AddInstruction(std::move(combined));
  for (size_t i = 0; i < members.size(); ++i) {
    auto element = std::make_unique<Instruction>(Opcode::kGetTupleElement, module->UniqueName(members[i]->name()),
                                                 members[i]->shape());
    element->AppendOperand(all);
    element->mutable_attrs().tuple_index = static_cast<int64_t>(i);
    Instruction* e = computation.AddInstruction(std::move(element));
    computation.ReplaceInstruction(members[i], e);
  }
}

bool RunOnComputation(Computation& computation, int64_t max_bytes, int64_t max_count) {
  const std::vector<Instruction*> order = computation.PostOrder();
  // Per instruction, the all-reduces it depends on (itself included), as indices into
  // `reduces`.
  std::vector<Instruction*> reduces;
  std::unordered_map<const Instruction*, std::vector<bool>> depends;
  struct Group {
    std::vector<Instruction*> members;
    std::vector<int64_t> indices;
    int64_t bytes = 0;
  };
  std::map<Key, Group> open;
  std::vector<std::vector<Instruction*>> done;
  auto close = [&](Group& g) {
    if (g.members.size() > 1) done.push_back(g.members);
    g = Group{};
  };
  for (Instruction* inst : order) {
    std::vector<bool> mine;
    for (const Instruction* op : inst->operands()) {
      const std::vector<bool>& theirs = depends[op];
      if (mine.size() < theirs.size()) mine.resize(theirs.size(), false);
      for (size_t i = 0; i < theirs.size(); ++i) mine[i] = mine[i] || theirs[i];
    }
    std::optional<Key> key = KeyOf(*inst);
    if (key) {
      Group& g = open[*key];
      bool dependent = false;
      for (int64_t i : g.indices) dependent = dependent || (i < static_cast<int64_t>(mine.size()) && mine[i]);
      const int64_t bytes = std::max<int64_t>(inst->shape().ByteSize(), 0);
      if (dependent || static_cast<int64_t>(g.members.size()) >= max_count || g.bytes + bytes > max_bytes) close(g);
      g.members.push_back(inst);
      g.indices.push_back(static_cast<int64_t>(reduces.size()));
      g.bytes += bytes;
    }
    if (inst->opcode() == Opcode::kAllReduce) {
      mine.resize(reduces.size() + 1, false);
      mine[reduces.size()] = true;
      reduces.push_back(inst);
    }
    depends[inst] = std::move(mine);
  }
  for (auto& [key, g] : open) close(g);
  for (const std::vector<Instruction*>& members : done) Combine(computation, members);
  return !done.empty();
}

}  // namespace

StatusOr<bool> AllReduceCombiner::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  for (const auto& computation : module.computations()) {
    if (computation->IsFusionComputation()) continue;
    changed |= RunOnComputation(*computation, max_bytes_, max_count_);
  }
  return changed;
}

}  // namespace fusebox::passes
