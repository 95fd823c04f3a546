// What the pieces of the HLO proto importer share (hlo_proto.cc, hlo_proto_values.cc,
// hlo_proto_attributes.cc, hlo_proto_wire.cc). Not for use outside importers/hlo_proto*.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/ir/attributes.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/shape.h"
#include "compiler/support/status.h"
#include "importers/proto/xla_hlo.pb.h"

namespace fusebox::importers::hlo_proto_internal {

namespace px = ::fusebox::xla;

// Shapes and literals nest; past this depth a file is rejected rather than recursed into.
constexpr int kMaxDepth = 64;

// --- Values (hlo_proto_values.cc) ---

StatusOr<Shape> ShapeFromProto(const px::ShapeProto& proto, int depth = 0);

// The literal of `proto` with shape `shape`; nullopt when it carries no values.
StatusOr<std::optional<Literal>> LiteralWithShape(const px::LiteralProto& proto,
                                                  const Shape& shape);

// --- Attribute text (hlo_proto_attributes.cc) ---

bool IsValidName(const std::string& name);
std::string Braced(const google::protobuf::RepeatedField<int64_t>& values);
std::string Quoted(const std::string& s);
// Frontend attributes sorted by key, as XLA prints its map.
std::string FrontendAttributesText(const px::FrontendAttributes& attrs);
OpMetadata MetadataFromProto(const px::OpMetadata& p);
// The text inside `sharding={...}`; false for forms Fusebox does not spell.
bool ShardingText(const px::OpSharding& s, int depth, std::string* out, bool* had_metadata);
ReplicaGroups ReplicaGroupsFromProto(const px::HloInstructionProto& inst);
// "ALG_DOT_BF16_BF16_F32" -> "dot_bf16_bf16_f32".
std::string AlgorithmText(int algorithm);
bool OneOf(const std::string& op, std::initializer_list<std::string_view> names);

// Values of opcode attributes, as TextWriter::WriteOpcodeAttributes writes them.
std::string LowerCase(std::string name);
std::string ParameterReplicationText(const px::HloInstructionProto& inst);
std::string SliceText(const px::HloInstructionProto& inst);
std::string PaddingText(const px::HloInstructionProto& inst);
std::string WindowText(const px::HloInstructionProto& inst);
std::string DimLabelsText(const px::HloInstructionProto& inst);
// Whether any operand has a precision other than DEFAULT.
bool HasOperandPrecision(const px::HloInstructionProto& inst);
std::string OperandPrecisionText(const px::HloInstructionProto& inst);
std::string OperandLayoutsText(const px::HloInstructionProto& inst);
std::string OutputOperandAliasingText(const px::HloInstructionProto& inst);
std::string SourceTargetPairsText(const px::HloInstructionProto& inst);
// `{kind="sharding", entry={...}, exit={...}}`; false when a sharding has no spelling.
bool DomainText(const px::HloInstructionProto& inst, std::string* out);

// --- Bytes (hlo_proto_wire.cc) ---

// Explains why `bytes` did not decode: a truncated module (with what survives) or
// bytes that are not an HLO proto.
Status DiagnoseUndecodable(std::string_view bytes, const std::string& filename);

}  // namespace fusebox::importers::hlo_proto_internal
