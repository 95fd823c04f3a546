// The diff of two stage texts (the module before and after a pass, XLA's optimized HLO
// against Fusebox's), side by side or unified, drawn with Dear ImGui in a clipped list:
// removed lines red, added green, line numbers of both sides, "next change" navigation.
// Side by side, a run of removed lines and the added lines after it share rows (the first
// removed line beside the first added one, ...), and the bytes that differ between the two
// are marked darker. With the diff focused (a click in it), F7 / Shift+F7 (GLFW's 296) go
// to the next / previous change.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/support/text_diff.h"
#include "viewers/text_view.h"

namespace fusebox::viewers {

class DiffView {
 public:
  enum class Mode { kSideBySide, kUnified };

  void SetTexts(std::string_view before, std::string_view after, std::string before_title,
                std::string after_title, TextLanguage language = TextLanguage::kHlo);
  const TextDiff& diff() const { return diff_; }
  void SetMode(Mode mode);
  Mode mode() const { return mode_; }
  // Only changed lines and `context` lines around them (true), or every line.
  void SetChangesOnly(bool changes_only);
  bool changes_only() const { return changes_only_; }
  // Scrolls to the next / previous change (applied at the next Draw); wraps around.
  void NextChange(int direction = 1);

  // Draws the toolbar (mode, changes-only, next/previous, counts) and the diff.
  void Draw(const char* id);

  // One drawn row. Side by side: `left` is a removed or unchanged line (nullptr for a
  // filler), `right` an added or unchanged line. Unified: `left` is the line, `right` is
  // nullptr. A hunk header ("@@ -a,b +c,d @@", changes-only mode) has both nullptr and
  // `hunk` set.
  struct Row {
    const DiffLine* left = nullptr;
    const DiffLine* right = nullptr;
    int hunk = -1;
    bool changed() const;
  };
  // The rows for the current mode (built on demand).
  const std::vector<Row>& rows() const;
  int row_count() const { return static_cast<int>(rows().size()); }
  // Changes: runs of changed rows; each is navigated to as one.
  int change_count() const { return static_cast<int>(ChangeRows().size()); }
  int current_change() const { return current_change_; }
  // The first row of change `index`, -1 when out of range.
  int change_row(int index) const;
  // For tests: rows drawn by the last Draw (the clipper's visible range).
  std::pair<int, int> last_visible_rows() const { return last_visible_; }

 private:
  void EnsureRows() const;
  void RowsChanged();
  // Draw's steps.
  void DrawToolbar();
  void DrawTitles() const;
  void RequestScroll(float line_h, float avail_h);
  const std::vector<int>& ChangeRows() const;

  TextDiff diff_;
  std::string before_title_;
  std::string after_title_;
  TextLanguage language_ = TextLanguage::kHlo;
  Mode mode_ = Mode::kSideBySide;
  bool changes_only_ = false;
  int scroll_to_row_ = -1;
  bool reset_scroll_ = false;
  int current_change_ = -1;
  bool focused_ = false;  // the rows child had keyboard focus in the last frame
  int max_columns_ = 0;   // an upper bound on the widest line's display columns
  std::pair<int, int> last_visible_{0, 0};
  float scroll_y_ = 0;
  float view_height_ = 0;

  // Rows for (built_mode_, built_changes_only_); rebuilt when either changes.
  mutable bool rows_valid_ = false;
  mutable Mode built_mode_ = Mode::kSideBySide;
  mutable bool built_changes_only_ = false;
  mutable std::vector<Row> rows_;
  mutable std::vector<int> change_rows_;
};

}  // namespace fusebox::viewers
