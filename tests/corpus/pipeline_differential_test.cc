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
#include "tests/corpus/corpus_cases.h"
#include "tests/corpus/run_with_budget.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

using testing_util::AllCases;
using testing_util::Case;
using testing_util::CaseName;
using testing_util::InputElements;

class PipelineDifferentialTest : public ::testing::TestWithParam<Case> {};

TEST_P(PipelineDifferentialTest, SameResultBeforeAndAfter) {
  const Case& c = GetParam();
  auto parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / c.file).string());
  ASSERT_TRUE(parsed.ok());
  std::unique_ptr<Module> module = std::move(parsed->modules[c.module_index]);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
  if (RunsPastTheBudget(c.file + "#" + std::to_string(c.module_index))) {
    GTEST_SKIP() << "runs past the interpreter's work budget (corpus_run_test checks that it still does)";
  }
#ifdef FUSEBOX_SANITIZED
  const int64_t kLimit = int64_t{1} << 18;
#else
  const int64_t kLimit = c.example ? INT64_MAX : int64_t{1} << 22;
#endif
  if (InputElements(*module) > kLimit) GTEST_SKIP() << "inputs too large for this test";

  session::CompileSession session(module->Clone());
  Status st = session.Optimize();
  ASSERT_TRUE(st.ok()) << st.message();
  const Module& optimized = *session.optimized_module();
  Status verified = Verify(optimized);
  ASSERT_TRUE(verified.ok()) << verified.message();
  std::string text = optimized.ToString();
  auto reparsed = ParseModule(text);
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  EXPECT_EQ((*reparsed)->ToString(), text);

  auto args = interpreter::RandomArguments(*module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  interpreter::InterpreterOptions options;
  options.max_while_iterations = 1 << 16;
  // Corpus benchmarks too big for an interpreter are skipped (corpus_run_test lists them).
  auto before = RunWithBudget(*module, *args, options);
  if (!before.ok()) GTEST_SKIP() << "the interpreter cannot run it: " << before.status().message();
  auto after = RunWithBudget(optimized, *args, options);
#ifdef FUSEBOX_SANITIZED
  if (!after.ok() && StoppedByBudget(after.status())) GTEST_SKIP() << "more work than a sanitizer build's budget";
#endif
  ASSERT_TRUE(after.ok()) << "the optimized module fails where the input ran: "
                          << after.status().message();
  PrimitiveType type = PrimitiveType::kF32;
  ForEachSubshape(before->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
    if (s.IsArray()) type = s.element_type();
  });
  interpreter::CompareResult cmp = interpreter::CompareLiterals(*after, *before, interpreter::DefaultToleranceFor(type));
  EXPECT_TRUE(cmp.ok()) << c.file << ": " << cmp.ToString();
}

INSTANTIATE_TEST_SUITE_P(Corpus, PipelineDifferentialTest, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace fusebox
