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
