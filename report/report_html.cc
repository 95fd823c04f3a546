// report.html: one self-contained page (inline CSS and SVG, no scripts) with the summary,
// devices, kernels, timelines, fusion graph, decisions, stages, pass diffs, the check, the
// environment and the reproducer, a section each.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "report/report_internal.h"

namespace fusebox::report {

using namespace report_internal;

namespace {

// ---- SVG timeline ----

// A stable colour per kernel name (hue from a hash), so a kernel keeps its colour in both
// timelines.
std::string ColorFor(const std::string& key) {
  uint32_t h = 2166136261u;
  for (char c : key) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  int hue = static_cast<int>(h % 360);
  return "hsl(" + std::to_string(hue) + ",62%,62%)";
}

// Events a timeline lane shows: kernels, shards, host work and (on several devices) the
// collectives each device took part in.
bool Drawn(const profiler::TraceEvent& e) {
  return e.is_kernel() || e.category == profiler::kCategoryShard ||
         e.category == profiler::kCategoryHost || e.category == profiler::kCategoryCollective;
}

std::string TimelineSvg(const profiler::Trace& full, const std::string& title) {
  if (full.empty()) return "<p class=\"note\">no events were recorded</p>";
  std::vector<int64_t> iterations = full.Iterations();
  profiler::Trace trace = iterations.empty() ? full : full.FilterIteration(iterations.back());
  std::vector<int> order;
  for (int id : trace.TrackDisplayOrder()) {
    bool used =
        std::any_of(trace.events().begin(), trace.events().end(),
                    [&](const profiler::TraceEvent& e) { return e.track == id && Drawn(e); });
    if (used) order.push_back(id);
  }
  const double width = 1060, label_w = 130, lane_h = 20, top = 24;
  const int64_t t0 = trace.start_ns();
  const double span = std::max<int64_t>(1, trace.end_ns() - t0);
  const double plot_w = width - label_w - 10;
  const double height = top + lane_h * static_cast<double>(order.size()) + 24;
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" role=\"img\" aria-label=\"" << EscapeHtml(title)
      << "\">\n";
  // Time axis: ticks every 1, 2 or 5 times a power of ten, 4 to 10 of them.
  double step_ns = std::pow(10.0, std::floor(std::log10(span / 4)));
  while (span / step_ns > 10) {
    double mantissa = step_ns / std::pow(10.0, std::floor(std::log10(step_ns) + 1e-9));
    step_ns *= (mantissa < 1.5 || mantissa > 4.5) ? 2 : 2.5;
  }
  for (double t = 0; t <= span; t += step_ns) {
    double x = label_w + plot_w * t / span;
    svg << "<line x1=\"" << x << "\" y1=\"" << top - 4 << "\" x2=\"" << x << "\" y2=\"" << height - 20
        << "\" class=\"tick\"/>";
    std::string label = t >= 1e6 ? Fmt("%.2f ms", t / 1e6) : Fmt("%.0f us", t / 1e3);
    svg << "<text x=\"" << x + 2 << "\" y=\"" << top - 8 << "\" class=\"axis\">" << label << "</text>\n";
  }
  for (size_t lane = 0; lane < order.size(); ++lane) {
    const profiler::Track* track = trace.FindTrack(order[lane]);
    double y = top + lane_h * static_cast<double>(lane);
    svg << "<text x=\"4\" y=\"" << y + 14 << "\" class=\"lane\">"
        << EscapeHtml(track ? track->process + " / " + track->name : "?") << "</text>";
    svg << "<line x1=\"" << label_w << "\" y1=\"" << y + lane_h << "\" x2=\"" << width - 10 << "\" y2=\"" << y + lane_h
        << "\" class=\"lanesep\"/>\n";
  }
  for (const profiler::TraceEvent& e : trace.events()) {
    auto lane = std::find(order.begin(), order.end(), e.track);
    if (lane == order.end()) continue;
    if (!Drawn(e)) continue;
    double y = top + lane_h * static_cast<double>(lane - order.begin());
    double x = label_w + plot_w * static_cast<double>(e.start_ns - t0) / span;
    double w = std::max(0.8, plot_w * static_cast<double>(e.duration_ns()) / span);
    std::string key = e.hlo.empty() ? e.name : e.hlo;
    bool host = e.category == profiler::kCategoryHost;
    double ms = static_cast<double>(e.duration_ns()) / 1e6;
    std::string tip = key + " (" + (e.kind.empty() ? e.category : e.kind) + "): " + Fmt("%.4f ms", ms);
    if (e.bytes() > 0) {
      tip += ", " + Bytes(e.bytes()) + ", " + Fmt("%.1f GB/s", static_cast<double>(e.bytes()) / std::max<int64_t>(1, e.duration_ns()));
    }
    svg << "<rect x=\"" << Fmt("%.2f", x) << "\" y=\"" << y + (e.category == profiler::kCategoryShard ? 7 : 2)
        << "\" width=\"" << Fmt("%.2f", w) << "\" height=\"" << (e.category == profiler::kCategoryShard ? 11 : 16)
        << "\" fill=\"" << (host ? std::string("#bbbbbb") : ColorFor(key)) << "\"><title>" << EscapeHtml(tip)
        << "</title></rect>";
    if (w > 60 && e.is_kernel()) {
      svg << "<text x=\"" << Fmt("%.2f", x + 3) << "\" y=\"" << y + 14 << "\" class=\"evlabel\">"
          << EscapeHtml(key.substr(0, static_cast<size_t>(w / 6.5))) << "</text>";
    }
    svg << "\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

// ---- HTML ----

const char* const kCss = R"(
body{font-family:"DejaVu Sans",Arial,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1f3a5f;color:#fff;padding:18px 28px}
header h1{margin:0 0 4px 0;font-size:22px}
header .sub{opacity:.85;font-size:13px}
nav{background:#fff;border-bottom:1px solid #d8dde6;padding:8px 28px;font-size:13px}
nav a{margin-right:14px;color:#1f3a5f;text-decoration:none}
main{padding:8px 28px 40px 28px}
section{background:#fff;border:1px solid #d8dde6;border-radius:6px;margin:16px 0;padding:12px 18px}
h2{font-size:17px;margin:4px 0 10px 0;color:#1f3a5f}
h3{font-size:14px;margin:14px 0 6px 0;color:#1f3a5f}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{border-bottom:1px solid #e3e7ee;padding:3px 10px;text-align:left;vertical-align:top}
th{background:#eef1f6}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
pre{font-family:"DejaVu Sans Mono",monospace;font-size:12px;background:#f3f5f8;padding:8px;overflow:auto;max-height:520px}
details{margin:4px 0}
summary{cursor:pointer;font-weight:bold;font-size:13px}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid #d8dde6;border-radius:6px;padding:8px 14px;min-width:150px;background:#fbfcfd}
.card .v{font-size:22px;font-weight:bold;color:#1f3a5f}
.card .k{font-size:12px;color:#5a6475}
.ok{color:#1b7f3b;font-weight:bold}.bad{color:#b3261e;font-weight:bold}.note{color:#5a6475;font-size:13px}
.bar{background:#8fb3e0;height:10px;display:inline-block}
.graph{overflow:auto;max-height:900px;border:1px solid #e3e7ee;background:#fff}
.graph svg{max-width:100%;height:auto}
.timeline .tick{stroke:#e3e7ee}.timeline .lanesep{stroke:#f0f2f5}
.timeline .axis{font-size:10px;fill:#5a6475}.timeline .lane{font-size:11px;fill:#1d2330}
.timeline .evlabel{font-size:10px;fill:#10131a}
.diff .add{color:#1b7f3b}.diff .del{color:#b3261e}.diff .hunk{color:#6b4fa0}
.fused{color:#1b7f3b}.notfused{color:#9a5b00}
)";

std::string Table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& numeric = {}) {
  std::ostringstream out;
  out << "<table>";
  if (std::any_of(head.begin(), head.end(), [](const std::string& h) { return !h.empty(); })) {
    out << "<tr>";
    for (size_t i = 0; i < head.size(); ++i) {
      bool num = i < numeric.size() && numeric[i];
      out << "<th" << (num ? " class=\"num\"" : "") << ">" << EscapeHtml(head[i]) << "</th>";
    }
    out << "</tr>\n";
  }
  for (const auto& row : rows) {
    out << "<tr>";
    for (size_t i = 0; i < row.size(); ++i) {
      bool num = i < numeric.size() && numeric[i];
      out << "<td" << (num ? " class=\"num\"" : "") << ">" << row[i] << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  return out.str();
}

std::string Card(const std::string& value, const std::string& label) {
  return "<div class=\"card\"><div class=\"v\">" + EscapeHtml(value) + "</div><div class=\"k\">" + EscapeHtml(label) +
         "</div></div>";
}

std::string KernelRows(const profiler::KernelSummary& s, std::vector<std::vector<std::string>>* rows) {
  for (const profiler::KernelStats& k : s.kernels) {
    int bar = static_cast<int>(std::lround(k.share * 120));
    rows->push_back({EscapeHtml(k.hlo), EscapeHtml(k.kind), std::to_string(k.calls),
                     Fmt("%.4f", static_cast<double>(k.total_ns) / 1e6), Fmt("%.2f", k.mean_ns / 1e3),
                     Bytes(k.bytes()), Fmt("%.2f", k.gb_per_s), Fmt("%.2f", k.gflop_per_s),
                     "<span class=\"bar\" style=\"width:" + std::to_string(std::max(1, bar)) + "px\"></span> " +
                         Fmt("%.1f%%", k.share * 100)});
  }
  return "";
}

std::string StagePre(const std::string& text, int64_t max_bytes, const std::string& file) {
  if (static_cast<int64_t>(text.size()) <= max_bytes) return "<pre>" + EscapeHtml(text) + "</pre>";
  size_t cut = text.rfind('\n', static_cast<size_t>(max_bytes));
  if (cut == std::string::npos) cut = static_cast<size_t>(max_bytes);
  return "<pre>" + EscapeHtml(text.substr(0, cut)) + "</pre><p class=\"note\">cut at " + Bytes(static_cast<int64_t>(cut)) +
         " of " + Bytes(static_cast<int64_t>(text.size())) + "; the whole stage is in stages/" + EscapeHtml(file) + "</p>";
}

std::string DiffPre(const std::string& unified) {
  std::ostringstream out;
  out << "<pre class=\"diff\">";
  std::istringstream in(unified);
  std::string line;
  while (std::getline(in, line)) {
    const char* cls = nullptr;
    if (line.rfind("@@", 0) == 0) cls = "hunk";
    else if (line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0) cls = "hunk";
    else if (!line.empty() && line[0] == '+') cls = "add";
    else if (!line.empty() && line[0] == '-') cls = "del";
    if (cls) out << "<span class=\"" << cls << "\">" << EscapeHtml(line) << "</span>\n";
    else out << EscapeHtml(line) << "\n";
  }
  out << "</pre>";
  return out.str();
}

std::string RunTimes(const std::optional<session::ProfiledRun>& run, const std::string& error,
                     const std::string& launches) {
  if (!run) return "<span class=\"bad\">did not run</span>: " + EscapeHtml(error);
  return EscapeHtml(Fmt("%.3f ms", run->median_s() * 1e3)) + " median of " +
         std::to_string(run->times_s.size()) + " (min " +
         EscapeHtml(Fmt("%.3f ms", run->min_s() * 1e3)) + "), " +
         std::to_string(run->launches_per_run) + launches + ", compile " +
         EscapeHtml(Fmt("%.3f s", run->compile_s));
}

// Per-run rows of one multi-device run: each device's run time, kernels, collectives,
// bytes and time inside collectives, as means over the runs.
std::string DeviceTable(const Gathered::DeviceRun& run, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  const int64_t n = run.runs;
  for (const profiler::DeviceRow& r : run.device_rows) {
    rows.push_back(
        {std::to_string(r.device),
         Fmt("%.3f", static_cast<double>(r.run_ns) / 1e6 / static_cast<double>(n)),
         std::to_string(r.kernels / n), std::to_string(r.collectives / n), Bytes(r.bytes_sent / n),
         Bytes(r.bytes_received / n),
         Fmt("%.3f", static_cast<double>(r.collective_ns) / 1e6 / static_cast<double>(n))});
  }
  return "<div id=\"" + id + "\">" +
         Table({"device", "run ms", "kernels", "collectives", "bytes sent", "bytes received",
                "ms in collectives"},
               rows, {true, true, true, true, true, true, true}) +
         "</div>";
}

// Communication per collective instruction of one run, over all its devices and runs.
std::string CollectiveTable(const Gathered::DeviceRun& run, const std::string& id) {
  std::vector<std::vector<std::string>> rows;
  for (const profiler::CollectiveRow& c : run.collective_rows) {
    const double mean_ms =
        c.instances > 0 ? static_cast<double>(c.total_ns) / 1e6 / static_cast<double>(c.instances)
                        : 0;
    rows.push_back({EscapeHtml("%" + c.instruction), EscapeHtml(c.kind), std::to_string(c.devices),
                    std::to_string(c.instances), Bytes(c.bytes_per_device), Bytes(c.total_bytes),
                    Fmt("%.3f", mean_ms), EscapeHtml(c.group)});
  }
  if (rows.empty()) return "<p class=\"note\">no collective ran</p>";
  return "<div id=\"" + id + "\">" +
         Table({"collective", "kind", "devices", "instances", "bytes per device", "bytes moved",
                "mean ms", "groups"},
               rows, {false, false, true, true, true, true, true, false}) +
         "</div>";
}


// What one device sent per run in each kind of collective, measured in the run.
std::map<std::string, int64_t> SentPerDeviceByKind(const Gathered::DeviceRun& run) {
  std::map<std::string, int64_t> out;
  for (const profiler::CollectiveRow& c : run.collective_rows) {
    out[c.kind] += c.total_bytes / std::max<int64_t>(1, c.devices) / run.runs;
  }
  return out;
}

// The Devices section's head: devices, program, meshes, how the runs went, the check.
std::string DevicesOverview(const Gathered& g) {
  std::ostringstream h;
  const DeviceSummary& d = g.summary.devices;
  h << "<section id=\"devices\"><h2>Devices</h2>";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"devices", std::to_string(g.devices) + " (num_partitions " +
                                 std::to_string(d.num_partitions) + ", replica_count " +
                                 std::to_string(d.replica_count) + ")"});
  rows.push_back({"program", EscapeHtml(d.program)});
  for (const std::string& mesh : d.meshes) rows.push_back({"mesh", EscapeHtml(mesh)});
  const Gathered::DeviceRun* ran = g.devices_fused     ? &*g.devices_fused
                                   : g.devices_unfused ? &*g.devices_unfused
                                                       : nullptr;
  if (ran != nullptr) rows.push_back({"runs", EscapeHtml(ran->how)});
  for (const std::string& note : ran != nullptr ? ran->notes : std::vector<std::string>{}) {
    rows.push_back({"note", EscapeHtml(note)});
  }
  rows.push_back({"check", "<a href=\"#check\">" + EscapeHtml(CheckWord(g)) + "</a>" +
                               EscapeHtml(g.check_note.empty() ? "" : " (" + g.check_note + ")")});
  h << Table({"", ""}, rows);
  return h.str();
}

// Each parameter's and the root's sharding, and what one device holds.
std::string ShardingsPart(const DeviceSummary& d) {
  std::ostringstream h;
  h << "<h3>Shardings</h3>";
  if (d.values.empty()) {
    h << "<p class=\"note\">no parameter or root carries a sharding</p>";
  } else {
    std::vector<std::vector<std::string>> values;
    for (const DeviceSummary::Value& v : d.values) {
      values.push_back({EscapeHtml(v.name), EscapeHtml(v.sharding), EscapeHtml(v.shard_shape)});
    }
    h << Table({"value", "sharding", "one device holds"}, values);
  }
  return h.str();
}

// The collectives the SPMD partitioner inserted, each with its reason.
std::string PartitionerCollectivesPart(const Gathered& g) {
  std::ostringstream h;
  h << "<h3>Collectives the partitioner inserted</h3>";
  if (!g.collective_decisions.empty()) {
    std::vector<std::vector<std::string>> decisions;
    for (const passes::CollectiveDecision& c : g.collective_decisions) {
      decisions.push_back({EscapeHtml("%" + c.collective), EscapeHtml(c.kind),
                           EscapeHtml("%" + c.for_instruction), EscapeHtml(c.groups),
                           Bytes(c.bytes_per_device), EscapeHtml(c.reason)});
    }
    h << "<div id=\"collective-decisions\">"
      << Table({"collective", "kind", "for", "groups", "bytes per device", "reason"}, decisions,
               {false, false, false, false, true, false})
      << "</div>";
  } else if (!g.per_device_listed) {
    h << "<p class=\"note\">no run partitioned the module (see the runs' errors in the "
         "summary)</p>";
  } else if (g.summary.devices.program.find("per-device") != std::string::npos) {
    h << "<p class=\"note\">the module is a per-device program already: its collectives are its "
         "own</p>";
  } else {
    h << "<p class=\"note\">the partitioner inserted no collective</p>";
  }
  return h.str();
}

// Per-device and per-collective tables of the fused run (the unfused run's in folds).
std::string PerDevicePart(const Gathered& g) {
  std::ostringstream h;
  h << "<h3>Per device (fused run, mean of each device's runs)</h3>";
  if (g.devices_fused) {
    h << DeviceTable(*g.devices_fused, "devices-fused");
  } else {
    h << "<p class=\"note\">no fused run: " << EscapeHtml(g.fused_error) << "</p>";
  }
  if (g.devices_unfused) {
    h << "<details><summary>Unfused run, per device</summary>"
      << DeviceTable(*g.devices_unfused, "devices-unfused") << "</details>";
  } else {
    h << "<p class=\"note\">no unfused run: " << EscapeHtml(g.unfused_error) << "</p>";
  }

  h << "<h3>Communication per collective (fused run, all devices and runs)</h3>";
  if (g.devices_fused) h << CollectiveTable(*g.devices_fused, "collectives-fused");
  if (g.devices_unfused) {
    h << "<details><summary>Unfused run, per collective</summary>"
      << CollectiveTable(*g.devices_unfused, "collectives-unfused") << "</details>";
  }
  return h.str();
}

// XLA's collectives (from its optimized module) beside Fusebox's, by kind and each.
std::string XlaCollectivesPart(const Gathered& g) {
  std::ostringstream h;
  h << "<h3>XLA's collectives and Fusebox's</h3>";
  if (!g.xla_collectives_note.empty()) {
    h << "<p class=\"note\">" << EscapeHtml(g.xla_collectives_note) << "</p>";
  } else {
    h << "<p class=\"note\">XLA's from its optimized module in the dump folder, Fusebox's from "
         "the per-device "
         "program it ran; bytes are each collective's result on one device, summed over the "
         "kind. \"sent\" is what "
         "one device sent per run in Fusebox's fused run.</p>";
    std::map<std::string, KindTotal> xla = ByKind(g.xla_collectives);
    std::map<std::string, KindTotal> ours = ByKind(g.fusebox_collectives);
    std::map<std::string, int64_t> sent;
    if (g.devices_fused) sent = SentPerDeviceByKind(*g.devices_fused);
    std::map<std::string, bool> kinds;
    for (const auto& [k, v] : xla) kinds[k] = true;
    for (const auto& [k, v] : ours) kinds[k] = true;
    for (const auto& [k, v] : sent) kinds[k] = true;
    std::vector<std::vector<std::string>> rows_by_kind;
    for (const auto& [kind, unused] : kinds) {
      const KindTotal x = xla.count(kind) ? xla.at(kind) : KindTotal{};
      const KindTotal f = ours.count(kind) ? ours.at(kind) : KindTotal{};
      rows_by_kind.push_back(
          {EscapeHtml(kind), std::to_string(x.count), Bytes(x.bytes), std::to_string(f.count),
           Bytes(f.bytes), sent.count(kind) ? Bytes(sent.at(kind)) : "-",
           x.count == f.count && x.bytes == f.bytes ? "same"
                                                    : "<span class=\"notfused\">differs</span>"});
    }
    h << "<div id=\"xla-collectives\">"
      << Table({"kind", "XLA", "XLA bytes per device", "Fusebox", "Fusebox bytes per device",
                "Fusebox sent", ""},
               rows_by_kind, {false, true, true, true, true, true, false})
      << "</div>";
    std::vector<std::vector<std::string>> each;
    for (const CollectiveInstruction& c : g.xla_collectives) {
      each.push_back({"XLA", EscapeHtml("%" + c.name), EscapeHtml(c.kind), EscapeHtml(c.groups),
                      Bytes(c.bytes)});
    }
    for (const CollectiveInstruction& c : g.fusebox_collectives) {
      each.push_back({"Fusebox", EscapeHtml("%" + c.name), EscapeHtml(c.kind),
                      EscapeHtml(c.groups), Bytes(c.bytes)});
    }
    h << "<details><summary>Each collective</summary>"
      << Table({"", "instruction", "kind", "groups", "bytes per device"}, each,
               {false, false, false, false, true})
      << "</details>";
  }
  return h.str();
}

std::string DevicesSection(const Gathered& g) {
  std::ostringstream h;
  h << DevicesOverview(g) << ShardingsPart(g.summary.devices) << PartitionerCollectivesPart(g)
    << PerDevicePart(g);
  if (g.xla_collectives_listed) h << XlaCollectivesPart(g);
  h << "</section>\n";
  return h.str();
}

// The page's head, its title bar and the navigation.
std::string HtmlHeader(const Gathered& g, const ReportOptions& options) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
    << "<title>Fusebox report: " << EscapeHtml(g.module_name) << "</title>\n<style>" << kCss << "</style>\n</head>\n<body>\n";
  h << "<header><h1>Fusebox report: " << EscapeHtml(g.module_name) << "</h1><div class=\"sub\">"
    << EscapeHtml(g.source) << " &#183; backend " << EscapeHtml(options.backend) << " &#183; " << EscapeHtml(g.env.date)
    << "</div></header>\n";
  h << "<nav><a href=\"#summary\">Summary</a>"
    << (g.devices > 1 ? "<a href=\"#devices\">Devices</a>" : "")
    << "<a href=\"#clusters\">Kernels</a><a href=\"#timeline\">Timeline</a>"
    << "<a href=\"#graph\">Fusion graph</a><a href=\"#decisions\">Fusion decisions</a><a "
       "href=\"#stages\">Stages</a>"
    << "<a href=\"#passes\">Passes</a>"
    << (g.xla_comparison ? "<a href=\"#xla\">XLA vs Fusebox</a>" : "")
    << "<a href=\"#check\">Check</a><a href=\"#environment\">Environment</a><a "
       "href=\"#reproducer\">Reproducer</a></nav>\n<main>\n";
  return h.str();
}

// Summary: the cards, then the module, its runs and their notes.
std::string SummarySection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">";
  h << Card(std::to_string(g.before.kernels), "kernels before fusion");
  h << Card(std::to_string(g.after.kernels), "kernels after fusion");
  // Best runs: the first run of an executable also pays for faulting in its buffers.
  if (g.fused && g.unfused && g.fused->min_s() > 0) {
    h << Card(Fmt("%.2fx", g.unfused->min_s() / g.fused->min_s()), "fused speedup (best runs)");
  }
  if (g.fused) h << Card(Fmt("%.3f ms", g.fused->min_s() * 1e3), "fused run (best)");
  if (g.fused_summary.kernel_count > 0 && g.fused_summary.total_kernel_ns > 0) {
    h << Card(Fmt("%.1f GB/s", static_cast<double>(g.fused_summary.bytes) / static_cast<double>(g.fused_summary.total_kernel_ns)),
              "fused kernels' bandwidth");
  }
  h << Card(CheckWord(g), "numerical check");
  h << "</div>\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"module", EscapeHtml(g.module_name)});
  rows.push_back({"source", EscapeHtml(g.source)});
  rows.push_back({"instructions", std::to_string(g.summary.instruction_count)});
  rows.push_back({"computations", std::to_string(g.summary.computations.size())});
  std::string params;
  for (const auto& [name, shape] : g.summary.entry_parameters) {
    params += (params.empty() ? "" : ", ") + EscapeHtml(name + ": " + shape.ToString(false));
  }
  rows.push_back({"parameters", params.empty() ? "none" : params});
  rows.push_back({"result", EscapeHtml(g.summary.entry_result.ToString(false))});
  rows.push_back({"kernels before fusion", EscapeHtml(g.before.ToString())});
  rows.push_back({"kernels after fusion", EscapeHtml(g.after.ToString())});
  if (g.devices > 1) {
    rows.push_back({"devices", "<a href=\"#devices\">" + std::to_string(g.devices) +
                                   "</a>: " + EscapeHtml(g.summary.devices.program)});
  }
  const std::string launches =
      g.devices > 1 ? " kernel launches per run and device" : " kernel launches per run";
  rows.push_back({"unfused run", RunTimes(g.unfused, g.unfused_error, launches)});
  rows.push_back({"fused run", RunTimes(g.fused, g.fused_error, launches)});
  if (g.fused) {
    rows.push_back({"device", EscapeHtml(g.fused->device)});
  }
  // Run notes (CUPTI's kernel count against the launches made, dropped records, ...).
  for (const std::string& n : session::RunNotes(g.fused ? &*g.fused : nullptr, g.unfused ? &*g.unfused : nullptr)) {
    rows.push_back({"note", EscapeHtml(n)});
  }
  h << Table({"", ""}, rows) << "</section>\n";
  return h.str();
}

// Kernels per fusion cluster (fused run, unfused in a fold) and the kernel count by kind.
std::string ClustersSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"clusters\"><h2>Kernels per fusion cluster (fused run)</h2>";
  if (g.fused_summary.kernels.empty()) {
    h << "<p class=\"note\">no fused run: " << EscapeHtml(g.fused_error) << "</p>";
  } else {
    std::vector<std::vector<std::string>> k;
    KernelRows(g.fused_summary, &k);
    h << "<p class=\"note\">" << g.fused_summary.kernel_count << " kernel launches over "
      << g.fused_summary.iterations.size() << " run(s)"
      << (g.devices > 1 ? " of " + std::to_string(g.devices) + " devices (calls count every device)"
                        : "")
      << "; times summed over all runs; GB/s counts bytes read and written.</p>";
    h << Table({"HLO", "kind", "calls", "total ms", "mean us", "bytes", "GB/s", "GFLOP/s", "share"}, k,
               {false, false, true, true, true, true, true, true, false});
  }
  if (!g.unfused_summary.kernels.empty()) {
    std::vector<std::vector<std::string>> k;
    KernelRows(g.unfused_summary, &k);
    h << "<details><summary>Unfused run: " << g.unfused_summary.kernels.size() << " kernels</summary>"
      << Table({"HLO", "kind", "calls", "total ms", "mean us", "bytes", "GB/s", "GFLOP/s", "share"}, k,
               {false, false, true, true, true, true, true, true, false})
      << "</details>";
  }
  std::map<std::string, std::pair<int64_t, int64_t>> by_kind;
  for (const auto& [k, n] : g.before.by_opcode) by_kind[k].first = n;
  for (const auto& [k, n] : g.after.by_opcode) by_kind[k].second = n;
  std::vector<std::vector<std::string>> kinds;
  for (const auto& [k, n] : by_kind) kinds.push_back({EscapeHtml(k), std::to_string(n.first), std::to_string(n.second)});
  kinds.push_back({"<b>total</b>", std::to_string(g.before.kernels), std::to_string(g.after.kernels)});
  h << "<h2>Kernel count before and after fusion</h2>" << Table({"kind", "before", "after"}, kinds, {false, true, true});
  h << "</section>\n";
  return h.str();
}

// The last run's timeline, fused (unfused in a fold).
std::string TimelineSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"timeline\"><h2>Timeline (last run)</h2>";
  if (g.fused) {
    h << "<p class=\"note\">Fused: one lane per thread or stream; hover a kernel for its time and bandwidth. "
         "trace.json has every run as Chrome trace events (Perfetto, chrome://tracing).</p>"
      << TimelineSvg(g.fused->trace, "fused timeline");
  } else {
    h << "<p class=\"note\">no fused run</p>";
  }
  if (g.unfused) {
    h << "<details><summary>Unfused timeline</summary>" << TimelineSvg(g.unfused->trace, "unfused timeline")
      << "</details>";
  }
  h << "</section>\n";
  return h.str();
}

// The fusion graph of Fusebox's optimized module, inline SVG.
std::string GraphSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"graph\"><h2>Fusion graph (Fusebox's optimized module)</h2>";
  if (!g.graph_note.empty()) h << "<p class=\"note\">" << EscapeHtml(g.graph_note) << "</p>";
  if (!g.graph_svg.empty()) {
    h << "<p class=\"note\">Also in <a href=\"graph.svg\">graph.svg</a>, <a href=\"graph.png\">graph.png</a> and "
         "<a href=\"graph.dot\">graph.dot</a>.</p><div class=\"graph\">"
      << g.graph_svg << "</div>";
  }
  h << "</section>\n";
  return h.str();
}

// Every producer-consumer edge the fusion passes considered, with its reason.
std::string DecisionsSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"decisions\"><h2>Fusion decisions</h2>";
  if (g.decisions.empty()) {
    h << "<p class=\"note\">the fusion passes considered no producer-consumer edge</p>";
  } else {
    std::vector<std::vector<std::string>> d;
    int fused = 0;
    for (const passes::FusionDecision& x : g.decisions) {
      fused += x.fused ? 1 : 0;
      d.push_back({x.fused ? "<span class=\"fused\">fused</span>" : "<span class=\"notfused\">not fused</span>",
                   EscapeHtml("%" + x.producer), EscapeHtml("%" + x.consumer), EscapeHtml(x.fusion.empty() ? "" : "%" + x.fusion),
                   EscapeHtml(x.reason), EscapeHtml(x.pass)});
    }
    h << "<p class=\"note\">" << g.decisions.size() << " edges considered: " << fused << " fused, "
      << g.decisions.size() - static_cast<size_t>(fused) << " not fused.</p>";
    h << "<details" << (g.decisions.size() <= 60 ? " open=\"open\"" : "") << "><summary>All decisions</summary>"
      << Table({"", "producer", "consumer", "into", "reason", "pass"}, d) << "</details>";
  }
  h << "</section>\n";
  return h.str();
}

// Each stage's text, cut at options.max_stage_bytes_in_html.
std::string StagesSection(const Gathered& g, const ReportOptions& options) {
  std::ostringstream h;
  h << "<section id=\"stages\"><h2>Stages</h2>";
  for (const std::string& n : g.stage_notes) h << "<p class=\"note\">" << EscapeHtml(n) << "</p>";
  for (const Gathered::StageText& s : g.stages) {
    h << "<details><summary>" << EscapeHtml(s.title) << " (" << Bytes(static_cast<int64_t>(s.text.size()))
      << ")</summary>" << StagePre(s.text, options.max_stage_bytes_in_html, s.file) << "</details>\n";
  }
  h << "</section>\n";
  return h.str();
}

// The passes in order, with the diff of each that changed the module.
std::string PassesSection(const Gathered& g, const ReportOptions& options) {
  std::ostringstream h;
  h << "<section id=\"passes\"><h2>Passes</h2>";
  std::vector<std::vector<std::string>> p;
  for (const Gathered::PassDiff& d : g.passes) {
    p.push_back({EscapeHtml(d.name), d.changed ? "changed" : "-", Fmt("%.3f", d.ms), std::to_string(d.instructions),
                 d.changed ? "+" + std::to_string(d.added) + " -" + std::to_string(d.removed) : ""});
  }
  h << Table({"pass", "", "ms", "instructions after", "lines"}, p, {false, false, true, true, true});
  for (const Gathered::PassDiff& d : g.passes) {
    if (!d.changed || d.unified.empty()) continue;
    h << "<details><summary>diff of " << EscapeHtml(d.name) << " (+" << d.added << " -" << d.removed << ")</summary>"
      << DiffPre(d.unified.size() > static_cast<size_t>(options.max_stage_bytes_in_html)
                                                          ? d.unified.substr(0, static_cast<size_t>(options.max_stage_bytes_in_html))
                                                          : d.unified)
      << "</details>\n";
  }
  h << "</section>\n";
  return h.str();
}

// XLA's fusion against Fusebox's (from a dump folder).
std::string XlaSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"xla\"><h2>XLA vs Fusebox fusion</h2><p class=\"note\">XLA's after_optimizations module from "
       "the dump folder against Fusebox's, traced back to the same input instructions.</p><pre>"
    << EscapeHtml(g.xla_comparison->ToText()) << "</pre></section>\n";
  return h.str();
}

// The CPU backend's memory at its peak, fused and unfused, the largest buffers there, and
// XLA's own peak from a dump folder.
std::string MemorySection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"memory\"><h2>Memory (CPU buffer assignment)</h2>";
  if (!g.memory) {
    h << "<p class=\"note\">No memory profile: " << EscapeHtml(g.memory_note) << "</p></section>\n";
    return h.str();
  }
  const session::MemoryView& m = *g.memory;
  std::vector<std::vector<std::string>> peaks;
  auto peak_row = [&](const std::string& who, const backend::MemoryProfile& p) {
    peaks.push_back({EscapeHtml(who), Bytes(p.peak_bytes), std::to_string(p.peak_step) + " of " + std::to_string(p.schedule.size()),
                     "<code>%" + EscapeHtml(p.PeakInstruction()) + "</code>", Bytes(p.resident_bytes), ""});
  };
  if (m.fused) peak_row("Fusebox, fused", *m.fused);
  if (m.unfused) peak_row("Fusebox, unfused", *m.unfused);
  const session::XlaLiveRange& lr = m.xla.live_range;
  if (m.xla.any()) {
    peaks.push_back({"XLA", lr.peak_bytes >= 0 ? Bytes(lr.peak_bytes) : "not in its files",
                     lr.peak_step >= 0 ? std::to_string(lr.peak_step) : "", "<code>%" + EscapeHtml(lr.peak_instruction) + "</code>",
                     "", EscapeHtml(m.xla.live_range_file)});
  }
  h << Table({"", "peak", "step", "instruction", "resident", "from"}, peaks, {false, true, true, false, true, false});
  for (const std::string& note : m.xla.notes) h << "<p class=\"note\">" << EscapeHtml(note) << "</p>";
  if (m.fused) {
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < m.fused->at_peak.size() && i < 10; ++i) {
      const backend::LiveBuffer& b = m.fused->at_peak[i];
      rows.push_back({Bytes(b.bytes), std::string(backend::MemoryKindName(b.kind)), "<code>" + EscapeHtml(session::BufferName(b)) + "</code>",
                      EscapeHtml(b.shape), EscapeHtml(session::LiveRangeText(b.defined_at, b.last_use, b.steps)),
                      EscapeHtml(b.op_name)});
    }
    h << "<p>The largest buffers alive at the fused peak (" << m.fused->at_peak.size() << " in all, adding up to "
      << Bytes(m.fused->SumAtPeak()) << "):</p>"
      << Table({"bytes", "kind", "buffer", "shape", "live", "op_name"}, rows, {true, false, false, false, false, false});
  }
  h << "</section>\n";
  return h.str();
}

// A log-log roofline plot as inline SVG: the memory roof (intensity x bandwidth) up to
// the ridge, the compute roof after it, one point per kernel that counts flops.
std::string RooflineSvg(const std::vector<profiler::RooflineRow>& rows, const profiler::MachinePeaks& peaks) {
  constexpr double kW = 640, kH = 340, kLeft = 60, kBottom = 40, kTop = 16, kRight = 16;
  const double x_lo = -2, x_hi = 3;  // 0.01 .. 1000 flop/byte
  const double y_hi = std::ceil(std::log10(peaks.gflop_per_s * 2)), y_lo = y_hi - 5;
  auto px = [&](double intensity) { return kLeft + (std::log10(intensity) - x_lo) / (x_hi - x_lo) * (kW - kLeft - kRight); };
  auto py = [&](double gflops) {
    const double v = std::clamp(std::log10(gflops), y_lo, y_hi);
    return kTop + (y_hi - v) / (y_hi - y_lo) * (kH - kTop - kBottom);
  };
  std::ostringstream svg;
  svg << "<svg class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kW << "\" height=\"" << kH
      << "\" viewBox=\"0 0 " << kW << " " << kH << "\">";
  for (int e = static_cast<int>(x_lo); e <= static_cast<int>(x_hi); ++e) {
    const double x = px(std::pow(10.0, e));
    svg << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << kH - kBottom
        << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << kH - kBottom + 14
        << "\" font-size=\"10\" text-anchor=\"middle\">1e" << e << "</text>";
  }
  for (int e = static_cast<int>(y_lo); e <= static_cast<int>(y_hi); ++e) {
    const double y = py(std::pow(10.0, e));
    svg << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << kW - kRight << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/><text x=\"" << kLeft - 4 << "\" y=\"" << y + 3
        << "\" font-size=\"10\" text-anchor=\"end\">1e" << e << "</text>";
  }
  const double ridge = peaks.ridge(), left = std::pow(10.0, x_lo), right = std::pow(10.0, x_hi);
  svg << "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"" << px(left) << ","
      << py(left * peaks.gb_per_s) << " " << px(ridge) << "," << py(peaks.gflop_per_s) << " " << px(right) << ","
      << py(peaks.gflop_per_s) << "\"/>";
  for (const profiler::RooflineRow& r : rows) {
    if (r.intensity <= 0 || r.gflop_per_s <= 0) continue;
    svg << "<circle class=\"kernel\" cx=\"" << px(std::clamp(r.intensity, left, right)) << "\" cy=\""
        << py(r.gflop_per_s) << "\" r=\"4\" fill=\"" << (r.bound == profiler::Bound::kCompute ? "#2e86c1" : "#27ae60")
        << "\"><title>%" << EscapeHtml(r.hlo) << ": " << Fmt("%.3g", r.intensity) << " flop/byte, "
        << Fmt("%.3g", r.gflop_per_s) << " GFLOP/s</title></circle>";
  }
  svg << "<text x=\"" << (kW + kLeft) / 2 << "\" y=\"" << kH - 6
      << "\" font-size=\"11\" text-anchor=\"middle\">flop/byte</text><text x=\"12\" y=\"" << kH / 2
      << "\" font-size=\"11\" transform=\"rotate(-90 12 " << kH / 2 << ")\" text-anchor=\"middle\">GFLOP/s</text></svg>";
  return svg.str();
}

// The fused run's kernels under the machine's measured roofs.
std::string RooflineSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"roofline\"><h2>Roofline</h2>";
  if (!g.peaks) {
    h << "<p class=\"note\">No roofline: " << EscapeHtml(g.roofline_note) << "</p></section>\n";
    return h.str();
  }
  const profiler::MachinePeaks& p = *g.peaks;
  h << "<p>" << EscapeHtml(p.device) << ": peak " << Fmt("%.1f", p.gflop_per_s) << " GFLOP/s, " << Fmt("%.1f", p.gb_per_s)
    << " GB/s, ridge " << Fmt("%.2f", p.ridge()) << " flop/byte (" << EscapeHtml(p.how)
    << "). Each kernel's fastest call; its roof is min(peak, intensity × bandwidth).</p>"
    << RooflineSvg(g.roofline, p);
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < g.roofline.size() && i < 20; ++i) {
    const profiler::RooflineRow& r = g.roofline[i];
    rows.push_back({"<code>%" + EscapeHtml(r.hlo) + "</code>", EscapeHtml(r.kind), Fmt("%.1f%%", 100 * r.share),
                    Fmt("%.3f", r.intensity), Fmt("%.2f", r.gflop_per_s), Fmt("%.2f", r.gb_per_s),
                    r.attainable_gflop_per_s > 0 ? Fmt("%.0f", r.attainable_gflop_per_s) : "bandwidth",
                    Fmt("%.1f%%", 100 * r.fraction_of_roof), std::string(profiler::BoundName(r.bound))});
  }
  h << Table({"kernel", "kind", "time", "flop/byte", "GFLOP/s", "GB/s", "roof", "of roof", "bound by"}, rows,
             {false, false, true, true, true, true, true, true, false})
    << "</section>\n";
  return h.str();
}

// The numerical check's verdict and its report.
std::string CheckSection(const Gathered& g, const ReportOptions& options) {
  std::ostringstream h;
  h << "<section id=\"check\"><h2>Numerical check</h2><p>"
    << (g.check_ran ? (g.check_ok        ? "<span class=\"ok\">ok</span> "
                       : CheckVacuous(g) ? "<span class=\"bad\">vacuous</span> "
                                         : "<span class=\"bad\">mismatch</span> ")
                    : "")
    << "The fused " << EscapeHtml(options.backend)
    << (g.devices > 1 ? " result, assembled from " + std::to_string(g.devices) + " devices,"
                      : std::string(" result"))
    << " against the reference interpreter and its f64 shadow on the same inputs, output by "
       "output, "
       "within a bound derived from the interpreter's own rounding error"
    << (g.devices > 1
            ? "; the reference is the global program on one device where the interpreter can run it"
            : "")
    << ": </p>"
    << (g.check_note.empty() ? "" : "<p class=\"note\">" + EscapeHtml(g.check_note) + "</p>")
    << "<pre>" << EscapeHtml(g.check_text) << "</pre></section>\n";
  return h.str();
}

// The environment the report was made in.
std::string EnvironmentSection(const Gathered& g) {
  std::ostringstream h;
  std::vector<std::vector<std::string>> env;
  for (const auto& [k, v] : g.env.Rows()) env.push_back({EscapeHtml(k), EscapeHtml(v)});
  h << "<section id=\"environment\"><h2>Environment</h2>" << Table({"", ""}, env) << "</section>\n";
  return h.str();
}

// The reproducer folder and the command that replays the run.
std::string ReproducerSection(const Gathered& g) {
  std::ostringstream h;
  h << "<section id=\"reproducer\"><h2>Reproducer</h2><p>The folder <code>repro/</code> holds the module in XLA's dump "
       "layout, its inputs as .npy and the expected outputs. <code>repro/replay.sh</code> replays the run:</p><pre>"
    << EscapeHtml(g.repro_command) << "</pre></section>\n";
  return h.str();
}

}  // namespace

namespace report_internal {

std::string MakeHtml(const Gathered& g, const ReportOptions& options) {
  std::ostringstream h;
  h << HtmlHeader(g, options) << SummarySection(g);
  if (g.devices > 1) h << DevicesSection(g);
  h << ClustersSection(g) << TimelineSection(g) << GraphSection(g) << DecisionsSection(g)
    << StagesSection(g, options) << PassesSection(g, options);
  if (g.xla_comparison) h << XlaSection(g);
  h << MemorySection(g) << RooflineSection(g);
  h << CheckSection(g, options) << EnvironmentSection(g) << ReproducerSection(g);
  h << "</main>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace report_internal

}  // namespace fusebox::report
