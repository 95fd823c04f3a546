// Cholesky, LU and QR factorizations as XLA's GPU backend hands them to NVIDIA's solvers:
// jax's `cusolver_potrf_ffi` and XLA's rewrite of the HLO `cholesky` run cuSOLVER's potrf
// (one matrix) or potrfBatched (several); jax's `cusolver_getrf_ffi` runs cuBLAS's
// getrfBatched for a batch of square matrices small against the batch (order / batch <=
// 128, jaxlib's rule) and cuSOLVER's getrf once per matrix otherwise; `cusolver_geqrf_ffi`
// runs cuBLAS's geqrfBatched for a batch whose sides are both small against it (m / batch
// and n / batch <= 128) and cuSOLVER's geqrf per matrix otherwise; `cusolver_orgqr_ffi`
// runs cuSOLVER's orgqr per matrix; `cusolver_syevd_ffi` (jax's eigh) runs cuSOLVER's
// Jacobi syevj (syevjBatched for a batch) up to 32 x 32 with jax's default algorithm, and
// syevd per matrix otherwise; `cusolver_gesvdj_ffi` (jax's SVD) runs gesvdjBatched for a
// batch of matrices up to 32 x 32 with full U and V, and gesvdj per matrix otherwise.
//
// The solvers are column-major and the GPU runtime's buffers row-major. A row-major matrix
// read column-major is its transpose. For potrf that is harmless: a Hermitian a's
// transpose is its conjugate, whose factor is the conjugate of a's, and the triangle flips,
// so the plan factors the same buffer with the other fill mode (a's lower triangle is the
// column-major view's upper one) and the result, read row-major again, is a's factor in
// the triangle asked for; the other triangle is left as it was, as jax expects. LU's
// pivoting is by rows, QR's reflectors are columns and eigh's and the SVD's vectors come
// out as columns, which the transpose would exchange, so the GPU pipeline gives those calls the
// transposed matrix (a `transpose` kernel before
// and after, as XLA's layout assignment gives the calls their {1,2,0} operands with
// copies), through Fusebox's own targets `__fusebox$getrf_transposed`,
// `__fusebox$geqrf_transposed`, `__fusebox$orgqr_transposed`,
// `__fusebox$syevd_transposed` and `__fusebox$gesvdj_transposed`: operand and first result
// [..., n, m] hold aᵀ and the factor's transpose, row-major, so column-major they are a
// and the factor, what the solvers read and write (so do the SVD's U and V, results 2
// and 3: every result of the operand's rank is held transposed). Each target has a plain-HLO model (the
// call's on the operand's transpose), which the interpreter and `--gpu-library=off` run.
//
// RunSolverPlanOnHost runs a plan on the host as the solvers define it (LAPACK's potf2,
// getf2, geqr2 and org2r: the first failing minor or zero pivot in `info`, 1-based pivots,
// dlarfg's reflectors; eigh as cyclic Jacobi rotations, eigenvalues ascending, each
// eigenvector's sign the solver's own choice, here its largest entry positive; the SVD as
// one-sided Jacobi rotations, singular values descending, each U column's largest entry
// positive, U and V completed to full bases where asked), in double: the GPU emulator runs the calls with it, and the plan's
// tests hold it against the interpreter, so a wrong fill mode, leading dimension or
// transposition shows without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

// The targets of the GPU pipeline's calls on the transposed matrix (see above).
inline constexpr std::string_view kGetrfTransposedTarget = "__fusebox$getrf_transposed";
inline constexpr std::string_view kGeqrfTransposedTarget = "__fusebox$geqrf_transposed";
inline constexpr std::string_view kOrgqrTransposedTarget = "__fusebox$orgqr_transposed";
inline constexpr std::string_view kSyevdTransposedTarget = "__fusebox$syevd_transposed";
inline constexpr std::string_view kGesvdjTransposedTarget = "__fusebox$gesvdj_transposed";
// Whether `target` is one of them.
bool IsTransposedSolverTarget(std::string_view target);

enum class SolverRoutine {
  kPotrf,         // cusolverDn<t>potrf, once (a single matrix)
  kPotrfBatched,  // cusolverDn<t>potrfBatched with an array of the matrices' addresses
  kGetrf,         // cusolverDn<t>getrf, once per matrix
  kGetrfBatched,  // cublas<t>getrfBatched with an array of the matrices' addresses
  kGeqrf,         // cusolverDn<t>geqrf, once per matrix
  kGeqrfBatched,  // cublas<t>geqrfBatched with arrays of the matrices' and taus' addresses
  kOrgqr,         // cusolverDn<t>orgqr, once per matrix
  kSyevj,         // cusolverDn<t>syevj (one matrix, Jacobi)
  kSyevjBatched,  // cusolverDn<t>syevjBatched (a batch of matrices up to 32 x 32)
  kSyevBatched,   // cusolverDnXsyevBatched over chunks of `chunk` matrices (jaxlib's 64-bit path with
                  // cuSOLVER 11.7.1 or later, one matrix too)
  kSyevd,         // cusolverDn<t>syevd, once per matrix (older cuSOLVER; a matrix of 2^30 bytes or more)
  kGesvdj,        // cusolverDn<t>gesvdj, once per matrix
  kGesvdjBatched, // cusolverDn<t>gesvdjBatched (a batch of matrices up to 32 x 32, full U and V)
};

struct SolverPlan {
  SolverRoutine routine = SolverRoutine::kPotrf;
  PrimitiveType type = PrimitiveType::kF32;  // f32, f64, c64, c128 (getrf: f32, f64)
  int64_t element_bytes = 4;
  // The column-major problem: an m x n matrix (potrf: n x n) with leading dimension m, the
  // batch's matrices `stride` elements apart.
  int64_t m = 0, n = 0;
  int64_t batch = 1;
  int64_t stride = 0;
  int fill = 0;         // potrf, syev*: cublasFillMode_t, 0 lower, 1 upper (potrf: the call's flipped)
  int64_t pivots = 0;   // getrf: min(m, n) pivots per matrix, 1-based
  int64_t taus = 0;     // geqrf: min(m, n) per matrix; orgqr: the reflectors it multiplies (k)
  // gesvdj: min(m, n) singular values; U's and V's columns (m and n for full matrices,
  // min(m, n) for econ); whether the vectors are computed at all (compute_uv).
  int64_t u_columns = 0, v_columns = 0;
  bool econ = false, vectors = true;
  // syevBatched: the matrices each call takes, as jaxlib chunks the batch: as many as keep a
  // call under 2^31 bytes, at most 32768.
  int64_t chunk = 1;
  bool empty = false;   // no element: nothing to run (info is zeroed)
  // Multiply-adds: n^3 / 3 (potrf), k^2 max(m, n) - k^3 / 3 (getrf), 2 k^2 max - 2 k^3 / 3
  // (geqrf), 4 m n k - 2 (m + n) k^2 + 4 k^3 / 3 (orgqr), 14 n^3 / 3 (syev* with vectors,
  // as LAPACK's count), 4 k^2 max - 4 k^3 / 3 (+ 4 k^2 max + 8 k^3 with vectors: gesvdj,
  // LAPACK's gesdd count); x4 complex.
  int64_t flops = 0;
  int64_t bytes_read = 0, bytes_written = 0;

  bool cholesky() const { return routine == SolverRoutine::kPotrf || routine == SolverRoutine::kPotrfBatched; }
  bool lu() const { return routine == SolverRoutine::kGetrf || routine == SolverRoutine::kGetrfBatched; }
  bool qr() const { return routine == SolverRoutine::kGeqrf || routine == SolverRoutine::kGeqrfBatched; }
  bool householder_product() const { return routine == SolverRoutine::kOrgqr; }
  bool eigen() const {
    return routine == SolverRoutine::kSyevj || routine == SolverRoutine::kSyevjBatched ||
           routine == SolverRoutine::kSyevBatched || routine == SolverRoutine::kSyevd;
  }
  bool svd() const { return routine == SolverRoutine::kGesvdj || routine == SolverRoutine::kGesvdjBatched; }
  // The routines that take an array of the matrices' addresses.
  bool batched() const {
    return routine == SolverRoutine::kPotrfBatched || routine == SolverRoutine::kGetrfBatched ||
           routine == SolverRoutine::kGeqrfBatched;
  }
  bool on_cublas() const { return routine == SolverRoutine::kGetrfBatched || routine == SolverRoutine::kGeqrfBatched; }
  // The call's results, in order: the factor (or q), then pivots, taus and info as the
  // routine has them: potrf (factor, info), getrf (lu, pivots, info), geqrf (a, taus),
  // orgqr (q), syev* (vectors, values, info), gesvdj (a, s, u, v, info).
  int result_count() const { return cholesky() ? 2 : lu() ? 3 : qr() ? 2 : eigen() ? 3 : svd() ? 5 : 1; }
  // Which of those results each buffer is (-1: none; orgqr's taus are its operand 1).
  struct Slots {
    int pivots = -1, info = -1, taus = -1, values = -1, u = -1, v = -1;
  };
  Slots slots() const {
    Slots s;
    if (lu()) s.pivots = 1;
    if (cholesky() || lu() || eigen() || svd()) s.info = result_count() - 1;
    if (qr()) s.taus = 1;
    if (eigen() || svd()) s.values = 1;
    if (svd()) s.u = 2, s.v = 3;
    return s;
  }
  std::string RoutineName() const;  // "cusolverDnSpotrf", "cublasDgetrfBatched"
  // "cusolverDnSpotrfBatched fill=U n=6 batch=3"
  std::string ToString() const;
};

// LAPACK's multiply-add count of orgqr for one m x n matrix of k reflectors:
// 4 m n k - 2 (m + n) k^2 + 4 k^3 / 3.
int64_t HouseholderProductFlops(int64_t rows, int64_t columns, int64_t reflectors);

// Whether `call` is a transposed orgqr call that jaxlib runs with its own kernel, not
// cuSOLVER's orgqr: a batch of more than one matrix with both sides up to 128 (f32, f64;
// jaxlib's LaunchOrgqrSmallBatchedKernel since April 2026, one launch a call). The GPU
// backend emits Fusebox's kernel of that shape for it (gpu_orgqr_emitter.cc): a block a
// matrix, a thread a column of Q, the reflectors applied to it last to first.
bool OrgqrRunsAsKernel(const Instruction& call);

// Whether `call` is a custom call a plan is made for: a Cholesky call (jax's
// cusolver_potrf_ffi or LAPACK potrf) or one of the transposed targets above (but an
// orgqr call that runs as a kernel).
bool IsSolverCall(const Instruction& call);

// Where the GPU runtime sends a custom call: not a library call at all, Fusebox's own
// kernel (a small batched orgqr), cuBLAS(Lt) (a gemm), cuDNN (a convolution), a solver plan
// (cuSOLVER or cuBLAS's batched factorizations), or kNone: a library call no GPU route
// takes, which the library-call-lowering pass lowers first (the runtime refuses one by name).
// The runtime, the compile session's library list and the source map all read it, so that
// a call is never a kernel to one and a library call to another.
enum class GpuCallRoute { kNotLibraryCall, kOwnKernel, kGemm, kConvolution, kSolver, kNone };
GpuCallRoute GpuRouteOf(const Instruction& call);
std::string_view GpuCallRouteName(GpuCallRoute route);  // "own kernel", "cuBLAS", ...

// The plan of such a call; an error naming the instruction for types or shapes the
// solvers do not take.
StatusOr<SolverPlan> PlanSolverCall(const Instruction& call);

// The buffers of a plan's host run, row-major as the runtime passes them (nullptr where the
// routine has none): `a` is the call's first result, holding its first operand on entry.
struct SolverHostBuffers {
  void* a = nullptr;
  int32_t* pivots = nullptr;  // getrf
  int32_t* info = nullptr;    // potrf, getrf, syev*, gesvdj: one per matrix
  void* taus = nullptr;       // geqrf writes them, orgqr reads them (a's type)
  void* values = nullptr;     // syev*'s eigenvalues, gesvdj's singular values (real)
  void* u = nullptr;          // gesvdj's U and V (transposed, as the call holds them)
  void* v = nullptr;
};

// The plan run on the host: potrf writes the factor over a and `info`, getrf also
// `pivots`, geqrf `taus`; orgqr reads `taus`; syev* writes the vectors over a, `values` and
// `info`; gesvdj leaves a as it was (the solver's scratch; jax reads nothing of it) and
// writes `values`, `u`, `v` and `info`.
Status RunSolverPlanOnHost(const SolverPlan& plan, const SolverHostBuffers& buffers);

}  // namespace fusebox
