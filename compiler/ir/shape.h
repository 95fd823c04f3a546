// Shapes and layouts: arrays (element type, dimensions, dynamic bounds, layout),
// tuples, tokens and opaque values, exactly as XLA's text format spells them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/primitive_type.h"

namespace fusebox {

class Shape;

// One tile of a tiled layout; `T(8,128)(2,1)` has two. A dimension of kCombine
// prints as `*`.
struct Tile {
  static constexpr int64_t kCombine = -1;
  std::vector<int64_t> dimensions;
  bool operator==(const Tile& other) const { return dimensions == other.dimensions; }
};

// Dimension level types of sparse layouts: `D(D,C+,S~)`.
enum class DimLevelType : uint8_t { kDense, kCompressed, kSingleton, kLooseCompressed };

struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig& other) const {
    return dimension == other.dimension && split_indices == other.split_indices;
  }
};

// A layout: `{1,0:T(8,128)L(1024)#(s32)*(s32)E(4)S(1)SC(0:2,4)P(...)}`. Every field
// XLA prints is kept, whether or not Fusebox uses it.
class Layout {
 public:
  Layout() = default;
  explicit Layout(std::vector<int64_t> minor_to_major)
      : minor_to_major(std::move(minor_to_major)) {}
  Layout(const Layout& other);
  Layout& operator=(const Layout& other);
  Layout(Layout&&) noexcept = default;
  Layout& operator=(Layout&&) noexcept = default;
  ~Layout();

  std::vector<int64_t> minor_to_major;
  std::vector<DimLevelType> dim_level_types;
  std::vector<bool> dim_unique;   // empty or one per dim_level_type; false prints '+'
  std::vector<bool> dim_ordered;  // empty or one per dim_level_type; false prints '~'
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment_in_elements = 1;  // L(n)
  std::optional<PrimitiveType> index_primitive_type;    // #(s32)
  std::optional<PrimitiveType> pointer_primitive_type;  // *(s32)
  int64_t element_size_in_bits = 0;                     // E(n)
  int64_t memory_space = 0;                             // S(n)
  std::vector<SplitConfig> split_configs;               // SC(d:i,j)
  std::unique_ptr<Shape> physical_shape;                // P(shape)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;      // M(n)

  bool operator==(const Layout& other) const;
  bool operator!=(const Layout& other) const { return !(*this == other); }
  std::string ToString() const;
};

// Dimension size used for an unbounded dynamic dimension, printed `?`.
inline constexpr int64_t kUnboundedSize = INT64_MIN;

class Shape {
 public:
  Shape() = default;
  // An array shape with the default (descending) layout unset.
  Shape(PrimitiveType type, std::vector<int64_t> dimensions);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token() { return Shape(PrimitiveType::kToken, {}); }
  static Shape Scalar(PrimitiveType type) { return Shape(type, {}); }

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType type) { element_type_ = type; }

  bool IsTuple() const { return element_type_ == PrimitiveType::kTuple; }
  bool IsToken() const { return element_type_ == PrimitiveType::kToken; }
  bool IsOpaque() const { return element_type_ == PrimitiveType::kOpaque; }
  bool IsArray() const { return IsArrayType(element_type_); }
  bool IsScalar() const { return IsArray() && dimensions_.empty(); }

  // Array shapes.
  int64_t rank() const { return static_cast<int64_t>(dimensions_.size()); }
  const std::vector<int64_t>& dimensions() const { return dimensions_; }
  int64_t dimensions(int64_t i) const { return dimensions_[i]; }
  void set_dimension(int64_t i, int64_t size) { dimensions_[i] = size; }
  void add_dimension(int64_t size, bool is_dynamic = false);
  std::vector<int64_t>* mutable_dimensions() { return &dimensions_; }
  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool dynamic) { dynamic_[i] = dynamic; }
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_; }
  bool is_unbounded_dynamic() const;
  bool is_dynamic() const;

  bool has_layout() const { return layout_ != nullptr; }
  const Layout& layout() const { return *layout_; }
  Layout* mutable_layout();
  void set_layout(Layout layout);
  void clear_layout();
  // Sets the default layout {rank-1,...,0} on this shape and nested tuple elements.
  void SetDefaultLayout();

  // Tuples.
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_shapes_.size()); }

  // Number of elements of an array (product of dimensions, bounds for dynamic dims).
  // Returns -1 on overflow or for unbounded dims.
  int64_t ElementCount() const;
  // Bytes of the array data (or sum over a tuple's leaves); -1 on overflow.
  int64_t ByteSize() const;

  // Shape text: `f32[2,3]{1,0}`, `(f32[], s32[<=4])`. `print_layout` false omits layouts.
  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string* out, bool print_layout = true) const;

  // Equality: `Equal` compares everything including layout; `Compatible` ignores
  // layouts (what the verifier uses, as XLA does in its default mode).
  bool operator==(const Shape& other) const;
  bool operator!=(const Shape& other) const { return !(*this == other); }
  bool Compatible(const Shape& other) const;  // ignores layout
  bool SameDimensions(const Shape& other) const;

  Shape(const Shape& other);
  Shape& operator=(const Shape& other);
  Shape(Shape&&) noexcept = default;
  Shape& operator=(Shape&&) noexcept = default;
  ~Shape();

 private:
  PrimitiveType element_type_ = PrimitiveType::kTuple;
  std::vector<int64_t> dimensions_;
  std::vector<bool> dynamic_;
  std::unique_ptr<Layout> layout_;
  std::vector<Shape> tuple_shapes_;
};

// Applies `fn(const Shape&, const std::vector<int64_t>& index)` to each subshape.
template <typename Fn>
void ForEachSubshape(const Shape& shape, Fn&& fn, std::vector<int64_t>* index = nullptr) {
  std::vector<int64_t> local;
  if (index == nullptr) index = &local;
  fn(shape, *index);
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      index->push_back(i);
      ForEachSubshape(shape.tuple_shapes(i), fn, index);
      index->pop_back();
    }
  }
}

}  // namespace fusebox
