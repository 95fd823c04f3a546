#include "compiler/ir/library_calls.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/backend_config.h"
#include "compiler/ir/cholesky.h"
#include "compiler/ir/fused_attention.h"
#include "compiler/ir/householder.h"
#include "compiler/ir/plain_hlo_builder.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/ir/jacobi.h"

namespace fusebox {
namespace {

using nlohmann::json;

Status CallError(const Instruction& inst, const std::string& what) {
  return InvalidArgument("custom-call " + inst.name() + " (" + inst.attrs().custom_call_target + "): " + what);
}

Status CallUnsupported(const Instruction& inst, const std::string& what) {
  return Unimplemented("custom-call " + inst.name() + " (" + inst.attrs().custom_call_target + "): " + what);
}

StatusOr<std::vector<int64_t>> DimensionList(const Instruction& inst, const json& object, const char* key) {
  StatusOr<std::vector<int64_t>> list = JsonIntegerList(object, key);
  if (!list.ok()) return CallError(inst, list.status().message());
  return list;
}

double NumberOr(const json& object, const char* key, double fallback) { return JsonNumberOr(object, key, fallback); }

// The call's parameters: backend_config's `key` object (XLA since 2023), or the whole
// backend_config when it holds `marker` directly (the older form, still in XLA's tests).
StatusOr<json> SubConfig(const Instruction& inst, const char* key, const char* marker) {
  std::optional<json> config = BackendConfigJson(inst);
  if (!config || !config->is_object()) return CallError(inst, "has no backend_config JSON (XLA writes the call's parameters there)");
  if (config->contains(key) && config->at(key).is_object()) return config->at(key);
  if (config->contains(marker)) return *config;
  return CallError(inst, std::string("backend_config has no ") + key);
}

bool IsWorkspace(const Shape& shape) {
  return shape.IsArray() && shape.rank() == 1 &&
         (shape.element_type() == PrimitiveType::kS8 || shape.element_type() == PrimitiveType::kU8);
}

// The value the call returns: the whole result, or tuple element 0 with the rest
// workspace bytes (rank-1 s8/u8), except element `aux_element` when it is not -1 (checked
// by the caller). Anything else is an output this description lacks.
StatusOr<Shape> ValueShape(const Instruction& inst, int64_t aux_element = -1) {
  const Shape& shape = inst.shape();
  if (shape.IsArray()) return shape;
  if (!shape.IsTuple() || shape.tuple_shapes().empty() || !shape.tuple_shapes(0).IsArray()) {
    return CallError(inst, "result is neither an array nor a tuple of (value, workspace)");
  }
  for (int64_t i = 1; i < shape.tuple_size(); ++i) {
    if (i != aux_element && !IsWorkspace(shape.tuple_shapes(i))) {
      return CallUnsupported(inst, "result element " + std::to_string(i) + " is not a workspace (an auxiliary "
                                   "output such as an fp8 amax, which Fusebox does not model)");
    }
  }
  return shape.tuple_shapes(0);
}

Status ParseGemm(const Instruction& inst, LibraryCall& call) {
  ASSIGN_OR_RETURN(json config, SubConfig(inst, "gemm_backend_config", "dot_dimension_numbers"));
  call.alpha = NumberOr(config, "alpha_real", 1);
  call.beta = NumberOr(config, "beta", 0);
  if (NumberOr(config, "alpha_imag", 0) != 0) return CallUnsupported(inst, "a complex alpha is not modelled");
  if (config.contains("damax_output") && config.at("damax_output").is_boolean() && config.at("damax_output").get<bool>()) {
    return CallUnsupported(inst, "fp8 amax outputs are not modelled");
  }
  if (config.contains("dot_dimension_numbers")) {
    const json& dims = config.at("dot_dimension_numbers");
    ASSIGN_OR_RETURN(call.dot.lhs_contracting_dimensions, DimensionList(inst, dims, "lhs_contracting_dimensions"));
    ASSIGN_OR_RETURN(call.dot.rhs_contracting_dimensions, DimensionList(inst, dims, "rhs_contracting_dimensions"));
    ASSIGN_OR_RETURN(call.dot.lhs_batch_dimensions, DimensionList(inst, dims, "lhs_batch_dimensions"));
    ASSIGN_OR_RETURN(call.dot.rhs_batch_dimensions, DimensionList(inst, dims, "rhs_batch_dimensions"));
  }
  if (config.contains("precision_config") && config.at("precision_config").contains("operand_precision")) {
    for (const json& p : config.at("precision_config").at("operand_precision")) {
      std::optional<Precision> precision = p.is_string() ? ParsePrecision(p.get<std::string>()) : std::nullopt;
      if (!precision) return CallError(inst, "unknown operand precision " + p.dump());
      call.precision.push_back(*precision);
    }
  }
  if (config.contains("epilogue") && !config.at("epilogue").is_string()) return CallError(inst, "epilogue is not a name");
  const std::string epilogue = JsonStringOr(config, "epilogue", "DEFAULT");
  if (epilogue == "DEFAULT") call.epilogue = GemmEpilogue::kDefault;
  else if (epilogue == "BIAS") call.epilogue = GemmEpilogue::kBias;
  else if (epilogue == "RELU") call.epilogue = GemmEpilogue::kRelu;
  else if (epilogue == "BIAS_RELU") call.epilogue = GemmEpilogue::kBiasRelu;
  else if (epilogue == "GELU") call.epilogue = GemmEpilogue::kGelu;
  else if (epilogue == "BIAS_GELU") call.epilogue = GemmEpilogue::kBiasGelu;
  else if (epilogue == "GELU_AUX") call.epilogue = GemmEpilogue::kGeluAux;
  else if (epilogue == "BIAS_GELU_AUX") call.epilogue = GemmEpilogue::kBiasGeluAux;
  else return CallUnsupported(inst, "epilogue " + epilogue + " is not modelled");
  if (GemmEpilogueHasAux(call.epilogue)) {
    // (value, aux[, workspace]): the aux is the GELU's input, the value's shape.
    const Shape& shape = inst.shape();
    if (!shape.IsTuple() || shape.tuple_size() < 2 || !shape.tuple_shapes(1).IsArray() ||
        shape.tuple_shapes(1).element_type() != call.result.element_type() ||
        shape.tuple_shapes(1).dimensions() != call.result.dimensions()) {
      return CallError(inst, "epilogue " + epilogue + " writes the GELU's input as result element 1, which must be an "
                             "array of the value's shape and type");
    }
    if (shape.tuple_shapes(1).has_layout() && call.result.has_layout() &&
        shape.tuple_shapes(1).layout().minor_to_major != call.result.layout().minor_to_major) {
      return CallUnsupported(inst, "an aux output in another layout than the value's is not modelled (cuBLASLt writes "
                                   "both alike)");
    }
  } else {
    RETURN_IF_ERROR(ValueShape(inst).status());  // element 1 must be a workspace too
  }

  int64_t next = 2;
  if (call.beta != 0) {
    if (inst.operand_count() <= next || !inst.operand(next)->shape().IsArray() ||
        inst.operand(next)->shape().dimensions() != call.result.dimensions()) {
      return CallError(inst, "beta is " + std::to_string(call.beta) + " but operand 2 is not a c of the result's shape");
    }
    ++next;
  }
  if (GemmEpilogueHasBias(call.epilogue)) {
    if (inst.operand_count() <= next) return CallError(inst, "epilogue " + epilogue + " needs a bias operand");
    const Shape& b = inst.operand(next)->shape();
    const int64_t last = call.result.rank() - 1;
    if (!b.IsArray() || b.rank() != 1 || last < 0 || b.dimensions()[0] != call.result.dimensions()[last]) {
      return CallError(inst, "the bias (operand " + std::to_string(next) + ") must be a vector as long as the result's last dimension");
    }
    // The vector runs along the minor dimension of a row-major result; with another
    // layout which dimension cuBLASLt adds it along is not something to guess.
    if (call.result.has_layout() && !call.result.layout().minor_to_major.empty() &&
        call.result.layout().minor_to_major[0] != last) {
      return CallUnsupported(inst, "a bias epilogue on a result whose layout is not row-major is not modelled");
    }
    call.bias_operand = next;
    call.bias_dimension = last;
    ++next;
  }
  if (inst.operand_count() != next) {
    return CallError(inst, "has " + std::to_string(inst.operand_count()) + " operands; with beta " +
                               std::to_string(call.beta) + " and epilogue " + epilogue + " it takes " + std::to_string(next));
  }
  return Status::Ok();
}

StatusOr<ConvActivation> ParseActivation(const Instruction& inst, const std::string& mode) {
  if (mode == "kNone" || mode.empty()) return ConvActivation::kNone;
  if (mode == "kRelu") return ConvActivation::kRelu;
  if (mode == "kRelu6") return ConvActivation::kRelu6;
  if (mode == "kElu") return ConvActivation::kElu;
  if (mode == "kLeakyRelu") return ConvActivation::kLeakyRelu;
  if (mode == "kSigmoid") return ConvActivation::kSigmoid;
  if (mode == "kTanh") return ConvActivation::kTanh;
  return CallUnsupported(inst, "activation " + mode + " is not modelled");
}

Status ParseConv(const Instruction& inst, LibraryCall& call) {
  const InstructionAttributes& attrs = inst.attrs();
  if (!attrs.window || !attrs.convolution_dimension_numbers) {
    return CallError(inst, "a convolution call needs window= and dim_labels=");
  }
  call.window = *attrs.window;
  call.conv = *attrs.convolution_dimension_numbers;
  call.feature_group_count = attrs.feature_group_count;
  call.batch_group_count = attrs.batch_group_count;
  const size_t spatial = call.conv.input_spatial_dimensions.size();
  if (call.window.dimensions.size() != spatial || call.conv.kernel_spatial_dimensions.size() != spatial ||
      call.conv.output_spatial_dimensions.size() != spatial) {
    return CallError(inst, "window and dim_labels disagree on the number of spatial dimensions");
  }
  std::optional<json> config = BackendConfigJson(inst);
  if (config && config->is_object() &&
      (config->contains("cudnn_conv_backend_config") || config->contains("conv_result_scale"))) {
    const json& c = config->contains("cudnn_conv_backend_config") ? config->at("cudnn_conv_backend_config") : *config;
    call.conv_result_scale = NumberOr(c, "conv_result_scale", 1);
    call.side_input_scale = NumberOr(c, "side_input_scale", 0);
    call.leakyrelu_alpha = NumberOr(c, "leakyrelu_alpha", 0);
    if (c.contains("activation_mode") && !c.at("activation_mode").is_string()) {
      return CallError(inst, "activation_mode is not a name");
    }
    ASSIGN_OR_RETURN(call.activation, ParseActivation(inst, JsonStringOr(c, "activation_mode", "kNone")));
  }
  int64_t operands = 2;
  if (call.kind == LibraryCallKind::kConvBiasActivationForward) {
    operands = inst.operand_count() == 4 ? 4 : 3;
    if (call.side_input_scale != 0 && operands != 4) return CallError(inst, "side_input_scale is set but there is no side input");
  } else if (call.activation != ConvActivation::kNone && call.kind != LibraryCallKind::kConvForward) {
    return CallUnsupported(inst, "an activation on a backward convolution is not modelled");
  }
  if (inst.operand_count() != operands) {
    return CallError(inst, "has " + std::to_string(inst.operand_count()) + " operands; it takes " + std::to_string(operands));
  }
  const bool backward = call.kind == LibraryCallKind::kConvBackwardInput || call.kind == LibraryCallKind::kConvBackwardFilter;
  if (backward && (call.feature_group_count != 1 || call.batch_group_count != 1)) {
    return CallUnsupported(inst, "a grouped backward convolution is not modelled");
  }
  for (const WindowDimension& w : call.window.dimensions) {
    if (backward && w.base_dilation != 1) return CallUnsupported(inst, "a backward convolution with lhs dilation is not modelled");
    if (w.size < 1 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) return CallError(inst, "window has a size, stride or dilation below 1");
  }
  return Status::Ok();
}

using Emitter = library_call_internal::PlainHloBuilder;

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): the tanh form cuBLASLt's GELU uses.
Instruction* Gelu(Emitter& e, Instruction* x) {
  Instruction* cube = e.Binary(Opcode::kMultiply, x, e.Binary(Opcode::kMultiply, x, x));
  Instruction* inner = e.Binary(Opcode::kAdd, x, e.Scale(cube, 0.044715));
  Instruction* t = e.Unary(Opcode::kTanh, e.Scale(inner, std::sqrt(2.0 / M_PI)));
  Instruction* one_plus = e.Binary(Opcode::kAdd, t, e.Splat(1, x->shape()));
  return e.Binary(Opcode::kMultiply, e.Scale(x, 0.5), one_plus);
}

Instruction* Activate(Emitter& e, Instruction* x, const LibraryCall& call) {
  switch (call.activation) {
    case ConvActivation::kNone:
      return x;
    case ConvActivation::kRelu:
      return e.Binary(Opcode::kMaximum, x, e.Splat(0, x->shape()));
    case ConvActivation::kRelu6:
      return e.Binary(Opcode::kMinimum, e.Binary(Opcode::kMaximum, x, e.Splat(0, x->shape())), e.Splat(6, x->shape()));
    case ConvActivation::kElu:
      return e.Add(Opcode::kSelect, Emitter::Plain(x->shape()), {e.GreaterThanZero(x), x, e.Unary(Opcode::kExpm1, x)});
    case ConvActivation::kLeakyRelu:
      return e.Add(Opcode::kSelect, Emitter::Plain(x->shape()),
                   {e.GreaterThanZero(x), x, e.Scale(x, call.leakyrelu_alpha)});
    case ConvActivation::kSigmoid:
      return e.Unary(Opcode::kLogistic, x);
    case ConvActivation::kTanh:
      return e.Unary(Opcode::kTanh, x);
  }
  return x;
}

// The gemm's value; `aux` gets the GELU's input for the *_AUX epilogues.
Instruction* EmitGemm(Emitter& e, const LibraryCall& call, const std::vector<Instruction*>& params,
                      Instruction** aux) {
  const Shape value = Emitter::Plain(call.result);
  Instruction* dot = e.Add(Opcode::kDot, value, {params[0], params[1]});
  dot->mutable_attrs().dot_dimension_numbers = call.dot;
  dot->mutable_attrs().operand_precision = call.precision;
  Instruction* v = e.Scale(dot, call.alpha);
  if (call.beta != 0) {
    v = e.Binary(Opcode::kAdd, v, e.Scale(e.Convert(params[2], value.element_type()), call.beta));
  }
  if (call.bias_operand >= 0) {
    Instruction* bias = e.Convert(params[call.bias_operand], value.element_type());
    Instruction* wide = e.Add(Opcode::kBroadcast, value, {bias});
    wide->mutable_attrs().dimensions = std::vector<int64_t>{call.bias_dimension};
    v = e.Binary(Opcode::kAdd, v, wide);
  }
  switch (call.epilogue) {
    case GemmEpilogue::kRelu:
    case GemmEpilogue::kBiasRelu:
      return e.Binary(Opcode::kMaximum, v, e.Splat(0, value));
    case GemmEpilogue::kGeluAux:
    case GemmEpilogue::kBiasGeluAux:
      *aux = v;
      return Gelu(e, v);
    case GemmEpilogue::kGelu:
    case GemmEpilogue::kBiasGelu:
      return Gelu(e, v);
    case GemmEpilogue::kDefault:
    case GemmEpilogue::kBias:
      return v;
  }
  return v;
}

Instruction* Convolution(Emitter& e, const Shape& shape, Instruction* lhs, Instruction* rhs, const Window& window,
                         const ConvolutionDimensionNumbers& dims, int64_t feature_groups, int64_t batch_groups) {
  Instruction* conv = e.Add(Opcode::kConvolution, shape, {lhs, rhs});
  InstructionAttributes& attrs = conv->mutable_attrs();
  attrs.window = window;
  attrs.convolution_dimension_numbers = dims;
  attrs.feature_group_count = feature_groups;
  attrs.batch_group_count = batch_groups;
  return conv;
}

// dx of the forward convolution: dy, dilated by the stride, correlated with the kernel
// reversed in space and with its feature roles swapped. Padding that would be negative
// is taken as zero and the extra rows sliced off.
Instruction* EmitBackwardInput(Emitter& e, const LibraryCall& call, Instruction* dy, Instruction* w) {
  const ConvolutionDimensionNumbers& f = call.conv;
  Instruction* reversed = e.Add(Opcode::kReverse, Emitter::Plain(w->shape()), {w});
  reversed->mutable_attrs().dimensions = f.kernel_spatial_dimensions;
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = f.output_batch_dimension;
  d.input_feature_dimension = f.output_feature_dimension;
  d.input_spatial_dimensions = f.output_spatial_dimensions;
  d.kernel_input_feature_dimension = f.kernel_output_feature_dimension;
  d.kernel_output_feature_dimension = f.kernel_input_feature_dimension;
  d.kernel_spatial_dimensions = f.kernel_spatial_dimensions;
  d.output_batch_dimension = f.input_batch_dimension;
  d.output_feature_dimension = f.input_feature_dimension;
  d.output_spatial_dimensions = f.input_spatial_dimensions;
  Window window;
  Shape wide = Emitter::Plain(call.result);
  std::vector<SliceDimension> slice(static_cast<size_t>(wide.rank()));
  for (int64_t i = 0; i < wide.rank(); ++i) slice[i] = {0, wide.dimensions()[i], 1};
  bool sliced = false;
  for (size_t j = 0; j < f.input_spatial_dimensions.size(); ++j) {
    const WindowDimension& fw = call.window.dimensions[j];
    const int64_t k = fw.size, s = fw.stride, dil = fw.window_dilation;
    const int64_t in = call.result.dimensions()[f.input_spatial_dimensions[j]];
    const int64_t out = dy->shape().dimensions()[f.output_spatial_dimensions[j]];
    const int64_t low = (k - 1) * dil - fw.padding_low;
    const int64_t high = in - (out - 1) * s - 1 + fw.padding_low;
    WindowDimension bw;
    bw.size = k;
    bw.stride = 1;
    bw.base_dilation = s;
    bw.window_dilation = dil;
    bw.padding_low = std::max<int64_t>(low, 0);
    bw.padding_high = std::max<int64_t>(high, 0);
    window.dimensions.push_back(bw);
    const int64_t dim = f.input_spatial_dimensions[j];
    const int64_t extra_low = std::max<int64_t>(-low, 0), extra_high = std::max<int64_t>(-high, 0);
    wide.set_dimension(dim, in + extra_low + extra_high);
    slice[dim] = {extra_low, extra_low + in, 1};
    sliced = sliced || extra_low > 0 || extra_high > 0;
  }
  Instruction* conv = Convolution(e, wide, dy, reversed, window, d, 1, 1);
  return sliced ? e.Slice(conv, slice) : conv;
}

// dw of the forward convolution: x correlated with dy, the batch contracted: x's
// features play the batch, dy is the kernel dilated by the stride, and the window moves
// by the kernel dilation. Input rows past the last one used are sliced off first.
Instruction* EmitBackwardFilter(Emitter& e, const LibraryCall& call, Instruction* x, Instruction* dy) {
  const ConvolutionDimensionNumbers& f = call.conv;
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = f.input_feature_dimension;
  d.input_feature_dimension = f.input_batch_dimension;
  d.input_spatial_dimensions = f.input_spatial_dimensions;
  d.kernel_input_feature_dimension = f.output_batch_dimension;
  d.kernel_output_feature_dimension = f.output_feature_dimension;
  d.kernel_spatial_dimensions = f.output_spatial_dimensions;
  d.output_batch_dimension = f.kernel_input_feature_dimension;
  d.output_feature_dimension = f.kernel_output_feature_dimension;
  d.output_spatial_dimensions = f.kernel_spatial_dimensions;
  Window window;
  std::vector<SliceDimension> slice(static_cast<size_t>(x->shape().rank()));
  for (int64_t i = 0; i < x->shape().rank(); ++i) slice[i] = {0, x->shape().dimensions()[i], 1};
  bool sliced = false;
  for (size_t j = 0; j < f.input_spatial_dimensions.size(); ++j) {
    const WindowDimension& fw = call.window.dimensions[j];
    const int64_t k = fw.size, s = fw.stride, dil = fw.window_dilation;
    const int64_t in = x->shape().dimensions()[f.input_spatial_dimensions[j]];
    const int64_t out = dy->shape().dimensions()[f.output_spatial_dimensions[j]];
    int64_t high = (k - 1) * dil + (out - 1) * s + 1 - in - fw.padding_low;
    if (high < 0) {  // the forward window never reached the last -high input rows
      slice[f.input_spatial_dimensions[j]].limit = in + high;
      sliced = true;
      high = 0;
    }
    WindowDimension bw;
    bw.size = out;
    bw.stride = dil;
    bw.window_dilation = s;
    bw.padding_low = fw.padding_low;
    bw.padding_high = high;
    window.dimensions.push_back(bw);
  }
  Instruction* input = sliced ? e.Slice(x, slice) : x;
  return Convolution(e, Emitter::Plain(call.result), input, dy, window, d, 1, 1);
}

Instruction* EmitConv(Emitter& e, const LibraryCall& call, const std::vector<Instruction*>& params) {
  const Shape value = Emitter::Plain(call.result);
  Instruction* v = nullptr;
  switch (call.kind) {
    case LibraryCallKind::kConvBackwardInput:
      v = EmitBackwardInput(e, call, params[0], params[1]);
      break;
    case LibraryCallKind::kConvBackwardFilter:
      v = EmitBackwardFilter(e, call, params[0], params[1]);
      break;
    default:
      v = Convolution(e, value, params[0], params[1], call.window, call.conv, call.feature_group_count,
                      call.batch_group_count);
  }
  v = e.Scale(v, call.conv_result_scale);
  if (call.kind == LibraryCallKind::kConvBiasActivationForward) {
    if (params.size() == 4 && call.side_input_scale != 0) {
      v = e.Binary(Opcode::kAdd, v, e.Scale(e.Convert(params[3], value.element_type()), call.side_input_scale));
    }
    Instruction* bias = e.Convert(params[2], value.element_type());
    Instruction* wide = e.Add(Opcode::kBroadcast, value, {bias});
    wide->mutable_attrs().dimensions = std::vector<int64_t>{call.conv.output_feature_dimension};
    v = e.Binary(Opcode::kAdd, v, wide);
  }
  return Activate(e, v, call);
}

// LAPACK's potrf as HLO: the factor in the call's triangle, the other triangle a's own
// (LAPACK leaves it as it was), and info = the 1-based order of the first leading minor
// that is not positive definite (its pivot not > 0, or NaN), 0 when there is none: the
// Cholesky loop of cholesky.h, which the `cholesky` op's expansion runs too. Past such a
// minor the factor is that loop's (NaN or infinities), not LAPACK's partial one; jax
// replaces the whole matrix by NaN where info != 0.
Instruction* EmitCholeskyCall(Module& module, Computation* computation, const Instruction& call_inst,
                              const LibraryCall& call, Instruction* a) {
  Emitter e(module, computation);
  const Shape& shape = call_inst.shape();
  const Shape plain = Emitter::Plain(a->shape());
  const int64_t rank = plain.rank();
  // The Hermitian matrix's lower triangle: a's own, or the adjoint of a's upper one.
  Instruction* source = call.lower ? a : e.Conjugate(e.SwapMinor(a));
  const library_call_internal::CholeskyColumns l = library_call_internal::CholeskyLoop(module, computation, source);
  Instruction* factor = call.lower ? l.factor : e.Conjugate(e.SwapMinor(l.factor));
  Instruction* rows = e.Iota(plain.dimensions(), rank - 2);
  Instruction* cols = e.Iota(plain.dimensions(), rank - 1);
  Instruction* in_triangle = e.Compare(rows, cols, call.lower ? ComparisonDirection::kGe : ComparisonDirection::kLe);
  Instruction* value = e.Select(in_triangle, factor, a);
  Instruction* info = l.info;
  value->set_shape(shape.tuple_shapes(0));
  info->set_shape(shape.tuple_shapes(1));
  return e.Add(Opcode::kTuple, shape, {value, info});
}

// LAPACK's getrf (partial pivoting, as getf2 does it) as a loop over the columns j <
// min(m, n): the pivot is the first row from j down with the largest |a[i, j]|; rows j and
// the pivot's swap (a row a batch apart, by masks); below the diagonal column j becomes
// the multipliers a[i, j] / pivot and the rows below lose multiplier times row j; pivots
// record the pivot row (from 1), info the first column (from 1) whose pivot is 0, where
// nothing is divided (the column is zeros below the diagonal).
Instruction* EmitLuCall(Module& module, Computation* computation, const Shape& shape, Instruction* a) {
  const Shape plain = Emitter::Plain(a->shape());
  const int64_t rank = plain.rank();
  const int64_t m = plain.dimensions(rank - 2), n = plain.dimensions(rank - 1), k = std::min(m, n);
  const std::vector<int64_t> batch(plain.dimensions().begin(), plain.dimensions().end() - 2);
  std::vector<int64_t> pivot_dims = batch;
  pivot_dims.push_back(k);
  std::vector<int64_t> batch_dims_of(batch.size());
  std::iota(batch_dims_of.begin(), batch_dims_of.end(), 0);
  Emitter outer(module, computation);
  Instruction* pivots0 = outer.Splat(0, Emitter::Array(PrimitiveType::kS32, pivot_dims));
  Instruction* info0 = outer.Splat(0, Emitter::Array(PrimitiveType::kS32, batch));
  library_call_internal::PlainHloLoop loop(module, computation, "lu");
  std::vector<Instruction*> out = loop.Run(k, {a, pivots0, info0}, [&](Emitter& b, Instruction* j, const std::vector<Instruction*>& s) {
    Instruction* x = s[0];
    Instruction* pivots = s[1];
    Instruction* info = s[2];
    const Shape s32_full = Emitter::Array(PrimitiveType::kS32, plain.dimensions());
    Instruction* rows = b.Iota(plain.dimensions(), rank - 2);
    Instruction* cols = b.Iota(plain.dimensions(), rank - 1);
    Instruction* j_full = b.Broadcast(j, s32_full, {});
    Instruction* in_column = b.Compare(cols, j_full, ComparisonDirection::kEq);
    // Column j as [..., m]: the sum over columns of the masked matrix (one term each).
    Instruction* column = b.Reduce(b.Select(in_column, x, b.Splat(0, plain)), {rank - 1}, Opcode::kAdd, 0);
    std::vector<int64_t> column_dims = column->shape().dimensions();
    Instruction* row_ids = b.Iota(column_dims, rank - 2);
    Instruction* j_column = b.Broadcast(j, Emitter::Array(PrimitiveType::kS32, column_dims), {});
    Instruction* candidate = b.Select(b.Compare(row_ids, j_column, ComparisonDirection::kGe), b.Unary(Opcode::kAbs, column),
                                      b.Splat(-1, column->shape()));
    Instruction* largest = b.Reduce(candidate, {rank - 2}, Opcode::kMaximum, -Emitter::Infinity());
    Instruction* is_largest = b.Compare(candidate, b.Broadcast(largest, candidate->shape(), batch_dims_of),
                                        ComparisonDirection::kEq);
    Instruction* pivot_row = b.Reduce(b.Select(is_largest, row_ids, b.Splat(static_cast<double>(m), row_ids->shape())),
                                      {rank - 2}, Opcode::kMinimum, static_cast<double>(m));  // [...]
    std::vector<int64_t> spread_rows = batch_dims_of;
    Instruction* p_full = b.Broadcast(pivot_row, s32_full, spread_rows);
    // Rows j and p as [..., n], then swapped in.
    auto row_of = [&](Instruction* which) {
      return b.Reduce(b.Select(b.Compare(rows, which, ComparisonDirection::kEq), x, b.Splat(0, plain)), {rank - 2},
                      Opcode::kAdd, 0);
    };
    Instruction* row_j = row_of(j_full);
    Instruction* row_p = row_of(p_full);
    std::vector<int64_t> along_cols = batch_dims_of;
    along_cols.push_back(rank - 1);
    Instruction* row_j_full = b.Broadcast(row_j, plain, along_cols);
    Instruction* row_p_full = b.Broadcast(row_p, plain, along_cols);
    Instruction* swapped = b.Select(b.Compare(rows, j_full, ComparisonDirection::kEq), row_p_full,
                                    b.Select(b.Compare(rows, p_full, ComparisonDirection::kEq), row_j_full, x));
    // The pivot a[p, j], and the multipliers of the rows below (0 when the pivot is 0).
    Instruction* pivot_value = b.Reduce(b.Select(b.Compare(cols, j_full, ComparisonDirection::kEq), row_p_full,
                                                 b.Splat(0, plain)),
                                        {rank - 1}, Opcode::kAdd, 0);  // [..., m], each row the pivot
    Instruction* swapped_column = b.Reduce(b.Select(in_column, swapped, b.Splat(0, plain)), {rank - 1}, Opcode::kAdd, 0);
    Instruction* zero_pivot = b.Compare(pivot_value, b.Splat(0, pivot_value->shape()), ComparisonDirection::kEq);
    Instruction* multipliers = b.Select(zero_pivot, b.Splat(0, swapped_column->shape()),
                                        b.Binary(Opcode::kDivide, swapped_column, pivot_value));  // [..., m]
    std::vector<int64_t> along_rows = batch_dims_of;
    along_rows.push_back(rank - 2);
    Instruction* multipliers_full = b.Broadcast(multipliers, plain, along_rows);
    Instruction* below = b.Compare(rows, j_full, ComparisonDirection::kGt);
    Instruction* right = b.Compare(cols, j_full, ComparisonDirection::kGt);
    Instruction* updated = b.Binary(Opcode::kSubtract, swapped, b.Binary(Opcode::kMultiply, multipliers_full, row_p_full));
    Instruction* next = b.Select(b.Binary(Opcode::kAnd, below, right), updated,
                                 b.Select(b.Binary(Opcode::kAnd, below, in_column), multipliers_full, swapped));
    // Bookkeeping: the pivot row from 1 at position j, and info.
    const Shape s32_pivots = Emitter::Array(PrimitiveType::kS32, pivot_dims);
    Instruction* at_j = b.Compare(b.Iota(pivot_dims, rank - 2), b.Broadcast(j, s32_pivots, {}), ComparisonDirection::kEq);
    Instruction* pivot_one_based = b.Binary(Opcode::kAdd, pivot_row, b.Splat(1, pivot_row->shape()));
    Instruction* next_pivots = b.Select(at_j, b.Broadcast(pivot_one_based, s32_pivots, batch_dims_of), pivots);
    Instruction* scalar_pivot = b.Reduce(b.Select(b.Compare(row_ids, j_column, ComparisonDirection::kEq), pivot_value,
                                                  b.Splat(0, pivot_value->shape())),
                                         {rank - 2}, Opcode::kAdd, 0);  // [...]
    Instruction* first_zero = b.Binary(Opcode::kAnd, b.Compare(info, b.Splat(0, info->shape()), ComparisonDirection::kEq),
                                       b.Compare(scalar_pivot, b.Splat(0, scalar_pivot->shape()), ComparisonDirection::kEq));
    Instruction* j_plus_one = b.Broadcast(b.Binary(Opcode::kAdd, j, b.Scalar(1, PrimitiveType::kS32)), info->shape(), {});
    Instruction* next_info = b.Select(first_zero, j_plus_one, info);
    return std::vector<Instruction*>{next, next_pivots, next_info};
  });
  out[0]->set_shape(shape.tuple_shapes(0));
  out[1]->set_shape(shape.tuple_shapes(1));
  out[2]->set_shape(shape.tuple_shapes(2));
  return outer.Add(Opcode::kTuple, shape, out);
}

// LAPACK's gtsv as HLO, step for step: Gaussian elimination with partial pivoting down
// the rows (row i + 1 swapped with row i where |sub-diagonal| > |diagonal|, the swapped
// row's fill-in kept in dl as U's second super-diagonal), then back substitution; info =
// the first 1-based row whose pivot is 0, where LAPACK returns with the arrays as they
// were at that step (no back substitution). LAPACK's DL(I) is dl[I] (jax passes dl + 1),
// DU(I) is du[I - 1]. Element reads and writes are masks over the row (a read fills with
// -0, so that a selected -0 keeps its sign).
Instruction* EmitGtsvCall(Module& module, Computation* computation, const Instruction& call_inst,
                          const std::vector<Instruction*>& params) {
  const Shape& shape = call_inst.shape();
  const Shape vec = Emitter::Plain(params[1]->shape());
  const Shape mat = Emitter::Plain(params[3]->shape());
  const int64_t r = vec.rank();  // the row dimension is r - 1 in both
  const int64_t n = vec.dimensions(r - 1);
  const std::vector<int64_t> batch(vec.dimensions().begin(), vec.dimensions().end() - 1);
  std::vector<int64_t> batch_dims(batch.size());
  std::iota(batch_dims.begin(), batch_dims.end(), 0);
  const Shape info_shape = Emitter::Array(PrimitiveType::kS32, batch);
  // x[..., i] of a vector ([...]) or row i of b ([..., nrhs]); -0 past the ends.
  auto at = [&](Emitter& b, Instruction* x, Instruction* i) {
    const Shape plain = Emitter::Plain(x->shape());
    Instruction* here = b.Compare(b.Iota(plain.dimensions(), r - 1), b.Broadcast(i, Emitter::WithType(plain, PrimitiveType::kS32), {}),
                                  ComparisonDirection::kEq);
    return b.Reduce(b.Select(here, x, b.Splat(-0.0, plain)), {r - 1}, Opcode::kAdd, -0.0);
  };
  // x with element (row) i replaced by `value` where `where` ([...]) holds.
  auto put = [&](Emitter& b, Instruction* x, Instruction* i, Instruction* value, Instruction* where) {
    const Shape plain = Emitter::Plain(x->shape());
    std::vector<int64_t> value_dims = batch_dims;
    if (plain.rank() > r) value_dims.push_back(r);  // b's columns
    Instruction* here = b.Compare(b.Iota(plain.dimensions(), r - 1), b.Broadcast(i, Emitter::WithType(plain, PrimitiveType::kS32), {}),
                                  ComparisonDirection::kEq);
    here = b.Binary(Opcode::kAnd, here, b.Broadcast(where, Emitter::WithType(plain, PrimitiveType::kPred), batch_dims));
    return b.Select(here, b.Broadcast(value, plain, value_dims), x);
  };
  auto plus = [](Emitter& b, Instruction* i, int64_t k) { return b.Binary(Opcode::kAdd, i, b.Scalar(static_cast<double>(k), PrimitiveType::kS32)); };
  // A [...] value over b's columns, [..., nrhs].
  auto wide = [&](Emitter& b, Instruction* v, const Shape& like) { return b.Broadcast(v, Emitter::Plain(like), batch_dims); };
  auto scalar_pred = [&](Emitter& b, Instruction* p) { return b.Broadcast(p, Emitter::WithType(info_shape, PrimitiveType::kPred), {}); };

  Emitter outer(module, computation);
  library_call_internal::PlainHloLoop eliminate(module, computation, "gtsv_eliminate");
  std::vector<Instruction*> s = eliminate.Run(
      std::max<int64_t>(n - 1, 0), {params[0], params[1], params[2], params[3], outer.Splat(0, info_shape)},
      [&](Emitter& b, Instruction* i, const std::vector<Instruction*>& state) {
        Instruction *dl = state[0], *d = state[1], *du = state[2], *x = state[3], *info = state[4];
        Instruction* i1 = plus(b, i, 1);
        Instruction* di = at(b, d, i);
        Instruction* di1 = at(b, d, i1);
        Instruction* l = at(b, dl, i1);  // DL(I)
        Instruction* ui = at(b, du, i);
        Instruction* ui1 = at(b, du, i1);
        Instruction* bi = at(b, x, i);
        Instruction* bi1 = at(b, x, i1);
        // Rows I and I + 1 of the last step (I = n - 1) touch neither DL(I) nor DU(I + 1).
        Instruction* inner = scalar_pred(b, b.Compare(i, b.Scalar(static_cast<double>(n - 2), PrimitiveType::kS32),
                                                      ComparisonDirection::kLt));
        Instruction* keep = b.Compare(b.Unary(Opcode::kAbs, di), b.Unary(Opcode::kAbs, l), ComparisonDirection::kGe);
        Instruction* zero_pivot = b.Binary(Opcode::kAnd, keep, b.Compare(di, b.Splat(0, di->shape()), ComparisonDirection::kEq));
        Instruction* active = b.Compare(info, b.Splat(0, info_shape), ComparisonDirection::kEq);
        Instruction* go = b.Binary(Opcode::kAnd, active, b.Unary(Opcode::kNot, zero_pivot));
        // No interchange: row I + 1 loses fact = DL(I) / D(I) times row I.
        Instruction* fact_keep = b.Binary(Opcode::kDivide, l, di);
        Instruction* d1_keep = b.Binary(Opcode::kSubtract, di1, b.Binary(Opcode::kMultiply, fact_keep, ui));
        Instruction* b1_keep = b.Binary(Opcode::kSubtract, bi1, b.Binary(Opcode::kMultiply, wide(b, fact_keep, bi->shape()), bi));
        // Interchange: fact = D(I) / DL(I), rows I and I + 1 swapped, then eliminated.
        Instruction* fact_swap = b.Binary(Opcode::kDivide, di, l);
        Instruction* d1_swap = b.Binary(Opcode::kSubtract, ui, b.Binary(Opcode::kMultiply, fact_swap, di1));
        Instruction* du1_swap = b.Binary(Opcode::kMultiply, b.Unary(Opcode::kNegate, fact_swap), ui1);
        Instruction* b1_swap = b.Binary(Opcode::kSubtract, bi, b.Binary(Opcode::kMultiply, wide(b, fact_swap, bi1->shape()), bi1));
        Instruction* keep_rows = wide(b, keep, Emitter::WithType(bi->shape(), PrimitiveType::kPred));
        Instruction* next_d = put(b, put(b, d, i, b.Select(keep, di, l), go), i1, b.Select(keep, d1_keep, d1_swap), go);
        Instruction* next_dl = put(b, dl, i1, b.Select(keep, b.Splat(0, l->shape()), ui1), b.Binary(Opcode::kAnd, go, inner));
        Instruction* next_du = put(b, du, i, b.Select(keep, ui, di1), go);
        next_du = put(b, next_du, i1, b.Select(keep, ui1, du1_swap), b.Binary(Opcode::kAnd, go, inner));
        Instruction* next_x = put(b, put(b, x, i, b.Select(keep_rows, bi, bi1), go), i1, b.Select(keep_rows, b1_keep, b1_swap), go);
        Instruction* failed = b.Binary(Opcode::kAnd, active, zero_pivot);
        Instruction* next_info = b.Select(failed, b.Broadcast(i1, info_shape, {}), info);
        return std::vector<Instruction*>{next_dl, next_d, next_du, next_x, next_info};
      });
  // The last pivot.
  Instruction* last = outer.Scalar(static_cast<double>(n - 1), PrimitiveType::kS32);
  Instruction* dn = at(outer, s[1], last);
  Instruction* info = s[4];
  Instruction* singular = outer.Binary(Opcode::kAnd, outer.Compare(info, outer.Splat(0, info_shape), ComparisonDirection::kEq),
                                       outer.Compare(dn, outer.Splat(0, dn->shape()), ComparisonDirection::kEq));
  info = outer.Select(singular, outer.Splat(static_cast<double>(n), info_shape), info);
  // Back substitution from row n - 1 up: x_i = (b_i - du_i x_{i+1} - DL(i+1) x_{i+2}) / d_i.
  library_call_internal::PlainHloLoop substitute(module, computation, "gtsv_substitute");
  std::vector<Instruction*> t = substitute.Run(n, {s[3], info, s[0], s[1], s[2]}, [&](Emitter& b, Instruction* k,
                                                                                   const std::vector<Instruction*>& state) {
    Instruction *x = state[0], *dl = state[2], *d = state[3], *du = state[4];
    Instruction* i = b.Binary(Opcode::kSubtract, b.Scalar(static_cast<double>(n - 1), PrimitiveType::kS32), k);
    Instruction* bi = at(b, x, i);
    Instruction* v = bi;
    for (int64_t ahead : {1, 2}) {
      Instruction* coefficient = ahead == 1 ? at(b, du, i) : at(b, dl, plus(b, i, 1));
      Instruction* term = b.Binary(Opcode::kMultiply, wide(b, coefficient, bi->shape()), at(b, x, plus(b, i, ahead)));
      Instruction* inside = b.Compare(plus(b, i, ahead), b.Scalar(static_cast<double>(n), PrimitiveType::kS32), ComparisonDirection::kLt);
      v = b.Select(b.Broadcast(inside, Emitter::WithType(bi->shape(), PrimitiveType::kPred), {}), b.Binary(Opcode::kSubtract, v, term), v);
    }
    v = b.Binary(Opcode::kDivide, v, wide(b, at(b, d, i), bi->shape()));
    Instruction* solved = b.Compare(state[1], b.Splat(0, info_shape), ComparisonDirection::kEq);
    return std::vector<Instruction*>{put(b, x, i, v, solved), state[1], dl, d, du};
  });
  std::vector<Instruction*> out = {s[0], s[1], s[2], t[0], info};
  for (size_t i = 0; i < out.size(); ++i) out[i]->set_shape(shape.tuple_shapes(static_cast<int64_t>(i)));
  return outer.Add(Opcode::kTuple, shape, out);
}

// The permutation the pivots make: the identity of the result's length, then for each i
// in order the entries i and pivots[i] swapped (a pivot outside [0, m) swaps nothing), as
// jax's GPU kernel does, one thread a matrix. Written without a loop of swaps: with τ_i
// the transposition of i and pivots[i], the result at position q is τ_0(τ_1(…τ_{k−1}(q)))
// (entry q after the swaps came from there), so each position follows its own chain of
// k compare-and-selects, all positions at once: one elementwise kernel (a loop fusion)
// for up to kStepsPerKernel pivots, a loop of such kernels over blocks of them beyond.
constexpr int64_t kStepsPerKernel = 64;

Instruction* EmitPivotsToPermutation(Module& module, Computation* computation, const Instruction& call_inst,
                                     Instruction* pivots) {
  const Shape shape = Emitter::Plain(call_inst.shape());
  const int64_t rank = shape.rank();
  const int64_t m = shape.dimensions(rank - 1);
  const int64_t k = pivots->shape().dimensions(rank - 1);
  std::vector<int64_t> batch(static_cast<size_t>(rank - 1));
  std::iota(batch.begin(), batch.end(), 0);
  std::vector<int64_t> one_pivot = pivots->shape().dimensions();
  one_pivot.back() = 1;
  const std::vector<int64_t> batch_shape(one_pivot.begin(), one_pivot.end() - 1);
  // One step of the chain: q <- τ_i(q), with i a scalar and pivot_i [...] its pivot.
  auto step = [&](Emitter& b, Instruction* q, Instruction* i, Instruction* pivot_i) {
    Instruction* p = b.Broadcast(pivot_i, shape, batch);
    Instruction* at = b.Broadcast(i, shape, {});
    Instruction* valid = b.Binary(Opcode::kAnd, b.Compare(p, b.Splat(0, shape), ComparisonDirection::kGe),
                                  b.Compare(p, b.Splat(static_cast<double>(m), shape), ComparisonDirection::kLt));
    Instruction* is_i = b.Binary(Opcode::kAnd, valid, b.Compare(q, at, ComparisonDirection::kEq));
    Instruction* is_p = b.Binary(Opcode::kAnd, valid, b.Compare(q, p, ComparisonDirection::kEq));
    return b.Select(is_i, p, b.Select(is_p, at, q));
  };
  Emitter outer(module, computation);
  Instruction* q = outer.Iota(shape.dimensions(), rank - 1);
  if (k <= kStepsPerKernel) {
    for (int64_t i = k - 1; i >= 0; --i) {
      Instruction* pivot_i = outer.Reshape(outer.SliceAlong(pivots, rank - 1, i, i + 1), batch_shape);
      q = step(outer, q, outer.Scalar(static_cast<double>(i), PrimitiveType::kS32), pivot_i);
    }
    q->set_shape(call_inst.shape());
    return q;
  }
  // Blocks of kStepsPerKernel pivots from the last block down; a step past k (the first
  // block's head when k is not a multiple) swaps nothing.
  const int64_t blocks = (k + kStepsPerKernel - 1) / kStepsPerKernel;
  library_call_internal::PlainHloLoop loop(module, computation, "pivots_to_permutation");
  std::vector<Instruction*> out =
      loop.Run(blocks, {q, pivots}, [&](Emitter& b, Instruction* j, const std::vector<Instruction*>& s) {
        Instruction* chain = s[0];
        Instruction* base = b.Binary(Opcode::kMultiply,
                                     b.Binary(Opcode::kSubtract, b.Scalar(static_cast<double>(blocks - 1), PrimitiveType::kS32), j),
                                     b.Scalar(static_cast<double>(kStepsPerKernel), PrimitiveType::kS32));
        for (int64_t t = kStepsPerKernel - 1; t >= 0; --t) {
          Instruction* i = b.Binary(Opcode::kAdd, base, b.Scalar(static_cast<double>(t), PrimitiveType::kS32));
          // The pivot at min(i, k - 1), made invalid (-1) when i >= k.
          Instruction* clamped = b.Binary(Opcode::kMinimum, i, b.Scalar(static_cast<double>(k - 1), PrimitiveType::kS32));
          std::vector<Instruction*> operands = {s[1]};
          for (int64_t d = 0; d + 1 < rank; ++d) operands.push_back(b.Scalar(0, PrimitiveType::kS32));
          operands.push_back(clamped);
          Instruction* slice = b.Add(Opcode::kDynamicSlice, Emitter::Array(PrimitiveType::kS32, one_pivot), operands);
          slice->mutable_attrs().dynamic_slice_sizes = one_pivot;
          Instruction* pivot_i = b.Reshape(slice, batch_shape);
          Instruction* past = b.Compare(i, b.Scalar(static_cast<double>(k), PrimitiveType::kS32), ComparisonDirection::kGe);
          pivot_i = b.Select(b.Broadcast(past, Emitter::WithType(pivot_i->shape(), PrimitiveType::kPred), {}),
                             b.Splat(-1, pivot_i->shape()), pivot_i);
          chain = step(b, chain, i, pivot_i);
        }
        return std::vector<Instruction*>{chain, s[1]};
      });
  out[0]->set_shape(call_inst.shape());
  return out[0];
}

}  // namespace

bool GemmEpilogueHasBias(GemmEpilogue epilogue) {
  return epilogue == GemmEpilogue::kBias || epilogue == GemmEpilogue::kBiasRelu ||
         epilogue == GemmEpilogue::kBiasGelu || epilogue == GemmEpilogue::kBiasGeluAux;
}

bool GemmEpilogueHasAux(GemmEpilogue epilogue) {
  return epilogue == GemmEpilogue::kGeluAux || epilogue == GemmEpilogue::kBiasGeluAux;
}

namespace {

bool IsParameterNumber(const Instruction* inst, int64_t number) {
  return inst->opcode() == Opcode::kParameter && inst->parameter_number() == number;
}

bool IsScalarConstant(const Instruction* inst, uint64_t bits) {
  return inst->opcode() == Opcode::kConstant && inst->literal() != nullptr && inst->literal()->shape().IsArray() &&
         inst->literal()->element_count() == 1 && inst->literal()->GetBits(0) == bits;
}

// Whether `key` is parameter `number`'s float bits in total order as XLA's comparison
// expander writes it: s = bitcast-convert(p) (or bitcast) to a signed integer of p's
// width, then select(compare(s, 0) LT, xor(s, 0x7f..f), s).
bool IsTotalOrderBits(const Instruction* key, int64_t number, PrimitiveType type) {
  if (key->opcode() != Opcode::kSelect || key->operand_count() != 3) return false;
  const Instruction* bits = key->operand(2);
  // bitcast-convert, or the scalar bitcast XLA's simplifier makes of it.
  if ((bits->opcode() != Opcode::kBitcastConvert && bits->opcode() != Opcode::kBitcast) ||
      bits->operand_count() != 1 || !IsParameterNumber(bits->operand(0), number) ||
      !IsSignedInt(bits->shape().element_type()) || BitWidth(bits->shape().element_type()) != BitWidth(type)) {
    return false;
  }
  const Instruction* negative = key->operand(0);
  if (negative->opcode() != Opcode::kCompare || negative->operand(0) != bits ||
      !IsScalarConstant(negative->operand(1), 0) ||
      negative->attrs().comparison_direction != ComparisonDirection::kLt) {
    return false;
  }
  const Instruction* flipped = key->operand(1);
  if (flipped->opcode() != Opcode::kXor || flipped->operand_count() != 2) return false;
  const uint64_t magnitude = (uint64_t{1} << (BitWidth(type) - 1)) - 1;
  const Instruction* a = flipped->operand(0);
  const Instruction* b = flipped->operand(1);
  return (a == bits && IsScalarConstant(b, magnitude)) || (b == bits && IsScalarConstant(a, magnitude));
}

}  // namespace

std::optional<bool> TopKComparatorOrder(const Computation& comparator, PrimitiveType type) {
  const Instruction* root = comparator.root();
  if (root == nullptr || root->opcode() != Opcode::kCompare || root->operand_count() != 2) return std::nullopt;
  const std::optional<ComparisonDirection> direction = root->attrs().comparison_direction;
  if (direction != ComparisonDirection::kGt && direction != ComparisonDirection::kLt) return std::nullopt;
  const Instruction* lhs = root->operand(0);
  const Instruction* rhs = root->operand(1);
  bool swapped = false;
  if (IsFloat(type) && IsTotalOrderBits(lhs, 0, type) && IsTotalOrderBits(rhs, 1, type)) {
  } else if (IsFloat(type) && IsTotalOrderBits(lhs, 1, type) && IsTotalOrderBits(rhs, 0, type)) {
    swapped = true;
  } else {
    if (IsParameterNumber(lhs, 1) && IsParameterNumber(rhs, 0)) {
      swapped = true;
    } else if (!IsParameterNumber(lhs, 0) || !IsParameterNumber(rhs, 1)) {
      return std::nullopt;
    }
    if (lhs->shape().element_type() != type) return std::nullopt;
    const ComparisonType kind = root->attrs().comparison_type.value_or(DefaultComparisonType(type));
    // An IEEE compare(p0, p1) GT of floats is what XLA's TopK rewriter takes for a
    // descending topk (jax's approx_max_k writes it), and XLA's runtimes then order the
    // elements in total order whatever the comparator says (NaN above +inf, -0 below +0):
    // it is read as that order. Other IEEE comparisons are not XLA's topk.
    const bool xlas_ieee_greater = IsFloat(type) && kind == ComparisonType::kFloat &&
                                   direction == ComparisonDirection::kGt && !swapped;
    if (xlas_ieee_greater) return true;
    if (IsFloat(type) ? kind != ComparisonType::kTotalOrder : kind == ComparisonType::kTotalOrder) return std::nullopt;
  }
  return (direction == ComparisonDirection::kGt) != swapped;
}

namespace {

// A topk call: one operand, (values, s32 positions) of the operand's dimensions but the
// last (k), maybe workspace bytes after them, and a comparator of a known order.
Status ParseTopK(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray() || inst.operand(0)->shape().rank() < 1) {
    return CallError(inst, "a topk takes one array operand of rank >= 1");
  }
  const Shape& operand = inst.operand(0)->shape();
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() < 2) return CallError(inst, "result is not a (values, positions) tuple");
  const Shape& values = shape.tuple_shapes(0);
  const Shape& positions = shape.tuple_shapes(1);
  if (!values.IsArray() || values.element_type() != operand.element_type() || values.rank() != operand.rank() ||
      !positions.IsArray() || positions.element_type() != PrimitiveType::kS32 ||
      positions.dimensions() != values.dimensions()) {
    return CallError(inst, "result " + shape.ToString() + " is not (values, s32 positions) of the operand's rank");
  }
  for (int64_t d = 0; d + 1 < operand.rank(); ++d) {
    if (values.dimensions(d) != operand.dimensions(d)) return CallError(inst, "result rows differ from the operand's");
  }
  call.k = values.dimensions(values.rank() - 1);
  if (call.k > operand.dimensions(operand.rank() - 1)) return CallError(inst, "k is larger than a row");
  for (int64_t i = 2; i < shape.tuple_size(); ++i) {
    if (!IsWorkspace(shape.tuple_shapes(i))) {
      return CallUnsupported(inst, "result element " + std::to_string(i) + " is neither values, positions nor workspace");
    }
  }
  const Computation* comparator = inst.to_apply();
  if (comparator == nullptr) return CallError(inst, "has no comparator (to_apply or called_computations)");
  std::optional<bool> largest = TopKComparatorOrder(*comparator, operand.element_type());
  if (!largest) {
    return CallUnsupported(inst, "comparator %" + comparator->name() +
                                     " is not a total-order greater- or less-than; its order of NaNs and signed "
                                     "zeros would not be topk's");
  }
  call.largest = *largest;
  call.result = values;
  return Status::Ok();
}

// CUB's radix sort as XLA's sort rewriter writes it: keys and maybe values of one shape,
// (sorted keys[, values], u8 scratch), SortOptions {"descending": bool} (absent: false).
Status ParseRadixSort(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1 && inst.operand_count() != 2) return CallError(inst, "a radix sort takes keys and maybe values");
  const Shape& keys = inst.operand(0)->shape();
  if (!keys.IsArray() || keys.rank() < 1) return CallError(inst, "the keys are not an array of rank >= 1");
  switch (keys.element_type()) {
    case PrimitiveType::kS8: case PrimitiveType::kS16: case PrimitiveType::kS32: case PrimitiveType::kS64:
    case PrimitiveType::kU8: case PrimitiveType::kU16: case PrimitiveType::kU32: case PrimitiveType::kU64:
    case PrimitiveType::kF16: case PrimitiveType::kBF16: case PrimitiveType::kF32: case PrimitiveType::kF64:
      break;
    default:
      return CallUnsupported(inst, "CUB has no radix sort of " + std::string(PrimitiveTypeName(keys.element_type())) +
                                       " keys");
  }
  if (inst.operand_count() == 2 &&
      (!inst.operand(1)->shape().IsArray() || inst.operand(1)->shape().dimensions() != keys.dimensions())) {
    return CallError(inst, "the values are not an array of the keys' dimensions");
  }
  const Shape& shape = inst.shape();
  const int64_t sorted = inst.operand_count();
  bool fits = shape.IsTuple() && shape.tuple_size() == sorted + 1 && IsWorkspace(shape.tuple_shapes(sorted));
  for (int64_t i = 0; fits && i < sorted; ++i) {
    fits = shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).element_type() == inst.operand(i)->shape().element_type() &&
           shape.tuple_shapes(i).dimensions() == inst.operand(i)->shape().dimensions();
  }
  if (!fits) return CallError(inst, "result " + shape.ToString(false) + " is not (sorted operands..., u8 scratch)");
  if (std::optional<json> config = BackendConfigJson(inst); config && config->is_object() && config->contains("descending")) {
    if (!config->at("descending").is_boolean()) return CallError(inst, "descending is not true or false");
    call.descending = config->at("descending").get<bool>();
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// One BLAS character attribute of a typed-FFI call (`side = 76 : ui8` is 'L').
StatusOr<char> BlasChar(const Instruction& inst, const std::map<std::string, std::string>& attributes,
                        const char* name, const std::string& allowed) {
  auto it = attributes.find(name);
  if (it == attributes.end()) return CallError(inst, std::string("has no ") + name + " attribute");
  char* end = nullptr;
  const long value = std::strtol(it->second.c_str(), &end, 10);
  if (end == it->second.c_str() || *end != '\0' || value < 0 || value > 127 ||
      allowed.find(static_cast<char>(value)) == std::string::npos) {
    return CallError(inst, std::string(name) + " = " + it->second + " is none of '" + allowed + "'");
  }
  return static_cast<char>(value);
}

bool IsMatrixBatch(const Shape& shape) { return shape.IsArray() && shape.rank() >= 2; }

std::vector<int64_t> BatchDims(const Shape& shape) {
  return std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end() - 2);
}

// A complex LAPACK call (lapack_c... or lapack_z... of complex operands; a c call of c128
// operands is the numeric check's f64 shadow of one): the CPU runtime runs potrf, getrf,
// geqrf, ungqr, heevd and trsm of them through LAPACK; they have no plain HLO
// (HasPlainHloModel).
bool ComplexLapack(const Instruction& inst) {
  const std::string& target = inst.attrs().custom_call_target;
  if (target.rfind("lapack_", 0) != 0 || target.size() < 8 || inst.operand_count() < 1) return false;
  const PrimitiveType type = inst.operand(0)->shape().element_type();
  return (target[7] == 'c' || target[7] == 'z') && (type == PrimitiveType::kC64 || type == PrimitiveType::kC128);
}

// a square (batch of) matrix a and b of the same batch whose side fits it; the solution
// `value` of b's shape and type.
Status CheckTriangularSolveShapes(const Instruction& inst, const LibraryCall& call, const Shape& value) {
  const Shape& a = inst.operand(0)->shape();
  const Shape& b = inst.operand(1)->shape();
  if (!IsMatrixBatch(a) || !IsMatrixBatch(b) || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2) ||
      BatchDims(a) != BatchDims(b) ||
      a.dimensions(a.rank() - 1) != b.dimensions(call.left_side ? b.rank() - 2 : b.rank() - 1)) {
    return CallError(inst, "a " + a.ToString(false) + " and b " + b.ToString(false) + " do not fit a " +
                               (call.left_side ? "left" : "right") + "-side triangular solve");
  }
  if (!value.IsArray() || value.dimensions() != b.dimensions() || value.element_type() != b.element_type()) {
    return CallError(inst, "result " + value.ToString(false) + " is not b's shape");
  }
  return Status::Ok();
}

// XLA's GPU call of cuBLAS's trsm (its triangular-solve rewriter): (a, b) -> (x, s8 pointer
// scratch), the options as XLA's TriangularSolveOptions in the backend_config JSON
// (left_side, lower, unit_diagonal: false when left out; transpose_a NO_TRANSPOSE,
// TRANSPOSE or ADJOINT).
Status ParseXlaTriangularSolveOptions(const Instruction& inst, LibraryCall& call) {
  std::optional<json> config = BackendConfigJson(inst);
  if (!config || !config->is_object()) {
    return CallError(inst, "has no backend_config JSON (XLA writes the solve's TriangularSolveOptions there)");
  }
  for (const char* key : {"left_side", "lower", "unit_diagonal"}) {
    if (config->contains(key) && !config->at(key).is_boolean()) {
      return CallError(inst, std::string(key) + " is not true or false");
    }
  }
  call.left_side = JsonBoolOr(*config, "left_side", false);
  call.lower = JsonBoolOr(*config, "lower", false);
  call.unit_diagonal = JsonBoolOr(*config, "unit_diagonal", false);
  // The enum's name as XLA prints it, or its number as protobuf's JSON reader takes it too.
  std::string transpose = JsonStringOr(*config, "transpose_a", "");
  if (config->contains("transpose_a") && config->at("transpose_a").is_number_integer()) {
    const int64_t number = config->at("transpose_a").get<int64_t>();
    transpose = number == 1 ? "NO_TRANSPOSE" : number == 2 ? "TRANSPOSE" : number == 3 ? "ADJOINT" : std::to_string(number);
  }
  if (transpose == "NO_TRANSPOSE") {
    call.transpose_a = TransposeA::kNoTranspose;
  } else if (transpose == "TRANSPOSE") {
    call.transpose_a = TransposeA::kTranspose;
  } else if (transpose == "ADJOINT") {
    call.transpose_a = TransposeA::kAdjoint;
  } else {
    return CallError(inst, "transpose_a \"" + transpose + "\" is none of NO_TRANSPOSE, TRANSPOSE, ADJOINT");
  }
  return Status::Ok();
}

// jax's LAPACK trsm: (a, b) -> x of b's shape; side L/R, uplo L/U, trans_x N/T/C, diag U/N.
// XLA's __cublas$triangularSolve: the same, its result (x, s8 scratch).
Status ParseTriangularSolve(const Instruction& inst, LibraryCall& call) {
  if (inst.attrs().custom_call_target == kXlaTriangularSolveTarget) {
    RETURN_IF_ERROR(ParseXlaTriangularSolveOptions(inst, call));
    if (inst.operand_count() != 2) {
      return CallUnsupported(inst, "takes " + std::to_string(inst.operand_count()) + " operands; (a, b) is modelled");
    }
    ASSIGN_OR_RETURN(const Shape value, ValueShape(inst));
    RETURN_IF_ERROR(CheckTriangularSolveShapes(inst, call, value));
    call.result = value;
    return Status::Ok();
  }
  std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(inst);
  if (!attributes) return CallError(inst, "has no FFI attributes (side, uplo, trans_x, diag) in its backend_config");
  ASSIGN_OR_RETURN(const char side, BlasChar(inst, *attributes, "side", "LR"));
  ASSIGN_OR_RETURN(const char uplo, BlasChar(inst, *attributes, "uplo", "LU"));
  ASSIGN_OR_RETURN(const char trans, BlasChar(inst, *attributes, "trans_x", "NTC"));
  ASSIGN_OR_RETURN(const char diag, BlasChar(inst, *attributes, "diag", "UN"));
  call.left_side = side == 'L';
  call.lower = uplo == 'L';
  call.transpose_a = trans == 'N' ? TransposeA::kNoTranspose : trans == 'T' ? TransposeA::kTranspose : TransposeA::kAdjoint;
  call.unit_diagonal = diag == 'U';
  if (inst.operand_count() != 2) {
    return CallUnsupported(inst, "takes " + std::to_string(inst.operand_count()) + " operands; (a, b) is modelled");
  }
  if (!inst.shape().IsArray()) return CallError(inst, "result " + inst.shape().ToString(false) + " is not b's shape");
  RETURN_IF_ERROR(CheckTriangularSolveShapes(inst, call, inst.shape()));
  call.result = inst.shape();
  return Status::Ok();
}

// The triangle a LAPACK call (uplo L/U) or a cuSOLVER call (lower = true|false) reads, into
// call.lower; the attributes, for the caller's other fields.
using FfiAttributeMap = std::map<std::string, std::string>;

StatusOr<FfiAttributeMap> ReadTriangle(const Instruction& inst, LibraryCall& call) {
  std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(inst);
  if (!attributes) return CallError(inst, "has no FFI attributes in its backend_config");
  if (attributes->count("uplo")) {
    ASSIGN_OR_RETURN(const char uplo, BlasChar(inst, *attributes, "uplo", "LU"));
    call.lower = uplo == 'L';
  } else if (auto it = attributes->find("lower"); it != attributes->end() && (it->second == "true" || it->second == "false")) {
    call.lower = it->second == "true";
  } else {
    return CallError(inst, "has neither uplo nor lower");
  }
  return *attributes;
}

// A shape as the call on a sees it: the GPU pipeline's transposed calls (solver_plan.h)
// hold aᵀ and the transposes of their matrix results, the arrays of the operand's rank,
// whose last two dimensions swap back here; the other calls' shapes are as they are.
Shape AsCallOnA(const Instruction& inst, const Shape& shape) {
  if (!IsTransposedSolverTarget(inst.attrs().custom_call_target) || inst.operand_count() == 0) return shape;
  const int64_t rank = inst.operand(0)->shape().rank();
  auto swapped = [&](Shape s) {
    if (s.IsArray() && s.rank() == rank && rank >= 2) {
      const int64_t rows = s.dimensions(rank - 2);
      s.set_dimension(rank - 2, s.dimensions(rank - 1));
      s.set_dimension(rank - 1, rows);
    }
    return s;
  };
  if (!shape.IsTuple()) return swapped(shape);
  std::vector<Shape> elements;
  for (const Shape& element : shape.tuple_shapes()) elements.push_back(swapped(element));
  return Shape::Tuple(std::move(elements));
}

// jax's Cholesky: (a) -> (factor, s32 info[batch]); LAPACK's uplo L/U, cuSOLVER's lower.
Status ParseCholesky(const Instruction& inst, LibraryCall& call) {
  RETURN_IF_ERROR(ReadTriangle(inst, call).status());
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a) || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return CallError(inst, "operand " + a.ToString(false) + " is not square matrices");
  }
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != PrimitiveType::kS32 ||
      shape.tuple_shapes(1).dimensions() != BatchDims(a)) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (factor, s32 info per matrix)");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's LU: (a [..., m, n]) -> (lu, s32 pivots [..., min(m, n)], s32 info [...]).
Status ParseLu(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a)) return CallError(inst, "operand " + a.ToString(false) + " is not matrices");
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64 && !ComplexLapack(inst)) {
    return CallUnsupported(inst, "an LU factorization of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " is not modelled (f32 and f64 are)");
  }
  const int64_t m = a.dimensions(a.rank() - 2), n = a.dimensions(a.rank() - 1);
  std::vector<int64_t> pivots = BatchDims(a);
  pivots.push_back(std::min(m, n));
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 3 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != PrimitiveType::kS32 ||
      shape.tuple_shapes(1).dimensions() != pivots || !shape.tuple_shapes(2).IsArray() ||
      shape.tuple_shapes(2).element_type() != PrimitiveType::kS32 || shape.tuple_shapes(2).dimensions() != BatchDims(a)) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (lu, s32 pivots, s32 info)");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's QR: (a [..., m, n]) -> (a, taus [..., min(m, n)]), both of a's type.
Status ParseQr(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a)) return CallError(inst, "operand " + a.ToString(false) + " is not matrices");
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64 && !ComplexLapack(inst)) {
    return CallUnsupported(inst, "a QR factorization of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " is not modelled (f32 and f64 are)");
  }
  std::vector<int64_t> taus = BatchDims(a);
  taus.push_back(std::min(a.dimensions(a.rank() - 2), a.dimensions(a.rank() - 1)));
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != a.element_type() ||
      shape.tuple_shapes(1).dimensions() != taus) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (a, taus [..., min(m, n)])");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's householder_product: (a [..., m, n], taus [..., k]) -> q of a's shape, k <= n <= m.
Status ParseHouseholderProduct(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 2) return CallError(inst, "takes two operands, the reflectors and their taus");
  // The GPU pipeline's call on aᵀ (solver_plan.h) is checked as the call on a.
  const Shape a = AsCallOnA(inst, inst.operand(0)->shape());
  const Shape& taus = inst.operand(1)->shape();
  if (!IsMatrixBatch(a)) return CallError(inst, "operand " + a.ToString(false) + " is not matrices");
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64 && !ComplexLapack(inst)) {
    return CallUnsupported(inst, "a product of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " Householder reflectors is not modelled (f32 and f64 are)");
  }
  const int64_t m = a.dimensions(a.rank() - 2), n = a.dimensions(a.rank() - 1);
  if (!taus.IsArray() || taus.rank() != a.rank() - 1 || taus.element_type() != a.element_type() ||
      std::vector<int64_t>(taus.dimensions().begin(), taus.dimensions().end() - 1) != BatchDims(a) ||
      taus.dimensions(taus.rank() - 1) > n || n > m) {
    return CallError(inst, "a " + a.ToString(false) + " and taus " + taus.ToString(false) +
                               " are not m x n reflectors (n <= m) with at most n taus");
  }
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.dimensions() != inst.operand(0)->shape().dimensions() ||
      shape.element_type() != a.element_type()) {
    return CallError(inst, "result " + shape.ToString(false) + " is not a's shape");
  }
  call.result = shape;
  return Status::Ok();
}

// jax's eigh: (a [..., n, n]) -> (vectors [..., n, n], values [..., n], s32 info [...]);
// LAPACK's uplo L/U (and mode V/N: the vectors are computed either way), cuSOLVER's lower.
Status ParseSymmetricEigen(const Instruction& inst, LibraryCall& call) {
  ASSIGN_OR_RETURN(const FfiAttributeMap attributes, ReadTriangle(inst, call));
  if (attributes.count("mode")) RETURN_IF_ERROR(BlasChar(inst, attributes, "mode", "VN").status());
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a) || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return CallError(inst, "operand " + a.ToString(false) + " is not square matrices");
  }
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64 && !ComplexLapack(inst)) {
    return CallUnsupported(inst, "an eigendecomposition of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " matrices is not modelled (f32 and f64 are)");
  }
  std::vector<int64_t> values = BatchDims(a);
  values.push_back(a.dimensions(a.rank() - 1));
  // A Hermitian matrix's eigenvalues are real.
  const PrimitiveType value_type = a.element_type() == PrimitiveType::kC64    ? PrimitiveType::kF32
                                   : a.element_type() == PrimitiveType::kC128 ? PrimitiveType::kF64
                                                                              : a.element_type();
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 3 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != value_type ||
      shape.tuple_shapes(1).dimensions() != values || !shape.tuple_shapes(2).IsArray() ||
      shape.tuple_shapes(2).element_type() != PrimitiveType::kS32 || shape.tuple_shapes(2).dimensions() != BatchDims(a)) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (vectors, values, s32 info)");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's SVD: (a [..., m, n]) -> (a, s [..., k], u, vt, s32 info [...]), k = min(m, n);
// jobz (mode) 'A': u [..., m, m], vt [..., n, n]; 'S': u [..., m, k], vt [..., k, n]; 'N':
// no vectors (u and vt are written as zeros).
Status ParseSvd(const Instruction& inst, LibraryCall& call) {
  std::optional<FfiAttributeMap> attributes = FfiAttributes(inst);
  char mode = 'A';
  if (inst.attrs().custom_call_target == "cusolver_gesvdj_ffi" ||
      inst.attrs().custom_call_target == kGesvdjTransposedTarget) {
    // {compute_uv = true, full_matrices = false}; element 3 is V, not V^T.
    auto flag = [&](const char* name) -> StatusOr<bool> {
      auto it = attributes ? attributes->find(name) : FfiAttributeMap::const_iterator{};
      if (!attributes || it == attributes->end() || (it->second != "true" && it->second != "false")) {
        return CallError(inst, std::string("has no ") + name + " = true|false attribute");
      }
      return it->second == "true";
    };
    ASSIGN_OR_RETURN(const bool compute_uv, flag("compute_uv"));
    ASSIGN_OR_RETURN(const bool full_matrices, flag("full_matrices"));
    mode = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
    call.svd_returns_v = true;
  } else {
    if (!attributes) return CallError(inst, "has no FFI attributes (mode) in its backend_config");
    ASSIGN_OR_RETURN(mode, BlasChar(inst, *attributes, "mode", "ASNO"));
    if (mode == 'O') return CallUnsupported(inst, "mode 'O' (the vectors written over a) is not modelled");
  }
  call.svd_mode = mode;
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  // The GPU pipeline's call on aᵀ (solver_plan.h) is checked as the call on a.
  const Shape a = AsCallOnA(inst, inst.operand(0)->shape());
  if (!IsMatrixBatch(a)) return CallError(inst, "operand " + a.ToString(false) + " is not matrices");
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64 && !ComplexLapack(inst)) {
    return CallUnsupported(inst, "a singular value decomposition of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " matrices is not modelled (f32 and f64 are)");
  }
  // The singular values are real.
  const PrimitiveType value_type = a.element_type() == PrimitiveType::kC64    ? PrimitiveType::kF32
                                   : a.element_type() == PrimitiveType::kC128 ? PrimitiveType::kF64
                                                                              : a.element_type();
  const int64_t m = a.dimensions(a.rank() - 2), n = a.dimensions(a.rank() - 1), k = std::min(m, n);
  const std::vector<int64_t> batch = BatchDims(a);
  auto with = [&](std::vector<int64_t> last) {
    std::vector<int64_t> dims = batch;
    dims.insert(dims.end(), last.begin(), last.end());
    return dims;
  };
  const Shape shape = AsCallOnA(inst, inst.shape());
  bool fits = shape.IsTuple() && shape.tuple_size() == 5;
  for (int64_t i = 0; fits && i < 4; ++i) {
    fits = shape.tuple_shapes(i).IsArray() &&
           shape.tuple_shapes(i).element_type() == (i == 1 ? value_type : a.element_type()) &&
           shape.tuple_shapes(i).rank() >= 1;
  }
  fits = fits && shape.tuple_shapes(0).dimensions() == a.dimensions() && shape.tuple_shapes(1).dimensions() == with({k}) &&
         shape.tuple_shapes(4).IsArray() && shape.tuple_shapes(4).element_type() == PrimitiveType::kS32 &&
         shape.tuple_shapes(4).dimensions() == batch;
  if (fits && mode != 'N') {
    const int64_t columns = mode == 'A' ? m : k, rows = mode == 'A' ? n : k;
    fits = shape.tuple_shapes(2).dimensions() == with({m, columns}) &&
           shape.tuple_shapes(3).dimensions() == (call.svd_returns_v ? with({n, rows}) : with({rows, n}));
  }
  if (!fits) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (a, s, u, vt, s32 info) for mode '" +
                               std::string(1, mode) + "'");
  }
  call.result = shape.tuple_shapes(1);
  return Status::Ok();
}

// jax's GPU pivots to permutation: s32 pivots [..., k] -> s32 permutation [..., m].
// jax's tridiagonal solve: (dl, d, du [..., n], b [..., n, nrhs]) -> (dl, d, du, x, s32
// info [...]). dl[0] and du[n - 1] are outside the matrix (jax's kernel hands LAPACK dl + 1).
Status ParseTridiagonalSolve(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 4) return CallError(inst, "takes four operands: dl, d, du and b");
  const Shape& d = inst.operand(1)->shape();
  const Shape& b = inst.operand(3)->shape();
  if (!d.IsArray() || d.rank() < 1) return CallError(inst, "the diagonal " + d.ToString(false) + " is not vectors");
  if (d.element_type() != PrimitiveType::kF32 && d.element_type() != PrimitiveType::kF64) {
    return CallUnsupported(inst, "a tridiagonal solve of " + std::string(PrimitiveTypeName(d.element_type())) +
                                     " is not modelled (f32 and f64 are: LAPACK's complex gtsv eliminates otherwise)");
  }
  for (int64_t i : {0, 2}) {
    const Shape& v = inst.operand(i)->shape();
    if (!v.IsArray() || v.dimensions() != d.dimensions() || v.element_type() != d.element_type()) {
      return CallError(inst, std::string(i == 0 ? "dl " : "du ") + v.ToString(false) + " differs from d " + d.ToString(false));
    }
  }
  std::vector<int64_t> rows(b.dimensions().begin(), b.dimensions().end() - (b.rank() >= 1 ? 1 : 0));
  if (!b.IsArray() || b.rank() != d.rank() + 1 || rows != d.dimensions() || b.element_type() != d.element_type()) {
    return CallError(inst, "b " + b.ToString(false) + " is not [..., n, nrhs] over d " + d.ToString(false));
  }
  const std::vector<int64_t> batch(d.dimensions().begin(), d.dimensions().end() - 1);
  const Shape shape = AsCallOnA(inst, inst.shape());
  bool fits = shape.IsTuple() && shape.tuple_size() == 5;
  for (int64_t i = 0; fits && i < 4; ++i) {
    const Shape& element = shape.tuple_shapes(i);
    fits = element.IsArray() && element.element_type() == d.element_type() &&
           element.dimensions() == inst.operand(i)->shape().dimensions();
  }
  if (!fits || !shape.tuple_shapes(4).IsArray() || shape.tuple_shapes(4).element_type() != PrimitiveType::kS32 ||
      shape.tuple_shapes(4).dimensions() != batch) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (dl, d, du, x, s32 info)");
  }
  call.result = shape.tuple_shapes(3);
  return Status::Ok();
}

// jax's Hessenberg reduction: (a [..., n, n]) -> (a, taus [..., n - 1], s32 info [...]), the
// whole matrix reduced (LAPACK's ilo = 1, ihi = n: jax's low and high attributes).
Status ParseHessenberg(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a) || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return CallError(inst, "operand " + a.ToString(false) + " is not square matrices");
  }
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64) {
    return CallUnsupported(inst, "a Hessenberg reduction of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " is not modelled (f32 and f64 are)");
  }
  const int64_t n = a.dimensions(a.rank() - 1);
  if (std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(inst)) {
    auto is = [&](const char* name, int64_t want) {
      auto it = attributes->find(name);
      return it == attributes->end() || it->second == std::to_string(want);
    };
    if (!is("low", 1) || !is("high", n)) {
      return CallUnsupported(inst, "only the whole matrix (low = 1, high = " + std::to_string(n) +
                                       ") is modelled, not low = " + attributes->at("low") + ", high = " +
                                       attributes->at("high"));
    }
  }
  std::vector<int64_t> taus = BatchDims(a);
  taus.push_back(std::max<int64_t>(n - 1, 0));
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 3 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != a.element_type() ||
      shape.tuple_shapes(1).dimensions() != taus || !shape.tuple_shapes(2).IsArray() ||
      shape.tuple_shapes(2).element_type() != PrimitiveType::kS32 || shape.tuple_shapes(2).dimensions() != BatchDims(a)) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (a, taus [..., n - 1], s32 info)");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's QR with column pivoting: (a [..., m, n], jpvt s32 [..., n]) -> (a, s32 jpvt, taus
// [..., min(m, n)]). A nonzero jpvt entry fixes its column in front (LAPACK): only jpvt
// known to be all zeros (jax's broadcast of 0) is modelled.
Status ParsePivotingQr(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 2) return CallError(inst, "takes two operands, the matrices and jpvt");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a)) return CallError(inst, "operand " + a.ToString(false) + " is not matrices");
  if (a.element_type() != PrimitiveType::kF32 && a.element_type() != PrimitiveType::kF64) {
    return CallUnsupported(inst, "a pivoting QR of " + std::string(PrimitiveTypeName(a.element_type())) +
                                     " is not modelled (f32 and f64 are)");
  }
  std::vector<int64_t> row = BatchDims(a), taus = BatchDims(a);
  row.push_back(a.dimensions(a.rank() - 1));
  taus.push_back(std::min(a.dimensions(a.rank() - 2), a.dimensions(a.rank() - 1)));
  const Instruction* jpvt = inst.operand(1);
  if (!jpvt->shape().IsArray() || jpvt->shape().element_type() != PrimitiveType::kS32 || jpvt->shape().dimensions() != row) {
    return CallError(inst, "jpvt " + jpvt->shape().ToString(false) + " is not s32 of a's columns");
  }
  // Through broadcasts, copies, bitcasts, reshapes and a fusion of them (XLA's optimized
  // module fuses jax's broadcast of 0) to a constant.
  const Instruction* zero = jpvt;
  for (int depth = 0; depth < 16 && zero != nullptr; ++depth) {
    const Opcode op = zero->opcode();
    if ((op == Opcode::kBroadcast || op == Opcode::kCopy || op == Opcode::kBitcast || op == Opcode::kReshape) &&
        zero->operand_count() == 1) {
      zero = zero->operand(0);
    } else if (op == Opcode::kFusion && zero->operand_count() == 0 && zero->fused_computation() != nullptr) {
      zero = zero->fused_computation()->root();
    } else {
      break;
    }
  }
  bool all_zero = zero != nullptr && zero->opcode() == Opcode::kConstant && zero->literal() != nullptr;
  for (int64_t i = 0; all_zero && i < zero->literal()->element_count(); ++i) all_zero = zero->literal()->GetInt64(i) == 0;
  if (!all_zero) {
    return CallUnsupported(inst, "jpvt %" + jpvt->name() +
                                     " is not known to be all zeros: columns fixed in front (nonzero entries) are not modelled");
  }
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 3 || !shape.tuple_shapes(0).IsArray() ||
      shape.tuple_shapes(0).dimensions() != a.dimensions() || shape.tuple_shapes(0).element_type() != a.element_type() ||
      !shape.tuple_shapes(1).IsArray() || shape.tuple_shapes(1).element_type() != PrimitiveType::kS32 ||
      shape.tuple_shapes(1).dimensions() != row || !shape.tuple_shapes(2).IsArray() ||
      shape.tuple_shapes(2).element_type() != a.element_type() || shape.tuple_shapes(2).dimensions() != taus) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (a, s32 jpvt, taus [..., min(m, n)])");
  }
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's eigendecomposition of a general real matrix: (a [..., n, n]) -> (wr [..., n], wi
// [..., n], vl and vr complex [..., n, n] (vector j in column j), s32 info [...]); the
// attributes compute_left and compute_right are LAPACK's jobvl and jobvr ('N' or 'V').
// The one operand of a call on square matrices.
StatusOr<const Shape*> SquareMatrices(const Instruction& inst) {
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the matrices");
  const Shape& a = inst.operand(0)->shape();
  if (!IsMatrixBatch(a) || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return CallError(inst, "operand " + a.ToString(false) + " is not square matrices");
  }
  return &a;
}

Status ParseGeneralEigen(const Instruction& inst, LibraryCall& call) {
  ASSIGN_OR_RETURN(const Shape* square, SquareMatrices(inst));
  const Shape& a = *square;
  const PrimitiveType real = a.element_type();
  const Shape& shape = inst.shape();
  std::vector<int64_t> values = BatchDims(a);
  values.push_back(a.dimensions(a.rank() - 1));
  auto is = [&](int64_t i, PrimitiveType type, const std::vector<int64_t>& dims) {
    return shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).element_type() == type &&
           shape.tuple_shapes(i).dimensions() == dims;
  };
  if (ComplexLapack(inst)) {
    // (w, vl, vr, s32 info), all complex.
    if (!shape.IsTuple() || shape.tuple_size() != 4 || !is(0, real, values) || !is(1, real, a.dimensions()) ||
        !is(2, real, a.dimensions()) || !is(3, PrimitiveType::kS32, BatchDims(a))) {
      return CallError(inst, "result " + shape.ToString(false) + " is not (w, vl, vr, s32 info)");
    }
  } else {
    if (real != PrimitiveType::kF32 && real != PrimitiveType::kF64) {
      return CallUnsupported(inst, "an eigendecomposition of " + std::string(PrimitiveTypeName(real)) +
                                       " is not modelled (f32 and f64 are)");
    }
    const PrimitiveType complex = real == PrimitiveType::kF32 ? PrimitiveType::kC64 : PrimitiveType::kC128;
    if (!shape.IsTuple() || shape.tuple_size() != 5 || !is(0, real, values) || !is(1, real, values) ||
        !is(2, complex, a.dimensions()) || !is(3, complex, a.dimensions()) || !is(4, PrimitiveType::kS32, BatchDims(a))) {
      return CallError(inst, "result " + shape.ToString(false) + " is not (wr, wi, complex vl, complex vr, s32 info)");
    }
  }
  std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(inst);
  if (!attributes) return CallError(inst, "has no FFI attributes (compute_left, compute_right) in its backend_config");
  ASSIGN_OR_RETURN(call.eigen_left, BlasChar(inst, *attributes, "compute_left", "NV"));
  ASSIGN_OR_RETURN(call.eigen_right, BlasChar(inst, *attributes, "compute_right", "NV"));
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

// jax's Schur decomposition: (a [..., n, n]) -> (t, vs [..., n, n], wr, wi [..., n], s32
// sdim [...], s32 info [...]) of a real a, (t, vs, w, sdim, info) of a complex one; mode
// (LAPACK's jobvs) 'V' or 'N'; sort 'N' (jaxlib orders no eigenvalues either).
Status ParseSchur(const Instruction& inst, LibraryCall& call) {
  ASSIGN_OR_RETURN(const Shape* square, SquareMatrices(inst));
  const Shape& a = *square;
  const PrimitiveType type = a.element_type();
  const bool complex = ComplexLapack(inst);
  if (!complex && type != PrimitiveType::kF32 && type != PrimitiveType::kF64) {
    return CallUnsupported(inst, "a Schur decomposition of " + std::string(PrimitiveTypeName(type)) + " is not modelled");
  }
  std::vector<int64_t> values = BatchDims(a);
  values.push_back(a.dimensions(a.rank() - 1));
  const Shape& shape = inst.shape();
  auto is = [&](int64_t i, PrimitiveType t, const std::vector<int64_t>& dims) {
    return shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).element_type() == t &&
           shape.tuple_shapes(i).dimensions() == dims;
  };
  const int64_t value_leaves = complex ? 1 : 2;
  bool fits = shape.IsTuple() && shape.tuple_size() == 4 + value_leaves && is(0, type, a.dimensions()) &&
              is(1, type, a.dimensions());
  for (int64_t i = 0; fits && i < value_leaves; ++i) fits = is(2 + i, type, values);
  if (!fits || !is(2 + value_leaves, PrimitiveType::kS32, BatchDims(a)) ||
      !is(3 + value_leaves, PrimitiveType::kS32, BatchDims(a))) {
    return CallError(inst, "result " + shape.ToString(false) + " is not (t, vs, " + (complex ? "w" : "wr, wi") +
                               ", s32 sdim, s32 info)");
  }
  std::optional<std::map<std::string, std::string>> attributes = FfiAttributes(inst);
  if (!attributes) return CallError(inst, "has no FFI attributes (mode, sort) in its backend_config");
  ASSIGN_OR_RETURN(call.eigen_right, BlasChar(inst, *attributes, "mode", "VN"));
  ASSIGN_OR_RETURN(const char sort, BlasChar(inst, *attributes, "sort", "NS"));
  if (sort != 'N') return CallUnsupported(inst, "ordering the eigenvalues (sort = 'S') is not modelled (nor by jaxlib)");
  call.result = shape.tuple_shapes(0);
  return Status::Ok();
}

Status ParseLuPivotsToPermutation(const Instruction& inst, LibraryCall& call) {
  if (inst.operand_count() != 1) return CallError(inst, "takes one operand, the pivots");
  const Shape& pivots = inst.operand(0)->shape();
  const Shape& shape = inst.shape();
  if (!pivots.IsArray() || pivots.rank() < 1 || pivots.element_type() != PrimitiveType::kS32 || !shape.IsArray() ||
      shape.element_type() != PrimitiveType::kS32 || shape.rank() != pivots.rank() ||
      std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end() - 1) !=
          std::vector<int64_t>(pivots.dimensions().begin(), pivots.dimensions().end() - 1)) {
    return CallError(inst, "pivots " + pivots.ToString(false) + " and result " + shape.ToString(false) +
                               " are not s32 [..., k] and s32 [..., m]");
  }
  call.result = shape;
  return Status::Ok();
}

bool IsLapackTarget(std::string_view target, std::string_view routine) {
  // lapack_{s,d,c,z}<routine>_ffi
  const std::string suffix = std::string(routine) + "_ffi";
  return target.size() == std::string_view("lapack_").size() + 1 + suffix.size() && target.rfind("lapack_", 0) == 0 &&
         std::string_view("sdcz").find(target[7]) != std::string_view::npos && target.substr(8) == suffix;
}

}  // namespace

std::optional<LibraryCallKind> LibraryCallKindOf(std::string_view target) {
  if (target == "__cublas$gemm" || target == "__cublas$lt$matmul") return LibraryCallKind::kGemm;
  if (target == "__cudnn$convForward") return LibraryCallKind::kConvForward;
  if (target == "__cudnn$convBiasActivationForward") return LibraryCallKind::kConvBiasActivationForward;
  if (target == "__cudnn$convBackwardInput") return LibraryCallKind::kConvBackwardInput;
  if (target == "__cudnn$convBackwardFilter") return LibraryCallKind::kConvBackwardFilter;
  if (target == "TopK" || target == "__gpu$TopK") return LibraryCallKind::kTopK;
  if (target == "__cub$DeviceRadixSort") return LibraryCallKind::kRadixSort;
  if (IsLapackTarget(target, "trsm") || target == kXlaTriangularSolveTarget) return LibraryCallKind::kTriangularSolve;
  if (IsLapackTarget(target, "potrf") || target == "cusolver_potrf_ffi" || target == "hipsolver_potrf_ffi") {
    return LibraryCallKind::kCholesky;
  }
  if (IsLapackTarget(target, "getrf") || target == "cusolver_getrf_ffi" || target == kGetrfTransposedTarget) {
    return LibraryCallKind::kLu;
  }
  if (IsLapackTarget(target, "geqrf") || target == "cusolver_geqrf_ffi" || target == kGeqrfTransposedTarget) {
    return LibraryCallKind::kQr;
  }
  if (IsLapackTarget(target, "orgqr") || IsLapackTarget(target, "ungqr") || target == "cusolver_orgqr_ffi" ||
      target == kOrgqrTransposedTarget) {
    return LibraryCallKind::kHouseholderProduct;
  }
  if (IsLapackTarget(target, "syevd") || IsLapackTarget(target, "heevd") || target == "cusolver_syevd_ffi" ||
      target == kSyevdTransposedTarget) {
    return LibraryCallKind::kSymmetricEigen;
  }
  if (IsLapackTarget(target, "gesdd") || target == "cusolver_gesvdj_ffi" || target == kGesvdjTransposedTarget) {
    return LibraryCallKind::kSvd;
  }
  if (target == "cu_lu_pivots_to_permutation") return LibraryCallKind::kLuPivotsToPermutation;
  if (IsLapackTarget(target, "gtsv")) return LibraryCallKind::kTridiagonalSolve;
  if (IsLapackTarget(target, "gehrd")) return LibraryCallKind::kHessenberg;
  if (IsLapackTarget(target, "geqp3")) return LibraryCallKind::kPivotingQr;
  if (IsLapackTarget(target, "geev")) return LibraryCallKind::kGeneralEigen;
  if (IsLapackTarget(target, "gees")) return LibraryCallKind::kSchur;
  if (IsFusedAttentionBackwardTarget(target)) return LibraryCallKind::kFusedAttentionBackward;
  if (IsFusedAttentionTarget(target)) return LibraryCallKind::kFusedAttention;
  return std::nullopt;
}

bool IsLibraryCall(const Instruction& instruction) {
  return instruction.opcode() == Opcode::kCustomCall &&
         LibraryCallKindOf(instruction.attrs().custom_call_target).has_value();
}

StatusOr<RaggedDotForm> ReadRaggedDot(const Instruction& inst) {
  auto error = [&](const std::string& why) {
    return InvalidArgument("%" + inst.name() + " (ragged-dot): " + why);
  };
  const auto& dot = inst.attrs().dot_dimension_numbers;
  const auto& ragged = inst.attrs().ragged_dot_dimension_numbers;
  if (inst.operand_count() != 3 || !dot || !ragged) {
    return error("needs (lhs, rhs, group_sizes) and its dimension numbers");
  }
  const Shape& lhs = inst.operand(0)->shape();
  const Shape& rhs = inst.operand(1)->shape();
  const Shape& groups = inst.operand(2)->shape();
  const std::string not_modelled =
      "only lhs [m, k] ragged in its rows with rhs [g, k, n] grouped in g, or lhs [m, k] and rhs [m, n] ragged "
      "in the contracted m, are modelled";
  if (!lhs.IsArray() || !rhs.IsArray() || !groups.IsArray() || groups.rank() != 1 || !IsInteger(groups.element_type()) ||
      lhs.rank() != 2 || !dot->lhs_batch_dimensions.empty() || !dot->rhs_batch_dimensions.empty() ||
      dot->lhs_contracting_dimensions.size() != 1 || dot->rhs_contracting_dimensions.size() != 1 ||
      ragged->lhs_ragged_dimensions != std::vector<int64_t>{0} || !inst.shape().IsArray()) {
    return error(not_modelled);
  }
  RaggedDotForm form;
  form.lhs_contracting = dot->lhs_contracting_dimensions[0];
  form.rhs_contracting = dot->rhs_contracting_dimensions[0];
  const int64_t g = groups.dimensions(0);
  std::vector<int64_t> want;
  if (form.lhs_contracting == 1 && rhs.rank() == 3 && ragged->rhs_group_dimensions == std::vector<int64_t>{0} &&
      (form.rhs_contracting == 1 || form.rhs_contracting == 2)) {
    form.mode = RaggedDotForm::kRaggedRows;
    if (rhs.dimensions(form.rhs_contracting) != lhs.dimensions(1) || rhs.dimensions(0) != g) return error("shapes do not fit");
    want = {lhs.dimensions(0), rhs.dimensions(form.rhs_contracting == 1 ? 2 : 1)};
  } else if (form.lhs_contracting == 0 && rhs.rank() == 2 && ragged->rhs_group_dimensions.empty() &&
             form.rhs_contracting == 0) {
    form.mode = RaggedDotForm::kRaggedContracting;
    if (rhs.dimensions(0) != lhs.dimensions(0)) return error("shapes do not fit");
    want = {g, lhs.dimensions(1), rhs.dimensions(1)};
  } else {
    return error(not_modelled);
  }
  if (inst.shape().dimensions() != want) {
    return error("lhs " + lhs.ToString(false) + ", rhs " + rhs.ToString(false) + ", group sizes " +
                 groups.ToString(false) + " and result " + inst.shape().ToString(false) + " do not fit");
  }
  return form;
}

std::vector<std::string> LibraryCallNotes(const Module& module) {
  std::vector<std::string> notes;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kCustomCall) continue;
      const std::optional<LibraryCallKind> kind = LibraryCallKindOf(inst->attrs().custom_call_target);
      if (kind != LibraryCallKind::kSymmetricEigen && kind != LibraryCallKind::kSvd) continue;
      std::string where = "%" + inst->name();
      if (inst->location().known()) where += " (line " + std::to_string(inst->location().line) + ")";
      notes.push_back(where + ": " + inst->attrs().custom_call_target +
                      (kind == LibraryCallKind::kSvd
                           ? ": the singular values are the library's to rounding; each pair of singular vectors is "
                             "unique only up to a common sign (within a repeated singular value, up to rotation), and "
                             "Fusebox's (Jacobi rotations) may be the negatives of the library's"
                           : ": the eigenvalues are the library's to rounding; each eigenvector is unique only up to "
                             "sign (within a repeated eigenvalue, up to rotation), and Fusebox's (Jacobi rotations) may "
                             "be the negative of the library's") +
                      (IsCpuLapackCall(*inst) ? " (the CPU backend runs LAPACK itself: its vectors are the library's; "
                                                "the interpreter's are the rotations', the GPU's cuSOLVER's)"
                                              : "") +
                      ": --check and --expected align each vector's sign before comparing; elsewhere compare what "
                      "is computed from them, not the vectors themselves");
    }
  }
  return notes;
}

bool IsCpuLapackTarget(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kCustomCall || instruction.operand_count() < 1) return false;
  const std::string& target = instruction.attrs().custom_call_target;
  for (const char* routine : {"potrf", "getrf", "geqrf", "orgqr", "syevd", "gesdd", "trsm", "gtsv", "gehrd", "geqp3",
                              "geev"}) {
    const char precision = target.size() > 7 ? target[7] : ' ';
    if (IsLapackTarget(target, routine) && (precision == 's' || precision == 'd')) return true;
  }
  if (IsLapackTarget(target, "gees")) return true;  // s, d, c, z
  // The complex routines the CPU runtime runs (c and z): these have no plain HLO here.
  for (const char* routine : {"potrf", "getrf", "geqrf", "ungqr", "heevd", "trsm", "geev", "gesdd"}) {
    if (IsLapackTarget(target, routine)) {
      const char precision = target[std::string_view("lapack_").size()];
      return precision == 'c' || precision == 'z';
    }
  }
  return false;
}

bool HasPlainHloModel(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kCustomCall) return true;
  const std::string& target = instruction.attrs().custom_call_target;
  const std::optional<LibraryCallKind> kind = LibraryCallKindOf(target);
  if (kind == LibraryCallKind::kGeneralEigen || kind == LibraryCallKind::kSchur) return false;
  return !(IsCpuLapackTarget(instruction) && (target[7] == 'c' || target[7] == 'z'));
}

int64_t LapackFlops(const Instruction& instruction) {
  if (!IsCpuLapackTarget(instruction)) return -1;
  const std::optional<LibraryCallKind> kind = LibraryCallKindOf(instruction.attrs().custom_call_target);
  // The matrices: b's for a triangular or tridiagonal solve, a's otherwise.
  const bool solve = kind == LibraryCallKind::kTriangularSolve || kind == LibraryCallKind::kTridiagonalSolve;
  const int solve_operand = kind == LibraryCallKind::kTriangularSolve ? 1 : 3;
  if (!kind || (solve && instruction.operand_count() <= solve_operand)) return -1;
  const Shape& shape = instruction.operand(solve ? solve_operand : 0)->shape();
  if (!shape.IsArray() || shape.rank() < 2) return -1;
  const double m = static_cast<double>(shape.dimensions(shape.rank() - 2));
  const double n = static_cast<double>(shape.dimensions(shape.rank() - 1));
  double batch = 1;
  for (int64_t d = 0; d + 2 < shape.rank(); ++d) batch *= static_cast<double>(shape.dimensions(d));
  const double k = std::min(m, n), big = std::max(m, n);
  double per_matrix = 0;
  switch (*kind) {
    case LibraryCallKind::kCholesky:
      per_matrix = n * n * n / 3;
      break;
    case LibraryCallKind::kLu:
      per_matrix = k * k * big - k * k * k / 3;
      break;
    case LibraryCallKind::kQr:
    case LibraryCallKind::kPivotingQr:
      per_matrix = 2 * k * k * big - 2 * k * k * k / 3;
      break;
    case LibraryCallKind::kHouseholderProduct: {
      const Shape& taus = instruction.operand_count() > 1 ? instruction.operand(1)->shape() : shape;
      const double r = taus.rank() >= 1 ? static_cast<double>(taus.dimensions(taus.rank() - 1)) : k;
      per_matrix = 4 * m * n * r - 2 * (m + n) * r * r + 4 * r * r * r / 3;
      break;
    }
    case LibraryCallKind::kSymmetricEigen: {
      // jax's mode: jobz as a ui8 character code ('V' when absent).
      char jobz = 'V';
      if (std::optional<FfiAttributeMap> attributes = FfiAttributes(instruction); attributes && attributes->count("mode")) {
        const std::string& value = attributes->at("mode");
        const int code = std::atoi(value.c_str());
        jobz = code > 0 ? static_cast<char>(code) : value.empty() ? 'V' : value[0];
      }
      per_matrix = (jobz != 'N' ? 14.0 : 4.0) * n * n * n / 3;
      break;
    }
    case LibraryCallKind::kSvd: {
      StatusOr<LibraryCall> call = ParseLibraryCall(instruction);
      const bool vectors = call.ok() && call->svd_mode != 'N';
      per_matrix = 4 * k * k * big - 4 * k * k * k / 3 + (vectors ? 4 * k * k * big + 8 * k * k * k : 0);
      break;
    }
    case LibraryCallKind::kHessenberg:
      per_matrix = 10 * n * n * n / 3;
      break;
    case LibraryCallKind::kTriangularSolve: {
      StatusOr<LibraryCall> call = ParseLibraryCall(instruction);
      per_matrix = call.ok() && !call->left_side ? m * n * n : m * m * n;
      break;
    }
    case LibraryCallKind::kTridiagonalSolve:
      per_matrix = (8 + 7 * n) * m;
      break;
    case LibraryCallKind::kSchur:
      per_matrix = 10.0 * n * n * n;  // the Hessenberg QR algorithm, with vectors about 25 n^3
      break;
    case LibraryCallKind::kGeneralEigen: {
      StatusOr<LibraryCall> call = ParseLibraryCall(instruction);
      const bool vectors = call.ok() && (call->eigen_left == 'V' || call->eigen_right == 'V');
      per_matrix = (vectors ? 79.0 / 3 : 10.0) * n * n * n;
      break;
    }
    default:
      return -1;
  }
  // A complex multiply-add is four real multiplications and four additions.
  const PrimitiveType type = instruction.operand(0)->shape().element_type();
  if (type == PrimitiveType::kC64 || type == PrimitiveType::kC128) per_matrix *= 4;
  return static_cast<int64_t>(std::max(0.0, batch * per_matrix));
}

bool IsLapackTwinGpuCall(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kCustomCall || instruction.operand_count() < 1) return false;
  const std::string& target = instruction.attrs().custom_call_target;
  if (target != "cusolver_potrf_ffi" && target != "cusolver_getrf_ffi" && target != "cusolver_geqrf_ffi" &&
      target != "cusolver_orgqr_ffi") {
    return false;
  }
  const PrimitiveType type = instruction.operand(0)->shape().element_type();
  return type == PrimitiveType::kF32 || type == PrimitiveType::kF64 || type == PrimitiveType::kC64 ||
         type == PrimitiveType::kC128;
}

bool IsLapackTwinGpuVectorCall(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kCustomCall || instruction.operand_count() != 1) return false;
  const std::string& target = instruction.attrs().custom_call_target;
  if (target != "cusolver_syevd_ffi" && target != "cusolver_gesvdj_ffi") return false;
  const PrimitiveType type = instruction.operand(0)->shape().element_type();
  return type == PrimitiveType::kF32 || type == PrimitiveType::kF64;
}

bool IsCpuLapackCall(const Instruction& instruction) {
  if (!IsCpuLapackTarget(instruction)) return false;
  const char precision = instruction.attrs().custom_call_target[std::string_view("lapack_").size()];
  const PrimitiveType type = instruction.operand(0)->shape().element_type();
  return (precision == 's' && type == PrimitiveType::kF32) || (precision == 'd' && type == PrimitiveType::kF64) ||
         (precision == 'c' && type == PrimitiveType::kC64) || (precision == 'z' && type == PrimitiveType::kC128);
}

StatusOr<LibraryCall> ParseLibraryCall(const Instruction& instruction) {
  if (!IsLibraryCall(instruction)) {
    return InvalidArgument(instruction.name() + " is not a library custom call Fusebox knows");
  }
  LibraryCall call;
  call.target = instruction.attrs().custom_call_target;
  call.kind = *LibraryCallKindOf(call.target);
  // The kinds that are not a gemm or a convolution read themselves.
  switch (call.kind) {
    case LibraryCallKind::kTopK:
      RETURN_IF_ERROR(ParseTopK(instruction, call));
      return call;
    case LibraryCallKind::kRadixSort:
      RETURN_IF_ERROR(ParseRadixSort(instruction, call));
      return call;
    case LibraryCallKind::kTriangularSolve:
      RETURN_IF_ERROR(ParseTriangularSolve(instruction, call));
      return call;
    case LibraryCallKind::kCholesky:
      RETURN_IF_ERROR(ParseCholesky(instruction, call));
      return call;
    case LibraryCallKind::kLu:
      RETURN_IF_ERROR(ParseLu(instruction, call));
      return call;
    case LibraryCallKind::kQr:
      RETURN_IF_ERROR(ParseQr(instruction, call));
      return call;
    case LibraryCallKind::kHouseholderProduct:
      RETURN_IF_ERROR(ParseHouseholderProduct(instruction, call));
      return call;
    case LibraryCallKind::kSymmetricEigen:
      RETURN_IF_ERROR(ParseSymmetricEigen(instruction, call));
      return call;
    case LibraryCallKind::kSvd:
      RETURN_IF_ERROR(ParseSvd(instruction, call));
      return call;
    case LibraryCallKind::kLuPivotsToPermutation:
      RETURN_IF_ERROR(ParseLuPivotsToPermutation(instruction, call));
      return call;
    case LibraryCallKind::kTridiagonalSolve:
      RETURN_IF_ERROR(ParseTridiagonalSolve(instruction, call));
      return call;
    case LibraryCallKind::kHessenberg:
      RETURN_IF_ERROR(ParseHessenberg(instruction, call));
      return call;
    case LibraryCallKind::kPivotingQr:
      RETURN_IF_ERROR(ParsePivotingQr(instruction, call));
      return call;
    case LibraryCallKind::kGeneralEigen:
      RETURN_IF_ERROR(ParseGeneralEigen(instruction, call));
      return call;
    case LibraryCallKind::kSchur:
      RETURN_IF_ERROR(ParseSchur(instruction, call));
      return call;
    case LibraryCallKind::kFusedAttention:
    case LibraryCallKind::kFusedAttentionBackward: {
      ASSIGN_OR_RETURN(call.attention, ParseFusedAttention(instruction));
      call.result = instruction.shape().IsTuple() ? instruction.shape().tuple_shapes(0) : instruction.shape();
      return call;
    }
    case LibraryCallKind::kGemm:
    case LibraryCallKind::kConvForward:
    case LibraryCallKind::kConvBiasActivationForward:
    case LibraryCallKind::kConvBackwardInput:
    case LibraryCallKind::kConvBackwardFilter:
      break;
  }
  // A gemm's element 1 may be its epilogue's aux output: ParseGemm checks it.
  ASSIGN_OR_RETURN(call.result, ValueShape(instruction, call.kind == LibraryCallKind::kGemm ? 1 : -1));
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    if (!instruction.operand(i)->shape().IsArray()) return CallError(instruction, "operand " + std::to_string(i) + " is not an array");
  }
  if (call.kind == LibraryCallKind::kGemm) {
    if (instruction.operand_count() < 2) return CallError(instruction, "a gemm takes at least two operands");
    RETURN_IF_ERROR(ParseGemm(instruction, call));
  } else {
    RETURN_IF_ERROR(ParseConv(instruction, call));
  }
  return call;
}

StatusOr<Computation*> BuildLibraryCallComputation(const Instruction& instruction, Module& module) {
  ASSIGN_OR_RETURN(LibraryCall call, ParseLibraryCall(instruction));
  if (call.kind == LibraryCallKind::kSchur) {
    return CallUnsupported(instruction,
                           "has no plain-HLO model (the QR algorithm's Schur form): only the CPU backend runs it, "
                           "through LAPACK's gees as XLA does");
  }
  if (!HasPlainHloModel(instruction) && call.kind != LibraryCallKind::kGeneralEigen) {
    return CallUnsupported(instruction,
                           "has no plain-HLO model (complex LAPACK): only the CPU backend runs it, through LAPACK as "
                           "XLA does, and its --check runs LAPACK's double-precision routine as the reference");
  }
  if (call.kind == LibraryCallKind::kGeneralEigen) {
    return CallUnsupported(instruction,
                           "has no plain-HLO model (the nonsymmetric QR algorithm): only the CPU backend runs it, "
                           "through LAPACK's geev as XLA does, and its --check runs LAPACK's f64 routine as the "
                           "reference");
  }
  std::string name = instruction.name();
  for (char& c : name) {
    if (c == '$') c = '_';
  }
  Computation* computation = module.AddComputation(std::make_unique<Computation>(module.UniqueName(name + "_library_call")));
  Emitter e(module, computation);
  std::vector<Instruction*> params;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    params.push_back(e.Parameter(i, instruction.operand(i)->shape()));
  }
  if (call.kind == LibraryCallKind::kTopK) {
    const Shape& shape = instruction.shape();
    Instruction* topk = e.Add(Opcode::kTopK, Shape::Tuple({shape.tuple_shapes(0), shape.tuple_shapes(1)}), {params[0]});
    topk->mutable_attrs().k = call.k;
    topk->mutable_attrs().largest = call.largest;
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i >= 2) {
        elements.push_back(e.Zeros(shape.tuple_shapes(i)));
        continue;
      }
      Instruction* element = e.Add(Opcode::kGetTupleElement, shape.tuple_shapes(i), {topk});
      element->mutable_attrs().tuple_index = i;
      elements.push_back(element);
    }
    computation->set_root(e.Add(Opcode::kTuple, shape, elements));
    return computation;
  }
  if (call.kind == LibraryCallKind::kTriangularSolve) {
    Instruction* solve = e.Add(Opcode::kTriangularSolve, call.result, params);
    InstructionAttributes& attrs = solve->mutable_attrs();
    attrs.left_side = call.left_side;
    attrs.lower = call.lower;
    attrs.unit_diagonal = call.unit_diagonal;
    attrs.transpose_a = call.transpose_a;
    const Shape& shape = instruction.shape();
    if (shape.IsTuple()) {  // XLA's call: (x, zero scratch)
      std::vector<Instruction*> elements = {solve};
      for (int64_t i = 1; i < shape.tuple_size(); ++i) elements.push_back(e.Zeros(shape.tuple_shapes(i)));
      computation->set_root(e.Add(Opcode::kTuple, shape, elements));
    } else {
      computation->set_root(solve);
    }
    return computation;
  }
  if (call.kind == LibraryCallKind::kCholesky) {
    computation->set_root(EmitCholeskyCall(module, computation, instruction, call, params[0]));
    return computation;
  }
  if (IsTransposedSolverTarget(call.target)) {
    // The GPU pipeline's calls on aᵀ (solver_plan.h): the call's model on the operand's
    // transpose, its matrix results (those of the operand's rank) transposed back.
    const Shape& shape = instruction.shape();
    const Shape on_a = AsCallOnA(instruction, shape);
    const int64_t rank = params[0]->shape().rank();
    std::vector<int64_t> swap(static_cast<size_t>(rank));
    std::iota(swap.begin(), swap.end(), 0);
    std::swap(swap[rank - 1], swap[rank - 2]);
    Instruction* a = e.Transpose(params[0], swap);
    std::vector<Instruction*> elements;
    auto take_elements = [&](Instruction* tuple) {
      for (int64_t i = 0; i < on_a.tuple_size(); ++i) {
        Instruction* element = e.Add(Opcode::kGetTupleElement, on_a.tuple_shapes(i), {tuple});
        element->mutable_attrs().tuple_index = i;
        elements.push_back(element);
      }
    };
    switch (call.kind) {
      case LibraryCallKind::kLu:
        take_elements(EmitLuCall(module, computation, on_a, a));
        break;
      case LibraryCallKind::kQr: {
        auto [factored, taus] = library_call_internal::HouseholderQr(module, computation, a);
        elements = {factored, taus};
        break;
      }
      case LibraryCallKind::kSymmetricEigen:  // square: the call's own shapes fit
        take_elements(library_call_internal::EmitSyevdCall(module, computation, instruction, a, call.lower));
        break;
      case LibraryCallKind::kSvd:
        take_elements(library_call_internal::EmitGesddCall(module, computation, on_a, a, call.svd_mode,
                                                           call.svd_returns_v));
        break;
      default:
        elements = {library_call_internal::HouseholderProduct(module, computation, a, params[1])};
    }
    for (Instruction*& element : elements) {
      if (element->shape().IsArray() && element->shape().rank() == rank) element = e.Transpose(element, swap);
    }
    if (!shape.IsTuple()) {
      elements[0]->set_shape(shape);
      computation->set_root(elements[0]);
      return computation;
    }
    for (size_t i = 0; i < elements.size(); ++i) elements[i]->set_shape(shape.tuple_shapes(static_cast<int64_t>(i)));
    computation->set_root(e.Add(Opcode::kTuple, shape, elements));
    return computation;
  }
  if (call.kind == LibraryCallKind::kLu) {
    computation->set_root(EmitLuCall(module, computation, instruction.shape(), params[0]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kQr) {
    computation->set_root(library_call_internal::EmitGeqrfCall(module, computation, instruction, params[0]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kSvd) {
    computation->set_root(library_call_internal::EmitGesddCall(module, computation, instruction, params[0],
                                                               call.svd_mode, call.svd_returns_v));
    return computation;
  }
  if (call.kind == LibraryCallKind::kLuPivotsToPermutation) {
    computation->set_root(EmitPivotsToPermutation(module, computation, instruction, params[0]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kPivotingQr) {
    computation->set_root(library_call_internal::EmitGeqp3Call(module, computation, instruction, params[0]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kHessenberg) {
    computation->set_root(library_call_internal::EmitGehrdCall(module, computation, instruction, params[0]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kTridiagonalSolve) {
    computation->set_root(EmitGtsvCall(module, computation, instruction, params));
    return computation;
  }
  if (call.kind == LibraryCallKind::kSymmetricEigen) {
    computation->set_root(
        library_call_internal::EmitSyevdCall(module, computation, instruction, params[0], call.lower));
    return computation;
  }
  if (call.kind == LibraryCallKind::kHouseholderProduct) {
    computation->set_root(
        library_call_internal::EmitOrgqrCall(module, computation, instruction, params[0], params[1]));
    return computation;
  }
  if (call.kind == LibraryCallKind::kRadixSort) {
    const Shape& shape = instruction.shape();
    std::vector<Shape> sorted_shapes;
    std::vector<PrimitiveType> types;
    for (Instruction* param : params) {
      sorted_shapes.push_back(param->shape());
      types.push_back(param->shape().element_type());
    }
    Instruction* sort =
        e.Add(Opcode::kSort, params.size() == 1 ? sorted_shapes[0] : Shape::Tuple(sorted_shapes), params);
    sort->mutable_attrs().dimensions = std::vector<int64_t>{params[0]->shape().rank() - 1};
    sort->mutable_attrs().is_stable = true;
    sort->AppendCalledComputation(Emitter::TotalOrderComparator(module, types, call.descending,
                                                                call.descending ? "radix_sort_greater" : "radix_sort_less"));
    sort->set_call_form(CallForm::kToApply);
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i + 1 < shape.tuple_size(); ++i) {
      if (params.size() == 1) {
        sort->set_shape(shape.tuple_shapes(0));
        elements.push_back(sort);
        break;
      }
      Instruction* element = e.Add(Opcode::kGetTupleElement, shape.tuple_shapes(i), {sort});
      element->mutable_attrs().tuple_index = i;
      elements.push_back(element);
    }
    elements.push_back(e.Zeros(shape.tuple_shapes(shape.tuple_size() - 1)));
    computation->set_root(e.Add(Opcode::kTuple, shape, elements));
    return computation;
  }
  if (call.kind == LibraryCallKind::kFusedAttention || call.kind == LibraryCallKind::kFusedAttentionBackward) {
    std::vector<Instruction*> elements = EmitFusedAttention(instruction, call.attention, e, params);
    const Shape& shape = instruction.shape();
    for (size_t i = 0; i < elements.size(); ++i) {
      elements[i]->set_shape(shape.IsTuple() ? shape.tuple_shapes(static_cast<int64_t>(i)) : shape);
    }
    computation->set_root(shape.IsTuple() ? e.Add(Opcode::kTuple, shape, elements) : elements[0]);
    return computation;
  }
  Instruction* aux = nullptr;
  Instruction* value = call.kind == LibraryCallKind::kGemm ? EmitGemm(e, call, params, &aux) : EmitConv(e, call, params);
  // The call's own shape (its layout) on the result.
  if (!instruction.shape().IsTuple()) {
    value->set_shape(instruction.shape());
    computation->set_root(value);
    return computation;
  }
  std::vector<Instruction*> elements = {value};
  for (int64_t i = 1; i < instruction.shape().tuple_size(); ++i) {
    const Shape& element = instruction.shape().tuple_shapes(i);
    if (i == 1 && aux != nullptr) {
      aux->set_shape(element);  // the GELU's input, in the layout the call gives it
      elements.push_back(aux);
    } else {
      elements.push_back(e.Zeros(element));
    }
  }
  value->set_shape(instruction.shape().tuple_shapes(0));
  computation->set_root(e.Add(Opcode::kTuple, instruction.shape(), elements));
  return computation;
}

StatusOr<Instruction*> ReplaceLibraryCallWithPlainCall(Instruction& instruction, Module& module,
                                                       const std::string& name) {
  ASSIGN_OR_RETURN(Computation * plain, BuildLibraryCallComputation(instruction, module));
  Computation* parent = instruction.parent();
  // A fresh name first: `name` may be the custom call's own, taken until it is removed.
  auto call = std::make_unique<Instruction>(Opcode::kCall, module.UniqueName(instruction.name()), instruction.shape());
  for (Instruction* operand : instruction.operands()) call->AppendOperand(operand);
  call->AppendCalledComputation(plain);
  call->set_call_form(CallForm::kToApply);
  if (instruction.metadata() != nullptr) call->set_metadata(*instruction.metadata());
  call->set_location(instruction.location());
  Instruction* replacement = parent->AddInstruction(std::move(call));
  parent->ReplaceInstruction(&instruction, replacement);
  if (!name.empty()) parent->RenameInstruction(replacement, name);
  return replacement;
}

}  // namespace fusebox
