// Producer -> consumer fusion. Sections: op classes; fusibility reasons; the per-
// computation planner (groups grown from consumers, a decision per edge); the pass.
#include "compiler/passes/instruction_fusion.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes/fusion_utils.h"

namespace fusebox::passes {

// ---- Op classes ---------------------------------------------------------------------

namespace {

bool IsDataMovement(Opcode op) {
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kDynamicSlice:
    case Opcode::kGather:
    case Opcode::kCopy:
    case Opcode::kIota:
      return true;
    default:
      return false;
  }
}

bool IsLoopFusible(Opcode op) { return IsElementwise(op) || IsDataMovement(op); }

bool IsDotLike(Opcode op) { return op == Opcode::kDot || op == Opcode::kConvolution; }

bool ComputationContains(const Computation* c, bool (*pred)(Opcode)) {
  if (c == nullptr) return false;
  return std::any_of(c->instructions().begin(), c->instructions().end(),
                     [&](const auto& inst) { return pred(inst->opcode()); });
}

bool IsReduceOp(Opcode op) { return op == Opcode::kReduce; }

// A reduce, or a fusion computing one.
bool ContainsReduce(const Instruction& inst) {
  if (inst.opcode() == Opcode::kReduce) return true;
  return inst.opcode() == Opcode::kFusion && ComputationContains(inst.fused_computation(), IsReduceOp);
}

bool ContainsDot(const Instruction& inst) {
  if (IsDotLike(inst.opcode())) return true;
  return inst.opcode() == Opcode::kFusion && ComputationContains(inst.fused_computation(), IsDotLike);
}

std::string Name(const Instruction* inst) { return "%" + inst->name(); }

std::string Times(int64_t n) { return n == 2 ? "twice" : std::to_string(n) + " times"; }

// Whether `consumer` reads an element of its operand `operand` more than once.
bool ReusesOperandElements(const Instruction& consumer, const Instruction& operand) {
  switch (consumer.opcode()) {
    case Opcode::kBroadcast:
      return consumer.shape().ElementCount() > operand.shape().ElementCount();
    case Opcode::kGather:
      return consumer.operand(0) == &operand;
    default:
      return false;
  }
}

// Ops that can sit in a reduction epilogue or a dot's output epilogue.
bool IsEpilogueOp(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kCopy:
    case Opcode::kConstant:
    case Opcode::kIota:
      return true;
    default:
      return IsElementwise(inst.opcode());
  }
}

}  // namespace

std::optional<std::string> IsExpensive(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p:
    case Opcode::kLogistic: case Opcode::kTanh: case Opcode::kTan: case Opcode::kSin:
    case Opcode::kCos: case Opcode::kSinh: case Opcode::kCosh: case Opcode::kAsin:
    case Opcode::kAcos: case Opcode::kAtan: case Opcode::kAtan2: case Opcode::kAsinh:
    case Opcode::kAcosh: case Opcode::kAtanh: case Opcode::kSqrt: case Opcode::kRsqrt:
    case Opcode::kCbrt: case Opcode::kErf:
      return std::string(OpcodeName(inst.opcode()));
    case Opcode::kDivide: case Opcode::kRemainder: case Opcode::kPower: {
      PrimitiveType t = inst.shape().element_type();
      if (IsFloat(t) || IsComplex(t)) return std::string(OpcodeName(inst.opcode()));
      return std::nullopt;
    }
    case Opcode::kFusion: {
      const Computation* fc = inst.fused_computation();
      if (fc == nullptr) return std::string("fusion");
      for (const auto& inner : fc->instructions()) {
        if (auto why = IsExpensive(*inner)) return "contains " + Name(inner.get()) + " (" + *why + ")";
      }
      return std::nullopt;
    }
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple:
    case Opcode::kGetTupleElement:
      return std::nullopt;
    default:
      if (IsLoopFusible(inst.opcode())) return std::nullopt;
      return std::string(OpcodeName(inst.opcode()));
  }
}

// ---- Fusibility reasons ---------------------------------------------------------------

namespace {

// Why `inst` cannot take producers into a fusion, or "" when it can.
std::string ConsumerNotFusible(const Instruction& inst) {
  Opcode op = inst.opcode();
  if (IsLoopFusible(op) || op == Opcode::kReduce || op == Opcode::kDynamicUpdateSlice) return "";
  std::string head = "consumer " + Name(&inst) + " is not fusible (" + std::string(OpcodeName(op));
  switch (op) {
    case Opcode::kFusion: {
      if (IsMultiOutputFusion(inst)) return head + ": a multi-output fusion)";
      FusionKind kind = inst.fusion_kind().value_or(FusionKind::kLoop);
      if (kind == FusionKind::kLoop || kind == FusionKind::kInput) return "";
      return head + ": a " + std::string(FusionKindName(kind)) + " fusion is left as it is)";
    }
    case Opcode::kDot:
    case Opcode::kConvolution:
      return head + ": the matrix-multiply emitter reads its operands from memory)";
    case Opcode::kTuple:
      return head + ": it only groups values)";
    case Opcode::kGetTupleElement:
      return head + ": it only selects a tuple element)";
    case Opcode::kCustomCall:
      return head + ": an opaque library call)";
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
      return head + ": control flow runs its own computations)";
    default:
      return head + ")";
  }
}

// Why `p` cannot be fused into any consumer, or "".
std::string ProducerNotFusible(const Instruction& p, const InstructionFusionOptions& options) {
  Opcode op = p.opcode();
  std::string head = "producer " + Name(&p) + " ";
  if (op == Opcode::kParameter) {
    return head + "is a parameter; its value comes from outside the computation";
  }
  if (p.shape().IsTuple() && op != Opcode::kFusion) {
    return head + "produces a tuple (" + std::string(OpcodeName(op)) + "); only arrays are fused";
  }
  if (op == Opcode::kConstant) {
    int64_t n = p.shape().ElementCount();
    if (n > options.max_fused_constant_elements) {
      return head + "is a constant with " + std::to_string(n) + " elements, more than " +
             std::to_string(options.max_fused_constant_elements) + "; large constants stay in memory";
    }
    return "";
  }
  if (IsLoopFusible(op) || op == Opcode::kReduce || IsDotLike(op)) return "";
  switch (op) {
    case Opcode::kFusion: {
      if (IsMultiOutputFusion(p)) return head + "is a multi-output fusion";
      FusionKind kind = p.fusion_kind().value_or(FusionKind::kLoop);
      if (kind != FusionKind::kLoop && kind != FusionKind::kInput) {
        return head + "is a " + std::string(FusionKindName(kind)) + " fusion, which is left as it is";
      }
      // A fusion made elsewhere (XLA's wrapped_scatter, a dynamic-update-slice fusion) may
      // hold what no fusion may take as a producer: merged into a consumer it would stop
      // being its kernel's root.
      if (const Computation* fused = p.fused_computation()) {
        for (const auto& inner : fused->instructions()) {
          const Opcode inner_op = inner->opcode();
          if (inner_op == Opcode::kParameter || inner_op == Opcode::kConstant) continue;
          if (std::string why = ProducerNotFusible(*inner, options); !why.empty()) {
            return head + "holds " + Name(inner.get()) + " (" + std::string(OpcodeName(inner_op)) +
                   "), which no fusion takes as a producer";
          }
        }
      }
      return "";
    }
    case Opcode::kDynamicUpdateSlice:
      return head + "is not fusible (dynamic-update-slice: it updates its buffer in place, so it "
                    "must be the root of its kernel)";
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
      return head + "is not fusible (" + std::string(OpcodeName(op)) +
             ": it draws random numbers, a side effect)";
    case Opcode::kCustomCall:
      return head + "is not fusible (custom-call: an opaque library call)";
    default:
      return head + "is not fusible (" + std::string(OpcodeName(op)) + ")";
  }
}

// ---- The planner ----------------------------------------------------------------------

// A consumer and the producers it absorbed: one fusion to be.
struct Group {
  Instruction* root = nullptr;
  std::vector<Instruction*> members;  // in the order they joined
  std::unordered_set<const Instruction*> set;
  bool has_reduce = false;
  bool has_dot = false;
  FusionKind kind() const {
    if (has_dot) return FusionKind::kOutput;
    if (has_reduce) return FusionKind::kInput;
    return FusionKind::kLoop;
  }
  void Add(Instruction* inst) {
    members.push_back(inst);
    set.insert(inst);
    has_reduce = has_reduce || ContainsReduce(*inst);
    has_dot = has_dot || ContainsDot(*inst);
  }
  // Operands the group would have with `extra` in it.
  int64_t CountInputs(const Instruction* extra) const {
    std::unordered_set<const Instruction*> inputs;
    auto add = [&](const Instruction* m) {
      for (const Instruction* op : m->operands()) {
        if (!set.count(op) && op != extra) inputs.insert(op);
      }
    };
    for (const Instruction* m : members) add(m);
    if (extra != nullptr) add(extra);
    return static_cast<int64_t>(inputs.size());
  }
};

struct Verdict {
  bool fused = false;
  std::string reason;
};

class ComputationPlanner {
 public:
  ComputationPlanner(Computation* comp, const InstructionFusionOptions& options)
      : comp_(comp), options_(options) {}

  StatusOr<bool> Run(PassContext& context) {
    std::vector<Instruction*> order = comp_->PostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) Visit(*it);
    // Consumers first (reverse post order of the roots): a later group's members are
    // still in place, since each has a user inside that group.
    bool changed = false;
    std::vector<std::string> fusion_names(groups_.size());
    for (size_t g = 0; g < groups_.size(); ++g) {
      Group& group = groups_[g];
      if (group.members.size() < 2) continue;
      FusionGroup spec;
      spec.members = group.members;
      spec.kind = group.kind();
      spec.root = group.root;
      if (group.root->opcode() == Opcode::kFusion) spec.reuse = group.root;
      ASSIGN_OR_RETURN(Instruction * fusion, BuildFusion(spec));
      fusion_names[g] = fusion->name();
      changed = true;
    }
    for (Pending& p : pending_) {
      if (p.decision.fused && p.group >= 0) p.decision.fusion = fusion_names[p.group];
      context.RecordDecision(std::move(p.decision));
    }
    return changed;
  }

 private:
  struct Pending {
    FusionDecision decision;
    int group = -1;
  };

  void Record(const Instruction* producer, const Instruction* consumer, const Verdict& v, int group) {
    FusionDecision d;
    d.pass = "fusion";
    d.computation = comp_->name();
    d.producer = producer->name();
    d.consumer = consumer->name();
    d.fused = v.fused;
    d.reason = (v.fused ? "fused: " : "not fused: ") + v.reason;
    pending_.push_back({std::move(d), group});
  }

  // Whether `inst`, already copied into some groups, is still read outside them: by a
  // user outside every group (a non-fusible consumer), or by a group that does not hold it
  // (a user's own group included). Its users were visited first and their groups are final.
  bool Survives(Instruction* inst) const {
    if (inst == comp_->root() || !inst->control_successors().empty()) return true;
    for (const Instruction* u : inst->users()) {
      auto g = member_of_.find(u);
      if (g == member_of_.end()) return true;
      for (int index : g->second) {
        if (!groups_[index].set.count(inst)) return true;
      }
    }
    return false;
  }

  void Visit(Instruction* inst) {
    if (member_of_.count(inst) && !Survives(inst)) return;
    if (inst->operand_count() == 0) return;
    std::string not_fusible = ConsumerNotFusible(*inst);
    if (!not_fusible.empty()) {
      std::unordered_set<const Instruction*> seen;
      for (Instruction* op : inst->operands()) {
        if (seen.insert(op).second) Record(op, inst, {false, not_fusible}, -1);
      }
      return;
    }
    int index = static_cast<int>(groups_.size());
    groups_.emplace_back();
    groups_.back().root = inst;
    AddMember(index, inst);
    Grow(index);
  }

  void AddMember(int index, Instruction* inst) {
    groups_[index].Add(inst);
    member_of_[inst].push_back(index);
  }

  void Grow(int index) {
    std::deque<std::pair<Instruction*, Instruction*>> edges;  // (consumer member, producer)
    auto push = [&](Instruction* m) {
      std::unordered_set<const Instruction*> seen;
      for (Instruction* op : m->operands()) {
        if (seen.insert(op).second) edges.emplace_back(m, op);
      }
    };
    push(groups_[index].root);
    std::unordered_map<const Instruction*, Verdict> decided;
    while (!edges.empty()) {
      auto [m, p] = edges.front();
      edges.pop_front();
      auto known = decided.find(p);
      if (known != decided.end()) {
        Record(p, m, known->second, index);
        continue;
      }
      Verdict v = ShouldFuse(groups_[index], m, p);
      decided[p] = v;
      Record(p, m, v, index);
      if (v.fused) {
        AddMember(index, p);
        push(p);
      }
    }
  }

  Verdict No(std::string reason) const { return {false, std::move(reason)}; }

  Verdict CheckOperandLimit(const Group& group, const Instruction* p) const {
    int64_t n = group.CountInputs(p);
    if (n > options_.max_fusion_operands) {
      return No("fusion would have " + std::to_string(n) + " operands, more than " +
                std::to_string(options_.max_fusion_operands));
    }
    return {true, ""};
  }

  // Whether every member of `group` can run over the output of a reduction / dot with
  // `shape`; fills `why` otherwise.
  bool EpilogueFits(const Group& group, const Shape& shape, const char* what, std::string* why) const {
    for (const Instruction* m : group.members) {
      if (!IsEpilogueOp(*m)) {
        *why = "shapes incompatible with the emitter: " + Name(m) + " (" +
               std::string(OpcodeName(m->opcode())) + ") cannot run in a " + what +
               " epilogue, which must be elementwise over its output";
        return false;
      }
    }
    const Shape& out = group.root->shape();
    if (out.IsTuple() || out.ElementCount() != shape.ElementCount()) {
      *why = "shapes incompatible with the emitter: the fusion's output " + Name(group.root) + " is " +
             out.ToString(false) + " but the " + what + " produces " + shape.ToString(false) +
             "; an epilogue must run over the " + what + "'s output";
      return false;
    }
    return true;
  }

  // The first of `m` and the group members on its paths to the root that also feeds an
  // instruction outside the group, or null when every value from `m` stays inside.
  static const Instruction* SharedOnTheWay(const Group& group, const Instruction* m) {
    std::vector<const Instruction*> work{m};
    std::unordered_set<const Instruction*> seen{m};
    while (!work.empty()) {
      const Instruction* x = work.back();
      work.pop_back();
      if (x == group.root) continue;
      for (const Instruction* u : x->users()) {
        if (!group.set.count(u)) return x;
        if (seen.insert(u).second) work.push_back(u);
      }
    }
    return nullptr;
  }

  Verdict ShouldFuse(const Group& group, Instruction* m, Instruction* p) const {
    if (std::string why = ProducerNotFusible(*p, options_); !why.empty()) return No(why);
    if (group.has_dot && ContainsDot(*m)) {
      return No("consumer " + Name(m) + " is the " + std::string(OpcodeName(m->opcode())) +
                " of an output fusion; the matrix-multiply emitter reads its operands from memory");
    }
    const int64_t users = p->user_count();
    if (ContainsReduce(*p)) {
      if (ContainsReduce(*m)) {
        return No("consumer is a reduction and so is the producer (" + Name(p) + " into " + Name(m) +
                  "); one kernel holds one reduction");
      }
      if (group.has_reduce) {
        return No("consumer is a reduction and so is the producer (" + Name(p) + " into the reduction "
                  "fusion of " + Name(group.root) + "); one kernel holds one reduction");
      }
      if (group.has_dot) return No("consumer is an output fusion of a dot; it cannot also reduce");
      if (users > 1) {
        return No("producer " + Name(p) + " is a reduction with " + std::to_string(users) +
                  " users; a reduction fuses only into its single consumer, as an epilogue");
      }
      std::string why;
      if (!EpilogueFits(group, p->shape(), "reduction", &why)) return No(why);
      Verdict limit = CheckOperandLimit(group, p);
      if (!limit.fused) return limit;
      return {true, "reduction epilogue: " + Name(m) + " runs on the result of " + Name(p) +
                        " in the same kernel (input fusion)"};
    }
    if (ContainsDot(*p)) {
      if (!options_.output_fusion) return No("output fusion is disabled");
      if (users > 1) {
        return No("producer " + Name(p) + " is a " + std::string(OpcodeName(p->opcode())) + " with " +
                  std::to_string(users) + " users; it fuses only with a single elementwise consumer "
                  "(output fusion)");
      }
      if (group.has_reduce) return No("consumer is a reduction fusion; a dot fuses only with elementwise epilogues");
      if (std::all_of(group.members.begin(), group.members.end(), [](const Instruction* x) {
            return x->opcode() == Opcode::kReshape || x->opcode() == Opcode::kBitcast;
          })) {
        // Attention's QKV projections: dot -> reshape to [batch, seq, heads, head_dim].
        return No("consumer " + Name(m) + " only reshapes the result of " + Name(p) +
                  ": a reshape is a view of the buffer (no kernel), where an output fusion would "
                  "compute the " + std::string(OpcodeName(p->opcode())) + " into a scratch and copy it");
      }
      if (const Instruction* shared = SharedOnTheWay(group, m)) {
        // That member stays (or is copied) for its users outside this group, and with it
        // the dot: the dot would run in this fusion and again for the others. (A masked
        // softmax: scale -> select -> {reduce max, subtract}; the select feeds both.)
        return No("consumer " + Name(m) + " leads to " + Name(shared) + ", which has " +
                  std::to_string(shared->user_count()) + " users and may be duplicated into several "
                  "fusions; the " + std::string(OpcodeName(p->opcode())) + " would be computed more than once");
      }
      std::string why;
      if (!EpilogueFits(group, p->shape(), std::string(OpcodeName(p->opcode())).c_str(), &why)) {
        return No(why);
      }
      Verdict limit = CheckOperandLimit(group, p);
      if (!limit.fused) return limit;
      return {true, "output fusion: " + Name(m) + " finishes the result of " + Name(p) +
                        " in the same kernel (bias-add / elementwise epilogue)"};
    }
    // A loop-fusible producer.
    if (p == comp_->root()) {
      return No("producer " + Name(p) + " is the computation's result; it is written to memory "
                "anyway, so fusing it would only compute it twice");
    }
    if (users > 1) {
      if (auto why = IsExpensive(*p)) {
        return No("producer " + Name(p) + " is expensive (" + *why + ") and has " + std::to_string(users) +
                  " users; fusing would compute it " + Times(users));
      }
      for (const Instruction* u : p->users()) {
        if (group.set.count(u)) continue;
        std::string why = ConsumerNotFusible(*u);
        if (!why.empty()) {
          return No("producer " + Name(p) + " also feeds " + Name(u) + ", which cannot take it (" +
                    std::string(OpcodeName(u->opcode())) + "); it is written to memory anyway, so "
                    "fusing it here would only compute it twice");
        }
      }
    }
    if (auto why = IsExpensive(*p); why && ReusesOperandElements(*m, *p)) {
      return No("consumer " + Name(m) + " (" + std::string(OpcodeName(m->opcode())) +
                ") reads each element of " + Name(p) + " several times; fusing would recompute the "
                "expensive producer (" + *why + ") for each read");
    }
    Verdict limit = CheckOperandLimit(group, p);
    if (!limit.fused) return limit;
    if (users > 1) {
      return {true, "cheap producer " + Name(p) + " is duplicated into each of its " +
                        std::to_string(users) + " users"};
    }
    if (m->opcode() == Opcode::kReduce) {
      return {true, "input fusion: " + Name(p) + " is computed while " + Name(m) + " reads its input"};
    }
    return {true, "loop fusion: " + Name(p) + " (" + std::string(OpcodeName(p->opcode())) +
                      ") is computed inside " + Name(m) + "'s loop"};
  }

  Computation* comp_;
  const InstructionFusionOptions& options_;
  std::vector<Group> groups_;
  std::unordered_map<const Instruction*, std::vector<int>> member_of_;
  std::vector<Pending> pending_;
};

}  // namespace

// ---- The pass -------------------------------------------------------------------------

StatusOr<bool> InstructionFusion::Run(Module& module, PassContext& context) {
  bool changed = false;
  for (Computation* comp : ProgramComputations(module, {.skip_fused = true})) {
    ComputationPlanner planner(comp, options_);
    ASSIGN_OR_RETURN(bool c, planner.Run(context));
    changed = changed || c;
  }
  return changed;
}

}  // namespace fusebox::passes
