// The HLO text parser's instruction attributes: the table of attribute names, a parser
// per family of attributes, and the values with a grammar of their own (windows,
// padding, slices, dimension labels, replica groups, frontend attributes, metadata).
#include <charconv>
#include <unordered_map>

#include "compiler/parser/parser_internal.h"
#include "compiler/support/strings.h"

namespace fusebox::parser_internal {

const std::unordered_map<std::string_view, Attr>& AttrTable() {
  static const auto* table = new std::unordered_map<std::string_view, Attr>{
      {"dimensions", Attr::kDimensions}, {"window", Attr::kWindow},
      {"dim_labels", Attr::kDimLabels}, {"feature_group_count", Attr::kFeatureGroupCount},
      {"batch_group_count", Attr::kBatchGroupCount}, {"lhs_batch_dims", Attr::kLhsBatchDims},
      {"lhs_contracting_dims", Attr::kLhsContractingDims}, {"rhs_batch_dims", Attr::kRhsBatchDims},
      {"rhs_contracting_dims", Attr::kRhsContractingDims},
      {"lhs_ragged_dims", Attr::kLhsRaggedDims}, {"rhs_group_dims", Attr::kRhsGroupDims},
      {"operand_precision", Attr::kOperandPrecision}, {"algorithm", Attr::kAlgorithm},
      {"sparsity", Attr::kSparsity}, {"slice", Attr::kSlice},
      {"dynamic_slice_sizes", Attr::kDynamicSliceSizes}, {"padding", Attr::kPadding},
      {"offset_dims", Attr::kOffsetDims}, {"collapsed_slice_dims", Attr::kCollapsedSliceDims},
      {"start_index_map", Attr::kStartIndexMap}, {"operand_batching_dims", Attr::kOperandBatchingDims},
      {"start_indices_batching_dims", Attr::kStartIndicesBatchingDims},
      {"index_vector_dim", Attr::kIndexVectorDim}, {"slice_sizes", Attr::kSliceSizes},
      {"update_window_dims", Attr::kUpdateWindowDims},
      {"inserted_window_dims", Attr::kInsertedWindowDims},
      {"scatter_dims_to_operand_dims", Attr::kScatterDimsToOperandDims},
      {"input_batching_dims", Attr::kInputBatchingDims},
      {"scatter_indices_batching_dims", Attr::kScatterIndicesBatchingDims},
      {"indices_are_sorted", Attr::kIndicesAreSorted}, {"unique_indices", Attr::kUniqueIndices},
      {"direction", Attr::kDirection}, {"type", Attr::kType}, {"kind", Attr::kKind},
      {"index", Attr::kIndex}, {"iota_dimension", Attr::kIotaDimension},
      {"distribution", Attr::kDistribution}, {"delta", Attr::kDelta},
      {"exponent_bits", Attr::kExponentBits}, {"mantissa_bits", Attr::kMantissaBits},
      {"epsilon", Attr::kEpsilon}, {"feature_index", Attr::kFeatureIndex},
      {"fft_type", Attr::kFftType}, {"fft_length", Attr::kFftLength},
      {"left_side", Attr::kLeftSide}, {"lower", Attr::kLower},
      {"unit_diagonal", Attr::kUnitDiagonal}, {"transpose_a", Attr::kTransposeA},
      {"is_stable", Attr::kIsStable}, {"k", Attr::kK}, {"largest", Attr::kLargest},
      {"num_carries", Attr::kNumCarries}, {"is_reverse", Attr::kIsReverse},
      {"is_associative", Attr::kIsAssociative},
      {"parameter_replication", Attr::kParameterReplication},
      {"custom_call_target", Attr::kCustomCallTarget}, {"api_version", Attr::kApiVersion},
      {"custom_call_has_side_effect", Attr::kCustomCallHasSideEffect},
      {"output_to_operand_aliasing", Attr::kOutputToOperandAliasing},
      {"operand_layout_constraints", Attr::kOperandLayoutConstraints},
      {"schedule", Attr::kSchedule}, {"custom_call_schedule", Attr::kSchedule},
      {"padding_type", Attr::kPaddingType}, {"channel_id", Attr::kChannelId},
      {"replica_groups", Attr::kReplicaGroups}, {"source_target_pairs", Attr::kSourceTargetPairs},
      {"use_global_device_ids", Attr::kUseGlobalDeviceIds},
      {"constrain_layout", Attr::kConstrainLayout}, {"is_host_transfer", Attr::kIsHostTransfer},
      {"has_dynamic_root", Attr::kHasDynamicRoot}, {"infeed_config", Attr::kInfeedConfig},
      {"outfeed_config", Attr::kOutfeedConfig}, {"outfeed_shape", Attr::kOutfeedShape},
      {"cross_program_prefetch_index", Attr::kCrossProgramPrefetchIndex},
      {"async_execution_thread", Attr::kAsyncExecutionThread}, {"to_apply", Attr::kToApply},
      {"calls", Attr::kCalls}, {"condition", Attr::kCondition}, {"body", Attr::kBody},
      {"branch_computations", Attr::kBranchComputations},
      {"true_computation", Attr::kTrueComputation}, {"false_computation", Attr::kFalseComputation},
      {"select", Attr::kSelect}, {"scatter", Attr::kScatter},
      {"called_computations", Attr::kCalledComputations},
      {"control-predecessors", Attr::kControlPredecessors}, {"sharding", Attr::kSharding},
      {"frontend_attributes", Attr::kFrontendAttributes}, {"statistics", Attr::kStatistics},
      {"metadata", Attr::kMetadata}, {"backend_config", Attr::kBackendConfig},
      {"origin", Attr::kKnownRaw}, {"result_accuracy", Attr::kKnownRaw},
      {"domain", Attr::kKnownRaw}, {"literal", Attr::kKnownRaw},
  };
  return *table;
}

void ModuleParser::ParseAttribute(Instruction* inst) {
  c_.SkipSpace();
  size_t at = c_.pos();
  std::string_view name = lex_.Identifier("attribute name");
  std::string key(name);
  c_.Expect('=', ("after attribute name " + key).c_str());
  auto it = AttrTable().find(name);
  Attr attr = it == AttrTable().end() ? Attr::kUnknown : it->second;
  if (!seen_attr_names_.insert(name).second) c_.Fail(at, "attribute '" + key + "' given twice");
  if (attr == Attr::kMetadata) {
    inst->set_metadata(ParseMetadata());
    return;
  }
  InstructionAttributes& a = inst->mutable_attrs();
  const char* what = key.c_str();
  if (attr == Attr::kUnknown) {
    std::string value(lex_.RawValue(what));
    if (!options_.allow_unknown_attributes) c_.Fail(at, "unknown attribute '" + key + "'");
    warnings_.push_back({c_.LocationOf(at), "unknown attribute '" + key + "' on %" + inst->name() +
                                                " kept verbatim"});
    a.raw.push_back({key, std::move(value)});
    return;
  }
  if (attr == Attr::kKnownRaw) {
    a.raw.push_back({key, std::string(lex_.RawValue(what))});
    return;
  }
  if (ParseDimensionAttribute(attr, inst, a, what)) return;
  if (ParseOpOptionAttribute(attr, a, what)) return;
  if (ParseCustomCallAttribute(attr, a, what)) return;
  if (ParseChannelAttribute(attr, a, what)) return;
  if (ParseCallAttribute(attr, inst, what)) return;
  ParseGenericAttribute(attr, a, what);
}

bool ModuleParser::ParseDimensionAttribute(Attr attr, Instruction* inst, InstructionAttributes& a,
                             const char* what) {
  switch (attr) {
    case Attr::kDimensions: a.dimensions = lex_.IntList(what); break;
    case Attr::kWindow: a.window = ParseWindow(); break;
    case Attr::kDimLabels: a.convolution_dimension_numbers = ParseDimLabels(); break;
    case Attr::kFeatureGroupCount: a.feature_group_count = Positive(what); break;
    case Attr::kBatchGroupCount: a.batch_group_count = Positive(what); break;
    case Attr::kLhsBatchDims: Dot(a).lhs_batch_dimensions = lex_.IntList(what); break;
    case Attr::kLhsContractingDims: Dot(a).lhs_contracting_dimensions = lex_.IntList(what); break;
    case Attr::kRhsBatchDims: Dot(a).rhs_batch_dimensions = lex_.IntList(what); break;
    case Attr::kRhsContractingDims: Dot(a).rhs_contracting_dimensions = lex_.IntList(what); break;
    case Attr::kLhsRaggedDims: Ragged(a).lhs_ragged_dimensions = lex_.IntList(what); break;
    case Attr::kRhsGroupDims: Ragged(a).rhs_group_dimensions = lex_.IntList(what); break;
    case Attr::kOperandPrecision: ParseOperandPrecision(a, what); break;
    case Attr::kAlgorithm: ParseAlgorithm(inst, a, what); break;
    case Attr::kSparsity: a.sparsity = std::string(lex_.RawValue(what)); break;
    case Attr::kSlice: a.slice = ParseSlice(); break;
    case Attr::kDynamicSliceSizes: a.dynamic_slice_sizes = lex_.IntList(what); break;
    case Attr::kPadding: a.padding = ParsePadding(); break;
    case Attr::kOffsetDims: Gather(a).offset_dims = lex_.IntList(what); break;
    case Attr::kCollapsedSliceDims: Gather(a).collapsed_slice_dims = lex_.IntList(what); break;
    case Attr::kStartIndexMap: Gather(a).start_index_map = lex_.IntList(what); break;
    case Attr::kOperandBatchingDims: Gather(a).operand_batching_dims = lex_.IntList(what); break;
    case Attr::kStartIndicesBatchingDims: Gather(a).start_indices_batching_dims = lex_.IntList(what); break;
    case Attr::kIndexVectorDim: {
      int64_t v = lex_.Int(what);
      if (inst->opcode() == Opcode::kScatter) Scatter(a).index_vector_dim = v;
      else Gather(a).index_vector_dim = v;
      break;
    }
    case Attr::kSliceSizes: ParseSliceSizes(a, what); break;
    case Attr::kUpdateWindowDims: Scatter(a).update_window_dims = lex_.IntList(what); break;
    case Attr::kInsertedWindowDims: Scatter(a).inserted_window_dims = lex_.IntList(what); break;
    case Attr::kScatterDimsToOperandDims: Scatter(a).scatter_dims_to_operand_dims = lex_.IntList(what); break;
    case Attr::kInputBatchingDims: Scatter(a).input_batching_dims = lex_.IntList(what); break;
    case Attr::kScatterIndicesBatchingDims: Scatter(a).scatter_indices_batching_dims = lex_.IntList(what); break;
    case Attr::kIndicesAreSorted: a.indices_are_sorted = lex_.Bool(what); break;
    case Attr::kUniqueIndices: a.unique_indices = lex_.Bool(what); break;
    default: return false;
  }
  return true;
}

bool ModuleParser::ParseOpOptionAttribute(Attr attr, InstructionAttributes& a, const char* what) {
  switch (attr) {
    case Attr::kDirection: a.comparison_direction = Enum(ParseComparisonDirection, what); break;
    case Attr::kType: a.comparison_type = Enum(ParseComparisonType, what); break;
    case Attr::kKind: a.fusion_kind = Enum(ParseFusionKind, what); break;
    case Attr::kIndex: a.tuple_index = NonNegative(what); break;
    case Attr::kIotaDimension: a.iota_dimension = NonNegative(what); break;
    case Attr::kDistribution: a.distribution = Enum(ParseRandomDistribution, what); break;
    case Attr::kDelta: a.rng_delta = lex_.Int(what); break;
    case Attr::kExponentBits: a.exponent_bits = NonNegative(what); break;
    case Attr::kMantissaBits: a.mantissa_bits = NonNegative(what); break;
    case Attr::kEpsilon: a.epsilon = ParseEpsilon(); break;
    case Attr::kFeatureIndex: a.feature_index = NonNegative(what); break;
    case Attr::kFftType: a.fft_type = Enum(ParseFftType, what); break;
    case Attr::kFftLength: a.fft_length = lex_.IntList(what); break;
    case Attr::kLeftSide: a.left_side = lex_.Bool(what); break;
    case Attr::kLower: a.lower = lex_.Bool(what); break;
    case Attr::kUnitDiagonal: a.unit_diagonal = lex_.Bool(what); break;
    case Attr::kTransposeA: a.transpose_a = Enum(ParseTransposeA, what); break;
    case Attr::kIsStable: a.is_stable = lex_.Bool(what); break;
    case Attr::kK: a.k = NonNegative(what); break;
    case Attr::kLargest: a.largest = lex_.Bool(what); break;
    case Attr::kNumCarries: a.num_carries = NonNegative(what); break;
    case Attr::kIsReverse: a.is_reverse = lex_.Bool(what); break;
    case Attr::kIsAssociative: a.is_associative = lex_.Bool(what); break;
    case Attr::kParameterReplication:
      a.has_parameter_replication = true;
      a.parameter_replication = lex_.BoolList(what);
      break;
    default: return false;
  }
  return true;
}

bool ModuleParser::ParseCustomCallAttribute(Attr attr, InstructionAttributes& a, const char* what) {
  switch (attr) {
    case Attr::kCustomCallTarget:
      a.has_custom_call_target = true;
      a.custom_call_target = lex_.String(what);
      break;
    case Attr::kApiVersion: a.api_version = Enum(ParseCustomCallApiVersion, what); break;
    case Attr::kCustomCallHasSideEffect: a.custom_call_has_side_effect = lex_.Bool(what); break;
    case Attr::kOutputToOperandAliasing: ParseOutputOperandAliasing(a, what); break;
    case Attr::kOperandLayoutConstraints: ParseOperandLayoutConstraints(a, what); break;
    case Attr::kSchedule: a.custom_call_schedule = std::string(lex_.Identifier(what)); break;
    case Attr::kPaddingType: a.padding_type = std::string(lex_.Identifier(what)); break;
    default: return false;
  }
  return true;
}

bool ModuleParser::ParseChannelAttribute(Attr attr, InstructionAttributes& a, const char* what) {
  switch (attr) {
    case Attr::kChannelId: a.channel_id = lex_.Int(what); break;
    case Attr::kReplicaGroups: a.replica_groups = ParseReplicaGroups(); break;
    case Attr::kSourceTargetPairs: ParseSourceTargetPairs(a, what); break;
    case Attr::kUseGlobalDeviceIds: a.use_global_device_ids = lex_.Bool(what); break;
    case Attr::kConstrainLayout: a.constrain_layout = lex_.Bool(what); break;
    case Attr::kIsHostTransfer: a.is_host_transfer = lex_.Bool(what); break;
    case Attr::kHasDynamicRoot: a.has_dynamic_root = lex_.Bool(what); break;
    case Attr::kInfeedConfig:
      a.has_infeed_config = true;
      a.infeed_config = lex_.String(what);
      break;
    case Attr::kOutfeedConfig:
      a.has_outfeed_config = true;
      a.outfeed_config = lex_.String(what);
      break;
    case Attr::kOutfeedShape: a.outfeed_shape = shapes_.Parse(); break;
    case Attr::kCrossProgramPrefetchIndex: a.cross_program_prefetch_index = lex_.Int(what); break;
    case Attr::kAsyncExecutionThread:
      a.has_async_execution_thread = true;
      a.async_execution_thread = lex_.String(what);
      break;
    default: return false;
  }
  return true;
}

bool ModuleParser::ParseCallAttribute(Attr attr, Instruction* inst, const char* what) {
  switch (attr) {
    case Attr::kToApply: Call(inst, CallForm::kToApply, 0); break;
    case Attr::kCalls: {
      c_.SkipSpace();
      if (c_.Peek() == '{') {
        CallList(inst, CallForm::kCalls);
      } else {
        Call(inst, CallForm::kCalls, 0);
      }
      break;
    }
    case Attr::kCondition: Call(inst, CallForm::kConditionBody, 0); break;
    case Attr::kBody: Call(inst, CallForm::kConditionBody, 1); break;
    case Attr::kBranchComputations: CallList(inst, CallForm::kBranches); break;
    case Attr::kTrueComputation: Call(inst, CallForm::kTrueFalse, 0); break;
    case Attr::kFalseComputation: Call(inst, CallForm::kTrueFalse, 1); break;
    case Attr::kSelect: Call(inst, CallForm::kSelectScatter, 0); break;
    case Attr::kScatter: Call(inst, CallForm::kSelectScatter, 1); break;
    case Attr::kCalledComputations: CallList(inst, CallForm::kCalledComputations); break;
    case Attr::kControlPredecessors: ParseControlPredecessors(inst, what); break;
    default: return false;
  }
  return true;
}

void ModuleParser::ParseGenericAttribute(Attr attr, InstructionAttributes& a, const char* what) {
  switch (attr) {
    case Attr::kSharding:
      a.has_sharding = true;
      a.sharding = std::string(lex_.BracedRaw(what));
      break;
    case Attr::kFrontendAttributes:
      a.has_frontend_attributes = true;
      a.frontend_attributes = ParseFrontendAttributes();
      break;
    case Attr::kStatistics:
      a.has_statistics = true;
      a.statistics = std::string(lex_.BracedRaw(what));
      break;
    case Attr::kBackendConfig: ParseBackendConfig(a, what); break;
    default: break;  // every attribute has a family; ParseAttribute handled the rest
  }
}

void ModuleParser::ParseOperandPrecision(InstructionAttributes& a, const char* what) {
  c_.Expect('{', what);
  if (c_.Consume('}')) return;
  do {
    size_t p = c_.pos();
    std::string_view v = lex_.Identifier("precision");
    auto prec = ParsePrecision(v);
    if (!prec) c_.Fail(p, "unknown precision '" + std::string(v) + "'");
    a.operand_precision.push_back(*prec);
  } while (c_.Consume(','));
  c_.Expect('}', "to close operand_precision");
}

void ModuleParser::ParseAlgorithm(Instruction* inst, InstructionAttributes& a, const char* what) {
  size_t p = c_.pos();
  std::string_view v = lex_.Identifier(what);
  if (inst->opcode() == Opcode::kRngBitGenerator) {
    a.rng_algorithm = ParseRandomAlgorithm(v);
    if (!a.rng_algorithm) c_.Fail(p, "unknown rng algorithm '" + std::string(v) + "'");
  } else {
    a.dot_algorithm = std::string(v);
  }
}

void ModuleParser::ParseSliceSizes(InstructionAttributes& a, const char* what) {
  c_.SkipSpace();
  std::string_view r = c_.Rest();
  size_t i = 1;
  while (i < r.size() && (r[i] == ' ' || r[i] == '\n')) ++i;
  if (r.size() > i && r[0] == '{' && r[i] == '{') {
    c_.Expect('{', what);
    do {
      a.slice_sizes_list.push_back(lex_.IntList(what));
    } while (c_.Consume(','));
    c_.Expect('}', "to close slice_sizes");
  } else {
    a.gather_slice_sizes = lex_.IntList(what);
    Gather(a);
  }
}

double ModuleParser::ParseEpsilon() {
  c_.SkipSpace();
  std::string_view r = c_.Rest();
  double v = 0;
  auto res = std::from_chars(r.data(), r.data() + r.size(), v);
  if (res.ec != std::errc()) c_.FailHere("expected a number for epsilon");
  c_.set_pos(c_.pos() + static_cast<size_t>(res.ptr - r.data()));
  return v;
}

void ModuleParser::ParseOutputOperandAliasing(InstructionAttributes& a, const char* what) {
  a.has_output_to_operand_aliasing = true;
  c_.Expect('{', what);
  if (c_.Consume('}')) return;
  do {
    OutputOperandAlias alias;
    alias.output_index = lex_.IntList("output shape index");
    c_.Expect(':', "in output_to_operand_aliasing");
    c_.Expect('(', "in output_to_operand_aliasing");
    alias.operand_number = NonNegative("operand number");
    c_.Expect(',', "in output_to_operand_aliasing");
    alias.operand_index = lex_.IntList("operand shape index");
    c_.Expect(')', "in output_to_operand_aliasing");
    a.output_to_operand_aliasing.push_back(std::move(alias));
  } while (c_.Consume(','));
  c_.Expect('}', "to close output_to_operand_aliasing");
}

void ModuleParser::ParseOperandLayoutConstraints(InstructionAttributes& a, const char* what) {
  a.has_operand_layout_constraints = true;
  c_.Expect('{', what);
  if (c_.Consume('}')) return;
  do {
    a.operand_layout_constraints.push_back(shapes_.Parse());
  } while (c_.Consume(','));
  c_.Expect('}', "to close operand_layout_constraints");
}

void ModuleParser::ParseSourceTargetPairs(InstructionAttributes& a, const char* what) {
  a.has_source_target_pairs = true;
  c_.Expect('{', what);
  if (c_.Consume('}')) return;
  do {
    c_.Expect('{', "to open a source-target pair");
    int64_t s = lex_.Int("source");
    c_.Expect(',', "in a source-target pair");
    int64_t t = lex_.Int("target");
    c_.Expect('}', "to close a source-target pair");
    a.source_target_pairs.emplace_back(s, t);
  } while (c_.Consume(','));
  c_.Expect('}', "to close source_target_pairs");
}

void ModuleParser::ParseControlPredecessors(Instruction* inst, const char* what) {
  c_.Expect('{', what);
  if (c_.Consume('}')) return;
  do {
    c_.SkipSpace();
    size_t p = c_.pos();
    pending_operands_.push_back({inst, std::string(lex_.Name("control predecessor")), p, true});
  } while (c_.Consume(','));
  c_.Expect('}', "to close control-predecessors");
}

void ModuleParser::ParseBackendConfig(InstructionAttributes& a, const char* what) {
  c_.SkipSpace();
  a.has_backend_config = true;
  if (c_.Peek() == '"') {
    a.backend_config_is_string = true;
    a.backend_config = lex_.String(what);
  } else if (c_.Peek() == '{') {
    size_t open = c_.pos();
    lex_.BracedRaw(what);
    a.backend_config = std::string(c_.text().substr(open, c_.pos() - open));
  } else {
    c_.FailHere("expected a string or a {...} JSON object for backend_config");
  }
}

DotDimensionNumbers& ModuleParser::Dot(InstructionAttributes& a) {
  if (!a.dot_dimension_numbers) a.dot_dimension_numbers.emplace();
  return *a.dot_dimension_numbers;
}

RaggedDotDimensionNumbers& ModuleParser::Ragged(InstructionAttributes& a) {
  if (!a.ragged_dot_dimension_numbers) a.ragged_dot_dimension_numbers.emplace();
  return *a.ragged_dot_dimension_numbers;
}

GatherDimensionNumbers& ModuleParser::Gather(InstructionAttributes& a) {
  if (!a.gather_dimension_numbers) a.gather_dimension_numbers.emplace();
  return *a.gather_dimension_numbers;
}

ScatterDimensionNumbers& ModuleParser::Scatter(InstructionAttributes& a) {
  if (!a.scatter_dimension_numbers) a.scatter_dimension_numbers.emplace();
  return *a.scatter_dimension_numbers;
}

int64_t ModuleParser::NonNegative(const char* what) {
  c_.SkipSpace();
  size_t p = c_.pos();
  int64_t v = lex_.Int(what);
  if (v < 0) c_.Fail(p, std::string(what) + " must not be negative");
  return v;
}

int64_t ModuleParser::Positive(const char* what) {
  c_.SkipSpace();
  size_t p = c_.pos();
  int64_t v = lex_.Int(what);
  if (v <= 0) c_.Fail(p, std::string(what) + " must be positive");
  return v;
}

void ModuleParser::Call(Instruction* inst, CallForm form, int64_t slot) {
  c_.SkipSpace();
  size_t p = c_.pos();
  std::string name(lex_.Name("computation name"));
  if (inst->call_form() != CallForm::kNone && inst->call_form() != form) {
    c_.Fail(p, "conflicting ways of naming called computations on %" + inst->name());
  }
  inst->set_call_form(form);
  while (static_cast<int64_t>(inst->called_computations().size()) <= slot) {
    inst->AppendCalledComputation(nullptr);
  }
  // Callees defined earlier are linked now (shape inference may need them); later ones
  // at the end of the module.
  inst->set_called_computation(slot, FindComputation(name));
  pending_calls_.push_back({inst, slot, std::move(name), p});
}

void ModuleParser::CallList(Instruction* inst, CallForm form) {
  c_.Expect('{', "to open a list of computations");
  if (inst->call_form() != CallForm::kNone && inst->call_form() != form) {
    c_.FailHere("conflicting ways of naming called computations on %" + inst->name());
  }
  inst->set_call_form(form);
  if (c_.Consume('}')) return;
  do {
    c_.SkipSpace();
    size_t p = c_.pos();
    std::string name(lex_.Name("computation name"));
    int64_t slot = static_cast<int64_t>(inst->called_computations().size());
    inst->AppendCalledComputation(FindComputation(name));
    pending_calls_.push_back({inst, slot, std::move(name), p});
  } while (c_.Consume(','));
  c_.Expect('}', "to close the list of computations");
}

Window ModuleParser::ParseWindow() {
  c_.Expect('{', "to open window");
  Window window;
  bool have_size = false;
  auto fill = [&](size_t at, const char* key, const std::vector<int64_t>& values, auto setter) {
    if (window.dimensions.empty() && !have_size) window.dimensions.resize(values.size());
    if (values.size() != window.dimensions.size()) {
      c_.Fail(at, std::string("window ") + key + " has " + std::to_string(values.size()) +
                      " dimensions, expected " + std::to_string(window.dimensions.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) setter(window.dimensions[i], values[i]);
  };
  while (!c_.Consume('}')) {
    c_.SkipSpace();
    size_t at = c_.pos();
    if (c_.AtEnd()) c_.Fail(at, "unterminated window");
    std::string_view key = lex_.Identifier("window field");
    c_.Expect('=', "after window field");
    if (key == "size") {
      auto v = lex_.XList("window size");
      fill(at, "size", v, [](WindowDimension& d, int64_t x) { d.size = x; });
      have_size = true;
    } else if (key == "stride") {
      fill(at, "stride", lex_.XList("window stride"), [](WindowDimension& d, int64_t x) { d.stride = x; });
    } else if (key == "lhs_dilate") {
      fill(at, "lhs_dilate", lex_.XList("lhs_dilate"), [](WindowDimension& d, int64_t x) { d.base_dilation = x; });
    } else if (key == "rhs_dilate") {
      fill(at, "rhs_dilate", lex_.XList("rhs_dilate"), [](WindowDimension& d, int64_t x) { d.window_dilation = x; });
    } else if (key == "rhs_reversal") {
      fill(at, "rhs_reversal", lex_.XList("rhs_reversal"),
           [](WindowDimension& d, int64_t x) { d.window_reversal = x != 0; });
    } else if (key == "pad") {
      auto pads = ParsePadding();
      std::vector<int64_t> lows;
      for (const auto& p : pads) {
        if (p.interior != 0) c_.Fail(at, "window padding takes low_high pairs only");
        lows.push_back(p.low);
      }
      size_t i = 0;
      fill(at, "pad", lows, [&](WindowDimension& d, int64_t x) {
        d.padding_low = x;
        d.padding_high = pads[i++].high;
      });
    } else {
      c_.Fail(at, "unknown window field '" + std::string(key) + "'");
    }
  }
  return window;
}

std::vector<PaddingDimension> ModuleParser::ParsePadding() {
  std::vector<PaddingDimension> result;
  c_.SkipSpace();
  while (true) {
    size_t at = c_.pos();
    PaddingDimension p;
    p.low = lex_.IntNoSpace("padding");
    if (c_.Peek() != '_') c_.Fail(c_.pos(), "expected '_' in padding (low_high[_interior])");
    c_.set_pos(c_.pos() + 1);
    p.high = lex_.IntNoSpace("padding");
    if (c_.Peek() == '_') {
      c_.set_pos(c_.pos() + 1);
      p.interior = lex_.IntNoSpace("padding");
      if (p.interior < 0) c_.Fail(at, "interior padding must not be negative");
    }
    result.push_back(p);
    if (c_.Peek() != 'x') break;
    c_.set_pos(c_.pos() + 1);
  }
  return result;
}

std::vector<SliceDimension> ModuleParser::ParseSlice() {
  c_.Expect('{', "to open slice");
  std::vector<SliceDimension> dims;
  if (c_.Consume('}')) return dims;
  do {
    c_.Expect('[', "to open a slice dimension");
    SliceDimension d;
    d.start = lex_.Int("slice start");
    c_.Expect(':', "in slice dimension");
    d.limit = lex_.Int("slice limit");
    if (c_.Consume(':')) {
      size_t at = c_.pos();
      d.stride = lex_.Int("slice stride");
      if (d.stride <= 0) c_.Fail(at, "slice stride must be positive");
    }
    c_.Expect(']', "to close a slice dimension");
    dims.push_back(d);
  } while (c_.Consume(','));
  c_.Expect('}', "to close slice");
  return dims;
}

ConvolutionDimensionNumbers ModuleParser::ParseDimLabels() {
  c_.SkipSpace();
  size_t at = c_.pos();
  std::string_view text = c_.text();
  size_t p = at;
  while (p < text.size() && (std::isalnum(static_cast<unsigned char>(text[p])) || text[p] == '_' ||
                             text[p] == '-' || text[p] == '>' || text[p] == '?')) {
    ++p;
  }
  std::string_view labels = text.substr(at, p - at);
  c_.set_pos(p);
  size_t us = labels.find('_');
  size_t arrow = labels.find("->");
  if (us == std::string_view::npos || arrow == std::string_view::npos || arrow < us) {
    c_.Fail(at, "dim_labels must look like b01f_01io->b01f, found '" + std::string(labels) + "'");
  }
  std::string_view in = labels.substr(0, us), kernel = labels.substr(us + 1, arrow - us - 1),
                   out = labels.substr(arrow + 2);
  if (in.size() != kernel.size() || in.size() != out.size() || in.size() < 2) {
    c_.Fail(at, "dim_labels parts must have equal length (" + std::string(labels) + ")");
  }
  ConvolutionDimensionNumbers dn;
  size_t spatial = in.size() - 2;
  dn.input_spatial_dimensions.assign(spatial, -1);
  dn.kernel_spatial_dimensions.assign(spatial, -1);
  dn.output_spatial_dimensions.assign(spatial, -1);
  auto decode = [&](std::string_view part, char a, char b, int64_t* da, int64_t* db,
                    std::vector<int64_t>* sp, const char* which) {
    *da = *db = -1;
    for (size_t i = 0; i < part.size(); ++i) {
      char ch = part[i];
      int64_t dim = static_cast<int64_t>(i);
      if (ch == a && *da < 0) {
        *da = dim;
      } else if (ch == b && *db < 0) {
        *db = dim;
      } else if (IsDigit(ch) && static_cast<size_t>(ch - '0') < spatial && (*sp)[ch - '0'] < 0) {
        (*sp)[ch - '0'] = dim;
      } else {
        c_.Fail(at, std::string("bad ") + which + " label '" + ch + "' in dim_labels " + std::string(labels));
      }
    }
    if (*da < 0 || *db < 0) {
      c_.Fail(at, std::string(which) + " labels must contain '" + a + "' and '" + b + "'");
    }
  };
  decode(in, 'b', 'f', &dn.input_batch_dimension, &dn.input_feature_dimension,
         &dn.input_spatial_dimensions, "input");
  decode(kernel, 'i', 'o', &dn.kernel_input_feature_dimension, &dn.kernel_output_feature_dimension,
         &dn.kernel_spatial_dimensions, "kernel");
  decode(out, 'b', 'f', &dn.output_batch_dimension, &dn.output_feature_dimension,
         &dn.output_spatial_dimensions, "output");
  return dn;
}

ReplicaGroups ModuleParser::ParseReplicaGroups() {
  ReplicaGroups groups;
  c_.SkipSpace();
  if (c_.Peek() == '[') {
    groups.iota = true;
    auto bracket_list = [&](const char* what) {
      c_.Expect('[', what);
      std::vector<int64_t> v;
      if (!c_.Consume(']')) {
        do {
          v.push_back(lex_.Int(what));
        } while (c_.Consume(','));
        c_.Expect(']', what);
      }
      return v;
    };
    groups.iota_group_shape = bracket_list("replica group shape");
    if (!c_.ConsumeStr("<=")) c_.FailHere("expected '<=' in iota replica groups");
    groups.iota_reshape_dims = bracket_list("replica group reshape dims");
    if (c_.Peek() == 'T' && c_.Peek(1) == '(') {
      c_.set_pos(c_.pos() + 2);
      do {
        groups.iota_transpose_perm.push_back(lex_.Int("transpose permutation"));
      } while (c_.Consume(','));
      c_.Expect(')', "to close T(...)");
    }
    return groups;
  }
  if (c_.Peek() != '{') {
    // Newer forms (mesh[...] {...}) are kept verbatim.
    groups.raw = std::string(lex_.RawValue("replica_groups"));
    // A mesh in another device order writes it after a comma: mesh[...], device_ids=(...) {...}.
    const size_t after = c_.pos();
    c_.SkipSpace();
    if (groups.raw.rfind("mesh[", 0) == 0 && c_.Consume(',')) {
      c_.SkipSpace();
      if (c_.text().substr(c_.pos()).rfind("device_ids=", 0) == 0) {
        groups.raw += ", " + std::string(lex_.RawValue("replica_groups"));
        return groups;
      }
    }
    c_.set_pos(after);
    return groups;
  }
  c_.Expect('{', "to open replica_groups");
  if (c_.Consume('}')) return groups;
  do {
    groups.groups.push_back(lex_.IntList("replica group"));
  } while (c_.Consume(','));
  c_.Expect('}', "to close replica_groups");
  return groups;
}

std::vector<std::pair<std::string, std::string>> ModuleParser::ParseFrontendAttributes() {
  c_.Expect('{', "to open frontend_attributes");
  std::vector<std::pair<std::string, std::string>> attrs;
  if (c_.Consume('}')) return attrs;
  do {
    c_.SkipSpace();
    std::string key;
    if (c_.Peek() == '"') {
      key = lex_.String("frontend attribute key");
    } else {
      key = std::string(lex_.Identifier("frontend attribute key"));
    }
    c_.Expect('=', "after frontend attribute key");
    c_.SkipSpace();
    std::string value;
    if (c_.Peek() == '"') {
      value = lex_.String("frontend attribute value");
    } else {
      value = std::string(lex_.RawValue("frontend attribute value"));
      // RawValue stops at '}' of the enclosing list.
    }
    attrs.emplace_back(std::move(key), std::move(value));
  } while (c_.Consume(','));
  c_.Expect('}', "to close frontend_attributes");
  return attrs;
}

OpMetadata ModuleParser::ParseMetadata() {
  c_.Expect('{', "to open metadata");
  OpMetadata md;
  while (true) {
    c_.SkipSpace();
    if (c_.Consume('}')) break;
    if (c_.AtEnd()) c_.FailHere("unterminated metadata");
    size_t at = c_.pos();
    std::string_view key = lex_.Identifier("metadata key");
    c_.Expect('=', "after metadata key");
    if (key == "op_type") md.op_type = lex_.String("op_type");
    else if (key == "op_name") md.op_name = lex_.String("op_name");
    else if (key == "source_file") md.source_file = lex_.String("source_file");
    else if (key == "source_line") md.source_line = lex_.Int("source_line");
    else if (key == "source_end_line") md.source_end_line = lex_.Int("source_end_line");
    else if (key == "source_column") md.source_column = lex_.Int("source_column");
    else if (key == "source_end_column") md.source_end_column = lex_.Int("source_end_column");
    else if (key == "stack_frame_id") md.stack_frame_id = lex_.Int("stack_frame_id");
    else if (key == "deduplicated_name") md.deduplicated_name = lex_.String("deduplicated_name");
    else if (key == "scheduling_name") md.scheduling_name = lex_.String("scheduling_name");
    else if (key == "preserve_layout") md.preserve_layout = lex_.Bool("preserve_layout");
    else {
      c_.SkipSpace();
      size_t vstart = c_.pos();
      if (c_.Peek() == '"') {
        lex_.String("metadata value");
      } else if (c_.Peek() == '{') {
        lex_.BracedRaw("metadata value");
      } else {
        while (!c_.AtEnd() && c_.Peek() != ' ' && c_.Peek() != '}' && c_.Peek() != '\n') {
          c_.set_pos(c_.pos() + 1);
        }
      }
      if (c_.pos() == vstart) c_.Fail(at, "expected a value for metadata key " + std::string(key));
      md.extra.emplace_back(std::string(key), std::string(c_.text().substr(vstart, c_.pos() - vstart)));
    }
    c_.Consume(',');
  }
  return md;
}

}  // namespace fusebox::parser_internal
