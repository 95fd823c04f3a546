// The compile session and the XLA-layout dump writer.
#include "compiler/session/compile_session.h"

#include "compiler/runtime/multi_device.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "compiler/backend/layout_normalization.h"
#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/codegen/occupancy.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/conv_plan.h"
#include "compiler/ir/fft_plan.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/ir/trsm_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/optimization_pipeline.h"

namespace fusebox::session {

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kHlo: return "hlo";
    case Stage::kOptimizedHlo: return "optimized_hlo";
    case Stage::kLlvmIr: return "llvm_ir";
    case Stage::kLlvmIrOptimized: return "llvm_ir_optimized";
    case Stage::kCpuAsm: return "cpu_asm";
    case Stage::kBufferAssignment: return "buffer_assignment";
    case Stage::kGpuOptimizedHlo: return "gpu_optimized_hlo";
    case Stage::kGpuLlvmIr: return "gpu_llvm_ir";
    case Stage::kGpuLlvmIrOptimized: return "gpu_llvm_ir_optimized";
    case Stage::kPtx: return "ptx";
    case Stage::kPtxasInfo: return "ptxas_info";
    case Stage::kSass: return "sass";
  }
  return "?";
}

const std::vector<Stage>& AllStages() {
  static const std::vector<Stage> stages = {
      Stage::kHlo,       Stage::kOptimizedHlo,     Stage::kLlvmIr,           Stage::kLlvmIrOptimized,
      Stage::kCpuAsm,    Stage::kBufferAssignment, Stage::kGpuOptimizedHlo, Stage::kGpuLlvmIr,
      Stage::kGpuLlvmIrOptimized, Stage::kPtx,     Stage::kPtxasInfo,       Stage::kSass};
  return stages;
}

std::optional<Stage> ParseStage(std::string_view name) {
  for (Stage stage : AllStages()) {
    if (StageName(stage) == name) return stage;
  }
  return std::nullopt;
}

bool IsGpuStage(Stage stage) { return stage >= Stage::kGpuOptimizedHlo; }

namespace {

// What the GPU runtime plans for each library call of `module` (layouts normalized), as
// GpuExecutable::Create does: TF32 where the target has tensor cores for it (sm_80+) and
// the run has no --check.
// The routine and flops of a plan, or why there is none.
template <typename Plan>
void Describe(const StatusOr<Plan>& plan, GpuLibraryCall& call) {
  if (plan.ok()) {
    call.routine = plan->ToString();
    call.flops = plan->flops;
  } else {
    call.error = plan.status().message();
  }
}

std::vector<GpuLibraryCall> PlanLibraryCalls(const Module& module, const std::string& arch,
                                             const std::map<std::string, std::string>& sources) {
  const bool tf32 = codegen::gpu::GpuArchNumber(arch) >= 80;
  GemmPlanOptions gemm_options;
  gemm_options.allow_tf32 = tf32;
  ConvPlanOptions conv_options;
  conv_options.allow_tf32 = tf32;
  std::vector<GpuLibraryCall> calls;
  for (const Computation* computation : ProgramComputations(module, {.breadth_first = true})) {
    for (const Instruction* inst : computation->PostOrder()) {
      const bool fft = inst->opcode() == Opcode::kFft;
      const bool trsm = inst->opcode() == Opcode::kTriangularSolve;
      // A topk call is Fusebox's topk kernel after library-call-lowering, not a library's;
      // so is a small batched orgqr (jaxlib's own kernel: GpuRouteOf, as the runtime reads it).
      const GpuCallRoute route = GpuRouteOf(*inst);
      if (!fft && !trsm &&
          (route == GpuCallRoute::kNotLibraryCall || route == GpuCallRoute::kOwnKernel ||
           LibraryCallKindOf(inst->attrs().custom_call_target) == LibraryCallKind::kTopK)) {
        continue;
      }
      GpuLibraryCall call;
      call.hlo = inst;
      call.name = inst->name();
      call.target = fft ? "fft" : trsm ? "triangular-solve" : inst->attrs().custom_call_target;
      if (auto it = sources.find(call.name); it != sources.end()) call.source = it->second;
      if (fft) {
        // A Fourier transform: cuFFT's plan, and the scal of an inverse one.
        call.library = "cuFFT";
        Describe(PlanFft(*inst), call);
      } else if (trsm) {
        call.library = "cuBLAS";
        Describe(PlanTriangularSolve(*inst), call);
      } else if (IsSolverCall(*inst)) {
        StatusOr<SolverPlan> plan = PlanSolverCall(*inst);
        call.library = plan.ok() && plan->on_cublas() ? "cuBLAS" : "cuSOLVER";
        Describe(plan, call);
      } else if (LibraryCallKindOf(call.target) == LibraryCallKind::kGemm) {
        StatusOr<GemmPlan> plan = PlanGemmCall(*inst, gemm_options);
        call.library = plan.ok() && GemmPlanRunsOnCublasLt(*plan) ? "cuBLASLt" : "cuBLAS";
        Describe(plan, call);
      } else {
        call.library = "cuDNN";
        Describe(PlanConvolution(*inst, conv_options), call);
      }
      calls.push_back(std::move(call));
    }
  }
  return calls;
}

// Library call of `work` -> the dot or convolution of `input` it computes. The rewriters
// give a call the location of the instruction it replaces (`work`'s locations are still
// those of the printed input, the hlo stage): a dot or convolution there is the source.
// Otherwise (a call that also took in a bias add, a dot the simplifier rebuilt) the one
// input dot or convolution with the call's metadata, which the rewriters and the
// simplifier carry over; none when that is not one instruction.
std::map<std::string, std::string> LibraryCallSources(const Module& input, const Module& work) {
  std::map<std::string, std::string> sources;
  std::unique_ptr<Module> printed = input.Clone();
  if (printed == nullptr) return sources;
  printed->LocateInPrintedText();
  auto computes = [](const Instruction& inst) {
    return inst.opcode() == Opcode::kDot || inst.opcode() == Opcode::kConvolution || IsLibraryCall(inst);
  };
  std::map<std::pair<int64_t, int64_t>, const Instruction*> at;
  std::vector<const Instruction*> candidates;
  for (const auto& computation : printed->computations()) {
    for (const auto& inst : computation->instructions()) {
      if (!computes(*inst)) continue;
      candidates.push_back(inst.get());
      if (inst->location().known()) at.emplace(std::make_pair(inst->location().line, inst->location().column), inst.get());
    }
  }
  for (const Computation* computation : ProgramComputations(work)) {
    for (const auto& inst : computation->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      if (auto it = at.find({inst->location().line, inst->location().column});
          inst->location().known() && it != at.end()) {
        sources[inst->name()] = it->second->name();
        continue;
      }
      if (inst->metadata() == nullptr || inst->metadata()->empty()) continue;
      const Instruction* found = nullptr;
      int matches = 0;
      for (const Instruction* candidate : candidates) {
        if (candidate->metadata() != nullptr && *candidate->metadata() == *inst->metadata()) {
          found = candidate;
          ++matches;
        }
      }
      if (matches == 1) sources[inst->name()] = found->name();
    }
  }
  return sources;
}

// The PTX with a comment header mapping each entry to its HLO instruction and launch
// geometry, then each library call the runtime makes instead of a kernel (ptxas reads it
// unchanged: PTX comments are C++-style).
std::string PtxWithLaunchMap(const codegen::GpuCode& code, const std::vector<GpuLibraryCall>& calls) {
  std::string header = "// Fusebox GPU kernels for " + code.arch() + ": entry <- HLO instruction (kind), launches\n";
  for (const auto& kernel : code.kernels()) {
    std::map<std::string, int> launches;
    for (const codegen::GpuLaunch& launch : kernel->launches) ++launches[launch.function];
    for (const codegen::GpuLaunch& launch : kernel->launches) {
      auto it = launches.find(launch.function);
      if (it == launches.end()) continue;
      header += "//   " + launch.function + " <- %" + (kernel->hlo != nullptr ? kernel->hlo->name() : "?") + " (" +
                kernel->kind_name + (kernel->label.empty() ? "" : ", shape: " + kernel->label) + "), grid " +
                std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) +
                "x" + std::to_string(launch.grid[2]) + ", block " + std::to_string(launch.block[0]) +
                (it->second > 1 ? ", launched " + std::to_string(it->second) + " times" : "") + "\n";
      launches.erase(it);
    }
    // Other shapes compiled for a GPU run to time (GpuCompileOptions::kernel_variants).
    for (const codegen::GpuKernelVariant& variant : kernel->variants) {
      for (const codegen::GpuLaunch& launch : variant.launches) {
        header += "//   " + launch.function + " <- %" + (kernel->hlo != nullptr ? kernel->hlo->name() : "?") + " (" +
                  kernel->kind_name + ", shape: " + variant.label + "; timed against " + kernel->label + "), grid " +
                  std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) + "x" +
                  std::to_string(launch.grid[2]) + ", block " + std::to_string(launch.block[0]) + "\n";
      }
    }
  }
  if (!calls.empty()) {
    header += "// Library calls (no kernel here; the GPU runtime calls NVIDIA's library): HLO instruction -> "
              "library routine and sizes\n";
    for (const GpuLibraryCall& call : calls) {
      header += "//   %" + call.name + " (" + call.target +
                (call.source.empty() || call.source == call.name ? "" : ", for %" + call.source) + ") -> " +
                (call.error.empty() ? call.library + " " + call.routine
                                    : call.library + ": NO PLAN, a run refuses this module: " + call.error) +
                "\n";
    }
  }
  return header + "\n" + code.ptx();
}

}  // namespace

CompileSession::CompileSession(std::unique_ptr<Module> module) : input_(std::move(module)) {}

Status CompileSession::RunPipeline(const passes::Pipeline& pipeline, const passes::PipelineOptions& options,
                                   Module& work, passes::PassContext& context, passes::PipelineResult& result) {
  passes::PipelineOptions with_cancel = options;
  if (with_cancel.cancel == nullptr) with_cancel.cancel = cancel_;
  if (with_cancel.trace == nullptr) with_cancel.trace = trace_.get();
  if (!with_cancel.progress && progress_) {
    with_cancel.progress = [this](size_t done, size_t total, std::string_view pass) {
      progress_(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : -1.f,
                "pass " + std::to_string(done) + " of " + std::to_string(total) + " (" + std::string(pass) + ")");
    };
  }
  return pipeline.Run(work, with_cancel, context, &result);
}

Status CompileSession::Optimize(const passes::PipelineOptions& options) {
  if (optimize_status_) return *optimize_status_;
  std::unique_ptr<Module> work = input_->Clone();
  if (work == nullptr) {
    optimize_status_ = Internal("could not copy module " + input_->name());
    return *optimize_status_;
  }
  // Pass and verifier messages give lines of the HLO stage (the printed input), and the
  // backends' messages lines of the optimized HLO stage below.
  work->LocateInPrintedText();
  // The GPU pipeline runs later with the same passes and snapshots (not the caller's
  // hooks, which may not outlive this call).
  pipeline_options_ = options;
  pipeline_options_.cancel = nullptr;
  pipeline_options_.progress = nullptr;
  pipeline_options_.trace = nullptr;
  passes::PassContext context;
  passes::PipelineResult result;
  Status st = RunPipeline(passes::MakeOptimizationPipeline(work.get(), /*gpu_libraries=*/false, /*cpu_libraries=*/true), options, *work,
                          context, result);
  if (IsCancelled(st)) return st;  // not remembered: the next call runs the pipeline again
  context_ = std::move(context);
  pipeline_result_ = std::move(result);
  optimize_status_ = st;
  if (st.ok()) optimized_ = std::move(work);
  return st;
}

StatusOr<std::string> CompileSession::StageText(Stage stage) {
  switch (stage) {
    case Stage::kHlo:
      return input_->ToString();
    case Stage::kOptimizedHlo: {
      Status st = Optimize();
      if (!st.ok()) return st;
      return optimized_->ToString();
    }
    case Stage::kLlvmIr:
    case Stage::kLlvmIrOptimized:
    case Stage::kCpuAsm:
    case Stage::kBufferAssignment: {
      ASSIGN_OR_RETURN(runtime::CpuExecutable * exe, CpuCompile());
      if (stage == Stage::kLlvmIr) return exe->code().llvm_ir();
      if (stage == Stage::kLlvmIrOptimized) return exe->code().llvm_ir_optimized();
      if (stage == Stage::kCpuAsm) return exe->code().assembly();
      return exe->BufferAssignmentText();
    }
    case Stage::kGpuOptimizedHlo: {
      RETURN_IF_ERROR(OptimizeForGpu());
      return gpu_module_->ToString();
    }
    case Stage::kGpuLlvmIr:
    case Stage::kGpuLlvmIrOptimized:
    case Stage::kPtx: {
      ASSIGN_OR_RETURN(const codegen::GpuCode* code, GpuCompile());
      if (stage == Stage::kGpuLlvmIr) return code->llvm_ir();
      if (stage == Stage::kGpuLlvmIrOptimized) return code->llvm_ir_optimized();
      return PtxWithLaunchMap(*code, gpu_library_calls_);
    }
    case Stage::kPtxasInfo: {
      ASSIGN_OR_RETURN(const codegen::PtxasResult* assembled, Assemble());
      std::string info = FormatPtxasInfo(assembled->kernels);
      for (const std::string& note : occupancy_notes_) info += note + "\n";
      return info;
    }
    case Stage::kSass: {
      ASSIGN_OR_RETURN(const codegen::PtxasResult* assembled, Assemble());
      return codegen::DisassembleCubin(assembled->cubin, gpu_options_.arch);
    }
  }
  return Internal("unknown stage");
}

namespace {

// A backend's message about a kernel starts "line:col: " in the printed optimized module
// (the copy it compiles is located there); named with that stage, as the source map names
// places ("optimized_hlo:288:3: CPU backend: ..."), so that it is not read as the input
// file's line.
Status InStage(const Status& status, const char* stage) {
  const std::string& m = status.message();
  size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    const size_t start = i;
    while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i]))) ++i;
    if (i == start || i >= m.size() || m[i] != ':') return status;
    ++i;
  }
  return Status(status.code(), std::string(stage) + ":" + m);
}

}  // namespace

StatusOr<runtime::CpuExecutable*> CompileSession::CpuCompile(const runtime::CpuExecutableOptions& options) {
  if (cpu_status_) {
    if (!cpu_status_->ok()) return *cpu_status_;
    return cpu_.get();
  }
  // A per-device program compiles for the devices it names (its collectives are the
  // runtime's exchanges); checked on the input, so a message points into the user's file.
  runtime::CpuExecutableOptions with_devices = options;
  with_devices.devices = std::max<int64_t>(options.devices, DevicesOfModule(*input_));
  if (Status fits = WithModuleFile(*input_, CheckCollectivesFit(*input_, with_devices.devices)); !fits.ok()) {
    cpu_status_ = fits;
    return fits;
  }
  Status st = Optimize();
  if (!st.ok()) return st;
  std::unique_ptr<Module> copy = optimized_->Clone();
  if (copy == nullptr) return Internal("could not copy module " + optimized_->name());
  copy->LocateInPrintedText();
  if (with_devices.compile.cancel == nullptr) with_devices.compile.cancel = cancel_;
  if (with_devices.compile.trace == nullptr) with_devices.compile.trace = trace_.get();
  if (!with_devices.compile.progress && progress_) {
    with_devices.compile.progress = [this](int64_t done, int64_t total) {
      progress_(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : -1.f,
                "compiling kernels: " + std::to_string(done) + " of " + std::to_string(total) + " steps");
    };
  }
  auto exe = runtime::CpuExecutable::Create(std::move(copy), with_devices);
  if (!exe.ok() && IsCancelled(exe.status())) return exe.status();  // not remembered
  cpu_status_ = InStage(exe.status(), "optimized_hlo");
  if (!exe.ok()) return *cpu_status_;
  cpu_ = std::move(*exe);
  return cpu_.get();
}

void CompileSession::SetGpuLibraries(bool on) {
  if (on == gpu_libraries_) return;
  gpu_libraries_ = on;
  gpu_optimize_status_.reset();
  gpu_pipeline_result_ = {};
  gpu_context_ = {};
  gpu_library_calls_.clear();
  ptxas_.reset();
  ptxas_status_.reset();
  gpu_.reset();  // before the module its kernels point into
  gpu_status_.reset();
  gpu_module_.reset();
}

namespace {

// Whether any computation of `module` holds what only the CPU pipeline keeps for its
// libraries: an fft (FFTW) or a jax LAPACK call.
bool HoldsCpuLibraryCalls(const Module& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() == Opcode::kFft || IsCpuLapackCall(*inst)) return true;
    }
  }
  return false;
}

}  // namespace

Status CompileSession::OptimizeForGpu() {
  if (gpu_optimize_status_) return *gpu_optimize_status_;
  // Checked on the input, so a message points into the user's file.
  if (Status fits = WithModuleFile(*input_, CheckCollectivesFit(*input_, /*devices=*/1)); !fits.ok()) {
    gpu_optimize_status_ = fits;
    return fits;
  }
  std::unique_ptr<Module> work;
  // Without GPU libraries the GPU runs the CPU pipeline's module, unless that module kept
  // Fourier transforms for FFTW or LAPACK calls: then the pipeline runs again without them.
  bool own_pipeline = gpu_libraries_;
  if (!own_pipeline) {
    Status st = Optimize();
    if (!st.ok()) return st;
    own_pipeline = HoldsCpuLibraryCalls(*optimized_);
  }
  if (own_pipeline) {
    work = input_->Clone();
    if (work == nullptr) return Internal("could not copy module " + input_->name());
    work->LocateInPrintedText();  // pass messages give lines of the hlo stage
    passes::PassContext context;
    passes::PipelineResult result;
    Status st = RunPipeline(passes::MakeOptimizationPipeline(work.get(), gpu_libraries_), pipeline_options_, *work,
                            context, result);
    if (IsCancelled(st)) return st;  // not remembered
    gpu_context_ = std::move(context);
    gpu_pipeline_result_ = std::move(result);
    if (!st.ok() && gpu_libraries_) {
      // The message keeps its file:line:col first; what made the module comes after.
      gpu_optimize_status_ = Status(st.code(), st.message() + "\n(in the GPU pipeline with GPU libraries; "
                                                              "--gpu-library=off compiles Fusebox's own kernels instead)");
      return *gpu_optimize_status_;
    }
    if (!st.ok()) {
      gpu_optimize_status_ = st;
      return st;
    }
  } else {
    work = optimized_->Clone();
    if (work == nullptr) return Internal("could not copy module " + optimized_->name());
  }
  ScopedSpan layout_span(trace_.get(), compile_category::kPass, "layout-normalization");
  layout_span.Arg("backend", "gpu");
  Status st = backend::NormalizeLayoutsForBackend(*work, "GPU backend");
  layout_span.End();
  gpu_optimize_status_ = st;
  if (!st.ok()) return st;
  gpu_call_sources_ = LibraryCallSources(*input_, *work);
  // The GPU backend's messages give lines of the gpu_optimized_hlo stage.
  work->LocateInPrintedText();
  gpu_module_ = std::move(work);
  gpu_library_calls_ = PlanLibraryCalls(*gpu_module_, gpu_options_.arch, gpu_call_sources_);
  return Status::Ok();
}

StatusOr<const codegen::GpuCode*> CompileSession::GpuCompile() {
  if (gpu_status_) {
    if (!gpu_status_->ok()) return *gpu_status_;
    return gpu_.get();
  }
  Status st = OptimizeForGpu();
  if (!st.ok()) return st;
  codegen::GpuCompileOptions options = gpu_options_;
  if (options.trace == nullptr) options.trace = trace_.get();
  auto code = CompileForGpu(*gpu_module_, options);
  if (!code.ok() && IsCancelled(code.status())) return code.status();
  gpu_status_ = InStage(code.status(), "gpu_optimized_hlo");
  if (!code.ok()) return *gpu_status_;
  gpu_ = std::move(*code);
  return gpu_.get();
}

StatusOr<const codegen::PtxasResult*> CompileSession::Assemble() {
  if (ptxas_status_) {
    if (!ptxas_status_->ok()) return *ptxas_status_;
    return ptxas_.get();
  }
  auto code = GpuCompile();
  if (!code.ok()) return code.status();
  codegen::PtxasOptions ptxas;
  ptxas.cache_dir = codegen::PtxasCacheDir();  // the same PTX assembles once per machine
  ptxas.trace = trace_.get();
  std::map<std::string, codegen::PtxasResult> probed;  // by PTX
  codegen::ResourceProbe probe = [&](const std::string& ptx) -> StatusOr<std::vector<codegen::KernelResources>> {
    ASSIGN_OR_RETURN(codegen::PtxasResult assembled, codegen::AssemblePtx(ptx, (*code)->arch(), ptxas));
    std::vector<codegen::KernelResources> resources;
    for (const codegen::PtxasKernelInfo& k : assembled.kernels) {
      resources.push_back({k.name, k.registers, k.shared_bytes, k.stack_frame_bytes});
    }
    probed[ptx] = std::move(assembled);
    return resources;
  };
  const codegen::SmLimits sm = codegen::SmLimitsForArch((*code)->arch());
  auto tuned = codegen::TuneOccupancy((*code)->ptx(), codegen::AllLaunches(**code), sm, probe);
  ptxas_status_ = tuned.status();
  if (!tuned.ok()) return tuned.status();
  for (const codegen::OccupancyVerdict& v : tuned->verdicts) {
    occupancy_notes_.push_back("occupancy (" + std::to_string(sm.multiprocessors) + " SMs, " + (*code)->arch() +
                               "'s largest part): " + v.ToString());
  }
  if (!tuned->note.empty()) occupancy_notes_.push_back(tuned->note);
  ptxas_ = std::make_unique<codegen::PtxasResult>(std::move(probed[tuned->ptx]));
  return ptxas_.get();
}

passes::KernelCount CompileSession::kernels_after() const {
  return optimized_ ? passes::CountKernels(*optimized_) : passes::KernelCount{};
}

passes::KernelCount CompileSession::gpu_kernels_after() const {
  return gpu_module_ ? passes::CountKernels(*gpu_module_) : passes::KernelCount{};
}

namespace {
std::string SafeName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  }
  return out;
}

std::string Pad4(int64_t n) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(n));
  return buf;
}
}  // namespace

std::string DumpFilePrefix(const std::string& module_name, int module_id) {
  return "module_" + Pad4(module_id) + "." + SafeName(module_name);
}

namespace {

// Writes files of one dump, remembering their paths.
class DumpWriter {
 public:
  // Creates `dir`; the files begin with the module's dump prefix.
  static StatusOr<DumpWriter> Create(const std::string& dir, const std::string& module_name, int module_id) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return InvalidArgument(dir + ": cannot create folder: " + ec.message());
    return DumpWriter(dir + "/" + DumpFilePrefix(module_name, module_id));
  }
  // Writes prefix + suffix.
  Status Write(const std::string& suffix, const std::string& text) {
    const std::string path = prefix_ + suffix;
    std::ofstream out(path, std::ios::binary);
    if (!out) return InvalidArgument(path + ": cannot write");
    out << text;
    written_.push_back(path);
    return Status::Ok();
  }
  std::vector<std::string> TakeWritten() { return std::move(written_); }

 private:
  explicit DumpWriter(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string prefix_;
  std::vector<std::string> written_;
};

// The HLO files of one pipeline's run: the input, a file per snapshot, the module after
// it (`after_suffix`) and the decisions.
Status WriteHloDump(DumpWriter& out, const CompileSession& session, const passes::PipelineResult& result,
                    const passes::PassContext& context, const Module& optimized, const std::string& after_suffix) {
  RETURN_IF_ERROR(out.Write(".before_optimizations.txt", session.input().ToString()));
  for (size_t i = 0; i < result.passes.size(); ++i) {
    const passes::PassRecord& record = result.passes[i];
    if (!record.has_snapshot) continue;
    std::string next = i + 1 < result.passes.size() ? result.passes[i + 1].name : "end";
    RETURN_IF_ERROR(out.Write("." + Pad4(static_cast<int64_t>(i)) + "." + result.pipeline_name + ".after_" +
                                  record.name + ".before_" + next + ".txt",
                              record.snapshot));
  }
  RETURN_IF_ERROR(out.Write(after_suffix, optimized.ToString()));
  nlohmann::ordered_json j;
  j["module"] = session.input().name();
  j["kernels_before"] = session.kernels_before().kernels;
  j["kernels_after"] = passes::CountKernels(optimized).kernels;
  j["passes"] = nlohmann::ordered_json::array();
  for (const passes::PassRecord& r : result.passes) {
    j["passes"].push_back({{"name", r.name}, {"changed", r.changed}, {"skipped", r.skipped},
                           {"wall_ns", r.wall_ns}, {"instructions", r.instruction_count}});
  }
  j["decisions"] = nlohmann::ordered_json::array();
  for (const passes::FusionDecision& d : context.decisions()) {
    j["decisions"].push_back({{"pass", d.pass}, {"computation", d.computation},
                              {"producer", d.producer}, {"consumer", d.consumer},
                              {"fused", d.fused}, {"reason", d.reason}, {"fusion", d.fusion}});
  }
  return out.Write(".fusion_decisions.json", j.dump(2) + "\n");
}

}  // namespace

StatusOr<std::vector<std::string>> WriteDump(CompileSession& session, const std::string& dir,
                                             int module_id, bool with_cpu) {
  ASSIGN_OR_RETURN(DumpWriter out, DumpWriter::Create(dir, session.input().name(), module_id));
  RETURN_IF_ERROR(session.Optimize());
  RETURN_IF_ERROR(WriteHloDump(out, session, session.pipeline_result(), session.pass_context(),
                               *session.optimized_module(), ".cpu_after_optimizations.txt"));
  if (with_cpu) {
    auto compiled = session.CpuCompile();
    if (!compiled.ok()) {
      // The HLO dumps stay useful when the backend cannot compile the module: say why.
      RETURN_IF_ERROR(out.Write(".cpu_backend_error.txt", compiled.status().message() + "\n"));
      return out.TakeWritten();
    }
    runtime::CpuExecutable* exe = *compiled;
    RETURN_IF_ERROR(out.Write(".ir-no-opt.ll", exe->code().llvm_ir()));
    RETURN_IF_ERROR(out.Write(".ir-with-opt.ll", exe->code().llvm_ir_optimized()));
    RETURN_IF_ERROR(out.Write(".s", exe->code().assembly()));
    ASSIGN_OR_RETURN(std::string buffers, exe->BufferAssignmentText());
    RETURN_IF_ERROR(out.Write(".cpu_after_optimizations-buffer-assignment.txt", buffers));
  }
  return out.TakeWritten();
}

std::string XlaGpuDumpPlatform(const std::string& arch) {
  const int number = codegen::gpu::GpuArchNumber(arch);
  if (number == 0) return arch;
  std::string suffix;
  for (size_t i = arch.size(); i > 3 && !std::isdigit(static_cast<unsigned char>(arch[i - 1])); --i) {
    suffix.insert(suffix.begin(), arch[i - 1]);
  }
  return "sm_" + std::to_string(number / 10) + "." + std::to_string(number % 10) + suffix;
}

StatusOr<std::vector<std::string>> WriteGpuDump(CompileSession& session, const std::string& dir, int module_id) {
  ASSIGN_OR_RETURN(DumpWriter out, DumpWriter::Create(dir, session.input().name(), module_id));
  RETURN_IF_ERROR(session.OptimizeForGpu());
  const std::string platform = XlaGpuDumpPlatform(session.gpu_options().arch);
  RETURN_IF_ERROR(WriteHloDump(out, session, session.gpu_pipeline_result(), session.gpu_pass_context(),
                               *session.gpu_optimized_module(), "." + platform + "_gpu_after_optimizations.txt"));
  auto compiled = session.GpuCompile();
  if (!compiled.ok()) {
    RETURN_IF_ERROR(out.Write(".gpu_backend_error.txt", compiled.status().message() + "\n"));
    return out.TakeWritten();
  }
  RETURN_IF_ERROR(out.Write(".ir-no-opt.ll", (*compiled)->llvm_ir()));
  RETURN_IF_ERROR(out.Write(".ir-with-opt.ll", (*compiled)->llvm_ir_optimized()));
  ASSIGN_OR_RETURN(std::string ptx, session.StageText(Stage::kPtx));
  RETURN_IF_ERROR(out.Write(".ptx", ptx));
  return out.TakeWritten();
}

void CompileSession::AddExternalStage(ExternalStage stage) {
  for (size_t i = 0; i < external_.size(); ++i) {
    if (external_[i].name == stage.name) {
      external_[i] = std::move(stage);
      external_text_[i].reset();
      return;
    }
  }
  external_.push_back(std::move(stage));
  external_text_.emplace_back();
}

StatusOr<std::string> CompileSession::ExternalStageText(const std::string& name) {
  for (size_t i = 0; i < external_.size(); ++i) {
    if (external_[i].name != name) continue;
    if (!external_text_[i]) {
      external_text_[i] = external_[i].load ? external_[i].load()
                                            : StatusOr<std::string>(NotFound(name + ": nothing to load"));
    }
    return *external_text_[i];
  }
  std::string names;
  for (const ExternalStage& e : external_) names += (names.empty() ? "" : ", ") + e.name;
  return NotFound("no stage '" + name + "'" +
                  (names.empty() ? std::string(" (external stages come from an XLA dump folder)")
                                 : "; external stages: " + names));
}

std::vector<std::string> CompileSession::StageNames() const {
  std::vector<std::string> names;
  for (Stage s : AllStages()) names.emplace_back(StageName(s));
  for (const ExternalStage& e : external_) names.push_back(e.name);
  return names;
}

}  // namespace fusebox::session
