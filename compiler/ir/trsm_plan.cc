// The cuBLAS trsm plan of a `triangular-solve`, and the plan run on the host as cuBLAS
// defines it.
#include "compiler/ir/trsm_plan.h"

#include <complex>
#include <vector>

#include "compiler/ir/blas_elements.h"

namespace fusebox {

namespace {

Status Refuse(const Instruction& solve, const std::string& why) {
  return InvalidArgument(solve.name() + " (triangular-solve): " + why);
}

}  // namespace

std::string TrsmPlan::RoutineName() const {
  return std::string("cublas") + BlasTypeLetter(type) + (batch > 1 ? "trsmBatched" : "trsm");
}

std::string TrsmPlan::ToString() const {
  static const char* kOps[] = {"N", "T", "C"};
  return RoutineName() + " side=" + (side == 0 ? "L" : "R") + " fill=" + (fill == 0 ? "L" : "U") +
         " op=" + kOps[op] + " diag=" + (diag == 0 ? "N" : "U") + " m=" + std::to_string(m) +
         " n=" + std::to_string(n) + (batch > 1 ? " batch=" + std::to_string(batch) : "");
}

StatusOr<TrsmPlan> PlanTriangularSolve(const Instruction& solve) {
  if (solve.opcode() != Opcode::kTriangularSolve) return InvalidArgument(solve.name() + " is not a triangular-solve");
  if (solve.operand_count() != 2) return Refuse(solve, "takes a and b");
  const Shape& a = solve.operand(0)->shape();
  const Shape& b = solve.operand(1)->shape();
  if (!a.IsArray() || !b.IsArray() || !solve.shape().IsArray() || a.rank() < 2 || b.rank() != a.rank() ||
      !(solve.shape() == b)) {
    return Refuse(solve, "a [..., k, k] and b [..., M, N] of one rank, the result b's shape");
  }
  TrsmPlan plan;
  plan.type = b.element_type();
  plan.element_bytes = BlasElementBytes(plan.type);
  if (plan.element_bytes == 0) {
    return Refuse(solve, "of " + std::string(PrimitiveTypeName(plan.type)) + " (cuBLAS's trsm: f32, f64, c64, c128)");
  }
  if (a.element_type() != plan.type) return Refuse(solve, "a and b differ in type");
  const int64_t rank = a.rank();
  const int64_t k = a.dimensions(rank - 1);
  const int64_t rows = b.dimensions(rank - 2), cols = b.dimensions(rank - 1);
  const bool left = solve.attrs().left_side.value_or(false);
  if (a.dimensions(rank - 2) != k || k != (left ? rows : cols)) {
    return Refuse(solve, "a " + a.ToString() + " does not fit b " + b.ToString() + (left ? " on the left" : " on the right"));
  }
  for (int64_t d = 0; d + 2 < rank; ++d) {
    if (a.dimensions(d) != b.dimensions(d)) return Refuse(solve, "a and b differ in batch dimension " + std::to_string(d));
    plan.batch *= a.dimensions(d);
  }
  // The transposed problem on the same buffers (trsm_plan.h).
  plan.side = left ? 1 : 0;
  plan.fill = solve.attrs().lower.value_or(false) ? 1 : 0;
  switch (solve.attrs().transpose_a.value_or(TransposeA::kNoTranspose)) {
    case TransposeA::kNoTranspose: plan.op = 0; break;
    case TransposeA::kTranspose: plan.op = 1; break;
    case TransposeA::kAdjoint: plan.op = 2; break;
  }
  plan.diag = solve.attrs().unit_diagonal.value_or(false) ? 1 : 0;
  plan.m = cols;
  plan.n = rows;
  plan.lda = k;
  plan.ldb = cols;
  plan.a_stride = k * k;
  plan.b_stride = rows * cols;
  plan.empty = b.ElementCount() == 0;
  const bool complex = plan.type == PrimitiveType::kC64 || plan.type == PrimitiveType::kC128;
  const int64_t rhs = left ? cols : rows;
  plan.flops = (complex ? 4 : 1) * k * k * rhs * plan.batch;
  plan.bytes_read = a.ByteSize() + b.ByteSize();
  plan.bytes_written = b.ByteSize();
  return plan;
}

namespace {

using C = HostComplex;

// One column-major trsm with alpha 1 on A' (lda) and B' (m x n, ldb).
template <typename T>
void SolveOne(const TrsmPlan& plan, const T* a, T* b) {
  const int64_t k = plan.side == 0 ? plan.m : plan.n;
  // t = op(the referenced triangle of A', with a unit diagonal when asked).
  std::vector<C> t(static_cast<size_t>(k * k));
  auto stored = [&](int64_t i, int64_t j) -> C {
    if (i == j && plan.diag == 1) return 1;
    const bool in = plan.fill == 0 ? i >= j : i <= j;
    return in ? HostLoad(a, i + j * plan.lda) : C(0);
  };
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < k; ++j) {
      C v = plan.op == 0 ? stored(i, j) : stored(j, i);
      if (plan.op == 2) v = std::conj(v);
      t[static_cast<size_t>(i + j * k)] = v;
    }
  }
  auto T_ = [&](int64_t i, int64_t j) { return t[static_cast<size_t>(i + j * k)]; };
  const bool t_lower = (plan.fill == 0) == (plan.op == 0);
  auto B_ = [&](int64_t i, int64_t j) { return HostLoad(b, i + j * plan.ldb); };
  auto set = [&](int64_t i, int64_t j, C v) { HostStore(b, i + j * plan.ldb, v); };
  if (plan.side == 0) {
    // t x = b, a column of x at a time.
    for (int64_t c = 0; c < plan.n; ++c) {
      std::vector<C> x(static_cast<size_t>(k));
      for (int64_t s = 0; s < k; ++s) {
        const int64_t i = t_lower ? s : k - 1 - s;
        C sum = B_(i, c);
        for (int64_t l = 0; l < k; ++l) {
          if (t_lower ? l < i : l > i) sum -= T_(i, l) * x[static_cast<size_t>(l)];
        }
        x[static_cast<size_t>(i)] = sum / T_(i, i);
      }
      for (int64_t i = 0; i < k; ++i) set(i, c, x[static_cast<size_t>(i)]);
    }
  } else {
    // x t = b, a row of x at a time: x_r[j] depends on the x_r[l] with t(l, j) != 0.
    for (int64_t r = 0; r < plan.m; ++r) {
      std::vector<C> x(static_cast<size_t>(k));
      for (int64_t s = 0; s < k; ++s) {
        const int64_t j = t_lower ? k - 1 - s : s;
        C sum = B_(r, j);
        for (int64_t l = 0; l < k; ++l) {
          if (t_lower ? l > j : l < j) sum -= x[static_cast<size_t>(l)] * T_(l, j);
        }
        x[static_cast<size_t>(j)] = sum / T_(j, j);
      }
      for (int64_t j = 0; j < k; ++j) set(r, j, x[static_cast<size_t>(j)]);
    }
  }
}

template <typename T>
void SolveAll(const TrsmPlan& plan, const void* a, void* b) {
  for (int64_t i = 0; i < plan.batch; ++i) {
    SolveOne(plan, static_cast<const T*>(a) + i * plan.a_stride, static_cast<T*>(b) + i * plan.b_stride);
  }
}

}  // namespace

Status RunTrsmPlanOnHost(const TrsmPlan& plan, const void* a, void* b) {
  if (plan.empty) return Status::Ok();
  switch (plan.type) {
    case PrimitiveType::kF32: SolveAll<float>(plan, a, b); break;
    case PrimitiveType::kF64: SolveAll<double>(plan, a, b); break;
    case PrimitiveType::kC64: SolveAll<std::complex<float>>(plan, a, b); break;
    case PrimitiveType::kC128: SolveAll<std::complex<double>>(plan, a, b); break;
    default: return Internal("trsm plan of type " + std::string(PrimitiveTypeName(plan.type)));
  }
  return Status::Ok();
}

}  // namespace fusebox
