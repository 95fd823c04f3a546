// Numerics bisection over passes: with a numerics-changing rewrite planted in one pass
// (a test-only switch), bisect names that pass and shrinks a repro of at most 10
// instructions on which that pass alone still diverges (and does not without the
// planted rewrite); without one, no pass of the pipeline diverges. A stage the interpreter
// cannot run is reported as not evaluated and the search goes on; a module whose check
// would be vacuous is refused. Against a backend, a planted code-generation bug is found
// in its kernel, and a buffer bug between kernels is said to be between them.
#include "compiler/session/pass_bisect.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/parser/parser.h"
#include "compiler/session/profiled_run.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::session {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(*parsed) : nullptr;
}

std::unique_ptr<Module> Example(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str());
}

// A small network-like module: every pass of the CPU pipeline has something to do.
constexpr const char* kLayer = R"(HloModule layer
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[16,32] parameter(0)
  w = f32[32,8] parameter(1)
  b = f32[8] parameter(2)
  one = f32[] constant(1)
  ones = f32[16,8] broadcast(one), dimensions={}
  two = f32[] constant(2)
  twos = f32[16,8] broadcast(two), dimensions={}
  d = f32[16,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[16,8] broadcast(b), dimensions={1}
  h = f32[16,8] add(d, bb)
  h1 = f32[16,8] multiply(h, ones)
  h2 = f32[16,8] multiply(h1, twos)
  zero = f32[] constant(0)
  zeros = f32[16,8] broadcast(zero), dimensions={}
  r = f32[16,8] maximum(h2, zeros)
  ninf = f32[] constant(-inf)
  mx = f32[16] reduce(r, ninf), dimensions={1}, to_apply=max_f32
  mxb = f32[16,8] broadcast(mx), dimensions={0}
  sh = f32[16,8] subtract(r, mxb)
  ex = f32[16,8] exponential(sh)
  sm = f32[16] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  ROOT t = (f32[16,8], f32[16]) tuple(sh, sm)
}
)";

struct PlantedCase {
  PlantedBug bug;
  std::string pass;
};

// Each planted pass bug is found in its own pass, with a repro of at most 10
// instructions that diverges under that pass with the bug and not without it.
TEST(PassBisectTest, APlantedRewriteIsFoundAndShrunk) {
  const std::vector<PlantedCase> cases = {
      {PlantedBug::kMultiplyByOneFoldedToOne, "algsimp"},
      {PlantedBug::kFusionDropsEpilogue, "fusion"},
  };
  for (const PlantedCase& c : cases) {
    SCOPED_TRACE(PlantedBugName(c.bug));
    auto module = Parse(kLayer);
    ASSERT_NE(module, nullptr);
    ScopedPlantedBug planted(c.bug);
    auto stages = FuseboxPipelineStages(*module);
    ASSERT_TRUE(stages.ok()) << stages.status().message();
    const PassRunner runner = FuseboxPassRunner();
    auto report = BisectStages(*stages, BisectOptions(), runner);
    ASSERT_TRUE(report.ok()) << report.status().message();
    ASSERT_GE(report->first_diverging, 1) << report->Summary();
    EXPECT_EQ(report->stages[static_cast<size_t>(report->first_diverging)].pass, c.pass) << report->Summary();
    for (int k = 1; k < report->first_diverging; ++k) {
      EXPECT_TRUE(report->stages[static_cast<size_t>(k)].evaluated);
      EXPECT_FALSE(report->stages[static_cast<size_t>(k)].diverges) << report->stages[static_cast<size_t>(k)].verdict;
    }
    EXPECT_NE(report->Summary().find("pass " + c.pass), std::string::npos) << report->Summary();
    EXPECT_FALSE(report->changes.empty());
    ASSERT_NE(report->repro, nullptr) << report->repro_note;
    EXPECT_LE(report->repro_instructions, 10) << report->repro->ToString();
    auto with_bug = PassDiverges(*report->repro, c.pass, runner, BisectOptions());
    ASSERT_TRUE(with_bug.ok());
    EXPECT_TRUE(*with_bug) << report->repro->ToString();
    // The repro's text parses back and still shows it.
    auto reparsed = Parse(report->repro->ToString());
    ASSERT_NE(reparsed, nullptr);
    EXPECT_TRUE(*PassDiverges(*reparsed, c.pass, runner, BisectOptions()));
    SetPlantedBug(PlantedBug::kNone);
    EXPECT_FALSE(*PassDiverges(*reparsed, c.pass, runner, BisectOptions())) << "without the bug the pass is right";
  }
}

// Without a planted rewrite no pass diverges, on the layer and on the MNIST step, and
// every stage is evaluated.
TEST(PassBisectTest, NoPassDivergesInTheRealPipeline) {
  std::vector<std::unique_ptr<Module>> modules;
  modules.push_back(Parse(kLayer));
  modules.push_back(Example("mnist_train_step.hlo"));
  for (const auto& module : modules) {
    ASSERT_NE(module, nullptr);
    auto stages = FuseboxPipelineStages(*module);
    ASSERT_TRUE(stages.ok()) << stages.status().message();
    EXPECT_GT(stages->size(), 3u);
    auto report = BisectStages(*stages, BisectOptions(), FuseboxPassRunner());
    ASSERT_TRUE(report.ok()) << report.status().message();
    EXPECT_EQ(report->first_diverging, -1) << report->Summary();
    EXPECT_EQ(report->evaluated(), static_cast<int>(stages->size()));
    EXPECT_EQ(report->Summary().rfind("no pass diverges", 0), 0u) << report->Summary();
  }
}

// A stage the interpreter cannot run (an opaque custom call) is not evaluated, says why,
// and the search continues to the stage that diverges.
TEST(PassBisectTest, AStageTheInterpreterCannotRunIsSkippedWithTheReason) {
  const std::string head = "HloModule m\nENTRY e {\n  x = f32[8] parameter(0)\n";
  std::vector<BisectStage> stages;
  stages.push_back({"input", "", Parse(head + "  ROOT y = f32[8] exponential(x)\n}\n")});
  stages.push_back({"opaque", "lower", Parse(head + "  ROOT y = f32[8] custom-call(x), custom_call_target=\"my_exp\"\n}\n")});
  stages.push_back({"wrong", "approximate", Parse(head + "  ROOT y = f32[8] add(x, x)\n}\n")});
  for (const auto& s : stages) ASSERT_NE(s.module, nullptr);
  auto report = BisectStages(stages, BisectOptions());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_FALSE(report->stages[1].evaluated);
  EXPECT_NE(report->stages[1].verdict.find("not evaluated"), std::string::npos) << report->stages[1].verdict;
  EXPECT_NE(report->stages[1].verdict.find("my_exp"), std::string::npos) << report->stages[1].verdict;
  EXPECT_EQ(report->first_diverging, 2);
  EXPECT_EQ(report->repro, nullptr);
  EXPECT_NE(report->repro_note.find("cannot be run again"), std::string::npos) << report->repro_note;
}

// When no output of the input would count (all of them parameters passed through or
// constant), no stage could be judged: bisect says so instead of "no pass diverges".
TEST(PassBisectTest, AVacuousReferenceIsRefused) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  c = f32[] constant(3)
  cc = f32[8] broadcast(c), dimensions={}
  ROOT t = (f32[8], f32[8]) tuple(x, cc)
})");
  ASSERT_NE(module, nullptr);
  auto stages = FuseboxPipelineStages(*module);
  ASSERT_TRUE(stages.ok()) << stages.status().message();
  auto report = BisectStages(*stages, BisectOptions(), FuseboxPassRunner());
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("cannot tell"), std::string::npos) << report.status().message();
}

// --against cpu: a planted code-generation bug is found in the first kernel it breaks;
// that kernel alone, on the operand values bisect saved, still differs on the CPU with the
// bug and matches without it. Without a bug every kernel and the whole module match.
TEST(KernelBisectTest, ACodegenBugIsFoundInItsKernel) {
  auto module = Parse(kLayer);
  ASSERT_NE(module, nullptr);
  auto clean = BisectKernels(*module, "cpu", BisectOptions());
  ASSERT_TRUE(clean.ok()) << clean.status().message();
  EXPECT_FALSE(clean->whole_diverges) << clean->whole;
  EXPECT_EQ(clean->first_diverging, -1) << clean->Summary();
  EXPECT_GE(clean->kernels.size(), 2u);
  for (const auto& k : clean->kernels) EXPECT_TRUE(k.evaluated) << k.kernel << ": " << k.verdict;

  ScopedPlantedBug planted(PlantedBug::kMaximumEmittedAsMinimum);
  auto report = BisectKernels(*module, "cpu", BisectOptions());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->whole_diverges) << report->whole;
  ASSERT_GE(report->first_diverging, 0) << report->Summary();
  ASSERT_NE(report->repro, nullptr);
  ASSERT_EQ(static_cast<int64_t>(report->repro_inputs.size()), report->repro->entry()->parameter_count());
  // The kernel runs alone: on the CPU with the bug it differs from the interpreter on the
  // saved inputs, without it it matches.
  auto check_alone = [&] {
    auto reference = check::ComputeCheckReference(*report->repro, report->repro_inputs);
    EXPECT_TRUE(reference.ok());
    auto run = RunProfiled(*report->repro, report->repro_inputs, ProfiledRunOptions());
    EXPECT_TRUE(run.ok()) << run.status().message();
    return check::CheckOutputs(run->result, *reference, report->repro_inputs).ok();
  };
  EXPECT_FALSE(check_alone());
  SetPlantedBug(PlantedBug::kNone);
  EXPECT_TRUE(check_alone());
}

// A bug between kernels (a buffer reused while it is still read) breaks the whole run
// while every kernel alone is right: bisect says where to look instead of blaming one.
TEST(KernelBisectTest, ABufferBugShowsBetweenTheKernels) {
  auto module = Example("mnist_train_step.hlo");
  ASSERT_NE(module, nullptr);
  ScopedPlantedBug planted(PlantedBug::kLivenessEndsAtFirstUse);
  auto report = BisectKernels(*module, "cpu", BisectOptions());
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(report->whole_diverges) << report->whole;
  EXPECT_EQ(report->first_diverging, -1) << report->Summary();
  EXPECT_NE(report->Summary().find("between the kernels"), std::string::npos) << report->Summary();
}

}  // namespace
}  // namespace fusebox::session
