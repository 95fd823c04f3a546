// Data-movement ops of the reference interpreter: broadcast, reshape, bitcast, transpose,
// copy, slice, dynamic-slice, dynamic-update-slice, concatenate, pad, iota, reverse,
// gather, scatter, sort, topk, get-dimension-size and set-dimension-size.
//
// Elements are moved as raw slots (Literal's one-slot-per-element storage), never
// converted, so every element type (sub-byte, bf16, f8, complex, pred) moves bit-exactly
// and NaN payloads survive. Only iota, scatter's combiner and sort/topk keys look at
// values. The shared helpers and the slot-copy kernel are in data_movement_internal.h;
// gather and scatter are in ops_gather_scatter.cc, sort and topk in ops_sort.cc.
//
// Sections:
//   1. copy, reshape, bitcast, get/set-dimension-size
//   2. broadcast, transpose, reverse, slice, dynamic-slice, dynamic-update-slice,
//      concatenate, pad, iota
//   3. Dispatch
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/interpreter/data_movement_internal.h"
#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/ops.h"
#include "compiler/support/strings.h"

namespace fusebox::interpreter {

using namespace data_movement_internal;  // NOLINT(build/namespaces): the shared helpers

namespace {

// ---------------------------------------------------------------------------
// 1. copy, reshape, bitcast, get/set-dimension-size

StatusOr<Literal> EvalCopy(const Instruction& inst, Operands operands) {
  if (operands.empty()) return Error(inst, "expected 1 operand");
  if (!operands[0]->shape().IsArray()) return Literal(*operands[0]);  // tuple copy
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, *operands[0], result));
  if (result.element_count() != operands[0]->element_count()) {
    return Error(inst, "operand " + operands[0]->shape().ToString(false) +
                           " and result differ in element count");
  }
  CopyAll(*operands[0], &result);
  return result;
}

// reshape: row-major element order is kept, so the slots are copied as they are.
StatusOr<Literal> EvalReshape(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, *operands[0], result));
  if (result.element_count() != operands[0]->element_count()) {
    return Error(inst, "cannot reshape " + operands[0]->shape().ToString(false) + " to " +
                           inst.shape().ToString(false) + ": element counts differ");
  }
  CopyAll(*operands[0], &result);
  return result;
}

// Dimension numbers from most major to most minor in `shape`'s layout (the default
// layout when it has none).
Dims MajorToMinor(const Shape& shape) {
  Dims order(static_cast<size_t>(shape.rank()));
  std::iota(order.begin(), order.end(), 0);
  if (!shape.has_layout()) return order;
  const Dims& m2m = shape.layout().minor_to_major;
  if (!IsPermutation(m2m, shape.rank())) return order;
  return Dims(m2m.rbegin(), m2m.rend());
}

bool IsIdentity(const Dims& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// bitcast reinterprets the operand's physical bytes as the result. Literals hold logical
// row-major data, so when the shapes carry layouts the copy goes logical operand ->
// physical order (operand layout) -> logical result (result layout); with default or
// absent layouts this is a reshape. Tiles and other layout decorations are ignored (the
// untiled dimension order is used). A bitcast that changes the element width is only
// supported when both layouts are the default one (then bytes are copied in order).
StatusOr<Literal> EvalBitcast(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  const Dims in_order = MajorToMinor(inst.operand(0)->shape());
  const Dims out_order = MajorToMinor(inst.shape());
  const bool default_layouts = IsIdentity(in_order) && IsIdentity(out_order);
  if (operand.size_bytes() != result.size_bytes() ||
      (operand.slot_bytes() != result.slot_bytes() &&
       (BitWidth(operand.shape().element_type()) < 8 ||
        BitWidth(result.shape().element_type()) < 8))) {
    return Error(inst, "cannot bitcast " + operand.shape().ToString(false) + " to " +
                           inst.shape().ToString(false) + ": sizes differ");
  }
  if (default_layouts) {
    CopyAll(operand, &result);
    return result;
  }
  if (operand.slot_bytes() != result.slot_bytes()) {
    return Unimplemented("bitcast: changing the element width under a non-default layout (" +
                         inst.operand(0)->shape().ToString() + " to " + inst.shape().ToString() +
                         ") is not supported");
  }
  // Step 1: the operand's bytes in physical order (a transpose to major-to-minor order).
  const Dims& in_dims = DimsOf(operand);
  const Dims in_strides = RowMajorStrides(in_dims);
  Literal physical_storage;
  const Literal* physical = &operand;
  if (!IsIdentity(in_order)) {
    Dims phys_dims, src_strides;
    for (int64_t d : in_order) {
      phys_dims.push_back(in_dims[d]);
      src_strides.push_back(in_strides[d]);
    }
    physical_storage = Literal(Shape(operand.shape().element_type(), phys_dims));
    CopyBlock(operand, 0, src_strides, &physical_storage, 0, RowMajorStrides(phys_dims), phys_dims);
    physical = &physical_storage;
  }
  // Step 2: read the result's logical elements from those bytes through its layout.
  const Dims& out_dims = DimsOf(result);
  Dims out_phys_dims;
  for (int64_t d : out_order) out_phys_dims.push_back(out_dims[d]);
  const Dims phys_strides = RowMajorStrides(out_phys_dims);
  Dims src_strides(out_dims.size());
  for (size_t q = 0; q < out_order.size(); ++q) src_strides[out_order[q]] = phys_strides[q];
  BlockCopy copy(result.slot_bytes(), out_dims, src_strides, RowMajorStrides(out_dims));
  copy.Run(physical->untyped_data(), 0, result.untyped_data(), 0);
  return result;
}

StatusOr<Literal> EvalGetDimensionSize(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Dims& dims = inst.dimensions();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operands[0]->shape().rank()) {
    return Error(inst, "dimensions must name one dimension of the operand");
  }
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  if (result.element_count() != 1) return Error(inst, "result must be a scalar");
  result.SetInt64(0, operands[0]->shape().dimensions(dims[0]));
  return result;
}

// set-dimension-size: dynamic sizes are not modelled; the result holds the operand's
// full (bound-sized) data, and elements past the dynamic size keep their values.
StatusOr<Literal> EvalSetDimensionSize(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  RETURN_IF_ERROR(CheckSameType(inst, *operands[0], result));
  if (result.element_count() != operands[0]->element_count()) {
    return Error(inst, "result and operand bounds differ");
  }
  CopyAll(*operands[0], &result);
  return result;
}

// ---------------------------------------------------------------------------
// 2. broadcast, transpose, reverse, slice, dynamic-slice, dynamic-update-slice,
//    concatenate, pad, iota

// broadcast: operand dim i becomes result dim dimensions[i]; other result dims repeat
// (source stride 0).
StatusOr<Literal> EvalBroadcast(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  const Dims& map = inst.dimensions();
  const Dims& in_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  if (map.size() != in_dims.size()) {
    return Error(inst, "dimensions has " + std::to_string(map.size()) +
                           " entries but the operand has rank " + std::to_string(in_dims.size()));
  }
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims src_strides(out_dims.size(), 0);
  for (size_t i = 0; i < map.size(); ++i) {
    const int64_t d = map[i];
    if (d < 0 || d >= static_cast<int64_t>(out_dims.size()) ||
        (in_dims[i] != out_dims[d] && in_dims[i] != 1)) {
      return Error(inst, "operand dim " + std::to_string(i) + " (size " +
                             std::to_string(in_dims[i]) + ") does not fit result dim " +
                             std::to_string(d) + " of " + DimsText(out_dims));
    }
    if (in_dims[i] != 1) src_strides[d] = in_strides[i];
  }
  CopyBlock(operand, 0, src_strides, &result, 0, RowMajorStrides(out_dims), out_dims);
  return result;
}

// transpose: result dim i is operand dim dimensions[i].
StatusOr<Literal> EvalTranspose(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  const Dims& perm = inst.dimensions();
  const Dims& in_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  if (!IsPermutation(perm, operand.shape().rank()) || out_dims.size() != in_dims.size()) {
    return Error(inst, "dimensions {" + Join(perm, ",") + "} is not a permutation of rank " +
                           std::to_string(in_dims.size()));
  }
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims src_strides(out_dims.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (out_dims[i] != in_dims[perm[i]]) {
      return Error(inst, "result " + DimsText(out_dims) + " is not operand " + DimsText(in_dims) +
                             " permuted");
    }
    src_strides[i] = in_strides[perm[i]];
  }
  CopyBlock(operand, 0, src_strides, &result, 0, RowMajorStrides(out_dims), out_dims);
  return result;
}

StatusOr<Literal> EvalReverse(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  const Dims& dims = DimsOf(operand);
  if (DimsOf(result) != dims) return Error(inst, "result and operand dimensions differ");
  const Dims strides = RowMajorStrides(dims);
  Dims src_strides = strides;
  int64_t src_offset = 0;
  for (int64_t d : inst.dimensions()) {
    if (d < 0 || d >= static_cast<int64_t>(dims.size())) {
      return Error(inst, "dimension " + std::to_string(d) + " is out of range");
    }
    if (src_strides[d] < 0) continue;  // listed twice
    src_strides[d] = -strides[d];
    src_offset += (dims[d] > 0 ? dims[d] - 1 : 0) * strides[d];
  }
  CopyBlock(operand, src_offset, src_strides, &result, 0, strides, dims);
  return result;
}

StatusOr<Literal> EvalSlice(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst, Zeroed::kNo));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  const std::vector<SliceDimension>& slice = inst.attrs().slice;
  const Dims& in_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  if (slice.size() != in_dims.size() || out_dims.size() != in_dims.size()) {
    return Error(inst, "slice has " + std::to_string(slice.size()) +
                           " dimensions but the operand has rank " +
                           std::to_string(in_dims.size()));
  }
  const Dims in_strides = RowMajorStrides(in_dims);
  Dims src_strides(in_dims.size());
  int64_t src_offset = 0;
  for (size_t d = 0; d < slice.size(); ++d) {
    const SliceDimension& s = slice[d];
    if (s.start < 0 || s.start > s.limit || s.limit > in_dims[d] || s.stride < 1 ||
        out_dims[d] != (s.limit - s.start + s.stride - 1) / s.stride) {
      return Error(inst, "slice [" + std::to_string(s.start) + ":" + std::to_string(s.limit) + ":" +
                             std::to_string(s.stride) + "] does not fit dim " + std::to_string(d) +
                             " of " + DimsText(in_dims) + " -> " + DimsText(out_dims));
    }
    src_strides[d] = in_strides[d] * s.stride;
    src_offset += s.start * in_strides[d];
  }
  CopyBlock(operand, src_offset, src_strides, &result, 0, RowMajorStrides(out_dims), out_dims);
  return result;
}

// Start indices of dynamic-slice / dynamic-update-slice from operands[first...]: one
// scalar per dimension (or, in the old form, a single rank-1 array), each clamped into
// [0, dim - size] as XLA does, so the slice always lies inside the operand.
StatusOr<Dims> ClampedStarts(const Instruction& inst, Operands operands, size_t first,
                             const Dims& dims, const Dims& sizes) {
  const size_t rank = dims.size();
  Dims starts(rank, 0);
  const size_t given = operands.size() - std::min(first, operands.size());
  if (given == 1 && operands[first]->shape().rank() == 1 && rank != 0 &&
      operands[first]->element_count() == static_cast<int64_t>(rank)) {
    RETURN_IF_ERROR(CheckIndexType(inst, *operands[first], "start indices"));
    for (size_t d = 0; d < rank; ++d) starts[d] = ReadIndex(*operands[first], d);
  } else {
    if (given != rank) {
      return Error(inst, "expected " + std::to_string(rank) + " start indices, got " +
                             std::to_string(given));
    }
    for (size_t d = 0; d < rank; ++d) {
      const Literal& index = *operands[first + d];
      if (index.element_count() != 1 || index.shape().rank() != 0) {
        return Error(inst, "start index " + std::to_string(d) + " must be a scalar");
      }
      RETURN_IF_ERROR(CheckIndexType(inst, index, "start indices"));
      starts[d] = ReadIndex(index, 0);
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0 || sizes[d] > dims[d]) {
      return Error(inst, "slice size " + DimsText(sizes) + " does not fit in " + DimsText(dims));
    }
    starts[d] = Clamp(starts[d], 0, dims[d] - sizes[d]);
  }
  return starts;
}

StatusOr<Literal> EvalDynamicSlice(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  const Dims& in_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  const Dims& sizes = inst.attrs().dynamic_slice_sizes;
  if (out_dims.size() != in_dims.size() || (!sizes.empty() && sizes != out_dims)) {
    return Error(inst, "result " + DimsText(out_dims) + " does not match dynamic_slice_sizes " +
                           DimsText(sizes) + " of operand " + DimsText(in_dims));
  }
  ASSIGN_OR_RETURN(Dims starts, ClampedStarts(inst, operands, 1, in_dims, out_dims));
  const Dims in_strides = RowMajorStrides(in_dims);
  CopyBlock(operand, LinearIndex(starts, in_strides), in_strides, &result, 0,
            RowMajorStrides(out_dims), out_dims);
  return result;
}

StatusOr<Literal> EvalDynamicUpdateSlice(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 1));
  const Literal& operand = *operands[0];
  const Literal& update = *operands[1];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  RETURN_IF_ERROR(CheckSameType(inst, update, result));
  const Dims& dims = DimsOf(operand);
  const Dims& update_dims = DimsOf(update);
  if (DimsOf(result) != dims || update_dims.size() != dims.size()) {
    return Error(inst,
                 "update " + DimsText(update_dims) + " does not fit operand " + DimsText(dims));
  }
  ASSIGN_OR_RETURN(Dims starts, ClampedStarts(inst, operands, 2, dims, update_dims));
  CopyAll(operand, &result);
  const Dims strides = RowMajorStrides(dims);
  CopyBlock(update, 0, RowMajorStrides(update_dims), &result, LinearIndex(starts, strides), strides,
            update_dims);
  return result;
}

StatusOr<Literal> EvalConcatenate(const Instruction& inst, Operands operands) {
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  const Dims& out_dims = DimsOf(result);
  const Dims& dimensions = inst.dimensions();
  if (dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= static_cast<int64_t>(out_dims.size())) {
    return Error(inst, "dimensions must name one dimension of the result");
  }
  const int64_t axis = dimensions[0];
  const Dims out_strides = RowMajorStrides(out_dims);
  int64_t offset = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(CheckArrayOperand(inst, operands, i));
    const Literal& operand = *operands[i];
    RETURN_IF_ERROR(CheckSameType(inst, operand, result));
    const Dims& dims = DimsOf(operand);
    bool fits = dims.size() == out_dims.size() && offset + dims[axis] <= out_dims[axis];
    for (size_t d = 0; fits && d < dims.size(); ++d) {
      if (static_cast<int64_t>(d) != axis && dims[d] != out_dims[d]) fits = false;
    }
    if (!fits) {
      return Error(inst, "operand " + std::to_string(i) + " " + DimsText(dims) +
                             " does not fit result " + DimsText(out_dims) + " along dimension " +
                             std::to_string(axis));
    }
    CopyBlock(operand, 0, RowMajorStrides(dims), &result, offset * out_strides[axis], out_strides,
              dims);
    offset += dims[axis];
  }
  if (offset != out_dims[axis]) {
    return Error(inst, "operands cover " + std::to_string(offset) + " of " +
                           std::to_string(out_dims[axis]) + " elements along dimension " +
                           std::to_string(axis));
  }
  return result;
}

// pad: operand element i of a dim lands at low + i * (interior + 1). Negative low/high
// crop: only the operand elements landing inside the result are copied.
StatusOr<Literal> EvalPad(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 1));
  const Literal& operand = *operands[0];
  const Literal& pad_value = *operands[1];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  RETURN_IF_ERROR(CheckSameType(inst, pad_value, result));
  if (pad_value.element_count() != 1) return Error(inst, "the padding value must be a scalar");
  const std::vector<PaddingDimension>& padding = inst.attrs().padding;
  const Dims& in_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  if (padding.size() != in_dims.size() || out_dims.size() != in_dims.size()) {
    return Error(inst, "padding has " + std::to_string(padding.size()) +
                           " dimensions but the operand has rank " +
                           std::to_string(in_dims.size()));
  }
  FillWith(pad_value, &result);
  const Dims in_strides = RowMajorStrides(in_dims);
  const Dims out_strides = RowMajorStrides(out_dims);
  Dims block(in_dims.size()), dst_strides(in_dims.size());
  int64_t src_offset = 0, dst_offset = 0;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    const PaddingDimension& p = padding[d];
    const int64_t n = in_dims[d];
    const int64_t step = p.interior + 1;
    if (p.interior < 0 ||
        out_dims[d] != p.low + p.high + n + std::max<int64_t>(n - 1, 0) * p.interior) {
      return Error(inst, "padding " + PaddingToString(padding) + " of " + DimsText(in_dims) +
                             " does not give " + DimsText(out_dims));
    }
    // Operand elements [first, last) land inside the result.
    const int64_t first = p.low >= 0 ? 0 : (-p.low + step - 1) / step;
    const int64_t room = out_dims[d] - 1 - p.low;
    const int64_t last = room < 0 ? 0 : std::min(n, room / step + 1);
    block[d] = std::max<int64_t>(last - first, 0);
    dst_strides[d] = out_strides[d] * step;
    src_offset += first * in_strides[d];
    dst_offset += (p.low + first * step) * out_strides[d];
  }
  for (int64_t b : block) {
    if (b == 0) return result;
  }
  CopyBlock(operand, src_offset, in_strides, &result, dst_offset, dst_strides, block);
  return result;
}

// iota: the value along iota_dimension is the index, converted to the element type
// (integers wrap, floats round to nearest even, complex gets it as the real part).
StatusOr<Literal> EvalIota(const Instruction& inst) {
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  const Dims& dims = DimsOf(result);
  const int64_t axis = inst.attrs().iota_dimension;
  if (axis < 0 || axis >= static_cast<int64_t>(dims.size())) {
    return Error(
        inst, "iota_dimension " + std::to_string(axis) + " is out of range for " + DimsText(dims));
  }
  const PrimitiveType type = result.shape().element_type();
  Literal row(Shape(type, {dims[axis]}));
  for (int64_t i = 0; i < dims[axis]; ++i) {
    if (IsComplex(type)) {
      row.SetComplex(i, {static_cast<double>(i), 0.0});
    } else if (IsFloat(type)) {
      row.SetDouble(i, static_cast<double>(i));
    } else {
      row.SetInt64(i, i);
    }
  }
  Dims src_strides(dims.size(), 0);
  src_strides[axis] = 1;
  CopyBlock(row, 0, src_strides, &result, 0, RowMajorStrides(dims), dims);
  return result;
}

}  // namespace

// ---------------------------------------------------------------------------
// 3. Dispatch

StatusOr<Literal> EvalDataMovement(const Instruction& inst, Operands operands, EvalContext& ctx) {
  switch (inst.opcode()) {
    case Opcode::kBroadcast:
      return EvalBroadcast(inst, operands);
    case Opcode::kReshape:
      return EvalReshape(inst, operands);
    case Opcode::kBitcast:
      return EvalBitcast(inst, operands);
    case Opcode::kTranspose:
      return EvalTranspose(inst, operands);
    case Opcode::kCopy:
      return EvalCopy(inst, operands);
    case Opcode::kSlice:
      return EvalSlice(inst, operands);
    case Opcode::kDynamicSlice:
      return EvalDynamicSlice(inst, operands);
    case Opcode::kDynamicUpdateSlice:
      return EvalDynamicUpdateSlice(inst, operands);
    case Opcode::kConcatenate:
      return EvalConcatenate(inst, operands);
    case Opcode::kPad:
      return EvalPad(inst, operands);
    case Opcode::kIota:
      return EvalIota(inst);
    case Opcode::kReverse:
      return EvalReverse(inst, operands);
    case Opcode::kGather:
      return EvalGather(inst, operands);
    case Opcode::kScatter:
      return EvalScatter(inst, operands, ctx);
    case Opcode::kSort:
      return EvalSort(inst, operands, ctx);
    case Opcode::kTopK:
      return EvalTopK(inst, operands);
    case Opcode::kGetDimensionSize:
      return EvalGetDimensionSize(inst, operands);
    case Opcode::kSetDimensionSize:
      return EvalSetDimensionSize(inst, operands);
    default:
      return NotMine();
  }
}

}  // namespace fusebox::interpreter
