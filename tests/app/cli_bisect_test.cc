// `fusebox bisect`: on the MNIST step with a planted fusion bug it names the fusion pass,
// exits 1 and writes a repro that parses, has at most 10 instructions, and on which
// `--pass fusion` diverges with the bug and not without it; on XLA's dump folders no pass
// diverges; bad input is an error with its location.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "compiler/parser/parser.h"
#include "tests/app/cli_test_util.h"

namespace fusebox::cli_test {
namespace {

TEST(CliBisectTest, PlantedFusionBugIsNamedAndItsReproWritten) {
  const std::string repro = ::testing::TempDir() + "/bisect_repro.hlo";
  std::remove(repro.c_str());
  Result r = RunFusebox("bisect " + Example("mnist_train_step.hlo") + " --plant-bug fusion-drops-epilogue --repro " +
                        repro);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find(">>"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass fusion ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("repro written to"), std::string::npos) << r.out;
  std::ifstream in(repro);
  std::stringstream text;
  text << in.rdbuf();
  auto module = ParseModule(text.str());
  ASSERT_TRUE(module.ok()) << module.status().message() << "\n" << text.str();
  int64_t count = 0;
  for (const Computation* c : ProgramComputations(**module)) count += c->instruction_count();
  EXPECT_LE(count, 10) << text.str();
  r = RunFusebox("bisect " + repro + " --pass fusion --plant-bug fusion-drops-epilogue");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("moves the outputs beyond the bound"), std::string::npos) << r.out;
  r = RunFusebox("bisect " + repro + " --pass fusion");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("does not move"), std::string::npos) << r.out;
}

TEST(CliBisectTest, NoPassOfXlasDumpsDiverges) {
  for (const char* dump : {"mnist_train_step", "reduce_sum", "running_example"}) {
    SCOPED_TRACE(dump);
    Result r = RunFusebox("bisect " + std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/" + dump);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("XLA's passes of module"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no pass diverges"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("could not be evaluated"), std::string::npos) << r.out;
  }
}

TEST(CliBisectTest, BadInputIsAnErrorWithItsLocation) {
  const std::string bad = ::testing::TempDir() + "/bisect_bad.hlo";
  std::ofstream(bad) << "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] frobnicate(x)\n}\n";
  Result r = RunFusebox("bisect " + bad);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("bisect_bad.hlo:4:"), std::string::npos) << r.out;
  r = RunFusebox("bisect " + Example("mnist_train_step.hlo") + " --pass no-such-pass");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("no pass named 'no-such-pass'"), std::string::npos) << r.out;
}

// --against cpu with a planted code-generation bug: the kernel is named, written with its
// inputs, and `fusebox run` on them fails --check with the bug and passes without it.
TEST(CliBisectTest, AgainstCpuNamesTheKernelAndWritesItWithItsInputs) {
  const std::string dir = ::testing::TempDir() + "/bisect_kernel";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
  const std::string kernel = dir + "/kernel.hlo";
  Result r = RunFusebox("bisect " + Example("mnist_train_step.hlo") +
                        " --against cpu --plant-bug maximum-emitted-as-minimum --repro " + kernel +
                        " --repro-inputs " + dir);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("first kernel that differs: %fusion"), std::string::npos) << r.out;
  const size_t at = r.out.find("--inputs ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string inputs = r.out.substr(at + 9, r.out.find('\n', at) - at - 9);
  r = RunFusebox("run " + kernel + " --backend cpu --check --inputs " + inputs + " --plant-bug maximum-emitted-as-minimum");
  EXPECT_NE(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << r.out;
  r = RunFusebox("run " + kernel + " --backend cpu --check --inputs " + inputs);
  EXPECT_EQ(r.code, 0) << r.out;
  r = RunFusebox("bisect " + Example("mnist_train_step.hlo") + " --against cpu");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("every kernel matches on its own"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace fusebox::cli_test
