// `fusebox diff A B` through the real binary: a renamed copy has no changes, the fusion
// pass of a real dump folder adds its fusions, --json, --profile sorts by measured kernel
// time, and a file that does not parse is an error with its file:line:col.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/cli_test_util.h"

namespace fusebox {
namespace {

using cli_test::RunFusebox;
using cli_test::RunFuseboxStdout;

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/cli_diff_" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kModule[] = R"(HloModule m
ENTRY main {
  p0 = f32[64,64] parameter(0)
  p1 = f32[64,64] parameter(1)
  add = f32[64,64] add(p0, p1)
  mul = f32[64,64] multiply(add, p1)
  ROOT e = f32[64,64] exponential(mul)
}
)";

constexpr char kRenamed[] = R"(HloModule other
ENTRY entry {
  y = f32[64,64] parameter(1)
  x = f32[64,64] parameter(0)
  sum = f32[64,64] add(x, y), metadata={op_name="jit(f)/add"}
  prod = f32[64,64] multiply(sum, y)
  ROOT out = f32[64,64] exponential(prod)
}
)";

constexpr char kFused[] = R"(HloModule m
fused {
  a = f32[64,64] parameter(0)
  b = f32[64,64] parameter(1)
  s = f32[64,64] add(a, b)
  ROOT m = f32[64,64] multiply(s, b)
}
ENTRY main {
  x = f32[64,64] parameter(0)
  y = f32[64,64] parameter(1)
  f = f32[64,64] fusion(x, y), kind=kLoop, calls=fused
  n = f32[64,64] negate(f)
  ROOT e = f32[64,64] exponential(n)
}
)";

TEST(CliDiffTest, RenamedCopyHasNoChanges) {
  auto r =
      RunFusebox("diff " + WriteTemp("a.hlo", kModule) + " " + WriteTemp("renamed.hlo", kRenamed));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("0 change(s): 0 added, 0 removed, 0 changed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("5 matched (5 identical)"), std::string::npos) << r.out;
}

TEST(CliDiffTest, DumpFolderStagesAroundTheFusionPassDifferByItsFusions) {
  std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/mnist_train_step";
  auto r = RunFusebox("diff " + dir + " " + dir + " --dump-stage-a 0024 --dump-stage-b 0025");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("14 change(s): 14 added, 0 removed, 0 changed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+ added      5.5 KiB  %add_reduce_fusion = f32[128]{0} fusion("),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fuses %add.16, %add.17, %constant.0, %reduce_max.0 of a"),
            std::string::npos)
      << r.out;
}

TEST(CliDiffTest, JsonListsTheAddedFusionAndWhatItFuses) {
  auto r = RunFuseboxStdout("diff --json " + WriteTemp("a.hlo", kModule) + " " +
                            WriteTemp("fused.hlo", kFused));
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["schema"], "fusebox.structural_diff/1");
  EXPECT_EQ(j["added"], 2);    // the fusion and the negate after it
  EXPECT_EQ(j["changed"], 1);  // the exponential now reads the negate
  const auto& changes = j["computations"][0]["changes"];
  bool fusion_found = false;
  for (const auto& c : changes) {
    if (c["kind"] == "added" && c["b"]["name"] == "f") {
      fusion_found = true;
      EXPECT_EQ(c["details"][0], "fuses %add, %mul of a");
    }
  }
  EXPECT_TRUE(fusion_found) << r.out;
}

TEST(CliDiffTest, ProfileSortsByMeasuredKernelTime) {
  auto r = RunFuseboxStdout("diff --profile --iterations 1 " + WriteTemp("a.hlo", kModule) + " " +
                            WriteTemp("fused.hlo", kFused));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("sorted by measured kernel time per run (CPU, one kernel per op"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" us  %"), std::string::npos) << r.out;
}

TEST(CliDiffTest, FileThatDoesNotParseIsAnErrorWithItsPlace) {
  std::string bad = WriteTemp(
      "bad.hlo",
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = f32[2] add(p, q)\n}\n");
  auto r = RunFusebox("diff " + WriteTemp("a.hlo", kModule) + " " + bad);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("error: " + bad + ":4:26: operand %q is not defined"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace fusebox
