// Numerics bisection over passes (see pass_bisect.h).
#include "compiler/session/pass_bisect.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "compiler/analysis/structural_diff.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/extract.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/passes/spmd_partitioner.h"

namespace fusebox::session {
namespace {

// Runs pass `pass` of Fusebox's pipeline on `module` in place; *changed says whether it
// changed anything.
Status RunOnePass(Module& module, const std::string& pass, bool gpu_libraries, bool* changed) {
  passes::Pipeline pipeline = passes::MakeOptimizationPipeline(&module, gpu_libraries, /*cpu_libraries=*/!gpu_libraries);
  const std::vector<std::string> names = pipeline.PassNames();
  if (std::find(names.begin(), names.end(), pass) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return InvalidArgument("no pass named '" + pass + "' in " + pipeline.name() + " (its passes: " + known + ")");
  }
  passes::PipelineOptions options;
  options.only_passes = {pass};
  options.snapshot_pass_regex = "";
  options.keep_text_before = false;
  passes::PassContext context;
  passes::PipelineResult result;
  RETURN_IF_ERROR(pipeline.Run(module, options, context, &result));
  *changed = std::any_of(result.passes.begin(), result.passes.end(),
                         [](const passes::PassRecord& r) { return r.changed; });
  return Status::Ok();
}

int64_t InstructionCount(const Module& module) {
  int64_t count = 0;
  for (const Computation* c : ProgramComputations(module)) count += c->instruction_count();
  return count;
}

// The check of `actual` against `reference`, or the reason it cannot be made.
struct StageCheck {
  bool evaluated = false;
  check::CheckReport report;
  std::string error;
};

StageCheck CheckStage(const Module& module, const std::vector<Literal>& args, const check::CheckReference& reference,
                      const check::CheckOptions& options) {
  StageCheck out;
  if (Status fits = interpreter::CheckArguments(module, args); !fits.ok()) {
    out.error = "its parameters differ from the input's: " + fits.message();
    return out;
  }
  interpreter::Interpreter interp(options.interpreter);
  StatusOr<Literal> actual = interp.Run(module, args);
  if (!actual.ok()) {
    out.error = "the interpreter cannot run it: " + actual.status().message();
    return out;
  }
  out.evaluated = true;
  out.report = check::CheckOutputs(*actual, reference, args, options);
  return out;
}

// The module made of `inst` (by name) and everything it reads, unused parameters
// dropped; nullptr when extraction fails.
std::unique_ptr<Module> Extracted(const Module& module, const std::string& inst, int height) {
  passes::ExtractOptions options;
  options.height = height;
  options.max_constant_elements = int64_t{1} << 40;  // constants stay constants
  StatusOr<std::unique_ptr<Module>> out = passes::ExtractInstruction(module, inst, options);
  return out.ok() ? std::move(*out) : nullptr;
}

constexpr int kAllLevels = 1 << 20;

// Candidates of phase 1: each entry instruction with 0, 1, 2, ... levels of operands.
std::vector<std::unique_ptr<Module>> ExtractionCandidates(const Module& module, int64_t below) {
  std::vector<std::unique_ptr<Module>> out;
  for (const Instruction* inst : module.entry()->PostOrder()) {
    if (inst->opcode() == Opcode::kParameter || inst->opcode() == Opcode::kConstant) continue;
    int64_t previous = -1;
    for (int height = 0; height < 64; ++height) {
      std::unique_ptr<Module> candidate = Extracted(module, inst->name(), height);
      if (candidate == nullptr) break;
      const int64_t size = InstructionCount(*candidate);
      if (size == previous) break;  // no more levels to add
      previous = size;
      if (size < below) out.push_back(std::move(candidate));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return InstructionCount(*a) < InstructionCount(*b);
  });
  return out;
}

// `module` with entry instruction `name` replaced by its operand `operand` (same shape),
// what only it read removed, and unused parameters dropped; nullptr when not possible.
std::unique_ptr<Module> Bypassed(const Module& module, const std::string& name, int64_t operand) {
  std::unique_ptr<Module> copy = module.Clone();
  if (copy == nullptr) return nullptr;
  Computation* entry = copy->entry();
  Instruction* inst = entry->FindInstruction(name);
  if (inst == nullptr || operand >= inst->operand_count()) return nullptr;
  Instruction* replacement = inst->operands()[static_cast<size_t>(operand)];
  if (!(replacement->shape() == inst->shape()) || !inst->control_successors().empty() ||
      !inst->control_predecessors().empty()) {
    return nullptr;
  }
  inst->ReplaceAllUsesWith(replacement);
  if (entry->root() == inst) entry->set_root(replacement);
  passes::DeadCodeElimination dce;
  passes::PassContext context;
  if (!dce.Run(*copy, context).ok()) return nullptr;
  return Extracted(*copy, entry->root()->name(), kAllLevels);
}

}  // namespace

void StripStackFrames(Module& module) {
  for (Computation* c : ProgramComputations(module)) {
    for (const auto& inst : c->instructions()) {
      if (inst->metadata() == nullptr) continue;
      OpMetadata metadata = *inst->metadata();
      metadata.stack_frame_id = 0;
      if (metadata.empty()) {
        inst->clear_metadata();
      } else {
        inst->set_metadata(metadata);
      }
    }
  }
  module.stack_frames = StackFrameIndex{};
}

int BisectReport::evaluated() const {
  return static_cast<int>(std::count_if(stages.begin(), stages.end(), [](const auto& s) { return s.evaluated; }));
}

int BisectReport::not_evaluated() const {
  return static_cast<int>(std::count_if(stages.begin(), stages.end(), [](const auto& s) {
    return !s.evaluated && s.verdict.rfind("not evaluated", 0) == 0;
  }));
}

std::string BisectReport::Summary() const {
  const int total = static_cast<int>(stages.size());
  if (first_diverging < 0) {
    std::string s = "no pass diverges: " + std::to_string(evaluated()) + " of " + std::to_string(total) +
                    " stages evaluated against the input's reference";
    if (not_evaluated() > 0) s += "; " + std::to_string(not_evaluated()) + " could not be evaluated (see above)";
    return s;
  }
  const BisectStageResult& stage = stages[static_cast<size_t>(first_diverging)];
  return "pass " + stage.pass + " (stage " + std::to_string(first_diverging) + " of " + std::to_string(total - 1) +
         ") moves the outputs beyond the bound: " + stage.verdict;
}

PassRunner FuseboxPassRunner(bool gpu_libraries) {
  return [gpu_libraries](const Module& module, const std::string& pass) -> StatusOr<std::unique_ptr<Module>> {
    std::unique_ptr<Module> copy = module.Clone();
    if (copy == nullptr) return Internal("cannot copy module " + module.name());
    bool changed = false;
    RETURN_IF_ERROR(RunOnePass(*copy, pass, gpu_libraries, &changed));
    return copy;
  };
}

StatusOr<std::vector<BisectStage>> FuseboxPipelineStages(const Module& module, bool gpu_libraries) {
  if (passes::NeedsSpmdPartitioning(module)) {
    return Unimplemented("bisect runs stages on one device; " + module.name() +
                         " needs partitioning (its later stages are per-device programs)");
  }
  std::vector<BisectStage> stages;
  std::unique_ptr<Module> current = module.Clone();
  if (current == nullptr) return Internal("cannot copy module " + module.name());
  const std::vector<std::string> names = passes::MakeOptimizationPipeline(current.get(), gpu_libraries, /*cpu_libraries=*/!gpu_libraries).PassNames();
  stages.push_back({"the input", "", current->Clone()});
  for (size_t i = 0; i < names.size(); ++i) {
    bool changed = false;
    RETURN_IF_ERROR(RunOnePass(*current, names[i], gpu_libraries, &changed));
    if (!changed) continue;
    stages.push_back({"after " + names[i] + " (pass " + std::to_string(i + 1) + " of " + std::to_string(names.size()) +
                          ")",
                      names[i], current->Clone()});
  }
  return stages;
}

StatusOr<bool> PassDiverges(const Module& module, const std::string& pass, const PassRunner& rerun,
                            const BisectOptions& options) {
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(module, options.seed);
  if (!args.ok()) return false;
  StatusOr<check::CheckReference> reference = check::ComputeCheckReference(module, *args, options.check);
  if (!reference.ok()) return false;
  StatusOr<std::unique_ptr<Module>> after = rerun(module, pass);
  if (!after.ok()) return false;
  const StageCheck checked = CheckStage(**after, *args, *reference, options.check);
  return checked.evaluated && !checked.report.ok() && checked.report.compared_outputs() > 0;
}

StatusOr<std::unique_ptr<Module>> ShrinkModule(const Module& module,
                                               const std::function<StatusOr<bool>(const Module&)>& keeps,
                                               int max_evaluations, int* evaluations) {
  int tries = 0;
  auto holds = [&](const Module& candidate) -> StatusOr<bool> {
    ++tries;
    return keeps(candidate);
  };
  std::unique_ptr<Module> best = Extracted(module, module.entry()->root()->name(), kAllLevels);
  if (best == nullptr) best = module.Clone();
  if (best == nullptr) return Internal("cannot copy module " + module.name());
  // Phase 1: one instruction and a few levels of what it reads (cuts outputs, replaces
  // values further out by parameters); the smallest that still diverges.
  for (std::unique_ptr<Module>& candidate : ExtractionCandidates(*best, InstructionCount(*best))) {
    if (tries >= max_evaluations) break;
    ASSIGN_OR_RETURN(bool kept, holds(*candidate));
    if (kept) {
      best = std::move(candidate);
      break;
    }
  }
  // Phase 2: delete instructions, each bypassed by an operand of its shape, until none
  // can go.
  for (bool improved = true; improved && tries < max_evaluations;) {
    improved = false;
    // Names, not pointers: `best` is replaced when a candidate is kept.
    std::vector<std::pair<std::string, int64_t>> order;
    for (const Instruction* inst : best->entry()->PostOrder()) order.emplace_back(inst->name(), inst->operand_count());
    std::reverse(order.begin(), order.end());
    for (const auto& [name, operands] : order) {
      if (improved || tries >= max_evaluations) break;
      for (int64_t i = 0; i < operands && !improved && tries < max_evaluations; ++i) {
        std::unique_ptr<Module> candidate = Bypassed(*best, name, i);
        if (candidate == nullptr || InstructionCount(*candidate) >= InstructionCount(*best)) continue;
        ASSIGN_OR_RETURN(bool kept, holds(*candidate));
        if (kept) {
          best = std::move(candidate);
          improved = true;
        }
      }
    }
  }
  if (evaluations != nullptr) *evaluations = tries;
  return best;
}

namespace {

// Shrinks the module before the diverging pass into report->repro.
Status ShrinkRepro(const std::vector<BisectStage>& stages, const BisectOptions& options, const PassRunner& rerun,
                   BisectReport* report) {
  const size_t at = static_cast<size_t>(report->first_diverging);
  const std::string& pass = stages[at].pass;
  const Module& before = *stages[at - 1].module;
  auto keeps = [&](const Module& candidate) { return PassDiverges(candidate, pass, rerun, options); };
  ASSIGN_OR_RETURN(bool alone, keeps(before));
  if (!alone) {
    report->repro_note = "no repro: running " + pass +
                         " alone on the module before it does not diverge (it needs the run's other passes)";
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(report->repro, ShrinkModule(before, keeps, options.max_shrink_evaluations,
                                               &report->shrink_evaluations));
  StripStackFrames(*report->repro);
  report->repro_instructions = InstructionCount(*report->repro);
  report->repro_note = "the module before " + pass + ", shrunk from " + std::to_string(InstructionCount(before)) +
                       " to " + std::to_string(report->repro_instructions) + " instructions in " +
                       std::to_string(report->shrink_evaluations) + " tries; running " + pass +
                       " on it still moves its outputs beyond the bound (seed " + std::to_string(options.seed) + ")";
  return Status::Ok();
}

}  // namespace

StatusOr<BisectReport> BisectStages(const std::vector<BisectStage>& stages, const BisectOptions& options,
                                    const PassRunner& rerun) {
  if (stages.empty() || stages[0].module == nullptr) return InvalidArgument("bisect needs at least the input stage");
  const Module& input = *stages[0].module;
  ASSIGN_OR_RETURN(std::vector<Literal> args, interpreter::RandomArguments(input, options.seed));
  ASSIGN_OR_RETURN(check::CheckReference reference, check::ComputeCheckReference(input, args, options.check));
  // A reference no output of which counts could not show any divergence: say so now.
  const check::CheckReport self = check::CheckOutputs(reference.reference, reference, args, options.check);
  if (self.vacuous()) {
    return InvalidArgument("bisect cannot tell a pass that changes the numbers from one that does not: " +
                              self.Summary() + " (try another --seed)");
  }
  BisectReport report;
  report.stages.push_back({stages[0].label, "", true, false, false,
                           "the reference: the interpreter and the f64 shadow, seed " + std::to_string(options.seed)});
  for (size_t k = 1; k < stages.size(); ++k) {
    BisectStageResult result{stages[k].label, stages[k].pass, false, false, false, "not reached"};
    if (report.first_diverging >= 0 && options.stop_at_first) {
      report.stages.push_back(std::move(result));
      continue;
    }
    const StageCheck checked = CheckStage(*stages[k].module, args, reference, options.check);
    result.evaluated = checked.evaluated;
    if (!checked.evaluated) {
      result.verdict = "not evaluated: " + checked.error;
    } else {
      result.vacuous = checked.report.vacuous();
      result.diverges = !checked.report.ok();
      result.verdict = checked.report.Summary();
      if (result.diverges && report.first_diverging < 0) {
        report.first_diverging = static_cast<int>(k);
        report.check_details = checked.report.Details();
      }
    }
    report.stages.push_back(std::move(result));
  }
  if (report.first_diverging < 0) return report;
  const size_t at = static_cast<size_t>(report.first_diverging);
  const analysis::ModuleDiff diff = analysis::DiffModules(*stages[at - 1].module, *stages[at].module);
  report.changes = analysis::DiffToText(diff, stages[at - 1].label, stages[at].label);
  if (!rerun || !options.shrink) {
    report.repro_note = rerun ? "not shrunk (--no-shrink)" : "no repro: this pass cannot be run again here";
    return report;
  }
  RETURN_IF_ERROR(ShrinkRepro(stages, options, rerun, &report));
  return report;
}

}  // namespace fusebox::session
