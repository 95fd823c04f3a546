// Accuracy of the CPU backend's inline f32 math (compiler/codegen/elemental_math.cc) in
// ulps, over every f32 input: the JIT-compiled kernel runs on all 2^32 bit patterns (odd
// and even functions: all 2^31 non-negative ones and every 61st negative one, sin and cos
// every 4th from 2^27 up; the binary
// atan2 and pow: one argument over every 7th or 17th pattern for fixed values of the
// other, plus random pairs and every pair of special values; rsqrt, two correctly rounded
// instructions, every 5th pattern) and each result is compared
// with (float)f((double)x) from glibc's double functions, more accurate than its float
// ones. NaN must give NaN, infinities and signed zeros must match exactly, every other
// result must lie within the function's stated bound (docs/cpu-backend.md).
//
// Cost: one compiled executable per function runs 2^24 elements a call; the reference
// and the comparison run on every hardware thread. The sanitizer build samples every
// 4093rd input instead (FUSEBOX_SANITIZED), as its process is ~10x slower.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "tests/compiler/runtime/cpu_test_util.h"

namespace fusebox {
namespace {

using testing_util::CompileCpu;
using testing_util::ParseOrFail;

constexpr int64_t kChunk = int64_t{1} << 24;
#ifdef FUSEBOX_SANITIZED
constexpr uint64_t kSample = 4093;
#else
constexpr uint64_t kSample = 1;
#endif

unsigned Threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs fn(begin, end) over [0, n) split across the hardware threads.
template <typename Fn>
void ParallelFor(int64_t n, Fn fn) {
  const int64_t parts = Threads();
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] { fn(n * p / parts, n * (p + 1) / parts); });
  }
  for (std::thread& t : threads) t.join();
}

// A position on the line of floats where consecutive values are one apart (-0 and +0
// share 0), so the distance of two finite values or infinities is their ulp difference.
int64_t Ordered(float v) {
  const int32_t bits = std::bit_cast<int32_t>(v);
  return bits < 0 ? -static_cast<int64_t>(bits & 0x7FFFFFFF) : bits;
}

struct Accuracy {
  int64_t checked = 0;
  int64_t max_ulp = 0;
  float worst_x = 0, worst_y = 0;
  int64_t special_mismatches = 0;  // NaN, or a zero's sign, where the reference differs
  std::string first_special;

  void Add(float x, float y, float got, float want) {
    ++checked;
    const bool nan_got = std::isnan(got), nan_want = std::isnan(want);
    const bool zeros = got == 0 && want == 0;
    if (nan_got || nan_want || (zeros && std::signbit(got) != std::signbit(want))) {
      if (nan_got && nan_want) return;
      if (special_mismatches++ == 0) {
        char text[160];
        std::snprintf(text, sizeof(text), "f(%.9g, %.9g) = %.9g, expected %.9g", x, y, got, want);
        first_special = text;
      }
      return;
    }
    const int64_t ulps = std::abs(Ordered(got) - Ordered(want));
    if (ulps > max_ulp) {
      max_ulp = ulps;
      worst_x = x;
      worst_y = y;
    }
  }
  void Merge(const Accuracy& other) {
    checked += other.checked;
    if (other.max_ulp > max_ulp) {
      max_ulp = other.max_ulp;
      worst_x = other.worst_x;
      worst_y = other.worst_y;
    }
    if (special_mismatches == 0) first_special = other.first_special;
    special_mismatches += other.special_mismatches;
  }
};

// One compiled kernel `op` over f32[kChunk] (one or two operands), fed chunk by chunk.
class MathKernel {
 public:
  MathKernel(const std::string& op, int arity) : arity_(arity) {
    const std::string shape = "f32[" + std::to_string(kChunk) + "]";
    std::string name = op;
    std::replace(name.begin(), name.end(), '-', '_');
    std::string text =
        "HloModule " + name + "_accuracy\n\nENTRY e {\n  x = " + shape + " parameter(0)\n";
    if (arity == 2) text += "  y = " + shape + " parameter(1)\n";
    text += "  ROOT r = " + shape + " " + op + "(x" + (arity == 2 ? ", y" : "") + ")\n}\n";
    auto module = ParseOrFail(text);
    if (module == nullptr) return;
    auto exe = CompileCpu(*module, /*fused=*/false, static_cast<int>(Threads()));
    EXPECT_TRUE(exe.ok()) << exe.status().message();
    if (exe.ok()) exe_ = std::move(*exe);
  }
  bool ok() const { return exe_ != nullptr; }
  const std::string& optimized_ir() const { return exe_->code().llvm_ir_optimized(); }

  // Results for the first `n` elements of x (and y), valid until the next Run; null when
  // the run failed.
  const float* Run(const std::vector<uint32_t>& x, const std::vector<uint32_t>& y, int64_t n) {
    while (static_cast<int>(args_.size()) < arity_)
      args_.emplace_back(Shape(PrimitiveType::kF32, {kChunk}));
    for (int k = 0; k < arity_; ++k) {
      std::memcpy(args_[k].untyped_data(), (k == 0 ? x : y).data(), static_cast<size_t>(n) * 4);
      std::memset(args_[k].untyped_data() + n * 4, 0, static_cast<size_t>(kChunk - n) * 4);
    }
    const Status ran = exe_->RunInto(args_, result_);
    EXPECT_TRUE(ran.ok()) << ran.message();
    if (!ran.ok()) return nullptr;
    return reinterpret_cast<const float*>(result_.untyped_data());
  }

 private:
  int arity_;
  std::vector<Literal> args_;
  Literal result_;  // reused: a fresh 64 MiB result per call would cost its page faults
  std::unique_ptr<runtime::CpuExecutable> exe_;
};

// Input i of `count` as bit patterns of x and y (`inputs`) through every kernel;
// reference(x, y, want) sets want[k], kernel k's function in double. Kernels that share
// a reference call (sin and cos: sincos) share its cost.
template <typename Inputs, typename Reference>
std::vector<Accuracy> Measure(const std::vector<MathKernel*>& kernels, int64_t count, Inputs inputs,
                              Reference reference) {
  const size_t functions = kernels.size();
  std::vector<Accuracy> total(functions);
  std::vector<uint32_t> x(kChunk), y(kChunk);
  for (int64_t first = 0; first < count; first += kChunk) {
    const int64_t n = std::min(kChunk, count - first);
    ParallelFor(n, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) inputs(first + i, x[i], y[i]);
    });
    std::vector<const float*> got;
    for (MathKernel* kernel : kernels) {
      got.push_back(kernel->Run(x, y, n));
      if (got.back() == nullptr) return total;
    }
    std::vector<std::vector<Accuracy>> parts(Threads(), std::vector<Accuracy>(functions));
    std::vector<std::thread> threads;
    const int64_t part_count = static_cast<int64_t>(parts.size());
    for (int64_t p = 0; p < part_count; ++p) {
      threads.emplace_back([&, p] {
        std::vector<double> want(functions);
        for (int64_t i = n * p / part_count; i < n * (p + 1) / part_count; ++i) {
          const float xf = std::bit_cast<float>(x[i]), yf = std::bit_cast<float>(y[i]);
          reference(xf, yf, want.data());
          for (size_t k = 0; k < functions; ++k) {
            parts[p][k].Add(xf, yf, got[k][i], static_cast<float>(want[k]));
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (const std::vector<Accuracy>& part : parts) {
      for (size_t k = 0; k < functions; ++k) total[k].Merge(part[k]);
    }
  }
  return total;
}

// Bit patterns [begin, end) every `stride` (times kSample in the sanitizer build).
struct Sweep {
  uint64_t begin, end, stride;
  int64_t count() const { return static_cast<int64_t>((end - begin + Stride() - 1) / Stride()); }
  uint64_t Stride() const { return stride * kSample; }
  uint32_t at(int64_t i) const {
    return static_cast<uint32_t>(begin + static_cast<uint64_t>(i) * Stride());
  }
};

// x = the sweep's patterns, y = 0.
auto SweepInputs(Sweep sweep) {
  return [sweep](int64_t i, uint32_t& x, uint32_t& y) {
    x = sweep.at(i);
    y = 0;
  };
}

constexpr uint64_t kAll = uint64_t{1} << 32;
constexpr uint64_t kNegative = uint64_t{1} << 31;

// `op` against `reference` over `sweeps` of x; expects no special mismatch and at most
// `bound` ulps, and that the kernel calls no libm function `libm` (vector code instead).
// Expects no special mismatch and at most `bound` ulps; prints the measurement.
void Report(const std::string& op, const Accuracy& total, int64_t bound) {
  std::printf("f32 %s: %lld inputs, max error %lld ulp (at %.9g = 0x%08x, %.9g = 0x%08x)\n",
              op.c_str(), static_cast<long long>(total.checked),
              static_cast<long long>(total.max_ulp), total.worst_x,
              std::bit_cast<uint32_t>(total.worst_x), total.worst_y,
              std::bit_cast<uint32_t>(total.worst_y));
  EXPECT_GT(total.checked, 0);
  EXPECT_EQ(total.special_mismatches, 0) << total.first_special;
  EXPECT_LE(total.max_ulp, bound) << "at " << total.worst_x << ", " << total.worst_y;
}

// The kernel calls no libm function `libm` (f32 name) nor libmvec, and is vector code of
// `element` (" x double>": the inline math works in double).
void ExpectInlineVectorCode(const MathKernel& kernel, const std::string& libm,
                            const std::string& element) {
  const std::string& ir = kernel.optimized_ir();
  EXPECT_EQ(ir.find("@" + libm + "f("), std::string::npos) << "calls " << libm << "f";
  EXPECT_EQ(ir.find("@_ZGV"), std::string::npos) << "calls libmvec";
  EXPECT_NE(ir.find(element), std::string::npos) << "is not vectorized";
}

// `op` against `reference` over `sweeps` of x, within `bound` ulps.
template <typename Reference>
void CheckUnary(const std::string& op, const std::string& libm, const std::vector<Sweep>& sweeps,
                Reference reference, int64_t bound, const std::string& element = " x double>") {
  MathKernel kernel(op, 1);
  ASSERT_TRUE(kernel.ok());
  ExpectInlineVectorCode(kernel, libm, element);
  Accuracy total;
  for (const Sweep& sweep : sweeps) {
    total.Merge(Measure(
        {&kernel}, sweep.count(), SweepInputs(sweep),
        [&](float x, float, double* want) { want[0] = reference(static_cast<double>(x)); })[0]);
  }
  Report(op, total, bound);
}

// Inputs of a binary function: `count` pairs of bit patterns made by `pair`.
struct Pairs {
  int64_t count;
  std::function<void(int64_t, uint32_t&, uint32_t&)> pair;
};

// One operand over `sweep`, the other fixed at `value`.
Pairs SweepFirst(Sweep sweep, float value) {
  return {sweep.count(), [sweep, value](int64_t i, uint32_t& x, uint32_t& y) {
            x = sweep.at(i);
            y = std::bit_cast<uint32_t>(value);
          }};
}
Pairs SweepSecond(Sweep sweep, float value) {
  return {sweep.count(), [sweep, value](int64_t i, uint32_t& x, uint32_t& y) {
            y = sweep.at(i);
            x = std::bit_cast<uint32_t>(value);
          }};
}

uint64_t Mix(uint64_t v) {  // splitmix64's finalizer
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
  return v ^ (v >> 31);
}

// Random pairs: all bit patterns, and values of magnitude 2^-e_span .. 2^e_span (both
// signs), half of the second operands rounded to integers.
Pairs RandomPairs(int64_t count, int e_span) {
  const int64_t n = std::max<int64_t>(1, count / static_cast<int64_t>(kSample));
  return {n, [e_span](int64_t i, uint32_t& x, uint32_t& y) {
            const uint64_t r = Mix(static_cast<uint64_t>(i) + 0x9E3779B97F4A7C15ull);
            if (e_span == 0) {
              x = static_cast<uint32_t>(r);
              y = static_cast<uint32_t>(r >> 32);
              return;
            }
            auto moderate = [e_span](uint32_t bits) {
              const uint32_t exponent = 127 - e_span + (bits >> 9) % (2 * e_span + 1);
              return (bits & 0x807FFFFF) | (exponent << 23);
            };
            x = moderate(static_cast<uint32_t>(r));
            y = moderate(static_cast<uint32_t>(r >> 32));
            if (r & 1) y = std::bit_cast<uint32_t>(std::nearbyint(std::bit_cast<float>(y)));
          }};
}

// Every pair of special values: zeros, infinities, NaNs, ±1, subnormals, the extremes,
// small integers odd and even, halves.
Pairs SpecialPairs() {
  static const std::vector<float> kSpecial = [] {
    std::vector<float> v;
    for (float f : {0.0f,
                    1.0f,
                    0.5f,
                    1.5f,
                    2.0f,
                    3.0f,
                    0.75f,
                    1e-45f,
                    1.17549435e-38f,
                    3.40282347e38f,
                    std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN(),
                    16777215.0f,
                    16777216.0f,
                    1e10f,
                    1.00000012f,
                    0.99999994f,
                    127.0f,
                    128.0f,
                    -149.5f}) {
      v.push_back(f);
      v.push_back(-f);
    }
    return v;
  }();
  const int64_t n = static_cast<int64_t>(kSpecial.size());
  return {n * n, [n](int64_t i, uint32_t& x, uint32_t& y) {
            x = std::bit_cast<uint32_t>(kSpecial[static_cast<size_t>(i / n)]);
            y = std::bit_cast<uint32_t>(kSpecial[static_cast<size_t>(i % n)]);
          }};
}

template <typename Reference>
void CheckBinary(const std::string& op, const std::string& libm, const std::vector<Pairs>& inputs,
                 Reference reference, int64_t bound) {
  MathKernel kernel(op, 2);
  ASSERT_TRUE(kernel.ok());
  ExpectInlineVectorCode(kernel, libm, " x double>");
  Accuracy total;
  for (const Pairs& pairs : inputs) {
    total.Merge(Measure({&kernel}, pairs.count, pairs.pair, [&](float x, float y, double* want) {
      want[0] = reference(static_cast<double>(x), static_cast<double>(y));
    })[0]);
  }
  Report(op, total, bound);
}

// All non-negative patterns and a sample of the negative ones: for odd and even
// functions, whose code works on |x| and sets the sign by copysign or not at all.
const std::vector<Sweep> kSymmetric = {{0, kNegative, 1}, {kNegative, kAll, 61}};
const std::vector<Sweep> kEvery = {{0, kAll, 1}};

TEST(CpuMathAccuracyTest, Tanh) {
  CheckUnary(
      "tanh", "tanh", kSymmetric, [](double x) { return std::tanh(x); }, 1, " x float>");
}

TEST(CpuMathAccuracyTest, Erf) {
  CheckUnary(
      "erf", "erf", kSymmetric, [](double x) { return std::erf(x); }, 1);
}

TEST(CpuMathAccuracyTest, Expm1) {
  CheckUnary(
      "exponential-minus-one", "expm1", kEvery, [](double x) { return std::expm1(x); }, 1);
}

TEST(CpuMathAccuracyTest, Log1p) {
  CheckUnary(
      "log-plus-one", "log1p", kEvery, [](double x) { return std::log1p(x); }, 1);
}

// sin and cos in one pass: glibc's sincos gives both references for about the cost of
// one. Every non-negative pattern below 2^27, every 4th one above (where glibc's exact
// reduction costs the most: all of them took 57 CPU seconds, with 0 ulps, for a path the
// CPU takes only without libmvec), every 61st negative one.
TEST(CpuMathAccuracyTest, SinCos) {
  // Inline only without libmvec (ElementalEmitterOptions::inline_f32_sin_cos): forced here.
  setenv("FUSEBOX_CPU_INLINE_SIN_COS", "1", 1);
  MathKernel sin("sine", 1), cos("cosine", 1);
  unsetenv("FUSEBOX_CPU_INLINE_SIN_COS");
  ASSERT_TRUE(sin.ok() && cos.ok());
  ExpectInlineVectorCode(sin, "sin", " x double>");
  ExpectInlineVectorCode(cos, "cos", " x double>");
  Accuracy sin_total, cos_total;
  const uint64_t huge = 0x4D000000;  // 2^27
  for (const Sweep& sweep :
       std::vector<Sweep>{{0, huge, 1}, {huge, kNegative, 4}, {kNegative, kAll, 61}}) {
    std::vector<Accuracy> both =
        Measure({&sin, &cos}, sweep.count(), SweepInputs(sweep),
                [](float x, float, double* want) { sincos(x, &want[0], &want[1]); });
    sin_total.Merge(both[0]);
    cos_total.Merge(both[1]);
  }
  Report("sine", sin_total, 1);
  Report("cosine", cos_total, 1);
}

TEST(CpuMathAccuracyTest, Cbrt) {
  CheckUnary(
      "cbrt", "cbrt", kSymmetric, [](double x) { return std::cbrt(x); }, 1);
}

TEST(CpuMathAccuracyTest, Rsqrt) {
  // Not polynomial: f32 sqrt and divide, two correctly rounded vector instructions; every
  // 5th pattern.
  CheckUnary(
      "rsqrt", "sqrt", {{0, kAll, 5}}, [](double x) { return 1 / std::sqrt(x); }, 1, " x float>");
}

// In f32 with the inline f32 exp (not double): e^-|x| / (1 + e^-|x|) or 1 / (1 + e^-|x|).
TEST(CpuMathAccuracyTest, Logistic) {
  CheckUnary(
      "logistic", "exp", kEvery, [](double x) { return 1 / (1 + std::exp(-x)); }, 2, " x float>");
}

// atan2(a, b): a over every 7th non-negative pattern against b = 1 (atan, every branch
// of the reduction) and b = -1.5 (the quadrant logic), random pairs and special pairs.
TEST(CpuMathAccuracyTest, Atan2) {
  const Sweep non_negative{0, kNegative, 7};
  CheckBinary(
      "atan2", "atan2",
      {SweepFirst(non_negative, 1.0f), SweepFirst(non_negative, -1.5f), RandomPairs(1 << 24, 0),
       RandomPairs(1 << 24, 40), SpecialPairs()},
      [](double a, double b) { return std::atan2(a, b); }, 1);
}

// pow(x, y): x over every 17th pattern for y = 2.5, -1/3 and 3 (negative x, odd
// integer), y over every 17th pattern for x = 0.75 (overflow and underflow on both
// sides) and x = -2 (integer and non-integer y), random pairs and special pairs.
TEST(CpuMathAccuracyTest, Pow) {
  const Sweep all{0, kAll, 17};
  CheckBinary(
      "power", "pow",
      {SweepFirst(all, 2.5f), SweepFirst(all, -1.0f / 3), SweepFirst(all, 3.0f),
       SweepSecond(all, 0.75f), SweepSecond(all, -2.0f), RandomPairs(1 << 24, 0),
       RandomPairs(1 << 24, 8), SpecialPairs()},
      [](double x, double y) { return std::pow(x, y); }, 1);
}

}  // namespace
}  // namespace fusebox
