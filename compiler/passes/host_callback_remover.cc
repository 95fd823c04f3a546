#include "compiler/passes/host_callback_remover.h"

#include <vector>

#include "compiler/ir/collectives.h"

namespace fusebox::passes {

StatusOr<bool> HostCallbackRemover::Run(Module& module, PassContext&) {
  std::vector<Instruction*> callbacks;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (IsResultlessHostCallback(*inst) && inst->users().empty() && computation->root() != inst.get() &&
          inst->control_successors().empty()) {
        callbacks.push_back(inst.get());
      }
    }
  }
  for (Instruction* callback : callbacks) callback->parent()->RemoveInstruction(callback);
  return !callbacks.empty();
}

}  // namespace fusebox::passes
