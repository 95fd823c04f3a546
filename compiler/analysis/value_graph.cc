// Value graphs for the structural diff: fusions flattened into the computation that calls
// them, and name-free fingerprints of instructions and computations.
#include "compiler/analysis/value_graph.h"

#include <algorithm>
#include <functional>

namespace fusebox::analysis::diff_internal {

namespace {

// Follows the nesting of braces, brackets, parentheses and quotes up to text[i].
void TrackNesting(const std::string& text, size_t i, int* depth, bool* quoted) {
  const char c = text[i];
  if (c == '"' && (i == 0 || text[i - 1] != '\\')) *quoted = !*quoted;
  if (*quoted) return;
  if (c == '{' || c == '[' || c == '(') ++*depth;
  if (c == '}' || c == ']' || c == ')') --*depth;
}

// Splits the printer's ", key=value, key=value" at the ", " outside braces, brackets,
// parentheses and quotes.
std::vector<std::string> SplitAttributeText(const std::string& text) {
  std::vector<std::string> pieces;
  std::string current;
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    TrackNesting(text, i, &depth, &quoted);
    if (quoted || depth != 0 || text.compare(i, 2, ", ") != 0) {
      current += text[i];
      continue;
    }
    if (!current.empty()) pieces.push_back(current);
    current.clear();
    ++i;  // the space after the comma
  }
  if (!current.empty()) pieces.push_back(current);
  return pieces;
}

void FillDefaultLayouts(Shape* shape) {
  if (shape->IsTuple()) {
    for (Shape& element : *shape->mutable_tuple_shapes()) FillDefaultLayouts(&element);
  } else if (shape->IsArray() && !shape->has_layout()) {
    shape->SetDefaultLayout();
  }
}

}  // namespace

uint64_t MixHash(uint64_t seed, uint64_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  return seed;
}

uint64_t HashText(const std::string& text) { return std::hash<std::string>{}(text); }

std::string ShapeText(const Shape& shape, bool layouts) {
  if (!layouts) return shape.ToString(/*print_layout=*/false);
  Shape copy = shape;
  FillDefaultLayouts(&copy);
  return copy.ToString(/*print_layout=*/true);
}

std::vector<std::string> SemanticAttributes(const Instruction& inst, bool with_calls) {
  // The printer knows every attribute's text: print a bare copy that carries only what
  // changes the value (no metadata, operands or control edges).
  Instruction bare(inst.opcode(), "x", inst.shape());
  if (inst.has_attributes()) {
    InstructionAttributes& attrs = bare.mutable_attrs();
    attrs = inst.attrs();
    attrs.has_backend_config = false;
    attrs.has_frontend_attributes = false;
    attrs.has_statistics = false;
    attrs.printed_as_tuple_operand = false;
    std::erase_if(attrs.raw, [](const RawAttribute& raw) { return raw.name == "origin"; });
  }
  if (with_calls) {
    for (Computation* callee : inst.called_computations()) bare.AppendCalledComputation(callee);
    bare.set_call_form(inst.call_form());
  }
  return SplitAttributeText(bare.AttributesToString());
}

LocalSignature GraphBuilder::Signature(const Instruction& inst) {
  LocalSignature sig;
  sig.shape = ShapeText(inst.shape(), settings_.layouts);
  sig.attributes = SemanticAttributes(inst, /*with_calls=*/false);
  if (inst.opcode() == Opcode::kConstant) {
    sig.literal =
        inst.literal_elided() || inst.literal() == nullptr ? "{...}" : inst.literal()->ToString();
  }
  if (inst.opcode() == Opcode::kParameter) sig.parameter_number = inst.parameter_number();
  for (const Computation* callee : inst.called_computations()) {
    sig.callees.push_back(callee ? ComputationFingerprint(*callee) : 0);
  }
  return sig;
}

uint64_t GraphBuilder::LocalFingerprint(const Instruction& inst) {
  LocalSignature sig = Signature(inst);
  uint64_t h = HashText(std::string(OpcodeName(inst.opcode())));
  h = MixHash(h, HashText(sig.shape));
  for (const std::string& attribute : sig.attributes) h = MixHash(h, HashText(attribute));
  h = MixHash(h, HashText(sig.literal));
  h = MixHash(h, static_cast<uint64_t>(sig.parameter_number));
  for (uint64_t callee : sig.callees) h = MixHash(h, callee);
  return h;
}

uint64_t GraphBuilder::ComputationFingerprint(const Computation& computation) {
  auto it = computation_fingerprints_.find(&computation);
  if (it != computation_fingerprints_.end()) return it->second;
  ValueGraph graph = Build(computation);
  uint64_t h = MixHash(HashText("computation"), graph.nodes.size());
  for (const Instruction* param : computation.parameters()) {
    h = MixHash(h, param ? HashText(ShapeText(param->shape(), settings_.layouts)) : 0);
  }
  if (graph.root >= 0) h = MixHash(h, graph.nodes[graph.root].full);
  computation_fingerprints_[&computation] = h;
  return h;
}

// Where Flatten is: the fusion the computation belongs to (outermost), and for a fused
// computation, the node each of its parameters stands for.
struct GraphBuilder::Scope {
  const Instruction* fusion = nullptr;
  const std::vector<int>* parameter_values = nullptr;  // null at the top level
};

int GraphBuilder::AddNode(const Instruction& inst, const Scope& scope,
                          const std::unordered_map<const Instruction*, int>& values,
                          ValueGraph* graph) {
  ValueNode node;
  node.inst = &inst;
  node.fusion = scope.fusion;
  node.fusion_glue =
      scope.parameter_values != nullptr && inst.IsRoot() && inst.opcode() == Opcode::kTuple;
  node.local = LocalFingerprint(inst);
  std::vector<uint64_t> operand_fingerprints;
  for (const Instruction* operand : inst.operands()) {
    int id = values.at(operand);
    node.operands.push_back(id);
    operand_fingerprints.push_back(graph->nodes[id].full);
  }
  if (IsCommutative(inst.opcode())) {
    std::sort(operand_fingerprints.begin(), operand_fingerprints.end());
  }
  node.full = node.local;
  for (uint64_t f : operand_fingerprints) node.full = MixHash(node.full, f);
  int id = static_cast<int>(graph->nodes.size());
  for (int operand : node.operands) graph->nodes[operand].users.push_back(id);
  graph->nodes.push_back(std::move(node));
  return id;
}

// Adds the nodes of `computation` and returns its root's node.
int GraphBuilder::Flatten(const Computation& computation, Scope& scope, ValueGraph* graph) {
  std::unordered_map<const Instruction*, int> values;
  for (const Instruction* inst : computation.PostOrder()) {
    if (scope.parameter_values && inst->opcode() == Opcode::kParameter) {
      values[inst] = scope.parameter_values->at(inst->parameter_number());
    } else if (inst->opcode() == Opcode::kFusion && inst->fused_computation()) {
      std::vector<int> parameter_values;
      for (const Instruction* operand : inst->operands())
        parameter_values.push_back(values.at(operand));
      Scope inner{scope.fusion ? scope.fusion : inst, &parameter_values};
      values[inst] = Flatten(*inst->fused_computation(), inner, graph);
      if (!scope.fusion) graph->fusions.push_back(inst);
    } else if (inst->opcode() == Opcode::kGetTupleElement &&
               graph->nodes[values.at(inst->operand(0))].fusion_glue) {
      values[inst] = graph->nodes[values.at(inst->operand(0))].operands.at(inst->tuple_index());
    } else {
      values[inst] = AddNode(*inst, scope, values, graph);
    }
  }
  if (!scope.parameter_values) graph->value_of = values;
  return computation.root() ? values.at(computation.root()) : -1;
}

ValueGraph GraphBuilder::Build(const Computation& computation) {
  ValueGraph graph;
  graph.computation = &computation;
  Scope top;
  graph.root = Flatten(computation, top, &graph);
  return graph;
}

}  // namespace fusebox::analysis::diff_internal
