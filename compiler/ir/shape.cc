// Shape and layout behaviour and their text form.
#include "compiler/ir/shape.h"

#include <string>

#include "compiler/support/strings.h"

namespace fusebox {

Layout::Layout(const Layout& other) { *this = other; }
Layout::~Layout() = default;

Layout& Layout::operator=(const Layout& other) {
  if (this == &other) return *this;
  minor_to_major = other.minor_to_major;
  dim_level_types = other.dim_level_types;
  dim_unique = other.dim_unique;
  dim_ordered = other.dim_ordered;
  tiles = other.tiles;
  tail_padding_alignment_in_elements = other.tail_padding_alignment_in_elements;
  index_primitive_type = other.index_primitive_type;
  pointer_primitive_type = other.pointer_primitive_type;
  element_size_in_bits = other.element_size_in_bits;
  memory_space = other.memory_space;
  split_configs = other.split_configs;
  physical_shape = other.physical_shape ? std::make_unique<Shape>(*other.physical_shape) : nullptr;
  dynamic_shape_metadata_prefix_bytes = other.dynamic_shape_metadata_prefix_bytes;
  return *this;
}

bool Layout::operator==(const Layout& other) const {
  if (minor_to_major != other.minor_to_major || dim_level_types != other.dim_level_types ||
      dim_unique != other.dim_unique || dim_ordered != other.dim_ordered ||
      tiles != other.tiles ||
      tail_padding_alignment_in_elements != other.tail_padding_alignment_in_elements ||
      index_primitive_type != other.index_primitive_type ||
      pointer_primitive_type != other.pointer_primitive_type ||
      element_size_in_bits != other.element_size_in_bits ||
      memory_space != other.memory_space || split_configs != other.split_configs ||
      dynamic_shape_metadata_prefix_bytes != other.dynamic_shape_metadata_prefix_bytes) {
    return false;
  }
  if ((physical_shape == nullptr) != (other.physical_shape == nullptr)) return false;
  return physical_shape == nullptr || *physical_shape == *other.physical_shape;
}

std::string Layout::ToString() const {
  std::string tail;
  if (!dim_level_types.empty()) {
    tail += "D(";
    for (size_t i = 0; i < dim_level_types.size(); ++i) {
      if (i) tail += ',';
      static const char* kAbbrev[] = {"D", "C", "S", "H"};
      tail += kAbbrev[static_cast<int>(dim_level_types[i])];
      if (i < dim_unique.size() && !dim_unique[i]) tail += '+';
      if (i < dim_ordered.size() && !dim_ordered[i]) tail += '~';
    }
    tail += ')';
  }
  if (!tiles.empty()) {
    tail += 'T';
    for (const Tile& tile : tiles) {
      tail += '(';
      for (size_t i = 0; i < tile.dimensions.size(); ++i) {
        if (i) tail += ',';
        int64_t d = tile.dimensions[i];
        tail += d == Tile::kCombine ? std::string("*") : std::to_string(d);
      }
      tail += ')';
    }
  }
  if (tail_padding_alignment_in_elements != 1) {
    tail += "L(" + std::to_string(tail_padding_alignment_in_elements) + ")";
  }
  if (index_primitive_type) {
    tail += "#(" + std::string(PrimitiveTypeName(*index_primitive_type)) + ")";
  }
  if (pointer_primitive_type) {
    tail += "*(" + std::string(PrimitiveTypeName(*pointer_primitive_type)) + ")";
  }
  if (element_size_in_bits != 0) tail += "E(" + std::to_string(element_size_in_bits) + ")";
  if (memory_space != 0) tail += "S(" + std::to_string(memory_space) + ")";
  for (const SplitConfig& sc : split_configs) {
    tail += "SC(" + std::to_string(sc.dimension) + ":" + Join(sc.split_indices, ",") + ")";
  }
  if (physical_shape) tail += "P(" + physical_shape->ToString(true) + ")";
  if (dynamic_shape_metadata_prefix_bytes != 0) {
    tail += "M(" + std::to_string(dynamic_shape_metadata_prefix_bytes) + ")";
  }
  std::string out = "{" + Join(minor_to_major, ",");
  if (!tail.empty()) out += ":" + tail;
  out += "}";
  return out;
}

Shape::Shape(PrimitiveType type, std::vector<int64_t> dimensions)
    : element_type_(type), dimensions_(std::move(dimensions)), dynamic_(dimensions_.size(), false) {}

Shape::Shape(const Shape& other) { *this = other; }
Shape::~Shape() = default;

Shape& Shape::operator=(const Shape& other) {
  if (this == &other) return *this;
  element_type_ = other.element_type_;
  dimensions_ = other.dimensions_;
  dynamic_ = other.dynamic_;
  layout_ = other.layout_ ? std::make_unique<Layout>(*other.layout_) : nullptr;
  tuple_shapes_ = other.tuple_shapes_;
  return *this;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape shape;
  shape.element_type_ = PrimitiveType::kTuple;
  shape.tuple_shapes_ = std::move(elements);
  return shape;
}

void Shape::add_dimension(int64_t size, bool is_dynamic) {
  dimensions_.push_back(size);
  dynamic_.push_back(is_dynamic);
}

bool Shape::is_unbounded_dynamic() const {
  for (int64_t d : dimensions_) {
    if (d == kUnboundedSize) return true;
  }
  for (const Shape& s : tuple_shapes_) {
    if (s.is_unbounded_dynamic()) return true;
  }
  return false;
}

bool Shape::is_dynamic() const {
  for (bool d : dynamic_) {
    if (d) return true;
  }
  for (const Shape& s : tuple_shapes_) {
    if (s.is_dynamic()) return true;
  }
  return false;
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_ = std::make_unique<Layout>();
  return layout_.get();
}

void Shape::set_layout(Layout layout) { layout_ = std::make_unique<Layout>(std::move(layout)); }
void Shape::clear_layout() { layout_.reset(); }

void Shape::SetDefaultLayout() {
  if (IsTuple()) {
    for (Shape& s : tuple_shapes_) s.SetDefaultLayout();
    return;
  }
  if (!IsArray()) return;
  std::vector<int64_t> m2m;
  for (int64_t i = rank() - 1; i >= 0; --i) m2m.push_back(i);
  set_layout(Layout(std::move(m2m)));
}

int64_t Shape::ElementCount() const {
  int64_t count = 1;
  for (int64_t d : dimensions_) {
    if (d < 0) return -1;
    if (d != 0 && count > INT64_MAX / d) return -1;
    count *= d;
  }
  return count;
}

int64_t Shape::ByteSize() const {
  if (IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : tuple_shapes_) {
      int64_t b = s.ByteSize();
      if (b < 0 || total > INT64_MAX - b) return -1;
      total += b;
    }
    return total;
  }
  if (!IsArray()) return 0;
  int64_t n = ElementCount();
  if (n < 0) return -1;
  int bits = BitWidth(element_type_);
  if (bits < 8) {
    // Sub-byte types are packed in memory by XLA's runtime.
    return (n * bits + 7) / 8;
  }
  int64_t bytes = bits / 8;
  if (n > INT64_MAX / bytes) return -1;
  return n * bytes;
}

void Shape::AppendTo(std::string* out, bool print_layout) const {
  if (IsTuple()) {
    *out += '(';
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i) *out += ", ";
      tuple_shapes_[i].AppendTo(out, print_layout);
    }
    *out += ')';
    return;
  }
  *out += PrimitiveTypeName(element_type_);
  *out += '[';
  for (size_t i = 0; i < dimensions_.size(); ++i) {
    if (i) *out += ',';
    if (dimensions_[i] == kUnboundedSize) {
      *out += '?';
      continue;
    }
    if (dynamic_[i]) *out += "<=";
    *out += std::to_string(dimensions_[i]);
  }
  *out += ']';
  if (print_layout && layout_ && IsArray()) {
    // XLA omits layouts of scalars unless they carry more than minor_to_major.
    std::string text = layout_->ToString();
    if (!(dimensions_.empty() && text == "{}")) *out += text;
  } else if (print_layout && layout_ && !IsArray() && !IsTuple()) {
    // token/opaque carry no layout text.
  }
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(&out, print_layout);
  return out;
}

bool Shape::operator==(const Shape& other) const {
  if (element_type_ != other.element_type_ || dimensions_ != other.dimensions_ ||
      dynamic_ != other.dynamic_ || tuple_shapes_ != other.tuple_shapes_) {
    return false;
  }
  if ((layout_ == nullptr) != (other.layout_ == nullptr)) return false;
  return layout_ == nullptr || *layout_ == *other.layout_;
}

bool Shape::SameDimensions(const Shape& other) const { return dimensions_ == other.dimensions_; }

bool Shape::Compatible(const Shape& other) const {
  if (element_type_ != other.element_type_) return false;
  if (IsTuple()) {
    if (tuple_shapes_.size() != other.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (!tuple_shapes_[i].Compatible(other.tuple_shapes_[i])) return false;
    }
    return true;
  }
  return dimensions_ == other.dimensions_ && dynamic_ == other.dynamic_;
}

}  // namespace fusebox
