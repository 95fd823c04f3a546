// Tests of horizontal fusion: a training step's independent parameter updates become one
// multi-output loop fusion (one GPU launch); fusions that depend on each other, that hold
// ops with kernels of their own, or that are too big stay apart; merges that would make a
// cycle through another group are not made; and the GPU pipeline has the pass, the CPU's
// does not. Every module verifies and computes what it did.
#include "compiler/passes/horizontal_fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Fusions;
using testing_util::Parse;
using testing_util::RunPassAndCheck;

// Three SGD updates of weights of different shapes, each its own loop fusion (as the
// fusion pass leaves them), and a loss reduction beside them.
const char* kSgdStep = R"(HloModule sgd

sgd_a {
  p = f32[64,32] parameter(0)
  g = f32[64,32] parameter(1)
  lr = f32[] constant(0.01)
  b = f32[64,32] broadcast(lr), dimensions={}
  m = f32[64,32] multiply(b, g)
  ROOT s = f32[64,32] subtract(p, m)
}

sgd_b {
  p = f32[32] parameter(0)
  g = f32[32] parameter(1)
  lr = f32[] constant(0.01)
  b = f32[32] broadcast(lr), dimensions={}
  m = f32[32] multiply(b, g)
  ROOT s = f32[32] subtract(p, m)
}

adam_c {
  p = f32[32,10] parameter(0)
  g = f32[32,10] parameter(1)
  half = f32[] constant(0.5)
  b = f32[32,10] broadcast(half), dimensions={}
  m = f32[32,10] multiply(b, g)
  v = f32[32,10] multiply(m, m)
  s = f32[32,10] subtract(p, m)
  ROOT t = (f32[32,10], f32[32,10]) tuple(s, v)
}

ENTRY main {
  wa = f32[64,32] parameter(0)
  ga = f32[64,32] parameter(1)
  wb = f32[32] parameter(2)
  gb = f32[32] parameter(3)
  wc = f32[32,10] parameter(4)
  gc = f32[32,10] parameter(5)
  a = f32[64,32] fusion(wa, ga), kind=kLoop, calls=sgd_a
  b = f32[32] fusion(wb, gb), kind=kLoop, calls=sgd_b
  c = (f32[32,10], f32[32,10]) fusion(wc, gc), kind=kLoop, calls=adam_c
  c0 = f32[32,10] get-tuple-element(c), index=0
  c1 = f32[32,10] get-tuple-element(c), index=1
  ROOT out = (f32[64,32], f32[32], f32[32,10], f32[32,10]) tuple(a, b, c0, c1)
}
)";

int CountDecisions(const PassContext& context, bool fused, const std::string& text) {
  int n = 0;
  for (const FusionDecision& d : context.decisions()) {
    n += d.pass == "horizontal-fusion" && d.fused == fused && d.reason.find(text) != std::string::npos;
  }
  return n;
}

TEST(HorizontalFusionTest, IndependentUpdatesShareOneFusion) {
  std::unique_ptr<Module> module = Parse(kSgdStep);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 3);
  HorizontalFusion pass;
  PassContext context;
  std::unique_ptr<Module> before = module->Clone();
  auto changed = pass.Run(*module, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  testing_util::ExpectValidAfterFusion(before.get(), *module, /*run=*/true);
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kLoop);
  ASSERT_TRUE(fusions[0]->shape().IsTuple());
  EXPECT_EQ(fusions[0]->shape().tuple_size(), 4) << "a, b and c's two outputs";
  EXPECT_EQ(CountKernels(*module).kernels, 1);
  EXPECT_EQ(CountDecisions(context, true, "do not depend on each other"), 2);
}

TEST(HorizontalFusionTest, DependentFusionsStayApart) {
  // b reads a: one launch cannot run both.
  std::unique_ptr<Module> module = Parse(R"(HloModule chain

scale {
  x = f32[16] parameter(0)
  two = f32[] constant(2)
  b = f32[16] broadcast(two), dimensions={}
  ROOT m = f32[16] multiply(x, b)
}

shift {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  ROOT s = f32[16] subtract(x, y)
}

ENTRY main {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  a = f32[16] fusion(x), kind=kLoop, calls=scale
  s = f32[16] sine(a)
  b = f32[16] fusion(s, y), kind=kLoop, calls=shift
  ROOT out = (f32[16], f32[16]) tuple(a, b)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  PassContext context;
  auto changed = pass.Run(*module, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(Fusions(*module->entry()).size(), 2u);
  EXPECT_EQ(CountDecisions(context, false, "depends on %a"), 1);
}

TEST(HorizontalFusionTest, KernelsOfTheirOwnAndBigOnesStayApart) {
  // A transpose past 65536 elements (the tiled transpose kernel) and a fusion over more
  // than max_elements.
  std::unique_ptr<Module> module = Parse(R"(HloModule apart

flip {
  x = f32[512,256] parameter(0)
  ROOT t = f32[256,512] transpose(x), dimensions={1,0}
}

neg {
  x = f32[32,16] parameter(0)
  ROOT n = f32[32,16] negate(x)
}

big {
  x = f32[2048,1024] parameter(0)
  ROOT n = f32[2048,1024] negate(x)
}

ENTRY main {
  x = f32[32,16] parameter(0)
  z = f32[2048,1024] parameter(1)
  y = f32[512,256] parameter(2)
  t = f32[256,512] fusion(y), kind=kLoop, calls=flip
  n = f32[32,16] fusion(x), kind=kLoop, calls=neg
  g = f32[2048,1024] fusion(z), kind=kLoop, calls=big
  ROOT out = (f32[256,512], f32[32,16], f32[2048,1024]) tuple(t, n, g)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  EXPECT_FALSE(RunPassAndCheck(pass, *module, /*compare=*/false));
  EXPECT_EQ(Fusions(*module->entry()).size(), 3u);
}

// A weight gradient cuDNN wrote in its packed filter order (KRSC) is read back through a
// transpose inside the update's fusion: the loop emitter reads it elementally, so the
// update still joins the other updates' launch. (A fusion whose root is the transpose
// stays apart: KernelsOfTheirOwnAndBigOnesStayApart.)
TEST(HorizontalFusionTest, AnUpdateReadingATransposeJoins) {
  std::unique_ptr<Module> module = Parse(R"(HloModule packed

sgd_filter {
  w = f32[3,3,16,32] parameter(0)
  g = f32[32,3,3,16] parameter(1)
  t = f32[3,3,16,32] transpose(g), dimensions={1,2,3,0}
  lr = f32[] constant(0.01)
  b = f32[3,3,16,32] broadcast(lr), dimensions={}
  m = f32[3,3,16,32] multiply(b, t)
  ROOT s = f32[3,3,16,32] subtract(w, m)
}

sgd_bias {
  p = f32[32] parameter(0)
  g = f32[32] parameter(1)
  lr = f32[] constant(0.01)
  b = f32[32] broadcast(lr), dimensions={}
  m = f32[32] multiply(b, g)
  ROOT s = f32[32] subtract(p, m)
}

ENTRY main {
  w = f32[3,3,16,32] parameter(0)
  gw = f32[32,3,3,16] parameter(1)
  bias = f32[32] parameter(2)
  gb = f32[32] parameter(3)
  a = f32[3,3,16,32] fusion(w, gw), kind=kLoop, calls=sgd_filter
  c = f32[32] fusion(bias, gb), kind=kLoop, calls=sgd_bias
  ROOT out = (f32[3,3,16,32], f32[32]) tuple(a, c)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  EXPECT_TRUE(RunPassAndCheck(pass, *module));  // verifies and computes the same
  ASSERT_EQ(Fusions(*module->entry()).size(), 1u) << module->ToString();
  EXPECT_EQ(CountKernels(*module).kernels, 1);
}

// Weights packed for cuDNN (library_rewriters.h: each filter a transpose into KRSC before
// its calls): the small ones (at most 65536 elements) become loop fusions and share one
// launch; a large one keeps its tiled transpose, and so does a lone small one.
TEST(HorizontalFusionTest, SmallFilterTransposesShareALaunch) {
  std::unique_ptr<Module> module = Parse(R"(HloModule filters

ENTRY main {
  w1 = f32[3,3,3,16] parameter(0)
  w2 = f32[3,3,16,32] parameter(1)
  w3 = f32[3,3,128,128] parameter(2)
  t1 = f32[16,3,3,3] transpose(w1), dimensions={3,0,1,2}
  t2 = f32[32,3,3,16] transpose(w2), dimensions={3,0,1,2}
  t3 = f32[128,3,3,128] transpose(w3), dimensions={3,0,1,2}
  ROOT out = (f32[16,3,3,3], f32[32,3,3,16], f32[128,3,3,128]) tuple(t1, t2, t3)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 3);
  HorizontalFusion pass;
  EXPECT_TRUE(RunPassAndCheck(pass, *module));  // verifies and computes the same
  EXPECT_EQ(CountKernels(*module).kernels, 2) << module->ToString();
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  EXPECT_EQ(fusions[0]->shape().tuple_size(), 2) << "t1 and t2";
  int bare = 0;
  for (const auto& inst : module->entry()->instructions()) bare += inst->opcode() == Opcode::kTranspose;
  EXPECT_EQ(bare, 1) << "t3 (147456 elements) keeps its own kernel";
  // One small transpose alone stays bare.
  std::unique_ptr<Module> lone = Parse(R"(HloModule lone

ENTRY main {
  w1 = f32[3,3,3,16] parameter(0)
  ROOT t1 = f32[16,3,3,3] transpose(w1), dimensions={3,0,1,2}
}
)");
  ASSERT_NE(lone, nullptr);
  EXPECT_FALSE(RunPassAndCheck(pass, *lone));
  EXPECT_TRUE(Fusions(*lone->entry()).empty());
}

// A small row reduction (a loss over a batch of 128) joins the updates' group: the GPU
// runs its reduction and their loops in one launch. A second small one does not join the
// same group (one reduction a launch), a long one (which the GPU splits into two launches)
// and a column reduction stay apart.
TEST(HorizontalFusionTest, ASmallRowReductionJoinsTheLoops) {
  std::unique_ptr<Module> module = Parse(R"(HloModule losses

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

loss {
  x = f32[128] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add_f32
  c = f32[] constant(-0.0078125)
  ROOT l = f32[] multiply(r, c)
}

loss2 {
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(x, z), dimensions={1}, to_apply=add_f32
}

long {
  x = f32[20000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add_f32
}

columns {
  x = f32[16,8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(x, z), dimensions={0}, to_apply=add_f32
}

update {
  p = f32[784,10] parameter(0)
  g = f32[784,10] parameter(1)
  ROOT s = f32[784,10] subtract(p, g)
}

ENTRY main {
  x = f32[128] parameter(0)
  x2 = f32[8,16] parameter(1)
  xl = f32[20000] parameter(2)
  xc = f32[16,8] parameter(3)
  p = f32[784,10] parameter(4)
  g = f32[784,10] parameter(5)
  l = f32[] fusion(x), kind=kInput, calls=loss
  l2 = f32[8] fusion(x2), kind=kInput, calls=loss2
  ll = f32[] fusion(xl), kind=kInput, calls=long
  lc = f32[8] fusion(xc), kind=kInput, calls=columns
  u = f32[784,10] fusion(p, g), kind=kLoop, calls=update
  ROOT out = (f32[], f32[8], f32[], f32[8], f32[784,10]) tuple(l, l2, ll, lc, u)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  PassContext context;
  std::unique_ptr<Module> before = module->Clone();
  auto changed = pass.Run(*module, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  testing_util::ExpectValidAfterFusion(before.get(), *module, /*run=*/true);
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 4u) << module->ToString();
  int merged = 0;
  for (const Instruction* f : fusions) {
    if (!f->shape().IsTuple()) continue;
    ++merged;
    EXPECT_EQ(f->fusion_kind(), FusionKind::kInput);
    int reduces = 0;
    for (const auto& i : f->fused_computation()->instructions()) reduces += i->opcode() == Opcode::kReduce;
    EXPECT_EQ(reduces, 1) << module->ToString();
  }
  EXPECT_EQ(merged, 1) << module->ToString();
  EXPECT_EQ(CountDecisions(context, true, "one a small reduction"), 1);
}

TEST(HorizontalFusionTest, AMergeThatWouldMakeACycleWithAnotherIsNotMade) {
  // a1 and b2 (600000 elements each) are too big to share a group; a2 and b1 are small.
  // The groups made at first are {a1, a2} and {b2, b1}: each pair is independent, but b1
  // reads a1 and a2 reads b2, so once {a1, a2} is one fusion, b1 reads b2 through it and
  // the second merge would make each merged fusion read the other. Groups are made again
  // after each merge, and the second one is not made.
  std::unique_ptr<Module> module = Parse(R"(HloModule crossed

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

neg_big {
  x = f32[600,1000] parameter(0)
  ROOT n = f32[600,1000] negate(x)
}

neg_small {
  x = f32[600] parameter(0)
  ROOT n = f32[600] negate(x)
}

ENTRY main {
  x = f32[600,1000] parameter(0)
  y = f32[600,1000] parameter(1)
  zero = f32[] constant(0)
  a1 = f32[600,1000] fusion(x), kind=kLoop, calls=neg_big
  b2 = f32[600,1000] fusion(y), kind=kLoop, calls=neg_big
  ra = f32[600] reduce(a1, zero), dimensions={1}, to_apply=add
  rb = f32[600] reduce(b2, zero), dimensions={1}, to_apply=add
  b1 = f32[600] fusion(ra), kind=kLoop, calls=neg_small
  a2 = f32[600] fusion(rb), kind=kLoop, calls=neg_small
  ROOT out = (f32[600,1000], f32[600], f32[600], f32[600,1000]) tuple(a1, a2, b1, b2)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  EXPECT_TRUE(RunPassAndCheck(pass, *module));  // verifies (no cycle) and computes the same
  EXPECT_EQ(Fusions(*module->entry()).size(), 3u) << module->ToString();
}

TEST(HorizontalFusionTest, TinyChainsAreOneLaunch) {
  // A step counter (step + 1 and its f32, one multi-output fusion), then Adam's bias
  // correction 1 / (1 - 0.9^t) from it: two one-thread launches, one after the pass, with
  // step + 1 still an output for its other users. The update (64 elements) reads them both
  // and stays apart.
  std::unique_ptr<Module> module = Parse(R"(HloModule adam_scalars

count {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  n = s32[] add(s, one)
  t = f32[] convert(n)
  ROOT r = (s32[], f32[]) tuple(n, t)
}

correct {
  n = s32[] parameter(0)
  t = f32[] convert(n)
  b = f32[] constant(0.9)
  p = f32[] power(b, t)
  one = f32[] constant(1)
  d = f32[] subtract(one, p)
  ROOT r = f32[] divide(one, d)
}

update {
  w = f32[64] parameter(0)
  g = f32[64] parameter(1)
  c = f32[] parameter(2)
  cb = f32[64] broadcast(c), dimensions={}
  m = f32[64] multiply(g, cb)
  ROOT s = f32[64] subtract(w, m)
}

ENTRY main {
  step = s32[] parameter(0)
  w = f32[64] parameter(1)
  g = f32[64] parameter(2)
  k = (s32[], f32[]) fusion(step), kind=kLoop, calls=count
  n = s32[] get-tuple-element(k), index=0
  t = f32[] get-tuple-element(k), index=1
  c = f32[] fusion(n), kind=kLoop, calls=correct
  u = f32[64] fusion(w, g, c), kind=kLoop, calls=update
  ROOT out = (s32[], f32[], f32[64]) tuple(n, t, u)
}
)");
  ASSERT_NE(module, nullptr);
  HorizontalFusion pass;
  PassContext context;
  std::unique_ptr<Module> before = module->Clone();
  auto changed = pass.Run(*module, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  testing_util::ExpectValidAfterFusion(before.get(), *module, /*run=*/true);
  EXPECT_EQ(Fusions(*module->entry()).size(), 2u) << module->ToString();
  EXPECT_EQ(CountDecisions(context, true, "tiny loop fusions"), 1);
}

TEST(HorizontalFusionTest, OnlyTheGpuPipelineHasIt) {
  auto has = [](const Pipeline& p) {
    for (const std::string& name : p.PassNames()) {
      if (name == "horizontal-fusion") return true;
    }
    return false;
  };
  EXPECT_FALSE(has(MakeOptimizationPipeline(nullptr, /*gpu_libraries=*/false)));
  EXPECT_TRUE(has(MakeOptimizationPipeline(nullptr, /*gpu_libraries=*/true)));
  // The unfused GPU module keeps one kernel per op.
  std::unique_ptr<Module> module = Parse(kSgdStep);
  ASSERT_NE(module, nullptr);
  auto unfused = OptimizeForBackend(*module, /*fused=*/false, /*gpu_libraries=*/true);
  ASSERT_TRUE(unfused.ok()) << unfused.status().message();
  EXPECT_EQ(Fusions(*(*unfused)->entry()).size(), 3u);
}

}  // namespace
}  // namespace fusebox::passes
