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
// With `keep_cublas_gemms` (the GPU pipeline with libraries on), gemm calls cuBLAS can run
// as they are (compiler/ir/gemm_plan.h) stay calls for the GPU runtime; the rest (cuBLASLt
// epilogues, cuDNN convolutions, which Fusebox does not drive yet) are lowered.
class LibraryCallLowering : public Pass {
 public:
  explicit LibraryCallLowering(bool keep_cublas_gemms = false) : keep_cublas_gemms_(keep_cublas_gemms) {}
  std::string_view name() const override { return "library-call-lowering"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  bool keep_cublas_gemms_;
};

}  // namespace fusebox::passes
