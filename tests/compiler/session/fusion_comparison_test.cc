// XLA-vs-Fusebox fusion comparison: synthetic modules where the answer is known, and the
// real XLA dumps of the seed programs.
#include "compiler/session/fusion_comparison.h"

#include <gtest/gtest.h>

#include <string>

#include "compiler/parser/parser.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"

namespace fusebox {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

// reduce(exp(x) * y + 1): four ops, three kernels-worth of choices.
const char* const kInput = R"(HloModule m

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.9 = f32[] add(%a, %b)
}

ENTRY %main (x.1: f32[8,16], y.1: f32[8,16]) -> f32[8] {
  %x.1 = f32[8,16]{1,0} parameter(0), metadata={op_name="x"}
  %y.1 = f32[8,16]{1,0} parameter(1), metadata={op_name="y"}
  %exp.1 = f32[8,16]{1,0} exponential(%x.1), metadata={op_name="jit(f)/exp"}
  %mul.1 = f32[8,16]{1,0} multiply(%exp.1, %y.1), metadata={op_name="jit(f)/mul"}
  %one = f32[] constant(1)
  %b.1 = f32[8,16]{1,0} broadcast(%one), dimensions={}, metadata={op_name="jit(f)/add"}
  %add.1 = f32[8,16]{1,0} add(%mul.1, %b.1), metadata={op_name="jit(f)/add"}
  %zero = f32[] constant(0)
  ROOT %reduce.1 = f32[8]{0} reduce(%add.1, %zero), dimensions={1}, to_apply=%sum, metadata={op_name="jit(f)/reduce_sum"}
}
)";

// Everything in one fusion, with the names XLA gives fused clones (renumbered).
const char* const kOneFusion = R"(HloModule m

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.9 = f32[] add(%a, %b)
}

%fused_computation (param_0.1: f32[8,16], param_1.2: f32[8,16]) -> f32[8] {
  %param_0.1 = f32[8,16]{1,0} parameter(0)
  %exp.0 = f32[8,16]{1,0} exponential(%param_0.1), metadata={op_name="jit(f)/exp"}
  %param_1.2 = f32[8,16]{1,0} parameter(1)
  %mul.0 = f32[8,16]{1,0} multiply(%exp.0, %param_1.2), metadata={op_name="jit(f)/mul"}
  %one.1 = f32[] constant(1)
  %b.0 = f32[8,16]{1,0} broadcast(%one.1), dimensions={}, metadata={op_name="jit(f)/add"}
  %add.0 = f32[8,16]{1,0} add(%mul.0, %b.0), metadata={op_name="jit(f)/add"}
  %zero.1 = f32[] constant(0)
  ROOT %reduce.0 = f32[8]{0} reduce(%add.0, %zero.1), dimensions={1}, to_apply=%sum, metadata={op_name="jit(f)/reduce_sum"}
}

ENTRY %main (x.1: f32[8,16], y.1: f32[8,16]) -> f32[8] {
  %x.1 = f32[8,16]{1,0} parameter(0)
  %y.1 = f32[8,16]{1,0} parameter(1)
  ROOT %input_fusion = f32[8]{0} fusion(%x.1, %y.1), kind=kInput, calls=%fused_computation
}
)";

// The elementwise part in one loop fusion, the reduce on its own.
const char* const kTwoKernels = R"(HloModule m

%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.9 = f32[] add(%a, %b)
}

%fused_computation (p0: f32[8,16], p1: f32[8,16]) -> f32[8,16] {
  %p0 = f32[8,16]{1,0} parameter(0)
  %exp.1 = f32[8,16]{1,0} exponential(%p0), metadata={op_name="jit(f)/exp"}
  %p1 = f32[8,16]{1,0} parameter(1)
  %mul.1 = f32[8,16]{1,0} multiply(%exp.1, %p1), metadata={op_name="jit(f)/mul"}
  %one = f32[] constant(1)
  %b.1 = f32[8,16]{1,0} broadcast(%one), dimensions={}, metadata={op_name="jit(f)/add"}
  ROOT %add.1 = f32[8,16]{1,0} add(%mul.1, %b.1), metadata={op_name="jit(f)/add"}
}

ENTRY %main (x.1: f32[8,16], y.1: f32[8,16]) -> f32[8] {
  %x.1 = f32[8,16]{1,0} parameter(0)
  %y.1 = f32[8,16]{1,0} parameter(1)
  %fusion = f32[8,16]{1,0} fusion(%x.1, %y.1), kind=kLoop, calls=%fused_computation
  %zero = f32[] constant(0)
  ROOT %reduce.1 = f32[8]{0} reduce(%fusion, %zero), dimensions={1}, to_apply=%sum, metadata={op_name="jit(f)/reduce_sum"}
}
)";

TEST(FusionComparisonTest, IdenticalFusionMatches) {
  auto input = Parse(kInput);
  auto a = Parse(kOneFusion);
  auto b = Parse(kOneFusion);
  session::FusionComparison c = session::CompareFusion(*input, *a, *b);
  EXPECT_EQ(c.input_kernels.kernels, 5);
  EXPECT_EQ(c.xla_count.kernels, 1);
  EXPECT_EQ(c.fusebox_count.kernels, 1);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kMatch);
  EXPECT_EQ(c.groups[0].originals,
            (std::vector<std::string>{"add.1", "b.1", "exp.1", "mul.1", "reduce.1"}));
  EXPECT_TRUE(c.only_in_xla.empty());
  EXPECT_TRUE(c.only_in_fusebox.empty());
  EXPECT_EQ(c.approximate_links, 0);
}

TEST(FusionComparisonTest, XlaFusesWhatFuseboxSplits) {
  auto input = Parse(kInput);
  auto xla = Parse(kOneFusion);
  auto fusebox = Parse(kTwoKernels);
  session::FusionComparison c = session::CompareFusion(*input, *xla, *fusebox);
  EXPECT_EQ(c.xla_count.kernels, 1);
  EXPECT_EQ(c.fusebox_count.kernels, 2);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kXlaFusesMore);
  EXPECT_EQ(c.Count(session::FusionMatch::kXlaFusesMore), 1);
  ASSERT_EQ(c.groups[0].fusebox.size(), 2u);
  std::string text = c.ToText();
  EXPECT_NE(text.find("kernels: XLA 1, Fusebox 2 (the input, unfused: 5)"), std::string::npos) << text;
  EXPECT_NE(text.find("XLA fuses, Fusebox splits"), std::string::npos) << text;
  EXPECT_NE(text.find("-> Fusebox %fusion (4), %reduce.1 (1)"), std::string::npos) << text;
  std::string json = c.ToJson();
  EXPECT_NE(json.find("\"xla_fuses_more\": 1"), std::string::npos) << json;
}

TEST(FusionComparisonTest, FuseboxFusesWhatXlaSplits) {
  auto input = Parse(kInput);
  session::FusionComparison c = session::CompareFusion(*input, *Parse(kTwoKernels), *Parse(kOneFusion));
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kFuseboxFusesMore);
  EXPECT_EQ(c.groups[0].xla.size(), 2u);
  EXPECT_NE(c.ToText().find("Fusebox fuses, XLA splits"), std::string::npos);
}

TEST(FusionComparisonTest, RewrittenOpsTraceByOpName) {
  // XLA rewrote exp(x)*y into a new instruction with a new name and opcode (here a
  // divide by a reciprocal) but kept the op_name: the trace follows the op_name.
  std::string rewritten = kOneFusion;
  auto pos = rewritten.find("%mul.0 = f32[8,16]{1,0} multiply(%exp.0, %param_1.2)");
  ASSERT_NE(pos, std::string::npos);
  rewritten.replace(pos, std::string("%mul.0 = f32[8,16]{1,0} multiply(%exp.0, %param_1.2)").size(),
                    "%divide.7 = f32[8,16]{1,0} divide(%exp.0, %param_1.2)");
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t p = rewritten.find(from); p != std::string::npos; p = rewritten.find(from, p + to.size())) {
      rewritten.replace(p, from.size(), to);
    }
  };
  replace_all("add(%mul.0,", "add(%divide.7,");
  auto input = Parse(kInput);
  auto xla = Parse(rewritten);
  ASSERT_NE(xla, nullptr);
  session::FusionComparison c = session::CompareFusion(*input, *xla, *Parse(kOneFusion));
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kMatch);
  EXPECT_EQ(c.approximate_links, 1);
  EXPECT_TRUE(c.only_in_fusebox.empty());
}

TEST(FusionComparisonTest, OpsOneCompilerRemovedAreListed) {
  // Fusebox's module lacks the broadcast (folded away): it shows as XLA-only.
  std::string folded = kOneFusion;
  auto from = folded.find("  %one.1 = f32[] constant(1)\n");
  folded.erase(from, folded.find("%add.0") - from - 2);
  folded.replace(folded.find("add(%mul.0, %b.0)"), std::string("add(%mul.0, %b.0)").size(), "add(%mul.0, %mul.0)");
  auto fusebox = Parse(folded);
  ASSERT_NE(fusebox, nullptr);
  session::FusionComparison c = session::CompareFusion(*Parse(kInput), *Parse(kOneFusion), *fusebox);
  EXPECT_EQ(c.only_in_xla, (std::vector<std::string>{"b.1"}));
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kMatch);
}

// Real dumps: Fusebox's pipeline against XLA's CPU output for the seed programs.
std::string DumpDir(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/" + program;
}

TEST(FusionComparisonTest, RealDumpsReduceSumMatchesXla) {
  auto index = importers::IndexDumpFolder(DumpDir("reduce_sum"));
  ASSERT_TRUE(index.ok());
  auto result = importers::CompareDumpFusion(index->modules[0]);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const session::FusionComparison& c = result->comparison;
  // XLA CPU fuses x + y*z and the sum into one library (ynn) fusion; so does Fusebox.
  EXPECT_EQ(c.xla_count.kernels, 1);
  EXPECT_EQ(c.fusebox_count.kernels, 1);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kMatch);
  EXPECT_EQ(c.groups[0].originals.size(), 3u);
}

TEST(FusionComparisonTest, RealDumpsRunningExampleFuseboxFusesTheDivide) {
  auto index = importers::IndexDumpFolder(DumpDir("running_example"));
  ASSERT_TRUE(index.ok());
  auto result = importers::CompareDumpFusion(index->modules[0]);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const session::FusionComparison& c = result->comparison;
  // XLA: a ynn fusion for the reduction and a wrapped multiply for the mean's divide.
  // Fusebox: one fusion with both.
  EXPECT_EQ(c.xla_count.kernels, 2);
  EXPECT_EQ(c.fusebox_count.kernels, 1);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].match, session::FusionMatch::kFuseboxFusesMore);
  EXPECT_EQ(c.groups[0].xla.size(), 2u);
  EXPECT_EQ(c.groups[0].originals.size(), 6u);
}

TEST(FusionComparisonTest, RealDumpsTrainingStepsTraceMostKernels) {
  for (const char* program : {"mnist_train_step", "cifar_cnn_train_step"}) {
    auto index = importers::IndexDumpFolder(DumpDir(program));
    ASSERT_TRUE(index.ok());
    auto result = importers::CompareDumpFusion(index->modules[0]);
    ASSERT_TRUE(result.ok()) << result.status().message();
    const session::FusionComparison& c = result->comparison;
    EXPECT_EQ(c.xla_count.kernels, static_cast<int64_t>(c.xla_kernels.size())) << program;
    EXPECT_EQ(c.fusebox_count.kernels, static_cast<int64_t>(c.fusebox_kernels.size())) << program;
    EXPECT_LT(c.fusebox_count.kernels, c.input_kernels.kernels) << program;
    // Most kernels on both sides trace back to input instructions: the ones that do
    // not are XLA's own additions (iota, layout copies, tree-reduction windows).
    int traced_xla = static_cast<int>(c.xla_kernels.size() - c.xla_unmatched.size());
    int traced_fb = static_cast<int>(c.fusebox_kernels.size() - c.fusebox_unmatched.size());
    EXPECT_GE(traced_xla * 2, static_cast<int>(c.xla_kernels.size())) << program << "\n" << c.ToText();
    EXPECT_GE(traced_fb * 10, static_cast<int>(c.fusebox_kernels.size()) * 8) << program << "\n" << c.ToText();
    EXPECT_GE(c.groups.size(), 2u) << program;
    std::string json = c.ToJson();
    EXPECT_NE(json.find("\"groups\""), std::string::npos);
  }
}

}  // namespace
}  // namespace fusebox
