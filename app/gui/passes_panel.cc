// The Passes panel: steps through Fusebox's pipeline or its GPU pipeline pass by pass (each
// pass's diff, or the module after it) or, for a dump folder, through XLA's own pass
// snapshots.
#include <algorithm>
#include <string>
#include <vector>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "compiler/session/pass_bisect.h"
#include "compiler/support/strings.h"

namespace fusebox::gui {
namespace {

// The next pass from `from` in `direction` (+1 / -1) that changed the module; `from`
// when there is none.
int NextChanged(const passes::PipelineResult& pipeline, int from, int direction) {
  const int count = static_cast<int>(pipeline.passes.size());
  for (int i = from + direction; i >= 0 && i < count; i += direction) {
    if (pipeline.passes[i].changed) return i;
  }
  return from;
}

}  // namespace

void PassesPanel::StartBisect(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (module == nullptr) return;
  auto state = std::make_shared<BisectState>();
  bisect_ = state;
  bisect_selected_ = false;
  std::shared_ptr<session::CompileSession> compile = module->session;
  auto result = std::make_shared<BisectState>();
  context.tasks().Submit(
      "Bisecting " + module->label + " over the pipeline's passes",
      [compile, result](TaskContext& job) {
        job.SetProgress(-1, "running every stage on the interpreter");
        auto stages = session::FuseboxPipelineStages(compile->input());
        if (!stages.ok()) {
          result->summary = stages.status().message();
          return;
        }
        auto report = session::BisectStages(*stages, session::BisectOptions(), session::FuseboxPassRunner());
        if (!report.ok()) {
          result->summary = report.status().message();
          return;
        }
        result->summary = report->Summary();
        if (report->first_diverging >= 0) result->pass = report->stages[report->first_diverging].pass;
        if (report->repro != nullptr) result->repro = report->repro_note + "\n\n" + report->repro->ToString();
      },
      [state, result] {
        *state = *result;
        state->done = true;
      });
}

// The bisect button, and what the last bisect found.
void PassesPanel::DrawBisect(WorkbenchContext& context, const passes::PipelineResult& pipeline) {
  if (ImGui::Button("Bisect numerics")) StartBisect(context);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("Run every pass's module on the interpreter against the input's (f64 shadow)\n"
                      "and mark the first pass that moves the outputs beyond the bound");
  }
  if (bisect_ == nullptr) return;
  ImGui::SameLine();
  if (!bisect_->done) {
    ImGui::TextColored(kDimColour, "bisecting...");
    return;
  }
  ImGui::TextColored(bisect_->pass.empty() ? kFusedColour : kErrorColour, "%s", bisect_->summary.c_str());
  if (!bisect_->pass.empty() && !bisect_selected_) {
    for (int i = 0; i < static_cast<int>(pipeline.passes.size()); ++i) {
      if (pipeline.passes[i].name == bisect_->pass) selected_pass_ = i;
    }
    bisect_selected_ = true;
  }
  if (!bisect_->repro.empty() && ImGui::Button("Copy the repro")) ImGui::SetClipboardText(bisect_->repro.c_str());
}

void PassesPanel::OnModuleSelected(WorkbenchContext& context) {
  selected_pass_ = -1;
  diff_shown_pass_ = -2;
  xla_selected_pass_ = 0;
  xla_diff_shown_.clear();
  bisect_.reset();
}

void PassesPanel::DrawXlaPasses(WorkbenchContext& context, ModuleDoc* module) {
  std::vector<const session::ExternalStage*> passes;
  for (const session::ExternalStage& e : module->session->external_stages()) {
    if (StartsWith(e.name, "xla_pass_")) passes.push_back(&e);
  }
  const int count = static_cast<int>(passes.size());
  if (count == 0) return;
  xla_selected_pass_ = std::clamp(xla_selected_pass_, 0, count - 1);
  if (ImGui::Button("< Previous") && xla_selected_pass_ > 0) --xla_selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("Next >") && xla_selected_pass_ + 1 < count) ++xla_selected_pass_;
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "XLA's pass snapshots in this dump: %d", count);
  if (!ImGui::BeginTable("xla_passes_layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableSetupColumn("list", ImGuiTableColumnFlags_WidthStretch, 0.3f);
  ImGui::TableSetupColumn("diff", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::BeginChild("xla_pass_list", ImVec2(0, ImGui::GetContentRegionAvail().y));
  for (int i = 0; i < count; ++i) {
    std::string label = passes[i]->description;
    if (StartsWith(label, "XLA: ")) label = label.substr(5);
    ImGui::PushID(i);
    if (ImGui::Selectable(label.c_str(), xla_selected_pass_ == i)) xla_selected_pass_ = i;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", passes[i]->source.c_str());
    ImGui::PopID();
  }
  ImGui::EndChild();
  ImGui::TableSetColumnIndex(1);
  // XLA's first snapshot follows its first pass: before it is the module as dumped before
  // optimizations, which is this session's input.
  const std::string after = passes[xla_selected_pass_]->name;
  const std::string before = xla_selected_pass_ == 0 ? "hlo" : passes[xla_selected_pass_ - 1]->name;
  context.RequestStage(module, before);
  context.RequestStage(module, after);
  const StageText& b = module->stages[before];
  const StageText& a = module->stages[after];
  if (!b.ready || !a.ready) {
    ImGui::TextColored(kDimColour, "loading XLA's snapshots ...");
  } else if (!b.error.empty() || !a.error.empty()) {
    ImGui::TextColored(kErrorColour, "%s", (!a.error.empty() ? a.error : b.error).c_str());
  } else {
    const std::string key = before + ">" + after;
    if (xla_diff_shown_ != key) {
      xla_diff_view_.SetTexts(b.text, a.text, before == "hlo" ? "before optimizations" : before, after);
      xla_diff_view_.NextChange(1);
      xla_diff_shown_ = key;
    }
    ImGui::PushFont(context.mono_font());
    xla_diff_view_.Draw("xla_pass_diff");
    ImGui::PopFont();
  }
  ImGui::EndTable();
}

const passes::PipelineResult* PassesPanel::ShownPipeline(const ModuleDoc* module, bool gpu) {
  if (module == nullptr) return nullptr;
  if (!gpu) return module->optimized ? &module->session->pipeline_result() : nullptr;
  // The GPU pipeline has run once stage gpu_optimized_hlo is built without an error.
  auto it = module->stages.find("gpu_optimized_hlo");
  if (it == module->stages.end() || !it->second.ready || !it->second.error.empty()) return nullptr;
  return &module->session->gpu_pipeline_result();
}

void PassesPanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  bool has_xla_passes = false;
  if (module) {
    for (const session::ExternalStage& e : module->session->external_stages()) has_xla_passes |= StartsWith(e.name, "xla_pass_");
  }
  if (!has_xla_passes && passes_source_ == kXlaPasses) passes_source_ = kFuseboxPipeline;
  ImGui::RadioButton("Fusebox's pipeline", &passes_source_, kFuseboxPipeline);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The passes that make optimized_hlo (the CPU stages' module)");
  ImGui::SameLine();
  ImGui::RadioButton("Fusebox's GPU pipeline", &passes_source_, kGpuPipeline);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("The passes that make gpu_optimized_hlo, as `fusebox run --backend gpu` compiles:\n"
                      "with GPU libraries on (the Stages view's switch), gemm-rewriter and conv-rewriter\n"
                      "turn dots and convolutions into cuBLAS / cuDNN calls");
  }
  if (has_xla_passes) {
    ImGui::SameLine();
    ImGui::RadioButton("XLA's passes (from the dump)", &passes_source_, kXlaPasses);
    if (passes_source_ == kXlaPasses) {
      DrawXlaPasses(context, module);
      return;
    }
  }
  if (shown_source_ != passes_source_) {  // another pipeline: its own pass indices
    shown_source_ = passes_source_;
    selected_pass_ = -1;
    diff_shown_pass_ = -2;
  }
  const bool gpu = passes_source_ == kGpuPipeline;
  if (gpu && module != nullptr) context.RequestStage(module, "gpu_optimized_hlo");
  const passes::PipelineResult* shown = ShownPipeline(module, gpu);
  if (shown == nullptr) {
    if (module == nullptr) {
      ImGui::TextDisabled("Open a module to step through its passes.");
    } else if (!gpu) {
      ImGui::TextDisabled(!module->optimize_error.empty() ? "The pipeline failed." : "Running the pipeline...");
    } else {
      const StageText& stage = module->stages["gpu_optimized_hlo"];
      if (stage.ready) {
        ImGui::TextColored(kErrorColour, "The GPU pipeline failed: %s", stage.error.c_str());
      } else {
        ImGui::TextDisabled("Running the GPU pipeline...");
      }
    }
    return;
  }
  const passes::PipelineResult& pipeline = *shown;
  if (gpu && !module->session->gpu_libraries()) {
    ImGui::TextColored(kDimColour, "GPU libraries are off (the Stages view's switch): the GPU module is "
                                   "optimized_hlo's, made by Fusebox's pipeline below");
  }
  const int count = static_cast<int>(pipeline.passes.size());
  if (selected_pass_ < 0 && count > 0) selected_pass_ = NextChanged(pipeline, -1, 1);
  if (selected_pass_ >= count) selected_pass_ = count - 1;

  DrawStepper(pipeline);
  if (!gpu) DrawBisect(context, pipeline);  // the bisect replays the CPU pipeline's passes
  if (!ImGui::BeginTable("passes_layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableSetupColumn("list", ImGuiTableColumnFlags_WidthStretch, 0.3f);
  ImGui::TableSetupColumn("diff", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  DrawPassList(pipeline);
  ImGui::TableSetColumnIndex(1);
  DrawPass(context, pipeline);
  ImGui::EndTable();
}

// Previous / next (changed) pass, the snapshot-or-diff switch, the pipeline's totals.
void PassesPanel::DrawStepper(const passes::PipelineResult& pipeline) {
  const int count = static_cast<int>(pipeline.passes.size());
  if (ImGui::Button("< Previous") && selected_pass_ > 0) --selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("Next >") && selected_pass_ + 1 < count) ++selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("<< Previous change")) selected_pass_ = NextChanged(pipeline, selected_pass_, -1);
  ImGui::SameLine();
  if (ImGui::Button("Next change >>")) selected_pass_ = NextChanged(pipeline, selected_pass_, 1);
  ImGui::SameLine();
  ImGui::Checkbox("module after the pass instead of the diff", &pass_show_snapshot_);
  int changed = 0;
  for (const passes::PassRecord& r : pipeline.passes) changed += r.changed;
  ImGui::TextColored(kDimColour, "%s: %d passes, %d changed the module, %.2f ms in all",
                     pipeline.pipeline_name.c_str(), count, changed, pipeline.total_ns * 1e-6);
}

// Every pass with its time and instruction count; changed passes stand out.
void PassesPanel::DrawPassList(const passes::PipelineResult& pipeline) {
  const int count = static_cast<int>(pipeline.passes.size());
  if (ImGui::BeginTable("pass_list", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, 24);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 52);
    ImGui::TableSetupColumn("instrs", ImGuiTableColumnFlags_WidthFixed, 48);
    ImGui::TableHeadersRow();
    for (int i = 0; i < count; ++i) {
      const passes::PassRecord& r = pipeline.passes[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", i);
      ImGui::TableNextColumn();
      const bool diverges = bisect_done() && r.name == bisect_->pass;
      ImVec4 colour = diverges    ? kErrorColour
                      : r.skipped ? kDimColour
                      : r.changed ? kFusedColour
                                  : ImGui::GetStyleColorVec4(ImGuiCol_Text);
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      std::string label = std::string(diverges ? "! " : r.changed ? "* " : "  ") + r.name +
                          (r.skipped ? " (skipped)" : "") + (diverges ? "  <- moves the outputs" : "");
      ImGui::PushID(i);
      if (ImGui::Selectable(label.c_str(), selected_pass_ == i, ImGuiSelectableFlags_SpanAllColumns)) {
        selected_pass_ = i;
      }
      if (selected_pass_ == i && diff_shown_pass_ != i) ImGui::SetScrollHereY(0.3f);
      ImGui::PopID();
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", r.wall_ns * 1e-6);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.instruction_count));
    }
    ImGui::EndTable();
  }
}

// The selected pass: what it did, and its diff against the module before it (or the
// module after it).
void PassesPanel::DrawPass(WorkbenchContext& context, const passes::PipelineResult& pipeline) {
  const int count = static_cast<int>(pipeline.passes.size());
  if (selected_pass_ >= 0 && selected_pass_ < count) {
    const passes::PassRecord& r = pipeline.passes[selected_pass_];
    // The module before this pass: the latest snapshot before it, or the input.
    std::string before = pipeline.before;
    std::string before_title = "before the pipeline";
    for (int j = selected_pass_ - 1; j >= 0; --j) {
      if (pipeline.passes[j].has_snapshot) {
        before = pipeline.passes[j].snapshot;
        before_title = "after " + pipeline.passes[j].name;
        break;
      }
    }
    if (diff_shown_pass_ != selected_pass_) {
      if (r.has_snapshot) {
        diff_view_.SetTexts(before, r.snapshot, before_title, "after " + r.name);
        if (r.changed) diff_view_.NextChange(1);  // open on the first change
        snapshot_view_.SetText(r.snapshot, viewers::TextLanguage::kHlo);
        snapshot_view_.SetHighlight(context.LinkedNames(context.selection()));
      }
      diff_shown_pass_ = selected_pass_;
    }
    ImGui::Text("%d. %s", selected_pass_, r.name.c_str());
    ImGui::SameLine();
    ImGui::TextColored(r.changed ? kFusedColour : kDimColour, "%s",
                       r.skipped ? "skipped" : r.changed ? "changed the module" : "no change");
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "  %.3f ms, %lld instructions after", r.wall_ns * 1e-6,
                       static_cast<long long>(r.instruction_count));
    if (!r.has_snapshot) {
      ImGui::TextDisabled("No snapshot was kept after this pass.");
    } else {
      ImGui::PushFont(context.mono_font());
      if (pass_show_snapshot_) {
        if (auto clicked = snapshot_view_.Draw("snapshot")) context.Select(*clicked);
      } else {
        diff_view_.Draw("pass_diff");
      }
      ImGui::PopFont();
    }
  }
}

}  // namespace fusebox::gui
