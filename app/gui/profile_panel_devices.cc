// Run & profile on N devices (issue 23): a multi-device program runs partitioned
// (session::RunOnDevicesProfiled, fused and unfused) with per-device and per-collective
// tables and a timeline with a process per device.
#include <algorithm>
#include <cstdio>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"

namespace fusebox::gui {

void ProfilePanel::StartMultiDevice(WorkbenchContext& context, ModuleDoc* module) {
  running_ = true;
  error_.clear();
  struct Result {
    std::optional<session::MultiDeviceRun> fused, unfused;
    std::string error;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  session::MultiDeviceRunOptions options;
  options.backend = backend_ == 1 ? "gpu" : "cpu";
  options.iterations = iterations_;
  options.source_path = context.document() ? context.document()->path : "";
  for (const Literal& a : module->arguments) options.arguments.push_back(a);
  const int generation = context.generation();
  const std::string label = module->label;
  const int64_t devices = module->devices.devices;
  context.tasks().Submit(
      "Running " + label + " on " + std::to_string(devices) + " devices (" +
          (backend_ == 1 ? "GPU" : "CPU") + ")",
      [session, options, result](TaskContext& job) mutable {
        job.SetProgress(0.1f, "partitioning, compiling and running fused");
        session::MultiDeviceRunOptions fused = options;
        fused.fused = true;
        fused.cancel = job.cancel_flag();
        auto run = session::RunOnDevicesProfiled(session->input(), fused);
        if (!run.ok()) {
          result->error = std::string(run.status().message());
          return;
        }
        if (job.cancelled()) return;
        job.SetProgress(0.55f, "compiling and running unfused (one kernel per op)");
        session::MultiDeviceRunOptions unfused = options;
        unfused.fused = false;
        unfused.cancel = job.cancel_flag();
        unfused.arguments = run->arguments;  // the same inputs as the fused run
        result->fused = std::move(*run);
        auto run2 = session::RunOnDevicesProfiled(session->input(), unfused);
        if (!run2.ok()) {
          result->error = "unfused: " + std::string(run2.status().message());
          return;
        }
        result->unfused = std::move(*run2);
      },
      [this, ctx = &context, result, generation, label] {
        if (generation != ctx->generation()) return;
        running_ = false;
        done_ = true;
        error_ = result->error;
        if (!result->error.empty())
          ctx->AddError(label + ": the run on devices failed: " + result->error);
        // A failed run leaves the last good one on screen.
        if (result->fused) {
          md_fused_ = std::move(result->fused);
          md_unfused_ = std::move(result->unfused);
          show_unfused_ = false;
          ShowMultiDeviceTrace(*ctx, false);
        }
      });
}

void ProfilePanel::ShowMultiDeviceTrace(WorkbenchContext& context, bool unfused) {
  const auto& run = unfused && md_unfused_ ? md_unfused_ : md_fused_;
  if (!run) return;
  timeline_view_.SetTrace(
      run->trace, std::to_string(run->devices) + " devices, " + (unfused ? "unfused" : "fused"));
  context.ApplySelectionToViews();
  timeline_view_.FitAll();
}

void ProfilePanel::DrawMultiDevice(WorkbenchContext& context) {
  const int64_t devices = context.current_module()->devices.devices;
  ImGui::SetNextItemWidth(90);
  ImGui::Combo("##backend", &backend_, "CPU\0GPU\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderInt("iterations", &iterations_, 1, 50);
  ImGui::SameLine();
  if (running_) ImGui::BeginDisabled();
  const std::string button = (done_ ? "Run again on " : "Run on ") +
                             std::to_string(devices) + " devices, fused and unfused (F5)";
  if (ImGui::Button(button.c_str())) Start(context);
  if (running_) ImGui::EndDisabled();
  if (md_fused_ && md_unfused_) {
    ImGui::SameLine();
    bool unfused = show_unfused_;
    if (ImGui::Checkbox("show the unfused run", &unfused)) {
      show_unfused_ = unfused;
      ShowMultiDeviceTrace(context, unfused);
    }
  }
  if (running_) {
    ImGui::TextColored(kDimColour, "running on %lld devices ...", static_cast<long long>(devices));
    return;
  }
  if (!error_.empty()) {
    ImGui::TextColored(kErrorColour, "The run failed:");
    ImGui::TextWrapped("%s", error_.c_str());
  }
  if (!md_fused_) {
    if (error_.empty()) {
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
  const session::MultiDeviceRun& shown = show_unfused_ && unfused ? *unfused : fused;
  DrawMultiDeviceCards();
  DrawDeviceTable(shown);
  DrawCollectiveTable(context, shown);
  const float avail = std::max(120.0f, ImGui::GetContentRegionAvail().y);
  ImGui::BeginChild("md_timeline", ImVec2(0, avail), true);
  if (auto clicked = timeline_view_.Draw("timeline")) context.Select(*clicked);
  ImGui::EndChild();
}

// Summary cards (devices, kernels per device, fastest run, speed-up) and the run's notes.
void ProfilePanel::DrawMultiDeviceCards() {
  const session::MultiDeviceRun& fused = *md_fused_;
  const session::MultiDeviceRun* unfused = md_unfused_ ? &*md_unfused_ : nullptr;
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
}

void ProfilePanel::DrawDeviceTable(const session::MultiDeviceRun& shown) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
  ImGui::Text("Per device (%s, all %zu runs)",
              show_unfused_ && md_unfused_ ? "unfused" : "fused", shown.times_s.size());
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
}

void ProfilePanel::DrawCollectiveTable(WorkbenchContext& context, const session::MultiDeviceRun& shown) {
  const float line = ImGui::GetTextLineHeightWithSpacing();
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
      if (ImGui::Selectable(r.instruction.c_str(), context.selection() == r.instruction,
                            ImGuiSelectableFlags_SpanAllColumns)) {
        context.Select(r.instruction);
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
}

}  // namespace fusebox::gui
