// The Stages panel: up to four stage panes side by side — Fusebox's stages in pipeline
// order, the pass snapshots, XLA's from a dump folder — each built in the background on
// first view, with the selection and what it links to lit up in every pane.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "compiler/support/strings.h"

namespace fusebox::gui {
namespace {

// Fusebox's stages a session can show, in pipeline order, with the backend they need.
const char* const kCpuStages[] = {"llvm_ir", "llvm_ir_optimized", "cpu_asm", "buffer_assignment"};
const char* const kGpuStages[] = {"gpu_optimized_hlo", "gpu_llvm_ir", "gpu_llvm_ir_optimized", "ptx", "ptxas_info",
                                 "sass"};

bool IsGpuStageName(const std::string& stage) {
  auto parsed = session::ParseStage(stage);
  return parsed && session::IsGpuStage(*parsed);
}

// "pass 07 loop-fusion" names the module after pipeline step 7.
std::string PassStageName(size_t index, const std::string& pass) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "pass %02zu ", index);
  return buffer + pass;
}

}  // namespace

StagesPanel::StagesPanel() {
  panes_[0].stage = "hlo";
  panes_[1].stage = "optimized_hlo";
  panes_[2].stage = "llvm_ir_optimized";
  panes_[3].stage = "cpu_asm";
}

void StagesPanel::OnModuleSelected(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  for (StagePane& pane : panes_) {
    pane.shown.clear();
    pane.view.SetText("", viewers::TextLanguage::kPlain);
  }
  bool has_xla = false;
  for (const session::ExternalStage& e : module->session->external_stages()) has_xla |= e.name == "xla_optimized_hlo";
  if (has_xla) {
    pane_count_ = std::max(pane_count_, 3);
    panes_[2].stage = "xla_optimized_hlo";
  } else if (StartsWith(panes_[2].stage, "xla_")) {
    panes_[2].stage = "llvm_ir_optimized";
  }
  for (StagePane& pane : panes_) {
    if (StartsWith(pane.stage, "xla_") && !has_xla) pane.stage = "optimized_hlo";
  }
}

void StagesPanel::OnSelection(const std::string& selection, const std::vector<std::string>& linked,
                              const std::string& kernel) {
  for (StagePane& pane : panes_) pane.view.SetHighlight(linked);
}

void StagesPanel::SetPaneStage(int pane, const std::string& stage) {
  if (pane < 0 || pane >= 4) return;
  panes_[pane].stage = stage;
  pane_count_ = std::max(pane_count_, pane + 1);
}

bool StagesPanel::SetGpuLibraries(WorkbenchContext& context, bool on) {
  ModuleDoc* module = context.current_module();
  if (module == nullptr || !context.tasks().idle()) return false;
  if (module->session->gpu_libraries() == on) return true;
  module->session->SetGpuLibraries(on);
  for (auto it = module->stages.begin(); it != module->stages.end();) {
    it = IsGpuStageName(it->first) ? module->stages.erase(it) : std::next(it);
  }
  module->source_map.ClearGpu();
  for (StagePane& pane : panes_) {
    if (IsGpuStageName(pane.stage)) pane.shown.clear();
  }
  context.ApplySelectionToViews();
  return true;
}

void StagesPanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to see its stages.");
    return;
  }
  ImGui::TextUnformatted("Panes:");
  for (int n = 1; n <= 4; ++n) {
    ImGui::SameLine();
    ImGui::PushID(n);
    if (ImGui::RadioButton(std::to_string(n).c_str(), pane_count_ == n)) pane_count_ = n;
    ImGui::PopID();
  }
  // The GPU stages with NVIDIA's libraries (as `fusebox run --backend gpu`) or Fusebox's
  // own kernels; switched only while no job runs (the jobs use the session).
  ImGui::SameLine();
  bool libraries = module->session->gpu_libraries();
  const bool busy = !context.tasks().idle();
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Checkbox("GPU libraries", &libraries)) SetGpuLibraries(context, libraries);
  if (busy) ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
    ImGui::SetTooltip("GPU stages: dots and convolutions as cuBLAS / cuDNN calls, as `fusebox run --backend gpu` "
                      "runs them (on), or Fusebox's own kernels (off, --gpu-library=off)");
  }
  ImGui::SameLine();
  if (!context.selection().empty()) {
    std::string linked;
    for (const std::string& name : context.LinkedNames(context.selection())) linked += (linked.empty() ? "" : ", ") + name;
    ImGui::TextColored(kAccentColour, "  linked: %s", linked.c_str());
  } else {
    ImGui::TextColored(kDimColour, "  click a name to select it in every pane");
  }

  // Every stage this module can show: Fusebox's in pipeline order, the pass snapshots,
  // XLA's from a dump folder.
  std::vector<std::string> stages = {"hlo", "optimized_hlo"};
  for (const char* s : kCpuStages) stages.push_back(s);
  for (const char* s : kGpuStages) stages.push_back(s);
  if (module->optimized) {
    const passes::PipelineResult& pipeline = module->session->pipeline_result();
    for (size_t i = 0; i < pipeline.passes.size(); ++i) {
      if (pipeline.passes[i].has_snapshot) stages.push_back(PassStageName(i, pipeline.passes[i].name));
    }
  }
  for (const session::ExternalStage& e : module->session->external_stages()) stages.push_back(e.name);

  if (!ImGui::BeginTable("panes", pane_count_, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableNextRow();
  for (int p = 0; p < pane_count_; ++p) {
    ImGui::TableSetColumnIndex(p);
    ImGui::PushID(p);
    DrawPane(context, module, panes_[p], stages);
    ImGui::PopID();
  }
  ImGui::EndTable();
}

// One pane: its stage picker, then the stage's text (built on first request).
void StagesPanel::DrawPane(WorkbenchContext& context, ModuleDoc* module, StagePane& pane,
                           const std::vector<std::string>& stages) {
  ImGui::SetNextItemWidth(-1);
  if (ImGui::BeginCombo("##stage", pane.stage.c_str(), ImGuiComboFlags_HeightLarge)) {
    for (const std::string& stage : stages) {
      if (ImGui::Selectable(stage.c_str(), stage == pane.stage)) {
        pane.stage = stage;
        pane.shown.clear();
        // Picking a stage whose build was cancelled or failed builds it again.
        auto it = module->stages.find(stage);
        if (it != module->stages.end() && it->second.ready && !it->second.error.empty()) module->stages.erase(it);
      }
    }
    ImGui::EndCombo();
  }
  // Stages past the pipeline wait for it; the first request starts their job.
  bool needs_pipeline = pane.stage != "hlo" && !StartsWith(pane.stage, "xla_");
  StageText* text = nullptr;
  if (!needs_pipeline || module->optimized) {
    context.RequestStage(module, pane.stage);
    text = &module->stages[pane.stage];
  }
  ImGui::BeginChild("pane_body", ImVec2(0, 0), false);
  if (!module->optimize_error.empty() && needs_pipeline) {
    ImGui::TextColored(kErrorColour, "The pipeline failed:");
    ImGui::TextWrapped("%s", module->optimize_error.c_str());
  } else if (!text || text->loading) {
    ImGui::TextColored(kDimColour, "building %s ...", pane.stage.c_str());
  } else if (!text->error.empty()) {
    ImGui::TextColored(kErrorColour, "%s is not available:", pane.stage.c_str());
    ImGui::TextWrapped("%s", text->error.c_str());
  } else {
    if (pane.shown != pane.stage) {
      pane.view.SetText(text->text, viewers::LanguageForStage(pane.stage));
      pane.view.SetHighlight(context.LinkedNames(context.selection()));
      pane.shown = pane.stage;
    }
    ImGui::PushFont(context.mono_font());
    if (auto clicked = pane.view.Draw("text")) context.Select(*clicked);
    ImGui::PopFont();
  }
  ImGui::EndChild();
}

}  // namespace fusebox::gui
