// Interpreter core: parameters, constants, tuples, control flow, calls and fusions,
// single-replica collectives, rng, and the errors for what it cannot run. Expected values
// are worked out by hand.
#include "compiler/interpreter/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

Literal F32(std::vector<int64_t> dims, std::vector<double> values) {
  Literal l(Shape(PrimitiveType::kF32, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal S32(int64_t v) {
  Literal l(Shape::Scalar(PrimitiveType::kS32));
  l.SetInt64(0, v);
  return l;
}

TEST(InterpreterTest, ParametersConstantsAndTuples) {
  auto m = Parse(R"(
HloModule t
ENTRY e {
  p = f32[2] parameter(0)
  c = s32[] constant(7)
  t = (f32[2], s32[]) tuple(p, c)
  ROOT g = s32[] get-tuple-element(t), index=1
}
)");
  auto r = Interpreter().Run(*m, {F32({2}, {1, 2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetInt64(0), 7);
}

TEST(InterpreterTest, WhileLoopCountsToTen) {
  auto m = Parse(R"(
HloModule w
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  acc2 = s32[] add(acc, i)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
ENTRY e {
  z = s32[] constant(0)
  init = (s32[], s32[]) tuple(z, z)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT sum = s32[] get-tuple-element(w), index=1
}
)");
  auto r = Interpreter().Run(*m, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetInt64(0), 45);  // 0 + 1 + ... + 9
}

TEST(InterpreterTest, WhileLoopIterationLimitIsAClearError) {
  auto m = Parse(R"(
HloModule forever
cond { s = s32[] parameter(0)  ROOT t = pred[] constant(true) }
body { ROOT s = s32[] parameter(0) }
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
}
)");
  InterpreterOptions opts;
  opts.max_while_iterations = 100;
  auto r = Interpreter(opts).Run(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("did not finish within 100 iterations"));
  EXPECT_THAT(r.status().message(), HasSubstr("%w (while)"));
}

TEST(InterpreterTest, ConditionalByPredAndByIndex) {
  auto m = Parse(R"(
HloModule c
neg { x = f32[] parameter(0)  ROOT n = f32[] negate(x) }
ident { ROOT x = f32[] parameter(0) }
twice { x = f32[] parameter(0)  ROOT d = f32[] add(x, x) }
ENTRY e {
  p = pred[] parameter(0)
  k = s32[] parameter(1)
  x = f32[] parameter(2)
  a = f32[] conditional(p, x, x), true_computation=neg, false_computation=ident
  ROOT b = f32[] conditional(k, a, a, a), branch_computations={ident, neg, twice}
}
)");
  auto run = [&](bool pred, int64_t index, double x) {
    Literal p(Shape::Scalar(PrimitiveType::kPred));
    p.SetBool(0, pred);
    Literal xs(Shape::Scalar(PrimitiveType::kF32));
    xs.SetDouble(0, x);
    auto r = Interpreter().Run(*m, {p, S32(index), xs});
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? r->GetDouble(0) : 0.0;
  };
  EXPECT_EQ(run(true, 0, 3), -3);    // neg, then ident
  EXPECT_EQ(run(false, 1, 3), -3);   // ident, then neg
  EXPECT_EQ(run(false, 2, 3), 6);    // ident, then twice
  EXPECT_EQ(run(false, 7, 3), 6);    // out of range: the last branch
  EXPECT_EQ(run(false, -1, 3), 6);   // negative: the last branch
}

TEST(InterpreterTest, CallAndFusionEvaluateTheirComputations) {
  auto m = Parse(R"(
HloModule f
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  m = f32[3] multiply(a, b)
  ROOT s = f32[3] add(m, a)
}
sq { x = f32[3] parameter(0)  ROOT y = f32[3] multiply(x, x) }
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  f = f32[3] fusion(x, y), kind=kLoop, calls=fused
  ROOT c = f32[3] call(f), to_apply=sq
}
)");
  auto r = Interpreter().Run(*m, {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  // (x*y + x)^2 = (4+1, 10+2, 18+3)^2
  EXPECT_EQ(r->GetDouble(0), 25);
  EXPECT_EQ(r->GetDouble(1), 144);
  EXPECT_EQ(r->GetDouble(2), 441);
}

TEST(InterpreterTest, SingleReplicaCollectivesAndIds) {
  auto m = Parse(R"(
HloModule coll
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  p = f32[2] parameter(0)
  ar = f32[2] all-reduce(p), replica_groups={{0}}, to_apply=add
  ag = f32[2] all-gather(ar), dimensions={0}, replica_groups={{0}}
  cp = f32[2] collective-permute(ag), source_target_pairs={{0,0}}
  none = f32[2] collective-permute(ag), source_target_pairs={{0,1}}
  r = u32[] replica-id()
  pid = u32[] partition-id()
  ROOT t = (f32[2], f32[2], u32[], u32[]) tuple(cp, none, r, pid)
}
)");
  InterpreterOptions opts;
  opts.partition_id = 3;
  auto r = Interpreter(opts).Run(*m, {F32({2}, {1.5, -2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuple_elements()[0].GetDouble(1), -2);
  EXPECT_EQ(r->tuple_elements()[1].GetDouble(0), 0);  // nobody sends to replica 0
  EXPECT_EQ(r->tuple_elements()[2].GetUint64(0), 0u);
  EXPECT_EQ(r->tuple_elements()[3].GetUint64(0), 3u);
}

TEST(InterpreterTest, RngIsDeterministicPerSeedAndInRange) {
  auto m = Parse(R"(
HloModule rng
ENTRY e {
  lo = f32[] constant(2)
  hi = f32[] constant(3)
  ROOT r = f32[1000] rng(lo, hi), distribution=rng_uniform
}
)");
  InterpreterOptions a, b;
  a.rng_seed = b.rng_seed = 7;
  auto r1 = Interpreter(a).Run(*m, {});
  auto r2 = Interpreter(b).Run(*m, {});
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(*r1, *r2);
  for (int64_t i = 0; i < 1000; ++i) {
    EXPECT_GE(r1->GetDouble(i), 2.0);
    EXPECT_LT(r1->GetDouble(i), 3.0);
  }
  InterpreterOptions c;
  c.rng_seed = 8;
  EXPECT_NE(*Interpreter(c).Run(*m, {}), *r1);
}

TEST(InterpreterTest, RngBitGeneratorAdvancesItsState) {
  auto m = Parse(R"(
HloModule rbg
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u32[8]) rng-bit-generator(s), algorithm=rng_philox
}
)");
  Literal state(Shape(PrimitiveType::kU64, {2}));
  state.SetUint64(0, 1234);
  auto r = Interpreter().Run(*m, {state});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->tuple_elements()[0], state);
  const Literal& bits = r->tuple_elements()[1];
  bool any_differ = false;
  for (int64_t i = 1; i < 8; ++i) any_differ |= bits.GetUint64(i) != bits.GetUint64(0);
  EXPECT_TRUE(any_differ);
}

TEST(InterpreterTest, WrongArgumentsAreClearErrors) {
  auto m = Parse("HloModule a\nENTRY e { ROOT p = f32[2,3] parameter(0) }\n");
  auto none = Interpreter().Run(*m, {});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("takes 1 argument(s) but 0 were given"));
  auto shape = Interpreter().Run(*m, {F32({3, 2}, {})});
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("argument 0 is f32[3,2] but parameter %p"));
}

TEST(InterpreterTest, UnsupportedThingsNameTheInstructionAndLine) {
  ParseOptions popts;
  popts.filename = "model.hlo";
  auto m = ParseModule(
      "HloModule u\nENTRY e {\n  p = f32[2] parameter(0)\n"
      "  ROOT c = f32[2] custom-call(p), custom_call_target=\"my_kernel\"\n}\n",
      popts);
  ASSERT_TRUE(m.ok());
  auto r = Interpreter().Run(**m, {F32({2}, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("model.hlo:4:8: %c (custom-call)"));
  EXPECT_THAT(r.status().message(), HasSubstr("\"my_kernel\" is not supported"));

  auto elided = ParseModule("HloModule c\nENTRY e {\n  ROOT k = f32[4] constant({...})\n}\n", popts);
  ASSERT_TRUE(elided.ok());
  auto r2 = Interpreter().Run(**elided, {});
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.status().message(), HasSubstr("model.hlo:3:8: %k (constant)"));
  EXPECT_THAT(r2.status().message(), HasSubstr("elided"));
}

TEST(InterpreterTest, IdentityCustomCallsPassValuesThrough) {
  auto m = Parse(R"(
HloModule s
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(p), custom_call_target="Sharding", sharding={replicated}
}
)");
  auto r = Interpreter().Run(*m, {F32({2}, {4, 5})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetDouble(1), 5);
}

TEST(InterpreterTest, CancellationStopsEvaluation) {
  auto m = Parse("HloModule a\nENTRY e { p = f32[2] parameter(0)  ROOT n = f32[2] negate(p) }\n");
  std::atomic<bool> cancel{true};
  InterpreterOptions opts;
  opts.cancel = &cancel;
  auto r = Interpreter(opts).Run(*m, {F32({2}, {1, 2})});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cancelled"));
}

}  // namespace
}  // namespace fusebox::interpreter
