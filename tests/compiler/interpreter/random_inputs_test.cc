// Random input tests: fixed bits for a fixed seed (splitmix64's published first outputs),
// the documented value ranges of every element type, parameter independence, and
// index-like parameters kept in range through gathers, scatters, dynamic slices,
// conditionals, fusions and calls.
#include "compiler/interpreter/random_inputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
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

// ---------------------------------------------------------------------------
// Distributions chosen from uses: positive values, and the explanation

// Smallest and largest element of a float literal.
std::pair<double, double> MinMaxDouble(const Literal& literal) {
  double lo = INFINITY;
  double hi = -INFINITY;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    lo = std::min(lo, literal.GetDouble(i));
    hi = std::max(hi, literal.GetDouble(i));
  }
  return {lo, hi};
}

std::vector<std::string> MustExplain(const Module& module) {
  auto choices = ExplainRandomArguments(module);
  EXPECT_TRUE(choices.ok()) << choices.status().message();
  std::vector<std::string> lines;
  if (choices.ok()) {
    for (const InputChoice& choice : *choices) lines.push_back(choice.ToString());
  }
  return lines;
}

// Batch-norm inference as jax writes it: (x - mean) * rsqrt(var + eps) * scale + offset.
constexpr std::string_view kBatchNorm = R"(
HloModule bn
ENTRY e {
  x = f32[16,64] parameter(0)
  mean = f32[64] parameter(1)
  var = f32[64] parameter(2)
  scale = f32[64] parameter(3)
  offset = f32[64] parameter(4)
  eps = f32[] constant(0.001)
  eps_b = f32[64] broadcast(eps), dimensions={}
  add = f32[64] add(var, eps_b)
  rsqrt = f32[64] rsqrt(add)
  inv = f32[64] multiply(rsqrt, scale)
  inv_b = f32[16,64] broadcast(inv), dimensions={1}
  mean_b = f32[16,64] broadcast(mean), dimensions={1}
  centered = f32[16,64] subtract(x, mean_b)
  scaled = f32[16,64] multiply(centered, inv_b)
  offset_b = f32[16,64] broadcast(offset), dimensions={1}
  ROOT out = f32[16,64] add(scaled, offset_b)
})";

TEST(RandomInputsTest, BatchNormVarianceIsPositiveAndTheOutputFinite) {
  auto module = MustParse(kBatchNorm);
  ASSERT_TRUE(module);
  for (uint64_t seed : {0, 1, 2, 3}) {
    SCOPED_TRACE(seed);
    const auto arguments = MustRandomArguments(*module, seed);
    ASSERT_EQ(arguments.size(), 5u);
    const auto [lo, hi] = MinMaxDouble(arguments[2]);
    EXPECT_GE(lo, 0.5);
    EXPECT_LT(hi, 1.5);
    EXPECT_LT(lo, 0.6);  // the whole range is used
    EXPECT_GT(hi, 1.4);
    // Only the variance: x, mean, scale (it reaches no rsqrt) and offset are as before.
    for (int p : {0, 1, 3, 4}) {
      EXPECT_EQ(arguments[p], RandomLiteral(module->entry()->parameter(p)->shape(),
                                            ParameterSeed(seed, p)))
          << "parameter " << p;
    }
    auto result = Interpreter().Run(*module, arguments);
    ASSERT_TRUE(result.ok()) << result.status().message();
    for (int64_t i = 0; i < result->element_count(); ++i) {
      ASSERT_TRUE(std::isfinite(result->GetDouble(i))) << "element " << i;
    }
  }
}

TEST(RandomInputsTest, PositiveValuesAreTheStreamShifted) {
  // 1 + u/2 for the stream's u in [-1, 1): same seed, same bits.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  v = f32[100] parameter(0)
  ROOT s = f32[100] sqrt(v)
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 9);
  const Literal unit = RandomLiteral(Shape(PT::kF64, {100}), ParameterSeed(9, 0));
  for (int64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(arguments[0].GetDouble(i),
              static_cast<double>(static_cast<float>(1.0 + 0.5 * unit.GetDouble(i))));
  }
  EXPECT_EQ(MustRandomArguments(*module, 9)[0], arguments[0]);
}

TEST(RandomInputsTest, SubtractAndNegateDoNotPropagatePositivity) {
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  a = f32[200] parameter(0)
  b = f32[200] parameter(1)
  c = f32[200] parameter(2)
  d = f32[200] subtract(a, b)
  n = f32[200] negate(c)
  s = f32[200] add(d, n)
  ROOT r = f32[200] rsqrt(s)
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 4);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(arguments[p], RandomLiteral(Shape(PT::kF32, {200}), ParameterSeed(4, p)));
    EXPECT_LT(MinMaxDouble(arguments[p]).first, 0);
  }
  EXPECT_THAT(MustExplain(*module),
              ::testing::Each(::testing::EndsWith("f32[200]): uniform [-1, 1): default")));
}

TEST(RandomInputsTest, PositivityThroughFusionsTuplesWhileAndConverts) {
  // log of a fused value; pow's base through a tuple and a while loop; a divisor through
  // a convert; the exponent and the dividend's other operand stay signed.
  auto module = MustParse(R"(
HloModule m
fused {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  m = f32[8] maximum(p0, p1)
  ROOT l = f32[8] log(m)
}
body {
  st = (f32[8], f32[8], s32[]) parameter(0)
  base = f32[8] get-tuple-element(st), index=0
  ex = f32[8] get-tuple-element(st), index=1
  i = s32[] get-tuple-element(st), index=2
  pw = f32[8] power(base, ex)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (f32[8], f32[8], s32[]) tuple(base, pw, i1)
}
cond {
  st = (f32[8], f32[8], s32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=2
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  f = f32[8] fusion(a, b), kind=kLoop, calls=fused
  init = (f32[8], f32[8], s32[]) parameter(2)
  w = (f32[8], f32[8], s32[]) while(init), condition=cond, body=body
  r = f32[8] get-tuple-element(w), index=1
  h = f16[8] parameter(3)
  hc = f32[8] convert(h)
  q = f32[8] divide(r, hc)
  ROOT out = (f32[8], f32[8]) tuple(f, q)
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 3);
  ASSERT_EQ(arguments.size(), 4u);
  EXPECT_GE(MinMaxDouble(arguments[0]).first, 0.5);
  EXPECT_GE(MinMaxDouble(arguments[1]).first, 0.5);
  EXPECT_GE(MinMaxDouble(arguments[2].tuple_elements()[0]).first, 0.5);
  // The exponent reaches pow as operand 1 and then the dividend: not a positive use.
  EXPECT_LT(MinMaxDouble(arguments[2].tuple_elements()[1]).first, 0);
  EXPECT_GE(MinMaxDouble(arguments[3]).first, 0.5);
  const std::vector<std::string> lines = MustExplain(*module);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0],
            "parameter 0 (%a, f32[8]): uniform [0.5, 1.5): reaches log (%l) through parameter 0 "
            "(%p0 in %fused), maximum (%m)");
  EXPECT_EQ(lines[2],
            "parameter 2 (%init{0}, f32[8]): uniform [0.5, 1.5): reaches power (%pw) as its base "
            "through parameter 0 (%st in %body), get-tuple-element (%base)");
  EXPECT_EQ(lines[3], "parameter 2 (%init{1}, f32[8]): uniform [-1, 1): default");
  EXPECT_EQ(lines[4], "parameter 2 (%init{2}, s32[]): integers in [-8, 8): default");
  EXPECT_EQ(lines[5],
            "parameter 3 (%h, f16[8]): uniform [0.5, 1.5): reaches divide (%q) as its divisor "
            "through convert (%hc)");
}

TEST(RandomInputsTest, IntegerDivisorsAndShiftAmounts) {
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  n = s32[500] parameter(0)
  d = s32[500] parameter(1)
  k = u8[500] parameter(2)
  x = u8[500] parameter(3)
  q = s32[500] divide(n, d)
  r = s32[500] remainder(n, d)
  sh = u8[500] shift-left(x, k)
  ROOT t = (s32[500], s32[500], u8[500]) tuple(q, r, sh)
})");
  ASSERT_TRUE(module);
  const auto arguments = MustRandomArguments(*module, 8);
  EXPECT_EQ(MinMax(arguments[0]), (std::pair<int64_t, int64_t>{-8, 7}));
  EXPECT_EQ(MinMax(arguments[1]), (std::pair<int64_t, int64_t>{1, 7}));
  EXPECT_EQ(MinMax(arguments[2]), (std::pair<int64_t, int64_t>{0, 7}));
  EXPECT_EQ(MinMax(arguments[3]), (std::pair<int64_t, int64_t>{0, 15}));
  EXPECT_THAT(MustExplain(*module),
              ::testing::ElementsAre(
                  "parameter 0 (%n, s32[500]): integers in [-8, 8): default",
                  "parameter 1 (%d, s32[500]): integers in [1, 8): reaches divide (%q) as its "
                  "divisor",
                  "parameter 2 (%k, u8[500]): integers in [0, 8): shift amount of %sh",
                  "parameter 3 (%x, u8[500]): integers in [0, 16): default"));
}

TEST(RandomInputsTest, ExplainsEveryLeafWithItsReason) {
  auto module = MustParse(kBatchNorm);
  ASSERT_TRUE(module);
  EXPECT_THAT(
      MustExplain(*module),
      ::testing::ElementsAre(
          "parameter 0 (%x, f32[16,64]): uniform [-1, 1): default",
          "parameter 1 (%mean, f32[64]): uniform [-1, 1): default",
          "parameter 2 (%var, f32[64]): uniform [0.5, 1.5): reaches rsqrt (%rsqrt) through add "
          "(%add)",
          "parameter 3 (%scale, f32[64]): uniform [-1, 1): default",
          "parameter 4 (%offset, f32[64]): uniform [-1, 1): default"));

  // Index-like leaves name their use and the chain that leads there.
  auto ds = MustParse(R"(
HloModule m
ENTRY e {
  x = f32[10,4] parameter(0)
  i = s64[] parameter(1)
  ic = s32[] convert(i)
  z = s32[] constant(0)
  ROOT ds = f32[4,4] dynamic-slice(x, ic, z), dynamic_slice_sizes={4,4}
})");
  ASSERT_TRUE(ds);
  EXPECT_THAT(MustExplain(*ds),
              ::testing::ElementsAre(
                  "parameter 0 (%x, f32[10,4]): uniform [-1, 1): default",
                  "parameter 1 (%i, s64[]): integers in [0, 7): dynamic-slice start of %ds "
                  "through convert (%ic)"));
}

TEST(RandomInputsTest, AnIndexRangeWinsOverPositivity) {
  // i is a dynamic-slice start and also a divisor: starts must be allowed to be 0.
  auto module = MustParse(R"(
HloModule m
ENTRY e {
  x = s32[10] parameter(0)
  i = s32[] parameter(1)
  ds = s32[3] dynamic-slice(x, i), dynamic_slice_sizes={3}
  ib = s32[3] broadcast(i), dimensions={}
  ROOT q = s32[3] divide(ds, ib)
})");
  ASSERT_TRUE(module);
  EXPECT_THAT(MustExplain(*module)[1],
              ::testing::StartsWith("parameter 1 (%i, s32[]): integers in [0, 8): dynamic-slice "
                                    "start of %ds; it also reaches divide (%q) as its divisor"));
}

}  // namespace
}  // namespace fusebox::interpreter
