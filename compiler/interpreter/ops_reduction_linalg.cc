// Reference evaluation of the reduction and linear-algebra ops: reduce, reduce-window,
// select-and-scatter, map, dot, convolution, triangular-solve, cholesky, fft and the
// batch-norm ops, with XLA's semantics and a fixed, documented accumulation order.
//
// Sections:
//   1. Shared helpers: element copies, rounding, scalar computations, windows
//   2. reduce
//   3. reduce-window
//   4. select-and-scatter
//   5. map
//   6. Accumulators shared by dot and convolution
//   7. dot
//   8. convolution
//   9. triangular-solve, cholesky
//  10. fft
//  11. batch-norm-training, batch-norm-inference, batch-norm-grad
//  12. Dispatch
//
// Precision and order — the contract the compiled backends are compared against:
// - reduce folds each output's elements in row-major order of the reduced dimensions,
//   starting from the init value, calling to_apply(accumulators..., elements...) as
//   XLA's HloEvaluator does. When to_apply is a bare add/multiply/maximum/minimum/and/
//   or/xor of its two parameters the per-element call is skipped: a real-float add is
//   summed in double and rounded to the element type once at the end (XLA's evaluator
//   does exactly this for every float type, f32 included); a multiply rounds to the
//   element type after every step (what calling the computation would do); maximum and
//   minimum propagate NaN; integers wrap.
// - reduce-window and select-and-scatter fold per window in row-major window order and
//   round to the element type after every step. Padding and base-dilation holes are
//   skipped (the fold starts from init; select never picks them).
// - dot and convolution first convert both operands to the result element type, then
//   accumulate in float for f32 and narrower floats, double for f64, complex<float> /
//   complex<double> for c64 / c128 and 64-bit wrapping integers for integer results,
//   rounding once to the result type. A dot sums in ascending contraction index
//   (row-major over the contracting dimensions, in the order the dimension numbers list
//   them); a convolution walks kernel spatial positions in row-major order with the
//   input features innermost, as XLA's evaluator does. operand_precision and algorithm
//   are ignored: the reference always computes at the result type's full precision.
// - triangular-solve, cholesky, fft and batch-norm compute in double (complex<double>)
//   and round once to the result type.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/ops.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"

namespace fusebox {
namespace {

using Complex = std::complex<double>;

// ===========================================================================
// 1. Shared helpers
// ===========================================================================

std::string Str(int64_t v) { return std::to_string(v); }

std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + Str(dims[i]);
  return out + "]";
}

Status Invalid(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode())) + ": " + message);
}

Status CheckOperandCount(const Instruction& inst, Operands operands, size_t want) {
  if (operands.size() != want) {
    return Invalid(inst, "expects " + Str(static_cast<int64_t>(want)) + " operand(s), got " +
                             Str(static_cast<int64_t>(operands.size())));
  }
  for (const Literal* op : operands) {
    if (op == nullptr || !op->shape().IsArray()) return Invalid(inst, "operands must be arrays");
  }
  return Status::Ok();
}

Status CheckArrayResult(const Instruction& inst, const std::vector<int64_t>& dims) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.dimensions() != dims) {
    return Invalid(inst, "result shape " + shape.ToString(false) +
                             " does not match the computed dimensions " + DimsToString(dims));
  }
  return Status::Ok();
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// dst[di] = src[si]; converts when the element types differ (used where a computation's
// declared type and the operand's disagree, e.g. an init value of another width).
void CopyElement(const Literal& src, int64_t si, Literal& dst, int64_t di) {
  const PrimitiveType st = src.shape().element_type();
  const PrimitiveType dt = dst.shape().element_type();
  if (st == dt) {
    std::memcpy(dst.untyped_data() + di * dst.slot_bytes(),
                src.untyped_data() + si * src.slot_bytes(), static_cast<size_t>(src.slot_bytes()));
  } else if (IsComplex(dt) || IsComplex(st)) {
    dst.SetComplex(di, src.GetComplex(si));
  } else if (IsFloat(dt)) {
    dst.SetDouble(di, src.GetDouble(si));
  } else if (IsPred(dt)) {
    dst.SetBool(di, src.GetBool(si));
  } else if (IsUnsignedInt(st)) {
    dst.SetUint64(di, src.GetUint64(si));
  } else {
    dst.SetInt64(di, src.GetInt64(si));
  }
}

// The value `v` rounded to the real float type `type` (round to nearest even).
double RoundToType(PrimitiveType type, double v) {
  if (type == PrimitiveType::kF64) return v;
  if (type == PrimitiveType::kF32) return static_cast<double>(static_cast<float>(v));
  return FloatBitsToDouble(type, DoubleToFloatBits(type, v));
}

// Element `i` of the n-th result of a computation call: the call returns a scalar for
// one result, a tuple of scalars for several.
StatusOr<const Literal*> CallResult(const Instruction& inst, const Literal& result, int64_t i,
                                    int64_t n) {
  if (result.shape().IsTuple()) {
    if (static_cast<int64_t>(result.tuple_elements().size()) != n) {
      return Invalid(inst, "called computation returned " + Str(result.tuple_elements().size()) +
                               " values, expected " + Str(n));
    }
    const Literal& element = result.tuple_elements()[i];
    if (!element.shape().IsArray() || element.element_count() != 1) {
      return Invalid(inst, "called computation must return scalars");
    }
    return &element;
  }
  if (n != 1 || !result.shape().IsArray() || result.element_count() != 1) {
    return Invalid(inst, "called computation must return " + Str(n) + " scalar(s)");
  }
  return &result;
}

// Binary ops a scalar computation may be, for the paths that skip calling it.
enum class BinaryKind { kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr, kXor };

struct ScalarBinary {
  BinaryKind kind;
  bool swapped;  // root is op(p1, p0): the element is the left operand
};

// Recognizes `ROOT op(p0, p1)` (or `op(p1, p0)`) over two scalar parameters of `type`.
std::optional<ScalarBinary> MatchScalarBinary(const Computation* c, PrimitiveType type) {
  if (c == nullptr || c->parameter_count() != 2) return std::nullopt;
  const Instruction* p0 = c->parameter(0);
  const Instruction* p1 = c->parameter(1);
  const Instruction* root = c->root();
  if (p0 == nullptr || p1 == nullptr || root == nullptr || root->operand_count() != 2)
    return std::nullopt;
  for (const Instruction* i : {p0, p1, root}) {
    if (!i->shape().IsScalar() || i->shape().element_type() != type) return std::nullopt;
  }
  ScalarBinary match{BinaryKind::kAdd, false};
  if (root->operand(0) == p0 && root->operand(1) == p1) {
    match.swapped = false;
  } else if (root->operand(0) == p1 && root->operand(1) == p0) {
    match.swapped = true;
  } else {
    return std::nullopt;
  }
  switch (root->opcode()) {
    case Opcode::kAdd:
      match.kind = BinaryKind::kAdd;
      break;
    case Opcode::kMultiply:
      match.kind = BinaryKind::kMultiply;
      break;
    case Opcode::kMaximum:
      match.kind = BinaryKind::kMaximum;
      break;
    case Opcode::kMinimum:
      match.kind = BinaryKind::kMinimum;
      break;
    case Opcode::kAnd:
      match.kind = BinaryKind::kAnd;
      break;
    case Opcode::kOr:
      match.kind = BinaryKind::kOr;
      break;
    case Opcode::kXor:
      match.kind = BinaryKind::kXor;
      break;
    default:
      return std::nullopt;
  }
  const bool logical = match.kind == BinaryKind::kAnd || match.kind == BinaryKind::kOr ||
                       match.kind == BinaryKind::kXor;
  if (IsFloat(type)) return logical ? std::nullopt : std::optional(match);
  if (IsPred(type))
    return logical || match.kind == BinaryKind::kMaximum || match.kind == BinaryKind::kMinimum
               ? std::optional(match)
               : std::nullopt;
  if (IsInteger(type)) return match;
  return std::nullopt;  // complex: evaluate the computation
}

// XLA's maximum/minimum on floats: a NaN operand wins (the left one first), otherwise
// std::max / std::min.
inline double MaxPropagatingNaN(double lhs, double rhs) {
  if (std::isnan(lhs)) return lhs;
  if (std::isnan(rhs)) return rhs;
  return lhs < rhs ? rhs : lhs;
}
inline double MinPropagatingNaN(double lhs, double rhs) {
  if (std::isnan(lhs)) return lhs;
  if (std::isnan(rhs)) return rhs;
  return rhs < lhs ? rhs : lhs;
}

// One step of a real-float fold, exact in double (callers round as the op requires).
inline double ApplyReal(BinaryKind kind, bool swapped, double acc, double x) {
  const double lhs = swapped ? x : acc;
  const double rhs = swapped ? acc : x;
  switch (kind) {
    case BinaryKind::kAdd:
      return lhs + rhs;
    case BinaryKind::kMultiply:
      return lhs * rhs;
    case BinaryKind::kMaximum:
      return MaxPropagatingNaN(lhs, rhs);
    case BinaryKind::kMinimum:
      return MinPropagatingNaN(lhs, rhs);
    default:
      return lhs;
  }
}

// Integers and pred as 64-bit two's complement; add and multiply wrap (the final store
// wraps to the element width, which commutes with these ops).
inline uint64_t ApplyInt(BinaryKind kind, bool is_signed, uint64_t acc, uint64_t x) {
  switch (kind) {
    case BinaryKind::kAdd:
      return acc + x;
    case BinaryKind::kMultiply:
      return acc * x;
    case BinaryKind::kMaximum:
      if (is_signed) return static_cast<int64_t>(acc) < static_cast<int64_t>(x) ? x : acc;
      return acc < x ? x : acc;
    case BinaryKind::kMinimum:
      if (is_signed) return static_cast<int64_t>(x) < static_cast<int64_t>(acc) ? x : acc;
      return x < acc ? x : acc;
    case BinaryKind::kAnd:
      return acc & x;
    case BinaryKind::kOr:
      return acc | x;
    case BinaryKind::kXor:
      return acc ^ x;
  }
  return acc;
}

uint64_t LoadIntBits(const Literal& lit, int64_t i) {
  return IsSignedInt(lit.shape().element_type()) ? static_cast<uint64_t>(lit.GetInt64(i))
                                                 : lit.GetUint64(i);
}

void StoreIntBits(Literal& lit, int64_t i, uint64_t v) {
  const PrimitiveType t = lit.shape().element_type();
  if (IsPred(t)) {
    lit.SetBool(i, v != 0);
  } else if (IsSignedInt(t)) {
    lit.SetInt64(i, static_cast<int64_t>(v));
  } else {
    lit.SetUint64(i, v);
  }
}

// Visits an array of `dims` in row-major order one innermost row at a time, carrying a
// second linear index that advances by out_steps[d] along dimension d (0 for reduced
// dimensions). fn(in_base, out_base, count, out_step) -> Status handles `count`
// consecutive input elements.
template <typename Fn>
Status ForEachRow(const std::vector<int64_t>& dims, const std::vector<int64_t>& out_steps,
                  EvalContext& ctx, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return Status::Ok();
  }
  if (dims.empty()) return fn(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0});
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t row = dims.back();
  const int64_t inner_step = out_steps.back();
  const std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
  std::vector<int64_t> index(outer.size(), 0);
  int64_t in_base = 0;
  int64_t rows = 0;
  do {
    int64_t out_base = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) out_base += index[d] * out_steps[d];
    RETURN_IF_ERROR(fn(in_base, out_base, row, inner_step));
    in_base += row;
    if ((++rows & 1023) == 0) RETURN_IF_ERROR(ctx.CheckCancelled());
  } while (NextIndex(&index, outer));
  return Status::Ok();
}

// --- Windows (reduce-window, select-and-scatter, convolution) ---

// Size of the windowed output along one dimension (XLA's shape inference): the input
// dilated by base_dilation and padded, the window dilated by window_dilation.
int64_t WindowedOutputSize(int64_t in_size, const WindowDimension& w) {
  const int64_t dilated_in = in_size == 0 ? 0 : (in_size - 1) * w.base_dilation + 1;
  const int64_t padded = dilated_in + w.padding_low + w.padding_high;
  const int64_t dilated_window = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
  if (w.stride <= 0 || padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

Status CheckWindow(const Instruction& inst, int64_t rank, std::vector<WindowDimension>* dims) {
  const auto& window = inst.attrs().window;
  if (!window) {
    if (rank != 0) return Invalid(inst, "missing window attribute");
    dims->clear();
    return Status::Ok();
  }
  if (static_cast<int64_t>(window->dimensions.size()) != rank) {
    return Invalid(inst, "window has " + Str(window->dimensions.size()) +
                             " dimension(s) but the operand has rank " + Str(rank));
  }
  for (const WindowDimension& w : window->dimensions) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) {
      return Invalid(inst, "window sizes must be >= 0 and strides and dilations >= 1");
    }
  }
  *dims = window->dimensions;
  return Status::Ok();
}

// The taps of one window dimension at output position `out` that land on a real input
// element, in ascending tap order: input offsets (coordinate * in_stride) and `aux`
// offsets (the tap, possibly reversed, times aux_stride; the kernel offset for
// convolution). Taps in padding or in base-dilation holes are left out.
struct TapList {
  std::vector<int64_t> in_offset;
  std::vector<int64_t> aux_offset;
};

void ComputeTaps(const WindowDimension& w, int64_t out, int64_t in_size, int64_t in_stride,
                 int64_t aux_stride, TapList* taps) {
  taps->in_offset.clear();
  taps->aux_offset.clear();
  for (int64_t k = 0; k < w.size; ++k) {
    int64_t pos = out * w.stride - w.padding_low + k * w.window_dilation;
    if (w.base_dilation > 1) {
      if (pos % w.base_dilation != 0) continue;
      pos /= w.base_dilation;
    }
    if (pos < 0 || pos >= in_size) continue;
    taps->in_offset.push_back(pos * in_stride);
    const int64_t kernel_tap = w.window_reversal ? w.size - 1 - k : k;
    taps->aux_offset.push_back(kernel_tap * aux_stride);
  }
}

// Calls fn(in_offset_sum, aux_offset_sum) for every combination of taps, in row-major
// order of the window (the last dimension fastest). No dimensions: one call with zeros.
template <typename Fn>
void ForEachTap(const std::vector<TapList>& taps, std::vector<int64_t>* pick,
                std::vector<int64_t>* sizes, Fn&& fn) {
  const size_t rank = taps.size();
  sizes->resize(rank);
  pick->assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    (*sizes)[d] = static_cast<int64_t>(taps[d].in_offset.size());
    if ((*sizes)[d] == 0) return;
  }
  do {
    int64_t in = 0;
    int64_t aux = 0;
    for (size_t d = 0; d < rank; ++d) {
      in += taps[d].in_offset[(*pick)[d]];
      aux += taps[d].aux_offset[(*pick)[d]];
    }
    fn(in, aux);
  } while (NextIndex(pick, *sizes));
}

// Per-output window walker shared by reduce-window and select-and-scatter: for the
// output index `out`, calls fn(input_linear) for each tap on a real input element.
class WindowWalker {
 public:
  WindowWalker(const std::vector<WindowDimension>& window, const std::vector<int64_t>& in_dims)
      : window_(window),
        in_dims_(in_dims),
        in_strides_(RowMajorStrides(in_dims)),
        taps_(window.size()) {}

  template <typename Fn>
  void Walk(const std::vector<int64_t>& out, Fn&& fn) {
    for (size_t d = 0; d < window_.size(); ++d) {
      ComputeTaps(window_[d], out[d], in_dims_[d], in_strides_[d], 0, &taps_[d]);
    }
    ForEachTap(taps_, &pick_, &sizes_, [&](int64_t in, int64_t) { fn(in); });
  }

 private:
  const std::vector<WindowDimension>& window_;
  std::vector<int64_t> in_dims_;
  std::vector<int64_t> in_strides_;
  std::vector<TapList> taps_;
  std::vector<int64_t> pick_;
  std::vector<int64_t> sizes_;
};

// ===========================================================================
// 2. reduce
// ===========================================================================

// Fast fold of a real-float reduce; `load(i)` reads input element i exactly as double.
template <BinaryKind kKind, typename Load>
Status FoldRealRows(const std::vector<int64_t>& dims, const std::vector<int64_t>& steps, Load load,
                    bool swapped, PrimitiveType type, std::vector<double>& acc, EvalContext& ctx) {
  return ForEachRow(dims, steps, ctx, [&](int64_t in, int64_t out, int64_t count, int64_t step) {
    double* a = acc.data() + out;
    if constexpr (kKind == BinaryKind::kAdd) {
      // Double accumulation, rounded once at the end (as XLA's evaluator).
      if (step == 0) {
        double sum = *a;
        for (int64_t j = 0; j < count; ++j) sum += load(in + j);
        *a = sum;
      } else {
        for (int64_t j = 0; j < count; ++j) a[j * step] += load(in + j);
      }
    } else if constexpr (kKind == BinaryKind::kMultiply) {
      for (int64_t j = 0; j < count; ++j)
        a[j * step] = RoundToType(type, a[j * step] * load(in + j));
    } else {
      for (int64_t j = 0; j < count; ++j)
        a[j * step] = ApplyReal(kKind, swapped, a[j * step], load(in + j));
    }
    return Status::Ok();
  });
}

template <typename Load>
Status FoldReal(BinaryKind kind, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& steps, Load load, bool swapped, PrimitiveType type,
                std::vector<double>& acc, EvalContext& ctx) {
  switch (kind) {
    case BinaryKind::kAdd:
      return FoldRealRows<BinaryKind::kAdd>(dims, steps, load, swapped, type, acc, ctx);
    case BinaryKind::kMultiply:
      return FoldRealRows<BinaryKind::kMultiply>(dims, steps, load, swapped, type, acc, ctx);
    case BinaryKind::kMaximum:
      return FoldRealRows<BinaryKind::kMaximum>(dims, steps, load, swapped, type, acc, ctx);
    case BinaryKind::kMinimum:
      return FoldRealRows<BinaryKind::kMinimum>(dims, steps, load, swapped, type, acc, ctx);
    default:
      return Internal("unexpected float reduction kind");
  }
}

Status ReduceFast(ScalarBinary op, const Literal& input, const Literal& init,
                  const std::vector<int64_t>& steps, Literal& out, EvalContext& ctx) {
  const PrimitiveType type = input.shape().element_type();
  const std::vector<int64_t>& dims = input.shape().dimensions();
  const int64_t out_count = out.element_count();
  if (IsFloat(type)) {
    std::vector<double> acc(static_cast<size_t>(out_count), init.GetDouble(0));
    const uint8_t* data = input.untyped_data();
    if (type == PrimitiveType::kF32) {
      auto load = [data](int64_t i) {
        float v;
        std::memcpy(&v, data + i * 4, 4);
        return static_cast<double>(v);
      };
      RETURN_IF_ERROR(FoldReal(op.kind, dims, steps, load, op.swapped, type, acc, ctx));
    } else if (type == PrimitiveType::kF64) {
      auto load = [data](int64_t i) {
        double v;
        std::memcpy(&v, data + i * 8, 8);
        return v;
      };
      RETURN_IF_ERROR(FoldReal(op.kind, dims, steps, load, op.swapped, type, acc, ctx));
    } else {
      auto load = [&input](int64_t i) { return input.GetDouble(i); };
      RETURN_IF_ERROR(FoldReal(op.kind, dims, steps, load, op.swapped, type, acc, ctx));
    }
    for (int64_t o = 0; o < out_count; ++o) out.SetDouble(o, acc[o]);
    return Status::Ok();
  }
  const bool is_signed = IsSignedInt(type);
  std::vector<uint64_t> acc(static_cast<size_t>(out_count), LoadIntBits(init, 0));
  RETURN_IF_ERROR(
      ForEachRow(dims, steps, ctx, [&](int64_t in, int64_t o, int64_t count, int64_t step) {
        for (int64_t j = 0; j < count; ++j) {
          acc[o + j * step] =
              ApplyInt(op.kind, is_signed, acc[o + j * step], LoadIntBits(input, in + j));
        }
        return Status::Ok();
      }));
  for (int64_t o = 0; o < out_count; ++o) StoreIntBits(out, o, acc[o]);
  return Status::Ok();
}

StatusOr<Literal> EvalReduce(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return Invalid(inst, "expects N inputs followed by N init values");
  }
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, operands.size()));
  const int64_t n = static_cast<int64_t>(operands.size() / 2);
  const Computation* to_apply = inst.to_apply();
  if (to_apply == nullptr) return Invalid(inst, "missing to_apply computation");

  const std::vector<int64_t>& in_dims = operands[0]->shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<bool> reduced(rank, false);
  for (int64_t d : inst.dimensions()) {
    if (d < 0 || d >= rank)
      return Invalid(inst, "dimension " + Str(d) + " is out of range for rank " + Str(rank));
    if (reduced[d]) return Invalid(inst, "dimension " + Str(d) + " is listed twice");
    reduced[d] = true;
  }
  std::vector<int64_t> out_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) out_dims.push_back(in_dims[d]);
  }
  for (int64_t i = 0; i < n; ++i) {
    if (operands[i]->shape().dimensions() != in_dims)
      return Invalid(inst, "all inputs must have the same dimensions");
    if (operands[n + i]->element_count() != 1 || !operands[n + i]->shape().IsScalar()) {
      return Invalid(inst, "init values must be scalars");
    }
  }

  // Result: one array, or a tuple of n arrays of out_dims.
  const Shape& shape = inst.shape();
  const bool is_tuple = shape.IsTuple();
  if (is_tuple ? shape.tuple_size() != n : n != 1) {
    return Invalid(
        inst, "result shape " + shape.ToString(false) + " does not match " + Str(n) + " input(s)");
  }
  Literal result(shape);
  std::vector<Literal*> outs;
  for (int64_t i = 0; i < n; ++i) {
    Literal* out = is_tuple ? &result.tuple_elements()[i] : &result;
    if (!out->shape().IsArray() || out->shape().dimensions() != out_dims) {
      return Invalid(inst, "result shape " + shape.ToString(false) +
                               " does not match the reduced dimensions " + DimsToString(out_dims));
    }
    outs.push_back(out);
  }

  // Output linear step per input dimension (reduced dimensions do not move the output).
  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  std::vector<int64_t> steps(rank, 0);
  for (int64_t d = 0, o = 0; d < rank; ++d) {
    if (!reduced[d]) steps[d] = out_strides[o++];
  }

  const Literal& input = *operands[0];
  const PrimitiveType type = input.shape().element_type();
  if (n == 1 && !is_tuple && operands[1]->shape().element_type() == type &&
      outs[0]->shape().element_type() == type) {
    if (auto op = MatchScalarBinary(to_apply, type)) {
      RETURN_IF_ERROR(ReduceFast(*op, input, *operands[1], steps, *outs[0], ctx));
      return result;
    }
  }

  // General path: call to_apply(accumulators..., elements...) per element.
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t o = 0; o < outs[i]->element_count(); ++o)
      CopyElement(*operands[n + i], 0, *outs[i], o);
  }
  std::vector<Literal> args;
  args.reserve(2 * n);
  for (int64_t i = 0; i < n; ++i) args.emplace_back(Shape::Scalar(outs[i]->shape().element_type()));
  for (int64_t i = 0; i < n; ++i)
    args.emplace_back(Shape::Scalar(operands[i]->shape().element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  RETURN_IF_ERROR(
      ForEachRow(in_dims, steps, ctx, [&](int64_t in, int64_t out, int64_t count, int64_t step) {
        for (int64_t j = 0; j < count; ++j) {
          const int64_t o = out + j * step;
          for (int64_t i = 0; i < n; ++i) {
            CopyElement(*outs[i], o, args[i], 0);
            CopyElement(*operands[i], in + j, args[n + i], 0);
          }
          ASSIGN_OR_RETURN(Literal r, ctx.Call(*to_apply, arg_ptrs));
          for (int64_t i = 0; i < n; ++i) {
            ASSIGN_OR_RETURN(const Literal* value, CallResult(inst, r, i, n));
            CopyElement(*value, 0, *outs[i], o);
          }
        }
        return Status::Ok();
      }));
  return result;
}

// ===========================================================================
// 3. reduce-window
// ===========================================================================

StatusOr<Literal> EvalReduceWindow(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.empty() || operands.size() % 2 != 0) {
    return Invalid(inst, "expects N inputs followed by N init values");
  }
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, operands.size()));
  const int64_t n = static_cast<int64_t>(operands.size() / 2);
  const Computation* to_apply = inst.to_apply();
  if (to_apply == nullptr) return Invalid(inst, "missing to_apply computation");
  const std::vector<int64_t>& in_dims = operands[0]->shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<WindowDimension> window;
  RETURN_IF_ERROR(CheckWindow(inst, rank, &window));
  for (int64_t i = 0; i < n; ++i) {
    if (operands[i]->shape().dimensions() != in_dims)
      return Invalid(inst, "all inputs must have the same dimensions");
    if (!operands[n + i]->shape().IsScalar()) return Invalid(inst, "init values must be scalars");
  }
  std::vector<int64_t> out_dims(rank);
  for (int64_t d = 0; d < rank; ++d) out_dims[d] = WindowedOutputSize(in_dims[d], window[d]);

  const Shape& shape = inst.shape();
  const bool is_tuple = shape.IsTuple();
  if (is_tuple ? shape.tuple_size() != n : n != 1) {
    return Invalid(
        inst, "result shape " + shape.ToString(false) + " does not match " + Str(n) + " input(s)");
  }
  Literal result(shape);
  std::vector<Literal*> outs;
  for (int64_t i = 0; i < n; ++i) {
    Literal* out = is_tuple ? &result.tuple_elements()[i] : &result;
    if (!out->shape().IsArray() || out->shape().dimensions() != out_dims) {
      return Invalid(inst, "result shape " + shape.ToString(false) +
                               " does not match the windowed dimensions " + DimsToString(out_dims));
    }
    outs.push_back(out);
  }

  WindowWalker walker(window, in_dims);
  const Literal& input = *operands[0];
  const PrimitiveType type = input.shape().element_type();
  std::optional<ScalarBinary> fast;
  if (n == 1 && !is_tuple && operands[1]->shape().element_type() == type &&
      outs[0]->shape().element_type() == type) {
    fast = MatchScalarBinary(to_apply, type);
  }

  std::vector<Literal> args;
  std::vector<const Literal*> arg_ptrs;
  if (!fast) {
    for (int64_t i = 0; i < n; ++i)
      args.emplace_back(Shape::Scalar(outs[i]->shape().element_type()));
    for (int64_t i = 0; i < n; ++i)
      args.emplace_back(Shape::Scalar(operands[i]->shape().element_type()));
    for (const Literal& a : args) arg_ptrs.push_back(&a);
  }

  Status status = Status::Ok();
  int64_t visited = 0;
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& out_index, int64_t o) {
    if (!status.ok()) return;
    if ((++visited & 4095) == 0) status = ctx.CheckCancelled();
    if (fast && IsFloat(type)) {
      // Per-step rounding to the element type, as calling the computation would.
      double acc = operands[1]->GetDouble(0);
      walker.Walk(out_index, [&](int64_t in) {
        acc = RoundToType(type, ApplyReal(fast->kind, fast->swapped, acc, input.GetDouble(in)));
      });
      outs[0]->SetDouble(o, acc);
    } else if (fast) {
      uint64_t acc = LoadIntBits(*operands[1], 0);
      const bool is_signed = IsSignedInt(type);
      walker.Walk(out_index, [&](int64_t in) {
        acc = ApplyInt(fast->kind, is_signed, acc, LoadIntBits(input, in));
      });
      StoreIntBits(*outs[0], o, acc);
    } else {
      for (int64_t i = 0; i < n; ++i) CopyElement(*operands[n + i], 0, args[i], 0);
      walker.Walk(out_index, [&](int64_t in) {
        if (!status.ok()) return;
        for (int64_t i = 0; i < n; ++i) CopyElement(*operands[i], in, args[n + i], 0);
        StatusOr<Literal> r = ctx.Call(*to_apply, arg_ptrs);
        if (!r.ok()) {
          status = r.status();
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          StatusOr<const Literal*> value = CallResult(inst, *r, i, n);
          if (!value.ok()) {
            status = value.status();
            return;
          }
          CopyElement(**value, 0, args[i], 0);
        }
      });
      for (int64_t i = 0; i < n; ++i) CopyElement(args[i], 0, *outs[i], o);
    }
  });
  if (!status.ok()) return status;
  return result;
}

// ===========================================================================
// 4. select-and-scatter
// ===========================================================================

// select = `ROOT compare(p0, p1)` (or swapped) on real floats with the default
// (partial-order) comparison: evaluated natively.
struct FastSelect {
  ComparisonDirection direction;
  bool swapped;
};

std::optional<FastSelect> MatchFloatCompare(const Computation* c, PrimitiveType type) {
  if (c == nullptr || !IsFloat(type) || c->parameter_count() != 2) return std::nullopt;
  const Instruction* p0 = c->parameter(0);
  const Instruction* p1 = c->parameter(1);
  const Instruction* root = c->root();
  if (p0 == nullptr || p1 == nullptr || root == nullptr || root->opcode() != Opcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  if (p0->shape() != p1->shape() || !p0->shape().IsScalar() || p0->shape().element_type() != type) {
    return std::nullopt;
  }
  const auto& attrs = root->attrs();
  if (!attrs.comparison_direction) return std::nullopt;
  if (attrs.comparison_type && *attrs.comparison_type != ComparisonType::kFloat)
    return std::nullopt;
  if (root->operand(0) == p0 && root->operand(1) == p1)
    return FastSelect{*attrs.comparison_direction, false};
  if (root->operand(0) == p1 && root->operand(1) == p0)
    return FastSelect{*attrs.comparison_direction, true};
  return std::nullopt;
}

bool CompareReal(ComparisonDirection direction, double a, double b) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return a == b;
    case ComparisonDirection::kNe:
      return a != b;
    case ComparisonDirection::kGe:
      return a >= b;
    case ComparisonDirection::kGt:
      return a > b;
    case ComparisonDirection::kLe:
      return a <= b;
    case ComparisonDirection::kLt:
      return a < b;
  }
  return false;
}

StatusOr<Literal> EvalSelectAndScatter(const Instruction& inst, Operands operands,
                                       EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 3));
  const Literal& operand = *operands[0];
  const Literal& source = *operands[1];
  const Literal& init = *operands[2];
  if (inst.called_computations().size() < 2)
    return Invalid(inst, "needs select and scatter computations");
  const Computation* select = inst.called_computation(0);
  const Computation* scatter = inst.called_computation(1);
  const std::vector<int64_t>& in_dims = operand.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  std::vector<WindowDimension> window;
  RETURN_IF_ERROR(CheckWindow(inst, rank, &window));
  if (!init.shape().IsScalar()) return Invalid(inst, "init value must be a scalar");
  std::vector<int64_t> source_dims(rank);
  for (int64_t d = 0; d < rank; ++d) source_dims[d] = WindowedOutputSize(in_dims[d], window[d]);
  if (source.shape().dimensions() != source_dims) {
    return Invalid(inst, "source dimensions " + DimsToString(source.shape().dimensions()) +
                             " do not match the windowed operand " + DimsToString(source_dims));
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, in_dims));
  Literal result(inst.shape());
  for (int64_t i = 0; i < result.element_count(); ++i) CopyElement(init, 0, result, i);

  const PrimitiveType type = operand.shape().element_type();
  const PrimitiveType out_type = result.shape().element_type();
  const std::optional<FastSelect> fast_select = MatchFloatCompare(select, type);
  std::optional<ScalarBinary> fast_scatter;
  if (source.shape().element_type() == out_type) {
    fast_scatter = MatchScalarBinary(scatter, out_type);
    if (fast_scatter && fast_scatter->kind != BinaryKind::kAdd) fast_scatter.reset();
  }

  Literal selected_arg(Shape::Scalar(type));
  Literal candidate_arg(Shape::Scalar(type));
  const std::vector<const Literal*> select_args = {&selected_arg, &candidate_arg};
  Literal source_arg(Shape::Scalar(source.shape().element_type()));
  Literal current_arg(Shape::Scalar(out_type));
  const std::vector<const Literal*> scatter_args = {&source_arg, &current_arg};

  WindowWalker walker(window, in_dims);
  Status status = Status::Ok();
  ForEachIndex(source_dims, [&](const std::vector<int64_t>& source_index, int64_t s) {
    if (!status.ok()) return;
    if ((s & 4095) == 4095) status = ctx.CheckCancelled();
    // Select: the first tap is selected; a later candidate replaces the selection when
    // select(selected, candidate) is false.
    int64_t selected = -1;
    walker.Walk(source_index, [&](int64_t in) {
      if (!status.ok()) return;
      if (selected < 0) {
        selected = in;
        return;
      }
      bool keep = true;
      if (fast_select) {
        const double a = operand.GetDouble(selected);
        const double b = operand.GetDouble(in);
        keep = fast_select->swapped ? CompareReal(fast_select->direction, b, a)
                                    : CompareReal(fast_select->direction, a, b);
      } else {
        CopyElement(operand, selected, selected_arg, 0);
        CopyElement(operand, in, candidate_arg, 0);
        StatusOr<Literal> r = ctx.Call(*select, select_args);
        if (!r.ok()) {
          status = r.status();
          return;
        }
        if (!r->shape().IsArray() || r->element_count() != 1) {
          status = Invalid(inst, "select must return a scalar pred");
          return;
        }
        keep = r->GetBool(0);
      }
      if (!keep) selected = in;
    });
    if (!status.ok() || selected < 0) return;  // a window entirely in padding selects nothing
    // Scatter: result[selected] = scatter(source, result[selected]).
    if (fast_scatter && IsFloat(out_type)) {
      result.SetDouble(selected,
                       RoundToType(out_type, source.GetDouble(s) + result.GetDouble(selected)));
    } else if (fast_scatter && !IsComplex(out_type)) {
      StoreIntBits(
          result, selected,
          ApplyInt(BinaryKind::kAdd, false, LoadIntBits(result, selected), LoadIntBits(source, s)));
    } else {
      CopyElement(source, s, source_arg, 0);
      CopyElement(result, selected, current_arg, 0);
      StatusOr<Literal> r = ctx.Call(*scatter, scatter_args);
      if (!r.ok()) {
        status = r.status();
        return;
      }
      StatusOr<const Literal*> value = CallResult(inst, *r, 0, 1);
      if (!value.ok()) {
        status = value.status();
        return;
      }
      CopyElement(**value, 0, result, selected);
    }
  });
  if (!status.ok()) return status;
  return result;
}

// ===========================================================================
// 5. map
// ===========================================================================

StatusOr<Literal> EvalMap(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.empty()) return Invalid(inst, "expects at least one operand");
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, operands.size()));
  const Computation* to_apply = inst.to_apply();
  if (to_apply == nullptr) return Invalid(inst, "missing to_apply computation");
  const std::vector<int64_t>& dims = operands[0]->shape().dimensions();
  for (const Literal* op : operands) {
    if (op->shape().dimensions() != dims)
      return Invalid(inst, "all operands must have the same dimensions");
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, dims));
  Literal result(inst.shape());
  std::vector<Literal> args;
  for (const Literal* op : operands) args.emplace_back(Shape::Scalar(op->shape().element_type()));
  std::vector<const Literal*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(&a);
  for (int64_t i = 0; i < result.element_count(); ++i) {
    if ((i & 4095) == 4095) RETURN_IF_ERROR(ctx.CheckCancelled());
    for (size_t k = 0; k < operands.size(); ++k) CopyElement(*operands[k], i, args[k], 0);
    ASSIGN_OR_RETURN(Literal r, ctx.Call(*to_apply, arg_ptrs));
    ASSIGN_OR_RETURN(const Literal* value, CallResult(inst, r, 0, 1));
    CopyElement(*value, 0, result, i);
  }
  return result;
}

// ===========================================================================
// 6. Accumulators shared by dot and convolution
// ===========================================================================

// Operand element `i` converted to the result element type, as the accumulator type T.
template <typename T>
T LoadAs(const Literal& lit, int64_t i, PrimitiveType result_type);

template <>
float LoadAs<float>(const Literal& lit, int64_t i, PrimitiveType result_type) {
  const double v = lit.GetDouble(i);
  return static_cast<float>(
      lit.shape().element_type() == result_type ? v : RoundToType(result_type, v));
}
template <>
double LoadAs<double>(const Literal& lit, int64_t i, PrimitiveType) {
  return lit.GetDouble(i);
}
template <>
std::complex<float> LoadAs<std::complex<float>>(const Literal& lit, int64_t i, PrimitiveType) {
  const Complex v = lit.GetComplex(i);
  return {static_cast<float>(v.real()), static_cast<float>(v.imag())};
}
template <>
Complex LoadAs<Complex>(const Literal& lit, int64_t i, PrimitiveType) {
  return lit.GetComplex(i);
}
template <>
uint64_t LoadAs<uint64_t>(const Literal& lit, int64_t i, PrimitiveType result_type) {
  // Integer to integer needs no conversion: the 64-bit value is congruent to the
  // converted one modulo 2^width, and sums and products are computed modulo 2^64 and
  // wrapped to the result width when stored.
  const PrimitiveType from = lit.shape().element_type();
  if (from == result_type || (IsInteger(from) && IsInteger(result_type))) {
    return LoadIntBits(lit, i);
  }
  // Otherwise (floats, pred) convert through a scalar of the result type.
  Literal scalar(Shape::Scalar(result_type));
  CopyElement(lit, i, scalar, 0);
  return LoadIntBits(scalar, 0);
}

// The whole operand converted, in its own row-major order.
template <typename T>
std::vector<T> LoadAll(const Literal& lit, PrimitiveType result_type) {
  std::vector<T> out(static_cast<size_t>(lit.element_count()));
  if constexpr (std::is_same_v<T, float>) {
    if (lit.shape().element_type() == PrimitiveType::kF32 && result_type == PrimitiveType::kF32) {
      // (An empty operand has no data pointer: memcpy from null is undefined even for 0 bytes.)
      if (!out.empty()) std::memcpy(out.data(), lit.untyped_data(), out.size() * sizeof(float));
      return out;
    }
  }
  for (int64_t i = 0; i < lit.element_count(); ++i) out[i] = LoadAs<T>(lit, i, result_type);
  return out;
}

inline void StoreAcc(Literal& out, int64_t i, float v) { out.SetDouble(i, v); }
inline void StoreAcc(Literal& out, int64_t i, double v) { out.SetDouble(i, v); }
inline void StoreAcc(Literal& out, int64_t i, std::complex<float> v) {
  out.SetComplex(i, Complex(v.real(), v.imag()));
}
inline void StoreAcc(Literal& out, int64_t i, Complex v) { out.SetComplex(i, v); }
inline void StoreAcc(Literal& out, int64_t i, uint64_t v) { StoreIntBits(out, i, v); }

// Calls fn(T{}) with the accumulator type for `result_type` (see the file comment).
template <typename Fn>
StatusOr<Literal> WithAccumulator(const Instruction& inst, PrimitiveType result_type, Fn&& fn) {
  switch (result_type) {
    case PrimitiveType::kF64:
      return fn(double{});
    case PrimitiveType::kC64:
      return fn(std::complex<float>{});
    case PrimitiveType::kC128:
      return fn(Complex{});
    default:
      break;
  }
  if (IsFloat(result_type)) return fn(float{});
  if (IsInteger(result_type) || IsPred(result_type)) return fn(uint64_t{});
  return Invalid(inst, "unsupported result type " + std::string(PrimitiveTypeName(result_type)));
}

// Row-major copy of `src` (dimensions `dims`) with its dimensions reordered so that
// result dimension i is source dimension perm[i].
template <typename T>
std::vector<T> Permute(std::vector<T> src, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return src;
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> permuted_dims(perm.size());
  std::vector<int64_t> permuted_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    permuted_dims[i] = dims[perm[i]];
    permuted_strides[i] = strides[perm[i]];
  }
  std::vector<T> out(src.size());
  ForEachIndex(permuted_dims, [&](const std::vector<int64_t>& index, int64_t linear) {
    out[linear] = src[LinearIndex(index, permuted_strides)];
  });
  return out;
}

// ===========================================================================
// 7. dot
// ===========================================================================

// C[b][i][j] = sum_k L[b][i][k] * R[b][k][j], summed in ascending k. The i,k,j loop
// keeps that order for every (i, j) while streaming rows of R.
template <typename T>
Status BatchedMatMul(const std::vector<T>& lhs, const std::vector<T>& rhs, int64_t batch, int64_t m,
                     int64_t k, int64_t n, Literal& out, EvalContext& ctx) {
  std::vector<T> row(static_cast<size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), T{});
      const T* l = lhs.data() + (b * m + i) * k;
      T* c = row.data();
      for (int64_t kk = 0; kk < k; ++kk) {
        const T a = l[kk];
        const T* r = rhs.data() + (b * k + kk) * n;
        for (int64_t j = 0; j < n; ++j) c[j] += a * r[j];
      }
      const int64_t base = (b * m + i) * n;
      for (int64_t j = 0; j < n; ++j) StoreAcc(out, base + j, c[j]);
      if ((i & 63) == 63) RETURN_IF_ERROR(ctx.CheckCancelled());
    }
  }
  return Status::Ok();
}

StatusOr<Literal> EvalDot(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 2));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const std::vector<int64_t>& ld = lhs.shape().dimensions();
  const std::vector<int64_t>& rd = rhs.shape().dimensions();
  const int64_t lrank = static_cast<int64_t>(ld.size());
  const int64_t rrank = static_cast<int64_t>(rd.size());
  static const DotDimensionNumbers kNoDims;
  const auto& dnums_attr = inst.attrs().dot_dimension_numbers;
  const DotDimensionNumbers& dnums = dnums_attr ? *dnums_attr : kNoDims;
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size() ||
      dnums.lhs_contracting_dimensions.size() != dnums.rhs_contracting_dimensions.size()) {
    return Invalid(inst,
                   "lhs and rhs must list the same number of batch and contracting dimensions");
  }
  // Mark each dimension's role; reject out-of-range and repeated dimensions.
  std::vector<int> lrole(lrank, 0);
  std::vector<int> rrole(rrank, 0);
  auto mark = [&](const std::vector<int64_t>& list, std::vector<int>& role, int64_t rank, int tag,
                  const char* what) -> Status {
    for (int64_t d : list) {
      if (d < 0 || d >= rank)
        return Invalid(inst, std::string(what) + " dimension " + Str(d) + " is out of range");
      if (role[d] != 0)
        return Invalid(inst, std::string(what) + " dimension " + Str(d) + " is used twice");
      role[d] = tag;
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(mark(dnums.lhs_batch_dimensions, lrole, lrank, 1, "lhs batch"));
  RETURN_IF_ERROR(mark(dnums.lhs_contracting_dimensions, lrole, lrank, 2, "lhs contracting"));
  RETURN_IF_ERROR(mark(dnums.rhs_batch_dimensions, rrole, rrank, 1, "rhs batch"));
  RETURN_IF_ERROR(mark(dnums.rhs_contracting_dimensions, rrole, rrank, 2, "rhs contracting"));

  int64_t batch = 1;
  int64_t k = 1;
  int64_t m = 1;
  int64_t n = 1;
  std::vector<int64_t> out_dims;
  std::vector<int64_t> lperm;
  std::vector<int64_t> rperm;
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    const int64_t a = dnums.lhs_batch_dimensions[i];
    const int64_t b = dnums.rhs_batch_dimensions[i];
    if (ld[a] != rd[b])
      return Invalid(inst, "batch dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    batch *= ld[a];
    out_dims.push_back(ld[a]);
    lperm.push_back(a);
    rperm.push_back(b);
  }
  for (int64_t d = 0; d < lrank; ++d) {
    if (lrole[d] == 0) {
      m *= ld[d];
      out_dims.push_back(ld[d]);
      lperm.push_back(d);
    }
  }
  for (int64_t d = 0; d < rrank; ++d) {
    if (rrole[d] == 0) {
      n *= rd[d];
      out_dims.push_back(rd[d]);
    }
  }
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    const int64_t a = dnums.lhs_contracting_dimensions[i];
    const int64_t b = dnums.rhs_contracting_dimensions[i];
    if (ld[a] != rd[b]) {
      return Invalid(inst,
                     "contracting dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    }
    k *= ld[a];
    lperm.push_back(a);
    rperm.push_back(b);
  }
  for (int64_t d = 0; d < rrank; ++d) {
    if (rrole[d] == 0) rperm.push_back(d);
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  Literal result(inst.shape());
  const PrimitiveType type = result.shape().element_type();
  return WithAccumulator(inst, type, [&](auto zero) -> StatusOr<Literal> {
    using T = decltype(zero);
    // Canonical operands: L[batch][m][k] and R[batch][k][n].
    const std::vector<T> l = Permute(LoadAll<T>(lhs, type), ld, lperm);
    const std::vector<T> r = Permute(LoadAll<T>(rhs, type), rd, rperm);
    RETURN_IF_ERROR(BatchedMatMul(l, r, batch, m, k, n, result, ctx));
    return std::move(result);
  });
}

// ===========================================================================
// 8. convolution
// ===========================================================================

struct ConvPlan {
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  std::vector<int64_t> lhs_strides, rhs_strides;
  int64_t input_features_per_group = 0;  // kernel input feature size
  int64_t output_features_per_fgroup = 0;
  int64_t output_features_per_bgroup = 0;
  int64_t batch_group_size = 0;  // input batch / batch_group_count
};

Status PlanConvolution(const Instruction& inst, const Literal& lhs, const Literal& rhs,
                       ConvPlan* plan) {
  const auto& dn_attr = inst.attrs().convolution_dimension_numbers;
  if (!dn_attr) return Invalid(inst, "missing dim_labels");
  plan->dn = *dn_attr;
  const ConvolutionDimensionNumbers& dn = plan->dn;
  plan->lhs_dims = lhs.shape().dimensions();
  plan->rhs_dims = rhs.shape().dimensions();
  const int64_t spatial = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(dn.output_spatial_dimensions.size()) != spatial) {
    return Invalid(inst, "dim_labels must name the same number of spatial dimensions everywhere");
  }
  const int64_t rank = spatial + 2;
  if (static_cast<int64_t>(plan->lhs_dims.size()) != rank ||
      static_cast<int64_t>(plan->rhs_dims.size()) != rank || inst.shape().rank() != rank ||
      !inst.shape().IsArray()) {
    return Invalid(inst, "operands and result must have rank " + Str(rank) + " for " +
                             Str(spatial) + " spatial dimension(s)");
  }
  auto in_range = [rank](int64_t d) { return d >= 0 && d < rank; };
  bool ok = in_range(dn.input_batch_dimension) && in_range(dn.input_feature_dimension) &&
            in_range(dn.kernel_input_feature_dimension) &&
            in_range(dn.kernel_output_feature_dimension) && in_range(dn.output_batch_dimension) &&
            in_range(dn.output_feature_dimension);
  for (int64_t i = 0; i < spatial; ++i) {
    ok = ok && in_range(dn.input_spatial_dimensions[i]) &&
         in_range(dn.kernel_spatial_dimensions[i]) && in_range(dn.output_spatial_dimensions[i]);
  }
  if (!ok) return Invalid(inst, "dim_labels refer to a dimension out of range");
  RETURN_IF_ERROR(CheckWindow(inst, spatial, &plan->window));

  const int64_t f_groups = inst.attrs().feature_group_count;
  const int64_t b_groups = inst.attrs().batch_group_count;
  if (f_groups < 1 || b_groups < 1) return Invalid(inst, "group counts must be >= 1");
  const int64_t in_batch = plan->lhs_dims[dn.input_batch_dimension];
  const int64_t in_features = plan->lhs_dims[dn.input_feature_dimension];
  const int64_t k_in = plan->rhs_dims[dn.kernel_input_feature_dimension];
  const int64_t k_out = plan->rhs_dims[dn.kernel_output_feature_dimension];
  if (in_features % f_groups != 0 || in_features / f_groups != k_in) {
    return Invalid(inst, "input features (" + Str(in_features) + ") / feature_group_count (" +
                             Str(f_groups) + ") must equal the kernel input features (" +
                             Str(k_in) + ")");
  }
  if (k_out % f_groups != 0 || k_out % b_groups != 0) {
    return Invalid(
        inst, "kernel output features (" + Str(k_out) + ") must be divisible by the group counts");
  }
  if (in_batch % b_groups != 0) {
    return Invalid(inst, "input batch (" + Str(in_batch) +
                             ") must be divisible by batch_group_count (" + Str(b_groups) + ")");
  }
  plan->input_features_per_group = k_in;
  plan->output_features_per_fgroup = k_out / f_groups;
  plan->output_features_per_bgroup = k_out / b_groups;
  plan->batch_group_size = in_batch / b_groups;

  std::vector<int64_t> out_dims(rank, 0);
  out_dims[dn.output_batch_dimension] = in_batch / b_groups;
  out_dims[dn.output_feature_dimension] = k_out;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = plan->window[i];
    if (plan->rhs_dims[dn.kernel_spatial_dimensions[i]] != w.size) {
      return Invalid(inst, "window size " + Str(w.size) +
                               " does not match kernel spatial dimension of size " +
                               Str(plan->rhs_dims[dn.kernel_spatial_dimensions[i]]));
    }
    out_dims[dn.output_spatial_dimensions[i]] =
        WindowedOutputSize(plan->lhs_dims[dn.input_spatial_dimensions[i]], w);
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  plan->out_dims = out_dims;
  plan->lhs_strides = RowMajorStrides(plan->lhs_dims);
  plan->rhs_strides = RowMajorStrides(plan->rhs_dims);
  return Status::Ok();
}

template <typename T>
Status Convolve(const ConvPlan& p, const std::vector<T>& lhs, const std::vector<T>& rhs,
                Literal& out, EvalContext& ctx) {
  const ConvolutionDimensionNumbers& dn = p.dn;
  const size_t spatial = dn.input_spatial_dimensions.size();
  const int64_t lhs_feature_stride = p.lhs_strides[dn.input_feature_dimension];
  const int64_t rhs_feature_stride = p.rhs_strides[dn.kernel_input_feature_dimension];
  std::vector<TapList> taps(spatial);
  std::vector<int64_t> pick;
  std::vector<int64_t> sizes;
  int64_t visited = 0;
  Status status = Status::Ok();
  ForEachIndex(p.out_dims, [&](const std::vector<int64_t>& index, int64_t o) {
    if (!status.ok()) return;
    if ((++visited & 4095) == 0) status = ctx.CheckCancelled();
    const int64_t out_feature = index[dn.output_feature_dimension];
    const int64_t feature_group = out_feature / p.output_features_per_fgroup;
    const int64_t batch_group = out_feature / p.output_features_per_bgroup;
    const int64_t lhs_batch = index[dn.output_batch_dimension] + batch_group * p.batch_group_size;
    const int64_t lhs_base = lhs_batch * p.lhs_strides[dn.input_batch_dimension] +
                             feature_group * p.input_features_per_group * lhs_feature_stride;
    const int64_t rhs_base = out_feature * p.rhs_strides[dn.kernel_output_feature_dimension];
    for (size_t s = 0; s < spatial; ++s) {
      const int64_t in_dim = dn.input_spatial_dimensions[s];
      ComputeTaps(p.window[s], index[dn.output_spatial_dimensions[s]], p.lhs_dims[in_dim],
                  p.lhs_strides[in_dim], p.rhs_strides[dn.kernel_spatial_dimensions[s]], &taps[s]);
    }
    T acc{};
    ForEachTap(taps, &pick, &sizes, [&](int64_t lhs_offset, int64_t rhs_offset) {
      const T* l = lhs.data() + lhs_base + lhs_offset;
      const T* r = rhs.data() + rhs_base + rhs_offset;
      for (int64_t z = 0; z < p.input_features_per_group; ++z) {
        acc += l[z * lhs_feature_stride] * r[z * rhs_feature_stride];
      }
    });
    StoreAcc(out, o, acc);
  });
  return status;
}

StatusOr<Literal> EvalConvolution(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.size() < 2) return Invalid(inst, "expects an input and a kernel");
  RETURN_IF_ERROR(CheckOperandCount(inst, operands.subspan(0, 2), 2));
  if (operands.size() > 2)
    return Invalid(inst, "quantized convolutions (extra operands) are not supported");
  ConvPlan plan;
  RETURN_IF_ERROR(PlanConvolution(inst, *operands[0], *operands[1], &plan));
  Literal result(inst.shape());
  const PrimitiveType type = result.shape().element_type();
  return WithAccumulator(inst, type, [&](auto zero) -> StatusOr<Literal> {
    using T = decltype(zero);
    const std::vector<T> lhs = LoadAll<T>(*operands[0], type);
    const std::vector<T> rhs = LoadAll<T>(*operands[1], type);
    RETURN_IF_ERROR(Convolve(plan, lhs, rhs, result, ctx));
    return std::move(result);
  });
}

// ===========================================================================
// 9. triangular-solve, cholesky
// ===========================================================================

// Checks a [..., rows, cols] operand and returns the number of matrices in its batch.
StatusOr<int64_t> MatrixBatch(const Instruction& inst, const Literal& lit, int64_t* rows,
                              int64_t* cols) {
  const std::vector<int64_t>& dims = lit.shape().dimensions();
  if (dims.size() < 2) return Invalid(inst, "operands must have rank >= 2");
  *rows = dims[dims.size() - 2];
  *cols = dims.back();
  return Product(std::vector<int64_t>(dims.begin(), dims.end() - 2));
}

StatusOr<Literal> EvalCholesky(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 1));
  const Literal& a = *operands[0];
  int64_t n = 0;
  int64_t cols = 0;
  ASSIGN_OR_RETURN(const int64_t batch, MatrixBatch(inst, a, &n, &cols));
  if (n != cols) return Invalid(inst, "operand must be square in its last two dimensions");
  RETURN_IF_ERROR(CheckArrayResult(inst, a.shape().dimensions()));
  const bool lower = inst.attrs().lower.value_or(false);
  Literal result(inst.shape());
  std::vector<Complex> l(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < batch; ++b) {
    RETURN_IF_ERROR(ctx.CheckCancelled());
    const int64_t base = b * n * n;
    // Hermitian matrix read from the chosen triangle, as its lower half.
    auto at = [&](int64_t i, int64_t j) {
      return lower ? a.GetComplex(base + i * n + j) : std::conj(a.GetComplex(base + j * n + i));
    };
    std::fill(l.begin(), l.end(), Complex{});
    for (int64_t j = 0; j < n; ++j) {
      double diag = at(j, j).real();
      for (int64_t k = 0; k < j; ++k) diag -= std::norm(l[j * n + k]);
      const double root = diag >= 0 ? std::sqrt(diag) : std::numeric_limits<double>::quiet_NaN();
      l[j * n + j] = root;
      for (int64_t i = j + 1; i < n; ++i) {
        Complex s = at(i, j);
        for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * std::conj(l[j * n + k]);
        l[i * n + j] = s / root;
      }
    }
    // Lower: L with zeros above; upper: U = L^H with zeros below.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        result.SetComplex(base + i * n + j, lower ? l[i * n + j] : std::conj(l[j * n + i]));
      }
    }
  }
  return result;
}

// Solves t x = rhs in place for a triangular k x k matrix t.
void SolveTriangularVector(const std::vector<Complex>& t, int64_t k, bool t_lower,
                           std::vector<Complex>& x) {
  if (t_lower) {
    for (int64_t i = 0; i < k; ++i) {
      Complex s = x[i];
      for (int64_t j = 0; j < i; ++j) s -= t[i * k + j] * x[j];
      x[i] = s / t[i * k + i];
    }
  } else {
    for (int64_t i = k - 1; i >= 0; --i) {
      Complex s = x[i];
      for (int64_t j = i + 1; j < k; ++j) s -= t[i * k + j] * x[j];
      x[i] = s / t[i * k + i];
    }
  }
}

StatusOr<Literal> EvalTriangularSolve(const Instruction& inst, Operands operands,
                                      EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 2));
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  int64_t k = 0;
  int64_t k_cols = 0;
  int64_t m = 0;
  int64_t n = 0;
  ASSIGN_OR_RETURN(const int64_t batch, MatrixBatch(inst, a, &k, &k_cols));
  ASSIGN_OR_RETURN(const int64_t b_batch, MatrixBatch(inst, b, &m, &n));
  const auto& attrs = inst.attrs();
  const bool left = attrs.left_side.value_or(false);
  const bool lower = attrs.lower.value_or(false);
  const bool unit = attrs.unit_diagonal.value_or(false);
  const TransposeA transpose = attrs.transpose_a.value_or(TransposeA::kNoTranspose);
  const auto& ad = a.shape().dimensions();
  const auto& bd = b.shape().dimensions();
  if (k != k_cols || batch != b_batch ||
      !std::equal(ad.begin(), ad.end() - 2, bd.begin(), bd.end() - 2) || (left ? m : n) != k) {
    return Invalid(inst, "a " + DimsToString(ad) + " and b " + DimsToString(bd) + " do not fit a " +
                             (left ? "left" : "right") + "-side solve");
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, bd));
  Literal result(inst.shape());
  std::vector<Complex> t(static_cast<size_t>(k * k));
  std::vector<Complex> x;
  for (int64_t bi = 0; bi < batch; ++bi) {
    RETURN_IF_ERROR(ctx.CheckCancelled());
    const int64_t a_base = bi * k * k;
    const int64_t b_base = bi * m * n;
    // t = op(triangle of a); op(a) is lower triangular when exactly one of `lower` and
    // "transposed" holds.
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const int64_t si = transpose == TransposeA::kNoTranspose ? i : j;
        const int64_t sj = transpose == TransposeA::kNoTranspose ? j : i;
        Complex v;
        if (si == sj && unit) {
          v = 1.0;
        } else if (lower ? si >= sj : si <= sj) {
          v = a.GetComplex(a_base + si * k + sj);
          if (transpose == TransposeA::kAdjoint) v = std::conj(v);
        }
        t[i * k + j] = v;
      }
    }
    const bool t_lower = lower == (transpose == TransposeA::kNoTranspose);
    if (left) {
      // op(a) x = b, one column of b at a time.
      x.resize(static_cast<size_t>(k));
      for (int64_t c = 0; c < n; ++c) {
        for (int64_t i = 0; i < k; ++i) x[i] = b.GetComplex(b_base + i * n + c);
        SolveTriangularVector(t, k, t_lower, x);
        for (int64_t i = 0; i < k; ++i) result.SetComplex(b_base + i * n + c, x[i]);
      }
    } else {
      // x op(a) = b  <=>  op(a)^T x^T = b^T, one row of b at a time.
      std::vector<Complex> tt(t.size());
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < k; ++j) tt[i * k + j] = t[j * k + i];
      }
      x.resize(static_cast<size_t>(k));
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t j = 0; j < k; ++j) x[j] = b.GetComplex(b_base + r * n + j);
        SolveTriangularVector(tt, k, !t_lower, x);
        for (int64_t j = 0; j < k; ++j) result.SetComplex(b_base + r * n + j, x[j]);
      }
    }
  }
  return result;
}

// ===========================================================================
// 10. fft
// ===========================================================================

// In-place DFT along `axis` of a row-major complex array: X[k] = sum_t x[t] w^(kt) with
// w = exp(-2 pi i / n) (forward) or exp(+2 pi i / n) scaled by 1/n (inverse).
void DftAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, int64_t axis,
             bool inverse) {
  const int64_t n = dims[axis];
  if (n <= 1) return;
  const int64_t stride = RowMajorStrides(dims)[axis];
  std::vector<Complex> twiddle(static_cast<size_t>(n));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t j = 0; j < n; ++j)
    twiddle[j] = std::polar(1.0, sign * 2.0 * std::numbers::pi * j / n);
  std::vector<int64_t> line_dims = dims;
  line_dims[axis] = 1;
  const std::vector<int64_t> dim_strides = RowMajorStrides(dims);
  std::vector<Complex> in(static_cast<size_t>(n));
  ForEachIndex(line_dims, [&](const std::vector<int64_t>& index, int64_t) {
    const int64_t base = LinearIndex(index, dim_strides);
    for (int64_t t = 0; t < n; ++t) in[t] = data[base + t * stride];
    for (int64_t k = 0; k < n; ++k) {
      Complex s{};
      for (int64_t t = 0; t < n; ++t) s += in[t] * twiddle[(k * t) % n];
      data[base + k * stride] = inverse ? s / static_cast<double>(n) : s;
    }
  });
}

StatusOr<Literal> EvalFft(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 1));
  const Literal& x = *operands[0];
  const auto& attrs = inst.attrs();
  const FftType fft_type = attrs.fft_type.value_or(FftType::kFft);
  const std::vector<int64_t>& lengths = attrs.fft_length;
  const std::vector<int64_t>& in_dims = x.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  const int64_t fft_rank = static_cast<int64_t>(lengths.size());
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank) {
    return Invalid(inst, "fft_length must name 1 to 3 trailing dimensions of the operand");
  }
  const int64_t first = rank - fft_rank;
  const int64_t last_len = lengths.back();
  std::vector<int64_t> out_dims = in_dims;
  bool ok = true;
  for (int64_t i = 0; i < fft_rank; ++i) {
    const int64_t d = first + i;
    const bool is_last = i == fft_rank - 1;
    switch (fft_type) {
      case FftType::kFft:
      case FftType::kIfft:
        ok = ok && in_dims[d] == lengths[i];
        break;
      case FftType::kRfft:
        ok = ok && in_dims[d] == lengths[i];
        if (is_last) out_dims[d] = lengths[i] / 2 + 1;
        break;
      case FftType::kIrfft:
        ok = ok && in_dims[d] == (is_last ? lengths[i] / 2 + 1 : lengths[i]);
        if (is_last) out_dims[d] = lengths[i];
        break;
    }
  }
  if (!ok)
    return Invalid(inst, "operand " + DimsToString(in_dims) + " does not fit fft_length " +
                             DimsToString(lengths));
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  RETURN_IF_ERROR(ctx.CheckCancelled());
  Literal result(inst.shape());
  std::vector<Complex> data(static_cast<size_t>(x.element_count()));
  for (int64_t i = 0; i < x.element_count(); ++i) data[i] = x.GetComplex(i);

  if (fft_type == FftType::kFft || fft_type == FftType::kIfft) {
    for (int64_t d = first; d < rank; ++d) DftAxis(data, in_dims, d, fft_type == FftType::kIfft);
    for (int64_t i = 0; i < result.element_count(); ++i) result.SetComplex(i, data[i]);
    return result;
  }
  if (fft_type == FftType::kRfft) {
    // Full complex transform, then keep the non-redundant half of the last axis.
    for (int64_t d = first; d < rank; ++d) DftAxis(data, in_dims, d, false);
    const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
    ForEachIndex(out_dims, [&](const std::vector<int64_t>& index, int64_t o) {
      result.SetComplex(o, data[LinearIndex(index, in_strides)]);
    });
    return result;
  }
  // irfft: inverse over the leading fft axes, then a complex-to-real inverse along the
  // last axis, filling the upper half of the spectrum by Hermitian symmetry.
  for (int64_t d = first; d < rank - 1; ++d) DftAxis(data, in_dims, d, true);
  const int64_t half = in_dims.back();
  const int64_t rows = x.element_count() / std::max<int64_t>(half, 1);
  std::vector<Complex> full(static_cast<size_t>(last_len));
  std::vector<Complex> twiddle(static_cast<size_t>(last_len));
  for (int64_t j = 0; j < last_len; ++j)
    twiddle[j] = std::polar(1.0, 2.0 * std::numbers::pi * j / last_len);
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t kk = 0; kk < last_len; ++kk) {
      full[kk] = kk < half ? data[row * half + kk] : std::conj(data[row * half + (last_len - kk)]);
    }
    for (int64_t t = 0; t < last_len; ++t) {
      Complex s{};
      for (int64_t kk = 0; kk < last_len; ++kk) s += full[kk] * twiddle[(kk * t) % last_len];
      result.SetDouble(row * last_len + t, s.real() / static_cast<double>(last_len));
    }
  }
  return result;
}

// ===========================================================================
// 11. batch-norm
// ===========================================================================

struct FeatureLayout {
  int64_t feature_index = 0;
  int64_t features = 0;
  int64_t stride = 1;       // row-major stride of the feature dimension
  int64_t per_feature = 0;  // elements per feature
  int64_t Feature(int64_t linear) const { return (linear / stride) % features; }
};

StatusOr<FeatureLayout> GetFeatureLayout(const Instruction& inst, const Literal& x) {
  const auto& dims = x.shape().dimensions();
  const int64_t f = inst.attrs().feature_index;
  if (f < 0 || f >= static_cast<int64_t>(dims.size())) {
    return Invalid(
        inst, "feature_index " + Str(f) + " is out of range for operand " + DimsToString(dims));
  }
  if (!inst.attrs().epsilon) return Invalid(inst, "missing epsilon");
  FeatureLayout layout;
  layout.feature_index = f;
  layout.features = dims[f];
  layout.stride = RowMajorStrides(dims)[f];
  layout.per_feature = layout.features == 0 ? 0 : x.element_count() / layout.features;
  return layout;
}

Status CheckFeatureVector(const Instruction& inst, const Literal& v, const FeatureLayout& layout,
                          const char* what) {
  if (v.shape().dimensions() != std::vector<int64_t>{layout.features}) {
    return Invalid(
        inst, std::string(what) + " must be a vector of " + Str(layout.features) + " features");
  }
  return Status::Ok();
}

// Per-feature means of f(i) over the operand, in row-major order.
template <typename Fn>
std::vector<double> FeatureMeans(const FeatureLayout& layout, int64_t count, Fn&& f) {
  std::vector<double> sum(static_cast<size_t>(layout.features), 0.0);
  for (int64_t i = 0; i < count; ++i) sum[layout.Feature(i)] += f(i);
  for (double& s : sum) s /= static_cast<double>(layout.per_feature);
  return sum;
}

StatusOr<Literal> EvalBatchNormInference(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 5));
  const Literal& x = *operands[0];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  const char* names[] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i)
    RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[i + 1], layout, names[i]));
  RETURN_IF_ERROR(CheckArrayResult(inst, x.shape().dimensions()));
  const double eps = *inst.attrs().epsilon;
  Literal result(inst.shape());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const int64_t f = layout.Feature(i);
    const double normalized =
        (x.GetDouble(i) - operands[3]->GetDouble(f)) / std::sqrt(operands[4]->GetDouble(f) + eps);
    result.SetDouble(i, normalized * operands[1]->GetDouble(f) + operands[2]->GetDouble(f));
  }
  return result;
}

Status CheckTupleResult(const Instruction& inst, const std::vector<std::vector<int64_t>>& dims) {
  const Shape& shape = inst.shape();
  bool ok = shape.IsTuple() && shape.tuple_size() == static_cast<int64_t>(dims.size());
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    ok = shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).dimensions() == dims[i];
  }
  if (!ok)
    return Invalid(inst, "result shape " + shape.ToString(false) + " is not the expected tuple");
  return Status::Ok();
}

StatusOr<Literal> EvalBatchNormTraining(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 3));
  const Literal& x = *operands[0];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[1], layout, "scale"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[2], layout, "offset"));
  RETURN_IF_ERROR(
      CheckTupleResult(inst, {x.shape().dimensions(), {layout.features}, {layout.features}}));
  const double eps = *inst.attrs().epsilon;
  const int64_t count = x.element_count();
  const std::vector<double> mean =
      FeatureMeans(layout, count, [&](int64_t i) { return x.GetDouble(i); });
  const std::vector<double> var = FeatureMeans(layout, count, [&](int64_t i) {
    const double d = x.GetDouble(i) - mean[layout.Feature(i)];
    return d * d;
  });
  Literal result(inst.shape());
  Literal& y = result.tuple_elements()[0];
  for (int64_t i = 0; i < count; ++i) {
    const int64_t f = layout.Feature(i);
    const double normalized = (x.GetDouble(i) - mean[f]) / std::sqrt(var[f] + eps);
    y.SetDouble(i, normalized * operands[1]->GetDouble(f) + operands[2]->GetDouble(f));
  }
  for (int64_t f = 0; f < layout.features; ++f) {
    result.tuple_elements()[1].SetDouble(f, mean[f]);
    result.tuple_elements()[2].SetDouble(f, var[f]);
  }
  return result;
}

StatusOr<Literal> EvalBatchNormGrad(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 5));
  const Literal& x = *operands[0];
  const Literal& scale = *operands[1];
  const Literal& mean = *operands[2];
  const Literal& var = *operands[3];
  const Literal& dy = *operands[4];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  RETURN_IF_ERROR(CheckFeatureVector(inst, scale, layout, "scale"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, mean, layout, "mean"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, var, layout, "variance"));
  if (dy.shape().dimensions() != x.shape().dimensions()) {
    return Invalid(inst, "grad_output must have the operand's dimensions");
  }
  RETURN_IF_ERROR(
      CheckTupleResult(inst, {x.shape().dimensions(), {layout.features}, {layout.features}}));
  const double eps = *inst.attrs().epsilon;
  const int64_t count = x.element_count();
  // With xc = x - mean and s = sqrt(var + eps):
  //   grad_offset = sum(dy), grad_scale = sum(dy * xc) / s,
  //   grad_x = scale / s * (dy - mean(dy) - xc * mean(dy * xc) / (var + eps)).
  const std::vector<double> mean_dy =
      FeatureMeans(layout, count, [&](int64_t i) { return dy.GetDouble(i); });
  const std::vector<double> mean_dy_xc = FeatureMeans(layout, count, [&](int64_t i) {
    return dy.GetDouble(i) * (x.GetDouble(i) - mean.GetDouble(layout.Feature(i)));
  });
  Literal result(inst.shape());
  Literal& dx = result.tuple_elements()[0];
  for (int64_t i = 0; i < count; ++i) {
    const int64_t f = layout.Feature(i);
    const double v = var.GetDouble(f) + eps;
    const double xc = x.GetDouble(i) - mean.GetDouble(f);
    dx.SetDouble(i, scale.GetDouble(f) / std::sqrt(v) *
                        (dy.GetDouble(i) - mean_dy[f] - xc * mean_dy_xc[f] / v));
  }
  const double n = static_cast<double>(layout.per_feature);
  for (int64_t f = 0; f < layout.features; ++f) {
    const double s = std::sqrt(var.GetDouble(f) + eps);
    result.tuple_elements()[1].SetDouble(f, mean_dy_xc[f] * n / s);
    result.tuple_elements()[2].SetDouble(f, mean_dy[f] * n);
  }
  return result;
}

}  // namespace

// ===========================================================================
// 12. Dispatch
// ===========================================================================

StatusOr<Literal> EvalReductionAndLinalg(const Instruction& inst, Operands operands,
                                         EvalContext& ctx) {
  switch (inst.opcode()) {
    case Opcode::kReduce:
      return EvalReduce(inst, operands, ctx);
    case Opcode::kReduceWindow:
      return EvalReduceWindow(inst, operands, ctx);
    case Opcode::kSelectAndScatter:
      return EvalSelectAndScatter(inst, operands, ctx);
    case Opcode::kMap:
      return EvalMap(inst, operands, ctx);
    case Opcode::kDot:
      return EvalDot(inst, operands, ctx);
    case Opcode::kConvolution:
      return EvalConvolution(inst, operands, ctx);
    case Opcode::kTriangularSolve:
      return EvalTriangularSolve(inst, operands, ctx);
    case Opcode::kCholesky:
      return EvalCholesky(inst, operands, ctx);
    case Opcode::kFft:
      return EvalFft(inst, operands, ctx);
    case Opcode::kBatchNormInference:
      return EvalBatchNormInference(inst, operands);
    case Opcode::kBatchNormTraining:
      return EvalBatchNormTraining(inst, operands);
    case Opcode::kBatchNormGrad:
      return EvalBatchNormGrad(inst, operands);
    default:
      return NotMine();
  }
}

}  // namespace fusebox
