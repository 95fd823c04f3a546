#include "compiler/passes/library_call_lowering.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"

namespace fusebox::passes {

StatusOr<bool> LibraryCallLowering::Run(Module& module, PassContext& context) {
  std::vector<Instruction*> calls;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      if (keep_library_calls_ && (PlanGemmCall(*inst).ok() || PlanConvolution(*inst).ok())) continue;
      if (keep_library_calls_ && inst->attrs().custom_call_target == "__cudnn$convBiasActivationForward") {
        // Why XLA's fused call runs as a convolution call and a loop fusion here.
        FusionDecision decision;
        decision.pass = std::string(name());
        decision.computation = computation->name();
        decision.producer = inst->name();
        decision.consumer = inst->name();
        decision.reason = "cuDNN's fused convolution call cannot run it (" + PlanConvolution(*inst).status().message() +
                          "): lowered to a convolution and its bias and activation as HLO";
        context.RecordDecision(std::move(decision));
      }
      calls.push_back(inst.get());
    }
  }
  for (Instruction* library_call : calls) {
    ASSIGN_OR_RETURN(Computation * lowered, BuildLibraryCallComputation(*library_call, module));
    Computation* parent = library_call->parent();
    auto call = std::make_unique<Instruction>(Opcode::kCall, module.UniqueName(library_call->name()), library_call->shape());
    for (Instruction* operand : library_call->operands()) call->AppendOperand(operand);
    call->AppendCalledComputation(lowered);
    call->set_call_form(CallForm::kToApply);
    if (library_call->metadata() != nullptr) call->set_metadata(*library_call->metadata());
    call->set_location(library_call->location());
    for (Instruction* pred : library_call->control_predecessors()) call->AddControlPredecessor(pred);
    Instruction* replacement = parent->AddInstruction(std::move(call));
    for (Instruction* successor : std::vector<Instruction*>(library_call->control_successors())) {
      successor->AddControlPredecessor(replacement);
    }
    library_call->ReplaceAllUsesWith(replacement);
    if (parent->root() == library_call) parent->set_root(replacement);
    library_call->DetachFromOperands();
    parent->RemoveInstruction(library_call);
  }
  return !calls.empty();
}

}  // namespace fusebox::passes
