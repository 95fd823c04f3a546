// The optimization pipeline Fusebox runs on a module before code generation: cleanup
// (inlining, tuple simplification, algebraic simplification, constant folding, CSE, DCE),
// then fusion. One readable function lists the passes in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/pipeline.h"

namespace fusebox {

// The pipeline for the CPU backend (the GPU backend shares it for now).
Pipeline MakeOptimizationPipeline();

// The names of the fusion passes: disabling them gives the "unfused" module, one kernel
// per op, that backends run to show what fusion buys.
std::vector<std::string> FusionPassNames();

// A copy of `module` after the pipeline; `fused` false disables the fusion passes.
StatusOr<std::unique_ptr<Module>> OptimizeForBackend(const Module& module, bool fused);

}  // namespace fusebox
