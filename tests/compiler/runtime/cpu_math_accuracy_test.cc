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
// and the comparison run on every hardware thread, a block of 4096 results at a time
// (one vectorized compare of bit patterns passes a block the reference agrees with).
// Where the expected value is known without glibc (a saturated range: ±1, 0, -1, +inf,
// NaN; a tiny one: x, 1/2, 1, 2/sqrt(pi) x) it comes from that range, checked against
// glibc when the test starts (Known); cbrt's comes from a table scaled by powers of two.
// That is the exhaustive run (FUSEBOX_EXHAUSTIVE=1). By default each sweep takes every
// 31st of its inputs, so that CI's 2-core run stays short; the sanitizer build every
// 4093rd (FUSEBOX_SANITIZED), as its process is ~10x slower.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
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
// The fraction of the inputs a run checks: every input with FUSEBOX_EXHAUSTIVE=1 (about
// 4 minutes of CPU time on 2 cores for the ten tests), otherwise every 31st of each sweep
// (CI; 31 is prime to every stride below, so the sample still walks every binade and every
// low mantissa bit pattern), every 4093rd in the sanitizer build.
uint64_t SampleStride() {
#ifdef FUSEBOX_SANITIZED
  return 4093;
#else
  static const uint64_t stride = [] {
    const char* all = std::getenv("FUSEBOX_EXHAUSTIVE");
    return all != nullptr && std::string(all) == "1" ? uint64_t{1} : uint64_t{31};
  }();
  return stride;
#endif
}

unsigned Threads() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs fn(begin, end, part) over [0, n) split into Threads() parts, one thread each.
template <typename Fn>
void ParallelFor(int64_t n, Fn fn) {
  const int64_t parts = Threads();
  std::vector<std::thread> threads;
  for (int64_t p = 0; p < parts; ++p) {
    threads.emplace_back(
        [&, p] { fn(n * p / parts, n * (p + 1) / parts, static_cast<size_t>(p)); });
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

  // Records one result; `checked` is counted by the caller. Results with the reference's
  // bit pattern (or both NaN) need not come here: they are 0 ulps.
  void Add(float x, float y, float got, float want) {
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

// The same bit pattern, or both NaN: a result Accuracy::Add would count as 0 ulps.
// 1 unless the two are the same bit pattern or both NaN; integer operations only, so that
// the loop over a block vectorizes.
uint32_t Differs(uint32_t got, uint32_t want) {
  const uint32_t got_nan = (got & 0x7FFFFFFF) > 0x7F800000;
  const uint32_t want_nan = (want & 0x7FFFFFFF) > 0x7F800000;
  return static_cast<uint32_t>(got != want) & ~(got_nan & want_nan) & 1u;
}
bool Identical(uint32_t got, uint32_t want) { return Differs(got, want) == 0; }

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

  // Operand k's buffer (f32[kChunk] as bit patterns), filled in place by the caller: a
  // copy of 64 MiB per operand and call was a tenth of the kernel's time.
  uint32_t* input(int k) {
    while (static_cast<int>(args_.size()) < arity_)
      args_.emplace_back(Shape(PrimitiveType::kF32, {kChunk}));
    return reinterpret_cast<uint32_t*>(args_[k].untyped_data());
  }
  int arity() const { return arity_; }

  // Results for the first `n` elements of the inputs, valid until the next Run; null when
  // the run failed.
  const uint32_t* Run(int64_t n) {
    for (int k = 0; k < arity_; ++k) std::fill(input(k) + n, input(k) + kChunk, 0u);
    const Status ran = exe_->RunInto(args_, result_);
    EXPECT_TRUE(ran.ok()) << ran.message();
    if (!ran.ok()) return nullptr;
    return reinterpret_cast<const uint32_t*>(result_.untyped_data());
  }

 private:
  int arity_;
  std::vector<Literal> args_;
  Literal result_;  // reused: a fresh 64 MiB result per call would cost its page faults
  std::unique_ptr<runtime::CpuExecutable> exe_;
};

// Inputs [0, count) through every kernel: inputs(begin, end, x, y) writes the bit patterns
// of inputs begin..end-1 to x[0..] and y[0..]; reference(x, y, n, want) sets want[k][i],
// kernel k's expected f32 result for x[i], y[i], i < n (a block of kBlock at most).
// Kernels that share a reference call (sin and cos: sincos) share its cost. Each thread
// keeps its own tallies (no cache line shared between threads is written per element),
// and a block whose results all have the reference's bit patterns (nearly every block:
// most results are the correctly rounded one) is passed by one vectorized compare.
constexpr int64_t kBlock = 4096;
constexpr size_t kMaxFunctions = 2;

template <typename Inputs, typename Reference>
std::vector<Accuracy> Measure(const std::vector<MathKernel*>& kernels, int64_t count, Inputs inputs,
                              Reference reference) {
  const size_t functions = kernels.size();
  EXPECT_LE(functions, kMaxFunctions);
  std::vector<Accuracy> total(functions);
  MathKernel& first_kernel = *kernels[0];
  const int arity = first_kernel.arity();
  uint32_t* x = first_kernel.input(0);
  std::vector<uint32_t> zeros;  // y of a unary function: never written
  if (arity == 1) zeros.resize(kChunk);
  uint32_t* y = arity == 2 ? first_kernel.input(1) : zeros.data();
  for (int64_t first = 0; first < count; first += kChunk) {
    const int64_t n = std::min(kChunk, count - first);
    ParallelFor(n, [&](int64_t begin, int64_t end, size_t) {
      inputs(first + begin, first + end, x + begin, y + begin);
    });
    std::vector<const uint32_t*> got;
    for (MathKernel* kernel : kernels) {
      if (kernel != &first_kernel) {
        std::copy(x, x + n, kernel->input(0));
        if (arity == 2) std::copy(y, y + n, kernel->input(1));
      }
      got.push_back(kernel->Run(n));
      if (got.back() == nullptr) return total;
    }
    std::vector<std::vector<Accuracy>> parts(Threads());
    ParallelFor(n, [&](int64_t begin, int64_t end, size_t part) {
      std::vector<Accuracy> local(functions);
      std::vector<float> want_storage(kMaxFunctions * kBlock);
      std::array<float*, kMaxFunctions> want = {want_storage.data(), want_storage.data() + kBlock};
      for (int64_t block = begin; block < end; block += kBlock) {
        const int64_t size = std::min(kBlock, end - block);
        reference(x + block, y + block, size, want.data());
        for (size_t k = 0; k < functions; ++k) {
          const uint32_t* g = got[k] + block;
          const float* w = want[k];
          uint32_t differ = 0;
          for (int64_t i = 0; i < size; ++i) differ |= Differs(g[i], std::bit_cast<uint32_t>(w[i]));
          if (differ == 0) continue;
          for (int64_t i = 0; i < size; ++i) {
            if (Identical(g[i], std::bit_cast<uint32_t>(w[i]))) continue;
            local[k].Add(std::bit_cast<float>(x[block + i]), std::bit_cast<float>(y[block + i]),
                         std::bit_cast<float>(g[i]), w[i]);
          }
        }
      }
      for (Accuracy& a : local) a.checked = end - begin;
      parts[part] = std::move(local);
    });
    for (const std::vector<Accuracy>& part : parts) {
      for (size_t k = 0; k < part.size(); ++k) total[k].Merge(part[k]);
    }
  }
  return total;
}

// Bit patterns [begin, end) every `stride` (times SampleStride()).
struct Sweep {
  uint64_t begin, end, stride;
  int64_t count() const { return static_cast<int64_t>((end - begin + Stride() - 1) / Stride()); }
  uint64_t Stride() const { return stride * SampleStride(); }
  uint32_t at(int64_t i) const {
    return static_cast<uint32_t>(begin + static_cast<uint64_t>(i) * Stride());
  }
};

// Inputs [begin, end) of a binary function's operands (the first only, for a unary one),
// written to x[0..] and y[0..]: one call per block, not per element.
using InputBlock = std::function<void(int64_t begin, int64_t end, uint32_t* x, uint32_t* y)>;

// x = the sweep's patterns (for a unary function: y is not written).
InputBlock SweepInputs(Sweep sweep) {
  return [sweep](int64_t begin, int64_t end, uint32_t* x, uint32_t*) {
    for (int64_t i = begin; i < end; ++i) x[i - begin] = sweep.at(i);
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

// A range of x where the reference (float)f((double)x) is known without calling f: `value`,
// or (scale != 0) (float)(scale * (double)x), x itself for scale 1 (so zeros keep their
// sign). Each is derived beside its test and asserted against f itself when the test
// starts (ExpectKnownRanges): every input still runs through the kernel and is compared
// with the same expected value, the reference only costs less where it is a constant.
struct Known {
  float from, to;  // inclusive
  float value;
  double scale = 0;
  float At(float x) const {
    return scale != 0 ? static_cast<float>(scale * static_cast<double>(x)) : value;
  }
};

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// (float)f((double)x), from `known` where it covers x.
template <typename F>
float Expected(const std::vector<Known>& known, F f, float x) {
  for (const Known& k : known) {
    if (x >= k.from && x <= k.to) return k.At(x);
  }
  return static_cast<float>(f(static_cast<double>(x)));
}

// A float's bit pattern as an integer in the floats' order (-0 just below +0, NaNs beyond
// the infinities), so that a block's least and greatest inputs are integer reductions.
int32_t OrderKey(uint32_t bits) {
  const int32_t v = static_cast<int32_t>(bits);
  return v ^ ((v >> 31) & 0x7FFFFFFF);
}

// The range of `known` that holds all of x[0..n), or null (also when one is NaN).
const Known* BlockKnown(const std::vector<Known>& known, const uint32_t* x, int64_t n) {
  int32_t lo = std::numeric_limits<int32_t>::max(), hi = std::numeric_limits<int32_t>::min();
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, OrderKey(x[i]));
    hi = std::max(hi, OrderKey(x[i]));
  }
  for (const Known& k : known) {
    if (lo >= OrderKey(std::bit_cast<uint32_t>(k.from)) &&
        hi <= OrderKey(std::bit_cast<uint32_t>(k.to))) {
      return &k;
    }
  }
  return nullptr;
}

// want[i] = (float)f((double)x[i]) for i < n, without calling f where `known` covers the
// block (the inputs are sweeps: a block lies in one range unless it holds a threshold).
template <typename F>
void ExpectedBlock(const std::vector<Known>& known, F f, const uint32_t* x, int64_t n,
                   float* want) {
  if (const Known* k = BlockKnown(known, x, n)) {
    const double scale = k->scale;
    if (scale == 0) std::fill(want, want + n, k->value);
    for (int64_t i = 0; i < n && scale != 0; ++i) {
      want[i] = static_cast<float>(scale * static_cast<double>(std::bit_cast<float>(x[i])));
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) want[i] = Expected(known, f, std::bit_cast<float>(x[i]));
}

// Each of `known` agrees with f: at its two ends and the 1,024 floats inward from each
// (where a range set too wide fails first: the claims hold on one side of a threshold),
// and at every `stride`th bit pattern inside it (stride 1: every input, the test that
// runs only with --gtest_also_run_disabled_tests).
template <typename F>
void ExpectKnownRanges(const std::string& name, const std::vector<Known>& known, F f,
                       uint64_t stride = 4099) {
  auto expect = [&](const Known& k, float x) {
    const float want = static_cast<float>(f(static_cast<double>(x)));
    if (Identical(std::bit_cast<uint32_t>(k.At(x)), std::bit_cast<uint32_t>(want))) return true;
    ADD_FAILURE() << name << " at " << x << " (0x" << std::hex << std::bit_cast<uint32_t>(x)
                  << std::dec << ") is " << want << ", not " << k.At(x) << " as claimed for ["
                  << k.from << ", " << k.to << "]";
    return false;
  };
  for (const Known& k : known) {
    float up = k.from, down = k.to;
    for (int i = 0; i < 1024 && up <= k.to; ++i, up = std::nextafter(up, kInf)) {
      if (!expect(k, up)) return;
    }
    for (int i = 0; i < 1024 && down >= k.from; ++i, down = std::nextafter(down, -kInf)) {
      if (!expect(k, down)) return;
    }
  }
  std::atomic<int64_t> failures{0};
  const int64_t samples = static_cast<int64_t>(kAll / stride);
  ParallelFor(samples, [&](int64_t begin, int64_t end, size_t) {
    for (int64_t i = begin; i < end && failures == 0; ++i) {
      const float x =
          std::bit_cast<float>(static_cast<uint32_t>(static_cast<uint64_t>(i) * stride));
      for (const Known& k : known) {
        if (x >= k.from && x <= k.to && !expect(k, x)) ++failures;
      }
    }
  });
}

// `op` against (float)f((double)x) over `sweeps` of x, within `bound` ulps; `known`: where
// that expected value is known in advance (checked against f first).
template <typename F>
void CheckUnary(const std::string& op, const std::string& libm, const std::vector<Sweep>& sweeps,
                F f, const std::vector<Known>& known, int64_t bound,
                const std::string& element = " x double>") {
  ExpectKnownRanges(op, known, f);
  if (testing::Test::HasFailure()) return;
  MathKernel kernel(op, 1);
  ASSERT_TRUE(kernel.ok());
  ExpectInlineVectorCode(kernel, libm, element);
  Accuracy total;
  for (const Sweep& sweep : sweeps) {
    total.Merge(Measure({&kernel}, sweep.count(), SweepInputs(sweep),
                        [&](const uint32_t* x, const uint32_t*, int64_t n, float* const* want) {
                          ExpectedBlock(known, f, x, n, want[0]);
                        })[0]);
  }
  Report(op, total, bound);
}

// Inputs of a binary function: `count` pairs of bit patterns made by `pair`.
struct Pairs {
  int64_t count;
  InputBlock pair;
};

// Pairs made one at a time by pair(i, x, y), written block by block.
template <typename Pair>
InputBlock EachPair(Pair pair) {
  return [pair](int64_t begin, int64_t end, uint32_t* x, uint32_t* y) {
    for (int64_t i = begin; i < end; ++i) pair(i, x[i - begin], y[i - begin]);
  };
}

// One operand over `sweep`, the other fixed at `value`.
Pairs SweepFirst(Sweep sweep, float value) {
  return {sweep.count(), EachPair([sweep, value](int64_t i, uint32_t& x, uint32_t& y) {
            x = sweep.at(i);
            y = std::bit_cast<uint32_t>(value);
          })};
}
Pairs SweepSecond(Sweep sweep, float value) {
  return {sweep.count(), EachPair([sweep, value](int64_t i, uint32_t& x, uint32_t& y) {
            y = sweep.at(i);
            x = std::bit_cast<uint32_t>(value);
          })};
}

uint64_t Mix(uint64_t v) {  // splitmix64's finalizer
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
  return v ^ (v >> 31);
}

// Random pairs: all bit patterns, and values of magnitude 2^-e_span .. 2^e_span (both
// signs), half of the second operands rounded to integers.
Pairs RandomPairs(int64_t count, int e_span) {
  const int64_t n = std::max<int64_t>(1, count / static_cast<int64_t>(SampleStride()));
  return {n, EachPair([e_span](int64_t i, uint32_t& x, uint32_t& y) {
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
          })};
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
  return {n * n, EachPair([n](int64_t i, uint32_t& x, uint32_t& y) {
            x = std::bit_cast<uint32_t>(kSpecial[static_cast<size_t>(i / n)]);
            y = std::bit_cast<uint32_t>(kSpecial[static_cast<size_t>(i % n)]);
          })};
}

template <typename Reference>
void CheckBinary(const std::string& op, const std::string& libm, const std::vector<Pairs>& inputs,
                 Reference reference, int64_t bound) {
  MathKernel kernel(op, 2);
  ASSERT_TRUE(kernel.ok());
  ExpectInlineVectorCode(kernel, libm, " x double>");
  Accuracy total;
  for (const Pairs& pairs : inputs) {
    total.Merge(Measure({&kernel}, pairs.count, pairs.pair,
                        [&](const uint32_t* x, const uint32_t* y, int64_t n, float* const* want) {
                          for (int64_t i = 0; i < n; ++i) {
                            want[0][i] = static_cast<float>(
                                reference(static_cast<double>(std::bit_cast<float>(x[i])),
                                          static_cast<double>(std::bit_cast<float>(y[i]))));
                          }
                        })[0]);
  }
  Report(op, total, bound);
}

// All non-negative patterns and a sample of the negative ones: for odd and even
// functions, whose code works on |x| and sets the sign by copysign or not at all.
const std::vector<Sweep> kSymmetric = {{0, kNegative, 1}, {kNegative, kAll, 61}};
const std::vector<Sweep> kEvery = {{0, kAll, 1}};

// Where the f32 results are known (Known above). The thresholds keep a margin from the
// exact boundaries (measured with glibc, in parentheses: the last float of the range) so
// that they do not hang on the last bits of a libm; a threshold set past its boundary
// fails ExpectKnownRanges. "Half the gap" is half the distance to the next float towards
// the exact value: at least 2^-25 |r| on either side of r (towards 0 from a power of two).
//
// tanh x = x - x^3/3 + ...: for |x| < 2^-12 the difference x^2/3 < 2^-24/3 relative is
// under half the gap, so it rounds to x (0x1.713744p-12). 1 - tanh x < 2 e^-2x is under
// 2^-25, half the gap below 1, from 13 ln 2 = 9.011 on (9.01091385): 9.5.
const std::vector<Known> kTanhKnown = {
    {-0x1.fffffep-13f, 0x1.fffffep-13f, 0, 1}, {9.5f, kInf, 1}, {-kInf, -9.5f, -1}};
// erf x = (2/sqrt(pi)) (x - x^3/3 + ...): for |x| < 2^-25 the product with 2/sqrt(pi) in
// double is within 2^-49 of erf x before the one rounding to f32, as good a reference as
// glibc's erf (equal to it up to 1.54e-7 = 0x1.4b808ap-23). 1 - erf x = erfc x < 2^-25
// from 3.9192 (3.9192059) on: 4 (erfc 4 = 1.5e-8).
const std::vector<Known> kErfKnown = {{-0x1.fffffep-26f, 0x1.fffffep-26f, 0, 1.1283791670955126},
                                      {4.0f, kInf, 1},
                                      {-kInf, -4.0f, -1}};
// expm1 x = x + x^2/2 + ...: for |x| < 2^-25, x^2/2 < 2^-26 |x|, under half the gap (equal
// to x up to 0x1.6a09e6p-24). e^x - 1 rounds to -1 where e^x < 2^-25, half the gap above
// -1: x < -25 ln 2 = -17.329 (-17.32868): -17.5. It overflows f32 where e^x >= FLT_MAX +
// half an ulp = 2^128 (1 - 2^-25): x >= 88.72284 (88.7228394): 88.75.
const std::vector<Known> kExpm1Known = {
    {-0x1.fffffep-26f, 0x1.fffffep-26f, 0, 1}, {-kInf, -17.5f, -1}, {88.75f, kInf, kInf}};
// log1p x = x - x^2/2 + ...: x for |x| < 2^-25 as expm1 (0x1.6a09e6p-24, -0x1.6a09e4p-24).
// NaN below -1 (glibc takes its errno path there).
const std::vector<Known> kLog1pKnown = {{-0x1.fffffep-26f, 0x1.fffffep-26f, 0, 1},
                                        {-kInf, -0x1.000002p0f, kNan}};
// 1 / (1 + e^-x) = 1/2 + x/4 - ...: 1/2 for |x| < 2^-25 (x/4 < 2^-27, half the gap below
// 1/2 is 2^-26; measured: [-2^-24, 2^-23]). 1 - e^-x rounds to 1 where e^-x < 2^-25: x >
// 17.329 (17.32868): 17.5. Below 2^-150, half the smallest subnormal, the result rounds to
// +0: e^x (1 - e^x) < 2^-150 for x < -150 ln 2 = -103.972 (-103.972084): -105. There glibc's
// exp(-x) overflows (its slowest path, errno).
const std::vector<Known> kLogisticKnown = {
    {-0x1.fffffep-26f, 0x1.fffffep-26f, 0.5f}, {17.5f, kInf, 1}, {-kInf, -105.0f, 0}};
// sin x = x - x^3/6 + ... rounds to x and cos x = 1 - x^2/2 + ... to 1 for |x| < 2^-13
// (x^2/2 < 2^-27, half the gap below 1 is 2^-25; measured: sin to 0x1.d12edp-12, cos to
// 2^-12).
const std::vector<Known> kSinKnown = {{-0x1.fffffep-14f, 0x1.fffffep-14f, 0, 1}};
const std::vector<Known> kCosKnown = {{-0x1.fffffep-14f, 0x1.fffffep-14f, 1}};

double Logistic(double x) { return 1 / (1 + std::exp(-x)); }

TEST(CpuMathAccuracyTest, Tanh) {
  CheckUnary(
      "tanh", "tanh", kSymmetric, [](double x) { return std::tanh(x); }, kTanhKnown, 1, " x float>");
}

TEST(CpuMathAccuracyTest, Erf) {
  CheckUnary(
      "erf", "erf", kSymmetric, [](double x) { return std::erf(x); }, kErfKnown, 1);
}

TEST(CpuMathAccuracyTest, Expm1) {
  CheckUnary(
      "exponential-minus-one", "expm1", kEvery, [](double x) { return std::expm1(x); }, kExpm1Known,
      1);
}

TEST(CpuMathAccuracyTest, Log1p) {
  CheckUnary(
      "log-plus-one", "log1p", kEvery, [](double x) { return std::log1p(x); }, kLog1pKnown, 1);
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
  ExpectKnownRanges("sine", kSinKnown, [](double x) { return std::sin(x); });
  ExpectKnownRanges("cosine", kCosKnown, [](double x) { return std::cos(x); });
  if (HasFailure()) return;
  Accuracy sin_total, cos_total;
  const uint64_t huge = 0x4D000000;  // 2^27
  for (const Sweep& sweep :
       std::vector<Sweep>{{0, huge, 1}, {huge, kNegative, 4}, {kNegative, kAll, 61}}) {
    std::vector<Accuracy> both =
        Measure({&sin, &cos}, sweep.count(), SweepInputs(sweep),
                [](const uint32_t* x, const uint32_t*, int64_t n, float* const* want) {
                  // One range, the same for both (where sin x is x, cos x is 1).
                  if (BlockKnown(kSinKnown, x, n) != nullptr) {
                    ExpectedBlock(
                        kSinKnown, [](double v) { return std::sin(v); }, x, n, want[0]);
                    ExpectedBlock(
                        kCosKnown, [](double v) { return std::cos(v); }, x, n, want[1]);
                    return;
                  }
                  for (int64_t i = 0; i < n; ++i) {
                    double s, c;
                    sincos(std::bit_cast<float>(x[i]), &s, &c);
                    want[0][i] = static_cast<float>(s);
                    want[1][i] = static_cast<float>(c);
                  }
                });
    sin_total.Merge(both[0]);
    cos_total.Merge(both[1]);
  }
  Report("sine", sin_total, 1);
  Report("cosine", cos_total, 1);
}

// (float)cbrt((double)x) from a table: cbrt(-x) = -cbrt(x) and cbrt(2^3q a) = 2^q cbrt(a)
// exactly, and the cube root of a normal f32 is normal (in [2^-42, 2^43)), so multiplying
// it by 2^q is exact: a normal x's reference is that of its a in [1, 8) (x = ±2^3q a),
// glibc's cbrt of the 3 * 2^23 floats there, computed once (0.2 s), with q added to the
// exponent. Zeros, subnormals, infinities and NaN call cbrt. The same values as cbrt at
// every input (DISABLED_KnownRangesHoldAtEveryInput), and at a sample when the test starts.
class CbrtReference {
 public:
  CbrtReference() : table_(3 << 23) {
    ParallelFor(3 << 23, [&](int64_t begin, int64_t end, size_t) {
      for (int64_t i = begin; i < end; ++i) {
        const float a = std::bit_cast<float>(static_cast<uint32_t>((127 << 23) + i));
        table_[static_cast<size_t>(i)] = static_cast<float>(std::cbrt(static_cast<double>(a)));
      }
    });
  }
  double operator()(double xd) const {
    const float x = static_cast<float>(xd);
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const int field = static_cast<int>((bits >> 23) & 0xFF);
    if (field == 0 || field == 0xFF) return std::cbrt(xd);
    const int e = field - 127;
    const int q = e >= 0 ? e / 3 : -((2 - e) / 3);  // floor(e / 3)
    const uint32_t a = static_cast<uint32_t>(e - 3 * q) << 23 | (bits & 0x7FFFFF);
    const uint32_t root = std::bit_cast<uint32_t>(table_[a]) + static_cast<uint32_t>(q * (1 << 23));
    return static_cast<double>(std::bit_cast<float>(root | (bits & 0x80000000u)));
  }

 private:
  std::vector<float> table_;
};

const CbrtReference& Cbrt() {
  static const CbrtReference* reference = new CbrtReference();
  return *reference;
}

// (float)reference(x) == (float)f(x) at every `stride`th bit pattern.
template <typename R, typename F>
void ExpectSameReference(const std::string& name, const R& reference, F f, uint64_t stride) {
  std::atomic<int64_t> failures{0};
  ParallelFor(static_cast<int64_t>(kAll / stride), [&](int64_t begin, int64_t end, size_t) {
    for (int64_t i = begin; i < end && failures == 0; ++i) {
      const float x =
          std::bit_cast<float>(static_cast<uint32_t>(static_cast<uint64_t>(i) * stride));
      const float want = static_cast<float>(f(static_cast<double>(x)));
      const float got = static_cast<float>(reference(static_cast<double>(x)));
      if (Identical(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))) continue;
      if (failures++ == 0)
        ADD_FAILURE() << name << "'s reference at " << x << " is " << got << ", not " << want;
    }
  });
}

TEST(CpuMathAccuracyTest, Cbrt) {
  const CbrtReference& cbrt = Cbrt();
  ExpectSameReference(
      "cbrt", cbrt, [](double x) { return std::cbrt(x); }, 4099);
  CheckUnary(
      "cbrt", "cbrt", kSymmetric, [&](double x) { return cbrt(x); }, {}, 1);
}

TEST(CpuMathAccuracyTest, Rsqrt) {
  // Not polynomial: f32 sqrt and divide, two correctly rounded vector instructions; every
  // 5th pattern.
  CheckUnary(
      "rsqrt", "sqrt", {{0, kAll, 5}}, [](double x) { return 1 / std::sqrt(x); }, {}, 1,
      " x float>");
}

// In f32 with the inline f32 exp (not double): e^-|x| / (1 + e^-|x|) or 1 / (1 + e^-|x|).
TEST(CpuMathAccuracyTest, Logistic) {
  CheckUnary("logistic", "exp", kEvery, Logistic, kLogisticKnown, 2, " x float>");
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

// The known ranges at every input instead of at their ends and a sample (each function's
// test checks those when it starts): run with --gtest_also_run_disabled_tests after
// changing a range or the cbrt table. About 3 CPU minutes (186 s on the 2-core machine).
TEST(CpuMathAccuracyTest, DISABLED_KnownRangesHoldAtEveryInput) {
  ExpectKnownRanges(
      "tanh", kTanhKnown, [](double x) { return std::tanh(x); }, 1);
  ExpectKnownRanges(
      "erf", kErfKnown, [](double x) { return std::erf(x); }, 1);
  ExpectKnownRanges(
      "expm1", kExpm1Known, [](double x) { return std::expm1(x); }, 1);
  ExpectKnownRanges(
      "log1p", kLog1pKnown, [](double x) { return std::log1p(x); }, 1);
  ExpectKnownRanges("logistic", kLogisticKnown, Logistic, 1);
  ExpectKnownRanges(
      "sin", kSinKnown, [](double x) { return std::sin(x); }, 1);
  ExpectKnownRanges(
      "cos", kCosKnown, [](double x) { return std::cos(x); }, 1);
  ExpectSameReference(
      "cbrt", Cbrt(), [](double x) { return std::cbrt(x); }, 1);
}

}  // namespace
}  // namespace fusebox
