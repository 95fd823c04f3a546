// Random parameter values: a counter-based splitmix64 stream per parameter, and a
// use-analysis that finds index-like parameters (and the range that keeps them in bounds)
// and parameters that must stay positive, with the reason for each choice.
#include "compiler/interpreter/random_inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "compiler/ir/fused_attention.h"
#include "compiler/ir/library_calls.h"

namespace fusebox::interpreter {

namespace {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15;

// splitmix64's output function (Steele, Lea, Flood 2014).
uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31);
}

// Output `i` of splitmix64 started at state `seed`: random access, so each element's value
// depends on its position only.
uint64_t StreamAt(uint64_t seed, uint64_t i) { return Mix64(seed + (i + 1) * kGolden); }

// Uniform in [-1, 1), exactly representable in double.
double UnitSigned(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-52 - 1.0; }

// What the uses of one array leaf ask of its values.
struct LeafNeed {
  std::optional<int64_t> bound;  // index-like: integers in [0, bound)
  std::string bound_reason;      // why (for the smallest bound)
  bool positive = false;         // reaches a sqrt, a log, a divisor, ...
  std::string positive_reason;   // why (the first such use found)
  bool positive_definite = false;         // reaches a Cholesky factorization
  std::string positive_definite_reason;   // why
};

// Needs of the leaves of one parameter, by the leaf's tuple path within the literal.
using LeafNeeds = std::map<std::vector<int64_t>, LeafNeed>;

// The largest usable bound for integers stored in `type`: every integer in [0, bound)
// must be representable. 0 means "do not bound" (pred, complex, f8e8m0fnu which has no 0).
int64_t BoundCap(PrimitiveType type) {
  if (IsSignedInt(type)) {
    return BitWidth(type) >= 64 ? std::numeric_limits<int64_t>::max()
                                : int64_t{1} << (BitWidth(type) - 1);
  }
  if (IsUnsignedInt(type)) {
    return BitWidth(type) >= 63 ? std::numeric_limits<int64_t>::max()
                                : int64_t{1} << BitWidth(type);
  }
  if (IsFloat(type) && type != PrimitiveType::kF8E8M0FNU) {
    // Integers up to 2^(mantissa + 1) are exact, unless the type's range ends sooner.
    int64_t cap = int64_t{1} << std::min(MantissaBits(type) + 1, 62);
    while (cap > 1) {
      const double top = static_cast<double>(cap - 1);
      if (FloatBitsToDouble(type, DoubleToFloatBits(type, top)) == top) break;
      cap /= 2;
    }
    return cap;
  }
  return 0;
}

// One past the largest positive integer an integer leaf that must be positive gets: 8, or
// less where the type cannot hold 7. 1 means "none" (s1 holds no positive value).
int64_t PositiveIntEnd(PrimitiveType type) {
  const int width = BitWidth(type);
  const int64_t largest = IsSignedInt(type) ? (width >= 5 ? 7 : (int64_t{1} << (width - 1)) - 1)
                                            : (width >= 4 ? 7 : (int64_t{1} << width) - 1);
  return std::min<int64_t>(8, largest + 1);
}

// The values one array leaf gets.
struct Distribution {
  enum class Kind { kDefault, kIndex, kPositive, kPositiveDefinite };
  Kind kind = Kind::kDefault;
  int64_t bound = 0;  // kIndex: integers in [0, bound)
};

// Whether `shape` is real float matrices: [..., n, n].
bool IsSquareFloatMatrices(const Shape& shape) {
  return shape.IsArray() && shape.rank() >= 2 && IsFloat(shape.element_type()) &&
         shape.element_type() != PrimitiveType::kF8E8M0FNU &&
         shape.dimensions(shape.rank() - 1) == shape.dimensions(shape.rank() - 2);
}

// Picks the distribution of a leaf of `shape` with `need` (null: no uses that ask
// anything) and, when `reason` is given, says why.
Distribution Choose(const Shape& shape, const LeafNeed* need, std::string* reason) {
  const PrimitiveType type = shape.element_type();
  Distribution distribution;
  std::string why = "default";
  if (need != nullptr && need->positive_definite && !need->bound.has_value() && IsSquareFloatMatrices(shape)) {
    distribution.kind = Distribution::Kind::kPositiveDefinite;
    if (reason != nullptr) *reason = need->positive_definite_reason;
    return distribution;
  }
  if (need != nullptr && need->bound.has_value()) {
    const int64_t cap = BoundCap(type);
    if (cap != 0) {
      distribution.kind = Distribution::Kind::kIndex;
      distribution.bound = std::clamp<int64_t>(*need->bound, 1, cap);
      why = need->bound_reason;
      if (need->positive) why += "; it also " + need->positive_reason + " (the index range wins)";
      if (reason != nullptr) *reason = why;
      return distribution;
    }
    why = "default (" + need->bound_reason + ", but " + std::string(PrimitiveTypeName(type)) +
          " cannot hold indices)";
  }
  if (need != nullptr && need->positive) {
    if (IsFloat(type) && type != PrimitiveType::kF8E8M0FNU) {
      distribution.kind = Distribution::Kind::kPositive;
      why = need->positive_reason;
    } else if (type == PrimitiveType::kF8E8M0FNU) {
      why = "default, positive already: " + need->positive_reason;
    } else if (IsInteger(type) && PositiveIntEnd(type) > 1) {
      distribution.kind = Distribution::Kind::kPositive;
      why = need->positive_reason;
    } else if (IsComplex(type)) {
      // sqrt, log and division of complex values are finite off zero.
      why = "default (" + need->positive_reason + "; complex values need not be positive)";
    } else {
      why = "default (" + need->positive_reason + ", but " + std::string(PrimitiveTypeName(type)) +
            " has no positive values to draw)";
    }
  }
  if (reason != nullptr) *reason = why;
  return distribution;
}

// The distribution in words: "uniform [-1, 1)", "integers in [0, 7)", ...
std::string Describe(PrimitiveType type, const Distribution& distribution) {
  const int width = BitWidth(type);
  switch (distribution.kind) {
    case Distribution::Kind::kIndex:
      return "integers in [0, " + std::to_string(distribution.bound) + ")";
    case Distribution::Kind::kPositive:
      if (IsInteger(type)) return "integers in [1, " + std::to_string(PositiveIntEnd(type)) + ")";
      return "uniform [0.5, 1.5)";
    case Distribution::Kind::kPositiveDefinite:
      return "symmetric positive definite matrices m·mᵀ/n + I, m uniform [-1, 1)";
    case Distribution::Kind::kDefault:
      break;
  }
  if (IsComplex(type)) return "real and imaginary parts uniform [-1, 1)";
  if (type == PrimitiveType::kF8E8M0FNU) return "powers of two 2^k, k in [-4, 4]";
  if (IsFloat(type)) return "uniform [-1, 1)";
  if (IsPred(type)) return "true or false (fair coin)";
  if (IsSignedInt(type)) {
    const int64_t half = width >= 5 ? 8 : int64_t{1} << (width - 1);
    return "integers in [" + std::to_string(-half) + ", " + std::to_string(half) + ")";
  }
  if (IsUnsignedInt(type)) {
    const int64_t range = width >= 4 ? 16 : int64_t{1} << width;
    return "integers in [0, " + std::to_string(range) + ")";
  }
  return "none";
}

// Each [n, n] matrix m·mᵀ/n + I from m uniform in [-1, 1): symmetric, its eigenvalues
// at least 1, so that a Cholesky factorization of it exists and is well conditioned.
void FillPositiveDefinite(Literal* literal, uint64_t seed) {
  const int64_t n = literal->shape().dimensions(literal->shape().rank() - 1);
  const int64_t matrices = n == 0 ? 0 : literal->element_count() / (n * n);
  std::vector<double> m(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < matrices; ++b) {
    const int64_t base = b * n * n;
    for (int64_t i = 0; i < n * n; ++i) m[i] = UnitSigned(StreamAt(seed, static_cast<uint64_t>(base + i)));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        double s = 0;
        for (int64_t k = 0; k < n; ++k) s += m[i * n + k] * m[j * n + k];
        s = s / static_cast<double>(n) + (i == j ? 1.0 : 0.0);
        literal->SetDouble(base + i * n + j, s);
        literal->SetDouble(base + j * n + i, s);
      }
    }
  }
}

void FillArray(Literal* literal, uint64_t seed, const Distribution& distribution) {
  if (distribution.kind == Distribution::Kind::kPositiveDefinite) {
    FillPositiveDefinite(literal, seed);
    return;
  }
  const PrimitiveType type = literal->shape().element_type();
  const int64_t count = literal->element_count();
  const int width = BitWidth(type);
  std::optional<int64_t> bound;
  if (distribution.kind == Distribution::Kind::kIndex) bound = distribution.bound;
  const bool positive = distribution.kind == Distribution::Kind::kPositive;
  const uint64_t positive_ints = positive && IsInteger(type) ? PositiveIntEnd(type) - 1 : 1;
  // f32 and f64 without an index bound: the same values as the loop below gives, written
  // straight into the buffer (the running example's two 2^28-element inputs took 8 s a run
  // through SetDouble's type dispatch).
  if (!bound.has_value() && (type == PrimitiveType::kF32 || type == PrimitiveType::kF64)) {
    auto value = [&](int64_t i) {
      const double unit = UnitSigned(StreamAt(seed, static_cast<uint64_t>(i)));
      return positive ? 1.0 + 0.5 * unit : unit;
    };
    uint8_t* data = literal->untyped_data();
    if (type == PrimitiveType::kF32) {
      for (int64_t i = 0; i < count; ++i) {
        const float v = static_cast<float>(value(i));
        std::memcpy(data + i * 4, &v, 4);
      }
    } else {
      for (int64_t i = 0; i < count; ++i) {
        const double v = value(i);
        std::memcpy(data + i * 8, &v, 8);
      }
    }
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t index = static_cast<uint64_t>(i);
    if (IsComplex(type)) {
      literal->SetComplex(
          i, {UnitSigned(StreamAt(seed, 2 * index)), UnitSigned(StreamAt(seed, 2 * index + 1))});
      continue;
    }
    const uint64_t bits = StreamAt(seed, index);
    if (bound.has_value()) {
      const int64_t value = static_cast<int64_t>(bits % static_cast<uint64_t>(*bound));
      if (IsFloat(type)) {
        literal->SetDouble(i, static_cast<double>(value));
      } else {
        literal->SetInt64(i, value);
      }
    } else if (positive && IsFloat(type)) {
      literal->SetDouble(i, 1.0 + 0.5 * UnitSigned(bits));
    } else if (positive) {
      literal->SetInt64(i, 1 + static_cast<int64_t>(bits % positive_ints));
    } else if (IsPred(type)) {
      literal->SetBool(i, (bits >> 63) != 0);
    } else if (IsSignedInt(type)) {
      const int64_t half = width >= 5 ? 8 : int64_t{1} << (width - 1);
      literal->SetInt64(i, static_cast<int64_t>(bits % static_cast<uint64_t>(2 * half)) - half);
    } else if (IsUnsignedInt(type)) {
      const uint64_t range = width >= 4 ? 16 : uint64_t{1} << width;
      literal->SetUint64(i, bits % range);
    } else if (type == PrimitiveType::kF8E8M0FNU) {
      literal->SetDouble(i, std::ldexp(1.0, static_cast<int>(bits % 9) - 4));
    } else if (IsFloat(type)) {
      literal->SetDouble(i, UnitSigned(bits));
    }
  }
}

void FillLiteral(Literal* literal, uint64_t seed, const LeafNeeds& needs,
                 std::vector<int64_t>* path) {
  if (literal->shape().IsTuple()) {
    auto& elements = literal->tuple_elements();
    for (size_t k = 0; k < elements.size(); ++k) {
      path->push_back(static_cast<int64_t>(k));
      FillLiteral(&elements[k], ParameterSeed(seed, static_cast<int64_t>(k)), needs, path);
      path->pop_back();
    }
    return;
  }
  if (!literal->shape().IsArray()) return;
  const auto it = needs.find(*path);
  FillArray(
      literal, seed,
      Choose(literal->shape(), it == needs.end() ? nullptr : &it->second, nullptr));
}

// ---------------------------------------------------------------------------
// Finding what each parameter's uses ask of it

// What a flow looks for: index-like uses, reached through ops that keep integer values
// (converts, reshapes, ...), or uses that need positive values, reached also through ops
// that keep positive values positive (add, multiply, ...).
enum class Want { kIndex, kPositive };

// "Instruction `inst`'s value at tuple path `inst_path` holds entry parameter's subtree at
// `param_path`" (possibly converted, reshaped, broadcast, ... or, for kPositive, added to
// or multiplied by something).
struct Flow {
  const Instruction* inst;
  std::vector<int64_t> inst_path;
  std::vector<int64_t> param_path;
  Want want = Want::kIndex;
  bool operator<(const Flow& other) const {
    return std::tie(inst, inst_path, param_path, want) <
           std::tie(other.inst, other.inst_path, other.param_path, other.want);
  }
};

// "rsqrt (%rsqrt.12)"; a called computation's parameter reads "parameter 0 (%p in %fused)".
std::string Describe(const Instruction* inst) {
  std::string text = std::string(OpcodeName(inst->opcode()));
  if (inst->opcode() == Opcode::kParameter) text += " " + std::to_string(inst->parameter_number());
  text += " (%" + inst->name();
  if (inst->opcode() == Opcode::kParameter && inst->parent() != nullptr) {
    text += " in %" + inst->parent()->name();
  }
  return text + ")";
}

// Operand sizes minus window sizes plus one: how many start positions keep a window of
// `window` inside `dim`.
int64_t StartCount(int64_t dim, int64_t window) {
  if (dim < 0) return std::numeric_limits<int64_t>::max();  // unbounded: no limit known
  return dim - window + 1;
}

class UseAnalysis {
 public:
  explicit UseAnalysis(const Module& module) {
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation->instructions()) {
        for (const Computation* called : inst->called_computations()) {
          callers_[called].push_back(inst.get());
        }
      }
    }
  }

  // What the uses of the entry parameter `parameter` ask of its leaves. The walk is
  // breadth-first, so the reasons name the shortest paths.
  LeafNeeds Run(const Instruction* parameter) {
    needs_.clear();
    visited_.clear();
    parents_.clear();
    root_ = parameter;
    Push({parameter, {}, {}, Want::kIndex}, nullptr);
    Push({parameter, {}, {}, Want::kPositive}, nullptr);
    while (!work_.empty()) {
      Flow flow = std::move(work_.front());
      work_.pop_front();
      Visit(flow);
    }
    return needs_;
  }

 private:
  // `from` is the flow this one was reached from (null for the parameter itself).
  void Push(Flow flow, const Flow* from) {
    if (flow.inst == nullptr || !visited_.insert(flow).second) return;
    if (from != nullptr) parents_.emplace(flow, *from);
    work_.push_back(std::move(flow));
  }

  // `flow` moved on to `inst`'s value at `inst_path`.
  void PushNext(const Flow& flow, const Instruction* inst, std::vector<int64_t> inst_path) {
    Push({inst, std::move(inst_path), flow.param_path, flow.want}, &flow);
  }

  void PushParameter(const Computation* computation, int64_t number, const Flow& flow) {
    if (computation == nullptr || number >= computation->parameter_count()) return;
    PushNext(flow, computation->parameter(number), flow.inst_path);
  }

  // " through add (%add.11), ..." : the instructions between the entry parameter and
  // `flow`'s instruction (included); empty when the parameter is used directly.
  std::string Through(const Flow& flow) const {
    std::vector<const Instruction*> chain;
    const Flow* at = &flow;
    while (at != nullptr && at->inst != root_) {
      chain.push_back(at->inst);
      const auto it = parents_.find(*at);
      at = it == parents_.end() ? nullptr : &it->second;
    }
    if (chain.empty()) return "";
    std::reverse(chain.begin(), chain.end());
    constexpr size_t kShown = 5;
    std::string text = " through ";
    for (size_t i = 0; i < chain.size(); ++i) {
      if (chain.size() > kShown && i >= 2 && i + 2 < chain.size()) {
        if (i == 2) text += ", ... " + std::to_string(chain.size() - 4) + " more";
        continue;
      }
      if (i > 0) text += ", ";
      text += Describe(chain[i]);
    }
    return text;
  }

  void AddBound(const Flow& flow, int64_t bound, const std::string& what) {
    LeafNeed& need = needs_[flow.param_path];
    if (need.bound.has_value() && *need.bound <= bound) return;
    need.bound = bound;
    need.bound_reason = what + Through(flow);
  }

  // `flow`'s value reaches `user`, a Cholesky factorization.
  void AddPositiveDefinite(const Flow& flow, const Instruction* user) {
    LeafNeed& need = needs_[flow.param_path];
    if (need.positive_definite) return;
    need.positive_definite = true;
    need.positive_definite_reason = "reaches " + Describe(user) + ", a Cholesky factorization" + Through(flow);
  }

  // `flow`'s value is operand `k` of `user`, which wants it positive.
  void AddPositive(const Flow& flow, const Instruction* user, const std::string& role) {
    LeafNeed& need = needs_[flow.param_path];
    if (need.positive) return;
    need.positive = true;
    need.positive_reason = "reaches " + Describe(user) + role + Through(flow);
  }

  void Visit(const Flow& flow) {
    const Instruction* inst = flow.inst;
    // Out of a called computation through its root.
    const Computation* computation = inst->parent();
    if (computation != nullptr && computation->root() == inst) {
      auto it = callers_.find(computation);
      if (it != callers_.end()) {
        for (const Instruction* caller : it->second) {
          switch (caller->opcode()) {
            case Opcode::kFusion:
            case Opcode::kCall:
            case Opcode::kConditional:
              PushNext(flow, caller, flow.inst_path);
              break;
            case Opcode::kWhile:
              if (caller->while_body() == computation) {
                PushNext(flow, caller, flow.inst_path);
                PushParameter(caller->while_body(), 0, flow);
                PushParameter(caller->while_condition(), 0, flow);
              }
              break;
            default:
              break;
          }
        }
      }
    }
    for (const Instruction* user : inst->users()) {
      for (int64_t k = 0; k < user->operand_count(); ++k) {
        if (user->operand(k) == inst) VisitUse(flow, user, k);
      }
    }
  }

  void VisitUse(const Flow& flow, const Instruction* user, int64_t k) {
    switch (user->opcode()) {
      case Opcode::kGetTupleElement: {
        const int64_t index = user->tuple_index();
        if (flow.inst_path.empty()) {
          std::vector<int64_t> param_path = flow.param_path;
          param_path.push_back(index);
          Push({user, {}, std::move(param_path), flow.want}, &flow);
        } else if (flow.inst_path[0] == index) {
          PushNext(flow, user, {flow.inst_path.begin() + 1, flow.inst_path.end()});
        }
        return;
      }
      case Opcode::kTuple: {
        std::vector<int64_t> inst_path = {k};
        inst_path.insert(inst_path.end(), flow.inst_path.begin(), flow.inst_path.end());
        PushNext(flow, user, std::move(inst_path));
        return;
      }
      case Opcode::kFusion:
      case Opcode::kCall:
      case Opcode::kAsyncStart:
        if (!user->called_computations().empty()) {
          PushParameter(user->called_computation(0), k, flow);
        }
        return;
      case Opcode::kWhile:
        PushParameter(user->while_body(), 0, flow);
        PushParameter(user->while_condition(), 0, flow);
        return;
      case Opcode::kConditional:
        if (k == 0) {
          if (flow.want == Want::kIndex && flow.inst_path.empty() &&
              IsInteger(user->operand(0)->shape().element_type())) {
            AddBound(flow, static_cast<int64_t>(user->called_computations().size()),
                     "branch index of %" + user->name());
          }
        } else if (k - 1 < static_cast<int64_t>(user->called_computations().size())) {
          PushParameter(user->called_computation(k - 1), 0, flow);
        }
        return;
      default:
        break;
    }
    if (!flow.inst_path.empty()) return;  // the rest takes arrays
    if (flow.want == Want::kIndex) {
      IndexUse(flow, user, k);
    } else {
      PositiveUse(flow, user, k);
    }
  }

  void IndexUse(const Flow& flow, const Instruction* user, int64_t k) {
    switch (user->opcode()) {
      case Opcode::kConvert:
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kCopy:
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kReverse:
      case Opcode::kSlice:
      case Opcode::kConcatenate:
        PushNext(flow, user, {});
        break;
      case Opcode::kGather:
        if (k == 1) GatherBound(flow, user);
        break;
      case Opcode::kScatter:
        if (k == (user->operand_count() - 1) / 2) ScatterBound(flow, user);
        break;
      case Opcode::kDynamicSlice:
        if (k >= 1) StartBound(flow, user, k - 1, user->operand(0)->shape(), user->shape());
        break;
      case Opcode::kDynamicUpdateSlice:
        if (k >= 2) {
          StartBound(flow, user, k - 2, user->operand(0)->shape(), user->operand(1)->shape());
        }
        break;
      case Opcode::kCustomCall:
        // cuDNN's fused attention: a sequence length within the sequence (a length of 0
        // leaves the batch's rows no key to see).
        if (IsFusedAttentionTarget(user->attrs().custom_call_target)) {
          StatusOr<FusedAttention> attention = ParseFusedAttention(*user);
          if (attention.ok() && k >= 0 && (k == attention->q_seqlen || k == attention->kv_seqlen)) {
            const bool query = k == attention->q_seqlen;
            AddBound(flow, (query ? attention->q_length : attention->kv_length) + 1,
                     std::string(query ? "query" : "key") + " sequence lengths of %" + user->name());
          }
        }
        break;
      case Opcode::kShiftLeft:
      case Opcode::kShiftRightArithmetic:
      case Opcode::kShiftRightLogical:
        // A shift by the bit width or more is defined in HLO but not in LLVM (poison), and
        // a negative amount is a huge unsigned one: keep amounts where every backend agrees.
        if (k == 1 && user->shape().IsArray() && IsInteger(user->shape().element_type())) {
          AddBound(flow, BitWidth(user->shape().element_type()),
                   "shift amount of %" + user->name());
        }
        break;
      default:
        break;
    }
  }

  void PositiveUse(const Flow& flow, const Instruction* user, int64_t k) {
    switch (user->opcode()) {
      // Uses that want a positive operand.
      case Opcode::kSqrt:
      case Opcode::kRsqrt:
      case Opcode::kLog:
      case Opcode::kLog1p:
        AddPositive(flow, user, "");
        break;
      case Opcode::kPower:
        if (k == 0) AddPositive(flow, user, " as its base");
        break;
      case Opcode::kDivide:
        if (k == 1) {
          AddPositive(flow, user, " as its divisor");
        } else {
          PushNext(flow, user, {});
        }
        break;
      case Opcode::kRemainder:
        if (k == 1) AddPositive(flow, user, " as its divisor");
        break;
      case Opcode::kBatchNormInference:
        if (k == 4) AddPositive(flow, user, " as its variance");
        break;
      case Opcode::kBatchNormGrad:
        if (k == 3) AddPositive(flow, user, " as its variance");
        break;
      // A Cholesky factorization wants positive definite matrices (jax symmetrizes its
      // operand first: (a + aᵀ) / 2, which the adds, transposes and divisions below
      // follow).
      case Opcode::kCholesky:
        AddPositiveDefinite(flow, user);
        break;
      case Opcode::kCustomCall:
        if (k == 0 && LibraryCallKindOf(user->attrs().custom_call_target) == LibraryCallKind::kCholesky) {
          AddPositiveDefinite(flow, user);
        }
        break;
      // Ops whose result is positive when these operands are.
      case Opcode::kConvert:
        // Not float -> integer: [0.5, 1) would truncate to 0.
        if (!(IsFloat(user->operand(0)->shape().element_type()) &&
              IsInteger(user->shape().element_type()))) {
          PushNext(flow, user, {});
        }
        break;
      case Opcode::kAdd:
      case Opcode::kMultiply:
      case Opcode::kMaximum:
      case Opcode::kMinimum:
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kCopy:
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kReverse:
      case Opcode::kSlice:
      case Opcode::kConcatenate:
        PushNext(flow, user, {});
        break;
      case Opcode::kPad:
      case Opcode::kDynamicSlice:
        if (k == 0) PushNext(flow, user, {});
        break;
      case Opcode::kSelect:
        if (k >= 1) PushNext(flow, user, {});
        break;
      case Opcode::kDynamicUpdateSlice:
        if (k <= 1) PushNext(flow, user, {});
        break;
      default:
        break;
    }
  }

  void GatherBound(const Flow& flow, const Instruction* gather) {
    if (!gather->has_attributes() || !gather->attrs().gather_dimension_numbers) return;
    const Shape& operand = gather->operand(0)->shape();
    const auto& slice_sizes = gather->attrs().gather_slice_sizes;
    int64_t bound = std::numeric_limits<int64_t>::max();
    for (int64_t d : gather->attrs().gather_dimension_numbers->start_index_map) {
      if (d < 0 || d >= operand.rank()) continue;
      const int64_t window = d < static_cast<int64_t>(slice_sizes.size()) ? slice_sizes[d] : 1;
      bound = std::min(bound, StartCount(operand.dimensions(d), window));
    }
    if (bound != std::numeric_limits<int64_t>::max()) {
      AddBound(flow, bound, "gather indices of %" + gather->name());
    }
  }

  void ScatterBound(const Flow& flow, const Instruction* scatter) {
    if (!scatter->has_attributes() || !scatter->attrs().scatter_dimension_numbers) return;
    const ScatterDimensionNumbers& dnums = *scatter->attrs().scatter_dimension_numbers;
    const int64_t operands = (scatter->operand_count() - 1) / 2;
    const Shape& operand = scatter->operand(0)->shape();
    const Shape& updates = scatter->operand(operands + 1)->shape();
    // The update window's size along each operand dimension.
    std::vector<int64_t> window(operand.rank(), 1);
    size_t next_window_dim = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      const auto contains = [d](const std::vector<int64_t>& dims) {
        return std::find(dims.begin(), dims.end(), d) != dims.end();
      };
      if (contains(dnums.inserted_window_dims) || contains(dnums.input_batching_dims)) continue;
      if (next_window_dim < dnums.update_window_dims.size()) {
        const int64_t update_dim = dnums.update_window_dims[next_window_dim++];
        if (update_dim >= 0 && update_dim < updates.rank()) {
          window[d] = updates.dimensions(update_dim);
        }
      }
    }
    int64_t bound = std::numeric_limits<int64_t>::max();
    for (int64_t d : dnums.scatter_dims_to_operand_dims) {
      if (d < 0 || d >= operand.rank()) continue;
      bound = std::min(bound, StartCount(operand.dimensions(d), window[d]));
    }
    if (bound != std::numeric_limits<int64_t>::max()) {
      AddBound(flow, bound, "scatter indices of %" + scatter->name());
    }
  }

  // Start operand `start` of a dynamic-slice / dynamic-update-slice over `operand` with a
  // window of `window`'s dimensions. With one start scalar per dimension it bounds that
  // dimension; the old form (one rank-1 start vector) takes the smallest over all.
  void StartBound(const Flow& flow, const Instruction* user, int64_t start, const Shape& operand,
                  const Shape& window) {
    if (!operand.IsArray() || !window.IsArray() || window.rank() != operand.rank()) return;
    const int64_t first_start = user->opcode() == Opcode::kDynamicSlice ? 1 : 2;
    const bool scalar_form = user->operand_count() - first_start == operand.rank();
    int64_t bound = std::numeric_limits<int64_t>::max();
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (scalar_form && d != start) continue;
      bound = std::min(bound, StartCount(operand.dimensions(d), window.dimensions(d)));
    }
    if (bound != std::numeric_limits<int64_t>::max()) {
      AddBound(flow, bound, std::string(OpcodeName(user->opcode())) + " start of %" + user->name());
    }
  }

  std::unordered_map<const Computation*, std::vector<const Instruction*>> callers_;
  std::set<Flow> visited_;
  std::map<Flow, Flow> parents_;  // how each flow was reached
  std::deque<Flow> work_;
  const Instruction* root_ = nullptr;
  LeafNeeds needs_;
};

}  // namespace

uint64_t ParameterSeed(uint64_t seed, int64_t parameter_number) {
  return Mix64(seed ^ Mix64(static_cast<uint64_t>(parameter_number) ^ 0x6A09E667F3BCC909));
}

Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  Literal literal(shape);
  std::vector<int64_t> path;
  FillLiteral(&literal, seed, {}, &path);
  return literal;
}

namespace {

// The entry computation and its parameters, or why there are none to fill.
StatusOr<const Computation*> EntryWithParameters(const Module& module) {
  const Computation* entry = module.entry();
  if (entry == nullptr) {
    return InvalidArgument("module '" + module.name() + "' has no entry computation");
  }
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    if (entry->parameter(p) == nullptr) {
      return InvalidArgument("entry computation '" + entry->name() + "' has no parameter " +
                             std::to_string(p));
    }
  }
  return entry;
}

void ExplainLeaves(const Shape& shape, const Instruction* parameter, const LeafNeeds& needs,
                   std::vector<int64_t>* path, std::vector<InputChoice>* choices) {
  if (shape.IsTuple()) {
    for (int64_t k = 0; k < static_cast<int64_t>(shape.tuple_shapes().size()); ++k) {
      path->push_back(k);
      ExplainLeaves(shape.tuple_shapes()[k], parameter, needs, path, choices);
      path->pop_back();
    }
    return;
  }
  if (!shape.IsArray()) return;
  const auto it = needs.find(*path);
  InputChoice choice;
  choice.parameter_number = parameter->parameter_number();
  choice.parameter_name = parameter->name();
  choice.leaf_path = *path;
  choice.shape = shape;
  const Distribution distribution =
      Choose(shape, it == needs.end() ? nullptr : &it->second, &choice.reason);
  choice.distribution = Describe(shape.element_type(), distribution);
  choices->push_back(std::move(choice));
}

}  // namespace

StatusOr<std::vector<Literal>> RandomArguments(const Module& module, uint64_t seed) {
  ASSIGN_OR_RETURN(const Computation* entry, EntryWithParameters(module));
  UseAnalysis analysis(module);
  std::vector<Literal> arguments;
  arguments.reserve(entry->parameter_count());
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    const Instruction* parameter = entry->parameter(p);
    const LeafNeeds needs = analysis.Run(parameter);
    Literal literal(parameter->shape());
    std::vector<int64_t> path;
    FillLiteral(&literal, ParameterSeed(seed, p), needs, &path);
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

StatusOr<std::vector<InputChoice>> ExplainRandomArguments(const Module& module) {
  ASSIGN_OR_RETURN(const Computation* entry, EntryWithParameters(module));
  UseAnalysis analysis(module);
  std::vector<InputChoice> choices;
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    const Instruction* parameter = entry->parameter(p);
    std::vector<int64_t> path;
    ExplainLeaves(parameter->shape(), parameter, analysis.Run(parameter), &path, &choices);
  }
  return choices;
}

std::string InputChoice::ToString() const {
  std::string text = "parameter " + std::to_string(parameter_number) + " (%" + parameter_name;
  if (!leaf_path.empty()) {
    text += "{";
    for (size_t i = 0; i < leaf_path.size(); ++i) {
      text += (i > 0 ? "," : "") + std::to_string(leaf_path[i]);
    }
    text += "}";
  }
  return text + ", " + shape.ToString(false) + "): " + distribution + ": " + reason;
}

}  // namespace fusebox::interpreter
