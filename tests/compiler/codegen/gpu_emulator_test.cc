// The GPU backend's kernels, run by the GPU emulator on the host, against the reference
// interpreter: one module per kernel strategy (loop, row / column / split reductions,
// variadic and non-identity reductions, tiled transpose and dot, bitonic sort, scatter,
// in-place dynamic-update-slice), fused and unfused, on random inputs.
#include "compiler/codegen/gpu_emulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/row_kernel_modules.h"

namespace fusebox::codegen {
namespace {

const char* kReducers = R"(
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
less_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ge_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GE
}
ge_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GE
}
mul_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] multiply(a, b)
}
)";

std::string WithReducers(const std::string& body) { return "HloModule m\n" + std::string(kReducers) + body; }

// The GPU code of `text` after the fused pipeline.
StatusOr<std::unique_ptr<GpuCode>> FusedGpuCode(const std::string& text) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseModule(text));
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForBackend(*module, true));
  return CompileForGpu(*optimized);
}

int64_t CountOccurrences(const std::string& text, const std::string& what) {
  int64_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

void ExpectEmulatorMatchesInterpreter(const std::string& text, uint64_t seed = 1, bool gpu_libraries = false) {
  auto parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Module& module = **parsed;
  auto args = interpreter::RandomArguments(module, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForBackend(module, fused, gpu_libraries);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    if (gpu_libraries) {
      int gemms = 0;
      for (const Computation* c : ProgramComputations(**optimized)) {
        for (const auto& inst : c->instructions()) gemms += IsLibraryCall(*inst);
      }
      EXPECT_GT(gemms, 0) << "no dot became a cuBLAS call";
    }
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto actual = (*emulator)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    PrimitiveType type = expected->shape().IsArray() ? expected->shape().element_type() : PrimitiveType::kF32;
    interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(type));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString() << "\n" << (*emulator)->module().ToString();
    // With the libraries a module can be library calls only.
    if (!gpu_libraries) {
      EXPECT_GT((*emulator)->last_launches(), 0);
    }
  }
}

TEST(GpuEmulatorTest, ElementwiseLoopWithVectorizedThreads) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[64,96] parameter(0)
  y = f32[64,96] parameter(1)
  m = f32[64,96] multiply(x, y)
  e = f32[64,96] exponential(m)
  ROOT t = f32[64,96] tanh(e)
}
)"));
}

TEST(GpuEmulatorTest, RowReductionWithEpilogue) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[37,300] parameter(0)
  zero = f32[] constant(0)
  s = f32[37] reduce(x, zero), dimensions={1}, to_apply=add_f32
  ROOT r = f32[37] sqrt(s)
}
)"));
}

TEST(GpuEmulatorTest, LongRowsUseABlockPerRow) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[3,2000] parameter(0)
  minf = f32[] constant(-inf)
  ROOT m = f32[3] reduce(x, minf), dimensions={1}, to_apply=max_f32
}
)"));
}

// Row kernels (row_fusion.h): softmax as one launch, a warp per row for short rows and a
// block per row for long ones; layer norm with two row dimensions.
TEST(GpuEmulatorTest, RowKernelSoftmaxAndLayerNorm) {
  ExpectEmulatorMatchesInterpreter(testing_util::RowKernelModule("softmax", "f32", testing_util::SoftmaxEntry("f32", 9, 100)));
  ExpectEmulatorMatchesInterpreter(testing_util::RowKernelModule("softmax", "f32", testing_util::SoftmaxEntry("f32", 3, 1500)));
  ExpectEmulatorMatchesInterpreter(
      testing_util::RowKernelModule("layer_norm", "f32", testing_util::LayerNormEntry("f32", {2, 3, 40})));
}

// Rows held in registers (GpuKernelEmitter::PlanRowSlots): slots of 4 elements or of 1,
// a thread's last slot past the row's end, rows past the last one in a block, exactly
// kMaxHeldRowElements per thread, the strided loop just above it, a row of two dimensions
// and 2- and 8-byte types.
TEST(GpuEmulatorTest, RowKernelsHoldTheirRowsInRegisters) {
  using testing_util::RowKernelModule;
  using testing_util::SoftmaxEntry;
  for (const auto& [rows, n] : std::vector<std::pair<int64_t, int64_t>>{{5, 1024}, {3, 4096}, {2, 8192}, {11, 512}, {9, 36}}) {
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(n));
    ExpectEmulatorMatchesInterpreter(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", rows, n)));
  }
  ExpectEmulatorMatchesInterpreter(RowKernelModule("softmax", "bf16", SoftmaxEntry("bf16", 7, 256)));
  ExpectEmulatorMatchesInterpreter(
      RowKernelModule("layer_norm", "f64", testing_util::LayerNormEntry("f64", {3, 1200})));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[3,8,40] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[3] reduce(x, ninf), dimensions={1,2}, to_apply=max_f32
  bm = f32[3,8,40] broadcast(m), dimensions={0}
  d = f32[3,8,40] subtract(x, bm)
  ex = f32[3,8,40] exponential(d)
  zero = f32[] constant(0)
  s = f32[3] reduce(ex, zero), dimensions={1,2}, to_apply=add_f32
  bs = f32[3,8,40] broadcast(s), dimensions={0}
  ROOT out = f32[3,8,40] divide(ex, bs)
}
)"));
}

std::string ReadExample(const std::string& name);  // assets/examples/NAME

// `text` through the GPU pipeline with libraries on (which makes row kernels with outputs
// of one value per row), the emulator against the interpreter; the launches of the run.
int64_t EmulatedLaunchesWithLibraries(const std::string& text, uint64_t seed = 1, bool gemm_kernels = false,
                                      int64_t* own_gemm_kernels = nullptr) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return -1;
  auto args = interpreter::RandomArguments(**parsed, seed);
  EXPECT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(**parsed, *args);
  EXPECT_TRUE(expected.ok()) << expected.status().message();
  auto optimized = passes::OptimizeForBackend(**parsed, /*fused=*/true, /*gpu_libraries=*/true);
  EXPECT_TRUE(optimized.ok()) << optimized.status().message();
  if (!args.ok() || !expected.ok() || !optimized.ok()) return -1;
  GpuCompileOptions options;
  options.gemm_kernels = gemm_kernels;
  auto emulator = GpuEmulator::Create(std::move(*optimized), options);
  EXPECT_TRUE(emulator.ok()) << emulator.status().message();
  if (!emulator.ok()) return -1;
  if (own_gemm_kernels != nullptr) *own_gemm_kernels = static_cast<int64_t>((*emulator)->code().GemmKernels().size());
  auto actual = (*emulator)->Run(*args);
  EXPECT_TRUE(actual.ok()) << actual.status().message();
  if (!actual.ok()) return -1;
  interpreter::CompareResult cmp =
      interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString() << "\n" << (*emulator)->module().ToString();
  return (*emulator)->last_launches();
}

// Softmax whose row maxima and log-sum-exp are results too: with the GPU pipeline one row
// kernel writes the probabilities per element and the two values per row (by each row's
// first lane), for rows a warp holds (10, 1024 elements), a block holds (3000) and a
// block loops over (40000), and for rows of two dimensions.
TEST(GpuEmulatorTest, RowKernelsWriteValuesOfOneNumberPerRow) {
  auto module = [](const std::vector<int64_t>& dims) {
    const std::vector<int64_t> rows(dims.begin(), dims.end() - 1);
    std::string row_dims, last = std::to_string(dims.size() - 1);
    for (size_t d = 0; d < rows.size(); ++d) row_dims += (d > 0 ? "," : "") + std::to_string(d);
    const std::string s = testing_util::ShapeText("f32", dims), r = testing_util::ShapeText("f32", rows);
    return WithReducers("ENTRY e {\n  x = " + s + " parameter(0)\n  ninf = f32[] constant(-inf)\n" +
                        "  max = " + r + " reduce(x, ninf), dimensions={" + last + "}, to_apply=max_f32\n" +
                        "  bmax = " + s + " broadcast(max), dimensions={" + row_dims + "}\n" +
                        "  shifted = " + s + " subtract(x, bmax)\n  ex = " + s + " exponential(shifted)\n" +
                        "  zero = f32[] constant(0)\n" +
                        "  sum = " + r + " reduce(ex, zero), dimensions={" + last + "}, to_apply=add_f32\n" +
                        "  logsum = " + r + " log(sum)\n  lse = " + r + " add(logsum, max)\n" +
                        "  bsum = " + s + " broadcast(sum), dimensions={" + row_dims + "}\n" +
                        "  probs = " + s + " divide(ex, bsum)\n" +
                        "  ROOT out = (" + s + ", " + r + ", " + r + ") tuple(probs, max, lse)\n}\n");
  };
  for (const std::vector<int64_t>& dims : std::vector<std::vector<int64_t>>{
           {48, 10}, {40, 1024}, {12, 3000}, {3, 40000}, {4, 6, 36}}) {
    SCOPED_TRACE(testing_util::ShapeText("f32", dims));
    EXPECT_EQ(EmulatedLaunchesWithLibraries(module(dims)), 1);
  }
}

// Every shape a row kernel, row reduction or unsplit column reduction is compiled in
// (GpuCompileOptions::kernel_variants: other threads a row or a block, which the runtime
// times on the device) computes what the interpreter does: rows a warp holds (1024, 512
// elements: 64 to 256 threads a row), rows a block holds (4096: 512 and 1024 threads, 128
// holding 32 elements a thread), a row a 1024-thread block loops over, rows with values of
// one number per row, a plain row reduction and f64; bias gradients (10 and 96 outputs of
// 256 rows, one beside its activation gradient) with 1024 and 256 threads a block; skinny
// dots of MNIST's two kinds (shorter contractions) with every rows a block. Each variant's entry is its own
// (`_t<threads>`, `_b<threads>`, `_r<rows>`), its blocks hold whole groups.
// A module's emulator compiled with every kernel shape, its arguments and the
// interpreter's result.
struct ShapedEmulator {
  std::unique_ptr<GpuEmulator> emulator;
  std::vector<Literal> args;
  Literal expected;
};
void MakeShapedEmulator(const std::string& text, uint64_t seed, bool gpu_libraries, ShapedEmulator* out) {
  auto parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto args = interpreter::RandomArguments(**parsed, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(**parsed, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto optimized = passes::OptimizeForBackend(**parsed, /*fused=*/true, gpu_libraries);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  GpuCompileOptions options;
  options.kernel_variants = true;
  options.min_row_shape_bytes = 0;  // every row kernel, however small
  auto emulator = GpuEmulator::Create(std::move(*optimized), options);
  ASSERT_TRUE(emulator.ok()) << emulator.status().message();
  out->emulator = std::move(*emulator);
  out->args = std::move(*args);
  out->expected = std::move(*expected);
}

// Runs every kernel's shape `v` (0: their own) and checks the result and that
// `variants_run` kernels ran a variant.
void ExpectShapeMatches(ShapedEmulator& run, int64_t v, int64_t variants_run) {
  run.emulator->set_kernel_variant(v);
  auto actual = run.emulator->Run(run.args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  EXPECT_EQ(run.emulator->last_variants_run(), variants_run);
  const Shape& shape = run.expected.shape();
  const PrimitiveType type = shape.IsArray() ? shape.element_type() : PrimitiveType::kF32;
  interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, run.expected, interpreter::DefaultToleranceFor(type));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
}

void ExpectEveryShapeMatches(const std::string& text, const std::vector<std::string>& labels,
                             bool gpu_libraries = false) {
  ShapedEmulator run;
  MakeShapedEmulator(text, 3, gpu_libraries, &run);
  if (::testing::Test::HasFatalFailure()) return;
  const GpuKernel* shaped = nullptr;
  for (const auto& kernel : run.emulator->code().kernels()) {
    if (!kernel->variants.empty()) {
      EXPECT_EQ(shaped, nullptr) << "one kernel with variants expected";
      shaped = kernel.get();
    }
  }
  ASSERT_NE(shaped, nullptr);
  std::vector<std::string> got = {shaped->label};
  for (const GpuKernelVariant& variant : shaped->variants) {
    got.push_back(variant.label);
    ASSERT_EQ(variant.launches.size(), 1u);
    const GpuLaunch& launch = variant.launches[0];
    const int64_t threads = std::stoll(variant.label.substr(0, variant.label.find(' ')));
    if (const size_t parts = variant.label.find("rows in "); parts != std::string::npos) {  // a column split
      EXPECT_EQ(launch.function, shaped->launches[0].function + "_s" +
                                     variant.label.substr(parts + 8, variant.label.find(' ', parts + 8) - parts - 8));
      EXPECT_EQ(launch.block[0], threads);
      EXPECT_GT(shaped->scratch_bytes, 0) << "the parts' partials";
    } else if (variant.label.find("a block") != std::string::npos && variant.label.find("threads") == std::string::npos) {
      EXPECT_EQ(launch.function, shaped->launches[0].function + "_r" + std::to_string(threads));  // rows a block
    } else if (variant.label.find("a row") != std::string::npos) {
      EXPECT_EQ(launch.function, shaped->launches[0].function + "_t" + std::to_string(threads));
      EXPECT_EQ(launch.block[0], std::max<int64_t>(256, threads));
    } else {
      EXPECT_EQ(launch.function, shaped->launches[0].function + "_b" + std::to_string(threads));
      EXPECT_EQ(launch.block[0], threads);
    }
  }
  EXPECT_EQ(got, labels);
  for (int64_t v = 0; v <= static_cast<int64_t>(shaped->variants.size()); ++v) {
    SCOPED_TRACE(got[static_cast<size_t>(v)]);
    ExpectShapeMatches(run, v, v == 0 ? 0 : 1);
  }
}

// Row shapes only for row kernels that move at least GpuCompileOptions::
// min_row_shape_bytes (4 MiB): softmax 6x1024 (48 KiB) keeps one shape, 1024x1024 (8 MiB)
// gets three more; a small column reduction gets its other block size and its rows in
// parts at any size.
TEST(GpuEmulatorTest, SmallRowKernelsKeepOneShape) {
  using testing_util::RowKernelModule;
  using testing_util::SoftmaxEntry;
  auto shapes = [](const std::string& text) -> int64_t {
    auto parsed = ParseModule(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    if (!parsed.ok()) return -1;
    auto optimized = passes::OptimizeForBackend(**parsed, true);
    EXPECT_TRUE(optimized.ok());
    if (!optimized.ok()) return -1;
    GpuCompileOptions options;
    options.kernel_variants = true;
    auto code = CompileForGpu(**optimized, options);
    EXPECT_TRUE(code.ok()) << code.status().message();
    if (!code.ok()) return -1;
    int64_t n = 0;
    for (const auto& kernel : (*code)->kernels()) n += static_cast<int64_t>(kernel->variants.size());
    return n;
  };
  EXPECT_EQ(shapes(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 6, 1024))), 0);
  EXPECT_EQ(shapes(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 1024, 1024))), 3);
  EXPECT_EQ(shapes(WithReducers(R"(
ENTRY e {
  x = f32[256,10] parameter(0)
  zero = f32[] constant(0)
  ROOT b = f32[10] reduce(x, zero), dimensions={0}, to_apply=add_f32
}
)")),
            2);
}

TEST(GpuEmulatorTest, EveryKernelShapeMatchesTheInterpreter) {
  using testing_util::RowKernelModule;
  using testing_util::SoftmaxEntry;
  const std::vector<std::string> warp_rows = {"a warp a row", "64 threads a row", "128 threads a row",
                                              "256 threads a row"};
  {
    SCOPED_TRACE("softmax 6x1024");
    ExpectEveryShapeMatches(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 6, 1024)), warp_rows);
  }
  {
    SCOPED_TRACE("softmax 9x512");
    ExpectEveryShapeMatches(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 9, 512)),
                               {"a warp a row", "64 threads a row", "128 threads a row"});
  }
  const std::vector<std::string> block_rows = {"256 threads a row", "512 threads a row", "1024 threads a row",
                                               "128 threads a row"};
  {
    SCOPED_TRACE("softmax 3x4096");
    ExpectEveryShapeMatches(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 3, 4096)), block_rows);
  }
  {
    SCOPED_TRACE("softmax 2x40000 (looped)");
    ExpectEveryShapeMatches(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 2, 40000)), block_rows);
  }
  {
    SCOPED_TRACE("layer norm f64 3x1200");
    ExpectEveryShapeMatches(RowKernelModule("layer_norm", "f64", testing_util::LayerNormEntry("f64", {3, 1200})),
                               {"256 threads a row", "128 threads a row"});
  }
  {
    SCOPED_TRACE("row reduction 37x1024");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  x = f32[37,1024] parameter(0)
  zero = f32[] constant(0)
  s = f32[37] reduce(x, zero), dimensions={1}, to_apply=add_f32
  ROOT r = f32[37] sqrt(s)
}
)"),
                               warp_rows);
  }
  {
    SCOPED_TRACE("softmax with its row max and log-sum-exp, 5x512");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  x = f32[5,512] parameter(0)
  ninf = f32[] constant(-inf)
  max = f32[5] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  bmax = f32[5,512] broadcast(max), dimensions={0}
  shifted = f32[5,512] subtract(x, bmax)
  ex = f32[5,512] exponential(shifted)
  zero = f32[] constant(0)
  sum = f32[5] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  logsum = f32[5] log(sum)
  lse = f32[5] add(logsum, max)
  bsum = f32[5,512] broadcast(sum), dimensions={0}
  probs = f32[5,512] divide(ex, bsum)
  ROOT out = (f32[5,512], f32[5], f32[5]) tuple(probs, max, lse)
}
)"),
                               {"a warp a row", "64 threads a row", "128 threads a row"}, /*gpu_libraries=*/true);
  }
  {
    SCOPED_TRACE("bias gradient 256x10 beside its activation gradient");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  g = f32[256,10] parameter(0)
  a = f32[256,10] parameter(1)
  zero = f32[] constant(0)
  m = f32[256,10] maximum(a, g)
  gz = f32[256,10] multiply(g, m)
  b = f32[10] reduce(gz, zero), dimensions={0}, to_apply=add_f32
  ROOT out = (f32[256,10], f32[10]) tuple(gz, b)
}
)"),
                               {"1024 threads a block, 64 an output", "256 threads a block, 8 an output",
                                "256 threads a block, 8 an output, rows in 4 parts"});
  }
  {
    SCOPED_TRACE("skinny dot 128x96 . 96x10 (lanes split k)");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  x = f32[128,96] parameter(0)
  w = f32[96,10] parameter(1)
  ROOT d = f32[128,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)"),
                               {"1 row a block", "2 rows a block", "4 rows a block", "8 rows a block"});
  }
  {
    SCOPED_TRACE("skinny dot 784x32 . 32x10 with a relu (lanes take rows)");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  x = f32[32,784] parameter(0)
  g = f32[32,10] parameter(1)
  d = f32[784,10] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  zb = f32[784,10] broadcast(zero), dimensions={}
  ROOT r = f32[784,10] maximum(d, zb)
}
)"),
                               {"8 rows a block", "16 rows a block", "32 rows a block"});
  }
  {
    SCOPED_TRACE("column reduction 256x96");
    ExpectEveryShapeMatches(WithReducers(R"(
ENTRY e {
  x = f32[256,96] parameter(0)
  zero = f32[] constant(0)
  ROOT b = f32[96] reduce(x, zero), dimensions={0}, to_apply=add_f32
}
)"),
                               {"1024 threads a block, 32 an output", "256 threads a block, 8 an output",
                                "256 threads a block, 8 an output, rows in 4 parts"});
  }
}

// The training steps with their kernels' other shapes (their bias gradients' column
// reductions with the other block size, and over a batch of 128 or more rows also with
// their rows in parts; their 10-element loss rows have none): every shape of every kernel
// that has one matches the interpreter. MNIST 1 kernel with a shape (2 other shapes: its
// batch of 128), CIFAR 1 (1: a batch of 32), the MLP 3 (1 each: a batch of 8).
TEST(GpuEmulatorTest, TrainingStepsMatchInEveryKernelShape) {
  struct Step {
    std::string file;
    int64_t shaped_kernels, shapes;
  };
  for (const Step& step : {Step{"mnist_train_step.hlo", 1, 2}, Step{"cifar_cnn_train_step.hlo", 1, 1},
                           Step{"../../tests/data/library_calls/mlp_train_step.hlo", 3, 1}}) {
    SCOPED_TRACE(step.file);
    ShapedEmulator run;
    MakeShapedEmulator(ReadExample(step.file), 5, /*gpu_libraries=*/true, &run);
    if (::testing::Test::HasFatalFailure()) return;
    int64_t shaped = 0;
    for (const auto& kernel : run.emulator->code().kernels()) {
      if (kernel->variants.empty()) continue;
      ++shaped;
      EXPECT_EQ(kernel->kind_name, "reduction(column)") << kernel->name;
      EXPECT_EQ(static_cast<int64_t>(kernel->variants.size()), step.shapes) << kernel->name;
    }
    EXPECT_EQ(shaped, step.shaped_kernels);
    for (int64_t v = 0; v <= step.shapes; ++v) {
      SCOPED_TRACE("shape " + std::to_string(v));
      ExpectShapeMatches(run, v, v == 0 ? 0 : step.shaped_kernels);
    }
  }
}

// The training steps' launches with the GPU's libraries (library calls are not launches
// here), each run matching the interpreter. Their losses (jax's log-softmax cross-entropy
// and its gradient) take one row kernel: MNIST's row max, exp with its sum and per-row
// likelihood were three launches, CIFAR's four (its max and sum read a cuBLAS call and
// stayed bare reduces). CIFAR's and the MLP's relus fold into cuDNN's fused calls and
// cuBLASLt's RELU_BIAS epilogue once the relu gradients read the relus. Their parameter
// updates (one loop fusion per weight) share one launch (horizontal fusion), and MNIST's
// one-thread chain (step + 1, Adam's bias corrections) joins the bias's update; the loss
// (summed over the batch) shares that launch too. CIFAR's two split bias gradients fold
// their partials in their last blocks (one launch each instead of two). MNIST: 9 launches
// before, 4 now; CIFAR: 19, 9, then 10 with its two weights packed for cuDNN by
// transposes sharing one launch (which replace the five cudnnTransformTensor kernels its
// calls ran inside them: ConvRewriterTest.TheCnnStepsConvolutionsBecomeCudnnCalls,
// HorizontalFusionTest.SmallFilterTransposesShareALaunch); the MLP (the full-size step
// of bench/compare_xla, whose kernels this small one has too): 12, 5.
TEST(GpuEmulatorTest, TrainingStepsLaunches) {
  EXPECT_EQ(EmulatedLaunchesWithLibraries(ReadExample("mnist_train_step.hlo")), 4);
  EXPECT_EQ(EmulatedLaunchesWithLibraries(ReadExample("cifar_cnn_train_step.hlo")), 10);
  EXPECT_EQ(EmulatedLaunchesWithLibraries(ReadExample("../../tests/data/library_calls/mlp_train_step.hlo")), 5);
}

// One reduction (a loss over a batch of 128, with its scale) beside loops of other shapes
// (parameter updates) in one fusion, as horizontal fusion groups them: the reduction runs
// as a reduction (not one thread walking the batch inside a loop kernel) and its launch
// merges with the loops' (reduction(mixed), one launch).
TEST(GpuEmulatorTest, OneReductionBesideLoopsIsOneLaunch) {
  const std::string text = WithReducers(R"(
fused {
  p0 = f32[128] parameter(0)
  p1 = f32[784,10] parameter(1)
  p2 = f32[784,10] parameter(2)
  p3 = f32[10] parameter(3)
  z = f32[] constant(0)
  r = f32[] reduce(p0, z), dimensions={0}, to_apply=add_f32
  c = f32[] constant(-0.0078125)
  loss = f32[] multiply(r, c)
  u = f32[784,10] subtract(p1, p2)
  v = f32[10] negate(p3)
  ROOT t = (f32[], f32[784,10], f32[10]) tuple(loss, u, v)
}

ENTRY e {
  a = f32[128] parameter(0)
  b = f32[784,10] parameter(1)
  d = f32[784,10] parameter(2)
  w = f32[10] parameter(3)
  ROOT f = (f32[], f32[784,10], f32[10]) fusion(a, b, d, w), kind=kInput, calls=fused
}
)");
  auto code = FusedGpuCode(text);
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  EXPECT_EQ((*code)->kernels()[0]->kind_name, "reduction(mixed)");
  EXPECT_EQ((*code)->kernels()[0]->launches.size(), 1u);
  EXPECT_EQ(EmulatedLaunchesWithLibraries(text), 1);
}

// Fusebox's own kernels for the skinny gemm calls and those contracting at most 16
// elements (GpuCompileOptions::gemm_kernels: what the runtime's autotuning times against
// the library): run in place of the library, the steps still match the interpreter, and
// each such call is one more launch. MNIST: its forward gemm (128x784 . 784x10 + bias) and
// weight gradient (784x10); CIFAR: the dense layer's forward (32x2048 . 2048x10), weight
// gradient and input gradient (32x10 . 10x2048, a tiled dot of one k slice); this small
// MLP (a batch of 8, widths 24, 16, 16, 10): all eight calls.
TEST(GpuEmulatorTest, SkinnyGemmCallsRunFuseboxsOwnKernels) {
  struct Step {
    const char* file;
    int64_t launches, own;
  };
  for (const Step& step : {Step{"mnist_train_step.hlo", 4, 2}, Step{"cifar_cnn_train_step.hlo", 10, 3},
                           Step{"../../tests/data/library_calls/mlp_train_step.hlo", 5, 8}}) {
    SCOPED_TRACE(step.file);
    int64_t own = -1;
    EXPECT_EQ(EmulatedLaunchesWithLibraries(ReadExample(step.file), 1, /*gemm_kernels=*/true, &own),
              step.launches + step.own);
    EXPECT_EQ(own, step.own);
  }
  // XLA's form: a (value, workspace) tuple with alpha 0.5 and beta 1 reading c; the kernel
  // writes the value, c included.
  int64_t own = -1;
  EXPECT_EQ(EmulatedLaunchesWithLibraries(R"(HloModule m
ENTRY e {
  a = f32[4,6]{1,0} parameter(0)
  b = f32[5,6]{1,0} parameter(1)
  c = f32[4,5]{1,0} parameter(2)
  g = (f32[4,5]{1,0}, s8[1024]{0}) custom-call(a, b, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":0.5,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  v = f32[4,5]{1,0} get-tuple-element(g), index=0
  ROOT s = f32[4,5]{1,0} sine(v)
})", 2, /*gemm_kernels=*/true, &own),
            2);
  EXPECT_EQ(own, 1);
  // One operand on both sides (as XLA's kernel_reuse.hlo squares `a`): the kernel reads
  // the one buffer twice.
  own = -1;
  EXPECT_EQ(EmulatedLaunchesWithLibraries(R"(HloModule m
ENTRY e {
  a = f32[5,40]{1,0} parameter(0)
  g = f32[5,5]{1,0} custom-call(a, a), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  ROOT s = f32[5,5]{1,0} sqrt(g)
})", 4, /*gemm_kernels=*/true, &own),
            2);
  EXPECT_EQ(own, 1);
}

TEST(GpuEmulatorTest, FullReductionSplitsIntoPartials) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[40000] parameter(0)
  y = f32[40000] parameter(1)
  m = f32[40000] multiply(x, y)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(m, zero), dimensions={0}, to_apply=add_f32
}
)"));
}

TEST(GpuEmulatorTest, NonIdentityInitIsAppliedOnce) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = s32[5,70] parameter(0)
  seven = s32[] constant(7)
  ROOT s = s32[5] reduce(x, seven), dimensions={1}, to_apply=add_s32
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = s32[20000] parameter(0)
  seven = s32[] constant(7)
  ROOT s = s32[] reduce(x, seven), dimensions={0}, to_apply=add_s32
}
)"));
}

// Long columns over few outputs (a bias gradient: 16 features over 32 x 32 x 8 positions)
// split over blocks writing partials, folded by the last block of each column group; an
// init value that is not the identity is applied once, and a max reduction over an
// epilogue.
TEST(GpuEmulatorTest, LongColumnsSplitIntoPartials) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[8,32,32,16] parameter(0)
  three = f32[] constant(3)
  ROOT s = f32[16] reduce(x, three), dimensions={0,1,2}, to_apply=add_f32
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[3000,40] parameter(0)
  e = f32[3000,40] exponential(x)
  ninf = f32[] constant(-inf)
  ROOT s = f32[40] reduce(e, ninf), dimensions={0}, to_apply=max_f32
}
)"));
}

// Split reductions are one launch: the last block of each group of outputs to finish (an
// atomic arrival counter in zeroed module memory) folds the group's partials, and sets the
// counter back to 0, so that the next run of the same loaded code counts from 0 again.
// One emulator runs each module twice on different inputs, every result matching the
// interpreter: a full sum (1 output, 64 blocks), a row sum of 3 long rows (16 blocks a
// row, a counter each), long columns (2 groups of 32 columns, 16 blocks each) with an init
// value that is not the identity, and a split row sum and a split column sum beside a
// loop in one mixed fusion (the split parts the ones with scratch among the merged parts).
TEST(GpuEmulatorTest, SplitReductionsFoldInTheirLastBlockRunAfterRun) {
  const std::string mixed = WithReducers(R"(
fused {
  p0 = f32[4,20000] parameter(0)
  p1 = f32[600,40] parameter(1)
  zero = f32[] constant(0)
  long = f32[4] reduce(p0, zero), dimensions={1}, to_apply=add_f32
  cols = f32[40] reduce(p1, zero), dimensions={0}, to_apply=add_f32
  e = f32[600,40] exponential(p1)
  ROOT r = (f32[4], f32[40], f32[600,40]) tuple(long, cols, e)
}

ENTRY e {
  x = f32[4,20000] parameter(0)
  y = f32[600,40] parameter(1)
  ROOT f = (f32[4], f32[40], f32[600,40]) fusion(x, y), kind=kInput, calls=fused
}
)");
  const std::vector<std::string> modules = {
      WithReducers(R"(
ENTRY e {
  x = f32[512,512] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[] reduce(x, zero), dimensions={0,1}, to_apply=add_f32
}
)"),
      WithReducers(R"(
ENTRY e {
  x = f32[3,65536] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[3] reduce(x, zero), dimensions={1}, to_apply=add_f32
}
)"),
      WithReducers(R"(
ENTRY e {
  x = f32[1024,48] parameter(0)
  y = f32[1024,48] parameter(1)
  a = f32[1024,48] add(x, y)
  c = f32[] constant(1)
  ROOT s = f32[48] reduce(a, c), dimensions={0}, to_apply=add_f32
}
)"),
      mixed};
  for (const std::string& text : modules) {
    SCOPED_TRACE(text);
    auto parsed = ParseModule(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    auto optimized = passes::OptimizeForBackend(**parsed, true);
    ASSERT_TRUE(optimized.ok());
    auto emulator = GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    const GpuCode& code = (*emulator)->code();
    ASSERT_EQ(code.kernels().size(), 1u);
    EXPECT_GT(code.kernels()[0]->scratch_bytes, 0) << "not split";
    EXPECT_EQ(code.kernels()[0]->launches.size(), 1u);
    for (uint64_t seed : {1, 2}) {
      SCOPED_TRACE(seed);
      auto args = interpreter::RandomArguments(**parsed, seed);
      ASSERT_TRUE(args.ok());
      auto expected = interpreter::Interpreter().Run(**parsed, *args);
      ASSERT_TRUE(expected.ok());
      auto actual = (*emulator)->Run(*args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      EXPECT_EQ((*emulator)->last_launches(), 1);
      interpreter::CompareResult cmp =
          interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
      EXPECT_TRUE(cmp.ok()) << cmp.ToString();
    }
  }
  // The PTX of the first: the counter, the atomic, the fences.
  auto code = FusedGpuCode(modules[0]);
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(CountOccurrences((*code)->ptx(), "atom.global.add.u32"), 1);
  EXPECT_EQ(CountOccurrences((*code)->ptx(), "membar.gl;"), 2);
  EXPECT_EQ(CountOccurrences((*code)->ptx(), ".entry"), 1);
}

// Short columns in few blocks (the MLP step's bias gradient: 10 outputs of 256 rows, with
// the activation gradient written beside it) run on blocks of 1024 threads, 16 lanes each
// walking 4 rows, whose partials fold as a tree; 96 outputs in 3 blocks; one output of 1000
// rows (a lane per output) and an argmax over two dimensions for 3 outputs (two values
// folded per step) too.
TEST(GpuEmulatorTest, FewShortColumnsSpreadOverAThousandThreads) {
  const std::string bias_gradient = WithReducers(R"(
fused {
  p0 = f32[256,10] parameter(0)
  p1 = f32[256] parameter(1)
  b = f32[256,10] broadcast(p1), dimensions={0}
  m = f32[256,10] multiply(p0, b)
  zero = f32[] constant(0)
  r = f32[10] reduce(m, zero), dimensions={0}, to_apply=add_f32
  ROOT t = (f32[256,10], f32[10]) tuple(m, r)
}

ENTRY e {
  x = f32[256,10] parameter(0)
  y = f32[256] parameter(1)
  ROOT f = (f32[256,10], f32[10]) fusion(x, y), kind=kInput, calls=fused
}
)");
  ExpectEmulatorMatchesInterpreter(bias_gradient);
  auto code = FusedGpuCode(bias_gradient);
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  ASSERT_EQ((*code)->kernels()[0]->launches.size(), 1u);
  const GpuLaunch& launch = (*code)->kernels()[0]->launches[0];
  EXPECT_EQ(launch.block[0], 1024);
  EXPECT_EQ(launch.grid[0], 1);
  // 96 outputs: three blocks of 32 lanes, each walking 8 of the 256 rows.
  const std::string wide = WithReducers(R"(
ENTRY e {
  x = f32[256,96] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[96] reduce(x, zero), dimensions={0}, to_apply=add_f32
}
)");
  ExpectEmulatorMatchesInterpreter(wide);
  auto wide_code = FusedGpuCode(wide);
  ASSERT_TRUE(wide_code.ok()) << wide_code.status().message();
  ASSERT_EQ((*wide_code)->kernels()[0]->launches.size(), 1u);
  EXPECT_EQ((*wide_code)->kernels()[0]->launches[0].block[0], 1024);
  EXPECT_EQ((*wide_code)->kernels()[0]->launches[0].grid[0], 3);
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[1000,1] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[1] reduce(x, zero), dimensions={0}, to_apply=add_f32
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[5,70,3] parameter(0)
  i = s32[5,70,3] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT s = (f32[3], s32[3]) reduce(x, i, ninf, z), dimensions={0,1}, to_apply=argmax
}
)"));
}

// A multi-output fusion whose outputs differ in shape (an elementwise result and a
// reduction of it, as a training step's activation gradient and its bias gradient): one
// pass over the operand writes both, for column, row and full reductions, split or not.
TEST(GpuEmulatorTest, MultiOutputFusionWithOperandShapedOutputs) {
  for (const char* reduce : {"dimensions={0,1,2}", "dimensions={3}", "dimensions={0,1,2,3}"}) {
    const std::string result = std::string(reduce) == "dimensions={0,1,2}" ? "f32[16]"
                               : std::string(reduce) == "dimensions={3}" ? "f32[8,32,32]" : "f32[]";
    SCOPED_TRACE(reduce);
    const std::string text = WithReducers(R"(
fused {
  p0 = f32[8,32,32,16] parameter(0)
  p1 = f32[8,32,32,16] parameter(1)
  m = f32[8,32,32,16] multiply(p0, p1)
  zero = f32[] constant(0)
  r = )" + result + R"( reduce(m, zero), )" + reduce + R"(, to_apply=add_f32
  ROOT t = (f32[8,32,32,16], )" + result + R"() tuple(m, r)
}

ENTRY e {
  x = f32[8,32,32,16] parameter(0)
  y = f32[8,32,32,16] parameter(1)
  ROOT f = (f32[8,32,32,16], )" + result + R"() fusion(x, y), kind=kInput, calls=fused
}
)");
    ExpectEmulatorMatchesInterpreter(text);
    auto code = FusedGpuCode(text);
    ASSERT_TRUE(code.ok()) << code.status().message();
    for (const auto& kernel : (*code)->kernels()) {
      EXPECT_EQ(kernel->kind_name.rfind("reduction(", 0), 0u) << kernel->kind_name << " for " << kernel->name;
    }
  }
}

// A reduction whose result is reshaped to keep the reduced dimension (jax's keepdims: a
// layer norm's variance and rsqrt as f32[rows, 1], a column sum as f32[1, cols]), or whose
// outputs are other reshapes of its result or operand, is a reduction kernel, not one
// thread per output reading a whole row; an output that reads the result at another
// position (a reverse of it) is not, and still computes right.
TEST(GpuEmulatorTest, KeepdimsReductionsAreReductionKernels) {
  struct Case {
    std::string fused, root_shape;
    bool reduction;
  };
  const std::vector<Case> cases = {
      {R"(  mean = f32[96] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sq = f32[96,300] multiply(x, x)
  ss = f32[96] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  k = f32[96,1] reshape(ss)
  eps = f32[] constant(1e-05)
  ke = f32[96,1] broadcast(eps), dimensions={}
  v = f32[96,1] add(k, ke)
  r = f32[96,1] rsqrt(v)
  m1 = f32[1,96] reshape(mean)
  ROOT t = (f32[96,1], f32[1,96]) tuple(r, m1))",
       "(f32[96,1], f32[1,96])", true},
      {R"(  c = f32[300] reduce(x, zero), dimensions={0}, to_apply=add_f32
  ROOT k = f32[1,300] reshape(c))",
       "f32[1,300]", true},
      // Reshapes that are not only dimensions of size 1 (as XLA's bitcasts in its GPU
      // modules): the reduce reads [8,12,300], the elementwise output is [96,300] and the
      // result [2400].
      {R"(  m = f32[96,300] multiply(x, x)
  mb = f32[8,12,300] reshape(m)
  r = f32[8,300] reduce(mb, zero), dimensions={1}, to_apply=add_f32
  rr = f32[2400] reshape(r)
  ROOT t = (f32[96,300], f32[2400]) tuple(m, rr))",
       "(f32[96,300], f32[2400])", true},
      {R"(  s = f32[96] reduce(x, zero), dimensions={1}, to_apply=add_f32
  k = f32[96,1] reshape(s)
  rk = f32[96,1] reverse(k), dimensions={0}
  ROOT r = f32[96,1] negate(rk))",
       "f32[96,1]", false},
      // Mixed reductions (a row sum beside a column sum): a keepdims member is one of
      // them, a reversed one is not.
      {R"(  row = f32[96] reduce(x, zero), dimensions={1}, to_apply=add_f32
  col = f32[300] reduce(x, zero), dimensions={0}, to_apply=add_f32
  rk = f32[96,1] reshape(row)
  ROOT t = (f32[96,1], f32[300]) tuple(rk, col))",
       "(f32[96,1], f32[300])", true},
      {R"(  row = f32[96] reduce(x, zero), dimensions={1}, to_apply=add_f32
  col = f32[300] reduce(x, zero), dimensions={0}, to_apply=add_f32
  rc = f32[300] reverse(col), dimensions={0}
  ROOT t = (f32[96], f32[300]) tuple(row, rc))",
       "(f32[96], f32[300])", false},
      // The same without the reshape: an output of the result's shape that is not the
      // result at its own position.
      {R"(  s = f32[96] reduce(x, zero), dimensions={1}, to_apply=add_f32
  ROOT r = f32[96] reverse(s), dimensions={0})",
       "f32[96]", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fused);
    const std::string text = WithReducers("\nfused {\n  x = f32[96,300] parameter(0)\n  zero = f32[] constant(0)\n" +
                                          c.fused + "\n}\n\nENTRY e {\n  x = f32[96,300] parameter(0)\n  ROOT f = " +
                                          c.root_shape + " fusion(x), kind=kInput, calls=fused\n}\n");
    ExpectEmulatorMatchesInterpreter(text);
    auto code = FusedGpuCode(text);
    ASSERT_TRUE(code.ok()) << code.status().message();
    ASSERT_EQ((*code)->kernels().size(), 1u);
    const GpuKernel& kernel = *(*code)->kernels()[0];
    EXPECT_EQ(kernel.kind_name.rfind("reduction(", 0) == 0, c.reduction) << kernel.kind_name;
    if (c.reduction) {
      for (const GpuLaunch& launch : kernel.launches) {
        EXPECT_GE(launch.grid[0] * launch.block[0], 96 * 8) << launch.function << ": one thread per output";
      }
    }
  }
}

// Reductions of different dimensions in one multi-output fusion (a softmax cross-entropy's
// per-example row sum beside its bias gradient's column sum and an updated bias): each
// reduction with its epilogue and the loop for the elementwise output on its own range of
// blocks of one launch.
TEST(GpuEmulatorTest, MixedReductionsInOneFusion) {
  const std::string text = WithReducers(R"(
fused {
  b = f32[10] parameter(0)
  x = f32[600,10] parameter(1)
  y = f32[600,10] parameter(2)
  g = f32[600,10] multiply(x, y)
  zero = f32[] constant(0)
  col = f32[10] reduce(g, zero), dimensions={0}, to_apply=add_f32
  lr = f32[10] broadcast(zero), dimensions={}
  step = f32[10] multiply(col, lr)
  nb = f32[10] subtract(b, step)
  e = f32[600,10] exponential(y)
  row = f32[600] reduce(e, zero), dimensions={1}, to_apply=add_f32
  ROOT t = (f32[600,10], f32[10], f32[600]) tuple(g, nb, row)
}

ENTRY e {
  b = f32[10] parameter(0)
  x = f32[600,10] parameter(1)
  y = f32[600,10] parameter(2)
  ROOT f = (f32[600,10], f32[10], f32[600]) fusion(b, x, y), kind=kInput, calls=fused
}
)");
  ExpectEmulatorMatchesInterpreter(text);
  auto code = FusedGpuCode(text);
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  EXPECT_EQ((*code)->kernels()[0]->kind_name, "reduction(mixed)");
  for (const GpuLaunch& launch : (*code)->kernels()[0]->launches) {
    EXPECT_GE(launch.grid[0] * launch.block[0], 10 * 8) << launch.function << ": no reduction on one thread per output";
  }
  // The column sum over 600 rows is split (partials folded by each column group's last
  // block); it, the row sums and the loop share one launch.
  std::vector<std::string> names;
  for (const GpuLaunch& launch : (*code)->kernels()[0]->launches) names.push_back(launch.function);
  EXPECT_EQ(names, (std::vector<std::string>{"f_kernel"}));
}

// A loop fusion whose outputs have different shapes (a multi-output fusion of an update
// and a smaller side output): one launch, a range of blocks per shape; also next to a
// reduction split into partials (folded by its last block, the part with scratch) and a
// row reduction in a mixed one.
TEST(GpuEmulatorTest, OutputsOfDifferentShapesRunInOneLaunch) {
  const std::string loops = WithReducers(R"(
fused {
  p0 = f32[64,96] parameter(0)
  p1 = f32[96] parameter(1)
  p2 = f32[7,5] parameter(2)
  m = f32[64,96] multiply(p0, p0)
  n = f32[96] negate(p1)
  t = f32[5,7] transpose(p2), dimensions={1,0}
  ROOT r = (f32[64,96], f32[96], f32[5,7]) tuple(m, n, t)
}

ENTRY e {
  x = f32[64,96] parameter(0)
  y = f32[96] parameter(1)
  z = f32[7,5] parameter(2)
  ROOT f = (f32[64,96], f32[96], f32[5,7]) fusion(x, y, z), kind=kLoop, calls=fused
}
)");
  const std::string split = WithReducers(R"(
fused {
  p0 = f32[4,20000] parameter(0)
  p1 = f32[300,10] parameter(1)
  zero = f32[] constant(0)
  long = f32[4] reduce(p0, zero), dimensions={1}, to_apply=add_f32
  rows = f32[300] reduce(p1, zero), dimensions={1}, to_apply=add_f32
  e = f32[300,10] exponential(p1)
  ROOT r = (f32[4], f32[300], f32[300,10]) tuple(long, rows, e)
}

ENTRY e {
  x = f32[4,20000] parameter(0)
  y = f32[300,10] parameter(1)
  ROOT f = (f32[4], f32[300], f32[300,10]) fusion(x, y), kind=kInput, calls=fused
}
)");
  for (const auto& [text, launches] : {std::pair<std::string, size_t>{loops, 1}, {split, 1}}) {
    ExpectEmulatorMatchesInterpreter(text);
    auto code = FusedGpuCode(text);
    ASSERT_TRUE(code.ok()) << code.status().message();
    ASSERT_EQ((*code)->kernels().size(), 1u);
    std::string names;
    for (const GpuLaunch& launch : (*code)->kernels()[0]->launches) names += " " + launch.function;
    EXPECT_EQ((*code)->kernels()[0]->launches.size(), launches) << names;
    // The parts are device functions inlined into the one entry: no other entry is left.
    EXPECT_EQ(CountOccurrences((*code)->ptx(), ".entry"), static_cast<int64_t>(launches)) << names;
  }
}

TEST(GpuEmulatorTest, ColumnReduction) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[333,45] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[45] reduce(x, zero), dimensions={0}, to_apply=add_f32
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[6,50,40] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[6,40] reduce(x, zero), dimensions={1}, to_apply=add_f32
}
)"));
}

TEST(GpuEmulatorTest, VariadicArgmaxReduction) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[9,130] parameter(0)
  i = s32[9,130] iota(), iota_dimension=1
  minf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[9], s32[9]) reduce(x, i, minf, zero), dimensions={1}, to_apply=argmax
}
)"));
}

TEST(GpuEmulatorTest, MultiOutputReductionFusion) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[17,257] parameter(0)
  zero = f32[] constant(0)
  s = f32[17] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sq = f32[17,257] multiply(x, x)
  s2 = f32[17] reduce(sq, zero), dimensions={1}, to_apply=add_f32
  ROOT t = (f32[17], f32[17]) tuple(s, s2)
}
)"));
}

TEST(GpuEmulatorTest, TiledTranspose) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[70,45] parameter(0)
  n = f32[70,45] negate(x)
  ROOT t = f32[45,70] transpose(n), dimensions={1,0}
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[3,40,5,33] parameter(0)
  ROOT t = f32[5,33,3,40] transpose(x), dimensions={2,3,0,1}
}
)"));
}

TEST(GpuEmulatorTest, TiledDotWithBatchAndEpilogue) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  a = f32[3,20,37] parameter(0)
  b = f32[3,37,18] parameter(1)
  c = f32[3,20,18] parameter(2)
  d = f32[3,20,18] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT r = f32[3,20,18] add(d, c)
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  a = f32[33,17] parameter(0)
  b = f32[40,17] parameter(1)
  ROOT d = f32[33,40] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)"));
}

// Dots with a side of at most 16 elements split their contraction over a block's threads
// (gpu_kernel_emitter.h: SkinnyDot): narrow rhs and lhs, the wide operand contracted along
// its minor dimension or not, batches, several free and contracted dimensions, rows and
// contractions that do not fill a block, epilogues reading other operands, f16 and f64.
TEST(GpuEmulatorTest, SkinnyDotsSplitTheirContraction) {
  const char* cases[] = {
      // a classifier: x[40,784] . w[784,10] + bias (lanes split k along x's rows)
      R"(ENTRY e {
  x = f32[40,784] parameter(0)
  w = f32[784,10] parameter(1)
  bias = f32[10] parameter(2)
  d = f32[40,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[40,10] broadcast(bias), dimensions={1}
  ROOT r = f32[40,10] add(d, bb)
})",
      // its weight gradient: x^T . g (x's minor dimension is free: lanes take rows)
      R"(ENTRY e {
  x = f32[100,300] parameter(0)
  g = f32[100,10] parameter(1)
  ROOT d = f32[300,10] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
      // the narrow side on the left, a transposed rhs, relu
      R"(ENTRY e {
  a = f32[3,200] parameter(0)
  b = f32[77,200] parameter(1)
  d = f32[3,77] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  z = f32[] constant(0)
  zb = f32[3,77] broadcast(z), dimensions={}
  ROOT r = f32[3,77] maximum(d, zb)
})",
      // narrow lhs, rhs contracted along its major dimension
      R"(ENTRY e {
  a = f32[5,64] parameter(0)
  b = f32[64,1000] parameter(1)
  ROOT d = f32[5,1000] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      // batch, two free and two contracted dimensions
      R"(ENTRY e {
  a = f32[2,6,7,4,9] parameter(0)
  b = f32[2,4,9,3] parameter(1)
  ROOT d = f32[2,6,7,3] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={3,4}, rhs_batch_dims={0}, rhs_contracting_dims={1,2}
})",
      // one row, one column: a vector product
      R"(ENTRY e {
  a = f32[1,4099] parameter(0)
  b = f32[4099,1] parameter(1)
  ROOT d = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      // f16 operands (f32 accumulation) and f64
      R"(ENTRY e {
  a = f16[40,96] parameter(0)
  b = f16[96,16] parameter(1)
  ROOT d = f16[40,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
      R"(ENTRY e {
  a = f64[50,33] parameter(0)
  b = f64[50,16] parameter(1)
  ROOT d = f64[33,16] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})",
  };
  for (const char* body : cases) {
    SCOPED_TRACE(body);
    const std::string text = WithReducers(body);
    auto code = FusedGpuCode(text);
    ASSERT_TRUE(code.ok()) << code.status().message();
    int64_t skinny = 0;
    for (const auto& kernel : (*code)->kernels()) skinny += kernel->kind_name == "dot(skinny)";
    EXPECT_EQ(skinny, 1);
    ExpectEmulatorMatchesInterpreter(text, 3);
  }
  // A narrow operand every row would read that outgrows L1 (4096 x 10 f32: 160 KiB) keeps
  // the tiled dot, whose tiles share it among 16 rows.
  auto code = FusedGpuCode(WithReducers(R"(ENTRY e {
  x = f32[64,4096] parameter(0)
  w = f32[4096,10] parameter(1)
  ROOT d = f32[64,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"));
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  EXPECT_EQ((*code)->kernels()[0]->kind_name, "dot(tiled)");
}

// How skinny dots spread over the GPU: MNIST's forward (x's minor dimension contracted)
// splits k over 256 threads of a row, one row a block, 128 blocks; its weight gradient (x's
// minor dimension free) gives a warp 8 consecutive rows and splits k in 32, 98 blocks; a
// wide side with rows to spare takes 8 rows of 32 slices, or 32 rows a block.
TEST(GpuEmulatorTest, SkinnyDotPlans) {
  struct Expect {
    const char* dot;
    bool narrow_is_n, wide_k_minor;
    int64_t rows, slices, blocks;
  };
  const Expect cases[] = {
      {"x = f32[128,784] parameter(0)\n w = f32[784,10] parameter(1)\n"
       " ROOT d = f32[128,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       true, true, 1, 256, 128},
      {"x = f32[128,784] parameter(0)\n g = f32[128,10] parameter(1)\n"
       " ROOT d = f32[784,10] dot(x, g), lhs_contracting_dims={0}, rhs_contracting_dims={0}",
       true, false, 8, 32, 98},
      {"x = f32[4096,512] parameter(0)\n w = f32[512,10] parameter(1)\n"
       " ROOT d = f32[4096,10] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       true, true, 8, 32, 512},
      {"a = f32[1,2048] parameter(0)\n b = f32[2048,8192] parameter(1)\n"
       " ROOT d = f32[1,8192] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
       false, false, 32, 8, 256},
  };
  for (const Expect& c : cases) {
    SCOPED_TRACE(c.dot);
    auto module = ParseModule(std::string("HloModule m\nENTRY e {\n ") + c.dot + "\n}\n");
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::optional<gpu::SkinnyDot> plan = gpu::PlanSkinnyDot(*(*module)->entry()->root());
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->narrow_is_n, c.narrow_is_n);
    EXPECT_EQ(plan->wide_k_minor, c.wide_k_minor);
    EXPECT_EQ(plan->rows, c.rows);
    EXPECT_EQ(plan->slices, c.slices);
    EXPECT_EQ(plan->blocks, c.blocks);
  }
}

TEST(GpuEmulatorTest, BitonicSortAnyLengthStableWithTies) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[3,37] parameter(0)
  i = s32[3,37] iota(), iota_dimension=1
  ROOT s = (f32[3,37], s32[3,37]) sort(x, i), dimensions={1}, to_apply=less_f32
}
)"));
  // Few distinct keys: ties everywhere, the iota shows whether the sort is stable.
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[100] parameter(0)
  f = f32[100] floor(x)
  i = s32[100] iota(), iota_dimension=0
  ROOT s = (f32[100], s32[100]) sort(f, i), dimensions={0}, to_apply=less_f32
}
)"));
}

TEST(GpuEmulatorTest, DynamicUpdateSliceAndScatter) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[20,30] parameter(0)
  u = f32[4,7] parameter(1)
  i = s32[] constant(18)
  j = s32[] constant(5)
  n = f32[20,30] negate(x)
  ROOT d = f32[20,30] dynamic-update-slice(n, u, i, j)
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[10,4] parameter(0)
  idx = s32[6,1] constant({{1},{3},{1},{9},{0},{3}})
  upd = f32[6,4] parameter(1)
  ROOT s = f32[10,4] scatter(x, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
}
)"));
}

TEST(GpuEmulatorTest, ConvolutionAndReduceWindow) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[2,7,6,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  c = f32[2,7,6,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  minf = f32[] constant(-inf)
  ROOT p = f32[2,3,3,4] reduce-window(c, minf), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max_f32
}
)"));
}

// select-and-scatter runs as one parallel gather kernel: every result element collects
// the sources of the windows that cover and select it. Overlapping windows (3x3 stride 2
// with padding: an element in up to four windows), a stride that leaves the last rows
// uncovered, ties (integers in a small range: the first maximum wins), a max-pool
// gradient fused with its producer, and a non-zero init.
TEST(GpuEmulatorTest, SelectAndScatterGathersInParallel) {
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[2,9,8,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  h = f32[2,3,2,3] parameter(2)
  zero = f32[] constant(0)
  one = f32[] constant(1.5)
  n = f32[2,9,8,3] negate(x)
  overlap = f32[2,9,8,3] select-and-scatter(n, g, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge_f32, scatter=add_f32
  uncovered = f32[2,9,8,3] select-and-scatter(x, h, one), window={size=1x3x3x1 stride=1x3x3x1}, select=ge_f32, scatter=add_f32
  ROOT t = (f32[2,9,8,3], f32[2,9,8,3]) tuple(overlap, uncovered)
}
)"));
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = s32[6,7] parameter(0)
  three = s32[] constant(3)
  small = s32[6,7] broadcast(three), dimensions={}
  ties = s32[6,7] remainder(x, small)
  src = s32[3,3] parameter(1)
  zero = s32[] constant(0)
  ROOT s = s32[6,7] select-and-scatter(ties, src, zero), window={size=2x3 stride=2x2 pad=0_0x0_1}, select=ge_s32, scatter=add_s32
}
)"));
}

// Windows that tile the operand (a max pool's gradient: 2x2 stride 2 over even sizes)
// run one thread per window, which selects once and writes its whole window; ties (small
// integers: the first maximum wins), a fused producer, a non-zero init, a window over
// three dimensions, odd sizes, and a scatter computation other than add, against the
// interpreter. Windows that overlap, pad or leave elements uncovered keep the gather.
TEST(GpuEmulatorTest, SelectAndScatterWindowsThatTileWriteTheirWindows) {
  const std::string f32 = WithReducers(R"(
ENTRY e {
  x = f32[4,8,6,12] parameter(0)
  g = f32[4,4,3,12] parameter(1)
  h = f32[2,4,2,6] parameter(2)
  k = f32[5,3] parameter(3)
  p = f32[15,3] parameter(4)
  zero = f32[] constant(0)
  init = f32[] constant(1.5)
  n = f32[4,8,6,12] negate(x)
  pool = f32[4,8,6,12] select-and-scatter(n, g, zero), window={size=1x2x2x1 stride=1x2x2x1}, select=ge_f32, scatter=add_f32
  three = f32[4,8,6,12] select-and-scatter(x, h, init), window={size=2x2x3x2 stride=2x2x3x2}, select=ge_f32, scatter=mul_f32
  y = f32[15,3] exponential(p)
  odd = f32[15,3] select-and-scatter(y, k, init), window={size=3x1 stride=3x1}, select=ge_f32, scatter=add_f32
  ROOT t = (f32[4,8,6,12], f32[4,8,6,12], f32[15,3]) tuple(pool, three, odd)
}
)");
  ExpectEmulatorMatchesInterpreter(f32);
  ExpectEmulatorMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = s32[6,8] parameter(0)
  three = s32[] constant(3)
  small = s32[6,8] broadcast(three), dimensions={}
  ties = s32[6,8] remainder(x, small)
  src = s32[3,4] parameter(1)
  seven = s32[] constant(7)
  ROOT s = s32[6,8] select-and-scatter(ties, src, seven), window={size=2x2 stride=2x2}, select=ge_s32, scatter=add_s32
}
)"));
  auto code = FusedGpuCode(f32);
  ASSERT_TRUE(code.ok()) << code.status().message();
  int windows = 0;
  for (const auto& kernel : (*code)->kernels()) {
    if (kernel->kind_name.rfind("select-and-scatter", 0) != 0) continue;
    EXPECT_EQ(kernel->kind_name, "select-and-scatter(windows)") << kernel->name;
    ++windows;
  }
  EXPECT_EQ(windows, 3);
  // Overlapping, padded or uncovering windows gather.
  auto gathered = FusedGpuCode(WithReducers(R"(
ENTRY e {
  x = f32[2,9,8,3] parameter(0)
  g = f32[2,5,4,3] parameter(1)
  h = f32[2,3,2,3] parameter(2)
  q = f32[2,5,4,3] parameter(3)
  zero = f32[] constant(0)
  overlap = f32[2,9,8,3] select-and-scatter(x, g, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge_f32, scatter=add_f32
  uncovered = f32[2,9,8,3] select-and-scatter(x, h, zero), window={size=1x3x3x1 stride=1x3x3x1}, select=ge_f32, scatter=add_f32
  padded = f32[2,9,8,3] select-and-scatter(x, q, zero), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x0_1x0_0x0_0}, select=ge_f32, scatter=add_f32
  ROOT t = (f32[2,9,8,3], f32[2,9,8,3], f32[2,9,8,3]) tuple(overlap, uncovered, padded)
}
)"));
  ASSERT_TRUE(gathered.ok()) << gathered.status().message();
  int gathers = 0;
  for (const auto& kernel : (*gathered)->kernels()) {
    if (kernel->kind_name.rfind("select-and-scatter", 0) != 0) continue;
    EXPECT_EQ(kernel->kind_name, "select-and-scatter(gather)") << kernel->name;
    ++gathers;
  }
  EXPECT_EQ(gathers, 3);
}

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `text` through the fused GPU pipeline with libraries on (nullptr, with a failure, when
// it does not parse or optimize).
std::unique_ptr<Module> OptimizedWithLibraries(const std::string& text) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return nullptr;
  auto optimized = passes::OptimizeForBackend(**parsed, /*fused=*/true, /*gpu_libraries=*/true);
  EXPECT_TRUE(optimized.ok()) << optimized.status().message();
  return optimized.ok() ? std::move(*optimized) : nullptr;
}

// With the GPU's libraries, dots become __cublas$gemm calls; the emulator runs each as
// cuBLAS defines its column-major GEMM, with the plan the runtime would hand cuBLAS, so
// the plan's transposes, leading dimensions and the buffers around the call are checked.
TEST(GpuEmulatorTest, GemmLibraryCallsComputeTheDots) {
  ExpectEmulatorMatchesInterpreter(ReadExample("mnist_train_step.hlo"), 1, /*gpu_libraries=*/true);
  // Its convolutions as cuDNN calls (run as cuDNN defines them), its dot as a cuBLAS call.
  ExpectEmulatorMatchesInterpreter(ReadExample("cifar_cnn_train_step.hlo"), 1, /*gpu_libraries=*/true);
  // XLA's GPU module: its calls lowered, then cuBLAS and cuDNN calls again, the strided
  // convolutions on an explicitly padded input.
  ExpectEmulatorMatchesInterpreter(ReadExample("../../tests/data/library_calls/cnn_step_gpu.hlo"), 1, true);
  // Batched, every operand order, an epilogue after the call.
  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  a = f32[3,5,7] parameter(0)
  b = f32[3,4,7] parameter(1)
  c = f32[7,6] parameter(2)
  d = f32[3,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  e = f32[3,5,6] dot(a, c), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  r = f32[3,5,4] maximum(d, d)
  ROOT out = (f32[3,5,4], f32[3,5,6]) tuple(r, e)
})", 1, true);
}

// Attention's per-head products read [batch, seq, heads, head_dim] buffers in place: the
// heads are cuBLAS's strided batch and the batch a loop of calls (GemmPlan::loops). jax's
// attention forward and backward (tests/data/library_calls/attention_fwd_bwd.hlo, 18 dots)
// keeps no dot of its own: every one is a library call, and the module computes what the
// interpreter does. A batched bias epilogue with a loop of calls runs too.
TEST(GpuEmulatorTest, AttentionDotsReadTheirHeadsInPlace) {
  const std::string attention = ReadExample("../../tests/data/library_calls/attention_fwd_bwd.hlo");
  std::unique_ptr<Module> optimized = OptimizedWithLibraries(attention);
  ASSERT_NE(optimized, nullptr);
  int dots = 0, calls = 0;
  for (const auto& c : optimized->computations()) {  // fused computations too
    for (const auto& inst : c->instructions()) {
      dots += inst->opcode() == Opcode::kDot;
      calls += IsLibraryCall(*inst);
    }
  }
  EXPECT_EQ(dots, 0) << optimized->ToString();
  EXPECT_EQ(calls, 18);
  ExpectEmulatorMatchesInterpreter(attention, 1, /*gpu_libraries=*/true);
  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  q = f32[2,5,3,4] parameter(0)
  k = f32[2,6,3,4] parameter(1)
  b = f32[6] parameter(2)
  s = f32[2,3,5,6] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  bb = f32[2,3,5,6] broadcast(b), dimensions={3}
  ROOT r = f32[2,3,5,6] add(s, bb)
})", 3, true);
}

// cuBLASLt epilogues, run as cuBLASLt defines them (the bias along D's rows, then the
// activation): the bias add and relu the gemm-rewriter folds into a call, and XLA's
// batched BIAS_GELU call.
TEST(GpuEmulatorTest, CublasLtEpiloguesRunAsCublasLtDefinesThem) {
  // jax's GPT block forward (tests/data/library_calls/gpt_block_fwd.hlo): its MLP's dot,
  // bias and tanh-form GELU are one BIAS_GELU call, its attention dots strided calls.
  const std::string block = ReadExample("../../tests/data/library_calls/gpt_block_fwd.hlo");
  std::unique_ptr<Module> optimized = OptimizedWithLibraries(block);
  ASSERT_NE(optimized, nullptr);
  int gelu_calls = 0, tanh = 0;
  for (const auto& c : optimized->computations()) {
    for (const auto& inst : c->instructions()) {
      tanh += inst->opcode() == Opcode::kTanh;
      if (IsLibraryCall(*inst)) gelu_calls += ParseLibraryCall(*inst)->epilogue == GemmEpilogue::kBiasGelu;
    }
  }
  EXPECT_EQ(gelu_calls, 1) << optimized->ToString();
  EXPECT_EQ(tanh, 0);
  ExpectEmulatorMatchesInterpreter(block, 4, /*gpu_libraries=*/true);

  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  x = f32[6,9] parameter(0)
  w = f32[9,5] parameter(1)
  b = f32[5] parameter(2)
  d = f32[6,5] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[6,5] broadcast(b), dimensions={1}
  s = f32[6,5] add(d, bb)
  z = f32[] constant(0)
  zz = f32[6,5] broadcast(z), dimensions={}
  ROOT r = f32[6,5] maximum(s, zz)
})", 1, true);
  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  a = f32[3,4,6]{2,1,0} parameter(0)
  b = f32[3,5,6]{2,1,0} parameter(1)
  c = f32[5]{0} parameter(2)
  g = (f32[3,4,5]{2,1,0}, s8[1024]{0}) custom-call(a, b, c), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["2"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"BIAS_GELU"}}
  ROOT v = f32[3,4,5]{2,1,0} get-tuple-element(g), index=0
})", 2, true);
}

// A training step's GELU: jax's GPT block with its gradients
// (tests/data/library_calls/gpt_block_fwd_bwd.hlo), whose backward pass reads the GELU's
// input and its tanh, has one BIAS_GELU_AUX call (value, aux) as XLA's gemm-rewriter
// writes it; the backward pass reads the aux. The emulator writes both outputs as cuBLASLt
// defines them, and the module computes what the interpreter does. XLA's own GELU_AUX
// call, (value, aux, workspace), both elements read, runs too.
TEST(GpuEmulatorTest, GeluAuxEpiloguesKeepTheGelusInputForTheBackwardPass) {
  const std::string step = ReadExample("../../tests/data/library_calls/gpt_block_fwd_bwd.hlo");
  std::unique_ptr<Module> optimized = OptimizedWithLibraries(step);
  ASSERT_NE(optimized, nullptr);
  int aux_calls = 0, aux_reads = 0;
  for (const auto& c : optimized->computations()) {
    for (const auto& inst : c->instructions()) {
      if (IsLibraryCall(*inst) && ParseLibraryCall(*inst)->epilogue == GemmEpilogue::kBiasGeluAux) {
        ++aux_calls;
        EXPECT_TRUE(inst->shape().IsTuple()) << inst->ToString();
      }
      aux_reads += inst->opcode() == Opcode::kGetTupleElement && IsLibraryCall(*inst->operand(0)) &&
                   inst->tuple_index() == 1 && !inst->users().empty();
    }
  }
  EXPECT_EQ(aux_calls, 1) << optimized->ToString();
  EXPECT_EQ(aux_reads, 1) << "the backward pass reads the aux output";
  ExpectEmulatorMatchesInterpreter(step, 5, /*gpu_libraries=*/true);

  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  a = f32[2,4,6]{2,1,0} parameter(0)
  b = f32[2,6,8]{2,1,0} parameter(1)
  g = (f32[2,4,8]{2,1,0}, f32[2,4,8]{2,1,0}, s8[1024]{0}) custom-call(a, b), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["2"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":["0"],"rhs_batch_dimensions":["0"]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"GELU_AUX"}}
  v = f32[2,4,8]{2,1,0} get-tuple-element(g), index=0
  x = f32[2,4,8]{2,1,0} get-tuple-element(g), index=1
  ROOT s = f32[2,4,8]{2,1,0} subtract(v, x)
})", 2, true);
}

// XLA's own call: a (value, workspace) tuple and beta = 1 with c as operand 2.
TEST(GpuEmulatorTest, XlasGemmCallWithBetaRuns) {
  ExpectEmulatorMatchesInterpreter(R"(HloModule m
ENTRY e {
  a = f32[4,6]{1,0} parameter(0)
  b = f32[5,6]{1,0} parameter(1)
  c = f32[4,5]{1,0} parameter(2)
  g = (f32[4,5]{1,0}, s8[1024]{0}) custom-call(a, b, c), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":0.5,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  v = f32[4,5]{1,0} get-tuple-element(g), index=0
  ROOT s = f32[4,5]{1,0} sine(v)
})", 1, true);
}

TEST(GpuEmulatorTest, Examples) {
  // The training steps (the seed workloads are GiB-sized: the benchmarks run those).
  for (const char* name : {"mnist_train_step.hlo", "cifar_cnn_train_step.hlo"}) {
    SCOPED_TRACE(name);
    ExpectEmulatorMatchesInterpreter(ReadExample(name));
  }
}

int CountTarget(const Module& module, const std::string& target) {
  int count = 0;
  for (const Computation* c : ProgramComputations(module)) {
    for (const auto& inst : c->instructions()) {
      count += IsLibraryCall(*inst) && inst->attrs().custom_call_target == target;
    }
  }
  return count;
}

// cuDNN's fused convolution call, run by the emulator as cudnnConvolutionBiasActivationForward
// defines it (RunConvBiasActivationPlanOnHost on the plan the runtime hands cuDNN): the bias
// and relu conv-rewriter folds, XLA's own calls with a side input and scales, XLA's CNN step
// (its fused call lowered for the padding, then folded again) and the real XLA CIFAR step's
// optimized module with its two fused calls kept, each against the interpreter.
TEST(GpuEmulatorTest, CudnnFusedConvolutionsRunAsCudnnDefinesThem) {
  const char* kFused = "__cudnn$convBiasActivationForward";
  struct Case {
    std::string text;
    int fused;
  };
  const std::vector<Case> cases = {
      {R"(HloModule m
ENTRY e {
  x = f32[2,7,6,3] parameter(0)
  w = f32[3,3,3,5] parameter(1)
  b = f32[5] parameter(2)
  c = f32[2,7,6,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = f32[2,7,6,5] broadcast(b), dimensions={3}
  s = f32[2,7,6,5] add(c, bb)
  z = f32[] constant(0)
  zz = f32[2,7,6,5] broadcast(z), dimensions={}
  r = f32[2,7,6,5] maximum(s, zz)
  m = pred[2,7,6,5] compare(s, zz), direction=GT
  w2 = f32[3,3,5,5] parameter(3)
  r2 = f32[2,7,6,5] convolution(r, w2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,7,6,5], pred[2,7,6,5]) tuple(r2, m)
})",
       1},
      {R"(HloModule m
ENTRY e {
  x = f32[2,7,6,3]{3,2,1,0} parameter(0)
  w = f32[5,3,3,3]{3,2,1,0} parameter(1)
  b = f32[5]{0} parameter(2)
  z = f32[2,4,3,5]{3,2,1,0} parameter(3)
  f = (f32[2,4,3,5]{3,2,1,0}, u8[0]{0}) custom-call(x, w, b, z), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kRelu","conv_result_scale":0.5,"side_input_scale":-0.75,"leakyrelu_alpha":0}}
  g = (f32[2,7,6,5]{3,2,1,0}, u8[0]{0}) custom-call(x, w, b), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}}
  v = f32[2,4,3,5]{3,2,1,0} get-tuple-element(f), index=0
  u = f32[2,7,6,5]{3,2,1,0} get-tuple-element(g), index=0
  ROOT t = (f32[2,4,3,5]{3,2,1,0}, f32[2,7,6,5]{3,2,1,0}) tuple(v, u)
})",
       2},
      // What conv-rewriter folds as XLA does beyond a bias: a relu without a bias (a zero
      // bias), a scale, and a residual block's scaled side input with the bias and relu.
      {R"(HloModule m
ENTRY e {
  x = f32[2,7,6,3] parameter(0)
  w = f32[3,3,3,5] parameter(1)
  b = f32[5] parameter(2)
  w2 = f32[3,3,5,5] parameter(3)
  c = f32[2,7,6,5] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  z = f32[] constant(0)
  zz = f32[2,7,6,5] broadcast(z), dimensions={}
  r = f32[2,7,6,5] maximum(c, zz)
  c2 = f32[2,7,6,5] convolution(r, w2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  h = f32[] constant(0.5)
  hh = f32[2,7,6,5] broadcast(h), dimensions={}
  m = f32[2,7,6,5] multiply(c2, hh)
  bb = f32[2,7,6,5] broadcast(b), dimensions={3}
  s = f32[2,7,6,5] add(m, bb)
  q = f32[] constant(-0.75)
  qq = f32[2,7,6,5] broadcast(q), dimensions={}
  rq = f32[2,7,6,5] multiply(r, qq)
  t = f32[2,7,6,5] add(s, rq)
  ROOT y = f32[2,7,6,5] maximum(t, zz)
})",
       2},
      {ReadExample("../../tests/data/library_calls/cnn_step_gpu.hlo"), 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 200));
    auto parsed = ParseModule(c.text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    auto optimized = passes::OptimizeForBackend(**parsed, true, true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    EXPECT_EQ(CountTarget(**optimized, kFused), c.fused) << (*optimized)->ToString();
    ExpectEmulatorMatchesInterpreter(c.text, 3, /*gpu_libraries=*/true);
  }
}

// XLA's own optimized CIFAR step (tests/data/xla_dumps_gpu, jax 0.11.2 on an H200) runs with
// its two __cudnn$convBiasActivationForward calls kept, and matches the interpreter.
TEST(GpuEmulatorTest, XlasOptimizedCifarStepRunsWithItsFusedCalls) {
  const std::string text = ReadExample(
      "../../tests/data/xla_dumps_gpu/cifar_cnn_train_step/"
      "module_0000.jit_cifar_cnn_train_step.sm_9.0a_gpu_after_optimizations.txt");
  auto parsed = ParseModule(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  auto optimized = passes::OptimizeForBackend(**parsed, true, true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_EQ(CountTarget(**optimized, "__cudnn$convBiasActivationForward"), 2) << "XLA's calls are kept";
  ExpectEmulatorMatchesInterpreter(text, 1, /*gpu_libraries=*/true);
}

}  // namespace
}  // namespace fusebox::codegen
