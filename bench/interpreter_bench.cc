// Reference-interpreter throughput on the bundled examples: elements produced per second
// (every array element any instruction writes) and wall time per run, so that the CPU and
// GPU backends can report their speed-up over it. Measures only.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

void RunExample(benchmark::State& state, const std::string& file) {
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
  for (auto _ : state) {
    interpreter::Interpreter interpreter;
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

BENCHMARK_CAPTURE(RunExample, reduce_sum, "reduce_sum.hlo")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunExample, mnist_train_step, "mnist_train_step.hlo")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunExample, cifar_cnn_train_step, "cifar_cnn_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(1);
// 16384x16384 f32: 2 GiB of inputs; one iteration is plenty.
BENCHMARK_CAPTURE(RunExample, running_example, "running_example.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime()
    ->Iterations(1);

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
