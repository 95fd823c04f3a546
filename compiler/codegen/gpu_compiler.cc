// Interim: replaced by the NVPTX code generator in this change.
#include "compiler/codegen/gpu_compiler.h"

namespace fusebox {

StatusOr<std::unique_ptr<GpuCode>> CompileForGpu(const Module&, const GpuCompileOptions&) {
  return Unimplemented("GPU code generator in progress");
}

bool IsGpuKernel(const Instruction&) { return false; }

const std::vector<std::string>& SupportedGpuArchs() {
  static const std::vector<std::string> archs = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
  return archs;
}

}  // namespace fusebox
