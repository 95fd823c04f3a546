// Annotation removal: the "sharding-remover" pass.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Replaces every annotation custom call (IsAnnotationCustomCall: Sharding, the SPMD and
// Shardy shape changes, MoveToHost/MoveToDevice, LayoutConstraint, ...) whose one
// operand has its shape by that operand, as XLA's sharding remover does where no
// partitioning is left to do. They are what jax writes for with_sharding_constraint,
// sharded keys and host offloading; on one device, or after the SPMD partitioner (which
// runs before and consumes the ones it needs), each is the value it annotates, and the
// backends have no kernel for them. One whose shape differs from its operand's (a shard
// shape of a module meant for several devices) stays, and the backends name it.
class ShardingRemover : public Pass {
 public:
  std::string_view name() const override { return "sharding-remover"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

}  // namespace fusebox::passes
