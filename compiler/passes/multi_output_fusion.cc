// Multi-output fusion: producer -> consumer (move a shared producer in as an extra output)
// and siblings (merge two readers of one operand), each checked for cycles, shapes and size.
#include "compiler/passes/multi_output_fusion.h"

#include <set>
#include <unordered_set>
#include <utility>

#include "compiler/passes/fusion_utils.h"
#include "compiler/passes/instruction_fusion.h"

namespace fusebox::passes {
namespace {

std::string Name(const Instruction* inst) { return "%" + inst->name(); }

bool IsCandidateFusion(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return false;
  FusionKind kind = inst.fusion_kind().value_or(FusionKind::kLoop);
  return kind == FusionKind::kLoop || kind == FusionKind::kInput;
}

bool IsSiblingCandidate(const Instruction& inst) {
  return IsCandidateFusion(inst) || (inst.opcode() == Opcode::kReduce && !inst.shape().IsTuple());
}

const Instruction* FindReduce(const Instruction& inst) {
  if (inst.opcode() == Opcode::kReduce) return &inst;
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr) return nullptr;
  for (const auto& inner : inst.fused_computation()->instructions()) {
    if (inner->opcode() == Opcode::kReduce) return inner.get();
  }
  return nullptr;
}

// The index space the emitter loops over: a reduction's input, else the (first) output.
Shape IterationShape(const Instruction& inst) {
  if (const Instruction* reduce = FindReduce(inst)) return reduce->operand(0)->shape();
  if (inst.opcode() == Opcode::kFusion && IsMultiOutputFusion(inst)) {
    return inst.fused_computation()->root()->operand(0)->shape();
  }
  return inst.shape();
}

bool SameIteration(const Shape& a, const Shape& b) {
  return a.IsArray() && b.IsArray() && a.dimensions() == b.dimensions();
}

// Producers that can move into a fusion as an extra output.
std::string NotMovable(const Instruction& p) {
  Opcode op = p.opcode();
  if (op == Opcode::kFusion) {
    if (IsMultiOutputFusion(p)) return "producer " + Name(&p) + " is already a multi-output fusion";
    if (p.fusion_kind().value_or(FusionKind::kLoop) != FusionKind::kLoop) {
      return "producer " + Name(&p) + " is a " + std::string(FusionKindName(*p.fusion_kind())) +
             " fusion; only loop fusions and elementwise ops join as extra outputs";
    }
    // A loop fusion made elsewhere (XLA's wrapped_scatter, an in-place dynamic-update-slice)
    // computes its root in place: joined to another fusion, it would stop being its
    // kernel's root.
    if (const Computation* fused = p.fused_computation()) {
      for (const auto& inner : fused->instructions()) {
        const Opcode inner_op = inner->opcode();
        if (inner_op == Opcode::kScatter || inner_op == Opcode::kSelectAndScatter ||
            inner_op == Opcode::kDynamicUpdateSlice) {
          return "producer " + Name(&p) + " holds " + Name(inner.get()) + " (" + std::string(OpcodeName(inner_op)) +
                 "), which updates its buffer in place and must stay its kernel's root";
        }
      }
    }
    return "";
  }
  if (p.shape().IsTuple()) return "producer " + Name(&p) + " produces a tuple";
  if (IsElementwise(op)) return "";
  switch (op) {
    case Opcode::kBroadcast: case Opcode::kReshape: case Opcode::kBitcast: case Opcode::kTranspose:
    case Opcode::kSlice: case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse:
    case Opcode::kDynamicSlice: case Opcode::kCopy: case Opcode::kIota:
      return "";
    case Opcode::kReduce:
      return "consumer is a reduction and so is the producer " + Name(&p) +
             " (multi-output: a reduction does not join another fusion as an extra output)";
    default:
      return "producer " + Name(&p) + " is not fusible (" + std::string(OpcodeName(op)) + ")";
  }
}

int64_t OutputCount(const Instruction& inst) {
  return IsMultiOutputFusion(inst) ? inst.fused_computation()->root()->operand_count() : 1;
}

int64_t OperandCountOf(const std::vector<const Instruction*>& members) {
  std::unordered_set<const Instruction*> in(members.begin(), members.end());
  std::unordered_set<const Instruction*> inputs;
  for (const Instruction* m : members) {
    for (const Instruction* op : m->operands()) {
      if (!in.count(op)) inputs.insert(op);
    }
  }
  return static_cast<int64_t>(inputs.size());
}

class ComputationMof {
 public:
  ComputationMof(Computation* comp, const MultiOutputFusionOptions& options, PassContext& context)
      : comp_(comp), options_(options), context_(context) {}

  StatusOr<bool> Run() {
    bool changed = false;
    // Each successful edit restarts the scan: the graph it saw has changed.
    while (true) {
      ASSIGN_OR_RETURN(bool pc, ProducerConsumerStep());
      if (pc) {
        changed = true;
        continue;
      }
      ASSIGN_OR_RETURN(bool sib, SiblingStep());
      if (!sib) break;
      changed = true;
    }
    return changed;
  }

 private:
  void Record(const Instruction* producer, const Instruction* consumer, bool fused, const std::string& reason,
              const std::string& fusion = "") {
    FusionDecision d;
    d.pass = "multi-output-fusion";
    d.computation = comp_->name();
    d.producer = producer->name();
    d.consumer = consumer->name();
    d.fused = fused;
    d.reason = (fused ? "fused: " : "not fused: ") + reason;
    d.fusion = fusion;
    context_.RecordDecision(std::move(d));
  }

  // One producer -> consumer multi-output fusion, or false when none is left to make.
  StatusOr<bool> ProducerConsumerStep() {
    std::vector<Instruction*> order = comp_->PostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction* fusion = *it;
      // A lone elementwise op (nothing fused into it) can be the consumer too.
      bool plain = IsElementwise(fusion->opcode()) && fusion->shape().IsArray();
      if (!IsCandidateFusion(*fusion) && !plain) continue;
      std::unordered_set<const Instruction*> seen;
      for (Instruction* p : fusion->operands()) {
        if (!seen.insert(p).second) continue;
        // Only ops with users besides this fusion are candidates (instruction fusion
        // already took the rest, or said why not).
        if (p->user_count() < 2 || p->opcode() == Opcode::kParameter || p->opcode() == Opcode::kConstant ||
            p->opcode() == Opcode::kGetTupleElement) {
          continue;
        }
        if (!considered_.insert({p->name(), fusion->name()}).second) continue;
        std::string why = NotMovable(*p);
        if (why.empty()) {
          if (const Instruction* via = IndirectPath(fusion, p)) {
            why = "would create a cycle through " + Name(via) + ": it reads " + Name(p) +
                  " and feeds " + Name(fusion) + ", so it would both feed and read the fusion";
          }
        }
        if (why.empty() && !SameIteration(p->shape(), IterationShape(*fusion))) {
          why = "shapes incompatible with the emitter: " + Name(p) + " is " + p->shape().ToString(false) +
                " but " + Name(fusion) + " loops over " + IterationShape(*fusion).ToString(false);
        }
        if (why.empty()) {
          int64_t n = OperandCountOf({p, fusion});
          if (n > options_.max_fusion_operands) {
            why = "fusion would have " + std::to_string(n) + " operands, more than " +
                  std::to_string(options_.max_fusion_operands);
          } else if (OutputCount(*fusion) + 1 > options_.max_outputs) {
            why = "fusion would have more than " + std::to_string(options_.max_outputs) + " outputs";
          }
        }
        if (!why.empty()) {
          Record(p, fusion, false, why);
          continue;
        }
        std::string producer_name = p->name();
        std::string reason = Name(p) + " joins " + Name(fusion) + " as an extra output; its other " +
                             std::to_string(p->user_count() - 1) +
                             " user(s) read it from the fusion instead of a separate kernel";
        if (fusion->opcode() != Opcode::kFusion) {
          ASSIGN_OR_RETURN(fusion, CreateFusion(fusion, FusionKind::kLoop));
        }
        ASSIGN_OR_RETURN(Instruction * made, FuseProducerMultiOutput(p, fusion));
        FusionDecision d;
        d.pass = "multi-output-fusion";
        d.computation = comp_->name();
        d.producer = producer_name;
        d.consumer = made->name();
        d.fused = true;
        d.reason = "fused: " + reason;
        d.fusion = made->name();
        context_.RecordDecision(std::move(d));
        return true;
      }
    }
    return false;
  }

  // One sibling merge, or false when none is left to make.
  StatusOr<bool> SiblingStep() {
    for (Instruction* shared : comp_->PostOrder()) {
      if (!shared->shape().IsArray() || shared->shape().ElementCount() <= 1) continue;
      std::vector<Instruction*> readers;
      for (Instruction* u : shared->users()) {
        if (IsSiblingCandidate(*u)) readers.push_back(u);
      }
      for (size_t i = 0; i < readers.size(); ++i) {
        for (size_t j = i + 1; j < readers.size(); ++j) {
          Instruction* a = readers[i];
          Instruction* b = readers[j];
          if (!considered_.insert({a->name() + "|" + shared->name(), b->name()}).second) continue;
          std::string why;
          if (Reaches(a, b) || Reaches(b, a)) {
            Instruction* later = Reaches(a, b) ? a : b;
            Instruction* earlier = later == a ? b : a;
            const Instruction* via = IndirectPath(later, earlier);
            why = via != nullptr ? "would create a cycle through " + Name(via) + ": " + Name(later) +
                                       " depends on " + Name(earlier)
                                 : Name(later) + " reads " + Name(earlier) +
                                       " directly (producer and consumer, not siblings)";
          } else if (!SameIteration(IterationShape(*a), IterationShape(*b))) {
            why = "shapes incompatible with the emitter: " + Name(a) + " loops over " +
                  IterationShape(*a).ToString(false) + ", " + Name(b) + " over " +
                  IterationShape(*b).ToString(false);
          } else if (int64_t n = OperandCountOf({a, b}); n > options_.max_fusion_operands) {
            why = "fusion would have " + std::to_string(n) + " operands, more than " +
                  std::to_string(options_.max_fusion_operands);
          } else if (OutputCount(*a) + OutputCount(*b) > options_.max_outputs) {
            why = "fusion would have more than " + std::to_string(options_.max_outputs) + " outputs";
          }
          if (!why.empty()) {
            Record(a, b, false, why);
            continue;
          }
          FusionKind kind = FindReduce(*a) || FindReduce(*b) ? FusionKind::kInput : FusionKind::kLoop;
          std::string a_name = a->name(), b_name = b->name();
          std::string reason = "siblings %" + a_name + " and %" + b_name + " both read " + Name(shared) +
                               "; one kernel reads it once and writes both results";
          ASSIGN_OR_RETURN(Instruction * made, FuseSiblings(a, b, kind));
          FusionDecision d;
          d.pass = "multi-output-fusion";
          d.computation = comp_->name();
          d.producer = a_name;
          d.consumer = b_name;
          d.fused = true;
          d.reason = "fused: " + reason;
          d.fusion = made->name();
          context_.RecordDecision(std::move(d));
          return true;
        }
      }
    }
    return false;
  }

  Computation* comp_;
  const MultiOutputFusionOptions& options_;
  PassContext& context_;
  std::set<std::pair<std::string, std::string>> considered_;
};

}  // namespace

StatusOr<bool> MultiOutputFusion::Run(Module& module, PassContext& context) {
  bool changed = false;
  for (Computation* comp : ProgramComputations(module, {.skip_fused = true})) {
    ComputationMof mof(comp, options_, context);
    ASSIGN_OR_RETURN(bool c, mof.Run());
    changed = changed || c;
  }
  return changed;
}

}  // namespace fusebox::passes
