// Convolutions as cuDNN calls: each plan is run on the host as cuDNN defines its call (RunConvPlanOnHost: strided NCHW views of the row-major buffers,
// padding, stride, dilation, groups) and held against the interpreter's convolution, for
// the dim_labels orders jax writes (forward NHWC/HWIO, the input gradient's swapped kernel,
// the weight gradient with batch and feature swapped), 1-D and grouped convolutions. What
// cuDNN's forward call cannot express is refused with the reason.
#include "compiler/ir/conv_plan.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

Literal Filled(const Shape& shape, int salt) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetDouble(i, std::sin(0.61 * static_cast<double>(i) + salt));
  }
  return literal;
}

// How close a result must be: f16 and bf16 are rounded once on each side (a unit in their
// last place, about 2^-11 and 2^-8).
double Relative(PrimitiveType type) {
  return type == PrimitiveType::kBF16 ? 8e-3 : type == PrimitiveType::kF16 ? 1e-3 : 1e-4;
}

std::unique_ptr<Module> ParseConv(const std::string& params, const std::string& conv_line) {
  const std::string text = "HloModule m\n\nENTRY e {\n" + params + "\n  ROOT c = " + conv_line + "\n}\n";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  return parsed.ok() ? std::move(*parsed) : nullptr;
}

// Plans the module's root (a convolution or a convolution call), runs the plan on the
// host as cuDNN defines its call, and holds the result against the interpreter's.
ConvPlan ExpectPlanComputesTheConvolution(const std::string& params, const std::string& conv_line,
                                          const ConvPlanOptions& options = {}) {
  SCOPED_TRACE(conv_line);
  auto module = ParseConv(params, conv_line);
  EXPECT_NE(module, nullptr);
  if (module == nullptr) return {};
  const Instruction* conv = module->entry()->root();
  auto plan = PlanConvolution(*conv, options);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  std::vector<Literal> args = {Filled(conv->operand(0)->shape(), 1), Filled(conv->operand(1)->shape(), 2)};
  auto want = interpreter::Interpreter().Run(*module, args);
  EXPECT_TRUE(want.ok()) << want.status().message();
  if (!want.ok()) return *plan;
  const Literal value = want->shape().IsTuple() ? std::move(want->tuple_elements()[0]) : std::move(*want);
  Literal got(value.shape());
  EXPECT_TRUE(RunConvPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), got.untyped_data()).ok());
  const double relative = Relative(value.shape().element_type());
  for (int64_t i = 0; i < got.element_count(); ++i) {
    if (std::fabs(got.GetDouble(i) - value.GetDouble(i)) > relative * (1 + std::fabs(value.GetDouble(i)))) {
      ADD_FAILURE() << "element " << i << ": " << got.GetDouble(i) << " against " << value.GetDouble(i) << " of "
                    << plan->ToString();
      break;
    }
  }
  return *plan;
}

TEST(ConvPlanTest, TheLayoutsJaxWritesComputeTheConvolution) {
  // Forward, NHWC x HWIO, SAME padding.
  ExpectPlanComputesTheConvolution("  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
                                   "f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  // Strided and dilated.
  ExpectPlanComputesTheConvolution("  x = f32[2,9,8,3] parameter(0)\n  w = f32[3,2,3,4] parameter(1)",
                                   "f32[2,4,3,4] convolution(x, w), window={size=3x2 stride=2x2 rhs_dilate=1x2}, "
                                   "dim_labels=b01f_01io->b01f");
  // The input gradient of a stride-1 convolution: the kernel read as 01oi.
  ExpectPlanComputesTheConvolution("  x = f32[2,6,5,4] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
                                   "f32[2,6,5,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f");
  // The weight gradient: batch and feature swapped in the input, the output gradient as the
  // kernel, the result the kernel's shape (01bf).
  ExpectPlanComputesTheConvolution("  x = f32[2,6,5,3] parameter(0)\n  dy = f32[2,6,5,4] parameter(1)",
                                   "f32[3,3,3,4] convolution(x, dy), window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf");
  // NCHW x OIHW, 1-D, grouped.
  ExpectPlanComputesTheConvolution("  x = f32[2,3,7,6] parameter(0)\n  w = f32[5,3,2,2] parameter(1)",
                                   "f32[2,5,6,5] convolution(x, w), window={size=2x2}, dim_labels=bf01_oi01->bf01");
  ExpectPlanComputesTheConvolution("  x = f32[2,11,3] parameter(0)\n  w = f32[3,3,4] parameter(1)",
                                   "f32[2,11,4] convolution(x, w), window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f");
  ExpectPlanComputesTheConvolution("  x = f32[2,5,5,6] parameter(0)\n  w = f32[3,3,2,6] parameter(1)",
                                   "f32[2,5,5,6] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                                   "feature_group_count=3");
}

// Weight gradients run as cudnnConvolutionBackwardFilter: the plan says so, and
// RunConvPlanOnHost's backward-filter reading of its views (x = operand 0, dy = operand
// 1, dw = the result) computes the interpreter's result (stride 1 and 2, a dilated
// forward kernel). Asked not to, the same convolution is a forward call with the same
// result; forward convolutions stay forward.
TEST(ConvPlanTest, WeightGradientsRunAsBackwardFilter) {
  struct Case {
    std::string params, line;
  };
  const std::vector<Case> cases = {
      {"  x = f32[2,6,5,3] parameter(0)\n  dy = f32[2,6,5,4] parameter(1)",
       "f32[3,3,3,4] convolution(x, dy), window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
      // Forward stride 2 (the gradient's rhs_dilate), padding 1.
      {"  x = f32[2,7,7,3] parameter(0)\n  dy = f32[2,4,4,4] parameter(1)",
       "f32[3,3,3,4] convolution(x, dy), window={size=4x4 pad=1_1x1_1 rhs_dilate=2x2}, dim_labels=f01b_i01o->01bf"},
      // A dilated forward kernel (the gradient's stride).
      {"  x = f32[2,9,9,3] parameter(0)\n  dy = f32[2,5,5,4] parameter(1)",
       "f32[3,3,3,4] convolution(x, dy), window={size=5x5 stride=2x2}, dim_labels=f01b_i01o->01bf"},
  };
  for (const Case& c : cases) {
    const ConvPlan plan = ExpectPlanComputesTheConvolution(c.params, c.line);
    EXPECT_EQ(plan.call, ConvCall::kBackwardFilter) << plan.ToString();
    EXPECT_EQ(plan.kernel.dims[2], 3) << "dw is the forward kernel: R = 3";
    const ConvPlan forward =
        ExpectPlanComputesTheConvolution(c.params, c.line, {.weight_gradients_as_backward_filter = false});
    EXPECT_EQ(forward.call, ConvCall::kForward);
    EXPECT_EQ(forward.flops, plan.flops);
  }
  const ConvPlan forward = ExpectPlanComputesTheConvolution(
      "  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
      "f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  EXPECT_EQ(forward.call, ConvCall::kForward);
}

// XLA's backward calls (tuples with a workspace, as its GPU compiler writes them): the
// plan is the call the target names, and cuDNN's reading of it computes what the
// interpreter evaluates for the call (dx of a strided convolution; dw with padding).
TEST(ConvPlanTest, XlasBackwardCallsPlanAsTheirCudnnCalls) {
  const std::string config = R"(, backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1,"activation_mode":"kNone","side_input_scale":0,"leakyrelu_alpha":0}})";
  const ConvPlan data = ExpectPlanComputesTheConvolution(
      "  dy = f32[2,5,5,4] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
      "(f32[2,9,9,3], u8[0]) custom-call(dy, w), custom_call_target=\"__cudnn$convBackwardInput\", "
      "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + config);
  EXPECT_EQ(data.call, ConvCall::kBackwardData) << data.ToString();
  EXPECT_EQ(data.input.dims[2], 9) << "x is dx, the result";
  const ConvPlan filter = ExpectPlanComputesTheConvolution(
      "  x = f32[2,8,8,3] parameter(0)\n  dy = f32[2,8,8,4] parameter(1)",
      "(f32[3,3,3,4], u8[0]) custom-call(x, dy), custom_call_target=\"__cudnn$convBackwardFilter\", "
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + config);
  EXPECT_EQ(filter.call, ConvCall::kBackwardFilter) << filter.ToString();
  EXPECT_EQ(filter.kernel.dims[0], 4) << "w is dw, the result: K = 4";
}

// cuDNN's filter descriptors take packed KCRS or KRSC filters: a channel-minor (NHWC) x
// asks for KRSC first, a kernel already packed in one layout keeps it, and a kernel
// packed through either layout's strides and read back through them computes the same.
TEST(ConvPlanTest, FilterLayoutFollowsTheTensors) {
  auto plan_of = [](const std::string& params, const std::string& line) {
    auto module = ParseConv(params, line);
    EXPECT_NE(module, nullptr);
    auto plan = PlanConvolution(*module->entry()->root());
    EXPECT_TRUE(plan.ok()) << plan.status().message();
    return *plan;
  };
  const ConvPlan nhwc = plan_of("  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
                                "f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  EXPECT_EQ(PreferredFilterLayout(nhwc), FilterLayout::kKrsc);
  const ConvPlan nchw = plan_of("  x = f32[2,3,7,6] parameter(0)\n  w = f32[5,3,2,2] parameter(1)",
                                "f32[2,5,6,5] convolution(x, w), window={size=2x2}, dim_labels=bf01_oi01->bf01");
  EXPECT_EQ(PreferredFilterLayout(nchw), FilterLayout::kKcrs) << "OIHW is packed KCRS already";
  const ConvPlan ohwi = plan_of("  x = f32[2,3,7,6] parameter(0)\n  w = f32[5,2,2,3] parameter(1)",
                                "f32[2,5,6,5] convolution(x, w), window={size=2x2}, dim_labels=bf01_o01i->bf01");
  EXPECT_EQ(PreferredFilterLayout(ohwi), FilterLayout::kKrsc) << "OHWI is packed KRSC already";
  EXPECT_EQ(PackedFilter(nhwc.kernel, FilterLayout::kKrsc).strides, (std::array<int64_t, 4>{27, 1, 9, 3}));
  EXPECT_EQ(PackedFilter(nhwc.kernel, FilterLayout::kKcrs).strides, (std::array<int64_t, 4>{27, 9, 3, 1}));
  // Pack the kernel as cudnnTransformTensor would, then run the plan on the packed copy.
  const std::vector<float> x = [] {
    std::vector<float> v(2 * 6 * 5 * 3);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i)));
    return v;
  }();
  std::vector<float> w(3 * 3 * 3 * 4);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(std::cos(0.7 * static_cast<double>(i)));
  std::vector<float> want(2 * 6 * 5 * 4), got(want.size());
  ASSERT_TRUE(RunConvPlanOnHost(nhwc, x.data(), w.data(), want.data()).ok());
  for (FilterLayout layout : {FilterLayout::kKcrs, FilterLayout::kKrsc}) {
    const ConvTensorView packed_view = PackedFilter(nhwc.kernel, layout);
    std::vector<float> packed(w.size(), 0.f);
    const ConvTensorView& v = nhwc.kernel;
    for (int64_t k = 0; k < v.dims[0]; ++k)
      for (int64_t c = 0; c < v.dims[1]; ++c)
        for (int64_t r = 0; r < v.dims[2]; ++r)
          for (int64_t t = 0; t < v.dims[3]; ++t) {
            const int64_t from = k * v.strides[0] + c * v.strides[1] + r * v.strides[2] + t * v.strides[3];
            const int64_t to = k * packed_view.strides[0] + c * packed_view.strides[1] + r * packed_view.strides[2] +
                               t * packed_view.strides[3];
            packed[static_cast<size_t>(to)] = w[static_cast<size_t>(from)];
          }
    ConvPlan on_packed = nhwc;
    on_packed.kernel = packed_view;
    ASSERT_TRUE(RunConvPlanOnHost(on_packed, x.data(), packed.data(), got.data()).ok());
    EXPECT_EQ(got, want) << FilterLayoutName(layout);
  }
}

// The root of the module has no plan, and the status says `why`.
void ExpectRefused(const std::string& params, const std::string& line, const std::string& why) {
  SCOPED_TRACE(line);
  auto module = ParseConv(params, line);
  ASSERT_NE(module, nullptr);
  auto plan = PlanConvolution(*module->entry()->root());
  ASSERT_FALSE(plan.ok()) << plan->ToString();
  EXPECT_NE(plan.status().message().find(why), std::string::npos) << plan.status().message();
}

TEST(ConvPlanTest, WhatCudnnsForwardCallCannotExpressIsRefused) {
  const auto refused = ExpectRefused;
  refused("  x = f32[2,4,4,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
          "f32[2,9,9,4] convolution(x, w), window={size=3x3 pad=2_2x2_2 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f",
          "lhs (base) dilation");
  refused("  x = f32[2,8,8,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
          "f32[2,4,4,4] convolution(x, w), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f",
          "asymmetric padding");
  refused("  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
          "f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f",
          "window reversal");
  refused("  x = s32[2,6,5,3] parameter(0)\n  w = s32[3,3,3,4] parameter(1)",
          "s32[2,4,3,4] convolution(x, w), window={size=3x3}, dim_labels=b01f_01io->b01f", "element types");
  refused("  x = f32[2,4,4,4,3] parameter(0)\n  w = f32[2,2,2,3,4] parameter(1)",
          "f32[2,3,3,3,4] convolution(x, w), window={size=2x2x2}, dim_labels=b012f_012io->b012f", "3 spatial");
}

// XLA's __cudnn$convBiasActivationForward calls: a forward plan with cuDNN's fused
// epilogue, run on the host as cudnnConvolutionBiasActivationForward defines it
// (act(alpha1 * conv + alpha2 * z + bias), the bias along y's feature dimension) against
// the interpreter's evaluation of the call by its meaning.
ConvPlan ExpectFusedPlanComputesTheCall(const std::string& params, const std::string& conv_line) {
  SCOPED_TRACE(conv_line);
  auto module = ParseConv(params, conv_line);
  EXPECT_NE(module, nullptr);
  if (module == nullptr) return {};
  const Instruction* call = module->entry()->root();
  auto plan = PlanConvolution(*call);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return {};
  EXPECT_TRUE(plan->bias_activation.has_value()) << plan->ToString();
  if (!plan->bias_activation) return *plan;
  EXPECT_EQ(plan->call, ConvCall::kForward);
  std::vector<Literal> args;
  for (int64_t i = 0; i < call->operand_count(); ++i) args.push_back(Filled(call->operand(i)->shape(), 1 + static_cast<int>(i)));
  auto want = interpreter::Interpreter().Run(*module, args);
  EXPECT_TRUE(want.ok()) << want.status().message();
  if (!want.ok()) return *plan;
  const Literal value = want->shape().IsTuple() ? std::move(want->tuple_elements()[0]) : std::move(*want);
  Literal got(value.shape());
  const void* side = args.size() > 3 ? args[3].untyped_data() : nullptr;
  EXPECT_TRUE(RunConvBiasActivationPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(),
                                              args[2].untyped_data(), side, got.untyped_data())
                  .ok());
  int negative = 0;
  const double relative = Relative(value.shape().element_type());
  for (int64_t i = 0; i < got.element_count(); ++i) {
    negative += value.GetDouble(i) < 0;
    if (std::fabs(got.GetDouble(i) - value.GetDouble(i)) > relative * (1 + std::fabs(value.GetDouble(i)))) {
      ADD_FAILURE() << "element " << i << ": " << got.GetDouble(i) << " against " << value.GetDouble(i) << " of "
                    << plan->ToString();
      break;
    }
  }
  // Relu leaves no negative value; identity leaves some (the inputs are sines).
  if (plan->bias_activation->activation == ConvFusedActivation::kRelu) {
    EXPECT_EQ(negative, 0);
  } else {
    EXPECT_GT(negative, 0);
  }
  // The plain call refuses a fused plan instead of dropping its epilogue.
  EXPECT_FALSE(RunConvPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), got.untyped_data()).ok());
  return *plan;
}

std::string FusedConfig(const std::string& activation, double scale, double side_scale) {
  char buf[200];
  std::snprintf(buf, sizeof(buf),
                R"(, backend_config={"cudnn_conv_backend_config":{"activation_mode":"%s","conv_result_scale":%g,"side_input_scale":%g,"leakyrelu_alpha":0}})",
                activation.c_str(), scale, side_scale);
  return buf;
}

TEST(ConvPlanTest, FusedCallsPlanAsCudnnsBiasActivationForward) {
  const std::string nhwc = "  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n  b = f32[4] parameter(2)";
  const std::string call =
      "(f32[2,6,5,4], u8[0]) custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
  // Bias only (XLA's kNone: cuDNN's identity), then bias and relu.
  ConvPlan plan = ExpectFusedPlanComputesTheCall(nhwc, call + FusedConfig("kNone", 1, 0));
  EXPECT_EQ(plan.bias_activation->activation, ConvFusedActivation::kIdentity);
  EXPECT_FALSE(plan.bias_activation->side_input);
  EXPECT_EQ(plan.bias_activation->bias.dims, (std::array<int64_t, 4>{1, 4, 1, 1}));
  EXPECT_EQ(plan.flops, 2 * 2 * 6 * 5 * 4 * 3 * 3 * 3 + 2 * 6 * 5 * 4) << "the convolution and the bias add";
  EXPECT_NE(plan.ToString().find("cudnnConvolutionBiasActivationForward (conv+bias)"), std::string::npos)
      << plan.ToString();
  plan = ExpectFusedPlanComputesTheCall(nhwc, call + FusedConfig("kRelu", 1, 0));
  EXPECT_EQ(plan.bias_activation->activation, ConvFusedActivation::kRelu);
  // A side input z with its scale, and a result scale: y = relu(0.5 conv + 0.75 z + b).
  const std::string with_side = nhwc + "\n  z = f32[2,6,5,4] parameter(3)";
  const std::string side_call =
      "(f32[2,6,5,4], u8[0]) custom-call(x, w, b, z), custom_call_target=\"__cudnn$convBiasActivationForward\", "
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
  plan = ExpectFusedPlanComputesTheCall(with_side, side_call + FusedConfig("kRelu", 0.5, 0.75));
  EXPECT_TRUE(plan.bias_activation->side_input);
  EXPECT_EQ(plan.bias_activation->alpha1, 0.5);
  EXPECT_EQ(plan.bias_activation->alpha2, 0.75);
  plan = ExpectFusedPlanComputesTheCall(with_side, side_call + FusedConfig("kNone", 2, -1));
  EXPECT_EQ(plan.bias_activation->activation, ConvFusedActivation::kIdentity);
  // NCHW: the bias runs along dimension 1; strided, as XLA's calls come.
  ExpectFusedPlanComputesTheCall(
      "  x = f32[2,3,9,8] parameter(0)\n  w = f32[5,3,3,3] parameter(1)\n  b = f32[5] parameter(2)",
      "f32[2,5,4,3] custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
      "window={size=3x3 stride=2x2}, dim_labels=bf01_oi01->bf01" + FusedConfig("kRelu", 1, 0));
}

// f16 and bf16 plans on the host (the GPU emulator runs them, as the fuzzer's random
// modules bring them): elements read as f32, each result rounded once.
TEST(ConvPlanTest, SixteenBitPlansComputeTheConvolution) {
  ExpectPlanComputesTheConvolution("  x = bf16[2,6,5,3] parameter(0)\n  w = bf16[3,3,3,4] parameter(1)",
                                   "bf16[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  ExpectPlanComputesTheConvolution("  x = f16[2,6,5,3] parameter(0)\n  dy = f16[2,6,5,4] parameter(1)",
                                   "f16[3,3,3,4] convolution(x, dy), window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf");
  ExpectPlanComputesTheConvolution("  x = bf16[2,6,5,4] parameter(0)\n  w = bf16[3,3,3,4] parameter(1)",
                                   "bf16[2,6,5,3] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f");
  ExpectFusedPlanComputesTheCall(
      "  x = f16[2,6,5,3] parameter(0)\n  w = f16[3,3,3,4] parameter(1)\n  b = f16[4] parameter(2)",
      "(f16[2,6,5,4], u8[0]) custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
      "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + FusedConfig("kRelu", 1, 0));
}

TEST(ConvPlanTest, WhatCudnnsFusedCallCannotComputeIsRefused) {
  const auto refused = ExpectRefused;
  const std::string params = "  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n  b = f32[4] parameter(2)";
  const std::string call = "f32[2,6,5,4] custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
                           "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f";
  for (const char* mode : {"kRelu6", "kElu", "kLeakyRelu", "kSigmoid", "kTanh"}) {
    refused(params, call + FusedConfig(mode, 1, 0), std::string("activation ") + mode);
  }
  refused("  x = bf16[2,6,5,3] parameter(0)\n  w = bf16[3,3,3,4] parameter(1)\n  b = bf16[4] parameter(2)",
          "bf16[2,6,5,4] custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
          "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + FusedConfig("kRelu", 1, 0),
          "element type bf16");
  refused("  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n  b = f32[6] parameter(2)",
          "f32[2,6,5,4] custom-call(x, w, b), custom_call_target=\"__cudnn$convBiasActivationForward\", "
          "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + FusedConfig("kRelu", 1, 0),
          "along the output features");
  refused(params + "\n  z = f32[2,6,5,4]{2,3,1,0} parameter(3)",
          "f32[2,6,5,4]{3,2,1,0} custom-call(x, w, b, z), custom_call_target=\"__cudnn$convBiasActivationForward\", "
          "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f" + FusedConfig("kRelu", 1, 1),
          "side input's layout");
  refused(params, call.substr(0, call.find("window=")) + "window={size=3x3 pad=0_1x1_1}, dim_labels=b01f_01io->b01f" +
                      FusedConfig("kRelu", 1, 0),
          "asymmetric padding");
}

}  // namespace
}  // namespace fusebox
