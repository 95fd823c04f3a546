// Names and text forms of the typed instruction attributes.
#include "compiler/ir/attributes.h"

#include "compiler/support/strings.h"

namespace fusebox {

namespace {
template <typename E, size_t N>
std::optional<E> LookupName(const std::string_view (&names)[N], std::string_view text) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return std::nullopt;
}

constexpr std::string_view kPrecisionNames[] = {"default", "high", "highest", "packed_nibble"};
constexpr std::string_view kDirectionNames[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
constexpr std::string_view kComparisonTypeNames[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED",
                                                     "PARTIALORDER"};
constexpr std::string_view kFusionKindNames[] = {"kLoop", "kInput", "kOutput", "kCustom"};
constexpr std::string_view kDistributionNames[] = {"rng_uniform", "rng_normal"};
constexpr std::string_view kRngAlgorithmNames[] = {"rng_default", "rng_three_fry", "rng_philox"};
constexpr std::string_view kFftTypeNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
constexpr std::string_view kTransposeANames[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
constexpr std::string_view kApiVersionNames[] = {
    "API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
    "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"};

std::string JoinDims(const std::vector<int64_t>& dims, char sep) {
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += sep;
    out += std::to_string(dims[i]);
  }
  return out;
}
}  // namespace

std::string_view PrecisionName(Precision p) { return kPrecisionNames[static_cast<int>(p)]; }
std::optional<Precision> ParsePrecision(std::string_view text) {
  if (text == "DEFAULT") return Precision::kDefault;
  if (text == "HIGH") return Precision::kHigh;
  if (text == "HIGHEST") return Precision::kHighest;
  if (text == "PACKED_NIBBLE") return Precision::kPackedNibble;
  return LookupName<Precision>(kPrecisionNames, text);
}

std::string_view ComparisonDirectionName(ComparisonDirection d) {
  return kDirectionNames[static_cast<int>(d)];
}
std::optional<ComparisonDirection> ParseComparisonDirection(std::string_view text) {
  return LookupName<ComparisonDirection>(kDirectionNames, text);
}
std::string_view ComparisonTypeName(ComparisonType t) {
  return kComparisonTypeNames[static_cast<int>(t)];
}
std::optional<ComparisonType> ParseComparisonType(std::string_view text) {
  return LookupName<ComparisonType>(kComparisonTypeNames, text);
}
ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (IsFloat(type) || IsComplex(type)) return ComparisonType::kFloat;
  if (IsSignedInt(type)) return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;  // unsigned and pred
}

std::string_view FusionKindName(FusionKind k) { return kFusionKindNames[static_cast<int>(k)]; }
std::optional<FusionKind> ParseFusionKind(std::string_view text) {
  return LookupName<FusionKind>(kFusionKindNames, text);
}

std::string_view RandomDistributionName(RandomDistribution d) {
  return kDistributionNames[static_cast<int>(d)];
}
std::optional<RandomDistribution> ParseRandomDistribution(std::string_view text) {
  return LookupName<RandomDistribution>(kDistributionNames, text);
}
std::string_view RandomAlgorithmName(RandomAlgorithm a) {
  return kRngAlgorithmNames[static_cast<int>(a)];
}
std::optional<RandomAlgorithm> ParseRandomAlgorithm(std::string_view text) {
  return LookupName<RandomAlgorithm>(kRngAlgorithmNames, text);
}

std::string_view FftTypeName(FftType t) { return kFftTypeNames[static_cast<int>(t)]; }
std::optional<FftType> ParseFftType(std::string_view text) {
  return LookupName<FftType>(kFftTypeNames, text);
}

std::string_view TransposeAName(TransposeA t) { return kTransposeANames[static_cast<int>(t)]; }
std::optional<TransposeA> ParseTransposeA(std::string_view text) {
  return LookupName<TransposeA>(kTransposeANames, text);
}

std::string_view CustomCallApiVersionName(CustomCallApiVersion v) {
  return kApiVersionNames[static_cast<int>(v)];
}
std::optional<CustomCallApiVersion> ParseCustomCallApiVersion(std::string_view text) {
  return LookupName<CustomCallApiVersion>(kApiVersionNames, text);
}

std::string Window::ToString() const {
  if (dimensions.empty()) return "";
  auto field = [&](const char* name, auto get, auto is_default, std::string* out, bool always) {
    bool any = always;
    for (const auto& d : dimensions) any = any || !is_default(d);
    if (!any) return;
    if (!out->empty()) *out += ' ';
    *out += name;
    *out += '=';
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (i) *out += 'x';
      *out += get(dimensions[i]);
    }
  };
  std::string out;
  field("size", [](const WindowDimension& d) { return std::to_string(d.size); },
        [](const WindowDimension&) { return true; }, &out, true);
  field("stride", [](const WindowDimension& d) { return std::to_string(d.stride); },
        [](const WindowDimension& d) { return d.stride == 1; }, &out, false);
  field("pad",
        [](const WindowDimension& d) {
          return std::to_string(d.padding_low) + "_" + std::to_string(d.padding_high);
        },
        [](const WindowDimension& d) { return d.padding_low == 0 && d.padding_high == 0; }, &out,
        false);
  field("lhs_dilate", [](const WindowDimension& d) { return std::to_string(d.base_dilation); },
        [](const WindowDimension& d) { return d.base_dilation == 1; }, &out, false);
  field("rhs_dilate", [](const WindowDimension& d) { return std::to_string(d.window_dilation); },
        [](const WindowDimension& d) { return d.window_dilation == 1; }, &out, false);
  field("rhs_reversal",
        [](const WindowDimension& d) { return std::string(d.window_reversal ? "1" : "0"); },
        [](const WindowDimension& d) { return !d.window_reversal; }, &out, false);
  return out;
}

std::string ConvolutionDimensionNumbers::ToString() const {
  auto labels = [](size_t rank, std::initializer_list<std::pair<int64_t, char>> named,
                   const std::vector<int64_t>& spatial) {
    std::string s(rank, '?');
    for (auto [dim, c] : named) {
      if (dim >= 0 && static_cast<size_t>(dim) < rank) s[dim] = c;
    }
    for (size_t i = 0; i < spatial.size(); ++i) {
      int64_t dim = spatial[i];
      if (dim >= 0 && static_cast<size_t>(dim) < rank) s[dim] = static_cast<char>('0' + i);
    }
    return s;
  };
  size_t rank = input_spatial_dimensions.size() + 2;
  return labels(rank, {{input_batch_dimension, 'b'}, {input_feature_dimension, 'f'}},
                input_spatial_dimensions) +
         "_" +
         labels(rank, {{kernel_input_feature_dimension, 'i'}, {kernel_output_feature_dimension, 'o'}},
                kernel_spatial_dimensions) +
         "->" +
         labels(rank, {{output_batch_dimension, 'b'}, {output_feature_dimension, 'f'}},
                output_spatial_dimensions);
}

std::string PaddingToString(const std::vector<PaddingDimension>& padding) {
  std::string out;
  for (size_t i = 0; i < padding.size(); ++i) {
    if (i) out += 'x';
    const PaddingDimension& p = padding[i];
    out += std::to_string(p.low) + "_" + std::to_string(p.high);
    if (p.interior != 0) out += "_" + std::to_string(p.interior);
  }
  return out;
}

std::string ReplicaGroups::ToString() const {
  if (!raw.empty()) return raw;
  if (iota) {
    std::string out = "[" + JoinDims(iota_group_shape, ',') + "]<=[" +
                      JoinDims(iota_reshape_dims, ',') + "]";
    if (!iota_transpose_perm.empty()) out += "T(" + JoinDims(iota_transpose_perm, ',') + ")";
    return out;
  }
  std::string out = "{";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (i) out += ',';
    out += "{" + JoinDims(groups[i], ',') + "}";
  }
  out += "}";
  return out;
}

bool OpMetadata::empty() const {
  return op_type.empty() && op_name.empty() && source_file.empty() && source_line == 0 &&
         source_end_line == 0 && source_column == 0 && source_end_column == 0 &&
         stack_frame_id == 0 && deduplicated_name.empty() && scheduling_name.empty() &&
         !preserve_layout && extra.empty();
}

std::string OpMetadata::ToString() const {
  std::string out;
  auto add = [&](const std::string& piece) {
    if (!out.empty()) out += ' ';
    out += piece;
  };
  auto str = [&](const char* key, const std::string& value) {
    if (!value.empty()) add(std::string(key) + "=\"" + CEscape(value) + "\"");
  };
  auto num = [&](const char* key, int64_t value) {
    if (value != 0) add(std::string(key) + "=" + std::to_string(value));
  };
  str("op_type", op_type);
  str("op_name", op_name);
  str("source_file", source_file);
  num("source_line", source_line);
  num("source_end_line", source_end_line);
  num("source_column", source_column);
  num("source_end_column", source_end_column);
  str("deduplicated_name", deduplicated_name);
  if (preserve_layout) add("preserve_layout=true");
  num("stack_frame_id", stack_frame_id);
  str("scheduling_name", scheduling_name);
  for (const auto& [key, value] : extra) add(key + "=" + value);
  return out;
}

}  // namespace fusebox
