// The structural diff of two HLO modules (`fusebox diff A B`): which instructions of B
// were added, which of A were removed and which changed, matching instructions by what
// they compute — opcode, shape, the attributes that change the value, constant values,
// the structure of called computations, and their operands — never by name. A module and
// a copy with every instruction and computation renamed have no differences.
//
// What it does:
// - Matches the entry computations, and through matched callers the computations they call
//   (while bodies and conditions, branches, reduce and sort computations, ...); a pair of
//   called computations that differ gets a section of its own.
// - Looks through fusions: the ops inside a fusion are matched with the same ops outside
//   one. A fusion that groups ops which ran on their own in A is one *added* fusion (its
//   ops are listed as moved into it, not as added or removed); a fusion of A whose ops run
//   on their own in B is one *removed* fusion; a matched fusion that fuses other ops, or has
//   another kind, is *changed*. Ops a fusion duplicates from outside it are copies, not
//   additions; a copy outside any fusion is reported (added, or removed when CSE merged it).
// - Swapped operands of a commutative op (add, multiply, maximum, minimum, and, or, xor)
//   are no difference; of any other op they are a change.
// - Lists, for each changed pair, what differs: shape, attributes (each `key=value`),
//   constant value, operands (by position, with both sides' names).
//
// What it does not do: compare names, metadata, backend configs, frontend attributes,
// statistics, schedules or instruction order; match computations nothing matched calls;
// prove two different graphs equivalent (an algebraic rewrite shows as removed and added
// instructions). Matching is heuristic beyond equal fingerprints: propagation through
// matched operands and users pairs what it can, the rest is added or removed.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/module.h"

namespace fusebox::analysis {

struct DiffOptions {
  // Compare shapes with their layouts (a missing layout reads as the default one).
  bool compare_layouts = true;
};

enum class ChangeKind { kAdded, kRemoved, kChanged };
std::string_view ChangeKindName(ChangeKind kind);  // "added", "removed", "changed"

struct InstructionChange {
  ChangeKind kind = ChangeKind::kChanged;
  const Instruction* a = nullptr;  // removed and changed
  const Instruction* b = nullptr;  // added and changed
  // Changed: what differs ("shape: f32[4]{0} -> f32[8]{0}", "operand 1: %x -> %y", ...).
  // Added or removed: notes ("inside fusion %f", "a copy of %x in a", "fuses %add, %mul of a").
  std::vector<std::string> details;
  // What sorting uses: measured or estimated (see SetCosts); unset when unknown.
  std::optional<double> cost;
};

// One pair of matched computations and their differences.
struct ComputationDiff {
  const Computation* a = nullptr;
  const Computation* b = nullptr;
  // For a called computation: the matched callers ("%while.3 / %while"); empty for entries.
  std::string called_by;
  std::vector<InstructionChange> changes;  // in b's order, then a's, until SetCosts sorts them
  int64_t matched = 0;                     // instructions of b with a counterpart in a
  // Of those, the ones equal to theirs, operands and all: equal fingerprints (the rest
  // were matched through their operands or users).
  int64_t identical = 0;
  int64_t moved_into_fusion = 0;    // ops of a that ran alone and are inside a fusion in b
  int64_t moved_out_of_fusion = 0;  // ops inside a fusion in a that run alone in b
  int64_t copies_in_fusions = 0;    // ops a fusion recomputes (duplicated producers)
};

struct ModuleDiff {
  const Module* a = nullptr;
  const Module* b = nullptr;
  std::vector<ComputationDiff> computations;  // the entries first, then called computations
  std::string sorted_by;  // how changes are ordered ("text order" until SetCosts)
  std::string cost_unit;  // "us" or "bytes"

  int64_t Count(ChangeKind kind) const;
  int64_t changes() const;  // added + removed + changed, over all computations
};

// The diff points into `a` and `b`: keep them alive while it is used.
ModuleDiff DiffModules(const Module& a, const Module& b, const DiffOptions& options = {});

// Cost of an instruction (kernel time in microseconds, bytes, ...), or unset when unknown.
using CostFunction = std::function<std::optional<double>(const Instruction&)>;

// Sets each change's cost (added: cost_b of b, removed: cost_a of a, changed: the larger)
// and sorts each computation's changes by cost, largest first (unknown last, then in
// their previous order).
void SetCosts(ModuleDiff* diff, const CostFunction& cost_a, const CostFunction& cost_b,
              const std::string& sorted_by, const std::string& unit);

// Bytes an instruction would read and write as a kernel of its own: its operands' array
// bytes plus its result's (whether it is a kernel at all is the caller's to say).
std::optional<double> EstimatedBytes(const Instruction& inst);

// A cost function from per-instruction kernel times in microseconds, looked up by name;
// an instruction inside a fused computation takes its top-level fusion's time.
CostFunction KernelTimeCost(std::function<std::optional<double>(const std::string&)> time_us);

// The readable report: counts, then each computation's changes with both sides' text.
std::string DiffToText(const ModuleDiff& diff, const std::string& name_a,
                       const std::string& name_b);
// The same as JSON (schema "fusebox.structural_diff/1"), indented by 2.
std::string DiffToJson(const ModuleDiff& diff, const std::string& name_a,
                       const std::string& name_b);

}  // namespace fusebox::analysis
