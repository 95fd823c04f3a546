// Horizontal loop fusion: independent small loop fusions grouped into one multi-output
// fusion (one GPU launch).
#include "compiler/passes/horizontal_fusion.h"

#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/ir/module.h"
#include "compiler/passes/fusion_utils.h"

namespace fusebox::passes {
namespace {

std::string Name(const Instruction* inst) { return "%" + inst->name(); }

// The one reduce of a small reduction fusion that may join a group (a loss summed over a
// batch), or null: a kInput fusion whose only other instructions are elementwise (as for
// a loop candidate), with one reduce over the operand's minor dimension (a row or full
// reduction) of fewer than kSmallReduction elements, which the GPU emitter runs in one
// launch of 256-thread blocks (longer ones split into two launches), so its launch merges
// with the loops' (AnalyzeMixedReductions).
constexpr int64_t kSmallReduction = 16384;

// A transpose of at most kSmallTranspose elements (256 KiB of f32: the filters a cuDNN call
// reads packed, conv_plan.h) is no worse as a loop, so it may join a group whole; larger
// ones keep their tiled transpose kernel (coalesced on both sides through shared memory).
constexpr int64_t kSmallTranspose = 65536;

const Instruction* SmallReduce(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr ||
      inst.fusion_kind().value_or(FusionKind::kLoop) != FusionKind::kInput) {
    return nullptr;
  }
  const Instruction* reduce = nullptr;
  for (const auto& i : inst.fused_computation()->instructions()) {
    if (i->opcode() != Opcode::kReduce) continue;
    if (reduce != nullptr) return nullptr;
    reduce = i.get();
  }
  if (reduce == nullptr || reduce->operand_count() != 2 || !reduce->shape().IsArray()) return nullptr;
  const Shape& operand = reduce->operand(0)->shape();
  const std::vector<int64_t>& dims = reduce->dimensions();
  if (operand.rank() == 0 || operand.ElementCount() >= kSmallReduction ||
      std::find(dims.begin(), dims.end(), operand.rank() - 1) == dims.end()) {
    return nullptr;
  }
  return reduce;
}

// Why `inst` does not take part, or "" when it does.
std::string NotCandidate(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr) return "not a fusion";
  const Instruction* reduce = SmallReduce(inst);
  if (reduce == nullptr && inst.fusion_kind().value_or(FusionKind::kLoop) != FusionKind::kLoop) {
    return "not a loop fusion or a small row reduction";
  }
  if (inst.IsRoot()) return "the computation's result";
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return "it has control edges";
  const Instruction* root = inst.fused_computation()->root();
  for (const auto& i : inst.fused_computation()->instructions()) {
    if (IsElementwise(i->opcode()) || i.get() == reduce) continue;
    switch (i->opcode()) {
      case Opcode::kParameter: case Opcode::kConstant: case Opcode::kBroadcast: case Opcode::kReshape:
      case Opcode::kBitcast: case Opcode::kIota: case Opcode::kConvert:
        continue;
      case Opcode::kTuple:
        if (i.get() == root) continue;
        break;
      case Opcode::kTranspose:
        // Inside a loop fusion a transpose is read elementally like a broadcast (a weight
        // gradient cuDNN wrote in its packed filter order, read back by the update); a
        // fusion whose root is the transpose runs as a tiled transpose of its own, which
        // only a small one can do without.
        if (i.get() != root || i->shape().ElementCount() <= kSmallTranspose) continue;
        break;
      default:
        break;
    }
    return "it holds " + Name(i.get()) + " (" + std::string(OpcodeName(i->opcode())) + "), which has a kernel of its own";
  }
  const std::vector<Shape> outputs =
      root->opcode() == Opcode::kTuple ? root->shape().tuple_shapes() : std::vector<Shape>{root->shape()};
  for (const Shape& s : outputs) {
    if (!s.IsArray()) return "an output is not an array";
  }
  return "";
}

int64_t OutputElements(const Instruction& inst) {
  const Shape& shape = inst.shape();
  if (!shape.IsTuple()) return shape.ElementCount();
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += s.ElementCount();
  return n;
}

int64_t OutputCount(const Instruction& inst) { return inst.shape().IsTuple() ? inst.shape().tuple_size() : 1; }

struct Group {
  std::vector<Instruction*> members;
  int64_t elements = 0;
  int64_t outputs = 0;
  bool reduction = false;  // a member is a small reduction (at most one is)
  std::unordered_set<const Instruction*> operands;
};

class ComputationHorizontalFusion {
 public:
  ComputationHorizontalFusion(Computation* comp, const HorizontalFusionOptions& options, PassContext& context)
      : comp_(comp), options_(options), context_(context) {}

  // Groups are made on the graph as it is and one group is merged at a time, then the
  // groups are made again: a merge adds paths (two members' users and operands now meet
  // in one fusion) that could make another group's merge a cycle.
  StatusOr<bool> Run() {
    ASSIGN_OR_RETURN(bool changed, WrapSmallTransposes());
    ASSIGN_OR_RETURN(bool chained, MergeTinyChains());
    changed = changed || chained;
    while (true) {
      std::vector<std::pair<const Instruction*, std::string>> refusals;
      std::vector<Group> groups = MakeGroups(&refusals);
      auto merge = std::find_if(groups.begin(), groups.end(), [](const Group& g) { return g.members.size() >= 2; });
      if (merge == groups.end()) {
        for (const auto& [inst, why] : refusals) Record(inst, why);
        return changed;
      }
      RETURN_IF_ERROR(Merge(*merge));
      changed = true;
    }
  }

 private:
  // Bare small transposes (the fusion pass leaves a transpose that reads a parameter and
  // feeds a library call alone: each weight packed for cuDNN) become loop fusions, so that
  // two or more of them can share a launch. A lone one stays as it is.
  StatusOr<bool> WrapSmallTransposes() {
    std::vector<Instruction*> small;
    for (const auto& inst : comp_->instructions()) {
      if (inst->opcode() == Opcode::kTranspose && inst->shape().IsArray() &&
          inst->shape().ElementCount() <= kSmallTranspose && !inst->IsRoot() && inst->control_predecessors().empty() &&
          inst->control_successors().empty()) {
        small.push_back(inst.get());
      }
    }
    if (small.size() < 2) return false;
    for (Instruction* transpose : small) RETURN_IF_ERROR(CreateFusion(transpose, FusionKind::kLoop).status());
    return true;
  }

  // Tiny loop fusions that read one another (a step counter, then the Adam bias corrections
  // computed from it: two launches of one thread each) merge vertically into one
  // multi-output fusion, the producer's values staying outputs for its other users. Tiny:
  // every output of both has at most kTinyElements elements, so the consumer computing the
  // producer's values again per element costs nothing next to a launch.
  static constexpr int64_t kTinyElements = 32;

  static bool Tiny(const Instruction& inst) {
    const Shape& shape = inst.shape();
    if (!shape.IsTuple()) return shape.ElementCount() <= kTinyElements;
    return std::all_of(shape.tuple_shapes().begin(), shape.tuple_shapes().end(),
                       [](const Shape& s) { return s.ElementCount() <= kTinyElements; });
  }

  StatusOr<bool> MergeTinyChains() {
    bool changed = false;
    bool merged = true;
    while (merged) {
      merged = false;
      for (Instruction* consumer : comp_->PostOrder()) {
        if (!NotCandidate(*consumer).empty() || !Tiny(*consumer) || SmallReduce(*consumer) != nullptr) continue;
        for (Instruction* op : consumer->operands()) {
          Instruction* producer = op->opcode() == Opcode::kGetTupleElement ? op->operand(0) : op;
          if (producer == consumer || !NotCandidate(*producer).empty() || !Tiny(*producer) ||
              SmallReduce(*producer) != nullptr ||
              IndirectPath(consumer, producer) != nullptr) {
            continue;
          }
          const std::string producer_name = producer->name(), consumer_name = consumer->name();
          ASSIGN_OR_RETURN(Instruction * made, FuseProducerMultiOutput(producer, consumer));
          FusionDecision d;
          d.pass = "horizontal-fusion";
          d.computation = comp_->name();
          d.producer = producer_name;
          d.consumer = consumer_name;
          d.fused = true;
          d.fusion = made->name();
          d.reason = "fused: tiny loop fusions (at most " + std::to_string(kTinyElements) +
                     " elements an output) in a chain: one launch computes both, %" + producer_name +
                     "'s values stay outputs for its other users";
          context_.RecordDecision(std::move(d));
          merged = changed = true;
          break;
        }
        if (merged) break;
      }
    }
    return changed;
  }

  std::vector<Group> MakeGroups(std::vector<std::pair<const Instruction*, std::string>>* refusals) const {
    std::vector<Group> groups;
    for (Instruction* inst : comp_->PostOrder()) {
      if (!NotCandidate(*inst).empty()) continue;
      const int64_t elements = OutputElements(*inst);
      if (elements > options_.max_elements) continue;
      Group* home = nullptr;
      std::string first_why;
      for (Group& g : groups) {
        std::string why = WhyNotWith(g, inst, elements);
        if (why.empty()) {
          home = &g;
          break;
        }
        if (first_why.empty() && why != kSkip) first_why = why;
      }
      if (home == nullptr) {
        if (!first_why.empty()) refusals->push_back({inst, first_why});
        groups.emplace_back();
        home = &groups.back();
      }
      home->members.push_back(inst);
      home->elements += elements;
      home->outputs += OutputCount(*inst);
      home->reduction = home->reduction || SmallReduce(*inst) != nullptr;
      for (const Instruction* op : inst->operands()) home->operands.insert(op);
    }
    return groups;
  }

  Status Merge(const Group& g) {
    std::vector<std::string> names;
    for (const Instruction* m : g.members) names.push_back(m->name());
    FusionGroup group;
    group.members = g.members;
    group.kind = g.reduction ? FusionKind::kInput : FusionKind::kLoop;
    group.multi_output = true;
    group.reuse = g.members.back();  // the last in post order: after every member's operands
    ASSIGN_OR_RETURN(Instruction * made, BuildFusion(group));
    for (size_t i = 0; i + 1 < names.size(); ++i) {
      FusionDecision d;
      d.pass = "horizontal-fusion";
      d.computation = comp_->name();
      d.producer = names[i];
      d.consumer = names.back();
      d.fused = true;
      d.fusion = made->name();
      d.reason = "fused: %" + names[i] + " and %" + names.back() +
                 " do not depend on each other: one launch runs them side by side (" + std::to_string(names.size()) +
                 (g.reduction ? " fusions, one a small reduction, " : " loop fusions, ") + std::to_string(g.elements) +
                 " elements in all, a range of blocks each)";
      context_.RecordDecision(std::move(d));
    }
    return Status::Ok();
  }

  static constexpr const char* kSkip = "-";

  // Why `inst` cannot join `g` ("" when it can; kSkip when the reason is not worth a
  // decision: a group already full).
  std::string WhyNotWith(const Group& g, const Instruction* inst, int64_t elements) const {
    if (g.elements + elements > options_.max_elements || g.outputs + OutputCount(*inst) > options_.max_outputs) {
      return kSkip;
    }
    if (g.reduction && SmallReduce(*inst) != nullptr) return kSkip;  // one reduction a launch
    std::unordered_set<const Instruction*> operands = g.operands;
    for (const Instruction* op : inst->operands()) operands.insert(op);
    if (static_cast<int64_t>(operands.size()) > options_.max_fusion_operands) return kSkip;
    for (const Instruction* m : g.members) {
      if (Reaches(inst, m)) return "%" + inst->name() + " depends on " + Name(m) + " (one launch cannot run both)";
      if (Reaches(m, inst)) return Name(m) + " depends on %" + inst->name() + " (one launch cannot run both)";
    }
    return "";
  }

  // A fusion that joined no group, with why it could not join the first one it met.
  void Record(const Instruction* inst, const std::string& reason) {
    FusionDecision d;
    d.pass = "horizontal-fusion";
    d.computation = comp_->name();
    d.producer = inst->name();
    d.consumer = inst->name();
    d.fused = false;
    d.reason = "not fused: " + reason;
    context_.RecordDecision(std::move(d));
  }

  Computation* comp_;
  const HorizontalFusionOptions& options_;
  PassContext& context_;
};

}  // namespace

StatusOr<bool> HorizontalFusion::Run(Module& module, PassContext& context) {
  bool changed = false;
  for (Computation* comp : ProgramComputations(module, {.skip_fused = true})) {
    ComputationHorizontalFusion pass(comp, options_, context);
    ASSIGN_OR_RETURN(bool c, pass.Run());
    changed = changed || c;
  }
  return changed;
}

}  // namespace fusebox::passes
