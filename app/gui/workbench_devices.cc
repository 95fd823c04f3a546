// The workbench's multi-device parts (issue 23): the devices panel of the module browser,
// the inspector's sharding and collective lines with the partitioner's reasons, and Run &
// profile on N devices (session::RunOnDevicesProfiled, fused and unfused) with its
// per-device and per-collective tables and a timeline with a process per device.
#include <algorithm>
#include <cstdio>

#include "app/gui/workbench.h"
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
DecisionCells CellsOf(const CollectiveDecision& d) {
  return {d.kind + " " + d.groups + ", " + FormatBytes(d.bytes_per_device) + "/device", d.reason};
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Lines: what the panels draw, kept as data so that tests read what users see.

std::vector<Workbench::InfoLine> Workbench::DevicesLines(const ModuleDoc& module) const {
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

std::vector<Workbench::InfoLine> Workbench::InspectorDevicesLines(const ModuleDoc& module) const {
  std::vector<InfoLine> lines;
  using K = InfoLine::Kind;
  bool in_optimized = false;
  const Instruction* inst = FindInstruction(selection_, &in_optimized);
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
    for (const CollectiveDecision& d : module.session->pass_context().collectives()) {
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

std::string Workbench::devices_text() const {
  const ModuleDoc* module = current_module();
  if (module == nullptr) return "";
  std::string out;
  for (const InfoLine& line : DevicesLines(*module)) {
    out += line.text + (line.link.empty() ? "" : "%" + line.link) + line.after + "\n";
  }
  if (out.empty() || !module->optimized) return out;
  for (const CollectiveDecision& d : module->session->pass_context().collectives()) {
    DecisionCells cells = CellsOf(d);
    out += "%" + d.collective + "  " + cells.what + "  for %" + d.for_instruction + ": " +
           cells.reason + "\n";
  }
  return out;
}

std::string Workbench::inspector_devices_text() const {
  const ModuleDoc* module = current_module();
  if (module == nullptr) return "";
  std::string out;
  for (const InfoLine& line : InspectorDevicesLines(*module)) {
    out += line.text + (line.link.empty() ? "" : "%" + line.link) + line.after + "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Drawing

void Workbench::DrawInfoLines(const std::vector<InfoLine>& lines) {
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
        if (ImGui::SmallButton(("%" + line.link).c_str())) Select(line.link);
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

void Workbench::DrawCollectiveDecisions(const std::vector<CollectiveDecision>& decisions) {
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
    const CollectiveDecision& d = decisions[i];
    const DecisionCells cells = CellsOf(d);
    ImGui::PushID(static_cast<int>(i));
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    DrawInstructionLink(d.collective);
    ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
    ImGui::TextWrapped("%s", cells.what.c_str());
    ImGui::PopStyleColor();
    ImGui::TableNextColumn();
    DrawInstructionLink(d.for_instruction);
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", cells.reason.c_str());
    ImGui::PopID();
  }
  ImGui::EndTable();
}

void Workbench::DrawDevicesPanel(ModuleDoc* module) {
  std::vector<InfoLine> lines = DevicesLines(*module);
  if (lines.empty()) return;
  const std::string title = "Devices (" + std::to_string(module->devices.devices) + ")###devices";
  if (!ImGui::CollapsingHeader(title.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
  const std::vector<CollectiveDecision>* decisions =
      module->optimized ? &module->session->pass_context().collectives() : nullptr;
  // Its own scrolled region, so that a program with many shardings leaves room for the
  // instruction list below.
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float wanted = line * (static_cast<float>(lines.size()) + 1.5f +
                               (decisions ? 3.5f * static_cast<float>(decisions->size()) + 2 : 0));
  const float height =
      std::min(wanted, std::max(4 * line, ImGui::GetContentRegionAvail().y * 0.45f));
  ImGui::BeginChild("devices_panel", ImVec2(0, height), true);
  ImGui::PushFont(mono_font_);
  DrawInfoLines(lines);
  ImGui::PopFont();
  if (decisions) DrawCollectiveDecisions(*decisions);
  ImGui::EndChild();
}

// ---------------------------------------------------------------------------------------
// Run & profile on N devices

void Workbench::StartMultiDeviceProfile(ModuleDoc* module) {
  profile_running_ = true;
  profile_error_.clear();
  struct Result {
    std::optional<session::MultiDeviceRun> fused, unfused;
    std::string error;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  session::MultiDeviceRunOptions options;
  options.backend = profile_backend_ == 1 ? "gpu" : "cpu";
  options.iterations = profile_iterations_;
  options.source_path = document_ ? document_->path : "";
  for (const Literal& a : module->arguments) options.arguments.push_back(a);
  const int generation = generation_;
  const std::string label = module->label;
  const int64_t devices = module->devices.devices;
  tasks_.Submit(
      "Running " + label + " on " + std::to_string(devices) + " devices (" +
          (profile_backend_ == 1 ? "GPU" : "CPU") + ")",
      [session, options, result](TaskContext& context) mutable {
        context.SetProgress(0.1f, "partitioning, compiling and running fused");
        session::MultiDeviceRunOptions fused = options;
        fused.fused = true;
        fused.cancel = context.cancel_flag();
        auto run = session::RunOnDevicesProfiled(session->input(), fused);
        if (!run.ok()) {
          result->error = std::string(run.status().message());
          return;
        }
        if (context.cancelled()) return;
        context.SetProgress(0.55f, "compiling and running unfused (one kernel per op)");
        session::MultiDeviceRunOptions unfused = options;
        unfused.fused = false;
        unfused.cancel = context.cancel_flag();
        unfused.arguments = run->arguments;  // the same inputs as the fused run
        result->fused = std::move(*run);
        auto run2 = session::RunOnDevicesProfiled(session->input(), unfused);
        if (!run2.ok()) {
          result->error = "unfused: " + std::string(run2.status().message());
          return;
        }
        result->unfused = std::move(*run2);
      },
      [this, result, generation, label] {
        if (generation != generation_) return;
        profile_running_ = false;
        profile_done_ = true;
        profile_error_ = result->error;
        if (!result->error.empty())
          AddError(label + ": the run on devices failed: " + result->error);
        // A failed run leaves the last good one on screen.
        if (result->fused) {
          md_fused_ = std::move(result->fused);
          md_unfused_ = std::move(result->unfused);
          profile_show_unfused_ = false;
          ShowMultiDeviceTrace(false);
        }
      });
}

void Workbench::ShowMultiDeviceTrace(bool unfused) {
  const auto& run = unfused && md_unfused_ ? md_unfused_ : md_fused_;
  if (!run) return;
  timeline_view_.SetTrace(
      run->trace, std::to_string(run->devices) + " devices, " + (unfused ? "unfused" : "fused"));
  ApplySelectionToViews();
  timeline_view_.FitAll();
}

void Workbench::DrawMultiDeviceProfile() {
  const int64_t devices = current_module()->devices.devices;
  ImGui::SetNextItemWidth(90);
  ImGui::Combo("##backend", &profile_backend_, "CPU\0GPU\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderInt("iterations", &profile_iterations_, 1, 50);
  ImGui::SameLine();
  if (profile_running_) ImGui::BeginDisabled();
  const std::string button = (profile_done_ ? "Run again on " : "Run on ") +
                             std::to_string(devices) + " devices, fused and unfused (F5)";
  if (ImGui::Button(button.c_str())) StartProfile();
  if (profile_running_) ImGui::EndDisabled();
  if (md_fused_ && md_unfused_) {
    ImGui::SameLine();
    bool unfused = profile_show_unfused_;
    if (ImGui::Checkbox("show the unfused run", &unfused)) {
      profile_show_unfused_ = unfused;
      ShowMultiDeviceTrace(unfused);
    }
  }
  if (profile_running_) {
    ImGui::TextColored(kDimColour, "running on %lld devices ...", static_cast<long long>(devices));
    return;
  }
  if (!profile_error_.empty()) {
    ImGui::TextColored(kErrorColour, "The run failed:");
    ImGui::TextWrapped("%s", profile_error_.c_str());
  }
  if (!md_fused_) {
    if (profile_error_.empty()) {
      ImGui::TextDisabled(
          "This module runs on %lld devices: the run partitions it (a global program), runs the "
          "per-device "
          "program on one thread per device, fused and unfused, and shows each device's kernels "
          "and collectives.",
          static_cast<long long>(devices));
    }
    return;
  }
  const session::MultiDeviceRun& fused = *md_fused_;
  const session::MultiDeviceRun* unfused = md_unfused_ ? &*md_unfused_ : nullptr;
  const session::MultiDeviceRun& shown = profile_show_unfused_ && unfused ? *unfused : fused;
  if (ImGui::BeginTable("md_cards", 4, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "devices");
    ImGui::Text("%lld", static_cast<long long>(fused.devices));
    ImGui::TextWrapped("%s", fused.how.c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "kernels per device");
    ImGui::Text("%lld fused", static_cast<long long>(fused.kernels_per_device));
    if (unfused) ImGui::Text("%lld unfused", static_cast<long long>(unfused->kernels_per_device));
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "fastest run");
    if (!fused.times_s.empty())
      ImGui::Text("%s fused", FormatSeconds(fused.times_s.front()).c_str());
    if (unfused && !unfused->times_s.empty()) {
      ImGui::Text("%s unfused", FormatSeconds(unfused->times_s.front()).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "fusion speed-up");
    if (unfused && !fused.times_s.empty() && !unfused->times_s.empty() &&
        fused.times_s.front() > 0) {
      ImGui::TextColored(kFusedColour, "%.2fx", unfused->times_s.front() / fused.times_s.front());
      ImGui::TextColored(kDimColour, "best of %zu runs", fused.times_s.size());
    }
    ImGui::EndTable();
  }
  // Notes can name long paths: wrapped, not cut at the panel's edge.
  ImGui::PushStyleColor(ImGuiCol_Text, kNotFusedColour);
  for (const std::string& note : fused.notes) ImGui::TextWrapped("note: %s", note.c_str());
  ImGui::PopStyleColor();

  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::Text("Per device (%s, all %zu runs)",
              profile_show_unfused_ && unfused ? "unfused" : "fused", shown.times_s.size());
  const float device_height =
      line * (std::min<float>(static_cast<float>(shown.device_rows.size()), 8) + 1.4f);
  if (ImGui::BeginTable("md_devices", 7,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                            ImGuiTableFlags_BordersOuter | ImGuiTableFlags_Resizable,
                        ImVec2(0, device_height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* column :
         {"device", "kernels", "collectives", "sent", "received", "in collectives", "run"}) {
      ImGui::TableSetupColumn(column);
    }
    ImGui::TableHeadersRow();
    for (const profiler::DeviceRow& r : shown.device_rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("device %lld", static_cast<long long>(r.device));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.kernels));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.collectives));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(r.bytes_sent).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(r.bytes_received).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(static_cast<double>(r.collective_ns) * 1e-9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(static_cast<double>(r.run_ns) * 1e-9).c_str());
    }
    ImGui::EndTable();
  }
  ImGui::Text("Per collective (%zu)", shown.collective_rows.size());
  const float collective_height =
      line *
      (std::min<float>(static_cast<float>(std::max<size_t>(shown.collective_rows.size(), 1)), 6) +
       1.4f);
  if (ImGui::BeginTable("md_collectives", 8,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                            ImGuiTableFlags_BordersOuter | ImGuiTableFlags_Resizable,
                        ImVec2(0, collective_height))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("devices", ImGuiTableColumnFlags_WidthFixed, 52);
    ImGui::TableSetupColumn("instances", ImGuiTableColumnFlags_WidthFixed, 64);
    ImGui::TableSetupColumn("bytes/device", ImGuiTableColumnFlags_WidthFixed, 84);
    ImGui::TableSetupColumn("moved", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("mean", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("groups", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableHeadersRow();
    for (const profiler::CollectiveRow& r : shown.collective_rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(r.instruction.c_str());
      if (ImGui::Selectable(r.instruction.c_str(), selection_ == r.instruction,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        Select(r.instruction);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.kind.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.devices));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.instances));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(r.bytes_per_device).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(r.total_bytes).c_str());
      ImGui::TableNextColumn();
      const double mean_s = r.instances > 0 ? static_cast<double>(r.total_ns) * 1e-9 /
                                                  static_cast<double>(r.instances)
                                            : 0;
      ImGui::TextUnformatted(FormatSeconds(mean_s).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.group.c_str());
    }
    ImGui::EndTable();
  }
  const float avail = std::max(120.0f, ImGui::GetContentRegionAvail().y);
  ImGui::BeginChild("md_timeline", ImVec2(0, avail), true);
  if (auto clicked = timeline_view_.Draw("timeline")) Select(*clicked);
  ImGui::EndChild();
}

}  // namespace fusebox::gui
