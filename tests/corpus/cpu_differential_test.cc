// Differential test of the CPU backend: every example and every corpus module the
// interpreter can run is compiled fused (the whole pipeline) and unfused (one kernel per
// op), run on random inputs, and compared with the interpreter. Modules the backend
// cannot compile yet must be listed in kNotCompiled with the reason; the list only
// shrinks.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <filesystem>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/check/numeric_check.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
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

// Corpus files (relative to tests/data/xla_corpus) the CPU backend cannot compile yet,
// with the op that stops it. A module that starts compiling must be removed from here.
const std::map<std::string, std::string>& NotCompiled() {
  static const auto* list = new std::map<std::string, std::string>{
  };
  return *list;
}

class CpuDifferentialTest : public ::testing::TestWithParam<Case> {};

TEST_P(CpuDifferentialTest, FusedAndUnfusedMatchTheInterpreter) {
  const Case& c = GetParam();
  auto parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / c.file).string());
  ASSERT_TRUE(parsed.ok());
  std::unique_ptr<Module> module = std::move(parsed->modules[c.module_index]);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
  if (RunsPastTheBudget(c.file + "#" + std::to_string(c.module_index))) {
    GTEST_SKIP() << "runs past the interpreter's work budget (corpus_run_test checks that it still does)";
  }
#ifdef FUSEBOX_SANITIZED
  // Under the sanitizers the emitter and runtime are checked on the smaller modules; the
  // release run covers the rest.
  const int64_t kLimit = int64_t{1} << 16;
#else
  const int64_t kLimit = c.example ? int64_t{1} << 24 : int64_t{1} << 22;
#endif
  if (InputElements(*module) > kLimit) GTEST_SKIP() << "inputs too large for this test";
  auto args = interpreter::RandomArguments(*module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  interpreter::InterpreterOptions options;
  options.max_while_iterations = 1 << 16;
  options.max_instructions = kMaxInstructions;
  options.max_elements = kMaxElements;
  // The interpreter and its f64 shadow: the check's bound comes from the interpreter's own
  // error on each output, so long sums with cancellation need no hand-set tolerance.
  check::CheckOptions check_options;
  check_options.interpreter = options;
  auto reference = check::ComputeCheckReference(*module, *args, check_options);
  if (!reference.ok()) GTEST_SKIP() << "the interpreter cannot run it: " << reference.status().message();
  const std::string key = fs::path(c.file).filename().string() + "#" + std::to_string(c.module_index);
  auto listed = NotCompiled().find(key);
  bool any_failed = false;
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForBackend(*module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    runtime::CpuExecutableOptions exe_options;
    exe_options.threads = 2;
    auto exe = runtime::CpuExecutable::Create(std::move(*optimized), exe_options);
    if (!exe.ok()) {
      any_failed = true;
      EXPECT_NE(listed, NotCompiled().end()) << key << ": " << exe.status().message();
      if (listed != NotCompiled().end()) {
        EXPECT_NE(exe.status().message().find(listed->second), std::string::npos)
            << key << " fails for another reason now: " << exe.status().message();
      }
      continue;
    }
    auto actual = (*exe)->Run(*args);
    ASSERT_TRUE(actual.ok()) << key << ": " << actual.status().message();
    check::CheckReport report = CheckOutputs(*actual, *reference, *args, check_options);
    EXPECT_TRUE(report.ok()) << key << ": " << report.Details();
    // A module whose outputs are all constant or NaN on these inputs checks nothing:
    // said in the log (corpus modules are what they are; none may fail for it).
    if (report.vacuous()) std::cout << key << ": " << report.Summary() << "\n";
  }
  // Listed modules must still fail in at least one mode (fused or unfused).
  EXPECT_TRUE(listed == NotCompiled().end() || any_failed) << key << " compiles now: remove it from NotCompiled()";
}

INSTANTIATE_TEST_SUITE_P(Corpus, CpuDifferentialTest, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace fusebox
