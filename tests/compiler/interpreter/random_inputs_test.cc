// Random input tests: fixed bits for a fixed seed (splitmix64's published first outputs),
// the documented value ranges of every element type, parameter independence, and
// index-like parameters kept in range through gathers, scatters, dynamic slices,
// conditionals, fusions and calls.
#include "compiler/interpreter/random_inputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

using PT = PrimitiveType;

std::unique_ptr<Module> MustParse(std::string_view text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(module).value() : nullptr;
}

std::vector<Literal> MustRandomArguments(const Module& module, uint64_t seed) {
  auto arguments = RandomArguments(module, seed);
  EXPECT_TRUE(arguments.ok()) << arguments.status().message();
  return arguments.ok() ? std::move(arguments).value() : std::vector<Literal>{};
}

// Smallest and largest element of an integer-valued literal.
std::pair<int64_t, int64_t> MinMax(const Literal& literal) {
  int64_t lo = INT64_MAX;
  int64_t hi = INT64_MIN;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    lo = std::min(lo, literal.GetInt64(i));
    hi = std::max(hi, literal.GetInt64(i));
  }
  return {lo, hi};
}

// ---------------------------------------------------------------------------
// RandomLiteral

TEST(RandomInputsTest, FixedSeedGivesFixedBits) {
  // Seed 0's stream is splitmix64's: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
  // 0x06C45D188009454F. Floats are (bits >> 11) * 2^-52 - 1; s32 is bits % 16 - 8.
  const Literal f64 = RandomLiteral(Shape(PT::kF64, {3}), 0);
  EXPECT_EQ(f64.GetDouble(0), 0.7666216164272852);
  EXPECT_EQ(f64.GetDouble(1), -0.13694400590298006);
  EXPECT_EQ(f64.GetDouble(2), -0.9471324568148045);
  EXPECT_EQ(RandomLiteral(Shape(PT::kS32, {3}), 0).ToString(), "{7, -4, 7}");
  EXPECT_EQ(RandomLiteral(Shape(PT::kU64, {1}), 0).GetUint64(0), 15u);  // 0x...AF % 16
  // f32 is f64's value rounded.
  const Literal f32 = RandomLiteral(Shape(PT::kF32, {3}), 0);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(f32.GetDouble(i), static_cast<double>(static_cast<float>(f64.GetDouble(i))));
  }
}

TEST(RandomInputsTest, SameSeedSameBitsOtherSeedOtherBits) {
  for (PT type : {PT::kF32, PT::kBF16, PT::kS8, PT::kC64, PT::kPred, PT::kF8E4M3FN}) {
    SCOPED_TRACE(std::string(PrimitiveTypeName(type)));
    const Shape shape(type, {8, 16});
    EXPECT_EQ(RandomLiteral(shape, 42), RandomLiteral(shape, 42));
    EXPECT_NE(RandomLiteral(shape, 42), RandomLiteral(shape, 43));
  }
  // An element's value depends on its position, not on the array's size.
  const Literal small = RandomLiteral(Shape(PT::kF32, {4}), 9);
  const Literal large = RandomLiteral(Shape(PT::kF32, {2, 50}), 9);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(small.GetBits(i), large.GetBits(i));
}

TEST(RandomInputsTest, FloatsAreUniformInMinusOneToOne) {
  for (int t = 0; t <= static_cast<int>(PT::kC128); ++t) {
    const auto type = static_cast<PT>(t);
    if (!IsFloat(type) || type == PT::kF8E8M0FNU) continue;
    SCOPED_TRACE(std::string(PrimitiveTypeName(type)));
    const Literal literal = RandomLiteral(Shape(type, {2000}), 5);
    int negative = 0;
    int positive = 0;
    double lo = 2;
    double hi = -2;
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      const double v = literal.GetDouble(i);
      ASSERT_TRUE(v >= -1 && v <= 1) << v;
      negative += v < 0;
      positive += v > 0;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    // Symmetric about 0 (f4e2m1fn rounds a quarter of the draws, those in (-0.25, 0.25), to zero).
    EXPECT_GT(negative + positive, 1400);
    EXPECT_LT(std::abs(negative - positive), 150);
    EXPECT_LT(lo, -0.9);
    EXPECT_GT(hi, 0.9);
    if (type == PT::kF32 || type == PT::kF64) {
      EXPECT_LT(hi, 1);  // the half-open end
    }
  }
}

TEST(RandomInputsTest, E8M0GetsPowersOfTwo) {
  const Literal literal = RandomLiteral(Shape(PT::kF8E8M0FNU, {500}), 3);
  std::set<double> seen;
  for (int64_t i = 0; i < literal.element_count(); ++i) seen.insert(literal.GetDouble(i));
  EXPECT_EQ(seen, (std::set<double>{0.0625, 0.125, 0.25, 0.5, 1, 2, 4, 8, 16}));
}

TEST(RandomInputsTest, IntegersCoverTheirDocumentedRanges) {
  const struct {
    PT type;
    int64_t lo;
    int64_t hi;  // inclusive
  } cases[] = {
      {PT::kS8, -8, 7},  {PT::kS16, -8, 7}, {PT::kS32, -8, 7}, {PT::kS64, -8, 7}, {PT::kS4, -8, 7},
      {PT::kS2, -2, 1},  {PT::kS1, -1, 0},  {PT::kU8, 0, 15},  {PT::kU16, 0, 15}, {PT::kU32, 0, 15},
      {PT::kU64, 0, 15}, {PT::kU4, 0, 15},  {PT::kU2, 0, 3},   {PT::kU1, 0, 1},   {PT::kPred, 0, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(PrimitiveTypeName(c.type)));
    const Literal literal = RandomLiteral(Shape(c.type, {1000}), 11);
    std::set<int64_t> seen;
    for (int64_t i = 0; i < literal.element_count(); ++i) seen.insert(literal.GetInt64(i));
    EXPECT_EQ(*seen.begin(), c.lo);
    EXPECT_EQ(*seen.rbegin(), c.hi);
    EXPECT_EQ(static_cast<int64_t>(seen.size()), c.hi - c.lo + 1);
  }
}

TEST(RandomInputsTest, ComplexPartsAreIndependent) {
  const Literal literal = RandomLiteral(Shape(PT::kC128, {200}), 1);
  int same_sign = 0;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const std::complex<double> c = literal.GetComplex(i);
    ASSERT_TRUE(c.real() >= -1 && c.real() < 1 && c.imag() >= -1 && c.imag() < 1);
    same_sign += (c.real() < 0) == (c.imag() < 0);
  }
  EXPECT_GT(same_sign, 70);
  EXPECT_LT(same_sign, 130);
}

TEST(RandomInputsTest, TupleElementsUseTheirOwnStreams) {
  const Shape element(PT::kF32, {4});
  const Shape tuple = Shape::Tuple({element, Shape::Tuple({element}), Shape::Token()});
  const Literal literal = RandomLiteral(tuple, 77);
  EXPECT_EQ(literal.tuple_elements()[0], RandomLiteral(element, ParameterSeed(77, 0)));
  EXPECT_EQ(literal.tuple_elements()[1].tuple_elements()[0],
            RandomLiteral(element, ParameterSeed(ParameterSeed(77, 1), 0)));
  EXPECT_NE(literal.tuple_elements()[0], literal.tuple_elements()[1].tuple_elements()[0]);
}

// ---------------------------------------------------------------------------
// RandomArguments

TEST(RandomInputsTest, ParametersAreIndependentAndReproducible) {
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  ROOT s = f32[8] add(a, b)
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 5);
  ASSERT_EQ(arguments.size(), 2u);
  EXPECT_NE(arguments[0], arguments[1]);
  EXPECT_EQ(arguments[0], RandomLiteral(Shape(PT::kF32, {8}), ParameterSeed(5, 0)));
  EXPECT_EQ(arguments[1], RandomLiteral(Shape(PT::kF32, {8}), ParameterSeed(5, 1)));
  const auto again = MustRandomArguments(*module, 5);
  EXPECT_EQ(again[0], arguments[0]);
  EXPECT_EQ(again[1], arguments[1]);
  EXPECT_NE(MustRandomArguments(*module, 6)[0], arguments[0]);
}

TEST(RandomInputsTest, GatherIndicesStayInRange) {
  // Along start_index_map={0}: 10 rows, slices of 3 rows -> starts 0..7.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  x = f32[10,8] parameter(0)
  idx = s32[300,1] parameter(1)
  ROOT g = f32[300,3,8] gather(x, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={3,8}
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 1);
  ASSERT_EQ(arguments.size(), 2u);
  EXPECT_EQ(MinMax(arguments[1]), (std::pair<int64_t, int64_t>{0, 7}));
  // The data operand keeps the ordinary float values.
  EXPECT_EQ(arguments[0], RandomLiteral(Shape(PT::kF32, {10, 8}), ParameterSeed(1, 0)));
}

TEST(RandomInputsTest, GatherWithSeveralIndexDimensionsTakesTheSmallest) {
  // Starts along dims 0 (20 - 1 + 1 = 20) and 1 (8 - 3 + 1 = 6): bound 6. The indices
  // come through a convert from u8 and a reshape.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  x = f32[20,8] parameter(0)
  raw = u8[400] parameter(1)
  c = s32[400] convert(raw)
  idx = s32[200,2] reshape(c)
  ROOT g = f32[200,3] gather(x, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,3}
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 2);
  EXPECT_EQ(MinMax(arguments[1]), (std::pair<int64_t, int64_t>{0, 5}));
}

TEST(RandomInputsTest, DynamicSliceStartsStayInRange) {
  // Starts along dim 0: 20 - 4 + 1 = 17 positions; along dim 1 the slice is whole: only 0.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  x = f32[20,6] parameter(0)
  i = s32[] parameter(1)
  j = s64[] parameter(2)
  jc = s32[] convert(j)
  ROOT ds = f32[4,6] dynamic-slice(x, i, jc), dynamic_slice_sizes={4,6}
})");
  ASSERT_TRUE(module);
  std::set<int64_t> starts;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const auto arguments = MustRandomArguments(*module, seed);
    ASSERT_EQ(arguments.size(), 3u);
    starts.insert(arguments[1].GetInt64(0));
    EXPECT_EQ(arguments[2].GetInt64(0), 0);
  }
  EXPECT_EQ(*starts.begin(), 0);
  EXPECT_EQ(*starts.rbegin(), 16);
  EXPECT_EQ(starts.size(), 17u);
}

TEST(RandomInputsTest, DynamicUpdateSliceInsideAFusion) {
  auto module = MustParse(R"(
HloModule m
fused {
  p0 = f32[10] parameter(0)
  p1 = f32[3] parameter(1)
  p2 = s32[] parameter(2)
  ROOT dus = f32[10] dynamic-update-slice(p0, p1, p2)
}
ENTRY e {
  x = f32[10] parameter(0)
  u = f32[3] parameter(1)
  k = s32[] parameter(2)
  ROOT f = f32[10] fusion(x, u, k), kind=kLoop, calls=fused
})");
  ASSERT_TRUE(module);
  std::set<int64_t> starts;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    starts.insert(MustRandomArguments(*module, seed)[2].GetInt64(0));
  }
  EXPECT_EQ(starts, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(RandomInputsTest, ScatterIndicesStayInRange) {
  auto module = MustParse(R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  operand = f32[5,7] parameter(0)
  indices = s32[100,1] parameter(1)
  updates = f32[100,7] parameter(2)
  ROOT sc = f32[5,7] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 4);
  EXPECT_EQ(MinMax(arguments[1]), (std::pair<int64_t, int64_t>{0, 4}));
}

TEST(RandomInputsTest, ConditionalBranchIndexAndTupleLeaves) {
  // p = (s32[], f32[4], s32[]): leaf {0} picks one of three branches, leaf {2} starts a
  // dynamic slice of 2 out of 4 (starts 0..2) after a call returns it converted.
  auto module = MustParse(R"(
HloModule m
b0 {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
b1 {
  a = f32[4] parameter(0)
  ROOT n = f32[4] abs(a)
}
b2 {
  a = f32[4] parameter(0)
  ROOT n = f32[4] exponential(a)
}
widen {
  w = s32[] parameter(0)
  ROOT c = s64[] convert(w)
}
ENTRY e {
  p = (s32[], f32[4], s32[]) parameter(0)
  k = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  s = s32[] get-tuple-element(p), index=2
  wide = s64[] call(s), to_apply=widen
  ds = f32[2] dynamic-slice(x, wide), dynamic_slice_sizes={2}
  c = f32[4] conditional(k, x, x, x), branch_computations={b0, b1, b2}
  ROOT t = (f32[2], f32[4]) tuple(ds, c)
})");
  ASSERT_TRUE(module);
  std::set<int64_t> branches;
  std::set<int64_t> starts;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    const auto arguments = MustRandomArguments(*module, seed);
    ASSERT_EQ(arguments.size(), 1u);
    const auto& leaves = arguments[0].tuple_elements();
    branches.insert(leaves[0].GetInt64(0));
    starts.insert(leaves[2].GetInt64(0));
    // The float leaf is what RandomLiteral gives it.
    EXPECT_EQ(leaves[1],
              RandomLiteral(Shape(PT::kF32, {4}), ParameterSeed(ParameterSeed(seed, 0), 1)));
  }
  EXPECT_EQ(branches, (std::set<int64_t>{0, 1, 2}));
  EXPECT_EQ(starts, (std::set<int64_t>{0, 1, 2}));
}

TEST(RandomInputsTest, WhileLoopCarriedIndex) {
  auto module = MustParse(R"(
HloModule m
cond {
  p = (f32[9], s32[]) parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  p = (f32[9], s32[]) parameter(0)
  x = f32[9] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  d = f32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}
  z = f32[] constant(0)
  pd = f32[9] pad(d, z), padding=0_6
  ROOT r = (f32[9], s32[]) tuple(pd, i)
}
ENTRY e {
  x = f32[9] parameter(0)
  i = s32[] parameter(1)
  init = (f32[9], s32[]) tuple(x, i)
  ROOT w = (f32[9], s32[]) while(init), condition=cond, body=body
})");
  ASSERT_TRUE(module);
  std::set<int64_t> starts;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    starts.insert(MustRandomArguments(*module, seed)[1].GetInt64(0));
  }
  EXPECT_EQ(starts, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(RandomInputsTest, BoundsRespectTheIndexType) {
  // s8 holds starts up to 127 only; f32 indices get integers.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  x = f32[1000] parameter(0)
  i = s8[] parameter(1)
  f = f32[] parameter(2)
  fi = s32[] convert(f)
  ds = f32[1] dynamic-slice(x, i), dynamic_slice_sizes={1}
  ds2 = f32[1] dynamic-slice(x, fi), dynamic_slice_sizes={1}
  ROOT t = (f32[1], f32[1]) tuple(ds, ds2)
})");
  ASSERT_TRUE(module);
  int64_t max_s8 = 0;
  double max_f32 = 0;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    const auto arguments = MustRandomArguments(*module, seed);
    const int64_t i = arguments[1].GetInt64(0);
    const double f = arguments[2].GetDouble(0);
    ASSERT_TRUE(i >= 0 && i < 128) << i;
    ASSERT_TRUE(f >= 0 && f < 1000 && f == std::floor(f)) << f;
    max_s8 = std::max(max_s8, i);
    max_f32 = std::max(max_f32, f);
  }
  EXPECT_GT(max_s8, 100);
  EXPECT_GT(max_f32, 900);
}

TEST(RandomInputsTest, ModuleWithoutEntryIsAnError) {
  Module module("empty");
  auto arguments = RandomArguments(module, 0);
  ASSERT_FALSE(arguments.ok());
  EXPECT_EQ(arguments.status().message(), "module 'empty' has no entry computation");
}

}  // namespace
}  // namespace fusebox
