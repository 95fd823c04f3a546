// Element types of HLO shapes: every type XLA's text format knows, with sizes and
// classification helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fusebox {

// X(enum, text name, bit width, kind) ; kind: 'p' pred, 's' signed, 'u' unsigned,
// 'f' float, 'c' complex, 'o' other (no array storage).
#define FUSEBOX_PRIMITIVE_TYPES(X)   \
  X(kPred, "pred", 8, 'p')           \
  X(kS1, "s1", 1, 's')               \
  X(kS2, "s2", 2, 's')               \
  X(kS4, "s4", 4, 's')               \
  X(kS8, "s8", 8, 's')               \
  X(kS16, "s16", 16, 's')            \
  X(kS32, "s32", 32, 's')            \
  X(kS64, "s64", 64, 's')            \
  X(kU1, "u1", 1, 'u')               \
  X(kU2, "u2", 2, 'u')               \
  X(kU4, "u4", 4, 'u')               \
  X(kU8, "u8", 8, 'u')               \
  X(kU16, "u16", 16, 'u')            \
  X(kU32, "u32", 32, 'u')            \
  X(kU64, "u64", 64, 'u')            \
  X(kF16, "f16", 16, 'f')            \
  X(kBF16, "bf16", 16, 'f')          \
  X(kF32, "f32", 32, 'f')            \
  X(kF64, "f64", 64, 'f')            \
  X(kF8E5M2, "f8e5m2", 8, 'f')       \
  X(kF8E4M3, "f8e4m3", 8, 'f')       \
  X(kF8E4M3FN, "f8e4m3fn", 8, 'f')   \
  X(kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, 'f') \
  X(kF8E5M2FNUZ, "f8e5m2fnuz", 8, 'f') \
  X(kF8E4M3FNUZ, "f8e4m3fnuz", 8, 'f') \
  X(kF8E3M4, "f8e3m4", 8, 'f')       \
  X(kF8E8M0FNU, "f8e8m0fnu", 8, 'f') \
  X(kF4E2M1FN, "f4e2m1fn", 4, 'f')   \
  X(kC64, "c64", 64, 'c')            \
  X(kC128, "c128", 128, 'c')         \
  X(kToken, "token", 0, 'o')         \
  X(kOpaque, "opaque", 0, 'o')       \
  X(kTuple, "tuple", 0, 'o')

enum class PrimitiveType : uint8_t {
#define FUSEBOX_PT_ENUM(e, name, bits, kind) e,
  FUSEBOX_PRIMITIVE_TYPES(FUSEBOX_PT_ENUM)
#undef FUSEBOX_PT_ENUM
};

std::string_view PrimitiveTypeName(PrimitiveType type);
std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name);

// Bits of one element as XLA counts them (pred is 8, s4 is 4, c64 is 64).
int BitWidth(PrimitiveType type);
// Bytes one element occupies in memory when unpacked (sub-byte types take a byte).
int ByteWidth(PrimitiveType type);

bool IsPred(PrimitiveType type);
bool IsSignedInt(PrimitiveType type);
bool IsUnsignedInt(PrimitiveType type);
bool IsInteger(PrimitiveType type);  // signed or unsigned, not pred
bool IsFloat(PrimitiveType type);    // real floating point, including f8/f4
bool IsComplex(PrimitiveType type);
bool IsArrayType(PrimitiveType type);  // anything that can be an array element
// Whether the type's bits give XLA's total order of its values with a fixed map (as
// topk orders them): pred and integers, and floats with a sign bit and a negative zero
// (negative values' other bits flipped). Not complex numbers, nor f8e8m0fnu (no sign) and
// the fnuz types (the negative zero's encoding is their NaN).
bool OrdersAsBits(PrimitiveType type);

// Float layout: exponent and mantissa bits (without the implicit bit) for real floats.
int ExponentBits(PrimitiveType type);
int MantissaBits(PrimitiveType type);
// The real component type of a complex type (c64 -> f32).
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace fusebox
