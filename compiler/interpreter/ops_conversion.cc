// Conversion evaluators of the reference interpreter: convert, bitcast-convert,
// reduce-precision, complex and stochastic-convert, with XLA's semantics (see
// elementwise_internal.h for how elements are decoded and encoded).
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "compiler/interpreter/elementwise_internal.h"

namespace fusebox::interpreter {
namespace elementwise_internal {
namespace {

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

}  // namespace

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

}  // namespace elementwise_internal
}  // namespace fusebox::interpreter
