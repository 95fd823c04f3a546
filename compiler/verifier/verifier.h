// The HLO verifier: structural checks (operand counts and types per opcode, called
// computations and their signatures, unique names, roots, cycles) and shape inference
// compared with the declared shapes. Every failure names the instruction, its
// computation and its source location.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox {

struct VerifierOptions {
  // Compare layouts too (XLA's default verifier ignores them; so do we by default).
  bool check_layouts = false;
  // Require instruction names to be unique across the whole module, as they are in a
  // module XLA has loaded (its parser renames clashes). Text from XLA's tests and tools
  // reuses names in different computations (`x`, `y` in every reducer) and XLA accepts
  // it, so by default a name need only be unique within its computation.
  bool module_unique_instruction_names = false;
  // Name of the file, for messages.
  std::string filename = "<module>";
};

struct VerifierIssue {
  enum class Severity { kError, kWarning };
  Severity severity = Severity::kError;
  const Instruction* instruction = nullptr;  // may be null (module/computation issue)
  // Full text: "file:line:col: in computation %comp, instruction %instr: ..." (the
  // line:col part is left out when the location is unknown).
  std::string message;
};

// Returns all problems found (errors and warnings), in module order.
std::vector<VerifierIssue> VerifyModule(const Module& module, const VerifierOptions& options = {});

// OK when there are no errors; otherwise an InvalidArgument status whose message
// lists the first errors (one per line).
Status Verify(const Module& module, const VerifierOptions& options = {});

}  // namespace fusebox
