#include "compiler/runtime/cuda_library_loader.h"

#include <dlfcn.h>

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cublas_api.h>
#endif

namespace fusebox::runtime {
namespace {

constexpr int kCudaR16F = 2, kCudaR16BF = 14, kCudaR32F = 0, kCudaR64F = 1;
constexpr int kCompute32F = 68, kCompute32FFastTf32 = 77, kCompute64F = 70;

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
static_assert(kCudaR16F == CUDA_R_16F && kCudaR16BF == CUDA_R_16BF && kCudaR32F == CUDA_R_32F &&
              kCudaR64F == CUDA_R_64F);
static_assert(kCompute32F == CUBLAS_COMPUTE_32F && kCompute32FFastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32 &&
              kCompute64F == CUBLAS_COMPUTE_64F);
#endif

}  // namespace

void* OpenFirstLibrary(std::initializer_list<const char*> names, std::string* loaded,
                       std::string* first_error) {
  for (const char* name : names) {
    dlerror();
    if (void* library = dlopen(name, RTLD_NOW | RTLD_LOCAL)) {
      *loaded = name;
      return library;
    }
    const char* why = dlerror();
    if (first_error->empty()) *first_error = why != nullptr ? why : std::string(name) + ": not found";
  }
  return nullptr;
}

void* SymbolResolver::Find(const char* name) const { return dlsym(library_, name); }

int CudaDataTypeCode(GemmDataType type) {
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

int CublasComputeTypeCode(GemmComputeType type) {
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

}  // namespace fusebox::runtime
