// How a convolution maps onto cuDNN's convolution calls (forward, backward data, backward
// filter): x, y and the filter as 4-D NCHW tensor descriptors with explicit strides (so
// any HLO dim_labels order of the GPU backend's row-major buffers is described in place),
// the filter as a strided view that cudnnTransformTensor packs (cuDNN's filter
// descriptors take packed KCRS or KRSC layouts only), padding, strides, dilation and
// groups. Pure arithmetic on shapes, tested on any machine (tests/compiler/ir/
// conv_plan_test.cc runs a plan on the host as cuDNN defines each call, against the
// interpreter).
//
// What maps: 1 or 2 spatial dimensions (1-D as height 1); no base (lhs) dilation, no window
// reversal, symmetric non-negative padding, batch_group_count 1, any feature_group_count;
// f32, f16 or bf16 throughout. That covers forward convolutions, the weight-gradient
// convolutions jax writes as forward ones (batch and feature swapped; planned as
// backward-filter calls) and XLA's __cudnn$convBackwardInput/Filter calls. An HLO input
// gradient of a strided convolution (lhs dilation) has no plan of its own: the
// conv-rewriter pass writes it as a __cudnn$convBackwardInput call first
// (compiler/passes/library_rewriters.h). Precision: f32 may use TF32 tensor cores
// (cuDNN's default math on sm_80+, as XLA allows for DEFAULT precision);
// ConvPlanOptions::allow_tf32 false asks for FMA math (full f32).
//
// XLA's __cudnn$convBiasActivationForward calls plan as a forward convolution with a
// ConvBiasActivation epilogue, for cudnnConvolutionBiasActivationForward:
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias), act identity or relu (what cuDNN's
// fused call applies), f32 or f16, the bias a vector along y's feature dimension
// (described as [1, K, 1, 1]) and the side input z shaped as y. Other activations
// (relu6, elu, leaky relu, sigmoid, tanh) and types have no plan: the status says why and
// library-call-lowering runs the call as a convolution call and a loop fusion.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

struct ConvTensorView {
  std::array<int64_t, 4> dims = {1, 1, 1, 1};     // N, C, H, W (K, C/groups, R, S for the kernel)
  std::array<int64_t, 4> strides = {1, 1, 1, 1};  // in elements, into the row-major buffer
};

// Which cuDNN call a plan makes. Every plan describes the forward convolution
// y = conv(x, w) the call is about (input = x, kernel = w, output = y, with that
// convolution's padding, stride and dilation); the call says which two buffers are given
// and which one is computed:
//   kForward:        operand 0 = x,  operand 1 = w,  result = y   (cudnnConvolutionForward)
//   kBackwardData:   operand 0 = dy, operand 1 = w,  result = dx  (cudnnConvolutionBackwardData)
//   kBackwardFilter: operand 0 = x,  operand 1 = dy, result = dw  (cudnnConvolutionBackwardFilter)
enum class ConvCall { kForward, kBackwardData, kBackwardFilter };

// cuDNN's activations in its fused convolution call (cudnnActivationMode_t values).
enum class ConvFusedActivation { kIdentity = 5, kRelu = 1 };

// The epilogue of cudnnConvolutionBiasActivationForward on a forward plan:
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias). Operand 2 is the bias (K elements,
// the [1, K, 1, 1] view `bias`), operand 3 the side input z when `side_input` (y's view).
struct ConvBiasActivation {
  ConvFusedActivation activation = ConvFusedActivation::kIdentity;
  double alpha1 = 1;  // XLA's conv_result_scale
  double alpha2 = 0;  // XLA's side_input_scale
  bool side_input = false;
  ConvTensorView bias;  // dims {1, K, 1, 1}, packed
};

struct ConvPlan {
  ConvTensorView input;   // x (dx for kBackwardData)
  ConvTensorView kernel;  // w (dw for kBackwardFilter): a strided view, packed around the call
  ConvTensorView output;  // y (dy for the backward calls)
  std::array<int64_t, 2> padding = {0, 0};
  std::array<int64_t, 2> stride = {1, 1};
  std::array<int64_t, 2> dilation = {1, 1};
  int64_t groups = 1;
  GemmDataType type = GemmDataType::kF32;
  bool tf32 = true;  // f32 may use TF32 (cuDNN's default math); false: FMA math
  ConvCall call = ConvCall::kForward;
  int64_t kernel_elements = 0;  // K * C/groups * R * S: the packed kernel's size
  int64_t flops = 0;  // the convolution's, plus the fused epilogue's elementwise work
  // Set on forward plans of fused calls: the call is cudnnConvolutionBiasActivationForward.
  std::optional<ConvBiasActivation> bias_activation;

  // "cudnnConvolutionForward x[N=8,C=3,H=32,W=32] w[K=16,C=3,R=3,S=3] pad 1x1 stride 1x1 f32 tf32"
  std::string ToString() const;
};

// cuDNN's filter descriptors take packed filters only, in one of two orders:
// CUDNN_TENSOR_NCHW (K, C, R, S) or CUDNN_TENSOR_NHWC (K, R, S, C).
enum class FilterLayout { kKcrs, kKrsc };

// The kernel (filter) view packed in `layout`: same dims, packed strides.
ConvTensorView PackedFilter(const ConvTensorView& kernel, FilterLayout layout);
// The layout to ask cuDNN for first: the one the kernel buffer already has (no packing
// move), else KRSC when x is channel-minor (NHWC-strided, as jax's and XLA's GPU
// layouts are; cuDNN refuses some NHWC tensors with a KCRS filter), else KCRS.
FilterLayout PreferredFilterLayout(const ConvPlan& plan);
// The packed layout the kernel buffer already has (no move before or after the call), if any.
std::optional<FilterLayout> PackedFilterLayout(const ConvPlan& plan);
std::string_view FilterLayoutName(FilterLayout layout);
std::string_view ConvCallName(ConvCall call);

struct ConvPlanOptions {
  bool allow_tf32 = true;
  // A convolution whose window (the output gradient) is larger than its result is a
  // weight gradient: plan it as kBackwardFilter of the forward convolution it
  // differentiates, as XLA does, instead of a forward call with a huge kernel. False: the
  // forward reading (same result), for when cuDNN has no backward-filter algorithm.
  bool weight_gradients_as_backward_filter = true;
};

// The plan of an HLO convolution `conv`, or of XLA's __cudnn$convForward call without
// scaling or activation, of its __cudnn$convBackwardInput / __cudnn$convBackwardFilter
// calls, or of its __cudnn$convBiasActivationForward call (a forward plan with
// bias_activation set). Errors (kUnimplemented) say what does not map.
StatusOr<ConvPlan> PlanConvolution(const Instruction& conv, const ConvPlanOptions& options = {});
// The same from a convolution's parts: input x, kernel w, result y.
StatusOr<ConvPlan> PlanConvolutionShapes(const Window& window, const ConvolutionDimensionNumbers& dn,
                                         int64_t feature_groups, int64_t batch_groups, const Shape& x, const Shape& w,
                                         const Shape& y, const ConvPlanOptions& options = {});

struct LibraryCall;

// The plan of a fused convolution `call` (kind kConvBiasActivationForward) on input x,
// kernel w, bias vector `bias` and, when not null, side input `side`; what
// cudnnConvolutionBiasActivationForward cannot compute is refused with the reason.
StatusOr<ConvPlan> PlanConvBiasActivation(const LibraryCall& call, const Shape& x, const Shape& w, const Shape& bias,
                                          const Shape* side, const ConvPlanOptions& options = {});

// "conv+bias+relu", "conv+bias" (identity), with "+side" when there is a side input.
std::string ConvBiasActivationName(const ConvBiasActivation& epilogue);

// Runs `plan` on the host as cuDNN defines its call (f32 only): the two operands read and
// the result written through their strided views (see ConvCall for which is which). For
// the GPU emulator and tests.
Status RunConvPlanOnHost(const ConvPlan& plan, const void* operand0, const void* operand1, void* result);
// The same for a plan with bias_activation (f32 only), as
// cudnnConvolutionBiasActivationForward defines it: the sum of the convolution's terms,
// scaled by alpha1, plus alpha2 * z (read only when alpha2 != 0, as y may stand for z),
// plus bias[k], then the activation. `side` may be null without a side input and may
// be `result`.
Status RunConvBiasActivationPlanOnHost(const ConvPlan& plan, const void* x, const void* w, const void* bias,
                                       const void* side, void* result);

}  // namespace fusebox
