// The devices of collectives in every replica-group syntax, and the runs that refuse
// collectives over more devices than they have: the interpreter, the CPU executable and
// the GPU compile stage (which needs no GPU).
#include "compiler/ir/collectives.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/gpu_executable.h"

namespace fusebox {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using Groups = std::vector<std::vector<int64_t>>;

// A module whose entry is one all-reduce of f32[4] with the given attributes (after
// "to_apply=%add"), under the given header attributes.
std::unique_ptr<Module> AllReduce(const std::string& attributes, const std::string& header = "") {
  const std::string text = "HloModule m" + header + R"(

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %ar = f32[4]{0} all-reduce(%p), to_apply=%add)" +
                           attributes + R"(
}
)";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(*parsed) : nullptr;
}

std::unique_ptr<Module> Entry(const std::string& root, const std::string& header = "") {
  const std::string text = "HloModule m" + header + "\n\nENTRY %main (p: f32[4]) -> f32[4] {\n" +
                           "  %p = f32[4]{0} parameter(0)\n  ROOT " + root + "\n}\n";
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(*parsed) : nullptr;
}

const Instruction& Root(const Module& m) { return *m.entry()->root(); }

Groups GroupsOf(const Module& m) {
  auto d = DevicesOfCollective(Root(m));
  EXPECT_TRUE(d.ok()) << d.status().message();
  return d.ok() ? d->groups : Groups{};
}

std::string TestData(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/collectives/" + name;
}

std::unique_ptr<Module> LoadTestData(const std::string& name) {
  auto parsed = ParseFile(TestData(name));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed->modules[0]) : nullptr;
}

// --- Every syntax -------------------------------------------------------------------

TEST(CollectivesTest, ExplicitGroups) {
  auto m = AllReduce(", replica_groups={{0,1,2,3}}");
  ASSERT_NE(m, nullptr);
  auto d = DevicesOfCollective(Root(*m));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->mode, CollectiveGroupMode::kCrossReplica);
  EXPECT_EQ(d->written, "replica_groups={{0,1,2,3}}");
  EXPECT_EQ(d->groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(d->devices, 4);
  EXPECT_TRUE(CheckCollectiveFits(Root(*m), 4).ok());

  Status one = CheckCollectiveFits(Root(*m), 1);
  ASSERT_FALSE(one.ok());
  // Located, named, with the opcode, the groups as written and the devices needed.
  EXPECT_EQ(one.message(),
            "11:8: %ar: all-reduce over replica_groups={{0,1,2,3}} needs 4 devices; this run has 1 "
            "(fusebox run --devices 4 runs it on the interpreter or the CPU backend)");
}

TEST(CollectivesTest, IotaGroups) {
  auto whole = AllReduce(", channel_id=1, replica_groups=[1,4]<=[4], use_global_device_ids=true");
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(GroupsOf(*whole), (Groups{{0, 1, 2, 3}}));
  EXPECT_THAT(
      CheckCollectiveFits(Root(*whole), 1).message(),
      HasSubstr(
          "%ar: all-reduce over replica_groups=[1,4]<=[4] (group {0,1,2,3}) needs 4 devices"));

  // [2,2]<=[2,2]T(1,0): the iota [[0,1],[2,3]] transposed, rows as groups.
  auto transposed =
      AllReduce(", channel_id=1, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true");
  ASSERT_NE(transposed, nullptr);
  EXPECT_EQ(GroupsOf(*transposed), (Groups{{0, 2}, {1, 3}}));
  EXPECT_THAT(CheckCollectiveFits(Root(*transposed), 1).message(),
              HasSubstr("(group {0,2}) needs 4 devices"));
  EXPECT_TRUE(CheckCollectiveFits(Root(*transposed), 4).ok());
  // Two devices split a group: still not enough.
  EXPECT_FALSE(CheckCollectiveFits(Root(*transposed), 2).ok());

  auto plain = AllReduce(", replica_groups=[2,2]<=[4]");
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(GroupsOf(*plain), (Groups{{0, 1}, {2, 3}}));
  EXPECT_TRUE(CheckCollectiveFits(Root(*plain), 2).ok());  // {0,1} is whole on two devices

  // Groups of one in iota form fit one device.
  auto singles = AllReduce(", replica_groups=[4,1]<=[4]");
  ASSERT_NE(singles, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*singles), 1).ok());
}

TEST(CollectivesTest, MeshGroups) {
  // The form the issue quotes: the group is the axis named in braces.
  auto m = AllReduce(
      ", channel_id=1, replica_groups=mesh['axis_0'=1,'axis_1'=4] {'axis_1'}, "
      "use_global_device_ids=true");
  ASSERT_NE(m, nullptr);
  auto d = DevicesOfCollective(Root(*m));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_EQ(d->devices, 4);
  EXPECT_THAT(
      CheckCollectiveFits(Root(*m), 1).message(),
      AllOf(StartsWith(
                "11:8: %ar: all-reduce over replica_groups=mesh['axis_0'=1,'axis_1'=4] {'axis_1'}"),
            HasSubstr("(group {0,1,2,3}) needs 4 devices; this run has 1")));

  // Group size is the product of the named axes; devices, the product of all.
  EXPECT_THAT(
      *ExpandMeshReplicaGroups("mesh['axis_0'=2,'axis_1'=2] {'axis_0'}"),
      ElementsAre(ElementsAre(0, 2), ElementsAre(1, 3)));  // what shard_map writes as {{0,2},{1,3}}
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh['axis_0'=2,'axis_1'=2] {'axis_1'}"),
              ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh['a'=2,'b'=2] {'a','b'}"),
              ElementsAre(ElementsAre(0, 1, 2, 3)));
  EXPECT_EQ(ExpandMeshReplicaGroups("mesh['a'=4,'b'=2] {}")->size(), 8u);
  // Bare names, sub-axes (pre-size)size, and a device order.
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh[x=4] {x:(1)2}"),
              ElementsAre(ElementsAre(0, 2), ElementsAre(1, 3)));
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh['x'=4] {'x':(2)2}"),
              ElementsAre(ElementsAre(0, 1), ElementsAre(2, 3)));
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh['a'=2,'b'=2], device_ids=([2,2]<=[2,2]T(1,0)) {'b'}"),
              ElementsAre(ElementsAre(0, 2), ElementsAre(1, 3)));
  EXPECT_THAT(*ExpandMeshReplicaGroups("mesh['a'=2,'b'=2], device_ids=(3,2,1,0) {'a'}"),
              ElementsAre(ElementsAre(3, 1), ElementsAre(2, 0)));
  // A device id of 20 digits is an error, not std::stoll's out_of_range.
  auto huge = ExpandMeshReplicaGroups("mesh['a'=2], device_ids=(0,99999999999999999999) {'a'}");
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("device id 9999999999999999999... is out of range"));
  // XLA's device order as an iota without its shape (the mesh's axes are the shape): jax
  // 0.10.2's 'model' groups of a 2x4 mesh, after its partitioner re-meshed them [4,1,2].
  auto iota_order = ExpandMeshReplicaGroups("mesh['axis_0'=4,'axis_1'=1,'axis_2'=2], device_ids=([2,4]T(1,0)) {'axis_0'}");
  ASSERT_TRUE(iota_order.ok()) << iota_order.status().message();
  EXPECT_THAT(*iota_order, ElementsAre(ElementsAre(0, 1, 2, 3), ElementsAre(4, 5, 6, 7)));
  // As an instruction's attribute: the device order after the comma belongs to the groups.
  auto ordered = AllReduce(
      ", channel_id=1, replica_groups=mesh['axis_0'=2,'axis_1'=2], device_ids=([2,2]T(1,0)) {'axis_1'}, "
      "use_global_device_ids=true");
  ASSERT_NE(ordered, nullptr);
  auto od = DevicesOfCollective(Root(*ordered));
  ASSERT_TRUE(od.ok()) << od.status().message();
  EXPECT_EQ(od->groups, (Groups{{0, 2}, {1, 3}}));
  EXPECT_THAT(*ExpandMeshReplicaGroups("maximal_mesh[device_id=0] {}"),
              ElementsAre(ElementsAre(0)));

  // What cannot be read is said, not guessed.
  for (const char* bad : {"mesh['a'=2] {'b'}", "mesh['a'=2", "mesh['x'=4] {'x':(3)2}",
                          "grid[a=2] {a}", "mesh['a'=2,'b'=2], device_ids=(0,1,2) {'a'}"}) {
    auto expanded = ExpandMeshReplicaGroups(bad);
    EXPECT_FALSE(expanded.ok()) << bad;
    if (!expanded.ok()) {
      EXPECT_THAT(expanded.status().message(), HasSubstr("cannot read replica_groups=")) << bad;
    }
  }
  auto unreadable = AllReduce(", replica_groups=mesh['a'=2] {'b'}");
  ASSERT_NE(unreadable, nullptr);
  EXPECT_THAT(CheckCollectiveFits(Root(*unreadable), 1).message(),
              HasSubstr("is not an axis of the mesh"));
}

TEST(CollectivesTest, EmptyGroupsAreAllDevicesOfTheMode) {
  // No header: one replica, one partition.
  auto alone = AllReduce(", replica_groups={}");
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(GroupsOf(*alone), (Groups{{0}}));
  EXPECT_TRUE(CheckCollectiveFits(Root(*alone), 1).ok());
  auto none = AllReduce("");
  ASSERT_NE(none, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*none), 1).ok());

  // Cross-replica: all replicas.
  auto replicas = AllReduce(", replica_groups={}", ", replica_count=2");
  ASSERT_NE(replicas, nullptr);
  EXPECT_EQ(GroupsOf(*replicas), (Groups{{0, 1}}));
  EXPECT_THAT(CheckCollectiveFits(Root(*replicas), 1).message(), HasSubstr("needs 2 devices"));

  // Flattened ids (channel_id, use_global_device_ids): replicas x partitions.
  auto flattened = AllReduce(", channel_id=1, replica_groups={}, use_global_device_ids=true",
                             ", num_partitions=4");
  ASSERT_NE(flattened, nullptr);
  auto d = DevicesOfCollective(Root(*flattened));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->mode, CollectiveGroupMode::kFlattenedId);
  EXPECT_EQ(d->groups, (Groups{{0, 1, 2, 3}}));
  EXPECT_THAT(CheckCollectiveFits(Root(*flattened), 1).message(),
              HasSubstr("all-reduce over replica_groups={} (group {0,1,2,3}) needs 4 devices"));

  // channel_id without use_global_device_ids on an all-reduce: each replica group spans
  // every partition, so a group of one replica is 2 devices here.
  auto with_partitions = AllReduce(", channel_id=1, replica_groups={{0}}", ", num_partitions=2");
  ASSERT_NE(with_partitions, nullptr);
  auto both = DevicesOfCollective(Root(*with_partitions));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->mode, CollectiveGroupMode::kCrossReplicaAndPartition);
  EXPECT_EQ(both->groups, (Groups{{0, 1}}));
  EXPECT_THAT(CheckCollectiveFits(Root(*with_partitions), 1).message(),
              HasSubstr("(group {0,1}) needs 2 devices"));

  // Without channel_id the same groups are per partition: device 0 is alone.
  auto per_partition = AllReduce(", replica_groups={{0}}", ", num_partitions=2");
  ASSERT_NE(per_partition, nullptr);
  EXPECT_EQ(GroupsOf(*per_partition), (Groups{{0}, {1}}));
  EXPECT_TRUE(CheckCollectiveFits(Root(*per_partition), 1).ok());
}

TEST(CollectivesTest, GroupsOfOneFitOneDevice) {
  for (const char* groups : {"{{0},{1},{2},{3}}", "{{0}}", "{{0},{1,2},{3}}"}) {
    auto m = AllReduce(std::string(", replica_groups=") + groups);
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE(CheckCollectiveFits(Root(*m), 1).ok()) << groups;
  }
  // Device 0 in no group: XLA refuses that on device 0, and so does a run.
  auto missing = AllReduce(", replica_groups={{1,2}}");
  ASSERT_NE(missing, nullptr);
  EXPECT_THAT(
      CheckCollectiveFits(Root(*missing), 1).message(),
      HasSubstr("over replica_groups={{1,2}} (device 0 is in none of its groups) needs 3 devices"));
  // A group split by the run's edge does not fit two devices.
  auto split = AllReduce(", replica_groups={{0},{1,2}}");
  ASSERT_NE(split, nullptr);
  EXPECT_THAT(CheckCollectiveFits(Root(*split), 2).message(),
              HasSubstr("needs 3 devices; this run has 2"));
}

TEST(CollectivesTest, OtherCollectivesAndPermute) {
  auto a2a = Entry(
      "%a2a = f32[4]{0} all-to-all(%p), channel_id=1, replica_groups={{0,1,2,3}}, dimensions={0}");
  ASSERT_NE(a2a, nullptr);
  auto d = DevicesOfCollective(Root(*a2a));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->mode, CollectiveGroupMode::kCrossPartition);
  EXPECT_THAT(CheckCollectiveFits(Root(*a2a), 1).message(),
              HasSubstr("%a2a: all-to-all over replica_groups={{0,1,2,3}} needs 4 devices"));

  auto bcast =
      Entry("%cb = f32[4]{0} collective-broadcast(%p), replica_groups={{0,1}}, channel_id=1");
  ASSERT_NE(bcast, nullptr);
  EXPECT_THAT(CheckCollectiveFits(Root(*bcast), 1).message(),
              HasSubstr("collective-broadcast over replica_groups={{0,1}} needs 2 devices"));

  auto ring = Entry(
      "%cp = f32[4]{0} collective-permute(%p), channel_id=1, "
      "source_target_pairs={{0,1},{1,2},{2,3},{3,0}}");
  ASSERT_NE(ring, nullptr);
  auto pairs = DevicesOfCollective(Root(*ring));
  ASSERT_TRUE(pairs.ok());
  EXPECT_TRUE(pairs->pairs);
  EXPECT_EQ(pairs->devices, 4);
  EXPECT_THAT(CheckCollectiveFits(Root(*ring), 1).message(),
              HasSubstr("%cp: collective-permute over "
                        "source_target_pairs={{0,1},{1,2},{2,3},{3,0}} needs 4 devices"));
  EXPECT_TRUE(CheckCollectiveFits(Root(*ring), 4).ok());
  // To itself, only away from the run, or only among devices the run does not have:
  // device 0's own value is right (its own value, or zeros: nobody sends to it).
  auto self = Entry("%cp = f32[4]{0} collective-permute(%p), source_target_pairs={{0,0}}");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*self), 1).ok());
  auto away = Entry("%cp = f32[4]{0} collective-permute(%p), source_target_pairs={{0,1}}");
  ASSERT_NE(away, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*away), 1).ok());
  auto into =
      Entry("%cp = f32[4]{0} collective-permute-start(%p), source_target_pairs={{0,1},{1,0}}");
  ASSERT_NE(into, nullptr);
  EXPECT_THAT(
      CheckCollectiveFits(Root(*into), 1).message(),
      HasSubstr("collective-permute-start over source_target_pairs={{0,1},{1,0}} needs 2 devices"));
  auto elsewhere = Entry("%cp = f32[4]{0} collective-permute(%p), source_target_pairs={{1,2}}");
  ASSERT_NE(elsewhere, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*elsewhere), 1).ok());

  // Not a collective: nothing to check.
  auto plain = Entry("%n = f32[4]{0} negate(%p)");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(CheckCollectiveFits(Root(*plain), 1).ok());
  EXPECT_FALSE(DevicesOfCollective(Root(*plain)).ok());
}

TEST(CollectivesTest, ModuleCheckNamesTheFirstAndCountsTheRest) {
  auto parsed = ParseModule(R"(HloModule m, num_partitions=4

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %fine = f32[4]{0} all-reduce(%p), channel_id=1, replica_groups={{0},{1},{2},{3}}, use_global_device_ids=true, to_apply=%add
  %first = f32[4]{0} all-reduce(%fine), channel_id=2, replica_groups=[1,4]<=[4], use_global_device_ids=true, to_apply=%add
  ROOT %second = f32[4]{0} all-reduce(%first), channel_id=3, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=%add
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Status st = CheckCollectivesFit(**parsed, 1);
  EXPECT_THAT(st.message(),
              AllOf(StartsWith("12:3: %first: all-reduce over replica_groups=[1,4]<=[4]"),
                    HasSubstr("(and 1 other collective like it)")));
  EXPECT_TRUE(CheckCollectivesFit(**parsed, 4).ok());
}

// --- The runs refuse -----------------------------------------------------------------

TEST(CollectivesTest, InterpreterRefusesEverySyntax) {
  for (const char* file :
       {"all_reduce_explicit.hlo", "all_reduce_iota.hlo", "all_reduce_mesh.hlo",
        "all_reduce_empty.hlo", "reduce_scatter.hlo", "all_to_all.hlo", "collective_permute.hlo"}) {
    SCOPED_TRACE(file);
    auto m = LoadTestData(file);
    ASSERT_NE(m, nullptr);
    auto args = interpreter::RandomArguments(*m, 1);
    ASSERT_TRUE(args.ok());
    auto ran = interpreter::Interpreter().Run(*m, *args);
    ASSERT_FALSE(ran.ok()) << "gave a value a single device cannot compute";
    // file:line:col: %name: opcode over <groups> ... needs 4 devices; this run has 1
    EXPECT_THAT(ran.status().message(), AllOf(StartsWith(TestData(file) + ":"), HasSubstr(": %"),
                                              HasSubstr("needs 4 devices; this run has 1")));
  }
  auto iota = LoadTestData("all_reduce_iota.hlo");
  ASSERT_NE(iota, nullptr);
  auto args = interpreter::RandomArguments(*iota, 1);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(interpreter::Interpreter().Run(*iota, *args).status().message(),
            TestData("all_reduce_iota.hlo") +
                ":41:8: %all-reduce: all-reduce over replica_groups=[1,4]<=[4] (group {0,1,2,3}) "
                "needs 4 devices; "
                "this run has 1 (fusebox run --devices 4 runs it on the interpreter or the CPU backend)");
  // A computation run on its own is refused at the collective too.
  auto direct = interpreter::Interpreter().RunComputation(*iota->entry(), {&(*args)[0]});
  EXPECT_THAT(direct.status().message(),
              HasSubstr("%all-reduce: all-reduce over replica_groups=[1,4]<=[4]"));
}

TEST(CollectivesTest, GroupsOfOneStillRunOnTheInterpreter) {
  auto m = LoadTestData("all_reduce_groups_of_one.hlo");
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 3);
  ASSERT_TRUE(args.ok());
  auto ran = interpreter::Interpreter().Run(*m, *args);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  EXPECT_EQ(ran->ToString(), (*args)[0].ToString());  // a sum over a group of one
}

TEST(CollectivesTest, CpuExecutableAndGpuCompileRefuseWithoutAGpu) {
  auto m = LoadTestData("all_reduce_mesh.hlo");
  ASSERT_NE(m, nullptr);
  codegen::GpuCompileOptions gpu;
  gpu.arch = "sm_80";
  auto code = CompileForGpu(*m, gpu);
  ASSERT_FALSE(code.ok());
  EXPECT_THAT(code.status().message(),
              HasSubstr("%all-reduce: all-reduce over replica_groups=mesh["));
  EXPECT_THAT(code.status().message(), HasSubstr("needs 4 devices"));

  // The GPU executable says so before it looks for a device.
  auto gpu_exe = runtime::GpuExecutable::Create(m->Clone());
  ASSERT_FALSE(gpu_exe.ok());
  EXPECT_THAT(gpu_exe.status().message(), HasSubstr("needs 4 devices; this run has 1"));

  auto cpu_exe = runtime::CpuExecutable::Create(m->Clone());
  ASSERT_FALSE(cpu_exe.ok());
  EXPECT_THAT(cpu_exe.status().message(),
              HasSubstr("%all-reduce: all-reduce over replica_groups=mesh["));
}

}  // namespace
}  // namespace fusebox

namespace fusebox {
namespace {

// A lone '-' or a number longer than int64 in a mesh is an error (it threw from std::stoll).
TEST(CollectivesTest, MalformedMeshNumbersAreErrors) {
  for (const char* text : {"mesh['x'=-] {'x'}", "mesh['x'=99999999999999999999] {'x'}", "maximal_mesh[device_id=-]"}) {
    auto groups = ExpandMeshReplicaGroups(text);
    EXPECT_FALSE(groups.ok()) << text;
  }
}

}  // namespace
}  // namespace fusebox
