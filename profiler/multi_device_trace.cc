#include "profiler/multi_device_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "compiler/support/strings.h"

namespace fusebox::profiler {
namespace {

std::string DeviceProcess(int64_t device) { return "device " + std::to_string(device); }

std::string GroupText(const std::vector<int64_t>& group) {
  std::string s = "{";
  for (size_t i = 0; i < group.size(); ++i) s += (i ? "," : "") + std::to_string(group[i]);
  return s + "}";
}

int64_t DeviceOf(const std::string& process) {
  if (process.rfind("device ", 0) != 0) return -1;
  try {
    return std::stoll(process.substr(7));
  } catch (...) {
    return -1;
  }
}

// The tables' byte counts: one decimal, up to MiB.
std::string Bytes(int64_t b) { return FormatBytes(b, {.largest = ByteUnit::kMiB}); }

}  // namespace

Trace MergeDeviceTraces(const std::vector<Trace>& per_device, const std::vector<interpreter::CollectiveEvent>& collectives,
                        const std::vector<std::pair<int64_t, int64_t>>& run_spans) {
  Trace merged;
  const size_t devices = std::max(per_device.size(), run_spans.size());
  for (size_t d = 0; d < devices; ++d) {
    const std::string process = DeviceProcess(static_cast<int64_t>(d));
    bool has_run = false;
    if (d < per_device.size()) {
      const Trace& t = per_device[d];
      std::map<int, int> remap;
      for (const Track& track : t.tracks()) remap[track.id] = merged.FindOrAddTrack(process, track.name);
      for (TraceEvent e : t.events()) {
        e.track = remap[e.track];
        has_run |= e.category == kCategoryRun;
        merged.AddEvent(std::move(e));
      }
    }
    if (!has_run && d < run_spans.size() && run_spans[d].second > run_spans[d].first) {
      TraceEvent run;
      run.name = "run 0";
      run.category = std::string(kCategoryRun);
      run.track = merged.FindOrAddTrack(process, "runs");
      run.start_ns = run_spans[d].first;
      run.end_ns = run_spans[d].second;
      merged.AddEvent(std::move(run));
    }
    merged.FindOrAddTrack(process, "collectives");
  }
  for (const interpreter::CollectiveEvent& c : collectives) {
    TraceEvent e;
    e.name = c.kind + " " + c.instruction;
    e.hlo = c.instruction;
    e.kind = c.kind;
    e.category = std::string(kCategoryCollective);
    e.track = merged.FindOrAddTrack(DeviceProcess(c.device), "collectives");
    e.start_ns = c.start_ns;
    e.end_ns = std::max(c.end_ns, c.start_ns);
    e.bytes_read = c.bytes_sent;
    e.bytes_written = c.bytes_received;
    e.group = GroupText(c.group);
    merged.AddEvent(std::move(e));
  }
  merged.SortEvents();
  return merged;
}

std::vector<DeviceRow> SummarizeDevices(const Trace& merged) {
  std::map<int64_t, DeviceRow> rows;
  for (const Track& track : merged.tracks()) {
    int64_t d = DeviceOf(track.process);
    if (d >= 0) rows[d].device = d;
  }
  for (const TraceEvent& e : merged.events()) {
    const Track* track = merged.FindTrack(e.track);
    if (track == nullptr) continue;
    int64_t d = DeviceOf(track->process);
    if (d < 0) continue;
    DeviceRow& row = rows[d];
    row.device = d;
    if (e.is_kernel()) ++row.kernels;
    if (e.category == kCategoryCollective) {
      ++row.collectives;
      row.bytes_sent += e.bytes_read;
      row.bytes_received += e.bytes_written;
      row.collective_ns += e.duration_ns();
    }
    if (e.category == kCategoryRun) row.run_ns += e.duration_ns();
  }
  std::vector<DeviceRow> out;
  for (auto& [d, row] : rows) out.push_back(row);
  return out;
}

std::vector<CollectiveRow> SummarizeCollectives(const Trace& merged) {
  std::map<std::string, CollectiveRow> rows;
  std::map<std::string, std::map<int64_t, bool>> devices;
  std::vector<std::string> order;
  for (const TraceEvent& e : merged.events()) {
    if (e.category != kCategoryCollective) continue;
    auto [it, added] = rows.try_emplace(e.hlo);
    if (added) order.push_back(e.hlo);
    CollectiveRow& row = it->second;
    row.instruction = e.hlo;
    row.kind = e.kind;
    if (row.group.empty()) row.group = e.group;
    else if (row.group != e.group && row.group.find(e.group) == std::string::npos && row.group.size() < 200)
      row.group += " " + e.group;
    ++row.instances;
    row.bytes_per_device = std::max(row.bytes_per_device, e.bytes_read);
    row.total_bytes += e.bytes_read;
    row.total_ns += e.duration_ns();
    const Track* track = merged.FindTrack(e.track);
    if (track != nullptr) devices[e.hlo][DeviceOf(track->process)] = true;
  }
  std::vector<CollectiveRow> out;
  for (const std::string& name : order) {
    CollectiveRow row = rows[name];
    row.devices = static_cast<int64_t>(devices[name].size());
    out.push_back(row);
  }
  return out;
}

std::string FormatDeviceTable(const std::vector<DeviceRow>& rows) {
  std::string out = "device   run ms  kernels  collectives      sent  received  in collectives ms\n";
  char line[200];
  for (const DeviceRow& r : rows) {
    std::snprintf(line, sizeof(line), "%6lld %8.3f %8lld %12lld %9s %9s %18.3f\n", static_cast<long long>(r.device),
                  static_cast<double>(r.run_ns) / 1e6, static_cast<long long>(r.kernels),
                  static_cast<long long>(r.collectives), Bytes(r.bytes_sent).c_str(), Bytes(r.bytes_received).c_str(),
                  static_cast<double>(r.collective_ns) / 1e6);
    out += line;
  }
  return out;
}

std::string FormatCollectiveTable(const std::vector<CollectiveRow>& rows, size_t max_rows) {
  if (rows.empty()) return "no collectives ran\n";
  std::string out = "collective                       kind                  devices  instances  per device     moved  mean ms  group\n";
  char line[400];
  for (size_t i = 0; i < rows.size() && i < max_rows; ++i) {
    const CollectiveRow& r = rows[i];
    std::snprintf(line, sizeof(line), "%-32s %-21s %7lld %10lld %11s %9s %8.3f  %s\n", r.instruction.c_str(),
                  r.kind.c_str(), static_cast<long long>(r.devices), static_cast<long long>(r.instances),
                  Bytes(r.bytes_per_device).c_str(), Bytes(r.total_bytes).c_str(),
                  r.instances ? static_cast<double>(r.total_ns) / 1e6 / static_cast<double>(r.instances) : 0.0,
                  r.group.c_str());
    out += line;
  }
  if (rows.size() > max_rows) out += "... and " + std::to_string(rows.size() - max_rows) + " more\n";
  return out;
}

}  // namespace fusebox::profiler
