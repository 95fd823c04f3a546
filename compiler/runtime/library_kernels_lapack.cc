// The CPU runtime's LAPACK calls: jax's `lapack_*_ffi` custom calls through LAPACK itself
// (library_kernels.h), as XLA's CPU backend runs them through jaxlib's LAPACK kernels.
//
// LAPACK is Debian's (liblapack.so.3: reference LAPACK, or OpenBLAS's where the
// alternatives point there), loaded at run time as oneDNN and FFTW are; its Fortran entry
// points take every argument by reference and, after the last one, the lengths of the
// character arguments. Each matrix of the batch is copied into a column-major scratch
// (LAPACK's order) from wherever its layout puts it, factored there, and its results
// copied out to theirs, so the call reads any layout and may write over its operand (XLA
// aliases the factor with the matrix). The batch is split across the threads; each thread
// has its own scratch and workspace (sized by LAPACK's workspace query, once a call).
#include <mutex>

#include "compiler/ir/backend_config.h"
#include "compiler/ir/library_calls.h"
#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime {

using namespace library;  // NOLINT: the shared machinery of the library kernels

namespace {

using Len = size_t;  // gfortran's hidden character lengths

// Complex element types (LAPACK's c and z routines) and their real parts.
template <typename T>
struct Scalar {
  static constexpr bool kComplex = false;
  using Real = T;
};
template <typename T>
struct Scalar<std::complex<T>> {
  static constexpr bool kComplex = true;
  using Real = T;
};

// The routines of one element type (R: float, double or their complex), resolved by name:
// s..., d..., c... or z.... The complex types bind potrf, getrf, geqrf, ungqr (as orgqr),
// trsm and heevd; the real ones everything but heevd.
template <typename R>
struct LapackApi {
  using Real = typename Scalar<R>::Real;
  void (*potrf)(const char*, const int*, R*, const int*, int*, Len) = nullptr;
  void (*getrf)(const int*, const int*, R*, const int*, int*, int*) = nullptr;
  void (*geqrf)(const int*, const int*, R*, const int*, R*, R*, const int*, int*) = nullptr;
  void (*orgqr)(const int*, const int*, const int*, R*, const int*, const R*, R*, const int*, int*) = nullptr;
  void (*syevd)(const char*, const char*, const int*, R*, const int*, R*, R*, const int*, int*, const int*, int*, Len,
                Len) = nullptr;
  void (*gesdd)(const char*, const int*, const int*, R*, const int*, R*, R*, const int*, R*, const int*, R*, const int*,
                int*, int*, Len) = nullptr;
  void (*gehrd)(const int*, const int*, const int*, R*, const int*, R*, R*, const int*, int*) = nullptr;
  void (*geqp3)(const int*, const int*, R*, const int*, int*, R*, R*, const int*, int*) = nullptr;
  void (*gtsv)(const int*, const int*, R*, R*, R*, R*, const int*, int*) = nullptr;
  void (*geev)(const char*, const char*, const int*, R*, const int*, R*, R*, R*, const int*, R*, const int*, R*,
               const int*, int*, Len, Len) = nullptr;
  // BLAS's triangular solve (LAPACK's library carries BLAS or loads it: dlsym finds it).
  void (*trsm)(const char*, const char*, const char*, const char*, const int*, const int*, const R*, const R*,
               const int*, R*, const int*, Len, Len, Len, Len) = nullptr;
  // Schur decomposition: the real form (wr, wi) and the complex one (w, rwork).
  void (*gees)(const char*, const char*, void*, const int*, R*, const int*, int*, R*, R*, R*, const int*, R*,
               const int*, int*, int*, Len, Len) = nullptr;
  void (*complex_gees)(const char*, const char*, void*, const int*, R*, const int*, int*, R*, R*, const int*, R*,
                       const int*, Real*, int*, int*, Len, Len) = nullptr;
  // A complex matrix's SVD: real singular values, real workspace rwork.
  void (*complex_gesdd)(const char*, const int*, const int*, R*, const int*, Real*, R*, const int*, R*, const int*, R*,
                        const int*, Real*, int*, int*, Len) = nullptr;
  // A general complex matrix's eigendecomposition (w, vl, vr, rwork).
  void (*complex_geev)(const char*, const char*, const int*, R*, const int*, R*, R*, const int*, R*, const int*, R*,
                       const int*, Real*, int*, Len, Len) = nullptr;
  // Hermitian eigendecomposition (complex R): real eigenvalues, real workspace rwork.
  void (*heevd)(const char*, const char*, const int*, R*, const int*, Real*, R*, const int*, Real*, const int*, int*,
                const int*, int*, Len, Len) = nullptr;
  // Whether calls from several threads must take turns (LapackTurns): OpenBLAS's
  // sequential build (openblas_get_parallel() == 0, Debian's libopenblas0-serial) hands out
  // its scratch buffers without a lock, and two calls at once then corrupt each other's
  // results (measured: 4 of 6000 pairs of concurrent batched strsm and sgetrf calls gave
  // wrong results). Reference LAPACK and OpenBLAS's threaded builds (libopenblas0-pthread,
  // which setup.sh installs) are safe; Fusebox sets the threaded build to one thread per
  // call and splits the batch across its own threads.
  bool take_turns = false;
};

// The lock calls take when the library is not safe to call from several threads at once.
std::mutex& LapackTurns() {
  static std::mutex* turns = new std::mutex();
  return *turns;
}

template <typename R>
const LapackApi<R>* LoadLapack(std::string* why) {
  return LoadApiOnce<LapackApi<R>>(
      [](LapackApi<R>& a) -> std::string {
        RuntimeLibrary library("liblapack.so.3", "liblapack3 and libopenblas0-pthread");
        constexpr bool complex = Scalar<R>::kComplex;
        const std::string prefix(1, sizeof(typename Scalar<R>::Real) == 4 ? (complex ? 'c' : 's') : (complex ? 'z' : 'd'));
        library.Bind(a.potrf, prefix + "potrf_");
        library.Bind(a.getrf, prefix + "getrf_");
        library.Bind(a.geqrf, prefix + "geqrf_");
        library.Bind(a.trsm, prefix + "trsm_");
        if constexpr (complex) {
          library.Bind(a.orgqr, prefix + "ungqr_");
          library.Bind(a.heevd, prefix + "heevd_");
          library.Bind(a.complex_gees, prefix + "gees_");
          library.Bind(a.complex_geev, prefix + "geev_");
          library.Bind(a.complex_gesdd, prefix + "gesdd_");
        } else {
          library.Bind(a.orgqr, prefix + "orgqr_");
          library.Bind(a.syevd, prefix + "syevd_");
          library.Bind(a.gesdd, prefix + "gesdd_");
          library.Bind(a.gehrd, prefix + "gehrd_");
          library.Bind(a.geqp3, prefix + "geqp3_");
          library.Bind(a.gtsv, prefix + "gtsv_");
          library.Bind(a.geev, prefix + "geev_");
          library.Bind(a.gees, prefix + "gees_");
        }
        int (*openblas_parallel)() = nullptr;
        void (*openblas_threads)(int) = nullptr;
        library.BindOptional(openblas_parallel, "openblas_get_parallel");
        library.BindOptional(openblas_threads, "openblas_set_num_threads");
        if (openblas_threads != nullptr) openblas_threads(1);
        a.take_turns = openblas_parallel != nullptr && openblas_parallel() == 0;
        return library.ok() ? std::string() : "LAPACK: " + library.missing();
      },
      why);
}

// One array operand or result: its buffer and element strides (DenseStrides).
struct Side {
  uint8_t* data = nullptr;
  std::vector<int64_t> strides;
  std::vector<int64_t> dims;
};

// The offset (in elements) of batch `b` (row-major over the leading `batch_rank` dims).
int64_t BatchOffset(const Side& side, int64_t batch_rank, int64_t b) {
  int64_t offset = 0;
  for (int64_t d = batch_rank - 1; d >= 0; --d) {
    const int64_t e = std::max<int64_t>(side.dims[d], 1);
    offset += (b % e) * side.strides[d];
    b /= e;
  }
  return offset;
}

// Copies a rows x cols matrix, element (i, j) from src[i * srs + j * scs] to
// dst[i * drs + j * dcs]: along the contiguous dimension when both share one, else in
// 16 x 16 tiles (a transposition: each tile's reads and writes stay in the cache).
template <typename T>
void CopyMatrix(const T* src, int64_t srs, int64_t scs, T* dst, int64_t drs, int64_t dcs, int64_t rows, int64_t cols) {
  if (scs == 1 && dcs == 1) {
    for (int64_t i = 0; i < rows; ++i) std::copy_n(src + i * srs, cols, dst + i * drs);
    return;
  }
  if (srs == 1 && drs == 1) {
    for (int64_t j = 0; j < cols; ++j) std::copy_n(src + j * scs, rows, dst + j * dcs);
    return;
  }
  constexpr int64_t kTile = 16;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    const int64_t i1 = std::min(rows, i0 + kTile);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t j1 = std::min(cols, j0 + kTile);
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) dst[i * drs + j * dcs] = src[i * srs + j * scs];
      }
    }
  }
}

// Matrix b of `side` ([..., rows, cols]): its first element and its row and column strides.
template <typename T>
T* MatrixAt(const Side& side, int64_t b, int64_t* rs, int64_t* cs) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  *rs = side.strides[r - 2];
  *cs = side.strides[r - 1];
  return reinterpret_cast<T*>(side.data) + BatchOffset(side, r - 2, b);
}

// Copies matrix `b` of `side` into column-major `dst` (leading dimension `ld`), or back.
template <typename T>
void ToColumnMajor(const Side& side, int64_t b, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  int64_t rs, cs;
  const T* base = MatrixAt<T>(side, b, &rs, &cs);
  CopyMatrix(base, rs, cs, dst, int64_t{1}, ld, rows, cols);
}
template <typename T>
void FromColumnMajor(const T* src, int64_t ld, const Side& side, int64_t b, int64_t rows, int64_t cols) {
  int64_t rs, cs;
  T* base = MatrixAt<T>(side, b, &rs, &cs);
  CopyMatrix(src, int64_t{1}, ld, base, rs, cs, rows, cols);
}

// How LAPACK sees matrix b of `side` ([..., rows, cols]) where it lies: a pointer to it
// and the leading dimension, when the layout is column-major (rows contiguous, as jax's
// calls ask for) or, with `transposed`, row-major (columns contiguous: LAPACK then sees
// the cols x rows transpose, which a triangular solve or a Cholesky factorization can use
// with its side or triangle swapped); nullptr when it is neither.
template <typename T>
T* MatrixView(const Side& side, int64_t b, int64_t rows, int64_t cols, bool transposed, int* ld) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  int64_t contiguous = side.strides[r - 2], leading = side.strides[r - 1];
  if (transposed) {
    std::swap(contiguous, leading);
    std::swap(rows, cols);
  }
  if (rows > 1 && contiguous != 1) return nullptr;
  if (cols <= 1) leading = std::max<int64_t>(1, rows);
  if (leading < std::max<int64_t>(1, rows) || leading > std::numeric_limits<int>::max()) return nullptr;
  *ld = static_cast<int>(leading);
  return reinterpret_cast<T*>(side.data) + BatchOffset(side, r - 2, b);
}

// Matrix b of `in`, ready for LAPACK to overwrite with what lands in the same matrix of
// `out` (of in's dimensions): out's own memory where MatrixView sees it in the
// orientation asked for (in's matrix copied there unless the two are one buffer laid out
// alike), else column-major `scratch` (leading dimension rows), which StoreMatrix copies
// out; *transposed says which LAPACK got.
template <typename T>
T* LoadMatrix(const Side& in, const Side& out, int64_t b, int64_t rows, int64_t cols, bool may_transpose,
              std::vector<T>& scratch, int* ld, bool* transposed) {
  const bool same_buffer = in.data == out.data;
  if (!same_buffer || in.strides == out.strides) {
    for (bool t : {false, true}) {
      if (t && !may_transpose) break;
      if (T* view = MatrixView<T>(out, b, rows, cols, t, ld)) {
        if (!same_buffer) {
          int64_t irs, ics, ors, ocs;
          const T* from = MatrixAt<T>(in, b, &irs, &ics);
          T* to = MatrixAt<T>(out, b, &ors, &ocs);
          CopyMatrix(from, irs, ics, to, ors, ocs, rows, cols);
        }
        *transposed = t;
        return view;
      }
    }
  }
  *ld = static_cast<int>(std::max<int64_t>(1, rows));
  *transposed = false;
  ToColumnMajor(in, b, rows, cols, scratch.data(), *ld);
  return scratch.data();
}
template <typename T>
void StoreMatrix(const T* matrix, int ld, const std::vector<T>& scratch, const Side& out, int64_t b, int64_t rows,
                 int64_t cols) {
  if (matrix == scratch.data()) FromColumnMajor(matrix, ld, out, b, rows, cols);
}

// Writes `count` values of a vector result ([..., count]) for batch `b`.
template <typename T, typename S>
void WriteVector(const S* src, int64_t count, const Side& side, int64_t b) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  T* base = reinterpret_cast<T*>(side.data) + BatchOffset(side, r - 1, b);
  const int64_t s = r > 0 ? side.strides[r - 1] : 1;
  for (int64_t i = 0; i < count; ++i) base[i * s] = static_cast<T>(src[i]);
}
template <typename T>
void ReadVector(const Side& side, int64_t b, int64_t count, T* dst) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  const T* base = reinterpret_cast<const T*>(side.data) + BatchOffset(side, r - 1, b);
  const int64_t s = r > 0 ? side.strides[r - 1] : 1;
  for (int64_t i = 0; i < count; ++i) dst[i] = base[i * s];
}
// The s32 info of batch `b` (a scalar per matrix).
void WriteInfo(const Side& side, int64_t b, int info) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  auto* base = reinterpret_cast<int32_t*>(side.data) + BatchOffset(side, r, b);
  *base = info;
}

// A workspace query's answer as LAPACK's int, INT_MAX when it does not fit.
template <typename R>
int WorkspaceSize(R answer) {
  const double query = static_cast<double>(std::real(answer));
  if (!(query < static_cast<double>(std::numeric_limits<int>::max()))) return std::numeric_limits<int>::max();
  return std::max(1, static_cast<int>(query));
}

// Whether LAPACK's 32-bit integers hold every dimension.
bool FitsInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max() / 2; }

// The order and the count of the square matrices `a` ([..., n, n]) holds.
Status SquareBatch(const Instruction& call, const Side& a, int64_t* n, int64_t* batches) {
  const int64_t rank = static_cast<int64_t>(a.dims.size());
  *n = a.dims[rank - 1];
  if (!FitsInt(*n)) return Unsupported(call, "matrices of more than 2^30 rows");
  *batches = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) *batches *= a.dims[d];
  return Status::Ok();
}

// LAPACK's 32-bit workspace sizes (WorkspaceSize answers INT_MAX past them): a query past
// them (a matrix of tens of thousands of rows) is refused rather than wrapped.
Status WorkspaceFits(const Instruction& call, const Side& a, int largest) {
  if (largest < std::numeric_limits<int>::max()) return Status::Ok();
  return Unsupported(call, "LAPACK's workspace for " + DimsText(a.dims) + " does not fit its 32-bit sizes");
}

template <typename R>
Status RunLapackTyped(const Instruction& call, const LibraryCall& desc, const LapackApi<R>& lapack,
                      const std::vector<Side>& in, const std::vector<Side>& out, int threads) {
  const int64_t rank = static_cast<int64_t>(in[0].dims.size());
  const int64_t m64 = in[0].dims[rank - 2], n64 = in[0].dims[rank - 1];
  int64_t batches = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batches *= in[0].dims[d];
  if (!FitsInt(m64) || !FitsInt(n64)) return Unsupported(call, "matrices of more than 2^30 rows or columns");
  const int m = static_cast<int>(m64), n = static_cast<int>(n64);
  const int k = std::min(m, n);
  const int lda = std::max(1, m);
  if (batches == 0) return Status::Ok();
  const auto& kind = desc.kind;
  using Real = typename Scalar<R>::Real;
  constexpr bool complex = Scalar<R>::kComplex;
  if (complex && kind != LibraryCallKind::kCholesky && kind != LibraryCallKind::kLu && kind != LibraryCallKind::kQr &&
      kind != LibraryCallKind::kHouseholderProduct && kind != LibraryCallKind::kSymmetricEigen &&
      kind != LibraryCallKind::kSvd) {
    return Unsupported(call, "complex matrices (potrf, getrf, geqrf, ungqr, heevd, gesdd, geev, gees and trsm run complex)");
  }
  // Workspace sizes: LAPACK's query (lwork = -1) on the call's dimensions, once.
  int lwork = 1, liwork = 1, lrwork = 1;
  const char uplo = desc.lower ? 'L' : 'U';
  char jobz = 'V';
  if (kind == LibraryCallKind::kSymmetricEigen || kind == LibraryCallKind::kSvd) {
    if (std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(call)) {
      auto it = attributes->find("mode");
      if (it != attributes->end() && !it->second.empty()) {
        const int code = std::atoi(it->second.c_str());  // a ui8 character code
        jobz = code > 0 ? static_cast<char>(code) : it->second[0];
      }
    }
    if (kind == LibraryCallKind::kSvd) jobz = desc.svd_mode;
  }
  const int ldu = std::max(1, m);
  const int ucols = jobz == 'A' ? m : k;
  const int ldvt = std::max(1, jobz == 'A' ? n : k);
  {
    R query = 0;
    int iquery = 0, info = 0;
    const int minus_one = -1;
    std::vector<R> probe(1);
    switch (kind) {
      case LibraryCallKind::kQr:
        lapack.geqrf(&m, &n, probe.data(), &lda, probe.data(), &query, &minus_one, &info);
        lwork = WorkspaceSize(query);
        break;
      case LibraryCallKind::kHouseholderProduct: {
        const int kk = static_cast<int>(in[1].dims.back());
        lapack.orgqr(&m, &n, &kk, probe.data(), &lda, probe.data(), &query, &minus_one, &info);
        lwork = WorkspaceSize(query);
        break;
      }
      case LibraryCallKind::kSymmetricEigen:
        if constexpr (complex) {
          Real rquery = 0, rprobe = 0;
          lapack.heevd(&jobz, &uplo, &n, probe.data(), &lda, &rprobe, &query, &minus_one, &rquery, &minus_one, &iquery,
                       &minus_one, &info, 1, 1);
          lrwork = WorkspaceSize(rquery);
        } else {
          lapack.syevd(&jobz, &uplo, &n, probe.data(), &lda, probe.data(), &query, &minus_one, &iquery, &minus_one,
                       &info, 1, 1);
        }
        lwork = WorkspaceSize(query);
        liwork = std::max(1, iquery);
        break;
      case LibraryCallKind::kSvd:
        if constexpr (complex) {
          Real rprobe = 0;
          lapack.complex_gesdd(&jobz, &m, &n, probe.data(), &lda, &rprobe, probe.data(), &ldu, probe.data(), &ldvt, &query,
                               &minus_one, &rprobe, &iquery, &info, 1);
          // LAPACK's rwork: 7 min(m, n) without vectors (older releases' bound), else
          // min(m, n) max(5 min(m, n) + 7, 2 max(m, n) + 2 min(m, n) + 1).
          const int64_t small = k, large = std::max(m, n);
          const int64_t need = jobz == 'N' ? 7 * small : small * std::max(5 * small + 7, 2 * large + 2 * small + 1);
          lrwork = need > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                          : std::max(1, static_cast<int>(need));
        } else {
          lapack.gesdd(&jobz, &m, &n, probe.data(), &lda, probe.data(), probe.data(), &ldu, probe.data(), &ldvt, &query,
                       &minus_one, &iquery, &info, 1);
        }
        lwork = WorkspaceSize(query);
        liwork = std::max(1, 8 * k);
        break;
      case LibraryCallKind::kHessenberg: {
        const int one = 1;
        lapack.gehrd(&n, &one, &n, probe.data(), &lda, probe.data(), &query, &minus_one, &info);
        lwork = WorkspaceSize(query);
        break;
      }
      case LibraryCallKind::kPivotingQr: {
        int jpvt_probe = 0;
        lapack.geqp3(&m, &n, probe.data(), &lda, &jpvt_probe, probe.data(), &query, &minus_one, &info);
        lwork = WorkspaceSize(query);
        break;
      }
      default:
        break;
    }
  }
  RETURN_IF_ERROR(WorkspaceFits(call, in[0], std::max({lwork, liwork, lrwork})));
  const double flops = static_cast<double>(batches) * 4.0 * static_cast<double>(m64) * static_cast<double>(n64) *
                       static_cast<double>(std::max(m64, n64));
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    std::vector<R> a(static_cast<size_t>(std::max<int64_t>(1, m64 * n64)));
    std::vector<R> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    std::vector<R> vec(static_cast<size_t>(std::max(1, std::max(m, n))));
    std::vector<Real> values(static_cast<size_t>(std::max(1, std::max(m, n)))), rwork(static_cast<size_t>(lrwork));
    std::vector<int> ipiv(static_cast<size_t>(std::max(1, std::max(k, n))));
    std::vector<R> u, vt;
    if (kind == LibraryCallKind::kSvd && jobz != 'N') {
      u.resize(static_cast<size_t>(std::max<int64_t>(1, int64_t{ldu} * ucols)));
      vt.resize(static_cast<size_t>(std::max<int64_t>(1, int64_t{ldvt} * n)));
    }
    for (int64_t b = begin; b < end; ++b) {
      int ld = lda;
      bool transposed = false;
      // A symmetric matrix is its own transpose: a row-major one is factored where it lies,
      // its other triangle asked for.
      R* x = LoadMatrix(in[0], out[0], b, m64, n64, kind == LibraryCallKind::kCholesky, a, &ld, &transposed);
      int info = 0;
      switch (kind) {
        case LibraryCallKind::kCholesky: {
          const char triangle = transposed ? (desc.lower ? 'U' : 'L') : uplo;
          lapack.potrf(&triangle, &n, x, &ld, &info, 1);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteInfo(out[1], b, info);
          break;
        }
        case LibraryCallKind::kLu:
          lapack.getrf(&m, &n, x, &ld, ipiv.data(), &info);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteVector<int32_t>(ipiv.data(), k, out[1], b);
          WriteInfo(out[2], b, info);
          break;
        case LibraryCallKind::kQr:
          lapack.geqrf(&m, &n, x, &ld, vec.data(), work.data(), &lwork, &info);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteVector<R>(vec.data(), k, out[1], b);
          break;
        case LibraryCallKind::kHouseholderProduct: {
          const int kk = static_cast<int>(in[1].dims.back());
          ReadVector<R>(in[1], b, kk, vec.data());
          lapack.orgqr(&m, &n, &kk, x, &ld, vec.data(), work.data(), &lwork, &info);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          break;
        }
        case LibraryCallKind::kSymmetricEigen:
          if constexpr (complex) {
            lapack.heevd(&jobz, &uplo, &n, x, &ld, values.data(), work.data(), &lwork, rwork.data(), &lrwork,
                         iwork.data(), &liwork, &info, 1, 1);
            WriteVector<Real>(values.data(), n, out[1], b);
          } else {
            lapack.syevd(&jobz, &uplo, &n, x, &ld, vec.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1,
                         1);
            WriteVector<R>(vec.data(), n, out[1], b);
          }
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteInfo(out[2], b, info);
          break;
        case LibraryCallKind::kSvd: {
          R* up = u.empty() ? vec.data() : u.data();
          R* vtp = vt.empty() ? vec.data() : vt.data();
          if constexpr (complex) {
            lapack.complex_gesdd(&jobz, &m, &n, x, &ld, values.data(), up, &ldu, vtp, &ldvt, work.data(), &lwork,
                                 rwork.data(), iwork.data(), &info, 1);
            WriteVector<Real>(values.data(), k, out[1], b);
          } else {
            lapack.gesdd(&jobz, &m, &n, x, &ld, vec.data(), up, &ldu, vtp, &ldvt, work.data(), &lwork, iwork.data(),
                         &info, 1);
            WriteVector<R>(vec.data(), k, out[1], b);
          }
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          const int64_t u_rows = out[2].dims[out[2].dims.size() - 2], u_cols = out[2].dims.back();
          const int64_t vt_rows = out[3].dims[out[3].dims.size() - 2], vt_cols = out[3].dims.back();
          if (jobz == 'N') {
            // No vectors asked for: written as zeros (LAPACK leaves them alone).
            std::vector<R> zeros(static_cast<size_t>(std::max<int64_t>(1, std::max(u_rows * u_cols, vt_rows * vt_cols))));
            FromColumnMajor(zeros.data(), std::max<int64_t>(1, u_rows), out[2], b, u_rows, u_cols);
            FromColumnMajor(zeros.data(), std::max<int64_t>(1, vt_rows), out[3], b, vt_rows, vt_cols);
          } else {
            FromColumnMajor(up, ldu, out[2], b, u_rows, u_cols);
            FromColumnMajor(vtp, ldvt, out[3], b, vt_rows, vt_cols);
          }
          WriteInfo(out[4], b, info);
          break;
        }
        case LibraryCallKind::kHessenberg: {
          const int one = 1;
          lapack.gehrd(&n, &one, &n, x, &ld, vec.data(), work.data(), &lwork, &info);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteVector<R>(vec.data(), std::max(n - 1, 0), out[1], b);
          WriteInfo(out[2], b, info);
          break;
        }
        case LibraryCallKind::kPivotingQr:
          // jax's jpvt: zeros (every column free), or LAPACK's fixed columns where nonzero.
          ReadVector<int32_t>(in[1], b, n, ipiv.data());
          lapack.geqp3(&m, &n, x, &ld, ipiv.data(), vec.data(), work.data(), &lwork, &info);
          StoreMatrix(x, ld, a, out[0], b, m64, n64);
          WriteVector<int32_t>(ipiv.data(), n, out[1], b);
          WriteVector<R>(vec.data(), k, out[2], b);
          break;
        default:
          break;
      }
    }
  });
  if (!ok) return Invalid(call, "out of memory in the LAPACK call");
  return Status::Ok();
}

// BLAS's trsm on each matrix pair: a [..., k, k] (k = m on the left, n on the right) and b
// [..., m, n], x over b. alpha is 1 (jax's calls carry no alpha operand).
template <typename R>
Status RunTriangularSolveTyped(const Instruction& call, const LibraryCall& desc, const LapackApi<R>& lapack,
                               const std::vector<Side>& in, const std::vector<Side>& out, int threads) {
  const Side& a = in[0];
  const Side& rhs = in[1];
  const int64_t rank = static_cast<int64_t>(rhs.dims.size());
  const int64_t m64 = rhs.dims[rank - 2], n64 = rhs.dims[rank - 1];
  const int64_t k64 = desc.left_side ? m64 : n64;
  if (!FitsInt(m64) || !FitsInt(n64)) return Unsupported(call, "matrices of more than 2^30 rows or columns");
  int64_t batches = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batches *= rhs.dims[d];
  if (batches == 0 || m64 == 0 || n64 == 0) return Status::Ok();
  const int m = static_cast<int>(m64), n = static_cast<int>(n64), k = static_cast<int>(k64);
  const char side = desc.left_side ? 'L' : 'R';
  const char uplo = desc.lower ? 'L' : 'U';
  const char trans = desc.transpose_a == TransposeA::kNoTranspose ? 'N'
                     : desc.transpose_a == TransposeA::kTranspose || !Scalar<R>::kComplex
                         ? 'T'  // real: the adjoint is the transpose
                         : 'C';
  const char diag = desc.unit_diagonal ? 'U' : 'N';
  const R one = 1;
  const double flops = static_cast<double>(batches) * static_cast<double>(k64) * static_cast<double>(k64) *
                       static_cast<double>(desc.left_side ? n64 : m64);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    std::vector<R> t, scratch(static_cast<size_t>(m64 * n64));
    for (int64_t b = begin; b < end; ++b) {
      int ldx = m;
      bool transposed = false;
      R* x = LoadMatrix(rhs, out[0], b, m64, n64, /*may_transpose=*/true, scratch, &ldx, &transposed);
      // x lies as LAPACK sees it (column-major) or as its transpose (row-major): there
      // op(a) x = b is x^T op(a)^T = b^T, the solve from the other side with a's other
      // triangle (a read in the same orientation, itself transposed).
      int lda = k;
      const R* tri = MatrixView<R>(a, b, k64, k64, transposed, &lda);
      if (tri == nullptr) {
        t.resize(static_cast<size_t>(k64 * k64));
        if (transposed) {
          int64_t rs, cs;
          const R* from = MatrixAt<R>(a, b, &rs, &cs);
          CopyMatrix(from, cs, rs, t.data(), int64_t{1}, k64, k64, k64);  // a^T, column-major
        } else {
          ToColumnMajor(a, b, k64, k64, t.data(), k64);
        }
        tri = t.data();
        lda = k;
      }
      const char s = transposed ? (desc.left_side ? 'R' : 'L') : side;
      const char u = transposed ? (desc.lower ? 'U' : 'L') : uplo;
      const int rows = transposed ? n : m, cols = transposed ? m : n;
      lapack.trsm(&s, &u, &trans, &diag, &rows, &cols, &one, tri, &lda, x, &ldx, 1, 1, 1, 1);
      StoreMatrix(x, ldx, scratch, out[0], b, m64, n64);
    }
  });
  if (!ok) return Invalid(call, "out of memory in the triangular solve");
  return Status::Ok();
}

// LAPACK's gtsv on each system: dl, d, du [..., n] and b [..., n, nrhs]; LAPACK gets dl + 1
// (jax's dl[0] and du[n - 1] lie outside the matrix) and leaves its factors in all three.
template <typename R>
Status RunTridiagonalSolveTyped(const Instruction& call, const LapackApi<R>& lapack, const std::vector<Side>& in,
                                const std::vector<Side>& out, int threads) {
  const Side& rhs = in[3];
  const int64_t rank = static_cast<int64_t>(rhs.dims.size());
  const int64_t n64 = rhs.dims[rank - 2], nrhs64 = rhs.dims[rank - 1];
  if (!FitsInt(n64) || !FitsInt(nrhs64)) return Unsupported(call, "systems of more than 2^30 rows or columns");
  int64_t batches = 1;
  for (int64_t d = 0; d + 2 < rank; ++d) batches *= rhs.dims[d];
  if (batches == 0) return Status::Ok();
  const int n = static_cast<int>(n64), nrhs = static_cast<int>(nrhs64), ldb = std::max(1, n);
  const double flops = static_cast<double>(batches) * 8.0 * static_cast<double>(n64) * static_cast<double>(nrhs64 + 1);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    std::vector<R> dl(static_cast<size_t>(n64 + 1)), d(static_cast<size_t>(n64 + 1)), du(static_cast<size_t>(n64 + 1));
    std::vector<R> x(static_cast<size_t>(std::max<int64_t>(1, n64 * nrhs64)));
    for (int64_t b = begin; b < end; ++b) {
      ReadVector<R>(in[0], b, n64, dl.data());
      ReadVector<R>(in[1], b, n64, d.data());
      ReadVector<R>(in[2], b, n64, du.data());
      ToColumnMajor(rhs, b, n64, nrhs64, x.data(), ldb);
      int info = 0;
      if (n > 0) lapack.gtsv(&n, &nrhs, dl.data() + 1, d.data(), du.data(), x.data(), &ldb, &info);
      WriteVector<R>(dl.data(), n64, out[0], b);
      WriteVector<R>(d.data(), n64, out[1], b);
      WriteVector<R>(du.data(), n64, out[2], b);
      FromColumnMajor(x.data(), ldb, out[3], b, n64, nrhs64);
      WriteInfo(out[4], b, info);
    }
  });
  if (!ok) return Invalid(call, "out of memory in the tridiagonal solve");
  return Status::Ok();
}

// LAPACK's geev on each matrix, as jaxlib runs it: a matrix holding a NaN or an infinity
// is not factored (info -4); otherwise wr, wi and, where info is 0, the vectors asked for
// unpacked from LAPACK's real form into complex columns (a complex pair's vectors are
// v_j = x_j + i x_{j+1} and its conjugate). Vectors not asked for are written as zeros
// (jaxlib leaves them as its scratch happened to be), and so is everything a failed
// matrix does not give (jax masks those with NaN by info).
template <typename R>
Status RunGeneralEigenTyped(const Instruction& call, const LibraryCall& desc, const LapackApi<R>& lapack,
                            const std::vector<Side>& in, const std::vector<Side>& out, int threads) {
  using C = std::complex<R>;
  int64_t n64 = 0, batches = 0;
  RETURN_IF_ERROR(SquareBatch(call, in[0], &n64, &batches));
  if (batches == 0) return Status::Ok();
  const int n = static_cast<int>(n64), ld = std::max(1, n);
  const char jobvl = desc.eigen_left, jobvr = desc.eigen_right;
  int lwork = 1;
  {
    R query = 0, probe = 0;
    int info = 0;
    const int minus_one = -1;
    lapack.geev(&jobvl, &jobvr, &n, &probe, &ld, &probe, &probe, &probe, &ld, &probe, &ld, &query, &minus_one, &info, 1,
                1);
    lwork = WorkspaceSize(query);
  }
  RETURN_IF_ERROR(WorkspaceFits(call, in[0], lwork));
  const double flops = static_cast<double>(batches) * 26.0 * static_cast<double>(n64 * n64 * n64);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    const size_t square = static_cast<size_t>(std::max<int64_t>(1, n64 * n64));
    std::vector<R> a(square), vl(square), vr(square), work(static_cast<size_t>(lwork));
    std::vector<R> wr(static_cast<size_t>(n64 + 1)), wi(static_cast<size_t>(n64 + 1));
    std::vector<C> unpacked(square);
    for (int64_t b = begin; b < end; ++b) {
      ToColumnMajor(in[0], b, n64, n64, a.data(), ld);
      int info = 0;
      const bool finite = std::all_of(a.begin(), a.begin() + n64 * n64, [](R v) { return std::isfinite(v); });
      std::fill(wr.begin(), wr.end(), R(0));
      std::fill(wi.begin(), wi.end(), R(0));
      if (!finite) {
        info = -4;
      } else if (n > 0) {
        lapack.geev(&jobvl, &jobvr, &n, a.data(), &ld, wr.data(), wi.data(), vl.data(), &ld, vr.data(), &ld,
                    work.data(), &lwork, &info, 1, 1);
      }
      WriteVector<R>(wr.data(), n64, out[0], b);
      WriteVector<R>(wi.data(), n64, out[1], b);
      for (int side = 0; side < 2; ++side) {
        const bool asked = (side == 0 ? jobvl : jobvr) == 'V';
        const std::vector<R>& packed = side == 0 ? vl : vr;
        std::fill(unpacked.begin(), unpacked.end(), C(0));
        if (asked && info == 0) {
          for (int64_t j = 0; j < n64;) {
            const R imag = wi[static_cast<size_t>(j)];
            if (imag == 0 || std::isnan(imag) || j + 1 == n64) {
              for (int64_t i = 0; i < n64; ++i) unpacked[j * n64 + i] = C(packed[j * n64 + i], 0);
              ++j;
            } else {
              for (int64_t i = 0; i < n64; ++i) {
                const R re = packed[j * n64 + i], im = packed[(j + 1) * n64 + i];
                unpacked[j * n64 + i] = C(re, im);
                unpacked[(j + 1) * n64 + i] = C(re, -im);
              }
              j += 2;
            }
          }
        }
        FromColumnMajor(unpacked.data(), std::max<int64_t>(1, n64), out[2 + side], b, n64, n64);
      }
      WriteInfo(out[4], b, info);
    }
  });
  if (!ok) return Invalid(call, "out of memory in the eigendecomposition");
  return Status::Ok();
}

// LAPACK's gees on each matrix (no ordering), as jaxlib runs it: t over a (LAPACK's Schur
// form), the Schur vectors where mode is 'V' (zeros otherwise), the eigenvalues (wr and wi,
// or w), sdim 0 and info.
template <typename R>
Status RunSchurTyped(const Instruction& call, const LibraryCall& desc, const LapackApi<R>& lapack,
                     const std::vector<Side>& in, const std::vector<Side>& out, int threads) {
  constexpr bool complex = Scalar<R>::kComplex;
  using Real = typename Scalar<R>::Real;
  int64_t n64 = 0, batches = 0;
  RETURN_IF_ERROR(SquareBatch(call, in[0], &n64, &batches));
  if (batches == 0) return Status::Ok();
  const int n = static_cast<int>(n64), ld = std::max(1, n);
  const char jobvs = desc.eigen_right, sort = 'N';
  int lwork = 1;
  {
    R query = 0, probe = 0;
    Real rprobe = 0;
    int info = 0, sdim = 0, bprobe = 0;
    const int minus_one = -1;
    if constexpr (complex) {
      lapack.complex_gees(&jobvs, &sort, nullptr, &n, &probe, &ld, &sdim, &probe, &probe, &ld, &query, &minus_one, &rprobe,
                          &bprobe, &info, 1, 1);
    } else {
      lapack.gees(&jobvs, &sort, nullptr, &n, &probe, &ld, &sdim, &probe, &probe, &probe, &ld, &query, &minus_one, &bprobe,
                  &info, 1, 1);
    }
    lwork = WorkspaceSize(query);
  }
  RETURN_IF_ERROR(WorkspaceFits(call, in[0], lwork));
  const int values = complex ? 1 : 2;  // result leaves holding eigenvalues
  const double flops = static_cast<double>(batches) * 25.0 * static_cast<double>(n64 * n64 * n64);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    const size_t square = static_cast<size_t>(std::max<int64_t>(1, n64 * n64));
    std::vector<R> a(square), vs(square), work(static_cast<size_t>(lwork)), wr(static_cast<size_t>(n64 + 1)),
        wi(static_cast<size_t>(n64 + 1));
    std::vector<Real> rwork(static_cast<size_t>(std::max<int64_t>(1, n64)));
    std::vector<int> bwork(static_cast<size_t>(std::max<int64_t>(1, n64)));
    for (int64_t b = begin; b < end; ++b) {
      int ldx = ld;
      bool transposed = false;
      R* x = LoadMatrix(in[0], out[0], b, n64, n64, /*may_transpose=*/false, a, &ldx, &transposed);
      int info = 0, sdim = 0;
      std::fill(vs.begin(), vs.end(), R(0));
      if (n > 0) {
        if constexpr (complex) {
          lapack.complex_gees(&jobvs, &sort, nullptr, &n, x, &ldx, &sdim, wr.data(), vs.data(), &ld, work.data(), &lwork,
                              rwork.data(), bwork.data(), &info, 1, 1);
        } else {
          lapack.gees(&jobvs, &sort, nullptr, &n, x, &ldx, &sdim, wr.data(), wi.data(), vs.data(), &ld, work.data(),
                      &lwork, bwork.data(), &info, 1, 1);
        }
      }
      StoreMatrix(x, ldx, a, out[0], b, n64, n64);
      FromColumnMajor(vs.data(), ld, out[1], b, n64, n64);
      WriteVector<R>(wr.data(), n64, out[2], b);
      if (!complex) WriteVector<R>(wi.data(), n64, out[3], b);
      WriteInfo(out[2 + values], b, sdim);
      WriteInfo(out[3 + values], b, info);
    }
  });
  if (!ok) return Invalid(call, "out of memory in the Schur decomposition");
  return Status::Ok();
}

// LAPACK's c/z geev on each matrix, as jaxlib runs it: a matrix holding a NaN or an
// infinity is not factored (info -4); w, and the vectors asked for (zeros otherwise, and
// for a failed matrix).
template <typename R>
Status RunComplexEigenTyped(const Instruction& call, const LibraryCall& desc, const LapackApi<R>& lapack,
                            const std::vector<Side>& in, const std::vector<Side>& out, int threads) {
  using Real = typename Scalar<R>::Real;
  int64_t n64 = 0, batches = 0;
  RETURN_IF_ERROR(SquareBatch(call, in[0], &n64, &batches));
  if (batches == 0) return Status::Ok();
  const int n = static_cast<int>(n64), ld = std::max(1, n);
  const char jobvl = desc.eigen_left, jobvr = desc.eigen_right;
  int lwork = 1;
  {
    R query = 0, probe = 0;
    Real rprobe[1] = {0};
    int info = 0;
    const int minus_one = -1;
    lapack.complex_geev(&jobvl, &jobvr, &n, &probe, &ld, &probe, &probe, &ld, &probe, &ld, &query, &minus_one, rprobe,
                        &info, 1, 1);
    lwork = WorkspaceSize(query);
  }
  RETURN_IF_ERROR(WorkspaceFits(call, in[0], lwork));
  const double flops = static_cast<double>(batches) * 100.0 * static_cast<double>(n64 * n64 * n64);
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    const size_t square = static_cast<size_t>(std::max<int64_t>(1, n64 * n64));
    std::vector<R> a(square), vl(square), vr(square), work(static_cast<size_t>(lwork)), w(static_cast<size_t>(n64 + 1));
    std::vector<Real> rwork(static_cast<size_t>(std::max<int64_t>(1, 2 * n64)));
    for (int64_t b = begin; b < end; ++b) {
      ToColumnMajor(in[0], b, n64, n64, a.data(), ld);
      int info = 0;
      const bool finite = std::all_of(a.begin(), a.begin() + n64 * n64,
                                      [](R v) { return std::isfinite(v.real()) && std::isfinite(v.imag()); });
      std::fill(w.begin(), w.end(), R(0));
      if (!finite) {
        info = -4;
      } else if (n > 0) {
        lapack.complex_geev(&jobvl, &jobvr, &n, a.data(), &ld, w.data(), vl.data(), &ld, vr.data(), &ld, work.data(),
                            &lwork, rwork.data(), &info, 1, 1);
      }
      WriteVector<R>(w.data(), n64, out[0], b);
      for (int side = 0; side < 2; ++side) {
        std::vector<R>& vectors = side == 0 ? vl : vr;
        if ((side == 0 ? jobvl : jobvr) != 'V' || info != 0) std::fill(vectors.begin(), vectors.end(), R(0));
        FromColumnMajor(vectors.data(), ld, out[1 + side], b, n64, n64);
      }
      WriteInfo(out[3], b, info);
    }
  });
  if (!ok) return Invalid(call, "out of memory in the eigendecomposition");
  return Status::Ok();
}

}  // namespace

namespace {

// The call on buffers laid out as `operand_shapes` and `result_shapes` (one per leaf) say,
// in precision R.
template <typename R>
Status RunLapackOn(const Instruction& call, const LibraryCall& desc, const std::vector<Shape>& operand_shapes,
                   const std::vector<Shape>& result_shapes, const std::vector<void*>& operands,
                   const std::vector<void*>& outputs, int threads) {
  if (operands.size() != operand_shapes.size() || outputs.size() != result_shapes.size()) {
    return Invalid(call, "buffers do not fit the call's operands and results");
  }
  std::vector<Side> in(operands.size()), out(outputs.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    in[i].data = static_cast<uint8_t*>(operands[i]);
    in[i].dims = operand_shapes[i].dimensions();
    RETURN_IF_ERROR(DenseStrides(call, operand_shapes[i], "operand " + Str(static_cast<int64_t>(i)), &in[i].strides));
    if (in[i].data == nullptr) return Invalid(call, "null buffer");
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    out[i].data = static_cast<uint8_t*>(outputs[i]);
    out[i].dims = result_shapes[i].dimensions();
    RETURN_IF_ERROR(DenseStrides(call, result_shapes[i], "result " + Str(static_cast<int64_t>(i)), &out[i].strides));
    if (out[i].data == nullptr) return Invalid(call, "null buffer");
  }
  const Side& matrices = desc.kind == LibraryCallKind::kTridiagonalSolve ? in.back() : in[0];
  if (matrices.dims.size() < 2) return Invalid(call, "operand " + Str(static_cast<int64_t>(&matrices - in.data())) + " is not matrices");
  std::string why;
  const LapackApi<R>* lapack = LoadLapack<R>(&why);
  if (lapack == nullptr) return Unsupported(call, why);
  std::unique_lock<std::mutex> turn;
  if (lapack->take_turns) {
    turn = std::unique_lock<std::mutex>(LapackTurns());
    threads = 1;
  }
  if (desc.kind == LibraryCallKind::kTriangularSolve) {
    return RunTriangularSolveTyped<R>(call, desc, *lapack, in, out, threads);
  }
  if (desc.kind == LibraryCallKind::kSchur) return RunSchurTyped<R>(call, desc, *lapack, in, out, threads);
  if constexpr (!Scalar<R>::kComplex) {
    if (desc.kind == LibraryCallKind::kTridiagonalSolve) return RunTridiagonalSolveTyped<R>(call, *lapack, in, out, threads);
    if (desc.kind == LibraryCallKind::kGeneralEigen) return RunGeneralEigenTyped<R>(call, desc, *lapack, in, out, threads);
  } else {
    if (desc.kind == LibraryCallKind::kGeneralEigen) return RunComplexEigenTyped<R>(call, desc, *lapack, in, out, threads);
  }
  return RunLapackTyped<R>(call, desc, *lapack, in, out, threads);
}

std::vector<Shape> ResultLeaves(const Shape& shape) {
  std::vector<Shape> leaves;
  if (shape.IsTuple()) {
    for (const Shape& leaf : shape.tuple_shapes()) leaves.push_back(leaf);
  } else {
    leaves.push_back(shape);
  }
  return leaves;
}

// Runs the call on literals (row-major) of element type R; returns its result.
template <typename R>
StatusOr<Literal> RunOnLiterals(const Instruction& call, const LibraryCall& desc,
                                const std::vector<const Literal*>& operands, const Shape& result_shape) {
  std::vector<Shape> operand_shapes;
  std::vector<void*> operand_data;
  std::vector<Literal> copies;  // LAPACK's calls read their operands only; a copy keeps them const
  copies.reserve(operands.size());
  for (const Literal* op : operands) {
    copies.push_back(*op);
    operand_shapes.push_back(Shape(op->shape().element_type(), op->shape().dimensions()));
    operand_data.push_back(copies.back().untyped_data());
  }
  Literal result(result_shape);
  std::vector<Shape> leaves;
  std::vector<void*> outputs;
  if (result_shape.IsTuple()) {
    for (size_t i = 0; i < result.tuple_elements().size(); ++i) {
      Literal& leaf = result.tuple_elements()[i];
      leaves.push_back(Shape(leaf.shape().element_type(), leaf.shape().dimensions()));
      outputs.push_back(leaf.untyped_data());
    }
  } else {
    leaves.push_back(Shape(result.shape().element_type(), result.shape().dimensions()));
    outputs.push_back(result.untyped_data());
  }
  RETURN_IF_ERROR(RunLapackOn<R>(call, desc, operand_shapes, leaves, operand_data, outputs, /*threads=*/1));
  return result;
}

// Flips column j (over rows) of matrix b of `wide` where its dot product with the same
// column of `narrow` is negative; `rows_of` picks rows (vt) instead of columns.
void AlignSigns(Literal& wide, const Literal& narrow, bool rows_of, std::vector<std::vector<bool>>* flipped,
                const std::vector<std::vector<bool>>* follow) {
  const std::vector<int64_t>& dims = wide.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t r = dims[rank - 2], c = dims[rank - 1];
  const int64_t batches = r * c == 0 ? 0 : wide.element_count() / (r * c);
  auto* w = reinterpret_cast<double*>(wide.untyped_data());
  const auto* n = reinterpret_cast<const float*>(narrow.untyped_data());
  const int64_t vectors = rows_of ? r : c, length = rows_of ? c : r;
  if (flipped != nullptr) flipped->assign(static_cast<size_t>(batches), std::vector<bool>(static_cast<size_t>(vectors)));
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t j = 0; j < vectors; ++j) {
      auto at = [&](int64_t i) { return b * r * c + (rows_of ? j * c + i : i * c + j); };
      bool flip;
      if (follow != nullptr) {
        flip = j < static_cast<int64_t>((*follow)[b].size()) && (*follow)[b][j];
      } else {
        double dot = 0;
        for (int64_t i = 0; i < length; ++i) dot += w[at(i)] * static_cast<double>(n[at(i)]);
        flip = dot < 0;
      }
      if (flip) {
        for (int64_t i = 0; i < length; ++i) w[at(i)] = -w[at(i)];
      }
      if (flipped != nullptr) (*flipped)[b][j] = flip;
    }
  }
}

// Column j of complex matrix b of `vectors` ([..., n, n]) becomes column from[j] times
// the unit factor that best aligns it with column j of `reference` (a vector's phase is
// the algorithm's choice where only its direction is defined).
void AlignColumns(Literal& vectors, const Literal& reference, int64_t b, int64_t n, const std::vector<int64_t>& from) {
  std::vector<std::complex<double>> copy(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n * n; ++i) copy[static_cast<size_t>(i)] = vectors.GetComplex(b * n * n + i);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t k = from[static_cast<size_t>(j)];
    std::complex<double> overlap = 0;
    for (int64_t i = 0; i < n; ++i) {
      overlap += std::conj(copy[static_cast<size_t>(i * n + k)]) * reference.GetComplex(b * n * n + i * n + j);
    }
    const std::complex<double> phase = std::abs(overlap) > 0 ? overlap / std::abs(overlap) : 1.0;
    for (int64_t i = 0; i < n; ++i) vectors.SetComplex(b * n * n + i * n + j, copy[static_cast<size_t>(i * n + k)] * phase);
  }
}

// A complex SVD's vectors in the f64 shadow (`u` [..., m, c], `vt` [..., r, n]) given the
// f32 call's phases (`narrow_u`, `narrow_vt`): u's column j takes the unit factor p that
// best aligns it with the f32 one and vt's row j the factor conj(p), so that u diag(s) vt
// keeps its value; vt's rows past u's columns align on their own.
void AlignSingularPhases(Literal& u, Literal& vt, const Literal& narrow_u, const Literal& narrow_vt) {
  const std::vector<int64_t>& ud = u.shape().dimensions();
  const std::vector<int64_t>& vd = vt.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(ud.size());
  const int64_t m = ud[rank - 2], c = ud[rank - 1], r = vd[rank - 2], n = vd[rank - 1];
  const int64_t batches = m * c == 0 ? 0 : u.element_count() / (m * c);
  auto phase_of = [](std::complex<double> overlap) {
    return std::abs(overlap) > 0 ? overlap / std::abs(overlap) : std::complex<double>(1.0);
  };
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t j = 0; j < std::max(c, r); ++j) {
      std::complex<double> p = 1.0;
      if (j < c) {
        std::complex<double> overlap = 0;
        for (int64_t i = 0; i < m; ++i) {
          overlap += std::conj(u.GetComplex((b * m + i) * c + j)) * narrow_u.GetComplex((b * m + i) * c + j);
        }
        p = phase_of(overlap);
        for (int64_t i = 0; i < m; ++i) u.SetComplex((b * m + i) * c + j, u.GetComplex((b * m + i) * c + j) * p);
      }
      if (j >= r) continue;
      std::complex<double> q = std::conj(p);
      if (j >= c) {
        std::complex<double> overlap = 0;
        for (int64_t i = 0; i < n; ++i) {
          overlap += std::conj(vt.GetComplex((b * r + j) * n + i)) * narrow_vt.GetComplex((b * r + j) * n + i);
        }
        q = phase_of(overlap);
      }
      for (int64_t i = 0; i < n; ++i) vt.SetComplex((b * r + j) * n + i, vt.GetComplex((b * r + j) * n + i) * q);
    }
  }
}

// The f64 shadow's general eigendecomposition (`wide`: wr, wi, vl, vr, info) put in the
// f32 call's order and phases (`narrow`): each of narrow's eigenvalues takes the nearest
// unused one of wide's, with its vectors, and each complex vector the unit factor that
// best aligns it with narrow's (LAPACK's order is where its QR iterations deflate, and
// its phase makes the largest component real: both are the algorithm's choices, which
// rounding can tip).
void AlignEigen(Literal& wide, const Literal& narrow) {
  const std::vector<int64_t>& dims = wide.tuple_elements()[0].shape().dimensions();
  const int64_t n = dims.empty() ? 0 : dims.back();
  const int64_t batches = n == 0 ? 0 : wide.tuple_elements()[0].element_count() / n;
  // A complex call's result is (w, vl, vr, info); a real one's (wr, wi, vl, vr, info).
  const PrimitiveType value_type = wide.tuple_elements()[0].shape().element_type();
  const bool complex = value_type == PrimitiveType::kC64 || value_type == PrimitiveType::kC128;
  for (int64_t b = 0; b < batches; ++b) {
    auto value = [&](const Literal& t, int64_t j) {
      if (complex) return t.tuple_elements()[0].GetComplex(b * n + j);
      return std::complex<double>(t.tuple_elements()[0].GetDouble(b * n + j), t.tuple_elements()[1].GetDouble(b * n + j));
    };
    std::vector<int64_t> from(static_cast<size_t>(n));
    std::vector<bool> used(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      int64_t best = -1;
      for (int64_t k = 0; k < n; ++k) {
        if (used[static_cast<size_t>(k)]) continue;
        if (best < 0 || std::abs(value(wide, k) - value(narrow, j)) < std::abs(value(wide, best) - value(narrow, j))) {
          best = k;
        }
      }
      used[static_cast<size_t>(best)] = true;
      from[static_cast<size_t>(j)] = best;
    }
    for (int leaf = 0; leaf < (complex ? 1 : 2); ++leaf) {
      Literal& values = wide.tuple_elements()[leaf];
      std::vector<std::complex<double>> copy(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) copy[static_cast<size_t>(j)] = values.GetComplex(b * n + j);
      for (int64_t j = 0; j < n; ++j) values.SetComplex(b * n + j, copy[static_cast<size_t>(from[static_cast<size_t>(j)])]);
    }
    const int first_vectors = complex ? 1 : 2;
    for (int leaf : {first_vectors, first_vectors + 1}) {
      AlignColumns(wide.tuple_elements()[leaf], narrow.tuple_elements()[leaf], b, n, from);
    }
  }
}

}  // namespace

namespace {

// One 1x1 Cholesky factorization and triangular solve of precision R.
template <typename R>
bool WarmUpLapack() {
  const LapackApi<R>* lapack = LoadLapack<R>(nullptr);
  if (lapack == nullptr) return false;
  std::unique_lock<std::mutex> turn;
  if (lapack->take_turns) turn = std::unique_lock<std::mutex>(LapackTurns());
  R a = 4, b = 2;
  const R one = 1;
  const int n = 1;
  int info = 0;
  lapack->potrf("L", &n, &a, &n, &info, 1);
  lapack->trsm("L", "L", "N", "N", &n, &n, &one, &a, &n, &b, &n, 1, 1, 1, 1);
  return true;
}

}  // namespace

double LoadLapackLibrary() {
  struct Lapack;
  return TimeOnce<Lapack>([] { return WarmUpLapack<float>() && WarmUpLapack<double>(); });
}

Status RunLapack(const Instruction& call, const std::vector<void*>& operands, const std::vector<void*>& outputs,
                 int threads) {
  if (!IsCpuLapackCall(call)) return Invalid(call, "not a LAPACK call the CPU runtime runs");
  ASSIGN_OR_RETURN(const LibraryCall desc, ParseLibraryCall(call));
  std::vector<Shape> operand_shapes;
  for (const Instruction* op : call.operands()) operand_shapes.push_back(op->shape());
  const std::vector<Shape> leaves = ResultLeaves(call.shape());
  switch (call.operand(0)->shape().element_type()) {
    case PrimitiveType::kF64:
      return RunLapackOn<double>(call, desc, operand_shapes, leaves, operands, outputs, threads);
    case PrimitiveType::kC64:
      return RunLapackOn<std::complex<float>>(call, desc, operand_shapes, leaves, operands, outputs, threads);
    case PrimitiveType::kC128:
      return RunLapackOn<std::complex<double>>(call, desc, operand_shapes, leaves, operands, outputs, threads);
    default:
      return RunLapackOn<float>(call, desc, operand_shapes, leaves, operands, outputs, threads);
  }
}

StatusOr<Literal> RunLapackOnLiterals(const Instruction& call, const std::vector<const Literal*>& operands) {
  const bool twin = IsLapackTwinGpuCall(call) || IsLapackTwinGpuVectorCall(call);
  if (!IsCpuLapackTarget(call) && !twin) return Invalid(call, "not a LAPACK call the CPU runtime runs");
  if (operands.size() != static_cast<size_t>(call.operand_count()) || operands.empty()) {
    return Invalid(call, "operand literals");
  }
  ASSIGN_OR_RETURN(const LibraryCall desc, ParseLibraryCall(call));
  const PrimitiveType type = operands[0]->shape().element_type();
  const bool vectors = desc.kind == LibraryCallKind::kSymmetricEigen || desc.kind == LibraryCallKind::kGeneralEigen ||
                       (desc.kind == LibraryCallKind::kSvd && desc.svd_mode != 'N');
  if (twin && !vectors) {
    // A GPU solver call LAPACK's routine of the same name answers: the routine of the
    // operands' type.
    if (type == PrimitiveType::kF32) return RunOnLiterals<float>(call, desc, operands, call.shape());
    if (type == PrimitiveType::kF64) return RunOnLiterals<double>(call, desc, operands, call.shape());
    if (type == PrimitiveType::kC64) return RunOnLiterals<std::complex<float>>(call, desc, operands, call.shape());
    if (type == PrimitiveType::kC128) return RunOnLiterals<std::complex<double>>(call, desc, operands, call.shape());
    return Unsupported(call, "operands of " + TypeName(type));
  }
  // cuSOLVER's gesvdj returns V where gesdd writes Vᵀ: run with Vᵀ's shape, transpose after.
  const bool returns_v = twin && desc.kind == LibraryCallKind::kSvd && desc.svd_returns_v;
  Shape shape = call.shape();
  if (returns_v) {
    std::vector<Shape> leaves = shape.tuple_shapes();
    std::vector<int64_t> dims = leaves[3].dimensions();
    std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    leaves[3] = Shape(leaves[3].element_type(), dims);
    shape = Shape::Tuple(leaves);
  }
  // The result as the call gives it: V for gesvdj, and a as given (cuSOLVER's gesvdj
  // leaves its operand to the call's a, which the model and the GPU emulator keep).
  auto as_call = [&](Literal result) -> Literal {
    if (!returns_v) return result;
    Literal v(call.shape().tuple_shapes(3));
    const Literal& vt = result.tuple_elements()[3];
    const std::vector<int64_t>& dims = v.shape().dimensions();
    const int64_t rows = dims[dims.size() - 2], cols = dims.back();
    const int64_t batches = rows * cols == 0 ? 0 : v.element_count() / (rows * cols);
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) v.SetDouble(b * rows * cols + i * cols + j, vt.GetDouble(b * rows * cols + j * rows + i));
      }
    }
    result.tuple_elements()[3] = std::move(v);
    result.tuple_elements()[0] = *operands[0];
    return result;
  };
  // A GPU call's precision is its operands'; a LAPACK call's is in its name (its f64
  // shadow keeps the s routine's name).
  const char precision =
      twin ? (type == PrimitiveType::kF32 || type == PrimitiveType::kC64 ? 's' : 'd')
           : call.attrs().custom_call_target[std::string_view("lapack_").size()];
  const bool single = precision == 's' || precision == 'c';
  const bool complex = type == PrimitiveType::kC64 || type == PrimitiveType::kC128;
  if (type == PrimitiveType::kF32) {
    ASSIGN_OR_RETURN(Literal narrow, RunOnLiterals<float>(call, desc, operands, shape));
    return as_call(std::move(narrow));
  }
  if (type == PrimitiveType::kC64) return RunOnLiterals<std::complex<float>>(call, desc, operands, call.shape());
  if (type != PrimitiveType::kF64 && type != PrimitiveType::kC128) return Unsupported(call, "operands of " + TypeName(type));
  ASSIGN_OR_RETURN(Literal wide, complex ? RunOnLiterals<std::complex<double>>(call, desc, operands, call.shape())
                                         : RunOnLiterals<double>(call, desc, operands, shape));
  // A GPU call's f64 shadow cannot be told from an f64 call: the vectors of both take the
  // signs the f32 routine gives on the operands rounded to f32 (any sign is the call's).
  if (!vectors || !(single || twin)) return as_call(std::move(wide));
  // The f64 shadow of an f32 call: its vectors take the signs the f32 routine gives on the
  // operands rounded to f32, which the program it shadows computes with.
  std::vector<Literal> narrow_operands;
  std::vector<const Literal*> narrow_pointers;
  for (const Literal* op : operands) {
    const PrimitiveType op_type = op->shape().element_type();
    Literal narrow(Shape(op_type == PrimitiveType::kF64    ? PrimitiveType::kF32
                         : op_type == PrimitiveType::kC128 ? PrimitiveType::kC64
                                                           : op_type,
                         op->shape().dimensions()));
    for (int64_t i = 0; i < op->element_count(); ++i) {
      if (op_type == PrimitiveType::kF64) {
        narrow.SetDouble(i, static_cast<float>(op->GetDouble(i)));
      } else if (op_type == PrimitiveType::kC128) {
        const std::complex<double> v = op->GetComplex(i);
        narrow.SetComplex(i, std::complex<double>(static_cast<float>(v.real()), static_cast<float>(v.imag())));
      } else {
        narrow.SetBits(i, op->GetBits(i));
      }
    }
    narrow_operands.push_back(std::move(narrow));
  }
  for (const Literal& l : narrow_operands) narrow_pointers.push_back(&l);
  std::vector<Shape> narrow_leaves;
  for (const Literal& leaf : wide.tuple_elements()) {
    const PrimitiveType type = leaf.shape().element_type();
    narrow_leaves.push_back(Shape(type == PrimitiveType::kF64    ? PrimitiveType::kF32
                                  : type == PrimitiveType::kC128 ? PrimitiveType::kC64
                                                                 : type,
                                  leaf.shape().dimensions()));
  }
  ASSIGN_OR_RETURN(Literal narrow,
                   complex ? RunOnLiterals<std::complex<float>>(call, desc, narrow_pointers, Shape::Tuple(narrow_leaves))
                           : RunOnLiterals<float>(call, desc, narrow_pointers, Shape::Tuple(narrow_leaves)));
  if (desc.kind == LibraryCallKind::kGeneralEigen) {
    AlignEigen(wide, narrow);
  } else if (complex && desc.kind == LibraryCallKind::kSvd) {
    AlignSingularPhases(wide.tuple_elements()[2], wide.tuple_elements()[3], narrow.tuple_elements()[2],
                        narrow.tuple_elements()[3]);
  } else if (complex) {
    // A Hermitian matrix's eigenvectors: each one's phase is the algorithm's choice.
    Literal& vectors = wide.tuple_elements()[0];
    const std::vector<int64_t>& dims = vectors.shape().dimensions();
    const int64_t n = dims.back();
    std::vector<int64_t> same(static_cast<size_t>(n));
    std::iota(same.begin(), same.end(), int64_t{0});
    for (int64_t b = 0; n > 0 && b < vectors.element_count() / (n * n); ++b) {
      AlignColumns(vectors, narrow.tuple_elements()[0], b, n, same);
    }
  } else if (desc.kind == LibraryCallKind::kSymmetricEigen) {
    AlignSigns(wide.tuple_elements()[0], narrow.tuple_elements()[0], /*rows_of=*/false, nullptr, nullptr);
  } else {
    // u's columns and vt's rows flip together (u diag(s) vt keeps its value).
    std::vector<std::vector<bool>> flipped;
    AlignSigns(wide.tuple_elements()[2], narrow.tuple_elements()[2], /*rows_of=*/false, &flipped, nullptr);
    AlignSigns(wide.tuple_elements()[3], narrow.tuple_elements()[3], /*rows_of=*/true, nullptr, &flipped);
  }
  return as_call(std::move(wide));
}

}  // namespace fusebox::runtime
