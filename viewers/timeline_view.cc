// The kernel timeline. SetTrace sorts each track's events once into lanes (nesting or
// overlapping events go one lane down) with a running maximum of their ends, so a frame
// finds the first visible event of a lane by binary search and stops at the first one
// starting after the view. Events narrower than a couple of pixels are merged into one
// box per pixel column, skipping ahead by binary search over everything that starts in
// the column, the way Tracy draws zones it cannot resolve: a frame costs about
// (pixel columns x lanes), not events, and 100k-event traces pan smoothly.
#include "viewers/timeline_view.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "compiler/support/strings.h"
#include "viewers/draw_util.h"

namespace fusebox::viewers {
namespace {

constexpr float kMergePx = 2.5f;      // events narrower than this are merged with neighbours
constexpr float kLabelMinPx = 24;     // boxes narrower than this get no label
constexpr float kClickSlopPx = 4;     // a press and release closer than this is a click
constexpr float kTickSpacingPx = 90;  // at least this much between labelled ruler ticks
constexpr int kMaxLanesPerTrack = 32;
constexpr double kWheelStep = 1.25;        // zoom factor per wheel notch
constexpr double kKeyZoomPerSecond = 4;    // W/S
constexpr double kKeyPanPerSecond = 0.75;  // A/D, in view widths

// Colours that do not depend on the theme.
const ImU32 kHostColor = IM_COL32(176, 176, 176, 255);
const ImU32 kRunColor = IM_COL32(120, 144, 156, 255);  // blue grey 400
const ImU32 kHighlight = IM_COL32(255, 193, 7, 255);   // amber 500

// The chrome, from the theme's brightness: the workbench may be dark or light.
struct Palette {
  ImU32 background, alternate, header, ruler, grid, text, dim_text, separator, label_bg, cursor;
};

Palette ThemePalette() {
  ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
  float luminance = 0.299f * bg.x + 0.587f * bg.y + 0.114f * bg.z;
  if (luminance < 0.5f) {
    return {.background = IM_COL32(30, 31, 34, 255),
            .alternate = IM_COL32(36, 37, 41, 255),
            .header = IM_COL32(48, 52, 60, 255),
            .ruler = IM_COL32(40, 42, 47, 255),
            .grid = IM_COL32(255, 255, 255, 22),
            .text = IM_COL32(222, 224, 228, 255),
            .dim_text = IM_COL32(150, 154, 162, 255),
            .separator = IM_COL32(255, 255, 255, 18),
            .label_bg = IM_COL32(34, 35, 39, 255),
            .cursor = IM_COL32(255, 255, 255, 140)};
  }
  return {.background = IM_COL32(250, 250, 251, 255),
          .alternate = IM_COL32(243, 244, 246, 255),
          .header = IM_COL32(226, 230, 236, 255),
          .ruler = IM_COL32(236, 238, 242, 255),
          .grid = IM_COL32(0, 0, 0, 24),
          .text = IM_COL32(32, 33, 36, 255),
          .dim_text = IM_COL32(100, 106, 116, 255),
          .separator = IM_COL32(0, 0, 0, 20),
          .label_bg = IM_COL32(238, 240, 243, 255),
          .cursor = IM_COL32(0, 0, 0, 140)};
}


// Dark text on light boxes, white on dark ones.
ImU32 TextOn(ImU32 fill) {
  float r = static_cast<float>((fill >> IM_COL32_R_SHIFT) & 0xff);
  float g = static_cast<float>((fill >> IM_COL32_G_SHIFT) & 0xff);
  float b = static_cast<float>((fill >> IM_COL32_B_SHIFT) & 0xff);
  return 0.299f * r + 0.587f * g + 0.114f * b > 140 ? IM_COL32(16, 19, 26, 255)
                                                    : IM_COL32(250, 250, 250, 255);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// A kernel's colour by its kind: the common kinds get fixed, meaningful colours (the
// fusion kinds as the graph's cluster borders: loop grey-orange, input/reduction purple,
// output/dot blue, custom brown); others a hue from a hash, stable across runs.
ImU32 KindColor(std::string_view kind) {
  struct Known {
    std::string_view prefix;
    ImU32 color;
  };
  static const Known kKnown[] = {
      {"fusion(kLoop", IM_COL32(255, 183, 77, 255)},     // orange 300
      {"fusion(kInput", IM_COL32(186, 104, 200, 255)},   // purple 300
      {"fusion(kOutput", IM_COL32(100, 181, 246, 255)},  // blue 300
      {"fusion(kCustom", IM_COL32(161, 136, 127, 255)},  // brown 300
      {"reduction", IM_COL32(206, 147, 216, 255)},       // purple 200
      {"reduce", IM_COL32(206, 147, 216, 255)},
      {"dot", IM_COL32(66, 165, 245, 255)},          // blue 400
      {"convolution", IM_COL32(92, 107, 192, 255)},  // indigo 400
      {"transpose", IM_COL32(129, 199, 132, 255)},   // green 300
      {"copy", IM_COL32(128, 203, 196, 255)},        // teal 200
  };
  for (const Known& known : kKnown) {
    if (StartsWith(kind, known.prefix)) return known.color;
  }
  uint32_t h = 2166136261u;  // FNV-1a, as report/report_html.cc's timeline
  for (char c : kind) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  float r = 0, g = 0, b = 0;
  ImGui::ColorConvertHSVtoRGB(static_cast<float>(h % 360) / 360.0f, 0.42f, 0.92f, r, g, b);
  return IM_COL32(static_cast<int>(r * 255), static_cast<int>(g * 255), static_cast<int>(b * 255),
                  255);
}

// A time or duration in the unit that suits it: "523 ns", "12.35 µs", "1.235 ms".
void FormatTime(double ns, char* out, size_t size) {
  double a = std::fabs(ns);
  if (a < 1e3) {
    std::snprintf(out, size, "%.0f ns", ns);
  } else if (a < 1e6) {
    std::snprintf(out, size, a < 1e4 ? "%.3f \xC2\xB5s" : "%.2f \xC2\xB5s", ns / 1e3);
  } else if (a < 1e9) {
    std::snprintf(out, size, a < 1e7 ? "%.3f ms" : "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(out, size, "%.3f s", ns / 1e9);
  }
}

// The tooltips' byte counts: up to GiB, two decimals there.
constexpr ByteFormat kTooltipBytes = {.largest = ByteUnit::kGiB, .two_decimals_from = ByteUnit::kGiB};

// 1, 2 or 5 times a power of ten, at least `minimum`.
double NiceStep(double minimum) {
  if (!(minimum > 0)) return 1;
  double power = std::pow(10.0, std::floor(std::log10(minimum)));
  for (double mantissa : {1.0, 2.0, 5.0, 10.0}) {
    if (power * mantissa >= minimum * (1 - 1e-9)) return power * mantissa;
  }
  return power * 10;
}

// An event's end for culling: zero-length events still cover their start.
int64_t EffectiveEnd(const profiler::TraceEvent& e) { return std::max(e.end_ns, e.start_ns + 1); }

}  // namespace

void TimelineView::SetTrace(profiler::Trace trace, std::string title) {
  trace_ = std::move(trace);
  title_ = std::move(title);
  has_trace_ = true;
  processes_.clear();
  lanes_.clear();
  rows_.clear();
  const std::vector<profiler::TraceEvent>& events = trace_.events();
  event_lane_.assign(events.size(), -1);
  event_color_.assign(events.size(), 0);

  std::unordered_map<std::string, ImU32> kind_colors;
  for (size_t i = 0; i < events.size(); ++i) {
    const profiler::TraceEvent& e = events[i];
    ImU32 color;
    if (e.category == profiler::kCategoryHost) {
      color = kHostColor;
    } else if (e.category == profiler::kCategoryRun) {
      color = kRunColor;
    } else {
      const std::string& key = e.kind.empty() ? e.name : e.kind;
      auto it = kind_colors.find(key);
      if (it == kind_colors.end()) it = kind_colors.emplace(key, KindColor(key)).first;
      color = it->second;
      // Shards are pieces of a kernel: its colour, lighter.
      if (e.category == profiler::kCategoryShard) color = Mix(color, IM_COL32_WHITE, 0.4f);
    }
    event_color_[i] = color;
  }

  // Each track's events, by start (longer first on ties, so enclosing events come first).
  std::unordered_map<int, std::vector<int>> by_track;
  for (size_t i = 0; i < events.size(); ++i)
    by_track[events[i].track].push_back(static_cast<int>(i));
  for (int track_id : trace_.TrackDisplayOrder()) {
    auto found = by_track.find(track_id);
    if (found == by_track.end() || found->second.empty()) continue;  // empty tracks: no row
    std::vector<int>& indices = found->second;
    std::stable_sort(indices.begin(), indices.end(), [&](int a, int b) {
      if (events[a].start_ns != events[b].start_ns) return events[a].start_ns < events[b].start_ns;
      return events[a].end_ns > events[b].end_ns;
    });
    const profiler::Track* track = trace_.FindTrack(track_id);
    std::string_view process = track ? std::string_view(track->process) : "";
    if (processes_.empty() || processes_.back().name != process) {
      processes_.push_back({std::string(process), false});
      Row header;
      header.header = true;
      header.process = static_cast<int>(processes_.size()) - 1;
      rows_.push_back(header);
    }
    Row row;
    row.process = static_cast<int>(processes_.size()) - 1;
    row.track = track_id;
    row.first_lane = static_cast<int>(lanes_.size());
    // Lane = nesting depth: a stack of the ends of the events still open.
    std::vector<int64_t> open;
    bool thin = true;
    for (int index : indices) {
      const profiler::TraceEvent& e = events[index];
      while (!open.empty() && open.back() <= e.start_ns) open.pop_back();
      int depth = std::min(static_cast<int>(open.size()), kMaxLanesPerTrack - 1);
      open.push_back(EffectiveEnd(e));
      while (row.lane_count <= depth) {
        Lane lane;
        lane.track = track_id;
        lane.depth = row.lane_count++;
        lanes_.push_back(std::move(lane));
      }
      Lane& lane = lanes_[row.first_lane + depth];
      int64_t end = EffectiveEnd(e);
      lane.max_end.push_back(lane.max_end.empty() ? end : std::max(lane.max_end.back(), end));
      lane.events.push_back(index);
      event_lane_[index] = row.first_lane + depth;
      thin = thin && e.category == profiler::kCategoryRun;
    }
    for (int l = row.first_lane; l < row.first_lane + row.lane_count; ++l) lanes_[l].thin = thin;
    rows_.push_back(row);
  }
  scroll_y_ = 0;
  hovered_event_ = -1;
  hovered_merged_count_ = 0;
  last_drawn_events_ = 0;
  highlighted_events_ = 0;
  FitAll();
  SetSelection(selection_);  // the selection outlives traces: re-match it
}

void TimelineView::Clear() {
  trace_ = profiler::Trace();
  title_.clear();
  has_trace_ = false;
  processes_.clear();
  lanes_.clear();
  rows_.clear();
  event_color_.clear();
  event_lane_.clear();
  event_selected_.clear();
  selected_count_ = 0;
  content_height_ = 0;
  scroll_y_ = 0;
  hovered_event_ = -1;
  hovered_merged_count_ = 0;
  hovered_header_ = -1;
  last_drawn_events_ = 0;
  highlighted_events_ = 0;
  SetView(0, 1e6);
}

void TimelineView::SetSelection(const std::string& instruction) {
  selection_ = instruction;
  const std::vector<profiler::TraceEvent>& events = trace_.events();
  event_selected_.assign(events.size(), 0);
  selected_count_ = 0;
  for (Lane& lane : lanes_) lane.selected.clear();
  if (instruction.empty()) return;
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].hlo == instruction || events[i].name == instruction) {
      event_selected_[i] = 1;
      ++selected_count_;
    }
  }
  for (Lane& lane : lanes_) {
    for (size_t pos = 0; pos < lane.events.size(); ++pos) {
      if (event_selected_[lane.events[pos]]) lane.selected.push_back(static_cast<int>(pos));
    }
  }
}

void TimelineView::SetView(double start_ns, double span_ns) {
  double max_span = 1e6;
  if (has_trace_ && !trace_.empty()) {
    max_span = std::max(4.0 * static_cast<double>(trace_.duration_ns()), 1e3);
  }
  view_span_ = std::clamp(span_ns, kMinSpanNs, max_span);
  view_start_ = start_ns;
  if (has_trace_ && !trace_.empty()) {
    // Keep the view's centre on the trace, so it cannot be lost off either end.
    double t0 = static_cast<double>(trace_.start_ns()), t1 = static_cast<double>(trace_.end_ns());
    view_start_ = std::clamp(view_start_, t0 - view_span_ / 2, t1 - view_span_ / 2);
  }
  view_start_ns_ = std::llround(view_start_);
  view_end_ns_ = std::llround(view_start_ + view_span_);
}

void TimelineView::FitAll() {
  if (!has_trace_ || trace_.empty()) {
    SetView(0, 1e6);
    return;
  }
  double duration = static_cast<double>(trace_.duration_ns());
  double margin = std::max(duration * 0.01, kMinSpanNs / 2);
  SetView(static_cast<double>(trace_.start_ns()) - margin, duration + 2 * margin);
}

void TimelineView::ZoomTo(int64_t start_ns, int64_t end_ns) {
  if (end_ns < start_ns) std::swap(start_ns, end_ns);
  double span = std::max(static_cast<double>(end_ns - start_ns), kMinSpanNs);
  double center = (static_cast<double>(start_ns) + static_cast<double>(end_ns)) / 2;
  SetView(center - span / 2, span);
}

void TimelineView::ZoomAround(double factor, float screen_x) {
  screen_x = std::clamp(screen_x, plot_x_, plot_x_ + plot_w_);
  double anchor = XToTime(screen_x);
  double span = std::clamp(view_span_ * factor, kMinSpanNs, 1e300);
  double fraction = (screen_x - plot_x_) / plot_w_;
  SetView(anchor - fraction * span, span);
}

float TimelineView::TimeToX(double ns) const {
  return static_cast<float>(plot_x_ + (ns - view_start_) * plot_w_ / view_span_);
}

double TimelineView::XToTime(float x) const {
  return view_start_ + static_cast<double>(x - plot_x_) * view_span_ / plot_w_;
}

float TimelineView::LaneHeight(const Lane& lane) const {
  return std::floor(ImGui::GetFontSize() + (lane.thin ? 3 : 8));
}

void TimelineView::LayoutRows() {
  const float header_h = std::floor(ImGui::GetFontSize() + 6);
  float y = 0;
  for (Row& row : rows_) {
    row.y = y;
    if (row.header) {
      row.height = header_h;
    } else {
      bool folded = processes_[row.process].folded;
      float lane_y = y;
      for (int l = row.first_lane; l < row.first_lane + row.lane_count; ++l) {
        Lane& lane = lanes_[l];
        lane.y = lane_y;
        lane.height = folded ? 0 : LaneHeight(lane);
        lane_y += lane.height;
      }
      row.height = folded ? 0 : lane_y - y + 3;
    }
    y += row.height;
  }
  content_height_ = y;
}

std::optional<TimelineView::ScreenRect> TimelineView::EventRect(int event) const {
  if (event < 0 || event >= static_cast<int>(event_lane_.size()) || event_lane_[event] < 0)
    return std::nullopt;
  const Lane& lane = lanes_[event_lane_[event]];
  if (lane.height <= 0) return std::nullopt;
  const profiler::TraceEvent& e = trace_.events()[event];
  ScreenRect rect;
  rect.x0 = TimeToX(static_cast<double>(e.start_ns));
  rect.x1 = TimeToX(static_cast<double>(e.end_ns));
  rect.y0 = rows_top_ + lane.y - scroll_y_ + 1;
  rect.y1 = rect.y0 + lane.height - 2;
  return rect;
}

void TimelineView::DrawToolbar() {
  if (ImGui::Button("Fit")) FitAll();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show the whole trace (F, or double-click)");
  ImGui::SameLine();
  char span[48];
  FormatTime(view_span_, span, sizeof(span));
  ImGui::Text("view %s", span);
  if (has_trace_) {
    ImGui::SameLine();
    ImGui::TextDisabled("%d events on %d tracks", static_cast<int>(trace_.events().size()),
                        static_cast<int>(rows_.size() - processes_.size()));
    if (!selection_.empty() && selected_count_ > 0) {
      ImGui::SameLine();
      ImGui::TextColored(ImVec4(1.0f, 0.76f, 0.03f, 1), "%s: %d event%s", selection_.c_str(),
                         selected_count_, selected_count_ == 1 ? "" : "s");
    }
    if (!title_.empty()) {
      ImGui::SameLine();
      ImGui::TextUnformatted(title_.c_str());
    }
  }
}

// Drag to pan (and scroll the tracks), the wheel to zoom (Shift: pan, Ctrl: scroll), W/S
// to zoom and A/D to pan, F to fit. Returns whether the canvas is being dragged.
bool TimelineView::HandleNavigation(bool hovered, bool active) {
  ImGuiIO& io = ImGui::GetIO();
  const bool dragging = active && (io.MouseDown[0] || io.MouseDown[2]);
  if (dragging) {
    if (io.MouseDelta.x != 0)
      SetView(view_start_ - io.MouseDelta.x * view_span_ / plot_w_, view_span_);
    scroll_y_ -= io.MouseDelta.y;
  }
  if (hovered) {
    float wheel = io.MouseWheel;
    float wheel_h = io.MouseWheelH;
    if (wheel != 0 && io.KeyShift) std::swap(wheel, wheel_h);
    if (wheel != 0 && io.KeyCtrl) {
      scroll_y_ -= wheel * 3 * ImGui::GetFontSize();
    } else if (wheel != 0) {
      ZoomAround(std::pow(kWheelStep, -static_cast<double>(wheel)), io.MousePos.x);
    }
    if (wheel_h != 0) SetView(view_start_ - wheel_h * 0.1 * view_span_, view_span_);
    if (!io.WantTextInput) {
      const double dt = io.DeltaTime;
      if (ImGui::IsKeyDown('W')) ZoomAround(std::pow(kKeyZoomPerSecond, -dt), io.MousePos.x);
      if (ImGui::IsKeyDown('S')) ZoomAround(std::pow(kKeyZoomPerSecond, dt), io.MousePos.x);
      if (ImGui::IsKeyDown('A'))
        SetView(view_start_ - kKeyPanPerSecond * dt * view_span_, view_span_);
      if (ImGui::IsKeyDown('D'))
        SetView(view_start_ + kKeyPanPerSecond * dt * view_span_, view_span_);
      if (ImGui::IsKeyPressed('F', false)) FitAll();
    }
  }
  const float view_h = std::max(0.0f, rows_bottom_ - rows_top_);
  scroll_y_ = std::clamp(scroll_y_, 0.0f, std::max(0.0f, content_height_ - view_h));
  return dragging;
}

// The time under the cursor: a line over the tracks, its offset in the ruler.
void TimelineView::DrawCursorTime(float top, float right) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const Palette palette = ThemePalette();
  list->AddLine({mouse_x_, top}, {mouse_x_, rows_bottom_}, palette.cursor);
  char label[48];
  FormatTime(XToTime(mouse_x_) - static_cast<double>(trace_.start_ns()), label, sizeof(label));
  ImVec2 text_size = ImGui::CalcTextSize(label);
  float x = std::min(mouse_x_ + 4, right - text_size.x - 4);
  list->AddRectFilled({x - 2, top + 1}, {x + text_size.x + 2, top + 1 + text_size.y},
                      palette.ruler);
  list->AddText({x, top + 1}, palette.text, label);
}

// A click folds a process, selects an event or zooms into a merged block; a double click
// zooms to an event or fits the trace. Returns the name clicked.
std::optional<std::string> TimelineView::HandleClicks(bool pressed, bool hovered) {
  ImGuiIO& io = ImGui::GetIO();
  std::optional<std::string> clicked;
  const bool click =
      pressed && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
      io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < kClickSlopPx * kClickSlopPx;
  if (click) {
    if (hovered_header_ >= 0) {
      processes_[hovered_header_].folded = !processes_[hovered_header_].folded;
    } else if (hovered_event_ >= 0) {
      const profiler::TraceEvent& e = trace_.events()[hovered_event_];
      clicked = e.hlo.empty() ? e.name : e.hlo;
      SetSelection(*clicked);
    } else if (hovered_merged_count_ > 0) {
      int64_t pad = (hovered_merged_end_ - hovered_merged_start_) / 10;
      ZoomTo(hovered_merged_start_ - pad, hovered_merged_end_ + pad);
    }
  }
  if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && hovered_header_ < 0) {
    if (hovered_event_ >= 0) {
      const profiler::TraceEvent& e = trace_.events()[hovered_event_];
      int64_t pad = std::max<int64_t>((e.end_ns - e.start_ns) / 10, 1);
      ZoomTo(e.start_ns - pad, e.end_ns + pad);
    } else if (hovered_merged_count_ == 0) {
      FitAll();
    }
  }
  return clicked;
}

std::optional<std::string> TimelineView::Draw(const char* id) {
  ImGui::PushID(id);
  ImGuiIO& io = ImGui::GetIO();
  const bool usable = has_trace_ && !trace_.empty();
  DrawToolbar();

  // The canvas: ruler on top, track labels on the left, events in the rest.
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(std::max(avail.x, kLabelWidth + 64), std::max(avail.y, 48.0f));
  const bool pressed = ImGui::InvisibleButton(
      "canvas", size, ImGuiButtonFlags_MouseButtonLeft | ImGuiButtonFlags_MouseButtonMiddle);
  const bool hovered = ImGui::IsItemHovered();
  const bool active = ImGui::IsItemActive();
  const ImVec2 canvas_max(origin.x + size.x, origin.y + size.y);
  const float ruler_h = std::floor(ImGui::GetFontSize() + 10);
  plot_x_ = origin.x + kLabelWidth;
  plot_w_ = std::max(1.0f, size.x - kLabelWidth);
  rows_top_ = origin.y + ruler_h;
  rows_bottom_ = canvas_max.y;

  ImDrawList* list = ImGui::GetWindowDrawList();
  list->PushClipRect(origin, canvas_max, true);
  const Palette palette = ThemePalette();
  list->AddRectFilled(origin, canvas_max, palette.background);

  if (!usable) {
    const char* text = has_trace_ ? "The trace has no events" : "No trace";
    ImVec2 text_size = ImGui::CalcTextSize(text);
    list->AddText({origin.x + (size.x - text_size.x) / 2, origin.y + (size.y - text_size.y) / 2},
                  palette.dim_text, text);
    last_drawn_events_ = 0;
    highlighted_events_ = 0;
    hovered_event_ = -1;
    hovered_merged_count_ = 0;
    list->PopClipRect();
    ImGui::PopID();
    return std::nullopt;
  }

  LayoutRows();
  const bool dragging = HandleNavigation(hovered, active);
  mouse_x_ = io.MousePos.x;
  mouse_y_ = io.MousePos.y;
  mouse_in_plot_ = hovered && mouse_x_ >= plot_x_ && mouse_y_ >= rows_top_;

  DrawRows(rows_top_, rows_bottom_);
  DrawRuler(origin.x, origin.y, canvas_max.x, rows_top_);
  if (hovered && mouse_x_ >= plot_x_ && !dragging) DrawCursorTime(origin.y, canvas_max.x);

  std::optional<std::string> clicked = HandleClicks(pressed, hovered);
  if (hovered && !dragging) {
    if (hovered_event_ >= 0 || hovered_merged_count_ > 0) {
      DrawTooltip();
      ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    } else if (hovered_header_ >= 0) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    }
  } else if (dragging && io.MouseDragMaxDistanceSqr[0] + io.MouseDragMaxDistanceSqr[2] > 0) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeAll);
  }
  list->PopClipRect();
  ImGui::PopID();
  return clicked;
}

void TimelineView::DrawRuler(float x0, float y0, float x1, float y1) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const Palette palette = ThemePalette();
  list->AddRectFilled({x0, y0}, {x1, y1}, palette.ruler);
  list->AddLine({x0, y1 - 0.5f}, {x1, y1 - 0.5f}, palette.grid);
  // Left of the plot: the view's start relative to the trace's.
  const double t0 = static_cast<double>(trace_.start_ns());
  char text[64];
  FormatTime(view_start_ - t0, text, sizeof(text));
  char start[72];
  std::snprintf(start, sizeof(start), "from %s", text);
  list->AddText({x0 + 6, y0 + (y1 - y0 - ImGui::GetFontSize()) / 2}, palette.dim_text, start);

  const double px_per_ns = plot_w_ / view_span_;
  const double step = NiceStep(kTickSpacingPx / px_per_ns);
  // Minor ticks: fifths of a 1 or 5 step, quarters of a 2 step.
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const int minor = std::fabs(mantissa - 2) < 0.5 ? 4 : 5;
  // Labels in one unit for the whole ruler (the one the largest visible offset needs),
  // with as many decimals as the step needs.
  const double view_end = view_start_ + view_span_;
  const double largest = std::max(std::fabs(view_start_ - t0), std::fabs(view_end - t0));
  double unit = 1;
  const char* suffix = "ns";
  if (largest >= 1e9) {
    unit = 1e9, suffix = "s";
  } else if (largest >= 1e6) {
    unit = 1e6, suffix = "ms";
  } else if (largest >= 1e3) {
    unit = 1e3, suffix = "\xC2\xB5s";
  }
  const int decimals =
      std::clamp(static_cast<int>(std::ceil(-std::log10(step / unit) - 1e-9)), 0, 9);

  list->PushClipRect({plot_x_, y0}, {x1, rows_bottom_}, true);
  const double first = std::floor((view_start_ - t0) / step);
  const double last = std::ceil((view_end - t0) / step);
  for (double k = first; k <= last; k += 1) {
    const double offset = k * step;
    const float x = TimeToX(t0 + offset);
    for (int m = 1; m < minor; ++m) {
      float mx = TimeToX(t0 + offset + step * m / minor);
      list->AddLine({mx, y1 - 4}, {mx, y1}, palette.dim_text);
    }
    if (x < plot_x_ - 1 || x > x1 + 1) continue;
    list->AddLine({x, y1 - 9}, {x, y1}, palette.dim_text);
    list->AddLine({x, y1}, {x, rows_bottom_}, palette.grid);  // grid over the tracks
    double value = offset / unit;
    if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0.00"
    char label[48];
    std::snprintf(label, sizeof(label), "%.*f %s", decimals, value, suffix);
    list->AddText({x + 3, y0 + 2}, palette.text, label);
  }
  list->PopClipRect();
}

// One frame of the track rows: their screen extent, the view's time range and how times
// map to x.
struct TimelineView::RowsFrame {
  ImDrawList* list = nullptr;
  ImFont* font = nullptr;
  float font_size = 0;
  Palette palette;
  const std::vector<profiler::TraceEvent>* events = nullptr;
  float top = 0, bottom = 0, left = 0, right = 0;
  float plot_x = 0;
  double vs = 0, ve = 0;  // the view, in nanoseconds
  double px_per_ns = 0;
  bool dim = false;  // a selection dims the other events

  float XOf(double ns) const { return static_cast<float>(plot_x + (ns - vs) * px_per_ns); }
};

// Row backgrounds: process headers (the one under the mouse is noted) and alternate tracks.
void TimelineView::DrawRowBackgrounds(const RowsFrame& f) {
  const float top = f.top, bottom = f.bottom, left = f.left, right = f.right;
  const bool mouse_in_rows = mouse_y_ >= top && mouse_y_ < bottom;
  int track_index = 0;
  for (const Row& row : rows_) {
    if (row.height <= 0) continue;
    float y0 = top + row.y - scroll_y_, y1 = y0 + row.height;
    if (!row.header) ++track_index;
    if (y1 < top || y0 > bottom) continue;
    if (row.header) {
      f.list->AddRectFilled({left, y0}, {right, y1}, f.palette.header);
      if (mouse_in_rows && mouse_y_ >= y0 && mouse_y_ < y1 && mouse_x_ >= left && mouse_x_ < right)
        hovered_header_ = row.process;
    } else {
      if (track_index % 2 == 0)
        f.list->AddRectFilled({plot_x_, y0}, {right, y1}, f.palette.alternate);
      f.list->AddLine({left, y1 - 0.5f}, {right, y1 - 0.5f}, f.palette.separator);
    }
  }
}

// An event wide enough to see: fill, edge, and its name and duration where they fit.
void TimelineView::DrawEventBox(const RowsFrame& f, int index, float x0, float x1, float y0,
                                float y1, bool mouse_in_lane) {
  ImDrawList* list = f.list;
  const float font_size = f.font_size;
  const profiler::TraceEvent& e = (*f.events)[index];
  const float bx0 = std::max(x0, plot_x_ - 2), bx1 = std::min(x1, f.right + 2);
  ImU32 color = event_color_[index];
  if (f.dim && !event_selected_[index]) color = Mix(color, f.palette.background, 0.45f);
  list->AddRectFilled({bx0, y0}, {bx1, y1}, color);
  if (bx1 - bx0 >= 5) list->AddRect({bx0, y0}, {bx1, y1}, Mix(color, IM_COL32_BLACK, 0.25f));
  if (mouse_in_lane && mouse_x_ >= bx0 && mouse_x_ < bx1) hovered_event_ = index;
  // The label starts at the visible part of the box, as Tracy does for long zones.
  const float lx0 = std::max(bx0, plot_x_) + 4, lx1 = std::min(bx1, f.right) - 3;
  if (lx1 - lx0 + 7 >= kLabelMinPx && y1 - y0 >= font_size - 1) {
    const ImVec4 clip(lx0, y0, lx1, y1);
    const ImU32 ink = TextOn(color);
    const float ty = y0 + (y1 - y0 - font_size) / 2;
    const std::string& name = e.name.empty() ? e.hlo : e.name;
    const char* name_end = name.data() + name.size();
    float name_w = f.font->CalcTextSizeA(font_size, FLT_MAX, 0, name.data(), name_end).x;
    list->AddText(f.font, font_size, {lx0, ty}, ink, name.data(), name_end, 0, &clip);
    char duration[40];
    FormatTime(static_cast<double>(e.duration_ns()), duration, sizeof(duration));
    char text[96];
    std::snprintf(text, sizeof(text), " %s", duration);
    float duration_w = f.font->CalcTextSizeA(font_size, FLT_MAX, 0, text).x;
    if (lx0 + name_w + duration_w <= lx1)
      list->AddText(f.font, font_size, {lx0 + name_w, ty}, Mix(ink, color, 0.35f), text);
  }
}

// One lane's events from `first` on: boxes for those wide enough to see, merged blocks
// (one per pixel column) for runs of tiny ones. Returns the boxes drawn.
int TimelineView::DrawLaneEvents(const RowsFrame& f, const Lane& lane, size_t first, float y0,
                                 float y1) {
  ImDrawList* list = f.list;
  const std::vector<profiler::TraceEvent>& events = *f.events;
  const double vs = f.vs, ve = f.ve, px_per_ns = f.px_per_ns;
  auto x_of = [&](double ns) { return f.XOf(ns); };
  const bool mouse_in_lane = mouse_in_plot_ && mouse_y_ >= y0 && mouse_y_ < y1;
  const size_t n = lane.events.size();
  int drawn = 0;

  // A run of merged tiny events waiting to be drawn.
  bool open = false;
  float mx0 = 0, mx1 = 0;
  int merged_first = -1, merged_count = 0;
  int64_t merged_start = 0, merged_end = 0;
  auto flush = [&]() {
    if (!open) return;
    open = false;
    const float bx1 = std::max(mx1, mx0 + 1);
    ImU32 color = event_color_[merged_first];
    if (merged_count > 1) {
      // Unresolved: the first event's colour, greyed, as a solid block.
      color = Mix(color, IM_COL32(110, 110, 110, 255), 0.35f);
    }
    if (f.dim && (merged_count > 1 || !event_selected_[merged_first]))
      color = Mix(color, f.palette.background, 0.45f);
    list->AddRectFilled({mx0, y0}, {bx1, y1}, color);
    ++drawn;
    if (mouse_in_lane && mouse_x_ >= mx0 - 0.5f && mouse_x_ <= bx1 + 0.5f) {
      if (merged_count == 1) {
        hovered_event_ = merged_first;
      } else {
        hovered_event_ = -1;
        hovered_merged_count_ = merged_count;
        hovered_merged_start_ = merged_start;
        hovered_merged_end_ = merged_end;
      }
    }
  };

  size_t i = first;
  while (i < n) {
    const int index = lane.events[i];
    const profiler::TraceEvent& e = events[index];
    if (static_cast<double>(e.start_ns) >= ve) break;
    const int64_t end = EffectiveEnd(e);
    if (static_cast<double>(end) <= vs) {
      ++i;
      continue;
    }
    const float x0 = x_of(static_cast<double>(e.start_ns));
    const float x1 = x_of(static_cast<double>(e.end_ns));
    if (x1 - x0 < kMergePx) {
      // A run holds the tiny events starting in one pixel column: one box per column.
      if (open && x0 < std::floor(mx0) + 1) {
        mx1 = std::max(mx1, x1);
        merged_end = std::max(merged_end, end);
        ++merged_count;
      } else {
        flush();
        open = true;
        mx0 = x0, mx1 = x1;
        merged_first = index, merged_count = 1;
        merged_start = e.start_ns, merged_end = end;
      }
      // Everything else starting in the column joins the run: jump past it by binary
      // search. Only the last of those can reach further, so it is looked at.
      const double reach = vs + (std::floor(mx0) + 1 - plot_x_) / px_per_ns;
      auto next = std::lower_bound(
          lane.events.begin() + static_cast<std::ptrdiff_t>(i) + 1, lane.events.end(), reach,
          [&](int a, double t) { return static_cast<double>(events[a].start_ns) < t; });
      const size_t j = static_cast<size_t>(next - lane.events.begin());
      if (j >= i + 3) {
        // Events i+1 .. j-2 lie inside the run; j-1 is processed next.
        merged_count += static_cast<int>(j - i - 2);
        merged_end = std::max(merged_end, lane.max_end[j - 2]);
        mx1 = std::max(mx1, x_of(static_cast<double>(lane.max_end[j - 2])));
        i = j - 1;
      } else {
        ++i;
      }
      continue;
    }
    flush();
    ++i;
    DrawEventBox(f, index, x0, x1, y0, y1, mouse_in_lane);
    ++drawn;
  }
  flush();
  return drawn;
}

// The selection's events: a bright outline around those wide enough to see, a bright
// line one pixel column wide for those narrower (once per column, and thinner where
// they crowd, so a dense selection reads as density rather than a solid bar). Returns how
// many it marked.
int TimelineView::DrawLaneSelection(const RowsFrame& f, const Lane& lane, size_t first, float y0,
                                    float y1) const {
  if (lane.selected.empty()) return 0;
  ImDrawList* list = f.list;
  const std::vector<profiler::TraceEvent>& events = *f.events;
  int highlighted = 0;
  auto pos = std::lower_bound(lane.selected.begin(), lane.selected.end(), static_cast<int>(first));
  float last_column = -1e9f;
  for (; pos != lane.selected.end(); ++pos) {
    const profiler::TraceEvent& e = events[lane.events[*pos]];
    if (static_cast<double>(e.start_ns) >= f.ve) break;
    if (static_cast<double>(EffectiveEnd(e)) <= f.vs) continue;
    ++highlighted;
    const float x0 = f.XOf(static_cast<double>(e.start_ns));
    const float x1 = f.XOf(static_cast<double>(e.end_ns));
    if (x1 - x0 >= kMergePx) {
      list->AddRect({std::max(x0, plot_x_ - 3) - 1, y0 - 1},
                    {std::min(x1, f.right + 3) + 1, y1 + 1}, kHighlight, 0, 0, 2);
      continue;
    }
    const float column = std::floor(x0);
    if (column <= last_column) continue;
    const float width = column - last_column > 8 ? 2 : 1;  // isolated ones bolder
    list->AddRectFilled({column, y0 - 1}, {column + width, y1 + 1}, kHighlight);
    last_column = column + width - 1;
  }
  return highlighted;
}

// The label column, over everything that scrolled under it: process headers with their
// fold arrows, track names and their lane counts.
void TimelineView::DrawRowLabels(const RowsFrame& f) const {
  ImDrawList* list = f.list;
  ImFont* font = f.font;
  const float font_size = f.font_size;
  const Palette& palette = f.palette;
  const float top = f.top, bottom = f.bottom, left = f.left;
  char text[96];
  list->AddRectFilled({left, top}, {plot_x_, bottom}, palette.label_bg);
  list->AddLine({plot_x_ - 0.5f, top}, {plot_x_ - 0.5f, bottom}, palette.grid);
  for (const Row& row : rows_) {
    if (row.height <= 0) continue;
    float y0 = top + row.y - scroll_y_, y1 = y0 + row.height;
    if (y1 < top || y0 > bottom) continue;
    const ImVec4 clip(left + 2, y0, plot_x_ - 4, y1);
    const float ty = y0 + std::min(3.0f, (row.height - font_size) / 2);
    if (row.header) {
      const Process& process = processes_[row.process];
      list->AddRectFilled({left, y0}, {plot_x_, y1}, palette.header);
      // A fold arrow: right when folded, down when open.
      const float s = font_size * 0.3f, cx = left + 10, cy = y0 + row.height / 2;
      if (process.folded) {
        list->AddTriangleFilled({cx - s * 0.6f, cy - s}, {cx - s * 0.6f, cy + s}, {cx + s, cy},
                                palette.text);
      } else {
        list->AddTriangleFilled({cx - s, cy - s * 0.6f}, {cx + s, cy - s * 0.6f}, {cx, cy + s},
                                palette.text);
      }
      // Both arms string_views: with a string arm the conditional is a temporary std::string,
      // which the view would outlive.
      std::string_view name =
          process.name.empty() ? std::string_view("(process)") : std::string_view(process.name);
      // Faux bold, as the graph's titles: the default font has no bold face.
      list->AddText(font, font_size, {left + 20, ty}, palette.text, name.data(),
                    name.data() + name.size(), 0, &clip);
      list->AddText(font, font_size, {left + 20.6f, ty}, palette.text, name.data(),
                    name.data() + name.size(), 0, &clip);
    } else {
      const profiler::Track* track = trace_.FindTrack(row.track);
      std::string_view name = track ? std::string_view(track->name) : "?";
      list->AddText(font, font_size, {left + 20, ty}, palette.text, name.data(),
                    name.data() + name.size(), 0, &clip);
      if (row.lane_count > 1) {
        std::snprintf(text, sizeof(text), "%d levels", row.lane_count);
        list->AddText(font, font_size, {left + 20, ty + font_size + 2}, palette.dim_text, text,
                      nullptr, 0, &clip);
      }
    }
  }
}

void TimelineView::DrawRows(float top, float bottom) {
  RowsFrame f;
  f.list = ImGui::GetWindowDrawList();
  f.font = ImGui::GetFont();
  f.font_size = ImGui::GetFontSize();
  f.palette = ThemePalette();
  f.events = &trace_.events();
  f.top = top;
  f.bottom = bottom;
  f.left = plot_x_ - kLabelWidth;
  f.right = plot_x_ + plot_w_;
  f.plot_x = plot_x_;
  f.vs = view_start_, f.ve = view_start_ + view_span_;
  f.px_per_ns = plot_w_ / view_span_;
  f.dim = selected_count_ > 0;

  hovered_event_ = -1;
  hovered_merged_count_ = 0;
  hovered_header_ = -1;
  f.list->PushClipRect({f.left, top}, {f.right, bottom}, true);
  DrawRowBackgrounds(f);

  // Events, lane by lane.
  int drawn = 0, highlighted = 0;
  f.list->PushClipRect({plot_x_, top}, {f.right, bottom}, true);
  for (size_t l = 0; l < lanes_.size(); ++l) {
    const Lane& lane = lanes_[l];
    if (lane.height <= 0 || lane.events.empty()) continue;
    const float y0 = top + lane.y - scroll_y_ + 1, y1 = y0 + lane.height - 2;
    if (y1 < top || y0 > bottom) continue;
    // The first event that may reach into the view.
    const size_t first = static_cast<size_t>(
        std::upper_bound(lane.max_end.begin(), lane.max_end.end(), f.vs,
                         [](double t, int64_t end) { return t < static_cast<double>(end); }) -
        lane.max_end.begin());
    drawn += DrawLaneEvents(f, lane, first, y0, y1);
    highlighted += DrawLaneSelection(f, lane, first, y0, y1);
  }
  f.list->PopClipRect();
  last_drawn_events_ = drawn;
  highlighted_events_ = highlighted;
  DrawRowLabels(f);
  f.list->PopClipRect();
}

void TimelineView::DrawTooltip() const {
  const double t0 = static_cast<double>(trace_.start_ns());
  char a[48], b[48];
  ImGui::BeginTooltip();
  if (hovered_event_ < 0) {
    ImGui::Text("%d events, too small to draw one by one", hovered_merged_count_);
    FormatTime(static_cast<double>(hovered_merged_start_) - t0, a, sizeof(a));
    FormatTime(static_cast<double>(hovered_merged_end_ - hovered_merged_start_), b, sizeof(b));
    ImGui::TextDisabled("from +%s, over %s", a, b);
    ImGui::TextDisabled("click to zoom in");
    ImGui::EndTooltip();
    return;
  }
  const profiler::TraceEvent& e = trace_.events()[hovered_event_];
  ImVec4 swatch = ImGui::ColorConvertU32ToFloat4(event_color_[hovered_event_]);
  ImGui::ColorButton("##kind", swatch, ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder,
                     ImVec2(ImGui::GetFontSize(), ImGui::GetFontSize()));
  ImGui::SameLine();
  ImGui::TextUnformatted(e.name.c_str());
  if (!e.hlo.empty()) {
    if (e.computation.empty()) {
      ImGui::Text("HLO: %s", e.hlo.c_str());
    } else {
      ImGui::Text("HLO: %s (in %s)", e.hlo.c_str(), e.computation.c_str());
    }
  }
  if (!e.kind.empty()) ImGui::Text("kind: %s", e.kind.c_str());
  ImGui::Text("category: %s", e.category.c_str());
  if (const profiler::Track* track = trace_.FindTrack(e.track))
    ImGui::Text("track: %s / %s", track->process.c_str(), track->name.c_str());
  FormatTime(static_cast<double>(e.start_ns) - t0, a, sizeof(a));
  FormatTime(static_cast<double>(e.duration_ns()), b, sizeof(b));
  ImGui::Text("start: +%s", a);
  ImGui::Text("duration: %s", b);
  const double ns = static_cast<double>(std::max<int64_t>(1, e.duration_ns()));
  if (!e.group.empty()) ImGui::Text("group: %s", e.group.c_str());
  if (e.bytes() > 0) {
    const std::string read = FormatBytes(e.bytes_read, kTooltipBytes);
    const std::string written = FormatBytes(e.bytes_written, kTooltipBytes);
    // A collective's trace event keeps what it sent as read and what it received as written.
    if (e.category == profiler::kCategoryCollective) {
      ImGui::Text("bytes: %s sent, %s received", read.c_str(), written.c_str());
    } else {
      ImGui::Text("bytes: %s read, %s written", read.c_str(), written.c_str());
    }
    ImGui::Text("bandwidth: %.2f GB/s", static_cast<double>(e.bytes()) / ns);  // bytes/ns
  }
  if (e.flops > 0) ImGui::Text("compute: %.2f GFLOP/s", static_cast<double>(e.flops) / ns);
  for (const auto& [key, value] : e.args) ImGui::Text("%s: %s", key.c_str(), value.c_str());
  // Compile spans (they carry arguments) belong to no run.
  if (e.args.empty()) ImGui::Text("iteration: %" PRId64, e.iteration);
  if (!e.hlo.empty() || !e.name.empty())
    ImGui::TextDisabled("click to select, double-click to zoom");
  ImGui::EndTooltip();
}

}  // namespace fusebox::viewers
