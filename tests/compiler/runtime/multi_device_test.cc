// The multi-device runtime: per-device programs on N threads with collectives exchanged
// in the process, global arguments split and results assembled by the shardings; XLA's
// own partitioned modules (tests/data/multidevice) must reproduce XLA's outputs.
#include "compiler/runtime/multi_device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "importers/argument_files.h"

namespace fusebox {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

Literal F32(std::vector<int64_t> dims, const std::vector<double>& values) {
  Literal l(Shape(PrimitiveType::kF32, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) l.SetDouble(static_cast<int64_t>(i), values[i]);
  return l;
}

std::vector<double> Values(const Literal& l) {
  std::vector<double> v;
  for (int64_t i = 0; i < l.element_count(); ++i) v.push_back(l.GetDouble(i));
  return v;
}

std::vector<double> Iota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

constexpr char kAllReduce[] = R"(HloModule ar, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[2,3] parameter(0), sharding={devices=[4,1]<=[4]}
  ar = f32[2,3] all-reduce(p), channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=add
  ROOT r = f32[2,3] negate(ar), sharding={replicated}
})";

TEST(MultiDeviceTest, AllReduceSumsTheTilesOfEveryDevice) {
  auto m = Parse(kAllReduce);
  ASSERT_TRUE(m);
  EXPECT_EQ(DevicesOfModule(*m), 4);
  EXPECT_TRUE(IsPerDeviceProgram(*m));
  Literal x = F32({8, 3}, Iota(24));  // global: 4 tiles of [2,3]
  auto r = runtime::RunGlobal(*m, {x}, 4);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // Element (i,j) sums x[i+2k, j] over k = 0..3.
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += (i + 2 * k) * 3 + j;
      want.push_back(-s);
    }
  EXPECT_EQ(Values(*r), want);
  EXPECT_EQ(r->shape().dimensions(), (std::vector<int64_t>{2, 3}));
}

TEST(MultiDeviceTest, OneDeviceRefusesAGroupOfFour) {
  auto m = Parse(kAllReduce);
  ASSERT_TRUE(m);
  auto r = runtime::RunGlobal(*m, {F32({2, 3}, Iota(6))}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("needs 4 devices"), std::string::npos) << r.status().message();
}

TEST(MultiDeviceTest, PerDeviceShapedInputIsRefusedWithAHint) {
  auto m = Parse(kAllReduce);
  ASSERT_TRUE(m);
  auto r = runtime::RunGlobal(*m, {F32({2, 3}, Iota(6))}, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("per-device shape"), std::string::npos) << r.status().message();
}

TEST(MultiDeviceTest, GatherScatterAllToAllAndPermute) {
  auto m = Parse(R"(HloModule c, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[1,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ag = f32[4,4] all-gather(p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  rs = f32[1,4] reduce-scatter(ag), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true, to_apply=add
  a2a = f32[1,4] all-to-all(p), channel_id=3, replica_groups={{0,1,2,3}}, dimensions={1}
  cp = f32[1,4] collective-permute(p), channel_id=4, source_target_pairs={{0,1},{1,2},{2,3}}
  ROOT t = (f32[4,4], f32[1,4], f32[1,4], f32[1,4]) tuple(ag, rs, a2a, cp), sharding={{replicated}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
})");
  ASSERT_TRUE(m);
  Literal x = F32({4, 4}, Iota(16));
  auto r = runtime::RunGlobal(*m, {x}, 4);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tuple_elements().size(), 4u);
  EXPECT_EQ(Values(r->tuple_elements()[0]), Iota(16));  // everyone gathers the whole x
  // reduce-scatter of 4 identical gathers: device d gets 4 * row d.
  std::vector<double> rs;
  for (double v : Iota(16)) rs.push_back(4 * v);
  EXPECT_EQ(Values(r->tuple_elements()[1]), rs);
  // all-to-all along dim 1: device d's row becomes column block d of every row: the
  // global result is x transposed.
  std::vector<double> a2a;
  for (int d = 0; d < 4; ++d)
    for (int k = 0; k < 4; ++k) a2a.push_back(k * 4 + d);
  EXPECT_EQ(Values(r->tuple_elements()[2]), a2a);
  // permute: row d moves to d+1; device 0 receives nothing (zeros).
  std::vector<double> cp = {0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(Values(r->tuple_elements()[3]), cp);
}

TEST(MultiDeviceTest, ADeviceThatSkipsACollectiveIsAnErrorNotAHang) {
  // Device 0 takes the branch without the all-reduce: the others cannot complete theirs.
  auto m = Parse(R"(HloModule skip, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
with_ar {
  x = f32[2] parameter(0)
  ROOT ar = f32[2] all-reduce(x), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
}
without {
  ROOT y = f32[2] parameter(0)
}
ENTRY e {
  p = f32[2] parameter(0), sharding={replicated}
  id = u32[] partition-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT c = f32[2] conditional(first, p, p), true_computation=without, false_computation=with_ar, sharding={replicated}
})");
  ASSERT_TRUE(m);
  auto r = runtime::RunGlobal(*m, {F32({2}, {1, 2})}, 2);
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_NE(msg.find("cannot complete"), std::string::npos) << msg;
  EXPECT_NE(msg.find("device 0 finished without reaching it"), std::string::npos) << msg;
}

TEST(MultiDeviceTest, ReplicatedOutputsThatDisagreeAreReported) {
  auto m = Parse(R"(HloModule d, num_partitions=2
ENTRY e {
  id = u32[] partition-id()
  ROOT f = f32[] convert(id), sharding={replicated}
})");
  ASSERT_TRUE(m);
  runtime::MultiDeviceOptions options;
  options.devices = 2;
  auto r = runtime::RunOnDevices(*m, {}, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->disagreements.size(), 1u);
  EXPECT_NE(r->disagreements[0].find("devices 0 and 1 hold different values"), std::string::npos);
}

TEST(MultiDeviceTest, AsyncFormsOnTheInterpreterAndTheCpu) {
  // all-reduce-start/done, all-gather-start/done and collective-permute-start/done give
  // what their synchronous forms give, on both runtimes.
  auto m = Parse(R"(HloModule async, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[1,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ars = f32[1,4] all-reduce-start(p), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
  ard = f32[1,4] all-reduce-done(ars)
  ags = (f32[1,4], f32[4,4]) all-gather-start(p), channel_id=2, replica_groups={{0,1,2,3}}, dimensions={0}, use_global_device_ids=true
  agd = f32[4,4] all-gather-done(ags)
  cps = (f32[1,4], f32[1,4], u32[], u32[]) collective-permute-start(p), channel_id=3, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  cpd = f32[1,4] collective-permute-done(cps)
  ROOT t = (f32[1,4], f32[4,4], f32[1,4]) tuple(ard, agd, cpd), sharding={{replicated}, {replicated}, {devices=[4,1]<=[4]}}
})");
  ASSERT_TRUE(m);
  Literal x = F32({4, 4}, Iota(16));
  std::vector<double> sum = {24, 28, 32, 36};  // column sums of x
  std::vector<double> shifted = {12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};  // row d from d-1
  auto check = [&](const Literal& r, const std::string& how) {
    ASSERT_EQ(r.tuple_elements().size(), 3u) << how;
    EXPECT_EQ(Values(r.tuple_elements()[0]), sum) << how;
    EXPECT_EQ(Values(r.tuple_elements()[1]), Iota(16)) << how;
    EXPECT_EQ(Values(r.tuple_elements()[2]), shifted) << how;
  };
  auto interpreted = runtime::RunGlobal(*m, {x}, 4);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  check(*interpreted, "interpreter");
  runtime::CpuExecutableOptions eo;
  eo.threads = 1;
  eo.devices = 4;
  auto exe = runtime::CpuExecutable::Create(m->Clone(), eo);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  runtime::MultiDeviceOptions options;
  options.backend = runtime::DeviceBackend::kCpu;
  options.cpu = exe->get();
  auto compiled = runtime::RunOnDevices((*exe)->module(), {x}, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  check(compiled->global, "cpu");
}

TEST(MultiDeviceTest, ReplicasAndPartitionsTogether) {
  // 2 replicas x 2 partitions: device = replica * 2 + partition. A cross-replica all-reduce
  // (no channel_id) sums over the replicas of each partition: {0,2} and {1,3}.
  auto m = Parse(R"(HloModule rp, replica_count=2, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  r = u32[] replica-id()
  p = u32[] partition-id()
  ten = u32[] constant(10)
  r10 = u32[] multiply(r, ten)
  id = u32[] add(r10, p)
  f = f32[] convert(id)
  v = f32[1] broadcast(f), dimensions={}
  ROOT ar = f32[1] all-reduce(v), replica_groups={{0,1}}, to_apply=add, sharding={devices=[2,2]0,2,1,3 last_tile_dim_replicate}
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(DevicesOfModule(*m), 4);
  auto r = runtime::RunGlobal(*m, {}, 4);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Values(*r), (std::vector<double>{10, 12}));  // partition p: p + (10 + p)
}

// --- XLA's own partitioned modules against XLA's outputs --------------------------------

std::string DataDir(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/" + program;
}

struct Program {
  std::unique_ptr<Module> module;
  runtime::GlobalOutputs outputs;  // from XLA's dump before spmd-partitioning
  bool has_outputs = false;
  std::vector<Literal> inputs;
  std::vector<Literal> expected;
};

Program Load(const std::string& program, const std::string& file) {
  Program p;
  auto parsed = ParseFile(DataDir(program) + "/" + file);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return p;
  p.module = std::move(parsed->modules[0]);
  auto members = importers::ReadNpz(DataDir(program) + "/inputs.npz");
  EXPECT_TRUE(members.ok()) << members.status().message();
  if (!members.ok()) return p;
  // Members are arr_0, arr_1, ... in parameter order.
  for (size_t i = 0; i < members->size(); ++i) {
    for (const importers::NpzMember& m : *members) {
      if (m.name != "arr_" + std::to_string(i)) continue;
      auto l = interpreter::ParseNpy(m.bytes, m.name);
      EXPECT_TRUE(l.ok()) << l.status().message();
      if (l.ok()) p.inputs.push_back(std::move(*l));
    }
  }
  // XLA's optimized text loses the output shardings; its dump before spmd-partitioning
  // has them on the root.
  for (const auto& entry : std::filesystem::directory_iterator(DataDir(program) + "/xla_dump")) {
    if (entry.path().string().find("before_spmd-partitioning") == std::string::npos) continue;
    auto before = ParseFile(entry.path().string());
    EXPECT_TRUE(before.ok()) << before.status().message();
    if (!before.ok()) continue;
    // A root without a sharding (all outputs replicated) leaves the root's own.
    auto outputs = runtime::GlobalOutputsOf(*before->modules[0]);
    if (outputs.ok()) p.outputs = *outputs;
    p.has_outputs = outputs.ok();
  }
  for (int i = 0;; ++i) {
    std::string path = DataDir(program) + "/expected" + std::to_string(i) + ".npy";
    if (!std::ifstream(path).good()) break;
    auto l = interpreter::ReadNpy(path);
    EXPECT_TRUE(l.ok()) << l.status().message();
    if (l.ok()) p.expected.push_back(std::move(*l));
  }
  return p;
}

// Float outputs within 1e-5 relative (+1e-6 absolute) of XLA's: both sides sum f32 in
// possibly different orders; anything larger is a wrong exchange, not rounding.
void ExpectMatchesXla(const Literal& got, const std::vector<Literal>& expected, const std::string& what) {
  std::vector<const Literal*> outs;
  if (got.shape().IsTuple()) {
    for (const Literal& e : got.tuple_elements()) outs.push_back(&e);
  } else {
    outs.push_back(&got);
  }
  ASSERT_EQ(outs.size(), expected.size()) << what;
  for (size_t i = 0; i < outs.size(); ++i) {
    ASSERT_EQ(outs[i]->shape().dimensions(), expected[i].shape().dimensions()) << what << " output " << i;
    double worst = 0;
    for (int64_t k = 0; k < expected[i].element_count(); ++k) {
      double a = outs[i]->GetDouble(k), b = expected[i].GetDouble(k);
      ASSERT_TRUE(std::isfinite(b)) << what << ": XLA's output " << i << " is not finite";
      worst = std::max(worst, std::fabs(a - b) / (1e-6 + 1e-5 * std::fabs(b)));
    }
    EXPECT_LE(worst, 1.0) << what << " output " << i << ": off by " << worst << " tolerances";
  }
}

class XlaPartitionedTest : public ::testing::TestWithParam<std::string> {};

TEST_P(XlaPartitionedTest, InterpreterMatchesXla) {
  Program p = Load(GetParam(), "partitioned.hlo");
  ASSERT_TRUE(p.module);
  EXPECT_TRUE(IsPerDeviceProgram(*p.module));
  runtime::MultiDeviceOptions options;
  if (p.has_outputs) {
    if (p.has_outputs) {
      options.root_sharding = &p.outputs.sharding;
      options.global_result_shape = &p.outputs.shape;
    }
  }
  auto r = runtime::RunOnDevices(*p.module, p.inputs, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->disagreements.empty()) << r->disagreements[0];
  EXPECT_FALSE(r->collectives.empty());
  ExpectMatchesXla(r->global, p.expected, GetParam() + " (interpreter)");
}

TEST_P(XlaPartitionedTest, CpuBackendMatchesXlaFusedAndUnfused) {
  Program p = Load(GetParam(), "partitioned.hlo");
  ASSERT_TRUE(p.module);
  const int64_t devices = DevicesOfModule(*p.module);
  for (bool fused : {false, true}) {
    auto optimized = passes::OptimizeForBackend(*p.module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    runtime::CpuExecutableOptions eo;
    eo.threads = 1;
    eo.devices = devices;
    auto exe = runtime::CpuExecutable::Create(std::move(*optimized), eo);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    runtime::MultiDeviceOptions options;
    options.backend = runtime::DeviceBackend::kCpu;
    options.cpu = exe->get();
    if (p.has_outputs) {
      options.root_sharding = &p.outputs.sharding;
      options.global_result_shape = &p.outputs.shape;
    }
    auto r = runtime::RunOnDevices((*exe)->module(), p.inputs, options);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ExpectMatchesXla(r->global, p.expected, GetParam() + (fused ? " (cpu fused)" : " (cpu unfused)"));
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, XlaPartitionedTest,
                         ::testing::Values("dp_train_step", "tp_mlp", "fsdp_layer", "shard_map_collectives",
                                           "sharded_xent", "psum_8dev"));

}  // namespace
}  // namespace fusebox
