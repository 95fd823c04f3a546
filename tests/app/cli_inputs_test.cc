// CLI tests for what `fusebox run` feeds a module: random inputs chosen from each
// parameter's uses (--explain-inputs), and --inputs as one .npz or one HloSnapshot. Run
// through the real binary on a batch-norm module jax dumped (tests/data/inputs/).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "compiler/interpreter/npy.h"
#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using fusebox::cli_test::RunFuseboxStdout;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kData = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/inputs/";
const std::string kDump = kData + "batch_norm";
const std::string kSnapshot = kDump + "/module_0000.jit_batch_norm.snapshot.0.pb";

constexpr const char* kVarLine =
    "  parameter 2 (%var.1, f32[8]): uniform [0.5, 1.5): reaches rsqrt (%rsqrt.1) through add "
    "(%add.5)\n";

TEST(CliInputsTest, ExplainInputsAloneOnStdout) {
  Result r = RunFuseboxStdout("run " + kDump + " --explain-inputs");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("inputs of jit_batch_norm (random, seed 0):\n"
                               "  parameter 0 (%x.1, f32[4,8]): uniform [-1, 1): default\n"
                               "  parameter 1 (%mean.1, f32[8]): uniform [-1, 1): default\n" +
                               std::string(kVarLine) +
                               "  parameter 3 (%scale.1, f32[8]): uniform [-1, 1): default\n"
                               "  parameter 4 (%offset.1, f32[8]): uniform [-1, 1): default\n"
                               "output: f32[4,8]\n"));
}

TEST(CliInputsTest, ExplainInputsWithTheCpuBackend) {
  Result r = RunFusebox("run " + kDump + " --backend cpu --seed 4 --explain-inputs");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("inputs of jit_batch_norm (random, seed 4):\n"));
  EXPECT_THAT(r.out, HasSubstr(kVarLine));
}

TEST(CliInputsTest, RandomBatchNormOutputsAreFinite) {
  // With variances in [-1, 1) about half of var + 0.001 is negative and rsqrt gives NaN.
  for (const char* seed : {"0", "1", "2"}) {
    Result r = RunFuseboxStdout("run " + kDump + " --print --seed " + seed);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("output: f32[4,8] {"));
    EXPECT_THAT(r.out, Not(HasSubstr("nan"))) << "seed " << seed << ": " << r.out;
  }
}

// The output written by `run ... --output-dir DIR` equals jax's result.
void ExpectJaxOutput(const std::string& args) {
  const std::string dir = testing::TempDir() + "/cli_inputs_out";
  std::filesystem::remove_all(dir);
  Result r = RunFusebox("run " + kDump + " " + args + " --output-dir " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  auto got = fusebox::interpreter::ReadNpy(dir + "/output.npy");
  auto want = fusebox::interpreter::ReadNpy(kData + "batch_norm_expected.npy");
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->element_count(), want->element_count());
  for (int64_t i = 0; i < got->element_count(); ++i) {
    EXPECT_NEAR(got->GetDouble(i), want->GetDouble(i),
                1e-5 * std::max(1.0, std::abs(want->GetDouble(i))))
        << args << ": element " << i;
  }
}

TEST(CliInputsTest, NpzAndSnapshotInputsGiveJaxResult) {
  ExpectJaxOutput("--inputs " + kData + "batch_norm_positional.npz");
  ExpectJaxOutput("--inputs " + kData + "batch_norm_named.npz");
  ExpectJaxOutput("--inputs " + kSnapshot);
  ExpectJaxOutput("--inputs " + kSnapshot + " --backend cpu");
}

TEST(CliInputsTest, ExplainInputsNamesTheFiles) {
  Result r = RunFuseboxStdout("run " + kDump + " --inputs " + kData +
                              "batch_norm_named.npz --explain-inputs");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("inputs of jit_batch_norm (from --inputs):\n"));
  EXPECT_THAT(r.out, HasSubstr("  parameter 2 (%var.1, f32[8]): " + kData +
                               "batch_norm_named.npz member 'var'\n"));
}

TEST(CliInputsTest, ASnapshotAsFileRunsOnItsOwnArguments) {
  Result r = RunFusebox("run " + kSnapshot + " --explain-inputs");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: using the 5 argument(s) recorded in the snapshot"));
  EXPECT_THAT(r.out, HasSubstr("  parameter 0 (%x.1, f32[4,8]): " + kSnapshot + " argument 0\n"));
  // --seed asks for random ones.
  Result random = RunFusebox("run " + kSnapshot + " --explain-inputs --seed 2");
  EXPECT_EQ(random.code, 0) << random.out;
  EXPECT_THAT(random.out, HasSubstr("(random, seed 2)"));
}

TEST(CliInputsTest, MismatchesAreUserErrors) {
  Result extra = RunFusebox("run " + kDump + " --inputs " + kData + "bad_extra.npz");
  EXPECT_EQ(extra.code, 1) << extra.out;
  EXPECT_THAT(extra.out,
              HasSubstr("error: " + kData + "bad_extra.npz: member 'arr_5' matches no parameter"));
  Result shape = RunFusebox("run " + kDump + " --inputs " + kData + "bad_shape.npz");
  EXPECT_EQ(shape.code, 1) << shape.out;
  EXPECT_THAT(shape.out, HasSubstr("bad_shape.npz member 'arr_2': holds float32[4] but parameter 2 "
                                   "(%var.1) is f32[8]"));
  Result dtype = RunFusebox("run " + kDump + " --inputs " + kData + "bad_dtype.npz");
  EXPECT_EQ(dtype.code, 1) << dtype.out;
  EXPECT_THAT(dtype.out, HasSubstr("bad_dtype.npz member 'arr_0': holds float64[4,8] but "
                                   "parameter 0 (%x.1) is f32[4,8]"));
}

TEST(CliInputsTest, HelpDocumentsTheInputForms) {
  Result r = RunFusebox("run --help");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--explain-inputs"));
  EXPECT_THAT(r.out, HasSubstr("x.npz"));
  EXPECT_THAT(r.out, HasSubstr("snapshot.pb"));
}

}  // namespace
