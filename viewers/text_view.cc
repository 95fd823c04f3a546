// The stage text pane: an ImGuiListClipper-driven renderer that lays out only the visible
// lines and, of those, only the visible columns; the definition index (scanned by
// text_definitions.cc, built on first use); search and keys. The per-language tokenizers
// are in text_tokenizers.cc.
#include "viewers/text_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "viewers/text_scan_internal.h"

namespace fusebox::viewers {

using namespace text_internal;

namespace {

// Token colours, tuned for ImGui's dark theme.
constexpr ImU32 kTokenColours[] = {
    IM_COL32(220, 220, 220, 255),  // kText (replaced by the style's text colour)
    IM_COL32(198, 120, 221, 255),  // kKeyword
    IM_COL32(97, 175, 239, 255),   // kName
    IM_COL32(86, 182, 194, 255),   // kType
    IM_COL32(209, 154, 102, 255),  // kNumber
    IM_COL32(152, 195, 121, 255),  // kString
    IM_COL32(110, 118, 129, 255),  // kComment
    IM_COL32(229, 192, 123, 255),  // kOpcode
    IM_COL32(120, 220, 120, 255),  // kAdded
    IM_COL32(240, 110, 110, 255),  // kRemoved
    IM_COL32(224, 128, 150, 255),  // kRegister
};

constexpr ImU32 kHighlightFirst = IM_COL32(255, 200, 60, 56);
constexpr ImU32 kHighlightOther = IM_COL32(90, 160, 255, 36);
constexpr ImU32 kCursorLine = IM_COL32(255, 255, 255, 18);
constexpr ImU32 kMatch = IM_COL32(255, 230, 0, 70);
constexpr ImU32 kCurrentMatch = IM_COL32(255, 140, 0, 170);
constexpr ImU32 kAddedLine = IM_COL32(60, 170, 60, 45);
constexpr ImU32 kRemovedLine = IM_COL32(200, 60, 60, 45);
constexpr ImU32 kGutterBackground = IM_COL32(0, 0, 0, 40);

// GLFW's key codes for the keys ImGui 1.86 has no ImGuiKey for (the backend writes
// io.KeysDown[GLFW_KEY_*]; letters are their ASCII capitals).
constexpr int kGlfwKeyF3 = 292;

}  // namespace

int DecimalDigits(int64_t n) {
  int d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

uint32_t TokenColor(TokenKind kind) {
  if (kind == TokenKind::kText && ImGui::GetCurrentContext() != nullptr) {
    return ImGui::GetColorU32(ImGuiCol_Text);
  }
  return kTokenColours[static_cast<int>(kind)];
}

void DrawColouredLine(ImDrawList* draw_list, float x, float y, float char_width,
                      std::string_view line, const std::vector<Token>& tokens, float clip_min_x,
                      float clip_max_x) {
  if (line.empty() || char_width <= 0) return;
  const int first_col = std::max(0, static_cast<int>(std::floor((clip_min_x - x) / char_width)));
  const float last = std::ceil((clip_max_x - x) / char_width) + 1;
  if (last <= static_cast<float>(first_col)) return;
  const int last_col =
      last > static_cast<float>(INT_MAX / 2) ? INT_MAX / 2 : static_cast<int>(last);
  ImFont* font = ImGui::GetFont();
  const float font_size = ImGui::GetFontSize();
  std::string run;
  int run_col = -1;
  TokenKind run_kind = TokenKind::kText;
  auto flush = [&] {
    if (!run.empty()) {
      draw_list->AddText(font, font_size, ImVec2(x + static_cast<float>(run_col) * char_width, y),
                         TokenColor(run_kind), run.data(), run.data() + run.size());
    }
    run.clear();
    run_col = -1;
  };
  size_t token = 0;
  size_t i = 0;
  int col = 0;
  while (i < line.size() && col < last_col) {
    while (token < tokens.size() && tokens[token].end <= static_cast<int>(i)) ++token;
    const TokenKind kind = token < tokens.size() && tokens[token].begin <= static_cast<int>(i)
                               ? tokens[token].kind
                               : TokenKind::kText;
    int width = 1;
    const int len = CellAt(line, i, col, &width);
    if (col + width > first_col) {
      if (run_col >= 0 && kind != run_kind) flush();
      if (run_col < 0) {
        run_col = col;
        run_kind = kind;
      }
      const auto byte = static_cast<unsigned char>(line[i]);
      if (byte == '\t') {
        run.append(static_cast<size_t>(width), ' ');
      } else if (byte < 0x20 || byte == 0x7F || (byte >= 0x80 && Utf8Length(line, i) == 0)) {
        run.push_back('?');  // control characters and bytes that are not UTF-8
      } else {
        run.append(line.substr(i, static_cast<size_t>(len)));
      }
    }
    col += width;
    i += static_cast<size_t>(len);
  }
  flush();
}

// ---------------------------------------------------------------------------------------
// TextView: text, lines, definitions

void TextView::SetText(std::string text, TextLanguage language) {
  if (language == language_ && text == text_) return;
  text_ = std::move(text);
  language_ = language;
  line_starts_.clear();
  max_columns_ = 0;
  const char* data = text_.data();
  const size_t size = text_.size();
  line_starts_.reserve(static_cast<size_t>(std::count(text_.begin(), text_.end(), '\n')) + 1);
  size_t start = 0;
  while (start < size) {
    line_starts_.push_back(static_cast<int64_t>(start));
    const void* newline = std::memchr(data + start, '\n', size - start);
    const size_t end =
        newline ? static_cast<size_t>(static_cast<const char*>(newline) - data) : size;
    // Bytes bound the columns from above, except for tabs.
    const size_t tabs = static_cast<size_t>(std::count(data + start, data + end, '\t'));
    const size_t columns = end - start + tabs * (kTabWidth - 1);
    max_columns_ =
        static_cast<int>(std::min<size_t>(std::max<size_t>(max_columns_, columns), INT_MAX / 4));
    start = end + 1;
  }
  definitions_built_ = false;
  definitions_.clear();
  definition_slots_.clear();
  cursor_line_ = -1;
  context_line_ = -1;
  context_target_.reset();
  hover_line_ = -1;
  scroll_to_line_ = -1;
  scroll_to_column_ = -1;
  pending_scroll_y_ = -1;
  scroll_to_top_ = true;
  last_visible_ = {0, 0};
  RecomputeMatches();
  if (!matches_.empty()) current_match_ = 0;
  RecomputeHighlight();
  scroll_to_highlight_ = highlight_first_line_ >= 0;
}

std::string_view TextView::Line(int line) const { return Lines().Line(line); }

// The index is a flat open-addressing table over a vector of entries whose names view
// text_; each slot keeps the name's hash, so a probe reads a name only when the hashes
// agree. The lines are scanned first into candidates, then inserted with the slots of the
// candidates a little ahead prefetched: a million definitions cost about a third of what
// they did one by one (a node-based map spent most of a second on them).
int TextView::SlotOf(std::string_view name, size_t hash) const {
  const size_t mask = definition_slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(hash >> 32);
  size_t slot = hash & mask;
  while (true) {
    const DefinitionSlot& s = definition_slots_[slot];
    if (s.entry < 0) break;
    if (s.tag == tag && definitions_[static_cast<size_t>(s.entry)].name == name) break;
    slot = (slot + 1) & mask;
  }
  return static_cast<int>(slot);
}

void TextView::BuildDefinitions() const {
  definitions_.clear();
  definition_slots_.clear();
  definitions_built_ = true;
  const std::vector<Definition> candidates = ScanDefinitions(Lines(), language_);
  size_t slots = 64;
  while (slots < candidates.size() * 2) slots *= 2;
  definition_slots_.assign(slots, DefinitionSlot{});
  definitions_.reserve(candidates.size());
  std::vector<size_t> hashes(candidates.size());
  for (size_t k = 0; k < candidates.size(); ++k) {
    hashes[k] = std::hash<std::string_view>()(candidates[k].name);
  }
  constexpr size_t kAhead = 16;
  const size_t mask = slots - 1;
  for (size_t k = 0; k < candidates.size(); ++k) {
    if (k + kAhead < candidates.size())
      __builtin_prefetch(&definition_slots_[hashes[k + kAhead] & mask]);
    const Definition& candidate = candidates[k];
    DefinitionSlot& slot =
        definition_slots_[static_cast<size_t>(SlotOf(candidate.name, hashes[k]))];
    if (slot.entry < 0) {
      slot = DefinitionSlot{static_cast<uint32_t>(hashes[k] >> 32),
                            static_cast<int>(definitions_.size())};
      definitions_.push_back(candidate);
    } else if (candidate.rank < definitions_[static_cast<size_t>(slot.entry)].rank) {
      definitions_[static_cast<size_t>(slot.entry)] = candidate;  // a body over a prototype
    }
  }
}

int TextView::FindDefinition(std::string_view name) const { return DefinitionRange(name).first; }

std::pair<int, int> TextView::DefinitionRange(std::string_view name) const {
  if (!definitions_built_) BuildDefinitions();
  name = StripSigil(name);
  if (name.empty()) return {-1, -1};
  const int entry =
      definition_slots_[static_cast<size_t>(SlotOf(name, std::hash<std::string_view>()(name)))]
          .entry;
  if (entry < 0) return {-1, -1};
  const Definition& d = definitions_[static_cast<size_t>(entry)];
  return {d.line, std::max(d.line, d.end)};
}

std::optional<TextView::Target> TextView::TargetAt(int line, int column) const {
  string_view l = Line(line);
  if (column < 0 || column >= Size(l)) return std::nullopt;
  for (const Token& t : Tokenize(l, language_)) {
    if (column < t.begin || column >= t.end) continue;
    if (t.kind != TokenKind::kName) return std::nullopt;
    string_view name =
        StripSigil(l.substr(static_cast<size_t>(t.begin), static_cast<size_t>(t.end - t.begin)));
    if (name.empty()) return std::nullopt;
    Target target;
    target.name = std::string(name);
    target.token = t;
    target.line = FindDefinition(name);
    target.global = target.line >= 0;
    // An LLVM %local: its definition in the enclosing function comes first, since the
    // same "%5" is defined in every function.
    if (language_ == TextLanguage::kLlvmIr && l[static_cast<size_t>(t.begin)] == '%') {
      int local = FindLlvmLocalDefinition(Lines(), name, line);
      if (local >= 0) {
        target.line = local;
        target.global = false;
      }
    }
    return target;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// TextView: highlight, scrolling, search

void TextView::SetHighlight(const std::vector<std::string>& names) {
  highlight_names_ = names;
  RecomputeHighlight();
  scroll_to_highlight_ = highlight_first_line_ >= 0;
}

void TextView::RecomputeHighlight() {
  highlight_ranges_.clear();
  highlight_first_line_ = -1;
  for (const std::string& name : highlight_names_) {
    std::pair<int, int> range = DefinitionRange(name);
    if (range.first < 0) continue;
    if (std::find(highlight_ranges_.begin(), highlight_ranges_.end(), range) !=
        highlight_ranges_.end()) {
      continue;
    }
    highlight_ranges_.push_back(range);
  }
  if (!highlight_ranges_.empty()) highlight_first_line_ = highlight_ranges_.front().first;
}

void TextView::ScrollToLine(int line) {
  if (line_count() == 0) return;
  scroll_to_line_ = std::clamp(line, 0, line_count() - 1);
  scroll_to_column_ = -1;
}

void TextView::SetSearch(std::string query) {
  query.erase(
      std::remove_if(query.begin(), query.end(), [](char c) { return c == '\n' || c == '\r'; }),
      query.end());
  search_ = std::move(query);
  const size_t copied = std::min(search_.size(), sizeof(search_buffer_) - 1);
  std::memcpy(search_buffer_, search_.data(), copied);
  search_buffer_[copied] = '\0';
  if (!search_.empty()) search_open_ = true;
  RecomputeMatches();
  if (matches_.empty()) return;
  // The first match at or below the top of the view, as editors do.
  const int top = last_visible_.first;
  auto it = std::lower_bound(matches_.begin(), matches_.end(), top,
                             [](const Match& m, int line) { return m.line < line; });
  current_match_ = it == matches_.end() ? 0 : static_cast<int>(it - matches_.begin());
  scroll_to_line_ = matches_[static_cast<size_t>(current_match_)].line;
  scroll_to_column_ = matches_[static_cast<size_t>(current_match_)].column;
}

void TextView::RecomputeMatches() {
  matches_.clear();
  current_match_ = -1;
  if (search_.empty()) return;
  std::string lower(search_.size(), '\0');
  std::transform(search_.begin(), search_.end(), lower.begin(), ToLower);
  auto equal = [](char a, char b) { return ToLower(a) == b; };
  for (int i = 0; i < line_count(); ++i) {
    string_view l = Line(i);
    auto from = l.begin();
    while (true) {
      auto found = std::search(from, l.end(), lower.begin(), lower.end(), equal);
      if (found == l.end()) break;
      matches_.push_back(Match{i, static_cast<int>(found - l.begin())});
      from = found + static_cast<std::ptrdiff_t>(lower.size());
    }
  }
}

void TextView::NextMatch(int direction) {
  if (matches_.empty()) return;
  const int n = match_count();
  if (current_match_ < 0) {
    current_match_ = direction >= 0 ? 0 : n - 1;
  } else {
    current_match_ = ((current_match_ + (direction >= 0 ? 1 : -1)) % n + n) % n;
  }
  scroll_to_line_ = matches_[static_cast<size_t>(current_match_)].line;
  scroll_to_column_ = matches_[static_cast<size_t>(current_match_)].column;
}

std::string TextView::search_status() const {
  if (search_.empty()) return "";
  if (matches_.empty()) return "no matches";
  return std::to_string(current_match_ + 1) + " of " + std::to_string(matches_.size());
}

std::pair<int, int> TextView::match_position(int index) const {
  if (index < 0 || index >= match_count()) return {-1, -1};
  const Match& m = matches_[static_cast<size_t>(index)];
  return {m.line, m.column};
}

void TextView::CloseSearch() {
  search_open_ = false;
  focus_search_ = false;
  search_.clear();  // the box keeps its text for Ctrl+F to bring back
  matches_.clear();
  current_match_ = -1;
}

std::optional<TextView::ScreenRect> TextView::CharRect(int line, int column) const {
  if (line < last_visible_.first || line >= last_visible_.second || line_height_ <= 0 ||
      column < 0 || column > static_cast<int>(Line(line).size())) {
    return std::nullopt;
  }
  const float x = origin_x_ + static_cast<float>(ColumnOfByte(Line(line), column)) * char_width_;
  if (x < text_clip_min_x_ - 0.5f || x + char_width_ > text_clip_max_x_ + 0.5f) return std::nullopt;
  const float y = origin_y_ + static_cast<float>(line) * line_height_;
  return ScreenRect{x, y, x + char_width_, y + line_height_};
}

void TextView::CopyToClipboard(const std::string& text) const {
  ImGui::SetClipboardText(text.c_str());
}

// ---------------------------------------------------------------------------------------
// TextView: drawing

void TextView::HandleKeys() {
  ImGuiIO& io = ImGui::GetIO();
  if (!pane_focused_ && !search_active_) return;
  if (io.KeyCtrl && ImGui::IsKeyPressed('F', false)) {  // GLFW_KEY_F
    search_open_ = true;
    focus_search_ = true;
    if (search_.empty() && search_buffer_[0] != '\0') SetSearch(search_buffer_);
  }
  if (search_open_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
    CloseSearch();
  }
  if (ImGui::IsKeyPressed(kGlfwKeyF3)) NextMatch(io.KeyShift ? -1 : 1);
  if (!pane_focused_) return;  // the rest belongs to the search box while it is active
  if (search_open_ && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter))) {
    NextMatch(io.KeyShift ? -1 : 1);
  }
  if (io.KeyCtrl && ImGui::IsKeyPressed('C', false) && cursor_line_ >= 0) {  // GLFW_KEY_C
    CopyToClipboard(std::string(Line(cursor_line_)));
  }
  const float page = std::max(line_height_, view_height_ - line_height_);
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageDown)))
    pending_scroll_y_ = scroll_y_ + page;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_PageUp))) {
    pending_scroll_y_ = std::max(0.0f, scroll_y_ - page);
  }
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Home), false)) pending_scroll_y_ = 0;
  if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_End), false)) {
    pending_scroll_y_ = static_cast<float>(line_count()) * std::max(1.0f, line_height_);
  }
}

void TextView::DrawSearchBar() {
  ImGuiIO& io = ImGui::GetIO();
  if (focus_search_) {
    ImGui::SetKeyboardFocusHere();
    focus_search_ = false;
  }
  ImGui::SetNextItemWidth(
      std::min(320.0f, std::max(80.0f, ImGui::GetContentRegionAvail().x * 0.5f)));
  const bool enter =
      ImGui::InputTextWithHint("##find", "find (case-insensitive)", search_buffer_,
                               sizeof(search_buffer_), ImGuiInputTextFlags_EnterReturnsTrue);
  const bool edited = ImGui::IsItemEdited();
  search_active_ = ImGui::IsItemActive();
  if (edited) SetSearch(search_buffer_);
  if (enter) {
    NextMatch(io.KeyShift ? -1 : 1);
    // Enter ends a single-line edit in ImGui; keep typing in the box.
    ImGui::SetKeyboardFocusHere(-1);
    search_active_ = true;
  }
  ImGui::SameLine();
  std::string status = search_status();
  if (matches_.empty() && !search_.empty()) {
    ImGui::TextColored(ImVec4(0.95f, 0.45f, 0.45f, 1.0f), "%s", status.c_str());
  } else {
    ImGui::TextUnformatted(status.c_str());
  }
  ImGui::SameLine();
  if (ImGui::ArrowButton("##previous", ImGuiDir_Up)) NextMatch(-1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Previous match (Shift+Enter)");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next", ImGuiDir_Down)) NextMatch(1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Next match (Enter, F3)");
  ImGui::SameLine();
  if (ImGui::SmallButton("x")) CloseSearch();
}

TextView::FrameLayout TextView::MeasureFrame() const {
  FrameLayout f;
  f.line_h = ImGui::GetTextLineHeightWithSpacing();
  f.font_h = ImGui::GetFontSize();
  // The glyph advance itself: CalcTextSize rounds widths up to whole pixels, which would
  // drift tokens apart by a fraction of a pixel per character.
  f.char_w = std::max(1.0f, ImGui::GetFont()->GetCharAdvance('M') * ImGui::GetFontSize() /
                                ImGui::GetFont()->FontSize);
  const float cw = f.char_w;
  f.pad = std::floor(cw * 0.5f) + 2;
  f.gutter_w = static_cast<float>(std::max(3, DecimalDigits(line_count())) + 1) * cw + f.pad;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  f.content_w = f.gutter_w + f.pad + static_cast<float>(max_columns_ + 2) * cw;
  f.content_h = static_cast<float>(line_count()) * f.line_h;
  const bool h_scrollbar = f.content_w > avail.x;
  f.view_h = std::max(f.line_h, avail.y - (h_scrollbar ? ImGui::GetStyle().ScrollbarSize : 0.0f));
  f.text_w = std::max(cw, avail.x - f.gutter_w - f.pad);
  f.text_dy = (f.line_h - f.font_h) * 0.5f;
  return f;
}

// Scroll requests go in before BeginChild so they apply in this frame (ImGui's
// SetNextWindowScroll, with the explicit content size making the scroll range known).
void TextView::RequestScroll(const FrameLayout& frame) {
  const float line_h = frame.line_h;
  const float view_h = frame.view_h;
  float target_x = -1;
  float target_y = -1;
  if (scroll_to_top_) {
    target_x = 0;
    target_y = 0;
    scroll_to_top_ = false;
  }
  const float current_y = target_y >= 0 ? target_y : scroll_y_;
  auto line_visible = [&](int line) {
    const float y = static_cast<float>(line) * line_h;
    return y >= current_y && y + line_h <= current_y + view_h;
  };
  if (pending_scroll_y_ >= 0) {
    target_y = pending_scroll_y_;
    pending_scroll_y_ = -1;
  }
  if (scroll_to_highlight_ && !highlight_ranges_.empty()) {
    const auto [first, last] = highlight_ranges_.front();
    if (!line_visible(first) ||
        !line_visible(std::min(last, first + static_cast<int>(view_h / line_h) - 2))) {
      target_y = std::max(0.0f, static_cast<float>(first - 2) * line_h);
    }
  }
  scroll_to_highlight_ = false;
  if (scroll_to_line_ >= 0 && scroll_to_line_ < line_count()) {
    if (!line_visible(scroll_to_line_)) {
      target_y =
          std::max(0.0f, static_cast<float>(scroll_to_line_) * line_h - (view_h - line_h) * 0.5f);
    }
    if (scroll_to_column_ >= 0) {
      const float x =
          static_cast<float>(ColumnOfByte(Line(scroll_to_line_), scroll_to_column_)) * frame.char_w;
      const float current_x = target_x >= 0 ? target_x : scroll_x_;
      if (x < current_x || x + frame.char_w * 8 > current_x + frame.text_w) {
        target_x = std::max(0.0f, x - frame.text_w / 3);
      }
    }
  }
  scroll_to_line_ = -1;
  scroll_to_column_ = -1;
  if (target_x >= 0 || target_y >= 0) ImGui::SetNextWindowScroll(ImVec2(target_x, target_y));
}

void TextView::RecordGeometry(const FrameLayout& frame, const ImRect& inner) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  scroll_x_ = ImGui::GetScrollX();
  scroll_y_ = ImGui::GetScrollY();
  line_height_ = frame.line_h;
  char_width_ = frame.char_w;
  gutter_width_ = frame.gutter_w;
  origin_y_ = origin.y;
  origin_x_ = origin.x + frame.gutter_w + frame.pad;
  text_clip_min_x_ = inner.Min.x + frame.gutter_w;
  text_clip_max_x_ = inner.Max.x;
  view_height_ = inner.GetHeight();
  view_width_ = std::max(0.0f, inner.GetWidth() - frame.gutter_w);
}

TextView::MouseTarget TextView::FindMouseTarget(const FrameLayout& frame, bool hovered) const {
  MouseTarget mouse;
  mouse.hovered = hovered;
  const ImVec2 pos = ImGui::GetIO().MousePos;
  if (hovered) {
    mouse.line = static_cast<int>(std::floor((pos.y - origin_y_) / frame.line_h));
    if (mouse.line < 0 || mouse.line >= line_count()) mouse.line = -1;
  }
  if (mouse.line >= 0 && pos.x >= text_clip_min_x_) {
    const int col = static_cast<int>(std::floor((pos.x - origin_x_) / frame.char_w));
    if (col >= 0) mouse.name = TargetAt(mouse.line, ByteAtColumn(Line(mouse.line), col));
  }
  return mouse;
}

// Behind line `i`'s text: diff colours, highlighted blocks, the cursor line, search matches.
void TextView::DrawLineBackground(ImDrawList* draw_list, const FrameLayout& frame, int i,
                                  std::string_view line, float y) const {
  const float line_h = frame.line_h;
  const ImVec2 row_min(text_clip_min_x_, y);
  const ImVec2 row_max(text_clip_max_x_, y + line_h);
  if (language_ == TextLanguage::kDiff) {
    if (StartsWith(line, "+") && !StartsWith(line, "+++")) {
      draw_list->AddRectFilled(row_min, row_max, kAddedLine);
    } else if (StartsWith(line, "-") && !StartsWith(line, "---")) {
      draw_list->AddRectFilled(row_min, row_max, kRemovedLine);
    }
  }
  for (size_t r = 0; r < highlight_ranges_.size(); ++r) {
    if (i >= highlight_ranges_[r].first && i <= highlight_ranges_[r].second) {
      draw_list->AddRectFilled(row_min, row_max, r == 0 ? kHighlightFirst : kHighlightOther);
    }
  }
  if (i == cursor_line_) draw_list->AddRectFilled(row_min, row_max, kCursorLine);
  if (matches_.empty()) return;
  const float cw = frame.char_w;
  const size_t query_size = search_.size();
  auto it = std::lower_bound(matches_.begin(), matches_.end(), i,
                             [](const Match& m, int l) { return m.line < l; });
  for (; it != matches_.end() && it->line == i; ++it) {
    const float x0 = origin_x_ + static_cast<float>(ColumnOfByte(line, it->column)) * cw;
    const float x1 =
        origin_x_ +
        static_cast<float>(ColumnOfByte(line, it->column + static_cast<int>(query_size))) * cw;
    const bool current = it - matches_.begin() == current_match_;
    draw_list->AddRectFilled(ImVec2(x0, y), ImVec2(std::max(x1, x0 + 2), y + line_h),
                             current ? kCurrentMatch : kMatch);
  }
}

// The clipper's lines: background, coloured text, and the underline of a name the mouse
// is over that leads somewhere. Returns the line ranges drawn.
std::vector<std::pair<int, int>> TextView::DrawVisibleLines(ImDrawList* draw_list,
                                                            const FrameLayout& frame,
                                                            const MouseTarget& mouse) {
  const float cw = frame.char_w;
  const std::optional<Target>& hover = mouse.name;
  std::vector<std::pair<int, int>> drawn;
  ImGuiListClipper clipper;
  clipper.Begin(line_count(), frame.line_h);
  while (clipper.Step()) {
    drawn.emplace_back(clipper.DisplayStart, clipper.DisplayEnd);
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const string_view line = Line(i);
      const float y = origin_y_ + static_cast<float>(i) * frame.line_h;
      DrawLineBackground(draw_list, frame, i, line, y);
      if (!line.empty()) {
        DrawColouredLine(draw_list, origin_x_, y + frame.text_dy, cw, line,
                         Tokenize(line, language_), text_clip_min_x_, text_clip_max_x_);
      }
      if (hover && hover->line >= 0 && i == mouse.line) {
        const float x0 =
            origin_x_ + static_cast<float>(ColumnOfByte(line, hover->token.begin)) * cw;
        const float x1 = origin_x_ + static_cast<float>(ColumnOfByte(line, hover->token.end)) * cw;
        const float underline = y + frame.text_dy + frame.font_h;
        draw_list->AddLine(ImVec2(x0, underline), ImVec2(x1, underline),
                           TokenColor(TokenKind::kName), 1.0f);
      }
    }
  }
  if (drawn.empty()) {
    last_visible_ = {0, 0};
  } else {
    last_visible_ = {drawn.front().first, drawn.front().second};
    for (const auto& [begin, end] : drawn) {
      last_visible_.first = std::min(last_visible_.first, begin);
      last_visible_.second = std::max(last_visible_.second, end);
    }
  }
  return drawn;
}

// Line numbers, in the gutter that does not scroll sideways.
void TextView::DrawLineNumbers(ImDrawList* draw_list, const FrameLayout& frame, float gutter_x,
                               const std::vector<std::pair<int, int>>& drawn) const {
  const ImU32 number_colour = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 current_colour = ImGui::GetColorU32(ImGuiCol_Text);
  char number[16];
  for (const auto& [begin, end] : drawn) {
    for (int i = begin; i < end; ++i) {
      const int len = std::snprintf(number, sizeof(number), "%d", i + 1);
      const float x =
          gutter_x + frame.gutter_w - frame.pad - static_cast<float>(len) * frame.char_w;
      bool strong = i == cursor_line_;
      for (const auto& range : highlight_ranges_) strong |= i >= range.first && i <= range.second;
      draw_list->AddText(
          ImVec2(x, origin_y_ + static_cast<float>(i) * frame.line_h + frame.text_dy),
          strong ? current_colour : number_colour, number, number + len);
    }
  }
}

// The hand and, after half a second still, the definition's line as a tooltip over a name
// that leads somewhere.
void TextView::TrackHover(const MouseTarget& mouse) {
  const std::optional<Target>& hover = mouse.name;
  if (hover && hover->line >= 0) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    if (hover_line_ == mouse.line && hover_begin_ == hover->token.begin) {
      hover_time_ += ImGui::GetIO().DeltaTime;
    } else {
      hover_line_ = mouse.line;
      hover_begin_ = hover->token.begin;
      hover_time_ = 0;
    }
    if (hover_time_ > 0.5f && hover->line != mouse.line && !ImGui::IsMouseDown(0)) {
      std::string definition(Trim(Line(hover->line)).substr(0, 160));
      ImGui::SetTooltip("line %d: %s", hover->line + 1, definition.c_str());
    }
  } else {
    hover_line_ = -1;
    hover_begin_ = -1;
    hover_time_ = 0;
  }
}

void TextView::GoTo(const Target& target, std::optional<std::string>* clicked) {
  if (target.line < 0) return;
  cursor_line_ = target.line;
  scroll_to_line_ = target.line;
  scroll_to_column_ = 0;
  if (target.global) *clicked = target.name;
}

// A left click sets the cursor line and follows a name; a right click opens the menu.
void TextView::HandleClicks(const MouseTarget& mouse, std::optional<std::string>* clicked) {
  if (mouse.hovered && ImGui::IsMouseClicked(0)) {
    if (mouse.line >= 0) cursor_line_ = mouse.line;
    if (mouse.name) GoTo(*mouse.name, clicked);
  }
  if (mouse.hovered && ImGui::IsMouseClicked(1) && mouse.line >= 0) {
    cursor_line_ = mouse.line;
    context_line_ = mouse.line;
    context_target_ = mouse.name;
    ImGui::OpenPopup("##context");
  }
}

void TextView::DrawContextMenu(std::optional<std::string>* clicked) {
  if (!ImGui::BeginPopup("##context")) return;
  const std::string name = context_target_ ? context_target_->name : "";
  if (ImGui::MenuItem("Copy line", "Ctrl+C", false, context_line_ >= 0)) {
    CopyToClipboard(std::string(Line(context_line_)));
  }
  if (ImGui::MenuItem("Copy name", nullptr, false, !name.empty())) {
    CopyToClipboard(name);
  }
  if (ImGui::MenuItem("Go to definition", nullptr, false,
                      context_target_ && context_target_->line >= 0)) {
    GoTo(*context_target_, clicked);
  }
  if (ImGui::MenuItem("Find name", "Ctrl+F", false, !name.empty())) {
    SetSearch(name);
    focus_search_ = true;
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Copy all", nullptr, false, !text_.empty())) CopyToClipboard(text_);
  ImGui::EndPopup();
}

std::optional<std::string> TextView::Draw(const char* id) {
  ImGui::PushID(id);
  HandleKeys();
  if (search_open_) {
    DrawSearchBar();
  } else {
    search_active_ = false;
  }
  const FrameLayout frame = MeasureFrame();
  RequestScroll(frame);
  ImGui::SetNextWindowContentSize(ImVec2(frame.content_w, frame.content_h));
  ImGui::BeginChild("##text", ImVec2(0, 0), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoNavInputs);

  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  pane_focused_ = ImGui::IsWindowFocused();
  const ImRect inner = window->InnerRect;  // the visible area, without scrollbars
  RecordGeometry(frame, inner);
  // What the mouse is over: a line, and on it maybe a name.
  const MouseTarget mouse =
      FindMouseTarget(frame, ImGui::IsWindowHovered() && inner.Contains(ImGui::GetIO().MousePos));

  draw_list->AddRectFilled(inner.Min, ImVec2(inner.Min.x + frame.gutter_w, inner.Max.y),
                           kGutterBackground);
  draw_list->PushClipRect(ImVec2(text_clip_min_x_, inner.Min.y), inner.Max, true);
  const std::vector<std::pair<int, int>> drawn = DrawVisibleLines(draw_list, frame, mouse);
  draw_list->PopClipRect();
  DrawLineNumbers(draw_list, frame, inner.Min.x, drawn);

  // The mouse: hand and definition tooltip over a name that leads somewhere, click to go.
  std::optional<std::string> clicked;
  TrackHover(mouse);
  HandleClicks(mouse, &clicked);
  DrawContextMenu(&clicked);
  ImGui::EndChild();
  ImGui::PopID();
  return clicked;
}

}  // namespace fusebox::viewers
