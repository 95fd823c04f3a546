// Random valid HLO modules for the differential fuzzer: the text of a module made from a
// seed (same seed, same text on every machine), which the parser and verifier accept.
//
// A module mixes elementwise chains (unary, binary, compare/select, converts between
// f32, f16, bf16, s32 and pred), broadcasts, reshapes, reductions over any set of
// dimensions, dots with batch and contracting dimensions, transposes, slices, pads
// (negative and interior too), concatenates, reverses, iotas, small while loops and
// conditionals whose bodies are generated the same way, and a tuple root of several
// outputs. Shapes stay small (a few thousand elements at most), so a module runs in
// milliseconds on every backend. Operands that must stay in a domain (divisors, the
// arguments of log, sqrt and rsqrt) are made so by the generated code itself, not by
// the inputs: any random input gives finite values on most outputs.
#pragma once

#include <cstdint>
#include <string>

namespace fusebox::fuzz {

struct GeneratorOptions {
  int max_instructions = 24;    // random operations in the entry computation
  int64_t max_elements = 2048;  // largest array a module holds
  int max_parameters = 5;
  bool control_flow = true;  // while loops and conditionals
  // Now and then a complex island: two float values become a c64 value (parts kept in
  // tanh's range, the imaginary one off zero), one or two complex ops (elementwise
  // functions, division, power, a dot, a sum), then back to f32 by real, imag or abs.
  // Off by default, so the modules of a seed stay what they were.
  bool complex_numbers = false;
  // Now and then a convolution (1-D or 2-D, NHWC or NCHW, strides, padding, lhs and rhs
  // dilation, feature and batch groups), a max-pool gradient (select-and-scatter), a
  // gather of rows or columns, a scatter (add at distinct indices, some past the end;
  // maximum at any), or a roll along one dim (two slices concatenated: a rotation, which
  // the SPMD partitioner moves around the ring of a split dim's tiles). Off by default, so
  // the modules of a seed stay what they were.
  bool windows = false;
  // More than 1: the module is a global SPMD program for this many devices (2, 4 or 8):
  // `num_partitions` in its header, a sharding on every entry parameter (split evenly
  // along one or two dims, or replicated, in iota, transposed or permuted device orders,
  // with a replicated last tile dim when fewer devices split it) and on about one entry
  // instruction in five (what jax's with_sharding_constraint leaves; unevenly now and
  // then). The shardings come from their own stream of the seed: the module is the same
  // as without them.
  int partitions = 0;
  // With partitions: one to three entry instructions rewritten into manual regions
  // (shard_map) with collectives of their own: an adding reduce as per-device sums joined
  // by an all-reduce or a reduce-scatter, an elementwise op on pieces joined by an
  // all-gather or left split, a value rolled by one piece with a collective-permute. The
  // text then holds two modules: the program, and its reference without manual regions
  // (`<name>_reference`: the same values; the roll as slices and a concatenate).
  bool manual_regions = false;
  // With manual_regions and 4 or 8 partitions: the devices form a 2-D mesh [M, K] (either
  // axis major, or permuted) and most regions are manual over its first axis only
  // (last_tile_dims={manual}: a shard_map with axis_names over some mesh axes): inside,
  // values are split over the K devices of each manual group automatically, and the
  // region's collectives (all-reduce, reduce-scatter, all-gather, collective-permute,
  // all-to-all) run over the manual axis, one group per automatic position.
  bool partial_manual = false;
  // With partial_manual: region values are now and then left without a sharding, and
  // boundaries with their dims but the manual one open (a Sharding custom call and the
  // SPMD*Shape call carrying backend_config="unspecified_dims=[...]"), for propagation to
  // choose; drawn from a stream of their own (the same regions as without).
  bool open_dims = false;
  // With partial_manual: now and then an elementwise op runs in a region nested in a
  // partially manual one, manual over the other mesh axis too (a shard_map in another's
  // body): its operands enter from the outer region split over the automatic axis, each
  // device's tile its value.
  bool nested_manual = false;
};

// The module text for `seed`: "HloModule fuzz_<seed>", called computations, ENTRY.
std::string GenerateModuleText(uint64_t seed, const GeneratorOptions& options = {});

// `text` (a module) with shardings for `partitions` devices drawn from `seed`, as
// GeneratorOptions::partitions describes; `text` itself when it does not parse.
std::string AddRandomShardings(const std::string& text, uint64_t seed, int partitions);

// `text` (a sharded module) with manual regions as GeneratorOptions::manual_regions
// describes, followed by its reference module; `text` itself when nothing could be
// rewritten.
std::string AddManualRegions(const std::string& text, uint64_t seed, int partitions, bool partial = false,
                             bool open = false, bool nested = false);

}  // namespace fusebox::fuzz
