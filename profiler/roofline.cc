// The roofline of a run (see roofline.h).
#include "profiler/roofline.h"

#include <algorithm>
#include <cstdio>

namespace fusebox::profiler {

std::string_view BoundName(Bound bound) { return bound == Bound::kCompute ? "compute" : "memory"; }

std::vector<RooflineRow> Roofline(const KernelSummary& summary, const MachinePeaks& peaks) {
  std::vector<RooflineRow> rows;
  for (const KernelStats& k : summary.kernels) {
    RooflineRow row;
    row.hlo = k.hlo;
    row.kind = k.kind;
    row.share = k.share;
    // The fastest call, as the peaks are the fastest of their runs: a first call's warm-up
    // (a library's initialization, page faults) is not the kernel's rate.
    if (k.calls > 0 && k.min_ns > 0) {
      const double calls = static_cast<double>(k.calls), ns = static_cast<double>(k.min_ns);
      row.gflop_per_s = static_cast<double>(k.flops) / calls / ns;
      row.gb_per_s = static_cast<double>(k.bytes()) / calls / ns;
    }
    if (k.flops > 0 && k.bytes() > 0) {
      row.intensity = static_cast<double>(k.flops) / static_cast<double>(k.bytes());
      row.attainable_gflop_per_s = std::min(peaks.gflop_per_s, row.intensity * peaks.gb_per_s);
      row.bound = row.intensity >= peaks.ridge() ? Bound::kCompute : Bound::kMemory;
      row.fraction_of_roof = row.attainable_gflop_per_s > 0 ? row.gflop_per_s / row.attainable_gflop_per_s : 0;
    } else {
      row.bound = Bound::kMemory;
      row.fraction_of_roof = peaks.gb_per_s > 0 ? row.gb_per_s / peaks.gb_per_s : 0;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string FormatRoofline(const std::vector<RooflineRow>& rows, const MachinePeaks& peaks, int max_rows) {
  char line[320];
  std::snprintf(line, sizeof(line),
                "roofline of %s: peak %.1f GFLOP/s, %.1f GB/s (ridge %.2f flop/byte; %s)\n", peaks.device.c_str(),
                peaks.gflop_per_s, peaks.gb_per_s, peaks.ridge(), peaks.how.c_str());
  std::string out = line;
  std::snprintf(line, sizeof(line), "  %-28s %-16s %6s %10s %10s %9s %10s %8s  %s\n", "kernel", "kind", "time%",
                "flop/byte", "GFLOP/s", "GB/s", "roof", "of roof", "bound by");
  out += line;
  const size_t shown = max_rows < 0 ? rows.size() : std::min(rows.size(), static_cast<size_t>(max_rows));
  for (size_t i = 0; i < shown; ++i) {
    const RooflineRow& r = rows[i];
    std::string roof = r.attainable_gflop_per_s > 0 ? std::to_string(static_cast<int64_t>(r.attainable_gflop_per_s + 0.5))
                                                    : "bandwidth";
    std::snprintf(line, sizeof(line), "  %-28s %-16s %5.1f%% %10.3f %10.2f %9.2f %10s %7.1f%%  %s\n",
                  ("%" + r.hlo).substr(0, 28).c_str(), r.kind.substr(0, 16).c_str(), 100 * r.share, r.intensity,
                  r.gflop_per_s, r.gb_per_s, roof.c_str(), 100 * r.fraction_of_roof,
                  std::string(BoundName(r.bound)).c_str());
    out += line;
  }
  if (shown < rows.size()) out += "  ... " + std::to_string(rows.size() - shown) + " more\n";
  return out;
}

nlohmann::ordered_json RooflineToJson(const std::vector<RooflineRow>& rows, const MachinePeaks& peaks) {
  nlohmann::ordered_json j;
  j["device"] = peaks.device;
  j["peak_gflop_per_s"] = peaks.gflop_per_s;
  j["peak_gb_per_s"] = peaks.gb_per_s;
  j["ridge_flop_per_byte"] = peaks.ridge();
  j["how"] = peaks.how;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const RooflineRow& r : rows) {
    list.push_back({{"hlo", r.hlo},
                    {"kind", r.kind},
                    {"share", r.share},
                    {"flop_per_byte", r.intensity},
                    {"gflop_per_s", r.gflop_per_s},
                    {"gb_per_s", r.gb_per_s},
                    {"attainable_gflop_per_s", r.attainable_gflop_per_s},
                    {"fraction_of_roof", r.fraction_of_roof},
                    {"bound_by", std::string(BoundName(r.bound))}});
  }
  j["kernels"] = std::move(list);
  return j;
}

}  // namespace fusebox::profiler
