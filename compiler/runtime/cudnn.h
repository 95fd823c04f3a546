// cuDNN, loaded at run time (dlopen of libcudnn.so.9, then the toolkit's
// /usr/local/cuda/lib64), for the convolution library calls (compiler/ir/conv_plan.h):
// cudnnTransformTensor packs the kernel's strided view into KCRS scratch, then
// cudnnConvolutionForward runs with the algorithm cuDNN's heuristics rank first among
// those whose workspace fits; a weight gradient (ConvPlan::backward_filter) runs as
// cudnnConvolutionBackwardFilter, its result packed then moved into place. A machine without cuDNN gets "cuDNN unavailable (...)";
// `--gpu-library=off` runs Fusebox's own convolution kernels instead.
#pragma once

#include <memory>
#include <string>

#include "compiler/ir/conv_plan.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class Cudnn {
 public:
  static StatusOr<std::unique_ptr<Cudnn>> Create(CudaContext& context);
  ~Cudnn();
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;

  // One planned convolution: its descriptors and chosen algorithm.
  class Convolution {
   public:
    ~Convolution();
    Convolution(const Convolution&) = delete;
    Convolution& operator=(const Convolution&) = delete;
    int64_t workspace_bytes() const { return workspace_bytes_; }
    int64_t packed_kernel_bytes() const { return packed_kernel_bytes_; }
    // "implicit precomputed GEMM" etc.
    const std::string& algorithm() const { return algorithm_; }
    int64_t flops() const { return plan_.flops; }

   private:
    friend class Cudnn;
    Convolution() = default;
    ConvPlan plan_;
    void* x_desc_ = nullptr;
    void* y_desc_ = nullptr;
    void* w_view_desc_ = nullptr;    // the kernel operand's strided view (a tensor descriptor)
    void* w_packed_desc_ = nullptr;  // the same dims packed (tensor descriptor, KCRS)
    void* w_filter_desc_ = nullptr;  // the packed kernel as a filter descriptor
    void* conv_desc_ = nullptr;
    int algo_ = 0;
    int64_t workspace_bytes_ = 0;
    int64_t packed_kernel_bytes_ = 0;  // 0 when the kernel is in KCRS order already
    bool kernel_packed_ = false;
    bool backward_filter_ = false;  // cudnnConvolutionBackwardFilter (ConvPlan::backward_filter)
    std::string algorithm_;
  };

  // Descriptors and an algorithm for `plan` (a workspace of at most `max_workspace` bytes).
  StatusOr<std::unique_ptr<Convolution>> Prepare(const ConvPlan& plan, int64_t max_workspace);
  // Queues the kernel packing and the convolution. `packed` holds packed_kernel_bytes(),
  // `workspace` workspace_bytes().
  Status Forward(const Convolution& conv, DevicePtr x, DevicePtr w, DevicePtr y, DevicePtr packed,
                 DevicePtr workspace);

  // "cuDNN 9.13.0 (libcudnn.so.9)"
  const std::string& description() const { return description_; }

 private:
  Cudnn() = default;
  void* handle_ = nullptr;
  std::string description_;
};

Status CudnnAvailable();

}  // namespace fusebox::runtime
