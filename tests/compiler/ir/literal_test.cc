// Tests for literals: float codecs of every narrow type, integer storage rules,
// printing and equality.
#include "compiler/ir/literal.h"

#include "compiler/support/strings.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace fusebox {
namespace {

using PT = PrimitiveType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const PT kNarrowFloats[] = {PT::kF16,        PT::kBF16,         PT::kF8E5M2,
                            PT::kF8E4M3,     PT::kF8E3M4,       PT::kF8E4M3FN,
                            PT::kF8E4M3FNUZ, PT::kF8E5M2FNUZ,   PT::kF8E4M3B11FNUZ,
                            PT::kF8E8M0FNU,  PT::kF4E2M1FN};

bool IsFnuz(PT t) {
  return t == PT::kF8E4M3FNUZ || t == PT::kF8E5M2FNUZ || t == PT::kF8E4M3B11FNUZ;
}

uint64_t Enc(PT t, double v) { return DoubleToFloatBits(t, v); }
double Dec(PT t, uint64_t bits) { return FloatBitsToDouble(t, bits); }

// ---------------------------------------------------------------------------
// Float codecs

TEST(FloatCodecTest, EveryBitPatternRoundTrips) {
  for (PT t : kNarrowFloats) {
    const int width = BitWidth(t);
    for (uint64_t bits = 0; bits < (uint64_t{1} << width); ++bits) {
      const double v = Dec(t, bits);
      const uint64_t back = Enc(t, v);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(Dec(t, back)))
            << PrimitiveTypeName(t) << " bits " << bits << " -> " << back;
      } else {
        ASSERT_EQ(back, bits) << PrimitiveTypeName(t) << " value " << v;
      }
    }
  }
}

TEST(FloatCodecTest, DecodedValuesAreOrdered) {
  // Positive encodings decode to increasing values (a check on the exponent/mantissa
  // layout independent of the encoder).
  for (PT t : kNarrowFloats) {
    const int magnitude_bits = t == PT::kF8E8M0FNU ? 8 : BitWidth(t) - 1;
    double previous = -1;
    for (uint64_t bits = 0; bits < (uint64_t{1} << magnitude_bits); ++bits) {
      const double v = Dec(t, bits);
      if (std::isnan(v) || std::isinf(v)) continue;
      EXPECT_GT(v, previous) << PrimitiveTypeName(t) << " bits " << bits;
      previous = v;
    }
  }
}

// Reference rounding: the nearest finite value by search over all encodings, ties to
// the even encoding (f8e8m0fnu, whose significand is always the odd 1, ties upward).
// Returns `kOverflow` when the nearest is past the largest finite value.
constexpr uint64_t kOverflow = ~uint64_t{0};

struct Candidate {
  double value;
  uint64_t bits;
};

std::vector<Candidate> PositiveCandidates(PT t) {
  const int magnitude_bits = t == PT::kF8E8M0FNU ? 8 : BitWidth(t) - 1;
  std::vector<Candidate> out;
  for (uint64_t bits = 0; bits < (uint64_t{1} << magnitude_bits); ++bits) {
    const double v = Dec(t, bits);
    if (std::isfinite(v)) out.push_back({v, bits});
  }
  std::sort(out.begin(), out.end(),
            [](const Candidate& a, const Candidate& b) { return a.value < b.value; });
  // A virtual value one step past the largest, standing for overflow.
  const Candidate& max = out.back();
  const double step =
      t == PT::kF8E8M0FNU ? max.value : max.value - out[out.size() - 2].value;
  out.push_back({max.value + step, max.bits + 1});
  return out;
}

uint64_t ReferenceRound(PT t, const std::vector<Candidate>& cands, double x) {
  // x > 0 and finite.
  auto it = std::lower_bound(cands.begin(), cands.end(), x,
                             [](const Candidate& c, double v) { return c.value < v; });
  const Candidate* pick;
  if (it == cands.begin()) {
    pick = &*it;
  } else if (it == cands.end()) {
    return kOverflow;
  } else {
    const Candidate& hi = *it;
    const Candidate& lo = *(it - 1);
    const double dlo = x - lo.value;
    const double dhi = hi.value - x;
    if (dlo < dhi) {
      pick = &lo;
    } else if (dhi < dlo) {
      pick = &hi;
    } else if (t == PT::kF8E8M0FNU) {
      pick = &hi;
    } else {
      pick = (lo.bits & 1) == 0 ? &lo : &hi;
    }
  }
  if (pick == &cands.back()) return kOverflow;
  return pick->bits;
}

uint64_t ExpectedOverflow(PT t, bool negative) {
  switch (t) {
    case PT::kF16: return negative ? 0xFC00 : 0x7C00;
    case PT::kBF16: return negative ? 0xFF80 : 0x7F80;
    case PT::kF8E5M2: return negative ? 0xFC : 0x7C;
    case PT::kF8E4M3: return negative ? 0xF8 : 0x78;
    case PT::kF8E3M4: return negative ? 0xF0 : 0x70;
    case PT::kF8E4M3FN: return negative ? 0xFF : 0x7F;
    case PT::kF8E4M3FNUZ:
    case PT::kF8E5M2FNUZ:
    case PT::kF8E4M3B11FNUZ: return 0x80;
    case PT::kF8E8M0FNU: return 0xFF;
    case PT::kF4E2M1FN: return negative ? 0xF : 0x7;
    default: return 0;
  }
}

uint64_t ExpectedEncoding(PT t, const std::vector<Candidate>& cands, double x) {
  const bool negative = std::signbit(x);
  uint64_t bits = ReferenceRound(t, cands, std::fabs(x));
  if (bits == kOverflow) return ExpectedOverflow(t, negative);
  if (!negative) return bits;
  if (t == PT::kF8E8M0FNU) return 0xFF;
  if (IsFnuz(t) && bits == 0) return 0;
  return bits | (uint64_t{1} << (BitWidth(t) - 1));
}

TEST(FloatCodecTest, EncodingMatchesNearestSearch) {
  std::mt19937_64 rng(1234);
  for (PT t : kNarrowFloats) {
    const std::vector<Candidate> cands = PositiveCandidates(t);
    std::vector<double> probes;
    for (size_t i = 0; i < cands.size(); ++i) {
      const double v = cands[i].value;
      probes.push_back(v);
      if (v > 0) {
        probes.push_back(std::nextafter(v, 0.0));
        probes.push_back(std::nextafter(v, kInf));
      }
      if (i + 1 < cands.size()) {
        const double mid = (v + cands[i + 1].value) / 2;  // exact: both are short
        probes.push_back(mid);
        probes.push_back(std::nextafter(mid, 0.0));
        probes.push_back(std::nextafter(mid, kInf));
      }
    }
    const double lo = std::log2(cands.front().value > 0 ? cands.front().value : cands[1].value);
    const double hi = std::log2(cands.back().value);
    std::uniform_real_distribution<double> exponent(lo - 3, hi + 2);
    std::uniform_real_distribution<double> unit(1.0, 2.0);
    for (int i = 0; i < 20000; ++i) probes.push_back(std::exp2(exponent(rng)) * unit(rng));
    for (double p : probes) {
      if (p == 0.0 && t == PT::kF8E8M0FNU) continue;
      for (double x : {p, -p}) {
        if (x == 0.0 && std::signbit(x) && t == PT::kF8E8M0FNU) continue;
        ASSERT_EQ(Enc(t, x), ExpectedEncoding(t, cands, x))
            << PrimitiveTypeName(t) << " x=" << x;
      }
    }
  }
}

#ifdef __FLT16_MAX__
TEST(FloatCodecTest, F16MatchesCompiler) {
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> exponent(-30, 18);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::exp2(exponent(rng)) * unit(rng) * (i % 2 ? -1 : 1);
    const _Float16 h = static_cast<_Float16>(x);
    ASSERT_EQ(Enc(PT::kF16, x), std::bit_cast<uint16_t>(h)) << x;
  }
}
#endif

TEST(FloatCodecTest, F32AndF64AreBitCasts) {
  EXPECT_EQ(Enc(PT::kF32, 0.1), std::bit_cast<uint32_t>(0.1f));
  EXPECT_EQ(Enc(PT::kF64, 0.1), std::bit_cast<uint64_t>(0.1));
  EXPECT_EQ(Dec(PT::kF32, 0x3F800000), 1.0);
  EXPECT_EQ(Dec(PT::kF32, 0x7F800000), kInf);
  EXPECT_EQ(Enc(PT::kF32, 1e300), 0x7F800000u);
  EXPECT_EQ(Dec(PT::kF64, std::bit_cast<uint64_t>(-2.5)), -2.5);
}

TEST(FloatCodecTest, F16KnownValues) {
  EXPECT_EQ(Enc(PT::kF16, 1.0), 0x3C00u);
  EXPECT_EQ(Enc(PT::kF16, -2.0), 0xC000u);
  EXPECT_EQ(Enc(PT::kF16, 65504.0), 0x7BFFu);
  EXPECT_EQ(Dec(PT::kF16, 0x7BFF), 65504.0);
  EXPECT_EQ(Enc(PT::kF16, 65519.0), 0x7BFFu);
  EXPECT_EQ(Enc(PT::kF16, 65520.0), 0x7C00u);  // tie at max + ulp/2 goes to inf
  EXPECT_EQ(Enc(PT::kF16, -65520.0), 0xFC00u);
  EXPECT_EQ(Enc(PT::kF16, kInf), 0x7C00u);
  EXPECT_EQ(Enc(PT::kF16, kNaN), 0x7E00u);
  EXPECT_EQ(Enc(PT::kF16, -kNaN), 0xFE00u);
  EXPECT_TRUE(std::isnan(Dec(PT::kF16, 0x7C01)));
  EXPECT_TRUE(std::signbit(Dec(PT::kF16, 0xFE00)));
  EXPECT_EQ(Enc(PT::kF16, -0.0), 0x8000u);
  // Ties to even in the normal range: 1 + 2^-11 sits between 0x3C00 and 0x3C01.
  EXPECT_EQ(Enc(PT::kF16, 1.0 + 0x1p-11), 0x3C00u);
  EXPECT_EQ(Enc(PT::kF16, 1.0 + 3 * 0x1p-11), 0x3C02u);
  EXPECT_EQ(Enc(PT::kF16, std::nextafter(1.0 + 0x1p-11, 2.0)), 0x3C01u);
  // Subnormals.
  EXPECT_EQ(Dec(PT::kF16, 0x0001), 0x1p-24);
  EXPECT_EQ(Dec(PT::kF16, 0x03FF), 1023 * 0x1p-24);
  EXPECT_EQ(Enc(PT::kF16, 0x1p-24), 0x0001u);
  EXPECT_EQ(Enc(PT::kF16, 0x1p-25), 0x0000u);  // tie to even (zero)
  EXPECT_EQ(Enc(PT::kF16, 3 * 0x1p-25), 0x0002u);  // tie to even (2)
  EXPECT_EQ(Enc(PT::kF16, std::nextafter(0x1p-25, 1.0)), 0x0001u);
  EXPECT_EQ(Enc(PT::kF16, -0x1p-26), 0x8000u);
  EXPECT_EQ(Enc(PT::kF16, 0x1p-14 - 0x1p-25), 0x0400u);  // rounds up into normals
}

TEST(FloatCodecTest, BF16KnownValues) {
  EXPECT_EQ(Enc(PT::kBF16, 1.0), 0x3F80u);
  EXPECT_EQ(Enc(PT::kBF16, -1.0), 0xBF80u);
  EXPECT_EQ(Enc(PT::kBF16, 3.0), 0x4040u);
  EXPECT_EQ(Enc(PT::kBF16, kNaN), 0x7FC0u);
  EXPECT_EQ(Enc(PT::kBF16, kInf), 0x7F80u);
  EXPECT_EQ(Enc(PT::kBF16, 1e39), 0x7F80u);
  EXPECT_EQ(Dec(PT::kBF16, 0x7F7F), 0x1.FEp127);
  EXPECT_EQ(Enc(PT::kBF16, 1.0 + 0x1p-8), 0x3F80u);      // tie, even stays
  EXPECT_EQ(Enc(PT::kBF16, 1.0 + 3 * 0x1p-8), 0x3F82u);  // tie, odd rounds up
  EXPECT_EQ(Dec(PT::kBF16, 0x0001), 0x1p-133);
  // Agrees with f32 then truncation-with-rounding for an ordinary value.
  const uint32_t f32 = std::bit_cast<uint32_t>(3.14159f);
  EXPECT_EQ(Enc(PT::kBF16, 3.14159f), (f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16);
}

TEST(FloatCodecTest, F8E4M3FN) {
  const PT t = PT::kF8E4M3FN;
  EXPECT_EQ(Enc(t, 448.0), 0x7Eu);
  EXPECT_EQ(Dec(t, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(Dec(t, 0x7F)));
  EXPECT_TRUE(std::isnan(Dec(t, 0xFF)));
  EXPECT_EQ(Dec(t, 0x78), 256.0);  // exponent all ones is a normal binade
  EXPECT_EQ(Enc(t, 1.0), 0x38u);
  EXPECT_EQ(Enc(t, 464.0), 0x7Eu);  // tie between 448 (even) and 480 (NaN slot)
  EXPECT_EQ(Enc(t, 465.0), 0x7Fu);  // past it: NaN, as ml_dtypes
  EXPECT_EQ(Enc(t, 1e6), 0x7Fu);
  EXPECT_EQ(Enc(t, -1e6), 0xFFu);
  EXPECT_EQ(Enc(t, kInf), 0x7Fu);
  EXPECT_EQ(Enc(t, -kInf), 0xFFu);
  EXPECT_EQ(Enc(t, kNaN), 0x7Fu);
  EXPECT_EQ(Enc(t, -0.0), 0x80u);
  EXPECT_EQ(Dec(t, 0x01), 0x1p-9);
  EXPECT_EQ(Enc(t, 0x1p-10), 0x00u);
  EXPECT_EQ(Enc(t, 1.5 * 0x1p-10), 0x01u);
  EXPECT_EQ(Enc(t, -0x1p-11), 0x80u);
}

TEST(FloatCodecTest, F8E5M2) {
  const PT t = PT::kF8E5M2;
  EXPECT_EQ(Dec(t, 0x7C), kInf);
  EXPECT_EQ(Dec(t, 0xFC), -kInf);
  EXPECT_TRUE(std::isnan(Dec(t, 0x7D)));
  EXPECT_EQ(Enc(t, 1.0), 0x3Cu);
  EXPECT_EQ(Dec(t, 0x7B), 57344.0);
  EXPECT_EQ(Enc(t, 61440.0), 0x7Cu);  // tie past the max (odd) rounds to inf
  EXPECT_EQ(Enc(t, 61439.0), 0x7Bu);
  EXPECT_EQ(Enc(t, kNaN), 0x7Eu);
  EXPECT_EQ(Dec(t, 0x01), 0x1p-16);
}

TEST(FloatCodecTest, F8E4M3AndF8E3M4) {
  EXPECT_EQ(Enc(PT::kF8E4M3, 1.0), 0x38u);
  EXPECT_EQ(Dec(PT::kF8E4M3, 0x77), 240.0);
  EXPECT_EQ(Dec(PT::kF8E4M3, 0x78), kInf);
  EXPECT_EQ(Enc(PT::kF8E4M3, 248.0), 0x78u);
  EXPECT_EQ(Dec(PT::kF8E4M3, 0x01), 0x1p-9);
  EXPECT_EQ(Enc(PT::kF8E3M4, 1.0), 0x30u);
  EXPECT_EQ(Dec(PT::kF8E3M4, 0x6F), 15.5);
  EXPECT_EQ(Dec(PT::kF8E3M4, 0x70), kInf);
  EXPECT_EQ(Enc(PT::kF8E3M4, 16.0), 0x70u);
  EXPECT_EQ(Dec(PT::kF8E3M4, 0x01), 0x1p-6);
  EXPECT_EQ(Enc(PT::kF8E3M4, kNaN), 0x78u);
}

TEST(FloatCodecTest, FnuzTypes) {
  EXPECT_EQ(Enc(PT::kF8E4M3FNUZ, 1.0), 0x40u);
  EXPECT_EQ(Dec(PT::kF8E4M3FNUZ, 0x7F), 240.0);
  EXPECT_EQ(Dec(PT::kF8E4M3FNUZ, 0x01), 0x1p-10);
  EXPECT_EQ(Enc(PT::kF8E5M2FNUZ, 1.0), 0x40u);
  EXPECT_EQ(Dec(PT::kF8E5M2FNUZ, 0x7F), 57344.0);
  EXPECT_EQ(Dec(PT::kF8E5M2FNUZ, 0x01), 0x1p-17);
  EXPECT_EQ(Enc(PT::kF8E4M3B11FNUZ, 1.0), 0x58u);
  EXPECT_EQ(Dec(PT::kF8E4M3B11FNUZ, 0x7F), 30.0);
  EXPECT_EQ(Dec(PT::kF8E4M3B11FNUZ, 0x01), 0x1p-13);
  for (PT t : {PT::kF8E4M3FNUZ, PT::kF8E5M2FNUZ, PT::kF8E4M3B11FNUZ}) {
    SCOPED_TRACE(std::string(PrimitiveTypeName(t)));
    EXPECT_TRUE(std::isnan(Dec(t, 0x80)));
    EXPECT_FALSE(std::signbit(Dec(t, 0x80)));
    EXPECT_EQ(Enc(t, -0.0), 0x00u);
    EXPECT_EQ(Enc(t, -1e-30), 0x00u);
    EXPECT_EQ(Enc(t, kNaN), 0x80u);
    EXPECT_EQ(Enc(t, -kNaN), 0x80u);
    EXPECT_EQ(Enc(t, kInf), 0x80u);
    EXPECT_EQ(Enc(t, -kInf), 0x80u);
    EXPECT_EQ(Enc(t, 1e10), 0x80u);
    EXPECT_EQ(Enc(t, -1e10), 0x80u);
    EXPECT_EQ(Enc(t, -1.0), 0x80u | Enc(t, 1.0));
  }
}

TEST(FloatCodecTest, F8E8M0FNU) {
  const PT t = PT::kF8E8M0FNU;
  EXPECT_EQ(Dec(t, 0x00), 0x1p-127);
  EXPECT_EQ(Dec(t, 0x7F), 1.0);
  EXPECT_EQ(Dec(t, 0xFE), 0x1p127);
  EXPECT_TRUE(std::isnan(Dec(t, 0xFF)));
  for (int e = -127; e <= 127; ++e) {
    EXPECT_EQ(Enc(t, std::ldexp(1.0, e)), static_cast<uint64_t>(e + 127));
    EXPECT_EQ(Dec(t, static_cast<uint64_t>(e + 127)), std::ldexp(1.0, e));
  }
  EXPECT_EQ(Enc(t, 1.5), 0x80u);   // ties go up (significand 1 is odd)
  EXPECT_EQ(Enc(t, 1.25), 0x7Fu);
  EXPECT_EQ(Enc(t, 1.75), 0x80u);
  EXPECT_EQ(Enc(t, 0x1p-130), 0x00u);  // below the smallest: the smallest
  EXPECT_EQ(Enc(t, 1.5 * 0x1p127), 0xFFu);
  EXPECT_EQ(Enc(t, 0.0), 0xFFu);
  EXPECT_EQ(Enc(t, -0.0), 0xFFu);
  EXPECT_EQ(Enc(t, -1.0), 0xFFu);
  EXPECT_EQ(Enc(t, kInf), 0xFFu);
  EXPECT_EQ(Enc(t, kNaN), 0xFFu);
}

TEST(FloatCodecTest, F4E2M1FN) {
  const PT t = PT::kF4E2M1FN;
  const double values[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (uint64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(Dec(t, i), values[i]);
    EXPECT_EQ(Dec(t, i | 8), -values[i]);
    EXPECT_EQ(Enc(t, values[i]), i);
    EXPECT_EQ(Enc(t, -values[i]), i | 8);
  }
  EXPECT_TRUE(std::signbit(Dec(t, 0x8)));
  EXPECT_EQ(Enc(t, 0.25), 0x0u);  // tie -> 0 (even)
  EXPECT_EQ(Enc(t, 0.75), 0x2u);  // tie -> 1 (even)
  EXPECT_EQ(Enc(t, 2.5), 0x4u);   // tie -> 2
  EXPECT_EQ(Enc(t, 5.0), 0x6u);   // tie -> 4
  EXPECT_EQ(Enc(t, 5.1), 0x7u);
  EXPECT_EQ(Enc(t, 7.0), 0x7u);   // saturates
  EXPECT_EQ(Enc(t, 100.0), 0x7u);
  EXPECT_EQ(Enc(t, -100.0), 0xFu);
  EXPECT_EQ(Enc(t, kInf), 0x7u);
  EXPECT_EQ(Enc(t, -kInf), 0xFu);
  // No NaN: ml_dtypes' quiet_NaN() pattern (0x8, i.e. -0), sign-flipped for -NaN.
  EXPECT_EQ(Enc(t, kNaN), 0x8u);
  EXPECT_EQ(Enc(t, -kNaN), 0x0u);
}

// ---------------------------------------------------------------------------
// Storage and access

TEST(LiteralTest, SlotsAndSizes) {
  EXPECT_EQ(Literal(Shape::Scalar(PT::kPred)).slot_bytes(), 1);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kS4)).slot_bytes(), 1);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kU1)).slot_bytes(), 1);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kF4E2M1FN)).slot_bytes(), 1);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kBF16)).slot_bytes(), 2);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kF64)).slot_bytes(), 8);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kC64)).slot_bytes(), 8);
  EXPECT_EQ(Literal(Shape::Scalar(PT::kC128)).slot_bytes(), 16);
  Literal m(Shape(PT::kF32, {2, 3}));
  EXPECT_EQ(m.element_count(), 6);
  EXPECT_EQ(m.size_bytes(), 24);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(m.GetDouble(i), 0.0);
  Literal s4(Shape(PT::kS4, {5}));
  EXPECT_EQ(s4.size_bytes(), 5);
  Literal scalar(Shape::Scalar(PT::kS32));
  EXPECT_EQ(scalar.element_count(), 1);
  Literal empty(Shape(PT::kF32, {3, 0}));
  EXPECT_EQ(empty.element_count(), 0);
  EXPECT_EQ(empty.size_bytes(), 0);
  Literal token(Shape::Token());
  EXPECT_EQ(token.element_count(), 0);
  EXPECT_EQ(token.size_bytes(), 0);
  EXPECT_EQ(token.ToString(), "token");
}

TEST(LiteralTest, TuplesAreBuiltRecursively) {
  Shape inner = Shape::Tuple({Shape::Scalar(PT::kS8), Shape::Token()});
  Literal t(Shape::Tuple({Shape(PT::kF32, {2}), inner}));
  ASSERT_EQ(t.tuple_elements().size(), 2u);
  EXPECT_EQ(t.element_count(), 0);
  EXPECT_EQ(t.tuple_elements()[0].element_count(), 2);
  ASSERT_EQ(t.tuple_elements()[1].tuple_elements().size(), 2u);
  EXPECT_EQ(t.tuple_elements()[1].tuple_elements()[0].slot_bytes(), 1);
  Literal def;
  EXPECT_TRUE(def.shape().IsTuple());
  EXPECT_EQ(def.ToString(), "()");
}

TEST(LiteralTest, SubByteIntegersWrapAndSignExtend) {
  Literal s4(Shape(PT::kS4, {4}));
  s4.SetInt64(0, -1);
  EXPECT_EQ(s4.GetBits(0), 0x0Fu);
  EXPECT_EQ(s4.untyped_data()[0], 0x0F);
  EXPECT_EQ(s4.GetInt64(0), -1);
  s4.SetInt64(1, 8);
  EXPECT_EQ(s4.GetInt64(1), -8);
  s4.SetInt64(2, 15);
  EXPECT_EQ(s4.GetInt64(2), -1);
  s4.SetInt64(3, 7);
  EXPECT_EQ(s4.GetInt64(3), 7);
  EXPECT_EQ(s4.GetUint64(0), ~uint64_t{0});
  EXPECT_EQ(s4.GetDouble(1), -8.0);

  Literal u4(Shape(PT::kU4, {3}));
  u4.SetInt64(0, -1);
  EXPECT_EQ(u4.GetInt64(0), 15);
  u4.SetInt64(1, 16);
  EXPECT_EQ(u4.GetInt64(1), 0);
  u4.SetUint64(2, 0x1F);
  EXPECT_EQ(u4.GetUint64(2), 15u);

  Literal s2(Shape(PT::kS2, {4}));
  const int64_t expect_s2[] = {0, 1, -2, -1};
  for (int64_t i = 0; i < 4; ++i) {
    s2.SetInt64(i, i);
    EXPECT_EQ(s2.GetInt64(i), expect_s2[i]);
    EXPECT_LE(s2.GetBits(i), 3u);
  }
  Literal s1(Shape::Scalar(PT::kS1));
  s1.SetInt64(0, 1);
  EXPECT_EQ(s1.GetInt64(0), -1);
  Literal u2(Shape::Scalar(PT::kU2));
  u2.SetInt64(0, -1);
  EXPECT_EQ(u2.GetInt64(0), 3);
}

TEST(LiteralTest, WideIntegers) {
  Literal s8(Shape::Scalar(PT::kS8));
  s8.SetInt64(0, 200);
  EXPECT_EQ(s8.GetInt64(0), -56);
  Literal u16(Shape::Scalar(PT::kU16));
  u16.SetInt64(0, -1);
  EXPECT_EQ(u16.GetInt64(0), 65535);
  Literal s64(Shape::Scalar(PT::kS64));
  s64.SetInt64(0, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(s64.GetInt64(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(s64.ElementToString(0), "-9223372036854775808");
  Literal u64(Shape::Scalar(PT::kU64));
  u64.SetUint64(0, ~uint64_t{0});
  EXPECT_EQ(u64.GetUint64(0), ~uint64_t{0});
  EXPECT_EQ(u64.ElementToString(0), "18446744073709551615");
  Literal s32(Shape::Scalar(PT::kS32));
  s32.SetInt64(0, int64_t{1} << 32 | 5);
  EXPECT_EQ(s32.GetInt64(0), 5);
}

TEST(LiteralTest, SetDoubleOnIntegersTruncatesAndSaturates) {
  Literal s4(Shape::Scalar(PT::kS4));
  const std::pair<double, int64_t> s4_cases[] = {
      {7.9, 7}, {-3.7, -3}, {100, 7}, {-100, -8}, {kNaN, 0}, {kInf, 7}, {-kInf, -8}, {-0.5, 0}};
  for (auto [in, out] : s4_cases) {
    s4.SetDouble(0, in);
    EXPECT_EQ(s4.GetInt64(0), out) << in;
  }
  Literal u8(Shape::Scalar(PT::kU8));
  u8.SetDouble(0, -5);
  EXPECT_EQ(u8.GetInt64(0), 0);
  u8.SetDouble(0, 300);
  EXPECT_EQ(u8.GetInt64(0), 255);
  u8.SetDouble(0, 254.99);
  EXPECT_EQ(u8.GetInt64(0), 254);
  Literal s64(Shape::Scalar(PT::kS64));
  s64.SetDouble(0, 1e30);
  EXPECT_EQ(s64.GetInt64(0), std::numeric_limits<int64_t>::max());
  s64.SetDouble(0, -1e30);
  EXPECT_EQ(s64.GetInt64(0), std::numeric_limits<int64_t>::min());
  Literal u64(Shape::Scalar(PT::kU64));
  u64.SetDouble(0, 1e30);
  EXPECT_EQ(u64.GetUint64(0), ~uint64_t{0});
  Literal pred(Shape::Scalar(PT::kPred));
  pred.SetDouble(0, 0.25);
  EXPECT_TRUE(pred.GetBool(0));
  EXPECT_EQ(pred.GetBits(0), 1u);
  pred.SetDouble(0, 0.0);
  EXPECT_FALSE(pred.GetBool(0));
}

TEST(LiteralTest, FloatElements) {
  Literal f(Shape(PT::kF32, {3}));
  f.SetDouble(0, -2.7);
  EXPECT_EQ(f.GetInt64(0), -2);
  EXPECT_EQ(f.GetUint64(0), 0u);
  f.SetDouble(1, 0.1);
  EXPECT_EQ(f.GetDouble(1), static_cast<double>(0.1f));
  f.SetDouble(2, kNaN);
  EXPECT_EQ(f.GetInt64(2), 0);
  EXPECT_TRUE(f.GetBool(2));
  f.SetInt64(2, 7);
  EXPECT_EQ(f.GetDouble(2), 7.0);

  Literal h(Shape::Scalar(PT::kF16));
  h.SetDouble(0, 1.0);
  EXPECT_EQ(h.GetBits(0), 0x3C00u);
  h.SetBits(0, 0x7BFF);
  EXPECT_EQ(h.GetDouble(0), 65504.0);
  EXPECT_EQ(h.GetInt64(0), 65504);
  h.SetDouble(0, -0.0);
  EXPECT_FALSE(h.GetBool(0));

  Literal e4(Shape::Scalar(PT::kF8E4M3FN));
  e4.SetDouble(0, 1000.0);
  EXPECT_EQ(e4.GetBits(0), 0x7Fu);
  e4.SetInt64(0, -448);
  EXPECT_EQ(e4.GetBits(0), 0xFEu);
  Literal f4(Shape::Scalar(PT::kF4E2M1FN));
  f4.SetDouble(0, -3.0);
  EXPECT_EQ(f4.GetBits(0), 0xDu);
  EXPECT_EQ(f4.untyped_data()[0], 0x0D);
}

TEST(LiteralTest, LargeIntegersToNarrowFloatsRoundOnce) {
  // 2^60 + 2^52 + 1 lies just above the bf16 midpoint 2^60 + 2^52; going through a
  // round-to-nearest double would land on the midpoint and round down.
  Literal b(Shape::Scalar(PT::kBF16));
  b.SetInt64(0, (int64_t{1} << 60) + (int64_t{1} << 52) + 1);
  EXPECT_EQ(b.GetBits(0), Enc(PT::kBF16, 0x1p60 + 0x1p53));
  b.SetUint64(0, (uint64_t{1} << 63) + (uint64_t{1} << 55) + 1);
  EXPECT_EQ(b.GetBits(0), Enc(PT::kBF16, 0x1p63 + 0x1p56));
  Literal f(Shape::Scalar(PT::kF32));
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
  f.SetInt64(0, v);
  EXPECT_EQ(f.GetBits(0), std::bit_cast<uint32_t>(static_cast<float>(v)));
  Literal d(Shape::Scalar(PT::kF64));
  d.SetInt64(0, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(d.GetDouble(0), 0x1p63);
}

TEST(LiteralTest, ComplexElements) {
  Literal c(Shape(PT::kC64, {2}));
  c.SetComplex(0, {1.0, 2.5});
  c.SetDouble(1, 3.0);
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(1.0, 2.5));
  EXPECT_EQ(c.GetDouble(0), 1.0);
  EXPECT_EQ(c.GetComplex(1), std::complex<double>(3.0, 0.0));
  EXPECT_EQ(c.ElementToString(0), "(1, 2.5)");
  EXPECT_EQ(c.ToString(), "{(1, 2.5), (3, 0)}");
  float parts[2];
  std::memcpy(parts, c.untyped_data(), 8);
  EXPECT_EQ(parts[0], 1.0f);
  EXPECT_EQ(parts[1], 2.5f);
  Literal z(Shape::Scalar(PT::kC128));
  z.SetComplex(0, {0.1, -kInf});
  EXPECT_EQ(z.ElementToString(0), "(0.1, -inf)");
  c.SetComplex(0, {0.1, 0.0});
  EXPECT_EQ(c.ElementToString(0), "(0.1, 0)");
  EXPECT_TRUE(c.GetBool(0));
  c.SetComplex(0, {0.0, 0.0});
  EXPECT_FALSE(c.GetBool(0));
  c.SetInt64(1, -4);
  EXPECT_EQ(c.GetComplex(1), std::complex<double>(-4.0, 0.0));
}

// ---------------------------------------------------------------------------
// Printing

std::string Str(PT type, double v) {
  Literal l(Shape::Scalar(type));
  l.SetDouble(0, v);
  return l.ToString();
}

TEST(LiteralPrintTest, Scalars) {
  EXPECT_EQ(Str(PT::kF32, 1.5), "1.5");
  EXPECT_EQ(Str(PT::kF32, 1.0), "1");
  EXPECT_EQ(Str(PT::kF32, 0.1), "0.1");
  EXPECT_EQ(Str(PT::kF64, 0.1), "0.1");
  EXPECT_EQ(Str(PT::kF64, 1e300), "1e+300");
  EXPECT_EQ(Str(PT::kF32, kInf), "inf");
  EXPECT_EQ(Str(PT::kF32, -kInf), "-inf");
  EXPECT_EQ(Str(PT::kF32, kNaN), "nan");
  EXPECT_EQ(Str(PT::kF32, -kNaN), "-nan");
  EXPECT_EQ(Str(PT::kF16, -0.0), "-0");
  EXPECT_EQ(Str(PT::kF16, 0.1), "0.1");
  EXPECT_EQ(Str(PT::kBF16, 0.1), "0.1");
  EXPECT_EQ(Str(PT::kF16, 65504), "65504");  // exact, though 65500 also reads back
  EXPECT_EQ(Str(PT::kF16, 0x1p-24), "6e-08");
  EXPECT_EQ(Str(PT::kBF16, 3.140625), "3.14");
  EXPECT_EQ(Str(PT::kF8E5M2, 96), "96");
  EXPECT_EQ(Str(PT::kF8E5M2, 8192), "8192");
  EXPECT_EQ(Str(PT::kF8E8M0FNU, 0x1p-127), "6e-39");
  EXPECT_EQ(Str(PT::kF16, 70000), "inf");
  EXPECT_EQ(Str(PT::kF8E4M3FN, 448), "448");
  EXPECT_EQ(Str(PT::kF8E4M3FN, 1000), "nan");
  EXPECT_EQ(Str(PT::kF8E4M3FNUZ, kNaN), "nan");
  EXPECT_EQ(Str(PT::kF8E5M2, -kInf), "-inf");
  EXPECT_EQ(Str(PT::kF4E2M1FN, -1.5), "-1.5");
  EXPECT_EQ(Str(PT::kF8E8M0FNU, 0.25), "0.25");
  EXPECT_EQ(Str(PT::kS32, -42), "-42");
  EXPECT_EQ(Str(PT::kU8, 255), "255");
  EXPECT_EQ(Str(PT::kS4, -1), "-1");
  Literal p(Shape::Scalar(PT::kPred));
  EXPECT_EQ(p.ToString(), "false");
  p.SetBool(0, true);
  EXPECT_EQ(p.ToString(), "true");
  EXPECT_EQ(p.ToStringWithShape(), "pred[] true");
}

TEST(LiteralPrintTest, EveryNarrowElementPrintsAndReadsBack) {
  for (PT t : kNarrowFloats) {
    Literal l(Shape::Scalar(t));
    for (uint64_t bits = 0; bits < (uint64_t{1} << BitWidth(t)); ++bits) {
      l.SetBits(0, bits);
      const std::string text = l.ElementToString(0);
      const double parsed = std::strtod(text.c_str(), nullptr);
      const double value = Dec(t, bits);
      if (std::isnan(value)) {
        EXPECT_TRUE(text == "nan" || text == "-nan") << text;
        continue;
      }
      ASSERT_EQ(Enc(t, parsed), bits) << PrimitiveTypeName(t) << " " << text;
      // Never longer than the exact value's own text.
      EXPECT_LE(text.size(), FormatDouble(value).size()) << text;
    }
  }
}

TEST(LiteralPrintTest, Arrays) {
  Literal v(Shape(PT::kF32, {3}));
  for (int64_t i = 0; i < 3; ++i) v.SetDouble(i, static_cast<double>(i + 1));
  EXPECT_EQ(v.ToString(), "{1, 2, 3}");
  EXPECT_EQ(v.ToStringWithShape(), "f32[3] {1, 2, 3}");

  Literal m(Shape(PT::kS32, {2, 2}));
  for (int64_t i = 0; i < 4; ++i) m.SetInt64(i, i + 1);
  EXPECT_EQ(m.ToString(), "{ { 1, 2 }, { 3, 4 } }");
  EXPECT_EQ(m.ToStringWithShape(), "s32[2,2] { { 1, 2 }, { 3, 4 } }");

  Literal cube(Shape(PT::kS8, {2, 1, 3}));
  for (int64_t i = 0; i < 6; ++i) cube.SetInt64(i, i);
  EXPECT_EQ(cube.ToString(), "{ { { 0, 1, 2 } }, { { 3, 4, 5 } } }");

  Literal column(Shape(PT::kF32, {2, 1}));
  column.SetDouble(1, -1.5);
  EXPECT_EQ(column.ToString(), "{ {0}, {-1.5} }");

  EXPECT_EQ(Literal(Shape(PT::kF32, {0})).ToString(), "{}");
  EXPECT_EQ(Literal(Shape(PT::kF32, {0, 3})).ToString(), "{}");
  EXPECT_EQ(Literal(Shape(PT::kF32, {2, 0})).ToString(), "{ {}, {} }");
  EXPECT_EQ(Literal(Shape(PT::kF32, {1})).ToString(), "{0}");
  EXPECT_EQ(Literal(Shape(PT::kF32, {0})).ToStringWithShape(), "f32[0] {}");

  Literal p(Shape(PT::kPred, {3}));
  p.SetBool(0, true);
  p.SetBool(2, true);
  EXPECT_EQ(p.ToString(), "{1, 0, 1}");  // XLA prints pred arrays as 1/0

  Literal laid(Shape(PT::kF32, {2}));
  Shape with_layout = laid.shape();
  with_layout.SetDefaultLayout();
  Literal laid2(with_layout);
  EXPECT_EQ(laid2.ToStringWithShape(), "f32[2] {0, 0}");
}

TEST(LiteralPrintTest, Tuples) {
  Literal t(Shape::Tuple({Shape(PT::kF32, {2}), Shape::Scalar(PT::kS32)}));
  t.tuple_elements()[0].SetDouble(0, 1);
  t.tuple_elements()[0].SetDouble(1, 2);
  t.tuple_elements()[1].SetInt64(0, 3);
  EXPECT_EQ(t.ToString(), "( {1, 2}, 3 )");
  EXPECT_EQ(t.ToStringWithShape(), "( f32[2] {1, 2}, s32[] 3 )");
  Literal nested(Shape::Tuple({Shape::Tuple({Shape::Scalar(PT::kPred)}), Shape::Token()}));
  EXPECT_EQ(nested.ToString(), "( ( false ), token )");
  EXPECT_EQ(Literal(Shape::Tuple({})).ToString(), "()");
}

// ---------------------------------------------------------------------------
// Equality

TEST(LiteralEqualityTest, ComparesShapesAndBits) {
  Literal a(Shape(PT::kF32, {2}));
  Literal b(Shape(PT::kF32, {2}));
  EXPECT_EQ(a, b);
  a.SetDouble(1, 1.0);
  EXPECT_NE(a, b);
  b.SetDouble(1, 1.0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Literal(Shape(PT::kF32, {3})));
  EXPECT_NE(a, Literal(Shape(PT::kS32, {2})));
  EXPECT_NE(Literal(Shape(PT::kF32, {1, 2})), Literal(Shape(PT::kF32, {2, 1})));

  Shape laid(PT::kF32, {2});
  laid.SetDefaultLayout();
  Literal c(laid);
  c.SetDouble(1, 1.0);
  EXPECT_EQ(a, c);  // layout ignored

  Literal pz(Shape::Scalar(PT::kF32));
  Literal nz(Shape::Scalar(PT::kF32));
  nz.SetDouble(0, -0.0);
  EXPECT_NE(pz, nz);  // bitwise
  pz.SetDouble(0, kNaN);
  nz.SetDouble(0, kNaN);
  EXPECT_EQ(pz, nz);

  Literal s4a(Shape::Scalar(PT::kS4));
  Literal s4b(Shape::Scalar(PT::kS4));
  s4a.SetInt64(0, -1);
  s4b.untyped_data()[0] = 0xFF;  // stray high bits are not part of the element
  EXPECT_EQ(s4a, s4b);
}

TEST(LiteralEqualityTest, TuplesCompareRecursively) {
  Shape shape = Shape::Tuple({Shape::Scalar(PT::kS32), Shape::Tuple({Shape(PT::kF16, {2})})});
  Literal a(shape);
  Literal b(shape);
  EXPECT_EQ(a, b);
  a.tuple_elements()[1].tuple_elements()[0].SetDouble(1, 2.0);
  EXPECT_NE(a, b);
  b.tuple_elements()[1].tuple_elements()[0].SetDouble(1, 2.0);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, Literal(Shape::Tuple({Shape::Scalar(PT::kS32)})));
  EXPECT_EQ(Literal(), Literal(Shape::Tuple({})));
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

TEST(LiteralStorageTest, ZeroedAndUninitializedHaveTheSameLayout) {
  const Shape shape = Shape::Tuple({Shape(PrimitiveType::kF32, {3, 5}), Shape(PrimitiveType::kS8, {7})});
  Literal zeroed(shape);
  Literal uninitialized = Literal::CreateUninitialized(shape);
  ASSERT_EQ(uninitialized.shape(), shape);
  ASSERT_EQ(uninitialized.tuple_elements().size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(uninitialized.tuple_elements()[i].element_count(), zeroed.tuple_elements()[i].element_count());
    EXPECT_EQ(uninitialized.tuple_elements()[i].size_bytes(), zeroed.tuple_elements()[i].size_bytes());
  }
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(zeroed.tuple_elements()[0].GetDouble(i), 0.0);
}

TEST(LiteralStorageTest, LargeArraysAreHugePageAligned) {
  Literal small(Shape(PrimitiveType::kF32, {16}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(small.untyped_data()) % 64, 0u);
  Literal large(Shape(PrimitiveType::kF32, {1024, 1024}));  // 4 MiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.untyped_data()) % (uintptr_t{2} << 20), 0u);
  large.SetDouble(1024 * 1024 - 1, 2.5);
  EXPECT_EQ(large.GetDouble(1024 * 1024 - 1), 2.5);
  Literal copy = large;
  EXPECT_EQ(copy, large);
}

}  // namespace
}  // namespace fusebox
