// Interpreter core: parameters, constants, tuples, control flow, calls and fusions,
// single-replica collectives, rng, and the errors for what it cannot run. Expected values
// are worked out by hand.
#include "compiler/interpreter/interpreter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/interpreter/random_inputs.h"
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
  ags = (f32[2], f32[2]) all-gather-start(p), dimensions={0}, replica_groups={{0}}
  agd = f32[2] all-gather-done(ags)
  ars = f32[2] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[2] all-reduce-done(ars)
  ROOT t = (f32[2], f32[2], u32[], u32[], f32[2], f32[2]) tuple(cp, none, r, pid, agd, ard)
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
  // The asynchronous forms, an all-gather-start's (operand, result) tuple too.
  EXPECT_EQ(r->tuple_elements()[4].GetDouble(1), -2);
  EXPECT_EQ(r->tuple_elements()[5].GetDouble(0), 1.5);
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

// Reducers, comparators, combiners and mapped computations of scalars run as programs of
// scalars (InterpreterOptions::scalar_programs): the same bits, counters and hook calls as
// the general path, on every op that calls a computation per element.
const char* kCallsPerElement = R"(
HloModule calls_per_element

argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  ge = pred[] compare(v0, v1), direction=GE
  minus_one = s32[] constant(-1)
  valid = pred[] compare(i0, minus_one), direction=NE
  keep = pred[] and(ge, valid)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}

swap_halves {
  a0 = bf16[] parameter(0)
  a1 = bf16[] parameter(1)
  b0 = bf16[] parameter(2)
  b1 = bf16[] parameter(3)
  ROOT t = (bf16[], bf16[]) tuple(b1, a0)
}

sum_of_squares {
  acc = bf16[] parameter(0)
  x = bf16[] parameter(1)
  sq = bf16[] multiply(x, x)
  ROOT s = bf16[] add(acc, sq)
}

by_key_then_value {
  k0 = s32[] parameter(0)
  k1 = s32[] parameter(1)
  v0 = f32[] parameter(2)
  v1 = f32[] parameter(3)
  lt = pred[] compare(k0, k1), direction=LT
  eq = pred[] compare(k0, k1), direction=EQ
  vlt = pred[] compare(v0, v1), direction=LT, type=TOTALORDER
  tie = pred[] and(eq, vlt)
  ROOT less = pred[] or(lt, tie)
}

keep_larger_magnitude {
  old = f32[] parameter(0)
  new = f32[] parameter(1)
  ao = f32[] abs(old)
  an = f32[] abs(new)
  gt = pred[] compare(an, ao), direction=GT
  ROOT r = f32[] select(gt, new, old)
}

not_less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  lt = pred[] compare(a, b), direction=LT
  ROOT n = pred[] not(lt)
}

add_halved {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  half = f32[] constant(0.5)
  hb = f32[] multiply(b, half)
  ROOT s = f32[] add(a, hb)
}

scaled_round {
  x = f32[] parameter(0)
  k = f32[] constant(3.7)
  y = f32[] multiply(x, k)
  ROOT r = s32[] convert(y)
}

ENTRY e {
  x = f32[4,6,6,3] parameter(0)
  ix = s32[4,6,6,3] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  none = s32[] constant(-1)
  rw = (f32[4,3,3,3], s32[4,3,3,3]) reduce-window(x, ix, ninf, none), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=argmax
  rw0 = f32[4,3,3,3] get-tuple-element(rw), index=0
  rw1 = s32[4,3,3,3] get-tuple-element(rw), index=1
  h = bf16[16,24] parameter(1)
  g = bf16[16,24] parameter(2)
  z = bf16[] constant(0)
  one = bf16[] constant(1)
  sw = (bf16[16], bf16[16]) reduce(h, g, z, one), dimensions={1}, to_apply=swap_halves
  ss = bf16[24] reduce(h, z), dimensions={0}, to_apply=sum_of_squares
  keys = s32[64] parameter(3)
  vals = f32[64] parameter(4)
  sorted = (s32[64], f32[64]) sort(keys, vals), dimensions={0}, to_apply=by_key_then_value
  base = f32[8,5] parameter(5)
  idx = s32[6,1] parameter(6)
  upd = f32[6,5] parameter(7)
  sc = f32[8,5] scatter(base, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=keep_larger_magnitude
  src = f32[4,3,3,3] parameter(8)
  zero = f32[] constant(0)
  sas = f32[4,6,6,3] select-and-scatter(x, src, zero), window={size=1x2x2x1 stride=1x2x2x1}, select=not_less, scatter=add_halved
  mp = s32[4,6,6,3] map(x), dimensions={0,1,2,3}, to_apply=scaled_round
  ROOT out = (f32[4,3,3,3], s32[4,3,3,3], (bf16[16], bf16[16]), bf16[24], (s32[64], f32[64]), f32[8,5], f32[4,6,6,3], s32[4,6,6,3]) tuple(rw0, rw1, sw, ss, sorted, sc, sas, mp)
}
)";

struct RunRecord {
  StatusOr<Literal> result = Literal();
  InterpreterStats stats;
  std::map<std::string, int64_t> hook_calls;  // per instruction name
};

RunRecord RunWith(const Module& module, const std::vector<Literal>& args, bool scalar_programs,
                  int64_t max_instructions = 0) {
  RunRecord record;
  InterpreterOptions options;
  options.scalar_programs = scalar_programs;
  options.max_instructions = max_instructions;
  options.on_result = [&record](const Instruction& inst, Literal&) { ++record.hook_calls[inst.name()]; };
  Interpreter interpreter(options);
  record.result = interpreter.Run(module, args);
  record.stats = interpreter.stats();
  return record;
}

TEST(InterpreterTest, ScalarProgramsGiveTheGeneralPathsBitsCountersAndHookCalls) {
  auto m = Parse(kCallsPerElement);
  ASSERT_NE(m, nullptr);
  auto args = RandomArguments(*m, 7);
  ASSERT_TRUE(args.ok()) << args.status().message();
  // Ties in the keys, so that the comparator's second key decides some pairs.
  for (int64_t i = 0; i < 64; ++i) (*args)[3].SetInt64(i, i % 5);
  RunRecord fast = RunWith(*m, *args, true);
  RunRecord general = RunWith(*m, *args, false);
  ASSERT_TRUE(fast.result.ok()) << fast.result.status().message();
  ASSERT_TRUE(general.result.ok()) << general.result.status().message();
  EXPECT_TRUE(*fast.result == *general.result);
  for (size_t i = 0; i < general.result->tuple_elements().size(); ++i) {
    EXPECT_TRUE(fast.result->tuple_elements()[i] == general.result->tuple_elements()[i]) << "output " << i;
  }
  EXPECT_EQ(fast.stats.instructions_evaluated, general.stats.instructions_evaluated);
  EXPECT_EQ(fast.stats.elements_produced, general.stats.elements_produced);
  EXPECT_EQ(fast.hook_calls, general.hook_calls);
  EXPECT_GT(fast.stats.scalar_program_calls, 1000);
  EXPECT_EQ(general.stats.scalar_program_calls, 0);
  // The swapped reducer's outputs are its arguments: a result that aliased them would be
  // overwritten by the next step's arguments. Checked by hand on row 0: b1 of the last
  // column (g[0][23]) comes out first, a0 (the previous step's b1) second.
  const Literal& swapped = fast.result->tuple_elements()[2];
  EXPECT_EQ(swapped.tuple_elements()[0].GetDouble(0), (*args)[2].GetDouble(23));
  EXPECT_EQ(swapped.tuple_elements()[1].GetDouble(0), (*args)[2].GetDouble(22));
}

TEST(InterpreterTest, ScalarProgramsStopAtTheSameWorkLimitWithTheSameMessage) {
  auto m = Parse(kCallsPerElement);
  ASSERT_NE(m, nullptr);
  auto args = RandomArguments(*m, 7);
  ASSERT_TRUE(args.ok()) << args.status().message();
  // The whole run evaluates 15,064 instructions: each limit stops it, in the entry or in
  // a reducer, comparator or combiner.
  for (int64_t limit : {int64_t{40}, int64_t{5000}, int64_t{12000}}) {
    RunRecord fast = RunWith(*m, *args, true, limit);
    RunRecord general = RunWith(*m, *args, false, limit);
    ASSERT_FALSE(fast.result.ok()) << limit;
    ASSERT_FALSE(general.result.ok());
    EXPECT_EQ(fast.result.status().message(), general.result.status().message());
    EXPECT_THAT(fast.result.status().message(), HasSubstr("work limit reached"));
    EXPECT_EQ(fast.stats.instructions_evaluated, general.stats.instructions_evaluated);
    EXPECT_EQ(fast.hook_calls, general.hook_calls);
  }
}

TEST(InterpreterTest, ComputationsNotOfScalarsRunTheGeneralWay) {
  // A reducer that calls another computation is not a program of scalars.
  auto m = Parse(R"(
HloModule nested
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
calls_add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] call(a, b), to_apply=add
}
ENTRY e {
  p = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3] reduce(p, z), dimensions={1}, to_apply=calls_add
}
)");
  ASSERT_NE(m, nullptr);
  Literal p = F32({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Interpreter interpreter;
  auto r = interpreter.Run(*m, {p});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetDouble(0), 10);
  EXPECT_EQ(r->GetDouble(2), 42);
  // The inner `add` is one: it runs as a program, called from the general path.
  EXPECT_EQ(interpreter.stats().scalar_program_calls, 12);
}

}  // namespace
}  // namespace fusebox::interpreter
