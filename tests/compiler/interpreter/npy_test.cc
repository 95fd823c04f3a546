// .npy tests: every fixture NumPy and ml_dtypes wrote (tests/data/npy, values from its
// manifest), byte-exact agreement with np.save, round trips of every element type, and
// the message for each kind of bad file.
#include "compiler/interpreter/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kDataDir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/npy/";

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

Shape MustParseShape(const std::string& text) {
  auto shape = ParseShape(text);
  EXPECT_TRUE(shape.ok()) << text << ": " << shape.status().message();
  return shape.ok() ? *shape : Shape();
}

// The message of a failed read, or a note that it succeeded.
std::string ErrorOf(const StatusOr<Literal>& result) {
  return result.ok() ? "<no error>" : result.status().message();
}

// A .npy file from a header dict and data, padded the way NumPy pads.
std::string MakeNpy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const size_t prefix = major == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

struct ManifestEntry {
  std::string file;
  std::string shape;
  std::vector<std::string> elements;
};

std::vector<ManifestEntry> ReadManifest() {
  std::ifstream in(kDataDir + "manifest.txt");
  std::vector<ManifestEntry> entries;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    ManifestEntry entry;
    fields >> entry.file >> entry.shape;
    std::string element;
    while (fields >> element) entry.elements.push_back(element);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Doubles equal, NaN matching NaN and the sign of zero significant.
bool SameDouble(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Checks element `i` of `literal` against its manifest text.
void ExpectElement(const Literal& literal, int64_t i, const std::string& text,
                   const std::string& where) {
  const PrimitiveType type = literal.shape().element_type();
  if (IsComplex(type)) {
    const size_t comma = text.find(',');
    ASSERT_NE(comma, std::string::npos) << where;
    const std::complex<double> expected(std::strtod(text.substr(0, comma).c_str(), nullptr),
                                        std::strtod(text.substr(comma + 1).c_str(), nullptr));
    const std::complex<double> actual = literal.GetComplex(i);
    EXPECT_TRUE(SameDouble(actual.real(), expected.real()) &&
                SameDouble(actual.imag(), expected.imag()))
        << where << ": " << literal.ElementToString(i) << " vs " << text;
  } else if (IsFloat(type)) {
    const size_t slash = text.find('/');
    ASSERT_NE(slash, std::string::npos) << where;
    const uint64_t bits = std::stoull(text.substr(0, slash), nullptr, 16);
    const double value = std::strtod(text.substr(slash + 1).c_str(), nullptr);
    EXPECT_EQ(literal.GetBits(i), bits) << where;
    // Fusebox's decoder agrees with NumPy / ml_dtypes on the value.
    EXPECT_TRUE(SameDouble(literal.GetDouble(i), value))
        << where << ": " << literal.GetDouble(i) << " vs " << text;
  } else if (IsUnsignedInt(type)) {
    EXPECT_EQ(literal.GetUint64(i), std::stoull(text)) << where;
  } else {
    EXPECT_EQ(literal.GetInt64(i), std::stoll(text)) << where;
  }
}

bool NumPyHasType(PrimitiveType type) {
  return IsPred(type) || IsComplex(type) || type == PrimitiveType::kF16 ||
         type == PrimitiveType::kF32 || type == PrimitiveType::kF64 ||
         (IsInteger(type) && BitWidth(type) >= 8);
}

// ---------------------------------------------------------------------------
// Fixtures written by NumPy

TEST(NpyTest, ManifestCoversEveryDtypeAndVariant) {
  const auto entries = ReadManifest();
  ASSERT_GE(entries.size(), 40u) << "tests/data/npy/manifest.txt missing or short";
  std::set<PrimitiveType> types;
  for (const auto& e : entries) types.insert(MustParseShape(e.shape).element_type());
  // Every array type except the 1-bit ones, which ml_dtypes has but XLA users never save.
  for (int t = 0; t <= static_cast<int>(PrimitiveType::kC128); ++t) {
    const auto type = static_cast<PrimitiveType>(t);
    if (type == PrimitiveType::kS1 || type == PrimitiveType::kU1) continue;
    EXPECT_EQ(types.count(type), 1u) << PrimitiveTypeName(type);
  }
}

TEST(NpyTest, ReadsEveryFixtureWithTheValuesNumPySaved) {
  for (const ManifestEntry& entry : ReadManifest()) {
    SCOPED_TRACE(entry.file);
    const Shape shape = MustParseShape(entry.shape);
    const std::string path = kDataDir + entry.file;
    auto literal = ReadNpy(path, &shape);
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    EXPECT_EQ(literal->shape().ToString(false), entry.shape);
    ASSERT_EQ(literal->element_count(), static_cast<int64_t>(entry.elements.size()));
    for (int64_t i = 0; i < literal->element_count(); ++i) {
      ExpectElement(*literal, i, entry.elements[i], entry.file + " element " + std::to_string(i));
    }
    // Types NumPy knows need no hint and read the same.
    if (NumPyHasType(shape.element_type())) {
      auto plain = ReadNpy(path);
      ASSERT_TRUE(plain.ok()) << plain.status().message();
      EXPECT_EQ(*plain, *literal);
    }
  }
}

TEST(NpyTest, FortranOrderIsTransposedToRowMajor) {
  auto literal = ReadNpy(kDataDir + "fortran_f32.npy");
  ASSERT_TRUE(literal.ok()) << literal.status().message();
  ASSERT_EQ(literal->shape().ToString(false), "f32[2,3,4]");
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(literal->GetDouble(i), static_cast<double>(i));

  auto small = ReadNpy(kDataDir + "fortran_i16.npy");
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_EQ(small->ToString(), "{ { 1, 2 }, { 3, 4 }, { 5, 6 } }");

  auto big = ReadNpy(kDataDir + "big_fortran_f4.npy");
  ASSERT_TRUE(big.ok()) << big.status().message();
  EXPECT_EQ(big->ToString(), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
}

TEST(NpyTest, BigEndianScalarsAndEmptyArrays) {
  auto ints = ReadNpy(kDataDir + "big_i4.npy");
  ASSERT_TRUE(ints.ok()) << ints.status().message();
  EXPECT_EQ(ints->ToStringWithShape(), "s32[3] {1, -2, 305419896}");
  auto complex = ReadNpy(kDataDir + "big_c8.npy");
  ASSERT_TRUE(complex.ok()) << complex.status().message();
  EXPECT_EQ(complex->GetComplex(0), std::complex<double>(1, -2));

  auto scalar = ReadNpy(kDataDir + "scalar_f64.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_EQ(scalar->ToStringWithShape(), "f64[] 2.5");

  auto empty = ReadNpy(kDataDir + "empty_f32.npy");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->shape().ToString(false), "f32[0,3]");
  EXPECT_EQ(empty->element_count(), 0);
}

TEST(NpyTest, ExpectedShapeKeepsItsLayout) {
  const Shape shape = MustParseShape("f32[2,3]{0,1}");
  auto literal = ReadNpy(kDataDir + "big_fortran_f4.npy", &shape);
  ASSERT_TRUE(literal.ok()) << literal.status().message();
  EXPECT_EQ(literal->shape(), shape);
}

// ---------------------------------------------------------------------------
// Writing

TEST(NpyTest, SerializeMatchesNpSaveByteForByte) {
  // Every C-order little-endian v1.0 fixture, float8_e5m2 aside: ml_dtypes writes it as
  // '<f1', which NumPy cannot load, where Fusebox writes '<V1'.
  int checked = 0;
  for (const ManifestEntry& entry : ReadManifest()) {
    if (entry.file.rfind("fortran", 0) == 0 || entry.file.rfind("big_", 0) == 0 ||
        entry.file.rfind("v2_", 0) == 0 || entry.file.rfind("v3_", 0) == 0 ||
        entry.file == "empty_fortran_f64.npy" || entry.file == "float8_e5m2.npy") {
      continue;
    }
    SCOPED_TRACE(entry.file);
    const Shape shape = MustParseShape(entry.shape);
    const std::string bytes = ReadBytes(kDataDir + entry.file);
    auto literal = ParseNpy(bytes, entry.file, &shape);
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    EXPECT_EQ(SerializeNpy(*literal), bytes);
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(NpyTest, Float8E5M2IsWrittenAsVoidNotF1) {
  Literal literal(Shape(PrimitiveType::kF8E5M2, {2}));
  literal.SetDouble(0, 1.5);
  literal.SetDouble(1, -0.25);
  const std::string bytes = SerializeNpy(literal);
  EXPECT_THAT(bytes, HasSubstr("'descr': '<V1'"));
  EXPECT_EQ(bytes.size() % 64, 2u);  // 64-byte aligned header, then two 1-byte elements
  EXPECT_EQ(bytes.substr(bytes.size() - 2), "\x3E\xB4");
}

TEST(NpyTest, HeaderSpellsShapesAsNumPyDoes) {
  EXPECT_THAT(SerializeNpy(Literal(Shape(PrimitiveType::kF32, {}))), HasSubstr("'shape': (), }"));
  EXPECT_THAT(SerializeNpy(Literal(Shape(PrimitiveType::kF32, {3}))),
              HasSubstr("'shape': (3,), }"));
  EXPECT_THAT(SerializeNpy(Literal(Shape(PrimitiveType::kF32, {3, 0, 2}))),
              HasSubstr("'shape': (3, 0, 2), }"));
}

TEST(NpyTest, RoundTripsEveryElementType) {
  for (int t = 0; t <= static_cast<int>(PrimitiveType::kC128); ++t) {
    const auto type = static_cast<PrimitiveType>(t);
    SCOPED_TRACE(std::string(PrimitiveTypeName(type)));
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{2, 3}, std::vector<int64_t>{}, std::vector<int64_t>{4, 0}}) {
      const Shape shape(type, dims);
      Literal literal(shape);
      for (int64_t i = 0; i < literal.element_count(); ++i) {
        if (IsComplex(type)) {
          literal.SetComplex(i, {0.5 * static_cast<double>(i) - 1, 1.0 / (i + 1)});
        } else {
          // Distinct bit patterns across the whole width (including NaN encodings).
          literal.SetBits(i, 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1) >> 3);
        }
      }
      if (IsPred(type)) {
        for (int64_t i = 0; i < literal.element_count(); ++i) literal.SetBool(i, i % 2 == 1);
      }
      const std::string bytes = SerializeNpy(literal);
      auto back = ParseNpy(bytes, "roundtrip.npy", &shape);
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(*back, literal);
      if (NumPyHasType(type)) {
        auto plain = ParseNpy(bytes, "roundtrip.npy");
        ASSERT_TRUE(plain.ok()) << plain.status().message();
        EXPECT_EQ(*plain, literal);
      }
    }
  }
}

TEST(NpyTest, WriteNpyThenReadNpy) {
  const std::string path = testing::TempDir() + "/fusebox_npy_test.npy";
  Literal literal(Shape(PrimitiveType::kBF16, {2, 2}));
  for (int64_t i = 0; i < 4; ++i) literal.SetDouble(i, 0.25 * static_cast<double>(i) - 0.5);
  ASSERT_TRUE(WriteNpy(path, literal).ok());
  const Shape shape = literal.shape();
  auto back = ReadNpy(path, &shape);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, literal);
  std::remove(path.c_str());
}

TEST(NpyTest, WriteRefusesTuplesAndUnwritablePaths) {
  const Literal tuple(Shape::Tuple({Shape(PrimitiveType::kF32, {1})}));
  const Status tuple_status = WriteNpy(testing::TempDir() + "/t.npy", tuple);
  EXPECT_THAT(tuple_status.message(), HasSubstr("t.npy: cannot write (f32[1]) as .npy"));
  EXPECT_EQ(SerializeNpy(tuple), "");
  const Status dir_status =
      WriteNpy("/nonexistent-dir/x.npy", Literal(Shape(PrimitiveType::kF32, {1})));
  EXPECT_THAT(dir_status.message(), StartsWith("/nonexistent-dir/x.npy: cannot open for writing"));
}

// ---------------------------------------------------------------------------
// Raw (ml_dtypes) files and the expected shape

TEST(NpyTest, RawValuesNeedATypeFromTheModule) {
  EXPECT_EQ(ErrorOf(ReadNpy(kDataDir + "bfloat16.npy")),
            kDataDir +
                "bfloat16.npy: file holds 2-byte raw values (V2); pass a module that "
                "says which type (ml_dtypes saves bfloat16, float8 and int4 arrays this "
                "way)");
  EXPECT_THAT(ErrorOf(ReadNpy(kDataDir + "float8_e5m2.npy")),
              HasSubstr("float8_e5m2.npy: file holds 1-byte raw values (f1)"));
  EXPECT_THAT(ErrorOf(ReadNpy(kDataDir + "int4.npy")),
              HasSubstr("int4.npy: file holds 1-byte raw values (V1)"));
}

TEST(NpyTest, RawValuesOfTheWrongSizeOrKind) {
  const Shape f32 = MustParseShape("f32[2,3]");
  EXPECT_EQ(ErrorOf(ParseNpy(ReadBytes(kDataDir + "bfloat16.npy"), "x.npy", &f32)),
            "x.npy: holds V2[2,3] (2-byte raw values) but the expected shape is f32[2,3]");
  const Shape f8 = MustParseShape("f8e4m3fn[2,3]");
  EXPECT_THAT(ErrorOf(ParseNpy(ReadBytes(kDataDir + "bfloat16.npy"), "x.npy", &f8)),
              HasSubstr("holds V2[2,3]"));
  // 'f1' names a float; ml_dtypes never writes int4 that way.
  const Shape s4 = MustParseShape("s4[2,3]");
  EXPECT_THAT(ErrorOf(ParseNpy(ReadBytes(kDataDir + "float8_e5m2.npy"), "x.npy", &s4)),
              HasSubstr("x.npy: holds f1[2,3] (1-byte raw values) but the expected shape is "
                        "s4[2,3]"));
  // A 1-byte type NumPy has is not read from raw bytes.
  const Shape s8 = MustParseShape("s8[4]");
  EXPECT_THAT(ErrorOf(ParseNpy(ReadBytes(kDataDir + "int4.npy"), "x.npy", &s8)),
              HasSubstr("holds V1[4]"));
}

TEST(NpyTest, DtypeAndShapeMismatchesNameTheParameter) {
  const Shape f32 = MustParseShape("f32[6]");
  EXPECT_EQ(ErrorOf(ParseNpy(ReadBytes(kDataDir + "float64.npy"), "x.npy", &f32,
                             "parameter 0 of the module")),
            "x.npy: holds float64[6] but parameter 0 of the module is f32[6]");
  const Shape transposed = MustParseShape("s32[3,2]");
  EXPECT_EQ(ErrorOf(ReadNpy(kDataDir + "int32.npy", &transposed, "parameter 2 of the module")),
            kDataDir + "int32.npy: holds int32[2,3] but parameter 2 of the module is s32[3,2]");
  const Shape pred = MustParseShape("pred[2,3]");
  EXPECT_EQ(ErrorOf(ParseNpy(ReadBytes(kDataDir + "uint8.npy"), "x.npy", &pred)),
            "x.npy: holds uint8[2,3] but the expected shape is pred[2,3]");
  const Shape tuple = MustParseShape("(f32[6], s32[])");
  EXPECT_EQ(ErrorOf(ParseNpy(ReadBytes(kDataDir + "float64.npy"), "x.npy", &tuple,
                             "parameter 1 of the module")),
            "x.npy: parameter 1 of the module is (f32[6], s32[]), which a .npy file (one "
            "array) cannot hold");
}

// ---------------------------------------------------------------------------
// Bad files

TEST(NpyTest, BadFixturesGiveClearMessages) {
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"bad_truncated.npy",
       "truncated data: float32[3,4] needs 48 bytes but the file has 28 after the header"},
      {"bad_trailing.npy",
       "4 unexpected bytes after the float32[3,4] data (a .npy file holds one array)"},
      {"bad_magic.npy", "not a .npy file (it does not start with \\x93NUMPY)"},
      {"bad_version.npy", "unsupported .npy format version 4.0 (Fusebox reads 1.0, 2.0 and 3.0)"},
      {"bad_header_no_shape.npy", "malformed .npy header: no 'shape' key in header"},
      {"bad_header_syntax.npy",
       "malformed .npy header: expected ',' or ')' in the shape tuple (at header offset 53)"},
      {"bad_header_length.npy",
       "truncated .npy header: it should be 255 bytes but the file ends after 8"},
      {"bad_structured.npy", "structured arrays (records with named fields) are not supported"},
      {"bad_unicode.npy", "unsupported dtype '<U2' (strings)"},
      {"bad_long_double.npy", "unsupported dtype '<f16' (long double)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = kDataDir + c.file;
    auto result = ReadNpy(path);
    ASSERT_FALSE(result.ok());
    EXPECT_THAT(result.status().message(), StartsWith(path + ": "));
    EXPECT_THAT(result.status().message(), HasSubstr(c.message));
  }
}

TEST(NpyTest, MissingFileAndNpzArchive) {
  auto missing = ReadNpy(kDataDir + "no_such_file.npy");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ErrorOf(missing),
            kDataDir + "no_such_file.npy: cannot open: No such file or directory");
  EXPECT_THAT(ErrorOf(ParseNpy(std::string("PK\x03\x04rest", 8), "a.npz")),
              HasSubstr("a.npz: this is an .npz archive"));
  EXPECT_EQ(ErrorOf(ParseNpy("", "empty.npy")),
            "empty.npy: not a .npy file (it does not start with \\x93NUMPY)");
  EXPECT_EQ(ErrorOf(ParseNpy("\x93NUMPY\x01", "short.npy")), "short.npy: truncated .npy header");
}

// ---------------------------------------------------------------------------
// Hand-written headers: what other writers (and old NumPy) produce

TEST(NpyTest, HeaderVariantsOtherWritersUse) {
  const std::string one_two(std::string("\x01\x00\x02\x00", 4));
  // Keys in another order, double quotes, Python 2 longs, native and no-order markers.
  for (const std::string& dict :
       {std::string("{'shape': (2L,), 'fortran_order': False, 'descr': '<i2'}"),
        std::string("{\"descr\": \"=i2\", \"fortran_order\": False, \"shape\": (2,)}"),
        std::string("{ 'descr' : '|i2' , 'fortran_order' : False , 'shape' : ( 2 , ) , }")}) {
    SCOPED_TRACE(dict);
    auto literal = ParseNpy(MakeNpy(dict, one_two), "h.npy");
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    EXPECT_EQ(literal->ToStringWithShape(), "s16[2] {1, 2}");
  }
  auto v2 = ParseNpy(
      MakeNpy("{'descr': '<i2', 'fortran_order': True, 'shape': (1, 2), }", one_two, 2), "h.npy");
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_EQ(v2->ToStringWithShape(), "s16[1,2] { { 1, 2 } }");
}

TEST(NpyTest, MalformedHeaders) {
  const struct {
    std::string dict;
    std::string message;
  } cases[] = {
      {"['descr']", "malformed .npy header: expected '{' at the start of the header"},
      {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
       "key 'descr' appears twice"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", "unexpected character '0'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", "'shape' is not a tuple"},
      {"{'descr': 3, 'fortran_order': False, 'shape': ()}", "unexpected character '3'"},
      {"{'descr': '<f4', 'fortran_order': 'no', 'shape': ()}",
       "'fortran_order' is not True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
       "expected a non-negative integer in the shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
       "dimension too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
       "shape [4294967296,4294967296] is too large"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
       "unexpected text after the closing '}'"},
      {"{'descr' '<f4', 'fortran_order': False, 'shape': ()}", "expected ':' after key 'descr'"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': ()}",
       "expected ',' or '}' after the value of 'descr'"},
      {"{'descr': '<x4', 'fortran_order': False, 'shape': ()}", "unsupported dtype '<x4'"},
      {"{'descr': '<i3', 'fortran_order': False, 'shape': ()}", "unsupported dtype '<i3'"},
      {"{'descr': '<V4', 'fortran_order': False, 'shape': ()}",
       "unsupported dtype '<V4' (4-byte raw values; only 1- and 2-byte ones"},
      {"{'descr': '|O', 'fortran_order': False, 'shape': ()}", "unsupported dtype '|O'"},
      {"{'descr': '|O8', 'fortran_order': False, 'shape': ()}",
       "unsupported dtype '|O8' (Python objects)"},
      {"{'descr': '<M8', 'fortran_order': False, 'shape': ()}",
       "unsupported dtype '<M8' (dates and times)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dict);
    const std::string message = ErrorOf(ParseNpy(MakeNpy(c.dict, std::string(8, '\0')), "m.npy"));
    EXPECT_THAT(message, StartsWith("m.npy: "));
    EXPECT_THAT(message, HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace fusebox::interpreter
