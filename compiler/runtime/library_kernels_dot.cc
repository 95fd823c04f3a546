// Library kernels of the CPU runtime: dot through oneDNN's or Eigen's GEMM, batched,
// with operands packed or mapped in place (library_kernels.h has the contract).
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/library_kernels_internal.h"

#include <chrono>
#include <mutex>

namespace fusebox::runtime::library {
namespace {

// ===========================================================================
// dot
// ===========================================================================

// A dimension of an operand or the result: its size and element stride.
struct SizeStride {
  int64_t size;
  int64_t stride;
};
using Group = std::vector<SizeStride>;  // dimensions linearized row-major, in this order

// The group as one strided dimension, if its dimensions nest (each stride is the next
// one's stride times its size; size-1 dimensions do not count).
bool MergeGroup(const Group& group, SizeStride* merged) {
  int64_t size = 1;
  int64_t stride = 1;
  bool first = true;
  for (const SizeStride& d : group) {
    if (d.size == 1) continue;
    if (!first && stride != d.stride * d.size) return false;
    size *= d.size;
    stride = d.stride;
    first = false;
  }
  *merged = {size, stride};
  return true;
}

int64_t GroupSize(const Group& group) {
  int64_t n = 1;
  for (const SizeStride& d : group) n *= d.size;
  return n;
}

// The copy dimensions that place `group` row-major at `base_stride` in a packed buffer.
void AppendPacked(const Group& group, int64_t base_stride, bool group_is_source,
                  std::vector<CopyDim>* dims) {
  int64_t stride = base_stride * GroupSize(group);
  for (const SizeStride& d : group) {
    stride = d.size == 0 ? 0 : stride / d.size;
    if (group_is_source) {
      dims->push_back({d.size, d.stride, stride});
    } else {
      dims->push_back({d.size, stride, d.stride});
    }
  }
}

// Whether the smallest stride (of a dimension of size > 1) belongs to `cols` rather than
// `rows`: the packed copy then keeps the columns contiguous (row-major).
bool ColumnsAreMinor(const Group& rows, const Group& cols) {
  int64_t best = std::numeric_limits<int64_t>::max();
  bool in_cols = true;
  for (const SizeStride& d : rows) {
    if (d.size > 1 && d.stride < best) best = d.stride, in_cols = false;
  }
  for (const SizeStride& d : cols) {
    if (d.size > 1 && d.stride < best) best = d.stride, in_cols = true;
  }
  return in_cols;
}

struct DotPlan {
  PrimitiveType lhs_type = PrimitiveType::kF32;
  PrimitiveType rhs_type = PrimitiveType::kF32;
  PrimitiveType out_type = PrimitiveType::kF32;
  int64_t batch = 1, m = 1, k = 1, n = 1;
  // lhs is [batch][m][k], rhs [batch][k][n], the result [batch][m][n], each group in the
  // order XLA linearizes it (batch and contracting dimensions as listed, free ascending).
  Group lhs_batch, lhs_m, lhs_k, rhs_batch, rhs_k, rhs_n, out_batch, out_m, out_n;
};

Status PlanDot(const Instruction& dot, DotPlan* plan) {
  if (dot.opcode() != Opcode::kDot) return Invalid(dot, "not a dot");
  if (dot.operand_count() != 2) {
    return Invalid(dot, "expects 2 operands, got " + Str(dot.operand_count()));
  }
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  const Shape& os = dot.shape();
  std::vector<int64_t> lst, rst, ost;
  RETURN_IF_ERROR(DenseStrides(dot, ls, "lhs", &lst));
  RETURN_IF_ERROR(DenseStrides(dot, rs, "rhs", &rst));
  RETURN_IF_ERROR(DenseStrides(dot, os, "result", &ost));
  plan->lhs_type = ls.element_type();
  plan->rhs_type = rs.element_type();
  plan->out_type = os.element_type();
  for (PrimitiveType t : {plan->lhs_type, plan->rhs_type, plan->out_type}) {
    if (!IsArithmeticType(t)) return Unsupported(dot, "element type " + TypeName(t));
  }
  for (PrimitiveType t : {plan->lhs_type, plan->rhs_type}) {
    if (!Convertible(t, plan->out_type)) {
      return Unsupported(dot,
                         TypeName(t) + " operands with a " + TypeName(plan->out_type) + " result");
    }
  }
  if (!dot.attrs().sparsity.empty()) return Unsupported(dot, "sparse dots");
  static const DotDimensionNumbers kNone;
  const DotDimensionNumbers& dn =
      dot.attrs().dot_dimension_numbers ? *dot.attrs().dot_dimension_numbers : kNone;
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() != dn.rhs_contracting_dimensions.size()) {
    return Invalid(dot, "lhs and rhs list different numbers of batch or contracting dimensions");
  }
  const std::vector<int64_t>& ld = ls.dimensions();
  const std::vector<int64_t>& rd = rs.dimensions();
  std::vector<bool> lused(ld.size(), false), rused(rd.size(), false);
  auto claim = [&](const std::vector<int64_t>& list, std::vector<bool>& used,
                   const char* what) -> Status {
    for (int64_t d : list) {
      if (d < 0 || d >= static_cast<int64_t>(used.size()) || used[d]) {
        return Invalid(
            dot, std::string(what) + " dimension " + Str(d) + " is out of range or listed twice");
      }
      used[d] = true;
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(claim(dn.lhs_batch_dimensions, lused, "lhs batch"));
  RETURN_IF_ERROR(claim(dn.lhs_contracting_dimensions, lused, "lhs contracting"));
  RETURN_IF_ERROR(claim(dn.rhs_batch_dimensions, rused, "rhs batch"));
  RETURN_IF_ERROR(claim(dn.rhs_contracting_dimensions, rused, "rhs contracting"));

  std::vector<int64_t> out_dims;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_batch_dimensions[i];
    const int64_t b = dn.rhs_batch_dimensions[i];
    if (ld[a] != rd[b]) {
      return Invalid(dot, "batch dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    }
    plan->lhs_batch.push_back({ld[a], lst[a]});
    plan->rhs_batch.push_back({rd[b], rst[b]});
    out_dims.push_back(ld[a]);
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    const int64_t a = dn.lhs_contracting_dimensions[i];
    const int64_t b = dn.rhs_contracting_dimensions[i];
    if (ld[a] != rd[b]) {
      return Invalid(dot,
                     "contracting dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    }
    plan->lhs_k.push_back({ld[a], lst[a]});
    plan->rhs_k.push_back({rd[b], rst[b]});
  }
  for (size_t d = 0; d < ld.size(); ++d) {
    if (!lused[d]) {
      plan->lhs_m.push_back({ld[d], lst[d]});
      out_dims.push_back(ld[d]);
    }
  }
  for (size_t d = 0; d < rd.size(); ++d) {
    if (!rused[d]) {
      plan->rhs_n.push_back({rd[d], rst[d]});
      out_dims.push_back(rd[d]);
    }
  }
  if (os.dimensions() != out_dims) {
    return Invalid(dot, "result dimensions " + DimsText(os.dimensions()) +
                            " differ from the computed " + DimsText(out_dims));
  }
  size_t o = 0;
  for (size_t i = 0; i < plan->lhs_batch.size(); ++i, ++o) {
    plan->out_batch.push_back({out_dims[o], ost[o]});
  }
  for (size_t i = 0; i < plan->lhs_m.size(); ++i, ++o) plan->out_m.push_back({out_dims[o], ost[o]});
  for (size_t i = 0; i < plan->rhs_n.size(); ++i, ++o) plan->out_n.push_back({out_dims[o], ost[o]});
  plan->batch = GroupSize(plan->lhs_batch);
  plan->m = GroupSize(plan->lhs_m);
  plan->k = GroupSize(plan->lhs_k);
  plan->n = GroupSize(plan->rhs_n);
  return Status::Ok();
}

// Element offsets of every index of `group` (a batch), in the order XLA linearizes it.
// The batch dimensions need not nest: attention's [batch, seq, heads, head_dim] operands
// have their batch dimensions (batch, heads) on both sides of the sequence dimension, and
// each (batch, head) matrix is used in place at its own offset.
std::vector<int64_t> BatchOffsets(const Group& group) {
  std::vector<int64_t> offsets{0};
  for (const SizeStride& d : group) {
    std::vector<int64_t> next;
    next.reserve(offsets.size() * static_cast<size_t>(std::max<int64_t>(d.size, 0)));
    for (int64_t base : offsets) {
      for (int64_t i = 0; i < d.size; ++i) next.push_back(base + i * d.stride);
    }
    offsets.swap(next);
  }
  return offsets;
}

// One operand (or the result) as a batch of matrices: in place when its layout allows,
// otherwise packed into `scratch`.
template <typename T>
struct BatchedView {
  MatView<T> matrix;             // batch 0
  std::vector<int64_t> offsets;  // element offset of each batch's matrix from batch 0's
  bool packed = false;
};

// In place when the rows and the columns each merge into one strided dimension (the
// batch dimensions may lie anywhere).
template <typename T>
BatchedView<T> InPlaceView(T* data, const Group& batch, const Group& rows, const Group& cols,
                           bool* ok) {
  BatchedView<T> v;
  SizeStride r{1, 1}, c{1, 1};
  *ok = MergeGroup(rows, &r) && MergeGroup(cols, &c) && Aligned<T>(data);
  v.matrix = {data, r.size, c.size, r.stride, c.stride};
  *ok = *ok && EigenCanMap(v.matrix);
  if (*ok) v.offsets = BatchOffsets(batch);
  return v;
}

// A packed [batch][rows][cols] buffer: row-major matrices when `row_major`, else
// column-major.
template <typename T>
BatchedView<T> PackedView(T* data, int64_t batch, int64_t rows, int64_t cols, bool row_major) {
  BatchedView<T> v;
  v.matrix = {data, rows, cols, row_major ? cols : 1, row_major ? 1 : rows};
  v.offsets.resize(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) v.offsets[b] = b * rows * cols;
  v.packed = true;
  return v;
}

template <typename T>
std::vector<CopyDim> PackedDims(const Group& batch, const Group& rows, const Group& cols,
                                const BatchedView<T>& packed, bool group_is_source) {
  std::vector<CopyDim> dims;
  AppendPacked(batch, packed.matrix.rows * packed.matrix.cols, group_is_source, &dims);
  AppendPacked(rows, packed.matrix.row_stride, group_is_source, &dims);
  AppendPacked(cols, packed.matrix.col_stride, group_is_source, &dims);
  return dims;
}

template <typename T>
BatchedView<T> PrepareOperand(const DotPlan& p, PrimitiveType type, const uint8_t* data,
                              const Group& batch, const Group& rows, const Group& cols,
                              std::vector<T>* scratch) {
  bool ok = false;
  if (StorageIs<T>(type) && type == p.out_type) {
    BatchedView<T> v =
        InPlaceView<T>(reinterpret_cast<T*>(const_cast<uint8_t*>(data)), batch, rows, cols, &ok);
    if (ok) return v;
  }
  const int64_t r = GroupSize(rows);
  const int64_t c = GroupSize(cols);
  scratch->resize(static_cast<size_t>(p.batch * r * c));
  BatchedView<T> v = PackedView<T>(scratch->data(), p.batch, r, c, ColumnsAreMinor(rows, cols));
  PackInto<T>(PackedDims(batch, rows, cols, v, /*group_is_source=*/true), data, type, p.out_type,
              scratch->data());
  return v;
}

template <typename T>
Status DotImpl(const Instruction& dot, const DotPlan& p, const uint8_t* lhs, const uint8_t* rhs,
               uint8_t* out, int threads) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return Status::Ok();
  std::vector<T> lhs_scratch, rhs_scratch, out_scratch;
  BatchedView<T> l =
      PrepareOperand<T>(p, p.lhs_type, lhs, p.lhs_batch, p.lhs_m, p.lhs_k, &lhs_scratch);
  BatchedView<T> r =
      PrepareOperand<T>(p, p.rhs_type, rhs, p.rhs_batch, p.rhs_k, p.rhs_n, &rhs_scratch);
  bool in_place = false;
  BatchedView<T> o;
  if (StorageIs<T>(p.out_type)) {
    o = InPlaceView<T>(reinterpret_cast<T*>(out), p.out_batch, p.out_m, p.out_n, &in_place);
  }
  if (!in_place) {
    out_scratch.resize(static_cast<size_t>(p.batch * p.m * p.n));
    o = PackedView<T>(out_scratch.data(), p.batch, p.m, p.n, ColumnsAreMinor(p.out_m, p.out_n));
  }

  auto matrix = [](const BatchedView<T>& v, int64_t b) {
    MatView<T> m = v.matrix;
    m.data += v.offsets[static_cast<size_t>(b)];
    return m;
  };
  const bool transpose_rhs = BugPlanted(PlantedBug::kDotRhsTransposed) && r.matrix.rows == r.matrix.cols;
  const double flops = 2.0 * static_cast<double>(p.batch) * static_cast<double>(p.m) *
                       static_cast<double>(p.n) * static_cast<double>(p.k);
  const int workers = ThreadsFor(flops, threads);
  // Whole batches per thread when there are enough of them; otherwise each GEMM is split.
  const int64_t batch_workers = std::min<int64_t>(p.batch, workers);
  const int inner = static_cast<int>(std::max<int64_t>(1, workers / batch_workers));
  std::vector<char> failed(static_cast<size_t>(batch_workers), 0);
  const bool ok =
      ParallelFor(p.batch, static_cast<int>(batch_workers), [&](int64_t b0, int64_t b1, int w) {
        for (int64_t b = b0; b < b1; ++b) {
          const MatView<T> rhs_view = transpose_rhs ? Transposed(matrix(r, b)) : matrix(r, b);
          if (!GemmParallel(matrix(l, b), rhs_view, matrix(o, b), inner)) {
            failed[w] = 1;
          }
        }
      });
  if (!ok || std::count(failed.begin(), failed.end(), 1) > 0) return OutOfMemory(dot);
  if (!in_place) {
    UnpackFrom<T>(PackedDims(p.out_batch, p.out_m, p.out_n, o, /*group_is_source=*/false),
                  out_scratch.data(), p.out_type, out);
  }
  return Status::Ok();
}

}  // namespace
}  // namespace fusebox::runtime::library

namespace fusebox::runtime {

using namespace runtime::library;  // NOLINT: the library kernels' shared machinery

bool CanRunDot(const Instruction& dot, std::string* why) {
  DotPlan plan;
  const Status status = PlanDot(dot, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunDot(const Instruction& dot, const void* lhs, const void* rhs, void* out, int threads) {
  DotPlan plan;
  RETURN_IF_ERROR(PlanDot(dot, &plan));
  if (plan.batch * plan.m * plan.n == 0) return Status::Ok();
  if (out == nullptr || ((lhs == nullptr || rhs == nullptr) && plan.k != 0)) {
    return Invalid(dot, "null buffer");
  }
  try {
    return WithAccumulator(plan.out_type, [&](auto zero) -> Status {
      using T = decltype(zero);
      return DotImpl<T>(dot, plan, static_cast<const uint8_t*>(lhs),
                        static_cast<const uint8_t*>(rhs), static_cast<uint8_t*>(out), threads);
    });
  } catch (const std::bad_alloc&) {
    return OutOfMemory(dot);
  }
}

std::string DotPath(const Instruction& dot) {
  DotPlan p;
  if (!PlanDot(dot, &p).ok()) return "invalid";
  auto shape = [](int64_t rows, int64_t cols) { return "[" + Str(rows) + "x" + Str(cols) + "]"; };
  std::string text = p.batch == 1 ? "GEMM " : "batched GEMM " + Str(p.batch) + " x ";
  text += shape(p.m, p.k) + "*" + shape(p.k, p.n);
  const Status described = WithAccumulator(p.out_type, [&](auto zero) -> Status {
    using T = decltype(zero);
    // Where each side lives (alignment aside: the runtime's buffers are aligned).
    // Where each side lives: RunDot's own decision (PrepareOperand, DotImpl), alignment
    // aside (the runtime's buffers are aligned).
    auto where = [&](PrimitiveType type, bool operand, const Group& batch, const Group& rows,
                     const Group& cols) {
      bool ok = StorageIs<T>(type) && (!operand || type == p.out_type);
      if (ok) InPlaceView<T>(static_cast<T*>(nullptr), batch, rows, cols, &ok);
      return ok ? "in place" : "packed";
    };
    text += std::string(", lhs ") + where(p.lhs_type, true, p.lhs_batch, p.lhs_m, p.lhs_k) +
            ", rhs " + where(p.rhs_type, true, p.rhs_batch, p.rhs_k, p.rhs_n) + ", result " +
            where(p.out_type, false, p.out_batch, p.out_m, p.out_n);
    if constexpr (std::is_same_v<T, float>) {
      text += LoadOneDnn() != nullptr ? " (oneDNN sgemm" : " (Eigen";
    } else {
      text += " (Eigen";
    }
    text += p.batch == 1 ? ")" : " per batch, threads across batches)";
    return Status::Ok();
  });
  return described.ok() ? text : "invalid";
}

double WarmUpGemmLibrary(int threads) {
  static std::once_flag once;
  double seconds = 0;
  std::call_once(once, [&] {
    const auto start = std::chrono::steady_clock::now();
    const OneDnn* dnnl = LoadOneDnn();
    if (dnnl == nullptr) return;
    if (dnnl->set_num_threads != nullptr) dnnl->set_num_threads(std::max(1, threads));
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    float c[4];
    for (char ta : {'N', 'T'}) {
      for (char tb : {'N', 'T'}) dnnl->sgemm(ta, tb, 2, 2, 2, 1.0f, a, 2, b, 2, 0.0f, c, 2);
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  return seconds;
}

int64_t DotFlops(const Instruction& dot) {
  DotPlan plan;
  if (!PlanDot(dot, &plan).ok()) return -1;
  return 2 * plan.batch * plan.m * plan.n * plan.k;
}

}  // namespace fusebox::runtime
