// Dead code elimination: the "dce" pass, and the side-effect query other passes share.
#pragma once

#include <string_view>
#include <unordered_map>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Removes instructions nothing uses, in every computation, then the computations nothing
// calls any more. An instruction is dead when it has no users, is not its computation's
// root, is not a parameter, has no control successors and has no side effect (see
// HasSideEffect). Removal runs in reverse post order, so a chain of dead instructions
// goes in one sweep; sweeps repeat until one removes nothing.
//
// It does not remove parameters (computation signatures stay as they are), does not
// look inside tuples for unused elements, and does not remove side-effect-free while
// loops that are still used. Dead rng ops are kept: each one advances the generator's
// state, which later rng ops observe (XLA keeps them for the same reason).
class DeadCodeElimination : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

// Whether removing or merging `instruction` could change what the program does beyond
// its result: send/recv, infeed/outfeed, rng, async and collective start/done pairs,
// collectives with a channel id or a constrained layout, custom calls marked
// custom_call_has_side_effect. Ops that call computations (while, conditional, call,
// fusion, ...) have a side effect when any instruction they reach does.
bool HasSideEffectNoRecurse(const Instruction& instruction);

// As above, looking into called computations. `cache` (optional) remembers the answer
// per computation across calls; it must not outlive changes to those computations.
bool HasSideEffect(const Instruction& instruction,
                   std::unordered_map<const Computation*, bool>* cache = nullptr);

}  // namespace fusebox::passes
