// The CUDA driver wrapper without a device: loading reports why there is no GPU (and
// never crashes), and errors are named from Fusebox's own table. The device tests are in
// gpu_runtime_test.cc (label `gpu`).
#include "compiler/codegen/ptx_tools.h"
#include "compiler/runtime/cuda_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "compiler/runtime/cublas.h"
#include "compiler/runtime/cublas_lt.h"
#include "compiler/runtime/cuda_library_loader.h"
#include "compiler/runtime/cudnn.h"
#include "compiler/runtime/cufft.h"
#include "compiler/runtime/cusolver.h"
#include "tests/compiler/runtime/gpu_test_util.h"

namespace fusebox {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CudaErrorNameTest, NamesKnownCodes) {
  EXPECT_EQ(runtime::CudaErrorName(0), "CUDA_SUCCESS");
  EXPECT_EQ(runtime::CudaErrorName(1), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(runtime::CudaErrorName(2), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(runtime::CudaErrorName(34), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(runtime::CudaErrorName(100), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(runtime::CudaErrorName(200), "CUDA_ERROR_INVALID_IMAGE");
  EXPECT_EQ(runtime::CudaErrorName(209), "CUDA_ERROR_NO_BINARY_FOR_GPU");
  EXPECT_EQ(runtime::CudaErrorName(218), "CUDA_ERROR_INVALID_PTX");
  EXPECT_EQ(runtime::CudaErrorName(700), "CUDA_ERROR_ILLEGAL_ADDRESS");
  EXPECT_EQ(runtime::CudaErrorName(999), "CUDA_ERROR_UNKNOWN");
}

TEST(CudaErrorNameTest, UnknownCodesSayTheyAreUnrecognized) {
  EXPECT_EQ(runtime::CudaErrorName(12345), "CUDA_ERROR_12345_UNRECOGNIZED");
  EXPECT_EQ(runtime::CudaErrorName(-1), "CUDA_ERROR_-1_UNRECOGNIZED");
  // Gaps in the driver's numbering are not given a neighbour's name.
  EXPECT_EQ(runtime::CudaErrorName(9), "CUDA_ERROR_9_UNRECOGNIZED");
  EXPECT_EQ(runtime::CudaErrorName(227), "CUDA_ERROR_227_UNRECOGNIZED");
}

TEST(CudaErrorNameTest, FormatsCallNameCodeAndDetail) {
  EXPECT_EQ(
      runtime::FormatCudaError("cuModuleLoadDataEx", 218, "ptxas application ptx input, line 3; error"),
      "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218): ptxas application ptx input, line 3; "
      "error");
  EXPECT_EQ(runtime::FormatCudaError("cuMemAlloc_v2", 2), "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2)");
  EXPECT_EQ(runtime::FormatCudaError("cuInit", 4242), "cuInit: CUDA_ERROR_4242_UNRECOGNIZED (4242)");
}

TEST(CudaDeviceInfoTest, DescribesTheDevice) {
  runtime::CudaDeviceInfo info;
  info.name = "NVIDIA H100 80GB HBM3";
  info.compute_major = 9;
  info.compute_minor = 0;
  info.total_memory_bytes = int64_t{80} << 30;
  info.multiprocessors = 132;
  info.driver_version = 13000;
  EXPECT_EQ(info.arch(), "sm_90");
  EXPECT_EQ(info.ToString(), "NVIDIA H100 80GB HBM3 (sm_90, 80.0 GiB, 132 SMs, driver 13.0)");
  info.compute_major = 8;
  info.compute_minor = 6;
  info.driver_version = 12040;
  EXPECT_EQ(info.arch(), "sm_86");
  EXPECT_THAT(info.ToString(), HasSubstr("driver 12.4"));
}

// On the machines without libcuda this is the "no CUDA driver" path; with a driver but no
// device the "no CUDA device" one. Either way a clean Status, the same on every call.
TEST(CudaDriverTest, DiscoveryReportsWhyThereIsNoGpu) {
  auto count = runtime::CudaDeviceCount();
  if (count.ok()) {
    EXPECT_GT(*count, 0);
    auto info = runtime::DiscoverCudaDevice(0);
    ASSERT_TRUE(info.ok()) << info.status().message();
    EXPECT_FALSE(info->name.empty());
    EXPECT_GE(info->compute_major, 3);
    EXPECT_GT(info->total_memory_bytes, 0);
    auto missing = runtime::DiscoverCudaDevice(*count);
    EXPECT_FALSE(missing.ok());
    GTEST_SKIP() << "a CUDA device is present: " << info->ToString();
  }
  const std::string& message = count.status().message();
  EXPECT_EQ(count.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(message, AnyOf(StartsWith("no CUDA driver ("), StartsWith("no CUDA device (")));
  if (!runtime::BuiltWithCudaHeaders()) {
    EXPECT_THAT(message, HasSubstr("built without CUDA headers"));
  }
  // Asking again gives the same answer (the library is loaded, or not, once).
  auto again = runtime::DiscoverCudaDevice(0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), message);
  auto context = runtime::CudaContext::Create(0);
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(), message);
}

TEST(CudaDriverTest, WithoutLibcudaTheMessageNamesTheLibrary) {
  if (!runtime::BuiltWithCudaHeaders()) GTEST_SKIP() << "built without CUDA headers";
  auto count = runtime::CudaDeviceCount();
  if (count.ok() || count.status().message().find("no CUDA driver (libcuda.so.1 not found") ==
                        std::string::npos) {
    GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  }
  EXPECT_THAT(count.status().message(), HasSubstr("libcuda.so.1"));
  EXPECT_THAT(count.status().message(), HasSubstr("cannot open shared object file"));
}

// The PTX the device tests load is valid: ptxas (no GPU needed) assembles it.
// The NVIDIA libraries' loader: the first name that loads wins, the first failure is
// kept for the message, and unresolved entry points are listed by name.
TEST(CudaLibraryLoaderTest, OpensTheFirstLoadableNameAndKeepsTheFirstFailure) {
  std::string loaded, first_error;
  void* library = runtime::OpenFirstLibrary({"libfusebox_no_such_library.so.1", "libm.so.6"}, &loaded,
                                            &first_error);
  ASSERT_NE(library, nullptr) << first_error;
  EXPECT_EQ(loaded, "libm.so.6");
  EXPECT_THAT(first_error, HasSubstr("libfusebox_no_such_library.so.1"));

  runtime::SymbolResolver symbols(library);
  double (*cosine)(double) = nullptr;
  int (*absent)(int) = nullptr;
  int (*optional)(int) = nullptr;
  symbols.Need("cos", &cosine);
  symbols.Need("fusebox_no_such_symbol", &absent);
  symbols.Optional("fusebox_no_such_optional_symbol", &optional);
  ASSERT_NE(cosine, nullptr);
  EXPECT_EQ(cosine(0.0), 1.0);
  EXPECT_EQ(absent, nullptr);
  EXPECT_EQ(optional, nullptr);
  EXPECT_EQ(symbols.missing(), "fusebox_no_such_symbol");

  loaded.clear();
  first_error.clear();
  EXPECT_EQ(runtime::OpenFirstLibrary({"libfusebox_a.so", "libfusebox_b.so"}, &loaded, &first_error), nullptr);
  EXPECT_TRUE(loaded.empty());
  EXPECT_THAT(first_error, HasSubstr("libfusebox_a.so"));
}

TEST(CudaLibraryLoaderTest, TypeCodesAreCudasValues) {
  EXPECT_EQ(runtime::CudaDataTypeCode(GemmDataType::kF32), 0);
  EXPECT_EQ(runtime::CudaDataTypeCode(GemmDataType::kF64), 1);
  EXPECT_EQ(runtime::CudaDataTypeCode(GemmDataType::kF16), 2);
  EXPECT_EQ(runtime::CudaDataTypeCode(GemmDataType::kBF16), 14);
  EXPECT_EQ(runtime::CublasComputeTypeCode(GemmComputeType::kF32), 68);
  EXPECT_EQ(runtime::CublasComputeTypeCode(GemmComputeType::kF64), 70);
  EXPECT_EQ(runtime::CublasComputeTypeCode(GemmComputeType::kF32FastTf32), 77);
}

// The toolkit's libraries need no driver to load: where /usr/local/cuda has them, every
// entry point Fusebox calls resolves (a renamed symbol in a new CUDA fails here, on a
// machine without a GPU, not on the device).
TEST(CudaLibraryLoaderTest, TheToolkitsLibrariesResolveEveryEntryPoint) {
  struct Library {
    const char* file;
    Status (*available)();
  };
  int checked = 0;
  for (const Library& library : {Library{"/usr/local/cuda/lib64/libcublas.so.13", runtime::CublasAvailable},
                                 Library{"/usr/local/cuda/lib64/libcublasLt.so.13", runtime::CublasLtAvailable},
                                 Library{"/usr/local/cuda/lib64/libcudnn.so.9", runtime::CudnnAvailable},
                                 Library{"/usr/local/cuda/lib64/libcufft.so.12", runtime::CufftAvailable},
                                 Library{"/usr/local/cuda/lib64/libcusolver.so.12", runtime::CusolverAvailable}}) {
    if (!std::ifstream(library.file).good()) continue;
    const Status status = library.available();
    EXPECT_TRUE(status.ok()) << library.file << ": " << status.message();
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no CUDA toolkit libraries under /usr/local/cuda/lib64";
}

TEST(CudaDriverTest, HandWrittenPtxAssembles) {
  const char* ptxas = "/usr/local/cuda/bin/ptxas";
  if (std::FILE* f = std::fopen(ptxas, "rb")) {
    std::fclose(f);
  } else {
    GTEST_SKIP() << "no ptxas at " << ptxas;
  }
  const std::string dir = ::testing::TempDir();
  const std::string ptx = dir + "/fusebox_add_one.ptx", cubin = dir + "/fusebox_add_one.cubin";
  {
    std::ofstream out(ptx);
    out << testing_util::kAddOnePtx;
  }
  const std::string command = std::string(ptxas) + " -arch=sm_75 " + ptx + " -o " + cubin + " 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(cubin, std::ios::binary);
  EXPECT_TRUE(in.good());
  std::remove(ptx.c_str());
  std::remove(cubin.c_str());
}

// TimeOnStream's delay kernel assembles for the oldest and the newest arch Fusebox targets
// (nanosleep needs sm_70; the poll's load is volatile), one thread's few registers, no
// local memory.
TEST(CudaDriverTest, TimingDelayKernelAssembles) {
  if (!codegen::FindPtxas().ok()) GTEST_SKIP() << "no ptxas";
  for (const char* arch : {"sm_75", "sm_90"}) {
    StatusOr<codegen::PtxasResult> result = codegen::AssemblePtx(runtime::TimingDelayKernelPtx(), arch);
    ASSERT_TRUE(result.ok()) << arch << ": " << result.status().message();
    ASSERT_EQ(result->kernels.size(), 1u) << result->log;
    EXPECT_EQ(result->kernels[0].name, runtime::kTimingDelayKernelName);
    EXPECT_LE(result->kernels[0].registers, 16);
    EXPECT_EQ(result->kernels[0].stack_frame_bytes, 0);
    EXPECT_EQ(result->kernels[0].spill_store_bytes, 0);
  }
  EXPECT_NE(runtime::TimingDelayKernelPtx().find("ld.volatile.global.u32"), std::string_view::npos);
  EXPECT_NE(runtime::TimingDelayKernelPtx().find("%globaltimer"), std::string_view::npos);
}

// cuDNN's fused convolution call and the activation descriptor it takes resolve from the
// toolkit's libcudnn without a GPU (they are optional entry points: a cuDNN without them
// still runs plain convolutions, and the fused calls' plans say it lacks them).
TEST(CudaLibraryLoaderTest, CudnnsFusedConvolutionEntryPointsResolve) {
  if (!std::ifstream("/usr/local/cuda/lib64/libcudnn.so.9").good()) {
    GTEST_SKIP() << "no libcudnn.so.9 under /usr/local/cuda/lib64";
  }
  ASSERT_TRUE(runtime::CudnnAvailable().ok()) << runtime::CudnnAvailable().message();
  const Status fused = runtime::CudnnFusedConvolutionAvailable();
  EXPECT_TRUE(fused.ok()) << fused.message();
}

}  // namespace
}  // namespace fusebox
