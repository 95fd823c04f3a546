// Differential test of the optimization pipeline: for every example and every corpus
// module the interpreter can run, the optimized module verifies, prints as text that
// parses back, and computes the same result as the input on random inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "compiler/verifier/verifier.h"
#include "tests/corpus/run_with_budget.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_SANITIZED 1
#endif
#endif

namespace fusebox {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string file;
  size_t module_index;
  bool example;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.file << "#" << c.module_index; }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  fs::path src(FUSEBOX_SOURCE_DIR);
  for (const char* dir : {"assets/examples", "tests/data/xla_corpus"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(src / dir)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".hlo" || ext == ".txt")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      auto parsed = ParseFile(f.string());
      if (!parsed.ok()) continue;
      for (size_t i = 0; i < parsed->modules.size(); ++i) {
        cases.push_back({fs::relative(f, src).string(), i, std::string(dir) == "assets/examples"});
      }
    }
  }
  return cases;
}

int64_t InputElements(const Module& m) {
  int64_t total = 0;
  for (const Instruction* p : m.entry()->parameters()) {
    if (p == nullptr) continue;
    ForEachSubshape(p->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) total += std::max<int64_t>(s.ElementCount(), 0);
    });
  }
  return total;
}

class PipelineDifferentialTest : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineDifferentialTest, SameResultBeforeAndAfter) {
  const Case& c = GetParam();
  auto parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / c.file).string());
  ASSERT_TRUE(parsed.ok());
  std::unique_ptr<Module> module = std::move(parsed->modules[c.module_index]);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
#ifdef FUSEBOX_SANITIZED
  const int64_t kLimit = int64_t{1} << 20;
#else
  const int64_t kLimit = c.example ? INT64_MAX : int64_t{1} << 22;
#endif
  if (InputElements(*module) > kLimit) GTEST_SKIP() << "inputs too large for this test";

  CompileSession session(module->Clone());
  Status st = session.Optimize();
  ASSERT_TRUE(st.ok()) << st.message();
  const Module& optimized = *session.optimized_module();
  Status verified = Verify(optimized);
  ASSERT_TRUE(verified.ok()) << verified.message();
  std::string text = optimized.ToString();
  auto reparsed = ParseModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  EXPECT_EQ((*reparsed)->ToString(), text);

  auto args = RandomArguments(*module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  InterpreterOptions options;
  options.max_while_iterations = 1 << 16;
  // Corpus benchmarks too big for an interpreter are skipped (corpus_run_test lists them).
  auto before = RunWithBudget(*module, *args, options);
  if (!before.ok()) GTEST_SKIP() << "the interpreter cannot run it: " << before.status().message();
  auto after = RunWithBudget(optimized, *args, options);
  ASSERT_TRUE(after.ok()) << "the optimized module fails where the input ran: "
                          << after.status().message();
  PrimitiveType type = PrimitiveType::kF32;
  ForEachSubshape(before->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
    if (s.IsArray()) type = s.element_type();
  });
  CompareResult cmp = CompareLiterals(*after, *before, DefaultToleranceFor(type));
  EXPECT_TRUE(cmp.ok()) << c.file << ": " << cmp.ToString();
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::to_string(info.index) + "_" + fs::path(info.param.file).stem().string() +
                     "_" + std::to_string(info.param.module_index);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, PipelineDifferentialTest, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace fusebox
