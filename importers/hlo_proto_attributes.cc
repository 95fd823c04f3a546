// HLO proto import, attribute text: names, sharding, replica groups, metadata, and the
// values of the opcode attributes the text writer lists.
#include <algorithm>
#include <cctype>
#include <map>

#include "compiler/support/strings.h"
#include "importers/hlo_proto_internal.h"

namespace fusebox::importers::hlo_proto_internal {

namespace {

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

}  // namespace

// ---------------------------------------------------------------------------
// Attribute text
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
// Values of opcode attributes (TextWriter::WriteOpcodeAttributes lists which)
// ---------------------------------------------------------------------------

std::string LowerCase(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

std::string ParameterReplicationText(const px::HloInstructionProto& inst) {
  std::string s = "{";
  for (int i = 0; i < inst.parameter_replication().replicated_at_leaf_buffers_size(); ++i) {
    if (i) s += ",";
    s += inst.parameter_replication().replicated_at_leaf_buffers(i) ? "true" : "false";
  }
  return s + "}";
}

std::string SliceText(const px::HloInstructionProto& inst) {
  std::string s = "{";
  for (int i = 0; i < inst.slice_dimensions_size(); ++i) {
    const auto& d = inst.slice_dimensions(i);
    if (i) s += ", ";
    s += "[" + std::to_string(d.start()) + ":" + std::to_string(d.limit());
    if (d.stride() != 1) s += ":" + std::to_string(d.stride());
    s += "]";
  }
  return s + "}";
}

std::string PaddingText(const px::HloInstructionProto& inst) {
  std::vector<PaddingDimension> padding;
  for (const auto& d : inst.padding_config().dimensions()) {
    padding.push_back({d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
  }
  return PaddingToString(padding);
}

std::string WindowText(const px::HloInstructionProto& inst) {
  Window window;
  for (const auto& d : inst.window().dimensions()) {
    window.dimensions.push_back({d.size(), d.stride(), d.padding_low(), d.padding_high(),
                                 d.window_dilation(), d.base_dilation(), d.window_reversal()});
  }
  return "{" + window.ToString() + "}";
}

std::string DimLabelsText(const px::HloInstructionProto& inst) {
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
  return dn.ToString();
}

bool HasOperandPrecision(const px::HloInstructionProto& inst) {
  bool any_precision = false;
  for (int p : inst.precision_config().operand_precision())
    any_precision = any_precision || p != px::PrecisionConfig::DEFAULT;
  return any_precision;
}

std::string OperandPrecisionText(const px::HloInstructionProto& inst) {
  const auto& precision = inst.precision_config();
  std::string s = "{";
  for (int i = 0; i < precision.operand_precision_size(); ++i) {
    if (i) s += ",";
    std::string name =
        LowerCase(px::PrecisionConfig::Precision_Name(precision.operand_precision(i)));
    s += name.empty() ? "default" : name;
  }
  return s + "}";
}

std::string OperandLayoutsText(const px::HloInstructionProto& inst) {
  std::string s = "{";
  for (int i = 0; i < inst.operand_shapes_with_layout_size(); ++i) {
    StatusOr<Shape> shape = ShapeFromProto(inst.operand_shapes_with_layout(i));
    if (i) s += ", ";
    s += shape.ok() ? shape->ToString(true) : "()";
  }
  return s + "}";
}

std::string OutputOperandAliasingText(const px::HloInstructionProto& inst) {
  std::string s = "{";
  for (int i = 0; i < inst.output_operand_aliasing_size(); ++i) {
    const auto& a = inst.output_operand_aliasing(i);
    if (i) s += ", ";
    s += Braced(a.output_shape_index()) + ": (" + std::to_string(a.operand_index()) + ", " +
         Braced(a.operand_shape_index()) + ")";
  }
  return s + "}";
}

std::string SourceTargetPairsText(const px::HloInstructionProto& inst) {
  std::string s = "{";
  for (int i = 0; i < inst.source_target_pairs_size(); ++i) {
    if (i) s += ",";
    s += "{" + std::to_string(inst.source_target_pairs(i).source()) + "," +
         std::to_string(inst.source_target_pairs(i).target()) + "}";
  }
  return s + "}";
}

bool DomainText(const px::HloInstructionProto& inst, std::string* out) {
  bool metadata = false;
  std::string entry, exit;
  if (!ShardingText(inst.domain_entry_sharding(), 0, &entry, &metadata) ||
      !ShardingText(inst.domain_exit_sharding(), 0, &exit, &metadata)) {
    return false;
  }
  *out = "{kind=\"sharding\", entry={" + entry + "}, exit={" + exit + "}}";
  return true;
}

}  // namespace fusebox::importers::hlo_proto_internal
