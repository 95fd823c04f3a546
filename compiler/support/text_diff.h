// Line diffs of stage text (a module before and after a pass, XLA's stage against
// Fusebox's), computed as Myers' O(ND) shortest edit script (text_diff.cc). The result keeps every line with its kind and both line numbers, so a
// viewer can draw it side by side or unified, and groups changes into hunks with context.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

struct DiffLine {
  enum class Kind { kSame, kAdded, kRemoved };
  Kind kind = Kind::kSame;
  std::string text;
  int64_t old_line = 0;  // 1-based; 0 for added lines
  int64_t new_line = 0;  // 1-based; 0 for removed lines
};

struct DiffHunk {
  int64_t old_start = 0, old_count = 0;
  int64_t new_start = 0, new_count = 0;
  std::vector<DiffLine> lines;  // context and changes, in order
};

struct TextDiff {
  std::vector<DiffLine> lines;  // the whole edit script, every line of both sides
  std::vector<DiffHunk> hunks;  // changes with `context` lines around them
  int64_t added = 0;
  int64_t removed = 0;
  bool identical() const { return added == 0 && removed == 0; }
  // `diff -u` style text with ---/+++ headers and @@ hunk headers.
  std::string Unified(const std::string& from_label, const std::string& to_label) const;
};

TextDiff DiffText(std::string_view before, std::string_view after, int context = 3);

// Splits text into lines (without the newlines); a trailing newline adds no empty line.
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace fusebox
