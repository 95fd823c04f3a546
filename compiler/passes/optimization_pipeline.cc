// The passes of the optimization pipeline, in order.
#include "compiler/passes/optimization_pipeline.h"

#include <algorithm>

#include "compiler/passes/algebraic_simplifier.h"
#include "compiler/passes/all_reduce_combiner.h"
#include "compiler/passes/batch_norm_expander.h"
#include "compiler/passes/call_inliner.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/cse.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/horizontal_fusion.h"
#include "compiler/passes/library_rewriters.h"
#include "compiler/passes/instruction_fusion.h"
#include "compiler/passes/library_call_lowering.h"
#include "compiler/passes/multi_output_fusion.h"
#include "compiler/passes/row_fusion.h"
#include "compiler/passes/sharding_propagation.h"
#include "compiler/passes/host_callback_remover.h"
#include "compiler/passes/fft_expander.h"
#include "compiler/passes/linalg_expander.h"
#include "compiler/passes/sharding_remover.h"
#include "compiler/passes/shardy_import.h"
#include "compiler/passes/spmd_partitioner.h"
#include "compiler/passes/topk_decomposer.h"
#include "compiler/passes/tuple_simplifier.h"
#include "compiler/verifier/verifier.h"

namespace fusebox::passes {

namespace {

void AddSpmdPasses(Pipeline& pipeline) {
  // Shardy's attributes and shard_map regions to GSPMD form, a sharding on every value,
  // then the per-device program with its collectives.
  pipeline.Add<ShardyImport>();
  pipeline.Add<ShardingPropagation>();
  pipeline.Add<SpmdPartitioner>();
}

}  // namespace

std::vector<std::string> SpmdPassNames() { return {"shardy-import", "sharding-propagation", "spmd-partitioner"}; }

StatusOr<std::unique_ptr<Module>> PartitionForDevices(const Module& module, PassContext& context) {
  std::unique_ptr<Module> copy = module.Clone();
  if (copy == nullptr) return Internal("cannot copy module " + module.name());
  // Messages about the copy give lines of the printed module, as they did when copies
  // were printed and parsed again.
  copy->LocateInPrintedText();
  if (!NeedsSpmdPartitioning(*copy)) return copy;
  Pipeline pipeline("spmd-partitioning");
  AddSpmdPasses(pipeline);
  PipelineOptions options;
  options.snapshot_pass_regex = "";
  options.keep_text_before = false;
  PipelineResult result;
  RETURN_IF_ERROR(pipeline.Run(*copy, options, context, &result));
  return copy;
}

Pipeline MakeOptimizationPipeline(const Module* module, bool gpu_libraries, bool cpu_libraries) {
  Pipeline pipeline(gpu_libraries ? "gpu-optimizations" : "cpu-optimizations");
  if (module != nullptr && NeedsSpmdPartitioning(*module)) AddSpmdPasses(pipeline);
  // What is left of sharding and memory-space annotations is the values they annotate.
  pipeline.Add<ShardingRemover>();
  // Python callbacks without results (jax.debug.print) compute nothing Fusebox can run or
  // any value needs: removed (the loader's notes say so).
  pipeline.Add<HostCallbackRemover>();
  // XLA's cuBLAS and cuDNN calls become the HLO they compute (inlined next), so that
  // an XLA GPU module compiles with Fusebox's own kernels; with the GPU's libraries, the
  // gemms cuBLAS runs stay calls; on the CPU, jax's LAPACK calls stay calls.
  pipeline.Add<LibraryCallLowering>(gpu_libraries, /*keep_lapack_calls=*/cpu_libraries && !gpu_libraries);
  // A topk with a large k (or of 64-bit elements) becomes a sort and two slices, as in
  // XLA; the others run as a kernel of their own on both backends.
  pipeline.Add<TopKDecomposer>();
  // TensorFlow's fused batch norms become their reductions and elementwise ops, as in
  // XLA's pipelines (batch_norm_expander.h).
  pipeline.Add<BatchNormExpander>();
  // Triangular solves and Cholesky factorizations (jax's LAPACK and cuSOLVER calls lower
  // to them) become loops of dots, as XLA's expanders make them (linalg_expander.h); with
  // the GPU's libraries triangular solves stay, for cuBLAS's trsm, and a `cholesky`
  // becomes a cuSOLVER potrf call and its NaN select, as in XLA's GPU plan.
  pipeline.Add<LinalgExpander>(/*gpu_libraries=*/gpu_libraries);
  // Fourier transforms become dots with DFT matrices, Cooley-Tukey's twiddles and
  // Bluestein's chirps (fft_expander.h) where no library runs them. With libraries they
  // stay `fft` ops: the GPU runtime hands them to cuFFT, as XLA's FFT thunk does; the CPU
  // runtime to FFTW, as XLA's CPU backend hands them to ducc.
  if (!cpu_libraries && !gpu_libraries) pipeline.Add<FftExpander>();
  // Cleanup: make the graph small and direct before fusion looks at it.
  pipeline.Add<CallInliner>();
  pipeline.Add<TupleSimplifier>();
  pipeline.Add<ConstantFolding>();
  pipeline.Add<AlgebraicSimplifier>();
  pipeline.Add<CommonSubexpressionElimination>();
  pipeline.Add<DeadCodeElimination>();
  // Independent all-reduces of the same kind become one (a training step's gradient sums
  // and its loss), as XLA's all-reduce combiner joins them after partitioning.
  pipeline.Add<AllReduceCombiner>();
  // Dots cuBLAS and convolutions cuDNN can run become library calls, as in XLA's GPU
  // plans (before fusion: a library call fuses with nothing).
  if (gpu_libraries) {
    pipeline.Add<GemmRewriter>();
    pipeline.Add<ConvRewriter>();
  }
  // Fusion: producer -> consumer (loop, input, output), then multi-output, then row
  // reductions into the consumers that read them per row (softmax, normalizations; on the
  // GPU also with outputs of one value per row, so that a loss after a softmax is one
  // launch: see row_fusion.h).
  pipeline.Add<InstructionFusion>();
  pipeline.Add<MultiOutputFusion>();
  pipeline.Add<RowFusion>(/*row_outputs=*/gpu_libraries);
  // On the GPU, small loop fusions that do not depend on each other (a training step's
  // parameter updates) share one launch (horizontal_fusion.h).
  if (gpu_libraries) pipeline.Add<HorizontalFusion>();
  return pipeline;
}

std::vector<std::string> FusionPassNames() {
  return {"fusion", "multi-output-fusion", "row-fusion", "horizontal-fusion"};
}

StatusOr<std::unique_ptr<Module>> OptimizeForBackend(const Module& module, bool fused, bool gpu_libraries,
                                                     CompileTrace* trace, bool cpu_libraries) {
  std::unique_ptr<Module> copy = module.Clone();
  if (copy == nullptr) return Internal("cannot copy module " + module.name());
  copy->LocateInPrintedText();  // as in PartitionForDevices
  // What a backend needs is the optimized module: no texts, and one verification at the
  // end instead of one after every pass that changed something (bench/pipeline_bench,
  // MNIST's step: 2.15 ms for the passes with both, 1.94 ms for this with the copy of the
  // module included; `fusebox compile`, the stepper and the reports still verify between
  // passes).
  PipelineOptions options;
  options.snapshot_pass_regex = "";
  options.keep_text_before = false;
  options.verify_between_passes = false;
  Pipeline pipeline = MakeOptimizationPipeline(copy.get(), gpu_libraries, cpu_libraries);
  if (!fused) {
    // The fusion passes this pipeline has (horizontal fusion is the GPU's only).
    const std::vector<std::string> names = pipeline.PassNames();
    for (const std::string& pass : FusionPassNames()) {
      if (std::find(names.begin(), names.end(), pass) != names.end()) options.disabled_passes.push_back(pass);
    }
  }
  options.trace = trace;
  PassContext context;
  PipelineResult result;
  RETURN_IF_ERROR(pipeline.Run(*copy, options, context, &result));
  // As between passes, only a module some pass changed is verified (an input the
  // pipeline leaves alone is the backend's to refuse, with its own message).
  const bool changed = std::any_of(result.passes.begin(), result.passes.end(),
                                   [](const PassRecord& r) { return r.changed; });
  if (!changed) return copy;
  VerifierOptions verify;
  verify.filename = copy->source_name() + " after the optimization pipeline";
  ScopedSpan span(trace, compile_category::kVerify, "verify");
  span.Arg("after", "the pipeline");
  if (Status st = Verify(*copy, verify); !st.ok()) {
    return Internal("the optimization pipeline left a module that does not verify:\n" + st.message());
  }
  return copy;
}

}  // namespace fusebox::passes
