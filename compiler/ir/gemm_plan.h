// How one gemm library call (compiler/ir/library_calls.h) maps onto cuBLAS's strided,
// batched, column-major GEMM (cublasGemmStridedBatchedEx): which buffer is cuBLAS's A and
// B, their transposes, leading dimensions and batch strides, the data and compute types.
// Pure arithmetic on shapes: no CUDA header and no GPU, so it is tested on any machine
// (tests/compiler/ir/gemm_plan_test.cc runs a plan's GEMM on the host the way cuBLAS
// defines it and holds the result against the interpreter's dot).
//
// What maps: operands and result row-major (the GPU backend normalizes layouts first).
// The buffers are read in place through strides, so no operand is copied:
//  - in each operand, the free dimensions merge into one strided dimension (each one's
//    stride is the next one's times its size) and so do the contracting ones, in the dot's
//    order; one of the two is the operand's minor (unit-stride) dimension and the other's
//    stride is cuBLAS's leading dimension;
//  - the batch dimensions may sit anywhere (attention's [b, s, h, d] with batch {b, h}):
//    those whose strides merge in the lhs, rhs and result form groups; the largest group
//    is cuBLAS's strided batch and every other one a loop of calls around it, at most
//    kMaxGemmCalls calls in all (the plan's `loops`).
// Element types: f32 x f32 -> f32, f64 x f64 -> f64, f16 x f16 and bf16 x bf16 -> the
// same type or f32. Anything else has no plan, and the reason says what did not map: the
// caller then uses Fusebox's own kernel, never an approximation.
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
#include <vector>

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

// A loop of calls around cuBLAS's batched GEMM: `count` calls, each one's buffers `*_stride`
// elements after the last one's (a: cuBLAS's A, the rhs; b: its B, the lhs; c: the result).
struct GemmCallLoop {
  int64_t count = 1;
  int64_t a_stride = 0;
  int64_t b_stride = 0;
  int64_t c_stride = 0;
};

// The most calls one plan makes (the product of its loops' counts); a dot that would need
// more is not planned.
inline constexpr int64_t kMaxGemmCalls = 64;

struct GemmPlan {
  // cuBLAS's view (column-major): C[m,n] = alpha * op(A)[m,k] . op(B)[k,n] + beta * C.
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;  // cuBLAS's batch count in one call
  // Batch dimensions that do not merge into cuBLAS's strided batch: the plan is the
  // product of these loops' counts calls, outermost loop first. Empty: one call.
  std::vector<GemmCallLoop> loops;
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
  // dimension), then RELU or GELU (tanh form); GELU_AUX also writes the GELU's input to
  // the call's second output, laid out as D (ldc, c_batch_stride: multiples of 8).
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  int64_t bias_operand = -1;
  int64_t flops = 0;        // 2 * M * N * K * batch, over all the calls

  // The number of calls (the loops' counts multiplied) and, for call i of them, each
  // buffer's offset in elements from its start.
  int64_t calls() const;
  struct Offsets {
    int64_t a = 0, b = 0, c = 0;
  };
  Offsets CallOffsets(int64_t i) const;

  // "cublasLtMatmul m=128 n=64 k=256 batch=4 A=rhs(N) B=lhs(T) f32->f32 tf32": the routine
  // the GPU runtime calls (GemmPlanRunsOnCublasLt), or the one named.
  std::string ToString() const;
  std::string ToString(bool through_cublas_lt) const;
};

// Whether the GPU runtime runs `plan` through cublasLtMatmul, so that its algorithm can
// be autotuned (cublasGemmEx takes no algorithm choice on sm_80 and later): every plan with
// an epilogue, and plain ones with something to compute and no f64 (those stay on
// cublasGemmStridedBatchedEx, as do plain plans cuBLASLt has no algorithm for).
bool GemmPlanRunsOnCublasLt(const GemmPlan& plan);

// The byte alignment every call of `plan` keeps for its A, B and C (= D) pointers when the
// buffers start `base`-byte aligned (a power of two): the loops' offsets may lower it.
// cuBLASLt is told, since it assumes 256 bytes otherwise.
struct GemmCallAlignment {
  int64_t a = 0, b = 0, c = 0;
};
GemmCallAlignment GemmCallPointerAlignment(const GemmPlan& plan, int64_t base);

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
int64_t GemmDataTypeBytes(GemmDataType type);  // 2, 4 or 8
std::string_view GemmEpilogueName(GemmEpilogue epilogue);  // "BIAS_RELU", XLA's spelling
// f16, bf16, f32, f64 as library data types; nullopt for any other element type.
std::optional<GemmDataType> GemmDataTypeOf(PrimitiveType type);

// Runs `plan` on the host exactly as cuBLAS defines its strided batched GEMM (column-major
// buffers, op(A) and op(B), leading dimensions, batch strides, alpha and beta), summing in
// the compute type's precision (f32 for both f32 compute types: no TF32 rounding). For the
// GPU emulator and tests: it checks a plan's plumbing, not cuBLAS. f16 and bf16 plans
// read their elements as f32 and round each result once, as cuBLAS's f32 compute does.
// `bias`: the call's bias operand, for plans with a bias epilogue; `aux`: the call's
// result element 1 (the activation's input, laid out as `out`), for the *_AUX epilogues.
Status RunGemmPlanOnHost(const GemmPlan& plan, const void* lhs, const void* rhs, void* out,
                         const void* bias = nullptr, void* aux = nullptr);

}  // namespace fusebox
