// The fusion graph drawn with Dear ImGui's draw lists from Graphviz's layout
// (graph/graph_layout.h): pan (drag), zoom (wheel, around the cursor), fit, hover
// tooltips with shape and metadata, click to select, fusions as labelled clusters,
// nodes coloured by op category (graph/fusion_graph.h's palette), edges as Bézier curves
// with arrowheads, the selection and its fusion highlighted. Only what is on screen is
// drawn, so large layouts pan smoothly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"

namespace fusebox::viewers {

class GraphView {
 public:
  void SetGraph(graph::FusionGraph graph, graph::GraphLayout layout);
  void Clear();
  bool has_graph() const { return has_graph_; }
  const graph::FusionGraph& graph() const { return graph_; }
  const graph::GraphLayout& layout() const { return layout_; }

  // The selected instruction: its node (or, for a fused instruction drawn inside a
  // collapsed fusion, the fusion's node) is outlined, its edges emphasised. The graph
  // cannot tell which collapsed fusion holds a fused instruction, so the caller passes
  // that fusion's name as `fusion` ("" for unfused instructions); it is used only when
  // `instruction` has no node of its own. A fusion drawn expanded has no node: its
  // cluster is outlined instead. An empty or unknown name clears the highlight.
  void SetSelection(const std::string& instruction, const std::string& fusion = "");
  const std::string& selection() const { return selection_; }
  // Fit the whole graph into the pane (at most 200%, clear of the legend where there is
  // room) / centre on a node, zooming in to at least 100% so it is legible; an unknown
  // name leaves the view as it is. Both are applied at the next Draw.
  void FitToView();
  void CenterOn(const std::string& instruction);
  // Fit an op_name scope's box (an expanded scope) or node (a collapsed one) into the
  // pane, at most 200%: after a click expands a scope, the view shows what it opened.
  // An unknown scope fits the whole graph. Applied at the next Draw.
  void FocusScope(const std::string& scope);

  // Draws the graph filling the available region, with a small toolbar (fit, zoom %,
  // legend toggle). Returns the instruction of a clicked node (a click is a left-button
  // press and release on a node without dragging; the view selects it itself too).
  // Interaction: drag with the left or middle button pans, the wheel zooms around the
  // cursor, double-click on the background or F fits, hovering a node shows its tooltip.
  std::optional<std::string> Draw(const char* id);

  // Scope grouping (graph::ScopeOptions): a click on a collapsed scope's node, or on the
  // label strip of an expanded scope's box, asks for that scope to be expanded or
  // collapsed. The owner takes the request (the scope's path and the state asked for)
  // and lays the graph out again; the view does not change the graph itself.
  struct ScopeToggle {
    std::string scope;
    bool expand = false;
  };
  std::optional<ScopeToggle> TakeScopeToggle();
  // The expanded scope cluster whose label strip is under a screen point, -1 for none.
  int ScopeClusterLabelAt(float screen_x, float screen_y) const;

  // View state, for tests.
  double zoom() const { return zoom_; }
  int last_drawn_nodes() const { return last_drawn_nodes_; }
  // Of those, how many had their whole label drawn (title and lines), legible at the
  // zoom; the others show a box, or only the title when zoomed out.
  int last_labelled_nodes() const { return last_labelled_nodes_; }
  // The node index under a screen point after the last Draw, -1 for none.
  int NodeAt(float screen_x, float screen_y) const;
  // Layout points <-> screen pixels with the view of the last Draw.
  graph::Point LayoutToScreen(graph::Point p) const;
  graph::Point ScreenToLayout(float screen_x, float screen_y) const;
  double pan_x() const { return pan_x_; }
  double pan_y() const { return pan_y_; }
  // The canvas (below the toolbar) at the last Draw, in screen pixels.
  float canvas_x() const { return origin_x_; }
  float canvas_y() const { return origin_y_; }
  float canvas_width() const { return canvas_w_; }
  float canvas_height() const { return canvas_h_; }
  int selected_node() const { return selected_node_; }
  int selected_cluster() const { return selected_cluster_; }
  int hovered_node() const { return hovered_node_; }
  int last_drawn_edges() const { return last_drawn_edges_; }
  // The legend overlay (also the toolbar's checkbox). Hidden at first: a small "Legend"
  // tab in the canvas's bottom-left corner opens it, a click on the open legend closes it.
  bool show_legend() const { return show_legend_; }
  void set_show_legend(bool show) { show_legend_ = show; }
  static constexpr double kMinZoom = 0.05;
  static constexpr double kMaxZoom = 8.0;

 private:
  // Colours (ImGui's packed ABGR) and pens resolved once per graph in SetGraph.
  struct NodePaint {
    uint32_t fill = 0;
    uint32_t stroke = 0;
    uint32_t font = 0;
    float pen = 1;  // border width in points
    bool dashed = false;
    bool rounded = true;
  };
  struct EdgePaint {
    double min_x = 0, min_y = 0, max_x = 0, max_y = 0;  // control points' bounding box
    uint32_t color = 0;
    bool dashed = false;
    int from = -1;  // node indices, -1 when the edge index is out of range
    int to = -1;
    float weight = 1;  // edges merged between collapsed scopes are drawn thicker
  };
  struct ClusterPaint {
    uint32_t fill = 0;
    uint32_t stroke = 0;
    float pen = 1;
  };

  void ApplyPending();
  void ZoomAround(double new_zoom, float screen_x, float screen_y);
  double MinZoom() const;
  // The canvas in four layers: clusters, edges, nodes, then the selection's outlines.
  struct Frame;  // where layout points land on screen in this frame (graph_view.cc)
  void DrawCanvas();
  void DrawClusters(const Frame& f) const;
  void DrawEdges(const Frame& f);
  void DrawEdge(const Frame& f, size_t i, uint32_t color, float thickness, bool emphasised) const;
  void DrawNodes(const Frame& f);
  void DrawOutlines(const Frame& f) const;
  // The legend overlay's size for the current canvas (width 0: it does not fit).
  struct LegendBox {
    float width = 0;
    float height = 0;
    float name_width = 0;
    bool descriptions = false;
  };
  LegendBox MeasureLegend() const;
  void DrawLegend();
  // The closed legend's tab, in screen pixels.
  struct Rect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool Contains(float x, float y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
  };
  Rect LegendTab() const;
  Rect LegendRect() const;
  void DrawTooltip(int node) const;

  graph::FusionGraph graph_;
  graph::GraphLayout layout_;
  bool has_graph_ = false;
  std::string selection_;
  int selected_node_ = -1;
  double zoom_ = 1.0;  // screen pixels per layout point
  double pan_x_ = 0;   // layout point at the pane's top-left
  double pan_y_ = 0;
  bool fit_pending_ = true;
  std::string center_pending_;
  std::string focus_pending_;
  bool show_legend_ = false;
  std::optional<ScopeToggle> scope_toggle_;
  // Screen origin of the canvas at the last Draw.
  float origin_x_ = 0;
  float origin_y_ = 0;
  int last_drawn_nodes_ = 0;
  int last_labelled_nodes_ = 0;
  int last_drawn_edges_ = 0;
  float canvas_w_ = 0;
  float canvas_h_ = 0;
  int selected_cluster_ = -1;
  int hovered_node_ = -1;
  std::string selection_fusion_;
  // Bounding box of everything drawn, in layout points.
  double min_x_ = 0, min_y_ = 0, max_x_ = 0, max_y_ = 0;
  std::vector<NodePaint> node_paint_;
  std::vector<EdgePaint> edge_paint_;
  std::vector<ClusterPaint> cluster_paint_;
  std::vector<int> cluster_order_;  // outer clusters first, so inner ones draw on top
};

}  // namespace fusebox::viewers
