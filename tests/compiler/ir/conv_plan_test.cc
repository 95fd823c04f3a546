// Convolutions as cuDNN forward cross-correlations: each plan is run on the host as cuDNN
// defines the operation (RunConvPlanOnHost: strided NCHW views of the row-major buffers,
// padding, stride, dilation, groups) and held against the interpreter's convolution, for
// the dim_labels orders jax writes (forward NHWC/HWIO, the input gradient's swapped kernel,
// the weight gradient with batch and feature swapped), 1-D and grouped convolutions. What
// cuDNN's forward call cannot express is refused with the reason.
#include "compiler/ir/conv_plan.h"

#include <gtest/gtest.h>

#include <cmath>
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

std::unique_ptr<Module> ParseConv(const std::string& params, const std::string& conv_line) {
  const std::string text = "HloModule m\n\nENTRY e {\n" + params + "\n  ROOT c = " + conv_line + "\n}\n";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  return parsed.ok() ? std::move(*parsed) : nullptr;
}

void ExpectPlanComputesTheConvolution(const std::string& params, const std::string& conv_line) {
  SCOPED_TRACE(conv_line);
  auto module = ParseConv(params, conv_line);
  ASSERT_NE(module, nullptr);
  const Instruction* conv = module->entry()->root();
  auto plan = PlanConvolution(*conv);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<Literal> args = {Filled(conv->operand(0)->shape(), 1), Filled(conv->operand(1)->shape(), 2)};
  auto want = interpreter::Interpreter().Run(*module, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  Literal got(conv->shape());
  ASSERT_TRUE(RunConvPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), got.untyped_data()).ok());
  for (int64_t i = 0; i < got.element_count(); ++i) {
    ASSERT_NEAR(got.GetDouble(i), want->GetDouble(i), 1e-4 * (1 + std::fabs(want->GetDouble(i))))
        << "element " << i << " of " << plan->ToString();
  }
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

// cudnnConvolutionBackwardFilter as cuDNN defines it, on the views a backward-filter plan
// hands it (x: the input with N and C swapped, dy: the kernel view with N and K swapped,
// dw: the output view with C and K swapped; stride and dilation exchanged):
// dw[k,c,r,s] = sum over n,p,q of x[n,c,p*stride+r*dilation-pad, ...] * dy[n,k,p,q].
std::vector<float> BackwardFilterOnHost(const ConvPlan& plan, const float* x, const float* dy, int64_t out_elements) {
  auto swap = [](ConvTensorView v) {
    std::swap(v.dims[0], v.dims[1]);
    std::swap(v.strides[0], v.strides[1]);
    return v;
  };
  const ConvTensorView xv = swap(plan.input), dyv = swap(plan.kernel), dwv = swap(plan.output);
  const auto& stride = plan.dilation;
  const auto& dilation = plan.stride;
  std::vector<float> dw(static_cast<size_t>(out_elements), 0.f);
  for (int64_t k = 0; k < dwv.dims[0]; ++k)
    for (int64_t c = 0; c < dwv.dims[1]; ++c)
      for (int64_t r = 0; r < dwv.dims[2]; ++r)
        for (int64_t t = 0; t < dwv.dims[3]; ++t) {
          double sum = 0;
          for (int64_t n = 0; n < xv.dims[0]; ++n)
            for (int64_t p = 0; p < dyv.dims[2]; ++p)
              for (int64_t q = 0; q < dyv.dims[3]; ++q) {
                const int64_t h = p * stride[0] - plan.padding[0] + r * dilation[0];
                const int64_t w = q * stride[1] - plan.padding[1] + t * dilation[1];
                if (h < 0 || h >= xv.dims[2] || w < 0 || w >= xv.dims[3]) continue;
                sum += static_cast<double>(x[n * xv.strides[0] + c * xv.strides[1] + h * xv.strides[2] + w * xv.strides[3]]) *
                       dy[n * dyv.strides[0] + k * dyv.strides[1] + p * dyv.strides[2] + q * dyv.strides[3]];
              }
          dw[static_cast<size_t>(k * dwv.strides[0] + c * dwv.strides[1] + r * dwv.strides[2] + t * dwv.strides[3])] =
              static_cast<float>(sum);
        }
  return dw;
}

// Weight gradients run as cudnnConvolutionBackwardFilter: the plan says so, and the
// backward-filter reading of its views computes the interpreter's result (stride 1 and 2,
// a dilated forward kernel); forward convolutions stay forward.
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
    SCOPED_TRACE(c.line);
    auto module = ParseConv(c.params, c.line);
    ASSERT_NE(module, nullptr);
    const Instruction* conv = module->entry()->root();
    auto plan = PlanConvolution(*conv);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(plan->backward_filter) << plan->ToString();
    std::vector<Literal> args = {Filled(conv->operand(0)->shape(), 1), Filled(conv->operand(1)->shape(), 2)};
    auto want = interpreter::Interpreter().Run(*module, args);
    ASSERT_TRUE(want.ok()) << want.status().message();
    std::vector<float> got = BackwardFilterOnHost(*plan, reinterpret_cast<const float*>(args[0].untyped_data()),
                                                  reinterpret_cast<const float*>(args[1].untyped_data()), want->element_count());
    for (int64_t i = 0; i < want->element_count(); ++i) {
      ASSERT_NEAR(got[static_cast<size_t>(i)], want->GetDouble(i), 1e-4 * (1 + std::fabs(want->GetDouble(i))))
          << "element " << i << " of " << plan->ToString();
    }
  }
  auto forward = ParseConv("  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)",
                           "f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  ASSERT_NE(forward, nullptr);
  auto plan = PlanConvolution(*forward->entry()->root());
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->backward_filter);
}

TEST(ConvPlanTest, WhatCudnnsForwardCallCannotExpressIsRefused) {
  auto refused = [](const std::string& params, const std::string& line, const std::string& why) {
    SCOPED_TRACE(line);
    auto module = ParseConv(params, line);
    ASSERT_NE(module, nullptr);
    auto plan = PlanConvolution(*module->entry()->root());
    ASSERT_FALSE(plan.ok()) << plan->ToString();
    EXPECT_NE(plan.status().message().find(why), std::string::npos) << plan.status().message();
  };
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

}  // namespace
}  // namespace fusebox
