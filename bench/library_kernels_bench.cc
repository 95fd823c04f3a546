// Throughput of the CPU runtime's library kernels in GFLOP/s: square f32 dots through
// Eigen's GEMM on one thread and on every core, and each convolution of the CIFAR CNN
// training step (forward, input gradient and weight gradients), labelled with the path it
// takes (FUSEBOX_CONV_IM2COL=1 forces the im2col path, for comparison). Measures only.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/computation.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/library_kernels.h"

namespace fusebox {
namespace {

int AllCores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

void SetGflops(benchmark::State& state, int64_t flops) {
  state.counters["GFLOP/s"] = benchmark::Counter(static_cast<double>(flops) * 1e-9,
                                                 benchmark::Counter::kIsIterationInvariantRate);
}

// Runs `inst` (a dot or convolution) on random inputs, laid out row-major as the example's
// default layouts are.
void RunKernel(benchmark::State& state, const Instruction& inst, int threads) {
  const Literal lhs = interpreter::RandomLiteral(inst.operand(0)->shape(), 1);
  const Literal rhs = interpreter::RandomLiteral(inst.operand(1)->shape(), 2);
  std::vector<uint8_t> out(static_cast<size_t>(inst.shape().ByteSize()));
  const bool is_dot = inst.opcode() == Opcode::kDot;
  for (auto _ : state) {
    const Status status =
        is_dot ? runtime::RunDot(inst, lhs.untyped_data(), rhs.untyped_data(), out.data(), threads)
               : runtime::RunConvolution(inst, lhs.untyped_data(), rhs.untyped_data(), out.data(), threads);
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  SetGflops(state, is_dot ? runtime::DotFlops(inst) : runtime::ConvolutionFlops(inst));
  state.counters["threads"] = threads;
  if (!is_dot) state.SetLabel(runtime::ConvolutionPath(inst));  // direct, weight-gradient or im2col
}

// state.range(0): the matrix size n (n x n times n x n); state.range(1): threads, 0 for
// every core.
void DotF32Square(benchmark::State& state) {
  const std::string n = std::to_string(state.range(0));
  const std::string text =
      "HloModule m\nENTRY e {\n  a = f32[" + n + "," + n + "]{1,0} parameter(0)\n  b = f32[" + n +
      "," + n + "]{1,0} parameter(1)\n  ROOT d = f32[" + n + "," + n +
      "]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
  auto module = ParseModule(text);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  const int threads = state.range(1) == 0 ? AllCores() : static_cast<int>(state.range(1));
  RunKernel(state, *(*module)->entry()->root(), threads);
}
BENCHMARK(DotF32Square)
    ->ArgNames({"n", "threads"})
    ->ArgsProduct({{256, 1024, 2048}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A 3x3 "same" NHWC convolution of 32 images of 16x16 pixels, C -> O channels, as the
// forward pass (state.range(2) == 0) or as jax's weight gradient of it (1): the shapes
// around the fast paths' feature limits. state.range(0): C, state.range(1): O; every core.
void ConvSameNhwc(benchmark::State& state) {
  const std::string c = std::to_string(state.range(0));
  const std::string o = std::to_string(state.range(1));
  const bool gradient = state.range(2) != 0;
  const std::string text =
      gradient ? "HloModule m\nENTRY e {\n  a = f32[32,16,16," + c +
                     "]{3,2,1,0} parameter(0)\n  b = f32[32,16,16," + o +
                     "]{3,2,1,0} parameter(1)\n  ROOT r = f32[3,3," + c + "," + o +
                     "]{3,2,1,0} convolution(a, b), window={size=16x16 pad=1_1x1_1}, "
                     "dim_labels=f01b_i01o->01bf\n}\n"
               : "HloModule m\nENTRY e {\n  a = f32[32,16,16," + c +
                     "]{3,2,1,0} parameter(0)\n  b = f32[3,3," + c + "," + o +
                     "]{3,2,1,0} parameter(1)\n  ROOT r = f32[32,16,16," + o +
                     "]{3,2,1,0} convolution(a, b), window={size=3x3 pad=1_1x1_1}, "
                     "dim_labels=b01f_01io->b01f\n}\n";
  auto module = ParseModule(text);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  RunKernel(state, *(*module)->entry()->root(), AllCores());
}
BENCHMARK(ConvSameNhwc)
    ->ArgNames({"c", "o", "gradient"})
    ->ArgsProduct({{32, 64}, {32, 64, 128, 256}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The CIFAR example's convolutions, registered by name at startup.
std::unique_ptr<Module>& CifarModule() {
  static std::unique_ptr<Module> module;
  return module;
}

void RegisterCifarConvolutions() {
  const std::string path =
      std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/cifar_cnn_train_step.hlo";
  auto parsed = ParseFile(path);
  if (!parsed.ok() || parsed->modules.empty()) return;
  CifarModule() = std::move(parsed->modules[0]);
  for (const auto& computation : CifarModule()->computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kConvolution) continue;
      const Instruction* conv = inst.get();
      // One thread, two (this project's machines have two cores), and every core.
      std::vector<int> thread_counts = {1, 2};
      if (AllCores() > 2) thread_counts.push_back(0);
      for (int threads : thread_counts) {
        const std::string name = "ConvCifar/" + conv->name() + "/threads:" +
                                 (threads == 0 ? std::string("all") : std::to_string(threads));
        benchmark::RegisterBenchmark(name.c_str(),
                                     [conv, threads](benchmark::State& state) {
                                       RunKernel(state, *conv, threads == 0 ? AllCores() : threads);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
}

}  // namespace
}  // namespace fusebox

int main(int argc, char** argv) {
  fusebox::RegisterCifarConvolutions();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
