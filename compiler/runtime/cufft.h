// cuFFT, loaded at run time like libcuda (dlopen of libcufft.so.12, .so.11, then the
// toolkit's /usr/local/cuda/lib64), so one Fusebox binary runs with and without it. The
// GPU executable hands it the module's `fft` ops (compiler/ir/fft_plan.h): one plan each,
// made when the executable is created, its work area Fusebox's own allocation, executed
// on the executable's stream. The scale of the inverse transforms is a cuBLAS scal after
// it (Cublas::Scale), as in XLA's FFT thunk. A machine without cuFFT gets "cuFFT
// unavailable (...)", and `--gpu-library=off` runs the fft-expander's dots instead.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compiler/ir/fft_plan.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class Cufft {
 public:
  // Loads the library (once per process); plans are bound to `context`'s stream.
  static StatusOr<std::unique_ptr<Cufft>> Create(CudaContext& context);
  ~Cufft() = default;
  Cufft(const Cufft&) = delete;
  Cufft& operator=(const Cufft&) = delete;

  // One cuFFT plan (cufftMakePlanMany64 of the FftPlan), with automatic work-area
  // allocation off: the caller hands it `workspace_bytes()` at Run.
  class Plan {
   public:
    ~Plan();
    Plan(const Plan&) = delete;
    Plan& operator=(const Plan&) = delete;
    const FftPlan& plan() const { return plan_; }
    int64_t workspace_bytes() const { return workspace_bytes_; }

   private:
    friend class Cufft;
    Plan() = default;
    FftPlan plan_;
    int handle_ = -1;  // cufftHandle
    bool made_ = false;
    int64_t workspace_bytes_ = 0;
  };

  StatusOr<std::unique_ptr<Plan>> Prepare(const FftPlan& plan);
  // Queues the transform from `input` to `output` (not normalized: the caller scales the
  // inverse ones). `input` is overwritten by C2R and Z2D (FftPlan::copies_input).
  Status Run(const Plan& plan, DevicePtr input, DevicePtr output, DevicePtr workspace);

  // "cuFFT 12.0.0 (libcufft.so.12)"
  const std::string& description() const { return description_; }

 private:
  Cufft() = default;
  void* stream_ = nullptr;
  std::string description_;
};

// Whether cuFFT can be loaded here (no GPU needed); the message says why not.
Status CufftAvailable();

}  // namespace fusebox::runtime
