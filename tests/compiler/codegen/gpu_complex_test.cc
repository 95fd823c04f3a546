// Complex arithmetic in the GPU backend, which has no C library: division as libgcc divides
// (bit for bit), the C99 functions as formulas over libdevice's real ones, and complex
// dots. Run in the GPU emulator (the kernels' IR, JIT-compiled for the host, with the
// GPU's emitter options) against the interpreter, whose std::complex calls libgcc and
// glibc; and compiled to PTX for sm_90 (assembled where ptxas is installed).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "compiler/check/numeric_check.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/npy.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/library_kernels.h"
#include "tests/compiler/jax_programs.h"
#include "tests/compiler/triangular_inputs.h"

namespace fusebox::codegen {
namespace {

// The values every part of a dividend and divisor takes: zeros, ones, infinities, NaN,
// the smallest subnormal and normal, the largest finite value and its half, and
// values whose squares overflow or underflow in the part's type.
template <typename T>
std::vector<T> SpecialParts() {
  using L = std::numeric_limits<T>;
  return {T(0),        T(-0.0),        T(1),       T(-3.5),        L::infinity(), -L::infinity(),
          L::quiet_NaN(), L::denorm_min(), L::min(), L::max(),      -L::max() / 2, T(1e-30) * T(1e-8),
          T(7e18)};
}

template <typename T>
Literal ComplexVector(PrimitiveType type, const std::vector<std::complex<T>>& values) {
  Literal literal(Shape(type, {static_cast<int64_t>(values.size())}));
  std::memcpy(literal.untyped_data(), values.data(), values.size() * sizeof(values[0]));
  return literal;
}

// Bits of part `part` (0 real, 1 imaginary) of element i; NaNs all read alike (their
// payload is not specified).
template <typename T>
std::string PartBits(const Literal& literal, int64_t i, int part) {
  T value;
  std::memcpy(&value, literal.untyped_data() + (2 * i + part) * sizeof(T), sizeof(T));
  if (std::isnan(value)) return "nan";
  char text[64];
  std::snprintf(text, sizeof(text), "%a", static_cast<double>(value));
  return text;
}

StatusOr<std::unique_ptr<GpuEmulator>> Emulate(const Module& module, bool fused) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForBackend(module, fused));
  return GpuEmulator::Create(std::move(optimized));
}

// `text` on `args` in the interpreter (`expected`) and the emulated GPU, fused (`actual`).
void InterpretAndEmulate(const std::string& text, const std::vector<Literal>& args, Literal* expected,
                         Literal* actual) {
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto interpreted = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  auto emulator = Emulate(**module, true);
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  auto emulated = (*emulator)->Run(args);
  ASSERT_TRUE(emulated.ok()) << emulated.status().message();
  *expected = std::move(*interpreted);
  *actual = std::move(*emulated);
}

template <typename T>
void ExpectDivisionBitForBit(PrimitiveType type) {
  const std::string name = std::string(PrimitiveTypeName(type));
  // Every combination of special parts, then random bit patterns.
  std::vector<std::complex<T>> xs, ys;
  const std::vector<T> parts = SpecialParts<T>();
  for (T a : parts) {
    for (T b : parts) {
      for (T c : parts) {
        for (T d : parts) {
          xs.push_back({a, b});
          ys.push_back({c, d});
        }
      }
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    T v[4];
    for (T& part : v) {
      // Random exponents and signs: any magnitude, a few infinities and NaNs.
      uint64_t bits = rng();
      std::memcpy(&part, &bits, sizeof(T));
      if (i % 2 == 0 && std::isfinite(part)) part = std::ldexp(T(1) + T(rng() % 1000) / 1000, int(rng() % 60) - 30);
    }
    xs.push_back({v[0], v[1]});
    ys.push_back({v[2], v[3]});
  }
  const std::string n = std::to_string(xs.size());
  std::string text = "HloModule m\nENTRY e {\n  x = " + name + "[" + n + "] parameter(0)\n  y = " + name + "[" +
                     n + "] parameter(1)\n  ROOT q = " + name + "[" + n + "] divide(x, y)\n}\n";
  std::vector<Literal> args;
  args.push_back(ComplexVector(type, xs));
  args.push_back(ComplexVector(type, ys));
  Literal expected, actual;
  ASSERT_NO_FATAL_FAILURE(InterpretAndEmulate(text, args, &expected, &actual));
  int64_t differ = 0;
  for (int64_t i = 0; i < static_cast<int64_t>(xs.size()); ++i) {
    for (int part : {0, 1}) {
      std::string want = PartBits<T>(expected, i, part), got = PartBits<T>(actual, i, part);
      if (want != got && ++differ <= 5) {
        ADD_FAILURE() << "(" << xs[i] << ") / (" << ys[i] << ") part " << part << ": libgcc " << want << ", GPU "
                      << got;
      }
    }
  }
  EXPECT_EQ(differ, 0) << "of " << xs.size() << " quotients";
}

TEST(GpuComplexTest, DivisionIsLibgccsBitForBit) {
  ExpectDivisionBitForBit<float>(PrimitiveType::kC64);
  ExpectDivisionBitForBit<double>(PrimitiveType::kC128);
}

// Emulated fused and unfused, checked against the interpreter by the numeric check.
void ExpectEmulatorPassesTheCheck(const std::string& text, uint64_t seed) {
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto args = interpreter::RandomArguments(**module, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  check::CheckOptions options;
  auto reference = check::ComputeCheckReference(**module, *args, options);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto emulator = Emulate(**module, fused);
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    check::CheckReport report = check::CheckOutputs(*actual, *reference, *args, options);
    EXPECT_TRUE(report.ok()) << report.Details();
  }
}

std::string FunctionsModule(const std::string& c) {
  return "HloModule m\nENTRY e {\n"
         "  a = f32[64] parameter(0)\n  b = f32[64] parameter(1)\n  c = f32[64] parameter(2)\n"
         "  z0 = c64[64] complex(a, b)\n"
         "  z = " + c + "[64] convert(z0)\n  w0 = c64[64] complex(c, a)\n  w = " + c + "[64] convert(w0)\n"
         "  e1 = " + c + "[64] exponential(z)\n  e2 = " + c + "[64] log(z)\n  e3 = " + c + "[64] sqrt(z)\n"
         "  e4 = " + c + "[64] sine(z)\n  e5 = " + c + "[64] cosine(z)\n  e6 = " + c + "[64] tan(z)\n"
         "  e7 = " + c + "[64] tanh(z)\n  e8 = " + c + "[64] rsqrt(z)\n  e9 = " + c + "[64] logistic(z)\n"
         "  e10 = " + c + "[64] exponential-minus-one(z)\n  e11 = " + c + "[64] log-plus-one(z)\n"
         "  e12 = " + c + "[64] power(z, w)\n  e13 = " + c + "[64] atan2(z, w)\n  e14 = " + c + "[64] sign(z)\n"
         "  e15 = " + c + "[64] divide(z, w)\n  e16 = " + c + "[64] multiply(z, w)\n"
         "  i1 = " + c + "[64] asin(z)\n  i2 = " + c + "[64] acos(z)\n  i3 = " + c + "[64] atan(z)\n"
         "  i4 = " + c + "[64] asinh(z)\n  i5 = " + c + "[64] acosh(z)\n  i6 = " + c + "[64] atanh(z)\n"
         "  r = " + (c == "c64" ? std::string("f32") : std::string("f64")) + "[64] abs(z)\n"
         "  ROOT t = (" + std::string(c) + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c +
         "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c +
         "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + (c == "c64" ? "f32" : "f64") + "[64], " + c +
         "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c + "[64], " + c +
         "[64]) tuple(e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, r, i1, i2, i3, i4, "
         "i5, i6)\n}\n";
}

TEST(GpuComplexTest, FunctionsMatchTheInterpreter) {
  for (const char* c : {"c64", "c128"}) {
    SCOPED_TRACE(c);
    ExpectEmulatorPassesTheCheck(FunctionsModule(c), 3);
  }
}

// The GPU's c64 `functions` of `zs` against glibc's (the interpreter): a NaN, infinite or
// zero part exactly (sign included), others within 4e-7 relative.
void ExpectC64FunctionsNearGlibc(const std::vector<std::string>& functions, const std::vector<std::complex<float>>& zs) {
  const std::string n = std::to_string(zs.size());
  std::string text = "HloModule m\nENTRY e {\n  z = c64[" + n + "] parameter(0)\n";
  std::string types, names;
  for (size_t f = 0; f < functions.size(); ++f) {
    text += "  f" + std::to_string(f) + " = c64[" + n + "] " + functions[f] + "(z)\n";
    types += std::string(f ? ", " : "") + "c64[" + n + "]";
    names += std::string(f ? ", " : "") + "f" + std::to_string(f);
  }
  text += "  ROOT r = (" + types + ") tuple(" + names + ")\n}\n";
  std::vector<Literal> args;
  args.push_back(ComplexVector(PrimitiveType::kC64, zs));
  Literal expected, actual;
  ASSERT_NO_FATAL_FAILURE(InterpretAndEmulate(text, args, &expected, &actual));
  for (size_t f = 0; f < functions.size(); ++f) {
    for (size_t i = 0; i < zs.size(); ++i) {
      const std::complex<double> want = expected.tuple_elements()[f].GetComplex(static_cast<int64_t>(i));
      const std::complex<double> got = actual.tuple_elements()[f].GetComplex(static_cast<int64_t>(i));
      for (int part : {0, 1}) {
        const double w = part == 0 ? want.real() : want.imag();
        const double g = part == 0 ? got.real() : got.imag();
        SCOPED_TRACE(functions[f] + " of (" + std::to_string(zs[i].real()) + (std::signbit(zs[i].imag()) ? ", -" : ", ") +
                     std::to_string(std::abs(zs[i].imag())) + ") part " + std::to_string(part));
        if (std::isnan(w) || std::isinf(w) || w == 0) {
          EXPECT_EQ(std::isnan(g), std::isnan(w)) << "glibc " << w << ", GPU " << g;
          if (!std::isnan(w)) {
            EXPECT_EQ(g, w) << "glibc " << w << ", GPU " << g;
            EXPECT_EQ(std::signbit(g), std::signbit(w)) << "glibc " << w << ", GPU " << g;
          }
        } else {
          EXPECT_NEAR(g, w, 4e-7 * std::abs(w)) << "glibc " << w << ", GPU " << g;
        }
      }
    }
  }
}

// Where the identities alone would give NaN: C99's values, as glibc gives them.
TEST(GpuComplexTest, FunctionsKeepC99sValuesAtInfinitiesAndZeros) {
  const float inf = std::numeric_limits<float>::infinity();
  ExpectC64FunctionsNearGlibc({"exponential", "sqrt", "log", "tanh"},
                              {{0, 0}, {-4, 0}, {-4, -0.0f}, {inf, 0}, {-inf, 0}, {2, inf}, {-2, -inf}, {1, 0},
                               {0.6f, 0.8f}, {30, 1}, {-30, 2}, {400, 1}, {-1000, 0.5f}});
}

// The inverse functions on and beside their branch cuts (the real axis past +-1, the
// imaginary axis past +-i, with either sign of zero), near the branch points, at zero and
// far out.
TEST(GpuComplexTest, InverseFunctionsFollowTheBranchCuts) {
  const float m0 = -0.0f;
  ExpectC64FunctionsNearGlibc({"asin", "acos", "atan", "asinh", "acosh", "atanh"},
                              {{2, 0}, {2, m0}, {-3, 0}, {-3, m0}, {0, 2}, {m0, 2}, {0, -3}, {m0, -3}, {0.5f, 0},
                               {0.5f, m0}, {1, 1e-6f}, {-1, -1e-6f}, {1e-6f, 1}, {0, 0}, {m0, m0}, {1e-20f, -1e-20f},
                               {0.3f, -0.7f}, {-0.9f, 0.2f}, {1e10f, -3e9f}, {-5e12f, 1}});
}

TEST(GpuComplexTest, DotsMatchTheInterpreter) {
  ExpectEmulatorPassesTheCheck(R"(HloModule m
ENTRY e {
  a = f32[4,6] parameter(0)
  b = f32[4,6] parameter(1)
  c = f32[6,3] parameter(2)
  d = f32[6,3] parameter(3)
  x = c64[4,6] complex(a, b)
  y = c64[6,3] complex(c, d)
  ROOT p = c64[4,3] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})", 5);
  ExpectEmulatorPassesTheCheck(R"(HloModule m
ENTRY e {
  a = f64[2,5,7] parameter(0)
  b = f64[2,5,7] parameter(1)
  x = c128[2,5,7] complex(a, b)
  y = c128[2,5,7] complex(b, a)
  ROOT p = c128[2,5,5] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
})", 6);
}

// Complex sums in the reduction kernels (rows a warp or a block each, columns, all
// elements: shuffles and shared memory of {re, im} pairs) and complex convolutions (the
// elemental convolution: cuDNN has no complex type, with or without libraries).
TEST(GpuComplexTest, ReductionsAndConvolutionsMatchTheInterpreter) {
  ExpectEmulatorPassesTheCheck(R"(HloModule m
add {
  a = c64[] parameter(0)
  b = c64[] parameter(1)
  ROOT s = c64[] add(a, b)
}
ENTRY e {
  x = f32[64,1000] parameter(0)
  y = f32[64,1000] parameter(1)
  z = c64[64,1000] complex(x, y)
  zero = c64[] constant((0, 0))
  rows = c64[64] reduce(z, zero), dimensions={1}, to_apply=add
  columns = c64[1000] reduce(z, zero), dimensions={0}, to_apply=add
  all = c64[] reduce(z, zero), dimensions={0,1}, to_apply=add
  ROOT t = (c64[64], c64[1000], c64[]) tuple(rows, columns, all)
})", 8);
  ExpectEmulatorPassesTheCheck(R"(HloModule m
ENTRY e {
  x = f32[2,8,8,6] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  v = f64[2,8,8,6] parameter(2)
  zx = c64[2,8,8,6] complex(x, x)
  zw = c64[3,3,3,4] complex(w, w)
  c = c64[2,8,8,4] convolution(zx, zw), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  zv = c128[2,8,8,6] complex(v, v)
  wv = c128[3,3,3,4] convert(zw)
  d = c128[2,4,4,4] convolution(zv, wv), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  ROOT t = (c64[2,8,8,4], c128[2,4,4,4]) tuple(c, d)
})", 9);
}

// jax programs with complex numbers (tests/data/complex/, scripts/make_complex_testdata.py):
// a state-vector step in c64 and c128 (normalization, phases, a DFT unitary as a complex
// dot, probabilities and entropy, divide, sqrt, power, tanh, cos, sinh, cosh, and the
// inverse functions as jax decomposes them) and a complex filter bank (jax's complex
// convolution as real ones, abs, angle, log1p, expm1). The emulated GPU against the
// outputs XLA's CPU backend gave, judged as `run --expected` judges.
TEST(GpuComplexTest, JaxProgramsMatchXlasOutputs) {
  struct Data {
    const char* name;
    int inputs, outputs;
  };
  for (const Data& d : {Data{"state_step", 4, 7}, Data{"filters", 2, 4}, Data{"state_step_c128", 4, 7}}) {
    SCOPED_TRACE(d.name);
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/complex", d.name, d.inputs, d.outputs, &program));
    const auto& module = program.module;
    const std::vector<Literal>& args = program.args;
    const std::vector<Literal>& want = program.want;
    check::CheckOptions options;
    auto reference = check::ComputeCheckReference(*module, args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    // Fused (a dozen kernels); one kernel per op is 869 of them, 14 s to compile and run
    // here, and each op's kernel is checked unfused in FunctionsMatchTheInterpreter.
    {
      auto emulator = Emulate(*module, /*fused=*/true);
      ASSERT_TRUE(emulator.ok()) << emulator.status().message();
      auto actual = (*emulator)->Run(args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      check::CheckReport report = check::CheckOutputsAgainstExpected(*actual, want, *reference, args, options);
      EXPECT_TRUE(report.ok()) << report.Details();
    }
  }
}

// jax's Fourier transforms (tests/data/fft/, scripts/make_fft_testdata.py: every fft_type,
// one to three dimensions, a long prime, c128, and a convolution through the frequency
// domain) with the GPU's libraries: each `fft` stays an op the runtime hands to cuFFT
// (with the scal of an inverse after it), as XLA's GPU plan has it, and the emulator runs
// it with the plan the runtime would hand cuFFT; against the outputs XLA's CPU backend
// gave, judged as `run --expected` judges. With `--gpu-library=off` the fft-expander's
// dots run instead, to the same outputs (two of the programs).
TEST(GpuComplexTest, FourierTransformsRunThroughCufftsPlans) {
  struct Data {
    const char* name;
    int inputs, ffts;
  };
  for (const Data& d : {Data{"ifft_1000", 1, 1}, Data{"fft_prime_1009", 1, 1}, Data{"rfft2", 1, 1},
                        Data{"irfft_odd", 1, 1}, Data{"fftn_3d", 1, 1}, Data{"fft2_c128", 1, 1},
                        Data{"fft_convolution", 2, 3}}) {
    SCOPED_TRACE(d.name);
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/fft", d.name, d.inputs, 1, &program));
    const std::vector<Literal>& args = program.args;
    check::CheckOptions options;
    auto reference = check::ComputeCheckReference(*program.module, args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    // The fft-expander's side for two of them (all seven take 8 s to compile and emulate).
    const std::string name = d.name;
    for (bool libraries : {true, false}) {
      if (!libraries && name != "irfft_odd" && name != "fft2_c128") continue;
      SCOPED_TRACE(libraries ? "cuFFT" : "fft-expander");
      auto optimized = passes::OptimizeForBackend(*program.module, /*fused=*/true, libraries);
      ASSERT_TRUE(optimized.ok()) << optimized.status().message();
      int ffts = 0, dots = 0;
      for (const auto& c : (*optimized)->computations()) {
        for (const auto& inst : c->instructions()) {
          ffts += inst->opcode() == Opcode::kFft;
          dots += inst->opcode() == Opcode::kDot;
        }
      }
      EXPECT_EQ(ffts, libraries ? d.ffts : 0);
      if (libraries) EXPECT_EQ(dots, 0) << (*optimized)->ToString();
      auto emulator = GpuEmulator::Create(std::move(*optimized));
      ASSERT_TRUE(emulator.ok()) << emulator.status().message();
      auto actual = (*emulator)->Run(args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      check::CheckReport report =
          check::CheckOutputsAgainstExpected(*actual, program.want, *reference, args, options);
      EXPECT_TRUE(report.ok()) << report.Details();
    }
  }
}

// jax's triangular solves (tests/data/linalg/: jax.scipy.linalg.solve_triangular, its
// LAPACK trsm calls lowered to `triangular-solve` on the GPU) with the GPU's libraries:
// each solve stays an op the runtime hands to cuBLAS's trsm, as XLA's GPU plan has it
// (no while loop of linalg-expander's), and the emulator runs it with the plan the
// runtime would hand cuBLAS; against the outputs XLA's CPU backend gave. Then complex
// solves (which jax's complex LAPACK calls cannot reach on the GPU: they have no plain-HLO
// model) written as HLO, batched, against the interpreter.
TEST(GpuComplexTest, TriangularSolvesRunThroughCublasTrsmPlans) {
  for (const char* name : {"solve_triangular_trans_unit", "solve_triangular_upper_right"}) {
    SCOPED_TRACE(name);
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/linalg", name, 2, 1, &program));
    check::CheckOptions options;
    auto reference = check::ComputeCheckReference(*program.module, program.args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    auto optimized = passes::OptimizeForBackend(*program.module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    int solves = 0, loops = 0;
    for (const auto& c : (*optimized)->computations()) {
      for (const auto& inst : c->instructions()) {
        solves += inst->opcode() == Opcode::kTriangularSolve;
        loops += inst->opcode() == Opcode::kWhile;
      }
    }
    EXPECT_EQ(solves, 1) << (*optimized)->ToString();
    EXPECT_EQ(loops, 0) << (*optimized)->ToString();
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(program.args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    check::CheckReport report =
        check::CheckOutputsAgainstExpected(*actual, program.want, *reference, program.args, options);
    EXPECT_TRUE(report.ok()) << report.Details();
  }
  const std::string complex_solves = R"(HloModule m
ENTRY e {
  a = c64[3,6,6] parameter(0)
  b = c64[3,6,4] parameter(1)
  z = c128[5,5] parameter(2)
  y = c128[2,5] parameter(3)
  l = c64[3,6,4] triangular-solve(a, b), left_side=true, lower=true, transpose_a=ADJOINT
  r = c128[2,5] triangular-solve(z, y), left_side=false, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  ROOT t = (c64[3,6,4], c128[2,5]) tuple(l, r)
})";
  auto module = ParseModule(complex_solves);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args = testing_util::TriangularSolveArguments(**module);
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  auto emulator = GpuEmulator::Create(std::move(*optimized));
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  auto actual = (*emulator)->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kC64));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
}

// XLA's own GPU modules hand each triangular solve to cuBLAS as a `__cublas$triangularSolve`
// call: (a, b) -> (x, s8 scratch for the batch's pointer arrays), the options as
// TriangularSolveOptions JSON whose false fields XLA leaves out, the operands in Fortran
// layouts. Such a module gives what the same solves as `triangular-solve` ops give (bit for
// bit in the interpreter), and with the GPU's libraries each call is one solve op the
// runtime hands to trsm (no custom call left, no loop); options it cannot read are an error
// naming the call. (The H200 run of 2026-12-04 refused XLA's plans of jax's solve, inv and
// cho_solve: "custom-call target __cublas$triangularSolve ... not supported".)
TEST(GpuComplexTest, XlasCublasTriangularSolveCallsRunAsTrsm) {
  const std::string xla = R"(HloModule m
ENTRY e {
  a = f32[3,6,6]{1,2,0} parameter(0)
  b = f32[3,6,4]{1,2,0} parameter(1)
  z = f32[5,5]{0,1} parameter(2)
  y = f32[2,5]{0,1} parameter(3)
  l = (f32[3,6,4]{1,2,0}, s8[48]{0}) custom-call(a, b), custom_call_target="__cublas$triangularSolve", backend_config={"left_side":true,"lower":true,"transpose_a":"NO_TRANSPOSE"}
  r = (f32[2,5]{0,1}, s8[0]{0}) custom-call(z, y), custom_call_target="__cublas$triangularSolve", backend_config={"unit_diagonal":true,"transpose_a":"TRANSPOSE"}
  lx = f32[3,6,4]{1,2,0} get-tuple-element(l), index=0
  rx = f32[2,5]{0,1} get-tuple-element(r), index=0
  ROOT t = (f32[3,6,4]{1,2,0}, f32[2,5]{0,1}) tuple(lx, rx)
})";
  const std::string plain = R"(HloModule m
ENTRY e {
  a = f32[3,6,6] parameter(0)
  b = f32[3,6,4] parameter(1)
  z = f32[5,5] parameter(2)
  y = f32[2,5] parameter(3)
  l = f32[3,6,4] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  r = f32[2,5] triangular-solve(z, y), left_side=false, lower=false, unit_diagonal=true, transpose_a=TRANSPOSE
  ROOT t = (f32[3,6,4], f32[2,5]) tuple(l, r)
})";
  auto module = ParseModule(xla);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto reference = ParseModule(plain);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  std::vector<Literal> args = testing_util::TriangularSolveArguments(**reference);
  auto expected = interpreter::Interpreter().Run(**reference, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto interpreted = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  EXPECT_TRUE(interpreter::CompareLiterals(*interpreted, *expected, interpreter::CompareOptions{.atol = 0, .rtol = 0}).ok());
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  int solves = 0, calls = 0, loops = 0;
  for (const auto& c : (*optimized)->computations()) {
    for (const auto& inst : c->instructions()) {
      solves += inst->opcode() == Opcode::kTriangularSolve;
      calls += inst->opcode() == Opcode::kCustomCall;
      loops += inst->opcode() == Opcode::kWhile;
    }
  }
  EXPECT_EQ(solves, 2) << (*optimized)->ToString();
  EXPECT_EQ(calls, 0) << (*optimized)->ToString();
  EXPECT_EQ(loops, 0) << (*optimized)->ToString();
  auto emulator = GpuEmulator::Create(std::move(*optimized));
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  auto actual = (*emulator)->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  interpreter::CompareResult cmp =
      interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
  // Options XLA never writes are refused by name.
  std::string bad = xla;
  bad.replace(bad.find("\"NO_TRANSPOSE\""), 14, "\"CONJUGATE\"");
  auto refused = ParseModule(bad);
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  auto run = interpreter::Interpreter().Run(**refused, args);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), ::testing::HasSubstr("%l"));
  EXPECT_THAT(run.status().message(), ::testing::HasSubstr("transpose_a \"CONJUGATE\""));
}

// jax's GPU Cholesky, LU and QR (cusolver_potrf_ffi, cusolver_getrf_ffi,
// cusolver_geqrf_ffi and cusolver_orgqr_ffi) with the GPU's libraries: each is one call of
// the routine jaxlib picks (potrfBatched for a batch, potrf for one matrix, cuBLAS's
// getrfBatched for several small square ones, cuSOLVER's getrf otherwise; cuBLAS's
// geqrfBatched for a batch of small matrices, cuSOLVER's geqrf otherwise, then orgqr, or
// for a batch of matrices up to 128 x 128 Fusebox's kernel as jaxlib's own kernel;
// syevj, syevjBatched or syevd for eigh, gesvdj or gesvdjBatched for the SVD, the
// programs' outputs free of the vectors' signs), no while loop is left (jax's pivots-to-permutation after the
// LU in solve is one kernel), and the emulator, running each plan on the host as the
// solvers define it, gives what XLA's CPU backend gave.
TEST(GpuComplexTest, FactorizationsRunThroughSolverPlans) {
  using R = SolverRoutine;
  struct Case {
    const char* name;
    int inputs, outputs;
    std::vector<SolverRoutine> routines;  // in the module's order
    int trsm;
    int orgqr_kernels = 0;  // orgqr calls run as Fusebox's kernel (jaxlib's small batched one)
  };
  for (const Case& c : {Case{"gpu_cholesky", 1, 1, {R::kPotrfBatched}, 0}, Case{"gpu_cho_solve", 2, 1, {R::kPotrf}, 2},
                        Case{"gpu_lu_factor", 1, 2, {R::kGetrfBatched}, 0}, Case{"gpu_det_single", 1, 1, {R::kGetrf}, 0},
                        Case{"gpu_lu_wide", 1, 1, {R::kGetrf}, 0}, Case{"gpu_solve", 2, 1, {R::kGetrfBatched}, 2},
                        Case{"gpu_qr", 1, 2, {R::kGeqrf, R::kOrgqr}, 0},
                        Case{"gpu_qr_batched", 1, 2, {R::kGeqrfBatched}, 0, 1},
                        Case{"gpu_qr_complete", 1, 2, {R::kGeqrf, R::kOrgqr}, 0},
                        Case{"gpu_qr_wide", 1, 2, {R::kGeqrf, R::kOrgqr}, 0},
                        Case{"gpu_eigh_reconstruct", 1, 2, {R::kSyevj}, 0},
                        Case{"gpu_eigh_batched", 1, 2, {R::kSyevjBatched}, 0},
                        Case{"gpu_eigh_large", 1, 2, {R::kSyevBatched}, 0},
                        Case{"gpu_pinv", 1, 1, {R::kGesvdj}, 0},
                        Case{"gpu_svd_econ", 1, 2, {R::kGesvdj}, 0},
                        Case{"gpu_svd_batched", 1, 2, {R::kGesvdjBatched}, 0}}) {
    SCOPED_TRACE(c.name);
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/linalg", c.name, c.inputs, c.outputs, &program));
    auto optimized = passes::OptimizeForBackend(*program.module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    int solves = 0, loops = 0, orgqr_kernels = 0;
    std::vector<SolverRoutine> routines;
    for (const Computation* computation : ProgramComputations(**optimized)) {
      for (const Instruction* inst : computation->PostOrder()) {
        solves += inst->opcode() == Opcode::kTriangularSolve;
        loops += inst->opcode() == Opcode::kWhile;
        orgqr_kernels += OrgqrRunsAsKernel(*inst);
        if (!IsSolverCall(*inst)) continue;
        auto plan = PlanSolverCall(*inst);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        routines.push_back(plan->routine);
      }
    }
    EXPECT_EQ(routines, c.routines) << (*optimized)->ToString();
    EXPECT_EQ(orgqr_kernels, c.orgqr_kernels) << (*optimized)->ToString();
    EXPECT_EQ(solves, c.trsm) << (*optimized)->ToString();
    EXPECT_EQ(loops, 0) << (*optimized)->ToString();
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(program.args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    testing_util::ExpectMatchesXla(*actual, program.want, PrimitiveType::kF32);
  }
}

// jaxlib's small batched orgqr (a batch of Q's up to 128 x 128) is one launch of Fusebox's
// kernel, a block a matrix and a thread a column: fewer reflectors than columns, f32 and
// f64, against the interpreter's Householder model; one matrix, or a side over 128, stays
// cuSOLVER's orgqr.
TEST(GpuComplexTest, SmallBatchedOrgqrIsOneKernel) {
  for (const char* type : {"f32", "f64"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = )" + t + R"([3,7,5] parameter(0)
  taus = )" + t + R"([3,4] parameter(1)
  ROOT q = )" + t + R"([3,7,5] custom-call(a, taus), custom_call_target="cusolver_orgqr_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
})");
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto args = interpreter::RandomArguments(**module, 5);
    ASSERT_TRUE(args.ok());
    auto expected = interpreter::Interpreter().Run(**module, *args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    int kernels = 0, solvers = 0, loops = 0;
    for (const auto& computation : (*optimized)->computations()) {
      for (const auto& inst : computation->instructions()) {
        kernels += OrgqrRunsAsKernel(*inst);
        solvers += IsSolverCall(*inst);
        loops += inst->opcode() == Opcode::kWhile;
      }
    }
    EXPECT_EQ(kernels, 1) << (*optimized)->ToString();
    EXPECT_EQ(solvers, 0);
    EXPECT_EQ(loops, 0);
    auto code = CompileForGpu(**optimized);
    ASSERT_TRUE(code.ok()) << code.status().message();
    bool found = false;
    for (const auto& kernel : (*code)->kernels()) {
      if (kernel->kind_name != "orgqr(small batched)") continue;
      found = true;
      ASSERT_EQ(kernel->launches.size(), 1u);
      EXPECT_EQ(kernel->launches[0].grid[0], 3) << "a block a matrix";
      EXPECT_EQ(kernel->launches[0].block[0], 32) << "a thread a column, a warp at least";
    }
    EXPECT_TRUE(found);
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    interpreter::CompareResult cmp = interpreter::CompareLiterals(
        *actual, *expected, interpreter::DefaultToleranceFor(t == "f32" ? PrimitiveType::kF32 : PrimitiveType::kF64));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString();
  }
  for (const char* dims : {"[1,7,5]", "[2,129,4]"}) {
    SCOPED_TRACE(dims);
    const std::string d = dims;
    const std::string taus = d == "[1,7,5]" ? "[1,4]" : "[2,4]";
    auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f32)" + d + R"( parameter(0)
  taus = f32)" + taus + R"( parameter(1)
  ROOT q = f32)" + d + R"( custom-call(a, taus), custom_call_target="cusolver_orgqr_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
})");
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    int kernels = 0, solvers = 0;
    for (const auto& computation : (*optimized)->computations()) {
      for (const auto& inst : computation->instructions()) {
        kernels += OrgqrRunsAsKernel(*inst);
        solvers += IsSolverCall(*inst);
      }
    }
    EXPECT_EQ(kernels, 0);
    EXPECT_EQ(solvers, 1);
  }
}

// A call jaxlib's routine cannot take (the batched Jacobi eigh beyond 32 x 32, which jax's
// algorithm = 2 asks for) keeps Fusebox's loops with libraries on: the GPU module still
// compiles, with no solver call left.
TEST(GpuComplexTest, CallsTheSolversRefuseKeepFuseboxsLoops) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2,40,40] parameter(0)
  ROOT eigh = (f32[2,40,40], f32[2,40], s32[2]) custom-call(a), custom_call_target="cusolver_syevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={algorithm = 2 : ui8, lower = true}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  int solvers = 0, loops = 0;
  for (const auto& computation : (*optimized)->computations()) {
    for (const auto& inst : computation->instructions()) {
      solvers += IsSolverCall(*inst);
      loops += inst->opcode() == Opcode::kWhile;
    }
  }
  EXPECT_EQ(solvers, 0) << (*optimized)->ToString();
  EXPECT_GT(loops, 0);
  auto code = CompileForGpu(**optimized);
  EXPECT_TRUE(code.ok()) << code.status().message();
}

// jax's eigh and SVD calls as the GPU runs them with libraries (the emulator runs the
// solver plans on the host: each vector's largest entry positive, as a solver may choose),
// their raw vectors returned, checked against the interpreter, whose Jacobi model picks
// other signs: the check aligns each vector's sign before comparing (numeric_check.h) and
// passes; without the alignment the same results fail. The SVD's U is full with one column
// past min(m, n) (unique up to sign), its V returned as Vᵀ.
TEST(GpuComplexTest, SolverVectorsCheckUpToTheirSigns) {
  const char* eigh = R"(HloModule m
ENTRY e {
  a = f32[3,6,6] parameter(0)
  at = f32[3,6,6] transpose(a), dimensions={0,2,1}
  s = f32[3,6,6] add(a, at)
  eigh = (f32[3,6,6]{1,2,0}, f32[3,6]{1,0}, s32[3]{0}) custom-call(s), custom_call_target="cusolver_syevd_ffi", operand_layout_constraints={f32[3,6,6]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={algorithm = 0 : ui8, lower = true}
  v = f32[3,6,6] get-tuple-element(eigh), index=0
  w = f32[3,6] get-tuple-element(eigh), index=1
  ROOT t = (f32[3,6], f32[3,6,6]) tuple(w, v)
})";
  const char* svd = R"(HloModule m
ENTRY e {
  a = f32[3,5,4] parameter(0)
  svd = (f32[3,5,4]{1,2,0}, f32[3,4]{1,0}, f32[3,5,5]{1,2,0}, f32[3,4,4]{1,2,0}, s32[3]{0}) custom-call(a), custom_call_target="cusolver_gesvdj_ffi", operand_layout_constraints={f32[3,5,4]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_uv = true, full_matrices = true}
  s = f32[3,4] get-tuple-element(svd), index=1
  u = f32[3,5,5] get-tuple-element(svd), index=2
  v = f32[3,4,4] get-tuple-element(svd), index=3
  vt = f32[3,4,4] transpose(v), dimensions={0,2,1}
  ROOT t = (f32[3,4], f32[3,5,5], f32[3,4,4]) tuple(s, u, vt)
})";
  for (const char* text : {eigh, svd}) {
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto args = interpreter::RandomArguments(**module, 3);
    ASSERT_TRUE(args.ok()) << args.status().message();
    check::CheckOptions options;
    auto reference = check::ComputeCheckReference(**module, *args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    check::CheckReport report = check::CheckOutputs(*actual, *reference, *args, options);
    EXPECT_TRUE(report.passed()) << report.Details();
    int64_t flipped = 0;
    for (size_t k = 1; k < report.outputs.size(); ++k) {
      flipped += report.outputs[k].sign_flipped_vectors;
      EXPECT_GT(report.outputs[k].sign_free_vectors, 0) << report.Details();
      EXPECT_EQ(report.outputs[k].basis_free, 0) << report.Details();
      EXPECT_EQ(report.outputs[k].verdict, check::OutputVerdict::kCompared) << report.Details();
    }
    EXPECT_GT(flipped, 0) << "the two sides chose no sign apart: this tests nothing\n" << report.Details();
    check::CheckReference unaligned = *reference;
    unaligned.sign_free.clear();
    EXPECT_FALSE(check::CheckOutputs(*actual, unaligned, *args, options).ok());
  }
}

// Every jax GPU linear-algebra program of tests/data/linalg (Cholesky, LU, QR, eigh, SVD,
// pinv: jax's cuSOLVER calls) as `fusebox run --backend gpu --check` checks it with the
// GPU's libraries, on the emulator (the solver plans run on the host, the vectors' signs
// their own): the reference runs the calls LAPACK answers alike through LAPACK (QR, eigh
// and the SVD included), the comparison aligns the vectors' signs, and every program's
// check passes with every output counted; so does the comparison with XLA's own outputs
// (the H200's cuSOLVER). A false alarm of the check, or a check that counts nothing, fails
// here without a GPU.
TEST(GpuComplexTest, JaxGpuLinalgProgramsCheckOnTheEmulator) {
  struct Case {
    const char* name;
    int inputs, outputs;
  };
  for (const Case& c : {Case{"gpu_cholesky", 1, 1}, Case{"gpu_cho_solve", 2, 1}, Case{"gpu_lu_factor", 1, 2},
                        Case{"gpu_det_single", 1, 1}, Case{"gpu_lu_wide", 1, 1}, Case{"gpu_solve", 2, 1},
                        Case{"gpu_qr", 1, 2}, Case{"gpu_qr_batched", 1, 2}, Case{"gpu_qr_complete", 1, 2},
                        Case{"gpu_qr_wide", 1, 2}, Case{"gpu_eigh_reconstruct", 1, 2}, Case{"gpu_eigh_batched", 1, 2},
                        Case{"gpu_eigh_large", 1, 2}, Case{"gpu_pinv", 1, 1}, Case{"gpu_svd_econ", 1, 2},
                        Case{"gpu_svd_batched", 1, 2}}) {
    SCOPED_TRACE(c.name);
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/linalg", c.name, c.inputs, c.outputs, &program));
    check::CheckOptions options;
    options.interpreter.library_call = runtime::RunLapackOnLiterals;
    options.interpreter.library_call_gpu_twins_only = true;
    options.interpreter.library_call_gpu_vector_twins = true;
    auto reference = check::ComputeCheckReference(*program.module, program.args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    auto optimized = passes::OptimizeForBackend(*program.module, /*fused=*/true, /*gpu_libraries=*/true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(program.args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    check::CheckReport report = check::CheckOutputs(*actual, *reference, program.args, options);
    EXPECT_TRUE(report.passed()) << report.Details();
    EXPECT_EQ(report.compared_outputs(), c.outputs) << report.Details();
    check::CheckReport xla = check::CheckOutputsAgainstExpected(*actual, program.want, *reference, program.args, options);
    EXPECT_TRUE(xla.passed()) << xla.Details();
  }
}

// XLA's own `cholesky` op with the GPU's libraries becomes cuSOLVER's potrf and XLA's
// select: the factors match the interpreter's (lower and upper, f32 batched and c128),
// the other triangle zero, and a matrix that is not positive definite comes out all NaN,
// as XLA's GPU (and CPU) backends give it, where its neighbours in the batch are factored.
TEST(GpuComplexTest, CholeskyOpsRunThroughPotrf) {
  auto module = ParseModule(testing_util::kCholeskyOpsModule);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args = testing_util::CholeskyOpsArguments();
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  int potrf = 0, loops = 0;
  for (const auto& computation : (*optimized)->computations()) {
    for (const auto& inst : computation->instructions()) {
      potrf += IsSolverCall(*inst);
      loops += inst->opcode() == Opcode::kWhile;
    }
  }
  EXPECT_EQ(potrf, 2) << (*optimized)->ToString();
  EXPECT_EQ(loops, 0) << (*optimized)->ToString();
  auto emulator = GpuEmulator::Create(std::move(*optimized));
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  auto actual = (*emulator)->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  testing_util::ExpectCholeskyOpsResult(*actual, *expected);
}

// The same kernels as PTX for sm_90, which ptxas assembles: no C library call is left.
TEST(GpuComplexTest, KernelsAssembleForSm90) {
  for (const char* c : {"c64", "c128"}) {
    SCOPED_TRACE(c);
    auto module = ParseModule(FunctionsModule(c));
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto optimized = passes::OptimizeForBackend(**module, true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    GpuCompileOptions options;
    options.arch = "sm_90";
    auto code = CompileForGpu(**optimized, options);
    if (!code.ok() && code.status().message().find("libdevice") != std::string::npos) {
      GTEST_SKIP() << code.status().message();
    }
    ASSERT_TRUE(code.ok()) << code.status().message();
    EXPECT_EQ((*code)->ptx().find("__divsc3"), std::string::npos);
    EXPECT_EQ((*code)->ptx().find("cexp"), std::string::npos);
    if (!FindPtxas().ok()) continue;
    auto assembled = AssemblePtx((*code)->ptx(), "sm_90");
    EXPECT_TRUE(assembled.ok()) << assembled.status().message();
  }
}

}  // namespace
}  // namespace fusebox::codegen
