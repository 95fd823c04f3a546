// SPMD partitioning: the "spmd-partitioner" pass turns a module whose instructions carry
// GSPMD shardings (global shapes) into the per-device program XLA writes for
// num_partitions devices, with the collectives that program needs, and records a
// decision with a reason for every collective it inserts.
#pragma once

#include <string_view>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Input: num_partitions = N > 1 (replica_count 1), every instruction of the entry
// computation and of the computations that while / conditional / call reach carries a
// `sharding=` (GSPMD text, as sharding-propagation leaves it); shapes are global except
// between SPMDFullToShardShape and SPMDShardToFullShape (manual regions, whose ops are
// already per-device code and are kept as they are).
//
// Output: every shape is the per-device shard shape; entry parameters and the entry root
// keep their `sharding=` (the runtime splits inputs and assembles outputs with it), other
// instructions lose theirs; the header keeps num_partitions; the entry computation is
// renamed `<name>_spmd`, as XLA does. Collectives are spelled as
// XLA spells them (channel_id, explicit replica_groups of partition ids,
// use_global_device_ids=true); a device's offsets come from partition-id through a
// constant table.
//
// What it does natively: elementwise ops; resharding (local dynamic-slice when the
// target tile lies within the held one, all-to-all when a split moves from one dim to
// another over the same devices, all-gather otherwise); dot with batch, free or
// contracting dims split (partial sums + all-reduce, or reduce-scatter when the dot's
// own sharding splits a dim over the devices that hold the partial sums; but when the
// result splits an lhs-free and an rhs-free dim over different devices and one operand
// splits the contracting dims, that operand is all-gathered along them instead, as XLA
// does, if that brings no more bytes to a device than the partial-sum plan hands to its
// all-to-all and reduction); reduce
// (all-reduce with the reducer when a reduced dim is split and the init value is the
// reducer's identity); broadcast, transpose, reshape (splits and merges of the major
// dim), slice / pad / concatenate / dynamic-slice / dynamic-update-slice / reverse along
// unsplit dims (split dims are gathered first), convolution split on batch or output
// feature, iota (plus the device's offset), constants (sliced per device), tuples,
// while / conditional / call bodies, manual regions and `Sharding` custom calls.
//
// Partially manual regions (last_tile_dims={manual} beside split data dims or a
// replicated subgroup: a shard_map over some mesh axes) are partitioned over their free
// axes: each manual group of devices holds a value of its own, which the rules above split
// over the group's devices, with every collective they insert kept within one group (a
// rule that would form a group across them is an error naming the instruction, never a
// mix of the groups' values). The program's own collectives (groups across the manual
// groups) run on the tiles their groups' devices share, the dims they move data along made
// whole first; where those devices hold different tiles, each computes its group's whole
// value (a replicated-fallback decision).
//
// What it does not do: anything else is computed whole on every device (operands
// all-gathered, the result sliced), recorded as a "replicated-fallback" decision. An
// uneven split (a dim not divisible by its tile count; XLA pads the last tiles) is
// computed whole along that dim, recorded as an "uneven-split" decision; on an entry
// parameter or the entry root it is refused with an error naming the instruction, as are
// partially manual shardings there (a region starts and ends inside the program) and nested
// tuples. Maximal
// shardings are computed as replicated. (The rules for windows, reverses, device
// reorders and halos, which use collective-permutes: docs/multi-device.md.)
class SpmdPartitioner : public Pass {
 public:
  std::string_view name() const override { return "spmd-partitioner"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;
};

// Whether `module` is an SPMD program still to be partitioned. The rule: it names more
// than one partition (num_partitions > 1) or carries sharding markers (custom calls
// `Sharding`, `SPMDFullToShardShape`, `SPMDShardToFullShape`, `xla.sdy.*`, or the
// `xla.sdy.meshes` module attribute); and it is not already partitioned. Already
// partitioned means: the entry computation's name ends in "_spmd" (XLA names the
// partitioned entry so, and so does this pass), or is_scheduled=true (XLA's
// after-optimizations output), or there is no sharding marker at all while some
// cross-device collective with a channel_id or a partition-id sits outside a manual
// region (sharding={manual}).
bool NeedsSpmdPartitioning(const Module& module);

}  // namespace fusebox::passes
