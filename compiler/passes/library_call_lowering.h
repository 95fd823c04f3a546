// Library call lowering: the "library-call-lowering" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces each of XLA's cuBLAS and cuDNN custom calls (__cublas$gemm,
// __cublas$lt$matmul, __cudnn$conv*; see compiler/ir/library_calls.h) by a `call` of the
// plain HLO it stands for, which the call inliner then opens up: dot or convolution,
// reverse and slice for the gradients, the epilogue as elementwise ops (and a zero
// workspace where the call returned one). An XLA GPU module after optimizations then
// compiles with Fusebox's own kernels, and its dots and convolutions fuse like any other.
// A call the description cannot express fails the pass with the instruction's name.
//
// With `keep_library_calls` (the GPU pipeline with libraries on), the calls Fusebox's
// runtime hands to the libraries as they are stay calls: gemms cuBLAS runs
// (compiler/ir/gemm_plan.h), the convolution calls cuDNN runs (conv_plan.h: forward,
// backward and fused convolution, bias and activation with identity or relu); the rest
// are lowered (cuBLASLt epilogues it cannot run, fused calls with another activation or
// type: for each of those a decision, not fused, gives the plan's reason). Cholesky calls
// (cusolver_potrf_ffi, lapack_?potrf_ffi) stay for cuSOLVER's potrf, and an f32/f64 LU,
// QR, eigh or gesvdj call becomes its `__fusebox$..._transposed` target of the transposed
// matrix with its matrix results transposed back, for cuSOLVER's getrf, geqrf, orgqr,
// syevj, syevd and gesvdj or cuBLAS's getrfBatched and geqrfBatched (solver_plan.h).
class LibraryCallLowering : public Pass {
 public:
  explicit LibraryCallLowering(bool keep_library_calls = false, bool keep_lapack_calls = false)
      : keep_library_calls_(keep_library_calls), keep_lapack_calls_(keep_lapack_calls) {}
  std::string_view name() const override { return "library-call-lowering"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  bool keep_library_calls_;
  bool keep_lapack_calls_;  // the CPU's: IsCpuLapackCall's calls run through LAPACK
};

}  // namespace fusebox::passes
