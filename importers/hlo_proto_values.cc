// HLO proto import, values: element types, shapes and layouts, literals.
#include <algorithm>
#include <climits>
#include <cstring>

#include "compiler/support/strings.h"
#include "importers/hlo_proto_internal.h"

namespace fusebox::importers::hlo_proto_internal {

namespace {

// ---------------------------------------------------------------------------
// Element types, shapes, layouts
// ---------------------------------------------------------------------------

// clang-format off
std::optional<PrimitiveType> TypeFromProto(int type) {
  switch (type) {
    case px::PRED: return PrimitiveType::kPred;
    case px::S1: return PrimitiveType::kS1;
    case px::S2: return PrimitiveType::kS2;
    case px::S4: return PrimitiveType::kS4;
    case px::S8: return PrimitiveType::kS8;
    case px::S16: return PrimitiveType::kS16;
    case px::S32: return PrimitiveType::kS32;
    case px::S64: return PrimitiveType::kS64;
    case px::U1: return PrimitiveType::kU1;
    case px::U2: return PrimitiveType::kU2;
    case px::U4: return PrimitiveType::kU4;
    case px::U8: return PrimitiveType::kU8;
    case px::U16: return PrimitiveType::kU16;
    case px::U32: return PrimitiveType::kU32;
    case px::U64: return PrimitiveType::kU64;
    case px::F16: return PrimitiveType::kF16;
    case px::BF16: return PrimitiveType::kBF16;
    case px::F32: return PrimitiveType::kF32;
    case px::F64: return PrimitiveType::kF64;
    case px::F8E5M2: return PrimitiveType::kF8E5M2;
    case px::F8E4M3: return PrimitiveType::kF8E4M3;
    case px::F8E4M3FN: return PrimitiveType::kF8E4M3FN;
    case px::F8E4M3B11FNUZ: return PrimitiveType::kF8E4M3B11FNUZ;
    case px::F8E5M2FNUZ: return PrimitiveType::kF8E5M2FNUZ;
    case px::F8E4M3FNUZ: return PrimitiveType::kF8E4M3FNUZ;
    case px::F8E3M4: return PrimitiveType::kF8E3M4;
    case px::F8E8M0FNU: return PrimitiveType::kF8E8M0FNU;
    case px::F4E2M1FN: return PrimitiveType::kF4E2M1FN;
    case px::C64: return PrimitiveType::kC64;
    case px::C128: return PrimitiveType::kC128;
    case px::TUPLE: return PrimitiveType::kTuple;
    case px::OPAQUE_TYPE: return PrimitiveType::kOpaque;
    case px::TOKEN: return PrimitiveType::kToken;
    default:
      return std::nullopt;
  }
}
// clang-format on

std::string TypeNumberText(int type) {
  const std::string& name = px::PrimitiveType_Name(static_cast<px::PrimitiveType>(type));
  return name.empty() ? "element type " + std::to_string(type) : "element type " + name;
}

// XLA marks a tile dimension that combines the dimensions it covers with INT64_MIN.
constexpr int64_t kProtoCombineDimension = INT64_MIN;

Status LayoutFromProto(const px::LayoutProto& proto, int depth, Layout* layout) {
  layout->minor_to_major.assign(proto.minor_to_major().begin(), proto.minor_to_major().end());
  for (int dlt : proto.dim_level_types()) {
    switch (dlt) {
      case px::DIM_DENSE:
        layout->dim_level_types.push_back(DimLevelType::kDense);
        break;
      case px::DIM_COMPRESSED:
        layout->dim_level_types.push_back(DimLevelType::kCompressed);
        break;
      case px::DIM_SINGLETON:
        layout->dim_level_types.push_back(DimLevelType::kSingleton);
        break;
      case px::DIM_LOOSE_COMPRESSED:
        layout->dim_level_types.push_back(DimLevelType::kLooseCompressed);
        break;
      default:
        return InvalidArgument("unknown dimension level type " + std::to_string(dlt));
    }
  }
  // Lists holding only the default (true) are left empty, as the text parser does.
  auto all_true = [](const auto& list) {
    return std::all_of(list.begin(), list.end(), [](bool b) { return b; });
  };
  if (!all_true(proto.dim_unique()))
    layout->dim_unique.assign(proto.dim_unique().begin(), proto.dim_unique().end());
  if (!all_true(proto.dim_ordered())) {
    layout->dim_ordered.assign(proto.dim_ordered().begin(), proto.dim_ordered().end());
  }
  for (const px::TileProto& tile : proto.tiles()) {
    Tile t;
    for (int64_t d : tile.dimensions())
      t.dimensions.push_back(d == kProtoCombineDimension ? Tile::kCombine : d);
    layout->tiles.push_back(std::move(t));
  }
  layout->tail_padding_alignment_in_elements = proto.tail_padding_alignment_in_elements() > 1
                                                   ? proto.tail_padding_alignment_in_elements()
                                                   : 1;
  if (proto.index_primitive_type() != px::PRIMITIVE_TYPE_INVALID) {
    layout->index_primitive_type = TypeFromProto(proto.index_primitive_type());
    if (!layout->index_primitive_type) {
      return InvalidArgument("layout index type: unsupported " +
                             TypeNumberText(proto.index_primitive_type()));
    }
  }
  if (proto.pointer_primitive_type() != px::PRIMITIVE_TYPE_INVALID) {
    layout->pointer_primitive_type = TypeFromProto(proto.pointer_primitive_type());
    if (!layout->pointer_primitive_type) {
      return InvalidArgument("layout pointer type: unsupported " +
                             TypeNumberText(proto.pointer_primitive_type()));
    }
  }
  layout->element_size_in_bits = proto.element_size_in_bits();
  layout->memory_space = proto.memory_space();
  for (const px::SplitConfigProto& sc : proto.split_configs()) {
    layout->split_configs.push_back(
        SplitConfig{sc.dimension(), {sc.split_indices().begin(), sc.split_indices().end()}});
  }
  if (proto.has_physical_shape()) {
    ASSIGN_OR_RETURN(Shape physical, ShapeFromProto(proto.physical_shape(), depth + 1));
    layout->physical_shape = std::make_unique<Shape>(std::move(physical));
  }
  layout->dynamic_shape_metadata_prefix_bytes = proto.dynamic_shape_metadata_prefix_bytes();
  return Status::Ok();
}

}  // namespace

StatusOr<Shape> ShapeFromProto(const px::ShapeProto& proto, int depth) {
  if (depth > kMaxDepth) return InvalidArgument("shape nested more than 64 levels deep");
  std::optional<PrimitiveType> type = TypeFromProto(proto.element_type());
  if (!type) return InvalidArgument("unsupported " + TypeNumberText(proto.element_type()));
  if (*type == PrimitiveType::kTuple) {
    std::vector<Shape> elements;
    for (const px::ShapeProto& element : proto.tuple_shapes()) {
      ASSIGN_OR_RETURN(Shape s, ShapeFromProto(element, depth + 1));
      elements.push_back(std::move(s));
    }
    return Shape::Tuple(std::move(elements));
  }
  if (!IsArrayType(*type)) return Shape(*type, {});
  Shape shape(*type, {});
  for (int i = 0; i < proto.dimensions_size(); ++i) {
    bool dynamic = i < proto.is_dynamic_dimension_size() && proto.is_dynamic_dimension(i);
    int64_t size = proto.dimensions(i);
    if (size < 0 && !(dynamic && size == kUnboundedSize)) {
      return InvalidArgument("negative dimension size " + std::to_string(size));
    }
    shape.add_dimension(size, dynamic);
  }
  if (proto.has_layout()) {
    Layout layout;
    RETURN_IF_ERROR(LayoutFromProto(proto.layout(), depth, &layout));
    shape.set_layout(std::move(layout));
  }
  return shape;
}

namespace {

// ---------------------------------------------------------------------------
// Literals
// ---------------------------------------------------------------------------

// Values of one array in a LiteralProto: how many the proto holds for `type`, or -1
// when the stored bytes do not divide into whole elements.
// clang-format off
int64_t StoredValueCount(const px::LiteralProto& p, PrimitiveType type, int64_t expected) {
  auto bytes = [](const std::string& s, int64_t width) -> int64_t {
    return static_cast<int64_t>(s.size()) % width ? -1 : static_cast<int64_t>(s.size()) / width;
  };
  // Sub-byte types: one element per byte, or packed when the byte count says so.
  auto sub_byte = [&](const std::string& s, int bits) -> int64_t {
    int64_t n = static_cast<int64_t>(s.size());
    if (n == expected) return n;
    if (expected > 0 && n == (expected * bits + 7) / 8) return expected;
    return n == 0 ? 0 : -1;
  };
  switch (type) {
    case PrimitiveType::kPred: return p.preds_size();
    case PrimitiveType::kS1: return sub_byte(p.s1s(), 1);
    case PrimitiveType::kS2: return sub_byte(p.s2s(), 2);
    case PrimitiveType::kS4: return sub_byte(p.s4s(), 4);
    case PrimitiveType::kU1: return sub_byte(p.u1s(), 1);
    case PrimitiveType::kU2: return sub_byte(p.u2s(), 2);
    case PrimitiveType::kU4: return sub_byte(p.u4s(), 4);
    case PrimitiveType::kF4E2M1FN: return sub_byte(p.f4e2m1fns(), 4);
    case PrimitiveType::kS8: return bytes(p.s8s(), 1);
    case PrimitiveType::kU8: return bytes(p.u8s(), 1);
    case PrimitiveType::kS16: return bytes(p.s16s(), 2);
    case PrimitiveType::kU16: return bytes(p.u16s(), 2);
    case PrimitiveType::kF16: return bytes(p.f16s(), 2);
    case PrimitiveType::kBF16: return bytes(p.bf16s(), 2);
    case PrimitiveType::kS32: return p.s32s_size();
    case PrimitiveType::kS64: return p.s64s_size();
    case PrimitiveType::kU32: return p.u32s_size();
    case PrimitiveType::kU64: return p.u64s_size();
    case PrimitiveType::kF32: return p.f32s_size();
    case PrimitiveType::kF64: return p.f64s_size();
    case PrimitiveType::kC64: return p.c64s_size() % 2 ? -1 : p.c64s_size() / 2;
    case PrimitiveType::kC128: return p.c128s_size() % 2 ? -1 : p.c128s_size() / 2;
    case PrimitiveType::kF8E5M2: return bytes(p.f8e5m2s(), 1);
    case PrimitiveType::kF8E4M3: return bytes(p.f8e4m3s(), 1);
    case PrimitiveType::kF8E4M3FN: return bytes(p.f8e4m3fns(), 1);
    case PrimitiveType::kF8E4M3B11FNUZ: return bytes(p.f8e4m3b11fnuzs(), 1);
    case PrimitiveType::kF8E5M2FNUZ: return bytes(p.f8e5m2fnuzs(), 1);
    case PrimitiveType::kF8E4M3FNUZ: return bytes(p.f8e4m3fnuzs(), 1);
    case PrimitiveType::kF8E3M4: return bytes(p.f8e3m4s(), 1);
    case PrimitiveType::kF8E8M0FNU: return bytes(p.f8e8m0fnus(), 1);
    default:
      return -1;
  }
}
// clang-format on

// clang-format off
const std::string* ByteField(const px::LiteralProto& p, PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kS1: return &p.s1s();
    case PrimitiveType::kS2: return &p.s2s();
    case PrimitiveType::kS4: return &p.s4s();
    case PrimitiveType::kU1: return &p.u1s();
    case PrimitiveType::kU2: return &p.u2s();
    case PrimitiveType::kU4: return &p.u4s();
    case PrimitiveType::kF4E2M1FN: return &p.f4e2m1fns();
    case PrimitiveType::kS8: return &p.s8s();
    case PrimitiveType::kU8: return &p.u8s();
    case PrimitiveType::kS16: return &p.s16s();
    case PrimitiveType::kU16: return &p.u16s();
    case PrimitiveType::kF16: return &p.f16s();
    case PrimitiveType::kBF16: return &p.bf16s();
    case PrimitiveType::kF8E5M2: return &p.f8e5m2s();
    case PrimitiveType::kF8E4M3: return &p.f8e4m3s();
    case PrimitiveType::kF8E4M3FN: return &p.f8e4m3fns();
    case PrimitiveType::kF8E4M3B11FNUZ: return &p.f8e4m3b11fnuzs();
    case PrimitiveType::kF8E5M2FNUZ: return &p.f8e5m2fnuzs();
    case PrimitiveType::kF8E4M3FNUZ: return &p.f8e4m3fnuzs();
    case PrimitiveType::kF8E3M4: return &p.f8e3m4s();
    case PrimitiveType::kF8E8M0FNU: return &p.f8e8m0fnus();
    default:
      return nullptr;
  }
}
// clang-format on

// Checks that every array of `proto` holds exactly the values `shape` needs. Sets
// `*elided` when the literal carries no values at all (XLA writes such constants when it
// leaves large data out); a literal that holds some values but not all is an error.
Status CheckLiteral(const px::LiteralProto& proto, const Shape& shape, int depth,
                    int64_t* arrays_with_data, int64_t* arrays_without_data) {
  if (depth > kMaxDepth) return InvalidArgument("literal nested more than 64 levels deep");
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_size()) {
      if (proto.tuple_literals_size() == 0) {
        ++*arrays_without_data;
        return Status::Ok();
      }
      return InvalidArgument("tuple literal has " + std::to_string(proto.tuple_literals_size()) +
                             " elements, its shape " + shape.ToString(false) + " needs " +
                             std::to_string(shape.tuple_size()));
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      RETURN_IF_ERROR(CheckLiteral(proto.tuple_literals(static_cast<int>(i)), shape.tuple_shapes(i),
                                   depth + 1, arrays_with_data, arrays_without_data));
    }
    return Status::Ok();
  }
  if (!shape.IsArray()) {
    return InvalidArgument("literals of type " +
                           std::string(PrimitiveTypeName(shape.element_type())) +
                           " are not supported");
  }
  int64_t expected = shape.ElementCount();
  if (expected < 0)
    return InvalidArgument("literal shape " + shape.ToString(false) + " is too large");
  int64_t stored = StoredValueCount(proto, shape.element_type(), expected);
  if (stored == expected) {
    ++*arrays_with_data;
  } else if (stored == 0) {
    ++*arrays_without_data;
  } else {
    return InvalidArgument(
        "literal of shape " + shape.ToString(false) + " holds " +
        (stored < 0 ? std::string("a partial element") : std::to_string(stored) + " values") +
        ", the shape needs " + std::to_string(expected));
  }
  return Status::Ok();
}

// For each element in the order the proto stores it (the shape's layout, minor-most
// dimension fastest), its row-major logical index.
std::vector<int64_t> PhysicalToLogical(const Shape& shape) {
  int64_t n = shape.ElementCount();
  std::vector<int64_t> order;
  int64_t rank = shape.rank();
  bool identity = !shape.has_layout() || rank < 2 ||
                  static_cast<int64_t>(shape.layout().minor_to_major.size()) != rank;
  if (!identity) {
    identity = true;
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = shape.layout().minor_to_major[i];
      identity = identity && d == rank - 1 - i;
      // Not a permutation: the parser rejects the layout; read the data as row-major.
      if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return order;
      seen[static_cast<size_t>(d)] = true;
    }
  }
  if (identity) return order;  // empty: the identity
  const std::vector<int64_t>& m2m = shape.layout().minor_to_major;
  std::vector<int64_t> stride(rank, 1);  // row-major strides
  for (int64_t d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape.dimensions(d + 1);
  std::vector<int64_t> index(rank, 0);
  order.reserve(static_cast<size_t>(n));
  int64_t logical = 0;
  for (int64_t p = 0; p < n; ++p) {
    order.push_back(logical);
    for (int64_t k = 0; k < rank; ++k) {  // increment, minor-most dimension first
      int64_t d = m2m[k];
      if (++index[d] < shape.dimensions(d)) {
        logical += stride[d];
        break;
      }
      logical -= stride[d] * (index[d] - 1);
      index[d] = 0;
    }
  }
  return order;
}

uint64_t ReadLittleEndian(const std::string& bytes, int64_t offset, int width) {
  uint64_t v = 0;
  for (int b = 0; b < width; ++b) {
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[static_cast<size_t>(offset + b)]))
         << (8 * b);
  }
  return v;
}

void FillArray(const px::LiteralProto& p, Literal* literal) {
  const Shape& shape = literal->shape();
  PrimitiveType type = shape.element_type();
  int64_t n = shape.ElementCount();
  std::vector<int64_t> order = PhysicalToLogical(shape);
  auto at = [&](int64_t physical) {
    return order.empty() ? physical : order[static_cast<size_t>(physical)];
  };
  int bits = BitWidth(type);
  const std::string* bytes = ByteField(p, type);
  for (int64_t i = 0; i < n; ++i) {
    int64_t dst = at(i);
    int idx = static_cast<int>(i);
    switch (type) {
      case PrimitiveType::kPred:
        literal->SetBool(dst, p.preds(idx));
        break;
      case PrimitiveType::kS32:
        literal->SetInt64(dst, p.s32s(idx));
        break;
      case PrimitiveType::kS64:
        literal->SetInt64(dst, p.s64s(idx));
        break;
      case PrimitiveType::kU32:
        literal->SetUint64(dst, p.u32s(idx));
        break;
      case PrimitiveType::kU64:
        literal->SetUint64(dst, p.u64s(idx));
        break;
      case PrimitiveType::kF32: {
        float f = p.f32s(idx);
        uint32_t b;
        std::memcpy(&b, &f, sizeof b);
        literal->SetBits(dst, b);
        break;
      }
      case PrimitiveType::kF64: {
        double d = p.f64s(idx);
        uint64_t b;
        std::memcpy(&b, &d, sizeof b);
        literal->SetBits(dst, b);
        break;
      }
      case PrimitiveType::kC64:
        literal->SetComplex(dst, {p.c64s(2 * idx), p.c64s(2 * idx + 1)});
        break;
      case PrimitiveType::kC128:
        literal->SetComplex(dst, {p.c128s(2 * idx), p.c128s(2 * idx + 1)});
        break;
      default: {
        // Byte-string types: 16-bit ones little-endian, 8-bit ones a byte each, sub-byte
        // ones a byte each or packed low bits first.
        uint64_t raw;
        if (bits == 16) {
          raw = ReadLittleEndian(*bytes, 2 * i, 2);
        } else if (bits >= 8 || static_cast<int64_t>(bytes->size()) == n) {
          raw = static_cast<unsigned char>((*bytes)[static_cast<size_t>(i)]);
        } else {
          int64_t bit = i * bits;
          raw = static_cast<unsigned char>((*bytes)[static_cast<size_t>(bit / 8)]) >> (bit % 8);
        }
        if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
        if (IsSignedInt(type)) {
          int64_t v = static_cast<int64_t>(raw);
          if (bits < 64 && (raw >> (bits - 1)) & 1) v -= int64_t{1} << bits;
          literal->SetInt64(dst, v);
        } else if (IsUnsignedInt(type)) {
          literal->SetUint64(dst, raw);
        } else {
          literal->SetBits(dst, raw);
        }
        break;
      }
    }
  }
}

void FillLiteral(const px::LiteralProto& p, Literal* literal) {
  if (literal->shape().IsTuple()) {
    for (size_t i = 0; i < literal->tuple_elements().size(); ++i) {
      FillLiteral(p.tuple_literals(static_cast<int>(i)), &literal->tuple_elements()[i]);
    }
    return;
  }
  FillArray(p, literal);
}

}  // namespace

// The literal of `proto` with shape `shape`; nullopt when it carries no values.
StatusOr<std::optional<Literal>> LiteralWithShape(const px::LiteralProto& proto,
                                                  const Shape& shape) {
  int64_t with_data = 0, without_data = 0;
  RETURN_IF_ERROR(CheckLiteral(proto, shape, 0, &with_data, &without_data));
  if (without_data > 0) {
    if (with_data > 0)
      return InvalidArgument("literal holds values for only some of its tuple elements");
    return std::optional<Literal>();
  }
  Literal literal(shape);
  FillLiteral(proto, &literal);
  return std::optional<Literal>(std::move(literal));
}

}  // namespace fusebox::importers::hlo_proto_internal
