// Kernel statistics: grouping by HLO instruction, the text table and the JSON form.
#include "profiler/kernel_summary.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <string_view>

namespace fusebox::profiler {
namespace {

double Rate(int64_t amount, int64_t ns) {
  return ns > 0 ? static_cast<double>(amount) / static_cast<double>(ns) : 0.0;
}

template <typename... Args>
std::string Format(const char* format, Args... args) {
  char buf[128];
  std::snprintf(buf, sizeof(buf), format, args...);
  return buf;
}

// "950 ns", "12.345 us", "1.500 ms", "2.000 s".
std::string HumanNs(int64_t ns) {
  double v = static_cast<double>(ns);
  if (ns < 1000 && ns > -1000) return Format("%lld ns", static_cast<long long>(ns));
  if (ns < 1000000 && ns > -1000000) return Format("%.3f us", v / 1e3);
  if (ns < 1000000000 && ns > -1000000000) return Format("%.3f ms", v / 1e6);
  return Format("%.3f s", v / 1e9);
}

std::string Int(int64_t v) { return Format("%lld", static_cast<long long>(v)); }

}  // namespace

int64_t KernelSummary::KernelsPerIteration() const {
  if (iterations.empty()) return kernel_count == 0 ? 0 : -1;
  for (const IterationStats& it : iterations) {
    if (it.kernels != iterations.front().kernels) return -1;
  }
  return iterations.front().kernels;
}

KernelSummary Summarize(const Trace& trace) {
  KernelSummary summary;
  std::map<std::string, KernelStats> by_hlo;
  std::map<int64_t, IterationStats> iterations;
  int64_t first_kernel = std::numeric_limits<int64_t>::max();
  int64_t last_kernel = std::numeric_limits<int64_t>::min();
  int64_t run_wall = 0;
  bool has_runs = false;

  for (const TraceEvent& e : trace.events()) {
    IterationStats& iter = iterations[e.iteration];
    iter.iteration = e.iteration;
    if (e.category == kCategoryRun) {
      has_runs = true;
      iter.wall_ns += e.duration_ns();
      run_wall += e.duration_ns();
      continue;
    }
    if (!e.is_kernel()) continue;
    int64_t dur = e.duration_ns();
    ++summary.kernel_count;
    summary.total_kernel_ns += dur;
    summary.bytes += e.bytes();
    summary.flops += e.flops;
    first_kernel = std::min(first_kernel, e.start_ns);
    last_kernel = std::max(last_kernel, e.start_ns + dur);
    ++iter.kernels;
    iter.kernel_ns += dur;

    const std::string& key = e.hlo.empty() ? e.name : e.hlo;
    auto [it, inserted] = by_hlo.try_emplace(key);
    KernelStats& k = it->second;
    if (inserted) {
      k.hlo = key;
      k.name = e.name;
      k.computation = e.computation;
      k.kind = e.kind;
      k.min_ns = dur;
      k.max_ns = dur;
    }
    ++k.calls;
    k.total_ns += dur;
    k.min_ns = std::min(k.min_ns, dur);
    k.max_ns = std::max(k.max_ns, dur);
    k.bytes_read += e.bytes_read;
    k.bytes_written += e.bytes_written;
    k.flops += e.flops;
  }

  if (has_runs) {
    summary.wall_ns = run_wall;
  } else if (summary.kernel_count > 0) {
    summary.wall_ns = last_kernel - first_kernel;
  }
  for (auto& [iteration, stats] : iterations) summary.iterations.push_back(stats);
  for (auto& [key, k] : by_hlo) {
    k.mean_ns = static_cast<double>(k.total_ns) / static_cast<double>(k.calls);
    k.gb_per_s = Rate(k.bytes(), k.total_ns);
    k.gflop_per_s = Rate(k.flops, k.total_ns);
    k.share = summary.total_kernel_ns > 0
                  ? static_cast<double>(k.total_ns) / static_cast<double>(summary.total_kernel_ns)
                  : 0.0;
    summary.kernels.push_back(std::move(k));
  }
  // by_hlo is ordered by key, so a stable sort on time keeps ties in name order.
  std::stable_sort(
      summary.kernels.begin(), summary.kernels.end(),
      [](const KernelStats& a, const KernelStats& b) { return a.total_ns > b.total_ns; });
  return summary;
}

std::string FormatSummaryTable(const KernelSummary& summary, int max_rows) {
  std::string out;
  out += "Kernels: " + Int(summary.kernel_count);
  if (!summary.iterations.empty()) {
    out += " in " + Int(static_cast<int64_t>(summary.iterations.size())) + " iteration" +
           (summary.iterations.size() == 1 ? "" : "s");
    int64_t per = summary.KernelsPerIteration();
    if (per >= 0) {
      out += " (" + Int(per) + " per iteration)";
    } else {
      out += " (per iteration:";
      for (const IterationStats& it : summary.iterations) out += " " + Int(it.kernels);
      out += ")";
    }
  }
  out += "\n";
  out +=
      "Kernel time: " + HumanNs(summary.total_kernel_ns) +
      "   Wall time: " + HumanNs(summary.wall_ns) + "   Bytes: " + Int(summary.bytes) +
      Format("   Achieved: %.2f GB/s, %.2f GFLOP/s\n", Rate(summary.bytes, summary.total_kernel_ns),
             Rate(summary.flops, summary.total_kernel_ns));
  if (summary.kernels.empty()) return out + "(no kernels)\n";

  struct Column {
    std::string header;
    bool left;  // text columns are left-aligned, numbers right-aligned
  };
  const std::vector<Column> columns = {
      {"Time (%)", false}, {"Total (ns)", false}, {"Calls", false}, {"Avg (ns)", false},
      {"Min (ns)", false}, {"Max (ns)", false},   {"Bytes", false}, {"GB/s", false},
      {"GFLOP/s", false},  {"Kind", true},        {"HLO", true},
  };
  size_t shown = summary.kernels.size();
  if (max_rows >= 0) shown = std::min(shown, static_cast<size_t>(max_rows));

  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < shown; ++i) {
    const KernelStats& k = summary.kernels[i];
    rows.push_back({Format("%.1f", k.share * 100.0), Int(k.total_ns), Int(k.calls),
                    Format("%.1f", k.mean_ns), Int(k.min_ns), Int(k.max_ns), Int(k.bytes()),
                    Format("%.2f", k.gb_per_s), Format("%.2f", k.gflop_per_s), k.kind, k.hlo});
  }
  std::vector<size_t> widths;
  for (const Column& c : columns) widths.push_back(c.header.size());
  for (const auto& row : rows) {
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      size_t pad = widths[c] - cells[c].size();
      bool last = c + 1 == cells.size();
      if (columns[c].left) {
        line += cells[c];
        if (!last) line.append(pad, ' ');
      } else {
        line.append(pad, ' ');
        line += cells[c];
      }
    }
    out += line + "\n";
  };
  out += "\n";
  std::vector<std::string> header;
  std::vector<std::string> rule;
  for (size_t c = 0; c < columns.size(); ++c) {
    header.push_back(columns[c].header);
    rule.push_back(std::string(widths[c], '-'));
  }
  emit(header);
  emit(rule);
  for (const auto& row : rows) emit(row);
  if (shown < summary.kernels.size()) {
    double rest = 0;
    for (size_t i = shown; i < summary.kernels.size(); ++i) rest += summary.kernels[i].share;
    size_t more = summary.kernels.size() - shown;
    out += Format("... %zu more kernel%s (%.1f%% of kernel time)\n", more, more == 1 ? "" : "s",
                  rest * 100.0);
  }
  return out;
}

nlohmann::ordered_json ToJson(const KernelSummary& summary) {
  nlohmann::ordered_json j;
  j["kernel_count"] = summary.kernel_count;
  j["kernels_per_iteration"] = summary.KernelsPerIteration();
  j["total_kernel_ns"] = summary.total_kernel_ns;
  j["wall_ns"] = summary.wall_ns;
  j["bytes"] = summary.bytes;
  j["flops"] = summary.flops;
  j["iterations"] = nlohmann::ordered_json::array();
  for (const IterationStats& it : summary.iterations) {
    j["iterations"].push_back({{"iteration", it.iteration},
                               {"kernels", it.kernels},
                               {"kernel_ns", it.kernel_ns},
                               {"wall_ns", it.wall_ns}});
  }
  j["kernels"] = nlohmann::ordered_json::array();
  for (const KernelStats& k : summary.kernels) {
    j["kernels"].push_back({{"hlo", k.hlo},
                            {"name", k.name},
                            {"computation", k.computation},
                            {"kind", k.kind},
                            {"calls", k.calls},
                            {"total_ns", k.total_ns},
                            {"mean_ns", k.mean_ns},
                            {"min_ns", k.min_ns},
                            {"max_ns", k.max_ns},
                            {"bytes_read", k.bytes_read},
                            {"bytes_written", k.bytes_written},
                            {"flops", k.flops},
                            {"gb_per_s", k.gb_per_s},
                            {"gflop_per_s", k.gflop_per_s},
                            {"share", k.share}});
  }
  return j;
}

}  // namespace fusebox::profiler
