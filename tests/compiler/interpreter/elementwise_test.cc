// Elementwise ops of the reference interpreter: arithmetic and its integer edge cases,
// shifts, NaN rules, rounding, conversions between every kind of type, compare (FLOAT and
// TOTALORDER), select/clamp with scalars, complex values, bit-level ops. Expected values
// are worked out by hand (or from the C library for transcendental functions).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/ops.h"
#include "compiler/ir/literal.h"
#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
namespace {

using PT = PrimitiveType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kS32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kS32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kS64Min = std::numeric_limits<int64_t>::min();

// --- Literals ------------------------------------------------------------------

Literal Reals(PT type, std::vector<int64_t> dims, const std::vector<double>& values) {
  Literal l(Shape(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal Ints(PT type, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  Literal l(Shape(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetInt64(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal Complexes(PT type, std::vector<int64_t> dims,
                  const std::vector<std::complex<double>>& values) {
  Literal l(Shape(type, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetComplex(static_cast<int64_t>(i), values[i]);
  return l;
}

Literal F32(std::vector<int64_t> dims, const std::vector<double>& values) {
  return Reals(PT::kF32, std::move(dims), values);
}

std::vector<int64_t> IntsOf(const Literal& l) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetInt64(i));
  return out;
}

std::vector<uint64_t> UintsOf(const Literal& l) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetUint64(i));
  return out;
}

std::vector<uint64_t> BitsOf(const Literal& l) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetBits(i));
  return out;
}

// Exact comparison of float results: NaN matches NaN, and zeros must have the right sign.
void ExpectReals(const Literal& l, const std::vector<double>& expected) {
  ASSERT_EQ(l.element_count(), static_cast<int64_t>(expected.size())) << l.ToStringWithShape();
  for (size_t i = 0; i < expected.size(); ++i) {
    const double got = l.GetDouble(static_cast<int64_t>(i));
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i << ": " << got;
    } else {
      EXPECT_EQ(got, expected[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got), std::signbit(expected[i])) << "sign of element " << i;
    }
  }
}

void ExpectNear(const Literal& l, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(l.element_count(), static_cast<int64_t>(expected.size())) << l.ToStringWithShape();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(l.GetDouble(static_cast<int64_t>(i)), expected[i], tolerance) << "element " << i;
  }
}

// --- Running one op ------------------------------------------------------------------

// A module whose root applies `op` to one parameter per entry of `params` (their shapes).
std::string OpModule(const std::string& result, const std::string& op,
                     const std::vector<std::string>& params, const std::string& attrs = "") {
  std::string text = "HloModule test\nENTRY e {\n";
  std::string args;
  for (size_t i = 0; i < params.size(); ++i) {
    text +=
        "  p" + std::to_string(i) + " = " + params[i] + " parameter(" + std::to_string(i) + ")\n";
    args += (i ? ", p" : "p") + std::to_string(i);
  }
  text += "  ROOT r = " + result + " " + op + "(" + args + ")" + attrs + "\n}\n";
  return text;
}

StatusOr<Literal> TryRun(const std::string& hlo, std::vector<Literal> args) {
  auto module = ParseModule(hlo);
  if (!module.ok()) return module.status();
  return Interpreter().Run(**module, args);
}

Literal RunHlo(const std::string& hlo, std::vector<Literal> args) {
  StatusOr<Literal> result = TryRun(hlo, std::move(args));
  EXPECT_TRUE(result.ok()) << result.status().message() << "\n" << hlo;
  return result.ok() ? std::move(result).value() : Literal();
}

// Calls EvalElementwise on the root of `hlo` directly, with operands that need not match
// the parameters (for the evaluator's own argument checks).
StatusOr<Literal> EvalRoot(const std::string& hlo, const std::vector<const Literal*>& operands) {
  auto module = ParseModule(hlo);
  if (!module.ok()) return module.status();
  EvalContext ctx(nullptr);
  return EvalElementwise(*(*module)->entry()->root(), Operands(operands.data(), operands.size()),
                         ctx);
}

// ===========================================================================
// Integer arithmetic

TEST(ElementwiseIntegerTest, S8DivisionByZeroAndOverflow) {
  Literal r = RunHlo(
      OpModule("s8[6]", "divide", {"s8[6]", "s8[6]"}),
      {Ints(PT::kS8, {6}, {-128, 7, -7, 0, 5, -7}), Ints(PT::kS8, {6}, {-1, 0, 0, 0, 2, 2})});
  // x / 0 = -1 (all bits set); INT_MIN / -1 = INT_MIN; otherwise truncation toward zero.
  EXPECT_THAT(IntsOf(r), ElementsAre(-128, -1, -1, -1, 2, -3));
}

TEST(ElementwiseIntegerTest, S8RemainderByZeroAndOverflow) {
  Literal r =
      RunHlo(OpModule("s8[5]", "remainder", {"s8[5]", "s8[5]"}),
             {Ints(PT::kS8, {5}, {-128, 7, -7, 5, -7}), Ints(PT::kS8, {5}, {-1, 0, 0, 3, 3})});
  // x % 0 = x; INT_MIN % -1 = 0; the sign follows the dividend.
  EXPECT_THAT(IntsOf(r), ElementsAre(0, 7, -7, 2, -1));
}

TEST(ElementwiseIntegerTest, S32DivisionAndRemainderEdgeCases) {
  Literal a = Ints(PT::kS32, {4}, {kS32Min, 7, kS32Min, -9});
  Literal b = Ints(PT::kS32, {4}, {-1, 0, 0, 4});
  Literal q = RunHlo(OpModule("s32[4]", "divide", {"s32[4]", "s32[4]"}), {a, b});
  EXPECT_THAT(IntsOf(q), ElementsAre(kS32Min, -1, -1, -2));
  Literal r = RunHlo(OpModule("s32[4]", "remainder", {"s32[4]", "s32[4]"}), {a, b});
  EXPECT_THAT(IntsOf(r), ElementsAre(0, 7, kS32Min, -1));
}

TEST(ElementwiseIntegerTest, S64MinDividedByMinusOne) {
  Literal a = Ints(PT::kS64, {2}, {kS64Min, kS64Min});
  Literal b = Ints(PT::kS64, {2}, {-1, 0});
  Literal q = RunHlo(OpModule("s64[2]", "divide", {"s64[2]", "s64[2]"}), {a, b});
  EXPECT_THAT(IntsOf(q), ElementsAre(kS64Min, -1));
  Literal r = RunHlo(OpModule("s64[2]", "remainder", {"s64[2]", "s64[2]"}), {a, b});
  EXPECT_THAT(IntsOf(r), ElementsAre(0, kS64Min));
}

TEST(ElementwiseIntegerTest, U32DivisionByZero) {
  Literal a = Ints(PT::kU32, {3}, {7, 0xFFFFFFFF, 9});
  Literal b = Ints(PT::kU32, {3}, {0, 2, 4});
  Literal q = RunHlo(OpModule("u32[3]", "divide", {"u32[3]", "u32[3]"}), {a, b});
  EXPECT_THAT(UintsOf(q), ElementsAre(0xFFFFFFFFu, 0x7FFFFFFFu, 2u));
  Literal r = RunHlo(OpModule("u32[3]", "remainder", {"u32[3]", "u32[3]"}), {a, b});
  EXPECT_THAT(UintsOf(r), ElementsAre(7u, 1u, 1u));
}

TEST(ElementwiseIntegerTest, AdditionWrapsAtTheWidth) {
  Literal s4 = RunHlo(OpModule("s4[3]", "add", {"s4[3]", "s4[3]"}),
                      {Ints(PT::kS4, {3}, {7, -8, 3}), Ints(PT::kS4, {3}, {1, -1, 4})});
  EXPECT_THAT(IntsOf(s4), ElementsAre(-8, 7, 7));
  Literal u4 = RunHlo(OpModule("u4[2]", "add", {"u4[2]", "u4[2]"}),
                      {Ints(PT::kU4, {2}, {15, 9}), Ints(PT::kU4, {2}, {1, 9})});
  EXPECT_THAT(UintsOf(u4), ElementsAre(0u, 2u));
  Literal s32 = RunHlo(OpModule("s32[2]", "add", {"s32[2]", "s32[2]"}),
                       {Ints(PT::kS32, {2}, {kS32Max, kS32Min}), Ints(PT::kS32, {2}, {1, -1})});
  EXPECT_THAT(IntsOf(s32), ElementsAre(kS32Min, kS32Max));
  Literal u8 = RunHlo(OpModule("u8[1]", "multiply", {"u8[1]", "u8[1]"}),
                      {Ints(PT::kU8, {1}, {200}), Ints(PT::kU8, {1}, {3})});
  EXPECT_THAT(UintsOf(u8), ElementsAre(600u % 256u));
  Literal s4_mul = RunHlo(OpModule("s4[1]", "multiply", {"s4[1]", "s4[1]"}),
                          {Ints(PT::kS4, {1}, {7}), Ints(PT::kS4, {1}, {2})});
  EXPECT_THAT(IntsOf(s4_mul), ElementsAre(-2));  // 14 = 0b1110
}

TEST(ElementwiseIntegerTest, AbsAndNegateOfMinWrap) {
  Literal a = Ints(PT::kS8, {3}, {-128, -5, 5});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s8[3]", "abs", {"s8[3]"}), {a})), ElementsAre(-128, 5, 5));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s8[3]", "negate", {"s8[3]"}), {a})),
              ElementsAre(-128, 5, -5));
  Literal u = Ints(PT::kU8, {2}, {0, 1});
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[2]", "negate", {"u8[2]"}), {u})), ElementsAre(0u, 255u));
}

TEST(ElementwiseIntegerTest, SignOfIntegers) {
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s32[3]", "sign", {"s32[3]"}), {Ints(PT::kS32, {3}, {-7, 0, 9})})),
      ElementsAre(-1, 0, 1));
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[2]", "sign", {"u8[2]"}), {Ints(PT::kU8, {2}, {0, 200})})),
              ElementsAre(0u, 1u));
}

TEST(ElementwiseIntegerTest, PowerFollowsXlaIntegerRules) {
  Literal base = Ints(PT::kS32, {9}, {2, 2, 1, -1, 0, 5, -1, 3, -2});
  Literal exponent = Ints(PT::kS32, {9}, {10, -1, -5, -1, 0, 0, 3, 31, 3});
  Literal r = RunHlo(OpModule("s32[9]", "power", {"s32[9]", "s32[9]"}), {base, exponent});
  // Negative exponents give 0 unless the base is 1 (XLA gives 0 for (-1)^-1 too);
  // x^0 = 1 including 0^0; 3^31 wraps modulo 2^32.
  EXPECT_THAT(IntsOf(r), ElementsAre(1024, 0, 1, 0, 1, 1, -1, 1264544299, -8));
}

TEST(ElementwiseIntegerTest, PowerOfPreds) {
  Literal r = RunHlo(OpModule("pred[4]", "power", {"pred[4]", "pred[4]"}),
                     {Ints(PT::kPred, {4}, {0, 0, 1, 1}), Ints(PT::kPred, {4}, {0, 1, 0, 1})});
  EXPECT_THAT(IntsOf(r), ElementsAre(1, 0, 1, 1));  // x || !y
}

TEST(ElementwiseIntegerTest, MulhiGivesTheHighHalf) {
  Literal s32 = RunHlo(
      OpModule("s32[3]", "mulhi", {"s32[3]", "s32[3]"}),
      {Ints(PT::kS32, {3}, {0x40000000, -1, kS32Min}), Ints(PT::kS32, {3}, {8, 1, kS32Min})});
  EXPECT_THAT(IntsOf(s32), ElementsAre(2, -1, 0x40000000));  // (-2^31)^2 = 2^62
  Literal u32 = RunHlo(OpModule("u32[1]", "mulhi", {"u32[1]", "u32[1]"}),
                       {Ints(PT::kU32, {1}, {0xFFFFFFFF}), Ints(PT::kU32, {1}, {0xFFFFFFFF})});
  EXPECT_THAT(UintsOf(u32), ElementsAre(0xFFFFFFFEu));
  Literal s64 = RunHlo(OpModule("s64[4]", "mulhi", {"s64[4]", "s64[4]"}),
                       {Ints(PT::kS64, {4}, {kS64Min, -3, int64_t{1} << 62, -1}),
                        Ints(PT::kS64, {4}, {2, 5, int64_t{1} << 62, -1})});
  EXPECT_THAT(IntsOf(s64), ElementsAre(-1, -1, int64_t{1} << 60, 0));
  Literal u64 = RunHlo(OpModule("u64[2]", "mulhi", {"u64[2]", "u64[2]"}),
                       {Ints(PT::kU64, {2}, {kS64Min, -1}), Ints(PT::kU64, {2}, {4, -1})});
  EXPECT_THAT(UintsOf(u64), ElementsAre(2u, 0xFFFFFFFFFFFFFFFEu));
}

TEST(ElementwiseIntegerTest, BitwiseOpsOnPredsAndIntegers) {
  Literal p = Ints(PT::kPred, {4}, {0, 0, 1, 1});
  Literal q = Ints(PT::kPred, {4}, {0, 1, 0, 1});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "and", {"pred[4]", "pred[4]"}), {p, q})),
              ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "or", {"pred[4]", "pred[4]"}), {p, q})),
              ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "xor", {"pred[4]", "pred[4]"}), {p, q})),
              ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "not", {"pred[4]"}), {p})),
              ElementsAre(1, 1, 0, 0));
  Literal a = Ints(PT::kS32, {2}, {0b1100, -1});
  Literal b = Ints(PT::kS32, {2}, {0b1010, 5});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[2]", "and", {"s32[2]", "s32[2]"}), {a, b})),
              ElementsAre(0b1000, 5));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[2]", "or", {"s32[2]", "s32[2]"}), {a, b})),
              ElementsAre(0b1110, -1));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[2]", "xor", {"s32[2]", "s32[2]"}), {a, b})),
              ElementsAre(0b0110, -6));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s8[3]", "not", {"s8[3]"}), {Ints(PT::kS8, {3}, {0, -1, 5})})),
              ElementsAre(-1, 0, -6));
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[1]", "not", {"u8[1]"}), {Ints(PT::kU8, {1}, {0})})),
              ElementsAre(255u));
}

TEST(ElementwiseIntegerTest, PopcntAndClz) {
  Literal u8 = Ints(PT::kU8, {4}, {0, 1, 0x80, 0xFF});
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[4]", "popcnt", {"u8[4]"}), {u8})),
              ElementsAre(0u, 1u, 1u, 8u));
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[4]", "count-leading-zeros", {"u8[4]"}), {u8})),
              ElementsAre(8u, 7u, 0u, 0u));
  Literal s32 = Ints(PT::kS32, {5}, {-1, 0, 1, kS32Max, 0x00010000});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[5]", "popcnt", {"s32[5]"}), {s32})),
              ElementsAre(32, 0, 1, 31, 1));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[5]", "count-leading-zeros", {"s32[5]"}), {s32})),
              ElementsAre(0, 32, 31, 1, 15));
  Literal s4 = Ints(PT::kS4, {3}, {-1, 1, 0});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s4[3]", "popcnt", {"s4[3]"}), {s4})), ElementsAre(4, 1, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s4[3]", "count-leading-zeros", {"s4[3]"}), {s4})),
              ElementsAre(0, 3, 4));
}

// ===========================================================================
// Shifts

TEST(ElementwiseShiftTest, S32ShiftsPastTheWidthOrNegative) {
  Literal amounts = Ints(PT::kS32, {5}, {0, 31, 32, 33, -1});
  Literal ones = Ints(PT::kS32, {5}, {1, 1, 1, 1, 1});
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s32[5]", "shift-left", {"s32[5]", "s32[5]"}), {ones, amounts})),
      ElementsAre(1, kS32Min, 0, 0, 0));
  Literal minus8 = Ints(PT::kS32, {5}, {-8, -8, -8, -8, -8});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[5]", "shift-right-arithmetic", {"s32[5]", "s32[5]"}),
                            {minus8, amounts})),
              ElementsAre(-8, -1, -1, -1, -1));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[5]", "shift-right-logical", {"s32[5]", "s32[5]"}),
                            {minus8, amounts})),
              ElementsAre(-8, 1, 0, 0, 0));
  Literal plus8 = Ints(PT::kS32, {3}, {8, 8, 8});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[3]", "shift-right-arithmetic", {"s32[3]", "s32[3]"}),
                            {plus8, Ints(PT::kS32, {3}, {1, 32, -1})})),
              ElementsAre(4, 0, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[1]", "shift-right-logical", {"s32[1]", "s32[1]"}),
                            {Ints(PT::kS32, {1}, {-8}), Ints(PT::kS32, {1}, {1})})),
              ElementsAre(0x7FFFFFFC));
}

TEST(ElementwiseShiftTest, NarrowTypesUseTheirOwnWidth) {
  Literal u8 = Ints(PT::kU8, {4}, {0x81, 0x81, 0x80, 0x80});
  Literal by = Ints(PT::kU8, {4}, {1, 8, 7, 8});
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[4]", "shift-left", {"u8[4]", "u8[4]"}), {u8, by})),
              ElementsAre(0x02u, 0u, 0u, 0u));
  EXPECT_THAT(
      UintsOf(RunHlo(OpModule("u8[4]", "shift-right-logical", {"u8[4]", "u8[4]"}), {u8, by})),
      ElementsAre(0x40u, 0u, 1u, 0u));
  // Arithmetic shifts treat the bits as signed: 0x80 >> 7 is all ones.
  EXPECT_THAT(
      UintsOf(RunHlo(OpModule("u8[4]", "shift-right-arithmetic", {"u8[4]", "u8[4]"}), {u8, by})),
      ElementsAre(0xC0u, 0xFFu, 0xFFu, 0xFFu));
  Literal s4 = RunHlo(OpModule("s4[3]", "shift-left", {"s4[3]", "s4[3]"}),
                      {Ints(PT::kS4, {3}, {1, 1, 1}), Ints(PT::kS4, {3}, {3, 4, -1})});
  EXPECT_THAT(IntsOf(s4), ElementsAre(-8, 0, 0));
}

// ===========================================================================
// Floats

TEST(ElementwiseFloatTest, MaximumAndMinimumPropagateNaN) {
  Literal a = F32({4}, {kNaN, 1, 2, -kInf});
  Literal b = F32({4}, {1, kNaN, 3, 5});
  ExpectReals(RunHlo(OpModule("f32[4]", "maximum", {"f32[4]", "f32[4]"}), {a, b}),
              {kNaN, kNaN, 3, 5});
  ExpectReals(RunHlo(OpModule("f32[4]", "minimum", {"f32[4]", "f32[4]"}), {a, b}),
              {kNaN, kNaN, 2, -kInf});
  Literal c = Reals(PT::kBF16, {2}, {kNaN, 1});
  Literal d = Reals(PT::kBF16, {2}, {0, kNaN});
  ExpectReals(RunHlo(OpModule("bf16[2]", "maximum", {"bf16[2]", "bf16[2]"}), {c, d}), {kNaN, kNaN});
  Literal i = Ints(PT::kS32, {2}, {-3, 7});
  Literal j = Ints(PT::kS32, {2}, {2, -9});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[2]", "maximum", {"s32[2]", "s32[2]"}), {i, j})),
              ElementsAre(2, 7));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[2]", "minimum", {"s32[2]", "s32[2]"}), {i, j})),
              ElementsAre(-3, -9));
}

TEST(ElementwiseFloatTest, RoundNearestEvenVersusAwayFromZero) {
  Literal x = F32({8}, {0.5, 1.5, 2.5, -2.5, -0.5, 2.4, -0.3, kNaN});
  ExpectReals(RunHlo(OpModule("f32[8]", "round-nearest-even", {"f32[8]"}), {x}),
              {0, 2, 2, -2, -0.0, 2, -0.0, kNaN});
  ExpectReals(RunHlo(OpModule("f32[8]", "round-nearest-afz", {"f32[8]"}), {x}),
              {1, 2, 3, -3, -1, 2, -0.0, kNaN});
  Literal h = Reals(PT::kF16, {3}, {0.5, 1.5, 2.5});
  ExpectReals(RunHlo(OpModule("f16[3]", "round-nearest-even", {"f16[3]"}), {h}), {0, 2, 2});
  ExpectReals(RunHlo(OpModule("f32[3]", "floor", {"f32[3]"}), {F32({3}, {-1.5, 1.5, -0.0})}),
              {-2, 1, -0.0});
  ExpectReals(RunHlo(OpModule("f32[3]", "ceil", {"f32[3]"}), {F32({3}, {-1.5, 1.5, -0.5})}),
              {-1, 2, -0.0});
}

TEST(ElementwiseFloatTest, SignKeepsNaNAndSignedZero) {
  ExpectReals(RunHlo(OpModule("f32[5]", "sign", {"f32[5]"}), {F32({5}, {-2, 0, -0.0, kNaN, 5})}),
              {-1, 0, -0.0, kNaN, 1});
}

TEST(ElementwiseFloatTest, IsFinite) {
  Literal r =
      RunHlo(OpModule("pred[5]", "is-finite", {"f32[5]"}), {F32({5}, {1, kInf, -kInf, kNaN, 0})});
  EXPECT_THAT(IntsOf(r), ElementsAre(1, 0, 0, 0, 1));
  Literal h =
      RunHlo(OpModule("pred[2]", "is-finite", {"f16[2]"}), {Reals(PT::kF16, {2}, {65504, kInf})});
  EXPECT_THAT(IntsOf(h), ElementsAre(1, 0));
}

TEST(ElementwiseFloatTest, F32ArithmeticIsSinglePrecision) {
  Literal r = RunHlo(OpModule("f32[2]", "divide", {"f32[2]", "f32[2]"}),
                     {F32({2}, {1, 1}), F32({2}, {3, 0})});
  EXPECT_EQ(r.GetBits(0), 0x3EAAAAABu);  // the float nearest 1/3
  EXPECT_TRUE(std::isinf(r.GetDouble(1)));
  Literal s = RunHlo(OpModule("f32[1]", "sqrt", {"f32[1]"}), {F32({1}, {2})});
  EXPECT_EQ(s.GetDouble(0), static_cast<double>(std::sqrt(2.0f)));
}

TEST(ElementwiseFloatTest, NarrowFloatsRoundOnceToTheResultType) {
  // 1 + 2^-8 is halfway between two bf16 values: ties to even gives 1.
  ExpectReals(RunHlo(OpModule("bf16[2]", "add", {"bf16[2]", "bf16[2]"}),
                     {Reals(PT::kBF16, {2}, {1, 256}), Reals(PT::kBF16, {2}, {0.00390625, 1})}),
              {1, 256});
  ExpectReals(RunHlo(OpModule("f16[2]", "multiply", {"f16[2]", "f16[2]"}),
                     {Reals(PT::kF16, {2}, {300, -300}), Reals(PT::kF16, {2}, {300, 300})}),
              {kInf, -kInf});
  // f8e4m3fn has no inf: overflow gives NaN.
  ExpectReals(
      RunHlo(OpModule("f8e4m3fn[2]", "add", {"f8e4m3fn[2]", "f8e4m3fn[2]"}),
             {Reals(PT::kF8E4M3FN, {2}, {1.5, 448}), Reals(PT::kF8E4M3FN, {2}, {0.25, 448})}),
      {1.75, kNaN});
  ExpectReals(RunHlo(OpModule("f8e5m2[1]", "multiply", {"f8e5m2[1]", "f8e5m2[1]"}),
                     {Reals(PT::kF8E5M2, {1}, {57344}), Reals(PT::kF8E5M2, {1}, {2})}),
              {kInf});
  // f4e2m1fn saturates: 6 + 1 rounds to 8, beyond the largest value 6.
  ExpectReals(RunHlo(OpModule("f4e2m1fn[2]", "add", {"f4e2m1fn[2]", "f4e2m1fn[2]"}),
                     {Reals(PT::kF4E2M1FN, {2}, {6, 1.5}), Reals(PT::kF4E2M1FN, {2}, {1, 1.5})}),
              {6, 3});
}

TEST(ElementwiseFloatTest, TranscendentalFunctions) {
  ExpectNear(RunHlo(OpModule("f32[3]", "logistic", {"f32[3]"}), {F32({3}, {0, 2, -100})}),
             {0.5, 0.8807970779778823, 0.0}, 1e-7);
  ExpectNear(RunHlo(OpModule("f64[1]", "logistic", {"f64[1]"}), {Reals(PT::kF64, {1}, {-100})}),
             {3.7200759760208356e-44}, 1e-58);
  ExpectNear(RunHlo(OpModule("f32[1]", "erf", {"f32[1]"}), {F32({1}, {0.5})}), {0.5204998778},
             1e-7);
  ExpectNear(RunHlo(OpModule("f64[2]", "erf", {"f64[2]"}), {Reals(PT::kF64, {2}, {0.5, -0.5})}),
             {0.5204998778130465, -0.5204998778130465}, 1e-15);
  ExpectNear(RunHlo(OpModule("f32[3]", "cbrt", {"f32[3]"}), {F32({3}, {-8, 27, 0})}), {-2, 3, 0},
             1e-6);
  // expm1 and log1p keep their accuracy near zero (exp(x) - 1 would not).
  ExpectNear(RunHlo(OpModule("f64[1]", "exponential-minus-one", {"f64[1]"}),
                    {Reals(PT::kF64, {1}, {1e-10})}),
             {1.00000000005e-10}, 1e-24);
  ExpectNear(RunHlo(OpModule("f32[1]", "exponential-minus-one", {"f32[1]"}), {F32({1}, {1e-7})}),
             {1.00000005e-7}, 2e-14);
  ExpectNear(
      RunHlo(OpModule("f64[1]", "log-plus-one", {"f64[1]"}), {Reals(PT::kF64, {1}, {1e-10})}),
      {9.9999999995e-11}, 1e-24);
  ExpectNear(RunHlo(OpModule("f32[1]", "log-plus-one", {"f32[1]"}), {F32({1}, {1e-7})}),
             {9.9999995e-8}, 2e-14);
  ExpectNear(RunHlo(OpModule("f32[2]", "rsqrt", {"f32[2]"}), {F32({2}, {4, 0.25})}), {0.5, 2},
             1e-7);
  ExpectReals(RunHlo(OpModule("f32[1]", "rsqrt", {"f32[1]"}), {F32({1}, {0})}), {kInf});
  ExpectNear(RunHlo(OpModule("f32[2]", "tanh", {"f32[2]"}), {F32({2}, {0, 20})}), {0, 1}, 1e-7);
  ExpectNear(RunHlo(OpModule("f32[3]", "exponential", {"f32[3]"}), {F32({3}, {0, 1, -kInf})}),
             {1, std::numbers::e, 0}, 1e-6);
  ExpectReals(RunHlo(OpModule("f32[2]", "log", {"f32[2]"}), {F32({2}, {0, -1})}), {-kInf, kNaN});
}

TEST(ElementwiseFloatTest, Atan2CoversEveryQuadrant) {
  const double pi = std::numbers::pi;
  Literal y = F32({7}, {1, 1, -1, -1, 0, -0.0, 1});
  Literal x = F32({7}, {1, -1, -1, 1, -1, -1, 0});
  ExpectNear(RunHlo(OpModule("f32[7]", "atan2", {"f32[7]", "f32[7]"}), {y, x}),
             {pi / 4, 3 * pi / 4, -3 * pi / 4, -pi / 4, pi, -pi, pi / 2}, 1e-6);
}

TEST(ElementwiseFloatTest, PowerSpecialCases) {
  Literal x = F32({5}, {0, kNaN, 1, 2, -8});
  Literal y = F32({5}, {0, 0, kNaN, 0.5, 1.0 / 3});
  ExpectNear(RunHlo(OpModule("f32[4]", "power", {"f32[4]", "f32[4]"}),
                    {F32({4}, {0, kNaN, 1, 2}), F32({4}, {0, 0, kNaN, 0.5})}),
             {1, 1, 1, std::numbers::sqrt2}, 1e-6);
  Literal r = RunHlo(OpModule("f32[5]", "power", {"f32[5]", "f32[5]"}), {x, y});
  EXPECT_TRUE(std::isnan(r.GetDouble(4)));  // negative base, fractional exponent
}

TEST(ElementwiseFloatTest, RemainderIsFmod) {
  ExpectReals(RunHlo(OpModule("f32[4]", "remainder", {"f32[4]", "f32[4]"}),
                     {F32({4}, {5.5, -5.5, 5.5, 1}), F32({4}, {2, 2, -2, 0})}),
              {1.5, -1.5, 1.5, kNaN});
}

// ===========================================================================
// Conversions

TEST(ElementwiseConvertTest, FloatToSignedSaturatesAndNaNIsZero) {
  Literal x = F32({7}, {1e10, -1e10, kNaN, 2.9, -2.9, kInf, -kInf});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[7]", "convert", {"f32[7]"}), {x})),
              ElementsAre(kS32Max, kS32Min, 0, 2, -2, kS32Max, kS32Min));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s8[3]", "convert", {"f32[3]"}), {F32({3}, {200, -200, 127.9})})),
      ElementsAre(127, -128, 127));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s64[2]", "convert", {"f64[2]"}),
                            {Reals(PT::kF64, {2}, {1e30, -1e30})})),
              ElementsAre(std::numeric_limits<int64_t>::max(), kS64Min));
}

TEST(ElementwiseConvertTest, FloatToUnsignedClampsNegativesToZero) {
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u8[5]", "convert", {"f32[5]"}),
                             {F32({5}, {-5, 300, 255.9, kNaN, -0.5})})),
              ElementsAre(0u, 255u, 255u, 0u, 0u));
  EXPECT_THAT(UintsOf(RunHlo(OpModule("u32[1]", "convert", {"f32[1]"}), {F32({1}, {1e10})})),
              ElementsAre(0xFFFFFFFFu));
}

TEST(ElementwiseConvertTest, F32ToBf16RoundsToNearestEven) {
  Literal r = RunHlo(OpModule("bf16[4]", "convert", {"f32[4]"}),
                     {F32({4}, {1.00390625, 1.01171875, 1.0078125, -kInf})});
  EXPECT_THAT(BitsOf(r), ElementsAre(0x3F80u, 0x3F82u, 0x3F81u, 0xFF80u));
  ExpectReals(r, {1.0, 1.015625, 1.0078125, -kInf});
}

TEST(ElementwiseConvertTest, F32ToF16OverflowsToInfAndUnderflowsToSubnormals) {
  ExpectReals(RunHlo(OpModule("f16[7]", "convert", {"f32[7]"}),
                     {F32({7}, {70000, 65519, 65520, -70000, 1e-8, 3e-8, -0.0})}),
              {kInf, 65504, kInf, -kInf, 0, 5.9604644775390625e-08, -0.0});
}

TEST(ElementwiseConvertTest, F32ToF8E4M3FnOverflowsToNaN) {
  ExpectReals(
      RunHlo(OpModule("f8e4m3fn[4]", "convert", {"f32[4]"}), {F32({4}, {1000, 448, 464, -0.3})}),
      {kNaN, 448, 448, -0.3125});
}

TEST(ElementwiseConvertTest, BetweenIntegersWraps) {
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s8[2]", "convert", {"u32[2]"}), {Ints(PT::kU32, {2}, {300, 128})})),
      ElementsAre(44, -128));
  EXPECT_THAT(
      UintsOf(RunHlo(OpModule("u32[1]", "convert", {"s32[1]"}), {Ints(PT::kS32, {1}, {-1})})),
      ElementsAre(0xFFFFFFFFu));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s4[2]", "convert", {"s32[2]"}), {Ints(PT::kS32, {2}, {9, -9})})),
      ElementsAre(-7, 7));
}

TEST(ElementwiseConvertTest, PredConversions) {
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[3]", "convert", {"s32[3]"}), {Ints(PT::kS32, {3}, {0, 5, -1})})),
      ElementsAre(0, 1, 1));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[4]", "convert", {"f32[4]"}), {F32({4}, {0, -0.0, kNaN, 0.5})})),
      ElementsAre(0, 0, 1, 1));
  ExpectReals(RunHlo(OpModule("f32[2]", "convert", {"pred[2]"}), {Ints(PT::kPred, {2}, {1, 0})}),
              {1, 0});
}

TEST(ElementwiseConvertTest, IntegersToFloats) {
  ExpectReals(
      RunHlo(OpModule("f32[2]", "convert", {"s32[2]"}), {Ints(PT::kS32, {2}, {16777217, -3})}),
      {16777216, -3});
  ExpectReals(RunHlo(OpModule("f64[1]", "convert", {"u64[1]"}), {Ints(PT::kU64, {1}, {-1})}),
              {18446744073709551616.0});
  ExpectReals(RunHlo(OpModule("f16[1]", "convert", {"s32[1]"}), {Ints(PT::kS32, {1}, {100000})}),
              {kInf});
}

TEST(ElementwiseConvertTest, ComplexAndRealConversions) {
  ExpectReals(
      RunHlo(OpModule("f32[1]", "convert", {"c64[1]"}), {Complexes(PT::kC64, {1}, {{3, 4}})}), {3});
  Literal c = RunHlo(OpModule("c64[1]", "convert", {"f32[1]"}), {F32({1}, {2})});
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(2, 0));
  Literal d =
      RunHlo(OpModule("c128[1]", "convert", {"c64[1]"}), {Complexes(PT::kC64, {1}, {{1.5, -2}})});
  EXPECT_EQ(d.GetComplex(0), std::complex<double>(1.5, -2));
}

TEST(ElementwiseConvertTest, F64ToNarrowRoundsOnce) {
  // 1 + 2^-8 + 2^-30 is just above the bf16 halfway point; rounding through f32 would
  // lose the 2^-30 and tie down to 1.
  ExpectReals(RunHlo(OpModule("bf16[1]", "convert", {"f64[1]"}),
                     {Reals(PT::kF64, {1}, {1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30)})}),
              {1.0078125});
  ExpectReals(
      RunHlo(OpModule("f32[2]", "convert", {"f64[2]"}), {Reals(PT::kF64, {2}, {1e300, kNaN})}),
      {kInf, kNaN});
}

TEST(ElementwiseConvertTest, FastEncodersAgreeWithTheLiteralCodec) {
  // f32 -> f16 / bf16 use bit-twiddling encoders; check them against the literal codec
  // on a spread of bit patterns that covers every exponent, the rounding boundaries and
  // NaNs of both signs.
  std::vector<uint32_t> patterns;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4099)
    patterns.push_back(static_cast<uint32_t>(bits));
  for (uint32_t base :
       {0x33000000u, 0x33800000u, 0x387FE000u, 0x38800000u, 0x477FE000u, 0x477FF000u}) {
    for (uint32_t d = 0; d < 0x4000; d += 0x3F) {
      patterns.push_back(base + d);
      patterns.push_back((base + d) | 0x80000000u);
    }
  }
  const int64_t n = static_cast<int64_t>(patterns.size());
  Literal x(Shape(PT::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) x.SetBits(i, patterns[i]);
  const std::string dims = "[" + std::to_string(n) + "]";
  for (PT type : {PT::kF16, PT::kBF16}) {
    const std::string name(PrimitiveTypeName(type));
    Literal r = RunHlo(OpModule(name + dims, "convert", {"f32" + dims}), {x});
    ASSERT_EQ(r.element_count(), n);
    int mismatches = 0;
    for (int64_t i = 0; i < n && mismatches < 5; ++i) {
      const double value = std::bit_cast<float>(patterns[i]);
      const uint64_t want = DoubleToFloatBits(type, value);
      if (r.GetBits(i) != want) {
        ++mismatches;
        ADD_FAILURE() << name << " of f32 bits 0x" << std::hex << patterns[i] << ": got 0x"
                      << r.GetBits(i) << ", codec 0x" << want;
      }
    }
  }
}

TEST(ElementwiseConvertTest, EveryNarrowEncodingDecodesExactly) {
  for (PT type : {PT::kF16, PT::kBF16, PT::kF8E5M2, PT::kF8E4M3FN, PT::kF8E4M3FNUZ, PT::kF8E8M0FNU,
                  PT::kF4E2M1FN}) {
    const int64_t count = int64_t{1} << BitWidth(type);
    Literal x(Shape(type, {count}));
    for (int64_t i = 0; i < count; ++i) x.SetBits(i, static_cast<uint64_t>(i));
    const std::string name(PrimitiveTypeName(type));
    const std::string dims = "[" + std::to_string(count) + "]";
    Literal r = RunHlo(OpModule("f64" + dims, "convert", {name + dims}), {x});
    ASSERT_EQ(r.element_count(), count) << name;
    for (int64_t i = 0; i < count; ++i) {
      const double want = FloatBitsToDouble(type, static_cast<uint64_t>(i));
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(r.GetDouble(i))) << name << " bits " << i;
      } else {
        ASSERT_EQ(r.GetDouble(i), want) << name << " bits " << i;
      }
    }
  }
}

TEST(ElementwiseConvertTest, BitcastConvertSameWidth) {
  Literal r =
      RunHlo(OpModule("s32[3]", "bitcast-convert", {"f32[3]"}), {F32({3}, {1.0, -0.0, -2.0})});
  EXPECT_THAT(IntsOf(r), ElementsAre(1065353216, kS32Min, -1073741824));
  Literal back = RunHlo(OpModule("f32[1]", "bitcast-convert", {"u32[1]"}),
                        {Ints(PT::kU32, {1}, {0x40490FDB})});
  EXPECT_FLOAT_EQ(static_cast<float>(back.GetDouble(0)), std::numbers::pi_v<float>);
}

TEST(ElementwiseConvertTest, BitcastConvertToNarrowerAddsAMinorDimension) {
  Literal bytes =
      RunHlo(OpModule("u8[2,4]", "bitcast-convert", {"f32[2]"}), {F32({2}, {1.0, -2.0})});
  // Little-endian: 1.0 = 0x3F800000, -2.0 = 0xC0000000.
  EXPECT_THAT(UintsOf(bytes), ElementsAre(0u, 0u, 0x80u, 0x3Fu, 0u, 0u, 0u, 0xC0u));
  Literal back = RunHlo(OpModule("f32[2]", "bitcast-convert", {"u8[2,4]"}), {bytes});
  ExpectReals(back, {1.0, -2.0});
}

TEST(ElementwiseConvertTest, BitcastConvertOfSubByteTypesPacksLowBitsFirst) {
  Literal nibbles =
      RunHlo(OpModule("s4[2]", "bitcast-convert", {"u8[]"}), {Ints(PT::kU8, {}, {0xAB})});
  EXPECT_THAT(IntsOf(nibbles), ElementsAre(-5, -6));  // 0xB, 0xA
  Literal byte =
      RunHlo(OpModule("u8[]", "bitcast-convert", {"s4[2]"}), {Ints(PT::kS4, {2}, {1, -1})});
  EXPECT_THAT(UintsOf(byte), ElementsAre(0xF1u));
}

TEST(ElementwiseConvertTest, ReducePrecisionToBf16Like) {
  Literal x = F32({6}, {1.00390625, 1.01171875, 1.0, kNaN, kInf, 3.4e38});
  ExpectReals(RunHlo(OpModule("f32[6]", "reduce-precision", {"f32[6]"},
                              ", exponent_bits=8, mantissa_bits=7"),
                     {x}),
              {1.0, 1.015625, 1.0, kNaN, kInf, kInf});
}

TEST(ElementwiseConvertTest, ReducePrecisionToF16LikeFlushesAndOverflows) {
  Literal x = F32({5}, {1e-5, 6.103515625e-05, 70000, 65504, -1e-5});
  ExpectReals(RunHlo(OpModule("f32[5]", "reduce-precision", {"f32[5]"},
                              ", exponent_bits=5, mantissa_bits=10"),
                     {x}),
              {0, 6.103515625e-05, kInf, 65504, -0.0});
}

TEST(ElementwiseConvertTest, StochasticConvertRoundsUpBelowTheFraction) {
  // |x| = 2.5: the fraction 0.5 scaled to 32 bits is 2^31; rounds up when random < 2^31.
  Literal x = F32({7}, {2.5, 2.5, -2.5, -2.5, 1e10, kNaN, 3.0});
  Literal random = Ints(PT::kU32, {7}, {0x7FFFFFFF, 0x80000000, 0x7FFFFFFF, 0x80000000, 0, 0, 0});
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s32[7]", "stochastic-convert", {"f32[7]", "u32[7]"}), {x, random})),
      ElementsAre(3, 2, -3, -2, kS32Max, 0, 3));
  Literal y = Reals(PT::kF16, {2}, {200, -200});
  Literal bits = Ints(PT::kU16, {2}, {0, 0});
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("s8[2]", "stochastic-convert", {"f16[2]", "u16[2]"}), {y, bits})),
      ElementsAre(127, -128));
}

// ===========================================================================
// Compare

TEST(ElementwiseCompareTest, FloatVersusTotalOrder) {
  const double minus_nan = std::copysign(kNaN, -1.0);
  Literal a = F32({5}, {-0.0, kNaN, minus_nan, 1, kNaN});
  Literal b = F32({5}, {0.0, kNaN, -kInf, kNaN, kInf});
  const std::vector<std::string> shapes = {"f32[5]", "f32[5]"};
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=LT"), {a, b})),
              ElementsAre(0, 0, 0, 0, 0));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=EQ, type=FLOAT"), {a, b})),
      ElementsAre(1, 0, 0, 0, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=NE"), {a, b})),
              ElementsAre(0, 1, 1, 1, 1));
  // -NaN < -inf < ... < -0 < +0 < ... < inf < NaN.
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=LT, type=TOTALORDER"),
                    {a, b})),
      ElementsAre(1, 0, 1, 1, 0));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=EQ, type=TOTALORDER"),
                    {a, b})),
      ElementsAre(0, 1, 0, 0, 0));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[5]", "compare", shapes, ", direction=GE, type=TOTALORDER"),
                    {a, b})),
      ElementsAre(0, 1, 0, 0, 1));
}

TEST(ElementwiseCompareTest, TotalOrderOfNarrowFloats) {
  const double minus_nan = std::copysign(kNaN, -1.0);
  Literal a = Reals(PT::kBF16, {4}, {-0.0, 1, kNaN, -kInf});
  Literal b = Reals(PT::kBF16, {4}, {0.0, minus_nan, kInf, minus_nan});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "compare", {"bf16[4]", "bf16[4]"},
                                     ", direction=LT, type=TOTALORDER"),
                            {a, b})),
              ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[4]", "compare", {"bf16[4]", "bf16[4]"},
                                     ", direction=GT, type=TOTALORDER"),
                            {a, b})),
              ElementsAre(0, 1, 1, 1));
}

TEST(ElementwiseCompareTest, IntegersAndPredsUseTheirOwnOrder) {
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[2]", "compare", {"s32[2]", "s32[2]"}, ", direction=LT"),
                            {Ints(PT::kS32, {2}, {-1, 5}), Ints(PT::kS32, {2}, {1, 5})})),
              ElementsAre(1, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[2]", "compare", {"u32[2]", "u32[2]"}, ", direction=GT"),
                            {Ints(PT::kU32, {2}, {0xFFFFFFFF, 0}), Ints(PT::kU32, {2}, {1, 0})})),
              ElementsAre(1, 0));
  EXPECT_THAT(
      IntsOf(RunHlo(OpModule("pred[2]", "compare", {"pred[2]", "pred[2]"}, ", direction=LE"),
                    {Ints(PT::kPred, {2}, {0, 1}), Ints(PT::kPred, {2}, {1, 0})})),
      ElementsAre(1, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[2]", "compare", {"s4[2]", "s4[2]"}, ", direction=GE"),
                            {Ints(PT::kS4, {2}, {-8, 7}), Ints(PT::kS4, {2}, {7, -8})})),
              ElementsAre(0, 1));
}

TEST(ElementwiseCompareTest, ComplexSupportsOnlyEqualityDirections) {
  Literal a = Complexes(PT::kC64, {2}, {{1, 2}, {1, 2}});
  Literal b = Complexes(PT::kC64, {2}, {{1, 2}, {1, -2}});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[2]", "compare", {"c64[2]", "c64[2]"}, ", direction=EQ"),
                            {a, b})),
              ElementsAre(1, 0));
  EXPECT_THAT(IntsOf(RunHlo(OpModule("pred[2]", "compare", {"c64[2]", "c64[2]"}, ", direction=NE"),
                            {a, b})),
              ElementsAre(0, 1));
  StatusOr<Literal> lt =
      TryRun(OpModule("pred[2]", "compare", {"c64[2]", "c64[2]"}, ", direction=LT"), {a, b});
  ASSERT_FALSE(lt.ok());
  EXPECT_THAT(lt.status().message(), HasSubstr("only EQ and NE"));
}

// ===========================================================================
// select, clamp

TEST(ElementwiseSelectTest, ScalarAndArrayPredicates) {
  Literal t = F32({3}, {1, 2, 3});
  Literal f = F32({3}, {-1, -2, -3});
  ExpectReals(RunHlo(OpModule("f32[3]", "select", {"pred[]", "f32[3]", "f32[3]"}),
                     {Ints(PT::kPred, {}, {1}), t, f}),
              {1, 2, 3});
  ExpectReals(RunHlo(OpModule("f32[3]", "select", {"pred[]", "f32[3]", "f32[3]"}),
                     {Ints(PT::kPred, {}, {0}), t, f}),
              {-1, -2, -3});
  ExpectReals(RunHlo(OpModule("f32[3]", "select", {"pred[3]", "f32[3]", "f32[3]"}),
                     {Ints(PT::kPred, {3}, {1, 0, 1}), t, f}),
              {1, -2, 3});
  Literal c = RunHlo(OpModule("c128[2]", "select", {"pred[2]", "c128[2]", "c128[2]"}),
                     {Ints(PT::kPred, {2}, {0, 1}), Complexes(PT::kC128, {2}, {{1, 1}, {2, 2}}),
                      Complexes(PT::kC128, {2}, {{3, 3}, {4, 4}})});
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(3, 3));
  EXPECT_EQ(c.GetComplex(1), std::complex<double>(2, 2));
  Literal s4 = RunHlo(
      OpModule("s4[2]", "select", {"pred[2]", "s4[2]", "s4[2]"}),
      {Ints(PT::kPred, {2}, {1, 0}), Ints(PT::kS4, {2}, {-8, 1}), Ints(PT::kS4, {2}, {2, -3})});
  EXPECT_THAT(IntsOf(s4), ElementsAre(-8, -3));
}

TEST(ElementwiseClampTest, ScalarBoundsAndNaN) {
  ExpectReals(RunHlo(OpModule("f32[4]", "clamp", {"f32[]", "f32[4]", "f32[]"}),
                     {F32({}, {0}), F32({4}, {-1, 0.5, 2, kNaN}), F32({}, {1})}),
              {0, 0.5, 1, kNaN});
  ExpectReals(RunHlo(OpModule("f32[2]", "clamp", {"f32[]", "f32[2]", "f32[]"}),
                     {F32({}, {kNaN}), F32({2}, {1, 2}), F32({}, {5})}),
              {kNaN, kNaN});
  ExpectReals(RunHlo(OpModule("f32[2]", "clamp", {"f32[2]", "f32[2]", "f32[2]"}),
                     {F32({2}, {0, 0}), F32({2}, {3, -3}), F32({2}, {2, kNaN})}),
              {2, kNaN});
  EXPECT_THAT(IntsOf(RunHlo(OpModule("s32[3]", "clamp", {"s32[]", "s32[3]", "s32[]"}),
                            {Ints(PT::kS32, {}, {0}), Ints(PT::kS32, {3}, {-5, 3, 10}),
                             Ints(PT::kS32, {}, {5})})),
              ElementsAre(0, 3, 5));
  ExpectReals(RunHlo(OpModule("bf16[2]", "clamp", {"bf16[]", "bf16[2]", "bf16[]"}),
                     {Reals(PT::kBF16, {}, {-1}), Reals(PT::kBF16, {2}, {-4, 0.5}),
                      Reals(PT::kBF16, {}, {1})}),
              {-1, 0.5});
}

// ===========================================================================
// Complex values

TEST(ElementwiseComplexTest, Arithmetic) {
  Literal a = Complexes(PT::kC64, {1}, {{1, 2}});
  Literal b = Complexes(PT::kC64, {1}, {{3, 4}});
  EXPECT_EQ(RunHlo(OpModule("c64[1]", "multiply", {"c64[1]", "c64[1]"}), {a, b}).GetComplex(0),
            std::complex<double>(-5, 10));
  EXPECT_EQ(RunHlo(OpModule("c64[1]", "add", {"c64[1]", "c64[1]"}), {a, b}).GetComplex(0),
            std::complex<double>(4, 6));
  Literal q = RunHlo(OpModule("c128[1]", "divide", {"c128[1]", "c128[1]"}),
                     {Complexes(PT::kC128, {1}, {{-5, 10}}), Complexes(PT::kC128, {1}, {{3, 4}})});
  EXPECT_NEAR(q.GetComplex(0).real(), 1, 1e-15);
  EXPECT_NEAR(q.GetComplex(0).imag(), 2, 1e-15);
}

TEST(ElementwiseComplexTest, AbsRealImagAndConstruction) {
  Literal z = Complexes(PT::kC64, {2}, {{3, 4}, {-1, 0}});
  ExpectReals(RunHlo(OpModule("f32[2]", "abs", {"c64[2]"}), {z}), {5, 1});
  ExpectReals(RunHlo(OpModule("f32[2]", "real", {"c64[2]"}), {z}), {3, -1});
  ExpectReals(RunHlo(OpModule("f32[2]", "imag", {"c64[2]"}), {z}), {4, 0});
  ExpectReals(RunHlo(OpModule("f32[2]", "real", {"f32[2]"}), {F32({2}, {7, -7})}), {7, -7});
  ExpectReals(RunHlo(OpModule("f32[2]", "imag", {"f32[2]"}), {F32({2}, {7, -7})}), {0, 0});
  Literal c = RunHlo(OpModule("c128[1]", "complex", {"f64[1]", "f64[1]"}),
                     {Reals(PT::kF64, {1}, {1.5}), Reals(PT::kF64, {1}, {-2.5})});
  EXPECT_EQ(c.GetComplex(0), std::complex<double>(1.5, -2.5));
}

TEST(ElementwiseComplexTest, Functions) {
  Literal e = RunHlo(OpModule("c128[1]", "exponential", {"c128[1]"}),
                     {Complexes(PT::kC128, {1}, {{0, std::numbers::pi}})});
  EXPECT_NEAR(e.GetComplex(0).real(), -1, 1e-15);
  EXPECT_NEAR(e.GetComplex(0).imag(), 0, 1e-15);
  Literal s = RunHlo(OpModule("c64[1]", "sign", {"c64[1]"}), {Complexes(PT::kC64, {1}, {{3, 4}})});
  EXPECT_NEAR(s.GetComplex(0).real(), 0.6, 1e-7);
  EXPECT_NEAR(s.GetComplex(0).imag(), 0.8, 1e-7);
  Literal m = RunHlo(OpModule("c128[1]", "exponential-minus-one", {"c128[1]"}),
                     {Complexes(PT::kC128, {1}, {{1e-10, 1e-10}})});
  // expm1(a + ib) = (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b; exp(z) - 1 would be
  // off by about 1e-17 in the real part.
  EXPECT_NEAR(m.GetComplex(0).real(), 1e-10, 1e-19);
  EXPECT_NEAR(m.GetComplex(0).imag(), 1e-10 + 1e-20, 1e-19);
}

// ===========================================================================
// Larger arrays (several chunks) and errors

TEST(ElementwiseLoopTest, ArraysLongerThanOneChunk) {
  const int64_t n = 1000;
  std::vector<int64_t> a(n), b(n);
  std::vector<double> h(n);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = i;
    b[i] = 3 * i;
    h[i] = static_cast<double>(i % 100) / 4;
  }
  const std::string s32 = "s32[1000]";
  EXPECT_EQ(IntsOf(RunHlo(OpModule(s32, "add", {s32, s32}),
                          {Ints(PT::kS32, {n}, a), Ints(PT::kS32, {n}, b)}))[999],
            3996);
  Literal bf = RunHlo(OpModule("bf16[1000]", "multiply", {"bf16[1000]", "bf16[1000]"}),
                      {Reals(PT::kBF16, {n}, h), Reals(PT::kBF16, {n}, h)});
  // 24.5^2 = 600.25 and 24.75^2 = 612.5625 round to bf16's spacing of 4 there.
  EXPECT_EQ(bf.GetDouble(998), 600.0);
  EXPECT_EQ(bf.GetDouble(999), 612.0);
}

TEST(ElementwiseErrorTest, MismatchedShapesAndUnsupportedTypes) {
  const std::string add = OpModule("f32[4]", "add", {"f32[4]", "f32[4]"});
  Literal four = F32({4}, {1, 2, 3, 4});
  Literal three = F32({3}, {1, 2, 3});
  StatusOr<Literal> r = EvalRoot(add, {&four, &three});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("operand 1"));

  Literal s32 = Ints(PT::kS32, {4}, {1, 2, 3, 4});
  StatusOr<Literal> mixed = EvalRoot(add, {&four, &s32});
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.status().message(), HasSubstr("element type"));

  StatusOr<Literal> cbrt =
      TryRun(OpModule("c64[1]", "cbrt", {"c64[1]"}), {Complexes(PT::kC64, {1}, {{1, 1}})});
  ASSERT_FALSE(cbrt.ok());
  EXPECT_THAT(cbrt.status().message(), HasSubstr("cbrt does not support element type c64"));

  StatusOr<Literal> shift =
      TryRun(OpModule("f32[4]", "shift-left", {"f32[4]", "f32[4]"}), {four, four});
  EXPECT_FALSE(shift.ok());
}

TEST(ElementwiseErrorTest, OtherOpcodesAreNotMine) {
  Literal four = F32({4}, {1, 2, 3, 4});
  StatusOr<Literal> r = EvalRoot(OpModule("f32[4]", "copy", {"f32[4]"}), {&four});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsNotMine(r.status()));
}

TEST(ElementwiseModuleTest, ConstantsInAModule) {
  Literal r = RunHlo(R"(
HloModule m
ENTRY e {
  a = s8[3] constant({-128, 100, 7})
  b = s8[3] constant({-1, 100, 0})
  q = s8[3] divide(a, b)
  s = s8[3] add(a, b)
  ROOT t = s8[3] subtract(q, s)
}
)",
                     {});
  // q = {-128, 1, -1}; s = {127 (wrapped), -56 (wrapped), 7}; q - s = {1 (wrapped), 57, -8}.
  EXPECT_THAT(IntsOf(r), ElementsAre(1, 57, -8));
}

}  // namespace
}  // namespace fusebox::interpreter
