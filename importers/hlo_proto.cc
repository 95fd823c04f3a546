// HLO proto import: detect which message a file holds, decode it with Fusebox's own
// schema (importers/proto/xla_hlo.proto), write the module as HLO text in XLA's
// syntax and parse that with Fusebox's parser.
//
// This file: the module -> HLO text writer (TextWriter) and the public entry points.
// Beside it: hlo_proto_values.cc (element types, shapes, layouts, literals),
// hlo_proto_attributes.cc (attribute text: sharding, replica groups, metadata, the
// opcode attributes' values) and hlo_proto_wire.cc (the wire-level scan of files that
// do not decode, and gzip); hlo_proto_internal.h declares what they share.
#include "importers/hlo_proto.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/attributes.h"
#include "compiler/parser/parser.h"
#include "compiler/support/strings.h"
#include "importers/hlo_proto_internal.h"
#include "importers/module_loader.h"

namespace fusebox::importers {

namespace hlo_proto_internal {

namespace {

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

// ---------------------------------------------------------------------------
// Module -> HLO text
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

  // The attributes particular to an opcode (or to proto fields only some opcodes set),
  // in the order XLA prints them. Each family below is a table of "when, name, text";
  // the texts are spelled in hlo_proto_attributes.cc.
  template <typename Add>
  void WriteOpcodeAttributes(const px::HloInstructionProto& inst,
                             const std::vector<const InstInfo*>& operands, const std::string& where,
                             Add&& add) {
    WriteStructureAttributes(inst, add);
    WriteConvolutionAndDotAttributes(inst, where, add);
    WriteGatherScatterAttributes(inst, add);
    WriteOpOptionAttributes(inst, operands, add);
    WriteCallAndTransferAttributes(inst, where, add);
  }

  // Custom-call target, parameter replication, dimensions, tuple index, collectives'
  // channel and groups, slices, padding and window.
  template <typename Add>
  void WriteStructureAttributes(const px::HloInstructionProto& inst, Add&& add) {
    const std::string& op = inst.opcode();
    if (op == "custom-call") add("custom_call_target", Quoted(inst.custom_call_target()));
    if (op == "parameter" && inst.parameter_replication().replicated_at_leaf_buffers_size() > 0) {
      add("parameter_replication", ParameterReplicationText(inst));
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
    if (op == "slice" || inst.slice_dimensions_size() > 0) add("slice", SliceText(inst));
    if (op == "dynamic-slice" || inst.dynamic_slice_sizes_size() > 0) {
      add("dynamic_slice_sizes", Braced(inst.dynamic_slice_sizes()));
    }
    if (inst.padding_config().dimensions_size() > 0) add("padding", PaddingText(inst));
    if (inst.window().dimensions_size() > 0) add("window", WindowText(inst));
  }

  // Convolution dimension labels and group counts, dot and ragged-dot dimensions,
  // operand precision and algorithm.
  template <typename Add>
  void WriteConvolutionAndDotAttributes(const px::HloInstructionProto& inst,
                                        const std::string& where, Add&& add) {
    const std::string& op = inst.opcode();
    if (op == "convolution" || (op == "custom-call" && inst.has_convolution_dimension_numbers())) {
      add("dim_labels", DimLabelsText(inst));
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
    if (HasOperandPrecision(inst)) add("operand_precision", OperandPrecisionText(inst));
    if (inst.precision_config().algorithm() != px::PrecisionConfig::ALG_UNSET)
      add("algorithm", AlgorithmText(inst.precision_config().algorithm()));
  }

  // Gather and scatter dimension numbers and their index flags.
  template <typename Add>
  void WriteGatherScatterAttributes(const px::HloInstructionProto& inst, Add&& add) {
    const std::string& op = inst.opcode();
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
  }

  // Options of single opcodes: compare, fusion, rng, reduce-precision, batch norm, fft,
  // triangular solve, cholesky, sort, topk.
  template <typename Add>
  void WriteOpOptionAttributes(const px::HloInstructionProto& inst,
                               const std::vector<const InstInfo*>& operands, Add&& add) {
    const std::string& op = inst.opcode();
    if (op == "compare") {
      add("direction", inst.comparison_direction());
      // XLA leaves the comparison type out when it is the default for the operands.
      std::optional<ComparisonType> type = ParseComparisonType(inst.comparison_type());
      bool is_default = !operands.empty() && operands[0]->shape.IsArray() && type &&
                        *type == DefaultComparisonType(operands[0]->shape.element_type());
      if (!inst.comparison_type().empty() && !is_default) add("type", inst.comparison_type());
    }
    if (op == "fusion" && !inst.fusion_kind().empty()) add("kind", inst.fusion_kind());
    if (op == "rng") add("distribution", LowerCase(px::RandomDistribution_Name(inst.distribution())));
    if (op == "rng-bit-generator") {
      add("algorithm", LowerCase(px::RandomAlgorithm_Name(inst.rng_algorithm())));
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
  }

  // Custom-call options and layouts, aliasing, collective-permute pairs, host
  // transfers, infeed and outfeed, prefetch, async threads and sharding domains.
  template <typename Add>
  void WriteCallAndTransferAttributes(const px::HloInstructionProto& inst,
                                      const std::string& where, Add&& add) {
    const std::string& op = inst.opcode();
    if (op == "custom-call") {
      if (inst.custom_call_api_version() != px::API_VERSION_ORIGINAL &&
          inst.custom_call_api_version() != px::API_VERSION_UNSPECIFIED) {
        add("api_version", px::CustomCallApiVersion_Name(inst.custom_call_api_version()));
      }
      if (inst.custom_call_has_side_effect()) add("custom_call_has_side_effect", "true");
      if (inst.constrain_layout()) add("operand_layout_constraints", OperandLayoutsText(inst));
      if (inst.custom_call_schedule() != px::SCHEDULE_NONE) {
        add("schedule", px::CustomCallSchedule_Name(inst.custom_call_schedule()));
      }
    } else if (inst.constrain_layout()) {
      add("constrain_layout", "true");
    }
    if (inst.output_operand_aliasing_size() > 0) {
      add("output_to_operand_aliasing", OutputOperandAliasingText(inst));
    }
    if (inst.padding_type() != px::PADDING_INVALID)
      add("padding_type", px::PaddingType_Name(inst.padding_type()));
    if (OneOf(op, {"collective-permute", "collective-permute-start"}) ||
        inst.source_target_pairs_size() > 0) {
      add("source_target_pairs", SourceTargetPairsText(inst));
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
      std::string text;
      if (DomainText(inst, &text)) {
        add("domain", text);
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

}  // namespace
}  // namespace hlo_proto_internal

namespace px = ::fusebox::xla;
using hlo_proto_internal::DiagnoseUndecodable;
using hlo_proto_internal::LiteralWithShape;
using hlo_proto_internal::ShapeFromProto;
using hlo_proto_internal::TextWriter;

// ---------------------------------------------------------------------------
// Public entry points
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

}  // namespace fusebox::importers
