// Combining all-reduces: the "all-reduce-combiner" pass.
#pragma once

#include <cstdint>
#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Joins all-reduces that neither depends on the other into one all-reduce of a tuple,
// as XLA's all-reduce combiner does after SPMD partitioning (a training step's gradient
// sums and its loss's become one collective: one latency instead of several). Joined
// are array all-reduces of one element type with the same replica groups, the same
// use_global_device_ids, channel ids on all or none, and the same reduction (one binary
// op of the two parameters: add, multiply, maximum, minimum, and, or...; or the very same
// computation); a group holds at most `max_count` arrays and `max_bytes` bytes. Each
// original becomes a get-tuple-element of the combined one. Within a computation,
// all-reduces are taken in post order; one that depends on a member of the open group of
// its kind closes that group and opens the next, where depending counts every group
// formed so far as one instruction (two kinds, each combining an all-reduce with one that
// reads the other kind's, would otherwise make the two combined all-reduces wait for each
// other).
class AllReduceCombiner : public Pass {
 public:
  // XLA's CPU and GPU pipelines: 30 MiB, 256 arrays.
  explicit AllReduceCombiner(int64_t max_bytes = 30 << 20, int64_t max_count = 256)
      : max_bytes_(max_bytes), max_count_(max_count) {}
  std::string_view name() const override { return "all-reduce-combiner"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  int64_t max_bytes_;
  int64_t max_count_;
};

}  // namespace fusebox::passes
