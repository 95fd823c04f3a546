#include "compiler/ir/sharding.h"

#include <gtest/gtest.h>

#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

Sharding Parse(const std::string& text) {
  auto s = ParseSharding(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? *s : Sharding{};
}

TEST(ShardingTest, SimpleKinds) {
  EXPECT_EQ(Parse("{replicated}").kind, Sharding::Kind::kReplicated);
  EXPECT_EQ(Parse("{manual}").kind, Sharding::Kind::kManual);
  Sharding m = Parse("{maximal device=3}");
  EXPECT_EQ(m.kind, Sharding::Kind::kMaximal);
  EXPECT_EQ(m.device, 3);
  EXPECT_EQ(m.DeviceCount(), 4);
  EXPECT_EQ(Parse("replicated").kind, Sharding::Kind::kReplicated);  // without braces
}

TEST(ShardingTest, ExplicitAndIotaTilesAgree) {
  Sharding a = Parse("{devices=[2,2]0,2,1,3}");
  Sharding b = Parse("{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(a.tile_devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_TRUE(a.SameMeaning(b));
  EXPECT_FALSE(a.SameMeaning(Parse("{devices=[2,2]<=[4]}")));
  EXPECT_EQ(b.ToString(), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(a.ToString(), "{devices=[2,2]0,2,1,3}");
  auto index = a.TileIndexOf(2);
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(*index, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(a.DeviceAt({1, 0}), 1);
}

TEST(ShardingTest, ShardShapesAndOffsets) {
  Sharding s = Parse("{devices=[4,1]<=[4]}");
  Shape global(PrimitiveType::kF32, {10, 3});
  auto shard = s.ShardShape(global);
  ASSERT_TRUE(shard.ok());
  EXPECT_EQ(shard->dimensions(), (std::vector<int64_t>{3, 3}));  // rounded up, XLA pads
  auto off = s.ShardOffsets(global, 3);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, (std::vector<int64_t>{9, 0}));
  EXPECT_FALSE(s.ShardOffsets(global, 4).ok());  // not in the sharding
  EXPECT_FALSE(s.ShardShape(Shape(PrimitiveType::kF32, {8})).ok());  // rank mismatch
}

TEST(ShardingTest, PartialReplicationAndSubgroups) {
  Sharding s = Parse("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(s.DataRank(), 2);
  EXPECT_EQ(s.TilesAlong(0), 2);
  EXPECT_EQ(s.TilesAlong(2), 1);  // the subgroup dim is not data
  EXPECT_EQ(s.ToString(), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  Sharding m = Parse("{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(m.DataRank(), 2);
  ASSERT_EQ(m.subgroups.size(), 2u);
  EXPECT_EQ(m.subgroups[0], SubgroupKind::kManual);
  EXPECT_TRUE(m.IsManual());
  EXPECT_FALSE(m.IsFullyReplicated());
  EXPECT_TRUE(Parse("{devices=[1,4]<=[4] last_tile_dim_replicate}").IsFullyReplicated());
  EXPECT_EQ(Parse("{devices=[1,1,4]<=[4] last_tile_dims={manual,replicated}}").ToString(),
            "{devices=[1,1,4]<=[4] last_tile_dims={manual, replicated}}");
}

TEST(ShardingTest, TuplesAndMetadataAreKept) {
  Sharding t = Parse("{{replicated}, {devices=[4]<=[4] metadata={op_name=\"a/b\"}}}");
  ASSERT_TRUE(t.IsTuple());
  ASSERT_EQ(t.elements.size(), 2u);
  EXPECT_EQ(t.Leaf(1).trailing, "metadata={op_name=\"a/b\"}");
  EXPECT_EQ(t.ToString(), "{{replicated}, {devices=[4]<=[4] metadata={op_name=\"a/b\"}}}");
}

TEST(ShardingTest, BadTextSaysWhere) {
  for (const char* bad : {"{devices=[2,2]0,1,2}", "{devices=[2]0,0}", "{maximal}", "{bogus}",
                          "{devices=[2]<=[3]}", "{devices=[1,1]0 last_tile_dims={weird}}",
                          "{devices=[99999999,99999999]<=[4]}", "{replicated"}) {
    auto s = ParseSharding(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(std::string(s.status().message()).find("sharding:"), std::string::npos);
    }
  }
}

TEST(ShardingTest, ShardyMeshesAndShardings) {
  auto meshes = ParseSdyMeshes(R"({mesh = #sdy.mesh<[\"data\"=2, \"model\"=2]>})");
  ASSERT_TRUE(meshes.ok()) << meshes.status().message();
  ASSERT_EQ(meshes->size(), 1u);
  EXPECT_EQ((*meshes)[0].name, "mesh");
  EXPECT_EQ((*meshes)[0].DeviceCount(), 4);
  auto shardings = ParseSdyShardings(R"(#sdy.sharding_per_value<[<@mesh, [{\"model\"}, {}]>, <@mesh, [{}, {\"data\", ?}]>]>)");
  ASSERT_TRUE(shardings.ok()) << shardings.status().message();
  ASSERT_EQ(shardings->size(), 2u);
  // dim 0 over "model" (the minor mesh axis), replicated over "data": devices (0,2) hold
  // tile 0, (1,3) tile 1.
  auto s0 = SdyToSharding((*shardings)[0], (*meshes)[0], 2);
  ASSERT_TRUE(s0.ok()) << s0.status().message();
  EXPECT_EQ(s0->tile_dims, (std::vector<int64_t>{2, 1, 2}));
  EXPECT_EQ(s0->tile_devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(s0->ToString(), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_FALSE((*shardings)[1].dim_closed[1]);
  auto s1 = SdyToSharding((*shardings)[1], (*meshes)[0], 2);
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(s1->ToString(), "{devices=[1,2,2]<=[4] last_tile_dim_replicate}");
  // Manual axes become a manual subgroup.
  auto manual = ParseSdyManualAxes(R"(#sdy<manual_axes{\"data\"}>)");
  ASSERT_TRUE(manual.ok());
  auto s2 = SdyToSharding((*shardings)[0], (*meshes)[0], 2, *manual);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(s2->ToString(), "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  // Errors: wrong rank, unknown axis.
  EXPECT_FALSE(SdyToSharding((*shardings)[0], (*meshes)[0], 3).ok());
  auto bad = ParseSdyShardings(R"(#sdy.sharding<@mesh, [{"nope"}]>)");
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(SdyToSharding((*bad)[0], (*meshes)[0], 1).ok());
}

// jax's maximal meshes (what a callback's value gets): no axes, one device, and no
// dimensions in the sharding whatever the value's rank.
TEST(ShardingTest, MaximalMeshesPutTheValueOnTheirDevice) {
  auto meshes = ParseSdyMeshes(R"({maximal_mesh_3 = #sdy.mesh<[], device_ids=[3]>})");
  ASSERT_TRUE(meshes.ok()) << meshes.status().message();
  auto shardings = ParseSdyShardings(R"(#sdy.sharding_per_value<[<@maximal_mesh_3, []>]>)");
  ASSERT_TRUE(shardings.ok()) << shardings.status().message();
  for (int64_t rank : {0, 1, 3}) {
    auto s = SdyToSharding((*shardings)[0], (*meshes)[0], rank);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_EQ(s->ToString(), "{maximal device=3}");
  }
}

TEST(ShardingTest, ShardingOfAnInstruction) {
  auto m = ParseModule(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT n = f32[8,4] negate(p)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  const Computation* entry = (*m)->entry();
  auto s = ShardingOf(*entry->parameter(0));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->has_value());
  EXPECT_EQ((*s)->TilesAlong(0), 4);
  auto none = ShardingOf(*entry->root());
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

TEST(ShardingTest, ProgramsKnowTheirDevices) {
  auto global = ParseModule(R"(HloModule g, num_partitions=4
ENTRY e {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT n = f32[8,4] negate(p), sharding={replicated}
})");
  ASSERT_TRUE(global.ok());
  EXPECT_EQ(DevicesOfModule(**global), 4);
  EXPECT_FALSE(IsPerDeviceProgram(**global));  // no collectives: tiles not taken yet
  auto per_device = ParseModule(R"(HloModule d, num_partitions=2
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0), sharding={devices=[2]<=[2]}
  ROOT ar = f32[4] all-reduce(p), channel_id=1, replica_groups={{0,1}}, use_global_device_ids=true, to_apply=add
})");
  ASSERT_TRUE(per_device.ok());
  EXPECT_TRUE(IsPerDeviceProgram(**per_device));
  EXPECT_EQ(DevicesOfModule(**per_device), 2);
  auto sdy = ParseModule(R"(HloModule s, num_partitions=4, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["d"=4]>}}
ENTRY e {
  p = f32[8] parameter(0)
  id = u32[] partition-id()
  ROOT n = f32[8] negate(p)
})");
  ASSERT_TRUE(sdy.ok()) << sdy.status().message();
  EXPECT_FALSE(IsPerDeviceProgram(**sdy));  // Shardy attributes: a global program
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

// jax's op sharding rules: factors per dim, sizes, compound dims and restricted factors.
TEST(ShardingTest, SdyOpShardingRules) {
  auto cholesky = ParseSdyOpShardingRule(
      "\"#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=6, k=6, l=6, m=6}, custom>\"");
  ASSERT_TRUE(cholesky.ok()) << cholesky.status().message();
  ASSERT_EQ(cholesky->operands.size(), 1u);
  ASSERT_EQ(cholesky->results.size(), 2u);
  EXPECT_TRUE(cholesky->custom);
  EXPECT_EQ(cholesky->SizeOf("i"), 8);
  EXPECT_EQ(cholesky->PassThrough({"i"}), "i");  // the batch: in the operand and both results
  EXPECT_EQ(cholesky->PassThrough({"j"}), "");   // the matrix dims: in one side only
  EXPECT_EQ(cholesky->PassThrough({"l"}), "");
  // A dot-like rule: k is contracted (a reduction); ij is one dim of two factors, so i
  // and j never split alone; z_1 is a factor name past z.
  auto dot = ParseSdyOpShardingRule(
      "#sdy.op_sharding_rule<([ij, k], [k, z_1])->([ij, z_1]) {i=2, j=4, k=16, z_1=8}, reduction={k}>");
  ASSERT_TRUE(dot.ok()) << dot.status().message();
  EXPECT_FALSE(dot->custom);
  EXPECT_EQ(dot->operands[0][0], (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(dot->PassThrough({"k"}), "");
  EXPECT_EQ(dot->PassThrough({"i", "j"}), "");
  EXPECT_EQ(dot->PassThrough({"z_1"}), "z_1");
  auto scalar = ParseSdyOpShardingRule("#sdy.op_sharding_rule<([i])->([]) {i=3}, need_replication={i}>");
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  EXPECT_TRUE(scalar->results[0].empty());
  EXPECT_EQ(scalar->PassThrough({"i"}), "");
  for (const char* bad : {"#sdy.op_sharding_rule<([i])->([i]) {}>", "#sdy.op_sharding_rule<([i])->([i]) {i=0}>",
                          "#sdy.op_sharding_rule<([i])->([i]) {i=2}, frobnicate={i}>",
                          "#sdy.op_sharding_rule<([i])->([i]) {i=2}", "#sdy.op_sharding_rule<([1])->([i]) {i=2}>",
                          "#sdy.op_sharding_rule<([i]) {i=2}>"}) {
    EXPECT_FALSE(ParseSdyOpShardingRule(bad).ok()) << bad;
  }
}

// Malformed sharding text (truncated, bytes replaced, numbers made huge or negative) is an
// error or a valid sharding, never a crash; whatever parses answers every query.
TEST(ShardingTest, MutatedTextNeverCrashes) {
  const std::vector<std::string> seeds = {
      "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
      "{devices=[1,1,2,2]0,1,2,3 last_tile_dims={manual, replicated} metadata={op_name=\"x\"}}",
      "{{replicated}, {maximal device=3}, {devices=[4]<=[4]}}",
      "{manual}",
  };
  const std::string alphabet = "{}[]<=T(),0123456789-  abcdevislmrtpu=\"";
  uint64_t state = 12345;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  Shape shape(PrimitiveType::kF32, {8, 4});
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = seeds[next() % seeds.size()];
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = next() % text.size();
      switch (next() % 3) {
        case 0: text[at] = alphabet[next() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + next() % 3); break;
        default: text.insert(at, std::string(1 + next() % 12, alphabet[next() % alphabet.size()])); break;
      }
    }
    auto s = ParseSharding(text);
    if (!s.ok()) continue;
    ++parsed;
    (void)s->ShardShape(shape);
    for (int64_t d = 0; d < 5; ++d) (void)s->ShardOffsets(shape, d);
    (void)s->DeviceCount();
    (void)s->ToString();
    (void)s->IsFullyReplicated();
  }
  EXPECT_GT(parsed, 0);  // some mutations stay valid: the queries ran on them
  for (const char* bad : {"{mesh = #sdy.mesh<[\"d\"=4", "{m = #sdy.mesh<[\"d\"=-1]>}", "{m = #sdy.mesh<[\"d\"=99999999999999999999]>}",
                          "#sdy.sharding_per_value<[<@mesh, [{\"d\"}, {", "#sdy<manual_axes{\"d\""}) {
    EXPECT_FALSE(ParseSdyMeshes(bad).ok() && ParseSdyShardings(bad).ok() && ParseSdyManualAxes(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace fusebox
