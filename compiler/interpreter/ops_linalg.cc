// Reference triangular-solve, cholesky, fft and the batch-norm ops, computed in double
// (complex<double>) and rounded once to the result type.
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

#include "compiler/interpreter/reduction_linalg_internal.h"

namespace fusebox::interpreter {
namespace reduction_linalg_internal {
namespace {

// ===========================================================================
// triangular-solve, cholesky
// ===========================================================================

// Checks a [..., rows, cols] operand and returns the number of matrices in its batch.
StatusOr<int64_t> MatrixBatch(const Instruction& inst, const Literal& lit, int64_t* rows,
                              int64_t* cols) {
  const std::vector<int64_t>& dims = lit.shape().dimensions();
  if (dims.size() < 2) return Invalid(inst, "operands must have rank >= 2");
  *rows = dims[dims.size() - 2];
  *cols = dims.back();
  return Product(std::vector<int64_t>(dims.begin(), dims.end() - 2));
}

}  // namespace

StatusOr<Literal> EvalCholesky(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 1));
  const Literal& a = *operands[0];
  int64_t n = 0;
  int64_t cols = 0;
  ASSIGN_OR_RETURN(const int64_t batch, MatrixBatch(inst, a, &n, &cols));
  if (n != cols) return Invalid(inst, "operand must be square in its last two dimensions");
  RETURN_IF_ERROR(CheckArrayResult(inst, a.shape().dimensions()));
  const bool lower = inst.attrs().lower.value_or(false);
  Literal result(inst.shape());
  std::vector<Complex> l(static_cast<size_t>(n * n));
  for (int64_t b = 0; b < batch; ++b) {
    RETURN_IF_ERROR(ctx.CheckCancelled());
    const int64_t base = b * n * n;
    // Hermitian matrix read from the chosen triangle, as its lower half.
    auto at = [&](int64_t i, int64_t j) {
      return lower ? a.GetComplex(base + i * n + j) : std::conj(a.GetComplex(base + j * n + i));
    };
    std::fill(l.begin(), l.end(), Complex{});
    // XLA's meaning (its cholesky expander): a matrix where some diagonal square root is
    // NaN (a pivot below zero, or NaN: not positive definite) is all NaN, not NaN from
    // the failing column on.
    bool failed = false;
    for (int64_t j = 0; j < n && !failed; ++j) {
      double diag = at(j, j).real();
      for (int64_t k = 0; k < j; ++k) diag -= std::norm(l[j * n + k]);
      const double root = diag >= 0 ? std::sqrt(diag) : std::numeric_limits<double>::quiet_NaN();
      failed = std::isnan(root);
      l[j * n + j] = root;
      for (int64_t i = j + 1; i < n; ++i) {
        Complex s = at(i, j);
        for (int64_t k = 0; k < j; ++k) s -= l[i * n + k] * std::conj(l[j * n + k]);
        l[i * n + j] = s / root;
      }
    }
    if (failed) std::fill(l.begin(), l.end(), Complex(std::numeric_limits<double>::quiet_NaN(), 0.0));
    // Lower: L with zeros above; upper: U = L^H with zeros below.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        result.SetComplex(base + i * n + j, lower ? l[i * n + j] : std::conj(l[j * n + i]));
      }
    }
  }
  return result;
}

namespace {

// Solves t x = rhs in place for a triangular k x k matrix t.
void SolveTriangularVector(const std::vector<Complex>& t, int64_t k, bool t_lower,
                           std::vector<Complex>& x) {
  if (t_lower) {
    for (int64_t i = 0; i < k; ++i) {
      Complex s = x[i];
      for (int64_t j = 0; j < i; ++j) s -= t[i * k + j] * x[j];
      x[i] = s / t[i * k + i];
    }
  } else {
    for (int64_t i = k - 1; i >= 0; --i) {
      Complex s = x[i];
      for (int64_t j = i + 1; j < k; ++j) s -= t[i * k + j] * x[j];
      x[i] = s / t[i * k + i];
    }
  }
}

}  // namespace

StatusOr<Literal> EvalTriangularSolve(const Instruction& inst, Operands operands,
                                      EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 2));
  const Literal& a = *operands[0];
  const Literal& b = *operands[1];
  int64_t k = 0;
  int64_t k_cols = 0;
  int64_t m = 0;
  int64_t n = 0;
  ASSIGN_OR_RETURN(const int64_t batch, MatrixBatch(inst, a, &k, &k_cols));
  ASSIGN_OR_RETURN(const int64_t b_batch, MatrixBatch(inst, b, &m, &n));
  const auto& attrs = inst.attrs();
  const bool left = attrs.left_side.value_or(false);
  const bool lower = attrs.lower.value_or(false);
  const bool unit = attrs.unit_diagonal.value_or(false);
  const TransposeA transpose = attrs.transpose_a.value_or(TransposeA::kNoTranspose);
  const auto& ad = a.shape().dimensions();
  const auto& bd = b.shape().dimensions();
  if (k != k_cols || batch != b_batch ||
      !std::equal(ad.begin(), ad.end() - 2, bd.begin(), bd.end() - 2) || (left ? m : n) != k) {
    return Invalid(inst, "a " + DimsToString(ad) + " and b " + DimsToString(bd) + " do not fit a " +
                             (left ? "left" : "right") + "-side solve");
  }
  RETURN_IF_ERROR(CheckArrayResult(inst, bd));
  Literal result(inst.shape());
  std::vector<Complex> t(static_cast<size_t>(k * k));
  std::vector<Complex> x;
  for (int64_t bi = 0; bi < batch; ++bi) {
    RETURN_IF_ERROR(ctx.CheckCancelled());
    const int64_t a_base = bi * k * k;
    const int64_t b_base = bi * m * n;
    // t = op(triangle of a); op(a) is lower triangular when exactly one of `lower` and
    // "transposed" holds.
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < k; ++j) {
        const int64_t si = transpose == TransposeA::kNoTranspose ? i : j;
        const int64_t sj = transpose == TransposeA::kNoTranspose ? j : i;
        Complex v;
        if (si == sj && unit) {
          v = 1.0;
        } else if (lower ? si >= sj : si <= sj) {
          v = a.GetComplex(a_base + si * k + sj);
          if (transpose == TransposeA::kAdjoint) v = std::conj(v);
        }
        t[i * k + j] = v;
      }
    }
    const bool t_lower = lower == (transpose == TransposeA::kNoTranspose);
    if (left) {
      // op(a) x = b, one column of b at a time.
      x.resize(static_cast<size_t>(k));
      for (int64_t c = 0; c < n; ++c) {
        for (int64_t i = 0; i < k; ++i) x[i] = b.GetComplex(b_base + i * n + c);
        SolveTriangularVector(t, k, t_lower, x);
        for (int64_t i = 0; i < k; ++i) result.SetComplex(b_base + i * n + c, x[i]);
      }
    } else {
      // x op(a) = b  <=>  op(a)^T x^T = b^T, one row of b at a time.
      std::vector<Complex> tt(t.size());
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < k; ++j) tt[i * k + j] = t[j * k + i];
      }
      x.resize(static_cast<size_t>(k));
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t j = 0; j < k; ++j) x[j] = b.GetComplex(b_base + r * n + j);
        SolveTriangularVector(tt, k, !t_lower, x);
        for (int64_t j = 0; j < k; ++j) result.SetComplex(b_base + r * n + j, x[j]);
      }
    }
  }
  return result;
}

namespace {

// ===========================================================================
// fft
// ===========================================================================

// exp(sign 2 pi i m / n) with m reduced modulo n first: the angle exact before the one
// rounding of cos and sin.
Complex UnitRoot(int64_t m, int64_t n, int sign) {
  const int64_t r = ((m % n) + n) % n;
  return std::polar(1.0, sign * 2.0 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n));
}

int64_t SmallestFactor(int64_t n) {
  for (int64_t f = 2; f * f <= n; ++f) {
    if (n % f == 0) return f;
  }
  return n;
}

// out[k] = sum_t x[t] exp(sign 2 pi i k t / n) for x[t] = in[t * stride], any n, in double:
// a prime up to 64 term by term, a longer prime by Bluestein's chirp (a circular
// convolution of power-of-two length, itself transformed this way), a composite n = p m
// by Cooley-Tukey on its smallest factor p. O(n log n) for every n, so that a long
// transform's reference takes seconds, not hours.
void Dft(const Complex* in, int64_t stride, int64_t n, int sign, Complex* out) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = SmallestFactor(n);
  if (p == n && n <= 64) {
    for (int64_t k = 0; k < n; ++k) {
      Complex sum{};
      for (int64_t t = 0; t < n; ++t) sum += in[t * stride] * UnitRoot(k * t, n, sign);
      out[k] = sum;
    }
    return;
  }
  if (p == n) {  // Bluestein: kt = (k^2 + t^2 - (k - t)^2) / 2
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    std::vector<Complex> chirp(static_cast<size_t>(n)), a(static_cast<size_t>(m)), b(static_cast<size_t>(m));
    for (int64_t t = 0; t < n; ++t) chirp[t] = UnitRoot((t * t) % (2 * n), 2 * n, sign);
    for (int64_t t = 0; t < n; ++t) a[t] = in[t * stride] * chirp[t];
    for (int64_t t = 0; t < n; ++t) {
      b[t] = std::conj(chirp[t]);
      if (t > 0) b[m - t] = std::conj(chirp[t]);
    }
    std::vector<Complex> fa(static_cast<size_t>(m)), fb(static_cast<size_t>(m));
    Dft(a.data(), 1, m, sign, fa.data());
    Dft(b.data(), 1, m, sign, fb.data());
    for (int64_t j = 0; j < m; ++j) fa[j] *= fb[j];
    Dft(fa.data(), 1, m, -sign, a.data());
    for (int64_t k = 0; k < n; ++k) out[k] = a[k] * chirp[k] / static_cast<double>(m);
    return;
  }
  // X[k] = sum_r w_n^(r k) DFT_m(x[r], x[r + p], ...)[k mod m].
  const int64_t m = n / p;
  std::vector<Complex> sub(static_cast<size_t>(n));
  for (int64_t r = 0; r < p; ++r) Dft(in + r * stride, stride * p, m, sign, sub.data() + r * m);
  for (int64_t k = 0; k < n; ++k) {
    Complex sum{};
    for (int64_t r = 0; r < p; ++r) sum += sub[r * m + k % m] * UnitRoot(r * k, n, sign);
    out[k] = sum;
  }
}

// In-place DFT along `axis` of a row-major complex array: X[k] = sum_t x[t] w^(kt) with
// w = exp(-2 pi i / n) (forward) or exp(+2 pi i / n) scaled by 1/n (inverse).
void DftAxis(std::vector<Complex>& data, const std::vector<int64_t>& dims, int64_t axis,
             bool inverse) {
  const int64_t n = dims[axis];
  if (n <= 1) return;
  const int64_t stride = RowMajorStrides(dims)[axis];
  std::vector<int64_t> line_dims = dims;
  line_dims[axis] = 1;
  const std::vector<int64_t> dim_strides = RowMajorStrides(dims);
  std::vector<Complex> out(static_cast<size_t>(n));
  ForEachIndex(line_dims, [&](const std::vector<int64_t>& index, int64_t) {
    const int64_t base = LinearIndex(index, dim_strides);
    Dft(data.data() + base, stride, n, inverse ? 1 : -1, out.data());
    for (int64_t k = 0; k < n; ++k) data[base + k * stride] = inverse ? out[k] / static_cast<double>(n) : out[k];
  });
}

}  // namespace

StatusOr<Literal> EvalFft(const Instruction& inst, Operands operands, EvalContext& ctx) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 1));
  const Literal& x = *operands[0];
  const auto& attrs = inst.attrs();
  const FftType fft_type = attrs.fft_type.value_or(FftType::kFft);
  const std::vector<int64_t>& lengths = attrs.fft_length;
  const std::vector<int64_t>& in_dims = x.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(in_dims.size());
  const int64_t fft_rank = static_cast<int64_t>(lengths.size());
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > rank) {
    return Invalid(inst, "fft_length must name 1 to 3 trailing dimensions of the operand");
  }
  const int64_t first = rank - fft_rank;
  const int64_t last_len = lengths.back();
  std::vector<int64_t> out_dims = in_dims;
  bool ok = true;
  for (int64_t i = 0; i < fft_rank; ++i) {
    const int64_t d = first + i;
    const bool is_last = i == fft_rank - 1;
    switch (fft_type) {
      case FftType::kFft:
      case FftType::kIfft:
        ok = ok && in_dims[d] == lengths[i];
        break;
      case FftType::kRfft:
        ok = ok && in_dims[d] == lengths[i];
        if (is_last) out_dims[d] = lengths[i] / 2 + 1;
        break;
      case FftType::kIrfft:
        ok = ok && in_dims[d] == (is_last ? lengths[i] / 2 + 1 : lengths[i]);
        if (is_last) out_dims[d] = lengths[i];
        break;
    }
  }
  if (!ok)
    return Invalid(inst, "operand " + DimsToString(in_dims) + " does not fit fft_length " +
                             DimsToString(lengths));
  RETURN_IF_ERROR(CheckArrayResult(inst, out_dims));
  RETURN_IF_ERROR(ctx.CheckCancelled());
  Literal result(inst.shape());
  std::vector<Complex> data(static_cast<size_t>(x.element_count()));
  for (int64_t i = 0; i < x.element_count(); ++i) data[i] = x.GetComplex(i);

  if (fft_type == FftType::kFft || fft_type == FftType::kIfft) {
    for (int64_t d = first; d < rank; ++d) DftAxis(data, in_dims, d, fft_type == FftType::kIfft);
    for (int64_t i = 0; i < result.element_count(); ++i) result.SetComplex(i, data[i]);
    return result;
  }
  if (fft_type == FftType::kRfft) {
    // Full complex transform, then keep the non-redundant half of the last axis.
    for (int64_t d = first; d < rank; ++d) DftAxis(data, in_dims, d, false);
    const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
    ForEachIndex(out_dims, [&](const std::vector<int64_t>& index, int64_t o) {
      result.SetComplex(o, data[LinearIndex(index, in_strides)]);
    });
    return result;
  }
  // irfft: inverse over the leading fft axes, then a complex-to-real inverse along the
  // last axis, filling the upper half of the spectrum by Hermitian symmetry.
  for (int64_t d = first; d < rank - 1; ++d) DftAxis(data, in_dims, d, true);
  const int64_t half = in_dims.back();
  const int64_t rows = x.element_count() / std::max<int64_t>(half, 1);
  std::vector<Complex> full(static_cast<size_t>(last_len)), signal(static_cast<size_t>(last_len));
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t kk = 0; kk < last_len; ++kk) {
      full[kk] = kk < half ? data[row * half + kk] : std::conj(data[row * half + (last_len - kk)]);
    }
    if (last_len > 0) Dft(full.data(), 1, last_len, 1, signal.data());
    for (int64_t t = 0; t < last_len; ++t) {
      result.SetDouble(row * last_len + t, signal[t].real() / static_cast<double>(last_len));
    }
  }
  return result;
}

namespace {

// ===========================================================================
// batch-norm
// ===========================================================================

struct FeatureLayout {
  int64_t feature_index = 0;
  int64_t features = 0;
  int64_t stride = 1;       // row-major stride of the feature dimension
  int64_t per_feature = 0;  // elements per feature
  int64_t Feature(int64_t linear) const { return (linear / stride) % features; }
};

StatusOr<FeatureLayout> GetFeatureLayout(const Instruction& inst, const Literal& x) {
  const auto& dims = x.shape().dimensions();
  const int64_t f = inst.attrs().feature_index;
  if (f < 0 || f >= static_cast<int64_t>(dims.size())) {
    return Invalid(
        inst, "feature_index " + Str(f) + " is out of range for operand " + DimsToString(dims));
  }
  if (!inst.attrs().epsilon) return Invalid(inst, "missing epsilon");
  FeatureLayout layout;
  layout.feature_index = f;
  layout.features = dims[f];
  layout.stride = RowMajorStrides(dims)[f];
  layout.per_feature = layout.features == 0 ? 0 : x.element_count() / layout.features;
  return layout;
}

Status CheckFeatureVector(const Instruction& inst, const Literal& v, const FeatureLayout& layout,
                          const char* what) {
  if (v.shape().dimensions() != std::vector<int64_t>{layout.features}) {
    return Invalid(
        inst, std::string(what) + " must be a vector of " + Str(layout.features) + " features");
  }
  return Status::Ok();
}

// Per-feature means of f(i) over the operand, in row-major order.
template <typename Fn>
std::vector<double> FeatureMeans(const FeatureLayout& layout, int64_t count, Fn&& f) {
  std::vector<double> sum(static_cast<size_t>(layout.features), 0.0);
  for (int64_t i = 0; i < count; ++i) sum[layout.Feature(i)] += f(i);
  for (double& s : sum) s /= static_cast<double>(layout.per_feature);
  return sum;
}

}  // namespace

StatusOr<Literal> EvalBatchNormInference(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 5));
  const Literal& x = *operands[0];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  const char* names[] = {"scale", "offset", "mean", "variance"};
  for (int i = 0; i < 4; ++i)
    RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[i + 1], layout, names[i]));
  RETURN_IF_ERROR(CheckArrayResult(inst, x.shape().dimensions()));
  const double eps = *inst.attrs().epsilon;
  Literal result(inst.shape());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    const int64_t f = layout.Feature(i);
    const double normalized =
        (x.GetDouble(i) - operands[3]->GetDouble(f)) / std::sqrt(operands[4]->GetDouble(f) + eps);
    result.SetDouble(i, normalized * operands[1]->GetDouble(f) + operands[2]->GetDouble(f));
  }
  return result;
}

namespace {

Status CheckTupleResult(const Instruction& inst, const std::vector<std::vector<int64_t>>& dims) {
  const Shape& shape = inst.shape();
  bool ok = shape.IsTuple() && shape.tuple_size() == static_cast<int64_t>(dims.size());
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    ok = shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).dimensions() == dims[i];
  }
  if (!ok)
    return Invalid(inst, "result shape " + shape.ToString(false) + " is not the expected tuple");
  return Status::Ok();
}

}  // namespace

StatusOr<Literal> EvalBatchNormTraining(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 3));
  const Literal& x = *operands[0];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[1], layout, "scale"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, *operands[2], layout, "offset"));
  RETURN_IF_ERROR(
      CheckTupleResult(inst, {x.shape().dimensions(), {layout.features}, {layout.features}}));
  const double eps = *inst.attrs().epsilon;
  const int64_t count = x.element_count();
  const std::vector<double> mean =
      FeatureMeans(layout, count, [&](int64_t i) { return x.GetDouble(i); });
  const std::vector<double> var = FeatureMeans(layout, count, [&](int64_t i) {
    const double d = x.GetDouble(i) - mean[layout.Feature(i)];
    return d * d;
  });
  Literal result(inst.shape());
  Literal& y = result.tuple_elements()[0];
  for (int64_t i = 0; i < count; ++i) {
    const int64_t f = layout.Feature(i);
    const double normalized = (x.GetDouble(i) - mean[f]) / std::sqrt(var[f] + eps);
    y.SetDouble(i, normalized * operands[1]->GetDouble(f) + operands[2]->GetDouble(f));
  }
  for (int64_t f = 0; f < layout.features; ++f) {
    result.tuple_elements()[1].SetDouble(f, mean[f]);
    result.tuple_elements()[2].SetDouble(f, var[f]);
  }
  return result;
}

StatusOr<Literal> EvalBatchNormGrad(const Instruction& inst, Operands operands) {
  RETURN_IF_ERROR(CheckOperandCount(inst, operands, 5));
  const Literal& x = *operands[0];
  const Literal& scale = *operands[1];
  const Literal& mean = *operands[2];
  const Literal& var = *operands[3];
  const Literal& dy = *operands[4];
  ASSIGN_OR_RETURN(const FeatureLayout layout, GetFeatureLayout(inst, x));
  RETURN_IF_ERROR(CheckFeatureVector(inst, scale, layout, "scale"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, mean, layout, "mean"));
  RETURN_IF_ERROR(CheckFeatureVector(inst, var, layout, "variance"));
  if (dy.shape().dimensions() != x.shape().dimensions()) {
    return Invalid(inst, "grad_output must have the operand's dimensions");
  }
  RETURN_IF_ERROR(
      CheckTupleResult(inst, {x.shape().dimensions(), {layout.features}, {layout.features}}));
  const double eps = *inst.attrs().epsilon;
  const int64_t count = x.element_count();
  // With xc = x - mean and s = sqrt(var + eps):
  //   grad_offset = sum(dy), grad_scale = sum(dy * xc) / s,
  //   grad_x = scale / s * (dy - mean(dy) - xc * mean(dy * xc) / (var + eps)).
  const std::vector<double> mean_dy =
      FeatureMeans(layout, count, [&](int64_t i) { return dy.GetDouble(i); });
  const std::vector<double> mean_dy_xc = FeatureMeans(layout, count, [&](int64_t i) {
    return dy.GetDouble(i) * (x.GetDouble(i) - mean.GetDouble(layout.Feature(i)));
  });
  Literal result(inst.shape());
  Literal& dx = result.tuple_elements()[0];
  for (int64_t i = 0; i < count; ++i) {
    const int64_t f = layout.Feature(i);
    const double v = var.GetDouble(f) + eps;
    const double xc = x.GetDouble(i) - mean.GetDouble(f);
    dx.SetDouble(i, scale.GetDouble(f) / std::sqrt(v) *
                        (dy.GetDouble(i) - mean_dy[f] - xc * mean_dy_xc[f] / v));
  }
  const double n = static_cast<double>(layout.per_feature);
  for (int64_t f = 0; f < layout.features; ++f) {
    const double s = std::sqrt(var.GetDouble(f) + eps);
    result.tuple_elements()[1].SetDouble(f, mean_dy_xc[f] * n / s);
    result.tuple_elements()[2].SetDouble(f, mean_dy[f] * n);
  }
  return result;
}

}  // namespace reduction_linalg_internal
}  // namespace fusebox::interpreter
