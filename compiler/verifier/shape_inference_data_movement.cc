// Shape inference for data movement: broadcast, reshape, transpose, slices,
// concatenate, pad, iota, reverse.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferBroadcast(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Shape& out = ins.shape();
  RETURN_IF_ERROR(ExpectArray(x, "the broadcast operand"));
  if (!out.IsArray()) return Invalid("broadcast must produce an array, declared ", Str(out));
  const std::vector<int64_t>& dims = ins.dimensions();
  if (static_cast<int64_t>(dims.size()) != x.rank()) {
    return Invalid("broadcast dimensions=", DimList(dims), " has ", dims.size(),
                   " entries but the operand ", Str(x), " has rank ", x.rank());
  }
  RETURN_IF_ERROR(CheckDimensionList(dims, out.rank(), "broadcast dimensions="));
  for (int64_t i = 0; i < x.rank(); ++i) {
    int64_t o = out.dimensions(dims[i]);
    if (x.dimensions(i) != o && x.dimensions(i) != kUnboundedSize && o != kUnboundedSize) {
      return Invalid("broadcast operand dimension ", i, " (size ", x.dimensions(i),
                     ") maps to result dimension ", dims[i], " (size ", o, "): ", Str(x), " vs ",
                     Str(out));
    }
  }
  return WithType(out, x.element_type());
}

StatusOr<Shape> InferReshape(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Shape& out = ins.shape();
  RETURN_IF_ERROR(ExpectArray(x, "the reshape operand"));
  if (!out.IsArray()) return Invalid("reshape must produce an array, declared ", Str(out));
  if (x.is_dynamic() || out.is_dynamic()) return WithType(out, x.element_type());
  if (x.ElementCount() < 0 || out.ElementCount() < 0) {
    return Invalid("reshape element count overflows: ", Str(x), " to ", Str(out));
  }
  if (x.ElementCount() != out.ElementCount()) {
    return Invalid("reshape changes the element count: ", Str(x), " has ", x.ElementCount(),
                   " elements but ", Str(out), " has ", out.ElementCount());
  }
  return WithType(out, x.element_type());
}

StatusOr<Shape> InferTranspose(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the transpose operand"));
  const std::vector<int64_t>& perm = ins.dimensions();
  if (static_cast<int64_t>(perm.size()) != x.rank()) {
    return Invalid("transpose dimensions=", DimList(perm), " is not a permutation of rank ",
                   x.rank(), " (operand ", Str(x), ")");
  }
  RETURN_IF_ERROR(CheckDimensionList(perm, x.rank(), "transpose dimensions="));
  Shape out = NoLayout(x);
  for (int64_t i = 0; i < x.rank(); ++i) {
    out.set_dimension(i, x.dimensions(perm[i]));
    out.set_dynamic_dimension(i, x.is_dynamic_dimension(perm[i]));
  }
  return out;
}

StatusOr<Shape> InferSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the slice operand"));
  const auto& slice = ins.attrs().slice;
  if (static_cast<int64_t>(slice.size()) != x.rank()) {
    return Invalid("slice has ", slice.size(), " dimension(s) but the operand ", Str(x),
                   " has rank ", x.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const SliceDimension& s = slice[i];
    if (s.stride <= 0)
      return Invalid("slice stride ", s.stride, " in dimension ", i, " is not positive");
    if (s.start < 0 || s.limit < s.start || s.limit > x.dimensions(i)) {
      return Invalid("slice [", s.start, ":", s.limit, "] is out of range for dimension ", i,
                     " of ", Str(x));
    }
    const int64_t span = s.limit - s.start;
    dims.push_back(span == 0 ? 0 : (span - 1) / s.stride + 1);
  }
  return Shape(x.element_type(), dims);
}

Status CheckIndexOperands(const Instruction& ins, int64_t first, int64_t rank) {
  const int64_t count = ins.operand_count() - first;
  if (count == 1 && rank != 1 && OperandShape(ins, first).rank() == 1) {
    // The old single-vector form of start indices.
    const Shape& v = OperandShape(ins, first);
    if (!IsInteger(v.element_type()) || v.dimensions(0) != rank) {
      return Invalid(OpcodeName(ins.opcode()), " start index vector ", Str(v),
                     " must be an integer vector of ", rank, " elements");
    }
    return Status::Ok();
  }
  if (count != rank) {
    return Invalid(OpcodeName(ins.opcode()), " needs ", rank,
                   " start indices (one per dimension), got ", count);
  }
  for (int64_t i = first; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    if (!s.IsScalar() || !IsInteger(s.element_type())) {
      return Invalid(OpcodeName(ins.opcode()), " start index ", i - first,
                     " must be an integer scalar, got ", Str(s));
    }
  }
  return Status::Ok();
}

StatusOr<Shape> InferDynamicSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the dynamic-slice operand"));
  RETURN_IF_ERROR(CheckIndexOperands(ins, 1, x.rank()));
  const auto& sizes = ins.attrs().dynamic_slice_sizes;
  if (static_cast<int64_t>(sizes.size()) != x.rank()) {
    return Invalid("dynamic_slice_sizes=", DimList(sizes), " must have ", x.rank(),
                   " entries for operand ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (sizes[i] < 0 || sizes[i] > x.dimensions(i)) {
      return Invalid("dynamic_slice_sizes=", DimList(sizes), " exceeds operand ", Str(x),
                     " in dimension ", i);
    }
  }
  return Shape(x.element_type(), sizes);
}

StatusOr<Shape> InferDynamicUpdateSlice(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& update = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the dynamic-update-slice operand"));
  RETURN_IF_ERROR(ExpectArray(update, "the dynamic-update-slice update"));
  RETURN_IF_ERROR(CheckIndexOperands(ins, 2, x.rank()));
  if (update.rank() != x.rank()) {
    return Invalid("dynamic-update-slice update ", Str(update), " must have the rank of ", Str(x));
  }
  if (!SameTypeIgnoringFpPrecision(update.element_type(), x.element_type())) {
    return Invalid("dynamic-update-slice update ", Str(update),
                   " has a different element type than ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (update.dimensions(i) > x.dimensions(i)) {
      return Invalid("dynamic-update-slice update ", Str(update), " is larger than the operand ",
                     Str(x), " in dimension ", i);
    }
  }
  return NoLayout(x);
}

StatusOr<Shape> InferConcatenate(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandsAtLeast(ins, 1));
  const std::vector<int64_t>& dims = ins.dimensions();
  if (dims.size() != 1)
    return Invalid("concatenate needs one dimension, got dimensions=", DimList(dims));
  const Shape& first = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(first, "concatenate operand 0"));
  const int64_t d = dims[0];
  if (d < 0 || d >= first.rank()) {
    return Invalid("concatenate dimension ", d, " is out of range for ", Str(first));
  }
  Shape out = NoLayout(first);
  int64_t total = 0;
  for (int64_t i = 0; i < ins.operand_count(); ++i) {
    const Shape& s = OperandShape(ins, i);
    RETURN_IF_ERROR(ExpectArray(s, "a concatenate operand"));
    if (s.rank() != first.rank()) {
      return Invalid("concatenate operands have different ranks: ", Str(first), " and ", Str(s));
    }
    if (s.element_type() != first.element_type()) {
      return Invalid("concatenate operands have different element types: ", Str(first), " and ",
                     Str(s));
    }
    for (int64_t j = 0; j < s.rank(); ++j) {
      if (j != d && s.dimensions(j) != first.dimensions(j)) {
        return Invalid("concatenate operands differ in dimension ", j,
                       " other than the concatenated dimension ", d, ": ", Str(first), " and ",
                       Str(s));
      }
    }
    ASSIGN_OR_RETURN(total, Add(total, s.dimensions(d)));
  }
  out.set_dimension(d, total);
  return out;
}

StatusOr<Shape> InferPad(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& value = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the pad operand"));
  RETURN_IF_ERROR(ExpectScalar(value, "the padding value"));
  if (value.element_type() != x.element_type()) {
    return Invalid("pad value ", Str(value), " has a different element type than ", Str(x));
  }
  const auto& padding = ins.attrs().padding;
  if (static_cast<int64_t>(padding.size()) != x.rank()) {
    return Invalid("padding=", PaddingToString(padding), " has ", padding.size(),
                   " dimension(s) but the operand ", Str(x), " has rank ", x.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    const PaddingDimension& p = padding[i];
    if (p.interior < 0) return Invalid("pad interior padding ", p.interior, " is negative");
    const int64_t n = x.dimensions(i);
    ASSIGN_OR_RETURN(int64_t interior, Mul(p.interior, std::max<int64_t>(n - 1, 0)));
    ASSIGN_OR_RETURN(int64_t edges, Add(p.low, p.high));
    ASSIGN_OR_RETURN(int64_t inner, Add(n, interior));
    ASSIGN_OR_RETURN(int64_t size, Add(edges, inner));
    if (size < 0) {
      return Invalid("padding=", PaddingToString(padding), " makes dimension ", i, " of ", Str(x),
                     " negative (", size, ")");
    }
    dims.push_back(size);
  }
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferIota(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 0));
  const Shape& out = ins.shape();
  if (!out.IsArray() || out.rank() == 0) {
    return Invalid("iota must produce an array of rank >= 1, declared ", Str(out));
  }
  const int64_t d = ins.attrs().iota_dimension;
  if (d < 0 || d >= out.rank()) {
    return Invalid("iota_dimension=", d, " is out of range for ", Str(out));
  }
  return NoLayout(out);
}

StatusOr<Shape> InferReverse(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the reverse operand"));
  RETURN_IF_ERROR(CheckDimensionList(ins.dimensions(), x.rank(), "reverse dimensions="));
  return NoLayout(x);
}

}  // namespace fusebox::shape_inference_internal
