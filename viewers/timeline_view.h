// A kernel timeline drawn with Dear ImGui's draw lists, the way Tracy and Perfetto draw
// theirs: one track per CPU thread / pool worker / GPU stream (profiler/trace.h), a time
// ruler, events as coloured boxes labelled when wide enough, zoom (wheel, around the
// cursor) and pan (drag), tooltips (kernel, HLO instruction, kind, duration, bytes,
// GB/s), events of the selected instruction highlighted, click an event to select its
// instruction.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/trace.h"

namespace fusebox::viewers {

class TimelineView {
 public:
  void SetTrace(profiler::Trace trace, std::string title);
  void Clear();
  bool has_trace() const { return has_trace_; }
  const profiler::Trace& trace() const { return trace_; }

  // Events whose `hlo` (or kernel name) equals `instruction` are highlighted; the others
  // are dimmed while any event matches. "" clears it.
  void SetSelection(const std::string& instruction);
  const std::string& selection() const { return selection_; }
  int selected_event_count() const { return selected_count_; }  // in the whole trace
  // Show the whole trace (with a 1% margin each side) / exactly [start_ns, end_ns]
  // (at least kMinSpanNs wide). Both take effect at once: view_start_ns() reads back.
  void FitAll();
  void ZoomTo(int64_t start_ns, int64_t end_ns);

  // Draws the timeline filling the available region. Returns the HLO instruction of a
  // clicked event (its kernel name when it has none); the view selects it itself too.
  // Interaction: the wheel zooms around the cursor, Shift+wheel (or a horizontal wheel)
  // pans in time, Ctrl+wheel scrolls the tracks; dragging with the left or middle button
  // pans both ways; W/S zoom and A/D pan while hovered; F or a double-click on empty space
  // fits; a double-click on an event zooms to it; clicking a merged box (sub-pixel events
  // drawn as one) zooms to it; clicking a process header folds its tracks.
  std::optional<std::string> Draw(const char* id);

  // View state, for tests.
  int64_t view_start_ns() const { return view_start_ns_; }
  int64_t view_end_ns() const { return view_end_ns_; }
  int last_drawn_events() const { return last_drawn_events_; }
  int highlighted_events() const { return highlighted_events_; }
  int hovered_event() const { return hovered_event_; }  // index in trace().events(), or -1

  // Geometry of the last Draw, for tests and the caller: the time <-> x mapping of the
  // event area and where an event was (or would be) drawn.
  float plot_x() const { return plot_x_; }
  float plot_width() const { return plot_w_; }
  float TimeToX(double ns) const;
  double XToTime(float x) const;
  struct ScreenRect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  };
  // The event's box in screen pixels (before clipping), nullopt for an event on no row
  // (a folded process, an unknown track) or an out-of-range index.
  std::optional<ScreenRect> EventRect(int event) const;
  int lane_count() const { return static_cast<int>(lanes_.size()); }

  static constexpr double kMinSpanNs = 20;
  static constexpr float kLabelWidth = 170;  // the track-name column

 private:
  // Events of one track that do not overlap: nested or overlapping events go to deeper
  // lanes, so within a lane ends are ordered like starts.
  struct Lane {
    int track = 0;
    int depth = 0;
    bool thin = false;             // "run" events only: a thin bar
    std::vector<int> events;       // indices into trace_.events(), by start time
    std::vector<int64_t> max_end;  // running maximum of their ends, for the culling search
    std::vector<int> selected;     // positions in `events` that match the selection
    float y = 0;                   // from the top of the rows area, unscrolled (LayoutRows)
    float height = 0;              // 0 while its process is folded
  };
  // One row of the left column: a process header or a track with its lanes.
  struct Row {
    bool header = false;
    int process = 0;  // index into processes_
    int track = -1;
    int first_lane = 0;
    int lane_count = 0;
    float y = 0;  // from the top of the rows area, unscrolled
    float height = 0;
  };
  struct Process {
    std::string name;
    bool folded = false;
  };

  void LayoutRows();
  void SetView(double start_ns, double span_ns);
  void ZoomAround(double factor, float screen_x);
  float LaneHeight(const Lane& lane) const;
  // Draw's steps.
  void DrawToolbar();
  bool HandleNavigation(bool hovered, bool active);
  void DrawCursorTime(float top, float right);
  std::optional<std::string> HandleClicks(bool pressed, bool hovered);
  void DrawRuler(float x0, float y0, float x1, float y1);
  // The rows in layers: backgrounds, each lane's events and selection, the label column.
  struct RowsFrame;  // one frame's geometry of the rows (timeline_view.cc)
  void DrawRows(float top, float bottom);
  void DrawRowBackgrounds(const RowsFrame& f);
  int DrawLaneEvents(const RowsFrame& f, const Lane& lane, size_t first, float y0, float y1);
  void DrawEventBox(const RowsFrame& f, int index, float x0, float x1, float y0, float y1,
                    bool mouse_in_lane);
  int DrawLaneSelection(const RowsFrame& f, const Lane& lane, size_t first, float y0,
                        float y1) const;
  void DrawRowLabels(const RowsFrame& f) const;
  void DrawTooltip() const;

  std::vector<Process> processes_;
  std::vector<Lane> lanes_;
  std::vector<Row> rows_;
  std::vector<uint32_t> event_color_;  // per event
  std::vector<int> event_lane_;        // per event, -1 for none
  std::vector<char> event_selected_;   // per event
  int selected_count_ = 0;
  float content_height_ = 0;
  double view_start_ = 0;   // the view in double nanoseconds, so that zooming in steps
  double view_span_ = 1e6;  // does not drift; view_*_ns_ are these rounded
  float scroll_y_ = 0;
  // Last Draw.
  float plot_x_ = 0, plot_w_ = 1, rows_top_ = 0, rows_bottom_ = 0;
  float mouse_x_ = 0, mouse_y_ = 0;
  bool mouse_in_plot_ = false;
  int hovered_event_ = -1;
  // A merged box under the mouse: how many events, and their span.
  int hovered_merged_count_ = 0;
  int64_t hovered_merged_start_ = 0, hovered_merged_end_ = 0;
  int hovered_header_ = -1;  // process whose header row is under the mouse

  profiler::Trace trace_;
  std::string title_;
  bool has_trace_ = false;
  std::string selection_;
  int64_t view_start_ns_ = 0;
  int64_t view_end_ns_ = 0;
  int last_drawn_events_ = 0;
  int highlighted_events_ = 0;
};

}  // namespace fusebox::viewers
