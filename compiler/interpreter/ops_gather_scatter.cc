// Gather and scatter in the reference interpreter, with XLA's dimension numbers
// (batching dims included). Gather clamps its start indices; scatter skips windows that
// do not fit and combines duplicate indices in row-major order. Elements move as raw
// slots; only scatter's combiner looks at values.
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

namespace fusebox::interpreter {
namespace data_movement_internal {
namespace {

// ---------------------------------------------------------------------------
// gather

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

}  // namespace

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

namespace {

// ---------------------------------------------------------------------------
// scatter

// How scatter combines an operand element with an update. Common to_apply computations
// (a single add/multiply/maximum/minimum of the two parameters, or returning the update)
// are applied directly; anything else calls the computation.
enum class Combine : uint8_t { kCall, kOverwrite, kAdd, kMultiply, kMaximum, kMinimum };

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

// Where scatter's updates go: the operand window dims matched with update_window_dims,
// the update dims that are not window dims matched with the batch dims of the indices,
// and the strides that walk both.
struct ScatterPlan {
  IndexLayout il;
  Dims window_size;         // per operand dim
  Dims window_sizes;        // per window dim
  Dims scatter_sizes;       // per scatter dim of the updates
  Dims batching_positions;  // per input batching dim: its position in il.batch_dims
  Dims op_strides;
  Dims scatter_idx_strides, scatter_upd_strides, window_op_strides, window_upd_strides;
};

// Checks the dimension numbers against the operand, indices and update shapes and lays
// out the walk over scatter indices and windows.
StatusOr<ScatterPlan> PlanScatter(const Instruction& inst, const ScatterDimensionNumbers& dn,
                                  const Literal& indices, const Dims& op_dims,
                                  const Dims& upd_dims) {
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
  return ScatterPlan{.il = std::move(il),
                     .window_size = std::move(window_size),
                     .window_sizes = std::move(window_sizes),
                     .scatter_sizes = std::move(scatter_sizes),
                     .batching_positions = std::move(batching_positions),
                     .op_strides = op_strides,
                     .scatter_idx_strides = std::move(scatter_idx_strides),
                     .scatter_upd_strides = std::move(scatter_upd_strides),
                     .window_op_strides = std::move(window_op_strides),
                     .window_upd_strides = std::move(window_upd_strides)};
}

// Applies one update element to operand slot `oi` of every output: an overwrite, a
// native or wide combine (one output), or a call of to_apply.
class ScatterCombiner {
 public:
  ScatterCombiner(const Computation& to_apply, Operands operands, const std::vector<Literal*>& outs,
                  EvalContext& ctx)
      : n_(outs.size()),
        operands_(operands),
        outs_(outs),
        kind_(ClassifyCombiner(to_apply, n_, outs[0]->shape().element_type())),
        native_(NativeCombinerFor(outs[0]->shape().element_type())),
        caller_(to_apply, ctx) {
    for (size_t i = 0; i < 2 * n_; ++i) {
      caller_.AddArgumentType(outs_[i % n_]->shape().element_type());
    }
  }

  // Update slot `ui` of every update array onto operand slot `oi`.
  Status Apply(int64_t oi, int64_t ui) {
    switch (kind_) {
      case Combine::kOverwrite:
        for (size_t i = 0; i < n_; ++i) {
          const int slot = outs_[i]->slot_bytes();
          std::memcpy(outs_[i]->untyped_data() + oi * slot,
                      operands_[n_ + 1 + i]->untyped_data() + ui * slot, static_cast<size_t>(slot));
        }
        return Status::Ok();
      case Combine::kCall: {
        for (size_t i = 0; i < n_; ++i) {
          caller_.SetArgument(i, *outs_[i], oi);
          caller_.SetArgument(n_ + i, *operands_[n_ + 1 + i], ui);
        }
        ASSIGN_OR_RETURN(const Literal* combined, caller_.Call());
        for (size_t i = 0; i < n_; ++i) {
          ASSIGN_OR_RETURN(const Literal* value,
                           ScalarCaller::ResultElement(
                               *combined, i, n_, outs_[i]->shape().element_type(), "scatter"));
          const int slot = outs_[i]->slot_bytes();
          std::memcpy(outs_[i]->untyped_data() + oi * slot, value->untyped_data(),
                      static_cast<size_t>(slot));
        }
        return Status::Ok();
      }
      default:
        if (native_ != nullptr) {
          const int slot = outs_[0]->slot_bytes();
          native_(kind_, outs_[0]->untyped_data() + oi * slot,
                  operands_[n_ + 1]->untyped_data() + ui * slot);
        } else {
          CombineWide(kind_, outs_[0], oi, *operands_[n_ + 1], ui);
        }
        return Status::Ok();
    }
  }

 private:
  const size_t n_;
  Operands operands_;
  const std::vector<Literal*>& outs_;
  const Combine kind_;
  const NativeCombineFn native_;
  ScalarCaller caller_;
};

}  // namespace

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
  ASSIGN_OR_RETURN(const ScatterPlan plan, PlanScatter(inst, dn, indices, op_dims, upd_dims));
  const int64_t op_rank = static_cast<int64_t>(op_dims.size());
  ScatterCombiner combiner(*inst.to_apply(), operands, outs, ctx);
  Dims start(op_rank, 0);

  // (Named rather than wrapped in RETURN_IF_ERROR: the lambda uses that macro itself.)
  const Status status = ForEachOffset<2>(
      plan.scatter_sizes, {&plan.scatter_idx_strides, &plan.scatter_upd_strides},
      [&](const Dims& scatter, const std::array<int64_t, 2>& offsets) -> Status {
        RETURN_IF_ERROR(ctx.CheckCancelled());
        std::fill(start.begin(), start.end(), 0);
        for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
          start[dn.scatter_dims_to_operand_dims[k]] =
              ReadIndex(indices, offsets[0] + static_cast<int64_t>(k) * plan.il.vector_stride);
        }
        for (size_t k = 0; k < plan.batching_positions.size(); ++k) {
          start[dn.input_batching_dims[k]] = scatter[plan.batching_positions[k]];
        }
        for (int64_t d = 0; d < op_rank; ++d) {
          if (start[d] < 0 || start[d] > op_dims[d] - plan.window_size[d]) return Status::Ok();
        }
        const int64_t base = LinearIndex(start, plan.op_strides);
        return ForEachOffset<2>(plan.window_sizes,
                                {&plan.window_op_strides, &plan.window_upd_strides},
                                [&](const Dims&, const std::array<int64_t, 2>& w) -> Status {
                                  return combiner.Apply(base + w[0], offsets[1] + w[1]);
                                });
      });
  if (!status.ok()) return status;
  return result;
}

}  // namespace data_movement_internal
}  // namespace fusebox::interpreter
