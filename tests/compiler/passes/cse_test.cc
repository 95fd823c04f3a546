// Tests of common subexpression elimination: equal values merge (chains, commutative
// operands, constants, calls), while rng, side effects, different attributes or layouts
// and parameters do not; the examples compute the same after the pass.
#include "compiler/passes/cse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::ExpectSameResult;
using testing_util::Parse;
using testing_util::RunPassAndCheck;



// Runs the pass on `module`; checks that it verifies and (when `compare`) computes what
// it did before. An unchanged module is not run again.
bool RunPass(Module& module, bool compare = true) {
  CommonSubexpressionElimination pass;
  return RunPassAndCheck(pass, module, compare);
}

int64_t Count(const Computation& c, Opcode opcode) {
  return std::count_if(c.instructions().begin(), c.instructions().end(),
                       [&](const auto& i) { return i->opcode() == opcode; });
}

TEST(CommonSubexpressionEliminationTest, MergesIdenticalChains) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a1 = f32[4] add(p0, p1), metadata={op_name="first"}
  a2 = f32[4] add(p0, p1), metadata={op_name="second"}
  e1 = f32[4] exponential(a1)
  e2 = f32[4] exponential(a2)
  ROOT r = f32[4] multiply(e1, e2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.instruction_count(), 5);
  EXPECT_EQ(e.FindInstruction("a2"), nullptr);
  EXPECT_EQ(e.FindInstruction("e2"), nullptr);
  EXPECT_EQ(e.root()->operand(0), e.FindInstruction("e1"));
  EXPECT_EQ(e.root()->operand(1), e.FindInstruction("e1"));
}

TEST(CommonSubexpressionEliminationTest, MergesCommutativeOperandsSwapped) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  m1 = f32[4] multiply(p0, p1)
  m2 = f32[4] multiply(p1, p0)
  s1 = f32[4] subtract(p0, p1)
  s2 = f32[4] subtract(p1, p0)
  t = (f32[4], f32[4], f32[4], f32[4]) tuple(m1, m2, s1, s2)
  ROOT r = f32[4] get-tuple-element(t), index=0
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.FindInstruction("m2"), nullptr);
  // subtract is not commutative.
  EXPECT_NE(e.FindInstruction("s2"), nullptr);
  EXPECT_EQ(Count(e, Opcode::kMultiply), 1);
  EXPECT_EQ(Count(e, Opcode::kSubtract), 2);
}

TEST(CommonSubexpressionEliminationTest, MergesEqualConstants) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  c1 = f32[3] constant({1, 2, 3})
  c2 = f32[3] constant({1, 2, 3})
  c3 = f32[3] constant({1, 2, 4})
  a = f32[3] add(c1, c2)
  ROOT r = f32[3] add(a, c3)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(Count(e, Opcode::kConstant), 2);
  EXPECT_EQ(e.FindInstruction("c2"), nullptr);
  EXPECT_EQ(e.FindInstruction("a")->operand(0), e.FindInstruction("c1"));
  EXPECT_EQ(e.FindInstruction("a")->operand(1), e.FindInstruction("c1"));
}

TEST(CommonSubexpressionEliminationTest, DoesNotMergeConstantsOfDifferentLayout) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  c1 = f32[2,2]{1,0} constant({{1, 2}, {3, 4}})
  c2 = f32[2,2]{0,1} constant({{1, 2}, {3, 4}})
  ROOT t = (f32[2,2]{1,0}, f32[2,2]{0,1}) tuple(c1, c2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(Count(*m->entry(), Opcode::kConstant), 2);
}

TEST(CommonSubexpressionEliminationTest, DoesNotMergeDifferentAttributes) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4,4] parameter(0)
  t1 = f32[4,4] transpose(p0), dimensions={1,0}
  t2 = f32[4,4] transpose(p0), dimensions={0,1}
  ROOT r = f32[4,4] add(t1, t2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(Count(*m->entry(), Opcode::kTranspose), 2);
}

TEST(CommonSubexpressionEliminationTest, DoesNotMergeRng) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  zero = f32[] constant(0)
  one = f32[] constant(1)
  r1 = f32[4] rng(zero, one), distribution=rng_uniform
  r2 = f32[4] rng(zero, one), distribution=rng_uniform
  ROOT s = f32[4] subtract(r1, r2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(Count(*m->entry(), Opcode::kRng), 2);
}

TEST(CommonSubexpressionEliminationTest, DoesNotMergeSideEffectingCustomCalls) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  c1 = f32[4] custom-call(p0), custom_call_target="log_it", custom_call_has_side_effect=true
  c2 = f32[4] custom-call(p0), custom_call_target="log_it", custom_call_has_side_effect=true
  ROOT t = (f32[4], f32[4]) tuple(c1, c2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m, /*compare=*/false));
  EXPECT_EQ(Count(*m->entry(), Opcode::kCustomCall), 2);
}

TEST(CommonSubexpressionEliminationTest, DoesNotMergeParametersOrAcrossComputations) {
  auto m = Parse(R"(
HloModule m
sq {
  x = f32[4] parameter(0)
  ROOT y = f32[4] multiply(x, x)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  c = f32[4] call(p0), to_apply=sq
  y = f32[4] multiply(p0, p0)
  ROOT r = f32[4] add(c, p1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(m->entry()->instruction_count(), 5);
}

TEST(CommonSubexpressionEliminationTest, MergesCallsOfTheSameComputation) {
  auto m = Parse(R"(
HloModule m
sq {
  x = f32[4] parameter(0)
  ROOT y = f32[4] multiply(x, x)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  c1 = f32[4] call(p0), to_apply=sq
  c2 = f32[4] call(p0), to_apply=sq
  ROOT r = f32[4] add(c1, c2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(Count(*m->entry(), Opcode::kCall), 1);
  EXPECT_EQ(m->entry()->root()->operand(0), m->entry()->root()->operand(1));
}

TEST(CommonSubexpressionEliminationTest, MergedRootKeepsRootRole) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  n1 = f32[4] negate(p0)
  ROOT n2 = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(m->entry()->root()->name(), "n1");
  EXPECT_EQ(m->entry()->instruction_count(), 2);
}

TEST(CommonSubexpressionEliminationTest, ExamplesComputeTheSame) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(FUSEBOX_SOURCE_DIR) / "assets/examples")) {
    if (e.is_regular_file() && e.path().extension() == ".hlo") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    auto parsed = ParseFile(file.string());
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    Module& module = *parsed->modules.at(0);
    const int64_t before = module.instruction_count();
    RunPass(module);
    std::cout << "[cse] " << file.filename().string() << ": " << before << " -> "
              << module.instruction_count() << " instructions\n";
  }
}

}  // namespace
}  // namespace fusebox::passes

namespace fusebox::passes {
namespace {

// In an SPMD program (every device runs it), two equal collectives on different channels
// become one on all devices, as XLA's CSE merges them; other groups, other operands or a
// program of several replicas keep them apart.
TEST(CommonSubexpressionEliminationTest, EqualChannelCollectivesMergeInSpmdPrograms) {
  const std::string body = R"(
ENTRY e {
  p = f32[2,3] parameter(0)
  q = f32[2,3] parameter(1)
  a = f32[8,3] all-gather(p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  b = f32[8,3] all-gather(p), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  c = f32[4,3] all-gather(p), channel_id=3, replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true
  d = f32[8,3] all-gather(q), channel_id=4, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  ROOT t = (f32[8,3], f32[8,3], f32[4,3], f32[8,3]) tuple(a, b, c, d)
}
)";
  auto spmd = Parse("HloModule m, num_partitions=4\n" + body);
  ASSERT_NE(spmd, nullptr);
  EXPECT_TRUE(RunPass(*spmd, /*compare=*/false));
  EXPECT_EQ(Count(*spmd->entry(), Opcode::kAllGather), 3) << spmd->ToString();
  const Instruction* root = spmd->entry()->root();
  EXPECT_EQ(root->operand(0), root->operand(1));
  EXPECT_NE(root->operand(0), root->operand(3));
  auto replicas = Parse("HloModule m, replica_count=4\n" + body);
  ASSERT_NE(replicas, nullptr);
  EXPECT_FALSE(RunPass(*replicas, /*compare=*/false));
  EXPECT_EQ(Count(*replicas->entry(), Opcode::kAllGather), 4);
}

}  // namespace
}  // namespace fusebox::passes
