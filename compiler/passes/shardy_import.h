// Shardy import: the "shardy-import" pass. Turns the `xla.sdy.*` attributes and custom
// calls jax writes into HLO text into XLA's own (GSPMD) form, which the sharding
// propagation and SPMD partitioner read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// What it converts (meshes come from the module's `xla.sdy.meshes` frontend attribute):
//  - `xla.sdy.sharding` on any instruction (`#sdy.sharding<...>` or
//    `#sdy.sharding_per_value<[...]>`, one per leaf of a tuple result) becomes its
//    `sharding=` attribute; inside a manual region the region's manual axes become a
//    manual subgroup (as XLA writes them). A `sharding=` jax wrote too is overwritten:
//    Shardy's attribute is the source of truth.
//  - `xla.sdy.FuncResultSharding` custom calls become `Sharding` custom calls (GSPMD's
//    constraint) with the result sharding they carry.
//  - A shard_map region, `xla.sdy.GlobalToLocalShape` ... `xla.sdy.LocalToGlobalShape`
//    (attributes `xla.sdy.in_shardings`, `xla.sdy.out_shardings`, `xla.sdy.manual_axes`),
//    becomes, per value, `copy` (global sharding) + `SPMDFullToShardShape` (manual, the
//    per-device shape) at the start, and `copy` (manual) + `SPMDShardToFullShape` (global
//    sharding, the global shape) at the end. Every instruction of the region (what the
//    region's inputs reach before the LocalToGlobalShape, and everything in the
//    computations a `call`, `while` or `conditional` there calls) gets `{manual}`, or,
//    when only some mesh axes are manual, `{devices=[1,..,1,M,R] last_tile_dims={manual,
//    replicated}}` (the free axes replicated). jax 0.10.2 writes GlobalToLocalShape
//    results already in per-device shapes; global ones are accepted too.
//  - Open dims (`{?}`, `{"x", ?}`) of constraints, outside regions and in partially
//    manual ones: those without axes (but manual ones) become XLA's
//    `backend_config="unspecified_dims=[...]"`, which propagation may split further. A
//    partially manual region's boundary with open dims is a `Sharding` custom call (not a
//    copy) and the SPMD*Shape call, both carrying them; its instructions Shardy says
//    nothing about (open) get no sharding where propagation has a rule for them
//    (PropagationReaches), and its callee parameters fed through open boundaries neither.
//  - A shard_map inside another's body (a nested region, taken after its enclosing one) is
//    manual over its own axes and every enclosing region's; its boundary cuts values along
//    its own axes only, and its outside is the enclosing region's partially manual value
//    (the copy carries the enclosing region's manual subgroup).
//  - The consumed `xla.sdy.*` frontend attributes are removed.
//
// It does not: propagate shardings (sharding-propagation does), partition, or inline the
// region's `call` (its `inlineable="false"` stays). An `xla.sdy.*` custom call or
// frontend attribute it does not know, sub-axes (`"x":(1)2`) and a nested region naming an
// enclosing region's axis are errors that name the instruction; nothing is dropped silently. A module without
// any `xla.sdy.*` is left as it is.
class ShardyImport : public Pass {
 public:
  std::string_view name() const override { return "shardy-import"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

  // One line per conversion of the last Run (for tests and dumps).
  const std::vector<std::string>& log() const { return log_; }

 private:
  std::vector<std::string> log_;
};

}  // namespace fusebox::passes
