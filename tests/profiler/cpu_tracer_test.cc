// The CPU tracer: every callback becomes one event on the right track, also when eight
// threads call it at once, and the trace it hands over feeds the summary and the exporter.
#include "profiler/cpu_tracer.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "profiler/chrome_trace.h"
#include "profiler/kernel_summary.h"

namespace fusebox::profiler {
namespace {

std::string TrackName(const Trace& trace, int id) {
  const Track* track = trace.FindTrack(id);
  return track == nullptr ? "<none>" : track->process + "/" + track->name;
}

TEST(CpuTracerTest, RecordsEachCallbackKind) {
  CpuTracer tracer;
  ExecutionObserver& observer = tracer;
  // The launch's strings die before the trace is read: the tracer must copy them.
  {
    std::string kernel = "fusion_3";
    std::string hlo = "fusion.3";
    KernelLaunch launch;
    launch.kernel = kernel;
    launch.hlo = hlo;
    launch.computation = "main.5";
    launch.kind = "fusion(kLoop)";
    launch.bytes_read = 4096;
    launch.bytes_written = 1024;
    launch.flops = 512;
    launch.iteration = 0;
    observer.OnRunStart(0, 1'000);
    observer.OnKernelShard(launch, 1'100, 1'400, 3);
    observer.OnKernel(launch, 1'050, 1'500, 0);
    std::string what = "copy while result";
    observer.OnHostWork(what, 1'500, 1'600);
    observer.OnRunEnd(0, 2'000);
  }
  EXPECT_EQ(tracer.event_count(), 4u);
  Trace trace = tracer.TakeTrace();
  EXPECT_EQ(tracer.event_count(), 0u);
  ASSERT_EQ(trace.events().size(), 4u);

  // Sorted by start: run, kernel, shard, host.
  const TraceEvent& run = trace.events()[0];
  EXPECT_EQ(run.category, "run");
  EXPECT_EQ(run.name, "run 0");
  EXPECT_EQ(run.start_ns, 1'000);
  EXPECT_EQ(run.end_ns, 2'000);
  EXPECT_EQ(TrackName(trace, run.track), "CPU/runs");

  const TraceEvent& kernel = trace.events()[1];
  EXPECT_EQ(kernel.category, "kernel");
  EXPECT_EQ(kernel.name, "fusion_3");
  EXPECT_EQ(kernel.hlo, "fusion.3");
  EXPECT_EQ(kernel.computation, "main.5");
  EXPECT_EQ(kernel.kind, "fusion(kLoop)");
  EXPECT_EQ(kernel.bytes_read, 4096);
  EXPECT_EQ(kernel.bytes_written, 1024);
  EXPECT_EQ(kernel.flops, 512);
  EXPECT_EQ(kernel.start_ns, 1'050);
  EXPECT_EQ(kernel.end_ns, 1'500);
  EXPECT_EQ(TrackName(trace, kernel.track), "CPU/thread 0");

  const TraceEvent& shard = trace.events()[2];
  EXPECT_EQ(shard.category, "shard");
  EXPECT_EQ(shard.hlo, "fusion.3");
  EXPECT_EQ(shard.bytes(), 0);  // traffic belongs to the kernel event
  EXPECT_EQ(shard.flops, 0);
  EXPECT_EQ(TrackName(trace, shard.track), "CPU/worker 3");

  const TraceEvent& host = trace.events()[3];
  EXPECT_EQ(host.category, "host");
  EXPECT_EQ(host.name, "copy while result");
  EXPECT_EQ(host.iteration, 0);
  EXPECT_EQ(TrackName(trace, host.track), "CPU/host");

  EXPECT_EQ(trace.Kernels().size(), 1u);
}

TEST(CpuTracerTest, RunsPairStartAndEndPerIteration) {
  CpuTracer tracer;
  tracer.OnRunStart(0, 100);
  tracer.OnRunEnd(0, 200);
  tracer.OnRunStart(1, 300);
  tracer.OnHostWork("alloc", 310, 320);
  tracer.OnRunEnd(1, 450);
  tracer.OnRunEnd(7, 500);    // no start: a zero-length run
  tracer.OnRunStart(2, 600);  // never ends: left out
  Trace trace = tracer.TakeTrace();
  std::vector<TraceEvent> runs;
  for (const TraceEvent& e : trace.events()) {
    if (e.category == kCategoryRun) runs.push_back(e);
  }
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].iteration, 0);
  EXPECT_EQ(runs[0].duration_ns(), 100);
  EXPECT_EQ(runs[1].iteration, 1);
  EXPECT_EQ(runs[1].duration_ns(), 150);
  EXPECT_EQ(runs[2].iteration, 7);
  EXPECT_EQ(runs[2].duration_ns(), 0);
  EXPECT_EQ(trace.EventsInIteration(1).size(), 2u);  // the run and its host work

  // The open run ends in the next trace.
  tracer.OnRunEnd(2, 900);
  Trace next = tracer.TakeTrace();
  ASSERT_EQ(next.events().size(), 1u);
  EXPECT_EQ(next.events()[0].start_ns, 600);
  EXPECT_EQ(TrackName(next, next.events()[0].track), "CPU/runs");
}

TEST(CpuTracerTest, EightThreadsEveryEventExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 2'000;
  CpuTracer tracer;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&tracer, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string id = std::to_string(t) + ":" + std::to_string(i);
        KernelLaunch launch;
        launch.kernel = id;
        launch.hlo = id;
        launch.bytes_read = t;
        launch.iteration = i % 3;
        int64_t start = NowNs();
        tracer.OnKernelShard(launch, start, start + 1, t);
        tracer.OnKernel(launch, start, start + 2, t);
        if (i % 100 == 0) tracer.OnHostWork(id, start, start + 3);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  Trace trace = tracer.TakeTrace();

  std::map<std::string, int> kernels;
  std::map<std::string, int> shards;
  int host = 0;
  for (const TraceEvent& e : trace.events()) {
    int t = std::stoi(e.name.substr(0, e.name.find(':')));
    if (e.category == kCategoryKernel) {
      ++kernels[e.name];
      EXPECT_EQ(TrackName(trace, e.track), "CPU/thread " + std::to_string(t));
      EXPECT_EQ(e.bytes_read, t);
      EXPECT_EQ(e.hlo, e.name);
      EXPECT_EQ(e.duration_ns(), 2);
    } else if (e.category == kCategoryShard) {
      ++shards[e.name];
      EXPECT_EQ(TrackName(trace, e.track), "CPU/worker " + std::to_string(t));
      EXPECT_EQ(e.duration_ns(), 1);
    } else {
      EXPECT_EQ(e.category, kCategoryHost);
      ++host;
    }
  }
  EXPECT_EQ(kernels.size(), static_cast<size_t>(kThreads * kPerThread));
  EXPECT_EQ(shards.size(), static_cast<size_t>(kThreads * kPerThread));
  for (const auto& [name, count] : kernels) EXPECT_EQ(count, 1) << name;
  for (const auto& [name, count] : shards) EXPECT_EQ(count, 1) << name;
  EXPECT_EQ(host, kThreads * kPerThread / 100);
  // One track per thread and per worker, plus the host track; no duplicates.
  EXPECT_EQ(trace.tracks().size(), static_cast<size_t>(2 * kThreads + 1));
  std::set<std::string> names;
  for (const Track& track : trace.tracks()) names.insert(track.process + "/" + track.name);
  EXPECT_EQ(names.size(), trace.tracks().size());

  // Sorted by start time on hand-over.
  for (size_t i = 1; i < trace.events().size(); ++i) {
    EXPECT_LE(trace.events()[i - 1].start_ns, trace.events()[i].start_ns);
  }
  std::map<int64_t, int64_t> per_iteration = trace.KernelCountPerIteration();
  int64_t total = 0;
  for (const auto& [iteration, count] : per_iteration) total += count;
  EXPECT_EQ(total, kThreads * kPerThread);
}

TEST(CpuTracerTest, TraceFeedsSummaryAndChromeExport) {
  CpuTracer tracer;
  for (int64_t it = 0; it < 2; ++it) {
    int64_t base = 10'000 * it;
    tracer.OnRunStart(it, base);
    KernelLaunch fusion{"fusion_0", "fusion.0", "main", "fusion(kLoop)", 2'000, 1'000, 100, it};
    KernelLaunch dot{"dot_1", "dot.1", "main", "dot", 8'000, 2'000, 64'000, it};
    tracer.OnKernel(fusion, base + 100, base + 1'100, 0);
    tracer.OnKernelShard(fusion, base + 100, base + 600, 0);
    tracer.OnKernelShard(fusion, base + 100, base + 1'000, 1);
    tracer.OnKernel(dot, base + 1'200, base + 6'200, 0);
    tracer.OnRunEnd(it, base + 7'000);
  }
  Trace trace = tracer.TakeTrace();
  KernelSummary summary = Summarize(trace);
  EXPECT_EQ(summary.kernel_count, 4);  // shards are not kernels
  EXPECT_EQ(summary.KernelsPerIteration(), 2);
  EXPECT_EQ(summary.wall_ns, 14'000);
  ASSERT_EQ(summary.kernels.size(), 2u);
  EXPECT_EQ(summary.kernels[0].hlo, "dot.1");
  EXPECT_DOUBLE_EQ(summary.kernels[0].gb_per_s, 2.0);  // 20,000 bytes in 10,000 ns
  EXPECT_DOUBLE_EQ(summary.kernels[1].gb_per_s, 3.0);  // 6,000 bytes in 2,000 ns

  nlohmann::json doc = nlohmann::json::parse(ToChromeTraceJson(trace));
  int complete = 0;
  std::set<std::string> thread_names;
  for (const nlohmann::json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") ++complete;
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      thread_names.insert(e["args"]["name"].get<std::string>());
    }
  }
  EXPECT_EQ(complete, 10);  // 2 runs, 4 kernels, 4 shards
  EXPECT_EQ(thread_names, (std::set<std::string>{"runs", "thread 0", "worker 0", "worker 1"}));
}

}  // namespace
}  // namespace fusebox::profiler
