// DOT writing, layout and rendering through Graphviz's gvc/cgraph libraries in-process
// (a layout that must be cancellable runs Graphviz's dot program and reads its positions).
// One lazily created GVC context lives for the whole process (reachable, so leak checkers
// do not count it); every graph read, laid out or rendered is freed before the lock is
// released.
#include "graph/graph_layout.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "compiler/support/strings.h"
#include "compiler/support/subprocess.h"
#include "compiler/support/timer.h"

// LeakSanitizer: Graphviz 2.43 (Debian 12's libgvc6) never frees some of its own memory
// — the virtual and auxiliary edges dot makes for clusters (new_virtual_edge,
// make_aux_edge; unavoidable while clusters are drawn), the HTML-like label parser's items
// and table arrays (htmlparse, makeGraphs), pango's markup strings for bold text and the
// font map and fontconfig caches kept for the life of the process. About 550 KB over 8
// layouts of the MNIST graph. Every binary that lays out graphs (the fusebox binary, the
// report and graph tests) gets these suppressions. They name Graphviz's and the font
// stack's libraries: with the fast frame-pointer unwinder a leaked block's first frame is
// the library function that called malloc, so a suppression by module matches without
// the slow unwinder, and a block Fusebox itself allocates is still reported.
#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_GRAPH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_GRAPH_ASAN 1
#endif
#endif
#ifdef FUSEBOX_GRAPH_ASAN
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libgvc.so\n"
         "leak:libcgraph.so\n"
         "leak:libcdt.so\n"
         "leak:libpathplan.so\n"
         "leak:libxdot.so\n"
         "leak:libgvplugin_\n"
         "leak:libpango\n"
         "leak:libfontconfig.so\n"
         "leak:libcairo.so\n"
         "leak:libglib-2.0.so\n"
         "leak:libgobject-2.0.so\n"
         "leak:libharfbuzz.so\n"
         "leak:libexpat.so\n";
}
#endif

namespace fusebox::graph {

namespace {

constexpr const char* kFont = "DejaVu Sans";

// --- DOT text ---

// Text inside an HTML-like label: markup characters become entities. Newlines start a
// new line of the label.
std::string LabelText(std::string_view text) { return HtmlEscape(text, HtmlContext::kGraphvizLabel); }

// A DOT double-quoted string. Graphviz reads `\` escapes (\n, \N, \G, ...) in some
// attributes, so backslashes are doubled; newlines become an XML character reference
// that survives into SVG tooltips.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) break;
        out += c;
    }
  }
  return out + "\"";
}

std::string NodeId(int index) { return "n" + std::to_string(index); }
std::string ClusterId(int index) { return "cluster_" + std::to_string(index); }

void AppendNode(const GraphNode& node, const std::string& indent, std::string* out) {
  NodeStyle style = StyleFor(node.category);
  // A collapsed fusion keeps the grey fill; its border says the kind, as clusters do.
  if (node.kind == NodeKind::kFusion) style.stroke = StyleForFusionKind(node.fusion_kind).stroke;
  std::string label = "<b>" + LabelText(node.title) + "</b>";
  if (node.kind == NodeKind::kCutOff) label = LabelText(node.title);
  for (const std::string& line : node.lines) label += "<br/>" + LabelText(line);
  std::string svg_id = node.kind == NodeKind::kCutOff  ? "more_" + std::to_string(node.id)
                       : node.kind == NodeKind::kScope ? "scope_" + node.scope
                                                       : node.instruction;
  std::string line = indent + NodeId(node.id) + " [id=" + Quoted(svg_id) + ", label=<" + label +
                     ">, tooltip=" + Quoted(node.tooltip.empty() ? node.title : node.tooltip) +
                     ", fillcolor=" + Quoted(style.fill) + ", color=" + Quoted(style.stroke) +
                     ", fontcolor=" + Quoted(style.font);
  if (style.dashed) line += ", style=\"rounded,filled,dashed\"";
  if (node.kind == NodeKind::kFusion || node.kind == NodeKind::kScope) line += ", penwidth=2";
  // A collapsed scope stands for a whole layer or stage: a larger name, read at Fit.
  if (node.kind == NodeKind::kScope) line += ", fontsize=14, margin=\"0.15,0.06\"";
  if (node.is_center) line += ", penwidth=3, color=\"#b71c1c\"";
  if (node.category == NodeCategory::kParameter) line += ", shape=box, style=\"filled\"";
  out->append(line + "];\n");
}

void AppendCluster(const FusionGraph& graph, int cluster,
                   const std::vector<std::vector<int>>& nodes_in,
                   const std::vector<std::vector<int>>& children, int depth, std::string* out) {
  const GraphCluster& c = graph.clusters[cluster];
  std::string indent(2 * depth, ' ');
  ClusterStyle style = c.kind == ClusterKind::kFusion  ? StyleForFusionKind(c.fusion_kind)
                       : c.kind == ClusterKind::kScope ? StyleForScopeCluster()
                                                       : StyleForComputationCluster();
  out->append(indent + "subgraph " + ClusterId(cluster) + " {\n");
  std::string inner = indent + "  ";
  out->append(
      inner + "id=" +
      Quoted(c.kind == ClusterKind::kScope ? "scope_" + c.scope : "cluster_" + c.instruction) +
      ";\n");
  out->append(inner + "label=<" + LabelText(c.label) + ">;\n");
  out->append(inner + "tooltip=" + Quoted(c.label) + ";\n");
  if (c.kind == ClusterKind::kScope) out->append(inner + "fontsize=14;\n");
  out->append(inner + "style=\"rounded,filled" +
              std::string(c.kind == ClusterKind::kFusion ? ",bold" : "") +
              "\"; fillcolor=" + Quoted(style.fill) + "; color=" + Quoted(style.stroke) + ";\n");
  for (int child : children[cluster])
    AppendCluster(graph, child, nodes_in, children, depth + 1, out);
  for (int node : nodes_in[cluster]) AppendNode(graph.nodes[node], inner, out);
  out->append(indent + "}\n");
}

// The graph's label: its title over the legend, as an HTML table.
std::string GraphLabel(const FusionGraph& graph) {
  std::string label = "<table border=\"0\" cellborder=\"1\" cellspacing=\"2\" cellpadding=\"3\">";
  constexpr size_t kPerRow = 4;
  size_t columns = std::max<size_t>(1, std::min(kPerRow, graph.legend.size()));
  label += "<tr><td colspan=\"" + std::to_string(columns) + "\" border=\"0\"><b>" +
           LabelText(graph.title) + "</b></td></tr>";
  for (const std::string& note : graph.notes) {
    label += "<tr><td colspan=\"" + std::to_string(columns) + "\" border=\"0\">" +
             LabelText(note) + "</td></tr>";
  }
  for (size_t i = 0; i < graph.legend.size(); ++i) {
    if (i % kPerRow == 0) label += "<tr>";
    NodeStyle style = StyleFor(graph.legend[i].category);
    label += std::string("<td bgcolor=\"") + style.fill + "\" color=\"" + style.stroke +
             "\"><font color=\"" + style.font + "\">" +
             LabelText(CategoryName(graph.legend[i].category)) + "</font></td>";
    if (i % kPerRow == kPerRow - 1 || i + 1 == graph.legend.size()) label += "</tr>";
  }
  return label + "</table>";
}

std::string ToDotWith(const FusionGraph& graph, const LayoutOptions* options) {
  std::string out = "digraph " + Quoted(graph.title) + " {\n";
  const bool across = options != nullptr && options->left_to_right;
  out += std::string("  graph [rankdir=") + (across ? "LR" : "TB") + ", fontname=" + Quoted(kFont) +
         ", fontsize=12, labelloc=t, nodesep=0.25, ranksep=0.4, tooltip=\" \"";
  // A graph without a title or legend (a part of a composed layout) has no label.
  if (!graph.title.empty() || !graph.legend.empty()) out += ", label=<" + GraphLabel(graph) + ">";
  if (options != nullptr) {
    int n = static_cast<int>(graph.nodes.size());
    if (n >= options->large_graph_nodes) {
      out += ", nslimit=" + std::to_string(options->nslimit) +
             ", nslimit1=" + std::to_string(options->nslimit) +
             ", mclimit=" + std::to_string(options->mclimit) + ", remincross=false";
    }
    if (n >= options->polyline_edges_nodes) out += ", splines=polyline";
  }
  out += "];\n";
  out += "  node [shape=box, style=\"rounded,filled\", fontname=" + Quoted(kFont) +
         ", fontsize=10, margin=\"0.1,0.04\", height=0.3];\n";
  out += "  edge [fontname=" + Quoted(kFont) + ", fontsize=8, arrowsize=0.7, color=\"#616161\"];\n";

  std::vector<std::vector<int>> nodes_in(graph.clusters.size());
  std::vector<std::vector<int>> children(graph.clusters.size());
  std::vector<int> top_clusters, top_nodes;
  for (const GraphCluster& c : graph.clusters) {
    (c.parent >= 0 ? children[c.parent] : top_clusters).push_back(c.id);
  }
  for (const GraphNode& node : graph.nodes) {
    if (node.cluster >= 0 && node.cluster < static_cast<int>(graph.clusters.size())) {
      nodes_in[node.cluster].push_back(node.id);
    } else {
      top_nodes.push_back(node.id);
    }
  }
  for (int c : top_clusters) AppendCluster(graph, c, nodes_in, children, 1, &out);
  for (int n : top_nodes) AppendNode(graph.nodes[n], "  ", &out);
  // Edges after every cluster: Graphviz places an edge's endpoints in the first
  // subgraph that mentions them.
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const GraphEdge& e = graph.edges[i];
    const GraphNode& from = graph.nodes[e.from];
    const GraphNode& to = graph.nodes[e.to];
    std::string tip = from.title + " \u2192 " + to.title;
    if (e.operand_index >= 0) tip += " (operand " + std::to_string(e.operand_index) + ")";
    if (e.count > 1) tip += " (" + std::to_string(e.count) + " edges)";
    out += "  " + NodeId(e.from) + " -> " + NodeId(e.to) +
           " [id=" + Quoted("e" + std::to_string(i)) + ", tooltip=" + Quoted(tip);
    if (e.kind == EdgeKind::kCall) out += ", style=dashed, color=\"#2e7d32\"";
    if (e.kind == EdgeKind::kCutOff) out += ", style=dashed, color=\"#9e9e9e\", arrowhead=none";
    if (e.count > 1) {
      out += ", penwidth=" + std::to_string(std::min(4, 1 + e.count / 4)) +
             ", weight=" + std::to_string(std::min(e.count, 10));
    }
    out += "];\n";
  }
  out += "}\n";
  return out;
}

// --- Graphviz state ---

std::mutex& GraphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// Messages Graphviz reports while the lock is held.
std::string& GraphvizErrors() {
  static std::string errors;
  return errors;
}

int CollectGraphvizError(char* message) {
  if (message != nullptr) GraphvizErrors() += message;
  return 0;
}

// Requires the lock. The context loads the plugins once and is kept for the process.
GVC_t* Context() {
  static GVC_t* context = [] {
    agseterrf(CollectGraphvizError);
    agseterr(AGWARN);
    return gvContext();
  }();
  return context;
}

std::string TrimmedErrors() {
  std::string text = GraphvizErrors();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  for (char& c : text) {
    if (c == '\n') c = ';';
  }
  return text.empty() ? "" : " (Graphviz: " + text + ")";
}

// A graph read from DOT and laid out; frees both on destruction. Requires the lock.
class LaidOutGraph {
 public:
  LaidOutGraph(const LaidOutGraph&) = delete;
  LaidOutGraph& operator=(const LaidOutGraph&) = delete;
  ~LaidOutGraph() {
    if (graph_ == nullptr) return;
    if (laid_out_) gvFreeLayout(context_, graph_);
    agclose(graph_);
  }

  static StatusOr<std::unique_ptr<LaidOutGraph>> Create(const std::string& dot, double* ms) {
    GVC_t* context = Context();
    if (context == nullptr) return Unavailable("Graphviz could not create its context");
    GraphvizErrors().clear();
    Agraph_t* graph = agmemread(dot.c_str());
    if (graph == nullptr) return Internal("Graphviz could not read the DOT text" + TrimmedErrors());
    std::unique_ptr<LaidOutGraph> out(new LaidOutGraph(context, graph));
    Stopwatch watch;
    if (gvLayout(context, graph, "dot") != 0) {
      return Unavailable("Graphviz's dot layout failed (is the dot layout plugin installed?)" +
                         TrimmedErrors());
    }
    if (ms) *ms = watch.ElapsedSeconds() * 1e3;
    out->laid_out_ = true;
    return out;
  }

  // A graph `dot -Tdot` printed with its positions, taken as they are (the nop2 engine
  // reads node positions and edge splines; the bounding box is dot's own, as in-process).
  static StatusOr<std::unique_ptr<LaidOutGraph>> FromPositions(const std::string& laid_out_dot) {
    GVC_t* context = Context();
    if (context == nullptr) return Unavailable("Graphviz could not create its context");
    GraphvizErrors().clear();
    Agraph_t* graph = agmemread(laid_out_dot.c_str());
    if (graph == nullptr) return Internal("Graphviz could not read dot's laid-out graph" + TrimmedErrors());
    std::unique_ptr<LaidOutGraph> out(new LaidOutGraph(context, graph));
    char bb_attr[] = "bb", notranslate[] = "notranslate", yes[] = "true", none[] = "";
    boxf bb{};
    const char* bb_text = agget(graph, bb_attr);
    if (bb_text == nullptr ||
        std::sscanf(bb_text, "%lf,%lf,%lf,%lf", &bb.LL.x, &bb.LL.y, &bb.UR.x, &bb.UR.y) != 4) {
      return Internal("dot's laid-out graph has no bounding box");
    }
    agsafeset(graph, notranslate, yes, none);
    if (gvLayout(context, graph, "nop2") != 0) {
      return Unavailable("Graphviz could not take dot's positions (nop2 layout)" + TrimmedErrors());
    }
    out->laid_out_ = true;
    GD_bb(graph) = bb;
    return out;
  }

  GVC_t* context() const { return context_; }
  Agraph_t* graph() const { return graph_; }

 private:
  LaidOutGraph(GVC_t* context, Agraph_t* graph) : context_(context), graph_(graph) {}
  GVC_t* context_;
  Agraph_t* graph_;
  bool laid_out_ = false;
};

int IndexAfterPrefix(const char* name, std::string_view prefix) {
  if (name == nullptr || std::strncmp(name, prefix.data(), prefix.size()) != 0) return -1;
  char* end = nullptr;
  long value = std::strtol(name + prefix.size(), &end, 10);
  if (end == name + prefix.size() || *end != '\0') return -1;
  return static_cast<int>(value);
}

void CollectClusters(Agraph_t* parent, double top, double left, std::vector<ClusterBox>* out) {
  for (Agraph_t* sub = agfstsubg(parent); sub != nullptr; sub = agnxtsubg(sub)) {
    int index = IndexAfterPrefix(agnameof(sub), "cluster_");
    if (index >= 0 && index < static_cast<int>(out->size())) {
      boxf bb = GD_bb(sub);
      ClusterBox& box = (*out)[index];
      box.box = {bb.LL.x - left, top - bb.UR.y, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
    }
    CollectClusters(sub, top, left, out);
  }
}

}  // namespace

std::string ToDot(const FusionGraph& graph) { return ToDotWith(graph, nullptr); }

namespace {

// Node boxes, edge paths and cluster boxes of a laid-out graph, in screen coordinates.
// Requires the lock.
Status ExtractLayout(const FusionGraph& graph, Agraph_t* g, GraphLayout& layout) {
  boxf bb = GD_bb(g);
  const double left = bb.LL.x;
  const double top = bb.UR.y;
  layout.width = bb.UR.x - bb.LL.x;
  layout.height = bb.UR.y - bb.LL.y;
  auto to_screen = [&](pointf p) { return Point{p.x - left, top - p.y}; };

  layout.nodes.resize(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    std::string name = NodeId(static_cast<int>(i));
    Agnode_t* n = agnode(g, name.data(), 0);
    if (n == nullptr) return Internal("Graphviz lost node " + name);
    double w = ND_width(n) * 72.0;
    double h = ND_height(n) * 72.0;
    Point c = to_screen(ND_coord(n));
    layout.nodes[i] = {c.x - w / 2, c.y - h / 2, w, h};
  }

  layout.edges.resize(graph.edges.size());
  for (size_t i = 0; i < graph.edges.size(); ++i) layout.edges[i].edge = static_cast<int>(i);
  std::vector<char> seen(graph.edges.size(), 0);
  char id_attr[] = "id";
  for (Agnode_t* n = agfstnode(g); n != nullptr; n = agnxtnode(g, n)) {
    for (Agedge_t* e = agfstout(g, n); e != nullptr; e = agnxtout(g, e)) {
      int index = IndexAfterPrefix(agget(e, id_attr), "e");
      if (index < 0 || index >= static_cast<int>(graph.edges.size())) continue;
      EdgePath& path = layout.edges[index];
      seen[index] = 1;
      const splines* spl = ED_spl(e);
      if (spl == nullptr) continue;
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        for (int p = 0; p < bz.size; ++p) path.points.push_back(to_screen(bz.list[p]));
        if (bz.eflag) {
          path.has_arrow = true;
          path.arrow_tip = to_screen(bz.ep);
        }
      }
    }
  }
  // Edges Graphviz did not route (none expected): a straight line between the centres.
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    EdgePath& path = layout.edges[i];
    if (path.points.size() >= 2) continue;
    path.points = {layout.nodes[graph.edges[i].from].center(),
                   layout.nodes[graph.edges[i].to].center()};
  }

  layout.clusters.resize(graph.clusters.size());
  for (size_t i = 0; i < graph.clusters.size(); ++i)
    layout.clusters[i].cluster = static_cast<int>(i);
  CollectClusters(g, top, left, &layout.clusters);
  return Status::Ok();
}

// The layout by Graphviz's own `dot` program in a child process the cancel flag can kill:
// the program gets the DOT text and prints it back with positions (-Tdot), which this
// process reads and takes the positions of. Started with posix_spawn, not fork: a fork of
// this multi-threaded process would inherit locks other threads held at that moment
// (the allocator's, under ASan), and a child that waits on one never ends.
StatusOr<GraphLayout> LayoutInChild(const FusionGraph& graph, const LayoutOptions& options,
                                    const std::string& dot_program) {
  ProcessOptions process;
  process.argv = {dot_program, "-Tdot"};
  process.input = ToDotWith(graph, &options);
  process.timeout_seconds = 0;
  process.cancel = options.cancel;
  process.merge_stderr = false;
  Stopwatch watch;
  ASSIGN_OR_RETURN(ProcessResult run, RunProcess(process));
  const double layout_ms = watch.ElapsedSeconds() * 1e3;
  if (run.cancelled) return Cancelled();
  if (run.exit_code != 0 || run.output.empty()) {
    std::string errors = run.errors;
    while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
    const std::string how = run.signal != 0 ? "was killed by signal " + std::to_string(run.signal)
                                            : "exited with status " + std::to_string(run.exit_code);
    return Unavailable("Graphviz's dot program (" + dot_program + ") " + how +
                       (errors.empty() ? "" : ": " + errors));
  }
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  ASSIGN_OR_RETURN(std::unique_ptr<LaidOutGraph> laid_out, LaidOutGraph::FromPositions(run.output));
  GraphLayout layout;
  layout.layout_ms = layout_ms;
  RETURN_IF_ERROR(ExtractLayout(graph, laid_out->graph(), layout));
  return layout;
}

}  // namespace

StatusOr<GraphLayout> Layout(const FusionGraph& graph, const LayoutOptions& options) {
  // Composed when the top level is mostly expanded scopes (a model's stages); a graph
  // whose top level is mostly loose ops reads better as one dot layout.
  if (options.compose_scopes) {
    int scopes = 0, others = 0;
    for (const GraphCluster& cluster : graph.clusters) {
      if (cluster.parent < 0) (cluster.kind == ClusterKind::kScope ? scopes : others) += 1;
    }
    for (const GraphNode& node : graph.nodes) others += node.cluster < 0;
    if (scopes >= 2 && scopes >= others) return ComposedLayout(graph, options);
  }
  if (options.cancel != nullptr) {
    // Without the program (a build machine with only the libraries) the layout runs here
    // and cannot be interrupted; it is the same layout.
    const std::string dot_program = FindProgram("dot");
    if (!dot_program.empty()) return LayoutInChild(graph, options, dot_program);
  }
  std::string dot = ToDotWith(graph, &options);
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  GraphLayout layout;
  ASSIGN_OR_RETURN(std::unique_ptr<LaidOutGraph> laid_out, LaidOutGraph::Create(dot, &layout.layout_ms));
  RETURN_IF_ERROR(ExtractLayout(graph, laid_out->graph(), layout));
  return layout;
}

StatusOr<std::string> Render(const FusionGraph& graph, std::string_view format,
                             const LayoutOptions& options) {
  if (format == "dot") return ToDot(graph);
  const char* device = nullptr;
  if (format == "svg") device = "svg";
  if (format == "png") device = "png:cairo";
  if (device == nullptr) {
    return InvalidArgument("unknown graph format '" + std::string(format) + "' (dot, svg or png)");
  }
  std::string dot = ToDotWith(graph, &options);
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  ASSIGN_OR_RETURN(std::unique_ptr<LaidOutGraph> laid_out, LaidOutGraph::Create(dot, nullptr));
  char* data = nullptr;
  unsigned int length = 0;
  GraphvizErrors().clear();
  int rc = gvRenderData(laid_out->context(), laid_out->graph(), device, &data, &length);
  if (rc != 0 || data == nullptr) {
    if (data != nullptr) gvFreeRenderData(data);
    std::string plugin =
        format == "png" ? "the cairo renderer (libgvplugin_pango)" : "the core renderer";
    return Unavailable("Graphviz cannot render '" + std::string(device) + "': " + plugin +
                       " is not installed or not registered (run `dot -c` as root)" +
                       TrimmedErrors());
  }
  std::string out(data, length);
  gvFreeRenderData(data);
  return out;
}

Status ParseDot(const std::string& text) {
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  Context();
  GraphvizErrors().clear();
  Agraph_t* g = agmemread(text.c_str());
  if (g == nullptr) return InvalidArgument("not a DOT graph" + TrimmedErrors());
  agclose(g);
  return Status::Ok();
}

}  // namespace fusebox::graph
