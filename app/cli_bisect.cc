// `fusebox bisect FILE | DUMP_FOLDER`: the first pass whose outputs move beyond the bound
// (compiler/session/pass_bisect.h), what it changed, and a shrunk repro.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/interpreter/npy.h"
#include "compiler/session/pass_bisect.h"
#include "importers/dump_index.h"

namespace fusebox::cli::cli_internal {

namespace {

// A pass diverges: exit 1, as a failed --check does; errors also exit 1 (2 when internal).
constexpr int kExitDiverges = kExitUserError;

// XLA's stages of one module of a dump folder: before optimizations, then each per-pass
// file in step order.
StatusOr<std::vector<session::BisectStage>> XlaDumpStages(const CommonInput& in, std::string* what) {
  ASSIGN_OR_RETURN(importers::DumpIndex index, importers::IndexDumpFolder(in.path));
  const importers::DumpModule* module = nullptr;
  if (!in.module.empty()) {
    ASSIGN_OR_RETURN(module, index.Find(in.module));
  } else {
    for (const importers::DumpModule& m : index.modules) {
      if (!m.Passes().empty() && m.BeforeOptimizations() != nullptr) {
        module = &m;
        break;
      }
    }
  }
  if (module == nullptr || module->BeforeOptimizations() == nullptr || module->Passes().empty()) {
    return NotFound(in.path + ": no module with a before_optimizations file and per-pass files " +
                    "(XLA writes them with --xla_dump_hlo_pass_re=.*)");
  }
  std::vector<session::BisectStage> stages;
  auto add = [&](const importers::DumpFile& file, const std::string& pass) -> Status {
    ASSIGN_OR_RETURN(importers::LoadedDumpModule loaded, importers::LoadDumpHlo(file));
    stages.push_back({importers::DescribeDumpFile(file), pass, std::move(loaded.module)});
    return Status::Ok();
  };
  RETURN_IF_ERROR(add(*module->BeforeOptimizations(), ""));
  for (const importers::DumpFile* file : module->Passes()) {
    RETURN_IF_ERROR(add(*file, file->pipeline + "/" + file->after_pass));  // "simplification/algsimp"
  }
  *what = "XLA's passes of module " + module->Label() + " in " + in.path;
  return stages;
}

void PrintStages(const session::BisectReport& report) {
  std::printf("  %-5s %-34s %s\n", "stage", "pass", "verdict");
  constexpr size_t kVerdictWidth = 150;  // the whole verdict of the diverging stage follows the table
  for (size_t i = 0; i < report.stages.size(); ++i) {
    const session::BisectStageResult& s = report.stages[i];
    const char* mark = static_cast<int>(i) == report.first_diverging ? ">>" : "  ";
    std::string verdict = s.verdict;
    if (verdict.size() > kVerdictWidth) verdict = verdict.substr(0, kVerdictWidth - 3) + "...";
    std::printf("%s%-5zu %-34s %s\n", mark, i, s.pass.empty() ? "(input)" : s.pass.c_str(), verdict.c_str());
  }
}

int PrintReport(const session::BisectReport& report, const BisectCommandOptions& opts) {
  PrintStages(report);
  std::cout << "\n" << report.Summary() << "\n";
  if (report.first_diverging < 0) return kExitOk;
  std::cout << "\nthe check of that stage:\n" << report.check_details << "\nwhat " <<
      report.stages[static_cast<size_t>(report.first_diverging)].pass << " changed:\n" << report.changes << "\n";
  std::cout << "repro: " << report.repro_note << "\n";
  if (report.repro != nullptr) {
    const std::string& pass = report.stages[static_cast<size_t>(report.first_diverging)].pass;
    const std::string text = "// fusebox bisect repro: running pass " + pass + " on this module moves its outputs " +
                             "beyond the bound (seed " + std::to_string(opts.seed) + ").\n// Check: fusebox bisect " +
                             (opts.repro.empty() ? std::string("repro.hlo") : opts.repro) + " --pass " + pass +
                             "\n" + report.repro->ToString();
    Status written = WriteOutput(opts.repro, text);
    if (!written.ok()) return ReportStatus(written);
    if (!opts.repro.empty()) std::cout << "repro written to " << opts.repro << "\n";
  }
  return kExitDiverges;
}

session::BisectOptions OptionsOf(const BisectCommandOptions& opts) {
  session::BisectOptions options;
  options.seed = opts.seed;
  options.stop_at_first = !opts.all;
  options.shrink = !opts.no_shrink;
  options.max_shrink_evaluations = opts.max_tries;
  return options;
}

// --pass P: does that pass alone move this module's outputs beyond the bound?
int RunOnePass(const CommonInput& in, const BisectCommandOptions& opts) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, false);
  if (!picked.ok()) return ReportStatus(picked.status());
  const Module& module = *file->modules[picked->front()];
  const session::PassRunner runner = session::FuseboxPassRunner(opts.gpu_library == "on");
  auto after = runner(module, opts.pass);
  if (!after.ok()) return ReportStatus(after.status());
  auto diverges = session::PassDiverges(module, opts.pass, runner, OptionsOf(opts));
  if (!diverges.ok()) return ReportStatus(diverges.status());
  std::cout << "pass " << opts.pass << " on " << in.path << (*diverges ? " moves" : " does not move")
            << " the outputs beyond the bound (seed " << opts.seed << ")\n";
  return *diverges ? kExitDiverges : kExitOk;
}

// --against cpu|gpu: the backend's run against the interpreter, down to a kernel.
int RunAgainst(const CommonInput& in, const BisectCommandOptions& opts) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, false);
  if (!picked.ok()) return ReportStatus(picked.status());
  std::cout << "bisect: the " << opts.against << " backend against the interpreter on " << in.path << ", seed "
            << opts.seed << "; each kernel run alone on its operands' values from the same run\n\n";
  auto report = session::BisectKernels(*file->modules[picked->front()], opts.against, OptionsOf(opts));
  if (!report.ok()) return ReportStatus(report.status());
  std::printf("  %-6s %-28s %-16s %s\n", "kernel", "instruction", "kind", "verdict");
  for (size_t i = 0; i < report->kernels.size(); ++i) {
    const struct { const session::KernelBisectResult& result; } k{report->kernels[i]};
    const char* mark = static_cast<int>(i) == report->first_diverging ? ">>" : "  ";
    std::string verdict = k.result.verdict;
    if (verdict.size() > 120) verdict = verdict.substr(0, 117) + "...";
    std::printf("%s%-6zu %-28s %-16s %s\n", mark, i + 1, ("%" + k.result.kernel).c_str(), k.result.kind.c_str(),
                verdict.c_str());
  }
  std::cout << "\n" << report->Summary() << "\n";
  if (report->first_diverging < 0) return report->whole_diverges ? kExitDiverges : kExitOk;
  std::cout << "\nthe check of that kernel:\n" << report->check_details << "\n";
  if (report->repro != nullptr) {
    const std::string text = "// fusebox bisect repro: this kernel differs on the " + opts.against +
                             " backend from the interpreter on the inputs saved beside it.\n" +
                             report->repro->ToString();
    Status written = WriteOutput(opts.repro, text);
    if (!written.ok()) return ReportStatus(written);
    if (!opts.repro_inputs.empty()) {
      std::string list;
      for (size_t i = 0; i < report->repro_inputs.size(); ++i) {
        const std::string path = opts.repro_inputs + "/input_" + std::to_string(i) + ".npy";
        Status st = interpreter::WriteNpy(path, report->repro_inputs[i]);
        if (!st.ok()) return ReportStatus(st);
        list += (list.empty() ? "" : ",") + path;
      }
      std::cout << "kernel and its inputs written; run: fusebox run " << (opts.repro.empty() ? "KERNEL.hlo" : opts.repro)
                << " --backend " << opts.against << " --check --inputs " << list << "\n";
    }
  }
  return kExitDiverges;
}

}  // namespace

int RunBisect(const CommonInput& in, const BisectCommandOptions& opts) {
  if (opts.gpu_library != "on" && opts.gpu_library != "off") {
    return ReportStatus(InvalidArgument("--gpu-library is on or off, not '" + opts.gpu_library + "'"));
  }
  if (!opts.pass.empty()) return RunOnePass(in, opts);
  if (!opts.against.empty()) return RunAgainst(in, opts);
  std::vector<session::BisectStage> stages;
  std::string what;
  session::PassRunner rerun;
  if (importers::IsDumpFolder(in.path)) {
    auto xla = XlaDumpStages(in, &what);
    if (!xla.ok()) return ReportStatus(xla.status());
    stages = std::move(*xla);
  } else {
    auto file = Load(in);
    if (!file.ok()) return ReportStatus(file.status());
    auto picked = importers::SelectModules(*file, in.module, false);
    if (!picked.ok()) return ReportStatus(picked.status());
    const bool gpu = opts.gpu_library == "on";
    auto fusebox = session::FuseboxPipelineStages(*file->modules[picked->front()], gpu);
    if (!fusebox.ok()) return ReportStatus(fusebox.status());
    stages = std::move(*fusebox);
    rerun = session::FuseboxPassRunner(gpu);
    what = std::string("Fusebox's ") + (gpu ? "GPU pipeline (libraries on)" : "CPU pipeline") + " on " + in.path;
  }
  std::cout << "bisect: " << what << ": " << stages.size() - 1 << " stage(s) after the input, seed " << opts.seed
            << ", each run on the interpreter and checked against the input's (interpreter + f64 shadow)\n\n";
  auto report = session::BisectStages(stages, OptionsOf(opts), rerun);
  if (!report.ok()) return ReportStatus(report.status());
  return PrintReport(*report, opts);
}

CLI::App* AddBisectCommand(CLI::App& app, CommonInput* in, BisectCommandOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "bisect",
      "Find the first pass that moves the outputs beyond the bound (Fusebox's pipeline on FILE, or XLA's "
      "per-pass files in a dump folder), what it changed, and a shrunk repro");
  AddInputOptions(cmd, in);
  cmd->add_option("--seed", opts->seed, "Seed of the random arguments (default 1)");
  cmd->add_option("--repro", opts->repro, "Write the shrunk repro here (default: print it)");
  cmd->add_flag("--no-shrink", opts->no_shrink, "Name the pass only; do not shrink a repro");
  cmd->add_flag("--all", opts->all, "Evaluate every stage, not just up to the first that diverges");
  cmd->add_option("--max-tries", opts->max_tries, "Most modules tried while shrinking (default 400)");
  cmd->add_option("--gpu-library", opts->gpu_library, "on: bisect the GPU pipeline with libraries (default off)");
  cmd->add_option("--pass", opts->pass, "Only say whether this pass alone moves FILE's outputs beyond the bound");
  cmd->add_option("--against", opts->against,
                  "cpu or gpu: bisect a backend's mismatch with the interpreter down to a kernel");
  cmd->add_option("--repro-inputs", opts->repro_inputs,
                  "With --against: a folder to write the diverging kernel's inputs to (.npy each)");
  AddPlantBugOption(cmd);
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
