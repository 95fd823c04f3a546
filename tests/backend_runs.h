// Runs a module the way the op-level backend tests do: compiled for the CPU backend (two
// threads) and for the GPU emulator (the GPU pipeline with its library rewriters), each
// unfused and fused, on the same arguments (or, for programs with loops, the GPU side only
// compiled).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox {

// What to do with the GPU module: run it in the emulator, or only compile it to kernels
// (the emulator runs straight-line programs; a while loop runs on the host). The GPU
// pipeline has its libraries (cuBLAS, cuDNN, cuFFT) unless the mode says without
// (`--gpu-library=off`: Fusebox's own kernels for everything).
enum class GpuRun { kEmulate, kCompileOnly, kEmulateWithoutLibraries, kCompileOnlyWithoutLibraries };

// Calls `check(result, which)` for each of the four runs, `which` naming it ("CPU
// unfused", "GPU emulator fused", ...). `inspect(module, which)`, when given, sees each
// optimized module before it compiles. A compile or run that fails is a test failure
// naming the run.
inline void RunOnBothBackends(const Module& module, const std::vector<Literal>& args,
                              const std::function<void(const Literal&, const std::string&)>& check,
                              const std::function<void(const Module&, const std::string&)>& inspect = nullptr,
                              GpuRun gpu_run = GpuRun::kEmulate) {
  for (bool fused : {false, true}) {
    const std::string how = fused ? " fused" : " unfused";
    auto cpu_module = passes::OptimizeForBackend(module, fused);
    ASSERT_TRUE(cpu_module.ok()) << "CPU" << how << ": " << cpu_module.status().message();
    if (inspect) inspect(**cpu_module, "CPU" + how);
    runtime::CpuExecutableOptions options;
    options.threads = 2;
    auto cpu = runtime::CpuExecutable::Create(std::move(*cpu_module), options);
    ASSERT_TRUE(cpu.ok()) << "CPU" << how << ": " << cpu.status().message();
    auto on_cpu = (*cpu)->Run(args);
    ASSERT_TRUE(on_cpu.ok()) << "CPU" << how << ": " << on_cpu.status().message();
    check(*on_cpu, "CPU" + how);

    const bool libraries =
        gpu_run != GpuRun::kEmulateWithoutLibraries && gpu_run != GpuRun::kCompileOnlyWithoutLibraries;
    auto gpu_module = passes::OptimizeForBackend(module, fused, libraries);
    ASSERT_TRUE(gpu_module.ok()) << "GPU emulator" << how << ": " << gpu_module.status().message();
    if (inspect) inspect(**gpu_module, "GPU emulator" + how);
    if (gpu_run == GpuRun::kCompileOnly || gpu_run == GpuRun::kCompileOnlyWithoutLibraries) {
      auto code = codegen::CompileForGpu(**gpu_module);
      ASSERT_TRUE(code.ok()) << "GPU compile" << how << ": " << code.status().message();
      continue;
    }
    auto emulator = codegen::GpuEmulator::Create(std::move(*gpu_module));
    ASSERT_TRUE(emulator.ok()) << "GPU emulator" << how << ": " << emulator.status().message();
    auto on_gpu = (*emulator)->Run(args);
    ASSERT_TRUE(on_gpu.ok()) << "GPU emulator" << how << ": " << on_gpu.status().message();
    check(*on_gpu, "GPU emulator" + how);
  }
}

}  // namespace fusebox
