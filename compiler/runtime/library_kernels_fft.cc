// The CPU runtime's Fourier transforms: HLO `fft` through FFTW (library_kernels.h).
//
// A transform over one dimension is one FFTW "guru" plan: the dimension and the batch (as
// FFTW's "howmany" dimensions) with their strides, so any layout is read and written where
// it lies. Over two or three dimensions the transform runs one dimension at a time on a
// row-major complex array (the result itself where it can be): the last as contiguous
// rows, the others as blocks of columns gathered into rows (AxisPass), because FFTW's
// estimated plans walk columns slowly. The batch (or the blocks) is split across the
// threads; each executes its plan on its share through FFTW's new-array interface, which
// is thread-safe. Planning is not: every plan is made and destroyed under one mutex, with
// FFTW_ESTIMATE (no timing runs, nothing written to the arrays), and kept in a small
// cache keyed by everything the plan depends on (shape, strides, batch, the arrays'
// alignment), so a training loop plans once per call site.
//
// FFTW computes unnormalized transforms; IFFT and IRFFT are scaled by 1/N afterwards, as
// HLO defines them. IRFFT is the inverse complex transforms along the leading transformed
// dimensions (on a copy), then FFTW's complex-to-real transform along the last, which
// reads the first n/2+1 values and takes the rest by Hermitian symmetry (the imaginary
// parts of the zero and Nyquist frequencies are ignored, as pocketfft and the interpreter
// ignore them).
#include <fftw3.h>

#include <mutex>
#include <type_traits>
#include <unordered_map>

#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime {

using namespace library;  // NOLINT: the shared machinery of the library kernels

namespace {

struct FftPlan {
  FftType type = FftType::kFft;
  PrimitiveType real = PrimitiveType::kF32;  // f32 (c64 data) or f64 (c128 data)
  std::vector<int64_t> lengths;              // the transformed dimensions' lengths
  std::vector<int64_t> batch;                // the other dimensions, outermost first
  std::vector<int64_t> in_strides, out_strides;  // elements, per operand / result dimension
  int64_t rank = 0;                          // the operand's rank
};

Status PlanFft(const Instruction& fft, FftPlan* p) {
  if (fft.opcode() != Opcode::kFft) return Invalid(fft, "not an fft");
  if (fft.operand_count() != 1) return Invalid(fft, "an fft takes one operand");
  const Shape& in = fft.operand(0)->shape();
  const Shape& out = fft.shape();
  if (!in.IsArray() || !out.IsArray()) return Invalid(fft, "an fft's operand and result are arrays");
  p->type = fft.attrs().fft_type.value_or(FftType::kFft);
  p->lengths = fft.attrs().fft_length;
  p->rank = in.rank();
  const int64_t fft_rank = static_cast<int64_t>(p->lengths.size());
  if (fft_rank < 1 || fft_rank > 3 || fft_rank > p->rank || out.rank() != p->rank) {
    return Invalid(fft, "fft_length must name 1 to 3 trailing dimensions of the operand");
  }
  const PrimitiveType in_type = in.element_type();
  const PrimitiveType out_type = out.element_type();
  auto types = [&](PrimitiveType want_in, PrimitiveType want_out) { return in_type == want_in && out_type == want_out; };
  bool typed = false;
  switch (p->type) {
    case FftType::kFft:
    case FftType::kIfft:
      typed = types(PrimitiveType::kC64, PrimitiveType::kC64) || types(PrimitiveType::kC128, PrimitiveType::kC128);
      p->real = in_type == PrimitiveType::kC128 ? PrimitiveType::kF64 : PrimitiveType::kF32;
      break;
    case FftType::kRfft:
      typed = types(PrimitiveType::kF32, PrimitiveType::kC64) || types(PrimitiveType::kF64, PrimitiveType::kC128);
      p->real = in_type;
      break;
    case FftType::kIrfft:
      typed = types(PrimitiveType::kC64, PrimitiveType::kF32) || types(PrimitiveType::kC128, PrimitiveType::kF64);
      p->real = out_type;
      break;
  }
  if (!typed) {
    return Unsupported(fft, std::string(FftTypeName(p->type)) + " of " + TypeName(in_type) + " to " +
                                TypeName(out_type) + " (FFTW transforms c64/c128, and f32/f64 for RFFT and IRFFT)");
  }
  const int64_t first = p->rank - fft_rank;
  for (int64_t i = 0; i < fft_rank; ++i) {
    const int64_t d = first + i;
    const bool last = i == fft_rank - 1;
    const int64_t n = p->lengths[i];
    int64_t want_in = n, want_out = n;
    if (last && p->type == FftType::kRfft) want_out = n / 2 + 1;
    if (last && p->type == FftType::kIrfft) want_in = n / 2 + 1;
    if (n < 0 || in.dimensions(d) != want_in || out.dimensions(d) != want_out) {
      return Invalid(fft, "operand " + in.ToString() + " and result " + out.ToString() + " do not fit fft_length " +
                              DimsText(p->lengths));
    }
  }
  p->batch.clear();
  for (int64_t d = 0; d < first; ++d) {
    if (in.dimensions(d) != out.dimensions(d)) {
      return Invalid(fft, "operand " + in.ToString() + " and result " + out.ToString() + " differ in batch dimension " +
                              Str(d));
    }
    p->batch.push_back(in.dimensions(d));
  }
  RETURN_IF_ERROR(DenseStrides(fft, in, "operand", &p->in_strides));
  RETURN_IF_ERROR(DenseStrides(fft, out, "result", &p->out_strides));
  return Status::Ok();
}

// FFTW, loaded at run time from Debian's libfftw3 (scripts/setup.sh installs it), as
// oneDNN is: the entry points of one precision, resolved by name. A machine without it
// runs everything but the CPU backend's Fourier transforms, which say what is missing.
template <typename R>
struct FftwApi {
  using Complex = std::conditional_t<sizeof(R) == 4, fftwf_complex, fftw_complex>;
  using Plan = std::conditional_t<sizeof(R) == 4, fftwf_plan, fftw_plan>;
  using Dim = std::conditional_t<sizeof(R) == 4, fftwf_iodim64, fftw_iodim64>;
  Plan (*c2c)(int, const Dim*, int, const Dim*, Complex*, Complex*, int, unsigned) = nullptr;
  Plan (*r2c)(int, const Dim*, int, const Dim*, R*, Complex*, unsigned) = nullptr;
  Plan (*c2r)(int, const Dim*, int, const Dim*, Complex*, R*, unsigned) = nullptr;
  void (*exec_c2c)(const Plan, Complex*, Complex*) = nullptr;
  void (*exec_r2c)(const Plan, R*, Complex*) = nullptr;
  void (*exec_c2r)(const Plan, Complex*, R*) = nullptr;
  void (*destroy)(Plan) = nullptr;
  int (*alignment_of)(R*) = nullptr;
};

constexpr const char* kFftwLibrary[2] = {"libfftw3f.so.3", "libfftw3.so.3"};

// The loaded API, or nullptr with *why saying what is missing.
template <typename R>
const FftwApi<R>* LoadFftw(std::string* why) {
  return LoadApiOnce<FftwApi<R>>(
      [](FftwApi<R>& a) -> std::string {
        RuntimeLibrary library(kFftwLibrary[sizeof(R) == 4 ? 0 : 1], "libfftw3-dev");
        const std::string prefix = sizeof(R) == 4 ? "fftwf_" : "fftw_";
        library.Bind(a.c2c, prefix + "plan_guru64_dft");
        library.Bind(a.r2c, prefix + "plan_guru64_dft_r2c");
        library.Bind(a.c2r, prefix + "plan_guru64_dft_c2r");
        library.Bind(a.exec_c2c, prefix + "execute_dft");
        library.Bind(a.exec_r2c, prefix + "execute_dft_r2c");
        library.Bind(a.exec_c2r, prefix + "execute_dft_c2r");
        library.Bind(a.destroy, prefix + "destroy_plan");
        library.Bind(a.alignment_of, prefix + "alignment_of");
        return library.ok() ? std::string() : "FFTW: " + library.missing();
      },
      why);
}

// FFTW's two precisions behind one interface.
template <typename R>
struct Fftw {
  using Api = FftwApi<R>;
  using Complex = typename Api::Complex;
  using Plan = typename Api::Plan;
  using Dim = typename Api::Dim;
  static const Api& A() { return *LoadFftw<R>(nullptr); }  // callers checked LoadFftw first
  static Plan C2c(int rank, const Dim* dims, int howmany_rank, const Dim* howmany, Complex* in, Complex* out, int sign) {
    return A().c2c(rank, dims, howmany_rank, howmany, in, out, sign, FFTW_ESTIMATE);
  }
  static Plan R2c(int rank, const Dim* dims, int howmany_rank, const Dim* howmany, R* in, Complex* out) {
    return A().r2c(rank, dims, howmany_rank, howmany, in, out, FFTW_ESTIMATE);
  }
  static Plan C2r(int rank, const Dim* dims, int howmany_rank, const Dim* howmany, Complex* in, R* out) {
    return A().c2r(rank, dims, howmany_rank, howmany, in, out, FFTW_ESTIMATE);
  }
  static void ExecC2c(Plan p, Complex* in, Complex* out) { A().exec_c2c(p, in, out); }
  static void ExecR2c(Plan p, R* in, Complex* out) { A().exec_r2c(p, in, out); }
  static void ExecC2r(Plan p, Complex* in, R* out) { A().exec_c2r(p, in, out); }
  static void Destroy(Plan p) { A().destroy(p); }
  static int Alignment(const void* p) { return A().alignment_of(static_cast<R*>(const_cast<void*>(p))); }
};

// FFTW's planner is not thread-safe: plans are made and destroyed under this mutex.
std::mutex& PlannerMutex() {
  static std::mutex* mutex = new std::mutex();
  return *mutex;
}

enum class Kind : char { kForward = 'f', kBackward = 'b', kR2c = 'r', kC2r = 'c' };

// What a plan depends on, as text: precision, kind, dims and howmany dims (n, is, os),
// the arrays' alignment and whether they are the same array.
std::string PlanKey(char precision, Kind kind, const std::vector<fftw_iodim64>& dims,
                    const std::vector<fftw_iodim64>& howmany, int in_alignment, int out_alignment, bool in_place) {
  std::string key{precision, static_cast<char>(kind)};
  auto add = [&](const std::vector<fftw_iodim64>& v) {
    key += '|';
    for (const fftw_iodim64& d : v) key += Str(d.n) + ',' + Str(d.is) + ',' + Str(d.os) + ';';
  };
  add(dims);
  add(howmany);
  key += '|' + Str(in_alignment) + ',' + Str(out_alignment) + (in_place ? "i" : "o");
  return key;
}

// Plans kept for the life of the process, at most kMaxCachedPlans of them (a plan is a
// few kilobytes; past the cap, calls plan and destroy their own).
constexpr size_t kMaxCachedPlans = 256;

template <typename R>
class PlanCache {
 public:
  using Plan = typename Fftw<R>::Plan;
  // Returns the cached plan for `key`, or makes one with `make` (under the planner mutex);
  // *owned is true when the caller must destroy it (the cache was full).
  template <typename Make>
  Plan Get(const std::string& key, Make&& make, bool* owned) {
    std::lock_guard<std::mutex> lock(PlannerMutex());
    *owned = false;
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
    Plan plan = make();
    if (plan == nullptr) return plan;
    if (plans_.size() >= kMaxCachedPlans) {
      *owned = true;
      return plan;
    }
    plans_.emplace(key, plan);
    return plan;
  }
  static void Release(Plan plan) {
    std::lock_guard<std::mutex> lock(PlannerMutex());
    Fftw<R>::Destroy(plan);
  }
  static PlanCache& Instance() {
    static PlanCache* cache = new PlanCache();  // never destroyed: plans may be in use at exit
    return *cache;
  }

 private:
  std::unordered_map<std::string, Plan> plans_;
};

fftw_iodim64 Dim(int64_t n, int64_t is, int64_t os) {
  fftw_iodim64 d;
  d.n = n;
  d.is = is;
  d.os = os;
  return d;
}

// One FFTW transform over a batch: `dims` transformed, `batch` extents with their input
// and output strides (in elements of each side's type), run on `threads` threads, each a
// contiguous share of the outermost batch dimension. Errors name the instruction.
template <typename R, typename In, typename Out>
Status RunTransform(const Instruction& fft, Kind kind, const std::vector<fftw_iodim64>& dims,
                    const std::vector<fftw_iodim64>& batch, In* in, Out* out, int threads) {
  using F = Fftw<R>;
  using Complex = typename F::Complex;
  double points = 1;
  for (const fftw_iodim64& d : dims) points *= static_cast<double>(d.n);
  double count = 1;
  for (const fftw_iodim64& d : batch) count *= static_cast<double>(d.n);
  if (points == 0 || count == 0) return Status::Ok();
  // The outermost batch dimension is split across threads; the plan covers one share's
  // extent (two extents at most: the shares differ by one).
  const int64_t outer = batch.empty() ? 1 : batch.front().n;
  const double flops = 5 * points * std::log2(std::max(2.0, points)) * count;
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), outer));
  std::atomic<bool> failed{false};
  const bool ok = ParallelFor(outer, workers, [&](int64_t begin, int64_t end, int) {
    if (begin >= end) return;
    std::vector<fftw_iodim64> howmany = batch;
    int64_t in_offset = 0, out_offset = 0;
    if (!howmany.empty()) {
      howmany.front().n = end - begin;
      in_offset = begin * howmany.front().is;
      out_offset = begin * howmany.front().os;
    }
    In* share_in = in + in_offset;
    Out* share_out = out + out_offset;
    auto* cin = reinterpret_cast<Complex*>(share_in);
    auto* cout = reinterpret_cast<Complex*>(share_out);
    const std::string key = PlanKey(sizeof(R) == 4 ? 's' : 'd', kind, dims, howmany, F::Alignment(share_in),
                                    F::Alignment(share_out),
                                    static_cast<const void*>(share_in) == static_cast<const void*>(share_out));
    // FFTW's iodim64 is one struct for both precisions.
    const auto* d = reinterpret_cast<const typename F::Dim*>(dims.data());
    const auto* h = reinterpret_cast<const typename F::Dim*>(howmany.data());
    const int rank = static_cast<int>(dims.size());
    const int hrank = static_cast<int>(howmany.size());
    bool owned = false;
    typename F::Plan plan = PlanCache<R>::Instance().Get(
        key,
        [&]() -> typename F::Plan {
          if constexpr (std::is_same_v<In, Complex> && std::is_same_v<Out, Complex>) {
            return F::C2c(rank, d, hrank, h, cin, cout, kind == Kind::kForward ? FFTW_FORWARD : FFTW_BACKWARD);
          } else if constexpr (std::is_same_v<In, R>) {
            return F::R2c(rank, d, hrank, h, share_in, cout);
          } else {
            return F::C2r(rank, d, hrank, h, cin, share_out);
          }
        },
        &owned);
    if (plan == nullptr) {
      failed = true;
      return;
    }
    if constexpr (std::is_same_v<In, Complex> && std::is_same_v<Out, Complex>) {
      F::ExecC2c(plan, cin, cout);
    } else if constexpr (std::is_same_v<In, R>) {
      F::ExecR2c(plan, share_in, cout);
    } else {
      F::ExecC2r(plan, cin, share_out);
    }
    if (owned) PlanCache<R>::Release(plan);
  });
  if (!ok) return Invalid(fft, "out of memory in the Fourier transform");
  if (failed) return Unsupported(fft, "FFTW made no plan for this transform");
  return Status::Ok();
}

// Multiplies every element of a dense array by `scale`, in place.
template <typename T, typename S>
void Scale(T* data, int64_t count, S scale) {
  for (int64_t i = 0; i < count; ++i) data[i] *= scale;
}

std::vector<int64_t> RowMajor(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t d = static_cast<int64_t>(dims.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  return strides;
}

// Copies `dims` elements from `src` (element strides `from`) to `dst` (strides `to`).
template <typename T>
void CopyStrided(const T* src, const std::vector<int64_t>& from, T* dst, const std::vector<int64_t>& to,
                 const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t count = 1;
  for (int64_t e : dims) count *= e;
  if (count == 0) return;
  if (rank == 0) {
    *dst = *src;
    return;
  }
  const int64_t last = dims.back(), is = from.back(), os = to.back();
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t done = 0; done < count; done += last) {
    int64_t in = 0, out = 0;
    for (int64_t d = 0; d + 1 < rank; ++d) {
      in += index[d] * from[d];
      out += index[d] * to[d];
    }
    for (int64_t k = 0; k < last; ++k) dst[out + k * os] = src[in + k * is];
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

// The transform along `axis` of a row-major complex array, in place. The last axis is
// contiguous rows: one plan over all of them. Any other axis is columns, which FFTW's
// estimated plans walk slowly (a 256x256 image's columns 20x its rows); so blocks of up to
// 16 columns are gathered into contiguous rows of a scratch buffer, transformed as rows
// and scattered back, the blocks split across the threads.
template <typename R>
Status AxisPass(const Instruction& fft, std::complex<R>* work, const std::vector<int64_t>& dims, int64_t axis,
                Kind kind, int threads) {
  using C = std::complex<R>;
  using Complex = typename Fftw<R>::Complex;
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t n = dims[axis];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= dims[d];
  if (n <= 1 || outer == 0 || inner == 0) return Status::Ok();
  auto* cwork = reinterpret_cast<Complex*>(work);
  if (inner == 1) {
    return RunTransform<R, Complex, Complex>(fft, kind, {Dim(n, 1, 1)}, {Dim(outer, n, n)}, cwork, cwork, threads);
  }
  constexpr int64_t kBlock = 16;
  const int64_t blocks_per_outer = (inner + kBlock - 1) / kBlock;
  const int64_t tasks = outer * blocks_per_outer;
  const double flops = 5.0 * static_cast<double>(n) * std::log2(std::max<double>(2, n)) * static_cast<double>(outer * inner);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), tasks));
  std::atomic<bool> failed{false};
  const bool ok = ParallelFor(tasks, workers, [&](int64_t begin, int64_t end, int) {
    std::vector<C> rows(static_cast<size_t>(kBlock * n));
    for (int64_t t = begin; t < end && !failed; ++t) {
      const int64_t o = t / blocks_per_outer;
      const int64_t j0 = (t % blocks_per_outer) * kBlock;
      const int64_t width = std::min(kBlock, inner - j0);
      C* base = work + o * n * inner + j0;
      for (int64_t k = 0; k < n; ++k) {
        const C* line = base + k * inner;
        for (int64_t j = 0; j < width; ++j) rows[static_cast<size_t>(j * n + k)] = line[j];
      }
      auto* crows = reinterpret_cast<Complex*>(rows.data());
      if (!RunTransform<R, Complex, Complex>(fft, kind, {Dim(n, 1, 1)}, {Dim(width, n, n)}, crows, crows, 1).ok()) {
        failed = true;
        return;
      }
      for (int64_t k = 0; k < n; ++k) {
        C* line = base + k * inner;
        for (int64_t j = 0; j < width; ++j) line[j] = rows[static_cast<size_t>(j * n + k)];
      }
    }
  });
  if (!ok) return Invalid(fft, "out of memory in the Fourier transform");
  if (failed) return Unsupported(fft, "FFTW made no plan for this transform");
  return Status::Ok();
}

template <typename R>
Status RunFftTyped(const Instruction& fft, const FftPlan& p, const void* operand, void* result, int threads) {
  using Complex = typename Fftw<R>::Complex;
  using C = std::complex<R>;
  const int64_t fft_rank = static_cast<int64_t>(p.lengths.size());
  const int64_t first = p.rank - fft_rank;
  double n_total = 1;
  for (int64_t n : p.lengths) n_total *= static_cast<double>(n);
  const std::vector<int64_t>& in_dims = fft.operand(0)->shape().dimensions();
  const std::vector<int64_t>& out_dims = fft.shape().dimensions();
  int64_t out_count = 1;
  for (int64_t e : out_dims) out_count *= e;
  const Kind direction = p.type == FftType::kFft || p.type == FftType::kRfft ? Kind::kForward : Kind::kBackward;
  if (fft_rank == 1 && p.type != FftType::kIrfft) {
    // One plan: the transformed dimension and the batch, read and written where they lie.
    std::vector<fftw_iodim64> batch;
    for (int64_t d = 0; d < first; ++d) batch.push_back(Dim(p.batch[d], p.in_strides[d], p.out_strides[d]));
    const std::vector<fftw_iodim64> dims = {Dim(p.lengths[0], p.in_strides[first], p.out_strides[first])};
    auto* out = reinterpret_cast<Complex*>(result);
    if (p.type == FftType::kRfft) {
      return RunTransform<R, R, Complex>(fft, Kind::kR2c, dims, batch, static_cast<R*>(const_cast<void*>(operand)), out,
                                         threads);
    }
    auto* in = reinterpret_cast<Complex*>(const_cast<void*>(operand));
    RETURN_IF_ERROR((RunTransform<R, Complex, Complex>(fft, direction, dims, batch, in, out, threads)));
    if (p.type == FftType::kIfft) Scale(static_cast<C*>(result), out_count, static_cast<R>(1.0 / n_total));
    return Status::Ok();
  }
  // Several dimensions (or IRFFT): a row-major complex copy transformed one axis at a time.
  const std::vector<int64_t>& complex_dims = p.type == FftType::kRfft ? out_dims : in_dims;
  const std::vector<int64_t> row_major = RowMajor(complex_dims);
  int64_t complex_count = 1;
  for (int64_t e : complex_dims) complex_count *= e;
  // The result itself when it is that copy's shape and row-major (FFT, IFFT, RFFT after
  // layout normalization): no scratch, no copy back.
  const bool in_result = p.type != FftType::kIrfft && p.out_strides == row_major;
  std::vector<C> scratch(in_result ? 0 : static_cast<size_t>(complex_count));
  C* work = in_result ? static_cast<C*>(result) : scratch.data();
  auto* cwork = reinterpret_cast<Complex*>(work);
  const int64_t last = p.rank - 1;
  const int64_t rows = complex_dims[last] == 0 ? 0 : complex_count / complex_dims[last];
  if (p.type == FftType::kRfft) {
    // Real-to-complex along the last dimension, from the operand into the copy.
    std::vector<fftw_iodim64> batch;
    for (int64_t d = 0; d < last; ++d) batch.push_back(Dim(in_dims[d], p.in_strides[d], row_major[d]));
    RETURN_IF_ERROR((RunTransform<R, R, Complex>(fft, Kind::kR2c, {Dim(p.lengths.back(), p.in_strides[last], 1)}, batch,
                                                 static_cast<R*>(const_cast<void*>(operand)), cwork, threads)));
  } else {
    CopyStrided(static_cast<const C*>(operand), p.in_strides, work, row_major, in_dims);
    if (p.type != FftType::kIrfft) {
      RETURN_IF_ERROR((RunTransform<R, Complex, Complex>(fft, direction, {Dim(complex_dims[last], 1, 1)},
                                                         {Dim(rows, complex_dims[last], complex_dims[last])}, cwork,
                                                         cwork, threads)));
    }
  }
  for (int64_t d = first; d < last; ++d) RETURN_IF_ERROR(AxisPass<R>(fft, work, complex_dims, d, direction, threads));
  if (p.type == FftType::kIrfft) {
    // Complex-to-real along the last dimension, into the result where it lies.
    std::vector<fftw_iodim64> batch;
    for (int64_t d = 0; d < last; ++d) batch.push_back(Dim(in_dims[d], row_major[d], p.out_strides[d]));
    RETURN_IF_ERROR((RunTransform<R, Complex, R>(fft, Kind::kC2r, {Dim(p.lengths.back(), 1, p.out_strides[last])}, batch,
                                                 cwork, static_cast<R*>(result), threads)));
    Scale(static_cast<R*>(result), out_count, static_cast<R>(1.0 / n_total));
    return Status::Ok();
  }
  if (p.type == FftType::kIfft) Scale(work, complex_count, static_cast<R>(1.0 / n_total));
  if (!in_result) CopyStrided(static_cast<const C*>(work), row_major, static_cast<C*>(result), p.out_strides, out_dims);
  return Status::Ok();
}

}  // namespace

double LoadFftLibrary() {
  struct Fftw;
  return TimeOnce<Fftw>([] { return LoadFftw<float>(nullptr) != nullptr && LoadFftw<double>(nullptr) != nullptr; });
}

bool CanRunFft(const Instruction& fft, std::string* why) {
  FftPlan plan;
  const Status status = PlanFft(fft, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunFft(const Instruction& fft, const void* operand, void* result, int threads) {
  FftPlan p;
  RETURN_IF_ERROR(PlanFft(fft, &p));
  for (int64_t e : fft.shape().dimensions()) {
    if (e == 0) return Status::Ok();
  }
  if (operand == nullptr || result == nullptr) return Invalid(fft, "null buffer");
  // A result that overlaps the operand (a buffer reused in place) reads a copy.
  const int64_t real_bytes = p.real == PrimitiveType::kF64 ? 8 : 4;
  const auto bytes = [&](const Shape& s) {
    int64_t c = IsComplex(s.element_type()) ? 2 * real_bytes : real_bytes;
    for (int64_t e : s.dimensions()) c *= e;
    return c;
  };
  const int64_t in_bytes = bytes(fft.operand(0)->shape());
  const auto* in_begin = static_cast<const uint8_t*>(operand);
  const auto* out_begin = static_cast<const uint8_t*>(result);
  std::vector<uint8_t> copy;
  if (in_begin < out_begin + bytes(fft.shape()) && out_begin < in_begin + in_bytes) {
    copy.assign(in_begin, in_begin + in_bytes);
    operand = copy.data();
  }
  std::string why;
  if (p.real == PrimitiveType::kF64) {
    if (LoadFftw<double>(&why) == nullptr) return Unsupported(fft, why);
    return RunFftTyped<double>(fft, p, operand, result, threads);
  }
  if (LoadFftw<float>(&why) == nullptr) return Unsupported(fft, why);
  return RunFftTyped<float>(fft, p, operand, result, threads);
}

}  // namespace fusebox::runtime
