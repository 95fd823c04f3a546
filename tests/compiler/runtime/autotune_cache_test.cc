// The autotune cache (compiler/runtime/autotune_cache.h) without a GPU: choices round-trip
// through the file format exactly; a file that is not a cache, or has a malformed line, is
// an error naming file:line and merges nothing; and the keys tell apart every property of
// a call that makes it another problem for the library (so that a choice is never applied
// to a call it was not timed for), while calls that are the same problem share one.
#include "compiler/runtime/autotune_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"

namespace fusebox {
namespace {

using runtime::AutotuneCache;
using runtime::AutotuneRecord;
using ::testing::HasSubstr;

const AutotuneRecord kCudnnChoice{{1, 3, 0x4000}, true, "IMPLICIT_PRECOMP_GEMM 20.3 us, heuristic's first GEMM 41.0 us"};
const AutotuneRecord kLtChoice{{0xdeadbeefcafef00dULL, 0, 7, 1, 2, 3, 4, 0xffffffffffffffffULL, 0},
                               false,
                               "the heuristic's #1 of 8, 2.1 us"};

TEST(AutotuneCacheTest, ChoicesRoundTripThroughTheFileFormat) {
  AutotuneCache cache;
  ASSERT_TRUE(cache.Insert("cuDNN 9.19.0 | H200 sm_90 | conv b", kCudnnChoice).ok());
  ASSERT_TRUE(cache.Insert("cuBLASLt 13.1.0 | H200 sm_90 | gemm a", kLtChoice).ok());
  ASSERT_TRUE(cache.Insert("empty numbers", AutotuneRecord{{}, false, ""}).ok());
  EXPECT_EQ(cache.size(), 3u);
  const std::string text = cache.ToText();
  EXPECT_EQ(text.rfind(std::string(AutotuneCache::kHeader) + "\n", 0), 0u) << text;
  // Sorted by key: the file is the same for the same choices.
  EXPECT_LT(text.find("cuBLASLt"), text.find("cuDNN"));
  EXPECT_THAT(text, HasSubstr("\t1\t1,3,4000\tIMPLICIT_PRECOMP_GEMM"));

  AutotuneCache back;
  size_t loaded = 0;
  ASSERT_TRUE(back.LoadText(text, "cache.txt", &loaded).ok());
  EXPECT_EQ(loaded, 3u);
  EXPECT_EQ(back.Find("cuDNN 9.19.0 | H200 sm_90 | conv b"), kCudnnChoice);
  EXPECT_EQ(back.Find("cuBLASLt 13.1.0 | H200 sm_90 | gemm a"), kLtChoice);
  EXPECT_EQ(back.Find("empty numbers"), (AutotuneRecord{{}, false, ""}));
  EXPECT_FALSE(back.Find("cuDNN 9.19.0 | H200 sm_90 | conv c").has_value());
  EXPECT_EQ(back.ToText(), text);

  // Through a file (written by rename over the path), merged into what is there.
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "autotune_cache_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "tuned.txt").string();
  ASSERT_TRUE(cache.Save(path).ok());
  AutotuneCache merged;
  ASSERT_TRUE(merged.Insert("already here", kLtChoice).ok());
  ASSERT_TRUE(merged.Insert("cuBLASLt 13.1.0 | H200 sm_90 | gemm a", kCudnnChoice).ok());
  ASSERT_TRUE(merged.Load(path, &loaded).ok());
  EXPECT_EQ(loaded, 3u);
  EXPECT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged.Find("cuBLASLt 13.1.0 | H200 sm_90 | gemm a"), kLtChoice) << "the file's choice replaces";
  EXPECT_EQ(merged.Find("already here"), kLtChoice);
  std::filesystem::remove_all(dir);
}

TEST(AutotuneCacheTest, MalformedFilesNameTheLineAndMergeNothing) {
  const std::string header = std::string(AutotuneCache::kHeader) + "\n";
  const std::string good = "key one\t0\t1,2\tfine\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {"", "c.txt:1: empty file"},
      {"key\t0\t1\ttext\n", "c.txt:1: not a Fusebox autotune cache"},
      {header + good + "key two\t0\t1\n", "c.txt:3: expected 4 tab-separated fields"},
      {header + good + "key two\t0\t1\ta\tb\n", "c.txt:3: expected 4 tab-separated fields"},
      {header + "\t0\t1\ttext\n", "c.txt:2: empty key"},
      {header + good + "key two\tyes\t1\ttext\n", "c.txt:3: the second field (moved) must be 0 or 1"},
      {header + "key two\t1\t1,,2\ttext\n", "c.txt:2: the third field must be comma-separated hexadecimal"},
      {header + "key two\t1\t1,2,\ttext\n", "c.txt:2: the third field"},
      {header + "key two\t1\tAB\ttext\n", "c.txt:2: the third field"},
      {header + "key two\t1\t-1\ttext\n", "c.txt:2: the third field"},
      {header + "key two\t1\t10000000000000000\ttext\n", "c.txt:2: the third field"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    AutotuneCache cache;
    ASSERT_TRUE(cache.Insert("kept", kLtChoice).ok());
    Status status = cache.LoadText(c.text, "c.txt");
    ASSERT_FALSE(status.ok());
    EXPECT_THAT(status.message(), HasSubstr(c.message));
    EXPECT_EQ(cache.size(), 1u) << "nothing merged from a malformed file";
    EXPECT_FALSE(cache.Find("key one").has_value());
  }
  // Blank lines and Windows line ends are read.
  AutotuneCache cache;
  ASSERT_TRUE(cache.LoadText(header + "\n" + "k\t1\tff\tt\r\n", "c.txt").ok());
  EXPECT_EQ(cache.Find("k"), (AutotuneRecord{{255}, true, "t"}));
  // Files: one whose first line is not the header is refused from that line (a binary file
  // is not read whole); Windows line ends and a header alone load.
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "autotune_cache_files";
  std::filesystem::create_directories(dir);
  const std::string binary = (dir / "binary").string();
  std::ofstream(binary, std::ios::binary) << std::string(100000, '\0') << "\n" << header << good;
  Status refused = cache.Load(binary);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr(binary + ":1: not a Fusebox autotune cache"));
  const std::string crlf = (dir / "crlf.txt").string();
  std::ofstream(crlf, std::ios::binary) << AutotuneCache::kHeader << "\r\nk2\t0\t1\tx\r\n";
  size_t loaded = 0;
  ASSERT_TRUE(cache.Load(crlf, &loaded).ok());
  EXPECT_EQ(loaded, 1u);
  EXPECT_EQ(cache.Find("k2"), (AutotuneRecord{{1}, false, "x"}));
  const std::string bare = (dir / "bare.txt").string();
  std::ofstream(bare, std::ios::binary) << AutotuneCache::kHeader;
  ASSERT_TRUE(cache.Load(bare, &loaded).ok());
  EXPECT_EQ(loaded, 0u);
  std::filesystem::remove_all(dir);
  // A missing file names itself.
  Status missing = cache.Load("/nonexistent/tuned.txt");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_THAT(missing.message(), HasSubstr("/nonexistent/tuned.txt"));
  // What would break the format is refused on the way in.
  EXPECT_FALSE(cache.Insert("a\tb", kLtChoice).ok());
  EXPECT_FALSE(cache.Insert("a\nb", kLtChoice).ok());
  EXPECT_FALSE(cache.Insert("", kLtChoice).ok());
  EXPECT_FALSE(cache.Insert("k", AutotuneRecord{{}, false, "two\nlines"}).ok());
}

GemmPlan SomeGemm() {
  GemmPlan plan;
  plan.m = 512;
  plan.n = 256;
  plan.k = 784;
  plan.a = {1, false, 512, 0, GemmDataType::kF32};
  plan.b = {0, true, 784, 0, GemmDataType::kF32};
  plan.ldc = 512;
  plan.compute = GemmComputeType::kF32FastTf32;
  return plan;
}

TEST(AutotuneCacheTest, GemmKeysTellEveryDifferentProblemApart) {
  const std::string scope = runtime::AutotuneScope("cuBLASLt 13.1.0", "NVIDIA H200", 9, 0);
  EXPECT_EQ(scope, "cuBLASLt 13.1.0 | NVIDIA H200 sm_90");
  const GemmPlan base = SomeGemm();
  const std::string key = runtime::GemmAutotuneKey(scope, base, 32 << 20);
  std::set<std::string> keys = {key};
  auto differs = [&](const std::string& what, const GemmPlan& plan, int64_t workspace = 32 << 20,
                     const std::string& other_scope = "") {
    const std::string k = runtime::GemmAutotuneKey(other_scope.empty() ? scope : other_scope, plan, workspace);
    EXPECT_TRUE(keys.insert(k).second) << what << " does not change the key: " << k;
  };
  GemmPlan p = base;
  p.m = 511;
  differs("m", p);
  p = base, p.n = 255, differs("n", p);
  p = base, p.k = 783, differs("k", p);
  p = base, p.batch = 2, differs("batch", p);
  p = base, p.a.transpose = true, differs("A's transpose", p);
  p = base, p.b.transpose = false, differs("B's transpose", p);
  p = base, p.a.ld = 1024, differs("A's ld", p);
  p = base, p.b.ld = 800, differs("B's ld", p);
  p = base, p.a.batch_stride = 4096, differs("A's batch stride", p);
  p = base, p.b.batch_stride = 4096, differs("B's batch stride", p);
  p = base, p.a.operand = 0, differs("which operand is A", p);
  p = base, p.a.type = GemmDataType::kBF16, differs("A's type", p);
  p = base, p.b.type = GemmDataType::kF16, differs("B's type", p);
  p = base, p.c_type = GemmDataType::kBF16, differs("C's type", p);
  p = base, p.ldc = 520, differs("ldc", p);
  p = base, p.c_batch_stride = 4096, differs("C's batch stride", p);
  p = base, p.compute = GemmComputeType::kF32, differs("full f32 compute", p);
  p = base, p.alpha = 0.5, differs("alpha", p);
  p = base, p.beta = 1, differs("beta", p);
  p = base, p.epilogue = GemmEpilogue::kBias, p.bias_operand = 2, differs("the bias epilogue", p);
  p = base, p.epilogue = GemmEpilogue::kRelu, differs("the relu epilogue", p);
  differs("the workspace limit", base, 16 << 20);
  differs("the device", base, 32 << 20, runtime::AutotuneScope("cuBLASLt 13.1.0", "NVIDIA H100", 9, 0));
  differs("the library version", base, 32 << 20, runtime::AutotuneScope("cuBLASLt 13.0.0", "NVIDIA H200", 9, 0));
  // The same problem: a loop of calls times and runs each call the same.
  p = base;
  p.loops.push_back({4, 512 * 784, 784 * 256, 512 * 256});
  EXPECT_EQ(runtime::GemmAutotuneKey(scope, p, 32 << 20), key);
  // No tab or newline from a device name reaches the file.
  EXPECT_EQ(runtime::AutotuneScope("lib", "odd\tname\n", 8, 6), "lib | odd name  sm_86");
}

ConvPlan SomeConv() {
  ConvPlan plan;
  plan.input = {{8, 16, 32, 32}, {16384, 1, 512, 16}};
  plan.kernel = {{32, 16, 3, 3}, {144, 1, 48, 16}};
  plan.output = {{8, 32, 32, 32}, {32768, 1, 1024, 32}};
  plan.padding = {1, 1};
  plan.kernel_elements = 32 * 16 * 9;
  return plan;
}

TEST(AutotuneCacheTest, ConvolutionKeysTellEveryDifferentProblemApart) {
  const std::string scope = runtime::AutotuneScope("cuDNN 9.19.0", "NVIDIA H200", 9, 0);
  const ConvPlan base = SomeConv();
  std::set<std::string> keys;
  auto differs = [&](const std::string& what, const ConvPlan& plan, FilterLayout layout = FilterLayout::kKrsc,
                     bool split = false, int64_t workspace = 256 << 20) {
    const std::string k = runtime::ConvAutotuneKey(scope, plan, layout, split, workspace);
    EXPECT_TRUE(keys.insert(k).second) << what << " does not change the key: " << k;
  };
  differs("the base", base);
  ConvPlan p = base;
  p.input.dims[0] = 4, differs("the batch", p);
  p = base, p.input.strides = {16384, 1024, 32, 1}, differs("x's layout", p);
  p = base, p.kernel.dims[2] = 5, differs("the window", p);
  p = base, p.kernel.strides = {144, 9, 3, 1}, differs("w's layout", p);
  p = base, p.output.strides = {32768, 1024, 32, 1}, differs("y's layout", p);
  p = base, p.padding = {0, 1}, differs("padding", p);
  p = base, p.stride = {2, 2}, differs("stride", p);
  p = base, p.dilation = {2, 1}, differs("dilation", p);
  p = base, p.groups = 2, differs("groups", p);
  p = base, p.type = GemmDataType::kF16, differs("the type", p);
  p = base, p.tf32 = false, differs("full f32 math", p);
  p = base, p.call = ConvCall::kBackwardData, differs("backward data", p);
  p = base, p.call = ConvCall::kBackwardFilter, differs("backward filter", p);
  differs("the filter layout", base, FilterLayout::kKcrs);
  differs("the workspace limit", base, FilterLayout::kKrsc, false, 64 << 20);
  p = base;
  p.bias_activation = ConvBiasActivation{};
  p.bias_activation->bias = {{1, 32, 1, 1}, {32, 1, 1, 1}};
  differs("a fused identity", p);
  differs("a fused call run split", p, FilterLayout::kKrsc, true);
  p.bias_activation->activation = ConvFusedActivation::kRelu;
  differs("a fused relu", p);
  p.bias_activation->side_input = true;
  p.bias_activation->alpha2 = 1;
  differs("a side input", p);
  p.bias_activation->alpha1 = 0.5;
  differs("the result scale", p);
}

}  // namespace
}  // namespace fusebox
