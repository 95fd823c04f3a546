// Where names are defined in stage text: one pass over the lines per language finds HLO
// instructions and computations, LLVM functions, globals and named types, PTX entries,
// labels and state-space variables, assembly functions and labels, each with the lines it
// spans. No ImGui: TextView indexes these on first use and draws with them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "viewers/text_tokenizers.h"

namespace fusebox::viewers {

// A text and where its lines start (line_starts holds the byte offset of each line).
struct TextLines {
  std::string_view text;
  const std::vector<int64_t>* line_starts = nullptr;

  int count() const { return line_starts ? static_cast<int>(line_starts->size()) : 0; }
  // Line `line` (0-based) without its newline (or "\r\n"); empty when out of range.
  std::string_view Line(int line) const;
};

// A name defined in the text: its first line and the last line of its block (inclusive).
struct TextDefinition {
  std::string_view name;  // in the text, without sigils
  int line = -1;
  int end = -1;  // inclusive
  int rank = 0;  // lower wins when a name is defined twice (a body over a prototype)
};

// Every definition in `lines`, in line order (a name may appear more than once; the
// caller keeps the lowest rank). Plain text and diffs define nothing.
std::vector<TextDefinition> ScanDefinitions(const TextLines& lines, TextLanguage language);

// The line defining the LLVM IR %local or label `name` (without its sigil) in the
// function around `near_line` (a parameter of its "define" line counts); -1 if none.
int FindLlvmLocalDefinition(const TextLines& lines, std::string_view name, int near_line);

}  // namespace fusebox::viewers
