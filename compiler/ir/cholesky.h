// Cholesky factorization as plain HLO: the loop behind the `cholesky` op's expansion
// (passes/linalg_expander.cc) and jax's potrf calls' meaning (library_calls.cc), so that
// both say the same of a matrix that is not positive definite.
#pragma once

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"

namespace fusebox::library_call_internal {

struct CholeskyColumns {
  // L, lower triangular ([..., n, n], zeros above the diagonal), column by column as the
  // Cholesky-Banachiewicz steps make it; past a failing pivot its values are what those
  // steps give (NaN or infinities), as neither XLA nor LAPACK defines them.
  Instruction* factor = nullptr;
  // pred [...]: some diagonal square root was NaN (a pivot below zero, or NaN): XLA's
  // condition for a matrix of NaN (its cholesky expander's).
  Instruction* root_failed = nullptr;
  // s32 [...]: LAPACK's potrf info, the 1-based order of the first pivot not > 0 (NaN
  // included), 0 when every pivot is positive.
  Instruction* info = nullptr;
};

// Factors the Hermitian matrices whose lower triangles `hermitian` holds ([..., n, n], a
// float or complex type; the strict upper triangle is not read) with a while loop over the
// columns j: v = a[:, j] - L L[j, :]^H, L[j, j] = sqrt(re v[j]), L[i > j, j] = v[i] / L[j, j].
CholeskyColumns CholeskyLoop(Module& module, Computation* parent, Instruction* hermitian);

}  // namespace fusebox::library_call_internal
