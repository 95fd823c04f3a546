// What the printer shares with the rest of compiler/ir: the order it writes computations
// and instructions in (Module::Clone builds its copy in that order, as a module parsed
// from the printed text has it) and where each of them starts in the text.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ir/module.h"

namespace fusebox::ir_internal {

// Callees before callers, otherwise the stored order.
std::vector<const Computation*> ComputationsInPrintOrder(const Module& module);

// The stored order when it defines every operand before its users, else a post order.
// Elements printed as `%tuple#i` (PrintedAsTupleOperand) have no line and are left out.
std::vector<const Instruction*> InstructionsInPrintOrder(const Computation& computation);

// A get-tuple-element printed in its users' operand lists as `%tuple#i` (newer XLA's
// text), not as an instruction of its own: parsed from that form, and not a root.
bool PrintedAsTupleOperand(const Instruction& inst);

// Those elements in the order a parse of the printed text makes them (first use in print
// order), for Module::Clone to copy them as the parser would.
std::vector<const Instruction*> TupleOperandElements(const Computation& computation);

// Byte offsets into Module::ToString()'s text: where a computation's first line starts
// (at `ENTRY` or `%`) and where an instruction's `%name` starts (after `ROOT `).
struct PrintedOffsets {
  std::unordered_map<const Computation*, size_t> computations;
  std::unordered_map<const Instruction*, size_t> instructions;
};

// Module::ToString(), recording the offsets.
std::string PrintModule(const Module& module, PrintedOffsets* offsets);

}  // namespace fusebox::ir_internal
