// The GPU stages come from the module the GPU runs: with GPU libraries (the default, as
// `fusebox run --backend gpu`), gpu_optimized_hlo has the cuBLAS / cuDNN calls, the PTX
// has no kernel for them and its header names each call; without, Fusebox's own dot and
// convolution kernels. The CPU stages stay the CPU pipeline's either way.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/ir/computation.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/source_map.h"
#include "tests/compiler/session/example_session.h"

namespace fusebox::session {
namespace {

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The PTX stage's header: the comment lines before the PTX itself.
std::string Header(const std::string& ptx) { return ptx.substr(0, ptx.find("\n\n") + 1); }

TEST(GpuStagesTest, StageNamesAndOrder) {
  EXPECT_EQ(StageName(Stage::kGpuOptimizedHlo), "gpu_optimized_hlo");
  EXPECT_EQ(ParseStage("gpu_optimized_hlo"), Stage::kGpuOptimizedHlo);
  EXPECT_LT(Stage::kOptimizedHlo, Stage::kGpuOptimizedHlo);
  EXPECT_LT(Stage::kGpuOptimizedHlo, Stage::kGpuLlvmIr);
  EXPECT_TRUE(IsGpuStage(Stage::kGpuOptimizedHlo));
  EXPECT_TRUE(IsGpuStage(Stage::kSass));
  EXPECT_FALSE(IsGpuStage(Stage::kOptimizedHlo));
  EXPECT_FALSE(IsGpuStage(Stage::kBufferAssignment));
  for (Stage stage : AllStages()) EXPECT_EQ(ParseStage(StageName(stage)), stage) << StageName(stage);
  auto session = SessionOf("reduce_sum.hlo");
  ASSERT_NE(session, nullptr);
  const std::vector<std::string> names = session->StageNames();
  auto at = [&](const std::string& name) { return std::find(names.begin(), names.end(), name) - names.begin(); };
  EXPECT_LT(at("optimized_hlo"), at("gpu_optimized_hlo"));
  EXPECT_LT(at("gpu_optimized_hlo"), at("gpu_llvm_ir"));
  EXPECT_LT(at("gpu_llvm_ir"), static_cast<long>(names.size()));
}

// MNIST's dots are cuBLAS calls in the GPU module: no PTX entry runs them, the header
// says which routine does, and the optimized (CPU) module keeps its dots.
TEST(GpuStagesTest, MnistDotsAreCublasCallsInTheGpuStages) {
  auto session = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  EXPECT_TRUE(session->gpu_libraries());  // the default, as `run --backend gpu`
  const std::string optimized = StageOf(*session, Stage::kOptimizedHlo);
  const std::string gpu_optimized = StageOf(*session, Stage::kGpuOptimizedHlo);
  const std::string ptx = StageOf(*session, Stage::kPtx);
  EXPECT_EQ(Count(optimized, "__cublas$"), 0);
  EXPECT_GT(Count(optimized, " dot("), 0);
  EXPECT_GT(Count(gpu_optimized, "custom_call_target=\"__cublas$"), 0) << gpu_optimized;
  EXPECT_EQ(Count(gpu_optimized, " dot("), 0) << gpu_optimized;

  const std::vector<GpuLibraryCall>& calls = session->gpu_library_calls();
  ASSERT_FALSE(calls.empty());
  ASSERT_EQ(static_cast<int>(calls.size()), Count(gpu_optimized, "custom_call_target=\"__cublas$"));
  auto code = session->GpuCompile();
  ASSERT_TRUE(code.ok()) << code.status().message();
  const std::string header = Header(ptx);
  EXPECT_NE(header.find("// Library calls"), std::string::npos) << header;
  for (const GpuLibraryCall& call : calls) {
    // f32 gemms run through cuBLASLt, whose algorithms autotuning times (f64: cuBLAS).
    EXPECT_EQ(call.library, "cuBLASLt") << call.routine;
    EXPECT_TRUE(call.error.empty()) << call.name << ": " << call.error;
    EXPECT_GT(call.flops, 0) << call.name;
    // No kernel of Fusebox's runs the call ...
    EXPECT_EQ((*code)->KernelFor(call.hlo), nullptr) << call.name;
    for (const auto& [function, hlo] : (*code)->function_to_hlo()) EXPECT_NE(hlo, call.name) << function;
    // ... and the header says what does.
    // Each call computes an input dot, which the header names.
    ASSERT_FALSE(call.source.empty()) << call.name;
    const Instruction* source = nullptr;
    for (const auto& computation : session->input().computations()) {
      if (const Instruction* found = computation->FindInstruction(call.source)) source = found;
    }
    ASSERT_NE(source, nullptr) << call.source;
    EXPECT_EQ(source->opcode(), Opcode::kDot) << call.source;
    const std::string line = "//   %" + call.name + " (" + call.target + ", for %" + call.source + ") -> " +
                             call.library + " " + call.routine;
    EXPECT_NE(header.find(line + "\n"), std::string::npos) << line << "\n" << header;
    EXPECT_NE(call.routine.find(call.library == "cuBLAS" ? "cublasGemmStridedBatchedEx m=" : "cublasLtMatmul m="),
              std::string::npos)
        << call.routine;
  }
  for (const auto& kernel : (*code)->kernels()) EXPECT_EQ(kernel->kind_name.find("dot"), std::string::npos) << kernel->name;
  EXPECT_EQ(ptx.find("dot(tiled)"), std::string::npos);
  // sm_90 has TF32 tensor cores: the gemms are planned in TF32, as a run without --check.
  EXPECT_NE(calls.front().routine.find("tf32"), std::string::npos) << calls.front().routine;
}

// --gpu-library=off: the GPU module is the optimized module, dots and all, and the PTX
// has Fusebox's dot kernels and no library calls.
TEST(GpuStagesTest, WithoutLibrariesTheGpuRunsFuseboxsDotKernels) {
  auto session = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  session->SetGpuLibraries(false);
  const std::string optimized = StageOf(*session, Stage::kOptimizedHlo);
  const std::string gpu_optimized = StageOf(*session, Stage::kGpuOptimizedHlo);
  EXPECT_EQ(Count(gpu_optimized, "__cublas$"), 0);
  EXPECT_EQ(Count(gpu_optimized, " dot("), Count(optimized, " dot("));
  const std::string ptx = StageOf(*session, Stage::kPtx);
  EXPECT_EQ(Header(ptx).find("// Library calls"), std::string::npos);
  EXPECT_TRUE(session->gpu_library_calls().empty());
  auto code = session->GpuCompile();
  ASSERT_TRUE(code.ok()) << code.status().message();
  int dot_kernels = 0;
  for (const auto& kernel : (*code)->kernels()) dot_kernels += kernel->kind_name.find("dot") != std::string::npos;
  EXPECT_GT(dot_kernels, 0);
  EXPECT_EQ(&session->gpu_pipeline_result(), &session->pipeline_result());

  // Switching libraries on drops the GPU stages and builds them again from the GPU pipeline.
  session->SetGpuLibraries(true);
  EXPECT_EQ(session->gpu_optimized_module(), nullptr);
  EXPECT_GT(Count(StageOf(*session, Stage::kGpuOptimizedHlo), "__cublas$"), 0);
  EXPECT_EQ(session->gpu_pipeline_result().pipeline_name, "gpu-optimizations");
  EXPECT_EQ(session->pipeline_result().pipeline_name, "cpu-optimizations");
}

// The CPU stages are the CPU pipeline's whatever the GPU does.
TEST(GpuStagesTest, CpuStagesDoNotDependOnTheGpuLibraries) {
  auto on = SessionOf("mnist_train_step.hlo");
  auto off = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(on, nullptr);
  ASSERT_NE(off, nullptr);
  off->SetGpuLibraries(false);
  StageOf(*on, Stage::kPtx);  // the GPU pipeline first
  EXPECT_EQ(StageOf(*on, Stage::kOptimizedHlo), StageOf(*off, Stage::kOptimizedHlo));
  EXPECT_EQ(StageOf(*on, Stage::kLlvmIr), StageOf(*off, Stage::kLlvmIr));
  EXPECT_EQ(on->kernels_after().kernels, off->kernels_after().kernels);
}

// The CNN step's convolutions are cuDNN calls, each named with its routine and its input
// convolution.
TEST(GpuStagesTest, CnnConvolutionsAreCudnnCalls) {
  auto session = SessionOf("cifar_cnn_train_step.hlo");
  ASSERT_NE(session, nullptr);
  const std::string header = Header(StageOf(*session, Stage::kPtx));
  std::set<std::string> routines;
  for (const GpuLibraryCall& call : session->gpu_library_calls()) {
    if (call.library != "cuDNN") continue;
    EXPECT_TRUE(call.error.empty()) << call.name << ": " << call.error;
    routines.insert(call.routine.substr(0, call.routine.find(' ')));
    EXPECT_NE(header.find("%" + call.name + " (" + call.target + ", for %" + call.source + ") -> cuDNN " + call.routine),
              std::string::npos)
        << call.name << "\n" << header;
  }
  // The forward convolutions with their bias, the input gradient as backward data (XLA's
  // backward-input call of the kernel, no reverse) and the weight gradients as the
  // runtime plans them: no plain forward call is left.
  EXPECT_EQ(routines.count("cudnnConvolutionBiasActivationForward"), 1u) << header;
  EXPECT_EQ(routines.count("cudnnConvolutionBackwardData"), 1u) << header;
  EXPECT_EQ(routines.count("cudnnConvolutionForward"), 0u) << header;
  int convolutions = 0;
  for (const auto& computation : session->input().computations()) {
    for (const auto& inst : computation->instructions()) convolutions += inst->opcode() == Opcode::kConvolution;
  }
  int calls = 0;
  for (const GpuLibraryCall& call : session->gpu_library_calls()) calls += call.library == "cuDNN";
  EXPECT_EQ(calls, convolutions);
  EXPECT_EQ(header.find("dot(tiled)"), std::string::npos);
  // No convolution is left for a kernel of Fusebox's.
  EXPECT_EQ(Count(StageOf(*session, Stage::kGpuOptimizedHlo), " convolution("), 0);
  EXPECT_GT(Count(StageOf(*session, Stage::kOptimizedHlo), " convolution("), 0);
}

// A library call the runtime has no plan for is said so in the ptx header, never listed
// as a routine (here an s32 gemm kept by disabling library-call-lowering); by default the
// pipeline lowers it to a dot for Fusebox's kernel, and the CPU stages build either way.
TEST(GpuStagesTest, ACallWithoutAPlanIsSaidSo) {
  constexpr const char* kS32Gemm = R"(HloModule s32_gemm

ENTRY e {
  a = s32[4,8]{1,0} parameter(0)
  b = s32[8,2]{1,0} parameter(1)
  ROOT c = s32[4,2]{1,0} custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"alpha_imag":0,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"epilogue":"DEFAULT"}}
}
)";
  auto kept = ParseModule(kS32Gemm);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  CompileSession session(std::move(*kept));
  passes::PipelineOptions options;
  options.disabled_passes = {"library-call-lowering"};
  ASSERT_TRUE(session.Optimize(options).ok());
  const std::string ptx = StageOf(session, Stage::kPtx);
  EXPECT_NE(ptx.find("//   %c (__cublas$gemm) -> cuBLAS: NO PLAN, a run refuses this module: "), std::string::npos)
      << Header(ptx);
  EXPECT_NE(ptx.find("element types s32"), std::string::npos) << Header(ptx);
  ASSERT_EQ(session.gpu_library_calls().size(), 1u);
  EXPECT_TRUE(session.gpu_library_calls()[0].routine.empty());
  EXPECT_FALSE(session.gpu_library_calls()[0].error.empty());

  auto lowered = ParseModule(kS32Gemm);
  ASSERT_TRUE(lowered.ok());
  CompileSession by_default(std::move(*lowered));
  const std::string own = StageOf(by_default, Stage::kPtx);
  EXPECT_EQ(own.find("// Library calls"), std::string::npos) << Header(own);
  EXPECT_NE(own.find("(dot(tiled))"), std::string::npos) << Header(own);
  EXPECT_FALSE(StageOf(by_default, Stage::kLlvmIr).empty());
}

// The source map's GPU side is the GPU module's: library calls link to their instruction
// with no code; kernels to PTX entries the ptx stage defines.
TEST(GpuStagesTest, SourceMapLinksTheGpuModule) {
  auto session = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  auto map = BuildSourceMap(*session);
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_TRUE(map->notes().empty());
  const std::string ptx = StageOf(*session, Stage::kPtx);
  const std::string gpu_optimized = StageOf(*session, Stage::kGpuOptimizedHlo);
  ASSERT_FALSE(session->gpu_library_calls().empty());
  for (const GpuLibraryCall& call : session->gpu_library_calls()) {
    const KernelSource* kernel = map->FindGpuKernel(call.name);
    ASSERT_NE(kernel, nullptr) << call.name;
    EXPECT_EQ(kernel->library, call.library);
    EXPECT_EQ(kernel->library_routine, call.routine);
    EXPECT_TRUE(kernel->code_names.empty());
    EXPECT_FALSE(kernel->runs_code);
    ASSERT_NE(map->GpuKernelOf(call.name), nullptr);
    EXPECT_EQ(*map->GpuKernelOf(call.name), call.name);
    // Defined in gpu_optimized_hlo where the map says.
    auto it = kernel->locations.find(call.name);
    ASSERT_NE(it, kernel->locations.end()) << call.name;
    ASSERT_FALSE(it->second.empty());
    EXPECT_EQ(it->second.front().stage, "gpu_optimized_hlo");
    // A CPU-side instruction of that name (if any) is not a cuBLAS call.
    EXPECT_EQ(map->FindKernel(call.name) == nullptr || map->FindKernel(call.name)->library.empty(), true);
  }
  int gpu_kernels_with_code = 0;
  for (const auto& [name, kernel] : map->gpu_kernels()) {
    for (const std::string& e : kernel.ptx_entries) {
      EXPECT_NE(ptx.find(".entry " + e + "("), std::string::npos) << e;
      ++gpu_kernels_with_code;
    }
    if (!kernel.ptx_entries.empty()) {
      EXPECT_NE(gpu_optimized.find("%" + name + " = "), std::string::npos) << name;
    }
  }
  EXPECT_GT(gpu_kernels_with_code, 0);
  // The CPU side has no GPU code: that is the GPU module's.
  for (const auto& [name, kernel] : map->kernels()) EXPECT_TRUE(kernel.ptx_entries.empty()) << name;
  // An input dot links, on the GPU side, to the cuBLAS call that runs it.
  int dots_linked = 0;
  for (const InstructionSource& inst : map->instructions()) {
    if (inst.opcode != "dot" || inst.gpu_kernel.empty()) continue;
    const KernelSource* kernel = map->FindGpuKernel(inst.gpu_kernel);
    if (kernel != nullptr && !kernel->library.empty()) ++dots_linked;
  }
  EXPECT_GT(dots_linked, 0);
  // The JSON: each library call a GPU kernel with its library and routine, no code.
  auto json = nlohmann::json::parse(map->ToJson());
  int calls = 0;
  for (const auto& kernel : json["gpu_kernels"]) {
    if (kernel["library_call"].is_null()) continue;
    ++calls;
    EXPECT_EQ(kernel["opcode"], "custom-call");
    EXPECT_TRUE(kernel["gpu"]["ptx_entries"].empty());
    EXPECT_EQ(kernel["library_call"]["error"], nullptr);
    EXPECT_NE(kernel["library_call"]["routine"].get<std::string>().find("cublas"), std::string::npos);
  }
  EXPECT_EQ(calls, static_cast<int>(session->gpu_library_calls().size()));
}

}  // namespace
}  // namespace fusebox::session
