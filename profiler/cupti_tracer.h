// The CUPTI activity tracer: records every kernel and memcpy the GPU runs, with device
// timestamps, into a Trace. libcupti is loaded at run time (dlopen), so this builds and
// runs without a GPU; Start() then says "CUPTI unavailable: ..." and callers fall back to
// the runtime's host timing. See docs/gpu-runtime.md.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/execution_observer.h"
#include "compiler/support/status.h"
#include "profiler/trace.h"

namespace fusebox::profiler {

// Copies between host and device (or device and device) recorded by CUPTI. The bytes
// moved are in TraceEvent::bytes_written.
inline constexpr std::string_view kCategoryMemcpy = "memcpy";

// What the compiler knows about one PTX entry: the HLO kernel it belongs to. A kernel
// with several launches (a reduction's partials and final pass) carries its bytes and
// flops on its first entry only, so sums over HLO instructions stay right.
struct KernelAnnotation {
  std::string hlo;
  std::string computation;
  std::string kind;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
};
using KernelAnnotations =
    std::map<std::string, KernelAnnotation, std::less<>>;  // by PTX entry name

// One activity record, decoded from CUPTI's structs into plain fields.
struct GpuActivity {
  enum class Kind { kKernel, kMemcpy, kExternalCorrelation };
  Kind kind = Kind::kKernel;
  std::string name;    // kernel: the PTX entry name
  uint64_t start = 0;  // CUPTI timestamps (ns)
  uint64_t end = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint64_t bytes = 0;     // memcpy
  std::string copy_kind;  // memcpy: "HtoD", "DtoH", "DtoD", ...
  uint64_t external_id = 0;  // external correlation: the id pushed around a library call
};

// Decodes one CUPTI activity record (a CUpti_Activity*: CUpti_ActivityKernel10 for
// KERNEL / CONCURRENT_KERNEL, CUpti_ActivityMemcpy6 for MEMCPY,
// CUpti_ActivityExternalCorrelation for EXTERNAL_CORRELATION). Other kinds, and
// builds without the CUPTI headers, give NotFound.
StatusOr<GpuActivity> DecodeCuptiRecord(const void* record);

// Maps CUPTI timestamps onto the host steady clock (NowNs) from two simultaneous samples
// of both clocks, interpolating linearly between them (and extrapolating outside). With
// one sample, or two at the same GPU time, it applies the offset only.
struct ClockMapping {
  uint64_t gpu0 = 0;
  int64_t host0 = 0;
  uint64_t gpu1 = 0;
  int64_t host1 = 0;
  bool has_second = false;

  static ClockMapping FromSample(uint64_t gpu, int64_t host);
  ClockMapping WithSecondSample(uint64_t gpu, int64_t host) const;
  int64_t ToHostNs(uint64_t gpu_ns) const;
};

// One run of the executable on the host clock, for giving device events an iteration.
struct RunWindow {
  int64_t iteration = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// The iteration of the run that contains `host_ns`; else that of the last run started
// before it; else the first run's (0 without runs).
int64_t IterationAt(const std::vector<RunWindow>& runs, int64_t host_ns);

// The event for `activity`: category "kernel" (named by the entry, with the annotation's
// HLO, kind, bytes and flops when `annotations` has the entry) or "memcpy" ("memcpy
// HtoD", bytes in bytes_written); times mapped by `clock`; track left at 0.
TraceEvent ActivityToEvent(const GpuActivity& activity, const ClockMapping& clock,
                           const KernelAnnotations& annotations, int64_t iteration);

// The tracer. Also an ExecutionObserver: give it to the GPU executable (with
// GpuRunOptions::device_tracer_active) to get "run" events and host work on the CPU
// tracks; it ignores OnKernel, since the kernels come from CUPTI with device times.
// Tracks: process "GPU <device>", name "stream <id>" for kernels and memcpys; process
// "CPU", names "runs" and "host" for the observer callbacks. CUPTI is process-wide: one
// tracer can be started at a time.
class CuptiTracer : public ExecutionObserver {
 public:
  CuptiTracer();
  ~CuptiTracer() override;  // stops if started
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // Names the kernels CUPTI reports (entry name -> HLO); may be called at any time.
  void SetAnnotations(KernelAnnotations annotations);

  // Loads libcupti ("libcupti.so.13", then "libcupti.so"), registers the buffer
  // callbacks and enables kernel and memcpy records. Errors start with "CUPTI
  // unavailable: " (no library, no GPU, another tracer active).
  Status Start();
  // Flushes every buffer and disables the records. Safe to call when not started. The
  // final flush may deliver the last records: take the trace after (StopAndTakeTrace).
  // Virtual so tests can stand in for CUPTI's final flush.
  virtual Status Stop();
  bool started() const;

  // The events so far, sorted by start; the tracer starts over with an empty trace. When
  // started, it first has CUPTI hand over the buffers whose records are complete (call
  // it after the runs finished: the GPU executable synchronizes at the end of each run).
  Trace TakeTrace();
  // Replaces the GPU-to-host clock mapping (Start and every flush sample it): for tests
  // and for replaying recorded activities.
  void SetClockMapping(const ClockMapping& clock);
  // Records CUPTI dropped because no buffer was free.
  int64_t dropped_records() const;

  // ExecutionObserver.
  void OnRunStart(int64_t iteration, int64_t start_ns) override;
  void OnRunEnd(int64_t iteration, int64_t end_ns) override;
  void OnKernel(const KernelLaunch& launch, int64_t start_ns, int64_t end_ns, int thread) override;
  void OnHostWork(std::string_view what, int64_t start_ns, int64_t end_ns) override;
  // Pushes a CUPTI external correlation id around the library's launches; their kernels
  // then carry `call`'s annotation (kernel name: the library's; kind: call.kind).
  void OnLibraryCallBegin(const KernelLaunch& call) override;
  void OnLibraryCallEnd() override;

  // Called from CUPTI's buffer-completed callback (any thread).
  void AddActivities(std::vector<GpuActivity> activities, int64_t dropped);

 private:
  // Samples both clocks together (midpoint of two host reads around the CUPTI read).
  StatusOr<std::pair<uint64_t, int64_t>> SampleClocks() const;
  // Has CUPTI hand over its buffers and takes a second clock sample.
  Status Flush(bool forced);

  mutable std::mutex mu_;
  bool started_ = false;
  int kernel_kind_ = 0;  // the CUpti_ActivityKind enabled for kernels
  KernelAnnotations annotations_;
  std::vector<GpuActivity> activities_;
  ClockMapping clock_;
  bool have_clock_ = false;
  std::vector<RunWindow> runs_;
  std::map<int64_t, int64_t> open_runs_;  // iteration -> start_ns
  int64_t current_iteration_ = 0;
  Trace trace_;  // runs and host work so far; GPU events join it in TakeTrace
  int64_t dropped_ = 0;
  // Library calls: external correlation id -> the call's annotation.
  std::map<uint64_t, KernelAnnotation> library_calls_;
  uint64_t next_external_id_ = 1;
  bool external_pushed_ = false;
};

// Ends tracing in the one safe order: stop (its final flush hands over the records still
// in CUPTI's buffers), then take the trace. Taking the trace first loses those records.
struct FinishedTrace {
  Trace trace;
  Status stopped;  // Stop()'s status; the trace holds what arrived either way
};
FinishedTrace StopAndTakeTrace(CuptiTracer& tracer);

}  // namespace fusebox::profiler
