// XLA's cuBLAS and cuDNN custom calls as the HLO they stand for: each call runs in the
// interpreter (through BuildLibraryCallComputation) and is compared with loops written
// here from the definitions (a matrix product; a convolution and its two gradients), on
// strides, paddings, dilations and layouts where the lowering has to get an index right.
// Calls the description cannot express are errors naming the instruction.
#include "compiler/ir/library_calls.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

// Deterministic, varied values: no two neighbours alike, signs mixed.
Literal Filled(const Shape& shape, int salt) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetDouble(i, std::sin(0.7 * static_cast<double>(i) + salt) * 2.0);
  }
  return literal;
}

struct Ran {
  Literal result;  // the value (tuple element 0 when the call returns a tuple)
  std::vector<Literal> args;
};

Ran RunModule(const std::string& text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return {};
  Ran ran;
  int salt = 1;
  for (const Instruction* p : (*module)->entry()->parameters()) ran.args.push_back(Filled(p->shape(), salt++));
  interpreter::Interpreter interpreter;
  auto out = interpreter.Run(**module, ran.args);
  EXPECT_TRUE(out.ok()) << out.status().message();
  if (!out.ok()) return ran;
  ran.result = out->shape().IsTuple() ? out->tuple_elements()[0] : *out;
  return ran;
}

void ExpectNear(const Literal& got, const std::vector<double>& want, double tolerance = 1e-4) {
  ASSERT_EQ(got.element_count(), static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(got.GetDouble(static_cast<int64_t>(i)), want[i], tolerance * (1 + std::fabs(want[i]))) << "element " << i;
  }
}

TEST(LibraryCallsTest, GemmAsWrittenByXlaWithWorkspace) {
  // lhs [3,4] contracted on 1, rhs [4,5] on 0: the plain product, as XLA's corpus writes it.
  Ran r = RunModule(R"(HloModule m
ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT g = (f32[3,5]{1,0}, s8[64]{0}) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config="{ \"gemm_backend_config\": {\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},\"alpha_imag\":0,\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"]},\"epilogue\":\"DEFAULT\"}}"
})");
  std::vector<double> want(15, 0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 4; ++k) want[i * 5 + j] += r.args[0].GetDouble(i * 4 + k) * r.args[1].GetDouble(k * 5 + j);
  ExpectNear(r.result, want);
}

TEST(LibraryCallsTest, GemmTransposedBatchedWithAlphaBetaBiasRelu) {
  // Batch 2; lhs [2,4,3] contracted on 1 (a transposed lhs), rhs [2,5,4] on 2 (transposed
  // rhs); alpha 0.5, beta 2 with c, a bias along the last dimension, then relu.
  Ran r = RunModule(R"(HloModule m
ENTRY e {
  a = f32[2,4,3] parameter(0)
  b = f32[2,5,4] parameter(1)
  c = f32[2,3,5] parameter(2)
  bias = f32[5] parameter(3)
  ROOT g = (f32[2,3,5], s8[0]) custom-call(a, b, c, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":0.5,"beta":2,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["2"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]},"alpha_imag":0,"epilogue":"BIAS_RELU"}}
})");
  std::vector<double> want(30, 0);
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) sum += r.args[0].GetDouble(n * 12 + k * 3 + i) * r.args[1].GetDouble(n * 20 + j * 4 + k);
        const int o = n * 15 + i * 5 + j;
        want[o] = std::max(0.0, 0.5 * sum + 2 * r.args[2].GetDouble(o) + r.args[3].GetDouble(j));
      }
  ExpectNear(r.result, want);
  int zeros = 0;
  for (double v : want) zeros += v == 0;
  EXPECT_GT(zeros, 3) << "relu never clipped: the test would not notice a missing epilogue";
}

TEST(LibraryCallsTest, GemmGeluIsTheTanhForm) {
  Ran r = RunModule(R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT g = f32[2,2] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":[1],"rhs_contracting_dimensions":[0]},"epilogue":"GELU"}}
})");
  std::vector<double> want(4, 0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double x = 0;
      for (int k = 0; k < 3; ++k) x += r.args[0].GetDouble(i * 3 + k) * r.args[1].GetDouble(k * 2 + j);
      want[i * 2 + j] = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    }
  ExpectNear(r.result, want);
}

// XLA's BIAS_GELU_AUX call (a training step's MLP): (value, aux, workspace), the value
// GELU(a.b + bias) and the aux the GELU's input, which the backward pass reads.
TEST(LibraryCallsTest, GemmGeluAuxAlsoReturnsTheGelusInput) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  bias = f32[4] parameter(2)
  ROOT g = (f32[2,4]{1,0}, f32[2,4]{1,0}, s8[32]{0}) custom-call(a, b, bias), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"epilogue":"BIAS_GELU_AUX"}}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto call = ParseLibraryCall(*(*module)->entry()->root());
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(call->epilogue, GemmEpilogue::kBiasGeluAux);
  EXPECT_EQ(call->bias_operand, 2);
  std::vector<Literal> args;
  int salt = 1;
  for (const Instruction* p : (*module)->entry()->parameters()) args.push_back(Filled(p->shape(), salt++));
  auto out = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_TRUE(out->shape().IsTuple());
  ASSERT_EQ(out->tuple_elements().size(), 3u);
  std::vector<double> value(8), aux(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      double x = args[2].GetDouble(j);
      for (int k = 0; k < 3; ++k) x += args[0].GetDouble(i * 3 + k) * args[1].GetDouble(k * 4 + j);
      aux[i * 4 + j] = x;
      value[i * 4 + j] = 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    }
  ExpectNear(out->tuple_elements()[0], value);
  ExpectNear(out->tuple_elements()[1], aux);
}

// A 2-D convolution in NHWC / HWIO with stride, padding and kernel dilation, and loops
// from the definition: out[b,oy,ox,o] = sum x[b, oy*s - pl + ky*d, ...] * w[ky,kx,i,o].
struct Conv2d {
  int batch = 2, in_h = 7, in_w = 6, cin = 3, cout = 2, k_h = 3, k_w = 2;
  int stride = 2, dilation = 1, pad_lo_h = 1, pad_hi_h = 0, pad_lo_w = 0, pad_hi_w = 1;
  int OutH() const { return (in_h + pad_lo_h + pad_hi_h - (k_h - 1) * dilation - 1) / stride + 1; }
  int OutW() const { return (in_w + pad_lo_w + pad_hi_w - (k_w - 1) * dilation - 1) / stride + 1; }
  std::string Window() const {
    return "window={size=" + std::to_string(k_h) + "x" + std::to_string(k_w) + " stride=" + std::to_string(stride) + "x" +
           std::to_string(stride) + " pad=" + std::to_string(pad_lo_h) + "_" + std::to_string(pad_hi_h) + "x" +
           std::to_string(pad_lo_w) + "_" + std::to_string(pad_hi_w) + " rhs_dilate=" + std::to_string(dilation) + "x" +
           std::to_string(dilation) + "}";
  }
  std::string X() const { return "f32[" + Dims({batch, in_h, in_w, cin}) + "]"; }
  std::string W() const { return "f32[" + Dims({k_h, k_w, cin, cout}) + "]"; }
  std::string Y() const { return "f32[" + Dims({batch, OutH(), OutW(), cout}) + "]"; }
  static std::string Dims(std::vector<int> d) {
    std::string s;
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s;
  }
  // Calls f(x index, w index, y index) for every product term of the convolution.
  template <typename F>
  void ForEachTerm(F f) const {
    for (int b = 0; b < batch; ++b)
      for (int oy = 0; oy < OutH(); ++oy)
        for (int ox = 0; ox < OutW(); ++ox)
          for (int ky = 0; ky < k_h; ++ky)
            for (int kx = 0; kx < k_w; ++kx) {
              const int iy = oy * stride - pad_lo_h + ky * dilation, ix = ox * stride - pad_lo_w + kx * dilation;
              if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) continue;
              for (int i = 0; i < cin; ++i)
                for (int o = 0; o < cout; ++o)
                  f(((b * in_h + iy) * in_w + ix) * cin + i, ((ky * k_w + kx) * cin + i) * cout + o,
                    ((b * OutH() + oy) * OutW() + ox) * cout + o);
            }
  }
};

const char* kConvConfig =
    R"(backend_config={"operation_queue_id":"0","cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}})";

TEST(LibraryCallsTest, ConvForwardAndBiasActivationForward) {
  Conv2d c;
  Ran r = RunModule("HloModule m\nENTRY e {\n  x = " + c.X() + " parameter(0)\n  w = " + c.W() +
              " parameter(1)\n  bias = f32[2] parameter(2)\n  side = " + c.Y() + " parameter(3)\n  ROOT f = (" + c.Y() +
              ", u8[0]) custom-call(x, w, bias, side), " + c.Window() +
              R"(, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":0.5,"side_input_scale":3,"leakyrelu_alpha":0}})"
              "\n}");
  std::vector<double> want(static_cast<size_t>(c.batch * c.OutH() * c.OutW() * c.cout), 0);
  c.ForEachTerm([&](int xi, int wi, int yi) { want[yi] += r.args[0].GetDouble(xi) * r.args[1].GetDouble(wi); });
  for (size_t yi = 0; yi < want.size(); ++yi) {
    want[yi] = std::max(0.0, 0.5 * want[yi] + 3 * r.args[3].GetDouble(static_cast<int64_t>(yi)) +
                                 r.args[2].GetDouble(static_cast<int64_t>(yi % 2)));
  }
  ExpectNear(r.result, want);
}

void CheckBackwardInput(const Conv2d& c) {
  Ran r = RunModule("HloModule m\nENTRY e {\n  dy = " + c.Y() + " parameter(0)\n  w = " + c.W() + " parameter(1)\n  ROOT dx = (" +
              c.X() + ", u8[16]) custom-call(dy, w), " + c.Window() +
              ", dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convBackwardInput\", " + kConvConfig + "\n}");
  std::vector<double> want(static_cast<size_t>(c.batch * c.in_h * c.in_w * c.cin), 0);
  c.ForEachTerm([&](int xi, int wi, int yi) { want[xi] += r.args[0].GetDouble(yi) * r.args[1].GetDouble(wi); });
  ExpectNear(r.result, want);
}

void CheckBackwardFilter(const Conv2d& c) {
  Ran r = RunModule("HloModule m\nENTRY e {\n  x = " + c.X() + " parameter(0)\n  dy = " + c.Y() + " parameter(1)\n  ROOT dw = (" +
              c.W() + ", u8[16]) custom-call(x, dy), " + c.Window() +
              ", dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convBackwardFilter\", " + kConvConfig + "\n}");
  std::vector<double> want(static_cast<size_t>(c.k_h * c.k_w * c.cin * c.cout), 0);
  c.ForEachTerm([&](int xi, int wi, int yi) { want[wi] += r.args[0].GetDouble(xi) * r.args[1].GetDouble(yi); });
  ExpectNear(r.result, want);
}

TEST(LibraryCallsTest, ConvBackwardInputMatchesTheGradientLoops) {
  Conv2d strided;  // stride 2, padding 1_0 x 0_1: the last input row is never read
  SCOPED_TRACE("strided");
  CheckBackwardInput(strided);
  Conv2d dilated;
  dilated.stride = 1;
  dilated.dilation = 2;
  dilated.pad_lo_h = 2;
  dilated.pad_hi_h = 2;
  SCOPED_TRACE("dilated");
  CheckBackwardInput(dilated);
  Conv2d padded;  // padding wider than the kernel: the lowering pads negatively, then slices
  padded.k_h = 2;
  padded.pad_lo_h = 3;
  padded.pad_hi_h = 3;
  padded.stride = 1;
  SCOPED_TRACE("wide padding");
  CheckBackwardInput(padded);
}

TEST(LibraryCallsTest, ConvBackwardFilterMatchesTheGradientLoops) {
  Conv2d strided;
  SCOPED_TRACE("strided");
  CheckBackwardFilter(strided);
  Conv2d dropped;  // stride 3 over 7 rows with a 2-row kernel: the last row is dropped
  dropped.stride = 3;
  dropped.k_h = 2;
  dropped.pad_lo_h = 0;
  SCOPED_TRACE("dropped rows");
  CheckBackwardFilter(dropped);
  Conv2d dilated;
  dilated.stride = 1;
  dilated.dilation = 2;
  SCOPED_TRACE("dilated");
  CheckBackwardFilter(dilated);
}

Status ErrorOf(const std::string& text) {
  auto module = ParseModule(text);
  if (!module.ok()) return module.status();
  const Instruction* root = (*module)->entry()->root();
  Module scratch("scratch");
  return BuildLibraryCallComputation(*root, scratch).status();
}

TEST(LibraryCallsTest, WhatIsNotModelledIsAnErrorNamingTheCall) {
  const std::string head = "HloModule m\nENTRY e {\n  a = f32[2,2] parameter(0)\n  b = f32[2,2] parameter(1)\n";
  // An aux output that is not the value's shape, and an extra output no epilogue writes.
  Status aux = ErrorOf(head + R"(  ROOT g = (f32[2,2], f32[2,3], s8[0]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"GELU_AUX"}}
})");
  ASSERT_FALSE(aux.ok());
  EXPECT_NE(aux.message().find("custom-call g"), std::string::npos) << aux.message();
  EXPECT_NE(aux.message().find("result element 1"), std::string::npos) << aux.message();
  Status amax = ErrorOf(head + R"(  ROOT g = (f32[2,2], f32[], s8[0]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"GELU"}}
})");
  ASSERT_FALSE(amax.ok());
  EXPECT_NE(amax.message().find("not a workspace"), std::string::npos) << amax.message();
  Status no_config = ErrorOf(head + "  ROOT g = f32[2,2] custom-call(a, b), custom_call_target=\"__cublas$gemm\"\n}");
  ASSERT_FALSE(no_config.ok());
  EXPECT_NE(no_config.message().find("backend_config"), std::string::npos) << no_config.message();
  Status complex_alpha = ErrorOf(head + R"(  ROOT g = f32[2,2] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_imag":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]}}}
})");
  EXPECT_FALSE(complex_alpha.ok());
  Status missing_c = ErrorOf(head + R"(  ROOT g = f32[2,2] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]}}}
})");
  ASSERT_FALSE(missing_c.ok());
  EXPECT_NE(missing_c.message().find("beta"), std::string::npos) << missing_c.message();
  Status column_major_bias = ErrorOf(head + R"(  c = f32[2] parameter(2)
  ROOT g = f32[2,2]{0,1} custom-call(a, b, c), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"BIAS"}}
})");
  ASSERT_FALSE(column_major_bias.ok());
  EXPECT_NE(column_major_bias.message().find("row-major"), std::string::npos) << column_major_bias.message();
  Status grouped = ErrorOf("HloModule m\nENTRY e {\n  dy = f32[1,4,4,4] parameter(0)\n  w = f32[3,3,1,4] parameter(1)\n"
                           "  ROOT dx = (f32[1,4,4,4], u8[0]) custom-call(dy, w), window={size=3x3 pad=1_1x1_1}, "
                           "dim_labels=b01f_01io->b01f, feature_group_count=4, custom_call_target=\"__cudnn$convBackwardInput\"\n}");
  ASSERT_FALSE(grouped.ok());
  EXPECT_NE(grouped.message().find("grouped"), std::string::npos) << grouped.message();
  // Fields of the wrong JSON type are errors, not exceptions (a number for the epilogue's
  // name used to throw out of nlohmann::json and end the process).
  Status numeric_epilogue = ErrorOf(head + R"(  ROOT g = f32[2,2] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":3}}
})");
  ASSERT_FALSE(numeric_epilogue.ok());
  EXPECT_NE(numeric_epilogue.message().find("epilogue is not a name"), std::string::npos) << numeric_epilogue.message();
  Status numeric_activation = ErrorOf("HloModule m\nENTRY e {\n  x = f32[1,4,4,1] parameter(0)\n  w = f32[3,3,1,1] parameter(1)\n"
                                      "  ROOT y = (f32[1,4,4,1], u8[0]) custom-call(x, w), window={size=3x3 pad=1_1x1_1}, "
                                      "dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convForward\", "
                                      "backend_config={\"cudnn_conv_backend_config\":{\"activation_mode\":[1]}}\n}");
  ASSERT_FALSE(numeric_activation.ok());
  EXPECT_NE(numeric_activation.message().find("activation_mode is not a name"), std::string::npos)
      << numeric_activation.message();
  // The interpreter says the same when it meets one.
  auto module = ParseModule(head + R"(  ROOT g = f32[2,2] custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"BIAS_GELU_AUX"}}
})");
  ASSERT_TRUE(module.ok());
  interpreter::Interpreter interpreter;
  auto ran = interpreter.Run(**module, {Literal(Shape(PrimitiveType::kF32, {2, 2})), Literal(Shape(PrimitiveType::kF32, {2, 2}))});
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.status().message().find("BIAS_GELU_AUX"), std::string::npos) << ran.status().message();
}

}  // namespace
}  // namespace fusebox
