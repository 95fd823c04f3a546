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
#include "compiler/ir/backend_config.h"
#include "compiler/ir/library_calls.h"
#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime {

using namespace library;  // NOLINT: the shared machinery of the library kernels

namespace {

using Len = size_t;  // gfortran's hidden character lengths

// The routines of one precision (R: float or double), resolved by name: s... or d...
template <typename R>
struct LapackApi {
  void (*potrf)(const char*, const int*, R*, const int*, int*, Len) = nullptr;
  void (*getrf)(const int*, const int*, R*, const int*, int*, int*) = nullptr;
  void (*geqrf)(const int*, const int*, R*, const int*, R*, R*, const int*, int*) = nullptr;
  void (*orgqr)(const int*, const int*, const int*, R*, const int*, const R*, R*, const int*, int*) = nullptr;
  void (*syevd)(const char*, const char*, const int*, R*, const int*, R*, R*, const int*, int*, const int*, int*, Len,
                Len) = nullptr;
  void (*gesdd)(const char*, const int*, const int*, R*, const int*, R*, R*, const int*, R*, const int*, R*, const int*,
                int*, int*, Len) = nullptr;
};

template <typename R>
const LapackApi<R>* LoadLapack(std::string* why) {
  return LoadApiOnce<LapackApi<R>>(
      [](LapackApi<R>& a) -> std::string {
        RuntimeLibrary library("liblapack.so.3", "liblapack3 and libopenblas0-serial");
        const std::string prefix(1, sizeof(R) == 4 ? 's' : 'd');
        library.Bind(a.potrf, prefix + "potrf_");
        library.Bind(a.getrf, prefix + "getrf_");
        library.Bind(a.geqrf, prefix + "geqrf_");
        library.Bind(a.orgqr, prefix + "orgqr_");
        library.Bind(a.syevd, prefix + "syevd_");
        library.Bind(a.gesdd, prefix + "gesdd_");
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

// Copies matrix `b` of `side` ([..., rows, cols]) into column-major `dst` (leading
// dimension `ld`), or back.
template <typename T>
void ToColumnMajor(const Side& side, int64_t b, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  const T* base = reinterpret_cast<const T*>(side.data) + BatchOffset(side, r - 2, b);
  const int64_t rs = side.strides[r - 2], cs = side.strides[r - 1];
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) dst[j * ld + i] = base[i * rs + j * cs];
  }
}
template <typename T>
void FromColumnMajor(const T* src, int64_t ld, const Side& side, int64_t b, int64_t rows, int64_t cols) {
  const int64_t r = static_cast<int64_t>(side.dims.size());
  T* base = reinterpret_cast<T*>(side.data) + BatchOffset(side, r - 2, b);
  const int64_t rs = side.strides[r - 2], cs = side.strides[r - 1];
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) base[i * rs + j * cs] = src[j * ld + i];
  }
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
int WorkspaceSize(R query) {
  if (!(query < static_cast<R>(std::numeric_limits<int>::max()))) return std::numeric_limits<int>::max();
  return std::max(1, static_cast<int>(query));
}

// Whether LAPACK's 32-bit integers hold every dimension.
bool FitsInt(int64_t v) { return v >= 0 && v <= std::numeric_limits<int>::max() / 2; }

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
  // Workspace sizes: LAPACK's query (lwork = -1) on the call's dimensions, once.
  int lwork = 1, liwork = 1;
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
        lapack.syevd(&jobz, &uplo, &n, probe.data(), &lda, probe.data(), &query, &minus_one, &iquery, &minus_one, &info,
                     1, 1);
        lwork = WorkspaceSize(query);
        liwork = std::max(1, iquery);
        break;
      case LibraryCallKind::kSvd:
        lapack.gesdd(&jobz, &m, &n, probe.data(), &lda, probe.data(), probe.data(), &ldu, probe.data(), &ldvt, &query,
                     &minus_one, &iquery, &info, 1);
        lwork = WorkspaceSize(query);
        liwork = std::max(1, 8 * k);
        break;
      default:
        break;
    }
  }
  // LAPACK's 32-bit workspace sizes: a query past them (a matrix of tens of thousands of
  // rows) is refused rather than wrapped.
  if (lwork == std::numeric_limits<int>::max() || liwork == std::numeric_limits<int>::max()) {
    return Unsupported(call, "LAPACK's workspace for " + DimsText(in[0].dims) + " does not fit its 32-bit sizes");
  }
  const double flops = static_cast<double>(batches) * 4.0 * static_cast<double>(m64) * static_cast<double>(n64) *
                       static_cast<double>(std::max(m64, n64));
  const int workers = static_cast<int>(std::min<int64_t>(ThreadsFor(flops, threads), batches));
  const bool ok = ParallelFor(batches, workers, [&](int64_t begin, int64_t end, int) {
    std::vector<R> a(static_cast<size_t>(std::max<int64_t>(1, m64 * n64)));
    std::vector<R> work(static_cast<size_t>(lwork));
    std::vector<int> iwork(static_cast<size_t>(liwork));
    std::vector<R> vec(static_cast<size_t>(std::max(1, std::max(m, n))));
    std::vector<int> ipiv(static_cast<size_t>(std::max(1, k)));
    std::vector<R> u, vt;
    if (kind == LibraryCallKind::kSvd && jobz != 'N') {
      u.resize(static_cast<size_t>(std::max<int64_t>(1, int64_t{ldu} * ucols)));
      vt.resize(static_cast<size_t>(std::max<int64_t>(1, int64_t{ldvt} * n)));
    }
    for (int64_t b = begin; b < end; ++b) {
      ToColumnMajor(in[0], b, m64, n64, a.data(), lda);
      int info = 0;
      switch (kind) {
        case LibraryCallKind::kCholesky:
          lapack.potrf(&uplo, &n, a.data(), &lda, &info, 1);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          WriteInfo(out[1], b, info);
          break;
        case LibraryCallKind::kLu:
          lapack.getrf(&m, &n, a.data(), &lda, ipiv.data(), &info);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          WriteVector<int32_t>(ipiv.data(), k, out[1], b);
          WriteInfo(out[2], b, info);
          break;
        case LibraryCallKind::kQr:
          lapack.geqrf(&m, &n, a.data(), &lda, vec.data(), work.data(), &lwork, &info);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          WriteVector<R>(vec.data(), k, out[1], b);
          break;
        case LibraryCallKind::kHouseholderProduct: {
          const int kk = static_cast<int>(in[1].dims.back());
          ReadVector<R>(in[1], b, kk, vec.data());
          lapack.orgqr(&m, &n, &kk, a.data(), &lda, vec.data(), work.data(), &lwork, &info);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          break;
        }
        case LibraryCallKind::kSymmetricEigen:
          lapack.syevd(&jobz, &uplo, &n, a.data(), &lda, vec.data(), work.data(), &lwork, iwork.data(), &liwork, &info, 1,
                       1);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          WriteVector<R>(vec.data(), n, out[1], b);
          WriteInfo(out[2], b, info);
          break;
        case LibraryCallKind::kSvd: {
          R* up = u.empty() ? vec.data() : u.data();
          R* vtp = vt.empty() ? vec.data() : vt.data();
          lapack.gesdd(&jobz, &m, &n, a.data(), &lda, vec.data(), up, &ldu, vtp, &ldvt, work.data(), &lwork,
                       iwork.data(), &info, 1);
          FromColumnMajor(a.data(), lda, out[0], b, m64, n64);
          WriteVector<R>(vec.data(), k, out[1], b);
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
        default:
          break;
      }
    }
  });
  if (!ok) return Invalid(call, "out of memory in the LAPACK call");
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
  if (in[0].dims.size() < 2) return Invalid(call, "operand 0 is not matrices");
  std::string why;
  const LapackApi<R>* lapack = LoadLapack<R>(&why);
  if (lapack == nullptr) return Unsupported(call, why);
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

}  // namespace

Status RunLapack(const Instruction& call, const std::vector<void*>& operands, const std::vector<void*>& outputs,
                 int threads) {
  if (!IsCpuLapackCall(call)) return Invalid(call, "not a LAPACK call the CPU runtime runs");
  ASSIGN_OR_RETURN(const LibraryCall desc, ParseLibraryCall(call));
  std::vector<Shape> operand_shapes;
  for (const Instruction* op : call.operands()) operand_shapes.push_back(op->shape());
  const std::vector<Shape> leaves = ResultLeaves(call.shape());
  if (call.operand(0)->shape().element_type() == PrimitiveType::kF64) {
    return RunLapackOn<double>(call, desc, operand_shapes, leaves, operands, outputs, threads);
  }
  return RunLapackOn<float>(call, desc, operand_shapes, leaves, operands, outputs, threads);
}

StatusOr<Literal> RunLapackOnLiterals(const Instruction& call, const std::vector<const Literal*>& operands) {
  if (!IsCpuLapackTarget(call)) return Invalid(call, "not a LAPACK call the CPU runtime runs");
  if (operands.size() != static_cast<size_t>(call.operand_count()) || operands.empty()) {
    return Invalid(call, "operand literals");
  }
  ASSIGN_OR_RETURN(const LibraryCall desc, ParseLibraryCall(call));
  const PrimitiveType type = operands[0]->shape().element_type();
  const bool single = call.attrs().custom_call_target[std::string_view("lapack_").size()] == 's';
  if (type == PrimitiveType::kF32) return RunOnLiterals<float>(call, desc, operands, call.shape());
  if (type != PrimitiveType::kF64) return Unsupported(call, "operands of " + TypeName(type));
  ASSIGN_OR_RETURN(Literal wide, RunOnLiterals<double>(call, desc, operands, call.shape()));
  const bool vectors = desc.kind == LibraryCallKind::kSymmetricEigen ||
                       (desc.kind == LibraryCallKind::kSvd && desc.svd_mode != 'N');
  if (!single || !vectors) return wide;
  // The f64 shadow of an f32 call: its vectors take the signs the f32 routine gives on the
  // operands rounded to f32, which the program it shadows computes with.
  std::vector<Literal> narrow_operands;
  std::vector<const Literal*> narrow_pointers;
  for (const Literal* op : operands) {
    Literal narrow(Shape(op->shape().element_type() == PrimitiveType::kF64 ? PrimitiveType::kF32
                                                                                     : op->shape().element_type(),
                                    op->shape().dimensions()));
    for (int64_t i = 0; i < op->element_count(); ++i) {
      if (op->shape().element_type() == PrimitiveType::kF64) {
        narrow.SetDouble(i, static_cast<float>(op->GetDouble(i)));
      } else {
        narrow.SetBits(i, op->GetBits(i));
      }
    }
    narrow_operands.push_back(std::move(narrow));
  }
  for (const Literal& l : narrow_operands) narrow_pointers.push_back(&l);
  std::vector<Shape> narrow_leaves;
  for (const Literal& leaf : wide.tuple_elements()) {
    narrow_leaves.push_back(Shape(
        leaf.shape().element_type() == PrimitiveType::kF64 ? PrimitiveType::kF32 : leaf.shape().element_type(),
        leaf.shape().dimensions()));
  }
  ASSIGN_OR_RETURN(Literal narrow, RunOnLiterals<float>(call, desc, narrow_pointers, Shape::Tuple(narrow_leaves)));
  if (desc.kind == LibraryCallKind::kSymmetricEigen) {
    AlignSigns(wide.tuple_elements()[0], narrow.tuple_elements()[0], /*rows_of=*/false, nullptr, nullptr);
  } else {
    // u's columns and vt's rows flip together (u diag(s) vt keeps its value).
    std::vector<std::vector<bool>> flipped;
    AlignSigns(wide.tuple_elements()[2], narrow.tuple_elements()[2], /*rows_of=*/false, &flipped, nullptr);
    AlignSigns(wide.tuple_elements()[3], narrow.tuple_elements()[3], /*rows_of=*/true, nullptr, &flipped);
  }
  return wide;
}

}  // namespace fusebox::runtime
