// The CPU tracer: an ExecutionObserver that records every runtime callback into a Trace.
// Callbacks arrive from any thread; one mutex guards the trace (kernels are coarse, so the
// lock is cheap next to what it records).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>

#include "profiler/execution_observer.h"
#include "profiler/trace.h"

namespace fusebox::profiler {

// Tracks, all in process "CPU":
//   "thread N" — kernels launched by runtime thread N (OnKernel), category "kernel"
//   "worker N" — kernel shards run by pool worker N (OnKernelShard), category "shard"
//   "host"     — host work between kernels (OnHostWork), category "host"
//   "runs"     — one event "run I" per iteration, OnRunStart to OnRunEnd, category "run"
// Shards carry their kernel's name, HLO and kind but no bytes or flops: those belong to the
// whole kernel and are on its kernel event. Host work is attributed to the iteration most
// recently started. A run that never ends is left out; an end without a start is a
// zero-length run.
class CpuTracer : public ExecutionObserver {
 public:
  static constexpr std::string_view kProcess = "CPU";

  void OnRunStart(int64_t iteration, int64_t start_ns) override;
  void OnRunEnd(int64_t iteration, int64_t end_ns) override;
  void OnKernel(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns, int thread) override;
  void OnKernelShard(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns,
                     int worker) override;
  void OnHostWork(std::string_view what, int64_t start_ns, int64_t end_ns) override;

  // The trace so far, events sorted by start; the tracer starts over with an empty trace
  // (runs still open when it is taken are recorded in the next one).
  Trace TakeTrace();
  // Events recorded so far.
  size_t event_count() const;

 private:
  // Track id for ("CPU", prefix + " " + index), cached; call with mu_ held.
  int TrackFor(std::map<int, int>& cache, std::string_view prefix, int index);

  mutable std::mutex mu_;
  Trace trace_;
  std::map<int, int> thread_tracks_;      // runtime thread -> track id
  std::map<int, int> worker_tracks_;      // pool worker -> track id
  std::map<int64_t, int64_t> open_runs_;  // iteration -> start_ns
  int64_t current_iteration_ = 0;
};

}  // namespace fusebox::profiler
