// The passes of the optimization pipeline, in order.
#include "compiler/passes/optimization_pipeline.h"

#include "compiler/passes/algebraic_simplifier.h"
#include "compiler/passes/call_inliner.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/instruction_fusion.h"
#include "compiler/passes/multi_output_fusion.h"
#include "compiler/passes/tuple_simplifier.h"

namespace fusebox {

Pipeline MakeOptimizationPipeline() {
  Pipeline pipeline("cpu-optimizations");
  // Cleanup: make the graph small and direct before fusion looks at it.
  pipeline.Add<CallInliner>();
  pipeline.Add<TupleSimplifier>();
  pipeline.Add<ConstantFolding>();
  pipeline.Add<AlgebraicSimplifier>();
  pipeline.Add<CommonSubexpressionElimination>();
  pipeline.Add<DeadCodeElimination>();
  // Fusion: producer -> consumer (loop, input, output), then multi-output.
  pipeline.Add<InstructionFusion>();
  pipeline.Add<MultiOutputFusion>();
  return pipeline;
}

}  // namespace fusebox
