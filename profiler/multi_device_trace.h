// The trace of a multi-device run: one process per device ("device 0", "device 1", ...)
// holding that device's runtime tracks (kernels, host work, runs: what its CpuTracer
// recorded) and a "collectives" track with one event per collective it took part in:
// the time from its arrival at the exchange to its result (waiting for the slowest member
// included, as a profiler on real devices shows it), the bytes it sent and received, and
// the group it exchanged with. Plus the per-device and per-collective tables `fusebox run`
// and the report print.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/interpreter/collective_hub.h"
#include "profiler/trace.h"

namespace fusebox::profiler {

// `per_device[d]` is device d's own trace (may be empty: an interpreter run records none);
// `run_spans[d]` its run's {start, end} (steady ns), added as a "run" event when the
// device's trace has none.
Trace MergeDeviceTraces(const std::vector<Trace>& per_device, const std::vector<interpreter::CollectiveEvent>& collectives,
                        const std::vector<std::pair<int64_t, int64_t>>& run_spans);

// Per device: kernels, collectives, bytes sent and received, time inside collectives.
struct DeviceRow {
  int64_t device = 0;
  int64_t kernels = 0;
  int64_t collectives = 0;
  int64_t bytes_sent = 0;
  int64_t bytes_received = 0;
  int64_t collective_ns = 0;
  int64_t run_ns = 0;
};
std::vector<DeviceRow> SummarizeDevices(const Trace& merged);

// Per collective instruction: kind, group text, how many times each device ran it, bytes
// per device per instance, total bytes moved over all devices, mean time.
struct CollectiveRow {
  std::string instruction;
  std::string kind;
  std::string group;
  int64_t instances = 0;      // over all devices
  int64_t devices = 0;        // devices that took part
  int64_t bytes_per_device = 0;  // sent by one device in one instance (the largest)
  int64_t total_bytes = 0;    // sent by all devices over all instances
  int64_t total_ns = 0;
};
std::vector<CollectiveRow> SummarizeCollectives(const Trace& merged);

std::string FormatDeviceTable(const std::vector<DeviceRow>& rows);
std::string FormatCollectiveTable(const std::vector<CollectiveRow>& rows, size_t max_rows = 30);

}  // namespace fusebox::profiler
