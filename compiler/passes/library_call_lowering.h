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
class LibraryCallLowering : public Pass {
 public:
  std::string_view name() const override { return "library-call-lowering"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
