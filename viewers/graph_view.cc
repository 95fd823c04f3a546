// The fusion graph view. Everything is drawn straight into the window's draw list from the
// Graphviz layout: clusters, then edges, then nodes, then the selection on top, each
// culled against the visible rectangle. Colours and pens are resolved once per graph
// (SetGraph), so a frame allocates nothing of its own and costs about what is on screen.
// Far out, text is skipped and tiny nodes and edges are reduced to single primitives:
// a few thousand nodes then draw as a few vertices each.
#include "viewers/graph_view.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <utility>

#include "viewers/draw_util.h"

namespace fusebox::viewers {
namespace {

using graph::Point;

// Graphviz's sizes from graph/graph_layout.cc's DOT attributes, in points.
constexpr float kNodeFontPt = 10;
constexpr float kScopeFontPt = 14;  // scopes' labels (graph_layout.cc's fontsize)
constexpr float kMinScopePx = 11;   // scope names are drawn at least this size when they fit
constexpr float kClusterFontPt = 11;
constexpr float kLineSpacing = 1.2f;  // Graphviz's line height, in font sizes
constexpr float kNodeRoundingPt = 5;
constexpr float kArrowHalfWidth = 0.35f;  // of the arrow's length, as Graphviz's "normal"

constexpr float kMinTextPx = 6;
constexpr float kMinTitlePx = 9;  // zoomed out, node titles are drawn at least this size
constexpr int kMaxTitledNodes = 400;  // ... while no more nodes than this are on screen  // text smaller than this is unreadable: boxes only
// Level of detail far out: nodes this short on screen are one filled rectangle without a
// border, edges spanning fewer pixels are straight lines between their segments' ends.
// That keeps a zoomed-out overview of thousands of nodes at ~4 vertices per primitive.
constexpr float kSmallNodePx = 8;
constexpr float kSmallEdgePx = 32;
constexpr float kClickSlopPx = 4;       // a press and release closer than this is a click
constexpr float kFitMarginPx = 24;      // around the graph after FitToView
constexpr double kMaxFitZoom = 2.0;     // small graphs are not blown up past this
constexpr double kMinCenterZoom = 1.0;  // CenterOn zooms in at least this far
constexpr double kWheelStep = 1.2;      // zoom factor per wheel notch

// The legend overlay.
constexpr const char* kEdgeKeys[] = {"operand -> user", "called computation",
                                     "operand of the selection", "user of the selection"};
constexpr float kLegendPad = 8;
constexpr float kLegendInset = 8;  // from the canvas's corner
constexpr float kLegendGap = 12;   // between names and descriptions
constexpr const char* kLegendTabText = "Legend";

const ImU32 kBackground = IM_COL32(252, 252, 252, 255);
const ImU32 kCanvasBorder = IM_COL32(200, 200, 200, 255);
const ImU32 kSelectColor = IM_COL32(216, 27, 96, 255);  // pink 600
const ImU32 kHoverColor = IM_COL32(30, 136, 229, 255);  // blue 600
const ImU32 kOperandEdge = IM_COL32(2, 136, 209, 255);  // edges into the selection
const ImU32 kUserEdge = IM_COL32(230, 81, 0, 255);      // edges out of the selection

// "#rrggbb" or one of the colour names graph/fusion_graph.cc's palette uses.
ImU32 ParseColor(const char* text, ImU32 fallback) {
  if (text == nullptr) return fallback;
  if (text[0] == '#' && std::strlen(text) == 7) {
    unsigned value = 0;
    for (int i = 1; i < 7; ++i) {
      char c = text[i];
      unsigned digit = 0;
      if (c >= '0' && c <= '9') {
        digit = static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        digit = static_cast<unsigned>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        digit = static_cast<unsigned>(c - 'A' + 10);
      } else {
        return fallback;
      }
      value = value * 16 + digit;
    }
    return IM_COL32((value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff, 255);
  }
  if (std::strcmp(text, "white") == 0) return IM_COL32_WHITE;
  if (std::strcmp(text, "black") == 0) return IM_COL32_BLACK;
  return fallback;
}

ImVec2 Lerp(ImVec2 a, ImVec2 b, float t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}; }

float Distance(ImVec2 a, ImVec2 b) { return std::hypot(b.x - a.x, b.y - a.y); }

ImVec2 BezierAt(ImVec2 p0, ImVec2 c1, ImVec2 c2, ImVec2 p1, float t) {
  float u = 1 - t;
  float w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t;
  return {w0 * p0.x + w1 * c1.x + w2 * c2.x + w3 * p1.x,
          w0 * p0.y + w1 * c1.y + w2 * c2.y + w3 * p1.y};
}

// Draws the dashes of a path given as short segments, the pattern running on from one
// segment to the next so a flattened curve is dashed evenly.
class Dasher {
 public:
  Dasher(ImDrawList* list, ImU32 color, float thickness, float dash, float gap)
      : list_(list), color_(color), thickness_(thickness), dash_(dash), gap_(gap), left_(dash) {}

  void Segment(ImVec2 from, ImVec2 to) {
    float length = Distance(from, to);
    if (length <= 0) return;
    float done = 0;
    while (done < length) {
      float step = std::min(left_, length - done);
      if (on_) {
        list_->AddLine(Lerp(from, to, done / length), Lerp(from, to, (done + step) / length),
                       color_, thickness_);
      }
      done += step;
      left_ -= step;
      if (left_ <= 1e-3f) {
        on_ = !on_;
        left_ = on_ ? dash_ : gap_;
      }
    }
  }

 private:
  ImDrawList* list_;
  ImU32 color_;
  float thickness_;
  float dash_;
  float gap_;
  float left_;
  bool on_ = true;
};

void DashedRect(ImDrawList* list, ImVec2 a, ImVec2 b, ImU32 color, float thickness) {
  Dasher dasher(list, color, thickness, 4, 3);
  dasher.Segment(a, {b.x, a.y});
  dasher.Segment({b.x, a.y}, b);
  dasher.Segment(b, {a.x, b.y});
  dasher.Segment({a.x, b.y}, a);
}

// One line of text centred in [left, right] at `y`, shrunk a little (to 3/4) when it is
// too wide — ImGui's font is not the one Graphviz measured — and clipped to `clip`.
void CenteredText(ImDrawList* list, ImFont* font, float size, float left, float right, float y,
                  ImU32 color, const std::string& text, const ImVec4& clip, bool bold) {
  if (text.empty()) return;
  const char* begin = text.data();
  const char* end = begin + text.size();
  float width = font->CalcTextSizeA(size, FLT_MAX, 0, begin, end).x;
  float avail = right - left;
  if (width > avail && width > 0) {
    float shrunk = std::max(size * 0.75f, size * avail / width);
    width *= shrunk / size;
    size = shrunk;
  }
  float x = width <= avail ? (left + right - width) / 2 : left;
  list->AddText(font, size, {x, y}, color, begin, end, 0, &clip);
  // Faux bold: the default font has no bold face; a second pass a fraction of the glyph
  // width to the right thickens the strokes.
  if (bold)
    list->AddText(font, size, {x + std::max(0.6f, size / 14), y}, color, begin, end, 0, &clip);
}

}  // namespace

void GraphView::SetGraph(graph::FusionGraph graph, graph::GraphLayout layout) {
  graph_ = std::move(graph);
  layout_ = std::move(layout);
  has_graph_ = true;
  const size_t node_count = std::min(graph_.nodes.size(), layout_.nodes.size());

  node_paint_.assign(graph_.nodes.size(), NodePaint{});
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const graph::GraphNode& node = graph_.nodes[i];
    graph::NodeStyle style = graph::StyleFor(node.category);
    NodePaint& paint = node_paint_[i];
    paint.fill = ParseColor(style.fill, IM_COL32_WHITE);
    paint.stroke = ParseColor(style.stroke, IM_COL32(120, 120, 120, 255));
    paint.font = ParseColor(style.font, IM_COL32_BLACK);
    paint.dashed = style.dashed;
    // As in the DOT text: a collapsed fusion's border says its kind, parameters are
    // square, the centre of a neighbourhood view is ringed in red.
    if (node.kind == graph::NodeKind::kFusion) {
      paint.stroke = ParseColor(graph::StyleForFusionKind(node.fusion_kind).stroke, paint.stroke);
      paint.pen = 2;
    }
    if (node.kind == graph::NodeKind::kScope) paint.pen = 2;
    if (node.category == graph::NodeCategory::kParameter) paint.rounded = false;
    if (node.is_center) {
      paint.stroke = ParseColor("#b71c1c", paint.stroke);
      paint.pen = 3;
    }
  }

  cluster_paint_.assign(graph_.clusters.size(), ClusterPaint{});
  std::vector<int> depth(graph_.clusters.size(), 0);
  for (size_t i = 0; i < graph_.clusters.size(); ++i) {
    const graph::GraphCluster& cluster = graph_.clusters[i];
    graph::ClusterStyle style =
        cluster.kind == graph::ClusterKind::kFusion ? graph::StyleForFusionKind(cluster.fusion_kind)
        : cluster.kind == graph::ClusterKind::kScope ? graph::StyleForScopeCluster()
                                                     : graph::StyleForComputationCluster();
    cluster_paint_[i].fill = ParseColor(style.fill, IM_COL32(245, 245, 245, 255));
    cluster_paint_[i].stroke = ParseColor(style.stroke, IM_COL32(160, 160, 160, 255));
    cluster_paint_[i].pen = cluster.kind == graph::ClusterKind::kFusion ? 2 : 1;
    // Depth by walking parents; the bound guards against a malformed parent cycle.
    int d = 0;
    for (int p = cluster.parent; p >= 0 && p < static_cast<int>(graph_.clusters.size()) && d < 64;
         p = graph_.clusters[p].parent) {
      ++d;
    }
    depth[i] = d;
  }
  cluster_order_.clear();
  for (size_t i = 0; i < std::min(graph_.clusters.size(), layout_.clusters.size()); ++i)
    cluster_order_.push_back(static_cast<int>(i));
  std::stable_sort(cluster_order_.begin(), cluster_order_.end(),
                   [&](int a, int b) { return depth[a] < depth[b]; });

  // The bounding box of what is drawn: Graphviz's bounding box also holds the graph's
  // label (drawn here as the toolbar and legend), so fitting uses the drawn parts only.
  bool any = false;
  auto grow = [&](double x0, double y0, double x1, double y1) {
    if (!any) {
      min_x_ = x0, min_y_ = y0, max_x_ = x1, max_y_ = y1;
      any = true;
      return;
    }
    min_x_ = std::min(min_x_, x0), min_y_ = std::min(min_y_, y0);
    max_x_ = std::max(max_x_, x1), max_y_ = std::max(max_y_, y1);
  };
  for (size_t i = 0; i < node_count; ++i) {
    const graph::NodeBox& b = layout_.nodes[i];
    grow(b.x, b.y, b.x + b.w, b.y + b.h);
  }
  for (int c : cluster_order_) {
    const graph::NodeBox& b = layout_.clusters[c].box;
    grow(b.x, b.y, b.x + b.w, b.y + b.h);
  }

  edge_paint_.assign(layout_.edges.size(), EdgePaint{});
  const ImU32 data_color = ParseColor("#616161", IM_COL32(97, 97, 97, 255));
  const ImU32 call_color = ParseColor("#2e7d32", data_color);
  const ImU32 cutoff_color = ParseColor("#9e9e9e", data_color);
  for (size_t i = 0; i < layout_.edges.size(); ++i) {
    const graph::EdgePath& path = layout_.edges[i];
    EdgePaint& paint = edge_paint_[i];
    paint.color = data_color;
    if (path.edge >= 0 && path.edge < static_cast<int>(graph_.edges.size())) {
      const graph::GraphEdge& edge = graph_.edges[path.edge];
      paint.from = edge.from;
      paint.to = edge.to;
      paint.weight = std::min(1.0f + static_cast<float>(edge.count - 1) / 4, 3.0f);
      if (edge.kind != graph::EdgeKind::kData) {
        paint.color = edge.kind == graph::EdgeKind::kCall ? call_color : cutoff_color;
        paint.dashed = true;
      }
    }
    if (path.points.empty()) continue;
    paint.min_x = paint.max_x = path.points[0].x;
    paint.min_y = paint.max_y = path.points[0].y;
    auto add = [&](const Point& p) {
      paint.min_x = std::min(paint.min_x, p.x), paint.max_x = std::max(paint.max_x, p.x);
      paint.min_y = std::min(paint.min_y, p.y), paint.max_y = std::max(paint.max_y, p.y);
    };
    for (const Point& p : path.points) add(p);
    if (path.has_arrow) add(path.arrow_tip);
    grow(paint.min_x, paint.min_y, paint.max_x, paint.max_y);
  }
  if (!any) min_x_ = min_y_ = 0, max_x_ = layout_.width, max_y_ = layout_.height;

  hovered_node_ = -1;
  fit_pending_ = true;
  center_pending_.clear();
  focus_pending_.clear();
  // Keep the selection across graphs (the workbench rebuilds the graph when its options
  // change): re-resolve it against the new nodes.
  SetSelection(selection_, selection_fusion_);
}

void GraphView::Clear() {
  graph_ = graph::FusionGraph();
  layout_ = graph::GraphLayout();
  has_graph_ = false;
  node_paint_.clear();
  edge_paint_.clear();
  cluster_paint_.clear();
  cluster_order_.clear();
  selected_node_ = -1;
  selected_cluster_ = -1;
  hovered_node_ = -1;
  last_drawn_nodes_ = 0;
  last_labelled_nodes_ = 0;
  last_drawn_edges_ = 0;
  center_pending_.clear();
  fit_pending_ = true;
  min_x_ = min_y_ = max_x_ = max_y_ = 0;
}

void GraphView::SetSelection(const std::string& instruction, const std::string& fusion) {
  selection_ = instruction;
  selection_fusion_ = fusion;
  selected_node_ = -1;
  selected_cluster_ = -1;
  if (instruction.empty()) return;
  auto find_cluster = [&](const std::string& name) {
    for (size_t i = 0; i < graph_.clusters.size(); ++i) {
      if (graph_.clusters[i].kind == graph::ClusterKind::kFusion &&
          graph_.clusters[i].instruction == name) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  if (const graph::GraphNode* node = graph_.FindNode(instruction)) {
    selected_node_ = node->id;
  } else if (const graph::GraphNode* scope = graph_.NodeDrawing(instruction)) {
    selected_node_ = scope->id;  // inside a collapsed scope
  } else if (int cluster = find_cluster(instruction); cluster >= 0) {
    selected_cluster_ = cluster;  // an expanded fusion
  } else if (!fusion.empty()) {
    if (const graph::GraphNode* holder = graph_.NodeDrawing(fusion)) {
      selected_node_ = holder->id;  // a fused instruction inside a collapsed fusion
    } else {
      selected_cluster_ = find_cluster(fusion);
    }
  }
  if (selected_node_ >= static_cast<int>(std::min(graph_.nodes.size(), layout_.nodes.size())))
    selected_node_ = -1;
  // A selected fused instruction also marks the cluster it is drawn in.
  if (selected_node_ >= 0 && selected_cluster_ < 0) {
    int cluster = graph_.nodes[selected_node_].cluster;
    if (cluster >= 0 && cluster < static_cast<int>(graph_.clusters.size()) &&
        graph_.clusters[cluster].kind == graph::ClusterKind::kFusion) {
      selected_cluster_ = cluster;
    }
  }
}

void GraphView::FitToView() {
  fit_pending_ = true;
  center_pending_.clear();
}

void GraphView::CenterOn(const std::string& instruction) {
  center_pending_ = instruction;
  fit_pending_ = false;
}

void GraphView::FocusScope(const std::string& scope) {
  focus_pending_ = scope;
  fit_pending_ = false;
  center_pending_.clear();
}

graph::Point GraphView::LayoutToScreen(graph::Point p) const {
  return {origin_x_ + (p.x - pan_x_) * zoom_, origin_y_ + (p.y - pan_y_) * zoom_};
}

graph::Point GraphView::ScreenToLayout(float screen_x, float screen_y) const {
  return {pan_x_ + (screen_x - origin_x_) / zoom_, pan_y_ + (screen_y - origin_y_) / zoom_};
}

int GraphView::NodeAt(float screen_x, float screen_y) const {
  if (!has_graph_) return -1;
  if (screen_x < origin_x_ || screen_y < origin_y_ || screen_x >= origin_x_ + canvas_w_ ||
      screen_y >= origin_y_ + canvas_h_) {
    return -1;
  }
  Point p = ScreenToLayout(screen_x, screen_y);
  const int count = static_cast<int>(std::min(graph_.nodes.size(), layout_.nodes.size()));
  // Last drawn is on top.
  for (int i = count - 1; i >= 0; --i) {
    const graph::NodeBox& b = layout_.nodes[i];
    if (p.x >= b.x && p.x <= b.x + b.w && p.y >= b.y && p.y <= b.y + b.h) return i;
  }
  return -1;
}

std::optional<GraphView::ScopeToggle> GraphView::TakeScopeToggle() {
  std::optional<ScopeToggle> out = std::move(scope_toggle_);
  scope_toggle_.reset();
  return out;
}

int GraphView::ScopeClusterLabelAt(float screen_x, float screen_y) const {
  if (!has_graph_) return -1;
  Point p = ScreenToLayout(screen_x, screen_y);
  // The label strip is one line of the cluster font (and at least 12 pixels) tall; inner
  // clusters are drawn last, so they are hit first.
  const double strip = std::max(kClusterFontPt * kLineSpacing + 4.0, 12.0 / zoom_);
  for (auto it = cluster_order_.rbegin(); it != cluster_order_.rend(); ++it) {
    const graph::NodeBox& b = layout_.clusters[*it].box;
    if (graph_.clusters[*it].kind != graph::ClusterKind::kScope || b.w <= 0) continue;
    if (p.x >= b.x && p.x <= b.x + b.w && p.y >= b.y && p.y <= b.y + strip) return *it;
  }
  return -1;
}

double GraphView::MinZoom() const {
  // Huge graphs may need more than kMinZoom to fit; zooming out to the fit is allowed.
  double w = std::max(1.0, max_x_ - min_x_), h = std::max(1.0, max_y_ - min_y_);
  double fit = std::min((canvas_w_ - 2 * kFitMarginPx) / w, (canvas_h_ - 2 * kFitMarginPx) / h);
  return fit > 0 ? std::min(kMinZoom, fit * 0.5) : kMinZoom;
}

void GraphView::ZoomAround(double new_zoom, float screen_x, float screen_y) {
  new_zoom = std::clamp(new_zoom, MinZoom(), kMaxZoom);
  Point anchor = ScreenToLayout(screen_x, screen_y);
  zoom_ = new_zoom;
  pan_x_ = anchor.x - (screen_x - origin_x_) / zoom_;
  pan_y_ = anchor.y - (screen_y - origin_y_) / zoom_;
}

void GraphView::ApplyPending() {
  if (!focus_pending_.empty()) {
    const std::string scope = std::move(focus_pending_);
    focus_pending_.clear();
    const graph::NodeBox* box = nullptr;
    for (size_t i = 0; i < std::min(graph_.clusters.size(), layout_.clusters.size()); ++i) {
      if (graph_.clusters[i].kind == graph::ClusterKind::kScope &&
          graph_.clusters[i].scope == scope)
        box = &layout_.clusters[i].box;
    }
    for (size_t i = 0; box == nullptr && i < std::min(graph_.nodes.size(), layout_.nodes.size());
         ++i) {
      if (graph_.nodes[i].kind == graph::NodeKind::kScope && graph_.nodes[i].scope == scope)
        box = &layout_.nodes[i];
    }
    if (box == nullptr) {
      fit_pending_ = true;
    } else {
      const double avail_w = std::max(1.0, static_cast<double>(canvas_w_) - 2 * kFitMarginPx);
      const double avail_h = std::max(1.0, static_cast<double>(canvas_h_) - 2 * kFitMarginPx);
      zoom_ = std::clamp(
          std::min({avail_w / std::max(1.0, box->w), avail_h / std::max(1.0, box->h), kMaxFitZoom}),
          MinZoom(), kMaxZoom);
      const Point c = box->center();
      pan_x_ = c.x - canvas_w_ / (2 * zoom_);
      pan_y_ = c.y - canvas_h_ / (2 * zoom_);
    }
  }
  if (fit_pending_) {
    fit_pending_ = false;
    double w = std::max(1.0, max_x_ - min_x_), h = std::max(1.0, max_y_ - min_y_);
    double avail_w = std::max(1.0, static_cast<double>(canvas_w_) - 2 * kFitMarginPx);
    double avail_h = std::max(1.0, static_cast<double>(canvas_h_) - 2 * kFitMarginPx);
    zoom_ = std::min({avail_w / w, avail_h / h, kMaxFitZoom});
    zoom_ = std::clamp(zoom_, std::min(kMinZoom, zoom_), kMaxZoom);
    pan_x_ = (min_x_ + max_x_) / 2 - canvas_w_ / (2 * zoom_);
    pan_y_ = (min_y_ + max_y_) / 2 - canvas_h_ / (2 * zoom_);
    // Keep the graph clear of the legend (bottom-left) where the pane has room beside or
    // above it: centre the graph in what is left.
    const LegendBox legend = MeasureLegend();
    if (legend.width > 0) {
      const double graph_w = w * zoom_, graph_h = h * zoom_;
      const double beside = canvas_w_ - (legend.width + kLegendInset);
      const double above = canvas_h_ - (legend.height + kLegendInset);
      if (graph_w + 2 * kFitMarginPx <= beside) {
        pan_x_ = min_x_ - (canvas_w_ - beside + (beside - graph_w) / 2) / zoom_;
      } else if (graph_h + 2 * kFitMarginPx <= above) {
        pan_y_ = min_y_ - ((above - graph_h) / 2) / zoom_;
      }
    }
  }
  if (!center_pending_.empty()) {
    std::string name = std::move(center_pending_);
    center_pending_.clear();
    const graph::NodeBox* box = nullptr;
    const graph::GraphNode* node = graph_.FindNode(name);
    if (node == nullptr && name == selection_ && selected_node_ >= 0)
      node = &graph_.nodes[selected_node_];
    if (node != nullptr && node->id < static_cast<int>(layout_.nodes.size())) {
      box = &layout_.nodes[node->id];
    } else {
      for (size_t i = 0; i < std::min(graph_.clusters.size(), layout_.clusters.size()); ++i) {
        if (graph_.clusters[i].instruction == name) box = &layout_.clusters[i].box;
      }
    }
    if (box != nullptr) {
      // Centring on a node too small to read would show nothing: zoom in to legible.
      zoom_ = std::max(zoom_, kMinCenterZoom);
      Point c = box->center();
      pan_x_ = c.x - canvas_w_ / (2 * zoom_);
      pan_y_ = c.y - canvas_h_ / (2 * zoom_);
    }
  }
}

std::optional<std::string> GraphView::Draw(const char* id) {
  ImGui::PushID(id);
  ImGuiIO& io = ImGui::GetIO();
  std::optional<std::string> clicked;

  // Where the canvas will be (one toolbar line down), so that a pending fit is applied
  // before the toolbar shows the zoom.
  {
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float toolbar_h = ImGui::GetFrameHeightWithSpacing();
    origin_x_ = top.x;
    origin_y_ = top.y + toolbar_h;
    canvas_w_ = std::max(avail.x, 32.0f);
    canvas_h_ = std::max(avail.y - toolbar_h, 32.0f);
    if (has_graph_) ApplyPending();
  }

  // Toolbar.
  const float center_x = origin_x_ + canvas_w_ / 2, center_y = origin_y_ + canvas_h_ / 2;
  if (ImGui::Button("Fit")) FitToView();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Fit the whole graph (F, or double-click)");
  ImGui::SameLine();
  if (ImGui::Button("-") && has_graph_) ZoomAround(zoom_ / 1.25, center_x, center_y);
  ImGui::SameLine();
  if (ImGui::Button("+") && has_graph_) ZoomAround(zoom_ * 1.25, center_x, center_y);
  ImGui::SameLine();
  ImGui::Text("%5.0f%%", zoom_ * 100);
  ImGui::SameLine();
  ImGui::Checkbox("Legend", &show_legend_);
  if (has_graph_) {
    ImGui::SameLine();
    ImGui::TextDisabled("%d nodes, %d edges", graph_.instruction_node_count(),
                        static_cast<int>(graph_.edges.size()));
    if (!graph_.title.empty()) {
      ImGui::SameLine();
      ImGui::TextUnformatted(graph_.title.c_str());
    }
    if (!graph_.notes.empty()) {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(0.9f, 0.6f, 0.1f, 1), "(%d note%s)",
                         static_cast<int>(graph_.notes.size()),
                         graph_.notes.size() == 1 ? "" : "s");
      if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        for (const std::string& note : graph_.notes) ImGui::TextUnformatted(note.c_str());
        ImGui::EndTooltip();
      }
    }
  }

  // The canvas: one invisible button takes the mouse for the whole region.
  ImVec2 origin = ImGui::GetCursorScreenPos();
  ImVec2 avail = ImGui::GetContentRegionAvail();
  ImVec2 size(std::max(avail.x, 32.0f), std::max(avail.y, 32.0f));
  bool pressed = ImGui::InvisibleButton(
      "canvas", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  origin_x_ = origin.x;
  origin_y_ = origin.y;
  canvas_w_ = size.x;
  canvas_h_ = size.y;

  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 canvas_max(origin.x + size.x, origin.y + size.y);
  list->PushClipRect(origin, canvas_max, true);
  list->AddRectFilled(origin, canvas_max, kBackground);

  if (!has_graph_) {
    const char* text = "No graph";
    ImVec2 text_size = ImGui::CalcTextSize(text);
    list->AddText({origin.x + (size.x - text_size.x) / 2, origin.y + (size.y - text_size.y) / 2},
                  IM_COL32(140, 140, 140, 255), text);
    last_drawn_nodes_ = 0;
    last_labelled_nodes_ = 0;
    last_drawn_edges_ = 0;
    hovered_node_ = -1;
  } else {
    ApplyPending();
    const bool dragging = active && (io.MouseDown[0] || io.MouseDown[2]);
    if (dragging && (io.MouseDelta.x != 0 || io.MouseDelta.y != 0)) {
      pan_x_ -= io.MouseDelta.x / zoom_;
      pan_y_ -= io.MouseDelta.y / zoom_;
    }
    if (hovered && io.MouseWheel != 0) {
      ZoomAround(zoom_ * std::pow(kWheelStep, static_cast<double>(io.MouseWheel)), io.MousePos.x,
                 io.MousePos.y);
    }
    if (hovered && !io.WantTextInput && ImGui::IsKeyPressed('F', false)) FitToView();
    hovered_node_ = hovered ? NodeAt(io.MousePos.x, io.MousePos.y) : -1;
    if (pressed && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
        io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < kClickSlopPx * kClickSlopPx) {
      int node = NodeAt(io.MousePos.x, io.MousePos.y);
      const int scope_label = node < 0 ? ScopeClusterLabelAt(io.MousePos.x, io.MousePos.y) : -1;
      if (!show_legend_ && LegendTab().Contains(io.MousePos.x, io.MousePos.y)) {
        show_legend_ = true;
      } else if (show_legend_ && LegendRect().Contains(io.MousePos.x, io.MousePos.y)) {
        show_legend_ = false;
      } else if (node >= 0 && graph_.nodes[node].kind == graph::NodeKind::kScope) {
        scope_toggle_ = ScopeToggle{graph_.nodes[node].scope, true};
      } else if (scope_label >= 0) {
        scope_toggle_ = ScopeToggle{graph_.clusters[scope_label].scope, false};
      } else if (node >= 0 && graph_.nodes[node].kind != graph::NodeKind::kCutOff &&
                 !graph_.nodes[node].instruction.empty()) {
        clicked = graph_.nodes[node].instruction;
        SetSelection(*clicked);
      }
    }
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && hovered_node_ < 0)
      FitToView();
    // A fit asked for by a key or double-click shows in this frame already.
    if (fit_pending_) ApplyPending();

    DrawCanvas();
    DrawLegend();
    const int hovered_scope =
        hovered && hovered_node_ < 0 ? ScopeClusterLabelAt(io.MousePos.x, io.MousePos.y) : -1;
    if (hovered_node_ >= 0 && !dragging) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
      DrawTooltip(hovered_node_);
    } else if (hovered_scope >= 0 && !dragging) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
      ImGui::SetTooltip("%s\nscope %s\nclick to collapse",
                        graph_.clusters[hovered_scope].label.c_str(),
                        graph_.clusters[hovered_scope].scope.c_str());
    } else if (dragging && io.MouseDragMaxDistanceSqr[0] + io.MouseDragMaxDistanceSqr[2] > 0) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeAll);
    }
  }
  list->AddRect(origin, canvas_max, kCanvasBorder);
  list->PopClipRect();
  ImGui::PopID();
  return clicked;
}

// One frame of the canvas: where layout points land on screen and which are visible.
struct GraphView::Frame {
  ImDrawList* list = nullptr;
  ImFont* font = nullptr;
  float z = 1;  // zoom_ as a float, for sizes
  double zoom = 1, pan_x = 0, pan_y = 0;
  float origin_x = 0, origin_y = 0;
  // The visible rectangle in layout points.
  double view_x0 = 0, view_y0 = 0, view_x1 = 0, view_y1 = 0;

  ImVec2 ToScreen(double x, double y) const {
    return ImVec2(static_cast<float>(origin_x + (x - pan_x) * zoom),
                  static_cast<float>(origin_y + (y - pan_y) * zoom));
  }
  bool Visible(double x0, double y0, double x1, double y1) const {
    return x1 >= view_x0 && x0 <= view_x1 && y1 >= view_y0 && y0 <= view_y1;
  }
};

void GraphView::DrawCanvas() {
  Frame f;
  f.list = ImGui::GetWindowDrawList();
  f.font = ImGui::GetFont();
  f.z = static_cast<float>(zoom_);
  f.zoom = zoom_;
  f.pan_x = pan_x_;
  f.pan_y = pan_y_;
  f.origin_x = origin_x_;
  f.origin_y = origin_y_;
  f.view_x0 = pan_x_, f.view_y0 = pan_y_;
  f.view_x1 = pan_x_ + canvas_w_ / zoom_, f.view_y1 = pan_y_ + canvas_h_ / zoom_;
  DrawClusters(f);
  DrawEdges(f);
  DrawNodes(f);
  DrawOutlines(f);
}

// Clusters, outer first.
void GraphView::DrawClusters(const Frame& f) const {
  const float z = f.z;
  for (int c : cluster_order_) {
    // A scope's name says which stage or block a box is: legible at any zoom that
    // leaves it room.
    const bool scope = graph_.clusters[c].kind == graph::ClusterKind::kScope;
    const float cluster_font =
        scope ? std::max(kScopeFontPt * z, std::min(kMinScopePx, kScopeFontPt * 1.5f * z))
              : kClusterFontPt * z;
    const graph::NodeBox& b = layout_.clusters[c].box;
    if (b.w <= 0 || !f.Visible(b.x, b.y, b.x + b.w, b.y + b.h)) continue;
    const ClusterPaint& paint = cluster_paint_[c];
    ImVec2 p0 = f.ToScreen(b.x, b.y), p1 = f.ToScreen(b.x + b.w, b.y + b.h);
    float rounding = std::min(kNodeRoundingPt * 1.5f * z, 10.0f);
    if (rounding < 1.5f) rounding = 0;
    f.list->AddRectFilled(p0, p1, paint.fill, rounding);
    f.list->AddRect(p0, p1, paint.stroke, rounding, 0,
                    std::max(1.0f, paint.pen * std::min(z, 1.5f)));
    if (cluster_font >= kMinTextPx && !graph_.clusters[c].label.empty()) {
      const std::string& label = graph_.clusters[c].label;
      ImVec4 clip(p0.x, p0.y, p1.x - 2, p1.y);
      f.list->AddText(f.font, cluster_font, {p0.x + 6 * z, p0.y + 3 * z},
                      Mix(paint.stroke, IM_COL32_BLACK, 0.45f), label.data(),
                      label.data() + label.size(), 0, &clip);
    }
  }
}

void GraphView::DrawEdge(const Frame& f, size_t i, uint32_t color, float thickness,
                         bool emphasised) const {
  ImDrawList* list = f.list;
  const float z = f.z;
  auto to_screen = [&](double x, double y) { return f.ToScreen(x, y); };
  const graph::EdgePath& path = layout_.edges[i];
  const EdgePaint& paint = edge_paint_[i];
  const std::vector<Point>& pts = path.points;
  const size_t n = pts.size();
  if (n < 2) return;
  const bool cubic = n >= 4 && (n - 1) % 3 == 0;
  float extent =
      static_cast<float>(std::max(paint.max_x - paint.min_x, paint.max_y - paint.min_y)) * z;
  if (extent < kSmallEdgePx && !paint.dashed) {
    // Through the on-curve points only (every third of a Bézier's), the last one
    // replaced by the arrow's tip.
    const size_t stride = cubic ? 3 : 1;
    ImVec2 prev = to_screen(pts[0].x, pts[0].y);
    for (size_t k = stride; k < n; k += stride) {
      const Point& p = k + stride >= n && path.has_arrow ? path.arrow_tip : pts[k];
      ImVec2 next = to_screen(p.x, p.y);
      list->AddLine(prev, next, color, thickness);
      prev = next;
    }
    return;
  }
  if (paint.dashed) {
    Dasher dasher(list, color, thickness, std::max(3.0f, 5 * z), std::max(2.0f, 3 * z));
    if (cubic) {
      for (size_t k = 0; k + 3 < n; k += 3) {
        ImVec2 a = to_screen(pts[k].x, pts[k].y), b = to_screen(pts[k + 1].x, pts[k + 1].y);
        ImVec2 c = to_screen(pts[k + 2].x, pts[k + 2].y), d = to_screen(pts[k + 3].x, pts[k + 3].y);
        float hull = Distance(a, b) + Distance(b, c) + Distance(c, d);
        int steps = std::clamp(static_cast<int>(hull / 6), 2, 48);
        ImVec2 prev = a;
        for (int s = 1; s <= steps; ++s) {
          ImVec2 next = BezierAt(a, b, c, d, static_cast<float>(s) / static_cast<float>(steps));
          dasher.Segment(prev, next);
          prev = next;
        }
      }
    } else {
      for (size_t k = 0; k + 1 < n; ++k)
        dasher.Segment(to_screen(pts[k].x, pts[k].y), to_screen(pts[k + 1].x, pts[k + 1].y));
    }
  } else if (cubic) {
    for (size_t k = 0; k + 3 < n; k += 3) {
      list->AddBezierCubic(to_screen(pts[k].x, pts[k].y), to_screen(pts[k + 1].x, pts[k + 1].y),
                           to_screen(pts[k + 2].x, pts[k + 2].y),
                           to_screen(pts[k + 3].x, pts[k + 3].y), color, thickness);
    }
  } else {
    for (size_t k = 0; k + 1 < n; ++k) {
      list->AddLine(to_screen(pts[k].x, pts[k].y), to_screen(pts[k + 1].x, pts[k + 1].y), color,
                    thickness);
    }
  }
  if (path.has_arrow) {
    ImVec2 base = to_screen(pts.back().x, pts.back().y);
    ImVec2 tip = to_screen(path.arrow_tip.x, path.arrow_tip.y);
    float length = Distance(base, tip);
    if (length >= 1.5f) {
      // The selection's edges are thicker: widen their heads to match.
      float half = kArrowHalfWidth * length * (emphasised ? 1.4f : 1.0f);
      ImVec2 normal((tip.y - base.y) / length * half, -(tip.x - base.x) / length * half);
      list->AddTriangleFilled(tip, {base.x + normal.x, base.y + normal.y},
                              {base.x - normal.x, base.y - normal.y}, color);
    }
  }
}

// Edges: the selection's last, on top.
void GraphView::DrawEdges(const Frame& f) {
  const float edge_width = std::clamp(f.z, 1.0f, 2.0f);
  int drawn_edges = 0;
  const int sel = selected_node_;
  for (size_t i = 0; i < layout_.edges.size(); ++i) {
    const EdgePaint& paint = edge_paint_[i];
    if (sel >= 0 && (paint.from == sel || paint.to == sel)) continue;
    if (!f.Visible(paint.min_x, paint.min_y, paint.max_x, paint.max_y)) continue;
    ++drawn_edges;
    DrawEdge(f, i, paint.color, edge_width * paint.weight, false);
  }
  if (sel >= 0) {
    for (size_t i = 0; i < layout_.edges.size(); ++i) {
      const EdgePaint& paint = edge_paint_[i];
      if (paint.from != sel && paint.to != sel) continue;
      if (!f.Visible(paint.min_x, paint.min_y, paint.max_x, paint.max_y)) continue;
      ++drawn_edges;
      DrawEdge(f, i, paint.to == sel ? kOperandEdge : kUserEdge, edge_width + 1.5f, true);
    }
  }
  last_drawn_edges_ = drawn_edges;
}

// Nodes: boxes, and labels as far as the zoom lets them be read.
void GraphView::DrawNodes(const Frame& f) {
  ImDrawList* list = f.list;
  ImFont* font = f.font;
  const float z = f.z;
  const int node_count = static_cast<int>(std::min(graph_.nodes.size(), layout_.nodes.size()));
  int drawn = 0, labelled = 0;
  for (int i = 0; i < node_count; ++i) {
    const graph::NodeBox& b = layout_.nodes[i];
    if (!f.Visible(b.x, b.y, b.x + b.w, b.y + b.h)) continue;
    ++drawn;
    const NodePaint& paint = node_paint_[i];
    ImVec2 p0 = f.ToScreen(b.x, b.y), p1 = f.ToScreen(b.x + b.w, b.y + b.h);
    if (p1.x - p0.x < kSmallNodePx || p1.y - p0.y < kSmallNodePx) {
      // One rectangle, in a colour between fill and border so white nodes still show on
      // the white background.
      list->AddRectFilled(p0, {std::max(p1.x, p0.x + 1), std::max(p1.y, p0.y + 1)},
                          Mix(paint.fill, paint.stroke, 0.4f));
      continue;
    }
    float rounding = paint.rounded ? std::min(kNodeRoundingPt * z, (p1.y - p0.y) / 2) : 0;
    if (rounding < 1.5f) rounding = 0;
    list->AddRectFilled(p0, p1, paint.fill, rounding);
    float pen = std::max(1.0f, paint.pen * std::min(z, 1.5f));
    if (paint.dashed) {
      DashedRect(list, p0, p1, paint.stroke, pen);
    } else {
      list->AddRect(p0, p1, paint.stroke, rounding, 0, pen);
    }
    const graph::GraphNode& node = graph_.nodes[i];
    const bool scope = node.kind == graph::NodeKind::kScope;
    float font_px = (scope ? kScopeFontPt : kNodeFontPt) * z;
    // A collapsed scope's three lines are what an overview is read by: up to kMinScopePx
    // as far as its box has room for them.
    if (scope) {
      const float room = (p1.y - p0.y - 4) / (kLineSpacing * (1 + node.lines.size()));
      font_px = std::max(font_px, std::min(kMinScopePx, room));
    }
    const bool text = font_px >= kMinTextPx;
    const float line_h = font_px * kLineSpacing;
    if (!text) {
      // Too far out for the whole label: the title alone, at the smallest size that can
      // still be read, when the box has room for a few characters. An overview of a
      // module is useless if no node says what it is.
      // Only while few nodes are on screen (counted in the previous frame): thousands of
      // tiny titles are noise, and vertices.
      const float title_px = std::min(kMinTitlePx, p1.y - p0.y - 2);
      if (last_drawn_nodes_ <= kMaxTitledNodes && p1.x - p0.x >= 4 * title_px &&
          title_px >= kMinTextPx) {
        ImVec4 clip(p0.x + 1, p0.y + 1, p1.x - 1, p1.y - 1);
        CenteredText(list, font, title_px, p0.x + 2, p1.x - 2, (p0.y + p1.y - title_px) / 2,
                     paint.font, node.title, clip, false);
      }
      continue;
    }
    ++labelled;
    const int lines = 1 + static_cast<int>(node.lines.size());
    const float pad = 4 * z;
    float y = (p0.y + p1.y) / 2 - line_h * static_cast<float>(lines) / 2 + (line_h - font_px) / 2;
    ImVec4 clip(p0.x + 1, p0.y + 1, p1.x - 1, p1.y - 1);
    // Faux bold smears glyphs this small.
    CenteredText(list, font, font_px, p0.x + pad, p1.x - pad, y, paint.font, node.title, clip,
                 node.kind != graph::NodeKind::kCutOff && font_px >= 12);
    for (const std::string& line : node.lines) {
      y += line_h;
      if (y > p1.y) break;
      CenteredText(list, font, font_px, p0.x + pad, p1.x - pad, y, paint.font, line, clip, false);
    }
  }
  last_drawn_nodes_ = drawn;
  last_labelled_nodes_ = labelled;
}

// Selection and hover outlines on top of everything. Far out they keep a minimum size,
// so the selection stays findable in a zoomed-out overview.
void GraphView::DrawOutlines(const Frame& f) const {
  ImDrawList* list = f.list;
  const float z = f.z;
  auto outline = [&](const graph::NodeBox& b, ImU32 color, float thickness, float halo,
                     float rounding) {
    ImVec2 p0 = f.ToScreen(b.x, b.y), p1 = f.ToScreen(b.x + b.w, b.y + b.h);
    const float min_size = 10;
    if (p1.x - p0.x < min_size) {
      float c = (p0.x + p1.x) / 2;
      p0.x = c - min_size / 2, p1.x = c + min_size / 2;
    }
    if (p1.y - p0.y < min_size) {
      float c = (p0.y + p1.y) / 2;
      p0.y = c - min_size / 2, p1.y = c + min_size / 2;
    }
    if (halo > 0) {
      list->AddRect({p0.x - halo, p0.y - halo}, {p1.x + halo, p1.y + halo}, WithAlpha(color, 70),
                    rounding + halo, 0, halo * 1.5f);
    }
    list->AddRect({p0.x - 1, p0.y - 1}, {p1.x + 1, p1.y + 1}, color, rounding, 0, thickness);
  };
  if (selected_cluster_ >= 0 && selected_cluster_ < static_cast<int>(layout_.clusters.size())) {
    const graph::NodeBox& b = layout_.clusters[selected_cluster_].box;
    if (f.Visible(b.x, b.y, b.x + b.w, b.y + b.h))
      outline(b, kSelectColor, selected_node_ >= 0 ? 2.0f : 3.0f, 0, std::min(8 * z, 10.0f));
  }
  if (hovered_node_ >= 0 && hovered_node_ != selected_node_)
    outline(layout_.nodes[hovered_node_], kHoverColor, 2, 0, std::min(kNodeRoundingPt * z, 6.0f));
  if (selected_node_ >= 0) {
    const graph::NodeBox& b = layout_.nodes[selected_node_];
    if (f.Visible(b.x, b.y, b.x + b.w, b.y + b.h))
      outline(b, kSelectColor, 3, 4, std::min(kNodeRoundingPt * z, 6.0f));
  }
}

GraphView::LegendBox GraphView::MeasureLegend() const {
  LegendBox box;
  if (!show_legend_ || graph_.legend.empty()) return box;
  const float line_h = ImGui::GetTextLineHeight() + 3;
  const float swatch = line_h - 5;
  // Sized to its text every frame: a dozen entries, no allocation.
  float desc_w = 0;
  for (const graph::LegendEntry& entry : graph_.legend) {
    std::string_view name = graph::CategoryName(entry.category);
    box.name_width =
        std::max(box.name_width, ImGui::CalcTextSize(name.data(), name.data() + name.size()).x);
    desc_w = std::max(desc_w, ImGui::CalcTextSize(entry.description.c_str()).x);
  }
  for (const char* key : kEdgeKeys)
    box.name_width = std::max(box.name_width, ImGui::CalcTextSize(key).x);
  const int rows = static_cast<int>(graph_.legend.size()) + 4;
  box.height = kLegendPad * 2 + line_h * static_cast<float>(rows);
  const float names_only = kLegendPad * 2 + swatch + 6 + box.name_width;
  const float room_w = canvas_w_ - 2 * kLegendInset, room_h = canvas_h_ - 2 * kLegendInset;
  if (box.height > room_h || names_only > room_w) return LegendBox{};
  // Descriptions when the pane is wide enough for them.
  box.descriptions = names_only + kLegendGap + desc_w <= room_w;
  box.width = box.descriptions ? names_only + kLegendGap + desc_w : names_only;
  return box;
}

GraphView::Rect GraphView::LegendTab() const {
  if (graph_.legend.empty()) return {};
  const ImVec2 text = ImGui::CalcTextSize(kLegendTabText);
  const float h = text.y + 6;
  return {origin_x_ + kLegendInset, origin_y_ + canvas_h_ - kLegendInset - h,
          origin_x_ + kLegendInset + text.x + 12, origin_y_ + canvas_h_ - kLegendInset};
}

GraphView::Rect GraphView::LegendRect() const {
  const LegendBox box = MeasureLegend();
  if (box.width <= 0) return {};
  const float x0 = origin_x_ + kLegendInset, y1 = origin_y_ + canvas_h_ - kLegendInset;
  return {x0, y1 - box.height, x0 + box.width, y1};
}

void GraphView::DrawLegend() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  if (!show_legend_) {
    // Out of the way: a tab in the corner, the legend one click away.
    const Rect tab = LegendTab();
    if (tab.x1 <= tab.x0) return;
    list->AddRectFilled({tab.x0, tab.y0}, {tab.x1, tab.y1}, IM_COL32(255, 255, 255, 230), 4);
    list->AddRect({tab.x0, tab.y0}, {tab.x1, tab.y1}, IM_COL32(170, 170, 170, 255), 4);
    list->AddText({tab.x0 + 6, tab.y0 + 3}, IM_COL32(80, 80, 80, 255), kLegendTabText);
    return;
  }
  const LegendBox box = MeasureLegend();
  if (box.width <= 0) return;
  const float line_h = ImGui::GetTextLineHeight() + 3;
  const float swatch = line_h - 5;
  const float pad = kLegendPad;
  const float name_w = box.name_width;
  const Rect rect = LegendRect();
  ImVec2 p0(rect.x0, rect.y0);
  ImVec2 p1(rect.x1, rect.y1);
  list->AddRectFilled(p0, p1, IM_COL32(255, 255, 255, 235), 4);
  list->AddRect(p0, p1, IM_COL32(190, 190, 190, 255), 4);
  const ImU32 text = IM_COL32(33, 33, 33, 255);
  const ImU32 dim = IM_COL32(110, 110, 110, 255);
  float y = p0.y + pad;
  const float x = p0.x + pad;
  for (const graph::LegendEntry& entry : graph_.legend) {
    graph::NodeStyle style = graph::StyleFor(entry.category);
    ImVec2 s0(x, y + 2), s1(x + swatch, y + 2 + swatch);
    list->AddRectFilled(s0, s1, ParseColor(style.fill, IM_COL32_WHITE), 2);
    list->AddRect(s0, s1, ParseColor(style.stroke, IM_COL32_BLACK), 2);
    std::string_view name = graph::CategoryName(entry.category);
    list->AddText({x + swatch + 6, y}, text, name.data(), name.data() + name.size());
    if (box.descriptions)
      list->AddText({x + swatch + 6 + name_w + kLegendGap, y}, dim, entry.description.c_str());
    y += line_h;
  }
  const ImU32 edge_colors[] = {ParseColor("#616161", dim), ParseColor("#2e7d32", dim), kOperandEdge,
                               kUserEdge};
  for (int k = 0; k < 4; ++k) {
    float cy = y + line_h / 2;
    if (k == 1) {
      Dasher dasher(list, edge_colors[k], 1.5f, 4, 3);
      dasher.Segment({x, cy}, {x + swatch, cy});
    } else {
      list->AddLine({x, cy}, {x + swatch, cy}, edge_colors[k], k >= 2 ? 2.5f : 1.5f);
    }
    list->AddText({x + swatch + 6, y}, text, kEdgeKeys[k]);
    y += line_h;
  }
}

void GraphView::DrawTooltip(int node_index) const {
  const graph::GraphNode& node = graph_.nodes[node_index];
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40);
  ImGui::TextUnformatted(node.title.c_str());
  for (const std::string& line : node.lines) ImGui::TextDisabled("%s", line.c_str());
  if (!node.tooltip.empty() && node.tooltip != node.title) {
    ImGui::Separator();
    ImGui::TextUnformatted(node.tooltip.c_str());
  }
  if (node.cluster >= 0 && node.cluster < static_cast<int>(graph_.clusters.size()))
    ImGui::TextDisabled("in %s", graph_.clusters[node.cluster].label.c_str());
  if (node.hidden_operands > 0 || node.hidden_users > 0)
    ImGui::TextDisabled("not drawn: %d operand(s), %d user(s)", node.hidden_operands,
                        node.hidden_users);
  if (node.kind == graph::NodeKind::kScope) {
    ImGui::TextDisabled("click to expand");
  } else if (node.kind != graph::NodeKind::kCutOff) {
    ImGui::TextDisabled("click to select");
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

}  // namespace fusebox::viewers
