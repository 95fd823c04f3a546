// cuBLAS through dlopen: the handful of entry points the GPU executable needs, resolved
// by name, with cuBLAS's enum values kept here (checked against cublas_api.h when the
// headers are there at build time).
#include "compiler/runtime/cublas.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "compiler/ir/blas_elements.h"
#include "compiler/runtime/cuda_library_loader.h"

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cublas_api.h>
#endif

namespace fusebox::runtime {
namespace {

// cublasOperation_t values and the default algorithm (CUDA 12 and 13); the type codes are
// in cuda_library_loader.cc.
constexpr int kOpN = 0, kOpT = 1;
constexpr int kGemmDefault = -1;

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(kOpN == CUBLAS_OP_N && kOpT == CUBLAS_OP_T && kGemmDefault == CUBLAS_GEMM_DEFAULT);
// TrsmPlan's side, fill, op and diag are these enums' values.
static_assert(CUBLAS_SIDE_LEFT == 0 && CUBLAS_SIDE_RIGHT == 1 && CUBLAS_FILL_MODE_LOWER == 0 &&
              CUBLAS_FILL_MODE_UPPER == 1 && CUBLAS_OP_C == 2 && CUBLAS_DIAG_NON_UNIT == 0 && CUBLAS_DIAG_UNIT == 1);
#endif

using CreateFn = int (*)(void**);
using DestroyFn = int (*)(void*);
using SetStreamFn = int (*)(void*, void*);
using GetVersionFn = int (*)(void*, int*);
using StatusStringFn = const char* (*)(int);
using GemmStridedBatchedExFn = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int,
                                       long long, const void*, int, int, long long, const void*, void*, int,
                                       int, long long, int, int, int);
// cublasSscal_v2 and the others: (handle, n, const alpha*, x*, incx).
using ScalFn = int (*)(void*, int, const void*, void*, int);
// cublas<t>trsm_v2: (handle, side, uplo, trans, diag, m, n, alpha*, A, lda, B, ldb);
// cublas<t>trsmBatched: the same with arrays of A and B pointers and the batch count.
using TrsmFn = int (*)(void*, int, int, int, int, int, int, const void*, const void*, int, void*, int);
using TrsmBatchedFn = int (*)(void*, int, int, int, int, int, int, const void*, const void* const*, int, void* const*,
                              int, int);

// cublas<t>getrfBatched: (handle, n, Aarray, lda, P, info, batch).
using GetrfBatchedFn = int (*)(void*, int, void* const*, int, int*, int*, int);
// cublas<t>geqrfBatched: (handle, m, n, Aarray, lda, TauArray, int* info (host), batch).
using GeqrfBatchedFn = int (*)(void*, int, int, void* const*, int, void* const*, int*, int);

struct CublasApi {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  GetVersionFn get_version = nullptr;
  StatusStringFn status_string = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
  ScalFn sscal = nullptr, dscal = nullptr, csscal = nullptr, zdscal = nullptr;
  TrsmFn trsm[4] = {};                 // S, D, C, Z
  TrsmBatchedFn trsm_batched[4] = {};  // S, D, C, Z
  GetrfBatchedFn getrf_batched[4] = {};  // S, D, C, Z
  GeqrfBatchedFn geqrf_batched[2] = {};  // S, D
  std::string library;  // the name that loaded
  Status status;        // why cuBLAS is unusable, or OK
};

const CublasApi& Api() {
  static const CublasApi* api = [] {
    auto* a = new CublasApi();  // never freed: cuBLAS stays loaded for the process
    std::string tried;
    void* library = OpenFirstLibrary({"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                      "/usr/local/cuda/lib64/libcublas.so.13",
                                      "/usr/local/cuda/lib64/libcublas.so.12"},
                                     &a->library, &tried);
    if (library == nullptr) {
      a->status = Unavailable("cuBLAS unavailable (libcublas.so.13 not found: " + tried +
                              "); --gpu-library=off runs Fusebox's own dot kernels");
      return a;
    }
    SymbolResolver symbols(library);
    symbols.Need("cublasCreate_v2", &a->create);
    symbols.Need("cublasDestroy_v2", &a->destroy);
    symbols.Need("cublasSetStream_v2", &a->set_stream);
    symbols.Need("cublasGetVersion_v2", &a->get_version);
    symbols.Need("cublasGemmStridedBatchedEx", &a->gemm_strided_batched_ex);
    symbols.Need("cublasSscal_v2", &a->sscal);
    symbols.Need("cublasDscal_v2", &a->dscal);
    symbols.Need("cublasCsscal_v2", &a->csscal);
    symbols.Need("cublasZdscal_v2", &a->zdscal);
    symbols.Need("cublasStrsm_v2", &a->trsm[0]);
    symbols.Need("cublasDtrsm_v2", &a->trsm[1]);
    symbols.Need("cublasCtrsm_v2", &a->trsm[2]);
    symbols.Need("cublasZtrsm_v2", &a->trsm[3]);
    symbols.Need("cublasStrsmBatched", &a->trsm_batched[0]);
    symbols.Need("cublasDtrsmBatched", &a->trsm_batched[1]);
    symbols.Need("cublasCtrsmBatched", &a->trsm_batched[2]);
    symbols.Need("cublasZtrsmBatched", &a->trsm_batched[3]);
    symbols.Need("cublasSgetrfBatched", &a->getrf_batched[0]);
    symbols.Need("cublasDgetrfBatched", &a->getrf_batched[1]);
    symbols.Need("cublasCgetrfBatched", &a->getrf_batched[2]);
    symbols.Need("cublasZgetrfBatched", &a->getrf_batched[3]);
    symbols.Need("cublasSgeqrfBatched", &a->geqrf_batched[0]);
    symbols.Need("cublasDgeqrfBatched", &a->geqrf_batched[1]);
    symbols.Optional("cublasGetStatusString", &a->status_string);
    if (!symbols.missing().empty())
      a->status = Unavailable("cuBLAS unavailable (" + a->library + " lacks " + symbols.missing() + ")");
    return a;
  }();
  return *api;
}

Status CublasError(const char* call, int code) {
  const CublasApi& api = Api();
  std::string name = api.status_string != nullptr ? api.status_string(code) : "";
  return Internal(std::string(call) + ": " + (name.empty() ? "cuBLAS error" : name) + " (" +
                  std::to_string(code) + ")");
}

}  // namespace

Status CublasAvailable() { return Api().status; }

StatusOr<std::unique_ptr<Cublas>> Cublas::Create(CudaContext& context) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  ASSIGN_OR_RETURN(void* stream, context.CurrentStream());
  std::unique_ptr<Cublas> out(new Cublas());
  if (int rc = api.create(&out->handle_); rc != 0) {
    out->handle_ = nullptr;
    return CublasError("cublasCreate", rc);
  }
  if (int rc = api.set_stream(out->handle_, stream); rc != 0) return CublasError("cublasSetStream", rc);
  int version = 0;
  api.get_version(out->handle_, &version);
  // cuBLAS's version number: major * 10000 + minor * 100 + patch.
  out->description_ = "cuBLAS " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
                      std::to_string(version % 100) + " (" + api.library + ")";
  return out;
}

Cublas::~Cublas() {
  if (handle_ != nullptr) Api().destroy(handle_);
}

Status Cublas::Gemm(const GemmPlan& plan, DevicePtr lhs, DevicePtr rhs, DevicePtr out) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  if (plan.empty) return Status::Ok();  // the caller has zeroed (or scaled) the result
  const DevicePtr a = plan.a.operand == 0 ? lhs : rhs;
  const DevicePtr b = plan.b.operand == 0 ? lhs : rhs;
  // Scale factors in the compute type's precision (float for the f32 compute types).
  const double alpha64 = plan.alpha, beta64 = plan.beta;
  const float alpha32 = static_cast<float>(plan.alpha), beta32 = static_cast<float>(plan.beta);
  const bool f64 = plan.compute == GemmComputeType::kF64;
  const void* alpha = f64 ? static_cast<const void*>(&alpha64) : static_cast<const void*>(&alpha32);
  const void* beta = f64 ? static_cast<const void*>(&beta64) : static_cast<const void*>(&beta32);
  // One call per iteration of the plan's loops (one call when it has none).
  for (int64_t call = 0; call < plan.calls(); ++call) {
    const GemmPlan::Offsets at = plan.CallOffsets(call);
    const DevicePtr a_call = a + static_cast<DevicePtr>(at.a * GemmDataTypeBytes(plan.a.type));
    const DevicePtr b_call = b + static_cast<DevicePtr>(at.b * GemmDataTypeBytes(plan.b.type));
    const DevicePtr c_call = out + static_cast<DevicePtr>(at.c * GemmDataTypeBytes(plan.c_type));
    const int rc = api.gemm_strided_batched_ex(
        handle_, plan.a.transpose ? kOpT : kOpN, plan.b.transpose ? kOpT : kOpN, static_cast<int>(plan.m),
        static_cast<int>(plan.n), static_cast<int>(plan.k), alpha, reinterpret_cast<const void*>(a_call),
        CudaDataTypeCode(plan.a.type), static_cast<int>(plan.a.ld), plan.a.batch_stride,
        reinterpret_cast<const void*>(b_call), CudaDataTypeCode(plan.b.type), static_cast<int>(plan.b.ld),
        plan.b.batch_stride, beta, reinterpret_cast<void*>(c_call), CudaDataTypeCode(plan.c_type),
        static_cast<int>(plan.ldc), plan.c_batch_stride, static_cast<int>(plan.batch),
        CublasComputeTypeCode(plan.compute), kGemmDefault);
    if (rc != 0) return CublasError("cublasGemmStridedBatchedEx", rc);
  }
  return Status::Ok();
}

Status Cublas::Scale(PrimitiveType type, int64_t count, double alpha, DevicePtr x) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  ScalFn scal = nullptr;
  const char* name = "";
  int64_t element_bytes = 0;
  switch (type) {
    case PrimitiveType::kF32: scal = api.sscal, name = "cublasSscal", element_bytes = 4; break;
    case PrimitiveType::kF64: scal = api.dscal, name = "cublasDscal", element_bytes = 8; break;
    case PrimitiveType::kC64: scal = api.csscal, name = "cublasCsscal", element_bytes = 8; break;
    case PrimitiveType::kC128: scal = api.zdscal, name = "cublasZdscal", element_bytes = 16; break;
    default:
      return InvalidArgument("cuBLAS scal of " + std::string(PrimitiveTypeName(type)) + " (f32, f64, c64, c128 only)");
  }
  // The scalar in the real precision of x's elements.
  const float alpha32 = static_cast<float>(alpha);
  const bool single = type == PrimitiveType::kF32 || type == PrimitiveType::kC64;
  const void* a = single ? static_cast<const void*>(&alpha32) : static_cast<const void*>(&alpha);
  constexpr int64_t kMaxCall = (int64_t{1} << 31) - 1;
  for (int64_t done = 0; done < count; done += kMaxCall) {
    const int n = static_cast<int>(std::min(kMaxCall, count - done));
    const int rc = scal(handle_, n, a, reinterpret_cast<void*>(x + static_cast<DevicePtr>(done * element_bytes)), 1);
    if (rc != 0) return CublasError(name, rc);
  }
  return Status::Ok();
}

Status Cublas::Trsm(const TrsmPlan& plan, DevicePtr a, DevicePtr b, DevicePtr pointers) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  if (plan.empty) return Status::Ok();
  const int which = BlasTypeIndex(plan.type);
  if (which < 0) return InvalidArgument("cuBLAS trsm of " + std::string(PrimitiveTypeName(plan.type)));
  constexpr int64_t kIntMax = (int64_t{1} << 31) - 1;
  if (plan.m > kIntMax || plan.n > kIntMax || plan.batch > kIntMax) {
    return InvalidArgument(plan.ToString() + ": sizes beyond cuBLAS's 32-bit arguments");
  }
  // alpha = 1 in the element type (a complex one for c64 and c128).
  const float one32[2] = {1, 0};
  const double one64[2] = {1, 0};
  const void* alpha = which == 0 || which == 2 ? static_cast<const void*>(one32) : static_cast<const void*>(one64);
  const int m = static_cast<int>(plan.m), n = static_cast<int>(plan.n);
  const int lda = static_cast<int>(plan.lda), ldb = static_cast<int>(plan.ldb);
  if (plan.batch == 1) {
    const int rc = api.trsm[which](handle_, plan.side, plan.fill, plan.op, plan.diag, m, n, alpha,
                                   reinterpret_cast<const void*>(a), lda, reinterpret_cast<void*>(b), ldb);
    if (rc != 0) return CublasError("cublas trsm", rc);
    return Status::Ok();
  }
  const auto* a_array = reinterpret_cast<const void* const*>(pointers);
  auto* b_array = reinterpret_cast<void* const*>(pointers + static_cast<DevicePtr>(plan.batch * sizeof(void*)));
  const int rc = api.trsm_batched[which](handle_, plan.side, plan.fill, plan.op, plan.diag, m, n, alpha, a_array, lda,
                                         b_array, ldb, static_cast<int>(plan.batch));
  if (rc != 0) return CublasError("cublas trsmBatched", rc);
  return Status::Ok();
}

Status Cublas::GetrfBatched(const SolverPlan& plan, DevicePtr pointers, DevicePtr pivots, DevicePtr info) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  if (plan.routine != SolverRoutine::kGetrfBatched) return InvalidArgument(plan.ToString() + ": not cuBLAS's getrfBatched");
  if (plan.empty) return Status::Ok();
  const int which = BlasTypeIndex(plan.type);
  if (which < 0) return InvalidArgument("cuBLAS getrfBatched of " + std::string(PrimitiveTypeName(plan.type)));
  const int n = static_cast<int>(plan.n);
  const int rc = api.getrf_batched[which](handle_, n, reinterpret_cast<void* const*>(pointers), n,
                                          reinterpret_cast<int*>(pivots), reinterpret_cast<int*>(info),
                                          static_cast<int>(plan.batch));
  if (rc != 0) return CublasError("cublas getrfBatched", rc);
  return Status::Ok();
}

Status Cublas::GeqrfBatched(const SolverPlan& plan, DevicePtr pointers) {
  const CublasApi& api = Api();
  RETURN_IF_ERROR(api.status);
  if (plan.routine != SolverRoutine::kGeqrfBatched) return InvalidArgument(plan.ToString() + ": not cuBLAS's geqrfBatched");
  if (plan.empty) return Status::Ok();
  const int which = BlasTypeIndex(plan.type);
  if (which < 0 || which > 1) return InvalidArgument("cuBLAS geqrfBatched of " + std::string(PrimitiveTypeName(plan.type)));
  const int m = static_cast<int>(plan.m), n = static_cast<int>(plan.n);
  auto* matrices = reinterpret_cast<void* const*>(pointers);
  auto* taus = reinterpret_cast<void* const*>(pointers + static_cast<DevicePtr>(plan.batch * sizeof(void*)));
  int info = 0;
  const int rc = api.geqrf_batched[which](handle_, m, n, matrices, m, taus, &info, static_cast<int>(plan.batch));
  if (rc != 0) return CublasError("cublas geqrfBatched", rc);
  if (info != 0) return Internal("cublas geqrfBatched: argument " + std::to_string(-info) + " is invalid");
  return Status::Ok();
}

}  // namespace fusebox::runtime
