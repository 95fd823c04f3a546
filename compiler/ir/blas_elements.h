// The element types NVIDIA's BLAS and solver routines take, and element access for the
// library plans' host runs (trsm_plan.cc, solver_plan.cc): every element read and
// written as a std::complex<double>.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "compiler/ir/primitive_type.h"

namespace fusebox {

// f32, f64, c64, c128 as 0, 1, 2, 3 (the routines' S, D, C, Z); -1 for other types.
inline int BlasTypeIndex(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF32: return 0;
    case PrimitiveType::kF64: return 1;
    case PrimitiveType::kC64: return 2;
    case PrimitiveType::kC128: return 3;
    default: return -1;
  }
}

// "S", "D", "C", "Z" ("?" for other types).
inline const char* BlasTypeLetter(PrimitiveType type) {
  static const char* kLetters[] = {"S", "D", "C", "Z"};
  const int index = BlasTypeIndex(type);
  return index < 0 ? "?" : kLetters[index];
}

// Bytes of one element of a routine's type (0 for other types).
inline int64_t BlasElementBytes(PrimitiveType type) {
  static const int64_t kBytes[] = {4, 8, 8, 16};
  const int index = BlasTypeIndex(type);
  return index < 0 ? 0 : kBytes[index];
}

using HostComplex = std::complex<double>;

template <typename T>
HostComplex HostLoad(const T* p, int64_t i) {
  return HostComplex(p[i]);
}

template <typename T>
void HostStore(T* p, int64_t i, HostComplex v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    p[i] = static_cast<T>(v.real());
  } else {
    p[i] = T(v);
  }
}

}  // namespace fusebox
