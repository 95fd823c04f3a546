// Row fusion: the row plan (which reduces a fusion computes once per row, which values it
// keeps in a row buffer) and the pass that merges row reductions into their consumers.
#include "compiler/passes/row_fusion.h"

#include <algorithm>
#include <bit>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "compiler/ir/computation.h"
#include "compiler/ir/module.h"
#include "compiler/ir/primitive_type.h"
#include "compiler/passes/fusion_utils.h"
#include "compiler/passes/instruction_fusion.h"

namespace fusebox::passes {
namespace {

// Ops a row kernel takes: what the elemental emitters compute per element. Anything else
// (dot, convolution, sort, scatter, custom calls, nested fusions) keeps its own kernel.
bool RowKernelOp(const Instruction& inst) {
  if (IsElementwise(inst.opcode())) return true;
  switch (inst.opcode()) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kIota: case Opcode::kBroadcast:
    case Opcode::kReshape: case Opcode::kBitcast: case Opcode::kTranspose: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse: case Opcode::kDynamicSlice:
    case Opcode::kGather: case Opcode::kCopy: case Opcode::kConvert: case Opcode::kReducePrecision:
    case Opcode::kReduceWindow:
      return true;
    case Opcode::kReduce:
      return inst.operand_count() == 2 && inst.shape().IsArray();
    default:
      return false;
  }
}

bool SameLeading(const Shape& a, const Shape& b, int64_t k) {
  if (!a.IsArray() || !b.IsArray() || a.rank() < k || b.rank() < k) return false;
  for (int64_t d = 0; d < k; ++d) {
    if (a.dimensions(d) != b.dimensions(d)) return false;
  }
  return true;
}

class Planner {
 public:
  Planner(const std::function<const Instruction*(const Instruction*)>& resolve,
          const std::function<bool(const Instruction*)>& input)
      : resolve_(resolve), input_(input) {}

  std::optional<RowPlan> Plan(const std::vector<const Instruction*>& outputs, std::string* why, bool row_outputs) {
    auto fail = [&](std::string reason) -> std::optional<RowPlan> {
      if (why != nullptr) *why = std::move(reason);
      return std::nullopt;
    };
    if (outputs.empty()) return fail("no outputs");
    // The full shape: the output of the highest rank (the first one without row outputs).
    const Instruction* full = outputs[0];
    for (const Instruction* out : outputs) {
      if (!out->shape().IsArray()) return fail("an output is not an array");
      if (row_outputs && out->shape().rank() > full->shape().rank()) full = out;
    }
    const Shape& first = full->shape();
    if (first.rank() < 2) return fail("the result is not an array of rank 2 or more");
    // Outputs of the row dimensions alone (checked against the reduces' row rank below).
    std::vector<const Instruction*> per_row;
    for (const Instruction* out : outputs) {
      if (out->shape().dimensions() == first.dimensions()) continue;
      const std::vector<int64_t>& dims = out->shape().dimensions();
      if (!row_outputs || dims.size() >= first.dimensions().size() ||
          !std::equal(dims.begin(), dims.end(), first.dimensions().begin())) {
        return fail("its outputs differ in shape");
      }
      per_row.push_back(out);
    }
    RowPlan plan;
    plan.dims = first.dimensions();
    const int64_t n = first.rank();
    for (const Instruction* out : outputs) PostOrder(out);
    for (const Instruction* x : order_) {
      if (IsInput(x)) continue;
      if (!RowKernelOp(*x)) {
        return fail("%" + x->name() + " (" + std::string(OpcodeName(x->opcode())) + ") does not run in a row kernel");
      }
      if (x->opcode() == Opcode::kReduce) plan.reduces.push_back(x);
    }
    if (plan.reduces.empty()) return fail("it has no reduce");
    if (plan.reduces.size() > 62) return fail("more than 62 reduces");
    // Every reduce reduces the trailing dimensions of a row-shaped operand.
    const int64_t k = plan.reduces[0]->shape().rank();
    for (const Instruction* r : plan.reduces) {
      std::vector<int64_t> dims = r->dimensions();
      std::sort(dims.begin(), dims.end());
      bool trailing = r->operand(0)->shape().dimensions() == plan.dims && r->shape().rank() == k &&
                      static_cast<int64_t>(dims.size()) == n - k;
      for (size_t i = 0; trailing && i < dims.size(); ++i) trailing = dims[i] == k + static_cast<int64_t>(i);
      if (!trailing) {
        return fail("%" + r->name() + " does not reduce the trailing " + std::to_string(n - k) +
                    " dimension(s) of a value shaped like the result");
      }
    }
    if (k < 1 || k >= n) return fail("no row dimensions");
    for (const Instruction* out : per_row) {
      if (out->shape().rank() != k) {
        return fail("output %" + out->name() + " is neither shaped like the rows' elements nor one value per row");
      }
    }
    plan.row_rank = k;
    for (int64_t d = 0; d < n; ++d) (d < k ? plan.rows : plan.row_length) *= plan.dims[d];
    if (plan.rows < 2) return fail("one row");
    if (plan.row_length < 2) return fail("rows of one element");
    // Which values are read only at their row.
    k_ = k;
    for (const Instruction* out : outputs) Align(out, true);
    for (const Instruction* r : plan.reduces) {
      if (!aligned_[r]) return fail("%" + r->name() + "'s value is read at more than its own row");
    }
    // Which loops read each value: pass j is reduces[j]'s loop, the last the outputs'.
    const int64_t final_pass = static_cast<int64_t>(plan.reduces.size());
    for (size_t j = 0; j < plan.reduces.size(); ++j) Mark(Operand(plan.reduces[j], 0), uint64_t{1} << j);
    for (const Instruction* out : outputs) Mark(out, uint64_t{1} << final_pass);
    for (const Instruction* x : order_) {
      const uint64_t bits = passes_[x];
      if (std::popcount(bits) < 2 || x->opcode() == Opcode::kReduce || IsInput(x) || !aligned_[x]) continue;
      if (!IsElementwise(x->opcode()) || x->shape().dimensions() != plan.dims || !IsExpensive(*x)) continue;
      const int64_t pass = std::countr_zero(bits);
      if (pass >= final_pass) continue;
      const int64_t bytes = plan.row_length * std::max(1, ByteWidth(x->shape().element_type()));
      if (bytes > kMaxRowBufferBytes) continue;
      plan.materialized.push_back({x, pass});
    }
    return plan;
  }

 private:
  const Instruction* Operand(const Instruction* x, int64_t i) {
    const Instruction* op = x->operand(i);
    if (resolve_) {
      if (const Instruction* r = resolve_(op)) return r;
    }
    return op;
  }

  // A value the kernel reads from memory: a parameter, or an instruction of the outer
  // computation that is not about to be merged (when a member is a bare reduce).
  bool IsInput(const Instruction* x) const {
    return x->opcode() == Opcode::kParameter || (input_ && input_(x));
  }

  void PostOrder(const Instruction* x) {
    if (!seen_.insert(x).second) return;
    if (IsInput(x)) {
      order_.push_back(x);
      return;
    }
    for (int64_t i = 0; i < x->operand_count(); ++i) PostOrder(Operand(x, i));
    order_.push_back(x);
  }

  // Whether operand i of `user` (whose index has the row in its leading k_ components) is
  // also read with the row in its leading components.
  bool KeepsRow(const Instruction* user, int64_t i) {
    const Instruction* op = Operand(user, i);
    const Shape& s = op->shape();
    if (!s.IsArray() || s.rank() < k_) return false;
    if (IsElementwise(user->opcode())) return s.dimensions() == user->shape().dimensions();
    switch (user->opcode()) {
      case Opcode::kConvert: case Opcode::kReducePrecision: case Opcode::kCopy:
        return s.dimensions() == user->shape().dimensions();
      case Opcode::kBroadcast: {
        const std::vector<int64_t>& dims = user->dimensions();
        if (static_cast<int64_t>(dims.size()) < k_) return false;
        for (int64_t d = 0; d < k_; ++d) {
          if (dims[d] != d) return false;
        }
        return true;
      }
      case Opcode::kReshape: case Opcode::kBitcast:
        return SameLeading(s, user->shape(), k_);
      case Opcode::kReduce: {
        if (i != 0) return false;
        for (int64_t d : user->dimensions()) {
          if (d < k_) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  // Visits `x` as read with the row in place (`aligned`) or not; a value read both ways is
  // not aligned. Each value is visited at most twice (aligned, then downgraded).
  void Align(const Instruction* x, bool aligned) {
    auto it = aligned_.find(x);
    if (it != aligned_.end()) {
      if (!it->second || aligned) return;
      it->second = false;
    } else {
      aligned_[x] = aligned;
    }
    const bool now = aligned_[x];
    if (IsInput(x)) return;
    for (int64_t i = 0; i < x->operand_count(); ++i) Align(Operand(x, i), now && KeepsRow(x, i));
  }

  // Marks the values a loop computes: stops at reduces (their value is bound by then).
  void Mark(const Instruction* x, uint64_t bit) {
    uint64_t& bits = passes_[x];
    if (bits & bit) return;
    bits |= bit;
    if (x->opcode() == Opcode::kReduce || IsInput(x)) return;
    for (int64_t i = 0; i < x->operand_count(); ++i) Mark(Operand(x, i), bit);
  }

  const std::function<const Instruction*(const Instruction*)>& resolve_;
  const std::function<bool(const Instruction*)>& input_;
  int64_t k_ = 0;
  std::unordered_set<const Instruction*> seen_;
  std::vector<const Instruction*> order_;
  std::unordered_map<const Instruction*, bool> aligned_;
  std::unordered_map<const Instruction*, uint64_t> passes_;
};

std::vector<const Instruction*> FusionOutputs(const Instruction& fusion) {
  const Instruction* root = fusion.fused_computation()->root();
  if (root->opcode() != Opcode::kTuple) return {root};
  return std::vector<const Instruction*>(root->operands().begin(), root->operands().end());
}

bool ContainsRowReduce(const Instruction& fusion) {
  for (const auto& inst : fusion.fused_computation()->instructions()) {
    if (inst->opcode() == Opcode::kReduce && inst->shape().IsArray() && inst->shape().rank() >= 1) return true;
  }
  return false;
}

bool IsLoopOrInputFusion(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr) return false;
  const FusionKind kind = inst.fusion_kind().value_or(FusionKind::kLoop);
  return kind == FusionKind::kLoop || kind == FusionKind::kInput;
}

class ComputationRowFusion {
 public:
  ComputationRowFusion(Computation* comp, PassContext& context, bool row_outputs)
      : comp_(comp), context_(context), row_outputs_(row_outputs) {}

  StatusOr<bool> Run() {
    bool changed = false;
    while (true) {
      ASSIGN_OR_RETURN(bool step, Step());
      if (!step) return changed;
      changed = true;
    }
  }

 private:
  // The producer fusion behind operand `op` of a consumer: the fusion itself, or the
  // multi-output fusion a get-tuple-element reads.
  static Instruction* ProducerOf(Instruction* op) {
    if (op->opcode() == Opcode::kGetTupleElement && op->operand(0)->opcode() == Opcode::kFusion &&
        IsMultiOutputFusion(*op->operand(0))) {
      return op->operand(0);
    }
    return op->opcode() == Opcode::kFusion ? op : nullptr;
  }

  // Whether every use of `producer` (directly or through get-tuple-element) is `consumer`.
  static bool OnlyFeeds(const Instruction* producer, const Instruction* consumer) {
    if (producer->IsRoot()) return false;
    for (const Instruction* user : producer->users()) {
      if (user == consumer) continue;
      if (user->opcode() != Opcode::kGetTupleElement || user->IsRoot()) return false;
      for (const Instruction* u : user->users()) {
        if (u != consumer) return false;
      }
    }
    return true;
  }

  // Whether anything but `consumer` reads `value`, or `value` is the computation's result.
  static bool ReadOutside(const Instruction* value, const Instruction* consumer) {
    if (value->IsRoot()) return true;
    for (const Instruction* user : value->users()) {
      if (user != consumer) return true;
    }
    return false;
  }

  // A reduce outside any fusion (one the fusion pass left alone, e.g. reading a library
  // call) that reduces the trailing dimensions of a row: with row outputs, it merges like
  // a fusion does.
  static bool IsBareRowReduce(const Instruction* x) {
    return x->opcode() == Opcode::kReduce && x->operand_count() == 2 && x->shape().IsArray() && x->shape().rank() >= 1;
  }

  bool IsConsumer(const Instruction* x) const {
    if (IsLoopOrInputFusion(*x)) return row_outputs_ || x->shape().IsArray();
    return row_outputs_ && IsBareRowReduce(x);
  }

  Instruction* RowProducerOf(Instruction* op) const {
    if (row_outputs_ && IsBareRowReduce(op)) return op;
    Instruction* producer = ProducerOf(op);
    if (producer == nullptr || !IsLoopOrInputFusion(*producer) || !ContainsRowReduce(*producer)) return nullptr;
    return producer;
  }

  StatusOr<bool> Step() {
    std::vector<Instruction*> order = comp_->PostOrder();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Instruction* consumer = *it;
      if (!IsConsumer(consumer)) continue;
      const bool consumer_fused = consumer->opcode() == Opcode::kFusion;
      for (Instruction* op : consumer->operands()) {
        Instruction* producer = RowProducerOf(op);
        if (producer == nullptr) continue;
        const bool producer_fused = producer->opcode() == Opcode::kFusion;
        // Looked at again when the consumer has grown since (a merge can leave another
        // producer with the consumer as its only user).
        const int64_t size =
            consumer_fused ? static_cast<int64_t>(consumer->fused_computation()->instructions().size()) : 1;
        if (!considered_.insert({producer->name(), consumer->name(), size}).second) continue;
        const bool only = OnlyFeeds(producer, consumer) && consumer->shape().IsArray();
        if (!only && !row_outputs_) {
          Record(producer->name(), consumer->name(), false, "the producer has users besides the consumer (its reductions would be computed twice)");
          continue;
        }
        if (!only && IndirectPath(consumer, producer) != nullptr) {
          Record(producer->name(), consumer->name(), false,
                 "the consumer also reads the producer through other instructions (merging them would make a cycle)");
          continue;
        }
        // What the producer's values are inside the merged kernel: its fused computation's
        // (or, a bare reduce, itself).
        const Computation* inner = producer_fused ? producer->fused_computation() : nullptr;
        auto producer_value = [&](const Instruction* o) -> const Instruction* {
          if (o == producer) return producer_fused ? inner->root() : producer;
          if (producer_fused && o->opcode() == Opcode::kGetTupleElement && o->operand(0) == producer) {
            return inner->root()->operand(o->tuple_index());
          }
          return nullptr;
        };
        // The consumer's parameters (or, a bare reduce, operands) that the producer's
        // values would replace.
        std::unordered_map<const Instruction*, const Instruction*> replaced;
        for (int64_t p = 0; p < consumer->operand_count(); ++p) {
          const Instruction* value = producer_value(consumer->operand(p));
          if (value == nullptr) continue;
          replaced[consumer_fused ? consumer->fused_computation()->parameter(p) : consumer->operand(p)] = value;
        }
        std::function<const Instruction*(const Instruction*)> resolve = [&](const Instruction* x) {
          auto found = replaced.find(x);
          return found == replaced.end() ? nullptr : found->second;
        };
        // Instructions of this computation other than a bare member are the kernel's inputs.
        std::function<bool(const Instruction*)> input = [&](const Instruction* x) {
          return x->parent() == comp_ && x != producer && x != consumer;
        };
        // The merged kernel's outputs: the consumer's, then the producer's values that
        // others read (a multi-output fusion then).
        std::vector<const Instruction*> outputs =
            consumer_fused ? FusionOutputs(*consumer) : std::vector<const Instruction*>{consumer};
        int64_t kept = 0;
        if (!only) {
          if (producer_fused && IsMultiOutputFusion(*producer)) {
            for (const Instruction* gte : producer->users()) {
              if (gte->opcode() == Opcode::kGetTupleElement && ReadOutside(gte, consumer)) {
                outputs.push_back(inner->root()->operand(gte->tuple_index()));
                ++kept;
              }
            }
          } else if (ReadOutside(producer, consumer)) {
            outputs.push_back(producer_value(producer));
            ++kept;
          }
        }
        std::string why;
        std::optional<RowPlan> plan = Planner(resolve, input).Plan(outputs, &why, row_outputs_);
        if (!plan) {
          Record(producer->name(), consumer->name(), false, "together they are not a row kernel: " + why);
          continue;
        }
        const std::string producer_name = producer->name();
        const std::string consumer_name = consumer->name();
        FusionGroup group;
        group.members = {producer, consumer};
        group.kind = FusionKind::kInput;
        group.reuse = consumer_fused ? consumer : nullptr;
        if (only) {
          group.root = consumer;
        } else {
          group.multi_output = true;
        }
        ASSIGN_OR_RETURN(Instruction * made, BuildFusion(group));
        std::string reason = "row reduction(s) computed once per row inside the consumer (" +
                             std::to_string(plan->reduces.size()) + " reduce(s) over rows of " +
                             std::to_string(plan->row_length) + " elements; the input is read from memory once)";
        if (kept > 0) {
          reason += "; the " + std::to_string(kept) + " value(s) of the producer that others read are outputs of the merged kernel";
        }
        Record(producer_name, consumer_name, true, reason, made->name());
        return true;
      }
    }
    return false;
  }

  void Record(const std::string& producer, const std::string& consumer, bool fused, const std::string& reason,
              const std::string& fusion = "") {
    FusionDecision d;
    d.pass = "row-fusion";
    d.computation = comp_->name();
    d.producer = producer;
    d.consumer = consumer;
    d.fused = fused;
    d.reason = (fused ? "fused: " : "not fused: ") + reason;
    d.fusion = fusion;
    context_.RecordDecision(std::move(d));
  }

  Computation* comp_;
  PassContext& context_;
  bool row_outputs_;
  std::set<std::tuple<std::string, std::string, int64_t>> considered_;
};

}  // namespace

std::optional<RowPlan> PlanRowKernel(const std::vector<const Instruction*>& outputs,
                                     const std::function<const Instruction*(const Instruction*)>& resolve,
                                     std::string* why, bool row_outputs) {
  static const std::function<bool(const Instruction*)> kNoInputs;
  return Planner(resolve, kNoInputs).Plan(outputs, why, row_outputs);
}

std::optional<RowPlan> PlanRowKernel(const Instruction& fusion, bool row_outputs) {
  if (fusion.opcode() != Opcode::kFusion || fusion.fused_computation() == nullptr) return std::nullopt;
  static const std::function<const Instruction*(const Instruction*)> kNone;
  return PlanRowKernel(FusionOutputs(fusion), kNone, nullptr, row_outputs);
}

StatusOr<bool> RowFusion::Run(Module& module, PassContext& context) {
  bool changed = false;
  for (Computation* comp : ProgramComputations(module, {.skip_fused = true})) {
    ComputationRowFusion rows(comp, context, row_outputs_);
    ASSIGN_OR_RETURN(bool c, rows.Run());
    changed = changed || c;
  }
  return changed;
}

}  // namespace fusebox::passes
