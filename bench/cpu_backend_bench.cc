// CPU backend speed on the seed workloads, fused against unfused (one kernel per op) and
// the reference interpreter, next to a memory-copy bandwidth baseline measured in the same
// run, so that "how far from the memory bound" is one counter (of_copy_bw). Measures only;
// the 16384x16384 cases are opt-in with --benchmark_filter=Large (see bench/README.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/support/large_buffer.h"

namespace fusebox {
namespace {

constexpr size_t kCopyBytes = size_t{1} << 30;

// The executable's thread pool has one thread per hardware thread (threads = 0).
int HardwareThreads() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Copies `bytes` in `threads` contiguous page-aligned chunks, one thread each, as the
// executable splits a kernel along its outermost dimension.
void ParallelCopy(uint8_t* dst, const uint8_t* src, size_t bytes, int threads) {
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  constexpr size_t kPage = 4096;
  const size_t chunk = (bytes / threads + kPage - 1) / kPage * kPage;
  std::vector<std::thread> workers;
  for (size_t begin = 0; begin < bytes; begin += chunk) {
    const size_t n = std::min(chunk, bytes - begin);
    workers.emplace_back([=] { std::memcpy(dst + begin, src + begin, n); });
  }
  for (std::thread& t : workers) t.join();
}

// Two 1 GiB buffers, written once so that page faults are not part of any copy. They come
// from the allocator that literals and executables use (huge pages where the kernel
// allows), so the baseline and the workloads see the same TLB behaviour.
struct CopyBuffers {
  LargeBufferPtr src{static_cast<uint8_t*>(AllocateLargeBuffer(kCopyBytes))};
  LargeBufferPtr dst{static_cast<uint8_t*>(AllocateLargeBuffer(kCopyBytes))};
  CopyBuffers() {
    if (src == nullptr || dst == nullptr) throw std::bad_alloc();
    std::memset(src.get(), 1, kCopyBytes);
    std::memset(dst.get(), 0, kCopyBytes);
  }
};

// Sums `bytes` (a multiple of 8) as 64-bit words in `threads` contiguous chunks: a pure
// streaming read, the other physical limit a reduction runs into. Integer adds are
// associative, so the compiler vectorizes this loop at -O2/-O3 without fast-math. Each
// 64-byte line is prefetched 1 KiB ahead into L2: the hardware prefetchers alone keep too
// few lines in flight (measured on the 2-core development VM: 31-33 GB/s without, 38-40
// with; prefetcht0 instead slows a Zen 4 VM down; the same is done for the kernels, see
// InsertPrefetches in cpu_compiler.cc).
// One chunk of ParallelSum, compiled for AVX-512, AVX2 and baseline x86-64 and picked at
// load time: wider loads keep more of the line fill buffers busy (AVX-512 reads ~5% faster
// than SSE2 here).
__attribute__((target_clones("avx512f", "avx2", "default"))) uint64_t SumWords(const uint64_t* words, size_t begin,
                                                                               size_t end) {
  using Line = uint64_t __attribute__((vector_size(64)));  // one cache line
  Line acc0 = {}, acc1 = {};
  size_t i = begin;
  for (; i + 16 <= end; i += 16) {
    __builtin_prefetch(words + i + 128, 0, 2);  // 1 KiB ahead, into L2 (prefetcht1)
    __builtin_prefetch(words + i + 136, 0, 2);
    Line a, b;
    std::memcpy(&a, words + i, sizeof(Line));
    std::memcpy(&b, words + i + 8, sizeof(Line));
    acc0 += a;
    acc1 += b;
  }
  acc0 += acc1;
  uint64_t sum = 0;
  for (int k = 0; k < 8; ++k) sum += acc0[k];
  for (; i < end; ++i) sum += words[i];
  return sum;
}

uint64_t ParallelSum(const uint8_t* src, size_t bytes, int threads) {
  const auto* words = reinterpret_cast<const uint64_t*>(src);
  const size_t n = bytes / sizeof(uint64_t);
  const size_t chunk = (n + static_cast<size_t>(threads) - 1) / static_cast<size_t>(threads);
  std::vector<uint64_t> sums(static_cast<size_t>(threads), 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const size_t begin = std::min(n, chunk * static_cast<size_t>(t));
      const size_t end = std::min(n, begin + chunk);
      sums[static_cast<size_t>(t)] = SumWords(words, begin, end);
    });
  }
  for (std::thread& t : workers) t.join();
  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  return total;
}

// `bytes` over the best of five runs of `run` on fresh 1 GiB buffers: the bound, not the
// average, is the reference.
template <typename Fn>
double BestRate(double bytes, const Fn& run) {
  CopyBuffers buffers;
  double best_s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    run(buffers);
    benchmark::ClobberMemory();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    best_s = std::min(best_s, elapsed.count());
  }
  return bytes / best_s;
}

// Copy bandwidth in bytes/s with as many threads as the executable uses, counting bytes
// read plus bytes written (2 GiB per 1 GiB copy), the same accounting as the workloads'
// minimum traffic. Measured on first use, before the caller allocates any workload data,
// and only once.
double CopyBandwidth() {
  static const double bandwidth = BestRate(2.0 * static_cast<double>(kCopyBytes), [](CopyBuffers& b) {
    ParallelCopy(b.dst.get(), b.src.get(), kCopyBytes, HardwareThreads());
  });
  return bandwidth;
}

// Read bandwidth in bytes/s with the executable's thread count (sums of 1 GiB), measured
// once like CopyBandwidth.
double ReadBandwidth() {
  static const double bandwidth = BestRate(static_cast<double>(kCopyBytes), [](CopyBuffers& b) {
    benchmark::DoNotOptimize(ParallelSum(b.src.get(), kCopyBytes, HardwareThreads()));
  });
  return bandwidth;
}

// Wall time of a benchmark's timing loop. Google Benchmark's own time is not visible to
// the benchmark, and a rate counter would print of_copy_bw with a "/s" unit it does not have.
class LoopClock {
 public:
  LoopClock() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// bytes_per_second from `bytes_per_iteration` moved per iteration, and of_copy_bw: that
// rate over the copy bandwidth.
void SetBandwidthCounters(benchmark::State& state, int64_t bytes_per_iteration, double loop_seconds) {
  const double bytes = static_cast<double>(bytes_per_iteration) * static_cast<double>(state.iterations());
  state.counters["bytes_per_second"] = benchmark::Counter(bytes, benchmark::Counter::kIsRate);
  state.counters["of_copy_bw"] = bytes / loop_seconds / CopyBandwidth();
  state.counters["of_read_bw"] = bytes / loop_seconds / ReadBandwidth();
}

// Both baselines, measured before any workload data is allocated.
void MeasureBaselines() {
  CopyBandwidth();
  ReadBandwidth();
}

void ReadBaseline(benchmark::State& state) {
  MeasureBaselines();  // before this benchmark's own buffers exist
  const int threads = static_cast<int>(state.range(0));
  CopyBuffers buffers;
  const LoopClock clock;
  for (auto _ : state) benchmark::DoNotOptimize(ParallelSum(buffers.src.get(), kCopyBytes, threads));
  SetBandwidthCounters(state, static_cast<int64_t>(kCopyBytes), clock.Seconds());
}

void CopyBaseline(benchmark::State& state) {
  MeasureBaselines();  // before this benchmark's own buffers exist
  const int threads = static_cast<int>(state.range(0));
  CopyBuffers buffers;
  const LoopClock clock;
  for (auto _ : state) {
    ParallelCopy(buffers.dst.get(), buffers.src.get(), kCopyBytes, threads);
    benchmark::ClobberMemory();
  }
  SetBandwidthCounters(state, 2 * static_cast<int64_t>(kCopyBytes), clock.Seconds());
}

// --- Workloads ---

struct Workload {
  std::string name;  // unique: the key of the loaded-workload cache
  std::string hlo;   // module text, or empty and read from `file`
  std::string file;  // under assets/examples/
};

const char* kAddF32 =
    "add_f32 {\n"
    "  a = f32[] parameter(0)\n"
    "  b = f32[] parameter(1)\n"
    "  ROOT s = f32[] add(a, b)\n"
    "}\n\n";

// Module text for a workload over f32[n,n] arrays: `body` is the entry's lines, with `$s`
// standing for the array shape and `$n2` for n*n.
std::string SquareModule(const std::string& name, int64_t n, const std::vector<std::string>& body) {
  const std::string shape = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]{1,0}";
  std::string hlo = "HloModule " + name + "_" + std::to_string(n) + "\n\n" + kAddF32 + "ENTRY main {\n";
  for (std::string line : body) {
    for (size_t at; (at = line.find("$s")) != std::string::npos;) line.replace(at, 2, shape);
    for (size_t at; (at = line.find("$n2")) != std::string::npos;) line.replace(at, 3, std::to_string(n * n));
    hlo += "  " + line + "\n";
  }
  return hlo + "}\n";
}

// assets/examples/reduce_sum.hlo at n x n: sum(x + y * z).
Workload ReduceSum(int64_t n) {
  return {"reduce_sum/" + std::to_string(n),
          SquareModule("reduce_sum", n,
                       {"x = $s parameter(0)", "y = $s parameter(1)", "z = $s parameter(2)",
                        "mul = $s multiply(y, z)", "add = $s add(x, mul)", "zero = f32[] constant(0)",
                        "ROOT sum = f32[] reduce(add, zero), dimensions={0,1}, to_apply=add_f32"}),
          ""};
}

// assets/examples/running_example.hlo at n x n: mean(x**2 * 3 + y), the ops as JAX emits them.
Workload RunningExample(int64_t n) {
  return {"running_example/" + std::to_string(n),
          SquareModule("running_example", n,
                       {"x = $s parameter(0)", "y = $s parameter(1)", "square = $s multiply(x, x)",
                        "three = f32[] constant(3)", "threes = $s broadcast(three), dimensions={}",
                        "scaled = $s multiply(square, threes)", "shifted = $s add(scaled, y)",
                        "zero = f32[] constant(0)",
                        "sum = f32[] reduce(shifted, zero), dimensions={0,1}, to_apply=add_f32",
                        "count = f32[] constant($n2)", "ROOT mean = f32[] divide(sum, count)"}),
          ""};
}

// An elementwise fusion that writes as much as it reads per input: relu(x * y + z), the
// memory-bound shape of an activation epilogue.
Workload Elementwise(int64_t n) {
  return {"elementwise/" + std::to_string(n),
          SquareModule("elementwise", n,
                       {"x = $s parameter(0)", "y = $s parameter(1)", "z = $s parameter(2)",
                        "mul = $s multiply(x, y)", "add = $s add(mul, z)", "zero = f32[] constant(0)",
                        "zeros = $s broadcast(zero), dimensions={}", "ROOT relu = $s maximum(add, zeros)"}),
          ""};
}

// softmax over the rows of f32[rows,1024], as jax.nn.softmax lowers it: row max, exp of
// the difference, row sum, divide. Memory-bound when fused well: the minimum is one read
// of the input and one write of the result.
Workload Softmax(int64_t rows) {
  const std::string m = "f32[" + std::to_string(rows) + ",1024]{1,0}";
  const std::string v = "f32[" + std::to_string(rows) + "]{0}";
  return {"softmax/" + std::to_string(rows),
          "HloModule softmax\n\nmax_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
          "  ROOT m = f32[] maximum(a, b)\n}\n\n" + std::string(kAddF32) + "ENTRY main {\n"
          "  x = " + m + " parameter(0)\n"
          "  ninf = f32[] constant(-inf)\n"
          "  max = " + v + " reduce(x, ninf), dimensions={1}, to_apply=max_f32\n"
          "  maxb = " + m + " broadcast(max), dimensions={0}\n"
          "  d = " + m + " subtract(x, maxb)\n"
          "  e = " + m + " exponential(d)\n"
          "  zero = f32[] constant(0)\n"
          "  sum = " + v + " reduce(e, zero), dimensions={1}, to_apply=add_f32\n"
          "  sumb = " + m + " broadcast(sum), dimensions={0}\n"
          "  ROOT y = " + m + " divide(e, sumb)\n}\n",
          ""};
}

// layer normalization over the rows of f32[rows,1024] with a scale and an offset, as the
// compare_xla workload writes it: mean, variance of the centred rows, normalize.
Workload LayerNorm(int64_t rows) {
  const std::string m = "f32[" + std::to_string(rows) + ",1024]{1,0}";
  const std::string v = "f32[" + std::to_string(rows) + "]{0}";
  return {"layer_norm/" + std::to_string(rows),
          "HloModule layer_norm\n\n" + std::string(kAddF32) + "ENTRY main {\n"
          "  x = " + m + " parameter(0)\n"
          "  gamma = f32[1024]{0} parameter(1)\n"
          "  beta = f32[1024]{0} parameter(2)\n"
          "  zero = f32[] constant(0)\n"
          "  width = f32[] constant(1024)\n"
          "  n = " + v + " broadcast(width), dimensions={}\n"
          "  sum = " + v + " reduce(x, zero), dimensions={1}, to_apply=add_f32\n"
          "  mean = " + v + " divide(sum, n)\n"
          "  meanb = " + m + " broadcast(mean), dimensions={0}\n"
          "  c = " + m + " subtract(x, meanb)\n"
          "  c2 = " + m + " multiply(c, c)\n"
          "  ss = " + v + " reduce(c2, zero), dimensions={1}, to_apply=add_f32\n"
          "  var = " + v + " divide(ss, n)\n"
          "  epsilon = f32[] constant(1e-05)\n"
          "  eps = " + v + " broadcast(epsilon), dimensions={}\n"
          "  ve = " + v + " add(var, eps)\n"
          "  r = " + v + " rsqrt(ve)\n"
          "  rb = " + m + " broadcast(r), dimensions={0}\n"
          "  g = " + m + " broadcast(gamma), dimensions={1}\n"
          "  b = " + m + " broadcast(beta), dimensions={1}\n"
          "  cr = " + m + " multiply(c, rb)\n"
          "  cg = " + m + " multiply(cr, g)\n"
          "  ROOT y = " + m + " add(cg, b)\n}\n",
          ""};
}

Workload MnistTrainStep() { return {"mnist_train_step", "", "mnist_train_step.hlo"}; }

// The workload whose module, inputs and executable are alive. Only one at a time: at
// 16384x16384 each input is 1 GiB and an unfused executable keeps GiBs of temporaries,
// so loading another workload (or another mode) frees the previous one first.
struct Loaded {
  std::string name;
  std::unique_ptr<Module> module;
  std::vector<Literal> args;
  int64_t min_bytes = 0;  // inputs + outputs: what any implementation must read and write
  std::unique_ptr<runtime::CpuExecutable> executable;
  Literal result;  // the executable's result, reused by every run
  bool executable_fused = false;
};

std::unique_ptr<Loaded>& LoadedSlot() {
  static std::unique_ptr<Loaded> loaded;
  return loaded;
}

StatusOr<Loaded*> Load(const Workload& workload) {
  std::unique_ptr<Loaded>& slot = LoadedSlot();
  if (slot != nullptr && slot->name == workload.name) return slot.get();
  slot.reset();
  auto loaded = std::make_unique<Loaded>();
  loaded->name = workload.name;
  if (workload.file.empty()) {
    ASSIGN_OR_RETURN(loaded->module, ParseModule(workload.hlo));
  } else {
    ASSIGN_OR_RETURN(ParseResult parsed,
                     ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + workload.file));
    if (parsed.modules.empty()) return InvalidArgument(workload.file + " holds no module");
    loaded->module = std::move(parsed.modules[0]);
  }
  ASSIGN_OR_RETURN(loaded->args, interpreter::RandomArguments(*loaded->module, 1));
  const Computation& entry = *loaded->module->entry();
  for (const Instruction* parameter : entry.parameters()) {
    if (parameter != nullptr) loaded->min_bytes += parameter->shape().ByteSize();
  }
  loaded->min_bytes += entry.root()->shape().ByteSize();
  slot = std::move(loaded);
  return slot.get();
}

// The loaded workload's executable in the given mode, compiled and run once (untimed: the
// first run faults in the temporaries' pages).
StatusOr<runtime::CpuExecutable*> Compile(Loaded& loaded, bool fused) {
  if (loaded.executable != nullptr && loaded.executable_fused == fused) return loaded.executable.get();
  loaded.executable.reset();
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForCpu(*loaded.module, fused));
  ASSIGN_OR_RETURN(loaded.executable, runtime::CpuExecutable::Create(std::move(optimized)));
  loaded.executable_fused = fused;
  RETURN_IF_ERROR(loaded.executable->RunInto(loaded.args, loaded.result));
  return loaded.executable.get();
}

enum class Mode { kFused, kUnfused, kInterpreter };

void RunWorkload(benchmark::State& state, const Workload& workload, Mode mode) {
  MeasureBaselines();  // before any workload data is allocated
  StatusOr<Loaded*> loaded = Load(workload);
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().message().c_str());
    return;
  }
  double loop_seconds = 0;
  if (mode == Mode::kInterpreter) {
    (*loaded)->executable.reset();  // its temporaries are not needed
    int64_t instructions = 0;
    const LoopClock clock;
    for (auto _ : state) {
      interpreter::Interpreter interpreter;
      StatusOr<Literal> result = interpreter.Run(*(*loaded)->module, (*loaded)->args);
      if (!result.ok()) {
        state.SkipWithError(result.status().message().c_str());
        return;
      }
      benchmark::DoNotOptimize(*result);
      instructions = interpreter.stats().instructions_evaluated;
    }
    loop_seconds = clock.Seconds();
    state.counters["instructions"] = static_cast<double>(instructions);
  } else {
    StatusOr<runtime::CpuExecutable*> executable = Compile(**loaded, mode == Mode::kFused);
    if (!executable.ok()) {
      state.SkipWithError(executable.status().message().c_str());
      return;
    }
    const LoopClock clock;
    for (auto _ : state) {
      // One result reused by every run, as a caller running a step in a loop would.
      Status ran = (*executable)->RunInto((*loaded)->args, (*loaded)->result);
      if (!ran.ok()) {
        state.SkipWithError(ran.message().c_str());
        return;
      }
      benchmark::DoNotOptimize((*loaded)->result.untyped_data());
    }
    loop_seconds = clock.Seconds();
    state.counters["kernels"] = static_cast<double>((*executable)->last_kernel_launches());
    state.counters["threads"] = (*executable)->threads();
  }
  SetBandwidthCounters(state, (*loaded)->min_bytes, loop_seconds);
}

// --- Transcendentals: inline polynomial IR against libm calls ---

// ns per element of one f32 op over 2^20 elements (or the GELU loop fusion, tanh form), on
// one thread, compiled with the inline f32 math (elemental_math.cc; sin and cos forced
// inline) or, libm = true, with FUSEBOX_CPU_LIBM_MATH=1 (the calls it replaced: scalar
// tanhf, erff, ..., libmvec's vector powf, sinf, cosf), in the same run.
// Inputs are spread over [-4, 4] (positive ops: [0.01, 8]) where the functions do work.
constexpr int64_t kMathElements = int64_t{1} << 20;

struct MathCase {
  std::string name;
  std::string body;  // the entry's root computation of x (and y)
  bool positive;     // inputs > 0 (log, log1p, pow's base)
  int arity;
};

std::vector<MathCase> MathCases() {
  auto unary = [](const std::string& name, const std::string& op, bool positive = false) {
    return MathCase{name, "  ROOT r = f32[1048576] " + op + "(x)\n", positive, 1};
  };
  return {
      {"gelu_tanh",
       "  c = f32[] constant(0.0447149985)\n  s = f32[] constant(0.797884583)\n"
       "  h = f32[] constant(0.5)\n  one = f32[] constant(1)\n"
       "  cb = f32[1048576] broadcast(c), dimensions={}\n  sb = f32[1048576] broadcast(s), dimensions={}\n"
       "  hb = f32[1048576] broadcast(h), dimensions={}\n  ob = f32[1048576] broadcast(one), dimensions={}\n"
       "  x2 = f32[1048576] multiply(x, x)\n  x3 = f32[1048576] multiply(x2, x)\n"
       "  t0 = f32[1048576] multiply(cb, x3)\n  t1 = f32[1048576] add(x, t0)\n"
       "  t2 = f32[1048576] multiply(sb, t1)\n  t3 = f32[1048576] tanh(t2)\n"
       "  t4 = f32[1048576] add(ob, t3)\n  t5 = f32[1048576] multiply(hb, x)\n"
       "  ROOT g = f32[1048576] multiply(t5, t4)\n",
       false, 1},
      unary("tanh", "tanh"), unary("erf", "erf"), unary("logistic", "logistic"), unary("expm1", "exponential-minus-one"),
      unary("log1p", "log-plus-one", true), unary("sin", "sine"), unary("cos", "cosine"),
      unary("cbrt", "cbrt"), unary("rsqrt", "rsqrt", true),
      {"atan2", "  ROOT r = f32[1048576] atan2(x, y)\n", false, 2},
      {"pow", "  ROOT r = f32[1048576] power(x, y)\n", true, 2},
  };
}

void RunMath(benchmark::State& state, const MathCase& math, bool libm) {
  std::string text = "HloModule math_" + math.name + "\n\nENTRY e {\n  x = f32[1048576] parameter(0)\n";
  if (math.arity == 2) text += "  y = f32[1048576] parameter(1)\n";
  StatusOr<std::unique_ptr<Module>> module = ParseModule(text + math.body + "}\n");
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  std::vector<Literal> args;
  for (int k = 0; k < math.arity; ++k) {
    Literal arg(Shape(PrimitiveType::kF32, {kMathElements}));
    auto* values = reinterpret_cast<float*>(arg.untyped_data());
    for (int64_t i = 0; i < kMathElements; ++i) {
      const double u = static_cast<double>((static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + k) >> 11) / 0x1p53;
      values[i] = static_cast<float>(math.positive || k == 1 ? 0.01 + 8 * u : -4 + 8 * u);
    }
    args.push_back(std::move(arg));
  }
  // inline: sin and cos too (by default they stay libmvec calls where glibc has it).
  setenv(libm ? "FUSEBOX_CPU_LIBM_MATH" : "FUSEBOX_CPU_INLINE_SIN_COS", "1", 1);
  StatusOr<std::unique_ptr<Module>> optimized = passes::OptimizeForCpu(**module, /*fused=*/true);
  runtime::CpuExecutableOptions options;
  options.threads = 1;
  StatusOr<std::unique_ptr<runtime::CpuExecutable>> executable =
      optimized.ok() ? runtime::CpuExecutable::Create(std::move(*optimized), options)
                     : StatusOr<std::unique_ptr<runtime::CpuExecutable>>(optimized.status());
  unsetenv("FUSEBOX_CPU_LIBM_MATH");
  unsetenv("FUSEBOX_CPU_INLINE_SIN_COS");
  if (!executable.ok()) {
    state.SkipWithError(executable.status().message().c_str());
    return;
  }
  Literal result;
  Status ran = (*executable)->RunInto(args, result);
  const LoopClock clock;
  for (auto _ : state) {
    ran = (*executable)->RunInto(args, result);
    benchmark::DoNotOptimize(result.untyped_data());
  }
  if (!ran.ok()) {
    state.SkipWithError(ran.message().c_str());
    return;
  }
  state.counters["ns_per_element"] =
      clock.Seconds() * 1e9 / (static_cast<double>(state.iterations()) * static_cast<double>(kMathElements));
}

void RegisterMath() {
  for (const MathCase& math : MathCases()) {
    for (bool libm : {false, true}) {
      const std::string name = "Math/" + math.name + (libm ? "/libm" : "/inline");
      benchmark::RegisterBenchmark(name.c_str(), [math, libm](benchmark::State& state) { RunMath(state, math, libm); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
}

void Register(const std::string& group, const Workload& workload, bool with_interpreter) {
  std::vector<std::pair<const char*, Mode>> modes = {{"fused", Mode::kFused}, {"unfused", Mode::kUnfused}};
  if (with_interpreter) modes.push_back({"interpreter", Mode::kInterpreter});
  for (const auto& [label, mode] : modes) {
    const std::string name = group + "/" + label;
    benchmark::RegisterBenchmark(name.c_str(), [workload, mode = mode](benchmark::State& state) {
      RunWorkload(state, workload, mode);
    })->Unit(benchmark::kMillisecond)->UseRealTime();
  }
}

// Registration order is run order; benchmarks of one workload run back to back, so each
// workload's inputs are generated once.
void RegisterAll() {
  for (const auto& [name, fn] : {std::pair{"CopyBaseline/memcpy_1GiB", &CopyBaseline},
                                  std::pair{"ReadBaseline/sum_1GiB", &ReadBaseline}}) {
    benchmark::RegisterBenchmark(name, fn)
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(HardwareThreads())
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  Register("ReduceSum/4096", ReduceSum(4096), /*with_interpreter=*/true);
  Register("RunningExample/4096", RunningExample(4096), /*with_interpreter=*/true);
  Register("Elementwise/4096", Elementwise(4096), /*with_interpreter=*/true);
  Register("Softmax/4096x1024", Softmax(4096), /*with_interpreter=*/false);
  Register("LayerNorm/4096x1024", LayerNorm(4096), /*with_interpreter=*/false);
  Register("MnistTrainStep", MnistTrainStep(), /*with_interpreter=*/true);
  RegisterMath();
  // 1 GiB per input: opt-in with --benchmark_filter=Large.
  Register("ReduceSumLarge/16384", ReduceSum(16384), /*with_interpreter=*/false);
  Register("RunningExampleLarge/16384", RunningExample(16384), /*with_interpreter=*/false);
  Register("ElementwiseLarge/16384", Elementwise(16384), /*with_interpreter=*/false);
}

}  // namespace
}  // namespace fusebox

int main(int argc, char** argv) {
  fusebox::RegisterAll();
  // Without a filter, leave out the Large cases (a negative filter), so that the default
  // run takes minutes and a few GiB; --benchmark_filter=Large runs only them.
  std::vector<char*> args(argv, argv + argc);
  std::string default_filter = "--benchmark_filter=-Large";
  const bool has_filter = std::any_of(args.begin() + 1, args.end(), [](const char* a) {
    return std::strncmp(a, "--benchmark_filter", 18) == 0;
  });
  if (!has_filter) args.push_back(default_filter.data());
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
