// Reference dot and convolution: both operands converted to the result element type,
// accumulated at the result type's full precision (float, double, complex or wrapping
// 64-bit integers) and rounded once; see ops_reduction_linalg.cc for the order contract.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "compiler/ir/library_calls.h"
#include "compiler/interpreter/reduction_linalg_internal.h"

namespace fusebox::interpreter {
namespace reduction_linalg_internal {
namespace {

// ===========================================================================
// Accumulators shared by dot and convolution
// ===========================================================================

// Operand element `i` converted to the result element type, as the accumulator type T.
template <typename T>
T LoadAs(const Literal& lit, int64_t i, PrimitiveType result_type);

template <>
float LoadAs<float>(const Literal& lit, int64_t i, PrimitiveType result_type) {
  const double v = lit.GetDouble(i);
  return static_cast<float>(
      lit.shape().element_type() == result_type ? v : RoundToType(result_type, v));
}
template <>
double LoadAs<double>(const Literal& lit, int64_t i, PrimitiveType) {
  return lit.GetDouble(i);
}
template <>
std::complex<float> LoadAs<std::complex<float>>(const Literal& lit, int64_t i, PrimitiveType) {
  const Complex v = lit.GetComplex(i);
  return {static_cast<float>(v.real()), static_cast<float>(v.imag())};
}
template <>
Complex LoadAs<Complex>(const Literal& lit, int64_t i, PrimitiveType) {
  return lit.GetComplex(i);
}
template <>
uint64_t LoadAs<uint64_t>(const Literal& lit, int64_t i, PrimitiveType result_type) {
  // Integer to integer needs no conversion: the 64-bit value is congruent to the
  // converted one modulo 2^width, and sums and products are computed modulo 2^64 and
  // wrapped to the result width when stored.
  const PrimitiveType from = lit.shape().element_type();
  if (from == result_type || (IsInteger(from) && IsInteger(result_type))) {
    return LoadIntBits(lit, i);
  }
  // Otherwise (floats, pred) convert through a scalar of the result type.
  Literal scalar(Shape::Scalar(result_type));
  CopyElement(lit, i, scalar, 0);
  return LoadIntBits(scalar, 0);
}

// The whole operand converted, in its own row-major order.
template <typename T>
std::vector<T> LoadAll(const Literal& lit, PrimitiveType result_type) {
  std::vector<T> out(static_cast<size_t>(lit.element_count()));
  if constexpr (std::is_same_v<T, float>) {
    if (lit.shape().element_type() == PrimitiveType::kF32 && result_type == PrimitiveType::kF32) {
      // (An empty operand has no data pointer: memcpy from null is undefined even for 0 bytes.)
      if (!out.empty()) std::memcpy(out.data(), lit.untyped_data(), out.size() * sizeof(float));
      return out;
    }
  }
  for (int64_t i = 0; i < lit.element_count(); ++i) out[i] = LoadAs<T>(lit, i, result_type);
  return out;
}

inline void StoreAcc(Literal& out, int64_t i, float v) { out.SetDouble(i, v); }
inline void StoreAcc(Literal& out, int64_t i, double v) { out.SetDouble(i, v); }
inline void StoreAcc(Literal& out, int64_t i, std::complex<float> v) {
  out.SetComplex(i, Complex(v.real(), v.imag()));
}
inline void StoreAcc(Literal& out, int64_t i, Complex v) { out.SetComplex(i, v); }
inline void StoreAcc(Literal& out, int64_t i, uint64_t v) { StoreIntBits(out, i, v); }

// Calls fn(T{}) with the accumulator type for `result_type` (see the file comment).
template <typename Fn>
StatusOr<Literal> WithAccumulator(const Instruction& inst, PrimitiveType result_type, Fn&& fn) {
  switch (result_type) {
    case PrimitiveType::kF64:
      return fn(double{});
    case PrimitiveType::kC64:
      return fn(std::complex<float>{});
    case PrimitiveType::kC128:
      return fn(Complex{});
    default:
      break;
  }
  if (IsFloat(result_type)) return fn(float{});
  if (IsInteger(result_type) || IsPred(result_type)) return fn(uint64_t{});
  return Invalid(inst, "unsupported result type " + std::string(PrimitiveTypeName(result_type)));
}

// Row-major copy of `src` (dimensions `dims`) with its dimensions reordered so that
// result dimension i is source dimension perm[i].
template <typename T>
std::vector<T> Permute(std::vector<T> src, const std::vector<int64_t>& dims,
                       const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return src;
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  std::vector<int64_t> permuted_dims(perm.size());
  std::vector<int64_t> permuted_strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    permuted_dims[i] = dims[perm[i]];
    permuted_strides[i] = strides[perm[i]];
  }
  std::vector<T> out(src.size());
  ForEachIndex(permuted_dims, [&](const std::vector<int64_t>& index, int64_t linear) {
    out[linear] = src[LinearIndex(index, permuted_strides)];
  });
  return out;
}

// ===========================================================================
// dot
// ===========================================================================

// C[b][i][j] = sum_k L[b][i][k] * R[b][k][j], summed in ascending k. The i,k,j loop
// keeps that order for every (i, j) while streaming rows of R.
template <typename T>
Status BatchedMatMul(const std::vector<T>& lhs, const std::vector<T>& rhs, int64_t batch, int64_t m,
                     int64_t k, int64_t n, Literal& out, EvalContext& ctx) {
  std::vector<T> row(static_cast<size_t>(n));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), T{});
      const T* l = lhs.data() + (b * m + i) * k;
      T* c = row.data();
      for (int64_t kk = 0; kk < k; ++kk) {
        const T a = l[kk];
        const T* r = rhs.data() + (b * k + kk) * n;
        for (int64_t j = 0; j < n; ++j) c[j] += a * r[j];
      }
      const int64_t base = (b * m + i) * n;
      for (int64_t j = 0; j < n; ++j) StoreAcc(out, base + j, c[j]);
      if ((i & 63) == 63) RETURN_IF_ERROR(ctx.CheckCancelled());
    }
  }
  return Status::Ok();
}

}  // namespace

// ragged-dot in the forms ReadRaggedDot accepts, in double (library_calls.h).
StatusOr<Literal> EvalRaggedDot(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 3));
  ASSIGN_OR_RETURN(const RaggedDotForm form, ReadRaggedDot(inst));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const Literal& sizes = *operands[2];
  const int64_t m = lhs.shape().dimensions(0), k = lhs.shape().dimensions(1), g = sizes.shape().dimensions(0);
  Literal result(inst.shape());
  int64_t start = 0;
  for (int64_t group = 0; group < g; ++group) {
    const int64_t size = std::max<int64_t>(0, sizes.GetInt64(group));
    const int64_t end = std::min(m, start + size);
    if (form.mode == RaggedDotForm::kRaggedRows) {
      const int64_t n = result.shape().dimensions(1);
      for (int64_t r = start; r < end; ++r) {
        for (int64_t c = 0; c < n; ++c) {
          double sum = 0;
          for (int64_t t = 0; t < k; ++t) {
            const int64_t at = form.rhs_contracting == 1 ? (group * k + t) * n + c : (group * n + c) * k + t;
            sum += lhs.GetDouble(r * k + t) * rhs.GetDouble(at);
          }
          result.SetDouble(r * n + c, sum);
        }
      }
    } else {
      const int64_t n = rhs.shape().dimensions(1);
      for (int64_t t = 0; t < k; ++t) {
        for (int64_t c = 0; c < n; ++c) {
          double sum = 0;
          for (int64_t r = start; r < end; ++r) sum += lhs.GetDouble(r * k + t) * rhs.GetDouble(r * n + c);
          result.SetDouble((group * k + t) * n + c, sum);
        }
      }
    }
    start = std::min(m, start + size);
    RETURN_IF_ERROR(ctx.CheckCancelled());
  }
  return result;
}

StatusOr<Literal> EvalDot(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 2));
  const Literal& lhs = *operands[0];
  const Literal& rhs = *operands[1];
  const std::vector<int64_t>& ld = lhs.shape().dimensions();
  const std::vector<int64_t>& rd = rhs.shape().dimensions();
  const int64_t lrank = static_cast<int64_t>(ld.size());
  const int64_t rrank = static_cast<int64_t>(rd.size());
  static const DotDimensionNumbers kNoDims;
  const auto& dnums_attr = inst.attrs().dot_dimension_numbers;
  const DotDimensionNumbers& dnums = dnums_attr ? *dnums_attr : kNoDims;
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size() ||
      dnums.lhs_contracting_dimensions.size() != dnums.rhs_contracting_dimensions.size()) {
    return Invalid(inst,
                   "lhs and rhs must list the same number of batch and contracting dimensions");
  }
  // Mark each dimension's role; reject out-of-range and repeated dimensions.
  std::vector<int> lrole(lrank, 0);
  std::vector<int> rrole(rrank, 0);
  auto mark = [&](const std::vector<int64_t>& list, std::vector<int>& role, int64_t rank, int tag,
                  const char* what) -> Status {
    for (int64_t d : list) {
      if (d < 0 || d >= rank)
        return Invalid(inst, std::string(what) + " dimension " + Str(d) + " is out of range");
      if (role[d] != 0)
        return Invalid(inst, std::string(what) + " dimension " + Str(d) + " is used twice");
      role[d] = tag;
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(mark(dnums.lhs_batch_dimensions, lrole, lrank, 1, "lhs batch"));
  RETURN_IF_ERROR(mark(dnums.lhs_contracting_dimensions, lrole, lrank, 2, "lhs contracting"));
  RETURN_IF_ERROR(mark(dnums.rhs_batch_dimensions, rrole, rrank, 1, "rhs batch"));
  RETURN_IF_ERROR(mark(dnums.rhs_contracting_dimensions, rrole, rrank, 2, "rhs contracting"));

  int64_t batch = 1;
  int64_t k = 1;
  int64_t m = 1;
  int64_t n = 1;
  std::vector<int64_t> out_dims;
  std::vector<int64_t> lperm;
  std::vector<int64_t> rperm;
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    const int64_t a = dnums.lhs_batch_dimensions[i];
    const int64_t b = dnums.rhs_batch_dimensions[i];
    if (ld[a] != rd[b])
      return Invalid(inst, "batch dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    batch *= ld[a];
    out_dims.push_back(ld[a]);
    lperm.push_back(a);
    rperm.push_back(b);
  }
  for (int64_t d = 0; d < lrank; ++d) {
    if (lrole[d] == 0) {
      m *= ld[d];
      out_dims.push_back(ld[d]);
      lperm.push_back(d);
    }
  }
  for (int64_t d = 0; d < rrank; ++d) {
    if (rrole[d] == 0) {
      n *= rd[d];
      out_dims.push_back(rd[d]);
    }
  }
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    const int64_t a = dnums.lhs_contracting_dimensions[i];
    const int64_t b = dnums.rhs_contracting_dimensions[i];
    if (ld[a] != rd[b]) {
      return Invalid(inst,
                     "contracting dimension sizes differ: " + Str(ld[a]) + " vs " + Str(rd[b]));
    }
    k *= ld[a];
    lperm.push_back(a);
    rperm.push_back(b);
  }
  for (int64_t d = 0; d < rrank; ++d) {
    if (rrole[d] == 0) rperm.push_back(d);
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  Literal result(inst.shape());
  const PrimitiveType type = result.shape().element_type();
  return WithAccumulator(inst, type, [&](auto zero) -> StatusOr<Literal> {
    using T = decltype(zero);
    // Canonical operands: L[batch][m][k] and R[batch][k][n].
    const std::vector<T> l = Permute(LoadAll<T>(lhs, type), ld, lperm);
    const std::vector<T> r = Permute(LoadAll<T>(rhs, type), rd, rperm);
    RETURN_IF_ERROR(BatchedMatMul(l, r, batch, m, k, n, result, ctx));
    return std::move(result);
  });
}

namespace {

// ===========================================================================
// convolution
// ===========================================================================

struct ConvPlan {
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  std::vector<int64_t> lhs_strides, rhs_strides;
  int64_t input_features_per_group = 0;  // kernel input feature size
  int64_t output_features_per_fgroup = 0;
  int64_t output_features_per_bgroup = 0;
  int64_t batch_group_size = 0;  // input batch / batch_group_count
};

Status PlanConvolution(const Instruction& inst, const Literal& lhs, const Literal& rhs,
                       ConvPlan* plan) {
  const auto& dn_attr = inst.attrs().convolution_dimension_numbers;
  if (!dn_attr) return Invalid(inst, "missing dim_labels");
  plan->dn = *dn_attr;
  const ConvolutionDimensionNumbers& dn = plan->dn;
  plan->lhs_dims = lhs.shape().dimensions();
  plan->rhs_dims = rhs.shape().dimensions();
  const int64_t spatial = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn.kernel_spatial_dimensions.size()) != spatial ||
      static_cast<int64_t>(dn.output_spatial_dimensions.size()) != spatial) {
    return Invalid(inst, "dim_labels must name the same number of spatial dimensions everywhere");
  }
  const int64_t rank = spatial + 2;
  if (static_cast<int64_t>(plan->lhs_dims.size()) != rank ||
      static_cast<int64_t>(plan->rhs_dims.size()) != rank || inst.shape().rank() != rank ||
      !inst.shape().IsArray()) {
    return Invalid(inst, "operands and result must have rank " + Str(rank) + " for " +
                             Str(spatial) + " spatial dimension(s)");
  }
  auto in_range = [rank](int64_t d) { return d >= 0 && d < rank; };
  bool ok = in_range(dn.input_batch_dimension) && in_range(dn.input_feature_dimension) &&
            in_range(dn.kernel_input_feature_dimension) &&
            in_range(dn.kernel_output_feature_dimension) && in_range(dn.output_batch_dimension) &&
            in_range(dn.output_feature_dimension);
  for (int64_t i = 0; i < spatial; ++i) {
    ok = ok && in_range(dn.input_spatial_dimensions[i]) &&
         in_range(dn.kernel_spatial_dimensions[i]) && in_range(dn.output_spatial_dimensions[i]);
  }
  if (!ok) return Invalid(inst, "dim_labels refer to a dimension out of range");
  RETURN_IF_ERROR(CheckWindow(inst, spatial, &plan->window));

  const int64_t f_groups = inst.attrs().feature_group_count;
  const int64_t b_groups = inst.attrs().batch_group_count;
  if (f_groups < 1 || b_groups < 1) return Invalid(inst, "group counts must be >= 1");
  const int64_t in_batch = plan->lhs_dims[dn.input_batch_dimension];
  const int64_t in_features = plan->lhs_dims[dn.input_feature_dimension];
  const int64_t k_in = plan->rhs_dims[dn.kernel_input_feature_dimension];
  const int64_t k_out = plan->rhs_dims[dn.kernel_output_feature_dimension];
  if (in_features % f_groups != 0 || in_features / f_groups != k_in) {
    return Invalid(inst, "input features (" + Str(in_features) + ") / feature_group_count (" +
                             Str(f_groups) + ") must equal the kernel input features (" +
                             Str(k_in) + ")");
  }
  if (k_out % f_groups != 0 || k_out % b_groups != 0) {
    return Invalid(
        inst, "kernel output features (" + Str(k_out) + ") must be divisible by the group counts");
  }
  if (in_batch % b_groups != 0) {
    return Invalid(inst, "input batch (" + Str(in_batch) +
                             ") must be divisible by batch_group_count (" + Str(b_groups) + ")");
  }
  plan->input_features_per_group = k_in;
  plan->output_features_per_fgroup = k_out / f_groups;
  plan->output_features_per_bgroup = k_out / b_groups;
  plan->batch_group_size = in_batch / b_groups;

  std::vector<int64_t> out_dims(rank, 0);
  out_dims[dn.output_batch_dimension] = in_batch / b_groups;
  out_dims[dn.output_feature_dimension] = k_out;
  for (int64_t i = 0; i < spatial; ++i) {
    const WindowDimension& w = plan->window[i];
    if (plan->rhs_dims[dn.kernel_spatial_dimensions[i]] != w.size) {
      return Invalid(inst, "window size " + Str(w.size) +
                               " does not match kernel spatial dimension of size " +
                               Str(plan->rhs_dims[dn.kernel_spatial_dimensions[i]]));
    }
    out_dims[dn.output_spatial_dimensions[i]] =
        WindowedOutputSize(plan->lhs_dims[dn.input_spatial_dimensions[i]], w);
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  plan->out_dims = out_dims;
  plan->lhs_strides = RowMajorStrides(plan->lhs_dims);
  plan->rhs_strides = RowMajorStrides(plan->rhs_dims);
  return Status::Ok();
}

// XLA's convolution pads and dilates the input with zeros, and those zeros are multiplied
// like any input: a NaN or infinite kernel value there makes the result NaN, as XLA:CPU
// computes it (jax on the CPU gives NaN for every element of a padded convolution with a
// NaN kernel). Holes of the window (rhs) dilation are no taps at all.
// Adds 0 · kernel for every tap that reads a zero of the padded, dilated input: nothing
// for finite kernel values, NaN for non-finite ones. `taps` are the input taps of each
// dim; a combination reads a zero when any of its dims does.
template <typename T>
void AddZeroTaps(const std::vector<TapList>& taps, const std::vector<std::vector<int64_t>>& zero_taps,
                 const T* rhs, int64_t features, int64_t feature_stride, T* acc) {
  const size_t rank = taps.size();
  bool any = false;
  for (size_t d = 0; d < rank; ++d) any = any || !zero_taps[d].empty();
  if (!any) return;
  // Every combination of per-dim kernel offsets (input taps and zero taps), counted once
  // when at least one dim is a zero tap.
  std::vector<std::vector<std::pair<int64_t, bool>>> all(rank);
  for (size_t d = 0; d < rank; ++d) {
    for (int64_t a : taps[d].aux_offset) all[d].push_back({a, false});
    for (int64_t a : zero_taps[d]) all[d].push_back({a, true});
    if (all[d].empty()) return;
  }
  std::vector<int64_t> pick(rank, 0), sizes(rank);
  for (size_t d = 0; d < rank; ++d) sizes[d] = static_cast<int64_t>(all[d].size());
  do {
    int64_t aux = 0;
    bool zero = false;
    for (size_t d = 0; d < rank; ++d) {
      aux += all[d][static_cast<size_t>(pick[d])].first;
      zero = zero || all[d][static_cast<size_t>(pick[d])].second;
    }
    if (!zero) continue;
    for (int64_t z = 0; z < features; ++z) *acc += T{} * rhs[aux + z * feature_stride];
  } while (NextIndex(&pick, sizes));
}

// Whether every value is finite (integers always are).
template <typename T>
bool AllFinite(const std::vector<T>& values) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::all_of(values.begin(), values.end(), [](T v) { return std::isfinite(v); });
  } else if constexpr (std::is_integral_v<T>) {
    return true;
  } else {
    return std::all_of(values.begin(), values.end(),
                       [](const T& v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); });
  }
}

// Reorders the operands so that features are the innermost dim of both: the input as
// [batch, spatial..., feature], the kernel as [output feature, spatial..., input feature]
// (the output keeps its layout). Taps and features are visited in the same order as
// before, so every sum is the same to the bit; only the loads of the innermost loop become
// contiguous (a kernel laid out HWIO read its input features O apart).
template <typename T>
void MakeFeaturesInnermost(ConvPlan* p, std::vector<T>* lhs, std::vector<T>* rhs) {
  ConvolutionDimensionNumbers& dn = p->dn;
  const size_t spatial = dn.input_spatial_dimensions.size();
  std::vector<int64_t> lperm = {dn.input_batch_dimension};
  std::vector<int64_t> rperm = {dn.kernel_output_feature_dimension};
  for (size_t s = 0; s < spatial; ++s) {
    lperm.push_back(dn.input_spatial_dimensions[s]);
    rperm.push_back(dn.kernel_spatial_dimensions[s]);
  }
  lperm.push_back(dn.input_feature_dimension);
  rperm.push_back(dn.kernel_input_feature_dimension);
  *lhs = Permute(std::move(*lhs), p->lhs_dims, lperm);
  *rhs = Permute(std::move(*rhs), p->rhs_dims, rperm);
  std::vector<int64_t> lhs_dims, rhs_dims;
  for (size_t i = 0; i < lperm.size(); ++i) {
    lhs_dims.push_back(p->lhs_dims[static_cast<size_t>(lperm[i])]);
    rhs_dims.push_back(p->rhs_dims[static_cast<size_t>(rperm[i])]);
  }
  p->lhs_dims = lhs_dims;
  p->rhs_dims = rhs_dims;
  p->lhs_strides = RowMajorStrides(lhs_dims);
  p->rhs_strides = RowMajorStrides(rhs_dims);
  dn.input_batch_dimension = 0;
  dn.kernel_output_feature_dimension = 0;
  for (size_t s = 0; s < spatial; ++s) {
    dn.input_spatial_dimensions[s] = static_cast<int64_t>(s) + 1;
    dn.kernel_spatial_dimensions[s] = static_cast<int64_t>(s) + 1;
  }
  dn.input_feature_dimension = static_cast<int64_t>(spatial) + 1;
  dn.kernel_input_feature_dimension = static_cast<int64_t>(spatial) + 1;
}

template <typename T>
Status Convolve(const ConvPlan& p, const std::vector<T>& lhs, const std::vector<T>& rhs,
                Literal& out, EvalContext& ctx) {
  // With a finite kernel the zeros add ±0, which changes no sum that starts from +0.
  const bool zeros_matter = !AllFinite(rhs);
  const ConvolutionDimensionNumbers& dn = p.dn;
  const size_t spatial = dn.input_spatial_dimensions.size();
  const int64_t lhs_feature_stride = p.lhs_strides[dn.input_feature_dimension];
  const int64_t rhs_feature_stride = p.rhs_strides[dn.kernel_input_feature_dimension];
  std::vector<TapList> taps(spatial);
  std::vector<std::vector<int64_t>> zero_taps(spatial);
  std::vector<int64_t> pick;
  std::vector<int64_t> sizes;
  int64_t visited = 0;
  Status status = Status::Ok();
  ForEachIndex(p.out_dims, [&](const std::vector<int64_t>& index, int64_t o) {
    if (!status.ok()) return;
    if ((++visited & 4095) == 0) status = ctx.CheckCancelled();
    const int64_t out_feature = index[dn.output_feature_dimension];
    const int64_t feature_group = out_feature / p.output_features_per_fgroup;
    const int64_t batch_group = out_feature / p.output_features_per_bgroup;
    const int64_t lhs_batch = index[dn.output_batch_dimension] + batch_group * p.batch_group_size;
    const int64_t lhs_base = lhs_batch * p.lhs_strides[dn.input_batch_dimension] +
                             feature_group * p.input_features_per_group * lhs_feature_stride;
    const int64_t rhs_base = out_feature * p.rhs_strides[dn.kernel_output_feature_dimension];
    for (size_t s = 0; s < spatial; ++s) {
      const int64_t in_dim = dn.input_spatial_dimensions[s];
      ComputeTaps(p.window[s], index[dn.output_spatial_dimensions[s]], p.lhs_dims[in_dim],
                  p.lhs_strides[in_dim], p.rhs_strides[dn.kernel_spatial_dimensions[s]], &taps[s],
                  zeros_matter ? &zero_taps[s] : nullptr);
    }
    T acc{};
    ForEachTap(taps, &pick, &sizes, [&](int64_t lhs_offset, int64_t rhs_offset) {
      const T* l = lhs.data() + lhs_base + lhs_offset;
      const T* r = rhs.data() + rhs_base + rhs_offset;
      for (int64_t z = 0; z < p.input_features_per_group; ++z) {
        acc += l[z * lhs_feature_stride] * r[z * rhs_feature_stride];
      }
    });
    if (zeros_matter) {
      AddZeroTaps(taps, zero_taps, rhs.data() + rhs_base, p.input_features_per_group, rhs_feature_stride, &acc);
    }
    StoreAcc(out, o, acc);
  });
  return status;
}

}  // namespace

StatusOr<Literal> EvalConvolution(const Instruction& inst, Operands operands, EvalContext& ctx) {
  if (operands.size() < 2) return Invalid(inst, "expects an input and a kernel");
  RETURN_IF_ERROR(CheckOperandCount(inst, operands.subspan(0, 2), 2));
  if (operands.size() > 2)
    return Invalid(inst, "quantized convolutions (extra operands) are not supported");
  ConvPlan plan;
  RETURN_IF_ERROR(PlanConvolution(inst, *operands[0], *operands[1], &plan));
  Literal result(inst.shape());
  const PrimitiveType type = result.shape().element_type();
  return WithAccumulator(inst, type, [&](auto zero) -> StatusOr<Literal> {
    using T = decltype(zero);
    std::vector<T> lhs = LoadAll<T>(*operands[0], type);
    std::vector<T> rhs = LoadAll<T>(*operands[1], type);
    MakeFeaturesInnermost(&plan, &lhs, &rhs);
    RETURN_IF_ERROR(Convolve(plan, lhs, rhs, result, ctx));
    return std::move(result);
  });
}

}  // namespace reduction_linalg_internal
}  // namespace fusebox::interpreter
