// Data-movement ops of the reference interpreter: broadcast, reshape, bitcast, transpose,
// copy, slice, dynamic-slice, dynamic-update-slice, concatenate, pad, iota, reverse,
// gather, scatter, sort, topk, get-dimension-size and set-dimension-size.
//
// Elements are moved as raw slots (Literal's one-slot-per-element storage), never
// converted, so every element type (sub-byte, bf16, f8, complex, pred) moves bit-exactly
// and NaN payloads survive. Only iota, scatter's combiner and sort/topk keys look at
// values.
//
// Sections:
//   1. Helpers (errors, index operands, result literals)
//   2. BlockCopy: the strided slot-copy kernel most ops reduce to
//   3. copy, reshape, bitcast, get/set-dimension-size
//   4. broadcast, transpose, reverse, slice, dynamic-slice, dynamic-update-slice,
//      concatenate, pad, iota
//   5. gather
//   6. scatter
//   7. sort, topk
//   8. Dispatch
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/ops.h"
#include "compiler/support/strings.h"

namespace fusebox {
namespace {

// ---------------------------------------------------------------------------
// 1. Helpers

using Dims = std::vector<int64_t>;

Status Error(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode())) + ": " + message);
}

std::string DimsText(const Dims& dims) { return "[" + Join(dims, ",") + "]"; }

const Dims& DimsOf(const Literal& literal) { return literal.shape().dimensions(); }

// The array literal an op writes its result into (layouts are ignored: storage is
// always row-major over the logical dimensions).
StatusOr<Literal> NewArrayResult(const Instruction& inst) {
  if (!inst.shape().IsArray()) {
    return Error(inst, "expected an array result shape, got " + inst.shape().ToString());
  }
  Literal result(inst.shape());
  if (result.element_count() != inst.shape().ElementCount()) {
    return Error(inst, "result shape " + inst.shape().ToString() + " is too large to evaluate");
  }
  return result;
}

Status CheckArrayOperand(const Instruction& inst, Operands operands, size_t i) {
  if (i >= operands.size()) {
    return Error(inst, "expected at least " + std::to_string(i + 1) + " operands, got " +
                           std::to_string(operands.size()));
  }
  if (!operands[i]->shape().IsArray()) {
    return Error(inst, "operand " + std::to_string(i) + " must be an array, got " +
                           operands[i]->shape().ToString());
  }
  return Status::Ok();
}

// Moving slots between literals needs them to share an element type.
Status CheckSameType(const Instruction& inst, const Literal& a, const Literal& b) {
  if (a.shape().element_type() != b.shape().element_type()) {
    return Error(inst, "element types differ: " + a.shape().ToString(false) + " vs " +
                           b.shape().ToString(false));
  }
  return Status::Ok();
}

bool IsPermutation(const Dims& perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return false;
    seen[p] = true;
  }
  return true;
}

bool Contains(const Dims& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Element `i` of an index operand of any integer type. Unsigned values past int64's
// range saturate (they are clamped or bounds-checked afterwards anyway).
int64_t ReadIndex(const Literal& literal, int64_t i) {
  const PrimitiveType type = literal.shape().element_type();
  if (IsUnsignedInt(type)) {
    const uint64_t v = literal.GetUint64(i);
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v);
  }
  return literal.GetInt64(i);
}

Status CheckIndexType(const Instruction& inst, const Literal& literal, const char* what) {
  if (!IsInteger(literal.shape().element_type())) {
    return Error(inst,
                 std::string(what) + " must be integers, got " + literal.shape().ToString(false));
  }
  return Status::Ok();
}

int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

// Callers have checked that the two literals have the same type and element count.
void CopyAll(const Literal& from, Literal* to) {
  if (from.size_bytes() > 0) {
    std::memcpy(to->untyped_data(), from.untyped_data(), static_cast<size_t>(from.size_bytes()));
  }
}

// The array literals a variadic op (sort, scatter) writes: the result itself, or each
// element of its tuple.
std::vector<Literal*> ResultArrays(Literal* result, size_t n) {
  std::vector<Literal*> arrays;
  if (result->shape().IsTuple()) {
    for (Literal& element : result->tuple_elements()) arrays.push_back(&element);
  } else if (n == 1) {
    arrays.push_back(result);
  }
  return arrays;
}

// Calls fn(index, offsets...) for every index of `dims` in row-major order, keeping one
// running offset per stride vector (each offset is the dot product of index and strides).
// The index vector is reused; fn returns a Status to stop early.
template <size_t kN, typename Fn>
Status ForEachOffset(const Dims& dims, const std::array<const Dims*, kN>& strides, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return Status::Ok();
  }
  Dims index(dims.size(), 0);
  std::array<int64_t, kN> offsets{};
  for (;;) {
    RETURN_IF_ERROR(
        fn(static_cast<const Dims&>(index), static_cast<const std::array<int64_t, kN>&>(offsets)));
    int64_t k = static_cast<int64_t>(dims.size()) - 1;
    for (; k >= 0; --k) {
      if (++index[k] < dims[k]) {
        for (size_t j = 0; j < kN; ++j) offsets[j] += (*strides[j])[k];
        break;
      }
      for (size_t j = 0; j < kN; ++j) offsets[j] -= (*strides[j])[k] * (dims[k] - 1);
      index[k] = 0;
    }
    if (k < 0) return Status::Ok();
  }
}

// ---------------------------------------------------------------------------
// 2. BlockCopy
//
// Copies a block of `dims` elements: for every index i of `dims`,
//   dst[dst_offset + sum_k i_k * dst_strides_k] = src[src_offset + sum_k i_k * src_strides_k]
// with offsets and strides counted in elements (a stride may be 0 to repeat or negative
// to reverse). The plan is built once and run at many offsets (gather runs it once per
// batch index). Size-1 dims are dropped and dims contiguous in both source and
// destination are merged, so most copies end up as long memcpy runs. The two innermost
// loops run without the odometer, so short inner dims cost little. When the innermost
// destination run reads the source with a large stride but another dim reads it with
// stride 1 (a transpose), those two dims are walked in tiles so that the source lines
// and pages stay in cache and TLB.
class BlockCopy {
 public:
  BlockCopy(int slot_bytes, const Dims& dims, const Dims& src_strides, const Dims& dst_strides)
      : slot_(slot_bytes) {
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] == 0) empty_ = true;
      if (dims[k] <= 1) continue;
      if (!dims_.empty() && src_strides_.back() == src_strides[k] * dims[k] &&
          dst_strides_.back() == dst_strides[k] * dims[k]) {
        dims_.back() *= dims[k];
        src_strides_.back() = src_strides[k];
        dst_strides_.back() = dst_strides[k];
        continue;
      }
      dims_.push_back(dims[k]);
      src_strides_.push_back(src_strides[k]);
      dst_strides_.push_back(dst_strides[k]);
    }
    index_.assign(dims_.size(), 0);
    const int64_t rank = static_cast<int64_t>(dims_.size());
    if (rank >= 2) outer_ = rank - 2;
    if (rank >= 2 && dst_strides_.back() == 1 && std::abs(src_strides_.back()) != 1 &&
        dims_.back() >= kMinTiled) {
      for (int64_t k = rank - 2; k >= 0; --k) {
        if (std::abs(src_strides_[k]) == 1 && dims_[k] >= kMinTiled) {
          outer_ = k;
          tiled_ = true;
          break;
        }
      }
    }
  }

  void Run(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset) {
    switch (slot_) {
      case 1:
        return RunTyped<1>(src, src_offset, dst, dst_offset);
      case 2:
        return RunTyped<2>(src, src_offset, dst, dst_offset);
      case 4:
        return RunTyped<4>(src, src_offset, dst, dst_offset);
      case 8:
        return RunTyped<8>(src, src_offset, dst, dst_offset);
      default:
        return RunTyped<16>(src, src_offset, dst, dst_offset);
    }
  }

 private:
  // Tile extents (measured on 16384x16384 f32 transposes): few source rows at a time along
  // the dim read with stride 1, long runs along the destination's contiguous dim.
  static constexpr int64_t kTileOuter = 64;
  static constexpr int64_t kTileInner = 256;
  static constexpr int64_t kMinTiled = 8;

  template <int kBytes>
  void RunTyped(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset) {
    if (empty_) return;
    const int64_t rank = static_cast<int64_t>(dims_.size());
    if (rank == 0) {
      std::memcpy(dst + dst_offset * kBytes, src + src_offset * kBytes, kBytes);
      return;
    }
    const int64_t inner = rank - 1;
    const int64_t n = dims_[inner];
    const int64_t ss = src_strides_[inner] * kBytes;
    const int64_t ds = dst_strides_[inner] * kBytes;
    const bool contiguous = src_strides_[inner] == 1 && dst_strides_[inner] == 1;
    // The second loop handled in the body (1 iteration when rank is 1).
    const int64_t m = outer_ >= 0 ? dims_[outer_] : 1;
    const int64_t os = outer_ >= 0 ? src_strides_[outer_] * kBytes : 0;
    const int64_t od = outer_ >= 0 ? dst_strides_[outer_] * kBytes : 0;
    std::fill(index_.begin(), index_.end(), 0);
    int64_t s = src_offset;
    int64_t d = dst_offset;
    for (;;) {
      const uint8_t* sp = src + s * kBytes;
      uint8_t* dp = dst + d * kBytes;
      if (contiguous) {
        for (int64_t j = 0; j < m; ++j) {
          std::memcpy(dp + j * od, sp + j * os, static_cast<size_t>(n * kBytes));
        }
      } else if (tiled_) {
        for (int64_t j0 = 0; j0 < m; j0 += kTileOuter) {
          const int64_t j1 = std::min(m, j0 + kTileOuter);
          for (int64_t i0 = 0; i0 < n; i0 += kTileInner) {
            const int64_t i1 = std::min(n, i0 + kTileInner);
            for (int64_t j = j0; j < j1; ++j) {
              for (int64_t i = i0; i < i1; ++i) {
                std::memcpy(dp + j * od + i * ds, sp + j * os + i * ss, kBytes);
              }
            }
          }
        }
      } else {
        for (int64_t j = 0; j < m; ++j) {
          for (int64_t i = 0; i < n; ++i) {
            std::memcpy(dp + j * od + i * ds, sp + j * os + i * ss, kBytes);
          }
        }
      }
      // Advance the odometer over the dims the body did not cover.
      int64_t k = inner - 1;
      for (; k >= 0; --k) {
        if (k == outer_) continue;
        if (++index_[k] < dims_[k]) {
          s += src_strides_[k];
          d += dst_strides_[k];
          break;
        }
        index_[k] = 0;
        s -= src_strides_[k] * (dims_[k] - 1);
        d -= dst_strides_[k] * (dims_[k] - 1);
      }
      if (k < 0) return;
    }
  }

  int slot_;
  bool empty_ = false;
  Dims dims_, src_strides_, dst_strides_;
  Dims index_;
  int64_t outer_ = -1;  // the dim looped inside the body besides the innermost one
  bool tiled_ = false;
};

// Copies `block` elements from `src` (read with `src_strides` from `src_offset`) into
// `dst` (written with `dst_strides` from `dst_offset`).
void CopyBlock(const Literal& src, int64_t src_offset, const Dims& src_strides, Literal* dst,
               int64_t dst_offset, const Dims& dst_strides, const Dims& block) {
  BlockCopy copy(src.slot_bytes(), block, src_strides, dst_strides);
  copy.Run(src.untyped_data(), src_offset, dst->untyped_data(), dst_offset);
}

// Fills every slot of `literal` with the single slot of `value`, doubling the filled
// prefix each step.
void FillWith(const Literal& value, Literal* literal) {
  const int64_t total = literal->size_bytes();
  if (total == 0) return;
  uint8_t* data = literal->untyped_data();
  const int64_t slot = literal->slot_bytes();
  std::memcpy(data, value.untyped_data(), static_cast<size_t>(slot));
  for (int64_t filled = slot; filled < total;) {
    const int64_t n = std::min(filled, total - filled);
    std::memcpy(data + filled, data, static_cast<size_t>(n));
    filled += n;
  }
}

// ---------------------------------------------------------------------------
// 3. copy, reshape, bitcast, get/set-dimension-size

StatusOr<Literal> EvalCopy(const Instruction& inst, Operands operands) {
  if (operands.empty()) return Error(inst, "expected 1 operand");
  if (!operands[0]->shape().IsArray()) return Literal(*operands[0]);  // tuple copy
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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
// 4. broadcast, transpose, reverse, slice, dynamic-slice, dynamic-update-slice,
//    concatenate, pad, iota

// broadcast: operand dim i becomes result dim dimensions[i]; other result dims repeat
// (source stride 0).
StatusOr<Literal> EvalBroadcast(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
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

// ---------------------------------------------------------------------------
// 5. gather

// Where the batch ("scatter") dims of start_indices sit: every dim but index_vector_dim
// (which may equal the rank: an implicit trailing dim of size 1).
struct IndexLayout {
  Dims batch_dims;      // dims of the indices array, in order, without index_vector_dim
  int64_t vector_size;  // length of one index vector
  int64_t vector_stride;
};

StatusOr<IndexLayout> LayoutOfIndices(const Instruction& inst, const Literal& indices,
                                      int64_t index_vector_dim) {
  const int64_t rank = indices.shape().rank();
  if (index_vector_dim < 0 || index_vector_dim > rank) {
    return Error(inst, "index_vector_dim " + std::to_string(index_vector_dim) +
                           " is out of range for indices of rank " + std::to_string(rank));
  }
  const Dims strides = RowMajorStrides(DimsOf(indices));
  IndexLayout layout;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != index_vector_dim) layout.batch_dims.push_back(d);
  }
  layout.vector_size = index_vector_dim == rank ? 1 : indices.shape().dimensions(index_vector_dim);
  layout.vector_stride = index_vector_dim == rank ? 0 : strides[index_vector_dim];
  return layout;
}

Status CheckDimList(const Instruction& inst, const Dims& dims, int64_t rank, const char* what) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) {
      return Error(inst, std::string(what) + " {" + Join(dims, ",") +
                             "} must name distinct dimensions below " + std::to_string(rank));
    }
    seen[d] = true;
  }
  return Status::Ok();
}

// Position of indices dim `d` among `batch_dims`, or -1.
int64_t PositionOf(const Dims& batch_dims, int64_t d) {
  auto it = std::find(batch_dims.begin(), batch_dims.end(), d);
  return it == batch_dims.end() ? -1 : static_cast<int64_t>(it - batch_dims.begin());
}

// gather: for each batch index G of the result (the dims not in offset_dims), the
// operand window starts at the index vector start_indices[G..] (components placed by
// start_index_map and clamped so the window fits, as dynamic-slice does) and at G's own
// coordinates for operand_batching_dims; the window (slice_sizes, without collapsed and
// batching dims) fills the offset dims.
StatusOr<Literal> EvalGather(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 1));
  const Literal& operand = *operands[0];
  const Literal& indices = *operands[1];
  RETURN_IF_ERROR(CheckIndexType(inst, indices, "start indices"));
  ASSIGN_OR_RETURN(Literal result, NewArrayResult(inst));
  RETURN_IF_ERROR(CheckSameType(inst, operand, result));
  if (!inst.attrs().gather_dimension_numbers) return Error(inst, "missing dimension numbers");
  const GatherDimensionNumbers& dn = *inst.attrs().gather_dimension_numbers;
  const Dims& slice_sizes = inst.attrs().gather_slice_sizes;
  const Dims& op_dims = DimsOf(operand);
  const Dims& out_dims = DimsOf(result);
  const int64_t op_rank = operand.shape().rank();
  const int64_t out_rank = result.shape().rank();

  RETURN_IF_ERROR(CheckDimList(inst, dn.offset_dims, out_rank, "offset_dims"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.collapsed_slice_dims, op_rank, "collapsed_slice_dims"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.start_index_map, op_rank, "start_index_map"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.operand_batching_dims, op_rank, "operand_batching_dims"));
  if (static_cast<int64_t>(slice_sizes.size()) != op_rank) {
    return Error(inst, "slice_sizes has " + std::to_string(slice_sizes.size()) +
                           " entries for an operand of rank " + std::to_string(op_rank));
  }
  for (int64_t d = 0; d < op_rank; ++d) {
    const bool collapsed =
        Contains(dn.collapsed_slice_dims, d) || Contains(dn.operand_batching_dims, d);
    if (slice_sizes[d] < 0 || slice_sizes[d] > op_dims[d] || (collapsed && slice_sizes[d] > 1)) {
      return Error(inst, "slice_sizes " + DimsText(slice_sizes) + " does not fit operand " +
                             DimsText(op_dims));
    }
  }
  ASSIGN_OR_RETURN(IndexLayout il, LayoutOfIndices(inst, indices, dn.index_vector_dim));
  RETURN_IF_ERROR(CheckDimList(inst, dn.start_indices_batching_dims, indices.shape().rank(),
                               "start_indices_batching_dims"));
  if (il.vector_size != static_cast<int64_t>(dn.start_index_map.size())) {
    return Error(inst, "index vectors have " + std::to_string(il.vector_size) +
                           " components but start_index_map has " +
                           std::to_string(dn.start_index_map.size()));
  }
  if (dn.operand_batching_dims.size() != dn.start_indices_batching_dims.size()) {
    return Error(inst, "operand_batching_dims and start_indices_batching_dims differ in length");
  }

  // Window dims of the operand, in order, and the result dims they fill.
  Dims window_dims, window_sizes;
  for (int64_t d = 0; d < op_rank; ++d) {
    if (Contains(dn.collapsed_slice_dims, d) || Contains(dn.operand_batching_dims, d)) continue;
    window_dims.push_back(d);
    window_sizes.push_back(slice_sizes[d]);
  }
  Dims batch_out_dims;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (!Contains(dn.offset_dims, d)) batch_out_dims.push_back(d);
  }
  if (window_dims.size() != dn.offset_dims.size() ||
      batch_out_dims.size() != il.batch_dims.size()) {
    return Error(inst, "result " + DimsText(out_dims) +
                           " does not match the gather's batch and offset dimensions");
  }
  Dims batch_sizes;
  for (size_t k = 0; k < batch_out_dims.size(); ++k) {
    batch_sizes.push_back(out_dims[batch_out_dims[k]]);
    if (batch_sizes.back() != indices.shape().dimensions(il.batch_dims[k])) {
      return Error(inst, "result " + DimsText(out_dims) + " does not match the batch dims of " +
                             "start indices " + DimsText(DimsOf(indices)));
    }
  }
  for (size_t k = 0; k < window_dims.size(); ++k) {
    if (out_dims[dn.offset_dims[k]] != window_sizes[k]) {
      return Error(inst, "result " + DimsText(out_dims) + " does not match slice_sizes " +
                             DimsText(slice_sizes));
    }
  }
  Dims batching_positions;  // batch coordinate feeding each operand batching dim
  for (size_t k = 0; k < dn.operand_batching_dims.size(); ++k) {
    const int64_t p = PositionOf(il.batch_dims, dn.start_indices_batching_dims[k]);
    if (p < 0 || batch_sizes[p] != op_dims[dn.operand_batching_dims[k]]) {
      return Error(inst, "start_indices_batching_dims do not match operand_batching_dims");
    }
    batching_positions.push_back(p);
  }

  const Dims op_strides = RowMajorStrides(op_dims);
  const Dims out_strides = RowMajorStrides(out_dims);
  const Dims idx_strides = RowMajorStrides(DimsOf(indices));
  Dims window_src_strides, window_dst_strides;
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_src_strides.push_back(op_strides[window_dims[k]]);
    window_dst_strides.push_back(out_strides[dn.offset_dims[k]]);
  }
  Dims batch_idx_strides, batch_out_strides;
  for (size_t k = 0; k < batch_out_dims.size(); ++k) {
    batch_idx_strides.push_back(idx_strides[il.batch_dims[k]]);
    batch_out_strides.push_back(out_strides[batch_out_dims[k]]);
  }
  BlockCopy copy(operand.slot_bytes(), window_sizes, window_src_strides, window_dst_strides);
  const uint8_t* src = operand.untyped_data();
  uint8_t* dst = result.untyped_data();
  if (result.element_count() == 0) return result;
  RETURN_IF_ERROR(ForEachOffset<2>(
      batch_sizes, {&batch_idx_strides, &batch_out_strides},
      [&](const Dims& batch, const std::array<int64_t, 2>& offsets) -> Status {
        int64_t src_offset = 0;
        for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
          const int64_t d = dn.start_index_map[k];
          const int64_t start = ReadIndex(indices, offsets[0] + k * il.vector_stride);
          src_offset += Clamp(start, 0, op_dims[d] - slice_sizes[d]) * op_strides[d];
        }
        for (size_t k = 0; k < batching_positions.size(); ++k) {
          src_offset += batch[batching_positions[k]] * op_strides[dn.operand_batching_dims[k]];
        }
        copy.Run(src, src_offset, dst, offsets[1]);
        return Status::Ok();
      }));
  return result;
}

// ---------------------------------------------------------------------------
// 6. scatter

// How scatter combines an operand element with an update. Common to_apply computations
// (a single add/multiply/maximum/minimum of the two parameters, or returning the update)
// are applied directly; anything else calls the computation.
enum class Combine : uint8_t { kCall, kOverwrite, kAdd, kMultiply, kMaximum, kMinimum };

bool IsParameter(const Instruction* inst, int64_t number) {
  return inst->opcode() == Opcode::kParameter && inst->parameter_number() == number;
}

Combine ClassifyCombiner(const Computation& computation, size_t n, PrimitiveType type) {
  const Instruction* root = computation.root();
  if (root == nullptr) return Combine::kCall;
  const int64_t count = static_cast<int64_t>(n);
  if (n == 1 && IsParameter(root, 1)) return Combine::kOverwrite;
  if (n > 1 && root->opcode() == Opcode::kTuple && root->operand_count() == count) {
    for (int64_t i = 0; i < count; ++i) {
      if (!IsParameter(root->operand(i), count + i)) return Combine::kCall;
    }
    return Combine::kOverwrite;
  }
  if (n != 1 || root->operand_count() != 2 || root->shape().element_type() != type) {
    return Combine::kCall;
  }
  if (!IsInteger(type) && !IsFloat(type)) return Combine::kCall;
  const bool params = (IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1)) ||
                      (IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0));
  if (!params) return Combine::kCall;
  switch (root->opcode()) {
    case Opcode::kAdd:
      return Combine::kAdd;
    case Opcode::kMultiply:
      return Combine::kMultiply;
    case Opcode::kMaximum:
      return Combine::kMaximum;
    case Opcode::kMinimum:
      return Combine::kMinimum;
    default:
      return Combine::kCall;
  }
}

// XLA's maximum/minimum propagate NaN.
template <typename T>
T MaxOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return a >= b ? a : b;
}
template <typename T>
T MinOf(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
  }
  return a <= b ? a : b;
}

// Combines in place for element types with a native C++ type. Integer add/multiply wrap.
template <typename T>
void CombineNative(Combine kind, uint8_t* out, const uint8_t* update) {
  T a, b;
  std::memcpy(&a, out, sizeof(T));
  std::memcpy(&b, update, sizeof(T));
  T r = b;
  switch (kind) {
    case Combine::kAdd:
      if constexpr (std::is_integral_v<T>) {
        r = static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
      } else {
        r = a + b;
      }
      break;
    case Combine::kMultiply:
      if constexpr (std::is_integral_v<T>) {
        r = static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      } else {
        r = a * b;
      }
      break;
    case Combine::kMaximum:
      r = MaxOf(a, b);
      break;
    case Combine::kMinimum:
      r = MinOf(a, b);
      break;
    default:
      break;
  }
  std::memcpy(out, &r, sizeof(T));
}

using NativeCombineFn = void (*)(Combine, uint8_t*, const uint8_t*);

NativeCombineFn NativeCombinerFor(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF32:
      return &CombineNative<float>;
    case PrimitiveType::kF64:
      return &CombineNative<double>;
    case PrimitiveType::kS8:
      return &CombineNative<int8_t>;
    case PrimitiveType::kS16:
      return &CombineNative<int16_t>;
    case PrimitiveType::kS32:
      return &CombineNative<int32_t>;
    case PrimitiveType::kS64:
      return &CombineNative<int64_t>;
    case PrimitiveType::kU8:
      return &CombineNative<uint8_t>;
    case PrimitiveType::kU16:
      return &CombineNative<uint16_t>;
    case PrimitiveType::kU32:
      return &CombineNative<uint32_t>;
    case PrimitiveType::kU64:
      return &CombineNative<uint64_t>;
    default:
      return nullptr;
  }
}

// Combines for the other real types (f16, bf16, f8, sub-byte integers) through the
// literal's wide accessors: sums and products are computed in double and rounded once,
// which is the correctly rounded result for formats this narrow; max/min copy the
// winning slot unchanged.
void CombineWide(Combine kind, Literal* out, int64_t oi, const Literal& update, int64_t ui) {
  const PrimitiveType type = out->shape().element_type();
  if (IsFloat(type)) {
    const double a = out->GetDouble(oi);
    const double b = update.GetDouble(ui);
    switch (kind) {
      case Combine::kAdd:
        out->SetDouble(oi, a + b);
        return;
      case Combine::kMultiply:
        out->SetDouble(oi, a * b);
        return;
      case Combine::kMaximum:
        if (!std::isnan(a) && (std::isnan(b) || b > a)) out->SetBits(oi, update.GetBits(ui));
        return;
      case Combine::kMinimum:
        if (!std::isnan(a) && (std::isnan(b) || b < a)) out->SetBits(oi, update.GetBits(ui));
        return;
      default:
        return;
    }
  }
  if (IsSignedInt(type)) {
    const int64_t a = out->GetInt64(oi);
    const int64_t b = update.GetInt64(ui);
    switch (kind) {
      case Combine::kAdd:
        out->SetInt64(oi,
                      static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)));
        return;
      case Combine::kMultiply:
        out->SetInt64(oi,
                      static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)));
        return;
      case Combine::kMaximum:
        out->SetInt64(oi, std::max(a, b));
        return;
      case Combine::kMinimum:
        out->SetInt64(oi, std::min(a, b));
        return;
      default:
        return;
    }
  }
  const uint64_t a = out->GetUint64(oi);
  const uint64_t b = update.GetUint64(ui);
  switch (kind) {
    case Combine::kAdd:
      out->SetUint64(oi, a + b);
      return;
    case Combine::kMultiply:
      out->SetUint64(oi, a * b);
      return;
    case Combine::kMaximum:
      out->SetUint64(oi, std::max(a, b));
      return;
    case Combine::kMinimum:
      out->SetUint64(oi, std::min(a, b));
      return;
    default:
      return;
  }
}

// Runs a scalar computation on slots: args[i] receives slot `indices[i]` of `arrays[i]`;
// the result (a scalar, or a tuple of scalars) is returned. The argument literals are
// allocated once and reused.
class ScalarCaller {
 public:
  ScalarCaller(const Computation& computation, EvalContext& ctx)
      : computation_(computation), ctx_(ctx) {}

  void AddArgumentType(PrimitiveType type) { args_.emplace_back(Shape::Scalar(type)); }

  void SetArgument(size_t i, const Literal& array, int64_t index) {
    std::memcpy(args_[i].untyped_data(), array.untyped_data() + index * array.slot_bytes(),
                static_cast<size_t>(array.slot_bytes()));
  }

  StatusOr<Literal> Call() {
    if (pointers_.empty()) {
      for (const Literal& arg : args_) pointers_.push_back(&arg);
    }
    return ctx_.Call(computation_, pointers_);
  }

  // Element i of a call's result, checked to be a scalar of `type`.
  static StatusOr<const Literal*> ResultElement(const Literal& result, size_t i, size_t n,
                                                PrimitiveType type, const char* op) {
    const Literal* element = &result;
    if (result.shape().IsTuple()) {
      if (i >= result.tuple_elements().size()) {
        return InvalidArgument(std::string(op) + ": the computation returned too few values");
      }
      element = &result.tuple_elements()[i];
    } else if (n != 1) {
      return InvalidArgument(std::string(op) + ": the computation must return a tuple of " +
                             std::to_string(n) + " scalars");
    }
    if (element->element_count() != 1 || element->shape().element_type() != type) {
      return InvalidArgument(std::string(op) + ": the computation returned " +
                             element->shape().ToString(false) + ", expected a " +
                             std::string(PrimitiveTypeName(type)) + " scalar");
    }
    return element;
  }

 private:
  const Computation& computation_;
  EvalContext& ctx_;
  std::vector<Literal> args_;
  std::vector<const Literal*> pointers_;
};

// scatter (variadic: N operands, indices, N updates). For each update scatter index G
// (the update dims not in update_window_dims) the operand window starts at the index
// vector indices[G..] (placed by scatter_dims_to_operand_dims) and at G's coordinates for
// input_batching_dims. A window that does not lie entirely inside the operand is skipped
// (XLA does not clamp scatter indices). Updates are applied in row-major order of the
// scatter indices, then of the window, so duplicate indices combine in that order.
StatusOr<Literal> EvalScatter(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.size() < 3 || operands.size() % 2 == 0) {
    return Error(inst, "expected N operands, indices and N updates");
  }
  const size_t n = (operands.size() - 1) / 2;
  for (size_t i = 0; i < operands.size(); ++i)
    RETURN_IF_ERROR(CheckArrayOperand(inst, operands, i));
  const Literal& indices = *operands[n];
  RETURN_IF_ERROR(CheckIndexType(inst, indices, "scatter indices"));
  if (!inst.attrs().scatter_dimension_numbers) return Error(inst, "missing dimension numbers");
  if (inst.to_apply() == nullptr) return Error(inst, "missing to_apply computation");
  const ScatterDimensionNumbers& dn = *inst.attrs().scatter_dimension_numbers;
  if (n > 1 && (!inst.shape().IsTuple() || inst.shape().tuple_size() != static_cast<int64_t>(n))) {
    return Error(inst, "a scatter of " + std::to_string(n) + " operands must return a tuple");
  }
  Literal result(inst.shape());
  std::vector<Literal*> outs = ResultArrays(&result, n);
  if (outs.size() != n) return Error(inst, "result shape does not match the operands");
  const Dims& op_dims = DimsOf(*operands[0]);
  const Dims& upd_dims = DimsOf(*operands[n + 1]);
  for (size_t i = 0; i < n; ++i) {
    const Literal& operand = *operands[i];
    const Literal& update = *operands[n + 1 + i];
    RETURN_IF_ERROR(CheckSameType(inst, operand, *outs[i]));
    RETURN_IF_ERROR(CheckSameType(inst, update, *outs[i]));
    if (DimsOf(operand) != op_dims || DimsOf(*outs[i]) != op_dims || DimsOf(update) != upd_dims) {
      return Error(inst, "operands, updates and result must have matching dimensions");
    }
    CopyAll(operand, outs[i]);
  }
  const int64_t op_rank = static_cast<int64_t>(op_dims.size());
  const int64_t upd_rank = static_cast<int64_t>(upd_dims.size());

  RETURN_IF_ERROR(CheckDimList(inst, dn.update_window_dims, upd_rank, "update_window_dims"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.inserted_window_dims, op_rank, "inserted_window_dims"));
  RETURN_IF_ERROR(
      CheckDimList(inst, dn.scatter_dims_to_operand_dims, op_rank, "scatter_dims_to_operand_dims"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.input_batching_dims, op_rank, "input_batching_dims"));
  RETURN_IF_ERROR(CheckDimList(inst, dn.scatter_indices_batching_dims, indices.shape().rank(),
                               "scatter_indices_batching_dims"));
  ASSIGN_OR_RETURN(IndexLayout il, LayoutOfIndices(inst, indices, dn.index_vector_dim));
  if (il.vector_size != static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size())) {
    return Error(inst, "index vectors have " + std::to_string(il.vector_size) +
                           " components but scatter_dims_to_operand_dims has " +
                           std::to_string(dn.scatter_dims_to_operand_dims.size()));
  }
  if (dn.input_batching_dims.size() != dn.scatter_indices_batching_dims.size()) {
    return Error(inst, "input_batching_dims and scatter_indices_batching_dims differ in length");
  }

  // Operand window dims, in order, matched with update_window_dims.
  Dims window_dims;
  for (int64_t d = 0; d < op_rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  Dims scatter_upd_dims;
  for (int64_t d = 0; d < upd_rank; ++d) {
    if (!Contains(dn.update_window_dims, d)) scatter_upd_dims.push_back(d);
  }
  if (window_dims.size() != dn.update_window_dims.size() ||
      scatter_upd_dims.size() != il.batch_dims.size()) {
    return Error(inst, "updates " + DimsText(upd_dims) +
                           " do not match the scatter's window and scatter dimensions");
  }
  Dims window_size(op_rank, 1);  // per operand dim
  Dims window_sizes;             // per window dim
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_sizes.push_back(upd_dims[dn.update_window_dims[k]]);
    window_size[window_dims[k]] = window_sizes.back();
  }
  Dims scatter_sizes;
  for (size_t k = 0; k < scatter_upd_dims.size(); ++k) {
    scatter_sizes.push_back(upd_dims[scatter_upd_dims[k]]);
    if (scatter_sizes.back() != indices.shape().dimensions(il.batch_dims[k])) {
      return Error(inst, "updates " + DimsText(upd_dims) + " do not match the batch dims of " +
                             "indices " + DimsText(DimsOf(indices)));
    }
  }
  Dims batching_positions;
  for (size_t k = 0; k < dn.input_batching_dims.size(); ++k) {
    const int64_t p = PositionOf(il.batch_dims, dn.scatter_indices_batching_dims[k]);
    if (p < 0) return Error(inst, "scatter_indices_batching_dims must not name index_vector_dim");
    batching_positions.push_back(p);
  }

  const Dims op_strides = RowMajorStrides(op_dims);
  const Dims upd_strides = RowMajorStrides(upd_dims);
  const Dims idx_strides = RowMajorStrides(DimsOf(indices));
  Dims scatter_idx_strides, scatter_upd_strides, window_op_strides, window_upd_strides;
  for (size_t k = 0; k < scatter_upd_dims.size(); ++k) {
    scatter_idx_strides.push_back(idx_strides[il.batch_dims[k]]);
    scatter_upd_strides.push_back(upd_strides[scatter_upd_dims[k]]);
  }
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_op_strides.push_back(op_strides[window_dims[k]]);
    window_upd_strides.push_back(upd_strides[dn.update_window_dims[k]]);
  }

  const PrimitiveType type0 = outs[0]->shape().element_type();
  const Combine kind = ClassifyCombiner(*inst.to_apply(), n, type0);
  const NativeCombineFn native = NativeCombinerFor(type0);
  ScalarCaller caller(*inst.to_apply(), ctx);
  for (size_t i = 0; i < 2 * n; ++i) caller.AddArgumentType(outs[i % n]->shape().element_type());
  Dims start(op_rank, 0);

  // One update element: operand slot `oi` of every output with update slot `ui`.
  auto apply = [&](int64_t oi, int64_t ui) -> Status {
    switch (kind) {
      case Combine::kOverwrite:
        for (size_t i = 0; i < n; ++i) {
          const int slot = outs[i]->slot_bytes();
          std::memcpy(outs[i]->untyped_data() + oi * slot,
                      operands[n + 1 + i]->untyped_data() + ui * slot, static_cast<size_t>(slot));
        }
        return Status::Ok();
      case Combine::kCall: {
        for (size_t i = 0; i < n; ++i) {
          caller.SetArgument(i, *outs[i], oi);
          caller.SetArgument(n + i, *operands[n + 1 + i], ui);
        }
        ASSIGN_OR_RETURN(Literal combined, caller.Call());
        for (size_t i = 0; i < n; ++i) {
          ASSIGN_OR_RETURN(const Literal* value,
                           ScalarCaller::ResultElement(combined, i, n,
                                                       outs[i]->shape().element_type(), "scatter"));
          const int slot = outs[i]->slot_bytes();
          std::memcpy(outs[i]->untyped_data() + oi * slot, value->untyped_data(),
                      static_cast<size_t>(slot));
        }
        return Status::Ok();
      }
      default:
        if (native != nullptr) {
          const int slot = outs[0]->slot_bytes();
          native(kind, outs[0]->untyped_data() + oi * slot,
                 operands[n + 1]->untyped_data() + ui * slot);
        } else {
          CombineWide(kind, outs[0], oi, *operands[n + 1], ui);
        }
        return Status::Ok();
    }
  };

  // (Named rather than wrapped in RETURN_IF_ERROR: the lambda uses that macro itself.)
  const Status status = ForEachOffset<2>(
      scatter_sizes, {&scatter_idx_strides, &scatter_upd_strides},
      [&](const Dims& scatter, const std::array<int64_t, 2>& offsets) -> Status {
        RETURN_IF_ERROR(ctx.CheckCancelled());
        std::fill(start.begin(), start.end(), 0);
        for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
          start[dn.scatter_dims_to_operand_dims[k]] =
              ReadIndex(indices, offsets[0] + static_cast<int64_t>(k) * il.vector_stride);
        }
        for (size_t k = 0; k < batching_positions.size(); ++k) {
          start[dn.input_batching_dims[k]] = scatter[batching_positions[k]];
        }
        for (int64_t d = 0; d < op_rank; ++d) {
          if (start[d] < 0 || start[d] > op_dims[d] - window_size[d]) return Status::Ok();
        }
        const int64_t base = LinearIndex(start, op_strides);
        return ForEachOffset<2>(window_sizes, {&window_op_strides, &window_upd_strides},
                                [&](const Dims&, const std::array<int64_t, 2>& w) -> Status {
                                  return apply(base + w[0], offsets[1] + w[1]);
                                });
      });
  if (!status.ok()) return status;
  return result;
}

// ---------------------------------------------------------------------------
// 7. sort, topk

// Order-preserving integer image of a float's bits under XLA's total order:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
int64_t TotalOrderKey(uint64_t bits, int width) {
  int64_t s = static_cast<int64_t>(bits << (64 - width)) >> (64 - width);  // sign-extend
  // Negative values order by decreasing magnitude: flip every bit below the sign.
  if (s < 0) s ^= static_cast<int64_t>((uint64_t{1} << (width - 1)) - 1);
  return s;
}

bool HasSignBit(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3B11FNUZ:
      return false;  // no negative zero / single NaN encodings: no simple bit order
    default:
      return IsFloat(type);
  }
}

// Keys for sorting one row along a dimension, typed by how they compare.
struct RowKeys {
  enum Kind { kDouble, kSigned, kUnsigned } kind = kDouble;
  std::vector<double> d;
  std::vector<int64_t> s;
  std::vector<uint64_t> u;
};

// How a comparator that is a single compare of its parameters 0 and 1 orders keys.
struct SimpleComparator {
  bool valid = false;
  bool greater = false;  // true: descending
  RowKeys::Kind kind = RowKeys::kDouble;
  bool total_order = false;
};

SimpleComparator ClassifyComparator(const Computation& computation, PrimitiveType type) {
  SimpleComparator c;
  const Instruction* root = computation.root();
  if (root == nullptr || root->opcode() != Opcode::kCompare || root->operand_count() != 2) return c;
  bool swapped;
  if (IsParameter(root->operand(0), 0) && IsParameter(root->operand(1), 1)) {
    swapped = false;
  } else if (IsParameter(root->operand(0), 1) && IsParameter(root->operand(1), 0)) {
    swapped = true;
  } else {
    return c;
  }
  if (root->operand(0)->shape().element_type() != type || !root->attrs().comparison_direction)
    return c;
  const ComparisonDirection dir = *root->attrs().comparison_direction;
  if (dir != ComparisonDirection::kLt && dir != ComparisonDirection::kGt) return c;
  const ComparisonType ct = root->attrs().comparison_type.value_or(DefaultComparisonType(type));
  if (IsFloat(type) && (ct == ComparisonType::kFloat || ct == ComparisonType::kPartialOrder)) {
    c.kind = RowKeys::kDouble;
  } else if (IsFloat(type) && ct == ComparisonType::kTotalOrder && HasSignBit(type)) {
    c.kind = RowKeys::kSigned;
    c.total_order = true;
  } else if (IsSignedInt(type) && ct == ComparisonType::kSigned) {
    c.kind = RowKeys::kSigned;
  } else if ((IsUnsignedInt(type) || IsPred(type)) && ct == ComparisonType::kUnsigned) {
    c.kind = RowKeys::kUnsigned;
  } else {
    return c;
  }
  c.greater = (dir == ComparisonDirection::kGt) != swapped;
  c.valid = true;
  return c;
}

// Reads the n keys at literal[base + j * stride].
void ReadKeys(const Literal& literal, int64_t base, int64_t stride, int64_t n, RowKeys::Kind kind,
              bool total_order, RowKeys* keys) {
  const PrimitiveType type = literal.shape().element_type();
  keys->kind = kind;
  switch (kind) {
    case RowKeys::kDouble:
      keys->d.resize(n);
      for (int64_t j = 0; j < n; ++j) keys->d[j] = literal.GetDouble(base + j * stride);
      break;
    case RowKeys::kSigned:
      keys->s.resize(n);
      for (int64_t j = 0; j < n; ++j) {
        keys->s[j] = total_order ? TotalOrderKey(literal.GetBits(base + j * stride), BitWidth(type))
                                 : literal.GetInt64(base + j * stride);
      }
      break;
    case RowKeys::kUnsigned:
      keys->u.resize(n);
      for (int64_t j = 0; j < n; ++j) keys->u[j] = literal.GetUint64(base + j * stride);
      break;
  }
}

template <typename K>
void StableSortBy(const std::vector<K>& keys, bool greater, std::vector<int64_t>* perm) {
  if (greater) {
    std::stable_sort(perm->begin(), perm->end(),
                     [&](int64_t a, int64_t b) { return keys[a] > keys[b]; });
  } else {
    std::stable_sort(perm->begin(), perm->end(),
                     [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
  }
}

void SortByKeys(const RowKeys& keys, bool greater, std::vector<int64_t>* perm) {
  switch (keys.kind) {
    case RowKeys::kDouble:
      return StableSortBy(keys.d, greater, perm);
    case RowKeys::kSigned:
      return StableSortBy(keys.s, greater, perm);
    case RowKeys::kUnsigned:
      return StableSortBy(keys.u, greater, perm);
  }
}

// The first k positions of `perm` in (key, position) order: a partial sort whose prefix is
// exactly what a stable sort would put there (ties go to the lower position).
template <typename K>
void TopPositions(const std::vector<K>& keys, bool greater, int64_t k, std::vector<int64_t>* perm) {
  auto before = [&](int64_t a, int64_t b) {
    if (keys[a] != keys[b]) return greater ? keys[a] > keys[b] : keys[a] < keys[b];
    return a < b;
  };
  std::partial_sort(perm->begin(), perm->begin() + k, perm->end(), before);
}

void TopPositionsByKeys(const RowKeys& keys, bool greater, int64_t k, std::vector<int64_t>* perm) {
  switch (keys.kind) {
    case RowKeys::kDouble:
      return TopPositions(keys.d, greater, k, perm);
    case RowKeys::kSigned:
      return TopPositions(keys.s, greater, k, perm);
    case RowKeys::kUnsigned:
      return TopPositions(keys.u, greater, k, perm);
  }
}

// sort: every row along dimensions={d} of all operands is permuted by one stable sort
// whose comparator sees (lhs_0, rhs_0, lhs_1, rhs_1, ...). Sorts are always stable
// (whether or not is_stable is set) so results are deterministic.
StatusOr<Literal> EvalSort(const Instruction& inst, Operands operands, EvalContext& ctx) {
  const size_t n = operands.size();
  if (n == 0) return Error(inst, "expected at least one operand");
  for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(CheckArrayOperand(inst, operands, i));
  if (inst.to_apply() == nullptr) return Error(inst, "missing comparator");
  Literal result(inst.shape());
  std::vector<Literal*> outs = ResultArrays(&result, n);
  if (outs.size() != n) return Error(inst, "result shape does not match the operands");
  const Dims& dims = DimsOf(*operands[0]);
  for (size_t i = 0; i < n; ++i) {
    RETURN_IF_ERROR(CheckSameType(inst, *operands[i], *outs[i]));
    if (DimsOf(*operands[i]) != dims || DimsOf(*outs[i]) != dims) {
      return Error(inst, "all operands and results must have dimensions " + DimsText(dims));
    }
  }
  const Dims& dimensions = inst.dimensions();
  if (dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= static_cast<int64_t>(dims.size())) {
    return Error(inst, "dimensions must name one dimension of the operands");
  }
  const int64_t axis = dimensions[0];
  const int64_t len = dims[axis];
  const Dims strides = RowMajorStrides(dims);
  const int64_t stride = strides[axis];
  Dims rows = dims;
  rows[axis] = 1;

  const SimpleComparator simple =
      ClassifyComparator(*inst.to_apply(), operands[0]->shape().element_type());
  ScalarCaller caller(*inst.to_apply(), ctx);
  for (size_t i = 0; i < n; ++i) {
    caller.AddArgumentType(operands[i]->shape().element_type());
    caller.AddArgumentType(operands[i]->shape().element_type());
  }
  RowKeys keys;
  std::vector<int64_t> perm(static_cast<size_t>(len));
  const Status status = ForEachOffset<1>(
      rows, {&strides}, [&](const Dims&, const std::array<int64_t, 1>& offsets) -> Status {
        RETURN_IF_ERROR(ctx.CheckCancelled());
        const int64_t base = offsets[0];
        std::iota(perm.begin(), perm.end(), 0);
        if (simple.valid) {
          ReadKeys(*operands[0], base, stride, len, simple.kind, simple.total_order, &keys);
          SortByKeys(keys, simple.greater, &perm);
        } else {
          Status error;
          std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
            if (!error.ok()) return false;
            for (size_t i = 0; i < n; ++i) {
              caller.SetArgument(2 * i, *operands[i], base + a * stride);
              caller.SetArgument(2 * i + 1, *operands[i], base + b * stride);
            }
            StatusOr<Literal> less = caller.Call();
            if (!less.ok()) {
              error = less.status();
              return false;
            }
            if (less->shape().element_type() != PrimitiveType::kPred ||
                less->element_count() != 1) {
              error = Error(inst, "the comparator must return a pred scalar");
              return false;
            }
            return less->GetBool(0);
          });
          RETURN_IF_ERROR(error);
        }
        for (size_t i = 0; i < n; ++i) {
          const int slot = outs[i]->slot_bytes();
          const uint8_t* src = operands[i]->untyped_data();
          uint8_t* dst = outs[i]->untyped_data();
          for (int64_t j = 0; j < len; ++j) {
            std::memcpy(dst + (base + j * stride) * slot, src + (base + perm[j] * stride) * slot,
                        static_cast<size_t>(slot));
          }
        }
        return Status::Ok();
      });
  if (!status.ok()) return status;
  return result;
}

// topk: the k largest (or smallest) elements of each row along the last dimension, in
// order, with their s32 indices. Floats are ordered by XLA's total order (so +NaN is the
// largest), and ties keep the lower index first (a stable sort, as XLA's decomposition
// into a stable sort does).
StatusOr<Literal> EvalTopK(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckArrayOperand(inst, operands, 0));
  const Literal& operand = *operands[0];
  const PrimitiveType type = operand.shape().element_type();
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 2) {
    return Error(inst, "the result must be a (values, indices) tuple");
  }
  Literal result(inst.shape());
  Literal& values = result.tuple_elements()[0];
  Literal& indices = result.tuple_elements()[1];
  RETURN_IF_ERROR(CheckSameType(inst, operand, values));
  const Dims& dims = DimsOf(operand);
  if (dims.empty()) return Error(inst, "the operand must have rank >= 1");
  const int64_t len = dims.back();
  const int64_t k = DimsOf(values).empty() ? -1 : DimsOf(values).back();
  Dims expected = dims;
  expected.back() = k;
  if (k < 0 || k > len || DimsOf(values) != expected || DimsOf(indices) != expected ||
      (inst.attrs().k >= 0 && inst.attrs().k != k) || !IsInteger(indices.shape().element_type())) {
    return Error(inst, "result " + inst.shape().ToString(false) + " does not fit k=" +
                           std::to_string(inst.attrs().k) + " of " + DimsText(dims));
  }
  if (IsComplex(type)) return Error(inst, "complex elements have no order");
  RowKeys::Kind kind = RowKeys::kUnsigned;  // pred, unsigned, and f8e8m0fnu-style floats
  bool total_order = false;
  if (IsSignedInt(type)) kind = RowKeys::kSigned;
  if (IsFloat(type) && HasSignBit(type)) {
    kind = RowKeys::kSigned;
    total_order = true;
  } else if (IsFloat(type)) {
    kind = RowKeys::kDouble;
  }
  const bool largest = inst.attrs().largest.value_or(true);
  const int slot = operand.slot_bytes();
  RowKeys keys;
  std::vector<int64_t> perm(static_cast<size_t>(len));
  const int64_t rows = len == 0 ? 0 : operand.element_count() / len;
  for (int64_t r = 0; r < rows; ++r) {
    std::iota(perm.begin(), perm.end(), 0);
    ReadKeys(operand, r * len, 1, len, kind, total_order, &keys);
    if (kind == RowKeys::kDouble) {
      // Floats without a sign bit: NaN counts as the largest value.
      for (double& v : keys.d) {
        if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
      }
    }
    TopPositionsByKeys(keys, largest, k, &perm);
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(values.untyped_data() + (r * k + j) * slot,
                  operand.untyped_data() + (r * len + perm[j]) * slot, static_cast<size_t>(slot));
      indices.SetInt64(r * k + j, perm[j]);
    }
  }
  return result;
}

}  // namespace

// ---------------------------------------------------------------------------
// 8. Dispatch

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

}  // namespace fusebox
