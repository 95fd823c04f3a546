// Tests of the tuple simplifier: get-tuple-element of a tuple and a tuple of all the
// elements of one tuple fold away; other shapes of tuple code stay; the examples compute
// the same after the pass.
#include "compiler/passes/tuple_simplifier.h"

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
  TupleSimplifier pass;
  return RunPassAndCheck(pass, module, compare);
}

TEST(TupleSimplifierTest, GetTupleElementOfTupleBecomesTheOperand) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = s32[2] parameter(1)
  t = (f32[4], s32[2]) tuple(p0, p1)
  g0 = f32[4] get-tuple-element(t), index=0
  g1 = s32[2] get-tuple-element(t), index=1
  c = f32[2] convert(g1)
  ROOT r = (f32[4], f32[2]) tuple(g0, c)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.FindInstruction("g0"), nullptr);
  EXPECT_EQ(e.FindInstruction("g1"), nullptr);
  EXPECT_EQ(e.FindInstruction("t"), nullptr);  // left without users
  EXPECT_EQ(e.root()->operand(0), e.FindInstruction("p0"));
  EXPECT_EQ(e.FindInstruction("c")->operand(0), e.FindInstruction("p1"));
  EXPECT_EQ(e.instruction_count(), 4);
}

TEST(TupleSimplifierTest, TupleOfAllElementsBecomesTheSource) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = (f32[4], s32[2]) parameter(0)
  g0 = f32[4] get-tuple-element(p), index=0
  g1 = s32[2] get-tuple-element(p), index=1
  ROOT t = (f32[4], s32[2]) tuple(g0, g1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.root()->name(), "p");
  EXPECT_EQ(e.instruction_count(), 1);
}

TEST(TupleSimplifierTest, NestedTuplesCollapse) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  inner = (f32[4], f32[4]) tuple(p0, p1)
  outer = ((f32[4], f32[4]), f32[4]) tuple(inner, p0)
  g = (f32[4], f32[4]) get-tuple-element(outer), index=0
  gg = f32[4] get-tuple-element(g), index=1
  ROOT n = f32[4] negate(gg)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.root()->operand(0), e.FindInstruction("p1"));
  EXPECT_EQ(e.instruction_count(), 3);
}

TEST(TupleSimplifierTest, DoesNotTouchGetTupleElementOfParameterTuple) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = (f32[4], s32[2]) parameter(0)
  g0 = f32[4] get-tuple-element(p), index=0
  ROOT n = f32[4] negate(g0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(m->entry()->instruction_count(), 3);
}

TEST(TupleSimplifierTest, DoesNotCollapseReorderedOrPartialTuples) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = (f32[4], f32[4], f32[4]) parameter(0)
  g0 = f32[4] get-tuple-element(p), index=0
  g1 = f32[4] get-tuple-element(p), index=1
  swapped = (f32[4], f32[4]) tuple(g1, g0)
  partial = (f32[4], f32[4]) tuple(g0, g1)
  ROOT r = ((f32[4], f32[4]), (f32[4], f32[4])) tuple(swapped, partial)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(m->entry()->instruction_count(), 6);
}

TEST(TupleSimplifierTest, DoesNotCollapseTupleWithDifferentLayout) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = (f32[2,2]{1,0}) parameter(0)
  g0 = f32[2,2]{0,1} get-tuple-element(p), index=0
  ROOT t = (f32[2,2]{0,1}) tuple(g0)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context;
  auto changed = TupleSimplifier().Run(*m, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(m->entry()->root()->opcode(), Opcode::kTuple);
}

TEST(TupleSimplifierTest, SimplifiesInsideWhileBody) {
  auto m = Parse(R"(
HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  t = (s32[], f32[4]) tuple(next, x)
  again = f32[4] get-tuple-element(t), index=1
  y = f32[4] add(again, again)
  ROOT out = (s32[], f32[4]) tuple(next, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation* body = m->FindComputation("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->FindInstruction("again"), nullptr);
  EXPECT_EQ(body->FindInstruction("t"), nullptr);
  EXPECT_EQ(body->FindInstruction("y")->operand(0), body->FindInstruction("x"));
}

TEST(TupleSimplifierTest, ExamplesComputeTheSame) {
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
    std::cout << "[tuple-simplifier] " << file.filename().string() << ": " << before << " -> "
              << module.instruction_count() << " instructions\n";
  }
}

}  // namespace
}  // namespace fusebox::passes
