// Character and name scanning shared by the text pane's tokenizers, its definition index
// and its renderer: ASCII classes without the C locale, strings and braces, numbers, the
// name alphabets of HLO / LLVM IR / PTX / assembly, and display cells (tabs, UTF-8).
// Internal to viewers/text_*.cc.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string_view>

namespace fusebox::viewers::text_internal {

using std::string_view;

// ASCII classification without the C locale (bytes >= 0x80 are never letters here).
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAlnum(char c) { return IsAlpha(c) || IsDigit(c); }
inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}
inline char ToLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline bool StartsWith(string_view s, string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
inline bool EndsWith(string_view s, string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
inline string_view TrimLeft(string_view s) {
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  return s.substr(i);
}
inline string_view TrimRight(string_view s) {
  size_t n = s.size();
  while (n > 0 && IsSpace(s[n - 1])) --n;
  return s.substr(0, n);
}
inline string_view Trim(string_view s) { return TrimRight(TrimLeft(s)); }

// Whether `word` is one of the space-separated words of `list`.
inline bool InWordList(string_view list, string_view word) {
  if (word.empty()) return false;
  for (size_t at = list.find(word); at != string_view::npos; at = list.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || list[at - 1] == ' ') && (end == list.size() || list[end] == ' ')) return true;
  }
  return false;
}

inline int Size(string_view s) { return static_cast<int>(std::min<size_t>(s.size(), INT_MAX)); }

// Past the closing quote of the string starting at s[i] == '"' (backslash escapes), or the
// end of the line when it is not closed.
inline int SkipString(string_view s, int i) {
  const int n = Size(s);
  for (int k = i + 1; k < n; ++k) {
    if (s[k] == '\\') {
      ++k;
    } else if (s[k] == '"') {
      return k + 1;
    }
  }
  return n;
}

// Past the '}' matching the '{' at s[i] (strings skipped), or the end of the line.
inline int MatchBrace(string_view s, int i) {
  const int n = Size(s);
  int depth = 0;
  for (int k = i; k < n; ++k) {
    if (s[k] == '"') {
      k = SkipString(s, k) - 1;
    } else if (s[k] == '{') {
      ++depth;
    } else if (s[k] == '}' && --depth == 0) {
      return k + 1;
    }
  }
  return n;
}

// A number starting at s[i] (a digit): decimal, float with exponent, hex (0x1F, PTX's
// 0f3F800000), with any letters that follow glued on (suffixes, "3x3" window sizes).
inline int ScanNumber(string_view s, int i) {
  const int n = Size(s);
  const bool hex = i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
  int k = i;
  while (k < n) {
    char c = s[k];
    if (IsAlnum(c) || c == '.' || c == '_') {
      ++k;
    } else if ((c == '+' || c == '-') && !hex && k > i && (s[k - 1] == 'e' || s[k - 1] == 'E') &&
               k + 1 < n && IsDigit(s[k + 1])) {
      ++k;
    } else {
      break;
    }
  }
  return k;
}

// A number may start with a '-' when the character before cannot end a word ("-1", but
// not the dash in "a-1").
inline bool NumberStartsAt(string_view s, int i) {
  const int n = Size(s);
  if (IsDigit(s[i])) return i == 0 || !(IsAlpha(s[i - 1]) || s[i - 1] == '_');
  return s[i] == '-' && i + 1 < n && IsDigit(s[i + 1]) &&
         (i == 0 || !(IsAlnum(s[i - 1]) || s[i - 1] == '_' || s[i - 1] == '.'));
}

// --- names per language ---

// XLA names: letters, digits, '_', '.', '-' ("get-tuple-element.5", "param_0.1"), but
// not the '-' of "->".
inline bool IsHloNameChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '-'; }
inline int ScanHloName(string_view s, int i) {
  const int n = Size(s);
  int k = i;
  while (k < n && IsHloNameChar(s[k])) {
    if (s[k] == '-' && k + 1 < n && s[k + 1] == '>') break;
    ++k;
  }
  return k;
}
inline bool IsHloNameStart(char c) { return IsAlpha(c) || c == '_'; }

inline bool IsLlvmNameChar(char c) {
  return IsAlnum(c) || c == '-' || c == '$' || c == '.' || c == '_';
}
inline int ScanLlvmName(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsLlvmNameChar(s[i])) ++i;
  return i;
}

inline bool IsPtxNameChar(char c) { return IsAlnum(c) || c == '_' || c == '$'; }
inline int ScanPtxName(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsPtxNameChar(s[i])) ++i;
  return i;
}

inline bool IsAsmSymbolChar(char c) { return IsAlnum(c) || c == '_' || c == '.' || c == '$'; }
inline int ScanAsmSymbol(string_view s, int i) {
  const int n = Size(s);
  while (i < n && IsAsmSymbolChar(s[i])) ++i;
  return i;
}

// Whether a definition's name could be `name`: the index stores names without sigils.
inline string_view StripSigil(string_view name) {
  if (!name.empty() && (name[0] == '%' || name[0] == '@')) name.remove_prefix(1);
  if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
    name = name.substr(1, name.size() - 2);
  }
  return name;
}

// --- display columns ---

inline constexpr int kTabWidth = 4;

// Bytes in the valid UTF-8 character at s[i], 0 when the bytes there are not one.
inline int Utf8Length(string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len = 0;
  if (c < 0x80) {
    return 1;
  } else if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
  } else {
    return 0;
  }
  if (i + static_cast<size_t>(len) > s.size()) return 0;
  for (int k = 1; k < len; ++k) {
    if ((static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0xC0) != 0x80) return 0;
  }
  return len;
}

// One display cell at byte `i`, column `column`: returns the bytes it spans and sets its
// width in columns.
inline int CellAt(string_view s, size_t i, int column, int* width) {
  if (s[i] == '\t') {
    *width = kTabWidth - column % kTabWidth;
    return 1;
  }
  *width = 1;
  int len = Utf8Length(s, i);
  return len == 0 ? 1 : len;
}

}  // namespace fusebox::viewers::text_internal
