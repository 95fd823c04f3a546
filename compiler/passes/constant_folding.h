// Constant folding: replaces each instruction whose operands are all constants by the
// constant the reference interpreter computes for it, in post order, so whole constant
// subgraphs collapse in one run.
//
// It does not fold: rng and other side-effecting or device-dependent ops; control flow
// and calls (while, conditional, call, fusion); broadcasts that expand their operand and
// iota (they would turn a scalar into a large literal, as XLA's folder also avoids);
// tuples and other non-array results; results above a size limit; instructions with
// elided constant operands (`{...}`) or control edges; and anything the interpreter
// cannot evaluate (skipped, not an error). Folded instructions are left for DCE; fused
// computations are not visited.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/ir/literal.h"
#include "compiler/passes/pass.h"

namespace fusebox::passes {

struct ConstantFoldingOptions {
  // Largest result, in elements, the pass folds into a literal.
  int64_t max_elements = int64_t{1} << 20;
};

// Evaluates `instruction` with the interpreter on its operands, which must all be
// constants with known values (error otherwise, or when the interpreter fails).
StatusOr<Literal> EvaluateOnConstantOperands(const Instruction& instruction);

// Adds a constant holding `value` next to `replaced` (same shape including layout, a
// Module::UniqueName("constant") name, `replaced`'s metadata) and redirects every use of
// `replaced` to it. `value` must have `replaced`'s element type and dimensions.
Instruction* ReplaceWithConstant(Instruction* replaced, const Literal& value);

class ConstantFolding : public Pass {
 public:
  explicit ConstantFolding(ConstantFoldingOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "constant-folding"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  ConstantFoldingOptions options_;
};

}  // namespace fusebox::passes
