// `fusebox memory`: the peak and the buffers at it on an example (the JSON rows add up to
// the peak, fused and unfused), XLA's peak beside Fusebox's for a dump folder with the file
// it came from, and errors: a malformed module gives file:line:col and exit 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/app/cli_test_util.h"

namespace fusebox::cli_test {
namespace {

using ::testing::HasSubstr;

int64_t SumRows(const nlohmann::json& profile) {
  int64_t sum = 0;
  for (const auto& row : profile["at_peak"]) sum += row["bytes"].get<int64_t>();
  return sum;
}

TEST(CliMemoryTest, ExamplePeakIsTheSumOfItsRows) {
  Result r = RunFuseboxStdout("memory " + Example("reduce_sum.hlo") + " --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  for (const char* which : {"fused", "unfused"}) {
    SCOPED_TRACE(which);
    ASSERT_TRUE(j.contains(which));
    EXPECT_EQ(SumRows(j[which]), j[which]["peak_bytes"].get<int64_t>());
    EXPECT_EQ(j[which]["at_peak_omitted"]["buffers"].get<int64_t>(), 0);
  }
  EXPECT_FALSE(j.contains("xla"));
}

TEST(CliMemoryTest, TextShowsPeaksTableAndSum) {
  Result r = RunFusebox("memory " + Example("reduce_sum.hlo") + " --both --top 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("fused:     peak "));
  EXPECT_THAT(r.out, HasSubstr("unfused:   peak "));
  EXPECT_THAT(r.out, HasSubstr("buffers alive at the fused peak"));
  EXPECT_THAT(r.out, HasSubstr("buffers alive at the unfused peak"));
  EXPECT_THAT(r.out, HasSubstr("more buffer(s)"));  // --top 2 leaves the rest summed
  EXPECT_THAT(r.out, HasSubstr("= the peak"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("!= the peak")));
}

TEST(CliMemoryTest, DumpFolderShowsXlasPeakAndItsFile) {
  std::string dump = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/reduce_sum";
  Result r = RunFuseboxStdout("memory " + dump);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("XLA's own figures"));
  EXPECT_THAT(r.out, HasSubstr("peak 768.0 KiB (786436 B) at step 3, %ynn_fusion"));
  EXPECT_THAT(r.out, HasSubstr("module_0000.jit_reduce_sum.cpu_after_optimizations-live-range.txt"));
  EXPECT_THAT(r.out, HasSubstr("total bytes 768.0 KiB (786448 B)"));
  EXPECT_THAT(r.out, HasSubstr("has no 'Total bytes used' line"));
}

TEST(CliMemoryTest, MalformedModuleGivesLocationAndExitOne) {
  std::string path = (std::filesystem::temp_directory_path() / "fusebox_memory_bad.hlo").string();
  std::ofstream(path) << "HloModule bad\nENTRY %e () -> f32[] {\n  ROOT %c = f32[] constant(\n}\n";
  Result r = RunFusebox("memory " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr(path + ":"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex(":[0-9]+:[0-9]+: "));
  std::remove(path.c_str());
  Result both = RunFusebox("memory " + Example("reduce_sum.hlo") + " --unfused --both");
  EXPECT_EQ(both.code, 1);
  EXPECT_THAT(both.out, HasSubstr("exclude each other"));
}

}  // namespace
}  // namespace fusebox::cli_test
