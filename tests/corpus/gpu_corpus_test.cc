// The GPU backend over every example and corpus module, fused (the whole pipeline) and
// unfused (one kernel per op):
//  - every kernel's PTX assembles with ptxas for sm_80 and sm_90, and every launch names
//    an entry ptxas compiled (skipped, with the reason, where ptxas is missing);
//  - where the entry computation is straight-line and the inputs are small, the kernels
//    run in the GPU emulator (compiler/codegen/gpu_emulator.h) and match the interpreter;
//  - where there is a CUDA device, every runnable module runs on it (GpuExecutable) and
//    matches the interpreter (skipped, with the reason, without a driver or device).
// Modules the GPU backend cannot compile are listed in NotCompiledForGpu with the reason;
// the list only shrinks.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "compiler/backend/layout_normalization.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/check/numeric_check.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/runtime/gpu_executable.h"
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

const std::map<std::string, std::string>& NotCompiledForGpu() {
  static const auto* list = new std::map<std::string, std::string>{
  };
  return *list;
}

std::unique_ptr<Module> Load(const Case& c) {
  auto parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / c.file).string());
  if (!parsed.ok()) return nullptr;
  return std::move(parsed->modules[c.module_index]);
}

// Why no backend could run `module` whatever it compiles to (the interpreter cannot
// either): calls into external code, collectives across devices, constants whose values
// the file leaves out. Empty when it is runnable.
std::string NotRunnableReason(const Module& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      // Annotations (shardings, memory spaces) are their values; library calls are
      // cuBLAS's, cuDNN's or topk.
      if (inst->opcode() == Opcode::kCustomCall &&
          (IsAnnotationCustomCall(inst->attrs().custom_call_target) || IsLibraryCall(*inst))) {
        continue;
      }
      switch (inst->opcode()) {
        case Opcode::kCustomCall: case Opcode::kAllGather: case Opcode::kAllReduce: case Opcode::kAllToAll:
        case Opcode::kCollectivePermute: case Opcode::kReduceScatter: case Opcode::kSend: case Opcode::kRecv:
        case Opcode::kInfeed: case Opcode::kOutfeed:
          return inst->name() + " (" + std::string(OpcodeName(inst->opcode())) + ")";
        case Opcode::kConstant:
          if (inst->literal_elided()) return inst->name() + ": constant values elided in the file";
          break;
        default:
          break;
      }
    }
  }
  return "";
}

std::string Key(const Case& c) { return fs::path(c.file).filename().string() + "#" + std::to_string(c.module_index); }

class GpuCorpusTest : public ::testing::TestWithParam<Case> {};

TEST_P(GpuCorpusTest, EveryKernelAssemblesForSm80AndSm90) {
  const Case& c = GetParam();
  std::unique_ptr<Module> module = Load(c);
  ASSERT_NE(module, nullptr);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
#ifdef FUSEBOX_SANITIZED
  if (InputElements(*module) > (int64_t{1} << 16)) GTEST_SKIP() << "large modules run in the release build";
#endif
  const std::string key = Key(c);
  auto listed = NotCompiledForGpu().find(key);
  if (std::string why = NotRunnableReason(*module); !why.empty() && listed == NotCompiledForGpu().end()) {
    GTEST_SKIP() << "not runnable: " << why;
  }
  auto ptxas = codegen::FindPtxas();
  bool any_failed = false;
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForBackend(*module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    Status normalized = backend::NormalizeLayoutsForBackend(**optimized, "GPU backend");
    ASSERT_TRUE(normalized.ok()) << normalized.message();
    for (const char* arch : {"sm_80", "sm_90"}) {
      SCOPED_TRACE(arch);
      codegen::GpuCompileOptions options;
      options.arch = arch;
      auto code = CompileForGpu(**optimized, options);
      if (!code.ok() && code.status().message().find("libdevice (CUDA's math library) not found") != std::string::npos) {
        GTEST_SKIP() << code.status().message();
      }
      if (!code.ok()) {
        any_failed = true;
        ASSERT_NE(listed, NotCompiledForGpu().end()) << key << ": " << code.status().message();
        EXPECT_NE(code.status().message().find(listed->second), std::string::npos)
            << key << " fails for another reason now: " << code.status().message();
        break;
      }
      if (!ptxas.ok()) continue;
      auto assembled = codegen::AssemblePtx((*code)->ptx(), arch);
      ASSERT_TRUE(assembled.ok()) << key << ": " << assembled.status().message();
      std::set<std::string> entries;
      for (const codegen::PtxasKernelInfo& k : assembled->kernels) entries.insert(k.name);
      for (const auto& kernel : (*code)->kernels()) {
        for (const codegen::GpuLaunch& launch : kernel->launches) {
          EXPECT_EQ(entries.count(launch.function), 1u) << key << ": no entry " << launch.function;
        }
      }
    }
  }
  EXPECT_TRUE(listed == NotCompiledForGpu().end() || any_failed)
      << key << " compiles now: remove it from NotCompiledForGpu()";
  if (!ptxas.ok()) GTEST_SKIP() << "compiled; not assembled: " << ptxas.status().message();
}

TEST_P(GpuCorpusTest, EmulatedKernelsMatchTheInterpreter) {
  const Case& c = GetParam();
  std::unique_ptr<Module> module = Load(c);
  ASSERT_NE(module, nullptr);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
  if (NotCompiledForGpu().count(Key(c)) != 0) GTEST_SKIP() << "the GPU backend cannot compile it (listed)";
#ifdef FUSEBOX_SANITIZED
  const int64_t kLimit = int64_t{1} << 14;
#else
  const int64_t kLimit = int64_t{1} << 17;
#endif
  if (InputElements(*module) > kLimit) GTEST_SKIP() << "inputs too large for the emulator";
  auto args = interpreter::RandomArguments(*module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  // The emulator runs a block's threads one at a time: a module whose intermediates hold
  // millions of elements takes minutes there (those run on a real GPU, ctest -L gpu). The
  // interpreter's element budget finds them, and stops early on them.
  interpreter::InterpreterOptions budget;
  budget.max_instructions = kMaxInstructions;
  budget.max_elements = kLimit * 8;
  check::CheckOptions check_options;
  check_options.interpreter = budget;
  auto reference = check::ComputeCheckReference(*module, *args, check_options);
  if (!reference.ok()) GTEST_SKIP() << "too much work for the emulator, or the interpreter cannot run it: "
                                    << reference.status().message();
  bool ran = false;
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForBackend(*module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    auto emulator = codegen::GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << Key(c) << ": " << emulator.status().message();
    auto actual = (*emulator)->Run(*args);
    if (!actual.ok() && actual.status().message().find("runs on the host") != std::string::npos) continue;
    ASSERT_TRUE(actual.ok()) << Key(c) << ": " << actual.status().message();
    ran = true;
    check::CheckReport report = CheckOutputs(*actual, *reference, *args, check_options);
    EXPECT_TRUE(report.ok()) << Key(c) << ": " << report.Details();
  }
  if (!ran) GTEST_SKIP() << "control flow on the host side: the emulator runs straight-line modules";
}

// Floors the real GPU needs beyond the check's bound (numeric_check.h): its reductions fold
// in f32 in a different order than the interpreter (strided partials, warp trees, split
// passes).
const std::map<std::string, interpreter::CompareOptions>& GpuLooseTolerances() {
  static const auto* list = new std::map<std::string, interpreter::CompareOptions>{
      // f32 column sums of ~1000 terms: one output near zero differs by 1.7e-5 (rel 7.6e-3).
      {"odd_sizes.hlo", {1e-4, 1e-5}},
  };
  return *list;
}

TEST_P(GpuCorpusTest, RealGpuMatchesTheInterpreter) {
  auto devices = runtime::CudaDeviceCount();
  if (!devices.ok()) GTEST_SKIP() << devices.status().message();
  const Case& c = GetParam();
  std::unique_ptr<Module> module = Load(c);
  ASSERT_NE(module, nullptr);
  if (!Verify(*module).ok()) GTEST_SKIP() << "does not verify (corpus_test lists why)";
  if (NotCompiledForGpu().count(Key(c)) != 0) GTEST_SKIP() << "the GPU backend cannot compile it (listed)";
  if (std::string why = NotRunnableReason(*module); !why.empty()) GTEST_SKIP() << "not runnable: " << why;
  auto args = interpreter::RandomArguments(*module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  check::CheckOptions check_options;
  check_options.interpreter.max_instructions = kMaxInstructions;
  check_options.interpreter.max_elements = kMaxElements;
  const std::string file = fs::path(c.file).filename().string();
  if (auto loose = GpuLooseTolerances().find(file); loose != GpuLooseTolerances().end()) {
    check_options.floor = loose->second;
  }
  auto reference = check::ComputeCheckReference(*module, *args, check_options);
  if (!reference.ok()) GTEST_SKIP() << "the interpreter cannot run it: " << reference.status().message();
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForBackend(*module, fused);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    runtime::GpuExecutableOptions options;
    options.allow_tf32 = false;  // full-f32 dots: the interpreter's bound
    auto exe = runtime::GpuExecutable::Create(std::move(*optimized), options);
    ASSERT_TRUE(exe.ok()) << Key(c) << ": " << exe.status().message();
    auto actual = (*exe)->Run(*args);
    ASSERT_TRUE(actual.ok()) << Key(c) << ": " << actual.status().message();
    check::CheckReport report = CheckOutputs(*actual, *reference, *args, check_options);
    EXPECT_TRUE(report.ok()) << Key(c) << ": " << report.Details();
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, GpuCorpusTest, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace fusebox
