// The cost of the multi-device runtime (compiler/runtime/multi_device.h): what running a
// per-device program on N logical devices (one thread each, collectives exchanged through
// the CollectiveHub) adds over running the same per-device program N times in a row on
// one thread, and what one collective costs. Both sides run the same compiled CPU
// executable on the same per-device inputs; only the runtime around them differs.
// Measures only (see bench/README.md for the numbers and how to read them).
#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/multi_device.h"

namespace fusebox {
namespace {

// A per-device program: `elements` f32 per device, a few elementwise ops, and `reduces`
// chained all-reduces over all devices (0: none, the program never talks to the others).
std::string Program(int64_t devices, int64_t elements, int reduces) {
  std::string n = std::to_string(elements);
  std::string text = "HloModule bench, num_partitions=" + std::to_string(devices) +
                     "\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
                     "ENTRY e {\n  p = f32[" + n + "] parameter(0), sharding={devices=[" + std::to_string(devices) +
                     "]<=[" + std::to_string(devices) + "]}\n"
                     "  c = f32[] constant(0.5)\n  cb = f32[" + n + "] broadcast(c), dimensions={}\n"
                     "  x0 = f32[" + n + "] multiply(p, cb)\n";
  std::string last = "x0";
  for (int i = 0; i < reduces; ++i) {
    std::string ar = "ar" + std::to_string(i), y = "y" + std::to_string(i);
    text += "  " + ar + " = f32[" + n + "] all-reduce(" + last + "), channel_id=" + std::to_string(i + 1) +
            ", replica_groups=[1," + std::to_string(devices) + "]<=[" + std::to_string(devices) +
            "], use_global_device_ids=true, to_apply=add\n";
    text += "  " + y + " = f32[" + n + "] multiply(" + ar + ", cb)\n";
    last = y;
  }
  text += "  ROOT r = f32[" + n + "] add(" + last + ", p), sharding={devices=[" + std::to_string(devices) + "]<=[" +
          std::to_string(devices) + "]}\n}\n";
  return text;
}

struct Setup {
  std::unique_ptr<runtime::CpuExecutable> exe;
  std::vector<Literal> global;
  std::vector<std::vector<Literal>> per_device;
};

Setup Make(int64_t devices, int64_t elements, int reduces) {
  Setup s;
  auto module = ParseModule(Program(devices, elements, reduces));
  if (!module.ok()) throw std::runtime_error(std::string(module.status().message()));
  runtime::CpuExecutableOptions eo;
  eo.threads = 1;
  eo.devices = devices;
  auto exe = runtime::CpuExecutable::Create(std::move(*module), eo);
  if (!exe.ok()) throw std::runtime_error(std::string(exe.status().message()));
  s.exe = std::move(*exe);
  Literal g(Shape(PrimitiveType::kF32, {devices * elements}));
  for (int64_t i = 0; i < g.element_count(); ++i) g.SetDouble(i, static_cast<double>(i % 97) / 97.0);
  s.global.push_back(std::move(g));
  auto split = runtime::SplitArguments(s.exe->module(), s.global, devices);
  if (!split.ok()) throw std::runtime_error(std::string(split.status().message()));
  s.per_device = std::move(*split);
  return s;
}

// Baseline: the per-device program (no collectives) run N times in a row on this thread.
void BM_SequentialDeviceRuns(benchmark::State& state) {
  const int64_t devices = state.range(0), elements = state.range(1);
  Setup s = Make(devices, elements, 0);
  for (auto _ : state) {
    for (int64_t d = 0; d < devices; ++d) {
      auto r = s.exe->Run(s.per_device[static_cast<size_t>(d)]);
      benchmark::DoNotOptimize(r);
    }
  }
  state.counters["devices"] = static_cast<double>(devices);
}

// The same N runs as a multi-device run: N threads, arguments split from the global array
// and the result assembled (both included, as `fusebox run --devices N` pays them).
void BM_MultiDeviceRun(benchmark::State& state) {
  const int64_t devices = state.range(0), elements = state.range(1);
  Setup s = Make(devices, elements, 0);
  runtime::MultiDeviceOptions options;
  options.devices = devices;
  options.backend = runtime::DeviceBackend::kCpu;
  options.cpu = s.exe.get();
  for (auto _ : state) {
    auto r = runtime::RunOnDevices(s.exe->module(), s.global, options);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["devices"] = static_cast<double>(devices);
}

// 16 chained all-reduces: time per collective (rendezvous + reduction + copies).
void BM_AllReduceChain(benchmark::State& state) {
  const int64_t devices = state.range(0), elements = state.range(1);
  constexpr int kReduces = 16;
  Setup s = Make(devices, elements, kReduces);
  runtime::MultiDeviceOptions options;
  options.devices = devices;
  options.backend = runtime::DeviceBackend::kCpu;
  options.cpu = s.exe.get();
  for (auto _ : state) {
    auto r = runtime::RunOnDevices(s.exe->module(), s.global, options);
    if (!r.ok()) state.SkipWithError(std::string(r.status().message()).c_str());
    benchmark::DoNotOptimize(r);
  }
  // Seconds per all-reduce (the run's time over its 16 collectives; printed with an SI
  // suffix: 25u = 25 µs).
  state.counters["s_per_all_reduce"] = benchmark::Counter(
      kReduces, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["bytes_per_device"] = static_cast<double>(elements * 4);
}

BENCHMARK(BM_SequentialDeviceRuns)->Args({2, 256})->Args({4, 256})->Args({8, 256})->Args({4, 262144})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MultiDeviceRun)->Args({2, 256})->Args({4, 256})->Args({8, 256})->Args({4, 262144})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_AllReduceChain)->Args({2, 256})->Args({4, 256})->Args({8, 256})->Args({4, 262144})
    ->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
