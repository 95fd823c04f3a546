// The GPU executable: a module compiled by the GPU code generator and run through the CUDA
// driver (loaded at run time, compiler/runtime/cuda_driver.h). Kernels launch in schedule
// order on one stream; control flow (while, conditional, call) runs on the host, reading
// predicates back from the device. The same public shape as CpuExecutable, so the CLI and
// the session run either. Gemm library calls go to cuBLAS on the same stream. See
// docs/gpu-runtime.md.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/runtime/host_staging.h"
#include "profiler/execution_observer.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class CudaContext;
struct GpuPrograms;

struct GpuRunOptions {
  profiler::ExecutionObserver* observer = nullptr;  // run, kernel and host-work events go here when set
  int64_t iteration = 0;                  // passed to the observer
  // A device-side tracer (the CUPTI tracer) records kernel times: kernels are then queued
  // without a synchronize per launch and OnKernel is not called (the tracer has them, with
  // device clocks); run and host-work callbacks still come.
  bool device_tracer_active = false;
  // false: the arguments are the same values as the last run's, already on the device
  // (uploaded once; `--upload-every-run` sets this true for every run). The program never
  // writes into its argument copies (a written parameter gets its own copy), so they stay
  // valid. Ignored on the first run.
  bool upload_arguments = true;
};

// Turns PTX into a cubin for `arch` ("sm_90"), e.g. by running ptxas.
using PtxToCubin =
    std::function<StatusOr<std::vector<uint8_t>>(const std::string& ptx, const std::string& arch)>;

// Which runs a gemm library call the libraries are weakest at (one side of at most 16
// elements, e.g. a classifier's 10 outputs, or a contraction of at most 16): kTimed (with autotuning on) times Fusebox's own kernel for it
// against the library's choice at compile time and keeps the faster, as XLA weighs its
// Triton GEMMs against cuBLAS; kLibrary: the library always; kFusebox: Fusebox's kernel
// always (`fusebox run --gpu-gemm-kernels=timed|library|fusebox`).
enum class GemmKernels { kTimed, kLibrary, kFusebox };
bool ParseGemmKernels(const std::string& text, GemmKernels* out);

struct GpuExecutableOptions {
  codegen::GpuCompileOptions compile;
  // Compile for the device's own architecture (the newest supported one not above it)
  // instead of compile.arch, so the driver can load the code.
  bool arch_from_device = true;
  int device = 0;  // CUDA device ordinal
  // When set, the PTX is assembled to a cubin by this function and the cubin is loaded;
  // otherwise the driver JIT-compiles the PTX.
  PtxToCubin ptx_to_cubin;
  // Gemm library calls (__cublas$gemm, __cublas$lt$matmul; passes::GemmRewriter makes
  // them from dots) run through cuBLASLt (compiler/runtime/cublas_lt.h; f64 ones through
  // cuBLAS, cublas.h: GemmPlanRunsOnCublasLt), convolution calls
  // (__cudnn$convForward; passes::ConvRewriter) through cuDNN (cudnn.h). DEFAULT and HIGH
  // precision f32 products may use TF32 as XLA's do; false: full f32 always.
  bool allow_tf32 = true;
  // Host<->device copies (constants at Create, arguments, results) of 256 KiB and more go
  // through a few pinned staging slots, the CPU's memcpy of one chunk overlapping the DMA of
  // the one before (host_staging.h); kPageable: the driver's synchronous pageable calls
  // (`fusebox run --host-staging=pageable`). Pinned memory refused: pageable, with a note.
  HostStaging host_staging = HostStaging::kPinned;
  // cuDNN's and cuBLASLt's algorithms timed at compile time and the fastest kept, as XLA's
  // autotuner does (`--gpu-autotune=on`, the default), through the process's autotune
  // cache (autotune_cache.h); plain f16/bf16/f32 gemms run through cuBLASLt so that theirs
  // are tuned too (GemmPlanRunsOnCublasLt). False: the libraries' heuristics choose.
  bool autotune = true;
  // Skinny gemm calls: timed against Fusebox's own kernel (with autotune), or one side
  // always (GemmKernels above).
  GemmKernels gemm_kernels = GemmKernels::kTimed;
  // Kernels whose grid would run in fewer waves with more blocks an SM ask ptxas (or the
  // driver's JIT) for them, kept where the loaded kernel got them without spilling
  // (codegen/occupancy.h; `fusebox run --gpu-occupancy=tuned|off`). Loads the code up to
  // three times when some kernel qualifies.
  bool tune_occupancy = true;
  // Before a module's tensor-core dots run (codegen dot(tensor core): mma.sync TF32), the
  // device runs a small one on whole numbers, which TF32 and f32 hold exactly, once per
  // device and process (TensorCoreCanary); an output that is not exact turns the module's
  // tensor-core dots off (recompiled as full-f32 tiled dots) and the run's notes say why.
  bool check_tensor_cores = true;
  // With autotune: row kernels and row reductions are also compiled with other numbers of
  // threads a row, unsplit column reductions with the other block size
  // (GpuCompileOptions::kernel_variants), each shape timed at Create on
  // buffers of the kernel's shapes, the fastest run (kernel_variant_notes() lists the
  // times; the choice goes to the autotune cache). False: the emitter's default shape.
  bool kernel_variants = true;
  // With kernel_variants, >= 0: every kernel that has variants runs shape `kernel_shape`
  // untimed (0 its own launches, v its variant v - 1, its own where it has fewer): tests
  // check each shape on the device with it. -1: timed.
  int64_t kernel_shape = -1;
};

class GpuExecutable {
 public:
  // Opens the device first (a machine without a driver or GPU gets "no CUDA driver (...)"
  // or "no CUDA device (...)" before any compiling), normalizes layouts to row-major,
  // compiles with CompileForGpu, loads the code and resolves every launch's function,
  // then allocates device memory for every program computation and uploads constants.
  static StatusOr<std::unique_ptr<GpuExecutable>> Create(std::unique_ptr<Module> module,
                                                         const GpuExecutableOptions& options = {});
  ~GpuExecutable();

  // Runs the entry computation. Arguments are checked against the entry parameters.
  StatusOr<Literal> Run(const std::vector<Literal>& arguments, const GpuRunOptions& options = {});
  // The same, writing into `result` (reshaped to the root's shape if it has another):
  // the root's leaves are copied device -> host into its storage.
  Status RunInto(const std::vector<Literal>& arguments, Literal& result,
                 const GpuRunOptions& options = {});

  const Module& module() const { return *module_; }
  const codegen::GpuCode& code() const { return *code_; }
  // "NVIDIA H100 80GB HBM3 (sm_90, ...)"
  std::string device_description() const;
  // Device bytes held for temps, outputs, constants, parameter copies and scratch.
  int64_t device_bytes() const;
  // cuLaunchKernel calls made by the last Run (a kernel with two launches counts twice;
  // launches skipped for an in-place update do not count).
  int64_t last_kernel_launches() const { return last_kernel_launches_; }
  // Library calls made by the last Run (each may launch one or more library kernels).
  int64_t last_library_calls() const { return last_library_calls_; }
  // "cuBLAS 13.0.2 (libcublas.so.13), cuDNN 9.13.0 (libcudnn.so.9)" for the libraries the
  // module's calls use; empty without library calls.
  std::string library_description() const;
  // How many f32 gemm and convolution calls may use TF32 (for run notes).
  int64_t tf32_gemms() const;
  // Fallbacks taken when the library calls were prepared ("cudnn-conv.3: cuDNN has no
  // algorithm for ... (as cudnnConvolutionBackwardFilter) ...; ran as a forward call"), and
  // one note naming the fused convolution calls cudnnConvolutionBiasActivationForward runs.
  const std::vector<std::string>& library_notes() const;
  // One note per occupancy request made at Create: "occupancy (132 SMs): fusion_kernel: 4
  // blocks an SM asked for (...): 64 registers, 1 wave instead of 2", or why not kept.
  const std::vector<std::string>& occupancy_notes() const;
  // One note listing every kernel whose shapes were timed at Create: "kernel shapes timed
  // for 1 kernel(s) ...: fusion: a warp a row 7.1 us, 64 threads a row 7.6 us, ... -> a
  // warp a row"; empty when none has variants.
  const std::vector<std::string>& kernel_variant_notes() const;
  // The PTX loaded: code().ptx() with the occupancy requests kept.
  const std::string& loaded_ptx() const;
  // Switches how later copies go (e.g. a benchmark comparing both on one executable).
  void set_host_staging(HostStaging mode);
  // "pinned host staging unavailable (...); copies go through pageable memory" when pinned
  // memory was refused; empty otherwise.
  std::string host_staging_note() const;

 private:
  GpuExecutable() = default;
  class Frame;
  friend class Frame;

  // Declaration order is destruction order in reverse: device memory and the loaded
  // module go before the context that owns them.
  std::unique_ptr<CudaContext> context_;
  std::unique_ptr<Module> module_;
  std::unique_ptr<codegen::GpuCode> code_;
  std::unique_ptr<GpuPrograms> programs_;
  int64_t last_kernel_launches_ = 0;
  int64_t last_library_calls_ = 0;
  bool arguments_on_device_ = false;
};

}  // namespace fusebox::runtime
