// cuSOLVER through dlopen: the dense solver's entry points the GPU executable's Cholesky,
// LU and QR calls need, resolved by name (checked against cusolverDn.h when the headers are
// there at build time).
#include "compiler/runtime/cusolver.h"

#include "compiler/ir/blas_elements.h"
#include "compiler/runtime/cuda_library_loader.h"

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cusolverDn.h>
#endif

namespace fusebox::runtime {
namespace {

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
// SolverPlan::fill is cublasFillMode_t.
static_assert(CUBLAS_FILL_MODE_LOWER == 0 && CUBLAS_FILL_MODE_UPPER == 1);
#endif

using CreateFn = int (*)(void**);
using DestroyFn = int (*)(void*);
using SetStreamFn = int (*)(void*, void*);
using GetVersionFn = int (*)(int*);
// cusolverDn<t>potrf_bufferSize: (handle, uplo, n, A, lda, int* lwork).
using PotrfBufferSizeFn = int (*)(void*, int, int, void*, int, int*);
// cusolverDn<t>potrf: (handle, uplo, n, A, lda, workspace, lwork, devInfo).
using PotrfFn = int (*)(void*, int, int, void*, int, void*, int, int*);
// cusolverDn<t>potrfBatched: (handle, uplo, n, Aarray, lda, infoArray, batch).
using PotrfBatchedFn = int (*)(void*, int, int, void**, int, int*, int);
// cusolverDn<t>getrf_bufferSize: (handle, m, n, A, lda, int* lwork).
using GetrfBufferSizeFn = int (*)(void*, int, int, void*, int, int*);
// cusolverDn<t>getrf: (handle, m, n, A, lda, workspace, devIpiv, devInfo).
using GetrfFn = int (*)(void*, int, int, void*, int, void*, int*, int*);
// cusolverDn<t>geqrf_bufferSize: (handle, m, n, A, lda, int* lwork).
using GeqrfBufferSizeFn = int (*)(void*, int, int, void*, int, int*);
// cusolverDn<t>geqrf: (handle, m, n, A, lda, tau, workspace, lwork, devInfo).
using GeqrfFn = int (*)(void*, int, int, void*, int, void*, void*, int, int*);
// cusolverDn<t>orgqr_bufferSize: (handle, m, n, k, A, lda, tau, int* lwork).
using OrgqrBufferSizeFn = int (*)(void*, int, int, int, const void*, int, const void*, int*);
// cusolverDn<t>orgqr: (handle, m, n, k, A, lda, tau, work, lwork, devInfo).
using OrgqrFn = int (*)(void*, int, int, int, void*, int, const void*, void*, int, int*);
using CreateSyevjInfoFn = int (*)(void**);
using DestroySyevjInfoFn = int (*)(void*);
// cusolverDn<t>syevd_bufferSize: (handle, jobz, uplo, n, A, lda, W, int* lwork).
using SyevdBufferSizeFn = int (*)(void*, int, int, int, const void*, int, const void*, int*);
// cusolverDn<t>syevd: (handle, jobz, uplo, n, A, lda, W, work, lwork, devInfo).
using SyevdFn = int (*)(void*, int, int, int, void*, int, void*, void*, int, int*);
// cusolverDn<t>syevj_bufferSize: syevd's and the syevjInfo; syevj: syevd's and the syevjInfo.
using SyevjBufferSizeFn = int (*)(void*, int, int, int, const void*, int, const void*, int*, void*);
using SyevjFn = int (*)(void*, int, int, int, void*, int, void*, void*, int, int*, void*);
// The batched forms take the batch count last.
using SyevjBatchedBufferSizeFn = int (*)(void*, int, int, int, const void*, int, const void*, int*, void*, int);
using SyevjBatchedFn = int (*)(void*, int, int, int, void*, int, void*, void*, int, int*, void*, int);

using CreateGesvdjInfoFn = int (*)(void**);
using DestroyGesvdjInfoFn = int (*)(void*);
// cusolverDn<t>gesvdj_bufferSize: (handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, int* lwork, params).
using GesvdjBufferSizeFn = int (*)(void*, int, int, int, int, const void*, int, const void*, const void*, int,
                                   const void*, int, int*, void*);
// cusolverDn<t>gesvdj: (handle, jobz, econ, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, info, params).
using GesvdjFn = int (*)(void*, int, int, int, int, void*, int, void*, void*, int, void*, int, void*, int, int*, void*);
// The batched forms: no econ, the batch count last.
using GesvdjBatchedBufferSizeFn = int (*)(void*, int, int, int, const void*, int, const void*, const void*, int,
                                          const void*, int, int*, void*, int);
using GesvdjBatchedFn = int (*)(void*, int, int, int, void*, int, void*, void*, int, void*, int, void*, int, int*,
                                void*, int);

// The 64-bit API's parameters object and batched eigensolver (optional: cuSOLVER 11.7.1).
using CreateParamsFn = int (*)(void**);
using DestroyParamsFn = int (*)(void*);
// cusolverDnXsyevBatched_bufferSize: (handle, params, jobz, uplo, n, dataTypeA, A, lda,
// dataTypeW, W, computeType, size_t* device bytes, size_t* host bytes, batchSize).
using XsyevBatchedBufferSizeFn = int (*)(void*, void*, int, int, int64_t, int, const void*, int64_t, int, const void*,
                                         int, size_t*, size_t*, int64_t);
// cusolverDnXsyevBatched: (handle, params, jobz, uplo, n, dataTypeA, A, lda, dataTypeW, W,
// computeType, device work, its bytes, host work, its bytes, info, batchSize).
using XsyevBatchedFn = int (*)(void*, void*, int, int, int64_t, int, void*, int64_t, int, void*, int, void*, size_t,
                               void*, size_t, int*, int64_t);

constexpr int kEigModeNoVector = 0, kEigModeVector = 1;  // CUSOLVER_EIG_MODE_NOVECTOR, _VECTOR
constexpr int kCudaR32F = 0, kCudaR64F = 1;              // cudaDataType's CUDA_R_32F, CUDA_R_64F
#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(CUSOLVER_EIG_MODE_VECTOR == kEigModeVector && CUDA_R_32F == kCudaR32F && CUDA_R_64F == kCudaR64F);
#endif

struct CusolverApi {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  GetVersionFn get_version = nullptr;
  PotrfBufferSizeFn potrf_buffer_size[4] = {};  // S, D, C, Z
  PotrfFn potrf[4] = {};
  PotrfBatchedFn potrf_batched[4] = {};
  GetrfBufferSizeFn getrf_buffer_size[4] = {};
  GetrfFn getrf[4] = {};
  GeqrfBufferSizeFn geqrf_buffer_size[2] = {};  // S, D
  GeqrfFn geqrf[2] = {};
  OrgqrBufferSizeFn orgqr_buffer_size[2] = {};
  OrgqrFn orgqr[2] = {};
  CreateSyevjInfoFn create_syevj_info = nullptr;
  DestroySyevjInfoFn destroy_syevj_info = nullptr;
  SyevdBufferSizeFn syevd_buffer_size[2] = {};  // S, D
  SyevdFn syevd[2] = {};
  SyevjBufferSizeFn syevj_buffer_size[2] = {};
  SyevjFn syevj[2] = {};
  SyevjBatchedBufferSizeFn syevj_batched_buffer_size[2] = {};
  SyevjBatchedFn syevj_batched[2] = {};
  CreateGesvdjInfoFn create_gesvdj_info = nullptr;
  DestroyGesvdjInfoFn destroy_gesvdj_info = nullptr;
  GesvdjBufferSizeFn gesvdj_buffer_size[2] = {};
  GesvdjFn gesvdj[2] = {};
  GesvdjBatchedBufferSizeFn gesvdj_batched_buffer_size[2] = {};
  GesvdjBatchedFn gesvdj_batched[2] = {};
  CreateParamsFn create_params = nullptr;
  DestroyParamsFn destroy_params = nullptr;
  XsyevBatchedBufferSizeFn xsyev_batched_buffer_size = nullptr;
  XsyevBatchedFn xsyev_batched = nullptr;
  std::string library;
  Status status;
};

const CusolverApi& Api() {
  static const CusolverApi* api = [] {
    auto* a = new CusolverApi();  // never freed: cuSOLVER stays loaded for the process
    std::string tried;
    void* library = OpenFirstLibrary({"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so",
                                      "/usr/local/cuda/lib64/libcusolver.so.12",
                                      "/usr/local/cuda/lib64/libcusolver.so.11"},
                                     &a->library, &tried);
    if (library == nullptr) {
      a->status = Unavailable("cuSOLVER unavailable (libcusolver.so.12 not found: " + tried +
                              "); --gpu-library=off runs Fusebox's own factorization loops instead");
      return a;
    }
    SymbolResolver symbols(library);
    symbols.Need("cusolverDnCreate", &a->create);
    symbols.Need("cusolverDnDestroy", &a->destroy);
    symbols.Need("cusolverDnSetStream", &a->set_stream);
    symbols.Need("cusolverGetVersion", &a->get_version);
    symbols.Need("cusolverDnCreateSyevjInfo", &a->create_syevj_info);
    symbols.Need("cusolverDnDestroySyevjInfo", &a->destroy_syevj_info);
    symbols.Need("cusolverDnCreateGesvdjInfo", &a->create_gesvdj_info);
    symbols.Need("cusolverDnDestroyGesvdjInfo", &a->destroy_gesvdj_info);
    symbols.Optional("cusolverDnCreateParams", &a->create_params);
    symbols.Optional("cusolverDnDestroyParams", &a->destroy_params);
    symbols.Optional("cusolverDnXsyevBatched_bufferSize", &a->xsyev_batched_buffer_size);
    symbols.Optional("cusolverDnXsyevBatched", &a->xsyev_batched);
    const char* letters[4] = {"S", "D", "C", "Z"};
    for (int t = 0; t < 4; ++t) {
      const std::string prefix = std::string("cusolverDn") + letters[t];
      symbols.Need((prefix + "potrf_bufferSize").c_str(), &a->potrf_buffer_size[t]);
      symbols.Need((prefix + "potrf").c_str(), &a->potrf[t]);
      symbols.Need((prefix + "potrfBatched").c_str(), &a->potrf_batched[t]);
      symbols.Need((prefix + "getrf_bufferSize").c_str(), &a->getrf_buffer_size[t]);
      symbols.Need((prefix + "getrf").c_str(), &a->getrf[t]);
      if (t < 2) {  // the real QR routines (complex ones are un*, not modelled)
        symbols.Need((prefix + "geqrf_bufferSize").c_str(), &a->geqrf_buffer_size[t]);
        symbols.Need((prefix + "geqrf").c_str(), &a->geqrf[t]);
        symbols.Need((prefix + "orgqr_bufferSize").c_str(), &a->orgqr_buffer_size[t]);
        symbols.Need((prefix + "orgqr").c_str(), &a->orgqr[t]);
        symbols.Need((prefix + "syevd_bufferSize").c_str(), &a->syevd_buffer_size[t]);
        symbols.Need((prefix + "syevd").c_str(), &a->syevd[t]);
        symbols.Need((prefix + "syevj_bufferSize").c_str(), &a->syevj_buffer_size[t]);
        symbols.Need((prefix + "syevj").c_str(), &a->syevj[t]);
        symbols.Need((prefix + "syevjBatched_bufferSize").c_str(), &a->syevj_batched_buffer_size[t]);
        symbols.Need((prefix + "syevjBatched").c_str(), &a->syevj_batched[t]);
        symbols.Need((prefix + "gesvdj_bufferSize").c_str(), &a->gesvdj_buffer_size[t]);
        symbols.Need((prefix + "gesvdj").c_str(), &a->gesvdj[t]);
        symbols.Need((prefix + "gesvdjBatched_bufferSize").c_str(), &a->gesvdj_batched_buffer_size[t]);
        symbols.Need((prefix + "gesvdjBatched").c_str(), &a->gesvdj_batched[t]);
      }
    }
    if (!symbols.missing().empty())
      a->status = Unavailable("cuSOLVER unavailable (" + a->library + " lacks " + symbols.missing() + ")");
    return a;
  }();
  return *api;
}

Status CusolverError(const std::string& call, int code) {
  return Internal(call + ": cuSOLVER error " + std::to_string(code));
}

}  // namespace

Status CusolverAvailable() { return Api().status; }

StatusOr<std::unique_ptr<Cusolver>> Cusolver::Create(CudaContext& context) {
  const CusolverApi& api = Api();
  RETURN_IF_ERROR(api.status);
  ASSIGN_OR_RETURN(void* stream, context.CurrentStream());
  std::unique_ptr<Cusolver> out(new Cusolver());
  if (int rc = api.create(&out->handle_); rc != 0) {
    out->handle_ = nullptr;
    return CusolverError("cusolverDnCreate", rc);
  }
  if (int rc = api.set_stream(out->handle_, stream); rc != 0) return CusolverError("cusolverDnSetStream", rc);
  int version = 0;
  api.get_version(&version);
  // cuSOLVER's version number: major * 1000 + minor * 100 + patch.
  out->description_ = "cuSOLVER " + std::to_string(version / 1000) + "." + std::to_string(version / 100 % 10) + "." +
                      std::to_string(version % 100) + " (" + api.library + ")";
  // jaxlib's test: syevBatched from cuSOLVER 11.7.1 (CUDA 12.6.2) on.
  out->has_syev_batched_ = version >= 11701 && api.create_params != nullptr && api.destroy_params != nullptr &&
                           api.xsyev_batched_buffer_size != nullptr && api.xsyev_batched != nullptr;
  return out;
}

Cusolver::~Cusolver() {
  if (syevj_params_ != nullptr) Api().destroy_syevj_info(syevj_params_);
  if (dn_params_ != nullptr) Api().destroy_params(dn_params_);
  if (gesvdj_params_ != nullptr) Api().destroy_gesvdj_info(gesvdj_params_);
  if (handle_ != nullptr) Api().destroy(handle_);
}

StatusOr<int64_t> Cusolver::WorkspaceBytes(const SolverPlan& plan) {
  const CusolverApi& api = Api();
  RETURN_IF_ERROR(api.status);
  const int t = BlasTypeIndex(plan.type);
  if (t < 0) return InvalidArgument(plan.ToString() + ": not a cuSOLVER type");
  if (plan.empty || plan.batched()) return int64_t{0};
  int lwork = 0;
  const int m = static_cast<int>(plan.m), n = static_cast<int>(plan.n), k = static_cast<int>(plan.taus);
  if ((plan.qr() || plan.householder_product() || plan.eigen() || plan.svd()) && t > 1) {
    return InvalidArgument(plan.ToString() + ": a complex QR, eigh or SVD");
  }
  if (plan.svd() && gesvdj_params_ == nullptr) {
    if (int rc = api.create_gesvdj_info(&gesvdj_params_); rc != 0) {
      gesvdj_params_ = nullptr;
      return CusolverError("cusolverDnCreateGesvdjInfo", rc);
    }
  }
  if (plan.routine == SolverRoutine::kSyevBatched) {
    if (!has_syev_batched_) {
      return InvalidArgument(plan.ToString() + ": " + api.library + " lacks cusolverDnXsyevBatched (cuSOLVER 11.7.1)");
    }
    if (dn_params_ == nullptr) {
      if (int rc = api.create_params(&dn_params_); rc != 0) {
        dn_params_ = nullptr;
        return CusolverError("cusolverDnCreateParams", rc);
      }
    }
    const int data_type = t == 0 ? kCudaR32F : kCudaR64F;
    size_t device_bytes = 0, host_bytes = 0;
    if (int rc = api.xsyev_batched_buffer_size(handle_, dn_params_, kEigModeVector, plan.fill, plan.n, data_type, nullptr,
                                               plan.n, data_type, nullptr, data_type, &device_bytes, &host_bytes,
                                               plan.chunk);
        rc != 0) {
      return CusolverError("cusolverDnXsyevBatched_bufferSize", rc);
    }
    if (host_bytes > host_workspace_.size()) host_workspace_.resize(host_bytes);
    return static_cast<int64_t>(device_bytes);
  }
  if (plan.eigen() && plan.routine != SolverRoutine::kSyevd && syevj_params_ == nullptr) {
    if (int rc = api.create_syevj_info(&syevj_params_); rc != 0) {
      syevj_params_ = nullptr;
      return CusolverError("cusolverDnCreateSyevjInfo", rc);
    }
  }
  int rc = 0;
  if (plan.cholesky()) {
    rc = api.potrf_buffer_size[t](handle_, plan.fill, n, nullptr, n, &lwork);
  } else if (plan.lu()) {
    rc = api.getrf_buffer_size[t](handle_, m, n, nullptr, m, &lwork);
  } else if (plan.qr()) {
    rc = api.geqrf_buffer_size[t](handle_, m, n, nullptr, m, &lwork);
  } else if (plan.householder_product()) {
    rc = api.orgqr_buffer_size[t](handle_, m, n, k, nullptr, m, nullptr, &lwork);
  } else if (plan.routine == SolverRoutine::kSyevd) {
    rc = api.syevd_buffer_size[t](handle_, kEigModeVector, plan.fill, n, nullptr, n, nullptr, &lwork);
  } else if (plan.routine == SolverRoutine::kSyevj) {
    rc = api.syevj_buffer_size[t](handle_, kEigModeVector, plan.fill, n, nullptr, n, nullptr, &lwork, syevj_params_);
  } else if (plan.routine == SolverRoutine::kSyevjBatched) {
    rc = api.syevj_batched_buffer_size[t](handle_, kEigModeVector, plan.fill, n, nullptr, n, nullptr, &lwork,
                                          syevj_params_, static_cast<int>(plan.batch));
  } else if (plan.routine == SolverRoutine::kGesvdj) {
    rc = api.gesvdj_buffer_size[t](handle_, plan.vectors ? kEigModeVector : kEigModeNoVector, plan.econ ? 1 : 0, m, n,
                                   nullptr, m, nullptr, nullptr, m, nullptr, n, &lwork, gesvdj_params_);
  } else {
    rc = api.gesvdj_batched_buffer_size[t](handle_, plan.vectors ? kEigModeVector : kEigModeNoVector, m, n, nullptr, m,
                                           nullptr, nullptr, m, nullptr, n, &lwork, gesvdj_params_,
                                           static_cast<int>(plan.batch));
  }
  if (rc != 0) return CusolverError(plan.RoutineName() + "_bufferSize", rc);
  // lwork counts elements; one int more at the end for the QR routines' devInfo, which
  // jaxlib ignores too.
  return static_cast<int64_t>(lwork) * plan.element_bytes + (plan.qr() || plan.householder_product() ? 16 : 0);
}

Status Cusolver::Run(const SolverPlan& plan, const Buffers& buffers) {
  const DevicePtr a = buffers.a, pivots = buffers.pivots, info = buffers.info, taus = buffers.taus;
  const DevicePtr workspace = buffers.workspace, pointers = buffers.pointers;
  const int64_t workspace_bytes = buffers.workspace_bytes;
  const CusolverApi& api = Api();
  RETURN_IF_ERROR(api.status);
  const int t = BlasTypeIndex(plan.type);
  if (t < 0 || plan.on_cublas()) return InvalidArgument(plan.ToString() + ": not a cuSOLVER routine");
  if (plan.empty) return Status::Ok();
  const int m = static_cast<int>(plan.m), n = static_cast<int>(plan.n), k = static_cast<int>(plan.taus);
  const bool qr = plan.qr() || plan.householder_product();
  // The QR routines' devInfo is the work area's last 16 bytes (WorkspaceBytes).
  const int lwork = static_cast<int>((workspace_bytes - (qr ? 16 : 0)) / plan.element_bytes);
  auto* work = reinterpret_cast<void*>(workspace);
  auto* infos = qr ? reinterpret_cast<int*>(workspace + static_cast<DevicePtr>(workspace_bytes - 16))
                   : reinterpret_cast<int*>(info);
  auto matrix = [&](int64_t b) {
    return reinterpret_cast<void*>(a + static_cast<DevicePtr>(b * plan.stride * plan.element_bytes));
  };
  auto tau = [&](int64_t b) {
    return reinterpret_cast<void*>(taus + static_cast<DevicePtr>(b * plan.taus * plan.element_bytes));
  };
  switch (plan.routine) {
    case SolverRoutine::kPotrf:
      if (int rc = api.potrf[t](handle_, plan.fill, n, reinterpret_cast<void*>(a), n, work, lwork, infos); rc != 0) {
        return CusolverError(plan.RoutineName(), rc);
      }
      return Status::Ok();
    case SolverRoutine::kPotrfBatched:
      if (int rc = api.potrf_batched[t](handle_, plan.fill, n, reinterpret_cast<void**>(pointers), n, infos,
                                        static_cast<int>(plan.batch));
          rc != 0) {
        return CusolverError(plan.RoutineName(), rc);
      }
      return Status::Ok();
    case SolverRoutine::kGetrf:
      // jaxlib's loop: one getrf per matrix, pivots min(m, n) apart, one info each.
      for (int64_t b = 0; b < plan.batch; ++b) {
        auto* ipiv = reinterpret_cast<int*>(pivots) + b * plan.pivots;
        if (int rc = api.getrf[t](handle_, m, n, matrix(b), m, work, ipiv, infos + b); rc != 0) {
          return CusolverError(plan.RoutineName(), rc);
        }
      }
      return Status::Ok();
    case SolverRoutine::kGeqrf:
      for (int64_t b = 0; b < plan.batch; ++b) {
        if (int rc = api.geqrf[t](handle_, m, n, matrix(b), m, tau(b), work, lwork, infos); rc != 0) {
          return CusolverError(plan.RoutineName(), rc);
        }
      }
      return Status::Ok();
    case SolverRoutine::kOrgqr:
      for (int64_t b = 0; b < plan.batch; ++b) {
        if (int rc = api.orgqr[t](handle_, m, n, k, matrix(b), m, tau(b), work, lwork, infos); rc != 0) {
          return CusolverError(plan.RoutineName(), rc);
        }
      }
      return Status::Ok();
    case SolverRoutine::kSyevd:
    case SolverRoutine::kSyevj:
      // jaxlib's loop for syevd (syevj: one matrix), values n apart, one info each.
      for (int64_t b = 0; b < plan.batch; ++b) {
        auto* w = reinterpret_cast<void*>(buffers.values + static_cast<DevicePtr>(b * plan.n * plan.element_bytes));
        const int rc = plan.routine == SolverRoutine::kSyevd
                           ? api.syevd[t](handle_, kEigModeVector, plan.fill, n, matrix(b), n, w, work, lwork, infos + b)
                           : api.syevj[t](handle_, kEigModeVector, plan.fill, n, matrix(b), n, w, work, lwork,
                                          infos + b, syevj_params_);
        if (rc != 0) return CusolverError(plan.RoutineName(), rc);
      }
      return Status::Ok();
    case SolverRoutine::kSyevBatched: {
      // jaxlib's chunks: `chunk` matrices a call, their values and infos with them.
      if (!has_syev_batched_ || dn_params_ == nullptr) return InvalidArgument(plan.ToString() + ": not prepared");
      const int data_type = t == 0 ? kCudaR32F : kCudaR64F;
      for (int64_t b = 0; b < plan.batch; b += plan.chunk) {
        auto* w = reinterpret_cast<void*>(buffers.values + static_cast<DevicePtr>(b * plan.n * plan.element_bytes));
        if (int rc = api.xsyev_batched(handle_, dn_params_, kEigModeVector, plan.fill, plan.n, data_type, matrix(b),
                                       plan.n, data_type, w, data_type, work, static_cast<size_t>(workspace_bytes),
                                       host_workspace_.data(), host_workspace_.size(), infos + b,
                                       std::min(plan.chunk, plan.batch - b));
            rc != 0) {
          return CusolverError(plan.RoutineName(), rc);
        }
      }
      return Status::Ok();
    }
    case SolverRoutine::kSyevjBatched:
      if (int rc = api.syevj_batched[t](handle_, kEigModeVector, plan.fill, n, matrix(0), n,
                                        reinterpret_cast<void*>(buffers.values), work, lwork, infos, syevj_params_,
                                        static_cast<int>(plan.batch));
          rc != 0) {
        return CusolverError(plan.RoutineName(), rc);
      }
      return Status::Ok();
    case SolverRoutine::kGesvdj: {
      // jaxlib's loop: s min(m, n) apart, U m x u_columns, V n x v_columns, one info each.
      const int64_t k = std::min(plan.m, plan.n);
      for (int64_t b = 0; b < plan.batch; ++b) {
        auto at = [&](DevicePtr base, int64_t elements, int64_t bytes) {
          return reinterpret_cast<void*>(base + static_cast<DevicePtr>(b * elements * bytes));
        };
        const int64_t real_bytes = plan.element_bytes;  // real types only
        if (int rc = api.gesvdj[t](handle_, plan.vectors ? kEigModeVector : kEigModeNoVector, plan.econ ? 1 : 0, m, n,
                                   matrix(b), m, at(buffers.values, k, real_bytes),
                                   at(buffers.u, plan.m * plan.u_columns, plan.element_bytes), m,
                                   at(buffers.v, plan.n * plan.v_columns, plan.element_bytes), n, work, lwork, infos + b,
                                   gesvdj_params_);
            rc != 0) {
          return CusolverError(plan.RoutineName(), rc);
        }
      }
      return Status::Ok();
    }
    case SolverRoutine::kGesvdjBatched:
      if (int rc = api.gesvdj_batched[t](handle_, plan.vectors ? kEigModeVector : kEigModeNoVector, m, n, matrix(0), m,
                                         reinterpret_cast<void*>(buffers.values), reinterpret_cast<void*>(buffers.u), m,
                                         reinterpret_cast<void*>(buffers.v), n, work, lwork, infos, gesvdj_params_,
                                         static_cast<int>(plan.batch));
          rc != 0) {
        return CusolverError(plan.RoutineName(), rc);
      }
      return Status::Ok();
    case SolverRoutine::kGetrfBatched:
    case SolverRoutine::kGeqrfBatched:
      break;
  }
  return InvalidArgument(plan.ToString() + ": not a cuSOLVER routine");
}

}  // namespace fusebox::runtime
