// The Run & profile view's roofline (profiler/roofline.h): each kernel of the shown run at
// its intensity and achieved GFLOP/s, on log-log axes under the machine's measured roofs;
// hover for the numbers, click to select the kernel's instruction.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/gui/panels.h"
#include "app/gui/workbench_internal.h"

namespace fusebox::gui {
namespace {

// The plot's frame: log10 ranges on both axes and the screen rectangle they map to.
struct PlotFrame {
  ImVec2 min, max;
  double x_lo = -2, x_hi = 3, y_lo = 0, y_hi = 0;
  ImVec2 At(double intensity, double gflops) const {
    const double fx = (std::log10(std::max(intensity, 1e-12)) - x_lo) / (x_hi - x_lo);
    const double fy = (std::log10(std::max(gflops, 1e-12)) - y_lo) / (y_hi - y_lo);
    return ImVec2(min.x + static_cast<float>(std::clamp(fx, 0.0, 1.0)) * (max.x - min.x),
                  max.y - static_cast<float>(std::clamp(fy, 0.0, 1.0)) * (max.y - min.y));
  }
};

void DrawAxes(ImDrawList* draw, const PlotFrame& f) {
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Separator, 0.5f);
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  char label[16];
  for (int e = static_cast<int>(f.x_lo); e <= static_cast<int>(f.x_hi); ++e) {
    const ImVec2 p = f.At(std::pow(10.0, e), std::pow(10.0, f.y_lo));
    draw->AddLine(ImVec2(p.x, f.min.y), ImVec2(p.x, f.max.y), grid);
    std::snprintf(label, sizeof(label), "1e%d", e);
    draw->AddText(ImVec2(p.x - 10, f.max.y + 2), text, label);
  }
  for (int e = static_cast<int>(f.y_lo); e <= static_cast<int>(f.y_hi); ++e) {
    const ImVec2 p = f.At(std::pow(10.0, f.x_lo), std::pow(10.0, e));
    draw->AddLine(ImVec2(f.min.x, p.y), ImVec2(f.max.x, p.y), grid);
    std::snprintf(label, sizeof(label), "1e%d", e);
    draw->AddText(ImVec2(f.min.x - 36, p.y - 7), text, label);
  }
  draw->AddText(ImVec2((f.min.x + f.max.x) / 2 - 30, f.max.y + 16), text, "flop/byte");
  draw->AddText(ImVec2(f.min.x - 36, f.min.y - 18), text, "GFLOP/s");
}

void DrawRoofs(ImDrawList* draw, const PlotFrame& f, const profiler::MachinePeaks& peaks) {
  const double left = std::pow(10.0, f.x_lo), right = std::pow(10.0, f.x_hi), ridge = peaks.ridge();
  const ImU32 roof = ImGui::GetColorU32(kErrorColour);
  draw->AddLine(f.At(left, left * peaks.gb_per_s), f.At(ridge, peaks.gflop_per_s), roof, 2.0f);
  draw->AddLine(f.At(ridge, peaks.gflop_per_s), f.At(right, peaks.gflop_per_s), roof, 2.0f);
  char label[96];
  std::snprintf(label, sizeof(label), "%.1f GFLOP/s", peaks.gflop_per_s);
  draw->AddText(ImVec2(f.max.x - 110, f.At(right, peaks.gflop_per_s).y - 16), roof, label);
  std::snprintf(label, sizeof(label), "%.1f GB/s", peaks.gb_per_s);
  const ImVec2 low = f.At(std::max(left, ridge / 100), ridge / 100 * peaks.gb_per_s);
  draw->AddText(ImVec2(low.x + 4, low.y - 18), roof, label);
}

}  // namespace

size_t ProfilePanel::roofline_points() const {
  if (!peaks_) return 0;
  const profiler::KernelSummary& summary = show_unfused_ && run_unfused_ ? summary_unfused_ : summary_fused_;
  size_t n = 0;
  for (const profiler::RooflineRow& r : profiler::Roofline(summary, *peaks_)) n += r.intensity > 0 && r.gflop_per_s > 0;
  return n;
}

void ProfilePanel::DrawRoofline(WorkbenchContext& context) {
  if (!peaks_) {
    ImGui::TextDisabled("%s", ("No roofline: " + peaks_error_).c_str());
    return;
  }
  const profiler::KernelSummary& summary = show_unfused_ && run_unfused_ ? summary_unfused_ : summary_fused_;
  const std::vector<profiler::RooflineRow> rows = profiler::Roofline(summary, *peaks_);
  ImGui::PushStyleColor(ImGuiCol_Text, kDimColour);
  ImGui::TextWrapped("%s: peak %.1f GFLOP/s, %.1f GB/s, ridge %.2f flop/byte (%s). Each kernel's fastest call; "
                     "the dot's size is its share of the time, orange is compute-bound.",
                     peaks_->device.c_str(), peaks_->gflop_per_s, peaks_->gb_per_s, peaks_->ridge(), peaks_->how.c_str());
  ImGui::PopStyleColor();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 size = ImGui::GetContentRegionAvail();
  ImGui::InvisibleButton("roofline_plot", ImVec2(std::max(size.x, 200.0f), std::max(size.y, 160.0f)));
  PlotFrame f;
  f.min = ImVec2(origin.x + 48, origin.y + 22);
  f.max = ImVec2(origin.x + std::max(size.x, 200.0f) - 12, origin.y + std::max(size.y, 160.0f) - 34);
  f.y_hi = std::ceil(std::log10(peaks_->gflop_per_s * 2));
  f.y_lo = f.y_hi - 5;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  DrawAxes(draw, f);
  DrawRoofs(draw, f, *peaks_);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const profiler::RooflineRow* hovered = nullptr;
  for (const profiler::RooflineRow& r : rows) {
    if (r.intensity <= 0 || r.gflop_per_s <= 0) continue;
    const ImVec2 p = f.At(r.intensity, r.gflop_per_s);
    const bool selected = context.selection() == r.hlo;
    const float radius = 3.0f + 9.0f * static_cast<float>(std::sqrt(r.share));
    ImVec4 colour = r.bound == profiler::Bound::kCompute ? kNotFusedColour : kFusedColour;
    colour.w = selected ? 1.0f : 0.7f;
    draw->AddCircleFilled(p, radius, ImGui::GetColorU32(colour));
    if (selected) draw->AddCircle(p, radius + 3, ImGui::GetColorU32(ImGuiCol_Text), 0, 2.0f);
    const float dx = mouse.x - p.x, dy = mouse.y - p.y;
    if (dx * dx + dy * dy <= (radius + 2) * (radius + 2)) hovered = &r;
  }
  if (hovered != nullptr && ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%%%s (%s)\n%.1f%% of the run's kernel time\n%.3f flop/byte, %.2f GFLOP/s, %.2f GB/s\n"
                      "roof %.1f GFLOP/s: %.1f%% of it, %s-bound",
                      hovered->hlo.c_str(), hovered->kind.c_str(), 100 * hovered->share, hovered->intensity,
                      hovered->gflop_per_s, hovered->gb_per_s, hovered->attainable_gflop_per_s,
                      100 * hovered->fraction_of_roof, std::string(profiler::BoundName(hovered->bound)).c_str());
    if (ImGui::IsItemClicked()) context.Select(hovered->hlo);
  }
}

}  // namespace fusebox::gui
