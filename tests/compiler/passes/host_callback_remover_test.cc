// Python callbacks (jax.debug.print, jax.pure_callback): one without results is skipped by
// the interpreter, removed by the host-callback-remover pass for the backends and named in
// the loader's notes; one that computes a value is an error naming it everywhere. Both
// modules are jax 0.10.2's own HLO, whose Shardy and tuple shardings of the callbacks
// (one sharding for the `()` of a print, a maximal mesh) load and verify.
#include "compiler/passes/host_callback_remover.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/collectives.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::ExpectBitIdenticalResult;
using testing_util::Parse;

// jax 0.10.2's HLO of a jitted function with jax.debug.print, and of one with
// jax.pure_callback (tests/data/callbacks/README.md).
std::string Data(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/callbacks/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t CustomCalls(const Module& module) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += inst->opcode() == Opcode::kCustomCall;
  }
  return n;
}

TEST(HostCallbackRemoverTest, JaxDebugPrintIsSkippedAndSaysSo) {
  auto module = Parse(Data("jax_debug_print.hlo"));
  ASSERT_NE(module, nullptr);
  // One tuple-sharding element for the print's `()`, as XLA requires.
  for (const VerifierIssue& issue : VerifyModule(*module)) {
    EXPECT_NE(issue.severity, VerifierIssue::Severity::kError) << issue.message;
  }
  const std::vector<std::string> notes = HostCallbackNotes(*module);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("%debug_print.1 (line 13): a Python callback without results", 0), 0u) << notes[0];
  auto after = module->Clone();
  PassContext context;
  auto changed = HostCallbackRemover().Run(*after, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CustomCalls(*after), 0) << after->ToString();
  // The interpreter runs the original (skipping the print) and the result is the same.
  EXPECT_TRUE(ExpectBitIdenticalResult(*module, *after));
  for (bool gpu : {false, true}) {
    auto optimized = OptimizeForBackend(*module, true, gpu);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    EXPECT_EQ(CustomCalls(**optimized), 0) << (*optimized)->ToString();
  }
}

TEST(HostCallbackRemoverTest, ACallbackThatComputesAValueIsAnError) {
  auto module = Parse(Data("jax_pure_callback.hlo"));
  ASSERT_NE(module, nullptr);
  EXPECT_TRUE(HostCallbackNotes(*module).empty());
  PassContext context;
  auto after = module->Clone();
  auto changed = HostCallbackRemover().Run(*after, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  Literal x(Shape(PrimitiveType::kF32, {4}));
  auto ran = interpreter::Interpreter().Run(*module, {x});
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.status().message().find("is a Python callback (jax.pure_callback, io_callback) that computes this value"),
            std::string::npos)
      << ran.status().message();
  // The backends' pipelines keep it (its maximal-mesh sharding imports) for the backend to name.
  auto optimized = OptimizeForBackend(*module, true, false);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_EQ(CustomCalls(**optimized), 1);
}

}  // namespace
}  // namespace fusebox::passes
