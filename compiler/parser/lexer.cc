// The HLO text parser's cursor (whitespace and comments, line tracking, errors with
// line:col and a caret) and its lexical pieces: names, integers, floats, strings,
// balanced raw text.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "compiler/parser/parser_internal.h"
#include "compiler/support/strings.h"

namespace fusebox::parser_internal {

void Cursor::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++pos_;
    } else if (c == '/' && Peek(1) == '/') {
      size_t end = text_.find('\n', pos_);
      if (end == std::string_view::npos) end = text_.size();
      std::string_view comment = text_.substr(pos_, end - pos_);
      if (StartsWith(comment, "// -----")) separator_seen_ = true;
      pos_ = end;
    } else if (c == '/' && Peek(1) == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) Fail(pos_, "unterminated /* comment");
      pos_ = end + 2;
    } else {
      break;
    }
  }
}

bool Cursor::TakeSeparatorSeen() {
  bool seen = separator_seen_;
  separator_seen_ = false;
  return seen;
}

bool Cursor::Consume(char c) {
  SkipSpace();
  if (Peek() == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool Cursor::ConsumeStr(std::string_view s) {
  SkipSpace();
  if (Rest().substr(0, s.size()) == s) {
    pos_ += s.size();
    return true;
  }
  return false;
}

void Cursor::Expect(char c, const char* what) {
  if (!Consume(c)) {
    FailHere(std::string("expected '") + c + "' " + what + ", found " + Describe());
  }
}

std::string Cursor::Describe() {
  SkipSpace();
  if (AtEnd()) return "end of file";
  size_t end = pos_;
  if (IsNameChar(text_[end]) || text_[end] == '%') {
    ++end;
    while (end < text_.size() && IsNameChar(text_[end]) && end - pos_ < 40) ++end;
  } else {
    ++end;
  }
  return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
}

void Cursor::Fail(size_t offset, std::string message) const {
  throw ParseError{offset, std::move(message)};
}

void Cursor::EnterNesting(size_t offset, const char* what) {
  if (++depth_ > kMaxNestingDepth) {
    Fail(offset, std::string(what) + " nested more than " + std::to_string(kMaxNestingDepth) +
                     " levels deep");
  }
}

void Cursor::FailHere(std::string message) {
  SkipSpace();
  Fail(pos_, std::move(message));
}

SourceLocation Cursor::LocationOf(size_t offset) const {
  // Line starts are computed once, lazily; lookups are binary searches.
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  size_t start = line_starts_[line - 1];
  return SourceLocation{static_cast<int32_t>(line), static_cast<int32_t>(offset - start + 1)};
}

std::string Cursor::FormatError(size_t offset, const std::string& message) const {
  SourceLocation loc = LocationOf(offset);
  std::string out = filename_ + ":" + std::to_string(loc.line) + ":" +
                    std::to_string(loc.column) + ": " + message;
  size_t start = line_starts_[loc.line - 1];
  size_t end = text_.find('\n', start);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view line = text_.substr(start, end - start);
  if (line.size() > 200) {
    // Show a window around the column for very long lines.
    size_t col = static_cast<size_t>(loc.column - 1);
    size_t from = col > 100 ? col - 100 : 0;
    line = line.substr(from, 200);
    out += "\n  " + std::string(line) + "\n  " + std::string(col - from, ' ') + "^";
  } else {
    std::string caret;
    for (int32_t i = 1; i < loc.column && static_cast<size_t>(i - 1) < line.size(); ++i) {
      caret += line[i - 1] == '\t' ? '\t' : ' ';
    }
    out += "\n  " + std::string(line) + "\n  " + caret + "^";
  }
  return out;
}

std::string_view Lexer::Name(const char* what, bool any_first) {
  c_.SkipSpace();
  size_t start = c_.pos();
  bool percent = c_.Peek() == '%';
  if (percent) c_.set_pos(start + 1);
  size_t name_start = c_.pos();
  char first = c_.Peek();
  if (!(IsNameStart(first) || ((percent || any_first) && IsNameChar(first)))) {
    c_.Fail(start, std::string("expected ") + what + ", found " + c_.Describe());
  }
  size_t p = name_start;
  std::string_view text = c_.text();
  while (p < text.size() && IsNameChar(text[p])) ++p;
  c_.set_pos(p);
  return text.substr(name_start, p - name_start);
}

std::string_view Lexer::Identifier(const char* what) {
  c_.SkipSpace();
  size_t start = c_.pos();
  if (!IsNameStart(c_.Peek())) {
    c_.Fail(start, std::string("expected ") + what + ", found " + c_.Describe());
  }
  size_t p = start;
  std::string_view text = c_.text();
  while (p < text.size() && IsNameChar(text[p])) ++p;
  c_.set_pos(p);
  return text.substr(start, p - start);
}

bool Lexer::PeekIdentifier(std::string_view word) {
  c_.SkipSpace();
  std::string_view rest = c_.Rest();
  return rest.substr(0, word.size()) == word &&
         (rest.size() == word.size() || !IsNameChar(rest[word.size()]));
}

int64_t Lexer::Int(const char* what) {
  c_.SkipSpace();
  size_t start = c_.pos();
  std::string_view rest = c_.Rest();
  int64_t value = 0;
  const char* first = rest.data();
  const char* last = rest.data() + rest.size();
  bool neg = false;
  if (first < last && *first == '-') {
    neg = true;
    ++first;
  } else if (first < last && *first == '+') {
    ++first;
  }
  uint64_t magnitude = 0;
  auto res = std::from_chars(first, last, magnitude);
  if (res.ec == std::errc::invalid_argument) {
    c_.Fail(start, std::string("expected integer ") + what + ", found " + c_.Describe());
  }
  if (res.ec == std::errc::result_out_of_range ||
      magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0)) {
    c_.Fail(start, std::string("integer out of range for ") + what);
  }
  value = neg ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  c_.set_pos(start + static_cast<size_t>(res.ptr - rest.data()));
  return value;
}

bool Lexer::Bool(const char* what) {
  std::string_view word = Identifier(what);
  if (word == "true") return true;
  if (word == "false") return false;
  c_.Fail(c_.pos() - word.size(),
          std::string("expected true or false for ") + what + ", found '" + std::string(word) + "'");
}

std::string Lexer::String(const char* what) {
  c_.SkipSpace();
  size_t start = c_.pos();
  if (c_.Peek() != '"') {
    c_.Fail(start, std::string("expected string ") + what + ", found " + c_.Describe());
  }
  size_t end = SkipStringAt(start);
  std::string out;
  if (!CUnescape(c_.text().substr(start + 1, end - start - 2), &out)) {
    c_.Fail(start, std::string("bad escape sequence in string ") + what);
  }
  c_.set_pos(end);
  return out;
}

size_t Lexer::SkipStringAt(size_t start) {
  std::string_view text = c_.text();
  size_t p = start + 1;
  while (p < text.size()) {
    char ch = text[p];
    if (ch == '\\') {
      p += 2;
      continue;
    }
    if (ch == '"') return p + 1;
    ++p;
  }
  c_.Fail(start, "unterminated string");
}

std::string_view Lexer::RawValue(const char* what) {
  c_.SkipSpace();
  size_t start = c_.pos();
  std::string_view text = c_.text();
  size_t p = start;
  std::vector<char> stack;
  while (p < text.size()) {
    char ch = text[p];
    if (ch == '"') {
      p = SkipStringAt(p);
      continue;
    }
    if (ch == '{' || ch == '(' || ch == '[') {
      stack.push_back(ch == '{' ? '}' : ch == '(' ? ')' : ']');
    } else if (ch == '}' || ch == ')' || ch == ']') {
      if (stack.empty()) break;
      if (stack.back() != ch) {
        c_.Fail(p, std::string("mismatched '") + ch + "' in value of " + what);
      }
      stack.pop_back();
    } else if (stack.empty() && (ch == ',' || ch == '\n')) {
      break;
    }
    ++p;
  }
  if (!stack.empty()) c_.Fail(start, std::string("unbalanced brackets in value of ") + what);
  size_t end = p;
  while (end > start && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) {
    --end;
  }
  if (end == start) c_.Fail(start, std::string("expected a value for ") + what);
  c_.set_pos(p);
  return text.substr(start, end - start);
}

std::string_view Lexer::BracedRaw(const char* what) {
  c_.SkipSpace();
  size_t open = c_.pos();
  if (c_.Peek() != '{') c_.Fail(open, std::string("expected '{' for ") + what + ", found " + c_.Describe());
  std::string_view text = c_.text();
  size_t p = open + 1;
  int depth = 1;
  while (p < text.size()) {
    char ch = text[p];
    if (ch == '"') {
      p = SkipStringAt(p);
      continue;
    }
    if (ch == '{') ++depth;
    if (ch == '}' && --depth == 0) {
      c_.set_pos(p + 1);
      return text.substr(open + 1, p - open - 1);
    }
    ++p;
  }
  c_.Fail(open, std::string("unterminated '{' in ") + what);
}

std::vector<int64_t> Lexer::IntList(const char* what) {
  c_.Expect('{', what);
  std::vector<int64_t> values;
  if (c_.Consume('}')) return values;
  do {
    values.push_back(Int(what));
  } while (c_.Consume(','));
  c_.Expect('}', (std::string("to close ") + what).c_str());
  return values;
}

std::vector<bool> Lexer::BoolList(const char* what) {
  c_.Expect('{', what);
  std::vector<bool> values;
  if (c_.Consume('}')) return values;
  do {
    values.push_back(Bool(what));
  } while (c_.Consume(','));
  c_.Expect('}', (std::string("to close ") + what).c_str());
  return values;
}

std::vector<int64_t> Lexer::XList(const char* what) {
  std::vector<int64_t> values;
  values.push_back(Int(what));
  while (c_.Peek() == 'x') {
    c_.set_pos(c_.pos() + 1);
    values.push_back(IntNoSpace(what));
  }
  return values;
}

int64_t Lexer::IntNoSpace(const char* what) {
  size_t start = c_.pos();
  if (!(IsDigit(c_.Peek()) || c_.Peek() == '-')) {
    c_.Fail(start, std::string("expected integer in ") + what);
  }
  return Int(what);
}

}  // namespace fusebox::parser_internal
