// The GPU emulator: runs the GPU backend's kernels on the host CPU, so that their logic —
// thread-to-element mapping, warp-shuffle and shared-memory reductions, tiled transposes
// and dots, the bitonic sort network, in-place updates — is checked against the reference
// interpreter on machines without a GPU.
//
// The kernels are the same LLVM IR the NVPTX backend compiles (one emitter, one switch:
// see codegen::EmitGpuKernelsForHost), JIT-compiled for the host. Every thread of a block
// is a cooperative fiber; a block's threads interleave only at barriers and warp
// shuffles, blocks run one after another. That is one legal GPU schedule, not all of
// them: races the hardware could expose are not found here. It is slow (a context switch
// per thread per barrier) and meant for tests on small inputs.
//
// The host side is simple: straight-line entry computations (no while or conditional),
// every instruction in its own buffers.
#pragma once

#include <memory>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

class GpuEmulator {
 public:
  // `module` is optimized (or not, for one kernel per op); layouts are normalized here.
  // With options.gemm_kernels, gemm library calls that have Fusebox's own kernel run it
  // (and count as launches); the others run on the host as the library defines them.
  static StatusOr<std::unique_ptr<GpuEmulator>> Create(std::unique_ptr<Module> module,
                                                       const GpuCompileOptions& options = {});
  ~GpuEmulator();

  StatusOr<Literal> Run(const std::vector<Literal>& arguments);

  const GpuCode& code() const;
  const Module& module() const { return *module_; }
  // Kernel launches (GpuLaunch entries run) by the last Run.
  int64_t last_launches() const { return last_launches_; }
  // With options.kernel_variants: later runs launch every kernel's variant v - 1
  // (GpuKernel::variants) where it has one, its own launches elsewhere; 0 (the start):
  // their own launches everywhere. The kernels that ran a variant in the last Run.
  void set_kernel_variant(int64_t v) { kernel_variant_ = v; }
  int64_t last_variants_run() const { return last_variants_run_; }

 private:
  GpuEmulator() = default;
  struct Jit;
  std::unique_ptr<Module> module_;
  std::unique_ptr<Jit> jit_;
  int64_t last_launches_ = 0;
  int64_t kernel_variant_ = 0;
  int64_t last_variants_run_ = 0;
  bool gemm_kernels_ = false;  // gemm library calls with an own kernel run it
};

}  // namespace fusebox::codegen
