// Malformed HLO text: every case must fail (never crash) with `file:line:col: message`,
// the offending line and a caret, at the place a user would fix. Also replays the inputs
// the fuzzer once crashed on (fuzz/regressions/).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/verifier/verifier.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct MalformedCase {
  const char* name;
  const char* text;
  int line;
  int column;
  const char* message;  // a substring of the first line of the error
};

std::ostream& operator<<(std::ostream& os, const MalformedCase& c) { return os << c.name; }

// A tuple shape nested 101 deep: one past the parser's nesting limit.
std::string DeepTupleShape() {
  return "ENTRY e {\n  ROOT p = " + std::string(101, '(') + "f32[]" + std::string(101, ')') +
         " parameter(0)\n}\n";
}
const std::string kDeepTuple = DeepTupleShape();

const MalformedCase kCases[] = {
    // --- Truncated files ---
    {"TruncatedMidInstruction",
     "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p,", 3, 25,
     "expected operand name, found end of file"},
    {"TruncatedMidShape", "ENTRY e {\n  p = f32[2,", 2, 13,
     "expected integer dimension size, found end of file"},
    {"TruncatedMidLayout", "ENTRY e {\n  p = f32[2]{0", 2, 15,
     "expected '}' to close layout, found end of file"},
    {"TruncatedMidAttribute",
     "ENTRY e {\n  p = f32[2,3] parameter(0)\n  ROOT t = f32[3,2] transpose(p), dimensions={1,", 3,
     49, "expected integer dimensions, found end of file"},
    {"TruncatedMidString", "ENTRY e {\n  ROOT p = f32[2] parameter(0), metadata={op_name=\"abc", 2,
     51, "unterminated string"},
    {"TruncatedMidLiteral", "ENTRY e {\n  ROOT c = f32[2] constant({1, 2", 2, 33,
     "expected '}' to close literal dimension, found end of file"},
    {"MissingClosingBraceOfComputation", "ENTRY e {\n  ROOT p = f32[2] parameter(0)\n", 1, 1,
     "computation %e is not closed: missing '}'"},
    {"TruncatedAfterEntry", "ENTRY", 1, 6, "expected computation name, found end of file"},
    {"TruncatedAfterHloModule", "HloModule", 1, 10, "expected module name, found end of file"},
    {"TruncatedAfterInstructionName", "ENTRY e {\n  ROOT a", 2, 9,
     "expected '=' after instruction name %a, found end of file"},

    // --- Shapes ---
    {"UnclosedDimensions", "ENTRY e {\n  ROOT p = f32[2, parameter(0)\n}\n", 2, 19,
     "expected integer dimension size, found 'parameter'"},
    {"UnknownElementType", "ENTRY e {\n  ROOT p = f33[2] parameter(0)\n}\n", 2, 12,
     "unknown element type 'f33'"},
    {"NegativeDimension", "ENTRY e {\n  ROOT p = f32[-2] parameter(0)\n}\n", 2, 16,
     "negative dimension size -2"},
    {"DimensionOutOfRange", "ENTRY e {\n  ROOT p = f32[99999999999999999999] parameter(0)\n}\n", 2,
     16, "integer out of range for dimension size"},
    {"LayoutRankMismatch", "ENTRY e {\n  ROOT p = f32[2,3]{0} parameter(0)\n}\n", 2, 20,
     "layout {0} has 1 dimensions but the shape has rank 2"},
    {"LayoutNotAPermutation", "ENTRY e {\n  ROOT p = f32[2,3]{0,0} parameter(0)\n}\n", 2, 20,
     "layout {0,0} is not a permutation of the shape's dimensions"},
    {"TokenWithDimensions", "ENTRY e {\n  ROOT p = token[2] parameter(0)\n}\n", 2, 12,
     "token shapes take no dimensions"},
    {"UnclosedTupleShape", "ENTRY e {\n  ROOT a = (f32[], s32[] parameter(0)\n}\n", 2, 26,
     "expected ')' to close tuple shape, found 'parameter'"},
    {"TupleShapeNestedTooDeep", kDeepTuple.c_str(), 2, 112, "shape nested more than 100 levels deep"},

    // --- Instruction syntax ---
    {"OperandsWithoutComma", "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p p)\n}\n",
     3, 25, "expected ')' to close the operand list, found 'p'"},
    {"OperandListDoubleComma",
     "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] add(p,,p)\n}\n", 3, 25,
     "expected operand name, found ','"},
    {"OpcodeWithoutParentheses", "ENTRY e {\n  ROOT a = f32[] parameter 0\n}\n", 2, 28,
     "expected '(' after opcode parameter, found '0'"},
    {"ParameterNumberNotAnInteger", "ENTRY e {\n  ROOT a = f32[] parameter(x)\n}\n", 2, 28,
     "expected integer parameter number, found 'x'"},
    {"UnknownOpcode",
     "ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[2] frobnicate(p)\n}\n", 3, 19,
     "unknown opcode 'frobnicate'"},
    {"MissingEquals", "ENTRY e {\n  ROOT a f32[2] parameter(0)\n}\n", 2, 10,
     "expected '=' after instruction name %a, found 'f32'"},
    {"MissingBodyBrace", "ENTRY e\n  ROOT a = f32[] parameter(0)\n}\n", 2, 3,
     "expected '{' to open the body of computation %e, found 'ROOT'"},
    {"ParameterShapeOmitted", "ENTRY e {\n  ROOT a = parameter(0)\n}\n", 2, 8,
     "%a: the shape of a parameter must be written"},

    // --- Comments and strings ---
    {"UnterminatedBlockComment", "ENTRY e {\n  /* hello\n  ROOT p = f32[2] parameter(0)\n}\n", 2,
     3, "unterminated /* comment"},
    {"UnterminatedString",
     "ENTRY e {\n  ROOT c = f32[2] custom-call(), custom_call_target=\"foo\n}\n", 2, 53,
     "unterminated string"},
    {"BadEscapeInString",
     "ENTRY e {\n  ROOT a = f32[] custom-call(), custom_call_target=\"a\\q\"\n}\n", 2, 52,
     "bad escape sequence in string custom_call_target"},

    // --- Names, references and structure ---
    {"DuplicateInstructionName",
     "ENTRY e {\n  p = f32[2] parameter(0)\n  p = f32[2] negate(p)\n  ROOT r = f32[2] negate(p)\n}\n",
     3, 3, "duplicate instruction name %p in computation %e (first defined at line 2)"},
    {"DuplicateComputationName",
     "c {\n  ROOT p = f32[] parameter(0)\n}\nc {\n  ROOT p = f32[] parameter(0)\n}\n"
     "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
     4, 1, "duplicate computation name %c"},
    {"DuplicateParameterNumber",
     "ENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] parameter(0)\n  ROOT r = f32[] add(a, b)\n}\n",
     3, 3, "duplicate parameter number 0 (also used by %a)"},
    {"UndefinedOperand", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[] add(a, zz)\n}\n", 3,
     25, "operand %zz is not defined in computation %e"},
    {"UndefinedControlPredecessor",
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a), control-predecessors={zz}\n}\n",
     3, 51, "control predecessor %zz is not defined in computation %e"},
    {"UndefinedCalledComputation",
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[] call(a), to_apply=nowhere\n}\n", 3, 36,
     "computation %nowhere is not defined"},
    {"OperandCycle", "ENTRY e {\n  a = f32[] add(b, b)\n  ROOT b = f32[] add(a, a)\n}\n", 2, 3,
     "instruction %a depends on itself (cycle through %b)"},
    {"ControlCycle",
     "ENTRY e {\n  a = f32[] parameter(0), control-predecessors={b}\n  ROOT b = f32[] negate(a)\n}\n",
     2, 3, "instruction %a depends on itself (cycle through %b)"},
    {"SelfCallingComputation",
     "f {\n  x = f32[] parameter(0)\n  ROOT r = f32[] call(x), to_apply=f\n}\n"
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[] call(a), to_apply=f\n}\n",
     3, 8, "computation %f calls itself (through %r)"},
    {"EntryCalled", "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[] call(a), to_apply=e\n}\n",
     3, 36, "the entry computation %e cannot be called"},
    {"TwoRoots", "ENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}\n", 3, 3,
     "computation %e has more than one ROOT (the first is %a)"},
    {"TwoEntries",
     "ENTRY e {\n  ROOT a = f32[] parameter(0)\n}\nENTRY f {\n  ROOT a = f32[] parameter(0)\n}\n", 4,
     1, "more than one ENTRY computation (the first is %e)"},
    {"EmptyFile", "", 1, 1, "no HLO module found (the file is empty or only comments)"},
    {"OnlyComments", "// nothing here\n/* nor here */\n", 1, 1,
     "no HLO module found (the file is empty or only comments)"},
    {"HeaderWithoutComputations", "HloModule m\n", 1, 1, "module 'm' has no computations"},
    {"WhileWithoutBody",
     "c {\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
     "ENTRY e {\n  a = s32[] parameter(0)\n  ROOT w = s32[] while(a), condition=c\n}\n",
     7, 8, "while %w needs both condition= and body="},
    {"ConflictingCallForms",
     "f {\n  ROOT x = f32[] parameter(0)\n}\n"
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] call(a), to_apply=f, calls=f\n}\n",
     6, 45, "conflicting ways of naming called computations on %c"},
    {"UnknownComputationAttribute",
     "c {\n  ROOT a = f32[] parameter(0)\n}, frob=\"x\"\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\n",
     3, 4, "unknown computation attribute 'frob'"},

    // --- Attribute values ---
    {"UnknownWindowField",
     "ENTRY e {\n  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
     "  ROOT r = f32[2] reduce-window(p, z), window={size=2 strides=2}, to_apply=e\n}\n",
     4, 55, "unknown window field 'strides'"},
    {"WindowFieldRankMismatch",
     "ENTRY e {\n  p = f32[4,4] parameter(0)\n  z = f32[] constant(0)\n"
     "  ROOT r = f32[2,2] reduce-window(p, z), window={size=2x2 stride=2}, to_apply=e\n}\n",
     4, 59, "window stride has 1 dimensions, expected 2"},
    {"BadDimLabel",
     "ENTRY e {\n  a = f32[1,4,4,1] parameter(0)\n  b = f32[3,3,1,1] parameter(1)\n"
     "  ROOT c = f32[1,4,4,1] convolution(a, b), window={size=3x3 pad=1_1x1_1}, "
     "dim_labels=b01f_01io->b0xf\n}\n",
     4, 86, "bad output label 'x' in dim_labels b01f_01io->b0xf"},
    {"DimLabelsWithoutKernel",
     "ENTRY e {\n  a = f32[1,4,4,1] parameter(0)\n  b = f32[3,3,1,1] parameter(1)\n"
     "  ROOT c = f32[1,4,4,1] convolution(a, b), window={size=3x3}, dim_labels=b01f\n}\n",
     4, 74, "dim_labels must look like b01f_01io->b01f, found 'b01f'"},
    {"BadPadding",
     "ENTRY e {\n  a = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
     "  ROOT p = f32[6] pad(a, z), padding=1-1\n}\n",
     4, 39, "expected '_' in padding (low_high[_interior])"},
    {"SliceStrideZero", "ENTRY e {\n  a = f32[4] parameter(0)\n  ROOT s = f32[2] slice(a), slice={[0:4:0]}\n}\n",
     3, 41, "slice stride must be positive"},
    {"UnknownComparisonDirection",
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = pred[] compare(a, a), direction=LTE\n}\n", 3, 44,
     "unknown value 'LTE' for direction"},
    {"UnknownFusionKind",
     "f {\n  ROOT x = f32[] parameter(0)\n}\n"
     "ENTRY e {\n  a = f32[] parameter(0)\n  ROOT c = f32[] fusion(a), kind=kFancy, calls=f\n}\n",
     6, 34, "unknown value 'kFancy' for kind"},
    {"AttributeGivenTwice",
     "ENTRY e {\n  a = f32[2,3] parameter(0)\n"
     "  ROOT t = f32[3,2] transpose(a), dimensions={1,0}, dimensions={1,0}\n}\n",
     3, 53, "attribute 'dimensions' given twice"},
    {"BadBool",
     "ENTRY e {\n  a = s32[4] parameter(0)\n"
     "  ROOT s = s32[4] sort(a), dimensions={0}, is_stable=yes, to_apply=e\n}\n",
     3, 54, "expected true or false for is_stable, found 'yes'"},
    {"BadBoolInList",
     "ENTRY e {\n  ROOT a = f32[] parameter(0), parameter_replication={true,maybe}\n}\n", 2, 60,
     "expected true or false for parameter_replication, found 'maybe'"},
    {"UnknownPrecision",
     "ENTRY e {\n  a = f32[2,2] parameter(0)\n  ROOT d = f32[2,2] dot(a, a), "
     "operand_precision={default,ultra}\n}\n",
     3, 59, "unknown precision 'ultra'"},
    {"NegativeTupleIndex",
     "ENTRY e {\n  a = (f32[]) parameter(0)\n  ROOT g = f32[] get-tuple-element(a), index=-1\n}\n", 3,
     46, "index must not be negative"},
    {"BadBackendConfig", "ENTRY e {\n  ROOT a = f32[] parameter(0), backend_config=3\n}\n", 2, 47,
     "expected a string or a {...} JSON object for backend_config"},
    {"ReplicaGroupTrailingComma",
     "ENTRY e {\n  a = f32[] parameter(0)\n"
     "  ROOT r = f32[] all-reduce(a), replica_groups={{0,1},{2,}}, to_apply=e\n}\n",
     3, 58, "expected integer replica group, found '}'"},
    {"BadMetadataString", "ENTRY e {\n  ROOT a = f32[] parameter(0), metadata={op_name=12}\n}\n", 2,
     50, "expected string op_name, found '12'"},
    {"BadMetadataInteger",
     "ENTRY e {\n  ROOT a = f32[] parameter(0), metadata={source_line=\"x\"}\n}\n", 2, 54,
     "expected integer source_line, found '\"'"},

    // --- Literals ---
    {"LiteralTooFewElements", "ENTRY e {\n  ROOT c = f32[3] constant({1, 2})\n}\n", 2, 28,
     "literal dimension 0 has 2 elements, shape f32[3] needs 3"},
    {"LiteralOutOfRangeS8", "ENTRY e {\n  ROOT c = s8[2] constant({1, 128})\n}\n", 2, 31,
     "value out of range for s8"},
    {"LiteralOutOfRangeU8", "ENTRY e {\n  ROOT c = u8[2] constant({1, 256})\n}\n", 2, 31,
     "value out of range for u8"},
    {"LiteralNegativeU8", "ENTRY e {\n  ROOT c = u8[2] constant({1, -1})\n}\n", 2, 31,
     "negative value for unsigned type u8"},
    {"LiteralFloatForInteger", "ENTRY e {\n  ROOT c = s32[2] constant({1.5, 2})\n}\n", 2, 29,
     "expected an integer literal for s32"},
    {"LiteralBadPred", "ENTRY e {\n  ROOT c = pred[2] constant({2, 0})\n}\n", 2, 30,
     "pred value must be true, false, 0 or 1"},
    {"LiteralTwoScalars", "ENTRY e {\n  ROOT c = f32[] constant({1, 2})\n}\n", 2, 29,
     "expected '}' to close a scalar literal, found ','"},
    {"LiteralHuge", "ENTRY e {\n  ROOT c = f32[999999999999] constant({1})\n}\n", 2, 39,
     "literal of shape f32[999999999999] has 999999999999 elements, more than the rest of the "
     "file can hold"},

    // --- Module header ---
    {"EntryComputationLayoutWithoutArrow",
     "HloModule m, entry_computation_layout={(f32[2])f32[2]}\nENTRY e {\n  ROOT a = f32[2] "
     "parameter(0)\n}\n",
     1, 48, "expected '->' in entry_computation_layout"},
    {"InputOutputAliasWithoutParameter",
     "HloModule m, input_output_alias={ {0}: 0 }\nENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n", 1,
     40, "expected '(' in input_output_alias, found '0'"},
    {"InputOutputAliasBadKind",
     "HloModule m, input_output_alias={ {0}: (0, {}, maybe-alias) }\n"
     "ENTRY e {\n  ROOT a = f32[2] parameter(0)\n}\n",
     1, 48, "alias kind must be may-alias or must-alias"},
    {"StackFrameTableIds",
     "HloModule m\n\nFileNames\n2 \"a.py\"\n\nENTRY e {\n  ROOT a = f32[] parameter(0)\n}\n", 4, 1,
     "table ids must count up from 1; expected 1"},
};

class MalformedTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedTest, FailsWithLocatedMessage) {
  const MalformedCase& c = GetParam();
  auto result = ParseModules(c.text);
  ASSERT_FALSE(result.ok()) << "parsed although malformed:\n" << c.text;
  const std::string& message = result.status().message();
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  std::string prefix = "<text>:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
  EXPECT_THAT(message, StartsWith(prefix)) << message;
  std::string first_line = message.substr(0, message.find('\n'));
  EXPECT_THAT(first_line, HasSubstr(c.message)) << message;
  // The source line and a caret under the column follow (lines over 200 characters are
  // shown as a window around the column, so check the caret on short ones).
  size_t caret = message.rfind('\n');
  ASSERT_NE(caret, std::string::npos) << message;
  if (c.column <= 100) {
    EXPECT_EQ(message.substr(caret + 1).find('^'), static_cast<size_t>(c.column - 1) + 2) << message;
  }

  // ParseModule and a named file report the same place.
  ParseOptions options;
  options.filename = "model.hlo";
  auto named = ParseModule(c.text, options);
  ASSERT_FALSE(named.ok());
  EXPECT_THAT(named.status().message(),
              StartsWith("model.hlo:" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": "));
}

INSTANTIATE_TEST_SUITE_P(Cases, MalformedTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<MalformedCase>& param) {
                           return std::string(param.param.name);
                         });

TEST(MalformedTest, HasEnoughCases) { EXPECT_GE(std::size(kCases), 45u); }

constexpr const char* kUnknownAttribute = R"(ENTRY e {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p), frobnicate={1,2}
}
)";

TEST(MalformedTest, UnknownAttributeIsAnErrorWhenNotAllowed) {
  ParseOptions options;
  options.allow_unknown_attributes = false;
  auto result = ParseModules(kUnknownAttribute, options);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), StartsWith("<text>:3:30: unknown attribute 'frobnicate'"));
}

TEST(MalformedTest, UnknownAttributeIsKeptWithAWarningByDefault) {
  auto result = ParseModules(kUnknownAttribute);
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_EQ(result->warnings[0].location.line, 3);
  EXPECT_EQ(result->warnings[0].location.column, 30);
  EXPECT_THAT(result->warnings[0].message, HasSubstr("unknown attribute 'frobnicate'"));
  const Instruction* n = result->modules[0]->entry()->FindInstruction("n");
  ASSERT_NE(n, nullptr);
  ASSERT_EQ(n->attrs().raw.size(), 1u);
  EXPECT_EQ(n->attrs().raw[0].name, "frobnicate");
  EXPECT_EQ(n->attrs().raw[0].value, "{1,2}");
  // Kept verbatim, so it prints and parses again.
  EXPECT_THAT(result->modules[0]->ToString(), HasSubstr("frobnicate={1,2}"));
}

TEST(MalformedTest, ParseShapeReportsLocation) {
  auto shape = ParseShape("f32[2,");
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), StartsWith("<shape>:1:7: expected integer dimension size"));
  shape = ParseShape(std::string(200, '(') + "f32[]" + std::string(200, ')'));
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(shape.status().message(), HasSubstr("shape nested more than 100 levels deep"));
}

TEST(MalformedTest, LiteralNestedTooDeep) {
  // Rank 200: the literal's braces nest 200 deep.
  std::string dims;
  for (int i = 0; i < 200; ++i) dims += i ? ",1" : "1";
  std::string text = "ENTRY e {\n  ROOT c = f32[" + dims + "] constant(" + std::string(200, '{') +
                     "1" + std::string(200, '}') + ")\n}\n";
  auto result = ParseModules(text);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("literal nested more than 100 levels deep"));
}

// --- Fuzzer regressions ---

// What the fuzzer checks (fuzz/parser_fuzzer.cc): parse, and for what parses, print,
// parse the print, print again (same text), verify. None of it may crash.
void CheckLikeTheFuzzer(const std::string& text) {
  auto shape = ParseShape(text);
  if (shape.ok()) {
    auto again = ParseShape(shape->ToString());
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(again->ToString(), shape->ToString());
  }
  auto parsed = ParseModules(text);
  if (!parsed.ok()) {
    EXPECT_THAT(parsed.status().message(), StartsWith("<text>:"));
    return;
  }
  for (const auto& module : parsed->modules) {
    std::string printed = module->ToString();
    auto reparsed = ParseModules(printed);
    ASSERT_TRUE(reparsed.ok()) << reparsed.status().message() << "\n" << printed;
    ASSERT_EQ(reparsed->modules.size(), 1u);
    EXPECT_EQ(reparsed->modules[0]->ToString(), printed);
    (void)VerifyModule(*module);
  }
}

TEST(MalformedTest, FuzzerRegressionsDoNotCrash) {
  std::filesystem::path dir = std::filesystem::path(FUSEBOX_SOURCE_DIR) / "fuzz" / "regressions";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    SCOPED_TRACE(entry.path().filename().string());
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    CheckLikeTheFuzzer(buffer.str());
    ++count;
  }
  EXPECT_GT(count, 0) << "no regression inputs found in " << dir;
  RecordProperty("regressions", count);
}

// Inputs of the kinds the fuzzer found slow or deep, at sizes beyond its 4 KiB limit.
TEST(MalformedTest, LargeInputsStayLinearAndShallow) {
  std::string wide = "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT t = (";
  for (int i = 0; i < 50000; ++i) wide += i ? ",f32[]" : "f32[]";
  wide += ") tuple(";
  for (int i = 0; i < 50000; ++i) wide += i ? ",p" : "p";
  wide += ")\n}\n";
  auto result = ParseModules(wide);
  ASSERT_TRUE(result.ok()) << result.status().message().substr(0, 200);
  EXPECT_EQ(result->modules[0]->entry()->root()->operand_count(), 50000);

  // A chain of 20000 computations, each calling the one before.
  std::string chain = "c0 {\n  ROOT p = f32[] parameter(0)\n}\n";
  for (int i = 1; i < 20000; ++i) {
    chain += "c" + std::to_string(i) + " {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c" +
             std::to_string(i - 1) + "\n}\n";
  }
  chain += "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=c19999\n}\n";
  result = ParseModules(chain);
  ASSERT_TRUE(result.ok()) << result.status().message().substr(0, 200);
  EXPECT_EQ(result->modules[0]->computations().size(), 20001u);

  std::string deep = "ENTRY e {\n  ROOT p = " + std::string(100000, '(') + "f32[]" +
                     std::string(100000, ')') + " parameter(0)\n}\n";
  result = ParseModules(deep);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), HasSubstr("nested more than 100 levels deep"));
}

}  // namespace
}  // namespace fusebox
