// batch-norm-training, -inference and -grad (TensorFlow's fused batch norm in HLO) on both
// backends through the batch-norm-expander pass: the CPU backend and the GPU emulator,
// fused and unfused, against the reference interpreter, which computes them in double
// with two-pass variances.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

// A training step's use of all three: training on x, its gradient at (mean, variance) with
// dy, and inference with the batch's statistics. `dims` of x, the feature at `feature`.
std::string BatchNormModule(const std::string& type, const std::vector<int64_t>& dims, int64_t feature) {
  std::string x = type + "[", c = type + "[" + std::to_string(dims[feature]) + "]";
  for (size_t d = 0; d < dims.size(); ++d) x += (d == 0 ? "" : ",") + std::to_string(dims[d]);
  x += "]";
  const std::string attrs = "epsilon=0.001, feature_index=" + std::to_string(feature);
  const std::string stats = "(" + x + ", " + c + ", " + c + ")";
  return "HloModule bn\n\nENTRY e {\n  x = " + x + " parameter(0)\n  s = " + c + " parameter(1)\n  o = " + c +
         " parameter(2)\n  dy = " + x + " parameter(3)\n  t = " + stats + " batch-norm-training(x, s, o), " + attrs +
         "\n  y = " + x + " get-tuple-element(t), index=0\n  m = " + c + " get-tuple-element(t), index=1\n  v = " + c +
         " get-tuple-element(t), index=2\n  g = " + stats + " batch-norm-grad(x, s, m, v, dy), " + attrs +
         "\n  gx = " + x + " get-tuple-element(g), index=0\n  gs = " + c + " get-tuple-element(g), index=1\n  go = " +
         c + " get-tuple-element(g), index=2\n  i = " + x + " batch-norm-inference(x, s, o, m, v), " + attrs +
         "\n  ROOT r = (" + x + ", " + c + ", " + c + ", " + x + ", " + c + ", " + c + ", " + x +
         ") tuple(y, m, v, gx, gs, go, i)\n}\n";
}

int64_t CountBatchNorms(const Module& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      const Opcode op = inst->opcode();
      n += op == Opcode::kBatchNormTraining || op == Opcode::kBatchNormInference || op == Opcode::kBatchNormGrad;
    }
  }
  return n;
}

void ExpectBackendsMatch(const std::string& type, const std::vector<int64_t>& dims, int64_t feature) {
  const std::string text = BatchNormModule(type, dims, feature);
  SCOPED_TRACE(text);
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto args = interpreter::RandomArguments(**module, 3);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(**module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  const auto tolerance = interpreter::DefaultToleranceFor(*ParsePrimitiveType(type));
  RunOnBothBackends(
      **module, *args,
      [&](const Literal& got, const std::string& which) {
        interpreter::CompareResult cmp = interpreter::CompareLiterals(got, *expected, tolerance);
        EXPECT_TRUE(cmp.ok()) << which << ": " << cmp.ToString();
      },
      [](const Module& optimized, const std::string& which) { EXPECT_EQ(CountBatchNorms(optimized), 0) << which; });
}

TEST(BatchNormTest, TrainingGradAndInferenceMatchTheInterpreter) {
  ExpectBackendsMatch("f32", {8, 5, 5, 16}, 3);  // NHWC
  ExpectBackendsMatch("f32", {4, 6, 7, 7}, 1);   // NCHW
  ExpectBackendsMatch("f32", {64, 10}, 1);       // after a dense layer
  ExpectBackendsMatch("f64", {6, 3, 3, 4}, 3);
  ExpectBackendsMatch("bf16", {4, 4, 4, 8}, 3);  // computed in f32
  ExpectBackendsMatch("f16", {4, 8, 3, 3}, 1);
}

// Training's statistics are two reductions: the mean, then the variance around it.
TEST(BatchNormTest, TrainingIsTwoReductions) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT t = (f32[4,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto optimized = passes::OptimizeForBackend(**module, false);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_EQ(CountBatchNorms(**optimized), 0);
  int64_t reduces = 0;
  for (const auto& inst : (*optimized)->entry()->instructions()) reduces += inst->opcode() == Opcode::kReduce;
  EXPECT_EQ(reduces, 2);  // the mean, then the variance around it
}

}  // namespace
}  // namespace fusebox
