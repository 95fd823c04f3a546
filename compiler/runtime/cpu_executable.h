// The CPU executable: a module compiled by the CPU code generator, run on the host.
// Kernels (emitted loops and library calls) run in schedule order, each split over a
// thread pool along its outermost dimension; control flow (while, conditional, call)
// runs on the host. A module compiled without fusion runs one kernel per HLO op (the
// "unfused" mode, like an op-by-op executor); the fused module one kernel per fusion.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "compiler/backend/memory_profile.h"
#include "compiler/codegen/cpu_compiler.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "profiler/execution_observer.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class ThreadPool;
struct ProgramPlans;

}  // namespace fusebox::runtime

namespace fusebox::interpreter {
class CollectiveHub;
}  // namespace fusebox::interpreter

namespace fusebox::runtime {

struct CpuRunOptions {
  profiler::ExecutionObserver* observer = nullptr;  // kernel events go here when set
  int64_t iteration = 0;                  // passed to the observer
  // Multi-device runs: the hub that exchanges collectives, this run's device (global id)
  // and what replica-id / partition-id return. Without a hub the run is one device, and
  // collectives over groups of one are copies.
  interpreter::CollectiveHub* hub = nullptr;
  int64_t device = 0;
  uint32_t replica_id = 0;
  uint32_t partition_id = 0;
  // Runs that may overlap (devices of one multi-device run, on their own threads) each
  // need their own buffers: slot k has its own. Slots other than 0 need PrepareSlots.
  int slot = 0;
  // Allocate the run's temps and outputs at its start and release them at its end, as a
  // runtime that allocates per call does (XLA's CPU client): for fair timings. Otherwise
  // they are allocated once and reused by every run.
  bool fresh_buffers = false;
  // Checked between kernels (and so between while-loop iterations): set from another
  // thread, the run stops with Cancelled().
  const std::atomic<bool>* cancel = nullptr;
};

struct CpuExecutableOptions {
  codegen::CpuCompileOptions compile;
  int threads = 0;  // 0: one per hardware thread
  // Devices the executable runs on (a multi-device run); collectives must fit them.
  int64_t devices = 1;
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
  // The entry computation's memory profile over its schedule: live ranges, bytes in use
  // at every step, the peak and the buffers alive there (backend/memory_profile.h), with
  // what while bodies, branches and called computations hold while they run, and the
  // copies the runtime makes of parameters it writes.
  StatusOr<backend::MemoryProfile> EntryMemoryProfile();

  // Makes `count` buffer slots (CpuRunOptions::slot) so that that many runs can overlap;
  // call before the runs start. The executable's pool should then have one thread.
  void PrepareSlots(int count);

  const Module& module() const { return *module_; }
  const codegen::CpuCode& code() const { return *code_; }
  int threads() const;
  // Kernels launched by the last Run (loops, library calls; not host work).
  int64_t last_kernel_launches() const { return last_kernel_launches_; }
  // f32 GEMMs run on oneDNN, which sets itself up on its first call (tens of
  // milliseconds), and ffts and LAPACK calls on FFTW and LAPACK, loaded on first use
  // (milliseconds): a profiled run calls this before its first run, so that the set-up is
  // not charged to the program's first dot, fft or LAPACK call. Returns each library set up
  // and the seconds it took (none when the process did it before, or the program has no
  // kernel that needs it, or the library is missing: that kernel then says so).
  std::vector<std::pair<std::string, double>> PrepareLibraries();

 private:
  CpuExecutable() = default;
  class Frame;
  friend class Frame;

  std::unique_ptr<Module> module_;
  std::unique_ptr<codegen::CpuCode> code_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<ProgramPlans> plans_;  // per program computation, reused by every run
  std::vector<std::unique_ptr<ProgramPlans>> slot_plans_;  // slots 1..n-1
  std::atomic<int64_t> last_kernel_launches_{0};
  // Buffer assignment (done per program computation at first use) records its spans here:
  // options.compile.trace, which must outlive the executable's first run.
  CompileTrace* trace_ = nullptr;
};

}  // namespace fusebox::runtime
