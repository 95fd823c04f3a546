// cuSOLVER, loaded at run time like libcuda (dlopen of libcusolver.so.12, .so.11, then the
// toolkit's /usr/local/cuda/lib64), so one Fusebox binary runs with and without it. The
// GPU executable hands it the module's Cholesky, LU, QR, eigh and SVD calls
// (compiler/ir/solver_plan.h): potrf, potrfBatched, getrf, geqrf, orgqr, syevj,
// syevjBatched, syevd, gesvdj and gesvdjBatched on the executable's stream, with a work area Fusebox allocates (the largest any call asks for).
// cuBLAS's getrfBatched and geqrfBatched, the other routines jaxlib picks, are
// Cublas::GetrfBatched and Cublas::GeqrfBatched. A machine without cuSOLVER gets "cuSOLVER unavailable (...)",
// and `--gpu-library=off` runs Fusebox's own loops instead.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/solver_plan.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class Cusolver {
 public:
  // Loads the library (once per process) and creates a dense-solver handle bound to
  // `context`'s stream.
  static StatusOr<std::unique_ptr<Cusolver>> Create(CudaContext& context);
  ~Cusolver();
  Cusolver(const Cusolver&) = delete;
  Cusolver& operator=(const Cusolver&) = delete;

  // The work area the plan's routine asks for, in bytes (0 for potrfBatched, which
  // takes none, and for cuBLAS's batched routines; geqrf and orgqr: 16 bytes more, for
  // their devInfo).
  StatusOr<int64_t> WorkspaceBytes(const SolverPlan& plan);

  // A call's device buffers (0 where the routine has none).
  struct Buffers {
    DevicePtr a = 0;  // the call's first result, holding its first operand on entry
    DevicePtr pivots = 0, info = 0, taus = 0, values = 0;
    DevicePtr u = 0, v = 0;  // gesvdj's U and V (column-major, as the transposed call holds them)
    DevicePtr workspace = 0;
    int64_t workspace_bytes = 0;  // WorkspaceBytes(plan)
    DevicePtr pointers = 0;       // the matrices' addresses (potrfBatched), filled by the caller
  };

  // Queues the plan's routine in place on `a`: potrf writes `info` (one int per matrix),
  // getrf `pivots` and `info`, geqrf `taus`; orgqr reads `taus`; syev* writes the vectors
  // over a, `values` and `info`; gesvdj `values`, `u`, `v` and `info` (a is its scratch).
  // Not for cuBLAS's getrfBatched and geqrfBatched.
  Status Run(const SolverPlan& plan, const Buffers& buffers);

  // "cuSOLVER 12.0.4 (libcusolver.so.12)"
  const std::string& description() const { return description_; }

  // Whether the library has cusolverDnXsyevBatched (11.7.1, CUDA 12.6.2, and later), which
  // jaxlib then uses for every eigh beyond Jacobi's sizes; without it, syevd per matrix.
  bool has_syev_batched() const { return has_syev_batched_; }

 private:
  Cusolver() = default;
  void* handle_ = nullptr;       // cusolverDnHandle_t
  void* dn_params_ = nullptr;    // cusolverDnParams_t of the 64-bit API (the defaults), made when first needed
  bool has_syev_batched_ = false;
  std::vector<char> host_workspace_;  // syevBatched's host work area (the largest any plan asks for)
  void* syevj_params_ = nullptr;   // syevjInfo_t (the defaults: tolerance, 100 sweeps), made when first needed
  void* gesvdj_params_ = nullptr;  // gesvdjInfo_t (the defaults), made when first needed
  std::string description_;
};

// Whether cuSOLVER can be loaded here (no GPU needed); the message says why not.
Status CusolverAvailable();

}  // namespace fusebox::runtime
