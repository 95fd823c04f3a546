// The workbench: everything the desktop app shows, drawn with Dear ImGui — a module
// browser (a dump folder's modules x stages, or one module's computations and
// instructions), stage panes side by side with cross-links, the pass stepper with diffs,
// the fusion graph, the why-(not)-fused log, run & profile with a timeline, and export.
// Multi-device (SPMD) programs: a devices panel, shardings and collectives in the
// inspector, and runs on N devices.
// The workbench keeps the frame, the documents, the jobs and the selection; each panel
// (panels.h, a file each) keeps its own view state and reaches the rest through the
// WorkbenchContext (panel.h) the workbench implements. The menu, status bar, error panel
// and export popup are in workbench_chrome.cc.
// It owns no window: gui_app.cc gives it frames (GLFW + OpenGL 3), and tests can give it
// frames headless. Heavy work (loading, the pipeline, code generation, layout, runs) goes
// to a TaskRunner; the UI thread never waits on it.
//
// Threading rule: a document's CompileSession is touched by jobs only (they run one at
// a time, in order). The UI reads what never changes once made — the input module, and
// after the optimize job has reported back, the optimized module, the pass records and
// the decisions — and keeps its own copies of everything else (stage text, graphs,
// traces).
#pragma once

#include <imgui.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/file_browser.h"
#include "app/gui/panel.h"
#include "app/gui/panels.h"
#include "app/gui/task_runner.h"
#include "app/gui/workbench_document.h"
#include "compiler/session/multi_device_run.h"
#include "profiler/trace.h"

namespace fusebox::gui {

// stages | passes | graph | timeline (or profile) | compare (XLA vs Fusebox, dump folders)
std::optional<View> ParseView(std::string_view name);

struct WorkbenchOptions {
  std::string example_path;  // the bundled example, opened on first start
  std::string config_dir;    // where recent files are kept ("" = nowhere)
  std::string export_dir = "fusebox-export";
  std::string command_line;  // for reports' environment section
};

class Workbench : private WorkbenchContext {
 public:
  explicit Workbench(WorkbenchOptions options);
  ~Workbench();

  void SetFonts(ImFont* ui, ImFont* mono) {
    ui_font_ = ui;
    mono_font_ = mono;
  }

  // Loads a file or dump folder in the background. When it loads it replaces the open
  // document; when it fails the error panel says why and the open document stays.
  void Open(const std::string& path, const std::string& module_selector = "");
  // Opens what a first start should: the most recent file, else the bundled example.
  void OpenInitial();
  void Select(const std::string& instruction) override;
  void ShowView(View view) override;
  // Runs the module fused and unfused on the chosen backend (the Profile view).
  void StartProfile();
  // The graph view draws these op_name scopes expanded in every module (the command
  // line's --expand-scope), as clicks on them would.
  void ExpandGraphScopes(const std::vector<std::string>& scopes) { graph_.ExpandScopes(scopes); }
  void OnDrop(const std::vector<std::string>& paths);

  // Draws one frame of the whole workbench into the display; call between NewFrame and
  // Render.
  void Frame();

  bool busy() const;  // background work queued, running or waiting to be applied
  bool quit_requested() const { return quit_requested_; }
  const std::vector<std::string>& errors() const { return errors_; }
  bool has_document() const { return document_ != nullptr; }
  std::string document_path() const;
  const std::string& selection() const override { return selection_; }
  // What the selection lights up in every pane: the instruction, the kernel (fusion) that
  // runs it, and the LLVM functions / PTX entries generated for that kernel.
  std::vector<std::string> linked_names() const { return LinkedNames(selection_); }
  // Shows `stage` in stage pane `pane` (0-3), building it in the background.
  void SetPaneStage(int pane, const std::string& stage);
  // The current module's GPU stages with cuBLAS / cuDNN calls or Fusebox's own kernels
  // (the Stages view's switch); false, changing nothing, while a job runs.
  bool SetGpuLibraries(bool on);
  // The pass stepper steps through XLA's pass snapshots of a dump folder (true) or
  // Fusebox's own pipeline (false).
  void ShowXlaPasses(bool xla) { passes_.ShowXlaPasses(xla); }
  // The pass stepper steps through the GPU pipeline (the passes that make stage
  // gpu_optimized_hlo, built in the background when first shown) or back to Fusebox's.
  void ShowGpuPipelinePasses(bool gpu) {
    passes_.ShowSource(gpu ? PassesPanel::kGpuPipeline : PassesPanel::kFuseboxPipeline);
  }
  // The profile's timeline shows the compile's spans instead of the last run's kernels.
  void ShowCompileTrack(bool compile) { profile_.ShowCompileTrack(compile); }
  // Run & profile shows the roofline instead of the kernel table; the kernels it plots.
  void ShowRoofline(bool roofline) { profile_.ShowRoofline(roofline); }
  size_t roofline_points() const { return profile_.roofline_points(); }
  void SetPaneCount(int count) { stages_.SetPaneCount(count); }
  // The Run & profile view's backend: 0 the CPU, 1 the GPU.
  void SetProfileBackend(int backend) { profile_.SetBackend(backend); }
  View view() const { return view_; }
  // For scripted runs: when the first document finished loading (seconds since the
  // workbench was made; negative until then).
  double first_load_s() const { return first_load_s_; }
  // Whether the graph view holds a layout, the profile has runs, the stage panes text.
  bool graph_ready() const { return graph_.ready(); }
  bool profile_ready() const { return profile_.done(); }
  // The XLA-vs-Fusebox comparison of the current module is done (or failed).
  bool compare_ready() const;
  // The memory view of the current module is computed (or failed).
  bool memory_ready() const;
  // What the memory view shows (null until computed or when it failed).
  const session::MemoryView* memory_view() const;
  void ShowUnfusedMemory(bool unfused) { memory_.ShowUnfused(unfused); }
  // What the graph view says about its graph (node count, layout time, notes) or why
  // there is none.
  const std::string& graph_message() const { return graph_.message(); }

  // What the views hold, for tests that check what is shown rather than what was asked:
  // the text stage pane `pane` shows ("" until it is built; its error when it failed);
  // the current module's stages (Fusebox's, and XLA's from a dump folder); the pass
  // snapshots the stepper steps through; the nodes of the graph view's layout; the
  // kernel groups of the XLA-vs-Fusebox comparison (0 until done or when it failed).
  std::string pane_text(int pane) const;
  std::vector<std::string> stage_names() const;
  size_t pass_snapshot_count() const;
  // The pipeline the stepper shows (Fusebox's or the GPU one): its name
  // ("optimizations", "gpu-optimizations") and the passes that changed the module, in
  // order; empty while it is being built.
  std::string stepper_pipeline_name() const;
  std::vector<std::string> stepper_changed_passes() const;
  // The Passes view's numerics bisection of the current module (its button): start it,
  // then what it found — the pass the stepper marks ("" when none diverges) and the summary.
  void StartBisect() { passes_.StartBisect(*this); }
  bool bisect_done() const { return passes_.bisect_done(); }
  std::string diverging_pass() const { return passes_.diverging_pass(); }
  std::string bisect_summary() const { return passes_.bisect_summary(); }
  size_t graph_node_count() const {
    return graph_.view().has_graph() ? graph_.view().graph().nodes.size() : 0;
  }
  // The graph view's zoom after its last frame (Fit applies on the first frame drawn).
  double graph_zoom() const { return graph_.view().zoom(); }
  // The graph view itself: the graph and layout it draws.
  const viewers::GraphView& graph_view() const { return graph_.view(); }
  size_t compare_group_count() const;

  // Multi-device programs. What the devices panel shows of the current module (devices,
  // program kind, meshes, shardings with each device's shape, collectives, the
  // partitioner's decisions), one line per row; "" for a single-device module.
  std::string devices_text() const;
  // What the inspector shows of the selection's sharding and, for a collective, its
  // groups, bytes and the partitioner's reason for inserting it; "" when none applies.
  std::string inspector_devices_text() const;
  // The last profile's runs on N devices (null when the module runs on one device or
  // has not run).
  const session::MultiDeviceRun* multi_device_run(bool unfused = false) const {
    const auto& run = profile_.multi_device_run(unfused);
    return run ? &*run : nullptr;
  }
  // The trace the timeline shows (null before a run).
  const profiler::Trace* timeline_trace() const {
    return profile_.timeline().has_trace() ? &profile_.timeline().trace() : nullptr;
  }

 private:
  // WorkbenchContext: what the panels use.
  const Document* document() const override { return document_.get(); }
  ModuleDoc* current_module() const override;
  std::shared_ptr<ModuleDoc> Owned(const ModuleDoc* module) const override;
  const std::string& loading_path() const override { return loading_path_; }
  void SelectModule(int index) override;
  std::vector<std::string> LinkedNames(const std::string& instruction) const override;
  void ApplySelectionToViews() override;
  const Instruction* FindInstruction(const std::string& name, bool* in_optimized) const override;
  TaskRunner& tasks() override { return tasks_; }
  int generation() const override { return generation_; }
  void RequestStage(ModuleDoc* module, const std::string& stage) override;
  void AddError(std::string message) override;
  void OpenExport() override { export_open_ = true; }
  bool HasXlaDump(const ModuleDoc& module) const override;
  ImFont* mono_font() const override { return mono_font_; }
  StagesPanel& stages_panel() override { return stages_; }
  ProfilePanel& profile_panel() override { return profile_; }

  void SetDocument(std::unique_ptr<Document> document, const std::string& selector);
  void StartOptimize(ModuleDoc* module);
  void CancelWork();  // cancels every job and marks what waited on them
  void AddRecent(const std::string& path);
  void LoadRecent();
  // Every panel, for what they all get (a new module, the selection, a cancel).
  std::vector<Panel*> panels();
  void DrawMainTabs();

  // The window's chrome (workbench_chrome.cc).
  void DrawMenuBar();
  void DrawStatusBar();
  void DrawErrorPanel();
  void DrawExportPopup();

  WorkbenchOptions options_;
  TaskRunner tasks_;
  FileBrowser browser_;
  ImFont* ui_font_ = nullptr;
  ImFont* mono_font_ = nullptr;
  double start_s_ = 0;
  double first_load_s_ = -1;
  bool quit_requested_ = false;

  std::unique_ptr<Document> document_;
  int generation_ = 0;  // bumped when the document changes; stale job results are dropped
  std::vector<std::string> errors_;
  std::vector<std::string> recent_;
  std::string loading_path_;
  std::string pending_selection_;

  View view_ = View::kStages;
  bool view_switch_pending_ = true;
  std::string selection_;

  ModuleBrowserPanel browser_panel_;
  StagesPanel stages_;
  PassesPanel passes_;
  GraphPanel graph_;
  ProfilePanel profile_;
  ComparePanel compare_;
  MemoryPanel memory_;
  InspectorPanel inspector_;

  // Export
  bool export_open_ = false;
  char export_dir_[512] = {};
  std::string export_message_;
};

}  // namespace fusebox::gui
