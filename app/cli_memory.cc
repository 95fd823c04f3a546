// `fusebox memory FILE|DUMP_FOLDER`: the memory view on the command line: the peak of the
// CPU backend's buffer assignment fused and unfused, the buffers alive at the peak, and for
// a dump folder XLA's own peak from its files (see compiler/session/memory_view.h).
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/session/memory_view.h"

namespace fusebox::cli::cli_internal {

CLI::App* AddMemoryCommand(CLI::App& app, CommonInput* in, MemoryCommandOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "memory",
      "Memory over the schedule from the CPU backend's buffer assignment: the peak, the buffers "
      "alive there, fused vs unfused, and XLA's own peak for a dump folder");
  AddInputOptions(cmd, in);
  cmd->add_flag("--unfused", opts->unfused, "The table of buffers at the unfused module's peak instead");
  cmd->add_flag("--both", opts->both, "Tables for both the fused and the unfused module");
  cmd->add_flag("--json", opts->json, "JSON: per-step bytes, buffers at the peak, live ranges, XLA's figures");
  cmd->add_option("--top", opts->top, "Rows of the table (default 20; 0: all; with --json default all)");
  return cmd;
}

int RunMemory(const CommonInput& in, const MemoryCommandOptions& opts) {
  if (opts.unfused && opts.both) return ReportStatus(InvalidArgument("--unfused and --both exclude each other"));
  if (opts.top < -1) return ReportStatus(InvalidArgument("--top must be 0 or more"));
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  auto view = session::BuildMemoryView(**session);
  if (!view.ok()) return ReportStatus(view.status());
  if (opts.json) {
    std::cout << session::MemoryViewJson(*view, opts.top < 0 ? 0 : opts.top);
    return kExitOk;
  }
  session::MemoryTextOptions text;
  text.fused_table = !opts.unfused;
  text.unfused_table = opts.unfused || opts.both;
  text.top = opts.top < 0 ? 20 : opts.top;
  std::cout << session::MemoryViewText(*view, text);
  return kExitOk;
}

}  // namespace fusebox::cli::cli_internal
