// Layout normalization for the code generators. Their buffers are dense and row-major
// (like literals), so before code generation every shape gets the default layout; a
// bitcast that meant something under other layouts is first rewritten into what it means
// on logical shapes (a transpose into the operand's physical order, a reshape, a
// transpose into the result's logical order), as the interpreter evaluates it.
#pragma once

#include <string_view>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::backend {

// Rewrites layout-changing bitcasts; errors (a bitcast that also changes the element
// type under a non-default layout) are prefixed with `backend`.
Status RewriteLayoutBitcasts(Module& module, std::string_view backend);
// Gives every shape of every computation the default (row-major) layout.
void SetDefaultLayouts(Module& module);
// Both, in order.
Status NormalizeLayoutsForBackend(Module& module, std::string_view backend);

}  // namespace fusebox::backend
