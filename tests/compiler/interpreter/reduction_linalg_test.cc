// Interpreter reductions and linear algebra: reduce, reduce-window, select-and-scatter,
// map, dot, convolution, triangular-solve, cholesky, fft and batch-norm. Every expected
// value is worked out by hand (the arithmetic is in the comments).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <complex>
#include <limits>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
namespace {

using ::testing::HasSubstr;
using PT = PrimitiveType;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Literal Lit(PT type, std::vector<int64_t> dims, const std::vector<double>& values) {
  Literal l(Shape(type, std::move(dims)));
  EXPECT_EQ(static_cast<int64_t>(values.size()), l.element_count());
  for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < l.element_count(); ++i) {
    if (IsFloat(type) || IsComplex(type)) {
      l.SetDouble(static_cast<int64_t>(i), values[i]);
    } else {
      l.SetInt64(static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
    }
  }
  return l;
}

Literal F32(std::vector<int64_t> dims, const std::vector<double>& values) {
  return Lit(PT::kF32, std::move(dims), values);
}

// Values 1, 2, ..., n.
std::vector<double> Iota1(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 1; i <= n; ++i) v.push_back(static_cast<double>(i));
  return v;
}

StatusOr<Literal> RunHlo(const std::string& hlo, const std::vector<Literal>& args) {
  auto module = ParseModule(hlo);
  if (!module.ok()) return module.status();
  return Interpreter().Run(**module, args);
}

std::vector<double> Values(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

std::vector<std::complex<double>> ComplexValues(const Literal& l) {
  std::vector<std::complex<double>> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetComplex(i));
  return out;
}

// Runs `hlo` and expects an array result with `dims` and exactly `want`.
void ExpectResult(const std::string& hlo, const std::vector<Literal>& args,
                  const std::vector<int64_t>& dims, const std::vector<double>& want) {
  auto r = RunHlo(hlo, args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->shape().IsArray()) << r->shape().ToString();
  EXPECT_EQ(r->shape().dimensions(), dims);
  EXPECT_EQ(Values(*r), want);
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want,
                double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

const char* kAddF32 = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

const char* kMaxF32 = R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

// ===========================================================================
// reduce
// ===========================================================================

std::string ReduceSum(const std::string& in_shape, const std::string& out_shape,
                      const std::string& dims) {
  return std::string("HloModule r\n") + kAddF32 + "ENTRY e {\n  p = " + in_shape +
         " parameter(0)\n  z = f32[] constant(0)\n  ROOT r = " + out_shape +
         " reduce(p, z), dimensions={" + dims + "}, to_apply=add\n}\n";
}

TEST(ReduceTest, SumOverRowsColumnsAndAll) {
  // {{1,2,3},{4,5,6}}: rows 6, 15; columns 5, 7, 9; all 21.
  const Literal x = F32({2, 3}, Iota1(6));
  ExpectResult(ReduceSum("f32[2,3]", "f32[2]", "1"), {x}, {2}, {6, 15});
  ExpectResult(ReduceSum("f32[2,3]", "f32[3]", "0"), {x}, {3}, {5, 7, 9});
  ExpectResult(ReduceSum("f32[2,3]", "f32[]", "0,1"), {x}, {}, {21});
}

TEST(ReduceTest, SumOverMiddleDimension) {
  // x[a][b][c] = 6a + 2b + c; out[a][c] = sum_b: {0+2+4, 1+3+5, 6+8+10, 7+9+11}.
  std::vector<double> v;
  for (int i = 0; i < 12; ++i) v.push_back(i);
  ExpectResult(ReduceSum("f32[2,3,2]", "f32[2,2]", "1"), {F32({2, 3, 2}, v)}, {2, 2},
               {6, 9, 24, 27});
}

TEST(ReduceTest, FloatAddAccumulatesInDoubleLikeXlaEvaluator) {
  // 2^24 + 1 + 1 + 1 + 1: folding in float would stay at 2^24 (each +1 rounds back to
  // even); XLA's evaluator sums in double and rounds once: 16777220 (exact in f32).
  ExpectResult(ReduceSum("f32[5]", "f32[]", "0"), {F32({5}, {16777216, 1, 1, 1, 1})}, {},
               {16777220});
  // The same for bf16: 256 + 1 + 1 is 256 when rounded at every step, 258 summed once.
  const std::string bf16 = R"(
HloModule r
add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}
ENTRY e {
  p = bf16[3] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(p, z), dimensions={0}, to_apply=add
}
)";
  ExpectResult(bf16, {Lit(PT::kBF16, {3}, {256, 1, 1})}, {}, {258});
}

TEST(ReduceTest, MaxPropagatesNaN) {
  const std::string hlo = std::string("HloModule r\n") + kMaxF32 + R"(
ENTRY e {
  p = f32[2,3] parameter(0)
  c = f32[] constant(-inf)
  ROOT r = f32[2] reduce(p, c), dimensions={1}, to_apply=max
}
)";
  auto r = RunHlo(hlo, {F32({2, 3}, {1, kNaN, 3, 4, -2, 2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(std::isnan(r->GetDouble(0)));
  EXPECT_EQ(r->GetDouble(1), 4);
}

TEST(ReduceTest, MinWithSwappedParametersAndIntegerWrap) {
  // minimum(b, a) is still a min; s8 sum 100 + 100 wraps to -56.
  const std::string hlo = R"(
HloModule r
min {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] minimum(b, a)
}
add8 {
  a = s8[] parameter(0)
  b = s8[] parameter(1)
  ROOT s = s8[] add(a, b)
}
ENTRY e {
  p = s32[4] parameter(0)
  q = s8[2] parameter(1)
  big = s32[] constant(1000)
  z = s8[] constant(0)
  m = s32[] reduce(p, big), dimensions={0}, to_apply=min
  s = s8[] reduce(q, z), dimensions={0}, to_apply=add8
  ROOT t = (s32[], s8[]) tuple(m, s)
}
)";
  auto r = RunHlo(hlo, {Lit(PT::kS32, {4}, {5, -7, 3, 9}), Lit(PT::kS8, {2}, {100, 100})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tuple_elements()[0].GetInt64(0), -7);
  EXPECT_EQ(r->tuple_elements()[1].GetInt64(0), -56);
}

TEST(ReduceTest, NonTrivialComputationFoldsInRowMajorOrder) {
  // f(acc, x) = acc * x + 1 from 0 over {{1,2},{3,4}} in row-major order:
  // 0*1+1 = 1, 1*2+1 = 3, 3*3+1 = 10, 10*4+1 = 41. Listing the dimensions as {1,0}
  // does not change the order.
  const std::string hlo_template = R"(
HloModule r
f {
  acc = f32[] parameter(0)
  x = f32[] parameter(1)
  m = f32[] multiply(acc, x)
  one = f32[] constant(1)
  ROOT s = f32[] add(m, one)
}
ENTRY e {
  p = f32[2,2] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={DIMS}, to_apply=f
}
)";
  for (const std::string dims : {"0,1", "1,0"}) {
    std::string hlo = hlo_template;
    hlo.replace(hlo.find("DIMS"), 4, dims);
    ExpectResult(hlo, {F32({2, 2}, {1, 2, 3, 4})}, {}, {41});
  }
  // Per row: {1,2,3} -> 1, 3, 10; {2,1,2} -> 1, 2, 5.
  std::string rows = hlo_template;
  rows.replace(rows.find("DIMS"), 4, "1");
  rows.replace(rows.find("p = f32[2,2]"), 12, "p = f32[2,3]");
  rows.replace(rows.find("ROOT r = f32[]"), 14, "ROOT r = f32[2]");
  ExpectResult(rows, {F32({2, 3}, {1, 2, 3, 2, 1, 2})}, {2}, {10, 5});
}

TEST(ReduceTest, VariadicArgmaxTakesTheFirstOfTies) {
  // Values {1, 5, 3, 5, 2}: the maximum 5 occurs at 1 and 3; ties keep the lower index.
  const std::string hlo = R"(
HloModule r
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  take_a = pred[] or(gt, tie)
  v = f32[] select(take_a, av, bv)
  i = s32[] select(take_a, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[5] parameter(0)
  idx = s32[5] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[], s32[]) reduce(p, idx, ninf, zero), dimensions={0}, to_apply=argmax
}
)";
  auto r = RunHlo(hlo, {F32({5}, {1, 5, 3, 5, 2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->shape().IsTuple());
  EXPECT_EQ(r->tuple_elements()[0].GetDouble(0), 5);
  EXPECT_EQ(r->tuple_elements()[1].GetInt64(0), 1);
}

TEST(ReduceTest, BadDimensionIsAnError) {
  auto r = RunHlo(ReduceSum("f32[2,3]", "f32[2]", "2"), {F32({2, 3}, Iota1(6))});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("out of range"));
}

// ===========================================================================
// reduce-window
// ===========================================================================

TEST(ReduceWindowTest, MaxPool2x2Stride2) {
  // 4x4 of 0..15: the maxima of the 2x2 blocks are 5, 7, 13, 15.
  const std::string hlo = std::string("HloModule w\n") + kMaxF32 + R"(
ENTRY e {
  p = f32[4,4] parameter(0)
  c = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(p, c), window={size=2x2 stride=2x2}, to_apply=max
}
)";
  std::vector<double> v;
  for (int i = 0; i < 16; ++i) v.push_back(i);
  ExpectResult(hlo, {F32({4, 4}, v)}, {2, 2}, {5, 7, 13, 15});
}

TEST(ReduceWindowTest, PaddingIsSkippedAndTheFoldStartsFromInit) {
  // {1,2,3,4}, window 3, pad 1 on each side, init 10: padded taps add nothing, so
  // 10 + {1+2, 1+2+3, 2+3+4, 3+4} = {13, 16, 19, 17}.
  const std::string hlo = std::string("HloModule w\n") + kAddF32 + R"(
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(10)
  ROOT r = f32[4] reduce-window(p, c), window={size=3 pad=1_1}, to_apply=add
}
)";
  ExpectResult(hlo, {F32({4}, {1, 2, 3, 4})}, {4}, {13, 16, 19, 17});
}

TEST(ReduceWindowTest, BaseAndWindowDilation) {
  // lhs_dilate=2: {1,2,3} -> 1 _ 2 _ 3; windows of 2: {1, 2, 2, 3}.
  const std::string base = std::string("HloModule w\n") + kAddF32 + R"(
ENTRY e {
  p = f32[3] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[4] reduce-window(p, c), window={size=2 lhs_dilate=2}, to_apply=add
}
)";
  ExpectResult(base, {F32({3}, {1, 2, 3})}, {4}, {1, 2, 2, 3});
  // rhs_dilate=2 on {1,2,3,4}: taps i and i+2: {1+3, 2+4}.
  const std::string dilated = std::string("HloModule w\n") + kAddF32 + R"(
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[2] reduce-window(p, c), window={size=2 rhs_dilate=2}, to_apply=add
}
)";
  ExpectResult(dilated, {F32({4}, {1, 2, 3, 4})}, {2}, {4, 6});
}

TEST(ReduceWindowTest, VariadicMaxWithIndex) {
  // (value, index) pairs over windows of 2 with stride 1 on {3, 1, 4}: {(3,0), (4,2)}.
  const std::string hlo = R"(
HloModule w
f {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  ge = pred[] compare(av, bv), direction=GE
  v = f32[] select(ge, av, bv)
  i = s32[] select(ge, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  p = f32[3] parameter(0)
  idx = s32[3] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  ROOT r = (f32[2], s32[2]) reduce-window(p, idx, ninf, m1), window={size=2}, to_apply=f
}
)";
  auto r = RunHlo(hlo, {F32({3}, {3, 1, 4})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values(r->tuple_elements()[0]), (std::vector<double>{3, 4}));
  EXPECT_EQ(Values(r->tuple_elements()[1]), (std::vector<double>{0, 2}));
}

// ===========================================================================
// select-and-scatter
// ===========================================================================

const char* kSelectGe = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
)";

TEST(SelectAndScatterTest, MaxPoolGradientFirstMaximumWins) {
  // Windows (2x2, stride 2) of
  //   1 5 | 2 2
  //   5 3 | 2 2
  //   ----+----
  //   0 0 | 9 1
  //   0 7 | 1 9
  // select GE keeps the current choice on ties, so the first maximum wins:
  // (0,1) gets 1, (0,2) gets 2, (3,1) gets 3, (2,2) gets 4.
  const std::string hlo = std::string("HloModule s\n") + kSelectGe + kAddF32 + R"(
ENTRY e {
  p = f32[4,4] parameter(0)
  src = f32[2,2] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4,4] select-and-scatter(p, src, z), window={size=2x2 stride=2x2}, select=ge, scatter=add
}
)";
  ExpectResult(
      hlo,
      {F32({4, 4}, {1, 5, 2, 2, 5, 3, 2, 2, 0, 0, 9, 1, 0, 7, 1, 9}), F32({2, 2}, {1, 2, 3, 4})},
      {4, 4}, {0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0});
}

TEST(SelectAndScatterTest, OverlappingWindowsAccumulateAndPaddingIsNeverSelected) {
  // Windows of 2 with stride 1 over {1, 3, 2}: both select 3 -> 10 + 20 at index 1.
  const std::string overlap = std::string("HloModule s\n") + kSelectGe + kAddF32 + R"(
ENTRY e {
  p = f32[3] parameter(0)
  src = f32[2] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[3] select-and-scatter(p, src, z), window={size=2}, select=ge, scatter=add
}
)";
  ExpectResult(overlap, {F32({3}, {1, 3, 2}), F32({2}, {10, 20})}, {3}, {0, 30, 0});
  // Padded windows (pad _ -5 | -1 _ pad) pick the real elements even though they are
  // negative; init 100 fills the result.
  const std::string padded = std::string("HloModule s\n") + kSelectGe + kAddF32 + R"(
ENTRY e {
  p = f32[2] parameter(0)
  src = f32[2] parameter(1)
  z = f32[] constant(100)
  ROOT r = f32[2] select-and-scatter(p, src, z), window={size=2 stride=2 pad=1_1}, select=ge, scatter=add
}
)";
  ExpectResult(padded, {F32({2}, {-5, -1}), F32({2}, {1, 2})}, {2}, {101, 102});
}

TEST(SelectAndScatterTest, GeneralSelectAndScatterComputations) {
  // select "a <= b is false" i.e. prefers the smaller value via a non-compare root, and
  // scatter keeps the maximum of source and current: {4, 1, 3} windows of 2 stride 1
  // pick 1 (index 1) twice; result[1] = max(max(0, 7), 5) = 7.
  const std::string hlo = R"(
HloModule s
sel {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  gt = pred[] compare(a, b), direction=GT
  ROOT n = pred[] not(gt)
}
smax {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p = f32[3] parameter(0)
  src = f32[2] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[3] select-and-scatter(p, src, z), window={size=2}, select=sel, scatter=smax
}
)";
  ExpectResult(hlo, {F32({3}, {4, 1, 3}), F32({2}, {7, 5})}, {3}, {0, 7, 0});
}

// ===========================================================================
// map
// ===========================================================================

TEST(MapTest, AppliesTheComputationElementwise) {
  // x * y + 1 over {1,2,3} and {4,5,6}: {5, 11, 19}.
  const std::string hlo = R"(
HloModule m
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  p = f32[] multiply(x, y)
  one = f32[] constant(1)
  ROOT s = f32[] add(p, one)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  ROOT r = f32[3] map(a, b), dimensions={0}, to_apply=f
}
)";
  ExpectResult(hlo, {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}, {3}, {5, 11, 19});
}

// ===========================================================================
// dot
// ===========================================================================

std::string Dot(const std::string& lhs, const std::string& rhs, const std::string& out,
                const std::string& attrs) {
  return "HloModule d\nENTRY e {\n  a = " + lhs + " parameter(0)\n  b = " + rhs +
         " parameter(1)\n  ROOT r = " + out + " dot(a, b), " + attrs + "\n}\n";
}

TEST(DotTest, MatrixVectorAndMatrixMatrix) {
  // {{1,2},{3,4}} . {5,6} = {17, 39}.
  ExpectResult(
      Dot("f32[2,2]", "f32[2]", "f32[2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      {F32({2, 2}, {1, 2, 3, 4}), F32({2}, {5, 6})}, {2}, {17, 39});
  // {{1,2,3},{4,5,6}} . {{7,8},{9,10},{11,12}} = {{58,64},{139,154}}.
  ExpectResult(
      Dot("f32[2,3]", "f32[3,2]", "f32[2,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      {F32({2, 3}, Iota1(6)), F32({3, 2}, {7, 8, 9, 10, 11, 12})}, {2, 2}, {58, 64, 139, 154});
  // Contracting the lhs rows with the rhs rows (a^T b): {{1,3},{2,4}} . {{5,6},{7,8}}
  // = {{1*5+3*7, 1*6+3*8}, {2*5+4*7, 2*6+4*8}} = {{26,30},{38,44}}.
  ExpectResult(
      Dot("f32[2,2]", "f32[2,2]", "f32[2,2]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
      {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8})}, {2, 2}, {26, 30, 38, 44});
}

TEST(DotTest, OuterProductWithoutContraction) {
  ExpectResult(
      Dot("f32[2]", "f32[3]", "f32[2,3]", "lhs_contracting_dims={}, rhs_contracting_dims={}"),
      {F32({2}, {1, 2}), F32({3}, {3, 4, 5})}, {2, 3}, {3, 4, 5, 6, 8, 10});
}

TEST(DotTest, BatchedWithNonLeadingBatchDimensions) {
  // lhs[m][b][k] = 1 + 4m + 2b + k, rhs[k][b] = {{1,2},{3,4}}; result [b][m]:
  //   b0: m0 = 1*1 + 2*3 = 7,  m1 = 5*1 + 6*3 = 23
  //   b1: m0 = 3*2 + 4*4 = 22, m1 = 7*2 + 8*4 = 46
  ExpectResult(Dot("f32[2,2,2]", "f32[2,2]", "f32[2,2]",
                   "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
                   "rhs_contracting_dims={0}"),
               {F32({2, 2, 2}, Iota1(8)), F32({2, 2}, {1, 2, 3, 4})}, {2, 2}, {7, 23, 22, 46});
}

TEST(DotTest, ContractionOverTwoDimensionsPairsThemInOrder) {
  // lhs[m][a][b] = 1..8, rhs = {{1,2},{3,4}}.
  // Pairs (1<->0, 2<->1): sum lhs[m][a][b] rhs[a][b] = {1+4+9+16, 5+12+21+32} = {30, 70}.
  ExpectResult(Dot("f32[2,2,2]", "f32[2,2]", "f32[2]",
                   "lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}"),
               {F32({2, 2, 2}, Iota1(8)), F32({2, 2}, {1, 2, 3, 4})}, {2}, {30, 70});
  // Pairs (1<->1, 2<->0): sum lhs[m][a][b] rhs[b][a] = {1*1+2*3+3*2+4*4, 5*1+6*3+7*2+8*4}.
  ExpectResult(Dot("f32[2,2,2]", "f32[2,2]", "f32[2]",
                   "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}"),
               {F32({2, 2, 2}, Iota1(8)), F32({2, 2}, {1, 2, 3, 4})}, {2}, {29, 69});
}

TEST(DotTest, Bf16OperandsAccumulateInF32) {
  // 256*1 + 1*1 + 1*1: a bf16 accumulator would round 257 back to 256 twice; the f32
  // result type means f32 accumulation: 258.
  ExpectResult(
      Dot("bf16[3]", "bf16[3]", "f32[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
      {Lit(PT::kBF16, {3}, {256, 1, 1}), Lit(PT::kBF16, {3}, {1, 1, 1})}, {}, {258});
}

TEST(DotTest, S8TimesS8IntoS32) {
  // {{100,100},{-128,127}} . {100, 2} = {10000+200, -12800+254}.
  auto r = RunHlo(
      Dot("s8[2,2]", "s8[2]", "s32[2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      {Lit(PT::kS8, {2, 2}, {100, 100, -128, 127}), Lit(PT::kS8, {2}, {100, 2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetInt64(0), 10200);
  EXPECT_EQ(r->GetInt64(1), -12546);
}

TEST(DotTest, Complex) {
  // (1+2i)(3+4i) + (1-i)(1+i) = (-5+10i) + 2 = -3+10i.
  Literal a(Shape(PT::kC64, {2}));
  Literal b(Shape(PT::kC64, {2}));
  a.SetComplex(0, {1, 2});
  a.SetComplex(1, {1, -1});
  b.SetComplex(0, {3, 4});
  b.SetComplex(1, {1, 1});
  auto r =
      RunHlo(Dot("c64[2]", "c64[2]", "c64[]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
             {a, b});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->GetComplex(0), std::complex<double>(-3, 10));
}

TEST(DotTest, MismatchedContractionIsAnError) {
  auto r = RunHlo(
      Dot("f32[2,3]", "f32[2,2]", "f32[2,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      {F32({2, 3}, Iota1(6)), F32({2, 2}, Iota1(4))});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("contracting dimension sizes differ"));
}

// ===========================================================================
// convolution
// ===========================================================================

std::string Conv(const std::string& lhs, const std::string& rhs, const std::string& out,
                 const std::string& attrs) {
  return "HloModule c\nENTRY e {\n  x = " + lhs + " parameter(0)\n  k = " + rhs +
         " parameter(1)\n  ROOT r = " + out + " convolution(x, k), " + attrs + "\n}\n";
}

TEST(ConvolutionTest, OneDimensionalValid) {
  // Cross-correlation (no kernel flip): {1..5} with {1,2,3}: {1+4+9, 2+6+12, 3+8+15}.
  ExpectResult(
      Conv("f32[1,1,5]", "f32[1,1,3]", "f32[1,1,3]", "window={size=3}, dim_labels=bf0_oi0->bf0"),
      {F32({1, 1, 5}, Iota1(5)), F32({1, 1, 3}, {1, 2, 3})}, {1, 1, 3}, {14, 20, 26});
}

TEST(ConvolutionTest, NhwcWithPaddingAndStride) {
  // x = 1..9 as 3x3, kernel {{1,2},{3,4}}, pad 1, stride 2 -> 2x2 outputs:
  //   (0,0): only x(0,0) under k(1,1): 4*1 = 4
  //   (0,1): x(0,1)*3 + x(0,2)*4 = 6 + 12 = 18
  //   (1,0): x(1,0)*2 + x(2,0)*4 = 8 + 28 = 36
  //   (1,1): 5*1 + 6*2 + 8*3 + 9*4 = 77
  ExpectResult(Conv("f32[1,3,3,1]", "f32[2,2,1,1]", "f32[1,2,2,1]",
                    "window={size=2x2 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
               {F32({1, 3, 3, 1}, Iota1(9)), F32({2, 2, 1, 1}, {1, 2, 3, 4})}, {1, 2, 2, 1},
               {4, 18, 36, 77});
}

TEST(ConvolutionTest, NhwcSumsOverInputFeatures) {
  // One pixel, two input features {1, 2}, kernel [1,1,2,3] (i major): out feature o =
  // 1*k[0][o] + 2*k[1][o] with k = {{1,2,3},{4,5,6}}: {9, 12, 15}.
  ExpectResult(Conv("f32[1,1,1,2]", "f32[1,1,2,3]", "f32[1,1,1,3]",
                    "window={size=1x1}, dim_labels=b01f_01io->b01f"),
               {F32({1, 1, 1, 2}, {1, 2}), F32({1, 1, 2, 3}, Iota1(6))}, {1, 1, 1, 3}, {9, 12, 15});
}

TEST(ConvolutionTest, DilatedKernel) {
  // rhs_dilate=2: taps i and i+2 weighted 1 and 2: {1+6, 2+8, 3+10}.
  ExpectResult(Conv("f32[1,1,5]", "f32[1,1,2]", "f32[1,1,3]",
                    "window={size=2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
               {F32({1, 1, 5}, Iota1(5)), F32({1, 1, 2}, {1, 2})}, {1, 1, 3}, {7, 10, 13});
}

TEST(ConvolutionTest, LhsDilatedTransposedConvolution) {
  // lhs_dilate=2 and pad 1: 0 1 0 2 0 3 0; window {1, 10}: {10, 1, 20, 2, 30, 3}.
  ExpectResult(Conv("f32[1,1,3]", "f32[1,1,2]", "f32[1,1,6]",
                    "window={size=2 pad=1_1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
               {F32({1, 1, 3}, {1, 2, 3}), F32({1, 1, 2}, {1, 10})}, {1, 1, 6},
               {10, 1, 20, 2, 30, 3});
}

// The input is padded and dilated with zeros that are multiplied like any input, as
// XLA:CPU computes it (jax on the CPU: a padded convolution with a NaN kernel is NaN
// everywhere): 0 * NaN and 0 * inf are NaN, and a finite kernel adds nothing there. The
// holes of the window (rhs) dilation are no taps. (Until 2026-12-02 padding and holes were
// skipped, as XLA's HloEvaluator does, while Fusebox's CPU library convolution multiplied
// them: the differential fuzzer's --windows, seed 301343.)
TEST(ConvolutionTest, ZerosOfPaddingAndLhsHolesAreMultiplied) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // 0 1 0 2 0 3 0 (lhs_dilate 2, pad 1): a size-1 window sees one element, a hole or not.
  auto r = RunHlo(Conv("f32[1,1,3]", "f32[2,1,1]", "f32[1,2,7]",
                       "window={size=1 pad=1_1 lhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
                  {F32({1, 1, 3}, {1, 2, 3}), F32({2, 1, 1}, {nan, 2})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (int64_t i = 0; i < 7; ++i) {
    EXPECT_TRUE(std::isnan(r->GetDouble(i))) << "output feature 0 (NaN kernel) at " << i;
    EXPECT_EQ(r->GetDouble(7 + i), i % 2 == 1 ? 2.0 * static_cast<double>((i + 1) / 2) : 0.0) << i;
  }
  // An infinite kernel over padding only: 0 * inf.
  auto p = RunHlo(Conv("f32[1,1,2]", "f32[1,1,1]", "f32[1,1,4]", "window={size=1 pad=1_1}, dim_labels=bf0_oi0->bf0"),
                  {F32({1, 1, 2}, {1, 2}), F32({1, 1, 1}, {inf})});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_TRUE(std::isnan(p->GetDouble(0)));
  EXPECT_EQ(p->GetDouble(1), inf);
  EXPECT_TRUE(std::isnan(p->GetDouble(3)));
  // Window dilation holes are no taps: an inf input between them stays out.
  ExpectResult(Conv("f32[1,1,3]", "f32[1,1,2]", "f32[1,1,1]", "window={size=2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0"),
               {F32({1, 1, 3}, {1, inf, 3}), F32({1, 1, 2}, {1, 2})}, {1, 1, 1}, {7});
}

TEST(ConvolutionTest, NegativePaddingCrops) {
  ExpectResult(Conv("f32[1,1,5]", "f32[1,1,1]", "f32[1,1,3]",
                    "window={size=1 pad=-1_-1}, dim_labels=bf0_oi0->bf0"),
               {F32({1, 1, 5}, Iota1(5)), F32({1, 1, 1}, {2})}, {1, 1, 3}, {4, 6, 8});
}

TEST(ConvolutionTest, WindowReversalFlipsTheKernel) {
  // Kernel {1,2,3} reversed is {3,2,1}: {3+4+3, 6+6+4, 9+8+5}.
  ExpectResult(Conv("f32[1,1,5]", "f32[1,1,3]", "f32[1,1,3]",
                    "window={size=3 rhs_reversal=1}, dim_labels=bf0_oi0->bf0"),
               {F32({1, 1, 5}, Iota1(5)), F32({1, 1, 3}, {1, 2, 3})}, {1, 1, 3}, {10, 16, 22});
}

TEST(ConvolutionTest, DepthwiseViaFeatureGroupCount) {
  // Two features, two groups: feature 0 {1,2,3} with {1,1} -> {3,5}; feature 1
  // {10,20,30} with {1,-1} -> {-10,-10}.
  ExpectResult(Conv("f32[1,2,3]", "f32[2,1,2]", "f32[1,2,2]",
                    "window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2"),
               {F32({1, 2, 3}, {1, 2, 3, 10, 20, 30}), F32({2, 1, 2}, {1, 1, 1, -1})}, {1, 2, 2},
               {3, 5, -10, -10});
  // Channel multiplier 2: four output features, groups of two share one input feature:
  // f0 {1,2,3} * {1,0} -> {1,2}, * {0,1} -> {2,3}; f1 {10,20,30} * {1,1} -> {30,50},
  // * {2,0} -> {20,40}.
  ExpectResult(Conv("f32[1,2,3]", "f32[4,1,2]", "f32[1,4,2]",
                    "window={size=2}, dim_labels=bf0_oi0->bf0, feature_group_count=2"),
               {F32({1, 2, 3}, {1, 2, 3, 10, 20, 30}), F32({4, 1, 2}, {1, 0, 0, 1, 1, 1, 2, 0})},
               {1, 4, 2}, {1, 2, 2, 3, 30, 50, 20, 40});
}

TEST(ConvolutionTest, BatchGroupCount) {
  // Batch 2 in 2 batch groups: output feature 0 reads batch 0 {1,2} with {1,1} = 3;
  // output feature 1 reads batch 1 {3,4} with {1,10} = 43.
  ExpectResult(Conv("f32[2,1,2]", "f32[2,1,2]", "f32[1,2,1]",
                    "window={size=2}, dim_labels=bf0_oi0->bf0, batch_group_count=2"),
               {F32({2, 1, 2}, {1, 2, 3, 4}), F32({2, 1, 2}, {1, 1, 1, 10})}, {1, 2, 1}, {3, 43});
}

TEST(ConvolutionTest, NchwAndPermutedOutputLabels) {
  // bf01: x = 1..9 as 3x3, kernel {{1,2},{3,4}}:
  //   {1+4+12+20, 2+6+15+24, 4+10+21+32, 5+12+24+36} = {37, 47, 67, 77}.
  ExpectResult(Conv("f32[1,1,3,3]", "f32[1,1,2,2]", "f32[1,1,2,2]",
                    "window={size=2x2}, dim_labels=bf01_oi01->bf01"),
               {F32({1, 1, 3, 3}, Iota1(9)), F32({1, 1, 2, 2}, {1, 2, 3, 4})}, {1, 1, 2, 2},
               {37, 47, 67, 77});
  // 1x1 kernel over two features f0 = 1..4, f1 = 5..8 with k = {{1,0},{1,1}} (o major):
  // out0 = f0, out1 = f0 + f1; written feature-minor (b01f): {1,6, 2,8, 3,10, 4,12}.
  ExpectResult(Conv("f32[1,2,2,2]", "f32[2,2,1,1]", "f32[1,2,2,2]",
                    "window={size=1x1}, dim_labels=bf01_oi01->b01f"),
               {F32({1, 2, 2, 2}, Iota1(8)), F32({2, 2, 1, 1}, {1, 0, 1, 1})}, {1, 2, 2, 2},
               {1, 6, 2, 8, 3, 10, 4, 12});
}

TEST(ConvolutionTest, WeightGradientLayoutF01bI01o) {
  // The layout of a weight-gradient convolution (as in JAX's conv backward pass): the
  // data batch is the contracted "feature" f, listed first; output 0bf.
  // out[s] = sum_f sum_t x[f][s+t] * g[f][t] with x[0] = {1,2,3}, x[1] = {4,5,6},
  // g[0] = {1,0}, g[1] = {0,1}: out[0] = 1 + 5 = 6, out[1] = 2 + 6 = 8.
  ExpectResult(
      Conv("f32[2,3,1]", "f32[2,2,1]", "f32[2,1,1]", "window={size=2}, dim_labels=f0b_i0o->0bf"),
      {F32({2, 3, 1}, Iota1(6)), F32({2, 2, 1}, {1, 0, 0, 1})}, {2, 1, 1}, {6, 8});
}

TEST(ConvolutionTest, BadFeatureGroupCountIsAnError) {
  auto r = RunHlo(Conv("f32[1,3,3]", "f32[2,1,2]", "f32[1,2,2]",
                       "window={size=2}, dim_labels=bf0_oi0->bf0, "
                       "feature_group_count=2"),
                  {F32({1, 3, 3}, Iota1(9)), F32({2, 1, 2}, Iota1(4))});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("feature_group_count"));
}

// ===========================================================================
// triangular-solve, cholesky
// ===========================================================================

TEST(LinalgTest, CholeskyLowerAndUpper) {
  // {{4,2},{2,3}} = L L^T with L = {{2,0},{1,sqrt 2}}.
  const std::string lower = R"(
HloModule c
ENTRY e {
  a = f32[2,2] parameter(0)
  ROOT l = f32[2,2] cholesky(a), lower=true
}
)";
  auto r = RunHlo(lower, {F32({2, 2}, {4, 2, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(Values(*r), {2, 0, 1, std::sqrt(2.0)});
  std::string upper = lower;
  upper.replace(upper.find("lower=true"), 10, "lower=false");
  r = RunHlo(upper, {F32({2, 2}, {4, 2, 2, 3})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(Values(*r), {2, 1, 0, std::sqrt(2.0)});
}

// XLA's meaning of a factorization that fails (its cholesky expander's): the whole matrix
// NaN where some diagonal square root is NaN (a pivot below zero, or a NaN input); the
// other matrices of the batch keep their factors.
TEST(LinalgTest, CholeskyOfAMatrixNotPositiveDefiniteIsAllNan) {
  const std::string hlo = R"(
HloModule c
ENTRY e {
  a = f32[3,2,2] parameter(0)
  ROOT l = f32[3,2,2] cholesky(a), lower=true
}
)";
  // {{4,2},{2,3}}: fine; {{1,2},{2,1}}: the second pivot is 1 - 4 < 0; {{NaN,0},{0,1}}.
  auto r = RunHlo(hlo, {F32({3, 2, 2}, {4, 2, 2, 3, 1, 2, 2, 1, kNaN, 0, 0, 1})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<double> got = Values(*r);
  ExpectNear({got.begin(), got.begin() + 4}, {2, 0, 1, std::sqrt(2.0)});
  for (size_t i = 4; i < 12; ++i) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
}

std::string Solve(const std::string& a, const std::string& b, const std::string& attrs) {
  return "HloModule t\nENTRY e {\n  a = " + a + " parameter(0)\n  b = " + b +
         " parameter(1)\n  ROOT x = " + b + " triangular-solve(a, b), " + attrs + "\n}\n";
}

TEST(LinalgTest, TriangularSolveVariants) {
  // a = {{2,0},{1,1}} (the upper 9 is never read).
  const Literal a = F32({2, 2}, {2, 9, 1, 1});
  // Left, lower: 2 x0 = 2, x0 + x1 = 3 -> {1, 2}.
  ExpectResult(
      Solve("f32[2,2]", "f32[2,1]", "left_side=true, lower=true, transpose_a=NO_TRANSPOSE"),
      {a, F32({2, 1}, {2, 3})}, {2, 1}, {1, 2});
  // Left, a^T = {{2,1},{0,1}}: x1 = 3, 2 x0 + 3 = 2 -> {-0.5, 3}.
  ExpectResult(Solve("f32[2,2]", "f32[2,1]", "left_side=true, lower=true, transpose_a=TRANSPOSE"),
               {a, F32({2, 1}, {2, 3})}, {2, 1}, {-0.5, 3});
  // Right: x a = {4, 3} -> (2 x0 + x1, x1) = (4, 3) -> {0.5, 3}.
  ExpectResult(
      Solve("f32[2,2]", "f32[1,2]", "left_side=false, lower=true, transpose_a=NO_TRANSPOSE"),
      {a, F32({1, 2}, {4, 3})}, {1, 2}, {0.5, 3});
  // Unit diagonal ignores the stored diagonal: {{1,0},{2,1}} x = {1, 4} -> {1, 2}.
  ExpectResult(Solve("f32[2,2]", "f32[2,1]",
                     "left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE"),
               {F32({2, 2}, {5, 0, 2, 7}), F32({2, 1}, {1, 4})}, {2, 1}, {1, 2});
}

// ===========================================================================
// fft
// ===========================================================================

TEST(FftTest, ForwardInverseAndReal) {
  Literal x(Shape(PT::kC64, {4}));
  x.SetComplex(1, {1, 0});  // delta at 1 -> exp(-2 pi i k / 4) = {1, -i, -1, i}
  auto r = RunHlo(
      "HloModule f\nENTRY e {\n  x = c64[4] parameter(0)\n  ROOT y = c64[4] fft(x), fft_type=FFT, "
      "fft_length={4}\n}\n",
      {x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto y = ComplexValues(*r);
  const std::vector<std::complex<double>> want = {{1, 0}, {0, -1}, {-1, 0}, {0, 1}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(y[i].real(), want[i].real(), 1e-6);
    EXPECT_NEAR(y[i].imag(), want[i].imag(), 1e-6);
  }
  // IFFT of {1, -i, -1, i} is the delta again.
  auto back = RunHlo(
      "HloModule f\nENTRY e {\n  x = c64[4] parameter(0)\n  ROOT y = c64[4] fft(x), fft_type=IFFT, "
      "fft_length={4}\n}\n",
      {*r});
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectNear(Values(*back), {0, 1, 0, 0});
  // RFFT {1,2,3,4} = {10, -2+2i, -2}; IRFFT brings {1,2,3,4} back.
  auto rf = RunHlo(
      "HloModule f\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = c64[3] fft(x), fft_type=RFFT, "
      "fft_length={4}\n}\n",
      {F32({4}, {1, 2, 3, 4})});
  ASSERT_TRUE(rf.ok()) << rf.status().message();
  const auto s = ComplexValues(*rf);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0].real(), 10, 1e-5);
  EXPECT_NEAR(s[1].real(), -2, 1e-5);
  EXPECT_NEAR(s[1].imag(), 2, 1e-5);
  EXPECT_NEAR(s[2].real(), -2, 1e-5);
  EXPECT_NEAR(s[2].imag(), 0, 1e-5);
  auto irf = RunHlo(
      "HloModule f\nENTRY e {\n  x = c64[3] parameter(0)\n  ROOT y = f32[4] fft(x), "
      "fft_type=IRFFT, "
      "fft_length={4}\n}\n",
      {*rf});
  ASSERT_TRUE(irf.ok()) << irf.status().message();
  ExpectNear(Values(*irf), {1, 2, 3, 4}, 1e-5);
}

// The interpreter's transform is a fast one (Cooley-Tukey on the smallest factor, Bluestein
// for primes over 64): against the sum that defines it, written here term by term in
// double (c128 in and out), for lengths that take each path: 1, 2, a small prime, powers of
// two, mixed factors, primes of 67 and 257 (Bluestein), and 2 x 67 (Bluestein inside a
// split); forward and inverse (1/n), and the complex-to-real inverse of an odd length.
TEST(FftTest, FastTransformIsTheDefiningSum) {
  for (int64_t n : {1, 2, 7, 16, 60, 67, 128, 134, 257}) {
    SCOPED_TRACE(n);
    Literal x(Shape(PT::kC128, {2, n}));
    for (int64_t i = 0; i < 2 * n; ++i) x.SetComplex(i, {std::sin(0.7 * i + 1), std::cos(1.3 * i) - 0.25});
    for (int sign : {-1, 1}) {
      const std::string type = sign < 0 ? "FFT" : "IFFT";
      const std::string shape = "c128[2," + std::to_string(n) + "]";
      auto r = RunHlo("HloModule f\nENTRY e {\n  x = " + shape + " parameter(0)\n  ROOT y = " + shape +
                          " fft(x), fft_type=" + type + ", fft_length={" + std::to_string(n) + "}\n}\n",
                      {x});
      ASSERT_TRUE(r.ok()) << r.status().message();
      const auto y = ComplexValues(*r);
      for (int64_t row = 0; row < 2; ++row) {
        for (int64_t k = 0; k < n; ++k) {
          std::complex<double> sum{};
          for (int64_t t = 0; t < n; ++t) {
            const double angle = sign * 2 * std::numbers::pi * static_cast<double>((k * t) % n) / static_cast<double>(n);
            sum += x.GetComplex(row * n + t) * std::polar(1.0, angle);
          }
          if (sign > 0) sum /= static_cast<double>(n);
          EXPECT_NEAR(std::abs(y[row * n + k] - sum), 0, 1e-12) << type << " row " << row << " k " << k;
        }
      }
    }
  }
  // Complex-to-real of length 67 (odd: no Nyquist term): the Hermitian extension summed.
  const int64_t n = 67, half = n / 2 + 1;
  Literal spectrum(Shape(PT::kC128, {half}));
  for (int64_t k = 0; k < half; ++k) spectrum.SetComplex(k, {std::cos(0.3 * k), k == 0 ? 0.0 : std::sin(0.9 * k)});
  auto r = RunHlo("HloModule f\nENTRY e {\n  x = c128[34] parameter(0)\n  ROOT y = f64[67] fft(x), fft_type=IRFFT, "
                  "fft_length={67}\n}\n",
                  {spectrum});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<double> got = Values(*r);
  for (int64_t t = 0; t < n; ++t) {
    double sum = 0;
    for (int64_t k = 0; k < n; ++k) {
      const std::complex<double> term = k < half ? spectrum.GetComplex(k) : std::conj(spectrum.GetComplex(n - k));
      sum += (term * std::polar(1.0, 2 * std::numbers::pi * static_cast<double>((k * t) % n) / n)).real();
    }
    EXPECT_NEAR(got[t], sum / n, 1e-12) << t;
  }
}

// ===========================================================================
// batch-norm
// ===========================================================================

TEST(BatchNormTest, Inference) {
  // x = {{1,2},{3,4}}, features along dim 1: (x - mean) / sqrt(var) * scale + offset with
  // mean {2,3}, var {1,4}, scale {1,2}, offset {0,1}: {{-1, 0}, {1, 2}}.
  const std::string hlo = R"(
HloModule b
ENTRY e {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  m = f32[2] parameter(3)
  v = f32[2] parameter(4)
  ROOT y = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1
}
)";
  ExpectResult(hlo,
               {F32({2, 2}, {1, 2, 3, 4}), F32({2}, {1, 2}), F32({2}, {0, 1}), F32({2}, {2, 3}),
                F32({2}, {1, 4})},
               {2, 2}, {-1, 0, 1, 2});
}

TEST(BatchNormTest, Training) {
  // Feature 0 {1,3}: mean 2, var 1 -> {-1, 1}; feature 1 {2,6}: mean 4, var 4 -> {-1, 1}.
  const std::string hlo = R"(
HloModule b
ENTRY e {
  x = f32[2,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT t = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
}
)";
  auto r = RunHlo(hlo, {F32({2, 2}, {1, 2, 3, 6}), F32({2}, {1, 1}), F32({2}, {0, 0})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values(r->tuple_elements()[0]), (std::vector<double>{-1, -1, 1, 1}));
  EXPECT_EQ(Values(r->tuple_elements()[1]), (std::vector<double>{2, 4}));
  EXPECT_EQ(Values(r->tuple_elements()[2]), (std::vector<double>{1, 4}));
}

TEST(BatchNormTest, Grad) {
  // x = {1,2,3}, mean 2, var 1 (so xc = {-1,0,1}, s = 1), scale 2, dy = {1,2,6}:
  //   grad_offset = 9, grad_scale = -1 + 0 + 6 = 5,
  //   grad_x = 2 * (dy - mean(dy) - xc * mean(dy*xc)) with mean(dy) = 3, mean(dy*xc) = 5/3:
  //          = {2*(1-3+5/3), 2*(2-3), 2*(6-3-5/3)} = {-2/3, -2, 8/3}.
  const std::string hlo = R"(
HloModule b
ENTRY e {
  x = f32[3,1] parameter(0)
  s = f32[1] parameter(1)
  m = f32[1] parameter(2)
  v = f32[1] parameter(3)
  dy = f32[3,1] parameter(4)
  ROOT t = (f32[3,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), epsilon=0, feature_index=1
}
)";
  auto r = RunHlo(hlo, {F32({3, 1}, {1, 2, 3}), F32({1}, {2}), F32({1}, {2}), F32({1}, {1}),
                        F32({3, 1}, {1, 2, 6})});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ExpectNear(Values(r->tuple_elements()[0]), {-2.0 / 3, -2, 8.0 / 3});
  ExpectNear(Values(r->tuple_elements()[1]), {5});
  ExpectNear(Values(r->tuple_elements()[2]), {9});
}

}  // namespace
}  // namespace fusebox::interpreter
