// CLI tests: modules XLA partitioned for 4 devices (tests/data/collectives) are refused by
// `fusebox run --devices 1` on every backend and by the GPU compile stages, with the
// instruction located in the file, its groups and the devices it needs; never a result.
// Run on the 4 devices they name (the default), they run; a module whose groups are all
// of one device still runs on one, and the report runs them on their devices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Collectives(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/collectives/" + name;
}

struct Case {
  const char* file;
  const char* located;  // "line:col: %name: opcode over <groups as written>"
};

const Case kCases[] = {
    {"all_reduce_explicit.hlo",
     ":29:8: %psum_invariant.7: all-reduce over replica_groups={{0,1,2,3}}"},
    {"all_reduce_iota.hlo",
     ":41:8: %all-reduce: all-reduce over replica_groups=[1,4]<=[4] (group {0,1,2,3})"},
    {"all_reduce_mesh.hlo",
     ":41:8: %all-reduce: all-reduce over replica_groups=mesh['axis_0'=4,'axis_1'=1] {'axis_0'} "
     "(group {0,1,2,3})"},
    {"all_reduce_empty.hlo",
     ":29:8: %psum_invariant.7: all-reduce over replica_groups={} (group {0,1,2,3})"},
    {"reduce_scatter.hlo",
     ":29:8: %reduce_scatter.7: reduce-scatter over replica_groups={{0,1,2,3}}"},
    {"all_to_all.hlo", ":55:3: %all-to-all: all-to-all over replica_groups={{0,1,2,3}}"},
    {"collective_permute.hlo",
     ":22:8: %ppermute.3: collective-permute over source_target_pairs={{0,1},{1,2},{2,3},{3,0}}"},
};

TEST(CliCollectivesTest, RunOnOneDeviceRefusesOnEveryBackend) {
  for (const Case& c : kCases) {
    for (const char* backend : {"interpreter", "cpu"}) {
      SCOPED_TRACE(std::string(c.file) + " --backend " + backend);
      const std::string path = Collectives(c.file);
      Result r = RunFusebox("run " + path + " --devices 1 --backend " + backend);
      EXPECT_EQ(r.code, 1) << r.out;
      EXPECT_THAT(r.out, AllOf(HasSubstr("error: " + path + c.located),
                               HasSubstr(" needs 4 devices; this run has 1 (fusebox run --devices 4 runs it on "
                                         "the interpreter or the CPU backend)"),
                               Not(HasSubstr("output:"))));
    }
    // The GPU needs a GPU per device (and NCCL): here, without a driver, it says so.
    Result gpu = RunFusebox("run " + Collectives(c.file) + " --backend gpu");
    EXPECT_EQ(gpu.code, 1) << gpu.out;
    EXPECT_THAT(gpu.out, AllOf(HasSubstr("multi-device runs on the GPU need one GPU per device (4)"),
                               Not(HasSubstr("output:"))));
  }
}

TEST(CliCollectivesTest, RunsOnTheDevicesTheModuleNames) {
  // Replicated outputs (all-reduce results) need no output sharding.
  for (const char* file : {"all_reduce_explicit.hlo", "all_reduce_iota.hlo", "all_reduce_mesh.hlo"}) {
    for (const char* backend : {"interpreter", "cpu"}) {
      SCOPED_TRACE(std::string(file) + " " + backend);
      Result r = RunFusebox("run " + Collectives(file) + " --backend " + backend);
      EXPECT_EQ(r.code, 0) << r.out;
      EXPECT_THAT(r.out, AllOf(HasSubstr("on 4 devices"), HasSubstr("output: f32[")));
    }
  }
  // A sharded output whose sharding the text does not give: an error that says what to
  // give, never device 0's tile as if it were the whole result.
  const std::string permute = Collectives("collective_permute.hlo");
  Result unknown = RunFusebox("run " + permute);
  EXPECT_EQ(unknown.code, 1) << unknown.out;
  EXPECT_THAT(unknown.out, AllOf(HasSubstr("--output-sharding"), Not(HasSubstr("output:"))));
  Result given = RunFusebox("run " + permute + " --output-sharding '{devices=[4]<=[4]}'");
  EXPECT_EQ(given.code, 0) << given.out;
  EXPECT_THAT(given.out, HasSubstr("output: f32[16]"));
}

TEST(CliCollectivesTest, CheckedRunsAndGpuCompileStagesRefuseOnOneDevice) {
  const std::string path = Collectives("all_reduce_mesh.hlo");
  Result checked = RunFusebox("run " + path + " --backend cpu --check --devices 1");
  EXPECT_EQ(checked.code, 1) << checked.out;
  EXPECT_THAT(checked.out, HasSubstr("needs 4 devices"));
  // The CPU compiles the per-device program (collectives are the runtime's exchanges);
  // the GPU backend has no collectives yet.
  Result cpu = RunFusebox("compile " + path + " --backend cpu --stage llvm_ir");
  EXPECT_EQ(cpu.code, 0) << cpu.out;
  for (const char* stage : {"ptx"}) {
    for (const char* backend : {"gpu"}) {
      SCOPED_TRACE(std::string(stage) + " " + backend);
      Result r = RunFusebox("compile " + path + " --backend " + backend + " --stage " + stage);
      EXPECT_EQ(r.code, 1) << r.out;
      EXPECT_THAT(r.out, HasSubstr("error: " + path +
                                   ":41:8: %all-reduce: all-reduce over replica_groups=mesh["));
    }
  }
}

// The report runs a per-device program on the devices it names (its Devices section and
// report.md say so); one whose outputs' split is unknown and whose devices disagree on
// them has the library's reason where the runs would be.
TEST(CliCollectivesTest, ReportRunsOnTheDevicesTheModuleNames) {
  const std::string dir = testing::TempDir() + "/collectives_report";
  Result r =
      RunFusebox("report " + Collectives("all_reduce_iota.hlo") + " --out " + dir + " --no-pack");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, AllOf(Not(HasSubstr("fused run: ")), Not(HasSubstr("unfused run: "))));
  Result md = fusebox::cli_test::RunCommand("cat " + dir + "/report.md");
  EXPECT_THAT(md.out,
              AllOf(HasSubstr("- devices: 4, per-device program"),
                    HasSubstr("1 all-reduce (64 B/device)"), HasSubstr("- numerical check: ok")));

  Result unknown =
      RunFusebox("report " + Collectives("reduce_scatter.hlo") + " --out " + dir + "_rs --no-pack");
  EXPECT_EQ(unknown.code, 0) << unknown.out;
  EXPECT_THAT(
      unknown.out,
      AllOf(HasSubstr("fused run: the per-device program does not say how its outputs are split"),
            HasSubstr("unfused run: the per-device program does not say how")));
}

TEST(CliCollectivesTest, GroupsOfOneDeviceStillRun) {
  Result r = RunFusebox("run " + Collectives("all_reduce_groups_of_one.hlo") + " --devices 1 --print");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("output: f32[4]"));
}

}  // namespace
