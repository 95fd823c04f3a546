// What the pieces of the HLO text parser share: the cursor and lexer, the shape and
// literal parsers, the attribute table and the module parser's class. Not for use
// outside compiler/parser/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/parser/parser.h"

namespace fusebox::parser_internal {

// ---------------------------------------------------------------------------
// Cursor and lexical pieces (lexer.cc)
// ---------------------------------------------------------------------------

inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9') || c == '.' || c == '-';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Tuple shapes, layouts' P(...) shapes and literal braces are parsed recursively; past
// this depth the input is rejected rather than overflowing the stack. Real modules
// nest a handful of levels.
constexpr int kMaxNestingDepth = 100;

// Thrown only inside the parser and caught at the public entry points (parser.cc): it
// carries the location of the first error. (Never crosses the library boundary.)
struct ParseError {
  size_t offset;
  std::string message;
};

class Cursor {
 public:
  Cursor(std::string_view text, std::string filename)
      : text_(text), filename_(std::move(filename)) {}

  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  std::string_view Rest() const { return text_.substr(pos_); }
  std::string_view text() const { return text_; }
  const std::string& filename() const { return filename_; }

  // Skips spaces, newlines and comments. Records whether a `// -----` module separator
  // was passed.
  void SkipSpace();

  bool TakeSeparatorSeen();

  // Consumes `c` after optional whitespace, or returns false.
  bool Consume(char c);
  bool ConsumeStr(std::string_view s);
  void Expect(char c, const char* what);

  // Text describing what is at the cursor, for messages.
  std::string Describe();

  [[noreturn]] void Fail(size_t offset, std::string message) const;

  // Counts one level of recursive nesting at `offset`; fails past kMaxNestingDepth.
  void EnterNesting(size_t offset, const char* what);
  void LeaveNesting() { --depth_; }
  [[noreturn]] void FailHere(std::string message);

  SourceLocation LocationOf(size_t offset) const;

  std::string FormatError(size_t offset, const std::string& message) const;

 private:
  std::string_view text_;
  std::string filename_;
  size_t pos_ = 0;
  bool separator_seen_ = false;
  int depth_ = 0;
  mutable std::vector<size_t> line_starts_;
};

// Scoped EnterNesting/LeaveNesting.
class NestingGuard {
 public:
  NestingGuard(Cursor* c, size_t offset, const char* what) : c_(*c) { c_.EnterNesting(offset, what); }
  ~NestingGuard() { c_.LeaveNesting(); }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  Cursor& c_;
};

// ---------------------------------------------------------------------------
// Lexical pieces (lexer.cc)
// ---------------------------------------------------------------------------

class Lexer {
 public:
  explicit Lexer(Cursor* c) : c_(*c) {}

  // A name: `%foo.1`, `foo`, `fused_computation.2`. The `%` is dropped. Without a `%`
  // a name starts with a letter or '_', except where `any_first` says the context is
  // unambiguous (the module name, signature parameters), which the printer writes bare
  // even for names like `%0` or `%.x`.
  std::string_view Name(const char* what, bool any_first = false);

  // A bare identifier (keywords, enum values): [A-Za-z_][A-Za-z0-9_.-]*
  std::string_view Identifier(const char* what);

  bool PeekIdentifier(std::string_view word);

  int64_t Int(const char* what);

  bool Bool(const char* what);

  // A double-quoted string with C escapes; returns the unescaped text.
  std::string String(const char* what);

  // Given the offset of an opening quote, returns the offset just past the closing one.
  size_t SkipStringAt(size_t start);

  // Raw text of a balanced value: everything up to a top-level ',' or newline or an
  // unmatched closing bracket. Brackets and strings nest.
  std::string_view RawValue(const char* what);

  // The text inside a `{...}` (balanced), cursor after the closing brace.
  std::string_view BracedRaw(const char* what);

  std::vector<int64_t> IntList(const char* what);

  std::vector<bool> BoolList(const char* what);

  // `3x3x1` style lists; ints separated by 'x' without spaces.
  std::vector<int64_t> XList(const char* what);

  int64_t IntNoSpace(const char* what);

 private:
  Cursor& c_;
};

// ---------------------------------------------------------------------------
// Shapes and layouts (shape_parser.cc)
// ---------------------------------------------------------------------------

class ShapeParser {
 public:
  ShapeParser(Cursor* c, Lexer* lex) : c_(*c), lex_(*lex) {}

  // True if the cursor is at something that starts a shape: `(` or `word[`. An unknown
  // word (`f33[2]`) counts, so that Parse() reports it as an unknown element type.
  bool AtShape();

  Shape Parse();

  Layout ParseLayout(const Shape& shape);

 private:
  Cursor& c_;
  Lexer& lex_;
};

// ---------------------------------------------------------------------------
// Literals (literal_parser.cc)
// ---------------------------------------------------------------------------

class LiteralParser {
 public:
  LiteralParser(Cursor* c, Lexer* lex, ShapeParser* shapes) : c_(*c), lex_(*lex), shapes_(*shapes) {}

  // Parses the literal of a constant of `shape`. Returns null for an elided `{...}`.
  std::unique_ptr<Literal> Parse(const Shape& shape);

 private:
  // Elements in all arrays of `shape` (tuples summed); -1 on overflow or unbounded dims.
  static int64_t ElementsIn(const Shape& shape);

  void ParseInto(const Shape& shape, Literal* literal);

  void ParseNested(const Shape& shape, int64_t dim, Literal* literal, int64_t* index);

  void ParseElement(Literal* literal, int64_t index);

  void CheckIntRange(PrimitiveType type, bool negative, uint64_t magnitude, size_t at);

  // A real number: decimal, exponent, inf, -inf, nan, -nan, nan(0x...).
  double Real(size_t at);

  Cursor& c_;
  Lexer& lex_;
  ShapeParser& shapes_;
};

// ---------------------------------------------------------------------------
// The module parser (parser.cc; its attributes in attribute_parser.cc)
// ---------------------------------------------------------------------------

struct PendingOperand {
  Instruction* user;
  std::string name;
  size_t offset;
  bool control;  // control-predecessors entry rather than an operand
  // `%name#3`: element 3 of a tuple-shaped instruction (newer XLA prints a user's
  // get-tuple-element this way, without its own line); -1 for a plain `%name`.
  int64_t tuple_index = -1;
};

struct PendingCall {
  Instruction* inst;
  int64_t slot;
  std::string name;
  size_t offset;
};

enum class Attr {
  kUnknown, kDimensions, kWindow, kDimLabels, kFeatureGroupCount, kBatchGroupCount,
  kLhsBatchDims, kLhsContractingDims, kRhsBatchDims, kRhsContractingDims, kLhsRaggedDims,
  kRhsGroupDims, kOperandPrecision, kAlgorithm, kSparsity, kSlice, kDynamicSliceSizes, kPadding,
  kOffsetDims, kCollapsedSliceDims, kStartIndexMap, kOperandBatchingDims,
  kStartIndicesBatchingDims, kIndexVectorDim, kSliceSizes, kUpdateWindowDims,
  kInsertedWindowDims, kScatterDimsToOperandDims, kInputBatchingDims,
  kScatterIndicesBatchingDims, kIndicesAreSorted, kUniqueIndices, kDirection, kType, kKind,
  kIndex, kIotaDimension, kDistribution, kDelta, kExponentBits, kMantissaBits, kEpsilon,
  kFeatureIndex, kFftType, kFftLength, kLeftSide, kLower, kUnitDiagonal, kTransposeA, kIsStable,
  kK, kLargest, kNumCarries, kIsReverse, kIsAssociative, kParameterReplication,
  kCustomCallTarget, kApiVersion, kCustomCallHasSideEffect, kOutputToOperandAliasing,
  kOperandLayoutConstraints, kSchedule, kPaddingType, kChannelId, kReplicaGroups,
  kSourceTargetPairs, kUseGlobalDeviceIds, kConstrainLayout, kIsHostTransfer, kHasDynamicRoot,
  kInfeedConfig, kOutfeedConfig, kOutfeedShape, kCrossProgramPrefetchIndex,
  kAsyncExecutionThread, kToApply, kCalls, kCondition, kBody, kBranchComputations,
  kTrueComputation, kFalseComputation, kSelect, kScatter, kCalledComputations,
  kControlPredecessors, kSharding, kFrontendAttributes, kStatistics, kMetadata, kBackendConfig,
  kKnownRaw,  // origin, result_accuracy, domain, literal: kept verbatim
};

// The attributes an instruction may carry, by name (attribute_parser.cc).
const std::unordered_map<std::string_view, Attr>& AttrTable();

class ModuleParser {
 public:
  ModuleParser(std::string_view text, const ParseOptions& options)
      : c_(text, options.filename), lex_(&c_), shapes_(&c_, &lex_), literals_(&c_, &lex_, &shapes_),
        options_(options) {}

  ParseResult ParseAll();

  Cursor& cursor() { return c_; }

 private:
  // --- Modules ---
  std::unique_ptr<Module> ParseOneModule();

  void ParseHeaderAttribute(Module* m);

  // A table keyword followed by a numbered row (or nothing), not by a computation body.
  bool AtStackFrameTable();

  void ParseStackFrameTables(Module* m);

  bool AtTableRow();

  void ParseKeyInts(std::initializer_list<std::pair<std::string_view, int64_t*>> keys);

  // --- Computations ---
  Computation* ParseComputation(bool* is_entry);

  void CheckParameters(Computation* comp, const std::vector<std::pair<std::string, Shape>>& signature,
                       size_t start);

  // --- Instructions ---
  Instruction* ParseInstruction(Computation* comp);

  // One `name=value` attribute of an instruction. The name picks the attribute (AttrTable);
  // each family of attributes has a parser of its own below.
  void ParseAttribute(Instruction* inst);

  // Dimension numbers and index lists: dimensions, windows, convolution labels, dot,
  // slices, padding, gather and scatter. False when `attr` is not one of them.
  bool ParseDimensionAttribute(Attr attr, Instruction* inst, InstructionAttributes& a,
                               const char* what);

  // Options of single opcodes: compare, fusion, tuple index, iota, rng,
  // reduce-precision, batch norm, fft, triangular solve, sort, topk, scan, parameters.
  // False when `attr` is not one of them.
  bool ParseOpOptionAttribute(Attr attr, InstructionAttributes& a, const char* what);

  // Custom-call target and options, aliasing and layout constraints. False when `attr`
  // is not one of them.
  bool ParseCustomCallAttribute(Attr attr, InstructionAttributes& a, const char* what);

  // Channels, replica groups and source-target pairs of collectives, host transfers,
  // infeed and outfeed, prefetch and async threads. False when `attr` is not one of them.
  bool ParseChannelAttribute(Attr attr, InstructionAttributes& a, const char* what);

  // Called computations and control predecessors. False when `attr` is not one of them.
  bool ParseCallAttribute(Attr attr, Instruction* inst, const char* what);

  // Attributes any instruction may carry: sharding, frontend attributes, statistics,
  // backend config. (Metadata and raw attributes are handled by ParseAttribute.)
  void ParseGenericAttribute(Attr attr, InstructionAttributes& a, const char* what);

  // --- Attribute values with a grammar of their own ---

  void ParseOperandPrecision(InstructionAttributes& a, const char* what);

  // rng-bit-generator's algorithm, or a dot's algorithm (kept as written).
  void ParseAlgorithm(Instruction* inst, InstructionAttributes& a, const char* what);

  // A gather's slice sizes `{1,2}`, or the in-place collective-permute's list of lists
  // `{{1,2},{3,4}}`.
  void ParseSliceSizes(InstructionAttributes& a, const char* what);

  double ParseEpsilon();

  void ParseOutputOperandAliasing(InstructionAttributes& a, const char* what);

  void ParseOperandLayoutConstraints(InstructionAttributes& a, const char* what);

  void ParseSourceTargetPairs(InstructionAttributes& a, const char* what);

  void ParseControlPredecessors(Instruction* inst, const char* what);

  // A quoted string, or a JSON object kept as written.
  void ParseBackendConfig(InstructionAttributes& a, const char* what);

  // Attribute helpers.
  DotDimensionNumbers& Dot(InstructionAttributes& a);
  RaggedDotDimensionNumbers& Ragged(InstructionAttributes& a);
  GatherDimensionNumbers& Gather(InstructionAttributes& a);
  ScatterDimensionNumbers& Scatter(InstructionAttributes& a);
  template <typename Fn>
  auto Enum(Fn parse, const char* what) -> decltype(parse(std::string_view())) {
    c_.SkipSpace();
    size_t p = c_.pos();
    std::string_view v = lex_.Identifier(what);
    auto value = parse(v);
    if (!value) c_.Fail(p, "unknown value '" + std::string(v) + "' for " + what);
    return value;
  }
  int64_t NonNegative(const char* what);
  int64_t Positive(const char* what);

  void Call(Instruction* inst, CallForm form, int64_t slot);

  void CallList(Instruction* inst, CallForm form);

  Window ParseWindow();

  std::vector<PaddingDimension> ParsePadding();

  std::vector<SliceDimension> ParseSlice();

  ConvolutionDimensionNumbers ParseDimLabels();

  ReplicaGroups ParseReplicaGroups();

  std::vector<std::pair<std::string, std::string>> ParseFrontendAttributes();

  OpMetadata ParseMetadata();

  // --- Resolution ---
  // The parser's own name index: Module::FindComputation scans every computation on a
  // miss, which made each new name cost O(computations) and long files quadratic.
  Computation* FindComputation(const std::string& name) const;

  void ResolveOperands(Computation* comp);

  void InferPendingShapes(Computation* comp);

  void CheckAcyclic(Computation* comp);

  void ResolveCalls(Module* module);

  Cursor c_;
  Lexer lex_;
  ShapeParser shapes_;
  LiteralParser literals_;
  ParseOptions options_;
  Module* module_ = nullptr;
  std::vector<PendingOperand> pending_operands_;
  std::vector<Instruction*> shape_pending_;
  std::vector<PendingCall> pending_calls_;
  std::unordered_map<std::string_view, Instruction*> names_;  // keys view the names
  std::unordered_map<std::string, Computation*> computations_;  // of the module being parsed
  std::unordered_map<const Instruction*, size_t> offsets_;
  std::unordered_set<std::string_view> seen_attr_names_;  // of the instruction being parsed
  std::vector<ParseWarning> warnings_;
};

}  // namespace fusebox::parser_internal
