// Profiled runs on the CPU and GPU backends.
#include "compiler/session/profiled_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "compiler/codegen/ptx_tools.h"
#include "compiler/ir/collectives.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/autotune_cache.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/gpu_executable.h"
#include "compiler/support/timer.h"
#include "profiler/cpu_tracer.h"
#include "profiler/cupti_tracer.h"

namespace fusebox::session {

// The profiler's tracers and trace model, which the profiled runs drive.
using namespace profiler;  // NOLINT(google-build-using-namespace)

profiler::KernelAnnotations AnnotationsFromGpuCode(const codegen::GpuCode& code) {
  profiler::KernelAnnotations out;
  // Fusebox's own kernels of gemm library calls too (under the call's name), when the run
  // chose them.
  for (const codegen::GpuKernel* kernel : code.AllKernels()) {
    profiler::KernelAnnotation base;
    if (kernel->hlo != nullptr) {
      base.hlo = kernel->hlo->name();
      if (kernel->hlo->parent() != nullptr) base.computation = kernel->hlo->parent()->name();
    }
    base.kind = kernel->kind_name;
    // A kernel's traffic and work go on its first launch; a variant's (the runtime may run
    // one instead) on the variant's first.
    auto annotate = [&](const std::vector<codegen::GpuLaunch>& launches) {
      bool first = true;
      for (const codegen::GpuLaunch& launch : launches) {
        if (out.count(launch.function) != 0) continue;
        profiler::KernelAnnotation a = base;
        if (first) {
          a.bytes_read = kernel->bytes_read;
          a.bytes_written = kernel->bytes_written;
          a.flops = kernel->flops;
        }
        first = false;
        out.emplace(launch.function, std::move(a));
      }
    };
    annotate(kernel->launches);
    for (const codegen::GpuKernelVariant& variant : kernel->variants) annotate(variant.launches);
  }
  return out;
}

namespace {

// The median over iterations 0..runs-1 of the summed durations of the events `pick` takes.
template <typename Pick>
double MedianPerIteration(const Trace& trace, int64_t runs, Pick pick) {
  std::vector<double> per(static_cast<size_t>(std::max<int64_t>(1, runs)), 0.0);
  for (const TraceEvent& e : trace.events()) {
    if (!pick(e) || e.iteration < 0 || e.iteration >= static_cast<int64_t>(per.size())) continue;
    per[static_cast<size_t>(e.iteration)] += static_cast<double>(e.end_ns - e.start_ns) * 1e-9;
  }
  std::sort(per.begin(), per.end());
  const size_t n = per.size();
  return n % 2 == 1 ? per[n / 2] : 0.5 * (per[n / 2 - 1] + per[n / 2]);
}

StatusOr<ProfiledRun> RunCpu(const Module& module, const std::vector<Literal>& args, const ProfiledRunOptions& opts) {
  ProfiledRun run;
  run.backend = "cpu";
  run.fused = opts.fused;
  Stopwatch compile_watch;
  ScopedSpan compile_span(opts.compile_trace, compile_category::kStage, opts.fused ? "compile (fused)" : "compile (unfused)");
  compile_span.Arg("backend", "cpu");
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized,
                   passes::OptimizeForCpu(module, opts.fused, opts.compile_trace));
  run.compile_steps_s.emplace_back("HLO passes", compile_watch.ElapsedSeconds());
  runtime::CpuExecutableOptions exe_opts;
  exe_opts.threads = opts.threads;
  exe_opts.compile.keep_llvm_ir = false;  // a run needs machine code only; stages come from
  exe_opts.compile.keep_assembly = false; // `fusebox compile` and the workbench
  exe_opts.compile.cancel = opts.cancel;
  exe_opts.compile.trace = opts.compile_trace;
  if (opts.progress) {
    exe_opts.compile.progress = [&](int64_t done, int64_t total) {
      opts.progress(total > 0 ? 0.5f * static_cast<float>(done) / static_cast<float>(total) : -1.f,
                    "compiling: " + std::to_string(done) + " of " + std::to_string(total) + " steps");
    };
  }
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::CpuExecutable> exe, runtime::CpuExecutable::Create(std::move(optimized), exe_opts));
  compile_span.End();
  run.compile_s = compile_watch.ElapsedSeconds();
  for (const codegen::CompileStepTime& step : exe->code().step_times()) run.compile_steps_s.emplace_back(step.step, step.seconds);
  for (const auto& [library, seconds] : exe->PrepareLibraries()) {
    run.compile_s += seconds;
    run.compile_steps_s.emplace_back(library + " set-up", seconds);
  }
  run.compile_threads = exe->code().compile_threads();
  run.device = "the CPU (" + std::to_string(exe->threads()) + " threads)";
  CpuTracer tracer;
  std::optional<Literal> result = Literal::CreateUninitialized(exe->module().entry()->root()->shape());
  const int64_t iterations = std::max<int64_t>(1, opts.iterations);
  for (int64_t it = 0; it < iterations; ++it) {
    if (opts.cancel != nullptr && opts.cancel->load(std::memory_order_relaxed)) return Cancelled();
    if (opts.progress) {
      opts.progress(0.5f + 0.5f * static_cast<float>(it) / static_cast<float>(iterations),
                    "run " + std::to_string(it + 1) + " of " + std::to_string(iterations));
    }
    runtime::CpuRunOptions run_opts;
    run_opts.observer = &tracer;
    run_opts.cancel = opts.cancel;
    run_opts.iteration = it;
    Stopwatch watch;
    RETURN_IF_ERROR(exe->RunInto(args, *result, run_opts));  // one result, reused
    run.times_s.push_back(watch.ElapsedSeconds());
  }
  std::sort(run.times_s.begin(), run.times_s.end());
  run.trace = tracer.TakeTrace();
  run.launches_per_run = exe->last_kernel_launches();
  run.static_kernels = passes::CountKernels(exe->module()).kernels;
  run.result = std::move(*result);
  return run;
}

StatusOr<ProfiledRun> RunGpu(const Module& module, const std::vector<Literal>& args, const ProfiledRunOptions& opts) {
  ProfiledRun run;
  run.backend = "gpu";
  run.fused = opts.fused;
  Stopwatch compile_watch;
  ScopedSpan compile_span(opts.compile_trace, compile_category::kStage, opts.fused ? "compile (fused)" : "compile (unfused)");
  compile_span.Arg("backend", "gpu");
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized,
                   passes::OptimizeForBackend(module, opts.fused, opts.gpu_libraries, opts.compile_trace));
  runtime::GpuExecutableOptions exe_opts;
  exe_opts.allow_tf32 = opts.gpu_tf32;
  exe_opts.host_staging = opts.gpu_host_staging;
  exe_opts.autotune = opts.gpu_autotune;
  exe_opts.gemm_kernels = opts.gpu_gemm_kernels;
  exe_opts.tune_occupancy = opts.gpu_tune_occupancy;
  exe_opts.kernel_variants = opts.gpu_kernel_variants;
  exe_opts.compile.trace = opts.compile_trace;
  runtime::AutotuneCache& tuned = runtime::AutotuneCache::Process();
  std::string cache_note;
  if (!opts.gpu_autotune_cache.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(opts.gpu_autotune_cache, ec)) {
      size_t loaded = 0;
      RETURN_IF_ERROR(tuned.Load(opts.gpu_autotune_cache, &loaded));
      cache_note = "autotune cache " + opts.gpu_autotune_cache + ": " + std::to_string(loaded) + " choice(s) loaded";
    } else {
      cache_note = "autotune cache " + opts.gpu_autotune_cache + ": new";
    }
  }
  const size_t cached_before = tuned.size();
  if (!opts.gpu_arch.empty()) {
    exe_opts.compile.arch = opts.gpu_arch;
    exe_opts.arch_from_device = false;
  }
  if (codegen::FindPtxas().ok()) {
    exe_opts.ptx_to_cubin = [trace = opts.compile_trace](const std::string& ptx,
                                                          const std::string& arch) -> StatusOr<std::vector<uint8_t>> {
      // ptxas on all CPUs, and a cubin cached by content: ResNet-50's PTX takes ptxas
      // 9.4 s on one thread; the driver's JIT would take as long on every new process.
      codegen::PtxasOptions ptxas;
      ptxas.cache_dir = codegen::PtxasCacheDir();
      ptxas.trace = trace;
      ASSIGN_OR_RETURN(codegen::PtxasResult assembled, codegen::AssemblePtx(ptx, arch, ptxas));
      return std::vector<uint8_t>(assembled.cubin.begin(), assembled.cubin.end());
    };
  }
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::GpuExecutable> exe, runtime::GpuExecutable::Create(std::move(optimized), exe_opts));
  if (!opts.gpu_autotune_cache.empty()) {
    RETURN_IF_ERROR(tuned.Save(opts.gpu_autotune_cache));
    run.notes.push_back(cache_note + ", " + std::to_string(tuned.size() - cached_before) + " added, " +
                        std::to_string(tuned.size()) + " written");
  }
  compile_span.End();
  run.compile_s = compile_watch.ElapsedSeconds();
  run.device = exe->device_description();
  CuptiTracer cupti;
  cupti.SetAnnotations(AnnotationsFromGpuCode(exe->code()));
  CpuTracer host_tracer;
  const Status traced = cupti.Start();
  if (!traced.ok()) run.notes.push_back(traced.message() + "; kernel times are measured on the host around each launch");
  std::optional<Literal> result = Literal::CreateUninitialized(exe->module().entry()->root()->shape());
  int64_t launches = 0;  // over all runs, to hold CUPTI's kernel count against
  int64_t library_calls = 0;  // over all runs: each launches one or more library kernels
  const int64_t runs = std::max<int64_t>(1, opts.iterations);
  for (int64_t it = 0; it < runs; ++it) {
    runtime::GpuRunOptions run_opts;
    run_opts.observer = traced.ok() ? static_cast<profiler::ExecutionObserver*>(&cupti) : &host_tracer;
    run_opts.device_tracer_active = traced.ok();
    run_opts.iteration = it;
    run_opts.upload_arguments = opts.upload_every_run || it == 0;
    Stopwatch watch;
    RETURN_IF_ERROR(exe->RunInto(args, *result, run_opts));
    run.times_s.push_back(watch.ElapsedSeconds());
    launches += exe->last_kernel_launches();
    library_calls += exe->last_library_calls();
  }
  std::sort(run.times_s.begin(), run.times_s.end());
  if (traced.ok()) {
    // Stop first: the records of the last kernels may arrive in Stop's final flush.
    FinishedTrace finished = StopAndTakeTrace(cupti);
    RETURN_IF_ERROR(finished.stopped);
    run.trace = std::move(finished.trace);
    if (cupti.dropped_records() > 0) {
      run.notes.push_back("CUPTI dropped " + std::to_string(cupti.dropped_records()) +
                          " record(s): the trace misses kernels");
    }
    // Fusebox's own kernels against its launches; the libraries' kernels (attributed to
    // their calls by CUPTI's external correlation) against the calls, at least one each.
    int64_t library_kernels = 0;
    for (const TraceEvent& e : run.trace.events()) {
      if (e.is_kernel() && e.kind.rfind("library(", 0) == 0) ++library_kernels;
    }
    if (library_kernels < library_calls) {
      run.notes.push_back("CUPTI attributed " + std::to_string(library_kernels) + " kernel(s) to " +
                          std::to_string(library_calls) +
                          " library call(s): the libraries' kernels are in the trace under their own names only");
    }
    std::string counted = KernelCountNote(CountKernelEvents(run.trace) - library_kernels, launches, runs);
    if (!counted.empty()) run.notes.push_back(std::move(counted));
  } else {
    run.trace = host_tracer.TakeTrace();
  }
  run.launches_per_run = exe->last_kernel_launches();
  run.library_calls_per_run = exe->last_library_calls();
  run.static_kernels = passes::CountKernels(exe->module()).kernels;
  for (const std::string& note : exe->library_notes()) run.notes.push_back(note);
  for (const std::string& note : exe->occupancy_notes()) run.notes.push_back(note);
  for (const std::string& note : exe->kernel_variant_notes()) run.notes.push_back(note);
  if (!exe->host_staging_note().empty()) run.notes.push_back(exe->host_staging_note());
  if (!exe->library_description().empty()) {
    const int64_t tf32 = exe->tf32_gemms();
    run.notes.push_back("library calls: " + exe->library_description() + ", " +
                        std::to_string(run.library_calls_per_run) + " call(s) per run" +
                        (tf32 > 0 ? "; " + std::to_string(tf32) +
                                        " f32 call(s) may use TF32 (DEFAULT/HIGH precision, XLA's rule)"
                                  : std::string()));
  }
  if (traced.ok()) {
    run.kernel_s = MedianPerIteration(run.trace, runs, [](const TraceEvent& e) { return e.is_kernel(); });
    run.transfer_s = MedianPerIteration(run.trace, runs, [](const TraceEvent& e) {
      return e.category == kCategoryMemcpy && (e.kind == "HtoD" || e.kind == "DtoH");
    });
  }
  run.result = std::move(*result);
  return run;
}

}  // namespace

std::string ProfiledRun::Describe(const std::string& module_name) const {
  char buf[768];
  if (backend == "cpu") {
    // device is "the CPU (N threads)": the mode goes in front of the thread count.
    std::string where = device;
    size_t paren = where.find('(');
    if (paren != std::string::npos) where.insert(paren + 1, fused ? "fused, " : "unfused, ");
    std::snprintf(buf, sizeof(buf),
                  "ran %s on %s %lld time(s): compile %.3f s, run min %.3f ms, median %.3f ms; "
                  "%lld kernels per run (%lld static)",
                  module_name.c_str(), where.c_str(), static_cast<long long>(times_s.size()), compile_s,
                  min_s() * 1e3, median_s() * 1e3, static_cast<long long>(launches_per_run),
                  static_cast<long long>(static_kernels));
    std::string steps;
    for (const auto& [step, seconds] : compile_steps_s) {
      char ms[32];
      std::snprintf(ms, sizeof(ms), " %.1f ms", seconds * 1e3);
      steps += (steps.empty() ? "" : ", ") + step + ms;
    }
    if (!steps.empty()) {
      return std::string(buf) + "\n  compile steps: " + steps + " (kernels optimized and compiled on " +
             std::to_string(compile_threads) + " thread" + (compile_threads == 1 ? "" : "s") + ")";
    }
  } else {
    std::snprintf(buf, sizeof(buf),
                  "ran %s on %s (%s) %lld time(s): compile %.3f s, run min %.3f ms, median %.3f ms; "
                  "%lld kernel launches per run (%lld kernels)",
                  module_name.c_str(), device.c_str(), fused ? "fused" : "unfused",
                  static_cast<long long>(times_s.size()), compile_s, min_s() * 1e3, median_s() * 1e3,
                  static_cast<long long>(launches_per_run), static_cast<long long>(static_kernels));
    std::string out = buf;
    if (library_calls_per_run > 0) out += " + " + std::to_string(library_calls_per_run) + " library call(s)";
    if (kernel_s >= 0) {
      char times[160];
      std::snprintf(times, sizeof(times), "\n  per run (median): kernels %.4f ms, host<->device copies %.4f ms, wall %.4f ms",
                    kernel_s * 1e3, transfer_s * 1e3, median_s() * 1e3);
      out += times;
    }
    return out;
  }
  return buf;
}

int64_t CountKernelEvents(const Trace& trace) {
  return std::count_if(trace.events().begin(), trace.events().end(),
                       [](const TraceEvent& e) { return e.is_kernel(); });
}

std::string KernelCountNote(int64_t traced_kernels, int64_t launches, int64_t runs) {
  if (traced_kernels == launches) return "";
  const std::string counts = "CUPTI recorded " + std::to_string(traced_kernels) + " kernel(s) but the executable made " +
                             std::to_string(launches) + " launch(es) over " + std::to_string(runs) + " run(s): ";
  if (traced_kernels < launches) {
    return counts + "the trace misses " + std::to_string(launches - traced_kernels) +
           "; kernel counts and times are incomplete";
  }
  return counts + "the trace has " + std::to_string(traced_kernels - launches) +
         " kernel(s) this module did not launch (other work on the GPU?); kernel counts and times include them";
}

std::vector<std::string> RunNotes(const ProfiledRun* fused, const ProfiledRun* unfused) {
  std::vector<std::string> notes;
  if (fused != nullptr) {
    for (const std::string& n : fused->notes) notes.push_back("fused run: " + n);
  }
  if (unfused != nullptr) {
    for (const std::string& n : unfused->notes) notes.push_back("unfused run: " + n);
  }
  return notes;
}

StatusOr<ProfiledRun> RunProfiled(const Module& module, const std::vector<Literal>& args,
                                  const ProfiledRunOptions& options) {
  // Checked on the module as given, so the message points into the user's file (the
  // backends check again after the optimization pipeline).
  RETURN_IF_ERROR(CheckCollectivesFit(module, /*devices=*/1));
  if (options.backend == "cpu") return RunCpu(module, args, options);
  if (options.backend == "gpu") return RunGpu(module, args, options);
  return InvalidArgument("unknown backend '" + options.backend + "' (cpu or gpu)");
}

}  // namespace fusebox::session
