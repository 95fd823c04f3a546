// The optimization pipeline Fusebox runs on a module before code generation: cleanup
// (inlining, tuple simplification, algebraic simplification, constant folding, CSE, DCE),
// then fusion. One readable function lists the passes in order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/pipeline.h"

namespace fusebox::passes {

// The pipeline for the CPU backend (the GPU backend shares it for now). For a module that
// still needs SPMD partitioning (NeedsSpmdPartitioning), it starts with shardy-import,
// sharding-propagation and spmd-partitioner: the optimized module is then the
// per-device program.
// `gpu_libraries`: the GPU pipeline with NVIDIA's libraries (`--gpu-library=on`): gemm
// calls cuBLAS can run stay calls, the gemm-rewriter turns such dots into them, and
// Fourier transforms stay `fft` ops that the GPU runtime hands to cuFFT.
// `cpu_libraries`: the CPU backend's pipeline, whose Fourier transforms stay `fft` ops that the
// CPU runtime hands to FFTW, as XLA's CPU backend hands them to ducc, and whose jax LAPACK
// calls (IsCpuLapackCall) stay calls that it hands to LAPACK. With neither (the GPU
// pipeline with `--gpu-library=off`, and the interpreter's and the emulator's callers),
// fft-expander makes the transforms dots; library-call-lowering makes the LAPACK calls
// loops in every pipeline but the CPU's.
Pipeline MakeOptimizationPipeline(const Module* module = nullptr, bool gpu_libraries = false, bool cpu_libraries = false);

// The SPMD passes alone: shardy-import, sharding-propagation, spmd-partitioner.
std::vector<std::string> SpmdPassNames();

// A copy of `module` partitioned into its per-device program by the SPMD passes (the
// collective decisions go to `context`); a copy unchanged when it needs no partitioning.
StatusOr<std::unique_ptr<Module>> PartitionForDevices(const Module& module, PassContext& context);

// The names of the fusion passes: disabling them gives the "unfused" module, one kernel
// per op, that backends run to show what fusion buys (horizontal-fusion is in the GPU
// pipeline only: disable only the names a pipeline has).
std::vector<std::string> FusionPassNames();

// A copy of `module` after the pipeline; `fused` false disables the fusion passes.
// With `trace`, spans for the passes and the final verification.
StatusOr<std::unique_ptr<Module>> OptimizeForBackend(const Module& module, bool fused,
                                                     bool gpu_libraries = false, CompileTrace* trace = nullptr,
                                                     bool cpu_libraries = false);
// The CPU backend's optimized module (cpu_libraries on, no GPU libraries).
inline StatusOr<std::unique_ptr<Module>> OptimizeForCpu(const Module& module, bool fused,
                                                        CompileTrace* trace = nullptr) {
  return OptimizeForBackend(module, fused, /*gpu_libraries=*/false, trace, /*cpu_libraries=*/true);
}

}  // namespace fusebox::passes
