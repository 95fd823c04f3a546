// The sharding-remover pass: annotation custom calls (jax's with_sharding_constraint,
// sharded keys, host offloading) become the values they annotate; one whose shape is not
// its operand's stays. End to end, jax's own module of a sharding constraint on a
// one-device mesh then compiles and runs on the CPU backend.
#include "compiler/passes/sharding_remover.h"

#include <gtest/gtest.h>

#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::ExpectBitIdenticalResult;
using testing_util::Parse;

int64_t CustomCalls(const Module& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += inst->opcode() == Opcode::kCustomCall;
  }
  return n;
}

// jax 0.10.2's HLO of
//   jax.jit(lambda x: jax.lax.with_sharding_constraint(x * 2, NamedSharding(mesh, P("x"))) + 1)
// with a mesh of one CPU device.
constexpr char kJaxConstraint[] = R"(HloModule jit_f, entry_computation_layout={(f32[8,4]{1,0})->f32[8,4]{1,0}}, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=1]>}}
ENTRY main.1 {
  x.1 = f32[8,4]{1,0} parameter(0)
  constant.3 = f32[] constant(2)
  mul.2 = f32[8,4]{1,0} broadcast(constant.3), dimensions={}
  mul.3 = f32[8,4]{1,0} multiply(x.1, mul.2)
  sharding_constraint.1 = f32[8,4]{1,0} custom-call(mul.3), custom_call_target="Sharding", sharding={replicated}, frontend_attributes={xla.sdy.sharding="#sdy.sharding_per_value<[<@mesh, [{\"x\"}, {}]>]>"}
  constant.2 = f32[] constant(1)
  add.2 = f32[8,4]{1,0} broadcast(constant.2), dimensions={}
  ROOT add.3 = f32[8,4]{1,0} add(sharding_constraint.1, add.2)
}
)";

TEST(ShardingRemoverTest, AnnotationsBecomeTheirValues) {
  auto before = Parse(R"(HloModule m
ENTRY e {
  x = f32[8,4] parameter(0)
  s = f32[8,4] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  h = f32[8,4] custom-call(s), custom_call_target="MoveToHost"
  d = f32[8,4] custom-call(h), custom_call_target="MoveToDevice"
  c = f32[8,4] custom-call(d), custom_call_target="xla.sdy.ShardingConstraint"
  ROOT a = f32[8,4] add(c, s)
})");
  ASSERT_NE(before, nullptr);
  auto after = before->Clone();
  PassContext context;
  auto changed = ShardingRemover().Run(*after, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CustomCalls(*after), 0) << after->ToString();
  EXPECT_TRUE(ExpectBitIdenticalResult(*before, *after));
  EXPECT_FALSE(*ShardingRemover().Run(*after, context));  // nothing left
}

TEST(ShardingRemoverTest, OtherCustomCallsAndShapeChangesStay) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[8,4] parameter(0)
  shard = f32[4,4] custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
  mine = f32[8,4] custom-call(x), custom_call_target="my_kernel"
  ROOT t = (f32[4,4], f32[8,4]) tuple(shard, mine)
})");
  ASSERT_NE(module, nullptr);
  PassContext context;
  auto changed = ShardingRemover().Run(*module, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(CustomCalls(*module), 2);
}

TEST(ShardingRemoverTest, JaxsConstraintOnOneDeviceLeavesNoCustomCall) {
  auto module = Parse(kJaxConstraint);
  ASSERT_NE(module, nullptr);
  for (bool gpu : {false, true}) {
    auto optimized = OptimizeForBackend(*module, true, gpu);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    EXPECT_EQ(CustomCalls(**optimized), 0) << (*optimized)->ToString();
    EXPECT_TRUE(ExpectBitIdenticalResult(*module, **optimized));
  }
}

}  // namespace
}  // namespace fusebox::passes
