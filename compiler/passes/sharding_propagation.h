// Sharding propagation: the "sharding-propagation" pass. Gives every instruction of an
// SPMD module's entry computation (and of the computations its while, conditional and
// call ops call) a `sharding=` attribute, starting from the shardings the user gave.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/sharding.h"
#include "compiler/passes/pass.h"

namespace fusebox::passes {

// Which dims of an fft, reduce-window, select-and-scatter or topk (operand 0's dims) the
// op leaves untouched: not transformed, windowed or searched. Empty when the op is not
// one of these or its attributes do not fit its operand.
std::vector<bool> DimsKeptByWindowOp(const Instruction& inst);

// The dim of `shape` that can take over a sort's split sort dim `dim` while the sort runs
// (its size divisible by its own tiles times the sort dim's; the one with the most
// elements a tile, the first of equals), given the tiles per dim; nullopt when none can
// and the sort needs its dim whole. Propagation keeps a sort dim split only when one can.
std::optional<int64_t> DimTakingTheSortSplit(const std::vector<int64_t>& tiles, const Shape& shape, int64_t dim);

// Runs only on modules with num_partitions > 1. Shardings an instruction already has
// (parameters, root, `Sharding` custom calls, SPMDFullToShardShape/SPMDShardToFullShape
// and the copies around them, manual regions) are fixed: never changed, except on the
// dims a custom call's `unspecified_dims` leaves open (UnspecifiedDimsOf), which may take
// a finer split from its neighbours (RefinesOpenSharding: the fixed dims and the manual
// groups kept); the two sides of a region boundary with open dims move together
// (EnterManualRegion / LeaveManualRegion). An entry
// parameter (or root leaf) without one is fixed replicated when the module header says
// allow_spmd_sharding_propagation_to_parameters (to_output) is false for it; otherwise
// propagation may choose it.
//
// Every array value (each leaf of a tuple) gets candidates from its operands (forward)
// and its users (backward) through per-op rules: elementwise ops keep the sharding;
// broadcast, transpose and reduce map dims (dims that disappear become a replicated
// subgroup: a reduce over a sharded dim is a partial result the partitioner all-reduces);
// reshape keeps the tiles of the major dim of each group of dims that split or merge when
// both sides divide; dot maps batch dims and each side's free dims (a sharded contracting
// dim leaves the output replicated unless its users or the other operand's free dims say
// otherwise); convolution maps batch and output-feature dims (feature/batch groups of 1);
// a variadic reduce's results (an argmax's value and index) and a sort's share one
// sharding; slice, pad and concatenate keep every dim whose sizes on both sides split
// evenly into its tiles (no interior padding: the partitioner reads each tile's window);
// dynamic-slice, dynamic-update-slice, reverse, fft and topk keep the dims they do not
// cut; a sort keeps its sort dim's split when another dim can take it over while it runs
// (DimTakingTheSortSplit), else cuts it; reduce-window and select-and-scatter keep every
// dim (the partitioner computes the windowed ones whole or with halos); gather maps its batch dims to the
// indices', its offset dims to the operand dims a slice takes whole and no index selects,
// and the operand's batching dims to their paired index dims; a scatter's result is its
// operand; get-tuple-element, tuple, call, conditional and while pass leaf
// shardings through, and a while loop's result, body parameter, body root and condition
// parameter share one sharding. Iota, constants and rng take their users' sharding.
// Manual (and partially manual) shardings spread to everything they touch. The program's
// own collectives (in manual regions) keep every dim but the one they move data along.
//
// Candidates are ranked: manual first, then any tiling over none, then one read directly
// off a fixed (user-given) sharding, then more tiles; ties go to operands in order before
// users, except that a broadcast's users win a tie with its operand (as XLA propagates
// forward through broadcasts last: the broadcast is built split as its users want it,
// rather than resharded after). Candidates from operands that split different dims over
// disjoint groups of devices are merged into one finer tiling (MergeShardings: a dot's
// lhs batch/free split and its rhs free split, elementwise operands split differently);
// the merged candidate counts as fixed when a part is, and wins over its parts by its
// tiles. A value changes only to a strictly better candidate, so the rounds end; they
// repeat until nothing changes. A value with no candidate becomes {replicated}.
//
// It does not: merge a user's candidate with an operand's, propagate through
// gather, scatter, fusion or unknown custom calls (their results end up
// replicated unless a user says otherwise), or change shapes. Unreduced subgroups are
// not propagated. Computations applied to scalars (reduce's to_apply, ...) get no
// shardings, as in XLA.
class ShardingPropagation : public Pass {
 public:
  std::string_view name() const override { return "sharding-propagation"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

  // One line per instruction the last Run gave a sharding: which rule and neighbour chose
  // it (or that nothing did).
  const std::vector<std::string>& log() const { return log_; }

 private:
  std::vector<std::string> log_;
};

// Building blocks (exposed for tests).

// The sharding of a value whose data dim i takes the tiles of `source` data dim
// `source_dim[i]` (-1: one tile). Source dims nothing takes become (or join) a
// replicated subgroup; manual subgroups stay. Replicated and manual map to themselves.
// Nullopt for shardings it cannot map (tuples, unreduced subgroups).
std::optional<Sharding> MapShardingDims(const Sharding& source,
                                        const std::vector<int64_t>& source_dim);

// One tiling that refines both `a` and `b` (tiled, same data rank and devices, no
// subgroup but replicated): a dim split in both must be split alike, a dim split in one
// takes its tiles, and every device sits in the tile both put it in; the devices left per
// tile form the replicated subgroup (its size shrinks by the tiles gained). Nullopt when
// no tile assignment satisfies both (e.g. both split over the same devices).
//   {devices=[2,1,2]<=[4] last_tile_dim_replicate} + {devices=[1,2,2]<=[2,2]T(1,0)
//   last_tile_dim_replicate} -> {devices=[2,2]<=[4]}
std::optional<Sharding> MergeShardings(const Sharding& a, const Sharding& b);

// For a reshape from `from` to `to`: the source dim each `to` dim takes its tiles from
// under `sharding` (-1: none), following the rule in the class comment.
std::vector<int64_t> ReshapeDimSources(const Shape& from, const Shape& to,
                                       const Sharding& sharding);

// XLA's shortest spelling of a device list: "<=[4]", "<=[2,2]T(1,0)" or "0,2,1,3".
std::string DeviceListText(const std::vector<int64_t>& devices);

// Open dims. A Sharding, SPMDFullToShardShape or SPMDShardToFullShape custom call whose
// backend_config is `unspecified_dims=[1]` (XLA's spelling; Shardy's `{?}` dims without
// axes, which shardy-import writes so) fixes its sharding on the other dims only:
// propagation may split the open ones further. The dims it names; empty without such a
// backend_config; error when the list is malformed or names a dim the result lacks.
StatusOr<std::vector<int64_t>> UnspecifiedDimsOf(const Instruction& inst);

// Whether `candidate` keeps what `floor` fixes on `devices` devices: on every dim not
// `open`, the same tiles on the same devices; on an open dim, the floor's tiles as the
// major part of its own; and the same manual groups (the devices sharing a manual
// subgroup index). Rank is the floor's.
bool RefinesOpenSharding(const Sharding& candidate, const Sharding& floor,
                         const std::vector<bool>& open, int64_t devices);

// Across a partially manual region's boundary, whose given shardings are `global0`
// outside (the manual axes' splits among its tiles, major in their dims) and `local0`
// inside (those splits a manual subgroup): the sharding inside that holds on each device
// the tile `global` gives it, and back. Nullopt when the splits do not line up (the
// manual axes' part of a dim moved, a dim's tiles not a multiple of its manual ones,
// manual groups that differ from `local0`'s).
//   global0 {devices=[2,1,4]<=[8] last_tile_dim_replicate}, local0 {devices=[1,1,2,4]<=[8]
//   last_tile_dims={manual, replicated}}: global {devices=[2,4]<=[8]} enters as
//   {devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual}}.
std::optional<Sharding> EnterManualRegion(const Sharding& global, const Sharding& global0,
                                          const Sharding& local0, int64_t devices);
std::optional<Sharding> LeaveManualRegion(const Sharding& local, const Sharding& global0,
                                          const Sharding& local0, int64_t devices);

// Whether propagation gives `inst` a sharding from its neighbours (it has rules for its
// op, or takes its users' sharding: constants, iota, rng, parameters of called
// computations). Collectives, fusions and custom calls other than Sharding do not.
bool PropagationReaches(const Instruction& inst);

}  // namespace fusebox::passes
