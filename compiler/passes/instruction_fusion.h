// Producer -> consumer fusion, the "fusion" pass. Every producer -> consumer edge it looks
// at gets a FusionDecision: fused, or not fused with the reason in words.
//
// What it does, per computation that runs as a program (the entry, while conditions and
// bodies, conditional branches, call targets; not fused computations, reducers or
// comparators), visiting consumers before producers (reverse post order) and growing each
// consumer's group through its operands until nothing more fuses:
//   - loop fusion (kLoop): elementwise ops and data movement (broadcast, reshape, bitcast,
//     transpose, slice, concatenate, pad, reverse, dynamic-slice, gather, copy, iota) and
//     small constants fuse into elementwise / data-movement consumers;
//   - input fusion (kInput): a reduce absorbs the producers of its inputs;
//   - reduction epilogues: an elementwise consumer with the reduction's output shape
//     absorbs a reduce whose only user it is (the group becomes kInput);
//   - output fusion (kOutput): a dot/convolution whose only user is elementwise (a bias
//     add, a scale) fuses with that epilogue;
//   - duplication: a producer with several users is copied into each of them, but only
//     when it is cheap (IsExpensive) and every user can fuse it.
// It never fuses parameters, tuples/get-tuple-element, side-effecting or control-flow ops,
// custom calls, sort, scatter, collectives, rng, a fusion holding any of those or a
// dynamic-update-slice (XLA's wrapped_scatter: it must stay its kernel's root), or a reduce
// into a reduce, and keeps a fusion under `max_fusion_operands` operands.
//
// A group only ever copies the producers it takes (a producer with users outside the group
// stays for them), so producer -> consumer fusion cannot create a cycle; multi-output
// fusion, which moves values instead of copying them, checks reachability (see
// multi_output_fusion.h). It does not merge sibling fusions, and it leaves existing
// kOutput/kCustom and multi-output fusions as they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

struct InstructionFusionOptions {
  int64_t max_fusion_operands = 64;
  // Constants with at most this many elements are fused; larger ones stay buffers.
  int64_t max_fused_constant_elements = 16;
  bool output_fusion = true;  // dot/convolution + elementwise epilogue
};

class InstructionFusion : public Pass {
 public:
  explicit InstructionFusion(InstructionFusionOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "fusion"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  InstructionFusionOptions options_;
};

// Why recomputing `instruction` per use is costly ("exponential", "divide", or, for a
// fusion, "contains %exp.1 (exponential)"), or nullopt when it is cheap. Transcendentals,
// roots, float/complex divide, remainder and power are expensive, as are dot,
// convolution, reduce and anything not elementwise or data movement.
std::optional<std::string> IsExpensive(const Instruction& instruction);

}  // namespace fusebox::passes
