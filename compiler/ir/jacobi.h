// jax's symmetric eigendecomposition and singular value decomposition as plain HLO,
// computed by Jacobi rotations: LAPACK's syevd (jnp.linalg.eigh, eigvalsh on the CPU:
// lapack_?syevd_ffi) and cuSOLVER's (cusolver_syevd_ffi on the GPU), and LAPACK's gesdd
// (jnp.linalg.svd, pinv, lstsq, matrix_rank, norm(ord=2): lapack_?gesdd_ffi).
#pragma once

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"

namespace fusebox::library_call_internal {

// syevd of `a` ([..., n, n], f32 or f64; only its `lower` or upper triangle read) as
// (eigenvectors [..., n, n] in columns, eigenvalues [..., n] ascending, s32 info [...]).
//
// The matrix (scaled by its largest magnitude) is diagonalized by cyclic Jacobi
// rotations in the round-robin order of Brent and Luk: the n/2 disjoint pairs (i, i + n/2)
// are rotated at once (each rotation zeroes its pair's off-diagonal entry: the symmetric
// 2x2 Schur decomposition), then the indices move one seat around the table, so that every
// pair meets once in n - 1 steps (an odd n gets a zero row and column of its own, removed
// at the end). The rotated pairs' entries are set to zero, and everything is computed in
// f64 (an f32 call's result is rounded once at the end: each entry meets thousands of
// rotations). The loop stops when the off-diagonal norm is at most f64's unit roundoff
// times the Frobenius norm, or after 40 sweeps. The eigenvalues are the diagonal, sorted
// ascending with their vectors; info is 0, or 1 where an eigenvalue is NaN.
//
// The eigenvalues are LAPACK's to rounding. Eigenvectors are unique only up to sign (and
// within a repeated eigenvalue's space up to rotation); LAPACK's come from a tridiagonal
// reduction, these from rotations, so a vector may be the negative of LAPACK's (jax's
// own differ in sign between its CPU and GPU). What is computed from them without that
// choice (a reconstruction, a projector, a solve) agrees.
Instruction* EmitSyevdCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           bool lower);

// gesdd of `a` ([..., m, n], f32 or f64) with LAPACK's jobz `mode`: 'A' (u m x m, vt
// n x n), 'S' (u m x k, vt k x n, k = min(m, n)) or 'N' (the singular values only; u and
// vt zeros), as the call's (a as given, s [..., k] descending, u, vt, s32 info).
//
// One-sided Jacobi (Hestenes) on the columns of the taller of a and a^T, scaled by the
// largest magnitude, in f64: each step rotates the column pairs (i, i + n/2) of the
// round-robin table so that each pair becomes orthogonal (the 2x2 Schur decomposition of
// its Gram matrix), V collecting the rotations, until a whole sweep found every pair
// orthogonal to within m times f64's roundoff (relative to the columns' norms) or after
// 40 sweeps. The singular values are the columns' norms, sorted descending with U's and
// V's columns; U's columns are the columns over their norms, completed to an orthonormal
// basis (the columns of zero singular values, and u's last m - n columns for 'A') by the
// Householder QR of those columns. info is 0, or 1 where a singular value is NaN.
//
// The singular values are LAPACK's to rounding; a pair of singular vectors (u_j, v_j) is
// unique only up to a common sign (and within a repeated singular value up to rotation),
// so a pair may be the negative of LAPACK's.
// With `returns_v` (cuSOLVER's gesvdj), element 3 is V ([..., n, n] or [..., n, k]), not V^T.
Instruction* EmitGesddCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           char mode, bool returns_v = false);
// The same for a call of result shape `shape` (the GPU pipeline's transposed call models it
// on aᵀ's transpose, solver_plan.h).
Instruction* EmitGesddCall(Module& module, Computation* computation, const Shape& shape, Instruction* a, char mode,
                           bool returns_v);

}  // namespace fusebox::library_call_internal
