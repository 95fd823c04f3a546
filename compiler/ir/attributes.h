// Typed opcode-specific attributes of HLO instructions (window, convolution and dot
// dimension numbers, gather/scatter dimension numbers, slices, padding, comparison,
// fusion kind, collectives, ...) and the generic attributes any instruction may carry
// (metadata, backend_config, sharding, frontend attributes, ...). Each knows its text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/shape.h"

namespace fusebox {

// --- window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // rhs_dilate
  int64_t base_dilation = 1;    // lhs_dilate
  bool window_reversal = false;
  bool operator==(const WindowDimension&) const = default;
};
struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window&) const = default;
  std::string ToString() const;  // the text inside window={...}
};

// --- dim_labels=b01f_01io->b01f
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 0;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 0;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 0;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
  std::string ToString() const;  // "b01f_01io->b01f"
};

// --- lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

// --- ragged-dot: lhs_ragged_dims={1}, rhs_group_dims={0} (plus dot dims)
struct RaggedDotDimensionNumbers {
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;
  bool operator==(const RaggedDotDimensionNumbers&) const = default;
};

// --- operand_precision={default,high}, algorithm=dot_bf16_bf16_f32
enum class Precision : uint8_t { kDefault, kHigh, kHighest, kPackedNibble };
std::string_view PrecisionName(Precision p);
std::optional<Precision> ParsePrecision(std::string_view text);

// --- gather: offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
// start_indices_batching_dims, index_vector_dim, slice_sizes, indices_are_sorted
struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

// --- scatter: update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
// input_batching_dims, scatter_indices_batching_dims, index_vector_dim
struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  int64_t index_vector_dim = 0;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

// --- slice={[0:10:2], [3:4]}
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension&) const = default;
};

// --- padding=0_0_0x1_1_2 (low_high[_interior] per dimension)
struct PaddingDimension {
  int64_t low = 0;
  int64_t high = 0;
  int64_t interior = 0;
  bool operator==(const PaddingDimension&) const = default;
};
std::string PaddingToString(const std::vector<PaddingDimension>& padding);

// --- compare: direction=LT, type=TOTALORDER
enum class ComparisonDirection : uint8_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : uint8_t { kFloat, kTotalOrder, kSigned, kUnsigned, kPartialOrder };
std::string_view ComparisonDirectionName(ComparisonDirection d);
std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view text);
std::string_view ComparisonTypeName(ComparisonType t);
std::optional<ComparisonType> ParseComparisonType(std::string_view text);
// The comparison type XLA uses by default for an operand element type.
ComparisonType DefaultComparisonType(PrimitiveType type);

// --- fusion kind=kLoop
enum class FusionKind : uint8_t { kLoop, kInput, kOutput, kCustom };
std::string_view FusionKindName(FusionKind k);
std::optional<FusionKind> ParseFusionKind(std::string_view text);

// --- rng distribution=rng_uniform, rng-bit-generator algorithm=rng_philox
enum class RandomDistribution : uint8_t { kUniform, kNormal };
enum class RandomAlgorithm : uint8_t { kDefault, kThreeFry, kPhilox };
std::string_view RandomDistributionName(RandomDistribution d);
std::optional<RandomDistribution> ParseRandomDistribution(std::string_view text);
std::string_view RandomAlgorithmName(RandomAlgorithm a);
std::optional<RandomAlgorithm> ParseRandomAlgorithm(std::string_view text);

// --- fft fft_type=FFT fft_length={8}
enum class FftType : uint8_t { kFft, kIfft, kRfft, kIrfft };
std::string_view FftTypeName(FftType t);
std::optional<FftType> ParseFftType(std::string_view text);

// --- triangular-solve: left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
enum class TransposeA : uint8_t { kNoTranspose, kTranspose, kAdjoint };
std::string_view TransposeAName(TransposeA t);
std::optional<TransposeA> ParseTransposeA(std::string_view text);

// --- custom-call api_version=API_VERSION_STATUS_RETURNING
enum class CustomCallApiVersion : uint8_t {
  kUnspecified, kOriginal, kStatusReturning, kStatusReturningUnified, kTypedFfi
};
std::string_view CustomCallApiVersionName(CustomCallApiVersion v);
std::optional<CustomCallApiVersion> ParseCustomCallApiVersion(std::string_view text);

// --- replica_groups={{0,1},{2,3}} or the iota form [2,2]<=[4] / [2,2]<=[2,2]T(1,0)
struct ReplicaGroups {
  bool iota = false;
  std::vector<std::vector<int64_t>> groups;   // explicit form
  std::vector<int64_t> iota_group_shape;      // [groups, group size]
  std::vector<int64_t> iota_reshape_dims;     // <=[...]
  std::vector<int64_t> iota_transpose_perm;   // T(...), empty if none
  std::string raw;                            // other spellings (mesh[...]), verbatim
  bool operator==(const ReplicaGroups&) const = default;
  std::string ToString() const;
};

// --- output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {2})}
struct OutputOperandAlias {
  std::vector<int64_t> output_index;
  int64_t operand_number = 0;
  std::vector<int64_t> operand_index;
  bool operator==(const OutputOperandAlias&) const = default;
};

// --- metadata={op_type="Add" op_name="a/b" source_file="x.py" source_line=3 ...}
struct OpMetadata {
  std::string op_type;
  std::string op_name;
  std::string source_file;
  int64_t source_line = 0;
  int64_t source_end_line = 0;
  int64_t source_column = 0;
  int64_t source_end_column = 0;
  int64_t stack_frame_id = 0;
  std::string deduplicated_name;
  std::string scheduling_name;
  bool preserve_layout = false;
  std::vector<std::pair<std::string, std::string>> extra;  // keys we do not model, raw
  bool empty() const;
  bool operator==(const OpMetadata&) const = default;
  std::string ToString() const;  // the text inside metadata={...}
};

// A named attribute whose value Fusebox keeps as raw text (sharding, domain, unknown
// attributes). The text is exactly what follows `name=` in the source.
struct RawAttribute {
  std::string name;
  std::string value;
  bool operator==(const RawAttribute&) const = default;
};

// Every attribute an instruction may carry beyond its name, shape, opcode and operands.
// Allocated only for instructions that have any. Field groups follow the opcodes that use
// them; `has_*` flags record presence where an empty value is meaningful.
struct InstructionAttributes {
  // Shared by many opcodes.
  std::optional<std::vector<int64_t>> dimensions;  // dimensions={...}
  std::optional<Window> window;
  std::optional<ConvolutionDimensionNumbers> convolution_dimension_numbers;  // dim_labels
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
  std::optional<DotDimensionNumbers> dot_dimension_numbers;
  std::optional<RaggedDotDimensionNumbers> ragged_dot_dimension_numbers;
  std::vector<Precision> operand_precision;
  std::string dot_algorithm;                     // algorithm= on dot (raw enum text)
  std::string sparsity;                          // sparsity= on dot, raw
  std::vector<SliceDimension> slice;             // slice=
  std::vector<int64_t> dynamic_slice_sizes;      // dynamic_slice_sizes=
  std::vector<PaddingDimension> padding;         // padding= on pad
  std::optional<GatherDimensionNumbers> gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;       // slice_sizes= on gather
  std::optional<ScatterDimensionNumbers> scatter_dimension_numbers;
  bool indices_are_sorted = false;
  bool unique_indices = false;
  std::optional<ComparisonDirection> comparison_direction;
  std::optional<ComparisonType> comparison_type;  // present only if given
  std::optional<FusionKind> fusion_kind;
  int64_t tuple_index = -1;       // index= on get-tuple-element
  int64_t iota_dimension = -1;    // iota_dimension=
  std::optional<RandomDistribution> distribution;
  std::optional<RandomAlgorithm> rng_algorithm;
  int64_t rng_delta = 0;          // delta= on rng-get-and-update-state
  int64_t exponent_bits = -1;     // reduce-precision
  int64_t mantissa_bits = -1;
  std::optional<double> epsilon;  // batch-norm
  int64_t feature_index = -1;
  std::optional<FftType> fft_type;
  std::vector<int64_t> fft_length;
  std::optional<bool> left_side, lower, unit_diagonal;  // triangular-solve, cholesky
  std::optional<TransposeA> transpose_a;
  std::optional<bool> is_stable;   // sort
  int64_t k = -1;                  // topk
  std::optional<bool> largest;
  // Scan.
  int64_t num_carries = -1;
  std::optional<bool> is_reverse, is_associative;
  // Parameters.
  std::vector<bool> parameter_replication;
  bool has_parameter_replication = false;
  // Custom calls.
  std::string custom_call_target;
  bool has_custom_call_target = false;
  std::optional<CustomCallApiVersion> api_version;
  bool custom_call_has_side_effect = false;
  std::vector<OutputOperandAlias> output_to_operand_aliasing;
  bool has_output_to_operand_aliasing = false;
  std::vector<Shape> operand_layout_constraints;
  bool has_operand_layout_constraints = false;
  std::string custom_call_schedule;  // SCHEDULE_LATEST, raw
  std::string padding_type;          // PADDING_VALID, raw
  // Collectives and communication.
  std::optional<int64_t> channel_id;
  std::optional<ReplicaGroups> replica_groups;
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  bool has_source_target_pairs = false;
  std::optional<bool> use_global_device_ids, constrain_layout, is_host_transfer;
  std::optional<bool> has_dynamic_root;
  std::vector<std::vector<int64_t>> slice_sizes_list;  // collective-permute in-place
  std::string infeed_config, outfeed_config;
  bool has_infeed_config = false, has_outfeed_config = false;
  std::optional<Shape> outfeed_shape;
  std::optional<int64_t> cross_program_prefetch_index;
  std::string async_execution_thread;  // async_execution_thread="..."
  bool has_async_execution_thread = false;
  // A get-tuple-element read from its users' operand lists as `%tuple#i` (newer XLA's
  // text has no line of its own for it): printed the same way, not as an instruction.
  bool printed_as_tuple_operand = false;

  // Generic attributes (any instruction). Metadata lives on the Instruction itself, as
  // nearly every instruction of a real dump has it and nothing else.
  std::string backend_config;        // verbatim text (JSON or string content)
  bool has_backend_config = false;
  bool backend_config_is_string = false;  // backend_config="..." vs backend_config={...}
  std::string sharding;              // verbatim, inside the braces
  bool has_sharding = false;
  std::vector<std::pair<std::string, std::string>> frontend_attributes;
  bool has_frontend_attributes = false;
  std::string statistics;            // verbatim, inside the braces
  bool has_statistics = false;
  // Attributes kept as raw text: origin, result_accuracy, domain, literal (on custom-call)
  // and any attribute Fusebox does not know (reported by the verifier as a warning).
  std::vector<RawAttribute> raw;
};

}  // namespace fusebox
