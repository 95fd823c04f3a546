#include "compiler/passes/library_call_lowering.h"

#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/plain_hlo_builder.h"
#include "compiler/ir/solver_plan.h"

namespace fusebox::passes {
namespace {

// An LU call on the GPU's libraries: getrf pivots rows of a column-major matrix, so the
// call becomes `__fusebox$getrf_transposed` of aᵀ with its factor transposed back
// (solver_plan.h): two transposes Fusebox fuses like any other, where XLA's layout
// assignment puts copies to the call's {1,2,0} layout.
Status TransposeLuCall(Instruction& lu, Module& module) {
  Computation* parent = lu.parent();
  library_call_internal::PlainHloBuilder b(module, parent);
  const Shape& shape = lu.shape();
  const int64_t rank = lu.operand(0)->shape().rank();
  std::vector<int64_t> swap(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) swap[static_cast<size_t>(d)] = d;
  std::swap(swap[static_cast<size_t>(rank - 1)], swap[static_cast<size_t>(rank - 2)]);
  Instruction* at = b.Transpose(lu.operand(0), swap);
  Shape call_shape = shape;
  (*call_shape.mutable_tuple_shapes())[0] = library_call_internal::PlainHloBuilder::Plain(at->shape());
  auto call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName(lu.name()), call_shape);
  call->AppendOperand(at);
  InstructionAttributes& attrs = call->mutable_attrs();
  attrs.custom_call_target = std::string(kGetrfTransposedTarget);
  attrs.has_custom_call_target = true;
  attrs.api_version = lu.attrs().api_version;
  if (lu.metadata() != nullptr) call->set_metadata(*lu.metadata());
  call->set_location(lu.location());
  Instruction* transposed = parent->AddInstruction(std::move(call));
  std::vector<Instruction*> elements;
  for (int64_t i = 0; i < 3; ++i) {
    Instruction* element = b.Add(Opcode::kGetTupleElement, call_shape.tuple_shapes(i), {transposed});
    element->mutable_attrs().tuple_index = i;
    elements.push_back(i == 0 ? b.Transpose(element, swap) : element);
  }
  elements[0]->set_shape(shape.tuple_shapes(0));
  Instruction* tuple = b.Add(Opcode::kTuple, shape, elements);
  const std::string name = lu.name();
  parent->ReplaceInstruction(&lu, tuple);
  parent->RenameInstruction(transposed, name);
  // The plan must take it (a type or size the solvers refuse fails here, naming it).
  return PlanSolverCall(*transposed).status();
}

bool IsLuCall(const Instruction& inst) {
  return LibraryCallKindOf(inst.attrs().custom_call_target) == LibraryCallKind::kLu &&
         inst.attrs().custom_call_target != kGetrfTransposedTarget;
}

// An LU call the GPU's libraries run (f32 and f64, as the plain model).
bool SolverCanRunLu(const Instruction& inst) {
  if (!IsLuCall(inst) || !ParseLibraryCall(inst).ok()) return false;
  const PrimitiveType type = inst.operand(0)->shape().element_type();
  return type == PrimitiveType::kF32 || type == PrimitiveType::kF64;
}

}  // namespace

StatusOr<bool> LibraryCallLowering::Run(Module& module, PassContext& context) {
  std::vector<Instruction*> calls;
  std::vector<Instruction*> lu_calls;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      if (keep_lapack_calls_ && IsCpuLapackCall(*inst) && ParseLibraryCall(*inst).ok()) continue;
      if (keep_library_calls_ && (PlanGemmCall(*inst).ok() || PlanConvolution(*inst).ok())) continue;
      // cuSOLVER's potrf (and getrf, on the transposed matrix) run the factorizations.
      if (keep_library_calls_ && IsSolverCall(*inst) && PlanSolverCall(*inst).ok()) continue;
      if (keep_library_calls_ && SolverCanRunLu(*inst)) {
        lu_calls.push_back(inst.get());
        continue;
      }
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
  for (Instruction* lu : lu_calls) RETURN_IF_ERROR(TransposeLuCall(*lu, module));
  return !calls.empty() || !lu_calls.empty();
}

}  // namespace fusebox::passes
