// Fusebox's own kernels for gemm library calls: the plain HLO a call stands for
// (library_calls.h) as one fusion, when its dot is a skinny one or contracts few elements
// (gpu_kernel_emitter.h: a skinny dot, a tiled dot of one k slice, or a small tensor-core
// dot).
// The runtime times such a kernel against the library's chosen algorithm and runs the
// faster (gpu_executable.h), as XLA's autotuner weighs its Triton GEMMs against cuBLAS.
#include <algorithm>
#include <memory>
#include <string>

#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/call_inliner.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/extract.h"
#include "compiler/passes/fusion_utils.h"

namespace fusebox::codegen::gpu {

StatusOr<std::unique_ptr<Module>> GemmCallAsFusion(const Module& module, const Instruction& call,
                                                   const GpuCompileOptions& options) {
  if (!IsLibraryCall(call) || call.attrs().custom_call_target.rfind("__cublas", 0) != 0) return std::unique_ptr<Module>();
  ASSIGN_OR_RETURN(GemmPlan plan, PlanGemmCall(call));
  // The value alone, or (value, workspace): the kernel writes the value, the first leaf.
  // A GELU_AUX call's second output is left to the library.
  if (GemmEpilogueHasAux(plan.epilogue) || plan.empty) return std::unique_ptr<Module>();
  if (call.shape().IsTuple() && (call.shape().tuple_size() != 2 || !call.shape().tuple_shapes(0).IsArray())) {
    return std::unique_ptr<Module>();
  }
  passes::ExtractOptions extract;
  extract.max_constant_elements = 0;
  ASSIGN_OR_RETURN(std::unique_ptr<Module> own, passes::ExtractInstruction(module, call.name(), extract));
  Computation* entry = own->entry();
  RETURN_IF_ERROR(ReplaceLibraryCallWithPlainCall(*entry->root(), *own).status());
  passes::PassContext context;
  RETURN_IF_ERROR(passes::CallInliner().Run(*own, context).status());
  if (entry->root()->opcode() == Opcode::kTuple) entry->set_root(entry->root()->operand(0));
  RETURN_IF_ERROR(passes::DeadCodeElimination().Run(*own, context).status());
  const Instruction* dot = nullptr;
  for (const auto& inst : entry->instructions()) {
    if (inst->opcode() != Opcode::kDot) continue;
    if (dot != nullptr) return std::unique_ptr<Module>();
    dot = inst.get();
  }
  if (dot == nullptr) return std::unique_ptr<Module>();
  const DotSpace space = DescribeDot(*dot);
  const bool small_mma = PlanMmaDot(*dot, options.arch, options.allow_tf32).has_value() &&
                         2 * space.m * space.n * space.k * space.batch <= kOwnMmaGemmFlops;
  if (!(PlanSkinnyDot(*dot) || space.k <= kDotTile || small_mma)) return std::unique_ptr<Module>();
  // Everything but the parameters into one fusion around the root.
  ASSIGN_OR_RETURN(Instruction * fusion, passes::CreateFusion(entry->root(), FusionKind::kOutput));
  auto not_parameter = [](const Instruction* op) { return op->opcode() != Opcode::kParameter; };
  while (true) {
    auto it = std::find_if(fusion->operands().begin(), fusion->operands().end(), not_parameter);
    if (it == fusion->operands().end()) break;
    ASSIGN_OR_RETURN(fusion, passes::FuseProducer(*it, fusion));
  }
  RETURN_IF_ERROR(passes::DeadCodeElimination().Run(*own, context).status());
  entry->RenameInstruction(fusion, call.name() + ".fusebox");
  if (TileableDot(*fusion) == nullptr) return std::unique_ptr<Module>();
  return own;
}

}  // namespace fusebox::codegen::gpu
