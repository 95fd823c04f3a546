// Helpers shared by the pass tests: parse inline HLO, run a pass and check that the
// module still verifies and computes what it did before (reference interpreter, random
// inputs with seed 1, NaN equal to NaN).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pass.h"
#include "compiler/verifier/verifier.h"

namespace fusebox {
namespace testing_util {

inline std::unique_ptr<Module> Parse(std::string_view text) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? std::move(parsed).value() : nullptr;
}

// Both modules give the same result on random inputs (seed 1), NaN equal to NaN.
inline void ExpectSameResult(const Module& before, const Module& after) {
  auto args = interpreter::RandomArguments(before, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(before, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  auto actual = interpreter::Interpreter().Run(after, *args);
  ASSERT_TRUE(actual.ok()) << actual.status().message();
  interpreter::CompareResult result = interpreter::CompareLiterals(*actual, *expected);
  EXPECT_TRUE(result.ok()) << result.ToString();
}

// Both modules give bit-identical results on random inputs (seed 1). Returns false when
// the inputs could not be made (a failure is recorded).
inline bool ExpectBitIdenticalResult(const Module& before_module, const Module& after_module) {
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(before_module, 1);
  if (!args.ok()) {
    ADD_FAILURE() << args.status().message();
    return false;
  }
  StatusOr<Literal> before = interpreter::Interpreter().Run(before_module, *args);
  StatusOr<Literal> after = interpreter::Interpreter().Run(after_module, *args);
  EXPECT_TRUE(before.ok()) << before.status().message();
  EXPECT_TRUE(after.ok()) << after.status().message();
  if (before.ok() && after.ok()) {
    interpreter::CompareOptions exact;
    exact.atol = 0;
    exact.rtol = 0;
    interpreter::CompareResult result = CompareLiterals(*after, *before, exact);
    EXPECT_TRUE(result.ok()) << result.ToString() << "\n" << after_module.ToString();
  }
  return true;
}

// Runs `pass` on `module`; checks that it verifies and (when `compare`) computes what it
// did before. An unchanged module is not run again. Returns whether the pass changed it.
inline bool RunPassAndCheck(passes::Pass& pass, Module& module, bool compare = true) {
  std::unique_ptr<Module> original = module.Clone();
  EXPECT_NE(original, nullptr);
  passes::PassContext context;
  auto changed = pass.Run(module, context);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  Status verified = Verify(module);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << module.ToString();
  if (compare && original != nullptr && original->ToString() != module.ToString()) {
    ExpectSameResult(*original, module);
  }
  return changed.ok() && *changed;
}

// After a fusion pass: the module verifies (with module-unique names when the original had
// them; inline test modules reuse `a`, `b` in reducers, which XLA accepts), prints as text
// that re-parses to the same text, and (when `run`) computes what `original` did.
inline void ExpectValidAfterFusion(const Module* original, Module& module, bool run) {
  VerifierOptions strict;
  strict.module_unique_instruction_names = true;
  if (original == nullptr || !Verify(*original, strict).ok()) strict.module_unique_instruction_names = false;
  Status verified = Verify(module, strict);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << module.ToString();
  std::string text = module.ToString();
  auto reparsed = ParseModule(text);
  EXPECT_TRUE(reparsed.ok()) << reparsed.status().message() << "\n" << text;
  if (reparsed.ok()) {
    EXPECT_EQ((*reparsed)->ToString(), text);
  }
  if (run && original != nullptr) ExpectSameResult(*original, module);
}

// The fusion instructions of a computation, in text order.
inline std::vector<const Instruction*> Fusions(const Computation& comp) {
  std::vector<const Instruction*> out;
  for (const auto& inst : comp.instructions()) {
    if (inst->opcode() == Opcode::kFusion) out.push_back(inst.get());
  }
  return out;
}

}  // namespace testing_util
}  // namespace fusebox
