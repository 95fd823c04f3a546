// Triangular solves and Cholesky factorizations as loops: the "linalg-expander" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces `triangular-solve` and `cholesky` of real floating-point types (f16 and bf16
// computed in f32) by while loops of dynamic slices and dots, as XLA's expanders do for
// backends without a library for them:
//
//   triangular-solve: op(a) and the side brought to a left-side solve with a lower or an
//     upper triangle t (the other triangle zeros, ones on the diagonal when
//     unit_diagonal); then one row of x a step, from the first row down for a lower t,
//     from the last up for an upper one: x_i = (b_i - t_i . x) / t_ii, the rows of x not
//     yet solved being zero.
//   cholesky: one column of L a step: v = a_j - L . L_j^T over the lower triangle of a
//     (for lower=false, of a's transpose), L_j = v / sqrt(v_j) from row j down; the other
//     triangle zeros; a matrix that is not positive definite gives NaN from that column
//     on, as the interpreter's.
//
// The dots are at HIGHEST precision (no TF32 on the GPU). Complex types stay, and the
// backends name them.
//
// Also `ragged-dot` (jax's ragged_dot, a mixture of experts' grouped matmul, in the form
// RaggedDotRhsContracting accepts): one dot of every row with every group's matrix and a
// mask picking each row's group (linalg_expander.cc); another form is an error naming it.
//
// `gpu_libraries` (the GPU pipeline with its libraries): f32, f64, c64 and c128
// triangular solves stay ops, which the GPU runtime hands to cuBLAS's trsm as XLA's GPU
// backend does (compiler/ir/trsm_plan.h); `cholesky` of those types becomes what XLA's
// GPU backend makes of it, a cusolver_potrf_ffi call (cuSOLVER's potrf, solver_plan.h) and
// a select of NaN for the matrices whose factorization failed (and of zeros for the
// other triangle, as without libraries).
class LinalgExpander : public Pass {
 public:
  explicit LinalgExpander(bool gpu_libraries = false) : gpu_libraries_(gpu_libraries) {}
  std::string_view name() const override { return "linalg-expander"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  bool gpu_libraries_;
};

}  // namespace fusebox::passes
