// The Run & profile panel: runs the module fused (one kernel per fusion) and unfused (one
// kernel per op) on the CPU or the GPU, shows the last run's timeline, summary cards and
// time per fusion cluster. Modules for several devices run on them
// (profile_panel_devices.cc).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/session/machine_peaks.h"
#include "profiler/compile_spans.h"

namespace fusebox::gui {
namespace {

// Kernel statistics of every run but the first when there are several: the first run
// pays for one-time work (library JIT, page faults on fresh buffers) that is not the
// kernel's cost.
profiler::KernelSummary SummarizeWithoutWarmUp(const profiler::Trace& trace) {
  std::vector<int64_t> iterations = trace.Iterations();
  if (iterations.size() < 2) return profiler::Summarize(trace);
  profiler::Trace steady;
  for (const profiler::Track& track : trace.tracks()) steady.AddTrack(track.process, track.name);
  for (const profiler::TraceEvent& event : trace.events()) {
    if (event.iteration != iterations.front()) steady.AddEvent(event);
  }
  return profiler::Summarize(steady);
}

}  // namespace

void ProfilePanel::OnModuleSelected(WorkbenchContext& context) {
  timeline_view_.Clear();
  run_fused_.reset();
  run_unfused_.reset();
  md_fused_.reset();
  md_unfused_.reset();
  done_ = false;
  running_ = false;
  error_.clear();
}

void ProfilePanel::OnCancel() {
  if (running_) {
    running_ = false;
    error_ = "cancelled";
  }
}

// The last iteration of the fused or unfused run on the timeline.
void ProfilePanel::ShowTrace(WorkbenchContext& context, bool unfused) {
  ModuleDoc* module = context.current_module();
  if (show_compile_ && module != nullptr && module->session->compile_trace() != nullptr) {
    timeline_view_.SetTrace(profiler::CompileSpansToTrace(module->session->compile_trace()->Spans()), "compile");
    context.ApplySelectionToViews();
    timeline_view_.FitAll();
    return;
  }
  const session::ProfiledRun& run = unfused ? *run_unfused_ : *run_fused_;
  const auto iterations = run.trace.Iterations();
  timeline_view_.SetTrace(iterations.empty() ? run.trace : run.trace.FilterIteration(iterations.back()),
                          unfused ? "unfused" : "fused");
  context.ApplySelectionToViews();
  timeline_view_.FitAll();
}

void ProfilePanel::Start(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module || running_) return;
  if (module->devices.devices > 1) {
    StartMultiDevice(context, module);
    return;
  }
  running_ = true;
  error_.clear();
  struct Result {
    std::optional<session::ProfiledRun> fused, unfused;
    std::string error;
    std::optional<profiler::MachinePeaks> peaks;
    std::string peaks_error;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  std::vector<Literal> arguments;
  for (const Literal& a : module->arguments) arguments.push_back(a);
  session::ProfiledRunOptions options;
  options.backend = backend_ == 1 ? "gpu" : "cpu";
  options.gpu_libraries = session->gpu_libraries();  // as the GPU stages show (the Stages panel's switch)
  options.compile_trace = session->compile_trace();  // the job holds the session, which holds the trace
  options.iterations = iterations_;
  options.gpu_autotune = gpu_autotune_;
  options.gpu_tune_occupancy = gpu_occupancy_;
  const int generation = context.generation();
  context.tasks().Submit(
      "Running " + module->label + " on the " + (backend_ == 1 ? "GPU" : "CPU"),
      [session, options, result, arguments = std::move(arguments)](TaskContext& job) mutable {
        const Module& m = session->input();
        if (arguments.empty()) {
          job.SetProgress(0.05f, "random inputs");
          auto random = interpreter::RandomArguments(m, 0);
          if (!random.ok()) {
            result->error = random.status().message();
            return;
          }
          arguments = std::move(*random);
        }
        job.SetProgress(0.1f, "compiling and running fused");
        session::ProfiledRunOptions fused = options;
        fused.fused = true;
        fused.cancel = job.cancel_flag();
        fused.progress = [&job](float f, const std::string& step) { job.SetProgress(0.1f + 0.45f * f, "fused: " + step); };
        auto run = session::RunProfiled(m, arguments, fused);
        if (!run.ok()) {
          result->error = run.status().message();
          return;
        }
        result->fused = std::move(*run);
        if (job.cancelled()) return;
        job.SetProgress(0.55f, "compiling and running unfused (one kernel per op)");
        session::ProfiledRunOptions unfused = options;
        unfused.fused = false;
        unfused.cancel = job.cancel_flag();
        unfused.progress = [&job](float f, const std::string& step) {
          job.SetProgress(0.55f + 0.45f * f, "unfused: " + step);
        };
        auto run2 = session::RunProfiled(m, arguments, unfused);
        if (!run2.ok()) {
          result->error = "unfused: " + run2.status().message();
          return;
        }
        result->unfused = std::move(*run2);
        if (!job.cancelled()) {
          job.SetProgress(0.98f, options.backend == "cpu" ? "the machine's roofs (measured once, then cached)"
                                                          : "the GPU's roofs (its attributes, a measured bandwidth)");
          auto peaks = session::MachinePeaksFor(options.backend, options.threads);
          if (peaks.ok()) {
            result->peaks = std::move(*peaks);
          } else {
            result->peaks_error = peaks.status().message();
          }
        }
      },
      [this, ctx = &context, result, generation] {
        if (generation != ctx->generation()) return;
        running_ = false;
        done_ = true;
        error_ = result->error;
        peaks_ = result->peaks;
        peaks_error_ = result->peaks_error;
        if (result->fused) {
          summary_fused_ = SummarizeWithoutWarmUp(result->fused->trace);
          run_fused_ = std::move(result->fused);
        }
        if (result->unfused) {
          summary_unfused_ = SummarizeWithoutWarmUp(result->unfused->trace);
          run_unfused_ = std::move(result->unfused);
        }
        show_unfused_ = false;
        if (run_fused_) ShowTrace(*ctx, false);
      });
}

void ProfilePanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to run it.");
    return;
  }
  if (module->devices.devices > 1) {
    DrawMultiDevice(context);
    return;
  }
  DrawControls(context);
  if (running_) {
    ImGui::TextColored(kDimColour, "running ...");
    return;
  }
  if (!error_.empty()) {
    ImGui::TextColored(kErrorColour, "The run failed:");
    ImGui::TextWrapped("%s", error_.c_str());
  }
  if (!run_fused_) {
    if (error_.empty()) {
      ImGui::TextDisabled("Run the module to see its kernels: fused (one kernel per fusion) and unfused "
                          "(one kernel per op), a timeline of the last run, and time per fusion cluster.");
    }
    return;
  }
  if (reshow_) {
    reshow_ = false;
    ShowTrace(context, show_unfused_);
  }
  DrawCards();
  const float avail = ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("timeline", ImVec2(0, avail * 0.55f), true);
  if (auto clicked = timeline_view_.Draw("timeline")) context.Select(*clicked);
  ImGui::EndChild();

  if (show_roofline_) {
    DrawRoofline(context);
  } else {
    DrawClusters(context);
  }
}

// The backend, the iteration count, the run button and the fused/unfused switch.
void ProfilePanel::DrawControls(WorkbenchContext& context) {
  ImGui::SetNextItemWidth(90);
  ImGui::Combo("##backend", &backend_, "CPU\0GPU\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderInt("iterations", &iterations_, 1, 50);
  ImGui::SameLine();
  if (backend_ == 1) {
    ImGui::Checkbox("autotune", &gpu_autotune_);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("cuDNN's and cuBLASLt's algorithms timed at compile time and the fastest kept, as XLA's\n"
                        "autotuner does (choices kept for the session: a repeat is not timed again); skinny gemm\n"
                        "calls (a side of at most 16) also timed against Fusebox's own kernel, the faster runs\n"
                        "(the run's notes give both times); row and column kernels' shapes timed, the fastest runs;\n"
                        "off: the libraries' heuristics choose (fusebox run --gpu-autotune=off)");
    }
    ImGui::SameLine();
    ImGui::Checkbox("occupancy", &gpu_occupancy_);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("A kernel whose grid would run in fewer waves with more blocks an SM asks ptxas for them,\n"
                        "kept where it got them without spilling (the run's notes name each request);\n"
                        "off: ptxas's own register choice (fusebox run --gpu-occupancy=off)");
    }
    ImGui::SameLine();
  }
  if (running_) ImGui::BeginDisabled();
  if (ImGui::Button(done_ ? "Run again (F5)" : "Run fused and unfused (F5)")) Start(context);
  if (running_) ImGui::EndDisabled();
  if (run_fused_ && run_unfused_) {
    ImGui::SameLine();
    if (show_compile_) ImGui::BeginDisabled();
    bool unfused = show_unfused_;
    if (ImGui::Checkbox("show the unfused run", &unfused)) {
      show_unfused_ = unfused;
      ShowTrace(context, unfused);
    }
    if (show_compile_) ImGui::EndDisabled();
  }
  if (run_fused_) {
    ImGui::SameLine();
    ImGui::Checkbox("roofline", &show_roofline_);
    ImGui::SameLine();
    bool compile = show_compile_;
    if (ImGui::Checkbox("show the compile", &compile)) {
      show_compile_ = compile;
      ShowTrace(context, show_unfused_);
    }
  }
}

void ProfilePanel::DrawCards() {
  // Summary cards: kernels and time, fused against unfused.
  const session::ProfiledRun& fused = *run_fused_;
  if (ImGui::BeginTable("cards", 4, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "kernels per run");
    ImGui::Text("%lld fused", static_cast<long long>(fused.launches_per_run));
    if (run_unfused_) ImGui::Text("%lld unfused", static_cast<long long>(run_unfused_->launches_per_run));
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "median run");
    ImGui::Text("%s fused", FormatSeconds(fused.median_s()).c_str());
    if (run_unfused_) ImGui::Text("%s unfused", FormatSeconds(run_unfused_->median_s()).c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "fusion speed-up");
    if (run_unfused_ && fused.min_s() > 0) {
      ImGui::TextColored(kFusedColour, "%.2fx", run_unfused_->min_s() / fused.min_s());
      ImGui::TextColored(kDimColour, "best of %zu runs", fused.times_s.size());
    }
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "device");
    ImGui::TextWrapped("%s", fused.device.c_str());
    ImGui::EndTable();
  }
  // Run notes: CUPTI's kernel count against the launches made, dropped records, ...
  for (const std::string& note : session::RunNotes(&fused, run_unfused_ ? &*run_unfused_ : nullptr)) {
    ImGui::TextColored(kNotFusedColour, "note: %s", note.c_str());
  }
}

// Kernels per fusion cluster: launches, time, bytes and share of the shown run.
void ProfilePanel::DrawClusters(WorkbenchContext& context) {
  const profiler::KernelSummary& summary = show_unfused_ && run_unfused_ ? summary_unfused_ : summary_fused_;
  ImGui::Text("Kernels per fusion cluster (%s, every run after the first): %lld launches, %s kernel time, %s moved",
              show_unfused_ ? "unfused" : "fused", static_cast<long long>(summary.kernel_count),
              FormatSeconds(summary.total_kernel_ns * 1e-9).c_str(), FormatBytes(summary.bytes).c_str());
  if (ImGui::BeginTable("clusters", 8,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                            ImGuiTableFlags_Resizable,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("calls", ImGuiTableColumnFlags_WidthFixed, 44);
    ImGui::TableSetupColumn("total", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("mean", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthFixed, 56);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const profiler::KernelStats& k : summary.kernels) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(k.hlo.c_str());
      if (ImGui::Selectable(k.hlo.c_str(), context.selection() == k.hlo, ImGuiSelectableFlags_SpanAllColumns)) {
        context.Select(k.hlo);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.kind.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(k.calls));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(k.total_ns * 1e-9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(k.mean_ns * 1e-9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(k.bytes()).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", k.gb_per_s);
      ImGui::TableNextColumn();
      char overlay[16];
      std::snprintf(overlay, sizeof(overlay), "%.1f%%", k.share * 100);
      ImGui::ProgressBar(static_cast<float>(k.share), ImVec2(-1, 0), overlay);
    }
    ImGui::EndTable();
  }
}

}  // namespace fusebox::gui
