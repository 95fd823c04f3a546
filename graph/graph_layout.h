// Graphviz for the fusion graph: our DOT text, an in-process `dot` layout whose
// coordinates UIs draw from, and SVG/PNG rendering. Graphviz is not thread-safe; every
// call into it here holds one process-wide lock, so these functions may be called from
// any thread (a GUI lays out off its UI thread), one layout at a time.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/status.h"
#include "graph/fusion_graph.h"

namespace fusebox::graph {

// The graph as DOT: HTML-like labels (escaped), clusters for expanded fusions and called
// computations, rankdir=TB, DejaVu Sans. Node ids are "n<index>", clusters
// "cluster_<index>"; SVG element ids are the instruction names.
std::string ToDot(const FusionGraph& graph);

struct LayoutOptions {
  // From this many nodes on, network-simplex and crossing-minimisation iterations are
  // capped (nslimit, nslimit1, mclimit): `dot` on deep chains of a few thousand nodes
  // otherwise takes minutes (see PLATFORM.md).
  int large_graph_nodes = 300;
  double nslimit = 2.0;
  double mclimit = 0.5;
  // Above this many nodes edges are routed as polylines rather than splines (faster).
  int polyline_edges_nodes = 1200;
  // Graphviz cannot be interrupted: with a cancel flag the layout runs in Graphviz's
  // `dot` program (found in $PATH, started with posix_spawn) that is killed when the flag
  // is set (Layout then returns Cancelled() within ~20 ms); its positions are read back
  // here. Without a flag, or without the program, it runs in this process.
  const std::atomic<bool>* cancel = nullptr;
  // A graph grouped by scope whose top level is mostly expanded scopes (two or more, and
  // no fewer than the other top-level nodes and clusters) is laid out as ComposedLayout
  // does (the GUI); otherwise, and when false, one `dot` run over the whole graph.
  bool compose_scopes = false;
  bool left_to_right = false;  // rankdir=LR (ComposedLayout's parts, laid out across)
  // ComposedLayout wraps its columns into rows to come near this width : height.
  double aspect = 1.6;
};

struct Point {
  double x = 0;
  double y = 0;
};

// All coordinates in points (1/72 inch), origin at the top-left, y pointing down.
struct NodeBox {
  double x = 0;  // top-left corner
  double y = 0;
  double w = 0;
  double h = 0;
  Point center() const { return {x + w / 2, y + h / 2}; }
};

struct EdgePath {
  int edge = 0;  // index in FusionGraph::edges
  // Cubic Bézier control points p0 c1 c2 p1 c1 c2 p2 ... (3k+1 points; drawn as a polyline
  // they are a fair approximation too). At least two points.
  std::vector<Point> points;
  bool has_arrow = false;  // the arrowhead runs from points.back() to arrow_tip
  Point arrow_tip;
};

struct ClusterBox {
  int cluster = 0;  // index in FusionGraph::clusters
  NodeBox box;
};

struct GraphLayout {
  double width = 0;  // the bounding box, from (0, 0)
  double height = 0;
  std::vector<NodeBox> nodes;        // parallel to FusionGraph::nodes
  std::vector<EdgePath> edges;       // parallel to FusionGraph::edges
  std::vector<ClusterBox> clusters;  // parallel to FusionGraph::clusters
  double layout_ms = 0;              // time Graphviz spent in gvLayout
};

StatusOr<GraphLayout> Layout(const FusionGraph& graph, const LayoutOptions& options = {});

// Layout per expanded scope (graph/composed_layout.cc): each top-level cluster is laid out
// by `dot` on its own (its box and label included), the top-level nodes once together;
// then the parts are placed in columns by their longest-path rank from left to right, the
// columns wrapped into rows to fill a pane of `aspect`; edges between parts are drawn as
// curves from one part's side to the next's. That is tried twice, parts laid out top to
// bottom in columns and left to right in rows, and the one a pane of `aspect` shows at the
// larger zoom is returned. A ResNet's stages stand side by side as columns (or one under
// another as rows) of blocks instead of one chain too tall to read at Fit.
StatusOr<GraphLayout> ComposedLayout(const FusionGraph& graph, const LayoutOptions& options);

// "dot" (ToDot's text), "svg" or "png" (Graphviz's cairo renderer). Unknown formats and
// missing Graphviz plugins give a status that names them.
StatusOr<std::string> Render(const FusionGraph& graph, std::string_view format,
                             const LayoutOptions& options = {});

// Whether `text` parses as a DOT graph (agmemread), for checks and tests.
Status ParseDot(const std::string& text);

}  // namespace fusebox::graph
