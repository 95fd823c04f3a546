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

std::vector<std::string> FusionPassNames() { return {"fusion", "multi-output-fusion"}; }

StatusOr<std::unique_ptr<Module>> OptimizeForBackend(const Module& module, bool fused) {
  std::unique_ptr<Module> copy = module.Clone();
  if (copy == nullptr) return Internal("cannot copy module " + module.name());
  PipelineOptions options;
  options.snapshot_pass_regex = "";
  if (!fused) options.disabled_passes = FusionPassNames();
  PassContext context;
  PipelineResult result;
  RETURN_IF_ERROR(MakeOptimizationPipeline().Run(*copy, options, context, &result));
  return copy;
}

}  // namespace fusebox
