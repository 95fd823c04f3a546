// A small RAII wrapper over the CUDA driver API, loaded at run time with dlopen so one
// Fusebox binary builds and runs on machines with and without a GPU. This header needs no
// CUDA header: handles are opaque and device addresses are plain integers.
//
// Every failing driver call becomes a Status naming the call and the error, e.g.
// "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (218): <JIT error log>". A machine without
// libcuda gives "no CUDA driver (...)"; one with a driver but no usable device gives
// "no CUDA device (...)". See docs/gpu-runtime.md.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/runtime/host_staging.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

// A device address (CUdeviceptr). 0 is "no buffer".
using DevicePtr = uint64_t;

// The driver's name for a CUresult code ("CUDA_ERROR_INVALID_PTX"), from Fusebox's own
// table; an unknown code gives "CUDA_ERROR_<code>_UNRECOGNIZED".
std::string CudaErrorName(int code);
// "<call>: <name> (<code>)" and ": <detail>" when there is one.
std::string FormatCudaError(std::string_view call, int code, std::string_view detail = {});
// Whether cuda_driver.cc was compiled against the CUDA headers (otherwise every call
// reports "built without CUDA headers").
bool BuiltWithCudaHeaders();

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;       // "NVIDIA H100 80GB HBM3"
  int compute_major = 0;  // 9 for sm_90
  int compute_minor = 0;
  int64_t total_memory_bytes = 0;
  int driver_version = 0;  // 13000 for CUDA 13.0
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int max_shared_bytes_per_block = 0;        // without opting in (48 KiB)
  int max_shared_bytes_per_block_optin = 0;  // with cuFuncSetAttribute
  // For the roofline's data-sheet figures; 0 where the driver does not say.
  int clock_khz = 0;          // the SMs' typical clock
  int memory_clock_khz = 0;   // peak memory clock
  int memory_bus_bits = 0;    // global memory bus width

  // "sm_90"
  std::string arch() const;
  // "NVIDIA H100 80GB HBM3 (sm_90, 79.1 GiB, 132 SMs, driver 13.0)"
  std::string ToString() const;
};

// How many devices the driver sees, after cuInit. Errors: "no CUDA driver (...)" when
// libcuda cannot be loaded, "no CUDA device (cuInit: ...)" when cuInit fails,
// "no CUDA device (0 devices)" when it finds none.
StatusOr<int> CudaDeviceCount();
// Describes device `ordinal` (same errors, plus an out-of-range ordinal).
StatusOr<CudaDeviceInfo> DiscoverCudaDevice(int ordinal = 0);

class CudaContext;

// What a library's autotuning did for one call: whether it timed the candidates, whether
// it moved away from the heuristic's first choice, and in words (the choice and its time,
// or why it did not run). Empty when autotuning was off. `cached`: the choice came from
// the autotune cache (autotune_cache.h: an earlier call of the same problem, in this
// process or a loaded cache file) and was checked against the library, not timed again.
struct AlgorithmTuning {
  bool ran = false;
  bool moved = false;
  bool cached = false;
  std::string text;
};

// One device allocation; freed when destroyed. Move-only. Its context must outlive it.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  DevicePtr ptr() const { return ptr_; }
  int64_t size() const { return size_; }
  explicit operator bool() const { return ptr_ != 0; }

 private:
  friend class CudaContext;
  DeviceBuffer(CudaContext* context, DevicePtr ptr, int64_t size)
      : context_(context), ptr_(ptr), size_(size) {}
  void Reset();

  CudaContext* context_ = nullptr;
  DevicePtr ptr_ = 0;
  int64_t size_ = 0;
};

// A kernel entry point of a loaded module (a CUfunction). Valid while its module lives.
struct CudaFunction {
  void* handle = nullptr;
  std::string name;
};

// What an entry of a loaded module uses (cuFuncGetAttribute).
struct CudaFunctionAttributes {
  int64_t registers = 0;     // a thread
  int64_t shared_bytes = 0;  // static shared memory a block
  int64_t local_bytes = 0;   // local memory a thread (spills, stack arrays)
};

// A loaded module (cubin or PTX); unloaded when destroyed. Its context must outlive it.
class CudaModule {
 public:
  ~CudaModule();
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  StatusOr<CudaFunction> GetFunction(const std::string& name) const;
  StatusOr<CudaFunctionAttributes> Attributes(const std::string& name) const;
  // What the JIT said while loading PTX (register use, warnings); may be empty.
  const std::string& info_log() const { return info_log_; }

 private:
  friend class CudaContext;
  CudaModule(CudaContext* context, void* handle) : context_(context), handle_(handle) {}

  CudaContext* context_;
  void* handle_;
  std::string info_log_;
};

// The primary context of one device, made current on whichever thread calls in, and one
// stream that every launch goes to. The stream is a blocking one, so the synchronous
// copies below (legacy default stream) are ordered after the kernels launched before them,
// and so are the staged copies (queued on the stream itself).
class CudaContext {
 public:
  static StatusOr<std::unique_ptr<CudaContext>> Create(int ordinal = 0);
  ~CudaContext();  // synchronizes, destroys the stream, releases the primary context
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  const CudaDeviceInfo& device() const { return device_; }

  // `bytes` of device memory (at least 1 byte is allocated; 256-byte aligned).
  StatusOr<DeviceBuffer> Allocate(int64_t bytes);
  // Copies that wait for the kernels launched before them and return with `src` free to
  // reuse (upload) or `dst` filled (download). From 256 KiB on they go through the
  // context's pinned staging slots (host_staging.h) unless set_host_staging(kPageable);
  // an upload's last chunks may then still be in flight, ahead of anything queued next.
  Status CopyHostToDevice(DevicePtr dst, const void* src, int64_t bytes);
  Status CopyDeviceToHost(void* dst, DevicePtr src, int64_t bytes);
  Status CopyDeviceToDevice(DevicePtr dst, DevicePtr src, int64_t bytes);
  Status Memset(DevicePtr dst, uint8_t value, int64_t bytes);

  // Loads PTX text (JIT-compiled by the driver for this device; the error log of a failed
  // JIT is in the message) or a cubin image.
  StatusOr<std::unique_ptr<CudaModule>> LoadPtx(const std::string& ptx);
  StatusOr<std::unique_ptr<CudaModule>> LoadCubin(const std::vector<uint8_t>& cubin);

  // Lets `function` use up to `bytes` of dynamic shared memory (needed above 48 KiB).
  Status SetMaxDynamicSharedMemory(const CudaFunction& function, int64_t bytes);
  // Queues one launch on the context's stream. `params[i]` points at the value of kernel
  // parameter i (a DevicePtr for a buffer, an int64_t for a scalar).
  Status Launch(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                const std::array<int64_t, 3>& block, int64_t shared_bytes, void** params);
  // Waits for everything queued in the context (the stream and the legacy default
  // stream's copies and memsets). A kernel's asynchronous fault surfaces here.
  Status Synchronize();

  // Milliseconds of the work `enqueue` queues on the context's stream, between events
  // recorded before and after it (waits for that work). The device's time alone: a delay
  // kernel (TimingDelayKernelPtx) holds the stream while the host queues the work, so that
  // the work runs back to back and the host's time in the library calls (tens of
  // microseconds a cuDNN call, more than its kernel) is not counted. Where the delay
  // cannot run, or the queueing outlasts it, the time includes the host's; timing_stats()
  // counts both.
  StatusOr<double> TimeOnStream(const std::function<Status()>& enqueue);
  struct TimingStats {
    int64_t delayed = 0;     // timed behind the delay kernel: device time only
    int64_t host_waits = 0;  // the queueing outlasted the delay: the host's time counted
    int64_t undelayed = 0;   // no delay kernel (why_undelayed): the host's time counted
    std::string why_undelayed;
  };
  const TimingStats& timing_stats() const { return timing_stats_; }
  // Buffers of `bytes` each, every byte `value`, the fills finished: the inputs and
  // outputs of a library call timed before the run's buffers exist (autotuning).
  StatusOr<std::vector<DeviceBuffer>> AllocateFilled(const std::vector<int64_t>& bytes, uint8_t value);

  // For NVIDIA's libraries (cuBLAS): makes the context current on this thread and
  // returns its stream (a CUstream), so library work queues behind the kernels.
  StatusOr<void*> CurrentStream();

  // Pinned staging (the default) or the driver's pageable calls for the copies above.
  void set_host_staging(HostStaging mode);
  HostStaging host_staging() const { return host_staging_; }
  // Why pinned staging fell back to pageable copies ("pinned host staging unavailable
  // (cuMemHostAlloc: ...); ..."); empty when it did not.
  std::string host_staging_note() const;

 private:
  friend class DeviceBuffer;
  friend class CudaModule;
  CudaContext() = default;
  Status MakeCurrent();
  StatusOr<std::unique_ptr<CudaModule>> LoadImage(const void* image, bool is_ptx);
  void Free(DevicePtr ptr);

  CudaDeviceInfo device_;
  int device_handle_ = 0;    // CUdevice
  void* context_ = nullptr;  // CUcontext (the primary context)
  void* stream_ = nullptr;   // CUstream
  HostStaging host_staging_ = HostStaging::kPinned;
  // The staging slots and their events (allocated on the first large copy); released
  // before the stream and the context.
  std::unique_ptr<StagingQueue> staging_queue_;
  std::unique_ptr<StagingPipeline> staging_;
  // TimeOnStream's delay kernel and its flag (made on the first timing); released before
  // the stream and the context.
  struct TimingDelay;
  Status PrepareTimingDelay();
  std::unique_ptr<TimingDelay> timing_delay_;
  TimingStats timing_stats_;
};

// The PTX of TimeOnStream's delay kernel, `fusebox_timing_delay(flag, timeout_ns)`: one
// thread that spins until the host sets flag[0] (host memory mapped into the device) or
// `timeout_ns` of the device's global timer pass, when it sets flag[1].
std::string_view TimingDelayKernelPtx();
inline constexpr char kTimingDelayKernelName[] = "fusebox_timing_delay";
// How long the delay waits for the host to queue one timing (a timing's queueing is well
// under a millisecond; a library call that waits for the device inside it would hang here
// without a limit).
inline constexpr int64_t kTimingDelayTimeoutNs = 20'000'000;

}  // namespace fusebox::runtime
