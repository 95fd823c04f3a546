// `extract`: standalone modules around one instruction, checked by running them.
#include "compiler/passes/extract.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/session/compile_session.h"

namespace fusebox {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

std::unique_ptr<Module> Example(const std::string& name) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return std::move(parsed->modules[0]);
}

const char* const kChain = R"(HloModule chain

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[4,8], y: f32[4,8]) -> f32[4] {
  %x = f32[4,8]{1,0} parameter(0)
  %y = f32[4,8]{1,0} parameter(1)
  %e = f32[4,8]{1,0} exponential(%x)
  %m = f32[4,8]{1,0} multiply(%e, %y)
  %two = f32[] constant(2)
  %b2 = f32[4,8]{1,0} broadcast(%two), dimensions={}
  %a = f32[4,8]{1,0} add(%m, %b2), control-predecessors={%e}
  %zero = f32[] constant(0)
  ROOT %r = f32[4]{0} reduce(%a, %zero), dimensions={1}, to_apply=%sum
}
)";

TEST(ExtractTest, HeightZeroKeepsJustTheInstruction) {
  auto module = Parse(kChain);
  auto out = passes::ExtractInstruction(*module, "%a");
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Computation* entry = (*out)->entry();
  EXPECT_EQ((*out)->name(), "extracted_a");
  EXPECT_EQ(entry->root()->name(), "a");
  // %m becomes a parameter; %b2 too (height 0); the control edge to %e is dropped.
  ASSERT_EQ(entry->instructions().size(), 3u);
  EXPECT_EQ(entry->FindInstruction("m")->opcode(), Opcode::kParameter);
  EXPECT_EQ(entry->FindInstruction("b2")->opcode(), Opcode::kParameter);
  EXPECT_EQ((*out)->ToString().find("control-predecessors"), std::string::npos);
}

TEST(ExtractTest, HeightKeepsOperandsAndCalledComputations) {
  auto module = Parse(kChain);
  auto out = passes::ExtractInstruction(*module, "r", {.height = 1});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const Computation* entry = (*out)->entry();
  EXPECT_NE((*out)->FindComputation("sum"), nullptr);
  EXPECT_EQ(entry->FindInstruction("a")->opcode(), Opcode::kAdd);
  EXPECT_EQ(entry->FindInstruction("zero")->opcode(), Opcode::kConstant);
  EXPECT_EQ(entry->FindInstruction("m")->opcode(), Opcode::kParameter);
  // Small constants stay constants past the height.
  EXPECT_EQ(entry->FindInstruction("b2")->opcode(), Opcode::kParameter);
  auto full = passes::ExtractInstruction(*module, "r", {.height = 5});
  ASSERT_TRUE(full.ok());
  EXPECT_EQ((*full)->entry()->FindInstruction("two")->opcode(), Opcode::kConstant);
  EXPECT_EQ((*full)->entry()->FindInstruction("x")->opcode(), Opcode::kParameter);
}

TEST(ExtractTest, FullHeightComputesWhatTheOriginalComputes) {
  auto module = Parse(kChain);
  auto out = passes::ExtractInstruction(*module, "r", {.height = 10});
  ASSERT_TRUE(out.ok());
  // Parameters come in order of first use: x, then y — the original's order here.
  auto args = interpreter::RandomArguments(*module, 3);
  ASSERT_TRUE(args.ok());
  interpreter::Interpreter a, b;
  auto expected = a.Run(*module, *args);
  auto actual = b.Run(**out, *args);
  ASSERT_TRUE(expected.ok() && actual.ok());
  EXPECT_TRUE(CompareLiterals(*actual, *expected, interpreter::CompareOptions{}).ok());
}

TEST(ExtractTest, LargeConstantsBecomeParameters) {
  std::string text = R"(HloModule k
ENTRY %main (x: f32[2048]) -> f32[2048] {
  %x = f32[2048]{0} parameter(0)
  %c = f32[2048]{0} iota(), iota_dimension=0
  ROOT %a = f32[2048]{0} add(%x, %c)
}
)";
  auto module = Parse(text);
  // iota is not a constant: at height 1 it is kept.
  auto out = passes::ExtractInstruction(*module, "a", {.height = 1});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->entry()->FindInstruction("c")->opcode(), Opcode::kIota);
  passes::ExtractOptions tiny;
  tiny.max_constant_elements = 4;
  auto folded = session::CompileSession(module->Clone());
  // A constant of 2048 elements: made by constant folding the iota.
  passes::PipelineOptions popts;
  ASSERT_TRUE(folded.Optimize(popts).ok());
  const Module* optimized = folded.optimized_module();
  for (const auto& comp : optimized->computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() != Opcode::kConstant || inst->shape().ElementCount() != 2048) continue;
      for (const Instruction* user : inst->users()) {
        auto cut = ExtractInstruction(*optimized, user->name(), tiny);
        ASSERT_TRUE(cut.ok()) << cut.status().message();
        EXPECT_EQ((*cut)->entry()->FindInstruction(inst->name())->opcode(), Opcode::kParameter);
      }
    }
  }
}

TEST(ExtractTest, FusedInstructionsAndFusionsExtract) {
  auto module = Example("mnist_train_step.hlo");
  session::CompileSession session(module->Clone());
  ASSERT_TRUE(session.Optimize().ok());
  const Module& optimized = *session.optimized_module();
  int fusions = 0;
  for (const auto& inst : optimized.entry()->instructions()) {
    if (inst->opcode() != Opcode::kFusion) continue;
    ++fusions;
    auto out = passes::ExtractInstruction(optimized, inst->name());
    ASSERT_TRUE(out.ok()) << inst->name() << ": " << out.status().message();
    EXPECT_EQ((*out)->entry()->root()->opcode(), Opcode::kFusion);
    // Inside the fusion: its root, alone.
    const Instruction* fused_root = inst->fused_computation()->root();
    auto inner = passes::ExtractInstruction(optimized, fused_root->name(), {.height = 1});
    ASSERT_TRUE(inner.ok()) << fused_root->name() << ": " << inner.status().message();
  }
  EXPECT_GE(fusions, 5);
}

// The bug-filing promise: an extracted fusion runs on its own, and Fusebox's CPU backend
// agrees with the interpreter on it.
TEST(ExtractTest, ExtractedFusionsRunOnTheCpuAndMatchTheInterpreter) {
  for (const char* example : {"mnist_train_step.hlo", "cifar_cnn_train_step.hlo"}) {
    auto module = Example(example);
    session::CompileSession session(module->Clone());
    ASSERT_TRUE(session.Optimize().ok());
    const Module& optimized = *session.optimized_module();
    int ran = 0;
    for (const auto& inst : optimized.entry()->instructions()) {
      if (inst->opcode() != Opcode::kFusion) continue;
      SCOPED_TRACE(std::string(example) + " %" + inst->name());
      auto out = passes::ExtractInstruction(optimized, inst->name(), {.height = 1});
      ASSERT_TRUE(out.ok()) << out.status().message();
      auto args = interpreter::RandomArguments(**out, 11);
      ASSERT_TRUE(args.ok()) << args.status().message();
      interpreter::Interpreter interpreter;
      auto expected = interpreter.Run(**out, *args);
      ASSERT_TRUE(expected.ok()) << expected.status().message();
      auto prepared = passes::OptimizeForBackend(**out, /*fused=*/true);
      ASSERT_TRUE(prepared.ok()) << prepared.status().message();
      runtime::CpuExecutableOptions options;
      options.threads = 2;
      auto exe = runtime::CpuExecutable::Create(std::move(*prepared), options);
      ASSERT_TRUE(exe.ok()) << exe.status().message();
      auto actual = (*exe)->Run(*args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      interpreter::CompareOptions tolerance;
      tolerance.rtol = 1e-4;
      tolerance.atol = 1e-5;
      interpreter::CompareResult cmp = CompareLiterals(*actual, *expected, tolerance);
      EXPECT_TRUE(cmp.ok()) << cmp.ToString();
      ++ran;
    }
    EXPECT_GE(ran, 4) << example;
  }
}

TEST(ExtractTest, UnknownNamesSuggestCloseOnes) {
  auto module = Parse(kChain);
  auto out = passes::ExtractInstruction(*module, "rr");
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("no instruction %rr in module chain; did you mean %r"), std::string::npos)
      << out.status().message();
  EXPECT_FALSE(passes::ExtractInstruction(*module, "a", {.height = -1}).ok());
}

}  // namespace
}  // namespace fusebox
