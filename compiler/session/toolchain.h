// What this build and machine offer the compiler: the LLVM it was built with, the GPU the
// CUDA driver finds, the ptxas it would use. One probe, so that reports and the CLI need
// not reach into the code generators or the runtime themselves.
#pragma once

#include <string>

namespace fusebox::session {

struct Toolchain {
  std::string llvm_version;  // "19.1.7"
  std::string gpu;           // the device, or why there is none ("no CUDA driver (...)")
  std::string ptxas;         // path and version, or why there is none
};

// Probes device 0 and looks for ptxas; never fails (a missing piece is described).
Toolchain ProbeToolchain();

}  // namespace fusebox::session
