// Building fusion instructions: one general builder (BuildFusion) that every fusion edit
// is a case of, so parameters, outputs and rewiring are handled in one place.
#include "compiler/passes/fusion_utils.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "compiler/support/planted_bugs.h"

namespace fusebox::passes {

bool IsMultiOutputFusion(const Instruction& instruction) {
  return instruction.opcode() == Opcode::kFusion && instruction.fused_computation() != nullptr &&
         instruction.fused_computation()->root() != nullptr &&
         instruction.fused_computation()->root()->opcode() == Opcode::kTuple;
}

bool Reaches(const Instruction* from, const Instruction* to) {
  if (from == to) return true;
  std::vector<const Instruction*> work = {from};
  std::unordered_set<const Instruction*> seen = {from};
  while (!work.empty()) {
    const Instruction* inst = work.back();
    work.pop_back();
    for (const Instruction* op : inst->operands()) {
      if (op == to) return true;
      if (seen.insert(op).second) work.push_back(op);
    }
  }
  return false;
}

const Instruction* IndirectPath(const Instruction* from, const Instruction* to) {
  for (const Instruction* op : from->operands()) {
    const bool direct = op == to || (op->opcode() == Opcode::kGetTupleElement && op->operand(0) == to);
    if (!direct && Reaches(op, to)) return op;
  }
  return nullptr;
}

namespace {

// Builds the fused computation and the fusion for one group; see BuildFusion.
class FusionBuilder {
 public:
  explicit FusionBuilder(const FusionGroup& group) : group_(group) {}

  StatusOr<Instruction*> Build() {
    if (group_.members.empty()) return InvalidArgument("a fusion needs at least one member");
    comp_ = group_.members[0]->parent();
    if (comp_ == nullptr || comp_->parent() == nullptr) {
      return InvalidArgument("fusion members must belong to a computation of a module");
    }
    module_ = comp_->parent();
    RETURN_IF_ERROR(CollectMembers());
    ComputeStaying();
    CollectInputs();
    RETURN_IF_ERROR(BuildFusedComputation());
    Instruction* fusion = MakeFusionInstruction();
    RewireOutputs(fusion);
    RemoveDeadMembers(fusion);
    if (abandoned_computation_) module_->RemoveUnreachableComputations();
    return fusion;
  }

 private:
  Status CollectMembers() {
    for (Instruction* m : group_.members) {
      if (m->parent() != comp_) {
        return InvalidArgument("fusion member %" + m->name() + " is in another computation");
      }
      member_set_.insert(m);
    }
    if (!group_.multi_output && (group_.root == nullptr || !member_set_.count(group_.root))) {
      return InvalidArgument("a single-output fusion needs its root among the members");
    }
    // A multi-output member's values are its get-tuple-element users.
    for (Instruction* m : group_.members) {
      if (!IsMultiOutputFusion(*m)) continue;
      for (Instruction* user : m->users()) {
        if (user->opcode() != Opcode::kGetTupleElement) {
          return InvalidArgument("multi-output fusion %" + m->name() + " is used by %" +
                                 user->name() + ", which is not a get-tuple-element");
        }
        member_set_.insert(user);
        gte_members_.insert(user);
      }
    }
    for (Instruction* inst : comp_->PostOrder()) {
      if (member_set_.count(inst)) order_.push_back(inst);
    }
    return Status::Ok();
  }

  void AddInput(Instruction* inst) {
    if (member_set_.count(inst) || input_index_.count(inst)) return;
    input_index_[inst] = static_cast<int64_t>(inputs_.size());
    inputs_.push_back(inst);
  }

  void CollectInputs() {
    // The grown fusion keeps its operand order; new operands come after.
    if (group_.reuse != nullptr) {
      for (Instruction* op : group_.reuse->operands()) AddInput(op);
    }
    for (Instruction* m : order_) {
      if (gte_members_.count(m)) continue;
      for (Instruction* op : m->operands()) AddInput(op);
    }
  }

  // Members that stay in the outer computation (duplicated into the fusion): those read
  // from outside the group, and the members such a staying member reads.
  void ComputeStaying() {
    if (group_.multi_output) return;
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      Instruction* m = *it;
      if (m == group_.root) continue;
      bool stays = m == comp_->root() ||
                   std::any_of(m->users().begin(), m->users().end(), [&](const Instruction* u) {
                     return !member_set_.count(u) || staying_.count(u);
                   });
      if (stays) staying_.insert(m);
    }
  }

  bool StaysOutside(const Instruction* m) const { return staying_.count(m) != 0; }

  // Moved instructions keep their names, unless the fused computation already has one
  // by that name (instructions inlined from several fusions can share names).
  std::string CloneName(const Instruction* original, bool original_stays, const Computation* fc) {
    if (original_stays || fc->FindInstruction(original->name()) != nullptr) {
      return module_->UniqueName(original->name());
    }
    return original->name();
  }

  Status InlineFusion(Instruction* member, Computation* fc, bool stays) {
    Computation* inner = member->fused_computation();
    if (inner == nullptr) return InvalidArgument("fusion %" + member->name() + " has no fused computation");
    std::unordered_map<const Instruction*, Instruction*> local;
    for (int64_t i = 0; i < member->operand_count(); ++i) {
      Instruction* param = i < inner->parameter_count() ? inner->parameter(i) : nullptr;
      if (param == nullptr) {
        return InvalidArgument("fusion %" + member->name() + " has no parameter " + std::to_string(i));
      }
      local[param] = value_.at(member->operand(i));
    }
    for (Instruction* inst : inner->PostOrder()) {
      if (inst->opcode() == Opcode::kParameter) continue;
      if (inst->opcode() == Opcode::kFusion) {
        return Unimplemented("fusion %" + member->name() + " contains a nested fusion");
      }
      std::vector<Instruction*> ops;
      for (Instruction* op : inst->operands()) ops.push_back(local.at(op));
      // The member's computation goes away with it unless the member stays outside.
      local[inst] = fc->AddInstruction(inst->CloneWithOperands(ops, CloneName(inst, stays, fc)));
    }
    value_[member] = local.at(inner->root());
    return Status::Ok();
  }

  Status BuildFusedComputation() {
    auto fc = std::make_unique<Computation>(module_->UniqueName("fused_computation"));
    fc->set_parent(module_);
    for (size_t i = 0; i < inputs_.size(); ++i) {
      auto param = std::make_unique<Instruction>(
          Opcode::kParameter, module_->UniqueName("param_" + std::to_string(i)), inputs_[i]->shape());
      param->set_parameter_number(static_cast<int64_t>(i));
      value_[inputs_[i]] = fc->AddInstruction(std::move(param));
    }
    for (Instruction* m : order_) {
      if (gte_members_.count(m)) {
        Instruction* tuple = value_.at(m->operand(0));
        int64_t index = m->tuple_index();
        if (tuple->opcode() != Opcode::kTuple || index < 0 || index >= tuple->operand_count()) {
          return Internal("cannot resolve %" + m->name() + " inside the fusion");
        }
        value_[m] = tuple->operand(index);
        continue;
      }
      bool stays = StaysOutside(m);
      if (m->opcode() == Opcode::kFusion) {
        RETURN_IF_ERROR(InlineFusion(m, fc.get(), stays));
        if (!stays) abandoned_computation_ = true;
        continue;
      }
      std::vector<Instruction*> ops;
      for (Instruction* op : m->operands()) ops.push_back(value_.at(op));
      value_[m] = fc->AddInstruction(m->CloneWithOperands(ops, CloneName(m, stays, fc.get())));
    }
    // Outputs.
    if (group_.multi_output) {
      for (Instruction* m : order_) {
        if (m->opcode() == Opcode::kFusion && IsMultiOutputFusion(*m)) continue;  // via its gtes
        bool outside = m == comp_->root() ||
                       std::any_of(m->users().begin(), m->users().end(),
                                   [&](const Instruction* u) { return !member_set_.count(u); });
        if (outside) outputs_.push_back(m);
      }
      if (outputs_.empty()) return InvalidArgument("a multi-output fusion needs an output");
    } else {
      outputs_.push_back(group_.root);
    }
    Instruction* root = nullptr;
    if (outputs_.size() == 1 && !group_.multi_output) {
      root = value_.at(outputs_[0]);
      if (BugPlanted(PlantedBug::kFusionDropsEpilogue) && IsElementwise(root->opcode()) &&
          root->operand_count() > 0 && root->operand(0)->shape() == root->shape()) {
        root = root->operand(0);
      }
    } else {
      std::vector<Shape> shapes;
      for (Instruction* o : outputs_) shapes.push_back(o->shape());
      auto tuple = std::make_unique<Instruction>(Opcode::kTuple, module_->UniqueName("tuple"),
                                                 Shape::Tuple(std::move(shapes)));
      for (Instruction* o : outputs_) tuple->AppendOperand(value_.at(o));
      root = fc->AddInstruction(std::move(tuple));
    }
    fc->set_root(root);
    RemoveDeadInside(fc.get());
    fused_ = module_->AddComputation(std::move(fc));
    return Status::Ok();
  }

  // Values of inlined multi-output members nobody reads any more.
  static void RemoveDeadInside(Computation* fc) {
    std::vector<Instruction*> order = fc->PostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction* inst = *it;
      if (inst == fc->root() || inst->opcode() == Opcode::kParameter) continue;
      if (inst->user_count() == 0) fc->RemoveInstruction(inst);
    }
  }

  Instruction* MakeFusionInstruction() {
    const Shape& shape = fused_->root()->shape();
    Instruction* fusion = group_.reuse;
    if (fusion != nullptr) {
      // Keep the control edges across the operand rewrite.
      std::vector<Instruction*> preds = fusion->control_predecessors();
      std::vector<Instruction*> succs = fusion->control_successors();
      fusion->DetachFromOperands();
      for (Instruction* input : inputs_) fusion->AppendOperand(input);
      for (Instruction* p : preds) fusion->AddControlPredecessor(p);
      for (Instruction* s : succs) s->AddControlPredecessor(fusion);
      fusion->set_shape(shape);
      fusion->set_called_computation(0, fused_);
      abandoned_computation_ = true;
    } else {
      auto made = std::make_unique<Instruction>(Opcode::kFusion, module_->UniqueName("fusion"), shape);
      for (Instruction* input : inputs_) made->AppendOperand(input);
      made->AppendCalledComputation(fused_);
      made->set_call_form(CallForm::kCalls);
      // Like XLA, the fusion carries the metadata of the op it computes last.
      Instruction* last = group_.multi_output ? outputs_.back() : group_.root;
      if (last->metadata() != nullptr) made->set_metadata(*last->metadata());
      fusion = comp_->AddInstruction(std::move(made));
    }
    fusion->mutable_attrs().fusion_kind = group_.kind;
    fused_->set_fusion_instruction(fusion);
    // Control edges of members that leave move to the fusion.
    for (Instruction* m : order_) {
      if (m == fusion || StaysOutside(m)) continue;
      for (Instruction* p : m->control_predecessors()) {
        if (!member_set_.count(p)) fusion->AddControlPredecessor(p);
      }
      for (Instruction* s : m->control_successors()) {
        if (!member_set_.count(s)) s->AddControlPredecessor(fusion);
      }
    }
    return fusion;
  }

  void RewireOutputs(Instruction* fusion) {
    bool tuple_root = fused_->root()->opcode() == Opcode::kTuple && (group_.multi_output || outputs_.size() > 1);
    // Users are collected before any get-tuple-element is made: a grown fusion is itself
    // an output, and the new get-tuple-elements must not count as its users.
    std::vector<std::vector<Instruction*>> outside(outputs_.size());
    for (size_t k = 0; k < outputs_.size(); ++k) {
      for (Instruction* u : outputs_[k]->users()) {
        if (!member_set_.count(u) && u != fusion) outside[k].push_back(u);
      }
    }
    for (size_t k = 0; k < outputs_.size(); ++k) {
      Instruction* out = outputs_[k];
      bool is_root = comp_->root() == out;
      if (out == fusion && !tuple_root) continue;  // grown in place, users already read it
      if (outside[k].empty() && !is_root) continue;
      Instruction* replacement = fusion;
      if (tuple_root) {
        // The inner value's shape: `out` may be the grown fusion, whose shape is now the tuple.
        auto gte = std::make_unique<Instruction>(Opcode::kGetTupleElement,
                                                 module_->UniqueName("get-tuple-element"),
                                                 fused_->root()->operand(static_cast<int64_t>(k))->shape());
        gte->AppendOperand(fusion);
        gte->mutable_attrs().tuple_index = static_cast<int64_t>(k);
        if (BugPlanted(PlantedBug::kMultiOutputFusionWrongOutput) && group_.multi_output && k > 0 &&
            fused_->root()->operand(0)->shape() == gte->shape()) {
          gte->mutable_attrs().tuple_index = 0;
        }
        replacement = comp_->AddInstruction(std::move(gte));
      }
      for (Instruction* u : outside[k]) {
        for (int64_t i = 0; i < u->operand_count(); ++i) {
          if (u->operand(i) == out) u->ReplaceOperand(i, replacement);
        }
      }
      if (is_root) comp_->set_root(replacement);
    }
  }

  void RemoveDeadMembers(Instruction* fusion) {
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      Instruction* m = *it;
      if (m == fusion || m == comp_->root() || m->user_count() != 0) continue;
      if (!m->control_successors().empty()) continue;
      comp_->RemoveInstruction(m);
    }
  }

  const FusionGroup& group_;
  Computation* comp_ = nullptr;
  Module* module_ = nullptr;
  std::unordered_set<const Instruction*> member_set_;
  std::unordered_set<const Instruction*> gte_members_;
  std::unordered_set<const Instruction*> staying_;
  std::vector<Instruction*> order_;
  std::vector<Instruction*> inputs_;
  std::unordered_map<const Instruction*, int64_t> input_index_;
  std::unordered_map<const Instruction*, Instruction*> value_;  // outer -> inner
  std::vector<Instruction*> outputs_;
  Computation* fused_ = nullptr;
  bool abandoned_computation_ = false;
};

}  // namespace

StatusOr<Instruction*> BuildFusion(const FusionGroup& group) { return FusionBuilder(group).Build(); }

StatusOr<Instruction*> CreateFusion(Instruction* instruction, FusionKind kind) {
  FusionGroup group;
  group.members = {instruction};
  group.kind = kind;
  group.root = instruction;
  return BuildFusion(group);
}

StatusOr<Instruction*> FuseProducer(Instruction* producer, Instruction* consumer) {
  if (consumer->opcode() != Opcode::kFusion) {
    return InvalidArgument("%" + consumer->name() + " is not a fusion");
  }
  FusionGroup group;
  group.members = {producer, consumer};
  group.kind = consumer->fusion_kind().value_or(FusionKind::kLoop);
  group.root = consumer;
  group.reuse = consumer;
  return BuildFusion(group);
}

StatusOr<Instruction*> FuseProducerMultiOutput(Instruction* producer, Instruction* consumer) {
  if (consumer->opcode() != Opcode::kFusion) {
    return InvalidArgument("%" + consumer->name() + " is not a fusion");
  }
  FusionGroup group;
  group.members = {producer, consumer};
  group.kind = consumer->fusion_kind().value_or(FusionKind::kLoop);
  group.multi_output = true;
  group.reuse = consumer;
  return BuildFusion(group);
}

StatusOr<Instruction*> FuseSiblings(Instruction* a, Instruction* b, FusionKind kind) {
  FusionGroup group;
  group.members = {a, b};
  group.kind = kind;
  group.multi_output = true;
  // Grow the later of the two fusions in place when there is one.
  for (Instruction* inst : a->parent()->PostOrder()) {
    if ((inst == a || inst == b) && inst->opcode() == Opcode::kFusion) group.reuse = inst;
  }
  return BuildFusion(group);
}

}  // namespace fusebox::passes
