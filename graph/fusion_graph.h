// The fusion graph: a drawable model of a module's program computations — nodes are
// instructions (a fusion collapsed to one node or expanded as a cluster of its fused
// instructions), edges run operand → user. It knows nothing of Graphviz or ImGui: the
// layout (graph/graph_layout.h) and every UI draw from this model.
#pragma once

#include <cstdint>
#include <map>
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
  kScope,        // a collapsed op_name scope (a layer, block or stage of the model)
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
ClusterStyle StyleForScopeCluster();

enum class NodeKind {
  kInstruction,  // one instruction (possibly a fused one, inside a fusion's cluster)
  kFusion,       // a collapsed fusion instruction
  kCutOff,       // a border marker of a neighbourhood view
  kScope,        // a collapsed op_name scope: every instruction under it as one node
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
  // The op_name scope the node belongs to ("resnet50/stage2/block1/conv2": op_name without
  // its jit(...) wrapper and its op), "" when it has none. A collapsed fusion takes the
  // scope its fused instructions share; a kScope node, the scope it stands for.
  std::string scope;
  int member_count = 0;       // kScope: the nodes it stands for
  int folded_parameters = 0;  // entry parameters folded into this node's label
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
  int count = 1;           // edges merged into this one (between collapsed scopes)
};

enum class ClusterKind {
  kFusion,       // an expanded fusion: its fused computation
  kComputation,  // a while body/condition, conditional branch or call target
  kScope,        // an expanded op_name scope
};

struct GraphCluster {
  int id = 0;
  int parent = -1;  // enclosing cluster, -1 for top level
  ClusterKind kind = ClusterKind::kFusion;
  std::string label;
  std::string instruction;  // the fusion (or calling) instruction
  std::string computation;  // the computation drawn inside
  std::optional<FusionKind> fusion_kind;
  std::string scope;     // kScope: the scope's full path
  int member_count = 0;  // kScope: the nodes under it, at any depth
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

// Grouping by op_name scope (jax named scopes, Keras/Flax layer paths): every scope that
// holds two or more nodes is a cluster, drawn either expanded (a box around its contents)
// or collapsed (one node with its name and op count; edges to it are merged). The scope
// prefix every node shares is left out ("resnet50/" opens as stem, stage1..4, head).
struct ScopeOptions {
  bool enabled = false;
  // Scopes this deep and deeper (0 = top level) are collapsed; -1 picks the deepest level
  // at which no more than `budget` nodes are drawn.
  int collapse_depth = -1;
  int budget = 40;
  // Per-scope choices by full path (true: expanded), over the depth rule: a click.
  std::map<std::string, bool> expanded;
};

// The scope of an op_name: its components without the leading jit(...)/pjit(...) wrappers
// and without the last one (the op itself); "" for none.
std::string ScopeOfOpName(std::string_view op_name);

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
  // Entry parameters are not nodes: each user's label gets a line `operand 1 = parameter 3
  // f32[64]` (the bulk of a model's nodes are its weights).
  bool fold_parameters = false;
  ScopeOptions scopes;  // ignored in neighbourhood views
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
  // Scope grouping: the prefix left out of every scope, and for each instruction drawn
  // inside a collapsed scope the index of that scope's node.
  std::string scope_prefix;
  std::map<std::string, int> in_collapsed_scope;

  // The node drawing `instruction` (a collapsed fusion is found by its own name), or null.
  const GraphNode* FindNode(std::string_view instruction) const;
  // FindNode, or the collapsed scope's node that holds the instruction.
  const GraphNode* NodeDrawing(std::string_view instruction) const;
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
