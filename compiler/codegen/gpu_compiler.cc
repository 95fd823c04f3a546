// The GPU code generator's driver: every kernel emitted (gpu_kernel_emitter.h) into one
// NVPTX module, CUDA's libdevice linked for the math functions, optimized, printed as
// PTX; or, for the GPU emulator, the same kernels for the host.
#include "compiler/codegen/gpu_compiler.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/codegen/gpu_emulator_internal.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/passes/row_fusion.h"
#include "compiler/passes/kernel_count.h"

namespace fusebox::codegen {

// A library call (cuBLAS, cuDNN), a Fourier transform (cuFFT) and a triangular solve
// (cuBLAS's trsm; the pipeline without libraries expands them into loops) are work the
// runtime hands to a library, not kernels Fusebox emits; but a small batched orgqr, which
// jaxlib runs with its own kernel, is Fusebox's kernel too.
bool IsGpuKernel(const Instruction& inst) {
  const GpuCallRoute route = GpuRouteOf(inst);
  return passes::IsKernel(inst) && (route == GpuCallRoute::kNotLibraryCall || route == GpuCallRoute::kOwnKernel) &&
         inst.opcode() != Opcode::kFft && inst.opcode() != Opcode::kTriangularSolve;
}

const std::vector<std::string>& SupportedGpuArchs() {
  static const std::vector<std::string> archs = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};
  return archs;
}

namespace {

using codegen::gpu::GpuKernelEmitter;

void InitializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

class GpuCodeImpl : public GpuCode {
 public:
  const GpuKernel* KernelFor(const Instruction* inst) const override {
    auto it = by_instruction_.find(inst);
    return it == by_instruction_.end() ? nullptr : it->second;
  }
  const std::vector<std::unique_ptr<GpuKernel>>& kernels() const override { return kernels_; }
  const std::string& llvm_ir() const override { return llvm_ir_; }
  const std::string& llvm_ir_optimized() const override { return llvm_ir_optimized_; }
  const std::string& ptx() const override { return ptx_; }
  const std::string& arch() const override { return arch_; }
  const std::map<std::string, std::string>& function_to_hlo() const override { return function_to_hlo_; }
  const GpuKernel* GemmKernelFor(const Instruction* call) const override {
    auto it = gemm_kernels_.find(call);
    return it == gemm_kernels_.end() ? nullptr : it->second.get();
  }
  std::vector<const GpuKernel*> GemmKernels() const override {
    std::vector<const GpuKernel*> out;
    for (const auto& [call, kernel] : gemm_kernels_) out.push_back(kernel.get());
    return out;
  }

  std::vector<std::unique_ptr<GpuKernel>> kernels_;
  // Own kernels of gemm library calls, and the modules their fusions live in.
  std::unordered_map<const Instruction*, std::unique_ptr<GpuKernel>> gemm_kernels_;
  std::vector<std::unique_ptr<Module>> gemm_modules_;
  std::unordered_map<const Instruction*, GpuKernel*> by_instruction_;
  std::string llvm_ir_, llvm_ir_optimized_, ptx_, arch_;
  std::map<std::string, std::string> function_to_hlo_;
};

// --- Math library -------------------------------------------------------------------------

// libdevice: CUDA's bitcode math library, linked into the module where kernels call math
// functions (the NVPTX backend has no instructions for exp, log, sin, ...).
std::vector<std::string> LibdeviceCandidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("FUSEBOX_LIBDEVICE"); env != nullptr && *env != '\0') paths.push_back(env);
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    paths.push_back(std::string(home) + "/nvvm/libdevice/libdevice.10.bc");
  }
  paths.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  paths.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  return paths;
}

// The libdevice function for a math intrinsic or C library call, or "".
std::string LibdeviceName(llvm::Function* callee) {
  llvm::Type* t = callee->getReturnType();
  const bool is_float = t->isFloatTy();
  if (!is_float && !t->isDoubleTy()) return "";
  const std::string suffix = is_float ? "f" : "";
  if (callee->isIntrinsic()) {
    switch (callee->getIntrinsicID()) {
      case llvm::Intrinsic::exp: return "__nv_exp" + suffix;
      case llvm::Intrinsic::exp2: return "__nv_exp2" + suffix;
      case llvm::Intrinsic::log: return "__nv_log" + suffix;
      case llvm::Intrinsic::log2: return "__nv_log2" + suffix;
      case llvm::Intrinsic::log10: return "__nv_log10" + suffix;
      case llvm::Intrinsic::sin: return "__nv_sin" + suffix;
      case llvm::Intrinsic::cos: return "__nv_cos" + suffix;
      case llvm::Intrinsic::pow: return "__nv_pow" + suffix;
      default: return "";
    }
  }
  static const std::unordered_set<std::string> kLibm = {
      "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cosh", "erf", "expm1",
      "log1p", "sinh", "tan", "tanh", "fmod", "exp", "log", "sin", "cos", "pow", "hypot"};
  std::string name = callee->getName().str();
  std::string base = is_float && !name.empty() && name.back() == 'f' ? name.substr(0, name.size() - 1) : name;
  if (kLibm.count(base) != 0) return "__nv_" + base + suffix;
  return "";
}

// Redirects math calls to libdevice and links it in. Returns the first function that
// stays unresolved afterwards (with the kernel that calls it), if any.
Status LinkMath(llvm::Module& module, const std::map<std::string, std::string>& function_to_hlo) {
  std::vector<llvm::CallInst*> calls;
  for (llvm::Function& f : module) {
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& i : block) {
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i); call != nullptr && call->getCalledFunction() != nullptr) {
          if (!LibdeviceName(call->getCalledFunction()).empty()) calls.push_back(call);
        }
      }
    }
  }
  if (!calls.empty()) {
    for (llvm::CallInst* call : calls) {
      llvm::Function* callee = call->getCalledFunction();
      llvm::FunctionCallee target = module.getOrInsertFunction(LibdeviceName(callee), callee->getFunctionType());
      call->setCalledFunction(target);
    }
    std::string found;
    for (const std::string& path : LibdeviceCandidates()) {
      if (std::filesystem::exists(path)) {
        found = path;
        break;
      }
    }
    if (found.empty()) {
      std::string looked;
      for (const std::string& path : LibdeviceCandidates()) looked += (looked.empty() ? "" : ", ") + path;
      return Unavailable("libdevice (CUDA's math library) not found, needed for " +
                         calls[0]->getCalledFunction()->getName().str() + "; looked in " + looked +
                         " (set FUSEBOX_LIBDEVICE)");
    }
    auto buffer = llvm::MemoryBuffer::getFile(found);
    if (!buffer) return Unavailable("cannot read " + found + ": " + buffer.getError().message());
    auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
    if (!libdevice) return FromLlvm(libdevice.takeError(), "cannot parse " + found);
    (*libdevice)->setTargetTriple(module.getTargetTriple());
    (*libdevice)->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(*libdevice), llvm::Linker::Flags::LinkOnlyNeeded)) {
      return Internal("linking libdevice failed");
    }
  }
  // Everything but the kernels is internal, so unused library code goes away.
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() || f.getName().starts_with("__nvvm_reflect")) continue;
    std::string user = "a kernel";
    for (llvm::User* u : f.users()) {
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(u)) {
        std::string caller = inst->getFunction()->getName().str();
        auto it = function_to_hlo.find(caller);
        user = it != function_to_hlo.end() ? it->second : caller;
        break;
      }
    }
    return Unimplemented(user + ": the GPU backend has no device implementation of " + f.getName().str() +
                         " (complex arithmetic and this C library call run only on the CPU)");
  }
  return Status::Ok();
}

StatusOr<std::string> EmitPtx(llvm::Module& module, llvm::TargetMachine* tm) {
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  llvm::buffer_ostream buffer(os);
  llvm::legacy::PassManager pm;
  if (!AddCodegenPasses(*tm, pm, buffer, llvm::CodeGenFileType::AssemblyFile).ok()) {
    return Internal("the NVPTX target cannot emit PTX");
  }
  pm.run(module);
  return std::string(buffer.str());
}

// Fusebox's own kernel for each gemm library call that has one (GemmCallAsFusion).
// A call it cannot build one for keeps the library alone; only an emitter error on a
// fusion it built is an error (a bug, never a quiet fallback).
Status EmitGemmKernels(const Module& module, const GpuCompileOptions& options, GpuKernelEmitter& emitter,
                       GpuCodeImpl& code) {
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& call : comp->instructions()) {
      if (!IsLibraryCall(*call)) continue;
      StatusOr<std::unique_ptr<Module>> own = gpu::GemmCallAsFusion(module, *call, options);
      if (!own.ok() || *own == nullptr) continue;
      const Instruction* fusion = (*own)->entry()->root();
      ScopedSpan span(options.trace, compile_category::kCodegen, fusion->name());
      span.Arg("kernel", fusion->name()).Arg("backend", "gpu (own kernel of a library call)");
      auto kernel = std::make_unique<GpuKernel>();
      Status st = emitter.Emit(*fusion, kernel.get());
      if (!st.ok()) {
        return Status(st.code(), "GPU backend: " + call->name() + "'s own kernel: " + st.message() +
                                     " (--gpu-gemm-kernels=library runs the call without one)");
      }
      kernel->hlo = call.get();
      for (const Instruction* operand : fusion->operands()) kernel->call_operands.push_back(operand->parameter_number());
      for (const GpuLaunch& launch : kernel->launches) code.function_to_hlo_[launch.function] = call->name();
      code.gemm_kernels_[call.get()] = std::move(kernel);
      code.gemm_modules_.push_back(std::move(*own));
    }
  }
  return Status::Ok();
}

// Emits every kernel of `module` into `llvm_module` and records them in `code`.
Status EmitKernels(const Module& module, const GpuCompileOptions& options, bool emulate, llvm::Module& llvm_module,
                   GpuCodeImpl& code) {
  GpuKernelEmitter emitter(llvm_module, options, emulate);
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& inst : comp->instructions()) {
      if (!IsGpuKernel(*inst)) continue;
      ScopedSpan span(options.trace, compile_category::kCodegen, inst->name());
      span.Arg("kernel", inst->name()).Arg("backend", emulate ? "gpu-emulator" : "gpu");
      auto kernel = std::make_unique<GpuKernel>();
      Status st = emitter.Emit(*inst, kernel.get());
      if (!st.ok()) {
        const SourceLocation& at = inst->location();
        std::string where = at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "";
        return Status(st.code(), where + "GPU backend: " + st.message());
      }
      for (const GpuLaunch* launch : kernel->EveryLaunch()) code.function_to_hlo_[launch->function] = inst->name();
      span.Arg("kind", kernel->kind_name);
      code.by_instruction_[inst.get()] = kernel.get();
      code.kernels_.push_back(std::move(kernel));
    }
  }
  if (options.gemm_kernels) RETURN_IF_ERROR(EmitGemmKernels(module, options, emitter, code));
  if (emulate) emitter.EmitEmulatorWrappers();
  return Status::Ok();
}

}  // namespace

StatusOr<HostGpuModule> EmitGpuKernelsForHost(const Module& module, const GpuCompileOptions& options,
                                              const std::string& triple, const llvm::DataLayout& layout,
                                              llvm::LLVMContext& context) {
  auto code = std::make_unique<GpuCodeImpl>();
  code->arch_ = "host-emulation";
  auto llvm_module = std::make_unique<llvm::Module>("fusebox_gpu_emulated", context);
  llvm_module->setTargetTriple(triple);
  llvm_module->setDataLayout(layout);
  RETURN_IF_ERROR(EmitKernels(module, options, /*emulate=*/true, *llvm_module, *code));
  code->llvm_ir_ = ToText(*llvm_module);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(*llvm_module, &verify_os)) {
    return Internal("GPU backend produced invalid LLVM IR: " + verify_errors);
  }
  HostGpuModule out;
  out.code = std::move(code);
  out.module = std::move(llvm_module);
  return out;
}

StatusOr<std::unique_ptr<GpuCode>> CompileForGpu(const Module& module, const GpuCompileOptions& options) {
  // The code is for one device: a collective over more would be emitted as a local value.
  RETURN_IF_ERROR(CheckCollectivesFit(module, /*devices=*/1));
  const auto& archs = SupportedGpuArchs();
  if (std::find(archs.begin(), archs.end(), options.arch) == archs.end()) {
    std::string list;
    for (const std::string& a : archs) list += (list.empty() ? "" : ", ") + a;
    return InvalidArgument("GPU architecture " + options.arch + " is not supported (use one of " + list + ")");
  }
  InitializeNvptxOnce();
  const std::string triple = "nvptx64-nvidia-cuda";
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return Unavailable("the NVPTX target is not available in this LLVM: " + error);
  llvm::TargetOptions target_options;
  // sm_90a needs PTX 8.0; everything else takes LLVM's default for the architecture.
  const std::string features = options.arch == "sm_90a" ? "+ptx80" : "";
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, options.arch, features, target_options, llvm::Reloc::PIC_, std::nullopt,
      options.opt_level >= 2 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default));
  if (tm == nullptr) return Unavailable("cannot create an NVPTX target machine for " + options.arch);

  ScopedSpan compile_span(options.trace, compile_category::kStage, "gpu backend");
  compile_span.Arg("module", module.name()).Arg("arch", options.arch);
  auto code = std::make_unique<GpuCodeImpl>();
  code->arch_ = options.arch;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name().empty() ? "fusebox_gpu" : module.name(), *context);
  llvm_module->setTargetTriple(triple);
  llvm_module->setDataLayout(tm->createDataLayout());
  ScopedSpan emit_span(options.trace, compile_category::kStage, "emit IR");
  RETURN_IF_ERROR(EmitKernels(module, options, /*emulate=*/false, *llvm_module, *code));
  emit_span.End();
  ScopedSpan print_span(options.trace, compile_category::kPrint, "print LLVM IR");
  code->llvm_ir_ = ToText(*llvm_module);
  print_span.End();
  ScopedSpan verify_span(options.trace, compile_category::kLlvm, "verify IR");
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(*llvm_module, &verify_os)) {
    return Internal("GPU backend produced invalid LLVM IR: " + verify_errors);
  }
  verify_span.End();
  ScopedSpan link_span(options.trace, compile_category::kLlvm, "link libdevice");
  if (Status linked = LinkMath(*llvm_module, code->function_to_hlo_); !linked.ok()) {
    return Status(linked.code(), "GPU backend: " + linked.message());
  }
  link_span.End();
  ScopedSpan optimize_span(options.trace, compile_category::kLlvm, "optimize");
  optimize_span.Arg("module", llvm_module->getName()).Arg("pipeline", "O" + std::to_string(options.opt_level));
  RETURN_IF_ERROR(Optimize(*llvm_module, tm.get(), options.opt_level, false, {}, options.trace));
  optimize_span.End();
  ScopedSpan print_optimized_span(options.trace, compile_category::kPrint, "print LLVM IR");
  code->llvm_ir_optimized_ = ToText(*llvm_module);
  print_optimized_span.End();
  ScopedSpan ptx_span(options.trace, compile_category::kMachineCode, "ptx");
  ptx_span.Arg("module", llvm_module->getName()).Arg("arch", options.arch);
  ASSIGN_OR_RETURN(code->ptx_, EmitPtx(*llvm_module, tm.get()));
  ptx_span.End();
  return std::unique_ptr<GpuCode>(std::move(code));
}

}  // namespace fusebox::codegen
