// The passes of the optimization pipeline, in order.
#include "compiler/passes/optimization_pipeline.h"

namespace fusebox {

Pipeline MakeOptimizationPipeline() {
  Pipeline pipeline("cpu-optimizations");
  return pipeline;
}

}  // namespace fusebox
