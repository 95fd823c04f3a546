#include "compiler/passes/library_call_lowering.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/ir/plain_hlo_builder.h"
#include "compiler/ir/solver_plan.h"

namespace fusebox::passes {
namespace {

// An LU, QR, eigh or SVD call on the GPU's libraries: getrf pivots rows, geqrf/orgqr work
// on columns and syevd/gesvdj write their vectors as columns of a column-major matrix, so
// the call becomes its `__fusebox$..._transposed` target of aᵀ with its matrix results
// transposed back (solver_plan.h): transposes Fusebox fuses like any other, where XLA's
// layout assignment puts copies to the call's {1,2,0} layouts. A call the solvers cannot
// take (jaxlib's batched Jacobi beyond 32 x 32, sizes past 32 bits) becomes the plain HLO
// of the transposed call instead: Fusebox's loops, as without libraries.
Status TransposeSolverCall(Instruction& call, std::string_view target, Module& module) {
  Computation* parent = call.parent();
  library_call_internal::PlainHloBuilder b(module, parent);
  const Shape& shape = call.shape();
  const int64_t rank = call.operand(0)->shape().rank();
  std::vector<int64_t> swap(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) swap[static_cast<size_t>(d)] = d;
  std::swap(swap[static_cast<size_t>(rank - 1)], swap[static_cast<size_t>(rank - 2)]);
  Instruction* at = b.Transpose(call.operand(0), swap);
  // Every result of the operand's rank (the factor, Q, the vectors, U and V) is held
  // transposed.
  auto held = [&](const Shape& result) {
    if (!result.IsArray() || result.rank() != rank) return result;
    Shape t = library_call_internal::PlainHloBuilder::Plain(result);
    t.set_dimension(rank - 2, result.dimensions(rank - 1));
    t.set_dimension(rank - 1, result.dimensions(rank - 2));
    return t;
  };
  Shape call_shape = held(shape);
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) (*call_shape.mutable_tuple_shapes())[i] = held(shape.tuple_shapes(i));
  }
  auto transposed_call = std::make_unique<Instruction>(Opcode::kCustomCall, module.UniqueName(call.name()), call_shape);
  transposed_call->AppendOperand(at);
  for (int64_t i = 1; i < call.operand_count(); ++i) transposed_call->AppendOperand(call.operand(i));
  InstructionAttributes& attrs = transposed_call->mutable_attrs();
  attrs.custom_call_target = std::string(target);
  attrs.has_custom_call_target = true;
  attrs.api_version = call.attrs().api_version;
  // The call's attributes (eigh's lower and algorithm) go with it.
  attrs.backend_config = call.attrs().backend_config;
  attrs.has_backend_config = call.attrs().has_backend_config;
  attrs.backend_config_is_string = call.attrs().backend_config_is_string;
  if (call.metadata() != nullptr) transposed_call->set_metadata(*call.metadata());
  transposed_call->set_location(call.location());
  Instruction* transposed = parent->AddInstruction(std::move(transposed_call));
  Instruction* replacement = nullptr;
  if (shape.IsTuple()) {
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      Instruction* element = b.Add(Opcode::kGetTupleElement, call_shape.tuple_shapes(i), {transposed});
      element->mutable_attrs().tuple_index = i;
      const bool transposed_back = shape.tuple_shapes(i).IsArray() && shape.tuple_shapes(i).rank() == rank;
      elements.push_back(transposed_back ? b.Transpose(element, swap) : element);
      elements.back()->set_shape(shape.tuple_shapes(i));
    }
    replacement = b.Add(Opcode::kTuple, shape, elements);
  } else {
    replacement = b.Transpose(transposed, swap);
    replacement->set_shape(shape);
  }
  const std::string name = call.name();
  parent->ReplaceInstruction(&call, replacement);
  parent->RenameInstruction(transposed, name);
  if (OrgqrRunsAsKernel(*transposed) || PlanSolverCall(*transposed).ok()) return Status::Ok();
  return ReplaceLibraryCallWithPlainCall(*transposed, module).status();
}

// The transposed target an LU, QR, eigh or SVD call of the GPU's libraries becomes (f32
// and f64, as the plain models), or none.
std::string_view TransposedTarget(const Instruction& inst) {
  const std::string& target = inst.attrs().custom_call_target;
  if (IsTransposedSolverTarget(target) || !ParseLibraryCall(inst).ok()) return {};
  const PrimitiveType type = inst.operand(0)->shape().element_type();
  if (type != PrimitiveType::kF32 && type != PrimitiveType::kF64) return {};
  switch (*LibraryCallKindOf(target)) {
    case LibraryCallKind::kLu: return kGetrfTransposedTarget;
    case LibraryCallKind::kQr: return kGeqrfTransposedTarget;
    case LibraryCallKind::kHouseholderProduct: return kOrgqrTransposedTarget;
    case LibraryCallKind::kSymmetricEigen: return kSyevdTransposedTarget;
    // jax's GPU SVD (gesvdj); LAPACK's gesdd (V transposed, other modes) stays the model.
    case LibraryCallKind::kSvd: return target == "cusolver_gesvdj_ffi" ? kGesvdjTransposedTarget : std::string_view();
    default: return {};
  }
}

}  // namespace

StatusOr<bool> LibraryCallLowering::Run(Module& module, PassContext& context) {
  std::vector<Instruction*> calls;
  std::vector<std::pair<Instruction*, std::string_view>> transposed_calls;
  for (Computation* computation : ProgramComputations(module)) {
    for (const auto& inst : computation->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      if (keep_lapack_calls_ && IsCpuLapackCall(*inst) && ParseLibraryCall(*inst).ok()) continue;
      if (keep_library_calls_ && (PlanGemmCall(*inst).ok() || PlanConvolution(*inst).ok())) continue;
      // cuSOLVER's potrf runs Cholesky calls; the others it runs on the transposed matrix.
      if (keep_library_calls_ && IsSolverCall(*inst) && PlanSolverCall(*inst).ok()) continue;
      // jaxlib's small batched orgqr: the GPU backend's own kernel.
      if (keep_library_calls_ && OrgqrRunsAsKernel(*inst)) continue;
      if (const std::string_view target = keep_library_calls_ ? TransposedTarget(*inst) : std::string_view();
          !target.empty()) {
        transposed_calls.emplace_back(inst.get(), target);
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
  for (const auto& [call, target] : transposed_calls) RETURN_IF_ERROR(TransposeSolverCall(*call, target, module));
  return !calls.empty() || !transposed_calls.empty();
}

}  // namespace fusebox::passes
