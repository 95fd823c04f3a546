// The CPU code generator's driver: CompileForCpu in named steps, from the host target
// through the kernels' LLVM modules (planned, emitted, then optimized and compiled on
// several threads) to the printed stages and the JIT. The pieces it drives share
// cpu_compiler_internal.h: kernel plans (cpu_kernel_plans.cc), the kernel emitter
// (cpu_kernel_emitter.h), memory hints (cpu_memory_hints.cc) and the JIT (cpu_jit.cc).
#include "compiler/codegen/cpu_compiler.h"

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/cpu_compiler_internal.h"
#include "compiler/codegen/cpu_kernel_emitter.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/support/timer.h"

namespace fusebox::codegen {

bool IsCpuKernel(const Instruction& inst) { return passes::IsKernel(inst); }

namespace {

using namespace cpu;  // NOLINT: the CPU code generator's pieces

class CpuCodeImpl : public CpuCode {
 public:
  const CpuKernel* KernelFor(const Instruction* inst) const override {
    auto it = by_instruction_.find(inst);
    return it == by_instruction_.end() ? nullptr : it->second;
  }
  const std::vector<std::unique_ptr<CpuKernel>>& kernels() const override { return kernels_; }
  const std::string& llvm_ir() const override { return llvm_ir_; }
  const std::string& llvm_ir_optimized() const override { return llvm_ir_optimized_; }
  const std::string& assembly() const override { return assembly_; }
  const std::string& target_cpu() const override { return target_cpu_; }
  const std::map<std::string, std::string>& function_to_hlo() const override { return function_to_hlo_; }
  const std::vector<CompileStepTime>& step_times() const override { return step_times_; }
  int compile_threads() const override { return compile_threads_; }

  void EndStep(const char* step, Stopwatch& watch) {
    step_times_.push_back({step, watch.ElapsedSeconds()});
    watch.Reset();
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<CompileStepTime> step_times_;
  int compile_threads_ = 1;
  std::vector<std::unique_ptr<CpuKernel>> kernels_;
  std::unordered_map<const Instruction*, CpuKernel*> by_instruction_;
  std::string llvm_ir_, llvm_ir_optimized_, assembly_, target_cpu_;
  std::map<std::string, std::string> function_to_hlo_;
};

// The kernels go into modules, each in a context of its own (an LLVMContext is
// single-threaded), by units: a kernel, or a piece of a row kernel (EmitRowKernel), so
// that a program of one softmax still compiles on several threads. Units are assigned
// biggest first to the least loaded module by an estimate of their code, then the
// kernels are emitted in program order on this thread (emitting is cheap). The threads
// then take modules, biggest first, until none is left. Every module costs LLVM's set-up
// once (~0.5-1 ms here), while more modules than threads let the threads even out the
// estimate's errors: one module per thread for up to two units a thread, then one more
// per thread for every two units a thread, up to four. (Measured on 2 threads, compile
// ms: softmax and layer norm, 3 kernels: 9.1 on 3 modules, 8.1-8.5 on 2; MNIST, 11
// kernels: 25 on 8, 22.5 on 2 or 4; MLP, 20 kernels: 38 on 2, 37 on 4, 34 on 8; CNN, 24
// kernels: 73-74 on 2, 4 or 8.)
struct ModulePlan {
  std::vector<const Instruction*> kernels;    // in program order
  std::vector<std::vector<size_t>> units_of;  // each kernel's units
  std::vector<int> partition_of;              // each unit's module
  std::vector<int64_t> load;                  // each module's estimated code
  int threads = 1;                            // compile threads, at most one per unit
};

ModulePlan PlanModules(const Module& module, const CpuCompileOptions& options) {
  ModulePlan plan;
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& inst : comp->instructions()) {
      if (IsCpuKernel(*inst)) plan.kernels.push_back(inst.get());
    }
  }
  struct Unit {
    size_t kernel = 0;
    int64_t size = 0;
  };
  std::vector<Unit> units;
  plan.units_of.resize(plan.kernels.size());
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    for (int64_t size : CompileUnitSizes(*plan.kernels[i])) {
      plan.units_of[i].push_back(units.size());
      units.push_back({i, size});
    }
  }
  int threads = options.compile_threads > 0 ? options.compile_threads
                                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(units.size())));
  plan.threads = threads;
  const size_t per_thread = std::clamp<size_t>(units.size() / (2 * static_cast<size_t>(threads)), 1, 4);
  const size_t partitions = std::max<size_t>(1, std::min<size_t>(units.size(), per_thread * static_cast<size_t>(threads)));
  plan.partition_of.assign(units.size(), 0);
  plan.load.assign(partitions, 0);
  std::vector<size_t> by_size(units.size());
  for (size_t u = 0; u < units.size(); ++u) by_size[u] = u;
  std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return units[a].size > units[b].size; });
  for (size_t u : by_size) {
    const size_t least = static_cast<size_t>(std::min_element(plan.load.begin(), plan.load.end()) - plan.load.begin());
    plan.partition_of[u] = static_cast<int>(least);
    plan.load[least] += units[u].size;
  }
  return plan;
}

// `count` empty modules for the host target, named after `name`.
std::vector<KernelModule> MakeModules(size_t count, const std::string& name, const HostTarget& target) {
  std::vector<KernelModule> modules(count);
  for (size_t p = 0; p < modules.size(); ++p) {
    KernelModule& km = modules[p];
    km.context = std::make_unique<llvm::LLVMContext>();
    km.module = std::make_unique<llvm::Module>(name + "." + std::to_string(p), *km.context);
    km.module->setDataLayout(target.data_layout);
    km.module->setTargetTriple(target.triple);
  }
  return modules;
}

// Cancellation and progress over the compile's steps: every kernel emitted, then every
// module compiled.
class CompileProgress {
 public:
  CompileProgress(const CpuCompileOptions& options, int64_t total) : options_(options), total_(total) {}
  bool Cancelled() const { return options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed); }
  // Before a kernel is emitted.
  void KernelStarts() {
    if (options_.progress) options_.progress(done_++, total_);
  }
  // After a module is compiled (on any compile thread).
  void ModuleDone() {
    if (options_.progress) options_.progress(done_++ + 1, total_);
  }

 private:
  const CpuCompileOptions& options_;
  const int64_t total_;
  std::atomic<int64_t> done_{0};
};

// The modules kernel `i` emits into, each with its count of functions before: its own
// module first, then the other modules of a row kernel's outlined pieces (which
// `emitter` is told of).
std::vector<std::pair<llvm::Module*, size_t>> KernelTargets(const ModulePlan& plan, size_t i,
                                                            std::vector<KernelModule>& modules, llvm::Module& target,
                                                            KernelEmitter& emitter) {
  std::vector<std::pair<llvm::Module*, size_t>> functions_before;
  if (plan.units_of[i].size() > 1) {
    std::vector<llvm::Module*> pieces;
    for (size_t u : plan.units_of[i]) pieces.push_back(modules[static_cast<size_t>(plan.partition_of[u])].module.get());
    emitter.SetRowPieceModules(pieces);
    for (llvm::Module* m : pieces) {
      if (m != &target) functions_before.emplace_back(m, m->size());
    }
  }
  std::sort(functions_before.begin(), functions_before.end());
  functions_before.erase(std::unique(functions_before.begin(), functions_before.end()), functions_before.end());
  functions_before.emplace(functions_before.begin(), &target, target.size());
  return functions_before;
}

// Appends to `emitted` the globals and functions one kernel added to its modules, in the
// order of emission. A row kernel's pieces may be spread over modules: its globals by
// name, its functions piece by piece as one module would hold them.
void RecordEmissionOrder(const std::vector<std::pair<llvm::Module*, size_t>>& functions_before,
                         const std::vector<std::string>& row_functions, std::unordered_set<std::string>& seen,
                         std::vector<std::string>* emitted) {
  std::vector<std::string> globals, functions;
  for (auto [m, before] : functions_before) {
    for (const llvm::GlobalVariable& g : m->globals()) {
      if (seen.insert("g" + g.getName().str()).second) globals.push_back("g" + g.getName().str());
    }
    for (const llvm::Function& f : *m) {
      if (seen.insert("f" + f.getName().str()).second) functions.push_back("f" + f.getName().str());
    }
  }
  if (!row_functions.empty()) {
    std::vector<std::string> order;
    for (const std::string& f : row_functions) {
      order.push_back("f" + f + ".body");
      order.push_back("f" + f);
    }
    auto rank = [&](const std::string& f) { return std::find(order.begin(), order.end(), f) - order.begin(); };
    std::stable_sort(functions.begin(), functions.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    std::sort(globals.begin(), globals.end());
  }
  emitted->insert(emitted->end(), globals.begin(), globals.end());
  emitted->insert(emitted->end(), functions.begin(), functions.end());
}

// Emits every kernel, in program order on this thread, into the modules the plan gives
// it; records the kernels in `code` and, with keep_llvm_ir, the order of emission in
// `emitted` (for printing).
Status EmitKernels(const ModulePlan& plan, std::vector<KernelModule>& modules, const CpuCompileOptions& options,
                   CompileProgress& progress, CpuCodeImpl* code, std::vector<std::string>* emitted) {
  std::unordered_set<std::string> seen;
  const int64_t prefetch_min = MinBytes(options.prefetch_min_bytes, PrefetchThresholdBytes);
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    if (progress.Cancelled()) return Cancelled();
    progress.KernelStarts();
    const Instruction* inst = plan.kernels[i];
    ScopedSpan span(options.trace, compile_category::kCodegen, inst->name());
    span.Arg("kernel", inst->name()).Arg("backend", "cpu");
    // A row kernel's entry goes with its last piece (the outputs).
    llvm::Module& target = *modules[static_cast<size_t>(plan.partition_of[plan.units_of[i].back()])].module;
    auto kernel = std::make_unique<CpuKernel>();
    KernelEmitter emitter(target, options.streaming_store_min_bytes);
    const std::vector<std::pair<llvm::Module*, size_t>> functions_before =
        KernelTargets(plan, i, modules, target, emitter);
    Status st = emitter.Emit(*inst, kernel.get());
    if (!st.ok()) {
      // "line:col: CPU backend: ..." (the CLI puts the file in front, as parse errors read).
      const SourceLocation& at = inst->location();
      std::string where = at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "";
      return Status(st.code(), where + "CPU backend: " + st.message());
    }
    MarkKernelFunctions(*inst, *kernel, prefetch_min, functions_before);
    if (options.keep_llvm_ir) RecordEmissionOrder(functions_before, emitter.row_functions(), seen, emitted);
    for (const CpuLoopGroup& g : kernel->groups) code->function_to_hlo_[g.function] = inst->name();
    for (const std::string& f : emitter.row_functions()) code->function_to_hlo_[f] = inst->name();
    if (!kernel->comparator_function.empty()) code->function_to_hlo_[kernel->comparator_function] = inst->name();
    code->by_instruction_[inst] = kernel.get();
    span.Arg("kind", kernel->kind_name);
    code->kernels_.push_back(std::move(kernel));
  }
  for (KernelModule& km : modules) {
    km.has_code = std::any_of(km.module->begin(), km.module->end(),
                              [](const llvm::Function& f) { return !f.isDeclaration(); });
  }
  return Status::Ok();
}

// Optimizes and compiles the modules that have code on up to `threads` threads, biggest
// (by `load`) first; returns the threads used. Each module keeps its own status.
int CompileModules(std::vector<KernelModule>& modules, const std::vector<int64_t>& load, int threads,
                   const CpuCompileOptions& options, CompileProgress& progress) {
  std::vector<size_t> order;
  for (size_t p = 0; p < modules.size(); ++p) {
    if (modules[p].has_code) order.push_back(p);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return load[a] > load[b]; });
  threads = std::max(1, std::min<int>(threads, static_cast<int>(order.size())));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < order.size(); k = next++) {
      if (progress.Cancelled()) break;
      CompileKernelModule(modules[order[k]], options);
      progress.ModuleDone();
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
  return threads;
}

}  // namespace

StatusOr<std::unique_ptr<CpuCode>> CompileForCpu(const Module& module, const CpuCompileOptions& options) {
  ScopedSpan compile_span(options.trace, compile_category::kStage, "cpu backend");
  compile_span.Arg("module", module.name());
  Stopwatch watch;
  InitializeLlvmOnce();
  if (module.entry() == nullptr) return InvalidArgument("module " + module.name() + " has no entry computation");
  auto code = std::make_unique<CpuCodeImpl>();

  const bool optimize_codegen = options.opt_level > 0;
  ScopedSpan target_span(options.trace, compile_category::kLlvm, "host target");
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb, HostJitTargetBuilder(optimize_codegen));
  ASSIGN_OR_RETURN(const HostTarget target, DescribeHostTarget(optimize_codegen));
  target_span.End();
  code->target_cpu_ = target.cpu;
  code->EndStep("target", watch);

  const ModulePlan plan = PlanModules(module, options);
  std::vector<KernelModule> modules = MakeModules(plan.load.size(), module.name(), target);
  CompileProgress progress(options, static_cast<int64_t>(plan.kernels.size() + modules.size()));
  std::vector<std::string> emitted;  // global and function names in program order (printing)
  ScopedSpan emit_span(options.trace, compile_category::kStage, "emit IR");
  RETURN_IF_ERROR(EmitKernels(plan, modules, options, progress, code.get(), &emitted));
  emit_span.End();
  code->EndStep("emit_ir", watch);

  ScopedSpan modules_span(options.trace, compile_category::kStage, "optimize and compile");
  code->compile_threads_ = CompileModules(modules, plan.load, plan.threads, options, progress);
  modules_span.End();
  if (progress.Cancelled()) return Cancelled();
  for (const KernelModule& km : modules) RETURN_IF_ERROR(km.status);
  code->EndStep("optimize_and_compile", watch);

  if (options.keep_llvm_ir) {
    ScopedSpan print_span(options.trace, compile_category::kPrint, "print LLVM IR");
    ASSIGN_OR_RETURN(code->llvm_ir_,
                     LinkedText(modules, false, emitted, module.name(), target.data_layout, target.triple));
    ASSIGN_OR_RETURN(code->llvm_ir_optimized_,
                     LinkedText(modules, true, emitted, module.name(), target.data_layout, target.triple));
    code->EndStep("print_ir", watch);
  }
  if (options.keep_assembly) {
    for (const KernelModule& km : modules) code->assembly_ += km.assembly;
  }

  ScopedSpan jit_span(options.trace, compile_category::kJit, "jit link");
  ASSIGN_OR_RETURN(code->jit_, LinkKernels(std::move(jtmb), target.data_layout, modules, code->kernels_));
  jit_span.End();
  code->EndStep("jit_link", watch);
  return std::unique_ptr<CpuCode>(std::move(code));
}

}  // namespace fusebox::codegen
