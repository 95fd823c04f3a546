// The value graph the structural diff matches (internal to compiler/analysis): one node per
// operation that computes a value, with fusions looked through, and the fingerprints that
// say when two nodes compute the same thing regardless of names.
//
// Looking through a fusion: a fused parameter is the fusion's operand, a fusion is its
// fused root, and a get-tuple-element of a multi-output fusion is that output. A module
// and the same module after a fusion pass therefore have the same nodes; which fusion a
// node came from is kept beside it.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/module.h"

namespace fusebox::analysis::diff_internal {

struct ValueNode {
  const Instruction* inst = nullptr;
  // The top-level fusion the node was flattened out of; null for an op that runs alone.
  const Instruction* fusion = nullptr;
  // The tuple at the root of a multi-output fusion: how the fusion groups its outputs,
  // not an op of the program; never reported on its own.
  bool fusion_glue = false;
  std::vector<int> operands;
  std::vector<int> users;
  // Opcode, shape, the attributes that change the value, constant values, the structure
  // of called computations. Never names, metadata, backend configs or ids.
  uint64_t local = 0;
  // `local` and the operands' `full`, in order (sorted for commutative opcodes).
  uint64_t full = 0;
};

struct ValueGraph {
  const Computation* computation = nullptr;
  std::vector<ValueNode> nodes;  // operands before users
  int root = -1;
  // The top-level fusions of the computation in text order, and every top-level
  // instruction's value (a fusion's is its fused root's node).
  std::vector<const Instruction*> fusions;
  std::unordered_map<const Instruction*, int> value_of;
};

struct GraphSettings {
  bool layouts = true;  // shapes are compared with their layouts (missing = default)
};

// What an instruction computes apart from its operands, as text: what the diff compares
// and prints for a matched pair.
struct LocalSignature {
  std::string shape;
  std::vector<std::string> attributes;  // "key=value", called computations left out
  std::string literal;                  // constants; "{...}" when the file elided it
  int64_t parameter_number = -1;
  std::vector<uint64_t> callees;  // structural fingerprints of called computations
};

// Builds value graphs and fingerprints for the computations of one module; remembers the
// fingerprint of each computation it has seen (called computations are fingerprinted
// once, however many instructions call them).
class GraphBuilder {
 public:
  explicit GraphBuilder(GraphSettings settings) : settings_(settings) {}

  ValueGraph Build(const Computation& computation);
  // Parameters (count, shapes), the root's full fingerprint and the node count.
  uint64_t ComputationFingerprint(const Computation& computation);
  LocalSignature Signature(const Instruction& inst);

 private:
  struct Scope;
  int Flatten(const Computation& computation, Scope& scope, ValueGraph* graph);
  int AddNode(const Instruction& inst, const Scope& scope,
              const std::unordered_map<const Instruction*, int>& values, ValueGraph* graph);
  uint64_t LocalFingerprint(const Instruction& inst);

  GraphSettings settings_;
  std::unordered_map<const Computation*, uint64_t> computation_fingerprints_;
};

// The instruction's attributes that change what it computes, each "key=value" as the
// printer writes them, in the printer's order; with or without the called computations
// (calls=, to_apply=, ...). Leaves out metadata, backend_config, frontend_attributes,
// statistics, control predecessors and `origin`.
std::vector<std::string> SemanticAttributes(const Instruction& inst, bool with_calls);

// The shape's text, layouts written out (a missing layout as the default one) or left out.
std::string ShapeText(const Shape& shape, bool layouts);

uint64_t MixHash(uint64_t seed, uint64_t value);
uint64_t HashText(const std::string& text);

}  // namespace fusebox::analysis::diff_internal
