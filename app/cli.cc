// Subcommands of the `fusebox` CLI. Each one loads its input through the importers,
// works through the compiler's API, and writes text to stdout (results) or stderr
// (diagnostics).
#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <optional>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/multi_device.h"
#include "profiler/cpu_tracer.h"
#include "compiler/session/multi_device_run.h"
#include "profiler/multi_device_trace.h"
#include "compiler/check/numeric_check.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/passes/spmd_partitioner.h"
#include "compiler/codegen/ptx_tools.h"
#include "profiler/chrome_trace.h"
#include "profiler/kernel_summary.h"
#include "compiler/session/profiled_run.h"
#include "compiler/interpreter/npy.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/passes/extract.h"
#include "compiler/ir/summary.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/source_map.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/support/timer.h"
#include "compiler/verifier/verifier.h"
#include "app/graph_command.h"
#include "app/gui/gui_app.h"
#include "importers/dump_index.h"
#include "importers/argument_files.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"
#include "report/report.h"

#ifndef FUSEBOX_VERSION
#define FUSEBOX_VERSION "0.0.0"
#endif

namespace fusebox {

namespace {

struct CommonInput {
  std::string path;
  std::string module;
  std::string dump_stage;
  bool strict = false;
};

void AddInputOptions(CLI::App* cmd, CommonInput* in) {
  cmd->add_option("FILE", in->path,
                  "HLO text (.hlo / .txt as XLA prints it), an HLO proto (.hlo.pb[.gz], HloSnapshot) "
                  "or an XLA dump folder (--xla_dump_to)")
      ->required();
  cmd->add_option("--module", in->module,
                  "Module to use when the input holds several: index (0, 1, ...) or name; in a dump "
                  "folder its id (0003 or 3) or name");
  cmd->add_option("--dump-stage", in->dump_stage,
                  "Dump folders: which of the module's dumps to load: before_optimizations (default), "
                  "after_optimizations (XLA's optimized HLO) or a pass step (0005)");
  cmd->add_flag("--strict", in->strict, "Treat unknown attributes as errors");
}

int ReportStatus(const Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitUserError;
}

StatusOr<LoadedFile> Load(const CommonInput& in, bool quiet_warnings = false) {
  LoadOptions options;
  options.allow_unknown_attributes = !in.strict;
  options.dump_stage = in.dump_stage;
  if (IsDumpFolder(in.path)) options.module_selector = in.module;
  auto file = LoadFile(in.path, options);
  if (file.ok() && !quiet_warnings) {
    for (const ParseWarning& w : file->warnings) {
      std::cerr << in.path << ":" << w.location.line << ":" << w.location.column
                << ": warning: " << w.message << "\n";
    }
    for (const std::string& note : file->notes) std::cerr << "note: " << note << "\n";
  }
  return file;
}

int PrintVerifierIssues(const std::vector<VerifierIssue>& issues, bool* has_errors) {
  int errors = 0;
  for (const VerifierIssue& issue : issues) {
    bool error = issue.severity == VerifierIssue::Severity::kError;
    std::cerr << (error ? "error: " : "warning: ") << issue.message << "\n";
    if (error) ++errors;
  }
  if (has_errors) *has_errors = errors > 0;
  return errors;
}

int RunInspect(const CommonInput& in, bool json) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  bool any_errors = false;
  bool first = true;
  if (json && picked->size() > 1) std::cout << "[\n";
  for (size_t index : *picked) {
    const Module& module = *file->modules[index];
    ModuleSummary summary = Summarize(module);
    if (json) {
      if (!first) std::cout << ",\n";
      std::cout << SummaryToJson(summary);
    } else {
      if (!first) std::cout << "\n";
      if (picked->size() > 1) std::cout << "[" << index << "] ";
      std::cout << SummaryToText(summary);
    }
    first = false;
    VerifierOptions vopts;
    vopts.filename = in.path;
    bool errors = false;
    auto issues = VerifyModule(module, vopts);
    int n = PrintVerifierIssues(issues, &errors);
    if (!json) {
      std::cout << "verifier: " << (n == 0 ? std::string("ok") : std::to_string(n) + " error(s)")
                << "\n";
    }
    any_errors = any_errors || errors;
  }
  if (json && picked->size() > 1) std::cout << "]\n";
  return any_errors ? kExitUserError : kExitOk;
}

// Writes each module to DIR/<index>.<module name>.hlo (for tools that take one module per
// file, such as XLA's own parser).
int WriteSplit(const LoadedFile& file, const std::vector<size_t>& picked, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ReportStatus(InvalidArgument(dir + ": cannot create folder: " + ec.message()));
  for (size_t index : picked) {
    const Module& module = *file.modules[index];
    std::string name = module.name();
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    }
    std::string path = dir + "/" + std::to_string(index) + "." + name + ".hlo";
    std::ofstream out(path, std::ios::binary);
    if (!out) return ReportStatus(InvalidArgument(path + ": cannot write"));
    out << module.ToString();
  }
  return kExitOk;
}

int RunPrint(const CommonInput& in, bool verify, const std::string& out_path,
             const std::string& split_dir) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  if (!split_dir.empty()) {
    int rc = WriteSplit(*file, *picked, split_dir);
    if (rc != kExitOk) return rc;
  }
  std::string text;
  bool any_errors = false;
  for (size_t k = 0; k < picked->size(); ++k) {
    const Module& module = *file->modules[(*picked)[k]];
    if (verify) {
      VerifierOptions vopts;
      vopts.filename = in.path;
      bool errors = false;
      PrintVerifierIssues(VerifyModule(module, vopts), &errors);
      any_errors = any_errors || errors;
    }
    if (k > 0) text += "\n// -----\n\n";
    text += module.ToString();
  }
  if (out_path.empty() && !split_dir.empty()) {
    // Written to the folder only.
  } else if (out_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(out_path, std::ios::binary);
    if (!out) return ReportStatus(InvalidArgument(out_path + ": cannot write"));
    out << text;
  }
  return any_errors ? kExitUserError : kExitOk;
}

int RunVerify(const CommonInput& in) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  int total_errors = 0;
  for (size_t index : *picked) {
    VerifierOptions vopts;
    vopts.filename = in.path;
    total_errors += PrintVerifierIssues(VerifyModule(*file->modules[index], vopts), nullptr);
  }
  if (total_errors == 0) {
    std::cout << in.path << ": " << picked->size() << " module(s) verified\n";
    return kExitOk;
  }
  std::cerr << in.path << ": " << total_errors << " verifier error(s)\n";
  return kExitUserError;
}

struct RunOptions {
  std::string backend = "interpreter";
  std::vector<std::string> inputs;
  bool explain_inputs = false;  // --explain-inputs: each parameter's values and why, to stdout
  uint64_t seed = 0;
  bool seed_given = false;  // --seed on the command line (an HloSnapshot FILE then runs random)
  std::string output_dir;
  bool print = false;
  bool save_inputs = false;
  int64_t print_limit = 1000;
  bool unfused = false;
  int64_t iterations = 1;
  std::string trace;
  bool check = false;
  std::vector<std::string> expected;  // --expected: one .npy per output leaf
  int threads = 0;
  std::string gpu_arch;  // empty: the device's own
  int64_t devices = 0;            // --devices: 0 = what the module needs
  std::string output_sharding;    // --output-sharding: the root's sharding, XLA's text
  std::string unpartitioned;      // --unpartitioned: the module before partitioning
};

// --check and --expected (compiler/check/numeric_check.h): judges `result` against the
// interpreter and its f64 shadow, or against the user's outputs, prints the verdict and a
// line per output (with the bound used) to stderr, and sets *check_failed when the check
// fails or would be vacuous.
Status CheckResult(const Module& module, const std::vector<Literal>& args, const Literal& result,
                   const RunOptions& opts, bool* check_failed, const CheckOptions& check_options = {}) {
  if (!opts.check && opts.expected.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(CheckReference reference, ComputeCheckReference(module, args, check_options));
  auto print = [&](const char* label, const CheckReport& report) {
    std::cerr << label << ": " << report.Summary() << "\n";
    if (!report.shadow_note.empty()) {
      std::cerr << "  no f64 shadow (" << report.shadow_note << "): bounds are the element types' floors\n";
    }
    constexpr size_t kMaxLines = 20;
    for (size_t i = 0; i < report.outputs.size() && i < kMaxLines; ++i) {
      std::cerr << "  " << report.outputs[i].ToString() << "\n";
    }
    if (report.outputs.size() > kMaxLines) {
      std::cerr << "  ... and " << report.outputs.size() - kMaxLines << " more output(s)\n";
    }
    if (!report.passed()) *check_failed = true;
  };
  if (opts.check) print("check", CheckOutputs(result, reference, args, check_options));
  if (!opts.expected.empty()) {
    std::vector<const Literal*> leaves;
    ForEachArrayLeaf(result, [&](const Literal& leaf) { leaves.push_back(&leaf); });
    if (leaves.size() != opts.expected.size()) {
      return InvalidArgument("--expected has " + std::to_string(opts.expected.size()) +
                             " file(s) but the module has " + std::to_string(leaves.size()) + " output(s)");
    }
    std::vector<Literal> expected;
    for (size_t i = 0; i < leaves.size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, ReadNpy(opts.expected[i], &leaves[i]->shape()));
      expected.push_back(std::move(e));
    }
    print("expected", CheckOutputsAgainstExpected(result, expected, reference, args, check_options));
  }
  return Status::Ok();
}

// After a backend run: the kernel summary table, the trace file (--trace), and the checks.
Status ReportTraceAndCheck(const Module& module, const std::vector<Literal>& args, const profiler::Trace& trace,
                           const Literal& result, const RunOptions& opts, bool* check_failed) {
  profiler::KernelSummary summary = profiler::Summarize(trace);
  std::cerr << profiler::FormatSummaryTable(summary, 20);
  if (!opts.trace.empty()) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(trace, opts.trace));
    std::cerr << "wrote the trace (" << trace.events().size() << " events) to " << opts.trace << "\n";
  }
  return CheckResult(module, args, result, opts, check_failed);
}

// Runs `module` with the CPU or GPU backend (compiler/session/profiled_run.h): compiles (fused,
// or with --unfused one kernel per op), runs --iterations times under the backend's
// tracer, prints the kernel summary, writes the trace, and with --check compares the
// result with the interpreter's.
StatusOr<Literal> RunOnBackend(const Module& module, const std::vector<Literal>& args, const RunOptions& opts,
                               bool* check_failed) {
  session::ProfiledRunOptions run_opts;
  run_opts.backend = opts.backend;
  run_opts.fused = !opts.unfused;
  run_opts.iterations = opts.iterations;
  run_opts.threads = opts.threads;
  run_opts.gpu_arch = opts.gpu_arch;
  ASSIGN_OR_RETURN(session::ProfiledRun run, session::RunProfiled(module, args, run_opts));
  for (const std::string& note : run.notes) std::cerr << note << "\n";
  std::cerr << run.Describe(module.name()) << "\n";
  RETURN_IF_ERROR(ReportTraceAndCheck(module, args, run.trace, run.result, opts, check_failed));
  return std::move(run.result);
}

// Flattens a (possibly nested) tuple result into named leaves: "output", or "output_0",
// "output_1_0", ...
void FlattenResult(const Literal& literal, const std::string& name,
                   std::vector<std::pair<std::string, const Literal*>>* leaves) {
  if (!literal.shape().IsTuple()) {
    leaves->emplace_back(name, &literal);
    return;
  }
  for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
    FlattenResult(literal.tuple_elements()[i], name + "_" + std::to_string(i), leaves);
  }
}


// Prints the outputs (shapes, --print values), writes --output-dir, and gives the exit
// code of the run.
int WriteRunOutputs(const Literal& result_literal, const std::vector<Literal>& args, const RunOptions& opts,
                    bool check_failed) {
  const Literal* result = &result_literal;
  std::vector<std::pair<std::string, const Literal*>> leaves;
  FlattenResult(*result, "output", &leaves);
  for (const auto& [name, lit] : leaves) {
    std::cout << name << ": " << lit->shape().ToString(false);
    if (opts.print) {
      if (lit->element_count() <= opts.print_limit) {
        std::cout << " " << lit->ToString();
      } else {
        std::cout << " (" << lit->element_count() << " elements; more than --print-limit "
                  << opts.print_limit << ", not printed)";
      }
    }
    std::cout << "\n";
  }
  if (!opts.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.output_dir, ec);
    if (ec) return ReportStatus(InvalidArgument(opts.output_dir + ": cannot create folder: " + ec.message()));
    for (const auto& [name, lit] : leaves) {
      std::string path = opts.output_dir + "/" + name + ".npy";
      Status st = WriteNpy(path, *lit);
      if (!st.ok()) return ReportStatus(st);
    }
    if (opts.save_inputs) {
      for (size_t i = 0; i < args.size(); ++i) {
        std::vector<std::pair<std::string, const Literal*>> in_leaves;
        FlattenResult(args[i], "input_" + std::to_string(i), &in_leaves);
        for (const auto& [name, lit] : in_leaves) {
          Status st = WriteNpy(opts.output_dir + "/" + name + ".npy", *lit);
          if (!st.ok()) return ReportStatus(st);
        }
      }
    }
    std::cerr << "wrote " << leaves.size() << " output(s)" << (opts.save_inputs ? " and the inputs" : "")
              << " to " << opts.output_dir << "\n";
  }
  return check_failed ? kExitUserError : kExitOk;
}

// Prints one check report as `run --check` does (verdict, then a line per output) and
// sets *check_failed when it does not pass.
void PrintCheckReport(const char* label, const CheckReport& report, bool* check_failed) {
  std::cerr << label << ": " << report.Summary() << "\n";
  if (!report.shadow_note.empty()) {
    std::cerr << "  no f64 shadow (" << report.shadow_note << "): bounds are the element types' floors\n";
  }
  constexpr size_t kMaxLines = 20;
  for (size_t i = 0; i < report.outputs.size() && i < kMaxLines; ++i) {
    std::cerr << "  " << report.outputs[i].ToString() << "\n";
  }
  if (report.outputs.size() > kMaxLines) {
    std::cerr << "  ... and " << report.outputs.size() - kMaxLines << " more output(s)\n";
  }
  if (!report.passed()) *check_failed = true;
}

// `fusebox run FILE --devices N` (compiler/session/multi_device_run.h): partitions a global
// program, runs the per-device one on N logical devices, prints the per-device and
// per-collective tables, writes the trace, and checks.
Status RunOnDevicesCommand(const CommonInput& in, const Module& module, const RunOptions& opts, int64_t devices,
                           std::vector<Literal>* global_args, std::optional<Literal>* result_value,
                           bool* check_failed) {
  session::MultiDeviceRunOptions mo;
  mo.devices = devices;
  mo.backend = opts.backend;
  mo.fused = !opts.unfused;
  mo.iterations = opts.iterations;
  mo.output_sharding = opts.output_sharding;
  mo.unpartitioned_path = opts.unpartitioned;
  mo.source_path = in.path;
  mo.seed = opts.seed;
  if (!opts.inputs.empty()) {
    // Global arrays: read against a view of the module with global parameter shapes.
    std::unique_ptr<Module> global_view;
    const Module* shapes_from = &module;
    if (IsPerDeviceProgram(module)) {
      std::unique_ptr<Module> unpartitioned;
      std::string path = opts.unpartitioned;
      if (path.empty() && opts.output_sharding.empty()) path = session::FindUnpartitionedDump(in.path, module.name());
      if (!path.empty()) {
        ASSIGN_OR_RETURN(ParseResult parsed, ParseFile(path));
        if (!parsed.modules.empty()) unpartitioned = std::move(parsed.modules[0]);
      }
      ASSIGN_OR_RETURN(std::vector<Shape> shapes, GlobalParameterShapes(module, unpartitioned.get()));
      ASSIGN_OR_RETURN(global_view, GlobalParameterView(module, shapes));
      shapes_from = global_view.get();
    }
    ASSIGN_OR_RETURN(ArgumentFiles loaded, LoadArgumentFiles(*shapes_from, opts.inputs));
    for (const std::string& note : loaded.notes) std::cerr << "note: " << note << "\n";
    mo.arguments = std::move(loaded.arguments);
  }
  ASSIGN_OR_RETURN(session::MultiDeviceRun run, session::RunOnDevicesProfiled(module, std::move(mo)));
  for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
  if (opts.backend == "cpu") {
    std::fprintf(stderr, "compiled %s for the CPU (%s) in %.3f s\n", module.name().c_str(),
                 opts.unfused ? "unfused" : "fused", run.compile_s);
  }
  std::fprintf(stderr, "ran %s on %lld devices on %s: %.3f ms%s\n", module.name().c_str(),
               static_cast<long long>(run.devices), run.how.c_str(), run.times_s.front() * 1e3,
               run.times_s.size() > 1 ? (" (fastest of " + std::to_string(run.times_s.size()) + ")").c_str() : "");
  std::cerr << profiler::FormatDeviceTable(run.device_rows);
  std::cerr << profiler::FormatCollectiveTable(run.collective_rows);
  if (!opts.trace.empty()) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(run.trace, opts.trace));
    std::cerr << "wrote the trace (" << run.trace.events().size() << " events, " << run.devices
              << " device tracks) to " << opts.trace << "\n";
  }
  std::optional<std::vector<Literal>> expected;
  if (!opts.expected.empty()) {
    std::vector<const Literal*> leaves;
    ForEachArrayLeaf(run.result, [&](const Literal& leaf) { leaves.push_back(&leaf); });
    if (leaves.size() != opts.expected.size()) {
      return InvalidArgument("--expected has " + std::to_string(opts.expected.size()) +
                             " file(s) but the module has " + std::to_string(leaves.size()) + " output(s)");
    }
    expected.emplace();
    for (size_t i = 0; i < leaves.size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, ReadNpy(opts.expected[i], &leaves[i]->shape()));
      expected->push_back(std::move(e));
    }
  }
  if (opts.check && opts.backend == "interpreter") {
    return InvalidArgument("--check compares a backend with the interpreter; use --backend cpu, or --expected");
  }
  ASSIGN_OR_RETURN(session::MultiDeviceCheck checked,
                   session::CheckMultiDeviceRun(run, opts.check, expected ? &*expected : nullptr));
  if (!checked.note.empty()) std::cerr << "note: " << checked.note << "\n";
  if (checked.against_interpreter) PrintCheckReport("check", *checked.against_interpreter, check_failed);
  if (checked.against_expected) PrintCheckReport("expected", *checked.against_expected, check_failed);
  *global_args = std::move(run.arguments);
  *result_value = std::move(run.result);
  return Status::Ok();
}

int RunRun(const CommonInput& in, const RunOptions& opts) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return ReportStatus(picked.status());
  const Module& module = *file->modules[picked->front()];
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool verify_errors = false;
  PrintVerifierIssues(VerifyModule(module, vopts), &verify_errors);
  if (verify_errors) {
    std::cerr << "error: " << in.path << ": the module does not verify; not running it\n";
    return kExitUserError;
  }

  // Several devices: --devices N, or a per-device program that needs more than one.
  const int64_t needed = DevicesOfModule(module);
  const int64_t devices = opts.devices > 0 ? opts.devices : needed;
  if (devices > 1) {
    std::vector<Literal> global_args;
    std::optional<Literal> result_value;
    bool check_failed = false;
    Status ran = RunOnDevicesCommand(in, module, opts, devices, &global_args, &result_value, &check_failed);
    if (!ran.ok()) {
      // "file:line:col: ..." when the message starts with a location, else "file: ...";
      // as it is when it names the file already ("device 2: file:12:3: ...").
      const std::string& m = ran.message();
      if (m.find(in.path) != std::string::npos) return ReportStatus(ran);
      const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0]));
      return ReportStatus(ran.WithPrefix(in.path + (located ? ":" : ": ")));
    }
    return WriteRunOutputs(*result_value, global_args, opts, check_failed);
  }

  // Arguments: from --inputs (.npy files, one .npz, one HloSnapshot), or random with the
  // seed, each parameter's distribution chosen from its uses.
  std::vector<Literal> args;
  std::vector<std::string> inputs = opts.inputs;
  if (inputs.empty() && !file->arguments.empty() && !opts.seed_given) {
    // An HloSnapshot as FILE brings the arguments it recorded.
    std::cerr << "note: using the " << file->arguments.size()
              << " argument(s) recorded in the snapshot (--seed N for random ones)\n";
    inputs = {in.path};
  }
  if (!inputs.empty()) {
    auto loaded = LoadArgumentFiles(module, inputs);
    if (!loaded.ok()) return ReportStatus(loaded.status());
    for (const std::string& note : loaded->notes) std::cerr << "note: " << note << "\n";
    if (opts.explain_inputs) {
      std::cout << "inputs of " << module.name() << " (from "
                << (opts.inputs.empty() ? "the snapshot" : "--inputs") << "):\n";
      const Computation* entry = module.entry();
      for (int64_t p = 0; p < entry->parameter_count(); ++p) {
        const Instruction* parameter = entry->parameter(p);
        std::cout << "  parameter " << p << " (%" << parameter->name() << ", "
                  << parameter->shape().ToString(false) << "): " << loaded->sources[p] << "\n";
      }
    }
    args = std::move(loaded->arguments);
  } else {
    if (opts.explain_inputs) {
      auto choices = ExplainRandomArguments(module);
      if (!choices.ok()) return ReportStatus(choices.status());
      std::cout << "inputs of " << module.name() << " (random, seed " << opts.seed << "):\n";
      for (const InputChoice& choice : *choices) std::cout << "  " << choice.ToString() << "\n";
    }
    auto random = RandomArguments(module, opts.seed);
    if (!random.ok()) return ReportStatus(random.status());
    args = std::move(random).value();
  }
  std::cout.flush();

  std::optional<Literal> result_value;
  bool check_failed = false;
  if (opts.backend == "cpu" || opts.backend == "gpu") {
    auto ran = RunOnBackend(module, args, opts, &check_failed);
    if (!ran.ok()) {
      // "file:line:col: ..." when the message starts with a location, else "file: ...".
      const std::string& m = ran.status().message();
      const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0]));
      return ReportStatus(ran.status().WithPrefix(in.path + (located ? ":" : ": ")));
    }
    result_value = std::move(*ran);
  } else {
    Interpreter interpreter;
    Stopwatch watch;
    auto ran = interpreter.Run(module, args);
    double seconds = watch.ElapsedSeconds();
    if (!ran.ok()) return ReportStatus(ran.status());
    const InterpreterStats& stats = interpreter.stats();
    std::fprintf(stderr, "ran %s on the interpreter in %.3f s: %lld instructions, %.3g elements/s\n",
                 module.name().c_str(), seconds, static_cast<long long>(stats.instructions_evaluated),
                 seconds > 0 ? static_cast<double>(stats.elements_produced) / seconds : 0.0);
    result_value = std::move(*ran);
    if (opts.check) {
      std::cerr << "check: --check compares a backend with the interpreter; use --backend cpu|gpu, "
                   "or --expected to compare the interpreter with given outputs\n";
      return kExitUserError;
    }
    Status checked = CheckResult(module, args, *result_value, opts, &check_failed);
    if (!checked.ok()) return ReportStatus(checked);
  }
  return WriteRunOutputs(*result_value, args, opts, check_failed);
}

struct CompileOptions {
  std::string stage = "optimized_hlo";
  std::string dump_to;
  std::string dump_pass_re = ".*";
  std::vector<std::string> disabled_passes;
  std::vector<std::string> only_passes;
  std::string output;
  std::string backend = "cpu";
  std::string gpu_arch = "sm_90";
  bool list_stages = false;
  std::string source_map;  // --source-map FILE.json
};

// Writes `text` to `path`, or to stdout when `path` is empty.
Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return Status::Ok();
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) return InvalidArgument(path + ": cannot write");
  out << text;
  if (!out) return InvalidArgument(path + ": write failed");
  return Status::Ok();
}

StatusOr<std::unique_ptr<CompileSession>> MakeSession(const CommonInput& in) {
  auto file = Load(in);
  if (!file.ok()) return file.status();
  auto picked = SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return picked.status();
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool errors = false;
  PrintVerifierIssues(VerifyModule(*file->modules[picked->front()], vopts), &errors);
  if (errors) return InvalidArgument(in.path + ": the module does not verify; not compiling it");
  size_t chosen = picked->front();
  auto session = std::make_unique<CompileSession>(std::move(file->modules[chosen]));
  if (!file->module_keys.empty()) {
    // From a dump folder: XLA's own stages of this module sit next to Fusebox's.
    auto index = IndexDumpFolder(in.path);
    if (index.ok()) {
      auto module = index->Find(file->module_keys[chosen]);
      if (module.ok()) AddXlaDumpStages(**module, session.get());
    }
  }
  return session;
}

int RunCompile(const CommonInput& in, const CompileOptions& opts) {
  auto stage = ParseStage(opts.stage);
  bool external = opts.stage.rfind("xla_", 0) == 0;
  if (!stage && !external && !opts.list_stages) {
    return ReportStatus(InvalidArgument("unknown stage '" + opts.stage +
                                        "' (--list-stages shows the stages of a module)"));
  }
  if (opts.backend != "cpu" && opts.backend != "gpu") {
    return ReportStatus(InvalidArgument("unknown backend '" + opts.backend + "' (cpu or gpu)"));
  }
  if (opts.backend == "gpu" && *stage == Stage::kLlvmIr) stage = Stage::kGpuLlvmIr;
  if (opts.backend == "gpu" && *stage == Stage::kLlvmIrOptimized) stage = Stage::kGpuLlvmIrOptimized;
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  if (opts.list_stages) {
    for (const std::string& name : (*session)->StageNames()) {
      std::string description;
      for (const ExternalStage& e : (*session)->external_stages()) {
        if (e.name == name) description = e.description;
      }
      std::cout << name << (description.empty() ? "" : "  " + description) << "\n";
    }
    return kExitOk;
  }
  if (external) {
    auto text = (*session)->ExternalStageText(opts.stage);
    if (!text.ok()) return ReportStatus(text.status());
    if (Status st = WriteOutput(opts.output, *text); !st.ok()) return ReportStatus(st);
    return kExitOk;
  }
  GpuCompileOptions gpu_options;
  gpu_options.arch = opts.gpu_arch;
  (*session)->SetGpuOptions(gpu_options);
  PipelineOptions popts;
  popts.disabled_passes = opts.disabled_passes;
  popts.only_passes = opts.only_passes;
  popts.snapshot_pass_regex = opts.dump_to.empty() ? "" : opts.dump_pass_re;
  if (*stage != Stage::kHlo || !opts.dump_to.empty()) {
    Status st = (*session)->Optimize(popts);
    if (!st.ok()) return ReportStatus(st);
  }
  auto text = (*session)->StageText(*stage);
  if (!text.ok()) return ReportStatus(text.status());
  if (Status st = WriteOutput(opts.output, *text); !st.ok()) return ReportStatus(st);
  std::cerr << "kernels: " << (*session)->kernels_before().ToString() << " before fusion";
  if ((*session)->optimized()) std::cerr << "; " << (*session)->kernels_after().ToString() << " after";
  std::cerr << "\n";
  if ((*session)->optimized()) {
    for (const PassRecord& r : (*session)->pipeline_result().passes) {
      std::fprintf(stderr, "  pass %-24s %s %8.3f ms  %lld instructions\n", r.name.c_str(),
                   r.skipped ? "skipped" : r.changed ? "changed" : "-      ", r.wall_ns * 1e-6,
                   static_cast<long long>(r.instruction_count));
    }
  }
  if (!opts.dump_to.empty()) {
    auto written = WriteDump(**session, opts.dump_to, 0, /*with_cpu=*/true);
    if (!written.ok()) return ReportStatus(written.status());
    std::cerr << "wrote " << written->size() << " file(s) to " << opts.dump_to << "\n";
  }
  if (!opts.source_map.empty()) {
    // Instruction -> kernel -> LLVM functions / PTX entries / trace names, with where each
    // is defined in the stages (compiler/session/source_map.h).
    auto map = session::BuildSourceMap(**session);
    if (!map.ok()) return ReportStatus(map.status());
    if (Status st = WriteOutput(opts.source_map, map->ToJson()); !st.ok()) return ReportStatus(st);
    for (const std::string& note : map->notes()) std::cerr << "note: source map: " << note << "\n";
    std::cerr << "wrote the source map to " << opts.source_map << "\n";
  }
  return kExitOk;
}

int RunExplain(const CommonInput& in, const std::string& instruction, bool collectives) {
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  Status st = (*session)->Optimize();
  if (!st.ok()) return ReportStatus(st);
  const PassContext& ctx = (*session)->pass_context();
  if (collectives) {
    // The collectives the spmd-partitioner inserted, each with its reason.
    const Module& input = (*session)->input();
    if (ctx.collectives().empty()) {
      if (IsPerDeviceProgram(input)) {
        std::cout << input.name() << " is already a per-device program: its collectives were written before "
                  << "Fusebox saw it (fusebox inspect lists them)\n";
      } else if (DevicesOfModule(input) <= 1) {
        std::cout << input.name() << " runs on one device: no collectives\n";
      } else {
        // The program's own collectives (shard_map regions) run as written.
        int64_t own = 0;
        for (const auto& c : input.computations()) {
          for (const auto& i : c->instructions()) own += IsCrossDeviceCollective(i->opcode()) ? 1 : 0;
        }
        std::cout << "the spmd-partitioner inserted no collectives: every device computes its tiles alone";
        if (own > 0) std::cout << "; the program's own " << own << " collective(s) (in its manual regions) run as written";
        std::cout << "\n";
      }
      return kExitOk;
    }
    std::cout << FormatCollectiveDecisions(ctx.collectives());
    return kExitOk;
  }
  std::vector<FusionDecision> decisions =
      instruction.empty() ? ctx.decisions() : ctx.DecisionsFor(instruction);
  if (!instruction.empty() && decisions.empty()) {
    if ((*session)->input().entry() && !(*session)->input().FindComputation(instruction)) {
      bool exists = false;
      for (const auto& c : (*session)->input().computations()) exists |= c->FindInstruction(instruction) != nullptr;
      if (!exists) return ReportStatus(InvalidArgument("no instruction %" + instruction + " in " + in.path));
    }
    std::cout << "%" << instruction << ": no fusion decisions (no fusion pass considered it)\n";
    return kExitOk;
  }
  for (const FusionDecision& d : decisions) {
    std::cout << (d.fused ? "fused     " : "not fused ") << "%" << d.producer << " -> %" << d.consumer;
    if (!d.fusion.empty()) std::cout << "  (into %" << d.fusion << ")";
    std::cout << "  [" << d.pass << ", in %" << d.computation << "]";
    std::string reason = d.reason;
    for (const char* prefix : {"fused: ", "not fused: "}) {
      if (reason.rfind(prefix, 0) == 0) reason = reason.substr(std::string(prefix).size());
    }
    if (!reason.empty()) std::cout << ": " << reason;
    std::cout << "\n";
  }
  std::cout << "kernels: " << (*session)->kernels_before().kernels << " before fusion, "
            << (*session)->kernels_after().kernels << " after\n";
  return kExitOk;
}

// The modules of a dump folder a command works on: the one `selector` names, or all
// (with `with_both_ends`, those that have both their input and XLA's optimized module).
StatusOr<std::vector<const DumpModule*>> ChooseDumpModules(const DumpIndex& index, const std::string& selector,
                                                           bool with_both_ends) {
  std::vector<const DumpModule*> out;
  if (!selector.empty()) {
    ASSIGN_OR_RETURN(const DumpModule* found, index.Find(selector));
    out.push_back(found);
    return out;
  }
  for (const DumpModule& m : index.modules) {
    if (!with_both_ends || (m.BeforeOptimizations() && m.AfterOptimizations())) out.push_back(&m);
  }
  if (out.empty()) {
    return InvalidArgument(index.dir + ": no module has both a before_optimizations and an "
                                       "after_optimizations dump");
  }
  return out;
}

struct IndexOptions {
  std::string dir;
  std::string module;
  bool json = false;
  bool check = false;
};

// `fusebox index DIR`: the modules × stages table of a dump folder; with --module, that
// module's files in compilation order; with --check, every HLO file is loaded.
int RunIndex(const IndexOptions& opts) {
  if (!IsDumpFolder(opts.dir)) {
    return ReportStatus(InvalidArgument(opts.dir + ": not a folder; `index` reads XLA dump folders "
                                        "(use `inspect` for a single file)"));
  }
  auto index = IndexDumpFolder(opts.dir);
  if (!index.ok()) return ReportStatus(index.status());
  auto chosen = ChooseDumpModules(*index, opts.module, /*with_both_ends=*/false);
  if (!chosen.ok()) return ReportStatus(chosen.status());
  const std::vector<const DumpModule*>& shown = *chosen;
  if (opts.json) {
    std::cout << DumpIndexToJson(*index);
  } else if (!opts.module.empty()) {
    std::cout << FormatDumpModule(*shown.front());
  } else {
    std::cout << FormatDumpIndex(*index);
  }
  if (!opts.check) return kExitOk;
  int loaded = 0, failed = 0;
  for (const DumpModule* m : shown) {
    for (const DumpFile& f : m->files) {
      if (f.kind != DumpFileKind::kHloModule && f.kind != DumpFileKind::kSnapshot) continue;
      auto module = LoadDumpHlo(f);
      if (module.ok()) {
        ++loaded;
      } else {
        ++failed;
        std::cerr << "error: " << module.status().message() << "\n";
      }
    }
  }
  std::cerr << "check: loaded " << loaded << " of " << (loaded + failed) << " HLO file(s)";
  if (failed > 0) std::cerr << "; " << failed << " could not be loaded (above)";
  std::cerr << "\n";
  return failed > 0 ? kExitUserError : kExitOk;
}

struct CompareFusionOptions {
  std::string path;
  std::string module;
  bool json = false;
  int max_names = 6;
};

// `fusebox compare-fusion DIR`: XLA's fusions (after_optimizations) against Fusebox's on
// the same input (before_optimizations), for one module or every module of the folder.
int RunCompareFusion(const CompareFusionOptions& opts) {
  if (!IsDumpFolder(opts.path)) {
    return ReportStatus(InvalidArgument(opts.path + ": not a folder; compare-fusion reads an XLA dump folder "
                                        "(XLA_FLAGS=--xla_dump_to=DIR), which holds both XLA's input and its "
                                        "optimized module"));
  }
  auto index = IndexDumpFolder(opts.path);
  if (!index.ok()) return ReportStatus(index.status());
  auto chosen = ChooseDumpModules(*index, opts.module, /*with_both_ends=*/true);
  if (!chosen.ok()) return ReportStatus(chosen.status());
  const std::vector<const DumpModule*>& modules = *chosen;
  int failures = 0;
  bool first = true;
  if (opts.json) std::cout << "[\n";
  for (const DumpModule* m : modules) {
    auto result = CompareDumpFusion(*m);
    if (!result.ok()) {
      std::cerr << "error: " << result.status().message() << "\n";
      ++failures;
      continue;
    }
    for (const std::string& w : result->warnings) std::cerr << "warning: " << w << "\n";
    if (opts.json) {
      if (!first) std::cout << ",\n";
      std::cout << result->comparison.ToJson();
    } else {
      if (!first) std::cout << "\n";
      std::cout << "module " << m->key << " (XLA: " << result->xla_file << ")\n";
      std::cout << result->comparison.ToText(opts.max_names);
    }
    first = false;
  }
  if (opts.json) std::cout << "]\n";
  return failures > 0 ? kExitUserError : kExitOk;
}

struct ExtractCommandOptions {
  std::string instruction;
  int height = 0;
  std::string stage;  // "" = where the instruction is found; "hlo" or "optimized_hlo"
  std::string output;
};

// `fusebox extract PATH --instruction NAME [--height N]`: a standalone module around one
// instruction. Fusions exist only after the pipeline: a name the input lacks is looked
// for in Fusebox's optimized module (or asked for with --stage optimized_hlo).
int RunExtract(const CommonInput& in, const ExtractCommandOptions& opts) {
  if (opts.stage != "" && opts.stage != "hlo" && opts.stage != "optimized_hlo") {
    return ReportStatus(InvalidArgument("--stage is hlo or optimized_hlo, not '" + opts.stage + "'"));
  }
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  const Module* source = &(*session)->input();
  bool optimized = opts.stage == "optimized_hlo" || (opts.stage.empty() && !HasInstruction(*source, opts.instruction));
  if (optimized) {
    Status st = (*session)->Optimize();
    if (!st.ok()) return ReportStatus(st);
    source = (*session)->optimized_module();
  }
  ExtractOptions options;
  options.height = opts.height;
  auto extracted = ExtractInstruction(*source, opts.instruction, options);
  if (!extracted.ok()) {
    std::string where = optimized ? " (after Fusebox's pipeline)" : "";
    return ReportStatus(extracted.status().WithPrefix(in.path + where + ": "));
  }
  std::string text = (*extracted)->ToString();
  if (Status st = WriteOutput(opts.output, text); !st.ok()) return ReportStatus(st);
  const Computation* entry = (*extracted)->entry();
  std::cerr << "extracted %" << entry->root()->name() << (optimized ? " from Fusebox's optimized module" : "")
            << ": " << entry->instructions().size() << " instruction(s), "
            << std::count_if(entry->instructions().begin(), entry->instructions().end(),
                             [](const auto& i) { return i->opcode() == Opcode::kParameter; })
            << " parameter(s), height " << opts.height << "\n";
  return kExitOk;
}

struct ReportCommandOptions {
  std::string out;
  std::string backend = "cpu";
  int64_t iterations = 3;
  uint64_t seed = 0;
  std::vector<std::string> inputs;
  int threads = 0;
  std::string gpu_arch;
  bool no_pack = false;
};

std::string& CommandLine() {
  static std::string line;
  return line;
}

// `fusebox report PATH --out DIR`: see report/report.h for what it writes.
int RunReport(const CommonInput& in, const ReportCommandOptions& opts) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return ReportStatus(picked.status());
  size_t chosen = picked->front();
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool errors = false;
  PrintVerifierIssues(VerifyModule(*file->modules[chosen], vopts), &errors);
  if (errors) return ReportStatus(InvalidArgument(in.path + ": the module does not verify; no report"));

  report::ReportInput input;
  input.source = in.path;
  report::ReportOptions options;
  options.out_dir = opts.out;
  options.backend = opts.backend;
  options.iterations = opts.iterations;
  options.seed = opts.seed;
  options.threads = opts.threads;
  options.gpu_arch = opts.gpu_arch;
  options.pack = !opts.no_pack;
  options.command_line = CommandLine();
  if (!file->module_keys.empty()) {
    // A dump folder: XLA's stages and its fusion, compared with Fusebox's.
    input.source += " (module " + file->module_keys[chosen] + ", " + file->module_files[chosen] + ")";
    auto index = IndexDumpFolder(in.path);
    if (index.ok()) {
      auto module = index->Find(file->module_keys[chosen]);
      if (module.ok()) {
        CompileSession stages(file->modules[chosen]->Clone());
        AddXlaDumpStages(**module, &stages);
        input.xla_stages = stages.external_stages();
        auto compared = CompareDumpFusion(**module);
        if (compared.ok()) {
          input.xla_comparison = std::move(compared->comparison);
        } else {
          std::cerr << "note: no XLA comparison: " << compared.status().message() << "\n";
        }
      }
    }
  }
  const Module& module = *file->modules[chosen];
  if (!opts.inputs.empty()) {
    if (static_cast<int64_t>(opts.inputs.size()) != module.entry()->parameter_count()) {
      return ReportStatus(InvalidArgument("--inputs has " + std::to_string(opts.inputs.size()) +
                                          " file(s) but the entry computation takes " +
                                          std::to_string(module.entry()->parameter_count())));
    }
    // A per-device program's runs take global arrays: tiles × the parameter's shape.
    std::vector<Shape> shapes;
    for (int64_t p = 0; p < module.entry()->parameter_count(); ++p) shapes.push_back(module.entry()->parameter(p)->shape());
    if (DevicesOfModule(module) > 1 && IsPerDeviceProgram(module)) {
      auto global = GlobalParameterShapes(module, nullptr);
      if (!global.ok()) return ReportStatus(global.status());
      shapes = std::move(*global);
    }
    for (size_t i = 0; i < opts.inputs.size(); ++i) {
      auto lit = ReadNpy(opts.inputs[i], &shapes[i]);
      if (!lit.ok()) return ReportStatus(lit.status());
      options.inputs.push_back(std::move(*lit));
    }
  } else if (!file->arguments.empty()) {
    // An HloSnapshot carries the arguments of the run it recorded.
    options.inputs = std::move(file->arguments);
    std::cerr << "note: using the " << options.inputs.size() << " argument(s) recorded in the snapshot\n";
  }
  input.module = std::move(file->modules[chosen]);
  auto result = report::WriteReport(std::move(input), options);
  if (!result.ok()) return ReportStatus(result.status());
  for (const std::string& w : result->warnings) std::cerr << "note: " << w << "\n";
  std::cout << "wrote " << result->html << "\n" << "wrote " << result->markdown << "\n";
  if (!result->tarball.empty()) std::cout << "wrote " << result->tarball << "\n";
  std::cout << "reproducer: " << result->repro_dir << "/replay.sh\n";
  if (result->check_ran && !result->check_ok) {
    std::cerr << "check: the fused run does NOT match the interpreter (see the report's check section)\n";
    return kExitUserError;
  }
  return kExitOk;
}

}  // namespace

int RunCli(int argc, char** argv) {
  try {
    CLI::App app{"Fusebox: a workbench for XLA-style tensor compilers (HLO, fusion, kernels)",
                 "fusebox"};
    app.set_version_flag("--version", std::string("fusebox ") + FUSEBOX_VERSION);
    for (int i = 0; i < argc; ++i) CommandLine() += (i ? " " : "") + std::string(argv[i]);
    if (argc == 1) {
      // `fusebox` alone opens the workbench (the most recent file, or the bundled example).
      gui::GuiOptions gui_opts;
      gui_opts.command_line = CommandLine();
      return gui::RunGui(gui_opts);
    }
    app.require_subcommand(1);
    app.fallthrough(false);

    CommonInput inspect_in;
    bool inspect_json = false;
    CLI::App* inspect = app.add_subcommand(
        "inspect", "Summarize a module: computations, instruction counts by opcode, parameter "
                   "and result shapes, bytes, fusion count; runs the verifier");
    AddInputOptions(inspect, &inspect_in);
    inspect->add_flag("--json", inspect_json, "Write the summary as JSON");

    CommonInput print_in;
    bool print_verify = false;
    std::string print_out, print_split;
    CLI::App* print = app.add_subcommand(
        "print", "Print the module(s) in canonical HLO text (XLA's format)");
    AddInputOptions(print, &print_in);
    print->add_flag("--verify", print_verify, "Also run the verifier; exit 1 on errors");
    print->add_option("-o,--output", print_out, "Write to this file instead of stdout");
    print->add_option("--split-dir", print_split,
                      "Write each module to DIR/<index>.<name>.hlo (instead of stdout)");

    CommonInput verify_in;
    CLI::App* verify = app.add_subcommand(
        "verify", "Run the verifier (operand counts and types, shape inference, called "
                  "computations, names, cycles) and report every problem");
    AddInputOptions(verify, &verify_in);

    CommonInput run_in;
    RunOptions run_opts;
    CLI::App* run = app.add_subcommand(
        "run", "Run the module on the reference interpreter, the CPU backend (LLVM JIT) or the GPU backend (CUDA), "
               "with inputs from .npy files or random ones from a seed");
    AddInputOptions(run, &run_in);
    run->add_flag("--unfused", run_opts.unfused, "CPU/GPU: one kernel per op (the pipeline without fusion)");
    run->add_option("--iterations", run_opts.iterations, "CPU/GPU: run this many times (timings, traces)");
    run->add_option("--trace", run_opts.trace, "CPU/GPU: write a Chrome trace-event JSON (opens in Perfetto)");
    run->add_flag("--check", run_opts.check,
                  "CPU/GPU: compare with the interpreter and its f64 shadow, output by output, within a bound "
                  "derived from the interpreter's own rounding error (printed); NaN/inf compared by class; "
                  "exit 1 on a mismatch, or when the check would be vacuous (every output NaN, constant or a "
                  "parameter passed through)");
    run->add_option("--expected", run_opts.expected,
                    "One .npy per output (in order; XLA's own outputs, say): compare the run's outputs with them "
                    "by the same rules as --check; exit 1 on a mismatch")
        ->delimiter(',');
    run->add_option("--threads", run_opts.threads, "CPU: worker threads (default: one per hardware thread)");
    run->add_option("--devices", run_opts.devices,
                    "Run the per-device (SPMD-partitioned) program on N logical devices, one thread each, "
                    "with collectives exchanged in the process; --inputs and outputs are global arrays "
                    "(default: what the module needs)");
    run->add_option("--output-sharding", run_opts.output_sharding,
                    "Multi-device: how the outputs are split, in XLA's text ('{devices=[4,1]<=[4]}', tuples "
                    "'{{replicated}, {...}}'), for a partitioned module whose root does not say");
    run->add_option("--unpartitioned", run_opts.unpartitioned,
                    "Multi-device: the module before partitioning (XLA's before_spmd-partitioning dump): "
                    "global parameter shapes and output shardings (found beside FILE when it is in a dump)");
    run->add_option("--gpu-arch", run_opts.gpu_arch, "GPU: compile for this target (default: the device's own)");
    run->add_option("--backend", run_opts.backend,
                    "interpreter (default) | cpu | gpu (CUDA driver and a GPU); each runs one device: a module "
                    "whose collectives span more (replica groups over 4 devices) is refused, naming the "
                    "instruction and the devices it needs")
        ->check(CLI::IsMember({"interpreter", "cpu", "gpu"}));
    run->add_option("--inputs", run_opts.inputs,
                    "The arguments: a.npy,b.npy,... (one .npy per entry parameter, in order) | x.npz (one "
                    "archive as numpy.savez writes it; members named like the parameters, with or without "
                    "XLA's .N suffix, or arr_0, arr_1, ... by position) | snapshot.pb (an HloSnapshot from "
                    "XLA's --xla_dump_hlo_snapshots: the arguments it recorded)")
        ->delimiter(',');
    run->add_option("--seed", run_opts.seed,
                    "Seed of the random inputs (when --inputs is not given). Each parameter's values "
                    "follow its uses: uniform [-1, 1) by default, [0.5, 1.5) where they reach sqrt, "
                    "rsqrt, log, pow's base or a divisor, integers in range for indices and shift amounts");
    run->add_flag("--explain-inputs", run_opts.explain_inputs,
                  "Before running, print to stdout each parameter's values and why: the distribution "
                  "chosen and the use that asked for it (or the file it came from)");
    run->add_option("--output-dir", run_opts.output_dir,
                    "Write each output as .npy into this folder (output.npy, or output_0.npy, "
                    "output_1.npy, ... for tuples)");
    run->add_flag("--save-inputs", run_opts.save_inputs,
                  "With --output-dir, also write the inputs used (input_0.npy, ...)");
    run->add_flag("--print", run_opts.print, "Print the outputs in XLA's literal syntax");
    run->add_option("--print-limit", run_opts.print_limit,
                    "Largest output (in elements) that --print writes out (default 1000)");
    // Hidden and test-only: compiles with a deliberate bug (compiler/support/planted_bugs.h),
    // so that a user can watch --check fail.
    run->add_option_function<std::string>(
           "--plant-bug",
           [](const std::string& name) {
             const std::optional<PlantedBug> bug = PlantedBugFromName(name);
             if (!bug) throw CLI::ValidationError("--plant-bug", "no planted bug is named " + name);
             SetPlantedBug(*bug);
             std::cerr << "planted bug " << name << " (" << PlantedBugSite(*bug) << "): results are wrong on purpose\n";
           },
           "TEST ONLY: compile with a deliberate bug (docs/testing.md, Planted bugs)")
        ->group("");

    CommonInput compile_in;
    CompileOptions compile_opts;
    CLI::App* compile = app.add_subcommand(
        "compile", "Run Fusebox's optimization pipeline and print a stage; with --dump-to, write "
                   "XLA's dump layout (before/after optimizations, one file per pass, decisions)");
    AddInputOptions(compile, &compile_in);
    compile->add_option("--stage", compile_opts.stage,
                        "hlo | optimized_hlo (default) | llvm_ir | llvm_ir_optimized | cpu_asm | buffer_assignment | "
                        "gpu_llvm_ir | gpu_llvm_ir_optimized | ptx | ptxas_info | sass; from a dump folder also "
                        "XLA's own: xla_optimized_hlo | xla_pass_NNNN | xla_llvm_ir | xla_llvm_ir_optimized | xla_ptx | "
                        "xla_asm | xla_buffer_assignment");
    compile->add_option("--backend", compile_opts.backend,
                        "cpu (default) | gpu: which backend's llvm_ir / llvm_ir_optimized to print");
    compile->add_option("--gpu-arch", compile_opts.gpu_arch, "GPU target for the GPU stages (default sm_90)");
    compile->add_option("--dump-to", compile_opts.dump_to, "Write dumps into this folder");
    compile->add_option("--dump-pass-re", compile_opts.dump_pass_re,
                        "Snapshot only after passes matching this regex (default .*)");
    compile->add_option("--disable-pass", compile_opts.disabled_passes, "Skip a pass by name")
        ->delimiter(',');
    compile->add_option("--only-pass", compile_opts.only_passes, "Run only these passes (by name)")
        ->delimiter(',');
    compile->add_option("-o,--output", compile_opts.output, "Write the stage to this file");
    compile->add_option("--source-map", compile_opts.source_map,
                        "Write the source map (instruction -> kernel -> LLVM functions, PTX entries, trace "
                        "names, with their lines in the stages) to this JSON file");
    compile->add_flag("--list-stages", compile_opts.list_stages,
                      "List the stages of the module (with XLA's own, xla_*, for a dump folder)");

    CommonInput explain_in;
    std::string explain_instruction;
    bool explain_collectives = false;
    CLI::App* explain = app.add_subcommand(
        "explain", "Why each producer was or was not fused into its consumer");
    AddInputOptions(explain, &explain_in);
    explain->add_flag("--collectives", explain_collectives,
                      "The collectives the SPMD partitioner inserted, each with its reason (which dim of "
                      "which operand is split how many ways), its groups and bytes");
    explain->add_option("--instruction", explain_instruction,
                        "Only decisions about this instruction (name without %)");

    IndexOptions index_opts;
    CLI::App* index = app.add_subcommand(
        "index", "Index an XLA dump folder (--xla_dump_to): modules x stages, every file classified");
    index->add_option("DIR", index_opts.dir, "The dump folder")->required();
    index->add_option("--module", index_opts.module, "Show this module's files (id, 0003 or 3, or name)");
    index->add_flag("--json", index_opts.json, "Write the index as JSON");
    index->add_flag("--check", index_opts.check,
                    "Also load every HLO file (text and proto); exit 1 if any cannot be loaded");

    CompareFusionOptions cmp_opts;
    CLI::App* cmp = app.add_subcommand(
        "compare-fusion", "Compare XLA's fusions (from a dump folder) with Fusebox's on the same input: "
                          "matching kernels, what one fuses and the other splits, kernel counts");
    cmp->add_option("DIR", cmp_opts.path, "XLA dump folder")->required();
    cmp->add_option("--module", cmp_opts.module, "Only this module (id or name); default: every module");
    cmp->add_flag("--json", cmp_opts.json, "Write the comparison as JSON");
    cmp->add_option("--max-names", cmp_opts.max_names, "Instruction names listed per kernel (default 6)");

    CommonInput extract_in;
    ExtractCommandOptions extract_opts;
    CLI::App* extract = app.add_subcommand(
        "extract", "Write a standalone, runnable module holding one instruction (or fusion) and N levels "
                   "of its operands, parameters for the rest: the smallest thing to attach to a bug");
    AddInputOptions(extract, &extract_in);
    extract->add_option("--instruction", extract_opts.instruction, "The instruction or fusion (name)")->required();
    extract->add_option("--height", extract_opts.height, "Levels of operands to keep (default 0)");
    extract->add_option("--stage", extract_opts.stage,
                        "hlo (the input) or optimized_hlo (after Fusebox's pipeline, where fusions are); "
                        "default: the input, or the optimized module when only it has the name");
    extract->add_option("-o,--output", extract_opts.output, "Write the module to this file");

    CommonInput report_in;
    ReportCommandOptions report_opts;
    CLI::App* report_cmd = app.add_subcommand(
        "report", "Write a self-contained bug report: report.html (summary, kernels per cluster, timeline, "
                  "fusion graph, decisions, stages and pass diffs, numerical check, environment), report.md, "
                  "trace.json, graph.dot/svg/png, a reproducer folder and a .tar.gz of it all");
    AddInputOptions(report_cmd, &report_in);
    report_cmd->add_option("--out", report_opts.out, "Output folder")->required();
    report_cmd->add_option("--backend", report_opts.backend, "cpu (default) | gpu")
        ->check(CLI::IsMember({"cpu", "gpu"}));
    report_cmd->add_option("--iterations", report_opts.iterations, "Runs of each executable (default 3)");
    report_cmd->add_option("--seed", report_opts.seed, "Seed of the random inputs");
    report_cmd->add_option("--inputs", report_opts.inputs, "One .npy file per entry parameter, in order")
        ->delimiter(',');
    report_cmd->add_option("--threads", report_opts.threads, "CPU worker threads");
    report_cmd->add_option("--gpu-arch", report_opts.gpu_arch, "GPU target (default: the device's own)");
    report_cmd->add_flag("--no-pack", report_opts.no_pack, "Do not write the .tar.gz");

    GraphCommandOptions graph_opts;
    CLI::App* graph_cmd = AddGraphCommand(app, &graph_opts);

    gui::GuiOptions gui_opts;
    std::string gui_positional;
    std::string gui_size;
    CLI::App* gui_cmd = app.add_subcommand(
        "gui", "Open the desktop workbench (also: `fusebox` alone, `fusebox open PATH`); with --screenshot or "
               "--frames it renders, saves and exits (scripted, works under xvfb-run)");
    gui_cmd->add_option("PATH", gui_positional, "File or dump folder to open");
    gui_cmd->add_option("--open", gui_opts.open_path, "File or dump folder to open");
    gui_cmd->add_option("--module", gui_opts.module, "Module to show (index, dump id or name)");
    gui_cmd->add_option("--select", gui_opts.select, "Instruction to select once the module is open");
    gui_cmd->add_option("--view", gui_opts.view,
                        "stages | passes | xla-passes (a dump's own pass snapshots) | graph | timeline | compare (XLA's "
                        "fusion against Fusebox's, dump folders)");
    gui_cmd->add_option("--stages", gui_opts.stages,
                        "Stage panes, left to right (1 to 4): hlo, optimized_hlo, llvm_ir_optimized, cpu_asm, ptx, "
                        "xla_optimized_hlo, ... (see `fusebox compile --list-stages`)")
        ->delimiter(',');
    gui_cmd->add_option("--screenshot", gui_opts.screenshot,
                        "Write a PNG of the window once the background work is done, then exit");
    gui_cmd->add_option("--frames", gui_opts.frames, "Scripted: render at least N frames after the work settles, then exit");
    gui_cmd->add_option("--size", gui_size, "Window size WxH (default 1600x1000)");
    gui_cmd->add_option("--scale", gui_opts.scale, "UI scale (default: the monitor's; env FUSEBOX_UI_SCALE)");
    gui_cmd->add_option("--timeout", gui_opts.timeout_s, "Scripted: seconds to wait for background work (default 300)");
    std::string open_path;
    CLI::App* open_cmd = app.add_subcommand("open", "Open a file or dump folder in the desktop workbench");
    open_cmd->add_option("PATH", open_path, "File or dump folder")->required();

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      int code = app.exit(e);
      return code == 0 ? kExitOk : kExitUserError;
    }

    if (inspect->parsed()) return RunInspect(inspect_in, inspect_json);
    if (print->parsed()) return RunPrint(print_in, print_verify, print_out, print_split);
    if (verify->parsed()) return RunVerify(verify_in);
    if (run->parsed()) {
      run_opts.seed_given = run->count("--seed") > 0;
      return RunRun(run_in, run_opts);
    }
    if (compile->parsed()) return RunCompile(compile_in, compile_opts);
    if (explain->parsed()) return RunExplain(explain_in, explain_instruction, explain_collectives);
    if (index->parsed()) return RunIndex(index_opts);
    if (cmp->parsed()) return RunCompareFusion(cmp_opts);
    if (extract->parsed()) return RunExtract(extract_in, extract_opts);
    if (report_cmd->parsed()) return RunReport(report_in, report_opts);
    if (graph_cmd->parsed()) return RunGraphCommand(graph_opts);
    if (gui_cmd->parsed() || open_cmd->parsed()) {
      if (open_cmd->parsed()) gui_opts.open_path = open_path;
      if (gui_opts.open_path.empty()) gui_opts.open_path = gui_positional;
      if (!gui_size.empty()) {
        int w = 0, h = 0;
        if (std::sscanf(gui_size.c_str(), "%dx%d", &w, &h) != 2 || w < 320 || h < 240 || w > 8192 || h > 8192) {
          return ReportStatus(InvalidArgument("--size: expected WxH between 320x240 and 8192x8192, got " + gui_size));
        }
        gui_opts.width = w;
        gui_opts.height = h;
      }
      gui_opts.command_line = CommandLine();
      return gui::RunGui(gui_opts);
    }
    std::cerr << app.help();
    return kExitUserError;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "internal error: unknown exception\n";
    return kExitInternal;
  }
}

}  // namespace fusebox
