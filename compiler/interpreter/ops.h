// Internal interface between the interpreter core and the op-family evaluators. Each
// family function evaluates the opcodes it owns and returns Unimplemented for any other
// opcode (the core then tries the next family). Operands are already evaluated.
#pragma once

#include <span>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/ir/literal.h"
#include "compiler/support/status.h"

namespace fusebox::interpreter {

class Interpreter;

// What an evaluator may ask of the interpreter: run a called computation on scalars or
// literals (reduce's to_apply, sort's comparator, while bodies...), and draw random bits.
class EvalContext {
 public:
  explicit EvalContext(Interpreter* interpreter) : interpreter_(interpreter) {}
  StatusOr<Literal> Call(const Computation& computation, const std::vector<const Literal*>& args);
  // The same call, its result kept by the interpreter until the next call of the same
  // computation: reducers, comparators and combiners, called once per element or window
  // tap, then allocate nothing when they are computations of scalars (interpreter.h).
  StatusOr<const Literal*> CallInPlace(const Computation& computation,
                                       const std::vector<const Literal*>& args);
  uint64_t NextRandom();  // 64 random bits from the interpreter's seeded generator
  Status CheckCancelled() const;
  Interpreter* interpreter() const { return interpreter_; }

 private:
  Interpreter* interpreter_;
};

using Operands = std::span<const Literal* const>;

// Elementwise unary/binary/ternary ops, convert, bitcast-convert, compare, select, clamp,
// reduce-precision, is-finite, popcnt, clz, real/imag/complex, stochastic-convert.
StatusOr<Literal> EvalElementwise(const Instruction& inst, Operands operands, EvalContext& ctx);

// Whether EvalElementwise owns `op`, and the same evaluation into `result`, a literal
// already shaped like the instruction (the interpreter's programs of scalars reuse one per
// instruction across calls). Every element of `result` is written.
bool IsElementwiseOpcode(Opcode op);
Status EvalElementwiseInto(const Instruction& inst, Operands operands, Literal* result);

// broadcast, reshape, bitcast, transpose, slice, dynamic-slice, dynamic-update-slice,
// concatenate, pad, iota, reverse, copy, gather, scatter, sort, get-dimension-size,
// set-dimension-size, topk.
StatusOr<Literal> EvalDataMovement(const Instruction& inst, Operands operands, EvalContext& ctx);

// reduce, reduce-window, select-and-scatter, map, dot, convolution, and (where present)
// triangular-solve, cholesky, fft, batch-norm-*.
StatusOr<Literal> EvalReductionAndLinalg(const Instruction& inst, Operands operands,
                                         EvalContext& ctx);

// The error every family returns for an opcode it does not own.
inline Status NotMine() { return Unimplemented("__not_mine__"); }
inline bool IsNotMine(const Status& s) {
  return s.code() == StatusCode::kUnimplemented && s.message() == "__not_mine__";
}

}  // namespace fusebox::interpreter
