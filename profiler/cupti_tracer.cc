// The CUPTI tracer: libcupti loaded with dlopen, activity buffers handed to CUPTI and
// decoded when it returns them, device timestamps mapped onto the host steady clock.
// cupti_activity.h supplies only the record structs and enums.
#include "profiler/cupti_tracer.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <type_traits>
#include <utility>

#ifdef FUSEBOX_HAVE_CUPTI_HEADERS
#include <cupti_activity.h>
#include <cupti_result.h>
#endif

namespace fusebox::profiler {

ClockMapping ClockMapping::FromSample(uint64_t gpu, int64_t host) {
  ClockMapping m;
  m.gpu0 = gpu;
  m.host0 = host;
  return m;
}

ClockMapping ClockMapping::WithSecondSample(uint64_t gpu, int64_t host) const {
  ClockMapping m = *this;
  m.gpu1 = gpu;
  m.host1 = host;
  m.has_second = true;
  return m;
}

int64_t ClockMapping::ToHostNs(uint64_t gpu_ns) const {
  // Differences of nearby timestamps fit an int64 even when the absolute values do not.
  const int64_t delta = static_cast<int64_t>(gpu_ns - gpu0);
  if (!has_second || gpu1 == gpu0) return host0 + delta;
  const double slope =
      static_cast<double>(host1 - host0) / static_cast<double>(static_cast<int64_t>(gpu1 - gpu0));
  return host0 + static_cast<int64_t>(std::llround(static_cast<double>(delta) * slope));
}

int64_t IterationAt(const std::vector<RunWindow>& runs, int64_t host_ns) {
  if (runs.empty()) return 0;
  const RunWindow* latest_before = nullptr;
  for (const RunWindow& r : runs) {
    if (host_ns >= r.start_ns && host_ns <= r.end_ns) return r.iteration;
    if (r.start_ns <= host_ns &&
        (latest_before == nullptr || r.start_ns > latest_before->start_ns)) {
      latest_before = &r;
    }
  }
  if (latest_before != nullptr) return latest_before->iteration;
  const RunWindow* earliest = &runs.front();
  for (const RunWindow& r : runs) {
    if (r.start_ns < earliest->start_ns) earliest = &r;
  }
  return earliest->iteration;
}

TraceEvent ActivityToEvent(const GpuActivity& activity, const ClockMapping& clock,
                           const KernelAnnotations& annotations, int64_t iteration) {
  TraceEvent e;
  e.start_ns = clock.ToHostNs(activity.start);
  e.end_ns = std::max(e.start_ns, clock.ToHostNs(activity.end));
  e.iteration = iteration;
  if (activity.kind == GpuActivity::Kind::kMemcpy) {
    e.name = "memcpy " + activity.copy_kind;
    e.kind = activity.copy_kind;
    e.category = std::string(kCategoryMemcpy);
    e.bytes_written = static_cast<int64_t>(activity.bytes);
    return e;
  }
  e.name = activity.name;
  e.category = std::string(kCategoryKernel);
  auto it = annotations.find(activity.name);
  if (it != annotations.end()) {
    e.hlo = it->second.hlo;
    e.computation = it->second.computation;
    e.kind = it->second.kind;
    e.bytes_read = it->second.bytes_read;
    e.bytes_written = it->second.bytes_written;
    e.flops = it->second.flops;
  }
  return e;
}

#ifndef FUSEBOX_HAVE_CUPTI_HEADERS

StatusOr<GpuActivity> DecodeCuptiRecord(const void*) {
  return NotFound("Fusebox was built without the CUPTI headers");
}

namespace {
Status NoCupti() {
  return Unavailable("CUPTI unavailable: Fusebox was built without the CUPTI headers");
}
}  // namespace

Status CuptiTracer::Start() { return NoCupti(); }
Status CuptiTracer::Stop() { return Status::Ok(); }
Status CuptiTracer::Flush(bool) { return Status::Ok(); }
StatusOr<std::pair<uint64_t, int64_t>> CuptiTracer::SampleClocks() const { return NoCupti(); }

#else  // FUSEBOX_HAVE_CUPTI_HEADERS

namespace {

std::string CopyKindName(int kind) {
  // CUpti_ActivityMemcpyKind.
  switch (kind) {
    case 1:
      return "HtoD";
    case 2:
      return "DtoH";
    case 3:
      return "HtoA";
    case 4:
      return "AtoH";
    case 5:
      return "AtoA";
    case 6:
      return "AtoD";
    case 7:
      return "DtoA";
    case 8:
      return "DtoD";
    case 9:
      return "HtoH";
    case 10:
      return "PtoP";
    default:
      return "unknown";
  }
}

// One tracer receives CUPTI's records at a time; the callbacks find it here. Lock order:
// g_active_mu, then the tracer's own mutex. No CUPTI call is made with g_active_mu held
// (a flush calls back into the completed callback, which takes it).
std::mutex g_active_mu;
CuptiTracer* g_active = nullptr;

}  // namespace

// The fields read below sit where older record versions have them too, so records of an
// older libcupti (the "libcupti.so" fallback) decode the same.
static_assert(offsetof(CUpti_ActivityKernel10, start) == offsetof(CUpti_ActivityKernel9, start));
static_assert(offsetof(CUpti_ActivityKernel10, end) == offsetof(CUpti_ActivityKernel9, end));
static_assert(offsetof(CUpti_ActivityKernel10, deviceId) ==
              offsetof(CUpti_ActivityKernel9, deviceId));
static_assert(offsetof(CUpti_ActivityKernel10, streamId) ==
              offsetof(CUpti_ActivityKernel9, streamId));
static_assert(offsetof(CUpti_ActivityKernel10, correlationId) ==
              offsetof(CUpti_ActivityKernel9, correlationId));
static_assert(offsetof(CUpti_ActivityKernel10, name) == offsetof(CUpti_ActivityKernel9, name));
static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == offsetof(CUpti_ActivityMemcpy5, bytes));
static_assert(offsetof(CUpti_ActivityMemcpy6, streamId) ==
              offsetof(CUpti_ActivityMemcpy5, streamId));

StatusOr<GpuActivity> DecodeCuptiRecord(const void* record) {
  if (record == nullptr) return NotFound("no record");
  const auto* base = static_cast<const CUpti_Activity*>(record);
  GpuActivity a;
  switch (base->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = static_cast<const CUpti_ActivityKernel10*>(record);
      a.kind = GpuActivity::Kind::kKernel;
      a.name = k->name != nullptr ? k->name : "<unnamed kernel>";
      a.start = k->start;
      a.end = k->end;
      a.device = k->deviceId;
      a.stream = k->streamId;
      a.correlation = k->correlationId;
      return a;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = static_cast<const CUpti_ActivityMemcpy6*>(record);
      a.kind = GpuActivity::Kind::kMemcpy;
      a.copy_kind = CopyKindName(m->copyKind);
      a.name = "memcpy " + a.copy_kind;
      a.start = m->start;
      a.end = m->end;
      a.device = m->deviceId;
      a.stream = m->streamId;
      a.correlation = m->correlationId;
      a.bytes = m->bytes;
      return a;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* x = static_cast<const CUpti_ActivityExternalCorrelation*>(record);
      a.kind = GpuActivity::Kind::kExternalCorrelation;
      a.name = "external correlation";
      a.correlation = x->correlationId;
      a.external_id = x->externalId;
      return a;
    }
    default:
      return NotFound("activity kind " + std::to_string(static_cast<int>(base->kind)) +
                      " is not traced");
  }
}

namespace {

// The CUPTI entry points the tracer uses.
struct CuptiApi {
  CUptiResult (*activity_enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*activity_disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                    CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*get_next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*get_num_dropped)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*get_timestamp)(uint64_t*) = nullptr;
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
  // Optional: library calls' kernels are attributed only when both are there.
  CUptiResult (*push_external)(CUpti_ExternalCorrelationKind, uint64_t) = nullptr;
  CUptiResult (*pop_external)(CUpti_ExternalCorrelationKind, uint64_t*) = nullptr;
};

struct LoadedCupti {
  CuptiApi api;
  Status status;
};

LoadedCupti LoadCuptiOnce() {
  LoadedCupti loaded;
  dlerror();
  void* library = dlopen("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  std::string why;
  if (library == nullptr) {
    const char* e = dlerror();
    why = e != nullptr ? e : "unknown dlopen error";
    library = dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  }
#ifdef FUSEBOX_CUPTI_LIBRARY
  // Where the build found it, for machines whose loader path lacks the toolkit.
  if (library == nullptr) library = dlopen(FUSEBOX_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
#endif
  if (library == nullptr) {
    loaded.status = Unavailable("CUPTI unavailable: libcupti.so.13 not found: " + why);
    return loaded;
  }
  // Never dlclose'd: CUPTI keeps threads and callbacks into this process.
  CuptiApi& a = loaded.api;
  std::string missing;
  auto need = [&](const char* name, auto* out) {
    *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(dlsym(library, name));
    if (*out == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need("cuptiActivityEnable", &a.activity_enable);
  need("cuptiActivityDisable", &a.activity_disable);
  need("cuptiActivityRegisterCallbacks", &a.register_callbacks);
  need("cuptiActivityFlushAll", &a.flush_all);
  need("cuptiActivityGetNextRecord", &a.get_next_record);
  need("cuptiActivityGetNumDroppedRecords", &a.get_num_dropped);
  need("cuptiGetTimestamp", &a.get_timestamp);
  a.get_result_string = reinterpret_cast<CUptiResult (*)(CUptiResult, const char**)>(
      dlsym(library, "cuptiGetResultString"));
  a.push_external = reinterpret_cast<CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t)>(
      dlsym(library, "cuptiActivityPushExternalCorrelationId"));
  a.pop_external = reinterpret_cast<CUptiResult (*)(CUpti_ExternalCorrelationKind, uint64_t*)>(
      dlsym(library, "cuptiActivityPopExternalCorrelationId"));
  if (!missing.empty()) loaded.status = Unavailable("CUPTI unavailable: libcupti lacks " + missing);
  return loaded;
}

const LoadedCupti& Cupti() {
  // Never destroyed: CUPTI may still call the buffer callback during exit.
  static const LoadedCupti* loaded = new LoadedCupti(LoadCuptiOnce());
  return *loaded;
}

std::string CuptiError(std::string_view call, CUptiResult result) {
  std::string name;
  const char* text = nullptr;
  if (Cupti().api.get_result_string != nullptr &&
      Cupti().api.get_result_string(result, &text) == CUPTI_SUCCESS && text != nullptr) {
    name = text;
  } else {
    name = result == CUPTI_ERROR_UNKNOWN ? "CUPTI_ERROR_UNKNOWN" : "CUPTI error";
  }
  std::string out =
      std::string(call) + ": " + name + " (" + std::to_string(static_cast<int>(result)) + ")";
  if (result == CUPTI_ERROR_UNKNOWN) out += "; no GPU or CUDA driver?";
  return out;
}

constexpr size_t kBufferBytes = 4 << 20;
constexpr std::align_val_t kBufferAlignment{8};

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *max_records = 0;  // as many as fit
  *buffer = static_cast<uint8_t*>(::operator new(kBufferBytes, kBufferAlignment, std::nothrow));
  *size = *buffer != nullptr ? kBufferBytes : 0;
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t /*size*/,
                              size_t valid) {
  std::vector<GpuActivity> activities;
  const CuptiApi& api = Cupti().api;
  if (buffer != nullptr && valid > 0) {
    CUpti_Activity* record = nullptr;
    // Ends with CUPTI_ERROR_MAX_LIMIT_REACHED once the buffer is read.
    while (api.get_next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
      auto decoded = DecodeCuptiRecord(record);
      if (decoded.ok()) activities.push_back(std::move(*decoded));
    }
  }
  size_t dropped = 0;
  if (api.get_num_dropped(context, stream, &dropped) != CUPTI_SUCCESS) dropped = 0;
  ::operator delete(buffer, kBufferAlignment);
  std::lock_guard<std::mutex> lock(g_active_mu);
  if (g_active != nullptr)
    g_active->AddActivities(std::move(activities), static_cast<int64_t>(dropped));
}

}  // namespace

StatusOr<std::pair<uint64_t, int64_t>> CuptiTracer::SampleClocks() const {
  const LoadedCupti& cupti = Cupti();
  if (!cupti.status.ok()) return cupti.status;
  uint64_t gpu = 0;
  const int64_t before = NowNs();
  CUptiResult result = cupti.api.get_timestamp(&gpu);
  const int64_t after = NowNs();
  if (result != CUPTI_SUCCESS)
    return Unavailable("CUPTI unavailable: " + CuptiError("cuptiGetTimestamp", result));
  return std::make_pair(gpu, before + (after - before) / 2);
}

Status CuptiTracer::Start() {
  {
    std::lock_guard<std::mutex> lock(g_active_mu);
    if (g_active == this) return Status::Ok();
    if (g_active != nullptr)
      return Unavailable("CUPTI unavailable: another CUPTI tracer is active");
    g_active = this;  // claimed; released below on failure
  }
  auto release = [this](Status why) {
    std::lock_guard<std::mutex> lock(g_active_mu);
    if (g_active == this) g_active = nullptr;
    return why;
  };
  const LoadedCupti& cupti = Cupti();
  if (!cupti.status.ok()) return release(cupti.status);
  const CuptiApi& api = cupti.api;
  CUptiResult result = api.register_callbacks(BufferRequested, BufferCompleted);
  if (result != CUPTI_SUCCESS) {
    return release(
        Unavailable("CUPTI unavailable: " + CuptiError("cuptiActivityRegisterCallbacks", result)));
  }
  CUpti_ActivityKind kernel_kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  result = api.activity_enable(kernel_kind);
  if (result != CUPTI_SUCCESS) {
    // The serializing KERNEL kind works on some setups where the concurrent one does not.
    kernel_kind = CUPTI_ACTIVITY_KIND_KERNEL;
    if (api.activity_enable(kernel_kind) != CUPTI_SUCCESS) {
      return release(Unavailable("CUPTI unavailable: " +
                                 CuptiError("cuptiActivityEnable(CONCURRENT_KERNEL)", result)));
    }
  }
  result = api.activity_enable(CUPTI_ACTIVITY_KIND_MEMCPY);
  if (result != CUPTI_SUCCESS) {
    api.activity_disable(kernel_kind);
    return release(
        Unavailable("CUPTI unavailable: " + CuptiError("cuptiActivityEnable(MEMCPY)", result)));
  }
  // Which kernels a library (cuBLAS) launched for which HLO instruction; without these
  // records its kernels are in the trace under their own names only.
  // CUPTI writes a correlation record only in front of an API record, so the runtime and
  // driver API kinds are enabled too (their records are read and dropped).
  bool external = api.push_external != nullptr && api.pop_external != nullptr &&
                  api.activity_enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) == CUPTI_SUCCESS;
  if (external) {
    const bool runtime = api.activity_enable(CUPTI_ACTIVITY_KIND_RUNTIME) == CUPTI_SUCCESS;
    const bool driver = api.activity_enable(CUPTI_ACTIVITY_KIND_DRIVER) == CUPTI_SUCCESS;
    if (!runtime && !driver) {
      api.activity_disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
      external = false;
    }
  }
  auto sample = SampleClocks();
  if (!sample.ok()) {
    if (external) {
      api.activity_disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
      api.activity_disable(CUPTI_ACTIVITY_KIND_RUNTIME);
      api.activity_disable(CUPTI_ACTIVITY_KIND_DRIVER);
    }
    api.activity_disable(kernel_kind);
    api.activity_disable(CUPTI_ACTIVITY_KIND_MEMCPY);
    return release(sample.status());
  }
  std::lock_guard<std::mutex> lock(mu_);
  started_ = true;
  kernel_kind_ = static_cast<int>(kernel_kind);
  clock_ = ClockMapping::FromSample(sample->first, sample->second);
  have_clock_ = true;
  return Status::Ok();
}

Status CuptiTracer::Flush(bool forced) {
  const LoadedCupti& cupti = Cupti();
  if (!cupti.status.ok()) return cupti.status;
  // The completed callback runs for every returned buffer before this returns. Unforced,
  // CUPTI keeps buffers with records still in flight; forced, it hands over everything.
  CUptiResult result = cupti.api.flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  if (result != CUPTI_SUCCESS) return Internal(CuptiError("cuptiActivityFlushAll", result));
  auto sample = SampleClocks();
  if (!sample.ok()) return sample.status();
  std::lock_guard<std::mutex> lock(mu_);
  clock_ = clock_.WithSecondSample(sample->first, sample->second);
  return Status::Ok();
}

Status CuptiTracer::Stop() {
  int kernel_kind;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_) return Status::Ok();
    kernel_kind = kernel_kind_;
  }
  Status flushed = Flush(/*forced=*/true);
  const CuptiApi& api = Cupti().api;
  api.activity_disable(static_cast<CUpti_ActivityKind>(kernel_kind));
  api.activity_disable(CUPTI_ACTIVITY_KIND_MEMCPY);
  // Harmless when not enabled.
  api.activity_disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  api.activity_disable(CUPTI_ACTIVITY_KIND_RUNTIME);
  api.activity_disable(CUPTI_ACTIVITY_KIND_DRIVER);
  // Records completed between the flush and the disable.
  api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  {
    std::lock_guard<std::mutex> lock(g_active_mu);
    if (g_active == this) g_active = nullptr;
  }
  std::lock_guard<std::mutex> lock(mu_);
  started_ = false;
  return flushed;
}

namespace {
void PushExternal(uint64_t id, bool* pushed) {
  const LoadedCupti& cupti = Cupti();
  *pushed = cupti.status.ok() && cupti.api.push_external != nullptr &&
            cupti.api.push_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) == CUPTI_SUCCESS;
}
void PopExternal() {
  uint64_t last = 0;
  const LoadedCupti& cupti = Cupti();
  if (cupti.api.pop_external != nullptr) cupti.api.pop_external(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}
}  // namespace

#endif  // FUSEBOX_HAVE_CUPTI_HEADERS

#ifndef FUSEBOX_HAVE_CUPTI_HEADERS
namespace {
void PushExternal(uint64_t, bool* pushed) { *pushed = false; }
void PopExternal() {}
}  // namespace
#endif

void CuptiTracer::OnLibraryCallBegin(const KernelLaunch& call) {
  std::lock_guard<std::mutex> lock(mu_);
  KernelAnnotation a;
  a.hlo = std::string(call.hlo);
  a.computation = std::string(call.computation);
  a.kind = std::string(call.kind);
  a.bytes_read = call.bytes_read;
  a.bytes_written = call.bytes_written;
  a.flops = call.flops;
  const uint64_t id = next_external_id_++;
  library_calls_[id] = std::move(a);
  if (started_) PushExternal(id, &external_pushed_);
}

void CuptiTracer::OnLibraryCallEnd() {
  std::lock_guard<std::mutex> lock(mu_);
  if (external_pushed_) PopExternal();
  external_pushed_ = false;
}

CuptiTracer::CuptiTracer() = default;

CuptiTracer::~CuptiTracer() {
  Status stopped = CuptiTracer::Stop();  // this class's own: a subclass is gone by now
  (void)stopped;  // nothing to tell anyone at destruction
}

void CuptiTracer::SetAnnotations(KernelAnnotations annotations) {
  std::lock_guard<std::mutex> lock(mu_);
  annotations_ = std::move(annotations);
}

void CuptiTracer::SetClockMapping(const ClockMapping& clock) {
  std::lock_guard<std::mutex> lock(mu_);
  clock_ = clock;
  have_clock_ = true;
}

bool CuptiTracer::started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

int64_t CuptiTracer::dropped_records() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void CuptiTracer::AddActivities(std::vector<GpuActivity> activities, int64_t dropped) {
  std::lock_guard<std::mutex> lock(mu_);
  dropped_ += dropped;
  for (GpuActivity& a : activities) activities_.push_back(std::move(a));
}

void CuptiTracer::OnRunStart(int64_t iteration, int64_t start_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  open_runs_[iteration] = start_ns;
  current_iteration_ = iteration;
}

void CuptiTracer::OnRunEnd(int64_t iteration, int64_t end_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t start_ns = end_ns;
  auto it = open_runs_.find(iteration);
  if (it != open_runs_.end()) {
    start_ns = it->second;
    open_runs_.erase(it);
  }
  runs_.push_back(RunWindow{iteration, start_ns, end_ns});
  TraceEvent e;
  e.name = "run " + std::to_string(iteration);
  e.category = std::string(kCategoryRun);
  e.track = trace_.FindOrAddTrack("CPU", "runs");
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.iteration = iteration;
  trace_.AddEvent(std::move(e));
}

void CuptiTracer::OnKernel(const KernelLaunch&, int64_t, int64_t, int) {
  // Kernels come from CUPTI, with device timestamps; host-side reports would count twice.
}

void CuptiTracer::OnHostWork(std::string_view what, int64_t start_ns, int64_t end_ns) {
  TraceEvent e;
  e.name = std::string(what);
  e.category = std::string(kCategoryHost);
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  std::lock_guard<std::mutex> lock(mu_);
  e.track = trace_.FindOrAddTrack("CPU", "host");
  e.iteration = current_iteration_;
  trace_.AddEvent(std::move(e));
}

Trace CuptiTracer::TakeTrace() {
  if (started()) {
    Status flushed = Flush(/*forced=*/false);
    (void)flushed;  // what was delivered is still worth returning
  }
  Trace out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<RunWindow> windows = runs_;
    for (const auto& [iteration, start] : open_runs_) {
      windows.push_back(RunWindow{iteration, start, std::numeric_limits<int64_t>::max()});
    }
    // Kernels a library launched: CUDA correlation id -> the library call's annotation
    // (by the external id pushed around it). A call's work and traffic go on its first
    // kernel only, as for Fusebox's kernels with several launches.
    std::map<uint32_t, uint64_t> external;
    for (const GpuActivity& a : activities_) {
      if (a.kind == GpuActivity::Kind::kExternalCorrelation) external[a.correlation] = a.external_id;
    }
    std::set<uint64_t> charged;
    for (const GpuActivity& a : activities_) {
      if (a.kind == GpuActivity::Kind::kExternalCorrelation) continue;
      if (a.start == 0 || a.end < a.start || !have_clock_) continue;  // incomplete record
      const int64_t start = clock_.ToHostNs(a.start);
      TraceEvent e = ActivityToEvent(a, clock_, annotations_, IterationAt(windows, start));
      auto ext = a.kind == GpuActivity::Kind::kKernel ? external.find(a.correlation) : external.end();
      if (ext != external.end() && e.hlo.empty()) {
        auto call = library_calls_.find(ext->second);
        if (call != library_calls_.end()) {
          const bool first = charged.insert(ext->second).second;
          e.hlo = call->second.hlo;
          e.computation = call->second.computation;
          e.kind = call->second.kind;
          e.bytes_read = first ? call->second.bytes_read : 0;
          e.bytes_written = first ? call->second.bytes_written : 0;
          e.flops = first ? call->second.flops : 0;
        }
      }
      e.track = trace_.FindOrAddTrack("GPU " + std::to_string(a.device),
                                      "stream " + std::to_string(a.stream));
      trace_.AddEvent(std::move(e));
    }
    activities_.clear();
    library_calls_.clear();
    out = std::move(trace_);
    trace_ = Trace();
  }
  out.SortEvents();
  return out;
}

FinishedTrace StopAndTakeTrace(CuptiTracer& tracer) {
  FinishedTrace out;
  out.stopped = tracer.Stop();
  out.trace = tracer.TakeTrace();
  return out;
}

}  // namespace fusebox::profiler
