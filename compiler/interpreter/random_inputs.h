// Deterministic random inputs for a module's parameters, per element type and seed, with
// each parameter's distribution chosen from its uses so the module computes something
// meaningful: index-like operands (gather/scatter indices, dynamic-slice starts) kept in
// range, values that reach sqrt/rsqrt/log/pow/a divisor kept positive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::interpreter {

// A random literal of `shape`: floats uniform in [-1, 1) (complex: both parts), signed ints
// in [-8, 8), unsigned in [0, 16), pred fair coin; tuples element-wise. Same seed -> same
// bits on every machine.
//
// Details. Element i of an array draws the i-th output of a splitmix64 stream keyed by
// the seed (complex elements draw outputs 2i and 2i+1), so values depend only on (seed,
// element type, position) and never on the host. Tuple element k uses the stream of
// ParameterSeed(seed, k), recursively. Floats are generated as doubles and rounded to
// the element type, so a narrow type may also produce 1 (bf16 rounds 0.999 up).
// f8e8m0fnu, which has neither zero nor negatives, gets powers of two 2^k with k in
// [-4, 4]. Integer types narrower than the ranges above use their whole range (s2 gets
// [-2, 2), u2 [0, 4)).
Literal RandomLiteral(const Shape& shape, uint64_t seed);

// The seed RandomArguments uses for parameter `parameter_number` (and RandomLiteral for
// tuple element k): a mix of both, so parameters draw independent streams.
uint64_t ParameterSeed(uint64_t seed, int64_t parameter_number);

// One literal per entry parameter. Parameters used (directly or through simple
// converts/reshapes/broadcasts) as gather/scatter indices or dynamic-slice /
// dynamic-update-slice start indices get values in [0, bound) so they stay in range.
//
// Parameter p is RandomLiteral(its shape, ParameterSeed(seed, p)), except for index-like
// array leaves, which draw from the same stream but hold integers in [0, bound):
//   * A value reaches a use through get-tuple-element, tuple, convert, reshape, bitcast,
//     copy, broadcast, transpose, reverse, slice and concatenate, into fusions, calls,
//     while loops and conditional branches (as the called computation's parameter), and
//     out of them again (a called computation's root is the caller's value).
//   * gather start indices (operand 1): the operand's size minus the slice size, plus
//     one, along each dimension of start_index_map; the smallest of those.
//   * scatter indices: likewise along scatter_dims_to_operand_dims, with the update
//     window's size.
//   * dynamic-slice start k: operand dimension k minus the slice size plus one;
//     dynamic-update-slice start k: operand dimension k minus the update's size plus one.
//   * the branch index of a conditional (s32 form): the number of branches.
//   * a shift amount (operand 1 of shift-left / shift-right-*): the shift's bit width.
//   A leaf with several such uses takes the smallest bound; a bound below 1 becomes 1
// (all zeros). Bounds are also capped where the element type cannot hold every integer
// below them (s8: 128; bf16: 256). Pred and complex leaves are never bounded.
//
// Positive leaves. A real float leaf whose value reaches operand 0 of sqrt, rsqrt, log,
// log-plus-one or power (the base), the divisor of divide or remainder, or the variance of
// batch-norm-inference / batch-norm-grad, is uniform in [0.5, 1.5) instead (1 + u/2 for the
// stream's u in [-1, 1)), so that batch-norm variances, normalizers and the like stay
// finite. An integer leaf with such a use (an integer divisor, or one converted to a float
// that reaches a sqrt) holds integers in [1, 8) (narrower types: up to their largest
// value). The value reaches the use through what keeps positive operands positive: add,
// multiply, divide (the dividend), maximum, minimum, select (the two values), convert,
// reshape, bitcast, copy, broadcast, transpose, reverse, slice, concatenate, pad (operand
// 0), dynamic-slice (operand 0), dynamic-update-slice (operand and update), tuples and
// called computations as above; never through subtract, negate or anything else. An
// index-like bound wins over positivity; f8e8m0fnu is positive already; pred and
// complex leaves stay as they are.
StatusOr<std::vector<Literal>> RandomArguments(const Module& module, uint64_t seed);

// How RandomArguments fills one array leaf of an entry parameter, and why.
struct InputChoice {
  int64_t parameter_number = 0;
  std::string parameter_name;      // without the %
  std::vector<int64_t> leaf_path;  // the leaf's tuple index path; empty for an array parameter
  Shape shape;                     // the leaf's shape
  std::string distribution;        // "uniform [-1, 1)", "uniform [0.5, 1.5)", "integers in [0, 7)"
  std::string reason;              // "default", "reaches rsqrt (%rsqrt.12) through add (%add.11)"

  // "parameter 3 (%p.var, f32[64]): uniform [0.5, 1.5): reaches rsqrt (%rsqrt.12) through
  // add (%add.11)"; a tuple leaf reads "parameter 1 (%state{0,1}, s32[]): ...".
  std::string ToString() const;
};

// One InputChoice per array leaf of every entry parameter, in parameter order (tuple leaves
// in index order); they hold for every seed. Token leaves have none.
StatusOr<std::vector<InputChoice>> ExplainRandomArguments(const Module& module);

}  // namespace fusebox::interpreter
