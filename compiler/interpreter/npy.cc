// .npy reading and writing. The format: the magic "\x93NUMPY", a version byte pair, a
// little-endian header length (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and a
// newline, then the raw element data.
#include "compiler/interpreter/npy.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string_view>

#include "compiler/interpreter/index_util.h"
#include "compiler/support/strings.h"

namespace fusebox::interpreter {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kHeaderAlignment = 64;  // what NumPy pads to since 1.20
constexpr std::string_view kDefaultWhat = "the expected shape";

// A dtype as the descr string gives it.
struct NpyDtype {
  std::string descr;  // as written, for messages
  char kind = 0;      // 'b', 'i', 'u', 'f', 'c' or 'V'
  int size = 0;       // bytes per element
  bool big_endian = false;
  // The element type, or nullopt for raw bytes whose meaning the file does not record
  // (void 'V1'/'V2' and ml_dtypes' 'f1').
  std::optional<PrimitiveType> type;

  bool raw() const { return !type.has_value(); }
  // NumPy's name: "float32", or "V2" / "f1" for raw values.
  std::string Name() const {
    if (raw()) return std::string(1, kind) + std::to_string(size);
    switch (kind) {
      case 'b':
        return "bool";
      case 'i':
        return "int" + std::to_string(size * 8);
      case 'u':
        return "uint" + std::to_string(size * 8);
      case 'f':
        return "float" + std::to_string(size * 8);
      default:
        return "complex" + std::to_string(size * 8);
    }
  }
};

std::string DimsToString(const std::vector<int64_t>& dims) { return "[" + Join(dims, ",") + "]"; }

// ---------------------------------------------------------------------------
// The header dict

// One value of the header dict. Lists (structured dtypes) and other Python values are
// recognised only so that the message can say what was found.
struct HeaderValue {
  enum class Kind { kString, kBool, kTuple, kList };
  Kind kind = Kind::kString;
  std::string text;
  bool boolean = false;
  std::vector<int64_t> tuple;
};

class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  // Parses `{key: value, ...}` into `out`; on failure returns false and error() says why.
  bool ParseDict(std::map<std::string, HeaderValue>* out) {
    SkipSpace();
    if (!Consume('{')) return Fail("expected '{' at the start of the header");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      if (!ParseString(&key)) return Fail("expected a quoted key");
      SkipSpace();
      if (!Consume(':')) return Fail("expected ':' after key '" + key + "'");
      HeaderValue value;
      if (!ParseValue(&value)) return false;
      if (out->count(key) != 0) return Fail("key '" + key + "' appears twice");
      (*out)[key] = std::move(value);
      SkipSpace();
      if (Consume(',')) continue;
      SkipSpace();
      if (Consume('}')) break;
      return Fail("expected ',' or '}' after the value of '" + key + "'");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the closing '}'");
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& message) {
    if (error_.empty()) error_ = message + " (at header offset " + std::to_string(pos_) + ")";
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool ParseString(std::string* out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      *out += text_[pos_++];
    }
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }

  bool ParseInt(int64_t* out) {
    const size_t start = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      const int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        return Fail("dimension too large");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Fail("expected a non-negative integer in the shape");
    Consume('L');  // Python 2 wrote longs as 3L
    *out = value;
    return true;
  }

  bool ParseValue(HeaderValue* value) {
    SkipSpace();
    if (pos_ >= text_.size()) return Fail("expected a value");
    const char c = text_[pos_];
    if (c == '\'' || c == '"') {
      value->kind = HeaderValue::Kind::kString;
      if (!ParseString(&value->text)) return Fail("unterminated string");
      return true;
    }
    if (ConsumeWord("True")) {
      value->kind = HeaderValue::Kind::kBool;
      value->boolean = true;
      return true;
    }
    if (ConsumeWord("False")) {
      value->kind = HeaderValue::Kind::kBool;
      value->boolean = false;
      return true;
    }
    if (c == '(') {
      value->kind = HeaderValue::Kind::kTuple;
      ++pos_;
      while (true) {
        SkipSpace();
        if (Consume(')')) return true;
        int64_t dim = 0;
        if (!ParseInt(&dim)) return false;
        value->tuple.push_back(dim);
        SkipSpace();
        if (Consume(',')) continue;
        if (Consume(')')) return true;
        return Fail("expected ',' or ')' in the shape tuple");
      }
    }
    if (c == '[') {
      // A structured dtype's field list; skipped whole (brackets balanced, strings opaque).
      value->kind = HeaderValue::Kind::kList;
      int depth = 0;
      while (pos_ < text_.size()) {
        const char d = text_[pos_];
        if (d == '\'' || d == '"') {
          std::string ignored;
          if (!ParseString(&ignored)) return Fail("unterminated string");
          continue;
        }
        ++pos_;
        if (d == '[' || d == '(') ++depth;
        if ((d == ']' || d == ')') && --depth == 0) return true;
      }
      return Fail("unterminated list");
    }
    return Fail(std::string("unexpected character '") + c + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

// Parses a descr such as '<f4', '|b1', '>c16', '<V2'. Returns an error message, empty
// when the descr is supported.
std::string ParseDescr(const std::string& descr, NpyDtype* dtype) {
  dtype->descr = descr;
  std::string_view rest = descr;
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    // '|' (no byte order) and '=' (the writer's native order, which the file does not
    // record) are read as little-endian, the order of every machine NumPy runs on today.
    dtype->big_endian = rest[0] == '>';
    rest.remove_prefix(1);
  }
  if (rest.size() < 2) return "unsupported dtype '" + descr + "'";
  dtype->kind = rest[0];
  int size = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9' || size > 1'000'000) return "unsupported dtype '" + descr + "'";
    size = size * 10 + (c - '0');
  }
  dtype->size = size;
  using PT = PrimitiveType;
  switch (dtype->kind) {
    case 'b':
      if (size == 1) dtype->type = PT::kPred;
      break;
    case 'i':
      if (size == 1) dtype->type = PT::kS8;
      if (size == 2) dtype->type = PT::kS16;
      if (size == 4) dtype->type = PT::kS32;
      if (size == 8) dtype->type = PT::kS64;
      break;
    case 'u':
      if (size == 1) dtype->type = PT::kU8;
      if (size == 2) dtype->type = PT::kU16;
      if (size == 4) dtype->type = PT::kU32;
      if (size == 8) dtype->type = PT::kU64;
      break;
    case 'f':
      if (size == 1) return "";  // ml_dtypes' float8_e5m2: raw, the caller picks the type
      if (size == 2) dtype->type = PT::kF16;
      if (size == 4) dtype->type = PT::kF32;
      if (size == 8) dtype->type = PT::kF64;
      if (size > 8) return "unsupported dtype '" + descr + "' (long double)";
      break;
    case 'c':
      if (size == 8) dtype->type = PT::kC64;
      if (size == 16) dtype->type = PT::kC128;
      if (size > 16) return "unsupported dtype '" + descr + "' (long double complex)";
      break;
    case 'V':
      if (size == 1 || size == 2) return "";  // raw ml_dtypes values
      return "unsupported dtype '" + descr + "' (" + std::to_string(size) +
             "-byte raw values; only 1- and 2-byte ones, as ml_dtypes writes, are read)";
    case 'U':
    case 'S':
    case 'a':
      return "unsupported dtype '" + descr + "' (strings)";
    case 'O':
      return "unsupported dtype '" + descr + "' (Python objects)";
    case 'M':
    case 'm':
      return "unsupported dtype '" + descr + "' (dates and times)";
    default:
      break;
  }
  if (!dtype->type.has_value()) return "unsupported dtype '" + descr + "'";
  return "";
}

// Element types NumPy has no dtype for, which ml_dtypes saves as raw bytes.
bool IsRawNpyType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kBF16:
    case PrimitiveType::kF8E5M2:
    case PrimitiveType::kF8E4M3:
    case PrimitiveType::kF8E4M3FN:
    case PrimitiveType::kF8E4M3B11FNUZ:
    case PrimitiveType::kF8E5M2FNUZ:
    case PrimitiveType::kF8E4M3FNUZ:
    case PrimitiveType::kF8E3M4:
    case PrimitiveType::kF8E8M0FNU:
    case PrimitiveType::kF4E2M1FN:
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
      return true;
    default:
      return false;
  }
}

// Whether raw values of `dtype` can be read as `type`.
bool RawFits(const NpyDtype& dtype, PrimitiveType type) {
  if (!IsRawNpyType(type) || ByteWidth(type) != dtype.size) return false;
  return dtype.kind == 'V' || IsFloat(type);  // 'f1' only for the 1-byte floats
}

uint64_t ReadUint(const uint8_t* p, int size, bool big_endian) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i) {
    const int shift = 8 * (big_endian ? size - 1 - i : i);
    value |= static_cast<uint64_t>(p[i]) << shift;
  }
  return value;
}

void AppendUint(uint64_t value, int size, std::string* out) {
  for (int i = 0; i < size; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// Reads one element at `p` into slot `index` of `literal`.
void DecodeElement(const uint8_t* p, const NpyDtype& dtype, int64_t index, Literal* literal) {
  const PrimitiveType type = literal->shape().element_type();
  if (type == PrimitiveType::kC64) {
    const uint32_t re = static_cast<uint32_t>(ReadUint(p, 4, dtype.big_endian));
    const uint32_t im = static_cast<uint32_t>(ReadUint(p + 4, 4, dtype.big_endian));
    literal->SetComplex(index, {std::bit_cast<float>(re), std::bit_cast<float>(im)});
  } else if (type == PrimitiveType::kC128) {
    const uint64_t re = ReadUint(p, 8, dtype.big_endian);
    const uint64_t im = ReadUint(p + 8, 8, dtype.big_endian);
    literal->SetComplex(index, {std::bit_cast<double>(re), std::bit_cast<double>(im)});
  } else if (type == PrimitiveType::kPred) {
    literal->SetBool(index, p[0] != 0);
  } else {
    literal->SetBits(index, ReadUint(p, dtype.size, dtype.big_endian));
  }
}

// "float64[3,4]", or "V2[3] (2-byte raw values)".
std::string DescribeFile(const NpyDtype& dtype, const std::vector<int64_t>& dims) {
  std::string text = dtype.Name() + DimsToString(dims);
  if (dtype.raw()) text += " (" + std::to_string(dtype.size) + "-byte raw values)";
  return text;
}

// What a .npy header says: the element layout, the dimensions and the order.
struct NpyHeader {
  NpyDtype dtype;
  std::vector<int64_t> dims;
  bool fortran_order = false;
  size_t data_offset = 0;  // where the element data starts in the file
};

// The magic, the version and the header length: returns the header dict's text and sets
// `data_offset` to the byte after it.
StatusOr<std::string_view> FindHeaderText(const std::string& bytes, const std::string& prefix,
                                          size_t* data_offset) {
  if (bytes.size() < kMagic.size() || std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
    if (StartsWith(bytes, "PK\x03\x04")) {
      return InvalidArgument(prefix +
                             "this is an .npz archive (a zip of .npy files); give it as the "
                             "only input file, or extract the arrays (np.load(f)[name])");
    }
    return InvalidArgument(prefix + "not a .npy file (it does not start with \\x93NUMPY)");
  }
  if (bytes.size() < 10) return InvalidArgument(prefix + "truncated .npy header");
  const int major = static_cast<uint8_t>(bytes[6]);
  const int minor = static_cast<uint8_t>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return InvalidArgument(prefix + "unsupported .npy format version " + std::to_string(major) +
                           "." + std::to_string(minor) + " (Fusebox reads 1.0, 2.0 and 3.0)");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t length_bytes = major == 1 ? 2 : 4;
  const size_t header_start = 8 + length_bytes;
  if (bytes.size() < header_start) return InvalidArgument(prefix + "truncated .npy header");
  const uint64_t header_length = ReadUint(data + 8, static_cast<int>(length_bytes), false);
  if (header_length > bytes.size() - header_start) {
    return InvalidArgument(prefix + "truncated .npy header: it should be " +
                           std::to_string(header_length) + " bytes but the file ends after " +
                           std::to_string(bytes.size() - header_start));
  }
  *data_offset = header_start + header_length;
  return std::string_view(bytes.data() + header_start, header_length);
}

// Reads the header dict: its three keys, their kinds, and the dtype.
StatusOr<NpyHeader> ReadHeader(const std::string& bytes, const std::string& prefix) {
  NpyHeader result;
  ASSIGN_OR_RETURN(const std::string_view header,
                   FindHeaderText(bytes, prefix, &result.data_offset));
  std::map<std::string, HeaderValue> dict;
  HeaderParser parser(header);
  std::string shown(header.substr(0, 120));
  while (!shown.empty() && (shown.back() == ' ' || shown.back() == '\n')) shown.pop_back();
  const std::string header_context = " in header \"" + CEscape(shown) + "\"";
  if (!parser.ParseDict(&dict)) {
    return InvalidArgument(prefix + "malformed .npy header: " + parser.error() + header_context);
  }
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (dict.count(key) == 0) {
      return InvalidArgument(prefix + "malformed .npy header: no '" + key + "' key" +
                             header_context);
    }
  }
  const HeaderValue& descr = dict["descr"];
  if (descr.kind == HeaderValue::Kind::kList) {
    return InvalidArgument(prefix +
                           "unsupported dtype: structured arrays (records with "
                           "named fields) are not supported");
  }
  if (descr.kind != HeaderValue::Kind::kString) {
    return InvalidArgument(prefix + "malformed .npy header: 'descr' is not a string" +
                           header_context);
  }
  if (dict["fortran_order"].kind != HeaderValue::Kind::kBool) {
    return InvalidArgument(prefix +
                           "malformed .npy header: 'fortran_order' is not True or "
                           "False" +
                           header_context);
  }
  if (dict["shape"].kind != HeaderValue::Kind::kTuple) {
    return InvalidArgument(prefix + "malformed .npy header: 'shape' is not a tuple" +
                           header_context);
  }
  result.fortran_order = dict["fortran_order"].boolean;
  result.dims = dict["shape"].tuple;
  if (std::string error = ParseDescr(descr.text, &result.dtype); !error.empty()) {
    return InvalidArgument(prefix + error);
  }
  return result;
}

// Decides the element type and checks the file against `expected`.
StatusOr<PrimitiveType> ChooseElementType(const NpyHeader& header, const Shape* expected,
                                          const std::string& what, const std::string& prefix) {
  const NpyDtype& dtype = header.dtype;
  const std::vector<int64_t>& dims = header.dims;
  if (expected != nullptr && !expected->IsArray()) {
    return InvalidArgument(prefix + what + " is " + expected->ToString(false) +
                           ", which a .npy file (one array) cannot hold");
  }
  PrimitiveType type;
  if (dtype.raw()) {
    if (expected == nullptr) {
      return InvalidArgument(prefix + "file holds " + std::to_string(dtype.size) +
                             "-byte raw values (" + dtype.Name() +
                             "); pass a module that says which type (ml_dtypes saves bfloat16, "
                             "float8 and int4 arrays this way)");
    }
    if (!RawFits(dtype, expected->element_type())) {
      return InvalidArgument(prefix + "holds " + DescribeFile(dtype, dims) + " but " + what +
                             " is " + expected->ToString(false));
    }
    type = expected->element_type();
  } else {
    type = *dtype.type;
    if (expected != nullptr && expected->element_type() != type) {
      return InvalidArgument(prefix + "holds " + DescribeFile(dtype, dims) + " but " + what +
                             " is " + expected->ToString(false));
    }
  }
  if (expected != nullptr && expected->dimensions() != dims) {
    return InvalidArgument(prefix + "holds " + DescribeFile(dtype, dims) + " but " + what + " is " +
                           expected->ToString(false));
  }
  return type;
}

// The element count, checked against the data the file holds. Sizes are checked for
// overflow: a corrupt header must not make us allocate wildly.
StatusOr<int64_t> CheckDataSize(const NpyHeader& header, size_t file_size,
                                const std::string& prefix) {
  const NpyDtype& dtype = header.dtype;
  const std::vector<int64_t>& dims = header.dims;
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument(prefix + "shape " + DimsToString(dims) + " is too large");
    }
    count *= d;
  }
  if (count > std::numeric_limits<int64_t>::max() / dtype.size) {
    return InvalidArgument(prefix + "shape " + DimsToString(dims) + " is too large");
  }
  const uint64_t needed = static_cast<uint64_t>(count) * static_cast<uint64_t>(dtype.size);
  const uint64_t available = file_size - header.data_offset;
  if (available < needed) {
    return InvalidArgument(prefix + "truncated data: " + DescribeFile(dtype, dims) + " needs " +
                           std::to_string(needed) + " bytes but the file has " +
                           std::to_string(available) + " after the header");
  }
  if (available > needed) {
    return InvalidArgument(prefix + std::to_string(available - needed) +
                           " unexpected bytes after the " + DescribeFile(dtype, dims) +
                           " data (a .npy file holds one array)");
  }
  return count;
}

// Decodes `count` elements at `elements` into `literal`, in row-major order.
void DecodeElements(const uint8_t* elements, const NpyHeader& header, int64_t count,
                    Literal* literal) {
  const NpyDtype& dtype = header.dtype;
  const std::vector<int64_t>& dims = header.dims;
  if (header.fortran_order && dims.size() > 1) {
    // Column-major: the first dimension varies fastest.
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t d = 1; d < dims.size(); ++d) strides[d] = strides[d - 1] * dims[d - 1];
    ForEachIndex(dims, [&](const std::vector<int64_t>& index, int64_t linear) {
      const int64_t source = LinearIndex(index, strides);
      DecodeElement(elements + source * dtype.size, dtype, linear, literal);
    });
  } else {
    for (int64_t i = 0; i < count; ++i) {
      DecodeElement(elements + i * dtype.size, dtype, i, literal);
    }
  }
}

StatusOr<Literal> Parse(const std::string& bytes, const std::string& name, const Shape* expected,
                        const std::string& what) {
  const std::string prefix = name + ": ";
  ASSIGN_OR_RETURN(const NpyHeader header, ReadHeader(bytes, prefix));
  ASSIGN_OR_RETURN(const PrimitiveType type, ChooseElementType(header, expected, what, prefix));
  ASSIGN_OR_RETURN(const int64_t count, CheckDataSize(header, bytes.size(), prefix));
  Literal literal(expected != nullptr ? *expected : Shape(type, header.dims));
  if (literal.element_count() != count) {
    return InvalidArgument(prefix + "shape " + DimsToString(header.dims) + " is too large");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  DecodeElements(data + header.data_offset, header, count, &literal);
  return literal;
}

// The descr Fusebox writes for `type`.
std::string WriteDescr(PrimitiveType type) {
  using PT = PrimitiveType;
  switch (type) {
    case PT::kPred:
      return "|b1";
    case PT::kS8:
      return "|i1";
    case PT::kS16:
      return "<i2";
    case PT::kS32:
      return "<i4";
    case PT::kS64:
      return "<i8";
    case PT::kU8:
      return "|u1";
    case PT::kU16:
      return "<u2";
    case PT::kU32:
      return "<u4";
    case PT::kU64:
      return "<u8";
    case PT::kF16:
      return "<f2";
    case PT::kF32:
      return "<f4";
    case PT::kF64:
      return "<f8";
    case PT::kC64:
      return "<c8";
    case PT::kC128:
      return "<c16";
    default:
      // ml_dtypes' own spelling ('<V2', '<V1'); float8_e5m2's '<f1' is not used because
      // NumPy refuses to load it.
      return "<V" + std::to_string(ByteWidth(type));
  }
}

}  // namespace

StatusOr<Literal> ParseNpy(const std::string& bytes, const std::string& name,
                           const Shape* expected) {
  return Parse(bytes, name, expected, std::string(kDefaultWhat));
}

StatusOr<Literal> ParseNpy(const std::string& bytes, const std::string& name, const Shape* expected,
                           const std::string& expected_what) {
  return Parse(bytes, name, expected, expected_what);
}

StatusOr<Literal> ReadNpy(const std::string& path, const Shape* expected) {
  return ReadNpy(path, expected, std::string(kDefaultWhat));
}

StatusOr<Literal> ReadNpy(const std::string& path, const Shape* expected,
                          const std::string& expected_what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    return NotFound(path + ": cannot open: " + std::strerror(error));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return InvalidArgument(path + ": read error");
  return Parse(contents.str(), path, expected, expected_what);
}

std::string SerializeNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray() || literal.element_count() != shape.ElementCount()) return "";
  const PrimitiveType type = shape.element_type();

  std::string dims;
  for (int64_t d : shape.dimensions()) dims += std::to_string(d) + ", ";
  if (shape.rank() > 1) dims.resize(dims.size() - 2);  // (3,) keeps its comma, (3, 4) not
  if (shape.rank() == 1) dims.pop_back();
  std::string header =
      "{'descr': '" + WriteDescr(type) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Pad with spaces so that the data starts on a 64-byte boundary; the newline ends it.
  const bool v1 = 10 + header.size() + 1 <= 0xFFFF;
  const size_t prefix = v1 ? 10 : 12;
  const size_t total = prefix + header.size() + 1;
  header.append((kHeaderAlignment - total % kHeaderAlignment) % kHeaderAlignment, ' ');
  header += '\n';

  std::string out(kMagic);
  out += v1 ? '\x01' : '\x02';
  out += '\x00';
  AppendUint(header.size(), v1 ? 2 : 4, &out);
  out += header;

  const int size = IsComplex(type) ? BitWidth(type) / 8 : ByteWidth(type);
  out.reserve(out.size() + static_cast<size_t>(literal.element_count()) * size);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    if (type == PrimitiveType::kC64) {
      const std::complex<double> c = literal.GetComplex(i);
      AppendUint(std::bit_cast<uint32_t>(static_cast<float>(c.real())), 4, &out);
      AppendUint(std::bit_cast<uint32_t>(static_cast<float>(c.imag())), 4, &out);
    } else if (type == PrimitiveType::kC128) {
      const std::complex<double> c = literal.GetComplex(i);
      AppendUint(std::bit_cast<uint64_t>(c.real()), 8, &out);
      AppendUint(std::bit_cast<uint64_t>(c.imag()), 8, &out);
    } else if (type == PrimitiveType::kPred) {
      out += literal.GetBool(i) ? '\x01' : '\x00';
    } else {
      AppendUint(literal.GetBits(i), size, &out);
    }
  }
  return out;
}

Status WriteNpy(const std::string& path, const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return InvalidArgument(path + ": cannot write " + shape.ToString(false) +
                           " as .npy: a .npy file holds one array");
  }
  if (literal.element_count() != shape.ElementCount()) {
    return InvalidArgument(path + ": cannot write " + shape.ToString(false) +
                           " as .npy: the literal has no data (unbounded or oversized shape)");
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int error = errno;
    return InvalidArgument(path + ": cannot open for writing: " + std::strerror(error));
  }
  const std::string bytes = SerializeNpy(literal);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return InvalidArgument(path + ": write failed");
  return Status::Ok();
}

}  // namespace fusebox::interpreter
