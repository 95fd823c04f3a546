// Pipeline mechanics (order, change records, snapshots, disabling, verification between
// passes), kernel counting, the compile session and its XLA-layout dump.
#include "compiler/passes/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "compiler/parser/parser.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/session/compile_session.h"

namespace fusebox::passes {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Negates the root's first operand in place of the root when the root is a negate of a
// negate: a tiny real rewrite to drive the pipeline.
class DoubleNegation : public Pass {
 public:
  std::string_view name() const override { return "double-negation"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override {
    Computation* entry = module.entry();
    Instruction* root = entry->root();
    if (root->opcode() != Opcode::kNegate || root->operand(0)->opcode() != Opcode::kNegate) return false;
    context.RecordDecision({std::string(name()), entry->name(), root->operand(0)->name(),
                            root->name(), false, "not a fusion pass", ""});
    entry->set_root(root->operand(0)->operand(0));
    return true;
  }
};

// Does nothing.
class Idle : public Pass {
 public:
  std::string_view name() const override { return "idle"; }
  StatusOr<bool> Run(Module&, PassContext&) override { return false; }
};

// Breaks the module: gives the root a wrong shape.
class Breaker : public Pass {
 public:
  std::string_view name() const override { return "breaker"; }
  StatusOr<bool> Run(Module& module, PassContext&) override {
    module.entry()->root()->set_shape(Shape(PrimitiveType::kF32, {7}));
    return true;
  }
};

constexpr char kModule[] = R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  n1 = f32[4] negate(x)
  ROOT n2 = f32[4] negate(n1)
}
)";

std::unique_ptr<Module> Parse(const char* text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

TEST(PipelineTest, RecordsChangesTimesAndSnapshots) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.Add<Idle>();
  p.Add<DoubleNegation>();
  PassContext ctx;
  PipelineResult result;
  ASSERT_TRUE(p.Run(*m, {}, ctx, &result).ok());
  ASSERT_EQ(result.passes.size(), 2u);
  EXPECT_FALSE(result.passes[0].changed);
  EXPECT_TRUE(result.passes[1].changed);
  EXPECT_GE(result.passes[1].wall_ns, 0);
  EXPECT_THAT(result.before, HasSubstr("ROOT %n2"));
  EXPECT_TRUE(result.passes[1].has_snapshot);
  EXPECT_THAT(result.passes[1].snapshot, HasSubstr("ROOT %x"));
  EXPECT_EQ(ctx.decisions().size(), 1u);
  EXPECT_EQ(ctx.DecisionsFor("n2").size(), 1u);
  EXPECT_EQ(m->entry()->root()->name(), "x");
}

TEST(PipelineTest, DisabledOnlyAndRegexOptions) {
  Pipeline p("test");
  p.Add<Idle>();
  p.Add<DoubleNegation>();
  {
    auto m = Parse(kModule);
    PassContext ctx;
    PipelineResult result;
    PipelineOptions opts;
    opts.disabled_passes = {"double-negation"};
    ASSERT_TRUE(p.Run(*m, opts, ctx, &result).ok());
    EXPECT_TRUE(result.passes[1].skipped);
    EXPECT_EQ(m->entry()->root()->name(), "n2");
  }
  {
    auto m = Parse(kModule);
    PassContext ctx;
    PipelineResult result;
    PipelineOptions opts;
    opts.only_passes = {"idle"};
    opts.snapshot_pass_regex = "^idle$";
    ASSERT_TRUE(p.Run(*m, opts, ctx, &result).ok());
    EXPECT_TRUE(result.passes[0].has_snapshot);
    EXPECT_TRUE(result.passes[1].skipped);
    EXPECT_FALSE(result.passes[1].has_snapshot);
  }
  {
    auto m = Parse(kModule);
    PassContext ctx;
    PipelineResult result;
    PipelineOptions opts;
    opts.disabled_passes = {"no-such-pass"};
    Status st = p.Run(*m, opts, ctx, &result);
    ASSERT_FALSE(st.ok());
    EXPECT_THAT(st.message(), HasSubstr("no pass named 'no-such-pass'"));
    opts.disabled_passes.clear();
    opts.snapshot_pass_regex = "([";
    EXPECT_FALSE(p.Run(*m, opts, ctx, &result).ok());
  }
}

TEST(PipelineTest, AModuleThatNoLongerVerifiesStopsThePipelineNamingThePass) {
  auto m = Parse(kModule);
  Pipeline p("test");
  p.Add<Breaker>();
  p.Add<Idle>();
  PassContext ctx;
  PipelineResult result;
  Status st = p.Run(*m, {}, ctx, &result);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("pass breaker left a module that does not verify"));
  EXPECT_EQ(result.passes.size(), 1u);
}

TEST(KernelCountTest, CountsProgramInstructionsNotReducersOrFusedBodies) {
  auto m = Parse(R"(
HloModule k
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
fused { p = f32[8] parameter(0)  q = f32[8] exponential(p)  ROOT r = f32[8] negate(q) }
cond { s = (s32[], f32[8]) parameter(0)  i = s32[] get-tuple-element(s), index=0  n = s32[] constant(3)  ROOT lt = pred[] compare(i, n), direction=LT }
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  v2 = f32[8] fusion(v), kind=kLoop, calls=fused
  ROOT t = (s32[], f32[8]) tuple(i2, v2)
}
ENTRY e {
  x = f32[8] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[8]) tuple(z, x)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  v = f32[8] get-tuple-element(w), index=1
  r = f32[2,4] reshape(v)
  c = f32[] constant(0)
  ROOT s = f32[] reduce(r, c), dimensions={0,1}, to_apply=add
}
)");
  KernelCount count = CountKernels(*m);
  // reduce (entry) + compare (while condition) + add and fusion (while body); reducers and
  // fused computations are inside kernels, the reshape is free.
  EXPECT_EQ(count.kernels, 4) << count.ToString();
  EXPECT_EQ(count.by_opcode["compare"], 1);
  EXPECT_EQ(count.by_opcode["reduce"], 1);
  EXPECT_EQ(count.by_opcode["fusion(kLoop)"], 1);
  EXPECT_EQ(count.by_opcode["add"], 1);
}

TEST(KernelCountTest, SeedProgramUnfused) {
  auto file = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/reduce_sum.hlo");
  ASSERT_TRUE(file.ok());
  // multiply, add, reduce: the three kernels of the XLA overview's example.
  EXPECT_EQ(CountKernels(*file->modules[0]).kernels, 3);
}

// The names of the kernels of a module's entry computation.
std::set<std::string> EntryKernels(const Module& module) {
  std::set<std::string> names;
  for (const auto& inst : module.entry()->instructions()) {
    if (IsKernel(*inst)) names.insert(inst->name());
  }
  return names;
}

std::unique_ptr<Module> ParseExampleFile(const std::string& name) {
  auto file = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  if (!file.ok() || file->modules.empty()) return nullptr;
  return std::move(file->modules[0]);
}

// The MNIST training step after the whole pipeline against XLA CPU's own optimized module
// (assets/examples/xla_cpu, dumped by scripts/make_examples.sh with jax 0.10.2): every
// kernel of both sides is in exactly one row below, and each row says why the counts
// differ. A change in fusion that moves a kernel fails here until the table is updated.
TEST(KernelCountTest, MnistStepAgainstXlaCpuEveryDifferenceExplained) {
  auto m = ParseExampleFile("mnist_train_step.hlo");
  auto xla = ParseExampleFile("xla_cpu/mnist_train_step.after_optimizations.hlo");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(xla, nullptr);
  EXPECT_EQ(CountKernels(*m).kernels, 92);
  Pipeline pipeline = MakeOptimizationPipeline();
  PassContext context;
  PipelineResult result;
  ASSERT_TRUE(pipeline.Run(*m, {}, context, &result).ok());

  struct Row {
    const char* what;
    std::vector<std::string> ours;
    std::vector<std::string> theirs;
    const char* why;
  };
  const std::vector<Row> rows = {
      {"forward dot images x W", {"dot_general.2"}, {"ynn_fusion"},
       "same: XLA CPU hands the dot to YNNPACK as a kCustom fusion; neither side output-fuses "
       "the bias-add, whose result feeds two reductions"},
      {"weight-gradient dot", {"dot"}, {"dot"},
       "same: both fold jax's transpose of the gradient into the dot (algsimp swaps its "
       "operands, so the GEMM writes the weight's [784,10] order)"},
      {"softmax: row max, exp, row sum", {"fusion.15", "fusion.13"},
       {"add_reduce_fusion", "subtract_exponential_fusion", "wrapped_reduce"},
       "-1: multi-output fusion gives the exp and its row sum one kernel; XLA CPU emits the "
       "row sum as a reduce wrapped alone"},
      {"cross-entropy row sums", {"fusion.1"},
       {"negate_divide_fusion", "wrapped_log", "subtract_select_fusion"},
       "-2: the log and the log-softmax elementwise work fuse into the reductions that read "
       "them, and the two sibling row sums share a kernel; XLA CPU keeps the log and the "
       "elementwise producers as loop kernels"},
      {"logit gradient and bias gradient", {"fusion.5"},
       {"multiply_add_fusion.4", "wrapped_reduce-window", "wrapped_reduce.1"},
       "-2: one column-reduction kernel also writes the gradient; XLA CPU splits the "
       "128-row column sum into a reduce-window and a reduce and keeps the gradient apart"},
      {"mean loss", {"fusion"}, {"wrapped_reduce-window.1", "multiply_negate_fusion"},
       "-1: the same reduction split on XLA's side; ours is one reduction with its scale "
       "and negate as epilogue"},
      {"step + 1 and Adam bias corrections", {"fusion.7", "fusion.9"},
       {"subtract_divide_fusion", "subtract_divide_fusion.1", "wrapped_add"},
       "-1: step + 1 and the correction that uses it are one multi-output kernel"},
      {"Adam updates of W and b (m, v, param)", {"fusion.6", "fusion.2"},
       {"multiply_add_fusion.3", "multiply_add_fusion.2", "divide_subtract_fusion.1",
        "multiply_add_fusion", "multiply_add_fusion.1", "divide_subtract_fusion"},
       "-4: XLA CPU writes m and v, then reads them back for the parameter update; one "
       "multi-output loop fusion per tensor writes all three"},
  };
  std::set<std::string> ours_listed, theirs_listed;
  int64_t ours_total = 0, theirs_total = 0;
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    for (const std::string& n : row.ours) EXPECT_TRUE(ours_listed.insert(n).second) << n;
    for (const std::string& n : row.theirs) EXPECT_TRUE(theirs_listed.insert(n).second) << n;
    ours_total += static_cast<int64_t>(row.ours.size());
    theirs_total += static_cast<int64_t>(row.theirs.size());
  }
  EXPECT_EQ(ours_listed, EntryKernels(*m)) << m->ToString();
  EXPECT_EQ(theirs_listed, EntryKernels(*xla));
  EXPECT_EQ(CountKernels(*m).kernels, ours_total);
  EXPECT_EQ(CountKernels(*xla).kernels, theirs_total);
  EXPECT_EQ(ours_total, 11);
  EXPECT_EQ(theirs_total, 22);
  // The rows name the right things: the Adam kernels write three tensors each, the dots
  // are dots, and the XLA side's split reductions really are reduce-windows.
  for (const char* name : {"fusion.6", "fusion.2"}) {
    const Instruction* adam = m->entry()->FindInstruction(name);
    ASSERT_NE(adam, nullptr);
    EXPECT_EQ(adam->shape().tuple_shapes().size(), 3u);
  }
  const Instruction* weight_gradient = m->entry()->FindInstruction("dot");
  ASSERT_NE(weight_gradient, nullptr);
  EXPECT_EQ(weight_gradient->opcode(), Opcode::kDot);
  EXPECT_EQ(weight_gradient->operand(0)->name(), "images.1");
  EXPECT_EQ(xla->entry()->FindInstruction("wrapped_reduce-window")->fused_computation()->root()->opcode(),
            Opcode::kReduceWindow);
}

TEST(CompileSessionTest, StagesAndDumpLayout) {
  auto file = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/reduce_sum.hlo");
  ASSERT_TRUE(file.ok());
  session::CompileSession session(std::move(file->modules[0]));
  auto hlo = session.StageText(session::Stage::kHlo);
  ASSERT_TRUE(hlo.ok());
  EXPECT_THAT(*hlo, HasSubstr("HloModule jit_reduce_sum"));
  auto optimized = session.StageText(session::Stage::kOptimizedHlo);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_TRUE(session.optimized());
  std::string dir = testing::TempDir() + "/dump_test_" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  auto written = session::WriteDump(session, dir, 7);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_TRUE(std::filesystem::exists(dir + "/module_0007.jit_reduce_sum.before_optimizations.txt"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/module_0007.jit_reduce_sum.cpu_after_optimizations.txt"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/module_0007.jit_reduce_sum.fusion_decisions.json"));
  // Every dumped module parses back.
  for (const std::string& path : *written) {
    if (path.size() > 4 && path.substr(path.size() - 4) == ".txt") {
      EXPECT_TRUE(ParseFile(path).ok()) << path;
    }
  }
  EXPECT_EQ(session::ParseStage("optimized_hlo"), session::Stage::kOptimizedHlo);
  EXPECT_EQ(session::ParseStage("llvm_ir"), session::Stage::kLlvmIr);
  EXPECT_EQ(session::ParseStage("cpu_asm"), session::Stage::kCpuAsm);
  EXPECT_EQ(session::ParseStage("ptx"), session::Stage::kPtx);
  EXPECT_EQ(session::ParseStage("sass"), session::Stage::kSass);
  EXPECT_FALSE(session::ParseStage("hsaco").has_value());
  for (session::Stage stage : {session::Stage::kHlo, session::Stage::kOptimizedHlo, session::Stage::kLlvmIr, session::Stage::kLlvmIrOptimized, session::Stage::kCpuAsm,
                      session::Stage::kBufferAssignment, session::Stage::kGpuLlvmIr, session::Stage::kGpuLlvmIrOptimized, session::Stage::kPtx,
                      session::Stage::kPtxasInfo, session::Stage::kSass}) {
    EXPECT_EQ(session::ParseStage(session::StageName(stage)), stage);
  }
}

}  // namespace
}  // namespace fusebox::passes
