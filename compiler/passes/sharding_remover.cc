#include "compiler/passes/sharding_remover.h"

#include <vector>

#include "compiler/ir/collectives.h"

namespace fusebox::passes {

StatusOr<bool> ShardingRemover::Run(Module& module, PassContext&) {
  std::vector<Instruction*> annotations;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (inst->opcode() != Opcode::kCustomCall || inst->operand_count() != 1 ||
          !IsAnnotationCustomCall(inst->attrs().custom_call_target)) {
        continue;
      }
      const Shape& operand = inst->operand(0)->shape();
      if (!operand.Compatible(inst->shape()) || inst->attrs().custom_call_has_side_effect) continue;
      annotations.push_back(inst.get());
    }
  }
  for (Instruction* annotation : annotations) {
    Computation* parent = annotation->parent();
    Instruction* value = annotation->operand(0);
    // The annotation's layout, where it gives another one than its operand's, is not
    // kept: the backends normalize layouts, and the value is the same either way.
    parent->ReplaceInstruction(annotation, value);
  }
  return !annotations.empty();
}

}  // namespace fusebox::passes
