// Tests of grouping the fusion graph by op_name scope (graph/scope_grouping.h), folding
// parameters and tuples, and the layout per expanded scope (ComposedLayout): a small
// module with a stage/block/layer hierarchy, and the ResNet-50 made by
// scripts/make_resnet50.sh --scoped.
#include "graph/scope_grouping.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "graph/graph_layout.h"
#include "tests/graph/optimized_session.h"

namespace fusebox::graph {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// tests/data/graph/two_stages.hlo: model/stage1/block1 (2 ops), model/stage1/block2
// (2 ops), model/stage2/block1 (2 ops), and an unscoped output op; every op reads one
// parameter. stage2 wraps one block only, so it is drawn as one scope "stage2/block1".
std::string Stages() {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/graph/two_stages.hlo";
}

std::unique_ptr<Module> Load(const std::string& path) {
  auto parsed = ParseFile(path);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  return std::move(parsed->modules.front());
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(module).value() : nullptr;
}

FusionGraph Build(const Module& module, const FusionGraphOptions& options) {
  auto graph = BuildFusionGraph(module, options);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  return graph.ok() ? std::move(graph).value() : FusionGraph();
}

FusionGraphOptions Grouped(int collapse_depth) {
  FusionGraphOptions options;
  options.fold_parameters = true;
  options.show_trivial = false;
  options.scopes.enabled = true;
  options.scopes.collapse_depth = collapse_depth;
  return options;
}

const GraphNode* ScopeNode(const FusionGraph& g, const std::string& path) {
  for (const GraphNode& node : g.nodes) {
    if (node.kind == NodeKind::kScope && node.scope == path) return &node;
  }
  return nullptr;
}

const GraphCluster* ScopeCluster(const FusionGraph& g, const std::string& path) {
  for (const GraphCluster& cluster : g.clusters) {
    if (cluster.kind == ClusterKind::kScope && cluster.scope == path) return &cluster;
  }
  return nullptr;
}

std::set<std::string> Titles(const FusionGraph& g) {
  std::set<std::string> titles;
  for (const GraphNode& node : g.nodes) titles.insert(node.title);
  return titles;
}

TEST(ScopeGroupingTest, ScopeOfOpNameDropsWrappersAndTheOp) {
  EXPECT_EQ(ScopeOfOpName("jit(resnet50)/resnet50/stage2/block1/conv2/conv_general_dilated"),
            "resnet50/stage2/block1/conv2");
  EXPECT_EQ(ScopeOfOpName("model/conv2d/Conv2D"), "model/conv2d");  // Keras, no wrapper
  EXPECT_EQ(ScopeOfOpName("jit(f)/jit(main)/dense/mul"), "dense");
  // A '/' inside a transform's parentheses does not split.
  EXPECT_EQ(ScopeOfOpName("jit(f)/transpose(jvp(a/b))/dense/mul"), "transpose(jvp(a/b))/dense");
  EXPECT_EQ(ScopeOfOpName("jit(f)/add"), "");
  EXPECT_EQ(ScopeOfOpName("add"), "");
  EXPECT_EQ(ScopeOfOpName(""), "");
  EXPECT_EQ(CommonScope("a/b/c", "a/b/d"), "a/b");
  EXPECT_EQ(CommonScope("a/bc", "a/b"), "a");  // whole components only
  EXPECT_EQ(CommonScope("x", "y"), "");
}

TEST(ScopeGroupingTest, NodesCarryTheirScope) {
  auto module = Load(Stages());
  ASSERT_NE(module, nullptr);
  FusionGraph flat = Build(*module, {});
  ASSERT_NE(flat.FindNode("c"), nullptr);
  EXPECT_EQ(flat.FindNode("c")->scope, "model/stage1/block2/dense");
  EXPECT_EQ(flat.FindNode("g")->scope, "");
  EXPECT_EQ(flat.FindNode("x")->scope, "");
}

TEST(ScopeGroupingTest, CollapsedTopLevelDrawsOneNodePerStageWithMergedEdges) {
  auto module = Load(Stages());
  ASSERT_NE(module, nullptr);
  FusionGraph g = Build(*module, Grouped(0));
  EXPECT_EQ(g.scope_prefix, "model");  // shared by every scoped op: left out
  EXPECT_THAT(g.title, HasSubstr("model"));
  // stage1, stage2 and the unscoped negate; parameters folded, the root tuple bypassed.
  EXPECT_THAT(Titles(g), UnorderedElementsAre("stage1", "stage2/block1", "g"));
  const GraphNode* stage1 = ScopeNode(g, "model/stage1");
  const GraphNode* stage2 = ScopeNode(g, "model/stage2/block1");
  ASSERT_NE(stage1, nullptr);
  ASSERT_NE(stage2, nullptr);
  EXPECT_EQ(stage1->member_count, 4);
  EXPECT_EQ(stage1->category, NodeCategory::kScope);
  EXPECT_THAT(stage1->lines, Contains(HasSubstr("blocks 1-2, 4 ops, 4 params")));
  EXPECT_THAT(stage1->lines, Contains("add \u00d72, multiply \u00d72"));
  // d -> e and d -> f become one edge stage1 -> stage2 counting both; b -> c, b -> d and
  // the like inside stage1 are gone.
  int between = 0, total_count = 0;
  for (const GraphEdge& e : g.edges) {
    EXPECT_NE(e.from, e.to);
    if (e.from == stage1->id && e.to == stage2->id) {
      ++between;
      total_count += e.count;
    }
  }
  EXPECT_EQ(between, 1);
  EXPECT_EQ(total_count, 2);
  // Instructions inside a collapsed scope are found through it (the selection's outline).
  ASSERT_NE(g.NodeDrawing("c"), nullptr);
  EXPECT_EQ(g.NodeDrawing("c")->id, stage1->id);
  EXPECT_EQ(g.NodeDrawing("g")->title, "g");
  EXPECT_EQ(g.NodeDrawing("nothing"), nullptr);
  // The collapsed scope's colour is in the legend.
  EXPECT_TRUE(std::any_of(g.legend.begin(), g.legend.end(),
                          [](const LegendEntry& e) { return e.category == NodeCategory::kScope; }));
}

TEST(ScopeGroupingTest, ExpandingAScopeMakesItAClusterOfItsChildren) {
  auto module = Load(Stages());
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options = Grouped(0);
  options.scopes.expanded["model/stage1"] = true;  // a click
  FusionGraph g = Build(*module, options);
  const GraphCluster* stage1 = ScopeCluster(g, "model/stage1");
  ASSERT_NE(stage1, nullptr);
  EXPECT_EQ(stage1->label, "stage1 (4 ops)");
  EXPECT_EQ(stage1->parent, -1);
  EXPECT_EQ(ScopeNode(g, "model/stage1"), nullptr);
  EXPECT_NE(ScopeNode(g, "model/stage2/block1"), nullptr);
  // Its blocks are collapsed scopes inside its box.
  const GraphNode* block1 = ScopeNode(g, "model/stage1/block1");
  const GraphNode* block2 = ScopeNode(g, "model/stage1/block2");
  ASSERT_NE(block1, nullptr);
  ASSERT_NE(block2, nullptr);
  EXPECT_EQ(block1->cluster, stage1->id);
  EXPECT_EQ(block2->cluster, stage1->id);
  EXPECT_EQ(block1->member_count, 2);
  // And collapsing it again (the box's title clicked) gives the top level back.
  options.scopes.expanded["model/stage1"] = false;
  FusionGraph again = Build(*module, options);
  EXPECT_EQ(ScopeCluster(again, "model/stage1"), nullptr);
  EXPECT_NE(ScopeNode(again, "model/stage1"), nullptr);
}

TEST(ScopeGroupingTest, DepthRuleExpandsAsDeepAsTheBudgetAllows) {
  auto module = Load(Stages());
  ASSERT_NE(module, nullptr);
  // Everything fits in 40 nodes: every scope is an expanded box, no scope nodes.
  FusionGraph all = Build(*module, Grouped(-1));
  EXPECT_EQ(ScopeNode(all, "model/stage1"), nullptr);
  EXPECT_NE(ScopeCluster(all, "model/stage1"), nullptr);
  EXPECT_NE(ScopeCluster(all, "model/stage1/block1"), nullptr);
  EXPECT_EQ(all.instruction_node_count(), 7);
  // A budget of 5: the top level expanded (stage1's block1 and block2, stage2/block1's e
  // and f, and g: 5 nodes), blocks collapsed.
  FusionGraphOptions options = Grouped(-1);
  options.scopes.budget = 5;
  FusionGraph blocks = Build(*module, options);
  EXPECT_NE(ScopeCluster(blocks, "model/stage1"), nullptr);
  EXPECT_NE(ScopeCluster(blocks, "model/stage2/block1"), nullptr);
  EXPECT_NE(ScopeNode(blocks, "model/stage1/block1"), nullptr);
  EXPECT_EQ(blocks.instruction_node_count(), 5);
  // 4 is one too few for that: the top level collapsed.
  options.scopes.budget = 4;
  EXPECT_NE(ScopeNode(Build(*module, options), "model/stage1"), nullptr);
  // A budget of 1 cannot be met: the top level, collapsed.
  options.scopes.budget = 1;
  FusionGraph top = Build(*module, options);
  EXPECT_NE(ScopeNode(top, "model/stage1"), nullptr);
  EXPECT_EQ(top.instruction_node_count(), 3);
}

TEST(ScopeGroupingTest, ParametersFoldIntoTheirUsersAndTheRootTupleIntoOutputs) {
  auto module = Load(Stages());
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options;
  options.fold_parameters = true;
  options.show_trivial = false;
  FusionGraph g = Build(*module, options);
  EXPECT_EQ(g.FindNode("w0"), nullptr);
  EXPECT_EQ(g.FindNode("out"), nullptr);
  for (const GraphNode& node : g.nodes) EXPECT_NE(node.category, NodeCategory::kParameter);
  const GraphNode* a = g.FindNode("a");
  ASSERT_NE(a, nullptr);
  EXPECT_THAT(a->lines, Contains("operand 0 = parameter 0 f32[4]"));
  EXPECT_THAT(a->lines, Contains("operand 1 = parameter 1 f32[4]"));
  EXPECT_EQ(a->folded_parameters, 2);
  // The outputs the bypassed tuple gathered say so.
  EXPECT_THAT(g.FindNode("g")->lines, Contains("ROOT output 0"));
  EXPECT_THAT(g.FindNode("b")->lines, Contains("ROOT output 1"));
  EXPECT_TRUE(g.FindNode("b")->is_root);
  // Not folded: parameters are nodes, as before.
  FusionGraph plain = Build(*module, {});
  EXPECT_NE(plain.FindNode("w0"), nullptr);
  EXPECT_EQ(plain.FindNode("a")->folded_parameters, 0);
}

TEST(ScopeGroupingTest, WithoutScopesTheGraphStaysFlat) {
  auto module = Parse(R"(
HloModule flat
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %n = f32[4]{0} negate(%p), metadata={op_name="jit(f)/neg"}
  ROOT %e = f32[4]{0} exponential(%n)
}
)");
  ASSERT_NE(module, nullptr);
  FusionGraph g = Build(*module, Grouped(0));
  EXPECT_EQ(g.instruction_node_count(), 2);
  EXPECT_TRUE(g.clusters.empty());
  EXPECT_EQ(g.scope_prefix, "");
  // An empty graph too.
  ScopeOptions on;
  on.enabled = true;
  EXPECT_TRUE(GroupByScope(FusionGraph(), on).nodes.empty());
}

TEST(ScopeGroupingTest, AWhileLoopGoesWithItsCallersScope) {
  auto module = Parse(R"(
HloModule loop
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (t: (s32[], f32[4])) -> (s32[], f32[4]) {
  %t = (s32[], f32[4]{0}) parameter(0)
  %j = s32[] get-tuple-element(%t), index=0
  %v = f32[4]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %j1 = s32[] add(%j, %one)
  %v1 = f32[4]{0} exponential(%v)
  ROOT %r = (s32[], f32[4]{0}) tuple(%j1, %v1)
}
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[4]{0}) tuple(%zero, %p), metadata={op_name="jit(f)/net/loop/tuple"}
  %w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body, metadata={op_name="jit(f)/net/loop/while"}
  %res = f32[4]{0} get-tuple-element(%w), index=1, metadata={op_name="jit(f)/net/loop/gte"}
  %a = f32[4]{0} negate(%res), metadata={op_name="jit(f)/net/out/neg"}
  ROOT %b = f32[4]{0} exponential(%a), metadata={op_name="jit(f)/net/out/exp"}
}
)");
  ASSERT_NE(module, nullptr);
  FusionGraphOptions options = Grouped(0);
  options.show_trivial = true;
  FusionGraph g = Build(*module, options);
  // net/loop holds the while and its body and condition clusters: one node, and the
  // loop's back edge (body root -> while) is inside it and gone.
  const GraphNode* loop = ScopeNode(g, "net/loop");
  ASSERT_NE(loop, nullptr);
  EXPECT_GE(loop->member_count, 6);
  EXPECT_TRUE(g.clusters.empty());
  EXPECT_EQ(g.NodeDrawing("v1")->id, loop->id);
  // Expanded, the body and condition clusters sit inside the scope's box.
  options.scopes.expanded["net/loop"] = true;
  FusionGraph open = Build(*module, options);
  const GraphCluster* box = ScopeCluster(open, "net/loop");
  ASSERT_NE(box, nullptr);
  int inside = 0;
  for (const GraphCluster& c : open.clusters)
    inside += c.kind == ClusterKind::kComputation && c.parent == box->id;
  EXPECT_EQ(inside, 2);
  auto layout = ComposedLayout(open, {});
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  EXPECT_EQ(layout->nodes.size(), open.nodes.size());
}

// Two scopes that feed each other (x -> y -> x -> y) are a cycle once collapsed or
// composed: the edges merge both ways and the composed layout still places everything.
TEST(ScopeGroupingTest, ScopesFeedingEachOtherFormACycle) {
  auto module = Parse(R"(
HloModule cycle
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %a = f32[4]{0} negate(%p), metadata={op_name="jit(f)/net/x/neg"}
  %a2 = f32[4]{0} exponential(%a), metadata={op_name="jit(f)/net/x/exp"}
  %b = f32[4]{0} negate(%a2), metadata={op_name="jit(f)/net/y/neg"}
  %b2 = f32[4]{0} exponential(%b), metadata={op_name="jit(f)/net/y/exp"}
  %c = f32[4]{0} negate(%b2), metadata={op_name="jit(f)/net/x/neg"}
  %d = f32[4]{0} negate(%c), metadata={op_name="jit(f)/net/y/neg"}
  ROOT %e = f32[4]{0} add(%d, %a2), metadata={op_name="jit(f)/net/y/add"}
}
)");
  ASSERT_NE(module, nullptr);
  FusionGraph collapsed = Build(*module, Grouped(0));
  const GraphNode* x = ScopeNode(collapsed, "net/x");
  const GraphNode* y = ScopeNode(collapsed, "net/y");
  ASSERT_NE(x, nullptr);
  ASSERT_NE(y, nullptr);
  int x_to_y = 0, y_to_x = 0;
  for (const GraphEdge& e : collapsed.edges) {
    if (e.from == x->id && e.to == y->id) x_to_y += e.count;
    if (e.from == y->id && e.to == x->id) y_to_x += e.count;
  }
  EXPECT_EQ(x_to_y, 3);  // a2 -> b, c -> d, a2 -> e
  EXPECT_EQ(y_to_x, 1);  // b2 -> c
  FusionGraph open = Build(*module, Grouped(-1));
  ASSERT_NE(ScopeCluster(open, "net/x"), nullptr);
  ASSERT_NE(ScopeCluster(open, "net/y"), nullptr);
  auto layout = ComposedLayout(open, {});
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  ASSERT_EQ(layout->nodes.size(), open.nodes.size());
  for (const NodeBox& box : layout->nodes) EXPECT_GT(box.w, 0);
}

// --- The ResNet-50 of scripts/make_resnet50.sh --scoped ---

std::unique_ptr<session::CompileSession> ResNet50() {
  return testing_util::OptimizedSession(std::string(FUSEBOX_SOURCE_DIR) +
                                        "/tests/data/graph/resnet50_scoped.hlo");
}

TEST(ScopeGroupingTest, ResNet50OpensAsItsStagesAndBlocks) {
  auto session = ResNet50();
  ASSERT_NE(session, nullptr);
  for (const Module* module : {&session->input(), session->optimized_module()}) {
    SCOPED_TRACE(module == &session->input() ? "input" : "optimized");
    FusionGraph g = Build(*module, Grouped(-1));
    EXPECT_EQ(g.scope_prefix, "resnet50");
    // Stages are boxes, their blocks collapsed nodes: 3 + 4 + 6 + 3.
    for (const char* stage : {"stage1", "stage2", "stage3", "stage4"})
      EXPECT_NE(ScopeCluster(g, std::string("resnet50/") + stage), nullptr) << stage;
    int blocks = 0;
    for (const GraphNode& node : g.nodes)
      blocks += node.kind == NodeKind::kScope && node.title.rfind("block", 0) == 0;
    EXPECT_EQ(blocks, 16);
    EXPECT_LE(g.instruction_node_count(), 40);  // the budget
    // The stem's convolution reads 6 parameters (image, weights, 4 statistics): one line.
    bool six = false;
    for (const GraphNode& node : g.nodes) {
      for (const std::string& line : node.lines) six |= line.rfind("+ 6 parameters: ", 0) == 0;
    }
    EXPECT_EQ(six, module != &session->input()) << "optimized: the stem's fusion";
    ASSERT_NE(ScopeNode(g, "resnet50/stage3/block2"), nullptr);
    EXPECT_EQ(ScopeNode(g, "resnet50/stage3/block2")->cluster,
              ScopeCluster(g, "resnet50/stage3")->id);
  }
}

// Every node of a cluster lies inside the cluster's box.
void ExpectNodesInsideClusters(const FusionGraph& g, const GraphLayout& layout) {
  for (const GraphNode& node : g.nodes) {
    for (int c = node.cluster; c >= 0; c = g.clusters[c].parent) {
      const NodeBox& b = layout.clusters[c].box;
      const NodeBox& n = layout.nodes[node.id];
      EXPECT_TRUE(n.x >= b.x - 0.5 && n.y >= b.y - 0.5 && n.x + n.w <= b.x + b.w + 0.5 &&
                  n.y + n.h <= b.y + b.h + 0.5)
          << node.title << " outside " << g.clusters[c].label;
    }
  }
}

TEST(ScopeGroupingTest, ResNet50ComposedLayoutFitsAPaneBetterThanOneDotRun) {
  auto session = ResNet50();
  ASSERT_NE(session, nullptr);
  FusionGraph g = Build(*session->optimized_module(), Grouped(-1));
  LayoutOptions options;
  options.aspect = 1.6;
  auto composed = ComposedLayout(g, options);
  ASSERT_TRUE(composed.ok()) << composed.status().message();
  ASSERT_EQ(composed->nodes.size(), g.nodes.size());
  ASSERT_EQ(composed->edges.size(), g.edges.size());
  ASSERT_EQ(composed->clusters.size(), g.clusters.size());
  ExpectNodesInsideClusters(g, *composed);
  for (const EdgePath& path : composed->edges) EXPECT_GE(path.points.size(), 2u);
  // Top-level stage boxes do not overlap.
  for (size_t i = 0; i < g.clusters.size(); ++i) {
    for (size_t j = i + 1; j < g.clusters.size(); ++j) {
      if (g.clusters[i].parent >= 0 || g.clusters[j].parent >= 0) continue;
      const NodeBox& a = composed->clusters[i].box;
      const NodeBox& b = composed->clusters[j].box;
      EXPECT_TRUE(a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y)
          << g.clusters[i].label << " overlaps " << g.clusters[j].label;
    }
  }
  // `dot` on the whole graph stacks 18 blocks in one chain; the composition shows the
  // same graph in a 1.6 : 1 pane at well over twice the zoom.
  auto whole = Layout(g, {});
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  auto fit = [&](const GraphLayout& l) { return std::min(1.6 / l.width, 1.0 / l.height); };
  EXPECT_GT(fit(*composed), 2 * fit(*whole))
      << "composed " << composed->width << "x" << composed->height << ", dot " << whole->width
      << "x" << whole->height;
  // Layout() itself composes when asked to.
  options.compose_scopes = true;
  auto via_layout = Layout(g, options);
  ASSERT_TRUE(via_layout.ok());
  EXPECT_DOUBLE_EQ(via_layout->width, composed->width);
}

}  // namespace
}  // namespace fusebox::graph
