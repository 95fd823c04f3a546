// Shape inference for gather and scatter.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

// Index dimensions with an implicit trailing 1 when index_vector_dim equals the rank.
std::vector<int64_t> ExpandedIndexDims(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> dims = indices.dimensions();
  if (index_vector_dim == indices.rank()) dims.push_back(1);
  return dims;
}

Status CheckSortedUnique(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  RETURN_IF_ERROR(CheckDimensionList(dims, rank, what));
  if (!IsSorted(dims)) return Invalid(Named(what, dims), " must be sorted");
  return Status::Ok();
}

StatusOr<Shape> InferGather(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& x = OperandShape(ins, 0);
  const Shape& indices = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(x, "the gather operand"));
  RETURN_IF_ERROR(ExpectArray(indices, "the gather indices"));
  if (!IsInteger(indices.element_type())) {
    return Invalid("gather indices must be integers, got ", Str(indices));
  }
  const auto& a = ins.attrs();
  if (!a.gather_dimension_numbers) return Invalid("gather needs dimension numbers");
  const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
  const std::vector<int64_t>& slice_sizes = a.gather_slice_sizes;
  const int64_t ivd = g.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid("gather index_vector_dim=", ivd, " is out of range for indices ", Str(indices));
  }
  const std::vector<int64_t> idx = ExpandedIndexDims(indices, ivd);
  if (static_cast<int64_t>(g.start_index_map.size()) != idx[ivd]) {
    return Invalid("gather start_index_map=", DimList(g.start_index_map), " has ",
                   g.start_index_map.size(), " entries but the index vector (dimension ", ivd,
                   " of ", Str(indices), ") has ", idx[ivd]);
  }
  RETURN_IF_ERROR(CheckDimensionList(g.start_index_map, x.rank(), "gather start_index_map="));
  RETURN_IF_ERROR(
      CheckSortedUnique(g.collapsed_slice_dims, x.rank(), "gather collapsed_slice_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(g.operand_batching_dims, x.rank(), "gather operand_batching_dims="));
  for (int64_t dim : g.collapsed_slice_dims) {
    if (Contains(g.operand_batching_dims, dim)) {
      return Invalid("gather dimension ", dim, " is both collapsed and a batching dimension");
    }
  }
  if (g.start_indices_batching_dims.size() != g.operand_batching_dims.size()) {
    return Invalid("gather start_indices_batching_dims=", DimList(g.start_indices_batching_dims),
                   " and operand_batching_dims=", DimList(g.operand_batching_dims),
                   " must have the same length");
  }
  RETURN_IF_ERROR(CheckDimensionList(g.start_indices_batching_dims, idx.size(),
                                     "gather start_indices_batching_dims="));
  if (Contains(g.start_indices_batching_dims, ivd)) {
    return Invalid("gather start_indices_batching_dims must not contain index_vector_dim=", ivd);
  }
  if (static_cast<int64_t>(slice_sizes.size()) != x.rank()) {
    return Invalid("gather slice_sizes=", DimList(slice_sizes), " must have ", x.rank(),
                   " entries for operand ", Str(x));
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (slice_sizes[i] < 0 || slice_sizes[i] > x.dimensions(i)) {
      return Invalid("gather slice_sizes=", DimList(slice_sizes), " exceeds operand ", Str(x),
                     " in dimension ", i);
    }
    if ((Contains(g.collapsed_slice_dims, i) || Contains(g.operand_batching_dims, i)) &&
        slice_sizes[i] > 1) {
      return Invalid("gather slice size in collapsed/batching dimension ", i, " must be <= 1, got ",
                     slice_sizes[i]);
    }
  }
  const int64_t window_count = x.rank() - static_cast<int64_t>(g.collapsed_slice_dims.size()) -
                               static_cast<int64_t>(g.operand_batching_dims.size());
  if (static_cast<int64_t>(g.offset_dims.size()) != window_count) {
    return Invalid("gather offset_dims=", DimList(g.offset_dims), " has ", g.offset_dims.size(),
                   " entries but operand ", Str(x), " leaves ", window_count,
                   " uncollapsed dimension(s)");
  }
  const int64_t out_rank = static_cast<int64_t>(g.offset_dims.size() + idx.size()) - 1;
  RETURN_IF_ERROR(CheckSortedUnique(g.offset_dims, out_rank, "gather offset_dims="));
  std::vector<int64_t> offsets, batches;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!Contains(g.collapsed_slice_dims, i) && !Contains(g.operand_batching_dims, i)) {
      offsets.push_back(slice_sizes[i]);
    }
  }
  for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
    if (i != ivd) batches.push_back(idx[i]);
  }
  std::vector<int64_t> dims;
  size_t next_offset = 0, next_batch = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    if (Contains(g.offset_dims, i)) {
      dims.push_back(offsets[next_offset++]);
    } else {
      dims.push_back(batches[next_batch++]);
    }
  }
  return Shape(x.element_type(), dims);
}

StatusOr<Shape> InferScatter(const Instruction& ins) {
  const int64_t count = ins.operand_count();
  if (count < 3 || count % 2 != 1) {
    return Invalid("scatter expects N operands, indices and N updates, got ", count, " operand(s)");
  }
  const int64_t n = (count - 1) / 2;
  const Shape& x = OperandShape(ins, 0);
  const Shape& indices = OperandShape(ins, n);
  RETURN_IF_ERROR(ExpectArray(indices, "the scatter indices"));
  if (!IsInteger(indices.element_type())) {
    return Invalid("scatter indices must be integers, got ", Str(indices));
  }
  const auto& a = ins.attrs();
  if (!a.scatter_dimension_numbers) return Invalid("scatter needs dimension numbers");
  const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
  std::vector<PrimitiveType> types, update_types;
  std::vector<Shape> results;
  for (int64_t i = 0; i < n; ++i) {
    const Shape& op = OperandShape(ins, i);
    const Shape& up = OperandShape(ins, n + 1 + i);
    RETURN_IF_ERROR(ExpectArray(op, "a scatter operand"));
    RETURN_IF_ERROR(ExpectArray(up, "a scatter update"));
    if (!SameDims(op, x)) {
      return Invalid("scatter operands have different dimensions: ", Str(x), " and ", Str(op));
    }
    if (!SameDims(up, OperandShape(ins, n + 1))) {
      return Invalid("scatter updates have different dimensions: ", Str(OperandShape(ins, n + 1)),
                     " and ", Str(up));
    }
    types.push_back(op.element_type());
    update_types.push_back(up.element_type());
    results.push_back(NoLayout(op));
  }
  const Shape& updates = OperandShape(ins, n + 1);
  const int64_t ivd = s.index_vector_dim;
  if (ivd < 0 || ivd > indices.rank()) {
    return Invalid("scatter index_vector_dim=", ivd, " is out of range for indices ", Str(indices));
  }
  const std::vector<int64_t> idx = ExpandedIndexDims(indices, ivd);
  RETURN_IF_ERROR(
      CheckSortedUnique(s.update_window_dims, updates.rank(), "scatter update_window_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(s.inserted_window_dims, x.rank(), "scatter inserted_window_dims="));
  RETURN_IF_ERROR(
      CheckSortedUnique(s.input_batching_dims, x.rank(), "scatter input_batching_dims="));
  for (int64_t dim : s.inserted_window_dims) {
    if (Contains(s.input_batching_dims, dim)) {
      return Invalid("scatter dimension ", dim, " is both inserted and a batching dimension");
    }
  }
  if (s.scatter_indices_batching_dims.size() != s.input_batching_dims.size()) {
    return Invalid(
        "scatter scatter_indices_batching_dims and input_batching_dims must have the "
        "same length");
  }
  if (static_cast<int64_t>(s.scatter_dims_to_operand_dims.size()) != idx[ivd]) {
    return Invalid("scatter scatter_dims_to_operand_dims=", DimList(s.scatter_dims_to_operand_dims),
                   " has ", s.scatter_dims_to_operand_dims.size(),
                   " entries but the index vector (dimension ", ivd, " of ", Str(indices), ") has ",
                   idx[ivd]);
  }
  RETURN_IF_ERROR(CheckDimensionList(s.scatter_dims_to_operand_dims, x.rank(),
                                     "scatter scatter_dims_to_operand_dims="));
  const int64_t window_count = static_cast<int64_t>(s.update_window_dims.size());
  if (window_count +
          static_cast<int64_t>(s.inserted_window_dims.size() + s.input_batching_dims.size()) !=
      x.rank()) {
    return Invalid("scatter update_window_dims=", DimList(s.update_window_dims),
                   " + inserted_window_dims=", DimList(s.inserted_window_dims),
                   " + input_batching_dims=", DimList(s.input_batching_dims),
                   " must cover the operand rank ", x.rank());
  }
  const int64_t scatter_rank = static_cast<int64_t>(idx.size()) - 1;
  if (updates.rank() != window_count + scatter_rank) {
    return Invalid("scatter updates ", Str(updates), " must have rank ",
                   window_count + scatter_rank, " (", window_count, " window + ", scatter_rank,
                   " scatter dimension(s))");
  }
  // Window dimensions of the update against the operand's non-inserted dimensions.
  int64_t w = 0;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (Contains(s.inserted_window_dims, i) || Contains(s.input_batching_dims, i)) continue;
    const int64_t ud = s.update_window_dims[w++];
    if (updates.dimensions(ud) > x.dimensions(i)) {
      return Invalid("scatter update window dimension ", ud, " of ", Str(updates),
                     " is larger than operand dimension ", i, " of ", Str(x));
    }
  }
  // Scatter dimensions of the update against the index batch dimensions.
  std::vector<int64_t> index_batch;
  for (int64_t i = 0; i < static_cast<int64_t>(idx.size()); ++i) {
    if (i != ivd) index_batch.push_back(idx[i]);
  }
  int64_t k = 0;
  for (int64_t i = 0; i < updates.rank(); ++i) {
    if (Contains(s.update_window_dims, i)) continue;
    if (updates.dimensions(i) != index_batch[k]) {
      return Invalid("scatter update dimension ", i, " of ", Str(updates), " is ",
                     updates.dimensions(i), " but the matching indices dimension of ", Str(indices),
                     " is ", index_batch[k]);
    }
    ++k;
  }
  ASSIGN_OR_RETURN(const Computation* combiner, Called(ins, 0, "to_apply"));
  RETURN_IF_ERROR(CheckReducer(combiner, types, update_types, "scatter to_apply").status());
  return TupleOrSingle(std::move(results));
}

}  // namespace fusebox::shape_inference_internal
