// Batch norm expansion: the "batch-norm-expander" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces batch-norm-training, batch-norm-inference and batch-norm-grad (what TensorFlow's
// fused batch norm becomes in HLO) by the reductions and elementwise ops they stand for,
// as XLA's CPU and GPU pipelines do, so that both backends run them and fusion sees them.
// With N the elements a feature has (the product of every dimension but feature_index),
// xc = x - mean and v = variance + epsilon:
//
//   training   mean = sum(x) / N, variance = sum(xc * xc) / N (two passes: no cancellation
//              of E[x^2] - E[x]^2), y = xc * rsqrt(v) * scale + offset
//   inference  y = (x - mean) * rsqrt(v) * scale + offset
//   grad       grad_offset = sum(dy), grad_scale = sum(dy * xc) * rsqrt(v),
//              grad_x = scale * rsqrt(v) * (dy - sum(dy) / N - xc * sum(dy * xc) / (N * v))
//
// f16 and bf16 operands are computed in f32 and the results converted back (the sums of a
// feature's elements would lose most of their bits in 16-bit floats); f32 and f64 in their
// own type. Any other type, or an instruction whose shapes do not fit, stays and the
// backends name it.
class BatchNormExpander : public Pass {
 public:
  std::string_view name() const override { return "batch-norm-expander"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
