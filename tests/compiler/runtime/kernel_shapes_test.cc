// The GPU runtime's choice among a kernel's launch shapes, apart from the device
// (compiler/runtime/kernel_shapes.h): which shape wins with the 3% margin, how many
// launches a sample takes, the note, and the autotune cache's key; and the checks of Fusebox's
// own kernels against the device: an own gemm kernel's result against the library's, the
// tensor-core canary's verdict.
#include "compiler/runtime/kernel_shapes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_emulator.h"
#include "compiler/parser/parser.h"

namespace fusebox::runtime {
namespace {

TEST(KernelShapesTest, AVariantWinsOnlyWhenClearlyFaster) {
  // Within the margin of the kernel's own shape: the own shape stays.
  EXPECT_EQ(FastestShape({0.0100, 0.0098}), 0u);
  EXPECT_EQ(FastestShape({0.0100, 0.0097}), 0u);
  // Beyond it: the fastest variant.
  EXPECT_EQ(FastestShape({0.0100, 0.0090}), 1u);
  EXPECT_EQ(FastestShape({0.0100, 0.0090, 0.0071, 0.0080}), 2u);
  // Slower variants never win; one shape alone is chosen.
  EXPECT_EQ(FastestShape({0.0070, 0.0090, 0.0120}), 0u);
  EXPECT_EQ(FastestShape({0.0070}), 0u);
  // A margin of 1 takes any faster variant.
  EXPECT_EQ(FastestShape({0.0100, 0.0099}, 1.0), 1u);
}

TEST(KernelShapesTest, SamplesFillAboutFiftyMicroseconds) {
  EXPECT_EQ(ShapeSampleLaunches(0.007), 7);      // a 7 us kernel: 7 launches
  EXPECT_EQ(ShapeSampleLaunches(0.001), 20);     // at most 20
  EXPECT_EQ(ShapeSampleLaunches(2.0), 1);        // at least 1
  EXPECT_EQ(ShapeSampleLaunches(0.0), 20);       // a timer that said nothing
  EXPECT_EQ(ShapeSampleLaunches(0.01, 0.1), 10);
}

TEST(KernelShapesTest, TheNoteGivesEveryTimeAndTheChoice) {
  EXPECT_EQ(ShapeTimesText({"a warp a row", "64 threads a row", "128 threads a row"}, {0.0079, 0.00712, 0.0075}, 1),
            "a warp a row 7.9 us, 64 threads a row 7.1 us, 128 threads a row 7.5 us -> 64 threads a row");
  EXPECT_EQ(ShapeTimesText({"32x32 tiles", "64x64 tiles"}, {0.0031, std::numeric_limits<double>::infinity()}, 0),
            "32x32 tiles 3.1 us, 64x64 tiles (differs from the library) -> 32x32 tiles");
}

TEST(KernelShapesTest, TheKeyChangesWithEveryShapesCodeAndGeometry) {
  const std::vector<KernelShapeText> shapes = {
      {"a warp a row", "fusion_kernel/512x256\n.entry fusion_kernel(\n{\n}"},
      {"64 threads a row", "fusion_kernel_t64/1024x256\n.entry fusion_kernel_t64(\n{\n}"}};
  const std::string key = KernelShapeKey("scope", "reduction(row kernel)", shapes);
  EXPECT_EQ(key.rfind("scope|reduction(row kernel)|2 shapes|ptx ", 0), 0u) << key;
  EXPECT_EQ(key, KernelShapeKey("scope", "reduction(row kernel)", shapes));
  EXPECT_NE(key, KernelShapeKey("other device", "reduction(row kernel)", shapes));
  EXPECT_NE(key, KernelShapeKey("scope", "reduction(row)", shapes));
  std::vector<KernelShapeText> changed = shapes;
  changed[1].launches = "fusion_kernel_t64/1024x256\n.entry fusion_kernel_t64(\n.minnctapersm 8\n{\n}";
  EXPECT_NE(key, KernelShapeKey("scope", "reduction(row kernel)", changed));
  changed = shapes;
  changed[0].launches = "fusion_kernel/513x256\n.entry fusion_kernel(\n{\n}";
  EXPECT_NE(key, KernelShapeKey("scope", "reduction(row kernel)", changed));
  // The same text split differently between label and launches is another key.
  changed = shapes;
  changed[0].label = "a warp a row" + shapes[0].launches.substr(0, 1);
  changed[0].launches = shapes[0].launches.substr(1);
  EXPECT_NE(key, KernelShapeKey("scope", "reduction(row kernel)", changed));
  EXPECT_NE(key, KernelShapeKey("scope", "reduction(row kernel)", {shapes[0]}));
}

// An own gemm kernel's result against the library's: TF32-sized differences pass, an
// element from the wrong place, a NaN where the library has a number, or another shape
// does not.
TEST(KernelShapesTest, OwnKernelsMustAgreeWithTheLibrary) {
  const Shape shape = Shape(PrimitiveType::kF32, {4, 3});
  Literal library(shape);
  for (int64_t i = 0; i < 12; ++i) library.SetDouble(i, 0.5 * static_cast<double>(i) - 3.0);  // largest |v|: 3
  Literal own(shape);
  for (int64_t i = 0; i < 12; ++i) own.SetDouble(i, library.GetDouble(i) * (1 + 1e-4));
  EXPECT_EQ(CompareWithLibrary(own, library), "");
  Literal swapped = own;
  swapped.SetDouble(4, library.GetDouble(5));
  swapped.SetDouble(5, library.GetDouble(4));
  EXPECT_EQ(CompareWithLibrary(swapped, library), "element 4 (of 12): -0.5 against the library's -1; allowed 0.0234");
  Literal nan = own;
  nan.SetDouble(11, std::nan(""));
  EXPECT_NE(CompareWithLibrary(nan, library), "");
  // Where the library itself gives NaN, the kernel must too.
  Literal library_nan = library;
  library_nan.SetDouble(0, std::nan(""));
  EXPECT_NE(CompareWithLibrary(own, library_nan), "");
  nan = own;
  nan.SetDouble(0, std::nan(""));
  EXPECT_EQ(CompareWithLibrary(nan, library_nan), "");
  EXPECT_EQ(CompareWithLibrary(Literal(Shape(PrimitiveType::kF32, {3, 4})), library), "the results' shapes differ");
}

// The tensor-core canary: run as GpuExecutable runs it (one tensor-core dot), in the GPU
// emulator with its mma.sync, every output is exact and the verdict empty; a result with
// one output off, or of another shape, is named.
TEST(KernelShapesTest, TheTensorCoreCanaryIsExactOnlyWhenEveryOutputIs) {
  auto module = ParseModule(TensorCoreCanaryHlo());
  ASSERT_TRUE(module.ok()) << module.status().message();
  codegen::GpuCompileOptions options;
  options.allow_tf32 = true;
  auto emulator = codegen::GpuEmulator::Create(std::move(*module), options);
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  ASSERT_EQ((*emulator)->code().kernels().size(), 1u);
  EXPECT_EQ((*emulator)->code().kernels()[0]->kind_name, "dot(tensor core)");
  const std::vector<Literal> args = TensorCoreCanaryArguments();
  auto result = (*emulator)->Run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(TensorCoreCanaryVerdict(args, *result), "");
  Literal off = *result;
  off.SetDouble(7 * 56 + 9, off.GetDouble(7 * 56 + 9) + 1);
  EXPECT_EQ(TensorCoreCanaryVerdict(args, off).rfind("a 48x40 by 40x56 dot of whole numbers gave ", 0), 0u);
  EXPECT_NE(TensorCoreCanaryVerdict(args, off).find("at [7,9]"), std::string::npos) << TensorCoreCanaryVerdict(args, off);
  EXPECT_EQ(TensorCoreCanaryVerdict(args, Literal(Shape(PrimitiveType::kF32, {2, 2}))), "the canary's result is not f32[48,56]");
}

}  // namespace
}  // namespace fusebox::runtime
