// The HLO text printer: instructions, computations and modules in XLA's dump format.
// print -> parse -> print is a fixed point, and the text is accepted by XLA's parser.
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/ir/printer_internal.h"
#include "compiler/support/strings.h"

namespace fusebox {

namespace {

std::string Braced(const std::vector<int64_t>& values) { return "{" + Join(values, ",") + "}"; }

std::string BoolList(const std::vector<bool>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += values[i] ? "true" : "false";
  }
  return out + "}";
}

std::string FrontendAttributesToString(
    const std::vector<std::pair<std::string, std::string>>& attrs) {
  std::string out = "{";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i) out += ',';
    // A key the parser cannot read as a name (an XLA proto may hold any string) is quoted.
    const std::string& key = attrs[i].first;
    bool name = !key.empty() && (std::isalpha(static_cast<unsigned char>(key[0])) || key[0] == '_');
    for (char c : key) name = name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
    out += (name ? key : "\"" + CEscape(key) + "\"") + "=\"" + CEscape(attrs[i].second) + "\"";
  }
  return out + "}";
}

class AttrWriter {
 public:
  explicit AttrWriter(std::string* out) : out_(out) {}
  void Add(std::string_view key, const std::string& value) {
    *out_ += ", ";
    *out_ += key;
    *out_ += '=';
    *out_ += value;
  }
  void Bool(std::string_view key, bool value) { Add(key, value ? "true" : "false"); }
  void Int(std::string_view key, int64_t value) { Add(key, std::to_string(value)); }
  void Dims(std::string_view key, const std::vector<int64_t>& dims) { Add(key, Braced(dims)); }
  void Str(std::string_view key, const std::string& value) { Add(key, "\"" + CEscape(value) + "\""); }

 private:
  std::string* out_;
};

std::string CompName(const Computation* c) { return c ? "%" + c->name() : "%<null>"; }

void AppendCalledComputations(const Instruction& inst, AttrWriter& w) {
  const auto& called = inst.called_computations();
  if (called.empty() && inst.call_form() != CallForm::kBranches &&
      inst.call_form() != CallForm::kCalledComputations) {
    return;
  }
  auto list = [&]() {
    std::string out = "{";
    for (size_t i = 0; i < called.size(); ++i) {
      if (i) out += ", ";
      out += CompName(called[i]);
    }
    return out + "}";
  };
  switch (inst.call_form()) {
    case CallForm::kNone:
    case CallForm::kToApply:
      w.Add("to_apply", CompName(called[0]));
      break;
    case CallForm::kCalls:
      w.Add("calls", called.size() == 1 ? CompName(called[0]) : list());
      break;
    case CallForm::kConditionBody:
      w.Add("condition", CompName(called[0]));
      if (called.size() > 1) w.Add("body", CompName(called[1]));
      break;
    case CallForm::kBranches:
      w.Add("branch_computations", list());
      break;
    case CallForm::kTrueFalse:
      w.Add("true_computation", CompName(called[0]));
      if (called.size() > 1) w.Add("false_computation", CompName(called[1]));
      break;
    case CallForm::kSelectScatter:
      w.Add("select", CompName(called[0]));
      if (called.size() > 1) w.Add("scatter", CompName(called[1]));
      break;
    case CallForm::kCalledComputations:
      w.Add("called_computations", list());
      break;
  }
}

// --- Opcode attributes, in the order XLA prints them: each family a table of
// "when, name, value"; values with a list syntax are spelled by the *Text functions ---

std::string SliceText(const std::vector<SliceDimension>& slice) {
  std::string s = "{";
  for (size_t i = 0; i < slice.size(); ++i) {
    if (i) s += ", ";
    const SliceDimension& d = slice[i];
    s += "[" + std::to_string(d.start) + ":" + std::to_string(d.limit);
    if (d.stride != 1) s += ":" + std::to_string(d.stride);
    s += "]";
  }
  return s + "}";
}

std::string OperandPrecisionText(const InstructionAttributes& a) {
  std::string s = "{";
  for (size_t i = 0; i < a.operand_precision.size(); ++i) {
    if (i) s += ',';
    s += PrecisionName(a.operand_precision[i]);
  }
  return s + "}";
}

std::string OutputOperandAliasingText(const InstructionAttributes& a) {
  std::string s = "{";
  for (size_t i = 0; i < a.output_to_operand_aliasing.size(); ++i) {
    const OutputOperandAlias& al = a.output_to_operand_aliasing[i];
    if (i) s += ", ";
    s += Braced(al.output_index) + ": (" + std::to_string(al.operand_number) + ", " +
         Braced(al.operand_index) + ")";
  }
  return s + "}";
}

std::string OperandLayoutsText(const InstructionAttributes& a) {
  std::string s = "{";
  for (size_t i = 0; i < a.operand_layout_constraints.size(); ++i) {
    if (i) s += ", ";
    s += a.operand_layout_constraints[i].ToString(true);
  }
  return s + "}";
}

std::string SourceTargetPairsText(const InstructionAttributes& a) {
  std::string s = "{";
  for (size_t i = 0; i < a.source_target_pairs.size(); ++i) {
    if (i) s += ',';
    s += "{" + std::to_string(a.source_target_pairs[i].first) + "," +
         std::to_string(a.source_target_pairs[i].second) + "}";
  }
  return s + "}";
}

std::string SliceSizesListText(const InstructionAttributes& a) {
  std::string s = "{";
  for (size_t i = 0; i < a.slice_sizes_list.size(); ++i) {
    if (i) s += ',';
    s += Braced(a.slice_sizes_list[i]);
  }
  return s + "}";
}

// Custom-call target, parameter replication, iota dimension, tuple index, channel and
// replica groups, dimensions, slices, padding and window.
void AppendStructureAttributes(const InstructionAttributes& a, Opcode opcode, AttrWriter& w) {
  if (a.has_custom_call_target) w.Str("custom_call_target", a.custom_call_target);
  if (a.has_parameter_replication) w.Add("parameter_replication", BoolList(a.parameter_replication));
  if (a.iota_dimension >= 0) w.Int("iota_dimension", a.iota_dimension);
  if (a.tuple_index >= 0) w.Int("index", a.tuple_index);
  if (a.channel_id) w.Int("channel_id", *a.channel_id);
  if (a.replica_groups) w.Add("replica_groups", a.replica_groups->ToString());
  if (a.dimensions) w.Dims("dimensions", *a.dimensions);
  if (!a.slice.empty()) w.Add("slice", SliceText(a.slice));
  if (!a.dynamic_slice_sizes.empty() || opcode == Opcode::kDynamicSlice) {
    w.Dims("dynamic_slice_sizes", a.dynamic_slice_sizes);
  }
  if (!a.padding.empty()) w.Add("padding", PaddingToString(a.padding));
  if (a.window) w.Add("window", "{" + a.window->ToString() + "}");
}

// Convolution labels and group counts, dot and ragged-dot dimensions, sparsity,
// operand precision and the dot algorithm.
void AppendConvolutionAndDotAttributes(const InstructionAttributes& a, AttrWriter& w) {
  if (a.convolution_dimension_numbers) {
    w.Add("dim_labels", a.convolution_dimension_numbers->ToString());
  }
  if (a.feature_group_count != 1) w.Int("feature_group_count", a.feature_group_count);
  if (a.batch_group_count != 1) w.Int("batch_group_count", a.batch_group_count);
  if (a.dot_dimension_numbers) {
    const DotDimensionNumbers& d = *a.dot_dimension_numbers;
    if (!d.lhs_batch_dimensions.empty()) w.Dims("lhs_batch_dims", d.lhs_batch_dimensions);
    w.Dims("lhs_contracting_dims", d.lhs_contracting_dimensions);
    if (!d.rhs_batch_dimensions.empty()) w.Dims("rhs_batch_dims", d.rhs_batch_dimensions);
    w.Dims("rhs_contracting_dims", d.rhs_contracting_dimensions);
  }
  if (a.ragged_dot_dimension_numbers) {
    const auto& r = *a.ragged_dot_dimension_numbers;
    w.Dims("lhs_ragged_dims", r.lhs_ragged_dimensions);
    if (!r.rhs_group_dimensions.empty()) w.Dims("rhs_group_dims", r.rhs_group_dimensions);
  }
  if (!a.sparsity.empty()) w.Add("sparsity", a.sparsity);
  if (!a.operand_precision.empty()) w.Add("operand_precision", OperandPrecisionText(a));
  if (!a.dot_algorithm.empty()) w.Add("algorithm", a.dot_algorithm);
}

// Gather and scatter dimension numbers and their index flags.
void AppendGatherScatterAttributes(const InstructionAttributes& a, AttrWriter& w) {
  if (a.gather_dimension_numbers) {
    const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
    w.Dims("offset_dims", g.offset_dims);
    w.Dims("collapsed_slice_dims", g.collapsed_slice_dims);
    w.Dims("start_index_map", g.start_index_map);
    if (!g.operand_batching_dims.empty()) w.Dims("operand_batching_dims", g.operand_batching_dims);
    if (!g.start_indices_batching_dims.empty()) {
      w.Dims("start_indices_batching_dims", g.start_indices_batching_dims);
    }
    w.Int("index_vector_dim", g.index_vector_dim);
    w.Dims("slice_sizes", a.gather_slice_sizes);
  }
  if (a.scatter_dimension_numbers) {
    const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
    w.Dims("update_window_dims", s.update_window_dims);
    w.Dims("inserted_window_dims", s.inserted_window_dims);
    w.Dims("scatter_dims_to_operand_dims", s.scatter_dims_to_operand_dims);
    if (!s.input_batching_dims.empty()) w.Dims("input_batching_dims", s.input_batching_dims);
    if (!s.scatter_indices_batching_dims.empty()) {
      w.Dims("scatter_indices_batching_dims", s.scatter_indices_batching_dims);
    }
    w.Int("index_vector_dim", s.index_vector_dim);
  }
  if (a.indices_are_sorted) w.Bool("indices_are_sorted", true);
  if (a.unique_indices) w.Bool("unique_indices", true);
}

// Options of single opcodes: compare, fusion, rng, reduce-precision, batch norm, fft,
// triangular solve, sort, topk, scan.
void AppendOpOptionAttributes(const InstructionAttributes& a, Opcode opcode, AttrWriter& w) {
  if (a.comparison_direction) w.Add("direction", std::string(ComparisonDirectionName(*a.comparison_direction)));
  if (a.comparison_type) w.Add("type", std::string(ComparisonTypeName(*a.comparison_type)));
  if (a.fusion_kind) w.Add("kind", std::string(FusionKindName(*a.fusion_kind)));
  if (a.distribution) w.Add("distribution", std::string(RandomDistributionName(*a.distribution)));
  if (a.rng_algorithm) w.Add("algorithm", std::string(RandomAlgorithmName(*a.rng_algorithm)));
  if (opcode == Opcode::kRngGetAndUpdateState) w.Int("delta", a.rng_delta);
  if (a.exponent_bits >= 0) w.Int("exponent_bits", a.exponent_bits);
  if (a.mantissa_bits >= 0) w.Int("mantissa_bits", a.mantissa_bits);
  if (a.epsilon) w.Add("epsilon", FormatFloat(static_cast<float>(*a.epsilon)));
  if (a.feature_index >= 0) w.Int("feature_index", a.feature_index);
  if (a.fft_type) w.Add("fft_type", std::string(FftTypeName(*a.fft_type)));
  if (!a.fft_length.empty() || a.fft_type) w.Dims("fft_length", a.fft_length);
  if (a.left_side) w.Bool("left_side", *a.left_side);
  if (a.lower) w.Bool("lower", *a.lower);
  if (a.unit_diagonal) w.Bool("unit_diagonal", *a.unit_diagonal);
  if (a.transpose_a) w.Add("transpose_a", std::string(TransposeAName(*a.transpose_a)));
  if (a.is_stable) w.Bool("is_stable", *a.is_stable);
  if (a.k >= 0) w.Int("k", a.k);
  if (a.largest) w.Bool("largest", *a.largest);
  if (a.num_carries >= 0) w.Int("num_carries", a.num_carries);
  if (a.is_reverse) w.Bool("is_reverse", *a.is_reverse);
  if (a.is_associative) w.Bool("is_associative", *a.is_associative);
}

// Custom-call options, aliasing and layouts; collective pairs and flags, host
// transfers, infeed and outfeed, prefetch and async threads.
void AppendCustomCallAndChannelAttributes(const InstructionAttributes& a, AttrWriter& w) {
  if (a.api_version) w.Add("api_version", std::string(CustomCallApiVersionName(*a.api_version)));
  if (a.custom_call_has_side_effect) w.Bool("custom_call_has_side_effect", true);
  if (a.has_output_to_operand_aliasing) {
    w.Add("output_to_operand_aliasing", OutputOperandAliasingText(a));
  }
  if (a.has_operand_layout_constraints) w.Add("operand_layout_constraints", OperandLayoutsText(a));
  if (!a.custom_call_schedule.empty()) w.Add("schedule", a.custom_call_schedule);
  if (!a.padding_type.empty()) w.Add("padding_type", a.padding_type);
  if (a.has_source_target_pairs) w.Add("source_target_pairs", SourceTargetPairsText(a));
  if (!a.slice_sizes_list.empty()) w.Add("slice_sizes", SliceSizesListText(a));
  if (a.use_global_device_ids) w.Bool("use_global_device_ids", *a.use_global_device_ids);
  if (a.constrain_layout) w.Bool("constrain_layout", *a.constrain_layout);
  if (a.is_host_transfer) w.Bool("is_host_transfer", *a.is_host_transfer);
  if (a.has_dynamic_root) w.Bool("has_dynamic_root", *a.has_dynamic_root);
  if (a.has_infeed_config) w.Str("infeed_config", a.infeed_config);
  if (a.has_outfeed_config) w.Str("outfeed_config", a.outfeed_config);
  if (a.outfeed_shape) w.Add("outfeed_shape", a.outfeed_shape->ToString(true));
  if (a.cross_program_prefetch_index) {
    w.Int("cross_program_prefetch_index", *a.cross_program_prefetch_index);
  }
  if (a.has_async_execution_thread) w.Str("async_execution_thread", a.async_execution_thread);
}

}  // namespace

std::string Instruction::AttributesToString() const {
  std::string out;
  AttrWriter w(&out);
  const InstructionAttributes& a = attrs();
  AppendStructureAttributes(a, opcode_, w);
  AppendConvolutionAndDotAttributes(a, w);
  AppendGatherScatterAttributes(a, w);
  AppendOpOptionAttributes(a, opcode_, w);
  AppendCustomCallAndChannelAttributes(a, w);

  AppendCalledComputations(*this, w);

  if (!control_predecessors_.empty()) {
    std::string s = "{";
    for (size_t i = 0; i < control_predecessors_.size(); ++i) {
      if (i) s += ", ";
      s += "%" + control_predecessors_[i]->name();
    }
    w.Add("control-predecessors", s + "}");
  }
  if (a.has_sharding) w.Add("sharding", "{" + a.sharding + "}");
  if (a.has_frontend_attributes) w.Add("frontend_attributes", FrontendAttributesToString(a.frontend_attributes));
  if (a.has_statistics) w.Add("statistics", "{" + a.statistics + "}");
  if (metadata_) w.Add("metadata", "{" + metadata_->ToString() + "}");
  if (a.has_backend_config) {
    if (a.backend_config_is_string) {
      w.Str("backend_config", a.backend_config);
    } else {
      w.Add("backend_config", a.backend_config);
    }
  }
  for (const RawAttribute& raw : a.raw) w.Add(raw.name, raw.value);
  return out;
}

std::string Instruction::ToString() const {
  std::string out = "%" + name_ + " = ";
  shape_.AppendTo(&out, true);
  out += ' ';
  out += OpcodeName(opcode_);
  out += '(';
  if (opcode_ == Opcode::kParameter) {
    out += std::to_string(parameter_number_);
  } else if (opcode_ == Opcode::kConstant) {
    if (literal_elided_ || literal_ == nullptr) {
      out += "{...}";
    } else {
      out += literal_->ToString();
    }
  } else {
    for (size_t i = 0; i < operands_.size(); ++i) {
      if (i) out += ", ";
      out += '%';
      const Instruction* op = operands_[i];
      if (ir_internal::PrintedAsTupleOperand(*op)) {
        out += op->operand(0)->name();
        out += '#';
        out += std::to_string(op->tuple_index());
      } else {
        out += op->name();
      }
    }
  }
  out += ')';
  out += AttributesToString();
  return out;
}

namespace ir_internal {

bool PrintedAsTupleOperand(const Instruction& inst) {
  return inst.attrs().printed_as_tuple_operand && inst.opcode() == Opcode::kGetTupleElement &&
         inst.operand_count() == 1 && inst.parent() != nullptr && inst.parent()->root() != &inst &&
         inst.control_predecessors().empty() && inst.control_successors().empty();
}

std::vector<const Instruction*> TupleOperandElements(const Computation& computation) {
  std::vector<const Instruction*> out;
  std::unordered_set<const Instruction*> seen;
  for (const Instruction* inst : InstructionsInPrintOrder(computation)) {
    for (const Instruction* op : inst->operands()) {
      if (PrintedAsTupleOperand(*op) && seen.insert(op).second) out.push_back(op);
    }
  }
  return out;
}

std::vector<const Instruction*> InstructionsInPrintOrder(const Computation& computation) {
  // Definitions before uses, as XLA's parser needs: the stored order when it already is
  // one (parsed input), else a post order (instructions passes appended). Elements read
  // as `%tuple#i` have no line: they are defined where their tuple is.
  auto defining = [](const Instruction* op) { return PrintedAsTupleOperand(*op) ? op->operand(0) : op; };
  bool ordered = true;
  {
    std::unordered_set<const Instruction*> defined;
    for (const auto& inst : computation.instructions()) {
      if (PrintedAsTupleOperand(*inst)) continue;
      for (const Instruction* op : inst->operands()) ordered = ordered && defined.count(defining(op));
      for (const Instruction* op : inst->control_predecessors()) ordered = ordered && defined.count(op);
      if (!ordered) break;
      defined.insert(inst.get());
    }
  }
  std::vector<const Instruction*> order;
  if (ordered) {
    for (const auto& inst : computation.instructions()) {
      if (!PrintedAsTupleOperand(*inst)) order.push_back(inst.get());
    }
  } else {
    for (const Instruction* inst : computation.PostOrder()) {
      if (!PrintedAsTupleOperand(*inst)) order.push_back(inst);
    }
  }
  return order;
}

}  // namespace ir_internal

namespace {

// The computation's text; `offsets`, when given, learns where it and its instructions
// start in `out`.
void AppendComputation(const Computation& computation, std::string* out,
                       ir_internal::PrintedOffsets* offsets) {
  if (offsets != nullptr) offsets->computations[&computation] = out->size();
  if (computation.is_entry()) *out += "ENTRY ";
  *out += "%" + computation.name() + " (";
  bool first = true;
  for (const Instruction* p : computation.parameters()) {
    if (!p) continue;
    if (!first) *out += ", ";
    first = false;
    *out += p->name() + ": ";
    p->shape().AppendTo(out, false);
  }
  *out += ") -> ";
  if (computation.root()) computation.root()->shape().AppendTo(out, false);
  *out += " {\n";
  for (const Instruction* inst : ir_internal::InstructionsInPrintOrder(computation)) {
    *out += "  ";
    if (inst == computation.root()) *out += "ROOT ";
    if (offsets != nullptr) offsets->instructions[inst] = out->size();
    *out += inst->ToString();
    *out += '\n';
  }
  *out += '}';
  if (!computation.execution_thread().empty()) {
    *out += ", execution_thread=\"" + CEscape(computation.execution_thread()) + "\"";
  }
  *out += '\n';
}

}  // namespace

void Computation::AppendTo(std::string* out) const { AppendComputation(*this, out, nullptr); }

std::string Computation::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

std::string ComputationLayout::ToString() const {
  std::string out = "{(";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i) out += ", ";
    parameters[i].AppendTo(&out, true);
  }
  out += ")->";
  result.AppendTo(&out, true);
  return out + "}";
}

namespace {

// The header line's attributes after the module name, each as ", key=value".
void AppendModuleAttributes(const Module& module, std::string* out) {
  auto add = [&](const std::string& key, const std::string& value) {
    *out += ", " + key + "=" + value;
  };
  if (module.is_scheduled) add("is_scheduled", *module.is_scheduled ? "true" : "false");
  if (module.entry_computation_layout) {
    add("entry_computation_layout", module.entry_computation_layout->ToString());
  }
  if (module.has_input_output_alias) {
    std::string s = "{ ";
    for (size_t i = 0; i < module.input_output_alias.size(); ++i) {
      const InputOutputAlias& a = module.input_output_alias[i];
      if (i) s += ", ";
      s += Braced(a.output_index) + ": (" + std::to_string(a.parameter_number) + ", " +
           Braced(a.parameter_index);
      if (!a.kind.empty()) s += ", " + a.kind;
      s += ")";
    }
    add("input_output_alias", s + " }");
  }
  if (module.has_buffer_donor) {
    std::string s = "{ ";
    for (size_t i = 0; i < module.buffer_donor.size(); ++i) {
      if (i) s += ", ";
      s += "(" + std::to_string(module.buffer_donor[i].parameter_number) + ", " +
           Braced(module.buffer_donor[i].parameter_index) + ")";
    }
    add("buffer_donor", s + " }");
  }
  if (module.alias_passthrough_params) {
    add("alias_passthrough_params", *module.alias_passthrough_params ? "true" : "false");
  }
  if (module.has_allow_spmd_to_parameters) {
    add("allow_spmd_sharding_propagation_to_parameters",
        BoolList(module.allow_spmd_sharding_propagation_to_parameters));
  }
  if (module.has_allow_spmd_to_output) {
    add("allow_spmd_sharding_propagation_to_output",
        BoolList(module.allow_spmd_sharding_propagation_to_output));
  }
  if (module.replica_count) add("replica_count", std::to_string(*module.replica_count));
  if (module.num_partitions) add("num_partitions", std::to_string(*module.num_partitions));
  if (module.has_frontend_attributes) {
    add("frontend_attributes", FrontendAttributesToString(module.frontend_attributes));
  }
  for (const RawAttribute& raw : module.raw_attributes) add(raw.name, raw.value);
}

// The FileNames, FunctionNames, FileLocations and StackFrames tables that
// metadata={stack_frame_id=N} refers to; each is left out when empty.
void AppendStackFrameTables(const StackFrameIndex& index, std::string* out) {
  auto strings = [&](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    *out += title;
    *out += '\n';
    for (size_t i = 0; i < items.size(); ++i) {
      *out += std::to_string(i + 1) + " \"" + CEscape(items[i]) + "\"\n";
    }
    *out += '\n';
  };
  strings("FileNames", index.file_names);
  strings("FunctionNames", index.function_names);
  if (!index.file_locations.empty()) {
    *out += "FileLocations\n";
    for (size_t i = 0; i < index.file_locations.size(); ++i) {
      const auto& l = index.file_locations[i];
      *out += std::to_string(i + 1) + " {file_name_id=" + std::to_string(l.file_name_id) +
              " function_name_id=" + std::to_string(l.function_name_id) +
              " line=" + std::to_string(l.line) + " end_line=" + std::to_string(l.end_line) +
              " column=" + std::to_string(l.column) + " end_column=" + std::to_string(l.end_column) +
              "}\n";
    }
    *out += '\n';
  }
  if (!index.stack_frames.empty()) {
    *out += "StackFrames\n";
    for (size_t i = 0; i < index.stack_frames.size(); ++i) {
      const auto& f = index.stack_frames[i];
      *out += std::to_string(i + 1) + " {file_location_id=" + std::to_string(f.file_location_id) +
              " parent_frame_id=" + std::to_string(f.parent_frame_id) + "}\n";
    }
    *out += '\n';
  }
}

// The computations with callees before callers (XLA's parser resolves names as it
// reads); the stored order when it already is one.
std::vector<const Computation*> CalleesFirst(
    const std::vector<std::unique_ptr<Computation>>& computations) {
  std::vector<const Computation*> order;
  std::unordered_set<const Computation*> placed;
  auto callees_of = [](const Computation* c) {
    std::vector<const Computation*> list;
    for (const auto& inst : c->instructions()) {
      for (const Computation* callee : inst->called_computations()) {
        if (callee) list.push_back(callee);
      }
    }
    return list;
  };
  for (const auto& start : computations) {
    if (placed.count(start.get())) continue;
    // Iterative DFS over called computations, in the order instructions call them.
    std::unordered_set<const Computation*> on_stack;
    std::vector<std::pair<const Computation*, std::vector<const Computation*>>> frames;
    frames.push_back({start.get(), callees_of(start.get())});
    on_stack.insert(start.get());
    std::vector<size_t> next = {0};
    while (!frames.empty()) {
      auto& [comp, list] = frames.back();
      size_t& i = next.back();
      if (i < list.size()) {
        const Computation* callee = list[i++];
        if (!placed.count(callee) && !on_stack.count(callee)) {
          on_stack.insert(callee);
          frames.push_back({callee, callees_of(callee)});
          next.push_back(0);
        }
        continue;
      }
      placed.insert(comp);
      order.push_back(comp);
      on_stack.erase(comp);
      frames.pop_back();
      next.pop_back();
    }
  }
  return order;
}

}  // namespace

namespace ir_internal {

std::vector<const Computation*> ComputationsInPrintOrder(const Module& module) {
  return CalleesFirst(module.computations());
}

std::string PrintModule(const Module& module, PrintedOffsets* offsets) {
  std::string out = "HloModule " + module.name();
  AppendModuleAttributes(module, &out);
  out += "\n\n";
  if (!module.stack_frames.empty()) AppendStackFrameTables(module.stack_frames, &out);
  const std::vector<const Computation*> order = CalleesFirst(module.computations());
  for (size_t i = 0; i < order.size(); ++i) {
    if (i) out += '\n';
    AppendComputation(*order[i], &out, offsets);
  }
  return out;
}

}  // namespace ir_internal

std::string Module::ToString() const { return ir_internal::PrintModule(*this, nullptr); }

void Module::LocateInPrintedText() {
  ir_internal::PrintedOffsets offsets;
  const std::string text = ir_internal::PrintModule(*this, &offsets);
  // Offsets to 1-based line and byte column, as the parser counts them.
  std::vector<size_t> line_starts = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  auto locate = [&](size_t offset) {
    auto next = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
    const size_t line = static_cast<size_t>(next - line_starts.begin());
    return SourceLocation{static_cast<int32_t>(line), static_cast<int32_t>(offset - line_starts[line - 1] + 1)};
  };
  // Every computation and instruction is printed, so each has an offset, except elements
  // printed as `%tuple#i`, which are placed at their tuple's line.
  for (const auto& computation : computations_) {
    computation->set_location(locate(offsets.computations.at(computation.get())));
    for (const auto& instruction : computation->instructions()) {
      auto at = offsets.instructions.find(instruction.get());
      if (at == offsets.instructions.end() && instruction->operand_count() == 1) {
        at = offsets.instructions.find(instruction->operand(0));
      }
      if (at != offsets.instructions.end()) instruction->set_location(locate(at->second));
    }
  }
}

}  // namespace fusebox
