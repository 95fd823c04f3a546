// report.md: the report in a few lines of Markdown, to paste into an issue.
#include <algorithm>
#include <sstream>

#include "report/report_internal.h"

namespace fusebox::report {

using namespace report_internal;

namespace {

// "N x kind (bytes)" per kind of `list`, or "none".
std::string KindList(const std::vector<CollectiveInstruction>& list) {
  std::string out;
  for (const auto& [kind, total] : ByKind(list)) {
    out += (out.empty() ? "" : ", ") + std::to_string(total.count) + " " + kind + " (" +
           Bytes(total.bytes) + "/device)";
  }
  return out.empty() ? "none" : out;
}

// report.md's lines on devices and collectives.
std::string MarkdownDevices(const Gathered& g) {
  std::ostringstream m;
  m << "- devices: " << g.devices << ", " << g.summary.devices.program << "\n";
  if (g.per_device_listed) {
    m << "- collectives (Fusebox's per-device program): " << KindList(g.fusebox_collectives);
    if (g.devices_fused) {
      int64_t sent = 0, ns = 0;
      for (const profiler::DeviceRow& r : g.devices_fused->device_rows) {
        sent = std::max(sent, r.bytes_sent / g.devices_fused->runs);
        ns = std::max(ns, r.collective_ns / g.devices_fused->runs);
      }
      m << "; fused run: up to " << Bytes(sent) << " sent and "
        << Fmt("%.3f ms", static_cast<double>(ns) / 1e6) << " in collectives per device and run";
    }
    m << "\n";
  }
  for (const passes::CollectiveDecision& c : g.collective_decisions) {
    m << "  - `%" << c.collective << "` " << c.kind << ": " << c.reason << "\n";
  }
  if (g.xla_collectives_listed) {
    m << "- XLA's collectives: "
      << (g.xla_collectives_note.empty() ? KindList(g.xla_collectives) : g.xla_collectives_note)
      << "\n";
  }
  return m.str();
}

}  // namespace

namespace report_internal {

namespace {

// One line per peak: Fusebox's fused and unfused, XLA's when a dump folder has it.
std::string MarkdownRoofline(const Gathered& g) {
  if (!g.peaks) return "- roofline: none (" + g.roofline_note + ")\n";
  int64_t memory = 0;
  for (const profiler::RooflineRow& r : g.roofline) memory += r.bound == profiler::Bound::kMemory;
  std::ostringstream m;
  m << "- roofline: peak " << Fmt("%.1f", g.peaks->gflop_per_s) << " GFLOP/s, " << Fmt("%.1f", g.peaks->gb_per_s)
    << " GB/s; " << memory << " of " << g.roofline.size() << " kernels memory-bound";
  if (!g.roofline.empty()) {
    const profiler::RooflineRow& top = g.roofline.front();
    m << "; the heaviest, `%" << top.hlo << "`, at " << Fmt("%.1f", 100 * top.fraction_of_roof) << "% of its roof ("
      << profiler::BoundName(top.bound) << "-bound)";
  }
  m << "\n";
  return m.str();
}

std::string MarkdownMemory(const Gathered& g) {
  if (!g.memory) return "- memory: no profile (" + g.memory_note + ")\n";
  std::ostringstream m;
  const session::MemoryView& v = *g.memory;
  auto peak = [](const backend::MemoryProfile& p) {
    return Bytes(p.peak_bytes) + " at `%" + p.PeakInstruction() + "` (step " + std::to_string(p.peak_step) + " of " +
           std::to_string(p.schedule.size()) + ")";
  };
  m << "- memory peak (CPU buffer assignment):";
  if (v.fused) m << " fused " << peak(*v.fused);
  if (v.unfused) m << (v.fused ? ";" : "") << " unfused " << peak(*v.unfused);
  m << "\n";
  if (v.xla.live_range.peak_bytes >= 0) {
    m << "- XLA's memory peak: " << Bytes(v.xla.live_range.peak_bytes) << " at `%" << v.xla.live_range.peak_instruction
      << "` (from `" << v.xla.live_range_file << "`)\n";
  } else if (v.xla.any()) {
    m << "- XLA's memory peak: not in its dump files\n";
  }
  return m.str();
}

}  // namespace

std::string MakeMarkdown(const Gathered& g, const ReportOptions& options) {
  std::ostringstream m;
  m << "## Fusebox report: `" << g.module_name << "`\n\n";
  m << "- source: `" << g.source << "`\n";
  m << "- kernels: " << g.before.kernels << " before fusion, " << g.after.kernels << " after\n";
  auto times = [](const session::ProfiledRun& r) {
    return Fmt("%.3f ms", r.min_s() * 1e3) + " best, " + Fmt("%.3f ms", r.median_s() * 1e3) + " median of " +
           std::to_string(r.times_s.size());
  };
  if (g.unfused) m << "- unfused " << options.backend << " run: " << times(*g.unfused) << "\n";
  else m << "- unfused " << options.backend << " run failed: " << g.unfused_error << "\n";
  if (g.fused) m << "- fused " << options.backend << " run: " << times(*g.fused) << "\n";
  else m << "- fused " << options.backend << " run failed: " << g.fused_error << "\n";
  if (g.fused && g.unfused && g.fused->min_s() > 0) {
    m << "- fused speedup: " << Fmt("%.2fx", g.unfused->min_s() / g.fused->min_s()) << " (best runs)\n";
  }
  for (const std::string& n : session::RunNotes(g.fused ? &*g.fused : nullptr, g.unfused ? &*g.unfused : nullptr)) {
    m << "- note: " << n << "\n";
  }
  m << "- numerical check: " << CheckWord(g) << " — "
    << g.check_text.substr(0, g.check_text.find('\n')) << "\n";
  if (g.devices > 1) m << MarkdownDevices(g);
  if (g.xla_comparison) {
    m << "- XLA vs Fusebox: XLA " << g.xla_comparison->xla_count.kernels << " kernels, Fusebox "
      << g.xla_comparison->fusebox_count.kernels << "; " << g.xla_comparison->Count(session::FusionMatch::kMatch) << " match, "
      << g.xla_comparison->Count(session::FusionMatch::kXlaFusesMore) << " XLA fuses more, "
      << g.xla_comparison->Count(session::FusionMatch::kFuseboxFusesMore) << " Fusebox fuses more, "
      << g.xla_comparison->Count(session::FusionMatch::kRegrouped) << " regrouped\n";
  }
  m << MarkdownMemory(g);
  m << MarkdownRoofline(g);
  m << "- environment: Fusebox " << g.env.fusebox_version << ", LLVM " << g.env.llvm_version << ", " << g.env.cpu << ", "
    << g.env.os << "; GPU: " << g.env.gpu << "\n\n";
  if (!g.fused_summary.kernels.empty()) {
    m << "| kernel | kind | total ms | GB/s | share |\n|---|---|---:|---:|---:|\n";
    size_t shown = 0;
    for (const profiler::KernelStats& k : g.fused_summary.kernels) {
      if (shown++ == 10) break;
      m << "| `" << k.hlo << "` | " << k.kind << " | " << Fmt("%.4f", static_cast<double>(k.total_ns) / 1e6) << " | "
        << Fmt("%.2f", k.gb_per_s) << " | " << Fmt("%.1f%%", k.share * 100) << " |\n";
    }
    m << "\n";
  }
  m << "Replay: `" << g.repro_command << "` (the attached `repro/` folder).\n";
  return m.str();
}

}  // namespace report_internal

}  // namespace fusebox::report
