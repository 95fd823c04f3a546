// Names, widths and classes of element types.
#include "compiler/ir/primitive_type.h"

#include <array>

namespace fusebox {

namespace {
struct TypeInfo {
  PrimitiveType type;
  std::string_view name;
  int bits;
  char kind;
};

constexpr TypeInfo kTypes[] = {
#define FUSEBOX_PT_INFO(e, name, bits, kind) {PrimitiveType::e, name, bits, kind},
    FUSEBOX_PRIMITIVE_TYPES(FUSEBOX_PT_INFO)
#undef FUSEBOX_PT_INFO
};

const TypeInfo& Info(PrimitiveType type) { return kTypes[static_cast<int>(type)]; }
}  // namespace

std::string_view PrimitiveTypeName(PrimitiveType type) { return Info(type).name; }

std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.name == name) return info.type;
  }
  return std::nullopt;
}

int BitWidth(PrimitiveType type) { return Info(type).bits; }
int ByteWidth(PrimitiveType type) {
  int bits = Info(type).bits;
  return bits == 0 ? 0 : (bits + 7) / 8;
}

bool IsPred(PrimitiveType type) { return type == PrimitiveType::kPred; }
bool IsSignedInt(PrimitiveType type) { return Info(type).kind == 's'; }
bool IsUnsignedInt(PrimitiveType type) { return Info(type).kind == 'u'; }
bool IsInteger(PrimitiveType type) { return IsSignedInt(type) || IsUnsignedInt(type); }
bool IsFloat(PrimitiveType type) { return Info(type).kind == 'f'; }
bool IsComplex(PrimitiveType type) { return Info(type).kind == 'c'; }
bool IsArrayType(PrimitiveType type) { return Info(type).kind != 'o'; }

bool OrdersAsBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3B11FNUZ:
      return false;
    default:
      return IsPred(type) || IsInteger(type) || IsFloat(type);
  }
}

int ExponentBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16: return 5;
    case PrimitiveType::kBF16: return 8;
    case PrimitiveType::kF32: return 8;
    case PrimitiveType::kF64: return 11;
    case PrimitiveType::kF8E5M2: return 5;
    case PrimitiveType::kF8E4M3: return 4;
    case PrimitiveType::kF8E4M3FN: return 4;
    case PrimitiveType::kF8E4M3B11FNUZ: return 4;
    case PrimitiveType::kF8E5M2FNUZ: return 5;
    case PrimitiveType::kF8E4M3FNUZ: return 4;
    case PrimitiveType::kF8E3M4: return 3;
    case PrimitiveType::kF8E8M0FNU: return 8;
    case PrimitiveType::kF4E2M1FN: return 2;
    default: return 0;
  }
}

int MantissaBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF16: return 10;
    case PrimitiveType::kBF16: return 7;
    case PrimitiveType::kF32: return 23;
    case PrimitiveType::kF64: return 52;
    case PrimitiveType::kF8E5M2: return 2;
    case PrimitiveType::kF8E4M3: return 3;
    case PrimitiveType::kF8E4M3FN: return 3;
    case PrimitiveType::kF8E4M3B11FNUZ: return 3;
    case PrimitiveType::kF8E5M2FNUZ: return 2;
    case PrimitiveType::kF8E4M3FNUZ: return 3;
    case PrimitiveType::kF8E3M4: return 4;
    case PrimitiveType::kF8E8M0FNU: return 0;
    case PrimitiveType::kF4E2M1FN: return 1;
    default: return 0;
  }
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  return type == PrimitiveType::kC128 ? PrimitiveType::kF64 : PrimitiveType::kF32;
}

}  // namespace fusebox
