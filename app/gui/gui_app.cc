#include "app/gui/gui_app.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <GL/gl.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/workbench.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_GUI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_GUI_SANITIZED 1
#endif
#endif

namespace fusebox::gui {
namespace fs = std::filesystem;

namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string g_glfw_error;
std::vector<std::string> g_dropped;

void OnGlfwError(int code, const char* description) {
  g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (description ? description : "");
}

void OnDrop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) g_dropped.emplace_back(paths[i]);
}

std::string FirstExisting(std::initializer_list<const char*> paths) {
  for (const char* p : paths) {
    std::error_code ec;
    if (fs::exists(p, ec)) return p;
  }
  return "";
}

std::string DefaultConfigDir() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::string(xdg) + "/fusebox";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.config/fusebox";
  return "";
}

// The colours: ImGui's dark theme, a little softer, with rounded widgets.
void ApplyStyle(float scale) {
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 4;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.TabRounding = 3;
  style.ScrollbarRounding = 6;
  style.FramePadding = ImVec2(6, 4);
  style.ItemSpacing = ImVec2(8, 5);
  ImVec4* c = style.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.11f, 0.12f, 0.14f, 1);
  c[ImGuiCol_ChildBg] = ImVec4(0.11f, 0.12f, 0.14f, 1);
  c[ImGuiCol_MenuBarBg] = ImVec4(0.15f, 0.16f, 0.19f, 1);
  c[ImGuiCol_Header] = ImVec4(0.22f, 0.34f, 0.52f, 0.8f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.26f, 0.42f, 0.65f, 0.8f);
  c[ImGuiCol_Tab] = ImVec4(0.17f, 0.19f, 0.23f, 1);
  c[ImGuiCol_TabActive] = ImVec4(0.24f, 0.36f, 0.56f, 1);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1, 1, 1, 0.03f);
  style.ScaleAllSizes(scale);
}

// Reads the back buffer (before the swap) and writes it as a PNG, top row first.
bool SaveScreenshot(const std::string& path, int width, int height, std::string* error) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  std::vector<unsigned char> flipped(pixels.size());
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height; ++y) {
    std::copy_n(pixels.data() + (height - 1 - y) * row, row, flipped.data() + y * row);
  }
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;  // opaque
  std::error_code ec;
  fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  if (!stbi_write_png(path.c_str(), width, height, 4, flipped.data(), static_cast<int>(row))) {
    *error = path + ": cannot write the screenshot";
    return false;
  }
  return true;
}

// The options a window cannot fix: an unknown view, a file that is not there (fatal only
// in scripted runs). Returns the exit code to stop with, or nullopt to go on.
std::optional<int> CheckOptions(const GuiOptions& options, bool scripted,
                                std::optional<View>* view) {
  if (!options.view.empty()) {
    *view = ParseView(options.view == "xla-passes" || options.view == "gpu-passes" ? "passes" : options.view);
    if (!*view) {
      std::fprintf(stderr, "fusebox gui: unknown view '%s' (stages, passes, gpu-passes, xla-passes, graph, timeline, compile, roofline, compare or memory)\n",
                   options.view.c_str());
      return 1;
    }
  }
  if (!options.open_path.empty()) {
    std::error_code ec;
    if (!fs::exists(options.open_path, ec)) {
      std::fprintf(stderr, "fusebox gui: %s: no such file or folder\n", options.open_path.c_str());
      if (scripted) return 1;
    }
  }
  return std::nullopt;
}

// GLFW and an OpenGL 3.3 core window; nullptr (with the reason on stderr) when there is
// no display or no GL.
GLFWwindow* OpenWindow(const GuiOptions& options, bool scripted) {
  glfwSetErrorCallback(OnGlfwError);
  const bool glfw_ok = glfwInit();
  if (!glfw_ok) {
    std::fprintf(stderr,
                 "fusebox: cannot open a window: %s\n"
                 "  (no display: set DISPLAY, or run under `xvfb-run -a fusebox gui ...`; every\n"
                 "  command-line subcommand works without one — see `fusebox --help`)\n",
                 g_glfw_error.empty() ? "glfwInit failed" : g_glfw_error.c_str());
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height, "Fusebox", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "fusebox: cannot create an OpenGL 3.3 window: %s\n", g_glfw_error.c_str());
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(scripted ? 0 : 1);
  glfwSetDropCallback(window, OnDrop);
  return window;
}

// --scale, else FUSEBOX_UI_SCALE, else the monitor's content scale (at least 1).
float UiScale(const GuiOptions& options, GLFWwindow* window) {
  float scale = options.scale;
  if (const char* env = std::getenv("FUSEBOX_UI_SCALE"); scale <= 0 && env) scale = std::strtof(env, nullptr);
  if (scale <= 0) {
    float xs = 1, ys = 1;
    glfwGetWindowContentScale(window, &xs, &ys);
    scale = std::max(1.0f, std::max(xs, ys));
  }
  return scale;
}

// Where ImGui keeps its window layout: `ini_path` in the config folder, nothing for
// scripted runs (which then have no config folder either). `ini_path` must outlive ImGui.
void ConfigureIni(ImGuiIO& io, bool scripted, std::string* config_dir, std::string* ini_path) {
  if (scripted) {
    io.IniFilename = nullptr;  // scripted runs look the same every time
    config_dir->clear();
  } else if (!config_dir->empty()) {
    std::error_code ec;
    fs::create_directories(*config_dir, ec);
    *ini_path = *config_dir + "/imgui.ini";
    io.IniFilename = ini_path->c_str();
  }
}

struct Fonts {
  ImFont* ui = nullptr;
  ImFont* mono = nullptr;
};

// DejaVu Sans for the UI, JetBrains Mono (else DejaVu Sans Mono) for code; ImGui's
// built-in font where they are missing.
Fonts LoadFonts(ImGuiIO& io, float scale) {
  Fonts fonts;
  std::string ui_path = FirstExisting({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"});
  std::string mono_path = FirstExisting({"/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf",
                                         "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"});
  if (!ui_path.empty()) fonts.ui = io.Fonts->AddFontFromFileTTF(ui_path.c_str(), 15.0f * scale);
  if (!fonts.ui) fonts.ui = io.Fonts->AddFontDefault();
  if (!mono_path.empty()) fonts.mono = io.Fonts->AddFontFromFileTTF(mono_path.c_str(), 14.0f * scale);
  if (!fonts.mono) fonts.mono = fonts.ui;
  if (ui_path.empty() || mono_path.empty()) {
    std::fprintf(stderr, "fusebox: note: DejaVu / JetBrains Mono fonts not found (scripts/setup.sh installs "
                         "them); using ImGui's built-in font\n");
  }
  return fonts;
}

// What the command line asks the workbench to show first: view, panes, selection, file.
void SetUpWorkbench(Workbench& workbench, const GuiOptions& options, const std::optional<View>& view) {
  if (view) workbench.ShowView(*view);
  if (options.view == "xla-passes") workbench.ShowXlaPasses(true);
  if (options.view == "gpu-passes") workbench.ShowGpuPipelinePasses(true);
  if (options.view == "compile") workbench.ShowCompileTrack(true);
  if (options.view == "roofline") workbench.ShowRoofline(true);
  for (size_t i = 0; i < options.stages.size() && i < 4; ++i) {
    workbench.SetPaneStage(static_cast<int>(i), options.stages[i]);
  }
  if (!options.stages.empty()) workbench.SetPaneCount(static_cast<int>(std::min<size_t>(options.stages.size(), 4)));
  if (!options.select.empty()) workbench.Select(options.select);
  if (!options.expand_scopes.empty()) workbench.ExpandGraphScopes(options.expand_scopes);
  if (!options.open_path.empty()) {
    workbench.Open(options.open_path, options.module);
  } else {
    workbench.OpenInitial();
  }
}

// One frame: wait for input (or not), hand over dropped files, draw the workbench and
// render it; the framebuffer's size comes back for a screenshot.
void DrawFrame(GLFWwindow* window, Workbench& workbench, bool scripted, ImFont* ui_font, int* fb_width,
               int* fb_height) {
  ImGuiIO& io = ImGui::GetIO();
  // Interactive and idle: sleep until input (or a tenth of a second, to pick up
  // finished background work); busy or scripted: keep drawing.
  if (!scripted && !workbench.busy()) {
    glfwWaitEventsTimeout(0.1);
  } else {
    glfwPollEvents();
  }
  if (!g_dropped.empty()) {
    workbench.OnDrop(g_dropped);
    g_dropped.clear();
  }
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // Scripted runs ignore the pointer (Xvfb parks it mid-screen, where it would open
  // tooltips): screenshots show the state the script asked for, nothing else.
  if (scripted) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  ImGui::PushFont(ui_font);
  workbench.Frame();
  ImGui::PopFont();
  if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) glfwSetWindowShouldClose(window, 1);
  if (workbench.quit_requested()) glfwSetWindowShouldClose(window, 1);
  ImGui::Render();
  glfwGetFramebufferSize(window, fb_width, fb_height);
  glViewport(0, 0, *fb_width, *fb_height);
  glClearColor(0.08f, 0.09f, 0.10f, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// A scripted run (--screenshot, --frames) across its frames.
struct ScriptedRun {
  double start = 0;
  double first_frame_s = -1;
  int frame = 0;
  int settled = 0;
  bool profile_started = false;
};

// After a frame of a scripted run: start the profile the timeline needs, and once the
// background work has settled for a few frames (or the timeout passed), write the
// screenshot, print the timings and close the window.
void StepScripted(GLFWwindow* window, Workbench& workbench, const GuiOptions& options,
                  const std::optional<View>& view, int fb_width, int fb_height, ScriptedRun& run,
                  int* exit_code) {
  const double now = NowSeconds() - run.start;
  // The timeline needs a run: scripted runs start one once the module is open.
  if (view == View::kProfile && workbench.has_document() && !run.profile_started && !workbench.busy()) {
    workbench.StartProfile();
    run.profile_started = true;
  }
  bool ready = !workbench.busy() && (workbench.has_document() || !workbench.errors().empty());
  if (ready && view == View::kGraph && workbench.has_document()) ready = workbench.graph_ready();
  if (ready && view == View::kProfile && workbench.has_document()) ready = workbench.profile_ready();
  if (ready && view == View::kCompare && workbench.has_document()) ready = workbench.compare_ready();
  if (ready && view == View::kMemory && workbench.has_document()) ready = workbench.memory_ready();
  run.settled = ready ? run.settled + 1 : 0;
  const bool timed_out = now > options.timeout_s;
  // A few frames after the work settles let ImGui finish sizing tables and popups.
  if (run.settled < std::max(options.frames, 4) && !timed_out) return;
  if (timed_out) {
    std::fprintf(stderr, "fusebox gui: gave up after %.0f s waiting for background work\n", now);
    *exit_code = 1;
  }
  if (!workbench.errors().empty()) *exit_code = 1;
  if (!options.screenshot.empty()) {
    std::string error;
    if (!SaveScreenshot(options.screenshot, fb_width, fb_height, &error)) {
      std::fprintf(stderr, "fusebox gui: %s\n", error.c_str());
      *exit_code = 1;
    } else {
      std::fprintf(stderr, "fusebox gui: wrote %s (%dx%d)\n", options.screenshot.c_str(), fb_width,
                   fb_height);
    }
  }
  std::fprintf(stderr,
               "fusebox gui: first frame after %.0f ms; document loaded after %.0f ms; done after %.0f ms "
               "and %d frames\n",
               run.first_frame_s * 1e3, workbench.first_load_s() * 1e3, now * 1e3, run.frame);
  glfwSetWindowShouldClose(window, 1);
}

// Frames until the window closes; the window title follows the open document.
int RunFrames(GLFWwindow* window, Workbench& workbench, const GuiOptions& options,
              const std::optional<View>& view, bool scripted, double start, ImFont* ui_font) {
  int exit_code = 0;
  ScriptedRun run;
  run.start = start;
  std::string title;
  while (!glfwWindowShouldClose(window)) {
    int fb_width = 0, fb_height = 0;
    DrawFrame(window, workbench, scripted, ui_font, &fb_width, &fb_height);
    ++run.frame;

    std::string want_title = "Fusebox";
    if (workbench.has_document()) want_title += " - " + workbench.document_path();
    if (want_title != title) {
      title = want_title;
      glfwSetWindowTitle(window, title.c_str());
    }

    if (scripted) StepScripted(window, workbench, options, view, fb_width, fb_height, run, &exit_code);
    glfwSwapBuffers(window);
    if (run.first_frame_s < 0) run.first_frame_s = NowSeconds() - start;
  }
  return exit_code;
}

}  // namespace

std::string FindExampleModule() {
  const char* name = "/examples/mnist_train_step.hlo";
  std::vector<fs::path> roots;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    // build/<preset>/app/fusebox -> the source tree three levels up; an install keeps
    // assets in ../share/fusebox.
    roots.push_back(exe.parent_path() / "../../../assets");
    roots.push_back(exe.parent_path() / "../share/fusebox/assets");
  }
#ifdef FUSEBOX_ASSETS_DIR
  roots.emplace_back(FUSEBOX_ASSETS_DIR);
#endif
  for (const fs::path& root : roots) {
    fs::path candidate = fs::path(root.string() + name).lexically_normal();
    if (fs::exists(candidate, ec)) return candidate.string();
  }
  return "";
}

int RunGui(const GuiOptions& options) {
  const double start = NowSeconds();
  const bool scripted = !options.screenshot.empty() || options.frames > 0;
  std::optional<View> view;
  if (std::optional<int> stop = CheckOptions(options, scripted, &view)) return *stop;
  GLFWwindow* window = OpenWindow(options, scripted);
  if (!window) return 1;
  const float scale = UiScale(options, window);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  std::string ini_path;
  std::string config_dir = options.config_dir.empty() ? DefaultConfigDir() : options.config_dir;
  ConfigureIni(io, scripted, &config_dir, &ini_path);
  ApplyStyle(scale);
  const Fonts fonts = LoadFonts(io, scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  int exit_code = 0;
  {
    WorkbenchOptions wopts;
    wopts.example_path = FindExampleModule();
    wopts.config_dir = config_dir;
    wopts.command_line = options.command_line;
    Workbench workbench(wopts);
    workbench.SetFonts(fonts.ui, fonts.mono);
    SetUpWorkbench(workbench, options, view);
    exit_code = RunFrames(window, workbench, options, view, scripted, start, fonts.ui);
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
#ifndef FUSEBOX_GUI_SANITIZED
  glfwTerminate();
#else
  // glfwTerminate closes the X display, which unloads Mesa's GL driver; the blocks its
  // LLVM keeps in the driver's globals then look leaked to LeakSanitizer at exit (the
  // allocating frame in an unmapped library cannot even be suppressed). Sanitized builds
  // leave the display to the process exit.
#endif
  return exit_code;
}

}  // namespace fusebox::gui
