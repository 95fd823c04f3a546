// The structural diff on real files: consecutive per-pass dumps of XLA's CPU pipeline for
// the MNIST training step (tests/data/xla_dumps/mnist_train_step) differ by exactly what
// the pass did, and every dump diffed against itself has no changes.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/analysis/structural_diff.h"
#include "compiler/parser/parser.h"

namespace fusebox::analysis {
namespace {

// The dump of the step: module_0000.jit_mnist_train_step.<step>.<pipeline>.<passes>.txt
constexpr char kBeforeCse[] =
    "0015.post_scatter_expansion_simplification.after_pipeline-start.before_algsimp";
constexpr char kAfterCse[] =
    "0016.HLO_passes_through_layout_assignment.after_cse.before_cse_barrier_expander";
constexpr char kBeforeLayout[] =
    "0017.HLO_passes_through_layout_assignment.after_flatten-call-graph.before_layout-assignment";
constexpr char kAfterLayout[] =
    "0018.HLO_passes_through_layout_assignment.after_layout-assignment.before_sub-byte-size-setter";
constexpr char kBeforeFusion[] =
    "0024.after_layout_assignment.after_pipeline-start.before_pipeline-end";
constexpr char kAfterFusion[] =
    "0025.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper";
constexpr char kAfterWrapper[] =
    "0026.HLO_passes_after_layout_assignment.after_fusion-wrapper.before_cpu-all-reduce-combiner";

std::unique_ptr<Module> LoadStep(const std::string& step) {
  std::string path = std::string(FUSEBOX_SOURCE_DIR) +
                     "/tests/data/xla_dumps/mnist_train_step/module_0000.jit_mnist_train_step." +
                     step + ".txt";
  auto parsed = ParseFile(path);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.size() != 1) return nullptr;
  return std::move(parsed->modules.front());
}

// Two steps of the dump and their diff, which points into them.
struct Compared {
  std::unique_ptr<Module> a;
  std::unique_ptr<Module> b;
  ModuleDiff diff;
  std::string Text() const { return DiffToText(diff, "a", "b"); }
};

Compared CompareSteps(const std::string& a, const std::string& b) {
  Compared c{LoadStep(a), LoadStep(b), {}};
  if (c.a && c.b) c.diff = DiffModules(*c.a, *c.b);
  return c;
}

// Every change is of `kind`; an added or removed one is an `opcode` instruction, a
// changed one has `detail` as its only detail.
void ExpectAll(const ModuleDiff& diff, ChangeKind kind, Opcode opcode,
               const std::string& detail = "") {
  for (const ComputationDiff& c : diff.computations) {
    for (const InstructionChange& change : c.changes) {
      EXPECT_EQ(change.kind, kind) << DiffToText(diff, "a", "b");
      const Instruction* inst = change.b ? change.b : change.a;
      if (kind == ChangeKind::kChanged) {
        EXPECT_EQ(change.details, std::vector<std::string>{detail});
      } else {
        EXPECT_EQ(inst->opcode(), opcode) << inst->ToString();
      }
    }
  }
}

TEST(StructuralDiffDumpsTest, EveryDumpAgainstItselfHasNoChanges) {
  for (const char* step :
       {kBeforeCse, kAfterCse, kAfterLayout, kBeforeFusion, kAfterFusion, kAfterWrapper}) {
    Compared c = CompareSteps(step, step);
    ASSERT_NE(c.a, nullptr);
    EXPECT_EQ(c.diff.changes(), 0) << step << "\n" << c.Text();
    EXPECT_EQ(c.diff.computations[0].identical, c.diff.computations[0].matched) << step;
  }
}

// XLA's CPU fusion pass made 14 loop fusions (the one fusion before it, ynn_fusion, stays).
TEST(StructuralDiffDumpsTest, FusionPassAddsItsFusionsAndNothingElse) {
  Compared c = CompareSteps(kBeforeFusion, kAfterFusion);
  EXPECT_EQ(c.diff.changes(), 14) << c.Text();
  EXPECT_EQ(c.diff.Count(ChangeKind::kAdded), 14);
  ExpectAll(c.diff, ChangeKind::kAdded, Opcode::kFusion);
  EXPECT_GT(c.diff.computations[0].moved_into_fusion, 50);
}

// The fusion wrapper wraps each op left alone into a fusion of its own.
TEST(StructuralDiffDumpsTest, FusionWrapperAddsOneFusionPerWrappedOp) {
  Compared c = CompareSteps(kAfterFusion, kAfterWrapper);
  EXPECT_EQ(c.diff.changes(), 6) << c.Text();
  ExpectAll(c.diff, ChangeKind::kAdded, Opcode::kFusion);
  EXPECT_EQ(c.diff.computations[0].moved_into_fusion, 6);
}

// CSE merged 13 instructions into equal ones; nothing was added or changed.
TEST(StructuralDiffDumpsTest, CseRemovesOnlyMergedCopies) {
  Compared c = CompareSteps(kBeforeCse, kAfterCse);
  EXPECT_EQ(c.diff.changes(), 13) << c.Text();
  EXPECT_EQ(c.diff.Count(ChangeKind::kRemoved), 13);
  for (const InstructionChange& change : c.diff.computations[0].changes) {
    ASSERT_FALSE(change.details.empty());
    EXPECT_EQ(change.details[0].rfind("merged: the same as %", 0), 0u) << change.details[0];
  }
}

// Layout assignment changed the layout of the weight gradient and its three users.
TEST(StructuralDiffDumpsTest, LayoutAssignmentChangesOnlyShapes) {
  Compared c = CompareSteps(kBeforeLayout, kAfterLayout);
  EXPECT_EQ(c.diff.changes(), 4) << c.Text();
  ExpectAll(c.diff, ChangeKind::kChanged, Opcode::kDot,
            "shape: f32[784,10]{0,1} -> f32[784,10]{1,0}");
}

}  // namespace
}  // namespace fusebox::analysis
