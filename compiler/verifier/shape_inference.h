// Shape inference: the result shape XLA's semantics give each opcode from its operand
// shapes and attributes. Used by the verifier, by passes that build new instructions,
// and by tests. Layouts are not inferred (results have none).
#pragma once

#include <vector>

#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox {

// Infers the shape of `instruction` from its operands, attributes and called
// computations. Returns:
//  - the inferred shape when the opcode's result is determined by its inputs;
//  - std::nullopt-like Unimplemented status for opcodes whose result shape is free
//    (parameter, constant's literal aside, custom-call, infeed, rng-bit-generator's state,
//    ...), which callers treat as "accept the declared shape";
//  - InvalidArgument with a message when operands and attributes are inconsistent.
StatusOr<Shape> InferShape(const Instruction& instruction);

// True when `a` and `b` have the same element types and dimensions, ignoring layouts
// and dynamic-dimension flags (a bounded `<=4` agrees with a static 4; an unbounded `?`
// agrees with any size). Tuples compare element by element. This is the equality the
// verifier uses for declared vs inferred shapes.
bool ShapesAgree(const Shape& a, const Shape& b);

}  // namespace fusebox
