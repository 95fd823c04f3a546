// GPU backend benchmarks: the seed workloads fused vs unfused on the GPU, with kernel
// launches per run and, where CUPTI can trace, the summed kernel time per run. Without a
// CUDA driver or GPU every benchmark is skipped with the reason (the machine that builds
// the project usually has none; a GPU machine runs this unchanged).
//
//   build/release/bench/gpu_backend_bench [--benchmark_filter=...]
//
// Counters: kernels = cuLaunchKernel calls per run; kernel_ms = GPU time of those kernels
// per run (CUPTI; absent without it); wall time includes copying the inputs to the device
// and the result back, which fused and unfused runs share.
//
// SkinnyGemms/*: MNIST's two gemm calls through the library, Fusebox's skinny dot, and the
// timed choice between them (kernel_ms is the comparison).
//
// LayerNorm/occupancy_{tuned,off}: layer norm 4096x1024 with scale and offset (a row
// kernel ptxas gives more than 64 registers: 3 blocks an SM, two waves on 132 SMs) with its
// occupancy request (4 blocks an SM, one wave) and without (codegen/occupancy.h).
//
// HostStaging/*: one executable, arguments uploaded before every run, alternating pinned
// staging and pageable copies run by run (the same data, the same kernels); counters
// pinned_ms and pageable_ms are the mean wall time of a run each way, speedup their ratio.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/gpu_executable.h"
#include "compiler/session/profiled_run.h"
#include "profiler/cupti_tracer.h"

namespace fusebox {
namespace {

// The seed programs at n x n f32 (the CPU benchmark's shapes), and MNIST's step.
std::string SquareProgram(const std::string& name, int64_t n, const std::string& body) {
  const std::string s = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]";
  std::string text = "HloModule " + name + "\n\nadd_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                     "  ROOT s = f32[] add(a, b)\n}\n\nENTRY main {\n";
  for (size_t at = 0, next; at < body.size(); at = next + 1) {
    next = body.find('\n', at);
    if (next == std::string::npos) next = body.size();
    std::string line = body.substr(at, next - at);
    for (size_t p; (p = line.find("$s")) != std::string::npos;) line.replace(p, 2, s);
    if (!line.empty()) text += "  " + line + "\n";
  }
  return text + "}\n";
}

std::string ReduceSum(int64_t n) {
  return SquareProgram("reduce_sum", n,
                       "x = $s parameter(0)\ny = $s parameter(1)\nz = $s parameter(2)\nmul = $s multiply(y, z)\n"
                       "add = $s add(x, mul)\nzero = f32[] constant(0)\n"
                       "ROOT sum = f32[] reduce(add, zero), dimensions={0,1}, to_apply=add_f32");
}

std::string RunningExample(int64_t n) {
  return SquareProgram("running_example", n,
                       "x = $s parameter(0)\ny = $s parameter(1)\nsq = $s multiply(x, x)\nthree = f32[] constant(3)\n"
                       "threes = $s broadcast(three), dimensions={}\nscaled = $s multiply(sq, threes)\n"
                       "shifted = $s add(scaled, y)\nzero = f32[] constant(0)\n"
                       "sum = f32[] reduce(shifted, zero), dimensions={0,1}, to_apply=add_f32\n"
                       "count = f32[] constant(" + std::to_string(n * n) + ")\nROOT mean = f32[] divide(sum, count)");
}

// relu(x[m,k] . w[k,n] + bias[n]).
std::string DenseRelu(int64_t m, int64_t k, int64_t n) {
  const std::string out = "f32[" + std::to_string(m) + "," + std::to_string(n) + "]";
  return "HloModule dense\nENTRY e {\n  x = f32[" + std::to_string(m) + "," + std::to_string(k) +
         "] parameter(0)\n  w = f32[" + std::to_string(k) + "," + std::to_string(n) + "] parameter(1)\n  bias = f32[" +
         std::to_string(n) + "] parameter(2)\n  d = " + out +
         " dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  bb = " + out +
         " broadcast(bias), dimensions={1}\n  s = " + out + " add(d, bb)\n  zero = f32[] constant(0)\n  z = " + out +
         " broadcast(zero), dimensions={}\n  ROOT r = " + out + " maximum(s, z)\n}\n";
}

struct Prepared {
  std::vector<Literal> args;
  std::unique_ptr<runtime::GpuExecutable> exe;
};

// Parses, optimizes and loads `text` with seeded random arguments; nullopt (and the
// benchmark skipped with the reason) when that fails, e.g. without a GPU.
std::optional<Prepared> Prepare(benchmark::State& state, const std::string& text, bool fused,
                                bool gpu_libraries = false,
                                runtime::GemmKernels gemm_kernels = runtime::GemmKernels::kTimed,
                                bool tune_occupancy = true, int64_t kernel_shape = -1, int64_t mma_tile = -1,
                                bool allow_tf32 = true, int64_t mma_splits = -1) {
  auto parsed = ParseModule(text);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.status().message().c_str());
    return std::nullopt;
  }
  auto args = interpreter::RandomArguments(**parsed, 1);
  auto optimized = passes::OptimizeForBackend(**parsed, fused, gpu_libraries);
  if (!args.ok() || !optimized.ok()) {
    state.SkipWithError("cannot prepare the module");
    return std::nullopt;
  }
  runtime::GpuExecutableOptions options;
  options.gemm_kernels = gemm_kernels;
  options.tune_occupancy = tune_occupancy;
  options.kernel_shape = kernel_shape;
  options.compile.mma_tile = mma_tile;
  options.compile.mma_splits = mma_splits;
  options.allow_tf32 = allow_tf32;
  auto exe = runtime::GpuExecutable::Create(std::move(*optimized), options);
  if (!exe.ok()) {
    state.SkipWithError(exe.status().message().c_str());  // "no CUDA driver (...)" here
    return std::nullopt;
  }
  return Prepared{std::move(*args), std::move(*exe)};
}

void RunOnGpu(benchmark::State& state, const std::string& text, bool fused, bool gpu_libraries = false,
              runtime::GemmKernels gemm_kernels = runtime::GemmKernels::kTimed, bool tune_occupancy = true,
              int64_t kernel_shape = -1, int64_t mma_tile = -1, bool allow_tf32 = true, int64_t mma_splits = -1) {
  std::optional<Prepared> prepared = Prepare(state, text, fused, gpu_libraries, gemm_kernels, tune_occupancy,
                                             kernel_shape, mma_tile, allow_tf32, mma_splits);
  if (!prepared) return;
  const std::vector<Literal>& args = prepared->args;
  runtime::GpuExecutable* exe = prepared->exe.get();
  Literal result;
  if (Status warm = exe->RunInto(args, result); !warm.ok()) {
    state.SkipWithError(warm.message().c_str());
    return;
  }
  profiler::CuptiTracer cupti;
  cupti.SetAnnotations(session::AnnotationsFromGpuCode(exe->code()));
  const bool traced = cupti.Start().ok();
  runtime::GpuRunOptions options;
  options.observer = traced ? &cupti : nullptr;
  options.device_tracer_active = traced;
  int64_t runs = 0;
  for (auto _ : state) {
    options.iteration = runs++;
    Status ran = exe->RunInto(args, result, options);
    if (!ran.ok()) {
      state.SkipWithError(ran.message().c_str());
      return;
    }
  }
  state.counters["kernels"] = static_cast<double>(exe->last_kernel_launches());
  state.counters["library_calls"] = static_cast<double>(exe->last_library_calls());
  if (!exe->occupancy_notes().empty()) state.SetLabel(exe->occupancy_notes()[0]);
  if (!exe->kernel_variant_notes().empty()) state.SetLabel(exe->kernel_variant_notes()[0]);
  if (traced) {
    profiler::Trace trace = cupti.TakeTrace();
    int64_t kernel_ns = 0;
    for (const profiler::TraceEvent& e : trace.Kernels()) kernel_ns += e.duration_ns();
    state.counters["kernel_ms"] = runs > 0 ? static_cast<double>(kernel_ns) * 1e-6 / static_cast<double>(runs) : 0;
    (void)cupti.Stop();
  }
}

// Upload-every-run wall time, pinned staging against pageable copies on one executable.
void CompareHostStaging(benchmark::State& state, const std::string& text) {
  std::optional<Prepared> prepared = Prepare(state, text, /*fused=*/true);
  if (!prepared) return;
  const std::vector<Literal>& args = prepared->args;
  runtime::GpuExecutable* exe = prepared->exe.get();
  Literal result;
  runtime::GpuRunOptions options;
  options.upload_arguments = true;
  const runtime::HostStaging modes[] = {runtime::HostStaging::kPinned,
                                        runtime::HostStaging::kPageable};
  for (runtime::HostStaging mode : modes) {  // warm both ways (slots allocated, pages touched)
    exe->set_host_staging(mode);
    if (Status warm = exe->RunInto(args, result, options); !warm.ok()) {
      state.SkipWithError(warm.message().c_str());
      return;
    }
  }
  double seconds[2] = {0, 0};
  int64_t runs = 0;
  for (auto _ : state) {
    for (int m = 0; m < 2; ++m) {
      exe->set_host_staging(modes[m]);
      const auto start = std::chrono::steady_clock::now();
      Status ran = exe->RunInto(args, result, options);
      seconds[m] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!ran.ok()) {
        state.SkipWithError(ran.message().c_str());
        return;
      }
    }
    ++runs;
  }
  if (runs == 0) return;
  state.counters["pinned_ms"] = seconds[0] * 1e3 / static_cast<double>(runs);
  state.counters["pageable_ms"] = seconds[1] * 1e3 / static_cast<double>(runs);
  state.counters["speedup"] = seconds[0] > 0 ? seconds[1] / seconds[0] : 0;
  if (!exe->host_staging_note().empty()) state.SetLabel(exe->host_staging_note());
}

// Attention's scores and output on jax's [batch, seq, heads, head_dim] buffers (batch 2,
// seq 512, 8 heads of 64, the compare_xla transformer size): cuBLAS reading the heads in
// place (a strided batch, a call per batch element) against Fusebox's tiled dot kernel.
std::string Attention() {
  return "HloModule attention\nENTRY e {\n"
         "  q = f32[2,512,8,64] parameter(0)\n  k = f32[2,512,8,64] parameter(1)\n"
         "  v = f32[2,512,8,64] parameter(2)\n"
         "  s = f32[2,8,512,512] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, "
         "rhs_contracting_dims={3}\n"
         "  ROOT o = f32[2,8,512,64] dot(s, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, "
         "rhs_contracting_dims={1}\n}\n";
}

// A GPT MLP layer's forward in a training step (the compare_xla size: 1024 tokens, 512 ->
// 2048): dot, bias and jax's tanh-form GELU, with the pre-activation and the tanh also
// outputs, as the backward pass reads them. `foldable`: the GELU as jax writes it, which
// the gemm-rewriter folds into one BIAS_GELU_AUX call (the tanh a loop kernel reading its
// aux); otherwise the same function with 0.044715 as 0.08943 * 0.5, which it does not
// match: a BIAS call and a loop kernel for the GELU (one multiply more per element).
std::string MlpGelu(bool foldable) {
  const std::string cube_scale = foldable ? "  c0 = f32[] constant(0.044715)\n  c0b = f32[1024,2048] broadcast(c0), dimensions={}\n"
                                            "  m0 = f32[1024,2048] multiply(p3, c0b)\n"
                                          : "  c0 = f32[] constant(0.08943)\n  c0b = f32[1024,2048] broadcast(c0), dimensions={}\n"
                                            "  h0 = f32[] constant(0.5)\n  h0b = f32[1024,2048] broadcast(h0), dimensions={}\n"
                                            "  m00 = f32[1024,2048] multiply(p3, c0b)\n  m0 = f32[1024,2048] multiply(m00, h0b)\n";
  return "HloModule mlp_gelu\nENTRY e {\n"
         "  x = f32[1024,512] parameter(0)\n  w = f32[512,2048] parameter(1)\n  b = f32[2048] parameter(2)\n"
         "  d = f32[1024,2048] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
         "  bb = f32[1024,2048] broadcast(b), dimensions={1}\n  v = f32[1024,2048] add(d, bb)\n"
         "  p2 = f32[1024,2048] multiply(v, v)\n  p3 = f32[1024,2048] multiply(p2, v)\n" +
         cube_scale +
         "  s0 = f32[1024,2048] add(v, m0)\n"
         "  c1 = f32[] constant(0.797884583)\n  c1b = f32[1024,2048] broadcast(c1), dimensions={}\n"
         "  m1 = f32[1024,2048] multiply(s0, c1b)\n  t = f32[1024,2048] tanh(m1)\n"
         "  one = f32[] constant(1)\n  oneb = f32[1024,2048] broadcast(one), dimensions={}\n"
         "  a1 = f32[1024,2048] add(t, oneb)\n  half = f32[] constant(0.5)\n"
         "  halfb = f32[1024,2048] broadcast(half), dimensions={}\n  m2 = f32[1024,2048] multiply(a1, halfb)\n"
         "  g = f32[1024,2048] multiply(v, m2)\n"
         "  ROOT out = (f32[1024,2048], f32[1024,2048], f32[1024,2048]) tuple(g, v, t)\n}\n";
}

// MNIST's two gemms (a batch of 128, 784 -> 10): the forward with its bias and the weight
// gradient, each a skinny gemm call; run through the library, through Fusebox's skinny
// dot, and timed (whichever was faster at compile time).
std::string SkinnyGemms() {
  return "HloModule skinny\nENTRY e {\n"
         "  x = f32[128,784] parameter(0)\n  w = f32[784,10] parameter(1)\n  b = f32[10] parameter(2)\n"
         "  g = f32[128,10] parameter(3)\n"
         "  d = f32[128,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
         "  bb = f32[128,10] broadcast(b), dimensions={1}\n  y = f32[128,10] add(d, bb)\n"
         "  dw = f32[784,10] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}\n"
         "  ROOT out = (f32[128,10], f32[784,10]) tuple(y, dw)\n}\n";
}

// Layer norm over rows of 1024 with a scale and an offset, as jax writes it.
std::string LayerNorm(int64_t rows) {
  const std::string s = "f32[" + std::to_string(rows) + ",1024]", r = "f32[" + std::to_string(rows) + "]";
  return "HloModule layer_norm\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
         "ENTRY e {\n  x = " + s + " parameter(0)\n  g = f32[1024] parameter(1)\n  o = f32[1024] parameter(2)\n"
         "  zero = f32[] constant(0)\n  n = f32[] constant(1024)\n  nb = " + r + " broadcast(n), dimensions={}\n"
         "  s1 = " + r + " reduce(x, zero), dimensions={1}, to_apply=add\n  mean = " + r + " divide(s1, nb)\n"
         "  mb = " + s + " broadcast(mean), dimensions={0}\n  c = " + s + " subtract(x, mb)\n"
         "  sq = " + s + " multiply(c, c)\n  s2 = " + r + " reduce(sq, zero), dimensions={1}, to_apply=add\n"
         "  var = " + r + " divide(s2, nb)\n  eps = f32[] constant(1e-05)\n  eb = " + r + " broadcast(eps), dimensions={}\n"
         "  ve = " + r + " add(var, eb)\n  rs = " + r + " rsqrt(ve)\n  rb = " + s + " broadcast(rs), dimensions={0}\n"
         "  y = " + s + " multiply(c, rb)\n  gb = " + s + " broadcast(g), dimensions={1}\n"
         "  yg = " + s + " multiply(y, gb)\n  ob = " + s + " broadcast(o), dimensions={1}\n"
         "  ROOT out = " + s + " add(yg, ob)\n}\n";
}

void Register(const std::string& name, const std::string& text) {
  for (bool fused : {true, false}) {
    benchmark::RegisterBenchmark((name + (fused ? "/fused" : "/unfused")).c_str(),
                                 [text, fused](benchmark::State& state) { RunOnGpu(state, text, fused); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace
}  // namespace fusebox

int main(int argc, char** argv) {
  fusebox::Register("ReduceSum/4096", fusebox::ReduceSum(4096));
  fusebox::Register("RunningExample/4096", fusebox::RunningExample(4096));
  fusebox::Register("RunningExample/16384", fusebox::RunningExample(16384));
  for (bool library : {true, false}) {
    benchmark::RegisterBenchmark(library ? "Attention/cublas" : "Attention/tiled_dot",
                                 [library](benchmark::State& state) {
                                   fusebox::RunOnGpu(state, fusebox::Attention(), true, library);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (bool foldable : {true, false}) {
    benchmark::RegisterBenchmark(foldable ? "MlpGelu/bias_gelu_aux_call" : "MlpGelu/bias_call_then_loop",
                                 [foldable](benchmark::State& state) {
                                   fusebox::RunOnGpu(state, fusebox::MlpGelu(foldable), true, /*gpu_libraries=*/true);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (const auto& [label, mode] : {std::pair{"library", fusebox::runtime::GemmKernels::kLibrary},
                                    std::pair{"fusebox", fusebox::runtime::GemmKernels::kFusebox},
                                    std::pair{"timed", fusebox::runtime::GemmKernels::kTimed}}) {
    benchmark::RegisterBenchmark((std::string("SkinnyGemms/") + label).c_str(),
                                 [mode = mode](benchmark::State& state) {
                                   fusebox::RunOnGpu(state, fusebox::SkinnyGemms(), true, /*gpu_libraries=*/true, mode);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  for (bool tune : {true, false}) {
    benchmark::RegisterBenchmark(tune ? "LayerNorm/occupancy_tuned" : "LayerNorm/occupancy_off",
                                 [tune](benchmark::State& state) {
                                   fusebox::RunOnGpu(state, fusebox::LayerNorm(4096), true, true,
                                                     fusebox::runtime::GemmKernels::kTimed, tune);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  // The layer norm's row kernel in each shape it is compiled in (GpuKernel::variants),
  // and timed (the label gives the times the runtime measured and its choice).
  for (const auto& [label, shape] : {std::pair{"timed", int64_t{-1}}, std::pair{"warp", int64_t{0}},
                                     std::pair{"64_threads", int64_t{1}}, std::pair{"128_threads", int64_t{2}},
                                     std::pair{"256_threads", int64_t{3}}}) {
    benchmark::RegisterBenchmark((std::string("LayerNorm/shape_") + label).c_str(),
                                 [shape = shape](benchmark::State& state) {
                                   fusebox::RunOnGpu(state, fusebox::LayerNorm(4096), true, true,
                                                     fusebox::runtime::GemmKernels::kTimed, true, shape);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  // A dense layer (x[256,784] . w[784,512] + bias, relu: the MLP's first) and a
  // transformer-sized one (4096 x 1024 x 1024): cuBLASLt alone, Fusebox's tensor-core dot in
  // each block tile (libraries off; k split by the plan's rule and not), its default and
  // timed tiles, the library against Fusebox's kernel timed (the label names the choice),
  // and the full-f32 tiled dot.
  for (const auto& [size, m, k, n] : {std::tuple{"256x784x512", 256, 784, 512}, std::tuple{"4096x1024x1024", 4096, 1024, 1024}}) {
    const std::string text = fusebox::DenseRelu(m, k, n);
    auto add = [&](const std::string& label, auto run) {
      benchmark::RegisterBenchmark(("Dense/" + std::string(size) + "/" + label).c_str(), run)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    };
    add("cublas", [text](benchmark::State& state) {
      fusebox::RunOnGpu(state, text, true, true, fusebox::runtime::GemmKernels::kLibrary);
    });
    add("cublas_or_fusebox_timed", [text](benchmark::State& state) {
      fusebox::RunOnGpu(state, text, true, true, fusebox::runtime::GemmKernels::kTimed);
    });
    add("tensor_core_timed", [text](benchmark::State& state) { fusebox::RunOnGpu(state, text, true, false); });
    for (int64_t tile = 0; tile < fusebox::codegen::gpu::kMmaTileCount; ++tile) {
      std::string label = "tensor_core_" + fusebox::codegen::gpu::MmaTileLabel(tile);
      label = label.substr(0, label.find(' '));
      add(label, [text, tile](benchmark::State& state) {
        fusebox::RunOnGpu(state, text, true, false, fusebox::runtime::GemmKernels::kTimed, true, -1, tile);
      });
      // The same tile with k not split (the line above splits k where the plan's rule does:
      // 32x32 and 64x64 at 256x784x512).
      add(label + "_unsplit", [text, tile](benchmark::State& state) {
        fusebox::RunOnGpu(state, text, true, false, fusebox::runtime::GemmKernels::kTimed, true, -1, tile, true, 1);
      });
    }
    add("tiled_f32", [text](benchmark::State& state) {
      fusebox::RunOnGpu(state, text, true, false, fusebox::runtime::GemmKernels::kTimed, true, -1, -1, false);
    });
  }
  for (int64_t n : {4096, 16384}) {
    benchmark::RegisterBenchmark(("HostStaging/RunningExample/" + std::to_string(n)).c_str(),
                                 [text = fusebox::RunningExample(n)](benchmark::State& state) {
                                   fusebox::CompareHostStaging(state, text);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
