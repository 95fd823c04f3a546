// cuBLAS, loaded at run time like libcuda (dlopen of libcublas.so.13, .so.12, then the
// toolkit's /usr/local/cuda/lib64), so one Fusebox binary runs with and without it. The
// GPU executable hands it the gemm library calls (compiler/ir/gemm_plan.h) on its one
// stream. A machine without cuBLAS gets "cuBLAS unavailable (...)" naming what was
// tried, and `--gpu-library=off` runs Fusebox's own dot kernels instead.
#pragma once

#include <memory>
#include <string>

#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/primitive_type.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/ir/trsm_plan.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class Cublas {
 public:
  // Loads the library (once per process) and creates a handle bound to `context`'s
  // stream. Errors say which library could not be loaded or which call failed.
  static StatusOr<std::unique_ptr<Cublas>> Create(CudaContext& context);
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  // Queues the plan's GEMM: `lhs`/`rhs` are the call's operands 0 and 1, `out` its value
  // (holding c already when plan.beta != 0). Asynchronous, like a kernel launch.
  Status Gemm(const GemmPlan& plan, DevicePtr lhs, DevicePtr rhs, DevicePtr out);

  // Queues x *= alpha over `count` elements of x (cuBLAS's scal with a real alpha:
  // cublasSscal for f32, cublasDscal for f64, cublasCsscal for c64, cublasZdscal for
  // c128), in calls of at most 2^31 - 1 elements. The scale after an inverse Fourier
  // transform, as XLA's FFT thunk applies it.
  Status Scale(PrimitiveType type, int64_t count, double alpha, DevicePtr x);

  // Queues the plan's triangular solve with alpha 1, in place on `b` (cublas<t>trsm; for a
  // batch cublas<t>trsmBatched, whose device arrays of the matrices' addresses the caller
  // has filled at `pointers`: the batch's a pointers, then its b pointers).
  Status Trsm(const TrsmPlan& plan, DevicePtr a, DevicePtr b, DevicePtr pointers);

  // Queues the plan's batched LU (cublas<t>getrfBatched, a SolverPlan with routine
  // kGetrfBatched), in place on the matrices whose addresses the caller has filled at
  // `pointers`: n pivots per matrix at `pivots`, one info each at `info`.
  Status GetrfBatched(const SolverPlan& plan, DevicePtr pointers, DevicePtr pivots, DevicePtr info);

  // Queues the plan's batched QR (cublas<t>geqrfBatched, routine kGeqrfBatched), in place
  // on the matrices whose addresses the caller has filled at `pointers`, then their taus'
  // addresses. cuBLAS's info (argument checks only) is a host int: an error names it.
  Status GeqrfBatched(const SolverPlan& plan, DevicePtr pointers);

  // "cuBLAS 13.0.2 (libcublas.so.13)"
  const std::string& description() const { return description_; }

 private:
  Cublas() = default;
  void* handle_ = nullptr;  // cublasHandle_t
  std::string description_;
};

// Whether cuBLAS can be loaded here (no GPU needed); the message says why not.
Status CublasAvailable();

}  // namespace fusebox::runtime
