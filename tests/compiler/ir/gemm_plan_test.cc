// Gemm library calls as cuBLAS strided batched GEMMs: each plan is run on the host the
// way cuBLAS defines its column-major GEMM (RunGemmPlanOnHost) on the row-major buffers
// the GPU runtime would hand it, and held against the interpreter's dot, for every
// operand order, batch dimensions, merged free dimensions, vectors, alpha and beta. A
// wrong transpose, leading dimension or stride shows as wrong numbers here without a
// GPU. What does not map is refused with the reason, never planned approximately.
#include "compiler/ir/gemm_plan.h"

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
    literal.SetDouble(i, std::sin(0.37 * static_cast<double>(i) + salt) * 1.5);
  }
  return literal;
}

struct Dot {
  std::unique_ptr<Module> module;
  const Instruction* dot = nullptr;
};

Dot ParseDot(const std::string& params, const std::string& dot_line) {
  const std::string text = "HloModule m\n\nENTRY e {\n" + params + "\n  ROOT d = " + dot_line + "\n}\n";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message() << "\n" << text;
  Dot out;
  if (!parsed.ok()) return out;
  out.module = std::move(*parsed);
  out.dot = out.module->entry()->root();
  return out;
}

LibraryCall CallOf(const Instruction& dot, double alpha = 1, double beta = 0) {
  LibraryCall call;
  call.kind = LibraryCallKind::kGemm;
  call.result = dot.shape();
  call.dot = *dot.attrs().dot_dimension_numbers;
  call.precision = dot.attrs().operand_precision;
  call.alpha = alpha;
  call.beta = beta;
  return call;
}

// The plan run on the host against alpha * dot + beta * c from the interpreter.
void ExpectPlanComputesTheDot(const std::string& params, const std::string& dot_line, double alpha = 1,
                              double beta = 0) {
  SCOPED_TRACE(dot_line);
  Dot d = ParseDot(params, dot_line);
  ASSERT_NE(d.dot, nullptr);
  const Shape& lhs_shape = d.dot->operand(0)->shape();
  const Shape& rhs_shape = d.dot->operand(1)->shape();
  auto plan = PlanGemm(CallOf(*d.dot, alpha, beta), lhs_shape, rhs_shape);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<Literal> args = {Filled(lhs_shape, 1), Filled(rhs_shape, 2)};
  interpreter::Interpreter interpreter;
  auto want = interpreter.Run(*d.module, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  Literal c = Filled(d.dot->shape(), 3);
  Literal got = c;  // the result buffer starts as c
  ASSERT_TRUE(RunGemmPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), got.untyped_data()).ok());
  ASSERT_EQ(got.element_count(), want->element_count());
  // f16 and bf16 results are rounded once, on both sides: a unit in their last place.
  const PrimitiveType type = d.dot->shape().element_type();
  const double relative = type == PrimitiveType::kBF16 ? 8e-3 : type == PrimitiveType::kF16 ? 1e-3 : 1e-4;
  for (int64_t i = 0; i < got.element_count(); ++i) {
    const double expected = alpha * want->GetDouble(i) + beta * c.GetDouble(i);
    ASSERT_NEAR(got.GetDouble(i), expected, relative * (1 + std::fabs(expected))) << "element " << i << " of "
                                                                                   << plan->ToString();
  }
}

TEST(GemmPlanTest, EveryOperandOrderComputesTheDot) {
  // [M,K] x [K,N]: neither operand transposed in cuBLAS's view.
  ExpectPlanComputesTheDot("  a = f32[5,7] parameter(0)\n  b = f32[7,3] parameter(1)",
                           "f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  // [K,M] x [K,N] (a weight gradient: x^T . dy).
  ExpectPlanComputesTheDot("  a = f32[7,5] parameter(0)\n  b = f32[7,3] parameter(1)",
                           "f32[5,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // [M,K] x [N,K] (an input gradient: dy . w^T).
  ExpectPlanComputesTheDot("  a = f32[5,7] parameter(0)\n  b = f32[3,7] parameter(1)",
                           "f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
  // [K,M] x [N,K].
  ExpectPlanComputesTheDot("  a = f32[7,5] parameter(0)\n  b = f32[3,7] parameter(1)",
                           "f32[5,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}");
}

// f16 and bf16 plans on the host (the GPU emulator runs them, as the fuzzer's random
// modules bring them): elements read as f32, each result rounded once.
TEST(GemmPlanTest, SixteenBitPlansComputeTheDot) {
  ExpectPlanComputesTheDot("  a = bf16[5,7] parameter(0)\n  b = bf16[3,7] parameter(1)",
                           "bf16[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
  ExpectPlanComputesTheDot("  a = f16[2,7,5] parameter(0)\n  b = f16[2,7,3] parameter(1)",
                           "f16[2,5,3] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, "
                           "rhs_contracting_dims={1}");
}

TEST(GemmPlanTest, BatchesMergedDimensionsAndVectors) {
  // Batched, as attention's scores: [B,M,K] x [B,N,K].
  ExpectPlanComputesTheDot("  a = f32[4,6,8] parameter(0)\n  b = f32[4,5,8] parameter(1)",
                           "f32[4,6,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                           "rhs_batch_dims={0}, rhs_contracting_dims={2}");
  // Two batch dimensions, rhs contracting first.
  ExpectPlanComputesTheDot("  a = f32[2,3,6,8] parameter(0)\n  b = f32[2,3,8,5] parameter(1)",
                           "f32[2,3,6,5] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                           "rhs_batch_dims={0,1}, rhs_contracting_dims={2}");
  // Two free lhs dimensions merge into M: [S,T,K] x [K,N].
  ExpectPlanComputesTheDot("  a = f32[3,4,6] parameter(0)\n  b = f32[6,5] parameter(1)",
                           "f32[3,4,5] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}");
  // Two contracting dimensions merge into K.
  ExpectPlanComputesTheDot("  a = f32[5,3,4] parameter(0)\n  b = f32[3,4,2] parameter(1)",
                           "f32[5,2] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
  // Matrix-vector and vector-vector.
  ExpectPlanComputesTheDot("  a = f32[5,7] parameter(0)\n  b = f32[7] parameter(1)",
                           "f32[5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ExpectPlanComputesTheDot("  a = f32[7] parameter(0)\n  b = f32[7] parameter(1)",
                           "f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  // f64.
  ExpectPlanComputesTheDot("  a = f64[4,6] parameter(0)\n  b = f64[5,6] parameter(1)",
                           "f64[4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
}

// Batch dimensions anywhere, read in place through strides: attention's per-head products
// on [batch, seq, heads, head_dim] buffers (jax's einsums "bqhd,bkhd->bhqk" and
// "bhqk,bkhd->bhqd", and their gradients), where the heads are cuBLAS's batch and the
// batch a loop of calls.
TEST(GemmPlanTest, BatchDimensionsAnywhereReadInPlace) {
  const std::string qk = "  a = f32[2,5,3,4] parameter(0)\n  b = f32[2,6,3,4] parameter(1)";
  const std::string scores_dims =
      "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}";
  ExpectPlanComputesTheDot(qk, "f32[2,3,5,6] dot(a, b), " + scores_dims);
  ExpectPlanComputesTheDot(qk, "f32[2,3,5,6] dot(a, b), " + scores_dims, 0.5, 2.0);
  // probs . v: the lhs batch-major, the rhs [b, k, h, d] contracting k.
  const std::string pv = "  a = f32[2,3,5,6] parameter(0)\n  b = f32[2,6,3,4] parameter(1)";
  ExpectPlanComputesTheDot(pv, "f32[2,3,5,4] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                               "rhs_batch_dims={0,2}, rhs_contracting_dims={1}");
  // The gradients (jax's): dK = dS^T . Q contracts the lhs's rows (its minor dimension is
  // free: transposed), dS = dO^T-like [b, h, d, q] . V contracts d in both.
  ExpectPlanComputesTheDot("  a = f32[2,3,5,6] parameter(0)\n  b = f32[2,5,3,4] parameter(1)",
                           "f32[2,3,6,4] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, "
                           "rhs_batch_dims={0,2}, rhs_contracting_dims={1}");
  ExpectPlanComputesTheDot("  a = f32[2,3,4,5] parameter(0)\n  b = f32[2,6,3,4] parameter(1)",
                           "f32[2,3,5,6] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={2}, "
                           "rhs_batch_dims={0,2}, rhs_contracting_dims={3}");
  // A batch dimension in the middle, alone: one call with a strided batch.
  ExpectPlanComputesTheDot("  a = f32[6,4,8] parameter(0)\n  b = f32[4,8,5] parameter(1)",
                           "f32[4,6,5] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, "
                           "rhs_batch_dims={0}, rhs_contracting_dims={1}");
  // Batch dimensions in another order in the rhs, and a batch of one among them.
  ExpectPlanComputesTheDot("  a = f32[2,3,1,5,4] parameter(0)\n  b = f32[3,2,1,4,6] parameter(1)",
                           "f32[2,3,1,5,6] dot(a, b), lhs_batch_dims={0,1,2}, lhs_contracting_dims={4}, "
                           "rhs_batch_dims={1,0,2}, rhs_contracting_dims={3}");

  // The shape of the calls for the scores: heads batched (stride head_dim), the batch a
  // loop of two calls, both operands with leading dimension heads x head_dim.
  Dot d = ParseDot(qk, "f32[2,3,5,6] dot(a, b), " + scores_dims);
  auto plan = PlanGemm(CallOf(*d.dot), d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->batch, 3);
  EXPECT_EQ(plan->a.batch_stride, 4);
  EXPECT_EQ(plan->b.batch_stride, 4);
  EXPECT_EQ(plan->c_batch_stride, 30);
  EXPECT_EQ(plan->a.ld, 12);
  EXPECT_EQ(plan->b.ld, 12);
  ASSERT_EQ(plan->loops.size(), 1u);
  EXPECT_EQ(plan->calls(), 2);
  EXPECT_EQ(plan->CallOffsets(1).a, 6 * 12);
  EXPECT_EQ(plan->CallOffsets(1).b, 5 * 12);
  EXPECT_EQ(plan->CallOffsets(1).c, 90);
  EXPECT_EQ(plan->flops, 2 * 2 * 3 * 5 * 6 * 4);
  EXPECT_NE(plan->ToString().find("x2 calls"), std::string::npos) << plan->ToString();
}

// The loops' calls start at offsets cuBLASLt must be told of (it assumes 256-byte aligned
// pointers): the scores' second call reads A 288 bytes, B 240 bytes and writes C 360 bytes
// into their buffers, so the alignments every call keeps are 32, 16 and 8 bytes.
TEST(GemmPlanTest, LoopCallsKeepTheirPointerAlignment) {
  Dot d = ParseDot("  a = f32[2,5,3,4] parameter(0)\n  b = f32[2,6,3,4] parameter(1)",
                   "f32[2,3,5,6] dot(a, b), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, "
                   "rhs_contracting_dims={3}");
  auto plan = PlanGemm(CallOf(*d.dot), d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->calls(), 2);
  GemmCallAlignment align = GemmCallPointerAlignment(*plan, 256);
  EXPECT_EQ(align.a, 32);
  EXPECT_EQ(align.b, 16);
  EXPECT_EQ(align.c, 8);
  // One call (no loops): the buffers' own alignment.
  Dot one = ParseDot("  a = f32[2,5,4] parameter(0)\n  b = f32[2,6,4] parameter(1)",
                     "f32[2,5,6] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                     "rhs_contracting_dims={2}");
  auto single = PlanGemm(CallOf(*one.dot), one.dot->operand(0)->shape(), one.dot->operand(1)->shape());
  ASSERT_TRUE(single.ok()) << single.status().message();
  ASSERT_EQ(single->calls(), 1);
  align = GemmCallPointerAlignment(*single, 256);
  EXPECT_EQ(align.a, 256);
  EXPECT_EQ(align.b, 256);
  EXPECT_EQ(align.c, 256);
}

// Plain f32 gemms run through cublasLtMatmul (their algorithm autotuned), f64 ones through
// cublasGemmStridedBatchedEx; the plan's text names the routine that runs it.
TEST(GemmPlanTest, PlainGemmsRunOnCublasLtExceptF64) {
  for (const char* type : {"f32", "f64"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    Dot d = ParseDot("  a = " + t + "[8,16] parameter(0)\n  b = " + t + "[16,4] parameter(1)",
                     t + "[8,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    auto plan = PlanGemm(CallOf(*d.dot), d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const bool lt = t == "f32";
    EXPECT_EQ(GemmPlanRunsOnCublasLt(*plan), lt);
    EXPECT_EQ(plan->ToString().rfind(lt ? "cublasLtMatmul m=4 n=8 k=16" : "cublasGemmStridedBatchedEx m=4 n=8 k=16", 0),
              0u)
        << plan->ToString();
    EXPECT_EQ(plan->ToString(false).rfind("cublasGemmStridedBatchedEx m=4", 0), 0u) << plan->ToString(false);
  }
}

TEST(GemmPlanTest, AlphaAndBetaScaleAsCublasDoes) {
  ExpectPlanComputesTheDot("  a = f32[5,7] parameter(0)\n  b = f32[7,3] parameter(1)",
                           "f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", 0.5, 2.0);
}

TEST(GemmPlanTest, TheShapeOfTheCublasCallIsTheTransposedProduct) {
  Dot d = ParseDot("  a = f32[7,5] parameter(0)\n  b = f32[3,7] parameter(1)",
                   "f32[5,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}");
  auto plan = PlanGemm(CallOf(*d.dot), d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  // C^T[3,5] = rhs^T . lhs^T: cuBLAS's m is N = 3, n is M = 5.
  EXPECT_EQ(plan->m, 3);
  EXPECT_EQ(plan->n, 5);
  EXPECT_EQ(plan->k, 7);
  EXPECT_EQ(plan->a.operand, 1);
  EXPECT_TRUE(plan->a.transpose);   // rhs [N,K]
  EXPECT_EQ(plan->a.ld, 7);
  EXPECT_TRUE(plan->b.transpose);   // lhs [K,M]
  EXPECT_EQ(plan->b.ld, 5);
  EXPECT_EQ(plan->ldc, 3);
  EXPECT_EQ(plan->flops, 2 * 3 * 5 * 7);
}

TEST(GemmPlanTest, PrecisionFollowsXlasRuleForF32) {
  Dot d = ParseDot("  a = f32[4,4] parameter(0)\n  b = f32[4,4] parameter(1)",
                   "f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  LibraryCall call = CallOf(*d.dot);
  const Shape& s = d.dot->operand(0)->shape();
  EXPECT_EQ(PlanGemm(call, s, s)->compute, GemmComputeType::kF32FastTf32);  // DEFAULT
  call.precision = {Precision::kHigh, Precision::kHigh};
  EXPECT_EQ(PlanGemm(call, s, s)->compute, GemmComputeType::kF32FastTf32);
  call.precision = {Precision::kDefault, Precision::kHighest};
  EXPECT_EQ(PlanGemm(call, s, s)->compute, GemmComputeType::kF32);
  call.precision = {};
  EXPECT_EQ(PlanGemm(call, s, s, GemmPlanOptions{.allow_tf32 = false})->compute, GemmComputeType::kF32);
  Dot h = ParseDot("  a = bf16[4,4] parameter(0)\n  b = bf16[4,4] parameter(1)",
                   "f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  auto half = PlanGemm(CallOf(*h.dot), h.dot->operand(0)->shape(), h.dot->operand(1)->shape());
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(half->compute, GemmComputeType::kF32);
  EXPECT_EQ(half->a.type, GemmDataType::kBF16);
  EXPECT_EQ(half->c_type, GemmDataType::kF32);
}

void ExpectNoPlan(const std::string& params, const std::string& dot_line, const std::string& why) {
  SCOPED_TRACE(dot_line);
  Dot d = ParseDot(params, dot_line);
  ASSERT_NE(d.dot, nullptr);
  auto plan = PlanGemm(CallOf(*d.dot), d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
  ASSERT_FALSE(plan.ok()) << plan->ToString();
  EXPECT_NE(plan.status().message().find(why), std::string::npos) << plan.status().message();
}

TEST(GemmPlanTest, WhatDoesNotMapIsRefusedWithTheReason) {
  ExpectNoPlan("  a = s32[4,4] parameter(0)\n  b = s32[4,4] parameter(1)",
               "s32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", "are not a cuBLAS GEMM");
  ExpectNoPlan("  a = f32[4,4] parameter(0)\n  b = bf16[4,4] parameter(1)",
               "f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", "are not a cuBLAS GEMM");
  // Free and contracting dimensions interleave: [M1,K,M2].
  ExpectNoPlan("  a = f32[3,6,4] parameter(0)\n  b = f32[6,5] parameter(1)",
               "f32[3,4,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
               "lhs's free dimensions do not merge");
  // Neither the free nor the contracting dimension is the minor one: [M,K,B] batched on B.
  ExpectNoPlan("  a = f32[5,3,2] parameter(0)\n  b = f32[2,3,4] parameter(1)",
               "f32[2,5,4] dot(a, b), lhs_batch_dims={2}, lhs_contracting_dims={1}, rhs_batch_dims={0}, "
               "rhs_contracting_dims={1}",
               "neither is its minor dimension");
  // Three batch dimensions that merge nowhere: 9 x 9 calls around a batch of 9.
  ExpectNoPlan("  a = f32[9,2,9,9,3] parameter(0)\n  b = f32[9,9,4,9,3] parameter(1)",
               "f32[9,9,9,2,4] dot(a, b), lhs_batch_dims={0,2,3}, lhs_contracting_dims={4}, "
               "rhs_batch_dims={0,1,3}, rhs_contracting_dims={4}",
               "81 cuBLAS calls");
  // Contracting dimensions in another order in the rhs.
  ExpectNoPlan("  a = f32[5,3,4] parameter(0)\n  b = f32[4,3,2] parameter(1)",
               "f32[5,2] dot(a, b), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}", "in order");
  // An empty contraction (the result is zeros; Fusebox's kernel writes them).
  ExpectNoPlan("  a = f32[5,0] parameter(0)\n  b = f32[0,3] parameter(1)",
               "f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", "empty contraction");
  LibraryCall lt;
  lt.epilogue = GemmEpilogue::kBias;
  auto with_bias = PlanGemm(lt, Shape(PrimitiveType::kF32, {2, 2}), Shape(PrimitiveType::kF32, {2, 2}));
  EXPECT_FALSE(with_bias.ok());
}

// Epilogue selection: a bias epilogue plans as cublasLtMatmul when the bias runs along
// cuBLASLt's m (the rhs's one free dimension: the result's last); a bias over a result
// whose last dimension is only part of m, and epilogues on f64, have no plan.
TEST(GemmPlanTest, EpiloguesPlanAsCublasLtWhenTheBiasRunsAlongM) {
  Dot d = ParseDot("  a = f32[6,9] parameter(0)\n  b = f32[9,5] parameter(1)",
                   "f32[6,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_NE(d.dot, nullptr);
  LibraryCall call = CallOf(*d.dot);
  call.epilogue = GemmEpilogue::kBiasRelu;
  call.bias_operand = 2;
  call.bias_dimension = 1;
  auto plan = PlanGemm(call, d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->epilogue, GemmEpilogue::kBiasRelu);
  EXPECT_EQ(plan->bias_operand, 2);
  EXPECT_EQ(plan->m, 5) << "the bias length is cuBLASLt's m";
  EXPECT_NE(plan->ToString().find("cublasLtMatmul"), std::string::npos) << plan->ToString();
  EXPECT_NE(plan->ToString().find("BIAS_RELU"), std::string::npos) << plan->ToString();
  // Bias, relu, and the host's epilogue: relu(a.b + bias) per row-major element (r, c).
  std::vector<float> a(6 * 9), b(9 * 5), bias = {-3.f, -1.f, 0.f, 1.f, 3.f}, out(6 * 5);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(i)));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(std::cos(0.5 * static_cast<double>(i)));
  ASSERT_TRUE(RunGemmPlanOnHost(*plan, a.data(), b.data(), out.data(), bias.data()).ok());
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 5; ++c) {
      double sum = bias[static_cast<size_t>(c)];
      for (int k = 0; k < 9; ++k) sum += static_cast<double>(a[static_cast<size_t>(r * 9 + k)]) * b[static_cast<size_t>(k * 5 + c)];
      ASSERT_NEAR(out[static_cast<size_t>(r * 5 + c)], std::max(sum, 0.0), 1e-4) << r << "," << c;
    }
  }
  EXPECT_FALSE(RunGemmPlanOnHost(*plan, a.data(), b.data(), out.data()).ok()) << "a bias epilogue needs the bias";
  // The rhs's free dimensions [2, 5] merge into m = 10: a bias of 5 is not along m.
  Dot merged = ParseDot("  a = f32[6,9] parameter(0)\n  b = f32[9,2,5] parameter(1)",
                        "f32[6,2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_NE(merged.dot, nullptr);
  LibraryCall wide = CallOf(*merged.dot);
  wide.epilogue = GemmEpilogue::kBias;
  wide.bias_operand = 2;
  wide.bias_dimension = 2;
  auto refused = PlanGemm(wide, merged.dot->operand(0)->shape(), merged.dot->operand(1)->shape());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("not cuBLASLt's m"), std::string::npos) << refused.status().message();
  Dot f64 = ParseDot("  a = f64[6,9] parameter(0)\n  b = f64[9,5] parameter(1)",
                     "f64[6,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  ASSERT_NE(f64.dot, nullptr);
  LibraryCall relu = CallOf(*f64.dot);
  relu.epilogue = GemmEpilogue::kRelu;
  EXPECT_FALSE(PlanGemm(relu, f64.dot->operand(0)->shape(), f64.dot->operand(1)->shape()).ok());
}

// BIAS_GELU_AUX: the value is GELU(a.b + bias) and the aux output the GELU's input, laid
// out as the value (cuBLASLt's aux has D's leading dimension and batch stride, which it
// wants in multiples of 8: 16 columns plan, 12 do not). Batched, to check the aux's batch
// offsets too.
TEST(GemmPlanTest, GeluAuxWritesTheGelusInputLaidOutAsTheValue) {
  for (int64_t cols : {16, 12}) {
    SCOPED_TRACE(cols);
    const std::string n = std::to_string(cols);
    Dot d = ParseDot("  a = f32[3,4,9] parameter(0)\n  b = f32[3,9," + n + "] parameter(1)",
                     "f32[3,4," + n + "] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                     "rhs_batch_dims={0}, rhs_contracting_dims={1}");
    ASSERT_NE(d.dot, nullptr);
    LibraryCall call = CallOf(*d.dot);
    call.epilogue = GemmEpilogue::kBiasGeluAux;
    call.bias_operand = 2;
    call.bias_dimension = 2;
    auto plan = PlanGemm(call, d.dot->operand(0)->shape(), d.dot->operand(1)->shape());
    if (cols == 12) {
      ASSERT_FALSE(plan.ok());
      EXPECT_NE(plan.status().message().find("multiples of 8"), std::string::npos) << plan.status().message();
      continue;
    }
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_NE(plan->ToString().find("BIAS_GELU_AUX"), std::string::npos) << plan->ToString();
    std::vector<Literal> args = {Filled(d.dot->operand(0)->shape(), 1), Filled(d.dot->operand(1)->shape(), 2)};
    auto dot = interpreter::Interpreter().Run(*d.module, args);
    ASSERT_TRUE(dot.ok()) << dot.status().message();
    std::vector<float> bias(static_cast<size_t>(cols));
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(0.25 * static_cast<double>(i) - 1.5);
    const int64_t elements = dot->element_count();
    std::vector<float> value(static_cast<size_t>(elements)), aux(static_cast<size_t>(elements), -99.f);
    ASSERT_TRUE(RunGemmPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), value.data(), bias.data(),
                                  aux.data())
                    .ok());
    for (int64_t i = 0; i < elements; ++i) {
      const double x = dot->GetDouble(i) + bias[static_cast<size_t>(i % cols)];
      const double gelu = 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
      ASSERT_NEAR(aux[static_cast<size_t>(i)], x, 1e-4 * (1 + std::fabs(x))) << "aux element " << i;
      ASSERT_NEAR(value[static_cast<size_t>(i)], gelu, 1e-4 * (1 + std::fabs(gelu))) << "value element " << i;
    }
    EXPECT_FALSE(RunGemmPlanOnHost(*plan, args[0].untyped_data(), args[1].untyped_data(), value.data(), bias.data())
                     .ok())
        << "GELU_AUX needs its aux buffer";
  }
}

}  // namespace
}  // namespace fusebox
