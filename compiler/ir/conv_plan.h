// How a convolution maps onto cuDNN's forward cross-correlation (cudnnConvolutionForward):
// the input and output as 4-D NCHW tensor descriptors with explicit strides (so any HLO
// dim_labels order of the GPU backend's row-major buffers is described in place), the
// kernel as a strided KCRS view that cudnnTransformTensor packs first (cuDNN's filter
// descriptors take packed layouts only), padding, strides, dilation and groups. Pure
// arithmetic on shapes, tested on any machine (tests/compiler/ir/conv_plan_test.cc runs a
// plan on the host as cuDNN defines it, against the interpreter).
//
// What maps: 1 or 2 spatial dimensions (1-D as height 1); no base (lhs) dilation, no window
// reversal, symmetric non-negative padding, batch_group_count 1, any feature_group_count;
// f32, f16 or bf16 throughout. That covers forward convolutions and, since the strided
// views take any dimension order, the weight-gradient convolutions jax writes as forward
// ones (batch and feature swapped). Input gradients of strided convolutions (lhs dilation)
// and asymmetric padding have no plan: Fusebox's own kernel runs them, and the reason is
// in the status. Precision: f32 may use TF32 tensor cores (cuDNN's default math on
// sm_80+, as XLA allows for DEFAULT precision); ConvPlanOptions::allow_tf32 false asks for
// FMA math (full f32).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

struct ConvTensorView {
  std::array<int64_t, 4> dims = {1, 1, 1, 1};     // N, C, H, W (K, C/groups, R, S for the kernel)
  std::array<int64_t, 4> strides = {1, 1, 1, 1};  // in elements, into the row-major buffer
};

struct ConvPlan {
  ConvTensorView input;   // x: operand 0
  ConvTensorView kernel;  // w: operand 1 (a strided view; packed to KCRS before the call)
  ConvTensorView output;  // y
  std::array<int64_t, 2> padding = {0, 0};
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
  GemmDataType type = GemmDataType::kF32;
  bool tf32 = true;  // f32 may use TF32 (cuDNN's default math); false: FMA math
  // The convolution is a weight gradient (its window, the output gradient, is larger than
  // its result): run it as cudnnConvolutionBackwardFilter of the forward convolution it
  // differentiates, as XLA does, instead of a forward call with a huge kernel. That forward
  // convolution has x = the input view with N and C swapped, dy = the kernel view with N
  // and K swapped, dw = the output view with C and K swapped, the same padding, stride =
  // this plan's dilation and dilation = this plan's stride. Same result either way.
  bool backward_filter = false;
  int64_t kernel_elements = 0;  // K * C/groups * R * S: the packed kernel's size
  int64_t flops = 0;

  // "cudnnConvolutionForward x[N=8,C=3,H=32,W=32] w[K=16,C=3,R=3,S=3] pad 1x1 stride 1x1 f32 tf32"
  std::string ToString() const;
};

struct ConvPlanOptions {
  bool allow_tf32 = true;
};

// The plan of an HLO convolution `conv`, or of XLA's __cudnn$convForward call without
// scaling or activation. Errors (kUnimplemented) say what does not map.
StatusOr<ConvPlan> PlanConvolution(const Instruction& conv, const ConvPlanOptions& options = {});
// The same from a convolution's parts: input x, kernel w, result y.
StatusOr<ConvPlan> PlanConvolutionShapes(const Window& window, const ConvolutionDimensionNumbers& dn,
                                         int64_t feature_groups, int64_t batch_groups, const Shape& x, const Shape& w,
                                         const Shape& y, const ConvPlanOptions& options = {});

// Runs `plan` on the host as cuDNN defines its forward cross-correlation (f32 only), reading
// x and w through their strided views and writing y through its view. For the GPU emulator
// and tests.
Status RunConvPlanOnHost(const ConvPlan& plan, const void* x, const void* w, void* y);

}  // namespace fusebox
