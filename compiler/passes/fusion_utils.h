// The primitive edits fusion passes are made of: wrap instructions into a `fusion`
// instruction with its `fused_computation`, fuse a producer into a fusion (duplicating it
// when it has other users), merge fusions, and build multi-output fusions (root tuple,
// users read get-tuple-element). The heuristics that decide *what* to fuse live in the
// passes (instruction_fusion, multi_output_fusion); these functions only do it.
//
// Naming follows XLA's dumps: fused computations `fused_computation`,
// `fused_computation.1`, ...; their parameters `param_0`, `param_1`, ...; fusion
// instructions `fusion`, `fusion.1`, ...; all via Module::UniqueName. Instructions moved
// into a fused computation keep their names; copies (duplicated producers) get a fresh one.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::passes {

// A group of instructions of one computation to become one fusion.
struct FusionGroup {
  // Any order (sorted into post order inside). Members may be fusions: their fused
  // computations are inlined. A multi-output member fusion brings its get-tuple-element
  // users along.
  std::vector<Instruction*> members;
  FusionKind kind = FusionKind::kLoop;
  // false: `root` is the only output; any other member with users outside the group is
  // duplicated (the fusion computes its own copy, the original stays for those users).
  // true: every member with users outside the group (or that is the computation's root)
  // becomes an element of the root tuple; outside users read get-tuple-element.
  bool multi_output = false;
  Instruction* root = nullptr;  // the output when !multi_output
  // A fusion among the members to grow in place: it keeps its name and its place in the
  // computation (so the printed text stays in definition order). Null: a new `fusion`.
  Instruction* reuse = nullptr;
};

// Builds the fusion and rewires the computation; members left without users are removed.
// Returns the fusion instruction.
StatusOr<Instruction*> BuildFusion(const FusionGroup& group);

// `instruction` alone as a fusion of `kind` (it is replaced by the fusion).
StatusOr<Instruction*> CreateFusion(Instruction* instruction, FusionKind kind);

// Clones `producer` into the fusion `consumer` in place of the parameters that take it.
// The producer's operands become fusion operands (deduplicated, parameters renumbered).
// If the producer has users other than `consumer` it stays for them (duplication);
// otherwise it is removed. A producer that is itself a fusion is merged (inlined).
// Returns the fusion (the same instruction as `consumer`).
StatusOr<Instruction*> FuseProducer(Instruction* producer, Instruction* consumer);

// Like FuseProducer, but a producer with other users is not duplicated: the fusion
// outputs it as an extra tuple element and those users read it through
// get-tuple-element. The caller checks that this creates no cycle.
StatusOr<Instruction*> FuseProducerMultiOutput(Instruction* producer, Instruction* consumer);

// Merges two instructions that do not depend on each other (siblings reading the same
// operand) into one multi-output fusion of `kind`; their users read get-tuple-element.
StatusOr<Instruction*> FuseSiblings(Instruction* a, Instruction* b, FusionKind kind);

// A fusion whose root is a tuple (its users read get-tuple-element).
bool IsMultiOutputFusion(const Instruction& instruction);

// Whether `to` can be reached from `from` along operand edges (from a user to its
// operands: `to` is a transitive operand of `from`), within one computation.
bool Reaches(const Instruction* from, const Instruction* to);

// The first instruction on a path from `from` to `to` (operand direction) other than
// the direct edge `from` -> `to` itself (or through a get-tuple-element of `to`), or null
// when there is none: what fusing `to` into `from` as a multi-output fusion would turn
// into a cycle.
const Instruction* IndirectPath(const Instruction* from, const Instruction* to);

}  // namespace fusebox::passes
