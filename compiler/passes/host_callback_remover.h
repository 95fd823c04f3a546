// Python callbacks without results: the "host-callback-remover" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Removes every Python callback whose result holds no value (IsResultlessHostCallback:
// what jax.debug.print and an io_callback without results write) and that nothing uses.
// Fusebox cannot run Python; no value of the program depends on such a call, so the
// backends compile the program without it, as the interpreter runs it, and the loader says
// so (HostCallbackNotes). A callback that computes a value (jax.pure_callback) stays,
// and the backends name it.
class HostCallbackRemover : public Pass {
 public:
  std::string_view name() const override { return "host-callback-remover"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
