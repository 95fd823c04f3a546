// The compile session: one object that holds a module's stages — the input `hlo`, a
// snapshot after every pass, `optimized_hlo` and the backends' stages — with the pass
// records, the fusion decisions and the kernel counts before and after fusion. The CLI
// and the GUI are two faces of this API.
//
// The CPU and GPU backends compile different modules, as `fusebox run` does: the CPU
// stages come from `optimized_hlo` (the CPU pipeline), the GPU stages from
// `gpu_optimized_hlo`, the GPU pipeline's module — with NVIDIA's libraries (the default,
// as `run --backend gpu`), dots and convolutions there are cuBLAS / cuDNN calls that run
// no kernel of Fusebox's. SetGpuLibraries(false) gives Fusebox's own kernels for them.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/kernel_count.h"
#include "compiler/passes/pipeline.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox::session {

// Stages in pipeline order: a comparison tells which comes first.
enum class Stage {
  kHlo,
  kOptimizedHlo,
  // CPU backend
  kLlvmIr,
  kLlvmIrOptimized,
  kCpuAsm,
  kBufferAssignment,
  // GPU backend (NVPTX)
  kGpuOptimizedHlo,  // the GPU pipeline's module, layouts normalized: what the GPU backend compiles
  kGpuLlvmIr,
  kGpuLlvmIrOptimized,
  kPtx,
  kPtxasInfo,
  kSass,
};
std::string_view StageName(Stage stage);
std::optional<Stage> ParseStage(std::string_view name);
// Fusebox's stages in order (ExternalStage ones aside).
const std::vector<Stage>& AllStages();
// gpu_optimized_hlo and the stages compiled from it.
bool IsGpuStage(Stage stage);

// A library call the GPU runtime makes instead of launching a kernel of Fusebox's: what
// `fusebox run --backend gpu` plans for it (compiler/ir/gemm_plan.h, conv_plan.h).
struct GpuLibraryCall {
  const Instruction* hlo = nullptr;  // the custom call in the GPU module
  std::string name;                  // its instruction name
  // The input's dot or convolution it computes (what gemm-rewriter or conv-rewriter
  // replaced; the call itself in an XLA GPU module); "" when that is not known.
  std::string source;
  std::string target;                // "__cublas$gemm", "__cudnn$convForward", ..., "fft"
  std::string library;               // "cuBLAS", "cuBLASLt" (a gemm with an epilogue), "cuDNN", "cuFFT"
  // The routine and its sizes: "cublasGemmStridedBatchedEx m=10 n=128 k=784 ...",
  // "cudnnConvolutionBackwardData x[...] w[...] ..."; empty when there is no plan.
  std::string routine;
  std::string error;  // why the runtime has no plan (the run would refuse the module)
  int64_t flops = 0;
};

// A stage another compiler produced for the same module — XLA's own optimized HLO, LLVM
// IR, PTX, ... read from a dump folder — shown next to Fusebox's stages so the two
// compilers can be compared side by side. Names start with "xla_"; the text loads on
// first use.
struct ExternalStage {
  std::string name;         // "xla_optimized_hlo", "xla_pass_0005", "xla_llvm_ir", ...
  std::string description;  // "XLA: cpu after optimizations"
  std::string source;       // the file(s) it comes from
  std::function<StatusOr<std::string>()> load;
};

class CompileSession {
 public:
  // Takes the parsed input module.
  explicit CompileSession(std::unique_ptr<Module> module);

  const Module& input() const { return *input_; }

  // Runs the optimization pipeline on a copy of the input (once; later calls return the
  // cached status).
  Status Optimize(const passes::PipelineOptions& options = {});
  bool optimized() const { return optimized_ != nullptr; }
  const Module* optimized_module() const { return optimized_.get(); }

  // Stage text: the module printed at that stage (Optimize() runs on demand).
  StatusOr<std::string> StageText(Stage stage);

  // The CPU backend's compile of the optimized module (Optimize() and code generation
  // run on demand, once). Stages llvm_ir, llvm_ir_optimized, cpu_asm and
  // buffer_assignment come from it.
  StatusOr<runtime::CpuExecutable*> CpuCompile(const runtime::CpuExecutableOptions& options = {});

  // The GPU backend's module (stage gpu_optimized_hlo): with GPU libraries, the GPU
  // pipeline (MakeOptimizationPipeline(module, true): gemm-rewriter, conv-rewriter,
  // XLA's library calls kept) run on a copy of the input with the options Optimize() was
  // given; without, a copy of the optimized module. Layouts normalized either way. Once;
  // a failure here leaves the CPU stages alone.
  Status OptimizeForGpu();
  // Before the first GPU stage (default true, as `fusebox run --backend gpu`); a change
  // drops what the GPU stages had built. Not while another thread builds a stage.
  void SetGpuLibraries(bool on);
  bool gpu_libraries() const { return gpu_libraries_; }
  const Module* gpu_optimized_module() const { return gpu_module_.get(); }
  // The records and fusion decisions of the pipeline that made the GPU module: the GPU
  // pipeline's with libraries, else Optimize()'s (the same module).
  const passes::PipelineResult& gpu_pipeline_result() const {
    return gpu_libraries_ ? gpu_pipeline_result_ : pipeline_result_;
  }
  const passes::PassContext& gpu_pass_context() const { return gpu_libraries_ ? gpu_context_ : context_; }

  // The GPU code generator's compile of the GPU module (no GPU needed), once per
  // session; its options are those of the first call (or SetGpuOptions before it).
  // Stages gpu_llvm_ir, gpu_llvm_ir_optimized and ptx come from it.
  StatusOr<const codegen::GpuCode*> GpuCompile();
  void SetGpuOptions(const codegen::GpuCompileOptions& options) { gpu_options_ = options; }
  const codegen::GpuCompileOptions& gpu_options() const { return gpu_options_; }
  // The GPU module's library calls, in program order, planned for gpu_options().arch
  // (OptimizeForGpu() first; empty before).
  const std::vector<GpuLibraryCall>& gpu_library_calls() const { return gpu_library_calls_; }
  // ptxas over the PTX (stage ptxas_info, and the cubin SASS is disassembled from): needs
  // the CUDA toolkit's ptxas; the message says where it was looked for when missing.
  // Occupancy-tuned for the arch's largest part (codegen/occupancy.h: 132 SMs for sm_90),
  // as a run on such a GPU loads it; occupancy_notes() says what was asked for.
  StatusOr<const codegen::PtxasResult*> Assemble();
  const std::vector<std::string>& occupancy_notes() const { return occupancy_notes_; }
  const passes::PipelineResult& pipeline_result() const { return pipeline_result_; }

  // External stages (see ExternalStage); a stage of the same name is replaced.
  void AddExternalStage(ExternalStage stage);
  const std::vector<ExternalStage>& external_stages() const { return external_; }
  // The stage's text (loaded once); NotFound lists the external stages there are.
  StatusOr<std::string> ExternalStageText(const std::string& name);
  // Every stage name this session can show: Fusebox's, then the external ones.
  std::vector<std::string> StageNames() const;
  const passes::PassContext& pass_context() const { return context_; }

  // Long work (the pipeline, the CPU compile) checks `cancel` and stops with Cancelled()
  // when it is set; a cancelled stage is not remembered, the next request starts it again.
  // `progress` gets (fraction of the step done, what the step is).
  void SetCancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }
  void SetProgress(std::function<void(float, const std::string&)> progress) { progress_ = std::move(progress); }
  // Spans of everything this session compiles from now on (the pipeline, the verifier,
  // the backends, ptxas) go to `trace` (null: none), which the session keeps alive.
  void SetCompileTrace(std::shared_ptr<CompileTrace> trace) { trace_ = std::move(trace); }
  CompileTrace* compile_trace() const { return trace_.get(); }
  passes::KernelCount kernels_before() const { return passes::CountKernels(*input_); }
  // Kernels after fusion (requires Optimize()).
  passes::KernelCount kernels_after() const;
  // The same for the GPU module (requires OptimizeForGpu()); library calls count as
  // kernels here, as in kernel counts everywhere.
  passes::KernelCount gpu_kernels_after() const;

 private:
  std::unique_ptr<Module> input_;
  std::unique_ptr<Module> optimized_;
  passes::PipelineResult pipeline_result_;
  passes::PassContext context_;
  const std::atomic<bool>* cancel_ = nullptr;
  std::function<void(float, const std::string&)> progress_;
  std::shared_ptr<CompileTrace> trace_;
  std::optional<Status> optimize_status_;
  passes::PipelineOptions pipeline_options_;  // what Optimize() was given, for OptimizeForGpu()
  bool gpu_libraries_ = true;
  passes::PipelineResult gpu_pipeline_result_;
  passes::PassContext gpu_context_;
  std::optional<Status> gpu_optimize_status_;
  std::vector<GpuLibraryCall> gpu_library_calls_;
  std::map<std::string, std::string> gpu_call_sources_;  // library call -> GpuLibraryCall::source
  std::unique_ptr<runtime::CpuExecutable> cpu_;
  std::optional<Status> cpu_status_;
  // What a GPU run compiles without --check: TF32 tensor-core dots (GpuExecutableOptions).
  codegen::GpuCompileOptions gpu_options_ = [] {
    codegen::GpuCompileOptions options;
    options.allow_tf32 = true;
    return options;
  }();
  std::unique_ptr<Module> gpu_module_;  // stage gpu_optimized_hlo
  std::unique_ptr<codegen::GpuCode> gpu_;
  std::optional<Status> gpu_status_;
  std::unique_ptr<codegen::PtxasResult> ptxas_;
  std::vector<std::string> occupancy_notes_;  // Assemble's occupancy requests
  std::optional<Status> ptxas_status_;
  std::vector<ExternalStage> external_;
  std::vector<std::optional<StatusOr<std::string>>> external_text_;

  // Runs `pipeline` on `work` with `options`, and this session's cancel, progress and
  // trace where the options have none.
  Status RunPipeline(const passes::Pipeline& pipeline, const passes::PipelineOptions& options, Module& work,
                     passes::PassContext& context, passes::PipelineResult& result);
};

// Writes the session in XLA's dump layout into `dir`:
//   module_NNNN.<name>.before_optimizations.txt
//   module_NNNN.<name>.NNNN.<pipeline>.after_<pass>.before_<next>.txt   (one per snapshot)
//   module_NNNN.<name>.cpu_after_optimizations.txt
//   module_NNNN.<name>.fusion_decisions.json
// and, when `with_cpu` (the CPU backend compiles the module), as XLA's CPU backend names
// them: .ir-no-opt.ll, .ir-with-opt.ll, .s and .cpu_after_optimizations-buffer-assignment.txt
// `module_id` is NNNN. Returns the paths written.
// "module_0003.jit_f": how XLA's dump files of a module begin (unsafe name characters
// become '_').
std::string DumpFilePrefix(const std::string& module_name, int module_id = 0);

StatusOr<std::vector<std::string>> WriteDump(CompileSession& session, const std::string& dir,
                                             int module_id = 0, bool with_cpu = false);

// The GPU module in XLA GPU's dump layout (`fusebox compile --backend gpu --dump-to`):
// before_optimizations.txt, the GPU pipeline's snapshots (pipeline "gpu-optimizations"),
// <arch>_gpu_after_optimizations.txt (arch as XLA spells it: sm_90 -> sm_9.0),
// fusion_decisions.json of the GPU pipeline, then the GPU backend's .ir-no-opt.ll,
// .ir-with-opt.ll and .ptx (or .gpu_backend_error.txt saying why there are none).
StatusOr<std::vector<std::string>> WriteGpuDump(CompileSession& session, const std::string& dir, int module_id = 0);
// "sm_90" -> "sm_9.0", "sm_90a" -> "sm_9.0a": the platform prefix of XLA GPU's files.
std::string XlaGpuDumpPlatform(const std::string& arch);

}  // namespace fusebox::session
