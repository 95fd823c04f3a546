#include "compiler/passes/fft_expander.h"

#include <complex>
#include <cstdint>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::passes {
namespace {

using Builder = library_call_internal::PlainHloBuilder;
using Complex = std::complex<double>;

constexpr int64_t kDenseMax = 32;        // any length up to this: one dot with the DFT matrix
constexpr int64_t kDensePrimeMax = 128;  // a prime up to this too; a longer one: Bluestein
constexpr int64_t kLongestLength = int64_t{1} << 20;

// exp(sign * 2 pi i * m / n) with m reduced modulo n first, so that the angle is exact
// before the one rounding of cos and sin.
Complex Root(int64_t m, int64_t n, int sign) {
  const int64_t r = ((m % n) + n) % n;
  return std::polar(1.0, sign * 2.0 * std::numbers::pi * static_cast<double>(r) / static_cast<double>(n));
}

// An in-place radix-2 DFT in double (sum_t x[t] exp(sign 2 pi i k t / n)), n a power of
// two: Bluestein's convolution kernel is transformed at compile time.
void Radix2(std::vector<Complex>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(x[i], x[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < len / 2; ++k) {
        const Complex w = Root(k, len, sign);
        const Complex u = x[start + k];
        const Complex v = x[start + k + len / 2] * w;
        x[start + k] = u + v;
        x[start + k + len / 2] = u - v;
      }
    }
  }
}

int64_t LargestFactorAtMostRoot(int64_t n) {
  int64_t best = 1;
  for (int64_t f = 2; f * f <= n; ++f) {
    if (n % f == 0) best = f;
  }
  return best;
}

// Writes one fft instruction's replacement. Values are "pair arrays": the complex array's
// dimensions followed by one of two (real, imaginary) in `real_` (f32 for c64, f64 for
// c128).
class FftEmitter {
 public:
  FftEmitter(Module& module, Computation* computation, PrimitiveType real) : b_(module, computation), real_(real) {}

  Builder& b() { return b_; }

  // The DFT along dimension `d` (of length n) of pair array `v`: the result has the other
  // dimensions in their order, then the transformed one, then the pair.
  Instruction* Dft(Instruction* v, int64_t d, int sign) {
    const int64_t n = v->shape().dimensions(d);
    if (n <= kDenseMax) return Dense(v, d, sign);
    const int64_t n1 = LargestFactorAtMostRoot(n);
    if (n1 == 1) return n <= kDensePrimeMax ? Dense(v, d, sign) : Bluestein(v, d, sign);
    return CooleyTukey(v, d, n1, sign);
  }

  // Complex array -> pair array.
  Instruction* ToPairs(Instruction* x) {
    const bool complex = IsComplex(x->shape().element_type());
    std::vector<int64_t> dims = x->shape().dimensions();
    dims.push_back(1);
    Instruction* re = complex ? b_.Add(Opcode::kReal, Builder::WithType(x->shape(), real_), {x}) : b_.Convert(x, real_);
    re = b_.Reshape(re, dims);
    Instruction* im = complex ? b_.Reshape(b_.Add(Opcode::kImag, Builder::WithType(x->shape(), real_), {x}), dims)
                              : b_.Splat(0, Builder::Array(real_, dims));
    return b_.Concatenate({re, im}, static_cast<int64_t>(dims.size()) - 1);
  }

  // Pair array -> the real parts, or the complex array of `type`.
  Instruction* Part(Instruction* v, int64_t which) {
    std::vector<int64_t> dims = v->shape().dimensions();
    dims.pop_back();
    return b_.Reshape(b_.SliceAlong(v, v->shape().rank() - 1, which, which + 1), dims);
  }
  Instruction* FromPairs(Instruction* v, PrimitiveType type) {
    Instruction* re = Part(v, 0);
    return b_.Add(Opcode::kComplex, Builder::WithType(re->shape(), type), {re, Part(v, 1)});
  }

  // v * table (complex), table[i0, i1, ...] placed on v's dimensions `positions`.
  Instruction* Multiply(Instruction* v, const std::vector<int64_t>& table_dims, const std::vector<Complex>& table,
                        std::vector<int64_t> positions) {
    // (a + ib)(c + id) = [a, b] * [c, c] + [b, a] * [-d, d]: the reversed pair supplies
    // the cross terms, so that the product is elementwise and fuses.
    std::vector<int64_t> dims = table_dims;
    dims.push_back(2);
    auto same = std::make_unique<Literal>(Builder::Array(real_, dims));
    auto cross = std::make_unique<Literal>(Builder::Array(real_, dims));
    for (size_t i = 0; i < table.size(); ++i) {
      same->SetDouble(2 * i, table[i].real());
      same->SetDouble(2 * i + 1, table[i].real());
      cross->SetDouble(2 * i, -table[i].imag());
      cross->SetDouble(2 * i + 1, table[i].imag());
    }
    const int64_t last = v->shape().rank() - 1;
    positions.push_back(last);
    Instruction* c_same = b_.Broadcast(b_.Constant(std::move(same), "twiddle"), v->shape(), positions);
    Instruction* c_cross = b_.Broadcast(b_.Constant(std::move(cross), "twiddle"), v->shape(), positions);
    Instruction* swapped = b_.Unary(Opcode::kReverse, v);
    swapped->mutable_attrs().dimensions = std::vector<int64_t>{last};
    return b_.Binary(Opcode::kAdd, b_.Binary(Opcode::kMultiply, v, c_same),
                     b_.Binary(Opcode::kMultiply, swapped, c_cross));
  }

  // Negates the imaginary parts.
  Instruction* Conjugate(Instruction* v) {
    const int64_t last = v->shape().rank() - 1;
    auto signs = std::make_unique<Literal>(Builder::Array(real_, {2}));
    signs->SetDouble(0, 1);
    signs->SetDouble(1, -1);
    return b_.Binary(Opcode::kMultiply, v, b_.Broadcast(b_.Constant(std::move(signs), "conjugate"), v->shape(), {last}));
  }

 private:
  // One real dot: v's (t, pair) with the [n, 2, n, 2] matrix whose (t, c, k, c') entry
  // makes sum_t x[t] w^(kt) from the pairs.
  Instruction* Dense(Instruction* v, int64_t d, int sign) {
    const int64_t n = v->shape().dimensions(d);
    const int64_t last = v->shape().rank() - 1;
    auto matrix = std::make_unique<Literal>(Builder::Array(real_, {n, 2, n, 2}));
    for (int64_t t = 0; t < n; ++t) {
      for (int64_t k = 0; k < n; ++k) {
        const Complex w = Root(t * k, n, sign);
        // re' = re * wr - im * wi; im' = re * wi + im * wr.
        matrix->SetDouble(((t * 2 + 0) * n + k) * 2 + 0, w.real());
        matrix->SetDouble(((t * 2 + 1) * n + k) * 2 + 0, -w.imag());
        matrix->SetDouble(((t * 2 + 0) * n + k) * 2 + 1, w.imag());
        matrix->SetDouble(((t * 2 + 1) * n + k) * 2 + 1, w.real());
      }
    }
    DotDimensionNumbers dims;
    dims.lhs_contracting_dimensions = {d, last};
    dims.rhs_contracting_dimensions = {0, 1};
    std::vector<int64_t> out;
    for (int64_t i = 0; i < last; ++i) {
      if (i != d) out.push_back(v->shape().dimensions(i));
    }
    out.push_back(n);
    out.push_back(2);
    Instruction* dot = b_.Dot(Builder::Array(real_, out), v, b_.Constant(std::move(matrix), "dft_matrix"), dims);
    dot->mutable_attrs().operand_precision = {Precision::kHighest, Precision::kHighest};
    return dot;
  }

  // n = n1 n2, t = n2 t1 + t2, k = k1 + n1 k2:
  //   X[k1 + n1 k2] = sum_t2 w_n2^(t2 k2) [w_n^(t2 k1) sum_t1 w_n1^(t1 k1) x[n2 t1 + t2]].
  Instruction* CooleyTukey(Instruction* v, int64_t d, int64_t n1, int sign) {
    const int64_t n = v->shape().dimensions(d);
    const int64_t n2 = n / n1;
    std::vector<int64_t> split = v->shape().dimensions();
    split[d] = n2;
    split.insert(split.begin() + d, n1);
    Instruction* y = Dft(b_.Reshape(v, split), d, sign);  // [..., t2 at d, ..., k1, pair]
    const int64_t rank = y->shape().rank();
    std::vector<Complex> twiddles(static_cast<size_t>(n));
    for (int64_t t2 = 0; t2 < n2; ++t2) {
      for (int64_t k1 = 0; k1 < n1; ++k1) twiddles[t2 * n1 + k1] = Root(t2 * k1, n, sign);
    }
    y = Multiply(y, {n2, n1}, twiddles, {d, rank - 2});
    Instruction* z = Dft(y, d, sign);  // [..., k1, k2, pair]
    std::vector<int64_t> permutation;
    for (int64_t i = 0; i < rank; ++i) permutation.push_back(i);
    std::swap(permutation[rank - 3], permutation[rank - 2]);
    z = b_.Transpose(z, permutation);  // [..., k2, k1, pair]: k2 n1 + k1 row-major
    std::vector<int64_t> joined = z->shape().dimensions();
    joined.erase(joined.begin() + (rank - 3));
    joined[rank - 3] = n;
    return b_.Reshape(z, joined);
  }

  // kt = (k^2 + t^2 - (k - t)^2) / 2, so X[k] = a[k] sum_t (x[t] a[t]) conj(a[k - t]) with
  // the chirp a[m] = exp(sign pi i m^2 / n): a convolution, computed circularly at a
  // power-of-two length M >= 2n - 1 by transforms of length M.
  Instruction* Bluestein(Instruction* v, int64_t d, int sign) {
    const int64_t n = v->shape().dimensions(d);
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    std::vector<Complex> chirp(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) chirp[t] = Root((t * t) % (2 * n), 2 * n, sign);
    Instruction* u = Multiply(v, {n}, chirp, {d});
    std::vector<PaddingDimension> padding(static_cast<size_t>(u->shape().rank()));
    padding[d].high = m - n;
    Instruction* spectrum = Dft(b_.Pad(u, padding, 0), d, sign);  // [..., M, pair]
    std::vector<Complex> kernel(static_cast<size_t>(m));
    for (int64_t t = 0; t < n; ++t) {
      kernel[t] = std::conj(chirp[t]);
      if (t > 0) kernel[m - t] = std::conj(chirp[t]);
    }
    Radix2(kernel, sign);
    for (Complex& k : kernel) k /= static_cast<double>(m);  // the inverse's 1/M
    const int64_t rank = spectrum->shape().rank();
    spectrum = Multiply(spectrum, {m}, kernel, {rank - 2});
    Instruction* conv = Dft(spectrum, rank - 2, -sign);
    return Multiply(b_.SliceAlong(conv, rank - 2, 0, n), {n}, chirp, {rank - 2});
  }

  Builder b_;
  PrimitiveType real_;
};

StatusOr<Instruction*> Expand(Module& module, Instruction* fft) {
  const InstructionAttributes& attrs = fft->attrs();
  const FftType type = attrs.fft_type.value_or(FftType::kFft);
  const std::vector<int64_t>& lengths = attrs.fft_length;
  const Shape& in = fft->operand(0)->shape();
  const Shape& out = fft->shape();
  const int64_t rank = in.rank();
  const int64_t fft_rank = static_cast<int64_t>(lengths.size());
  auto refuse = [&](const std::string& why) {
    return InvalidArgument("fft-expander: %" + fft->name() + ": " + why);
  };
  if (!in.IsArray() || !out.IsArray() || fft_rank < 1 || fft_rank > 3 || fft_rank > rank) {
    return refuse("fft_length must name 1 to 3 trailing dimensions of an array operand");
  }
  const PrimitiveType complex = type == FftType::kIrfft ? in.element_type() : out.element_type();
  if (!IsComplex(complex)) return refuse("the transform's complex type must be c64 or c128");
  const PrimitiveType real = complex == PrimitiveType::kC64 ? PrimitiveType::kF32 : PrimitiveType::kF64;
  for (int64_t length : lengths) {
    if (length > kLongestLength) {
      return refuse("a transform of length " + std::to_string(length) + " is longer than Fusebox expands (" +
                    std::to_string(kLongestLength) + ")");
    }
  }
  // The operand's and the result's trailing dimensions as fft_length says (the verifier's
  // rule; checked again here so that a module that skipped it gets an error, not slices
  // out of range).
  const int64_t first = rank - fft_rank;
  std::vector<int64_t> want_in = in.dimensions(), want_out = in.dimensions();
  for (int64_t i = 0; i < fft_rank; ++i) {
    const bool last = i == fft_rank - 1;
    const int64_t half = lengths[i] / 2 + 1;
    want_in[first + i] = type == FftType::kIrfft && last ? half : lengths[i];
    want_out[first + i] = type == FftType::kRfft && last ? half : lengths[i];
  }
  if (in.dimensions() != want_in || out.dimensions() != want_out || out.rank() != rank) {
    return refuse("operand " + in.ToString() + " and result " + out.ToString() + " do not fit fft_length");
  }
  FftEmitter e(module, fft->parent(), real);
  Builder& b = e.b();
  if (out.ElementCount() == 0 || in.ElementCount() == 0) return b.Splat(0, out);
  double count = 1;
  for (int64_t length : lengths) count *= static_cast<double>(length);

  switch (type) {
    case FftType::kFft:
    case FftType::kIfft: {
      const int sign = type == FftType::kFft ? -1 : 1;
      Instruction* v = e.ToPairs(fft->operand(0));
      for (int64_t i = 0; i < fft_rank; ++i) v = e.Dft(v, first, sign);
      if (type == FftType::kIfft) v = b.Scale(v, 1 / count);
      return e.FromPairs(v, complex);
    }
    case FftType::kRfft: {
      Instruction* v = e.ToPairs(fft->operand(0));
      for (int64_t i = 0; i < fft_rank; ++i) v = e.Dft(v, first, -1);
      return e.FromPairs(b.SliceAlong(v, rank - 1, 0, lengths.back() / 2 + 1), complex);
    }
    case FftType::kIrfft: {
      Instruction* v = e.ToPairs(fft->operand(0));
      for (int64_t i = 0; i + 1 < fft_rank; ++i) v = e.Dft(v, first, 1);
      // The last dimension (now at `first`): X[k] for k < n/2 + 1, conj(X[n - k]) above.
      const int64_t n = lengths.back();
      const int64_t half = v->shape().dimensions(first);
      if (n - half > 0) {
        Instruction* mirrored = b.Unary(Opcode::kReverse, e.Conjugate(b.SliceAlong(v, first, 1, n - half + 1)));
        mirrored->mutable_attrs().dimensions = std::vector<int64_t>{first};
        v = b.Concatenate({v, mirrored}, first);
      }
      v = b.Scale(e.Dft(v, first, 1), 1 / count);
      return e.Part(v, 0);
    }
  }
  return refuse("unknown fft_type");
}

}  // namespace

StatusOr<bool> FftExpander::Run(Module& module, PassContext&) {
  std::vector<Instruction*> found;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == Opcode::kFft) found.push_back(inst.get());
    }
  }
  for (Instruction* fft : found) {
    ASSIGN_OR_RETURN(Instruction* replacement, Expand(module, fft));
    replacement->set_shape(fft->shape());
    fft->parent()->ReplaceInstruction(fft, replacement);
  }
  return !found.empty();
}

}  // namespace fusebox::passes
