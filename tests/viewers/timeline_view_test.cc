// Headless tests of the kernel timeline: synthetic traces (a few tracks; nesting; 100k
// events) and a real profiled CPU run, drawn through a real ImGui context
// (tests/viewers/imgui_harness.h) and driven with the mouse and keys: fit, zoom around
// the cursor, drag to pan, click to select, selection highlights, merged sub-pixel
// events, folding a process.
#include "viewers/timeline_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/session/profiled_run.h"
#include "tests/test_util.h"
#include "tests/viewers/imgui_harness.h"

namespace fusebox::viewers {
namespace {

using profiler::Trace;
using profiler::TraceEvent;
using testing::FrameStats;
using testing::ImGuiHarness;

constexpr ImU32 kHighlight = IM_COL32(255, 193, 7, 255);   // the view's selection outline
constexpr ImU32 kLoopColor = IM_COL32(255, 183, 77, 255);  // fusion(kLoop) kernels

constexpr int64_t kBase = 5'000'000'000;  // traces hold absolute steady-clock times

TraceEvent Event(std::string name, std::string hlo, std::string kind, std::string_view category,
                 int track, int64_t start, int64_t end, int64_t iteration = 0) {
  TraceEvent e;
  e.name = std::move(name);
  e.hlo = std::move(hlo);
  e.kind = std::move(kind);
  e.category = std::string(category);
  e.track = track;
  e.start_ns = start;
  e.end_ns = end;
  e.iteration = iteration;
  return e;
}

// Two iterations of ten kernels on one CPU thread with a shard each on two workers, a
// host copy per iteration, the runs, and five dots on a GPU stream.
Trace SmallTrace() {
  Trace t;
  const int thread = t.AddTrack("CPU", "thread 0");
  const int worker1 = t.AddTrack("CPU", "worker 1");
  const int worker0 = t.AddTrack("CPU", "worker 0");
  const int runs = t.AddTrack("CPU", "runs");
  const int stream = t.AddTrack("GPU 0", "stream 7");
  for (int it = 0; it < 2; ++it) {
    const int64_t run = kBase + it * 400'000;
    t.AddEvent(Event("run " + std::to_string(it), "", "", profiler::kCategoryRun, runs, run,
                     run + 300'000, it));
    for (int k = 0; k < 10; ++k) {
      const int64_t start = run + 10'000 + k * 25'000, end = start + 20'000;
      TraceEvent kernel = Event("fusion_" + std::to_string(k), "fusion." + std::to_string(k),
                                k % 2 ? "fusion(kLoop)" : "fusion(kInput)",
                                profiler::kCategoryKernel, thread, start, end, it);
      kernel.bytes_read = 1 << 20;
      kernel.bytes_written = 1 << 18;
      kernel.flops = 1'000'000;
      t.AddEvent(kernel);
      t.AddEvent(Event(kernel.name, kernel.hlo, kernel.kind, profiler::kCategoryShard,
                       k % 2 ? worker1 : worker0, start + 1'000, end - 1'000, it));
    }
    t.AddEvent(
        Event("copy", "", "", profiler::kCategoryHost, thread, run + 270'000, run + 280'000, it));
  }
  for (int k = 0; k < 5; ++k) {
    const int64_t start = kBase + 50'000 + k * 40'000;
    t.AddEvent(Event("dot_" + std::to_string(k), "dot." + std::to_string(k), "dot",
                     profiler::kCategoryKernel, stream, start, start + 30'000));
  }
  t.SortEvents();
  return t;
}

int IndexOf(const Trace& trace, std::string_view name, std::string_view category,
            int64_t iteration) {
  for (size_t i = 0; i < trace.events().size(); ++i) {
    const TraceEvent& e = trace.events()[i];
    if (e.name == name && e.category == category && e.iteration == iteration)
      return static_cast<int>(i);
  }
  return -1;
}

std::optional<std::string> DrawFrame(ImGuiHarness& h, TimelineView& view,
                                     FrameStats* stats = nullptr) {
  std::optional<std::string> result;
  FrameStats s = h.Frame([&] {
    auto clicked = view.Draw("timeline");
    if (clicked) result = clicked;
  });
  if (stats) *stats = s;
  return result;
}

std::optional<std::string> ClickAt(ImGuiHarness& h, TimelineView& view, float x, float y) {
  std::optional<std::string> result;
  h.Click(x, y, [&] {
    auto clicked = view.Draw("timeline");
    if (clicked) result = clicked;
  });
  for (int i = 0; i < 30; ++i) DrawFrame(h, view);  // past the double-click time
  return result;
}

// Clicks the middle of event `index` as drawn now.
std::optional<std::string> ClickEvent(ImGuiHarness& h, TimelineView& view, int index) {
  auto rect = view.EventRect(index);
  EXPECT_TRUE(rect.has_value()) << index;
  if (!rect) return std::nullopt;
  return ClickAt(h, view, (rect->x0 + rect->x1) / 2, (rect->y0 + rect->y1) / 2);
}

bool DrewColor(ImU32 color) {
  ImDrawData* data = ImGui::GetDrawData();
  for (int i = 0; data != nullptr && i < data->CmdListsCount; ++i) {
    for (const ImDrawVert& v : data->CmdLists[i]->VtxBuffer) {
      if (v.col == color) return true;
    }
  }
  return false;
}

TEST(TimelineViewTest, FitAllSpansTheTraceAndDrawsEveryEvent) {
  ImGuiHarness h;
  TimelineView view;
  EXPECT_FALSE(view.has_trace());
  Trace trace = SmallTrace();
  view.SetTrace(trace, "small");
  EXPECT_TRUE(view.has_trace());
  EXPECT_LE(view.view_start_ns(), trace.start_ns());
  EXPECT_GE(view.view_end_ns(), trace.end_ns());
  EXPECT_LE(view.view_end_ns() - view.view_start_ns(), trace.duration_ns() * 103 / 100);
  // Five tracks with events, one lane each.
  EXPECT_EQ(view.lane_count(), 5);
  FrameStats stats;
  EXPECT_EQ(DrawFrame(h, view, &stats), std::nullopt);
  EXPECT_GT(stats.vertices, 0);
  EXPECT_GT(view.plot_width(), 800);
  // At this zoom every event is several pixels wide: each is its own box.
  EXPECT_EQ(view.last_drawn_events(), static_cast<int>(trace.events().size()));
  EXPECT_EQ(view.highlighted_events(), 0);
  EXPECT_TRUE(DrewColor(kLoopColor));
  for (size_t i = 0; i < trace.events().size(); ++i) {
    auto rect = view.EventRect(static_cast<int>(i));
    ASSERT_TRUE(rect.has_value());
    EXPECT_GE(rect->x0, view.plot_x());
    EXPECT_LE(rect->x1, view.plot_x() + view.plot_width());
    EXPECT_GT(rect->x1 - rect->x0, 2);
  }
  // Tracks are rows in display order, grouped by process: runs, thread 0, worker 0,
  // worker 1 of the CPU, then the GPU stream.
  auto y_of = [&](std::string_view name, std::string_view category) {
    return view.EventRect(IndexOf(trace, name, category, 0))->y0;
  };
  EXPECT_LT(y_of("run 0", profiler::kCategoryRun), y_of("fusion_0", profiler::kCategoryKernel));
  EXPECT_LT(y_of("fusion_0", profiler::kCategoryKernel),
            y_of("fusion_0", profiler::kCategoryShard));
  EXPECT_LT(y_of("fusion_0", profiler::kCategoryShard), y_of("fusion_1", profiler::kCategoryShard));
  EXPECT_LT(y_of("fusion_1", profiler::kCategoryShard), y_of("dot_0", profiler::kCategoryKernel));
  EXPECT_EQ(y_of("copy", profiler::kCategoryHost), y_of("fusion_0", profiler::kCategoryKernel));

  // ZoomTo shows exactly the span asked for.
  view.ZoomTo(kBase + 100'000, kBase + 150'000);
  EXPECT_EQ(view.view_start_ns(), kBase + 100'000);
  EXPECT_EQ(view.view_end_ns(), kBase + 150'000);
  DrawFrame(h, view);
  EXPECT_LT(view.last_drawn_events(), static_cast<int>(trace.events().size()));
  EXPECT_GT(view.last_drawn_events(), 0);
  view.FitAll();
  EXPECT_LE(view.view_start_ns(), trace.start_ns());
  EXPECT_GE(view.view_end_ns(), trace.end_ns());
}

TEST(TimelineViewTest, WheelZoomsAroundTheCursor) {
  ImGuiHarness h;
  TimelineView view;
  view.SetTrace(SmallTrace(), "small");
  DrawFrame(h, view);
  const float x = std::floor(view.plot_x() + view.plot_width() * 0.3f);  // ImGui floors it
  h.MoveMouse(x, 200);
  DrawFrame(h, view);
  const double anchor = view.XToTime(x);
  const int64_t span = view.view_end_ns() - view.view_start_ns();
  h.Wheel(1);
  DrawFrame(h, view);
  const int64_t zoomed = view.view_end_ns() - view.view_start_ns();
  EXPECT_NEAR(static_cast<double>(zoomed), span / 1.25, 2);
  EXPECT_NEAR(view.XToTime(x), anchor, 1);
  for (int i = 0; i < 5; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  EXPECT_NEAR(static_cast<double>(view.view_end_ns() - view.view_start_ns()),
              span / std::pow(1.25, 6), 2);
  EXPECT_NEAR(view.XToTime(x), anchor, 1);
  EXPECT_LT(view.view_start_ns(), static_cast<int64_t>(anchor));
  EXPECT_GT(view.view_end_ns(), static_cast<int64_t>(anchor));
  h.Wheel(-6);
  DrawFrame(h, view);
  EXPECT_NEAR(static_cast<double>(view.view_end_ns() - view.view_start_ns()), span, 4);
  // Zooming in stops at the minimum span.
  for (int i = 0; i < 100; ++i) {
    h.Wheel(1);
    DrawFrame(h, view);
  }
  EXPECT_NEAR(static_cast<double>(view.view_end_ns() - view.view_start_ns()),
              TimelineView::kMinSpanNs, 1);
  // Shift+wheel pans instead of zooming.
  view.FitAll();
  DrawFrame(h, view);
  const int64_t start = view.view_start_ns();
  h.SetShift(true);
  h.Wheel(-1);
  DrawFrame(h, view);
  h.SetShift(false);
  EXPECT_EQ(view.view_end_ns() - view.view_start_ns(), span);
  EXPECT_GT(view.view_start_ns(), start);
}

TEST(TimelineViewTest, DraggingPansWithoutSelecting) {
  ImGuiHarness h;
  TimelineView view;
  Trace trace = SmallTrace();
  view.SetTrace(trace, "small");
  view.ZoomTo(kBase + 100'000, kBase + 200'000);
  DrawFrame(h, view);
  const int index = IndexOf(trace, "fusion_4", profiler::kCategoryKernel, 0);
  auto rect = view.EventRect(index);
  ASSERT_TRUE(rect.has_value());
  const float x = (rect->x0 + rect->x1) / 2, y = (rect->y0 + rect->y1) / 2;
  const double per_px = 100'000.0 / view.plot_width();
  h.MoveMouse(x, y);
  DrawFrame(h, view);
  h.SetMouseButton(0, true);
  DrawFrame(h, view);
  std::optional<std::string> clicked;
  for (int step = 1; step <= 5; ++step) {
    h.MoveMouse(x + 20 * step, y);
    if (auto r = DrawFrame(h, view)) clicked = r;
  }
  h.SetMouseButton(0, false);
  if (auto r = DrawFrame(h, view)) clicked = r;
  EXPECT_EQ(clicked, std::nullopt);
  EXPECT_EQ(view.selection(), "");
  EXPECT_NEAR(static_cast<double>(view.view_start_ns()), kBase + 100'000 - 100 * per_px, 2);
  EXPECT_EQ(view.view_end_ns() - view.view_start_ns(), 100'000);
  // The event moved with the mouse.
  auto moved = view.EventRect(index);
  EXPECT_NEAR(moved->x0, rect->x0 + 100, 0.05);
  // Panning is limited: the view's centre stays on the trace.
  h.SetMouseButton(0, true);
  DrawFrame(h, view);
  h.MoveMouse(x + 20000, y);
  DrawFrame(h, view);
  h.SetMouseButton(0, false);
  DrawFrame(h, view);
  EXPECT_EQ(view.view_start_ns() + 50'000, trace.start_ns());
}

TEST(TimelineViewTest, ClickingAnEventReturnsItsHloOrName) {
  ImGuiHarness h;
  TimelineView view;
  Trace trace = SmallTrace();
  view.SetTrace(trace, "small");
  DrawFrame(h, view);
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "fusion_3", profiler::kCategoryKernel, 1)),
            "fusion.3");
  EXPECT_EQ(view.selection(), "fusion.3");
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "fusion_6", profiler::kCategoryShard, 0)),
            "fusion.6");
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "dot_2", profiler::kCategoryKernel, 0)), "dot.2");
  // No HLO: the name.
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "copy", profiler::kCategoryHost, 0)), "copy");
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "run 1", profiler::kCategoryRun, 1)), "run 1");
  EXPECT_EQ(view.selection(), "run 1");
  // Hovering shows the event's tooltip; empty space and the label column select nothing.
  auto rect = view.EventRect(IndexOf(trace, "dot_4", profiler::kCategoryKernel, 0));
  h.MoveMouse((rect->x0 + rect->x1) / 2, (rect->y0 + rect->y1) / 2);
  DrawFrame(h, view);
  EXPECT_EQ(view.hovered_event(), IndexOf(trace, "dot_4", profiler::kCategoryKernel, 0));
  EXPECT_EQ(ClickAt(h, view, view.plot_x() + view.plot_width() - 3, rect->y0 + 3), std::nullopt);
  EXPECT_EQ(ClickAt(h, view, view.plot_x() - 50, rect->y0 + 3), std::nullopt);
  EXPECT_EQ(view.selection(), "run 1");
}

TEST(TimelineViewTest, SelectionHighlightsItsEvents) {
  ImGuiHarness h;
  TimelineView view;
  Trace trace = SmallTrace();
  view.SetTrace(trace, "small");
  view.SetSelection("fusion.3");
  EXPECT_EQ(view.selected_event_count(), 4);  // a kernel and a shard in each iteration
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 4);
  EXPECT_TRUE(DrewColor(kHighlight));
  // Only the first iteration in view.
  view.ZoomTo(kBase, kBase + 300'000);
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 2);
  view.FitAll();
  view.SetSelection("dot.2");
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 1);
  view.SetSelection("copy");  // by name
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 2);
  view.SetSelection("nothing runs this");
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 0);
  EXPECT_FALSE(DrewColor(kHighlight));
  EXPECT_TRUE(DrewColor(kLoopColor));  // nothing matches: nothing is dimmed
  view.SetSelection("fusion.1");       // kLoop: the unselected kLoop kernels are dimmed
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 4);
  EXPECT_TRUE(DrewColor(kLoopColor));
  view.SetSelection("");
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 0);
  EXPECT_FALSE(DrewColor(kHighlight));
  // The selection is kept for the next trace.
  view.SetSelection("dot.4");
  view.SetTrace(SmallTrace(), "again");
  DrawFrame(h, view);
  EXPECT_EQ(view.highlighted_events(), 1);
}

TEST(TimelineViewTest, NestedEventsGoToDeeperLanes) {
  Trace trace;
  const int track = trace.AddTrack("CPU", "thread 0");
  trace.AddEvent(Event("outer", "", "", profiler::kCategoryHost, track, kBase, kBase + 100'000));
  trace.AddEvent(
      Event("a", "a.1", "add", profiler::kCategoryKernel, track, kBase + 10'000, kBase + 40'000));
  trace.AddEvent(
      Event("b", "b.1", "add", profiler::kCategoryKernel, track, kBase + 50'000, kBase + 90'000));
  trace.AddEvent(Event("inner", "inner.1", "exp", profiler::kCategoryKernel, track, kBase + 60'000,
                       kBase + 70'000));
  trace.SortEvents();
  ImGuiHarness h;
  TimelineView view;
  view.SetTrace(trace, "nested");
  EXPECT_EQ(view.lane_count(), 3);
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_events(), 4);
  auto rect = [&](std::string_view name, std::string_view category) {
    return *view.EventRect(IndexOf(trace, name, category, 0));
  };
  EXPECT_LT(rect("outer", profiler::kCategoryHost).y0, rect("a", profiler::kCategoryKernel).y0);
  EXPECT_EQ(rect("a", profiler::kCategoryKernel).y0, rect("b", profiler::kCategoryKernel).y0);
  EXPECT_LT(rect("b", profiler::kCategoryKernel).y0, rect("inner", profiler::kCategoryKernel).y0);
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "inner", profiler::kCategoryKernel, 0)), "inner.1");
  EXPECT_EQ(ClickEvent(h, view, IndexOf(trace, "outer", profiler::kCategoryHost, 0)), "outer");
}

// 100k events on four tracks: 200-700 ns kernels with 100-400 ns gaps, every 100th
// running the instruction "hot".
Trace BigTrace() {
  Trace trace;
  uint64_t state = 12345;
  auto next = [&](int lo, int hi) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + static_cast<int>((state >> 33) % static_cast<uint64_t>(hi - lo));
  };
  for (int t = 0; t < 4; ++t) {
    const int track = trace.AddTrack("CPU", "worker " + std::to_string(t));
    int64_t time = kBase;
    for (int i = 0; i < 25'000; ++i) {
      time += next(100, 400);
      const int64_t end = time + next(200, 700);
      const bool hot = i % 100 == 7;
      trace.AddEvent(Event(hot ? "hot_kernel" : "k" + std::to_string(i % 37),
                           hot ? "hot" : "op." + std::to_string(i % 37),
                           i % 3 ? "fusion(kLoop)" : "fusion(kInput)", profiler::kCategoryKernel,
                           track, time, end));
      time = end;
    }
  }
  trace.SortEvents();
  return trace;
}

TEST(TimelineViewTest, HundredThousandEventsDrawAsAboutOneBoxPerPixel) {
  Trace trace = BigTrace();
  ASSERT_EQ(trace.events().size(), 100'000u);
  ImGuiHarness h;
  TimelineView view;
  auto start = std::chrono::steady_clock::now();
  view.SetTrace(trace, "big");
  double set_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  view.SetSelection("hot");
  EXPECT_EQ(view.selected_event_count(), 1000);
  FrameStats stats;
  DrawFrame(h, view, &stats);
  start = std::chrono::steady_clock::now();
  constexpr int kFrames = 20;
  for (int i = 0; i < kFrames; ++i) DrawFrame(h, view, &stats);
  double frame_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      kFrames;
  std::cout << "100k events: SetTrace " << set_ms << " ms; fitted frame " << frame_ms << " ms, "
            << view.last_drawn_events() << " boxes, " << stats.vertices << " vertices\n";
  const int columns = static_cast<int>(view.plot_width());
  EXPECT_EQ(view.lane_count(), 4);
  EXPECT_GT(view.last_drawn_events(), 4);
  EXPECT_LE(view.last_drawn_events(), columns * 4 + 4);
  EXPECT_LT(stats.vertices, 65536);
  // Every selected event is still counted and outlined, merged or not.
  EXPECT_EQ(view.highlighted_events(), 1000);
  EXPECT_TRUE(DrewColor(kHighlight));

  // Clicking a merged box zooms into it (and selects nothing).
  const int first = 0;
  auto rect = view.EventRect(first);
  ASSERT_TRUE(rect.has_value());
  const int64_t span = view.view_end_ns() - view.view_start_ns();
  EXPECT_EQ(ClickAt(h, view, rect->x0 + 0.5f, (rect->y0 + rect->y1) / 2), std::nullopt);
  EXPECT_LT(view.view_end_ns() - view.view_start_ns(), span / 10);
  EXPECT_EQ(view.selection(), "hot");

  // Zoomed in to 20 µs: events are drawn one by one, a few dozen per track.
  const TraceEvent& middle = trace.events()[50'000];
  view.ZoomTo(middle.start_ns - 10'000, middle.start_ns + 10'000);
  DrawFrame(h, view, &stats);
  EXPECT_GT(view.last_drawn_events(), 4 * 20);
  EXPECT_LT(view.last_drawn_events(), 4 * 80);
  EXPECT_LT(view.highlighted_events(), 10);
  // and a click there selects: every event of that instruction in view is outlined.
  ASSERT_NE(middle.hlo, "hot");
  EXPECT_EQ(ClickEvent(h, view, 50'000), middle.hlo);
  int in_view = 0, in_trace = 0;
  for (const TraceEvent& e : trace.events()) {
    if (e.hlo != middle.hlo) continue;
    ++in_trace;
    in_view += e.end_ns > view.view_start_ns() && e.start_ns < view.view_end_ns();
  }
  EXPECT_GE(in_view, 1);
  EXPECT_EQ(view.highlighted_events(), in_view);
  EXPECT_EQ(view.selected_event_count(), in_trace);
}

TEST(TimelineViewTest, EmptyTracesDraw) {
  ImGuiHarness h;
  TimelineView view;
  EXPECT_EQ(DrawFrame(h, view), std::nullopt);
  EXPECT_EQ(view.last_drawn_events(), 0);
  EXPECT_EQ(ClickAt(h, view, 600, 400), std::nullopt);
  view.FitAll();
  view.ZoomTo(10, 5);
  view.SetSelection("x");
  DrawFrame(h, view);
  EXPECT_FALSE(view.EventRect(0).has_value());

  Trace empty;
  empty.AddTrack("CPU", "thread 0");  // a track but no events
  view.SetTrace(empty, "empty");
  EXPECT_TRUE(view.has_trace());
  h.Wheel(1);
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_events(), 0);
  EXPECT_EQ(view.lane_count(), 0);

  view.SetTrace(SmallTrace(), "small");
  DrawFrame(h, view);
  EXPECT_GT(view.last_drawn_events(), 0);
  view.Clear();
  EXPECT_FALSE(view.has_trace());
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_events(), 0);
  EXPECT_EQ(view.highlighted_events(), 0);

  // One zero-length event.
  Trace point;
  point.AddEvent(
      Event("tick", "", "", profiler::kCategoryHost, point.AddTrack("CPU", "host"), kBase, kBase));
  view.SetTrace(point, "point");
  EXPECT_LT(view.view_start_ns(), kBase);
  EXPECT_GT(view.view_end_ns(), kBase);
  DrawFrame(h, view);
  EXPECT_EQ(view.last_drawn_events(), 1);
}

TEST(TimelineViewTest, ClickingAProcessHeaderFoldsIt) {
  ImGuiHarness h;
  TimelineView view;
  Trace trace = SmallTrace();
  view.SetTrace(trace, "small");
  DrawFrame(h, view);
  const int run = IndexOf(trace, "run 0", profiler::kCategoryRun, 0);
  const int dot = IndexOf(trace, "dot_0", profiler::kCategoryKernel, 0);
  auto run_rect = view.EventRect(run);
  auto dot_rect = view.EventRect(dot);
  ASSERT_TRUE(run_rect && dot_rect);
  // The CPU's header is the row just above its first track ("runs").
  const float header_y = run_rect->y0 - 5;
  EXPECT_EQ(ClickAt(h, view, view.plot_x() - 100, header_y), std::nullopt);
  EXPECT_FALSE(view.EventRect(run).has_value());
  auto folded_dot = view.EventRect(dot);
  ASSERT_TRUE(folded_dot.has_value());
  EXPECT_LT(folded_dot->y0, dot_rect->y0);  // the GPU moved up
  EXPECT_EQ(view.last_drawn_events(), 5);   // the GPU's dots only
  EXPECT_EQ(ClickAt(h, view, view.plot_x() - 100, header_y), std::nullopt);
  EXPECT_TRUE(view.EventRect(run).has_value());
  EXPECT_EQ(view.last_drawn_events(), static_cast<int>(trace.events().size()));
}

TEST(TimelineViewTest, KeysZoomAndPan) {
  ImGuiHarness h;
  TimelineView view;
  view.SetTrace(SmallTrace(), "small");
  DrawFrame(h, view);
  h.MoveMouse(view.plot_x() + view.plot_width() / 2, 300);
  DrawFrame(h, view);
  const int64_t span = view.view_end_ns() - view.view_start_ns();
  h.SetKey('W', true);
  for (int i = 0; i < 30; ++i) DrawFrame(h, view);  // half a second
  h.SetKey('W', false);
  EXPECT_NEAR(static_cast<double>(view.view_end_ns() - view.view_start_ns()), span / 2.0,
              span * 0.01);
  const int64_t start = view.view_start_ns();
  h.SetKey('D', true);
  for (int i = 0; i < 10; ++i) DrawFrame(h, view);
  h.SetKey('D', false);
  EXPECT_GT(view.view_start_ns(), start);
  h.SetKey('F', true);
  DrawFrame(h, view);
  h.SetKey('F', false);
  EXPECT_EQ(view.view_end_ns() - view.view_start_ns(), span);
}

TEST(TimelineViewTest, ProfiledRunOfTheMnistStep) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/mnist_train_step.hlo");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_FALSE(parsed->modules.empty());
  const Module& module = *parsed->modules.front();
  if (TooBigForThisBuild(module)) GTEST_SKIP() << "too slow under the sanitizers";
  auto args = interpreter::RandomArguments(module, 42);
  ASSERT_TRUE(args.ok()) << args.status().message();
  session::ProfiledRunOptions options;
  options.backend = "cpu";
  options.fused = true;
  options.iterations = 2;
  options.threads = 2;
  auto run = session::RunProfiled(module, *args, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Trace& trace = run->trace;
  ASSERT_FALSE(trace.Kernels().empty());

  ImGuiHarness h;
  TimelineView view;
  view.SetTrace(trace, "mnist_train_step (cpu, fused)");
  DrawFrame(h, view);
  EXPECT_LE(view.view_start_ns(), trace.start_ns());
  EXPECT_GE(view.view_end_ns(), trace.end_ns());
  EXPECT_GT(view.last_drawn_events(), 0);
  EXPECT_LE(view.last_drawn_events(), static_cast<int>(trace.events().size()));
  int widest = -1;
  for (size_t i = 0; i < trace.events().size(); ++i) {
    const TraceEvent& e = trace.events()[i];
    if (!e.is_kernel()) continue;
    auto rect = view.EventRect(static_cast<int>(i));
    ASSERT_TRUE(rect.has_value()) << e.name;
    EXPECT_GE(rect->x0, view.plot_x() - 0.01f) << e.name;
    EXPECT_LE(rect->x1, view.plot_x() + view.plot_width() + 0.01f) << e.name;
    if (widest < 0 || e.duration_ns() > trace.events()[widest].duration_ns())
      widest = static_cast<int>(i);
  }
  ASSERT_GE(widest, 0);
  const TraceEvent& kernel = trace.events()[widest];
  ASSERT_FALSE(kernel.hlo.empty());
  // Zoom to the longest kernel and click it.
  view.ZoomTo(kernel.start_ns, kernel.end_ns);
  DrawFrame(h, view);
  EXPECT_EQ(ClickEvent(h, view, widest), kernel.hlo);
  EXPECT_GE(view.highlighted_events(), 1);
  view.FitAll();
  DrawFrame(h, view);
  // Once per iteration at least (its shards may match too).
  EXPECT_GE(view.highlighted_events(), 2);
}

}  // namespace
}  // namespace fusebox::viewers
