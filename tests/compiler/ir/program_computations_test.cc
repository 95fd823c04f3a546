// ProgramComputations: which computations run as programs, in which order, for each walk
// its users ask for (the fusion passes, the code generators, the GPU runtime, the graph).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

// A while (condition, body calling %inner), a call, an async-start, a fusion and a call
// of the fused computation (malformed: only the skip_fused walk leaves it out).
constexpr const char* kWalk = R"(HloModule walk

%cond (c: s32[]) -> pred[] {
  %c = s32[] parameter(0)
  %k = s32[] constant(3)
  ROOT %lt = pred[] compare(%c, %k), direction=LT
}

%inner (i: s32[]) -> s32[] {
  %i = s32[] parameter(0)
  ROOT %ni = s32[] negate(%i)
}

%body (b: s32[]) -> s32[] {
  %b = s32[] parameter(0)
  %one = s32[] constant(1)
  %s = s32[] add(%b, %one)
  ROOT %ci = s32[] call(%s), to_apply=%inner
}

%callee (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %nx = s32[] negate(%x)
}

%wrapped (w: s32[]) -> s32[] {
  %w = s32[] parameter(0)
  ROOT %nw = s32[] negate(%w)
}

%fused (y: s32[]) -> s32[] {
  %y = s32[] parameter(0)
  ROOT %ny = s32[] negate(%y)
}

ENTRY %main (p: s32[]) -> s32[] {
  %p = s32[] parameter(0)
  %loop = s32[] while(%p), condition=%cond, body=%body
  %called = s32[] call(%loop), to_apply=%callee
  %start = ((s32[]), s32[], u32[]) async-start(%called), calls=%wrapped
  %done = s32[] async-done(%start)
  %fu = s32[] fusion(%done), kind=kLoop, calls=%fused
  ROOT %cf = s32[] call(%fu), to_apply=%fused
}
)";

std::vector<std::string> Walk(const Module& module, const ProgramWalk& walk) {
  std::vector<std::string> names;
  for (const Computation* c : ProgramComputations(module, walk)) names.push_back(c->name());
  return names;
}

class ProgramComputationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto parsed = ParseModule(kWalk);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    module_ = std::move(parsed).value();
  }
  std::unique_ptr<Module> module_;
};

using Names = std::vector<std::string>;

TEST_F(ProgramComputationsTest, DepthFirstTheLastCalleeFirst) {
  EXPECT_EQ(Walk(*module_, {}), (Names{"main", "fused", "callee", "body", "inner", "cond"}));
}

TEST_F(ProgramComputationsTest, BreadthFirstInCallOrder) {
  EXPECT_EQ(Walk(*module_, {.breadth_first = true}), (Names{"main", "cond", "body", "callee", "fused", "inner"}));
}

TEST_F(ProgramComputationsTest, SkipFusedLeavesOutFusedComputations) {
  EXPECT_EQ(Walk(*module_, {.skip_fused = true}), (Names{"main", "callee", "body", "inner", "cond"}));
}

TEST_F(ProgramComputationsTest, ThroughAsyncStartAddsWhatItWraps) {
  EXPECT_EQ(Walk(*module_, {.through_async_start = true}),
            (Names{"main", "fused", "wrapped", "callee", "body", "inner", "cond"}));
}

TEST(ProgramComputationsNoEntryTest, EmptyWithoutAnEntry) {
  Module empty("empty");
  EXPECT_TRUE(ProgramComputations(empty).empty());
}

}  // namespace
}  // namespace fusebox
