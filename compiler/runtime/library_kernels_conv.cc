// Library kernels of the CPU runtime: convolution by im2col and GEMM, or by direct f32
// loops (AVX-512) for few output features and for weight gradients (library_kernels.h
// has the contract).
#include "compiler/runtime/library_kernels.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime::library {
namespace {

// ===========================================================================
// convolution
// ===========================================================================

struct ConvPlan {
  PrimitiveType lhs_type = PrimitiveType::kF32;
  PrimitiveType rhs_type = PrimitiveType::kF32;
  PrimitiveType out_type = PrimitiveType::kF32;
  ConvolutionDimensionNumbers dn;
  std::vector<WindowDimension> window;
  std::vector<int64_t> lhs_dims, rhs_dims, out_dims;
  std::vector<int64_t> lhs_strides, rhs_strides, out_strides;
  int64_t k_in = 0;              // kernel input features: input features per feature group
  int64_t k_out = 0;             // kernel output features = result features
  int64_t out_per_fgroup = 1;    // result features per feature group
  int64_t out_per_bgroup = 1;    // result features per batch group
  int64_t batch_group_size = 0;  // input batch / batch_group_count = result batch
};

int64_t WindowedSize(int64_t in_size, const WindowDimension& w) {
  const int64_t dilated_in = in_size == 0 ? 0 : (in_size - 1) * w.base_dilation + 1;
  const int64_t padded = dilated_in + w.padding_low + w.padding_high;
  const int64_t dilated_window = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
  if (padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

Status PlanConvolution(const Instruction& conv, ConvPlan* p) {
  if (conv.opcode() != Opcode::kConvolution) return Invalid(conv, "not a convolution");
  if (conv.operand_count() != 2) {
    return conv.operand_count() > 2 ? Unsupported(conv, "quantized convolutions (extra operands)")
                                    : Invalid(conv, "expects an input and a kernel");
  }
  const Shape& ls = conv.operand(0)->shape();
  const Shape& rs = conv.operand(1)->shape();
  const Shape& os = conv.shape();
  RETURN_IF_ERROR(DenseStrides(conv, ls, "input", &p->lhs_strides));
  RETURN_IF_ERROR(DenseStrides(conv, rs, "kernel", &p->rhs_strides));
  RETURN_IF_ERROR(DenseStrides(conv, os, "result", &p->out_strides));
  p->lhs_type = ls.element_type();
  p->rhs_type = rs.element_type();
  p->out_type = os.element_type();
  for (PrimitiveType t : {p->lhs_type, p->rhs_type, p->out_type}) {
    if (!IsArithmeticType(t)) return Unsupported(conv, "element type " + TypeName(t));
  }
  for (PrimitiveType t : {p->lhs_type, p->rhs_type}) {
    if (!Convertible(t, p->out_type)) {
      return Unsupported(conv,
                         TypeName(t) + " operands with a " + TypeName(p->out_type) + " result");
    }
  }
  if (!conv.attrs().convolution_dimension_numbers) return Invalid(conv, "missing dim_labels");
  p->dn = *conv.attrs().convolution_dimension_numbers;
  const ConvolutionDimensionNumbers& dn = p->dn;
  p->lhs_dims = ls.dimensions();
  p->rhs_dims = rs.dimensions();
  p->out_dims = os.dimensions();
  const size_t spatial = dn.input_spatial_dimensions.size();
  const int64_t rank = static_cast<int64_t>(spatial) + 2;
  if (dn.kernel_spatial_dimensions.size() != spatial ||
      dn.output_spatial_dimensions.size() != spatial) {
    return Invalid(conv, "dim_labels name different numbers of spatial dimensions");
  }
  if (ls.rank() != rank || rs.rank() != rank || os.rank() != rank) {
    return Invalid(conv, "input, kernel and result must have rank " + Str(rank));
  }
  // Each of the three dimension lists must be a permutation of [0, rank).
  auto check_labels = [&](int64_t a, int64_t b, const std::vector<int64_t>& rest,
                          const char* what) -> Status {
    std::vector<bool> seen(static_cast<size_t>(rank), false);
    std::vector<int64_t> all = rest;
    all.push_back(a);
    all.push_back(b);
    for (int64_t d : all) {
      if (d < 0 || d >= rank || seen[d]) {
        return Invalid(conv, std::string("dim_labels: bad ") + what + " dimensions");
      }
      seen[d] = true;
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(check_labels(dn.input_batch_dimension, dn.input_feature_dimension,
                               dn.input_spatial_dimensions, "input"));
  RETURN_IF_ERROR(check_labels(dn.kernel_input_feature_dimension,
                               dn.kernel_output_feature_dimension, dn.kernel_spatial_dimensions,
                               "kernel"));
  RETURN_IF_ERROR(check_labels(dn.output_batch_dimension, dn.output_feature_dimension,
                               dn.output_spatial_dimensions, "output"));
  if (spatial > 0) {
    if (!conv.attrs().window || conv.attrs().window->dimensions.size() != spatial) {
      return Invalid(
          conv, "the window must have " + Str(static_cast<int64_t>(spatial)) + " dimension(s)");
    }
    p->window = conv.attrs().window->dimensions;
  }
  for (const WindowDimension& w : p->window) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) {
      return Invalid(conv, "window sizes must be >= 0 and strides and dilations >= 1");
    }
  }
  const int64_t f_groups = conv.attrs().feature_group_count;
  const int64_t b_groups = conv.attrs().batch_group_count;
  if (f_groups < 1 || b_groups < 1) return Invalid(conv, "group counts must be >= 1");
  const int64_t in_batch = p->lhs_dims[dn.input_batch_dimension];
  const int64_t in_features = p->lhs_dims[dn.input_feature_dimension];
  p->k_in = p->rhs_dims[dn.kernel_input_feature_dimension];
  p->k_out = p->rhs_dims[dn.kernel_output_feature_dimension];
  if (in_features % f_groups != 0 || in_features / f_groups != p->k_in) {
    return Invalid(conv, "input features (" + Str(in_features) + ") / feature_group_count (" +
                             Str(f_groups) + ") must equal the kernel input features (" +
                             Str(p->k_in) + ")");
  }
  if (p->k_out % f_groups != 0 || p->k_out % b_groups != 0 || in_batch % b_groups != 0) {
    return Invalid(conv, "kernel output features (" + Str(p->k_out) + ") and input batch (" +
                             Str(in_batch) + ") must be divisible by the group counts");
  }
  p->out_per_fgroup = std::max<int64_t>(1, p->k_out / f_groups);
  p->out_per_bgroup = std::max<int64_t>(1, p->k_out / b_groups);
  p->batch_group_size = in_batch / b_groups;
  std::vector<int64_t> expect(static_cast<size_t>(rank), 0);
  expect[dn.output_batch_dimension] = p->batch_group_size;
  expect[dn.output_feature_dimension] = p->k_out;
  for (size_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = p->window[s];
    if (p->rhs_dims[dn.kernel_spatial_dimensions[s]] != w.size) {
      return Invalid(conv, "window size " + Str(w.size) + " differs from the kernel's " +
                               Str(p->rhs_dims[dn.kernel_spatial_dimensions[s]]));
    }
    expect[dn.output_spatial_dimensions[s]] =
        WindowedSize(p->lhs_dims[dn.input_spatial_dimensions[s]], w);
  }
  if (expect != p->out_dims) {
    return Invalid(conv, "result dimensions " + DimsText(p->out_dims) +
                             " differ from the computed " + DimsText(expect));
  }
  return Status::Ok();
}

// Output features [begin, end) that share one feature group and one batch group: one GEMM.
struct ConvBlock {
  int64_t feature_group;
  int64_t batch_group;
  int64_t begin;
  int64_t end;
};

// Scratch per im2col chunk, in elements (the chunk's rows times the kernel's taps).
constexpr int64_t kChunkElements = int64_t{1} << 18;

template <typename T>
Status ConvImpl(const Instruction& conv, const ConvPlan& p, const uint8_t* lhs, const uint8_t* rhs,
                uint8_t* out, int threads);

// im2col reads k_in input features per tap. When the features are not the input's minor
// dimension — a weight-gradient convolution, whose "features" are the batch — every one
// of those reads is a cache line of its own. Repacking the input once with the features
// minor (batch, spatial..., feature) makes them contiguous runs: the CIFAR step's
// weight-gradient convolutions ran 3-4x faster. Whether `p` (f32) gains from it:
bool RepacksInputFeatures(const ConvPlan& p) {
  return p.lhs_type == PrimitiveType::kF32 && p.k_in > 1 && p.lhs_strides[p.dn.input_feature_dimension] != 1 &&
         Product(p.lhs_dims) > 0 && Product(p.lhs_dims) <= (int64_t{1} << 28);
}

// The f32 convolution of an input repacked with its features minor.
Status ConvWithFeaturesMinor(const Instruction& conv, const ConvPlan& p, const uint8_t* lhs, const uint8_t* rhs,
                             uint8_t* out, int threads) {
  const ConvolutionDimensionNumbers& dn = p.dn;
  const int64_t feature_dim = dn.input_feature_dimension;
  ConvPlan q = p;
  std::vector<int64_t> order = {dn.input_batch_dimension};
  for (int64_t d : dn.input_spatial_dimensions) order.push_back(d);
  order.push_back(feature_dim);
  int64_t stride = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    q.lhs_strides[*it] = stride;
    stride *= p.lhs_dims[*it];
  }
  std::vector<CopyDim> dims;
  for (int64_t d : order) dims.push_back({p.lhs_dims[d], p.lhs_strides[d], q.lhs_strides[d]});
  std::vector<float> packed(static_cast<size_t>(Product(p.lhs_dims)));
  PackInto<float>(dims, lhs, PrimitiveType::kF32, PrimitiveType::kF32, packed.data());
  return ConvImpl<float>(conv, q, reinterpret_cast<const uint8_t*>(packed.data()), rhs, out, threads);
}

// The GEMM's rows and columns for im2col: rows are the result positions (batch,
// spatial...) in row-major order, columns the kernel's taps times its input features.
struct Im2colShape {
  std::vector<int64_t> row_dims;         // batch group size, then the result's spatial sizes
  std::vector<int64_t> row_out_strides;  // each row dimension's stride in the result
  int64_t taps = 1;                      // window positions
  int64_t rows = 0;
  int64_t kdim = 0;                      // taps * k_in
  // Where kernel tap t of spatial dimension s reads the input at result position o:
  // offsets[s][o * size + t] is the input element offset, or -1 in padding or a hole.
  std::vector<std::vector<int64_t>> offsets;
};

Im2colShape MakeIm2colShape(const ConvPlan& p) {
  const ConvolutionDimensionNumbers& dn = p.dn;
  const size_t spatial = p.window.size();
  Im2colShape g;
  g.row_dims = {p.batch_group_size};
  g.row_out_strides = {p.out_strides[dn.output_batch_dimension]};
  for (size_t s = 0; s < spatial; ++s) {
    g.row_dims.push_back(p.out_dims[dn.output_spatial_dimensions[s]]);
    g.row_out_strides.push_back(p.out_strides[dn.output_spatial_dimensions[s]]);
    g.taps *= p.window[s].size;
  }
  g.rows = Product(g.row_dims);
  g.kdim = g.taps * p.k_in;
  if (g.kdim == 0) return g;
  g.offsets.resize(spatial);
  for (size_t s = 0; s < spatial; ++s) {
    const WindowDimension& w = p.window[s];
    const int64_t in_size = p.lhs_dims[dn.input_spatial_dimensions[s]];
    const int64_t in_stride = p.lhs_strides[dn.input_spatial_dimensions[s]];
    const int64_t out_size = g.row_dims[s + 1];
    g.offsets[s].assign(static_cast<size_t>(out_size * w.size), -1);
    for (int64_t o = 0; o < out_size; ++o) {
      for (int64_t t = 0; t < w.size; ++t) {
        const int64_t k = w.window_reversal ? w.size - 1 - t : t;
        int64_t pos = o * w.stride - w.padding_low + k * w.window_dilation;
        if (pos % w.base_dilation != 0) continue;
        pos /= w.base_dilation;
        if (pos >= 0 && pos < in_size) g.offsets[s][o * w.size + t] = pos * in_stride;
      }
    }
  }
  return g;
}

// The kernel as a [k_out][taps * k_in] matrix (column-major kdim x k_out).
template <typename T>
std::vector<T> PackConvKernel(const ConvPlan& p, const uint8_t* rhs, int64_t kdim) {
  const ConvolutionDimensionNumbers& dn = p.dn;
  std::vector<T> kernel(static_cast<size_t>(kdim * p.k_out));
  std::vector<CopyDim> dims;
  int64_t stride = kdim;
  for (size_t s = 0; s < p.window.size(); ++s) {
    stride /= p.window[s].size;
    dims.push_back({p.window[s].size, p.rhs_strides[dn.kernel_spatial_dimensions[s]], stride});
  }
  dims.push_back({p.k_in, p.rhs_strides[dn.kernel_input_feature_dimension], 1});
  dims.push_back({p.k_out, p.rhs_strides[dn.kernel_output_feature_dimension], kdim});
  PackInto<T>(dims, rhs, p.rhs_type, p.out_type, kernel.data());
  return kernel;
}

// The output features cut into blocks that each share one feature group and one batch
// group.
std::vector<ConvBlock> ConvBlocks(const ConvPlan& p) {
  std::vector<ConvBlock> blocks;
  for (int64_t begin = 0; begin < p.k_out;) {
    const int64_t fg = begin / p.out_per_fgroup;
    const int64_t bg = begin / p.out_per_bgroup;
    const int64_t end = std::min((fg + 1) * p.out_per_fgroup, (bg + 1) * p.out_per_bgroup);
    blocks.push_back({fg, bg, begin, end});
    begin = end;
  }
  return blocks;
}

// One worker's walk over result positions: `index` is the current row's (batch,
// spatial...) position, `tap` the outer window dimensions' tap.
struct RowCursor {
  explicit RowCursor(const Im2colShape& g) : row_dims(g.row_dims), index(g.row_dims.size()) {}
  void StartAt(int64_t r) {
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      index[d] = r % row_dims[d];
      r /= row_dims[d];
    }
  }
  void Next() {
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < row_dims[d]) break;
      index[d] = 0;
    }
  }
  const std::vector<int64_t>& row_dims;
  std::vector<int64_t> index;
};

// im2col of result rows [r0, r1) of `block` into `patches`: row r holds the taps * k_in
// inputs the window at result position r sees (zeros in padding and holes).
template <typename T>
void FillPatches(const ConvPlan& p, const Im2colShape& g, const ConvBlock& block, const uint8_t* lhs,
                 LoadRunFn<T> load, int64_t r0, int64_t r1, RowCursor& cursor, T* patches) {
  static constexpr int64_t kNoOffset = 0;
  const ConvolutionDimensionNumbers& dn = p.dn;
  const size_t spatial = p.window.size();
  const int64_t lhs_bytes = ByteWidth(p.lhs_type);
  const int64_t lhs_batch_stride = p.lhs_strides[dn.input_batch_dimension];
  const int64_t lhs_feature_stride = p.lhs_strides[dn.input_feature_dimension];
  const int64_t last_size = spatial == 0 ? 1 : p.window[spatial - 1].size;
  const std::vector<int64_t>& index = cursor.index;
  std::vector<int64_t> tap(spatial);
  const int64_t in_base = block.batch_group * p.batch_group_size * lhs_batch_stride +
                          block.feature_group * p.k_in * lhs_feature_stride;
  cursor.StartAt(r0);
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t row_base = in_base + index[0] * lhs_batch_stride;
    T* dst = patches + (r - r0) * g.kdim;
    // This row's taps of the innermost window dimension (one, at offset 0, when there
    // are no spatial dimensions); the outer dimensions' taps are walked one by one.
    const int64_t* last = spatial == 0 ? &kNoOffset : &g.offsets[spatial - 1][index[spatial] * last_size];
    std::fill(tap.begin(), tap.end(), 0);
    for (int64_t outer = 0; outer < g.taps / last_size; ++outer) {
      int64_t base = row_base;
      bool inside = true;
      for (size_t s = 0; s + 1 < spatial && inside; ++s) {
        const int64_t o = g.offsets[s][index[s + 1] * p.window[s].size + tap[s]];
        inside = o >= 0;
        base += o;
      }
      if (!inside) {
        std::fill(dst, dst + last_size * p.k_in, T{});
      } else {
        for (int64_t t = 0; t < last_size; ++t) {
          T* features = dst + t * p.k_in;
          if (last[t] >= 0) {
            load(lhs + (base + last[t]) * lhs_bytes, lhs_feature_stride * lhs_bytes, p.k_in, features, 1,
                 p.lhs_type, p.out_type);
          } else {
            std::fill(features, features + p.k_in, T{});
          }
        }
      }
      dst += last_size * p.k_in;
      for (int64_t s = static_cast<int64_t>(spatial) - 2; s >= 0; --s) {
        if (++tap[s] < p.window[s].size) break;
        tap[s] = 0;
      }
    }
    cursor.Next();
  }
}

template <typename T>
Status ConvImpl(const Instruction& conv, const ConvPlan& p, const uint8_t* lhs, const uint8_t* rhs,
                uint8_t* out, int threads) {
  if constexpr (std::is_same_v<T, float>) {
    if (RepacksInputFeatures(p)) return ConvWithFeaturesMinor(conv, p, lhs, rhs, out, threads);
  }
  if (Product(p.out_dims) == 0) return Status::Ok();
  const int64_t out_bytes = ByteWidth(p.out_type);
  const Im2colShape g = MakeIm2colShape(p);
  const int64_t rows = g.rows;
  const int64_t kdim = g.kdim;
  const int64_t out_feature_stride = p.out_strides[p.dn.output_feature_dimension];
  const StoreRunFn<T> store = PickStore<T>(p.out_type);

  if (kdim == 0) {  // empty sums: every result element is zero
    std::vector<CopyDim> dims;
    for (size_t d = 0; d < p.out_dims.size(); ++d)
      dims.push_back({p.out_dims[d], 0, p.out_strides[d]});
    const T zero{};
    UnpackFrom<T>(dims, &zero, p.out_type, out);
    return Status::Ok();
  }

  std::vector<T> kernel = PackConvKernel<T>(p, rhs, kdim);
  const std::vector<ConvBlock> blocks = ConvBlocks(p);
  int64_t max_block = 0;
  for (const ConvBlock& b : blocks) max_block = std::max(max_block, b.end - b.begin);

  const double flops =
      2.0 * static_cast<double>(rows) * static_cast<double>(kdim) * static_cast<double>(p.k_out);
  const int workers = ThreadsFor(flops, threads);
  int64_t chunk = std::clamp<int64_t>(kChunkElements / kdim, 1, rows);
  chunk = std::min(chunk, (rows + workers - 1) / workers);
  const int64_t chunks = (rows + chunk - 1) / chunk;
  const int64_t items = static_cast<int64_t>(blocks.size()) * chunks;
  const LoadRunFn<T> load = PickLoad<T>(p.lhs_type, p.out_type);

  const bool ok = ParallelFor(items, workers, [&](int64_t i0, int64_t i1, int) {
    std::vector<T> patches(static_cast<size_t>(chunk * kdim));
    std::vector<T> result(static_cast<size_t>(chunk * max_block));
    RowCursor cursor(g);
    for (int64_t item = i0; item < i1; ++item) {
      const ConvBlock& block = blocks[item / chunks];
      const int64_t r0 = (item % chunks) * chunk;
      const int64_t r1 = std::min(rows, r0 + chunk);
      FillPatches<T>(p, g, block, lhs, load, r0, r1, cursor, patches.data());
      // result[rows x block] = patches[rows x kdim] * kernel[kdim x block].
      const int64_t nr = r1 - r0;
      const int64_t nb = block.end - block.begin;
      const MatView<T> a{patches.data(), nr, kdim, kdim, 1};
      const MatView<T> b{kernel.data() + block.begin * kdim, kdim, nb, 1, kdim};
      const MatView<T> c{result.data(), nr, nb, nb, 1};
      bool done = false;
      if constexpr (std::is_same_v<T, float>) done = OneDnnGemm(a, b, c, /*threads=*/1);  // inside a worker
      if (!done) Gemm(a, b, c);
      // Each row's block of features goes to its result position.
      cursor.StartAt(r0);
      for (int64_t r = 0; r < nr; ++r) {
        int64_t offset = block.begin * out_feature_stride;
        for (size_t d = 0; d < cursor.index.size(); ++d) offset += cursor.index[d] * g.row_out_strides[d];
        store(result.data() + r * nb, 1, nb, out + offset * out_bytes,
              out_feature_stride * out_bytes, p.out_type);
        cursor.Next();
      }
    }
  });
  if (!ok) return OutOfMemory(conv);
  return Status::Ok();
}

// ===========================================================================
// Direct f32 convolutions (AVX-512)
// ===========================================================================
//
// Two shapes of 2-D (or 1-D) f32 convolution lose most of their time in im2col plus a GEMM
// of a bad shape, and get loops of their own:
//  - "direct": up to 128 output features (the CIFAR step's 3->16, 16->32 and 32->16
//    channel convolutions). A block of up to 16 result positions of one result row times
//    one or two 16-wide vectors of output features stays in registers while the taps
//    (window position, input feature) stream by: one kernel vector load per tap and one
//    broadcast input per fused multiply-add column. Each result element sums its taps in
//    one fixed order. Measured against im2col + oneDNN GEMM it wins up to 128 features
//    (3x3, 32 images of 16x16: 90 against 68 GFLOP/s at 128) and ties at 256.
//  - "weight-gradient": a window about as large as the input, few result positions and a
//    long reduction (what jax emits for a kernel's gradient). The reduction over the
//    input features (the gradient's batch) is cut into a fixed number of chunks, each
//    chunk accumulates its partial sums in registers over the whole window, and the
//    partials are added in chunk order. 2-4x im2col's speed up to 256 features.
// Both read the input from a zero-padded scratch copy, so the inner loops never test a
// bound. Threads take work items (images, chunks) from a shared counter, so a thread that
// another process delays does not hold the rest back; which thread computes an item never
// changes its result, so neither path's result depends on the thread count. Both apply only
// where ConvDirectPlanFor says so; every other convolution (and every machine without
// AVX-512) keeps the im2col path.

enum class ConvPath { kIm2col, kDirect, kWeightGradient };

// A 2-D convolution spelled out: out[b, y, x, o] = sum over (k, i, j) of
// in[b, y*stride_h + i*dil_h - pad_h, x*stride_w + j*dil_w - pad_w, k] * ker[k, i', j', o],
// where i' = i (or win_h - 1 - i when reversed) and j' likewise. Strides are in elements.
struct Conv2D {
  int64_t batch = 1, in_h = 1, in_w = 1, feat = 1;  // input: batch, spatial, features
  int64_t win_h = 1, win_w = 1, out_f = 1;          // kernel window and output features
  int64_t out_h = 1, out_w = 1;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, pad_h = 0, pad_w = 0;
  bool rev_h = false, rev_w = false;
  int64_t l_b = 0, l_h = 0, l_w = 0, l_f = 0;  // input strides
  int64_t r_k = 0, r_h = 0, r_w = 0, r_o = 0;  // kernel strides
  int64_t o_b = 0, o_h = 0, o_w = 0, o_f = 0;  // result strides
  // The zero-padded input extent the windows cover.
  int64_t PaddedH() const { return (out_h - 1) * stride_h + (win_h - 1) * dil_h + 1; }
  int64_t PaddedW() const { return (out_w - 1) * stride_w + (win_w - 1) * dil_w + 1; }
};

constexpr int kVec = 16;                       // floats per AVX-512 vector
constexpr int64_t kDirectMaxFeatures = 128;    // direct path: output features at most
constexpr int64_t kGradientMaxFeatures = 256;  // weight-gradient path: output features at most
constexpr int64_t kGradientChunks = 16;        // weight-gradient path: reduction chunks
constexpr double kDirectScratchLimit = double{1 << 24};  // floats per scratch buffer at most

bool DirectConvDisabled() {
  static const bool disabled = [] {
    const char* v = std::getenv("FUSEBOX_CONV_IM2COL");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return disabled;
}

bool CpuHasAvx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool has = __builtin_cpu_supports("avx512f") != 0;
  return has;
#else
  return false;
#endif
}

int64_t RoundUpToVec(int64_t n) { return (n + kVec - 1) / kVec * kVec; }

// Which path `p` takes, and (for the fast ones) the convolution spelled out in `c`.
ConvPath ConvDirectPlanFor(const ConvPlan& p, Conv2D* c) {
  const size_t spatial = p.window.size();
  if (spatial < 1 || spatial > 2) return ConvPath::kIm2col;
  if (p.lhs_type != PrimitiveType::kF32 || p.rhs_type != PrimitiveType::kF32 ||
      p.out_type != PrimitiveType::kF32) {
    return ConvPath::kIm2col;
  }
  // One feature group and one batch group: out_per_fgroup and out_per_bgroup are k_out.
  if (p.out_per_fgroup != p.k_out || p.out_per_bgroup != p.k_out ||
      p.batch_group_size != p.lhs_dims[p.dn.input_batch_dimension]) {
    return ConvPath::kIm2col;
  }
  for (const WindowDimension& w : p.window) {
    if (w.base_dilation != 1 || w.size < 1) return ConvPath::kIm2col;
  }
  if (Product(p.out_dims) == 0 || p.k_in == 0) return ConvPath::kIm2col;
  if (DirectConvDisabled() || !CpuHasAvx512()) return ConvPath::kIm2col;
  const ConvolutionDimensionNumbers& dn = p.dn;
  Conv2D& d = *c;
  d = Conv2D{};
  d.batch = p.lhs_dims[dn.input_batch_dimension];
  d.feat = p.k_in;
  d.out_f = p.k_out;
  d.l_b = p.lhs_strides[dn.input_batch_dimension];
  d.l_f = p.lhs_strides[dn.input_feature_dimension];
  d.r_k = p.rhs_strides[dn.kernel_input_feature_dimension];
  d.r_o = p.rhs_strides[dn.kernel_output_feature_dimension];
  d.o_b = p.out_strides[dn.output_batch_dimension];
  d.o_f = p.out_strides[dn.output_feature_dimension];
  // A 1-D convolution is a 2-D one whose first spatial dimension has size 1.
  const size_t s0 = spatial == 2 ? 0 : spatial;  // spatial: "no such dimension"
  const size_t s1 = spatial - 1;
  auto spatial_dim = [&](size_t s, int64_t* in, int64_t* win, int64_t* out, int64_t* stride,
                         int64_t* dil, int64_t* pad, bool* rev, int64_t* ls, int64_t* rs,
                         int64_t* os) {
    if (s == spatial) return;  // the defaults: size 1, stride 1, no padding
    const WindowDimension& w = p.window[s];
    *in = p.lhs_dims[dn.input_spatial_dimensions[s]];
    *win = w.size;
    *out = p.out_dims[dn.output_spatial_dimensions[s]];
    *stride = w.stride;
    *dil = w.window_dilation;
    *pad = w.padding_low;
    *rev = w.window_reversal;
    *ls = p.lhs_strides[dn.input_spatial_dimensions[s]];
    *rs = p.rhs_strides[dn.kernel_spatial_dimensions[s]];
    *os = p.out_strides[dn.output_spatial_dimensions[s]];
  };
  spatial_dim(s0, &d.in_h, &d.win_h, &d.out_h, &d.stride_h, &d.dil_h, &d.pad_h, &d.rev_h, &d.l_h,
              &d.r_h, &d.o_h);
  spatial_dim(s1, &d.in_w, &d.win_w, &d.out_w, &d.stride_w, &d.dil_w, &d.pad_w, &d.rev_w, &d.l_w,
              &d.r_w, &d.o_w);
  // Sizes of the scratch buffers and tap tables, in floating point so that no product of
  // untrusted dimensions can overflow; each must stay below kDirectScratchLimit.
  auto product_of = [](std::initializer_list<int64_t> factors) {
    double n = 1;
    for (int64_t f : factors) n *= static_cast<double>(f);
    return n;
  };
  const double padded_h =
      product_of({d.out_h - 1, d.stride_h}) + product_of({d.win_h - 1, d.dil_h}) + 1;
  const double padded_w =
      product_of({d.out_w - 1, d.stride_w}) + product_of({d.win_w - 1, d.dil_w}) + 1;
  if (padded_h > kDirectScratchLimit || padded_w > kDirectScratchLimit) return ConvPath::kIm2col;
  const double positions = product_of({d.batch, d.out_h, d.out_w});
  const double reduction = product_of({d.feat, d.win_h, d.win_w});
  const double opad = static_cast<double>(RoundUpToVec(std::min<int64_t>(d.out_f, 1 << 20)));
  if (reduction >= 8 * positions) {
    // Scratch: a padded input image per thread, a partial result per chunk, the taps.
    if (d.out_f <= kGradientMaxFeatures &&
        padded_h * padded_w * static_cast<double>(d.batch) <= kDirectScratchLimit &&
        kGradientChunks * positions * opad <= kDirectScratchLimit &&
        product_of({d.win_h, d.win_w}) * opad <= kDirectScratchLimit) {
      return ConvPath::kWeightGradient;
    }
    return ConvPath::kIm2col;
  }
  // Scratch: padded input rows per thread, the repacked kernel and its taps.
  if (d.out_f <= kDirectMaxFeatures && d.o_f == 1 &&
      padded_h * padded_w * static_cast<double>(d.feat) <= kDirectScratchLimit &&
      reduction * opad <= kDirectScratchLimit) {
    return ConvPath::kDirect;
  }
  return ConvPath::kIm2col;
}

#if defined(__x86_64__) && defined(__GNUC__)

// One block of result positions times V vectors of output features:
//   acc[p][v] (+)= sum over taps (g, t) of lhs[lhs_off[g] + t * lhs_inner + p * step]
//                                        * rhs[rhs_off[g] + t * rhs_inner + 16 v ...]
// for g in [0, groups), t in [0, inner), then acc[p][v] is stored at out + p * out_step + 16 v.
// The taps come in groups of `inner` evenly spaced ones (a window position's input features,
// or a window row's columns), so the inner loop reads no offset table. `mask` selects the
// lanes of the last vector that exist (kernel and `out` loads and the stores honour it).
struct MicroArgs {
  const float* lhs;
  int64_t step;
  const int64_t* lhs_off;
  const float* rhs;
  const int64_t* rhs_off;
  int64_t groups;
  int64_t inner;
  int64_t lhs_inner;
  int64_t rhs_inner;
  float* out;
  int64_t out_step;
  uint32_t mask;
  bool accumulate;
};

template <int P, int V, bool kUnitStep>
__attribute__((target("avx512f,avx2,fma"))) void ConvMicro(const MicroArgs& a) {
  const __mmask16 last = static_cast<__mmask16>(a.mask);
  __m512 acc[P][V];
#pragma GCC unroll 16
  for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* o = a.out + p * a.out_step + v * kVec;
      if (!a.accumulate) {
        acc[p][v] = _mm512_setzero_ps();
      } else if (v == V - 1) {
        acc[p][v] = _mm512_maskz_loadu_ps(last, o);
      } else {
        acc[p][v] = _mm512_loadu_ps(o);
      }
    }
  }
  const int64_t step = kUnitStep ? 1 : a.step;
  const int64_t inner = a.inner;
  const int64_t lhs_inner = a.lhs_inner;
  const int64_t rhs_inner = a.rhs_inner;
  for (int64_t g = 0; g < a.groups; ++g) {
    const float* w = a.rhs + a.rhs_off[g];
    const float* x = a.lhs + a.lhs_off[g];
    for (int64_t t = 0; t < inner; ++t, w += rhs_inner, x += lhs_inner) {
      __m512 wv[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) {
        wv[v] = v == V - 1 ? _mm512_maskz_loadu_ps(last, w + v * kVec)
                           : _mm512_loadu_ps(w + v * kVec);
      }
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        const __m512 b = _mm512_set1_ps(x[p * step]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[p][v] = _mm512_fmadd_ps(b, wv[v], acc[p][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* o = a.out + p * a.out_step + v * kVec;
      if (v == V - 1) {
        _mm512_mask_storeu_ps(o, last, acc[p][v]);
      } else {
        _mm512_storeu_ps(o, acc[p][v]);
      }
    }
  }
}

using MicroFn = void (*)(const MicroArgs&);
constexpr int kMaxBlock1 = 16;  // positions per block with one vector of features
constexpr int kMaxBlock2 = 12;  // ... with two

template <int V, bool kUnit, int... Ps>
constexpr std::array<MicroFn, sizeof...(Ps)> MicroTable(std::integer_sequence<int, Ps...>) {
  return {&ConvMicro<Ps + 1, V, kUnit>...};
}

// The micro-kernel for `positions` positions (1..MaxBlock(vectors)) and 1 or 2 vectors.
MicroFn PickMicro(int64_t positions, int vectors, bool unit_step) {
  static constexpr auto k1 = MicroTable<1, false>(std::make_integer_sequence<int, kMaxBlock1>());
  static constexpr auto k1u = MicroTable<1, true>(std::make_integer_sequence<int, kMaxBlock1>());
  static constexpr auto k2 = MicroTable<2, false>(std::make_integer_sequence<int, kMaxBlock2>());
  static constexpr auto k2u = MicroTable<2, true>(std::make_integer_sequence<int, kMaxBlock2>());
  const size_t i = static_cast<size_t>(positions - 1);
  if (vectors == 1) return unit_step ? k1u[i] : k1[i];
  return unit_step ? k2u[i] : k2[i];
}

int MaxBlock(int vectors) { return vectors == 1 ? kMaxBlock1 : kMaxBlock2; }

// Runs the micro-kernels over `positions` positions (lhs + q * step, out + q * out_step) and
// every output feature: chunks of 32 features, blocks of positions of near-equal size.
// `args` carries the taps; its lhs, out, mask and step fields are filled in here.
void MicroRow(MicroArgs args, int64_t positions, int64_t out_f) {
  const float* lhs0 = args.lhs;
  float* out0 = args.out;
  const float* rhs0 = args.rhs;
  for (int64_t f0 = 0; f0 < out_f; f0 += 2 * kVec) {
    const int64_t nf = std::min<int64_t>(2 * kVec, out_f - f0);
    const int vectors = nf > kVec ? 2 : 1;
    const int64_t tail = nf - (vectors - 1) * kVec;
    args.mask = tail == kVec ? 0xffffu : (1u << tail) - 1u;
    args.rhs = rhs0 + f0;
    const int64_t max_block = MaxBlock(vectors);
    const int64_t blocks = (positions + max_block - 1) / max_block;
    for (int64_t blk = 0, q0 = 0; blk < blocks; ++blk) {
      const int64_t q1 = positions * (blk + 1) / blocks;
      args.lhs = lhs0 + q0 * args.step;
      args.out = out0 + q0 * args.out_step + f0;
      PickMicro(q1 - q0, vectors, args.step == 1)(args);
      q0 = q1;
    }
  }
}

// The "direct" path: see the section comment. Work items are (image, band of result rows);
// each pads the input rows its band reads into a per-thread scratch laid out
// [row][column][feature] — one memcpy per row from an NHWC input.
bool DirectConv(const Conv2D& c, const float* in, const float* ker, float* out, int threads) {
  const int64_t opad = RoundUpToVec(c.out_f);
  const int64_t wp = c.PaddedW();
  // The kernel as [i][j][k][opad], reversal applied, zero lanes past out_f. Tap groups:
  // one per window position (i, j), its input features k the inner taps.
  const int64_t taps = c.win_h * c.win_w * c.feat;
  std::vector<float> kernel(static_cast<size_t>(taps * opad), 0.0f);
  const int64_t groups = c.win_h * c.win_w;
  std::vector<int64_t> lhs_off(static_cast<size_t>(groups)), rhs_off(static_cast<size_t>(groups));
  for (int64_t i = 0, t = 0; i < c.win_h; ++i) {
    const int64_t si = c.rev_h ? c.win_h - 1 - i : i;
    for (int64_t j = 0; j < c.win_w; ++j) {
      const int64_t sj = c.rev_w ? c.win_w - 1 - j : j;
      lhs_off[i * c.win_w + j] = (i * c.dil_h * wp + j * c.dil_w) * c.feat;
      rhs_off[i * c.win_w + j] = t * opad;
      for (int64_t k = 0; k < c.feat; ++k, ++t) {
        const float* src = ker + si * c.r_h + sj * c.r_w + k * c.r_k;
        float* dst = kernel.data() + t * opad;
        for (int64_t o = 0; o < c.out_f; ++o) dst[o] = src[o * c.r_o];
      }
    }
  }
  const double flops = 2.0 * static_cast<double>(c.batch * c.out_h * c.out_w) *
                       static_cast<double>(taps) * static_cast<double>(c.out_f);
  const int workers = ThreadsFor(flops, threads);
  const int64_t bands = std::clamp<int64_t>((4 * workers + c.batch - 1) / c.batch, 1, c.out_h);
  const int64_t band_rows = (c.out_h + bands - 1) / bands;
  const int64_t max_rows = (band_rows - 1) * c.stride_h + (c.win_h - 1) * c.dil_h + 1;
  std::atomic<int64_t> next{0};
  return ParallelFor(workers, workers, [&](int64_t, int64_t, int) {
    std::vector<float> padded(static_cast<size_t>(max_rows * c.feat * wp));
    for (int64_t item = next++; item < c.batch * bands; item = next++) {
      const int64_t n = item / bands;
      const int64_t y0 = (item % bands) * band_rows;
      const int64_t y1 = std::min(c.out_h, y0 + band_rows);
      if (y0 >= y1) continue;
      // Padded row r holds input row y0 * stride_h - pad_h + r.
      const int64_t rows = (y1 - 1 - y0) * c.stride_h + (c.win_h - 1) * c.dil_h + 1;
      const float* image = in + n * c.l_b;
      // Columns [w_lo, w_hi) of a padded row are inside the input.
      const int64_t w_lo = std::clamp<int64_t>(c.pad_w, 0, wp);
      const int64_t w_hi = std::clamp<int64_t>(c.in_w + c.pad_w, w_lo, wp);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t ih = y0 * c.stride_h - c.pad_h + r;
        float* dst = padded.data() + r * wp * c.feat;
        if (ih < 0 || ih >= c.in_h || w_lo == w_hi) {
          std::fill(dst, dst + wp * c.feat, 0.0f);
          continue;
        }
        const float* src = image + ih * c.l_h + (w_lo - c.pad_w) * c.l_w;
        std::fill(dst, dst + w_lo * c.feat, 0.0f);
        if (c.l_f == 1 && c.l_w == c.feat) {
          std::memcpy(dst + w_lo * c.feat, src, static_cast<size_t>((w_hi - w_lo) * c.feat) * 4);
        } else {
          for (int64_t w = w_lo; w < w_hi; ++w) {
            for (int64_t k = 0; k < c.feat; ++k)
              dst[w * c.feat + k] = src[(w - w_lo) * c.l_w + k * c.l_f];
          }
        }
        std::fill(dst + w_hi * c.feat, dst + wp * c.feat, 0.0f);
      }
      MicroArgs args{};
      args.step = c.stride_w * c.feat;
      args.lhs_off = lhs_off.data();
      args.rhs = kernel.data();
      args.rhs_off = rhs_off.data();
      args.groups = groups;
      args.inner = c.feat;
      args.lhs_inner = 1;
      args.rhs_inner = opad;
      args.out_step = c.o_w;
      args.accumulate = false;
      for (int64_t y = y0; y < y1; ++y) {
        args.lhs = padded.data() + (y - y0) * c.stride_h * wp * c.feat;
        args.out = out + n * c.o_b + y * c.o_h;
        MicroRow(args, c.out_w, c.out_f);
      }
    }
  });
}

// The "weight-gradient" path: see the section comment. Per input feature k (the
// reduction's outer index) the input image is padded into a scratch laid out
// [row][column][batch]; with stride_w 1, the positions (x, b) of one result row are then
// consecutive floats, x * batch + b, and one block of them shares each kernel vector.
bool GradientConv(const Conv2D& c, const float* in, const float* ker, float* out, int threads) {
  const int64_t opad = RoundUpToVec(c.out_f);
  const int64_t hp = c.PaddedH();
  const int64_t wp = c.PaddedW();
  const int64_t taps = c.win_h * c.win_w;
  const int64_t positions = c.batch * c.out_h * c.out_w;
  // The kernel is read in place when its features are contiguous, else repacked per k.
  const bool in_place = c.r_o == 1;
  // Tap groups: one per window row i, its columns j the inner taps (a reversed column
  // order walks the kernel backwards).
  std::vector<int64_t> lhs_off(static_cast<size_t>(c.win_h)), rhs_off(static_cast<size_t>(c.win_h));
  for (int64_t i = 0; i < c.win_h; ++i) {
    const int64_t si = c.rev_h ? c.win_h - 1 - i : i;
    lhs_off[i] = i * c.dil_h * wp * c.batch;
    rhs_off[i] = in_place ? si * c.r_h + (c.rev_w ? (c.win_w - 1) * c.r_w : 0) : i * c.win_w * opad;
  }
  const int64_t rhs_inner = in_place ? (c.rev_w ? -c.r_w : c.r_w) : opad;
  const int64_t chunks = std::min<int64_t>(c.feat, kGradientChunks);
  // Columns [w_lo, w_hi) of a padded row are inside the input.
  const int64_t w_lo = std::clamp<int64_t>(c.pad_w, 0, wp);
  const int64_t w_hi = std::clamp<int64_t>(c.in_w + c.pad_w, w_lo, wp);
  std::vector<float> partial(static_cast<size_t>(chunks * positions * opad));
  const double flops = 2.0 * static_cast<double>(positions) * static_cast<double>(c.feat * taps) *
                       static_cast<double>(c.out_f);
  const int workers = ThreadsFor(flops, threads);
  std::atomic<int64_t> next{0};
  const bool ok = ParallelFor(workers, workers, [&](int64_t, int64_t, int) {
    std::vector<float> padded(static_cast<size_t>(hp * wp * c.batch));
    std::vector<float> repacked(in_place ? 0 : static_cast<size_t>(taps * opad), 0.0f);
    for (int64_t chunk = next++; chunk < chunks; chunk = next++) {
      float* part = partial.data() + chunk * positions * opad;
      const int64_t k0 = c.feat * chunk / chunks;
      const int64_t k1 = c.feat * (chunk + 1) / chunks;
      for (int64_t k = k0; k < k1; ++k) {
        for (int64_t r = 0; r < hp; ++r) {
          const int64_t ih = r - c.pad_h;
          float* dst = padded.data() + r * wp * c.batch;
          if (ih < 0 || ih >= c.in_h || w_lo == w_hi) {
            std::fill(dst, dst + wp * c.batch, 0.0f);
            continue;
          }
          const float* src = in + k * c.l_f + ih * c.l_h + (w_lo - c.pad_w) * c.l_w;
          std::fill(dst, dst + w_lo * c.batch, 0.0f);
          if (c.l_b == 1 && c.l_w == c.batch) {
            std::memcpy(dst + w_lo * c.batch, src,
                        static_cast<size_t>((w_hi - w_lo) * c.batch) * 4);
          } else {
            for (int64_t w = w_lo; w < w_hi; ++w) {
              for (int64_t b = 0; b < c.batch; ++b)
                dst[w * c.batch + b] = src[(w - w_lo) * c.l_w + b * c.l_b];
            }
          }
          std::fill(dst + w_hi * c.batch, dst + wp * c.batch, 0.0f);
        }
        const float* kernel = ker + k * c.r_k;
        if (!in_place) {
          for (int64_t i = 0, t = 0; i < c.win_h; ++i) {
            for (int64_t j = 0; j < c.win_w; ++j, ++t) {
              const int64_t si = c.rev_h ? c.win_h - 1 - i : i;
              const int64_t sj = c.rev_w ? c.win_w - 1 - j : j;
              const float* src = ker + k * c.r_k + si * c.r_h + sj * c.r_w;
              for (int64_t o = 0; o < c.out_f; ++o) repacked[t * opad + o] = src[o * c.r_o];
            }
          }
          kernel = repacked.data();
        }
        MicroArgs args{};
        args.step = 1;
        args.lhs_off = lhs_off.data();
        args.rhs = kernel;
        args.rhs_off = rhs_off.data();
        args.groups = c.win_h;
        args.inner = c.win_w;
        args.lhs_inner = c.dil_w * c.batch;
        args.rhs_inner = rhs_inner;
        args.out_step = opad;
        args.accumulate = k > k0;
        // Partial results are laid out [y][x][b][opad].
        for (int64_t y = 0; y < c.out_h; ++y) {
          const float* row = padded.data() + y * c.stride_h * wp * c.batch;
          float* prow = part + y * c.out_w * c.batch * opad;
          if (c.stride_w == 1) {
            args.lhs = row;
            args.out = prow;
            MicroRow(args, c.out_w * c.batch, c.out_f);
          } else {
            for (int64_t x = 0; x < c.out_w; ++x) {
              args.lhs = row + x * c.stride_w * c.batch;
              args.out = prow + x * c.batch * opad;
              MicroRow(args, c.batch, c.out_f);
            }
          }
        }
      }
    }
  });
  if (!ok) return false;
  // The chunks' partial sums, added in chunk order, into the result.
  for (int64_t y = 0, q = 0; y < c.out_h; ++y) {
    for (int64_t x = 0; x < c.out_w; ++x) {
      for (int64_t b = 0; b < c.batch; ++b, ++q) {
        float* dst = out + b * c.o_b + y * c.o_h + x * c.o_w;
        for (int64_t o = 0; o < c.out_f; ++o) {
          float sum = partial[q * opad + o];
          for (int64_t ch = 1; ch < chunks; ++ch) sum += partial[(ch * positions + q) * opad + o];
          dst[o * c.o_f] = sum;
        }
      }
    }
  }
  return true;
}

#else  // no AVX-512 kernels on this target: CpuHasAvx512() is false, these never run

bool DirectConv(const Conv2D&, const float*, const float*, float*, int) { return false; }
bool GradientConv(const Conv2D&, const float*, const float*, float*, int) { return false; }

#endif

const char* ConvPathName(ConvPath path) {
  switch (path) {
    case ConvPath::kDirect:
      return "direct";
    case ConvPath::kWeightGradient:
      return "weight-gradient";
    case ConvPath::kIm2col:
      break;
  }
  return "im2col";
}

}  // namespace
}  // namespace fusebox::runtime::library

namespace fusebox::runtime {

using namespace runtime::library;  // NOLINT: the library kernels' shared machinery

bool CanRunConvolution(const Instruction& conv, std::string* why) {
  ConvPlan plan;
  const Status status = PlanConvolution(conv, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunConvolution(const Instruction& conv, const void* lhs, const void* rhs, void* out,
                      int threads) {
  ConvPlan plan;
  RETURN_IF_ERROR(PlanConvolution(conv, &plan));
  if (Product(plan.out_dims) == 0) return Status::Ok();
  if (out == nullptr || lhs == nullptr || rhs == nullptr) return Invalid(conv, "null buffer");
  try {
    Conv2D direct;
    const ConvPath path = ConvDirectPlanFor(plan, &direct);
    if (path != ConvPath::kIm2col) {
      const auto* in = static_cast<const float*>(lhs);
      const auto* ker = static_cast<const float*>(rhs);
      auto* result = static_cast<float*>(out);
      const bool ok = path == ConvPath::kDirect ? DirectConv(direct, in, ker, result, threads)
                                                : GradientConv(direct, in, ker, result, threads);
      return ok ? Status::Ok() : OutOfMemory(conv);
    }
    return WithAccumulator(plan.out_type, [&](auto zero) -> Status {
      using T = decltype(zero);
      return ConvImpl<T>(conv, plan, static_cast<const uint8_t*>(lhs),
                         static_cast<const uint8_t*>(rhs), static_cast<uint8_t*>(out), threads);
    });
  } catch (const std::bad_alloc&) {
    return OutOfMemory(conv);
  }
}

const char* ConvolutionPath(const Instruction& conv) {
  ConvPlan plan;
  if (!PlanConvolution(conv, &plan).ok()) return "invalid";
  Conv2D direct;
  return ConvPathName(ConvDirectPlanFor(plan, &direct));
}

int64_t ConvolutionFlops(const Instruction& conv) {
  ConvPlan plan;
  if (!PlanConvolution(conv, &plan).ok()) return -1;
  int64_t taps = 1;
  for (const WindowDimension& w : plan.window) taps *= w.size;
  return 2 * Product(plan.out_dims) * taps * plan.k_in;
}

}  // namespace fusebox::runtime
