// One profiled backend run of a module, shared by `fusebox run`, `fusebox report` and the
// workbench: compile (fused, or one kernel per op), run N times under the backend's
// tracer (the CPU tracer; CUPTI on the GPU, or host timing around each launch when
// CUPTI cannot trace), and keep the trace, the times and the result.
#pragma once

#include <atomic>
#include <functional>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/runtime/gpu_executable.h"
#include "compiler/runtime/host_staging.h"
#include "profiler/cupti_tracer.h"
#include "profiler/trace.h"

namespace fusebox::session {

struct ProfiledRunOptions {
  std::string backend = "cpu";  // "cpu" or "gpu"
  bool fused = true;            // false: the pipeline without fusion, one kernel per op
  int64_t iterations = 1;
  int threads = 0;              // CPU worker threads (0: one per hardware thread)
  std::string gpu_arch;         // GPU target ("" = the device's own)
  // GPU: dots cuBLAS can run go to cuBLAS, and XLA's gemm calls stay calls
  // (`--gpu-library=on`); false: Fusebox's own kernels for everything.
  bool gpu_libraries = true;
  // GPU: f32 gemms of DEFAULT/HIGH precision may use TF32 (XLA's rule); false: full f32.
  bool gpu_tf32 = true;
  // GPU: upload the arguments before every run (default: once, as XLA's callers keep
  // device-resident arguments).
  bool upload_every_run = false;
  // GPU: host<->device copies through pinned staging slots, or the driver's pageable calls
  // (`--host-staging`).
  runtime::HostStaging gpu_host_staging = runtime::HostStaging::kPinned;
  // GPU: cuDNN's and cuBLASLt's algorithms timed at compile time (`--gpu-autotune`);
  // false: the libraries' heuristics choose.
  bool gpu_autotune = true;
  // Skinny gemm calls: timed against Fusebox's own kernel, or one side always
  // (runtime::GemmKernels; `--gpu-gemm-kernels`).
  runtime::GemmKernels gpu_gemm_kernels = runtime::GemmKernels::kTimed;
  // GPU: occupancy requests for kernels that would save a wave (`--gpu-occupancy`;
  // runtime::GpuExecutableOptions::tune_occupancy).
  bool gpu_tune_occupancy = true;
  // GPU: row kernels' other shapes (threads a row) timed with autotuning, the fastest run
  // (`--gpu-kernel-shapes`; runtime::GpuExecutableOptions::kernel_variants).
  bool gpu_kernel_variants = true;
  // GPU: an autotune cache file (`--gpu-autotune-cache`, autotune_cache.h) loaded into the
  // process's cache before compiling (a missing file is started) and written back after.
  std::string gpu_autotune_cache;
  // CPU: checked during the compile and between iterations; set, the run stops with
  // Cancelled(). `progress` gets (fraction, step) as the compile and the runs go.
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(float, const std::string&)> progress;
  // Spans of the compile (passes, code generation, LLVM, ptxas, buffer assignment; null:
  // none). Must outlive the call.
  CompileTrace* compile_trace = nullptr;
};

struct ProfiledRun {
  std::string backend;
  std::string device;      // "the CPU (2 threads)", "NVIDIA H100 ... (sm_90)"
  bool fused = true;
  double compile_s = 0;
  // Where the compile went (CPU): "HLO passes", then the code generator's steps.
  std::vector<std::pair<std::string, double>> compile_steps_s;
  int compile_threads = 1;
  std::vector<double> times_s;  // per iteration, ascending
  int64_t launches_per_run = 0;  // kernel launches in the last run
  int64_t static_kernels = 0;    // kernels in the compiled module
  int64_t library_calls_per_run = 0;  // GPU: cuBLAS calls in the last run
  // GPU, from the trace: kernel time (library kernels included) and host<->device copy
  // time per run, medians over the runs; -1 when the trace has no device times.
  double kernel_s = -1;
  double transfer_s = -1;
  profiler::Trace trace;
  Literal result;
  std::vector<std::string> notes;  // e.g. "CUPTI unavailable: ...; kernel times measured on the host"

  double min_s() const { return times_s.empty() ? 0 : times_s.front(); }
  double median_s() const {
    if (times_s.empty()) return 0;
    const size_t n = times_s.size();
    return n % 2 == 1 ? times_s[n / 2] : 0.5 * (times_s[n / 2 - 1] + times_s[n / 2]);
  }
  // "ran jit_f on the CPU (fused, 2 threads) 3 time(s): compile 0.1 s, run min ..., median ...; N kernels per run",
  // then for the CPU a second line with the compile's steps.
  std::string Describe(const std::string& module_name) const;
};

// Compiles and runs `module` on the backend. A module with collectives over more devices
// than one is refused before compiling, with the instruction's location.
StatusOr<ProfiledRun> RunProfiled(const Module& module, const std::vector<Literal>& args,
                                  const ProfiledRunOptions& options);

// What the compiler knows about the PTX entries of `code`, for the CUPTI tracer: the
// annotations of every launch of every kernel.
profiler::KernelAnnotations AnnotationsFromGpuCode(const codegen::GpuCode& code);

// Kernel events in `trace`.
int64_t CountKernelEvents(const profiler::Trace& trace);

// The run note when the kernels a device tracer recorded differ from the launches the
// executable made over `runs` runs, "" when they agree: a trace that misses kernels (or
// holds kernels of other work) would otherwise be summarized as if it were complete.
std::string KernelCountNote(int64_t traced_kernels, int64_t launches, int64_t runs);

// The notes of a module's fused and unfused runs (either may be null), each led by its
// run ("fused run: CUPTI recorded ..."): what the report and the workbench show.
std::vector<std::string> RunNotes(const ProfiledRun* fused, const ProfiledRun* unfused);

}  // namespace fusebox::session
