// Fourier transforms: the fft-expander's dots, twiddles and chirps on the CPU backend and
// the GPU emulator (the GPU pipeline with `--gpu-library=off`), fused and unfused, against
// the interpreter (which sums each DFT in double from its definition), for every fft_type,
// one to three dimensions, lengths that take each of the three forms (one dense dot,
// Cooley-Tukey, Bluestein) and c128; then what the pass writes and what it refuses. (With
// the GPU's libraries the transforms stay `fft` ops for cuFFT: fft_plan_test.)
#include "compiler/passes/fft_expander.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

// Values in [-1, 1) from a seed (the real and imaginary parts of complex elements alike).
Literal Values(const Shape& shape, uint64_t seed) {
  Literal literal(shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 11;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
  };
  const bool complex = shape.element_type() == PrimitiveType::kC64 || shape.element_type() == PrimitiveType::kC128;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (complex) {
      const double re = next();
      literal.SetComplex(i, {re, next()});
    } else {
      literal.SetDouble(i, next());
    }
  }
  return literal;
}

// The largest |got - want| over the largest |want|: a transform's error grows with its
// largest output, not with each element's (most of a spectrum is small).
double RelativeError(const Literal& got, const Literal& want) {
  double error = 0, scale = 0;
  for (int64_t i = 0; i < want.element_count(); ++i) {
    error = std::max(error, std::abs(got.GetComplex(i) - want.GetComplex(i)));
    scale = std::max(scale, std::abs(want.GetComplex(i)));
  }
  return error / std::max(scale, 1e-300);
}

int64_t Count(const Module& module, Opcode opcode) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += inst->opcode() == opcode;
  }
  return n;
}

std::string FftModule(const std::string& in, const std::string& out, const std::string& type,
                      const std::string& lengths) {
  return "HloModule fft\nENTRY e {\n  x = " + in + " parameter(0)\n  ROOT f = " + out + " fft(x), fft_type=" + type +
         ", fft_length={" + lengths + "}\n}\n";
}

void ExpectBackendsMatch(const std::string& text, double bound) {
  SCOPED_TRACE(text);
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const Shape& in = (*module)->entry()->parameter(0)->shape();
  std::vector<Literal> args;
  args.push_back(Values(in, 5));
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  RunOnBothBackends(
      **module, args,
      [&](const Literal& got, const std::string& which) {
        EXPECT_LT(RelativeError(got, *expected), bound) << which;
      },
      [](const Module& optimized, const std::string& which) {
        EXPECT_EQ(Count(optimized, Opcode::kFft), 0) << which;
      },
      GpuRun::kEmulateWithoutLibraries);
}

constexpr double kF32 = 3e-6;   // about 25 f32 roundings of the largest output
constexpr double kF64 = 1e-14;

// Lengths that take each path: 1 and 2 (trivial), 7 and 32 (one dot), 127 (a prime, one
// dot), 33 = 3 x 11 and 343 = 7 x 49 (Cooley-Tukey; 49 = 7 x 7 nested), 131 and 2 x 131
// (Bluestein, alone and under a split).
TEST(FftExpanderTest, ComplexTransformsMatchTheInterpreter) {
  for (const char* n : {"1", "2", "7", "32", "33", "127", "131", "262", "343"}) {
    const std::string s = std::string("c64[3,") + n + "]";
    ExpectBackendsMatch(FftModule(s, s, "FFT", n), kF32);
    ExpectBackendsMatch(FftModule(s, s, "IFFT", n), kF32);
  }
}

TEST(FftExpanderTest, RealTransformsMatchTheInterpreter) {
  // Even and odd lengths: the Nyquist term exists only for even ones.
  ExpectBackendsMatch(FftModule("f32[2,16]", "c64[2,9]", "RFFT", "16"), kF32);
  ExpectBackendsMatch(FftModule("f32[2,45]", "c64[2,23]", "RFFT", "45"), kF32);
  ExpectBackendsMatch(FftModule("f32[2,1000]", "c64[2,501]", "RFFT", "1000"), kF32);
  ExpectBackendsMatch(FftModule("c64[2,9]", "f32[2,16]", "IRFFT", "16"), kF32);
  ExpectBackendsMatch(FftModule("c64[2,23]", "f32[2,45]", "IRFFT", "45"), kF32);
  ExpectBackendsMatch(FftModule("c64[2,134]", "f32[2,266]", "IRFFT", "266"), kF32);
}

TEST(FftExpanderTest, SeveralDimensionsMatchTheInterpreter) {
  ExpectBackendsMatch(FftModule("c64[2,6,10]", "c64[2,6,10]", "FFT", "6,10"), kF32);
  ExpectBackendsMatch(FftModule("c64[6,10,12]", "c64[6,10,12]", "IFFT", "6,10,12"), kF32);
  ExpectBackendsMatch(FftModule("f32[2,12,20]", "c64[2,12,11]", "RFFT", "12,20"), kF32);
  // The inverse over the leading dimensions first, then complex-to-real along the last
  // (random input is not Hermitian, so the order shows).
  ExpectBackendsMatch(FftModule("c64[2,12,11]", "f32[2,12,20]", "IRFFT", "12,20"), kF32);
  ExpectBackendsMatch(FftModule("c64[3,5,4,3]", "f32[3,5,4,4]", "IRFFT", "5,4,4"), kF32);
}

TEST(FftExpanderTest, DoublePrecisionStaysDouble) {
  ExpectBackendsMatch(FftModule("c128[2,36,50]", "c128[2,36,50]", "FFT", "36,50"), kF64);
  ExpectBackendsMatch(FftModule("f64[2,139]", "c128[2,70]", "RFFT", "139"), kF64);
  ExpectBackendsMatch(FftModule("c128[2,70]", "f64[2,139]", "IRFFT", "139"), kF64);
}

TEST(FftExpanderTest, EmptyArraysAreEmpty) {
  ExpectBackendsMatch(FftModule("c64[0,8]", "c64[0,8]", "FFT", "8"), kF32);
}

// One dot for a short length, one for each factor of Cooley-Tukey (343 = 7 x (7 x 7)), a
// padded convolution of two power-of-two transforms (512 = 16 x 32) for
// a long prime; every dot at HIGHEST precision, in f32 for c64.
TEST(FftExpanderTest, WritesTheFormItsLengthTakes) {
  struct Case {
    const char* length;
    int64_t dots, pads;
  };
  for (const Case& c : {Case{"32", 1, 0}, Case{"127", 1, 0}, Case{"33", 2, 0}, Case{"343", 3, 0},
                        Case{"131", 4, 1}}) {
    SCOPED_TRACE(c.length);
    const std::string s = std::string("c64[3,") + c.length + "]";
    auto module = ParseModule(FftModule(s, s, "FFT", c.length));
    ASSERT_TRUE(module.ok());
    passes::PassContext context;
    auto changed = passes::FftExpander().Run(**module, context);
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    EXPECT_TRUE(*changed);
    EXPECT_EQ(Count(**module, Opcode::kFft), 0);
    EXPECT_EQ(Count(**module, Opcode::kDot), c.dots);
    EXPECT_EQ(Count(**module, Opcode::kPad), c.pads);
    for (const auto& inst : (*module)->entry()->instructions()) {
      if (inst->opcode() != Opcode::kDot) continue;
      EXPECT_EQ(inst->shape().element_type(), PrimitiveType::kF32);
      EXPECT_EQ(inst->attrs().operand_precision,
                (std::vector<Precision>{Precision::kHighest, Precision::kHighest}));
    }
  }
}

TEST(FftExpanderTest, RefusesWhatItCannotExpandNamingTheInstruction) {
  passes::PassContext context;
  // 2^21 points: twiddle tables of tens of megabytes.
  auto longest = ParseModule(FftModule("f32[2097152]", "c64[1048577]", "RFFT", "2097152"));
  ASSERT_TRUE(longest.ok());
  auto r = passes::FftExpander().Run(**longest, context);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("%f: a transform of length 2097152"), std::string::npos)
      << r.status().message();
  // Shapes that do not fit fft_length (a module the verifier would reject).
  auto misfit = ParseModule(FftModule("f32[8]", "c64[8]", "RFFT", "14"));
  ASSERT_TRUE(misfit.ok());
  r = passes::FftExpander().Run(**misfit, context);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("do not fit fft_length"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace fusebox
