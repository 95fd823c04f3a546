// How one gemm library call (compiler/ir/library_calls.h) maps onto cuBLAS's strided,
// batched, column-major GEMM (cublasGemmStridedBatchedEx): which buffer is cuBLAS's A and
// B, their transposes, leading dimensions and batch strides, the data and compute types.
// Pure arithmetic on shapes: no CUDA header and no GPU, so it is tested on any machine
// (tests/compiler/ir/gemm_plan_test.cc runs a plan's GEMM on the host the way cuBLAS
// defines it and holds the result against the interpreter's dot).
//
// What maps: operands and result row-major (the GPU backend normalizes layouts first);
// batch dimensions leading in both operands, in the same order; in each operand the
// non-batch dimensions are its free dimensions then its contracting ones, or its
// contracting ones then its free ones, each group in order (so they merge into one
// matrix dimension); the rhs's contracting dimensions in the lhs's order. Element types:
// f32 x f32 -> f32, f64 x f64 -> f64, f16 x f16 and bf16 x bf16 -> the same type or f32.
// Anything else has no plan, and the reason says what did not map: the caller then uses
// Fusebox's own kernel, never an approximation.
//
// The row-major product C[M,N] = A[M,K] . B[K,N] is, read column-major, C^T = B^T . A^T:
// cuBLAS's A is the rhs, its B the lhs, its m is N and its n is M.
//
// Precision (XLA's rule for f32 on the GPU): operand precision DEFAULT or HIGH lets
// cuBLAS use TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32); HIGHEST, or any operand
// asking for it, computes in full f32. GemmPlanOptions::allow_tf32 = false forces full
// f32 (what `--check` asks for, so the interpreter's bound applies).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/ir/library_calls.h"
#include "compiler/support/status.h"

namespace fusebox {

enum class GemmDataType { kF16, kBF16, kF32, kF64 };
enum class GemmComputeType { kF32, kF32FastTf32, kF64 };

struct GemmOperandPlan {
  int operand = 0;          // which call operand (0: lhs, 1: rhs)
  bool transpose = false;   // cuBLAS op: CUBLAS_OP_T when true
  int64_t ld = 0;           // leading dimension (column-major)
  int64_t batch_stride = 0; // elements between batches
  GemmDataType type = GemmDataType::kF32;
};

struct GemmPlan {
  // cuBLAS's view (column-major): C[m,n] = alpha * op(A)[m,k] . op(B)[k,n] + beta * C.
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  GemmOperandPlan a;  // the rhs
  GemmOperandPlan b;  // the lhs
  int64_t ldc = 0;
  int64_t c_batch_stride = 0;
  GemmDataType c_type = GemmDataType::kF32;
  GemmComputeType compute = GemmComputeType::kF32;
  double alpha = 1;
  double beta = 0;          // != 0: the result buffer starts as the call's operand 2
  bool empty = false;       // the result has no elements: nothing to do
  // A cuBLASLt epilogue (cublasLtMatmul instead of cublasGemmStridedBatchedEx): the bias,
  // call operand bias_operand, added along D's rows (m: the row-major result's last
  // dimension), then RELU or GELU (tanh form).
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  int64_t bias_operand = -1;
  int64_t flops = 0;        // 2 * M * N * K * batch

  // "cublasGemmStridedBatchedEx m=128 n=64 k=256 batch=4 A=rhs(N) B=lhs(T) f32 tf32"
  std::string ToString() const;
};

struct GemmPlanOptions {
  bool allow_tf32 = true;  // XLA's rule above; false: full f32 always
};

// The plan for `call` with operand shapes `lhs` and `rhs` (the call's operands 0 and 1;
// the call's result is call.result). Errors (kUnimplemented) say what does not map.
StatusOr<GemmPlan> PlanGemm(const LibraryCall& call, const Shape& lhs, const Shape& rhs,
                            const GemmPlanOptions& options = {});

// The plan of a custom call `instruction` (ParseLibraryCall, then PlanGemm). A call with
// an epilogue (XLA's __cublas$lt$matmul) plans as cublasLtMatmul when its bias runs along
// cuBLASLt's m and its types are not f64; otherwise there is no plan.
StatusOr<GemmPlan> PlanGemmCall(const Instruction& instruction, const GemmPlanOptions& options = {});

std::string_view GemmDataTypeName(GemmDataType type);
std::string_view GemmEpilogueName(GemmEpilogue epilogue);  // "BIAS_RELU", XLA's spelling
// f16, bf16, f32, f64 as library data types; nullopt for any other element type.
std::optional<GemmDataType> GemmDataTypeOf(PrimitiveType type);

// Runs `plan` on the host exactly as cuBLAS defines its strided batched GEMM (column-major
// buffers, op(A) and op(B), leading dimensions, batch strides, alpha and beta), summing in
// the compute type's precision (f32 for both f32 compute types: no TF32 rounding). For the
// GPU emulator and tests: it checks a plan's plumbing, not cuBLAS. f32 and f64 only.
// `bias`: the call's bias operand, for plans with a bias epilogue.
Status RunGemmPlanOnHost(const GemmPlan& plan, const void* lhs, const void* rhs, void* out,
                         const void* bias = nullptr);

}  // namespace fusebox
