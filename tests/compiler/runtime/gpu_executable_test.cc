// The GPU executable without a device: Create opens the device before compiling, so a
// machine without a driver gets "no CUDA driver" (not a code generator error) and nothing
// crashes. The device tests are in gpu_runtime_test.cc (label `gpu`).
#include "compiler/runtime/gpu_executable.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cuda_driver.h"

namespace fusebox {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

constexpr char kSmall[] = R"(HloModule small
ENTRY e {
  x = f32[16] parameter(0)
  y = f32[16] parameter(1)
  ROOT a = f32[16] add(x, y)
})";

TEST(GpuExecutableTest, WithoutADriverCreateSaysSo) {
  auto devices = runtime::CudaDeviceCount();
  if (devices.ok()) GTEST_SKIP() << "a CUDA device is present; see gpu_runtime_test";
  auto module = ParseModule(kSmall);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (bool fused : {false, true}) {
    auto optimized = passes::OptimizeForBackend(**module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    auto exe = runtime::GpuExecutable::Create(std::move(*optimized));
    ASSERT_FALSE(exe.ok());
    EXPECT_EQ(exe.status().code(), StatusCode::kUnavailable);
    EXPECT_THAT(exe.status().message(),
                AnyOf(HasSubstr("no CUDA driver"), HasSubstr("no CUDA device")));
    // The same reason discovery gives, not the code generator's.
    EXPECT_EQ(exe.status().message(), devices.status().message());
  }
}

TEST(GpuExecutableTest, WithoutADriverTheMessageIsNoCudaDriver) {
  auto devices = runtime::CudaDeviceCount();
  if (devices.ok() || devices.status().message().rfind("no CUDA driver", 0) != 0) {
    GTEST_SKIP() << "this machine has a CUDA driver";
  }
  auto module = ParseModule(kSmall);
  ASSERT_TRUE(module.ok()) << module.status().message();
  runtime::GpuExecutableOptions options;
  options.ptx_to_cubin = [](const std::string&,
                            const std::string&) -> StatusOr<std::vector<uint8_t>> {
    ADD_FAILURE() << "nothing should be assembled without a driver";
    return std::vector<uint8_t>{};
  };
  auto exe = runtime::GpuExecutable::Create(std::move(*module), options);
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(), HasSubstr("no CUDA driver"));
}

TEST(GpuExecutableTest, RejectsAMissingModule) {
  auto exe = runtime::GpuExecutable::Create(nullptr);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace fusebox
