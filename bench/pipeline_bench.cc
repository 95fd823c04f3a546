// Optimization-pipeline time, per pass, on the largest corpus modules and the examples.
// Each pass's mean wall time is a counter named after the pass. Measures only.
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/verifier/verifier.h"

namespace fusebox {
namespace {

void RunPipeline(benchmark::State& state, const std::string& relative) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/" + relative);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.status().message().c_str());
    return;
  }
  const Module& input = *parsed->modules[0];
  std::map<std::string, double> pass_ns;
  int64_t runs = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<Module> module = input.Clone();
    state.ResumeTiming();
    passes::Pipeline pipeline = passes::MakeOptimizationPipeline();
    passes::PipelineOptions options;
    options.snapshot_pass_regex = "";  // time the passes, not the printing
    passes::PassContext context;
    passes::PipelineResult result;
    Status st = pipeline.Run(*module, options, context, &result);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
    for (const passes::PassRecord& r : result.passes) pass_ns[r.name] += static_cast<double>(r.wall_ns);
    ++runs;
  }
  for (const auto& [name, ns] : pass_ns) state.counters[name + "_ms"] = ns / runs * 1e-6;
  state.counters["instructions"] = static_cast<double>(input.instruction_count());
}

// What a backend compile pays: OptimizeForBackend (no texts, one verification at the end).
void ForBackend(benchmark::State& state, const std::string& relative) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/" + relative);
  if (!parsed.ok()) {
    state.SkipWithError(parsed.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto optimized = passes::OptimizeForBackend(*parsed->modules[0], /*fused=*/true);
    if (!optimized.ok()) {
      state.SkipWithError(optimized.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(optimized->get());
  }
}

BENCHMARK_CAPTURE(RunPipeline, diffrax,
                  "tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/"
                  "benchmarks/hlo/diffrax.b380012920.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunPipeline, ssd_mobilenet,
                  "tests/data/xla_corpus/openxla_xla/xla/backends/cpu/benchmarks/hlo/ssd_mobilenet_tf.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunPipeline, dlrm,
                  "tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/"
                  "benchmarks/hlo/dlrm_keras_jax_f32_test_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunPipeline, cifar_cnn_train_step, "assets/examples/cifar_cnn_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(RunPipeline, mnist_train_step, "assets/examples/mnist_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(ForBackend, cifar_cnn_train_step, "assets/examples/cifar_cnn_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(ForBackend, mnist_train_step, "assets/examples/mnist_train_step.hlo")
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
