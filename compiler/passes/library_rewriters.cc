#include "compiler/passes/library_rewriters.h"

#include <cctype>
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

std::string GemmBackendConfig(const Instruction& dot) {
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
      {"epilogue", "DEFAULT"},
  };
  return nlohmann::json{{"gemm_backend_config", gemm}}.dump();
}

namespace {

// Replaces `old` by `call` (same operands, shape, metadata, location, control edges).
void ReplaceWithCall(Instruction* old, std::unique_ptr<Instruction> call) {
  Computation* parent = old->parent();
  for (Instruction* operand : old->operands()) call->AppendOperand(operand);
  if (old->metadata() != nullptr) call->set_metadata(*old->metadata());
  call->set_location(old->location());
  for (Instruction* pred : old->control_predecessors()) call->AddControlPredecessor(pred);
  Instruction* replacement = parent->AddInstruction(std::move(call));
  for (Instruction* successor : std::vector<Instruction*>(old->control_successors())) {
    successor->AddControlPredecessor(replacement);
  }
  old->ReplaceAllUsesWith(replacement);
  if (parent->root() == old) parent->set_root(replacement);
  old->DetachFromOperands();
  parent->RemoveInstruction(old);
}

}  // namespace

StatusOr<bool> ConvRewriter::Run(Module& module, PassContext& /*context*/) {
  std::vector<Instruction*> convs;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kConvolution || inst->operand_count() != 2) continue;
      if (!PlanConvolution(*inst).ok()) continue;
      convs.push_back(inst.get());
    }
  }
  for (Instruction* conv : convs) {
    auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName("cudnn-conv"), conv->shape());
    InstructionAttributes& attrs = call->mutable_attrs();
    attrs.custom_call_target = "__cudnn$convForward";
    attrs.has_custom_call_target = true;
    attrs.window = conv->attrs().window;
    attrs.convolution_dimension_numbers = conv->attrs().convolution_dimension_numbers;
    attrs.feature_group_count = conv->attrs().feature_group_count;
    attrs.batch_group_count = conv->attrs().batch_group_count;
    attrs.backend_config =
        R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":0,"leakyrelu_alpha":0}})";
    attrs.has_backend_config = true;
    ReplaceWithCall(conv, std::move(call));
  }
  return !convs.empty();
}

StatusOr<bool> GemmRewriter::Run(Module& module, PassContext& /*context*/) {
  std::vector<Instruction*> dots;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kDot || inst->operand_count() != 2) continue;
      // Algorithms, sparsity and packed operands say more than a plain GEMM does.
      if (!inst->attrs().dot_algorithm.empty() || !inst->attrs().sparsity.empty()) continue;
      if (!PlanGemm(CallFor(*inst), inst->operand(0)->shape(), inst->operand(1)->shape()).ok()) continue;
      dots.push_back(inst.get());
    }
  }
  for (Instruction* dot : dots) {
    auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName("cublas-gemm"), dot->shape());
    InstructionAttributes& attrs = call->mutable_attrs();
    attrs.custom_call_target = "__cublas$gemm";
    attrs.has_custom_call_target = true;
    attrs.backend_config = GemmBackendConfig(*dot);
    attrs.has_backend_config = true;
    ReplaceWithCall(dot, std::move(call));
  }
  return !dots.empty();
}

}  // namespace fusebox::passes
