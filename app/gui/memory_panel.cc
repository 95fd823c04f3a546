// The memory panel: bytes in use over the schedule from the CPU backend's buffer assignment
// (fused or unfused), the peak marked, the buffers alive at the peak (a click selects the
// instruction), and XLA's own peak when a dump folder is open. The profiles are computed in
// the background (two CPU compiles) on first view.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"

namespace fusebox::gui {

namespace {

constexpr ImU32 kCurveFill = IM_COL32(90, 150, 230, 90);
constexpr ImU32 kCurveLine = IM_COL32(110, 170, 255, 255);
constexpr ImU32 kOtherLine = IM_COL32(170, 170, 170, 150);
constexpr ImU32 kPeakColour = IM_COL32(255, 110, 90, 255);
constexpr ImU32 kXlaColour = IM_COL32(240, 200, 80, 220);
constexpr ImU32 kResidentColour = IM_COL32(120, 200, 130, 160);

// The plot's frame: where it sits and how bytes and steps map onto it.
struct PlotFrame {
  ImVec2 min, max;
  double top_bytes = 1;
  float X(double fraction) const { return min.x + static_cast<float>(fraction) * (max.x - min.x); }
  float Y(int64_t bytes) const {
    return max.y - static_cast<float>(static_cast<double>(bytes) / top_bytes) * (max.y - min.y);
  }
};

// Step `s` of a schedule of `steps` at the middle of its slot, as a fraction of the width.
double StepFraction(int64_t s, size_t steps) { return (static_cast<double>(s) + 0.5) / static_cast<double>(steps); }

void DrawCurve(ImDrawList* draw, const PlotFrame& f, const std::vector<int64_t>& bytes, ImU32 line, ImU32 fill) {
  const size_t n = bytes.size();
  if (n == 0) return;
  for (size_t s = 0; s < n; ++s) {
    const float x0 = f.X(static_cast<double>(s) / n), x1 = f.X(static_cast<double>(s + 1) / n);
    const float y = f.Y(bytes[s]);
    if (fill != 0) draw->AddRectFilled(ImVec2(x0, y), ImVec2(x1, f.max.y), fill);
    draw->AddLine(ImVec2(x0, y), ImVec2(x1, y), line, 1.5f);
    if (s + 1 < n) draw->AddLine(ImVec2(x1, y), ImVec2(x1, f.Y(bytes[s + 1])), line, 1.5f);
  }
}

void DrawDashedLevel(ImDrawList* draw, const PlotFrame& f, int64_t bytes, ImU32 colour, const std::string& label) {
  const float y = f.Y(bytes);
  for (float x = f.min.x; x < f.max.x; x += 12) draw->AddLine(ImVec2(x, y), ImVec2(std::min(x + 6, f.max.x), y), colour, 1.5f);
  draw->AddText(ImVec2(f.min.x + 6, y - ImGui::GetTextLineHeight() - 1), colour, label.c_str());
}

const backend::MemoryProfile* Shown(const session::MemoryView& view, bool unfused) {
  if (unfused && view.unfused) return &*view.unfused;
  return view.fused ? &*view.fused : view.unfused ? &*view.unfused : nullptr;
}

}  // namespace

void MemoryPanel::Draw(WorkbenchContext& context) {
  ModuleDoc* module = context.current_module();
  if (module == nullptr) {
    ImGui::TextDisabled("Open a module to see its memory over the schedule.");
    return;
  }
  if (!module->memory_started && cancelled_) {
    ImGui::TextColored(kDimColour, "Cancelled.");
    if (ImGui::Button("Compute the memory profiles")) cancelled_ = false;
    return;
  }
  if (!module->memory_started) Start(context, module);
  if (!module->memory_done) {
    if (cancelled_) module->memory_started = false;  // the job was dropped
    ImGui::TextColored(kDimColour, "compiling fused and unfused, profiling their buffer assignment ...");
    return;
  }
  if (!module->memory) {
    ImGui::TextColored(kErrorColour, "No memory profile:");
    ImGui::TextWrapped("%s", module->memory_error.c_str());
    return;
  }
  const session::MemoryView& view = *module->memory;
  DrawSummary(view);
  const backend::MemoryProfile* shown = Shown(view, show_unfused_);
  if (shown == nullptr) return;
  DrawPlot(context, view, *shown);
  DrawPeakTable(context, *shown);
}

// Both profiles in the background (the fused one from the session's CPU compile), and XLA's
// figures when the module comes from a dump folder.
void MemoryPanel::Start(WorkbenchContext& context, ModuleDoc* module) {
  module->memory_started = true;
  cancelled_ = false;
  struct Result {
    StatusOr<session::MemoryView> view = InvalidArgument("not run");
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  std::shared_ptr<ModuleDoc> keep = context.Owned(module);
  context.tasks().Submit(
      "Memory profile of " + module->label,
      [session, result](TaskContext& job) {
        job.SetProgress(-1, "compiling fused and unfused");
        session->SetCancel(job.cancel_flag());
        session::MemoryViewOptions options;
        options.cancel = job.cancel_flag();
        result->view = session::BuildMemoryView(*session, options);
        session->SetCancel(nullptr);
      },
      [ctx = &context, keep, result, generation = context.generation()] {
        keep->memory_done = true;
        if (result->view.ok()) {
          keep->memory = std::move(*result->view);
        } else {
          keep->memory_error = result->view.status().message();
          if (generation == ctx->generation()) ctx->AddError(keep->label + ": no memory profile: " + keep->memory_error);
        }
      });
}

void MemoryPanel::DrawSummary(const session::MemoryView& view) {
  auto peak_line = [](const char* label, const backend::MemoryProfile& p) {
    ImGui::Text("%s peak %s at step %lld of %zu, %%%s", label, FormatBytes(p.peak_bytes).c_str(),
                static_cast<long long>(p.peak_step), p.schedule.size(), p.PeakInstruction().c_str());
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "(resident %s, allocations %s)", FormatBytes(p.resident_bytes).c_str(),
                       FormatBytes(p.allocation_bytes).c_str());
  };
  if (view.fused) peak_line("Fused:  ", *view.fused);
  if (view.unfused) peak_line("Unfused:", *view.unfused);
  if (view.xla.any()) {
    const session::XlaLiveRange& lr = view.xla.live_range;
    if (lr.peak_bytes >= 0) {
      ImGui::TextColored(ImColor(kXlaColour), "XLA:     peak %s at step %lld, %%%s", FormatBytes(lr.peak_bytes).c_str(),
                         static_cast<long long>(lr.peak_step), lr.peak_instruction.c_str());
      ImGui::SameLine();
      ImGui::TextColored(kDimColour, "from %s",
                         std::filesystem::path(view.xla.live_range_file).filename().string().c_str());
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view.xla.live_range_file.c_str());
    } else {
      ImGui::TextColored(kDimColour, "XLA's peak is not in its dump files");
    }
  }
  int shown = show_unfused_ ? 1 : 0;
  ImGui::RadioButton("fused", &shown, 0);
  ImGui::SameLine();
  ImGui::RadioButton("unfused", &shown, 1);
  show_unfused_ = shown == 1;
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "  the other profile in grey, stretched to the same width; click the plot to select");
}

void MemoryPanel::DrawPlot(WorkbenchContext& context, const session::MemoryView& view,
                           const backend::MemoryProfile& shown) {
  const backend::MemoryProfile* other = Shown(view, !show_unfused_);
  if (other == &shown) other = nullptr;
  PlotFrame f;
  const float height = std::max(160.0f, ImGui::GetContentRegionAvail().y * 0.45f);
  f.min = ImGui::GetCursorScreenPos();
  f.max = ImVec2(f.min.x + ImGui::GetContentRegionAvail().x, f.min.y + height);
  int64_t top = shown.peak_bytes;
  if (other) top = std::max(top, other->peak_bytes);
  if (view.xla.live_range.peak_bytes > 0) top = std::max(top, view.xla.live_range.peak_bytes);
  f.top_bytes = std::max<double>(1, static_cast<double>(top) * 1.1);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(f.min, f.max, IM_COL32(25, 27, 31, 255));
  if (other) DrawCurve(draw, f, other->bytes_at, kOtherLine, 0);
  DrawCurve(draw, f, shown.bytes_at, kCurveLine, kCurveFill);
  DrawDashedLevel(draw, f, shown.resident_bytes, kResidentColour, "resident " + FormatBytes(shown.resident_bytes));
  if (view.xla.live_range.peak_bytes > 0) {
    DrawDashedLevel(draw, f, view.xla.live_range.peak_bytes, kXlaColour,
                    "XLA peak " + FormatBytes(view.xla.live_range.peak_bytes));
  }
  const float peak_x = f.X(StepFraction(shown.peak_step, shown.schedule.size()));
  draw->AddLine(ImVec2(peak_x, f.min.y), ImVec2(peak_x, f.max.y), kPeakColour, 2.0f);
  draw->AddCircleFilled(ImVec2(peak_x, f.Y(shown.peak_bytes)), 4.0f, kPeakColour);
  const std::string label = "peak " + FormatBytes(shown.peak_bytes) + " at %" + shown.PeakInstruction();
  const float label_w = ImGui::CalcTextSize(label.c_str()).x;
  draw->AddText(ImVec2(std::min(peak_x + 6, f.max.x - label_w - 4), f.min.y + 4), kPeakColour, label.c_str());
  draw->AddRect(f.min, f.max, IM_COL32(80, 80, 90, 255));
  ImGui::InvisibleButton("memory plot", ImVec2(f.max.x - f.min.x, height));
  if (ImGui::IsItemHovered() && !shown.schedule.empty()) {
    const float fraction = (ImGui::GetIO().MousePos.x - f.min.x) / std::max(1.0f, f.max.x - f.min.x);
    const int64_t steps = static_cast<int64_t>(shown.schedule.size());
    const int64_t s = std::clamp<int64_t>(static_cast<int64_t>(fraction * steps), 0, steps - 1);
    ImGui::SetTooltip("step %lld: %%%s\n%s in use%s", static_cast<long long>(s), shown.schedule[s].c_str(),
                      FormatBytes(shown.bytes_at[s]).c_str(),
                      shown.callee_bytes_at[s] > 0 ? (" (" + FormatBytes(shown.callee_bytes_at[s]) + " in the computation it runs)").c_str() : "");
    if (ImGui::IsItemClicked()) context.Select(shown.schedule[s]);
  }
}

void MemoryPanel::DrawPeakTable(WorkbenchContext& context, const backend::MemoryProfile& shown) {
  ImGui::Text("Buffers alive at the peak (step %lld, %%%s): %zu, %s in all", static_cast<long long>(shown.peak_step),
              shown.PeakInstruction().c_str(), shown.at_peak.size(), FormatBytes(shown.SumAtPeak()).c_str());
  if (!ImGui::BeginTable("memory at peak", 6,
                         ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                             ImGuiTableFlags_Resizable,
                         ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    return;
  }
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("1023.99 MiB").x + 8);
  ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("parameter copy").x + 8);
  ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch, 1.0f);
  ImGui::TableSetupColumn("shape", ImGuiTableColumnFlags_WidthStretch, 0.9f);
  ImGui::TableSetupColumn("live", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("[1000, 1000]").x + 8);
  ImGui::TableSetupColumn("op_name", ImGuiTableColumnFlags_WidthStretch, 1.6f);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(shown.at_peak.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const backend::LiveBuffer& b = shown.at_peak[i];
      ImGui::PushID(i);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%s", FormatBytes(b.bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "%s", std::string(backend::MemoryKindName(b.kind)).c_str());
      ImGui::TableNextColumn();
      if (ImGui::SmallButton(session::BufferName(b).c_str())) context.Select(b.instruction);
      if (b.computation != shown.computation) {
        ImGui::SameLine();
        ImGui::TextColored(kDimColour, "in %%%s", b.computation.c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(b.shape.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(session::LiveRangeText(b.defined_at, b.last_use, b.steps).c_str());
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "%s", b.op_name.c_str());
      ImGui::PopID();
    }
  }
  ImGui::EndTable();
}

}  // namespace fusebox::gui
