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
      if (keep_lapack_calls_ && IsCpuLapackCall(*inst) && ParseLibraryCall(*inst).ok()) continue;
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
    RETURN_IF_ERROR(ReplaceLibraryCallWithPlainCall(*library_call, module).status());
  }
  return !calls.empty();
}

}  // namespace fusebox::passes
