// Extraction: the smallest standalone module around one instruction — the thing to attach
// to a bug. The instruction (an op, a fusion, a while loop...) becomes the root of a new
// entry computation together with `height` levels of its operands; operands further
// out become parameters of the same shape and name, so the extracted text reads like
// the original. Called computations (fused computations, reducers, loop bodies) come
// along. Small constants stay constants; large ones become parameters.
#pragma once

#include <memory>
#include <string>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::passes {

struct ExtractOptions {
  int height = 0;  // levels of operands kept (0: just the instruction)
  // Constants with more elements than this become parameters.
  int64_t max_constant_elements = 1024;
};

// Extracts `instruction` (its name, with or without '%') from `module`. It may live in
// any computation, fused ones included. The new module is named
// `extracted_<instruction>`, keeps the stack-frame tables metadata refers to, and is
// verified before it is returned. An unknown name is an error that suggests close names.
StatusOr<std::unique_ptr<Module>> ExtractInstruction(const Module& module, const std::string& instruction,
                                                     const ExtractOptions& options = {});

// Whether `module` has an instruction named `name`.
bool HasInstruction(const Module& module, const std::string& name);

}  // namespace fusebox::passes
