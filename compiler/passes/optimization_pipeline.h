// The optimization pipeline Fusebox runs on a module before code generation: cleanup
// (inlining, tuple simplification, algebraic simplification, constant folding, CSE, DCE),
// then fusion. One readable function lists the passes in order.
#pragma once

#include "compiler/passes/pipeline.h"

namespace fusebox {

// The pipeline for the CPU backend (the GPU backend shares it for now).
Pipeline MakeOptimizationPipeline();

}  // namespace fusebox
