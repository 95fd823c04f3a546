// Reference-interpreter throughput on the bundled examples: elements produced per second
// (every array element any instruction writes) and wall time per run, so that the CPU and
// GPU backends can report their speed-up over it. `XlaCpu/*` runs XLA's optimized CPU
// modules, whose variadic reduce-windows call a 23-instruction reducer per window tap, with
// the programs of scalars (InterpreterOptions::scalar_programs) on and off. Measures only.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

void RunExampleWith(benchmark::State& state, const std::string& file, bool scalar_programs) {
  std::string path = std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + file;
  auto module = ParseFile(path);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  const Module& m = *module->modules[0];
  auto args = interpreter::RandomArguments(m, 1);
  if (!args.ok()) {
    state.SkipWithError(args.status().message().c_str());
    return;
  }
  int64_t elements = 0, instructions = 0;
  interpreter::InterpreterOptions options;
  options.scalar_programs = scalar_programs;
  for (auto _ : state) {
    interpreter::Interpreter interpreter(options);
    auto result = interpreter.Run(m, *args);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    elements += interpreter.stats().elements_produced;
    instructions = interpreter.stats().instructions_evaluated;
  }
  state.counters["elements_per_second"] =
      benchmark::Counter(static_cast<double>(elements), benchmark::Counter::kIsRate);
  state.counters["instructions"] = static_cast<double>(instructions);
}

void RunExample(benchmark::State& state, const std::string& file) { RunExampleWith(state, file, true); }

BENCHMARK_CAPTURE(RunExample, reduce_sum, "reduce_sum.hlo")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunExample, mnist_train_step, "mnist_train_step.hlo")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunExample, cifar_cnn_train_step, "cifar_cnn_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(1);
// 16384x16384 f32: 2 GiB of inputs; one iteration is plenty.
BENCHMARK_CAPTURE(RunExample, running_example, "running_example.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(1);
// XLA's optimized CPU modules (assets/examples/xla_cpu): the reducers of scalars as
// programs, and the general way.
BENCHMARK_CAPTURE(RunExampleWith, xla_cpu_cifar_cnn_train_step_scalar_programs,
                  "xla_cpu/cifar_cnn_train_step.after_optimizations.hlo", true)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK_CAPTURE(RunExampleWith, xla_cpu_cifar_cnn_train_step_general,
                  "xla_cpu/cifar_cnn_train_step.after_optimizations.hlo", false)
    ->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK_CAPTURE(RunExampleWith, xla_cpu_mnist_train_step_scalar_programs,
                  "xla_cpu/mnist_train_step.after_optimizations.hlo", true)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunExampleWith, xla_cpu_mnist_train_step_general,
                  "xla_cpu/mnist_train_step.after_optimizations.hlo", false)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
