// HLO proto import: detect which message a file holds, decode it with Fusebox's own
// schema (importers/proto/xla_hlo.proto), write the module as HLO text in XLA's
// syntax and parse that with Fusebox's parser.
//
// Sections:
//   1. Element types, shapes, layouts.
//   2. Literals.
//   3. Attribute text (sharding, replica groups, metadata, ...).
//   4. Module -> HLO text (TextWriter).
//   5. Wire-level scan: which message a file holds; what a truncated file still holds.
//   6. gzip.
//   7. Public entry points.
#include "importers/hlo_proto.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/unknown_field_set.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/attributes.h"
#include "compiler/parser/parser.h"
#include "compiler/support/strings.h"
#include "importers/module_loader.h"
#include "importers/proto/xla_hlo.pb.h"

namespace fusebox {

namespace {

namespace px = ::fusebox::xla;

// Shapes and literals nest; past this depth a file is rejected rather than recursed into.
constexpr int kMaxDepth = 64;

// ---------------------------------------------------------------------------
// 1. Element types, shapes, layouts
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

StatusOr<Shape> ShapeFromProto(const px::ShapeProto& proto, int depth = 0);

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

// ---------------------------------------------------------------------------
// 2. Literals
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

// ---------------------------------------------------------------------------
// 3. Attribute text
// ---------------------------------------------------------------------------

bool IsValidName(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Braced(const google::protobuf::RepeatedField<int64_t>& values) {
  return "{" + Join(values, ",") + "}";
}

std::string Quoted(const std::string& s) { return "\"" + CEscape(s) + "\""; }

// Frontend attributes sorted by key, as XLA prints its map.
std::string FrontendAttributesText(const px::FrontendAttributes& attrs) {
  std::map<std::string, std::string> sorted(attrs.map().begin(), attrs.map().end());
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : sorted) {
    if (!first) out += ',';
    first = false;
    bool identifier = !key.empty() && !(key[0] >= '0' && key[0] <= '9');
    for (char c : key) {
      identifier = identifier && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                  (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-');
    }
    out += (identifier ? key : Quoted(key)) + "=" + Quoted(value);
  }
  return out + "}";
}

OpMetadata MetadataFromProto(const px::OpMetadata& p) {
  OpMetadata md;
  md.op_type = p.op_type();
  md.op_name = p.op_name();
  md.source_file = p.source_file();
  md.source_line = p.source_line();
  md.source_end_line = p.source_end_line();
  md.source_column = p.source_column();
  md.source_end_column = p.source_end_column();
  md.stack_frame_id = p.stack_frame_id();
  md.deduplicated_name = p.deduplicated_name();
  md.scheduling_name = p.scheduling_name();
  return md;
}

// Collects warnings, counting repeats of one kind so a module with 10,000 sharded
// instructions yields one line.
class WarningLog {
 public:
  void Add(const std::string& kind, const std::string& where) {
    auto [it, inserted] = counts_.try_emplace(kind, Entry{0, where});
    if (inserted) order_.push_back(kind);
    ++it->second.count;
  }
  void AppendTo(std::vector<std::string>* out) const {
    for (const std::string& kind : order_) {
      const Entry& e = counts_.at(kind);
      std::string line = kind + " (" + e.first;
      if (e.count > 1) line += " and " + std::to_string(e.count - 1) + " more";
      out->push_back(line + ")");
    }
  }

 private:
  struct Entry {
    int64_t count;
    std::string first;
  };
  std::map<std::string, Entry> counts_;
  std::vector<std::string> order_;
};

// clang-format off
std::string_view ShardingTypeText(int type) {
  switch (type) {
    case px::OpSharding::REPLICATED: return "replicated";
    case px::OpSharding::MANUAL: return "manual";
    case px::OpSharding::UNKNOWN: return "unknown";
    case px::OpSharding::UNREDUCED: return "unreduced";
    case px::OpSharding::MAXIMAL: return "maximal";
    default:
      return "";
  }
}
// clang-format on

// The text inside `sharding={...}`: `replicated`, `maximal device=1`,
// `devices=[2,1]0,1`, `devices=[4]<=[2,2]T(1,0) last_tile_dim_replicate`, or for
// tuples `{replicated}, {maximal device=0}`. Returns false for forms Fusebox does not
// spell (named shardings).
bool ShardingText(const px::OpSharding& s, int depth, std::string* out, bool* had_metadata) {
  if (depth > kMaxDepth || !s.named_sharding().empty()) return false;
  if (s.metadata_size() > 0) *had_metadata = true;
  std::string text;
  switch (s.type()) {
    case px::OpSharding::TUPLE: {
      for (int i = 0; i < s.tuple_shardings_size(); ++i) {
        std::string element;
        if (!ShardingText(s.tuple_shardings(i), depth + 1, &element, had_metadata)) return false;
        if (i) text += ", ";
        text += "{" + element + "}";
      }
      *out = text;
      return true;
    }
    case px::OpSharding::MAXIMAL:
      text =
          "maximal device=" +
          std::to_string(s.tile_assignment_devices_size() > 0 ? s.tile_assignment_devices(0) : 0);
      break;
    case px::OpSharding::OTHER: {
      text = "devices=[" + Join(s.tile_assignment_dimensions(), ",") + "]";
      if (s.iota_reshape_dims_size() > 0) {
        text += "<=[" + Join(s.iota_reshape_dims(), ",") + "]";
        bool identity = true;
        for (int i = 0; i < s.iota_transpose_perm_size(); ++i)
          identity = identity && s.iota_transpose_perm(i) == i;
        if (!identity) text += "T(" + Join(s.iota_transpose_perm(), ",") + ")";
      } else {
        text += Join(s.tile_assignment_devices(), ",");
      }
      if (s.replicate_on_last_tile_dim()) {
        text += " last_tile_dim_replicate";
      } else if (s.last_tile_dims_size() > 0) {
        text += " last_tile_dims={";
        for (int i = 0; i < s.last_tile_dims_size(); ++i) {
          if (i) text += ", ";
          text += std::string(ShardingTypeText(s.last_tile_dims(i)));
        }
        text += "}";
      }
      break;
    }
    default:
      text = std::string(ShardingTypeText(s.type()));
      if (text.empty()) return false;
      break;
  }
  if (s.is_shard_group()) {
    text += (s.shard_group_type() == px::OpSharding::AS ? " shard_as " : " shard_like ") +
            std::to_string(s.shard_group_id());
  }
  *out = text;
  return true;
}

ReplicaGroups ReplicaGroupsFromProto(const px::HloInstructionProto& inst) {
  ReplicaGroups groups;
  if (inst.has_collective_device_list() &&
      inst.collective_device_list().has_iota_replica_group_list()) {
    const px::IotaReplicaGroupListProto& iota =
        inst.collective_device_list().iota_replica_group_list();
    groups.iota = true;
    groups.iota_group_shape = {iota.num_replica_groups(), iota.num_devices_per_group()};
    groups.iota_reshape_dims.assign(iota.iota_reshape_dims().begin(),
                                    iota.iota_reshape_dims().end());
    bool identity = true;
    for (int i = 0; i < iota.iota_transpose_perm_size(); ++i)
      identity = identity && iota.iota_transpose_perm(i) == i;
    if (!identity) {
      groups.iota_transpose_perm.assign(iota.iota_transpose_perm().begin(),
                                        iota.iota_transpose_perm().end());
    }
    return groups;
  }
  const auto& list = inst.has_collective_device_list()
                         ? inst.collective_device_list().replica_groups()
                         : inst.replica_groups();
  for (const px::ReplicaGroup& g : list)
    groups.groups.emplace_back(g.replica_ids().begin(), g.replica_ids().end());
  return groups;
}

// "ALG_DOT_BF16_BF16_F32" -> "dot_bf16_bf16_f32".
std::string AlgorithmText(int algorithm) {
  std::string name =
      px::PrecisionConfig::Algorithm_Name(static_cast<px::PrecisionConfig::Algorithm>(algorithm));
  if (StartsWith(name, "ALG_")) name = name.substr(4);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

bool OneOf(const std::string& op, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), op) != names.end();
}

// ---------------------------------------------------------------------------
// 4. Module -> HLO text
// ---------------------------------------------------------------------------

class TextWriter {
 public:
  TextWriter(const px::HloModuleProto& module, const std::string& filename)
      : m_(module), file_(filename) {}

  StatusOr<std::string> Write() {
    RETURN_IF_ERROR(IndexComputations());
    ASSIGN_OR_RETURN(const px::HloComputationProto* entry, FindEntry());
    entry_ = entry;
    ASSIGN_OR_RETURN(std::vector<const px::HloComputationProto*> order, DependencyOrder());
    std::string out;
    RETURN_IF_ERROR(WriteHeader(&out));
    WriteStackFrames(&out);
    for (const px::HloComputationProto* comp : order) {
      out += '\n';
      RETURN_IF_ERROR(WriteComputation(*comp, &out));
    }
    return out;
  }

  void AppendWarnings(std::vector<std::string>* out) const { log_.AppendTo(out); }

 private:
  struct InstInfo {
    const px::HloInstructionProto* proto;
    Shape shape;
  };

  Status Error(const std::string& message) const { return InvalidArgument(file_ + ": " + message); }

  Status IndexComputations() {
    if (m_.computations_size() == 0) return Error("the module has no computations");
    for (const px::HloComputationProto& comp : m_.computations()) {
      if (!IsValidName(comp.name())) {
        return Error("computation name '" + CEscape(comp.name()) + "' is not a valid HLO name");
      }
      auto [it, inserted] = by_id_.emplace(comp.id(), &comp);
      if (!inserted) {
        return Error("computations %" + it->second->name() + " and %" + comp.name() +
                     " share the id " + std::to_string(comp.id()));
      }
      by_name_.emplace(comp.name(), &comp);
    }
    return Status::Ok();
  }

  StatusOr<const px::HloComputationProto*> FindEntry() const {
    if (!m_.entry_computation_name().empty()) {
      auto it = by_name_.find(m_.entry_computation_name());
      if (it != by_name_.end()) return it->second;
    }
    auto it = by_id_.find(m_.entry_computation_id());
    if (it != by_id_.end() &&
        (m_.entry_computation_id() != 0 || m_.entry_computation_name().empty())) {
      return it->second;
    }
    if (m_.entry_computation_name().empty() && m_.entry_computation_id() == 0) {
      // Neither is set: XLA puts the entry last.
      return &m_.computations(m_.computations_size() - 1);
    }
    return Error("the entry computation %" + m_.entry_computation_name() + " (id " +
                 std::to_string(m_.entry_computation_id()) + ") is not among the module's " +
                 std::to_string(m_.computations_size()) + " computations");
  }

  // Callees before callers, in the order XLA prints them.
  StatusOr<std::vector<const px::HloComputationProto*>> DependencyOrder() const {
    std::vector<const px::HloComputationProto*> order;
    std::unordered_map<const px::HloComputationProto*, int> state;  // 1 on stack, 2 done
    auto callees = [&](const px::HloComputationProto* comp)
        -> StatusOr<std::vector<const px::HloComputationProto*>> {
      // XLA walks a computation's instruction list, which is in creation order; the
      // proto lists instructions in post order but their ids count up in creation order.
      std::vector<std::pair<int64_t, int>> by_creation;  // (id, position in the proto)
      for (int i = 0; i < comp->instructions_size(); ++i) {
        by_creation.emplace_back(comp->instructions(i).id(), i);
      }
      std::sort(by_creation.begin(), by_creation.end());
      std::vector<const px::HloComputationProto*> list;
      for (const auto& [unused_id, position] : by_creation) {
        const px::HloInstructionProto& inst = comp->instructions(position);
        for (int64_t id : inst.called_computation_ids()) {
          auto it = by_id_.find(id);
          if (it == by_id_.end()) {
            return Error("instruction %" + inst.name() + " in computation %" + comp->name() +
                         " calls computation id " + std::to_string(id) +
                         ", which is not in the module");
          }
          list.push_back(it->second);
        }
      }
      return list;
    };
    // XLA prints computations in this order: for each computation nothing calls, in
    // module order, its callees depth first in instruction-list order, then itself. The
    // proto lists them in module order instead; following XLA keeps the text dump's order.
    std::unordered_set<int64_t> called;
    for (const px::HloComputationProto& comp : m_.computations()) {
      for (const px::HloInstructionProto& inst : comp.instructions()) {
        called.insert(inst.called_computation_ids().begin(), inst.called_computation_ids().end());
      }
    }
    std::vector<const px::HloComputationProto*> roots;
    for (const px::HloComputationProto& comp : m_.computations()) {
      if (!called.count(comp.id())) roots.push_back(&comp);
    }
    // Computations that only call each other in a cycle are reported by the walk below.
    for (const px::HloComputationProto& comp : m_.computations()) roots.push_back(&comp);
    for (const px::HloComputationProto* root : roots) {
      if (state[root] != 0) continue;
      struct Frame {
        const px::HloComputationProto* comp;
        std::vector<const px::HloComputationProto*> callees;
        size_t next;
      };
      std::vector<Frame> stack;
      ASSIGN_OR_RETURN(auto first, callees(root));
      stack.push_back({root, std::move(first), 0});
      state[root] = 1;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next < f.callees.size()) {
          const px::HloComputationProto* callee = f.callees[f.next++];
          int& s = state[callee];
          if (s == 1)
            return Error("computation %" + callee->name() + " calls itself (through %" +
                         f.comp->name() + ")");
          if (s == 0) {
            s = 1;
            ASSIGN_OR_RETURN(auto list, callees(callee));
            stack.push_back({callee, std::move(list), 0});
          }
          continue;
        }
        state[f.comp] = 2;
        order.push_back(f.comp);
        stack.pop_back();
      }
    }
    return order;
  }

  Status WriteHeader(std::string* out) {
    std::string name = m_.name();
    if (!IsValidName(name)) {
      log_.Add("the module name '" + CEscape(name) +
                   "' is not a valid HLO name; the entry's name is used",
               "module");
      name = entry_->name();
    }
    *out += "HloModule " + name;
    if (m_.has_schedule() && !m_.schedule().sequences().empty()) *out += ", is_scheduled=true";
    if (m_.has_host_program_shape()) {
      const px::ProgramShapeProto& ps = m_.host_program_shape();
      std::string layout = "{(";
      for (int i = 0; i < ps.parameters_size(); ++i) {
        StatusOr<Shape> shape = ShapeFromProto(ps.parameters(i));
        if (!shape.ok())
          return Error("entry computation layout, parameter " + std::to_string(i) + ": " +
                       shape.status().message());
        if (i) layout += ", ";
        layout += shape->ToString(true);
      }
      StatusOr<Shape> result = ShapeFromProto(ps.result());
      if (!result.ok())
        return Error("entry computation layout, result: " + result.status().message());
      layout += ")->" + result->ToString(true) + "}";
      *out += ", entry_computation_layout=" + layout;
    }
    if (m_.input_output_alias().entries_size() > 0) {
      std::string s = "{ ";
      for (int i = 0; i < m_.input_output_alias().entries_size(); ++i) {
        const auto& e = m_.input_output_alias().entries(i);
        if (i) s += ", ";
        s += Braced(e.output_shape_index()) + ": (" + std::to_string(e.parameter_number()) + ", " +
             Braced(e.parameter_shape_index());
        if (e.kind() == px::MAY_ALIAS) s += ", may-alias";
        if (e.kind() == px::MUST_ALIAS) s += ", must-alias";
        s += ")";
      }
      *out += ", input_output_alias=" + s + " }";
    }
    if (m_.buffer_donor().entries_size() > 0) {
      std::string s = "{ ";
      for (int i = 0; i < m_.buffer_donor().entries_size(); ++i) {
        const auto& e = m_.buffer_donor().entries(i);
        if (i) s += ", ";
        s += "(" + std::to_string(e.parameter_number()) + ", " + Braced(e.parameter_shape_index()) +
             ")";
      }
      *out += ", buffer_donor=" + s + " }";
    }
    if (m_.frontend_attributes().map_size() > 0) {
      *out += ", frontend_attributes=" + FrontendAttributesText(m_.frontend_attributes());
    }
    bool metadata = false;
    if (m_.has_spmd_output_sharding()) {
      std::string text;
      if (ShardingText(m_.spmd_output_sharding(), 0, &text, &metadata)) {
        *out += ", spmd_output_sharding={" + text + "}";
      } else {
        log_.Add("spmd_output_sharding in a form Fusebox cannot spell; left out", "module");
      }
    }
    if (m_.spmd_parameters_shardings_size() > 0) {
      std::string s = "{";
      bool ok = true;
      for (int i = 0; i < m_.spmd_parameters_shardings_size() && ok; ++i) {
        std::string text;
        ok = ShardingText(m_.spmd_parameters_shardings(i), 0, &text, &metadata);
        if (i) s += ",";
        s += "{" + text + "}";
      }
      if (ok) {
        *out += ", spmd_parameters_shardings=" + s + "}";
      } else {
        log_.Add("spmd_parameters_shardings in a form Fusebox cannot spell; left out", "module");
      }
    }
    *out += "\n\n";
    return Status::Ok();
  }

  void WriteStackFrames(std::string* out) const {
    if (!m_.has_stack_frame_index()) return;
    const px::StackFrameIndexProto& index = m_.stack_frame_index();
    auto strings = [&](const char* title, const auto& items) {
      if (items.empty()) return;
      *out += title;
      *out += '\n';
      for (int i = 0; i < items.size(); ++i)
        *out += std::to_string(i + 1) + " " + Quoted(items[i]) + "\n";
      *out += '\n';
    };
    strings("FileNames", index.file_names());
    strings("FunctionNames", index.function_names());
    if (index.file_locations_size() > 0) {
      *out += "FileLocations\n";
      for (int i = 0; i < index.file_locations_size(); ++i) {
        const auto& l = index.file_locations(i);
        *out += std::to_string(i + 1) + " {file_name_id=" + std::to_string(l.file_name_id()) +
                " function_name_id=" + std::to_string(l.function_name_id()) +
                " line=" + std::to_string(l.line()) + " end_line=" + std::to_string(l.end_line()) +
                " column=" + std::to_string(l.column()) +
                " end_column=" + std::to_string(l.end_column()) + "}\n";
      }
      *out += '\n';
    }
    if (index.stack_frames_size() > 0) {
      *out += "StackFrames\n";
      for (int i = 0; i < index.stack_frames_size(); ++i) {
        const auto& f = index.stack_frames(i);
        // XLA's text writer prints a frame's parent one higher than the proto stores it
        // (a root frame, parent 0, prints as parent_frame_id=1). Written the same way,
        // a proto and its text dump import to the same tables.
        *out += std::to_string(i + 1) +
                " {file_location_id=" + std::to_string(f.file_location_id()) +
                " parent_frame_id=" + std::to_string(f.parent_frame_id() + 1) + "}\n";
      }
      *out += '\n';
    }
  }

  // The instruction order to print: the module's schedule for this computation when
  // it lists each instruction once (XLA prints scheduled modules in schedule order),
  // else the proto's order.
  std::vector<const px::HloInstructionProto*> InstructionOrder(
      const px::HloComputationProto& comp,
      const std::unordered_map<int64_t, InstInfo>& by_id) const {
    std::vector<const px::HloInstructionProto*> order;
    if (m_.has_schedule()) {
      auto it = m_.schedule().sequences().find(comp.id());
      if (it != m_.schedule().sequences().end() &&
          it->second.instruction_ids_size() == comp.instructions_size()) {
        std::unordered_set<int64_t> seen;
        for (int64_t id : it->second.instruction_ids()) {
          auto found = by_id.find(id);
          if (found == by_id.end() || !seen.insert(id).second) {
            order.clear();
            break;
          }
          order.push_back(found->second.proto);
        }
        if (!order.empty()) return order;
      }
    }
    for (const px::HloInstructionProto& inst : comp.instructions()) order.push_back(&inst);
    return order;
  }

  Status WriteComputation(const px::HloComputationProto& comp, std::string* out) {
    std::unordered_map<int64_t, InstInfo> by_id;
    std::unordered_set<std::string> names;
    for (const px::HloInstructionProto& inst : comp.instructions()) {
      std::string where = "instruction %" + inst.name() + " in computation %" + comp.name();
      if (!IsValidName(inst.name())) {
        return Error("an instruction of computation %" + comp.name() + " has the name '" +
                     CEscape(inst.name()) + "', which is not a valid HLO name");
      }
      if (!names.insert(inst.name()).second) {
        return Error("computation %" + comp.name() + " has two instructions named %" + inst.name());
      }
      StatusOr<Shape> shape = ShapeFromProto(inst.shape());
      if (!shape.ok()) return Error(where + ": " + shape.status().message());
      auto [it, inserted] = by_id.emplace(inst.id(), InstInfo{&inst, std::move(shape).value()});
      if (!inserted) {
        return Error(where + " has the id " + std::to_string(inst.id()) + ", which %" +
                     it->second.proto->name() + " has too");
      }
    }
    if (comp.instructions_size() == 0)
      return Error("computation %" + comp.name() + " has no instructions");
    const px::HloInstructionProto* root = &comp.instructions(comp.instructions_size() - 1);
    auto root_it = by_id.find(comp.root_id());
    if (root_it != by_id.end()) {
      root = root_it->second.proto;
    } else if (comp.root_id() != 0) {
      return Error("computation %" + comp.name() + ": its root id " +
                   std::to_string(comp.root_id()) + " names no instruction of the computation");
    }

    // Signature: parameters by number, then the root's shape (no layouts, as XLA prints).
    std::vector<const InstInfo*> params;
    for (const auto& [id, info] : by_id) {
      if (info.proto->opcode() == "parameter") params.push_back(&info);
    }
    std::sort(params.begin(), params.end(), [](const InstInfo* a, const InstInfo* b) {
      return a->proto->parameter_number() < b->proto->parameter_number();
    });
    if (&comp == entry_) *out += "ENTRY ";
    *out += "%" + comp.name() + " (";
    for (size_t i = 0; i < params.size(); ++i) {
      if (i) *out += ", ";
      *out += params[i]->proto->name() + ": " + params[i]->shape.ToString(false);
    }
    *out += ") -> " + by_id.at(root->id()).shape.ToString(false) + " {\n";
    for (const px::HloInstructionProto* inst : InstructionOrder(comp, by_id)) {
      *out += "  ";
      if (inst == root) *out += "ROOT ";
      RETURN_IF_ERROR(WriteInstruction(comp, *inst, by_id, out));
      *out += '\n';
    }
    *out += "}";
    if (!comp.execution_thread().empty() && comp.execution_thread() != "main") {
      *out += ", execution_thread=" + Quoted(comp.execution_thread());
    }
    *out += "\n";
    return Status::Ok();
  }

  Status WriteInstruction(const px::HloComputationProto& comp, const px::HloInstructionProto& inst,
                          const std::unordered_map<int64_t, InstInfo>& by_id, std::string* out) {
    const std::string& op = inst.opcode();
    std::string where = "instruction %" + inst.name() + " in computation %" + comp.name();
    const Shape& shape = by_id.at(inst.id()).shape;
    if (op.empty()) return Error(where + " has no opcode");
    *out += "%" + inst.name() + " = " + shape.ToString(true) + " " + op + "(";
    std::vector<const InstInfo*> operands;
    if (op == "parameter") {
      *out += std::to_string(inst.parameter_number());
    } else if (op == "constant") {
      RETURN_IF_ERROR(WriteConstant(inst, shape, where, out));
    } else {
      for (int i = 0; i < inst.operand_ids_size(); ++i) {
        auto it = by_id.find(inst.operand_ids(i));
        if (it == by_id.end()) {
          return Error(where + ": operand " + std::to_string(i) + " has id " +
                       std::to_string(inst.operand_ids(i)) +
                       ", which names no instruction of the computation");
        }
        if (i) *out += ", ";
        *out += "%" + it->second.proto->name();
        operands.push_back(&it->second);
      }
    }
    *out += ")";
    std::string attrs;
    auto add = [&](std::string_view key, const std::string& value) {
      attrs += ", ";
      attrs += key;
      attrs += '=';
      attrs += value;
    };
    WriteOpcodeAttributes(inst, operands, where, add);
    RETURN_IF_ERROR(WriteCalledComputations(inst, operands, where, add));
    if (inst.control_predecessor_ids_size() > 0) {
      std::string s = "{";
      for (int i = 0; i < inst.control_predecessor_ids_size(); ++i) {
        auto it = by_id.find(inst.control_predecessor_ids(i));
        if (it == by_id.end()) {
          return Error(where + ": control predecessor id " +
                       std::to_string(inst.control_predecessor_ids(i)) +
                       " names no instruction of the computation");
        }
        if (i) s += ", ";
        s += "%" + it->second.proto->name();
      }
      add("control-predecessors", s + "}");
    }
    WriteGenericAttributes(inst, where, add);
    *out += attrs;
    return Status::Ok();
  }

  Status WriteConstant(const px::HloInstructionProto& inst, const Shape& shape,
                       const std::string& where, std::string* out) {
    if (!inst.has_literal()) {
      *out += "{...}";
      log_.Add("constants without a value load as elided ({...})", where);
      return Status::Ok();
    }
    Shape literal_shape = shape;
    if (inst.literal().has_shape()) {
      StatusOr<Shape> s = ShapeFromProto(inst.literal().shape());
      if (!s.ok()) return Error(where + ": literal: " + s.status().message());
      if (!s->Compatible(shape)) {
        return Error(where + ": its literal has shape " + s->ToString(false) +
                     ", the instruction " + shape.ToString(false));
      }
      literal_shape = std::move(s).value();
    }
    StatusOr<std::optional<Literal>> literal = LiteralWithShape(inst.literal(), literal_shape);
    if (!literal.ok()) return Error(where + ": " + literal.status().message());
    if (!literal->has_value()) {
      *out += "{...}";
      log_.Add("constants without a value load as elided ({...})", where);
      return Status::Ok();
    }
    *out += (*literal)->ToString();
    return Status::Ok();
  }

  template <typename Add>
  void WriteOpcodeAttributes(const px::HloInstructionProto& inst,
                             const std::vector<const InstInfo*>& operands, const std::string& where,
                             Add&& add) {
    const std::string& op = inst.opcode();
    if (op == "custom-call") add("custom_call_target", Quoted(inst.custom_call_target()));
    if (op == "parameter" && inst.parameter_replication().replicated_at_leaf_buffers_size() > 0) {
      std::string s = "{";
      for (int i = 0; i < inst.parameter_replication().replicated_at_leaf_buffers_size(); ++i) {
        if (i) s += ",";
        s += inst.parameter_replication().replicated_at_leaf_buffers(i) ? "true" : "false";
      }
      add("parameter_replication", s + "}");
    }
    if (op == "iota") {
      add("iota_dimension", std::to_string(inst.dimensions_size() > 0 ? inst.dimensions(0) : 0));
    } else if (op == "reshape") {
      // XLA keeps a reshape's inferred dimension in `dimensions`.
      if (inst.dimensions_size() > 0) add("inferred_dimension", std::to_string(inst.dimensions(0)));
    } else if (inst.dimensions_size() > 0 || OneOf(op, {"broadcast", "reduce", "transpose",
                                                        "reverse", "concatenate", "sort", "map"})) {
      add("dimensions", Braced(inst.dimensions()));
    }
    if (op == "get-tuple-element") add("index", std::to_string(inst.tuple_index()));
    int64_t channel = inst.channel_id() > 0 ? inst.channel_id() : inst.all_reduce_id();
    if (channel > 0) add("channel_id", std::to_string(channel));
    bool has_groups = inst.replica_groups_size() > 0 ||
                      inst.collective_device_list().replica_groups_size() > 0 ||
                      inst.collective_device_list().has_iota_replica_group_list();
    if (has_groups ||
        OneOf(op, {"all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "all-to-all",
                   "reduce-scatter", "collective-broadcast", "ragged-all-to-all"})) {
      add("replica_groups", ReplicaGroupsFromProto(inst).ToString());
    }
    if (op == "slice" || inst.slice_dimensions_size() > 0) {
      std::string s = "{";
      for (int i = 0; i < inst.slice_dimensions_size(); ++i) {
        const auto& d = inst.slice_dimensions(i);
        if (i) s += ", ";
        s += "[" + std::to_string(d.start()) + ":" + std::to_string(d.limit());
        if (d.stride() != 1) s += ":" + std::to_string(d.stride());
        s += "]";
      }
      add("slice", s + "}");
    }
    if (op == "dynamic-slice" || inst.dynamic_slice_sizes_size() > 0) {
      add("dynamic_slice_sizes", Braced(inst.dynamic_slice_sizes()));
    }
    if (inst.padding_config().dimensions_size() > 0) {
      std::vector<PaddingDimension> padding;
      for (const auto& d : inst.padding_config().dimensions()) {
        padding.push_back({d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
      }
      add("padding", PaddingToString(padding));
    }
    if (inst.window().dimensions_size() > 0) {
      Window window;
      for (const auto& d : inst.window().dimensions()) {
        window.dimensions.push_back({d.size(), d.stride(), d.padding_low(), d.padding_high(),
                                     d.window_dilation(), d.base_dilation(), d.window_reversal()});
      }
      add("window", "{" + window.ToString() + "}");
    }
    if (op == "convolution" || (op == "custom-call" && inst.has_convolution_dimension_numbers())) {
      const auto& c = inst.convolution_dimension_numbers();
      ConvolutionDimensionNumbers dn;
      dn.input_batch_dimension = c.input_batch_dimension();
      dn.input_feature_dimension = c.input_feature_dimension();
      dn.input_spatial_dimensions.assign(c.input_spatial_dimensions().begin(),
                                         c.input_spatial_dimensions().end());
      dn.kernel_input_feature_dimension = c.kernel_input_feature_dimension();
      dn.kernel_output_feature_dimension = c.kernel_output_feature_dimension();
      dn.kernel_spatial_dimensions.assign(c.kernel_spatial_dimensions().begin(),
                                          c.kernel_spatial_dimensions().end());
      dn.output_batch_dimension = c.output_batch_dimension();
      dn.output_feature_dimension = c.output_feature_dimension();
      dn.output_spatial_dimensions.assign(c.output_spatial_dimensions().begin(),
                                          c.output_spatial_dimensions().end());
      add("dim_labels", dn.ToString());
    }
    if (inst.feature_group_count() > 1)
      add("feature_group_count", std::to_string(inst.feature_group_count()));
    if (inst.batch_group_count() > 1)
      add("batch_group_count", std::to_string(inst.batch_group_count()));
    const px::DotDimensionNumbers* dot = nullptr;
    if (op == "dot") dot = &inst.dot_dimension_numbers();
    if (op == "ragged-dot") dot = &inst.ragged_dot_dimension_numbers().dot_dimension_numbers();
    if (dot != nullptr) {
      if (dot->lhs_batch_dimensions_size() > 0)
        add("lhs_batch_dims", Braced(dot->lhs_batch_dimensions()));
      add("lhs_contracting_dims", Braced(dot->lhs_contracting_dimensions()));
      if (dot->rhs_batch_dimensions_size() > 0)
        add("rhs_batch_dims", Braced(dot->rhs_batch_dimensions()));
      add("rhs_contracting_dims", Braced(dot->rhs_contracting_dimensions()));
    }
    if (op == "ragged-dot") {
      const auto& r = inst.ragged_dot_dimension_numbers();
      add("lhs_ragged_dims", Braced(r.lhs_ragged_dimensions()));
      if (r.rhs_group_dimensions_size() > 0)
        add("rhs_group_dims", Braced(r.rhs_group_dimensions()));
    }
    if (!inst.dot_sparsity().empty())
      log_.Add("dot sparsity descriptors are not decoded; left out", where);
    const auto& precision = inst.precision_config();
    bool any_precision = false;
    for (int p : precision.operand_precision())
      any_precision = any_precision || p != px::PrecisionConfig::DEFAULT;
    if (any_precision) {
      std::string s = "{";
      for (int i = 0; i < precision.operand_precision_size(); ++i) {
        if (i) s += ",";
        std::string name = px::PrecisionConfig::Precision_Name(precision.operand_precision(i));
        std::transform(name.begin(), name.end(), name.begin(),
                       [](char c) { return static_cast<char>(std::tolower(c)); });
        s += name.empty() ? "default" : name;
      }
      add("operand_precision", s + "}");
    }
    if (precision.algorithm() != px::PrecisionConfig::ALG_UNSET)
      add("algorithm", AlgorithmText(precision.algorithm()));
    if (op == "gather") {
      const auto& g = inst.gather_dimension_numbers();
      add("offset_dims", Braced(g.offset_dims()));
      add("collapsed_slice_dims", Braced(g.collapsed_slice_dims()));
      add("start_index_map", Braced(g.start_index_map()));
      if (g.operand_batching_dims_size() > 0)
        add("operand_batching_dims", Braced(g.operand_batching_dims()));
      if (g.start_indices_batching_dims_size() > 0) {
        add("start_indices_batching_dims", Braced(g.start_indices_batching_dims()));
      }
      add("index_vector_dim", std::to_string(g.index_vector_dim()));
      add("slice_sizes", Braced(inst.gather_slice_sizes()));
    }
    if (op == "scatter") {
      const auto& s = inst.scatter_dimension_numbers();
      add("update_window_dims", Braced(s.update_window_dims()));
      add("inserted_window_dims", Braced(s.inserted_window_dims()));
      add("scatter_dims_to_operand_dims", Braced(s.scatter_dims_to_operand_dims()));
      if (s.input_batching_dims_size() > 0)
        add("input_batching_dims", Braced(s.input_batching_dims()));
      if (s.scatter_indices_batching_dims_size() > 0) {
        add("scatter_indices_batching_dims", Braced(s.scatter_indices_batching_dims()));
      }
      add("index_vector_dim", std::to_string(s.index_vector_dim()));
    }
    if (inst.indices_are_sorted()) add("indices_are_sorted", "true");
    if (inst.unique_indices()) add("unique_indices", "true");
    if (op == "compare") {
      add("direction", inst.comparison_direction());
      // XLA leaves the comparison type out when it is the default for the operands.
      std::optional<ComparisonType> type = ParseComparisonType(inst.comparison_type());
      bool is_default = !operands.empty() && operands[0]->shape.IsArray() && type &&
                        *type == DefaultComparisonType(operands[0]->shape.element_type());
      if (!inst.comparison_type().empty() && !is_default) add("type", inst.comparison_type());
    }
    if (op == "fusion" && !inst.fusion_kind().empty()) add("kind", inst.fusion_kind());
    if (op == "rng") {
      std::string name = px::RandomDistribution_Name(inst.distribution());
      std::transform(name.begin(), name.end(), name.begin(),
                     [](char c) { return static_cast<char>(std::tolower(c)); });
      add("distribution", name);
    }
    if (op == "rng-bit-generator") {
      std::string name = px::RandomAlgorithm_Name(inst.rng_algorithm());
      std::transform(name.begin(), name.end(), name.begin(),
                     [](char c) { return static_cast<char>(std::tolower(c)); });
      add("algorithm", name);
    }
    if (op == "rng-get-and-update-state") add("delta", std::to_string(inst.delta()));
    if (op == "reduce-precision") {
      add("exponent_bits", std::to_string(inst.exponent_bits()));
      add("mantissa_bits", std::to_string(inst.mantissa_bits()));
    }
    if (StartsWith(op, "batch-norm-")) {
      add("epsilon", FormatFloat(inst.epsilon()));
      add("feature_index", std::to_string(inst.feature_index()));
    }
    if (op == "fft") {
      add("fft_type", px::FftType_Name(inst.fft_type()));
      add("fft_length", Braced(inst.fft_length()));
    }
    if (op == "triangular-solve") {
      const auto& t = inst.triangular_solve_options();
      if (t.left_side()) add("left_side", "true");
      if (t.lower()) add("lower", "true");
      if (t.unit_diagonal()) add("unit_diagonal", "true");
      if (t.transpose_a() != px::TriangularSolveOptions::NO_TRANSPOSE &&
          t.transpose_a() != px::TriangularSolveOptions::TRANSPOSE_INVALID) {
        add("transpose_a", px::TriangularSolveOptions::Transpose_Name(t.transpose_a()));
      }
    }
    if (op == "cholesky" && inst.cholesky_options().lower()) add("lower", "true");
    if (op == "sort" && inst.is_stable()) add("is_stable", "true");
    if (op == "topk") {
      add("k", std::to_string(inst.k()));
      add("largest", inst.largest() ? "true" : "false");
    }
    if (op == "custom-call") {
      if (inst.custom_call_api_version() != px::API_VERSION_ORIGINAL &&
          inst.custom_call_api_version() != px::API_VERSION_UNSPECIFIED) {
        add("api_version", px::CustomCallApiVersion_Name(inst.custom_call_api_version()));
      }
      if (inst.custom_call_has_side_effect()) add("custom_call_has_side_effect", "true");
      if (inst.constrain_layout()) {
        std::string s = "{";
        for (int i = 0; i < inst.operand_shapes_with_layout_size(); ++i) {
          StatusOr<Shape> shape = ShapeFromProto(inst.operand_shapes_with_layout(i));
          if (i) s += ", ";
          s += shape.ok() ? shape->ToString(true) : "()";
        }
        add("operand_layout_constraints", s + "}");
      }
      if (inst.custom_call_schedule() != px::SCHEDULE_NONE) {
        add("schedule", px::CustomCallSchedule_Name(inst.custom_call_schedule()));
      }
    } else if (inst.constrain_layout()) {
      add("constrain_layout", "true");
    }
    if (inst.output_operand_aliasing_size() > 0) {
      std::string s = "{";
      for (int i = 0; i < inst.output_operand_aliasing_size(); ++i) {
        const auto& a = inst.output_operand_aliasing(i);
        if (i) s += ", ";
        s += Braced(a.output_shape_index()) + ": (" + std::to_string(a.operand_index()) + ", " +
             Braced(a.operand_shape_index()) + ")";
      }
      add("output_to_operand_aliasing", s + "}");
    }
    if (inst.padding_type() != px::PADDING_INVALID)
      add("padding_type", px::PaddingType_Name(inst.padding_type()));
    if (OneOf(op, {"collective-permute", "collective-permute-start"}) ||
        inst.source_target_pairs_size() > 0) {
      std::string s = "{";
      for (int i = 0; i < inst.source_target_pairs_size(); ++i) {
        if (i) s += ",";
        s += "{" + std::to_string(inst.source_target_pairs(i).source()) + "," +
             std::to_string(inst.source_target_pairs(i).target()) + "}";
      }
      add("source_target_pairs", s + "}");
    }
    if (inst.use_global_device_ids()) add("use_global_device_ids", "true");
    if (inst.is_host_transfer()) add("is_host_transfer", "true");
    if (op == "infeed" && !inst.infeed_config().empty())
      add("infeed_config", Quoted(inst.infeed_config()));
    if (op == "outfeed") {
      if (!inst.outfeed_config().empty()) add("outfeed_config", Quoted(inst.outfeed_config()));
      if (inst.has_outfeed_shape()) {
        StatusOr<Shape> s = ShapeFromProto(inst.outfeed_shape());
        if (s.ok()) add("outfeed_shape", s->ToString(true));
      }
    }
    if (inst.has_cross_program_prefetch_index()) {
      add("cross_program_prefetch_index", std::to_string(inst.cross_program_prefetch_index()));
    }
    if (!inst.async_execution_thread().empty() && inst.async_execution_thread() != "main") {
      add("async_execution_thread", Quoted(inst.async_execution_thread()));
    }
    if (op == "domain") {
      bool metadata = false;
      std::string entry, exit;
      if (ShardingText(inst.domain_entry_sharding(), 0, &entry, &metadata) &&
          ShardingText(inst.domain_exit_sharding(), 0, &exit, &metadata)) {
        add("domain", "{kind=\"sharding\", entry={" + entry + "}, exit={" + exit + "}}");
      } else {
        log_.Add("domain shardings Fusebox cannot spell; left out", where);
      }
    }
  }

  template <typename Add>
  Status WriteCalledComputations(const px::HloInstructionProto& inst,
                                 const std::vector<const InstInfo*>& operands,
                                 const std::string& where, Add&& add) {
    const std::string& op = inst.opcode();
    std::vector<std::string> names;
    for (int64_t id : inst.called_computation_ids()) names.push_back("%" + by_id_.at(id)->name());
    auto list = [&]() { return "{" + Join(names, ", ") + "}"; };
    if (names.empty()) return Status::Ok();
    if (op == "while") {
      // XLA stores the body first and the condition second.
      if (names.size() != 2)
        return Error(where + ": a while loop calls " + std::to_string(names.size()) +
                     " computations, expected 2 (body, condition)");
      add("condition", names[1]);
      add("body", names[0]);
    } else if (op == "conditional") {
      bool predicate = !operands.empty() && operands[0]->shape.IsArray() &&
                       operands[0]->shape.element_type() == PrimitiveType::kPred;
      if (predicate && names.size() == 2) {
        add("true_computation", names[0]);
        add("false_computation", names[1]);
      } else {
        add("branch_computations", list());
      }
    } else if (op == "select-and-scatter") {
      if (names.size() != 2)
        return Error(where + ": select-and-scatter calls " + std::to_string(names.size()) +
                     " computations, expected 2 (select, scatter)");
      add("select", names[0]);
      add("scatter", names[1]);
    } else if (op == "custom-call") {
      add("called_computations", list());
    } else if (OneOf(op, {"call", "map", "reduce", "reduce-window", "all-reduce",
                          "all-reduce-start", "reduce-scatter", "scatter", "sort", "topk"})) {
      add("to_apply", names[0]);
    } else {
      add("calls", names.size() == 1 ? names[0] : list());
    }
    return Status::Ok();
  }

  template <typename Add>
  void WriteGenericAttributes(const px::HloInstructionProto& inst, const std::string& where,
                              Add&& add) {
    if (inst.has_sharding()) {
      std::string text;
      bool metadata = false;
      if (ShardingText(inst.sharding(), 0, &text, &metadata)) {
        add("sharding", "{" + text + "}");
        if (metadata) log_.Add("sharding metadata is not shown", where);
      } else {
        log_.Add("shardings in a form Fusebox cannot spell (named shardings) are left out", where);
      }
    }
    if (inst.frontend_attributes().map_size() > 0) {
      add("frontend_attributes", FrontendAttributesText(inst.frontend_attributes()));
    }
    if (inst.statistics_viz().statistics_size() > 0) {
      std::string s =
          "{visualizing_index=" + std::to_string(inst.statistics_viz().stat_index_to_visualize());
      for (const px::Statistic& stat : inst.statistics_viz().statistics()) {
        s += "," + stat.stat_name() + "=" + FormatDouble(stat.stat_val());
      }
      add("statistics", s + "}");
    }
    OpMetadata metadata = MetadataFromProto(inst.metadata());
    if (!metadata.empty()) add("metadata", "{" + metadata.ToString() + "}");
    if (!inst.backend_config().empty()) {
      const std::string& config = inst.backend_config();
      if (config.front() == '{' && config.back() == '}') {
        add("backend_config", config);
      } else {
        add("backend_config", Quoted(config));
      }
    }
    if (inst.is_composite()) add("is_composite", "true");
    if (inst.has_result_accuracy()) {
      const px::ResultAccuracy& ra = inst.result_accuracy();
      if (ra.has_tolerance()) {
        add("result_accuracy", "{tolerance={atol=" + FormatDouble(ra.tolerance().atol()) +
                                   ",rtol=" + FormatDouble(ra.tolerance().rtol()) +
                                   ",ulps=" + std::to_string(ra.tolerance().ulps()) + "}}");
      } else if (ra.mode() == px::ResultAccuracy::HIGHEST) {
        add("result_accuracy", "{mode=highest}");
      }
    }
    if (!inst.original_value().empty())
      log_.Add("original values (origin=...) are not decoded; left out", where);
    NoteUnknownFields(inst, where);
  }

  // Fields this schema does not declare (newer XLA) that carry something.
  void NoteUnknownFields(const px::HloInstructionProto& inst, const std::string& where) {
    const google::protobuf::UnknownFieldSet& unknown = inst.GetReflection()->GetUnknownFields(inst);
    for (int i = 0; i < unknown.field_count(); ++i) {
      const google::protobuf::UnknownField& f = unknown.field(i);
      bool empty = (f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED &&
                    f.length_delimited().empty()) ||
                   (f.type() == google::protobuf::UnknownField::TYPE_VARINT && f.varint() == 0);
      if (!empty) {
        log_.Add(
            "instruction field " + std::to_string(f.number()) + " is not known to Fusebox; ignored",
            where);
      }
    }
  }

  const px::HloModuleProto& m_;
  std::string file_;
  std::unordered_map<int64_t, const px::HloComputationProto*> by_id_;
  std::unordered_map<std::string, const px::HloComputationProto*> by_name_;
  const px::HloComputationProto* entry_ = nullptr;
  WarningLog log_;
};

// ---------------------------------------------------------------------------
// 5. Wire-level scan
// ---------------------------------------------------------------------------

// One field of a message as the wire format lays it out.
struct WireField {
  uint32_t number = 0;
  int wire_type = 0;
  size_t start = 0;          // offset of the tag
  size_t payload_begin = 0;  // for length-delimited fields
  size_t payload_end = 0;    // declared end; may lie past the data when truncated
};

struct WireScan {
  std::vector<WireField> fields;  // complete fields, plus a last incomplete one if truncated
  bool truncated = false;         // the data ends inside the last field
  bool corrupt = false;           // bytes that are not protobuf wire format
  size_t stop = 0;                // where scanning stopped
};

// Walks the fields of one message in data[begin, end) without interpreting them.
WireScan ScanFields(std::string_view data, size_t begin, size_t end) {
  WireScan scan;
  const auto* base = reinterpret_cast<const uint8_t*>(data.data()) + begin;
  int size = static_cast<int>(end - begin);
  google::protobuf::io::CodedInputStream in(base, size);
  // A varint that cannot be read with fewer than 10 bytes left is cut, not corrupt.
  auto cut_or_corrupt = [&](size_t at) {
    scan.stop = at;
    if (end - at < 10) {
      scan.truncated = true;
    } else {
      scan.corrupt = true;
    }
  };
  while (true) {
    size_t at = begin + static_cast<size_t>(in.CurrentPosition());
    if (at == end) {
      scan.stop = at;
      return scan;
    }
    uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (data[at] == 0) {  // field number 0 does not exist
        scan.corrupt = true;
        scan.stop = at;
      } else {
        cut_or_corrupt(at);
      }
      return scan;
    }
    WireField f;
    f.number = tag >> 3;
    f.wire_type = static_cast<int>(tag & 7);
    f.start = at;
    bool ok = true;
    switch (f.wire_type) {
      case 0: {
        uint64_t v;
        ok = in.ReadVarint64(&v);
        if (!ok) cut_or_corrupt(at);
        break;
      }
      case 1:
      case 5: {
        int width = f.wire_type == 1 ? 8 : 4;
        ok = in.Skip(width);
        if (!ok) {
          scan.truncated = true;
          scan.stop = at;
        }
        break;
      }
      case 2: {
        uint32_t length;
        if (!in.ReadVarint32(&length)) {
          ok = false;
          cut_or_corrupt(at);
          break;
        }
        f.payload_begin = begin + static_cast<size_t>(in.CurrentPosition());
        f.payload_end = f.payload_begin + length;
        if (f.payload_end > end) {
          ok = false;
          scan.truncated = true;
          scan.stop = at;
          scan.fields.push_back(f);
          return scan;
        }
        in.Skip(static_cast<int>(length));
        break;
      }
      default:
        ok = false;
        scan.corrupt = true;
        scan.stop = at;
        break;
    }
    if (!ok) {
      if (scan.truncated) {
        f.payload_end = end + 1;
        scan.fields.push_back(f);
      }
      return scan;
    }
    f.payload_end = std::max(f.payload_end, begin + static_cast<size_t>(in.CurrentPosition()));
    scan.fields.push_back(f);
  }
}

bool LooksLikeName(std::string_view data, const WireField& f) {
  if (f.wire_type != 2 || f.payload_end > data.size() || f.payload_end == f.payload_begin)
    return false;
  for (size_t i = f.payload_begin; i < f.payload_end; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    if (c < 0x20 || c >= 0x7f) return false;
  }
  return true;
}

// Explains why `bytes` did not decode: a truncated module (with what survives) or
// bytes that are not an HLO proto.
Status DiagnoseUndecodable(std::string_view bytes, const std::string& filename) {
  std::string total = std::to_string(bytes.size());
  WireScan top = ScanFields(bytes, 0, bytes.size());
  if (top.corrupt) {
    return InvalidArgument(filename + ": not an HLO proto (bytes at offset " +
                           std::to_string(top.stop) + " are not protobuf wire format)");
  }
  // Find the module: the top level (HloModuleProto) or field 1 of it, once (HloProto)
  // or twice (HloSnapshot). A module level starts with its name and lists computations
  // as field 3.
  const char* wrappers[] = {"", "HloProto", "HloSnapshot"};
  size_t begin = 0, end = bytes.size();
  WireScan level = top;
  for (int depth = 0; depth < 3; ++depth) {
    bool has_name = !level.fields.empty() && level.fields[0].number == 1 &&
                    LooksLikeName(bytes, level.fields[0]);
    int complete = 0;
    const WireField* last_complete = nullptr;
    const WireField* cut = nullptr;
    for (const WireField& f : level.fields) {
      if (f.number != 3 || f.wire_type != 2) continue;
      if (f.payload_end <= end) {
        ++complete;
        last_complete = &f;
      } else {
        cut = &f;
      }
    }
    if (has_name && (complete > 0 || cut != nullptr) && level.truncated) {
      std::string msg = filename + ": truncated HLO proto: decoding stopped at byte " +
                        std::to_string(level.stop) + " of " + total;
      if (cut != nullptr) {
        msg += " inside computation " + std::to_string(complete + 1) + " (it needs " +
               std::to_string(cut->payload_end - cut->payload_begin) + " bytes, " +
               std::to_string(end - cut->payload_begin) + " remain); " + std::to_string(complete) +
               " of the computations are complete";
      } else {
        msg += "; all " + std::to_string(complete) +
               " computations are complete, a later field of the module is cut";
      }
      if (last_complete != nullptr) {
        px::HloComputationProto comp;
        if (comp.ParseFromArray(
                bytes.data() + last_complete->payload_begin,
                static_cast<int>(last_complete->payload_end - last_complete->payload_begin))) {
          msg += " (the last is %" + comp.name() + ", " + std::to_string(comp.instructions_size()) +
                 " instructions)";
        }
      }
      if (cut != nullptr) msg += "; the module cannot be loaded without the rest";
      return InvalidArgument(msg);
    }
    if (has_name && !level.truncated && depth > 0) {
      // The module is whole; what follows it in the wrapper is cut.
      return InvalidArgument(filename + ": truncated " + wrappers[depth] +
                             ": decoding stopped at byte " + std::to_string(top.stop) + " of " +
                             total + "; the module is complete but the data after it is cut");
    }
    // Descend into field 1 when it is the (last, cut) wrapper field.
    if (level.fields.empty()) break;
    WireField inner = level.fields.front();  // a copy: `level` is replaced below
    if (inner.number != 1 || inner.wire_type != 2) break;
    begin = inner.payload_begin;
    end = std::min(inner.payload_end, bytes.size());
    level = ScanFields(bytes, begin, end);
    if (level.corrupt) break;
    if (!level.truncated && inner.payload_end > bytes.size()) level.truncated = true;
  }
  if (top.truncated) {
    return InvalidArgument(
        filename + ": not an HLO proto (protobuf data ends inside a field at byte " +
        std::to_string(top.stop) + " of " + total + ", and no HLO module was found before it)");
  }
  return InvalidArgument(filename +
                         ": not an HLO proto (it decodes as protobuf but holds no HLO module with "
                         "computations)");
}

// ---------------------------------------------------------------------------
// 6. gzip
// ---------------------------------------------------------------------------

}  // namespace

bool IsGzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

StatusOr<std::string> Gunzip(std::string_view bytes, const std::string& filename,
                             int64_t max_bytes) {
  z_stream zs;
  std::memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return Internal(filename + ": cannot initialize zlib");
  std::string out;
  char buffer[1 << 16];
  size_t offset = 0;
  Status status;
  bool ended = false;
  while (true) {
    if (zs.avail_in == 0 && offset < bytes.size()) {
      size_t chunk = std::min<size_t>(bytes.size() - offset, 1u << 30);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + offset));
      zs.avail_in = static_cast<uInt>(chunk);
      offset += chunk;
    }
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - zs.avail_out);
    if (static_cast<int64_t>(out.size()) > max_bytes) {
      status = InvalidArgument(filename + ": gzip data inflates to more than " +
                               std::to_string(max_bytes) + " bytes; refusing");
      break;
    }
    if (rc == Z_STREAM_END) {
      ended = true;
      // Concatenated gzip members (as `cat a.gz b.gz` makes) continue the stream.
      if (zs.avail_in == 0 && offset >= bytes.size()) break;
      if (inflateReset(&zs) != Z_OK) {
        status = InvalidArgument(filename + ": bad gzip stream after byte " +
                                 std::to_string(zs.total_in));
        break;
      }
      ended = false;
      continue;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && offset >= bytes.size()) {
      status = InvalidArgument(filename + ": gzip stream ends early (truncated .gz file?) after " +
                               std::to_string(out.size()) + " uncompressed bytes");
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      status = InvalidArgument(filename + ": bad gzip stream (zlib: " +
                               (zs.msg ? zs.msg : "error " + std::to_string(rc)) + ")");
      break;
    }
  }
  inflateEnd(&zs);
  if (!status.ok()) return status;
  if (!ended) return InvalidArgument(filename + ": gzip stream ends early (truncated .gz file?)");
  return out;
}

// ---------------------------------------------------------------------------
// 7. Public entry points
// ---------------------------------------------------------------------------

// clang-format off
std::string_view HloProtoKindName(HloProtoKind kind) {
  switch (kind) {
    case HloProtoKind::kModule: return "HloModuleProto";
    case HloProtoKind::kHloProto: return "HloProto";
    case HloProtoKind::kSnapshot: return "HloSnapshot";
  }
  return "?";
}
// clang-format on

StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& module,
                                           const std::string& filename,
                                           std::vector<std::string>* warnings) {
  TextWriter writer(module, filename);
  StatusOr<std::string> text = writer.Write();
  if (warnings != nullptr) writer.AppendWarnings(warnings);
  return text;
}

StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto) {
  if (!proto.has_shape()) return InvalidArgument("literal has no shape");
  ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(proto.shape()));
  ASSIGN_OR_RETURN(std::optional<Literal> literal, LiteralWithShape(proto, shape));
  if (!literal)
    return InvalidArgument("literal of shape " + shape.ToString(false) + " holds no values");
  return std::move(*literal);
}

StatusOr<ProtoImport> ImportHloProto(std::string_view bytes, const std::string& filename) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(filename + ": " + std::to_string(bytes.size()) +
                           " bytes; protobuf cannot decode messages of 2 GiB or more");
  }
  if (bytes.empty()) return InvalidArgument(filename + ": not an HLO proto (the file is empty)");
  ProtoImport result;
  // The three messages all start with a length-delimited field 1, so the wire format
  // alone does not tell them apart; the first reading that yields a module with
  // computations wins. A wrong reading fails to parse or finds no computations.
  auto snapshot = std::make_unique<px::HloSnapshot>();
  auto hlo = std::make_unique<px::HloProto>();
  auto module = std::make_unique<px::HloModuleProto>();
  const px::HloModuleProto* found = nullptr;
  bool any_parsed = false;
  if (snapshot->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    any_parsed = true;
    if (snapshot->hlo().hlo_module().computations_size() > 0) {
      result.kind = HloProtoKind::kSnapshot;
      found = &snapshot->hlo().hlo_module();
    }
  }
  if (found == nullptr && hlo->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    any_parsed = true;
    if (hlo->hlo_module().computations_size() > 0) {
      result.kind = HloProtoKind::kHloProto;
      found = &hlo->hlo_module();
    }
  }
  if (found == nullptr && module->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    any_parsed = true;
    if (module->computations_size() > 0) {
      result.kind = HloProtoKind::kModule;
      found = module.get();
    }
  }
  if (found == nullptr) {
    if (any_parsed) {
      return InvalidArgument(
          filename +
          ": not an HLO proto (it decodes as protobuf but holds no HLO module with "
          "computations)");
    }
    return DiagnoseUndecodable(bytes, filename);
  }

  std::vector<std::string> warnings;
  ASSIGN_OR_RETURN(result.hlo_text, HloModuleProtoToText(*found, filename, &warnings));
  ParseOptions options;
  options.filename = filename + " (decoded to HLO text)";
  options.allow_unknown_attributes = true;
  StatusOr<ParseResult> parsed = ParseModules(result.hlo_text, options);
  if (!parsed.ok()) return parsed.status();
  if (parsed->modules.size() != 1) {
    return Internal(filename + ": the decoded text holds " +
                    std::to_string(parsed->modules.size()) + " modules, expected 1");
  }
  result.module = std::move(parsed->modules.front());
  result.module->set_source_name(filename);
  for (const ParseWarning& w : parsed->warnings) {
    warnings.push_back("decoded text " + std::to_string(w.location.line) + ":" +
                       std::to_string(w.location.column) + ": " + w.message);
  }
  result.warnings = std::move(warnings);

  if (result.kind == HloProtoKind::kSnapshot) {
    result.execution_platform = snapshot->execution_platform();
    for (int i = 0; i < snapshot->arguments_size(); ++i) {
      StatusOr<Literal> arg = LiteralFromProto(snapshot->arguments(i));
      if (!arg.ok()) {
        return InvalidArgument(filename + ": snapshot argument " + std::to_string(i) + ": " +
                               arg.status().message());
      }
      result.arguments.push_back(std::move(arg).value());
    }
    if (snapshot->has_result()) {
      StatusOr<Literal> value = LiteralFromProto(snapshot->result());
      if (!value.ok())
        return InvalidArgument(filename + ": snapshot result: " + value.status().message());
      result.result = std::move(value).value();
    }
  }
  return result;
}

StatusOr<ProtoImport> ImportHloProtoFile(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound(path + ": no such file");
  if (fs::is_directory(path, ec))
    return InvalidArgument(path + ": is a directory, not an HLO proto");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return InvalidArgument(path + ": read error");
  if (IsGzip(bytes)) {
    ASSIGN_OR_RETURN(bytes, Gunzip(bytes, path));
  }
  return ImportHloProto(bytes, path);
}

bool LooksLikeHloProtoFile(const std::string& path, std::string_view bytes) {
  return EndsWith(path, ".pb") || EndsWith(path, ".pb.gz") || IsGzip(bytes) ||
         bytes.find('\0') != std::string_view::npos;
}

StatusOr<LoadedFile> LoadHloProtoFile(const std::string& path) {
  ASSIGN_OR_RETURN(ProtoImport imported, ImportHloProtoFile(path));
  LoadedFile file;
  file.path = path;
  file.modules.push_back(std::move(imported.module));
  // Notes rather than ParseWarnings: they have no line and column in the file.
  for (std::string& warning : imported.warnings)
    file.notes.push_back(path + ": " + std::move(warning));
  file.arguments = std::move(imported.arguments);
  return file;
}

}  // namespace fusebox
