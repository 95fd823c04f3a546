// The passes that hand work to NVIDIA's libraries in the GPU pipeline with libraries on
// (`--gpu-library=on`, the default for `--backend gpu`).
//
// "gemm-rewriter": dots that cuBLAS can run become `__cublas$gemm` custom calls,
// as XLA's GPU compiler writes them (backend_config {"gemm_backend_config": {alpha_real,
// beta, dot_dimension_numbers, precision_config, epilogue}}), so the GPU runtime hands
// them to cuBLAS (compiler/runtime/cublas.h) and XLA's own GPU modules and Fusebox's
// plans go down the same path. Only in the GPU pipeline with libraries on
// (`--gpu-library=on`, the default for `--backend gpu`).
//
// A dot is rewritten when compiler/ir/gemm_plan.h maps it (element types, batch and
// contracting dimensions that merge into matrices); any other stays a dot for Fusebox's
// own kernels. The call's result is the value itself (no workspace tuple: the library's
// default workspace serves). Runs before fusion: a library call fuses with nothing, so
// what follows a dot becomes a loop fusion of its own, except what a cuBLASLt epilogue
// computes in the GEMM, as XLA's GPU compiler does: a bias add along the last dimension
// (add(dot, broadcast(b), dimensions={rank-1})) and a relu (maximum(x, 0)) after it,
// each the only user of the one before, become a `__cublas$lt$matmul` call with epilogue
// BIAS, RELU or BIAS_RELU and the bias as operand 2. GELU is not matched (jax writes it
// in several forms); XLA's GELU calls run as they are.
#pragma once

#include <string_view>

#include "compiler/ir/library_calls.h"
#include "compiler/passes/pass.h"

namespace fusebox::passes {

class GemmRewriter : public Pass {
 public:
  std::string_view name() const override { return "gemm-rewriter"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

// The backend_config text of a gemm call for `dot` (alpha 1, beta 0, `epilogue`), in
// XLA's JSON form.
std::string GemmBackendConfig(const Instruction& dot, GemmEpilogue epilogue = GemmEpilogue::kDefault);

// "conv-rewriter": convolutions cuDNN can run become calls in XLA's form (window,
// dim_labels, feature_group_count; backend_config {"cudnn_conv_backend_config": {...}}
// with scale 1 and no activation):
// - forward convolutions, and the weight gradients jax writes as forward ones, become
//   `__cudnn$convForward` calls (compiler/ir/conv_plan.h plans the weight gradients as
//   cudnnConvolutionBackwardFilter). Asymmetric padding (a strided SAME convolution)
//   moves into an explicit pad of the input first, as XLA does.
// - input gradients of strided convolutions (lhs dilation, one group) become
//   `__cudnn$convBackwardInput` calls of the forward convolution they differentiate,
//   for cudnnConvolutionBackwardData: the window becomes that convolution's (stride =
//   the lhs dilation, symmetric padding), the kernel is reversed first unless it is a
//   reverse already (the two cancel), and where cuDNN's symmetric padding makes dx
//   longer than the result a slice keeps its start.
// Any other convolution (lhs dilation with groups, padding that fits neither form) stays
// a convolution for Fusebox's own kernels.
// Then, as XLA's cudnn-fused-convolution-rewriter does, what cuDNN's fused call
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias) computes after a forward call folds
// into a `__cudnn$convBiasActivationForward` call (x, w, bias[, z]), each step only where
// the value so far has one user: a multiply by a broadcast constant right after the call
// (conv_result_scale), an add of a broadcast along the output features (the bias) or of a
// broadcast scalar (a bias of that value), an add of anything else shaped as the result
// (the side input z, side_input_scale 1, or c for z = multiply(z', broadcast(c))), and a
// relu (maximum(x, 0)) last, kRelu. A call without a bias of its own gets a zero one, as
// XLA's. A relu whose input has another user (a training step's relu mask reads it) stays
// outside. Not folded: depthwise convolutions (as XLA), weight gradients' calls, and what
// cuDNN's fused call does not take (bf16, a side input of another layout: the decision
// says why).
class ConvRewriter : public Pass {
 public:
  std::string_view name() const override { return "conv-rewriter"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
