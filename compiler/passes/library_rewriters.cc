#include "compiler/passes/library_rewriters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <optional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"

namespace fusebox::passes {
namespace {

nlohmann::json DimensionStrings(const std::vector<int64_t>& dims) {
  // XLA's JSON writes proto int64 fields as strings.
  nlohmann::json out = nlohmann::json::array();
  for (int64_t d : dims) out.push_back(std::to_string(d));
  return out;
}

// The call a dot becomes, described as ParseLibraryCall would read it.
LibraryCall CallFor(const Instruction& dot) {
  LibraryCall call;
  call.kind = LibraryCallKind::kGemm;
  call.target = "__cublas$gemm";
  call.result = dot.shape();
  call.dot = dot.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  call.precision = dot.attrs().operand_precision;
  return call;
}

}  // namespace

std::string GemmBackendConfig(const Instruction& dot, GemmEpilogue epilogue) {
  const DotDimensionNumbers dims = dot.attrs().dot_dimension_numbers.value_or(DotDimensionNumbers{});
  nlohmann::json precision = nlohmann::json::array();
  for (Precision p : dot.attrs().operand_precision) {
    std::string name(PrecisionName(p));  // XLA's JSON spells the enum in capitals
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    precision.push_back(name);
  }
  while (precision.size() < 2) precision.push_back("DEFAULT");
  nlohmann::json gemm = {
      {"alpha_real", 1},
      {"alpha_imag", 0},
      {"beta", 0},
      {"dot_dimension_numbers",
       {{"lhs_contracting_dimensions", DimensionStrings(dims.lhs_contracting_dimensions)},
        {"rhs_contracting_dimensions", DimensionStrings(dims.rhs_contracting_dimensions)},
        {"lhs_batch_dimensions", DimensionStrings(dims.lhs_batch_dimensions)},
        {"rhs_batch_dimensions", DimensionStrings(dims.rhs_batch_dimensions)}}},
      {"precision_config", {{"operand_precision", precision}}},
      {"epilogue", std::string(GemmEpilogueName(epilogue))},
  };
  return nlohmann::json{{"gemm_backend_config", gemm}}.dump();
}

namespace {

// Replaces `old` by `call` with `operands` (same shape, metadata, location, control edges);
// returns the call.
// Removes `old` after moving what it had onto the instructions replacing it: `first`
// (computed first) takes its metadata, if it has none, and its control predecessors;
// `value` (what old's users read from now on) its users, root role and control successors.
void Retire(Instruction* old, Instruction* first, Instruction* value) {
  Computation* parent = old->parent();
  if (old->metadata() != nullptr && first->metadata() == nullptr) first->set_metadata(*old->metadata());
  for (Instruction* pred : old->control_predecessors()) first->AddControlPredecessor(pred);
  for (Instruction* successor : std::vector<Instruction*>(old->control_successors())) {
    successor->AddControlPredecessor(value);
  }
  old->ReplaceAllUsesWith(value);
  if (parent->root() == old) parent->set_root(value);
  old->DetachFromOperands();
  parent->RemoveInstruction(old);
}

Instruction* ReplaceWithCall(Instruction* old, std::unique_ptr<Instruction> call,
                             const std::vector<Instruction*>& operands) {
  for (Instruction* operand : operands) call->AppendOperand(operand);
  call->set_location(old->location());
  Instruction* replacement = old->parent()->AddInstruction(std::move(call));
  Retire(old, replacement, replacement);
  return replacement;
}

}  // namespace

// The padding that makes `window`'s padding symmetric: each spatial dimension keeps
// min(low, high) in the window, and the rest goes into an explicit pad of the input.
// nullopt when the padding is symmetric already or cannot be split (negative, or with
// lhs dilation, which a pad before it would not mean the same).
std::optional<std::vector<PaddingDimension>> ExplicitPadding(const Instruction& conv) {
  const Window& window = *conv.attrs().window;
  const ConvolutionDimensionNumbers& dn = *conv.attrs().convolution_dimension_numbers;
  std::vector<PaddingDimension> pad(static_cast<size_t>(conv.operand(0)->shape().rank()));
  bool any = false;
  for (size_t i = 0; i < window.dimensions.size() && i < dn.input_spatial_dimensions.size(); ++i) {
    const WindowDimension& d = window.dimensions[i];
    if (d.padding_low < 0 || d.padding_high < 0 || d.base_dilation != 1) return std::nullopt;
    const int64_t keep = std::min(d.padding_low, d.padding_high);
    PaddingDimension& p = pad[static_cast<size_t>(dn.input_spatial_dimensions[i])];
    p.low = d.padding_low - keep;
    p.high = d.padding_high - keep;
    any = any || p.low != 0 || p.high != 0;
  }
  if (!any) return std::nullopt;
  return pad;
}

namespace {

constexpr const char* kConvBackendConfig =
    R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}})";

// Folds the scale, bias add, side input and relu after the forward convolution call `call`
// into it (see ConvRewriter); defined with the gemm epilogue's matching below. Returns
// whether it did.
bool FoldConvEpilogue(Module& module, Instruction* call, PassContext& context);
int MoveReluGradientsOntoTheRelu(Computation* computation, const std::string& pass, PassContext& context);

// An input gradient of a strided convolution, as HLO writes it (the output gradient dy,
// lhs-dilated by the stride, convolved with the kernel w' reversed and with its features
// swapped), read as the __cudnn$convBackwardInput call of the forward convolution F it
// differentiates: dx[i] = sum over (o, r) with o*s + r*d - p = i of dy[o] * w[r].
//   F's x = the result (dx), F's y = dy, F's kernel K = w''s input feature, C = its output
//   feature; F's stride = the lhs dilation s, dilation d the same, padding
//   p = d*(R-1) - padding_low on both sides, and w = w' reversed over the spatial
//   dimensions the window does not reverse already.
// cuDNN's padding is symmetric, so dx may come out longer than the result (a high
// padding below the low one): the call computes `padded` and a slice keeps the start.
// Without a stride (no lhs dilation) a forward call covers it too; the backward-input call
// is taken then only when w' is a reverse of w over exactly those dimensions, as XLA's
// conv rewriter does: the call reads w and the reverse kernel goes.
struct BackwardInputForm {
  Window window;
  ConvolutionDimensionNumbers dn;
  std::vector<int64_t> reverse;  // kernel dimensions w' is reversed over first
  Shape padded;                  // the call's result: dx, perhaps longer
};

std::optional<BackwardInputForm> AsBackwardInput(const Instruction& conv) {
  const InstructionAttributes& attrs = conv.attrs();
  if (!attrs.window || !attrs.convolution_dimension_numbers || attrs.feature_group_count != 1 ||
      attrs.batch_group_count != 1) {
    return std::nullopt;
  }
  const ConvolutionDimensionNumbers& c = *attrs.convolution_dimension_numbers;
  BackwardInputForm f;
  f.dn.input_batch_dimension = c.output_batch_dimension;
  f.dn.input_feature_dimension = c.output_feature_dimension;
  f.dn.input_spatial_dimensions = c.output_spatial_dimensions;
  f.dn.output_batch_dimension = c.input_batch_dimension;
  f.dn.output_feature_dimension = c.input_feature_dimension;
  f.dn.output_spatial_dimensions = c.input_spatial_dimensions;
  f.dn.kernel_output_feature_dimension = c.kernel_input_feature_dimension;
  f.dn.kernel_input_feature_dimension = c.kernel_output_feature_dimension;
  f.dn.kernel_spatial_dimensions = c.kernel_spatial_dimensions;
  f.padded = conv.shape();
  bool strided = false;
  for (size_t i = 0; i < attrs.window->dimensions.size(); ++i) {
    const WindowDimension& d = attrs.window->dimensions[i];
    if (d.stride != 1 || d.base_dilation < 1 || d.window_dilation < 1 || d.size < 1 ||
        i >= c.output_spatial_dimensions.size() || i >= c.input_spatial_dimensions.size()) {
      return std::nullopt;
    }
    strided = strided || d.base_dilation > 1;
    const int64_t s = d.base_dilation, span = d.window_dilation * (d.size - 1);
    const int64_t p = span - d.padding_low;
    if (p < 0) return std::nullopt;
    const int64_t out = conv.operand(0)->shape().dimensions(c.input_spatial_dimensions[i]);  // O
    const int64_t in = conv.shape().dimensions(c.output_spatial_dimensions[i]);               // I
    const int64_t longer = std::max(in, (out - 1) * s + span + 1 - 2 * p);                     // I'
    if (longer + 2 * p - span - 1 >= out * s) return std::nullopt;  // F would have more outputs than dy
    f.padded.set_dimension(c.output_spatial_dimensions[i], longer);
    WindowDimension fd;
    fd.size = d.size;
    fd.stride = s;
    fd.padding_low = fd.padding_high = p;
    fd.window_dilation = d.window_dilation;
    f.window.dimensions.push_back(fd);
    if (!d.window_reversal) f.reverse.push_back(c.kernel_spatial_dimensions[i]);
  }
  if (!strided) {
    // A forward cross-correlation plan covers it; only reading through a reverse of w is
    // worth a backward-input call (the reverse goes).
    const Instruction* kernel = conv.operand(1);
    std::vector<int64_t> theirs = kernel->opcode() == Opcode::kReverse ? kernel->dimensions() : std::vector<int64_t>{};
    std::vector<int64_t> wanted = f.reverse;
    std::sort(theirs.begin(), theirs.end());
    std::sort(wanted.begin(), wanted.end());
    if (kernel->opcode() != Opcode::kReverse || wanted.empty() || theirs != wanted) return std::nullopt;
  }
  if (!PlanConvolutionShapes(f.window, f.dn, 1, 1, f.padded, conv.operand(1)->shape(), conv.operand(0)->shape()).ok()) {
    return std::nullopt;
  }
  return f;
}

Instruction* AddBefore(Instruction* conv, std::unique_ptr<Instruction> inst) {
  if (conv->metadata() != nullptr) inst->set_metadata(*conv->metadata());
  inst->set_location(conv->location());
  return conv->parent()->AddInstruction(std::move(inst));
}

// Removes `inst` when it is a reverse nothing uses any more (only it: what it reads may
// be waiting for this pass).
void RemoveUnusedReverse(Instruction* inst) {
  if (inst->opcode() != Opcode::kReverse || !inst->users().empty() || inst->parent()->root() == inst ||
      !inst->control_successors().empty() || !inst->control_predecessors().empty()) {
    return;
  }
  Computation* parent = inst->parent();
  inst->DetachFromOperands();
  parent->RemoveInstruction(inst);
}

// Replaces `conv` by the __cudnn$convBackwardInput call `form` describes (and the
// kernel's reverse and the result's slice where needed). A reverse the call no longer
// reads goes.
void RewriteAsBackwardInput(Module& module, Instruction* conv, const BackwardInputForm& form) {
  Instruction* kernel = conv->operands()[1];
  Instruction* const read_before = kernel;
  if (!form.reverse.empty()) {
    // reverse(reverse(w)) is w: use the operand of a reverse over exactly these dimensions.
    std::vector<int64_t> sorted = form.reverse;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> theirs = kernel->opcode() == Opcode::kReverse ? kernel->dimensions() : std::vector<int64_t>{};
    std::sort(theirs.begin(), theirs.end());
    if (kernel->opcode() == Opcode::kReverse && theirs == sorted) {
      kernel = kernel->operands()[0];
    } else {
      auto reverse = std::make_unique<Instruction>(Opcode::kReverse, module.UniqueName("reverse"), kernel->shape());
      reverse->AppendOperand(kernel);
      reverse->mutable_attrs().dimensions = sorted;
      kernel = AddBefore(conv, std::move(reverse));
    }
  }
  auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName("cudnn-conv-bw-input"), form.padded);
  InstructionAttributes& attrs = call->mutable_attrs();
  attrs.custom_call_target = "__cudnn$convBackwardInput";
  attrs.has_custom_call_target = true;
  attrs.window = form.window;
  attrs.convolution_dimension_numbers = form.dn;
  attrs.backend_config = kConvBackendConfig;
  attrs.has_backend_config = true;
  if (form.padded == conv->shape()) {
    ReplaceWithCall(conv, std::move(call), {conv->operands()[0], kernel});
    RemoveUnusedReverse(read_before);
    return;
  }
  call->AppendOperand(conv->operands()[0]);
  call->AppendOperand(kernel);
  Instruction* longer = AddBefore(conv, std::move(call));
  auto slice = std::make_unique<Instruction>(Opcode::kSlice, module.UniqueName("slice"), conv->shape());
  for (int64_t d = 0; d < conv->shape().rank(); ++d) {
    slice->mutable_attrs().slice.push_back(SliceDimension{0, conv->shape().dimensions(d), 1});
  }
  ReplaceWithCall(conv, std::move(slice), {longer});
  RemoveUnusedReverse(read_before);
}

// A weight gradient dw = conv(x, dy) as jax writes it (x's batch contracted as the input
// feature, dy the "kernel" slid with the forward stride as its dilation) read back as the
// forward convolution y = conv(x, w) it differentiates, in the terms XLA's
// __cudnn$convBackwardFilter call takes: operands (x, dy), the forward window (the filter's
// size, the forward stride and dilation, the padding `window` has) and the forward
// dim_labels (x's, the filter's = the result's, y's = dy's). Nullopt when that forward
// convolution is not the one cuDNN would plan.
struct BackwardFilterForm {
  Window window;
  ConvolutionDimensionNumbers dn;
};
std::optional<BackwardFilterForm> AsBackwardFilter(const Instruction& conv, const Window& window, const Shape& x) {
  const ConvolutionDimensionNumbers& g = *conv.attrs().convolution_dimension_numbers;
  BackwardFilterForm f;
  f.dn.input_batch_dimension = g.input_feature_dimension;
  f.dn.input_feature_dimension = g.input_batch_dimension;
  f.dn.input_spatial_dimensions = g.input_spatial_dimensions;
  f.dn.kernel_output_feature_dimension = g.output_feature_dimension;
  f.dn.kernel_input_feature_dimension = g.output_batch_dimension;
  f.dn.kernel_spatial_dimensions = g.output_spatial_dimensions;
  f.dn.output_batch_dimension = g.kernel_input_feature_dimension;
  f.dn.output_feature_dimension = g.kernel_output_feature_dimension;
  f.dn.output_spatial_dimensions = g.kernel_spatial_dimensions;
  for (size_t s = 0; s < window.dimensions.size(); ++s) {
    const WindowDimension& w = window.dimensions[s];
    if (w.base_dilation != 1 || w.window_reversal || w.padding_low != w.padding_high) return std::nullopt;
    WindowDimension d;
    d.size = conv.shape().dimensions(g.output_spatial_dimensions[s]);
    d.stride = w.window_dilation;
    d.window_dilation = w.stride;
    d.padding_low = d.padding_high = w.padding_low;
    f.window.dimensions.push_back(d);
  }
  StatusOr<ConvPlan> plan = PlanConvolutionShapes(f.window, f.dn, 1, 1, x, conv.shape(), conv.operand(1)->shape());
  if (!plan.ok() || plan->call != ConvCall::kForward) return std::nullopt;
  return f;
}

// cuDNN's filter descriptors take packed filters only (KRSC or KCRS: conv_plan.h). A
// filter in any other order (jax's HWIO) would be packed by cudnnTransformTensor before
// every call, and a weight gradient unpacked after it: a library kernel each, hidden in the
// call. As XLA's layout assignment does, the filter becomes a transpose into the packed
// order instead (one per filter and order: a forward call and the input gradient of the
// same weights share it), a kernel of its own or, for a constant, folded; a weight
// gradient's call writes the packed order and a transpose back, which fuses into the
// update that reads it. Calls whose filter is packed already (XLA's o01i) are left alone.
int PackConvFilters(Module& module) {
  int changed = 0;
  std::map<std::pair<const Instruction*, std::vector<int64_t>>, Instruction*> packed;
  for (Computation* computation : ProgramComputations(module)) {
    std::vector<Instruction*> calls;
    for (const auto& inst : computation->instructions()) {
      const std::string& target = inst->attrs().custom_call_target;
      if (inst->opcode() == Opcode::kCustomCall && inst->shape().IsArray() && inst->operand_count() >= 2 &&
          inst->attrs().convolution_dimension_numbers &&
          (target == "__cudnn$convForward" || target == "__cudnn$convBiasActivationForward" ||
           target == "__cudnn$convBackwardInput" || target == "__cudnn$convBackwardFilter")) {
        calls.push_back(inst.get());
      }
    }
    for (Instruction* call : calls) {
      StatusOr<ConvPlan> plan = PlanConvolution(*call);
      if (!plan.ok() || PackedFilterLayout(*plan)) continue;
      ConvolutionDimensionNumbers& dn = *call->mutable_attrs().convolution_dimension_numbers;
      // The packed order of the filter's dimensions: K, then R, S and C (KRSC) or C, R, S.
      std::vector<int64_t> perm = {dn.kernel_output_feature_dimension};
      const bool krsc = PreferredFilterLayout(*plan) == FilterLayout::kKrsc;
      if (!krsc) perm.push_back(dn.kernel_input_feature_dimension);
      perm.insert(perm.end(), dn.kernel_spatial_dimensions.begin(), dn.kernel_spatial_dimensions.end());
      if (krsc) perm.push_back(dn.kernel_input_feature_dimension);
      std::vector<int64_t> position(perm.size());  // of each old dimension in the packed order
      for (size_t p = 0; p < perm.size(); ++p) position[static_cast<size_t>(perm[p])] = static_cast<int64_t>(p);
      const bool gradient = call->attrs().custom_call_target == "__cudnn$convBackwardFilter";
      const Shape& filter = gradient ? call->shape() : call->operand(1)->shape();
      if (static_cast<int64_t>(perm.size()) != filter.rank()) continue;
      std::vector<int64_t> packed_dims;
      for (int64_t d : perm) packed_dims.push_back(filter.dimensions(d));
      const Shape packed_shape(filter.element_type(), packed_dims);
      auto transpose = [&](Instruction* of, const Shape& shape, const std::vector<int64_t>& dimensions) {
        auto t = std::make_unique<Instruction>(Opcode::kTranspose, module.UniqueName("transpose"), shape);
        t->AppendOperand(of);
        t->mutable_attrs().dimensions = dimensions;
        if (call->metadata() != nullptr) t->set_metadata(*call->metadata());
        t->set_location(call->location());
        return computation->AddInstruction(std::move(t));
      };
      if (gradient) {
        const Shape original = call->shape();
        call->set_shape(packed_shape);
        std::vector<Instruction*> users = call->users();
        std::vector<Instruction*> successors = call->control_successors();
        Instruction* back = transpose(call, original, position);
        for (Instruction* user : users) {
          for (int64_t i = 0; i < user->operand_count(); ++i) {
            if (user->operand(i) == call) user->ReplaceOperand(i, back);
          }
        }
        for (Instruction* successor : successors) successor->AddControlPredecessor(back);
        if (computation->root() == call) computation->set_root(back);
      } else {
        Instruction*& t = packed[{call->operand(1), perm}];
        if (t == nullptr) t = transpose(call->operand(1), packed_shape, perm);
        call->ReplaceOperand(1, t);
      }
      dn.kernel_output_feature_dimension = position[static_cast<size_t>(dn.kernel_output_feature_dimension)];
      dn.kernel_input_feature_dimension = position[static_cast<size_t>(dn.kernel_input_feature_dimension)];
      for (int64_t& d : dn.kernel_spatial_dimensions) d = position[static_cast<size_t>(d)];
      ++changed;
    }
  }
  return changed;
}

}  // namespace

StatusOr<bool> ConvRewriter::Run(Module& module, PassContext& context) {
  // Each convolution cuDNN runs, with the explicit input padding it needs first (empty:
  // none). Asymmetric padding (a strided SAME convolution) moves into a pad of the input,
  // as XLA does before cuDNN; the convolution keeps the symmetric part.
  std::vector<std::pair<Instruction*, std::vector<PaddingDimension>>> convs;
  std::set<const Instruction*> weight_gradients;  // planned as backward filter: no epilogue folds
  std::vector<std::pair<Instruction*, BackwardInputForm>> input_gradients;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kConvolution || inst->operand_count() != 2) continue;
      if (StatusOr<ConvPlan> plan = PlanConvolution(*inst); plan.ok()) {
        if (plan->call == ConvCall::kForward) {
          // An unstrided input gradient through a reverse of the kernel: a backward-input
          // call of w itself (AsBackwardInput takes only that form without a stride).
          if (std::optional<BackwardInputForm> form = AsBackwardInput(*inst)) {
            input_gradients.emplace_back(inst.get(), std::move(*form));
            continue;
          }
        }
        convs.emplace_back(inst.get(), std::vector<PaddingDimension>{});
        if (plan->call != ConvCall::kForward) weight_gradients.insert(inst.get());
        continue;
      }
      if (!inst->attrs().window || !inst->attrs().convolution_dimension_numbers) continue;
      if (std::optional<BackwardInputForm> form = AsBackwardInput(*inst)) {
        input_gradients.emplace_back(inst.get(), std::move(*form));
        continue;
      }
      std::optional<std::vector<PaddingDimension>> extra = ExplicitPadding(*inst);
      if (!extra) continue;
      Shape padded = inst->operand(0)->shape();
      for (int64_t d = 0; d < padded.rank(); ++d) {
        const PaddingDimension& p = (*extra)[static_cast<size_t>(d)];
        padded.set_dimension(d, padded.dimensions(d) + p.low + p.high);
      }
      Window window = *inst->attrs().window;
      for (WindowDimension& d : window.dimensions) d.padding_low = d.padding_high = std::min(d.padding_low, d.padding_high);
      StatusOr<ConvPlan> plan =
          PlanConvolutionShapes(window, *inst->attrs().convolution_dimension_numbers, inst->attrs().feature_group_count,
                                inst->attrs().batch_group_count, padded, inst->operand(1)->shape(), inst->shape());
      if (!plan.ok()) continue;
      if (plan->call != ConvCall::kForward) weight_gradients.insert(inst.get());
      convs.emplace_back(inst.get(), std::move(*extra));
    }
  }
  // One pad per (input, padding): the forward convolution and its weight gradient pad the
  // same input alike.
  std::map<std::pair<const Instruction*, std::string>, Instruction*> pads;
  std::vector<Instruction*> forward_calls;  // forward convolution calls, for the epilogue folding
  for (auto& [conv, extra] : convs) {
    Computation* parent = conv->parent();
    Window window = *conv->attrs().window;
    std::vector<Instruction*> operands = {conv->operands()[0], conv->operands()[1]};
    const std::pair<const Instruction*, std::string> key(operands[0], extra.empty() ? "" : PaddingToString(extra));
    if (!extra.empty() && pads.count(key) != 0) {
      operands[0] = pads[key];
      for (WindowDimension& d : window.dimensions) d.padding_low = d.padding_high = std::min(d.padding_low, d.padding_high);
    } else if (!extra.empty()) {
      const PrimitiveType type = operands[0]->shape().element_type();
      auto zero = std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName("constant"), Shape::Scalar(type));
      auto literal = std::make_unique<Literal>(Shape::Scalar(type));
      literal->SetDouble(0, 0.0);
      zero->set_literal(std::move(literal));
      Instruction* zero_inst = parent->AddInstruction(std::move(zero));
      Shape padded = operands[0]->shape();
      for (int64_t d = 0; d < padded.rank(); ++d) {
        const PaddingDimension& p = extra[static_cast<size_t>(d)];
        padded.set_dimension(d, padded.dimensions(d) + p.low + p.high);
      }
      auto pad = std::make_unique<Instruction>(Opcode::kPad, module.UniqueName("pad"), padded);
      pad->AppendOperand(operands[0]);
      pad->AppendOperand(zero_inst);
      pad->mutable_attrs().padding = extra;
      if (conv->metadata() != nullptr) pad->set_metadata(*conv->metadata());
      pad->set_location(conv->location());
      operands[0] = parent->AddInstruction(std::move(pad));
      pads[key] = operands[0];
      for (WindowDimension& d : window.dimensions) d.padding_low = d.padding_high = std::min(d.padding_low, d.padding_high);
    }
    auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName("cudnn-conv"), conv->shape());
    InstructionAttributes& attrs = call->mutable_attrs();
    attrs.custom_call_target = "__cudnn$convForward";
    attrs.has_custom_call_target = true;
    attrs.window = window;
    attrs.convolution_dimension_numbers = conv->attrs().convolution_dimension_numbers;
    attrs.feature_group_count = conv->attrs().feature_group_count;
    attrs.batch_group_count = conv->attrs().batch_group_count;
    attrs.backend_config = kConvBackendConfig;
    attrs.has_backend_config = true;
    const bool forward = weight_gradients.count(conv) == 0;
    if (!forward) {
      // As XLA calls it: cudnnConvolutionBackwardFilter of the forward convolution (a
      // convForward call would make the runtime run cuDNN's forward kernel over a window
      // the size of the output gradient).
      if (std::optional<BackwardFilterForm> f = AsBackwardFilter(*conv, window, operands[0]->shape())) {
        attrs.custom_call_target = "__cudnn$convBackwardFilter";
        attrs.window = f->window;
        attrs.convolution_dimension_numbers = f->dn;
      }
    }
    Instruction* replacement = ReplaceWithCall(conv, std::move(call), operands);
    if (forward) forward_calls.push_back(replacement);
  }
  for (auto& [conv, form] : input_gradients) RewriteAsBackwardInput(module, conv, form);
  // Then the bias adds and relus cuDNN's fused call computes (the rewrites above hold
  // instructions this removes), once the relu gradients read the relus.
  for (Computation* computation : ProgramComputations(module)) {
    MoveReluGradientsOntoTheRelu(computation, std::string(name()), context);
  }
  for (Instruction* call : forward_calls) FoldConvEpilogue(module, call, context);
  PackConvFilters(module);
  return !convs.empty() || !input_gradients.empty();
}

namespace {

// The bias add and activation after a dot that a cuBLASLt epilogue computes in the GEMM:
// dot -> add(dot, broadcast(bias) along the last dimension) -> maximum(that, 0) or the
// GELU's tanh form (GeluMatcher), each step the only user of the one before (the GELU's
// instructions the only users of the value it reads). `last` is the instruction the call
// replaces.
struct EpilogueMatch {
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  Instruction* bias = nullptr;  // the bias vector (the broadcast's operand)
  Instruction* last = nullptr;
  // *_GELU_AUX: the GELU's input (the dot or its bias add), which users outside the GELU
  // read; the call's second output replaces it.
  Instruction* aux = nullptr;
};

// The only user of `inst`, with no control edges on either; nullptr otherwise.
Instruction* SoleUser(const Instruction* inst) {
  if (inst->users().size() != 1 || inst->parent()->root() == inst || !inst->control_successors().empty()) {
    return nullptr;
  }
  Instruction* user = inst->users()[0];
  if (!user->control_predecessors().empty() || user->operand_count() != 2) return nullptr;
  return user;
}

// The operand of binary `op` that is not `inst` (nullptr when both are).
Instruction* OtherOperand(Instruction* op, const Instruction* inst) {
  if (op->operands()[0] == inst && op->operands()[1] != inst) return op->operands()[1];
  if (op->operands()[1] == inst && op->operands()[0] != inst) return op->operands()[0];
  return nullptr;
}

bool IsZero(const Instruction* inst) {
  if (inst->opcode() == Opcode::kBroadcast && inst->operand_count() == 1) inst = inst->operand(0);
  if (inst->opcode() != Opcode::kConstant || inst->literal() == nullptr) return false;
  const Literal& value = *inst->literal();
  if (!value.shape().IsArray()) return false;
  for (int64_t i = 0; i < value.element_count(); ++i) {
    if (value.GetDouble(i) != 0.0) return false;
  }
  return true;
}

// jax's relu gradient reads the relu's input: relu(x) = maximum(x, 0) beside
// select(x > 0, g, 0) (its JVP). x > 0 holds exactly when maximum(x, 0) > 0 (for a NaN both
// are false), so such compares may read the relu instead. That leaves the relu the only user
// of x, and the relu then folds into the library call that computes x (cuBLASLt's RELU_BIAS
// epilogue, cuDNN's fused activation): its own kernel and x's buffer go away. Done where x
// is a dot, convolution or library call, or an add or multiply of one (its bias or scale);
// compares with type=TOTALORDER are left alone (a NaN's sign decides there). Returns how
// many compares were moved.
int MoveReluGradientsOntoTheRelu(Computation* computation, const std::string& pass, PassContext& context) {
  auto from_call = [](const Instruction* x) {
    auto call_like = [](const Instruction* i) {
      return i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution || i->opcode() == Opcode::kCustomCall;
    };
    if (call_like(x)) return true;
    if (x->opcode() != Opcode::kAdd && x->opcode() != Opcode::kMultiply) return false;
    return std::any_of(x->operands().begin(), x->operands().end(), call_like);
  };
  // compare(x, 0), direction=GT or compare(0, x), direction=LT, without a total order.
  auto is_positive_test = [](const Instruction* u, const Instruction* x) {
    if (u->opcode() != Opcode::kCompare || u->operand_count() != 2 || !u->control_predecessors().empty()) return false;
    const InstructionAttributes& a = u->attrs();
    if (!a.comparison_direction || (a.comparison_type && *a.comparison_type == ComparisonType::kTotalOrder)) return false;
    if (u->operand(0) == x && u->operand(1) != x && IsZero(u->operand(1))) return *a.comparison_direction == ComparisonDirection::kGt;
    if (u->operand(1) == x && u->operand(0) != x && IsZero(u->operand(0))) return *a.comparison_direction == ComparisonDirection::kLt;
    return false;
  };
  int moved = 0;
  std::vector<Instruction*> candidates;
  for (const auto& inst : computation->instructions()) {
    if (inst->shape().IsArray() && from_call(inst.get())) candidates.push_back(inst.get());
  }
  for (Instruction* x : candidates) {
    if (x->user_count() < 2 || x == computation->root() || !x->control_successors().empty()) continue;
    Instruction* relu = nullptr;
    std::vector<Instruction*> tests;
    bool only = true;
    for (Instruction* u : x->users()) {
      const Instruction* other = u->opcode() == Opcode::kMaximum && u->operand_count() == 2 ? OtherOperand(u, x) : nullptr;
      if (relu == nullptr && other != nullptr && IsZero(other) && u->shape() == x->shape() &&
          u->control_predecessors().empty()) {
        relu = u;
      } else if (is_positive_test(u, x)) {
        tests.push_back(u);
      } else {
        only = false;
        break;
      }
    }
    if (!only || relu == nullptr || tests.empty()) continue;
    for (Instruction* test : tests) {
      for (int64_t i = 0; i < test->operand_count(); ++i) {
        if (test->operand(i) == x) test->ReplaceOperand(i, relu);
      }
      FusionDecision decision;
      decision.pass = pass;
      decision.computation = computation->name();
      decision.producer = relu->name();
      decision.consumer = test->name();
      decision.reason = "the relu gradient's test %" + test->name() + " reads the relu %" + relu->name() +
                        " instead of its input %" + x->name() +
                        " (x > 0 exactly when max(x, 0) > 0), so that the relu can fold into the library call";
      context.RecordDecision(std::move(decision));
      ++moved;
    }
  }
  return moved;
}

// The value of `inst` when it is a constant, or a broadcast of one, whose elements are all
// one finite number.
std::optional<double> ScalarValue(const Instruction* inst) {
  if (inst->opcode() == Opcode::kBroadcast && inst->operand_count() == 1) inst = inst->operand(0);
  if (inst->opcode() != Opcode::kConstant || inst->literal() == nullptr) return std::nullopt;
  const Literal& value = *inst->literal();
  if (!value.shape().IsArray() || value.element_count() == 0) return std::nullopt;
  const double first = value.GetDouble(0);
  for (int64_t i = 1; i < value.element_count(); ++i) {
    if (value.GetDouble(i) != first) return std::nullopt;
  }
  if (!std::isfinite(first)) return std::nullopt;
  return first;
}

bool IsScalar(const Instruction* inst, double want) {
  std::optional<double> v = ScalarValue(inst);
  return v && std::fabs(*v - want) <= 1e-5 * std::fabs(want);
}

// The GELU cuBLASLt computes (its tanh form), written out as jax.nn.gelu and XLA's
// gemm-rewriter know it: x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), with the
// products in any order and association and x^3 as x*x*x. Match() returns the instruction
// that computes the result (the outermost multiply), or nullptr. The call replaces only
// that one; `x_used_outside` says whether x or a step between has users outside the
// pattern (a training step's backward pass reads x, tanh(...) or x*x), which then keep
// reading x from the call's aux output (the *_AUX epilogues), as in XLA's gemm-rewriter.
class GeluMatcher {
 public:
  explicit GeluMatcher(Instruction* x) : x_(x) {}

  Instruction* Match(bool* x_used_outside) const {
    // The outer product's multiplies: from each multiply reading x, up through multiplies
    // that are their only users ((0.5 * x) * (1 + tanh(...)) reads x one level down).
    std::vector<Instruction*> candidates;
    for (Instruction* user : x_->users()) {
      for (Instruction* up = user; up->opcode() == Opcode::kMultiply && up->shape() == x_->shape();) {
        if (std::find(candidates.begin(), candidates.end(), up) == candidates.end()) candidates.push_back(up);
        if (!Inner(up) || up->users().size() != 1 || up->users()[0]->opcode() != Opcode::kMultiply) break;
        up = up->users()[0];
      }
    }
    for (Instruction* user : candidates) {
      std::set<const Instruction*> inner;  // the pattern's instructions but x and `user`
      std::optional<std::vector<Instruction*>> factors = Factors(user, inner);
      // {x, 0.5, 1 + tanh(...)}, in any association.
      if (!factors || !Take(*factors, [&](Instruction* f) { return f == x_; }) ||
          !Take(*factors, [&](Instruction* f) { return IsScalar(f, 0.5); }) ||
          !Take(*factors, [&](Instruction* f) { return OnePlusTanh(f, inner); }) || !factors->empty()) {
        continue;
      }
      // Whether anything but `user` reads x or a step between from outside the pattern.
      *x_used_outside = false;
      std::vector<const Instruction*> read = {x_};
      read.insert(read.end(), inner.begin(), inner.end());
      for (const Instruction* inst : read) {
        if (inst != x_ && inst->parent()->root() == inst) *x_used_outside = true;
        for (const Instruction* u : inst->users()) {
          if (u != user && inner.count(u) == 0) *x_used_outside = true;
        }
      }
      return user;
    }
    return nullptr;
  }

 private:
  // An instruction that may be a step inside the pattern (never x). Its users outside the
  // pattern, if any, keep it: it then reads x from the aux output.
  bool Inner(const Instruction* inst) const { return inst != x_ && inst->control_successors().empty(); }

  // The factors of the multiply tree rooted at `root` (through inner multiplies, which go
  // into `inner`); nullopt when `root` is not a multiply.
  std::optional<std::vector<Instruction*>> Factors(Instruction* root, std::set<const Instruction*>& inner) const {
    if (root->opcode() != Opcode::kMultiply || root->operand_count() != 2) return std::nullopt;
    std::vector<Instruction*> factors, work = {root->operands()[1], root->operands()[0]};
    while (!work.empty()) {
      Instruction* inst = work.back();
      work.pop_back();
      if (inst->opcode() == Opcode::kMultiply && inst->operand_count() == 2 && Inner(inst)) {
        inner.insert(inst);
        work.push_back(inst->operands()[1]);
        work.push_back(inst->operands()[0]);
      } else {
        factors.push_back(inst);
      }
    }
    return factors;
  }

  // Removes the first factor `pick` accepts; false when none does.
  template <typename Pick>
  static bool Take(std::vector<Instruction*>& factors, Pick pick) {
    for (size_t i = 0; i < factors.size(); ++i) {
      if (pick(factors[i])) {
        factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(i));
        return true;
      }
    }
    return false;
  }

  // 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)); its instructions go into `inner` when it is.
  bool OnePlusTanh(Instruction* add, std::set<const Instruction*>& inner) const {
    if (add->opcode() != Opcode::kAdd || add->operand_count() != 2 || !Inner(add)) return false;
    Instruction* tanh = IsScalar(add->operand(0), 1.0)   ? add->operands()[1]
                        : IsScalar(add->operand(1), 1.0) ? add->operands()[0]
                                                         : nullptr;
    if (tanh == nullptr || tanh->opcode() != Opcode::kTanh || tanh->operand_count() != 1 || !Inner(tanh) ||
        !Inner(tanh->operand(0))) {
      return false;
    }
    std::set<const Instruction*> found = {add, tanh, tanh->operand(0)};
    std::optional<std::vector<Instruction*>> factors = Factors(tanh->operands()[0], found);
    if (!factors || !Take(*factors, [&](Instruction* f) { return IsScalar(f, 0.7978845608028654); }) ||
        !Take(*factors, [&](Instruction* f) { return CubicSum(f, found); }) || !factors->empty()) {
      return false;
    }
    inner.insert(found.begin(), found.end());
    return true;
  }

  // x + 0.044715 * x * x * x; its instructions go into `inner` when it is.
  bool CubicSum(Instruction* sum, std::set<const Instruction*>& inner) const {
    if (sum->opcode() != Opcode::kAdd || sum->operand_count() != 2 || !Inner(sum)) return false;
    Instruction* cubic = sum->operands()[0] == x_   ? sum->operands()[1]
                         : sum->operands()[1] == x_ ? sum->operands()[0]
                                                    : nullptr;
    if (cubic == nullptr || !Inner(cubic)) return false;
    std::set<const Instruction*> found = {sum, cubic};
    std::optional<std::vector<Instruction*>> factors = Factors(cubic, found);
    if (!factors || !Take(*factors, [&](Instruction* f) { return IsScalar(f, 0.044715); }) || factors->size() != 3 ||
        !std::all_of(factors->begin(), factors->end(), [&](const Instruction* f) { return f == x_; })) {
      return false;
    }
    inner.insert(found.begin(), found.end());
    return true;
  }

  Instruction* x_;
};

EpilogueMatch MatchEpilogue(Instruction* dot) {
  EpilogueMatch match;
  match.last = dot;
  const Shape& shape = dot->shape();
  Instruction* user = SoleUser(dot);
  if (user != nullptr && user->opcode() == Opcode::kAdd && user->shape() == shape) {
    Instruction* wide = OtherOperand(user, dot);
    if (wide != nullptr && wide->opcode() == Opcode::kBroadcast && wide->operand_count() == 1 &&
        wide->operand(0)->shape().IsArray() && wide->operand(0)->shape().rank() == 1 &&
        wide->operand(0)->shape().element_type() == shape.element_type() &&
        wide->dimensions() == std::vector<int64_t>{shape.rank() - 1}) {
      match.epilogue = GemmEpilogue::kBias;
      match.bias = wide->operands()[0];
      match.last = user;
    }
  }
  user = SoleUser(match.last);
  if (user != nullptr && user->opcode() == Opcode::kMaximum && user->shape() == shape) {
    Instruction* zero = OtherOperand(user, match.last);
    if (zero != nullptr && IsZero(zero)) {
      match.epilogue = match.bias != nullptr ? GemmEpilogue::kBiasRelu : GemmEpilogue::kRelu;
      match.last = user;
      return match;
    }
  }
  if (match.last != dot->parent()->root() && match.last->control_successors().empty()) {
    bool used_outside = false;
    if (Instruction* gelu = GeluMatcher(match.last).Match(&used_outside)) {
      if (used_outside) {
        match.epilogue = match.bias != nullptr ? GemmEpilogue::kBiasGeluAux : GemmEpilogue::kGeluAux;
        match.aux = match.last;
      } else {
        match.epilogue = match.bias != nullptr ? GemmEpilogue::kBiasGelu : GemmEpilogue::kGelu;
      }
      match.last = gelu;
    }
  }
  return match;
}

// Removes the instructions in `work` that nothing uses, and then their operands that
// nothing else uses (never parameters, the root or instructions with control edges).
void RemoveDead(std::vector<Instruction*> work) {
  std::set<Instruction*> removed;
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    if (removed.count(inst) != 0) continue;
    Computation* parent = inst->parent();
    if (!inst->users().empty() || parent->root() == inst || inst->opcode() == Opcode::kParameter ||
        !inst->control_successors().empty() || !inst->control_predecessors().empty()) {
      continue;
    }
    for (Instruction* operand : inst->operands()) work.push_back(operand);
    inst->DetachFromOperands();
    removed.insert(inst);
    parent->RemoveInstruction(inst);
  }
}

// The value of `inst` when it is a broadcast of a constant whose elements are all one
// number (XLA's "effective scalar"), f32 or f16 so the number is exact as cuDNN's f32 alpha.
std::optional<double> BroadcastConstantScalar(const Instruction* inst) {
  if (inst->opcode() != Opcode::kBroadcast || inst->operand_count() != 1) return std::nullopt;
  const Instruction* constant = inst->operand(0);
  if (constant->opcode() != Opcode::kConstant || constant->literal() == nullptr) return std::nullopt;
  const Literal& value = *constant->literal();
  const PrimitiveType type = value.shape().IsArray() ? value.shape().element_type() : PrimitiveType::kTuple;
  if ((type != PrimitiveType::kF32 && type != PrimitiveType::kF16) || value.element_count() == 0) return std::nullopt;
  const double first = value.GetDouble(0);
  for (int64_t i = 1; i < value.element_count(); ++i) {
    if (value.GetDouble(i) != first) return std::nullopt;
  }
  if (!std::isfinite(first)) return std::nullopt;
  return first;
}

// A scale as XLA's JSON writes it: integers without a fraction.
nlohmann::ordered_json ScaleJson(double value) {
  if (value == std::trunc(value) && std::fabs(value) < 1e15) return static_cast<int64_t>(value);
  return value;
}

// What cudnnConvolutionBiasActivationForward computes after a forward convolution call,
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias), folded as XLA's
// cudnn-fused-convolution-rewriter folds it. Each step takes the only user of the value
// so far (`last`), and none applies to a depthwise convolution:
//   multiply(call, broadcast(c)), c a constant, first  -> conv_result_scale c
//   add(v, broadcast(b) along the output features)     -> the bias b
//   add(v, broadcast(s)), s a scalar                   -> the bias s in every feature
//   add(v, z), any other z (once)                      -> the side input z, scale 1, or
//     z = multiply(z', broadcast(c)), c a constant     -> the side input z', scale c
//   maximum(v, 0)                                      -> relu (the last step)
// A call with a scale, side input or relu and no bias adds a zero bias, as XLA's does.
struct ConvEpilogueFold {
  LibraryCall call;                   // the fused call as ParseLibraryCall would read it
  Instruction* last = nullptr;        // the instruction the fused call replaces
  Instruction* bias = nullptr;        // a vector along the output features
  Instruction* scalar_bias = nullptr; // or a scalar, broadcast to one
  Instruction* side = nullptr;        // the side input z
  int steps = 0;
};

// The plan of `fold`'s call on the operands it would have.
StatusOr<ConvPlan> PlanFold(const ConvEpilogueFold& fold, const Instruction& conv_call) {
  const int64_t features = fold.call.result.dimensions(fold.call.conv.output_feature_dimension);
  const Shape bias(fold.call.result.element_type(), {features});
  const Shape* side = fold.side != nullptr ? &fold.side->shape() : nullptr;
  return PlanConvBiasActivation(fold.call, conv_call.operand(0)->shape(), conv_call.operand(1)->shape(), bias, side);
}

bool FoldConvEpilogue(Module& module, Instruction* call, PassContext& context) {
  const ConvolutionDimensionNumbers& dn = *call->attrs().convolution_dimension_numbers;
  const Shape& shape = call->shape();
  const int64_t feature_dim = dn.output_feature_dimension;
  // XLA leaves depthwise convolutions unfused (cuDNN's fused kernels are slower there).
  const int64_t groups = call->attrs().feature_group_count;
  if (groups > 1 && call->operand(0)->shape().dimensions(dn.input_feature_dimension) == groups) return false;
  // Same elements, whatever layout the lowering of an XLA call left on them.
  auto same_array = [&shape](const Instruction* inst) {
    return inst->shape().IsArray() && inst->shape().element_type() == shape.element_type() &&
           inst->shape().dimensions() == shape.dimensions();
  };
  ConvEpilogueFold fold;
  fold.call.kind = LibraryCallKind::kConvBiasActivationForward;
  fold.call.target = "__cudnn$convBiasActivationForward";
  fold.call.result = shape;
  fold.call.window = *call->attrs().window;
  fold.call.conv = dn;
  fold.call.feature_group_count = groups;
  fold.call.batch_group_count = call->attrs().batch_group_count;
  fold.last = call;
  // Takes `next` when cuDNN's fused call can compute it; otherwise records why not (where
  // it would have made the call a fused one) and keeps what is folded so far.
  auto take = [&](const ConvEpilogueFold& next, const Instruction* user) {
    StatusOr<ConvPlan> plan = PlanFold(next, *call);
    if (plan.ok()) {
      fold = next;
      return true;
    }
    FusionDecision decision;
    decision.pass = "conv-rewriter";
    decision.computation = call->parent()->name();
    decision.producer = call->name();
    decision.consumer = user->name();
    decision.reason = std::string(user->opcode() == Opcode::kMaximum ? "the relu" : user->opcode() == Opcode::kMultiply ? "the scale" : "the add") +
                      " stays a loop fusion: cuDNN's fused convolution call cannot run it (" + plan.status().message() + ")";
    context.RecordDecision(std::move(decision));
    return false;
  };
  bool open = true;  // more may fold (nothing folds after the activation)
  while (open) {
    open = false;
    Instruction* user = SoleUser(fold.last);
    if (user == nullptr || !same_array(user)) break;
    Instruction* other = OtherOperand(user, fold.last);
    if (other == nullptr) break;
    ConvEpilogueFold next = fold;
    next.last = user;
    ++next.steps;
    if (user->opcode() == Opcode::kMultiply && fold.steps == 0) {
      std::optional<double> scale = BroadcastConstantScalar(other);
      if (!scale) break;
      next.call.conv_result_scale = *scale;
      open = take(next, user);
    } else if (user->opcode() == Opcode::kAdd) {
      const bool bias_free = fold.bias == nullptr && fold.scalar_bias == nullptr;
      const bool broadcast = other->opcode() == Opcode::kBroadcast && other->operand_count() == 1 &&
                             other->operand(0)->shape().IsArray() &&
                             other->operand(0)->shape().element_type() == shape.element_type();
      if (bias_free && broadcast && other->operand(0)->shape().rank() == 1 &&
          other->dimensions() == std::vector<int64_t>{feature_dim}) {
        next.bias = other->operands()[0];
      } else if (bias_free && broadcast && other->operand(0)->shape().rank() == 0) {
        next.scalar_bias = other->operands()[0];
      } else if (fold.side == nullptr) {
        next.side = other;
        next.call.side_input_scale = 1;
        if (other->opcode() == Opcode::kMultiply) {
          for (int i = 0; i < 2; ++i) {
            std::optional<double> scale = BroadcastConstantScalar(other->operand(1 - i));
            if (scale && same_array(other->operand(i))) {
              next.side = other->operands()[static_cast<size_t>(i)];
              next.call.side_input_scale = *scale;
              break;
            }
          }
        }
      } else {
        break;  // a bias and a side input already
      }
      open = take(next, user);
    } else if (user->opcode() == Opcode::kMaximum && IsZero(other)) {
      next.call.activation = ConvActivation::kRelu;
      take(next, user);
    }
  }
  if (fold.steps == 0) return false;
  Computation* parent = call->parent();
  Instruction* bias = fold.bias;
  const int64_t features = shape.dimensions(feature_dim);
  const Shape bias_shape(shape.element_type(), {features});
  if (fold.scalar_bias != nullptr) {
    auto wide = std::make_unique<Instruction>(Opcode::kBroadcast, module.UniqueName("broadcast"), bias_shape);
    wide->AppendOperand(fold.scalar_bias);
    wide->set_location(call->location());
    bias = parent->AddInstruction(std::move(wide));
  } else if (bias == nullptr) {
    auto zero = std::make_unique<Instruction>(Opcode::kConstant, module.UniqueName("constant"), bias_shape);
    auto literal = std::make_unique<Literal>(bias_shape);
    for (int64_t i = 0; i < features; ++i) literal->SetDouble(i, 0.0);
    zero->set_literal(std::move(literal));
    zero->set_location(call->location());
    bias = parent->AddInstruction(std::move(zero));
  }
  auto replacement = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName("cudnn-conv-bias-activation"),
                                                   fold.last->shape());
  InstructionAttributes& attrs = replacement->mutable_attrs();
  attrs.custom_call_target = fold.call.target;
  attrs.has_custom_call_target = true;
  attrs.window = fold.call.window;
  attrs.convolution_dimension_numbers = dn;
  attrs.feature_group_count = fold.call.feature_group_count;
  attrs.batch_group_count = fold.call.batch_group_count;
  attrs.backend_config =
      nlohmann::ordered_json{{"cudnn_conv_backend_config",
                      {{"activation_mode", fold.call.activation == ConvActivation::kRelu ? "kRelu" : "kNone"},
                       {"conv_result_scale", ScaleJson(fold.call.conv_result_scale)},
                       {"side_input_scale", ScaleJson(fold.side != nullptr ? fold.call.side_input_scale : 0)},
                       {"leakyrelu_alpha", 0}}}}
          .dump();
  attrs.has_backend_config = true;
  if (call->metadata() != nullptr) replacement->set_metadata(*call->metadata());
  replacement->set_location(call->location());
  std::vector<Instruction*> operands = {call->operands()[0], call->operands()[1], bias};
  if (fold.side != nullptr) operands.push_back(fold.side);
  // Replacing `last` removes it; what fed it only (the call, the adds, the broadcasts) goes too.
  std::vector<Instruction*> fed(fold.last->operands().begin(), fold.last->operands().end());
  ReplaceWithCall(fold.last, std::move(replacement), operands);
  RemoveDead(std::move(fed));
  return true;
}

}  // namespace

StatusOr<bool> GemmRewriter::Run(Module& module, PassContext& context) {
  std::vector<Instruction*> dots;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kDot || inst->operand_count() != 2) continue;
      std::string why;
      // Algorithms, sparsity and packed operands say more than a plain GEMM does.
      if (!inst->attrs().dot_algorithm.empty() || !inst->attrs().sparsity.empty()) {
        why = "its algorithm or sparsity says more than a plain GEMM";
      } else if (Status plan = PlanGemm(CallFor(*inst), inst->operand(0)->shape(), inst->operand(1)->shape()).status();
                 !plan.ok()) {
        why = plan.message();
      } else {
        dots.push_back(inst.get());
        continue;
      }
      // Why the dot stays Fusebox's own kernel (the GPU dump's fusion_decisions.json).
      FusionDecision decision;
      decision.pass = std::string(name());
      decision.computation = computation->name();
      decision.producer = inst->name();
      decision.consumer = inst->name();
      decision.reason = "stays Fusebox's own dot kernel, not a cuBLAS call (" + why + ")";
      context.RecordDecision(std::move(decision));
    }
  }
  if (!dots.empty()) {
    for (Computation* computation : ProgramComputations(module)) {
      MoveReluGradientsOntoTheRelu(computation, std::string(name()), context);
    }
  }
  for (Instruction* dot : dots) {
    EpilogueMatch match = MatchEpilogue(dot);
    if (match.epilogue != GemmEpilogue::kDefault) {
      LibraryCall call = CallFor(*dot);
      call.epilogue = match.epilogue;
      call.bias_operand = match.bias != nullptr ? 2 : -1;
      call.bias_dimension = dot->shape().rank() - 1;
      if (Status planned = PlanGemm(call, dot->operand(0)->shape(), dot->operand(1)->shape()).status();
          !planned.ok()) {
        // Why the epilogue stays HLO (the GPU dump's fusion_decisions.json).
        FusionDecision decision;
        decision.pass = std::string(name());
        decision.computation = dot->parent()->name();
        decision.producer = dot->name();
        decision.consumer = match.last->name();
        decision.reason = "the " + std::string(GemmEpilogueName(match.epilogue)) +
                          " epilogue stays HLO, not in the cuBLASLt call (" + planned.message() + ")";
        context.RecordDecision(std::move(decision));
        // Without the GELU_AUX epilogue (its aux's strides), the bias alone may still fold.
        EpilogueMatch bias_only;
        if (match.aux != nullptr && match.bias != nullptr) {
          bias_only.epilogue = GemmEpilogue::kBias;
          bias_only.bias = match.bias;
          bias_only.last = match.aux;
          call.epilogue = GemmEpilogue::kBias;
          if (!PlanGemm(call, dot->operand(0)->shape(), dot->operand(1)->shape()).ok()) bias_only = EpilogueMatch{};
        }
        match = bias_only;
      }
    }
    const bool lt = match.epilogue != GemmEpilogue::kDefault;
    // GELU_AUX: (value, the GELU's input), as XLA's gemm-rewriter writes it.
    const Shape call_shape = match.aux != nullptr ? Shape::Tuple({dot->shape(), dot->shape()}) : dot->shape();
    auto call = std::make_unique<Instruction>(Opcode::kCustomCall,
                                              module.UniqueName(lt ? "cublas-lt-matmul" : "cublas-gemm"), call_shape);
    InstructionAttributes& attrs = call->mutable_attrs();
    attrs.custom_call_target = lt ? "__cublas$lt$matmul" : "__cublas$gemm";
    attrs.has_custom_call_target = true;
    attrs.backend_config = GemmBackendConfig(*dot, match.epilogue);
    attrs.has_backend_config = true;
    std::vector<Instruction*> operands(dot->operands().begin(), dot->operands().end());
    if (match.bias != nullptr) operands.push_back(match.bias);
    if (!lt) {
      ReplaceWithCall(dot, std::move(call), operands);
      continue;
    }
    if (dot->metadata() != nullptr) call->set_metadata(*dot->metadata());
    call->set_location(dot->location());
    // Replacing `last` removes it; what fed it only (the dot, the add, the broadcasts) goes too.
    std::vector<Instruction*> fed(match.last->operands().begin(), match.last->operands().end());
    if (match.aux == nullptr) {
      ReplaceWithCall(match.last, std::move(call), operands);
      RemoveDead(std::move(fed));
      continue;
    }
    // The GELU's users read element 0, the GELU's input's other users element 1.
    Computation* parent = dot->parent();
    for (Instruction* operand : operands) call->AppendOperand(operand);
    Instruction* lt_call = parent->AddInstruction(std::move(call));
    Instruction* elements[2];
    for (int64_t i = 0; i < 2; ++i) {
      auto element = std::make_unique<Instruction>(Opcode::kGetTupleElement, module.UniqueName("get-tuple-element"),
                                                   dot->shape());
      element->mutable_attrs().tuple_index = i;
      element->AppendOperand(lt_call);
      element->set_location(dot->location());
      elements[i] = parent->AddInstruction(std::move(element));
    }
    match.aux->ReplaceAllUsesWith(elements[1]);
    if (parent->root() == match.aux) parent->set_root(elements[1]);
    Retire(match.last, lt_call, elements[0]);
    fed.push_back(match.aux);
    RemoveDead(std::move(fed));
  }
  return !dots.empty();
}

}  // namespace fusebox::passes
