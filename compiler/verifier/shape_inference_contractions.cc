// Shape inference for contractions: dot and convolution.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferDot(const Instruction& ins) {
  const auto& a = ins.attrs();
  if (!a.sparsity.empty()) return NotInferable("sparse dot");
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& lhs = OperandShape(ins, 0);
  const Shape& rhs = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(lhs, "the dot lhs"));
  RETURN_IF_ERROR(ExpectArray(rhs, "the dot rhs"));
  DotDimensionNumbers dnums;
  if (a.dot_dimension_numbers) dnums = *a.dot_dimension_numbers;
  const auto& lb = dnums.lhs_batch_dimensions;
  const auto& rb = dnums.rhs_batch_dimensions;
  const auto& lc = dnums.lhs_contracting_dimensions;
  const auto& rc = dnums.rhs_contracting_dimensions;
  if (lb.size() != rb.size()) {
    return Invalid("dot has ", lb.size(), " lhs batch dimension(s) but ", rb.size(), " rhs");
  }
  if (lc.size() != rc.size()) {
    return Invalid("dot has ", lc.size(), " lhs contracting dimension(s) but ", rc.size(), " rhs");
  }
  std::vector<int64_t> lhs_used = lb, rhs_used = rb;
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  RETURN_IF_ERROR(CheckDimensionList(lhs_used, lhs.rank(), "dot lhs batch+contracting dims"));
  RETURN_IF_ERROR(CheckDimensionList(rhs_used, rhs.rank(), "dot rhs batch+contracting dims"));
  for (size_t i = 0; i < lc.size(); ++i) {
    if (lhs.dimensions(lc[i]) != rhs.dimensions(rc[i])) {
      return Invalid("dot contracting dimensions differ: lhs dimension ", lc[i], " of ", Str(lhs),
                     " is ", lhs.dimensions(lc[i]), " but rhs dimension ", rc[i], " of ", Str(rhs),
                     " is ", rhs.dimensions(rc[i]));
    }
  }
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lhs.dimensions(lb[i]) != rhs.dimensions(rb[i])) {
      return Invalid("dot batch dimensions differ: lhs dimension ", lb[i], " of ", Str(lhs),
                     " vs rhs dimension ", rb[i], " of ", Str(rhs));
    }
  }
  std::vector<int64_t> dims;
  for (int64_t d : lb) dims.push_back(lhs.dimensions(d));
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(lhs_used, i)) dims.push_back(lhs.dimensions(i));
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (!Contains(rhs_used, i)) dims.push_back(rhs.dimensions(i));
  }
  return Shape(DeclaredElementType(ins, lhs.element_type()), dims);
}

StatusOr<Shape> InferConvolution(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& lhs = OperandShape(ins, 0);
  const Shape& rhs = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(lhs, "the convolution input"));
  RETURN_IF_ERROR(ExpectArray(rhs, "the convolution kernel"));
  const auto& a = ins.attrs();
  if (!a.convolution_dimension_numbers) return Invalid("convolution needs dim_labels");
  const ConvolutionDimensionNumbers& d = *a.convolution_dimension_numbers;
  const int64_t spatial = static_cast<int64_t>(d.input_spatial_dimensions.size());
  if (static_cast<int64_t>(d.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(d.output_spatial_dimensions.size()) != spatial) {
    return Invalid("convolution dim_labels=", d.ToString(), " has inconsistent spatial dimensions");
  }
  if (lhs.rank() != spatial + 2 || rhs.rank() != spatial + 2) {
    return Invalid("convolution dim_labels=", d.ToString(), " needs rank ", spatial + 2,
                   " operands, got ", Str(lhs), " and ", Str(rhs));
  }
  std::vector<int64_t> in_dims = {d.input_batch_dimension, d.input_feature_dimension};
  in_dims.insert(in_dims.end(), d.input_spatial_dimensions.begin(),
                 d.input_spatial_dimensions.end());
  std::vector<int64_t> k_dims = {d.kernel_input_feature_dimension,
                                 d.kernel_output_feature_dimension};
  k_dims.insert(k_dims.end(), d.kernel_spatial_dimensions.begin(),
                d.kernel_spatial_dimensions.end());
  std::vector<int64_t> out_dims = {d.output_batch_dimension, d.output_feature_dimension};
  out_dims.insert(out_dims.end(), d.output_spatial_dimensions.begin(),
                  d.output_spatial_dimensions.end());
  RETURN_IF_ERROR(CheckDimensionList(in_dims, lhs.rank(), "convolution input dim_labels"));
  RETURN_IF_ERROR(CheckDimensionList(k_dims, rhs.rank(), "convolution kernel dim_labels"));
  RETURN_IF_ERROR(CheckDimensionList(out_dims, lhs.rank(), "convolution output dim_labels"));

  const int64_t fgc = a.feature_group_count, bgc = a.batch_group_count;
  if (fgc < 1 || bgc < 1) {
    return Invalid("convolution feature_group_count=", fgc, " and batch_group_count=", bgc,
                   " must be positive");
  }
  if (fgc > 1 && bgc > 1) {
    return Invalid("convolution cannot have both feature_group_count and batch_group_count > 1");
  }
  const int64_t batch = lhs.dimensions(d.input_batch_dimension);
  const int64_t in_features = lhs.dimensions(d.input_feature_dimension);
  const int64_t k_in = rhs.dimensions(d.kernel_input_feature_dimension);
  const int64_t k_out = rhs.dimensions(d.kernel_output_feature_dimension);
  if (in_features % fgc != 0) {
    return Invalid("convolution input features (", in_features,
                   ") are not divisible by feature_group_count=", fgc);
  }
  if (in_features / fgc != k_in) {
    return Invalid("convolution input has ", in_features, " features",
                   fgc > 1 ? " / feature_group_count=" + std::to_string(fgc) : std::string(),
                   " but the kernel expects ", k_in, " (input ", Str(lhs), ", kernel ", Str(rhs),
                   ", dim_labels=", d.ToString(), ")");
  }
  if (k_out % fgc != 0) {
    return Invalid("convolution kernel output features (", k_out,
                   ") are not divisible by feature_group_count=", fgc);
  }
  if (batch % bgc != 0) {
    return Invalid("convolution batch (", batch, ") is not divisible by batch_group_count=", bgc);
  }
  if (k_out % bgc != 0) {
    return Invalid("convolution kernel output features (", k_out,
                   ") are not divisible by batch_group_count=", bgc);
  }
  Window window;
  if (a.window) {
    window = *a.window;
  } else {
    for (int64_t i = 0; i < spatial; ++i) {
      WindowDimension w;
      w.size = rhs.dimensions(d.kernel_spatial_dimensions[i]);
      window.dimensions.push_back(w);
    }
  }
  if (static_cast<int64_t>(window.dimensions.size()) != spatial) {
    return Invalid("convolution window has ", window.dimensions.size(),
                   " dimension(s) but dim_labels=", d.ToString(), " has ", spatial,
                   " spatial dimension(s)");
  }
  std::vector<int64_t> dims(lhs.rank(), 0);
  dims[d.output_batch_dimension] = batch / bgc;
  dims[d.output_feature_dimension] = k_out;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = window.dimensions[i];
    const int64_t k = rhs.dimensions(d.kernel_spatial_dimensions[i]);
    if (w.size != k) {
      return Invalid("convolution window size ", w.size, " in spatial dimension ", i,
                     " differs from the kernel's ", k, " (kernel ", Str(rhs), ")");
    }
    ASSIGN_OR_RETURN(int64_t size,
                     WindowOutputSize(lhs.dimensions(d.input_spatial_dimensions[i]), w));
    dims[d.output_spatial_dimensions[i]] = size;
  }
  return Shape(DeclaredElementType(ins, lhs.element_type()), dims);
}

}  // namespace fusebox::shape_inference_internal
