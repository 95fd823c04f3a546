// CLI tests for the compile-time trace: `fusebox compile|run --compile-trace T.json` writes
// Chrome trace JSON with the parse, every pass, kernel emission, LLVM and code generation as
// spans of one "compile" process, and prints where the time went; without the flags,
// nothing of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Example;
using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using ::testing::HasSubstr;
using ::testing::Not;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
}

// Span names by category, from the file's complete events.
std::map<std::string, std::set<std::string>> SpansByCategory(const nlohmann::json& doc) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") == "X") out[e.value("cat", "")].insert(e.value("name", ""));
  }
  return out;
}

TEST(CliCompileTraceTest, CompileWritesSpansOfEveryStepAndPrintsTheSummary) {
  const std::string path = testing::TempDir() + "/cli_compile_trace.json";
  std::filesystem::remove(path);
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage cpu_asm -o /dev/null --compile-trace " + path);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("wrote the compile trace"));
  EXPECT_THAT(r.out, HasSubstr("self time by category"));
  EXPECT_THAT(r.out, HasSubstr("top "));
  const nlohmann::json doc = ReadJson(path);
  ASSERT_FALSE(doc.is_discarded()) << "not JSON: " << path;
  auto spans = SpansByCategory(doc);
  EXPECT_EQ(spans["parse"], std::set<std::string>{"parse"});
  for (const char* pass : {"algsimp", "cse", "dce", "fusion", "multi-output-fusion"}) {
    EXPECT_EQ(spans["pass"].count(pass), 1u) << pass;
  }
  EXPECT_EQ(spans["codegen"], std::set<std::string>{"fusion"});  // the one fused kernel
  EXPECT_EQ(spans["llvm"].count("optimize"), 1u);
  EXPECT_EQ(spans["machine-code"], (std::set<std::string>{"assembly", "object"}));
  EXPECT_EQ(spans["jit"], std::set<std::string>{"jit link"});
  std::set<std::string> processes;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") processes.insert(e["args"].value("name", ""));
  }
  EXPECT_EQ(processes, std::set<std::string>{"compile"});
}

TEST(CliCompileTraceTest, RunTracesBothCompilesAndBufferAssignment) {
  Result r = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --threads 1 --compile-trace-summary");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("self time by category"));
  EXPECT_THAT(r.out, HasSubstr("buffers"));
  EXPECT_THAT(r.out, HasSubstr("compile (fused)"));
  EXPECT_THAT(r.out, Not(HasSubstr("wrote the compile trace")));
}

TEST(CliCompileTraceTest, WithoutTheFlagsNothingIsTracedAndABadPathIsAUserError) {
  Result plain = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage optimized_hlo");
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_THAT(plain.out, Not(HasSubstr("compile trace")));
  Result bad = RunFusebox("compile " + Example("reduce_sum.hlo") + " --compile-trace /nonexistent/dir/t.json");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr("/nonexistent/dir/t.json"));
}

}  // namespace
