// Numerics bisection over passes (`fusebox bisect`): which pass first moves a program's
// outputs beyond the bound, what it changed, and a small module that still shows it.
//
// A bisection takes the stages of one compilation — the input, then the module after each
// pass that changed it (Fusebox's pipeline, or XLA's per-pass dump files) — and runs every
// stage on the interpreter with the same random arguments. The reference is the first
// stage's: the interpreter in its own types and the f64 shadow (compiler/check/
// numeric_check.h), so a stage "diverges" when the check of its outputs against that
// reference fails, with the check's own bound (never NaN against NaN, never a vacuous
// check: a stage whose check would be vacuous is reported as such, not as a pass). The
// first diverging stage names the pass; the structural diff of the stage before and after
// it (compiler/analysis/structural_diff.h) lists the instructions the pass changed.
//
// Shrinking (when the pass can be run again, as Fusebox's can): starting from the module
// before the pass, smaller modules are tried — one instruction with a few levels of its
// operands, the rest parameters (cutting outputs and replacing values by parameters),
// then instructions bypassed by an operand of the same shape (deleting them) — and a
// candidate is kept when running the pass on it still changes its outputs beyond the
// bound (its own reference, its own random arguments). The result is a runnable module:
// `fusebox bisect repro.hlo` finds the same pass on it.
//
// What it does not do: evaluate a stage the interpreter cannot run (an opaque custom call,
// a per-device program of a partitioned module); such a stage is reported as not evaluated
// with the reason, and the search goes on past it. Shrink XLA's passes (they cannot be run
// again here): for a dump folder the report names the pass and its changes only.
// Randomness: the arguments are RandomArguments(module, seed); a divergence that only some
// inputs show may need another --seed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/check/numeric_check.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::session {

// One stage of a compilation.
struct BisectStage {
  std::string label;  // "after algsimp (pass 4 of 11)", "0005 simplification: after algsimp, before cse"
  std::string pass;   // the pass that produced it from the stage before ("" for the first)
  std::unique_ptr<Module> module;
};

struct BisectOptions {
  uint64_t seed = 1;
  check::CheckOptions check;
  bool stop_at_first = true;   // stop evaluating at the first diverging stage
  bool shrink = true;          // shrink a repro when the pass can be run again
  int max_shrink_evaluations = 400;
};

struct BisectStageResult {
  std::string label, pass;
  bool evaluated = false;  // false: not reached, or the interpreter could not run it
  bool diverges = false;
  bool vacuous = false;     // its check would be vacuous (no output counts)
  std::string verdict;      // the check's summary, or why it was not evaluated
};

struct BisectReport {
  std::vector<BisectStageResult> stages;
  int first_diverging = -1;  // index into stages; -1: none diverges
  std::string check_details; // the diverging stage's check, output by output
  std::string changes;       // what the diverging pass changed (structural diff text)
  std::unique_ptr<Module> repro;  // the shrunk module before the pass, when shrunk
  int64_t repro_instructions = 0;
  int shrink_evaluations = 0;
  std::string repro_note;    // why there is no repro, or how it was found

  int evaluated() const;
  int not_evaluated() const;
  // "pass fusion (stage 8 of 10) moves the outputs beyond the bound: ..." or
  // "no pass diverges: 9 of 9 stages evaluated ...".
  std::string Summary() const;
};

// Runs the pass named `pass` of a pipeline on a copy of `module`.
using PassRunner = std::function<StatusOr<std::unique_ptr<Module>>(const Module& module, const std::string& pass)>;

// Fusebox's optimization pipeline (the CPU one, or the GPU one with libraries) as a
// PassRunner: one pass, by name, verified after.
PassRunner FuseboxPassRunner(bool gpu_libraries = false);

// The stages of Fusebox's optimization pipeline on `module`: the input, then the module
// after each pass that changed it. Programs that need partitioning are refused (their
// later stages are per-device programs).
StatusOr<std::vector<BisectStage>> FuseboxPipelineStages(const Module& module, bool gpu_libraries = false);

// Evaluates the stages (stage 0 is the reference) and, for a diverging pass that `rerun`
// can run again, shrinks a repro.
StatusOr<BisectReport> BisectStages(const std::vector<BisectStage>& stages, const BisectOptions& options,
                                    const PassRunner& rerun = nullptr);

// Whether running `pass` on `module` moves its outputs beyond the bound (false when the
// module or the pass's result cannot be evaluated, or the check would be vacuous).
StatusOr<bool> PassDiverges(const Module& module, const std::string& pass, const PassRunner& rerun,
                            const BisectOptions& options);

// The smallest module found (at most `max_evaluations` tries of `keeps`) that keeps
// `keeps` true, starting from `module` (for which it holds).
StatusOr<std::unique_ptr<Module>> ShrinkModule(const Module& module,
                                               const std::function<StatusOr<bool>(const Module&)>& keeps,
                                               int max_evaluations, int* evaluations = nullptr);

// A repro keeps each instruction's op_name (which jax op it was) and drops the stack-frame
// tables, which only make it longer.
void StripStackFrames(Module& module);

// --- a backend mismatch, down to a kernel (`fusebox bisect FILE --against cpu|gpu`) ---
//
// The module is optimized for the backend and run whole against the input's reference;
// then every kernel of the optimized module (in the order they run) is run alone on the
// backend, on the values the interpreter computes for its operands in the same run, and
// checked against the interpreter on those values (with an f64 shadow of the kernel).
// The first kernel whose check fails is the culprit; its module (the kernel with its
// operands as parameters) and its input values make the repro. A backend that is right
// kernel by kernel but wrong as a whole (a buffer shared wrongly between kernels, say)
// shows as "every kernel matches" next to a failing whole run.

struct KernelBisectResult {
  std::string kernel;  // the instruction's name in the optimized module
  std::string kind;    // "fusion(kLoop)", "dot", ...
  bool evaluated = false;
  bool diverges = false;
  std::string verdict;
};

struct KernelBisectReport {
  std::string backend;
  std::string whole;           // the whole module's check summary
  bool whole_diverges = false;
  std::vector<KernelBisectResult> kernels;
  int first_diverging = -1;    // index into kernels
  std::string check_details;   // the diverging kernel's check, output by output
  std::unique_ptr<Module> repro;   // the diverging kernel alone
  std::vector<Literal> repro_inputs;  // its operands' values in the run, one per parameter
  std::string Summary() const;
};

// `backend` is "cpu" or "gpu" (a GPU and its driver needed).
StatusOr<KernelBisectReport> BisectKernels(const Module& module, const std::string& backend,
                                           const BisectOptions& options);

}  // namespace fusebox::session
