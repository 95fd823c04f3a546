// The CPU executable: a module compiled by the CPU code generator, run on the host.
// Kernels (emitted loops and library calls) run in schedule order, each split over a
// thread pool along its outermost dimension; control flow (while, conditional, call)
// runs on the host. A module compiled without fusion runs one kernel per HLO op (the
// "unfused" mode, like an op-by-op executor); the fused module one kernel per fusion.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/cpu_compiler.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/runtime/execution_observer.h"
#include "compiler/support/status.h"

namespace fusebox {

class ThreadPool;
struct ProgramPlans;

struct CpuRunOptions {
  ExecutionObserver* observer = nullptr;  // kernel events go here when set
  int64_t iteration = 0;                  // passed to the observer
};

struct CpuExecutableOptions {
  CpuCompileOptions compile;
  int threads = 0;  // 0: one per hardware thread
};

class CpuExecutable {
 public:
  // Compiles `module` (already optimized, or not: every non-trivial op is then its own
  // kernel). The module's layouts are normalized to row-major: buffers are dense and
  // row-major like literals.
  static StatusOr<std::unique_ptr<CpuExecutable>> Create(std::unique_ptr<Module> module,
                                                         const CpuExecutableOptions& options = {});
  ~CpuExecutable();

  // Runs the entry computation. Arguments are checked against the entry parameters.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments, const CpuRunOptions& options = {});
  // The same, writing into `result`, which is reshaped to the root's shape if it has
  // another. Output kernels write straight into `result`'s storage where buffer
  // assignment allows, so a caller running the module repeatedly (benchmarks,
  // `fusebox run --iterations`) reuses one result and copies nothing. An argument may
  // not be `result` or share storage with it.
  Status RunInto(const std::vector<Literal>& arguments, Literal& result, const CpuRunOptions& options = {});

  // The entry computation's buffer assignment in XLA's buffer-assignment.txt style, with
  // the peak memory; every program computation (while bodies, branches) follows.
  StatusOr<std::string> BufferAssignmentText();
  // Bytes of temps and outputs of the entry computation, and its peak live bytes.
  StatusOr<int64_t> EntryPeakBytes();

  const Module& module() const { return *module_; }
  const CpuCode& code() const { return *code_; }
  int threads() const;
  // Kernels launched by the last Run (loops, library calls; not host work).
  int64_t last_kernel_launches() const { return last_kernel_launches_; }

 private:
  CpuExecutable() = default;
  class Frame;
  friend class Frame;

  std::unique_ptr<Module> module_;
  std::unique_ptr<CpuCode> code_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<ProgramPlans> plans_;  // per program computation, reused by every run
  int64_t last_kernel_launches_ = 0;
};

}  // namespace fusebox
