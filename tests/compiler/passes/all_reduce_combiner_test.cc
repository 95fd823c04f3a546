// Tests of the all-reduce combiner: independent all-reduces of one kind become one
// all-reduce of a tuple and the program computes the same on 4 devices; dependent ones,
// other groups, other reductions, other element types and the count limit keep them
// apart.
#include "compiler/passes/all_reduce_combiner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/runtime/multi_device.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Parse;

// The shapes of the entry's all-reduces, sorted.
std::vector<std::string> AllReduces(const Module& m) {
  std::vector<std::string> out;
  for (const Instruction* inst : m.entry()->PostOrder())
    if (inst->opcode() == Opcode::kAllReduce) out.push_back(inst->shape().ToString(false));
  std::sort(out.begin(), out.end());
  return out;
}

// Runs the combiner on `text` (verified after); the module before and after give the
// same result on 4 devices from the same random global inputs.
std::unique_ptr<Module> Combine(const std::string& text, AllReduceCombiner pass = AllReduceCombiner()) {
  auto before = Parse(text);
  auto m = Parse(text);
  if (m == nullptr || before == nullptr) return nullptr;
  PassContext context;
  StatusOr<bool> changed = pass.Run(*m, context);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  Status verified = Verify(*m);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << m->ToString();
  // Random global arguments: the per-device parameters' shapes times their tiles.
  StatusOr<std::vector<Shape>> shapes = runtime::GlobalParameterShapes(*before, nullptr);
  EXPECT_TRUE(shapes.ok()) << shapes.status().message();
  if (!shapes.ok()) return m;
  StatusOr<std::unique_ptr<Module>> view = runtime::GlobalParameterView(*before, *shapes);
  EXPECT_TRUE(view.ok()) << view.status().message();
  if (!view.ok()) return m;
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(**view, 5);
  EXPECT_TRUE(args.ok()) << args.status().message();
  if (!args.ok()) return m;
  StatusOr<Literal> expected = runtime::RunGlobal(*before, *args, 4);
  StatusOr<Literal> actual = runtime::RunGlobal(*m, *args, 4);
  EXPECT_TRUE(expected.ok()) << expected.status().message();
  EXPECT_TRUE(actual.ok()) << actual.status().message() << "\n" << m->ToString();
  if (expected.ok() && actual.ok()) {
    interpreter::CompareResult result = interpreter::CompareLiterals(*actual, *expected);
    EXPECT_TRUE(result.ok()) << result.ToString() << "\n" << m->ToString();
  }
  return m;
}

constexpr char kReducers[] = R"(
HloModule m, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(y, x)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
)";

TEST(AllReduceCombinerTest, IndependentSumsBecomeOneTupleAllReduce) {
  // A gradient, a bias gradient and a loss, summed by separate all-reduces with two
  // different (but equal) add computations: one all-reduce of three arrays.
  auto m = Combine(std::string(kReducers) + R"(
ENTRY e {
  g = f32[4,3] parameter(0), sharding={devices=[4,1]<=[4]}
  b = f32[3] parameter(1), sharding={devices=[4]<=[4]}
  l = f32[] parameter(2), sharding={replicated}
  t = f32[4,3] tanh(g)
  gs = f32[4,3] all-reduce(t), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  bs = f32[3] all-reduce(b), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=sum
  ls = f32[] all-reduce(l), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  two = f32[] constant(2)
  twice = f32[] multiply(ls, two)
  ROOT r = (f32[4,3], f32[3], f32[]) tuple(gs, bs, twice)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AllReduces(*m), (std::vector<std::string>{"(f32[4,3], f32[3], f32[])"})) << m->ToString();
}

TEST(AllReduceCombinerTest, DependentOnesStayApart) {
  // The second sums what the first gave (a mean, then the variance around it): no.
  auto m = Combine(std::string(kReducers) + R"(
ENTRY e {
  x = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  s = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  d = f32[8] subtract(x, s)
  sq = f32[8] multiply(d, d)
  v = f32[8] all-reduce(sq), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  y = f32[8] parameter(1), sharding={devices=[4]<=[4]}
  w = f32[8] all-reduce(y), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT r = (f32[8], f32[8]) tuple(v, w)
}
)");
  ASSERT_NE(m, nullptr);
  // y's sum joins the first group (it depends on neither); the variance's cannot.
  EXPECT_EQ(AllReduces(*m).size(), 2u) << m->ToString();
  int tuples = 0;
  for (const std::string& s : AllReduces(*m)) tuples += s[0] == '(' ? 1 : 0;
  EXPECT_EQ(tuples, 1);
}

TEST(AllReduceCombinerTest, NoCycleThroughAnotherKindsGroup) {
  // Sums (add) and maxima (max) are kinds of their own. The second sum reads the first
  // maximum and the second maximum reads the first sum: combining each kind's pair alone
  // looks safe, both together make each combined all-reduce wait for the other (found by
  // the fuzzer: `all_reduce_combiner_cycle_across_kinds.hlo`). The sums combine (first in
  // post order); the maxima then cannot.
  auto m = Combine(std::string(kReducers) + R"(
ENTRY e {
  x = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  a1 = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  b1 = f32[8] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=max
  fb = f32[8] tanh(b1)
  a2 = f32[8] all-reduce(fb), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ga = f32[8] negate(a1)
  b2 = f32[8] all-reduce(ga), channel_id=4, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=max
  ROOT r = (f32[8], f32[8]) tuple(a2, b2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AllReduces(*m), (std::vector<std::string>{"(f32[8], f32[8])", "f32[8]", "f32[8]"})) << m->ToString();
}

TEST(AllReduceCombinerTest, OtherGroupsReductionsAndTypesStayApart) {
  auto m = Combine(std::string(kReducers) + R"(
ENTRY e {
  x = f32[8] parameter(0), sharding={replicated}
  i = s32[8] parameter(1), sharding={replicated}
  a = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  b = f32[8] all-reduce(x), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=max
  c = s32[8] all-reduce(i), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=iadd
  p = f32[8] all-reduce(x), channel_id=4, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=add
  q = f32[8] all-reduce(p), channel_id=5, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=add
  ROOT r = (f32[8], f32[8], s32[8], f32[8]) tuple(a, b, c, q)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AllReduces(*m).size(), 5u) << m->ToString();
}

TEST(AllReduceCombinerTest, AGroupHoldsAtMostTheCountLimit) {
  auto m = Combine(std::string(kReducers) + R"(
ENTRY e {
  x = f32[8] parameter(0), sharding={replicated}
  a = f32[8] all-reduce(x), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  e1 = f32[8] exponential(x)
  b = f32[8] all-reduce(e1), channel_id=2, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  t = f32[8] tanh(x)
  c = f32[8] all-reduce(t), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ROOT r = (f32[8], f32[8], f32[8]) tuple(a, b, c)
}
)",
                   AllReduceCombiner(/*max_bytes=*/1 << 20, /*max_count=*/2));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AllReduces(*m), (std::vector<std::string>{"(f32[8], f32[8])", "f32[8]"})) << m->ToString();
}

}  // namespace
}  // namespace fusebox::passes
