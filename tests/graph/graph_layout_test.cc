// Tests of the Graphviz side: layout geometry, DOT that parses back, well-formed SVG, a
// real PNG, clear errors, and layouts of the example training steps (timed, not asserted).
#include "graph/graph_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <thread>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "compiler/support/timer.h"
#include "tests/graph/optimized_session.h"
#include "tests/test_util.h"

// Under the sanitizers Graphviz's own leaks are suppressed by graph/graph_layout.cc.

namespace fusebox::graph {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Module> LoadExample(const std::string& name) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  return std::move(parsed->modules.front());
}

// The example after Fusebox's pipeline; the session owns the module.
std::unique_ptr<session::CompileSession> OptimizedExample(const std::string& name) {
  return testing_util::OptimizedSession(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
}

FusionGraph MustBuild(const Module& module, const FusionGraphOptions& options) {
  auto g = BuildFusionGraph(module, options);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return g.ok() ? std::move(g).value() : FusionGraph{};
}

// A small XML checker: every tag closes in order, comments/declarations are skipped.
bool WellFormedXml(const std::string& text, std::string* why) {
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = text.find('<', i)) != std::string::npos) {
    if (text.compare(i, 4, "<!--") == 0) {
      size_t end = text.find("-->", i);
      if (end == std::string::npos) return *why = "unclosed comment", false;
      i = end + 3;
      continue;
    }
    size_t end = text.find('>', i);
    if (end == std::string::npos) return *why = "unclosed tag", false;
    std::string tag = text.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return *why = "unexpected </" + name + ">", false;
      stack.pop_back();
      continue;
    }
    if (tag.back() == '/') continue;
    stack.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
  }
  if (!stack.empty()) return *why = "unclosed <" + stack.back() + ">", false;
  return true;
}

bool Inside(const NodeBox& inner, const NodeBox& outer, double slack = 0.5) {
  return inner.x >= outer.x - slack && inner.y >= outer.y - slack &&
         inner.x + inner.w <= outer.x + outer.w + slack &&
         inner.y + inner.h <= outer.y + outer.h + slack;
}

TEST(GraphLayoutTest, NodesClustersAndEdgesOfTheExpandedMnistStep) {
  auto session = OptimizedExample("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  FusionGraphOptions options;
  options.fusions = FusionDisplay::kExpandAll;
  FusionGraph g = MustBuild(*session->optimized_module(), options);
  ASSERT_FALSE(g.clusters.empty());
  auto layout = Layout(g);
  ASSERT_TRUE(layout.ok()) << layout.status().message();
  ASSERT_EQ(layout->nodes.size(), g.nodes.size());
  ASSERT_EQ(layout->edges.size(), g.edges.size());
  ASSERT_EQ(layout->clusters.size(), g.clusters.size());
  EXPECT_GT(layout->width, 0);
  EXPECT_GT(layout->height, 0);
  NodeBox all{0, 0, layout->width, layout->height};
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const NodeBox& box = layout->nodes[i];
    EXPECT_GT(box.w, 0) << g.nodes[i].title;
    EXPECT_GT(box.h, 0) << g.nodes[i].title;
    EXPECT_TRUE(Inside(box, all)) << g.nodes[i].title;
    if (g.nodes[i].cluster >= 0) {
      // Inside its cluster, and every enclosing one.
      for (int c = g.nodes[i].cluster; c >= 0; c = g.clusters[c].parent) {
        EXPECT_TRUE(Inside(box, layout->clusters[c].box))
            << g.nodes[i].title << " in " << g.clusters[c].label;
      }
    }
  }
  for (const ClusterBox& c : layout->clusters) {
    EXPECT_GT(c.box.w, 0);
    EXPECT_TRUE(Inside(c.box, all));
  }
  for (const EdgePath& e : layout->edges) {
    EXPECT_GE(e.points.size(), 2u);
    for (const Point& p : e.points) {
      EXPECT_TRUE(p.x >= -1 && p.x <= layout->width + 1 && p.y >= -1 && p.y <= layout->height + 1);
    }
  }
  // Data flows down: operands above users for most edges (rankdir=TB).
  int downward = 0;
  for (size_t i = 0; i < g.edges.size(); ++i) {
    downward += layout->nodes[g.edges[i].from].center().y < layout->nodes[g.edges[i].to].center().y;
  }
  EXPECT_GT(downward, static_cast<int>(g.edges.size()) * 9 / 10);
}

TEST(GraphLayoutTest, SvgIsWellFormedAndNamesEveryInstruction) {
  auto session = OptimizedExample("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  FusionGraph g = MustBuild(*session->optimized_module(), {});
  auto svg = Render(g, "svg");
  ASSERT_TRUE(svg.ok()) << svg.status().message();
  EXPECT_THAT(*svg, HasSubstr("<svg"));
  EXPECT_THAT(*svg, HasSubstr("</svg>"));
  std::string why;
  EXPECT_TRUE(WellFormedXml(*svg, &why)) << why;
  for (const GraphNode& node : g.nodes) {
    // Graphviz writes '-' as the character reference &#45; (same id once parsed).
    std::string id;
    for (char c : node.instruction) id += c == '-' ? std::string("&#45;") : std::string(1, c);
    EXPECT_THAT(*svg, HasSubstr("id=\"" + id + "\"")) << node.instruction;
  }
  EXPECT_THAT(*svg, HasSubstr("DejaVu Sans"));
}

TEST(GraphLayoutTest, PngHasSignatureAndSize) {
  auto module = LoadExample("reduce_sum.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraph g = MustBuild(*module, {});
  auto png = Render(g, "png");
  ASSERT_TRUE(png.ok()) << png.status().message();
  ASSERT_GT(png->size(), 33u);
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  EXPECT_EQ(png->compare(0, 8, std::string(reinterpret_cast<const char*>(signature), 8)), 0);
  EXPECT_EQ(png->substr(12, 4), "IHDR");
  auto be32 = [&](size_t at) {
    uint32_t v = 0;
    for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>((*png)[at + k]);
    return v;
  };
  EXPECT_GT(be32(16), 0u);
  EXPECT_GT(be32(20), 0u);
}

TEST(GraphLayoutTest, DotParsesBack) {
  auto session = OptimizedExample("cifar_cnn_train_step.hlo");
  ASSERT_NE(session, nullptr);
  FusionGraphOptions options;
  options.fusions = FusionDisplay::kExpandAll;
  FusionGraph g = MustBuild(*session->optimized_module(), options);
  std::string dot = ToDot(g);
  EXPECT_THAT(dot, HasSubstr("rankdir=TB"));
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_0"));
  Status parsed = ParseDot(dot);
  EXPECT_TRUE(parsed.ok()) << parsed.message();
  auto rendered = Render(g, "dot");
  ASSERT_TRUE(rendered.ok());
  EXPECT_EQ(*rendered, dot);
  EXPECT_FALSE(ParseDot("digraph { a -> ").ok());
}

TEST(GraphLayoutTest, LabelsAndTooltipsAreEscaped) {
  auto module = ParseModule(R"(
HloModule escapes
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0), metadata={op_name="a<b>&\"c\" \\ d" source_file="x<y>.py" source_line=3}
  ROOT %y = f32[2]{0} negate(%x), metadata={op_name="</td></tr></table>"}
}
)");
  ASSERT_TRUE(module.ok()) << module.status().message();
  FusionGraphOptions options;
  options.title = "title with <html> & \"quotes\"";
  FusionGraph g = MustBuild(**module, options);
  EXPECT_TRUE(ParseDot(ToDot(g)).ok());
  auto svg = Render(g, "svg");
  ASSERT_TRUE(svg.ok()) << svg.status().message();
  std::string why;
  EXPECT_TRUE(WellFormedXml(*svg, &why)) << why;
  auto layout = Layout(g);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->nodes.size(), 2u);
}

TEST(GraphLayoutTest, UnknownFormatIsAClearError) {
  auto module = LoadExample("reduce_sum.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraph g = MustBuild(*module, {});
  auto r = Render(g, "jpeg");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("'jpeg'"));
}

TEST(GraphLayoutTest, LayoutsFromSeveralThreads) {
  auto module = LoadExample("mnist_train_step.hlo");
  ASSERT_NE(module, nullptr);
  FusionGraph g = MustBuild(*module, {});
  std::vector<int> ok(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      auto layout = Layout(g);
      auto svg = Render(g, "svg");
      ok[t] = layout.ok() && svg.ok() && layout->nodes.size() == g.nodes.size();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[t]) << t;
}

// Not a benchmark: makes sure the examples lay out (in well under a few seconds) and
// prints the times; docs/fusion-graph.md records them.
TEST(GraphLayoutTest, TrainingStepsLayOut) {
  for (const char* name : {"mnist_train_step.hlo", "cifar_cnn_train_step.hlo"}) {
    auto session = OptimizedExample(name);
    ASSERT_NE(session, nullptr);
    for (FusionDisplay display : {FusionDisplay::kCollapseAll, FusionDisplay::kExpandAll}) {
      FusionGraphOptions options;
      options.fusions = display;
      FusionGraph g = MustBuild(*session->optimized_module(), options);
      Stopwatch watch;
      auto layout = Layout(g);
      ASSERT_TRUE(layout.ok()) << layout.status().message();
      std::cout << name << (display == FusionDisplay::kCollapseAll ? " collapsed: " : " expanded: ")
                << g.nodes.size() << " nodes, " << g.edges.size() << " edges, layout "
                << layout->layout_ms << " ms (" << watch.ElapsedSeconds() * 1e3
                << " ms with reading)\n";
    }
  }
}

}  // namespace
}  // namespace fusebox::graph

namespace fusebox::graph {
namespace {

// A deep chain with skip edges: `dot` without its iteration caps takes many seconds on it.
std::string SlowLayoutModule(int n) {
  std::string text = "HloModule slow\nENTRY e {\n  x0 = f32[4] parameter(0)\n";
  for (int i = 1; i <= n; ++i) {
    const int back = i > 7 ? i - 7 : 0;
    text += "  x" + std::to_string(i) + " = f32[4] add(x" + std::to_string(i - 1) + ", x" + std::to_string(back) + ")\n";
  }
  text += "  ROOT r = f32[4] negate(x" + std::to_string(n) + ")\n}\n";
  return text;
}

// With a cancel flag the layout runs in Graphviz's dot program: the same geometry as in
// this process, and a cancel kills it within a second of being set.
TEST(GraphLayoutTest, CancellableLayoutRunsInAChildAndStopsOnCancel) {
  auto small = LoadExample("mnist_train_step.hlo");
  ASSERT_TRUE(small);
  FusionGraph g = MustBuild(*small, {});
  auto here = Layout(g);
  ASSERT_TRUE(here.ok()) << here.status().message();
  std::atomic<bool> never{false};
  LayoutOptions in_child;
  in_child.cancel = &never;
  auto there = Layout(g, in_child);
  ASSERT_TRUE(there.ok()) << there.status().message();
  // The same graph laid out by the same Graphviz: every node, edge and cluster comes back,
  // inside the drawing, about as large (text is measured again in the child, so sizes may
  // differ by a few points).
  ASSERT_EQ(there->nodes.size(), here->nodes.size());
  ASSERT_EQ(there->edges.size(), here->edges.size());
  ASSERT_EQ(there->clusters.size(), here->clusters.size());
  // Ranks and node sizes are the same (dot prints them rounded to a few digits). Graphviz
  // keeps state between layouts in one process, so a layout here after others may order
  // and space a rank differently from a fresh process's (by up to ~60 points on this
  // graph): x positions and edge routes are only close.
  const double eps = 0.5;
  EXPECT_NEAR(there->height, here->height, eps);
  EXPECT_NEAR(there->width, here->width, 0.1 * here->width);
  for (size_t i = 0; i < there->nodes.size(); ++i) {
    const NodeBox& a = there->nodes[i];
    const NodeBox& b = here->nodes[i];
    EXPECT_NEAR(a.y, b.y, eps) << "node " << i;
    EXPECT_NEAR(a.w, b.w, eps) << "node " << i;
    EXPECT_NEAR(a.h, b.h, eps) << "node " << i;
    EXPECT_NEAR(a.x, b.x, 0.1 * here->width) << "node " << i;
  }
  for (size_t i = 0; i < there->edges.size(); ++i) {
    EXPECT_EQ(there->edges[i].edge, here->edges[i].edge);
    EXPECT_EQ(there->edges[i].has_arrow, here->edges[i].has_arrow) << "edge " << i;
    EXPECT_GE(there->edges[i].points.size(), 2u) << "edge " << i;
  }
  for (size_t i = 0; i < there->clusters.size(); ++i) {
    EXPECT_NEAR(there->clusters[i].box.y, here->clusters[i].box.y, eps) << "cluster " << i;
    EXPECT_NEAR(there->clusters[i].box.h, here->clusters[i].box.h, eps) << "cluster " << i;
  }
  // A fresh process each time: two layouts in children are the same to the last digit.
  auto again = Layout(g, in_child);
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (size_t i = 0; i < there->nodes.size(); ++i) {
    EXPECT_EQ(again->nodes[i].x, there->nodes[i].x) << "node " << i;
    EXPECT_EQ(again->nodes[i].y, there->nodes[i].y) << "node " << i;
  }
  for (size_t i = 0; i < there->edges.size(); ++i) {
    ASSERT_EQ(again->edges[i].points.size(), there->edges[i].points.size()) << "edge " << i;
    for (size_t p = 0; p < there->edges[i].points.size(); ++p) {
      EXPECT_EQ(again->edges[i].points[p].x, there->edges[i].points[p].x) << "edge " << i;
      EXPECT_EQ(again->edges[i].points[p].y, there->edges[i].points[p].y) << "edge " << i;
    }
  }

  auto slow = ParseModule(SlowLayoutModule(1400));
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  FusionGraph big = MustBuild(**slow, {});
  std::atomic<bool> cancel{false};
  LayoutOptions options;
  options.cancel = &cancel;
  options.large_graph_nodes = 1 << 30;  // no iteration caps: a long layout
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    cancel = true;
  });
  Stopwatch watch;
  auto laid_out = Layout(big, options);
  const double took = watch.ElapsedSeconds();
  canceller.join();
  ASSERT_FALSE(laid_out.ok()) << "the layout finished in " << took << " s, before the cancel: make it bigger";
  EXPECT_TRUE(IsCancelled(laid_out.status())) << laid_out.status().message();
  EXPECT_LT(took, 1.5);  // 0.5 s before the cancel, then at most a poll interval and a kill
}

// A layout in this process holds Graphviz's lock while it runs. A cancellable layout
// started meanwhile on another thread must not take a copy of that lock into its child
// process (a fork of this process would: the copy is never released and the child never
// ends, which hung the GUI under ASan). It finishes once the other layout has.
TEST(GraphLayoutTest, CancellableLayoutDoesNotInheritLocksOfOtherThreads) {
  auto slow = ParseModule(SlowLayoutModule(1000));
  ASSERT_TRUE(slow.ok()) << slow.status().message();
  FusionGraph big = MustBuild(**slow, {});
  auto small = LoadExample("mnist_train_step.hlo");
  ASSERT_TRUE(small);
  FusionGraph g = MustBuild(*small, {});
  LayoutOptions uncapped;
  uncapped.large_graph_nodes = 1 << 30;
  std::atomic<bool> started{false};
  Stopwatch watch;
  std::thread holder([&] {
    started = true;
    auto laid_out = Layout(big, uncapped);  // in this process, under the lock
    EXPECT_TRUE(laid_out.ok()) << laid_out.status().message();
  });
  while (!started) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it has the lock now
  // A watchdog turns a hang into a failure: a child stuck on an inherited lock would be
  // cancelled after 60 s.
  std::atomic<bool> cancel{false};
  std::atomic<bool> finished{false};
  std::thread watchdog([&] {
    for (int i = 0; i < 600 && !finished; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  LayoutOptions options;
  options.cancel = &cancel;
  auto laid_out = Layout(g, options);
  finished = true;
  watchdog.join();
  holder.join();
  ASSERT_TRUE(laid_out.ok()) << laid_out.status().message() << " after " << watch.ElapsedSeconds() << " s";
  EXPECT_EQ(laid_out->nodes.size(), g.nodes.size());
}

}  // namespace
}  // namespace fusebox::graph
