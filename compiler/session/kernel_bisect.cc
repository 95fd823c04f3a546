// A backend mismatch bisected down to a kernel (see pass_bisect.h).
#include <unordered_map>
#include <utility>

#include "compiler/runtime/library_kernels.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/passes/extract.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/session/pass_bisect.h"
#include "compiler/session/profiled_run.h"

namespace fusebox::session {
namespace {

// The kernels of the optimized module's entry, in the order they run.
std::vector<const Instruction*> Kernels(const Module& module) {
  std::vector<const Instruction*> out;
  for (const Instruction* inst : module.entry()->PostOrder()) {
    if (passes::IsKernel(*inst)) out.push_back(inst);
  }
  return out;
}

// The interpreter's value of every entry instruction a kernel reads (parameters and
// constants excepted), by name: one run of a copy whose root also returns them.
StatusOr<std::unordered_map<std::string, Literal>> OperandValues(const Module& optimized,
                                                                 const std::vector<Literal>& args,
                                                                 const check::CheckOptions& options) {
  std::unique_ptr<Module> probe = optimized.Clone();
  if (probe == nullptr) return Internal("cannot copy module " + optimized.name());
  Computation* entry = probe->entry();
  std::vector<Instruction*> wanted;
  for (const Instruction* kernel : Kernels(*probe)) {
    for (Instruction* operand : kernel->operands()) {
      if (operand->opcode() == Opcode::kParameter || operand->opcode() == Opcode::kConstant) continue;
      if (std::find(wanted.begin(), wanted.end(), operand) == wanted.end()) wanted.push_back(operand);
    }
  }
  std::vector<Shape> shapes = {entry->root()->shape()};
  for (const Instruction* w : wanted) shapes.push_back(w->shape());
  auto tuple = std::make_unique<Instruction>(Opcode::kTuple, probe->UniqueName("bisect_probe"), Shape::Tuple(shapes));
  tuple->AppendOperand(entry->root());
  for (Instruction* w : wanted) tuple->AppendOperand(w);
  entry->set_root(entry->AddInstruction(std::move(tuple)));
  interpreter::Interpreter interp(options.interpreter);
  ASSIGN_OR_RETURN(Literal all, interp.Run(*probe, args));
  std::unordered_map<std::string, Literal> values;
  for (size_t i = 0; i < wanted.size(); ++i) values[wanted[i]->name()] = std::move(all.tuple_elements()[i + 1]);
  return values;
}

// The kernel alone, and the values of its parameters (by the operand each stands for).
struct IsolatedKernel {
  std::unique_ptr<Module> module;
  std::vector<Literal> inputs;
  std::string missing;  // a parameter with no value, when not empty
};

IsolatedKernel Isolate(const Module& optimized, const Instruction& kernel, const std::vector<Literal>& args,
                       const std::unordered_map<std::string, Literal>& values) {
  IsolatedKernel out;
  passes::ExtractOptions extract;
  extract.height = 0;
  extract.max_constant_elements = int64_t{1} << 40;  // constants stay as they are
  StatusOr<std::unique_ptr<Module>> module = passes::ExtractInstruction(optimized, kernel.name(), extract);
  if (!module.ok()) {
    out.missing = module.status().message();
    return out;
  }
  out.module = std::move(*module);
  for (const Instruction* param : out.module->entry()->parameters()) {
    const std::string& name = param != nullptr ? param->name() : std::string();
    if (auto it = values.find(name); it != values.end()) {
      out.inputs.push_back(it->second);
      continue;
    }
    const Instruction* original = optimized.entry()->FindInstruction(name);
    if (original != nullptr && original->opcode() == Opcode::kParameter &&
        original->parameter_number() < static_cast<int64_t>(args.size())) {
      out.inputs.push_back(args[static_cast<size_t>(original->parameter_number())]);
      continue;
    }
    out.missing = "no value for its parameter %" + name;
    return out;
  }
  return out;
}

std::string KindOf(const Instruction& inst) {
  std::string kind(OpcodeName(inst.opcode()));
  if (inst.fusion_kind()) kind += "(" + std::string(FusionKindName(*inst.fusion_kind())) + ")";
  return kind;
}

// Runs `module` on the backend (one run) and checks it against the interpreter on `args`.
StatusOr<check::CheckReport> CheckOnBackend(const Module& module, const std::vector<Literal>& args,
                                            const std::string& backend, const check::CheckOptions& given) {
  check::CheckOptions options = given;
  // The CPU backend's LAPACK calls run through LAPACK in the reference too (library_kernels.h).
  if (backend == "cpu") options.interpreter.library_call = runtime::RunLapackOnLiterals;
  ASSIGN_OR_RETURN(check::CheckReference reference, check::ComputeCheckReference(module, args, options));
  ProfiledRunOptions run;
  run.backend = backend;
  run.gpu_tf32 = false;  // the interpreter's bound is for full f32
  ASSIGN_OR_RETURN(ProfiledRun result, RunProfiled(module, args, run));
  return check::CheckOutputs(result.result, reference, args, options);
}

}  // namespace

std::string KernelBisectReport::Summary() const {
  const std::string whole_line = "the whole module on the " + backend + ": " + whole;
  if (first_diverging >= 0) {
    const KernelBisectResult& k = kernels[static_cast<size_t>(first_diverging)];
    return whole_line + "\nfirst kernel that differs: %" + k.kernel + " (" + k.kind + ", kernel " +
           std::to_string(first_diverging + 1) + " of " + std::to_string(kernels.size()) + "): " + k.verdict;
  }
  int evaluated = 0;
  for (const KernelBisectResult& k : kernels) evaluated += k.evaluated;
  return whole_line + "\nevery kernel matches on its own (" + std::to_string(evaluated) + " of " +
         std::to_string(kernels.size()) + " run alone on their operands' values)" +
         (whole_diverges ? ": the difference comes from between the kernels (buffers, the order they run in)" : "");
}

StatusOr<KernelBisectReport> BisectKernels(const Module& module, const std::string& backend,
                                           const BisectOptions& options) {
  if (backend != "cpu" && backend != "gpu") return InvalidArgument("--against is cpu or gpu, not '" + backend + "'");
  KernelBisectReport report;
  report.backend = backend;
  ASSIGN_OR_RETURN(std::vector<Literal> args, interpreter::RandomArguments(module, options.seed));
  ASSIGN_OR_RETURN(check::CheckReport whole, CheckOnBackend(module, args, backend, options.check));
  report.whole = whole.Summary();
  report.whole_diverges = !whole.ok();
  // The module the backend runs: the same pipeline RunProfiled used.
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized,
                   passes::OptimizeForBackend(module, /*fused=*/true, /*gpu_libraries=*/backend == "gpu", nullptr,
                                                /*cpu_libraries=*/backend == "cpu"));
  ASSIGN_OR_RETURN(auto values, OperandValues(*optimized, args, options.check));
  for (const Instruction* kernel : Kernels(*optimized)) {
    KernelBisectResult result{kernel->name(), KindOf(*kernel), false, false, "not reached"};
    if (report.first_diverging >= 0 && options.stop_at_first) {
      report.kernels.push_back(std::move(result));
      continue;
    }
    IsolatedKernel alone = Isolate(*optimized, *kernel, args, values);
    StatusOr<check::CheckReport> checked =
        alone.missing.empty() ? CheckOnBackend(*alone.module, alone.inputs, backend, options.check)
                              : StatusOr<check::CheckReport>(Unavailable(alone.missing));
    if (!checked.ok()) {
      result.verdict = "not evaluated: " + checked.status().message();
    } else {
      result.evaluated = true;
      result.diverges = !checked->ok();
      result.verdict = checked->Summary();
      if (result.diverges && report.first_diverging < 0) {
        report.first_diverging = static_cast<int>(report.kernels.size());
        report.check_details = checked->Details();
        report.repro = std::move(alone.module);
        StripStackFrames(*report.repro);
        report.repro_inputs = std::move(alone.inputs);
      }
    }
    report.kernels.push_back(std::move(result));
  }
  return report;
}

}  // namespace fusebox::session
