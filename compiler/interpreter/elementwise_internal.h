// Internal to the interpreter's elementwise evaluators (ops_elementwise.cc,
// ops_conversion.cc): how elements are computed and stored, the chunked loops every op
// runs on, and the evaluators one file defines for the other. Not for use elsewhere.
//
// How elements are computed (as XLA's HloEvaluator does): pred as bool, signed and
// unsigned integers widened to int64_t / uint64_t (results wrap to the type's width when
// stored), f32 and every narrower float in float (rounded once to the result type when
// stored), f64 in double, c64 / c128 as std::complex. Loops run over chunks: operands are
// decoded into a small buffer of the compute type, the op runs on it, and the result is
// encoded into the output literal; f32/f64/c64/c128 operands are read in place.
//
// Sections:
//   1. Compute types and element codecs (Decode / Encode)
//   2. Loops (unary, binary, ternary with scalar operands)
//   3. Shared by both files: wrapping arithmetic, errors, the conversion evaluators
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "compiler/interpreter/ops.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/primitive_type.h"

namespace fusebox::interpreter {
namespace elementwise_internal {

using PT = PrimitiveType;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

// ===========================================================================
// 1. Compute types and element codecs

enum class Compute : uint8_t { kBool, kSigned, kUnsigned, kFloat, kDouble, kC64, kC128, kNone };

inline Compute ComputeOf(PT type) {
  if (IsPred(type)) return Compute::kBool;
  if (IsSignedInt(type)) return Compute::kSigned;
  if (IsUnsignedInt(type)) return Compute::kUnsigned;
  if (type == PT::kF64) return Compute::kDouble;
  if (IsFloat(type)) return Compute::kFloat;
  if (type == PT::kC64) return Compute::kC64;
  if (type == PT::kC128) return Compute::kC128;
  return Compute::kNone;
}

template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsInt = std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;
template <typename T>
inline constexpr bool kIsReal = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, c64> || std::is_same_v<T, c128>;

inline uint64_t WidthMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

inline int64_t SignExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  bits &= WidthMask(width);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

// True when `type` stores exactly a T, so its elements can be used in place.
template <typename T>
bool StoredAs(PT type) {
  if constexpr (std::is_same_v<T, float>) return type == PT::kF32;
  if constexpr (std::is_same_v<T, double>) return type == PT::kF64;
  if constexpr (std::is_same_v<T, c64>) return type == PT::kC64;
  if constexpr (std::is_same_v<T, c128>) return type == PT::kC128;
  return false;
}

// Every value of a float type of at most 16 bits, indexed by encoding (f16, f8, f4;
// bf16 decodes with a shift instead). Built on first use.
template <PT kType>
const float* DecodeTableFor() {
  static const std::vector<float> table = [] {
    const uint64_t count = uint64_t{1} << BitWidth(kType);
    std::vector<float> values(count);
    for (uint64_t bits = 0; bits < count; ++bits) {
      values[bits] = static_cast<float>(FloatBitsToDouble(kType, bits));
    }
    return values;
  }();
  return table.data();
}

inline const float* DecodeTable(PT type) {
  switch (type) {
    case PT::kF16:
      return DecodeTableFor<PT::kF16>();
    case PT::kF8E5M2:
      return DecodeTableFor<PT::kF8E5M2>();
    case PT::kF8E4M3:
      return DecodeTableFor<PT::kF8E4M3>();
    case PT::kF8E4M3FN:
      return DecodeTableFor<PT::kF8E4M3FN>();
    case PT::kF8E4M3B11FNUZ:
      return DecodeTableFor<PT::kF8E4M3B11FNUZ>();
    case PT::kF8E5M2FNUZ:
      return DecodeTableFor<PT::kF8E5M2FNUZ>();
    case PT::kF8E4M3FNUZ:
      return DecodeTableFor<PT::kF8E4M3FNUZ>();
    case PT::kF8E3M4:
      return DecodeTableFor<PT::kF8E3M4>();
    case PT::kF8E8M0FNU:
      return DecodeTableFor<PT::kF8E8M0FNU>();
    case PT::kF4E2M1FN:
      return DecodeTableFor<PT::kF4E2M1FN>();
    default:
      return nullptr;
  }
}

// float -> bf16, round to nearest even; NaN gives the quiet NaN the literal codec gives.
inline uint16_t FloatToBf16Bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7FC0u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// float -> f16, round to nearest even with subnormals, overflow to inf; NaN gives the
// quiet NaN the literal codec gives.
inline uint16_t FloatToHalfBits(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);
  if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520: inf
  if (ax < 0x38800000u) {
    // Below 2^-14: count units of the smallest subnormal, 2^-24.
    const uint32_t exponent = ax >> 23;
    const uint32_t shift = 126 - exponent;  // mantissa (with implicit bit) >> shift
    if (shift >= 32) return static_cast<uint16_t>(sign);
    const uint32_t mantissa = (ax & 0x7FFFFFu) | 0x800000u;
    uint32_t r = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = (ax - 0x38000000u) >> 13;  // rebias the exponent by 127 - 15
  const uint32_t rest = ax & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (r & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

template <typename S, typename T>
void LoadNative(const uint8_t* data, int64_t begin, int64_t n, T* out) {
  const uint8_t* p = data + begin * static_cast<int64_t>(sizeof(S));
  for (int64_t i = 0; i < n; ++i) {
    S v;
    std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(S)), sizeof(S));
    out[i] = static_cast<T>(v);
  }
}

// Reads elements [begin, begin + n) of `lit` as T, which must be ComputeOf its type.
template <typename T>
void Decode(const Literal& lit, int64_t begin, int64_t n, T* out) {
  const PT type = lit.shape().element_type();
  const uint8_t* data = lit.untyped_data();
  if constexpr (kIsBool<T>) {
    for (int64_t i = 0; i < n; ++i) out[i] = data[begin + i] != 0;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    switch (type) {
      case PT::kS8:
        LoadNative<int8_t>(data, begin, n, out);
        return;
      case PT::kS16:
        LoadNative<int16_t>(data, begin, n, out);
        return;
      case PT::kS32:
        LoadNative<int32_t>(data, begin, n, out);
        return;
      case PT::kS64:
        LoadNative<int64_t>(data, begin, n, out);
        return;
      default: {
        const int width = BitWidth(type);
        for (int64_t i = 0; i < n; ++i) out[i] = SignExtend(data[begin + i], width);
        return;
      }
    }
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    switch (type) {
      case PT::kU8:
        LoadNative<uint8_t>(data, begin, n, out);
        return;
      case PT::kU16:
        LoadNative<uint16_t>(data, begin, n, out);
        return;
      case PT::kU32:
        LoadNative<uint32_t>(data, begin, n, out);
        return;
      case PT::kU64:
        LoadNative<uint64_t>(data, begin, n, out);
        return;
      default: {
        const uint64_t mask = WidthMask(BitWidth(type));
        for (int64_t i = 0; i < n; ++i) out[i] = data[begin + i] & mask;
        return;
      }
    }
  } else if constexpr (std::is_same_v<T, float>) {
    if (type == PT::kF32) {
      LoadNative<float>(data, begin, n, out);
    } else if (type == PT::kBF16) {
      const uint8_t* p = data + begin * 2;
      for (int64_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, p + i * 2, 2);
        out[i] = std::bit_cast<float>(static_cast<uint32_t>(v) << 16);
      }
    } else if (type == PT::kF16) {
      const float* table = DecodeTable(type);
      const uint8_t* p = data + begin * 2;
      for (int64_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, p + i * 2, 2);
        out[i] = table[v];
      }
    } else {
      const float* table = DecodeTable(type);
      const uint8_t mask = static_cast<uint8_t>(WidthMask(BitWidth(type)));
      for (int64_t i = 0; i < n; ++i) out[i] = table[data[begin + i] & mask];
    }
  } else {
    LoadNative<T>(data, begin, n, out);  // double, c64, c128
  }
}

// Raw encodings of elements [begin, begin + n), zero-extended (not for c128).
inline void DecodeBits(const Literal& lit, int64_t begin, int64_t n, uint64_t* out) {
  const uint8_t* data = lit.untyped_data();
  switch (lit.slot_bytes()) {
    case 1:
      LoadNative<uint8_t>(data, begin, n, out);
      break;
    case 2:
      LoadNative<uint16_t>(data, begin, n, out);
      break;
    case 4:
      LoadNative<uint32_t>(data, begin, n, out);
      break;
    default:
      LoadNative<uint64_t>(data, begin, n, out);
      break;
  }
}

// 2^e for 0 <= e <= 64.
inline double Pow2(int e) { return e >= 64 ? 0x1p64 : static_cast<double>(uint64_t{1} << e); }

// Float to integer as XLA converts: truncate toward zero, saturate, NaN -> 0.
template <typename F>
int64_t FloatToSigned(F v, int width) {
  if (std::isnan(v)) return 0;
  const double limit = Pow2(width - 1);
  if (v >= limit) return static_cast<int64_t>(WidthMask(width - 1));
  if (v <= -limit) return SignExtend(uint64_t{1} << (width - 1), width);
  return static_cast<int64_t>(v);
}

template <typename F>
uint64_t FloatToUnsigned(F v, int width) {
  if (std::isnan(v) || v <= 0) return 0;
  if (v >= Pow2(width)) return WidthMask(width);
  return static_cast<uint64_t>(v);
}

// Value conversions from a compute type, as `convert` defines them.
template <typename T>
bool ToBool(T v) {
  if constexpr (kIsComplex<T>) {
    return v.real() != 0 || v.imag() != 0;
  } else {
    return v != T{0};  // NaN is true
  }
}

template <typename T>
int64_t ToSigned(T v, int width) {
  if constexpr (kIsBool<T> || kIsInt<T>) {
    return static_cast<int64_t>(v);
  } else if constexpr (kIsReal<T>) {
    return FloatToSigned(v, width);
  } else {
    return FloatToSigned(v.real(), width);
  }
}

template <typename T>
uint64_t ToUnsigned(T v, int width) {
  if constexpr (kIsBool<T> || kIsInt<T>) {
    return static_cast<uint64_t>(v);
  } else if constexpr (kIsReal<T>) {
    return FloatToUnsigned(v, width);
  } else {
    return FloatToUnsigned(v.real(), width);
  }
}

// A real value for float stores: double stays double (rounded once to the target type);
// integers go through float first, as XLA's evaluator converts them.
template <typename T>
auto ToRealForStore(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else if constexpr (std::is_same_v<T, c128>) {
    return v.real();
  } else if constexpr (std::is_same_v<T, c64>) {
    return v.real();
  } else {
    return static_cast<float>(v);
  }
}

template <typename T>
double ToDouble(T v) {
  if constexpr (kIsComplex<T>) {
    return static_cast<double>(v.real());
  } else {
    return static_cast<double>(v);
  }
}

template <typename C, typename T>
C ToComplex(T v) {
  using R = typename C::value_type;
  if constexpr (kIsComplex<T>) {
    return C(static_cast<R>(v.real()), static_cast<R>(v.imag()));
  } else {
    return C(static_cast<R>(v), R{0});
  }
}

template <typename S, typename Fn>
void StoreNative(uint8_t* data, int64_t begin, int64_t n, Fn value_of) {
  uint8_t* p = data + begin * static_cast<int64_t>(sizeof(S));
  for (int64_t i = 0; i < n; ++i) {
    const S v = value_of(i);
    std::memcpy(p + i * static_cast<int64_t>(sizeof(S)), &v, sizeof(S));
  }
}

// Integer bits into slots of 1, 2, 4 or 8 bytes; sub-byte types keep their low bits.
template <typename Fn>
void StoreIntBits(Literal* lit, int64_t begin, int64_t n, Fn bits_of) {
  uint8_t* data = lit->untyped_data();
  const int width = BitWidth(lit->shape().element_type());
  switch (width) {
    case 8:
      StoreNative<uint8_t>(data, begin, n,
                           [&](int64_t i) { return static_cast<uint8_t>(bits_of(i)); });
      return;
    case 16:
      StoreNative<uint16_t>(data, begin, n,
                            [&](int64_t i) { return static_cast<uint16_t>(bits_of(i)); });
      return;
    case 32:
      StoreNative<uint32_t>(data, begin, n,
                            [&](int64_t i) { return static_cast<uint32_t>(bits_of(i)); });
      return;
    case 64:
      StoreNative<uint64_t>(data, begin, n,
                            [&](int64_t i) { return static_cast<uint64_t>(bits_of(i)); });
      return;
    default: {
      const uint64_t mask = WidthMask(width);
      StoreNative<uint8_t>(data, begin, n,
                           [&](int64_t i) { return static_cast<uint8_t>(bits_of(i) & mask); });
      return;
    }
  }
}

// Writes `in` (a compute type) to elements [begin, begin + n) of `lit`, converting to its
// element type with `convert`'s rules.
template <typename T>
void Encode(Literal* lit, int64_t begin, int64_t n, const T* in) {
  const PT type = lit->shape().element_type();
  uint8_t* data = lit->untyped_data();
  const int width = BitWidth(type);
  switch (ComputeOf(type)) {
    case Compute::kBool:
      for (int64_t i = 0; i < n; ++i) data[begin + i] = ToBool(in[i]) ? 1 : 0;
      return;
    case Compute::kSigned:
      StoreIntBits(lit, begin, n,
                   [&](int64_t i) { return static_cast<uint64_t>(ToSigned(in[i], width)); });
      return;
    case Compute::kUnsigned:
      StoreIntBits(lit, begin, n, [&](int64_t i) { return ToUnsigned(in[i], width); });
      return;
    case Compute::kFloat: {
      using Real = decltype(ToRealForStore(in[0]));
      if (type == PT::kF32) {
        StoreNative<float>(data, begin, n,
                           [&](int64_t i) { return static_cast<float>(ToRealForStore(in[i])); });
      } else if (type == PT::kBF16 && std::is_same_v<Real, float>) {
        StoreNative<uint16_t>(data, begin, n, [&](int64_t i) {
          return FloatToBf16Bits(static_cast<float>(ToRealForStore(in[i])));
        });
      } else if (type == PT::kF16 && std::is_same_v<Real, float>) {
        StoreNative<uint16_t>(data, begin, n, [&](int64_t i) {
          return FloatToHalfBits(static_cast<float>(ToRealForStore(in[i])));
        });
      } else if (width == 16) {
        StoreNative<uint16_t>(data, begin, n, [&](int64_t i) {
          return static_cast<uint16_t>(
              DoubleToFloatBits(type, static_cast<double>(ToRealForStore(in[i]))));
        });
      } else {
        StoreNative<uint8_t>(data, begin, n, [&](int64_t i) {
          return static_cast<uint8_t>(
              DoubleToFloatBits(type, static_cast<double>(ToRealForStore(in[i]))));
        });
      }
      return;
    }
    case Compute::kDouble:
      StoreNative<double>(data, begin, n, [&](int64_t i) { return ToDouble(in[i]); });
      return;
    case Compute::kC64:
      StoreNative<c64>(data, begin, n, [&](int64_t i) { return ToComplex<c64>(in[i]); });
      return;
    case Compute::kC128:
      StoreNative<c128>(data, begin, n, [&](int64_t i) { return ToComplex<c128>(in[i]); });
      return;
    case Compute::kNone:
      return;
  }
}

// Calls fn(T{}) with T the compute type of `type`.
template <typename Fn>
Status WithComputeType(PT type, Fn&& fn) {
  switch (ComputeOf(type)) {
    case Compute::kBool:
      return fn(bool{});
    case Compute::kSigned:
      return fn(int64_t{});
    case Compute::kUnsigned:
      return fn(uint64_t{});
    case Compute::kFloat:
      return fn(float{});
    case Compute::kDouble:
      return fn(double{});
    case Compute::kC64:
      return fn(c64{});
    case Compute::kC128:
      return fn(c128{});
    case Compute::kNone:
      break;
  }
  return InvalidArgument("element type " + std::string(PrimitiveTypeName(type)) +
                         " has no array values");
}

// ===========================================================================
// 2. Loops

inline constexpr int64_t kChunk = 256;

template <typename A, typename R, typename Fn>
void MapUnary(const Literal& a, Literal* out, Fn&& fn) {
  const int64_t n = out->element_count();
  if (StoredAs<A>(a.shape().element_type()) && StoredAs<R>(out->shape().element_type())) {
    const A* pa = reinterpret_cast<const A*>(a.untyped_data());
    R* po = reinterpret_cast<R*>(out->untyped_data());
    for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i]);
    return;
  }
  A va[kChunk];
  R vr[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t m = std::min(kChunk, n - begin);
    Decode(a, begin, m, va);
    for (int64_t i = 0; i < m; ++i) vr[i] = fn(va[i]);
    Encode(out, begin, m, vr);
  }
}

template <typename A, typename R, typename Fn>
void MapBinary(const Literal& a, const Literal& b, Literal* out, Fn&& fn) {
  const int64_t n = out->element_count();
  if (StoredAs<A>(a.shape().element_type()) && StoredAs<A>(b.shape().element_type()) &&
      StoredAs<R>(out->shape().element_type())) {
    const A* pa = reinterpret_cast<const A*>(a.untyped_data());
    const A* pb = reinterpret_cast<const A*>(b.untyped_data());
    R* po = reinterpret_cast<R*>(out->untyped_data());
    for (int64_t i = 0; i < n; ++i) po[i] = fn(pa[i], pb[i]);
    return;
  }
  A va[kChunk];
  A vb[kChunk];
  R vr[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t m = std::min(kChunk, n - begin);
    Decode(a, begin, m, va);
    Decode(b, begin, m, vb);
    for (int64_t i = 0; i < m; ++i) vr[i] = fn(va[i], vb[i]);
    Encode(out, begin, m, vr);
  }
}

// Decodes a chunk of an operand that is either full-size or a scalar broadcast to all.
template <typename T>
void DecodeOrSplat(const Literal& lit, bool scalar, int64_t begin, int64_t n, T* out) {
  if (scalar) {
    T v;
    Decode(lit, 0, 1, &v);
    std::fill(out, out + n, v);
  } else {
    Decode(lit, begin, n, out);
  }
}

// Three operands of compute type T; operands with one element apply to every element.
template <typename T, typename Fn>
void MapTernary(const Literal& a, const Literal& b, const Literal& c, Literal* out, Fn&& fn) {
  const int64_t n = out->element_count();
  const bool sa = a.element_count() == 1 && n != 1;
  const bool sb = b.element_count() == 1 && n != 1;
  const bool sc = c.element_count() == 1 && n != 1;
  T va[kChunk];
  T vb[kChunk];
  T vc[kChunk];
  T vr[kChunk];
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t m = std::min(kChunk, n - begin);
    DecodeOrSplat(a, sa, begin, m, va);
    DecodeOrSplat(b, sb, begin, m, vb);
    DecodeOrSplat(c, sc, begin, m, vc);
    for (int64_t i = 0; i < m; ++i) vr[i] = fn(va[i], vb[i], vc[i]);
    Encode(out, begin, m, vr);
  }
}

template <typename T, typename Fn>
Status Apply(const Literal& a, Literal* out, Fn&& fn) {
  using R = std::invoke_result_t<Fn, T>;
  MapUnary<T, R>(a, out, fn);
  return Status::Ok();
}

template <typename T, typename Fn>
Status Apply2(const Literal& a, const Literal& b, Literal* out, Fn&& fn) {
  using R = std::invoke_result_t<Fn, T, T>;
  MapBinary<T, R>(a, b, out, fn);
  return Status::Ok();
}

// ===========================================================================
// 3. Shared by both files

// Two's complement arithmetic on the widened values; the store wraps to the width.
inline int64_t WrapAdd(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
inline int64_t WrapSub(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
inline int64_t WrapMul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
inline int64_t WrapNeg(int64_t x) {
  return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x));
}

inline std::string OpName(const Instruction& inst) {
  return std::string(OpcodeName(inst.opcode()));
}

inline Status Unsupported(const Instruction& inst, PT type) {
  return InvalidArgument(OpName(inst) + " does not support element type " +
                         std::string(PrimitiveTypeName(type)));
}

// The conversions (ops_conversion.cc). `out` is already shaped like the instruction.
Status EvalConvert(const Literal& a, Literal* out);
// bitcast-convert: the bits stay, the element type changes. Between types of different
// widths the array is reinterpreted as one little-endian bit stream, so the wider side
// has one extra minor dimension (f32[2] <-> u8[2,4]; u8 <-> s4[2], low bits first).
Status EvalBitcastConvert(const Literal& a, Literal* out);
Status EvalReducePrecision(const Instruction& inst, const Literal& a, Literal* out);
// complex(re, im) from two real operands.
Status EvalComplex(const Instruction& inst, const Literal& re, const Literal& im, Literal* out);
// stochastic-convert(x, random) to a signed integer, as XLA's decomposition defines it.
Status EvalStochasticConvert(const Instruction& inst, const Literal& a, const Literal& random,
                             Literal* out);

}  // namespace elementwise_internal
}  // namespace fusebox::interpreter
