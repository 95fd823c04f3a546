// What XLA's GPU library calls compute. XLA's optimized GPU HLO hands dots and
// convolutions to cuBLAS and cuDNN as custom calls whose meaning is in the target name,
// the backend_config JSON and (for convolutions) the window and dim_labels of the call:
//
//   __cublas$gemm, __cublas$lt$matmul         epilogue(alpha * dot(a, b) + beta * c + bias)
//   __cudnn$convForward                       scale * conv(x, w), then an activation
//   __cudnn$convBiasActivationForward         act(scale * conv(x, w) + side_scale * s + bias)
//   __cudnn$convBackwardInput                 dx from (dy, w) of the forward conv described
//   __cudnn$convBackwardFilter                dw from (x, dy) of the forward conv described
//   TopK, __gpu$TopK                          topk(x): XLA's topk as a call, its order in the
//                                             comparator (a total-order greater or less than)
//   __cudnn$fmha*Softmax[Backward]            cuDNN's fused attention, forward and backward
//                                             (fused_attention.h)
//   lapack_?trsm_ffi                          jax's LAPACK triangular solve (CPU):
//                                             triangular-solve(a, b), BLAS's side, uplo,
//                                             trans_x and diag as attributes
//   __cublas$triangularSolve                  XLA's GPU triangular solve (cuBLAS's trsm):
//                                             (x, s8 scratch), XLA's TriangularSolveOptions
//                                             in the backend_config
//   lapack_?potrf_ffi, cusolver_potrf_ffi     jax's Cholesky factorization (LAPACK on the
//                                             CPU, cuSOLVER on the GPU): (factor, info)
//   lapack_?getrf_ffi, cusolver_getrf_ffi     jax's LU factorization with partial pivoting:
//                                             (lu, s32 1-based pivots, s32 info)
//   lapack_?geqrf_ffi, cusolver_geqrf_ffi     jax's Householder QR: (a with R on and above
//                                             the diagonal and the reflectors below, taus)
//   lapack_?orgqr_ffi, cusolver_orgqr_ffi     the product of those reflectors: Q
//                                             (householder.h)
//   lapack_?syevd_ffi, cusolver_syevd_ffi     jax's symmetric eigendecomposition:
//                                             (vectors, ascending values, s32 info)
//                                             (jacobi.h)
//   lapack_?gesdd_ffi, cusolver_gesvdj_ffi    jax's SVD: (a, s descending, u, vt (gesvdj:
//                                             v), s32 info) (jacobi.h)
//   lapack_?geqp3_ffi (s, d)                  jax's QR with column pivoting (CPU), every
//                                             column free: (a, s32 jpvt, taus)
//   lapack_?gehrd_ffi (s, d)                  jax's Hessenberg reduction (CPU): (a with H on
//                                             and above the sub-diagonal and the reflectors
//                                             below, taus, s32 info) (householder.h)
//   lapack_?geev_ffi (s, d)                   jax's eigendecomposition of a general matrix
//                                             (CPU): (wr, wi, left and right vectors as
//                                             complex columns, s32 info); no plain HLO:
//                                             only the CPU runtime runs it, through LAPACK
//   lapack_?gees_ffi (s, d, c, z)             jax's Schur decomposition (CPU): (t, Schur
//                                             vectors, eigenvalues, s32 sdim, s32 info);
//                                             no plain HLO either
//   lapack_?gtsv_ffi (s, d)                   jax's tridiagonal solve (CPU): LAPACK's
//                                             elimination with partial pivoting, (dl, d,
//                                             du as LAPACK leaves them, x, s32 info)
//   cu_lu_pivots_to_permutation               jax's GPU LU: the row permutation its 0-based
//                                             pivots (row swaps in order) make
//   __cub$DeviceRadixSort                     CUB's radix sort of each row (last dimension)
//                                             of keys, values carried along: stable, floats
//                                             in total order, descending when its
//                                             SortOptions say so
//
// Their results are tuples (value, workspace bytes); the workspace is scratch memory. A
// gemm whose epilogue keeps its GELU's input (GELU_AUX, BIAS_GELU_AUX: a training step's
// backward pass reads it) returns (value, aux[, workspace]), aux of the value's shape.
// ParseLibraryCall reads a call into a description; BuildLibraryCallComputation writes
// the plain HLO that computes it (dot, convolution, reverse, slice and elementwise ops),
// which the interpreter evaluates and the compiler inlines where no library runs. What the
// description cannot express faithfully (fp8 scaling and amax outputs, complex alpha,
// grouped backward convolutions) is an error naming the instruction, never a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compiler/ir/attributes.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/fused_attention.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox {

// XLA's GPU pipeline's call of cuBLAS's trsm for a `triangular-solve`.
inline constexpr std::string_view kXlaTriangularSolveTarget = "__cublas$triangularSolve";

enum class LibraryCallKind {
  kGemm,                      // __cublas$gemm, __cublas$lt$matmul
  kConvForward,               // __cudnn$convForward
  kConvBiasActivationForward, // __cudnn$convBiasActivationForward
  kConvBackwardInput,         // __cudnn$convBackwardInput
  kConvBackwardFilter,        // __cudnn$convBackwardFilter
  kTopK,                      // TopK, __gpu$TopK: (values, s32 positions[, workspace])
  kFusedAttention,            // __cudnn$fmha*Softmax*: (O[, softmax stats], workspace)
  kFusedAttentionBackward,    // __cudnn$fmha*Backward: (dQ, dK, dV[, dbias], workspace)
  kRadixSort,                 // __cub$DeviceRadixSort: (keys[, values], scratch)
  kTriangularSolve,           // lapack_?trsm_ffi, __cublas$triangularSolve: x with op(a) x = b or x op(a) = b
  kCholesky,                  // lapack_?potrf_ffi, cusolver_potrf_ffi: (factor, s32 info)
  kLu,                        // lapack_?getrf_ffi, cusolver_getrf_ffi: (lu, s32 pivots, s32 info)
  kQr,                        // lapack_?geqrf_ffi, cusolver_geqrf_ffi: (a, taus)
  kHouseholderProduct,        // lapack_?orgqr_ffi, cusolver_orgqr_ffi: q of (a, taus)
  kSymmetricEigen,            // lapack_?syevd_ffi, cusolver_syevd_ffi: (vectors, values, s32 info)
  kSvd,                       // lapack_?gesdd_ffi, cusolver_gesvdj_ffi: (a, s, u, vt or v, s32 info)
  kLuPivotsToPermutation,     // cu_lu_pivots_to_permutation: s32 permutation of s32 pivots
  kTridiagonalSolve,          // lapack_?gtsv_ffi: (dl, d, du, x, s32 info)
  kHessenberg,                // lapack_?gehrd_ffi: (a, taus, s32 info)
  kPivotingQr,                // lapack_?geqp3_ffi: (a, s32 jpvt, taus)
  kGeneralEigen,              // lapack_?geev_ffi: (wr, wi, complex vl, complex vr, s32 info)
                              // (complex: (w, vl, vr, s32 info))
  kSchur,                     // lapack_?gees_ffi: (t, vs, wr, wi, s32 sdim, s32 info) (complex:
                              // (t, vs, w, s32 sdim, s32 info))
};

// The cuBLASLt epilogue applied after alpha * a.b + beta * c. The *Aux ones also write
// the GELU's input (after the bias) as a second output.
enum class GemmEpilogue { kDefault, kBias, kRelu, kBiasRelu, kGelu, kBiasGelu, kGeluAux, kBiasGeluAux };

// Whether `epilogue` adds a bias vector, and whether it writes an auxiliary output.
bool GemmEpilogueHasBias(GemmEpilogue epilogue);
bool GemmEpilogueHasAux(GemmEpilogue epilogue);

// cuDNN's activation after a convolution (kNone: none).
enum class ConvActivation { kNone, kRelu, kRelu6, kElu, kLeakyRelu, kSigmoid, kTanh };

struct LibraryCall {
  LibraryCallKind kind = LibraryCallKind::kGemm;
  std::string target;  // the custom_call_target
  Shape result;        // the value (tuple element 0 when the call returns a tuple)
  // Gemm.
  DotDimensionNumbers dot;
  std::vector<Precision> precision;
  double alpha = 1;
  double beta = 0;            // beta != 0: operand 2 is c, added as beta * c
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  int64_t bias_operand = -1;  // the bias vector's operand number, or -1
  int64_t bias_dimension = -1;  // the result dimension the bias runs along
  // Convolutions: the forward convolution the call is about (for the backward kinds, the
  // one whose gradient it computes), in the call's own window and dim_labels.
  Window window;
  ConvolutionDimensionNumbers conv;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  double conv_result_scale = 1;
  double side_input_scale = 0;  // != 0 with a side input: operand 3
  double leakyrelu_alpha = 0;
  ConvActivation activation = ConvActivation::kNone;
  // TopK: the k largest (or smallest) of each row along the operand's last dimension.
  int64_t k = 0;
  bool largest = true;
  // Fused attention (both kinds).
  FusedAttention attention;
  // Radix sort: whether the rows are sorted largest first.
  bool descending = false;
  // Triangular solve and Cholesky: the triangle of a read (and written), and for the
  // solve the side a is on, whether its diagonal is taken as ones and op(a).
  bool lower = true;
  bool left_side = true;
  bool unit_diagonal = false;
  TransposeA transpose_a = TransposeA::kNoTranspose;
  // SVD: LAPACK's jobz, 'A', 'S' or 'N'; whether element 3 is V (cuSOLVER's gesvdj) rather
  // than V^T.
  char svd_mode = 'A';
  bool svd_returns_v = false;
  // General eigendecomposition: LAPACK's jobvl and jobvr, 'N' or 'V'.
  char eigen_left = 'N';
  char eigen_right = 'N';
};

// How a topk call's comparator `comparator` orders elements of `type`: true for
// descending (greater-than: the largest first), false for ascending; nullopt when it is
// not one of XLA's forms of a total order (compare(a, b) with TOTALORDER, or the
// comparison expander's integer form over the floats' bits; integers and pred by value),
// so that a topk with it would order NaNs or signed zeros otherwise than Fusebox's does.
// One IEEE form is XLA's too: compare(p0, p1) GT of floats, which XLA's TopK rewriter
// takes as descending and XLA's runtimes (CPU and GPU) run in total order, as Fusebox does.
std::optional<bool> TopKComparatorOrder(const Computation& comparator, PrimitiveType type);

// True when `instruction` is a custom call to one of the targets above.
bool IsLibraryCall(const Instruction& instruction);

// True when `instruction` is one of jax's LAPACK calls that the CPU runtime runs through
// LAPACK itself (as XLA's CPU backend does): lapack_{s,d}{potrf,getrf,geqrf,orgqr,syevd,
// gesdd,trsm,gtsv,gehrd,geqp3,geev}_ffi of real f32/f64 matrices (trsm is BLAS's; geev
// has no plain HLO, HasPlainHloModel). The CPU pipeline keeps them as calls; everywhere
// else (the interpreter, the GPU) they become the plain HLO BuildLibraryCallComputation
// writes, which is also the reference the CPU's results are checked against.
bool IsCpuLapackCall(const Instruction& instruction);
// The same target names whatever the operands' types: the numeric check's f64 shadow of
// a lapack_s... call has f64 operands (the runtime then runs the d routine and gives its
// vectors the signs the s routine chose, library_kernels.h).
bool IsCpuLapackTarget(const Instruction& instruction);
// jax's GPU solver calls whose results LAPACK's routine of the same name gives too, up to
// rounding: cusolver_{potrf,getrf,geqrf,orgqr}_ffi of f32, f64, c64 or c128 matrices (a
// Cholesky factor and an LU with partial pivoting are unique; Householder QR's reflectors
// and taus follow LAPACK's convention in cuSOLVER as in LAPACK). The numeric check runs
// these through LAPACK in its reference and shadows, where the plain HLO of a Householder
// loop bounded nothing (its magnitude shadow grows with every reflector). Not syevd or
// gesvdj: their vectors' signs are each library's choice (below).
bool IsLapackTwinGpuCall(const Instruction& instruction);
// jax's GPU eigh and SVD calls, cusolver_syevd_ffi and cusolver_gesvdj_ffi of f32 or f64
// matrices, which LAPACK's syevd and gesdd answer up to each vector's sign (gesvdj's V is
// gesdd's Vᵀ transposed): the numeric check runs them through LAPACK where the backend
// runs a library for them too (the GPU with its libraries), its comparison aligning the
// signs (numeric_check.h); elsewhere the interpreter's Jacobi model, as the backend.
bool IsLapackTwinGpuVectorCall(const Instruction& instruction);

// The floating-point operations of a jax LAPACK call (IsCpuLapackTarget) for the whole
// batch, by LAPACK's usual operation counts (multiplications plus additions, leading
// terms; LAPACK Working Note 41): potrf n^3/3, getrf k^2 max(m, n) - k^3/3, geqrf and geqp3
// 2 k^2 max(m, n) - 2 k^3/3, orgqr 4mnk - 2(m + n)k^2 + 4k^3/3, syevd 4n^3/3 (values) or
// 14n^3/3 (vectors), gesdd 4 k^2 max(m, n) - 4k^3/3 plus 4 k^2 max(m, n) + 8k^3 for vectors,
// gehrd 10n^3/3, trsm m^2 n (left) or m n^2 (right), gtsv (8 + 7 nrhs) n, geev 10n^3
// (values) or 79n^3/3 (vectors) (k = min(m, n)).
// For the profile's GFLOP/s, an estimate: the algorithms' own counts vary with blocking
// and convergence. -1 for other instructions.
int64_t LapackFlops(const Instruction& instruction);

// False for the library calls BuildLibraryCallComputation has no plain HLO for (LAPACK's
// geev: only the CPU runtime runs it); true for every other call.
bool HasPlainHloModel(const Instruction& instruction);

// The ragged-dot forms Fusebox models (jax's ragged_dot, a mixture of experts' grouped
// matmul, and its gradient with respect to the experts' matrices). group_sizes [g] splits
// the ragged dimension's m rows into consecutive groups (rows past the last group belong
// to none; a negative size counts as 0):
//   kRaggedRows: lhs [m, k] ragged in m, rhs [g, k, n] (or [g, n, k]) grouped in g, out
//     [m, n]: row r times the matrix of its group (zeros for rows in no group);
//   kRaggedContracting: lhs [m, k] and rhs [m, n] both contracting m (ragged), out
//     [g, k, n]: group j's rows of lhs, transposed, times the same rows of rhs.
// Any other form (batch dimensions, other dimension orders) is an error naming the
// instruction.
struct RaggedDotForm {
  enum Mode { kRaggedRows, kRaggedContracting } mode = kRaggedRows;
  int64_t lhs_contracting = 1;
  int64_t rhs_contracting = 1;
};
StatusOr<RaggedDotForm> ReadRaggedDot(const Instruction& instruction);

// Notes on the library calls of `module` whose outputs Fusebox computes otherwise than the
// library within what the call promises: an eigendecomposition's vectors (unique only up
// to sign). One note per call, naming it and its line.
std::vector<std::string> LibraryCallNotes(const Module& module);
// "__cublas$gemm" -> the kind; nullopt for other targets.
std::optional<LibraryCallKind> LibraryCallKindOf(std::string_view target);

// Reads the call. Errors name the instruction and what in it is not understood.
StatusOr<LibraryCall> ParseLibraryCall(const Instruction& instruction);

// Adds to `module` a computation, not the entry, that takes the call's operands as its
// parameters and returns what the call returns (the value, and a zero workspace when the
// call's result is a tuple). Its instructions are plain HLO. A general eigendecomposition
// (geev: the nonsymmetric QR algorithm) has none: an error naming the call.
StatusOr<Computation*> BuildLibraryCallComputation(const Instruction& instruction, Module& module);

// Replaces the library call `instruction` (in `module`) by a `call` of the computation
// BuildLibraryCallComputation adds: same operands and shape, its metadata, location,
// users and control edges; the call is named `name` (by default a fresh name from the
// call's). Returns the call.
StatusOr<Instruction*> ReplaceLibraryCallWithPlainCall(Instruction& instruction, Module& module,
                                                       const std::string& name = "");

}  // namespace fusebox
