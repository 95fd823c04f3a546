// Call inlining: the "call-inliner" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces every `call` instruction with a copy of its callee's instructions: the
// callee's parameters become the call's operands and the copy of its root takes over
// the call's users (and the root role, if the call was a root). Calls inside the copied
// body are inlined in turn, so nested calls disappear completely. Copies keep the
// callee instruction's name as a prefix (made unique with Module::UniqueName) and its
// metadata. Control edges carry over: the call's control predecessors come before the
// inlined instructions that start the body, and its control successors after those
// that end it. A fusion inside the callee gets its own copy of its fused computation,
// since a fused computation has exactly one caller. Callees no longer called are
// removed (with anything else unreachable).
//
// It does not inline calls to a computation on another execution thread, nor other
// ops that call computations (map, reduce, while, conditional, fusion, ...).
class CallInliner : public Pass {
 public:
  std::string_view name() const override { return "call-inliner"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
