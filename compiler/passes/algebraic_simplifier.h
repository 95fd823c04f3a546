// The algebraic simplifier: small local rewrites that keep every result bit-for-bit (up
// to the sign of a float zero, as XLA's simplifier also allows), applied to a fixed point
// in each non-fused computation.
//
// Rewrites: identities (x+0, 0+x, x-0, x*1, 1*x, x/1; x*0 -> 0 for integers only, since
// NaN*0 and inf*0 are NaN), and/or with a constant true/false, select with a constant
// predicate or equal branches, negate(negate(x)), not(not(x)), power(x, 2) -> x*x,
// division by a constant power of two -> multiplication by its exact reciprocal (floats);
// chains broadcast(broadcast), reshape(reshape), transpose(transpose), copy(copy); no-ops:
// reshape/convert/copy to the same shape, identity transpose and broadcast, whole-operand
// slice, single-operand concatenate, zero padding, reduce over no dimensions with the
// reducer's identity as init; dynamic-slice with constant starts -> slice (starts
// clamped as XLA clamps them); elementwise ops on scalar constants -> a constant.
//
// It never removes instructions: what it makes dead is left for DCE. An instruction is
// replaced by an existing one only when the shapes are equal including layout; new
// instructions take the replaced one's shape, metadata and a Module::UniqueName name.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

struct AlgebraicSimplifierOptions {
  // Sweeps over a computation before giving up on reaching a fixed point.
  int64_t max_iterations = 64;
};

class AlgebraicSimplifier : public Pass {
 public:
  explicit AlgebraicSimplifier(AlgebraicSimplifierOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "algsimp"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  AlgebraicSimplifierOptions options_;
};

}  // namespace fusebox::passes
