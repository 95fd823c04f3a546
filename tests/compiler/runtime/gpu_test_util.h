// Helpers for GPU runtime tests: a hand-written PTX kernel, skipping without a device, and
// running a module on the GPU (fused and unfused) against the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/runtime/gpu_executable.h"

namespace fusebox::testing_util {

// `add_one(in, out, n)`: out[i] = in[i] + 1.0f for i < n, one thread per element. Buffers
// first, then the i64 scalar: the runtime's kernel ABI.
inline constexpr char kAddOnePtx[] = R"(.version 7.8
.target sm_75
.address_size 64

.visible .entry add_one(
  .param .u64 add_one_in,
  .param .u64 add_one_out,
  .param .u64 add_one_n
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<9>;

  ld.param.u64 %rd1, [add_one_in];
  ld.param.u64 %rd2, [add_one_out];
  ld.param.u64 %rd3, [add_one_n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.u32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd5, %rd1;
  cvta.to.global.u64 %rd6, %rd2;
  shl.b64 %rd7, %rd4, 2;
  add.s64 %rd8, %rd5, %rd7;
  ld.global.f32 %f1, [%rd8];
  add.f32 %f2, %f1, 0f3F800000;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f2;
DONE:
  ret;
}
)";

// Skips the calling test (with the reason printed) when there is no driver or device.
#define FUSEBOX_SKIP_WITHOUT_GPU()                                   \
  do {                                                               \
    auto _devices = ::fusebox::runtime::CudaDeviceCount();                    \
    if (!_devices.ok()) GTEST_SKIP() << _devices.status().message(); \
  } while (0)

// `gpu_libraries`: dots go to cuBLAS (in full f32, so the interpreter's tolerance holds);
// skinny ones too unless `gemm_kernels` says otherwise (the tests of library calls count
// them, so the default is not the timed choice).
inline StatusOr<std::unique_ptr<runtime::GpuExecutable>> CompileGpu(
    const Module& module, bool fused, bool gpu_libraries = false,
    runtime::GemmKernels gemm_kernels = runtime::GemmKernels::kLibrary) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForBackend(module, fused, gpu_libraries));
  runtime::GpuExecutableOptions options;
  options.allow_tf32 = false;
  options.gemm_kernels = gemm_kernels;
  return runtime::GpuExecutable::Create(std::move(optimized), options);
}

// Runs `module` on the GPU (fused and unfused) and in the interpreter on the same random
// inputs; every element must agree within the element type's tolerance.
inline void ExpectGpuMatchesInterpreter(const Module& module, uint64_t seed = 1, bool gpu_libraries = false) {
  auto args = interpreter::RandomArguments(module, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto exe = CompileGpu(module, fused, gpu_libraries);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    auto actual = (*exe)->Run(*args);
    if (gpu_libraries) {
      EXPECT_GT((*exe)->last_library_calls(), 0) << "no dot ran in cuBLAS";
    }
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    PrimitiveType type =
        expected->shape().IsArray() ? expected->shape().element_type() : PrimitiveType::kF32;
    interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(type));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString() << "\n" << (*exe)->module().ToString();
  }
}

}  // namespace fusebox::testing_util
