// The reference interpreter: evaluates an HLO module directly, op by op, with XLA's
// semantics. It is the oracle the CPU and GPU backends are compared with, so it favours
// clarity and exactness over speed.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::interpreter {

class CollectiveHub;

struct InterpreterOptions {
  // Seed of the `rng` op's generator (rng-bit-generator takes its state as an operand).
  uint64_t rng_seed = 42;
  // A while loop running longer than this fails (guards against non-terminating input).
  int64_t max_while_iterations = int64_t{1} << 31;
  // What replica-id / partition-id return.
  uint32_t replica_id = 0;
  uint32_t partition_id = 0;
  // Multi-device runs: the hub that exchanges collectives between the devices' threads,
  // and this device's global id. Without a hub the interpreter is one device: collectives
  // over groups of one are copies, larger groups are refused.
  CollectiveHub* hub = nullptr;
  int64_t device = 0;
  // Largest result one instruction may produce, in bytes; 0 means 80% of this machine's
  // physical memory. Larger results fail with a clear message instead of exhausting memory.
  int64_t max_result_bytes = 0;
  // Work limits (0: none): evaluation stops with an error once this many instructions
  // have been evaluated, or this many array elements produced, counting called
  // computations. Deterministic, unlike a time limit.
  int64_t max_instructions = 0;
  int64_t max_elements = 0;
  // Set to true from another thread to stop evaluation (returns a Cancelled-like error).
  const std::atomic<bool>* cancel = nullptr;
  // Called with each result an op computes (not parameters, constants, tuple elements or
  // shared copies) before its users see it. The numeric check's perturbed runs nudge the
  // f64 shadow's values by the rounding of the module's own types (compiler/check).
  std::function<void(const Instruction&, Literal&)> on_result;
  // Computations made only of scalars (parameters, constants, elementwise ops and a root
  // tuple of them: reducers, comparators, combiners) run as programs whose results are
  // allocated once, not per call. Same results, errors and counters either way; false
  // runs them the general way (tests and benchmarks compare the two).
  bool scalar_programs = true;
  // Runs jax's LAPACK calls (IsCpuLapackTarget) in place of the plain HLO they stand for:
  // the numeric check of the CPU backend, which runs them through LAPACK, sets it to the
  // runtime's (runtime::RunLapackOnLiterals), so that the reference computes what the
  // backend computes where the library's choices (an eigenvector's sign) are its own.
  std::function<StatusOr<Literal>(const Instruction&, const std::vector<const Literal*>&)> library_call;
  // With library_call set: only the calls with no plain HLO (HasPlainHloModel: LAPACK's
  // geev) run it, the others their plain HLO. The interpreter backend of `fusebox run`
  // sets it so that a general eigendecomposition runs (LAPACK's, as XLA's) and says so.
  bool library_call_unmodelled_only = false;
  // library_call also takes jax's GPU solver calls that LAPACK answers alike
  // (IsLapackTwinGpuCall: cusolver potrf, getrf, geqrf, orgqr); with this set, only those:
  // the GPU backend's check, whose runtime runs jax's LAPACK calls as their plain HLO.
  bool library_call_gpu_twins_only = false;
  // library_call also takes jax's GPU eigh and SVD calls (IsLapackTwinGpuVectorCall): the
  // check of the GPU backend with its libraries, which runs them through cuSOLVER, whose
  // vectors' signs are its own as LAPACK's are (the check aligns them).
  bool library_call_gpu_vector_twins = false;
};

// Whether the interpreter hands `call` to options.library_call (set) rather than running
// its plain HLO.
bool TakesLibraryCall(const InterpreterOptions& options, const Instruction& call);

// Counters gathered while running, for benchmarks and the CLI.
struct InterpreterStats {
  int64_t instructions_evaluated = 0;
  int64_t elements_produced = 0;  // array elements written by all instructions
  int64_t scalar_program_calls = 0;  // calls run as programs of scalars (options above)
};

class Interpreter {
 public:
  explicit Interpreter(InterpreterOptions options = {});

  // Runs the entry computation on `arguments` (one literal per entry parameter, shapes
  // compatible with the parameters'; layouts are ignored). Errors name the instruction
  // and its source line.
  StatusOr<Literal> Run(const Module& module, const std::vector<Literal>& arguments);

  // Runs any computation (used for called computations and tests).
  StatusOr<Literal> RunComputation(const Computation& computation,
                                   const std::vector<const Literal*>& arguments);
  // The same, the result kept by the interpreter and valid until the next call of the same
  // computation (or the interpreter's end): a computation of scalars called once per
  // element then allocates nothing.
  StatusOr<const Literal*> RunComputationInPlace(const Computation& computation,
                                                 const std::vector<const Literal*>& arguments);

  // XLA's cuBLAS and cuDNN custom calls run as the plain HLO they stand for (see
  // compiler/ir/library_calls.h), built once per call into a module of its own.
  StatusOr<const Computation*> LibraryCallComputation(const Instruction& call);

  const InterpreterStats& stats() const { return stats_; }
  const InterpreterOptions& options() const { return options_; }

 private:
  friend class EvalContext;
  // Evaluation order and operand positions of a computation, computed once: called
  // computations (reducers, comparators) run millions of times.
  struct Plan {
    std::vector<const Instruction*> order;
    std::vector<std::vector<int32_t>> operand_slots;  // per position: operands' positions
    std::vector<int32_t> use_counts;                  // per position: number of uses
    int32_t root_slot = -1;
  };
  const Plan& PlanFor(const Computation& computation);

  // A computation of scalars only, compiled once: a result literal per instruction,
  // reused by every call, and the root's value copied into `output`.
  struct ScalarProgram {
    const Computation* computation = nullptr;
    const Plan* plan = nullptr;
    std::vector<Literal> results;        // per position: an elementwise op's result
    std::vector<const Literal*> values;  // per position: where its value is this call
    std::vector<const Literal*> operands;  // scratch: one op's operands
    Literal output;                        // the root's value (a scalar or a tuple of them)
  };
  // nullptr where the computation is not made of scalars only (or the option is off).
  ScalarProgram* ScalarProgramFor(const Computation& computation);
  // Runs `program`; nullptr (and no work done) where the arguments are not the scalars
  // its parameters declare, so that the general path gives its own answer.
  StatusOr<const Literal*> RunScalarProgram(ScalarProgram& program,
                                            const std::vector<const Literal*>& arguments);

  InterpreterOptions options_;
  InterpreterStats stats_;
  uint64_t rng_state_;
  std::unordered_map<const Computation*, std::unique_ptr<Plan>> plans_;
  std::unordered_map<const Computation*, std::unique_ptr<ScalarProgram>> scalar_programs_;
  std::unordered_map<const Computation*, Literal> in_place_results_;
  std::unordered_map<const Instruction*, std::unique_ptr<Module>> library_calls_;
};

// Checks that `arguments` fit the entry computation's parameters (count, element type,
// dimensions) and says which one does not.
Status CheckArguments(const Module& module, const std::vector<Literal>& arguments);

}  // namespace fusebox::interpreter
