// Deterministic random inputs for a module's parameters, per element type and seed, with
// index-like operands (gather/scatter indices, dynamic-slice starts) kept in range so the
// module computes something meaningful.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox {

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
//   A leaf with several such uses takes the smallest bound; a bound below 1 becomes 1
// (all zeros). Bounds are also capped where the element type cannot hold every integer
// below them (s8: 128; bf16: 256). Pred and complex leaves are never bounded.
StatusOr<std::vector<Literal>> RandomArguments(const Module& module, uint64_t seed);

}  // namespace fusebox
