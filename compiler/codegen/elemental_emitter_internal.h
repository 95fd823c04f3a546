// Helpers the pieces of the elemental emitter share (elemental_emitter.cc and the
// elemental_*.cc files it is cut into). Internal to compiler/codegen.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/ir/primitive_type.h"
#include "compiler/ir/shape.h"

namespace fusebox::codegen::elemental {

// Row-major strides of `shape`'s dimensions, in elements.
inline std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  return strides;
}

// Narrow floats (f16, bf16, the f8 types and f4e2m1fn) live in float registers and are
// rounded back to their type after every operation, as the reference interpreter does.
inline bool IsNarrowFloat(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::kF32 && t != PrimitiveType::kF64;
}

}  // namespace fusebox::codegen::elemental
