// Cholesky and LU factorizations as XLA's GPU backend hands them to NVIDIA's solvers: jax's
// `cusolver_potrf_ffi` and XLA's rewrite of the HLO `cholesky` run cuSOLVER's potrf (one
// matrix) or potrfBatched (several); jax's `cusolver_getrf_ffi` runs cuBLAS's getrfBatched
// for a batch of square matrices small against the batch (order / batch <= 128, jaxlib's
// rule) and cuSOLVER's getrf once per matrix otherwise.
//
// The solvers are column-major and the GPU runtime's buffers row-major. A row-major matrix
// read column-major is its transpose. For potrf that is harmless: a Hermitian a's
// transpose is its conjugate, whose factor is the conjugate of a's, and the triangle flips,
// so the plan factors the same buffer with the other fill mode (a's lower triangle is the
// column-major view's upper one) and the result, read row-major again, is a's factor in
// the triangle asked for; the other triangle is left as it was, as jax expects. LU's
// pivoting is by rows, which the transpose would make columns, so the GPU pipeline gives
// the call the transposed matrix (a `transpose` kernel before it and after it, as XLA's
// layout assignment gives the call its {1,2,0} operand with copies), through Fusebox's
// own target `__fusebox$getrf_transposed`: operand and first result [..., n, m] hold aᵀ
// and luᵀ, row-major, so column-major they are a and lu, what getrf reads and writes.
//
// RunSolverPlanOnHost runs a plan on the host as the solvers define it (LAPACK's potf2 and
// getf2: the first failing minor or zero pivot in `info`, 1-based pivots), in double: the
// GPU emulator runs the calls with it, and the plan's tests hold it against the
// interpreter, so a wrong fill mode, leading dimension or transposition shows without a
// GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

// The target of the GPU pipeline's LU call on the transposed matrix (see above).
inline constexpr std::string_view kGetrfTransposedTarget = "__fusebox$getrf_transposed";

enum class SolverRoutine {
  kPotrf,         // cusolverDn<t>potrf, once (a single matrix)
  kPotrfBatched,  // cusolverDn<t>potrfBatched with an array of the matrices' addresses
  kGetrf,         // cusolverDn<t>getrf, once per matrix
  kGetrfBatched,  // cublas<t>getrfBatched with an array of the matrices' addresses
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
  int fill = 0;         // potrf: cublasFillMode_t, 0 lower, 1 upper (the call's flipped)
  int64_t pivots = 0;   // getrf: min(m, n) pivots per matrix, 1-based
  bool empty = false;   // no element: nothing to run (info is zeroed)
  int64_t flops = 0;    // n^3 / 3 (potrf), k^2 max(m, n) - k^3 / 3 (getrf); x4 complex
  int64_t bytes_read = 0, bytes_written = 0;

  bool cholesky() const { return routine == SolverRoutine::kPotrf || routine == SolverRoutine::kPotrfBatched; }
  bool batched() const { return routine == SolverRoutine::kPotrfBatched || routine == SolverRoutine::kGetrfBatched; }
  bool on_cublas() const { return routine == SolverRoutine::kGetrfBatched; }
  std::string RoutineName() const;  // "cusolverDnSpotrf", "cublasDgetrfBatched"
  // "cusolverDnSpotrfBatched fill=U n=6 batch=3"
  std::string ToString() const;
};

// Whether `call` is a custom call a plan is made for: a Cholesky call (jax's
// cusolver_potrf_ffi or LAPACK potrf) or `__fusebox$getrf_transposed`.
bool IsSolverCall(const Instruction& call);

// The plan of such a call; an error naming the instruction for types or shapes the
// solvers do not take.
StatusOr<SolverPlan> PlanSolverCall(const Instruction& call);

// The plan run on the host, in place on `a` (the call's first result, holding its operand
// on entry, row-major as the runtime passes it), writing `pivots` (getrf) and `info` (one
// per matrix).
Status RunSolverPlanOnHost(const SolverPlan& plan, void* a, int32_t* pivots, int32_t* info);

}  // namespace fusebox
