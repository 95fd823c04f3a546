// The numeric check: bounds from the interpreter's own error, value classes, vacuity,
// the f64 shadow, and comparison with user-given outputs.
#include "compiler/check/numeric_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "compiler/check/f64_shadow.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::unique_ptr<Module> Parse(const char* text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

Literal Vector(PrimitiveType type, const std::vector<double>& values) {
  Literal l(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

// Rounds every element of an f32 literal to bf16 precision (a planted rounding bug).
Literal RoundToBf16(const Literal& l) {
  Literal out = l;
  for (int64_t i = 0; i < l.element_count(); ++i) {
    out.SetDouble(i, FloatBitsToDouble(PrimitiveType::kBF16,
                                       DoubleToFloatBits(PrimitiveType::kBF16, l.GetDouble(i))));
  }
  return out;
}

// (a + b) - a with |a| ~ 1e3 and |b| ~ 1: the f32 result carries errors of ulp(1e3)
// ~ 6e-5, far above the old fixed tolerance on outputs of magnitude 1.
constexpr char kCancellation[] = R"(
HloModule cancel
ENTRY e {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  s = f32[64] add(a, b)
  ROOT d = f32[64] subtract(s, a)
})";

std::vector<Literal> CancellationArgs() {
  std::vector<double> a, b;
  for (int i = 0; i < 64; ++i) {
    a.push_back(1000.0 + 0.37 * i);
    b.push_back(std::sin(i) * 0.9);
  }
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, a));
  args.push_back(Vector(PrimitiveType::kF32, b));
  return args;
}

TEST(NumericCheckTest, BoundComesFromTheInterpretersOwnError) {
  auto m = Parse(kCancellation);
  auto args = CancellationArgs();
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  ASSERT_TRUE(ref->shadow.has_value()) << ref->shadow_note;
  // A backend that computes b exactly (the f64 answer rounded once to f32) differs from
  // the interpreter by the interpreter's own rounding error: not a bug.
  Literal exact = Literal::CreateUninitialized(m->entry()->root()->shape());
  for (int64_t i = 0; i < 64; ++i) exact.SetDouble(i, ref->shadow->GetDouble(i));
  check::CheckReport report = CheckOutputs(exact, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  ASSERT_EQ(report.outputs.size(), 1u);
  EXPECT_GT(report.outputs[0].interpreter_error, 1e-5);  // the cancellation's rounding
  EXPECT_THAT(report.outputs[0].ToString(), HasSubstr("interpreter error"));
  // The old fixed tolerance calls the same values a mismatch: that was the false alarm.
  EXPECT_FALSE(interpreter::CompareLiterals(exact, ref->reference, interpreter::DefaultToleranceFor(PrimitiveType::kF32)).ok());
  // The interpreter's own result passes too.
  EXPECT_TRUE(check::CheckOutputs(ref->reference, *ref, args).passed());
}

// The sum of 4096 f32 values.
constexpr char kSum4096[] = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4096] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=add
})";

// A 4096-term f32 sum with cancellation: the interpreter sums in double (its own error is
// one rounding), a backend summing in f32 is further off, by an amount the magnitude term
// (sqrt(n) · u · Σ|terms|) allows; a dropped term is still far outside.
TEST(NumericCheckTest, SumsInAnotherOrderGetRoomFromTheirMagnitude) {
  auto m = Parse(kSum4096);
  std::vector<double> v;
  // Partial sums climb to 2e5 and come back: each f32 addition there rounds by up to
  // 0.008, while the result is a few units.
  for (int i = 0; i < 4096; ++i) v.push_back((i < 2048 ? 1 : -1) * (100.0 + 0.37 * std::sin(i)));
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, v));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  ASSERT_EQ(ref->summed_terms, (std::vector<int64_t>{4096}));
  ASSERT_TRUE(ref->magnitude.has_value());
  // The backend's way: a float accumulator, in order.
  float acc = 0;
  for (int i = 0; i < 4096; ++i) acc += static_cast<float>(args[0].GetDouble(i));
  Literal actual(Shape(PrimitiveType::kF32, {}));
  actual.SetDouble(0, acc);
  check::CheckReport report = CheckOutputs(actual, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_THAT(report.outputs[0].BoundString(), HasSubstr("4·√n·u·Σ|terms| (n 4096"));
  EXPECT_GT(report.outputs[0].max_magnitude, 4e5);
  EXPECT_FALSE(interpreter::CompareLiterals(actual, ref->reference, interpreter::DefaultToleranceFor(PrimitiveType::kF32)).ok());
  // The sum without its last term.
  Literal dropped(Shape(PrimitiveType::kF32, {}));
  dropped.SetDouble(0, ref->reference.GetDouble(0) - args[0].GetDouble(4095));
  EXPECT_FALSE(check::CheckOutputs(dropped, *ref, args).ok());
}

// A module with nothing narrower than f64 is its own shadow: the check does not run it a
// second time (the reference, the magnitudes and the two perturbed runs remain), and the
// shadow it reports is the reference, bit for bit. The f32 module still gets its own.
TEST(NumericCheckTest, AnF64ModuleIsItsOwnShadow) {
  for (PrimitiveType type : {PrimitiveType::kF64, PrimitiveType::kF32}) {
    std::string text = kSum4096;
    if (type == PrimitiveType::kF64) {
      for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at)) text.replace(at, 3, "f64");
    }
    auto m = Parse(text.c_str());
    ASSERT_NE(m, nullptr);
    std::vector<double> v;
    for (int i = 0; i < 4096; ++i) v.push_back(std::sin(i) * 3.0);
    std::vector<Literal> args;
    args.push_back(Vector(type, v));
    int runs = 0;
    check::CheckOptions options;
    options.run = [&runs](const Module& module, const std::vector<Literal>& arguments,
                          const interpreter::InterpreterOptions& run_options) {
      ++runs;
      return interpreter::Interpreter(run_options).Run(module, arguments);
    };
    auto ref = check::ComputeCheckReference(*m, args, options);
    ASSERT_TRUE(ref.ok()) << ref.status().message();
    ASSERT_TRUE(ref->shadow.has_value());
    ASSERT_TRUE(ref->magnitude.has_value());
    ASSERT_TRUE(ref->sum_spread.has_value());
    EXPECT_EQ(runs, type == PrimitiveType::kF64 ? 4 : 5) << PrimitiveTypeName(type);
    if (type == PrimitiveType::kF64) {
      EXPECT_TRUE(*ref->shadow == ref->reference);
    }
    check::CheckReport report = CheckOutputs(ref->reference, *ref, args, options);
    EXPECT_TRUE(report.passed()) << report.Details();
  }
}

// A sum whose terms cancel to values over a thousand times below its room (terms of 1e7
// summing to 4): the room alone would let any answer pass, so the output is not
// counted, and a check with only such outputs is vacuous.
TEST(NumericCheckTest, AnOutputWithABoundWiderThanItsValuesDoesNotCount) {
  auto m = Parse(kSum4096);
  std::vector<double> v;
  for (int i = 0; i < 4096; ++i) v.push_back((i % 2 ? -1e7 : 1e7) + (i == 0 ? 4.0 : 0.0));  // sums to 4
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, v));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(ref->magnitude.has_value());
  // A wildly wrong answer would pass the bound: it is not counted instead.
  Literal wrong(Shape(PrimitiveType::kF32, {}));
  wrong.SetDouble(0, 1000);
  check::CheckReport report = CheckOutputs(wrong, *ref, args);
  ASSERT_EQ(report.outputs.size(), 1u);
  EXPECT_EQ(report.outputs[0].verdict, check::OutputVerdict::kBoundTooWide) << report.Details();
  EXPECT_THAT(report.outputs[0].ToString(), HasSubstr("over 1000 times its largest value"));
  EXPECT_TRUE(report.vacuous());
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.Summary(), HasSubstr("the check would be vacuous"));
}

TEST(NumericCheckTest, CatchesAnIntermediateRoundedToBf16) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  ROOT p = f32[64] multiply(a, b)
})");
  std::vector<Literal> args;
  std::vector<double> a, b;
  for (int i = 0; i < 64; ++i) {
    a.push_back(0.1 + 0.013 * i);
    b.push_back(std::cos(i));
  }
  args.push_back(Vector(PrimitiveType::kF32, a));
  args.push_back(Vector(PrimitiveType::kF32, b));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  check::CheckReport report = CheckOutputs(RoundToBf16(ref->reference), *ref, args);
  EXPECT_FALSE(report.ok());
  EXPECT_FALSE(report.passed());
  EXPECT_THAT(report.Summary(), HasSubstr("MISMATCH with the interpreter"));
  EXPECT_THAT(report.Summary(), HasSubstr("of the bound"));
}

TEST(NumericCheckTest, NonFiniteValuesCompareByClass) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  ROOT r = f32[4] sqrt(a)
})");
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, {4, -1, 9, 16}));  // sqrt(-1) = NaN
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(check::CheckOutputs(ref->reference, *ref, args).passed());
  // NaN where the reference is finite, and a finite value where it is NaN: both fail.
  Literal nan_for_finite = ref->reference;
  nan_for_finite.SetDouble(0, std::numeric_limits<double>::quiet_NaN());
  check::CheckReport r1 = CheckOutputs(nan_for_finite, *ref, args);
  EXPECT_FALSE(r1.ok());
  EXPECT_EQ(r1.outputs[0].class_mismatches, 1);
  Literal finite_for_nan = ref->reference;
  finite_for_nan.SetDouble(1, 0.0);
  EXPECT_FALSE(check::CheckOutputs(finite_for_nan, *ref, args).ok());
  Literal inf_for_nan = ref->reference;
  inf_for_nan.SetDouble(1, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(check::CheckOutputs(inf_for_nan, *ref, args).ok());
  EXPECT_THAT(check::CheckOutputs(ref->reference, *ref, args).outputs[0].ToString(),
              HasSubstr("25% non-finite in the reference (1 NaN, 0 inf)"));
}

TEST(NumericCheckTest, AllNanOutputIsVacuous) {
  // The batch-norm case: rsqrt of a negative variance makes every logit NaN.
  auto m = Parse(R"(
HloModule m
ENTRY e {
  x = f32[1,8] parameter(0)
  var = f32[8] parameter(1)
  eps = f32[] constant(0.001)
  be = f32[8] broadcast(eps), dimensions={}
  ve = f32[8] add(var, be)
  r = f32[8] rsqrt(ve)
  rb = f32[1,8] broadcast(r), dimensions={1}
  ROOT y = f32[1,8] multiply(x, rb)
})");
  std::vector<Literal> args;
  Literal x(Shape(PrimitiveType::kF32, {1, 8}));
  for (int i = 0; i < 8; ++i) x.SetDouble(i, 0.5 + i);
  args.push_back(std::move(x));
  args.push_back(Vector(PrimitiveType::kF32, {-1, -2, -3, -4, -5, -6, -7, -8}));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  check::CheckReport report = CheckOutputs(ref->reference, *ref, args);
  EXPECT_TRUE(report.ok());        // nothing differs...
  EXPECT_TRUE(report.vacuous());   // ...but nothing could have
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.Summary(),
            "the check would be vacuous: output (f32[1,8]) is 100% NaN in the interpreter; use other inputs");
  // With positive variances the same module checks something.
  args[1] = Vector(PrimitiveType::kF32, {1, 2, 3, 4, 5, 6, 7, 8});
  auto good = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(check::CheckOutputs(good->reference, *good, args).passed());
}

TEST(NumericCheckTest, PassThroughAndConstantOutputsDoNotCount) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  w = f32[16] parameter(0)
  x = f32[16] parameter(1)
  z = f32[] constant(0)
  zeros = f32[16] broadcast(z), dimensions={}
  cw = f32[16] copy(w)
  ROOT t = (f32[16], f32[16], f32[16]) tuple(cw, zeros, x)
})");
  std::vector<Literal> args;
  std::vector<double> v;
  for (int i = 0; i < 16; ++i) v.push_back(0.25 * i - 1);
  args.push_back(Vector(PrimitiveType::kF32, v));
  args.push_back(Vector(PrimitiveType::kF32, v));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(ref->pass_through_parameter, (std::vector<int64_t>{0, -1, 1}));
  check::CheckReport report = CheckOutputs(ref->reference, *ref, args);
  EXPECT_TRUE(report.vacuous());
  EXPECT_EQ(report.outputs[0].verdict, check::OutputVerdict::kPassThrough);
  EXPECT_EQ(report.outputs[1].verdict, check::OutputVerdict::kConstant);
  EXPECT_EQ(report.outputs[2].verdict, check::OutputVerdict::kPassThrough);
  EXPECT_THAT(report.Summary(), HasSubstr("output 0 (f32[16]) is parameter 0 passed through"));
  // A passed-through output that comes back corrupted still fails the check.
  Literal corrupted = ref->reference;
  corrupted.tuple_elements()[2].SetDouble(3, 42.0);
  EXPECT_FALSE(check::CheckOutputs(corrupted, *ref, args).ok());
}

TEST(NumericCheckTest, SummaryCountsWhatWasCompared) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  w = f32[16] parameter(0)
  e = f32[16] exponential(w)
  ROOT t = (f32[16], f32[16]) tuple(e, w)
})");
  std::vector<Literal> args;
  std::vector<double> v;
  for (int i = 0; i < 16; ++i) v.push_back(0.1 * i - 0.7);
  args.push_back(Vector(PrimitiveType::kF32, v));
  auto report = check::CheckAgainstInterpreter(*m, args, *interpreter::Interpreter().Run(*m, args));
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->passed()) << report->Details();
  EXPECT_THAT(report->Summary(), HasSubstr("matches the interpreter: 1 of 2 output(s) compared (16 elements"));
  EXPECT_THAT(report->Summary(), HasSubstr("not counted: 1 passed through"));
}

TEST(NumericCheckTest, IntegersCompareExactly) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = s32[4] parameter(0)
  ROOT n = s32[4] negate(a)
})");
  std::vector<Literal> args;
  Literal a(Shape(PrimitiveType::kS32, {4}));
  for (int i = 0; i < 4; ++i) a.SetInt64(i, i * 7 - 3);
  args.push_back(std::move(a));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  EXPECT_TRUE(check::CheckOutputs(ref->reference, *ref, args).passed());
  Literal off = ref->reference;
  off.SetInt64(2, off.GetInt64(2) + 1);
  check::CheckReport report = CheckOutputs(off, *ref, args);
  EXPECT_FALSE(report.ok());
  EXPECT_THAT(report.Summary(), HasSubstr("(exact)"));
}

// r + k/8 - max_k(r + k/8), truncated to an integer: exactly -7, -6, ... in exact
// arithmetic, so whether the f32 value lands on -7 or on -6.9999995 (truncated to -6)
// depends on the last bit of r. A backend whose exp is an ulp off (modelled by the same
// module with exp(p) scaled by 1 + 2^-23) gets other integers there, and nothing is wrong
// with it. Found by the differential fuzzer (`--complex`, seed 7701321).
constexpr char kOnTheBoundary[] = R"(
HloModule boundary
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p = f32[64] parameter(0)
  r = f32[64] exponential(p)
  %s
  b = f32[64,61] broadcast(r2), dimensions={0}
  i = f32[64,61] iota(), iota_dimension=1
  step = f32[] constant(%s)
  steps = f32[64,61] broadcast(step), dimensions={}
  k = f32[64,61] multiply(i, steps)
  x = f32[64,61] add(b, k)
  low = f32[] constant(-inf)
  top = f32[64] reduce(x, low), dimensions={1}, to_apply=max_f32
  tops = f32[64,61] broadcast(top), dimensions={0}
  d = f32[64,61] subtract(x, tops)
  ROOT t = s32[64,61] convert(d)
})";

std::unique_ptr<Module> OnTheBoundary(const char* r2, const char* step) {
  char text[2048];
  std::snprintf(text, sizeof(text), kOnTheBoundary, r2, step);
  return Parse(text);
}

TEST(NumericCheckTest, IntegersOnATruncationBoundaryAreDecidedByRounding) {
  auto program = OnTheBoundary("r2 = f32[64] copy(r)", "0.125");
  // exp an ulp off: r · (1 + 2^-23).
  auto ulp_off = OnTheBoundary(
      "ulp = f32[] constant(1.00000012)\n  ulps = f32[64] broadcast(ulp), dimensions={}\n"
      "  r2 = f32[64] multiply(r, ulps)", "0.125");
  // A real bug: the step 0.15, not 0.125.
  auto wrong_step = OnTheBoundary("r2 = f32[64] copy(r)", "0.15");
  ASSERT_TRUE(program && ulp_off && wrong_step);
  std::vector<double> p;
  for (int i = 0; i < 64; ++i) p.push_back(std::sin(3.7 * i));
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, p));
  auto ref = check::ComputeCheckReference(*program, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  auto off = interpreter::Interpreter().Run(*ulp_off, args);
  auto bug = interpreter::Interpreter().Run(*wrong_step, args);
  ASSERT_TRUE(off.ok() && bug.ok());
  // The premise: the ulp moves integers (a check that compared every integer would fail).
  int64_t moved = 0;
  for (int64_t i = 0; i < off->element_count(); ++i) moved += off->GetInt64(i) != ref->reference.GetInt64(i);
  ASSERT_GT(moved, 0);
  check::CheckReport report = check::CheckOutputs(*off, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  ASSERT_EQ(report.outputs.size(), 1u);
  // Only elements on a boundary are left out: (k - 60)/8 an integer, 7 of a row's 61.
  EXPECT_GE(report.outputs[0].order_decided, moved);
  EXPECT_LE(report.outputs[0].order_decided, 64 * 7);
  EXPECT_THAT(report.Details(), HasSubstr("integer element(s) not compared: rounding decides them"));
  // The other integers are still facts: a wrong step is caught.
  EXPECT_FALSE(check::CheckOutputs(*bug, *ref, args).ok());
}

// A Fourier transform's outputs all carry an error of the line's size: the perturbed runs
// move each by u·log2(L)·‖X‖/√L, and one inside that band of zero is exactly zero in one
// run (FFTW's transform of a symmetric input gives 0 where the interpreter leaves 1e-17).
TEST(NumericCheckTest, FourierTransformsAreNudgedByTheirLinesError) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = c64[2,8] parameter(0)
  ROOT f = c64[2,8] fft(x), fft_type=FFT, fft_length={8}
})");
  ASSERT_TRUE(module);
  auto shadow = check::MakeF64Shadow(*module);
  ASSERT_TRUE(shadow.ok()) << shadow.status().message();
  const auto units = check::RoundingUnits(**shadow, *module);
  ASSERT_EQ(units.size(), 1u);
  const check::RoundingUnit unit = units.begin()->second;
  EXPECT_EQ(unit.line, 8);
  // One line of 8 outputs: large ones and a 1e-17 (the second line all zeros).
  Literal values(Shape(PrimitiveType::kC128, {2, 8}));
  for (int64_t i = 0; i < 8; ++i) values.SetComplex(i, {i == 3 ? 1e-17 : 4.0 * (i + 1), 0});
  for (int direction : {1, -1}) {
    Literal moved = values;
    check::NudgeByRounding(moved, unit, direction);
    const double band = unit.unit_roundoff * 3 / std::sqrt(8.0) * 4 * std::sqrt(204.0);  // log2(8) = 3
    if (direction < 0) {
      EXPECT_EQ(moved.GetComplex(3), std::complex<double>(0, 0));
    } else {
      EXPECT_GT(std::abs(moved.GetComplex(3).real()), 0.25 * band);  // moved by the line's error, not 1e-17's
    }
    EXPECT_NE(moved.GetComplex(0), values.GetComplex(0));
    EXPECT_EQ(moved.GetComplex(8), std::complex<double>(0, 0));  // a line of zeros stays
  }
  // A unit without a line moves values relative to themselves only.
  check::RoundingUnit relative = unit;
  relative.line = 0;
  Literal moved = values;
  check::NudgeByRounding(moved, relative, -1);
  EXPECT_NEAR(moved.GetComplex(3).real(), 1e-17, 1e-23);
}

// A singular function of a transform's output that is 0 in exact arithmetic: FFTW gives
// exactly 0 (rsqrt: inf), the interpreter's double sums 1e-17 (rsqrt: finite). Rounding
// decides the element's class: the perturbed run that zeroes it shows inf too, so it is
// not compared; the elements away from the pole still are.
TEST(NumericCheckTest, AClassRoundingDecidesIsNotCompared) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,4] parameter(0)
  c0 = f32[] constant(0)
  zero = f32[2,4] broadcast(c0), dimensions={}
  z = c64[2,4] complex(x, zero)
  f = c64[2,4] fft(z), fft_type=FFT, fft_length={4}
  m = f32[2,4] abs(f)
  y = f32[2,4] rsqrt(m)
  dc = f32[2,1] slice(m), slice={[0:2], [0:1]}
  ydc = f32[2,1] rsqrt(dc)
  ROOT t = (f32[2,4], f32[2,1]) tuple(y, ydc)
})");
  ASSERT_TRUE(module);
  // Constant lines: every output but the first of a line is 0 in exact arithmetic.
  std::vector<Literal> args;
  args.push_back(Literal(Shape(PrimitiveType::kF32, {2, 4})));
  for (int64_t i = 0; i < 8; ++i) args[0].SetDouble(i, i < 4 ? 0.3 : -1.7);
  auto ref = check::ComputeCheckReference(*module, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  // The backend's exact transform: rsqrt(4·|c|) first, inf after.
  auto exact = [](double scale) {
    Literal y(Shape(PrimitiveType::kF32, {2, 4})), dc(Shape(PrimitiveType::kF32, {2, 1}));
    for (int64_t i = 0; i < 8; ++i) {
      const double c = i < 4 ? 0.3 : 1.7;
      y.SetDouble(i, i % 4 == 0 ? 1 / std::sqrt(4 * c) : std::numeric_limits<double>::infinity());
      if (i % 4 == 0) dc.SetDouble(i / 4, scale / std::sqrt(4 * c));
    }
    Literal tuple(Shape::Tuple({y.shape(), dc.shape()}));
    tuple.tuple_elements()[0] = std::move(y);
    tuple.tuple_elements()[1] = std::move(dc);
    return tuple;
  };
  int64_t finite_in_reference = 0;
  const Literal& y_ref = ref->reference.tuple_elements()[0];
  for (int64_t i = 0; i < 8; ++i) finite_in_reference += i % 4 != 0 && std::isfinite(y_ref.GetDouble(i));
  if (finite_in_reference == 0) GTEST_SKIP() << "the interpreter's transform gave exact zeros here: no premise";
  check::CheckReport report = check::CheckOutputs(exact(1), *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_THAT(report.Details(), HasSubstr("rounding decides whether they are finite"));
  // Away from the pole values are still compared: a wrong one is caught.
  EXPECT_FALSE(check::CheckOutputs(exact(2), *ref, args).ok());
}

TEST(NumericCheckTest, ExpectedOutputsUseTheSameRules) {
  auto m = Parse(kCancellation);
  auto args = CancellationArgs();
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok());
  // XLA's answer: the exact value rounded once.
  std::vector<Literal> expected;
  expected.push_back(Literal::CreateUninitialized(m->entry()->root()->shape()));
  for (int64_t i = 0; i < 64; ++i) expected[0].SetDouble(i, ref->shadow->GetDouble(i));
  check::CheckReport report = CheckOutputsAgainstExpected(ref->reference, expected, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_THAT(report.Summary(), HasSubstr("matches the expected outputs"));
  expected[0].SetDouble(5, expected[0].GetDouble(5) + 0.5);
  EXPECT_FALSE(check::CheckOutputsAgainstExpected(ref->reference, expected, *ref, args).ok());
  // Shape disagreements are reported, not crashed on.
  std::vector<Literal> wrong;
  wrong.push_back(Vector(PrimitiveType::kF32, {1, 2, 3}));
  check::CheckReport bad = CheckOutputsAgainstExpected(ref->reference, wrong, *ref, args);
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.Summary(), HasSubstr("shape mismatch"));
}

// XLA's library calls return tuples (value, workspace), which a kept custom call cannot
// widen: the shadow opens each into the dot it stands for, so a cuBLAS result summed in
// another order (float accumulation over 2048 terms, far above the element type's floor)
// gets the room the interpreter's own f32 dot error measures, and a wrong product is
// still caught.
TEST(NumericCheckTest, LibraryCallsGetAShadowAndTheirTerms) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[4,2048]{1,0} parameter(0)
  b = f32[2048,8]{1,0} parameter(1)
  g = (f32[4,8]{1,0}, s8[1024]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  ROOT v = f32[4,8]{1,0} get-tuple-element(g), index=0
})");
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args;
  std::vector<double> a, b;
  for (int i = 0; i < 4 * 2048; ++i) a.push_back(20.0 + 3.0 * std::sin(0.7 * i));
  for (int i = 0; i < 2048 * 8; ++i) b.push_back(std::cos(1.3 * i));
  args.emplace_back(Shape(PrimitiveType::kF32, {4, 2048}));
  args.emplace_back(Shape(PrimitiveType::kF32, {2048, 8}));
  for (size_t i = 0; i < a.size(); ++i) args[0].SetDouble(static_cast<int64_t>(i), a[i]);
  for (size_t i = 0; i < b.size(); ++i) args[1].SetDouble(static_cast<int64_t>(i), b[i]);
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  ASSERT_TRUE(ref->shadow.has_value()) << ref->shadow_note;
  // The backend's way: a float accumulator, from the last term to the first.
  Literal actual = Literal::CreateUninitialized(Shape(PrimitiveType::kF32, {4, 8}));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      float acc = 0;
      for (int k = 2047; k >= 0; --k) {
        acc += static_cast<float>(args[0].GetDouble(i * 2048 + k)) * static_cast<float>(args[1].GetDouble(k * 8 + j));
      }
      actual.SetDouble(i * 8 + j, acc);
    }
  }
  EXPECT_FALSE(interpreter::CompareLiterals(actual, ref->reference, interpreter::DefaultToleranceFor(PrimitiveType::kF32)).ok())
      << "the element type's floor alone would call this a mismatch";
  check::CheckReport report = CheckOutputs(actual, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_THAT(report.Details(), Not(HasSubstr("no f64 shadow")));
  // One product left out of one element.
  Literal dropped = actual;
  dropped.SetDouble(13, actual.GetDouble(13) - args[0].GetDouble(1 * 2048 + 2047) * args[1].GetDouble(2047 * 8 + 5));
  EXPECT_FALSE(check::CheckOutputs(dropped, *ref, args).ok());
  // What the shadow ran: the custom call as a call of its dot, under its own name.
  auto opened = check::OpenLibraryCalls(*m);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  ASSERT_NE(*opened, nullptr);
  EXPECT_THAT((*opened)->ToString(), HasSubstr("%g = (f32[4,8]{1,0}, s8[1024]{0}) call("));
  auto none = check::OpenLibraryCalls(*Parse(kCancellation));
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

// Symmetric matrices a + aᵀ (seeded), [batch, n, n].
Literal SymmetricMatrices(int64_t batch, int64_t n, double seed) {
  Literal out(Shape(PrimitiveType::kF32, {batch, n, n}));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const double x = std::sin(seed + 1.7 * static_cast<double>(b * n * n + i * n + j));
        const double y = std::sin(seed + 1.7 * static_cast<double>(b * n * n + j * n + i));
        out.SetDouble((b * n + i) * n + j, x + y + (i == j ? 0.3 * static_cast<double>(i) : 0.0));
      }
    }
  }
  return out;
}

// Negates column `col` of matrix `b` of a [batch, rows, cols] literal (row = true: row `col`).
void Negate(Literal& l, int64_t b, int64_t col, bool row = false) {
  const auto& d = l.shape().dimensions();
  const int64_t rows = d[d.size() - 2], cols = d.back(), base = b * rows * cols;
  for (int64_t i = 0; i < (row ? cols : rows); ++i) {
    const int64_t at = base + (row ? col * cols + i : i * cols + col);
    l.SetDouble(at, -l.GetDouble(at));
  }
}

// jax's eigh on the GPU as it lowers (tests/data/linalg/gpu_eigh_batched.hlo): the call's
// vectors behind a select of NaN where it failed, returned with the eigenvalues, and the
// vectors plus one (not a solver's vectors any more).
constexpr char kEighOutputs[] = R"(
HloModule m
ENTRY e {
  a = f32[2,5,5] parameter(0)
  eigh = (f32[2,5,5]{1,2,0}, f32[2,5]{1,0}, s32[2]{0}) custom-call(a), custom_call_target="cusolver_syevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={algorithm = 0 : ui8, lower = true}
  info = s32[2] get-tuple-element(eigh), index=2
  zero = s32[] constant(0)
  zeros = s32[2] broadcast(zero), dimensions={}
  ok = pred[2] compare(info, zeros), direction=EQ
  okm = pred[2,5,5] broadcast(ok), dimensions={0}
  v = f32[2,5,5] get-tuple-element(eigh), index=0
  nan = f32[] constant(nan)
  nans = f32[2,5,5] broadcast(nan), dimensions={}
  vectors = f32[2,5,5] select(okm, v, nans)
  w = f32[2,5] get-tuple-element(eigh), index=1
  one = f32[] constant(1)
  ones = f32[2,5,5] broadcast(one), dimensions={}
  plus = f32[2,5,5] add(vectors, ones)
  ROOT t = (f32[2,5,5], f32[2,5], f32[2,5,5]) tuple(vectors, w, plus)
})";

// Each solver picks its eigenvectors' signs (LAPACK, cuSOLVER and the interpreter's Jacobi
// model each their own): the check negates a backend's vector where it points against the
// reference's, and says how many; a vector computed on (v + 1) is not aligned, and a wrong
// element still fails.
TEST(NumericCheckTest, EigenvectorsAreComparedUpToTheirSigns) {
  auto m = Parse(kEighOutputs);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args;
  args.push_back(SymmetricMatrices(2, 5, 0.4));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  ASSERT_EQ(ref->sign_free.size(), 3u);
  EXPECT_NE(ref->sign_free[0].call, nullptr);
  EXPECT_EQ(ref->sign_free[1].call, nullptr);  // the eigenvalues
  EXPECT_EQ(ref->sign_free[2].call, nullptr);  // v + 1
  const Literal& vectors = ref->reference.tuple_elements()[0];
  Literal flipped = ref->reference;
  Negate(flipped.tuple_elements()[0], 0, 1);
  Negate(flipped.tuple_elements()[0], 1, 4);
  check::CheckReport report = check::CheckOutputs(flipped, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_EQ(report.outputs[0].sign_free_vectors, 10);
  EXPECT_EQ(report.outputs[0].sign_flipped_vectors, 2);
  EXPECT_THAT(report.Details(), HasSubstr("2 of 10 vector(s) negated to the reference's sign first (the eigenvectors of "
                                          "eigh (cusolver_syevd_ffi)"));
  // Not aligned without the analysis: the same result fails.
  check::CheckReference plain = *ref;
  plain.sign_free.clear();
  EXPECT_FALSE(check::CheckOutputs(flipped, plain, args).ok());
  // A flipped and wrong vector fails.
  Literal wrong = flipped;
  wrong.tuple_elements()[0].SetDouble(7, wrong.tuple_elements()[0].GetDouble(7) + 1e-3);
  EXPECT_FALSE(check::CheckOutputs(wrong, *ref, args).ok());
  // v + 1 is no solver's vector: its flipped column fails.
  Literal plus = ref->reference;
  for (int64_t i = 0; i < 5; ++i) {
    plus.tuple_elements()[2].SetDouble(i * 5 + 1, 2.0 - plus.tuple_elements()[2].GetDouble(i * 5 + 1));
  }
  EXPECT_FALSE(check::CheckOutputs(plus, *ref, args).ok());
  EXPECT_GT(vectors.element_count(), 0);
}

// jax's SVD on the GPU: gesvdj's U (6 x 6, full: its last two columns any basis of the
// complement of a's columns) and V, returned as U and Vᵀ = transpose(V) (svd) and sliced
// (U[:, :4]). A pair (u_j, v_j) negated together passes; u_j alone fails through Vᵀ's row;
// another basis of the complement passes, its elements not compared.
TEST(NumericCheckTest, SingularVectorPairsAreAlignedTogether) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[6,4] parameter(0)
  svd = (f32[6,4]{0,1}, f32[4]{0}, f32[6,6]{0,1}, f32[4,4]{0,1}, s32[]) custom-call(a), custom_call_target="cusolver_gesvdj_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={compute_uv = true, full_matrices = true}
  u = f32[6,6] get-tuple-element(svd), index=2
  v = f32[4,4] get-tuple-element(svd), index=3
  vt = f32[4,4] transpose(v), dimensions={1,0}
  s = f32[4] get-tuple-element(svd), index=1
  u4 = f32[6,4] slice(u), slice={[0:6], [0:4]}
  rest = f32[6,2] slice(u), slice={[0:6], [4:6]}
  ROOT t = (f32[6,6], f32[4], f32[4,4], f32[6,4], f32[6,2]) tuple(u, s, vt, u4, rest)
})");
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::kF32, {6, 4}));
  for (int64_t i = 0; i < 24; ++i) args[0].SetDouble(i, std::sin(0.9 * static_cast<double>(i) + 0.2) + (i % 5 == 0 ? 1.5 : 0));
  auto ref = check::ComputeCheckReference(*m, args);
  ASSERT_TRUE(ref.ok()) << ref.status().message();
  ASSERT_EQ(ref->sign_free.size(), 5u);
  EXPECT_EQ(ref->sign_free[0].determined, 4);  // two complement columns: not determined
  EXPECT_EQ(ref->sign_free[2].entry_dim, 0);   // V's columns, read as Vᵀ's rows
  EXPECT_NE(ref->sign_free[3].call, nullptr);
  // The pair 2 negated in U, U[:, :4] and Vᵀ; the complement's columns swapped (in U and
  // in its slice).
  Literal pair = ref->reference;
  Negate(pair.tuple_elements()[0], 0, 2);
  Negate(pair.tuple_elements()[3], 0, 2);
  Negate(pair.tuple_elements()[2], 0, 2, /*row=*/true);
  for (int64_t i = 0; i < 6; ++i) {
    Literal& u = pair.tuple_elements()[0];
    const double c4 = u.GetDouble(i * 6 + 4);
    u.SetDouble(i * 6 + 4, u.GetDouble(i * 6 + 5));
    u.SetDouble(i * 6 + 5, c4);
  }
  for (int64_t i = 0; i < 6; ++i) {
    Literal& rest = pair.tuple_elements()[4];
    const double c0 = rest.GetDouble(i * 2);
    rest.SetDouble(i * 2, rest.GetDouble(i * 2 + 1));
    rest.SetDouble(i * 2 + 1, c0);
  }
  check::CheckReport report = check::CheckOutputs(pair, *ref, args);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_EQ(report.outputs[0].basis_free, 12);
  EXPECT_EQ(report.outputs[0].sign_flipped_vectors, 1);
  EXPECT_EQ(report.outputs[2].sign_flipped_vectors, 1);
  EXPECT_THAT(report.Details(), HasSubstr("12 element(s) not compared: vectors past min(m, n) span a complement"));
  // The complement alone: nothing to compare, and said so.
  EXPECT_EQ(report.outputs[4].verdict, check::OutputVerdict::kSolverChoice) << report.Details();
  EXPECT_THAT(report.Summary(), HasSubstr("not counted: 1 all in a basis the solver chooses")) << report.Summary();
  // u_2 negated without v_2: Vᵀ's row 2 fails.
  Literal alone = ref->reference;
  Negate(alone.tuple_elements()[0], 0, 2);
  Negate(alone.tuple_elements()[3], 0, 2);
  check::CheckReport apart = check::CheckOutputs(alone, *ref, args);
  EXPECT_FALSE(apart.ok()) << apart.Details();
  EXPECT_EQ(apart.outputs[2].mismatches, 4) << apart.Details();
  // And U's first columns and its slice must agree: u_2 negated in U only fails the slice.
  Literal split = ref->reference;
  Negate(split.tuple_elements()[0], 0, 2);
  Negate(split.tuple_elements()[2], 0, 2, /*row=*/true);
  EXPECT_FALSE(check::CheckOutputs(split, *ref, args).ok());
}

TEST(F64ShadowTest, WidensFloatsAndKeepsBitLevelOps) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  h = f16[4] convert(a)
  back = f32[4] convert(h)
  bits = s32[4] bitcast-convert(a)
  c = f32[] constant(1.5)
  cb = f32[4] broadcast(c), dimensions={}
  s = f32[4] add(back, cb)
  ROOT t = (f32[4], s32[4]) tuple(s, bits)
})");
  auto shadow = check::MakeF64Shadow(*m);
  ASSERT_TRUE(shadow.ok()) << shadow.status().message();
  const std::string text = (*shadow)->ToString();
  EXPECT_THAT(text, HasSubstr("f64[4] convert"));
  EXPECT_THAT(text, HasSubstr("%a.shadow = f32[4] convert(%a)"));
  EXPECT_THAT(text, HasSubstr("%bits = s32[4] bitcast-convert(%a.shadow)"));
  EXPECT_THAT(text, HasSubstr("f64[] constant(1.5)"));
  // The shadow skips the f16 rounding: 0.1 stays 0.1 in f64, the f32 program rounds it.
  std::vector<Literal> args;
  args.push_back(Vector(PrimitiveType::kF32, {0.1, 0.2, 0.3, 1000.1}));
  std::vector<Literal> wide;
  wide.push_back(check::WidenLiteralToF64(args[0]));
  auto s = interpreter::Interpreter().Run(**shadow, wide);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto r = interpreter::Interpreter().Run(*m, args);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(s->tuple_elements()[0].shape().element_type(), PrimitiveType::kF64);
  EXPECT_NEAR(s->tuple_elements()[0].GetDouble(3), 1001.6, 1e-4);
  EXPECT_NE(r->tuple_elements()[0].GetDouble(3), s->tuple_elements()[0].GetDouble(3));
  // The kept bitcast-convert sees the same f32 bits in both.
  EXPECT_EQ(r->tuple_elements()[1], s->tuple_elements()[1]);
}

}  // namespace
}  // namespace fusebox
