// The module browser (left column): the open file or dump folder and its modules, XLA's
// stages of the current module, its size and kernel counts, the devices panel, and its
// instructions (input or optimized) as a tree or a search.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/gui/devices_panel.h"
#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"

namespace fusebox::gui {
namespace fs = std::filesystem;

void ModuleBrowserPanel::Draw(WorkbenchContext& context) {
  const Document* document = context.document();
  if (!document) {
    if (!context.loading_path().empty()) {
      ImGui::TextWrapped("Opening %s ...", context.loading_path().c_str());
    } else {
      ImGui::TextWrapped("No module open. File > Open, or drop a file or XLA dump folder here.");
    }
    return;
  }
  DrawDocument(context, *document);
  ModuleDoc* module = context.current_module();
  if (!module) return;
  DrawXlaStages(context, *module);
  DrawModuleSummary(*module);
  DrawDevicesPanel(context, module);
  DrawInstructions(context, *module);
}

// The file, and for a dump folder its modules with their pass, code and file counts (or
// the modules of a multi-module file); the loader's notes.
void ModuleBrowserPanel::DrawDocument(WorkbenchContext& context, const Document& document) {
  ImGui::TextColored(kDimColour, "%s", fs::path(document.path).filename().string().c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", document.path.c_str());
  if (document.index) {
    const importers::DumpIndex& index = *document.index;
    ImGui::Text("XLA dump: %zu module(s), %lld file(s)", index.modules.size(),
                static_cast<long long>(index.total_files));
    float height = std::min(8.0f, 1.5f + document.modules.size()) * ImGui::GetTextLineHeightWithSpacing();
    if (ImGui::BeginTable("dump_modules", 4,
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                              ImGuiTableFlags_Resizable,
                          ImVec2(0, height))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("module");
      ImGui::TableSetupColumn("passes", ImGuiTableColumnFlags_WidthFixed, 44);
      ImGui::TableSetupColumn("code", ImGuiTableColumnFlags_WidthFixed, 36);
      ImGui::TableSetupColumn("files", ImGuiTableColumnFlags_WidthFixed, 36);
      ImGui::TableHeadersRow();
      for (size_t i = 0; i < document.modules.size(); ++i) {
        const ModuleDoc& m = *document.modules[i];
        const importers::DumpModule* dm = nullptr;
        for (const importers::DumpModule& candidate : index.modules) {
          if (candidate.key == m.key) dm = &candidate;
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (ImGui::Selectable(m.label.c_str(), static_cast<int>(i) == document.current,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          context.SelectModule(static_cast<int>(i));
        }
        if (dm) {
          int code = 0;
          for (const importers::DumpFile& f : dm->files) {
            code += f.kind == importers::DumpFileKind::kLlvmIr || f.kind == importers::DumpFileKind::kPtx || f.kind == importers::DumpFileKind::kAssembly;
          }
          ImGui::TableNextColumn();
          ImGui::Text("%zu", dm->Passes().size());
          ImGui::TableNextColumn();
          ImGui::Text("%d", code);
          ImGui::TableNextColumn();
          ImGui::Text("%zu", dm->files.size());
        }
      }
      ImGui::EndTable();
    }
  } else if (document.modules.size() > 1) {
    for (size_t i = 0; i < document.modules.size(); ++i) {
      if (ImGui::Selectable(document.modules[i]->label.c_str(), static_cast<int>(i) == document.current)) {
        context.SelectModule(static_cast<int>(i));
      }
    }
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kNotFusedColour);
  for (const std::string& note : document.notes) ImGui::TextWrapped("note: %s", note.c_str());
  ImGui::PopStyleColor();
}

// XLA's stages of the module (dump folders): a click shows one in the last stage pane.
void ModuleBrowserPanel::DrawXlaStages(WorkbenchContext& context, const ModuleDoc& module) {
  StagesPanel& stages = context.stages_panel();
  const auto& external = module.session->external_stages();
  if (!external.empty() &&
      ImGui::CollapsingHeader("XLA's stages of this module", ImGuiTreeNodeFlags_DefaultOpen)) {
    // The dump's files by stage: a click shows one in the last stage pane, next to
    // Fusebox's own stages.
    const float height = std::min(7.0f, static_cast<float>(external.size()) + 0.5f) *
                         ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("xla_stages", ImVec2(0, height));
    for (const session::ExternalStage& stage : external) {
      const int target = std::max(1, stages.pane_count() - 1);
      if (ImGui::Selectable(stage.name.c_str(), stages.pane_stage(target) == stage.name)) {
        stages.SetPaneStage(target, stage.name);
        context.ShowView(View::kStages);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", stage.description.c_str(), stage.source.c_str());
      ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
      ImGui::TextColored(kDimColour, "%s", stage.description.c_str());
    }
    ImGui::EndChild();
  }
}

// The module's name, size and kernel counts before and after fusion.
void ModuleBrowserPanel::DrawModuleSummary(const ModuleDoc& module) {
  const Module& input = module.session->input();
  ImGui::Separator();
  ImGui::Text("%s", input.name().c_str());
  ImGui::TextColored(kDimColour, "%zu computations, %lld instructions", input.computations().size(),
                     static_cast<long long>(input.instruction_count()));
  if (module.optimized) {
    ImGui::TextColored(kDimColour, "kernels: %lld before fusion, %lld after",
                       static_cast<long long>(module.session->kernels_before().kernels),
                       static_cast<long long>(module.session->kernels_after().kernels));
  } else if (!module.optimize_error.empty()) {
    ImGui::TextColored(kErrorColour, "pipeline failed");
  } else {
    ImGui::TextColored(kDimColour, "optimizing...");
  }
}

// The input or optimized module's instructions by computation, or the matches of a
// search (name, opcode, shape) across them; long lists are clipped.
void ModuleBrowserPanel::DrawInstructions(WorkbenchContext& context, const ModuleDoc& module) {
  const Module& input = module.session->input();
  ImGui::RadioButton("input", &browser_module_, 0);
  ImGui::SameLine();
  if (!module.optimized) ImGui::BeginDisabled();
  ImGui::RadioButton("optimized", &browser_module_, 1);
  if (!module.optimized) ImGui::EndDisabled();
  const Module& shown = browser_module_ == 1 && module.optimized ? *module.session->optimized_module() : input;
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##filter", "search instructions (name, opcode, shape)", module_filter_,
                           sizeof(module_filter_));
  std::string filter = module_filter_;
  std::transform(filter.begin(), filter.end(), filter.begin(), ::tolower);
  ImGui::BeginChild("instructions");
  ImGui::PushFont(context.mono_font());
  auto row = [&](const Instruction& inst) {
    std::string label = inst.name();
    ImGui::PushID(&inst);
    if (ImGui::Selectable(label.c_str(), context.selection() == inst.name())) context.Select(inst.name());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", inst.ToString().substr(0, 600).c_str());
    }
    // The opcode in a column of its own, pushed right past long names.
    const float column = ImGui::GetWindowContentRegionMax().x * 0.58f;
    const float after_name = ImGui::GetItemRectMin().x - ImGui::GetWindowPos().x +
                             ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFontSize();
    ImGui::SameLine(std::max(column, after_name));
    ImGui::TextColored(kDimColour, "%s", std::string(OpcodeName(inst.opcode())).c_str());
    ImGui::PopID();
  };
  if (!filter.empty()) {
    // A flat list of matches across computations, computed when the query or the module
    // changes (not every frame: big modules have hundreds of thousands of instructions).
    std::vector<const Instruction*>& matches = filter_matches_;
    if (filter != filter_query_ || &shown != filter_module_) {
      filter_query_ = filter;
      filter_module_ = &shown;
      matches.clear();
      for (const auto& c : shown.computations()) {
        for (const auto& inst : c->instructions()) {
          std::string hay = inst->name() + " " + std::string(OpcodeName(inst->opcode())) + " " +
                            inst->shape().ToString(false);
          std::transform(hay.begin(), hay.end(), hay.begin(), ::tolower);
          if (hay.find(filter) != std::string::npos) matches.push_back(inst.get());
        }
      }
    }
    ImGui::TextColored(kDimColour, "%zu match(es)", matches.size());
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(matches.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) row(*matches[i]);
    }
  } else {
    for (const auto& c : shown.computations()) {
      ImGuiTreeNodeFlags flags = c->is_entry() ? ImGuiTreeNodeFlags_DefaultOpen : 0;
      std::string label = (c->is_entry() ? "ENTRY " : "") + c->name() + "  (" +
                          std::to_string(c->instruction_count()) + ")";
      ImGui::PushID(c.get());
      if (ImGui::TreeNodeEx(label.c_str(), flags)) {
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(c->instruction_count()));
        while (clipper.Step()) {
          for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) row(*c->instructions()[i]);
        }
        ImGui::TreePop();
      }
      ImGui::PopID();
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
}

}  // namespace fusebox::gui
