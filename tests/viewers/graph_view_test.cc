// Headless tests of the fusion graph view: the MNIST training step laid out by Graphviz
// (collapsed and expanded fusions) and a hand-made 3000-node layout, drawn through a
// real ImGui context (tests/viewers/imgui_harness.h) and driven with mouse input: fit,
// wheel zoom around the cursor, drag to pan, click to select, culling, selection colours.
#include "viewers/graph_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "tests/graph/optimized_session.h"
#include "tests/viewers/imgui_harness.h"

namespace fusebox::viewers {
namespace {

using graph::FusionGraph;
using graph::GraphLayout;
using testing::FrameStats;
using testing::ImGuiHarness;

// The view's colours the tests look for in the draw data.
constexpr ImU32 kSelectColor = IM_COL32(216, 27, 96, 255);
constexpr ImU32 kOperandEdge = IM_COL32(2, 136, 209, 255);
constexpr ImU32 kUserEdge = IM_COL32(230, 81, 0, 255);

// The example after Fusebox's pipeline; the session owns the module.
std::unique_ptr<session::CompileSession> OptimizedExample(const std::string& name) {
  return testing_util::OptimizedSession(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
}

struct LaidOut {
  FusionGraph graph;
  GraphLayout layout;
};

// The optimized MNIST step's graph and layout, built once per fusion display.
const LaidOut& Mnist(graph::FusionDisplay fusions) {
  static std::unique_ptr<session::CompileSession> session = OptimizedExample("mnist_train_step.hlo");
  static LaidOut collapsed, expanded;
  static bool built[2] = {false, false};
  const int which = fusions == graph::FusionDisplay::kCollapseAll ? 0 : 1;
  LaidOut& out = which == 0 ? collapsed : expanded;
  if (!built[which] && session != nullptr) {
    built[which] = true;
    graph::FusionGraphOptions options;
    options.fusions = fusions;
    auto g = graph::BuildFusionGraph(*session->optimized_module(), options);
    EXPECT_TRUE(g.ok()) << g.status().message();
    if (g.ok()) {
      auto layout = graph::Layout(*g);
      EXPECT_TRUE(layout.ok()) << layout.status().message();
      if (layout.ok()) {
        out.graph = std::move(g).value();
        out.layout = std::move(layout).value();
      }
    }
  }
  return out;
}

// Draws one frame of `view`; returns what Draw returned.
std::optional<std::string> DrawFrame(ImGuiHarness& h, GraphView& view,
                                     FrameStats* stats = nullptr) {
  std::optional<std::string> result;
  FrameStats s = h.Frame([&] {
    auto clicked = view.Draw("graph");
    if (clicked) result = clicked;
  });
  if (stats) *stats = s;
  return result;
}

// Clicks at (x, y) over the three frames of ImGuiHarness::Click; returns the click's result.
std::optional<std::string> ClickAt(ImGuiHarness& h, GraphView& view, float x, float y) {
  std::optional<std::string> result;
  h.Click(x, y, [&] {
    auto clicked = view.Draw("graph");
    if (clicked) result = clicked;
  });
  // Let the double-click window pass, so the next click in a test is a single click.
  for (int i = 0; i < 30; ++i) DrawFrame(h, view);
  return result;
}

graph::Point ScreenCenter(const GraphView& view, int node) {
  return view.LayoutToScreen(view.layout().nodes[node].center());
}

// Whether the last frame drew any vertex of exactly `color`.
bool DrewColor(ImU32 color) {
  ImDrawData* data = ImGui::GetDrawData();
  for (int i = 0; data != nullptr && i < data->CmdListsCount; ++i) {
    const ImDrawList* list = data->CmdLists[i];
    for (const ImDrawVert& v : list->VtxBuffer) {
      if (v.col == color) return true;
    }
  }
  return false;
}

bool InsideCanvas(const GraphView& view, const graph::NodeBox& box) {
  graph::Point a = view.LayoutToScreen({box.x, box.y});
  graph::Point b = view.LayoutToScreen({box.x + box.w, box.y + box.h});
  return a.x >= view.canvas_x() && a.y >= view.canvas_y() &&
         b.x <= view.canvas_x() + view.canvas_width() &&
         b.y <= view.canvas_y() + view.canvas_height();
}

// A grid of `rows` x `columns` nodes, each joined to the one below and the one below-right,
// laid out by hand (no Graphviz): a big graph for the culling and cost checks.
LaidOut SyntheticGrid(int rows, int columns) {
  LaidOut out;
  const double w = 110, h = 36, dx = 150, dy = 80;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      graph::GraphNode node;
      node.id = static_cast<int>(out.graph.nodes.size());
      node.instruction = "n" + std::to_string(r) + "_" + std::to_string(c);
      node.title = node.instruction;
      node.opcode = "add";
      node.category =
          (r + c) % 3 == 0 ? graph::NodeCategory::kElementwise : graph::NodeCategory::kDataMovement;
      node.lines = {"add", "f32[128,256]"};
      out.graph.nodes.push_back(std::move(node));
      out.layout.nodes.push_back({20 + c * dx, 20 + r * dy, w, h});
    }
  }
  auto add_edge = [&](int from, int to) {
    out.graph.edges.push_back({from, to, graph::EdgeKind::kData, -1});
    graph::EdgePath path;
    path.edge = static_cast<int>(out.layout.edges.size());
    graph::Point a = out.layout.nodes[from].center(), b = out.layout.nodes[to].center();
    a.y += h / 2;
    b.y -= h / 2 + 7;
    path.points = {a, {a.x, (a.y + b.y) / 2}, {b.x, (a.y + b.y) / 2}, b};
    path.has_arrow = true;
    path.arrow_tip = {b.x, b.y + 7};
    out.layout.edges.push_back(std::move(path));
  };
  for (int r = 0; r + 1 < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      add_edge(r * columns + c, (r + 1) * columns + c);
      if (c + 1 < columns) add_edge(r * columns + c, (r + 1) * columns + c + 1);
    }
  }
  out.layout.width = 40 + columns * dx;
  out.layout.height = 40 + rows * dy;
  out.graph.title = "grid";
  return out;
}

TEST(GraphViewTest, CollapsedMnistFitsEveryNodeInsideTheCanvas) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ASSERT_FALSE(mnist.graph.nodes.empty());
  ImGuiHarness h;
  GraphView view;
  EXPECT_FALSE(view.has_graph());
  view.SetGraph(mnist.graph, mnist.layout);
  EXPECT_TRUE(view.has_graph());
  FrameStats stats;
  EXPECT_EQ(DrawFrame(h, view, &stats), std::nullopt);
  EXPECT_GT(stats.vertices, 0);
  EXPECT_GT(view.canvas_width(), 1000);
  EXPECT_GT(view.canvas_height(), 600);
  EXPECT_EQ(view.last_drawn_nodes(), static_cast<int>(mnist.graph.nodes.size()));
  EXPECT_EQ(view.last_drawn_edges(), static_cast<int>(mnist.graph.edges.size()));
  EXPECT_GE(view.zoom(), GraphView::kMinZoom);
  EXPECT_LE(view.zoom(), 2.0);
  for (size_t i = 0; i < mnist.graph.nodes.size(); ++i)
    EXPECT_TRUE(InsideCanvas(view, mnist.layout.nodes[i])) << mnist.graph.nodes[i].title;
  // Fitted: the graph spans most of the canvas along one axis at least.
  graph::Point a = view.LayoutToScreen({0, 0});
  graph::Point b = view.LayoutToScreen({mnist.layout.width, mnist.layout.height});
  EXPECT_TRUE(b.x - a.x > 0.6 * view.canvas_width() || b.y - a.y > 0.6 * view.canvas_height());
}

TEST(GraphViewTest, ExpandedMnistDrawsClustersAndFitsAfterZooming) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kExpandAll);
  ASSERT_FALSE(mnist.graph.clusters.empty());
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_nodes(), static_cast<int>(mnist.graph.nodes.size()));
  for (const graph::ClusterBox& c : mnist.layout.clusters) EXPECT_TRUE(InsideCanvas(view, c.box));
  const double fitted = view.zoom();
  // Zoom in, then fit again with the view's own method.
  h.MoveMouse(view.canvas_x() + 300, view.canvas_y() + 300);
  for (int i = 0; i < 5; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  EXPECT_GT(view.zoom(), fitted * 2);
  view.FitToView();
  DrawFrame(h, view);
  EXPECT_DOUBLE_EQ(view.zoom(), fitted);
  EXPECT_EQ(view.last_drawn_nodes(), static_cast<int>(mnist.graph.nodes.size()));
}

TEST(GraphViewTest, WheelZoomKeepsThePointUnderTheCursor) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  // Whole pixels: ImGui floors the mouse position.
  const float mx = std::floor(view.canvas_x() + view.canvas_width() * 0.3f);
  const float my = std::floor(view.canvas_y() + view.canvas_height() * 0.6f);
  h.MoveMouse(mx, my);
  DrawFrame(h, view);
  const double before = view.zoom();
  const graph::Point anchor = view.ScreenToLayout(mx, my);
  h.Wheel(1);
  DrawFrame(h, view);
  EXPECT_NEAR(view.zoom(), before * 1.2, 1e-9);
  graph::Point after = view.ScreenToLayout(mx, my);
  EXPECT_NEAR(after.x, anchor.x, 1e-6);
  EXPECT_NEAR(after.y, anchor.y, 1e-6);
  h.Wheel(-3);
  DrawFrame(h, view);
  EXPECT_NEAR(view.zoom(), before * 1.2 / (1.2 * 1.2 * 1.2), 1e-9);
  after = view.ScreenToLayout(mx, my);
  EXPECT_NEAR(after.x, anchor.x, 1e-6);
  EXPECT_NEAR(after.y, anchor.y, 1e-6);
  // Clamped at both ends.
  for (int i = 0; i < 60; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  EXPECT_DOUBLE_EQ(view.zoom(), GraphView::kMaxZoom);
  for (int i = 0; i < 120; ++i) {
    h.Wheel(-1);
    DrawFrame(h, view);
  }
  EXPECT_DOUBLE_EQ(view.zoom(), GraphView::kMinZoom);
  // The wheel outside the canvas (over the toolbar) does nothing.
  h.MoveMouse(view.canvas_x() + 10, view.canvas_y() - 5);
  h.Wheel(1);
  DrawFrame(h, view);
  EXPECT_DOUBLE_EQ(view.zoom(), GraphView::kMinZoom);
}

TEST(GraphViewTest, ClickingANodeReturnsItsInstruction) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  // A collapsed fusion, a parameter and the last node, at least.
  std::vector<int> picks;
  for (const graph::GraphNode& node : mnist.graph.nodes) {
    if (node.kind == graph::NodeKind::kFusion && picks.empty()) picks.push_back(node.id);
  }
  for (const graph::GraphNode& node : mnist.graph.nodes) {
    if (node.category == graph::NodeCategory::kParameter) {
      picks.push_back(node.id);
      break;
    }
  }
  picks.push_back(static_cast<int>(mnist.graph.nodes.size()) - 1);
  ASSERT_EQ(picks.size(), 3u);
  for (int node : picks) {
    graph::Point c = ScreenCenter(view, node);
    const float x = static_cast<float>(c.x), y = static_cast<float>(c.y);
    ASSERT_EQ(view.NodeAt(x, y), node);
    auto clicked = ClickAt(h, view, x, y);
    ASSERT_TRUE(clicked.has_value()) << mnist.graph.nodes[node].title;
    EXPECT_EQ(*clicked, mnist.graph.nodes[node].instruction);
    EXPECT_EQ(view.selected_node(), node);
    EXPECT_EQ(view.selection(), mnist.graph.nodes[node].instruction);
  }
  // A fusion node's click returns the fusion's own name.
  EXPECT_EQ(mnist.graph.nodes[picks[0]].instruction, mnist.graph.nodes[picks[0]].fusion);
  // Hovering a node marks it; the background is no node.
  graph::Point c = ScreenCenter(view, picks[1]);
  h.MoveMouse(static_cast<float>(c.x), static_cast<float>(c.y));
  DrawFrame(h, view);
  EXPECT_EQ(view.hovered_node(), picks[1]);
  EXPECT_EQ(view.NodeAt(view.canvas_x() + 2, view.canvas_y() + 2), -1);
  EXPECT_EQ(view.NodeAt(-100, -100), -1);
  EXPECT_EQ(ClickAt(h, view, view.canvas_x() + 2, view.canvas_y() + 2), std::nullopt);
}

TEST(GraphViewTest, DraggingPansWithoutSelecting) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  const int node = 0;
  graph::Point c = ScreenCenter(view, node);
  const double pan_x = view.pan_x(), pan_y = view.pan_y(), zoom = view.zoom();
  h.MoveMouse(static_cast<float>(c.x), static_cast<float>(c.y));
  DrawFrame(h, view);
  h.SetMouseButton(0, true);
  DrawFrame(h, view);
  std::optional<std::string> clicked;
  for (int step = 1; step <= 4; ++step) {
    h.MoveMouse(static_cast<float>(c.x) + 20 * step, static_cast<float>(c.y) + 10 * step);
    if (auto r = DrawFrame(h, view)) clicked = r;
  }
  h.SetMouseButton(0, false);
  if (auto r = DrawFrame(h, view)) clicked = r;
  EXPECT_EQ(clicked, std::nullopt);
  EXPECT_EQ(view.selected_node(), -1);
  EXPECT_NEAR(view.pan_x(), pan_x - 80 / zoom, 1e-6);
  EXPECT_NEAR(view.pan_y(), pan_y - 40 / zoom, 1e-6);
  // The node moved with the mouse.
  graph::Point moved = ScreenCenter(view, node);
  EXPECT_NEAR(moved.x, c.x + 80, 1e-3);
  EXPECT_NEAR(moved.y, c.y + 40, 1e-3);
  // The middle button pans too.
  h.SetMouseButton(2, true);
  DrawFrame(h, view);
  h.MoveMouse(static_cast<float>(c.x) + 30, static_cast<float>(c.y) + 40);
  DrawFrame(h, view);
  h.SetMouseButton(2, false);
  DrawFrame(h, view);
  EXPECT_NEAR(view.pan_x(), pan_x - 30 / zoom, 1e-6);
  EXPECT_NEAR(view.pan_y(), pan_y - 40 / zoom, 1e-6);
}

TEST(GraphViewTest, SelectingAFusedInstructionHighlightsItsFusion) {
  const LaidOut& collapsed = Mnist(graph::FusionDisplay::kCollapseAll);
  const LaidOut& expanded = Mnist(graph::FusionDisplay::kExpandAll);
  // A fused instruction (not a parameter) and the fusion holding it, from the expanded graph.
  const graph::GraphNode* fused = nullptr;
  for (const graph::GraphNode& node : expanded.graph.nodes) {
    if (node.kind == graph::NodeKind::kInstruction && !node.fusion.empty() &&
        node.category != graph::NodeCategory::kParameter) {
      fused = &node;
      break;
    }
  }
  ASSERT_NE(fused, nullptr);
  const graph::GraphNode* fusion_node = collapsed.graph.FindNode(fused->fusion);
  ASSERT_NE(fusion_node, nullptr);
  ASSERT_EQ(collapsed.graph.FindNode(fused->instruction), nullptr);

  ImGuiHarness h;
  GraphView view;
  view.SetGraph(collapsed.graph, collapsed.layout);
  DrawFrame(h, view);
  EXPECT_FALSE(DrewColor(kSelectColor));
  view.SetSelection(fused->instruction, fused->fusion);
  EXPECT_EQ(view.selected_node(), fusion_node->id);
  DrawFrame(h, view);
  EXPECT_TRUE(DrewColor(kSelectColor));
  // Without the fusion's name the instruction is nowhere in the collapsed graph.
  view.SetSelection(fused->instruction);
  EXPECT_EQ(view.selected_node(), -1);
  DrawFrame(h, view);
  EXPECT_FALSE(DrewColor(kSelectColor));

  // Expanded: the fused instruction is its own node, its fusion's cluster is marked too;
  // the fusion's name alone marks the cluster.
  view.SetGraph(expanded.graph, expanded.layout);
  view.SetSelection(fused->instruction, fused->fusion);
  EXPECT_EQ(view.selected_node(), fused->id);
  ASSERT_GE(view.selected_cluster(), 0);
  EXPECT_EQ(expanded.graph.clusters[view.selected_cluster()].instruction, fused->fusion);
  view.SetSelection(fused->fusion);
  EXPECT_EQ(view.selected_node(), -1);
  EXPECT_EQ(expanded.graph.clusters[view.selected_cluster()].instruction, fused->fusion);
  DrawFrame(h, view);
  EXPECT_TRUE(DrewColor(kSelectColor));
  view.SetSelection("");
  EXPECT_EQ(view.selected_node(), -1);
  EXPECT_EQ(view.selected_cluster(), -1);
}

TEST(GraphViewTest, SelectionEmphasisesItsEdges) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  // A node with both operands and users.
  int pick = -1;
  for (const graph::GraphNode& node : mnist.graph.nodes) {
    bool in = false, out = false;
    for (const graph::GraphEdge& e : mnist.graph.edges) {
      in = in || e.to == node.id;
      out = out || e.from == node.id;
    }
    if (in && out) {
      pick = node.id;
      break;
    }
  }
  ASSERT_GE(pick, 0);
  ImGuiHarness h;
  GraphView view;
  view.set_show_legend(false);  // its key shows the selection's edge colours
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  EXPECT_FALSE(DrewColor(kOperandEdge));
  EXPECT_FALSE(DrewColor(kUserEdge));
  view.SetSelection(mnist.graph.nodes[pick].instruction);
  EXPECT_EQ(view.selected_node(), pick);
  DrawFrame(h, view);
  EXPECT_TRUE(DrewColor(kOperandEdge));
  EXPECT_TRUE(DrewColor(kUserEdge));
  EXPECT_TRUE(DrewColor(kSelectColor));
  // The selection survives a new graph with the same instruction.
  view.SetGraph(mnist.graph, mnist.layout);
  EXPECT_EQ(view.selected_node(), pick);
}

TEST(GraphViewTest, CenterOnPutsTheNodeInTheMiddle) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kExpandAll);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  for (int node : {0, static_cast<int>(mnist.graph.nodes.size()) / 2}) {
    view.CenterOn(mnist.graph.nodes[node].instruction);
    DrawFrame(h, view);
    graph::Point c = ScreenCenter(view, node);
    EXPECT_NEAR(c.x, view.canvas_x() + view.canvas_width() / 2, 0.5);
    EXPECT_NEAR(c.y, view.canvas_y() + view.canvas_height() / 2, 0.5);
    EXPECT_GE(view.zoom(), 1.0);  // legible
  }
  // Unknown names leave the view alone.
  const double pan_x = view.pan_x(), pan_y = view.pan_y();
  view.CenterOn("no such instruction");
  DrawFrame(h, view);
  EXPECT_EQ(view.pan_x(), pan_x);
  EXPECT_EQ(view.pan_y(), pan_y);
}

TEST(GraphViewTest, CullsNodesOffScreenWhenZoomedIn) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kExpandAll);
  const int total = static_cast<int>(mnist.graph.nodes.size());
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  ASSERT_EQ(view.last_drawn_nodes(), total);
  FrameStats fitted;
  DrawFrame(h, view, &fitted);
  view.CenterOn(mnist.graph.nodes[total / 2].instruction);
  DrawFrame(h, view);
  h.MoveMouse(view.canvas_x() + view.canvas_width() / 2,
              view.canvas_y() + view.canvas_height() / 2);
  for (int i = 0; i < 6; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  FrameStats zoomed;
  DrawFrame(h, view, &zoomed);
  EXPECT_GT(view.last_drawn_nodes(), 0);
  EXPECT_LT(view.last_drawn_nodes(), total / 4);
  EXPECT_LT(view.last_drawn_edges(), static_cast<int>(mnist.graph.edges.size()) / 4);
  // Every node drawn is at least partly on screen.
  int on_screen = 0;
  for (int i = 0; i < total; ++i) {
    const graph::NodeBox& b = mnist.layout.nodes[i];
    graph::Point a = view.LayoutToScreen({b.x, b.y});
    graph::Point z = view.LayoutToScreen({b.x + b.w, b.y + b.h});
    on_screen += z.x >= view.canvas_x() && a.x <= view.canvas_x() + view.canvas_width() &&
                 z.y >= view.canvas_y() && a.y <= view.canvas_y() + view.canvas_height();
  }
  EXPECT_EQ(view.last_drawn_nodes(), on_screen);
}

TEST(GraphViewTest, TextOnlyWhenLegible) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ImGuiHarness h;
  GraphView view;
  view.set_show_legend(false);
  view.SetGraph(mnist.graph, mnist.layout);
  const int node = static_cast<int>(mnist.graph.nodes.size()) / 2;
  // At 100% every node on screen shows its whole label.
  view.CenterOn(mnist.graph.nodes[node].instruction);
  DrawFrame(h, view);
  ASSERT_NEAR(view.zoom(), 1.0, 0.5);
  DrawFrame(h, view);
  const int legible_nodes = view.last_drawn_nodes();
  ASSERT_GT(legible_nodes, 0);
  EXPECT_EQ(view.last_labelled_nodes(), legible_nodes);
  // Zoomed out until the 10 pt font is under 6 px: boxes only.
  h.MoveMouse(view.canvas_x() + view.canvas_width() / 2,
              view.canvas_y() + view.canvas_height() / 2);
  while (view.zoom() * 10 >= 6) {
    h.Wheel(-1);
    DrawFrame(h, view);
  }
  DrawFrame(h, view);
  ASSERT_GE(view.last_drawn_nodes(), legible_nodes);
  // Boxes, and at most a title each (drawn while few nodes are on screen): no label's
  // lines. Counted by the view, not by vertices: how many vertices the edges and titles
  // take depends on the graph, and an MNIST step with two transposes fewer crossed a
  // threshold set on vertices per node.
  EXPECT_EQ(view.last_labelled_nodes(), 0);
}

TEST(GraphViewTest, LegendOverlayDrawsOnlyWhenShown) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ASSERT_FALSE(mnist.graph.legend.empty());
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  EXPECT_FALSE(view.show_legend());  // out of the way until asked for
  view.set_show_legend(true);
  FrameStats with, without;
  DrawFrame(h, view, &with);
  view.set_show_legend(false);
  DrawFrame(h, view, &without);
  // Each legend row is a swatch and a name (and a description): dozens of vertices.
  EXPECT_GT(with.vertices, without.vertices + 40 * static_cast<int>(mnist.graph.legend.size()));
}

TEST(GraphViewTest, ThreeThousandNodesZoomedOutStayCheap) {
  LaidOut grid = SyntheticGrid(50, 60);
  ASSERT_EQ(grid.graph.nodes.size(), 3000u);
  const int nodes = 3000, edges = static_cast<int>(grid.graph.edges.size());
  ImGuiHarness h;
  GraphView view;
  view.set_show_legend(false);
  view.SetGraph(std::move(grid.graph), std::move(grid.layout));
  FrameStats stats;
  DrawFrame(h, view, &stats);
  auto start = std::chrono::steady_clock::now();
  constexpr int kFrames = 20;
  for (int i = 0; i < kFrames; ++i) DrawFrame(h, view, &stats);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "3000-node graph, fitted (zoom " << view.zoom() << "): " << stats.vertices
            << " vertices, " << ms / kFrames << " ms per frame\n";
  EXPECT_EQ(view.last_drawn_nodes(), nodes);
  EXPECT_EQ(view.last_drawn_edges(), edges);
  EXPECT_LT(view.zoom() * 10, 6);  // too far out for text
  // Boxes and straight edges only: a handful of vertices each, and within one 16-bit
  // index range.
  EXPECT_LT(stats.vertices, 12 * (nodes + edges));
  EXPECT_LT(stats.vertices, 65536);
  // Every node inside the canvas.
  for (int i = 0; i < nodes; ++i) ASSERT_TRUE(InsideCanvas(view, view.layout().nodes[i])) << i;
  // Zoomed in at the middle: a small part is drawn, with text.
  h.MoveMouse(view.canvas_x() + view.canvas_width() / 2,
              view.canvas_y() + view.canvas_height() / 2);
  for (int i = 0; i < 12; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  DrawFrame(h, view, &stats);
  EXPECT_GT(view.last_drawn_nodes(), 0);
  EXPECT_LT(view.last_drawn_nodes(), nodes / 20);
  // Clicking a node of the big graph works the same.
  int node = view.NodeAt(view.canvas_x() + view.canvas_width() / 2,
                         view.canvas_y() + view.canvas_height() / 2);
  if (node < 0) {
    // The middle fell between nodes: take the first node drawn near it.
    for (int i = 0; i < nodes && node < 0; ++i) {
      graph::Point c = ScreenCenter(view, i);
      if (view.NodeAt(static_cast<float>(c.x), static_cast<float>(c.y)) == i) node = i;
    }
  }
  ASSERT_GE(node, 0);
  graph::Point c = ScreenCenter(view, node);
  EXPECT_EQ(ClickAt(h, view, static_cast<float>(c.x), static_cast<float>(c.y)),
            view.graph().nodes[node].instruction);
}

TEST(GraphViewTest, EmptyAndClearedViewsDraw) {
  ImGuiHarness h;
  GraphView view;
  FrameStats stats;
  EXPECT_EQ(DrawFrame(h, view, &stats), std::nullopt);
  EXPECT_EQ(view.last_drawn_nodes(), 0);
  EXPECT_EQ(view.NodeAt(view.canvas_x() + 10, view.canvas_y() + 10), -1);
  // Input on an empty view does nothing.
  EXPECT_EQ(ClickAt(h, view, view.canvas_x() + 50, view.canvas_y() + 50), std::nullopt);
  h.Wheel(2);
  DrawFrame(h, view);
  view.SetSelection("x");
  view.CenterOn("x");
  view.FitToView();
  DrawFrame(h, view);

  // A graph with no nodes.
  view.SetGraph(FusionGraph{}, GraphLayout{});
  EXPECT_TRUE(view.has_graph());
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_nodes(), 0);

  // Cleared after a real graph.
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  view.SetGraph(mnist.graph, mnist.layout);
  view.SetSelection(mnist.graph.nodes[0].instruction);
  DrawFrame(h, view);
  EXPECT_GT(view.last_drawn_nodes(), 0);
  view.Clear();
  EXPECT_FALSE(view.has_graph());
  EXPECT_EQ(view.selected_node(), -1);
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_nodes(), 0);
  EXPECT_EQ(view.NodeAt(view.canvas_x() + 100, view.canvas_y() + 100), -1);

  // A layout shorter than its graph (a caller's mistake) draws what it has.
  FusionGraph g = mnist.graph;
  GraphLayout l = mnist.layout;
  l.nodes.resize(l.nodes.size() / 2);
  view.SetGraph(std::move(g), std::move(l));
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_nodes(), static_cast<int>(mnist.layout.nodes.size() / 2));
}

TEST(GraphViewTest, KeyAndDoubleClickFit) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  DrawFrame(h, view);
  const double fitted = view.zoom();
  const float bx = view.canvas_x() + 3, by = view.canvas_y() + 3;  // background
  h.MoveMouse(bx, by);
  for (int i = 0; i < 4; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  ASSERT_GT(view.zoom(), fitted * 1.5);
  h.SetKey('F', true);
  DrawFrame(h, view);
  h.SetKey('F', false);
  DrawFrame(h, view);
  EXPECT_DOUBLE_EQ(view.zoom(), fitted);
  for (int i = 0; i < 4; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  ASSERT_GT(view.zoom(), fitted * 1.5);
  ASSERT_EQ(view.NodeAt(bx, by), -1);
  // Two clicks in quick succession on the background.
  for (int i = 0; i < 2; ++i) {
    h.SetMouseButton(0, true);
    DrawFrame(h, view);
    h.SetMouseButton(0, false);
    DrawFrame(h, view);
  }
  EXPECT_DOUBLE_EQ(view.zoom(), fitted);
}

}  // namespace
}  // namespace fusebox::viewers

namespace fusebox::viewers {
namespace {

// tests/data/graph/two_stages.hlo (scope_grouping_test's) grouped by scope with
// model/stage1 expanded (its two blocks collapsed) and model/stage2/block1 collapsed, laid
// out as the workbench lays it out.
LaidOut ScopedGraph() {
  LaidOut out;
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/graph/two_stages.hlo");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return out;
  auto& module = parsed->modules.front();
  graph::FusionGraphOptions options;
  options.fold_parameters = true;
  options.scopes.enabled = true;
  options.scopes.collapse_depth = 0;
  options.scopes.expanded["model/stage1"] = true;
  auto g = graph::BuildFusionGraph(*module, options);
  EXPECT_TRUE(g.ok()) << g.status().message();
  if (!g.ok()) return out;
  graph::LayoutOptions layout_options;
  layout_options.compose_scopes = true;
  auto layout = graph::Layout(*g, layout_options);
  EXPECT_TRUE(layout.ok()) << layout.status().message();
  if (!layout.ok()) return out;
  out.graph = std::move(g).value();
  out.layout = std::move(layout).value();
  return out;
}

int ScopeNodeIndex(const FusionGraph& g, const std::string& scope) {
  for (const graph::GraphNode& node : g.nodes) {
    if (node.kind == graph::NodeKind::kScope && node.scope == scope) return node.id;
  }
  return -1;
}

int ScopeClusterIndex(const FusionGraph& g, const std::string& scope) {
  for (const graph::GraphCluster& c : g.clusters) {
    if (c.kind == graph::ClusterKind::kScope && c.scope == scope) return c.id;
  }
  return -1;
}

TEST(GraphViewTest, ClickOnAScopeAsksToExpandItAndOnItsBoxTitleToCollapseIt) {
  LaidOut scoped = ScopedGraph();
  const int block2 = ScopeNodeIndex(scoped.graph, "model/stage1/block2");
  const int stage2 = ScopeNodeIndex(scoped.graph, "model/stage2/block1");
  ASSERT_GE(block2, 0);
  ASSERT_GE(stage2, 0);
  const int stage1 = ScopeClusterIndex(scoped.graph, "model/stage1");
  ASSERT_GE(stage1, 0);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(scoped.graph, scoped.layout);
  DrawFrame(h, view);
  EXPECT_FALSE(view.TakeScopeToggle().has_value());

  // A collapsed scope: expand it. It selects nothing.
  graph::Point p = ScreenCenter(view, block2);
  EXPECT_FALSE(ClickAt(h, view, static_cast<float>(p.x), static_cast<float>(p.y)).has_value());
  auto toggle = view.TakeScopeToggle();
  ASSERT_TRUE(toggle.has_value());
  EXPECT_EQ(toggle->scope, "model/stage1/block2");
  EXPECT_TRUE(toggle->expand);
  EXPECT_FALSE(view.TakeScopeToggle().has_value());  // taken once

  // The title strip of stage1's box: collapse it.
  const graph::NodeBox& box = view.layout().clusters[stage1].box;
  graph::Point title = view.LayoutToScreen({box.x + box.w / 2, box.y + 4});
  EXPECT_EQ(view.ScopeClusterLabelAt(static_cast<float>(title.x), static_cast<float>(title.y)),
            stage1);
  ClickAt(h, view, static_cast<float>(title.x), static_cast<float>(title.y));
  toggle = view.TakeScopeToggle();
  ASSERT_TRUE(toggle.has_value());
  EXPECT_EQ(toggle->scope, "model/stage1");
  EXPECT_FALSE(toggle->expand);

  // A plain node is selected as before, with no toggle.
  const graph::GraphNode* g = view.graph().FindNode("g");
  ASSERT_NE(g, nullptr);
  p = ScreenCenter(view, g->id);
  EXPECT_EQ(ClickAt(h, view, static_cast<float>(p.x), static_cast<float>(p.y)), "g");
  EXPECT_FALSE(view.TakeScopeToggle().has_value());

  // Selecting an instruction inside a collapsed scope outlines the scope.
  view.SetSelection("e");
  EXPECT_EQ(view.selected_node(), stage2);
}

TEST(GraphViewTest, FocusScopeFitsTheScopesBox) {
  LaidOut scoped = ScopedGraph();
  const int stage1 = ScopeClusterIndex(scoped.graph, "model/stage1");
  ASSERT_GE(stage1, 0);
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(scoped.graph, scoped.layout);
  DrawFrame(h, view);
  const double fitted = view.zoom();
  view.FocusScope("model/stage1");
  DrawFrame(h, view);
  // The box is centred in the pane, all of it on screen, at least as close as the whole
  // graph's fit (this small graph fits at nearly the 200% cap already).
  const graph::NodeBox& box = view.layout().clusters[stage1].box;
  const graph::Point center = view.LayoutToScreen(box.center());
  EXPECT_NEAR(center.x, view.canvas_x() + view.canvas_width() / 2, 1);
  EXPECT_NEAR(center.y, view.canvas_y() + view.canvas_height() / 2, 1);
  EXPECT_GE(view.zoom(), fitted);
  EXPECT_TRUE(InsideCanvas(view, box));
  // An unknown scope fits the whole graph again.
  view.FocusScope("no/such/scope");
  DrawFrame(h, view);
  EXPECT_DOUBLE_EQ(view.zoom(), fitted);
}

TEST(GraphViewTest, LegendIsACornerTabUntilClicked) {
  const LaidOut& mnist = Mnist(graph::FusionDisplay::kCollapseAll);
  ASSERT_FALSE(mnist.graph.legend.empty());
  ImGuiHarness h;
  GraphView view;
  view.SetGraph(mnist.graph, mnist.layout);
  FrameStats tab;
  DrawFrame(h, view, &tab);
  ASSERT_FALSE(view.show_legend());
  // The tab sits in the canvas's bottom-left corner: click it.
  const float x = view.canvas_x() + 20, y = view.canvas_y() + view.canvas_height() - 14;
  ClickAt(h, view, x, y);
  EXPECT_TRUE(view.show_legend());
  FrameStats open;
  DrawFrame(h, view, &open);
  EXPECT_GT(open.vertices, tab.vertices + 40 * static_cast<int>(mnist.graph.legend.size()));
  // A click on the open legend closes it, and selects nothing under it.
  EXPECT_FALSE(ClickAt(h, view, x, y).has_value());
  EXPECT_FALSE(view.show_legend());
}

}  // namespace
}  // namespace fusebox::viewers
