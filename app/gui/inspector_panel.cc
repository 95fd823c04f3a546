// The inspector: the selection (opcode, computation, shape, metadata, the kernel that
// runs it, sharding and collectives, operands and users) and why (not) fused — the fusion
// decisions on its edges and all of them, each with its reason.
#include <string>
#include <vector>

#include "app/gui/devices_panel.h"
#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/support/strings.h"

namespace fusebox::gui {

void DrawInstructionLink(WorkbenchContext& context, const std::string& name) {
  ImGui::PushID(name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
  if (ImGui::Selectable(("%" + name).c_str(), context.selection() == name)) context.Select(name);
  ImGui::PopStyleColor();
  ImGui::PopID();
}

void InspectorPanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  ImGui::TextColored(kAccentColour, "Selection");
  if (!module) return;
  DrawSelection(context, *module);
  DrawDecisions(context, *module);
}

// The selected instruction: what and where it is, the kernel that runs it, its sharding,
// operands and users.
void InspectorPanel::DrawSelection(WorkbenchContext& context, const ModuleDoc& module) {
  const std::string& selection = context.selection();
  if (selection.empty()) {
    ImGui::TextWrapped("Click an instruction in the browser, a stage pane, the graph or the timeline.");
  } else {
    bool in_optimized = false;
    const Instruction* inst = context.FindInstruction(context.selection(), &in_optimized);
    ImGui::PushFont(context.mono_font());
    ImGui::TextWrapped("%%%s", selection.c_str());
    ImGui::PopFont();
    if (!inst) {
      ImGui::TextColored(kDimColour, "(not an instruction of this module)");
    } else {
      ImGui::TextColored(kDimColour, "%s in %s%s", std::string(OpcodeName(inst->opcode())).c_str(),
                         inst->parent() ? inst->parent()->name().c_str() : "?",
                         in_optimized ? " (optimized)" : "");
      ImGui::PushFont(context.mono_font());
      ImGui::TextWrapped("%s", inst->shape().ToString().c_str());
      ImGui::PopFont();
      if (inst->fusion_kind()) {
        ImGui::Text("fusion kind: %s", std::string(FusionKindName(*inst->fusion_kind())).c_str());
      }
      if (const OpMetadata* md = inst->metadata()) {
        if (!md->op_name.empty()) ImGui::TextWrapped("op_name: %s", md->op_name.c_str());
        if (!md->source_file.empty()) {
          ImGui::TextWrapped("source: %s:%lld", md->source_file.c_str(), static_cast<long long>(md->source_line));
        }
      }
      if (const std::string* kernel = module.source_map.KernelOf(context.selection())) {
        ImGui::TextUnformatted(*kernel == selection ? "runs as its own kernel" : "runs in kernel");
        if (*kernel != selection) {
          ImGui::SameLine();
          DrawInstructionLink(context, *kernel);
        }
      } else if (module.optimized) {
        ImGui::TextColored(kDimColour, "not in the optimized module (simplified away or renamed)");
      }
      DrawInfoLines(context, InspectorDevicesLines(context, module));
      if (ImGui::TreeNodeEx("operands", ImGuiTreeNodeFlags_DefaultOpen, "operands (%lld)",
                            static_cast<long long>(inst->operand_count()))) {
        for (const Instruction* op : inst->operands()) DrawInstructionLink(context, op->name());
        ImGui::TreePop();
      }
      if (ImGui::TreeNodeEx("users", 0, "users (%lld)", static_cast<long long>(inst->user_count()))) {
        for (const Instruction* user : inst->users()) DrawInstructionLink(context, user->name());
        ImGui::TreePop();
      }
    }
  }
}

// The fusion decisions on the selection's edges, and all of them (filtered).
void InspectorPanel::DrawDecisions(WorkbenchContext& workbench, const ModuleDoc& module) {
  ImGui::Separator();
  ImGui::TextColored(kAccentColour, "Why (not) fused");
  if (!module.optimized) {
    ImGui::TextDisabled(module.optimize_error.empty() ? "waiting for the pipeline" : "the pipeline did not run");
    return;
  }
  const passes::PassContext& context = module.session->pass_context();
  auto draw_decision = [&](const passes::FusionDecision& d, int id) {
    ImGui::PushID(id);
    ImGui::TextColored(d.fused ? kFusedColour : kNotFusedColour, "%s", d.fused ? "fused" : "not fused");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
    if (ImGui::SmallButton(("%" + d.producer).c_str())) workbench.Select(d.producer);
    ImGui::SameLine();
    ImGui::TextUnformatted("->");
    ImGui::SameLine();
    if (ImGui::SmallButton(("%" + d.consumer).c_str())) workbench.Select(d.consumer);
    ImGui::PopStyleColor();
    std::string reason = d.reason;
    for (const char* prefix : {"fused: ", "not fused: "}) {
      if (StartsWith(reason, prefix)) reason = reason.substr(std::string(prefix).size());
    }
    ImGui::Indent();
    ImGui::TextWrapped("%s%s [%s]", reason.c_str(), d.fusion.empty() ? "" : (" -> %" + d.fusion).c_str(),
                       d.pass.c_str());
    ImGui::Unindent();
    ImGui::PopID();
  };
  const std::string& selection = workbench.selection();
  if (!selection.empty()) {
    std::vector<passes::FusionDecision> decisions = context.DecisionsFor(selection);
    if (decisions.empty()) {
      ImGui::TextColored(kDimColour, "No fusion pass looked at an edge of %%%s.", selection.c_str());
    }
    for (size_t i = 0; i < decisions.size(); ++i) draw_decision(decisions[i], static_cast<int>(i));
  }
  if (ImGui::CollapsingHeader("All fusion decisions")) {
    ImGui::RadioButton("all", &decisions_filter_, 0);
    ImGui::SameLine();
    ImGui::RadioButton("fused", &decisions_filter_, 1);
    ImGui::SameLine();
    ImGui::RadioButton("not fused", &decisions_filter_, 2);
    const auto& all = context.decisions();
    std::vector<int> shown;
    for (size_t i = 0; i < all.size(); ++i) {
      if (decisions_filter_ == 1 && !all[i].fused) continue;
      if (decisions_filter_ == 2 && all[i].fused) continue;
      shown.push_back(static_cast<int>(i));
    }
    // Wrapped reasons have varying heights, so no clipper: the list stops at a few
    // thousand (the filter and the selection's own decisions narrow it down).
    constexpr size_t kMaxListed = 2000;
    ImGui::TextColored(kDimColour, "%zu decision(s)%s", shown.size(),
                       shown.size() > kMaxListed ? "; the first 2000 are listed" : "");
    ImGui::BeginChild("all_decisions");
    for (size_t k = 0; k < shown.size() && k < kMaxListed; ++k) draw_decision(all[shown[k]], 100000 + shown[k]);
    ImGui::EndChild();
  }
}

}  // namespace fusebox::gui
