// The toolchain probe: LLVM's version, the CUDA driver's device 0, ptxas.
#include "compiler/session/toolchain.h"

#include "compiler/codegen/llvm_version.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/runtime/cuda_driver.h"

namespace fusebox::session {

Toolchain ProbeToolchain() {
  Toolchain t;
  t.llvm_version = codegen::LlvmVersionString();
  auto device = runtime::DiscoverCudaDevice(0);
  t.gpu = device.ok() ? device->ToString() : device.status().message();
  auto ptxas = codegen::FindPtxas();
  t.ptxas = ptxas.ok() ? *ptxas : ptxas.status().message();
  return t;
}

}  // namespace fusebox::session
