// The LLVM version Fusebox's code generators were built with, for reports (callers need
// no LLVM headers).
#pragma once

#include <string>

namespace fusebox::codegen {

std::string LlvmVersionString();  // "19.1.7"

}  // namespace fusebox::codegen
