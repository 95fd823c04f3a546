// The interpreter core: evaluates computations in dependency order, owns the values,
// frees them after their last use, and evaluates the structural and control-flow ops
// (parameters, constants, tuples, calls, fusions, while, conditional, async wrappers,
// rng, replica/partition ids, single-replica collectives). Everything numeric is in the
// op-family files (ops_*.cc).
#include "compiler/interpreter/interpreter.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <memory>
#include <unordered_map>

#include "compiler/interpreter/ops.h"
#include "compiler/ir/collectives.h"
#include "compiler/support/bit_generators.h"
#include "compiler/ir/library_calls.h"
#include "compiler/interpreter/collective_hub.h"
#include "compiler/support/strings.h"

namespace fusebox::interpreter {

namespace {

using Value = std::shared_ptr<const Literal>;

// splitmix64: a small, portable, well-mixed generator for the `rng` op and seeds.
uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string Where(const Instruction& inst) {
  std::string out;
  const Computation* comp = inst.parent();
  const Module* module = comp ? comp->parent() : nullptr;
  if (module) out += module->source_name();
  if (inst.location().known()) {
    out += ":" + std::to_string(inst.location().line) + ":" + std::to_string(inst.location().column);
  }
  out += ": %" + inst.name() + " (" + std::string(OpcodeName(inst.opcode())) + "): ";
  return out;
}

Status ErrorAt(const Instruction& inst, const Status& status) {
  // Errors from nested computations already carry their own location; keep the innermost.
  if (status.message().find(": %") != std::string::npos) return status;
  return Status(status.code(), Where(inst) + status.message());
}

Literal CopyOf(const Literal& literal) { return literal; }

}  // namespace

// ---------------------------------------------------------------------------
// EvalContext
// ---------------------------------------------------------------------------

StatusOr<Literal> EvalContext::Call(const Computation& computation,
                                    const std::vector<const Literal*>& args) {
  if (interpreter_ == nullptr) return Internal("no interpreter to call %" + computation.name());
  return interpreter_->RunComputation(computation, args);
}

StatusOr<const Literal*> EvalContext::CallInPlace(const Computation& computation,
                                                  const std::vector<const Literal*>& args) {
  if (interpreter_ == nullptr) return Internal("no interpreter to call %" + computation.name());
  return interpreter_->RunComputationInPlace(computation, args);
}

uint64_t EvalContext::NextRandom() {
  if (interpreter_ == nullptr) {
    static uint64_t fallback = 42;
    return SplitMix64(&fallback);
  }
  return SplitMix64(&interpreter_->rng_state_);
}

Status EvalContext::CheckCancelled() const {
  if (interpreter_ && interpreter_->options_.cancel &&
      interpreter_->options_.cancel->load(std::memory_order_relaxed)) {
    return Unavailable("cancelled");
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Argument checks
// ---------------------------------------------------------------------------

Status CheckArguments(const Module& module, const std::vector<Literal>& arguments) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return InvalidArgument("module " + module.name() + " has no entry computation");
  int64_t n = entry->parameter_count();
  if (static_cast<int64_t>(arguments.size()) != n) {
    return InvalidArgument("module " + module.name() + " takes " + std::to_string(n) +
                           " argument(s) but " + std::to_string(arguments.size()) + " were given");
  }
  for (int64_t i = 0; i < n; ++i) {
    const Instruction* p = entry->parameter(i);
    if (p == nullptr) return InvalidArgument("entry computation has no parameter " + std::to_string(i));
    const Shape& want = p->shape();
    const Shape& got = arguments[i].shape();
    if (!want.Compatible(got)) {
      // Dynamic (bounded) dims accept the same bound.
      bool ok = want.IsArray() && got.IsArray() && want.element_type() == got.element_type() &&
                want.dimensions() == got.dimensions();
      if (!ok) {
        return InvalidArgument("argument " + std::to_string(i) + " is " + got.ToString(false) +
                               " but parameter %" + p->name() + " of the entry computation is " +
                               want.ToString(false));
      }
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Interpreter
// ---------------------------------------------------------------------------

bool TakesLibraryCall(const InterpreterOptions& options, const Instruction& call) {
  if (!options.library_call) return false;
  const bool takes = IsLapackTwinGpuCall(call) ||
                     (options.library_call_gpu_vector_twins && IsLapackTwinGpuVectorCall(call)) ||
                     (!options.library_call_gpu_twins_only && IsCpuLapackTarget(call));
  return takes && (!options.library_call_unmodelled_only || !HasPlainHloModel(call));
}

Interpreter::Interpreter(InterpreterOptions options) : options_(options) {
  uint64_t s = options_.rng_seed;
  rng_state_ = SplitMix64(&s);
  if (options_.max_result_bytes <= 0) {
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    double physical = pages > 0 && page_size > 0 ? static_cast<double>(pages) * page_size : 16e9;
    options_.max_result_bytes = static_cast<int64_t>(physical * 0.8);
  }
}

StatusOr<Literal> Interpreter::Run(const Module& module, const std::vector<Literal>& arguments) {
  RETURN_IF_ERROR(CheckArguments(module, arguments));
  // The interpreter is one device: a collective whose groups reach other devices would
  // give this device's own partial value as if it were the result.
  RETURN_IF_ERROR(WithModuleFile(
      module, CheckCollectivesFit(module, options_.hub != nullptr ? options_.hub->devices() : 1)));
  std::vector<const Literal*> args;
  args.reserve(arguments.size());
  for (const Literal& a : arguments) args.push_back(&a);
  return RunComputation(*module.entry(), args);
}

namespace {

// Evaluates the structural/control ops owned by the core. Returns NotMine() otherwise.
class CoreEvaluator {
 public:
  CoreEvaluator(Interpreter* interp, EvalContext* ctx) : interp_(interp), ctx_(ctx) {}

  StatusOr<Literal> Eval(const Instruction& inst, Operands ops) {
    switch (inst.opcode()) {
      case Opcode::kTuple: {
        Literal out(inst.shape());
        if (static_cast<int64_t>(out.tuple_elements().size()) != inst.operand_count()) {
          return InvalidArgument("tuple shape has " + std::to_string(out.tuple_elements().size()) +
                                 " elements but " + std::to_string(inst.operand_count()) +
                                 " operands");
        }
        for (int64_t i = 0; i < inst.operand_count(); ++i) out.tuple_elements()[i] = *ops[i];
        return out;
      }
      case Opcode::kCall:
      case Opcode::kFusion:
        return CallWith(*inst.called_computation(0), ops);
      case Opcode::kWhile:
        return While(inst, *ops[0]);
      case Opcode::kConditional:
        return Conditional(inst, ops);
      case Opcode::kAddDependency:
      case Opcode::kOptimizationBarrier:
      case Opcode::kDomain:
        return CopyOf(*ops[0]);
      case Opcode::kAfterAll:
        return Literal(inst.shape());
      case Opcode::kReplicaId:
      case Opcode::kPartitionId: {
        Literal out(inst.shape());
        out.SetUint64(0, inst.opcode() == Opcode::kReplicaId ? interp_->options().replica_id
                                                              : interp_->options().partition_id);
        return out;
      }
      case Opcode::kRng:
        return Rng(inst, ops);
      case Opcode::kRngGetAndUpdateState: {
        // The state is a u64[2]-like value: return fresh random bits.
        Literal out(inst.shape());
        for (int64_t i = 0; i < out.element_count(); ++i) out.SetUint64(i, ctx_->NextRandom());
        return out;
      }
      case Opcode::kRngBitGenerator:
        return RngBitGenerator(inst, *ops[0]);
      // Collectives on a single replica / partition.
      case Opcode::kAllReduce:
      case Opcode::kAllReduceStart:
      case Opcode::kAllGather:
      case Opcode::kReduceScatter:
      case Opcode::kAllToAll:
      case Opcode::kCollectiveBroadcast:
      case Opcode::kCollectiveReduce:
        return SingleReplicaCollective(inst, ops);
      case Opcode::kAllReduceDone:
        return CopyOf(*ops[0]);
      case Opcode::kAllGatherStart: {
        Literal out(inst.shape());
        if (!inst.shape().IsTuple() || out.tuple_elements().size() != 2) return SingleReplicaCollective(inst, ops);
        out.tuple_elements()[0] = *ops[0];
        ASSIGN_OR_RETURN(out.tuple_elements()[1], SingleReplicaCollective(inst, ops));
        return out;
      }
      case Opcode::kAllGatherDone:
      case Opcode::kCollectivePermuteDone:
      case Opcode::kCopyDone:
        if (ops[0]->shape().IsTuple() && ops[0]->tuple_elements().size() >= 2) {
          return CopyOf(ops[0]->tuple_elements()[1]);
        }
        return CopyOf(*ops[0]);
      case Opcode::kCollectivePermute:
        return CollectivePermute(inst, *ops[0]);
      case Opcode::kCollectivePermuteStart: {
        Literal out(inst.shape());
        if (!inst.shape().IsTuple() || out.tuple_elements().size() < 2) return CollectivePermute(inst, *ops[0]);
        out.tuple_elements()[0] = *ops[0];
        ASSIGN_OR_RETURN(out.tuple_elements()[1], CollectivePermute(inst, *ops[0]));
        return out;
      }
      case Opcode::kCopyStart: {
        Literal out(inst.shape());
        if (!inst.shape().IsTuple() || out.tuple_elements().size() < 2) return CopyOf(*ops[0]);
        out.tuple_elements()[0] = *ops[0];
        out.tuple_elements()[1] = *ops[0];
        return out;
      }
      case Opcode::kAsyncStart:
        return AsyncStart(inst, ops);
      case Opcode::kAsyncUpdate:
        return CopyOf(*ops[0]);
      case Opcode::kAsyncDone:
        if (ops[0]->shape().IsTuple() && ops[0]->tuple_elements().size() >= 2) {
          return CopyOf(ops[0]->tuple_elements()[1]);
        }
        return InvalidArgument("async-done operand is not an async-start tuple");
      case Opcode::kCustomCall: {
        const std::string& target = inst.attrs().custom_call_target;
        if (IsAnnotationCustomCall(target) && inst.operand_count() == 1 &&
            ops[0]->shape().Compatible(inst.shape())) {
          return CopyOf(*ops[0]);
        }
        if (IsResultlessHostCallback(inst)) return Literal(inst.shape());  // a debug print: no value
        if (IsHostCallbackCustomCall(target)) {
          return Unimplemented("custom-call target \"" + target +
                               "\" is a Python callback (jax.pure_callback, io_callback) that computes this "
                               "value; Fusebox cannot run Python");
        }
        if (TakesLibraryCall(interp_->options(), inst)) {
          return interp_->options().library_call(inst, std::vector<const Literal*>(ops.begin(), ops.end()));
        }
        if (IsLibraryCall(inst)) {
          ASSIGN_OR_RETURN(const Computation* lowered, interp_->LibraryCallComputation(inst));
          return CallWith(*lowered, ops);
        }
        return Unimplemented("custom-call target \"" + target +
                             "\" is not supported by the interpreter (its meaning is defined by a "
                             "runtime library Fusebox does not have)");
      }
      case Opcode::kInfeed:
      case Opcode::kOutfeed:
      case Opcode::kSend:
      case Opcode::kSendDone:
      case Opcode::kRecv:
      case Opcode::kRecvDone:
        return Unimplemented(std::string(OpcodeName(inst.opcode())) +
                             " talks to a host or another device; the interpreter cannot run it");
      default:
        return NotMine();
    }
  }

 private:
  StatusOr<Literal> CallWith(const Computation& comp, Operands ops) {
    std::vector<const Literal*> args(ops.begin(), ops.end());
    return interp_->RunComputation(comp, args);
  }

  StatusOr<Literal> While(const Instruction& inst, const Literal& init) {
    const Computation* cond = inst.while_condition();
    const Computation* body = inst.while_body();
    if (!cond || !body) return InvalidArgument("while needs condition and body");
    Literal state = init;
    for (int64_t iteration = 0;; ++iteration) {
      RETURN_IF_ERROR(ctx_->CheckCancelled());
      if (iteration >= interp_->options().max_while_iterations) {
        return InvalidArgument("while loop did not finish within " +
                               std::to_string(interp_->options().max_while_iterations) +
                               " iterations");
      }
      ASSIGN_OR_RETURN(Literal keep_going, interp_->RunComputation(*cond, {&state}));
      if (!keep_going.shape().IsScalar() || keep_going.shape().element_type() != PrimitiveType::kPred) {
        return InvalidArgument("while condition %" + cond->name() + " must return pred[]");
      }
      if (!keep_going.GetBool(0)) break;
      ASSIGN_OR_RETURN(Literal next, interp_->RunComputation(*body, {&state}));
      state = std::move(next);
    }
    return state;
  }

  StatusOr<Literal> Conditional(const Instruction& inst, Operands ops) {
    const Literal& selector = *ops[0];
    const auto& branches = inst.called_computations();
    if (branches.empty()) return InvalidArgument("conditional has no branches");
    int64_t branch;
    if (selector.shape().element_type() == PrimitiveType::kPred) {
      // true -> the first (true) computation, false -> the second.
      branch = selector.GetBool(0) ? 0 : 1;
      if (branch >= static_cast<int64_t>(branches.size())) branch = static_cast<int64_t>(branches.size()) - 1;
    } else {
      branch = selector.GetInt64(0);
      // Out-of-range indices run the last branch, as XLA defines.
      if (branch < 0 || branch >= static_cast<int64_t>(branches.size())) {
        branch = static_cast<int64_t>(branches.size()) - 1;
      }
    }
    if (inst.operand_count() != static_cast<int64_t>(branches.size()) + 1) {
      return InvalidArgument("conditional has " + std::to_string(branches.size()) +
                             " branches but " + std::to_string(inst.operand_count() - 1) +
                             " branch operands");
    }
    return interp_->RunComputation(*branches[branch], {ops[branch + 1]});
  }

  StatusOr<Literal> Rng(const Instruction& inst, Operands ops) {
    auto dist = inst.attrs().distribution;
    if (!dist) return InvalidArgument("rng needs distribution=");
    Literal out(inst.shape());
    PrimitiveType t = inst.shape().element_type();
    double a = ops[0]->GetDouble(0), b = ops[1]->GetDouble(0);
    for (int64_t i = 0; i < out.element_count(); ++i) {
      double u = static_cast<double>(ctx_->NextRandom() >> 11) * 0x1.0p-53;  // [0, 1)
      if (*dist == RandomDistribution::kUniform) {
        if (IsInteger(t)) {
          int64_t lo = ops[0]->GetInt64(0), hi = ops[1]->GetInt64(0);
          uint64_t span = hi > lo ? static_cast<uint64_t>(hi - lo) : 1;
          out.SetInt64(i, lo + static_cast<int64_t>(ctx_->NextRandom() % span));
        } else {
          out.SetDouble(i, a + (b - a) * u);
        }
      } else {
        // Box-Muller.
        double u2 = static_cast<double>(ctx_->NextRandom() >> 11) * 0x1.0p-53;
        double z = std::sqrt(-2.0 * std::log(1.0 - u)) * std::cos(2.0 * M_PI * u2);
        out.SetDouble(i, a + b * z);
      }
    }
    return out;
  }

  // rng-bit-generator(state) -> (new_state, bits): XLA's generators bit for bit
  // (compiler/support/bit_generators.h); rng_default is Philox, as on XLA's CPU and GPU.
  StatusOr<Literal> RngBitGenerator(const Instruction& inst, const Literal& state) {
    if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 2) {
      return InvalidArgument("rng-bit-generator must return (state, bits)");
    }
    if (!state.shape().IsArray() || state.shape().rank() != 1 || state.shape().element_type() != PrimitiveType::kU64) {
      return InvalidArgument("rng-bit-generator's state must be a u64 vector, not " + state.shape().ToString(false));
    }
    Literal out(inst.shape());
    Literal& bits = out.tuple_elements()[1];
    const PrimitiveType type = bits.shape().element_type();
    const int width = BitWidth(type);
    const bool narrow = type == PrimitiveType::kU8 || type == PrimitiveType::kU16;
    if (!narrow && ((width != 32 && width != 64) || !(IsInteger(type) || IsFloat(type)))) {
      return Unimplemented("rng-bit-generator makes u8, u16 and 32- and 64-bit elements (as XLA's generators do), not " +
                           std::string(PrimitiveTypeName(type)));
    }
    std::vector<uint64_t> words(static_cast<size_t>(state.element_count()));
    for (int64_t i = 0; i < state.element_count(); ++i) words[static_cast<size_t>(i)] = state.GetUint64(i);
    const BitGenerator generator = inst.attrs().rng_algorithm.value_or(RandomAlgorithm::kDefault) ==
                                           RandomAlgorithm::kThreeFry
                                       ? BitGenerator::kThreeFry
                                       : BitGenerator::kPhilox;
    std::vector<uint64_t> values, next;
    const std::string error = GenerateXlaBits(generator, words, bits.shape().dimensions(), width, &values, &next);
    if (!error.empty()) return InvalidArgument("rng-bit-generator: " + error);
    for (int64_t i = 0; i < bits.element_count(); ++i) bits.SetBits(i, values[static_cast<size_t>(i)]);
    Literal& new_state = out.tuple_elements()[0];
    if (new_state.element_count() != state.element_count()) {
      return InvalidArgument("rng-bit-generator's new state must have the state's shape");
    }
    for (int64_t i = 0; i < new_state.element_count(); ++i) new_state.SetUint64(i, next[static_cast<size_t>(i)]);
    return out;
  }

  StatusOr<Literal> SingleReplicaCollective(const Instruction& inst, Operands ops) {
    if (CollectiveHub* hub = interp_->options().hub) {
      std::vector<const Literal*> operands(ops.begin(), ops.end());
      return hub->Exchange(inst, interp_->options().device, operands);
    }
    // One participant: reductions see only their own value; gathers and scatters over a
    // group of one are identities. Run refuses modules with larger groups up front; this
    // covers computations run on their own.
    RETURN_IF_ERROR(CheckCollectiveFits(inst, /*devices=*/1));
    // An all-gather-start's tuple is (operand, result): the caller asks for the result.
    const bool start_tuple = inst.opcode() == Opcode::kAllGatherStart && inst.shape().IsTuple() &&
                             inst.shape().tuple_size() == 2;
    const Shape& result = start_tuple ? inst.shape().tuple_shapes(1) : inst.shape();
    if (!start_tuple && inst.shape().IsTuple() && inst.operand_count() > 1) {
      Literal out(inst.shape());
      for (int64_t i = 0; i < inst.operand_count() && i < inst.shape().tuple_size(); ++i) {
        out.tuple_elements()[i] = *ops[i];
      }
      return out;
    }
    if (!ops[0]->shape().Compatible(result)) {
      return Unimplemented("collective with a group larger than one (result " +
                           result.ToString(false) + " from " + ops[0]->shape().ToString(false) +
                           ") needs several devices; the interpreter runs one");
    }
    return CopyOf(*ops[0]);
  }

  StatusOr<Literal> CollectivePermute(const Instruction& inst, const Literal& operand) {
    if (CollectiveHub* hub = interp_->options().hub) {
      return hub->Exchange(inst, interp_->options().device, {&operand});
    }
    // This replica receives from whoever lists it as a target; with one replica that is
    // only a {0,0} pair. Otherwise XLA's result is zeros.
    RETURN_IF_ERROR(CheckCollectiveFits(inst, /*devices=*/1));
    uint32_t me = interp_->options().replica_id;
    for (const auto& [src, dst] : inst.attrs().source_target_pairs) {
      if (dst == me && src == me) return CopyOf(operand);
    }
    Literal zeros(inst.shape().IsTuple() ? operand.shape() : inst.shape());
    return zeros;
  }

  StatusOr<Literal> AsyncStart(const Instruction& inst, Operands ops) {
    // ((operands...), result, context...): the wrapped computation runs now.
    ASSIGN_OR_RETURN(Literal result, CallWith(*inst.called_computation(0), ops));
    if (!inst.shape().IsTuple() || inst.shape().tuple_size() < 2) {
      return InvalidArgument("async-start must return a tuple (operands, result, ...)");
    }
    Literal out(inst.shape());
    Literal& operands = out.tuple_elements()[0];
    if (operands.shape().IsTuple()) {
      for (size_t i = 0; i < operands.tuple_elements().size() && i < ops.size(); ++i) {
        operands.tuple_elements()[i] = *ops[i];
      }
    }
    out.tuple_elements()[1] = std::move(result);
    return out;
  }

  Interpreter* interp_;
  EvalContext* ctx_;
};

}  // namespace

StatusOr<const Computation*> Interpreter::LibraryCallComputation(const Instruction& call) {
  auto found = library_calls_.find(&call);
  if (found == library_calls_.end()) {
    auto module = std::make_unique<Module>("library_call_" + call.name());
    ASSIGN_OR_RETURN(Computation * computation, BuildLibraryCallComputation(call, *module));
    module->set_entry(computation);
    found = library_calls_.emplace(&call, std::move(module)).first;
  }
  return found->second->entry();
}

const Interpreter::Plan& Interpreter::PlanFor(const Computation& computation) {
  auto it = plans_.find(&computation);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<Plan>();
  std::vector<Instruction*> order = computation.PostOrder();
  std::unordered_map<const Instruction*, int32_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int32_t>(i);
  plan->use_counts.assign(order.size(), 0);
  for (const Instruction* inst : order) {
    plan->order.push_back(inst);
    std::vector<int32_t> slots;
    for (const Instruction* op : inst->operands()) {
      int32_t slot = position.at(op);
      slots.push_back(slot);
      ++plan->use_counts[slot];
    }
    plan->operand_slots.push_back(std::move(slots));
  }
  plan->root_slot = position.at(computation.root());
  return *plans_.emplace(&computation, std::move(plan)).first->second;
}

namespace {

// Refuses a result larger than memory allows, before anything is allocated.
Status CheckResultFits(const Instruction& inst, int64_t max_result_bytes) {
  int64_t bytes = 0;
  bool too_large = false;
  ForEachSubshape(inst.shape(), [&](const Shape& s, const std::vector<int64_t>&) {
    if (!s.IsArray()) return;
    int64_t n = s.ElementCount();
    int64_t slot = std::max(1, ByteWidth(s.element_type()));
    if (n < 0 || n > (int64_t{1} << 62) / slot) {
      too_large = true;
    } else {
      bytes += n * slot;
    }
  });
  if (too_large || bytes > max_result_bytes) {
    return ErrorAt(inst, InvalidArgument(
                             "its result " + inst.shape().ToString(false) + " needs " +
                             (too_large ? std::string("more than 2^62 bytes") : FormatBytes(bytes)) +
                             ", more than the interpreter may use (" +
                             FormatBytes(max_result_bytes) + ")"));
  }
  return Status::Ok();
}

// Evaluates `inst` on its operands: the core's ops first, then each op family in turn.
// Errors name the instruction.
StatusOr<Literal> EvaluateOp(CoreEvaluator& core, const Instruction& inst, Operands ops,
                             EvalContext& ctx) {
  StatusOr<Literal> out = NotMine();
  try {
    out = core.Eval(inst, ops);
    if (!out.ok() && IsNotMine(out.status())) out = EvalElementwise(inst, ops, ctx);
    if (!out.ok() && IsNotMine(out.status())) out = EvalDataMovement(inst, ops, ctx);
    if (!out.ok() && IsNotMine(out.status())) out = EvalReductionAndLinalg(inst, ops, ctx);
  } catch (const std::bad_alloc&) {
    return ErrorAt(inst, InvalidArgument("ran out of memory evaluating it"));
  }
  if (!out.ok() && IsNotMine(out.status())) {
    out = Unimplemented(std::string(OpcodeName(inst.opcode())) +
                        " is not supported by the interpreter");
  }
  if (!out.ok()) return ErrorAt(inst, out.status());
  if (!out->shape().Compatible(inst.shape()) && inst.shape().IsArray()) {
    return ErrorAt(inst, Internal("evaluated to " + out->shape().ToString(false) +
                                  " but the instruction declares " + inst.shape().ToString(false)));
  }
  return out;
}

}  // namespace

Interpreter::ScalarProgram* Interpreter::ScalarProgramFor(const Computation& computation) {
  if (!options_.scalar_programs) return nullptr;
  auto it = scalar_programs_.find(&computation);
  if (it != scalar_programs_.end()) return it->second.get();
  std::unique_ptr<ScalarProgram>& entry = scalar_programs_[&computation];
  if (computation.root() == nullptr) return nullptr;
  const Plan& plan = PlanFor(computation);
  auto program = std::make_unique<ScalarProgram>();
  program->computation = &computation;
  program->plan = &plan;
  program->results.resize(plan.order.size());
  program->values.assign(plan.order.size(), nullptr);
  const auto is_scalar = [](const Shape& shape) { return shape.IsScalar(); };
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    const Instruction& inst = *plan.order[pos];
    const Shape& shape = inst.shape();
    const bool is_root = static_cast<int32_t>(pos) == plan.root_slot;
    switch (inst.opcode()) {
      case Opcode::kParameter:
        if (!is_scalar(shape)) return nullptr;
        break;
      case Opcode::kConstant:
        if (!is_scalar(shape) || inst.literal() == nullptr || !is_scalar(inst.literal()->shape()) ||
            inst.literal()->shape().element_type() != shape.element_type()) {
          return nullptr;
        }
        program->values[pos] = inst.literal();
        break;
      case Opcode::kTuple: {
        // Only as the root, of scalars whose types the tuple declares.
        if (!is_root || !shape.IsTuple() ||
            static_cast<int64_t>(shape.tuple_shapes().size()) != inst.operand_count()) {
          return nullptr;
        }
        for (int64_t i = 0; i < inst.operand_count(); ++i) {
          const Shape& element = shape.tuple_shapes()[i];
          if (!is_scalar(element) || element.element_type() != inst.operand(i)->shape().element_type()) {
            return nullptr;
          }
        }
        break;
      }
      default: {
        if (!IsElementwiseOpcode(inst.opcode()) || !is_scalar(shape) ||
            ByteWidth(shape.element_type()) > options_.max_result_bytes) {
          return nullptr;
        }
        for (const Instruction* operand : inst.operands()) {
          if (!is_scalar(operand->shape())) return nullptr;
        }
        program->results[pos] = Literal(shape);
        program->values[pos] = &program->results[pos];
        break;
      }
    }
  }
  program->output = Literal(computation.root()->shape());
  entry = std::move(program);
  return entry.get();
}

StatusOr<const Literal*> Interpreter::RunScalarProgram(ScalarProgram& program,
                                                       const std::vector<const Literal*>& arguments) {
  const Plan& plan = *program.plan;
  // Arguments must be the scalars the parameters declare; otherwise the general path runs
  // (and says what is wrong).
  if (static_cast<int64_t>(arguments.size()) != program.computation->parameter_count()) return nullptr;
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    const Instruction& inst = *plan.order[pos];
    if (inst.opcode() != Opcode::kParameter) continue;
    const int64_t n = inst.parameter_number();
    if (n < 0 || n >= static_cast<int64_t>(arguments.size())) return nullptr;
    const Literal* argument = arguments[n];
    if (argument == nullptr || !argument->shape().IsScalar() ||
        argument->shape().element_type() != inst.shape().element_type()) {
      return nullptr;
    }
    program.values[pos] = argument;
  }
  ++stats_.scalar_program_calls;
  EvalContext ctx(this);
  const auto copy = [](const Literal& from, Literal& to) {
    std::memcpy(to.untyped_data(), from.untyped_data(), static_cast<size_t>(to.size_bytes()));
  };
  // What RunComputation does per instruction, in the same order: cancellation, the op
  // (its result overwritten in place), on_result, the counters and their limits.
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    const Instruction& inst = *plan.order[pos];
    RETURN_IF_ERROR(ctx.CheckCancelled());
    const Opcode opcode = inst.opcode();
    const bool op = opcode != Opcode::kParameter && opcode != Opcode::kConstant && opcode != Opcode::kTuple;
    if (opcode == Opcode::kTuple) {
      // The root (ScalarProgramFor allows no other tuple): its elements copied out, since a
      // parameter may be one and callers write their arguments from the result.
      const std::vector<int32_t>& slots = plan.operand_slots[pos];
      for (size_t i = 0; i < slots.size(); ++i) copy(*program.values[slots[i]], program.output.tuple_elements()[i]);
      if (options_.on_result) options_.on_result(inst, program.output);
    } else if (op) {
      const std::vector<int32_t>& slots = plan.operand_slots[pos];
      program.operands.clear();
      for (int32_t slot : slots) program.operands.push_back(program.values[slot]);
      Literal& result = program.results[pos];
      std::memset(result.untyped_data(), 0, static_cast<size_t>(result.size_bytes()));
      Status status = EvalElementwiseInto(inst, Operands(program.operands.data(), program.operands.size()), &result);
      if (!status.ok()) return ErrorAt(inst, status);
      if (options_.on_result) options_.on_result(inst, result);
    }
    ++stats_.instructions_evaluated;
    if (opcode != Opcode::kTuple) ++stats_.elements_produced;
    if (options_.max_instructions > 0 && stats_.instructions_evaluated > options_.max_instructions) {
      return ErrorAt(inst, Unavailable("work limit reached: evaluated more than " +
                                       std::to_string(options_.max_instructions) + " instructions"));
    }
    if (options_.max_elements > 0 && stats_.elements_produced > options_.max_elements) {
      return ErrorAt(inst, Unavailable("work limit reached: produced more than " +
                                       std::to_string(options_.max_elements) + " elements"));
    }
  }
  // A root that is not a tuple, copied for the same reason.
  if (plan.order[plan.root_slot]->opcode() != Opcode::kTuple) copy(*program.values[plan.root_slot], program.output);
  return &program.output;
}

StatusOr<const Literal*> Interpreter::RunComputationInPlace(const Computation& computation,
                                                            const std::vector<const Literal*>& arguments) {
  if (ScalarProgram* program = ScalarProgramFor(computation)) {
    ASSIGN_OR_RETURN(const Literal* result, RunScalarProgram(*program, arguments));
    if (result != nullptr) return result;
  }
  ASSIGN_OR_RETURN(Literal result, RunComputation(computation, arguments));
  Literal& kept = in_place_results_[&computation];
  kept = std::move(result);
  return &kept;
}

StatusOr<Literal> Interpreter::RunComputation(const Computation& computation,
                                              const std::vector<const Literal*>& arguments) {
  if (ScalarProgram* program = ScalarProgramFor(computation)) {
    ASSIGN_OR_RETURN(const Literal* result, RunScalarProgram(*program, arguments));
    if (result != nullptr) return *result;
  }
  if (static_cast<int64_t>(arguments.size()) != computation.parameter_count()) {
    return InvalidArgument("computation %" + computation.name() + " takes " +
                           std::to_string(computation.parameter_count()) + " argument(s), got " +
                           std::to_string(arguments.size()));
  }
  if (computation.root() == nullptr) return InvalidArgument("computation %" + computation.name() + " has no root");
  EvalContext ctx(this);
  CoreEvaluator core(this, &ctx);
  const Plan& plan = PlanFor(computation);

  // Values by position; each is freed after its last user ran.
  std::vector<Value> values(plan.order.size());
  std::vector<int32_t> remaining_uses = plan.use_counts;
  std::vector<const Literal*> operand_ptrs;
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    const Instruction* inst = plan.order[pos];
    const std::vector<int32_t>& slots = plan.operand_slots[pos];
    RETURN_IF_ERROR(ctx.CheckCancelled());
    Value result;
    switch (inst->opcode()) {
      case Opcode::kParameter: {
        int64_t n = inst->parameter_number();
        if (n < 0 || n >= static_cast<int64_t>(arguments.size()) || arguments[n] == nullptr) {
          return ErrorAt(*inst, InvalidArgument("no argument for parameter " + std::to_string(n)));
        }
        // Arguments outlive the computation: alias them without copying.
        result = Value(Value(), arguments[n]);
        break;
      }
      case Opcode::kConstant: {
        if (inst->literal() == nullptr) {
          return ErrorAt(*inst, InvalidArgument(
                                    "the constant's values were elided in the file ({...}); run a dump "
                                    "written with --xla_dump_large_constants, or pass it as a parameter"));
        }
        result = Value(Value(), inst->literal());
        break;
      }
      case Opcode::kGetTupleElement: {
        const Value& tuple = values[slots[0]];
        int64_t index = inst->tuple_index();
        if (!tuple->shape().IsTuple() || index < 0 ||
            index >= static_cast<int64_t>(tuple->tuple_elements().size())) {
          return ErrorAt(*inst, InvalidArgument("tuple index " + std::to_string(index) + " out of range"));
        }
        // Shares the tuple's storage.
        result = Value(tuple, &tuple->tuple_elements()[index]);
        break;
      }
      case Opcode::kCopy: {
        // A copy is the same logical value (only its layout may change): share it. (A
        // bitcast reinterprets physical bytes, so layouts matter; it is evaluated in full.)
        const Value& operand = values[slots[0]];
        if (operand->shape().Compatible(inst->shape())) {
          result = operand;
          break;
        }
        [[fallthrough]];
      }
      default: {
        RETURN_IF_ERROR(CheckResultFits(*inst, options_.max_result_bytes));
        operand_ptrs.clear();
        for (int32_t slot : slots) operand_ptrs.push_back(values[slot].get());
        Operands ops(operand_ptrs.data(), operand_ptrs.size());
        ASSIGN_OR_RETURN(Literal out, EvaluateOp(core, *inst, ops, ctx));
        if (options_.on_result) options_.on_result(*inst, out);
        result = std::make_shared<const Literal>(std::move(out));
        break;
      }
    }
    ++stats_.instructions_evaluated;
    if (result->shape().IsArray()) stats_.elements_produced += result->element_count();
    if (options_.max_instructions > 0 && stats_.instructions_evaluated > options_.max_instructions) {
      return ErrorAt(*inst, Unavailable("work limit reached: evaluated more than " +
                                        std::to_string(options_.max_instructions) + " instructions"));
    }
    if (options_.max_elements > 0 && stats_.elements_produced > options_.max_elements) {
      return ErrorAt(*inst, Unavailable("work limit reached: produced more than " +
                                        std::to_string(options_.max_elements) + " elements"));
    }
    values[pos] = std::move(result);
    // Release operands nobody needs any more.
    for (int32_t slot : slots) {
      if (--remaining_uses[slot] == 0 && slot != plan.root_slot) values[slot].reset();
    }
  }
  const Value& root = values[plan.root_slot];
  if (!root) return Internal("root of %" + computation.name() + " was not evaluated");
  return *root;
}

}  // namespace fusebox::interpreter
