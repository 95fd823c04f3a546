// Elementwise evaluators of the reference interpreter: arithmetic, math functions,
// comparisons, select/clamp, conversions and bit-level ops, with XLA's semantics for
// every element type.
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
//   3. Scalar semantics (integer division, shifts, power, mulhi, rounding, total order)
//   4. Op families
//   5. EvalElementwise
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/interpreter/ops.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/primitive_type.h"

namespace fusebox {
namespace {

using PT = PrimitiveType;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

// ===========================================================================
// 1. Compute types and element codecs

enum class Compute : uint8_t { kBool, kSigned, kUnsigned, kFloat, kDouble, kC64, kC128, kNone };

Compute ComputeOf(PT type) {
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
constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
constexpr bool kIsInt = std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t>;
template <typename T>
constexpr bool kIsReal = std::is_same_v<T, float> || std::is_same_v<T, double>;
template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, c64> || std::is_same_v<T, c128>;

uint64_t WidthMask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

int64_t SignExtend(uint64_t bits, int width) {
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

const float* DecodeTable(PT type) {
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
uint16_t FloatToBf16Bits(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7FC0u);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// float -> f16, round to nearest even with subnormals, overflow to inf; NaN gives the
// quiet NaN the literal codec gives.
uint16_t FloatToHalfBits(float f) {
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
void DecodeBits(const Literal& lit, int64_t begin, int64_t n, uint64_t* out) {
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
double Pow2(int e) { return e >= 64 ? 0x1p64 : static_cast<double>(uint64_t{1} << e); }

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

constexpr int64_t kChunk = 256;

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
// 3. Scalar semantics

// Two's complement arithmetic on the widened values; the store wraps to the width.
int64_t WrapAdd(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
int64_t WrapSub(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
int64_t WrapMul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
int64_t WrapNeg(int64_t x) { return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(x)); }

// XLA's integer division rules: x / 0 = -1 (all bits set), INT_MIN / -1 = INT_MIN (the
// widened quotient wraps back to INT_MIN when stored); x % 0 = x, INT_MIN % -1 = 0.
int64_t DivideSigned(int64_t x, int64_t y) {
  if (y == 0) return -1;
  if (y == -1) return WrapNeg(x);
  return x / y;
}
uint64_t DivideUnsigned(uint64_t x, uint64_t y) { return y == 0 ? ~uint64_t{0} : x / y; }
int64_t RemainderSigned(int64_t x, int64_t y) {
  if (y == 0) return x;
  if (y == -1) return 0;
  return x % y;
}
uint64_t RemainderUnsigned(uint64_t x, uint64_t y) { return y == 0 ? x : x % y; }

// x^y modulo 2^64 by squaring (exponent taken as unsigned).
uint64_t IntegerPow(uint64_t base, uint64_t exponent) {
  uint64_t result = 1;
  while (exponent != 0) {
    if (exponent & 1) result *= base;
    base *= base;
    exponent >>= 1;
  }
  return result;
}

// XLA's power: 1^y = 1 and x^0 = 1 for every type; an integer base other than 1 with a
// negative exponent gives 0 (so (-1)^-1 = 0, as both the evaluator and the compiled
// kernels give); pred x^y = x || !y.
template <typename T>
T Power(T x, T y) {
  if constexpr (kIsBool<T>) {
    return x || !y;
  } else {
    if (x == T(1) || y == T(0)) return T(1);
    if constexpr (std::is_same_v<T, int64_t>) {
      if (y < 0) return 0;
      return static_cast<int64_t>(IntegerPow(static_cast<uint64_t>(x), static_cast<uint64_t>(y)));
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      return IntegerPow(x, y);
    } else if constexpr (kIsReal<T>) {
      return std::pow(x, y);
    } else {
      // inf^(a + 0i) is inf for a > 0 and 0 for a < 0 (std::pow gives NaN parts).
      const bool x_pos_inf = x.imag() == 0 && x.real() > 0 && std::isinf(x.real());
      if (x_pos_inf && y.imag() == 0 && y.real() > 0) return x;
      if (x_pos_inf && y.imag() == 0 && y.real() < 0) return T(0);
      return std::pow(x, y);
    }
  }
}

// Shifts on a `width`-bit value held widened. Amounts are read as unsigned, so negative
// amounts count as too large: shift-left and shift-right-logical then give 0 and
// shift-right-arithmetic gives the sign (0 or -1).
template <typename T>
T ShiftLeft(T x, T y, int width) {
  if (static_cast<uint64_t>(y) >= static_cast<uint64_t>(width)) return 0;
  return static_cast<T>(static_cast<uint64_t>(x) << static_cast<uint64_t>(y));
}
template <typename T>
T ShiftRightLogical(T x, T y, int width) {
  if (static_cast<uint64_t>(y) >= static_cast<uint64_t>(width)) return 0;
  return static_cast<T>((static_cast<uint64_t>(x) & WidthMask(width)) >> static_cast<uint64_t>(y));
}
template <typename T>
T ShiftRightArithmetic(T x, T y, int width) {
  const int64_t value = SignExtend(static_cast<uint64_t>(x), width);
  if (static_cast<uint64_t>(y) >= static_cast<uint64_t>(width))
    return static_cast<T>(value < 0 ? -1 : 0);
  return static_cast<T>(value >> static_cast<int64_t>(y));
}

// High 64 bits of the 128-bit product of two unsigned 64-bit values.
uint64_t UnsignedMulHi64(uint64_t x, uint64_t y) {
  const uint64_t x_lo = x & 0xFFFFFFFFu, x_hi = x >> 32;
  const uint64_t y_lo = y & 0xFFFFFFFFu, y_hi = y >> 32;
  const uint64_t lo_lo = x_lo * y_lo;
  const uint64_t lo_hi = x_lo * y_hi;
  const uint64_t hi_lo = x_hi * y_lo;
  const uint64_t hi_hi = x_hi * y_hi;
  const uint64_t middle = (lo_lo >> 32) + (lo_hi & 0xFFFFFFFFu) + (hi_lo & 0xFFFFFFFFu);
  return hi_hi + (lo_hi >> 32) + (hi_lo >> 32) + (middle >> 32);
}

// mulhi: the high `width` bits of the 2*width-bit product.
template <typename T>
T MulHi(T x, T y, int width) {
  if constexpr (std::is_same_v<T, int64_t>) {
    if (width < 64) return (x * y) >> width;  // |x|, |y| <= 2^31: no overflow
    uint64_t hi = UnsignedMulHi64(static_cast<uint64_t>(x), static_cast<uint64_t>(y));
    if (x < 0) hi -= static_cast<uint64_t>(y);
    if (y < 0) hi -= static_cast<uint64_t>(x);
    return static_cast<int64_t>(hi);
  } else {
    if (width < 64) return (x * y) >> width;  // x, y < 2^32: no overflow
    return UnsignedMulHi64(x, y);
  }
}

// XLA's max/min: a NaN operand is the result (the first if both are); otherwise
// std::max / std::min (so max(-0, +0) is the first operand).
template <typename T>
T Maximum(T x, T y) {
  if constexpr (kIsReal<T>) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
  }
  return std::max(x, y);
}
template <typename T>
T Minimum(T x, T y) {
  if constexpr (kIsReal<T>) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
  }
  return std::min(x, y);
}

// clamp(lo, x, hi) = min(max(x, lo), hi); a NaN in lo, x or hi (checked in that order)
// is the result.
template <typename T>
T Clamp(T lo, T x, T hi) {
  if constexpr (kIsReal<T>) {
    if (std::isnan(lo)) return lo;
    if (std::isnan(x)) return x;
    if (std::isnan(hi)) return hi;
  }
  return std::min(hi, std::max(x, lo));
}

// sign: -1, 0 or 1; floats keep NaN and the sign of zero; complex x / |x|.
template <typename T>
T Sign(T x) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return (x > 0) - (x < 0);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return x != 0 ? 1 : 0;
  } else if constexpr (kIsReal<T>) {
    if (std::isnan(x)) return x;
    return std::copysign(x != 0 ? T(1) : T(0), x);
  } else {
    const auto magnitude = std::abs(x);
    return magnitude == 0 ? T(0) : x / magnitude;
  }
}

// Complex expm1 and log1p, accurate near zero (XLA's evaluator has none; compiled
// kernels do).
template <typename C>
C ComplexExpm1(C z) {
  using R = typename C::value_type;
  const R a = z.real(), b = z.imag();
  const R half_sin = std::sin(b / 2);
  const R real = std::expm1(a) * std::cos(b) - 2 * half_sin * half_sin;
  return C(real, std::exp(a) * std::sin(b));
}
template <typename C>
C ComplexLog1p(C z) {
  using R = typename C::value_type;
  const R a = z.real(), b = z.imag();
  const R real = std::log1p(a * (2 + a) + b * b) / 2;
  return C(real, std::atan2(b, 1 + a));
}

// atan2 of complex values as XLA defines it: -i * log((x + iy) / sqrt(x^2 + y^2)).
template <typename C>
C ComplexAtan2(C y, C x) {
  const C i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// Position in the total order -NaN < -inf < ... < -0 < +0 < ... < inf < NaN of a float
// encoding (sign-magnitude read as two's complement, negatives mirrored).
int64_t TotalOrderKey(uint64_t bits, int width, bool has_sign) {
  if (!has_sign) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -1 - magnitude : magnitude;
}

// reduce-precision on the bits of a float or double: round to nearest even at
// `mantissa_bits`, then flush values below the reduced format's normal range to zero and
// send values above it to infinity. NaN stays NaN (infinity when no mantissa bits remain).
template <typename F>
F ReducePrecision(F value, int exponent_bits, int mantissa_bits) {
  using U = std::conditional_t<std::is_same_v<F, float>, uint32_t, uint64_t>;
  constexpr int kSrcMantissa = std::numeric_limits<F>::digits - 1;
  constexpr int kSrcExponent = static_cast<int>(sizeof(F) * 8) - kSrcMantissa - 1;
  U bits = std::bit_cast<U>(value);
  if (mantissa_bits < kSrcMantissa) {
    const U last_kept = U{1} << (kSrcMantissa - mantissa_bits);
    const U round_bias = (last_kept >> 1) - 1 + ((bits & last_kept) != 0 ? 1 : 0);
    bits = (bits + round_bias) & ~(last_kept - 1);
  }
  if (exponent_bits < kSrcExponent) {
    const U sign_mask = U{1} << (sizeof(F) * 8 - 1);
    const U exponent_mask = ((U{1} << kSrcExponent) - 1) << kSrcMantissa;
    const U bias = (U{1} << (kSrcExponent - 1)) - 1;
    const U reduced_bias = (U{1} << (exponent_bits - 1)) - 1;
    const U max_exponent = bias + reduced_bias;
    const U min_exponent = bias - reduced_bias;
    const U exponent = bits & exponent_mask;
    if (exponent > (max_exponent << kSrcMantissa)) {
      bits = (bits & sign_mask) | exponent_mask;
    } else if (exponent <= (min_exponent << kSrcMantissa)) {
      bits = bits & sign_mask;
    }
  }
  if (std::isnan(value)) {
    return mantissa_bits > 0 ? value : std::numeric_limits<F>::infinity();
  }
  return std::bit_cast<F>(bits);
}

// ===========================================================================
// 4. Op families

std::string OpName(const Instruction& inst) { return std::string(OpcodeName(inst.opcode())); }

Status Unsupported(const Instruction& inst, PT type) {
  return InvalidArgument(OpName(inst) + " does not support element type " +
                         std::string(PrimitiveTypeName(type)));
}

// --- Unary -----------------------------------------------------------------

Status EvalUnary(const Instruction& inst, const Literal& a, Literal* out) {
  const PT type = a.shape().element_type();
  const int width = BitWidth(type);
  const Opcode op = inst.opcode();
  Status status = WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    switch (op) {
      case Opcode::kAbs:
        if constexpr (std::is_same_v<T, int64_t>) {
          return Apply<T>(a, out, [](T x) -> T { return x < 0 ? WrapNeg(x) : x; });
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return Apply<T>(a, out, [](T x) -> T { return x; });
        } else if constexpr (kIsReal<T>) {
          return Apply<T>(a, out, [](T x) -> T { return std::fabs(x); });
        } else if constexpr (kIsComplex<T>) {
          return Apply<T>(a, out, [](T x) { return std::abs(x); });
        }
        break;
      case Opcode::kNegate:
        if constexpr (std::is_same_v<T, int64_t>) {
          return Apply<T>(a, out, [](T x) -> T { return WrapNeg(x); });
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return Apply<T>(a, out, [](T x) -> T { return uint64_t{0} - x; });
        } else if constexpr (!kIsBool<T>) {
          return Apply<T>(a, out, [](T x) -> T { return -x; });
        }
        break;
      case Opcode::kSign:
        if constexpr (!kIsBool<T>) return Apply<T>(a, out, [](T x) -> T { return Sign(x); });
        break;
      case Opcode::kNot:
        if constexpr (kIsBool<T>) {
          return Apply<T>(a, out, [](T x) -> T { return !x; });
        } else if constexpr (kIsInt<T>) {
          return Apply<T>(a, out, [](T x) -> T { return ~x; });
        }
        break;
      case Opcode::kPopulationCount:
        if constexpr (kIsInt<T>) {
          const uint64_t mask = WidthMask(width);
          return Apply<T>(a, out, [mask](T x) -> T {
            return static_cast<T>(std::popcount(static_cast<uint64_t>(x) & mask));
          });
        }
        break;
      case Opcode::kClz:
        if constexpr (kIsInt<T>) {
          const uint64_t mask = WidthMask(width);
          return Apply<T>(a, out, [mask, width](T x) -> T {
            return static_cast<T>(width - std::bit_width(static_cast<uint64_t>(x) & mask));
          });
        }
        break;
      case Opcode::kIsFinite:
        if constexpr (kIsReal<T>)
          return Apply<T>(a, out, [](T x) -> bool { return std::isfinite(x); });
        break;
      case Opcode::kReal:
        if constexpr (kIsComplex<T>) {
          return Apply<T>(a, out, [](T x) { return x.real(); });
        } else if constexpr (kIsReal<T>) {
          return Apply<T>(a, out, [](T x) -> T { return x; });
        }
        break;
      case Opcode::kImag:
        if constexpr (kIsComplex<T>) {
          return Apply<T>(a, out, [](T x) { return x.imag(); });
        } else if constexpr (kIsReal<T>) {
          return Apply<T>(a, out, [](T) -> T { return T(0); });
        }
        break;
      default:
        break;
    }
    if constexpr (kIsReal<T> || kIsComplex<T>) {
      // Functions of float and complex values.
      switch (op) {
        case Opcode::kExp:
          return Apply<T>(a, out, [](T x) -> T { return std::exp(x); });
        case Opcode::kLog:
          return Apply<T>(a, out, [](T x) -> T { return std::log(x); });
        case Opcode::kSqrt:
          return Apply<T>(a, out, [](T x) -> T { return std::sqrt(x); });
        case Opcode::kRsqrt:
          return Apply<T>(a, out, [](T x) -> T { return T(1) / std::sqrt(x); });
        case Opcode::kLogistic:
          return Apply<T>(a, out, [](T x) -> T { return T(1) / (T(1) + std::exp(-x)); });
        case Opcode::kSin:
          return Apply<T>(a, out, [](T x) -> T { return std::sin(x); });
        case Opcode::kCos:
          return Apply<T>(a, out, [](T x) -> T { return std::cos(x); });
        case Opcode::kTan:
          return Apply<T>(a, out, [](T x) -> T { return std::tan(x); });
        case Opcode::kTanh:
          return Apply<T>(a, out, [](T x) -> T { return std::tanh(x); });
        case Opcode::kSinh:
          return Apply<T>(a, out, [](T x) -> T { return std::sinh(x); });
        case Opcode::kCosh:
          return Apply<T>(a, out, [](T x) -> T { return std::cosh(x); });
        case Opcode::kAsin:
          return Apply<T>(a, out, [](T x) -> T { return std::asin(x); });
        case Opcode::kAcos:
          return Apply<T>(a, out, [](T x) -> T { return std::acos(x); });
        case Opcode::kAtan:
          return Apply<T>(a, out, [](T x) -> T { return std::atan(x); });
        case Opcode::kAsinh:
          return Apply<T>(a, out, [](T x) -> T { return std::asinh(x); });
        case Opcode::kAcosh:
          return Apply<T>(a, out, [](T x) -> T { return std::acosh(x); });
        case Opcode::kAtanh:
          return Apply<T>(a, out, [](T x) -> T { return std::atanh(x); });
        case Opcode::kExpm1:
          if constexpr (kIsReal<T>) {
            return Apply<T>(a, out, [](T x) -> T { return std::expm1(x); });
          } else {
            return Apply<T>(a, out, [](T x) -> T { return ComplexExpm1(x); });
          }
        case Opcode::kLog1p:
          if constexpr (kIsReal<T>) {
            return Apply<T>(a, out, [](T x) -> T { return std::log1p(x); });
          } else {
            return Apply<T>(a, out, [](T x) -> T { return ComplexLog1p(x); });
          }
        default:
          break;
      }
    }
    if constexpr (kIsReal<T>) {
      switch (op) {
        case Opcode::kCbrt:
          return Apply<T>(a, out, [](T x) -> T { return std::cbrt(x); });
        case Opcode::kErf:
          return Apply<T>(a, out, [](T x) -> T { return std::erf(x); });
        case Opcode::kFloor:
          return Apply<T>(a, out, [](T x) -> T { return std::floor(x); });
        case Opcode::kCeil:
          return Apply<T>(a, out, [](T x) -> T { return std::ceil(x); });
        case Opcode::kRoundNearestAfz:
          return Apply<T>(a, out, [](T x) -> T { return std::round(x); });
        case Opcode::kRoundNearestEven:
          // The default floating-point environment rounds to nearest even.
          return Apply<T>(a, out, [](T x) -> T { return std::nearbyint(x); });
        default:
          break;
      }
    }
    return Unsupported(inst, type);
  });
  return status;
}

// --- Binary arithmetic and logic ---------------------------------------------

Status EvalBinary(const Instruction& inst, const Literal& a, const Literal& b, Literal* out) {
  const PT type = a.shape().element_type();
  const int width = BitWidth(type);
  const Opcode op = inst.opcode();
  return WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    switch (op) {
      case Opcode::kAdd:
        // pred: zext(x) + zext(y) != 0, i.e. or (as XLA's kernels emit it).
        if constexpr (kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x || y; });
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return WrapAdd(x, y); });
        } else {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x + y; });
        }
      case Opcode::kSubtract:
        if constexpr (std::is_same_v<T, int64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return WrapSub(x, y); });
        } else if constexpr (!kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x - y; });
        }
        break;
      case Opcode::kMultiply:
        if constexpr (kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x && y; });
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return WrapMul(x, y); });
        } else {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x * y; });
        }
      case Opcode::kDivide:
        if constexpr (std::is_same_v<T, int64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return DivideSigned(x, y); });
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return DivideUnsigned(x, y); });
        } else if constexpr (!kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x / y; });
        }
        break;
      case Opcode::kRemainder:
        if constexpr (std::is_same_v<T, int64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return RemainderSigned(x, y); });
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return RemainderUnsigned(x, y); });
        } else if constexpr (kIsReal<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return std::fmod(x, y); });
        }
        break;
      case Opcode::kMaximum:
        if constexpr (!kIsComplex<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return Maximum(x, y); });
        }
        break;
      case Opcode::kMinimum:
        if constexpr (!kIsComplex<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return Minimum(x, y); });
        }
        break;
      case Opcode::kPower:
        return Apply2<T>(a, b, out, [](T x, T y) -> T { return Power(x, y); });
      case Opcode::kAtan2:
        if constexpr (kIsReal<T>) {
          return Apply2<T>(a, b, out, [](T y, T x) -> T { return std::atan2(y, x); });
        } else if constexpr (kIsComplex<T>) {
          return Apply2<T>(a, b, out, [](T y, T x) -> T { return ComplexAtan2(y, x); });
        }
        break;
      case Opcode::kAnd:
        if constexpr (kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x && y; });
        } else if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x & y; });
        }
        break;
      case Opcode::kOr:
        if constexpr (kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x || y; });
        } else if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x | y; });
        }
        break;
      case Opcode::kXor:
        if constexpr (kIsBool<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x != y; });
        } else if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out, [](T x, T y) -> T { return x ^ y; });
        }
        break;
      case Opcode::kShiftLeft:
        if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out, [width](T x, T y) -> T { return ShiftLeft(x, y, width); });
        }
        break;
      case Opcode::kShiftRightLogical:
        if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out,
                           [width](T x, T y) -> T { return ShiftRightLogical(x, y, width); });
        }
        break;
      case Opcode::kShiftRightArithmetic:
        if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out,
                           [width](T x, T y) -> T { return ShiftRightArithmetic(x, y, width); });
        }
        break;
      case Opcode::kMulhi:
        if constexpr (kIsInt<T>) {
          return Apply2<T>(a, b, out, [width](T x, T y) -> T { return MulHi(x, y, width); });
        }
        break;
      default:
        break;
    }
    return Unsupported(inst, type);
  });
}

// --- Compare -------------------------------------------------------------------

template <typename Fn>
Status WithDirection(ComparisonDirection direction, Fn&& fn) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return fn(std::equal_to<>());
    case ComparisonDirection::kNe:
      return fn(std::not_equal_to<>());
    case ComparisonDirection::kGe:
      return fn(std::greater_equal<>());
    case ComparisonDirection::kGt:
      return fn(std::greater<>());
    case ComparisonDirection::kLe:
      return fn(std::less_equal<>());
    case ComparisonDirection::kLt:
      return fn(std::less<>());
  }
  return Internal("unknown comparison direction");
}

Status EvalCompare(const Instruction& inst, const Literal& a, const Literal& b, Literal* out) {
  const std::optional<ComparisonDirection> direction = inst.attrs().comparison_direction;
  if (!direction) return InvalidArgument("compare has no direction= attribute");
  const PT type = a.shape().element_type();
  const ComparisonType compare_type =
      inst.attrs().comparison_type.value_or(DefaultComparisonType(type));

  if (IsFloat(type) && compare_type == ComparisonType::kTotalOrder) {
    const int width = BitWidth(type);
    const bool has_sign = type != PT::kF8E8M0FNU;
    return WithDirection(*direction, [&](auto cmp) -> Status {
      const int64_t n = out->element_count();
      uint64_t va[kChunk];
      uint64_t vb[kChunk];
      bool vr[kChunk];
      for (int64_t begin = 0; begin < n; begin += kChunk) {
        const int64_t m = std::min(kChunk, n - begin);
        DecodeBits(a, begin, m, va);
        DecodeBits(b, begin, m, vb);
        for (int64_t i = 0; i < m; ++i) {
          vr[i] = cmp(TotalOrderKey(va[i], width, has_sign), TotalOrderKey(vb[i], width, has_sign));
        }
        Encode(out, begin, m, vr);
      }
      return Status::Ok();
    });
  }

  return WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (kIsComplex<T>) {
      if (*direction != ComparisonDirection::kEq && *direction != ComparisonDirection::kNe) {
        return InvalidArgument("compare of complex values supports only EQ and NE, not " +
                               std::string(ComparisonDirectionName(*direction)));
      }
    }
    return WithDirection(*direction, [&](auto cmp) -> Status {
      if constexpr (kIsComplex<T>) {
        using Cmp = decltype(cmp);
        if constexpr (std::is_same_v<Cmp, std::equal_to<>> ||
                      std::is_same_v<Cmp, std::not_equal_to<>>) {
          return Apply2<T>(a, b, out, [cmp](T x, T y) -> bool { return cmp(x, y); });
        }
        return Internal("unreachable complex comparison");
      } else {
        // IEEE comparisons for FLOAT (NaN unordered); integers by value, pred as 0 < 1.
        return Apply2<T>(a, b, out, [cmp](T x, T y) -> bool { return cmp(x, y); });
      }
    });
  });
}

// --- select, clamp -------------------------------------------------------------

template <size_t kBytes>
void SelectLoop(const Literal& pred, const Literal& on_true, const Literal& on_false,
                Literal* out) {
  const int64_t n = out->element_count();
  const bool pred_scalar = pred.element_count() == 1;
  const int64_t t_step = on_true.element_count() == 1 ? 0 : static_cast<int64_t>(kBytes);
  const int64_t f_step = on_false.element_count() == 1 ? 0 : static_cast<int64_t>(kBytes);
  const uint8_t* p = pred.untyped_data();
  const uint8_t* t = on_true.untyped_data();
  const uint8_t* f = on_false.untyped_data();
  uint8_t* o = out->untyped_data();
  for (int64_t i = 0; i < n; ++i) {
    const bool choose_true = p[pred_scalar ? 0 : i] != 0;
    const uint8_t* src = choose_true ? t + i * t_step : f + i * f_step;
    std::memcpy(o + i * static_cast<int64_t>(kBytes), src, kBytes);
  }
}

Status EvalSelect(const Literal& pred, const Literal& on_true, const Literal& on_false,
                  Literal* out) {
  if (!IsPred(pred.shape().element_type())) {
    return InvalidArgument("select's first operand must be pred, not " +
                           std::string(PrimitiveTypeName(pred.shape().element_type())));
  }
  if (on_true.shape().element_type() != out->shape().element_type() ||
      on_false.shape().element_type() != out->shape().element_type()) {
    return InvalidArgument("select's value operands must have the result's element type");
  }
  switch (out->slot_bytes()) {
    case 1:
      SelectLoop<1>(pred, on_true, on_false, out);
      break;
    case 2:
      SelectLoop<2>(pred, on_true, on_false, out);
      break;
    case 4:
      SelectLoop<4>(pred, on_true, on_false, out);
      break;
    case 8:
      SelectLoop<8>(pred, on_true, on_false, out);
      break;
    default:
      SelectLoop<16>(pred, on_true, on_false, out);
      break;
  }
  return Status::Ok();
}

Status EvalClamp(const Instruction& inst, const Literal& lo, const Literal& x, const Literal& hi,
                 Literal* out) {
  const PT type = x.shape().element_type();
  return WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (!kIsComplex<T>) {
      MapTernary<T>(lo, x, hi, out, [](T l, T v, T h) -> T { return Clamp(l, v, h); });
      return Status::Ok();
    }
    return Unsupported(inst, type);
  });
}

// --- Conversions -----------------------------------------------------------------

Status EvalConvert(const Literal& a, Literal* out) {
  return WithComputeType(a.shape().element_type(), [&](auto tag) -> Status {
    using T = decltype(tag);
    MapUnary<T, T>(a, out, [](T x) { return x; });  // Encode applies convert's rules
    return Status::Ok();
  });
}

// Reads bit `bit` of the little-endian bit stream formed by a literal's elements.
int ReadStreamBit(const uint8_t* data, int width, int64_t bit) {
  if (width >= 8) return (data[bit / 8] >> (bit % 8)) & 1;
  return (data[bit / width] >> (bit % width)) & 1;
}

// bitcast-convert: the bits stay, the element type changes. Between types of different
// widths the array is reinterpreted as one little-endian bit stream, so the wider side
// has one extra minor dimension (f32[2] <-> u8[2,4]; u8 <-> s4[2], low bits first).
Status EvalBitcastConvert(const Literal& a, Literal* out) {
  const PT from = a.shape().element_type();
  const PT to = out->shape().element_type();
  if (IsPred(from) || IsPred(to)) {
    return InvalidArgument("bitcast-convert from or to pred is not allowed");
  }
  const int from_width = BitWidth(from);
  const int to_width = BitWidth(to);
  const int64_t bits = a.element_count() * from_width;
  if (bits != out->element_count() * to_width) {
    return InvalidArgument("bitcast-convert from " + a.shape().ToString() + " to " +
                           out->shape().ToString() + " changes the number of bits");
  }
  if ((from_width >= 8 && to_width >= 8) || from_width == to_width) {
    // Slots hold the little-endian encodings back to back (sub-byte slots one each).
    std::memcpy(out->untyped_data(), a.untyped_data(), static_cast<size_t>(a.size_bytes()));
    return Status::Ok();
  }
  const uint8_t* src = a.untyped_data();
  uint8_t* dst = out->untyped_data();
  std::memset(dst, 0, static_cast<size_t>(out->size_bytes()));
  for (int64_t bit = 0; bit < bits; ++bit) {
    if (ReadStreamBit(src, from_width, bit) == 0) continue;
    if (to_width >= 8) {
      dst[bit / 8] = static_cast<uint8_t>(dst[bit / 8] | (1u << (bit % 8)));
    } else {
      dst[bit / to_width] = static_cast<uint8_t>(dst[bit / to_width] | (1u << (bit % to_width)));
    }
  }
  return Status::Ok();
}

Status EvalReducePrecision(const Instruction& inst, const Literal& a, Literal* out) {
  const int exponent_bits = static_cast<int>(inst.attrs().exponent_bits);
  const int mantissa_bits = static_cast<int>(inst.attrs().mantissa_bits);
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return InvalidArgument("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  const PT type = a.shape().element_type();
  return WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (kIsReal<T>) {
      return Apply<T>(a, out, [exponent_bits, mantissa_bits](T x) -> T {
        return ReducePrecision(x, exponent_bits, mantissa_bits);
      });
    }
    return Unsupported(inst, type);
  });
}

// complex(re, im) from two real operands.
Status EvalComplex(const Instruction& inst, const Literal& re, const Literal& im, Literal* out) {
  const PT type = re.shape().element_type();
  return WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (kIsReal<T>) {
      return Apply2<T>(re, im, out, [](T x, T y) { return std::complex<T>(x, y); });
    }
    return Unsupported(inst, type);
  });
}

// The value `v` takes in float type `type` (as XLA builds scalar constants in it).
double RoundTrip(PT type, double v) { return FloatBitsToDouble(type, DoubleToFloatBits(type, v)); }

// stochastic-convert(x, random) to a signed integer, as XLA's decomposition defines it:
// |x| is truncated and rounded up when `random` is below its fraction scaled to the
// random's width; the sign is restored; x at or beyond the type's range saturates.
Status EvalStochasticConvert(const Instruction& inst, const Literal& a, const Literal& random,
                             Literal* out) {
  const PT from = a.shape().element_type();
  const PT random_type = random.shape().element_type();
  const PT to = out->shape().element_type();
  if (!IsFloat(from) || !IsUnsignedInt(random_type) || BitWidth(random_type) != BitWidth(from)) {
    return InvalidArgument(
        "stochastic-convert needs a float operand and unsigned random bits of the same width");
  }
  if (!IsSignedInt(to)) {
    return Unimplemented("stochastic-convert to " + std::string(PrimitiveTypeName(to)) +
                         " (XLA defines it only for signed integer results)");
  }
  const int to_width = BitWidth(to);
  const int random_width = BitWidth(random_type);
  const double scale = std::ldexp(1.0, random_width);
  // Bounds and scaled fractions are values of the operand type (f16 scales in f32).
  const bool rounds_in_type = from != PT::kF16 && from != PT::kF32 && from != PT::kF64;
  const double min_value = RoundTrip(from, -std::ldexp(1.0, to_width - 1));
  const double max_value = RoundTrip(from, std::ldexp(1.0, to_width - 1) - 1);
  const int64_t min_int = SignExtend(uint64_t{1} << (to_width - 1), to_width);
  const int64_t max_int = static_cast<int64_t>(WidthMask(to_width - 1));

  return WithComputeType(from, [&](auto tag) -> Status {
    using T = decltype(tag);
    if constexpr (kIsReal<T>) {
      const int64_t n = out->element_count();
      T vx[kChunk];
      uint64_t vr[kChunk];
      int64_t vo[kChunk];
      for (int64_t begin = 0; begin < n; begin += kChunk) {
        const int64_t m = std::min(kChunk, n - begin);
        Decode(a, begin, m, vx);
        Decode(random, begin, m, vr);
        for (int64_t i = 0; i < m; ++i) {
          const double x = static_cast<double>(vx[i]);
          const double magnitude = std::fabs(x);
          const double whole = std::floor(magnitude);
          double fixed = (magnitude - whole) * scale;
          if (rounds_in_type) fixed = RoundTrip(from, fixed);
          const bool round_up = vr[i] < FloatToUnsigned(fixed, random_width);
          int64_t result = FloatToSigned(whole, to_width);
          if (round_up) result = SignExtend(static_cast<uint64_t>(WrapAdd(result, 1)), to_width);
          if (x < 0) result = SignExtend(static_cast<uint64_t>(WrapNeg(result)), to_width);
          if (x <= min_value) result = min_int;
          if (x >= max_value) result = max_int;
          vo[i] = result;
        }
        Encode(out, begin, m, vo);
      }
      return Status::Ok();
    }
    return Unsupported(inst, from);
  });
}

// --- Operand checks --------------------------------------------------------------

Status CheckArrays(const Instruction& inst, Operands operands, size_t arity) {
  if (operands.size() != arity) {
    return InvalidArgument(OpName(inst) + " expects " + std::to_string(arity) + " operands, got " +
                           std::to_string(operands.size()));
  }
  if (!inst.shape().IsArray()) {
    return InvalidArgument(OpName(inst) + " must produce an array, not " + inst.shape().ToString());
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] == nullptr || !operands[i]->shape().IsArray()) {
      return InvalidArgument(OpName(inst) + " operand " + std::to_string(i) + " is not an array");
    }
  }
  return Status::Ok();
}

// Operand `i` must have the result's element count (or one element if `scalar_ok`).
Status CheckCount(const Instruction& inst, const Literal& operand, size_t i, int64_t count,
                  bool scalar_ok) {
  const int64_t have = operand.element_count();
  if (have == count || (scalar_ok && have == 1)) return Status::Ok();
  return InvalidArgument(OpName(inst) + " operand " + std::to_string(i) + " has shape " +
                         operand.shape().ToString() + ", which does not match the result " +
                         inst.shape().ToString());
}

Status CheckSameType(const Instruction& inst, const Literal& a, const Literal& b) {
  if (a.shape().element_type() == b.shape().element_type()) return Status::Ok();
  return InvalidArgument(OpName(inst) + " operands differ in element type: " +
                         std::string(PrimitiveTypeName(a.shape().element_type())) + " and " +
                         std::string(PrimitiveTypeName(b.shape().element_type())));
}

bool IsUnaryOp(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kNegate:
    case Opcode::kSign:
    case Opcode::kNot:
    case Opcode::kPopulationCount:
    case Opcode::kClz:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kSqrt:
    case Opcode::kRsqrt:
    case Opcode::kCbrt:
    case Opcode::kSin:
    case Opcode::kCos:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kSinh:
    case Opcode::kCosh:
    case Opcode::kAsin:
    case Opcode::kAcos:
    case Opcode::kAtan:
    case Opcode::kAsinh:
    case Opcode::kAcosh:
    case Opcode::kAtanh:
    case Opcode::kErf:
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kIsFinite:
    case Opcode::kReal:
    case Opcode::kImag:
      return true;
    default:
      return false;
  }
}

bool IsBinaryOp(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kPower:
    case Opcode::kAtan2:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kMulhi:
      return true;
    default:
      return false;
  }
}

}  // namespace

// ===========================================================================
// 5. EvalElementwise

namespace {

bool IsOwnedUnary(Opcode op) {
  return IsUnaryOp(op) || op == Opcode::kConvert || op == Opcode::kBitcastConvert ||
         op == Opcode::kReducePrecision;
}
bool IsOwnedBinary(Opcode op) {
  return IsBinaryOp(op) || op == Opcode::kCompare || op == Opcode::kComplex ||
         op == Opcode::kStochasticConvert;
}

// Evaluates an owned opcode into `result` (already shaped like the instruction).
Status Dispatch(const Instruction& inst, Operands operands, Literal* result) {
  const Opcode op = inst.opcode();
  const bool ternary = op == Opcode::kSelect || op == Opcode::kClamp;
  if (op == Opcode::kBitcastConvert) return EvalBitcastConvert(*operands[0], result);
  for (size_t i = 0; i < operands.size(); ++i) {
    RETURN_IF_ERROR(CheckCount(inst, *operands[i], i, result->element_count(), ternary));
  }
  if (IsOwnedUnary(op)) {
    const Literal& a = *operands[0];
    if (op == Opcode::kConvert) return EvalConvert(a, result);
    if (op == Opcode::kReducePrecision) return EvalReducePrecision(inst, a, result);
    return EvalUnary(inst, a, result);
  }
  if (IsOwnedBinary(op)) {
    const Literal& a = *operands[0];
    const Literal& b = *operands[1];
    if (op == Opcode::kStochasticConvert) return EvalStochasticConvert(inst, a, b, result);
    RETURN_IF_ERROR(CheckSameType(inst, a, b));
    if (op == Opcode::kCompare) return EvalCompare(inst, a, b, result);
    if (op == Opcode::kComplex) return EvalComplex(inst, a, b, result);
    return EvalBinary(inst, a, b, result);
  }
  if (op == Opcode::kSelect) return EvalSelect(*operands[0], *operands[1], *operands[2], result);
  RETURN_IF_ERROR(CheckSameType(inst, *operands[0], *operands[1]));
  RETURN_IF_ERROR(CheckSameType(inst, *operands[1], *operands[2]));
  return EvalClamp(inst, *operands[0], *operands[1], *operands[2], result);
}

}  // namespace

StatusOr<Literal> EvalElementwise(const Instruction& inst, Operands operands, EvalContext& ctx) {
  (void)ctx;  // stochastic-convert takes its random bits as an operand
  const Opcode op = inst.opcode();
  size_t arity;
  if (IsOwnedUnary(op)) {
    arity = 1;
  } else if (IsOwnedBinary(op)) {
    arity = 2;
  } else if (op == Opcode::kSelect || op == Opcode::kClamp) {
    arity = 3;
  } else {
    return NotMine();
  }
  RETURN_IF_ERROR(CheckArrays(inst, operands, arity));
  Literal result(inst.shape());
  RETURN_IF_ERROR(Dispatch(inst, operands, &result));
  return result;
}

}  // namespace fusebox
