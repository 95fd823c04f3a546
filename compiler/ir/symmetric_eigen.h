// jax's symmetric eigendecomposition as plain HLO: LAPACK's syevd (jnp.linalg.eigh,
// eigvalsh on the CPU: lapack_?syevd_ffi) and cuSOLVER's (cusolver_syevd_ffi on the GPU),
// computed by Jacobi rotations.
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

}  // namespace fusebox::library_call_internal
