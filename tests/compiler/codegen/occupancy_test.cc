// Occupancy tuning (codegen/occupancy.h): CUDA's occupancy arithmetic, which kernels are
// asked for more blocks an SM, the PTX directive, the verdicts, the probe sequence with a
// fake probe, and (where the CUDA toolkit's ptxas is installed) real kernels: the layer
// norm ptxas gives 80 registers fits in 64 when asked, a softmax backward that would spill
// keeps ptxas's own choice.
#include "compiler/codegen/occupancy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "compiler/codegen/ptx_tools.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"

namespace fusebox::codegen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(OccupancyTest, BlocksPerSmFollowsRegistersThreadsAndSharedMemory) {
  const SmLimits h100 = SmLimitsForArch("sm_90");
  EXPECT_EQ(h100.multiprocessors, 132);
  EXPECT_EQ(SmLimitsForArch("sm_90a", 114).multiprocessors, 114);
  EXPECT_EQ(SmLimitsForArch("sm_80").multiprocessors, 108);
  // 256 threads: registers are given per warp in units of 256 (78 -> 80 a thread).
  EXPECT_EQ(BlocksPerSm(h100, 256, 80, 0), 3);
  EXPECT_EQ(BlocksPerSm(h100, 256, 78, 0), 3);
  EXPECT_EQ(BlocksPerSm(h100, 256, 64, 0), 4);
  EXPECT_EQ(BlocksPerSm(h100, 256, 63, 0), 4);
  EXPECT_EQ(BlocksPerSm(h100, 256, 48, 0), 5);
  EXPECT_EQ(BlocksPerSm(h100, 256, 32, 0), 8);
  EXPECT_EQ(BlocksPerSm(h100, 256, 16, 0), 8);  // 2048 threads an SM
  EXPECT_EQ(BlocksPerSm(h100, 1024, 32, 0), 2);
  EXPECT_EQ(BlocksPerSm(h100, 64, 16, 0), 32);  // 32 blocks an SM
  // Shared memory: 100 KiB a block (and the driver's 1 KiB) leaves room for two.
  EXPECT_EQ(BlocksPerSm(h100, 256, 32, 100 * 1024), 2);
  EXPECT_EQ(BlocksPerSm(h100, 256, 256, 0), 0);
  EXPECT_EQ(BlocksPerSm(h100, 4096, 32, 0), 0);
  // An RTX 4090-class SM holds 1536 threads.
  EXPECT_EQ(BlocksPerSm(SmLimitsForArch("sm_89"), 256, 32, 0), 6);

  EXPECT_EQ(RegistersForBlocks(h100, 256, 3), 80);
  EXPECT_EQ(RegistersForBlocks(h100, 256, 4), 64);
  EXPECT_EQ(RegistersForBlocks(h100, 256, 5), 48);
  EXPECT_EQ(RegistersForBlocks(h100, 256, 8), 32);
  EXPECT_EQ(RegistersForBlocks(h100, 128, 1), 255 / 8 * 8);
  for (int64_t blocks = 1; blocks <= 8; ++blocks) {
    EXPECT_GE(BlocksPerSm(h100, 256, RegistersForBlocks(h100, 256, blocks), 0), blocks) << blocks;
  }
}

GpuLaunch Launch(const std::string& function, int64_t blocks, int64_t threads = 256, int64_t shared = 0) {
  GpuLaunch launch;
  launch.function = function;
  launch.grid = {blocks, 1, 1};
  launch.block = {threads, 1, 1};
  launch.shared_bytes = shared;
  return launch;
}

TEST(OccupancyTest, OnlyKernelsThatWouldSaveAWaveAreAsked) {
  const SmLimits sm = SmLimitsForArch("sm_90");  // 132 SMs
  const std::vector<GpuLaunch> launches = {
      Launch("layer_norm", 512),         // 80 registers: 3 an SM, 396 at once: 2 waves; 4 an SM: 1
      Launch("fits", 396),               // 80 registers, but 396 blocks already run at once
      Launch("many_waves", 16384),       // 80 registers: 42 waves, left alone
      Launch("deep_cut", 1024),          // 60 registers: one wave needs 8 an SM (32 registers)
      Launch("attention", 1024),         // 48 registers: 5 an SM, 2 waves; 8 an SM (32): 1
      Launch("shared_bound", 512, 256, 100 * 1024),  // shared memory, not registers, limits it
      Launch("two_launches", 100), Launch("two_launches", 700),  // the larger launch counts
      Launch("unknown", 4096),           // no resources known
  };
  const std::vector<KernelResources> resources = {
      {"layer_norm", 80, 0, 0}, {"fits", 80, 0, 0},         {"many_waves", 80, 0, 0},
      {"deep_cut", 60, 0, 0},   {"attention", 48, 0, 0},    {"shared_bound", 80, 0, 0},
      {"two_launches", 60, 0, 0},
  };
  const std::vector<OccupancyRequest> requests = PlanOccupancy(launches, resources, sm);
  std::map<std::string, OccupancyRequest> by_name;
  for (const OccupancyRequest& r : requests) by_name[r.function] = r;
  EXPECT_EQ(by_name.size(), 3u) << ::testing::PrintToString(requests.size());
  ASSERT_TRUE(by_name.count("layer_norm"));
  const OccupancyRequest& ln = by_name["layer_norm"];
  EXPECT_EQ(ln.blocks_per_sm_before, 3);
  EXPECT_EQ(ln.waves_before, 2);
  EXPECT_EQ(ln.blocks_per_sm, 4);
  EXPECT_EQ(ln.waves, 1);
  EXPECT_EQ(ln.register_limit, 64);
  EXPECT_EQ(ln.grid_blocks, 512);
  ASSERT_TRUE(by_name.count("attention"));
  EXPECT_EQ(by_name["attention"].blocks_per_sm, 8);
  EXPECT_EQ(by_name["attention"].register_limit, 32);
  ASSERT_TRUE(by_name.count("two_launches"));
  EXPECT_EQ(by_name["two_launches"].grid_blocks, 700);
  EXPECT_EQ(by_name["two_launches"].blocks_per_sm, 6);  // 60 registers: 4 an SM; 700 blocks need 6 (40 registers)
  EXPECT_EQ(by_name["two_launches"].register_limit, 40);

  // With twice the SMs the layer norm already runs at once.
  EXPECT_TRUE(PlanOccupancy({Launch("layer_norm", 512)}, resources, SmLimitsForArch("sm_90", 264)).empty());
}

constexpr char kTwoEntries[] = R"(.version 7.8
.target sm_90
.address_size 64

.visible .entry first(
	.param .u64 first_param_0
)
.maxntid 256, 1, 1
{
	ret;
}

.visible .entry second(
	.param .u64 second_param_0
)
.maxntid 256, 1, 1
{
	ret;
}

.visible .entry bare(
	.param .u64 bare_param_0
)
{
	ret;
}
)";

TEST(OccupancyTest, TheDirectiveFollowsTheRequestedEntrysMaxntid) {
  OccupancyRequest second;
  second.function = "second";
  second.blocks_per_sm = 4;
  OccupancyRequest bare = second;
  bare.function = "bare";
  OccupancyRequest missing = second;
  missing.function = "missing";
  const std::string ptx = WithMinBlocksPerSm(kTwoEntries, {second, bare, missing});
  EXPECT_THAT(ptx, HasSubstr(".entry second(\n\t.param .u64 second_param_0\n)\n.maxntid 256, 1, 1\n.minnctapersm 4\n{"));
  EXPECT_THAT(ptx, HasSubstr(".entry first(\n\t.param .u64 first_param_0\n)\n.maxntid 256, 1, 1\n{"));
  EXPECT_THAT(ptx, HasSubstr(".entry bare(\n\t.param .u64 bare_param_0\n)\n{"));
  EXPECT_EQ(ptx.size(), std::string(kTwoEntries).size() + std::string(".minnctapersm 4\n").size());
}

OccupancyRequest Request(const std::string& function, int64_t before, int64_t blocks) {
  const SmLimits sm = SmLimitsForArch("sm_90");
  OccupancyRequest r;
  r.function = function;
  r.threads = 256;
  r.grid_blocks = 512;
  r.blocks_per_sm_before = before;
  r.registers_before = RegistersForBlocks(sm, 256, before);
  r.waves_before = 2;
  r.blocks_per_sm = blocks;
  r.waves = 1;
  r.register_limit = RegistersForBlocks(sm, 256, blocks);
  return r;
}

TEST(OccupancyTest, ARequestIsKeptOnlyWithoutNewLocalMemoryAndWithinItsRegisters) {
  const SmLimits sm = SmLimitsForArch("sm_90");
  const std::vector<OccupancyRequest> requests = {Request("kept", 3, 4), Request("spilled", 3, 4),
                                                  Request("over", 3, 4), Request("gone", 3, 4)};
  const std::vector<KernelResources> before = {
      {"kept", 80, 0, 0}, {"spilled", 80, 0, 0}, {"over", 80, 0, 16}, {"gone", 80, 0, 0}};
  const std::vector<KernelResources> after = {{"kept", 64, 0, 0}, {"spilled", 64, 0, 56}, {"over", 72, 0, 16}};
  const std::vector<OccupancyVerdict> verdicts = JudgeOccupancy(requests, before, after, sm);
  ASSERT_EQ(verdicts.size(), 4u);
  EXPECT_TRUE(verdicts[0].kept);
  EXPECT_EQ(verdicts[0].ToString(),
            "kept: 4 blocks an SM asked for (512 blocks of 256, 3 an SM with 80 registers): 64 registers, 1 wave "
            "instead of 2");
  EXPECT_FALSE(verdicts[1].kept);
  EXPECT_THAT(verdicts[1].ToString(), HasSubstr("not kept: 64 registers and 56 bytes of local memory a thread"));
  EXPECT_FALSE(verdicts[2].kept);
  EXPECT_THAT(verdicts[2].ToString(), HasSubstr("not kept: ptxas used 72 registers (at most 64 fit)"));
  EXPECT_FALSE(verdicts[3].kept);
}

// A probe that answers from a table by which entries carry the directive, and counts.
struct FakeProbe {
  std::map<std::string, KernelResources> plain, asked;
  std::vector<std::string> probed;
  StatusOr<std::vector<KernelResources>> operator()(const std::string& ptx) {
    probed.push_back(ptx);
    std::vector<KernelResources> out;
    for (const auto& [name, resources] : plain) {
      const size_t entry = ptx.find(".entry " + name + "(");
      const size_t body = ptx.find('{', entry);
      const bool with = ptx.substr(entry, body - entry).find(".minnctapersm") != std::string::npos;
      out.push_back(with ? asked.at(name) : resources);
    }
    return out;
  }
};

TEST(OccupancyTest, TuningProbesOnceTwiceOrThreeTimes) {
  const SmLimits sm = SmLimitsForArch("sm_90");
  const std::vector<GpuLaunch> launches = {Launch("first", 512), Launch("second", 512)};
  auto tune = [&](FakeProbe& fake) {
    return TuneOccupancy(kTwoEntries, launches, sm, [&](const std::string& ptx) { return fake(ptx); });
  };
  {  // Nothing worth asking: one probe, the PTX as it was.
    FakeProbe fake;
    fake.plain = {{"first", {"first", 64, 0, 0}}, {"second", {"second", 40, 0, 0}}};
    auto tuned = tune(fake);
    ASSERT_TRUE(tuned.ok()) << tuned.status().message();
    EXPECT_EQ(fake.probed.size(), 1u);
    EXPECT_EQ(tuned->ptx, kTwoEntries);
    EXPECT_TRUE(tuned->verdicts.empty());
  }
  {  // Both kept: two probes, the second's PTX.
    FakeProbe fake;
    fake.plain = {{"first", {"first", 80, 0, 0}}, {"second", {"second", 72, 0, 0}}};
    fake.asked = {{"first", {"first", 64, 0, 0}}, {"second", {"second", 64, 0, 0}}};
    auto tuned = tune(fake);
    ASSERT_TRUE(tuned.ok());
    ASSERT_EQ(fake.probed.size(), 2u);
    EXPECT_EQ(tuned->ptx, fake.probed[1]);
    EXPECT_EQ(tuned->verdicts.size(), 2u);
  }
  {  // One spills: a third probe with the other alone, and that PTX.
    FakeProbe fake;
    fake.plain = {{"first", {"first", 80, 0, 0}}, {"second", {"second", 72, 0, 0}}};
    fake.asked = {{"first", {"first", 64, 0, 0}}, {"second", {"second", 64, 0, 24}}};
    auto tuned = tune(fake);
    ASSERT_TRUE(tuned.ok());
    ASSERT_EQ(fake.probed.size(), 3u);
    EXPECT_EQ(tuned->ptx, fake.probed[2]);
    EXPECT_EQ(tuned->ptx, WithMinBlocksPerSm(kTwoEntries, {tuned->verdicts[0].request}));
    EXPECT_TRUE(tuned->verdicts[0].kept);
    EXPECT_FALSE(tuned->verdicts[1].kept);
  }
  {  // Both spill: the first PTX, two probes.
    FakeProbe fake;
    fake.plain = {{"first", {"first", 80, 0, 0}}, {"second", {"second", 72, 0, 0}}};
    fake.asked = {{"first", {"first", 64, 0, 8}}, {"second", {"second", 64, 0, 24}}};
    auto tuned = tune(fake);
    ASSERT_TRUE(tuned.ok());
    EXPECT_EQ(fake.probed.size(), 2u);
    EXPECT_EQ(tuned->ptx, kTwoEntries);
  }
  {  // A later probe's failure leaves the PTX as it was, with a note.
    FakeProbe fake;
    fake.plain = {{"first", {"first", 80, 0, 0}}, {"second", {"second", 72, 0, 0}}};
    int calls = 0;
    auto tuned = TuneOccupancy(kTwoEntries, launches, sm, [&](const std::string& ptx) -> StatusOr<std::vector<KernelResources>> {
      if (++calls == 2) return InvalidArgument("ptxas <ptx>, line 9; error   : unknown directive");
      return fake(ptx);
    });
    ASSERT_TRUE(tuned.ok()) << tuned.status().message();
    EXPECT_EQ(tuned->ptx, kTwoEntries);
    EXPECT_TRUE(tuned->verdicts.empty());
    EXPECT_EQ(tuned->note, "occupancy requests for 2 kernel(s) not made: ptxas <ptx>, line 9; error   : unknown directive");
  }
  {  // A probe's error is the tuning's.
    auto tuned = TuneOccupancy(kTwoEntries, launches, sm, [](const std::string&) -> StatusOr<std::vector<KernelResources>> {
      return Unavailable("no ptxas");
    });
    ASSERT_FALSE(tuned.ok());
    EXPECT_THAT(tuned.status().message(), HasSubstr("no ptxas"));
  }
}

// Real kernels through the toolkit's ptxas.
constexpr char kReducers[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

// jax's layer norm of 4096 rows of 1024 with a scale and an offset.
constexpr char kLayerNorm[] = R"(
ENTRY e {
  x = f32[4096,1024] parameter(0)
  zero = f32[] constant(0)
  n = f32[] constant(1024)
  nb = f32[4096] broadcast(n), dimensions={}
  eps = f32[] constant(1e-5)
  epsb = f32[4096] broadcast(eps), dimensions={}
  s1 = f32[4096] reduce(x, zero), dimensions={1}, to_apply=add
  mean = f32[4096] divide(s1, nb)
  mb = f32[4096,1024] broadcast(mean), dimensions={0}
  c = f32[4096,1024] subtract(x, mb)
  sq = f32[4096,1024] multiply(c, c)
  s2 = f32[4096] reduce(sq, zero), dimensions={1}, to_apply=add
  var = f32[4096] divide(s2, nb)
  ve = f32[4096] add(var, epsb)
  r = f32[4096] rsqrt(ve)
  rb = f32[4096,1024] broadcast(r), dimensions={0}
  y = f32[4096,1024] multiply(c, rb)
  g = f32[1024] parameter(1)
  gb = f32[4096,1024] broadcast(g), dimensions={1}
  yg = f32[4096,1024] multiply(y, gb)
  b = f32[1024] parameter(2)
  bb = f32[4096,1024] broadcast(b), dimensions={1}
  ROOT o = f32[4096,1024] add(yg, bb)
}
)";

// A softmax's backward: y * (g - sum(g * y)) over rows of 1024.
constexpr char kSoftmaxBackward[] = R"(
ENTRY e {
  y = f32[4096,1024] parameter(0)
  g = f32[4096,1024] parameter(1)
  gy = f32[4096,1024] multiply(g, y)
  z = f32[] constant(0)
  s = f32[4096] reduce(gy, z), dimensions={1}, to_apply=add
  sb = f32[4096,1024] broadcast(s), dimensions={0}
  d = f32[4096,1024] subtract(g, sb)
  ROOT o = f32[4096,1024] multiply(y, d)
}
)";

struct Assembled {
  std::unique_ptr<GpuCode> code;
  StatusOr<TunedPtx> tuned = Internal("not run");
  std::map<std::string, std::vector<KernelResources>> probes;
};

void TuneWithPtxas(const std::string& entry, Assembled* out) {
  auto module = ParseModule(std::string(kReducers) + entry);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  auto code = CompileForGpu(**optimized);
  ASSERT_TRUE(code.ok()) << code.status().message();
  out->code = std::move(*code);
  ASSERT_EQ(out->code->kernels().size(), 1u);
  EXPECT_EQ(out->code->kernels()[0]->kind_name, "reduction(row kernel)");
  const std::string arch = out->code->arch();
  out->tuned = TuneOccupancy(out->code->ptx(), AllLaunches(*out->code), SmLimitsForArch(arch),
                             [&](const std::string& ptx) -> StatusOr<std::vector<KernelResources>> {
                               PtxasOptions options;
                               options.threads = 1;
                               ASSIGN_OR_RETURN(PtxasResult assembled, AssemblePtx(ptx, arch, options));
                               std::vector<KernelResources> resources;
                               for (const PtxasKernelInfo& k : assembled.kernels) {
                                 resources.push_back({k.name, k.registers, k.shared_bytes, k.stack_frame_bytes});
                               }
                               out->probes[ptx] = resources;
                               return resources;
                             });
}

TEST(OccupancyTest, PtxasFitsTheLayerNormInOneWave) {
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  Assembled a;
  TuneWithPtxas(kLayerNorm, &a);
  ASSERT_TRUE(a.tuned.ok()) << a.tuned.status().message();
  // Left alone, ptxas gives it more than 64 registers: 3 blocks of 256 an SM, 396 of the
  // 512 at once on 132 SMs.
  const std::vector<KernelResources>& plain = a.probes.at(a.code->ptx());
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_GT(plain[0].registers, 64);
  ASSERT_EQ(a.tuned->verdicts.size(), 1u);
  const OccupancyVerdict& v = a.tuned->verdicts[0];
  EXPECT_TRUE(v.kept) << v.ToString();
  EXPECT_EQ(v.request.blocks_per_sm, 4);
  EXPECT_LE(v.registers_after, 64);
  EXPECT_EQ(v.local_bytes_after, 0);
  EXPECT_THAT(v.ToString(), HasSubstr("1 wave instead of 2"));
  EXPECT_THAT(a.tuned->ptx, HasSubstr(".minnctapersm 4"));
  EXPECT_EQ(a.probes.size(), 2u);
}

TEST(OccupancyTest, ARequestThatSpillsIsNotKept) {
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  Assembled a;
  TuneWithPtxas(kSoftmaxBackward, &a);
  ASSERT_TRUE(a.tuned.ok()) << a.tuned.status().message();
  ASSERT_EQ(a.tuned->verdicts.size(), 1u);
  const OccupancyVerdict& v = a.tuned->verdicts[0];
  EXPECT_FALSE(v.kept) << v.ToString();
  EXPECT_GT(v.local_bytes_after, v.local_bytes_before) << v.ToString();
  EXPECT_THAT(v.ToString(), HasSubstr("not kept"));
  EXPECT_EQ(a.tuned->ptx, a.code->ptx());
  EXPECT_THAT(a.tuned->ptx, Not(HasSubstr(".minnctapersm")));
}

// The layer norm compiled with its other shapes (kernel_variants: 64, 128 and 256
// threads a row beside a warp a row): every shape is an entry of its own in the PTX
// (PtxEntryText finds each, and only it), ptxas assembles all of them without spilling,
// and the occupancy tuner weighs each shape's grid (a 256-thread row takes a block: 4096
// blocks, 32 waves, not asked).
TEST(OccupancyTest, RowKernelShapesAreEntriesOfTheirOwn) {
  auto module = ParseModule(std::string(kReducers) + kLayerNorm);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto optimized = passes::OptimizeForBackend(**module, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  GpuCompileOptions options;
  options.kernel_variants = true;
  auto code = CompileForGpu(**optimized, options);
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  const GpuKernel& kernel = *(*code)->kernels()[0];
  ASSERT_EQ(kernel.variants.size(), 3u);
  EXPECT_EQ(kernel.label, "a warp a row");
  std::vector<std::string> entries;
  for (const GpuLaunch* launch : kernel.EveryLaunch()) entries.push_back(launch->function);
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[1], entries[0] + "_t64");
  EXPECT_EQ(kernel.variants[2].launches[0].grid[0], 4096);
  EXPECT_EQ(AllLaunches(**code).size(), 4u);
  for (const std::string& entry : entries) {
    const std::string_view text = PtxEntryText((*code)->ptx(), entry);
    EXPECT_THAT(std::string(text), HasSubstr(".entry " + entry + "("));
    EXPECT_EQ(text.substr(text.size() - 1), "}");
    for (const std::string& other : entries) {
      if (other != entry) {
        EXPECT_THAT(std::string(text), Not(HasSubstr(".entry " + other + "("))) << entry;
      }
    }
  }
  EXPECT_TRUE(PtxEntryText((*code)->ptx(), entries[0] + "_t32").empty());
  if (!FindPtxas().ok()) GTEST_SKIP() << FindPtxas().status().message();
  PtxasOptions ptxas;
  ptxas.threads = 1;
  auto assembled = AssemblePtx((*code)->ptx(), (*code)->arch(), ptxas);
  ASSERT_TRUE(assembled.ok()) << assembled.status().message();
  std::vector<std::string> seen;
  for (const PtxasKernelInfo& k : assembled->kernels) {
    seen.push_back(k.name);
    EXPECT_EQ(k.spill_store_bytes, 0) << k.name;
  }
  EXPECT_THAT(seen, ::testing::UnorderedElementsAreArray(entries));
}

}  // namespace
}  // namespace fusebox::codegen
