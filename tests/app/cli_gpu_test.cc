// CLI tests for the GPU backend through the real binary: the GPU compile stages (no GPU
// needed; ptxas and a disassembler where present) and `run --backend gpu`, which on a
// machine without a driver or device must fail with a clear message and exit 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/codegen/ptx_tools.h"
#include "compiler/runtime/cuda_driver.h"
#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Example;
using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using fusebox::cli_test::RunFuseboxStdout;
using ::testing::HasSubstr;

TEST(CliGpuCompileTest, PtxStageHasAnEntryPerLaunchAndReductionsShuffle) {
  Result r = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage ptx");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(".target sm_90"));
  EXPECT_THAT(r.out, HasSubstr(".entry fusion_kernel"));
  EXPECT_THAT(r.out, HasSubstr("shfl.sync.down"));
  // The split reduction's last block folds the partials: an arrival counter in device
  // memory, an atomic and fences.
  EXPECT_THAT(r.out, HasSubstr(".global .align 4 .b8 fusion_kernel_arrivals["));
  EXPECT_THAT(r.out, HasSubstr("atom.global.add.u32"));
  EXPECT_THAT(r.out, HasSubstr("membar.gl;"));
  // The header maps entries to HLO instructions and launch geometry.
  EXPECT_THAT(r.out, HasSubstr("//   fusion_kernel <- %fusion (reduction(full)), grid "));
  Result sm80 = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage ptx --gpu-arch sm_80");
  ASSERT_EQ(sm80.code, 0);
  EXPECT_THAT(sm80.out, HasSubstr(".target sm_80"));
}

TEST(CliGpuCompileTest, GpuLlvmIrStages) {
  Result ir = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir --backend gpu");
  ASSERT_EQ(ir.code, 0);
  EXPECT_THAT(ir.out, HasSubstr("nvptx64-nvidia-cuda"));
  EXPECT_THAT(ir.out, HasSubstr("llvm.nvvm.shfl.sync.down.i32"));
  Result opt = RunFusebox("compile " + Example("mnist_train_step.hlo") + " --stage gpu_llvm_ir_optimized");
  if (opt.code != 0 && opt.out.find("libdevice") != std::string::npos) GTEST_SKIP() << opt.out;
  ASSERT_EQ(opt.code, 0);
  // exp and log come from libdevice, linked in and inlined: no call to a C library function stays.
  EXPECT_THAT(opt.out, ::testing::Not(HasSubstr("declare float @expf")));
}

TEST(CliGpuCompileTest, UnsupportedArchIsAUserError) {
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage ptx --gpu-arch sm_70");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("sm_70 is not supported"));
}

TEST(CliGpuCompileTest, PtxasInfoAndSass) {
  Result info = RunFusebox("compile " + Example("mnist_train_step.hlo") + " --stage ptxas_info");
  if (info.code != 0 && info.out.find("libdevice") != std::string::npos) GTEST_SKIP() << info.out;
  if (!fusebox::codegen::FindPtxas().ok()) {
    EXPECT_EQ(info.code, 1);
    EXPECT_THAT(info.out, HasSubstr("ptxas not found"));
    GTEST_SKIP() << "no ptxas here";
  }
  ASSERT_EQ(info.code, 0) << info.out;
  EXPECT_THAT(info.out, HasSubstr("registers"));
  // With GPU libraries (the default) the dots are cuBLAS calls: no kernel of Fusebox's.
  EXPECT_THAT(info.out, ::testing::Not(HasSubstr("dot_general_2_kernel")));
  Result own = RunFusebox("compile " + Example("mnist_train_step.hlo") + " --stage ptxas_info --gpu-library=off");
  ASSERT_EQ(own.code, 0) << own.out;
  EXPECT_THAT(own.out, HasSubstr("dot_general_2_kernel"));
  Result sass = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage sass");
  if (fusebox::codegen::FindSassDisassembler().ok()) {
    ASSERT_EQ(sass.code, 0) << sass.out;
    EXPECT_THAT(sass.out, HasSubstr("fusion_kernel"));
  } else {
    EXPECT_EQ(sass.code, 1);
    EXPECT_THAT(sass.out, HasSubstr("SASS unavailable"));
  }
}

// jax's layer norm of 4096 rows of 1024: ptxas alone gives its row kernel more than 64
// registers, 3 blocks of 256 an SM, two waves of its 512 blocks on a 132-SM GPU; asked for
// 4 it fits in 64 without spilling (codegen/occupancy.h). The ptxas_info stage assembles
// it as a run on an H100/H200 loads it and says so.
std::string LayerNorm() { return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/gpu/layer_norm_4096x1024.hlo"; }

TEST(CliGpuCompileTest, PtxasInfoNamesTheOccupancyRequests) {
  if (!fusebox::codegen::FindPtxas().ok()) GTEST_SKIP() << "no ptxas here";
  Result info = RunFusebox("compile " + LayerNorm() + " --stage ptxas_info");
  if (info.code != 0 && info.out.find("libdevice") != std::string::npos) GTEST_SKIP() << info.out;
  ASSERT_EQ(info.code, 0) << info.out;
  EXPECT_THAT(info.out, HasSubstr("occupancy (132 SMs, sm_90's largest part): fusion_kernel: 4 blocks an SM asked "
                                  "for (512 blocks of 256, 3 an SM with "));
  EXPECT_THAT(info.out, HasSubstr("64 registers, 1 wave instead of 2"));
  EXPECT_THAT(info.out, HasSubstr("fusion_kernel  sm_90         64 "));
  // For sm_80 ptxas gives it 63 registers: 4 blocks an SM, 432 at once on an A100's 108
  // SMs; 5 would save the second wave (ptxas 13 spills there, and the request is not kept).
  Result sm80 = RunFusebox("compile " + LayerNorm() + " --stage ptxas_info --gpu-arch sm_80");
  ASSERT_EQ(sm80.code, 0) << sm80.out;
  EXPECT_THAT(sm80.out, HasSubstr("occupancy (108 SMs, sm_80's largest part): fusion_kernel: 5 blocks an SM asked for"));
  // reduce_sum's kernels save no wave with more blocks an SM: nothing asked.
  Result plain = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage ptxas_info");
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_THAT(plain.out, ::testing::Not(HasSubstr("occupancy (")));
}

// `compile --gpu-kernel-shapes=all`: the ptx stage's header names the other shapes a GPU
// run times (64, 128 and 256 threads a row beside the layer norm's warp a row), each an
// entry of the PTX, and ptxas_info has their registers; the default shows none.
TEST(CliGpuCompileTest, KernelShapesInTheGpuStages) {
  Result all = RunFusebox("compile " + LayerNorm() + " --stage ptx --gpu-kernel-shapes=all");
  if (all.code != 0 && all.out.find("libdevice") != std::string::npos) GTEST_SKIP() << all.out;
  ASSERT_EQ(all.code, 0) << all.out;
  EXPECT_THAT(all.out, HasSubstr("//   fusion_kernel_t64 <- %fusion (reduction(row kernel), shape: 64 threads a row; "
                                 "timed against a warp a row), grid 1024x1x1, block 256"));
  EXPECT_THAT(all.out, HasSubstr("fusion_kernel_t256 <- %fusion"));
  EXPECT_THAT(all.out, HasSubstr(".entry fusion_kernel_t128("));
  Result plain = RunFusebox("compile " + LayerNorm() + " --stage ptx");
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_THAT(plain.out, ::testing::Not(HasSubstr("_t64")));
  // The default shape is named without the others too: the MLP's first layer, its own
  // tensor-core dot with k in 4 parts (grid z), and the unsplit shape only with all.
  const std::string dense = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/gpu/dense_relu_256x784x512.hlo";
  Result dot = RunFusebox("compile " + dense + " --stage ptx --backend gpu --gpu-library=off");
  ASSERT_EQ(dot.code, 0) << dot.out;
  EXPECT_THAT(dot.out, HasSubstr("//   fusion_kernel <- %fusion (dot(tensor core), shape: 32x32 tiles, k in 4 parts), "
                                 "grid 16x8x4, block 128"));
  EXPECT_THAT(dot.out, ::testing::Not(HasSubstr("fusion_kernel_m0")));
  Result dot_all = RunFusebox("compile " + dense + " --stage ptx --backend gpu --gpu-library=off --gpu-kernel-shapes=all");
  ASSERT_EQ(dot_all.code, 0) << dot_all.out;
  EXPECT_THAT(dot_all.out, HasSubstr("//   fusion_kernel_m0 <- %fusion (dot(tensor core), shape: 32x32 tiles; timed against "
                                     "32x32 tiles, k in 4 parts), grid 16x8x1, block 128"));
  Result bad = RunFusebox("compile " + LayerNorm() + " --stage ptx --gpu-kernel-shapes=some");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-kernel-shapes"));
  if (!fusebox::codegen::FindPtxas().ok()) GTEST_SKIP() << "no ptxas here";
  Result info = RunFusebox("compile " + LayerNorm() + " --stage ptxas_info --gpu-kernel-shapes=all");
  ASSERT_EQ(info.code, 0) << info.out;
  EXPECT_THAT(info.out, HasSubstr("fusion_kernel_t256  sm_90 "));
  EXPECT_THAT(info.out, HasSubstr("4 kernels, 0 with register spills"));
}

// --gpu-occupancy=tuned|off (refused otherwise, anywhere). On a GPU both match the
// interpreter; tuned, the run's notes give the request on a GPU where it saves a wave.
TEST(CliGpuRunTest, OccupancyFlag) {
  Result bad = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --gpu-occupancy=max");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-occupancy"));
  auto device = fusebox::runtime::DiscoverCudaDevice(0);
  if (!device.ok()) GTEST_SKIP() << "no GPU here";
  Result tuned = RunFusebox("run " + LayerNorm() + " --backend gpu --check --iterations 3");
  EXPECT_EQ(tuned.code, 0) << tuned.out;
  EXPECT_THAT(tuned.out, HasSubstr("check: matches the interpreter"));
  if (device->multiprocessors * 3 < 512 && device->multiprocessors * 4 >= 512) {
    EXPECT_THAT(tuned.out, HasSubstr("fusion_kernel: 4 blocks an SM asked for")) << tuned.out;
  }
  Result off = RunFusebox("run " + LayerNorm() + " --backend gpu --check --iterations 3 --gpu-occupancy=off");
  EXPECT_EQ(off.code, 0) << off.out;
  EXPECT_THAT(off.out, HasSubstr("check: matches the interpreter"));
  EXPECT_THAT(off.out, ::testing::Not(HasSubstr("blocks an SM asked for")));
}

// Row kernels' shapes: timed by default (the run's notes give each shape's time),
// `default` runs the emitter's shape untimed; a bad value is refused anywhere.
TEST(CliGpuRunTest, KernelShapesFlag) {
  Result bad = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --gpu-kernel-shapes=fastest");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-kernel-shapes"));
  if (!fusebox::runtime::DiscoverCudaDevice(0).ok()) GTEST_SKIP() << "no GPU here";
  Result timed = RunFusebox("run " + LayerNorm() + " --backend gpu --check --iterations 3");
  EXPECT_EQ(timed.code, 0) << timed.out;
  EXPECT_THAT(timed.out, HasSubstr("check: matches the interpreter"));
  EXPECT_THAT(timed.out, HasSubstr("kernel shapes timed for 1 kernel(s)")) << timed.out;
  Result plain = RunFusebox("run " + LayerNorm() + " --backend gpu --check --iterations 3 --gpu-kernel-shapes=default");
  EXPECT_EQ(plain.code, 0) << plain.out;
  EXPECT_THAT(plain.out, HasSubstr("check: matches the interpreter"));
  EXPECT_THAT(plain.out, ::testing::Not(HasSubstr("kernel shapes timed")));
}

TEST(CliGpuRunTest, RunsOrSaysWhatIsMissing) {
  Result r = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --check");
  auto device = fusebox::runtime::DiscoverCudaDevice(0);
  if (!device.ok()) {
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("no CUDA driver"), HasSubstr("no CUDA device")));
    EXPECT_THAT(r.out, HasSubstr(device.status().message().substr(0, 14)));
    return;
  }
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter"));
}

TEST(CliGpuRunTest, HostStagingIsPinnedOrPageable) {
  Result bad =
      RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --host-staging=sideways");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--host-staging"));
  if (!fusebox::runtime::DiscoverCudaDevice(0).ok()) GTEST_SKIP() << "no GPU here";
  // Both ways the uploaded-every-run arguments give the interpreter's result.
  for (const char* staging : {"pinned", "pageable"}) {
    Result r = RunFusebox(
        "run " + Example("reduce_sum.hlo") +
        " --backend gpu --check --iterations 2 --upload-every-run --host-staging=" + staging);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter")) << staging;
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("pinned host staging unavailable"))) << staging;
  }
}

// --gpu-autotune is on or off; --gpu-autotune-cache names a file that must be a cache when
// it exists (checked before the device is opened, so this part runs anywhere). On a GPU:
// a first run starts the file, a second loads it and takes its choices from it, and
// --gpu-autotune=off says nothing of tuning; each run matches the interpreter.
TEST(CliGpuRunTest, AutotuneFlagsAndTheCacheFile) {
  Result bad = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --gpu-autotune=maybe");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-autotune"));
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "cli_autotune_cache";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string junk = (dir / "junk.txt").string();
  std::ofstream(junk) << "not a cache\n";
  Result malformed = RunFusebox("run " + Example("mnist_train_step.hlo") + " --backend gpu --gpu-autotune-cache=" + junk);
  EXPECT_EQ(malformed.code, 1) << malformed.out;
  EXPECT_THAT(malformed.out, HasSubstr(junk + ":1: not a Fusebox autotune cache"));
  if (!fusebox::runtime::DiscoverCudaDevice(0).ok()) GTEST_SKIP() << "no GPU here";
  const std::string file = (dir / "tuned.txt").string();
  const std::string run = "run " + Example("cifar_cnn_train_step.hlo") + " --backend gpu --check --gpu-autotune-cache=" + file;
  Result first = RunFusebox(run);
  EXPECT_EQ(first.code, 0) << first.out;
  EXPECT_THAT(first.out, HasSubstr("autotune cache " + file + ": new"));
  EXPECT_THAT(first.out, HasSubstr("cuDNN algorithms autotuned for"));
  EXPECT_THAT(first.out, HasSubstr("check: matches the interpreter"));
  ASSERT_TRUE(std::filesystem::exists(file));
  Result second = RunFusebox(run);
  EXPECT_EQ(second.code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("choice(s) loaded, 0 added"));
  EXPECT_THAT(second.out, HasSubstr("of them from the autotune cache"));
  EXPECT_THAT(second.out, HasSubstr("check: matches the interpreter"));
  Result off = RunFusebox("run " + Example("cifar_cnn_train_step.hlo") + " --backend gpu --check --gpu-autotune=off");
  EXPECT_EQ(off.code, 0) << off.out;
  EXPECT_THAT(off.out, ::testing::Not(HasSubstr("autotuned")));
  EXPECT_THAT(off.out, HasSubstr("check: matches the interpreter"));
  std::filesystem::remove_all(dir);
}

// --gpu-gemm-kernels is timed, library or fusebox (refused otherwise before the device is
// opened). On a GPU, MNIST's two skinny gemm calls run Fusebox's kernel untimed with
// `fusebox`, are weighed against the library by default, and both runs match.
TEST(CliGpuRunTest, GemmKernelsFlag) {
  Result bad = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --gpu-gemm-kernels=sometimes");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-gemm-kernels"));
  if (!fusebox::runtime::DiscoverCudaDevice(0).ok()) GTEST_SKIP() << "no GPU here";
  Result own = RunFusebox("run " + Example("mnist_train_step.hlo") + " --backend gpu --check --gpu-gemm-kernels=fusebox");
  EXPECT_EQ(own.code, 0) << own.out;
  EXPECT_THAT(own.out, HasSubstr("runs 2 gemm call(s) untimed"));
  EXPECT_THAT(own.out, HasSubstr("check: matches the interpreter"));
  Result timed = RunFusebox("run " + Example("mnist_train_step.hlo") + " --backend gpu --check");
  EXPECT_EQ(timed.code, 0) << timed.out;
  EXPECT_THAT(timed.out, HasSubstr("timed against the library for 2 gemm call(s)"));
  EXPECT_THAT(timed.out, HasSubstr("check: matches the interpreter"));
}

TEST(CliGpuRunTest, GpuLibraryIsOnOrOff) {
  Result bad = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend gpu --gpu-library=maybe");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-library"));
  if (!fusebox::runtime::DiscoverCudaDevice(0).ok()) GTEST_SKIP() << "no GPU here";
  // Dots in cuBLAS (full f32 under --check), then Fusebox's own kernels: both match.
  Result on = RunFusebox("run " + Example("mnist_train_step.hlo") + " --backend gpu --check --iterations 3");
  EXPECT_EQ(on.code, 0) << on.out;
  EXPECT_THAT(on.out, HasSubstr("library calls: cuBLAS"));
  EXPECT_THAT(on.out, HasSubstr("cuBLAS gemms and Fusebox's own dots compute in full f32"));
  EXPECT_THAT(on.out, HasSubstr("per run (median): kernels"));
  EXPECT_THAT(on.out, HasSubstr("check: matches the interpreter"));
  Result off = RunFusebox("run " + Example("mnist_train_step.hlo") + " --backend gpu --check --gpu-library=off");
  EXPECT_EQ(off.code, 0) << off.out;
  EXPECT_THAT(off.out, ::testing::Not(HasSubstr("library calls")));
  EXPECT_THAT(off.out, HasSubstr("check: matches the interpreter"));
  // An XLA GPU module: its cuDNN and cuBLASLt calls lowered, its product in cuBLASLt.
  Result xla = RunFusebox("run " + std::string(FUSEBOX_SOURCE_DIR) +
                          "/tests/data/library_calls/cnn_step_gpu.hlo --backend gpu --check");
  EXPECT_EQ(xla.code, 0) << xla.out;
  EXPECT_THAT(xla.out, HasSubstr("check: matches the interpreter"));
}

}  // namespace
