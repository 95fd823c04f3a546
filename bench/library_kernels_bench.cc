// Throughput of the CPU runtime's library kernels in GFLOP/s: square f32 dots through
// Eigen's GEMM on one thread and on every core, and each convolution of the CIFAR CNN
// training step (forward, input gradient and weight gradients), labelled with the path it
// takes (FUSEBOX_CONV_IM2COL=1 forces the im2col path, for comparison); topk against the
// sort of its decomposition, in elements a second. Measures only.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
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

// topk against the sort XLA's decomposition runs for it (topk-decomposer: a stable sort
// of (values, positions) by a total-order greater-than, then the first k), on the same
// rows in the same run: one long row of logits (a sampling step, k = 10) and a batch of
// 128 rows of a 32000-word vocabulary (k = 8). state.range(0): rows, range(1): row length,
// range(2): 0 topk, 1 the sort. Elements a second are the counter to compare.
bool GreaterInTotalOrder(const void* const* args, void*) {
  auto key = [](const void* p) {
    int32_t bits;
    std::memcpy(&bits, p, 4);
    return bits < 0 ? bits ^ 0x7fffffff : bits;
  };
  return key(args[0]) > key(args[1]);
}

void TopKOrSort(benchmark::State& state) {
  const std::string rows = std::to_string(state.range(0)), n = std::to_string(state.range(1));
  const bool sort = state.range(2) != 0;
  const std::string k = state.range(1) > 40000 ? "10" : "8";
  const std::string text =
      "HloModule m\ngt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  i = s32[] parameter(2)\n"
      "  j = s32[] parameter(3)\n  ROOT c = pred[] compare(a, b), direction=GT, type=TOTALORDER\n}\n"
      "ENTRY e {\n  x = f32[" + rows + "," + n + "] parameter(0)\n  p = s32[" + rows + "," + n +
      "] parameter(1)\n  t = (f32[" + rows + "," + k + "], s32[" + rows + "," + k + "]) topk(x), k=" + k +
      ", largest=true\n  ROOT s = (f32[" + rows + "," + n + "], s32[" + rows + "," + n +
      "]) sort(x, p), dimensions={1}, is_stable=true, to_apply=gt\n}\n";
  auto module = ParseModule(text);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  const Instruction* sort_inst = (*module)->entry()->root();
  const Instruction* topk = sort_inst->operand(0)->users()[0];
  for (const Instruction* user : sort_inst->operand(0)->users()) {
    if (user->opcode() == Opcode::kTopK) topk = user;
  }
  const Literal x = interpreter::RandomLiteral(sort_inst->operand(0)->shape(), 1);
  Literal positions(sort_inst->operand(1)->shape());
  std::vector<uint8_t> values(static_cast<size_t>(x.size_bytes())), indices(static_cast<size_t>(positions.size_bytes()));
  std::vector<uint8_t> top_values(static_cast<size_t>(topk->shape().tuple_shapes(0).ByteSize()));
  std::vector<uint8_t> top_indices(static_cast<size_t>(topk->shape().tuple_shapes(1).ByteSize()));
  for (auto _ : state) {
    Status status = Status::Ok();
    if (sort) {
      // The sort works in place: the copies of its operands are part of the decomposition.
      std::memcpy(values.data(), x.untyped_data(), values.size());
      std::memcpy(indices.data(), positions.untyped_data(), indices.size());
      status = runtime::RunSort(*sort_inst, {values.data(), indices.data()}, GreaterInTotalOrder, nullptr);
    } else {
      status = runtime::RunTopK(*topk, x.untyped_data(), top_values.data(), top_indices.data(), 1);
    }
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
    benchmark::ClobberMemory();
  }
  state.counters["elements/s"] = benchmark::Counter(static_cast<double>(x.element_count()),
                                                    benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(sort ? "stable sort (the decomposition)" : "topk");
}
BENCHMARK(TopKOrSort)
    ->ArgNames({"rows", "n", "sort"})
    ->ArgsProduct({{1}, {50000}, {0, 1}})
    ->ArgsProduct({{128}, {32000}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
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
