// Multi-output fusion, the "multi-output-fusion" pass: after producer -> consumer fusion,
// lets one kernel produce several results instead of writing a value and reading it back
// in another kernel, or reading the same input twice. Every pair it considers gets a
// FusionDecision (pass "multi-output-fusion").
//
//   - Producer -> consumer: a producer that feeds a fusion and also has users outside it
//     (so instruction fusion left it alone: it is expensive, or another user could not
//     take it) moves into the fusion and becomes an extra element of its root tuple; the
//     other users read it through get-tuple-element. Nothing is computed twice.
//   - Siblings: two fusions or reductions that read the same non-scalar operand and
//     iterate over the same shape merge into one fusion whose root is a tuple, so the
//     operand is read once.
//
// Both are refused when they would create a cycle (a path from one to the other through
// an instruction outside the fusion; that instruction would both feed and read the new
// fusion), when the iteration shapes differ (the loop emitter runs one index space), when
// the fusion would have more than `max_fusion_operands` operands, and for anything the
// producer -> consumer pass could not fuse at all (parameters, dots, custom calls, ...).
// It works on the computations InstructionFusion works on and does not touch kOutput or
// kCustom fusions.
#pragma once

#include <cstdint>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

struct MultiOutputFusionOptions {
  int64_t max_fusion_operands = 64;
  int64_t max_outputs = 16;  // elements of the root tuple
};

class MultiOutputFusion : public Pass {
 public:
  explicit MultiOutputFusion(MultiOutputFusionOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "multi-output-fusion"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  MultiOutputFusionOptions options_;
};

}  // namespace fusebox::passes
