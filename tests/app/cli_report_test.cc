// `fusebox report` and `fusebox extract` through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/app/cli_test_util.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using cli_test::Example;
using cli_test::RunFusebox;
using cli_test::RunFuseboxStdout;

std::string TempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/fusebox_cli_report_" + std::to_string(::getpid()) + "_" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(CliReportTest, ReportFromADumpFolder) {
  std::string out = TempDir("dump");
  auto r = RunFusebox("report " + std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/mnist_train_step --out " +
                      out + " --iterations 1");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("wrote " + out + "/report.html"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fusebox-report-jit_mnist_train_step.tar.gz"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out + "/repro/replay.sh"));
  std::ifstream md(out + "/report.md");
  std::stringstream text;
  text << md.rdbuf();
  EXPECT_NE(text.str().find("XLA vs Fusebox: XLA 22 kernels, Fusebox 11"), std::string::npos) << text.str();
  fs::remove_all(out);
}

TEST(CliReportTest, ReportErrors) {
  auto missing_out = RunFusebox("report " + Example("mnist_train_step.hlo"));
  EXPECT_EQ(missing_out.code, 1);
  EXPECT_NE(missing_out.out.find("--out is required"), std::string::npos) << missing_out.out;
  auto bad_backend = RunFusebox("report " + Example("mnist_train_step.hlo") + " --out /tmp/x --backend tpu");
  EXPECT_EQ(bad_backend.code, 1);
  auto bad_file = RunFusebox("report /nonexistent.hlo --out /tmp/x");
  EXPECT_EQ(bad_file.code, 1);
  EXPECT_NE(bad_file.out.find("no such file"), std::string::npos);
}

TEST(CliReportTest, ExtractWritesARunnableModule) {
  std::string dir = TempDir("extract");
  fs::create_directories(dir);
  std::string out = dir + "/fusion.hlo";
  auto r = RunFusebox("extract " + Example("mnist_train_step.hlo") + " --instruction fusion.6 --height 1 -o " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("extracted %fusion.6 from Fusebox's optimized module"), std::string::npos) << r.out;
  auto run = RunFusebox("run " + out + " --backend cpu --check");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("check: matches the interpreter"), std::string::npos) << run.out;
  auto plain = RunFuseboxStdout("extract " + Example("mnist_train_step.hlo") + " --instruction %log.1");
  ASSERT_EQ(plain.code, 0);
  EXPECT_NE(plain.out.find("HloModule extracted_log.1"), std::string::npos);
  EXPECT_NE(plain.out.find("ROOT %log.1 = "), std::string::npos) << plain.out;
  auto typo = RunFusebox("extract " + Example("mnist_train_step.hlo") + " --instruction lgo.1");
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.out.find("did you mean %log.1"), std::string::npos) << typo.out;
  auto from_dump = RunFusebox("extract " + std::string(FUSEBOX_SOURCE_DIR) +
                              "/tests/data/xla_dumps/running_example --dump-stage after_optimizations "
                              "--instruction ynn_fusion");
  ASSERT_EQ(from_dump.code, 0) << from_dump.out;
  EXPECT_NE(from_dump.out.find("__ynn_fusion"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fusebox
