// `fusebox run --check` and `--expected` on models where the old fixed-tolerance check
// raised false alarms or could not have failed (tests/data/check/, made with jax).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/app/cli_test_util.h"

namespace fusebox::cli_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string CheckData(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/check/" + name;
}

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("fusebox_cli_check_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The two-layer MLP with log-softmax: small outputs made of large cancelling
// intermediates. Fused and unfused pass, and the bound used is printed per output.
TEST(CliCheckTest, MlpWithLogSoftmaxPassesFusedAndUnfused) {
  for (const char* mode : {"", " --unfused"}) {
    Result r = RunFusebox("run " + CheckData("mlp_logsoftmax.hlo") + " --backend cpu --check --threads 2" + mode);
    EXPECT_EQ(r.code, 0) << mode << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter: 2 of 2 output(s) compared (2561 elements"));
    EXPECT_THAT(r.out, HasSubstr("output 0 (f32[256,10]): 2560 elements match; largest error"));
    EXPECT_THAT(r.out, HasSubstr("× interpreter error"));
    EXPECT_THAT(r.out, HasSubstr("against the f64 shadow"));
  }
}

// Batch norm with its variances as parameters: the inputs keep them positive, so the
// logits are finite and the check compares them.
TEST(CliCheckTest, ResNetBlockChecksFiniteLogits) {
  Result r = RunFusebox("run " + CheckData("resnet_block.hlo") + " --backend cpu --check --threads 2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter: 1 of 1 output(s) compared (20 elements"));
  EXPECT_THAT(r.out, Not(HasSubstr("NaN")));
}

TEST(CliCheckTest, AllNanOutputsMakeTheCheckFailAsVacuous) {
  Result r = RunFusebox("run " + CheckData("all_nan.hlo") + " --backend cpu --check --threads 1");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: the check would be vacuous: output (f32[4,8]) is 100% NaN in the "
                               "interpreter; use other inputs"));
}

// Found by the differential fuzzer: x - mean(x) over constant rows is rounding noise,
// which rsqrt(var + eps) of a near-zero variance scales up. The CPU's f32 row sums and the
// interpreter's double sums legitimately differ there; the perturbed shadow runs give the
// bound room for it (before, "408 of 408 elements differ ... 1.63 of the bound").
TEST(CliCheckTest, NoFalseAlarmWhenCancelledSumsAreScaledUp) {
  const std::string module = std::string(FUSEBOX_SOURCE_DIR) + "/tests/regressions/check_false_alarm_seed_101596.hlo";
  for (const char* seed : {"0", "1", "101596"}) {
    Result r = RunFusebox("run " + module + " --backend cpu --check --threads 1 --seed " + seed);
    EXPECT_THAT(r.out, Not(HasSubstr("MISMATCH"))) << seed << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("2 × rounding spread (up to")) << r.out;
  }
}

// Found by the differential fuzzer: a module whose only output is an integer made from a
// float sum (convert(1e10 * dot)) got no f64 shadow, since the shadow was made only for
// float outputs; the ulp by which the CPU's GEMM and the interpreter's dot differ became
// "4 of 24 elements differ (exact)". The shadow now tells which integers the summation
// order decides, for this module whatever the backend's rounding.
TEST(CliCheckTest, IntegerOutputsOfFloatSumsGetTheShadow) {
  const std::string module =
      std::string(FUSEBOX_SOURCE_DIR) + "/tests/regressions/check_false_alarm_integer_outputs_only.hlo";
  for (const char* seed : {"1", "2"}) {
    Result r = RunFusebox("run " + module + " --backend cpu --unfused --check --threads 1 --seed " + seed);
    EXPECT_EQ(r.code, 0) << seed << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("integer element(s) not compared: rounding decides them")) << r.out;
  }
}

TEST(CliCheckTest, CheckNeedsABackend) {
  Result r = RunFusebox("run " + CheckData("mlp_logsoftmax.hlo") + " --check");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("--check compares a backend with the interpreter"));
}

// --expected: the backend's own outputs pass on the interpreter; other values fail; a
// wrong number of files is an error.
TEST(CliCheckTest, ExpectedOutputs) {
  const std::string dir = TempDir("expected");
  const std::string mlp = CheckData("mlp_logsoftmax.hlo");
  Result saved = RunFusebox("run " + mlp + " --backend cpu --threads 2 --output-dir " + dir);
  ASSERT_EQ(saved.code, 0) << saved.out;
  const std::string outs = dir + "/output_0.npy," + dir + "/output_1.npy";
  Result ok = RunFusebox("run " + mlp + " --expected " + outs);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_THAT(ok.out, HasSubstr("expected: matches the expected outputs: 2 of 2 output(s) compared"));

  // Outputs of other inputs (another seed): every value differs.
  Result seed5 = RunFusebox("run " + mlp + " --seed 5 --output-dir " + dir + "/seed5");
  ASSERT_EQ(seed5.code, 0) << seed5.out;
  Result bad = RunFusebox("run " + mlp + " --expected " + dir + "/seed5/output_0.npy," + dir + "/seed5/output_1.npy");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr("expected: MISMATCH with the expected outputs: output 0 (f32[256,10])"));
  Result count = RunFusebox("run " + mlp + " --expected " + dir + "/output_0.npy");
  EXPECT_EQ(count.code, 1) << count.out;
  EXPECT_THAT(count.out, HasSubstr("--expected has 1 file(s) but the module has 2 output(s)"));
}

}  // namespace
}  // namespace fusebox::cli_test
