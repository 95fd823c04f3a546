// Small string helpers shared by the compiler: joining, number formatting that
// round-trips, and C-style escaping as XLA's text format uses it.
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
std::vector<std::string_view> Split(std::string_view text, char sep);

// Human-readable byte count: "1.5 GiB".
std::string HumanBytes(uint64_t bytes);

}  // namespace fusebox
