// Tests of dead code elimination: dead chains go, side effects, roots, parameters and
// computations still called stay; the examples compute the same after the pass.
#include "compiler/passes/dce.h"

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
  DeadCodeElimination pass;
  return RunPassAndCheck(pass, module, compare);
}

TEST(DeadCodeEliminationTest, RemovesDeadChain) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  dead1 = f32[4] multiply(p0, p1)
  dead2 = f32[4] exponential(dead1)
  dead3 = f32[4] add(dead2, p0)
  ROOT live = f32[4] add(p0, p1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(m->entry()->instruction_count(), 3);
  EXPECT_EQ(m->entry()->FindInstruction("dead1"), nullptr);
  EXPECT_EQ(m->entry()->FindInstruction("dead3"), nullptr);
  EXPECT_EQ(m->entry()->root()->name(), "live");
}

TEST(DeadCodeEliminationTest, NoChangeWhenNothingIsDead) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_EQ(m->entry()->instruction_count(), 2);
}

TEST(DeadCodeEliminationTest, KeepsUnusedParameters) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  unused = f32[4] parameter(1)
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_NE(m->entry()->FindInstruction("unused"), nullptr);
}

TEST(DeadCodeEliminationTest, DoesNotRemoveSideEffectingCustomCall) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  effect = f32[4] custom-call(p0), custom_call_target="log_it", custom_call_has_side_effect=true
  pure = f32[4] custom-call(p0), custom_call_target="pure_fn"
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context;
  auto changed = DeadCodeElimination().Run(*m, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_NE(m->entry()->FindInstruction("effect"), nullptr);
  EXPECT_EQ(m->entry()->FindInstruction("pure"), nullptr);
  EXPECT_TRUE(Verify(*m).ok());
}

TEST(DeadCodeEliminationTest, DoesNotRemoveRngOrOutfeed) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  zero = f32[] constant(0)
  one = f32[] constant(1)
  r = f32[4] rng(zero, one), distribution=rng_uniform
  tok = token[] after-all()
  out = token[] outfeed(p0, tok), outfeed_shape=f32[4]{0}
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  // The interpreter cannot run outfeed; the structure is what matters here.
  EXPECT_FALSE(RunPass(*m, /*compare=*/false));
  EXPECT_NE(m->entry()->FindInstruction("r"), nullptr);
  EXPECT_NE(m->entry()->FindInstruction("out"), nullptr);
  EXPECT_NE(m->entry()->FindInstruction("tok"), nullptr);
}

TEST(DeadCodeEliminationTest, RemovesDeadCallAndItsComputation) {
  auto m = Parse(R"(
HloModule m
pure {
  x = f32[4] parameter(0)
  ROOT y = f32[4] multiply(x, x)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  c = f32[4] call(p0), to_apply=pure
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(m->entry()->FindInstruction("c"), nullptr);
  EXPECT_EQ(m->FindComputation("pure"), nullptr);
  EXPECT_EQ(m->computations().size(), 1u);
}

TEST(DeadCodeEliminationTest, DoesNotRemoveCallWhoseCalleeHasSideEffects) {
  auto m = Parse(R"(
HloModule m
effectful {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="log_it", custom_call_has_side_effect=true
}
ENTRY e {
  p0 = f32[4] parameter(0)
  c = f32[4] call(p0), to_apply=effectful
  ROOT n = f32[4] negate(p0)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context;
  auto changed = DeadCodeElimination().Run(*m, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_NE(m->entry()->FindInstruction("c"), nullptr);
  EXPECT_NE(m->FindComputation("effectful"), nullptr);
}

TEST(DeadCodeEliminationTest, RemovesDeadCodeInsideCalledComputations) {
  auto m = Parse(R"(
HloModule m
body {
  x = f32[4] parameter(0)
  dead = f32[4] exponential(x)
  ROOT y = f32[4] multiply(x, x)
}
ENTRY e {
  p0 = f32[4] parameter(0)
  ROOT c = f32[4] call(p0), to_apply=body
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  const Computation* body = m->FindComputation("body");
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->instruction_count(), 2);
  EXPECT_EQ(body->FindInstruction("dead"), nullptr);
}

TEST(DeadCodeEliminationTest, RemovesUncalledComputations) {
  auto m = Parse(R"(
HloModule m
orphan {
  x = f32[] parameter(0)
  ROOT y = f32[] negate(x)
}
ENTRY e {
  ROOT p0 = f32[4] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(RunPass(*m));
  EXPECT_EQ(m->FindComputation("orphan"), nullptr);
}

TEST(DeadCodeEliminationTest, KeepsInstructionThatOrdersOthers) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  first = f32[4] exponential(p0)
  ROOT n = f32[4] negate(p0), control-predecessors={first}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(RunPass(*m));
  EXPECT_NE(m->entry()->FindInstruction("first"), nullptr);
}

TEST(DeadCodeEliminationTest, SideEffectQuery) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  ar = f32[4] all-reduce(p0), channel_id=1, replica_groups={}, to_apply=add
  ar2 = f32[4] all-reduce(p0), replica_groups={}, to_apply=add
  ROOT n = f32[4] negate(p0)
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(HasSideEffect(*m->entry()->FindInstruction("ar")));
  EXPECT_FALSE(HasSideEffect(*m->entry()->FindInstruction("ar2")));
  EXPECT_FALSE(HasSideEffect(*m->entry()->FindInstruction("n")));
}

TEST(DeadCodeEliminationTest, ExamplesComputeTheSame) {
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
    std::cout << "[dce] " << file.filename().string() << ": " << before << " -> "
              << module.instruction_count() << " instructions\n";
  }
}

}  // namespace
}  // namespace fusebox::passes
