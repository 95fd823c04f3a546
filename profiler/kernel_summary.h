// Kernel statistics from a trace, the way `nsys stats` summarizes a GPU run: how many
// kernels, how long, and per HLO instruction (one fusion cluster = one kernel) the calls,
// time, bytes moved and achieved bandwidth. Shards, host work and runs are not kernels.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profiler/trace.h"

namespace fusebox::profiler {

// One HLO instruction's kernel over all its calls. Rates are totals over total time:
// bytes per ns is GB/s (10^9 bytes/s), flops per ns is GFLOP/s; 0 when the time is 0.
struct KernelStats {
  std::string hlo;          // the grouping key (the kernel name when an event has no hlo)
  std::string name;         // kernel name of the first call
  std::string computation;  // of the first call
  std::string kind;         // of the first call
  int64_t calls = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double mean_ns = 0;
  int64_t bytes_read = 0;  // summed over calls
  int64_t bytes_written = 0;
  int64_t flops = 0;
  double gb_per_s = 0;
  double gflop_per_s = 0;
  double share = 0;  // total_ns / KernelSummary::total_kernel_ns, in [0, 1]

  int64_t bytes() const { return bytes_read + bytes_written; }
};

struct IterationStats {
  int64_t iteration = 0;
  int64_t kernels = 0;
  int64_t kernel_ns = 0;  // summed kernel time
  int64_t wall_ns = 0;    // the run event's duration; 0 when the iteration has none
};

struct KernelSummary {
  int64_t kernel_count = 0;  // kernel events over all iterations
  // Summed kernel durations; may exceed the wall time when kernels overlap on several threads.
  int64_t total_kernel_ns = 0;
  // Summed duration of the "run" events; when the trace has none, the span from the first
  // kernel's start to the last kernel's end.
  int64_t wall_ns = 0;
  int64_t bytes = 0;  // read + written by all kernels
  int64_t flops = 0;
  std::vector<IterationStats> iterations;  // ascending by iteration
  std::vector<KernelStats> kernels;        // by total_ns descending, then hlo ascending

  // Kernels per iteration when every iteration launches the same number, else -1.
  int64_t KernelsPerIteration() const;
};

KernelSummary Summarize(const Trace& trace);

// An aligned text table, one row per kernel, heaviest first, preceded by totals; at most
// `max_rows` rows (all when negative), the rest folded into one "N more" line.
std::string FormatSummaryTable(const KernelSummary& summary, int max_rows = -1);

nlohmann::ordered_json ToJson(const KernelSummary& summary);

}  // namespace fusebox::profiler
