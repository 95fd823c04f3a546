// Builds the fusion graph from a module: program computations walked from the entry,
// fusions collapsed or expanded, constants folded, trivial ops bypassed, then the
// optional neighbourhood cut and the node budget.
#include "graph/fusion_graph.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes/kernel_count.h"
#include "compiler/support/strings.h"
#include "graph/scope_grouping.h"

namespace fusebox::graph {

namespace {

constexpr std::string_view kTooBigPrefix = "graph too big: ";

bool IsTrivialOpcode(Opcode opcode) {
  return opcode == Opcode::kGetTupleElement || opcode == Opcode::kTuple ||
         opcode == Opcode::kBitcast;
}

bool IsEffectiveScalar(const Shape& shape) { return shape.IsArray() && shape.ElementCount() == 1; }

int64_t ArrayElements(const Shape& shape) { return shape.IsArray() ? shape.ElementCount() : -1; }

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string out = "{";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "}";
}

// "add" for a reducer like `ROOT r = add(p0, p1)` with two scalar parameters.
std::string TrivialComputationName(const Computation* comp) {
  if (comp == nullptr || comp->instruction_count() != 3 || comp->root() == nullptr) return "";
  const Instruction* root = comp->root();
  if (root->operand_count() != 2) return "";
  for (const Instruction* op : root->operands()) {
    if (op->opcode() != Opcode::kParameter) return "";
  }
  if (root->opcode() == Opcode::kCompare && root->attrs().comparison_direction) {
    return "compare " + std::string(ComparisonDirectionName(*root->attrs().comparison_direction));
  }
  return std::string(OpcodeName(root->opcode()));
}

std::string ConstantValueText(const Instruction& constant) {
  const Literal* literal = constant.literal();
  if (literal == nullptr || constant.literal_elided()) return "{...}";
  return literal->ToString();
}

// What a folded constant operand shows in its user's label.
std::string FoldedConstantText(const Instruction& constant) {
  std::string shape = constant.shape().ToString(false);
  int64_t elements = ArrayElements(constant.shape());
  if (elements == 0) return "{} (" + shape + ")";
  if (elements > 0 && elements <= kMaxFoldedElements) {
    return ConstantValueText(constant) + " (" + shape + ")";
  }
  return "%" + constant.name() + " " + shape;
}

// The opcode line of a label: the opcode with the details that tell two of them apart.
std::string OpcodeLine(const Instruction& inst) {
  std::string line(OpcodeName(inst.opcode()));
  const InstructionAttributes& attrs = inst.attrs();
  switch (inst.opcode()) {
    case Opcode::kParameter:
      line += " " + std::to_string(inst.parameter_number());
      break;
    case Opcode::kGetTupleElement:
      line += " index=" + std::to_string(inst.tuple_index());
      break;
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReverse:
      if (attrs.dimensions) line += " dims=" + DimsText(*attrs.dimensions);
      break;
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kScatter:
    case Opcode::kMap:
    case Opcode::kAllReduce:
    case Opcode::kReduceScatter: {
      if (inst.opcode() == Opcode::kReduce && attrs.dimensions) {
        line += " dims=" + DimsText(*attrs.dimensions);
      }
      std::string reducer = TrivialComputationName(inst.to_apply());
      if (!reducer.empty()) line += " (" + reducer + ")";
      break;
    }
    case Opcode::kCompare:
      if (attrs.comparison_direction) {
        line += " " + std::string(ComparisonDirectionName(*attrs.comparison_direction));
      }
      break;
    case Opcode::kCustomCall:
      if (!attrs.custom_call_target.empty()) line += " " + attrs.custom_call_target;
      break;
    case Opcode::kConstant:
      if (ArrayElements(inst.shape()) >= 0 && ArrayElements(inst.shape()) <= kMaxFoldedElements) {
        line += " " + ConstantValueText(inst);
      }
      break;
    case Opcode::kWhile:
    case Opcode::kCall:
    case Opcode::kConditional:
    case Opcode::kAsyncStart:
      for (const Computation* c : inst.called_computations()) {
        if (c) line += " %" + c->name();
      }
      break;
    default:
      break;
  }
  return line;
}

// "add ×2, multiply, reduce" for a fusion's fused instructions (parameters left out).
std::string FusedOpcodeSummary(const Computation& fused, int* count) {
  std::vector<std::string> opcodes;
  for (const auto& inst : fused.instructions()) {
    if (inst->opcode() != Opcode::kParameter) opcodes.emplace_back(OpcodeName(inst->opcode()));
  }
  *count = static_cast<int>(opcodes.size());
  return CountSummary(opcodes);
}

std::string OwnScope(const Instruction& inst) {
  const OpMetadata* md = inst.metadata();
  return md ? ScopeOfOpName(md->op_name) : "";
}

// Where a fusion's instructions' scopes meet: the fusion's own metadata is often its
// root's, and a root inlined from a call (jax's relu) has lost its scope.
std::string FusionScope(const Instruction& fusion) {
  std::optional<std::string> scope;
  auto add = [&](const Instruction& inst) {
    std::string own = OwnScope(inst);
    if (!own.empty()) scope = scope ? CommonScope(*scope, own) : own;
  };
  add(fusion);
  if (const Computation* fused = fusion.fused_computation()) {
    for (const auto& inst : fused->instructions()) add(*inst);
  }
  return scope.value_or("");
}

std::string SourceText(const Module& module, const Instruction& inst) {
  const OpMetadata* md = inst.metadata();
  if (md == nullptr) return "";
  if (!md->source_file.empty()) {
    return md->source_file + (md->source_line > 0 ? ":" + std::to_string(md->source_line) : "");
  }
  if (md->stack_frame_id > 0) {
    std::string frames = module.stack_frames.Describe(md->stack_frame_id);
    size_t arrow = frames.find(" <- ");
    return arrow == std::string::npos ? frames : frames.substr(0, arrow);
  }
  return "";
}

std::string TooltipText(const Module& module, const Instruction& inst) {
  std::string tip = "%" + inst.name() + " = " + inst.shape().ToString(true) + " " +
                    std::string(OpcodeName(inst.opcode()));
  if (inst.parent()) tip += "\nin %" + inst.parent()->name();
  if (const OpMetadata* md = inst.metadata()) {
    if (!md->op_type.empty()) tip += "\nop_type: " + md->op_type;
    if (!md->op_name.empty()) tip += "\nop_name: " + md->op_name;
  }
  std::string source = SourceText(module, inst);
  if (!source.empty()) tip += "\nsource: " + source;
  return tip;
}

// Every computation reached from the entry through while/conditional/call/async: the
// computations whose instructions run as a program.
std::unordered_set<const Computation*> ProgramComputationSet(const Module& module) {
  const std::vector<Computation*> program = ProgramComputations(module, {.through_async_start = true});
  return {program.begin(), program.end()};
}

const Instruction* FindAnyInstruction(const Module& module, std::string_view name) {
  std::string key(name);
  if (!key.empty() && key[0] == '%') key.erase(0, 1);
  for (const auto& comp : module.computations()) {
    if (const Instruction* inst = comp->FindInstruction(key)) return inst;
  }
  return nullptr;
}

// Builds the whole graph (no neighbourhood cut, no budget) for one set of display choices.
class Builder {
 public:
  Builder(const Module& module, const FusionGraphOptions& options,
          const std::unordered_set<const Instruction*>& force_expanded, const Instruction* keep)
      : module_(module), options_(options), force_expanded_(force_expanded), keep_(keep) {}

  FusionGraph Build() {
    graph_.title = options_.title.empty() ? module_.name() : options_.title;
    if (module_.entry() == nullptr) return std::move(graph_);
    program_ = ProgramComputationSet(module_);
    drawn_.insert(module_.entry());
    AddComputation(*module_.entry(), /*cluster=*/-1, /*fusion=*/"");
    AddEdges();
    MarkBypassedRootOutputs();
    return std::move(graph_);
  }

 private:
  bool Expanded(const Instruction& inst) const {
    if (inst.opcode() != Opcode::kFusion || inst.IsFused() || inst.fused_computation() == nullptr) {
      return false;
    }
    if (force_expanded_.count(&inst)) return true;
    switch (options_.fusions) {
      case FusionDisplay::kCollapseAll:
        return false;
      case FusionDisplay::kExpandAll:
        return true;
      case FusionDisplay::kExpandSmall:
        return inst.fused_computation()->instruction_count() <= options_.expand_max_instructions;
    }
    return false;
  }

  bool Folded(const Instruction& inst) const {
    if (inst.opcode() != Opcode::kConstant || &inst == keep_) return false;
    if (inst.user_count() == 0 || inst.IsRoot()) return false;
    switch (options_.constants) {
      case ConstantDisplay::kShowAll:
        return false;
      case ConstantDisplay::kFoldAll:
        return true;
      case ConstantDisplay::kFoldSmall: {
        int64_t n = ArrayElements(inst.shape());
        return n >= 0 && n <= kMaxFoldedElements;
      }
    }
    return false;
  }

  bool FoldedParameter(const Instruction& inst) const {
    return options_.fold_parameters && inst.opcode() == Opcode::kParameter &&
           inst.parent() == module_.entry() && &inst != keep_ && inst.user_count() > 0;
  }

  std::string FoldedParameterText(const Instruction& param) const {
    return "parameter " + std::to_string(param.parameter_number()) + " " +
           param.shape().ToString(false);
  }

  bool Bypassed(const Instruction& inst) const {
    return !options_.show_trivial && IsTrivialOpcode(inst.opcode()) && &inst != keep_;
  }

  void AddComputation(const Computation& comp, int cluster, const std::string& fusion) {
    for (const Instruction* inst : comp.PostOrder()) {
      if (Folded(*inst) || Bypassed(*inst) || FoldedParameter(*inst)) continue;
      if (Expanded(*inst)) {
        AddFusionCluster(*inst, cluster);
        continue;
      }
      AddInstructionNode(*inst, cluster, fusion);
      if (passes::CallsProgram(*inst)) {
        for (const Computation* callee : inst->called_computations()) {
          if (callee == nullptr || !program_.count(callee) || !drawn_.insert(callee).second)
            continue;
          int sub = AddCluster(ClusterKind::kComputation, cluster, *inst, *callee);
          std::string role = "called by";
          if (inst->opcode() == Opcode::kWhile) {
            role = callee == inst->while_condition() ? "condition of" : "body of";
          } else if (inst->opcode() == Opcode::kConditional) {
            role = "branch of";
          }
          graph_.clusters[sub].label =
              "%" + callee->name() + " (" + role + " %" + inst->name() + ")";
          AddComputation(*callee, sub, fusion);
        }
      }
    }
  }

  int AddCluster(ClusterKind kind, int parent, const Instruction& inst, const Computation& comp) {
    GraphCluster cluster;
    cluster.id = static_cast<int>(graph_.clusters.size());
    cluster.parent = parent;
    cluster.kind = kind;
    cluster.instruction = inst.name();
    cluster.computation = comp.name();
    graph_.clusters.push_back(std::move(cluster));
    return graph_.clusters.back().id;
  }

  void AddFusionCluster(const Instruction& fusion, int parent) {
    const Computation& fused = *fusion.fused_computation();
    int id = AddCluster(ClusterKind::kFusion, parent, fusion, fused);
    GraphCluster& cluster = graph_.clusters[id];
    cluster.fusion_kind = fusion.fusion_kind();
    int count = 0;
    FusedOpcodeSummary(fused, &count);
    cluster.label = "%" + fusion.name();
    if (fusion.fusion_kind())
      cluster.label += " (" + std::string(FusionKindName(*fusion.fusion_kind())) + ")";
    cluster.label += ", " + std::to_string(count) + (count == 1 ? " instruction" : " instructions");
    AddComputation(fused, id, fusion.name());
    // Users of the fusion reach it through its root; the tooltip of the root says so.
    if (const Instruction* root = fused.root()) {
      auto it = node_of_.find(root);
      if (it != node_of_.end())
        graph_.nodes[it->second].tooltip += "\nroot of fusion %" + fusion.name();
    }
  }

  int AddInstructionNode(const Instruction& inst, int cluster, const std::string& fusion) {
    GraphNode node;
    node.id = static_cast<int>(graph_.nodes.size());
    node.instruction = inst.name();
    node.computation = inst.parent() ? inst.parent()->name() : "";
    node.fusion = fusion;
    node.opcode = std::string(OpcodeName(inst.opcode()));
    node.shape = inst.shape().ToString(false);
    node.cluster = cluster;
    node.is_root = inst.parent() == module_.entry() && inst.IsRoot();
    node.title = inst.name();
    node.tooltip = TooltipText(module_, inst);
    node.scope = inst.opcode() == Opcode::kFusion ? FusionScope(inst) : OwnScope(inst);
    if (inst.opcode() == Opcode::kFusion) {
      node.kind = NodeKind::kFusion;
      node.category = NodeCategory::kFusion;
      node.fusion = inst.name();
      node.fusion_kind = inst.fusion_kind();
      int count = 0;
      std::string summary;
      if (inst.fused_computation()) summary = FusedOpcodeSummary(*inst.fused_computation(), &count);
      std::string line = "fusion";
      if (inst.fusion_kind()) line += " " + std::string(FusionKindName(*inst.fusion_kind()));
      line += ", " + std::to_string(count) + (count == 1 ? " instruction" : " instructions");
      node.lines.push_back(line);
      if (!summary.empty()) node.lines.push_back(summary);
    } else {
      node.category = CategoryOf(inst);
      node.lines.push_back(OpcodeLine(inst));
    }
    node.lines.push_back(node.shape);
    if (node.is_root) node.lines.push_back("ROOT");
    node_of_[&inst] = node.id;
    order_.push_back(&inst);
    graph_.nodes.push_back(std::move(node));
    return graph_.nodes.back().id;
  }

  // The nodes an edge from `inst` starts at: its own node, the root of its expanded
  // fusion, or — for a bypassed or folded instruction — what it forwards.
  std::vector<int> Sources(const Instruction* inst, int depth = 0) {
    auto it = node_of_.find(inst);
    if (it != node_of_.end()) return {it->second};
    if (depth > 64) return {};
    auto memo = sources_memo_.find(inst);
    if (memo != sources_memo_.end()) return memo->second;
    std::vector<int> out;
    if (Expanded(*inst)) {
      out = Sources(inst->fused_computation()->root(), depth + 1);
    } else if (Bypassed(*inst)) {
      const Instruction* forwarded = nullptr;
      if (inst->opcode() == Opcode::kGetTupleElement && inst->operand_count() == 1) {
        const Instruction* tuple = inst->operand(0);
        if (Expanded(*tuple)) tuple = tuple->fused_computation()->root();
        int64_t index = inst->tuple_index();
        if (tuple && tuple->opcode() == Opcode::kTuple && Bypassed(*tuple) && index >= 0 &&
            index < tuple->operand_count()) {
          forwarded = tuple->operand(index);
        }
      }
      if (forwarded) {
        out = Sources(forwarded, depth + 1);
      } else {
        for (const Instruction* op : inst->operands()) {
          for (int s : Sources(op, depth + 1)) {
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
          }
        }
      }
    }
    sources_memo_[inst] = out;
    return out;
  }

  void AddEdges() {
    for (const Instruction* inst : order_) {
      int to = node_of_.at(inst);
      GraphNode& node = graph_.nodes[to];
      bool multi = inst->operand_count() > 1;
      // More than kMaxParameterLines folded parameters (a conv's weights and a batch
      // norm's four statistics) read as one line of their shapes.
      constexpr size_t kMaxParameterLines = 3;
      std::vector<std::string> parameter_lines, parameter_shapes;
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        const Instruction* op = inst->operand(i);
        if (Folded(*op) || FoldedParameter(*op)) {
          std::string line = (multi ? "operand " + std::to_string(i) : std::string("operand")) +
                             " = " +
                             (Folded(*op) ? FoldedConstantText(*op) : FoldedParameterText(*op));
          if (FoldedParameter(*op)) {
            ++graph_.nodes[to].folded_parameters;
            parameter_lines.push_back(std::move(line));
            parameter_shapes.push_back(op->shape().ToString(false));
          } else {
            graph_.nodes[to].lines.push_back(std::move(line));
          }
          continue;
        }
        for (int from : Sources(op)) {
          graph_.edges.push_back({from, to, EdgeKind::kData, multi ? static_cast<int>(i) : -1});
        }
      }
      if (parameter_lines.size() > kMaxParameterLines) {
        node.lines.push_back("+ " + std::to_string(parameter_lines.size()) +
                             " parameters: " + CountSummary(parameter_shapes, 3));
      } else {
        for (std::string& line : parameter_lines) node.lines.push_back(std::move(line));
      }
      // A fused parameter takes its value from the fusion's operand outside.
      if (inst->opcode() == Opcode::kParameter && inst->parent() &&
          inst->parent()->IsFusionComputation()) {
        const Instruction* fusion = inst->parent()->fusion_instruction();
        int64_t number = inst->parameter_number();
        if (fusion && number >= 0 && number < fusion->operand_count()) {
          const Instruction* outer = fusion->operand(number);
          if (Folded(*outer)) {
            node.lines.push_back("= " + FoldedConstantText(*outer));
          } else if (FoldedParameter(*outer)) {
            node.lines.push_back("= " + FoldedParameterText(*outer));
            ++node.folded_parameters;
          } else {
            for (int from : Sources(outer)) graph_.edges.push_back({from, to, EdgeKind::kData, -1});
          }
        }
      }
      // A called program computation's result flows back into its caller.
      if (passes::CallsProgram(*inst)) {
        for (const Computation* callee : inst->called_computations()) {
          if (callee == nullptr || !program_.count(callee) || callee->root() == nullptr) continue;
          for (int from : Sources(callee->root())) {
            graph_.edges.push_back({from, to, EdgeKind::kCall, -1});
          }
        }
      }
    }
  }

  // A bypassed root tuple draws no node: what it gathers says which output it is.
  void MarkBypassedRootOutputs() {
    const Instruction* root = module_.entry()->root();
    if (root == nullptr || root->opcode() != Opcode::kTuple || !Bypassed(*root)) return;
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      for (int from : Sources(root->operand(i))) {
        GraphNode& node = graph_.nodes[from];
        node.is_root = true;
        node.lines.push_back("ROOT output " + std::to_string(i));
      }
    }
  }

  const Module& module_;
  const FusionGraphOptions& options_;
  const std::unordered_set<const Instruction*>& force_expanded_;
  const Instruction* keep_;
  FusionGraph graph_;
  std::unordered_set<const Computation*> program_;
  std::unordered_set<const Computation*> drawn_;
  std::unordered_map<const Instruction*, int> node_of_;
  std::vector<const Instruction*> order_;
  std::unordered_map<const Instruction*, std::vector<int>> sources_memo_;
};

// Keeps the nodes within `radius` operand hops and `radius` user hops of `center`, and
// adds a dashed marker next to every kept node that has operands or users left out.
FusionGraph Neighbourhood(const FusionGraph& full, int center, int radius) {
  const int n = static_cast<int>(full.nodes.size());
  std::vector<std::vector<int>> ins(n), outs(n);
  for (const GraphEdge& e : full.edges) {
    outs[e.from].push_back(e.to);
    ins[e.to].push_back(e.from);
  }
  std::vector<char> keep(n, 0);
  keep[center] = 1;
  for (const auto* adjacency : {&ins, &outs}) {
    std::vector<int> dist(n, -1);
    std::deque<int> queue = {center};
    dist[center] = 0;
    while (!queue.empty()) {
      int v = queue.front();
      queue.pop_front();
      if (dist[v] >= radius) continue;
      for (int w : (*adjacency)[v]) {
        if (dist[w] >= 0) continue;
        dist[w] = dist[v] + 1;
        keep[w] = 1;
        queue.push_back(w);
      }
    }
  }

  FusionGraph out;
  out.title = full.title;
  out.notes = full.notes;
  out.fusions_auto_collapsed = full.fusions_auto_collapsed;
  // Clusters that hold a kept node, with their ancestors.
  std::vector<char> keep_cluster(full.clusters.size(), 0);
  for (int v = 0; v < n; ++v) {
    if (!keep[v]) continue;
    for (int c = full.nodes[v].cluster; c >= 0 && !keep_cluster[c]; c = full.clusters[c].parent) {
      keep_cluster[c] = 1;
    }
  }
  std::vector<int> cluster_map(full.clusters.size(), -1);
  for (size_t c = 0; c < full.clusters.size(); ++c) {
    if (!keep_cluster[c]) continue;
    GraphCluster cluster = full.clusters[c];
    cluster.id = static_cast<int>(out.clusters.size());
    cluster.parent = cluster.parent >= 0 ? cluster_map[cluster.parent] : -1;
    cluster_map[c] = cluster.id;
    out.clusters.push_back(std::move(cluster));
  }
  std::vector<int> node_map(n, -1);
  for (int v = 0; v < n; ++v) {
    if (!keep[v]) continue;
    GraphNode node = full.nodes[v];
    node.id = static_cast<int>(out.nodes.size());
    node.cluster = node.cluster >= 0 ? cluster_map[node.cluster] : -1;
    node.is_center = v == center;
    node_map[v] = node.id;
    out.nodes.push_back(std::move(node));
  }
  for (const GraphEdge& e : full.edges) {
    if (node_map[e.from] >= 0 && node_map[e.to] >= 0) {
      out.edges.push_back({node_map[e.from], node_map[e.to], e.kind, e.operand_index});
    }
  }
  // Border markers, counting distinct neighbours left out.
  for (int v = 0; v < n; ++v) {
    if (!keep[v]) continue;
    std::unordered_set<int> hidden_in, hidden_out;
    for (int w : ins[v]) {
      if (!keep[w]) hidden_in.insert(w);
    }
    for (int w : outs[v]) {
      if (!keep[w]) hidden_out.insert(w);
    }
    int id = node_map[v];
    out.nodes[id].hidden_operands = static_cast<int>(hidden_in.size());
    out.nodes[id].hidden_users = static_cast<int>(hidden_out.size());
    auto add_marker = [&](int count, bool operands) {
      GraphNode marker;
      marker.id = static_cast<int>(out.nodes.size());
      marker.kind = NodeKind::kCutOff;
      marker.category = NodeCategory::kCutOff;
      marker.cluster = out.nodes[id].cluster;
      marker.title =
          "\u2026 " + std::to_string(count) + " more " +
          (operands ? (count == 1 ? "operand" : "operands") : (count == 1 ? "user" : "users"));
      marker.tooltip = marker.title + " of %" + out.nodes[id].instruction;
      int marker_id = marker.id;
      out.nodes.push_back(std::move(marker));
      if (operands) {
        out.edges.push_back({marker_id, id, EdgeKind::kCutOff, -1});
      } else {
        out.edges.push_back({id, marker_id, EdgeKind::kCutOff, -1});
      }
    };
    if (!hidden_in.empty()) add_marker(static_cast<int>(hidden_in.size()), true);
    if (!hidden_out.empty()) add_marker(static_cast<int>(hidden_out.size()), false);
  }
  return out;
}

}  // namespace

std::string_view CategoryName(NodeCategory category) {
  switch (category) {
    case NodeCategory::kElementwise:
      return "elementwise";
    case NodeCategory::kScalar:
      return "scalar";
    case NodeCategory::kDataMovement:
      return "data movement";
    case NodeCategory::kReduction:
      return "reduction";
    case NodeCategory::kDotConvolution:
      return "dot / convolution";
    case NodeCategory::kParameter:
      return "parameter";
    case NodeCategory::kConstant:
      return "constant";
    case NodeCategory::kControlFlow:
      return "control flow";
    case NodeCategory::kFusion:
      return "fusion";
    case NodeCategory::kCustomCall:
      return "custom call / collective";
    case NodeCategory::kTrivial:
      return "tuple / get-tuple-element / bitcast";
    case NodeCategory::kScope:
      return "layer scope";
    case NodeCategory::kCutOff:
      return "not drawn (neighbourhood border)";
  }
  return "?";
}

namespace {
std::string_view CategoryDescription(NodeCategory category) {
  switch (category) {
    case NodeCategory::kElementwise:
      return "elementwise op on an array";
    case NodeCategory::kScalar:
      return "elementwise op on a scalar (cheap)";
    case NodeCategory::kDataMovement:
      return "broadcast, transpose, reshape, slice, copy, gather, ...";
    case NodeCategory::kReduction:
      return "reduce, reduce-window, scatter, sort, batch-norm";
    case NodeCategory::kDotConvolution:
      return "dot, convolution, fft (the expensive ones)";
    case NodeCategory::kParameter:
      return "parameter of the entry, a loop body or a fusion";
    case NodeCategory::kConstant:
      return "constant (small ones are folded into their users)";
    case NodeCategory::kControlFlow:
      return "while, conditional, call, async";
    case NodeCategory::kFusion:
      return "fusion, collapsed to one kernel node";
    case NodeCategory::kCustomCall:
      return "custom-call, collective, send/recv, infeed/outfeed";
    case NodeCategory::kTrivial:
      return "tuple, get-tuple-element, bitcast (free)";
    case NodeCategory::kScope:
      return "a collapsed op_name scope (layer, block, stage): click to expand";
    case NodeCategory::kCutOff:
      return "operands or users left out of a neighbourhood view";
  }
  return "";
}
}  // namespace

NodeCategory CategoryOf(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
      return NodeCategory::kParameter;
    case Opcode::kConstant:
      return NodeCategory::kConstant;
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
    case Opcode::kBitcast:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kGetDimensionSize:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return NodeCategory::kTrivial;
    case Opcode::kFusion:
      return NodeCategory::kFusion;
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return NodeCategory::kControlFlow;
    case Opcode::kDot:
    case Opcode::kRaggedDot:
    case Opcode::kScaledDot:
    case Opcode::kConvolution:
    case Opcode::kFft:
    case Opcode::kTriangularSolve:
    case Opcode::kCholesky:
      return NodeCategory::kDotConvolution;
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kScatter:
    case Opcode::kSelectAndScatter:
    case Opcode::kSort:
    case Opcode::kTopK:
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
    case Opcode::kScan:
      return NodeCategory::kReduction;
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReshape:
    case Opcode::kDynamicReshape:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kGather:
    case Opcode::kCopy:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
    case Opcode::kSetDimensionSize:
      return IsEffectiveScalar(inst.shape()) ? NodeCategory::kScalar : NodeCategory::kDataMovement;
    case Opcode::kCustomCall:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllGatherDone:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllReduceDone:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveReduce:
    case Opcode::kReduceScatter:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return NodeCategory::kCustomCall;
    default:
      return IsEffectiveScalar(inst.shape()) ? NodeCategory::kScalar : NodeCategory::kElementwise;
  }
}

NodeStyle StyleFor(NodeCategory category) {
  switch (category) {
    case NodeCategory::kElementwise:
      return {"#fff9c4", "#cbc693", "black"};
    case NodeCategory::kScalar:
      return {"white", "#9e9e9e", "black"};
    case NodeCategory::kDataMovement:
      return {"#c8e6c9", "#97b498", "black"};
    case NodeCategory::kReduction:
      return {"#e1bee7", "#af8eb5", "black"};
    case NodeCategory::kDotConvolution:
      return {"#1565c0", "#003c8f", "white"};
    case NodeCategory::kParameter:
      return {"#ffe0b2", "#cbae82", "black"};
    case NodeCategory::kConstant:
      return {"#d7ccc8", "#a69b97", "black"};
    case NodeCategory::kControlFlow:
      return {"#2e7d32", "#005005", "white"};
    case NodeCategory::kFusion:
      return {"#cfd8dc", "#9ea7aa", "black"};
    case NodeCategory::kCustomCall:
      return {"#bcaaa4", "#8c7b75", "black"};
    case NodeCategory::kTrivial:
      return {"white", "#9e9e9e", "#424242"};
    case NodeCategory::kScope:
      return {"#e8eaf6", "#3949ab", "#1a237e"};  // indigo
    case NodeCategory::kCutOff:
      return {"white", "#757575", "#757575", /*dashed=*/true};
  }
  return {"white", "black", "black"};
}

ClusterStyle StyleForFusionKind(std::optional<FusionKind> kind) {
  if (!kind) return {"#f5f5f5", "#c2c2c2"};
  switch (*kind) {
    case FusionKind::kLoop:
      return {"#f5f5f5", "#9e9e9e"};  // grey
    case FusionKind::kInput:
      return {"#f3e5f5", "#ab47bc"};  // purple: reductions
    case FusionKind::kOutput:
      return {"#e3f2fd", "#1e88e5"};  // blue: dot/conv epilogues
    case FusionKind::kCustom:
      return {"#efebe9", "#8d6e63"};  // brown: library fusions
  }
  return {"#f5f5f5", "#c2c2c2"};
}

ClusterStyle StyleForComputationCluster() { return {"white", "#2e7d32"}; }

ClusterStyle StyleForScopeCluster() { return {"#f7f8fd", "#7986cb"}; }

const GraphNode* FusionGraph::FindNode(std::string_view instruction) const {
  if (!instruction.empty() && instruction[0] == '%') instruction.remove_prefix(1);
  for (const GraphNode& node : nodes) {
    if (node.kind != NodeKind::kCutOff && node.instruction == instruction) return &node;
  }
  return nullptr;
}

const GraphNode* FusionGraph::NodeDrawing(std::string_view instruction) const {
  if (const GraphNode* node = FindNode(instruction)) return node;
  if (!instruction.empty() && instruction[0] == '%') instruction.remove_prefix(1);
  auto it = in_collapsed_scope.find(std::string(instruction));
  if (it == in_collapsed_scope.end() || it->second < 0 ||
      it->second >= static_cast<int>(nodes.size()))
    return nullptr;
  return &nodes[it->second];
}

int FusionGraph::instruction_node_count() const {
  int count = 0;
  for (const GraphNode& node : nodes) count += node.kind != NodeKind::kCutOff;
  return count;
}

bool IsGraphTooBig(const Status& status) {
  return !status.ok() && StartsWith(status.message(), kTooBigPrefix);
}

std::vector<std::string> SimilarInstructionNames(const Module& module, std::string_view name,
                                                 int max) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  // Edit distance where swapping two neighbouring characters counts as one edit
  // (optimal string alignment): "add.71" is one edit from "add.17".
  auto distance = [](std::string_view a, std::string_view b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      for (size_t j = 1; j <= b.size(); ++j) {
        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.size()][b.size()];
  };
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      size_t d = distance(name, inst->name());
      // A name that contains what was typed (or is contained in it) is a good guess.
      if (inst->name().find(name) != std::string::npos ||
          name.find(inst->name()) != std::string_view::npos) {
        d = std::min<size_t>(d, 1);
      }
      scored.emplace_back(d, inst->name());
    }
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  size_t limit = std::max<size_t>(3, name.size() / 2);
  for (const auto& [d, n] : scored) {
    if (static_cast<int>(out.size()) >= max || d > limit) break;
    out.push_back(n);
  }
  return out;
}

StatusOr<FusionGraph> BuildFusionGraph(const Module& module, const FusionGraphOptions& options) {
  if (module.entry() == nullptr)
    return InvalidArgument("module " + module.name() + " has no entry computation");
  if (options.radius < 0) return InvalidArgument("the radius must be 0 or more");

  const Instruction* center = nullptr;
  std::unordered_set<const Instruction*> force_expanded;
  if (!options.center.empty()) {
    center = FindAnyInstruction(module, options.center);
    if (center == nullptr) {
      std::string message =
          "no instruction %" + std::string(options.center) + " in module " + module.name();
      std::vector<std::string> similar = SimilarInstructionNames(module, options.center);
      if (!similar.empty()) {
        message += " (did you mean ";
        for (size_t i = 0; i < similar.size(); ++i) message += (i ? ", %" : "%") + similar[i];
        message += "?)";
      }
      return NotFound(message);
    }
    std::unordered_set<const Computation*> program = ProgramComputationSet(module);
    const Computation* comp = center->parent();
    if (comp && comp->IsFusionComputation()) {
      const Instruction* fusion = comp->fusion_instruction();
      if (fusion && fusion->parent() && program.count(fusion->parent()))
        force_expanded.insert(fusion);
      else
        comp = nullptr;
    }
    if (comp == nullptr || (!comp->IsFusionComputation() && !program.count(comp))) {
      return InvalidArgument("%" + center->name() + " is in %" +
                             (center->parent() ? center->parent()->name() : std::string("?")) +
                             ", which is not drawn: only the entry, the computations "
                             "while/conditional/call run, and fused computations are");
    }
  }

  auto build = [&](const FusionGraphOptions& opts) {
    FusionGraph full = Builder(module, opts, force_expanded, center).Build();
    if (center == nullptr) return opts.scopes.enabled ? GroupByScope(full, opts.scopes) : full;
    const GraphNode* node = full.FindNode(center->name());
    if (node == nullptr) return full;  // cannot happen: the center is never folded
    return Neighbourhood(full, node->id, options.radius);
  };

  FusionGraph graph = build(options);
  auto over = [&](const FusionGraph& g) {
    return options.max_nodes > 0 && static_cast<int>(g.nodes.size()) > options.max_nodes;
  };
  if (over(graph) && options.fusions != FusionDisplay::kCollapseAll) {
    size_t expanded_nodes = graph.nodes.size();
    FusionGraphOptions collapsed = options;
    collapsed.fusions = FusionDisplay::kCollapseAll;
    graph = build(collapsed);
    graph.fusions_auto_collapsed = true;
    graph.notes.push_back("fusions collapsed: with them expanded the graph has " +
                          std::to_string(expanded_nodes) + " nodes, over the limit of " +
                          std::to_string(options.max_nodes));
  }
  if (over(graph)) {
    return InvalidArgument(
        std::string(kTooBigPrefix) + "module " + module.name() + " draws as " +
        std::to_string(graph.nodes.size()) + " nodes with fusions collapsed, over the limit of " +
        std::to_string(options.max_nodes) +
        "; draw the neighbourhood of one instruction instead");
  }

  // Legend: the categories drawn, in enum order.
  std::vector<char> used(kNodeCategoryCount, 0);
  for (const GraphNode& node : graph.nodes) used[static_cast<int>(node.category)] = 1;
  for (int c = 0; c < kNodeCategoryCount; ++c) {
    if (used[c]) {
      auto category = static_cast<NodeCategory>(c);
      graph.legend.push_back({category, std::string(CategoryDescription(category))});
    }
  }
  return graph;
}

}  // namespace fusebox::graph
