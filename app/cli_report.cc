// `fusebox report`: a self-contained bug report (report/report.h) from the command line.
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/interpreter/npy.h"
#include "compiler/runtime/multi_device.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"
#include "report/report.h"

namespace fusebox::cli::cli_internal {

// `fusebox report PATH --out DIR`: see report/report.h for what it writes.
int RunReport(const CommonInput& in, const ReportCommandOptions& opts) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return ReportStatus(picked.status());
  size_t chosen = picked->front();
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool errors = false;
  PrintVerifierIssues(VerifyModule(*file->modules[chosen], vopts), &errors);
  if (errors)
    return ReportStatus(InvalidArgument(in.path + ": the module does not verify; no report"));

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
    input.source +=
        " (module " + file->module_keys[chosen] + ", " + file->module_files[chosen] + ")";
    auto index = importers::IndexDumpFolder(in.path);
    if (index.ok()) {
      auto module = index->Find(file->module_keys[chosen]);
      if (module.ok()) {
        session::CompileSession stages(file->modules[chosen]->Clone());
        importers::AddXlaDumpStages(**module, &stages);
        input.xla_stages = stages.external_stages();
        auto compared = importers::CompareDumpFusion(**module);
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
    for (int64_t p = 0; p < module.entry()->parameter_count(); ++p)
      shapes.push_back(module.entry()->parameter(p)->shape());
    if (DevicesOfModule(module) > 1 && IsPerDeviceProgram(module)) {
      auto global = runtime::GlobalParameterShapes(module, nullptr);
      if (!global.ok()) return ReportStatus(global.status());
      shapes = std::move(*global);
    }
    for (size_t i = 0; i < opts.inputs.size(); ++i) {
      auto lit = interpreter::ReadNpy(opts.inputs[i], &shapes[i]);
      if (!lit.ok()) return ReportStatus(lit.status());
      options.inputs.push_back(std::move(*lit));
    }
  } else if (!file->arguments.empty()) {
    // An HloSnapshot carries the arguments of the run it recorded.
    options.inputs = std::move(file->arguments);
    std::cerr << "note: using the " << options.inputs.size()
              << " argument(s) recorded in the snapshot\n";
  }
  input.module = std::move(file->modules[chosen]);
  auto result = report::WriteReport(std::move(input), options);
  if (!result.ok()) return ReportStatus(result.status());
  for (const std::string& w : result->warnings) std::cerr << "note: " << w << "\n";
  std::cout << "wrote " << result->html << "\n"
            << "wrote " << result->markdown << "\n";
  if (!result->tarball.empty()) std::cout << "wrote " << result->tarball << "\n";
  std::cout << "reproducer: " << result->repro_dir << "/replay.sh\n";
  if (result->check_ran && !result->check_ok) {
    std::cerr
        << "check: the fused run does NOT match the interpreter (see the report's check section)\n";
    return kExitUserError;
  }
  return kExitOk;
}

CLI::App* AddReportCommand(CLI::App& app, CommonInput* in, ReportCommandOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write a self-contained bug report: report.html (summary, kernels per cluster, timeline, "
      "fusion graph, decisions, stages and pass diffs, numerical check, environment), report.md, "
      "trace.json, graph.dot/svg/png, a reproducer folder and a .tar.gz of it all");
  AddInputOptions(cmd, in);
  cmd->add_option("--out", opts->out, "Output folder")->required();
  cmd->add_option("--backend", opts->backend, "cpu (default) | gpu")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--iterations", opts->iterations, "Runs of each executable (default 3)");
  cmd->add_option("--seed", opts->seed, "Seed of the random inputs");
  cmd->add_option("--inputs", opts->inputs, "One .npy file per entry parameter, in order")
      ->delimiter(',');
  cmd->add_option("--threads", opts->threads, "CPU worker threads");
  cmd->add_option("--gpu-arch", opts->gpu_arch, "GPU target (default: the device's own)");
  cmd->add_flag("--no-pack", opts->no_pack, "Do not write the .tar.gz");
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
