// Between the GPU code generator and the GPU emulator (compiler/codegen only): the GPU
// kernels emitted for the host CPU instead of NVPTX.
#pragma once

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>

#include "compiler/codegen/gpu_compiler.h"

namespace fusebox::codegen {

struct HostGpuModule {
  std::unique_ptr<GpuCode> code;       // kernels and launches, as for the GPU
  std::unique_ptr<llvm::Module> module; // unoptimized host IR; `<entry>_emu(ptr args)` wrappers
};

// The GPU backend's kernels, emitted for `triple`: thread and block ids, barriers and warp
// shuffles call fusebox_gpu_emu_sreg / _barrier / _shfl_down; shared memory is ordinary
// globals; math calls stay C library calls.
StatusOr<HostGpuModule> EmitGpuKernelsForHost(const Module& module, const GpuCompileOptions& options,
                                              const std::string& triple, const llvm::DataLayout& layout,
                                              llvm::LLVMContext& context);

}  // namespace fusebox::codegen
