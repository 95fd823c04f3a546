// library-call-lowering: XLA's cuBLAS and cuDNN calls become plain HLO that verifies,
// prints and parses back, inlines into the caller, and computes what the calls compute
// (the calls' own semantics are checked against loops in library_calls_test; the CPU
// backend's run of the lowered module in cpu_library_calls_test).
#include "compiler/passes/library_call_lowering.h"

#include <gtest/gtest.h>

#include "compiler/passes/call_inliner.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Parse;
using testing_util::RunPassAndCheck;

std::unique_ptr<Module> CnnStep() {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/library_calls/cnn_step_gpu.hlo");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  return std::move(parsed->modules[0]);
}

int CountOpcode(const Module& module, Opcode opcode) {
  int count = 0;
  for (const Computation* c : ProgramComputations(module)) {
    for (const auto& inst : c->instructions()) count += inst->opcode() == opcode;
  }
  return count;
}

TEST(LibraryCallLoweringTest, EveryCallOfACnnStepBecomesACallOfPlainHlo) {
  auto module = CnnStep();
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountOpcode(*module, Opcode::kCustomCall), 4);
  LibraryCallLowering lowering;
  EXPECT_TRUE(RunPassAndCheck(lowering, *module));
  EXPECT_EQ(CountOpcode(*module, Opcode::kCustomCall), 0) << module->ToString();
  EXPECT_EQ(CountOpcode(*module, Opcode::kCall), 4);
  // The text parses back to the same module.
  auto reparsed = ParseModule(module->ToString());
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  EXPECT_EQ((*reparsed)->ToString(), module->ToString());
  // The inliner opens the calls: convolutions (forward, two gradients) and the dot.
  CallInliner inliner;
  EXPECT_TRUE(RunPassAndCheck(inliner, *module));
  EXPECT_EQ(CountOpcode(*module, Opcode::kCall), 0);
  EXPECT_EQ(CountOpcode(*module, Opcode::kConvolution), 3);
  EXPECT_EQ(CountOpcode(*module, Opcode::kDot), 1);
  EXPECT_EQ(CountOpcode(*module, Opcode::kReverse), 1) << "the input gradient reverses the kernel";
}

TEST(LibraryCallLoweringTest, TheOptimizationPipelineLowersAndFuses) {
  auto module = CnnStep();
  ASSERT_NE(module, nullptr);
  auto optimized = OptimizeForBackend(*module, /*fused=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_EQ(CountOpcode(**optimized, Opcode::kCustomCall), 0);
  EXPECT_GT(CountOpcode(**optimized, Opcode::kFusion), 0) << (*optimized)->ToString();
  testing_util::ExpectSameResult(*module, **optimized);
}

TEST(LibraryCallLoweringTest, ACallItCannotExpressFailsThePassNamingIt) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[2,2] parameter(0)
  b = f32[2,2] parameter(1)
  ROOT g = (f32[2,2], f32[], s8[0]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"DEFAULT","damax_output":true}}
})");
  ASSERT_NE(module, nullptr);
  LibraryCallLowering lowering;
  PassContext context;
  auto changed = lowering.Run(*module, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("custom-call g"), std::string::npos) << changed.status().message();
  // A GELU_AUX call lowers: its aux output (the GELU's input) is element 1.
  auto aux = Parse(R"(HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,8] parameter(1)
  ROOT g = (f32[2,8], f32[2,8], s8[0]) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"]},"epilogue":"GELU_AUX"}}
})");
  ASSERT_NE(aux, nullptr);
  EXPECT_TRUE(RunPassAndCheck(lowering, *aux));
  // Other custom calls are not its business.
  auto other = Parse("HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT c = f32[2] custom-call(a), custom_call_target=\"my_op\"\n}");
  ASSERT_NE(other, nullptr);
  auto untouched = lowering.Run(*other, context);
  ASSERT_TRUE(untouched.ok());
  EXPECT_FALSE(*untouched);
}

}  // namespace
}  // namespace fusebox::passes
