// jax's QR calls as plain HLO: LAPACK's geqrf (Householder QR) and orgqr (the product of
// its reflectors), which jax calls on the CPU (lapack_?geqrf_ffi, lapack_?orgqr_ffi) and
// cuSOLVER's on the GPU (cusolver_geqrf_ffi, cusolver_orgqr_ffi) for jnp.linalg.qr,
// jax.scipy.linalg.qr and everything built on them (lstsq through QR, orthogonal
// initializers).
#pragma once

#include <utility>

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"

namespace fusebox::library_call_internal {

// geqrf of `a` ([..., m, n], f32 or f64) as a while loop over the columns j < min(m, n),
// LAPACK's dgeqr2 step by step (dlarfg, then dlarf on the columns to the right):
//   alpha = a[j, j], x = a[j+1:, j];
//   x all zero: tau = 0, the column stays (H = I);
//   otherwise beta = -sign(alpha) * |(alpha, x)| (the sign bit's sign, as Fortran's SIGN),
//     tau = (beta - alpha) / beta, v = x * (1 / (alpha - beta)), a[j, j] = beta, a[j+1:, j] = v,
//     and the columns c > j lose tau * u (u^T a[:, c]) with u = (0..0, 1, v).
// The norm is scaled by the column's largest magnitude (as dnrm2 and dlapy2 avoid
// overflow). Returns the call's (a, taus) tuple in `call`'s shapes.
Instruction* EmitGeqrfCall(Module& module, Computation* computation, const Instruction& call, Instruction* a);
// The same loop as values without the call's layouts: (a, taus).
std::pair<Instruction*, Instruction*> HouseholderQr(Module& module, Computation* computation, Instruction* a);

// gehrd of `a` ([..., n, n], f32 or f64; ilo = 1, ihi = n) as a while loop over the
// columns i < n - 1, LAPACK's dgehd2 step by step: the reflector H_i of dlarfg on column i
// with its pivot at row i + 1 (as geqrf's), applied from the right to columns i + 1.. of
// every row, then from the left to rows i + 1.. of columns i + 1..; column i keeps beta at
// row i + 1 and v below. Returns the call's (a, taus [..., n - 1], s32 info = 0) tuple.
Instruction* EmitGehrdCall(Module& module, Computation* computation, const Instruction& call, Instruction* a);

// geqp3 of `a` ([..., m, n], f32 or f64) with every column free (jpvt all zeros on entry,
// as jax passes it): LAPACK's dlaqp2 step by step over i < min(m, n): the pivot is the
// first column from i on with the largest partial norm, swapped into column i (with its
// jpvt entry and norms), then geqrf's reflector on it, applied to the columns right of it,
// and the partial norms of those columns downdated (recomputed where cancellation makes
// the downdate inaccurate: LAPACK's tol3z = sqrt(eps)). Returns the call's (a, s32 jpvt
// (1-based), taus) tuple.
Instruction* EmitGeqp3Call(Module& module, Computation* computation, const Instruction& call, Instruction* a);

// orgqr of (a [..., m, n], taus [..., k]): Q = H_0 H_1 ... H_(k-1) applied to the first n
// columns of the m x m identity, H_i = I - tau_i u_i u_i^T with u_i = (0..0, 1, a[i+1:, i]),
// as a while loop from the last reflector to the first (dorg2r's order).
Instruction* EmitOrgqrCall(Module& module, Computation* computation, const Instruction& call, Instruction* a,
                           Instruction* taus);
// The same loop as a value without the call's layout.
Instruction* HouseholderProduct(Module& module, Computation* computation, Instruction* a, Instruction* taus);

}  // namespace fusebox::library_call_internal
