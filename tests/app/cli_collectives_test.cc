// CLI tests: modules XLA partitioned for 4 devices (tests/data/collectives) are refused by
// `fusebox run` on every backend and by the compile stages, with the instruction located
// in the file, its groups and the devices it needs; never a result. A module whose groups
// are all of one device still runs.
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

TEST(CliCollectivesTest, RunRefusesOnEveryBackend) {
  for (const Case& c : kCases) {
    for (const char* backend : {"interpreter", "cpu", "gpu"}) {
      SCOPED_TRACE(std::string(c.file) + " --backend " + backend);
      const std::string path = Collectives(c.file);
      Result r = RunFusebox("run " + path + " --backend " + backend);
      EXPECT_EQ(r.code, 1) << r.out;
      EXPECT_THAT(
          r.out,
          AllOf(HasSubstr("error: " + path + c.located),
                HasSubstr(
                    " needs 4 devices; this run has 1 (multi-device runs are not supported yet)"),
                Not(HasSubstr("output:"))));
      // The GPU backend says so before it looks for a driver or device.
      EXPECT_THAT(r.out, Not(HasSubstr("CUDA")));
    }
  }
}

TEST(CliCollectivesTest, CheckedRunsAndCompileStagesRefuseToo) {
  const std::string path = Collectives("all_reduce_mesh.hlo");
  Result checked = RunFusebox("run " + path + " --backend cpu --check");
  EXPECT_EQ(checked.code, 1) << checked.out;
  EXPECT_THAT(checked.out, HasSubstr("needs 4 devices"));
  for (const char* stage : {"ptx", "llvm_ir"}) {
    for (const char* backend : {"gpu", "cpu"}) {
      SCOPED_TRACE(std::string(stage) + " " + backend);
      Result r = RunFusebox("compile " + path + " --backend " + backend + " --stage " + stage);
      EXPECT_EQ(r.code, 1) << r.out;
      EXPECT_THAT(r.out, HasSubstr("error: " + path +
                                   ":41:8: %all-reduce: all-reduce over replica_groups=mesh["));
    }
  }
}

TEST(CliCollectivesTest, ReportSaysWhyItHasNoRuns) {
  const std::string path = Collectives("all_reduce_iota.hlo");
  Result r = RunFusebox("report " + path + " --out " + testing::TempDir() + "/collectives_report");
  EXPECT_THAT(r.out, AllOf(HasSubstr("fused run: " + path +
                                     ":41:8: %all-reduce: all-reduce over "
                                     "replica_groups=[1,4]<=[4] (group {0,1,2,3}) needs 4 devices"),
                           HasSubstr("unfused run: " + path + ":41:8:")));
}

TEST(CliCollectivesTest, GroupsOfOneDeviceStillRun) {
  Result r = RunFusebox("run " + Collectives("all_reduce_groups_of_one.hlo") + " --print");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("output: f32[4]"));
}

}  // namespace
