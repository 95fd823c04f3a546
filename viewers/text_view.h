// A read-only text pane for stage text (HLO, LLVM IR, PTX, x86 assembly, diffs) drawn
// with Dear ImGui: line numbers, syntax colours per language, a clipped list so files of
// any size scroll smoothly, Ctrl+F search, click a name (%operand, @function, kernel) to
// jump to its definition, and highlighted blocks for the names linked to the selection
// (an instruction, its fusion, the LLVM function and the PTX kernel that run it).
// View state only; the text is a copy the pane indexes once.
//
// Input, when the pane has keyboard focus (a click in its text) or its search box is
// active: Ctrl+F opens the search bar, Enter / F3 go to the next match and Shift+Enter /
// Shift+F3 to the previous one, Escape closes the bar, Ctrl+C copies the clicked line,
// PageUp / PageDown / Home / End scroll. Keys are read as the app's GLFW backend feeds
// ImGui 1.86: mapped keys through ImGui::GetKeyIndex, letters by their GLFW codes (which
// are their ASCII capitals: 'F', 'C'), F3 as GLFW_KEY_F3 (292). A left click on a name
// that has a definition jumps there; a right click opens a menu (copy line, copy name,
// go to definition, find the name). SASS (cuobjdump / nvdisasm text) is read as assembly:
// its /*addr*/ comments, registers and "Function : name" blocks. The languages and their
// tokenizers are in text_tokenizers.h, the definition scanners in text_definitions.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "viewers/text_definitions.h"
#include "viewers/text_tokenizers.h"

struct ImDrawList;
struct ImRect;

namespace fusebox::viewers {

// The RGBA colour (ImU32) a token kind is drawn with.
uint32_t TokenColor(TokenKind kind);
// Draws `line` coloured by `tokens` in the current font: column 0 at screen x `x`, top at
// `y`, one column `char_width` wide. Only the columns between `clip_min_x` and
// `clip_max_x` are laid out, so a line of megabytes costs no vertices off screen. Invalid
// UTF-8 and control characters show as '?'.
void DrawColouredLine(ImDrawList* draw_list, float x, float y, float char_width,
                      std::string_view line, const std::vector<Token>& tokens, float clip_min_x,
                      float clip_max_x);

// Decimal digits of n >= 0 (line-number gutters size themselves with it).
int DecimalDigits(int64_t n);

class TextView {
 public:
  // Screen rectangle, as of the last Draw.
  struct ScreenRect {
    float min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  };

  // Indexes the line starts once. Setting the same text and language again keeps the view
  // as it is (scroll, search, click); new text keeps the search query and the highlighted
  // names (their blocks are found again in the new text) and scrolls to the top.
  void SetText(std::string text, TextLanguage language);
  const std::string& text() const { return text_; }
  TextLanguage language() const { return language_; }
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  std::string_view Line(int line) const;  // 0-based, without the newline (or "\r\n")

  // Where `name` is defined (0-based line), -1 when it is not: HLO "%name = " or
  // "name = " (also "ENTRY %name" / "%name (" for computations), LLVM IR
  // "define ... @name(", PTX ".entry name(" / ".func ... name(", assembly "name:".
  // A leading sigil ('%', '@') on `name` is ignored. Also found, after those: LLVM
  // "declare"d functions and @globals, PTX labels and .param / .shared / .global variables,
  // local assembly labels (.LBB0_3). The definitions are indexed once, on first use.
  int FindDefinition(std::string_view name) const;
  // The lines a definition spans: one line for an HLO instruction, the body for an HLO
  // computation, an LLVM function, a PTX entry, an assembly function (to the next label
  // that starts a function). {-1, -1} when not found.
  std::pair<int, int> DefinitionRange(std::string_view name) const;

  // Names linked to the selection: their definitions are highlighted (the first name's
  // block brightest) and the view scrolls to the first one found. An empty list clears.
  void SetHighlight(const std::vector<std::string>& names);
  // Scrolls so `line` is visible (applied at the next Draw; centred when it is not).
  void ScrollToLine(int line);
  int first_highlighted_line() const { return highlight_first_line_; }
  // The highlighted blocks (inclusive line ranges), the first name's first.
  const std::vector<std::pair<int, int>>& highlight_ranges() const { return highlight_ranges_; }

  // Search: case-insensitive substring; matches are highlighted, Enter/F3 go to the next
  // one, Shift+Enter to the previous. Ctrl+F in a focused pane opens the bar. A non-empty
  // query opens the bar; the current match becomes the first one at or below the top of the
  // view, and is scrolled into view.
  void SetSearch(std::string query);
  const std::string& search() const { return search_; }
  int match_count() const { return static_cast<int>(matches_.size()); }
  int current_match() const { return current_match_; }
  void NextMatch(int direction = 1);
  bool search_open() const { return search_open_; }
  // The bar's counter: "3 of 17", "no matches", or "" without a query.
  std::string search_status() const;
  // The line and byte column of match `index` (0-based), {-1, -1} when out of range.
  std::pair<int, int> match_position(int index) const;

  // Draws the pane filling the available region. Returns the name the user clicked when it
  // has a definition in this text (the caller selects it everywhere; the view itself jumps
  // to its definition). A click on an LLVM %local or a name without a definition jumps
  // where it can but returns nothing, so it does not clear the caller's selection.
  std::optional<std::string> Draw(const char* id);

  // For tests: lines drawn by the last Draw (the clipper's visible range).
  std::pair<int, int> last_visible_lines() const { return last_visible_; }
  // The screen rectangle of the character at byte `column` of `line` as of the last Draw;
  // nullopt when the line was not drawn, the column is scrolled out of sight or is past
  // the line's end (the end itself gives the place right after the last character).
  std::optional<ScreenRect> CharRect(int line, int column) const;
  // Width of the line-number gutter in the last Draw (text starts right of it).
  float gutter_width() const { return gutter_width_; }
  // The line last clicked (what Ctrl+C copies), -1 when none.
  int cursor_line() const { return cursor_line_; }

 private:
  struct Match {
    int line;
    int column;
  };
  using Definition = TextDefinition;  // names view text_
  void RecomputeMatches();
  void RecomputeHighlight();
  TextLines Lines() const { return TextLines{text_, &line_starts_}; }
  void BuildDefinitions() const;
  struct DefinitionSlot {
    uint32_t tag = 0;  // the high half of the name's hash
    int entry = -1;    // index into definitions_, -1 when empty
  };
  int SlotOf(std::string_view name, size_t hash) const;
  // The name under the mouse and the definition a click would go to.
  struct Target {
    std::string name;
    int line = -1;
    Token token;
    bool global = false;  // defined at module level (FindDefinition), not a local
  };
  std::optional<Target> TargetAt(int line, int column) const;
  void CloseSearch();
  // Draw's steps. The sizes of one frame, in pixels:
  struct FrameLayout {
    float line_h = 0, font_h = 0, char_w = 0, pad = 0;
    float gutter_w = 0;                  // line numbers
    float content_w = 0, content_h = 0;  // the whole text
    float view_h = 0, text_w = 0;        // the visible text area
    float text_dy = 0;                   // text baseline offset within a line
  };
  // What the mouse is over in this frame: the pane, a line, and on it maybe a name.
  struct MouseTarget {
    bool hovered = false;
    int line = -1;
    std::optional<Target> name;
  };
  FrameLayout MeasureFrame() const;
  void RequestScroll(const FrameLayout& frame);
  void RecordGeometry(const FrameLayout& frame, const ImRect& inner);
  MouseTarget FindMouseTarget(const FrameLayout& frame, bool hovered) const;
  std::vector<std::pair<int, int>> DrawVisibleLines(ImDrawList* draw_list, const FrameLayout& frame,
                                                    const MouseTarget& mouse);
  void DrawLineBackground(ImDrawList* draw_list, const FrameLayout& frame, int i,
                          std::string_view line, float y) const;
  void DrawLineNumbers(ImDrawList* draw_list, const FrameLayout& frame, float gutter_x,
                       const std::vector<std::pair<int, int>>& drawn) const;
  void TrackHover(const MouseTarget& mouse);
  void GoTo(const Target& target, std::optional<std::string>* clicked);
  void HandleClicks(const MouseTarget& mouse, std::optional<std::string>* clicked);
  void DrawContextMenu(std::optional<std::string>* clicked);
  void DrawSearchBar();
  void HandleKeys();
  void CopyToClipboard(const std::string& text) const;

  std::string text_;
  TextLanguage language_ = TextLanguage::kPlain;
  std::vector<int64_t> line_starts_;
  int max_columns_ = 0;  // an upper bound on the widest line's display columns
  std::vector<std::pair<int, int>> highlight_ranges_;  // inclusive line ranges
  std::vector<std::string> highlight_names_;
  int highlight_first_line_ = -1;
  bool scroll_to_highlight_ = false;
  int scroll_to_line_ = -1;
  int scroll_to_column_ = -1;  // byte column to bring into view with scroll_to_line_
  bool scroll_to_top_ = false;
  float pending_scroll_y_ = -1;  // PageUp / PageDown / Home / End, applied at the next Draw
  std::string search_;
  bool search_open_ = false;
  bool focus_search_ = false;
  bool search_active_ = false;  // the search box had keyboard focus in the last frame
  bool pane_focused_ = false;   // the text child had keyboard focus in the last frame
  std::vector<Match> matches_;
  int current_match_ = -1;
  std::pair<int, int> last_visible_{0, 0};
  char search_buffer_[256] = {};
  int cursor_line_ = -1;
  std::optional<Target> context_target_;  // the name under a right click, for the menu
  int context_line_ = -1;
  // The name hovered in the last frames and for how long, for the definition tooltip.
  int hover_line_ = -1;
  int hover_begin_ = -1;
  float hover_time_ = 0;

  // Geometry of the last Draw, in screen coordinates.
  float origin_x_ = 0;  // x of column 0 (scrolled)
  float origin_y_ = 0;  // y of line 0 (scrolled)
  float line_height_ = 0;
  float char_width_ = 0;
  float gutter_width_ = 0;
  float text_clip_min_x_ = 0, text_clip_max_x_ = 0;
  float view_height_ = 0;  // visible height of the text area
  float view_width_ = 0;   // visible width of the text area (right of the gutter)
  float scroll_y_ = 0;
  float scroll_x_ = 0;

  // Definitions, indexed on first use (FindDefinition is const).
  mutable bool definitions_built_ = false;
  mutable std::vector<Definition> definitions_;
  mutable std::vector<DefinitionSlot> definition_slots_;
};

}  // namespace fusebox::viewers
