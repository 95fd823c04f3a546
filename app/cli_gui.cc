// `fusebox gui` and `fusebox open`: the desktop workbench from the command line.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "app/gui/gui_app.h"

namespace fusebox::cli::cli_internal {

CLI::App* AddGuiCommands(CLI::App& app, GuiCommandOptions* opts) {
  CLI::App* cmd =
      app.add_subcommand("gui",
                         "Open the desktop workbench (also: `fusebox` alone, `fusebox open PATH`); "
                         "with --screenshot or "
                         "--frames it renders, saves and exits (scripted, works under xvfb-run)");
  cmd->add_option("PATH", opts->positional, "File or dump folder to open");
  cmd->add_option("--open", opts->gui.open_path, "File or dump folder to open");
  cmd->add_option("--module", opts->gui.module, "Module to show (index, dump id or name)");
  cmd->add_option("--select", opts->gui.select, "Instruction to select once the module is open");
  cmd->add_option("--expand-scope", opts->gui.expand_scopes,
                  "Graph view: draw this op_name scope (e.g. resnet50/stage2/block1) expanded, as "
                  "a click on it would; repeatable");
  cmd->add_option("--view", opts->gui.view,
                  "stages | passes | gpu-passes (the GPU pipeline's) | xla-passes (a dump's own pass snapshots) | graph | timeline | "
                  "compile (the timeline's compile track: passes, kernels, LLVM, after a run) | "
                  "compare (XLA's "
                  "fusion against Fusebox's, dump folders) | memory (bytes over the schedule, the peak)");
  cmd->add_option("--stages", opts->gui.stages,
                  "Stage panes, left to right (1 to 4): hlo, optimized_hlo, llvm_ir_optimized, "
                  "cpu_asm, ptx, "
                  "xla_optimized_hlo, ... (see `fusebox compile --list-stages`)")
      ->delimiter(',');
  cmd->add_option("--screenshot", opts->gui.screenshot,
                  "Write a PNG of the window once the background work is done, then exit");
  cmd->add_option("--frames", opts->gui.frames,
                  "Scripted: render at least N frames after the work settles, then exit");
  cmd->add_option("--size", opts->size, "Window size WxH (default 1600x1000)");
  cmd->add_option("--scale", opts->gui.scale,
                  "UI scale (default: the monitor's; env FUSEBOX_UI_SCALE)");
  cmd->add_option("--timeout", opts->gui.timeout_s,
                  "Scripted: seconds to wait for background work (default 300)");
  opts->open_cmd =
      app.add_subcommand("open", "Open a file or dump folder in the desktop workbench");
  opts->open_cmd->add_option("PATH", opts->open_path, "File or dump folder")->required();
  return cmd;
}

int RunGuiCommand(GuiCommandOptions& opts) {
  gui::GuiOptions& gui_opts = opts.gui;
  if (opts.open_cmd->parsed()) gui_opts.open_path = opts.open_path;
  if (gui_opts.open_path.empty()) gui_opts.open_path = opts.positional;
  if (!opts.size.empty()) {
    int w = 0, h = 0;
    if (std::sscanf(opts.size.c_str(), "%dx%d", &w, &h) != 2 || w < 320 || h < 240 || w > 8192 ||
        h > 8192) {
      return ReportStatus(
          InvalidArgument("--size: expected WxH between 320x240 and 8192x8192, got " + opts.size));
    }
    gui_opts.width = w;
    gui_opts.height = h;
  }
  gui_opts.command_line = CommandLine();
  return gui::RunGui(gui_opts);
}

}  // namespace fusebox::cli::cli_internal
