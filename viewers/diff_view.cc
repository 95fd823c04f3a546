// The diff pane: rows built once per mode from DiffText's edit script (or its hunks in
// changes-only mode), drawn through ImGuiListClipper with the text pane's syntax colours.
#include "viewers/diff_view.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

namespace fusebox::viewers {

namespace {

constexpr ImU32 kRemovedBackground = IM_COL32(200, 60, 60, 55);
constexpr ImU32 kAddedBackground = IM_COL32(60, 170, 60, 55);
constexpr ImU32 kRemovedBytes = IM_COL32(230, 70, 70, 90);
constexpr ImU32 kAddedBytes = IM_COL32(70, 200, 70, 90);
constexpr ImU32 kFiller = IM_COL32(128, 128, 128, 22);
constexpr ImU32 kHunkBackground = IM_COL32(90, 140, 230, 40);
constexpr ImU32 kCurrentChange = IM_COL32(255, 200, 60, 160);
constexpr ImU32 kGutterBackground = IM_COL32(0, 0, 0, 40);
const ImVec4 kAddedText(0.47f, 0.86f, 0.47f, 1.0f);
const ImVec4 kRemovedText(0.94f, 0.43f, 0.43f, 1.0f);

// GLFW_KEY_F7; ImGui 1.86 has no ImGuiKey for function keys.
constexpr int kGlfwKeyF7 = 296;

// Side by side: unchanged lines on both sides; in each run of changes, removed lines on the
// left beside the added lines on the right, in order, the shorter side padded.
void AppendSideBySide(const std::vector<DiffLine>& lines, std::vector<DiffView::Row>* rows) {
  size_t i = 0;
  while (i < lines.size()) {
    if (lines[i].kind == DiffLine::Kind::kSame) {
      rows->push_back(DiffView::Row{&lines[i], &lines[i], -1});
      ++i;
      continue;
    }
    std::vector<const DiffLine*> removed, added;
    for (; i < lines.size() && lines[i].kind != DiffLine::Kind::kSame; ++i) {
      (lines[i].kind == DiffLine::Kind::kRemoved ? removed : added).push_back(&lines[i]);
    }
    for (size_t k = 0; k < std::max(removed.size(), added.size()); ++k) {
      rows->push_back(DiffView::Row{k < removed.size() ? removed[k] : nullptr,
                                    k < added.size() ? added[k] : nullptr, -1});
    }
  }
}

void AppendUnified(const std::vector<DiffLine>& lines, std::vector<DiffView::Row>* rows) {
  for (const DiffLine& line : lines) rows->push_back(DiffView::Row{&line, nullptr, -1});
}

// The bytes in which two lines differ: [prefix, a.size() - suffix) of `a` and
// [prefix, b.size() - suffix) of `b`.
std::pair<int, int> DifferingBytes(std::string_view a, std::string_view b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  return {static_cast<int>(prefix), static_cast<int>(suffix)};
}

}  // namespace

bool DiffView::Row::changed() const {
  return (left && left->kind != DiffLine::Kind::kSame) ||
         (right && right->kind != DiffLine::Kind::kSame);
}

void DiffView::SetMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  RowsChanged();
}

void DiffView::SetChangesOnly(bool changes_only) {
  if (changes_only == changes_only_) return;
  changes_only_ = changes_only;
  RowsChanged();
}

// The current change is an index into the rows of one mode: keep it, and keep it in view.
void DiffView::RowsChanged() {
  rows_valid_ = false;
  if (current_change_ < 0) return;
  current_change_ = std::min(current_change_, change_count() - 1);
  scroll_to_row_ = change_row(current_change_);
}

void DiffView::SetTexts(std::string_view before, std::string_view after, std::string before_title,
                        std::string after_title, TextLanguage language) {
  diff_ = DiffText(before, after);
  before_title_ = std::move(before_title);
  after_title_ = std::move(after_title);
  language_ = language;
  rows_valid_ = false;
  rows_.clear();
  change_rows_.clear();
  current_change_ = -1;
  scroll_to_row_ = -1;
  reset_scroll_ = true;
  last_visible_ = {0, 0};
  max_columns_ = 0;
  for (const DiffLine& line : diff_.lines) {
    const size_t tabs = static_cast<size_t>(std::count(line.text.begin(), line.text.end(), '\t'));
    max_columns_ = static_cast<int>(std::min<size_t>(
        std::max<size_t>(static_cast<size_t>(max_columns_), line.text.size() + tabs * 3),
        INT_MAX / 4));
  }
}

void DiffView::EnsureRows() const {
  if (rows_valid_ && built_mode_ == mode_ && built_changes_only_ == changes_only_) return;
  rows_.clear();
  change_rows_.clear();
  if (changes_only_) {
    for (size_t h = 0; h < diff_.hunks.size(); ++h) {
      rows_.push_back(Row{nullptr, nullptr, static_cast<int>(h)});
      if (mode_ == Mode::kSideBySide) {
        AppendSideBySide(diff_.hunks[h].lines, &rows_);
      } else {
        AppendUnified(diff_.hunks[h].lines, &rows_);
      }
    }
  } else if (mode_ == Mode::kSideBySide) {
    AppendSideBySide(diff_.lines, &rows_);
  } else {
    AppendUnified(diff_.lines, &rows_);
  }
  for (size_t r = 0; r < rows_.size(); ++r) {
    if (rows_[r].changed() && (r == 0 || !rows_[r - 1].changed())) {
      change_rows_.push_back(static_cast<int>(r));
    }
  }
  rows_valid_ = true;
  built_mode_ = mode_;
  built_changes_only_ = changes_only_;
}

const std::vector<DiffView::Row>& DiffView::rows() const {
  EnsureRows();
  return rows_;
}

const std::vector<int>& DiffView::ChangeRows() const {
  EnsureRows();
  return change_rows_;
}

int DiffView::change_row(int index) const {
  const std::vector<int>& changes = ChangeRows();
  if (index < 0 || index >= static_cast<int>(changes.size())) return -1;
  return changes[static_cast<size_t>(index)];
}

void DiffView::NextChange(int direction) {
  const int n = change_count();
  if (n == 0) return;
  if (current_change_ < 0 || current_change_ >= n) {
    current_change_ = direction >= 0 ? 0 : n - 1;
  } else {
    current_change_ = ((current_change_ + (direction >= 0 ? 1 : -1)) % n + n) % n;
  }
  scroll_to_row_ = change_row(current_change_);
}

namespace {

// One frame's row geometry, in pixels. Side by side each half has its own gutter and
// shares one horizontal scroll; unified has both line numbers and a sign column.
struct RowGeometry {
  float line_h = 0, font_h = 0, cw = 0, pad = 0, text_dy = 0;
  float number_w = 0;         // one column of line numbers
  float gutter_w = 0;         // line numbers (and the sign) left of the text
  float half_w = 0;           // side by side: each half's width
  float left = 0, right = 0;  // the visible rows' screen x range
  float scroll_x = 0;
};

// Paints rows: line numbers, cells (background, the differing bytes of a changed pair, the
// coloured text), hunk headers.
class RowPainter {
 public:
  RowPainter(ImDrawList* draw_list, const RowGeometry& g, TextLanguage language)
      : draw_list_(draw_list),
        g_(g),
        language_(language),
        number_colour_(ImGui::GetColorU32(ImGuiCol_TextDisabled)),
        text_colour_(ImGui::GetColorU32(ImGuiCol_Text)) {}

  void HunkHeader(const DiffHunk& h, float y) const {
    draw_list_->AddRectFilled(ImVec2(g_.left, y), ImVec2(g_.right, y + g_.line_h), kHunkBackground);
    char header[128];
    const int len =
        std::snprintf(header, sizeof(header), "@@ -%lld,%lld +%lld,%lld @@",
                      static_cast<long long>(h.old_start), static_cast<long long>(h.old_count),
                      static_cast<long long>(h.new_start), static_cast<long long>(h.new_count));
    draw_list_->AddText(ImVec2(g_.left + g_.pad, y + g_.text_dy), TokenColor(TokenKind::kKeyword),
                        header, header + std::clamp(len, 0, static_cast<int>(sizeof(header)) - 1));
  }

  void SideBySide(const DiffView::Row& row, float y) const {
    const float left0 = g_.left;
    const float right0 = g_.left + g_.half_w;
    const float gutter_w = g_.gutter_w;
    const bool pair = row.left && row.right && row.left->kind == DiffLine::Kind::kRemoved &&
                      row.right->kind == DiffLine::Kind::kAdded;
    const bool removed = row.left && row.left->kind == DiffLine::Kind::kRemoved;
    const bool added = row.right && row.right->kind == DiffLine::Kind::kAdded;
    draw_list_->AddRectFilled(ImVec2(left0, y), ImVec2(left0 + gutter_w, y + g_.line_h),
                              kGutterBackground);
    draw_list_->AddRectFilled(ImVec2(right0, y), ImVec2(right0 + gutter_w, y + g_.line_h),
                              kGutterBackground);
    if (row.left) Number(row.left->old_line, left0 + gutter_w - g_.pad, y);
    if (row.right) Number(row.right->new_line, right0 + gutter_w - g_.pad, y);
    Cell(row.left, pair ? row.right : nullptr, left0 + gutter_w, right0 - 1, y,
         removed ? kRemovedBackground : 0, pair ? kRemovedBytes : 0);
    Cell(row.right, pair ? row.left : nullptr, right0 + gutter_w, g_.right, y,
         added ? kAddedBackground : 0, pair ? kAddedBytes : 0);
    draw_list_->AddLine(ImVec2(right0 - 1, y), ImVec2(right0 - 1, y + g_.line_h), number_colour_);
  }

  void Unified(const DiffLine* line, float y) const {
    const float x0 = g_.left;
    const float pad = g_.pad;
    const float number_w = g_.number_w;
    draw_list_->AddRectFilled(ImVec2(x0, y), ImVec2(x0 + g_.gutter_w, y + g_.line_h),
                              kGutterBackground);
    Number(line->old_line, x0 + pad + number_w, y);
    Number(line->new_line, x0 + 2 * pad + 2 * number_w, y);
    const bool removed = line->kind == DiffLine::Kind::kRemoved;
    const bool added = line->kind == DiffLine::Kind::kAdded;
    const char* sign = removed ? "-" : added ? "+" : " ";
    draw_list_->AddText(ImVec2(x0 + 3 * pad + 2 * number_w, y + g_.text_dy),
                        removed ? TokenColor(TokenKind::kRemoved)
                        : added ? TokenColor(TokenKind::kAdded)
                                : text_colour_,
                        sign, sign + 1);
    Cell(line, nullptr, x0 + g_.gutter_w, g_.right, y,
         removed ? kRemovedBackground
         : added ? kAddedBackground
                 : 0,
         0);
  }

 private:
  void Number(int64_t value, float right_x, float y) const {
    if (value <= 0) return;
    char number[32];
    const int len = std::snprintf(number, sizeof(number), "%lld", static_cast<long long>(value));
    draw_list_->AddText(ImVec2(right_x - static_cast<float>(len) * g_.cw, y + g_.text_dy),
                        number_colour_, number, number + len);
  }

  void Cell(const DiffLine* line, const DiffLine* other, float x0, float x1, float y,
            ImU32 background, ImU32 bytes_colour) const {
    const float line_h = g_.line_h;
    if (line == nullptr) {
      draw_list_->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + line_h), kFiller);
      return;
    }
    if (background != 0)
      draw_list_->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + line_h), background);
    const float text_x = x0 + g_.pad - g_.scroll_x;
    draw_list_->PushClipRect(ImVec2(x0, y), ImVec2(x1, y + line_h), true);
    if (other != nullptr && bytes_colour != 0) {
      auto [prefix, suffix] = DifferingBytes(line->text, other->text);
      const int end = static_cast<int>(line->text.size()) - suffix;
      if (end > prefix) {
        const float bx0 = text_x + static_cast<float>(ColumnOfByte(line->text, prefix)) * g_.cw;
        const float bx1 = text_x + static_cast<float>(ColumnOfByte(line->text, end)) * g_.cw;
        draw_list_->AddRectFilled(ImVec2(bx0, y), ImVec2(bx1, y + line_h), bytes_colour);
      }
    }
    DrawColouredLine(draw_list_, text_x, y + g_.text_dy, g_.cw, line->text,
                     Tokenize(line->text, language_), x0, x1);
    draw_list_->PopClipRect();
  }

  ImDrawList* draw_list_;
  const RowGeometry& g_;
  TextLanguage language_;
  ImU32 number_colour_;
  ImU32 text_colour_;
};

}  // namespace

// Mode, changes-only, previous / next change, and the counts.
void DiffView::DrawToolbar() {
  bool side_by_side = mode_ == Mode::kSideBySide;
  if (ImGui::RadioButton("Side by side", side_by_side)) SetMode(Mode::kSideBySide);
  ImGui::SameLine();
  if (ImGui::RadioButton("Unified", !side_by_side)) SetMode(Mode::kUnified);
  ImGui::SameLine();
  bool changes_only = changes_only_;
  if (ImGui::Checkbox("Changes only", &changes_only)) SetChangesOnly(changes_only);
  ImGui::SameLine();
  if (ImGui::ArrowButton("##previous_change", ImGuiDir_Up)) NextChange(-1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Previous change (Shift+F7)");
  ImGui::SameLine();
  if (ImGui::ArrowButton("##next_change", ImGuiDir_Down)) NextChange(1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Next change (F7)");
  ImGui::SameLine();
  if (diff_.identical()) {
    ImGui::TextDisabled("identical");
  } else {
    ImGui::TextColored(kAddedText, "+%lld", static_cast<long long>(diff_.added));
    ImGui::SameLine();
    ImGui::TextColored(kRemovedText, "-%lld", static_cast<long long>(diff_.removed));
    ImGui::SameLine();
    if (current_change_ >= 0) {
      ImGui::TextDisabled("change %d of %d", current_change_ + 1, change_count());
    } else {
      ImGui::TextDisabled("%d change%s", change_count(), change_count() == 1 ? "" : "s");
    }
  }
}

// Titles: which text is which.
void DiffView::DrawTitles() const {
  const ImVec2 avail_top = ImGui::GetContentRegionAvail();
  if (mode_ == Mode::kSideBySide) {
    const float x0 = ImGui::GetCursorPosX();
    ImGui::TextColored(kRemovedText, "%s", before_title_.c_str());
    ImGui::SameLine(x0 + avail_top.x * 0.5f);
    ImGui::TextColored(kAddedText, "%s", after_title_.c_str());
  } else {
    ImGui::TextColored(kRemovedText, "--- %s", before_title_.c_str());
    ImGui::SameLine();
    ImGui::TextColored(kAddedText, "+++ %s", after_title_.c_str());
  }
}

// Scroll requests go in before BeginChild so they apply in this frame.
void DiffView::RequestScroll(float line_h, float avail_h) {
  float target_x = -1;
  float target_y = -1;
  if (reset_scroll_) {  // new texts start at the top left
    target_x = 0;
    target_y = 0;
    scroll_y_ = 0;
    reset_scroll_ = false;
  }
  if (scroll_to_row_ >= 0) {
    const float view_h = std::max(line_h, avail_h - ImGui::GetStyle().ScrollbarSize);
    const float y = static_cast<float>(scroll_to_row_) * line_h;
    if (y < scroll_y_ || y + line_h > scroll_y_ + view_h) target_y = std::max(0.0f, y - view_h / 3);
    scroll_to_row_ = -1;
  }
  if (target_x >= 0 || target_y >= 0) ImGui::SetNextWindowScroll(ImVec2(target_x, target_y));
}

void DiffView::Draw(const char* id) {
  ImGui::PushID(id);
  ImGuiIO& io = ImGui::GetIO();
  EnsureRows();
  DrawToolbar();
  EnsureRows();  // after a mode switched from the toolbar

  if (focused_) {
    if (ImGui::IsKeyPressed(kGlfwKeyF7)) NextChange(io.KeyShift ? -1 : 1);
  }

  RowGeometry g;
  g.line_h = ImGui::GetTextLineHeightWithSpacing();
  g.font_h = ImGui::GetFontSize();
  // The glyph advance itself: CalcTextSize rounds widths up to whole pixels, which would
  // drift tokens apart by a fraction of a pixel per character.
  g.cw = std::max(1.0f, ImGui::GetFont()->GetCharAdvance('M') * ImGui::GetFontSize() /
                            ImGui::GetFont()->FontSize);
  g.pad = std::floor(g.cw * 0.5f) + 2;
  g.text_dy = (g.line_h - g.font_h) * 0.5f;
  int64_t max_line = 1;
  for (const DiffLine& line : diff_.lines)
    max_line = std::max({max_line, line.old_line, line.new_line});
  const int digits = std::max(3, DecimalDigits(max_line));
  g.number_w = static_cast<float>(digits) * g.cw;
  const float text_w = static_cast<float>(max_columns_ + 2) * g.cw;

  DrawTitles();

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  g.half_w = std::floor(avail.x * 0.5f);
  g.gutter_w =
      mode_ == Mode::kSideBySide ? g.number_w + 2 * g.pad : 2 * g.number_w + 3 * g.pad + 2 * g.cw;
  const float visible_text_w =
      mode_ == Mode::kSideBySide ? g.half_w - g.gutter_w : avail.x - g.gutter_w;
  const float content_w = avail.x + std::max(0.0f, text_w - visible_text_w);
  const float content_h = static_cast<float>(rows_.size()) * g.line_h;

  RequestScroll(g.line_h, avail.y);
  ImGui::SetNextWindowContentSize(ImVec2(content_w, content_h));
  ImGui::BeginChild("##rows", ImVec2(0, 0), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoNavInputs);
  focused_ = ImGui::IsWindowFocused();
  ImGuiWindow* window = ImGui::GetCurrentWindow();
  ImDrawList* draw_list = ImGui::GetWindowDrawList();
  const ImRect inner = window->InnerRect;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  g.scroll_x = ImGui::GetScrollX();
  g.left = inner.Min.x;
  g.right = inner.Max.x;
  scroll_y_ = ImGui::GetScrollY();
  view_height_ = inner.GetHeight();
  const RowPainter painter(draw_list, g, language_);
  const int current_row = change_row(current_change_);

  std::vector<std::pair<int, int>> drawn;
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(rows_.size()), g.line_h);
  while (clipper.Step()) {
    drawn.emplace_back(clipper.DisplayStart, clipper.DisplayEnd);
    for (int r = clipper.DisplayStart; r < clipper.DisplayEnd; ++r) {
      const Row& row = rows_[static_cast<size_t>(r)];
      const float y = origin.y + static_cast<float>(r) * g.line_h;
      if (row.hunk >= 0) {
        painter.HunkHeader(diff_.hunks[static_cast<size_t>(row.hunk)], y);
        continue;
      }
      if (mode_ == Mode::kSideBySide) {
        painter.SideBySide(row, y);
      } else {
        painter.Unified(row.left, y);
      }
      if (r == current_row) {  // mark the change navigated to
        draw_list->AddRectFilled(ImVec2(inner.Min.x, y), ImVec2(inner.Min.x + 3, y + g.line_h),
                                 kCurrentChange);
      }
    }
  }
  last_visible_ = {0, 0};
  if (!drawn.empty()) {
    last_visible_ = drawn.front();
    for (const auto& [begin, end] : drawn) {
      last_visible_.first = std::min(last_visible_.first, begin);
      last_visible_.second = std::max(last_visible_.second, end);
    }
  }
  if (rows_.empty()) {
    ImGui::TextDisabled("%s", diff_.identical() ? "The two texts are identical." : "");
  }
  ImGui::EndChild();
  ImGui::PopID();
}

}  // namespace fusebox::viewers
