// Literal storage, element access, float codecs and XLA-style printing.
//
// Float formats. Every narrow float type (f16, bf16 and the f8/f4 types) goes
// through one minifloat codec described by `MiniFloat`; f32 and f64 are bit casts.
// The rules follow ml_dtypes, which XLA's evaluator uses:
//   * Encoding rounds the exact double to nearest, ties to even significand, with
//     gradual underflow to subnormals.
//   * Too large (after rounding) or infinite inputs: +-inf for types with inf;
//     NaN for the fn / fnuz types (f8e4m3fn gives S.1111.111 keeping the sign,
//     fnuz types give 0x80); f8e8m0fnu gives its NaN 0xFF; f4e2m1fn saturates to
//     +-6.
//   * NaN inputs: the type's quiet NaN (IEEE types: exponent all ones, top mantissa
//     bit set, sign kept; f8e4m3fn 0x7F/0xFF; fnuz 0x80; f8e8m0fnu 0xFF). f4e2m1fn
//     has no NaN; like ml_dtypes we return its `quiet_NaN()` bit pattern, 0x8 (-0),
//     with ml_dtypes' sign flip for -NaN (0x0).
//   * fnuz types have no -0: -0 and negative underflow give +0.
//   * f8e8m0fnu (unsigned powers of two): zero, negatives, inf and NaN all give
//     NaN (0xFF); positive values below 2^-127 give 2^-127 (0x00); ties between
//     powers of two round up (the significand 1 is odd), as in ml_dtypes.
// Decoding is exact. The fnuz NaN (0x80) decodes as +NaN; other NaNs keep their sign.
#include "compiler/ir/literal.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/support/strings.h"

namespace fusebox {

namespace {

// How a narrow float format spends its special encodings.
enum class NanStyle : uint8_t {
  kIeee,      // exponent all ones: mantissa 0 is inf, anything else NaN
  kAllOnes,   // only S.1...1.1...1 is NaN; no inf (f8e4m3fn)
  kNegZero,   // only 1.0...0 is NaN; no inf, no -0 (fnuz)
  kUnsigned,  // unsigned, exponent only, all ones is NaN, no zero (f8e8m0fnu)
  kNone,      // no inf, no NaN (f4e2m1fn)
};

struct MiniFloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  NanStyle nan_style;

  bool is_signed() const { return nan_style != NanStyle::kUnsigned; }
  bool has_subnormals() const { return nan_style != NanStyle::kUnsigned; }
  int magnitude_bits() const { return exponent_bits + mantissa_bits; }
  uint64_t sign_bit() const { return is_signed() ? uint64_t{1} << magnitude_bits() : 0; }
  uint64_t mantissa_mask() const { return (uint64_t{1} << mantissa_bits) - 1; }
  uint64_t exponent_all_ones() const { return (uint64_t{1} << exponent_bits) - 1; }
  // Largest finite magnitude encoding.
  uint64_t max_finite() const {
    uint64_t all = (uint64_t{1} << magnitude_bits()) - 1;
    switch (nan_style) {
      case NanStyle::kIeee:
        return (exponent_all_ones() << mantissa_bits) - 1;
      case NanStyle::kAllOnes:
      case NanStyle::kUnsigned:
        return all - 1;
      case NanStyle::kNegZero:
      case NanStyle::kNone:
        return all;
    }
    return all;
  }
};

bool GetMiniFloat(PrimitiveType type, MiniFloat* out) {
  switch (type) {
    case PrimitiveType::kF16: *out = {5, 10, 15, NanStyle::kIeee}; return true;
    case PrimitiveType::kBF16: *out = {8, 7, 127, NanStyle::kIeee}; return true;
    case PrimitiveType::kF8E5M2: *out = {5, 2, 15, NanStyle::kIeee}; return true;
    case PrimitiveType::kF8E4M3: *out = {4, 3, 7, NanStyle::kIeee}; return true;
    case PrimitiveType::kF8E3M4: *out = {3, 4, 3, NanStyle::kIeee}; return true;
    case PrimitiveType::kF8E4M3FN: *out = {4, 3, 7, NanStyle::kAllOnes}; return true;
    case PrimitiveType::kF8E4M3FNUZ: *out = {4, 3, 8, NanStyle::kNegZero}; return true;
    case PrimitiveType::kF8E5M2FNUZ: *out = {5, 2, 16, NanStyle::kNegZero}; return true;
    case PrimitiveType::kF8E4M3B11FNUZ: *out = {4, 3, 11, NanStyle::kNegZero}; return true;
    case PrimitiveType::kF8E8M0FNU: *out = {8, 0, 127, NanStyle::kUnsigned}; return true;
    case PrimitiveType::kF4E2M1FN: *out = {2, 1, 1, NanStyle::kNone}; return true;
    default: return false;
  }
}

double MiniFloatToDouble(const MiniFloat& f, uint64_t bits) {
  const uint64_t magnitude = bits & ((uint64_t{1} << f.magnitude_bits()) - 1);
  const bool negative = (bits & f.sign_bit()) != 0;
  const uint64_t exponent = magnitude >> f.mantissa_bits;
  const uint64_t mantissa = magnitude & f.mantissa_mask();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.nan_style) {
    case NanStyle::kIeee:
      if (exponent == f.exponent_all_ones()) {
        if (mantissa == 0) {
          return negative ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
        }
        return negative ? -nan : nan;
      }
      break;
    case NanStyle::kAllOnes:
      if (magnitude == (uint64_t{1} << f.magnitude_bits()) - 1) return negative ? -nan : nan;
      break;
    case NanStyle::kNegZero:
      if (negative && magnitude == 0) return nan;
      break;
    case NanStyle::kUnsigned:
      if (magnitude == (uint64_t{1} << f.magnitude_bits()) - 1) return nan;
      break;
    case NanStyle::kNone:
      break;
  }
  double value;
  if (exponent == 0 && f.has_subnormals()) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    double significand = static_cast<double>((uint64_t{1} << f.mantissa_bits) | mantissa);
    value = std::ldexp(significand, static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  }
  return negative ? -value : value;
}

// The encoding for a value too large for the format (or an infinity), by sign.
uint64_t OverflowBits(const MiniFloat& f, bool negative) {
  const uint64_t sign = negative ? f.sign_bit() : 0;
  switch (f.nan_style) {
    case NanStyle::kIeee:
      return sign | (f.exponent_all_ones() << f.mantissa_bits);
    case NanStyle::kAllOnes:
      return sign | ((uint64_t{1} << f.magnitude_bits()) - 1);
    case NanStyle::kNegZero:
      return f.sign_bit();
    case NanStyle::kUnsigned:
      return (uint64_t{1} << f.magnitude_bits()) - 1;
    case NanStyle::kNone:
      return sign | f.max_finite();
  }
  return 0;
}

uint64_t NanBits(const MiniFloat& f, bool negative) {
  const uint64_t sign = negative ? f.sign_bit() : 0;
  switch (f.nan_style) {
    case NanStyle::kIeee:
      return sign | (f.exponent_all_ones() << f.mantissa_bits) |
             (uint64_t{1} << (f.mantissa_bits - 1));
    case NanStyle::kAllOnes:
      return sign | ((uint64_t{1} << f.magnitude_bits()) - 1);
    case NanStyle::kNegZero:
      return f.sign_bit();
    case NanStyle::kUnsigned:
      return (uint64_t{1} << f.magnitude_bits()) - 1;
    case NanStyle::kNone:
      // ml_dtypes' quiet_NaN() is the -0 pattern; negating it flips the sign bit.
      return negative ? 0 : f.sign_bit();
  }
  return 0;
}

// Rounds a non-negative double (an exact multiple of a power of two, below 2^53) to
// the nearest integer, ties to even.
double RoundHalfEven(double x) {
  double floor = std::floor(x);
  double diff = x - floor;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(floor, 2.0) != 0.0)) floor += 1.0;
  return floor;
}

uint64_t DoubleToMiniFloat(const MiniFloat& f, double value) {
  const bool negative = std::signbit(value);
  if (std::isnan(value)) return NanBits(f, negative);
  if (!f.is_signed() && (negative || value == 0.0)) return NanBits(f, false);
  if (std::isinf(value)) return OverflowBits(f, negative);
  const double magnitude = std::fabs(value);
  const uint64_t sign = negative ? f.sign_bit() : 0;

  int64_t bits;
  if (magnitude == 0.0) {
    bits = 0;
  } else {
    int exp2;
    std::frexp(magnitude, &exp2);  // magnitude = m * 2^exp2, m in [0.5, 1)
    const int unbiased = exp2 - 1;
    const int biased = unbiased + f.bias;
    const int min_normal_biased = f.has_subnormals() ? 1 : 0;
    if (biased < min_normal_biased) {
      if (!f.has_subnormals()) {
        bits = 0;  // No zero: the smallest value is the closest.
      } else {
        // Subnormal range: count units of the smallest subnormal.
        const int quantum = 1 - f.bias - f.mantissa_bits;
        bits = static_cast<int64_t>(RoundHalfEven(std::ldexp(magnitude, -quantum)));
      }
    } else {
      // Significand with its implicit bit, in [2^M, 2^(M+1)] after rounding; a carry
      // to 2^(M+1) moves into the exponent field through the addition.
      const int64_t significand = static_cast<int64_t>(
          RoundHalfEven(std::ldexp(magnitude, f.mantissa_bits - unbiased)));
      bits = (static_cast<int64_t>(biased) - 1) * (int64_t{1} << f.mantissa_bits) + significand;
    }
  }
  if (bits > static_cast<int64_t>(f.max_finite())) return OverflowBits(f, negative);
  if (bits == 0 && f.nan_style == NanStyle::kNegZero) return 0;
  return sign | static_cast<uint64_t>(bits);
}

// Converts an integer magnitude to double rounding to odd, so that a second rounding
// to any format of at most 51 significand bits is correctly rounded.
double UintToDoubleRoundToOdd(uint64_t magnitude) {
  if (magnitude < (uint64_t{1} << 53)) return static_cast<double>(magnitude);
  const int shift = std::bit_width(magnitude) - 53;
  uint64_t kept = magnitude >> shift;
  if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
  return std::ldexp(static_cast<double>(kept), shift);
}

// Encodes an integer (magnitude and sign) in real float type `type`.
uint64_t IntegerToFloatBits(PrimitiveType type, uint64_t magnitude, bool negative) {
  if (type == PrimitiveType::kF64) {
    double value = static_cast<double>(magnitude);
    return std::bit_cast<uint64_t>(negative ? -value : value);
  }
  double value = UintToDoubleRoundToOdd(magnitude);
  return DoubleToFloatBits(type, negative ? -value : value);
}

// Truncates toward zero and saturates to [lo, hi]; NaN gives 0.
int64_t DoubleToInt64Saturating(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 0x1p63) return std::numeric_limits<int64_t>::max();
  if (value <= -0x1p63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

uint64_t DoubleToUint64Saturating(double value) {
  if (std::isnan(value) || value <= 0.0) return 0;
  if (value >= 0x1p64) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(value);
}

uint64_t WidthMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

int64_t SignExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  bits &= WidthMask(width);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

// Text for a narrow float that reads back (through double) to the same encoding of
// `type`: the decimal with the fewest significant digits that does, unless the exact
// value's text is at most one character longer. So f16 0.1 prints `0.1` (not
// `0.0999755859375`) while f8e4m3fn 448 prints `448` (not `450`), f8e5m2 96 prints
// `96` (not `100`) and f8e8m0fnu 0.25 prints `0.25` (not `0.2`).
std::string FormatNarrowFloat(PrimitiveType type, uint64_t bits) {
  const double value = FloatBitsToDouble(type, bits);
  std::string exact = FormatDouble(value);
  if (!std::isfinite(value)) return exact;
  const uint64_t target = DoubleToFloatBits(type, value);
  for (int digits = 1; digits <= 17; ++digits) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific,
                             digits - 1);
    double parsed = 0;
    std::from_chars(buf, res.ptr, parsed);
    if (DoubleToFloatBits(type, parsed) == target) {
      std::string shortest = FormatDouble(parsed);
      return exact.size() <= shortest.size() + 1 ? exact : shortest;
    }
  }
  return exact;
}

std::string FormatRealBits(PrimitiveType type, uint64_t bits) {
  switch (type) {
    case PrimitiveType::kF32:
      return FormatFloat(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case PrimitiveType::kF64:
      return FormatDouble(std::bit_cast<double>(bits));
    default:
      return FormatNarrowFloat(type, bits);
  }
}

}  // namespace

double FloatBitsToDouble(PrimitiveType type, uint64_t bits) {
  if (type == PrimitiveType::kF32) {
    return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  }
  if (type == PrimitiveType::kF64) return std::bit_cast<double>(bits);
  MiniFloat f;
  if (!GetMiniFloat(type, &f)) return 0.0;
  return MiniFloatToDouble(f, bits);
}

uint64_t DoubleToFloatBits(PrimitiveType type, double value) {
  if (type == PrimitiveType::kF32) {
    return std::bit_cast<uint32_t>(static_cast<float>(value));
  }
  if (type == PrimitiveType::kF64) return std::bit_cast<uint64_t>(value);
  MiniFloat f;
  if (!GetMiniFloat(type, &f)) return 0;
  return DoubleToMiniFloat(f, value);
}

// ---------------------------------------------------------------------------
// Literal

Literal::Literal(const Shape& shape) : Literal(shape, /*zeroed=*/true) {}

Literal Literal::CreateUninitialized(const Shape& shape) { return Literal(shape, /*zeroed=*/false); }

Literal::Literal(const Shape& shape, bool zeroed) : shape_(shape) {
  if (shape.IsTuple()) {
    tuple_elements_.reserve(shape.tuple_shapes().size());
    for (const Shape& element : shape.tuple_shapes()) tuple_elements_.push_back(Literal(element, zeroed));
    return;
  }
  if (!shape.IsArray()) return;  // token, opaque: no data
  const int bits = BitWidth(shape.element_type());
  slot_bytes_ = bits < 8 ? 1 : bits / 8;
  const int64_t count = shape.ElementCount();
  // Unbounded dynamic dimensions or sizes beyond int64 get no storage.
  if (count < 0 || count > std::numeric_limits<int64_t>::max() / slot_bytes_) return;
  element_count_ = count;
  if (zeroed) {
    data_.assign(static_cast<size_t>(count * slot_bytes_), 0);
  } else {
    data_.resize(static_cast<size_t>(count * slot_bytes_));  // default-initialized bytes
  }
}

// Raw element bits. Slots of 1, 2, 4 or 8 bytes hold one native integer; c128 slots
// (16 bytes) expose their first 8 bytes (the real part) here.
uint64_t Literal::GetBits(int64_t index) const {
  assert(index >= 0 && index < element_count_);
  const uint8_t* p = data_.data() + index * slot_bytes_;
  switch (slot_bytes_) {
    case 1: return *p;
    case 2: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

void Literal::SetBits(int64_t index, uint64_t bits) {
  assert(index >= 0 && index < element_count_);
  uint8_t* p = data_.data() + index * slot_bytes_;
  const int width = BitWidth(shape_.element_type());
  if (width < 64) bits &= WidthMask(width);
  switch (slot_bytes_) {
    case 1: *p = static_cast<uint8_t>(bits); break;
    case 2: { uint16_t v = static_cast<uint16_t>(bits); std::memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = static_cast<uint32_t>(bits); std::memcpy(p, &v, 4); break; }
    default: std::memcpy(p, &bits, 8); break;
  }
}

std::complex<double> Literal::GetComplex(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (type == PrimitiveType::kC64) {
    float re, im;
    std::memcpy(&re, data_.data() + index * slot_bytes_, 4);
    std::memcpy(&im, data_.data() + index * slot_bytes_ + 4, 4);
    return {re, im};
  }
  if (type == PrimitiveType::kC128) {
    double re, im;
    std::memcpy(&re, data_.data() + index * slot_bytes_, 8);
    std::memcpy(&im, data_.data() + index * slot_bytes_ + 8, 8);
    return {re, im};
  }
  return {GetDouble(index), 0.0};
}

void Literal::SetComplex(int64_t index, std::complex<double> value) {
  assert(index >= 0 && index < element_count_);
  const PrimitiveType type = shape_.element_type();
  uint8_t* p = data_.data() + index * slot_bytes_;
  if (type == PrimitiveType::kC64) {
    const float re = static_cast<float>(value.real());
    const float im = static_cast<float>(value.imag());
    std::memcpy(p, &re, 4);
    std::memcpy(p + 4, &im, 4);
    return;
  }
  if (type == PrimitiveType::kC128) {
    const double re = value.real();
    const double im = value.imag();
    std::memcpy(p, &re, 8);
    std::memcpy(p + 8, &im, 8);
    return;
  }
  SetDouble(index, value.real());  // real types drop the imaginary part
}

double Literal::GetDouble(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) return GetBits(index) != 0 ? 1.0 : 0.0;
  if (IsSignedInt(type)) return static_cast<double>(GetInt64(index));
  if (IsUnsignedInt(type)) return static_cast<double>(GetBits(index));
  if (IsFloat(type)) return FloatBitsToDouble(type, GetBits(index));
  if (IsComplex(type)) return GetComplex(index).real();
  return 0.0;
}

int64_t Literal::GetInt64(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) return GetBits(index) != 0 ? 1 : 0;
  if (IsSignedInt(type)) return SignExtend(GetBits(index), BitWidth(type));
  if (IsUnsignedInt(type)) return static_cast<int64_t>(GetBits(index));
  return DoubleToInt64Saturating(GetDouble(index));
}

uint64_t Literal::GetUint64(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) return GetBits(index) != 0 ? 1 : 0;
  if (IsSignedInt(type)) return static_cast<uint64_t>(GetInt64(index));
  if (IsUnsignedInt(type)) return GetBits(index);
  return DoubleToUint64Saturating(GetDouble(index));
}

bool Literal::GetBool(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type) || IsInteger(type)) return GetBits(index) != 0;
  if (IsComplex(type)) return GetComplex(index) != std::complex<double>(0.0, 0.0);
  return GetDouble(index) != 0.0;  // NaN counts as non-zero
}

void Literal::SetDouble(int64_t index, double value) {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) {
    SetBits(index, value != 0.0 ? 1 : 0);
  } else if (IsSignedInt(type)) {
    // Truncate toward zero, saturate to the type's range, NaN -> 0 (as XLA converts).
    const int width = BitWidth(type);
    const double limit = std::ldexp(1.0, width - 1);
    int64_t v;
    if (std::isnan(value)) {
      v = 0;
    } else if (value >= limit) {
      v = static_cast<int64_t>(WidthMask(width - 1));
    } else if (value <= -limit) {
      v = width >= 64 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(limit);
    } else {
      v = static_cast<int64_t>(value);
    }
    SetBits(index, static_cast<uint64_t>(v));
  } else if (IsUnsignedInt(type)) {
    const int width = BitWidth(type);
    uint64_t v;
    if (std::isnan(value) || value <= 0.0) {
      v = 0;
    } else if (value >= std::ldexp(1.0, width)) {
      v = WidthMask(width);
    } else {
      v = static_cast<uint64_t>(value);
    }
    SetBits(index, v);
  } else if (IsFloat(type)) {
    SetBits(index, DoubleToFloatBits(type, value));
  } else if (IsComplex(type)) {
    SetComplex(index, {value, 0.0});
  }
}

void Literal::SetInt64(int64_t index, int64_t value) {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) {
    SetBits(index, value != 0 ? 1 : 0);
  } else if (IsInteger(type)) {
    SetBits(index, static_cast<uint64_t>(value));
  } else {
    const bool negative = value < 0;
    const uint64_t magnitude =
        negative ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    if (IsFloat(type)) {
      SetBits(index, IntegerToFloatBits(type, magnitude, negative));
    } else if (IsComplex(type)) {
      const PrimitiveType component = ComplexComponentType(type);
      const double re = FloatBitsToDouble(component, IntegerToFloatBits(component, magnitude,
                                                                        negative));
      SetComplex(index, {re, 0.0});
    }
  }
}

void Literal::SetUint64(int64_t index, uint64_t value) {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) {
    SetBits(index, value != 0 ? 1 : 0);
  } else if (IsInteger(type)) {
    SetBits(index, value);
  } else if (IsFloat(type)) {
    SetBits(index, IntegerToFloatBits(type, value, false));
  } else if (IsComplex(type)) {
    const PrimitiveType component = ComplexComponentType(type);
    SetComplex(index,
               {FloatBitsToDouble(component, IntegerToFloatBits(component, value, false)), 0.0});
  }
}

void Literal::SetBool(int64_t index, bool value) { SetInt64(index, value ? 1 : 0); }

std::string Literal::ElementToString(int64_t index) const {
  const PrimitiveType type = shape_.element_type();
  if (IsPred(type)) return GetBits(index) != 0 ? "true" : "false";
  if (IsSignedInt(type)) return std::to_string(GetInt64(index));
  if (IsUnsignedInt(type)) return std::to_string(GetUint64(index));
  if (IsFloat(type)) return FormatRealBits(type, GetBits(index));
  if (IsComplex(type)) {
    const std::complex<double> c = GetComplex(index);
    if (type == PrimitiveType::kC64) {
      return "(" + FormatFloat(static_cast<float>(c.real())) + ", " +
             FormatFloat(static_cast<float>(c.imag())) + ")";
    }
    return "(" + FormatDouble(c.real()) + ", " + FormatDouble(c.imag()) + ")";
  }
  return "";
}

namespace {

// Prints an array the way XLA's one-line literal printer does: `{1, 2}` for rank 1,
// `{ { 1, 2 }, { 3, 4 } }` for higher ranks (no space inside a brace holding at most
// one element), pred elements as 1/0. XLA's `/*i0=0*/` markers for rank > 3 are left
// out, and a brace around an empty outer dimension prints `{}` rather than `{  }`.
void AppendArray(const Literal& literal, size_t dim, int64_t* linear, std::string* out) {
  const Shape& shape = literal.shape();
  const size_t rank = shape.dimensions().size();
  if (dim == rank) {
    if (IsPred(shape.element_type()) && rank > 0) {
      *out += literal.GetBits(*linear) != 0 ? '1' : '0';
    } else {
      *out += literal.ElementToString(*linear);
    }
    ++*linear;
    return;
  }
  const int64_t size = shape.dimensions()[dim];
  const bool innermost = dim + 1 == rank;
  const bool padded = rank > 1 && (innermost ? size > 1 : size > 0);
  *out += padded ? "{ " : "{";
  for (int64_t i = 0; i < size; ++i) {
    if (i > 0) *out += ", ";
    AppendArray(literal, dim + 1, linear, out);
  }
  *out += padded ? " }" : "}";
}

void AppendLiteral(const Literal& literal, bool with_shape, std::string* out) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    const auto& elements = literal.tuple_elements();
    if (elements.empty()) {
      *out += "()";
      return;
    }
    *out += "( ";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i > 0) *out += ", ";
      AppendLiteral(elements[i], with_shape, out);
    }
    *out += " )";
    return;
  }
  if (shape.IsToken()) {
    *out += "token";
    return;
  }
  if (shape.IsOpaque()) {
    *out += "opaque";
    return;
  }
  if (with_shape) {
    shape.AppendTo(out, /*print_layout=*/false);
    *out += ' ';
  }
  if (literal.element_count() != shape.ElementCount()) {
    *out += "{...}";  // no storage (unbounded dynamic or oversized)
    return;
  }
  int64_t linear = 0;
  AppendArray(literal, 0, &linear, out);
}

}  // namespace

std::string Literal::ToString() const {
  std::string out;
  AppendLiteral(*this, /*with_shape=*/false, &out);
  return out;
}

std::string Literal::ToStringWithShape() const {
  std::string out;
  AppendLiteral(*this, /*with_shape=*/true, &out);
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (!shape_.Compatible(other.shape_)) return false;
  if (shape_.IsTuple()) {
    if (tuple_elements_.size() != other.tuple_elements_.size()) return false;
    for (size_t i = 0; i < tuple_elements_.size(); ++i) {
      if (tuple_elements_[i] != other.tuple_elements_[i]) return false;
    }
    return true;
  }
  if (element_count_ != other.element_count_) return false;
  if (BitWidth(shape_.element_type()) >= 8) return data_ == other.data_;
  // Sub-byte slots: compare only the element's bits.
  const uint64_t mask = WidthMask(BitWidth(shape_.element_type()));
  for (int64_t i = 0; i < element_count_; ++i) {
    if (((data_[i] ^ other.data_[i]) & mask) != 0) return false;
  }
  return true;
}

}  // namespace fusebox
