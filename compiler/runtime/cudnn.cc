// cuDNN through dlopen: the legacy convolution API's entry points resolved by name, with
// the enum values and the one struct used kept here (checked against cudnn.h when the
// headers are there at build time).
#include "compiler/runtime/cudnn.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/runtime/cuda_library_loader.h"

#ifdef FUSEBOX_HAVE_CUDA_HEADERS
#if __has_include(<cudnn.h>)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cudnn.h>
#define FUSEBOX_CHECK_CUDNN_LAYOUT 1
#endif
#endif

namespace fusebox::runtime {
namespace {

constexpr int kDataFloat = 0, kDataHalf = 2, kDataBfloat16 = 9;
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kFmaMath = 3;
constexpr int kCrossCorrelation = 1;
constexpr int kTensorNchw = 0, kTensorNhwc = 1;
constexpr int kPropagateNan = 1;
// The one forward algorithm cuDNN's fused call runs with an identity activation.
constexpr int kImplicitPrecompGemm = 1;

// cudnnConvolutionFwdAlgoPerf_t.
struct FwdAlgoPerf {
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

#ifdef FUSEBOX_CHECK_CUDNN_LAYOUT
static_assert(kDataFloat == CUDNN_DATA_FLOAT && kDataHalf == CUDNN_DATA_HALF && kDataBfloat16 == CUDNN_DATA_BFLOAT16);
static_assert(kDefaultMath == CUDNN_DEFAULT_MATH && kTensorOpMath == CUDNN_TENSOR_OP_MATH && kFmaMath == CUDNN_FMA_MATH);
static_assert(kCrossCorrelation == CUDNN_CROSS_CORRELATION && kTensorNchw == CUDNN_TENSOR_NCHW &&
              kTensorNhwc == CUDNN_TENSOR_NHWC);
static_assert(kPropagateNan == CUDNN_PROPAGATE_NAN && kImplicitPrecompGemm == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
static_assert(static_cast<int>(ConvFusedActivation::kIdentity) == CUDNN_ACTIVATION_IDENTITY &&
              static_cast<int>(ConvFusedActivation::kRelu) == CUDNN_ACTIVATION_RELU);
static_assert(sizeof(FwdAlgoPerf) == sizeof(cudnnConvolutionFwdAlgoPerf_t));
static_assert(offsetof(FwdAlgoPerf, memory) == offsetof(cudnnConvolutionFwdAlgoPerf_t, memory));
static_assert(offsetof(FwdAlgoPerf, math_type) == offsetof(cudnnConvolutionFwdAlgoPerf_t, mathType));
// The backward rankings have the same layout.
static_assert(sizeof(FwdAlgoPerf) == sizeof(cudnnConvolutionBwdFilterAlgoPerf_t));
static_assert(offsetof(FwdAlgoPerf, memory) == offsetof(cudnnConvolutionBwdFilterAlgoPerf_t, memory));
static_assert(sizeof(FwdAlgoPerf) == sizeof(cudnnConvolutionBwdDataAlgoPerf_t));
static_assert(offsetof(FwdAlgoPerf, memory) == offsetof(cudnnConvolutionBwdDataAlgoPerf_t, memory));
#pragma GCC diagnostic pop
#endif

const char* BackwardFilterAlgorithmName(int algo) {
  switch (algo) {
    case 0:
      return "backward filter 0 (non-deterministic)";
    case 1:
      return "backward filter 1";
    case 2:
      return "backward filter FFT";
    case 3:
      return "backward filter 3 (non-deterministic)";
    case 5:
      return "backward filter FFT tiling";
    case 6:
      return "backward filter Winograd nonfused";
    default:
      return "backward filter";
  }
}

const char* BackwardDataAlgorithmName(int algo) {
  switch (algo) {
    case 0:
      return "backward data 0 (non-deterministic)";
    case 1:
      return "backward data 1";
    case 2:
      return "backward data FFT";
    case 3:
      return "backward data FFT tiling";
    case 4:
      return "backward data Winograd";
    case 5:
      return "backward data Winograd nonfused";
    default:
      return "backward data";
  }
}

const char* AlgorithmName(int algo) {
  switch (algo) {
    case 0:
      return "implicit GEMM";
    case 1:
      return "implicit precomputed GEMM";
    case 2:
      return "GEMM";
    case 3:
      return "direct";
    case 4:
      return "FFT";
    case 5:
      return "FFT tiling";
    case 6:
      return "Winograd";
    case 7:
      return "Winograd nonfused";
    default:
      return "unknown";
  }
}

struct CudnnApi {
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*set_stream)(void*, void*) = nullptr;
  size_t (*get_version)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*create_tensor)(void**) = nullptr;
  int (*set_tensor_nd)(void*, int, int, const int*, const int*) = nullptr;
  int (*destroy_tensor)(void*) = nullptr;
  int (*create_filter)(void**) = nullptr;
  int (*set_filter_nd)(void*, int, int, int, const int*) = nullptr;
  int (*destroy_filter)(void*) = nullptr;
  int (*create_conv)(void**) = nullptr;
  int (*set_conv_nd)(void*, int, const int*, const int*, const int*, int, int) = nullptr;
  int (*set_group_count)(void*, int) = nullptr;
  int (*set_math_type)(void*, int) = nullptr;
  int (*destroy_conv)(void*) = nullptr;
  int (*get_fwd_algo_v7)(void*, void*, void*, void*, void*, int, int*, FwdAlgoPerf*) = nullptr;
  int (*get_fwd_workspace)(void*, void*, void*, void*, void*, int, size_t*) = nullptr;
  int (*forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, size_t, const void*,
                 void*, void*) = nullptr;
  int (*transform)(void*, const void*, void*, const void*, const void*, void*, void*) = nullptr;
  int (*get_bwd_filter_algo_v7)(void*, void*, void*, void*, void*, int, int*, FwdAlgoPerf*) = nullptr;
  int (*get_bwd_filter_workspace)(void*, void*, void*, void*, void*, int, size_t*) = nullptr;
  int (*backward_filter)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, size_t,
                         const void*, void*, void*) = nullptr;
  int (*get_bwd_data_algo_v7)(void*, void*, void*, void*, void*, int, int*, FwdAlgoPerf*) = nullptr;
  // cudnnFind{Forward,BackwardData,BackwardFilter}AlgorithmEx (optional): every algorithm
  // timed on device buffers. (handle, a desc, a, b desc, b, conv, out desc, out, requested,
  // returned, results, workspace, workspace bytes)
  using FindFn = int (*)(void*, void*, const void*, void*, const void*, void*, void*, void*, int, int*, FwdAlgoPerf*,
                         void*, size_t);
  FindFn find_fwd = nullptr;
  FindFn find_bwd_data = nullptr;
  FindFn find_bwd_filter = nullptr;
  int (*get_bwd_data_workspace)(void*, void*, void*, void*, void*, int, size_t*) = nullptr;
  int (*backward_data)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*, size_t,
                       const void*, void*, void*) = nullptr;
  // The fused call (optional entry points: fused_status says whether they resolved).
  int (*create_activation)(void**) = nullptr;
  int (*set_activation)(void*, int, int, double) = nullptr;
  int (*destroy_activation)(void*) = nullptr;
  int (*bias_activation_forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*,
                                 size_t, const void*, void*, const void*, void*, const void*, void*, void*,
                                 void*) = nullptr;
  // The split form of a fused call (optional too; nullptr when absent).
  int (*add_tensor)(void*, const void*, void*, const void*, const void*, void*, void*) = nullptr;
  int (*activation_forward)(void*, void*, const void*, void*, const void*, const void*, void*, void*) = nullptr;
  std::string library;
  Status status;
  Status fused_status;
};

const CudnnApi& Api() {
  static const CudnnApi* api = [] {
    auto* a = new CudnnApi();  // never freed: cuDNN stays loaded for the process
    std::string tried;
    void* library = OpenFirstLibrary({"libcudnn.so.9", "libcudnn.so", "/usr/local/cuda/lib64/libcudnn.so.9"},
                                     &a->library, &tried);
    if (library == nullptr) {
      a->status = Unavailable("cuDNN unavailable (libcudnn.so.9 not found: " + tried +
                              "); --gpu-library=off runs Fusebox's own convolution kernels");
      a->fused_status = a->status;
      return a;
    }
    SymbolResolver symbols(library);
    symbols.Need("cudnnCreate", &a->create);
    symbols.Need("cudnnDestroy", &a->destroy);
    symbols.Need("cudnnSetStream", &a->set_stream);
    symbols.Need("cudnnGetVersion", &a->get_version);
    symbols.Need("cudnnGetErrorString", &a->error_string);
    symbols.Need("cudnnCreateTensorDescriptor", &a->create_tensor);
    symbols.Need("cudnnSetTensorNdDescriptor", &a->set_tensor_nd);
    symbols.Need("cudnnDestroyTensorDescriptor", &a->destroy_tensor);
    symbols.Need("cudnnCreateFilterDescriptor", &a->create_filter);
    symbols.Need("cudnnSetFilterNdDescriptor", &a->set_filter_nd);
    symbols.Need("cudnnDestroyFilterDescriptor", &a->destroy_filter);
    symbols.Need("cudnnCreateConvolutionDescriptor", &a->create_conv);
    symbols.Need("cudnnSetConvolutionNdDescriptor", &a->set_conv_nd);
    symbols.Need("cudnnSetConvolutionGroupCount", &a->set_group_count);
    symbols.Need("cudnnSetConvolutionMathType", &a->set_math_type);
    symbols.Need("cudnnDestroyConvolutionDescriptor", &a->destroy_conv);
    symbols.Need("cudnnGetConvolutionForwardAlgorithm_v7", &a->get_fwd_algo_v7);
    symbols.Need("cudnnGetConvolutionForwardWorkspaceSize", &a->get_fwd_workspace);
    symbols.Need("cudnnConvolutionForward", &a->forward);
    symbols.Need("cudnnTransformTensor", &a->transform);
    symbols.Need("cudnnGetConvolutionBackwardFilterAlgorithm_v7", &a->get_bwd_filter_algo_v7);
    symbols.Need("cudnnGetConvolutionBackwardFilterWorkspaceSize", &a->get_bwd_filter_workspace);
    symbols.Need("cudnnConvolutionBackwardFilter", &a->backward_filter);
    symbols.Need("cudnnGetConvolutionBackwardDataAlgorithm_v7", &a->get_bwd_data_algo_v7);
    symbols.Need("cudnnGetConvolutionBackwardDataWorkspaceSize", &a->get_bwd_data_workspace);
    symbols.Need("cudnnConvolutionBackwardData", &a->backward_data);
    symbols.Optional("cudnnFindConvolutionForwardAlgorithmEx", &a->find_fwd);
    symbols.Optional("cudnnFindConvolutionBackwardDataAlgorithmEx", &a->find_bwd_data);
    symbols.Optional("cudnnFindConvolutionBackwardFilterAlgorithmEx", &a->find_bwd_filter);
    if (!symbols.missing().empty())
      a->status = Unavailable("cuDNN unavailable (" + a->library + " lacks " + symbols.missing() + ")");
    SymbolResolver fused(library);
    fused.Need("cudnnCreateActivationDescriptor", &a->create_activation);
    fused.Need("cudnnSetActivationDescriptor", &a->set_activation);
    fused.Need("cudnnDestroyActivationDescriptor", &a->destroy_activation);
    fused.Need("cudnnConvolutionBiasActivationForward", &a->bias_activation_forward);
    fused.Optional("cudnnAddTensor", &a->add_tensor);
    fused.Optional("cudnnActivationForward", &a->activation_forward);
    a->fused_status = a->status;
    if (a->fused_status.ok() && !fused.missing().empty()) {
      a->fused_status = Unavailable("cuDNN's fused convolution unavailable (" + a->library + " lacks " +
                                    fused.missing() + ")");
    }
    return a;
  }();
  return *api;
}

Status CudnnError(const char* call, int code) {
  const CudnnApi& api = Api();
  const char* name = api.error_string != nullptr ? api.error_string(code) : nullptr;
  return Internal(std::string(call) + ": " + (name != nullptr ? name : "cuDNN error") + " (" + std::to_string(code) +
                  ")");
}

#define FUSEBOX_CUDNN(call, expr)                      \
  do {                                                 \
    const int _rc = (expr);                            \
    if (_rc != 0) return CudnnError(call, _rc);        \
  } while (0)

int DataType(GemmDataType type) {
  switch (type) {
    case GemmDataType::kF16:
      return kDataHalf;
    case GemmDataType::kBF16:
      return kDataBfloat16;
    default:
      return kDataFloat;
  }
}

int64_t ElementBytes(GemmDataType type) { return type == GemmDataType::kF32 ? 4 : type == GemmDataType::kF64 ? 8 : 2; }

Status SetTensor(void* desc, int type, const ConvTensorView& view) {
  int dims[4], strides[4];
  for (int i = 0; i < 4; ++i) {
    dims[i] = static_cast<int>(view.dims[static_cast<size_t>(i)]);
    strides[i] = static_cast<int>(view.strides[static_cast<size_t>(i)]);
  }
  FUSEBOX_CUDNN("cudnnSetTensorNdDescriptor", Api().set_tensor_nd(desc, type, 4, dims, strides));
  return Status::Ok();
}

}  // namespace

Status CudnnAvailable() { return Api().status; }

Status CudnnFusedConvolutionAvailable() { return Api().fused_status; }

StatusOr<std::unique_ptr<Cudnn>> Cudnn::Create(CudaContext& context) {
  const CudnnApi& api = Api();
  RETURN_IF_ERROR(api.status);
  ASSIGN_OR_RETURN(void* stream, context.CurrentStream());
  std::unique_ptr<Cudnn> out(new Cudnn());
  out->context_ = &context;
  if (int rc = api.create(&out->handle_); rc != 0) {
    out->handle_ = nullptr;
    return CudnnError("cudnnCreate", rc);
  }
  FUSEBOX_CUDNN("cudnnSetStream", api.set_stream(out->handle_, stream));
  const size_t version = api.get_version();  // major * 10000 + minor * 100 + patch (cuDNN 9)
  out->description_ = "cuDNN " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
                      std::to_string(version % 100) + " (" + api.library + ")";
  return out;
}

Cudnn::~Cudnn() {
  if (handle_ != nullptr) Api().destroy(handle_);
}

Cudnn::Convolution::~Convolution() {
  const CudnnApi& api = Api();
  for (void* d : {x_desc_, y_desc_, w_view_desc_, w_packed_desc_}) {
    if (d != nullptr) api.destroy_tensor(d);
  }
  if (bias_desc_ != nullptr) api.destroy_tensor(bias_desc_);
  if (w_filter_desc_ != nullptr) api.destroy_filter(w_filter_desc_);
  if (conv_desc_ != nullptr) api.destroy_conv(conv_desc_);
  if (activation_desc_ != nullptr) api.destroy_activation(activation_desc_);
}

namespace {

std::string ConvAlgorithmName(ConvCall call, int algo) {
  return call == ConvCall::kForward        ? AlgorithmName(algo)
         : call == ConvCall::kBackwardData ? BackwardDataAlgorithmName(algo)
                                           : BackwardFilterAlgorithmName(algo);
}

// cudnnGet*WorkspaceSize of `algo` for the call's descriptors (cuDNN's status code).
int AlgorithmWorkspace(void* handle, void* x, void* y, void* w, void* conv, ConvCall call, int algo, size_t* bytes) {
  const CudnnApi& api = Api();
  switch (call) {
    case ConvCall::kForward:
      return api.get_fwd_workspace(handle, x, w, conv, y, algo, bytes);
    case ConvCall::kBackwardData:
      return api.get_bwd_data_workspace(handle, w, y, conv, x, algo, bytes);
    case ConvCall::kBackwardFilter:
      return api.get_bwd_filter_workspace(handle, x, y, conv, w, algo, bytes);
  }
  return -1;
}

// The algorithm cuDNN's heuristics rank first among those whose workspace fits, for the
// descriptors in `c`; false when none does.
StatusOr<bool> PickAlgorithm(void* handle, void* x, void* y, void* w, void* conv,
                             ConvCall call, int64_t max_workspace, int* algo, int64_t* workspace, std::string* name) {
  const CudnnApi& api = Api();
  FwdAlgoPerf perf[16] = {};
  int returned = 0;
  switch (call) {
    case ConvCall::kForward:
      FUSEBOX_CUDNN("cudnnGetConvolutionForwardAlgorithm_v7",
                    api.get_fwd_algo_v7(handle, x, w, conv, y, 16, &returned, perf));
      break;
    case ConvCall::kBackwardData:
      FUSEBOX_CUDNN("cudnnGetConvolutionBackwardDataAlgorithm_v7",
                    api.get_bwd_data_algo_v7(handle, w, y, conv, x, 16, &returned, perf));
      break;
    case ConvCall::kBackwardFilter:
      FUSEBOX_CUDNN("cudnnGetConvolutionBackwardFilterAlgorithm_v7",
                    api.get_bwd_filter_algo_v7(handle, x, y, conv, w, 16, &returned, perf));
      break;
  }
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != 0) continue;
    size_t bytes = 0;
    const int rc = AlgorithmWorkspace(handle, x, y, w, conv, call, perf[i].algo, &bytes);
    if (rc != 0 || static_cast<int64_t>(bytes) > max_workspace) continue;
    *name = ConvAlgorithmName(call, perf[i].algo);
    *algo = perf[i].algo;
    *workspace = static_cast<int64_t>(bytes);
    return true;
  }
  return false;
}

}  // namespace

StatusOr<std::unique_ptr<Cudnn::Convolution>> Cudnn::Prepare(const ConvPlan& plan, int64_t max_workspace) {
  const FilterLayout preferred = PreferredFilterLayout(plan);
  const FilterLayout other = preferred == FilterLayout::kKcrs ? FilterLayout::kKrsc : FilterLayout::kKcrs;
  StatusOr<std::unique_ptr<Convolution>> first = Prepare(plan, preferred, max_workspace);
  if (first.ok()) return first;
  // cuDNN supports some tensor layouts with one filter format only: try the other.
  StatusOr<std::unique_ptr<Convolution>> second = Prepare(plan, other, max_workspace);
  if (second.ok()) return second;
  const std::string why = first.status().message() + "; with a " + std::string(FilterLayoutName(other)) +
                          " filter: " + second.status().message();
  if (plan.bias_activation && Api().add_tensor != nullptr && Api().activation_forward != nullptr) {
    // The same computation split into cuDNN's forward call, tensor adds and activation.
    StatusOr<std::unique_ptr<Convolution>> split = Prepare(plan, preferred, max_workspace, /*split=*/true);
    if (!split.ok()) split = Prepare(plan, other, max_workspace, /*split=*/true);
    if (split.ok()) {
      (*split)->split_reason_ = why;
      return split;
    }
  }
  return Unavailable(why);
}

StatusOr<std::unique_ptr<Cudnn::Convolution>> Cudnn::Prepare(const ConvPlan& plan, FilterLayout layout,
                                                             int64_t max_workspace, bool split) {
  const CudnnApi& api = Api();
  RETURN_IF_ERROR(api.status);
  std::unique_ptr<Convolution> c(new Convolution());
  c->plan_ = plan;
  c->layout_ = layout;
  const int type = DataType(plan.type);
  FUSEBOX_CUDNN("cudnnCreateTensorDescriptor", api.create_tensor(&c->x_desc_));
  FUSEBOX_CUDNN("cudnnCreateTensorDescriptor", api.create_tensor(&c->y_desc_));
  FUSEBOX_CUDNN("cudnnCreateTensorDescriptor", api.create_tensor(&c->w_view_desc_));
  FUSEBOX_CUDNN("cudnnCreateTensorDescriptor", api.create_tensor(&c->w_packed_desc_));
  FUSEBOX_CUDNN("cudnnCreateFilterDescriptor", api.create_filter(&c->w_filter_desc_));
  FUSEBOX_CUDNN("cudnnCreateConvolutionDescriptor", api.create_conv(&c->conv_desc_));
  // x, y (dx, dy for the backward calls) in place; the filter (or its gradient) packed in
  // `layout` around the call, moved from or to its strided view.
  RETURN_IF_ERROR(SetTensor(c->x_desc_, type, plan.input));
  RETURN_IF_ERROR(SetTensor(c->y_desc_, type, plan.output));
  RETURN_IF_ERROR(SetTensor(c->w_view_desc_, type, plan.kernel));
  const ConvTensorView packed = PackedFilter(plan.kernel, layout);
  RETURN_IF_ERROR(SetTensor(c->w_packed_desc_, type, packed));
  int filter_dims[4];  // K, C, R, S whatever the format
  for (int i = 0; i < 4; ++i) filter_dims[i] = static_cast<int>(plan.kernel.dims[static_cast<size_t>(i)]);
  FUSEBOX_CUDNN("cudnnSetFilterNdDescriptor",
                api.set_filter_nd(c->w_filter_desc_, type, layout == FilterLayout::kKrsc ? kTensorNhwc : kTensorNchw,
                                  4, filter_dims));
  const int pad[2] = {static_cast<int>(plan.padding[0]), static_cast<int>(plan.padding[1])};
  const int stride[2] = {static_cast<int>(plan.stride[0]), static_cast<int>(plan.stride[1])};
  const int dilation[2] = {static_cast<int>(plan.dilation[0]), static_cast<int>(plan.dilation[1])};
  FUSEBOX_CUDNN("cudnnSetConvolutionNdDescriptor",
                api.set_conv_nd(c->conv_desc_, 2, pad, stride, dilation, kCrossCorrelation, kDataFloat));
  FUSEBOX_CUDNN("cudnnSetConvolutionGroupCount", api.set_group_count(c->conv_desc_, static_cast<int>(plan.groups)));
  // Default math lets f32 use TF32 tensor cores on sm_80+; FMA math keeps full f32.
  FUSEBOX_CUDNN("cudnnSetConvolutionMathType",
                api.set_math_type(c->conv_desc_, plan.type == GemmDataType::kF32 && !plan.tf32 ? kFmaMath : kDefaultMath));
  if (plan.bias_activation) {
    RETURN_IF_ERROR(api.fused_status);
    if (plan.call != ConvCall::kForward) return InvalidArgument("a fused convolution plan must be a forward one");
    // The bias as [1, K, 1, 1] of the data's type (f32, or f16 in the pseudo-half
    // configuration); the activation with NaNs propagated, as HLO's maximum does.
    FUSEBOX_CUDNN("cudnnCreateTensorDescriptor", api.create_tensor(&c->bias_desc_));
    RETURN_IF_ERROR(SetTensor(c->bias_desc_, type, plan.bias_activation->bias));
    FUSEBOX_CUDNN("cudnnCreateActivationDescriptor", api.create_activation(&c->activation_desc_));
    FUSEBOX_CUDNN("cudnnSetActivationDescriptor",
                  api.set_activation(c->activation_desc_, static_cast<int>(plan.bias_activation->activation),
                                     kPropagateNan, 0.0));
  }
  bool found = false;
  if (plan.bias_activation && !split && plan.bias_activation->activation == ConvFusedActivation::kIdentity) {
    // cuDNN's fused call takes an identity activation with IMPLICIT_PRECOMP_GEMM only.
    size_t bytes = 0;
    const int rc =
        api.get_fwd_workspace(handle_, c->x_desc_, c->w_filter_desc_, c->conv_desc_, c->y_desc_, kImplicitPrecompGemm, &bytes);
    if (rc != 0) {
      return CudnnError("cudnnGetConvolutionForwardWorkspaceSize (IMPLICIT_PRECOMP_GEMM, the only algorithm of "
                        "cudnnConvolutionBiasActivationForward with an identity activation)",
                        rc);
    }
    found = static_cast<int64_t>(bytes) <= max_workspace;
    c->algo_ = kImplicitPrecompGemm;
    c->workspace_bytes_ = static_cast<int64_t>(bytes);
    c->algorithm_ = AlgorithmName(kImplicitPrecompGemm);
  } else {
    ASSIGN_OR_RETURN(found, PickAlgorithm(handle_, c->x_desc_, c->y_desc_, c->w_filter_desc_, c->conv_desc_, plan.call,
                                          max_workspace, &c->algo_, &c->workspace_bytes_, &c->algorithm_));
  }
  c->split_ = split;
  if (!found) {
    return Unavailable("cuDNN has no algorithm for " + plan.ToString() + " with a " +
                       std::string(FilterLayoutName(layout)) + " filter within a workspace of " +
                       std::to_string(max_workspace) + " bytes");
  }
  const bool identity_fused = plan.bias_activation && !split &&
                              plan.bias_activation->activation == ConvFusedActivation::kIdentity;
  if (autotune_ && !identity_fused) Autotune(*c, max_workspace);
  // A filter (or filter gradient) already packed in `layout` needs no move.
  c->kernel_packed_ = packed.strides == plan.kernel.strides;
  c->packed_kernel_bytes_ = c->kernel_packed_ ? 0 : plan.kernel_elements * ElementBytes(plan.type);
  return c;
}

namespace {

// Elements from a strided view's first to its last, plus one.
int64_t Extent(const ConvTensorView& view) {
  int64_t last = 0;
  for (size_t i = 0; i < view.dims.size(); ++i) last += (view.dims[i] - 1) * view.strides[i];
  return last + 1;
}

// What autotuning may spend on a workspace: the call's limit, at most 64 MiB.
int64_t TuningWorkspaceLimit(int64_t max_workspace) { return std::min<int64_t>(max_workspace, int64_t{64} << 20); }

}  // namespace

bool Cudnn::ApplyCachedChoice(Convolution& c, const AutotuneRecord& record, int64_t workspace_limit) {
  const CudnnApi& api = Api();
  if (record.numbers.size() != 3 || record.numbers[0] > 64) return false;
  const int algo = static_cast<int>(record.numbers[0]);
  const int math = static_cast<int>(record.numbers[1]);
  const bool full_f32 = c.plan_.type == GemmDataType::kF32 && !c.plan_.tf32;
  const int wanted = full_f32 ? kFmaMath : kDefaultMath;
  if (math != wanted && (full_f32 || math != kTensorOpMath)) return false;  // the precision must hold
  if (math != wanted && api.set_math_type(c.conv_desc_, math) != 0) return false;
  size_t bytes = 0;
  const int rc = AlgorithmWorkspace(handle_, c.x_desc_, c.y_desc_, c.w_filter_desc_, c.conv_desc_, c.plan_.call, algo,
                                    &bytes);
  if (rc != 0 || static_cast<int64_t>(bytes) > workspace_limit) {
    if (math != wanted) (void)api.set_math_type(c.conv_desc_, wanted);
    return false;
  }
  c.tuning_.ran = true;
  c.tuning_.cached = true;
  c.tuning_.moved = algo != c.algo_;
  c.algo_ = algo;
  c.workspace_bytes_ = static_cast<int64_t>(bytes);
  c.algorithm_ = ConvAlgorithmName(c.plan_.call, algo);
  c.tuning_.text = record.text + " (cached)";
  return true;
}

void Cudnn::Autotune(Convolution& c, int64_t max_workspace) {
  const CudnnApi& api = Api();
  const ConvCall call = c.plan_.call;
  const int64_t workspace_bytes = TuningWorkspaceLimit(max_workspace);
  std::string key;
  if (cache_ != nullptr && context_ != nullptr) {
    const CudaDeviceInfo& device = context_->device();
    key = ConvAutotuneKey(AutotuneScope(description_, device.name, device.compute_major, device.compute_minor),
                          c.plan_, c.layout_, c.split_, max_workspace);
    std::optional<AutotuneRecord> hit = cache_->Find(key);
    if (hit && ApplyCachedChoice(c, *hit, workspace_bytes)) return;
  }
  const CudnnApi::FindFn find = call == ConvCall::kForward        ? api.find_fwd
                                : call == ConvCall::kBackwardData ? api.find_bwd_data
                                                                  : api.find_bwd_filter;
  if (find == nullptr || context_ == nullptr) {
    c.tuning_.text = "not autotuned (" + api.library + " lacks cudnnFind*AlgorithmEx)";
    return;
  }
  // Buffers of the call's shapes (not the run's: they are not allocated yet), filled with
  // 0x3c bytes (about 0.0115 in f32, 1.06 in f16: normal numbers): x, y, the filter, its
  // packed copy, a workspace, and a bias and side input of y's size for a fused call.
  const int64_t element = ElementBytes(c.plan_.type);
  const int64_t y_bytes = Extent(c.plan_.output) * element;
  StatusOr<std::vector<DeviceBuffer>> buffers = context_->AllocateFilled(
      {Extent(c.plan_.input) * element, y_bytes, c.plan_.kernel_elements * element, c.plan_.kernel_elements * element,
       workspace_bytes, c.fused() ? y_bytes : 0, c.fused() ? y_bytes : 0},
      0x3c);
  if (!buffers.ok()) {
    c.tuning_.text = "not autotuned (" + buffers.status().message() + ")";
    return;
  }
  auto dev = [&](size_t i) { return (*buffers)[i].ptr(); };
  auto ptr = [&](size_t i) { return reinterpret_cast<void*>(dev(i)); };
  void *x = ptr(0), *y = ptr(1), *w = ptr(2), *ws = ptr(4);
  FwdAlgoPerf perf[16] = {};
  int returned = 0;
  int rc = 0;
  switch (call) {
    case ConvCall::kForward:
      rc = find(handle_, c.x_desc_, x, c.w_filter_desc_, w, c.conv_desc_, c.y_desc_, y, 16, &returned, perf, ws,
                static_cast<size_t>(workspace_bytes));
      break;
    case ConvCall::kBackwardData:
      rc = find(handle_, c.w_filter_desc_, w, c.y_desc_, y, c.conv_desc_, c.x_desc_, x, 16, &returned, perf, ws,
                static_cast<size_t>(workspace_bytes));
      break;
    case ConvCall::kBackwardFilter:
      rc = find(handle_, c.x_desc_, x, c.y_desc_, y, c.conv_desc_, c.w_filter_desc_, w, 16, &returned, perf, ws,
                static_cast<size_t>(workspace_bytes));
      break;
  }
  (void)context_->Synchronize();
  if (rc != 0) {
    c.tuning_.text = "not autotuned (" + CudnnError("cudnnFind*AlgorithmEx", rc).message() + ")";
    return;
  }
  // cudnnFind*AlgorithmEx times each algorithm on one call, its first: an algorithm's
  // kernels load on their first launch, and on the H200 (2026-12-04) that made the CIFAR
  // step's backward-data call pick an algorithm of 146 us over one of about 10 (182.8 against
  // 221.2 us as Find timed them) and ResNet-50 run 2.53 ms of kernels tuned, 1.22 untuned.
  // So every usable algorithm Find returned runs the call as the run will (Run: the fused
  // call with its bias, the filter packing), once to warm up, then best of 3 between CUDA
  // events. Usable: it ran, fits the workspace and keeps the precision (the descriptor's
  // math type, or tensor-op math, TF32 for f32, where the default allows it; never the
  // down-conversion to half).
  const bool full_f32 = c.plan_.type == GemmDataType::kF32 && !c.plan_.tf32;
  const int wanted = full_f32 ? kFmaMath : kDefaultMath;
  const int heuristic_algo = c.algo_;
  const int64_t heuristic_workspace = c.workspace_bytes_;
  const DevicePtr x_dev = dev(0), y_dev = dev(1), w_dev = dev(2), packed_dev = dev(3), ws_dev = dev(4);
  const DevicePtr bias_dev = c.fused() ? dev(5) : 0, side_dev = c.fused() ? dev(6) : 0;
  auto run_once = [&]() -> Status {
    switch (call) {
      case ConvCall::kForward:
        return Run(c, x_dev, w_dev, y_dev, packed_dev, ws_dev, bias_dev, side_dev);
      case ConvCall::kBackwardData:
        return Run(c, y_dev, w_dev, x_dev, packed_dev, ws_dev, bias_dev, side_dev);
      case ConvCall::kBackwardFilter:
        return Run(c, x_dev, y_dev, w_dev, packed_dev, ws_dev, bias_dev, side_dev);
    }
    return Status::Ok();
  };
  int best = -1;
  double best_ms = -1, heuristic_ms = -1;
  for (int i = 0; i < returned; ++i) {
    const FwdAlgoPerf& p = perf[i];
    const bool math_ok = p.math_type == wanted || (!full_f32 && p.math_type == kTensorOpMath);
    if (p.status != 0 || !math_ok || static_cast<int64_t>(p.memory) > workspace_bytes || p.time < 0) continue;
    if (api.set_math_type(c.conv_desc_, p.math_type) != 0) continue;
    c.algo_ = p.algo;
    c.workspace_bytes_ = static_cast<int64_t>(p.memory);
    double ms = -1;
    if (run_once().ok()) {
      for (int repeat = 0; repeat < 3; ++repeat) {
        StatusOr<double> t = context_->TimeOnStream(run_once);
        if (!t.ok()) {
          ms = -1;
          break;
        }
        ms = ms < 0 ? *t : std::min(ms, *t);
      }
    }
    if (ms < 0) continue;  // it failed as the run calls it: not a candidate
    if (p.algo == heuristic_algo && p.math_type == wanted) heuristic_ms = ms;
    if (best < 0 || ms < best_ms) {
      best = i;
      best_ms = ms;
    }
  }
  (void)context_->Synchronize();
  if (best < 0) {
    (void)api.set_math_type(c.conv_desc_, wanted);
    c.algo_ = heuristic_algo;
    c.workspace_bytes_ = heuristic_workspace;
    c.tuning_.text = "autotuning found no usable algorithm; kept the heuristic's " + c.algorithm_;
    return;
  }
  const FwdAlgoPerf& p = perf[best];
  (void)api.set_math_type(c.conv_desc_, p.math_type);
  const std::string before = c.algorithm_;
  c.tuning_.ran = true;
  c.tuning_.moved = p.algo != heuristic_algo;
  c.algo_ = p.algo;
  c.workspace_bytes_ = static_cast<int64_t>(p.memory);
  c.algorithm_ = ConvAlgorithmName(call, p.algo);
  char line[160];
  std::snprintf(line, sizeof(line), "%.1f us", best_ms * 1e3);
  c.tuning_.text = c.algorithm_ + " " + line;
  if (c.tuning_.moved) {
    c.tuning_.text += ", heuristic's first " + before;
    if (heuristic_ms >= 0) {
      std::snprintf(line, sizeof(line), " %.1f us", heuristic_ms * 1e3);
      c.tuning_.text += line;
    }
  }
  if (!key.empty()) {
    (void)cache_->Insert(key, {{static_cast<uint64_t>(p.algo), static_cast<uint64_t>(p.math_type),
                                static_cast<uint64_t>(p.memory)},
                               c.tuning_.moved,
                               c.tuning_.text});
  }
}

Status Cudnn::Run(const Convolution& conv, DevicePtr operand0, DevicePtr operand1, DevicePtr result, DevicePtr packed,
                  DevicePtr workspace, DevicePtr bias, DevicePtr side) {
  const CudnnApi& api = Api();
  RETURN_IF_ERROR(api.status);
  // Scale factors are float for float, half and bfloat16 data.
  const float one = 1.0f, zero = 0.0f;
  auto ptr = [](DevicePtr p) { return reinterpret_cast<void*>(p); };
  const size_t workspace_bytes = static_cast<size_t>(conv.workspace_bytes_);
  const ConvCall call = conv.plan_.call;
  if (call == ConvCall::kBackwardFilter) {
    // x is operand 0, dy operand 1, dw the result (packed first when it is a strided view).
    const DevicePtr dw = conv.kernel_packed_ ? result : packed;
    FUSEBOX_CUDNN("cudnnConvolutionBackwardFilter",
                  api.backward_filter(handle_, &one, conv.x_desc_, ptr(operand0), conv.y_desc_, ptr(operand1),
                                      conv.conv_desc_, conv.algo_, ptr(workspace), workspace_bytes, &zero,
                                      conv.w_filter_desc_, ptr(dw)));
    if (!conv.kernel_packed_) {
      FUSEBOX_CUDNN("cudnnTransformTensor", api.transform(handle_, &one, conv.w_packed_desc_, ptr(packed), &zero,
                                                          conv.w_view_desc_, ptr(result)));
    }
    return Status::Ok();
  }
  // The forward and backward-data calls read the filter (operand 1), packed first.
  if (conv.kernel_packed_) {
    packed = operand1;
  } else {
    FUSEBOX_CUDNN("cudnnTransformTensor", api.transform(handle_, &one, conv.w_view_desc_, ptr(operand1), &zero,
                                                        conv.w_packed_desc_, ptr(packed)));
  }
  if (call == ConvCall::kBackwardData) {
    FUSEBOX_CUDNN("cudnnConvolutionBackwardData",
                  api.backward_data(handle_, &one, conv.w_filter_desc_, ptr(packed), conv.y_desc_, ptr(operand0),
                                    conv.conv_desc_, conv.algo_, ptr(workspace), workspace_bytes, &zero,
                                    conv.x_desc_, ptr(result)));
    return Status::Ok();
  }
  if (conv.plan_.bias_activation) {
    // y = act(alpha1 * conv(x, w) + alpha2 * z + bias); without a side input y stands for z
    // with alpha2 = 0.
    const ConvBiasActivation& e = *conv.plan_.bias_activation;
    if (bias == 0 || (e.side_input && side == 0)) return Internal("the fused convolution's bias or side input is missing");
    const float alpha1 = static_cast<float>(e.alpha1);
    const float alpha2 = e.side_input ? static_cast<float>(e.alpha2) : 0.0f;
    const DevicePtr z = e.side_input ? side : result;
    if (conv.split_) {
      // y = alpha1 * conv(x, w); y += alpha2 * z; y += bias; y = relu(y), in place.
      FUSEBOX_CUDNN("cudnnConvolutionForward",
                    api.forward(handle_, &alpha1, conv.x_desc_, ptr(operand0), conv.w_filter_desc_, ptr(packed),
                                conv.conv_desc_, conv.algo_, ptr(workspace), workspace_bytes, &zero, conv.y_desc_,
                                ptr(result)));
      if (e.side_input && e.alpha2 != 0) {
        FUSEBOX_CUDNN("cudnnAddTensor",
                      api.add_tensor(handle_, &alpha2, conv.y_desc_, ptr(side), &one, conv.y_desc_, ptr(result)));
      }
      FUSEBOX_CUDNN("cudnnAddTensor",
                    api.add_tensor(handle_, &one, conv.bias_desc_, ptr(bias), &one, conv.y_desc_, ptr(result)));
      if (e.activation == ConvFusedActivation::kRelu) {
        FUSEBOX_CUDNN("cudnnActivationForward", api.activation_forward(handle_, conv.activation_desc_, &one,
                                                                       conv.y_desc_, ptr(result), &zero,
                                                                       conv.y_desc_, ptr(result)));
      }
      return Status::Ok();
    }
    FUSEBOX_CUDNN("cudnnConvolutionBiasActivationForward",
                  api.bias_activation_forward(handle_, &alpha1, conv.x_desc_, ptr(operand0), conv.w_filter_desc_,
                                              ptr(packed), conv.conv_desc_, conv.algo_, ptr(workspace),
                                              workspace_bytes, &alpha2, conv.y_desc_, ptr(z), conv.bias_desc_,
                                              ptr(bias), conv.activation_desc_, conv.y_desc_, ptr(result)));
    return Status::Ok();
  }
  FUSEBOX_CUDNN("cudnnConvolutionForward",
                api.forward(handle_, &one, conv.x_desc_, ptr(operand0), conv.w_filter_desc_, ptr(packed),
                            conv.conv_desc_, conv.algo_, ptr(workspace), workspace_bytes, &zero, conv.y_desc_,
                            ptr(result)));
  return Status::Ok();
}

#undef FUSEBOX_CUDNN

}  // namespace fusebox::runtime
