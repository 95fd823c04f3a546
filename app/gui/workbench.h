// The workbench: everything the desktop app shows, drawn with Dear ImGui — a module
// browser (a dump folder's modules x stages, or one module's computations and
// instructions), stage panes side by side with cross-links, the pass stepper with diffs,
// the fusion graph, the why-(not)-fused log, run & profile with a timeline, and export.
// Multi-device (SPMD) programs: a devices panel, shardings and collectives in the
// inspector, and runs on N devices (workbench_devices.cc).
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
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/gui/file_browser.h"
#include "app/gui/task_runner.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/summary.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/fusion_comparison.h"
#include "compiler/session/source_map.h"
#include "importers/dump_index.h"
#include "profiler/kernel_summary.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/session/profiled_run.h"
#include "viewers/diff_view.h"
#include "viewers/graph_view.h"
#include "viewers/text_view.h"
#include "viewers/timeline_view.h"

namespace fusebox::gui {

enum class View { kStages, kPasses, kGraph, kProfile, kCompare };
// stages | passes | graph | timeline (or profile) | compare (XLA vs Fusebox, dump folders)
std::optional<View> ParseView(std::string_view name);

struct WorkbenchOptions {
  std::string example_path;  // the bundled example, opened on first start
  std::string config_dir;    // where recent files are kept ("" = nowhere)
  std::string export_dir = "fusebox-export";
  std::string command_line;  // for reports' environment section
};

class Workbench {
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
  void Select(const std::string& instruction);
  void ShowView(View view);
  // Runs the module fused and unfused on the chosen backend (the Profile view).
  void StartProfile();
  void OnDrop(const std::vector<std::string>& paths);

  // Draws one frame of the whole workbench into the display; call between NewFrame and
  // Render.
  void Frame();

  bool busy() const;  // background work queued, running or waiting to be applied
  bool quit_requested() const { return quit_requested_; }
  const std::vector<std::string>& errors() const { return errors_; }
  bool has_document() const { return document_ != nullptr; }
  std::string document_path() const;
  std::string selection() const { return selection_; }
  // What the selection lights up in every pane: the instruction, the kernel (fusion) that
  // runs it, and the LLVM functions / PTX entries generated for that kernel.
  std::vector<std::string> linked_names() const { return LinkedNames(selection_); }
  // Shows `stage` in stage pane `pane` (0-3), building it in the background.
  void SetPaneStage(int pane, const std::string& stage);
  // The pass stepper steps through XLA's pass snapshots of a dump folder (true) or
  // Fusebox's own pipeline (false).
  void ShowXlaPasses(bool xla) { passes_source_ = xla ? 1 : 0; }
  void SetPaneCount(int count) { pane_count_ = std::clamp(count, 1, 4); }
  // The Run & profile view's backend: 0 the CPU, 1 the GPU.
  void SetProfileBackend(int backend) { profile_backend_ = std::clamp(backend, 0, 1); }
  View view() const { return view_; }
  // For scripted runs: when the first document finished loading (seconds since the
  // workbench was made; negative until then).
  double first_load_s() const { return first_load_s_; }
  // Whether the graph view holds a layout, the profile has runs, the stage panes text.
  bool graph_ready() const { return graph_view_.has_graph() || !graph_message_.empty(); }
  bool profile_ready() const { return profile_done_; }
  // The XLA-vs-Fusebox comparison of the current module is done (or failed).
  bool compare_ready() const;
  // What the graph view says about its graph (node count, layout time, notes) or why
  // there is none.
  const std::string& graph_message() const { return graph_message_; }

  // What the views hold, for tests that check what is shown rather than what was asked:
  // the text stage pane `pane` shows ("" until it is built; its error when it failed);
  // the current module's stages (Fusebox's, and XLA's from a dump folder); the pass
  // snapshots the stepper steps through; the nodes of the graph view's layout; the
  // kernel groups of the XLA-vs-Fusebox comparison (0 until done or when it failed).
  std::string pane_text(int pane) const;
  std::vector<std::string> stage_names() const;
  size_t pass_snapshot_count() const;
  size_t graph_node_count() const { return graph_view_.has_graph() ? graph_view_.graph().nodes.size() : 0; }
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
    const auto& run = unfused ? md_unfused_ : md_fused_;
    return run ? &*run : nullptr;
  }
  // The trace the timeline shows (null before a run).
  const profiler::Trace* timeline_trace() const {
    return timeline_view_.has_trace() ? &timeline_view_.trace() : nullptr;
  }

 private:
  struct StageText {
    bool loading = false;
    bool ready = false;
    std::string text;
    std::string error;
  };
  // One module of the open document and what has been computed for it.
  struct ModuleDoc {
    std::string key;    // dump key, or the module's index
    std::string label;  // "0003 jit_f" / module name
    std::shared_ptr<CompileSession> session;
    std::vector<Literal> arguments;  // an HloSnapshot's
    std::string verify_error;        // the verifier's errors ("" when it verifies)
    // How the input spreads over devices (computed when it loads) and, once optimized,
    // the per-device program's collectives.
    DeviceSummary devices;
    DeviceSummary optimized_devices;
    // Whether the input / the optimized module is a global program on several devices
    // (shapes are whole arrays; each device holds a shard).
    bool input_global = false;
    bool optimized_global = false;
    // Laid-out fusion graphs by their options (Graphviz is the slow part: a graph is laid
    // out once per module and option set).
    struct CachedGraph {
      graph::FusionGraph graph;
      graph::GraphLayout layout;
      std::string message;
    };
    std::map<std::string, std::shared_ptr<const CachedGraph>> graphs;
    // XLA's fusion against Fusebox's (dump folders only; computed on first view).
    bool compare_started = false;
    bool compare_done = false;
    std::optional<FusionComparison> comparison;
    std::string compare_error;
    bool optimize_started = false;
    bool optimized = false;
    std::string optimize_error;
    // Instruction -> the fusion (kernel) that runs it in the optimized module (when the
    // pipeline reports back) -> the LLVM functions / PTX entries implementing it (as the
    // code stages are built).
    session::SourceMap source_map;
    std::map<std::string, StageText> stages;
    std::vector<std::string> stage_names;
  };
  struct Document {
    std::string path;
    std::optional<DumpIndex> index;  // dump folders
    std::vector<std::shared_ptr<ModuleDoc>> modules;
    int current = 0;
    std::vector<std::string> notes;
  };
  struct StagePane {
    std::string stage;
    std::string shown;  // the stage whose text the view holds
    viewers::TextView view;
  };

  ModuleDoc* current_module() const;
  // The shared owner of a module of the open document: jobs keep it alive while they run.
  std::shared_ptr<ModuleDoc> Owned(const ModuleDoc* module) const;
  void SetDocument(std::unique_ptr<Document> document, const std::string& selector);
  void SelectModule(int index);
  void StartOptimize(ModuleDoc* module);
  void RequestStage(ModuleDoc* module, const std::string& stage);
  void RequestGraph();
  void AddError(std::string message);
  void CancelWork();  // cancels every job and marks what waited on them
  void AddRecent(const std::string& path);
  void LoadRecent();
  std::vector<std::string> LinkedNames(const std::string& instruction) const;
  void ApplySelectionToViews();
  const Instruction* FindInstruction(const std::string& name, bool* in_optimized) const;

  // Panels
  void DrawMenuBar();
  void DrawModuleBrowser();
  void DrawStages();
  void DrawPasses();
  void DrawXlaPasses(ModuleDoc* module);
  void DrawGraph();
  void DrawProfile();
  void DrawCompare();
  bool HasXlaDump(const ModuleDoc& module) const;
  void DrawInspector();
  void DrawStatusBar();
  void DrawErrorPanel();
  void DrawExportPopup();
  void DrawInstructionLink(const std::string& name);

  // Multi-device (workbench_devices.cc). A line of the devices panel or the inspector:
  // drawn by kind, and read back as text by the tests.
  struct InfoLine {
    enum class Kind { kText, kDim, kWarning, kLink, kReason };
    InfoLine(Kind k, std::string t, std::string l = "", std::string a = "")
        : kind(k), text(std::move(t)), link(std::move(l)), after(std::move(a)) {}
    Kind kind = Kind::kText;
    std::string text;
    std::string link;   // kLink: the instruction the line names (clickable, after `text`)
    std::string after;  // kLink: what follows the link
  };
  std::vector<InfoLine> DevicesLines(const ModuleDoc& module) const;
  std::vector<InfoLine> InspectorDevicesLines(const ModuleDoc& module) const;
  void DrawInfoLines(const std::vector<InfoLine>& lines);
  void DrawDevicesPanel(ModuleDoc* module);
  void DrawCollectiveDecisions(const std::vector<CollectiveDecision>& decisions);
  void StartMultiDeviceProfile(ModuleDoc* module);
  void DrawMultiDeviceProfile();
  void ShowMultiDeviceTrace(bool unfused);

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
  char module_filter_[128] = {};
  int browser_module_ = 0;  // the browser lists 0: the input module, 1: the optimized one
  std::string filter_query_;                    // the search the matches below are for
  const Module* filter_module_ = nullptr;       // ... in this module
  std::vector<const Instruction*> filter_matches_;

  // Stages
  int pane_count_ = 2;
  StagePane panes_[4];

  // Passes
  int selected_pass_ = -1;
  int diff_shown_pass_ = -2;
  bool pass_show_snapshot_ = false;
  viewers::DiffView diff_view_;
  viewers::TextView snapshot_view_;
  int passes_source_ = 0;  // 0: Fusebox's pipeline, 1: XLA's pass snapshots from a dump
  int xla_selected_pass_ = 0;
  std::string xla_diff_shown_;
  viewers::DiffView xla_diff_view_;

  // Graph
  viewers::GraphView graph_view_;
  bool graph_requested_ = false;
  bool graph_loading_ = false;
  std::string graph_message_;  // why there is no graph / notes
  int graph_stage_ = 1;        // 0 input, 1 optimized
  int graph_fusions_ = 2;      // 0 collapse, 1 expand, 2 expand small
  bool graph_neighbourhood_ = false;
  int graph_radius_ = 2;
  std::string graph_center_;

  // Profile
  int profile_backend_ = 0;  // 0 cpu, 1 gpu
  int profile_iterations_ = 5;
  bool profile_running_ = false;
  bool profile_done_ = false;
  bool profile_show_unfused_ = false;
  std::string profile_error_;
  std::optional<session::ProfiledRun> run_fused_;
  std::optional<session::ProfiledRun> run_unfused_;
  profiler::KernelSummary summary_fused_;
  profiler::KernelSummary summary_unfused_;
  viewers::TimelineView timeline_view_;
  // Runs on N devices (the module runs on more than one): these instead of run_*_.
  std::optional<session::MultiDeviceRun> md_fused_;
  std::optional<session::MultiDeviceRun> md_unfused_;

  // Decisions filter
  int decisions_filter_ = 0;  // 0 all, 1 fused, 2 not fused

  // Export
  bool export_open_ = false;
  char export_dir_[512] = {};
  std::string export_message_;
};

}  // namespace fusebox::gui
