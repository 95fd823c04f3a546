// `fusebox diff A B`: the structural diff of two modules (compiler/analysis/structural_diff.h),
// changes sorted by measured kernel time (--profile: each module run on the CPU, one kernel
// per op) or by estimated bytes.
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/analysis/structural_diff.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/profiled_run.h"
#include "profiler/kernel_summary.h"

namespace fusebox::cli::cli_internal {

namespace {

// One side of the diff: the file, the module loaded from it, and, with --optimize, the
// session that holds Fusebox's optimized module.
struct DiffSide {
  std::string label;
  std::unique_ptr<Module> module;
  std::unique_ptr<session::CompileSession> session;
  const Module* used = nullptr;  // the module diffed
};

StatusOr<DiffSide> LoadSide(const CommonInput& in, bool optimize) {
  DiffSide side;
  side.label = in.path;
  if (!in.dump_stage.empty()) side.label += " [" + in.dump_stage + "]";
  auto file = Load(in);
  if (!file.ok()) return file.status();
  ASSIGN_OR_RETURN(std::vector<size_t> picked, importers::SelectModules(*file, in.module, false));
  side.module = std::move(file->modules[picked.front()]);
  side.used = side.module.get();
  if (!optimize) return side;
  side.session = std::make_unique<session::CompileSession>(std::move(side.module));
  Status st = side.session->Optimize();
  if (!st.ok()) return st.WithPrefix(in.path + ": Fusebox's pipeline: ");
  side.used = side.session->optimized_module();
  side.label += ", Fusebox's optimized module";
  return side;
}

// Estimated bytes of what runs as a kernel; 0 for parameters, tuples, control flow, ...
std::optional<double> KernelBytes(const Instruction& inst) {
  return passes::IsKernel(inst) ? analysis::EstimatedBytes(inst) : 0.0;
}

// Microseconds per run of each kernel of `module` run on the CPU, one kernel per op
// (the pipeline without fusion), on random inputs; keyed by instruction name. Each call
// counts at its fastest of the runs: the first run pays for warming up (a kernel of
// 25 us measured 54 ms there).
StatusOr<std::map<std::string, double>> KernelTimes(const Module& module, int64_t iterations) {
  ASSIGN_OR_RETURN(std::vector<Literal> args, interpreter::RandomArguments(module, 0));
  session::ProfiledRunOptions options;
  options.backend = "cpu";
  options.fused = false;
  options.iterations = iterations;
  ASSIGN_OR_RETURN(session::ProfiledRun run, session::RunProfiled(module, args, options));
  std::map<std::string, double> us;
  for (const profiler::KernelStats& k : profiler::Summarize(run.trace).kernels) {
    const double calls_per_run = static_cast<double>(k.calls) / static_cast<double>(iterations);
    us[k.hlo] = static_cast<double>(k.min_ns) * calls_per_run / 1e3;
  }
  return us;
}

analysis::CostFunction ProfileCost(const DiffSide& side, int64_t iterations, bool* ok) {
  auto times = KernelTimes(*side.used, iterations);
  if (!times.ok()) {
    std::cerr << "note: --profile: " << side.label << " did not run (" << times.status().message()
              << "); changes are sorted by estimated bytes\n";
    *ok = false;
    return KernelBytes;
  }
  return analysis::KernelTimeCost(
      [times = *times](const std::string& name) -> std::optional<double> {
        auto it = times.find(name);
        return it == times.end() ? std::nullopt : std::optional<double>(it->second);
      });
}

void SortChanges(analysis::ModuleDiff* diff, const DiffSide& a, const DiffSide& b,
                 const DiffCommandOptions& opts) {
  if (!opts.profile) {
    analysis::SetCosts(diff, KernelBytes, KernelBytes,
                       "estimated bytes (operands + result; --profile measures kernel time)",
                       "bytes");
    return;
  }
  bool ok_a = true, ok_b = true;
  analysis::CostFunction cost_a = ProfileCost(a, opts.iterations, &ok_a);
  analysis::CostFunction cost_b = ProfileCost(b, opts.iterations, &ok_b);
  if (!ok_a || !ok_b) {
    analysis::SetCosts(diff, KernelBytes, KernelBytes,
                       "estimated bytes (operands + result; a module did not run)", "bytes");
    return;
  }
  analysis::SetCosts(diff, cost_a, cost_b,
                     "measured kernel time per run (CPU, one kernel per op, fastest of " +
                         std::to_string(opts.iterations) + " runs; ops the pipeline renamed last)",
                     "us");
}

}  // namespace

int RunDiff(const DiffCommandOptions& opts) {
  if (!opts.optimize.empty() && opts.optimize != "a" && opts.optimize != "b" &&
      opts.optimize != "both") {
    return ReportStatus(InvalidArgument("--optimize is a, b or both, not '" + opts.optimize + "'"));
  }
  if (opts.iterations < 1) return ReportStatus(InvalidArgument("--iterations must be at least 1"));
  auto a = LoadSide(opts.a, opts.optimize == "a" || opts.optimize == "both");
  if (!a.ok()) return ReportStatus(a.status());
  auto b = LoadSide(opts.b, opts.optimize == "b" || opts.optimize == "both");
  if (!b.ok()) return ReportStatus(b.status());
  if (!a->used->entry() || !b->used->entry()) {
    return ReportStatus(InvalidArgument("a module without an entry computation: nothing to match"));
  }
  analysis::DiffOptions options;
  options.compare_layouts = !opts.ignore_layouts;
  analysis::ModuleDiff diff = analysis::DiffModules(*a->used, *b->used, options);
  SortChanges(&diff, *a, *b, opts);
  std::cout << (opts.json ? analysis::DiffToJson(diff, a->label, b->label)
                          : analysis::DiffToText(diff, a->label, b->label));
  return kExitOk;
}

CLI::App* AddDiffCommand(CLI::App& app, DiffCommandOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Structural diff of two modules: instructions matched by what they compute (opcode, "
      "shape, attributes, operands), not by name; lists added, removed and changed ones");
  cmd->add_option("A", opts->a.path, "The old module: HLO text, HLO proto or XLA dump folder")
      ->required();
  cmd->add_option("B", opts->b.path, "The new module: HLO text, HLO proto or XLA dump folder")
      ->required();
  cmd->add_option("--module", opts->module,
                  "Module to use when a file holds several (index or name)");
  cmd->add_option(
      "--dump-stage-a", opts->a.dump_stage,
      "A is a dump folder: its stage (before_optimizations, after_optimizations, 0005)");
  cmd->add_option("--dump-stage-b", opts->b.dump_stage, "B is a dump folder: its stage");
  cmd->add_option("--optimize", opts->optimize,
                  "a, b or both: diff Fusebox's optimized module of that side instead");
  cmd->add_flag("--ignore-layouts", opts->ignore_layouts, "Compare shapes without their layouts");
  cmd->add_flag("--profile", opts->profile,
                "Run both modules on the CPU (one kernel per op) and sort changes by kernel time");
  cmd->add_option("--iterations", opts->iterations, "Runs per module with --profile (default 3)");
  cmd->add_flag("--json", opts->json, "Write the diff as JSON");
  cmd->add_flag("--strict", opts->a.strict, "Treat unknown attributes as errors");
  cmd->callback([opts] {
    opts->a.module = opts->b.module = opts->module;
    opts->b.strict = opts->a.strict;
  });
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
