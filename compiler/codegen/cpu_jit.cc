// The CPU code generator's JIT side: LLVM's one-time set-up, host target machines kept
// between compiles, optimizing and compiling kernel modules to objects (and assembly),
// the kernels' IR linked into one module for the printed stages, and the ORC LLJIT that
// links the objects and resolves the kernels' entry points.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "compiler/codegen/cpu_compiler_internal.h"
#include "compiler/codegen/kernel_util.h"

namespace fusebox::codegen::cpu {

namespace {

// Code generation to ELF objects through one legacy pass manager, kept with its target
// machine and run on every module that target machine compiles: building LLVM's codegen
// pipeline costs ~0.4 ms and its first run schedules the passes, per module otherwise
// (softmax's module: 8.2-8.9 ms -> 7.1-7.6 ms of code generation). The pipeline is made
// for this: at the end of each module the assembly printer finishes and resets its
// streamer and the machine module info resets its MC context (a module compiled twice
// gives the same bytes twice).
class ObjectEmitter {
 public:
  static StatusOr<std::unique_ptr<ObjectEmitter>> Create(llvm::TargetMachine& tm, bool loop_strength_reduction) {
    auto emitter = std::unique_ptr<ObjectEmitter>(new ObjectEmitter());
    RETURN_IF_ERROR(AddCodegenPasses(tm, emitter->pm_, emitter->os_, llvm::CodeGenFileType::ObjectFile,
                                     loop_strength_reduction));
    return emitter;
  }
  std::unique_ptr<llvm::MemoryBuffer> Emit(llvm::Module& module) {
    object_.clear();
    pm_.run(module);
    // The stream appends to object_ whatever its storage: moving the bytes out leaves it
    // empty for the next module.
    return std::make_unique<llvm::SmallVectorMemoryBuffer>(
        std::move(object_), module.getModuleIdentifier() + "-jitted-objectbuffer", /*RequiresNullTerminator=*/false);
  }

 private:
  ObjectEmitter() = default;
  llvm::SmallVector<char, 0> object_;
  llvm::raw_svector_ostream os_{object_};
  llvm::legacy::PassManager pm_;
};

// Target machines for the host, kept between compiles. Making one parses the host's
// feature string into a subtarget (measured: ~15% of a small module's compile, and each
// compile made three: ours, the JIT's for its data layout, the JIT's compiler). A
// compile borrows one per code-generation level and gives it back, so compiles on
// several threads never share a target machine (nor its object emitters).
class HostTargets {
 public:
  struct Target {
    std::unique_ptr<llvm::TargetMachine> tm;
    std::unique_ptr<ObjectEmitter> emitters[2];  // without, with loop strength reduction
  };

  class Lease {
   public:
    Lease(HostTargets* owner, bool optimize, std::unique_ptr<Target> target)
        : owner_(owner), optimize_(optimize), target_(std::move(target)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (target_) owner_->GiveBack(optimize_, std::move(target_));
    }
    llvm::TargetMachine* get() const { return target_->tm.get(); }
    llvm::TargetMachine* operator->() const { return target_->tm.get(); }
    // This target machine's object emitter (made on first use).
    StatusOr<ObjectEmitter*> Emitter(bool loop_strength_reduction) {
      std::unique_ptr<ObjectEmitter>& emitter = target_->emitters[loop_strength_reduction ? 1 : 0];
      if (!emitter) {
        ASSIGN_OR_RETURN(emitter, ObjectEmitter::Create(*target_->tm, loop_strength_reduction));
      }
      return emitter.get();
    }

   private:
    HostTargets* owner_;
    bool optimize_;
    std::unique_ptr<Target> target_;
  };

  static HostTargets& Get() {
    static HostTargets* targets = new HostTargets();  // outlives every compile
    return *targets;
  }

  StatusOr<llvm::orc::JITTargetMachineBuilder> Builder(bool optimize) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!host_) {
      auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
      if (!jtmb) return FromLlvm(jtmb.takeError(), "cannot describe the host CPU");
      host_ = std::move(*jtmb);
    }
    llvm::orc::JITTargetMachineBuilder copy = *host_;
    copy.setCodeGenOptLevel(optimize ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None);
    return copy;
  }

  StatusOr<Lease> Borrow(bool optimize) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& free = free_[optimize ? 1 : 0];
      if (!free.empty()) {
        std::unique_ptr<Target> target = std::move(free.back());
        free.pop_back();
        return Lease(this, optimize, std::move(target));
      }
    }
    ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb, Builder(optimize));
    auto tm = jtmb.createTargetMachine();
    if (!tm) return FromLlvm(tm.takeError(), "cannot create the target machine");
    auto target = std::make_unique<Target>();
    target->tm = std::move(*tm);
    return Lease(this, optimize, std::move(target));
  }

 private:
  void GiveBack(bool optimize, std::unique_ptr<Target> target) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[optimize ? 1 : 0].push_back(std::move(target));
  }

  std::mutex mutex_;
  std::optional<llvm::orc::JITTargetMachineBuilder> host_;
  std::vector<std::unique_ptr<Target>> free_[2];
};

StatusOr<std::string> EmitAssembly(const llvm::Module& module, llvm::TargetMachine* tm,
                                   bool loop_strength_reduction) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  RETURN_IF_ERROR(AddCodegenPasses(*tm, pm, os, llvm::CodeGenFileType::AssemblyFile, loop_strength_reduction));
  pm.run(*clone);
  return std::string(buffer.str());
}

llvm::SmallVector<char, 0> ToBitcode(const llvm::Module& module) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(module, os);
  return buffer;
}

// The LLVM passes of CpuCompileOptions::kernel_pipeline. Kernels arrive as a small entry
// function calling an always-inlined body of plain loop nests (no other calls, no
// allocas but reduction accumulators), so LLVM's -O2 module machinery (the inliner's
// call-graph walk, global and interprocedural passes, coroutines, OpenMP) has nothing to
// do; what remains is its function simplification and vectorization, in -O2's order,
// minus passes that changed neither the code nor the run time of our workloads.
// Measured against -O2 on bench/compare_xla's workloads (ratios of medians, same run):
// compile 0.65-0.75 of -O2's with code generation without loop strength reduction, run
// time within noise of -O2's. Each kept pass earns its place:
//  - jump-threading after the full unrolling of small constant loops: the window loops
//    of select-and-scatter and reduce-window (1.3x slower without);
//  - loop-idiom: zero fills and copies become memset / memcpy;
//  - inject-tli-mappings before the vectorizer: libmvec's vector functions;
//  - loop-hints-from-attributes (Optimize's own pass) before it: the interleave counts and
//    widths kernels ask for by function attribute (memory-bound kernels: 1; the cached
//    fallback of streaming groups: scalar);
//  - no-unroll-vectorized right after it (Optimize's own pass) and loop-unroll without
//    partial or runtime unrolling: the vectorizer's loops stay as it interleaved them,
//    only small constant loops it left scalar unroll fully. x86 targets whose scheduling
//    model has a loop buffer (Zen 4) otherwise unroll vectorized loops 2-4x again and
//    fully unroll 1024-element rows: twice the machine code, 1.3-2.5x the compile time
//    of a kernel (reduce_sum 15.8-20.3 -> 7.2-8.2 ms, softmax 14.8-15.1 -> 10.8-11.9 ms,
//    CNN step 109-114 -> 103-104 ms), run times within noise;
//  - alignment-from-assumptions last: the streaming variants' vector stores must be
//    proven aligned (MarkStreamingStores).
// Without loop strength reduction (a sixth of code generation here), x86's indexed
// addressing serves our loops as well as the strength-reduced pointers. instcombine runs
// as in -O2, without the fixpoint check that pipeline text turns on by default.
constexpr const char* kKernelPipeline =
    "always-inline,"
    "function("
    "sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>,"
    "loop-mssa(licm,loop-rotate,licm),simplifycfg,instcombine<no-verify-fixpoint>,"
    "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),"
    "sroa,jump-threading,gvn,instcombine<no-verify-fixpoint>,loop-mssa(licm),simplifycfg,"
    "inject-tli-mappings,loop-hints-from-attributes,loop-vectorize,no-unroll-vectorized,infer-alignment,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-unroll<O2;no-partial;no-runtime>,instcombine<no-verify-fixpoint>,alignment-from-assumptions)";

// The names of the functions `module` defines, comma-separated (a span's argument).
std::string DefinedFunctions(const llvm::Module& module) {
  std::string names;
  for (const llvm::Function& f : module) {
    if (!f.isDeclaration()) names += (names.empty() ? "" : ",") + f.getName().str();
  }
  return names;
}

bool UsesKernelPipeline(const CpuCompileOptions& options) {
  return options.kernel_pipeline && options.opt_level == 2;
}

// The JIT's IR compiler: never used, kernels reach the JIT as objects.
class ObjectsOnly : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  ObjectsOnly() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "module " + module.getName().str() + ": the CPU JIT links compiled kernels only");
  }
};

}  // namespace

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    // Fully unrolling nests of small constant loops (a broadcast into f32[3,3,16,32])
    // makes bodies of thousands of stores that later passes take seconds over (measured:
    // 9 s for that one kernel); the vectorizer handles innermost loops better anyway.
    // PipelineTuningOptions has no knob for it in LLVM 19, the pass's option does.
    auto& options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("unroll-full-max-count"); it != options.end()) {
      // As if given on a command line: the pass reads it only when it "occurred".
      (void)it->second->addOccurrence(1, "unroll-full-max-count", "8");
    }
  });
}

StatusOr<llvm::orc::JITTargetMachineBuilder> HostJitTargetBuilder(bool optimize) {
  return HostTargets::Get().Builder(optimize);
}

StatusOr<HostTarget> DescribeHostTarget(bool optimize) {
  ASSIGN_OR_RETURN(HostTargets::Lease tm, HostTargets::Get().Borrow(optimize));
  HostTarget target;
  target.cpu = tm->getTargetCPU().str();
  target.data_layout = tm->createDataLayout();
  target.triple = tm->getTargetTriple().str();
  return target;
}

// Verifies, optimizes and compiles one kernel module with a target machine of its own.
void CompileKernelModule(KernelModule& km, const CpuCompileOptions& options) {
  CompileTrace* trace = options.trace;
  ScopedSpan module_span(trace, compile_category::kStage, "module " + (trace ? km.module->getName().str() : ""));
  if (module_span.active()) module_span.Arg("functions", DefinedFunctions(*km.module));
  auto fail = [&](Status st) { km.status = std::move(st); };
  {
    ScopedSpan span(trace, compile_category::kLlvm, "verify IR");
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*km.module, &os)) return fail(Internal("CPU backend produced invalid LLVM IR: " + errors));
  }
  auto tm = HostTargets::Get().Borrow(options.opt_level > 0);
  if (!tm.ok()) return fail(tm.status());
  if (options.keep_llvm_ir) {
    ScopedSpan span(trace, compile_category::kPrint, "bitcode");
    km.bitcode = ToBitcode(*km.module);
  }
  const bool kernel_pipeline = UsesKernelPipeline(options);
  {
    ScopedSpan span(trace, compile_category::kLlvm, "optimize");
    span.Arg("module", km.module->getName()).Arg("pipeline", kernel_pipeline ? "kernel" : "O" + std::to_string(options.opt_level));
    if (Status st = Optimize(*km.module, tm->get(), options.opt_level, VectorMathLibraryLoaded(),
                             kernel_pipeline ? kKernelPipeline : "", trace);
        !st.ok()) {
      return fail(st);
    }
    MarkStreamingStores(*km.module);
    InsertPrefetches(*km.module);
  }
  if (options.keep_llvm_ir) {
    ScopedSpan span(trace, compile_category::kPrint, "bitcode");
    km.bitcode_optimized = ToBitcode(*km.module);
  }
  if (options.keep_assembly) {
    ScopedSpan span(trace, compile_category::kMachineCode, "assembly");
    span.Arg("module", km.module->getName());
    auto text = EmitAssembly(*km.module, tm->get(), !kernel_pipeline);
    if (!text.ok()) return fail(text.status());
    km.assembly = std::move(*text);
  }
  ScopedSpan span(trace, compile_category::kMachineCode, "object");
  span.Arg("module", km.module->getName());
  auto emitter = tm->Emitter(!kernel_pipeline);
  if (!emitter.ok()) return fail(emitter.status());
  km.object = (*emitter)->Emit(*km.module);
}

// The modules' IR linked into one module and printed, globals and functions in the order
// they were emitted (`order`: "g" or "f" + name), as one module would have held them.
StatusOr<std::string> LinkedText(std::vector<KernelModule>& modules, bool optimized,
                                 const std::vector<std::string>& order, const std::string& name,
                                 const llvm::DataLayout& layout, const std::string& triple) {
  llvm::LLVMContext context;
  llvm::Module linked(name, context);
  linked.setDataLayout(layout);
  linked.setTargetTriple(triple);
  llvm::Linker linker(linked);
  for (KernelModule& km : modules) {
    if (!km.has_code) continue;
    const auto& bitcode = optimized ? km.bitcode_optimized : km.bitcode;
    auto part = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name),
                                       context);
    if (!part) return FromLlvm(part.takeError(), "cannot read back a kernel's LLVM IR");
    if (linker.linkInModule(std::move(*part))) return Internal("cannot link the kernels' LLVM IR for printing");
  }
  // The same text whatever the partition: llvm.compiler.used (the vectorizer's list of
  // vector math variants, appended per module) deduplicated and sorted, declarations
  // sorted by name, then definitions in the order they were emitted (the linker moves
  // things around; optimization may have dropped some).
  if (llvm::GlobalVariable* used = linked.getGlobalVariable("llvm.compiler.used", true)) {
    std::map<std::string, llvm::Constant*> unique;
    if (auto* array = llvm::dyn_cast_or_null<llvm::ConstantArray>(used->getInitializer())) {
      for (llvm::Use& op : array->operands()) {
        auto* c = llvm::cast<llvm::Constant>(op.get());
        unique.emplace(c->stripPointerCasts()->getName().str(), c);
      }
    }
    used->eraseFromParent();
    std::vector<llvm::Constant*> values;
    for (const auto& [n, c] : unique) values.push_back(c);
    if (!values.empty()) {
      auto* type = llvm::ArrayType::get(llvm::PointerType::getUnqual(context), values.size());
      auto* list = new llvm::GlobalVariable(linked, type, false, llvm::GlobalValue::AppendingLinkage,
                                            llvm::ConstantArray::get(type, values), "llvm.compiler.used");
      list->setSection("llvm.metadata");
    }
  }
  for (const std::string& entry : order) {
    if (entry[0] != 'g') continue;
    if (llvm::GlobalVariable* v = linked.getGlobalVariable(entry.substr(1), true)) {
      v->removeFromParent();
      linked.insertGlobalVariable(v);
    }
  }
  std::map<std::string, llvm::Function*> declarations;
  for (llvm::Function& f : linked) {
    if (f.isDeclaration()) declarations.emplace(f.getName().str(), &f);
  }
  for (auto& [n, f] : declarations) {
    f->removeFromParent();
    linked.getFunctionList().push_back(f);
  }
  for (const std::string& entry : order) {
    if (entry[0] != 'f') continue;
    llvm::Function* fn = linked.getFunction(entry.substr(1));
    if (fn != nullptr && !fn->isDeclaration()) {
      fn->removeFromParent();
      linked.getFunctionList().push_back(fn);
    }
  }
  return ToText(linked);
}

StatusOr<std::unique_ptr<llvm::orc::LLJIT>> LinkKernels(llvm::orc::JITTargetMachineBuilder jtmb,
                                                        const llvm::DataLayout& data_layout,
                                                        std::vector<KernelModule>& modules,
                                                        std::vector<std::unique_ptr<CpuKernel>>& kernels) {
  // The JIT only links the compiled objects. No platform: kernels have no static
  // initializers (the generic platform would compile a module of its own per JIT). No IR
  // compiler either (its target machine cost ~0.3 ms a compile). Symbols (libm, libmvec,
  // memcpy) come from the process.
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .setDataLayout(data_layout)
                 .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                   return std::make_unique<ObjectsOnly>();
                 })
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .setLinkProcessSymbolsByDefault(false)
                 .create();
  if (!jit) return FromLlvm(jit.takeError(), "cannot create the JIT");
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return FromLlvm(generator.takeError(), "cannot search the process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  for (KernelModule& km : modules) {
    if (!km.object) continue;
    if (auto err = (*jit)->addObjectFile(std::move(km.object))) {
      return FromLlvm(std::move(err), "cannot add the kernels to the JIT");
    }
  }
  for (auto& kernel : kernels) {
    for (CpuLoopGroup& g : kernel->groups) {
      auto symbol = (*jit)->lookup(g.function);
      if (!symbol) return FromLlvm(symbol.takeError(), "cannot find kernel " + g.function);
      g.entry = symbol->toPtr<CpuKernelFunction>();
    }
    if (!kernel->comparator_function.empty()) {
      auto symbol = (*jit)->lookup(kernel->comparator_function);
      if (!symbol) return FromLlvm(symbol.takeError(), "cannot find comparator " + kernel->comparator_function);
      kernel->comparator = symbol->toPtr<CpuComparatorFunction>();
    }
  }
  return std::move(*jit);
}

}  // namespace fusebox::codegen::cpu
