// Line diffs over dtl's shortest edit script.
#include "compiler/support/text_diff.h"

#include <dtl/dtl.hpp>

#include <algorithm>

namespace fusebox {

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

TextDiff DiffText(std::string_view before, std::string_view after, int context) {
  TextDiff diff;
  std::vector<std::string> a = SplitLines(before);
  std::vector<std::string> b = SplitLines(after);
  dtl::Diff<std::string, std::vector<std::string>> d(a, b);
  if (a.size() + b.size() > 20000) d.onHuge();
  d.compose();
  int64_t old_line = 0, new_line = 0;
  for (const auto& [text, info] : d.getSes().getSequence()) {
    DiffLine line;
    line.text = text;
    switch (info.type) {
      case dtl::SES_COMMON:
        line.kind = DiffLine::Kind::kSame;
        line.old_line = ++old_line;
        line.new_line = ++new_line;
        break;
      case dtl::SES_DELETE:
        line.kind = DiffLine::Kind::kRemoved;
        line.old_line = ++old_line;
        ++diff.removed;
        break;
      case dtl::SES_ADD:
        line.kind = DiffLine::Kind::kAdded;
        line.new_line = ++new_line;
        ++diff.added;
        break;
    }
    diff.lines.push_back(std::move(line));
  }
  // In each run of changes, removed lines first, then added ones (as diff -u shows them).
  for (size_t i = 0; i < diff.lines.size();) {
    if (diff.lines[i].kind == DiffLine::Kind::kSame) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < diff.lines.size() && diff.lines[j].kind != DiffLine::Kind::kSame) ++j;
    std::stable_partition(diff.lines.begin() + static_cast<std::ptrdiff_t>(i),
                          diff.lines.begin() + static_cast<std::ptrdiff_t>(j),
                          [](const DiffLine& l) { return l.kind == DiffLine::Kind::kRemoved; });
    i = j;
  }
  // Hunks: runs of changes joined when fewer than 2 * context unchanged lines separate them.
  const int64_t n = static_cast<int64_t>(diff.lines.size());
  int64_t i = 0;
  context = std::max(0, context);
  while (i < n) {
    if (diff.lines[i].kind == DiffLine::Kind::kSame) {
      ++i;
      continue;
    }
    int64_t start = std::max<int64_t>(0, i - context);
    int64_t end = i;  // one past the last change of the hunk
    int64_t j = i;
    while (j < n) {
      if (diff.lines[j].kind != DiffLine::Kind::kSame) {
        end = j + 1;
        ++j;
        continue;
      }
      int64_t same = 0;
      while (j + same < n && diff.lines[j + same].kind == DiffLine::Kind::kSame) ++same;
      if (j + same < n && same <= 2 * context) {
        j += same;
        continue;
      }
      break;
    }
    int64_t stop = std::min(n, end + context);
    DiffHunk hunk;
    for (int64_t k = start; k < stop; ++k) {
      const DiffLine& line = diff.lines[k];
      if (line.kind != DiffLine::Kind::kAdded) {
        if (hunk.old_count++ == 0) hunk.old_start = line.old_line;
      }
      if (line.kind != DiffLine::Kind::kRemoved) {
        if (hunk.new_count++ == 0) hunk.new_start = line.new_line;
      }
      hunk.lines.push_back(line);
    }
    // An empty side starts where it would be inserted (diff -u's convention).
    if (hunk.old_count == 0) {
      for (int64_t k = start; k >= 0; --k) {
        if (diff.lines[k].old_line) {
          hunk.old_start = diff.lines[k].old_line;
          break;
        }
      }
    }
    if (hunk.new_count == 0) {
      for (int64_t k = start; k >= 0; --k) {
        if (diff.lines[k].new_line) {
          hunk.new_start = diff.lines[k].new_line;
          break;
        }
      }
    }
    diff.hunks.push_back(std::move(hunk));
    i = stop;
  }
  return diff;
}

std::string TextDiff::Unified(const std::string& from_label, const std::string& to_label) const {
  std::string out = "--- " + from_label + "\n+++ " + to_label + "\n";
  for (const DiffHunk& h : hunks) {
    out += "@@ -" + std::to_string(h.old_start) + "," + std::to_string(h.old_count) + " +" +
           std::to_string(h.new_start) + "," + std::to_string(h.new_count) + " @@\n";
    for (const DiffLine& line : h.lines) {
      out += line.kind == DiffLine::Kind::kSame ? ' ' : line.kind == DiffLine::Kind::kAdded ? '+' : '-';
      out += line.text;
      out += '\n';
    }
  }
  return out;
}

}  // namespace fusebox
