// Layout per expanded scope (ComposedLayout in graph_layout.h): every top-level cluster is
// a part laid out by `dot` alone, the top-level nodes are parts of one node each; parts go
// into columns by longest-path rank, the columns wrap into rows, and the edges between
// parts are drawn here. `dot` on the whole graph would stack a model's stages into one
// tall chain that no pane can show at a legible zoom.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "compiler/support/timer.h"
#include "graph/graph_layout.h"

namespace fusebox::graph {

namespace {

constexpr double kMargin = 8;       // around the whole drawing, in points
constexpr double kColumnGap = 56;   // between columns
constexpr double kRowGap = 48;      // between rows of columns
constexpr double kStackGap = 24;    // between parts of one column
constexpr double kArrowLength = 7;  // Graphviz's arrowhead at arrowsize 0.7

struct Part {
  int cluster = -1;        // a top-level cluster, or
  int node = -1;           // a top-level node
  std::vector<int> nodes;  // every node drawn in the part
  double w = 0, h = 0;
  double x = 0, y = 0;  // top-left, once placed
  int rank = 0;
  GraphLayout sub;                     // a cluster's own layout
  std::unordered_map<int, int> local;  // graph node -> node index in `sub`
};

struct Column {
  std::vector<int> parts;
  double w = 0, h = 0;
};

// The cluster `c` with everything inside it, as a graph of its own (no title, no legend).
FusionGraph ClusterSubgraph(const FusionGraph& graph, int c, Part* part) {
  FusionGraph sub;
  std::vector<int> cluster_map(graph.clusters.size(), -1);
  cluster_map[c] = 0;
  GraphCluster top = graph.clusters[c];
  top.id = 0;
  top.parent = -1;
  sub.clusters.push_back(std::move(top));
  // Clusters come after their parents in FusionGraph::clusters.
  for (size_t k = 0; k < graph.clusters.size(); ++k) {
    const int parent = graph.clusters[k].parent;
    if (parent < 0 || cluster_map[parent] < 0 || cluster_map[k] >= 0) continue;
    GraphCluster copy = graph.clusters[k];
    copy.id = static_cast<int>(sub.clusters.size());
    copy.parent = cluster_map[parent];
    cluster_map[k] = copy.id;
    sub.clusters.push_back(std::move(copy));
  }
  for (int v : part->nodes) {
    GraphNode copy = graph.nodes[v];
    copy.id = static_cast<int>(sub.nodes.size());
    copy.cluster = copy.cluster >= 0 ? cluster_map[copy.cluster] : -1;
    part->local[v] = copy.id;
    sub.nodes.push_back(std::move(copy));
  }
  for (const GraphEdge& e : graph.edges) {
    auto from = part->local.find(e.from), to = part->local.find(e.to);
    if (from == part->local.end() || to == part->local.end()) continue;
    GraphEdge copy = e;
    copy.from = from->second;
    copy.to = to->second;
    sub.edges.push_back(copy);
  }
  return sub;
}

// Longest-path ranks over the parts' edges; parts on a cycle take the rank after their
// ranked predecessors, in the graph's order.
std::vector<int> Ranks(int parts, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> outs(parts), ins(parts);
  std::vector<int> pending(parts, 0);
  for (auto [p, q] : edges) {
    outs[p].push_back(q);
    ins[q].push_back(p);
    ++pending[q];
  }
  std::vector<int> rank(parts, 0);
  std::vector<char> done(parts, 0);
  int finished = 0;
  while (finished < parts) {
    int next = -1;
    for (int p = 0; p < parts && next < 0; ++p) {
      if (!done[p] && pending[p] == 0) next = p;
    }
    if (next < 0) {  // a cycle: break it at its first part
      for (int p = 0; p < parts && next < 0; ++p) {
        if (!done[p]) next = p;
      }
    }
    done[next] = 1;
    ++finished;
    for (int p : ins[next]) {
      if (done[p]) rank[next] = std::max(rank[next], rank[p] + 1);
    }
    for (int q : outs[next]) --pending[q];
  }
  return rank;
}

// Splits the columns into rows, in order, no row wider than some limit; of the limits
// worth trying (the widths of runs of neighbouring columns), the one whose rows a pane of
// `aspect` shows at the largest zoom wins, fewer rows on a tie.
std::vector<std::vector<int>> WrapColumns(const std::vector<Column>& columns, double aspect) {
  const size_t n = columns.size();
  std::vector<double> limits;
  for (size_t i = 0; i < n; ++i) {
    double w = 0;
    for (size_t j = i; j < n; ++j) {
      w += columns[j].w + kColumnGap;
      limits.push_back(w);
    }
  }
  std::sort(limits.begin(), limits.end(), std::greater<>());
  std::vector<std::vector<int>> best;
  double best_zoom = -1;
  for (double limit : limits) {
    std::vector<std::vector<int>> split(1);
    double row_w = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!split.back().empty() && row_w + columns[i].w + kColumnGap > limit + 1e-6) {
        split.emplace_back();
        row_w = 0;
      }
      split.back().push_back(static_cast<int>(i));
      row_w += columns[i].w + kColumnGap;
    }
    double w = 0, h = 0;
    for (const auto& row : split) {
      double rw = 0, rh = 0;
      for (int c : row) {
        rw += columns[c].w + kColumnGap;
        rh = std::max(rh, columns[c].h);
      }
      w = std::max(w, rw);
      h += rh + kRowGap;
    }
    const double zoom = std::min(aspect / std::max(w, 1.0), 1.0 / std::max(h, 1.0));
    if (zoom > best_zoom * 1.02) {
      best_zoom = zoom;
      best = std::move(split);
    }
  }
  return best;
}

void Translate(Point& p, double dx, double dy) {
  p.x += dx;
  p.y += dy;
}

// An edge between two parts: out of the source's right side into the target's left side
// when the target lies to the right, else out of the bottom (top) into the top (bottom).
EdgePath RouteBetween(const NodeBox& a, const NodeBox& b, int edge) {
  EdgePath path;
  path.edge = edge;
  path.has_arrow = true;
  Point p0, tip, end, c1, c2;
  if (b.x >= a.x + a.w + 8) {
    p0 = {a.x + a.w, a.y + a.h / 2};
    tip = {b.x, b.y + b.h / 2};
    end = {tip.x - kArrowLength, tip.y};
    const double dx = std::max(24.0, (end.x - p0.x) / 2);
    c1 = {p0.x + dx, p0.y};
    c2 = {end.x - dx, end.y};
  } else {
    const bool down = b.y >= a.y;
    p0 = {a.x + a.w / 2, down ? a.y + a.h : a.y};
    tip = {b.x + b.w / 2, down ? b.y : b.y + b.h};
    end = {tip.x, tip.y + (down ? -kArrowLength : kArrowLength)};
    const double dy = std::max(24.0, std::abs(end.y - p0.y) / 2) * (down ? 1 : -1);
    c1 = {p0.x, p0.y + dy};
    c2 = {end.x, end.y - dy};
  }
  path.points = {p0, c1, c2, end};
  path.arrow_tip = tip;
  return path;
}

// One composition: parts laid out top to bottom and placed in columns that wrap into rows,
// or (`across`) laid out left to right and placed in rows that wrap into columns.
StatusOr<GraphLayout> Compose(const FusionGraph& graph, const LayoutOptions& options, bool across) {
  LayoutOptions part_options = options;
  part_options.compose_scopes = false;
  part_options.left_to_right = across;
  const int n = static_cast<int>(graph.nodes.size());
  const int cluster_count = static_cast<int>(graph.clusters.size());

  // Parts in the order their first node comes.
  std::vector<Part> parts;
  std::vector<int> part_of_cluster(cluster_count, -1);
  std::vector<int> part_of_node(n, -1);
  for (int v = 0; v < n; ++v) {
    int c = graph.nodes[v].cluster;
    for (int guard = 0; c >= 0 && c < cluster_count && graph.clusters[c].parent >= 0 && guard < 256;
         ++guard)
      c = graph.clusters[c].parent;
    if (c >= 0 && c < cluster_count) {
      if (part_of_cluster[c] < 0) {
        part_of_cluster[c] = static_cast<int>(parts.size());
        parts.push_back(Part{});
        parts.back().cluster = c;
      }
      part_of_node[v] = part_of_cluster[c];
    } else {
      part_of_node[v] = static_cast<int>(parts.size());
      parts.push_back(Part{});
      parts.back().node = v;
    }
    parts[part_of_node[v]].nodes.push_back(v);
  }

  GraphLayout layout;
  layout.nodes.resize(n);
  // Single nodes: sized by one dot run over all of them.
  FusionGraph singles;
  std::vector<int> single_parts;
  for (int p = 0; p < static_cast<int>(parts.size()); ++p) {
    if (parts[p].node < 0) continue;
    GraphNode copy = graph.nodes[parts[p].node];
    copy.id = static_cast<int>(singles.nodes.size());
    copy.cluster = -1;
    singles.nodes.push_back(std::move(copy));
    single_parts.push_back(p);
  }
  if (!singles.nodes.empty()) {
    ASSIGN_OR_RETURN(GraphLayout sized, Layout(singles, part_options));
    for (size_t i = 0; i < single_parts.size(); ++i) {
      parts[single_parts[i]].w = sized.nodes[i].w;
      parts[single_parts[i]].h = sized.nodes[i].h;
    }
  }
  for (Part& part : parts) {
    if (part.cluster < 0) continue;
    if (options.cancel != nullptr && options.cancel->load()) return Cancelled();
    ASSIGN_OR_RETURN(part.sub, Layout(ClusterSubgraph(graph, part.cluster, &part), part_options));
    part.w = part.sub.width;
    part.h = part.sub.height;
  }

  // The placement below thinks in columns that wrap into rows; across, it works on the
  // transposed sizes and the positions are transposed back.
  if (across) {
    for (Part& part : parts) std::swap(part.w, part.h);
  }
  // Columns by rank.
  std::map<std::pair<int, int>, int> between;
  for (const GraphEdge& e : graph.edges) {
    int p = part_of_node[e.from], q = part_of_node[e.to];
    if (p != q) between.emplace(std::make_pair(p, q), 0);
  }
  std::vector<std::pair<int, int>> part_edges;
  for (const auto& [pq, unused] : between) part_edges.push_back(pq);
  std::vector<int> rank = Ranks(static_cast<int>(parts.size()), part_edges);
  int max_rank = 0;
  for (int r : rank) max_rank = std::max(max_rank, r);
  std::vector<Column> columns(max_rank + 1);
  for (int p = 0; p < static_cast<int>(parts.size()); ++p) {
    Column& column = columns[rank[p]];
    column.h += (column.parts.empty() ? 0 : kStackGap) + parts[p].h;
    column.w = std::max(column.w, parts[p].w);
    column.parts.push_back(p);
  }

  // Rows of columns; parts centred in their column, columns centred in their row.
  double y = kMargin;
  for (const std::vector<int>& row :
       WrapColumns(columns, across ? 1 / options.aspect : options.aspect)) {
    double row_h = 0;
    for (int c : row) row_h = std::max(row_h, columns[c].h);
    double x = kMargin;
    for (int c : row) {
      double py = y + (row_h - columns[c].h) / 2;
      for (int p : columns[c].parts) {
        parts[p].x = x + (columns[c].w - parts[p].w) / 2;
        parts[p].y = py;
        py += parts[p].h + kStackGap;
      }
      x += columns[c].w + kColumnGap;
      layout.width = std::max(layout.width, x - kColumnGap + kMargin);
    }
    y += row_h + kRowGap;
  }
  layout.height = y - kRowGap + kMargin;
  if (across) {
    std::swap(layout.width, layout.height);
    for (Part& part : parts) {
      std::swap(part.w, part.h);
      std::swap(part.x, part.y);
    }
  }

  // Everything moved into place.
  layout.clusters.resize(cluster_count);
  for (int c = 0; c < cluster_count; ++c) layout.clusters[c].cluster = c;
  layout.edges.resize(graph.edges.size());
  std::vector<char> routed(graph.edges.size(), 0);
  for (const Part& part : parts) {
    if (part.cluster < 0) {
      layout.nodes[part.node] = {part.x, part.y, part.w, part.h};
      continue;
    }
    for (const auto& [v, local] : part.local) {
      NodeBox box = part.sub.nodes[local];
      box.x += part.x;
      box.y += part.y;
      layout.nodes[v] = box;
    }
    // The sub-layout's clusters in the order ClusterSubgraph made them: the part's own
    // cluster first, then its descendants in graph order.
    std::vector<int> sub_to_graph = {part.cluster};
    std::vector<char> inside(cluster_count, 0);
    inside[part.cluster] = 1;
    for (int k = 0; k < cluster_count; ++k) {
      const int parent = graph.clusters[k].parent;
      if (parent >= 0 && inside[parent] && !inside[k]) {
        inside[k] = 1;
        sub_to_graph.push_back(k);
      }
    }
    for (size_t k = 0; k < sub_to_graph.size() && k < part.sub.clusters.size(); ++k) {
      NodeBox box = part.sub.clusters[k].box;
      box.x += part.x;
      box.y += part.y;
      layout.clusters[sub_to_graph[k]].box = box;
    }
  }
  // Edges inside a part come from its own layout, in the order ClusterSubgraph kept them.
  for (Part& part : parts) {
    if (part.cluster < 0) continue;
    size_t k = 0;
    for (size_t i = 0; i < graph.edges.size(); ++i) {
      const GraphEdge& e = graph.edges[i];
      if (part_of_node[e.from] != part_of_node[e.to] || part_of_node[e.from] != &part - &parts[0])
        continue;
      if (k >= part.sub.edges.size()) break;
      EdgePath path = std::move(part.sub.edges[k++]);
      path.edge = static_cast<int>(i);
      for (Point& p : path.points) Translate(p, part.x, part.y);
      Translate(path.arrow_tip, part.x, part.y);
      layout.edges[i] = std::move(path);
      routed[i] = 1;
    }
  }
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    if (routed[i]) continue;
    const GraphEdge& e = graph.edges[i];
    layout.edges[i] = RouteBetween(layout.nodes[e.from], layout.nodes[e.to], static_cast<int>(i));
  }
  return layout;
}

}  // namespace

StatusOr<GraphLayout> ComposedLayout(const FusionGraph& graph, const LayoutOptions& options) {
  Stopwatch watch;
  // Both ways; the one a pane of `aspect` shows at the larger zoom wins.
  ASSIGN_OR_RETURN(GraphLayout down, Compose(graph, options, /*across=*/false));
  ASSIGN_OR_RETURN(GraphLayout across, Compose(graph, options, /*across=*/true));
  auto zoom = [&](const GraphLayout& l) {
    return std::min(options.aspect / std::max(l.width, 1.0), 1.0 / std::max(l.height, 1.0));
  };
  GraphLayout& best = zoom(across) > zoom(down) ? across : down;
  best.layout_ms = watch.ElapsedSeconds() * 1e3;
  return std::move(best);
}

}  // namespace fusebox::graph
