// The workbench's multi-device lines (issue 23): the devices panel of the module browser,
// and the inspector's sharding and collective lines with the partitioner's reasons. Run &
// profile on N devices is the profile panel's (profile_panel_devices.cc).
#include "app/gui/devices_panel.h"

#include <algorithm>
#include <cstdio>

#include "app/gui/workbench_internal.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/sharding.h"

namespace fusebox::gui {
namespace {

std::string GroupsText(const std::vector<std::vector<int64_t>>& groups, size_t max_groups) {
  std::string out;
  for (size_t g = 0; g < groups.size() && g < max_groups; ++g) {
    out += g ? ",{" : "{";
    for (size_t i = 0; i < groups[g].size(); ++i)
      out += (i ? "," : "") + std::to_string(groups[g][i]);
    out += "}";
  }
  if (groups.size() > max_groups)
    out += ", ... (" + std::to_string(groups.size() - max_groups) + " more)";
  return out;
}

// One decision as the table shows it, cell by cell: collective, what it is, what it
// serves, why.
struct DecisionCells {
  std::string what;
  std::string reason;
};
DecisionCells CellsOf(const passes::CollectiveDecision& d) {
  return {d.kind + " " + d.groups + ", " + FormatBytes(d.bytes_per_device) + "/device", d.reason};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Lines: what the panels draw, kept as data so that tests read what users see.

std::vector<InfoLine> DevicesLines(const ModuleDoc& module) {
  std::vector<InfoLine> lines;
  const DeviceSummary& d = module.devices;
  if (d.program == "single device" || d.program.empty()) return lines;
  using K = InfoLine::Kind;
  lines.push_back({K::kText,
                   std::to_string(d.devices) + " devices (num_partitions " +
                       std::to_string(d.num_partitions) + ", replica_count " +
                       std::to_string(d.replica_count) + ")",
                   ""});
  lines.push_back({K::kDim, d.program, ""});
  for (const std::string& mesh : d.meshes) lines.push_back({K::kDim, "mesh " + mesh, ""});
  if (d.sharded_instructions > 0) {
    lines.push_back(
        {K::kDim, std::to_string(d.sharded_instructions) + " instruction(s) with a sharding", ""});
  }
  for (const DeviceSummary::Value& v : d.values) {
    lines.push_back({K::kLink, "", v.name, "  " + v.sharding});
    if (!v.shard_shape.empty()) lines.push_back({K::kDim, "    each device: " + v.shard_shape, ""});
  }
  auto collectives = [&](const DeviceSummary& summary, const std::string& title) {
    if (summary.collective_counts.empty()) return;
    std::string counts;
    for (const auto& [kind, n] : summary.collective_counts) {
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
    }
    lines.push_back({K::kText, title + ": " + counts, ""});
    for (const std::string& c : summary.collective_lines) lines.push_back({K::kDim, "  " + c, ""});
  };
  collectives(d, "collectives");
  // A global program gets its collectives from the partitioner: the optimized module is
  // the per-device program.
  if (module.optimized && module.optimized_devices.collective_counts != d.collective_counts) {
    collectives(module.optimized_devices, "per-device program (optimized) collectives");
  }
  return lines;
}

std::vector<InfoLine> InspectorDevicesLines(const WorkbenchContext& context, const ModuleDoc& module) {
  std::vector<InfoLine> lines;
  using K = InfoLine::Kind;
  bool in_optimized = false;
  const Instruction* inst = context.FindInstruction(context.selection(), &in_optimized);
  if (inst == nullptr) return lines;
  // A global program's shapes are whole arrays, a per-device program's are tiles already:
  // the shape one device holds comes from the global instruction — the selection, or the
  // input's instruction of that name when the selection is in the per-device program.
  const Instruction* global = nullptr;
  if (in_optimized ? module.optimized_global : module.input_global) {
    global = inst;
  } else if (in_optimized && module.input_global) {
    for (const auto& c : module.session->input().computations()) {
      if ((global = c->FindInstruction(inst->name())) != nullptr) break;
    }
  }

  auto sharding = ShardingOf(*inst);
  if (!sharding.ok()) {
    lines.push_back(
        {K::kWarning, "sharding cannot be read: " + std::string(sharding.status().message())});
  } else if (sharding->has_value()) {
    lines.push_back({K::kText, "sharding: " + (*sharding)->ToString()});
  }
  if (global != nullptr) {
    auto global_sharding = global == inst ? std::move(sharding) : ShardingOf(*global);
    if (global_sharding.ok() && global_sharding->has_value()) {
      const Sharding& sh = **global_sharding;
      if (global != inst) {
        lines.push_back({K::kDim, "in the global program: " + global->shape().ToString(false) +
                                      ", sharding " + sh.ToString()});
      }
      auto shard = sh.ShardShape(global->shape());
      if (shard.ok()) {
        lines.push_back({K::kText, "each device holds: " + shard->ToString(false)});
      } else {
        lines.push_back(
            {K::kWarning, "no per-device shape: " + std::string(shard.status().message())});
      }
    }
  }

  if (IsCrossDeviceCollective(inst->opcode())) {
    lines.push_back({K::kText, "collective: " + std::string(OpcodeName(inst->opcode())), ""});
    auto devices = DevicesOfCollective(*inst);
    if (!devices.ok()) {
      lines.push_back(
          {K::kWarning, "groups cannot be read: " + std::string(devices.status().message()), ""});
    } else {
      lines.push_back({K::kText, "groups: " + devices->written, ""});
      lines.push_back({K::kDim,
                       std::to_string(devices->groups.size()) +
                           (devices->pairs ? " source-target pair(s): " : " group(s): ") +
                           GroupsText(devices->groups, 8),
                       ""});
      lines.push_back({K::kText, "devices: " + std::to_string(devices->devices), ""});
    }
    const int64_t bytes = inst->shape().ByteSize();
    if (bytes >= 0)
      lines.push_back({K::kText, "bytes: " + FormatBytes(bytes) + " per device (its result)", ""});
  }

  // Why the partitioner put it there (or, for the instruction it serves, which
  // collective it needed).
  if (module.optimized) {
    for (const passes::CollectiveDecision& d : module.session->pass_context().collectives()) {
      if (in_optimized && d.collective == inst->name()) {
        lines.push_back({K::kLink, "inserted by " + d.pass + " for ", d.for_instruction, ""});
        lines.push_back({K::kReason, d.reason, ""});
      } else if (d.for_instruction == inst->name()) {
        lines.push_back({K::kLink, "the partitioner added ", d.collective,
                         " (" + d.kind + " over " + d.groups + ")"});
        lines.push_back({K::kReason, d.reason, ""});
      }
    }
  }
  return lines;
}

std::string DevicesText(const ModuleDoc* module) {
  if (module == nullptr) return "";
  std::string out;
  for (const InfoLine& line : DevicesLines(*module)) {
    out += line.text + (line.link.empty() ? "" : "%" + line.link) + line.after + "\n";
  }
  if (out.empty() || !module->optimized) return out;
  for (const passes::CollectiveDecision& d : module->session->pass_context().collectives()) {
    DecisionCells cells = CellsOf(d);
    out += "%" + d.collective + "  " + cells.what + "  for %" + d.for_instruction + ": " +
           cells.reason + "\n";
  }
  return out;
}

std::string InspectorDevicesText(const WorkbenchContext& context) {
  const ModuleDoc* module = context.current_module();
  if (module == nullptr) return "";
  std::string out;
  for (const InfoLine& line : InspectorDevicesLines(context, *module)) {
    out += line.text + (line.link.empty() ? "" : "%" + line.link) + line.after + "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Drawing

void DrawInfoLines(WorkbenchContext& context, const std::vector<InfoLine>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const InfoLine& line = lines[i];
    switch (line.kind) {
      case InfoLine::Kind::kText:
        ImGui::TextWrapped("%s", line.text.c_str());
        break;
      case InfoLine::Kind::kDim:
        ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
        ImGui::TextWrapped("%s", line.text.c_str());
        ImGui::PopStyleColor();
        break;
      case InfoLine::Kind::kWarning:
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("%s", line.text.c_str());
        ImGui::PopStyleColor();
        break;
      case InfoLine::Kind::kReason:
        ImGui::Indent();
        ImGui::PushStyleColor(ImGuiCol_Text, kNotFusedColour);
        ImGui::TextWrapped("%s", line.text.c_str());
        ImGui::PopStyleColor();
        ImGui::Unindent();
        break;
      case InfoLine::Kind::kLink: {
        ImGui::PushID(static_cast<int>(i));
        if (!line.text.empty()) {
          ImGui::TextUnformatted(line.text.c_str());
          ImGui::SameLine(0, 0);
        }
        ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
        if (ImGui::SmallButton(("%" + line.link).c_str())) context.Select(line.link);
        ImGui::PopStyleColor();
        if (!line.after.empty()) {
          ImGui::SameLine(0, 0);
          ImGui::TextWrapped("%s", line.after.c_str());
        }
        ImGui::PopID();
        break;
      }
    }
  }
}

void DrawCollectiveDecisions(WorkbenchContext& context, const std::vector<passes::CollectiveDecision>& decisions) {
  if (decisions.empty()) return;
  ImGui::TextColored(kAccentColour, "Collectives the partitioner inserted (%zu)", decisions.size());
  if (!ImGui::BeginTable(
          "collective_decisions", 3,
          ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_Resizable)) {
    return;
  }
  ImGui::TableSetupColumn("collective", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("for", ImGuiTableColumnFlags_WidthStretch, 0.8f);
  ImGui::TableSetupColumn("reason", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < decisions.size(); ++i) {
    const passes::CollectiveDecision& d = decisions[i];
    const DecisionCells cells = CellsOf(d);
    ImGui::PushID(static_cast<int>(i));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    DrawInstructionLink(context, d.collective);
    ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
    ImGui::TextWrapped("%s", cells.what.c_str());
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    DrawInstructionLink(context, d.for_instruction);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", cells.reason.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

void DrawDevicesPanel(WorkbenchContext& context, ModuleDoc* module) {
  std::vector<InfoLine> lines = DevicesLines(*module);
  if (lines.empty()) return;
  const std::string title = "Devices (" + std::to_string(module->devices.devices) + ")###devices";
  if (!ImGui::CollapsingHeader(title.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  const std::vector<passes::CollectiveDecision>* decisions =
      module->optimized ? &module->session->pass_context().collectives() : nullptr;
  // Its own scrolled region, so that a program with many shardings leaves room for the
  // instruction list below.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float wanted = line * (static_cast<float>(lines.size()) + 1.5f +
                               (decisions ? 3.5f * static_cast<float>(decisions->size()) + 2 : 0));
  const float height =
      std::min(wanted, std::max(4 * line, ImGui::GetContentRegionAvail().y * 0.45f));
  ImGui::BeginChild("devices_panel", ImVec2(0, height), true);
  ImGui::PushFont(context.mono_font());
  DrawInfoLines(context, lines);
  ImGui::PopFont();
  if (decisions) DrawCollectiveDecisions(context, *decisions);
  ImGui::EndChild();
}

}  // namespace fusebox::gui
