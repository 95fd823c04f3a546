// Kernel counts: how many kernels a module launches, statically — one per non-trivial
// instruction of the computations that run as programs (the entry and the bodies of
// while/conditional/call/async), a fusion being one kernel. Reducers, comparators and
// fused computations are inside kernels and do not count. Free instructions (parameters,
// constants, tuples, get-tuple-element, bitcasts, reshapes, control-flow wrappers) do not
// count either. Comparing the count before and after fusion is what users come to see.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "compiler/ir/module.h"

namespace fusebox::passes {

struct KernelCount {
  int64_t kernels = 0;
  std::map<std::string, int64_t> by_opcode;  // "fusion(kLoop)", "dot", "reduce", ...
  std::string ToString() const;               // "3 kernels (add 1, multiply 1, reduce 1)"
};

KernelCount CountKernels(const Module& module);

// Whether `inst` becomes a kernel of its own when it runs (see the file comment).
bool IsKernel(const Instruction& inst);

// Whether the computations `inst` calls run as programs (while, conditional, call,
// async-start), not inside a kernel.
bool CallsProgram(const Instruction& inst);

}  // namespace fusebox::passes
