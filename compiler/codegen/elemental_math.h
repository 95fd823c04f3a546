// Inline polynomial math for the elemental emitter: straight-line IR (no calls, selects
// instead of branches) that the loop vectorizer widens like any arithmetic. Internal to
// compiler/codegen; the accuracy of every function is stated in docs/cpu-backend.md and
// checked over all f32 inputs by tests/compiler/runtime/cpu_math_accuracy_test.cc.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "compiler/ir/opcode.h"

namespace fusebox::codegen {

// e^x for a float or double `x` (Cody-Waite reduction, Taylor polynomial, 2^k in the
// exponent bits; f32 and f64 within 1 ulp).
llvm::Value* EmitInlineExp(llvm::IRBuilder<>& b, llvm::Value* x);

// The f32 function `op` of the float `x` (and `y`, the second operand of a binary op:
// atan2(x, y), pow(x, y)) as inline IR that works in double and rounds once at the end,
// or nullptr for an op that has none. Covers tanh, erf, expm1, log1p, sin, cos, cbrt,
// atan2 and pow, with C's special cases (NaN, infinities, signed zeros, subnormals).
llvm::Value* EmitInlineF32Math(llvm::IRBuilder<>& b, Opcode op, llvm::Value* x,
                               llvm::Value* y = nullptr);

}  // namespace fusebox::codegen
