// Random parameter values: a counter-based splitmix64 stream per parameter, and a
// use-analysis that finds index-like parameters and the range that keeps them in bounds.
#include "compiler/interpreter/random_inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

namespace fusebox {

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

// Bounds for index-like leaves, by the leaf's tuple path within the literal.
using LeafBounds = std::map<std::vector<int64_t>, int64_t>;

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

void FillArray(Literal* literal, uint64_t seed, std::optional<int64_t> bound) {
  const PrimitiveType type = literal->shape().element_type();
  const int64_t count = literal->element_count();
  const int width = BitWidth(type);
  if (bound.has_value()) {
    const int64_t cap = BoundCap(type);
    if (cap == 0) {
      bound.reset();
    } else {
      bound = std::clamp<int64_t>(*bound, 1, cap);
    }
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

void FillLiteral(Literal* literal, uint64_t seed, const LeafBounds& bounds,
                 std::vector<int64_t>* path) {
  if (literal->shape().IsTuple()) {
    auto& elements = literal->tuple_elements();
    for (size_t k = 0; k < elements.size(); ++k) {
      path->push_back(static_cast<int64_t>(k));
      FillLiteral(&elements[k], ParameterSeed(seed, static_cast<int64_t>(k)), bounds, path);
      path->pop_back();
    }
    return;
  }
  if (!literal->shape().IsArray()) return;
  std::optional<int64_t> bound;
  if (auto it = bounds.find(*path); it != bounds.end()) bound = it->second;
  FillArray(literal, seed, bound);
}

// ---------------------------------------------------------------------------
// Finding index-like parameters

// "Instruction `inst`'s value at tuple path `inst_path` holds entry parameter's subtree at
// `param_path`" (possibly converted, reshaped, broadcast, ...).
struct Flow {
  const Instruction* inst;
  std::vector<int64_t> inst_path;
  std::vector<int64_t> param_path;
  bool operator<(const Flow& other) const {
    return std::tie(inst, inst_path, param_path) <
           std::tie(other.inst, other.inst_path, other.param_path);
  }
};

// Operand sizes minus window sizes plus one: how many start positions keep a window of
// `window` inside `dim`.
int64_t StartCount(int64_t dim, int64_t window) {
  if (dim < 0) return std::numeric_limits<int64_t>::max();  // unbounded: no limit known
  return dim - window + 1;
}

class IndexAnalysis {
 public:
  explicit IndexAnalysis(const Module& module) {
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation->instructions()) {
        for (const Computation* called : inst->called_computations()) {
          callers_[called].push_back(inst.get());
        }
      }
    }
  }

  // Bounds for the leaves of the entry parameter `parameter`.
  LeafBounds Run(const Instruction* parameter) {
    bounds_.clear();
    visited_.clear();
    Push({parameter, {}, {}});
    while (!work_.empty()) {
      Flow flow = std::move(work_.back());
      work_.pop_back();
      Visit(flow);
    }
    return bounds_;
  }

 private:
  void Push(Flow flow) {
    if (flow.inst == nullptr || !visited_.insert(flow).second) return;
    work_.push_back(std::move(flow));
  }

  void PushParameter(const Computation* computation, int64_t number, const Flow& flow) {
    if (computation == nullptr || number >= computation->parameter_count()) return;
    Push({computation->parameter(number), flow.inst_path, flow.param_path});
  }

  void AddBound(const Flow& flow, int64_t bound) {
    auto [it, inserted] = bounds_.emplace(flow.param_path, bound);
    if (!inserted) it->second = std::min(it->second, bound);
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
              Push({caller, flow.inst_path, flow.param_path});
              break;
            case Opcode::kWhile:
              if (caller->while_body() == computation) {
                Push({caller, flow.inst_path, flow.param_path});
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
    const bool whole_array = flow.inst_path.empty();
    switch (user->opcode()) {
      case Opcode::kGetTupleElement: {
        const int64_t index = user->tuple_index();
        if (flow.inst_path.empty()) {
          std::vector<int64_t> param_path = flow.param_path;
          param_path.push_back(index);
          Push({user, {}, std::move(param_path)});
        } else if (flow.inst_path[0] == index) {
          Push({user, {flow.inst_path.begin() + 1, flow.inst_path.end()}, flow.param_path});
        }
        break;
      }
      case Opcode::kTuple: {
        std::vector<int64_t> inst_path = {k};
        inst_path.insert(inst_path.end(), flow.inst_path.begin(), flow.inst_path.end());
        Push({user, std::move(inst_path), flow.param_path});
        break;
      }
      case Opcode::kConvert:
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kCopy:
      case Opcode::kBroadcast:
      case Opcode::kTranspose:
      case Opcode::kReverse:
      case Opcode::kSlice:
      case Opcode::kConcatenate:
        if (whole_array) Push({user, {}, flow.param_path});
        break;
      case Opcode::kFusion:
      case Opcode::kCall:
      case Opcode::kAsyncStart:
        if (!user->called_computations().empty()) {
          PushParameter(user->called_computation(0), k, flow);
        }
        break;
      case Opcode::kWhile:
        PushParameter(user->while_body(), 0, flow);
        PushParameter(user->while_condition(), 0, flow);
        break;
      case Opcode::kConditional:
        if (k == 0) {
          if (whole_array && IsInteger(user->operand(0)->shape().element_type())) {
            AddBound(flow, static_cast<int64_t>(user->called_computations().size()));
          }
        } else if (k - 1 < static_cast<int64_t>(user->called_computations().size())) {
          PushParameter(user->called_computation(k - 1), 0, flow);
        }
        break;
      case Opcode::kGather:
        if (k == 1 && whole_array) GatherBound(flow, user);
        break;
      case Opcode::kScatter:
        if (k == (user->operand_count() - 1) / 2 && whole_array) ScatterBound(flow, user);
        break;
      case Opcode::kDynamicSlice:
        if (k >= 1 && whole_array) {
          StartBound(flow, user, k - 1, user->operand(0)->shape(), user->shape());
        }
        break;
      case Opcode::kDynamicUpdateSlice:
        if (k >= 2 && whole_array) {
          StartBound(flow, user, k - 2, user->operand(0)->shape(), user->operand(1)->shape());
        }
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
    if (bound != std::numeric_limits<int64_t>::max()) AddBound(flow, bound);
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
    if (bound != std::numeric_limits<int64_t>::max()) AddBound(flow, bound);
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
    if (bound != std::numeric_limits<int64_t>::max()) AddBound(flow, bound);
  }

  std::unordered_map<const Computation*, std::vector<const Instruction*>> callers_;
  std::set<Flow> visited_;
  std::vector<Flow> work_;
  LeafBounds bounds_;
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

StatusOr<std::vector<Literal>> RandomArguments(const Module& module, uint64_t seed) {
  const Computation* entry = module.entry();
  if (entry == nullptr) {
    return InvalidArgument("module '" + module.name() + "' has no entry computation");
  }
  IndexAnalysis analysis(module);
  std::vector<Literal> arguments;
  arguments.reserve(entry->parameter_count());
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    const Instruction* parameter = entry->parameter(p);
    if (parameter == nullptr) {
      return InvalidArgument("entry computation '" + entry->name() + "' has no parameter " +
                             std::to_string(p));
    }
    const LeafBounds bounds = analysis.Run(parameter);
    Literal literal(parameter->shape());
    std::vector<int64_t> path;
    FillLiteral(&literal, ParameterSeed(seed, p), bounds, &path);
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

}  // namespace fusebox
