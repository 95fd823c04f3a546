// cuDNN, loaded at run time (dlopen of libcudnn.so.9, then the toolkit's
// /usr/local/cuda/lib64), for the convolution library calls (compiler/ir/conv_plan.h):
// cudnnConvolutionForward, cudnnConvolutionBackwardData and
// cudnnConvolutionBackwardFilter, each with the algorithm cuDNN's heuristics rank first
// among those whose workspace fits, and cudnnConvolutionBiasActivationForward for XLA's
// fused calls (plans with bias_activation): relu with the forward ranking's algorithm,
// identity with CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, the only algorithm cuDNN
// runs it with. When cuDNN has no fused algorithm for the descriptors, the same call runs
// split inside cuDNN (cudnnConvolutionForward scaled by alpha1, cudnnAddTensor of alpha2 * z
// and of the bias, cudnnActivationForward for relu) and split_reason() says why. The filter (or its gradient) is packed around the call
// by cudnnTransformTensor when its buffer is a strided view, in the layout
// PreferredFilterLayout picks (KRSC for channel-minor tensors), and in the other when
// cuDNN has no algorithm for the first. A machine without cuDNN gets "cuDNN unavailable
// (...)"; `--gpu-library=off` runs Fusebox's own convolution kernels instead.
#pragma once

#include <memory>
#include <string>

#include "compiler/ir/conv_plan.h"
#include "compiler/runtime/autotune_cache.h"
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
    ConvCall call() const { return plan_.call; }
    // cudnnConvolutionBiasActivationForward: operand 2 is the bias, operand 3 the side input.
    bool fused() const { return plan_.bias_activation.has_value(); }
    // Non-empty when the fused call runs split (cuDNN refused the fused call): why.
    const std::string& split_reason() const { return split_reason_; }
    const ConvPlan& plan() const { return plan_; }
    FilterLayout filter_layout() const { return layout_; }
    // What autotuning chose ("ALGO_0 20.3 us, heuristic's first ALGO_1 41.0 us"), or why
    // it did not run.
    const AlgorithmTuning& tuning() const { return tuning_; }

   private:
    friend class Cudnn;
    Convolution() = default;
    ConvPlan plan_;
    void* x_desc_ = nullptr;
    void* y_desc_ = nullptr;
    void* w_view_desc_ = nullptr;    // the kernel operand's strided view (a tensor descriptor)
    void* w_packed_desc_ = nullptr;  // the same dims packed (tensor descriptor, in layout_)
    void* w_filter_desc_ = nullptr;  // the packed kernel as a filter descriptor
    void* conv_desc_ = nullptr;
    void* bias_desc_ = nullptr;        // fused calls: the bias as [1, K, 1, 1]
    void* activation_desc_ = nullptr;  // fused calls: identity or relu
    int algo_ = 0;
    int64_t workspace_bytes_ = 0;
    int64_t packed_kernel_bytes_ = 0;  // 0 when the kernel is packed in layout_ already
    bool kernel_packed_ = false;
    FilterLayout layout_ = FilterLayout::kKcrs;
    std::string algorithm_;
    bool split_ = false;        // a fused plan run as forward call, adds and activation
    std::string split_reason_;  // why (cuDNN's refusal of the fused call)
    AlgorithmTuning tuning_;
  };

  // Descriptors and an algorithm for `plan` (a workspace of at most `max_workspace` bytes):
  // the preferred filter layout first, then the other.
  StatusOr<std::unique_ptr<Convolution>> Prepare(const ConvPlan& plan, int64_t max_workspace);
  // The same with the filter packed in `layout`; `split` prepares a fused plan to run as
  // the forward call, bias add and activation apart.
  StatusOr<std::unique_ptr<Convolution>> Prepare(const ConvPlan& plan, FilterLayout layout, int64_t max_workspace,
                                                 bool split = false);
  // Queues the call (and the filter's packing or unpacking) on the call's two operands and
  // its result (ConvCall says which is which). `packed` holds packed_kernel_bytes(),
  // `workspace` workspace_bytes(). A fused call also reads `bias` and, with a side input,
  // `side` (without one, y stands for z with alpha2 = 0, as cuDNN allows).
  Status Run(const Convolution& conv, DevicePtr operand0, DevicePtr operand1, DevicePtr result, DevicePtr packed,
             DevicePtr workspace, DevicePtr bias = 0, DevicePtr side = 0);

  // "cuDNN 9.13.0 (libcudnn.so.9)"
  const std::string& description() const { return description_; }

  // Autotuning (on by default): Prepare times every algorithm cuDNN offers for the call
  // (cudnnFind*AlgorithmEx, on buffers of the call's shapes) and keeps the fastest that
  // fits the workspace and keeps the call's precision, as XLA's autotuner does; off, it
  // keeps the heuristics' first choice (cudnnGet*Algorithm_v7).
  void set_autotune(bool on) { autotune_ = on; }
  // Where autotuning looks first and keeps what it chose (autotune_cache.h); the process's
  // cache by default, null for none (every call timed).
  void set_autotune_cache(AutotuneCache* cache) { cache_ = cache; }

 private:
  Cudnn() = default;
  void Autotune(Convolution& c, int64_t max_workspace);
  // Applies a cached choice when cuDNN still offers it for `c` within the workspace; false
  // (and `c` unchanged) when it does not.
  bool ApplyCachedChoice(Convolution& c, const AutotuneRecord& record, int64_t workspace_limit);
  CudaContext* context_ = nullptr;
  bool autotune_ = true;
  AutotuneCache* cache_ = &AutotuneCache::Process();
  void* handle_ = nullptr;
  std::string description_;
};

Status CudnnAvailable();
// cuDNN with the fused call's entry points (cudnnConvolutionBiasActivationForward and the
// activation descriptor's create, set and destroy); they are optional, so that plain
// convolutions still run with a cuDNN that lacks them.
Status CudnnFusedConvolutionAvailable();

}  // namespace fusebox::runtime
