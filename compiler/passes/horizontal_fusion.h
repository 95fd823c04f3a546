// Horizontal loop fusion, the "horizontal-fusion" pass (the GPU pipeline, after row fusion):
// small loop fusions that do not depend on each other become one multi-output fusion, which
// the GPU's loop emitter runs as one launch with a range of blocks per output shape
// (GpuKernelEmitter::EmitLoops). A training step's parameter updates are such fusions: one
// per weight (SGD's `p - lr * g`, Adam's three outputs), each a few thousand elements, each
// a launch of a few microseconds on a GPU, whatever its size. XLA's GPU compiler has the same
// pass (horizontal loop fusion) for the same reason.
//
// A fusion takes part when it is a kLoop fusion of elementwise ops and the data movement
// that reads each element at its own index or a broadcast of one, or a transpose that is
// not its root or is small (no slice, gather, reduce, large root transpose, ... : those
// have kernels of their own that merging would lose), writes
// arrays, is not the computation's result, and has no control edges. Fusions join a group
// in post order while neither reaches the other (pairwise: no path between any two, so the
// merged fusion makes no cycle) and the group stays within `max_elements` output elements
// in all (big loop kernels gain nothing from sharing a launch), `max_fusion_operands`
// operands and `max_outputs` outputs. Each merge and each refusal that stopped a merge gets
// a FusionDecision (pass "horizontal-fusion").
//
// One member of a group may be a small row reduction (a kInput fusion of one reduce over
// the operand's minor dimension, fewer than 16384 elements, and elementwise ops: a loss
// summed over the batch): the GPU emitter runs its reduction in one 256-thread launch,
// merged with the loops' (reduction(mixed)). MNIST's loss then shares the launch of its
// bias update.
//
// First, bare transposes of at most 65536 elements (weights packed for cuDNN's filter
// descriptors), when a computation has two or more, become loop fusions that can join a
// group: ResNet-50's 19 small filter transposes share one launch.
//
// Then tiny such fusions (at most 32 elements an output) that read one another merge
// vertically, as a multi-output fusion: a step counter and the Adam bias corrections
// computed from it were two launches of one thread each.
#pragma once

#include <cstdint>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

struct HorizontalFusionOptions {
  int64_t max_elements = int64_t{1} << 20;  // output elements of a group, all together
  int64_t max_fusion_operands = 64;
  int64_t max_outputs = 16;
};

class HorizontalFusion : public Pass {
 public:
  explicit HorizontalFusion(HorizontalFusionOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "horizontal-fusion"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  HorizontalFusionOptions options_;
};

}  // namespace fusebox::passes
