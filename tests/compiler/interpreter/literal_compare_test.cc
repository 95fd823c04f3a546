// Literal comparison tests: NaN and infinity rules, tolerance boundaries (worked out with
// values exact in binary), exact integers, complex distance, tuple paths, shape
// mismatches and the mismatch report.
#include "compiler/interpreter/literal_compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace fusebox::interpreter {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using PT = PrimitiveType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Literal Array(PT type, std::vector<int64_t> dims, const std::vector<double>& values) {
  Literal literal(Shape(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) literal.SetDouble(static_cast<int64_t>(i), values[i]);
  return literal;
}

Literal F64(const std::vector<double>& values) {
  return Array(PT::kF64, {static_cast<int64_t>(values.size())}, values);
}

Literal Scalar(PT type, double value) { return Array(type, {}, {value}); }

CompareOptions Tolerance(double atol, double rtol) {
  CompareOptions options;
  options.atol = atol;
  options.rtol = rtol;
  return options;
}

TEST(LiteralCompareTest, EqualArraysMatch) {
  const Literal a = Array(PT::kF32, {2, 2}, {1, 2, 3, 4});
  const CompareResult result = CompareLiterals(a, a);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.elements_compared, 4);
  EXPECT_EQ(result.ToString(), "all 4 elements match (max abs 0, max rel 0)");
}

TEST(LiteralCompareTest, ToleranceBoundaryIsInclusive) {
  // |a - b| <= atol + rtol * |b| with atol 0.25, rtol 0.5, b = 2: the bound is 1.25.
  const CompareOptions options = Tolerance(0.25, 0.5);
  EXPECT_TRUE(CompareLiterals(F64({3.25}), F64({2}), options).ok());
  EXPECT_TRUE(CompareLiterals(F64({0.75}), F64({2}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({std::nextafter(3.25, 4.0)}), F64({2}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({0.5}), F64({2}), options).ok());
}

TEST(LiteralCompareTest, RelativeToleranceScalesWithTheExpectedValue) {
  // rtol 0.5, no atol: actual 1 vs expected 2 is within 1; actual 2 vs expected 1 is not.
  const CompareOptions options = Tolerance(0, 0.5);
  EXPECT_TRUE(CompareLiterals(F64({1}), F64({2}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({2}), F64({1}), options).ok());
  // With no tolerance, zero matches only zero (and -0).
  EXPECT_TRUE(CompareLiterals(F64({-0.0}), F64({0}), Tolerance(0, 0)).ok());
  EXPECT_FALSE(CompareLiterals(F64({1e-300}), F64({0}), Tolerance(0, 0.5)).ok());
}

TEST(LiteralCompareTest, NanMatchesNanOnlyWhenAsked) {
  CompareOptions options = Tolerance(1, 1);
  EXPECT_TRUE(CompareLiterals(F64({kNaN}), F64({kNaN}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({kNaN}), F64({1}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({1}), F64({kNaN}), options).ok());
  EXPECT_FALSE(CompareLiterals(F64({kNaN}), F64({kInf}), options).ok());
  // Any payload and sign.
  Literal a(Shape(PT::kF32, {1}));
  Literal b(Shape(PT::kF32, {1}));
  a.SetBits(0, 0x7FC00001);
  b.SetBits(0, 0xFFC00000);
  EXPECT_TRUE(CompareLiterals(a, b, options).ok());
  options.nan_equal = false;
  EXPECT_FALSE(CompareLiterals(F64({kNaN}), F64({kNaN}), options).ok());
  EXPECT_FALSE(CompareLiterals(a, b, options).ok());
}

TEST(LiteralCompareTest, InfinityEqualsOnlyTheSameInfinity) {
  const CompareOptions huge = Tolerance(1e300, 1e300);
  EXPECT_TRUE(CompareLiterals(F64({kInf, -kInf}), F64({kInf, -kInf}), huge).ok());
  EXPECT_FALSE(CompareLiterals(F64({kInf}), F64({-kInf}), huge).ok());
  EXPECT_FALSE(CompareLiterals(F64({kInf}), F64({1e308}), huge).ok());
  EXPECT_FALSE(CompareLiterals(F64({1e308}), F64({kInf}), huge).ok());
  // Pairs involving infinities count toward neither error maximum.
  const CompareResult result = CompareLiterals(F64({kInf, 1.5}), F64({kInf, 1}), huge);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.max_abs_error, 0.5);
  EXPECT_EQ(result.max_rel_error, 0.5);
}

TEST(LiteralCompareTest, IntegersCompareExactlyWhateverTheTolerance) {
  const CompareOptions loose = Tolerance(100, 100);
  const CompareResult result =
      CompareLiterals(Array(PT::kS32, {3}, {1, 2, 3}), Array(PT::kS32, {3}, {1, 2, 4}), loose);
  EXPECT_EQ(result.mismatch_count, 1);
  EXPECT_EQ(result.max_abs_error, 1);
  EXPECT_EQ(result.max_rel_error, 0.25);
  EXPECT_EQ(result.ToString(),
            "1 of 3 elements differ (max abs 1, max rel 0.25); first: [2] actual 3 expected 4");

  // 64-bit values that one double cannot tell apart.
  Literal u1(Shape(PT::kU64, {1}));
  Literal u2(Shape(PT::kU64, {1}));
  u1.SetUint64(0, ~uint64_t{0});
  u2.SetUint64(0, ~uint64_t{0} - 1);
  EXPECT_FALSE(CompareLiterals(u1, u2, loose).ok());
  EXPECT_THAT(CompareLiterals(u1, u2, loose).ToString(),
              HasSubstr("actual 18446744073709551615 expected 18446744073709551614"));
  Literal s1(Shape(PT::kS64, {1}));
  Literal s2(Shape(PT::kS64, {1}));
  s1.SetInt64(0, std::numeric_limits<int64_t>::min());
  s2.SetInt64(0, std::numeric_limits<int64_t>::min() + 1);
  EXPECT_FALSE(CompareLiterals(s1, s2, loose).ok());

  EXPECT_FALSE(CompareLiterals(Scalar(PT::kPred, 1), Scalar(PT::kPred, 0), loose).ok());
  EXPECT_TRUE(CompareLiterals(Scalar(PT::kS4, -8), Scalar(PT::kS4, -8), loose).ok());
}

TEST(LiteralCompareTest, ComplexUsesTheDistanceBetweenValues) {
  Literal actual(Shape(PT::kC64, {1}));
  Literal expected(Shape(PT::kC64, {1}));
  actual.SetComplex(0, {3, 4});
  expected.SetComplex(0, {0, 0});
  // |(3,4) - 0| = 5.
  EXPECT_TRUE(CompareLiterals(actual, expected, Tolerance(5, 0)).ok());
  EXPECT_FALSE(CompareLiterals(actual, expected, Tolerance(4.875, 0)).ok());
  // rtol against |expected| = 5: (3,4) vs (0,0) swapped, 5 <= 1 * 5.
  EXPECT_TRUE(CompareLiterals(expected, actual, Tolerance(0, 1)).ok());
  EXPECT_EQ(CompareLiterals(expected, actual, Tolerance(0, 1)).max_rel_error, 1);

  Literal nan_a(Shape(PT::kC128, {2}));
  Literal nan_b(Shape(PT::kC128, {2}));
  nan_a.SetComplex(0, {1, kNaN});
  nan_b.SetComplex(0, {kNaN, 2});
  nan_a.SetComplex(1, {kInf, 1});
  nan_b.SetComplex(1, {kInf, 1});
  EXPECT_TRUE(CompareLiterals(nan_a, nan_b).ok());
  nan_b.SetComplex(1, {kInf, 1.5});
  EXPECT_FALSE(CompareLiterals(nan_a, nan_b, Tolerance(10, 10)).ok());
  nan_b.SetComplex(1, {kInf, 1});
  nan_b.SetComplex(0, {1, 2});
  EXPECT_FALSE(CompareLiterals(nan_a, nan_b).ok());
}

TEST(LiteralCompareTest, TupleMismatchesCarryTheirPath) {
  Literal actual(Shape::Tuple(
      {Shape(PT::kF32, {2}), Shape::Tuple({Shape(PT::kS32, {}), Shape(PT::kF32, {1, 2})})}));
  Literal expected(actual.shape());
  actual.tuple_elements()[1].tuple_elements()[1].SetDouble(1, 2);
  expected.tuple_elements()[1].tuple_elements()[1].SetDouble(1, 1);
  const CompareResult result = CompareLiterals(actual, expected);
  EXPECT_TRUE(result.shapes_match);
  EXPECT_EQ(result.elements_compared, 5);
  EXPECT_EQ(result.mismatch_count, 1);
  ASSERT_EQ(result.first_mismatches.size(), 1u);
  EXPECT_THAT(result.first_mismatches[0].tuple_index, ElementsAre(1, 1));
  EXPECT_THAT(result.first_mismatches[0].index, ElementsAre(0, 1));
  EXPECT_EQ(result.ToString(),
            "1 of 5 elements differ (max abs 1, max rel 1); first: {1,1}[0,1] actual 2 "
            "expected 1");
}

TEST(LiteralCompareTest, ShapeMismatchesNameBothShapes) {
  const Literal f32_23(Shape(PT::kF32, {2, 3}));
  const Literal f32_32(Shape(PT::kF32, {3, 2}));
  CompareResult result = CompareLiterals(f32_23, f32_32);
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(result.shapes_match);
  EXPECT_EQ(result.elements_compared, 0);
  EXPECT_EQ(result.ToString(), "actual shape f32[2,3] differs from expected f32[3,2]");

  EXPECT_EQ(CompareLiterals(f32_23, Literal(Shape(PT::kF64, {2, 3}))).shape_message,
            "actual shape f32[2,3] differs from expected f64[2,3]");
  EXPECT_EQ(CompareLiterals(f32_23, Literal(Shape::Tuple({f32_23.shape()}))).shape_message,
            "actual shape f32[2,3] differs from expected (f32[2,3])");

  // Inside a tuple, the rest is still compared and reported.
  Literal actual(Shape::Tuple({Shape(PT::kF32, {2}), Shape(PT::kS32, {2})}));
  Literal expected(Shape::Tuple({Shape(PT::kF32, {2}), Shape(PT::kS32, {3})}));
  actual.tuple_elements()[0].SetDouble(0, 1);
  result = CompareLiterals(actual, expected);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.ToString(),
            "at tuple index {1}: actual shape s32[2] differs from expected s32[3]; elsewhere 1 "
            "of 2 elements differ (max abs 1, max rel 0); first: {0}[0] actual 1 expected 0");
}

TEST(LiteralCompareTest, LayoutsAreIgnored) {
  Shape row_major(PT::kF32, {2, 3});
  row_major.set_layout(Layout({1, 0}));
  Shape column_major(PT::kF32, {2, 3});
  column_major.set_layout(Layout({0, 1}));
  EXPECT_TRUE(CompareLiterals(Literal(row_major), Literal(column_major)).ok());
}

TEST(LiteralCompareTest, ReportsTheFirstMismatchesWithMultiIndices) {
  const Literal expected = Array(PT::kF32, {3, 4}, std::vector<double>(12, 1.0));
  std::vector<double> values(12, 1.0);
  for (int i = 2; i < 12; ++i) values[i] = 1.0 + 0.5 * i;  // 2 .. 6.5
  const Literal actual = Array(PT::kF32, {3, 4}, values);
  CompareOptions options;
  options.max_reported = 3;
  const CompareResult result = CompareLiterals(actual, expected, options);
  EXPECT_EQ(result.mismatch_count, 10);
  EXPECT_EQ(result.max_abs_error, 5.5);
  EXPECT_EQ(result.max_rel_error, 5.5);
  ASSERT_EQ(result.first_mismatches.size(), 3u);
  EXPECT_THAT(result.first_mismatches[2].index, ElementsAre(1, 0));
  EXPECT_EQ(result.first_mismatches[2].actual, "3");
  EXPECT_EQ(result.first_mismatches[2].expected, "1");
  EXPECT_EQ(result.ToString(),
            "10 of 12 elements differ (max abs 5.5, max rel 5.5); first: [0,2] actual 2 "
            "expected 1, [0,3] actual 2.5 expected 1, [1,0] actual 3 expected 1");
}

TEST(LiteralCompareTest, ValuesPrintAsTheirTypePrintsThem) {
  const CompareResult bf16 =
      CompareLiterals(Scalar(PT::kBF16, 0.1), Scalar(PT::kBF16, -kInf), Tolerance(0, 0));
  EXPECT_EQ(bf16.ToString(),
            "1 of 1 elements differ (max abs 0, max rel 0); first: [] actual 0.1 expected -inf");
  Literal c(Shape(PT::kC64, {1}));
  c.SetComplex(0, {1.5, -2});
  EXPECT_THAT(CompareLiterals(c, Literal(c.shape())).ToString(),
              HasSubstr("[0] actual (1.5, -2) expected (0, 0)"));
}

TEST(LiteralCompareTest, EmptyArraysAndTokensMatch) {
  EXPECT_TRUE(
      CompareLiterals(Literal(Shape(PT::kF32, {0, 5})), Literal(Shape(PT::kF32, {0, 5}))).ok());
  EXPECT_TRUE(CompareLiterals(Literal(Shape::Token()), Literal(Shape::Token())).ok());
  EXPECT_TRUE(CompareLiterals(Literal(), Literal()).ok());
}

TEST(LiteralCompareTest, DefaultTolerancesPerType) {
  EXPECT_EQ(DefaultToleranceFor(PT::kF64).atol, 1e-12);
  EXPECT_EQ(DefaultToleranceFor(PT::kC128).rtol, 1e-12);
  EXPECT_EQ(DefaultToleranceFor(PT::kF32).rtol, 1e-5);
  EXPECT_EQ(DefaultToleranceFor(PT::kC64).atol, 1e-5);
  EXPECT_EQ(DefaultToleranceFor(PT::kF16).rtol, 1e-3);
  EXPECT_EQ(DefaultToleranceFor(PT::kBF16).rtol, 1e-2);
  EXPECT_EQ(DefaultToleranceFor(PT::kF8E4M3FN).rtol, 0.125);
  EXPECT_EQ(DefaultToleranceFor(PT::kF8E4M3B11FNUZ).rtol, 0.125);
  EXPECT_EQ(DefaultToleranceFor(PT::kF8E5M2).rtol, 0.25);
  EXPECT_EQ(DefaultToleranceFor(PT::kF8E3M4).rtol, 0.0625);
  EXPECT_EQ(DefaultToleranceFor(PT::kF4E2M1FN).rtol, 0.5);
  EXPECT_EQ(DefaultToleranceFor(PT::kF8E8M0FNU).rtol, 0.5);
  EXPECT_EQ(DefaultToleranceFor(PT::kS32).atol, 0);
  EXPECT_EQ(DefaultToleranceFor(PT::kPred).rtol, 0);
}

TEST(LiteralCompareTest, DefaultTolerancesAllowRoundingNotWrongValues) {
  // Narrow floats: two units in the last place at 1 pass, four fail.
  for (PT type : {PT::kF16, PT::kBF16, PT::kF8E4M3FN, PT::kF8E5M2, PT::kF8E3M4, PT::kF4E2M1FN}) {
    SCOPED_TRACE(std::string(PrimitiveTypeName(type)));
    const double ulp = std::ldexp(1.0, -MantissaBits(type));
    const CompareOptions options = DefaultToleranceFor(type);
    EXPECT_TRUE(CompareLiterals(Scalar(type, 1 + 2 * ulp), Scalar(type, 1), options).ok());
    EXPECT_FALSE(CompareLiterals(Scalar(type, 1 + 4 * ulp), Scalar(type, 1), options).ok());
  }
  // f32: a few dozen units in the last place (reassociated sums) pass, 1e-4 does not.
  const CompareOptions f32 = DefaultToleranceFor(PT::kF32);
  EXPECT_TRUE(CompareLiterals(Scalar(PT::kF32, 1 + 64 * 0x1p-23), Scalar(PT::kF32, 1), f32).ok());
  EXPECT_FALSE(CompareLiterals(Scalar(PT::kF32, 1.0001), Scalar(PT::kF32, 1), f32).ok());
  // f8e8m0fnu holds powers of two: 2 for 1 passes, 4 does not.
  const CompareOptions e8m0 = DefaultToleranceFor(PT::kF8E8M0FNU);
  EXPECT_TRUE(CompareLiterals(Scalar(PT::kF8E8M0FNU, 2), Scalar(PT::kF8E8M0FNU, 1), e8m0).ok());
  EXPECT_FALSE(CompareLiterals(Scalar(PT::kF8E8M0FNU, 4), Scalar(PT::kF8E8M0FNU, 1), e8m0).ok());
}

}  // namespace
}  // namespace fusebox::interpreter
