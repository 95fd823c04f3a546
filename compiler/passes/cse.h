// Common subexpression elimination: the "cse" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Within each computation, merges instructions that compute the same value into the
// first of them (in post order): same opcode, same shape including layout, the same
// operand instructions in the same order (either order for commutative binary ops), the
// same called computations, and equal attributes (compared as text, with metadata left
// out). Constants merge when their shapes and literal bits are equal. Walking in post
// order makes chains collapse in one sweep: once two operands merged, their users match.
//
// It never merges parameters, instructions with a side effect (rng included: two rng
// ops draw different numbers), instructions with control edges, token plumbing
// (after-all, add-dependency), optimization barriers, or constants whose values were
// elided from the text. It does not compare called computations structurally, so two
// fusions (each has its own fused computation) never merge, and it does not merge
// across computations.
class CommonSubexpressionElimination : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
