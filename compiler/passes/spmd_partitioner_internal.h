// Internal to the SPMD partitioner (spmd_partitioner.cc, spmd_rules.cc, spmd_dot.cc): the
// grid a sharding gives each device, the value a partitioned instruction becomes, and the
// Partitioner that walks a computation. Not for use outside those files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/collectives.h"
#include "compiler/ir/module.h"
#include "compiler/ir/sharding.h"
#include "compiler/passes/pass.h"

namespace fusebox::passes {
namespace spmd_internal {

inline constexpr char kPassName[] = "spmd-partitioner";

// --- Grids ------------------------------------------------------------------------------

// One array's sharding seen per device: the tile each device holds (tiles of a dim are
// equal: uneven splits are refused). Devices holding the same tile are numbered by
// `copy` (0, 1, ... in device order), which is what groups them for collectives.
//
// A partially manual sharding (last_tile_dims={manual}: a shard_map over some mesh axes)
// splits the devices into manual groups, each holding a value of its own; within a group
// the array is split automatically. `manual` gives each device its group (the smallest
// device of the group), empty for an automatic sharding. Devices of different groups may
// hold the same tile index but never the same data, so `copy` numbers holders within a
// group and is distinct across groups (group * devices + rank): collectives keyed by it
// stay within a group.
struct Grid {
  std::vector<int64_t> counts;              // tiles per data dim
  std::vector<std::vector<int64_t>> index;  // per device: its tile, per data dim
  std::vector<int64_t> copy;                // per device: rank among holders of its tile
  std::vector<int64_t> manual;              // per device: its manual group; empty: none

  int64_t rank() const { return static_cast<int64_t>(counts.size()); }
  int64_t devices() const { return static_cast<int64_t>(index.size()); }
  bool Replicated() const {
    return std::all_of(counts.begin(), counts.end(), [](int64_t c) { return c == 1; });
  }
  bool SameTiles(const Grid& other) const {
    return counts == other.counts && index == other.index && manual == other.manual;
  }
  bool PartlyManual() const { return !manual.empty(); }
  // What identifies the data device d holds: its tile, and its manual group if any.
  std::vector<int64_t> TileKey(int64_t d) const {
    std::vector<int64_t> key = index[static_cast<size_t>(d)];
    if (!manual.empty()) key.push_back(manual[static_cast<size_t>(d)]);
    return key;
  }
};

// One leaf of a value: its grid, or nullopt for a manual (already per-device) leaf.
using LeafGrid = std::optional<Grid>;

// An instruction of the global computation as partitioned: its per-device instruction,
// its global shape and each leaf's grid.
struct Value {
  Value() = default;
  Value(Instruction* l, Shape g, std::vector<LeafGrid> lv) : local(l), global(std::move(g)), leaves(std::move(lv)) {}

  Instruction* local = nullptr;
  Shape global;
  std::vector<LeafGrid> leaves;  // one per array, one per element of a (flat) tuple
  // An array computed on wider tiles than it is wanted in (an op computed whole along a
  // dim, then sliced to its split): that wider copy, which users wanting wider tiles read
  // instead of gathering the slices again.
  Instruction* wider = nullptr;
  std::optional<Grid> wider_grid;
};

// Renumbers `copy` after `counts` or `index` changed.
void RenumberCopies(Grid& grid);

// Whether `grid` is a tiling: every combination of tile indices is held, each by as many
// devices. A grid put together from two others' dims (an operand's split beside the
// result's) need not be: their devices may pair up the tiles (row tile r only with column
// tile r), leaving tiles that no device holds.
bool IsTiling(const Grid& grid);

// A grid of `rank` whole dims: every device holds everything.
Grid ReplicatedGrid(int64_t rank, int64_t devices);

// A grid of `rank` whole dims in `like`'s manual groups: every device holds everything of
// its group's value.
Grid WholeLike(const Grid& like, int64_t rank);

// `grid` with the dims in `dims` whole on every device.
Grid Relaxed(Grid grid, const std::vector<int64_t>& dims);

// A grid of `rank` dims whose dim k is split as `source`'s dim from[k] (-1: whole).
Grid Derived(const Grid& source, const std::vector<int64_t>& from);

// "{devices=[1,4]...}" for messages; grids come from shardings or are derived.
std::string DescribeGrid(const Grid& g);

// The grid of an array sharding; nullopt for manual. Maximal is computed as replicated.
StatusOr<std::optional<Grid>> GridOf(const Sharding& s, int64_t rank, int64_t devices,
                                     const std::string& where);

// The per-device shape of `global` under `grid`; uneven splits are refused.
StatusOr<Shape> LocalShape(const Grid& grid, const Shape& global, const std::string& where);

// Where device d's tile starts, per dim.
std::vector<int64_t> TileStart(const Grid& grid, const Shape& global, int64_t d);

// Devices grouped by `key`, each group sorted by `order`.
template <typename KeyFn, typename OrderFn>
std::vector<std::vector<int64_t>> GroupDevices(int64_t devices, KeyFn key, OrderFn order) {
  std::map<std::vector<int64_t>, std::vector<int64_t>> by_key;
  for (int64_t d = 0; d < devices; ++d) by_key[key(d)].push_back(d);
  std::vector<std::vector<int64_t>> groups;
  for (auto& [k, members] : by_key) {
    std::stable_sort(members.begin(), members.end(),
                     [&](int64_t a, int64_t b) { return order(a) < order(b); });
    groups.push_back(members);
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

// Replica groups as XLA's text writes them ("{{0,1},{2,3}}").
std::string GroupsText(const std::vector<std::vector<int64_t>>& groups);

// Whether every manual group of `inner` lies within one of `outer`'s (an automatic grid
// is one group of all devices): a nested manual region's groups within its enclosing one's.
bool ManualGroupsWithin(const Grid& inner, const Grid& outer);

// Whether two values' leaves have the same grids (or are both manual).
bool SameLeaves(const std::vector<LeafGrid>& a, const std::vector<LeafGrid>& b);

// The reducer's identity check: the computation is (x, y) -> op(x, y) for one of add,
// multiply, maximum, minimum, and, or, and `init` is that op's identity.
bool InitIsIdentity(const Computation& reducer, const Instruction& init);

// Pieces of a split reduction: every device computes the partial result of one piece
// of the reduced dims; `groups` are the devices whose partials add up to a whole result.
// Valid when each group holds every piece exactly once.
bool GroupsHoldEachPieceOnce(const std::vector<std::vector<int64_t>>& groups,
                             const std::vector<std::vector<int64_t>>& piece, int64_t pieces);

// The dims (a, b) when going from `from` to `to` moves the minor n-way part of dim a's split
// to dim b (a's tile q*n + r becomes q, b's tile p becomes p*n + r) and keeps every other
// dim as it is: what one all-to-all over groups of n devices does.
std::optional<std::pair<int64_t, int64_t>> AllToAllDims(const Grid& from, const Grid& to);

// Whether every device's tile under `to` lies within the one it holds under `from` (a
// local slice, no collective, reaches `to`).
bool HeldCovers(const Grid& from, const Grid& to);

// A halo: the elements a device's windows read beyond its own tile along one dim, before
// (`lo`) and after (`hi`) it (spmd_halo.cc).
struct Halo {
  int64_t lo = 0;
  int64_t hi = 0;
  // The op's padding on the widened tile: 0 but for a base-dilated input (a transposed
  // convolution), whose window may start inside the holes before the first element.
  int64_t local_pad_lo = 0;
  int64_t local_pad_hi = 0;
};

// The halo of a window dim over an input of `input` elements giving `output`, both split
// in `count` even tiles, when it is the same on every device and no wider than a tile;
// nullopt otherwise (window dilation, reversal, uneven tiles, a base dilation with a
// stride).
std::optional<Halo> HaloOf(const WindowDimension& w, int64_t input, int64_t output, int64_t count);

// The dot rule's planning types (spmd_dot.cc).
struct DotDims;

// How the operand that splits the contracting dims splits them.
struct ContractingSplit {
  std::vector<std::vector<int64_t>> piece;  // per device: its piece, per contracting dim
  std::vector<int64_t> ccounts;             // per contracting dim: its tile count
  int64_t pieces = 1;
  std::string text;  // "contracting dim k of %x is split n ways", for the reasons
};

// Where a dot's partial sums are computed and the device groups that reduce them
// (a reduce-scatter along scatter_dim when it is >= 0, else an all-reduce).
struct PartialPlan {
  Grid computed;
  std::vector<std::vector<int64_t>> groups;
  int64_t scatter_dim = -1;
};

// Groups of devices that reduce partial results on `c` so that each group holds each of
// `pieces` pieces once: the devices of one tile of `c`, or, when they hold a piece more than
// once, each copy of the pieces apart (spmd_dot.cc). nullopt when neither does.
std::optional<std::vector<std::vector<int64_t>>> GroupsHoldingEachPiece(const Grid& c,
                                                                        const std::vector<std::vector<int64_t>>& piece,
                                                                        int64_t pieces, int64_t devices);

// The pieces of `src` along its dims `cdims` (spmd_dot.cc): a dot's or convolution's split
// contracting dims, a scatter's split indices.
ContractingSplit SplitOfContractingDims(const Grid& src, const std::vector<int64_t>& cdims,
                                        const std::string& src_name, int64_t devices);

// Where `target`'s partial sums can be computed so that groups of devices hold each piece
// of `split` once, and how they are reduced (spmd_dot.cc); nullopt when nowhere.
std::optional<PartialPlan> PlanPartialSums(const Grid& target, const ContractingSplit& split, int64_t devices);

// --- The partitioner ----------------------------------------------------------------------

// Builds the per-device computations of one module, numbering the channels of the
// collectives it inserts after the module's own.
class Partitioner {
 public:
  Partitioner(Module& module, PassContext& context, int64_t devices)
      : module_(module), context_(context), devices_(devices) {
    int64_t max_channel = 0;
    for (const auto& c : module.computations()) {
      for (const auto& inst : c->instructions()) {
        if (inst->has_attributes() && inst->attrs().channel_id) {
          max_channel = std::max(max_channel, *inst->attrs().channel_id);
        }
      }
    }
    next_channel_ = max_channel + 1;
  }

  // The per-device version of `old`: parameters take `params` (leaves per parameter),
  // the root is resharded to `root`. `entry` keeps parameter and root shardings.
  StatusOr<std::unique_ptr<Computation>> PartitionComputation(
      const Computation& old, const std::vector<std::vector<LeafGrid>>& params,
      const std::vector<LeafGrid>& root, const std::string& name, bool entry);

 private:
  struct Scope {
    Computation* computation = nullptr;
    Instruction* partition_id = nullptr;
    std::unordered_map<const Instruction*, Value> values;
  };

  // Removes what the walk left unused, with the decisions about it.
  void RemoveDeadCode(Computation& computation);

  // --- building blocks ---
  Instruction* Add(Opcode opcode, const std::string& prefix, Shape shape,
                   const std::vector<Instruction*>& operands);
  // As Add, named exactly `name` (an instruction of the global computation this one
  // replaces) unless the new computation already has it.
  Instruction* AddNamed(Opcode opcode, const std::string& name, Shape shape,
                        const std::vector<Instruction*>& operands);
  Instruction* Clone(const Instruction& inst, const std::vector<Instruction*>& operands,
                     const Shape& shape);
  // A grid of `rank` whole dims in the manual groups of the instruction being visited.
  Grid Whole(int64_t rank) const;
  Instruction* PartitionId();
  Instruction* ScalarS32(int64_t value);
  // This device's entry of `per_device` as an s32[] (a constant table indexed by
  // partition-id, or one constant when every device has the same value).
  Instruction* PerDeviceOffset(const std::vector<int64_t>& per_device);
  // A dynamic-slice of `local` at per-device offsets (per device, per dim) to `shape`.
  Instruction* SliceAt(Instruction* local, const std::vector<std::vector<int64_t>>& offsets,
                       const Shape& shape);
  Computation* Adder(PrimitiveType type);
  void Record(Instruction* collective, const std::string& for_instruction,
              const std::string& operand, const std::string& groups, const std::string& reason);
  void RecordAbout(const Instruction& inst, const std::string& kind, int64_t bytes, const std::string& reason);
  void RecordFallback(const Instruction& inst, const std::string& why);
  // An instruction computed whole along dims its sharding splits unevenly (`dims`: which).
  void RecordUneven(const Instruction& inst, const std::string& dims);

  // --- resharding ---
  StatusOr<Instruction*> Reshard(Instruction* local, const Grid& from, const Grid& to,
                                 const Shape& global, const std::string& operand,
                                 const std::string& for_instruction, const std::string& why);
  std::optional<Instruction*> TrySliceTo(Instruction* local, const Grid& from, const Grid& to,
                                         const Shape& global, const std::string& where);
  StatusOr<std::optional<Instruction*>> TryAllToAll(Instruction* local, const Grid& from,
                                                    const Grid& to, const Shape& global,
                                                    const std::string& operand,
                                                    const std::string& for_instruction,
                                                    const std::string& why);
  // Tiles that only change devices (the same tiles, another device order): one
  // collective-permute; nullopt otherwise.
  std::optional<Instruction*> TryPermute(Instruction* local, const Grid& from, const Grid& to,
                                         const std::string& operand, const std::string& for_instruction,
                                         const std::string& why);
  StatusOr<Instruction*> AllGather(Instruction* local, Grid& grid, int64_t dim, const Shape& global,
                                   const std::string& operand, const std::string& for_instruction,
                                   const std::string& why);
  StatusOr<Instruction*> ReshardValue(const Value& value, const std::vector<LeafGrid>& to,
                                      const std::string& operand,
                                      const std::string& for_instruction, const std::string& why);
  // Operand i of `inst` as an array with `grid`.
  StatusOr<Instruction*> Operand(const Instruction& inst, int64_t i, const Grid& grid,
                                 const std::string& why);
  StatusOr<Grid> OperandGrid(const Instruction& inst, int64_t i);

  // --- rules (spmd_rules.cc; the dot rule in spmd_dot.cc) ---
  // The grids `inst` is wanted in: its sharding's, with dims its tiles would split
  // unevenly made whole (recorded) except on entry parameters.
  StatusOr<std::vector<LeafGrid>> TargetLeaves(const Instruction& inst);
  // Its sharding's grids as they are.
  StatusOr<std::vector<LeafGrid>> ShardedLeaves(const Instruction& inst);
  StatusOr<Value> Visit(const Instruction& inst);
  StatusOr<Value> VisitRules(const Instruction& inst, const std::vector<LeafGrid>& target);
  // The custom calls that mark shardings: SPMDFullToShardShape, SPMDShardToFullShape and
  // Sharding.
  StatusOr<Value> ShardingMarker(const Instruction& inst, const std::string& target_name,
                                 const std::vector<LeafGrid>& target);
  StatusOr<Value> Parameter(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> GetTupleElement(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> Tuple(const Instruction& inst, const std::vector<LeafGrid>& target);
  // The rules for an array-shaped result with an automatic sharding `t`.
  StatusOr<Value> ArrayOp(const Instruction& inst, const Grid& t,
                          const std::vector<LeafGrid>& target);
  StatusOr<Value> Finish(const Instruction& inst, Instruction* local, const Grid& computed,
                         const Grid& target);
  StatusOr<Value> Elementwise(const Instruction& inst, const Grid& target);
  StatusOr<Value> Dot(const Instruction& inst, const Grid& target);
  StatusOr<Instruction*> LocalDot(const Instruction& inst, const Grid& c, const Grid& lg,
                                  const Grid& rg, const std::string& why);
  // Reduces `partial` (inst's partial sums, on plan.computed) by the plan, then reshards
  // it to `target`; with `reducer` (a scalar binary computation) instead of a sum.
  StatusOr<Value> ReducePartialSums(const Instruction& inst, Instruction* partial, const Grid& target,
                                    const PartialPlan& plan, const ContractingSplit& split,
                                    Computation* reducer = nullptr);
  StatusOr<Value> Reduce(const Instruction& inst, const std::vector<LeafGrid>& target);
  // A variadic reduce's partial results (a tuple on each device) gathered over `groups`
  // along a new last dim of `pieces` and reduced again along it.
  StatusOr<Instruction*> CombineVariadicPartials(const Instruction& inst, Instruction* partial,
                                                 const std::vector<std::vector<int64_t>>& groups, int64_t pieces,
                                                 const std::vector<Instruction*>& inits, const std::string& split_text);
  StatusOr<Value> Reshape(const Instruction& inst, const Grid& target);
  StatusOr<Value> AlongUnsplitDims(const Instruction& inst, const Grid& target);
  StatusOr<Value> Windowed(const Instruction& inst, const Grid& target);
  bool SlicedAlong(const Instruction& inst, int64_t i, int64_t k, int64_t n);
  // The rotation a concatenation along dim k is (jnp.roll: slices of one array along k whose
  // pieces follow each other around it, [s, size) then [0, s)): s, or nullopt.
  std::optional<int64_t> RotationAlong(const Instruction& inst, int64_t k, int64_t n);
  StatusOr<Value> Convolution(const Instruction& inst, const Grid& target);
  StatusOr<Value> Reverse(const Instruction& inst, const Grid& target);
  StatusOr<Value> DynamicUpdateSlice(const Instruction& inst, const Grid& target);
  // gather and scatter (spmd_gather.cc).
  StatusOr<Value> Gather(const Instruction& inst, const Grid& target);
  StatusOr<Value> Scatter(const Instruction& inst, const Grid& target);
  StatusOr<std::optional<Value>> ScatterPartialSums(const Instruction& inst, const Grid& computed, const Grid& target,
                                                    const std::vector<int64_t>& index_dims,
                                                    const std::vector<int64_t>& update_scatter,
                                                    const std::vector<int64_t>& update_from);
  Instruction* IndexComponent(Instruction* indices, int64_t ivd, int64_t k);
  Instruction* JoinIndexComponents(const std::vector<Instruction*>& parts, const Shape& shape, int64_t ivd);
  Instruction* LocalIndex(Instruction* component, const std::vector<int64_t>& offsets, int64_t size, int64_t tile,
                          bool clamp, Instruction** in_tile);
  StatusOr<Value> Iota(const Instruction& inst, const Grid& target);
  StatusOr<Value> ReduceWindow(const Instruction& inst, const Grid& target);
  // `local` (a tile of `grid`) widened along dim k by the halo from its neighbours, the
  // global edges filled with the scalar `pad` (spmd_halo.cc).
  StatusOr<Instruction*> WithHalo(Instruction* local, const Grid& grid, int64_t k, const Halo& halo, Instruction* pad,
                                  const std::string& for_instruction, const std::string& operand);
  // `local` (a tile of `grid` along dim k of a dim of `size` elements) as the window of
  // `length` elements starting at global element starts[d] on device d, the elements
  // beyond [0, size) the scalar `pad`: the parts of other devices' tiles the windows reach
  // come by one collective-permute per tile distance (spmd_halo.cc). `why` completes each
  // collective's reason after the instruction's name. With `wrap` the dim is a ring (a
  // rotation's windows): element i + size is element i, nothing lies beyond, and the tiles
  // a window reaches past the last come from the first devices.
  StatusOr<Instruction*> WindowAlong(Instruction* local, const Grid& grid, int64_t k, int64_t size,
                                     const std::vector<int64_t>& starts, int64_t length, Instruction* pad,
                                     const std::string& for_instruction, const std::string& operand,
                                     const std::string& why, bool wrap = false);
  StatusOr<Value> SortAlongOneDim(const Instruction& inst, const std::vector<LeafGrid>& target);
  // A custom call carrying a Shardy sharding rule (jax's LAPACK calls: `xla.sdy.sharding_rule`)
  // split along its pass-through factors; nullopt when it carries none.
  std::optional<StatusOr<Value>> CustomCallByShardingRule(const Instruction& inst,
                                                          const std::vector<LeafGrid>& target);
  StatusOr<Value> ControlFlow(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> Manual(const Instruction& inst, const std::vector<LeafGrid>& target);
  // A collective the user wrote in a partially manual region (its groups across the
  // manual groups): computed on tiles its groups' devices share; nullopt when they do not.
  StatusOr<std::optional<Value>> UserCollective(const Instruction& inst, const Grid& target);
  // The manual groups of `inst`'s target and operands (empty when none is partially
  // manual); an error when they differ.
  StatusOr<std::vector<int64_t>> ManualGroupsOf(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> Fallback(const Instruction& inst, const std::vector<LeafGrid>& target,
                           const std::string& why);

  Module& module_;
  PassContext& context_;
  int64_t devices_;
  int64_t next_channel_ = 1;
  std::map<PrimitiveType, Computation*> adders_;
  Scope* scope_ = nullptr;
  // The manual groups of the instruction being visited (empty: not partially manual), and
  // the first collective the partitioner inserted that crossed them (Record checks).
  std::vector<int64_t> manual_;
  std::string manual_violation_;
};

}  // namespace spmd_internal
}  // namespace fusebox::passes
