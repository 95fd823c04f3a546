// Implementation of the shared string helpers.
#include "compiler/support/strings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace fusebox {

namespace {
template <typename T>
std::string FormatShortest(T value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, res.ptr);
}
}  // namespace

std::string FormatDouble(double value) { return FormatShortest(value); }
std::string FormatFloat(float value) { return FormatShortest(value); }

std::string CEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

bool CUnescape(std::string_view text, std::string* out) {
  out->clear();
  out->reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++i >= text.size()) return false;
    char e = text[i];
    switch (e) {
      case 'n': *out += '\n'; break;
      case 'r': *out += '\r'; break;
      case 't': *out += '\t'; break;
      case 'a': *out += '\a'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'v': *out += '\v'; break;
      case '\\': *out += '\\'; break;
      case '"': *out += '"'; break;
      case '\'': *out += '\''; break;
      case '?': *out += '?'; break;
      case 'x': {
        int value = 0, digits = 0;
        while (i + 1 < text.size() && digits < 2 && std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
          char h = text[++i];
          value = value * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
          ++digits;
        }
        if (digits == 0) return false;
        *out += static_cast<char>(value);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int value = e - '0', digits = 1;
          while (i + 1 < text.size() && digits < 3 && text[i + 1] >= '0' && text[i + 1] <= '7') {
            value = value * 8 + (text[++i] - '0');
            ++digits;
          }
          *out += static_cast<char>(value);
        } else {
          return false;
        }
    }
  }
  return true;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool SameDecimalNumber(std::string_view a, std::string_view b) {
  auto digits = [](std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (!digits(a) || !digits(b)) return false;
  auto significant = [](std::string_view s) {
    const size_t first = s.find_first_not_of('0');
    return first == std::string_view::npos ? std::string_view("0") : s.substr(first);
  };
  return significant(a) == significant(b);
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string FormatBytes(int64_t bytes, const ByteFormat& format) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  const int largest = std::min(static_cast<int>(format.largest), 5);
  // Dividing by 1024 is exact, so the value is the one a single division would give.
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < largest) {
    value /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0) {
    std::snprintf(buf, sizeof(buf), "%lld B", static_cast<long long>(bytes));
  } else {
    const bool two = format.two_decimals_from != ByteUnit::kNone &&
                     unit >= static_cast<int>(format.two_decimals_from);
    std::snprintf(buf, sizeof(buf), two ? "%.2f %s" : "%.1f %s", value, kUnits[unit]);
  }
  return buf;
}

std::string HtmlEscape(std::string_view text, HtmlContext context) {
  const bool label = context == HtmlContext::kGraphvizLabel;
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += label ? "'" : "&#39;"; break;
      case '\n': out += label ? "<br/>" : "\n"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) {
          out += c;
        } else if (!label) {
          out += c == '\t' || c == '\r' ? std::string(1, c) : std::string("&#xFFFD;");
        }
    }
  }
  return out;
}

}  // namespace fusebox
