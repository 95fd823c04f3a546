// The CUDA driver wrapper: dlopen("libcuda.so.1"), dlsym of the versioned entry points,
// and Status messages for every failing call. cuda.h supplies only types and enums; when
// it is absent at build time every entry point reports "built without CUDA headers".
#include "compiler/runtime/cuda_driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <limits>
#include <mutex>
#include <utility>

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#include <cuda.h>
#endif

namespace fusebox::runtime {

// Written for this file (no compiler makes it): a spin on a volatile load of host memory,
// the global timer checked every pass, a short nanosleep between passes (sm_70 and later)
// so the poll does not flood the bus.
std::string_view TimingDelayKernelPtx() {
  static constexpr char kPtx[] = R"(.version 7.8
.target sm_75
.address_size 64

.visible .entry fusebox_timing_delay(
  .param .u64 fusebox_timing_delay_flag,
  .param .u64 fusebox_timing_delay_timeout
)
{
  .reg .pred %p<3>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<7>;

  ld.param.u64 %rd1, [fusebox_timing_delay_flag];
  ld.param.u64 %rd2, [fusebox_timing_delay_timeout];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u64 %rd3, %globaltimer;
WAIT:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u64 %rd4, %globaltimer;
  sub.u64 %rd5, %rd4, %rd3;
  setp.ge.u64 %p2, %rd5, %rd2;
  @%p2 bra TIMED_OUT;
  nanosleep.u32 100;
  bra WAIT;
TIMED_OUT:
  mov.u32 %r2, 1;
  st.volatile.global.u32 [%rd1+4], %r2;
DONE:
  ret;
}
)";
  return kPtx;
}

namespace {

struct ErrorName {
  int code;
  const char* name;
};

// CUresult codes as the CUDA 13 driver defines them; kept here so that messages name the
// error even when cuGetErrorName is missing (or the library is not a driver at all).
constexpr ErrorName kErrorNames[] = {
    {0, "CUDA_SUCCESS"},
    {1, "CUDA_ERROR_INVALID_VALUE"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY"},
    {3, "CUDA_ERROR_NOT_INITIALIZED"},
    {4, "CUDA_ERROR_DEINITIALIZED"},
    {5, "CUDA_ERROR_PROFILER_DISABLED"},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED"},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED"},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED"},
    {34, "CUDA_ERROR_STUB_LIBRARY"},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
    {100, "CUDA_ERROR_NO_DEVICE"},
    {101, "CUDA_ERROR_INVALID_DEVICE"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
    {200, "CUDA_ERROR_INVALID_IMAGE"},
    {201, "CUDA_ERROR_INVALID_CONTEXT"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT"},
    {205, "CUDA_ERROR_MAP_FAILED"},
    {206, "CUDA_ERROR_UNMAP_FAILED"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED"},
    {208, "CUDA_ERROR_ALREADY_MAPPED"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED"},
    {211, "CUDA_ERROR_NOT_MAPPED"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
    {218, "CUDA_ERROR_INVALID_PTX"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC"},
    {226, "CUDA_ERROR_CONTAINED"},
    {300, "CUDA_ERROR_INVALID_SOURCE"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM"},
    {400, "CUDA_ERROR_INVALID_HANDLE"},
    {401, "CUDA_ERROR_ILLEGAL_STATE"},
    {402, "CUDA_ERROR_LOSSY_QUERY"},
    {500, "CUDA_ERROR_NOT_FOUND"},
    {600, "CUDA_ERROR_NOT_READY"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED"},
    {710, "CUDA_ERROR_ASSERT"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE"},
    {718, "CUDA_ERROR_INVALID_PC"},
    {719, "CUDA_ERROR_LAUNCH_FAILED"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"},
    {721, "CUDA_ERROR_TENSOR_MEMORY_LEAK"},
    {800, "CUDA_ERROR_NOT_PERMITTED"},
    {801, "CUDA_ERROR_NOT_SUPPORTED"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE"},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY"},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED"},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED"},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED"},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED"},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT"},
    {907, "CUDA_ERROR_CAPTURED_EVENT"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD"},
    {909, "CUDA_ERROR_TIMEOUT"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE"},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE"},
    {912, "CUDA_ERROR_INVALID_CLUSTER_SIZE"},
    {913, "CUDA_ERROR_FUNCTION_NOT_LOADED"},
    {914, "CUDA_ERROR_INVALID_RESOURCE_TYPE"},
    {915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION"},
    {916, "CUDA_ERROR_KEY_ROTATION"},
    {999, "CUDA_ERROR_UNKNOWN"},
};

const char* KnownErrorName(int code) {
  for (const ErrorName& e : kErrorNames) {
    if (e.code == code) return e.name;
  }
  return nullptr;
}

}  // namespace

std::string CudaErrorName(int code) {
  const char* known = KnownErrorName(code);
  if (known != nullptr) return known;
  return "CUDA_ERROR_" + std::to_string(code) + "_UNRECOGNIZED";
}

std::string FormatCudaError(std::string_view call, int code, std::string_view detail) {
  std::string out =
      std::string(call) + ": " + CudaErrorName(code) + " (" + std::to_string(code) + ")";
  if (!detail.empty()) out += ": " + std::string(detail);
  return out;
}

std::string CudaDeviceInfo::arch() const {
  return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
}

std::string CudaDeviceInfo::ToString() const {
  char memory[32];
  std::snprintf(memory, sizeof(memory), "%.1f GiB",
                static_cast<double>(total_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  return name + " (" + arch() + ", " + memory + ", " + std::to_string(multiprocessors) +
         " SMs, driver " + std::to_string(driver_version / 1000) + "." +
         std::to_string(driver_version % 1000 / 10) + ")";
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : context_(std::exchange(other.context_, nullptr)),
      ptr_(std::exchange(other.ptr_, 0)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    context_ = std::exchange(other.context_, nullptr);
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Reset(); }

void DeviceBuffer::Reset() {
  if (context_ != nullptr && ptr_ != 0) context_->Free(ptr_);
  context_ = nullptr;
  ptr_ = 0;
  size_ = 0;
}

void CudaContext::set_host_staging(HostStaging mode) {
  host_staging_ = mode;
  if (staging_ != nullptr) staging_->set_mode(mode);
}

std::string CudaContext::host_staging_note() const {
  return staging_ != nullptr ? staging_->note() : std::string();
}

#ifndef FUSEBOX_HAVE_CUDA_HEADERS

// Built without cuda.h: nothing can be loaded, and every entry point says why.
namespace {
Status NoHeaders() {
  return Unavailable(
      "no CUDA driver (Fusebox was built without CUDA headers: reconfigure with the CUDA toolkit)");
}
}  // namespace

bool BuiltWithCudaHeaders() { return false; }
StatusOr<int> CudaDeviceCount() { return NoHeaders(); }
StatusOr<CudaDeviceInfo> DiscoverCudaDevice(int) { return NoHeaders(); }
CudaModule::~CudaModule() = default;
StatusOr<CudaFunction> CudaModule::GetFunction(const std::string&) const { return NoHeaders(); }
StatusOr<CudaFunctionAttributes> CudaModule::Attributes(const std::string&) const { return NoHeaders(); }
StatusOr<std::unique_ptr<CudaContext>> CudaContext::Create(int) { return NoHeaders(); }
struct CudaContext::TimingDelay {};
CudaContext::~CudaContext() = default;
StatusOr<DeviceBuffer> CudaContext::Allocate(int64_t) { return NoHeaders(); }
Status CudaContext::CopyHostToDevice(DevicePtr, const void*, int64_t) { return NoHeaders(); }
Status CudaContext::CopyDeviceToHost(void*, DevicePtr, int64_t) { return NoHeaders(); }
Status CudaContext::CopyDeviceToDevice(DevicePtr, DevicePtr, int64_t) { return NoHeaders(); }
Status CudaContext::Memset(DevicePtr, uint8_t, int64_t) { return NoHeaders(); }
StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadPtx(const std::string&) {
  return NoHeaders();
}
StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadCubin(const std::vector<uint8_t>&) {
  return NoHeaders();
}
Status CudaContext::SetMaxDynamicSharedMemory(const CudaFunction&, int64_t) { return NoHeaders(); }
Status CudaContext::Launch(const CudaFunction&, const std::array<int64_t, 3>&,
                           const std::array<int64_t, 3>&, int64_t, void**) {
  return NoHeaders();
}
Status CudaContext::Synchronize() { return NoHeaders(); }
StatusOr<double> CudaContext::TimeOnStream(const std::function<Status()>&) { return NoHeaders(); }
Status CudaContext::PrepareTimingDelay() { return NoHeaders(); }
StatusOr<std::vector<DeviceBuffer>> CudaContext::AllocateFilled(const std::vector<int64_t>&, uint8_t) {
  return NoHeaders();
}
StatusOr<void*> CudaContext::CurrentStream() { return NoHeaders(); }
Status CudaContext::MakeCurrent() { return NoHeaders(); }
StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadImage(const void*, bool) {
  return NoHeaders();
}
void CudaContext::Free(DevicePtr) {}

#else  // FUSEBOX_HAVE_CUDA_HEADERS

namespace {

// The driver entry points Fusebox uses, resolved by their versioned names (the names
// cuda.h's macros map the plain names to), so no libcuda is needed at link time.
struct CudaApi {
  CUresult (*init)(unsigned int) = nullptr;
  CUresult (*driver_get_version)(int*) = nullptr;
  CUresult (*device_get)(CUdevice*, int) = nullptr;
  CUresult (*device_get_count)(int*) = nullptr;
  CUresult (*device_get_name)(char*, int, CUdevice) = nullptr;
  CUresult (*device_get_attribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*device_total_mem)(size_t*, CUdevice) = nullptr;
  CUresult (*primary_ctx_retain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*primary_ctx_release)(CUdevice) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*ctx_synchronize)() = nullptr;
  CUresult (*mem_alloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*mem_free)(CUdeviceptr) = nullptr;
  CUresult (*memcpy_htod)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*memcpy_dtoh)(void*, CUdeviceptr, size_t) = nullptr;
  CUresult (*memcpy_dtod)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
  CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  CUresult (*module_load_data_ex)(CUmodule*, const void*, unsigned int, CUjit_option*,
                                  void**) = nullptr;
  CUresult (*module_unload)(CUmodule) = nullptr;
  CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*func_set_attribute)(CUfunction, CUfunction_attribute, int) = nullptr;
  CUresult (*func_get_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
  CUresult (*launch_kernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                            unsigned int, unsigned int, unsigned int, CUstream, void**,
                            void**) = nullptr;
  CUresult (*stream_create)(CUstream*, unsigned int) = nullptr;
  CUresult (*stream_destroy)(CUstream) = nullptr;
  CUresult (*stream_synchronize)(CUstream) = nullptr;
  // Optional: used when present.
  CUresult (*get_error_name)(CUresult, const char**) = nullptr;
  // Optional, for pinned staging (host_staging.h); a driver without them copies through
  // pageable memory, with a note.
  CUresult (*mem_host_alloc)(void**, size_t, unsigned int) = nullptr;
  CUresult (*mem_free_host)(void*) = nullptr;
  CUresult (*mem_host_get_device_pointer)(CUdeviceptr*, void*, unsigned int) = nullptr;  // the delay's flag
  CUresult (*memcpy_htod_async)(CUdeviceptr, const void*, size_t, CUstream) = nullptr;
  CUresult (*memcpy_dtoh_async)(void*, CUdeviceptr, size_t, CUstream) = nullptr;
  CUresult (*event_create)(CUevent*, unsigned int) = nullptr;
  CUresult (*event_record)(CUevent, CUstream) = nullptr;
  CUresult (*event_synchronize)(CUevent) = nullptr;
  CUresult (*event_destroy)(CUevent) = nullptr;
  CUresult (*event_elapsed)(float*, CUevent, CUevent) = nullptr;
};

struct LoadedApi {
  CudaApi api;
  Status status;  // why the driver is unusable, or OK
};

template <typename Fn>
void Resolve(void* library, const char* name, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, name));
}

LoadedApi LoadApiOnce() {
  LoadedApi loaded;
  dlerror();
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* first = dlerror();
    std::string why = first != nullptr ? first : "unknown dlopen error";
    library = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      loaded.status = Unavailable("no CUDA driver (libcuda.so.1 not found: " + why + ")");
      return loaded;
    }
  }
  // Never dlclose'd: the driver keeps threads and state for the life of the process.
  CudaApi& a = loaded.api;
  struct Required {
    const char* name;
    bool present;
  };
  std::vector<Required> required;
  auto need = [&](const char* name, auto* out) {
    Resolve(library, name, out);
    required.push_back({name, *out != nullptr});
  };
  need("cuInit", &a.init);
  need("cuDriverGetVersion", &a.driver_get_version);
  need("cuDeviceGet", &a.device_get);
  need("cuDeviceGetCount", &a.device_get_count);
  need("cuDeviceGetName", &a.device_get_name);
  need("cuDeviceGetAttribute", &a.device_get_attribute);
  need("cuDeviceTotalMem_v2", &a.device_total_mem);
  need("cuDevicePrimaryCtxRetain", &a.primary_ctx_retain);
  need("cuDevicePrimaryCtxRelease_v2", &a.primary_ctx_release);
  need("cuCtxSetCurrent", &a.ctx_set_current);
  need("cuCtxSynchronize", &a.ctx_synchronize);
  need("cuMemAlloc_v2", &a.mem_alloc);
  need("cuMemFree_v2", &a.mem_free);
  need("cuMemcpyHtoD_v2", &a.memcpy_htod);
  need("cuMemcpyDtoH_v2", &a.memcpy_dtoh);
  need("cuMemcpyDtoD_v2", &a.memcpy_dtod);
  need("cuMemsetD8_v2", &a.memset_d8);
  need("cuModuleLoadDataEx", &a.module_load_data_ex);
  need("cuModuleUnload", &a.module_unload);
  need("cuModuleGetFunction", &a.module_get_function);
  need("cuFuncSetAttribute", &a.func_set_attribute);
  need("cuFuncGetAttribute", &a.func_get_attribute);
  need("cuLaunchKernel", &a.launch_kernel);
  need("cuStreamCreate", &a.stream_create);
  need("cuStreamDestroy_v2", &a.stream_destroy);
  need("cuStreamSynchronize", &a.stream_synchronize);
  Resolve(library, "cuGetErrorName", &a.get_error_name);
  Resolve(library, "cuMemHostAlloc", &a.mem_host_alloc);
  Resolve(library, "cuMemFreeHost", &a.mem_free_host);
  Resolve(library, "cuMemHostGetDevicePointer_v2", &a.mem_host_get_device_pointer);
  Resolve(library, "cuMemcpyHtoDAsync_v2", &a.memcpy_htod_async);
  Resolve(library, "cuMemcpyDtoHAsync_v2", &a.memcpy_dtoh_async);
  Resolve(library, "cuEventCreate", &a.event_create);
  Resolve(library, "cuEventRecord", &a.event_record);
  Resolve(library, "cuEventSynchronize", &a.event_synchronize);
  Resolve(library, "cuEventDestroy_v2", &a.event_destroy);
  Resolve(library, "cuEventElapsedTime", &a.event_elapsed);
  std::string missing;
  for (const Required& r : required) {
    if (!r.present) missing += (missing.empty() ? "" : ", ") + std::string(r.name);
  }
  if (!missing.empty()) {
    loaded.status = Unavailable("no CUDA driver (the loaded libcuda lacks " + missing + ")");
  }
  return loaded;
}

const LoadedApi& Loaded() {
  // Never destroyed: buffers and contexts held by static objects may be freed at exit.
  static const LoadedApi* loaded = new LoadedApi(LoadApiOnce());
  return *loaded;
}

// The driver's own name for codes the table does not know (newer drivers add codes).
std::string ErrorText(std::string_view call, CUresult result, std::string_view detail = {}) {
  const int code = static_cast<int>(result);
  if (KnownErrorName(code) == nullptr && Loaded().api.get_error_name != nullptr) {
    const char* name = nullptr;
    if (Loaded().api.get_error_name(result, &name) == CUDA_SUCCESS && name != nullptr) {
      std::string out = std::string(call) + ": " + name + " (" + std::to_string(code) + ")";
      if (!detail.empty()) out += ": " + std::string(detail);
      return out;
    }
  }
  return FormatCudaError(call, code, detail);
}

Status CallError(std::string_view call, CUresult result, std::string_view detail = {}) {
  if (result == CUDA_ERROR_OUT_OF_MEMORY) return Unavailable(ErrorText(call, result, detail));
  return Internal(ErrorText(call, result, detail));
}

#define FUSEBOX_CU(call_name, expr)                                    \
  do {                                                                 \
    CUresult _result = (expr);                                         \
    if (_result != CUDA_SUCCESS) return CallError(call_name, _result); \
  } while (0)

// The loaded API after a successful cuInit (run once per process).
StatusOr<const CudaApi*> InitializedApi() {
  const LoadedApi& loaded = Loaded();
  if (!loaded.status.ok()) return loaded.status;
  static const Status init = [&]() -> Status {
    CUresult result = loaded.api.init(0);
    if (result == CUDA_SUCCESS) return Status::Ok();
    if (result == CUDA_ERROR_STUB_LIBRARY) {
      return Unavailable("no CUDA driver (" +
                         ErrorText("cuInit", result,
                                   "the libcuda found is the CUDA toolkit's stub, not a driver") +
                         ")");
    }
    return Unavailable("no CUDA device (" + ErrorText("cuInit", result) + ")");
  }();
  if (!init.ok()) return init;
  return &loaded.api;
}

StatusOr<CudaDeviceInfo> Describe(const CudaApi& api, int ordinal, CUdevice device) {
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  FUSEBOX_CU("cuDeviceGetName",
             api.device_get_name(name, static_cast<int>(sizeof(name) - 1), device));
  info.name = name;
  auto attribute = [&](CUdevice_attribute attr, int* out) {
    return api.device_get_attribute(out, attr, device);
  };
  FUSEBOX_CU("cuDeviceGetAttribute",
             attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.compute_major));
  FUSEBOX_CU("cuDeviceGetAttribute",
             attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.compute_minor));
  FUSEBOX_CU("cuDeviceGetAttribute",
             attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors));
  FUSEBOX_CU("cuDeviceGetAttribute",
             attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.max_threads_per_block));
  FUSEBOX_CU("cuDeviceGetAttribute", attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                                               &info.max_shared_bytes_per_block));
  FUSEBOX_CU("cuDeviceGetAttribute",
             attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       &info.max_shared_bytes_per_block_optin));
  // Informational only: a driver that no longer reports them leaves 0 (the roofline then
  // says it cannot tell the device's peaks).
  if (attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info.clock_khz) != CUDA_SUCCESS) info.clock_khz = 0;
  if (attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &info.memory_clock_khz) != CUDA_SUCCESS)
    info.memory_clock_khz = 0;
  if (attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info.memory_bus_bits) != CUDA_SUCCESS)
    info.memory_bus_bits = 0;
  size_t bytes = 0;
  FUSEBOX_CU("cuDeviceTotalMem_v2", api.device_total_mem(&bytes, device));
  info.total_memory_bytes = static_cast<int64_t>(bytes);
  FUSEBOX_CU("cuDriverGetVersion", api.driver_get_version(&info.driver_version));
  return info;
}

StatusOr<CUdevice> GetDevice(const CudaApi& api, int ordinal) {
  int count = 0;
  FUSEBOX_CU("cuDeviceGetCount", api.device_get_count(&count));
  if (count <= 0) return Unavailable("no CUDA device (0 devices)");
  if (ordinal < 0 || ordinal >= count) {
    return InvalidArgument("no CUDA device " + std::to_string(ordinal) + " (" +
                           std::to_string(count) + " device" + (count == 1 ? "" : "s") + ")");
  }
  CUdevice device = 0;
  FUSEBOX_CU("cuDeviceGet", api.device_get(&device, ordinal));
  return device;
}

const CudaApi& Api() { return Loaded().api; }

// The staging pipeline's queue on the context's stream: slots from cuMemHostAlloc, one
// event each. Called with the context current (CudaContext makes it so).
class CudaStagingQueue final : public StagingQueue {
 public:
  explicit CudaStagingQueue(CUstream stream) : stream_(stream) {}

  StatusOr<void*> AllocateSlot(int slot, int64_t bytes) override {
    const CudaApi& api = Api();
    std::string missing;
    auto check = [&](const char* name, bool present) {
      if (!present) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    check("cuMemHostAlloc", api.mem_host_alloc != nullptr);
    check("cuMemFreeHost", api.mem_free_host != nullptr);
    check("cuMemcpyHtoDAsync_v2", api.memcpy_htod_async != nullptr);
    check("cuMemcpyDtoHAsync_v2", api.memcpy_dtoh_async != nullptr);
    check("cuEventCreate", api.event_create != nullptr);
    check("cuEventRecord", api.event_record != nullptr);
    check("cuEventSynchronize", api.event_synchronize != nullptr);
    check("cuEventDestroy_v2", api.event_destroy != nullptr);
    if (!missing.empty()) return Unavailable("the loaded libcuda lacks " + missing);
    if (static_cast<size_t>(slot) >= events_.size()) events_.resize(static_cast<size_t>(slot) + 1);
    void* host = nullptr;
    CUresult result = api.mem_host_alloc(&host, static_cast<size_t>(bytes), 0);
    if (result != CUDA_SUCCESS)
      return CallError("cuMemHostAlloc", result, std::to_string(bytes) + " bytes");
    CUevent event = nullptr;
    // No timing: the lightest event, used only to wait for the slot's copy.
    result = api.event_create(&event, CU_EVENT_DISABLE_TIMING);
    if (result != CUDA_SUCCESS) {
      api.mem_free_host(host);
      return CallError("cuEventCreate", result);
    }
    events_[static_cast<size_t>(slot)] = event;
    return host;
  }

  void FreeSlot(int slot, void* host) override {
    const CudaApi& api = Api();
    if (static_cast<size_t>(slot) < events_.size() && events_[static_cast<size_t>(slot)]) {
      api.event_destroy(events_[static_cast<size_t>(slot)]);
      events_[static_cast<size_t>(slot)] = nullptr;
    }
    if (host != nullptr) api.mem_free_host(host);
  }

  Status QueueToDevice(uint64_t dst, const void* src, int64_t bytes) override {
    FUSEBOX_CU("cuMemcpyHtoDAsync_v2",
               Api().memcpy_htod_async(static_cast<CUdeviceptr>(dst), src,
                                       static_cast<size_t>(bytes), stream_));
    return Status::Ok();
  }

  Status QueueFromDevice(void* dst, uint64_t src, int64_t bytes) override {
    FUSEBOX_CU("cuMemcpyDtoHAsync_v2",
               Api().memcpy_dtoh_async(dst, static_cast<CUdeviceptr>(src),
                                       static_cast<size_t>(bytes), stream_));
    return Status::Ok();
  }

  Status RecordSlot(int slot) override {
    FUSEBOX_CU("cuEventRecord", Api().event_record(events_.at(static_cast<size_t>(slot)), stream_));
    return Status::Ok();
  }

  Status WaitSlot(int slot) override {
    // A kernel's asynchronous fault queued before the copy surfaces here too.
    FUSEBOX_CU("cuEventSynchronize",
               Api().event_synchronize(events_.at(static_cast<size_t>(slot))));
    return Status::Ok();
  }

  Status CopyToDevice(uint64_t dst, const void* src, int64_t bytes) override {
    FUSEBOX_CU("cuMemcpyHtoD_v2",
               Api().memcpy_htod(static_cast<CUdeviceptr>(dst), src, static_cast<size_t>(bytes)));
    return Status::Ok();
  }

  Status CopyFromDevice(void* dst, uint64_t src, int64_t bytes) override {
    FUSEBOX_CU("cuMemcpyDtoH_v2",
               Api().memcpy_dtoh(dst, static_cast<CUdeviceptr>(src), static_cast<size_t>(bytes)));
    return Status::Ok();
  }

 private:
  CUstream stream_;
  std::vector<CUevent> events_;
};

}  // namespace

bool BuiltWithCudaHeaders() { return true; }

StatusOr<int> CudaDeviceCount() {
  ASSIGN_OR_RETURN(const CudaApi* api, InitializedApi());
  int count = 0;
  FUSEBOX_CU("cuDeviceGetCount", api->device_get_count(&count));
  if (count <= 0) return Unavailable("no CUDA device (0 devices)");
  return count;
}

StatusOr<CudaDeviceInfo> DiscoverCudaDevice(int ordinal) {
  ASSIGN_OR_RETURN(const CudaApi* api, InitializedApi());
  ASSIGN_OR_RETURN(CUdevice device, GetDevice(*api, ordinal));
  return Describe(*api, ordinal, device);
}

CudaModule::~CudaModule() {
  if (handle_ != nullptr && context_->MakeCurrent().ok())
    Api().module_unload(static_cast<CUmodule>(handle_));
}

StatusOr<CudaFunction> CudaModule::GetFunction(const std::string& name) const {
  RETURN_IF_ERROR(context_->MakeCurrent());
  CUfunction function = nullptr;
  CUresult result =
      Api().module_get_function(&function, static_cast<CUmodule>(handle_), name.c_str());
  if (result != CUDA_SUCCESS) return CallError("cuModuleGetFunction", result, "entry " + name);
  return CudaFunction{function, name};
}

StatusOr<CudaFunctionAttributes> CudaModule::Attributes(const std::string& name) const {
  ASSIGN_OR_RETURN(CudaFunction function, GetFunction(name));
  CudaFunctionAttributes attributes;
  auto get = [&](CUfunction_attribute which, int64_t* out) -> Status {
    int value = 0;
    CUresult result = Api().func_get_attribute(&value, which, static_cast<CUfunction>(function.handle));
    if (result != CUDA_SUCCESS) return CallError("cuFuncGetAttribute", result, "entry " + name);
    *out = value;
    return Status::Ok();
  };
  RETURN_IF_ERROR(get(CU_FUNC_ATTRIBUTE_NUM_REGS, &attributes.registers));
  RETURN_IF_ERROR(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &attributes.shared_bytes));
  RETURN_IF_ERROR(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &attributes.local_bytes));
  return attributes;
}

struct CudaContext::TimingDelay {
  explicit TimingDelay(CudaContext* owner) : context(owner) {}
  ~TimingDelay() {
    module.reset();
    if (flag != nullptr && context->MakeCurrent().ok()) Api().mem_free_host(const_cast<uint32_t*>(flag));
  }
  CudaContext* context;
  std::unique_ptr<CudaModule> module;
  CudaFunction function;
  volatile uint32_t* flag = nullptr;  // [0]: the host's go, [1]: the kernel timed out
  CUdeviceptr flag_device = 0;
  Status status;             // why there is no delay (then every timing is undelayed)
  int consecutive_waits = 0;  // timings in a row whose queueing outlasted the delay
};

StatusOr<std::unique_ptr<CudaContext>> CudaContext::Create(int ordinal) {
  ASSIGN_OR_RETURN(const CudaApi* api, InitializedApi());
  ASSIGN_OR_RETURN(CUdevice device, GetDevice(*api, ordinal));
  std::unique_ptr<CudaContext> context(new CudaContext());
  ASSIGN_OR_RETURN(context->device_, Describe(*api, ordinal, device));
  context->device_handle_ = static_cast<int>(device);
  CUcontext primary = nullptr;
  FUSEBOX_CU("cuDevicePrimaryCtxRetain", api->primary_ctx_retain(&primary, device));
  context->context_ = primary;
  RETURN_IF_ERROR(context->MakeCurrent());
  CUstream stream = nullptr;
  // CU_STREAM_DEFAULT: a blocking stream, ordered with the synchronous copies and memsets
  // (which run on the legacy default stream).
  FUSEBOX_CU("cuStreamCreate", api->stream_create(&stream, CU_STREAM_DEFAULT));
  context->stream_ = stream;
  context->staging_queue_ = std::make_unique<CudaStagingQueue>(stream);
  context->staging_ = std::make_unique<StagingPipeline>(context->staging_queue_.get());
  return context;
}

CudaContext::~CudaContext() {
  if (context_ == nullptr) return;
  const CudaApi& api = Api();
  const bool current = MakeCurrent().ok();
  if (current && stream_ != nullptr) api.stream_synchronize(static_cast<CUstream>(stream_));
  // The delay kernel's module and flag, the pinned slots and their events before the
  // stream their copies ran on.
  timing_delay_.reset();
  staging_.reset();
  staging_queue_.reset();
  if (current && stream_ != nullptr) api.stream_destroy(static_cast<CUstream>(stream_));
  api.primary_ctx_release(static_cast<CUdevice>(device_handle_));
}

Status CudaContext::MakeCurrent() {
  FUSEBOX_CU("cuCtxSetCurrent", Api().ctx_set_current(static_cast<CUcontext>(context_)));
  return Status::Ok();
}

StatusOr<DeviceBuffer> CudaContext::Allocate(int64_t bytes) {
  if (bytes < 0) return InvalidArgument("cannot allocate " + std::to_string(bytes) + " bytes");
  RETURN_IF_ERROR(MakeCurrent());
  CUdeviceptr ptr = 0;
  const size_t size = static_cast<size_t>(bytes > 0 ? bytes : 1);
  CUresult result = Api().mem_alloc(&ptr, size);
  if (result != CUDA_SUCCESS) {
    return CallError("cuMemAlloc_v2", result, std::to_string(size) + " bytes on " + device_.name);
  }
  return DeviceBuffer(this, static_cast<DevicePtr>(ptr), bytes);
}

void CudaContext::Free(DevicePtr ptr) {
  if (MakeCurrent().ok()) Api().mem_free(static_cast<CUdeviceptr>(ptr));
}

Status CudaContext::CopyHostToDevice(DevicePtr dst, const void* src, int64_t bytes) {
  if (bytes <= 0) return Status::Ok();
  RETURN_IF_ERROR(MakeCurrent());
  return staging_->ToDevice(dst, src, bytes);
}

Status CudaContext::CopyDeviceToHost(void* dst, DevicePtr src, int64_t bytes) {
  if (bytes <= 0) return Status::Ok();
  RETURN_IF_ERROR(MakeCurrent());
  return staging_->FromDevice(dst, src, bytes);
}

Status CudaContext::CopyDeviceToDevice(DevicePtr dst, DevicePtr src, int64_t bytes) {
  if (bytes <= 0 || dst == src) return Status::Ok();
  RETURN_IF_ERROR(MakeCurrent());
  FUSEBOX_CU("cuMemcpyDtoD_v2",
             Api().memcpy_dtod(static_cast<CUdeviceptr>(dst), static_cast<CUdeviceptr>(src),
                               static_cast<size_t>(bytes)));
  return Status::Ok();
}

Status CudaContext::Memset(DevicePtr dst, uint8_t value, int64_t bytes) {
  if (bytes <= 0) return Status::Ok();
  RETURN_IF_ERROR(MakeCurrent());
  FUSEBOX_CU("cuMemsetD8_v2",
             Api().memset_d8(static_cast<CUdeviceptr>(dst), value, static_cast<size_t>(bytes)));
  return Status::Ok();
}

StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadPtx(const std::string& ptx) {
  // c_str() is NUL-terminated, as the driver requires of PTX text.
  return LoadImage(ptx.c_str(), true);
}

StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadCubin(const std::vector<uint8_t>& cubin) {
  if (cubin.empty()) return InvalidArgument("cuModuleLoadDataEx: empty cubin");
  return LoadImage(cubin.data(), false);
}

StatusOr<std::unique_ptr<CudaModule>> CudaContext::LoadImage(const void* image, bool is_ptx) {
  RETURN_IF_ERROR(MakeCurrent());
  constexpr size_t kLogBytes = 16384;
  std::vector<char> error_log(kLogBytes, '\0'), info_log(kLogBytes, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE};
  // Option values travel as void*; sizes and flags are integers cast to pointers.
  void* values[] = {error_log.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(kLogBytes - 1)), info_log.data(),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(kLogBytes - 1)),
                    reinterpret_cast<void*>(static_cast<uintptr_t>(1))};
  CUmodule module = nullptr;
  CUresult result = Api().module_load_data_ex(
      &module, image, static_cast<unsigned int>(std::size(options)), options, values);
  if (result != CUDA_SUCCESS) {
    std::string log(error_log.data());
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0')) log.pop_back();
    if (log.empty()) log = is_ptx ? "loading PTX" : "loading a cubin";
    return CallError("cuModuleLoadDataEx", result, log);
  }
  std::unique_ptr<CudaModule> out(new CudaModule(this, module));
  out->info_log_ = info_log.data();
  return out;
}

Status CudaContext::SetMaxDynamicSharedMemory(const CudaFunction& function, int64_t bytes) {
  if (bytes > std::numeric_limits<int>::max())
    return InvalidArgument(function.name + ": too much shared memory");
  RETURN_IF_ERROR(MakeCurrent());
  CUresult result = Api().func_set_attribute(static_cast<CUfunction>(function.handle),
                                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(bytes));
  if (result != CUDA_SUCCESS) {
    return CallError("cuFuncSetAttribute", result,
                     function.name + " wants " + std::to_string(bytes) +
                         " bytes of dynamic shared memory; " + device_.name + " allows " +
                         std::to_string(device_.max_shared_bytes_per_block_optin));
  }
  return Status::Ok();
}

Status CudaContext::Launch(const CudaFunction& function, const std::array<int64_t, 3>& grid,
                           const std::array<int64_t, 3>& block, int64_t shared_bytes,
                           void** params) {
  constexpr int64_t kMax = std::numeric_limits<unsigned int>::max();
  for (int i = 0; i < 3; ++i) {
    if (grid[i] <= 0 || grid[i] > kMax || block[i] <= 0 || block[i] > kMax) {
      return InvalidArgument("cuLaunchKernel: " + function.name + ": bad launch dimensions");
    }
  }
  if (shared_bytes < 0 || shared_bytes > kMax)
    return InvalidArgument("cuLaunchKernel: " + function.name + ": bad shared memory size");
  RETURN_IF_ERROR(MakeCurrent());
  auto u = [](int64_t v) { return static_cast<unsigned int>(v); };
  CUresult result = Api().launch_kernel(
      static_cast<CUfunction>(function.handle), u(grid[0]), u(grid[1]), u(grid[2]), u(block[0]),
      u(block[1]), u(block[2]), u(shared_bytes), static_cast<CUstream>(stream_), params, nullptr);
  if (result != CUDA_SUCCESS) {
    return CallError("cuLaunchKernel", result,
                     function.name + " grid (" + std::to_string(grid[0]) + "," +
                         std::to_string(grid[1]) + "," + std::to_string(grid[2]) + ") block (" +
                         std::to_string(block[0]) + "," + std::to_string(block[1]) + "," +
                         std::to_string(block[2]) + ") shared " + std::to_string(shared_bytes));
  }
  return Status::Ok();
}

Status CudaContext::Synchronize() {
  RETURN_IF_ERROR(MakeCurrent());
  // The whole context, not just the stream: device-to-device copies and memsets run on
  // the legacy default stream and may still be in flight.
  FUSEBOX_CU("cuCtxSynchronize", Api().ctx_synchronize());
  return Status::Ok();
}

StatusOr<void*> CudaContext::CurrentStream() {
  RETURN_IF_ERROR(MakeCurrent());
  return stream_;
}

StatusOr<std::vector<DeviceBuffer>> CudaContext::AllocateFilled(const std::vector<int64_t>& bytes, uint8_t value) {
  std::vector<DeviceBuffer> buffers;
  for (int64_t size : bytes) {
    ASSIGN_OR_RETURN(DeviceBuffer buffer, Allocate(size));
    RETURN_IF_ERROR(Memset(buffer.ptr(), value, buffer.size()));
    buffers.push_back(std::move(buffer));
  }
  // The fills run on the legacy default stream; what uses the buffers may run on another.
  RETURN_IF_ERROR(Synchronize());
  return buffers;
}

Status CudaContext::PrepareTimingDelay() {
  if (timing_delay_ != nullptr) return timing_delay_->status;
  timing_delay_ = std::make_unique<TimingDelay>(this);
  TimingDelay& delay = *timing_delay_;
  delay.status = [&]() -> Status {
    const CudaApi& api = Api();
    if (api.mem_host_alloc == nullptr || api.mem_free_host == nullptr || api.mem_host_get_device_pointer == nullptr) {
      return Unavailable("the loaded libcuda lacks cuMemHostAlloc or cuMemHostGetDevicePointer_v2");
    }
    RETURN_IF_ERROR(MakeCurrent());
    void* host = nullptr;
    FUSEBOX_CU("cuMemHostAlloc",
               api.mem_host_alloc(&host, 64, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
    delay.flag = static_cast<volatile uint32_t*>(host);
    delay.flag[0] = 0;
    delay.flag[1] = 0;
    FUSEBOX_CU("cuMemHostGetDevicePointer_v2", api.mem_host_get_device_pointer(&delay.flag_device, host, 0));
    ASSIGN_OR_RETURN(delay.module, LoadPtx(std::string(TimingDelayKernelPtx())));
    ASSIGN_OR_RETURN(delay.function, delay.module->GetFunction(kTimingDelayKernelName));
    return Status::Ok();
  }();
  if (!delay.status.ok()) timing_stats_.why_undelayed = delay.status.message();
  return delay.status;
}

StatusOr<double> CudaContext::TimeOnStream(const std::function<Status()>& enqueue) {
  const CudaApi& api = Api();
  if (api.event_create == nullptr || api.event_record == nullptr || api.event_synchronize == nullptr ||
      api.event_destroy == nullptr || api.event_elapsed == nullptr) {
    return Unavailable("the loaded libcuda lacks the event calls (cuEventElapsedTime)");
  }
  RETURN_IF_ERROR(MakeCurrent());
  CUevent events[2] = {nullptr, nullptr};
  struct Release {
    CUevent* events;
    ~Release() {
      for (int i = 0; i < 2; ++i) {
        if (events[i] != nullptr) Api().event_destroy(events[i]);
      }
    }
  } release{events};
  for (CUevent& event : events) FUSEBOX_CU("cuEventCreate", api.event_create(&event, CU_EVENT_DEFAULT));
  // The delay first: the start event fires when the host lets it go, after the whole
  // timing is queued. The go is given on every path out (an error too), or the stream
  // would wait out the delay's timeout.
  volatile uint32_t* flag = nullptr;
  if (PrepareTimingDelay().ok()) {
    TimingDelay& delay = *timing_delay_;
    delay.flag[0] = 0;
    delay.flag[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    uint64_t flag_device = delay.flag_device;
    uint64_t timeout_ns = kTimingDelayTimeoutNs;
    void* params[] = {&flag_device, &timeout_ns};
    if (Status launched = Launch(delay.function, {1, 1, 1}, {1, 1, 1}, 0, params); launched.ok()) {
      flag = delay.flag;
    } else {
      // Timed without the delay from now on (counted and said), not a failed timing.
      delay.status = Unavailable("the delay kernel did not launch: " + launched.message());
      timing_stats_.why_undelayed = delay.status.message();
    }
  }
  struct Go {
    volatile uint32_t* flag;
    void Give() {
      if (flag == nullptr) return;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      flag[0] = 1;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      flag = nullptr;
    }
    ~Go() { Give(); }
  } go{flag};
  FUSEBOX_CU("cuEventRecord", api.event_record(events[0], static_cast<CUstream>(stream_)));
  if (Status queued = enqueue(); !queued.ok()) {
    // Let the delay go and wait for it, so that the next timing's delay does not find this
    // one still spinning on a flag it resets.
    go.Give();
    (void)api.stream_synchronize(static_cast<CUstream>(stream_));
    return queued;
  }
  FUSEBOX_CU("cuEventRecord", api.event_record(events[1], static_cast<CUstream>(stream_)));
  go.Give();
  FUSEBOX_CU("cuEventSynchronize", api.event_synchronize(events[1]));
  float ms = 0;
  FUSEBOX_CU("cuEventElapsedTime", api.event_elapsed(&ms, events[0], events[1]));
  if (flag == nullptr) {
    ++timing_stats_.undelayed;
  } else if (flag[1] != 0) {
    // The queueing outlasted the delay: this time includes the host's. Three in a row
    // (a library call that waits for the device while it is queued, say) and the delay
    // is given up, not waited out again and again.
    ++timing_stats_.host_waits;
    TimingDelay& delay = *timing_delay_;
    if (++delay.consecutive_waits >= 3) {
      delay.status = Unavailable("the host's queueing of a timing outlasted the delay kernel's " +
                                 std::to_string(kTimingDelayTimeoutNs / 1'000'000) + " ms three times in a row");
      timing_stats_.why_undelayed = delay.status.message();
    }
  } else {
    ++timing_stats_.delayed;
    timing_delay_->consecutive_waits = 0;
  }
  return static_cast<double>(ms);
}

#undef FUSEBOX_CU

#endif  // FUSEBOX_HAVE_CUDA_HEADERS

}  // namespace fusebox::runtime
