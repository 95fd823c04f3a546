// The cuSOLVER / cuBLAS plan of a Cholesky or LU call, and the plan run on the host as
// the solvers define it.
#include "compiler/ir/solver_plan.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdlib>
#include <map>
#include <string>
#include <optional>
#include <type_traits>
#include <vector>

#include "compiler/ir/backend_config.h"
#include "compiler/ir/blas_elements.h"
#include "compiler/ir/library_calls.h"

namespace fusebox {

namespace {

Status Refuse(const Instruction& call, const std::string& why) {
  return InvalidArgument(call.name() + " (" + call.attrs().custom_call_target + "): " + why);
}

}  // namespace

std::string SolverPlan::RoutineName() const {
  const char* letter = BlasTypeLetter(type);
  switch (routine) {
    case SolverRoutine::kPotrf: return std::string("cusolverDn") + letter + "potrf";
    case SolverRoutine::kPotrfBatched: return std::string("cusolverDn") + letter + "potrfBatched";
    case SolverRoutine::kGetrf: return std::string("cusolverDn") + letter + "getrf";
    case SolverRoutine::kGetrfBatched: return std::string("cublas") + letter + "getrfBatched";
    case SolverRoutine::kGeqrf: return std::string("cusolverDn") + letter + "geqrf";
    case SolverRoutine::kGeqrfBatched: return std::string("cublas") + letter + "geqrfBatched";
    case SolverRoutine::kOrgqr: return std::string("cusolverDn") + letter + "orgqr";
    case SolverRoutine::kSyevj: return std::string("cusolverDn") + letter + "syevj";
    case SolverRoutine::kSyevjBatched: return std::string("cusolverDn") + letter + "syevjBatched";
    case SolverRoutine::kSyevBatched: return "cusolverDnXsyevBatched";
    case SolverRoutine::kSyevd: return std::string("cusolverDn") + letter + "syevd";
    case SolverRoutine::kGesvdj: return std::string("cusolverDn") + letter + "gesvdj";
    case SolverRoutine::kGesvdjBatched: return std::string("cusolverDn") + letter + "gesvdjBatched";
  }
  return "";
}

std::string SolverPlan::ToString() const {
  std::string out = RoutineName();
  if (cholesky() || eigen()) {
    out += std::string(" fill=") + (fill == 0 ? "L" : "U") + " n=" + std::to_string(n);
  } else {
    out += " m=" + std::to_string(m) + " n=" + std::to_string(n);
    if (householder_product()) out += " k=" + std::to_string(taus);
    if (svd()) out += !vectors ? " values only" : econ ? " econ" : " full";
  }
  if (batch > 1) out += (out.find("Batched") != std::string::npos ? " batch=" : " x") + std::to_string(batch);
  if (routine == SolverRoutine::kSyevBatched && chunk < batch) out += " in calls of " + std::to_string(chunk);
  return out;
}

bool IsTransposedSolverTarget(std::string_view target) {
  return target == kGetrfTransposedTarget || target == kGeqrfTransposedTarget || target == kOrgqrTransposedTarget ||
         target == kSyevdTransposedTarget || target == kGesvdjTransposedTarget;
}

int64_t HouseholderProductFlops(int64_t rows, int64_t columns, int64_t reflectors) {
  const double m = static_cast<double>(rows), n = static_cast<double>(columns), k = static_cast<double>(reflectors);
  return static_cast<int64_t>(std::max(0.0, 4 * m * n * k - 2 * (m + n) * k * k + 4 * k * k * k / 3));
}

bool OrgqrRunsAsKernel(const Instruction& call) {
  if (call.opcode() != Opcode::kCustomCall || call.attrs().custom_call_target != kOrgqrTransposedTarget ||
      call.operand_count() != 2 || !call.shape().IsArray()) {
    return false;
  }
  const Shape& a = call.operand(0)->shape();
  const Shape& taus = call.operand(1)->shape();
  if (!a.IsArray() || a.rank() < 3 || !taus.IsArray() || taus.rank() != a.rank() - 1 ||
      (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64) ||
      taus.element_type() != a.element_type() || call.shape().dimensions() != a.dimensions()) {
    return false;
  }
  int64_t batch = 1;
  for (int64_t d = 0; d + 2 < a.rank(); ++d) batch *= a.dimensions(d);
  const int64_t rows = a.dimensions(a.rank() - 2), cols = a.dimensions(a.rank() - 1);
  const int64_t k = taus.dimensions(taus.rank() - 1);
  return batch > 1 && rows <= 128 && cols <= 128 && rows > 0 && cols > 0 && k <= rows && batch <= (int64_t{1} << 31) - 1;
}

bool IsSolverCall(const Instruction& call) {
  if (call.opcode() != Opcode::kCustomCall || OrgqrRunsAsKernel(call)) return false;
  const std::string& target = call.attrs().custom_call_target;
  return IsTransposedSolverTarget(target) || LibraryCallKindOf(target) == LibraryCallKind::kCholesky;
}

GpuCallRoute GpuRouteOf(const Instruction& call) {
  if (!IsLibraryCall(call)) return GpuCallRoute::kNotLibraryCall;
  if (OrgqrRunsAsKernel(call)) return GpuCallRoute::kOwnKernel;
  if (IsSolverCall(call)) return GpuCallRoute::kSolver;
  switch (*LibraryCallKindOf(call.attrs().custom_call_target)) {
    case LibraryCallKind::kGemm:
      return GpuCallRoute::kGemm;
    case LibraryCallKind::kConvForward:
    case LibraryCallKind::kConvBiasActivationForward:
    case LibraryCallKind::kConvBackwardInput:
    case LibraryCallKind::kConvBackwardFilter:
      return GpuCallRoute::kConvolution;
    default:
      return GpuCallRoute::kNone;
  }
}

std::string_view GpuCallRouteName(GpuCallRoute route) {
  switch (route) {
    case GpuCallRoute::kNotLibraryCall: return "not a library call";
    case GpuCallRoute::kOwnKernel: return "Fusebox's kernel";
    case GpuCallRoute::kGemm: return "cuBLAS";
    case GpuCallRoute::kConvolution: return "cuDNN";
    case GpuCallRoute::kSolver: return "a solver plan";
    case GpuCallRoute::kNone: return "no GPU route";
  }
  return "?";
}

StatusOr<SolverPlan> PlanSolverCall(const Instruction& call) {
  if (!IsSolverCall(call)) return InvalidArgument(call.name() + " is not a Cholesky call or a transposed LU or QR call");
  ASSIGN_OR_RETURN(const LibraryCall parsed, ParseLibraryCall(call));
  const Shape& a = call.operand(0)->shape();
  SolverPlan plan;
  plan.type = a.element_type();
  plan.element_bytes = BlasElementBytes(plan.type);
  const bool cholesky = parsed.kind == LibraryCallKind::kCholesky;
  const bool real = plan.type == PrimitiveType::kF32 || plan.type == PrimitiveType::kF64;
  if (plan.element_bytes == 0 || (!cholesky && !real)) {
    return Refuse(call, "of " + std::string(PrimitiveTypeName(plan.type)) +
                            (cholesky ? " (potrf: f32, f64, c64, c128)" : " (the transposed calls: f32, f64)"));
  }
  const int64_t rank = a.rank();
  const int64_t rows = a.dimensions(rank - 2), cols = a.dimensions(rank - 1);
  for (int64_t d = 0; d + 2 < rank; ++d) plan.batch *= a.dimensions(d);
  constexpr int64_t kIntMax = (int64_t{1} << 31) - 1;
  if (rows > kIntMax || cols > kIntMax || plan.batch > kIntMax) {
    return Refuse(call, a.ToString() + " is beyond the solvers' 32-bit sizes");
  }
  // The column-major view of the row-major [rows, cols] matrix is cols x rows.
  plan.m = cols;
  plan.n = rows;
  plan.stride = rows * cols;
  plan.empty = a.ElementCount() == 0;
  const bool complex = plan.type == PrimitiveType::kC64 || plan.type == PrimitiveType::kC128;
  const double scale = (complex ? 4.0 : 1.0) * static_cast<double>(plan.batch);
  if (cholesky) {
    plan.routine = plan.batch > 1 ? SolverRoutine::kPotrfBatched : SolverRoutine::kPotrf;
    plan.fill = parsed.lower ? 1 : 0;  // a's lower triangle is the column-major view's upper
    const double n = static_cast<double>(rows);
    plan.flops = static_cast<int64_t>(scale * n * n * n / 3);
  } else if (parsed.kind == LibraryCallKind::kLu) {
    // jaxlib's choice: cuBLAS's batched getrf for several square matrices that are small
    // against their number, cuSOLVER's getrf per matrix otherwise.
    const bool batched = plan.batch > 1 && plan.m == plan.n && plan.m / plan.batch <= 128;
    plan.routine = batched ? SolverRoutine::kGetrfBatched : SolverRoutine::kGetrf;
    plan.pivots = std::min(plan.m, plan.n);
    const double k = static_cast<double>(plan.pivots), big = static_cast<double>(std::max(plan.m, plan.n));
    plan.flops = static_cast<int64_t>(std::max(0.0, scale * (k * k * big - k * k * k / 3)));
  } else if (parsed.kind == LibraryCallKind::kQr) {
    // jaxlib's choice: cuBLAS's batched geqrf when both sides are small against the batch.
    const bool batched = plan.batch > 1 && plan.m / plan.batch <= 128 && plan.n / plan.batch <= 128;
    plan.routine = batched ? SolverRoutine::kGeqrfBatched : SolverRoutine::kGeqrf;
    plan.taus = std::min(plan.m, plan.n);
    const double k = static_cast<double>(plan.taus), big = static_cast<double>(std::max(plan.m, plan.n));
    plan.flops = static_cast<int64_t>(std::max(0.0, scale * (2 * k * k * big - 2 * k * k * k / 3)));
  } else if (parsed.kind == LibraryCallKind::kSymmetricEigen) {
    // jaxlib's choice: Jacobi up to 32 x 32 with the default algorithm (0), or always with
    // Jacobi's (2); the divide-and-conquer syevd otherwise (QR's, 1, and larger matrices).
    int algorithm = 0;
    if (auto attributes = FfiAttributes(call); attributes && attributes->count("algorithm")) {
      algorithm = std::atoi(attributes->at("algorithm").c_str());
    }
    const bool jacobi = algorithm == 2 || (algorithm == 0 && plan.n <= 32);
    if (jacobi && plan.batch > 1 && plan.n > 32) return Refuse(call, "syevjBatched takes matrices up to 32 x 32");
    plan.routine = plan.batch > 1 ? SolverRoutine::kSyevjBatched : SolverRoutine::kSyevj;
    if (!jacobi) {
      // jaxlib's 64-bit path (cuSOLVER 11.7.1 and later): cusolverDnXsyevBatched over
      // chunks of the batch, each under 2^31 bytes and at most 32768 matrices; one matrix
      // of 2^30 bytes or more goes through syevd alone.
      const int64_t matrix_bytes = std::max<int64_t>(1, plan.n * plan.n * plan.element_bytes);
      const int64_t step = std::min<int64_t>(std::max<int64_t>(1, INT32_MAX / matrix_bytes), 32 * 1024);
      plan.routine = step > 1 ? SolverRoutine::kSyevBatched : SolverRoutine::kSyevd;
      plan.chunk = std::min(step, plan.batch);
    }
    // The operand holds aᵀ, a itself column-major: the call's triangle as it is.
    plan.fill = parsed.lower ? 0 : 1;
    const double n = static_cast<double>(plan.n);
    plan.flops = static_cast<int64_t>(scale * 14 * n * n * n / 3);
  } else if (parsed.kind == LibraryCallKind::kSvd) {
    if (parsed.svd_mode == 'A' || parsed.svd_mode == 'S' || parsed.svd_mode == 'N') {
      // jax's flags: full_matrices gives U m x m and V n x n, econ min(m, n) columns each;
      // compute_uv false ('N') still has U and V of the full_matrices shapes, unwritten.
      std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(call);
      plan.econ = attributes && attributes->count("full_matrices") && attributes->at("full_matrices") == "false";
    }
    plan.vectors = parsed.svd_mode != 'N';
    const int64_t k = std::min(plan.m, plan.n);
    plan.u_columns = plan.econ ? k : plan.m;
    plan.v_columns = plan.econ ? k : plan.n;
    // jaxlib's choice: the batched Jacobi for several matrices up to 32 x 32 with full U and V.
    const bool batched = plan.batch > 1 && plan.m <= 32 && plan.n <= 32 && !plan.econ;
    plan.routine = batched ? SolverRoutine::kGesvdjBatched : SolverRoutine::kGesvdj;
    const double kk = static_cast<double>(k), big = static_cast<double>(std::max(plan.m, plan.n));
    plan.flops = static_cast<int64_t>(
        scale * (4 * kk * kk * big - 4 * kk * kk * kk / 3 + (plan.vectors ? 4 * kk * kk * big + 8 * kk * kk * kk : 0)));
  } else {
    plan.routine = SolverRoutine::kOrgqr;
    const Shape& taus = call.operand(1)->shape();
    plan.taus = taus.dimensions(taus.rank() - 1);
    plan.flops = static_cast<int64_t>(scale * static_cast<double>(HouseholderProductFlops(plan.m, plan.n, plan.taus)));
  }
  plan.bytes_read = a.ByteSize() + plan.batch * plan.taus * plan.element_bytes * (plan.householder_product() ? 1 : 0);
  plan.bytes_written = a.ByteSize() +
                       plan.batch * 4 * ((plan.slots().info >= 0 ? 1 : 0) + plan.pivots) +
                       (plan.qr() ? plan.batch * plan.taus * plan.element_bytes : 0) +
                       (plan.eigen() ? plan.batch * plan.n * plan.element_bytes : 0) +
                       (plan.svd() ? plan.batch * plan.element_bytes *
                                         (std::min(plan.m, plan.n) + plan.m * plan.u_columns + plan.n * plan.v_columns)
                                   : 0);
  return plan;
}

namespace {

using C = HostComplex;

// LAPACK's potf2 on one column-major n x n matrix: the factor in `fill`'s triangle (lower:
// a = L Lᴴ; upper: a = Uᴴ U), the other triangle untouched; at the first leading minor
// that is not positive definite, its diagonal entry holds the value that failed and info
// its order.
template <typename T>
int32_t PotrfOne(int64_t n, int fill, T* a) {
  const bool lower = fill == 0;
  // The stored entry (i, j) of the triangle: lower reads (i, j) with i >= j, upper (j, i).
  auto at = [&](int64_t i, int64_t j) { return lower ? i + j * n : j + i * n; };
  for (int64_t j = 0; j < n; ++j) {
    double diagonal = HostLoad(a, at(j, j)).real();
    for (int64_t k = 0; k < j; ++k) diagonal -= std::norm(HostLoad(a, at(j, k)));
    if (!(diagonal > 0)) {
      HostStore(a, at(j, j), C(diagonal));
      return static_cast<int32_t>(j + 1);
    }
    const double root = std::sqrt(diagonal);
    HostStore(a, at(j, j), C(root));
    for (int64_t i = j + 1; i < n; ++i) {
      // lower: L(i, j) = (a(i, j) - sum L(i, k) conj(L(j, k))) / L(j, j); upper: the
      // conjugate of that, U(j, i) = conj(L(i, j)).
      C sum = lower ? HostLoad(a, at(i, j)) : std::conj(HostLoad(a, at(i, j)));
      for (int64_t k = 0; k < j; ++k) {
        const C lik = lower ? HostLoad(a, at(i, k)) : std::conj(HostLoad(a, at(i, k)));
        const C ljk = lower ? HostLoad(a, at(j, k)) : std::conj(HostLoad(a, at(j, k)));
        sum -= lik * std::conj(ljk);
      }
      const C value = sum / root;
      HostStore(a, at(i, j), lower ? value : std::conj(value));
    }
  }
  return 0;
}

// LAPACK's getf2 on one column-major m x n matrix: the pivot of column j the first row
// from j down with the largest |a(i, j)| (|re| + |im| for complex, as i?amax), rows j and
// the pivot's swapped, the column below scaled by the pivot's inverse and the trailing
// matrix updated; a zero pivot swaps and divides nothing and sets info (the first such
// column, 1-based) if unset.
template <typename T>
int32_t GetrfOne(int64_t m, int64_t n, T* a, int32_t* pivots) {
  auto A = [&](int64_t i, int64_t j) { return HostLoad(a, i + j * m); };
  auto set = [&](int64_t i, int64_t j, C v) { HostStore(a, i + j * m, v); };
  auto magnitude = [](C v) { return std::abs(v.real()) + std::abs(v.imag()); };
  int32_t info = 0;
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    double largest = magnitude(A(j, j));
    for (int64_t i = j + 1; i < m; ++i) {
      if (magnitude(A(i, j)) > largest) {
        largest = magnitude(A(i, j));
        p = i;
      }
    }
    pivots[j] = static_cast<int32_t>(p + 1);
    const C pivot = A(p, j);
    if (pivot != C(0)) {
      if (p != j) {
        for (int64_t c = 0; c < n; ++c) {
          const C t = A(j, c);
          set(j, c, A(p, c));
          set(p, c, t);
        }
      }
      for (int64_t i = j + 1; i < m; ++i) set(i, j, A(i, j) / pivot);
    } else if (info == 0) {
      info = static_cast<int32_t>(j + 1);
    }
    for (int64_t c = j + 1; c < n; ++c) {
      const C ajc = A(j, c);
      for (int64_t i = j + 1; i < m; ++i) set(i, c, A(i, c) - A(i, j) * ajc);
    }
  }
  return info;
}

// H = I - tau v vᵀ (v(j) = 1, v(i > j) = a(i, j)) applied from the left to columns
// [first, n) of the column-major m x n matrix, rows j and below.
template <typename T>
void ApplyReflector(int64_t m, int64_t j, int64_t first, int64_t n, double tau, T* a) {
  if (tau == 0) return;
  for (int64_t c = first; c < n; ++c) {
    double w = HostLoad(a, j + c * m).real();
    for (int64_t i = j + 1; i < m; ++i) w += HostLoad(a, i + j * m).real() * HostLoad(a, i + c * m).real();
    HostStore(a, j + c * m, C(HostLoad(a, j + c * m).real() - tau * w));
    for (int64_t i = j + 1; i < m; ++i) {
      HostStore(a, i + c * m, C(HostLoad(a, i + c * m).real() - tau * HostLoad(a, i + j * m).real() * w));
    }
  }
}

// LAPACK's geqr2 on one real column-major m x n matrix: for each column j < min(m, n),
// dlarfg's reflector (beta = -sign(alpha) |(alpha, x)|, tau = (beta - alpha) / beta, v =
// x / (alpha - beta); tau 0 for a zero x), R's entry beta on the diagonal and v below it,
// then the reflector applied to the columns right of j.
template <typename T>
void GeqrfOne(int64_t m, int64_t n, T* a, T* taus) {
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    const double alpha = HostLoad(a, j + j * m).real();
    double norm = 0;
    for (int64_t i = j + 1; i < m; ++i) norm = std::hypot(norm, HostLoad(a, i + j * m).real());
    double tau = 0;
    if (norm != 0) {
      const double beta = -std::copysign(std::hypot(alpha, norm), alpha);
      tau = (beta - alpha) / beta;
      const double scale = 1 / (alpha - beta);
      for (int64_t i = j + 1; i < m; ++i) HostStore(a, i + j * m, C(HostLoad(a, i + j * m).real() * scale));
      HostStore(a, j + j * m, C(beta));
    }
    HostStore(taus, j, C(tau));
    ApplyReflector(m, j, j + 1, n, HostLoad(taus, j).real(), a);
  }
}

// LAPACK's org2r on one real column-major m x n matrix holding k reflectors: Q's first n
// columns, H_0 ... H_(k-1) applied to the identity's, built from the last reflector back.
template <typename T>
void OrgqrOne(int64_t m, int64_t n, int64_t k, T* a, const T* taus) {
  for (int64_t j = k; j < n; ++j) {
    for (int64_t l = 0; l < m; ++l) HostStore(a, l + j * m, C(l == j ? 1 : 0));
  }
  for (int64_t i = k - 1; i >= 0; --i) {
    const double tau = HostLoad(taus, i).real();
    if (i < n - 1) {
      HostStore(a, i + i * m, C(1));
      ApplyReflector(m, i, i + 1, n, tau, a);
    }
    for (int64_t l = i + 1; l < m; ++l) HostStore(a, l + i * m, C(-tau * HostLoad(a, l + i * m).real()));
    HostStore(a, i + i * m, C(1 - tau));
    for (int64_t l = 0; l < i; ++l) HostStore(a, l + i * m, C(0));
  }
}

// The symmetric eigenproblem of one real column-major n x n matrix, from its `fill`
// triangle, by cyclic Jacobi rotations in double until the off-diagonal part is below
// rounding: the eigenvalues ascending in `values`, the unit eigenvectors as a's columns,
// each with its largest-magnitude entry positive (the solvers' signs are their own).
template <typename T>
void SyevOne(int64_t n, int fill, T* a, T* values) {
  std::vector<double> s(static_cast<size_t>(n * n)), v(static_cast<size_t>(n * n), 0.0);
  auto S = [&](int64_t i, int64_t j) -> double& { return s[static_cast<size_t>(i + j * n)]; };
  auto V = [&](int64_t i, int64_t j) -> double& { return v[static_cast<size_t>(i + j * n)]; };
  for (int64_t j = 0; j < n; ++j) {
    V(j, j) = 1;
    for (int64_t i = 0; i < n; ++i) {
      const bool stored = fill == 0 ? i >= j : i <= j;
      S(i, j) = stored ? HostLoad(a, i + j * n).real() : HostLoad(a, j + i * n).real();
    }
  }
  for (int sweep = 0; sweep < 64; ++sweep) {
    double off = 0, total = 0;
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t i = 0; i < n; ++i) {
        total += S(i, j) * S(i, j);
        if (i != j) off += S(i, j) * S(i, j);
      }
    }
    if (off <= 1e-30 * total || off == 0) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        if (S(p, q) == 0) continue;
        // The rotation that zeroes S(p, q): t = tan, from theta = (S(q, q) - S(p, p)) / 2 S(p, q).
        const double theta = (S(q, q) - S(p, p)) / (2 * S(p, q));
        const double t = std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), sn = t * c;
        for (int64_t k = 0; k < n; ++k) {  // S <- S J (columns p, q)
          const double skp = S(k, p), skq = S(k, q);
          S(k, p) = c * skp - sn * skq;
          S(k, q) = sn * skp + c * skq;
        }
        for (int64_t k = 0; k < n; ++k) {  // S <- Jᵀ S (rows p, q)
          const double spk = S(p, k), sqk = S(q, k);
          S(p, k) = c * spk - sn * sqk;
          S(q, k) = sn * spk + c * sqk;
        }
        for (int64_t k = 0; k < n; ++k) {  // V <- V J
          const double vkp = V(k, p), vkq = V(k, q);
          V(k, p) = c * vkp - sn * vkq;
          V(k, q) = sn * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) order[static_cast<size_t>(j)] = j;
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return S(x, x) < S(y, y); });
  for (int64_t j = 0; j < n; ++j) {
    const int64_t from = order[static_cast<size_t>(j)];
    HostStore(values, j, C(S(from, from)));
    int64_t largest = 0;
    for (int64_t i = 1; i < n; ++i) {
      if (std::abs(V(i, from)) > std::abs(V(largest, from))) largest = i;
    }
    const double sign = V(largest, from) < 0 ? -1 : 1;
    for (int64_t i = 0; i < n; ++i) HostStore(a, i + j * n, C(sign * V(i, from)));
  }
}

// Columns j of the column-major `rows` x `count` basis b from `have` on, made orthonormal
// to the ones before: the unit vectors e_0, e_1, ... in turn, each with its projection on
// the basis so far removed, kept when what is left is not negligible.
void CompleteBasis(int64_t rows, int64_t have, int64_t count, std::vector<double>& b) {
  int64_t next = 0;
  for (int64_t j = have; j < count; ++j) {
    for (; next < rows; ++next) {
      std::vector<double> x(static_cast<size_t>(rows), 0.0);
      x[static_cast<size_t>(next)] = 1;
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t c = 0; c < j; ++c) {
          double dot = 0;
          for (int64_t i = 0; i < rows; ++i) dot += b[static_cast<size_t>(i + c * rows)] * x[static_cast<size_t>(i)];
          for (int64_t i = 0; i < rows; ++i) x[static_cast<size_t>(i)] -= dot * b[static_cast<size_t>(i + c * rows)];
        }
      }
      double norm = 0;
      for (double xi : x) norm += xi * xi;
      norm = std::sqrt(norm);
      if (norm < 1e-6) continue;
      for (int64_t i = 0; i < rows; ++i) b[static_cast<size_t>(i + j * rows)] = x[static_cast<size_t>(i)] / norm;
      ++next;
      break;
    }
  }
}

// The SVD of one real column-major m x n matrix by one-sided Jacobi rotations (on the
// columns of a, or of aᵀ when it is wide) in double: singular values descending, U's
// columns (m x u_columns) and V's (n x v_columns) orthonormal, a = U diag(s) Vᵀ, each
// U column's largest entry positive (V's column following), the bases completed where a
// zero singular value or full matrices leave columns open. U and V are written
// transposed (row-major: the call holds them so).
template <typename T>
void GesvdjOne(const SolverPlan& plan, const T* a, T* s, T* ut, T* vt) {
  const int64_t m = plan.m, n = plan.n, k = std::min(m, n);
  const bool wide = m < n;
  // w: the rows x cols matrix whose columns are rotated (a, or aᵀ when wide).
  const int64_t rows = wide ? n : m, cols = wide ? m : n;
  std::vector<double> w(static_cast<size_t>(rows * cols)), r(static_cast<size_t>(cols * cols), 0.0);
  for (int64_t j = 0; j < cols; ++j) {
    r[static_cast<size_t>(j + j * cols)] = 1;
    for (int64_t i = 0; i < rows; ++i) {
      w[static_cast<size_t>(i + j * rows)] = wide ? HostLoad(a, j + i * m).real() : HostLoad(a, i + j * m).real();
    }
  }
  for (int sweep = 0; sweep < 64; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < cols; ++p) {
      for (int64_t q = p + 1; q < cols; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < rows; ++i) {
          const double wp = w[static_cast<size_t>(i + p * rows)], wq = w[static_cast<size_t>(i + q * rows)];
          alpha += wp * wp;
          beta += wq * wq;
          gamma += wp * wq;
        }
        if (std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta) || gamma == 0) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        auto rotate = [&](std::vector<double>& x, int64_t height) {
          for (int64_t i = 0; i < height; ++i) {
            const double xp = x[static_cast<size_t>(i + p * height)], xq = x[static_cast<size_t>(i + q * height)];
            x[static_cast<size_t>(i + p * height)] = c * xp - sn * xq;
            x[static_cast<size_t>(i + q * height)] = sn * xp + c * xq;
          }
        };
        rotate(w, rows);
        rotate(r, cols);
      }
    }
    if (!rotated) break;
  }
  // Column norms are the singular values; descending.
  std::vector<double> norms(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < rows; ++i) sum += w[static_cast<size_t>(i + j * rows)] * w[static_cast<size_t>(i + j * rows)];
    norms[static_cast<size_t>(j)] = std::sqrt(sum);
  }
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t j = 0; j < cols; ++j) order[static_cast<size_t>(j)] = j;
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[static_cast<size_t>(x)] > norms[static_cast<size_t>(y)]; });
  // left: w's normalized columns (rows long), right: r's (cols long), k of each.
  const double largest = norms[static_cast<size_t>(order[0])];
  std::vector<double> left(static_cast<size_t>(rows * rows), 0.0), right(static_cast<size_t>(cols * cols), 0.0);
  int64_t kept = 0;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t from = order[static_cast<size_t>(j)];
    const double sigma = norms[static_cast<size_t>(from)];
    HostStore(s, j, C(sigma));
    for (int64_t i = 0; i < cols; ++i) right[static_cast<size_t>(i + j * cols)] = r[static_cast<size_t>(i + from * cols)];
    if (sigma > 1e-14 * largest && sigma > 0) {
      for (int64_t i = 0; i < rows; ++i) {
        left[static_cast<size_t>(i + j * rows)] = w[static_cast<size_t>(i + from * rows)] / sigma;
      }
      kept = j + 1;
    }
  }
  CompleteBasis(rows, kept, rows, left);
  CompleteBasis(cols, k, cols, right);
  // U and V: left and right, exchanged for a wide a (a = (aᵀ)ᵀ = right diag(s) leftᵀ).
  std::vector<double>& u = wide ? right : left;
  std::vector<double>& v = wide ? left : right;
  for (int64_t j = 0; j < k; ++j) {  // each U column's largest entry positive
    int64_t at = 0;
    for (int64_t i = 1; i < m; ++i) {
      if (std::abs(u[static_cast<size_t>(i + j * m)]) > std::abs(u[static_cast<size_t>(at + j * m)])) at = i;
    }
    if (u[static_cast<size_t>(at + j * m)] < 0) {
      for (int64_t i = 0; i < m; ++i) u[static_cast<size_t>(i + j * m)] *= -1;
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i + j * n)] *= -1;
    }
  }
  if (!plan.vectors) return;
  // Transposed row-major = column-major: U column j at ut[j * m + i].
  for (int64_t j = 0; j < plan.u_columns; ++j) {
    for (int64_t i = 0; i < m; ++i) HostStore(ut, i + j * m, C(u[static_cast<size_t>(i + j * m)]));
  }
  for (int64_t j = 0; j < plan.v_columns; ++j) {
    for (int64_t i = 0; i < n; ++i) HostStore(vt, i + j * n, C(v[static_cast<size_t>(i + j * n)]));
  }
}

template <typename T>
void RunAll(const SolverPlan& plan, const SolverHostBuffers& buffers) {
  void* a = buffers.a;
  int32_t* pivots = buffers.pivots;
  int32_t* info = buffers.info;
  void* taus = buffers.taus;
  void* values = buffers.values;
  for (int64_t b = 0; b < plan.batch; ++b) {
    T* matrix = static_cast<T*>(a) + b * plan.stride;
    if (plan.cholesky()) {
      info[b] = PotrfOne(plan.n, plan.fill, matrix);
    } else if (plan.lu()) {
      info[b] = GetrfOne(plan.m, plan.n, matrix, pivots + b * plan.pivots);
    } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (plan.svd()) {
        const int64_t k = std::min(plan.m, plan.n);
        GesvdjOne(plan, matrix, static_cast<T*>(values) + b * k, static_cast<T*>(buffers.u) + b * plan.m * plan.u_columns,
                  static_cast<T*>(buffers.v) + b * plan.n * plan.v_columns);
        info[b] = 0;
        continue;
      }
      if (plan.eigen()) {
        T* w = static_cast<T*>(values) + b * plan.n;
        SyevOne(plan.n, plan.fill, matrix, w);
        // An eigenvalue NaN (a NaN in the triangle): info 1, as the call's model says.
        info[b] = 0;
        for (int64_t j = 0; j < plan.n; ++j) info[b] = std::isnan(HostLoad(w, j).real()) ? 1 : info[b];
        continue;
      }
      T* t = static_cast<T*>(taus) + b * plan.taus;
      if (plan.qr()) {
        GeqrfOne(plan.m, plan.n, matrix, t);
      } else {
        OrgqrOne(plan.m, plan.n, plan.taus, matrix, t);
      }
    }
  }
}

}  // namespace

Status RunSolverPlanOnHost(const SolverPlan& plan, const SolverHostBuffers& buffers) {
  const bool has_info = plan.slots().info >= 0;
  if (buffers.a == nullptr) return Internal(plan.ToString() + ": no matrix");
  if (has_info && buffers.info == nullptr) return Internal(plan.ToString() + ": no info");
  if ((plan.eigen() || plan.svd()) && buffers.values == nullptr) return Internal(plan.ToString() + ": no values");
  if (plan.svd() && plan.vectors && (buffers.u == nullptr || buffers.v == nullptr)) {
    return Internal(plan.ToString() + ": no U or V");
  }
  if (plan.lu() && buffers.pivots == nullptr) return Internal(plan.ToString() + ": no pivots");
  if ((plan.qr() || plan.householder_product()) && buffers.taus == nullptr) return Internal(plan.ToString() + ": no taus");
  if (plan.empty) {
    if (has_info) std::fill(buffers.info, buffers.info + plan.batch, 0);
    if (plan.qr()) std::memset(buffers.taus, 0, static_cast<size_t>(plan.batch * plan.taus * plan.element_bytes));
    return Status::Ok();
  }
  switch (plan.type) {
    case PrimitiveType::kF32: RunAll<float>(plan, buffers); break;
    case PrimitiveType::kF64: RunAll<double>(plan, buffers); break;
    case PrimitiveType::kC64: RunAll<std::complex<float>>(plan, buffers); break;
    case PrimitiveType::kC128: RunAll<std::complex<double>>(plan, buffers); break;
    default: return Internal("solver plan of type " + std::string(PrimitiveTypeName(plan.type)));
  }
  return Status::Ok();
}

}  // namespace fusebox
