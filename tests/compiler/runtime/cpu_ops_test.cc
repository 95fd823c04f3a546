// Op-by-op coverage of the CPU backend: generated modules for every elementwise op and
// element type, conversions, data movement, reductions, sort, dot and convolution, each
// compiled unfused (and fused, where fusion changes the module) and compared with the
// reference interpreter, on random inputs and on edge values (NaN with payloads,
// infinities, -0, subnormals, integer extremes, x / 0, INT_MIN / -1, shifts past the width).
//
// One module per (op family, element type) with a tuple root keeps the LLVM compile count
// low; a mismatch names the tuple element's instruction (named after its op) and the
// arguments at the first differing element.
//
// Sections:
//   1. Element types and module text
//   2. Arguments (random, edge values, given)
//   3. Cases and the check
//   4. Elementwise unary, binary, compare/select/clamp
//   5. convert and bitcast-convert
//   6. Edge values as constants
//   7. Data movement, iota, dynamic-slice / dynamic-update-slice / gather
//   8. reduce, reduce-window, map, sort, dot, convolution
//   9. Ops the backend refuses
//  10. exp's accuracy in ulps (inline polynomial exp, f32 and f64, and logistic)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "tests/compiler/runtime/cpu_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using testing_util::ParseOrFail;
using PT = PrimitiveType;

// ---------------------------------------------------------------------------
// Element types and module text

std::string Name(PT type) { return std::string(PrimitiveTypeName(type)); }

const std::vector<PT>& CoreTypes() {
  static const std::vector<PT> types = {PT::kPred, PT::kS8,  PT::kS16, PT::kS32, PT::kS64,
                                        PT::kU8,   PT::kU16, PT::kU32, PT::kU64, PT::kF16,
                                        PT::kBF16, PT::kF32, PT::kF64};
  return types;
}

const std::vector<PT>& SubByteTypes() {
  static const std::vector<PT> types = {PT::kS1, PT::kS2, PT::kS4, PT::kU1, PT::kU2, PT::kU4};
  return types;
}

const std::vector<PT>& NarrowFloatTypes() {
  static const std::vector<PT> types = {PT::kF8E5M2,        PT::kF8E4M3,     PT::kF8E4M3FN,
                                        PT::kF8E4M3B11FNUZ, PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ,
                                        PT::kF8E3M4,        PT::kF8E8M0FNU,  PT::kF4E2M1FN};
  return types;
}

const std::vector<PT>& ComplexTypes() {
  static const std::vector<PT> types = {PT::kC64, PT::kC128};
  return types;
}

// Every real element type: the core types, sub-byte integers and the f8/f4 floats.
std::vector<PT> RealTypes() {
  std::vector<PT> types = CoreTypes();
  types.insert(types.end(), SubByteTypes().begin(), SubByteTypes().end());
  types.insert(types.end(), NarrowFloatTypes().begin(), NarrowFloatTypes().end());
  return types;
}

bool IsNarrowFloatType(PT type) {
  return std::find(NarrowFloatTypes().begin(), NarrowFloatTypes().end(), type) !=
         NarrowFloatTypes().end();
}

std::vector<PT> AllTypes() {
  std::vector<PT> types = RealTypes();
  types.insert(types.end(), ComplexTypes().begin(), ComplexTypes().end());
  return types;
}

std::string ShapeText(PT type, const std::vector<int64_t>& dims) {
  std::string text = Name(type) + "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

// Instruction names from op spellings: `round-nearest-afz` -> `round_nearest_afz`.
std::string Ident(std::string text) {
  for (char& c : text) {
    if (c == '-' || c == '.') c = '_';
  }
  return text;
}

// Writes a module: helper computations, an entry with parameters and instructions, and a
// root that is the single result or a tuple of all results.
class HloText {
 public:
  explicit HloText(std::string name) : name_(std::move(name)) {}

  void Computation(const std::string& text) { computations_ += text + "\n"; }
  std::string Param(const std::string& shape) {
    std::string name = "p" + std::to_string(params_);
    Line(name, shape, "parameter(" + std::to_string(params_) + ")");
    ++params_;
    return name;
  }
  std::string Line(const std::string& name, const std::string& shape, const std::string& rhs) {
    lines_.push_back({name, shape, rhs});
    return name;
  }
  std::string Result(const std::string& name, const std::string& shape, const std::string& rhs) {
    Line(name, shape, rhs);
    results_.push_back(lines_.size() - 1);
    return name;
  }
  bool empty() const { return results_.empty(); }

  std::string Build() const {
    std::string text = "HloModule " + name_ + "\n\n" + computations_ + "\nENTRY e {\n";
    const bool tuple = results_.size() != 1;
    for (size_t i = 0; i < lines_.size(); ++i) {
      const bool root = !tuple && i == results_[0];
      text += std::string(root ? "  ROOT " : "  ") + lines_[i].name + " = " + lines_[i].shape +
              " " + lines_[i].rhs + "\n";
    }
    if (tuple) {
      std::string shapes, names;
      for (size_t k = 0; k < results_.size(); ++k) {
        shapes += (k > 0 ? ", " : "") + lines_[results_[k]].shape;
        names += (k > 0 ? ", " : "") + lines_[results_[k]].name;
      }
      text += "  ROOT result = (" + shapes + ") tuple(" + names + ")\n";
    }
    return text + "}\n";
  }

 private:
  struct LineText {
    std::string name, shape, rhs;
  };
  std::string name_;
  std::string computations_;
  std::vector<LineText> lines_;
  std::vector<size_t> results_;
  int params_ = 0;
};

// ---------------------------------------------------------------------------
// Arguments

enum class Inputs {
  kRandom,         // RandomArguments: floats in [-1, 1), small integers, indices in range
  kEdge,           // EdgeArguments: special values for every pair of operands, then random bits
  kRandomAndEdge,  // both, one after the other, on the same compiled module
  kGiven,          // OpCase::arguments
};

// Edge arguments are [kEdgeSize, kEdgeSize]: operand 0 takes special value i in row i,
// operand 1 special value j in column j (so binary ops see every pair), operand 2 value
// (i + j) mod kEdgeSize; positions past the specials hold random bit patterns.
constexpr int64_t kEdgeSize = 72;

std::vector<double> FloatSpecials() {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {0.0,      -0.0,    1.0,      -1.0,         0.5,           -0.5,          1.5,
          -1.5,     2.5,     -2.5,     0.25,         3.0,           -3.0,          0.1,
          -0.7,     6.0,     7.0,      0.75,         100.0,         -100.0,        255.5,
          256.0,    -129.0,  448.0,    464.0,        57344.0,       65504.0,       65520.0,
          -65536.0, 1e10,    -3e9,     2147483648.0, -2147483649.0, 9.3e18,        1.9e19,
          -9.3e18,  3.0e38,  3.5e38,   1e300,        -1e300,        inf,           -inf,
          nan,      -nan,    1e-3,     6e-8,         1e-40,         -1e-40,        1e-45,
          5e-324,   -1e-310, 0x1p-126, 0x1p-14,      0x1p-127,      1.0 - 0x1p-24, 1.0 + 0x1p-23,
          4.5,      -5.5};
}

// Encodings no decimal value gives: NaNs with payloads (signaling and quiet, both signs),
// all ones, the smallest subnormal and the largest finite magnitude's neighbours.
std::vector<uint64_t> FloatBitSpecials(PT type) {
  const int width = BitWidth(type), mantissa = MantissaBits(type), exponent = ExponentBits(type);
  const uint64_t sign = uint64_t{1} << (width - 1);
  const uint64_t exponent_ones = ((uint64_t{1} << exponent) - 1) << mantissa;
  const uint64_t top = mantissa > 0 ? uint64_t{1} << (mantissa - 1) : 0;
  return {exponent_ones | 1,       sign | exponent_ones | 1,
          exponent_ones | top | 1, exponent_ones | (top - 1),
          (sign - 1) | sign,       1,
          exponent_ones - 1,       sign | 1};
}

std::vector<int64_t> IntSpecials(PT type) {
  const int width = BitWidth(type);
  std::vector<int64_t> values = {0,
                                 1,
                                 -1,
                                 2,
                                 -2,
                                 3,
                                 -3,
                                 4,
                                 5,
                                 7,
                                 -7,
                                 8,
                                 -8,
                                 15,
                                 16,
                                 31,
                                 32,
                                 33,
                                 63,
                                 64,
                                 65,
                                 100,
                                 127,
                                 128,
                                 -128,
                                 -129,
                                 255,
                                 256,
                                 32767,
                                 -32768,
                                 65535,
                                 65536,
                                 -9,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::min(),
                                 std::numeric_limits<uint32_t>::max(),
                                 std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::min() + 1,
                                 width - 1,
                                 width,
                                 width + 1};
  if (width < 64) {
    values.push_back(int64_t{1} << (width - 1));        // INT_MIN / half range
    values.push_back((int64_t{1} << (width - 1)) - 1);  // INT_MAX
    values.push_back(-(int64_t{1} << (width - 1)));     // INT_MIN, sign-extended
    values.push_back((int64_t{1} << (width - 1)) + 1);
  }
  return values;
}

uint64_t MixBits(uint64_t z) {
  z += 0x9E3779B97F4A7C15;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31);
}

Literal EdgeLiteral(const Shape& shape, int64_t parameter) {
  Literal literal(shape);
  const PT type = shape.element_type();
  const int64_t cols = shape.rank() > 0 ? shape.dimensions(shape.rank() - 1) : 1;
  const std::vector<double> floats = FloatSpecials();
  const std::vector<int64_t> ints = IsInteger(type) ? IntSpecials(type) : std::vector<int64_t>{};
  for (int64_t e = 0; e < literal.element_count(); ++e) {
    const int64_t i = e / cols, j = e % cols;
    const int64_t k = parameter == 0 ? i : parameter == 1 ? j : (i + j) % cols;
    const uint64_t bits = MixBits(static_cast<uint64_t>(e) * 8 + static_cast<uint64_t>(parameter));
    if (IsPred(type)) {
      literal.SetBool(e, k < 2 ? k == 1 : (bits & 1) != 0);
    } else if (IsInteger(type)) {
      if (k < static_cast<int64_t>(ints.size())) {
        literal.SetInt64(e, ints[k]);
      } else {
        literal.SetBits(e, bits);
      }
    } else if (IsFloat(type)) {
      const std::vector<uint64_t> patterns = FloatBitSpecials(type);
      const int64_t decimal = static_cast<int64_t>(floats.size());
      if (k < decimal) {
        literal.SetDouble(e, floats[k]);
      } else if (k - decimal < static_cast<int64_t>(patterns.size())) {
        literal.SetBits(e, patterns[k - decimal]);
      } else {
        literal.SetBits(e, bits);
      }
    } else if (IsComplex(type)) {
      const int64_t n = static_cast<int64_t>(floats.size());
      literal.SetComplex(e, {floats[k % n], floats[(k * 7 + 3) % n]});
    }
  }
  return literal;
}

std::vector<Literal> EdgeArguments(const Module& module) {
  std::vector<Literal> args;
  const Computation& entry = *module.entry();
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    args.push_back(EdgeLiteral(entry.parameter(p)->shape(), p));
  }
  return args;
}

// ---------------------------------------------------------------------------
// Cases

struct OpCase {
  std::string name;  // the test's name: letters, digits and '_'
  std::string hlo;
  Inputs inputs = Inputs::kRandom;
  // For Inputs::kGiven: argument sets, from the parsed module.
  std::function<std::vector<std::vector<Literal>>(const Module&)> arguments;
  // Non-empty: the CPU backend must refuse the module (fused and unfused) with an error
  // containing each of these.
  std::vector<std::string> expected_error;
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

std::string CaseName(const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; }

// The element of every argument at `index`, for mismatch reports.
std::string ArgumentsAt(const std::vector<Literal>& args, const std::vector<int64_t>& index) {
  std::string text;
  for (size_t p = 0; p < args.size(); ++p) {
    const Literal& arg = args[p];
    if (!arg.shape().IsArray() || arg.shape().rank() != static_cast<int64_t>(index.size()))
      continue;
    int64_t linear = 0;
    bool inside = true;
    for (size_t d = 0; d < index.size(); ++d) {
      inside &= index[d] < arg.shape().dimensions(d);
      linear = linear * arg.shape().dimensions(d) + index[d];
    }
    if (!inside) continue;
    text += " p" + std::to_string(p) + "=" + arg.ElementToString(linear);
    if (!IsComplex(arg.shape().element_type())) {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "(0x%llx)",
                    static_cast<unsigned long long>(arg.GetBits(linear)));
      text += hex;
    }
  }
  return text;
}

// Compares each leaf of the result with its own element type's tolerance; a tuple root's
// leaves are named after the instructions that produce them (with the index inside a
// nested tuple, e.g. a sort of two operands).
void ExpectLeavesMatch(const Module& module, const std::vector<Literal>& args,
                       const Literal& actual, const Literal& expected) {
  const Instruction* root = module.entry()->root();
  std::function<void(const Literal&, const Literal&, const std::string&)> compare =
      [&](const Literal& a, const Literal& e, const std::string& what) {
        if (e.shape().IsTuple()) {
          ASSERT_TRUE(a.shape().IsTuple()) << what;
          ASSERT_EQ(a.tuple_elements().size(), e.tuple_elements().size()) << what;
          for (size_t k = 0; k < e.tuple_elements().size(); ++k) {
            compare(a.tuple_elements()[k], e.tuple_elements()[k],
                    what + "{" + std::to_string(k) + "}");
          }
          return;
        }
        interpreter::CompareResult cmp = interpreter::CompareLiterals(a, e, interpreter::DefaultToleranceFor(e.shape().element_type()));
        std::string inputs;
        if (!cmp.first_mismatches.empty())
          inputs = ArgumentsAt(args, cmp.first_mismatches[0].index);
        EXPECT_TRUE(cmp.ok()) << what << " (" << e.shape().ToString() << "): " << cmp.ToString()
                              << "\n  inputs at the first mismatch:" << inputs;
      };
  if (!expected.shape().IsTuple() || root->opcode() != Opcode::kTuple) {
    compare(actual, expected, root->name());
    return;
  }
  ASSERT_TRUE(actual.shape().IsTuple());
  ASSERT_EQ(actual.tuple_elements().size(), expected.tuple_elements().size());
  for (size_t k = 0; k < expected.tuple_elements().size(); ++k) {
    compare(actual.tuple_elements()[k], expected.tuple_elements()[k],
            root->operand(static_cast<int64_t>(k))->name());
  }
}

// The module compiled unfused (one kernel per op) and, when fusion changes it, fused:
// modules of independent single ops fuse nothing, and compiling them twice would only
// double the LLVM time. Like testing_util::CompileCpu, without the assembly listing.
StatusOr<std::vector<std::pair<std::string, std::unique_ptr<runtime::CpuExecutable>>>> Compile(
    const Module& module) {
  std::vector<std::pair<std::string, std::unique_ptr<runtime::CpuExecutable>>> executables;
  std::string unfused_text;
  for (bool fused : {false, true}) {
    ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForBackend(module, fused));
    const std::string text = optimized->ToString();
    if (fused && text == unfused_text) break;
    unfused_text = text;
    runtime::CpuExecutableOptions options;
    options.threads = 2;
    options.compile.keep_assembly = false;
    auto exe = runtime::CpuExecutable::Create(std::move(optimized), options);
    if (!exe.ok())
      return Status(exe.status().code(),
                    std::string(fused ? "fused: " : "unfused: ") + exe.status().message());
    executables.emplace_back(fused ? "fused" : "unfused", std::move(*exe));
  }
  return executables;
}

void RunCase(const OpCase& c) {
  auto module = ParseOrFail(c.hlo);
  ASSERT_NE(module, nullptr) << c.hlo;
  if (!c.expected_error.empty()) {
    auto exe = Compile(*module);
    ASSERT_FALSE(exe.ok()) << "expected an error containing \"" << c.expected_error[0] << "\"";
    for (const std::string& part : c.expected_error)
      EXPECT_THAT(exe.status().message(), HasSubstr(part));
    return;
  }
  // Argument sets, each with the interpreter's result.
  std::vector<std::pair<std::string, std::vector<Literal>>> inputs;
  if (c.inputs == Inputs::kRandom || c.inputs == Inputs::kRandomAndEdge) {
    auto random = interpreter::RandomArguments(*module, /*seed=*/7);
    ASSERT_TRUE(random.ok()) << random.status().message();
    inputs.emplace_back("random inputs", std::move(*random));
  }
  if (c.inputs == Inputs::kGiven) {
    std::vector<std::vector<Literal>> sets = c.arguments(*module);
    for (size_t k = 0; k < sets.size(); ++k)
      inputs.emplace_back("argument set " + std::to_string(k), std::move(sets[k]));
  }
  if (c.inputs == Inputs::kEdge || c.inputs == Inputs::kRandomAndEdge)
    inputs.emplace_back("edge inputs", EdgeArguments(*module));
  std::vector<Literal> expected;
  for (const auto& [what, args] : inputs) {
    auto result = interpreter::Interpreter().Run(*module, args);
    ASSERT_TRUE(result.ok()) << what << ": " << result.status().message() << "\n" << c.hlo;
    expected.push_back(std::move(*result));
  }
  auto executables = Compile(*module);
  ASSERT_TRUE(executables.ok()) << executables.status().message() << "\n" << c.hlo;
  for (auto& [mode, exe] : *executables) {
    SCOPED_TRACE(mode);
    for (size_t k = 0; k < inputs.size(); ++k) {
      SCOPED_TRACE(inputs[k].first);
      auto actual = exe->Run(inputs[k].second);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      ExpectLeavesMatch(*module, inputs[k].second, *actual, expected[k]);
    }
  }
}

class CpuOpsTest : public ::testing::TestWithParam<OpCase> {};

TEST_P(CpuOpsTest, MatchesInterpreter) { RunCase(GetParam()); }

// A case run on random inputs and on edge values, for a module built by `make(dims)`.
void AddBoth(std::vector<OpCase>* cases, const std::string& name,
             const std::function<std::string(const std::vector<int64_t>&)>& make) {
  cases->push_back({name, make({kEdgeSize, kEdgeSize}), Inputs::kRandomAndEdge, nullptr, {}});
}

// The error a module over an unsupported element type must give.
std::vector<std::string> UnsupportedTypeError(PT type) { return {"element type " + Name(type)}; }

bool BackendSupports(PT) { return true; }

// ---------------------------------------------------------------------------
// Elementwise unary ops

const std::vector<std::string>& FloatFunctions() {
  static const std::vector<std::string> ops = {"exponential",
                                               "exponential-minus-one",
                                               "log",
                                               "log-plus-one",
                                               "logistic",
                                               "sqrt",
                                               "rsqrt",
                                               "cbrt",
                                               "sine",
                                               "cosine",
                                               "tan",
                                               "tanh",
                                               "sinh",
                                               "cosh",
                                               "asin",
                                               "acos",
                                               "atan",
                                               "asinh",
                                               "acosh",
                                               "atanh",
                                               "erf",
                                               "floor",
                                               "ceil",
                                               "round-nearest-afz",
                                               "round-nearest-even"};
  return ops;
}

// Unary ops valid for `type` (as the verifier and the interpreter accept them), with
// their result types.
std::vector<std::pair<std::string, PT>> UnaryOps(PT type) {
  std::vector<std::pair<std::string, PT>> ops;
  const PT component = IsComplex(type) ? ComplexComponentType(type) : type;
  if (IsSignedInt(type) || IsFloat(type) || IsComplex(type)) ops.push_back({"abs", component});
  if (!IsPred(type)) ops.push_back({"negate", type});
  if (IsSignedInt(type) || IsFloat(type) || IsComplex(type)) ops.push_back({"sign", type});
  if (IsPred(type) || IsInteger(type)) ops.push_back({"not", type});
  if (IsInteger(type)) {
    ops.push_back({"popcnt", type});
    ops.push_back({"count-leading-zeros", type});
  }
  if (IsFloat(type)) {
    ops.push_back({"is-finite", PT::kPred});
    // Every function for the IEEE types and one f8 and f4 type of each kind; the other f8
    // types differ only in their codec, which a few functions exercise.
    const bool all = !IsNarrowFloatType(type) || type == PT::kF8E4M3FN || type == PT::kF8E5M2 ||
                     type == PT::kF4E2M1FN;
    for (const std::string& op : FloatFunctions()) {
      if (all || op == "exponential" || op == "log" || op == "rsqrt" || op == "tanh" ||
          op == "floor" || op == "round-nearest-even") {
        ops.push_back({op, type});
      }
    }
  }
  if (IsComplex(type)) {
    for (const std::string& op : FloatFunctions()) {
      if (op != "cbrt" && op != "erf" && op.find("round") == std::string::npos && op != "floor" &&
          op != "ceil") {
        ops.push_back({op, type});
      }
    }
  }
  if (IsFloat(type) || IsComplex(type)) {
    ops.push_back({"real", component});
    ops.push_back({"imag", component});
  }
  return ops;
}

std::string UnaryModule(PT type, const std::vector<int64_t>& dims) {
  HloText hlo("unary_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, dims));
  for (const auto& [op, out] : UnaryOps(type))
    hlo.Result(Ident(op), ShapeText(out, dims), op + "(" + x + ")");
  return hlo.Build();
}

std::vector<OpCase> UnaryCases() {
  std::vector<OpCase> cases;
  for (PT type : AllTypes()) {
    if (!BackendSupports(type)) {
      cases.push_back({"unary_" + Name(type), UnaryModule(type, {3, 67}), Inputs::kRandom, nullptr,
                       UnsupportedTypeError(type)});
      continue;
    }
    AddBoth(&cases, "unary_" + Name(type),
            [type](const std::vector<int64_t>& dims) { return UnaryModule(type, dims); });
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Unary, CpuOpsTest, ::testing::ValuesIn(UnaryCases()), CaseName);

// ---------------------------------------------------------------------------
// Elementwise binary ops

std::vector<std::string> BinaryOps(PT type) {
  const bool pred = IsPred(type), integer = IsInteger(type), real = IsFloat(type),
             complex = IsComplex(type);
  std::vector<std::string> ops = {"add", "multiply", "power"};
  if (!pred) {
    ops.push_back("subtract");
    ops.push_back("divide");
  }
  if (integer || real) ops.push_back("remainder");
  if (!complex) {
    ops.push_back("maximum");
    ops.push_back("minimum");
  }
  if (real || complex) ops.push_back("atan2");
  if (pred || integer) {
    ops.push_back("and");
    ops.push_back("or");
    ops.push_back("xor");
  }
  if (integer) {
    ops.push_back("shift-left");
    ops.push_back("shift-right-logical");
    ops.push_back("shift-right-arithmetic");
    ops.push_back("mulhi");
  }
  return ops;
}

std::string BinaryModule(PT type, const std::vector<int64_t>& dims) {
  HloText hlo("binary_" + Name(type));
  const std::string shape = ShapeText(type, dims);
  std::string x = hlo.Param(shape), y = hlo.Param(shape);
  for (const std::string& op : BinaryOps(type))
    hlo.Result(Ident(op), shape, op + "(" + x + ", " + y + ")");
  return hlo.Build();
}

std::vector<OpCase> BinaryCases() {
  std::vector<OpCase> cases;
  for (PT type : AllTypes()) {
    if (!BackendSupports(type)) {
      cases.push_back({"binary_" + Name(type), BinaryModule(type, {3, 67}), Inputs::kRandom,
                       nullptr, UnsupportedTypeError(type)});
      continue;
    }
    AddBoth(&cases, "binary_" + Name(type),
            [type](const std::vector<int64_t>& dims) { return BinaryModule(type, dims); });
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Binary, CpuOpsTest, ::testing::ValuesIn(BinaryCases()), CaseName);

// ---------------------------------------------------------------------------
// compare, select, clamp

std::string CompareModule(PT type, const std::vector<int64_t>& dims) {
  HloText hlo("compare_" + Name(type));
  const std::string shape = ShapeText(type, dims);
  const std::string out = ShapeText(PT::kPred, dims);
  std::string x = hlo.Param(shape), y = hlo.Param(shape);
  std::vector<std::string> directions = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  if (IsComplex(type)) directions = {"EQ", "NE"};
  for (const std::string& dir : directions) {
    hlo.Result("cmp_" + dir, out, "compare(" + x + ", " + y + "), direction=" + dir);
  }
  if (IsFloat(type)) {
    for (const std::string& dir : directions) {
      hlo.Result("cmp_total_" + dir, out,
                 "compare(" + x + ", " + y + "), direction=" + dir + ", type=TOTALORDER");
    }
  }
  return hlo.Build();
}

std::string SelectClampModule(PT type, const std::vector<int64_t>& dims) {
  HloText hlo("select_clamp_" + Name(type));
  const std::string shape = ShapeText(type, dims);
  std::string lo = hlo.Param(shape), x = hlo.Param(shape), hi = hlo.Param(shape);
  std::string p = hlo.Param(ShapeText(PT::kPred, dims));
  std::string s = hlo.Param(ShapeText(type, {}));
  hlo.Result("select", shape, "select(" + p + ", " + x + ", " + hi + ")");
  if (!IsComplex(type)) {
    hlo.Result("clamp", shape, "clamp(" + lo + ", " + x + ", " + hi + ")");
    hlo.Result("clamp_scalar_lo", shape, "clamp(" + s + ", " + x + ", " + hi + ")");
  }
  return hlo.Build();
}

std::vector<OpCase> CompareCases() {
  std::vector<OpCase> cases;
  for (PT type : AllTypes()) {
    if (!BackendSupports(type)) {
      cases.push_back({"compare_" + Name(type), CompareModule(type, {3, 67}), Inputs::kRandom,
                       nullptr, UnsupportedTypeError(type)});
      cases.push_back({"select_clamp_" + Name(type), SelectClampModule(type, {3, 67}),
                       Inputs::kRandom, nullptr, UnsupportedTypeError(type)});
      continue;
    }
    AddBoth(&cases, "compare_" + Name(type),
            [type](const std::vector<int64_t>& dims) { return CompareModule(type, dims); });
    AddBoth(&cases, "select_clamp_" + Name(type),
            [type](const std::vector<int64_t>& dims) { return SelectClampModule(type, dims); });
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Compare, CpuOpsTest, ::testing::ValuesIn(CompareCases()), CaseName);

// ---------------------------------------------------------------------------
// convert and bitcast-convert

std::string ConvertModule(PT from, const std::vector<PT>& targets,
                          const std::vector<int64_t>& dims) {
  HloText hlo("convert_" + Name(from));
  std::string x = hlo.Param(ShapeText(from, dims));
  for (PT to : targets) hlo.Result("to_" + Name(to), ShapeText(to, dims), "convert(" + x + ")");
  return hlo.Build();
}

std::vector<OpCase> ConvertCases() {
  std::vector<OpCase> cases;
  // Every pair of core types, core types to and from every other type, and the f8, f4
  // and sub-byte types among themselves through one representative of each kind.
  const std::vector<PT> reals = RealTypes();
  std::vector<PT> narrow_targets = CoreTypes();
  for (PT t : {PT::kS4, PT::kU2, PT::kF8E4M3FN, PT::kF8E5M2FNUZ, PT::kF8E8M0FNU, PT::kF4E2M1FN})
    narrow_targets.push_back(t);
  for (PT from : reals) {
    const bool core = std::find(CoreTypes().begin(), CoreTypes().end(), from) != CoreTypes().end();
    std::vector<PT> targets = core ? reals : narrow_targets;
    if (!core && std::find(targets.begin(), targets.end(), from) == targets.end())
      targets.push_back(from);
    AddBoth(&cases, "convert_" + Name(from), [from, targets](const std::vector<int64_t>& dims) {
      return ConvertModule(from, targets, dims);
    });
  }
  // Complex to and from the core types and each other.
  std::vector<PT> complex_targets = CoreTypes();
  complex_targets.insert(complex_targets.end(), {PT::kC64, PT::kC128, PT::kF8E4M3FN, PT::kS4});
  for (PT from : ComplexTypes()) {
    AddBoth(&cases, "convert_" + Name(from),
            [from, complex_targets](const std::vector<int64_t>& dims) {
              return ConvertModule(from, complex_targets, dims);
            });
  }
  for (PT from : CoreTypes()) {
    AddBoth(&cases, "convert_" + Name(from) + "_to_complex",
            [from](const std::vector<int64_t>& dims) {
              return ConvertModule(from, ComplexTypes(), dims);
            });
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Convert, CpuOpsTest, ::testing::ValuesIn(ConvertCases()), CaseName);

// bitcast-convert of `from` to every type of the same width, to narrower types (the
// result has an extra minor dimension) and from a [6, ratio] operand to wider types.
std::string BitcastModule(PT from) {
  HloText hlo("bitcast_" + Name(from));
  const int width = BitWidth(from);
  std::string x = hlo.Param(ShapeText(from, {5, 7}));
  std::vector<std::string> pieces(65);  // operands [6, ratio], by ratio
  for (PT to : AllTypes()) {
    if (to == from || IsPred(to) || !BackendSupports(to)) continue;
    const int to_width = BitWidth(to);
    // Every type of the same width; of the other widths the unsigned integers and a float.
    if (to_width != width && !IsUnsignedInt(to) && to != PT::kF16 && to != PT::kF64 &&
        to != PT::kF8E5M2 && to != PT::kF4E2M1FN) {
      continue;
    }
    if (to_width == width) {
      hlo.Result("to_" + Name(to), ShapeText(to, {5, 7}), "bitcast-convert(" + x + ")");
    } else if (to_width < width && width % to_width == 0) {
      hlo.Result("to_" + Name(to), ShapeText(to, {5, 7, width / to_width}),
                 "bitcast-convert(" + x + ")");
    } else if (to_width > width && to_width % width == 0) {
      const int ratio = to_width / width;
      if (pieces[ratio].empty()) pieces[ratio] = hlo.Param(ShapeText(from, {6, ratio}));
      hlo.Result("to_" + Name(to), ShapeText(to, {6}), "bitcast-convert(" + pieces[ratio] + ")");
    }
  }
  return hlo.Build();
}

std::vector<OpCase> BitcastCases() {
  std::vector<OpCase> cases;
  for (PT from : AllTypes()) {
    if (!IsPred(from))
      cases.push_back({"bitcast_" + Name(from), BitcastModule(from), Inputs::kEdge, nullptr, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(BitcastConvert, CpuOpsTest, ::testing::ValuesIn(BitcastCases()), CaseName);

// ---------------------------------------------------------------------------
// Edge values as constants: an array constant of special values (broadcast along the
// columns) against the edge-valued parameter (specials along the rows), so every pair
// meets once, through the constant paths of the emitter.

std::string SpecialsLiteralText(PT type) {
  std::vector<double> floats = FloatSpecials();
  std::vector<int64_t> ints = IsInteger(type) ? IntSpecials(type) : std::vector<int64_t>{0, 1};
  const int64_t n =
      IsFloat(type) ? static_cast<int64_t>(floats.size()) : static_cast<int64_t>(ints.size());
  Literal literal(Shape(type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (IsFloat(type)) {
      literal.SetDouble(i, floats[i]);
    } else {
      literal.SetInt64(i, ints[i]);
    }
  }
  return ShapeText(type, {n}) + " constant(" + literal.ToString() + ")";
}

std::string ConstantsModule(PT type) {
  HloText hlo("constants_" + Name(type));
  const std::string text = SpecialsLiteralText(type);
  const std::string vector_shape = text.substr(0, text.find(' '));
  const int64_t n = std::stoll(vector_shape.substr(vector_shape.find('[') + 1));
  const std::string shape = ShapeText(type, {kEdgeSize, n});
  std::string p = hlo.Param(shape);
  hlo.Line("specials", vector_shape, text.substr(text.find(' ') + 1));
  std::string c = hlo.Line("c", shape, "broadcast(specials), dimensions={1}");
  const bool integer = IsInteger(type), real = IsFloat(type);
  // The ops with special cases, with the constant on either side where the side matters.
  std::vector<std::string> both_sides = {"power"}, one_side = {"maximum", "add"};
  if (integer || real) {
    both_sides.push_back("divide");
    both_sides.push_back("remainder");
  }
  if (integer) {
    both_sides.push_back("shift-left");
    one_side.push_back("shift-right-logical");
    one_side.push_back("shift-right-arithmetic");
  }
  if (real) both_sides.push_back("atan2");
  for (const std::string& op : both_sides) {
    hlo.Result(Ident(op) + "_pc", shape, op + "(" + p + ", " + c + ")");
    hlo.Result(Ident(op) + "_cp", shape, op + "(" + c + ", " + p + ")");
  }
  for (const std::string& op : one_side)
    hlo.Result(Ident(op), shape, op + "(" + c + ", " + p + ")");
  const std::string pred = ShapeText(PT::kPred, {kEdgeSize, n});
  hlo.Result("compare_lt", pred, "compare(" + c + ", " + p + "), direction=LT");
  if (real)
    hlo.Result("compare_total_lt", pred,
               "compare(" + c + ", " + p + "), direction=LT, type=TOTALORDER");
  for (PT to : {PT::kF32, PT::kS32, PT::kBF16, PT::kF8E4M3FN}) {
    if (to != type)
      hlo.Result("convert_" + Name(to), ShapeText(to, {kEdgeSize, n}), "convert(" + c + ")");
  }
  if (real) {
    hlo.Result("sqrt", shape, "sqrt(" + c + ")");
    hlo.Result("round_nearest_even", shape, "round-nearest-even(" + c + ")");
  }
  hlo.Result("constant", shape, "copy(" + c + ")");
  return hlo.Build();
}

std::vector<OpCase> ConstantCases() {
  std::vector<OpCase> cases;
  for (PT type :
       {PT::kPred, PT::kS8, PT::kS32, PT::kU32, PT::kS64, PT::kU64, PT::kS4, PT::kU2, PT::kF16,
        PT::kBF16, PT::kF32, PT::kF64, PT::kF8E4M3FN, PT::kF8E5M2FNUZ, PT::kF4E2M1FN}) {
    cases.push_back({"constants_" + Name(type), ConstantsModule(type), Inputs::kEdge, nullptr, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Constants, CpuOpsTest, ::testing::ValuesIn(ConstantCases()), CaseName);

// ---------------------------------------------------------------------------
// Data movement: broadcast, transpose, reshape, slice, concatenate, pad, reverse, iota

std::string DataMovementModule(PT type) {
  HloText hlo("data_movement_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, {4, 6}));
  std::string y = hlo.Param(ShapeText(type, {4, 3}));
  std::string v = hlo.Param(ShapeText(type, {}));
  hlo.Result("broadcast", ShapeText(type, {2, 4, 6}), "broadcast(" + x + "), dimensions={1,2}");
  hlo.Result("broadcast_scalar", ShapeText(type, {3, 5}), "broadcast(" + v + "), dimensions={}");
  hlo.Result("broadcast_minor", ShapeText(type, {6, 3, 4}),
             "broadcast(" + x + "), dimensions={2,0}");
  hlo.Result("transpose", ShapeText(type, {6, 4}), "transpose(" + x + "), dimensions={1,0}");
  hlo.Result("reshape", ShapeText(type, {3, 8}), "reshape(" + x + ")");
  hlo.Result("reshape_3d", ShapeText(type, {2, 2, 6}), "reshape(" + x + ")");
  hlo.Result("slice", ShapeText(type, {2, 2}), "slice(" + x + "), slice={[1:4:2], [0:6:3]}");
  hlo.Result("slice_plain", ShapeText(type, {3, 4}), "slice(" + x + "), slice={[1:4], [2:6]}");
  hlo.Result("concatenate", ShapeText(type, {4, 9}),
             "concatenate(" + x + ", " + y + "), dimensions={1}");
  hlo.Result("concatenate_0", ShapeText(type, {8, 6}),
             "concatenate(" + x + ", " + x + "), dimensions={0}");
  // dim 0: low -1, high 2, interior 1 -> 4 + 3 - 1 + 2 = 8; dim 1: low 2, high -1 -> 7.
  hlo.Result("pad", ShapeText(type, {8, 7}), "pad(" + x + ", " + v + "), padding=-1_2_1x2_-1");
  hlo.Result("pad_interior", ShapeText(type, {9, 11}),
             "pad(" + x + ", " + v + "), padding=1_1_1x0_0_1");
  hlo.Result("reverse", ShapeText(type, {4, 6}), "reverse(" + x + "), dimensions={0,1}");
  hlo.Result("reverse_1", ShapeText(type, {4, 3}), "reverse(" + y + "), dimensions={1}");
  hlo.Result("copy", ShapeText(type, {4, 6}), "copy(" + x + ")");
  return hlo.Build();
}

std::string IotaModule(PT type) {
  HloText hlo("iota_" + Name(type));
  hlo.Result("iota_0", ShapeText(type, {300, 3}), "iota(), iota_dimension=0");
  hlo.Result("iota_1", ShapeText(type, {2, 70}), "iota(), iota_dimension=1");
  return hlo.Build();
}

std::vector<OpCase> DataMovementCases() {
  std::vector<OpCase> cases;
  for (PT type : AllTypes()) {
    OpCase movement{
        "data_movement_" + Name(type), DataMovementModule(type), Inputs::kRandom, nullptr, {}};
    OpCase iota{"iota_" + Name(type), IotaModule(type), Inputs::kRandom, nullptr, {}};
    if (!BackendSupports(type)) {
      movement.expected_error = UnsupportedTypeError(type);
      iota.expected_error = UnsupportedTypeError(type);
    }
    cases.push_back(movement);
    cases.push_back(iota);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(DataMovement, CpuOpsTest, ::testing::ValuesIn(DataMovementCases()),
                         CaseName);

// ---------------------------------------------------------------------------
// dynamic-slice, dynamic-update-slice and gather with start indices in and out of range

// Argument sets for a module whose index operands are its integer scalars and s32[n,2]
// parameters: random values for the rest, and start indices from each row of `starts`
// (in range and out of it on both sides), then RandomArguments' in-range ones.
std::function<std::vector<std::vector<Literal>>(const Module&)> WithStarts(
    std::vector<std::vector<int64_t>> starts) {
  return [starts](const Module& module) {
    std::vector<std::vector<Literal>> sets;
    for (const std::vector<int64_t>& row : starts) {
      auto random = interpreter::RandomArguments(module, 11);
      std::vector<Literal> args = std::move(*random);
      for (Literal& arg : args) {
        if (!arg.shape().IsArray() || !IsInteger(arg.shape().element_type())) continue;
        for (int64_t i = 0; i < arg.element_count(); ++i)
          arg.SetInt64(i, row[static_cast<size_t>(i) % row.size()]);
      }
      sets.push_back(std::move(args));
    }
    sets.push_back(std::move(*interpreter::RandomArguments(module, 13)));
    return sets;
  };
}

// dynamic-slice, dynamic-update-slice and gathers of a `type` operand, with start indices
// of several integer types.
std::string IndexingModule(PT type, const std::vector<PT>& index_types) {
  HloText hlo("indexing_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, {5, 7}));
  std::string u = hlo.Param(ShapeText(type, {2, 3}));
  for (PT index_type : index_types) {
    const std::string suffix = "_" + Name(index_type);
    std::string i = hlo.Param(ShapeText(index_type, {}));
    std::string j = hlo.Param(ShapeText(index_type, {}));
    hlo.Result("dynamic_slice" + suffix, ShapeText(type, {2, 3}),
               "dynamic-slice(" + x + ", " + i + ", " + j + "), dynamic_slice_sizes={2,3}");
    hlo.Result("dynamic_update_slice" + suffix, ShapeText(type, {5, 7}),
               "dynamic-update-slice(" + x + ", " + u + ", " + i + ", " + j + ")");
    std::string rows = hlo.Param(ShapeText(index_type, {3, 1}));
    std::string points = hlo.Param(ShapeText(index_type, {4, 2}));
    const std::string dims = "), offset_dims=";
    hlo.Result("gather_rows" + suffix, ShapeText(type, {3, 7}),
               "gather(" + x + ", " + rows + dims +
                   "{1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
                   "slice_sizes={1,7}");
    hlo.Result("gather_windows" + suffix, ShapeText(type, {4, 2, 3}),
               "gather(" + x + ", " + points + dims +
                   "{1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, "
                   "slice_sizes={2,3}");
    hlo.Result("gather_points" + suffix, ShapeText(type, {4}),
               "gather(" + x + ", " + points + dims +
                   "{}, collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=1, "
                   "slice_sizes={1,1}");
  }
  return hlo.Build();
}

std::vector<OpCase> IndexingCases() {
  const int64_t int_min = std::numeric_limits<int32_t>::min(),
                int_max = std::numeric_limits<int32_t>::max();
  const std::vector<std::vector<int64_t>> starts = {
      {1, 2}, {-3, 100}, {4, 5}, {int_min, int_max}, {100, -1, 2, 3, -7, 6, 1}};
  std::vector<OpCase> cases;
  for (PT type : AllTypes()) {
    // Start indices of every integer kind for two operand types, s32 for the rest.
    std::vector<PT> index_types = {PT::kS32};
    if (type == PT::kF32 || type == PT::kS8)
      index_types = {PT::kS32, PT::kS64, PT::kU32, PT::kS8, PT::kU8};
    OpCase c{"indexing_" + Name(type),
             IndexingModule(type, index_types),
             Inputs::kGiven,
             WithStarts(starts),
             {}};
    if (!BackendSupports(type)) c.expected_error = UnsupportedTypeError(type);
    cases.push_back(c);
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Indexing, CpuOpsTest, ::testing::ValuesIn(IndexingCases()), CaseName);

// ---------------------------------------------------------------------------
// reduce, reduce-window, map

// The identity of `op` in `type`, as HLO literal text.
std::string Identity(const std::string& op, PT type) {
  if (IsComplex(type)) return op == "multiply" ? "(1, 0)" : "(0, 0)";
  const int width = BitWidth(type);
  if (IsPred(type)) return op == "and" || op == "minimum" || op == "multiply" ? "true" : "false";
  if (op == "add" || op == "or") return "0";
  if (op == "multiply") return "1";
  const bool max = op == "maximum";
  if (IsFloat(type)) {
    if (std::isinf(FloatBitsToDouble(
            type, DoubleToFloatBits(type, std::numeric_limits<double>::infinity())))) {
      return max ? "-inf" : "inf";
    }
    // No infinities: the smallest or largest finite value.
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (uint64_t bits = 0; bits < (uint64_t{1} << width); ++bits) {
      const double v = FloatBitsToDouble(type, bits);
      if (!std::isfinite(v)) continue;
      lowest = std::min(lowest, v);
      highest = std::max(highest, v);
    }
    char text[64];
    std::snprintf(text, sizeof(text), "%.17g", max ? lowest : highest);
    return text;
  }
  if (IsUnsignedInt(type))
    return max ? "0"
               : std::to_string(width == 64 ? std::numeric_limits<uint64_t>::max()
                                            : (uint64_t{1} << width) - 1);
  if (width == 64)
    return max ? std::to_string(std::numeric_limits<int64_t>::min())
               : std::to_string(std::numeric_limits<int64_t>::max());
  return max ? std::to_string(-(int64_t{1} << (width - 1)))
             : std::to_string((int64_t{1} << (width - 1)) - 1);
}

std::string Reducer(const std::string& op, PT type) {
  const std::string s = Name(type) + "[]";
  return Ident(op) + "_" + Name(type) + " {\n  a = " + s + " parameter(0)\n  b = " + s +
         " parameter(1)\n  ROOT r = " + s + " " + op + "(a, b)\n}\n";
}

std::vector<std::string> ReduceOps(PT type) {
  if (IsPred(type)) return {"and", "or"};
  if (IsComplex(type)) return {"add", "multiply"};
  return {"add", "maximum", "minimum", "multiply"};
}

std::string ReduceModule(PT type) {
  HloText hlo("reduce_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, {4, 5, 6}));
  for (const std::string& op : ReduceOps(type)) {
    hlo.Computation(Reducer(op, type));
    const std::string init =
        hlo.Line("init_" + Ident(op), ShapeText(type, {}), "constant(" + Identity(op, type) + ")");
    const std::string apply = ", to_apply=" + Ident(op) + "_" + Name(type);
    const std::string args = "reduce(" + x + ", " + init + "), dimensions=";
    hlo.Result(Ident(op) + "_all", ShapeText(type, {}), args + "{0,1,2}" + apply);
    hlo.Result(Ident(op) + "_dim0", ShapeText(type, {5, 6}), args + "{0}" + apply);
    hlo.Result(Ident(op) + "_dim1", ShapeText(type, {4, 6}), args + "{1}" + apply);
    hlo.Result(Ident(op) + "_dim2", ShapeText(type, {4, 5}), args + "{2}" + apply);
    hlo.Result(Ident(op) + "_dims02", ShapeText(type, {5}), args + "{0,2}" + apply);
  }
  return hlo.Build();
}

// Argmax: a variadic reduce over (value, index) pairs, ties to the smaller index.
std::string ArgmaxModule(PT type) {
  HloText hlo("argmax_" + Name(type));
  const std::string s = Name(type) + "[]";
  hlo.Computation(
      "argmax {\n  a = " + s + " parameter(0)\n  ai = s32[] parameter(1)\n  b = " + s +
      " parameter(2)\n  bi = s32[] parameter(3)\n  gt = pred[] compare(a, b), direction=GT\n"
      "  eq = pred[] compare(a, b), direction=EQ\n  lt = pred[] compare(ai, bi), direction=LT\n"
      "  tie = pred[] and(eq, lt)\n  take_a = pred[] or(gt, tie)\n  v = " +
      s + " select(take_a, a, b)\n  i = s32[] select(take_a, ai, bi)\n  ROOT t = (" + s +
      ", s32[]) tuple(v, i)\n}\n");
  std::string x = hlo.Param(ShapeText(type, {7, 9}));
  hlo.Line("iota", "s32[7,9]", "iota(), iota_dimension=1");
  hlo.Line("init", s, "constant(" + Identity("maximum", type) + ")");
  hlo.Line("zero", "s32[]", "constant(0)");
  hlo.Result("argmax", "(" + ShapeText(type, {7}) + ", s32[7])",
             "reduce(" + x + ", iota, init, zero), dimensions={1}, to_apply=argmax");
  return hlo.Build();
}

// One dimension of a reduce-window's result.
int64_t WindowedSize(int64_t in, int64_t size, int64_t stride, int64_t low, int64_t high,
                     int64_t base_dilation, int64_t window_dilation) {
  const int64_t padded = (in - 1) * base_dilation + 1 + low + high;
  const int64_t window = (size - 1) * window_dilation + 1;
  return padded < window ? 0 : (padded - window) / stride + 1;
}

std::string ReduceWindowModule(PT type) {
  HloText hlo("reduce_window_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, {6, 7}));
  struct WindowCase {
    std::string name;
    int64_t size[2], stride[2], low[2], high[2], base[2], dilation[2];
  };
  const std::vector<WindowCase> windows = {
      {"plain", {2, 3}, {1, 1}, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
      {"strided", {2, 3}, {2, 2}, {0, 0}, {0, 0}, {1, 1}, {1, 1}},
      {"padded", {3, 2}, {2, 1}, {1, 0}, {1, 1}, {1, 1}, {1, 1}},
      {"negative_padding", {2, 2}, {1, 2}, {-1, 1}, {0, -2}, {1, 1}, {1, 1}},
      {"dilated", {2, 3}, {1, 1}, {0, 0}, {0, 1}, {2, 1}, {1, 2}},
      {"base_dilated", {3, 2}, {2, 1}, {0, 1}, {0, 0}, {2, 2}, {1, 1}},
  };
  for (const std::string& op : {std::string("add"), std::string("maximum")}) {
    hlo.Computation(Reducer(op, type));
    const std::string init =
        hlo.Line("init_" + op, ShapeText(type, {}), "constant(" + Identity(op, type) + ")");
    for (const WindowCase& w : windows) {
      std::vector<int64_t> out;
      const int64_t in[2] = {6, 7};
      auto pair = [](const int64_t v[2], const std::string& sep) {
        return std::to_string(v[0]) + sep + std::to_string(v[1]);
      };
      for (int d = 0; d < 2; ++d) {
        out.push_back(WindowedSize(in[d], w.size[d], w.stride[d], w.low[d], w.high[d], w.base[d],
                                   w.dilation[d]));
      }
      const std::string window = "size=" + pair(w.size, "x") + " stride=" + pair(w.stride, "x") +
                                 " pad=" + std::to_string(w.low[0]) + "_" +
                                 std::to_string(w.high[0]) + "x" + std::to_string(w.low[1]) + "_" +
                                 std::to_string(w.high[1]) + " lhs_dilate=" + pair(w.base, "x") +
                                 " rhs_dilate=" + pair(w.dilation, "x");
      hlo.Result(op + "_" + w.name, ShapeText(type, out),
                 "reduce-window(" + x + ", " + init + "), window={" + window + "}, to_apply=" + op +
                     "_" + Name(type));
    }
  }
  return hlo.Build();
}

std::string MapModule(PT type) {
  HloText hlo("map_" + Name(type));
  const std::string s = Name(type) + "[]";
  hlo.Computation("fma {\n  a = " + s + " parameter(0)\n  b = " + s + " parameter(1)\n  m = " + s +
                  " multiply(a, b)\n  ROOT r = " + s + " add(m, a)\n}\n");
  std::string x = hlo.Param(ShapeText(type, {5, 9})), y = hlo.Param(ShapeText(type, {5, 9}));
  hlo.Result("map", ShapeText(type, {5, 9}),
             "map(" + x + ", " + y + "), dimensions={0,1}, to_apply=fma");
  return hlo.Build();
}

std::vector<OpCase> ReductionCases() {
  std::vector<OpCase> cases;
  for (PT type :
       {PT::kF32, PT::kF64, PT::kF16, PT::kBF16, PT::kS32, PT::kS64, PT::kS8, PT::kU8, PT::kU32,
        PT::kU64, PT::kPred, PT::kS4, PT::kU2, PT::kF8E4M3FN, PT::kF8E5M2, PT::kC64, PT::kC128}) {
    cases.push_back({"reduce_" + Name(type), ReduceModule(type), Inputs::kRandom, nullptr, {}});
    if (!IsPred(type) && !IsComplex(type)) {
      cases.push_back({"argmax_" + Name(type), ArgmaxModule(type), Inputs::kRandom, nullptr, {}});
      cases.push_back(
          {"reduce_window_" + Name(type), ReduceWindowModule(type), Inputs::kRandom, nullptr, {}});
      cases.push_back({"map_" + Name(type), MapModule(type), Inputs::kRandom, nullptr, {}});
    }
  }
  cases.push_back({"reduce_f32_edge", ReduceModule(PT::kF32), Inputs::kEdge, nullptr, {}});
  cases.push_back({"reduce_s32_edge", ReduceModule(PT::kS32), Inputs::kEdge, nullptr, {}});
  cases.push_back({"argmax_f32_edge", ArgmaxModule(PT::kF32), Inputs::kEdge, nullptr, {}});
  for (PT type : ComplexTypes())
    cases.push_back({"map_" + Name(type), MapModule(type), Inputs::kRandomAndEdge, nullptr, {}});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Reduction, CpuOpsTest, ::testing::ValuesIn(ReductionCases()), CaseName);

// ---------------------------------------------------------------------------
// sort

std::string SortModule(PT type, bool total_order) {
  HloText hlo("sort_" + Name(type));
  const std::string s = Name(type) + "[]";
  const std::string order = total_order ? ", type=TOTALORDER" : "";
  hlo.Computation("less {\n  a = " + s + " parameter(0)\n  b = " + s +
                  " parameter(1)\n  ROOT lt = pred[] compare(a, b), direction=LT" + order +
                  "\n}\n");
  hlo.Computation("less_pairs {\n  a = " + s + " parameter(0)\n  b = " + s +
                  " parameter(1)\n  ai = s32[] parameter(2)\n  bi = s32[] parameter(3)\n  ROOT lt "
                  "= pred[] compare(a, b), direction=LT" +
                  order + "\n}\n");
  std::string x = hlo.Param(ShapeText(type, {4, 33}));
  std::string v = hlo.Param("s32[4,33]");
  hlo.Result("sort_1", ShapeText(type, {4, 33}),
             "sort(" + x + "), dimensions={1}, is_stable=true, to_apply=less");
  hlo.Result("sort_0", ShapeText(type, {4, 33}),
             "sort(" + x + "), dimensions={0}, is_stable=true, to_apply=less");
  hlo.Result("sort_pairs", "(" + ShapeText(type, {4, 33}) + ", s32[4,33])",
             "sort(" + x + ", " + v + "), dimensions={1}, is_stable=true, to_apply=less_pairs");
  return hlo.Build();
}

std::vector<OpCase> SortCases() {
  std::vector<OpCase> cases;
  for (PT type : {PT::kF32, PT::kS32, PT::kBF16, PT::kU8, PT::kF64, PT::kS4, PT::kF8E5M2}) {
    cases.push_back({"sort_" + Name(type), SortModule(type, false), Inputs::kRandom, nullptr, {}});
  }
  for (PT type : {PT::kF32, PT::kF16, PT::kF64}) {
    // Edge values under a total order (NaN, -0, infinities sort deterministically).
    cases.push_back(
        {"sort_total_order_" + Name(type), SortModule(type, true), Inputs::kEdge, nullptr, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Sort, CpuOpsTest, ::testing::ValuesIn(SortCases()), CaseName);

// ---------------------------------------------------------------------------
// dot and convolution

std::string DotModule(PT type) {
  HloText hlo("dot_" + Name(type));
  std::string a = hlo.Param(ShapeText(type, {5, 7}));
  std::string b = hlo.Param(ShapeText(type, {7, 3}));
  std::string v = hlo.Param(ShapeText(type, {7}));
  std::string at = hlo.Param(ShapeText(type, {7, 5}));
  std::string ba = hlo.Param(ShapeText(type, {2, 3, 4}));
  std::string bb = hlo.Param(ShapeText(type, {2, 4, 5}));
  std::string c = hlo.Param(ShapeText(type, {3, 4, 5}));
  std::string d = hlo.Param(ShapeText(type, {4, 5, 2}));
  const std::string dot = "dot(";
  hlo.Result("matmul", ShapeText(type, {5, 3}),
             dot + a + ", " + b + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  hlo.Result("matvec", ShapeText(type, {5}),
             dot + a + ", " + v + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  hlo.Result("vecmat", ShapeText(type, {3}),
             dot + v + ", " + b + "), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  hlo.Result("transposed_lhs", ShapeText(type, {5, 3}),
             dot + at + ", " + b + "), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  hlo.Result("transposed_rhs", ShapeText(type, {5, 5}),
             dot + a + ", " + at + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  hlo.Result("batch", ShapeText(type, {2, 3, 5}),
             dot + ba + ", " + bb +
                 "), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                 "rhs_contracting_dims={1}");
  hlo.Result("two_contracting", ShapeText(type, {3, 2}),
             dot + c + ", " + d + "), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}");
  hlo.Result("outer", ShapeText(type, {7, 7}),
             dot + v + ", " + v + "), lhs_contracting_dims={}, rhs_contracting_dims={}");
  hlo.Result("inner", ShapeText(type, {}),
             dot + v + ", " + v + "), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  return hlo.Build();
}

// Dots with producers and consumers, which fusion may compute elementally.
std::string DotFusedModule(PT type) {
  HloText hlo("dot_fused_" + Name(type));
  std::string a = hlo.Param(ShapeText(type, {4, 6}));
  std::string b = hlo.Param(ShapeText(type, {6, 3}));
  std::string v = hlo.Param(ShapeText(type, {6}));
  hlo.Line("na", ShapeText(type, {4, 6}), "negate(" + a + ")");
  hlo.Line("bt", ShapeText(type, {3, 6}), "transpose(" + b + "), dimensions={1,0}");
  hlo.Line("d", ShapeText(type, {4, 3}),
           "dot(na, bt), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
  hlo.Result("dot_epilogue", ShapeText(type, {4, 3}), "multiply(d, d)");
  hlo.Line("dv", ShapeText(type, {4}),
           "dot(na, " + v + "), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  hlo.Result("matvec_epilogue", ShapeText(type, {4}), "add(dv, dv)");
  return hlo.Build();
}

std::string ConvolutionModule(PT type) {
  HloText hlo("convolution_" + Name(type));
  std::string x = hlo.Param(ShapeText(type, {2, 6, 5, 3}));
  std::string w = hlo.Param(ShapeText(type, {3, 3, 3, 4}));
  std::string x1 = hlo.Param(ShapeText(type, {2, 4, 9}));
  std::string w1 = hlo.Param(ShapeText(type, {6, 2, 3}));
  hlo.Result("conv2d", ShapeText(type, {2, 3, 5, 4}),
             "convolution(" + x + ", " + w +
                 "), window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f");
  // 1-D, NCW, lhs and rhs dilation, two feature groups: 4 input features in 2 groups of 2,
  // 6 output features. Input 9 dilated by 2 -> 17, padded 2+2 -> 21; window 3 dilated by 2 -> 5.
  hlo.Result("conv1d_grouped_dilated", ShapeText(type, {2, 6, 17}),
             "convolution(" + x1 + ", " + w1 +
                 "), window={size=3 pad=2_2 lhs_dilate=2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0, "
                 "feature_group_count=2");
  return hlo.Build();
}

// Convolutions fused with a producer: emitted elementally (the GPU backend's path), not
// through the library kernel. Covers strides, padding, both dilations, feature groups,
// batch groups and window reversal.
std::string ElementalConvolutionModule(PT type) {
  auto t = [type](const std::vector<int64_t>& dims) { return ShapeText(type, dims); };
  auto fused = [&](const std::string& name, const std::string& x, const std::string& w, const std::string& out,
                   const std::string& attrs) {
    return name + " {\n  p0 = " + x + " parameter(0)\n  p1 = " + w + " parameter(1)\n  n = " + x +
           " negate(p0)\n  ROOT c = " + out + " convolution(n, p1), " + attrs + "\n}\n";
  };
  HloText hlo("elemental_convolution_" + Name(type));
  hlo.Computation(fused("conv2d", t({2, 6, 5, 3}), t({3, 3, 3, 4}), t({2, 3, 5, 4}),
                        "window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"));
  hlo.Computation(fused("conv1d", t({2, 4, 9}), t({6, 2, 3}), t({2, 6, 17}),
                        "window={size=3 pad=2_2 lhs_dilate=2 rhs_dilate=2}, dim_labels=bf0_oi0->bf0, "
                        "feature_group_count=2"));
  hlo.Computation(fused("batch_groups", t({4, 3, 5}), t({3, 4, 2}), t({2, 4, 4}),
                        "window={size=2 rhs_reversal=1}, dim_labels=bf0_io0->bf0, batch_group_count=2"));
  std::string x = hlo.Param(t({2, 6, 5, 3})), w = hlo.Param(t({3, 3, 3, 4}));
  std::string x1 = hlo.Param(t({2, 4, 9})), w1 = hlo.Param(t({6, 2, 3}));
  std::string x2 = hlo.Param(t({4, 3, 5})), w2 = hlo.Param(t({3, 4, 2}));
  hlo.Result("f2d", t({2, 3, 5, 4}), "fusion(" + x + ", " + w + "), kind=kOutput, calls=conv2d");
  hlo.Result("f1d", t({2, 6, 17}), "fusion(" + x1 + ", " + w1 + "), kind=kOutput, calls=conv1d");
  hlo.Result("fbg", t({2, 4, 4}), "fusion(" + x2 + ", " + w2 + "), kind=kOutput, calls=batch_groups");
  return hlo.Build();
}

std::vector<OpCase> LinearAlgebraCases() {
  std::vector<OpCase> cases;
  for (PT type : {PT::kF32, PT::kF64, PT::kF16, PT::kBF16, PT::kS32, PT::kS64, PT::kU8, PT::kC64,
                  PT::kC128, PT::kF8E4M3FN, PT::kS4}) {
    cases.push_back({"dot_" + Name(type), DotModule(type), Inputs::kRandom, nullptr, {}});
  }
  for (PT type : {PT::kF32, PT::kF16, PT::kBF16, PT::kF8E4M3FN, PT::kS8, PT::kC64}) {
    cases.push_back(
        {"dot_fused_" + Name(type), DotFusedModule(type), Inputs::kRandom, nullptr, {}});
  }
  for (PT type : {PT::kF32, PT::kF64, PT::kF16, PT::kS32}) {
    cases.push_back(
        {"convolution_" + Name(type), ConvolutionModule(type), Inputs::kRandom, nullptr, {}});
    cases.push_back({"convolution_elemental_" + Name(type), ElementalConvolutionModule(type), Inputs::kRandom,
                     nullptr, {}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(LinearAlgebra, CpuOpsTest, ::testing::ValuesIn(LinearAlgebraCases()),
                         CaseName);

// ---------------------------------------------------------------------------
// complex(re, im) and reduce-precision, on random and edge inputs (NaN, infinities,
// subnormals, the largest finite values): the rounding, flush-to-zero and overflow
// paths of reduce-precision all run.

std::vector<OpCase> ComplexAndReducePrecisionCases() {
  std::vector<OpCase> cases;
  for (PT part : {PT::kF32, PT::kF64}) {
    const PT complex_type = part == PT::kF32 ? PT::kC64 : PT::kC128;
    AddBoth(&cases, "complex_from_" + Name(part), [part, complex_type](const std::vector<int64_t>& dims) {
      HloText hlo("complex_op");
      std::string re = hlo.Param(ShapeText(part, dims)), im = hlo.Param(ShapeText(part, dims));
      std::string c = hlo.Line("c", ShapeText(complex_type, dims), "complex(" + re + ", " + im + ")");
      // Used again inside the fusion: multiply by itself.
      hlo.Result("square", ShapeText(complex_type, dims), "multiply(" + c + ", " + c + ")");
      return hlo.Build();
    });
  }
  struct Format {
    int exponent_bits, mantissa_bits;
  };
  const std::vector<Format> formats = {{8, 23}, {5, 10}, {8, 7}, {4, 3}, {5, 2}, {2, 1}, {1, 0}, {11, 52}, {3, 30}};
  for (PT type : {PT::kF32, PT::kF64, PT::kF16, PT::kBF16}) {
    for (const Format& f : formats) {
      AddBoth(&cases,
              "reduce_precision_" + Name(type) + "_e" + std::to_string(f.exponent_bits) + "m" +
                  std::to_string(f.mantissa_bits),
              [type, f](const std::vector<int64_t>& dims) {
                HloText hlo("reduce_precision");
                std::string x = hlo.Param(ShapeText(type, dims));
                hlo.Result("reduce_precision", ShapeText(type, dims),
                           "reduce-precision(" + x + "), exponent_bits=" + std::to_string(f.exponent_bits) +
                               ", mantissa_bits=" + std::to_string(f.mantissa_bits));
                return hlo.Build();
              });
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ComplexAndReducePrecision, CpuOpsTest,
                         ::testing::ValuesIn(ComplexAndReducePrecisionCases()), CaseName);

// ---------------------------------------------------------------------------
// Ops the CPU backend refuses, with the error it gives.

std::vector<OpCase> UnsupportedCases() {
  std::vector<OpCase> cases;
  {
    HloText hlo("custom_call");
    std::string x = hlo.Param("f32[4,5]");
    hlo.Result("custom_call", "f32[4,5]", "custom-call(" + x + "), custom_call_target=\"my_kernel\"");
    cases.push_back({"custom_call_f32",
                     hlo.Build(),
                     Inputs::kRandom,
                     nullptr,
                     {"custom-call", "my_kernel"}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Unsupported, CpuOpsTest, ::testing::ValuesIn(UnsupportedCases()),
                         CaseName);

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

// Reductions with side outputs: multi-output fusions whose elementwise outputs have the
// reduce operand's shape are stored from inside the reduction's loop (one pass). Every
// variant must still match the interpreter, fused and unfused.
TEST(CpuReductionSideOutputTest, SideOutputsMatchTheInterpreter) {
  const char* const kSum = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
})";
  // Softmax's exp and sum; two reduced trailing dims; two side outputs and two sibling
  // reductions; a reduce over a leading dim (not a row reduction: stays two loops); odd
  // sizes that leave vector remainders.
  const std::vector<std::string> bodies = {
      R"(ENTRY e {
  x = f32[37,129] parameter(0)
  m = f32[37] parameter(1)
  mb = f32[37,129] broadcast(m), dimensions={0}
  d = f32[37,129] subtract(x, mb)
  e = f32[37,129] exponential(d)
  zero = f32[] constant(0)
  s = f32[37] reduce(e, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[37,129], f32[37]) tuple(e, s)
})",
      R"(ENTRY e {
  x = f32[5,7,33] parameter(0)
  y = f32[5,7,33] multiply(x, x)
  zero = f32[] constant(0)
  s = f32[5] reduce(y, zero), dimensions={1,2}, to_apply=add
  ROOT t = (f32[5], f32[5,7,33]) tuple(s, y)
})",
      R"(ENTRY e {
  x = f32[64,100] parameter(0)
  y = f32[64,100] tanh(x)
  z = f32[64,100] negate(x)
  zero = f32[] constant(0)
  low = f32[] constant(-inf)
  s = f32[64] reduce(y, zero), dimensions={1}, to_apply=add
  m = f32[64] reduce(x, low), dimensions={1}, to_apply=max
  ROOT t = (f32[64,100], f32[64], f32[64,100], f32[64]) tuple(y, s, z, m)
})",
      R"(ENTRY e {
  x = f32[40,24] parameter(0)
  y = f32[40,24] exponential(x)
  zero = f32[] constant(0)
  s = f32[24] reduce(y, zero), dimensions={0}, to_apply=add
  ROOT t = (f32[40,24], f32[24]) tuple(y, s)
})",
  };
  for (const std::string& body : bodies) {
    SCOPED_TRACE(body);
    std::string text = std::string("HloModule side_output\n") + kSum + "\n\n" + body + "\n";
    testing_util::ExpectCpuMatchesInterpreter(text, 3);
  }
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

// exp is inline polynomial IR on the CPU (ElementalEmitterOptions::inline_exp), not a call
// into libm/libmvec. Its accuracy is measured here in ulps against glibc's exp (what the
// interpreter calls), tighter than the f32/f64 comparison tolerance: the bound fails the
// test if a change to the reduction, the polynomial or the scaling loses accuracy.

// Distance in representable values between two finite values of the same type (a
// negative value is mapped below +0, so -0 and +0 are one apart).
template <typename Float, typename Int>
int64_t UlpDistance(Float a, Float b) {
  auto ordered = [](Float v) {
    const Int bits = std::bit_cast<Int>(v);
    return bits < 0 ? std::numeric_limits<Int>::min() - bits : bits;
  };
  const Int x = ordered(a), y = ordered(b);
  // Both are in [-(2^(w-1) - 1), 2^(w-1) - 1] for finite values; the difference can
  // exceed Int only between huge magnitudes of opposite signs, which exp never gives.
  return x > y ? static_cast<int64_t>(x - y) : static_cast<int64_t>(y - x);
}

struct UlpReport {
  int64_t max_ulp = 0;
  double worst_input = 0;
  int64_t special_mismatches = 0;  // NaN, inf or zero where the reference is not (or back)
  std::string first_special;
};

// Compiles `op` (exponential or logistic) over `values`, runs it on the CPU and measures
// every result against `reference`.
template <typename Float, typename Int>
UlpReport MeasureUlps(const std::string& op, const std::vector<Float>& values,
                      const std::function<Float(Float)>& reference) {
  UlpReport report;
  const PT type = sizeof(Float) == 4 ? PT::kF32 : PT::kF64;
  const std::string shape = ShapeText(type, {static_cast<int64_t>(values.size())});
  const std::string text = "HloModule " + Ident(op) + "_ulps\n\nENTRY e {\n  x = " + shape +
                           " parameter(0)\n  ROOT y = " + shape + " " + op + "(x)\n}\n";
  auto module = ParseOrFail(text);
  if (module == nullptr) return report;
  auto exe = testing_util::CompileCpu(*module, /*fused=*/false);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return report;
  // No call into libm or libmvec survives: the loop is vectorized inline math.
  const std::string& ir = (*exe)->code().llvm_ir_optimized();
  for (const char* call : {"@exp", "@llvm.exp.", "@_ZGV"})
    EXPECT_EQ(ir.find(call), std::string::npos) << op << " calls " << call;
  EXPECT_NE(ir.find(sizeof(Float) == 4 ? " x float>" : " x double>"), std::string::npos)
      << op << " is not vectorized";
  Literal input(Shape(type, {static_cast<int64_t>(values.size())}));
  for (size_t k = 0; k < values.size(); ++k) input.SetDouble(static_cast<int64_t>(k), values[k]);
  std::vector<Literal> args;
  args.push_back(std::move(input));
  auto result = (*exe)->Run(args);
  EXPECT_TRUE(result.ok()) << result.status().message();
  if (!result.ok()) return report;
  for (size_t k = 0; k < values.size(); ++k) {
    const Float got = static_cast<Float>(result->GetDouble(static_cast<int64_t>(k)));
    const Float want = reference(values[k]);
    const bool special_got = std::isnan(got) || std::isinf(got) || got == 0;
    const bool special_want = std::isnan(want) || std::isinf(want) || want == 0;
    if (special_got || special_want) {
      const bool same = (std::isnan(got) && std::isnan(want)) ||
                        (!std::isnan(got) && !std::isnan(want) && got == want &&
                         std::signbit(got) == std::signbit(want));
      // Next to the overflow and underflow thresholds a 1-ulp difference may be the
      // difference between the largest finite value and inf, or the smallest subnormal
      // and 0: count those as ulps, not as special mismatches.
      if (!same && !std::isnan(got) && !std::isnan(want) &&
          UlpDistance<Float, Int>(got, want) <= 1) {
        report.max_ulp = std::max<int64_t>(report.max_ulp, 1);
        continue;
      }
      if (!same) {
        if (report.special_mismatches++ == 0) {
          report.first_special = op + "(" + std::to_string(values[k]) +
                                 ") = " + std::to_string(got) + ", expected " +
                                 std::to_string(want);
        }
      }
      continue;
    }
    const int64_t ulps = UlpDistance<Float, Int>(got, want);
    if (ulps > report.max_ulp) {
      report.max_ulp = ulps;
      report.worst_input = static_cast<double>(values[k]);
    }
  }
  return report;
}

// Edge values shared by both types: the overflow and underflow thresholds of f32, the
// subnormal range, zeros, infinities, NaN, tiny arguments.
template <typename Float>
std::vector<Float> ExpEdgeValues() {
  const Float inf = std::numeric_limits<Float>::infinity();
  std::vector<Float> values = {0,
                               -0.0f,
                               1,
                               -1,
                               0.5,
                               88.72f,
                               88.7228f,
                               88.73f,
                               88.76f,
                               89,
                               -87.3f,
                               -87.34f,
                               -87.4f,
                               -100,
                               -103.9f,
                               -103.97f,
                               -103.98f,
                               -104,
                               -110,
                               -200,
                               100,
                               1e-30f,
                               -1e-30f,
                               1e-45f,
                               -1e-45f,
                               1e-8f,
                               -1e-8f,
                               0.34657f,
                               -0.34657f,
                               0.34658f,
                               inf,
                               -inf,
                               std::numeric_limits<Float>::quiet_NaN(),
                               -std::numeric_limits<Float>::quiet_NaN(),
                               std::numeric_limits<Float>::max(),
                               std::numeric_limits<Float>::lowest(),
                               std::numeric_limits<Float>::denorm_min()};
  if (sizeof(Float) == 8) {
    for (double v : {709.78, 709.782712893384, 709.7827128933841, 709.79, 710.0, -708.39, -708.4,
                     -720.0, -744.44, -745.13, -745.1332191019411, -745.14, -746.0, -1000.0, 1000.0,
                     1e300, -1e300, 5e-324}) {
      values.push_back(static_cast<Float>(v));
    }
  }
  return values;
}

TEST(CpuExpAccuracyTest, F32ExpWithinOneUlpOfLibm) {
  std::vector<float> values = ExpEdgeValues<float>();
  // Every 2^12th bit pattern plus an odd offset (all exponents, varied mantissas, both
  // signs: NaNs, infinities and subnormal inputs included) ...
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 4093)
    values.push_back(std::bit_cast<float>(static_cast<uint32_t>(bits)));
  // ... and a dense sweep where e^x is finite and nonzero, subnormal results included.
  constexpr int kSteps = 1 << 20;
  for (int s = 0; s <= kSteps; ++s)
    values.push_back(-104.0f + 193.0f * static_cast<float>(s) / kSteps);
  // Neighbourhoods of the range-reduction boundaries k ln2 +- ln2 / 2.
  for (int k = -150; k <= 128; ++k) {
    float x = static_cast<float>((k + 0.5) * std::log(2.0));
    for (int step = 0; step < 8; ++step) {
      values.push_back(x);
      x = std::nextafter(x, 1000.0f);
    }
  }
  const UlpReport report =
      MeasureUlps<float, int32_t>("exponential", values, [](float x) { return std::exp(x); });
  std::printf("f32 exp: %zu inputs, max error %lld ulp (at %.9g)\n", values.size(),
              static_cast<long long>(report.max_ulp), report.worst_input);
  EXPECT_EQ(report.special_mismatches, 0) << report.first_special;
  EXPECT_LE(report.max_ulp, 1) << "at x = " << report.worst_input;
}

TEST(CpuExpAccuracyTest, F64ExpWithinOneUlpOfLibm) {
  std::vector<double> values = ExpEdgeValues<double>();
  for (uint64_t k = 0; k < (uint64_t{1} << 18); ++k)
    values.push_back(std::bit_cast<double>(MixBits(k)));
  constexpr int kSteps = 1 << 20;
  for (int s = 0; s <= kSteps; ++s) values.push_back(-746.0 + 1456.0 * s / kSteps);
  const UlpReport report =
      MeasureUlps<double, int64_t>("exponential", values, [](double x) { return std::exp(x); });
  std::printf("f64 exp: %zu inputs, max error %lld ulp (at %.17g)\n", values.size(),
              static_cast<long long>(report.max_ulp), report.worst_input);
  EXPECT_EQ(report.special_mismatches, 0) << report.first_special;
  EXPECT_LE(report.max_ulp, 1) << "at x = " << report.worst_input;
}

// logistic's exp is the same inline exp, of -|x| (never overflows): 1 / (1 + e) for x >= 0,
// e / (1 + e) below, so results under x = -88.7 stay subnormal instead of 0 (what 1 / (1 +
// e^-x) gives in f32). Against the formula in double: the roundings of e, 1 + e and the
// quotient, 2 ulps measured here (at x = -15.6) and over all 2^32 inputs
// (CpuMathAccuracyTest.Logistic); this is the quick check on the edge values.
TEST(CpuExpAccuracyTest, F32LogisticWithinTwoUlpsOfDouble) {
  std::vector<float> values = ExpEdgeValues<float>();
  constexpr int kSteps = 1 << 18;
  for (int s = 0; s <= kSteps; ++s)
    values.push_back(-110.0f + 220.0f * static_cast<float>(s) / kSteps);
  const UlpReport report = MeasureUlps<float, int32_t>("logistic", values, [](float x) {
    return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x))));
  });
  std::printf("f32 logistic: %zu inputs, max error %lld ulp (at %.9g)\n", values.size(),
              static_cast<long long>(report.max_ulp), report.worst_input);
  EXPECT_EQ(report.special_mismatches, 0) << report.first_special;
  EXPECT_LE(report.max_ulp, 2) << "at x = " << report.worst_input;
}

}  // namespace
}  // namespace fusebox
