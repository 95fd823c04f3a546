// The report: gather (compile, run unfused and fused, check, draw), then write HTML,
// Markdown, traces, graph files, stages, the reproducer and the tarball.
#include "report/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "compiler/check/numeric_check.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/npy.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/ir/summary.h"
#include "compiler/parser/parser.h"
#include "compiler/support/strings.h"
#include "compiler/support/text_diff.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "profiler/chrome_trace.h"
#include "profiler/kernel_summary.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/session/profiled_run.h"
#include "report/environment.h"
#include "report/tarball.h"

namespace fusebox::report {

namespace fs = std::filesystem;

std::string EscapeHtml(std::string_view text) { return HtmlEscape(text, HtmlContext::kDocument); }

namespace {

std::string Fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

// The report's byte counts: one decimal, up to TiB.
std::string Bytes(int64_t bytes) { return FormatBytes(bytes, {.largest = ByteUnit::kTiB}); }

// A cross-device collective of a per-device program, as the Devices section lists it.
struct CollectiveInstruction {
  std::string name;
  std::string kind;    // opcode without "-start"
  std::string groups;  // the attribute as written
  int64_t bytes = 0;   // its result on one device
};

// Everything the writers need, gathered once.
struct Gathered {
  std::string module_name;
  std::string source;
  ModuleSummary summary;
  KernelCount before, after;
  std::optional<session::ProfiledRun> unfused, fused;
  std::string unfused_error, fused_error;
  profiler::KernelSummary fused_summary, unfused_summary;
  std::string graph_svg, graph_note;
  std::vector<FusionDecision> decisions;
  struct StageText {
    std::string name, file, title, text;
  };
  std::vector<StageText> stages;
  std::vector<std::string> stage_notes;
  struct PassDiff {
    std::string name;
    bool changed = false;
    double ms = 0;
    int64_t instructions = 0;
    int64_t added = 0, removed = 0;
    std::string unified;
  };
  std::vector<PassDiff> passes;
  bool check_ran = false, check_ok = false;
  std::string check_text;
  Environment env;
  std::vector<ExternalStage> xla_stages;
  std::optional<FusionComparison> xla_comparison;
  std::vector<Literal> args;
  std::string repro_command;

  // Modules for more than one device: the runs above are multi-device runs (their traces
  // hold a process per device), and the Devices section shows what follows.
  int64_t devices = 1;
  struct DeviceRun {
    std::string how;
    std::vector<std::string> notes;
    std::vector<profiler::DeviceRow> device_rows;
    std::vector<profiler::CollectiveRow> collective_rows;
    int64_t runs = 1;
  };
  std::optional<DeviceRun> devices_fused, devices_unfused;
  std::vector<CollectiveDecision> collective_decisions;
  bool per_device_listed = false;
  std::vector<CollectiveInstruction> fusebox_collectives;  // of the per-device program that ran
  std::string check_note;  // which reference the multi-device check used
  bool xla_collectives_listed = false;
  std::vector<CollectiveInstruction> xla_collectives;  // of XLA's optimized module
  std::string xla_collectives_note;
};

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

// ---- gathering ----

int64_t InputElementCount(const Module& module) {
  int64_t n = 0;
  for (int64_t i = 0; i < module.entry()->parameter_count(); ++i) {
    ForEachSubshape(module.entry()->parameter(i)->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) n += s.ElementCount();
    });
  }
  return n;
}

void GatherStages(CompileSession& session, const ReportOptions& options, Gathered* g) {
  struct Want {
    Stage stage;
    const char* file;
  };
  std::vector<Want> wanted = {{Stage::kHlo, "hlo.txt"}, {Stage::kOptimizedHlo, "optimized_hlo.txt"}};
  if (options.backend == "gpu") {
    wanted.push_back({Stage::kGpuLlvmIrOptimized, "gpu_llvm_ir_optimized.ll"});
    wanted.push_back({Stage::kPtx, "kernels.ptx"});
  } else {
    wanted.push_back({Stage::kLlvmIrOptimized, "llvm_ir_optimized.ll"});
    wanted.push_back({Stage::kCpuAsm, "cpu_asm.s"});
    wanted.push_back({Stage::kBufferAssignment, "buffer_assignment.txt"});
  }
  for (const Want& w : wanted) {
    auto text = session.StageText(w.stage);
    if (!text.ok()) {
      g->stage_notes.push_back(std::string(StageName(w.stage)) + ": " + text.status().message());
      continue;
    }
    g->stages.push_back({std::string(StageName(w.stage)), w.file, std::string(StageName(w.stage)), *text});
  }
  for (const ExternalStage& e : g->xla_stages) {
    if (e.name.rfind("xla_pass_", 0) == 0 || !e.load) continue;  // XLA's passes: in its dump
    auto text = e.load();
    if (!text.ok()) {
      g->stage_notes.push_back(e.name + ": " + text.status().message());
      continue;
    }
    g->stages.push_back({e.name, e.name + ".txt", e.description, *text});
  }
  // Pass diffs: each pass's snapshot against the module before it.
  const PipelineResult& pipeline = session.pipeline_result();
  std::string previous = pipeline.before;
  for (const PassRecord& r : pipeline.passes) {
    Gathered::PassDiff d;
    d.name = r.name;
    d.changed = r.changed;
    d.ms = static_cast<double>(r.wall_ns) / 1e6;
    d.instructions = r.instruction_count;
    if (r.has_snapshot) {
      if (r.changed) {
        TextDiff diff = DiffText(previous, r.snapshot, 3);
        d.added = diff.added;
        d.removed = diff.removed;
        d.unified = diff.Unified("before " + r.name, "after " + r.name);
      }
      previous = r.snapshot;
    }
    g->passes.push_back(std::move(d));
  }
}

// A run's error as the report shows it: a located one ("41:8: %all-reduce: ...") with the
// module's file in front, as the CLI prints it.
std::string RunError(const Module& module, const Status& status) {
  const std::string& m = status.message();
  const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0])) != 0;
  return located ? WithModuleFile(module, status).message() : m;
}

void GatherRuns(const Module& module, const ReportOptions& options, Gathered* g) {
  session::ProfiledRunOptions run;
  run.backend = options.backend;
  run.iterations = options.iterations;
  run.threads = options.threads;
  run.gpu_arch = options.gpu_arch;
  run.fused = false;
  auto unfused = session::RunProfiled(module, g->args, run);
  if (unfused.ok()) {
    g->unfused_summary = profiler::Summarize(unfused->trace);
    g->unfused = std::move(*unfused);
  } else {
    g->unfused_error = RunError(module, unfused.status());
  }
  run.fused = true;
  auto fused = session::RunProfiled(module, g->args, run);
  if (fused.ok()) {
    g->fused_summary = profiler::Summarize(fused->trace);
    g->fused = std::move(*fused);
  } else {
    g->fused_error = RunError(module, fused.status());
  }
}

void GatherCheck(const Module& module, const ReportOptions& options, Gathered* g) {
  if (!g->fused) {
    g->check_text = "not run: the fused " + options.backend + " run failed (" + g->fused_error + ")";
    return;
  }
  if (g->devices > 1) return;  // checked with the runs, against the multi-device reference
  int64_t elements = InputElementCount(module);
  if (elements > options.check_max_input_elements) {
    g->check_text = "skipped: the inputs hold " + std::to_string(elements) +
                    " elements, more than the report's limit of " + std::to_string(options.check_max_input_elements) +
                    " for the reference interpreter; `fusebox run --check` checks it without a limit";
    return;
  }
  auto checked = CheckAgainstInterpreter(module, g->args, g->fused->result);
  if (!checked.ok()) {
    g->check_text = "the interpreter cannot run the module: " + checked.status().message();
    return;
  }
  g->check_ran = true;
  // A vacuous check is not a pass: it says so and counts as not ok.
  g->check_ok = checked->passed();
  g->check_text = checked->Details();
  if (!g->check_text.empty() && g->check_text.back() == '\n') g->check_text.pop_back();
}

// A check that ran but could not have failed (numeric_check.h's vacuous verdict).
bool CheckVacuous(const Gathered& g) {
  return g.check_ran && !g.check_ok && g.check_text.rfind("the check would be vacuous", 0) == 0;
}

// ---- multi-device ----

// The bytes a collective leaves on one device: its result. The async all-gather and
// collective-permute starts hold (operand, result, ...) tuples; their result is the second.
int64_t CollectiveResultBytes(const Instruction& inst) {
  const Shape& shape = inst.shape();
  const std::string_view op = OpcodeName(inst.opcode());
  const bool pair_start = op == "all-gather-start" || op == "collective-permute-start";
  const int64_t bytes = pair_start && shape.IsTuple() && shape.tuple_size() >= 2
                            ? shape.tuple_shapes(1).ByteSize()
                            : shape.ByteSize();
  return std::max<int64_t>(0, bytes);
}

std::vector<CollectiveInstruction> ListCollectives(const Module& module) {
  std::vector<CollectiveInstruction> out;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (!IsCrossDeviceCollective(inst->opcode())) continue;
      CollectiveInstruction c;
      c.name = inst->name();
      c.kind = std::string(OpcodeName(inst->opcode()));
      if (c.kind.size() > 6 && c.kind.compare(c.kind.size() - 6, 6, "-start") == 0)
        c.kind.resize(c.kind.size() - 6);
      auto devices = DevicesOfCollective(*inst);
      c.groups = devices.ok() ? devices->written
                              : "(groups unreadable: " + devices.status().message() + ")";
      c.bytes = CollectiveResultBytes(*inst);
      out.push_back(std::move(c));
    }
  }
  return out;
}

// Multi-device runs number none of their runs (every event is iteration 0); number them
// by each device's run events, so the timeline shows the last run and the kernel table
// counts per run. Run events are renamed to match.
profiler::Trace NumberDeviceRuns(const profiler::Trace& trace) {
  std::map<std::string, std::vector<int64_t>> run_starts;  // per process, ascending
  for (const profiler::TraceEvent& e : trace.events()) {
    const profiler::Track* track = trace.FindTrack(e.track);
    if (e.category == profiler::kCategoryRun && track != nullptr)
      run_starts[track->process].push_back(e.start_ns);
  }
  for (auto& [process, starts] : run_starts) std::sort(starts.begin(), starts.end());
  profiler::Trace out;
  std::map<int, int> remap;
  for (const profiler::Track& track : trace.tracks())
    remap[track.id] = out.AddTrack(track.process, track.name);
  for (profiler::TraceEvent e : trace.events()) {
    const profiler::Track* track = trace.FindTrack(e.track);
    const std::vector<int64_t>& starts = run_starts[track != nullptr ? track->process : ""];
    auto after = std::upper_bound(starts.begin(), starts.end(), e.start_ns);
    e.iteration = after == starts.begin() ? 0 : (after - starts.begin()) - 1;
    if (e.category == profiler::kCategoryRun) e.name = "run " + std::to_string(e.iteration);
    e.track = remap[e.track];
    out.AddEvent(std::move(e));
  }
  out.SortEvents();
  return out;
}

int64_t ElementCount(const std::vector<Literal>& literals) {
  int64_t n = 0;
  for (const Literal& l : literals) {
    ForEachSubshape(l.shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) n += std::max<int64_t>(0, s.ElementCount());
    });
  }
  return n;
}

// The fused multi-device run against its reference (session::CheckMultiDeviceRun: the
// global program on one device where the interpreter runs it, else the per-device program
// on the same devices).
void GatherMultiDeviceCheck(const ReportOptions& options, const session::MultiDeviceRun& run,
                            Gathered* g) {
  const int64_t elements = ElementCount(run.arguments);
  if (elements > options.check_max_input_elements) {
    g->check_text =
        "skipped: the inputs hold " + std::to_string(elements) +
        " elements, more than the report's limit of " +
        std::to_string(options.check_max_input_elements) +
        " for the reference interpreter; `fusebox run --check` checks it without a limit";
    return;
  }
  auto checked = session::CheckMultiDeviceRun(run, /*check=*/true, nullptr);
  if (!checked.ok()) {
    g->check_text = "the reference could not run: " + checked.status().message();
    return;
  }
  g->check_note = checked->note;
  if (!checked->against_interpreter) {
    g->check_text = "the check made no report";
    return;
  }
  g->check_ran = true;
  g->check_ok = checked->against_interpreter->passed();
  g->check_text = checked->against_interpreter->Details();
  if (!g->check_text.empty() && g->check_text.back() == '\n') g->check_text.pop_back();
}

// A module for several devices runs on them (compiler/session/multi_device_run.h), unfused and
// fused, one thread per device on the CPU backend; `--backend gpu` leaves the library's
// reason where the runs would be. Both runs get the same global arguments: the given
// inputs, else those the first run drew from the seed.
void GatherMultiDeviceRuns(const Module& module, const ReportOptions& options,
                           const std::string& source_path, Gathered* g) {
  std::vector<Literal> arguments = options.inputs;
  for (bool fused : {false, true}) {
    session::MultiDeviceRunOptions run_options;
    run_options.backend = options.backend;
    run_options.fused = fused;
    run_options.iterations = options.iterations;
    run_options.seed = options.seed;
    run_options.source_path = source_path;
    run_options.arguments = arguments;
    auto run = session::RunOnDevicesProfiled(module, std::move(run_options));
    if (!run.ok()) {
      (fused ? g->fused_error : g->unfused_error) = RunError(module, run.status());
      continue;
    }
    if (arguments.empty()) arguments = run->arguments;
    Gathered::DeviceRun& rows = (fused ? g->devices_fused : g->devices_unfused).emplace();
    rows.how = run->how;
    rows.notes = run->notes;
    rows.device_rows = run->device_rows;
    rows.collective_rows = run->collective_rows;
    rows.runs = std::max<int64_t>(1, static_cast<int64_t>(run->times_s.size()));
    if (!g->per_device_listed && run->per_device != nullptr) {
      g->per_device_listed = true;
      g->collective_decisions = run->decisions;
      g->fusebox_collectives = ListCollectives(*run->per_device);
    }
    if (fused) GatherMultiDeviceCheck(options, *run, g);
    // As a profiled run, so the summary, kernel tables, timeline, traces and reproducer
    // treat it like a run on one device.
    session::ProfiledRun as_run;
    as_run.backend = options.backend;
    as_run.device = run->how + " on " + std::to_string(run->devices) + " logical devices";
    as_run.fused = fused;
    as_run.compile_s = run->compile_s;
    as_run.times_s = run->times_s;
    as_run.launches_per_run = run->kernels_per_device;
    as_run.trace = NumberDeviceRuns(run->trace);
    as_run.result = std::move(run->result);
    (fused ? g->fused_summary : g->unfused_summary) = profiler::Summarize(as_run.trace);
    (fused ? g->fused : g->unfused) = std::move(as_run);
  }
  g->args = std::move(arguments);
}

// XLA's cross-device collectives, from its optimized module in the dump folder, to set
// beside the per-device program Fusebox ran.
void GatherXlaCollectives(Gathered* g) {
  for (const ExternalStage& stage : g->xla_stages) {
    if (stage.name != "xla_optimized_hlo" || !stage.load) continue;
    g->xla_collectives_listed = true;
    auto text = stage.load();
    if (!text.ok()) {
      g->xla_collectives_note =
          "XLA's optimized module could not be read: " + text.status().message();
      return;
    }
    auto parsed = ParseModule(*text);
    if (!parsed.ok()) {
      g->xla_collectives_note =
          "XLA's optimized module does not parse: " + parsed.status().message();
      return;
    }
    g->xla_collectives = ListCollectives(**parsed);
    return;
  }
}

// The check's verdict in one word, as the summary card and report.md show it.
std::string CheckWord(const Gathered& g) {
  return g.check_ran ? (g.check_ok ? "ok" : CheckVacuous(g) ? "vacuous" : "MISMATCH") : "skipped";
}

void GatherGraph(const Module& optimized, const std::string& dir, ReportResult* result, Gathered* g) {
  graph::FusionGraphOptions opts;
  opts.fusions = graph::FusionDisplay::kExpandSmall;
  auto built = graph::BuildFusionGraph(optimized, opts);
  if (!built.ok()) {
    g->graph_note = "the fusion graph was not drawn: " + built.status().message() +
                    " (`fusebox graph --instruction NAME --radius N` draws a neighbourhood)";
    return;
  }
  for (const std::string& note : built->notes) g->graph_note += note + " ";
  for (const char* format : {"dot", "svg", "png"}) {
    auto rendered = graph::Render(*built, format);
    if (!rendered.ok()) {
      result->warnings.push_back(std::string("graph.") + format + ": " + rendered.status().message());
      continue;
    }
    std::string name = std::string("graph.") + format;
    std::ofstream(dir + "/" + name, std::ios::binary) << *rendered;
    result->files.push_back(name);
    if (std::string_view(format) == "svg") {
      // Inline: drop the XML declaration and the DOCTYPE (it names an external DTD).
      std::string svg = *rendered;
      size_t start = svg.find("<svg");
      svg = start == std::string::npos ? svg : svg.substr(start);
      // Scale to the page's width: without a height attribute the viewBox keeps the
      // aspect ratio (CSS: max-width 100%, height auto).
      size_t tag_end = svg.find('>');
      size_t height = svg.find(" height=\"");
      if (height != std::string::npos && height < tag_end) {
        size_t close = svg.find('"', height + 9);
        if (close != std::string::npos) svg.erase(height, close + 1 - height);
      }
      g->graph_svg = svg;
    }
  }
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

// Collectives by kind: how many, and the bytes their results hold on one device.
struct KindTotal {
  int64_t count = 0;
  int64_t bytes = 0;
};
std::map<std::string, KindTotal> ByKind(const std::vector<CollectiveInstruction>& list) {
  std::map<std::string, KindTotal> out;
  for (const CollectiveInstruction& c : list) {
    out[c.kind].count += 1;
    out[c.kind].bytes += c.bytes;
  }
  return out;
}

// What one device sent per run in each kind of collective, measured in the run.
std::map<std::string, int64_t> SentPerDeviceByKind(const Gathered::DeviceRun& run) {
  std::map<std::string, int64_t> out;
  for (const profiler::CollectiveRow& c : run.collective_rows) {
    out[c.kind] += c.total_bytes / std::max<int64_t>(1, c.devices) / run.runs;
  }
  return out;
}

std::string DevicesSection(const Gathered& g) {
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

  h << "<h3>Collectives the partitioner inserted</h3>";
  if (!g.collective_decisions.empty()) {
    std::vector<std::vector<std::string>> decisions;
    for (const CollectiveDecision& c : g.collective_decisions) {
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

  if (g.xla_collectives_listed) {
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
  }
  h << "</section>\n";
  return h.str();
}

std::string MakeHtml(const Gathered& g, const ReportOptions& options) {
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

  // Summary.
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

  if (g.devices > 1) h << DevicesSection(g);

  // Per-cluster table.
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

  // Timeline.
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

  // Graph.
  h << "<section id=\"graph\"><h2>Fusion graph (Fusebox's optimized module)</h2>";
  if (!g.graph_note.empty()) h << "<p class=\"note\">" << EscapeHtml(g.graph_note) << "</p>";
  if (!g.graph_svg.empty()) {
    h << "<p class=\"note\">Also in <a href=\"graph.svg\">graph.svg</a>, <a href=\"graph.png\">graph.png</a> and "
         "<a href=\"graph.dot\">graph.dot</a>.</p><div class=\"graph\">"
      << g.graph_svg << "</div>";
  }
  h << "</section>\n";

  // Decisions.
  h << "<section id=\"decisions\"><h2>Fusion decisions</h2>";
  if (g.decisions.empty()) {
    h << "<p class=\"note\">the fusion passes considered no producer-consumer edge</p>";
  } else {
    std::vector<std::vector<std::string>> d;
    int fused = 0;
    for (const FusionDecision& x : g.decisions) {
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

  // Stages.
  h << "<section id=\"stages\"><h2>Stages</h2>";
  for (const std::string& n : g.stage_notes) h << "<p class=\"note\">" << EscapeHtml(n) << "</p>";
  for (const Gathered::StageText& s : g.stages) {
    h << "<details><summary>" << EscapeHtml(s.title) << " (" << Bytes(static_cast<int64_t>(s.text.size()))
      << ")</summary>" << StagePre(s.text, options.max_stage_bytes_in_html, s.file) << "</details>\n";
  }
  h << "</section>\n";

  // Passes.
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

  if (g.xla_comparison) {
    h << "<section id=\"xla\"><h2>XLA vs Fusebox fusion</h2><p class=\"note\">XLA's after_optimizations module from "
         "the dump folder against Fusebox's, traced back to the same input instructions.</p><pre>"
      << EscapeHtml(g.xla_comparison->ToText()) << "</pre></section>\n";
  }

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

  std::vector<std::vector<std::string>> env;
  for (const auto& [k, v] : g.env.Rows()) env.push_back({EscapeHtml(k), EscapeHtml(v)});
  h << "<section id=\"environment\"><h2>Environment</h2>" << Table({"", ""}, env) << "</section>\n";

  h << "<section id=\"reproducer\"><h2>Reproducer</h2><p>The folder <code>repro/</code> holds the module in XLA's dump "
       "layout, its inputs as .npy and the expected outputs. <code>repro/replay.sh</code> replays the run:</p><pre>"
    << EscapeHtml(g.repro_command) << "</pre></section>\n";
  h << "</main>\n</body>\n</html>\n";
  return h.str();
}

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
  for (const CollectiveDecision& c : g.collective_decisions) {
    m << "  - `%" << c.collective << "` " << c.kind << ": " << c.reason << "\n";
  }
  if (g.xla_collectives_listed) {
    m << "- XLA's collectives: "
      << (g.xla_collectives_note.empty() ? KindList(g.xla_collectives) : g.xla_collectives_note)
      << "\n";
  }
  return m.str();
}

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
      << g.xla_comparison->fusebox_count.kernels << "; " << g.xla_comparison->Count(FusionMatch::kMatch) << " match, "
      << g.xla_comparison->Count(FusionMatch::kXlaFusesMore) << " XLA fuses more, "
      << g.xla_comparison->Count(FusionMatch::kFuseboxFusesMore) << " Fusebox fuses more, "
      << g.xla_comparison->Count(FusionMatch::kRegrouped) << " regrouped\n";
  }
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

// ---- files ----

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return InvalidArgument(path + ": cannot write");
  out << text;
  if (!out) return InvalidArgument(path + ": write failed");
  return Status::Ok();
}

// The reproducer in XLA's dump layout. Arrays go as .npy (exact inputs); a module with a
// tuple parameter replays from the random seed instead.
Status WriteRepro(const Module& module, CompileSession& session, const std::string& dir, Gathered* g,
                  const ReportOptions& options, ReportResult* result) {
  std::error_code ec;
  fs::create_directories(dir + "/inputs", ec);
  fs::create_directories(dir + "/expected", ec);
  if (ec) return InvalidArgument(dir + ": cannot create folder: " + ec.message());
  std::string prefix = DumpFilePrefix(module.name(), 0);
  RETURN_IF_ERROR(WriteText(dir + "/" + prefix + ".before_optimizations.txt", module.ToString()));
  if (session.optimized_module()) {
    RETURN_IF_ERROR(WriteText(dir + "/" + prefix + ".cpu_after_optimizations.txt", session.optimized_module()->ToString()));
  }
  // Inputs go as .npy while they stay attachable (64 MiB); larger ones, and tuples, replay
  // from the seed, which makes the same random inputs.
  bool arrays_only = true;
  int64_t input_bytes = 0;
  for (const Literal& a : g->args) {
    arrays_only = arrays_only && !a.shape().IsTuple();
    input_bytes += a.size_bytes();
  }
  if (options.inputs.empty() && input_bytes > options.max_repro_bytes) arrays_only = false;
  std::string inputs_flag;
  if (arrays_only && !g->args.empty()) {
    std::string list;
    for (size_t i = 0; i < g->args.size(); ++i) {
      std::string name = "inputs/input_" + std::to_string(i) + ".npy";
      RETURN_IF_ERROR(WriteNpy(dir + "/" + name, g->args[i]));
      list += std::string(list.empty() ? "" : ",") + "\"$d/" + name + "\"";
    }
    inputs_flag = " --inputs " + list;
  } else if (!g->args.empty()) {
    inputs_flag = " --seed " + std::to_string(options.seed);
  }
  if (g->fused) {
    std::vector<std::pair<std::string, const Literal*>> leaves;
    std::function<void(const Literal&, const std::string&)> flatten = [&](const Literal& l, const std::string& n) {
      if (!l.shape().IsTuple()) {
        leaves.emplace_back(n, &l);
        return;
      }
      for (size_t i = 0; i < l.tuple_elements().size(); ++i) flatten(l.tuple_elements()[i], n + "_" + std::to_string(i));
    };
    flatten(g->fused->result, "output");
    int64_t output_bytes = 0;
    for (const auto& leaf : leaves) output_bytes += leaf.second->size_bytes();
    if (output_bytes <= options.max_repro_bytes) {
      for (const auto& [name, lit] : leaves) RETURN_IF_ERROR(WriteNpy(dir + "/expected/" + name + ".npy", *lit));
    } else {
      result->warnings.push_back("repro: the outputs (" + Bytes(output_bytes) +
                                 ") are too large to attach; expected/ is empty");
    }
  }
  std::string command = "${FUSEBOX:-fusebox} run \"$d/" + prefix + ".before_optimizations.txt\" --backend " +
                        options.backend + inputs_flag + " --check --output-dir \"${1:-$d/replayed}\"";
  g->repro_command = "sh repro/replay.sh [OUTPUT_DIR]   # runs: fusebox run " + prefix +
                     ".before_optimizations.txt --backend " + options.backend +
                     (inputs_flag.empty() ? "" : arrays_only ? " --inputs inputs/*.npy" : inputs_flag) + " --check";
  std::string script = "#!/bin/sh\n# Replays the Fusebox report's run of " + module.name() +
                       " (compare OUTPUT_DIR/*.npy with expected/); set FUSEBOX to the fusebox binary.\n"
                       "d=\"$(dirname \"$0\")\"; exec " + command + "\n";
  RETURN_IF_ERROR(WriteText(dir + "/replay.sh", script));
  fs::permissions(dir + "/replay.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add, ec);
  result->repro_dir = dir;
  return Status::Ok();
}

}  // namespace

StatusOr<ReportResult> WriteReport(ReportInput input, const ReportOptions& options) {
  if (input.module == nullptr || input.module->entry() == nullptr) return InvalidArgument("no module to report on");
  if (options.backend != "cpu" && options.backend != "gpu") {
    return InvalidArgument("unknown backend '" + options.backend + "' (cpu or gpu)");
  }
  if (options.out_dir.empty()) return InvalidArgument("--out DIR is required");
  std::error_code ec;
  // The folders the report owns start empty: files of an earlier report in the same
  // folder must not end up in this one's tarball.
  fs::remove_all(options.out_dir + "/stages", ec);
  fs::remove_all(options.out_dir + "/repro", ec);
  fs::create_directories(options.out_dir + "/stages", ec);
  if (ec) return InvalidArgument(options.out_dir + ": cannot create folder: " + ec.message());

  ReportResult result;
  Gathered g;
  const Module& module = *input.module;
  g.module_name = module.name();
  g.source = input.source;
  g.summary = Summarize(module);
  g.before = CountKernels(module);
  g.env = CollectEnvironment(options.command_line);
  g.xla_stages = std::move(input.xla_stages);
  g.xla_comparison = std::move(input.xla_comparison);

  // The session's input gives lines of the printed module in its messages, as the
  // reparsed copy it used to be did.
  std::unique_ptr<Module> session_input = module.Clone();
  session_input->LocateInPrintedText();
  CompileSession session(std::move(session_input));
  if (options.backend == "gpu") {
    GpuCompileOptions gpu;
    if (!options.gpu_arch.empty()) gpu.arch = options.gpu_arch;
    session.SetGpuOptions(gpu);
  }
  PipelineOptions popts;
  popts.snapshot_pass_regex = ".*";
  RETURN_IF_ERROR(session.Optimize(popts));
  g.after = session.kernels_after();
  g.decisions = session.pass_context().decisions();

  g.devices = DevicesOfModule(module);
  if (g.devices > 1) {
    // Inputs are global arrays here; the run checks them against the shardings.
    std::error_code exists_ec;
    const std::string source_path = fs::exists(input.source, exists_ec) ? input.source : "";
    GatherMultiDeviceRuns(module, options, source_path, &g);
    GatherXlaCollectives(&g);
  } else {
    if (!options.inputs.empty()) {
      RETURN_IF_ERROR(CheckArguments(module, options.inputs));
      for (const Literal& l : options.inputs) g.args.push_back(l);
    } else {
      ASSIGN_OR_RETURN(g.args, RandomArguments(module, options.seed));
    }
    GatherRuns(module, options, &g);
  }
  if (!g.fused_error.empty()) result.warnings.push_back("fused run: " + g.fused_error);
  if (!g.unfused_error.empty()) result.warnings.push_back("unfused run: " + g.unfused_error);
  for (const std::string& n : session::RunNotes(g.fused ? &*g.fused : nullptr, g.unfused ? &*g.unfused : nullptr)) {
    result.warnings.push_back(n);
  }
  GatherCheck(module, options, &g);
  result.check_ran = g.check_ran;
  result.check_ok = g.check_ok;
  GatherGraph(*session.optimized_module(), options.out_dir, &result, &g);
  if (!g.graph_note.empty() && g.graph_svg.empty()) result.warnings.push_back(g.graph_note);
  GatherStages(session, options, &g);
  for (const std::string& n : g.stage_notes) result.warnings.push_back("stage " + n);

  for (const Gathered::StageText& s : g.stages) {
    RETURN_IF_ERROR(WriteText(options.out_dir + "/stages/" + s.file, s.text));
    result.files.push_back("stages/" + s.file);
  }
  if (g.fused) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(g.fused->trace, options.out_dir + "/trace.json"));
    result.files.push_back("trace.json");
  }
  if (g.unfused) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(g.unfused->trace, options.out_dir + "/trace_unfused.json"));
    result.files.push_back("trace_unfused.json");
  }
  RETURN_IF_ERROR(WriteRepro(module, session, options.out_dir + "/repro", &g, options, &result));
  for (const auto& e : fs::recursive_directory_iterator(options.out_dir + "/repro")) {
    if (e.is_regular_file()) result.files.push_back(fs::relative(e.path(), options.out_dir).string());
  }

  result.html = options.out_dir + "/report.html";
  RETURN_IF_ERROR(WriteText(result.html, MakeHtml(g, options)));
  result.files.push_back("report.html");
  result.markdown = options.out_dir + "/report.md";
  RETURN_IF_ERROR(WriteText(result.markdown, MakeMarkdown(g, options)));
  result.files.push_back("report.md");

  if (options.pack) {
    std::string base = "fusebox-report-" + DumpFilePrefix(module.name(), 0).substr(12);
    result.tarball = options.out_dir + "/" + base + ".tar.gz";
    // A tarball from an earlier report in the same folder is not packed into the new one.
    std::vector<std::string> skip;
    for (const auto& e : fs::directory_iterator(options.out_dir)) {
      if (e.path().string().size() > 7 && e.path().extension() == ".gz") skip.push_back(e.path().string());
    }
    RETURN_IF_ERROR(WriteTarGz(options.out_dir, base, result.tarball, skip));
  }
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace fusebox::report
