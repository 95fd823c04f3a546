// Elementwise evaluators of the reference interpreter: arithmetic, math functions,
// comparisons and select/clamp, with XLA's semantics for every element type. How
// elements are decoded, computed and encoded is in elementwise_internal.h; the
// conversions (convert, bitcast-convert, reduce-precision, complex, stochastic-convert)
// are in ops_conversion.cc.
//
// Sections:
//   1. Scalar semantics (integer division, shifts, power, mulhi, rounding, total order)
//   2. Op families
//   3. EvalElementwise
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

#include "compiler/interpreter/elementwise_internal.h"
#include "compiler/interpreter/ops.h"
#include "compiler/ir/attributes.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/primitive_type.h"

namespace fusebox::interpreter {

using namespace elementwise_internal;  // NOLINT(build/namespaces): the codec and loops below

namespace {

// ===========================================================================
// 1. Scalar semantics

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

// ===========================================================================
// 2. Op families

// --- Unary -----------------------------------------------------------------

// abs, negate, sign, not, popcnt, clz, is-finite, real, imag: the unary ops whose meaning
// depends on the kind of element (bool, integer, float, complex). nullopt when `op` is
// none of these or T is not a type it takes.
template <typename T>
std::optional<Status> EvalKindDependentUnary(Opcode op, int width, const Literal& a,
                                             Literal* out) {
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
  return std::nullopt;
}

// Functions of float and complex values; nullopt for any other op.
template <typename T>
std::optional<Status> EvalMathFunction(Opcode op, const Literal& a, Literal* out) {
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
  return std::nullopt;
}

// Functions and roundings of real values only; nullopt for any other op.
template <typename T>
std::optional<Status> EvalRealFunction(Opcode op, const Literal& a, Literal* out) {
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
  return std::nullopt;
}

Status EvalUnary(const Instruction& inst, const Literal& a, Literal* out) {
  const PT type = a.shape().element_type();
  const int width = BitWidth(type);
  const Opcode op = inst.opcode();
  Status status = WithComputeType(type, [&](auto tag) -> Status {
    using T = decltype(tag);
    if (auto done = EvalKindDependentUnary<T>(op, width, a, out)) return *std::move(done);
    if constexpr (kIsReal<T> || kIsComplex<T>) {
      if (auto done = EvalMathFunction<T>(op, a, out)) return *std::move(done);
    }
    if constexpr (kIsReal<T>) {
      if (auto done = EvalRealFunction<T>(op, a, out)) return *std::move(done);
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
// 3. EvalElementwise

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

namespace {
// Operands each owned opcode takes; 0 for an opcode EvalElementwise does not own.
size_t ElementwiseArity(Opcode op) {
  if (IsOwnedUnary(op)) return 1;
  if (IsOwnedBinary(op)) return 2;
  if (op == Opcode::kSelect || op == Opcode::kClamp) return 3;
  return 0;
}
}  // namespace

bool IsElementwiseOpcode(Opcode op) { return ElementwiseArity(op) != 0; }

Status EvalElementwiseInto(const Instruction& inst, Operands operands, Literal* result) {
  const size_t arity = ElementwiseArity(inst.opcode());
  if (arity == 0) return NotMine();
  RETURN_IF_ERROR(CheckArrays(inst, operands, arity));
  return Dispatch(inst, operands, result);
}

StatusOr<Literal> EvalElementwise(const Instruction& inst, Operands operands, EvalContext& ctx) {
  (void)ctx;  // stochastic-convert takes its random bits as an operand
  if (!IsElementwiseOpcode(inst.opcode())) return NotMine();
  // Not zeroed first: every element is written (a GiB-sized result is not written twice).
  Literal result = Literal::CreateUninitialized(inst.shape());
  RETURN_IF_ERROR(EvalElementwiseInto(inst, operands, &result));
  return result;
}

}  // namespace fusebox::interpreter
