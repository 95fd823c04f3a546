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
#include "compiler/session/machine_peaks.h"
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
#include "report/report_internal.h"
#include "report/tarball.h"

namespace fusebox::report {

namespace fs = std::filesystem;

std::string EscapeHtml(std::string_view text) { return HtmlEscape(text, HtmlContext::kDocument); }

namespace report_internal {

std::string Fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

// The report's byte counts: one decimal, up to TiB.
std::string Bytes(int64_t bytes) { return FormatBytes(bytes, {.largest = ByteUnit::kTiB}); }

// A check that ran but could not have failed (numeric_check.h's vacuous verdict).
bool CheckVacuous(const Gathered& g) {
  return g.check_ran && !g.check_ok && g.check_text.rfind("the check would be vacuous", 0) == 0;
}

// The check's verdict in one word, as the summary card and report.md show it.
std::string CheckWord(const Gathered& g) {
  return g.check_ran ? (g.check_ok ? "ok" : CheckVacuous(g) ? "vacuous" : "MISMATCH") : "skipped";
}

std::map<std::string, KindTotal> ByKind(const std::vector<CollectiveInstruction>& list) {
  std::map<std::string, KindTotal> out;
  for (const CollectiveInstruction& c : list) {
    out[c.kind].count += 1;
    out[c.kind].bytes += c.bytes;
  }
  return out;
}

}  // namespace report_internal

using namespace report_internal;

namespace {

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

// The memory view (the CPU backend's buffer assignment), with XLA's figures when the
// report's XLA stages include its live-range and memory-usage files.
void GatherMemory(session::CompileSession& session, Gathered* g) {
  for (const session::ExternalStage& e : g->xla_stages) session.AddExternalStage(e);
  auto view = session::BuildMemoryView(session);
  if (view.ok()) {
    g->memory = std::move(*view);
  } else {
    g->memory_note = view.status().message();
  }
}

void GatherStages(session::CompileSession& session, const ReportOptions& options, Gathered* g) {
  struct Want {
    session::Stage stage;
    const char* file;
  };
  std::vector<Want> wanted = {{session::Stage::kHlo, "hlo.txt"}, {session::Stage::kOptimizedHlo, "optimized_hlo.txt"}};
  if (options.backend == "gpu") {
    // The module the GPU compiles (with cuBLAS / cuDNN calls), which the GPU stages come from.
    wanted.push_back({session::Stage::kGpuOptimizedHlo, "gpu_optimized_hlo.txt"});
    wanted.push_back({session::Stage::kGpuLlvmIrOptimized, "gpu_llvm_ir_optimized.ll"});
    wanted.push_back({session::Stage::kPtx, "kernels.ptx"});
  } else {
    wanted.push_back({session::Stage::kLlvmIrOptimized, "llvm_ir_optimized.ll"});
    wanted.push_back({session::Stage::kCpuAsm, "cpu_asm.s"});
    wanted.push_back({session::Stage::kBufferAssignment, "buffer_assignment.txt"});
  }
  for (const Want& w : wanted) {
    auto text = session.StageText(w.stage);
    if (!text.ok()) {
      g->stage_notes.push_back(std::string(session::StageName(w.stage)) + ": " + text.status().message());
      continue;
    }
    g->stages.push_back({std::string(session::StageName(w.stage)), w.file, std::string(StageName(w.stage)), *text});
  }
  for (const session::ExternalStage& e : g->xla_stages) {
    if (e.name.rfind("xla_pass_", 0) == 0 || !e.load) continue;  // XLA's passes: in its dump
    auto text = e.load();
    if (!text.ok()) {
      g->stage_notes.push_back(e.name + ": " + text.status().message());
      continue;
    }
    g->stages.push_back({e.name, e.name + ".txt", e.description, *text});
  }
  // Pass diffs: each pass's snapshot against the module before it.
  const passes::PipelineResult& pipeline = session.pipeline_result();
  std::string previous = pipeline.before;
  for (const passes::PassRecord& r : pipeline.passes) {
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

// The fused run's kernels under the machine's roofs (compiler/session/machine_peaks.h:
// measured once per CPU, then cached).
void GatherRoofline(const ReportOptions& options, Gathered* g) {
  if (!g->fused) {
    g->roofline_note = "the fused run failed";
    return;
  }
  auto peaks = session::MachinePeaksFor(options.backend, options.threads);
  if (!peaks.ok()) {
    g->roofline_note = "the machine's peaks could not be measured: " + peaks.status().message();
    return;
  }
  g->roofline = profiler::Roofline(g->fused_summary, *peaks);
  g->peaks = std::move(*peaks);
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
  auto checked = check::CheckAgainstInterpreter(module, g->args, g->fused->result);
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
  for (const session::ExternalStage& stage : g->xla_stages) {
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
Status WriteRepro(const Module& module, session::CompileSession& session, const std::string& dir, Gathered* g,
                  const ReportOptions& options, ReportResult* result) {
  std::error_code ec;
  fs::create_directories(dir + "/inputs", ec);
  fs::create_directories(dir + "/expected", ec);
  if (ec) return InvalidArgument(dir + ": cannot create folder: " + ec.message());
  std::string prefix = session::DumpFilePrefix(module.name(), 0);
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
      RETURN_IF_ERROR(interpreter::WriteNpy(dir + "/" + name, g->args[i]));
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
      for (const auto& [name, lit] : leaves) RETURN_IF_ERROR(interpreter::WriteNpy(dir + "/expected/" + name + ".npy", *lit));
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
  g.before = passes::CountKernels(module);
  g.env = CollectEnvironment(options.command_line);
  g.xla_stages = std::move(input.xla_stages);
  g.xla_comparison = std::move(input.xla_comparison);

  // The session's input gives lines of the printed module in its messages, as the
  // reparsed copy it used to be did.
  std::unique_ptr<Module> session_input = module.Clone();
  session_input->LocateInPrintedText();
  session::CompileSession session(std::move(session_input));
  if (options.backend == "gpu") {
    codegen::GpuCompileOptions gpu;
    if (!options.gpu_arch.empty()) gpu.arch = options.gpu_arch;
    session.SetGpuOptions(gpu);
  }
  passes::PipelineOptions popts;
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
      RETURN_IF_ERROR(interpreter::CheckArguments(module, options.inputs));
      for (const Literal& l : options.inputs) g.args.push_back(l);
    } else {
      ASSIGN_OR_RETURN(g.args, interpreter::RandomArguments(module, options.seed));
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
  GatherMemory(session, &g);
  GatherRoofline(options, &g);
  if (!g.memory_note.empty()) result.warnings.push_back("memory: " + g.memory_note);

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
    std::string base = "fusebox-report-" + session::DumpFilePrefix(module.name(), 0).substr(12);
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
