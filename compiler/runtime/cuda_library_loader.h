// What the dlopen'ed NVIDIA libraries (cuBLAS, cuBLASLt, cuDNN) share: opening the first
// of several library names that loads, resolving entry points by name with a list of
// the missing ones, and the cudaDataType_t / cublasComputeType_t codes of a GEMM plan's
// types (one table for cuBLAS and cuBLASLt, checked against the headers when present).
#pragma once

#include <initializer_list>
#include <string>
#include <type_traits>

#include "compiler/ir/gemm_plan.h"

namespace fusebox::runtime {

// dlopen(RTLD_NOW | RTLD_LOCAL) of each name in turn. Returns the first handle that
// loads, with its name in *loaded; nullptr when none does, with the first failure's
// dlerror() text in *first_error. Handles are never closed: the libraries stay loaded
// for the process.
void* OpenFirstLibrary(std::initializer_list<const char*> names, std::string* loaded,
                       std::string* first_error);

// Resolves entry points of one library by name; the names that do not resolve are kept,
// comma-separated, for the "X lacks A, B" message.
class SymbolResolver {
 public:
  explicit SymbolResolver(void* library) : library_(library) {}

  template <typename Fn>
  void Need(const char* name, Fn* out) {
    static_assert(std::is_pointer_v<Fn>, "Need() fills a function pointer");
    *out = reinterpret_cast<Fn>(Find(name));
    if (*out == nullptr) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  }
  // An optional entry point: nullptr when absent, not counted as missing.
  template <typename Fn>
  void Optional(const char* name, Fn* out) {
    *out = reinterpret_cast<Fn>(Find(name));
  }
  const std::string& missing() const { return missing_; }

 private:
  void* Find(const char* name) const;

  void* library_;
  std::string missing_;
};

// cudaDataType_t and cublasComputeType_t values of a GEMM plan's types (CUDA 12 and 13).
int CudaDataTypeCode(GemmDataType type);
int CublasComputeTypeCode(GemmComputeType type);

}  // namespace fusebox::runtime
