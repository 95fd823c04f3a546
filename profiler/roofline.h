// The roofline of a run: each kernel's arithmetic intensity (flops per byte it moved)
// against what it achieved (GFLOP/s, GB/s), under the machine's two roofs — peak compute
// and peak memory bandwidth — and what bounds it. A kernel whose intensity is below the
// ridge point (peak GFLOP/s / peak GB/s) can at best reach intensity x bandwidth: it is
// memory-bound; above it, compute-bound. The "% of roof" column is achieved over that
// attainable rate; a kernel far under its roof has room the roofline does not explain
// (latency, too little parallelism, a poor loop).
//
// The peaks are the caller's (compiler/session/machine_peaks.h measures them on the CPU
// with Fusebox's own kernels); bytes and flops are the compiler's counts per kernel
// (compiler/codegen/kernel_util.h: operand and result bytes, an estimate of arithmetic),
// not hardware counters, so a kernel that re-reads data from cache can show more GB/s
// than the memory roof. Kernels that count no flops (copies, layout changes) are judged
// on bandwidth alone.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "profiler/kernel_summary.h"

namespace fusebox::profiler {

struct MachinePeaks {
  std::string device;        // "the CPU (2 threads): Intel(R) Xeon(R) ..."
  double gflop_per_s = 0;    // peak compute
  double gb_per_s = 0;       // peak memory bandwidth
  std::string how;           // how they were found ("measured: ...", "cached from ...")
  // Flops per byte where the two roofs meet.
  double ridge() const { return gb_per_s > 0 ? gflop_per_s / gb_per_s : 0; }
  bool valid() const { return gflop_per_s > 0 && gb_per_s > 0; }
};

enum class Bound { kMemory, kCompute };
std::string_view BoundName(Bound bound);  // "memory", "compute"

struct RooflineRow {
  std::string hlo;
  std::string kind;
  double share = 0;            // of the run's kernel time
  double intensity = 0;        // flops per byte (0 when it counts no flops)
  double gflop_per_s = 0;      // achieved, by the fastest call (as the peaks are best of N)
  double gb_per_s = 0;         // achieved, by the fastest call
  double attainable_gflop_per_s = 0;  // min(peak, intensity x peak bandwidth); 0 without flops
  double fraction_of_roof = 0; // achieved over attainable (bandwidth over peak without flops)
  Bound bound = Bound::kMemory;
};

// One row per kernel of `summary`, in its order (heaviest first).
std::vector<RooflineRow> Roofline(const KernelSummary& summary, const MachinePeaks& peaks);

// The peaks, then an aligned table (at most `max_rows` rows, all when negative).
std::string FormatRoofline(const std::vector<RooflineRow>& rows, const MachinePeaks& peaks, int max_rows = -1);

nlohmann::ordered_json RooflineToJson(const std::vector<RooflineRow>& rows, const MachinePeaks& peaks);

}  // namespace fusebox::profiler
