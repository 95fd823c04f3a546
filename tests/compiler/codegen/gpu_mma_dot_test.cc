// Tensor-core dots (gpu_dot_plan.h: MmaDot; gpu_mma_dot_emitter.cc): which dots take them,
// which block tile, and what they compute. The GPU emulator runs the kernels with its own
// mma.sync (every lane's fragments gathered as the PTX ISA lays them out): on integer
// inputs, whose products and sums TF32 and f32 hold exactly, every tile must equal the
// interpreter bit for bit (an element in the wrong lane or the wrong half of a fragment
// breaks that); on random inputs the result must show TF32's rounding and stay within its
// bound. ptxas assembles every tile without spills.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/dense_modules.h"

namespace fusebox::codegen {
namespace {

using ::testing::HasSubstr;

// A classifier layer with bias and relu; operands whose minor dimensions are the other
// ones (lhs m-minor, rhs k-minor); a batch; a fusion reading producers; two free and two
// contracted dimensions. No side is a multiple of any tile, nor k of a slice.
const std::string kCases[] = {
    testing_util::DenseReluHlo(40, 72, 56),
    R"(HloModule m
ENTRY e {
  a = f32[72,40] parameter(0)
  b = f32[56,72] parameter(1)
  ROOT d = f32[40,56] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
})",
    R"(HloModule m
ENTRY e {
  a = f32[3,33,48] parameter(0)
  b = f32[3,48,20] parameter(1)
  ROOT d = f32[3,33,20] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})",
    // XLA's form: a fusion whose dot reads producers (a transpose, a doubled operand), which
    // the tiles load elementally.
    R"(HloModule m
fused_dot {
  p0 = f32[72,40] parameter(0)
  p1 = f32[72,56] parameter(1)
  t = f32[40,72] transpose(p0), dimensions={1,0}
  two = f32[] constant(2)
  twos = f32[72,56] broadcast(two), dimensions={}
  m = f32[72,56] multiply(p1, twos)
  ROOT d = f32[40,56] dot(t, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  a = f32[72,40] parameter(0)
  b = f32[72,56] parameter(1)
  ROOT f = f32[40,56] fusion(a, b), kind=kOutput, calls=fused_dot
})",
    R"(HloModule m
ENTRY e {
  a = f32[5,7,6,4] parameter(0)
  b = f32[6,4,18] parameter(1)
  ROOT d = f32[5,7,18] dot(a, b), lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}
})",
};

// Whole numbers in [-4, 4]: exact in TF32, and so are their products and sums here.
std::vector<Literal> IntegerArguments(const Module& module, uint64_t seed) {
  auto args = interpreter::RandomArguments(module, seed);
  EXPECT_TRUE(args.ok()) << args.status().message();
  if (!args.ok()) return {};
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (Literal& literal : *args) {
    float* values = reinterpret_cast<float*>(literal.untyped_data());
    for (int64_t i = 0; i < literal.size_bytes() / 4; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      values[i] = static_cast<float>(static_cast<int>((state >> 33) % 9) - 4);
    }
  }
  return std::move(*args);
}

struct Emulated {
  std::unique_ptr<GpuEmulator> emulator;
  std::vector<std::string> kinds;
};

Emulated Emulate(const Module& module, const GpuCompileOptions& options, bool gpu_libraries = false) {
  Emulated out;
  auto optimized = passes::OptimizeForBackend(module, /*fused=*/true, gpu_libraries);
  EXPECT_TRUE(optimized.ok()) << optimized.status().message();
  if (!optimized.ok()) return out;
  auto emulator = GpuEmulator::Create(std::move(*optimized), options);
  EXPECT_TRUE(emulator.ok()) << emulator.status().message();
  if (!emulator.ok()) return out;
  out.emulator = std::move(*emulator);
  for (const GpuKernel* kernel : out.emulator->code().AllKernels()) out.kinds.push_back(kernel->kind_name);
  return out;
}

void ExpectBitEqual(const Literal& actual, const Literal& expected) {
  ASSERT_EQ(actual.size_bytes(), expected.size_bytes());
  const float* a = reinterpret_cast<const float*>(actual.untyped_data());
  const float* e = reinterpret_cast<const float*>(expected.untyped_data());
  int64_t wrong = 0, first = -1;
  for (int64_t i = 0; i < actual.size_bytes() / 4; ++i) {
    if (std::memcmp(&a[i], &e[i], 4) != 0 && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0) << "first at element " << first << ": " << a[first] << " instead of " << e[first];
}

// A row-major [m,k] . [k,n] dot's result `got` against the interpreter's f32 `want`: the
// largest difference as a fraction of TF32's bound, 2^-10 of the output's sum of
// |products| (each operand off by at most 2^-11 of itself), and how many outputs differ by
// more than f32's rounding (2^-20 of it).
struct Tf32Error {
  double worst_ratio = 0;
  int64_t beyond_f32 = 0;
};
Tf32Error MeasureTf32Error(const std::vector<Literal>& args, const Literal& got_literal, const Literal& want_literal,
                           int64_t m, int64_t k, int64_t n) {
  const float* a = reinterpret_cast<const float*>(args[0].untyped_data());
  const float* b = reinterpret_cast<const float*>(args[1].untyped_data());
  const float* got = reinterpret_cast<const float*>(got_literal.untyped_data());
  const float* want = reinterpret_cast<const float*>(want_literal.untyped_data());
  Tf32Error error;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double magnitude = 0;
      for (int64_t x = 0; x < k; ++x) magnitude += std::fabs(double{a[i * k + x]} * double{b[x * n + j]});
      const double diff = std::fabs(double{got[i * n + j]} - double{want[i * n + j]});
      error.worst_ratio = std::max(error.worst_ratio, diff / (magnitude * std::ldexp(1.0, -10) + 1e-30));
      error.beyond_f32 += diff > magnitude * std::ldexp(1.0, -20);
    }
  }
  return error;
}

TEST(GpuMmaDotTest, EveryTileIsExactOnWholeNumbers) {
  for (const std::string& text : kCases) {
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::vector<Literal> args = IntegerArguments(**module, 5);
    auto expected = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    for (int64_t tile = 0; tile < gpu::kMmaTileCount; ++tile) {
      SCOPED_TRACE(gpu::MmaTileLabel(tile));
      GpuCompileOptions options;
      options.allow_tf32 = true;
      options.mma_tile = tile;
      Emulated run = Emulate(**module, options);
      ASSERT_NE(run.emulator, nullptr);
      EXPECT_THAT(run.kinds, ::testing::ElementsAre("dot(tensor core)"));
      auto actual = run.emulator->Run(args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      ExpectBitEqual(*actual, *expected);
    }
  }
}

// Split k (gpu_dot_plan.h: kMmaSplitBelowBlocks): every case, in the smallest and a
// 16-wide-slice tile, with k in 3 parts, is bit-equal to the interpreter on whole numbers;
// a dot the rule splits (one 32x32 block, 19 slices: 4 parts) gives the same bits run
// after run (the parts are added in order, whichever finishes last) and stays within
// TF32's bound; and a second run of the loaded kernel is right too (the last part set the
// arrival counters back to 0).
TEST(GpuMmaDotTest, SplitKIsExactAndTheSameEveryRun) {
  const int64_t contracted[] = {72, 72, 48, 72, 24}, batch[] = {1, 1, 3, 1, 1};  // of kCases
  for (size_t c = 0; c < std::size(kCases); ++c) {
    const std::string& text = kCases[c];
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::vector<Literal> args = IntegerArguments(**module, 9);
    auto expected = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    for (int64_t tile : {0, 2}) {
      SCOPED_TRACE(gpu::MmaTileLabel(tile));
      GpuCompileOptions options;
      options.allow_tf32 = true;
      options.mma_tile = tile;
      options.mma_splits = 3;
      Emulated run = Emulate(**module, options);
      ASSERT_NE(run.emulator, nullptr);
      const std::vector<const GpuKernel*> kernels = run.emulator->code().AllKernels();
      ASSERT_EQ(kernels.size(), 1u);
      EXPECT_EQ(kernels[0]->kind_name, "dot(tensor core)");
      // 3 parts, or as many as there are slices.
      const int64_t parts = std::min<int64_t>(3, (contracted[c] + gpu::kMmaTiles[tile].block_k - 1) /
                                                     gpu::kMmaTiles[tile].block_k);
      EXPECT_EQ(kernels[0]->launches[0].grid[2], batch[c] * parts);
      EXPECT_EQ(kernels[0]->scratch_bytes > 0, parts > 1);
      auto actual = run.emulator->Run(args);
      ASSERT_TRUE(actual.ok()) << actual.status().message();
      ExpectBitEqual(*actual, *expected);
    }
  }
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[24,600] parameter(0)
  b = f32[600,20] parameter(1)
  ROOT d = f32[24,20] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  GpuCompileOptions options;
  options.allow_tf32 = true;
  Emulated run = Emulate(**module, options);
  ASSERT_NE(run.emulator, nullptr);
  const GpuKernel& kernel = *run.emulator->code().AllKernels().at(0);
  EXPECT_EQ(kernel.kind_name, "dot(tensor core)");
  EXPECT_EQ(kernel.launches[0].grid[2], 4) << "19 slices of 32: 4 parts";
  for (uint64_t seed : {21, 22}) {
    auto args = interpreter::RandomArguments(**module, seed);
    ASSERT_TRUE(args.ok()) << args.status().message();
    auto expected = interpreter::Interpreter().Run(**module, *args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    auto first = run.emulator->Run(*args);
    auto second = run.emulator->Run(*args);
    ASSERT_TRUE(first.ok() && second.ok());
    ExpectBitEqual(*second, *first);
    EXPECT_LE(MeasureTf32Error(*args, *first, *expected, 24, 600, 20).worst_ratio, 1.0) << "seed " << seed;
  }
}

// The tile a dot takes by default: the largest that gives 128 blocks, else 32x32; k split
// when that leaves fewer than 256 blocks and each part keeps 4 slices; and the shapes it is
// compiled in for the runtime to time (the next smaller and larger tile, this one unsplit).
TEST(GpuMmaDotTest, TilesFollowTheBlockCount) {
  using gpu::MmaShape;
  struct Expect {
    int64_t m, n, k, batch, tile, splits, per_split;
    std::vector<MmaShape> variants;
  };
  const Expect cases[] = {
      // The MLP's first layer: 128 blocks of 32x32 and 25 slices: 4 parts of 7 (the last 4).
      {256, 512, 784, 1, 0, 4, 7, {{1, -1}, {0, 1}}},
      {256, 512, 512, 1, 0, 4, 4, {{1, -1}, {0, 1}}},     // its gradient: 16 slices
      {512, 512, 256, 1, 0, 1, 8, {{1, -1}}},             // 256 blocks: not split
      {4096, 1024, 1024, 1, 3, 1, 64, {{2, -1}}},         // 256 blocks of 128x128
      {1024, 1024, 64, 1, 2, 1, 4, {{1, -1}, {3, -1}}},   // 64 of 128x128 are too few; 128 of 128x64
      {512, 512, 64, 2, 1, 1, 2, {{0, -1}, {2, -1}}},     // a batch of 2: 2 x 64 blocks of 64x64
      {16, 16, 16, 1, 0, 1, 1, {{1, -1}}},                // the smallest there is: one block
      {64, 64, 8192, 1, 0, 16, 16, {{1, -1}, {0, 1}}},    // 4 blocks, 256 slices: at most 16 parts
      {32, 32, 200, 1, 0, 1, 7, {{1, -1}}},               // 7 slices: too few for parts of 4
  };
  for (const Expect& c : cases) {
    const std::string text = "HloModule m\nENTRY e {\n a = f32[" + std::to_string(c.batch) + "," + std::to_string(c.m) +
                             "," + std::to_string(c.k) + "] parameter(0)\n b = f32[" + std::to_string(c.batch) + "," +
                             std::to_string(c.k) + "," + std::to_string(c.n) + "] parameter(1)\n ROOT d = f32[" +
                             std::to_string(c.batch) + "," + std::to_string(c.m) + "," + std::to_string(c.n) +
                             "] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                             "rhs_contracting_dims={1}\n}\n";
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Instruction& dot = *(*module)->entry()->root();
    std::optional<gpu::MmaDot> plan = gpu::PlanMmaDot(dot, "sm_90", true);
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->tile, c.tile);
    EXPECT_EQ(plan->splits, c.splits);
    EXPECT_EQ(plan->slices_per_split, c.per_split);
    EXPECT_LT((plan->splits - 1) * plan->slices_per_split, plan->slices) << "an empty part";
    EXPECT_TRUE(gpu::MmaShapeVariants(*plan) == c.variants);
    EXPECT_EQ(plan->blocks_m, (c.m + plan->block_m() - 1) / plan->block_m());
    EXPECT_EQ(plan->blocks_n, (c.n + plan->block_n() - 1) / plan->block_n());
    EXPECT_TRUE(plan->lhs_k_minor);
    EXPECT_TRUE(plan->rhs_n_minor);
  }
  EXPECT_EQ(gpu::MmaTileLabel(0), "32x32 tiles");
  EXPECT_EQ(gpu::MmaTileLabel(1), "64x64 tiles");
  EXPECT_EQ(gpu::MmaTileLabel(2), "128x64 tiles");
  EXPECT_EQ(gpu::MmaTileLabel(3), "128x128 tiles");
  // Forced parts: never more than the slices, never an empty one (25 slices in 6 parts of 5
  // are 5 parts).
  auto forced = ParseModule(testing_util::DenseReluHlo(256, 784, 512));
  ASSERT_TRUE(forced.ok()) << forced.status().message();
  const Instruction* dot = nullptr;
  for (const auto& inst : (*forced)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kDot) dot = inst.get();
  }
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(gpu::PlanMmaDot(*dot, "sm_90", true, 0, 6)->splits, 5);
  EXPECT_EQ(gpu::PlanMmaDot(*dot, "sm_90", true, 0, 100)->splits, 25);
  EXPECT_EQ(gpu::PlanMmaDot(*dot, "sm_90", true, 0, 1)->splits, 1);
  EXPECT_EQ(gpu::MmaShapeLabel(*gpu::PlanMmaDot(*dot, "sm_90", true)), "32x32 tiles, k in 4 parts");
  EXPECT_EQ(gpu::MmaShapeLabel(*gpu::PlanMmaDot(*dot, "sm_90", true, 1, 1)), "64x64 tiles");
  EXPECT_EQ(gpu::GpuArchNumber("sm_90a"), 90);
  EXPECT_EQ(gpu::GpuArchNumber("sm_75"), 75);
  EXPECT_EQ(gpu::GpuArchNumber("compute_90"), 0);
}

// Only f32 dots that may round to TF32, on sm_80 and later, with no skinny side.
TEST(GpuMmaDotTest, OnlyDotsTheTf32RuleAllows) {
  auto plan = [](const std::string& type, const std::string& extra, const std::string& arch, bool allow,
                 int64_t n = 64) {
    const std::string text = "HloModule m\nENTRY e {\n a = " + type + "[64,64] parameter(0)\n b = " + type + "[64," +
                             std::to_string(n) + "] parameter(1)\n ROOT d = " + type + "[64," + std::to_string(n) +
                             "] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}" + extra + "\n}\n";
    auto module = ParseModule(text);
    EXPECT_TRUE(module.ok()) << module.status().message();
    return module.ok() && gpu::PlanMmaDot(*(*module)->entry()->root(), arch, allow).has_value();
  };
  EXPECT_TRUE(plan("f32", "", "sm_90", true));
  EXPECT_TRUE(plan("f32", ", operand_precision={default,high}", "sm_80", true));
  EXPECT_FALSE(plan("f32", ", operand_precision={default,highest}", "sm_90", true));
  EXPECT_FALSE(plan("f32", ", algorithm=dot_f32_f32_f32", "sm_90", true));
  EXPECT_FALSE(plan("f32", "", "sm_75", true));
  EXPECT_FALSE(plan("f32", "", "sm_90", false));
  EXPECT_FALSE(plan("f64", "", "sm_90", true));
  EXPECT_FALSE(plan("f16", "", "sm_90", true));
  EXPECT_FALSE(plan("f32", "", "sm_90", true, 12));  // a side under 16
}

// Random inputs: the tensor-core dot differs from the interpreter's f32 by more than f32's
// rounding somewhere (its operands were rounded to TF32: 10 mantissa bits), and nowhere by
// more than TF32's bound, 2^-10 of the sum of |products| (each operand off by 2^-11 of
// itself at most). Without TF32 the same dot is the tiled one, within f32's tolerance; so
// is a HIGHEST one with TF32 allowed.
TEST(GpuMmaDotTest, RandomInputsShowTf32RoundingWithinItsBound) {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[64,256] parameter(0)
  b = f32[256,48] parameter(1)
  ROOT d = f32[64,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto args = interpreter::RandomArguments(**module, 11);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(**module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  GpuCompileOptions options;
  options.allow_tf32 = true;
  Emulated run = Emulate(**module, options);
  ASSERT_NE(run.emulator, nullptr);
  EXPECT_THAT(run.kinds, ::testing::ElementsAre("dot(tensor core)"));
  auto actual = run.emulator->Run(*args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  const Tf32Error error = MeasureTf32Error(*args, *actual, *expected, 64, 256, 48);
  const double worst_ratio = error.worst_ratio;
  const int64_t beyond_f32 = error.beyond_f32;
  EXPECT_LE(worst_ratio, 1.0);
  EXPECT_GT(beyond_f32, 64 * 48 / 4) << "the operands were not rounded to TF32";
  for (const char* variant : {"", "highest"}) {
    SCOPED_TRACE(variant);
    GpuCompileOptions full;
    full.allow_tf32 = *variant == '\0' ? false : true;
    std::string modified = text;
    if (*variant != '\0') modified.replace(modified.rfind('\n'), 1, ", operand_precision={highest,highest}\n");
    auto other = ParseModule(modified);
    ASSERT_TRUE(other.ok()) << other.status().message();
    Emulated tiled = Emulate(**other, full);
    ASSERT_NE(tiled.emulator, nullptr);
    EXPECT_THAT(tiled.kinds, ::testing::ElementsAre("dot(tiled)"));
    auto f32 = tiled.emulator->Run(*args);
    ASSERT_TRUE(f32.ok()) << f32.status().message();
    interpreter::CompareResult cmp =
        interpreter::CompareLiterals(*f32, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString();
  }
}

int64_t CountMma(const std::string& ptx) {
  const std::string what = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  int64_t n = 0;
  for (size_t at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1)) ++n;
  return n;
}

// The tensor-core entries are real PTX: each tile's slice is its mma.sync, unrolled, and
// ptxas assembles each tile, at a size the plan gives it, without spilling.
TEST(GpuMmaDotTest, PtxasAssemblesEveryTileWithoutSpills) {
  struct Size {
    int64_t batch, m, n, k;
  };
  // The sizes TilesFollowTheBlockCount gives each tile.
  const Size sizes[] = {{1, 256, 512, 784}, {2, 512, 512, 64}, {1, 1024, 1024, 64}, {1, 4096, 1024, 1024}};
  const bool have_ptxas = FindPtxas().ok();
  for (int64_t tile = 0; tile < gpu::kMmaTileCount; ++tile) {
    SCOPED_TRACE(gpu::MmaTileLabel(tile));
    const Size& size = sizes[tile];
    auto module = ParseModule(testing_util::DenseReluHlo(size.m, size.k, size.n, size.batch));
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto optimized = passes::OptimizeForBackend(**module, true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    GpuCompileOptions options;
    options.allow_tf32 = true;
    auto code = CompileForGpu(**optimized, options);
    ASSERT_TRUE(code.ok()) << code.status().message();
    ASSERT_EQ((*code)->kernels().size(), 1u);
    const GpuKernel& kernel = *(*code)->kernels()[0];
    EXPECT_EQ(kernel.kind_name, "dot(tensor core)");
    const Instruction* dot = nullptr;
    for (const auto& inst : kernel.hlo->fused_computation()->instructions()) {
      if (inst->opcode() == Opcode::kDot) dot = inst.get();
    }
    ASSERT_NE(dot, nullptr);
    const gpu::MmaDot plan = *gpu::PlanMmaDot(*dot, "sm_90", true);
    EXPECT_EQ(plan.tile, tile);
    EXPECT_EQ(kernel.launches[0].block[0], plan.threads());
    EXPECT_EQ(kernel.launches[0].grid[0] * kernel.launches[0].grid[1] * kernel.launches[0].grid[2],
              plan.blocks_m * plan.blocks_n * size.batch * plan.splits);
    // A slice's mma.sync: tiles_m x tiles_n a warp for each 8 of the slice's k.
    const int64_t per_slice = plan.shape.tiles_m * plan.shape.tiles_n * plan.shape.block_k / 8;
    const int64_t count = CountMma((*code)->ptx());
    EXPECT_GT(count, 0);
    EXPECT_EQ(count % per_slice, 0) << count << " mma.sync for slices of " << per_slice;
    if (!have_ptxas) continue;
    auto assembled = AssemblePtx((*code)->ptx(), "sm_90");
    ASSERT_TRUE(assembled.ok()) << assembled.status().message();
    ASSERT_EQ(assembled->kernels.size(), 1u);
    EXPECT_EQ(assembled->kernels[0].spill_store_bytes, 0) << assembled->kernels[0].registers << " registers";
    EXPECT_EQ(assembled->kernels[0].spill_load_bytes, 0);
  }
  // The GPT block's weight gradient: two contracted dimensions (batch and sequence), the
  // lhs's minor dimension free. Left to itself ptxas gave it 128 registers and 16 bytes of
  // spills; the entry's .maxnreg 255 lets it take 164.
  auto gradient = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[2,512,512] parameter(0)
  b = f32[2,512,2048] parameter(1)
  ROOT d = f32[512,2048] dot(a, b), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}
})");
  ASSERT_TRUE(gradient.ok()) << gradient.status().message();
  auto optimized = passes::OptimizeForBackend(**gradient, true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  GpuCompileOptions options;
  options.allow_tf32 = true;
  auto code = CompileForGpu(**optimized, options);
  ASSERT_TRUE(code.ok()) << code.status().message();
  EXPECT_THAT((*code)->ptx(), HasSubstr(".maxnreg 255"));
  if (have_ptxas) {
    auto assembled = AssemblePtx((*code)->ptx(), "sm_90");
    ASSERT_TRUE(assembled.ok()) << assembled.status().message();
    ASSERT_EQ(assembled->kernels.size(), 1u);
    EXPECT_EQ(assembled->kernels[0].spill_store_bytes, 0) << assembled->kernels[0].registers << " registers";
  }
  if (!have_ptxas) GTEST_SKIP() << "PTX checked; not assembled: " << FindPtxas().status().message();
}

// A gemm library call small enough for its own overhead to show gets Fusebox's tensor-core
// kernel beside it, for the runtime to time (GpuCode::GemmKernelFor); run in the emulator
// it equals the interpreter on whole numbers. A large one, or a checked run's (no TF32),
// keeps the library alone.
TEST(GpuMmaDotTest, SmallGemmCallsGetATensorCoreKernel) {
  auto module = ParseModule(kCases[0]);
  ASSERT_TRUE(module.ok()) << module.status().message();
  GpuCompileOptions options;
  options.allow_tf32 = true;
  options.gemm_kernels = true;
  Emulated run = Emulate(**module, options, /*gpu_libraries=*/true);
  ASSERT_NE(run.emulator, nullptr);
  EXPECT_THAT(run.kinds, ::testing::Contains("dot(tensor core)"));
  std::vector<Literal> args = IntegerArguments(**module, 7);
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto actual = run.emulator->Run(args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  ExpectBitEqual(*actual, *expected);
  {
    // A long contraction: the call's own kernel splits k (19 slices, 4 parts) and takes the
    // run's scratch after the call's buffers.
    auto long_k = ParseModule(testing_util::DenseReluHlo(40, 600, 56));
    ASSERT_TRUE(long_k.ok()) << long_k.status().message();
    Emulated split = Emulate(**long_k, options, /*gpu_libraries=*/true);
    ASSERT_NE(split.emulator, nullptr);
    const std::vector<const GpuKernel*> own = split.emulator->code().GemmKernels();
    ASSERT_EQ(own.size(), 1u);
    EXPECT_EQ(own[0]->kind_name, "dot(tensor core)");
    EXPECT_EQ(own[0]->launches[0].grid[2], 4);
    EXPECT_GT(own[0]->scratch_bytes, 0);
    std::vector<Literal> long_args = IntegerArguments(**long_k, 8);
    auto long_expected = interpreter::Interpreter().Run(**long_k, long_args);
    ASSERT_TRUE(long_expected.ok()) << long_expected.status().message();
    auto long_actual = split.emulator->Run(long_args);
    ASSERT_TRUE(long_actual.ok()) << long_actual.status().message();
    ExpectBitEqual(*long_actual, *long_expected);
  }
  options.allow_tf32 = false;
  Emulated checked = Emulate(**module, options, /*gpu_libraries=*/true);
  ASSERT_NE(checked.emulator, nullptr);
  EXPECT_THAT(checked.kinds, ::testing::Not(::testing::Contains("dot(tensor core)")));
  EXPECT_TRUE(checked.emulator->code().GemmKernels().empty());
  auto large = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[1024,1024] parameter(0)
  b = f32[1024,1024] parameter(1)
  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  ASSERT_TRUE(large.ok()) << large.status().message();
  auto optimized = passes::OptimizeForBackend(**large, true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  options.allow_tf32 = true;
  auto code = CompileForGpu(**optimized, options);
  ASSERT_TRUE(code.ok()) << code.status().message();
  EXPECT_TRUE((*code)->GemmKernels().empty()) << "2 GFLOP is the library's";
}

}  // namespace
}  // namespace fusebox::codegen
