// Tests of the fusion graph model: collapsed and expanded fusions, folded constants,
// bypassed trivial ops, neighbourhoods, colours and the node budget.
#include "graph/fusion_graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"

namespace fusebox::graph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

constexpr char kTwoFusions[] = R"(
HloModule two_fusions

%fused_a (p0: f32[8], p1: f32[8]) -> f32[8] {
  %p0 = f32[8]{0} parameter(0)
  %p1 = f32[8]{0} parameter(1)
  ROOT %add.1 = f32[8]{0} add(%p0, %p1)
}

%add_reducer (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(%x, %y)
}

%fused_b (q0: f32[8]) -> f32[] {
  %q0 = f32[8]{0} parameter(0)
  %neg.1 = f32[8]{0} negate(%q0)
  %zero = f32[] constant(0)
  ROOT %reduce.1 = f32[] reduce(%neg.1, %zero), dimensions={0}, to_apply=%add_reducer
}

ENTRY %main (a: f32[8], b: f32[8]) -> (f32[8], f32[]) {
  %a = f32[8]{0} parameter(0), metadata={op_name="jit(f)/a" source_file="model.py" source_line=12}
  %b = f32[8]{0} parameter(1)
  %fusion.a = f32[8]{0} fusion(%a, %b), kind=kLoop, calls=%fused_a
  %fusion.b = f32[] fusion(%fusion.a), kind=kInput, calls=%fused_b
  ROOT %out = (f32[8]{0}, f32[]) tuple(%fusion.a, %fusion.b)
}
)";

std::unique_ptr<Module> Parse(const std::string& text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(module).value() : nullptr;
}

std::unique_ptr<Module> LoadExample(const std::string& name) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  return std::move(parsed->modules.front());
}

std::set<std::string> InstructionNames(const FusionGraph& g) {
  std::set<std::string> names;
  for (const GraphNode& n : g.nodes) {
    if (n.kind != NodeKind::kCutOff) names.insert(n.instruction);
  }
  return names;
}

bool HasEdge(const FusionGraph& g, const std::string& from, const std::string& to) {
  const GraphNode* f = g.FindNode(from);
  const GraphNode* t = g.FindNode(to);
  if (f == nullptr || t == nullptr) return false;
  return std::any_of(g.edges.begin(), g.edges.end(),
                     [&](const GraphEdge& e) { return e.from == f->id && e.to == t->id; });
}

TEST(FusionGraphTest, CollapsedFusionsAreOneNodeEach) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  auto g = BuildFusionGraph(*module, {});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->nodes.size(), 5u);
  EXPECT_EQ(g->edges.size(), 5u);
  EXPECT_TRUE(g->clusters.empty());
  EXPECT_THAT(InstructionNames(*g),
              UnorderedElementsAreArray({"a", "b", "fusion.a", "fusion.b", "out"}));
  EXPECT_TRUE(HasEdge(*g, "a", "fusion.a"));
  EXPECT_TRUE(HasEdge(*g, "fusion.a", "fusion.b"));
  EXPECT_TRUE(HasEdge(*g, "fusion.b", "out"));

  const GraphNode* fusion = g->FindNode("fusion.b");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->kind, NodeKind::kFusion);
  EXPECT_EQ(fusion->category, NodeCategory::kFusion);
  EXPECT_EQ(fusion->fusion, "fusion.b");
  ASSERT_GE(fusion->lines.size(), 2u);
  EXPECT_EQ(fusion->lines[0], "fusion kInput, 3 instructions");
  EXPECT_THAT(fusion->lines[1], HasSubstr("negate"));
  EXPECT_THAT(fusion->lines[1], HasSubstr("reduce"));

  const GraphNode* a = g->FindNode("a");
  ASSERT_NE(a, nullptr);
  EXPECT_THAT(a->tooltip, HasSubstr("op_name: jit(f)/a"));
  EXPECT_THAT(a->tooltip, HasSubstr("model.py:12"));
  EXPECT_THAT(a->tooltip, HasSubstr("f32[8]{0}"));
  EXPECT_EQ(a->computation, "main");
  EXPECT_TRUE(g->FindNode("out")->is_root);
}

TEST(FusionGraphTest, ExpandedFusionsAreClustersOfFusedInstructions) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.fusions = FusionDisplay::kExpandAll;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok()) << g.status().message();
  // The scalar constant of fused_b is folded into the reduce's label.
  EXPECT_THAT(InstructionNames(*g), UnorderedElementsAreArray({"a", "b", "p0", "p1", "add.1", "q0",
                                                               "neg.1", "reduce.1", "out"}));
  EXPECT_EQ(g->edges.size(), 9u);
  ASSERT_EQ(g->clusters.size(), 2u);
  EXPECT_EQ(g->clusters[0].kind, ClusterKind::kFusion);
  EXPECT_EQ(g->clusters[0].instruction, "fusion.a");
  EXPECT_EQ(g->clusters[0].fusion_kind, FusionKind::kLoop);
  EXPECT_EQ(g->clusters[1].instruction, "fusion.b");
  EXPECT_EQ(g->clusters[1].fusion_kind, FusionKind::kInput);
  for (const char* name : {"p0", "p1", "add.1"}) {
    EXPECT_EQ(g->FindNode(name)->cluster, 0) << name;
    EXPECT_EQ(g->FindNode(name)->fusion, "fusion.a") << name;
  }
  for (const char* name : {"q0", "neg.1", "reduce.1"})
    EXPECT_EQ(g->FindNode(name)->cluster, 1) << name;
  EXPECT_EQ(g->FindNode("a")->cluster, -1);
  // Fused parameters connect to the outer operands; users see the fused root.
  EXPECT_TRUE(HasEdge(*g, "a", "p0"));
  EXPECT_TRUE(HasEdge(*g, "b", "p1"));
  EXPECT_TRUE(HasEdge(*g, "add.1", "q0"));
  EXPECT_TRUE(HasEdge(*g, "add.1", "out"));
  EXPECT_TRUE(HasEdge(*g, "reduce.1", "out"));
  const GraphNode* reduce = g->FindNode("reduce.1");
  EXPECT_THAT(reduce->lines, ::testing::Contains("reduce dims={0} (add)"));
  EXPECT_THAT(reduce->lines, ::testing::Contains("operand 1 = 0 (f32[])"));
}

TEST(FusionGraphTest, ExpandSmallOnlyExpandsSmallFusions) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.fusions = FusionDisplay::kExpandSmall;
  options.expand_max_instructions = 3;  // fused_a has 3, fused_b 4
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->clusters.size(), 1u);
  EXPECT_EQ(g->clusters[0].instruction, "fusion.a");
  EXPECT_EQ(g->FindNode("fusion.b")->kind, NodeKind::kFusion);
  EXPECT_TRUE(HasEdge(*g, "add.1", "fusion.b"));
}

TEST(FusionGraphTest, ConstantsAndTrivialOps) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.fusions = FusionDisplay::kExpandAll;
  options.constants = ConstantDisplay::kShowAll;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok());
  ASSERT_NE(g->FindNode("zero"), nullptr);
  EXPECT_EQ(g->FindNode("zero")->category, NodeCategory::kConstant);
  EXPECT_TRUE(HasEdge(*g, "zero", "reduce.1"));

  FusionGraphOptions hidden;
  hidden.show_trivial = false;
  auto h = BuildFusionGraph(*module, hidden);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->FindNode("out"), nullptr);
  EXPECT_EQ(h->nodes.size(), 4u);
  EXPECT_EQ(h->edges.size(), 3u);
}

TEST(FusionGraphTest, BypassedGetTupleElementConnectsToTheTupleOperand) {
  auto module = Parse(R"(
HloModule gte
ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %t = (f32[4]{0}, f32[4]{0}) tuple(%x, %y)
  %g1 = f32[4]{0} get-tuple-element(%t), index=1
  ROOT %n = f32[4]{0} negate(%g1)
}
)");
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.show_trivial = false;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok());
  EXPECT_THAT(InstructionNames(*g), UnorderedElementsAreArray({"x", "y", "n"}));
  ASSERT_EQ(g->edges.size(), 1u);
  EXPECT_TRUE(HasEdge(*g, "y", "n"));
}

TEST(FusionGraphTest, ColoursFollowOpCategories) {
  auto module = Parse(R"(
HloModule colours
ENTRY %main (x: f32[16,16], s: f32[]) -> f32[16,16] {
  %x = f32[16,16]{1,0} parameter(0)
  %s = f32[] parameter(1)
  %neg = f32[] negate(%s)
  %b = f32[16,16]{1,0} broadcast(%neg), dimensions={}
  %m = f32[16,16]{1,0} multiply(%x, %b)
  %d = f32[16,16]{1,0} dot(%m, %x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %t = f32[16,16]{0,1} transpose(%d), dimensions={1,0}
}
)");
  ASSERT_NE(module, nullptr);
  auto g = BuildFusionGraph(*module, {});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->FindNode("x")->category, NodeCategory::kParameter);
  EXPECT_EQ(g->FindNode("neg")->category, NodeCategory::kScalar);
  EXPECT_EQ(g->FindNode("b")->category, NodeCategory::kDataMovement);
  EXPECT_EQ(g->FindNode("m")->category, NodeCategory::kElementwise);
  EXPECT_EQ(g->FindNode("d")->category, NodeCategory::kDotConvolution);
  EXPECT_EQ(g->FindNode("t")->category, NodeCategory::kDataMovement);
  EXPECT_STREQ(StyleFor(NodeCategory::kDotConvolution).fill, "#1565c0");
  EXPECT_STREQ(StyleFor(NodeCategory::kDotConvolution).font, "white");
  EXPECT_STREQ(StyleFor(NodeCategory::kElementwise).fill, "#fff9c4");
  EXPECT_STREQ(StyleFor(NodeCategory::kReduction).fill, "#e1bee7");
  EXPECT_STREQ(StyleFor(NodeCategory::kParameter).fill, "#ffe0b2");
  EXPECT_TRUE(StyleFor(NodeCategory::kCutOff).dashed);
  EXPECT_STRNE(StyleForFusionKind(FusionKind::kLoop).fill,
               StyleForFusionKind(FusionKind::kInput).fill);
  // Every colour is distinct between the categories a user must tell apart.
  std::set<std::string> fills;
  for (NodeCategory c :
       {NodeCategory::kElementwise, NodeCategory::kDataMovement, NodeCategory::kReduction,
        NodeCategory::kDotConvolution, NodeCategory::kParameter, NodeCategory::kConstant,
        NodeCategory::kControlFlow, NodeCategory::kFusion, NodeCategory::kCustomCall}) {
    fills.insert(StyleFor(c).fill);
  }
  EXPECT_EQ(fills.size(), 9u);
  // The legend lists exactly the categories drawn.
  std::vector<NodeCategory> legend;
  for (const LegendEntry& e : g->legend) legend.push_back(e.category);
  EXPECT_THAT(legend, ElementsAre(NodeCategory::kElementwise, NodeCategory::kScalar,
                                  NodeCategory::kDataMovement, NodeCategory::kDotConvolution,
                                  NodeCategory::kParameter));
}

TEST(FusionGraphTest, WhileBodiesAreComputationClusters) {
  auto module = Parse(R"(
HloModule loop
%cond (c: (s32[], f32[4])) -> pred[] {
  %c = (s32[], f32[4]{0}) parameter(0)
  %ci = s32[] get-tuple-element(%c), index=0
  %n = s32[] constant(10)
  ROOT %lt = pred[] compare(%ci, %n), direction=LT
}
%body (p: (s32[], f32[4])) -> (s32[], f32[4]) {
  %p = (s32[], f32[4]{0}) parameter(0)
  %bi = s32[] get-tuple-element(%p), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%bi, %one)
  %v = f32[4]{0} get-tuple-element(%p), index=1
  %e = f32[4]{0} exponential(%v)
  ROOT %r = (s32[], f32[4]{0}) tuple(%next, %e)
}
ENTRY %main (x: f32[4]) -> (s32[], f32[4]) {
  %x = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%zero, %x)
  ROOT %w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body
}
)");
  ASSERT_NE(module, nullptr);
  auto g = BuildFusionGraph(*module, {});
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->clusters.size(), 2u);
  for (const GraphCluster& c : g->clusters) {
    EXPECT_EQ(c.kind, ClusterKind::kComputation);
    EXPECT_EQ(c.instruction, "w");
  }
  const GraphNode* lt = g->FindNode("lt");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->computation, "cond");
  EXPECT_GE(lt->cluster, 0);
  bool call_edge = false;
  for (const GraphEdge& e : g->edges) {
    call_edge |= e.kind == EdgeKind::kCall && e.to == g->FindNode("w")->id;
  }
  EXPECT_TRUE(call_edge);
  EXPECT_EQ(g->FindNode("w")->category, NodeCategory::kControlFlow);
}

// mnist_train_step.hlo, unoptimized, as loaded:
//   %add.16 = broadcast(%add.15);  %add.17 = add(%dot_general.2, %add.16)
//   %dot_general.2 = dot(%images.1, %params_0_.1)
//   %jvp_jit_log_softmax__.4 = call(%add.17), users: get-tuple-element .5, .6, .7
TEST(FusionGraphTest, NeighbourhoodOfRadiusOne) {
  auto module = LoadExample("mnist_train_step.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.center = "add.17";
  options.radius = 1;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_THAT(InstructionNames(*g), UnorderedElementsAreArray({"add.17", "dot_general.2", "add.16",
                                                               "jvp_jit_log_softmax__.4"}));
  EXPECT_TRUE(g->FindNode("add.17")->is_center);
  const GraphNode* dot = g->FindNode("dot_general.2");
  EXPECT_EQ(dot->hidden_operands, 2);
  // Border markers say what is left out.
  bool marker = false;
  for (const GraphNode& n : g->nodes) {
    if (n.kind == NodeKind::kCutOff && n.title == "\u2026 2 more operands") {
      marker |= std::any_of(g->edges.begin(), g->edges.end(), [&](const GraphEdge& e) {
        return e.from == n.id && e.to == dot->id && e.kind == EdgeKind::kCutOff;
      });
    }
  }
  EXPECT_TRUE(marker);
  EXPECT_EQ(g->FindNode("jvp_jit_log_softmax__.4")->hidden_users, 3);
  EXPECT_EQ(g->FindNode("add.17")->hidden_operands, 0);
  EXPECT_EQ(g->FindNode("add.17")->hidden_users, 0);
}

TEST(FusionGraphTest, NeighbourhoodOfRadiusTwo) {
  auto module = LoadExample("mnist_train_step.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.center = "%add.17";
  options.radius = 2;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_THAT(
      InstructionNames(*g),
      UnorderedElementsAreArray({"add.17", "dot_general.2", "add.16", "images.1", "params_0_.1",
                                 "add.15", "jvp_jit_log_softmax__.4", "jvp_jit_log_softmax__.5",
                                 "jvp_jit_log_softmax__.6", "jvp_jit_log_softmax__.7"}));
}

TEST(FusionGraphTest, NeighbourhoodCrossesIntoFusions) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.center = "neg.1";  // fused: its fusion is expanded even though fusions collapse
  options.radius = 2;
  auto g = BuildFusionGraph(*module, options);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_THAT(InstructionNames(*g),
              UnorderedElementsAreArray({"neg.1", "q0", "fusion.a", "reduce.1", "out"}));
  EXPECT_EQ(g->FindNode("neg.1")->fusion, "fusion.b");
  ASSERT_EQ(g->clusters.size(), 1u);
  EXPECT_EQ(g->clusters[0].instruction, "fusion.b");
}

TEST(FusionGraphTest, UnknownCenterSuggestsNames) {
  auto module = LoadExample("mnist_train_step.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.center = "add.71";
  auto g = BuildFusionGraph(*module, options);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(g.status().message(), HasSubstr("no instruction %add.71"));
  EXPECT_THAT(g.status().message(), HasSubstr("did you mean"));
  EXPECT_THAT(g.status().message(), HasSubstr("%add.17"));
  EXPECT_FALSE(IsGraphTooBig(g.status()));

  options.center = "sum";  // a reducer's instruction: not drawn
  auto reducer = BuildFusionGraph(*Parse(kTwoFusions), options);
  ASSERT_FALSE(reducer.ok());
  EXPECT_THAT(reducer.status().message(), HasSubstr("not drawn"));
}

std::string LargestCorpusFile() {
  std::string best;
  std::uintmax_t best_size = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_corpus")) {
    if (!entry.is_regular_file()) continue;
    std::string ext = entry.path().extension().string();
    if (ext != ".hlo" && ext != ".txt") continue;
    if (entry.file_size() > best_size) {
      best_size = entry.file_size();
      best = entry.path().string();
    }
  }
  return best;
}

TEST(FusionGraphTest, NodeBudgetCollapsesThenRefusesOnTheLargestCorpusModule) {
  std::string path = LargestCorpusFile();
  ASSERT_FALSE(path.empty());
  auto parsed = ParseFile(path);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_FALSE(parsed->modules.empty());
  session::CompileSession session(std::move(parsed->modules.front()));
  passes::PipelineOptions popts;
  popts.snapshot_pass_regex = "";
  ASSERT_TRUE(session.Optimize(popts).ok());
  const Module& module = *session.optimized_module();

  FusionGraphOptions collapsed;
  collapsed.max_nodes = 0;
  auto c = BuildFusionGraph(module, collapsed);
  ASSERT_TRUE(c.ok());
  FusionGraphOptions expanded = collapsed;
  expanded.fusions = FusionDisplay::kExpandAll;
  auto e = BuildFusionGraph(module, expanded);
  ASSERT_TRUE(e.ok());
  ASSERT_GT(e->nodes.size(), c->nodes.size()) << path << " has no fusions after the pipeline";
  std::cout << path << ": " << c->nodes.size() << " nodes collapsed, " << e->nodes.size()
            << " expanded\n";

  // Over the budget expanded, within it collapsed: collapsed automatically, with a note.
  expanded.max_nodes = static_cast<int>(c->nodes.size());
  auto auto_collapsed = BuildFusionGraph(module, expanded);
  ASSERT_TRUE(auto_collapsed.ok());
  EXPECT_TRUE(auto_collapsed->fusions_auto_collapsed);
  EXPECT_EQ(auto_collapsed->nodes.size(), c->nodes.size());
  for (const GraphCluster& cluster : auto_collapsed->clusters) {
    EXPECT_EQ(cluster.kind, ClusterKind::kComputation);  // loop bodies stay; fusions are gone
  }
  ASSERT_FALSE(auto_collapsed->notes.empty());
  EXPECT_THAT(auto_collapsed->notes[0], HasSubstr("fusions collapsed"));

  // Over it even collapsed: a clear status, and a neighbourhood still works.
  expanded.max_nodes = static_cast<int>(c->nodes.size()) - 1;
  auto too_big = BuildFusionGraph(module, expanded);
  ASSERT_FALSE(too_big.ok());
  EXPECT_TRUE(IsGraphTooBig(too_big.status()));
  EXPECT_THAT(too_big.status().message(), HasSubstr("neighbourhood"));
  expanded.center = module.entry()->root()->name();
  expanded.radius = 1;
  auto around = BuildFusionGraph(module, expanded);
  ASSERT_TRUE(around.ok()) << around.status().message();
  EXPECT_LE(static_cast<int>(around->nodes.size()), expanded.max_nodes);

  // The default budget either fits or refuses cleanly.
  auto by_default = BuildFusionGraph(module, {});
  EXPECT_TRUE(by_default.ok() || IsGraphTooBig(by_default.status()));
}

TEST(FusionGraphTest, SimilarNames) {
  auto module = Parse(kTwoFusions);
  ASSERT_NE(module, nullptr);
  auto similar = SimilarInstructionNames(*module, "fusion.c");
  ASSERT_FALSE(similar.empty());
  EXPECT_THAT(similar[0], ::testing::StartsWith("fusion."));
}

}  // namespace
}  // namespace fusebox::graph
