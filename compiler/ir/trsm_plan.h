// Triangular solves as XLA's GPU runtime hands them to cuBLAS (XLA rewrites each
// `triangular-solve` into a `__cublas$triangularSolve` call of cuBLAS's trsm, batched with
// pointer arrays when there are several matrices). cuBLAS is column-major and the GPU
// runtime's buffers are row-major, so the plan is the transposed problem on the same
// buffers: a row-major matrix read column-major is its transpose, and
//
//   op(a) x = b   (left side)   <=>   x' op(a') = b'   (cuBLAS's right side)
//   x op(a) = b   (right side)  <=>   op(a') x' = b'   (cuBLAS's left side)
//
// with a' = aᵀ, x' = xᵀ, b' = bᵀ: the side flips, the triangle flips (a's lower triangle
// is a''s upper one), op (N, T or C, the adjoint) and the unit diagonal stay. cuBLAS's
// trsm solves in place: the runtime copies b into the result first.
//
// RunTrsmPlanOnHost runs a plan on the host as cuBLAS defines trsm (column-major, in
// double): the GPU emulator runs `triangular-solve` with it, and the plan's tests hold it
// against the interpreter, so a wrong side, triangle, op or leading dimension shows
// without a GPU.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

struct TrsmPlan {
  PrimitiveType type = PrimitiveType::kF32;  // f32, f64, c64, c128
  // cuBLAS's arguments, in its column-major view (values of cublasSideMode_t,
  // cublasFillMode_t, cublasOperation_t, cublasDiagType_t).
  int side = 0;  // 0 left, 1 right
  int fill = 0;  // 0 lower, 1 upper
  int op = 0;    // 0 N, 1 T, 2 C
  int diag = 0;  // 0 non-unit, 1 unit
  int64_t m = 0, n = 0;      // B' is m x n (m: b's last dimension, n: its second last)
  int64_t lda = 0, ldb = 0;  // a's order; m
  int64_t batch = 1;         // the product of the leading dimensions
  int64_t a_stride = 0, b_stride = 0;  // elements between matrices
  int64_t element_bytes = 4;
  bool empty = false;  // no element to solve
  int64_t flops = 0;   // k^2 per right-hand side (complex: 4 k^2), per matrix
  int64_t bytes_read = 0, bytes_written = 0;

  std::string RoutineName() const;  // "cublasStrsm", or "cublasStrsmBatched" for a batch
  // "cublasStrsm side=R fill=U op=N diag=N m=8 n=16"
  std::string ToString() const;
};

// The plan of a `triangular-solve` (f32, f64, c64 or c128); an error naming the
// instruction for other types or shapes that do not fit.
StatusOr<TrsmPlan> PlanTriangularSolve(const Instruction& solve);

// The plan run on the host as cuBLAS defines trsm with alpha 1: `b` holds b on entry and
// the solution on exit (the row-major buffers the runtime passes).
Status RunTrsmPlanOnHost(const TrsmPlan& plan, const void* a, void* b);

}  // namespace fusebox
