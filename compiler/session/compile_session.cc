// The compile session and the XLA-layout dump writer.
#include "compiler/session/compile_session.h"

#include "compiler/runtime/multi_device.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "compiler/backend/layout_normalization.h"
#include "compiler/ir/collectives.h"
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
    case Stage::kGpuLlvmIr: return "gpu_llvm_ir";
    case Stage::kGpuLlvmIrOptimized: return "gpu_llvm_ir_optimized";
    case Stage::kPtx: return "ptx";
    case Stage::kPtxasInfo: return "ptxas_info";
    case Stage::kSass: return "sass";
  }
  return "?";
}

std::optional<Stage> ParseStage(std::string_view name) {
  if (name == "hlo") return Stage::kHlo;
  if (name == "optimized_hlo") return Stage::kOptimizedHlo;
  if (name == "llvm_ir") return Stage::kLlvmIr;
  if (name == "llvm_ir_optimized") return Stage::kLlvmIrOptimized;
  if (name == "cpu_asm") return Stage::kCpuAsm;
  if (name == "buffer_assignment") return Stage::kBufferAssignment;
  if (name == "gpu_llvm_ir") return Stage::kGpuLlvmIr;
  if (name == "gpu_llvm_ir_optimized") return Stage::kGpuLlvmIrOptimized;
  if (name == "ptx") return Stage::kPtx;
  if (name == "ptxas_info") return Stage::kPtxasInfo;
  if (name == "sass") return Stage::kSass;
  return std::nullopt;
}

namespace {

// The PTX with a comment header mapping each entry to its HLO instruction and launch
// geometry (ptxas reads it unchanged: PTX comments are C++-style).
std::string PtxWithLaunchMap(const codegen::GpuCode& code) {
  std::string header = "// Fusebox GPU kernels for " + code.arch() + ": entry <- HLO instruction (kind), launches\n";
  for (const auto& kernel : code.kernels()) {
    std::map<std::string, int> launches;
    for (const codegen::GpuLaunch& launch : kernel->launches) ++launches[launch.function];
    for (const codegen::GpuLaunch& launch : kernel->launches) {
      auto it = launches.find(launch.function);
      if (it == launches.end()) continue;
      header += "//   " + launch.function + " <- %" + (kernel->hlo != nullptr ? kernel->hlo->name() : "?") + " (" +
                kernel->kind_name + "), grid " + std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) +
                "x" + std::to_string(launch.grid[2]) + ", block " + std::to_string(launch.block[0]) +
                (it->second > 1 ? ", launched " + std::to_string(it->second) + " times" : "") + "\n";
      launches.erase(it);
    }
  }
  return header + "\n" + code.ptx();
}

}  // namespace

CompileSession::CompileSession(std::unique_ptr<Module> module) : input_(std::move(module)) {}

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
  passes::Pipeline pipeline = passes::MakeOptimizationPipeline(work.get());
  passes::PipelineOptions with_cancel = options;
  if (with_cancel.cancel == nullptr) with_cancel.cancel = cancel_;
  if (with_cancel.trace == nullptr) with_cancel.trace = trace_.get();
  if (!with_cancel.progress && progress_) {
    with_cancel.progress = [this](size_t done, size_t total, std::string_view pass) {
      progress_(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : -1.f,
                "pass " + std::to_string(done) + " of " + std::to_string(total) + " (" + std::string(pass) + ")");
    };
  }
  passes::PassContext context;
  passes::PipelineResult result;
  Status st = pipeline.Run(*work, with_cancel, context, &result);
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
    case Stage::kGpuLlvmIr:
    case Stage::kGpuLlvmIrOptimized:
    case Stage::kPtx: {
      ASSIGN_OR_RETURN(const codegen::GpuCode* code, GpuCompile());
      if (stage == Stage::kGpuLlvmIr) return code->llvm_ir();
      if (stage == Stage::kGpuLlvmIrOptimized) return code->llvm_ir_optimized();
      return PtxWithLaunchMap(*code);
    }
    case Stage::kPtxasInfo: {
      ASSIGN_OR_RETURN(const codegen::PtxasResult* assembled, Assemble());
      return FormatPtxasInfo(assembled->kernels);
    }
    case Stage::kSass: {
      ASSIGN_OR_RETURN(const codegen::PtxasResult* assembled, Assemble());
      return codegen::DisassembleCubin(assembled->cubin, gpu_options_.arch);
    }
  }
  return Internal("unknown stage");
}

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
  cpu_status_ = exe.status();
  if (!exe.ok()) return exe.status();
  cpu_ = std::move(*exe);
  return cpu_.get();
}

StatusOr<const codegen::GpuCode*> CompileSession::GpuCompile() {
  if (gpu_status_) {
    if (!gpu_status_->ok()) return *gpu_status_;
    return gpu_.get();
  }
  if (Status fits = WithModuleFile(*input_, CheckCollectivesFit(*input_, /*devices=*/1)); !fits.ok()) {
    gpu_status_ = fits;
    return fits;
  }
  Status st = Optimize();
  if (!st.ok()) return st;
  gpu_module_ = optimized_->Clone();
  if (gpu_module_ == nullptr) return Internal("could not copy module " + optimized_->name());
  gpu_module_->LocateInPrintedText();
  ScopedSpan layout_span(trace_.get(), compile_category::kPass, "layout-normalization");
  layout_span.Arg("backend", "gpu");
  st = backend::NormalizeLayoutsForBackend(*gpu_module_, "GPU backend");
  layout_span.End();
  if (st.ok()) {
    codegen::GpuCompileOptions options = gpu_options_;
    if (options.trace == nullptr) options.trace = trace_.get();
    auto code = CompileForGpu(*gpu_module_, options);
    st = code.status();
    if (code.ok()) gpu_ = std::move(*code);
  }
  gpu_status_ = st;
  if (!st.ok()) return st;
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
  auto assembled = codegen::AssemblePtx((*code)->ptx(), (*code)->arch(), ptxas);
  ptxas_status_ = assembled.status();
  if (!assembled.ok()) return assembled.status();
  ptxas_ = std::make_unique<codegen::PtxasResult>(std::move(*assembled));
  return ptxas_.get();
}

passes::KernelCount CompileSession::kernels_after() const {
  return optimized_ ? passes::CountKernels(*optimized_) : passes::KernelCount{};
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

StatusOr<std::vector<std::string>> WriteDump(CompileSession& session, const std::string& dir,
                                             int module_id, bool with_cpu) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return InvalidArgument(dir + ": cannot create folder: " + ec.message());
  Status st = session.Optimize();
  if (!st.ok()) return st;
  std::string prefix = dir + "/" + DumpFilePrefix(session.input().name(), module_id);
  std::vector<std::string> written;
  auto write = [&](const std::string& path, const std::string& text) -> Status {
    std::ofstream out(path, std::ios::binary);
    if (!out) return InvalidArgument(path + ": cannot write");
    out << text;
    written.push_back(path);
    return Status::Ok();
  };
  RETURN_IF_ERROR(write(prefix + ".before_optimizations.txt", session.input().ToString()));
  const passes::PipelineResult& result = session.pipeline_result();
  for (size_t i = 0; i < result.passes.size(); ++i) {
    const passes::PassRecord& record = result.passes[i];
    if (!record.has_snapshot) continue;
    std::string next = i + 1 < result.passes.size() ? result.passes[i + 1].name : "end";
    RETURN_IF_ERROR(write(prefix + "." + Pad4(static_cast<int64_t>(i)) + "." + result.pipeline_name +
                              ".after_" + record.name + ".before_" + next + ".txt",
                          record.snapshot));
  }
  RETURN_IF_ERROR(write(prefix + ".cpu_after_optimizations.txt", session.optimized_module()->ToString()));
  nlohmann::ordered_json j;
  j["module"] = session.input().name();
  j["kernels_before"] = session.kernels_before().kernels;
  j["kernels_after"] = session.kernels_after().kernels;
  j["passes"] = nlohmann::ordered_json::array();
  for (const passes::PassRecord& r : result.passes) {
    j["passes"].push_back({{"name", r.name}, {"changed", r.changed}, {"skipped", r.skipped},
                           {"wall_ns", r.wall_ns}, {"instructions", r.instruction_count}});
  }
  j["decisions"] = nlohmann::ordered_json::array();
  for (const passes::FusionDecision& d : session.pass_context().decisions()) {
    j["decisions"].push_back({{"pass", d.pass}, {"computation", d.computation},
                              {"producer", d.producer}, {"consumer", d.consumer},
                              {"fused", d.fused}, {"reason", d.reason}, {"fusion", d.fusion}});
  }
  RETURN_IF_ERROR(write(prefix + ".fusion_decisions.json", j.dump(2) + "\n"));
  if (with_cpu) {
    auto compiled = session.CpuCompile();
    if (!compiled.ok()) {
      // The HLO dumps stay useful when the backend cannot compile the module: say why.
      RETURN_IF_ERROR(write(prefix + ".cpu_backend_error.txt", compiled.status().message() + "\n"));
      return written;
    }
    runtime::CpuExecutable* exe = *compiled;
    RETURN_IF_ERROR(write(prefix + ".ir-no-opt.ll", exe->code().llvm_ir()));
    RETURN_IF_ERROR(write(prefix + ".ir-with-opt.ll", exe->code().llvm_ir_optimized()));
    RETURN_IF_ERROR(write(prefix + ".s", exe->code().assembly()));
    ASSIGN_OR_RETURN(std::string buffers, exe->BufferAssignmentText());
    RETURN_IF_ERROR(write(prefix + ".cpu_after_optimizations-buffer-assignment.txt", buffers));
  }
  return written;
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
  for (Stage s : {Stage::kHlo, Stage::kOptimizedHlo, Stage::kLlvmIr, Stage::kLlvmIrOptimized, Stage::kCpuAsm,
                  Stage::kBufferAssignment, Stage::kGpuLlvmIr, Stage::kGpuLlvmIrOptimized, Stage::kPtx,
                  Stage::kPtxasInfo, Stage::kSass}) {
    names.emplace_back(StageName(s));
  }
  for (const ExternalStage& e : external_) names.push_back(e.name);
  return names;
}

}  // namespace fusebox::session
