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
  // Every group formed so far (open or closed: all of them become one all-reduce), with
  // what its members depend on together; and each all-reduce's group.
  struct Group {
    std::vector<int64_t> indices;
    std::vector<bool> depends;
    int64_t bytes = 0;
  };
  std::vector<Group> groups;
  std::vector<int64_t> group_of;
  std::map<Key, int64_t> open;  // the group each kind is filling
  // What `mine` depends on once every group is one instruction: a member of a group
  // brings in everything the group's members depend on, and so on.
  auto closure = [&](std::vector<bool> set) {
    std::vector<bool> expanded(groups.size(), false);
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t i = 0; i < set.size(); ++i) {
        if (!set[i] || group_of[i] < 0 || expanded[static_cast<size_t>(group_of[i])]) continue;
        const Group& g = groups[static_cast<size_t>(group_of[i])];
        expanded[static_cast<size_t>(group_of[i])] = true;
        if (set.size() < g.depends.size()) set.resize(g.depends.size(), false);
        for (size_t k = 0; k < g.depends.size(); ++k) set[k] = set[k] || g.depends[k];
        grew = true;
      }
    }
    return set;
  };
  for (Instruction* inst : order) {
    std::vector<bool> mine;
    auto merge = [&](const Instruction* from) {
      const std::vector<bool>& theirs = depends[from];
      if (mine.size() < theirs.size()) mine.resize(theirs.size(), false);
      for (size_t i = 0; i < theirs.size(); ++i) mine[i] = mine[i] || theirs[i];
    };
    for (const Instruction* op : inst->operands()) merge(op);
    for (const Instruction* pred : inst->control_predecessors()) merge(pred);
    const int64_t index = static_cast<int64_t>(reduces.size());
    if (inst->opcode() == Opcode::kAllReduce) {
      reduces.push_back(inst);
      group_of.push_back(-1);
    }
    std::optional<Key> key = KeyOf(*inst);
    if (key) {
      // Joining the open group of its kind must not make that group wait for itself, also
      // through other groups (two kinds, each combining an all-reduce with one that reads
      // the other kind's: a cycle).
      auto it = open.find(*key);
      bool fits = it != open.end();
      if (fits) {
        const Group& g = groups[static_cast<size_t>(it->second)];
        const std::vector<bool> reach = closure(mine);
        for (int64_t i : g.indices) fits = fits && !(i < static_cast<int64_t>(reach.size()) && reach[i]);
        const int64_t bytes = std::max<int64_t>(inst->shape().ByteSize(), 0);
        fits = fits && static_cast<int64_t>(g.indices.size()) < max_count && g.bytes + bytes <= max_bytes;
      }
      if (!fits) {
        groups.push_back(Group{});
        open[*key] = static_cast<int64_t>(groups.size()) - 1;
      }
      Group& g = groups[static_cast<size_t>(open[*key])];
      g.indices.push_back(index);
      g.bytes += std::max<int64_t>(inst->shape().ByteSize(), 0);
      group_of[static_cast<size_t>(index)] = open[*key];
    }
    if (inst->opcode() == Opcode::kAllReduce) {
      mine.resize(reduces.size(), false);
      mine[static_cast<size_t>(index)] = true;
    }
    if (key) {
      Group& g = groups[static_cast<size_t>(group_of[static_cast<size_t>(index)])];
      if (g.depends.size() < mine.size()) g.depends.resize(mine.size(), false);
      for (size_t i = 0; i < mine.size(); ++i) g.depends[i] = g.depends[i] || mine[i];
    }
    depends[inst] = std::move(mine);
  }
  bool changed = false;
  for (const Group& g : groups) {
    if (g.indices.size() < 2) continue;
    std::vector<Instruction*> members;
    for (int64_t i : g.indices) members.push_back(reduces[static_cast<size_t>(i)]);
    Combine(computation, members);
    changed = true;
  }
  return changed;
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
