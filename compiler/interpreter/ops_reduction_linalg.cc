// Reference evaluation of the reduction and linear-algebra ops: reduce, reduce-window,
// select-and-scatter, map, dot, convolution, triangular-solve, cholesky, fft and the
// batch-norm ops, with XLA's semantics and a fixed, documented accumulation order.
//
// This file holds the reductions and the dispatcher; dot and convolution are in
// ops_dot_conv.cc, triangular-solve, cholesky, fft and batch-norm in ops_linalg.cc, and
// the helpers they share (errors, element copies, rounding, windows) in
// reduction_linalg_internal.h.
//
// Sections:
//   1. Helpers of the reductions: scalar computations, folds, window walks
//   2. reduce
//   3. reduce-window
//   4. select-and-scatter
//   5. map
//   6. Dispatch
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
#include "compiler/interpreter/reduction_linalg_internal.h"
#include "compiler/interpreter/ops.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"

namespace fusebox::interpreter {

using namespace reduction_linalg_internal;  // NOLINT(build/namespaces): the shared helpers

namespace {

// ===========================================================================
// 1. Helpers of the reductions
// ===========================================================================

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
          ASSIGN_OR_RETURN(const Literal* r, ctx.CallInPlace(*to_apply, arg_ptrs));
          for (int64_t i = 0; i < n; ++i) {
            ASSIGN_OR_RETURN(const Literal* value, CallResult(inst, *r, i, n));
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
        StatusOr<const Literal*> r = ctx.CallInPlace(*to_apply, arg_ptrs);
        if (!r.ok()) {
          status = r.status();
          return;
        }
        for (int64_t i = 0; i < n; ++i) {
          StatusOr<const Literal*> value = CallResult(inst, **r, i, n);
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
        StatusOr<const Literal*> r = ctx.CallInPlace(*select, select_args);
        if (!r.ok()) {
          status = r.status();
          return;
        }
        if (!(*r)->shape().IsArray() || (*r)->element_count() != 1) {
          status = Invalid(inst, "select must return a scalar pred");
          return;
        }
        keep = (*r)->GetBool(0);
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
      StatusOr<const Literal*> r = ctx.CallInPlace(*scatter, scatter_args);
      if (!r.ok()) {
        status = r.status();
        return;
      }
      StatusOr<const Literal*> value = CallResult(inst, **r, 0, 1);
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
    ASSIGN_OR_RETURN(const Literal* r, ctx.CallInPlace(*to_apply, arg_ptrs));
    ASSIGN_OR_RETURN(const Literal* value, CallResult(inst, *r, 0, 1));
    CopyElement(*value, 0, result, i);
  }
  return result;
}
}  // namespace

// ===========================================================================
// 6. Dispatch
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
    case Opcode::kRaggedDot:
      return EvalRaggedDot(inst, operands, ctx);
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

}  // namespace fusebox::interpreter
