// cuBLAS through dlopen: the handful of entry points the GPU executable needs, resolved
// by name, with cuBLAS's enum values kept here (checked against cublas_api.h when the
// headers are there at build time).
#include "compiler/runtime/cublas.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cublas_api.h>
#endif

namespace fusebox::runtime {
namespace {

// cudaDataType_t, cublasComputeType_t and cublasOperation_t values (CUDA 12 and 13).
constexpr int kCudaR16F = 2, kCudaR16BF = 14, kCudaR32F = 0, kCudaR64F = 1;
constexpr int kCompute32F = 68, kCompute32FFastTf32 = 77, kCompute64F = 70;
constexpr int kOpN = 0, kOpT = 1;
constexpr int kGemmDefault = -1;

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(kCudaR16F == CUDA_R_16F && kCudaR16BF == CUDA_R_16BF && kCudaR32F == CUDA_R_32F &&
              kCudaR64F == CUDA_R_64F);
static_assert(kCompute32F == CUBLAS_COMPUTE_32F && kCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32 &&
              kCompute64F == CUBLAS_COMPUTE_64F);
static_assert(kOpN == CUBLAS_OP_N && kOpT == CUBLAS_OP_T && kGemmDefault == CUBLAS_GEMM_DEFAULT);
#endif

using CreateFn = int (*)(void**);
using DestroyFn = int (*)(void*);
using SetStreamFn = int (*)(void*, void*);
using GetVersionFn = int (*)(void*, int*);
using StatusStringFn = const char* (*)(int);
using GemmStridedBatchedExFn = int (*)(void*, int, int, int, int, int, const void*, const void*, int, int,
                                       long long, const void*, int, int, long long, const void*, void*, int,
                                       int, long long, int, int, int);

struct CublasApi {
  CreateFn create = nullptr;
  DestroyFn destroy = nullptr;
  SetStreamFn set_stream = nullptr;
  GetVersionFn get_version = nullptr;
  StatusStringFn status_string = nullptr;
  GemmStridedBatchedExFn gemm_strided_batched_ex = nullptr;
  std::string library;  // the name that loaded
  Status status;        // why cuBLAS is unusable, or OK
};

const CublasApi& Api() {
  static const CublasApi* api = [] {
    auto* a = new CublasApi();  // never freed: cuBLAS stays loaded for the process
    const std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                            "/usr/local/cuda/lib64/libcublas.so.13",
                                            "/usr/local/cuda/lib64/libcublas.so.12"};
    void* library = nullptr;
    std::string tried;
    for (const std::string& name : names) {
      dlerror();
      library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) {
        a->library = name;
        break;
      }
      const char* why = dlerror();
      if (tried.empty()) tried = why != nullptr ? why : name + ": not found";
    }
    if (library == nullptr) {
      a->status = Unavailable("cuBLAS unavailable (libcublas.so.13 not found: " + tried +
                              "); --gpu-library=off runs Fusebox's own dot kernels");
      return a;
    }
    std::string missing;
    auto need = [&](const char* name, auto* out) {
      *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(dlsym(library, name));
      if (*out == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    need("cublasCreate_v2", &a->create);
    need("cublasDestroy_v2", &a->destroy);
    need("cublasSetStream_v2", &a->set_stream);
    need("cublasGetVersion_v2", &a->get_version);
    need("cublasGemmStridedBatchedEx", &a->gemm_strided_batched_ex);
    a->status_string = reinterpret_cast<StatusStringFn>(dlsym(library, "cublasGetStatusString"));
    if (!missing.empty()) a->status = Unavailable("cuBLAS unavailable (" + a->library + " lacks " + missing + ")");
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

int DataTypeCode(GemmDataType type) {
  switch (type) {
    case GemmDataType::kF16:
      return kCudaR16F;
    case GemmDataType::kBF16:
      return kCudaR16BF;
    case GemmDataType::kF32:
      return kCudaR32F;
    case GemmDataType::kF64:
      return kCudaR64F;
  }
  return kCudaR32F;
}

int ComputeTypeCode(GemmComputeType type) {
  switch (type) {
    case GemmComputeType::kF32:
      return kCompute32F;
    case GemmComputeType::kF32FastTf32:
      return kCompute32FFastTf32;
    case GemmComputeType::kF64:
      return kCompute64F;
  }
  return kCompute32F;
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
  const int rc = api.gemm_strided_batched_ex(
      handle_, plan.a.transpose ? kOpT : kOpN, plan.b.transpose ? kOpT : kOpN, static_cast<int>(plan.m),
      static_cast<int>(plan.n), static_cast<int>(plan.k), alpha, reinterpret_cast<const void*>(a),
      DataTypeCode(plan.a.type), static_cast<int>(plan.a.ld), plan.a.batch_stride, reinterpret_cast<const void*>(b),
      DataTypeCode(plan.b.type), static_cast<int>(plan.b.ld), plan.b.batch_stride, beta,
      reinterpret_cast<void*>(out), DataTypeCode(plan.c_type), static_cast<int>(plan.ldc), plan.c_batch_stride,
      static_cast<int>(plan.batch), ComputeTypeCode(plan.compute), kGemmDefault);
  if (rc != 0) return CublasError("cublasGemmStridedBatchedEx", rc);
  return Status::Ok();
}

}  // namespace fusebox::runtime
