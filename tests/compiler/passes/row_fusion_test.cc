// Tests of row fusion: softmax and layer norm become one kernel whose reductions run once
// per row; the row plan (reduces in order, values kept in row buffers); the refusals (a
// reduce read at another row's position, a producer with other users, a dot in the way);
// and modules that verify, round-trip and compute the same after the passes.
#include "compiler/passes/row_fusion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/passes/instruction_fusion.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/multi_output_fusion.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/passes/pass_test_util.h"
#include "tests/compiler/row_kernel_modules.h"

namespace fusebox::passes {
namespace {

using testing_util::Fusions;
using testing_util::LayerNormEntry;
using testing_util::Parse;
using testing_util::RowKernelModule;
using testing_util::SoftmaxEntry;

std::string WithReducers(const std::string& name, const std::string& entry) {
  return RowKernelModule(name, "f32", "ENTRY main {\n" + entry + "}\n");
}

std::string Softmax(int rows, int n) { return RowKernelModule("softmax", "f32", SoftmaxEntry("f32", rows, n)); }

// Layer norm over the last dimension of f32[4, 6, 64] (two row dimensions).
const std::string kLayerNorm = RowKernelModule("layer_norm", "f32", LayerNormEntry("f32", {4, 6, 64}));

// The optimization pipeline on `text`; checks the result verifies and computes what the
// input did (reference interpreter, random inputs).
// `gpu`: the GPU pipeline (libraries on), whose row fusion also makes row kernels with
// outputs of one value per row.
std::unique_ptr<Module> Optimize(const std::string& text, PassContext* context = nullptr, bool gpu = false) {
  std::unique_ptr<Module> module = Parse(text);
  EXPECT_NE(module, nullptr);
  if (module == nullptr) return nullptr;
  std::unique_ptr<Module> original = module->Clone();
  PipelineOptions options;
  PassContext local;
  PipelineResult result;
  Status st = MakeOptimizationPipeline(nullptr, gpu).Run(*module, options, context != nullptr ? *context : local, &result);
  EXPECT_TRUE(st.ok()) << st.message();
  testing_util::ExpectValidAfterFusion(original.get(), *module, /*run=*/true);
  return module;
}

const FusionDecision* RowDecision(const PassContext& context, bool fused, const std::string& text) {
  for (const FusionDecision& d : context.decisions()) {
    if (d.pass == "row-fusion" && d.fused == fused && d.reason.find(text) != std::string::npos) return &d;
  }
  return nullptr;
}

TEST(RowFusionTest, SoftmaxBecomesOneKernelKeepingExpInARowBuffer) {
  PassContext context;
  std::unique_ptr<Module> module = Optimize(Softmax(16, 128), &context);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 1);
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 1u);
  std::optional<RowPlan> plan = PlanRowKernel(*fusions[0]);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->row_rank, 1);
  EXPECT_EQ(plan->rows, 16);
  EXPECT_EQ(plan->row_length, 128);
  ASSERT_EQ(plan->reduces.size(), 2u);
  EXPECT_EQ(plan->reduces[0]->name(), "max");  // the max feeds the sum's operand: first
  EXPECT_EQ(plan->reduces[1]->name(), "sum");
  // exp is computed in the sum's loop and read again by the division: kept per row.
  ASSERT_EQ(plan->materialized.size(), 1u);
  EXPECT_EQ(plan->materialized[0].value->opcode(), Opcode::kExp);
  EXPECT_EQ(plan->materialized[0].pass, 1);
  EXPECT_NE(RowDecision(context, true, "computed once per row"), nullptr);
}

TEST(RowFusionTest, LayerNormWithTwoRowDimensions) {
  PassContext context;
  std::unique_ptr<Module> module = Optimize(kLayerNorm, &context);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 1);
  std::optional<RowPlan> plan = PlanRowKernel(*Fusions(*module->entry())[0]);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->row_rank, 2);
  EXPECT_EQ(plan->rows, 24);
  EXPECT_EQ(plan->row_length, 64);
  ASSERT_EQ(plan->reduces.size(), 2u);
  EXPECT_EQ(plan->reduces[0]->name(), "sum");
  EXPECT_EQ(plan->reduces[1]->name(), "sumsq");
  EXPECT_TRUE(plan->materialized.empty());  // centered is cheap: computed again
}

TEST(RowFusionTest, UnfusedPipelineKeepsOneKernelPerOp) {
  std::unique_ptr<Module> module = Parse(Softmax(8, 32));
  ASSERT_NE(module, nullptr);
  auto unfused = OptimizeForBackend(*module, /*fused=*/false);
  ASSERT_TRUE(unfused.ok()) << unfused.status().message();
  EXPECT_GT(CountKernels(**unfused).kernels, 3);
  for (const std::string& pass : FusionPassNames()) {
    if (pass == "row-fusion") return;
  }
  ADD_FAILURE() << "row-fusion is not among the fusion passes";
}

TEST(RowFusionTest, ReduceReadAtAnotherPositionIsNotARowKernel) {
  // The row sums are broadcast along dimension 1: element (i, j) reads sum[j], another
  // row's value. Fusing would need every row's sum at once.
  PassContext context;
  std::unique_ptr<Module> module = Optimize(WithReducers("transposed", R"(
  x = f32[32,32] parameter(0)
  zero = f32[] constant(0)
  sum = f32[32] reduce(x, zero), dimensions={1}, to_apply=add_f32
  bsum = f32[32,32] broadcast(sum), dimensions={1}
  ROOT out = f32[32,32] divide(x, bsum)
)"), &context);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 2);
  const FusionDecision* d = RowDecision(context, false, "read at more than its own row");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("not a row kernel"), std::string::npos) << d->reason;
}

TEST(RowFusionTest, ProducerWithOtherUsersStays) {
  // The row max is also a result of the module: fusing it would compute it twice.
  PassContext context;
  std::unique_ptr<Module> module = Optimize(WithReducers("shared", R"(
  x = f32[16,64] parameter(0)
  ninf = f32[] constant(-inf)
  max = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmax = f32[16,64] broadcast(max), dimensions={0}
  shifted = f32[16,64] subtract(x, bmax)
  ROOT out = (f32[16,64], f32[16]) tuple(shifted, max)
)"), &context);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 2);
  EXPECT_NE(RowDecision(context, false, "users besides the consumer"), nullptr);
}

TEST(RowFusionTest, ColumnReductionIsNotARowKernel) {
  // A reduce over the leading dimension: its operand's trailing dimension is kept.
  PassContext context;
  std::unique_ptr<Module> module = Optimize(WithReducers("columns", R"(
  x = f32[64,32] parameter(0)
  zero = f32[] constant(0)
  sum = f32[32] reduce(x, zero), dimensions={0}, to_apply=add_f32
  bsum = f32[64,32] broadcast(sum), dimensions={1}
  ROOT out = f32[64,32] subtract(x, bsum)
)"), &context);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 2);
  EXPECT_EQ(RowDecision(context, true, ""), nullptr);
}

TEST(RowFusionTest, OneRowIsNotWorthARowKernel) {
  std::unique_ptr<Module> module = Optimize(Softmax(1, 256));
  ASSERT_NE(module, nullptr);
  EXPECT_GT(CountKernels(*module).kernels, 1);
}

TEST(RowFusionTest, PlanRefusesOpsOutsideRowKernels) {
  // A dot between the reduction and the output: not an op a row kernel computes.
  std::unique_ptr<Module> module = Parse(WithReducers("with_dot", R"(
  x = f32[8,16] parameter(0)
  w = f32[16,16] parameter(1)
  zero = f32[] constant(0)
  sum = f32[8] reduce(x, zero), dimensions={1}, to_apply=add_f32
  bsum = f32[8,16] broadcast(sum), dimensions={0}
  y = f32[8,16] subtract(x, bsum)
  ROOT d = f32[8,16] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)"));
  ASSERT_NE(module, nullptr);
  std::string why;
  std::optional<RowPlan> plan = PlanRowKernel({module->entry()->root()}, nullptr, &why);
  EXPECT_FALSE(plan.has_value());
  EXPECT_NE(why.find("does not run in a row kernel"), std::string::npos) << why;
}

// The GPU pipeline's row fusion: a producer read by others besides the consumer merges,
// its values becoming outputs of the row kernel, which may write values of one number per
// row. The CPU pipeline keeps both kernels (ProducerWithOtherUsersStays).
TEST(RowFusionTest, GpuRowKernelsAlsoWriteValuesOfOneNumberPerRow) {
  const std::string text = WithReducers("shared", R"(
  x = f32[16,64] parameter(0)
  ninf = f32[] constant(-inf)
  max = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmax = f32[16,64] broadcast(max), dimensions={0}
  shifted = f32[16,64] subtract(x, bmax)
  ROOT out = (f32[16,64], f32[16]) tuple(shifted, max)
)");
  PassContext context;
  std::unique_ptr<Module> module = Optimize(text, &context, /*gpu=*/true);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(CountKernels(*module).kernels, 1) << module->ToString();
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_FALSE(PlanRowKernel(*fusions[0]).has_value()) << "the CPU's row kernels write full rows only";
  std::optional<RowPlan> plan = PlanRowKernel(*fusions[0], /*row_outputs=*/true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->row_rank, 1);
  EXPECT_EQ(plan->rows, 16);
  EXPECT_EQ(plan->dims, (std::vector<int64_t>{16, 64}));
  EXPECT_NE(RowDecision(context, true, "that others read are outputs of the merged kernel"), nullptr);
}

// Softmax after a dot (a cuBLAS call in the GPU pipeline) whose row max and sum are also
// results: one row kernel writes the probabilities, the sums and the maxima.
TEST(RowFusionTest, GpuSoftmaxWithItsRowValuesAsResultsIsOneKernel) {
  const std::string text = WithReducers("softmax_after_dot", R"(
  x = f32[32,64] parameter(0)
  w = f32[64,10] parameter(1)
  logits = f32[32,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ninf = f32[] constant(-inf)
  max = f32[32] reduce(logits, ninf), dimensions={1}, to_apply=max_f32
  bmax = f32[32,10] broadcast(max), dimensions={0}
  shifted = f32[32,10] subtract(logits, bmax)
  ex = f32[32,10] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[32] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  bsum = f32[32,10] broadcast(sum), dimensions={0}
  probs = f32[32,10] divide(ex, bsum)
  ROOT out = (f32[32,10], f32[32], f32[32]) tuple(probs, sum, max)
)");
  std::unique_ptr<Module> cpu = Optimize(text);
  ASSERT_NE(cpu, nullptr);
  EXPECT_GE(Fusions(*cpu->entry()).size(), 3u);
  std::unique_ptr<Module> gpu = Optimize(text, nullptr, /*gpu=*/true);
  ASSERT_NE(gpu, nullptr);
  std::vector<const Instruction*> fusions = Fusions(*gpu->entry());
  ASSERT_EQ(fusions.size(), 1u) << gpu->ToString();
  std::optional<RowPlan> plan = PlanRowKernel(*fusions[0], /*row_outputs=*/true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->reduces.size(), 2u);
  EXPECT_EQ(fusions[0]->shape().tuple_size(), 3);
}

// Reduces the fusion pass left outside any fusion (CIFAR's loss reads a cuBLAS call: its
// row max and row sum stay bare) merge with the fusions between them.
TEST(RowFusionTest, GpuRowFusionTakesBareReduces) {
  std::unique_ptr<Module> module = Parse(RowKernelModule("bare", "f32", R"(exp_shifted {
  p0 = f32[16,10] parameter(0)
  p1 = f32[16] parameter(1)
  b = f32[16,10] broadcast(p1), dimensions={0}
  s = f32[16,10] subtract(p0, b)
  ROOT e = f32[16,10] exponential(s)
}

normalize {
  p0 = f32[16,10] parameter(0)
  p1 = f32[16] parameter(1)
  b = f32[16,10] broadcast(p1), dimensions={0}
  ROOT d = f32[16,10] divide(p0, b)
}

ENTRY main {
  x = f32[16,10] parameter(0)
  ninf = f32[] constant(-inf)
  max = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  ex = f32[16,10] fusion(x, max), kind=kLoop, calls=exp_shifted
  zero = f32[] constant(0)
  sum = f32[16] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  probs = f32[16,10] fusion(ex, sum), kind=kLoop, calls=normalize
  ROOT out = (f32[16,10], f32[16], f32[16]) tuple(probs, sum, max)
}
)"));
  ASSERT_NE(module, nullptr);
  std::unique_ptr<Module> strict = module->Clone();
  RowFusion cpu;
  EXPECT_FALSE(testing_util::RunPassAndCheck(cpu, *strict));
  EXPECT_EQ(Fusions(*strict->entry()).size(), 2u) << "the CPU's row fusion leaves bare reduces alone";
  RowFusion gpu(/*row_outputs=*/true);
  EXPECT_TRUE(testing_util::RunPassAndCheck(gpu, *module));
  std::vector<const Instruction*> fusions = Fusions(*module->entry());
  ASSERT_EQ(fusions.size(), 1u) << module->ToString();
  EXPECT_EQ(CountKernels(*module).kernels, 1) << module->ToString();
  std::optional<RowPlan> plan = PlanRowKernel(*fusions[0], /*row_outputs=*/true);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->reduces.size(), 2u);
  EXPECT_EQ(plan->reduces[0]->name(), "max");
  EXPECT_EQ(plan->reduces[1]->name(), "sum");
}

// A consumer that reads the producer again through an instruction outside both (here a
// bare log of the row sums, which the fusion pass keeps apart from its broadcast) cannot
// take it: the merged fusion would read its own output.
TEST(RowFusionTest, GpuMergeThroughAnotherInstructionIsRefused) {
  PassContext context;
  std::unique_ptr<Module> module = Optimize(WithReducers("xent", R"(
  x = f32[64,10] parameter(0)
  labels = s32[64] parameter(1)
  ninf = f32[] constant(-inf)
  max = f32[64] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmax = f32[64,10] broadcast(max), dimensions={0}
  shifted = f32[64,10] subtract(x, bmax)
  ex = f32[64,10] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[64] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  logsum = f32[64] log(sum)
  blog = f32[64,10] broadcast(logsum), dimensions={0}
  logp = f32[64,10] subtract(shifted, blog)
  iota = s32[64,10] iota(), iota_dimension=1
  blabels = s32[64,10] broadcast(labels), dimensions={0}
  hit = pred[64,10] compare(iota, blabels), direction=EQ
  onehot = f32[64,10] convert(hit)
  picked = f32[64,10] multiply(onehot, logp)
  nll = f32[64] reduce(picked, zero), dimensions={1}, to_apply=add_f32
  total = f32[] reduce(nll, zero), dimensions={0}, to_apply=add_f32
  loss = f32[] negate(total)
  bsum = f32[64,10] broadcast(sum), dimensions={0}
  probs = f32[64,10] divide(ex, bsum)
  grad = f32[64,10] subtract(probs, onehot)
  ROOT out = (f32[], f32[64,10]) tuple(loss, grad)
)"), &context, /*gpu=*/true);
  ASSERT_NE(module, nullptr);
  EXPECT_NE(RowDecision(context, false, "would make a cycle"), nullptr);
  // The row max still merged into the exp and its sum (the max is read again later).
  EXPECT_NE(RowDecision(context, true, "that others read are outputs"), nullptr);
}

}  // namespace
}  // namespace fusebox::passes
