// The runtime's hooks for tracers. An executable calls an observer around every kernel it
// launches; the profiler's CPU tracer implements this interface to build a trace. The
// compiler library knows nothing of the profiler: the dependency points profiler ->
// compiler, and the app wires the two together.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>

namespace fusebox::profiler {

// Nanoseconds on the steady clock: the one time base of every observer callback.
inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One kernel invocation as the runtime sees it. The views live only during the callback.
struct KernelLaunch {
  std::string_view kernel;       // kernel (LLVM function) name, e.g. "fusion_3"
  std::string_view hlo;          // the HLO instruction it runs: a fusion or a single op
  std::string_view computation;  // the HLO computation the instruction is in
  std::string_view kind;         // "fusion(kLoop)", "fusion(kInput)", "dot", "add", ...
  int64_t bytes_read = 0;        // bytes of operands the kernel reads (each operand once)
  int64_t bytes_written = 0;     // bytes of its results
  int64_t flops = 0;             // floating-point (or integer) operations, estimated
  int64_t iteration = 0;         // which run of the executable (0-based)
};

// Every callback may come from any thread; implementations must be thread-safe.
class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  // Around one whole run of the executable (one iteration of `fusebox run`).
  virtual void OnRunStart(int64_t /*iteration*/, int64_t /*start_ns*/) {}
  virtual void OnRunEnd(int64_t /*iteration*/, int64_t /*end_ns*/) {}
  // One kernel invocation, reported once by the thread that launched it, after it ended.
  // `thread` is that thread's index (0 = the thread that called Run).
  virtual void OnKernel(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns,
                        int thread) = 0;
  // One shard of a kernel's iteration space run by pool worker `worker` (0-based). Shards
  // are not kernels: a kernel split over 8 workers is still one kernel.
  virtual void OnKernelShard(const KernelLaunch& /*launch*/, int64_t /*start_ns*/,
                             int64_t /*end_ns*/, int /*worker*/) {}
  // Host-side work that is not a kernel: copies between buffers at control-flow
  // boundaries, evaluating a while condition's result, allocating.
  virtual void OnHostWork(std::string_view /*what*/, int64_t /*start_ns*/, int64_t /*end_ns*/) {}
  // Around the work a library (cuBLAS) queues for one HLO instruction: a device tracer
  // gives the kernels the library launches in between `call`'s hlo, kind, bytes and
  // flops (their names are the library's own). `call.kernel` names the library routine.
  // Calls do not nest. Observers that time on the host get OnKernel as well.
  virtual void OnLibraryCallBegin(const KernelLaunch& /*call*/) {}
  virtual void OnLibraryCallEnd() {}
};

}  // namespace fusebox::profiler
