// The HLO text parser. A hand-written recursive-descent parser over the raw text
// (no separate token stream: HLO's tokens depend on context, e.g. `0_0x1_1`,
// `b01f_01io->b01f`, `[2,4]<=[8]`). Names are resolved after each computation (operands
// may be used before they are defined, as XLA allows) and after each module (called
// computations may be defined later).
//
// Sections:
//   1. Cursor: whitespace/comments, line tracking, errors with line:col and caret.
//   2. Lexical pieces: names, integers, floats, strings, balanced raw text.
//   3. Shapes and layouts.
//   4. Literals.
//   5. Instruction attributes.
//   6. Instructions, computations, modules, stack-frame tables.
//   7. Name resolution, cycle check, public entry points.

#include "compiler/parser/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"

namespace fusebox {

namespace {

// ---------------------------------------------------------------------------
// 1. Cursor
// ---------------------------------------------------------------------------

bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Tuple shapes, layouts' P(...) shapes and literal braces are parsed recursively; past
// this depth the input is rejected rather than overflowing the stack. Real modules
// nest a handful of levels.
constexpr int kMaxNestingDepth = 100;

// Thrown only inside this file and caught at the public entry points: it carries the
// location of the first error. (Never crosses the library boundary.)
struct ParseError {
  size_t offset;
  std::string message;
};

class Cursor {
 public:
  Cursor(std::string_view text, std::string filename)
      : text_(text), filename_(std::move(filename)) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  std::string_view Rest() const { return text_.substr(pos_); }
  std::string_view text() const { return text_; }
  const std::string& filename() const { return filename_; }

  // Skips spaces, newlines and comments. Records whether a `// -----` module separator
  // was passed.
  void SkipSpace() {
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

  bool TakeSeparatorSeen() {
    bool seen = separator_seen_;
    separator_seen_ = false;
    return seen;
  }

  // Consumes `c` after optional whitespace, or returns false.
  bool Consume(char c) {
    SkipSpace();
    if (Peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeStr(std::string_view s) {
    SkipSpace();
    if (Rest().substr(0, s.size()) == s) {
      pos_ += s.size();
      return true;
    }
    return false;
  }
  void Expect(char c, const char* what) {
    if (!Consume(c)) {
      FailHere(std::string("expected '") + c + "' " + what + ", found " + Describe());
    }
  }

  // Text describing what is at the cursor, for messages.
  std::string Describe() {
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

  [[noreturn]] void Fail(size_t offset, std::string message) const {
    throw ParseError{offset, std::move(message)};
  }

  // Counts one level of recursive nesting at `offset`; fails past kMaxNestingDepth.
  void EnterNesting(size_t offset, const char* what) {
    if (++depth_ > kMaxNestingDepth) {
      Fail(offset, std::string(what) + " nested more than " + std::to_string(kMaxNestingDepth) +
                       " levels deep");
    }
  }
  void LeaveNesting() { --depth_; }
  [[noreturn]] void FailHere(std::string message) {
    SkipSpace();
    Fail(pos_, std::move(message));
  }

  SourceLocation LocationOf(size_t offset) const {
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

  std::string FormatError(size_t offset, const std::string& message) const {
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

 private:
  std::string_view text_;
  std::string filename_;
  size_t pos_ = 0;
  bool separator_seen_ = false;
  int depth_ = 0;
  mutable std::vector<size_t> line_starts_;
};

// Scoped EnterNesting/LeaveNesting.
class NestingGuard {
 public:
  NestingGuard(Cursor* c, size_t offset, const char* what) : c_(*c) { c_.EnterNesting(offset, what); }
  ~NestingGuard() { c_.LeaveNesting(); }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  Cursor& c_;
};

// ---------------------------------------------------------------------------
// 2. Lexical pieces
// ---------------------------------------------------------------------------

class Lexer {
 public:
  explicit Lexer(Cursor* c) : c_(*c) {}

  // A name: `%foo.1`, `foo`, `fused_computation.2`. The `%` is dropped. Without a `%`
  // a name starts with a letter or '_', except where `any_first` says the context is
  // unambiguous (the module name, signature parameters), which the printer writes bare
  // even for names like `%0` or `%.x`.
  std::string_view Name(const char* what, bool any_first = false) {
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

  // A bare identifier (keywords, enum values): [A-Za-z_][A-Za-z0-9_.-]*
  std::string_view Identifier(const char* what) {
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

  bool PeekIdentifier(std::string_view word) {
    c_.SkipSpace();
    std::string_view rest = c_.Rest();
    return rest.substr(0, word.size()) == word &&
           (rest.size() == word.size() || !IsNameChar(rest[word.size()]));
  }

  int64_t Int(const char* what) {
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

  bool Bool(const char* what) {
    std::string_view word = Identifier(what);
    if (word == "true") return true;
    if (word == "false") return false;
    c_.Fail(c_.pos() - word.size(),
            std::string("expected true or false for ") + what + ", found '" + std::string(word) + "'");
  }

  // A double-quoted string with C escapes; returns the unescaped text.
  std::string String(const char* what) {
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

  // Given the offset of an opening quote, returns the offset just past the closing one.
  size_t SkipStringAt(size_t start) {
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

  // Raw text of a balanced value: everything up to a top-level ',' or newline or an
  // unmatched closing bracket. Brackets and strings nest.
  std::string_view RawValue(const char* what) {
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

  // The text inside a `{...}` (balanced), cursor after the closing brace.
  std::string_view BracedRaw(const char* what) {
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

  std::vector<int64_t> IntList(const char* what) {
    c_.Expect('{', what);
    std::vector<int64_t> values;
    if (c_.Consume('}')) return values;
    do {
      values.push_back(Int(what));
    } while (c_.Consume(','));
    c_.Expect('}', (std::string("to close ") + what).c_str());
    return values;
  }

  std::vector<bool> BoolList(const char* what) {
    c_.Expect('{', what);
    std::vector<bool> values;
    if (c_.Consume('}')) return values;
    do {
      values.push_back(Bool(what));
    } while (c_.Consume(','));
    c_.Expect('}', (std::string("to close ") + what).c_str());
    return values;
  }

  // `3x3x1` style lists; ints separated by 'x' without spaces.
  std::vector<int64_t> XList(const char* what) {
    std::vector<int64_t> values;
    values.push_back(Int(what));
    while (c_.Peek() == 'x') {
      c_.set_pos(c_.pos() + 1);
      values.push_back(IntNoSpace(what));
    }
    return values;
  }

  int64_t IntNoSpace(const char* what) {
    size_t start = c_.pos();
    if (!(IsDigit(c_.Peek()) || c_.Peek() == '-')) {
      c_.Fail(start, std::string("expected integer in ") + what);
    }
    return Int(what);
  }

 private:
  Cursor& c_;
};

// ---------------------------------------------------------------------------
// 3. Shapes and layouts
// ---------------------------------------------------------------------------

class ShapeParser {
 public:
  ShapeParser(Cursor* c, Lexer* lex) : c_(*c), lex_(*lex) {}

  // True if the cursor is at something that starts a shape: `(` or `word[`. An unknown
  // word (`f33[2]`) counts, so that Parse() reports it as an unknown element type.
  bool AtShape() {
    c_.SkipSpace();
    char ch = c_.Peek();
    if (ch == '(') return true;
    if (!IsNameStart(ch)) return false;
    std::string_view rest = c_.Rest();
    size_t n = 0;
    while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])))) ++n;
    return n < rest.size() && rest[n] == '[';
  }

  Shape Parse() {
    c_.SkipSpace();
    size_t start = c_.pos();
    NestingGuard guard(&c_, start, "shape");
    if (c_.Peek() == '(') {
      c_.set_pos(start + 1);
      std::vector<Shape> elements;
      if (!c_.Consume(')')) {
        do {
          elements.push_back(Parse());
        } while (c_.Consume(','));
        c_.Expect(')', "to close tuple shape");
      }
      return Shape::Tuple(std::move(elements));
    }
    std::string_view rest = c_.Rest();
    size_t n = 0;
    while (n < rest.size() && std::isalnum(static_cast<unsigned char>(rest[n]))) ++n;
    std::optional<PrimitiveType> type = ParsePrimitiveType(rest.substr(0, n));
    if (!type || type == PrimitiveType::kTuple) {
      if (n > 0 && n < rest.size() && rest[n] == '[') {
        c_.Fail(start, "unknown element type '" + std::string(rest.substr(0, n)) + "'");
      }
      c_.Fail(start, "expected shape, found " + c_.Describe());
    }
    c_.set_pos(start + n);
    if (c_.Peek() != '[') c_.Fail(c_.pos(), "expected '[' after element type in shape");
    c_.set_pos(c_.pos() + 1);
    Shape shape(*type, {});
    c_.SkipSpace();
    if (c_.Peek() != ']') {
      while (true) {
        c_.SkipSpace();
        size_t dim_pos = c_.pos();
        if (c_.Peek() == '?') {
          c_.set_pos(dim_pos + 1);
          shape.add_dimension(kUnboundedSize, true);
        } else {
          bool dynamic = false;
          if (c_.Peek() == '<' && c_.Peek(1) == '=') {
            dynamic = true;
            c_.set_pos(dim_pos + 2);
          }
          int64_t size = lex_.Int("dimension size");
          if (size < 0) c_.Fail(dim_pos, "negative dimension size " + std::to_string(size));
          shape.add_dimension(size, dynamic);
        }
        if (c_.Consume(',')) continue;
        break;
      }
    }
    c_.Expect(']', "to close the dimensions of a shape");
    if (!IsArrayType(*type) && shape.rank() != 0) {
      c_.Fail(start, std::string(PrimitiveTypeName(*type)) + " shapes take no dimensions");
    }
    // A layout follows immediately (no space), as XLA prints it.
    if (c_.Peek() == '{') {
      shape.set_layout(ParseLayout(shape));
    }
    return shape;
  }

  Layout ParseLayout(const Shape& shape) {
    size_t open = c_.pos();
    c_.set_pos(open + 1);
    Layout layout;
    c_.SkipSpace();
    if (c_.Peek() != '}' && c_.Peek() != ':') {
      do {
        layout.minor_to_major.push_back(lex_.Int("layout dimension"));
      } while (c_.Consume(','));
    }
    if (c_.Consume(':')) {
      while (true) {
        c_.SkipSpace();
        char ch = c_.Peek();
        size_t item = c_.pos();
        if (ch == 'D' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          if (!c_.Consume(')')) {
            do {
              std::string_view t = lex_.Identifier("dim level type");
              DimLevelType dlt;
              if (t == "D") dlt = DimLevelType::kDense;
              else if (t == "C") dlt = DimLevelType::kCompressed;
              else if (t == "S") dlt = DimLevelType::kSingleton;
              else if (t == "H") dlt = DimLevelType::kLooseCompressed;
              else c_.Fail(item, "unknown dim level type '" + std::string(t) + "'");
              layout.dim_level_types.push_back(dlt);
              bool unique = true, ordered = true;
              while (c_.Peek() == '+' || c_.Peek() == '~') {
                if (c_.Peek() == '+') unique = false;
                if (c_.Peek() == '~') ordered = false;
                c_.set_pos(c_.pos() + 1);
              }
              layout.dim_unique.push_back(unique);
              layout.dim_ordered.push_back(ordered);
            } while (c_.Consume(','));
            c_.Expect(')', "to close D(...)");
          }
          // Drop uniqueness/ordering vectors that carry only defaults.
          if (std::all_of(layout.dim_unique.begin(), layout.dim_unique.end(), [](bool b) { return b; })) layout.dim_unique.clear();
          if (std::all_of(layout.dim_ordered.begin(), layout.dim_ordered.end(), [](bool b) { return b; })) layout.dim_ordered.clear();
        } else if (ch == 'T' && c_.Peek(1) == '(') {
          c_.set_pos(item + 1);
          while (c_.Peek() == '(') {
            c_.set_pos(c_.pos() + 1);
            Tile tile;
            if (!c_.Consume(')')) {
              do {
                c_.SkipSpace();
                if (c_.Peek() == '*') {
                  c_.set_pos(c_.pos() + 1);
                  tile.dimensions.push_back(Tile::kCombine);
                } else {
                  tile.dimensions.push_back(lex_.Int("tile dimension"));
                }
              } while (c_.Consume(','));
              c_.Expect(')', "to close a tile");
            }
            layout.tiles.push_back(std::move(tile));
          }
        } else if (ch == 'L' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          layout.tail_padding_alignment_in_elements = lex_.Int("L(...)");
          c_.Expect(')', "to close L(...)");
        } else if ((ch == '#' || ch == '*') && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          std::string_view t = lex_.Identifier("primitive type");
          auto pt = ParsePrimitiveType(t);
          if (!pt) c_.Fail(item, "unknown primitive type '" + std::string(t) + "' in layout");
          if (ch == '#') layout.index_primitive_type = pt;
          else layout.pointer_primitive_type = pt;
          c_.Expect(')', "in layout");
        } else if (ch == 'E' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          layout.element_size_in_bits = lex_.Int("E(...)");
          c_.Expect(')', "to close E(...)");
        } else if (ch == 'S' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          layout.memory_space = lex_.Int("S(...)");
          c_.Expect(')', "to close S(...)");
        } else if (ch == 'S' && c_.Peek(1) == 'C' && c_.Peek(2) == '(') {
          c_.set_pos(item + 3);
          SplitConfig sc;
          sc.dimension = lex_.Int("split config dimension");
          c_.Expect(':', "in SC(...)");
          do {
            sc.split_indices.push_back(lex_.Int("split index"));
          } while (c_.Consume(','));
          c_.Expect(')', "to close SC(...)");
          layout.split_configs.push_back(std::move(sc));
        } else if (ch == 'P' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          layout.physical_shape = std::make_unique<Shape>(Parse());
          c_.Expect(')', "to close P(...)");
        } else if (ch == 'M' && c_.Peek(1) == '(') {
          c_.set_pos(item + 2);
          layout.dynamic_shape_metadata_prefix_bytes = lex_.Int("M(...)");
          c_.Expect(')', "to close M(...)");
        } else {
          break;
        }
      }
    }
    if (!c_.Consume('}')) c_.FailHere("expected '}' to close layout, found " + c_.Describe());
    if (shape.IsArray() && !layout.minor_to_major.empty() &&
        static_cast<int64_t>(layout.minor_to_major.size()) != shape.rank()) {
      c_.Fail(open, "layout {" + Join(layout.minor_to_major, ",") + "} has " +
                        std::to_string(layout.minor_to_major.size()) +
                        " dimensions but the shape has rank " + std::to_string(shape.rank()));
    }
    std::vector<bool> seen(layout.minor_to_major.size(), false);
    for (int64_t d : layout.minor_to_major) {
      if (d < 0 || d >= static_cast<int64_t>(seen.size()) || seen[d]) {
        c_.Fail(open, "layout {" + Join(layout.minor_to_major, ",") +
                          "} is not a permutation of the shape's dimensions");
      }
      seen[d] = true;
    }
    return layout;
  }

 private:
  Cursor& c_;
  Lexer& lex_;
};

// ---------------------------------------------------------------------------
// 4. Literals
// ---------------------------------------------------------------------------

class LiteralParser {
 public:
  LiteralParser(Cursor* c, Lexer* lex, ShapeParser* shapes) : c_(*c), lex_(*lex), shapes_(*shapes) {}

  // Parses the literal of a constant of `shape`. Returns null for an elided `{...}`.
  std::unique_ptr<Literal> Parse(const Shape& shape) {
    c_.SkipSpace();
    if (c_.Rest().substr(0, 5) == "{...}") {
      c_.set_pos(c_.pos() + 5);
      return nullptr;
    }
    // Each element takes at least one character, so a shape with more elements than the
    // rest of the text is an error; checking before allocating keeps `f32[999999999999]
    // constant({1})` from asking for terabytes.
    int64_t elements = ElementsIn(shape);
    if (elements < 0) {
      c_.FailHere("literal of shape " + shape.ToString(false) +
                  " is too large or has unbounded dimensions");
    }
    if (static_cast<uint64_t>(elements) > c_.Rest().size()) {
      c_.FailHere("literal of shape " + shape.ToString(false) + " has " + std::to_string(elements) +
                  " elements, more than the rest of the file can hold");
    }
    auto literal = std::make_unique<Literal>(shape);
    ParseInto(shape, literal.get());
    return literal;
  }

 private:
  // Elements in all arrays of `shape` (tuples summed); -1 on overflow or unbounded dims.
  static int64_t ElementsIn(const Shape& shape) {
    if (shape.IsTuple()) {
      int64_t total = 0;
      for (const Shape& element : shape.tuple_shapes()) {
        int64_t n = ElementsIn(element);
        if (n < 0 || total > std::numeric_limits<int64_t>::max() - n) return -1;
        total += n;
      }
      return total;
    }
    return shape.IsArray() ? shape.ElementCount() : 0;
  }

  void ParseInto(const Shape& shape, Literal* literal) {
    c_.SkipSpace();
    NestingGuard guard(&c_, c_.pos(), "literal");
    // An optional shape prefix (`f32[2] {1, 2}`) as older dumps write tuple elements.
    if (shapes_.AtShape() && c_.Peek() != '(') {
      size_t at = c_.pos();
      Shape written = shapes_.Parse();
      if (!written.Compatible(shape)) {
        c_.Fail(at, "literal shape " + written.ToString(false) + " does not match " +
                        shape.ToString(false));
      }
    }
    if (shape.IsTuple()) {
      c_.Expect('(', "to open a tuple literal");
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        if (i > 0) c_.Expect(',', "between tuple literal elements");
        ParseInto(shape.tuple_shapes(i), &literal->tuple_elements()[i]);
      }
      c_.Expect(')', "to close a tuple literal");
      return;
    }
    if (!shape.IsArray()) {
      c_.FailHere("constants of type " + std::string(PrimitiveTypeName(shape.element_type())) +
                  " are not allowed");
    }
    int64_t count = shape.ElementCount();
    if (count < 0) c_.FailHere("literal shape " + shape.ToString(false) + " is too large");
    int64_t index = 0;
    if (shape.rank() == 0) {
      // Scalars may be written bare or in braces.
      if (c_.Consume('{')) {
        ParseElement(literal, 0);
        c_.Expect('}', "to close a scalar literal");
      } else {
        ParseElement(literal, 0);
      }
      return;
    }
    ParseNested(shape, 0, literal, &index);
    if (index != count) {
      c_.FailHere("literal has " + std::to_string(index) + " elements but shape " +
                  shape.ToString(false) + " needs " + std::to_string(count));
    }
  }

  void ParseNested(const Shape& shape, int64_t dim, Literal* literal, int64_t* index) {
    c_.SkipSpace();
    size_t open = c_.pos();
    NestingGuard guard(&c_, open, "literal");
    c_.Expect('{', "to open literal dimension");
    int64_t expected = shape.dimensions(dim);
    int64_t seen = 0;
    if (!c_.Consume('}')) {
      do {
        if (dim + 1 < shape.rank()) {
          ParseNested(shape, dim + 1, literal, index);
        } else {
          if (*index >= literal->element_count()) {
            c_.FailHere("too many elements in literal for shape " + shape.ToString(false));
          }
          ParseElement(literal, (*index)++);
        }
        ++seen;
      } while (c_.Consume(','));
      c_.Expect('}', "to close literal dimension");
    }
    if (seen != expected) {
      c_.Fail(open, "literal dimension " + std::to_string(dim) + " has " + std::to_string(seen) +
                        " elements, shape " + shape.ToString(false) + " needs " +
                        std::to_string(expected));
    }
  }

  void ParseElement(Literal* literal, int64_t index) {
    c_.SkipSpace();
    size_t start = c_.pos();
    PrimitiveType type = literal->shape().element_type();
    if (IsComplex(type)) {
      c_.Expect('(', "to open a complex value");
      double re = Real(start);
      c_.Expect(',', "in a complex value");
      double im = Real(start);
      c_.Expect(')', "to close a complex value");
      literal->SetComplex(index, {re, im});
      return;
    }
    if (type == PrimitiveType::kPred) {
      if (lex_.PeekIdentifier("true")) {
        lex_.Identifier("bool");
        literal->SetBool(index, true);
        return;
      }
      if (lex_.PeekIdentifier("false")) {
        lex_.Identifier("bool");
        literal->SetBool(index, false);
        return;
      }
      int64_t v = lex_.Int("pred value");
      if (v != 0 && v != 1) c_.Fail(start, "pred value must be true, false, 0 or 1");
      literal->SetBool(index, v != 0);
      return;
    }
    if (IsInteger(type)) {
      std::string_view rest = c_.Rest();
      if (IsUnsignedInt(type) && !rest.empty() && rest[0] != '-') {
        uint64_t v = 0;
        auto res = std::from_chars(rest.data(), rest.data() + rest.size(), v);
        if (res.ec != std::errc()) {
          c_.Fail(start, "expected an integer literal for " + std::string(PrimitiveTypeName(type)) +
                             ", found " + c_.Describe());
        }
        CheckIntRange(type, false, v, start);
        c_.set_pos(start + static_cast<size_t>(res.ptr - rest.data()));
        literal->SetUint64(index, v);
      } else {
        size_t save = c_.pos();
        int64_t v = lex_.Int("integer literal");
        // Integers written as floats (`1.0`) are not valid XLA text for integer types.
        if (c_.Peek() == '.' || c_.Peek() == 'e') {
          c_.Fail(save, "expected an integer literal for " + std::string(PrimitiveTypeName(type)));
        }
        CheckIntRange(type, v < 0, static_cast<uint64_t>(v < 0 ? -(v + 1) : v), start);
        literal->SetInt64(index, v);
      }
      return;
    }
    literal->SetDouble(index, Real(start));
  }

  void CheckIntRange(PrimitiveType type, bool negative, uint64_t magnitude, size_t at) {
    int bits = BitWidth(type);
    if (IsUnsignedInt(type)) {
      if (negative) c_.Fail(at, "negative value for unsigned type " + std::string(PrimitiveTypeName(type)));
      if (bits < 64 && magnitude >> bits) {
        c_.Fail(at, "value out of range for " + std::string(PrimitiveTypeName(type)));
      }
    } else if (bits < 64) {
      // For negatives `magnitude` is -(v+1), so both sides compare with 2^(bits-1).
      if (magnitude >> (bits - 1)) {
        c_.Fail(at, "value out of range for " + std::string(PrimitiveTypeName(type)));
      }
    }
  }

  // A real number: decimal, exponent, inf, -inf, nan, -nan, nan(0x...).
  double Real(size_t at) {
    c_.SkipSpace();
    size_t start = c_.pos();
    std::string_view rest = c_.Rest();
    bool neg = !rest.empty() && rest[0] == '-';
    size_t off = (neg || (!rest.empty() && rest[0] == '+')) ? 1 : 0;
    std::string_view word = rest.substr(off);
    auto word_is = [&](std::string_view w) {
      return word.substr(0, w.size()) == w && (word.size() == w.size() || !IsNameChar(word[w.size()]));
    };
    if (word_is("inf")) {
      c_.set_pos(start + off + 3);
      return neg ? -INFINITY : INFINITY;
    }
    if (word_is("nan") || (word.substr(0, 4) == "nan(")) {
      c_.set_pos(start + off + 3);
      if (c_.Peek() == '(') {
        size_t close = c_.text().find(')', c_.pos());
        if (close == std::string_view::npos) c_.Fail(c_.pos(), "unterminated nan payload");
        c_.set_pos(close + 1);
      }
      return neg ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
    }
    double value = 0;
    const char* first = rest.data() + (rest.size() > 0 && rest[0] == '+' ? 1 : 0);
    auto res = std::from_chars(first, rest.data() + rest.size(), value);
    if (res.ec == std::errc::invalid_argument) {
      c_.Fail(start, "expected a number, found " + c_.Describe());
    }
    if (res.ec == std::errc::result_out_of_range) {
      // Overflow to inf / underflow to zero, as strtod does.
      std::string copy(first, res.ptr);
      value = std::strtod(copy.c_str(), nullptr);
    }
    c_.set_pos(start + static_cast<size_t>(res.ptr - rest.data()));
    (void)at;
    return value;
  }

  Cursor& c_;
  Lexer& lex_;
  ShapeParser& shapes_;
};

// ---------------------------------------------------------------------------
// 5-7. The module parser
// ---------------------------------------------------------------------------

struct PendingOperand {
  Instruction* user;
  std::string name;
  size_t offset;
  bool control;  // control-predecessors entry rather than an operand
};

struct PendingCall {
  Instruction* inst;
  int64_t slot;
  std::string name;
  size_t offset;
};

enum class Attr {
  kUnknown, kDimensions, kWindow, kDimLabels, kFeatureGroupCount, kBatchGroupCount,
  kLhsBatchDims, kLhsContractingDims, kRhsBatchDims, kRhsContractingDims, kLhsRaggedDims,
  kRhsGroupDims, kOperandPrecision, kAlgorithm, kSparsity, kSlice, kDynamicSliceSizes, kPadding,
  kOffsetDims, kCollapsedSliceDims, kStartIndexMap, kOperandBatchingDims,
  kStartIndicesBatchingDims, kIndexVectorDim, kSliceSizes, kUpdateWindowDims,
  kInsertedWindowDims, kScatterDimsToOperandDims, kInputBatchingDims,
  kScatterIndicesBatchingDims, kIndicesAreSorted, kUniqueIndices, kDirection, kType, kKind,
  kIndex, kIotaDimension, kDistribution, kDelta, kExponentBits, kMantissaBits, kEpsilon,
  kFeatureIndex, kFftType, kFftLength, kLeftSide, kLower, kUnitDiagonal, kTransposeA, kIsStable,
  kK, kLargest, kNumCarries, kIsReverse, kIsAssociative, kParameterReplication,
  kCustomCallTarget, kApiVersion, kCustomCallHasSideEffect, kOutputToOperandAliasing,
  kOperandLayoutConstraints, kSchedule, kPaddingType, kChannelId, kReplicaGroups,
  kSourceTargetPairs, kUseGlobalDeviceIds, kConstrainLayout, kIsHostTransfer, kHasDynamicRoot,
  kInfeedConfig, kOutfeedConfig, kOutfeedShape, kCrossProgramPrefetchIndex,
  kAsyncExecutionThread, kToApply, kCalls, kCondition, kBody, kBranchComputations,
  kTrueComputation, kFalseComputation, kSelect, kScatter, kCalledComputations,
  kControlPredecessors, kSharding, kFrontendAttributes, kStatistics, kMetadata, kBackendConfig,
  kKnownRaw,  // origin, result_accuracy, domain, literal: kept verbatim
};

const std::unordered_map<std::string_view, Attr>& AttrTable() {
  static const auto* table = new std::unordered_map<std::string_view, Attr>{
      {"dimensions", Attr::kDimensions}, {"window", Attr::kWindow},
      {"dim_labels", Attr::kDimLabels}, {"feature_group_count", Attr::kFeatureGroupCount},
      {"batch_group_count", Attr::kBatchGroupCount}, {"lhs_batch_dims", Attr::kLhsBatchDims},
      {"lhs_contracting_dims", Attr::kLhsContractingDims}, {"rhs_batch_dims", Attr::kRhsBatchDims},
      {"rhs_contracting_dims", Attr::kRhsContractingDims},
      {"lhs_ragged_dims", Attr::kLhsRaggedDims}, {"rhs_group_dims", Attr::kRhsGroupDims},
      {"operand_precision", Attr::kOperandPrecision}, {"algorithm", Attr::kAlgorithm},
      {"sparsity", Attr::kSparsity}, {"slice", Attr::kSlice},
      {"dynamic_slice_sizes", Attr::kDynamicSliceSizes}, {"padding", Attr::kPadding},
      {"offset_dims", Attr::kOffsetDims}, {"collapsed_slice_dims", Attr::kCollapsedSliceDims},
      {"start_index_map", Attr::kStartIndexMap}, {"operand_batching_dims", Attr::kOperandBatchingDims},
      {"start_indices_batching_dims", Attr::kStartIndicesBatchingDims},
      {"index_vector_dim", Attr::kIndexVectorDim}, {"slice_sizes", Attr::kSliceSizes},
      {"update_window_dims", Attr::kUpdateWindowDims},
      {"inserted_window_dims", Attr::kInsertedWindowDims},
      {"scatter_dims_to_operand_dims", Attr::kScatterDimsToOperandDims},
      {"input_batching_dims", Attr::kInputBatchingDims},
      {"scatter_indices_batching_dims", Attr::kScatterIndicesBatchingDims},
      {"indices_are_sorted", Attr::kIndicesAreSorted}, {"unique_indices", Attr::kUniqueIndices},
      {"direction", Attr::kDirection}, {"type", Attr::kType}, {"kind", Attr::kKind},
      {"index", Attr::kIndex}, {"iota_dimension", Attr::kIotaDimension},
      {"distribution", Attr::kDistribution}, {"delta", Attr::kDelta},
      {"exponent_bits", Attr::kExponentBits}, {"mantissa_bits", Attr::kMantissaBits},
      {"epsilon", Attr::kEpsilon}, {"feature_index", Attr::kFeatureIndex},
      {"fft_type", Attr::kFftType}, {"fft_length", Attr::kFftLength},
      {"left_side", Attr::kLeftSide}, {"lower", Attr::kLower},
      {"unit_diagonal", Attr::kUnitDiagonal}, {"transpose_a", Attr::kTransposeA},
      {"is_stable", Attr::kIsStable}, {"k", Attr::kK}, {"largest", Attr::kLargest},
      {"num_carries", Attr::kNumCarries}, {"is_reverse", Attr::kIsReverse},
      {"is_associative", Attr::kIsAssociative},
      {"parameter_replication", Attr::kParameterReplication},
      {"custom_call_target", Attr::kCustomCallTarget}, {"api_version", Attr::kApiVersion},
      {"custom_call_has_side_effect", Attr::kCustomCallHasSideEffect},
      {"output_to_operand_aliasing", Attr::kOutputToOperandAliasing},
      {"operand_layout_constraints", Attr::kOperandLayoutConstraints},
      {"schedule", Attr::kSchedule}, {"custom_call_schedule", Attr::kSchedule},
      {"padding_type", Attr::kPaddingType}, {"channel_id", Attr::kChannelId},
      {"replica_groups", Attr::kReplicaGroups}, {"source_target_pairs", Attr::kSourceTargetPairs},
      {"use_global_device_ids", Attr::kUseGlobalDeviceIds},
      {"constrain_layout", Attr::kConstrainLayout}, {"is_host_transfer", Attr::kIsHostTransfer},
      {"has_dynamic_root", Attr::kHasDynamicRoot}, {"infeed_config", Attr::kInfeedConfig},
      {"outfeed_config", Attr::kOutfeedConfig}, {"outfeed_shape", Attr::kOutfeedShape},
      {"cross_program_prefetch_index", Attr::kCrossProgramPrefetchIndex},
      {"async_execution_thread", Attr::kAsyncExecutionThread}, {"to_apply", Attr::kToApply},
      {"calls", Attr::kCalls}, {"condition", Attr::kCondition}, {"body", Attr::kBody},
      {"branch_computations", Attr::kBranchComputations},
      {"true_computation", Attr::kTrueComputation}, {"false_computation", Attr::kFalseComputation},
      {"select", Attr::kSelect}, {"scatter", Attr::kScatter},
      {"called_computations", Attr::kCalledComputations},
      {"control-predecessors", Attr::kControlPredecessors}, {"sharding", Attr::kSharding},
      {"frontend_attributes", Attr::kFrontendAttributes}, {"statistics", Attr::kStatistics},
      {"metadata", Attr::kMetadata}, {"backend_config", Attr::kBackendConfig},
      {"origin", Attr::kKnownRaw}, {"result_accuracy", Attr::kKnownRaw},
      {"domain", Attr::kKnownRaw}, {"literal", Attr::kKnownRaw},
  };
  return *table;
}

class ModuleParser {
 public:
  ModuleParser(std::string_view text, const ParseOptions& options)
      : c_(text, options.filename), lex_(&c_), shapes_(&c_, &lex_), literals_(&c_, &lex_, &shapes_),
        options_(options) {}

  ParseResult ParseAll() {
    ParseResult result;
    c_.SkipSpace();
    c_.TakeSeparatorSeen();
    while (true) {
      c_.SkipSpace();
      c_.TakeSeparatorSeen();
      if (c_.AtEnd()) break;
      result.modules.push_back(ParseOneModule());
    }
    if (result.modules.empty()) c_.Fail(0, "no HLO module found (the file is empty or only comments)");
    result.warnings = std::move(warnings_);
    return result;
  }

  Cursor& cursor() { return c_; }

 private:
  // --- Modules ---
  std::unique_ptr<Module> ParseOneModule() {
    auto module = std::make_unique<Module>("");
    module->set_source_name(c_.filename());
    module_ = module.get();
    pending_calls_.clear();
    computations_.clear();
    size_t module_start = c_.pos();
    bool has_header = false;
    if (lex_.PeekIdentifier("HloModule")) {
      has_header = true;
      lex_.Identifier("HloModule");
      module->set_name(std::string(lex_.Name("module name", /*any_first=*/true)));
      while (c_.Consume(',')) ParseHeaderAttribute(module.get());
    }
    ParseStackFrameTables(module.get());
    Computation* marked_entry = nullptr;
    Computation* last = nullptr;
    size_t entry_offset = 0;
    while (true) {
      c_.SkipSpace();
      if (c_.AtEnd()) break;
      if (c_.TakeSeparatorSeen() && last != nullptr) break;
      if (lex_.PeekIdentifier("HloModule")) {
        if (last == nullptr) c_.FailHere("module header without computations");
        break;
      }
      if (AtStackFrameTable()) {
        // Some XLA versions write the tables after the computations.
        ParseStackFrameTables(module.get());
        continue;
      }
      size_t comp_offset = c_.pos();
      bool is_entry = false;
      Computation* comp = ParseComputation(&is_entry);
      if (is_entry) {
        if (marked_entry != nullptr) {
          c_.Fail(comp_offset, "more than one ENTRY computation (the first is %" +
                                   marked_entry->name() + ")");
        }
        marked_entry = comp;
        entry_offset = comp_offset;
      }
      last = comp;
    }
    (void)entry_offset;
    if (last == nullptr) {
      c_.Fail(module_start, has_header ? "module '" + module->name() + "' has no computations"
                                       : "expected a computation");
    }
    Computation* entry = marked_entry ? marked_entry : last;
    module->set_entry(entry);
    if (!has_header) module->set_name(entry->name());
    ResolveCalls(module.get());
    module_ = nullptr;
    return module;
  }

  void ParseHeaderAttribute(Module* m) {
    c_.SkipSpace();
    size_t at = c_.pos();
    std::string_view name = lex_.Identifier("module attribute name");
    c_.Expect('=', ("after module attribute " + std::string(name)).c_str());
    if (name == "entry_computation_layout") {
      c_.Expect('{', "to open entry_computation_layout");
      ComputationLayout layout;
      c_.Expect('(', "to open the parameter shapes of entry_computation_layout");
      if (!c_.Consume(')')) {
        do {
          layout.parameters.push_back(shapes_.Parse());
        } while (c_.Consume(','));
        c_.Expect(')', "to close the parameter shapes");
      }
      if (!c_.ConsumeStr("->")) c_.FailHere("expected '->' in entry_computation_layout");
      layout.result = shapes_.Parse();
      c_.Expect('}', "to close entry_computation_layout");
      m->entry_computation_layout = std::move(layout);
    } else if (name == "input_output_alias") {
      m->has_input_output_alias = true;
      c_.Expect('{', "to open input_output_alias");
      if (!c_.Consume('}')) {
        do {
          InputOutputAlias alias;
          alias.output_index = lex_.IntList("output shape index");
          c_.Expect(':', "in input_output_alias");
          c_.Expect('(', "in input_output_alias");
          alias.parameter_number = lex_.Int("parameter number");
          c_.Expect(',', "in input_output_alias");
          alias.parameter_index = lex_.IntList("parameter shape index");
          if (c_.Consume(',')) {
            std::string_view kind = lex_.Identifier("alias kind");
            if (kind != "may-alias" && kind != "must-alias") {
              c_.Fail(c_.pos() - kind.size(), "alias kind must be may-alias or must-alias");
            }
            alias.kind = std::string(kind);
          }
          c_.Expect(')', "in input_output_alias");
          m->input_output_alias.push_back(std::move(alias));
        } while (c_.Consume(','));
        c_.Expect('}', "to close input_output_alias");
      }
    } else if (name == "buffer_donor") {
      m->has_buffer_donor = true;
      c_.Expect('{', "to open buffer_donor");
      if (!c_.Consume('}')) {
        do {
          BufferDonor donor;
          c_.Expect('(', "in buffer_donor");
          donor.parameter_number = lex_.Int("parameter number");
          c_.Expect(',', "in buffer_donor");
          donor.parameter_index = lex_.IntList("parameter shape index");
          c_.Expect(')', "in buffer_donor");
          m->buffer_donor.push_back(std::move(donor));
        } while (c_.Consume(','));
        c_.Expect('}', "to close buffer_donor");
      }
    } else if (name == "is_scheduled") {
      m->is_scheduled = lex_.Bool("is_scheduled");
    } else if (name == "replica_count") {
      m->replica_count = lex_.Int("replica_count");
    } else if (name == "num_partitions") {
      m->num_partitions = lex_.Int("num_partitions");
    } else if (name == "alias_passthrough_params") {
      m->alias_passthrough_params = lex_.Bool("alias_passthrough_params");
    } else if (name == "allow_spmd_sharding_propagation_to_parameters") {
      m->has_allow_spmd_to_parameters = true;
      m->allow_spmd_sharding_propagation_to_parameters = lex_.BoolList(std::string(name).c_str());
    } else if (name == "allow_spmd_sharding_propagation_to_output") {
      m->has_allow_spmd_to_output = true;
      m->allow_spmd_sharding_propagation_to_output = lex_.BoolList(std::string(name).c_str());
    } else if (name == "frontend_attributes") {
      m->has_frontend_attributes = true;
      m->frontend_attributes = ParseFrontendAttributes();
    } else {
      m->raw_attributes.push_back({std::string(name), std::string(lex_.RawValue(std::string(name).c_str()))});
      (void)at;
    }
  }

  // A table keyword followed by a numbered row (or nothing), not by a computation body.
  bool AtStackFrameTable() {
    c_.SkipSpace();
    for (std::string_view word : {"FileNames", "FunctionNames", "FileLocations", "StackFrames"}) {
      if (!lex_.PeekIdentifier(word)) continue;
      size_t save = c_.pos();
      c_.set_pos(save + word.size());
      c_.SkipSpace();
      bool table = c_.AtEnd() || IsDigit(c_.Peek()) || IsNameStart(c_.Peek());
      if (c_.Peek() == '{' || c_.Peek() == '(') table = false;
      c_.set_pos(save);
      return table;
    }
    return false;
  }

  void ParseStackFrameTables(Module* m) {
    while (AtStackFrameTable()) {
      c_.SkipSpace();
      if (lex_.PeekIdentifier("FileNames") || lex_.PeekIdentifier("FunctionNames")) {
        bool files = lex_.Identifier("table") == "FileNames";
        auto& list = files ? m->stack_frames.file_names : m->stack_frames.function_names;
        while (AtTableRow()) {
          size_t at = c_.pos();
          int64_t id = lex_.Int("table id");
          if (id != static_cast<int64_t>(list.size()) + 1) {
            c_.Fail(at, "table ids must count up from 1; expected " + std::to_string(list.size() + 1));
          }
          list.push_back(lex_.String("table entry"));
        }
      } else if (lex_.PeekIdentifier("FileLocations")) {
        lex_.Identifier("table");
        while (AtTableRow()) {
          size_t at = c_.pos();
          int64_t id = lex_.Int("table id");
          if (id != static_cast<int64_t>(m->stack_frames.file_locations.size()) + 1) {
            c_.Fail(at, "FileLocations ids must count up from 1");
          }
          StackFrameIndex::FileLocation loc;
          ParseKeyInts({{"file_name_id", &loc.file_name_id}, {"function_name_id", &loc.function_name_id},
                        {"line", &loc.line}, {"end_line", &loc.end_line}, {"column", &loc.column},
                        {"end_column", &loc.end_column}});
          m->stack_frames.file_locations.push_back(loc);
        }
      } else if (lex_.PeekIdentifier("StackFrames")) {
        lex_.Identifier("table");
        while (AtTableRow()) {
          size_t at = c_.pos();
          int64_t id = lex_.Int("table id");
          if (id != static_cast<int64_t>(m->stack_frames.stack_frames.size()) + 1) {
            c_.Fail(at, "StackFrames ids must count up from 1");
          }
          StackFrameIndex::Frame frame;
          ParseKeyInts({{"file_location_id", &frame.file_location_id},
                        {"parent_frame_id", &frame.parent_frame_id}});
          m->stack_frames.stack_frames.push_back(frame);
        }
      } else {
        return;
      }
    }
  }

  bool AtTableRow() {
    c_.SkipSpace();
    return IsDigit(c_.Peek());
  }

  void ParseKeyInts(std::initializer_list<std::pair<std::string_view, int64_t*>> keys) {
    c_.Expect('{', "to open a table row");
    while (!c_.Consume('}')) {
      size_t at = c_.pos();
      std::string_view key = lex_.Identifier("table key");
      c_.Expect('=', "after table key");
      int64_t value = lex_.Int("table value");
      bool found = false;
      for (const auto& [name, slot] : keys) {
        if (name == key) {
          *slot = value;
          found = true;
        }
      }
      if (!found) c_.Fail(at, "unknown key '" + std::string(key) + "' in stack-frame table");
      c_.Consume(',');
    }
  }

  // --- Computations ---
  Computation* ParseComputation(bool* is_entry) {
    c_.SkipSpace();
    size_t start = c_.pos();
    if (lex_.PeekIdentifier("ENTRY")) {
      lex_.Identifier("ENTRY");
      *is_entry = true;
    }
    size_t name_at = c_.pos();
    c_.SkipSpace();
    name_at = c_.pos();
    std::string name(lex_.Name("computation name"));
    if (FindComputation(name) != nullptr) {
      c_.Fail(name_at, "duplicate computation name %" + name);
    }
    auto comp = std::make_unique<Computation>(name);
    comp->set_location(c_.LocationOf(start));
    // Optional signature: (a: f32[], b: s32[2]) -> f32[]
    std::vector<std::pair<std::string, Shape>> signature;
    bool has_signature = false;
    if (c_.Consume('(')) {
      has_signature = true;
      if (!c_.Consume(')')) {
        do {
          std::string pname(lex_.Name("parameter name", /*any_first=*/true));
          c_.Expect(':', "after parameter name in computation signature");
          signature.emplace_back(std::move(pname), shapes_.Parse());
        } while (c_.Consume(','));
        c_.Expect(')', "to close the computation signature");
      }
      if (!c_.ConsumeStr("->")) c_.FailHere("expected '->' after the computation's parameters");
      shapes_.Parse();
    }
    (void)has_signature;
    c_.SkipSpace();
    if (c_.Peek() != '{') {
      c_.FailHere("expected '{' to open the body of computation %" + name + ", found " + c_.Describe());
    }
    c_.set_pos(c_.pos() + 1);
    Computation* raw = module_->AddComputation(std::move(comp));
    computations_.emplace(name, raw);
    pending_operands_.clear();
    names_.clear();
    Instruction* root = nullptr;
    size_t root_at = 0;
    Instruction* last = nullptr;
    while (true) {
      c_.SkipSpace();
      if (c_.AtEnd()) {
        c_.Fail(start, "computation %" + name + " is not closed: missing '}'");
      }
      if (c_.Peek() == '}') {
        c_.set_pos(c_.pos() + 1);
        break;
      }
      bool is_root = false;
      size_t inst_at = c_.pos();
      if (lex_.PeekIdentifier("ROOT")) {
        lex_.Identifier("ROOT");
        is_root = true;
      }
      Instruction* inst = ParseInstruction(raw);
      if (is_root) {
        if (root != nullptr) {
          c_.Fail(inst_at, "computation %" + name + " has more than one ROOT (the first is %" +
                               root->name() + ")");
        }
        root = inst;
        root_at = inst_at;
      }
      last = inst;
    }
    (void)root_at;
    if (last == nullptr) c_.Fail(start, "computation %" + name + " has no instructions");
    raw->set_root(root ? root : last);
    if (c_.Consume(',')) {
      c_.SkipSpace();
      size_t at = c_.pos();
      std::string_view key = lex_.Identifier("computation attribute");
      if (key != "execution_thread") c_.Fail(at, "unknown computation attribute '" + std::string(key) + "'");
      c_.Expect('=', "after execution_thread");
      raw->set_execution_thread(lex_.String("execution_thread"));
    }
    ResolveOperands(raw);
    CheckParameters(raw, signature, start);
    return raw;
  }

  void CheckParameters(Computation* comp, const std::vector<std::pair<std::string, Shape>>& signature,
                       size_t start) {
    // Parameter numbers must be unique; gaps are a verifier error, duplicates a parse error
    // (the IR cannot hold two parameters with one number).
    std::unordered_map<int64_t, const Instruction*> seen;
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() != Opcode::kParameter) continue;
      auto [it, inserted] = seen.emplace(inst->parameter_number(), inst.get());
      if (!inserted) {
        c_.Fail(offsets_[inst.get()], "duplicate parameter number " + std::to_string(inst->parameter_number()) +
                                          " (also used by %" + it->second->name() + ")");
      }
    }
    // XLA's parser ignores the signature; so do we, but say when it disagrees.
    if (!signature.empty() && signature.size() != seen.size()) {
      warnings_.push_back({c_.LocationOf(start),
                           "computation %" + comp->name() + " declares " +
                               std::to_string(signature.size()) +
                               " parameters in its signature but has " + std::to_string(seen.size()) +
                               " parameter instructions"});
    }
  }

  // --- Instructions ---
  Instruction* ParseInstruction(Computation* comp) {
    c_.SkipSpace();
    size_t start = c_.pos();
    std::string name(lex_.Name("instruction name"));
    if (names_.count(name)) {
      c_.Fail(start, "duplicate instruction name %" + name + " in computation %" + comp->name() +
                         " (first defined at line " +
                         std::to_string(names_[name]->location().line) + ")");
    }
    c_.Expect('=', ("after instruction name %" + name).c_str());
    // The shape may be left out (XLA's parser infers it then); it is inferred once the
    // computation's operands are resolved.
    bool infer_shape = !shapes_.AtShape();
    Shape shape = infer_shape ? Shape() : shapes_.Parse();
    c_.SkipSpace();
    size_t op_at = c_.pos();
    std::string_view rest = c_.Rest();
    size_t n = 0;
    while (n < rest.size() && (std::islower(static_cast<unsigned char>(rest[n])) ||
                               IsDigit(rest[n]) || rest[n] == '-' || rest[n] == '_')) {
      ++n;
    }
    if (n == 0) c_.Fail(op_at, "expected opcode, found " + c_.Describe());
    std::string_view opname = rest.substr(0, n);
    std::optional<Opcode> opcode = ParseOpcode(opname);
    if (!opcode) c_.Fail(op_at, "unknown opcode '" + std::string(opname) + "'");
    c_.set_pos(op_at + n);
    auto inst = std::make_unique<Instruction>(*opcode, name, std::move(shape));
    inst->set_location(c_.LocationOf(start));
    Instruction* raw = inst.get();
    offsets_[raw] = start;
    if (infer_shape) shape_pending_.push_back(raw);
    c_.Expect('(', ("after opcode " + std::string(opname)).c_str());
    if (*opcode == Opcode::kParameter) {
      size_t at = c_.pos();
      int64_t number = lex_.Int("parameter number");
      if (number < 0) c_.Fail(at, "negative parameter number");
      if (number >= (1 << 20)) c_.Fail(at, "parameter number " + std::to_string(number) + " is too large");
      raw->set_parameter_number(number);
      c_.Expect(')', "to close parameter(...)");
    } else if (*opcode == Opcode::kConstant) {
      const Shape& s = raw->shape();
      auto literal = literals_.Parse(s);
      if (literal == nullptr) {
        raw->set_literal_elided(true);
      } else {
        raw->set_literal(std::move(literal));
      }
      c_.Expect(')', "to close constant(...)");
    } else {
      if (!c_.Consume(')')) {
        do {
          c_.SkipSpace();
          if (shapes_.AtShape()) shapes_.Parse();
          c_.SkipSpace();
          size_t at = c_.pos();
          std::string operand(lex_.Name("operand name"));
          // Appended once the computation is parsed (operands may be defined later).
          pending_operands_.push_back({raw, std::move(operand), at, false});
        } while (c_.Consume(','));
        c_.Expect(')', "to close the operand list");
      }
    }
    comp->AddInstruction(std::move(inst));
    names_[raw->name()] = raw;
    seen_attr_names_.clear();
    while (c_.Consume(',')) ParseAttribute(raw);
    return raw;
  }

  void ParseAttribute(Instruction* inst) {
    c_.SkipSpace();
    size_t at = c_.pos();
    std::string_view name = lex_.Identifier("attribute name");
    std::string key(name);
    c_.Expect('=', ("after attribute name " + key).c_str());
    auto it = AttrTable().find(name);
    Attr attr = it == AttrTable().end() ? Attr::kUnknown : it->second;
    if (!seen_attr_names_.insert(name).second) c_.Fail(at, "attribute '" + key + "' given twice");
    if (attr == Attr::kMetadata) {
      inst->set_metadata(ParseMetadata());
      return;
    }
    InstructionAttributes& a = inst->mutable_attrs();
    const char* what = key.c_str();
    switch (attr) {
      case Attr::kUnknown: {
        std::string value(lex_.RawValue(what));
        if (!options_.allow_unknown_attributes) c_.Fail(at, "unknown attribute '" + key + "'");
        warnings_.push_back({c_.LocationOf(at), "unknown attribute '" + key + "' on %" + inst->name() +
                                                    " kept verbatim"});
        a.raw.push_back({key, std::move(value)});
        break;
      }
      case Attr::kKnownRaw:
        a.raw.push_back({key, std::string(lex_.RawValue(what))});
        break;
      case Attr::kDimensions: a.dimensions = lex_.IntList(what); break;
      case Attr::kWindow: a.window = ParseWindow(); break;
      case Attr::kDimLabels: a.convolution_dimension_numbers = ParseDimLabels(); break;
      case Attr::kFeatureGroupCount: a.feature_group_count = Positive(what); break;
      case Attr::kBatchGroupCount: a.batch_group_count = Positive(what); break;
      case Attr::kLhsBatchDims: Dot(a).lhs_batch_dimensions = lex_.IntList(what); break;
      case Attr::kLhsContractingDims: Dot(a).lhs_contracting_dimensions = lex_.IntList(what); break;
      case Attr::kRhsBatchDims: Dot(a).rhs_batch_dimensions = lex_.IntList(what); break;
      case Attr::kRhsContractingDims: Dot(a).rhs_contracting_dimensions = lex_.IntList(what); break;
      case Attr::kLhsRaggedDims: Ragged(a).lhs_ragged_dimensions = lex_.IntList(what); break;
      case Attr::kRhsGroupDims: Ragged(a).rhs_group_dimensions = lex_.IntList(what); break;
      case Attr::kOperandPrecision: {
        c_.Expect('{', what);
        if (!c_.Consume('}')) {
          do {
            size_t p = c_.pos();
            std::string_view v = lex_.Identifier("precision");
            auto prec = ParsePrecision(v);
            if (!prec) c_.Fail(p, "unknown precision '" + std::string(v) + "'");
            a.operand_precision.push_back(*prec);
          } while (c_.Consume(','));
          c_.Expect('}', "to close operand_precision");
        }
        break;
      }
      case Attr::kAlgorithm: {
        size_t p = c_.pos();
        std::string_view v = lex_.Identifier(what);
        if (inst->opcode() == Opcode::kRngBitGenerator) {
          a.rng_algorithm = ParseRandomAlgorithm(v);
          if (!a.rng_algorithm) c_.Fail(p, "unknown rng algorithm '" + std::string(v) + "'");
        } else {
          a.dot_algorithm = std::string(v);
        }
        break;
      }
      case Attr::kSparsity: a.sparsity = std::string(lex_.RawValue(what)); break;
      case Attr::kSlice: a.slice = ParseSlice(); break;
      case Attr::kDynamicSliceSizes: a.dynamic_slice_sizes = lex_.IntList(what); break;
      case Attr::kPadding: a.padding = ParsePadding(); break;
      case Attr::kOffsetDims: Gather(a).offset_dims = lex_.IntList(what); break;
      case Attr::kCollapsedSliceDims: Gather(a).collapsed_slice_dims = lex_.IntList(what); break;
      case Attr::kStartIndexMap: Gather(a).start_index_map = lex_.IntList(what); break;
      case Attr::kOperandBatchingDims: Gather(a).operand_batching_dims = lex_.IntList(what); break;
      case Attr::kStartIndicesBatchingDims: Gather(a).start_indices_batching_dims = lex_.IntList(what); break;
      case Attr::kIndexVectorDim: {
        int64_t v = lex_.Int(what);
        if (inst->opcode() == Opcode::kScatter) Scatter(a).index_vector_dim = v;
        else Gather(a).index_vector_dim = v;
        break;
      }
      case Attr::kSliceSizes: {
        c_.SkipSpace();
        std::string_view r = c_.Rest();
        size_t i = 1;
        while (i < r.size() && (r[i] == ' ' || r[i] == '\n')) ++i;
        if (r.size() > i && r[0] == '{' && r[i] == '{') {
          c_.Expect('{', what);
          do {
            a.slice_sizes_list.push_back(lex_.IntList(what));
          } while (c_.Consume(','));
          c_.Expect('}', "to close slice_sizes");
        } else {
          a.gather_slice_sizes = lex_.IntList(what);
          Gather(a);
        }
        break;
      }
      case Attr::kUpdateWindowDims: Scatter(a).update_window_dims = lex_.IntList(what); break;
      case Attr::kInsertedWindowDims: Scatter(a).inserted_window_dims = lex_.IntList(what); break;
      case Attr::kScatterDimsToOperandDims: Scatter(a).scatter_dims_to_operand_dims = lex_.IntList(what); break;
      case Attr::kInputBatchingDims: Scatter(a).input_batching_dims = lex_.IntList(what); break;
      case Attr::kScatterIndicesBatchingDims: Scatter(a).scatter_indices_batching_dims = lex_.IntList(what); break;
      case Attr::kIndicesAreSorted: a.indices_are_sorted = lex_.Bool(what); break;
      case Attr::kUniqueIndices: a.unique_indices = lex_.Bool(what); break;
      case Attr::kDirection: a.comparison_direction = Enum(ParseComparisonDirection, what); break;
      case Attr::kType: a.comparison_type = Enum(ParseComparisonType, what); break;
      case Attr::kKind: a.fusion_kind = Enum(ParseFusionKind, what); break;
      case Attr::kIndex: a.tuple_index = NonNegative(what); break;
      case Attr::kIotaDimension: a.iota_dimension = NonNegative(what); break;
      case Attr::kDistribution: a.distribution = Enum(ParseRandomDistribution, what); break;
      case Attr::kDelta: a.rng_delta = lex_.Int(what); break;
      case Attr::kExponentBits: a.exponent_bits = NonNegative(what); break;
      case Attr::kMantissaBits: a.mantissa_bits = NonNegative(what); break;
      case Attr::kEpsilon: {
        c_.SkipSpace();
        std::string_view r = c_.Rest();
        double v = 0;
        auto res = std::from_chars(r.data(), r.data() + r.size(), v);
        if (res.ec != std::errc()) c_.FailHere("expected a number for epsilon");
        c_.set_pos(c_.pos() + static_cast<size_t>(res.ptr - r.data()));
        a.epsilon = v;
        break;
      }
      case Attr::kFeatureIndex: a.feature_index = NonNegative(what); break;
      case Attr::kFftType: a.fft_type = Enum(ParseFftType, what); break;
      case Attr::kFftLength: a.fft_length = lex_.IntList(what); break;
      case Attr::kLeftSide: a.left_side = lex_.Bool(what); break;
      case Attr::kLower: a.lower = lex_.Bool(what); break;
      case Attr::kUnitDiagonal: a.unit_diagonal = lex_.Bool(what); break;
      case Attr::kTransposeA: a.transpose_a = Enum(ParseTransposeA, what); break;
      case Attr::kIsStable: a.is_stable = lex_.Bool(what); break;
      case Attr::kK: a.k = NonNegative(what); break;
      case Attr::kLargest: a.largest = lex_.Bool(what); break;
      case Attr::kNumCarries: a.num_carries = NonNegative(what); break;
      case Attr::kIsReverse: a.is_reverse = lex_.Bool(what); break;
      case Attr::kIsAssociative: a.is_associative = lex_.Bool(what); break;
      case Attr::kParameterReplication:
        a.has_parameter_replication = true;
        a.parameter_replication = lex_.BoolList(what);
        break;
      case Attr::kCustomCallTarget:
        a.has_custom_call_target = true;
        a.custom_call_target = lex_.String(what);
        break;
      case Attr::kApiVersion: a.api_version = Enum(ParseCustomCallApiVersion, what); break;
      case Attr::kCustomCallHasSideEffect: a.custom_call_has_side_effect = lex_.Bool(what); break;
      case Attr::kOutputToOperandAliasing: {
        a.has_output_to_operand_aliasing = true;
        c_.Expect('{', what);
        if (!c_.Consume('}')) {
          do {
            OutputOperandAlias alias;
            alias.output_index = lex_.IntList("output shape index");
            c_.Expect(':', "in output_to_operand_aliasing");
            c_.Expect('(', "in output_to_operand_aliasing");
            alias.operand_number = NonNegative("operand number");
            c_.Expect(',', "in output_to_operand_aliasing");
            alias.operand_index = lex_.IntList("operand shape index");
            c_.Expect(')', "in output_to_operand_aliasing");
            a.output_to_operand_aliasing.push_back(std::move(alias));
          } while (c_.Consume(','));
          c_.Expect('}', "to close output_to_operand_aliasing");
        }
        break;
      }
      case Attr::kOperandLayoutConstraints: {
        a.has_operand_layout_constraints = true;
        c_.Expect('{', what);
        if (!c_.Consume('}')) {
          do {
            a.operand_layout_constraints.push_back(shapes_.Parse());
          } while (c_.Consume(','));
          c_.Expect('}', "to close operand_layout_constraints");
        }
        break;
      }
      case Attr::kSchedule: a.custom_call_schedule = std::string(lex_.Identifier(what)); break;
      case Attr::kPaddingType: a.padding_type = std::string(lex_.Identifier(what)); break;
      case Attr::kChannelId: a.channel_id = lex_.Int(what); break;
      case Attr::kReplicaGroups: a.replica_groups = ParseReplicaGroups(); break;
      case Attr::kSourceTargetPairs: {
        a.has_source_target_pairs = true;
        c_.Expect('{', what);
        if (!c_.Consume('}')) {
          do {
            c_.Expect('{', "to open a source-target pair");
            int64_t s = lex_.Int("source");
            c_.Expect(',', "in a source-target pair");
            int64_t t = lex_.Int("target");
            c_.Expect('}', "to close a source-target pair");
            a.source_target_pairs.emplace_back(s, t);
          } while (c_.Consume(','));
          c_.Expect('}', "to close source_target_pairs");
        }
        break;
      }
      case Attr::kUseGlobalDeviceIds: a.use_global_device_ids = lex_.Bool(what); break;
      case Attr::kConstrainLayout: a.constrain_layout = lex_.Bool(what); break;
      case Attr::kIsHostTransfer: a.is_host_transfer = lex_.Bool(what); break;
      case Attr::kHasDynamicRoot: a.has_dynamic_root = lex_.Bool(what); break;
      case Attr::kInfeedConfig:
        a.has_infeed_config = true;
        a.infeed_config = lex_.String(what);
        break;
      case Attr::kOutfeedConfig:
        a.has_outfeed_config = true;
        a.outfeed_config = lex_.String(what);
        break;
      case Attr::kOutfeedShape: a.outfeed_shape = shapes_.Parse(); break;
      case Attr::kCrossProgramPrefetchIndex: a.cross_program_prefetch_index = lex_.Int(what); break;
      case Attr::kAsyncExecutionThread:
        a.has_async_execution_thread = true;
        a.async_execution_thread = lex_.String(what);
        break;
      case Attr::kToApply: Call(inst, CallForm::kToApply, 0); break;
      case Attr::kCalls: {
        c_.SkipSpace();
        if (c_.Peek() == '{') {
          CallList(inst, CallForm::kCalls);
        } else {
          Call(inst, CallForm::kCalls, 0);
        }
        break;
      }
      case Attr::kCondition: Call(inst, CallForm::kConditionBody, 0); break;
      case Attr::kBody: Call(inst, CallForm::kConditionBody, 1); break;
      case Attr::kBranchComputations: CallList(inst, CallForm::kBranches); break;
      case Attr::kTrueComputation: Call(inst, CallForm::kTrueFalse, 0); break;
      case Attr::kFalseComputation: Call(inst, CallForm::kTrueFalse, 1); break;
      case Attr::kSelect: Call(inst, CallForm::kSelectScatter, 0); break;
      case Attr::kScatter: Call(inst, CallForm::kSelectScatter, 1); break;
      case Attr::kCalledComputations: CallList(inst, CallForm::kCalledComputations); break;
      case Attr::kControlPredecessors: {
        c_.Expect('{', what);
        if (!c_.Consume('}')) {
          do {
            c_.SkipSpace();
            size_t p = c_.pos();
            pending_operands_.push_back({inst, std::string(lex_.Name("control predecessor")), p, true});
          } while (c_.Consume(','));
          c_.Expect('}', "to close control-predecessors");
        }
        break;
      }
      case Attr::kSharding:
        a.has_sharding = true;
        a.sharding = std::string(lex_.BracedRaw(what));
        break;
      case Attr::kFrontendAttributes:
        a.has_frontend_attributes = true;
        a.frontend_attributes = ParseFrontendAttributes();
        break;
      case Attr::kStatistics:
        a.has_statistics = true;
        a.statistics = std::string(lex_.BracedRaw(what));
        break;
      case Attr::kMetadata: break;  // handled above
      case Attr::kBackendConfig: {
        c_.SkipSpace();
        a.has_backend_config = true;
        if (c_.Peek() == '"') {
          a.backend_config_is_string = true;
          a.backend_config = lex_.String(what);
        } else if (c_.Peek() == '{') {
          size_t open = c_.pos();
          lex_.BracedRaw(what);
          a.backend_config = std::string(c_.text().substr(open, c_.pos() - open));
        } else {
          c_.FailHere("expected a string or a {...} JSON object for backend_config");
        }
        break;
      }
    }
  }

  // Attribute helpers.
  DotDimensionNumbers& Dot(InstructionAttributes& a) {
    if (!a.dot_dimension_numbers) a.dot_dimension_numbers.emplace();
    return *a.dot_dimension_numbers;
  }
  RaggedDotDimensionNumbers& Ragged(InstructionAttributes& a) {
    if (!a.ragged_dot_dimension_numbers) a.ragged_dot_dimension_numbers.emplace();
    return *a.ragged_dot_dimension_numbers;
  }
  GatherDimensionNumbers& Gather(InstructionAttributes& a) {
    if (!a.gather_dimension_numbers) a.gather_dimension_numbers.emplace();
    return *a.gather_dimension_numbers;
  }
  ScatterDimensionNumbers& Scatter(InstructionAttributes& a) {
    if (!a.scatter_dimension_numbers) a.scatter_dimension_numbers.emplace();
    return *a.scatter_dimension_numbers;
  }
  template <typename Fn>
  auto Enum(Fn parse, const char* what) -> decltype(parse(std::string_view())) {
    c_.SkipSpace();
    size_t p = c_.pos();
    std::string_view v = lex_.Identifier(what);
    auto value = parse(v);
    if (!value) c_.Fail(p, "unknown value '" + std::string(v) + "' for " + what);
    return value;
  }
  int64_t NonNegative(const char* what) {
    c_.SkipSpace();
    size_t p = c_.pos();
    int64_t v = lex_.Int(what);
    if (v < 0) c_.Fail(p, std::string(what) + " must not be negative");
    return v;
  }
  int64_t Positive(const char* what) {
    c_.SkipSpace();
    size_t p = c_.pos();
    int64_t v = lex_.Int(what);
    if (v <= 0) c_.Fail(p, std::string(what) + " must be positive");
    return v;
  }

  void Call(Instruction* inst, CallForm form, int64_t slot) {
    c_.SkipSpace();
    size_t p = c_.pos();
    std::string name(lex_.Name("computation name"));
    if (inst->call_form() != CallForm::kNone && inst->call_form() != form) {
      c_.Fail(p, "conflicting ways of naming called computations on %" + inst->name());
    }
    inst->set_call_form(form);
    while (static_cast<int64_t>(inst->called_computations().size()) <= slot) {
      inst->AppendCalledComputation(nullptr);
    }
    // Callees defined earlier are linked now (shape inference may need them); later ones
    // at the end of the module.
    inst->set_called_computation(slot, FindComputation(name));
    pending_calls_.push_back({inst, slot, std::move(name), p});
  }

  void CallList(Instruction* inst, CallForm form) {
    c_.Expect('{', "to open a list of computations");
    if (inst->call_form() != CallForm::kNone && inst->call_form() != form) {
      c_.FailHere("conflicting ways of naming called computations on %" + inst->name());
    }
    inst->set_call_form(form);
    if (c_.Consume('}')) return;
    do {
      c_.SkipSpace();
      size_t p = c_.pos();
      std::string name(lex_.Name("computation name"));
      int64_t slot = static_cast<int64_t>(inst->called_computations().size());
      inst->AppendCalledComputation(FindComputation(name));
      pending_calls_.push_back({inst, slot, std::move(name), p});
    } while (c_.Consume(','));
    c_.Expect('}', "to close the list of computations");
  }

  Window ParseWindow() {
    c_.Expect('{', "to open window");
    Window window;
    bool have_size = false;
    auto fill = [&](size_t at, const char* key, const std::vector<int64_t>& values, auto setter) {
      if (window.dimensions.empty() && !have_size) window.dimensions.resize(values.size());
      if (values.size() != window.dimensions.size()) {
        c_.Fail(at, std::string("window ") + key + " has " + std::to_string(values.size()) +
                        " dimensions, expected " + std::to_string(window.dimensions.size()));
      }
      for (size_t i = 0; i < values.size(); ++i) setter(window.dimensions[i], values[i]);
    };
    while (!c_.Consume('}')) {
      c_.SkipSpace();
      size_t at = c_.pos();
      if (c_.AtEnd()) c_.Fail(at, "unterminated window");
      std::string_view key = lex_.Identifier("window field");
      c_.Expect('=', "after window field");
      if (key == "size") {
        auto v = lex_.XList("window size");
        fill(at, "size", v, [](WindowDimension& d, int64_t x) { d.size = x; });
        have_size = true;
      } else if (key == "stride") {
        fill(at, "stride", lex_.XList("window stride"), [](WindowDimension& d, int64_t x) { d.stride = x; });
      } else if (key == "lhs_dilate") {
        fill(at, "lhs_dilate", lex_.XList("lhs_dilate"), [](WindowDimension& d, int64_t x) { d.base_dilation = x; });
      } else if (key == "rhs_dilate") {
        fill(at, "rhs_dilate", lex_.XList("rhs_dilate"), [](WindowDimension& d, int64_t x) { d.window_dilation = x; });
      } else if (key == "rhs_reversal") {
        fill(at, "rhs_reversal", lex_.XList("rhs_reversal"),
             [](WindowDimension& d, int64_t x) { d.window_reversal = x != 0; });
      } else if (key == "pad") {
        auto pads = ParsePadding();
        std::vector<int64_t> lows;
        for (const auto& p : pads) {
          if (p.interior != 0) c_.Fail(at, "window padding takes low_high pairs only");
          lows.push_back(p.low);
        }
        size_t i = 0;
        fill(at, "pad", lows, [&](WindowDimension& d, int64_t x) {
          d.padding_low = x;
          d.padding_high = pads[i++].high;
        });
      } else {
        c_.Fail(at, "unknown window field '" + std::string(key) + "'");
      }
    }
    return window;
  }

  std::vector<PaddingDimension> ParsePadding() {
    std::vector<PaddingDimension> result;
    c_.SkipSpace();
    while (true) {
      size_t at = c_.pos();
      PaddingDimension p;
      p.low = lex_.IntNoSpace("padding");
      if (c_.Peek() != '_') c_.Fail(c_.pos(), "expected '_' in padding (low_high[_interior])");
      c_.set_pos(c_.pos() + 1);
      p.high = lex_.IntNoSpace("padding");
      if (c_.Peek() == '_') {
        c_.set_pos(c_.pos() + 1);
        p.interior = lex_.IntNoSpace("padding");
        if (p.interior < 0) c_.Fail(at, "interior padding must not be negative");
      }
      result.push_back(p);
      if (c_.Peek() != 'x') break;
      c_.set_pos(c_.pos() + 1);
    }
    return result;
  }

  std::vector<SliceDimension> ParseSlice() {
    c_.Expect('{', "to open slice");
    std::vector<SliceDimension> dims;
    if (c_.Consume('}')) return dims;
    do {
      c_.Expect('[', "to open a slice dimension");
      SliceDimension d;
      d.start = lex_.Int("slice start");
      c_.Expect(':', "in slice dimension");
      d.limit = lex_.Int("slice limit");
      if (c_.Consume(':')) {
        size_t at = c_.pos();
        d.stride = lex_.Int("slice stride");
        if (d.stride <= 0) c_.Fail(at, "slice stride must be positive");
      }
      c_.Expect(']', "to close a slice dimension");
      dims.push_back(d);
    } while (c_.Consume(','));
    c_.Expect('}', "to close slice");
    return dims;
  }

  ConvolutionDimensionNumbers ParseDimLabels() {
    c_.SkipSpace();
    size_t at = c_.pos();
    std::string_view text = c_.text();
    size_t p = at;
    while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '_' ||
                               text[p] == '-' || text[p] == '>' || text[p] == '?')) {
      ++p;
    }
    std::string_view labels = text.substr(at, p - at);
    c_.set_pos(p);
    size_t us = labels.find('_');
    size_t arrow = labels.find("->");
    if (us == std::string_view::npos || arrow == std::string_view::npos || arrow < us) {
      c_.Fail(at, "dim_labels must look like b01f_01io->b01f, found '" + std::string(labels) + "'");
    }
    std::string_view in = labels.substr(0, us), kernel = labels.substr(us + 1, arrow - us - 1),
                     out = labels.substr(arrow + 2);
    if (in.size() != kernel.size() || in.size() != out.size() || in.size() < 2) {
      c_.Fail(at, "dim_labels parts must have equal length (" + std::string(labels) + ")");
    }
    ConvolutionDimensionNumbers dn;
    size_t spatial = in.size() - 2;
    dn.input_spatial_dimensions.assign(spatial, -1);
    dn.kernel_spatial_dimensions.assign(spatial, -1);
    dn.output_spatial_dimensions.assign(spatial, -1);
    auto decode = [&](std::string_view part, char a, char b, int64_t* da, int64_t* db,
                      std::vector<int64_t>* sp, const char* which) {
      *da = *db = -1;
      for (size_t i = 0; i < part.size(); ++i) {
        char ch = part[i];
        int64_t dim = static_cast<int64_t>(i);
        if (ch == a && *da < 0) {
          *da = dim;
        } else if (ch == b && *db < 0) {
          *db = dim;
        } else if (IsDigit(ch) && static_cast<size_t>(ch - '0') < spatial && (*sp)[ch - '0'] < 0) {
          (*sp)[ch - '0'] = dim;
        } else {
          c_.Fail(at, std::string("bad ") + which + " label '" + ch + "' in dim_labels " + std::string(labels));
        }
      }
      if (*da < 0 || *db < 0) {
        c_.Fail(at, std::string(which) + " labels must contain '" + a + "' and '" + b + "'");
      }
    };
    decode(in, 'b', 'f', &dn.input_batch_dimension, &dn.input_feature_dimension,
           &dn.input_spatial_dimensions, "input");
    decode(kernel, 'i', 'o', &dn.kernel_input_feature_dimension, &dn.kernel_output_feature_dimension,
           &dn.kernel_spatial_dimensions, "kernel");
    decode(out, 'b', 'f', &dn.output_batch_dimension, &dn.output_feature_dimension,
           &dn.output_spatial_dimensions, "output");
    return dn;
  }

  ReplicaGroups ParseReplicaGroups() {
    ReplicaGroups groups;
    c_.SkipSpace();
    if (c_.Peek() == '[') {
      groups.iota = true;
      auto bracket_list = [&](const char* what) {
        c_.Expect('[', what);
        std::vector<int64_t> v;
        if (!c_.Consume(']')) {
          do {
            v.push_back(lex_.Int(what));
          } while (c_.Consume(','));
          c_.Expect(']', what);
        }
        return v;
      };
      groups.iota_group_shape = bracket_list("replica group shape");
      if (!c_.ConsumeStr("<=")) c_.FailHere("expected '<=' in iota replica groups");
      groups.iota_reshape_dims = bracket_list("replica group reshape dims");
      if (c_.Peek() == 'T' && c_.Peek(1) == '(') {
        c_.set_pos(c_.pos() + 2);
        do {
          groups.iota_transpose_perm.push_back(lex_.Int("transpose permutation"));
        } while (c_.Consume(','));
        c_.Expect(')', "to close T(...)");
      }
      return groups;
    }
    if (c_.Peek() != '{') {
      // Newer forms (mesh[...] {...}) are kept verbatim.
      groups.raw = std::string(lex_.RawValue("replica_groups"));
      return groups;
    }
    c_.Expect('{', "to open replica_groups");
    if (c_.Consume('}')) return groups;
    do {
      groups.groups.push_back(lex_.IntList("replica group"));
    } while (c_.Consume(','));
    c_.Expect('}', "to close replica_groups");
    return groups;
  }

  std::vector<std::pair<std::string, std::string>> ParseFrontendAttributes() {
    c_.Expect('{', "to open frontend_attributes");
    std::vector<std::pair<std::string, std::string>> attrs;
    if (c_.Consume('}')) return attrs;
    do {
      c_.SkipSpace();
      std::string key;
      if (c_.Peek() == '"') {
        key = lex_.String("frontend attribute key");
      } else {
        key = std::string(lex_.Identifier("frontend attribute key"));
      }
      c_.Expect('=', "after frontend attribute key");
      c_.SkipSpace();
      std::string value;
      if (c_.Peek() == '"') {
        value = lex_.String("frontend attribute value");
      } else {
        value = std::string(lex_.RawValue("frontend attribute value"));
        // RawValue stops at '}' of the enclosing list.
      }
      attrs.emplace_back(std::move(key), std::move(value));
    } while (c_.Consume(','));
    c_.Expect('}', "to close frontend_attributes");
    return attrs;
  }

  OpMetadata ParseMetadata() {
    c_.Expect('{', "to open metadata");
    OpMetadata md;
    while (true) {
      c_.SkipSpace();
      if (c_.Consume('}')) break;
      if (c_.AtEnd()) c_.FailHere("unterminated metadata");
      size_t at = c_.pos();
      std::string_view key = lex_.Identifier("metadata key");
      c_.Expect('=', "after metadata key");
      if (key == "op_type") md.op_type = lex_.String("op_type");
      else if (key == "op_name") md.op_name = lex_.String("op_name");
      else if (key == "source_file") md.source_file = lex_.String("source_file");
      else if (key == "source_line") md.source_line = lex_.Int("source_line");
      else if (key == "source_end_line") md.source_end_line = lex_.Int("source_end_line");
      else if (key == "source_column") md.source_column = lex_.Int("source_column");
      else if (key == "source_end_column") md.source_end_column = lex_.Int("source_end_column");
      else if (key == "stack_frame_id") md.stack_frame_id = lex_.Int("stack_frame_id");
      else if (key == "deduplicated_name") md.deduplicated_name = lex_.String("deduplicated_name");
      else if (key == "scheduling_name") md.scheduling_name = lex_.String("scheduling_name");
      else if (key == "preserve_layout") md.preserve_layout = lex_.Bool("preserve_layout");
      else {
        c_.SkipSpace();
        size_t vstart = c_.pos();
        if (c_.Peek() == '"') {
          lex_.String("metadata value");
        } else if (c_.Peek() == '{') {
          lex_.BracedRaw("metadata value");
        } else {
          while (!c_.AtEnd() && c_.Peek() != ' ' && c_.Peek() != '}' && c_.Peek() != '\n') {
            c_.set_pos(c_.pos() + 1);
          }
        }
        if (c_.pos() == vstart) c_.Fail(at, "expected a value for metadata key " + std::string(key));
        md.extra.emplace_back(std::string(key), std::string(c_.text().substr(vstart, c_.pos() - vstart)));
      }
      c_.Consume(',');
    }
    return md;
  }

  // --- Resolution ---
  // The parser's own name index: Module::FindComputation scans every computation on a
  // miss, which made each new name cost O(computations) and long files quadratic.
  Computation* FindComputation(const std::string& name) const {
    auto it = computations_.find(name);
    return it == computations_.end() ? nullptr : it->second;
  }

  void ResolveOperands(Computation* comp) {
    for (const PendingOperand& p : pending_operands_) {
      if (names_.find(p.name) == names_.end()) {
        c_.Fail(p.offset, std::string(p.control ? "control predecessor" : "operand") + " %" + p.name +
                              " is not defined in computation %" + comp->name());
      }
    }
    // Pending entries are in text order, so each user gets its operands in order. (Appending
    // here rather than patching placeholders keeps wide operand lists linear.)
    for (const PendingOperand& p : pending_operands_) {
      Instruction* target = names_.find(p.name)->second;
      if (p.control) {
        p.user->AddControlPredecessor(target);
      } else {
        p.user->AppendOperand(target);
      }
    }
    pending_operands_.clear();
    CheckAcyclic(comp);
    if (!shape_pending_.empty()) InferPendingShapes(comp);
  }

  void InferPendingShapes(Computation* comp) {
    std::unordered_set<const Instruction*> pending(shape_pending_.begin(), shape_pending_.end());
    shape_pending_.clear();
    for (Instruction* inst : comp->PostOrder()) {
      if (!pending.count(inst)) continue;
      if (inst->opcode() == Opcode::kParameter || inst->opcode() == Opcode::kConstant) {
        c_.Fail(offsets_[inst], "%" + inst->name() + ": the shape of a " +
                                    std::string(OpcodeName(inst->opcode())) + " must be written");
      }
      for (const Computation* callee : inst->called_computations()) {
        if (callee == nullptr) {
          c_.Fail(offsets_[inst], "%" + inst->name() +
                                      ": shape omitted, and a computation it calls is defined later "
                                      "in the file; write the shape or define the callee first");
        }
      }
      StatusOr<Shape> inferred = InferShape(*inst);
      if (!inferred.ok()) {
        c_.Fail(offsets_[inst], "%" + inst->name() + ": shape omitted and cannot be inferred: " +
                                    inferred.status().message());
      }
      inst->set_shape(std::move(inferred).value());
    }
  }

  void CheckAcyclic(Computation* comp) {
    // Iterative three-colour DFS over operand and control edges.
    std::unordered_map<const Instruction*, int> colour;
    for (const auto& start : comp->instructions()) {
      if (colour[start.get()] != 0) continue;
      std::vector<std::pair<const Instruction*, size_t>> stack = {{start.get(), 0}};
      colour[start.get()] = 1;
      while (!stack.empty()) {
        auto& [inst, next] = stack.back();
        size_t n_ops = inst->operands().size();
        size_t total = n_ops + inst->control_predecessors().size();
        if (next < total) {
          const Instruction* dep =
              next < n_ops ? inst->operands()[next] : inst->control_predecessors()[next - n_ops];
          ++next;
          int& c = colour[dep];
          if (c == 1) {
            c_.Fail(offsets_[dep], "instruction %" + dep->name() + " depends on itself (cycle through %" +
                                       inst->name() + ")");
          }
          if (c == 0) {
            c = 1;
            stack.push_back({dep, 0});
          }
          continue;
        }
        colour[inst] = 2;
        stack.pop_back();
      }
    }
  }

  void ResolveCalls(Module* module) {
    for (const PendingCall& p : pending_calls_) {
      Computation* callee = FindComputation(p.name);
      if (callee == nullptr) c_.Fail(p.offset, "computation %" + p.name + " is not defined");
      if (callee == module->entry()) {
        c_.Fail(p.offset, "the entry computation %" + p.name + " cannot be called");
      }
      p.inst->set_called_computation(p.slot, callee);
      if (p.inst->opcode() == Opcode::kFusion) callee->set_fusion_instruction(p.inst);
    }
    for (const auto& comp : module->computations()) {
      for (const auto& inst : comp->instructions()) {
        for (Computation* callee : inst->called_computations()) {
          if (callee == nullptr) {
            c_.Fail(offsets_[inst.get()], "%" + inst->name() + " is missing a called computation");
          }
        }
        if (inst->call_form() == CallForm::kConditionBody && inst->called_computations().size() != 2) {
          c_.Fail(offsets_[inst.get()], "while %" + inst->name() + " needs both condition= and body=");
        }
        if ((inst->call_form() == CallForm::kTrueFalse || inst->call_form() == CallForm::kSelectScatter) &&
            inst->called_computations().size() != 2) {
          c_.Fail(offsets_[inst.get()], "%" + inst->name() + " needs two called computations");
        }
      }
    }
    // Computations reachable from themselves through calls would recurse forever. An
    // iterative three-colour DFS: call chains as long as the file must not overflow the stack.
    using CallEdge = std::pair<const Instruction*, const Computation*>;
    std::unordered_map<const Computation*, std::vector<CallEdge>> calls;
    for (const auto& comp : module->computations()) {
      auto& edges = calls[comp.get()];
      for (const auto& inst : comp->instructions()) {
        for (const Computation* callee : inst->called_computations()) edges.emplace_back(inst.get(), callee);
      }
    }
    std::unordered_map<const Computation*, int> colour;
    for (const auto& root : module->computations()) {
      if (colour[root.get()] != 0) continue;
      std::vector<std::pair<const Computation*, size_t>> stack = {{root.get(), 0}};
      colour[root.get()] = 1;
      while (!stack.empty()) {
        auto& [comp, next] = stack.back();
        const std::vector<CallEdge>& edges = calls[comp];
        if (next == edges.size()) {
          colour[comp] = 2;
          stack.pop_back();
          continue;
        }
        auto [inst, callee] = edges[next++];
        int& c = colour[callee];
        if (c == 1) {
          c_.Fail(offsets_[inst], "computation %" + callee->name() + " calls itself (through %" +
                                      inst->name() + ")");
        }
        if (c == 0) {
          c = 1;
          stack.push_back({callee, 0});
        }
      }
    }
  }

  Cursor c_;
  Lexer lex_;
  ShapeParser shapes_;
  LiteralParser literals_;
  ParseOptions options_;
  Module* module_ = nullptr;
  std::vector<PendingOperand> pending_operands_;
  std::vector<Instruction*> shape_pending_;
  std::vector<PendingCall> pending_calls_;
  std::unordered_map<std::string_view, Instruction*> names_;  // keys view the names
  std::unordered_map<std::string, Computation*> computations_;  // of the module being parsed
  std::unordered_map<const Instruction*, size_t> offsets_;
  std::unordered_set<std::string_view> seen_attr_names_;  // of the instruction being parsed
  std::vector<ParseWarning> warnings_;
};

}  // namespace

StatusOr<ParseResult> ParseModules(std::string_view text, const ParseOptions& options) {
  ModuleParser parser(text, options);
  try {
    return parser.ParseAll();
  } catch (const ParseError& e) {
    return InvalidArgument(parser.cursor().FormatError(e.offset, e.message));
  } catch (const std::bad_alloc&) {
    return InvalidArgument(options.filename + ": out of memory while parsing (shape or literal too large?)");
  } catch (const std::length_error&) {
    return InvalidArgument(options.filename + ": a shape or literal in the file is too large");
  }
}

StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text, const ParseOptions& options) {
  auto result = ParseModules(text, options);
  if (!result.ok()) return result.status();
  return std::move(result->modules.front());
}

StatusOr<ParseResult> ParseFile(const std::string& path, const ParseOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  ParseOptions opts = options;
  if (opts.filename == "<text>") opts.filename = path;
  std::string text = buffer.str();
  return ParseModules(text, opts);
}

StatusOr<Shape> ParseShape(std::string_view text) {
  Cursor c(text, "<shape>");
  Lexer lex(&c);
  ShapeParser shapes(&c, &lex);
  try {
    Shape shape = shapes.Parse();
    c.SkipSpace();
    if (!c.AtEnd()) c.Fail(c.pos(), "unexpected text after shape: " + c.Describe());
    return shape;
  } catch (const ParseError& e) {
    return InvalidArgument(c.FormatError(e.offset, e.message));
  }
}

}  // namespace fusebox
