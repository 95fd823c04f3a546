// XLA GPU modules with cuBLAS and cuDNN calls on the CPU backend: the calls are lowered to
// HLO that Fusebox's own CPU kernels run (dot, convolution with lhs dilation and a
// reversed kernel, sliced gradients), fused and unfused, and agree with the interpreter.
#include <gtest/gtest.h>

#include <string>

#include "tests/compiler/runtime/cpu_test_util.h"

namespace fusebox::testing_util {
namespace {

TEST(CpuLibraryCallsTest, CnnStepAfterXlaGpuRunsOnTheCpu) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/library_calls/cnn_step_gpu.hlo");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ExpectCpuMatchesInterpreter(*parsed->modules[0]);
}

TEST(CpuLibraryCallsTest, GradientsWithDilationAndWidePaddingRunOnTheCpu) {
  // Kernel dilation 2 and a padding wider than the kernel (the lowering slices), and a
  // stride that drops input rows from the filter gradient.
  ExpectCpuMatchesInterpreter(R"(HloModule m
ENTRY e {
  dy = f32[1,10,5,2] parameter(0)
  w = f32[2,3,3,2] parameter(1)
  x = f32[1,7,9,3] parameter(2)
  dy2 = f32[1,2,4,2] parameter(3)
  dx = (f32[1,7,9,3], u8[0]) custom-call(dy, w), window={size=2x3 pad=3_1x0_0 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBackwardInput", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}
  dw = (f32[2,3,3,2], u8[0]) custom-call(x, dy2), window={size=2x3 stride=3x2 rhs_dilate=1x1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBackwardFilter", backend_config={"cudnn_conv_backend_config":{"conv_result_scale":1}}
  a = f32[1,7,9,3] get-tuple-element(dx), index=0
  b = f32[2,3,3,2] get-tuple-element(dw), index=0
  ROOT t = (f32[1,7,9,3], f32[2,3,3,2]) tuple(a, b)
})");
}

}  // namespace
}  // namespace fusebox::testing_util
