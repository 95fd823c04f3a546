// The XLA vs Fusebox panel (dump folders): XLA's fusion against Fusebox's — kernels
// grouped by the input instructions they compute, each group a match, XLA fusing more,
// Fusebox fusing more, or regrouped.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"
#include "importers/dump_stages.h"

namespace fusebox::gui {

void ComparePanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (!module || !context.HasXlaDump(*module)) {
    ImGui::TextDisabled("Open an XLA dump folder to compare XLA's fusion with Fusebox's.");
    return;
  }
  if (!module->compare_started) {
    module->compare_started = true;
    StartComparison(context, module);
  }
  if (!module->compare_done) {
    ImGui::TextColored(kDimColour, "comparing ...");
    return;
  }
  if (!module->comparison) {
    ImGui::TextColored(kErrorColour, "No comparison:");
    ImGui::TextWrapped("%s", module->compare_error.c_str());
    return;
  }
  const session::FusionComparison& c = *module->comparison;
  ImGui::Text("Kernels: %lld in the input (one per op), %lld after XLA's fusion, %lld after Fusebox's",
              static_cast<long long>(c.input_kernels.kernels), static_cast<long long>(c.xla_count.kernels),
              static_cast<long long>(c.fusebox_count.kernels));
  ImGui::TextColored(kDimColour, "%d match, %d where XLA fuses more, %d where Fusebox fuses more, %d regrouped%s",
                     c.Count(session::FusionMatch::kMatch), c.Count(session::FusionMatch::kXlaFusesMore),
                     c.Count(session::FusionMatch::kFuseboxFusesMore), c.Count(session::FusionMatch::kRegrouped),
                     c.approximate_links > 0 ? "; some members matched by op_name/shape" : "");
  ImGui::TextColored(kDimColour, "Click a kernel to select it: XLA's names light up in xla_optimized_hlo, "
                                 "Fusebox's everywhere.");
  DrawGroups(context, c);
}

// Traces every kernel of XLA's and Fusebox's optimized modules to the input instructions
// it computes, in the background.
void ComparePanel::StartComparison(WorkbenchContext& context, ModuleDoc* module) {
  std::optional<importers::DumpModule> dump_module;
  auto found = context.document()->index->Find(module->key);
  if (found.ok()) dump_module = **found;
  struct Result {
    StatusOr<importers::DumpFusionComparison> comparison = InvalidArgument("not run");
  };
  auto result = std::make_shared<Result>();
  std::shared_ptr<ModuleDoc> keep = context.Owned(module);
  context.tasks().Submit(
      "Comparing XLA's fusion with Fusebox's",
      [dump_module, result](TaskContext& job) {
        job.SetProgress(-1, "tracing every kernel's instructions to the input");
        if (!dump_module) {
          result->comparison = InvalidArgument("the module is not in the dump index");
          return;
        }
        result->comparison = importers::CompareDumpFusion(*dump_module);
      },
      [ctx = &context, keep, result, generation = context.generation()] {
        keep->compare_done = true;
        if (result->comparison.ok()) {
          keep->comparison = std::move(result->comparison->comparison);
        } else {
          keep->compare_error = result->comparison.status().message();
          // The view says so, and the error panel too (it is easy to miss in a tab).
          if (generation == ctx->generation()) ctx->AddError(keep->label + ": no XLA-vs-Fusebox comparison: " + keep->compare_error);
        }
      });
}

// The groups of kernels that compute the same input instructions, side by side.
void ComparePanel::DrawGroups(WorkbenchContext& context, const session::FusionComparison& c) {
  auto kernel_list = [&](const std::vector<int>& indices, const std::vector<session::ComparedKernel>& kernels) {
    for (int i : indices) {
      const session::ComparedKernel& k = kernels[i];
      ImGui::PushID(&k);
      if (ImGui::SmallButton(k.name.c_str())) context.Select(k.name);
      if (ImGui::IsItemHovered()) {
        std::string members;
        for (size_t m = 0; m < k.originals.size() && m < 12; ++m) members += (m ? ", " : "") + k.originals[m];
        ImGui::SetTooltip("%s, %lld instruction(s)\ncomputes: %s%s", k.kind.c_str(),
                          static_cast<long long>(k.instructions), members.c_str(),
                          k.originals.size() > 12 ? ", ..." : "");
      }
      ImGui::SameLine();
      ImGui::TextColored(kDimColour, "%s", k.kind.c_str());
      ImGui::PopID();
    }
  };
  if (ImGui::BeginTable("compare", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                            ImGuiTableFlags_Resizable,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("Fusebox fuses more").x + 8);
    ImGui::TableSetupColumn("XLA's kernels", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("Fusebox's kernels", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("input instructions", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    for (const session::FusionGroup& g : c.groups) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const ImVec4 colour = g.match == session::FusionMatch::kMatch            ? kFusedColour
                            : g.match == session::FusionMatch::kFuseboxFusesMore ? kAccentColour
                                                                       : kNotFusedColour;
      ImGui::TextColored(colour, "%s",
                         g.match == session::FusionMatch::kMatch              ? "match"
                         : g.match == session::FusionMatch::kXlaFusesMore     ? "XLA fuses more"
                         : g.match == session::FusionMatch::kFuseboxFusesMore ? "Fusebox fuses more"
                                                                     : "regrouped");
      ImGui::TableNextColumn();
      kernel_list(g.xla, c.xla_kernels);
      ImGui::TableNextColumn();
      kernel_list(g.fusebox, c.fusebox_kernels);
      ImGui::TableNextColumn();
      std::string members;
      for (size_t m = 0; m < g.originals.size() && m < 8; ++m) members += (m ? ", " : "") + g.originals[m];
      if (g.originals.size() > 8) members += ", ... (" + std::to_string(g.originals.size()) + ")";
      ImGui::TextWrapped("%s", members.c_str());
    }
    if (!c.xla_unmatched.empty() || !c.fusebox_unmatched.empty()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "only on one side");
      ImGui::TableNextColumn();
      kernel_list(c.xla_unmatched, c.xla_kernels);
      ImGui::TableNextColumn();
      kernel_list(c.fusebox_unmatched, c.fusebox_kernels);
      ImGui::TableNextColumn();
      ImGui::TextWrapped("kernels that compute no input instruction (layout copies, iotas, new ops)");
    }
    ImGui::EndTable();
  }
}

}  // namespace fusebox::gui
