// The workbench's panels, each with its view state; one file each:
//   module_browser_panel.cc  the document's modules, XLA's stages, the instruction list
//   stages_panel.cc          stage panes side by side with cross-links
//   passes_panel.cc          the pass stepper (Fusebox's pipeline, XLA's snapshots) with diffs
//   graph_panel.cc           the fusion graph, laid out in the background
//   profile_panel.cc         run & profile fused and unfused, timeline, time per cluster
//   profile_panel_devices.cc the same on N devices (multi-device programs)
//   compare_panel.cc         XLA's fusion against Fusebox's (dump folders)
//   memory_panel.cc          bytes in use over the schedule, the peak and its buffers
//   inspector_panel.cc       the selection and why (not) fused
//   devices_panel.cc         devices, shardings and collectives (browser and inspector)
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/panel.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/session/profiled_run.h"
#include "profiler/kernel_summary.h"
#include "profiler/roofline.h"
#include "viewers/diff_view.h"
#include "viewers/graph_view.h"
#include "viewers/text_view.h"
#include "viewers/timeline_view.h"

namespace fusebox::gui {

class ModuleBrowserPanel : public Panel {
 public:
  const char* title() const override { return "Modules"; }
  void Draw(WorkbenchContext& context) override;
  void OnModuleSelected(WorkbenchContext& context) override { filter_module_ = nullptr; }

 private:
  void DrawDocument(WorkbenchContext& context, const Document& document);
  void DrawXlaStages(WorkbenchContext& context, const ModuleDoc& module);
  void DrawModuleSummary(const ModuleDoc& module);
  void DrawInstructions(WorkbenchContext& context, const ModuleDoc& module);

  char module_filter_[128] = {};
  int browser_module_ = 0;  // the browser lists 0: the input module, 1: the optimized one
  std::string filter_query_;               // the search the matches below are for
  const Module* filter_module_ = nullptr;  // ... in this module
  std::vector<const Instruction*> filter_matches_;
};

class StagesPanel : public Panel {
 public:
  StagesPanel();
  const char* title() const override { return "Stages"; }
  void Draw(WorkbenchContext& context) override;
  void OnModuleSelected(WorkbenchContext& context) override;
  void OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                   const std::string& kernel) override;

  // Shows `stage` in pane `pane` (0-3), adding panes up to it.
  void SetPaneStage(int pane, const std::string& stage);
  // The current module's GPU stages with GPU libraries or without: drops the GPU stages
  // built so far (texts, source map side) to build them again. False, changing nothing,
  // while a job runs (jobs use the session).
  bool SetGpuLibraries(WorkbenchContext& context, bool on);
  void SetPaneCount(int count) { pane_count_ = std::clamp(count, 1, 4); }
  int pane_count() const { return pane_count_; }
  const std::string& pane_stage(int pane) const { return panes_[pane].stage; }

 private:
  struct StagePane {
    std::string stage;
    std::string shown;  // the stage whose text the view holds
    viewers::TextView view;
  };
  void DrawPane(WorkbenchContext& context, ModuleDoc* module, StagePane& pane, const std::vector<std::string>& stages);

  int pane_count_ = 2;
  StagePane panes_[4];
};

class PassesPanel : public Panel {
 public:
  const char* title() const override { return "Passes"; }
  void Draw(WorkbenchContext& context) override;
  void OnModuleSelected(WorkbenchContext& context) override;
  void OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                   const std::string& kernel) override {
    snapshot_view_.SetHighlight(linked);
  }
  // What the stepper steps through: Fusebox's pipeline (the CPU stages' module), the GPU
  // pipeline that makes stage gpu_optimized_hlo (gemm-rewriter and conv-rewriter with
  // GPU libraries on, the Stages view's switch), or XLA's pass snapshots of a dump folder.
  enum Source { kFuseboxPipeline = 0, kXlaPasses = 1, kGpuPipeline = 2 };
  void ShowSource(Source source) { passes_source_ = source; }
  void ShowXlaPasses(bool xla) { passes_source_ = xla ? kXlaPasses : kFuseboxPipeline; }
  bool showing_xla_passes() const { return passes_source_ == kXlaPasses; }
  bool showing_gpu_pipeline() const { return passes_source_ == kGpuPipeline; }
  // The pipeline the stepper shows for `module` with Fusebox's sources; null while it is
  // being built (the GPU pipeline runs in the background on first use) or failed.
  static const passes::PipelineResult* ShownPipeline(const ModuleDoc* module, bool gpu);

  // Numerics bisection of the current module over Fusebox's pipeline (compiler/session/
  // pass_bisect.h), in the background; the stepper then marks and selects the first pass
  // that moves the outputs beyond the bound.
  void StartBisect(WorkbenchContext& context);
  bool bisect_done() const { return bisect_ != nullptr && bisect_->done; }
  std::string bisect_summary() const { return bisect_ != nullptr ? bisect_->summary : std::string(); }
  std::string diverging_pass() const { return bisect_ != nullptr ? bisect_->pass : std::string(); }

 private:
  struct BisectState {
    bool done = false;
    std::string summary;  // the report's summary, or the error
    std::string pass;     // the first diverging pass; "" when none
    std::string repro;    // the shrunk repro's text
  };
  void DrawXlaPasses(WorkbenchContext& context, ModuleDoc* module);
  void DrawBisect(WorkbenchContext& context, const passes::PipelineResult& pipeline);
  void DrawStepper(const passes::PipelineResult& pipeline);
  void DrawPassList(const passes::PipelineResult& pipeline);
  void DrawPass(WorkbenchContext& context, const passes::PipelineResult& pipeline);

  int selected_pass_ = -1;
  int diff_shown_pass_ = -2;
  bool pass_show_snapshot_ = false;
  viewers::DiffView diff_view_;
  viewers::TextView snapshot_view_;
  int passes_source_ = kFuseboxPipeline;  // a Source
  int shown_source_ = kFuseboxPipeline;   // the source selected_pass_ indexes
  int xla_selected_pass_ = 0;
  std::string xla_diff_shown_;
  viewers::DiffView xla_diff_view_;
  std::shared_ptr<BisectState> bisect_;  // of the current module; null before a bisect
  bool bisect_selected_ = false;         // the diverging pass was selected once
};

class GraphPanel : public Panel {
 public:
  const char* title() const override { return "Fusion graph"; }
  void Draw(WorkbenchContext& context) override;
  void OnModuleSelected(WorkbenchContext& context) override;
  void OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                   const std::string& kernel) override;
  void OnCancel() override;
  // A new selection: the view centres on it, a neighbourhood view follows it.
  void CenterOn(const std::string& instruction);
  // Scopes drawn expanded in every module (kept across modules, unlike clicks).
  void ExpandScopes(const std::vector<std::string>& scopes) {
    for (const std::string& scope : scopes) pinned_scopes_[scope] = scope_choices_[scope] = true;
    requested_ = false;
  }

  bool ready() const { return view_.has_graph() || !message_.empty(); }
  const std::string& message() const { return message_; }
  const viewers::GraphView& view() const { return view_; }

 private:
  void RequestGraph(WorkbenchContext& context);

  viewers::GraphView view_;
  bool requested_ = false;
  bool loading_ = false;
  std::string message_;  // why there is no graph / notes
  int stage_ = 1;        // 0 input, 1 optimized
  int fusions_ = 2;      // 0 collapse, 1 expand, 2 expand small
  bool neighbourhood_ = false;
  int radius_ = 2;
  // Grouping by op_name scope and folding parameters and tuples (graph::ScopeOptions),
  // with the scopes the user expanded or collapsed by clicking, by path.
  bool group_scopes_ = true;
  bool fold_ = true;
  std::map<std::string, bool> scope_choices_;
  std::map<std::string, bool> pinned_scopes_;
  std::string focus_scope_;   // the scope a click just expanded: the view fits it
  double pane_aspect_ = 1.6;  // width : height of the canvas, for the composed layout
};

class ProfilePanel : public Panel {
 public:
  const char* title() const override { return "Run & profile"; }
  void Draw(WorkbenchContext& context) override;
  void OnModuleSelected(WorkbenchContext& context) override;
  void OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                   const std::string& kernel) override {
    timeline_view_.SetSelection(kernel);
  }
  void OnCancel() override;
  // Runs the current module fused and unfused on the chosen backend (on its devices when
  // it runs on several).
  void Start(WorkbenchContext& context);

  void SetBackend(int backend) { backend_ = std::clamp(backend, 0, 1); }
  int backend() const { return backend_; }  // 0 the CPU, 1 the GPU
  bool running() const { return running_; }
  bool done() const { return done_; }
  const std::optional<session::ProfiledRun>& run_fused() const { return run_fused_; }
  const std::optional<session::ProfiledRun>& run_unfused() const { return run_unfused_; }
  const std::optional<session::MultiDeviceRun>& multi_device_run(bool unfused) const {
    return unfused ? md_unfused_ : md_fused_;
  }
  const viewers::TimelineView& timeline() const { return timeline_view_; }
  // The timeline shows the compile track: every span the module's session recorded while
  // the workbench compiled it (the pipeline, the stages' backends, the runs' compiles).
  void ShowCompileTrack(bool compile) {
    show_compile_ = compile;
    reshow_ = true;  // on the next frame (when there is a run)
  }
  bool showing_compile_track() const { return show_compile_; }
  // The roofline under the timeline instead of the kernel table (CPU runs): each kernel
  // of the shown run under the machine's measured roofs (profile_panel_roofline.cc).
  void ShowRoofline(bool roofline) { show_roofline_ = roofline; }
  bool showing_roofline() const { return show_roofline_; }
  const std::optional<profiler::MachinePeaks>& peaks() const { return peaks_; }
  // The kernels the roofline plots (flops counted): for tests.
  size_t roofline_points() const;

 private:
  void ShowTrace(WorkbenchContext& context, bool unfused);
  void DrawRoofline(WorkbenchContext& context);
  void DrawControls(WorkbenchContext& context);
  void DrawCards();
  void DrawClusters(WorkbenchContext& context);
  // Several devices (profile_panel_devices.cc).
  void StartMultiDevice(WorkbenchContext& context, ModuleDoc* module);
  void ShowMultiDeviceTrace(WorkbenchContext& context, bool unfused);
  void DrawMultiDevice(WorkbenchContext& context);
  void DrawMultiDeviceCards();
  void DrawDeviceTable(const session::MultiDeviceRun& shown);
  void DrawCollectiveTable(WorkbenchContext& context, const session::MultiDeviceRun& shown);

  int backend_ = 0;  // 0 cpu, 1 gpu
  int iterations_ = 5;
  bool gpu_autotune_ = true;  // GPU: library algorithms timed at compile time (--gpu-autotune)
  bool gpu_occupancy_ = true;  // GPU: occupancy requests that save a wave (--gpu-occupancy)
  bool running_ = false;
  bool done_ = false;
  bool show_unfused_ = false;
  bool show_compile_ = false;
  bool show_roofline_ = false;
  std::optional<profiler::MachinePeaks> peaks_;  // measured (or cached) with the last CPU run
  std::string peaks_error_;
  bool reshow_ = false;
  std::string error_;
  std::optional<session::ProfiledRun> run_fused_;
  std::optional<session::ProfiledRun> run_unfused_;
  profiler::KernelSummary summary_fused_;
  profiler::KernelSummary summary_unfused_;
  viewers::TimelineView timeline_view_;
  // Runs on N devices (the module runs on more than one): these instead of run_*_.
  std::optional<session::MultiDeviceRun> md_fused_;
  std::optional<session::MultiDeviceRun> md_unfused_;
};

class ComparePanel : public Panel {
 public:
  const char* title() const override { return "XLA vs Fusebox"; }
  void Draw(WorkbenchContext& context) override;

 private:
  void StartComparison(WorkbenchContext& context, ModuleDoc* module);
  void DrawGroups(WorkbenchContext& context, const session::FusionComparison& c);
};

class MemoryPanel : public Panel {
 public:
  const char* title() const override { return "Memory"; }
  void Draw(WorkbenchContext& context) override;
  void OnCancel() override { cancelled_ = true; }
  void OnModuleSelected(WorkbenchContext& context) override { cancelled_ = false; }
  // Shows the unfused module's profile (true) or the fused one's.
  void ShowUnfused(bool unfused) { show_unfused_ = unfused; }

 private:
  void Start(WorkbenchContext& context, ModuleDoc* module);
  void DrawSummary(const session::MemoryView& view);
  void DrawPlot(WorkbenchContext& context, const session::MemoryView& view, const backend::MemoryProfile& shown);
  void DrawPeakTable(WorkbenchContext& context, const backend::MemoryProfile& shown);

  bool show_unfused_ = false;
  bool cancelled_ = false;
};

class InspectorPanel : public Panel {
 public:
  const char* title() const override { return "Inspector"; }
  void Draw(WorkbenchContext& context) override;

 private:
  void DrawSelection(WorkbenchContext& context, const ModuleDoc& module);
  void DrawDecisions(WorkbenchContext& context, const ModuleDoc& module);

  int decisions_filter_ = 0;  // 0 all, 1 fused, 2 not fused
};

}  // namespace fusebox::gui
