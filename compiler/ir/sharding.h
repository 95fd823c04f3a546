// Shardings: how an array is split across the devices of an SPMD program, read from the
// text XLA writes after `sharding=` (GSPMD's HloSharding) and from Shardy's `xla.sdy.*`
// frontend attributes, and written back in XLA's spelling.
//
//   {replicated}                      every device holds the whole array
//   {maximal device=3}                one device holds it
//   {manual}                          the program handles the split itself
//   {devices=[2,1]0,1}                tiled: dim 0 in 2 tiles on devices 0 and 1
//   {devices=[2,2]<=[4]}              the same with an iota device list
//   {devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
//                                     the last tile dim replicates (2 copies of each tile)
//   {devices=[1,1,4]<=[4] last_tile_dims={manual}}
//                                     trailing tile dims of the given kinds
//   {{replicated}, {devices=[4]<=[4]}} one per leaf of a tuple
//
// The instruction keeps the attribute's text verbatim (printing stays exact); this is the
// meaning, parsed on demand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/shape.h"
#include "compiler/support/status.h"

namespace fusebox {

class Instruction;
class Module;

// The kinds of trailing tile dimensions (`last_tile_dims={manual, replicated}`).
enum class SubgroupKind { kReplicated, kManual, kUnreduced, kMaximal };
std::string_view SubgroupKindName(SubgroupKind kind);

struct Sharding {
  enum class Kind { kReplicated, kMaximal, kManual, kUnknown, kTiled, kTuple };
  Kind kind = Kind::kReplicated;

  // kMaximal: the device.
  int64_t device = -1;

  // kTiled: the tile grid (data dims first, then the subgroup dims), the devices in
  // row-major order over it, and the kinds of the trailing subgroup dims.
  std::vector<int64_t> tile_dims;
  std::vector<int64_t> tile_devices;
  std::vector<SubgroupKind> subgroups;  // last_tile_dim_replicate is {kReplicated}
  bool last_tile_dim_replicate = false;  // written with the old keyword
  // The device list as written after the dims: "<=[2,2]T(1,0)" or "0,1,2,3".
  std::string device_list_text;

  // kTuple: one per leaf, in order.
  std::vector<Sharding> elements;

  // Anything after the core (metadata={...}, shard_as N, ...), kept verbatim.
  std::string trailing;

  static Sharding Replicated() { return Sharding{}; }
  static Sharding Manual() {
    Sharding s;
    s.kind = Kind::kManual;
    return s;
  }
  static Sharding Maximal(int64_t device) {
    Sharding s;
    s.kind = Kind::kMaximal;
    s.device = device;
    return s;
  }
  // Tiled over `tile_dims` with devices 0..n-1 in order (written as an iota list), with
  // the last dim replicated when `replicate_last` (written `last_tile_dim_replicate`).
  static Sharding Tiled(std::vector<int64_t> tile_dims, bool replicate_last = false);
  // Tiled over `tile_dims` with explicit devices.
  static Sharding TiledWithDevices(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                                   std::vector<SubgroupKind> subgroups = {});

  bool IsTuple() const { return kind == Kind::kTuple; }
  bool IsTiled() const { return kind == Kind::kTiled; }
  // Replicated, or tiled with every data dim in one tile (only subgroups replicate).
  bool IsFullyReplicated() const;
  bool IsManual() const;  // {manual}, or tiled with only manual subgroups and 1-tile data

  // kTiled: number of data dims (tile dims without the subgroups).
  int64_t DataRank() const;
  // Tiles along data dim `dim` (1 for replicated/maximal/manual or past the data rank).
  int64_t TilesAlong(int64_t dim) const;
  // Devices the sharding names: tile_devices.size() for tiled, 1 + device for maximal,
  // 1 otherwise (replicated and manual fit any count).
  int64_t DeviceCount() const;

  // kTiled: where `device` sits in the tile grid (all tile dims), or nullopt when the
  // device is not in the list.
  std::optional<std::vector<int64_t>> TileIndexOf(int64_t device) const;
  // The device at a full tile-grid index.
  int64_t DeviceAt(const std::vector<int64_t>& tile_index) const;

  // The shape one device holds of an array of `global` shape: dims divided by the tiles,
  // rounded up (XLA pads the last tile). Tuples: per element. Layout kept.
  StatusOr<Shape> ShardShape(const Shape& global) const;
  // Where `device`'s tile starts in the global array (per data dim; 0s when the device
  // holds the whole array). Error when the device is not in the sharding.
  StatusOr<std::vector<int64_t>> ShardOffsets(const Shape& global, int64_t device) const;

  // The leaf sharding for a tuple index (a tuple sharding's element, or this one).
  const Sharding& Leaf(size_t index) const;

  // XLA's spelling, braces included: "{devices=[2,1]<=[2]}".
  std::string ToString() const;
  bool SameMeaning(const Sharding& other) const;  // ignores spelling and trailing text
};

// Parses the text after `sharding=` (with or without the outer braces).
StatusOr<Sharding> ParseSharding(std::string_view text);

// The sharding of `inst` (nullopt when it has none); error when its text cannot be read.
StatusOr<std::optional<Sharding>> ShardingOf(const Instruction& inst);

// Devices a module's program runs on: num_partitions × replica_count, widened to what
// its collectives' groups and shardings name.
int64_t DevicesOfModule(const Module& module);

// Whether `module` is a per-device program (its parameters hold tiles): it has
// cross-device collectives or partition-id/replica-id, or its header says
// is_scheduled (XLA's optimized output). A module with Shardy attributes or sharding
// custom-calls is a global program that still needs partitioning.
bool IsPerDeviceProgram(const Module& module);

// Shardy (`xla.sdy.*` frontend attributes, as jax writes them into HLO text).
struct SdyMesh {
  std::string name;                                  // "mesh"
  std::vector<std::pair<std::string, int64_t>> axes;  // ["data"=2, "model"=2]
  std::vector<int64_t> device_ids;                   // empty: iota
  int64_t DeviceCount() const;
};
// One value's sharding: per dim, the mesh axes that split it (major to minor); the axes
// it is replicated over are the rest.
struct SdyTensorSharding {
  std::string mesh;                             // "@mesh" without the @
  std::vector<std::vector<std::string>> dims;   // [{"d"}, {}]
  std::vector<bool> dim_closed;                 // false for {"d", ?} / {?}
  std::vector<std::string> replicated;          // replicated={"x"}
  std::vector<std::string> unreduced;           // unreduced={"x"}
};

// `xla.sdy.meshes` value: "{mesh = #sdy.mesh<[\"d\"=4]>, other = ...}" (escaped or not).
StatusOr<std::vector<SdyMesh>> ParseSdyMeshes(std::string_view text);
// `#sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>, ...]>` or one `#sdy.sharding<...>` or a
// bare list `[<@mesh, ...>, ...]` (in_shardings/out_shardings of a manual computation).
StatusOr<std::vector<SdyTensorSharding>> ParseSdyShardings(std::string_view text);
// `#sdy<manual_axes{"d", "x"}>` or `{"d"}`.
StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view text);
// The GSPMD sharding a Shardy sharding means on `mesh` for an array of `rank` dims.
// Axes in `manual_axes` are left out of the tiles and become a manual subgroup.
StatusOr<Sharding> SdyToSharding(const SdyTensorSharding& sharding, const SdyMesh& mesh,
                                 int64_t rank, const std::vector<std::string>& manual_axes = {});

// A Shardy op sharding rule, as jax attaches it to its custom calls (`xla.sdy.sharding_rule`:
// `#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=6, k=6, l=6, m=6}, custom>`):
// each operand's and result's dims named by factors (a dim of several factors lists them
// major to minor: `[ij]`; names are a letter or `z_N`), each factor's size, and the factors
// a rule marks as not freely split (reduction, need_replication, permutation,
// blocked_propagation).
struct SdyOpShardingRule {
  using Dims = std::vector<std::vector<std::string>>;  // per dim, its factors
  std::vector<Dims> operands;
  std::vector<Dims> results;
  std::vector<std::pair<std::string, int64_t>> sizes;
  std::vector<std::string> restricted;
  bool custom = false;

  // The factor a dim passes through when splitting it splits the op into independent
  // pieces: the dim is that one factor, which names a dim of some operand and some result,
  // only ever alone, and is not restricted. Empty otherwise.
  std::string PassThrough(const std::vector<std::string>& dim) const;
  int64_t SizeOf(const std::string& factor) const;  // -1 when not listed
  // Whether `dims` names every dim of the array `shape`, each pass-through factor with
  // its dim's size.
  bool Fits(const Dims& dims, const Shape& shape) const;
};
StatusOr<SdyOpShardingRule> ParseSdyOpShardingRule(std::string_view text);
class Instruction;
// The rule `inst` carries (frontend attribute `xla.sdy.sharding_rule`); nullopt without one.
StatusOr<std::optional<SdyOpShardingRule>> ShardingRuleOf(const Instruction& inst);

// Frontend attribute values in HLO text are escaped strings; this undoes \" and \\.
std::string UnescapeFrontendValue(std::string_view text);

}  // namespace fusebox
