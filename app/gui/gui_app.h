// The desktop app around the workbench: a GLFW window with an OpenGL 3 context, Dear
// ImGui's GLFW and OpenGL3 backends, fonts from Debian's packages (DejaVu Sans for the UI,
// JetBrains Mono for code) scaled for HiDPI screens, drag and drop, and the scripted mode
// tests use: open, select, switch view, wait for the background work, save a screenshot
// and exit — under Xvfb, too.
#pragma once

#include <string>
#include <vector>

namespace fusebox::gui {

struct GuiOptions {
  std::string open_path;  // file or dump folder; empty: the most recent, else the example
  std::string module;     // module selector inside it
  std::string select;     // instruction to select once loaded
  std::vector<std::string> expand_scopes;  // graph: op_name scopes drawn expanded
  std::string view;       // stages | passes | graph | timeline | compare | memory
  std::vector<std::string> stages;  // the stage panes, left to right (1 to 4)
  std::string screenshot; // PNG to write, then exit (scripted)
  int frames = 0;         // scripted: at least this many frames once the work is done
  int width = 1600;
  int height = 1000;
  float scale = 0;        // UI scale; 0 = the monitor's content scale (FUSEBOX_UI_SCALE overrides)
  double timeout_s = 300; // scripted: give up waiting for background work after this long
  std::string command_line;
  std::string config_dir;  // recent files; "" = $XDG_CONFIG_HOME/fusebox or ~/.config/fusebox
};

// Runs the app; returns the process exit code. Scripted runs (a screenshot or a frame
// count) return 1 when the file could not be opened or the work timed out.
int RunGui(const GuiOptions& options);

// The folder of the bundled examples (assets/examples), found next to the executable's
// build tree or the source tree; "" when it cannot be found.
std::string FindExampleModule();

}  // namespace fusebox::gui
