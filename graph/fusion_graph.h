// The fusion graph: a drawable model of a module's program computations — nodes are
// instructions (a fusion collapsed to one node or expanded as a cluster of its fused
// instructions), edges run operand → user. It knows nothing of Graphviz or ImGui: the
// layout (graph/graph_layout.h) and every UI draw from this model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::graph {

// What an instruction does, for its colour (XLA's dumper colours by the same groups).
enum class NodeCategory {
  kElementwise,     // add, multiply, exp, compare, select, convert, iota, ...
  kScalar,          // elementwise work on a scalar: cheap, de-emphasised
  kDataMovement,    // broadcast, transpose, reshape, slice, concatenate, gather, copy, ...
  kReduction,       // reduce, reduce-window, scatter, select-and-scatter, batch-norm, sort
  kDotConvolution,  // dot, convolution, fft, triangular-solve, cholesky
  kParameter,
  kConstant,
  kControlFlow,  // while, conditional, call, async wrappers
  kFusion,       // a collapsed fusion
  kCustomCall,   // custom-call, collectives, send/recv, infeed/outfeed
  kTrivial,      // get-tuple-element, tuple, bitcast, after-all, ...
  kCutOff,       // "… N more operands" markers at a neighbourhood's border
};
inline constexpr int kNodeCategoryCount = static_cast<int>(NodeCategory::kCutOff) + 1;

std::string_view CategoryName(NodeCategory category);
NodeCategory CategoryOf(const Instruction& instruction);

// Colours as "#rrggbb" (or a Graphviz colour name), material palette like XLA's dumper.
struct NodeStyle {
  const char* fill;
  const char* stroke;
  const char* font;
  bool dashed = false;
};
NodeStyle StyleFor(NodeCategory category);

// Background and border of an expanded fusion's cluster, by fusion kind.
struct ClusterStyle {
  const char* fill;
  const char* stroke;
};
ClusterStyle StyleForFusionKind(std::optional<FusionKind> kind);
ClusterStyle StyleForComputationCluster();

enum class NodeKind {
  kInstruction,  // one instruction (possibly a fused one, inside a fusion's cluster)
  kFusion,       // a collapsed fusion instruction
  kCutOff,       // a border marker of a neighbourhood view
};

struct GraphNode {
  int id = 0;  // index in FusionGraph::nodes
  NodeKind kind = NodeKind::kInstruction;
  NodeCategory category = NodeCategory::kElementwise;
  // Links back into the module: the instruction's name and its computation's name; for a
  // fused instruction `fusion` is the fusion instruction that holds it, for a collapsed
  // fusion it is the node's own name. Empty for markers.
  std::string instruction;
  std::string computation;
  std::string fusion;
  std::string opcode;                     // "add", "fusion", "reduce", ...
  std::string shape;                      // without layout: "f32[128,10]"
  std::optional<FusionKind> fusion_kind;  // collapsed fusions: drawn with that kind's border
  // Label: a bold title (the instruction name) and plain lines below it (opcode with its
  // details, shape, folded constant operands, a fusion's contents).
  std::string title;
  std::vector<std::string> lines;
  std::string tooltip;   // shape with layout, metadata op_name, source file:line
  int cluster = -1;      // innermost cluster holding the node, -1 for none
  bool is_root = false;  // root of the entry computation
  // Neighbourhood views: how many operands / users of this node are not drawn.
  int hidden_operands = 0;
  int hidden_users = 0;
  bool is_center = false;
};

enum class EdgeKind {
  kData,    // operand → user
  kCall,    // a called computation's root → the while/call/conditional (dashed)
  kCutOff,  // to or from a border marker (dashed)
};

struct GraphEdge {
  int from = 0;
  int to = 0;
  EdgeKind kind = EdgeKind::kData;
  int operand_index = -1;  // which operand of `to` (data edges into multi-operand users)
};

enum class ClusterKind {
  kFusion,       // an expanded fusion: its fused computation
  kComputation,  // a while body/condition, conditional branch or call target
};

struct GraphCluster {
  int id = 0;
  int parent = -1;  // enclosing cluster, -1 for top level
  ClusterKind kind = ClusterKind::kFusion;
  std::string label;
  std::string instruction;  // the fusion (or calling) instruction
  std::string computation;  // the computation drawn inside
  std::optional<FusionKind> fusion_kind;
};

struct LegendEntry {
  NodeCategory category;
  std::string description;
};

enum class FusionDisplay {
  kCollapseAll,  // every fusion is one node
  kExpandAll,    // every fusion is a cluster of its fused instructions
  kExpandSmall,  // clusters for fusions with at most `expand_max_instructions` instructions
};

enum class ConstantDisplay {
  kFoldSmall,  // constants with ≤ kMaxFoldedElements elements go into their users' labels
  kFoldAll,    // no constant nodes: all are folded into their users' labels
  kShowAll,    // every constant is a node
};
inline constexpr int64_t kMaxFoldedElements = 8;

struct FusionGraphOptions {
  FusionDisplay fusions = FusionDisplay::kCollapseAll;
  int expand_max_instructions = 12;
  ConstantDisplay constants = ConstantDisplay::kFoldSmall;
  // get-tuple-element, tuple and bitcast: shown as nodes, or bypassed (their operands
  // connect straight to their users).
  bool show_trivial = true;
  // Neighbourhood view: only the instructions within `radius` operand hops and `radius`
  // user hops of `center` (an instruction name, fused or not). Empty: the whole module.
  std::string center;
  int radius = 2;
  // Node budget: above it fusions are collapsed; if still above, BuildFusionGraph fails
  // with a status IsGraphTooBig recognises. 0 means no limit.
  int max_nodes = 1500;
  std::string title;  // graph label; the module name when empty
};

struct FusionGraph {
  std::string title;
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  std::vector<GraphCluster> clusters;
  // The categories drawn, in a fixed order, with what each colour means.
  std::vector<LegendEntry> legend;
  // Set when the graph was over the node budget with fusions expanded and was rebuilt
  // with them collapsed; `notes` says so in words.
  bool fusions_auto_collapsed = false;
  std::vector<std::string> notes;

  // The node drawing `instruction` (a collapsed fusion is found by its own name), or null.
  const GraphNode* FindNode(std::string_view instruction) const;
  int instruction_node_count() const;  // nodes that are instructions or fusions
};

StatusOr<FusionGraph> BuildFusionGraph(const Module& module, const FusionGraphOptions& options);

// Whether a BuildFusionGraph failure is the node budget (the caller can offer a
// neighbourhood view instead).
bool IsGraphTooBig(const Status& status);

// Up to `max` instruction names of `module` closest to `name` (for "did you mean").
std::vector<std::string> SimilarInstructionNames(const Module& module, std::string_view name,
                                                 int max = 3);

}  // namespace fusebox::graph
