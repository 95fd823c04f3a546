// A small cursor over attribute text that has a grammar of its own (shardings, Shardy
// meshes, mesh replica groups): whitespace-skipping tokens, numbers that fit an int64,
// quoted or bare names, bracketed spans; errors say where, in the caller's words.
#pragma once

#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/status.h"

namespace fusebox {

class TextCursor {
 public:
  // `describe(what, pos)` turns a failure at byte offset `pos` into the error message.
  TextCursor(std::string_view text, std::function<std::string(const std::string& what, size_t pos)> describe)
      : text_(text), describe_(std::move(describe)) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(std::string_view s) {
    SkipSpace();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  // `s` as a whole word: not followed by a name character.
  bool Keyword(std::string_view s) {
    SkipSpace();
    if (text_.substr(pos_, s.size()) != s) return false;
    const size_t end = pos_ + s.size();
    if (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_')) return false;
    pos_ = end;
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  char Peek() {
    SkipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  // A decimal integer; a lone '-' or more digits than an int64 holds is not one.
  StatusOr<int64_t> Int() {
    SkipSpace();
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t digits = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == digits || pos_ - start > 18) {
      pos_ = start;
      return Fail("expected a number");
    }
    return std::stoll(std::string(text_.substr(start, pos_ - start)));
  }
  // open int, int, ... close  (empty allowed).
  StatusOr<std::vector<int64_t>> IntList(char open, char close) {
    std::vector<int64_t> v;
    if (!Consume(std::string(1, open))) return Fail(std::string("expected '") + open + "'");
    if (Consume(std::string(1, close))) return v;
    do {
      ASSIGN_OR_RETURN(int64_t x, Int());
      v.push_back(x);
    } while (Consume(","));
    if (!Consume(std::string(1, close))) return Fail(std::string("expected '") + close + "'");
    return v;
  }
  // 'name', "name" or a bare name of letters, digits, '_' and the characters in `extra`;
  // `noun` names it in errors ("axis name").
  StatusOr<std::string> Name(std::string_view noun = "name", std::string_view extra = ".-") {
    SkipSpace();
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      const char quote = text_[pos_++];
      const size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return Fail("unterminated " + std::string(noun));
      std::string name(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      return name;
    }
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                   extra.find(text_[pos_]) != std::string_view::npos)) {
      ++pos_;
    }
    if (pos_ == start) return Fail((noun.front() == 'a' ? "expected an " : "expected a ") + std::string(noun));
    return std::string(text_.substr(start, pos_ - start));
  }
  // The text up to the `close` that balances the `open` at the cursor (both consumed),
  // skipping double-quoted strings.
  StatusOr<std::string_view> Balanced(char open, char close) {
    if (Peek() != open) return Fail(std::string("expected '") + open + "'");
    const size_t start = pos_;
    int depth = 0;
    bool quoted = false;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (quoted) {
        if (c == '\\') ++pos_;
        else if (c == '"') quoted = false;
        continue;
      }
      if (c == '"') quoted = true;
      else if (c == open) ++depth;
      else if (c == close && --depth == 0) {
        ++pos_;
        return text_.substr(start + 1, pos_ - start - 2);
      }
    }
    return Fail("unbalanced brackets");
  }
  // The text up to the ')' closing a '(' already consumed (the ')' consumed too).
  StatusOr<std::string_view> UntilClosingParen() {
    int depth = 1;
    const size_t start = pos_;
    for (; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '(') ++depth;
      if (text_[pos_] == ')' && --depth == 0) {
        std::string_view inside = text_.substr(start, pos_ - start);
        ++pos_;
        return inside;
      }
    }
    return Fail("unbalanced parentheses");
  }
  std::string_view Rest() {
    SkipSpace();
    return text_.substr(pos_);
  }
  size_t pos() const { return pos_; }
  Status Fail(const std::string& what) const { return InvalidArgument(describe_(what, pos_)); }

 private:
  std::string_view text_;
  std::function<std::string(const std::string&, size_t)> describe_;
  size_t pos_ = 0;
};

}  // namespace fusebox
