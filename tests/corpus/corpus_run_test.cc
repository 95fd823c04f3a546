// Every example and every corpus module that verifies runs on the reference interpreter
// with random inputs. Modules it cannot run are listed with the reason; the list may only
// shrink: a listed module that starts running fails this test until it is removed.
//
// FUSEBOX_PRINT_RUN_FAILURES=1 prints the current failures in the list's format.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
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

// "<path relative to the source dir>#<module index>" -> a substring of the error and why.
struct Known {
  std::string error_substring;
  std::string why;
};
const std::map<std::string, Known>& KnownFailures() {
  static const auto* kKnown = new std::map<std::string, Known>{
      {"tests/data/xla_corpus/openxla_xla/xla/backends/cpu/benchmarks/hlo/graphsage_tf.hlo#0",
       {"values were elided", "large constants were elided ({...}) when the file was written"}},
      {"tests/data/xla_corpus/openxla_xla/xla/backends/cpu/benchmarks/hlo/ssd_mobilenet_tf.hlo#0",
       {"values were elided", "large constants were elided ({...}) when the file was written"}},
      {"tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/diffrax.b380012920.hlo#0",
       {"values were elided", "large constants were elided ({...}) when the file was written"}},
      {"tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/dlrm_keras_jax_f32_test_step.hlo#0",
       {"values were elided", "large constants were elided ({...}) when the file was written"}},
      {"tests/data/xla_corpus/openxla_xla/xla/backends/gpu/codegen/triton/tests/collectives/all_gather.hlo#0",
       {"needs 2 devices; this run has 1", "an all-gather over 2 devices; the interpreter is one device"}},
      {"tests/data/xla_corpus/openxla_xla/xla/tools/hlo_opt/tests/gpu_hlo_collective_cse.hlo#0",
       {"needs 8 devices; this run has 1", "an all-gather over 8 devices; the interpreter is one device"}},
      {"tests/data/xla_corpus/openxla_xla/xla/service/gpu/tests/l2_prefetch.hlo#0",
       {"needs 8 devices; this run has 1",
        "an all-reduce over all 8 replicas (replica_count=8); the interpreter is one device"}},
      {"tests/data/xla_corpus/openxla_xla/xla/backends/gpu/tests/pad_to_static.hlo#0",
       {"PadToStatic", "PadToStatic custom call (dynamic shapes are not modelled)"}},
      {"tests/data/xla_corpus/openxla_xla/xla/backends/gpu/tests/pad_to_static.hlo#1",
       {"PadToStatic", "PadToStatic custom call (dynamic shapes are not modelled)"}},
      {"tests/data/xla_corpus/openxla_xla/xla/codegen/emitters/tests/loop/broadcast_constant_block_dim_limit.hlo#0",
       {"2.2 TiB", "a 2.2 TiB broadcast written to test index limits"}},
      {"tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/jax.b380442861.hlo#0",
       {"work limit reached", "a benchmark of 10^12 element operations (10^6 loop trips over 10^6 elements): past the work budget"}},
      {"tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/in_place_dynamic_update_slice_fusion.hlo#0",
       {"work limit reached", "a long while-loop benchmark: past the work budget"}},
  };
  return *kKnown;
}

struct Case {
  std::string file;  // relative to the source dir
  size_t module_index;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.file << "#" << c.module_index; }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  fs::path src(FUSEBOX_SOURCE_DIR);
  std::vector<fs::path> files;
  for (const char* dir : {"assets/examples", "tests/data/xla_corpus"}) {
    for (const auto& e : fs::recursive_directory_iterator(src / dir)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".hlo" || ext == ".txt")) files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    auto parsed = ParseFile(f.string());
    if (!parsed.ok()) continue;  // corpus_test reports parse failures
    for (size_t i = 0; i < parsed->modules.size(); ++i) {
      cases.push_back({fs::relative(f, src).string(), i});
    }
  }
  return cases;
}

// Elements of all entry parameters: a proxy for how long the interpreter takes.
[[maybe_unused]] int64_t InputElements(const Module& m) {
  int64_t total = 0;
  for (const Instruction* p : m.entry()->parameters()) {
    if (p == nullptr) continue;
    ForEachSubshape(p->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) total += std::max<int64_t>(s.ElementCount(), 0);
    });
  }
  return total;
}

class CorpusRunTest : public ::testing::TestWithParam<Case> {};

TEST_P(CorpusRunTest, RunsOnTheInterpreter) {
  const Case& c = GetParam();
  std::string key = c.file + "#" + std::to_string(c.module_index);
  auto parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / c.file).string());
  ASSERT_TRUE(parsed.ok());
  const Module& module = *parsed->modules[c.module_index];
  bool verifies = true;
  for (const auto& issue : VerifyModule(module)) {
    if (issue.severity == VerifierIssue::Severity::kError) verifies = false;
  }
  if (!verifies) GTEST_SKIP() << "does not verify (corpus_test lists why)";
#ifdef FUSEBOX_SANITIZED
  if (InputElements(module) > (int64_t{1} << 18)) GTEST_SKIP() << "too large for a sanitizer build";
  // Small inputs can still mean much work (the pairwise benchmarks: 2^12 points, 2^24
  // pairs per op): under the sanitizers they spent 320 of this test's 350 CPU seconds
  // reaching the budget or just within it (docs/testing.md). Known before running.
  if (StaticResultElements(module) > (int64_t{1} << 26)) GTEST_SKIP() << "too much work for a sanitizer build";
#endif
  auto args = interpreter::RandomArguments(module, /*seed=*/1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  // A work budget: some corpus modules are benchmarks of 10^12 operations, which a
  // reference interpreter cannot finish. Running past the budget counts as a failure,
  // so such modules must be listed with that reason.
  interpreter::InterpreterOptions options;
  options.max_while_iterations = 1 << 20;
  // A module listed as running past the budget gets a tenth of it: it still has to reach
  // the limit (a module that finishes fails below), 10x sooner (jax.b380442861 took 84 s).
  auto known = KnownFailures().find(key);
  const bool past_budget = RunsPastTheBudget(key);
  ASSERT_EQ(past_budget, known != KnownFailures().end() &&
                             known->second.error_substring == std::string("work limit reached"))
      << key << ": listed as running past the budget here or in run_with_budget.h, not both";
  auto result = RunWithBudget(module, *args, options, past_budget ? 10 : 1);
#ifdef FUSEBOX_SANITIZED
  if (!result.ok() && StoppedByBudget(result.status())) GTEST_SKIP() << "more work than a sanitizer build's budget";
#endif
  if (std::getenv("FUSEBOX_PRINT_RUN_FAILURES") && !result.ok()) {
    std::cout << "KNOWN {\"" << key << "\", {\"" << result.status().message().substr(0, 200)
              << "\"}}\n";
  }
  if (known == KnownFailures().end()) {
    EXPECT_TRUE(result.ok()) << key << ": " << result.status().message();
  } else {
    ASSERT_FALSE(result.ok()) << key << " is listed as not running (" << known->second.why
                              << ") but runs now: remove it from the list";
    EXPECT_NE(result.status().message().find(known->second.error_substring), std::string::npos)
        << key << " fails differently now: " << result.status().message();
  }
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::to_string(info.index) + "_" + fs::path(info.param.file).stem().string() +
                     "_" + std::to_string(info.param.module_index);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRunTest, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace fusebox
