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
Literal RandomLiteral(const Shape& shape, uint64_t seed);

// One literal per entry parameter. Parameters used (directly or through simple
// converts/reshapes/broadcasts) as gather/scatter indices or dynamic-slice /
// dynamic-update-slice start indices get values in [0, bound) so they stay in range.
StatusOr<std::vector<Literal>> RandomArguments(const Module& module, uint64_t seed);

}  // namespace fusebox
