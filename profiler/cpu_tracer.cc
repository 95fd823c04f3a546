// The CPU tracer's callbacks: each copies the launch's views into an event under the lock.
#include "profiler/cpu_tracer.h"

#include <string>
#include <utility>

namespace fusebox::profiler {
namespace {

TraceEvent FromLaunch(const KernelLaunch& launch, std::string_view category, int64_t start_ns,
                      int64_t end_ns) {
  TraceEvent e;
  e.name = std::string(launch.kernel);
  e.hlo = std::string(launch.hlo);
  e.computation = std::string(launch.computation);
  e.kind = std::string(launch.kind);
  e.category = std::string(category);
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.iteration = launch.iteration;
  return e;
}

}  // namespace

int CpuTracer::TrackFor(std::map<int, int>& cache, std::string_view prefix, int index) {
  auto it = cache.find(index);
  if (it != cache.end()) return it->second;
  int id = trace_.FindOrAddTrack(kProcess, std::string(prefix) + " " + std::to_string(index));
  cache.emplace(index, id);
  return id;
}

void CpuTracer::OnRunStart(int64_t iteration, int64_t start_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  open_runs_[iteration] = start_ns;
  current_iteration_ = iteration;
}

void CpuTracer::OnRunEnd(int64_t iteration, int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t start_ns = end_ns;
  auto it = open_runs_.find(iteration);
  if (it != open_runs_.end()) {
    start_ns = it->second;
    open_runs_.erase(it);
  }
  TraceEvent e;
  e.name = "run " + std::to_string(iteration);
  e.category = std::string(kCategoryRun);
  e.track = trace_.FindOrAddTrack(kProcess, "runs");
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.iteration = iteration;
  trace_.AddEvent(std::move(e));
}

void CpuTracer::OnKernel(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns, int thread) {
  // Copy the views before taking the lock: they are only valid during the callback anyway,
  // and the copies need no lock.
  TraceEvent e = FromLaunch(launch, kCategoryKernel, start_ns, end_ns);
  e.bytes_read = launch.bytes_read;
  e.bytes_written = launch.bytes_written;
  e.flops = launch.flops;
  std::lock_guard<std::mutex> lock(mu_);
  e.track = TrackFor(thread_tracks_, "thread", thread);
  trace_.AddEvent(std::move(e));
}

void CpuTracer::OnKernelShard(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns,
                              int worker) {
  TraceEvent e = FromLaunch(launch, kCategoryShard, start_ns, end_ns);
  std::lock_guard<std::mutex> lock(mu_);
  e.track = TrackFor(worker_tracks_, "worker", worker);
  trace_.AddEvent(std::move(e));
}

void CpuTracer::OnHostWork(std::string_view what, int64_t start_ns, int64_t end_ns) {
  TraceEvent e;
  e.name = std::string(what);
  e.category = std::string(kCategoryHost);
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  std::lock_guard<std::mutex> lock(mu_);
  e.track = trace_.FindOrAddTrack(kProcess, "host");
  e.iteration = current_iteration_;
  trace_.AddEvent(std::move(e));
}

Trace CpuTracer::TakeTrace() {
  Trace out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out = std::move(trace_);
    trace_ = Trace();
    thread_tracks_.clear();
    worker_tracks_.clear();
    // Runs still open stay open: their end lands in the next trace.
  }
  out.SortEvents();
  return out;
}

size_t CpuTracer::event_count() const {
  std::lock_guard<std::mutex> lock(mu_);
  return trace_.events().size();
}

}  // namespace fusebox::profiler
