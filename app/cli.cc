// The `fusebox` command line: registers each command (their options and bodies are in
// cli_module.cc, cli_run.cc, cli_compile.cc, cli_dump.cc, cli_diff.cc, cli_bisect.cc,
// cli_memory.cc, cli_report.cc, cli_gui.cc and graph_command.cc), parses, and dispatches.
// Each command loads its input through the
// importers, works through the compiler's API, and writes text to stdout (results) or
// stderr (diagnostics).
#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "app/cli_internal.h"
#include "app/graph_command.h"
#include "app/gui/gui_app.h"

#ifndef FUSEBOX_VERSION
#define FUSEBOX_VERSION "0.0.0"
#endif

namespace fusebox::cli {

using namespace cli_internal;

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
    CLI::App* inspect = AddInspectCommand(app, &inspect_in, &inspect_json);
    CommonInput print_in;
    PrintOptions print_opts;
    CLI::App* print = AddPrintCommand(app, &print_in, &print_opts);
    CommonInput verify_in;
    CLI::App* verify = AddVerifyCommand(app, &verify_in);
    CommonInput run_in;
    RunOptions run_opts;
    CLI::App* run = AddRunCommand(app, &run_in, &run_opts);
    CommonInput compile_in;
    CompileOptions compile_opts;
    CLI::App* compile = AddCompileCommand(app, &compile_in, &compile_opts);
    CommonInput explain_in;
    ExplainOptions explain_opts;
    CLI::App* explain = AddExplainCommand(app, &explain_in, &explain_opts);
    IndexOptions index_opts;
    CLI::App* index = AddIndexCommand(app, &index_opts);
    CompareFusionOptions cmp_opts;
    CLI::App* cmp = AddCompareFusionCommand(app, &cmp_opts);
    CommonInput extract_in;
    ExtractCommandOptions extract_opts;
    CLI::App* extract = AddExtractCommand(app, &extract_in, &extract_opts);
    DiffCommandOptions diff_opts;
    CLI::App* diff_cmd = AddDiffCommand(app, &diff_opts);
    CommonInput bisect_in;
    BisectCommandOptions bisect_opts;
    CLI::App* bisect_cmd = AddBisectCommand(app, &bisect_in, &bisect_opts);
    CommonInput memory_in;
    MemoryCommandOptions memory_opts;
    CLI::App* memory_cmd = AddMemoryCommand(app, &memory_in, &memory_opts);
    CommonInput report_in;
    ReportCommandOptions report_opts;
    CLI::App* report_cmd = AddReportCommand(app, &report_in, &report_opts);
    GraphCommandOptions graph_opts;
    CLI::App* graph_cmd = AddGraphCommand(app, &graph_opts);
    GuiCommandOptions gui_opts;
    CLI::App* gui_cmd = AddGuiCommands(app, &gui_opts);

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      int code = app.exit(e);
      return code == 0 ? kExitOk : kExitUserError;
    }

    if (inspect->parsed()) return RunInspect(inspect_in, inspect_json);
    if (print->parsed()) {
      return RunPrint(print_in, print_opts.verify, print_opts.output, print_opts.split_dir);
    }
    if (verify->parsed()) return RunVerify(verify_in);
    if (run->parsed()) {
      run_opts.seed_given = run->count("--seed") > 0;
      return RunRun(run_in, run_opts);
    }
    if (compile->parsed()) return RunCompile(compile_in, compile_opts);
    if (explain->parsed()) {
      return RunExplain(explain_in, explain_opts.instruction, explain_opts.collectives);
    }
    if (index->parsed()) return RunIndex(index_opts);
    if (cmp->parsed()) return RunCompareFusion(cmp_opts);
    if (extract->parsed()) return RunExtract(extract_in, extract_opts);
    if (diff_cmd->parsed()) return RunDiff(diff_opts);
    if (bisect_cmd->parsed()) return RunBisect(bisect_in, bisect_opts);
    if (memory_cmd->parsed()) return RunMemory(memory_in, memory_opts);
    if (report_cmd->parsed()) return RunReport(report_in, report_opts);
    if (graph_cmd->parsed()) return RunGraphCommand(graph_opts);
    if (gui_cmd->parsed() || gui_opts.open_cmd->parsed()) return RunGuiCommand(gui_opts);
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

}  // namespace fusebox::cli
