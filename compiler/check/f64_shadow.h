// The f64 shadow of a module: the same program with every floating type widened to f64
// (complex to c128), run by the interpreter next to the real one. Its result is the
// "exact" answer the numeric check measures rounding against (numeric_check.h).
//
// What widens and what does not:
//   * Every array shape with a floating element type (f64 stays), in every computation,
//     constants included; converts between floating types become f64 -> f64 (no
//     rounding: the shadow measures how far the program's own roundings take it).
//   * Ops whose meaning depends on the bits of their type keep their types, with
//     converts around them: bitcast-convert, reduce-precision, custom-call,
//     stochastic-convert, infeed/outfeed/send/recv, rng-bit-generator. A kept op with a
//     tuple of floats in or out makes the shadow unavailable (the reason says which).
//   * It does not change integer or pred values, layouts or attributes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::check {

// `shape` with floating element types widened (f16/bf16/f32/f8… -> f64, c64 -> c128).
Shape WidenToF64(const Shape& shape);

// `literal` with floating leaves widened to f64 / c128 (values exact).
Literal WidenLiteralToF64(const Literal& literal);

// The shadow module, or why there is none.
StatusOr<std::unique_ptr<Module>> MakeF64Shadow(const Module& module);

// Whether any instruction of `module` has a floating type narrower than f64 (or c64): a
// module with none (all f64, integers) is its own shadow.
bool WidensAnything(const Module& module);

// A copy of `module` in which each of XLA's cuBLAS and cuDNN custom calls
// (compiler/ir/library_calls.h) is a `call`, under the custom call's name, of the plain
// HLO it stands for (the computation the interpreter runs for it). The shadows then
// widen, measure and perturb its dot or convolution like any other, where a kept custom
// call returning a tuple would leave the module without a shadow. Null when the module
// has no library call; a call the description cannot express is an error naming it.
// The calls `keep` says stay calls: those the check's reference runs through LAPACK in
// the reference and its shadows (CheckOptions::interpreter.library_call: jax's LAPACK calls
// the CPU backend runs, IsCpuLapackCall, and the GPU solver calls LAPACK answers alike,
// IsLapackTwinGpuCall).
StatusOr<std::unique_ptr<Module>> OpenLibraryCalls(const Module& module,
                                                   const std::function<bool(const Instruction&)>& keep = nullptr);

// The magnitude module: a copy of `shadow` (MakeF64Shadow's result) in which every
// reduce and reduce-window whose reducer adds sums the absolute values of its terms.
// Where an output is (a scaled or shifted) sum, its value is the Σ|terms| that scales the
// rounding error of that sum in any order: at most (n - 1) · u · Σ|terms|, typically
// about sqrt(n) · u · Σ|terms| (u: the unit roundoff, n: the terms). Real dots and
// convolutions are left alone: the interpreter accumulates them in the element type, so
// its own error already measures theirs. A complex one becomes the same dot of its
// operands' moduli, Σ|z||w|, in both parts: its parts are differences of real sums that
// a backend may accumulate apart, where the interpreter's products cancel term by term.
StatusOr<std::unique_ptr<Module>> MakeMagnitudeShadow(const Module& shadow);

// The perturbed module: a copy of `shadow` in which every reduce and reduce-window that
// adds (in a floating type of `original`, the module `shadow` was made from) gets an error
// of the size an accumulation in another order can make: the sum plus s·√n·u·Σ|x|, with
// u the unit roundoff of the sum's type in `original`, n its terms, and s a random sign
// times a size in [0.5, 1) per element, drawn by `rng` (so the interpreter's rng seed
// picks the draw). Run next to the shadow, its distance from the shadow is how far sums
// in another order can move each output after everything downstream of them: a mean
// subtracted from values equal to it, scaled by rsqrt of a near-zero variance, moves
// by what the backend's own f32 sums move it. Refused for a module with rng ops of its
// own (their draws would shift).
StatusOr<std::unique_ptr<Module>> MakePerturbedShadow(const Module& shadow, const Module& original);

// The rounding of the module's own types, for the perturbed runs: each instruction of
// `perturbed` (a copy of the shadow of `original`) whose counterpart in `original` rounds
// its result to a floating type narrower than f64 (arithmetic, the real and complex
// functions, dots and convolutions, narrowing converts), with that type's unit roundoff
// and a key for its draws. Only in computations the interpreter runs as a whole (the
// entry, loop bodies and conditions, branches, calls, fusions): not in reducers,
// comparators or mapped computations applied per element (a sum's order is the sum
// perturbation's business).
//
// A Fourier transform's error is not relative to each output: a fast transform's outputs
// all carry about u·log2(L)·‖X‖/√L, ‖X‖ the norm of the transform's L outputs (by Parseval
// the norm of its input times √L), so an output the interpreter computes as exactly 0 can
// be 1e-7 of the line's size in a backend. `line` is L for an fft (the result's transformed
// dimensions), 0 for every other op.
struct RoundingUnit {
  double unit_roundoff = 0;
  uint64_t key = 0;
  int64_t line = 0;
};
std::unordered_map<const Instruction*, RoundingUnit> RoundingUnits(const Module& perturbed, const Module& original);

// Whether `module` has an op that turns a small change of a floating value into a jump:
// a float converted to an integer or pred, floor, ceil, rounding, sign, a compare of
// floats; or a Fourier transform, whose outputs that are 0 in exact arithmetic a singular
// function downstream may meet. Only then (or with sums) are the perturbed runs worth
// their cost.
bool HasRoundingSensitiveOps(const Module& module);

// Nudges every element of `result` (f64, or both parts of c128) as its own rounding
// could: x·(1 + d·s·u), with u `unit.unit_roundoff` and s a random sign times a size in
// [0.5, 1) drawn per element from `unit.key` and the element's index. `direction` (+1 or
// -1) flips every sign: two runs with opposite directions move each value both ways, so
// an integer that sits on a truncation boundary (x - max(x) + 7 computed as exactly -7 by
// the interpreter and as -6.9999995 by a backend whose exp is an ulp off) leaves the
// boundary in one of them. With `unit.line` (a Fourier transform), each element also moves
// by d·s·u·log2(L)·‖X‖/√L of its line of L elements, and one inside that band of zero is
// exactly zero in the run with `direction` -1 (a backend's transform of a symmetric input
// gives exact zeros where the interpreter's double sums leave 1e-17). Other element types
// are left alone.
void NudgeByRounding(Literal& result, const RoundingUnit& unit, double direction);

// For every array leaf of the entry's result (ForEachArrayLeaf order): the number of
// terms summed along its longest chain of reduce-adds and reduce-window adds, counting
// through called computations; 0 where it depends on no such sum.
std::vector<int64_t> SummedTermsPerOutput(const Module& module);

}  // namespace fusebox::check
