// Convolutions as cuDNN forward cross-correlations (see conv_plan.h).
#include "compiler/ir/conv_plan.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "compiler/ir/library_calls.h"

namespace fusebox {
namespace {

Status NoPlan(const std::string& why) { return Unimplemented("no cuDNN plan: " + why); }

// Element strides of a row-major buffer of `shape`.
std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(static_cast<size_t>(shape.rank()), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = strides[static_cast<size_t>(d + 1)] * shape.dimensions(d + 1);
  }
  return strides;
}

// A 4-D view (outer, feature, spatial 0, spatial 1) of `shape`; one spatial dimension
// becomes height 1 (stride 0 is avoided: a size-1 dimension's stride is never used).
ConvTensorView ViewOf(const Shape& shape, int64_t outer, int64_t feature, const std::vector<int64_t>& spatial) {
  const std::vector<int64_t> strides = RowMajorStrides(shape);
  ConvTensorView v;
  v.dims[0] = shape.dimensions(outer);
  v.strides[0] = strides[static_cast<size_t>(outer)];
  v.dims[1] = shape.dimensions(feature);
  v.strides[1] = strides[static_cast<size_t>(feature)];
  if (spatial.size() == 2) {
    for (int i = 0; i < 2; ++i) {
      v.dims[2 + i] = shape.dimensions(spatial[static_cast<size_t>(i)]);
      v.strides[2 + i] = strides[static_cast<size_t>(spatial[static_cast<size_t>(i)])];
    }
  } else {
    v.dims[2] = 1;
    v.dims[3] = shape.dimensions(spatial[0]);
    v.strides[3] = strides[static_cast<size_t>(spatial[0])];
    v.strides[2] = v.strides[3] * v.dims[3];
  }
  return v;
}

// cuDNN plans take the half types and f32 (not f64).
std::optional<GemmDataType> ConvType(PrimitiveType type) {
  std::optional<GemmDataType> t = GemmDataTypeOf(type);
  if (t == GemmDataType::kF64) return std::nullopt;
  return t;
}

ConvTensorView Swapped(ConvTensorView v) {
  std::swap(v.dims[0], v.dims[1]);
  std::swap(v.strides[0], v.strides[1]);
  return v;
}

// A convolution whose window (the output gradient) is larger than its result, with one
// group, is the weight gradient of a forward convolution when the shapes agree: x = the
// input with N and C swapped, dy = the kernel with N and K swapped, dw = the result with C
// and K swapped, the same padding, stride = this window's dilation and dilation = its
// stride. Rewrites `plan` into that backward-filter call (same result, same flops).
void AsBackwardFilterIfWeightGradient(ConvPlan& plan) {
  if (plan.groups != 1 || plan.kernel.dims[2] * plan.kernel.dims[3] <= plan.output.dims[2] * plan.output.dims[3]) return;
  for (int i = 2; i < 4; ++i) {
    const int s = i - 2;
    // Forward: x spatial H, filter R (the result's), stride = our dilation, dilation = our stride.
    const int64_t effective = (plan.output.dims[i] - 1) * plan.stride[s] + 1;
    const int64_t extent = plan.input.dims[i] + 2 * plan.padding[s] - effective;
    if (extent < 0 || extent / plan.dilation[s] + 1 != plan.kernel.dims[i]) return;
  }
  const ConvTensorView dy = Swapped(plan.kernel);
  plan.kernel = Swapped(plan.output);
  plan.output = dy;
  plan.input = Swapped(plan.input);
  std::swap(plan.stride, plan.dilation);
  plan.call = ConvCall::kBackwardFilter;
}

StatusOr<ConvPlan> Plan(const Window& window, const ConvolutionDimensionNumbers& dn, int64_t feature_groups,
                        int64_t batch_groups, const Shape& x, const Shape& w, const Shape& y,
                        const ConvPlanOptions& options) {
  const size_t spatial = dn.input_spatial_dimensions.size();
  if (spatial < 1 || spatial > 2) return NoPlan(std::to_string(spatial) + " spatial dimensions (cuDNN plans take 1 or 2)");
  if (window.dimensions.size() != spatial || dn.kernel_spatial_dimensions.size() != spatial ||
      dn.output_spatial_dimensions.size() != spatial) {
    return NoPlan("window and dim_labels disagree");
  }
  if (!x.IsArray() || !w.IsArray() || !y.IsArray() || x.rank() != static_cast<int64_t>(spatial) + 2 ||
      w.rank() != x.rank() || y.rank() != x.rank()) {
    return NoPlan("operands are not arrays of rank spatial + 2");
  }
  if (x.is_dynamic() || w.is_dynamic() || y.is_dynamic()) return NoPlan("dynamic shapes");
  if (batch_groups != 1) return NoPlan("batch_group_count " + std::to_string(batch_groups));
  if (feature_groups < 1) return NoPlan("feature_group_count below 1");
  const std::optional<GemmDataType> type = ConvType(x.element_type());
  if (!type || w.element_type() != x.element_type() || y.element_type() != x.element_type()) {
    return NoPlan("element types " + std::string(PrimitiveTypeName(x.element_type())) + ", " +
                  std::string(PrimitiveTypeName(w.element_type())) + " -> " +
                  std::string(PrimitiveTypeName(y.element_type())) + " (cuDNN plans take f32, f16 or bf16 alike)");
  }
  ConvPlan plan;
  for (size_t i = 0; i < spatial; ++i) {
    const WindowDimension& d = window.dimensions[i];
    if (d.base_dilation != 1) return NoPlan("lhs (base) dilation: an input gradient of a strided convolution");
    if (d.window_reversal) return NoPlan("window reversal");
    if (d.padding_low != d.padding_high) return NoPlan("asymmetric padding " + std::to_string(d.padding_low) + "_" +
                                                        std::to_string(d.padding_high));
    if (d.padding_low < 0) return NoPlan("negative padding");
    if (d.stride < 1 || d.window_dilation < 1 || d.size < 1) return NoPlan("a window below 1");
    const size_t slot = spatial == 2 ? i : 1;  // 1-D: height 1, the window along width
    plan.padding[slot] = d.padding_low;
    plan.stride[slot] = d.stride;
    plan.dilation[slot] = d.window_dilation;
  }
  plan.input = ViewOf(x, dn.input_batch_dimension, dn.input_feature_dimension, dn.input_spatial_dimensions);
  plan.kernel = ViewOf(w, dn.kernel_output_feature_dimension, dn.kernel_input_feature_dimension,
                       dn.kernel_spatial_dimensions);
  plan.output = ViewOf(y, dn.output_batch_dimension, dn.output_feature_dimension, dn.output_spatial_dimensions);
  plan.groups = feature_groups;
  if (plan.input.dims[1] != plan.kernel.dims[1] * feature_groups || plan.kernel.dims[0] % feature_groups != 0 ||
      plan.output.dims[1] != plan.kernel.dims[0] || plan.output.dims[0] != plan.input.dims[0]) {
    return NoPlan("feature or batch sizes do not agree");
  }
  for (int i = 2; i < 4; ++i) {
    const int s = i - 2;
    const int64_t extent = plan.input.dims[i] + 2 * plan.padding[s] - (plan.kernel.dims[i] - 1) * plan.dilation[s] - 1;
    const int64_t expected = extent < 0 ? 0 : extent / plan.stride[s] + 1;
    if (expected != plan.output.dims[i]) return NoPlan("the output's spatial size is not the window's");
  }
  constexpr int64_t kIntMax = 2147483647;
  for (const ConvTensorView* v : {&plan.input, &plan.kernel, &plan.output}) {
    for (int i = 0; i < 4; ++i) {
      if (v->dims[i] < 1) return NoPlan("an empty dimension");
      if (v->dims[i] > kIntMax || v->strides[i] > kIntMax) return NoPlan("a dimension above cuDNN's int range");
    }
  }
  plan.type = *type;
  plan.tf32 = *type == GemmDataType::kF32 && options.allow_tf32;
  plan.flops = 2 * plan.output.dims[0] * plan.output.dims[1] * plan.output.dims[2] * plan.output.dims[3] *
               plan.kernel.dims[1] * plan.kernel.dims[2] * plan.kernel.dims[3];
  if (options.weight_gradients_as_backward_filter) AsBackwardFilterIfWeightGradient(plan);
  plan.kernel_elements = plan.kernel.dims[0] * plan.kernel.dims[1] * plan.kernel.dims[2] * plan.kernel.dims[3];
  return plan;
}

}  // namespace

std::string_view ConvCallName(ConvCall call) {
  switch (call) {
    case ConvCall::kForward:
      return "cudnnConvolutionForward";
    case ConvCall::kBackwardData:
      return "cudnnConvolutionBackwardData";
    case ConvCall::kBackwardFilter:
      return "cudnnConvolutionBackwardFilter";
  }
  return "?";
}

std::string_view FilterLayoutName(FilterLayout layout) { return layout == FilterLayout::kKrsc ? "KRSC" : "KCRS"; }

ConvTensorView PackedFilter(const ConvTensorView& kernel, FilterLayout layout) {
  ConvTensorView packed = kernel;
  const auto& d = kernel.dims;
  if (layout == FilterLayout::kKcrs) {
    packed.strides = {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1};
  } else {
    packed.strides = {d[2] * d[3] * d[1], 1, d[3] * d[1], d[1]};
  }
  return packed;
}

namespace {

// Two views address the same elements alike (strides of size-1 dimensions never count).
bool SameAddressing(const ConvTensorView& a, const ConvTensorView& b) {
  for (int i = 0; i < 4; ++i) {
    if (a.dims[i] != b.dims[i] || (a.dims[i] > 1 && a.strides[i] != b.strides[i])) return false;
  }
  return true;
}

}  // namespace

std::optional<FilterLayout> PackedFilterLayout(const ConvPlan& plan) {
  for (FilterLayout layout : {FilterLayout::kKcrs, FilterLayout::kKrsc}) {
    if (SameAddressing(plan.kernel, PackedFilter(plan.kernel, layout))) return layout;
  }
  return std::nullopt;
}

FilterLayout PreferredFilterLayout(const ConvPlan& plan) {
  if (std::optional<FilterLayout> packed = PackedFilterLayout(plan)) return *packed;
  const bool channel_minor = plan.input.dims[1] > 1 && plan.input.strides[1] == 1;
  return channel_minor ? FilterLayout::kKrsc : FilterLayout::kKcrs;
}

std::string ConvPlan::ToString() const {
  const std::string name = bias_activation ? "cudnnConvolutionBiasActivationForward (" +
                                               ConvBiasActivationName(*bias_activation) + ")"
                                         : std::string(ConvCallName(call));
  char buf[400];
  std::snprintf(buf, sizeof(buf),
                "%s x[N=%lld,C=%lld,H=%lld,W=%lld] w[K=%lld,C=%lld,R=%lld,S=%lld] pad %lldx%lld "
                "stride %lldx%lld dilation %lldx%lld groups %lld %s%s",
                name.c_str(), static_cast<long long>(input.dims[0]),
                static_cast<long long>(input.dims[1]), static_cast<long long>(input.dims[2]),
                static_cast<long long>(input.dims[3]), static_cast<long long>(kernel.dims[0]),
                static_cast<long long>(kernel.dims[1]), static_cast<long long>(kernel.dims[2]),
                static_cast<long long>(kernel.dims[3]), static_cast<long long>(padding[0]),
                static_cast<long long>(padding[1]), static_cast<long long>(stride[0]),
                static_cast<long long>(stride[1]), static_cast<long long>(dilation[0]),
                static_cast<long long>(dilation[1]), static_cast<long long>(groups),
                std::string(GemmDataTypeName(type)).c_str(), tf32 ? " tf32" : "");
  return buf;
}

StatusOr<ConvPlan> PlanConvolutionShapes(const Window& window, const ConvolutionDimensionNumbers& dn,
                                         int64_t feature_groups, int64_t batch_groups, const Shape& x, const Shape& w,
                                         const Shape& y, const ConvPlanOptions& options) {
  return Plan(window, dn, feature_groups, batch_groups, x, w, y, options);
}

namespace {

// XLA's convolution calls: the forward convolution they are about, planned from the
// shapes in its roles (see ConvCall).
StatusOr<ConvPlan> PlanLibraryConvolution(const Instruction& conv, ConvPlanOptions options) {
  ASSIGN_OR_RETURN(LibraryCall call, ParseLibraryCall(conv));
  const Shape& a = conv.operand(0)->shape();
  const Shape& b = conv.operand(1)->shape();
  if (call.kind == LibraryCallKind::kConvBiasActivationForward) {
    const Shape* side = conv.operand_count() > 3 ? &conv.operand(3)->shape() : nullptr;
    StatusOr<ConvPlan> plan = PlanConvBiasActivation(call, a, b, conv.operand(2)->shape(), side, options);
    if (!plan.ok()) return plan.status().WithPrefix(conv.name() + ": ");
    return plan;
  }
  if (call.conv_result_scale != 1 || call.activation != ConvActivation::kNone) {
    return NoPlan(conv.name() + ": a scaled or activated convolution");
  }
  options.weight_gradients_as_backward_filter = false;  // the call says which it is
  StatusOr<ConvPlan> plan = Unimplemented("");
  switch (call.kind) {
    case LibraryCallKind::kConvForward:
      plan = Plan(call.window, call.conv, call.feature_group_count, call.batch_group_count, a, b, call.result, options);
      break;
    case LibraryCallKind::kConvBackwardInput:  // (dy, w) -> dx
      plan = Plan(call.window, call.conv, call.feature_group_count, call.batch_group_count, call.result, b, a, options);
      if (plan.ok()) plan->call = ConvCall::kBackwardData;
      break;
    case LibraryCallKind::kConvBackwardFilter:  // (x, dy) -> dw
      plan = Plan(call.window, call.conv, call.feature_group_count, call.batch_group_count, a, call.result, b, options);
      if (plan.ok()) plan->call = ConvCall::kBackwardFilter;
      break;
    default:
      return NoPlan(conv.name() + ": " + call.target + " is not a convolution call");
  }
  if (!plan.ok()) return plan.status().WithPrefix(conv.name() + ": ");
  return plan;
}

const char* ActivationModeName(ConvActivation activation) {
  switch (activation) {
    case ConvActivation::kNone:
      return "kNone";
    case ConvActivation::kRelu:
      return "kRelu";
    case ConvActivation::kRelu6:
      return "kRelu6";
    case ConvActivation::kElu:
      return "kElu";
    case ConvActivation::kLeakyRelu:
      return "kLeakyRelu";
    case ConvActivation::kSigmoid:
      return "kSigmoid";
    case ConvActivation::kTanh:
      return "kTanh";
  }
  return "?";
}

}  // namespace

StatusOr<ConvPlan> PlanConvBiasActivation(const LibraryCall& call, const Shape& x, const Shape& w, const Shape& bias,
                                          const Shape* side, const ConvPlanOptions& options) {
  ConvBiasActivation epilogue;
  // cuDNN's fused call applies identity or relu; XLA asks it for nothing else without
  // its graph API.
  switch (call.activation) {
    case ConvActivation::kNone:
      epilogue.activation = ConvFusedActivation::kIdentity;
      break;
    case ConvActivation::kRelu:
      epilogue.activation = ConvFusedActivation::kRelu;
      break;
    default:
      return NoPlan(std::string("activation ") + ActivationModeName(call.activation) +
                    " (cudnnConvolutionBiasActivationForward applies identity or relu only)");
  }
  // Its float configuration (all f32) and pseudo-half one (f16 data and bias, f32
  // arithmetic); bf16 is not among the configurations it lists.
  const PrimitiveType type = x.element_type();
  if (type != PrimitiveType::kF32 && type != PrimitiveType::kF16) {
    return NoPlan(std::string("element type ") + std::string(PrimitiveTypeName(type)) +
                  " (cudnnConvolutionBiasActivationForward takes f32 or f16 here)");
  }
  ConvPlanOptions forward = options;
  forward.weight_gradients_as_backward_filter = false;  // the fused call is a forward one
  ASSIGN_OR_RETURN(ConvPlan plan, Plan(call.window, call.conv, call.feature_group_count, call.batch_group_count, x, w,
                                       call.result, forward));
  const int64_t k = plan.output.dims[1];
  if (!bias.IsArray() || bias.rank() != 1 || bias.dimensions(0) != k || bias.element_type() != type) {
    return NoPlan("the bias (operand 2) is " + bias.ToString() + ", not a vector of " + std::to_string(k) + " " +
                  std::string(PrimitiveTypeName(type)) + " along the output features");
  }
  if (side != nullptr) {
    if (!side->IsArray() || side->dimensions() != call.result.dimensions() || side->element_type() != type ||
        side->is_dynamic()) {
      return NoPlan("the side input (operand 3) is " + side->ToString() + ", not shaped as the result " +
                    call.result.ToString() + " (cuDNN describes z as y)");
    }
    if (side->has_layout() && call.result.has_layout() &&
        side->layout().minor_to_major != call.result.layout().minor_to_major) {
      return NoPlan("the side input's layout " + side->ToString() + " is not the result's " + call.result.ToString() +
                    " (cuDNN describes z as y)");
    }
    epilogue.side_input = true;
    epilogue.alpha2 = call.side_input_scale;
  }
  epilogue.alpha1 = call.conv_result_scale;
  epilogue.bias.dims = {1, k, 1, 1};
  epilogue.bias.strides = {k, 1, 1, 1};
  // The epilogue's elementwise work: the bias add, the scalings and side add, the relu.
  const int64_t outputs = plan.output.dims[0] * plan.output.dims[1] * plan.output.dims[2] * plan.output.dims[3];
  plan.flops += outputs * (1 + (epilogue.alpha1 != 1 ? 1 : 0) + (epilogue.side_input ? 2 : 0) +
                           (epilogue.activation == ConvFusedActivation::kRelu ? 1 : 0));
  plan.bias_activation = epilogue;
  return plan;
}

std::string ConvBiasActivationName(const ConvBiasActivation& epilogue) {
  std::string name = "conv+bias";
  if (epilogue.side_input) name += "+side";
  if (epilogue.activation == ConvFusedActivation::kRelu) name += "+relu";
  return name;
}

StatusOr<ConvPlan> PlanConvolution(const Instruction& conv, const ConvPlanOptions& options) {
  if (conv.operand_count() < 2) return NoPlan(conv.name() + " has no two operands");
  if (conv.opcode() != Opcode::kConvolution) return PlanLibraryConvolution(conv, options);
  const InstructionAttributes& attrs = conv.attrs();
  if (!attrs.window || !attrs.convolution_dimension_numbers) return NoPlan(conv.name() + " has no window or dim_labels");
  StatusOr<ConvPlan> plan = Plan(*attrs.window, *attrs.convolution_dimension_numbers, attrs.feature_group_count,
                                 attrs.batch_group_count, conv.operand(0)->shape(), conv.operand(1)->shape(),
                                 conv.shape(), options);
  if (!plan.ok()) return plan.status().WithPrefix(conv.name() + ": ");
  return plan;
}

namespace {

int64_t At(const ConvTensorView& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return a * v.strides[0] + b * v.strides[1] + c * v.strides[2] + d * v.strides[3];
}

int64_t Dense(const ConvTensorView& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return ((a * v.dims[1] + b) * v.dims[2] + c) * v.dims[3] + d;
}

// Every term x[n, c, h, v] * w[k, c', r, s] * (dy or y)[n, k, p, q] of the forward
// convolution, added (in double) where the call puts it: into the computed buffer's
// view, held densely.
std::vector<double> ConvSums(const ConvPlan& plan, const float* a, const float* b) {
  const ConvTensorView& xv = plan.input;
  const ConvTensorView& wv = plan.kernel;
  const ConvTensorView& yv = plan.output;
  const ConvTensorView& out = plan.call == ConvCall::kForward ? yv : plan.call == ConvCall::kBackwardData ? xv : wv;
  std::vector<double> sum(static_cast<size_t>(out.dims[0] * out.dims[1] * out.dims[2] * out.dims[3]), 0.0);
  const int64_t k_per_group = wv.dims[0] / plan.groups;
  for (int64_t n = 0; n < yv.dims[0]; ++n)
    for (int64_t k = 0; k < yv.dims[1]; ++k)
      for (int64_t p = 0; p < yv.dims[2]; ++p)
        for (int64_t q = 0; q < yv.dims[3]; ++q)
          for (int64_t c = 0; c < wv.dims[1]; ++c)
            for (int64_t r = 0; r < wv.dims[2]; ++r)
              for (int64_t s = 0; s < wv.dims[3]; ++s) {
                const int64_t h = p * plan.stride[0] - plan.padding[0] + r * plan.dilation[0];
                const int64_t v = q * plan.stride[1] - plan.padding[1] + s * plan.dilation[1];
                if (h < 0 || h >= xv.dims[2] || v < 0 || v >= xv.dims[3]) continue;
                const int64_t xc = k / k_per_group * wv.dims[1] + c;
                switch (plan.call) {
                  case ConvCall::kForward:  // a = x, b = w
                    sum[static_cast<size_t>(Dense(yv, n, k, p, q))] +=
                        static_cast<double>(a[At(xv, n, xc, h, v)]) * b[At(wv, k, c, r, s)];
                    break;
                  case ConvCall::kBackwardData:  // a = dy, b = w
                    sum[static_cast<size_t>(Dense(xv, n, xc, h, v))] +=
                        static_cast<double>(a[At(yv, n, k, p, q)]) * b[At(wv, k, c, r, s)];
                    break;
                  case ConvCall::kBackwardFilter:  // a = x, b = dy
                    sum[static_cast<size_t>(Dense(wv, k, c, r, s))] +=
                        static_cast<double>(a[At(xv, n, xc, h, v)]) * b[At(yv, n, k, p, q)];
                    break;
                }
              }
  return sum;
}

int64_t Elements(const ConvTensorView& v) { return v.dims[0] * v.dims[1] * v.dims[2] * v.dims[3]; }

// f16 and bf16 plans run as f32 ones on decoded copies, their result rounded once into the
// caller's buffer: cuDNN computes such convolutions in f32.
PrimitiveType SixteenBitType(GemmDataType type) {
  return type == GemmDataType::kF16 ? PrimitiveType::kF16 : PrimitiveType::kBF16;
}

std::vector<float> Decoded(GemmDataType type, const void* p, int64_t count) {
  std::vector<float> out(static_cast<size_t>(count));
  const auto* bits = static_cast<const uint16_t*>(p);
  for (int64_t i = 0; i < count; ++i) {
    out[static_cast<size_t>(i)] = static_cast<float>(FloatBitsToDouble(SixteenBitType(type), bits[i]));
  }
  return out;
}

void Encode(GemmDataType type, const std::vector<float>& values, void* p) {
  auto* bits = static_cast<uint16_t*>(p);
  for (size_t i = 0; i < values.size(); ++i) {
    bits[i] = static_cast<uint16_t>(DoubleToFloatBits(SixteenBitType(type), values[i]));
  }
}

// The views of a call's operands 0 and 1 and of its result.
const ConvTensorView& Operand0View(const ConvPlan& plan) {
  return plan.call == ConvCall::kBackwardData ? plan.output : plan.input;
}
const ConvTensorView& Operand1View(const ConvPlan& plan) {
  return plan.call == ConvCall::kBackwardFilter ? plan.output : plan.kernel;
}
const ConvTensorView& ResultView(const ConvPlan& plan) {
  return plan.call == ConvCall::kForward ? plan.output : plan.call == ConvCall::kBackwardData ? plan.input : plan.kernel;
}

bool SixteenBit(const ConvPlan& plan) { return plan.type == GemmDataType::kF16 || plan.type == GemmDataType::kBF16; }

}  // namespace

Status RunConvPlanOnHost(const ConvPlan& plan, const void* operand0, const void* operand1, void* result) {
  if (SixteenBit(plan)) {
    ConvPlan f32 = plan;
    f32.type = GemmDataType::kF32;
    const std::vector<float> a = Decoded(plan.type, operand0, Elements(Operand0View(plan)));
    const std::vector<float> b = Decoded(plan.type, operand1, Elements(Operand1View(plan)));
    std::vector<float> y(static_cast<size_t>(Elements(ResultView(plan))));
    RETURN_IF_ERROR(RunConvPlanOnHost(f32, a.data(), b.data(), y.data()));
    Encode(plan.type, y, result);
    return Status::Ok();
  }
  if (plan.type != GemmDataType::kF32) return Unimplemented("the host convolution runs f32, f16 and bf16 plans only");
  if (plan.bias_activation) return InvalidArgument("a fused plan runs with its bias: RunConvBiasActivationPlanOnHost");
  const std::vector<double> sum =
      ConvSums(plan, static_cast<const float*>(operand0), static_cast<const float*>(operand1));
  const ConvTensorView& out =
      plan.call == ConvCall::kForward ? plan.output : plan.call == ConvCall::kBackwardData ? plan.input : plan.kernel;
  auto* y = static_cast<float*>(result);
  for (int64_t i = 0; i < out.dims[0]; ++i)
    for (int64_t j = 0; j < out.dims[1]; ++j)
      for (int64_t h = 0; h < out.dims[2]; ++h)
        for (int64_t v = 0; v < out.dims[3]; ++v) {
          y[At(out, i, j, h, v)] = static_cast<float>(sum[static_cast<size_t>(Dense(out, i, j, h, v))]);
        }
  return Status::Ok();
}

Status RunConvBiasActivationPlanOnHost(const ConvPlan& plan, const void* x, const void* w, const void* bias,
                                       const void* side, void* result) {
  if (!plan.bias_activation || plan.call != ConvCall::kForward) {
    return InvalidArgument("not a plan of cudnnConvolutionBiasActivationForward");
  }
  const ConvBiasActivation& e = *plan.bias_activation;
  if (SixteenBit(plan)) {
    ConvPlan f32 = plan;
    f32.type = GemmDataType::kF32;
    const std::vector<float> xs = Decoded(plan.type, x, Elements(plan.input));
    const std::vector<float> ws = Decoded(plan.type, w, Elements(plan.kernel));
    const std::vector<float> bs = Decoded(plan.type, bias, Elements(e.bias));
    const bool reads = e.side_input && e.alpha2 != 0 && side != nullptr;
    const std::vector<float> zs = reads ? Decoded(plan.type, side, Elements(plan.output)) : std::vector<float>();
    std::vector<float> y(static_cast<size_t>(Elements(plan.output)));
    RETURN_IF_ERROR(RunConvBiasActivationPlanOnHost(f32, xs.data(), ws.data(), bs.data(), reads ? zs.data() : nullptr,
                                                    y.data()));
    Encode(plan.type, y, result);
    return Status::Ok();
  }
  if (plan.type != GemmDataType::kF32) return Unimplemented("the host convolution runs f32, f16 and bf16 plans only");
  const bool reads_side = e.side_input && e.alpha2 != 0;
  if (reads_side && side == nullptr) return InvalidArgument("the fused plan has a side input but none was given");
  // The sums first: `side` may be `result`.
  const std::vector<double> sum = ConvSums(plan, static_cast<const float*>(x), static_cast<const float*>(w));
  const auto* b = static_cast<const float*>(bias);
  const auto* z = static_cast<const float*>(side);
  auto* y = static_cast<float*>(result);
  const ConvTensorView& out = plan.output;
  for (int64_t n = 0; n < out.dims[0]; ++n)
    for (int64_t k = 0; k < out.dims[1]; ++k)
      for (int64_t h = 0; h < out.dims[2]; ++h)
        for (int64_t v = 0; v < out.dims[3]; ++v) {
          const int64_t at = At(out, n, k, h, v);
          double value = e.alpha1 * sum[static_cast<size_t>(Dense(out, n, k, h, v))];
          if (reads_side) value += e.alpha2 * z[at];
          value += b[At(e.bias, 0, k, 0, 0)];
          if (e.activation == ConvFusedActivation::kRelu && value < 0) value = 0;  // NaN stays NaN, as with maximum
          y[at] = static_cast<float>(value);
        }
  return Status::Ok();
}

}  // namespace fusebox
