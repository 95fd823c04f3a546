// Helpers for CPU backend tests: compile a module (fused through the optimization
// pipeline, or unfused: the same pipeline without the fusion passes), run it on random
// inputs and compare with the reference interpreter.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/passes/optimization_pipeline.h"

namespace fusebox::testing_util {

inline std::unique_ptr<Module> ParseOrFail(const std::string& text) {
  auto parsed = ParseModule(text);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.status().message();
    return nullptr;
  }
  return std::move(*parsed);
}

// Compiles `module` for the CPU; `fused` runs the whole pipeline first, otherwise the
// pipeline without fusion (one kernel per op). `compile` sets the code generator's options.
inline StatusOr<std::unique_ptr<runtime::CpuExecutable>> CompileCpu(const Module& module, bool fused, int threads = 2,
                                                           const codegen::CpuCompileOptions& compile = {}) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForBackend(module, fused));
  runtime::CpuExecutableOptions options;
  options.threads = threads;
  options.compile = compile;
  return runtime::CpuExecutable::Create(std::move(optimized), options);
}

// Compiles `module` fused with `compile` on `threads` threads, runs it on `args` and
// expects `expected` within the f32 tolerance; returns the executable for further checks
// (nullptr, with the failure recorded, when compiling or running failed).
inline std::unique_ptr<runtime::CpuExecutable> CompileRunAndCompare(const Module& module, const std::vector<Literal>& args,
                                                           const Literal& expected, int threads,
                                                           const codegen::CpuCompileOptions& compile) {
  auto exe = CompileCpu(module, true, threads, compile);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return nullptr;
  auto actual = (*exe)->Run(args);
  EXPECT_TRUE(actual.ok()) << actual.status().message();
  if (!actual.ok()) return nullptr;
  interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
  return std::move(*exe);
}

// Runs `module` on the CPU (fused and unfused) and in the interpreter on the same random
// inputs; every element must agree within the element type's tolerance.
inline void ExpectCpuMatchesInterpreter(const Module& module, uint64_t seed = 1) {
  auto args = interpreter::RandomArguments(module, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(module, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto exe = CompileCpu(module, fused);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    auto actual = (*exe)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    PrimitiveType type = expected->shape().IsArray() ? expected->shape().element_type() : PrimitiveType::kF32;
    interpreter::CompareResult cmp = interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(type));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString() << "\n" << (*exe)->module().ToString();
  }
}

inline void ExpectCpuMatchesInterpreter(const std::string& text, uint64_t seed = 1) {
  auto m = ParseOrFail(text);
  ASSERT_NE(m, nullptr);
  ExpectCpuMatchesInterpreter(*m, seed);
}

}  // namespace fusebox::testing_util
