// TopK decomposition: the "topk-decomposer" pass, and which topks keep a kernel of their own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// The largest k a topk keeps its own kernel for (the CPU backend's selection in the
// runtime, the GPU's one-block-a-row kernel): beyond it, as in XLA, a sort is the
// better plan.
inline constexpr int64_t kTopKKernelMaxK = 16;

// Whether the backends run `topk` as a kernel of its own: k at most kTopKKernelMaxK and
// elements of at most 32 bits that have an order as bits (pred, integers, floats with a
// sign bit: XLA's total order). Empty when they do, else why not.
std::string TopKKernelRefusal(const Instruction& topk);

// Replaces each topk the backends do not run as a kernel (TopKKernelRefusal) by what XLA's
// decomposition computes: a stable sort of the operand and an iota of its positions
// along the last dimension, in descending (largest=true) or ascending order of the values
// (floats in total order: +NaN above +inf, -0 below +0), then the first k of both. Ties
// keep the lower position first, as topk's do. Topks of the float types without a sign
// bit (f8e8m0fnu, the fnuz types) stay: no comparator orders them as topk does, and the
// backends name the instruction.
class TopKDecomposer : public Pass {
 public:
  std::string_view name() const override { return "topk-decomposer"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
