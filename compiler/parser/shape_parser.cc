// The HLO text parser's shapes and layouts: `f32[2,3]{1,0}`, tuples, tiles, memory
// spaces, dynamic and unbounded dimensions.
#include <algorithm>
#include <cctype>
#include <limits>

#include "compiler/parser/parser_internal.h"
#include "compiler/support/strings.h"

namespace fusebox::parser_internal {

bool ShapeParser::AtShape() {
  c_.SkipSpace();
  char ch = c_.Peek();
  if (ch == '(') return true;
  if (!IsNameStart(ch)) return false;
  std::string_view rest = c_.Rest();
  size_t n = 0;
  while (n < rest.size() && (std::isalnum(static_cast<unsigned char>(rest[n])))) ++n;
  return n < rest.size() && rest[n] == '[';
}

Shape ShapeParser::Parse() {
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

Layout ShapeParser::ParseLayout(const Shape& shape) {
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

}  // namespace fusebox::parser_internal
