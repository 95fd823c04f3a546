// Runs the interpreter with a deterministic work budget (some corpus modules are
// benchmarks of 10^12 operations): past it the run fails with "work limit reached".
// Instruction and element counts, not wall time, so the outcome is the same on every
// machine and in every build.
#pragma once

#include <algorithm>
#include <set>
#include <string>

#include "compiler/interpreter/interpreter.h"

namespace fusebox {

// 10^8 instructions (comparator-heavy sorts exceed it) and 10^10 elements (the running
// example produces about 2*10^9).
// Sanitized builds run the interpreter several times slower: they get a tenth of the
// budget, and the corpus sweeps skip what needs more (the release run covers it).
#ifdef FUSEBOX_SANITIZED
inline constexpr int64_t kBudgetDivisor = 10;
#else
inline constexpr int64_t kBudgetDivisor = 1;
#endif
inline constexpr int64_t kMaxInstructions = 100'000'000 / kBudgetDivisor;
inline constexpr int64_t kMaxElements = 10'000'000'000 / kBudgetDivisor;

// True for the error of a run stopped by the budget.
inline bool StoppedByBudget(const Status& status) {
  return status.message().find("work limit") != std::string::npos;
}

// Corpus modules (file#module) that run past the budget. corpus_run_test lists them with
// that reason and checks, at a tenth of the budget, that they still stop there (and fails
// when one finishes); the differential tests skip them up front instead of spending the
// whole budget to learn it again (jax.b380442861: 94 s in cpu_differential_test, 74 s in
// pipeline_differential_test, for a skip).
inline bool RunsPastTheBudget(const std::string& key) {
  static const auto* keys = new std::set<std::string>{
      "tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/jax.b380442861.hlo#0",
      "tests/data/xla_corpus/tensorflow_tensorflow/third_party/xla/xla/backends/cpu/benchmarks/hlo/"
      "in_place_dynamic_update_slice_fusion.hlo#0",
  };
  return keys->count(key) != 0;
}

// Elements of every array result of every instruction in the module, each counted once (a
// while body's as if it ran once): a static lower bound of the interpreter's work, known
// before running it.
inline int64_t StaticResultElements(const Module& module) {
  int64_t total = 0;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      ForEachSubshape(inst->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
        if (s.IsArray()) total += std::max<int64_t>(s.ElementCount(), 0);
      });
    }
  }
  return total;
}

// `divisor` shrinks the budget further: modules listed as running past it stop sooner.
inline StatusOr<Literal> RunWithBudget(const Module& module, const std::vector<Literal>& args,
                                       interpreter::InterpreterOptions options = {},
                                       int64_t divisor = 1) {
  options.max_instructions = kMaxInstructions / divisor;
  options.max_elements = kMaxElements / divisor;
  return interpreter::Interpreter(options).Run(module, args);
}

}  // namespace fusebox
