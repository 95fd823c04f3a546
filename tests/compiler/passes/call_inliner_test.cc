// Tests of the call inliner: calls (nested ones too) become the callee's instructions
// with unique names, metadata and control edges kept; other callers are left alone; the
// examples compute the same after the pass.
#include "compiler/passes/call_inliner.h"

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
  CallInliner pass;
  return RunPassAndCheck(pass, module, compare);
}

int64_t Count(const Module& m, Opcode opcode) {
  int64_t n = 0;
  for (const auto& c : m.computations()) {
    for (const auto& i : c->instructions()) n += i->opcode() == opcode;
  }
  return n;
}

TEST(CallInlinerTest, InlinesCallAndRemovesCallee) {
  auto m = Parse(R"(
HloModule m
square {
  x = f32[4] parameter(0)
  ROOT y = f32[4] multiply(x, x), metadata={op_name="sq"}
}
ENTRY e {
  p0 = f32[4] parameter(0)
  c = f32[4] call(p0), to_apply=square
  ROOT r = f32[4] negate(c)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(m->computations().size(), 1u);
  EXPECT_EQ(Count(*m, Opcode::kCall), 0);
  EXPECT_EQ(e.instruction_count(), 3);
  const Instruction* y = e.root()->operand(0);
  EXPECT_EQ(y->opcode(), Opcode::kMultiply);
  // Module-wide unique: the callee still held "y" while it was copied.
  EXPECT_EQ(y->name(), "y.1");
  EXPECT_EQ(y->operand(0), e.FindInstruction("p0"));
  ASSERT_NE(y->metadata(), nullptr);
  EXPECT_EQ(y->metadata()->op_name, "sq");
}

TEST(CallInlinerTest, InlinedRootCallAndClashingNamesGetUniqueNames) {
  auto m = Parse(R"(
HloModule m
f {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  r = f32[4] add(a, b)
  ROOT r2 = f32[4] multiply(r, a)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  r = f32[4] exponential(p0)
  ROOT c = f32[4] call(r, p0), to_apply=f
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  EXPECT_EQ(e.root()->opcode(), Opcode::kMultiply);
  const Instruction* add = e.root()->operand(0);
  EXPECT_EQ(add->opcode(), Opcode::kAdd);
  EXPECT_EQ(add->name(), "r.1");  // "r" is taken in the caller
  EXPECT_EQ(add->operand(0), e.FindInstruction("r"));
  EXPECT_EQ(add->operand(1), e.FindInstruction("p0"));
}

TEST(CallInlinerTest, InlinesNestedCalls) {
  auto m = Parse(R"(
HloModule m
inner {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
outer {
  x = f32[4] parameter(0)
  c = f32[4] call(x), to_apply=inner
  ROOT e = f32[4] exponential(c)
}
ENTRY main {
  p0 = f32[4] parameter(0)
  c1 = f32[4] call(p0), to_apply=outer
  c2 = f32[4] call(c1), to_apply=inner
  ROOT r = f32[4] add(c1, c2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(Count(*m, Opcode::kCall), 0);
  EXPECT_EQ(m->computations().size(), 1u);
  // p0, negate, exponential, negate, add.
  EXPECT_EQ(m->entry()->instruction_count(), 5);
}

TEST(CallInlinerTest, CalleeReturningParameter) {
  auto m = Parse(R"(
HloModule m
second {
  a = f32[4] parameter(0)
  ROOT b = f32[4] parameter(1)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  c = f32[4] call(p0, p1), to_apply=second
  ROOT r = f32[4] negate(c)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(m->entry()->root()->operand(0), m->entry()->FindInstruction("p1"));
  EXPECT_EQ(m->entry()->instruction_count(), 3);
}

TEST(CallInlinerTest, KeepsControlDependencies) {
  auto m = Parse(R"(
HloModule m
f {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  ROOT e = f32[4] exponential(n)
}
ENTRY main {
  p0 = f32[4] parameter(0)
  before = f32[4] sine(p0)
  c = f32[4] call(p0), to_apply=f, control-predecessors={before}
  after = f32[4] cosine(p0), control-predecessors={c}
  ROOT r = (f32[4], f32[4], f32[4]) tuple(before, c, after)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation& e = *m->entry();
  const Instruction* n = e.FindInstruction("n.1");
  const Instruction* ex = e.FindInstruction("e.1");
  ASSERT_NE(n, nullptr);
  ASSERT_NE(ex, nullptr);
  ASSERT_EQ(n->control_predecessors().size(), 1u);
  EXPECT_EQ(n->control_predecessors()[0], e.FindInstruction("before"));
  const Instruction* after = e.FindInstruction("after");
  ASSERT_EQ(after->control_predecessors().size(), 1u);
  EXPECT_EQ(after->control_predecessors()[0], ex);
}

TEST(CallInlinerTest, FusionInCalleeGetsItsOwnFusedComputationPerCallSite) {
  auto m = Parse(R"(
HloModule m
fused {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
f {
  x = f32[4] parameter(0)
  ROOT fu = f32[4] fusion(x), kind=kLoop, calls=fused
}
ENTRY main {
  p0 = f32[4] parameter(0)
  c1 = f32[4] call(p0), to_apply=f
  c2 = f32[4] call(c1), to_apply=f
  ROOT r = f32[4] add(c1, c2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(Count(*m, Opcode::kCall), 0);
  EXPECT_EQ(Count(*m, Opcode::kFusion), 2);
  // Two fused computations (one per fusion) plus the entry.
  EXPECT_EQ(m->computations().size(), 3u);
}

TEST(CallInlinerTest, DoesNotInlineOtherCallers) {
  auto m = Parse(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(p0, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_NE(m->FindComputation("add"), nullptr);
  EXPECT_EQ(m->entry()->root()->opcode(), Opcode::kReduce);
}

TEST(CallInlinerTest, ExamplesComputeTheSame) {
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
    std::cout << "[call-inliner] " << file.filename().string() << ": " << before << " -> "
              << module.instruction_count() << " instructions\n";
  }
}

}  // namespace
}  // namespace fusebox::passes
