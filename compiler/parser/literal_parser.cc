// The HLO text parser's literals: the values of constants, nested by dimension, for
// every element type.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "compiler/parser/parser_internal.h"
#include "compiler/support/strings.h"

namespace fusebox::parser_internal {

std::unique_ptr<Literal> LiteralParser::Parse(const Shape& shape) {
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

int64_t LiteralParser::ElementsIn(const Shape& shape) {
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

void LiteralParser::ParseInto(const Shape& shape, Literal* literal) {
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

void LiteralParser::ParseNested(const Shape& shape, int64_t dim, Literal* literal, int64_t* index) {
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

void LiteralParser::ParseElement(Literal* literal, int64_t index) {
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

void LiteralParser::CheckIntRange(PrimitiveType type, bool negative, uint64_t magnitude, size_t at) {
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

double LiteralParser::Real(size_t at) {
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

}  // namespace fusebox::parser_internal
