// Small string helpers shared by the compiler and the tools: joining, number formatting
// that round-trips, C-style escaping as XLA's text format uses it, byte counts and HTML.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fusebox {

template <typename Container, typename Fn>
std::string JoinWith(const Container& items, std::string_view sep, Fn&& fn) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    first = false;
    fn(out, item);
  }
  return out;
}

template <typename Container>
std::string Join(const Container& items, std::string_view sep) {
  std::ostringstream os;
  bool first = true;
  for (const auto& item : items) {
    if (!first) os << sep;
    first = false;
    os << item;
  }
  return os.str();
}

// Shortest decimal text that reads back to exactly `value` as a double / float.
std::string FormatDouble(double value);
std::string FormatFloat(float value);

// Escapes `"`, `\` and control characters so the text can sit in "..." in HLO text.
std::string CEscape(std::string_view text);
// Reverses CEscape; returns false on a malformed escape.
bool CUnescape(std::string_view text, std::string* out);

bool StartsWith(std::string_view text, std::string_view prefix);
bool EndsWith(std::string_view text, std::string_view suffix);
// Whether both are non-empty runs of decimal digits naming the same number ("3" and
// "0003"), however many digits (no conversion, so nothing overflows).
bool SameDecimalNumber(std::string_view a, std::string_view b);
std::vector<std::string_view> Split(std::string_view text, char sep);

// The units FormatBytes writes a byte count in, each 1024 times the one before.
enum class ByteUnit : uint8_t { kB, kKiB, kMiB, kGiB, kTiB, kPiB, kNone };

// How a view writes byte counts. Views keep the style their readers know (a report's
// tables, the workbench's panels, the timeline's tooltips), so the style is a parameter.
struct ByteFormat {
  // The largest unit used; larger counts stay in it ("2048.0 GiB").
  ByteUnit largest = ByteUnit::kPiB;
  // The unit from which on two decimals are written instead of one; kNone: always one.
  ByteUnit two_decimals_from = ByteUnit::kNone;
};

// A byte count in the largest unit it reaches: "512 B", "1.5 KiB", "2.0 GiB" (whole bytes
// below 1 KiB, negative counts included).
std::string FormatBytes(int64_t bytes, const ByteFormat& format = {});

// Where HtmlEscape's text goes.
enum class HtmlContext : uint8_t {
  // Text or an attribute value of an (X)HTML document: &, <, >, " and ' become entities;
  // control characters other than tab, newline and carriage return (not allowed in
  // XHTML) become U+FFFD.
  kDocument,
  // A Graphviz HTML-like label: &, <, > and " become entities, a newline starts a new
  // line (<br/>), other control characters are dropped and ' stays.
  kGraphvizLabel,
};

std::string HtmlEscape(std::string_view text, HtmlContext context = HtmlContext::kDocument);

}  // namespace fusebox
