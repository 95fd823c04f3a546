// The SPMD partitioner (see spmd_partitioner.h): one walk over each computation in post
// order that builds the per-device computation beside the global one.
//
// Sections: grids (a sharding as each device's tile) · building blocks (offsets from
// partition-id, collectives with their decisions) · resharding · the rules per opcode ·
// the pass · NeedsSpmdPartitioning · FormatCollectiveDecisions.
#include "compiler/passes/spmd_partitioner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"

namespace fusebox {
namespace {

constexpr char kPassName[] = "spmd-partitioner";

// --- Grids ------------------------------------------------------------------------------

// One array's sharding seen per device: the tile each device holds (tiles of a dim are
// equal: uneven splits are refused). Devices holding the same tile are numbered by
// `copy` (0, 1, ... in device order), which is what groups them for collectives.
struct Grid {
  std::vector<int64_t> counts;              // tiles per data dim
  std::vector<std::vector<int64_t>> index;  // per device: its tile, per data dim
  std::vector<int64_t> copy;                // per device: rank among holders of its tile

  int64_t rank() const { return static_cast<int64_t>(counts.size()); }
  int64_t devices() const { return static_cast<int64_t>(index.size()); }
  bool Replicated() const {
    return std::all_of(counts.begin(), counts.end(), [](int64_t c) { return c == 1; });
  }
  bool SameTiles(const Grid& other) const { return counts == other.counts && index == other.index; }
};

void RenumberCopies(Grid& grid) {
  std::map<std::vector<int64_t>, int64_t> seen;
  grid.copy.assign(grid.index.size(), 0);
  for (size_t d = 0; d < grid.index.size(); ++d) grid.copy[d] = seen[grid.index[d]]++;
}

Grid ReplicatedGrid(int64_t rank, int64_t devices) {
  Grid g;
  g.counts.assign(rank, 1);
  g.index.assign(devices, std::vector<int64_t>(rank, 0));
  RenumberCopies(g);
  return g;
}

// `grid` with the dims in `dims` whole on every device.
Grid Relaxed(Grid grid, const std::vector<int64_t>& dims) {
  for (int64_t dim : dims) {
    grid.counts[dim] = 1;
    for (auto& idx : grid.index) idx[dim] = 0;
  }
  RenumberCopies(grid);
  return grid;
}

// A grid of `rank` dims whose dim k is split as `source`'s dim from[k] (-1: whole).
Grid Derived(const Grid& source, const std::vector<int64_t>& from) {
  Grid g;
  g.counts.assign(from.size(), 1);
  g.index.assign(source.devices(), std::vector<int64_t>(from.size(), 0));
  for (size_t k = 0; k < from.size(); ++k) {
    if (from[k] < 0) continue;
    g.counts[k] = source.counts[from[k]];
    for (int64_t d = 0; d < source.devices(); ++d) g.index[d][k] = source.index[d][from[k]];
  }
  RenumberCopies(g);
  return g;
}

// "{devices=[1,4]...}" for messages; grids come from shardings or are derived.
std::string DescribeGrid(const Grid& g) {
  if (g.Replicated()) return "replicated";
  std::string out = "split [";
  for (int64_t k = 0; k < g.rank(); ++k) out += (k ? "," : "") + std::to_string(g.counts[k]);
  return out + "]";
}

// The grid of an array sharding; nullopt for manual. Maximal is computed as replicated.
StatusOr<std::optional<Grid>> GridOf(const Sharding& s, int64_t rank, int64_t devices,
                                     const std::string& where) {
  switch (s.kind) {
    case Sharding::Kind::kReplicated:
    case Sharding::Kind::kMaximal:
      return std::optional<Grid>(ReplicatedGrid(rank, devices));
    case Sharding::Kind::kManual:
      return std::optional<Grid>();
    case Sharding::Kind::kUnknown:
      return InvalidArgument(where +
                             ": sharding {unknown} must be resolved before spmd-partitioner");
    case Sharding::Kind::kTuple:
      return InvalidArgument(where + ": tuple sharding on an array");
    case Sharding::Kind::kTiled:
      break;
  }
  if (s.IsManual()) return std::optional<Grid>();
  for (SubgroupKind kind : s.subgroups) {
    if (kind != SubgroupKind::kReplicated) {
      return InvalidArgument(where + ": sharding " + s.ToString() +
                             " mixes manual and automatic dims (partially manual shardings are not "
                             "supported by spmd-partitioner)");
    }
  }
  if (s.DataRank() != rank) {
    return InvalidArgument(where + ": sharding " + s.ToString() + " has " +
                           std::to_string(s.DataRank()) + " data dims for a rank-" +
                           std::to_string(rank) + " array");
  }
  if (static_cast<int64_t>(s.tile_devices.size()) != devices) {
    return InvalidArgument(where + ": sharding " + s.ToString() + " names " +
                           std::to_string(s.tile_devices.size()) + " devices; the module has " +
                           std::to_string(devices) + " partitions");
  }
  Grid g;
  g.counts.assign(s.tile_dims.begin(), s.tile_dims.begin() + rank);
  g.index.resize(devices);
  for (int64_t d = 0; d < devices; ++d) {
    std::optional<std::vector<int64_t>> idx = s.TileIndexOf(d);
    if (!idx) {
      return InvalidArgument(where + ": sharding " + s.ToString() + " does not place device " +
                             std::to_string(d));
    }
    g.index[d].assign(idx->begin(), idx->begin() + rank);
  }
  RenumberCopies(g);
  return std::optional<Grid>(std::move(g));
}

// The per-device shape of `global` under `grid`; uneven splits are refused.
StatusOr<Shape> LocalShape(const Grid& grid, const Shape& global, const std::string& where) {
  if (!global.IsArray()) return global;
  if (global.rank() != grid.rank()) {
    return InvalidArgument(where + ": a rank-" + std::to_string(grid.rank()) +
                           " sharding for a rank-" + std::to_string(global.rank()) + " array");
  }
  Shape local = global;
  for (int64_t k = 0; k < grid.rank(); ++k) {
    const int64_t n = global.dimensions(k), t = grid.counts[k];
    if (n % t != 0) {
      return InvalidArgument(where + ": dim " + std::to_string(k) + " of size " +
                             std::to_string(n) + " does not split evenly into " +
                             std::to_string(t) +
                             " tiles (uneven shardings are not supported by spmd-partitioner)");
    }
    local.set_dimension(k, n / t);
  }
  return local;
}

// Where device d's tile starts, per dim.
std::vector<int64_t> TileStart(const Grid& grid, const Shape& global, int64_t d) {
  std::vector<int64_t> start(grid.rank());
  for (int64_t k = 0; k < grid.rank(); ++k) {
    start[k] = grid.index[d][k] * (global.dimensions(k) / grid.counts[k]);
  }
  return start;
}

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

std::string GroupsText(const std::vector<std::vector<int64_t>>& groups) {
  ReplicaGroups rg;
  rg.groups = groups;
  return rg.ToString();
}

// One leaf of a value: its grid, or nullopt for a manual (already per-device) leaf.
using LeafGrid = std::optional<Grid>;

struct Value {
  Instruction* local = nullptr;
  Shape global;
  std::vector<LeafGrid> leaves;  // one per array, one per element of a (flat) tuple
};

bool SameLeaves(const std::vector<LeafGrid>& a, const std::vector<LeafGrid>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].has_value() != b[i].has_value()) return false;
    if (a[i] && !a[i]->SameTiles(*b[i])) return false;
  }
  return true;
}

// The reducer's identity check: the computation is (x, y) -> op(x, y) for one of add,
// multiply, maximum, minimum, and, or, and `init` is that op's identity.
bool InitIsIdentity(const Computation& reducer, const Instruction& init) {
  const Instruction* root = reducer.root();
  if (root == nullptr || reducer.parameter_count() != 2 || root->operand_count() != 2) return false;
  if (root->operand(0)->opcode() != Opcode::kParameter ||
      root->operand(1)->opcode() != Opcode::kParameter || root->operand(0) == root->operand(1)) {
    return false;
  }
  if (init.opcode() != Opcode::kConstant || init.literal() == nullptr || !init.shape().IsScalar() ||
      init.literal()->element_count() != 1) {
    return false;
  }
  const Literal& lit = *init.literal();
  const PrimitiveType type = init.shape().element_type();
  const bool is_float = IsFloat(type);
  switch (root->opcode()) {
    case Opcode::kAdd:
      return is_float ? lit.GetDouble(0) == 0.0 : lit.GetInt64(0) == 0;
    case Opcode::kMultiply:
      return is_float ? lit.GetDouble(0) == 1.0 : lit.GetInt64(0) == 1;
    case Opcode::kMaximum:
      return is_float && std::isinf(lit.GetDouble(0)) && lit.GetDouble(0) < 0;
    case Opcode::kMinimum:
      return is_float && std::isinf(lit.GetDouble(0)) && lit.GetDouble(0) > 0;
    case Opcode::kAnd:
      return type == PrimitiveType::kPred && lit.GetBool(0);
    case Opcode::kOr:
      return type == PrimitiveType::kPred && !lit.GetBool(0);
    default:
      return false;
  }
}

// Pieces of a split reduction: every device computes the partial result of one piece
// of the reduced dims; `groups` are the devices whose partials add up to a whole result.
// Valid when each group holds every piece exactly once.
bool GroupsHoldEachPieceOnce(const std::vector<std::vector<int64_t>>& groups,
                             const std::vector<std::vector<int64_t>>& piece, int64_t pieces) {
  for (const auto& group : groups) {
    if (static_cast<int64_t>(group.size()) != pieces) return false;
    std::set<std::vector<int64_t>> seen;
    for (int64_t d : group) {
      if (!seen.insert(piece[d]).second) return false;
    }
  }
  return true;
}

// The dims (a, b) when going from `from` to `to` moves one split from dim a to dim b over
// the same devices and keeps every other dim as it is: what one all-to-all does.
std::optional<std::pair<int64_t, int64_t>> AllToAllDims(const Grid& from, const Grid& to) {
  if (from.rank() != to.rank() || from.devices() != to.devices()) return std::nullopt;
  int64_t a = -1, b = -1;
  for (int64_t k = 0; k < from.rank(); ++k) {
    if (from.counts[k] == to.counts[k]) {
      for (int64_t d = 0; d < from.devices(); ++d) {
        if (from.index[d][k] != to.index[d][k]) return std::nullopt;
      }
      continue;
    }
    if (from.counts[k] > 1 && to.counts[k] == 1 && a < 0) {
      a = k;
    } else if (from.counts[k] == 1 && to.counts[k] > 1 && b < 0) {
      b = k;
    } else {
      return std::nullopt;
    }
  }
  if (a < 0 || b < 0 || from.counts[a] != to.counts[b]) return std::nullopt;
  for (int64_t d = 0; d < from.devices(); ++d) {
    if (from.index[d][a] != to.index[d][b]) return std::nullopt;
  }
  return std::make_pair(a, b);
}

// Whether every device's tile under `to` lies within the one it holds under `from` (a
// local slice, no collective, reaches `to`).
bool HeldCovers(const Grid& from, const Grid& to) {
  if (from.rank() != to.rank() || from.devices() != to.devices()) return false;
  for (int64_t k = 0; k < from.rank(); ++k) {
    if (to.counts[k] % from.counts[k] != 0) return false;
    const int64_t per = to.counts[k] / from.counts[k];
    for (int64_t d = 0; d < from.devices(); ++d) {
      if (to.index[d][k] / per != from.index[d][k]) return false;
    }
  }
  return true;
}

// --- The partitioner ----------------------------------------------------------------------

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

  // --- building blocks ---
  Instruction* Add(Opcode opcode, const std::string& prefix, Shape shape,
                   const std::vector<Instruction*>& operands);
  // As Add, named exactly `name` (an instruction of the global computation this one
  // replaces) unless the new computation already has it.
  Instruction* AddNamed(Opcode opcode, const std::string& name, Shape shape,
                        const std::vector<Instruction*>& operands);
  Instruction* Clone(const Instruction& inst, const std::vector<Instruction*>& operands,
                     const Shape& shape);
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
  void RecordFallback(const Instruction& inst, const std::string& why);

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

  // --- rules ---
  StatusOr<std::vector<LeafGrid>> TargetLeaves(const Instruction& inst);
  StatusOr<Value> Visit(const Instruction& inst);
  StatusOr<Value> Finish(const Instruction& inst, Instruction* local, const Grid& computed,
                         const Grid& target);
  StatusOr<Value> Elementwise(const Instruction& inst, const Grid& target);
  StatusOr<Value> Dot(const Instruction& inst, const Grid& target);
  StatusOr<Value> Reduce(const Instruction& inst, const Grid& target);
  StatusOr<Value> Reshape(const Instruction& inst, const Grid& target);
  StatusOr<Value> AlongUnsplitDims(const Instruction& inst, const Grid& target);
  StatusOr<Value> Convolution(const Instruction& inst, const Grid& target);
  StatusOr<Value> Iota(const Instruction& inst, const Grid& target);
  StatusOr<Value> ControlFlow(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> Manual(const Instruction& inst, const std::vector<LeafGrid>& target);
  StatusOr<Value> Fallback(const Instruction& inst, const std::vector<LeafGrid>& target,
                           const std::string& why);

  Module& module_;
  PassContext& context_;
  int64_t devices_;
  int64_t next_channel_ = 1;
  std::map<PrimitiveType, Computation*> adders_;
  Scope* scope_ = nullptr;
};

// --- Building blocks ----------------------------------------------------------------------

Instruction* Partitioner::Add(Opcode opcode, const std::string& prefix, Shape shape,
                              const std::vector<Instruction*>& operands) {
  if (shape.IsArray() && !shape.has_layout()) shape.SetDefaultLayout();
  auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(prefix), std::move(shape));
  for (Instruction* operand : operands) inst->AppendOperand(operand);
  return scope_->computation->AddInstruction(std::move(inst));
}

Instruction* Partitioner::AddNamed(Opcode opcode, const std::string& name, Shape shape,
                                   const std::vector<Instruction*>& operands) {
  if (scope_->computation->FindInstruction(name) != nullptr)
    return Add(opcode, name, shape, operands);
  if (shape.IsArray() && !shape.has_layout()) shape.SetDefaultLayout();
  auto inst = std::make_unique<Instruction>(opcode, name, std::move(shape));
  for (Instruction* operand : operands) inst->AppendOperand(operand);
  return scope_->computation->AddInstruction(std::move(inst));
}

Instruction* Partitioner::Clone(const Instruction& inst, const std::vector<Instruction*>& operands,
                                const Shape& shape) {
  std::string name = inst.name();
  if (scope_->computation->FindInstruction(name) != nullptr) name = module_.UniqueName(name);
  std::unique_ptr<Instruction> clone = inst.CloneWithOperands(operands, name);
  clone->set_shape(shape);
  if (clone->has_attributes()) {
    clone->mutable_attrs().has_sharding = false;
    clone->mutable_attrs().sharding.clear();
  }
  return scope_->computation->AddInstruction(std::move(clone));
}

Instruction* Partitioner::PartitionId() {
  if (scope_->partition_id == nullptr) {
    scope_->partition_id =
        Add(Opcode::kPartitionId, "partition-id", Shape::Scalar(PrimitiveType::kU32), {});
  }
  return scope_->partition_id;
}

Instruction* Partitioner::ScalarS32(int64_t value) {
  Shape shape = Shape::Scalar(PrimitiveType::kS32);
  auto literal = std::make_unique<Literal>(shape);
  literal->SetInt64(0, value);
  Instruction* c = Add(Opcode::kConstant, "constant", shape, {});
  c->set_literal(std::move(literal));
  return c;
}

Instruction* Partitioner::PerDeviceOffset(const std::vector<int64_t>& per_device) {
  if (std::all_of(per_device.begin(), per_device.end(),
                  [&](int64_t v) { return v == per_device[0]; })) {
    return ScalarS32(per_device[0]);
  }
  Shape table_shape(PrimitiveType::kS32, {devices_});
  auto literal = std::make_unique<Literal>(table_shape);
  for (int64_t d = 0; d < devices_; ++d) literal->SetInt64(d, per_device[d]);
  Instruction* table = Add(Opcode::kConstant, "offsets", table_shape, {});
  table->set_literal(std::move(literal));
  Instruction* entry = Add(Opcode::kDynamicSlice, "dynamic-slice", Shape(PrimitiveType::kS32, {1}),
                           {table, PartitionId()});
  entry->mutable_attrs().dynamic_slice_sizes = {1};
  return Add(Opcode::kReshape, "reshape", Shape::Scalar(PrimitiveType::kS32), {entry});
}

Instruction* Partitioner::SliceAt(Instruction* local,
                                  const std::vector<std::vector<int64_t>>& offsets,
                                  const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<Instruction*> operands = {local};
  for (int64_t k = 0; k < rank; ++k) {
    std::vector<int64_t> per_device(devices_);
    for (int64_t d = 0; d < devices_; ++d) per_device[d] = offsets[d][k];
    operands.push_back(PerDeviceOffset(per_device));
  }
  Instruction* slice = Add(Opcode::kDynamicSlice, "dynamic-slice", shape, operands);
  slice->mutable_attrs().dynamic_slice_sizes = shape.dimensions();
  return slice;
}

Computation* Partitioner::Adder(PrimitiveType type) {
  auto it = adders_.find(type);
  if (it != adders_.end()) return it->second;
  auto comp = std::make_unique<Computation>(module_.UniqueName("add"));
  comp->set_parent(&module_);
  Shape scalar = Shape::Scalar(type);
  scalar.SetDefaultLayout();
  auto x = std::make_unique<Instruction>(Opcode::kParameter, module_.UniqueName("x"), scalar);
  x->set_parameter_number(0);
  auto y = std::make_unique<Instruction>(Opcode::kParameter, module_.UniqueName("y"), scalar);
  y->set_parameter_number(1);
  Instruction* px = comp->AddInstruction(std::move(x));
  Instruction* py = comp->AddInstruction(std::move(y));
  auto sum = std::make_unique<Instruction>(Opcode::kAdd, module_.UniqueName("add"), scalar);
  sum->AppendOperand(px);
  sum->AppendOperand(py);
  comp->set_root(comp->AddInstruction(std::move(sum)));
  Computation* raw = module_.AddComputation(std::move(comp));
  adders_[type] = raw;
  return raw;
}

void Partitioner::Record(Instruction* collective, const std::string& for_instruction,
                         const std::string& operand, const std::string& groups,
                         const std::string& reason) {
  CollectiveDecision decision;
  decision.pass = kPassName;
  decision.computation = scope_->computation->name();
  decision.collective = collective->name();
  decision.kind = std::string(OpcodeName(collective->opcode()));
  decision.for_instruction = for_instruction;
  decision.operand = operand;
  decision.groups = groups;
  decision.bytes_per_device = std::max<int64_t>(collective->shape().ByteSize(), 0);
  decision.reason = reason;
  context_.RecordCollective(std::move(decision));
}

void Partitioner::RecordFallback(const Instruction& inst, const std::string& why) {
  CollectiveDecision decision;
  decision.pass = kPassName;
  decision.computation = scope_->computation->name();
  decision.collective = inst.name();
  decision.kind = "replicated-fallback";
  decision.for_instruction = inst.name();
  decision.bytes_per_device = std::max<int64_t>(inst.shape().ByteSize(), 0);
  decision.reason = "replicated fallback: %" + inst.name() + " (" +
                    std::string(OpcodeName(inst.opcode())) +
                    ") is computed whole on every device: " + why;
  context_.RecordCollective(std::move(decision));
}

// --- Resharding ---------------------------------------------------------------------------

std::optional<Instruction*> Partitioner::TrySliceTo(Instruction* local, const Grid& from,
                                                    const Grid& to, const Shape& global,
                                                    const std::string& where) {
  StatusOr<Shape> from_shape = LocalShape(from, global, where);
  StatusOr<Shape> to_shape = LocalShape(to, global, where);
  if (!from_shape.ok() || !to_shape.ok()) return std::nullopt;
  std::vector<std::vector<int64_t>> offsets(devices_);
  for (int64_t d = 0; d < devices_; ++d) {
    std::vector<int64_t> held = TileStart(from, global, d), want = TileStart(to, global, d);
    offsets[d].resize(global.rank());
    for (int64_t k = 0; k < global.rank(); ++k) {
      const int64_t off = want[k] - held[k];
      if (off < 0 || off + to_shape->dimensions(k) > from_shape->dimensions(k)) return std::nullopt;
      offsets[d][k] = off;
    }
  }
  if (from_shape->dimensions() == to_shape->dimensions()) return local;  // same tiles
  Shape shape = *to_shape;
  return SliceAt(local, offsets, shape);
}

StatusOr<Instruction*> Partitioner::AllGather(Instruction* local, Grid& grid, int64_t dim,
                                              const Shape& global, const std::string& operand,
                                              const std::string& for_instruction,
                                              const std::string& why) {
  const int64_t count = grid.counts[dim];
  auto groups = GroupDevices(
      devices_,
      [&](int64_t d) {
        std::vector<int64_t> key = grid.index[d];
        key[dim] = 0;
        key.push_back(grid.copy[d]);
        return key;
      },
      [&](int64_t d) { return grid.index[d][dim]; });
  for (const auto& group : groups) {
    for (int64_t r = 0; r < static_cast<int64_t>(group.size()); ++r) {
      if (static_cast<int64_t>(group.size()) != count || grid.index[group[r]][dim] != r) {
        return Internal("%" + for_instruction + ": cannot form all-gather groups along dim " +
                        std::to_string(dim) + " of %" + operand);
      }
    }
  }
  Shape shape = local->shape();
  shape.set_dimension(dim, shape.dimensions(dim) * count);
  Instruction* gather = Add(Opcode::kAllGather, "all-gather", shape, {local});
  InstructionAttributes& attrs = gather->mutable_attrs();
  attrs.channel_id = next_channel_++;
  attrs.replica_groups = ReplicaGroups{};
  attrs.replica_groups->groups = groups;
  attrs.dimensions = std::vector<int64_t>{dim};
  attrs.use_global_device_ids = true;
  const std::string text = GroupsText(groups);
  Record(gather, for_instruction, operand, text,
         "all-gather of %" + operand + " along dim " + std::to_string(dim) + " over " + text +
             ": " + why);
  grid = Relaxed(grid, {dim});
  (void)global;
  return gather;
}

StatusOr<std::optional<Instruction*>> Partitioner::TryAllToAll(Instruction* local, const Grid& from,
                                                               const Grid& to, const Shape& global,
                                                               const std::string& operand,
                                                               const std::string& for_instruction,
                                                               const std::string& why) {
  const int64_t rank = from.rank();
  const std::optional<std::pair<int64_t, int64_t>> moved_split = AllToAllDims(from, to);
  if (!moved_split) return std::optional<Instruction*>();
  const int64_t a = moved_split->first, b = moved_split->second;
  const int64_t n = from.counts[a];
  ASSIGN_OR_RETURN(Shape to_shape, LocalShape(to, global, "%" + for_instruction));
  auto groups = GroupDevices(
      devices_,
      [&](int64_t d) {
        std::vector<int64_t> key = from.index[d];
        key[a] = 0;
        key.push_back(from.copy[d]);
        return key;
      },
      [&](int64_t d) { return from.index[d][a]; });
  for (const auto& group : groups) {
    if (static_cast<int64_t>(group.size()) != n) return std::optional<Instruction*>();
  }
  // Split dim b into (n, B/n), exchange along the n, then make the received pieces
  // (ordered by the sender's tile of dim a) the major part of dim a.
  const Shape& held = local->shape();
  std::vector<int64_t> split_dims;
  for (int64_t k = 0; k < rank; ++k) {
    if (k == b) {
      split_dims.push_back(n);
      split_dims.push_back(held.dimensions(k) / n);
    } else {
      split_dims.push_back(held.dimensions(k));
    }
  }
  Shape split_shape(held.element_type(), split_dims);
  Instruction* split = Add(Opcode::kReshape, "reshape", split_shape, {local});
  Instruction* exchange = Add(Opcode::kAllToAll, "all-to-all", split_shape, {split});
  InstructionAttributes& attrs = exchange->mutable_attrs();
  attrs.channel_id = next_channel_++;
  attrs.replica_groups = ReplicaGroups{};
  attrs.replica_groups->groups = groups;
  attrs.dimensions = std::vector<int64_t>{b};
  const std::string text = GroupsText(groups);
  Record(exchange, for_instruction, operand, text,
         "all-to-all of %" + operand + " over " + text + ": moves its " + std::to_string(n) +
             "-way split from dim " + std::to_string(a) + " to dim " + std::to_string(b) + "; " +
             why);
  const int64_t a_split = a < b ? a : a + 1;  // dim a's position after the split
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < rank + 1; ++k) {
    if (k == b) continue;
    if (k == a_split) perm.push_back(b);
    perm.push_back(k);
  }
  std::vector<int64_t> moved_dims;
  for (int64_t p : perm) moved_dims.push_back(split_dims[p]);
  Instruction* moved =
      Add(Opcode::kTranspose, "transpose", Shape(held.element_type(), moved_dims), {exchange});
  moved->mutable_attrs().dimensions = perm;
  Shape out = to_shape;
  out.clear_layout();
  return std::optional<Instruction*>(Add(Opcode::kReshape, "reshape", out, {moved}));
}

StatusOr<Instruction*> Partitioner::Reshard(Instruction* local, const Grid& from, const Grid& to,
                                            const Shape& global, const std::string& operand,
                                            const std::string& for_instruction,
                                            const std::string& why) {
  if (from.SameTiles(to)) return local;
  const std::string where = "%" + for_instruction;
  RETURN_IF_ERROR(LocalShape(to, global, where).status());
  if (auto sliced = TrySliceTo(local, from, to, global, where)) return *sliced;
  ASSIGN_OR_RETURN(std::optional<Instruction*> exchanged,
                   TryAllToAll(local, from, to, global, operand, for_instruction, why));
  if (exchanged) return *exchanged;
  // Gather the dims split differently from the target; then everything if the target's
  // tile still is not within the held one.
  Grid grid = from;
  Instruction* x = local;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t k = 0; k < grid.rank(); ++k) {
      if (grid.counts[k] == 1) continue;
      bool differs = pass == 1 || grid.counts[k] != to.counts[k];
      for (int64_t d = 0; d < devices_ && !differs; ++d)
        differs = grid.index[d][k] != to.index[d][k];
      if (!differs) continue;
      ASSIGN_OR_RETURN(x, AllGather(x, grid, k, global, operand, for_instruction, why));
    }
    if (auto sliced = TrySliceTo(x, grid, to, global, where)) return *sliced;
  }
  return Internal(where + ": could not reshard %" + operand);
}

StatusOr<Instruction*> Partitioner::ReshardValue(const Value& value,
                                                 const std::vector<LeafGrid>& to,
                                                 const std::string& operand,
                                                 const std::string& for_instruction,
                                                 const std::string& why) {
  if (SameLeaves(value.leaves, to)) return value.local;
  if (value.leaves.size() != to.size()) {
    return Internal("%" + for_instruction + ": leaf count mismatch resharding %" + operand);
  }
  for (size_t i = 0; i < to.size(); ++i) {
    if (value.leaves[i].has_value() != to[i].has_value()) {
      return InvalidArgument("%" + for_instruction + ": %" + operand +
                             " would move between a manual and an automatic sharding without "
                             "SPMDFullToShardShape / SPMDShardToFullShape");
    }
  }
  if (!value.global.IsTuple()) {
    return Reshard(value.local, *value.leaves[0], *to[0], value.global, operand, for_instruction,
                   why);
  }
  std::vector<Instruction*> elements;
  for (int64_t i = 0; i < value.global.tuple_size(); ++i) {
    Instruction* element = Add(Opcode::kGetTupleElement, "get-tuple-element",
                               value.local->shape().tuple_shapes(i), {value.local});
    element->mutable_attrs().tuple_index = i;
    if (to[i]) {
      ASSIGN_OR_RETURN(
          element, Reshard(element, *value.leaves[i], *to[i], value.global.tuple_shapes(i), operand,
                           for_instruction, why + " (tuple element " + std::to_string(i) + ")"));
    }
    elements.push_back(element);
  }
  std::vector<Shape> shapes;
  for (Instruction* e : elements) shapes.push_back(e->shape());
  return Add(Opcode::kTuple, "tuple", Shape::Tuple(shapes), elements);
}

StatusOr<Grid> Partitioner::OperandGrid(const Instruction& inst, int64_t i) {
  const Value& v = scope_->values.at(inst.operand(i));
  if (v.global.IsTuple() || v.leaves.size() != 1) {
    return InvalidArgument("%" + inst.name() + ": operand %" + inst.operand(i)->name() +
                           " is a tuple where an array is expected");
  }
  if (!v.leaves[0]) {
    return InvalidArgument("%" + inst.name() + ": operand %" + inst.operand(i)->name() +
                           " is manual (per-device) but %" + inst.name() +
                           " is not; a manual region must end with SPMDShardToFullShape");
  }
  return *v.leaves[0];
}

StatusOr<Instruction*> Partitioner::Operand(const Instruction& inst, int64_t i, const Grid& grid,
                                            const std::string& why) {
  ASSIGN_OR_RETURN(Grid from, OperandGrid(inst, i));
  const Value& v = scope_->values.at(inst.operand(i));
  return Reshard(v.local, from, grid, v.global, inst.operand(i)->name(), inst.name(), why);
}

// --- Rules ----------------------------------------------------------------------------------

StatusOr<std::vector<LeafGrid>> Partitioner::TargetLeaves(const Instruction& inst) {
  const std::string where = "%" + inst.name();
  ASSIGN_OR_RETURN(std::optional<Sharding> sharding, ShardingOf(inst));
  Sharding s = sharding ? *sharding : Sharding::Replicated();
  std::vector<LeafGrid> leaves;
  if (!inst.shape().IsTuple()) {
    if (s.IsTuple()) {
      if (s.elements.size() != 1) return InvalidArgument(where + ": tuple sharding on an array");
      s = s.elements[0];
    }
    const int64_t rank = inst.shape().IsArray() ? inst.shape().rank() : 0;
    if (!inst.shape().IsArray()) s = s.IsManual() ? Sharding::Manual() : Sharding::Replicated();
    ASSIGN_OR_RETURN(LeafGrid g, GridOf(s, rank, devices_, where));
    leaves.push_back(std::move(g));
    return leaves;
  }
  if (s.IsTuple() && static_cast<int64_t>(s.elements.size()) != inst.shape().tuple_size()) {
    return InvalidArgument(where + ": tuple sharding has " + std::to_string(s.elements.size()) +
                           " elements for a tuple of " + std::to_string(inst.shape().tuple_size()));
  }
  for (int64_t i = 0; i < inst.shape().tuple_size(); ++i) {
    const Shape& element = inst.shape().tuple_shapes(i);
    if (element.IsTuple()) {
      return InvalidArgument(where + ": nested tuples are not supported by spmd-partitioner");
    }
    Sharding leaf = s.Leaf(static_cast<size_t>(i));
    if (!element.IsArray()) leaf = leaf.IsManual() ? Sharding::Manual() : Sharding::Replicated();
    ASSIGN_OR_RETURN(LeafGrid g, GridOf(leaf, element.IsArray() ? element.rank() : 0, devices_,
                                        where + " (tuple element " + std::to_string(i) + ")"));
    leaves.push_back(std::move(g));
  }
  return leaves;
}

StatusOr<Value> Partitioner::Finish(const Instruction& inst, Instruction* local,
                                    const Grid& computed, const Grid& target) {
  ASSIGN_OR_RETURN(Instruction * out,
                   Reshard(local, computed, target, inst.shape(), inst.name(), inst.name(),
                           "%" + inst.name() + " is wanted " + DescribeGrid(target)));
  return Value{out, inst.shape(), {target}};
}

StatusOr<Value> Partitioner::Elementwise(const Instruction& inst, const Grid& target) {
  ASSIGN_OR_RETURN(Shape local_shape, LocalShape(target, inst.shape(), "%" + inst.name()));
  std::vector<Instruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    Grid want = s.rank() == 0 ? ReplicatedGrid(0, devices_) : target;
    ASSIGN_OR_RETURN(Instruction * op, Operand(inst, i, want,
                                               "%" + inst.name() +
                                                   " needs its operands split as "
                                                   "its result (" +
                                                   DescribeGrid(want) + ")"));
    operands.push_back(op);
  }
  return Value{Clone(inst, operands, local_shape), inst.shape(), {target}};
}

StatusOr<Value> Partitioner::Dot(const Instruction& inst, const Grid& target) {
  const DotDimensionNumbers& dn = *inst.attrs().dot_dimension_numbers;
  const int64_t lrank = inst.operand(0)->shape().rank(), rrank = inst.operand(1)->shape().rank();
  auto free_dims = [](int64_t rank, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    std::vector<int64_t> out;
    for (int64_t k = 0; k < rank; ++k) {
      if (std::find(batch.begin(), batch.end(), k) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), k) == contracting.end()) {
        out.push_back(k);
      }
    }
    return out;
  };
  const std::vector<int64_t> lfree =
      free_dims(lrank, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  const std::vector<int64_t> rfree =
      free_dims(rrank, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  const int64_t nc = static_cast<int64_t>(dn.lhs_contracting_dimensions.size());
  // Operand grids for a result computed as `c`, with contracting dim i split by piece[d][i]
  // (counts ccounts; empty piece: contracting dims whole).
  auto operand_grids = [&](const Grid& c, const std::vector<std::vector<int64_t>>& piece,
                           const std::vector<int64_t>& ccounts) {
    std::vector<int64_t> lfrom(lrank, -1), rfrom(rrank, -1);
    for (int64_t i = 0; i < nb; ++i) {
      lfrom[dn.lhs_batch_dimensions[i]] = i;
      rfrom[dn.rhs_batch_dimensions[i]] = i;
    }
    for (size_t i = 0; i < lfree.size(); ++i) lfrom[lfree[i]] = nb + static_cast<int64_t>(i);
    for (size_t i = 0; i < rfree.size(); ++i) {
      rfrom[rfree[i]] = nb + static_cast<int64_t>(lfree.size() + i);
    }
    Grid lg = Derived(c, lfrom), rg = Derived(c, rfrom);
    if (!piece.empty()) {
      for (int64_t i = 0; i < nc; ++i) {
        const int64_t lk = dn.lhs_contracting_dimensions[i], rk = dn.rhs_contracting_dimensions[i];
        lg.counts[lk] = ccounts[i];
        rg.counts[rk] = ccounts[i];
        for (int64_t d = 0; d < devices_; ++d) {
          lg.index[d][lk] = piece[d][i];
          rg.index[d][rk] = piece[d][i];
        }
      }
      RenumberCopies(lg);
      RenumberCopies(rg);
    }
    return std::make_pair(lg, rg);
  };
  auto local_dot = [&](const Grid& c, const Grid& lg, const Grid& rg,
                       const std::string& why) -> StatusOr<Instruction*> {
    ASSIGN_OR_RETURN(Shape shape, LocalShape(c, inst.shape(), "%" + inst.name()));
    ASSIGN_OR_RETURN(Instruction * lhs, Operand(inst, 0, lg, why));
    ASSIGN_OR_RETURN(Instruction * rhs, Operand(inst, 1, rg, why));
    return Clone(inst, {lhs, rhs}, shape);
  };

  // Contracting dims split on an operand: partial sums, reduced over the devices that
  // hold the pieces of one result tile.
  ASSIGN_OR_RETURN(Grid lcur, OperandGrid(inst, 0));
  ASSIGN_OR_RETURN(Grid rcur, OperandGrid(inst, 1));
  const bool lhs_split =
      std::any_of(dn.lhs_contracting_dimensions.begin(), dn.lhs_contracting_dimensions.end(),
                  [&](int64_t k) { return lcur.counts[k] > 1; });
  const bool rhs_split =
      std::any_of(dn.rhs_contracting_dimensions.begin(), dn.rhs_contracting_dimensions.end(),
                  [&](int64_t k) { return rcur.counts[k] > 1; });
  if (lhs_split || rhs_split) {
    const Grid& src = lhs_split ? lcur : rcur;
    const std::vector<int64_t>& cdims =
        lhs_split ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
    const std::string src_name = inst.operand(lhs_split ? 0 : 1)->name();
    std::vector<std::vector<int64_t>> piece(devices_);
    std::vector<int64_t> ccounts;
    int64_t pieces = 1;
    for (int64_t k : cdims) {
      ccounts.push_back(src.counts[k]);
      pieces *= src.counts[k];
    }
    for (int64_t d = 0; d < devices_; ++d) {
      for (int64_t k : cdims) piece[d].push_back(src.index[d][k]);
    }
    std::string split_text;
    for (size_t i = 0; i < cdims.size(); ++i) {
      if (src.counts[cdims[i]] == 1) continue;
      if (!split_text.empty()) split_text += ", ";
      split_text += "contracting dim " + std::to_string(cdims[i]) + " of %" + src_name +
                    " is split " + std::to_string(src.counts[cdims[i]]) + " ways";
    }
    const std::string why = "%" + inst.name() + " computes partial sums where " + split_text;
    // Where the partial sums are computed and how they are reduced: (1) on the dot's own
    // grid when its copies hold the pieces (all-reduce); (2) with one split dim j of it
    // made whole when its devices hold the pieces (reduce-scatter along j); (3) whole on
    // every device (all-reduce, then slice).
    auto tile_groups = [&](const Grid& c) {
      return GroupDevices(
          devices_, [&](int64_t d) { return c.index[d]; }, [&](int64_t d) { return d; });
    };
    struct PartialPlan {
      Grid computed;
      std::vector<std::vector<int64_t>> groups;
      int64_t scatter_dim = -1;
    };
    std::optional<PartialPlan> plan;
    if (auto groups = tile_groups(target); GroupsHoldEachPieceOnce(groups, piece, pieces)) {
      plan = PartialPlan{target, groups, -1};
    }
    for (int64_t j = 0; !plan && j < target.rank(); ++j) {
      if (target.counts[j] == 1) continue;
      auto rs_groups = GroupDevices(
          devices_,
          [&](int64_t d) {
            std::vector<int64_t> key = target.index[d];
            key[j] = 0;
            key.push_back(target.copy[d]);
            return key;
          },
          [&](int64_t d) { return target.index[d][j]; });
      if (GroupsHoldEachPieceOnce(rs_groups, piece, pieces) && pieces == target.counts[j])
        plan = PartialPlan{Relaxed(target, {j}), rs_groups, j};
    }
    if (!plan) {
      Grid whole = ReplicatedGrid(target.rank(), devices_);
      if (auto all = tile_groups(whole); GroupsHoldEachPieceOnce(all, piece, pieces))
        plan = PartialPlan{whole, all, -1};
    }
    // (0) XLA's choice when the result splits an lhs-free dim and an rhs-free dim over
    // different devices and one operand splits the contracting dims: gather that operand
    // along them (over the devices that split them) so the dot is local, rather than
    // move the other operand's split with an all-to-all and reduce partial sums, when the
    // gather brings no more bytes to a device than that plan hands to its collectives.
    // Bytes compared: what the all-gather adds to each device, against what that plan
    // hands to its collectives per device (the other operand's tile, the partial sums).
    auto gather_instead = [&](int64_t gi) -> std::optional<std::string> {
      const int64_t oi = 1 - gi;
      const Grid& gcur = gi == 0 ? lcur : rcur;
      const Grid& ocur = gi == 0 ? rcur : lcur;
      const int64_t nl = static_cast<int64_t>(lfree.size());
      std::set<std::vector<int64_t>> pairs;
      for (int64_t d = 0; d < devices_; ++d) {
        const std::vector<int64_t>& idx = target.index[d];
        pairs.insert(std::vector<int64_t>(idx.begin() + nb, idx.end()));
      }
      int64_t lcount = 1, rcount = 1;
      for (int64_t k = nb; k < target.rank(); ++k)
        (k < nb + nl ? lcount : rcount) *= target.counts[k];
      if (lcount == 1 || rcount == 1 || static_cast<int64_t>(pairs.size()) != lcount * rcount)
        return std::nullopt;
      const std::vector<int64_t>& gcdims =
          gi == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
      auto [lg_local, rg_local] = operand_grids(target, {}, {});
      auto [lg_part, rg_part] = operand_grids(plan->computed, piece, ccounts);
      const Grid& g_local = gi == 0 ? lg_local : rg_local;
      const Grid& o_local = gi == 0 ? rg_local : lg_local;
      const Grid& g_part = gi == 0 ? lg_part : rg_part;
      const Grid& o_part = gi == 0 ? rg_part : lg_part;
      // Gathering moves only the split operand's contracting dims; the partial-sum plan
      // moves only the other operand, by one all-to-all.
      if (!HeldCovers(ocur, o_local) || !HeldCovers(Relaxed(gcur, gcdims), g_local)) {
        return std::nullopt;
      }
      if (!HeldCovers(gcur, g_part) || HeldCovers(ocur, o_part) || !AllToAllDims(ocur, o_part)) {
        return std::nullopt;
      }
      const Instruction& gop = *inst.operand(gi);
      const Instruction& oop = *inst.operand(oi);
      StatusOr<Shape> gtile = LocalShape(gcur, gop.shape(), gop.name());
      StatusOr<Shape> otile = LocalShape(ocur, oop.shape(), oop.name());
      StatusOr<Shape> partial = LocalShape(plan->computed, inst.shape(), inst.name());
      if (!gtile.ok() || !otile.ok() || !partial.ok()) return std::nullopt;
      int64_t ways = 1;
      std::string dims_text;
      for (int64_t k : gcdims) {
        ways *= gcur.counts[k];
        if (gcur.counts[k] > 1) dims_text += (dims_text.empty() ? "" : ",") + std::to_string(k);
      }
      const int64_t gathered = gtile->ByteSize() * (ways - 1);
      const int64_t moved = otile->ByteSize(), reduced = partial->ByteSize();
      if (gathered < 0 || moved < 0 || reduced < 0 || gathered > moved + reduced) {
        return std::nullopt;
      }
      return "%" + inst.name() + " splits lhs-free and rhs-free dims over different devices (" +
             DescribeGrid(target) + "): gathering contracting dim " + dims_text + " of %" +
             gop.name() + " makes it local and brings " + std::to_string(gathered) +
             " B to each device, not more than an all-to-all of %" + oop.name() + " (" +
             std::to_string(moved) + " B/device) and a " +
             (plan->scatter_dim >= 0 ? "reduce-scatter" : "all-reduce") + " of partial sums (" +
             std::to_string(reduced) + " B/device)";
    };
    if (plan && lhs_split != rhs_split) {
      const std::optional<std::string> gather_why = gather_instead(lhs_split ? 0 : 1);
      if (gather_why) {
        auto [lg, rg] = operand_grids(target, {}, {});
        ASSIGN_OR_RETURN(Instruction * local, local_dot(target, lg, rg, *gather_why));
        return Value{local, inst.shape(), {target}};
      }
    }
    if (plan) {
      const bool scatter = plan->scatter_dim >= 0;
      auto [lg, rg] = operand_grids(plan->computed, piece, ccounts);
      ASSIGN_OR_RETURN(Instruction * partial, local_dot(plan->computed, lg, rg, why));
      const std::string text = GroupsText(plan->groups);
      Shape out = partial->shape();
      if (scatter) {
        ASSIGN_OR_RETURN(out, LocalShape(target, inst.shape(), "%" + inst.name()));
      }
      Instruction* sum = Add(scatter ? Opcode::kReduceScatter : Opcode::kAllReduce,
                             scatter ? "reduce-scatter" : "all-reduce", out, {partial});
      InstructionAttributes& attrs = sum->mutable_attrs();
      attrs.channel_id = next_channel_++;
      attrs.replica_groups = ReplicaGroups{};
      attrs.replica_groups->groups = plan->groups;
      attrs.use_global_device_ids = true;
      if (scatter) attrs.dimensions = std::vector<int64_t>{plan->scatter_dim};
      sum->AppendCalledComputation(Adder(inst.shape().element_type()));
      sum->set_call_form(CallForm::kToApply);
      if (scatter) {
        const std::string j = std::to_string(plan->scatter_dim);
        Record(sum, inst.name(), inst.name(), text,
               "reduce-scatter of %" + inst.name() + " along dim " + j + " over " + text + ": " +
                   split_text + " and %" + inst.name() + " is split along dim " + j +
                   " over the same devices");
        return Value{sum, inst.shape(), {target}};
      }
      Record(sum, inst.name(), inst.name(), text,
             "all-reduce of %" + inst.name() + " over " + text + ": " + split_text);
      if (plan->computed.SameTiles(target)) return Value{sum, inst.shape(), {target}};
      return Finish(inst, sum, plan->computed, target);
    }
  }
  // Contracting dims whole: batch and free dims split as the result, no reduction.
  auto [lg, rg] = operand_grids(target, {}, {});
  ASSIGN_OR_RETURN(Instruction * local,
                   local_dot(target, lg, rg,
                             "%" + inst.name() +
                                 " needs its contracting dims whole and its batch "
                                 "and free dims split as its result (" +
                                 DescribeGrid(target) + ")"));
  return Value{local, inst.shape(), {target}};
}

StatusOr<Value> Partitioner::Reduce(const Instruction& inst, const Grid& target) {
  const Instruction& operand = *inst.operand(0);
  const std::vector<int64_t>& reduced = inst.dimensions();
  const int64_t rank = operand.shape().rank();
  std::vector<int64_t> kept_from(rank, -1);  // operand dim -> result dim
  int64_t next = 0;
  for (int64_t k = 0; k < rank; ++k) {
    if (std::find(reduced.begin(), reduced.end(), k) == reduced.end()) kept_from[k] = next++;
  }
  ASSIGN_OR_RETURN(Grid cur, OperandGrid(inst, 0));
  std::vector<int64_t> split;  // reduced dims the operand holds split
  for (int64_t k : reduced) {
    if (cur.counts[k] > 1) split.push_back(k);
  }
  Instruction* init = scope_->values.at(inst.operand(1)).local;
  if (!split.empty() && InitIsIdentity(*inst.to_apply(), *inst.operand(1))) {
    std::vector<std::vector<int64_t>> piece(devices_);
    int64_t pieces = 1;
    for (int64_t k : split) pieces *= cur.counts[k];
    for (int64_t d = 0; d < devices_; ++d) {
      for (int64_t k : split) piece[d].push_back(cur.index[d][k]);
    }
    std::string split_text;
    for (int64_t k : split) {
      split_text += std::string(split_text.empty() ? "" : ", ") + "reduced dim " +
                    std::to_string(k) + " of %" + operand.name() + " is split " +
                    std::to_string(cur.counts[k]) + " ways";
    }
    for (const Grid& c : {target, ReplicatedGrid(target.rank(), devices_)}) {
      auto groups = GroupDevices(
          devices_, [&](int64_t d) { return c.index[d]; }, [&](int64_t d) { return d; });
      if (!GroupsHoldEachPieceOnce(groups, piece, pieces)) continue;
      Grid want = Derived(c, kept_from);
      for (int64_t k : split) {
        want.counts[k] = cur.counts[k];
        for (int64_t d = 0; d < devices_; ++d) want.index[d][k] = cur.index[d][k];
      }
      RenumberCopies(want);
      ASSIGN_OR_RETURN(Shape shape, LocalShape(c, inst.shape(), "%" + inst.name()));
      ASSIGN_OR_RETURN(Instruction * op,
                       Operand(inst, 0, want,
                               "%" + inst.name() + " reduces partial pieces where " + split_text));
      Instruction* partial = Clone(inst, {op, init}, shape);
      Instruction* sum = Add(Opcode::kAllReduce, "all-reduce", shape, {partial});
      InstructionAttributes& attrs = sum->mutable_attrs();
      attrs.channel_id = next_channel_++;
      attrs.replica_groups = ReplicaGroups{};
      attrs.replica_groups->groups = groups;
      attrs.use_global_device_ids = true;
      sum->AppendCalledComputation(inst.to_apply());
      sum->set_call_form(CallForm::kToApply);
      const std::string text = GroupsText(groups);
      Record(sum, inst.name(), inst.name(), text,
             "all-reduce of %" + inst.name() + " over " + text + " with %" +
                 inst.to_apply()->name() + ": " + split_text);
      return Finish(inst, sum, c, target);
    }
  }
  Grid want = Derived(target, kept_from);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(target, inst.shape(), "%" + inst.name()));
  std::string why = "%" + inst.name() + " needs its reduced dims whole";
  if (!split.empty() && !InitIsIdentity(*inst.to_apply(), *inst.operand(1))) {
    why += " (its init value is not a known identity of %" + inst.to_apply()->name() + ")";
  }
  ASSIGN_OR_RETURN(Instruction * op, Operand(inst, 0, want, why));
  return Value{Clone(inst, {op, init}, shape), inst.shape(), {target}};
}

StatusOr<Value> Partitioner::Reshape(const Instruction& inst, const Grid& target) {
  const Shape& in = inst.operand(0)->shape();
  const Shape& out = inst.shape();
  // Group input and output dims whose sizes multiply to the same number.
  std::vector<int64_t> in_from(in.rank(), -1);
  std::vector<int64_t> unsplittable;
  int64_t i = 0, o = 0;
  while (i < in.rank() || o < out.rank()) {
    std::vector<int64_t> ins, outs;
    int64_t pi = 1, po = 1;
    if (i < in.rank()) {
      pi *= in.dimensions(i);
      ins.push_back(i++);
    }
    if (o < out.rank()) {
      po *= out.dimensions(o);
      outs.push_back(o++);
    }
    while (pi != po) {
      if (pi < po && i < in.rank()) {
        pi *= in.dimensions(i);
        ins.push_back(i++);
      } else if (po < pi && o < out.rank()) {
        po *= out.dimensions(o);
        outs.push_back(o++);
      } else {
        break;
      }
    }
    auto major = [](const Shape& s, const std::vector<int64_t>& dims) -> int64_t {
      for (int64_t d : dims) {
        if (s.dimensions(d) > 1) return d;
      }
      return dims.empty() ? -1 : dims[0];
    };
    const int64_t in_major = major(in, ins), out_major = major(out, outs);
    for (int64_t d : outs) {
      if (target.counts[d] == 1) continue;
      const bool ok = d == out_major && in_major >= 0 && pi == po &&
                      in.dimensions(in_major) % target.counts[d] == 0 &&
                      out.dimensions(d) % target.counts[d] == 0;
      if (ok) {
        in_from[in_major] = d;
      } else {
        unsplittable.push_back(d);
      }
    }
  }
  Grid computed = Relaxed(target, unsplittable);
  Grid want = Derived(computed, in_from);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(computed, out, "%" + inst.name()));
  ASSIGN_OR_RETURN(
      Instruction * op,
      Operand(inst, 0, want, "%" + inst.name() + " maps its input's tiles to its result's tiles"));
  return Finish(inst, Clone(inst, {op}, shape), computed, target);
}

// Ops that keep their operand's dims and change some of them (slice, pad, reverse,
// concatenate, dynamic-slice, dynamic-update-slice): computed with those dims whole.
StatusOr<Value> Partitioner::AlongUnsplitDims(const Instruction& inst, const Grid& target) {
  const Shape& global = inst.shape();
  const int64_t rank = global.rank();
  std::vector<int64_t> changed;
  const InstructionAttributes& attrs = inst.attrs();
  const Shape& in = inst.operand(0)->shape();
  for (int64_t k = 0; k < rank; ++k) {
    bool c = false;
    switch (inst.opcode()) {
      case Opcode::kSlice:
        c = in.dimensions(k) != global.dimensions(k) || attrs.slice[k].stride != 1;
        break;
      case Opcode::kPad: {
        const PaddingDimension& p = attrs.padding[k];
        c = p.low != 0 || p.high != 0 || p.interior != 0;
        break;
      }
      case Opcode::kReverse:
      case Opcode::kConcatenate: {
        const auto& dims = inst.dimensions();
        c = std::find(dims.begin(), dims.end(), k) != dims.end();
        break;
      }
      case Opcode::kDynamicSlice:
        c = in.dimensions(k) != global.dimensions(k);
        break;
      case Opcode::kDynamicUpdateSlice:
        c = inst.operand(1)->shape().dimensions(k) != global.dimensions(k);
        break;
      default:
        c = true;
    }
    if (c) changed.push_back(k);
  }
  Grid computed = Relaxed(target, changed);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(computed, global, "%" + inst.name()));
  std::vector<Instruction*> operands;
  const std::string why = "%" + inst.name() + " needs the dims it changes whole";
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    const bool array_operand = inst.operand(k)->shape().rank() == rank && rank > 0;
    Grid want =
        array_operand ? computed : ReplicatedGrid(inst.operand(k)->shape().rank(), devices_);
    ASSIGN_OR_RETURN(Instruction * op, Operand(inst, k, want, why));
    operands.push_back(op);
  }
  Instruction* local = Clone(inst, operands, shape);
  if (inst.opcode() == Opcode::kSlice) {
    for (int64_t k = 0; k < rank; ++k) {
      if (computed.counts[k] > 1) local->mutable_attrs().slice[k].limit = shape.dimensions(k);
    }
  }
  if (inst.opcode() == Opcode::kDynamicSlice) {
    local->mutable_attrs().dynamic_slice_sizes = shape.dimensions();
  }
  return Finish(inst, local, computed, target);
}

StatusOr<Value> Partitioner::Convolution(const Instruction& inst, const Grid& target) {
  const ConvolutionDimensionNumbers& dn = *inst.attrs().convolution_dimension_numbers;
  std::vector<int64_t> spatial = dn.output_spatial_dimensions;
  Grid computed = Relaxed(target, spatial);
  std::vector<int64_t> lfrom(inst.operand(0)->shape().rank(), -1);
  std::vector<int64_t> rfrom(inst.operand(1)->shape().rank(), -1);
  lfrom[dn.input_batch_dimension] = dn.output_batch_dimension;
  rfrom[dn.kernel_output_feature_dimension] = dn.output_feature_dimension;
  ASSIGN_OR_RETURN(Shape shape, LocalShape(computed, inst.shape(), "%" + inst.name()));
  const std::string why = "%" + inst.name() + " is computed split on batch and output feature only";
  ASSIGN_OR_RETURN(Instruction * lhs, Operand(inst, 0, Derived(computed, lfrom), why));
  ASSIGN_OR_RETURN(Instruction * rhs, Operand(inst, 1, Derived(computed, rfrom), why));
  return Finish(inst, Clone(inst, {lhs, rhs}, shape), computed, target);
}

StatusOr<Value> Partitioner::Iota(const Instruction& inst, const Grid& target) {
  ASSIGN_OR_RETURN(Shape shape, LocalShape(target, inst.shape(), "%" + inst.name()));
  Instruction* local = Clone(inst, {}, shape);
  const int64_t dim = inst.attrs().iota_dimension;
  if (dim < 0 || dim >= target.rank() || target.counts[dim] == 1) {
    return Value{local, inst.shape(), {target}};
  }
  std::vector<int64_t> offsets(devices_);
  for (int64_t d = 0; d < devices_; ++d) offsets[d] = target.index[d][dim] * shape.dimensions(dim);
  Instruction* offset = PerDeviceOffset(offsets);
  const PrimitiveType type = shape.element_type();
  if (type != PrimitiveType::kS32) {
    offset = Add(Opcode::kConvert, "convert", Shape::Scalar(type), {offset});
  }
  Shape bshape = shape;
  Instruction* spread = Add(Opcode::kBroadcast, "broadcast", bshape, {offset});
  spread->mutable_attrs().dimensions = std::vector<int64_t>{};
  return Value{Add(Opcode::kAdd, "add", shape, {local, spread}), inst.shape(), {target}};
}

StatusOr<Value> Partitioner::ControlFlow(const Instruction& inst,
                                         const std::vector<LeafGrid>& target) {
  // Leaves of a computation's parameter: its own sharding when it has one.
  auto param_leaves =
      [&](const Computation& c, int64_t i,
          const std::vector<LeafGrid>& fallback) -> StatusOr<std::vector<LeafGrid>> {
    const Instruction* p = c.parameter(i);
    if (p == nullptr)
      return InvalidArgument("%" + c.name() + " lacks parameter " + std::to_string(i));
    if (!p->has_attributes() || !p->attrs().has_sharding) return fallback;
    return TargetLeaves(*p);
  };
  auto partition = [&](const Computation& c, const std::vector<std::vector<LeafGrid>>& params,
                       const std::vector<LeafGrid>& root) -> StatusOr<Computation*> {
    Scope* saved = scope_;
    auto result =
        PartitionComputation(c, params, root, module_.UniqueName(c.name() + "_spmd"), false);
    scope_ = saved;
    if (!result.ok()) return result.status();
    return module_.AddComputation(std::move(*result));
  };
  const std::string why = "%" + inst.name() + " passes it to its called computation";
  if (inst.opcode() == Opcode::kWhile) {
    const Value& state = scope_->values.at(inst.operand(0));
    ASSIGN_OR_RETURN(Instruction * init,
                     ReshardValue(state, target, inst.operand(0)->name(), inst.name(), why));
    std::vector<LeafGrid> pred_leaves = {ReplicatedGrid(0, devices_)};
    ASSIGN_OR_RETURN(Computation * cond, partition(*inst.while_condition(), {target}, pred_leaves));
    ASSIGN_OR_RETURN(Computation * body, partition(*inst.while_body(), {target}, target));
    Instruction* local = Clone(inst, {init}, init->shape());
    local->set_called_computation(0, cond);
    local->set_called_computation(1, body);
    return Value{local, inst.shape(), target};
  }
  if (inst.opcode() == Opcode::kCall) {
    const Computation& callee = *inst.to_apply();
    std::vector<Instruction*> operands;
    std::vector<std::vector<LeafGrid>> params;
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      const Value& v = scope_->values.at(inst.operand(i));
      ASSIGN_OR_RETURN(std::vector<LeafGrid> want, param_leaves(callee, i, v.leaves));
      ASSIGN_OR_RETURN(Instruction * op,
                       ReshardValue(v, want, inst.operand(i)->name(), inst.name(), why));
      operands.push_back(op);
      params.push_back(want);
    }
    ASSIGN_OR_RETURN(Computation * body, partition(callee, params, target));
    Instruction* local = Clone(inst, operands, body->root()->shape());
    local->set_called_computation(0, body);
    return Value{local, inst.shape(), target};
  }
  // Conditional: operand 0 picks the branch, operand i+1 goes to branch i.
  std::vector<Instruction*> operands;
  ASSIGN_OR_RETURN(Instruction * selector,
                   Operand(inst, 0, ReplicatedGrid(inst.operand(0)->shape().rank(), devices_),
                           "%" + inst.name() + " needs its branch selector on every device"));
  operands.push_back(selector);
  std::vector<Computation*> branches;
  for (int64_t b = 0; b < static_cast<int64_t>(inst.called_computations().size()); ++b) {
    const Computation& branch = *inst.called_computation(b);
    const Value& v = scope_->values.at(inst.operand(b + 1));
    ASSIGN_OR_RETURN(std::vector<LeafGrid> want, param_leaves(branch, 0, v.leaves));
    ASSIGN_OR_RETURN(Instruction * op,
                     ReshardValue(v, want, inst.operand(b + 1)->name(), inst.name(), why));
    operands.push_back(op);
    ASSIGN_OR_RETURN(Computation * local_branch, partition(branch, {want}, target));
    branches.push_back(local_branch);
  }
  Instruction* local =
      Clone(inst, operands, branches.empty() ? inst.shape() : branches[0]->root()->shape());
  for (size_t b = 0; b < branches.size(); ++b)
    local->set_called_computation(static_cast<int64_t>(b), branches[b]);
  return Value{local, inst.shape(), target};
}

StatusOr<Value> Partitioner::Manual(const Instruction& inst, const std::vector<LeafGrid>& target) {
  std::vector<Instruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Value& v = scope_->values.at(inst.operand(i));
    bool ok = true;
    for (const LeafGrid& leaf : v.leaves) ok = ok && (!leaf || leaf->Replicated());
    if (!ok) {
      return InvalidArgument("%" + inst.name() + ": manual instruction reads %" +
                             inst.operand(i)->name() +
                             ", which is split automatically; a manual region must start with "
                             "SPMDFullToShardShape");
    }
    operands.push_back(v.local);
  }
  return Value{Clone(inst, operands, inst.shape()), inst.shape(), target};
}

StatusOr<Value> Partitioner::Fallback(const Instruction& inst, const std::vector<LeafGrid>& target,
                                      const std::string& why) {
  RecordFallback(inst, why);
  std::vector<Instruction*> operands;
  const std::string need = "%" + inst.name() + " needs it replicated (replicated fallback)";
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Value& v = scope_->values.at(inst.operand(i));
    std::vector<LeafGrid> whole;
    for (size_t l = 0; l < v.leaves.size(); ++l) {
      if (!v.leaves[l]) {
        return InvalidArgument("%" + inst.name() + ": operand %" + inst.operand(i)->name() +
                               " is manual (per-device) but %" + inst.name() + " is not");
      }
      whole.push_back(ReplicatedGrid(v.leaves[l]->rank(), devices_));
    }
    ASSIGN_OR_RETURN(Instruction * op,
                     ReshardValue(v, whole, inst.operand(i)->name(), inst.name(), need));
    operands.push_back(op);
  }
  Instruction* local = Clone(inst, operands, inst.shape());
  std::vector<LeafGrid> whole;
  for (const LeafGrid& leaf : target) {
    if (!leaf)
      return InvalidArgument("%" + inst.name() + ": a manual result outside a manual region");
    whole.push_back(ReplicatedGrid(leaf->rank(), devices_));
  }
  Value computed{local, inst.shape(), whole};
  ASSIGN_OR_RETURN(Instruction * out, ReshardValue(computed, target, inst.name(), inst.name(),
                                                   "%" + inst.name() + " is wanted split"));
  return Value{out, inst.shape(), target};
}

StatusOr<Value> Partitioner::Visit(const Instruction& inst) {
  ASSIGN_OR_RETURN(std::vector<LeafGrid> target, TargetLeaves(inst));
  const bool manual =
      std::all_of(target.begin(), target.end(), [](const LeafGrid& l) { return !l; });
  const bool array = !inst.shape().IsTuple() && inst.shape().IsArray();
  const std::string target_name = inst.has_attributes() && inst.attrs().has_custom_call_target
                                      ? inst.attrs().custom_call_target
                                      : std::string();
  if (inst.opcode() == Opcode::kCustomCall && target_name == "SPMDFullToShardShape") {
    const Value& v = scope_->values.at(inst.operand(0));
    if (v.leaves.size() != 1 || !v.leaves[0]) {
      return InvalidArgument("%" + inst.name() +
                             ": SPMDFullToShardShape of a value that is not split automatically");
    }
    if (!v.local->shape().SameDimensions(inst.shape())) {
      return InvalidArgument("%" + inst.name() + ": SPMDFullToShardShape gives " +
                             inst.shape().ToString(false) + " but %" + inst.operand(0)->name() +
                             "'s tile is " + v.local->shape().ToString(false));
    }
    Instruction* local = AddNamed(Opcode::kCopy, inst.name(), inst.shape(), {v.local});
    return Value{local, inst.shape(), {std::nullopt}};
  }
  if (inst.opcode() == Opcode::kCustomCall && target_name == "SPMDShardToFullShape") {
    const Value& v = scope_->values.at(inst.operand(0));
    if (!array || target.size() != 1 || !target[0]) {
      return InvalidArgument("%" + inst.name() +
                             ": SPMDShardToFullShape needs an array with an automatic sharding");
    }
    ASSIGN_OR_RETURN(Shape shape, LocalShape(*target[0], inst.shape(), "%" + inst.name()));
    if (!v.local->shape().SameDimensions(shape)) {
      return InvalidArgument("%" + inst.name() + ": SPMDShardToFullShape of a " +
                             v.local->shape().ToString(false) +
                             " tile, but its sharding's tile is " + shape.ToString(false));
    }
    return Value{AddNamed(Opcode::kCopy, inst.name(), shape, {v.local}), inst.shape(), target};
  }
  if (inst.opcode() == Opcode::kCustomCall && target_name == "Sharding") {
    const Value& v = scope_->values.at(inst.operand(0));
    ASSIGN_OR_RETURN(Instruction * op, ReshardValue(v, target, inst.operand(0)->name(), inst.name(),
                                                    "sharding constraint %" + inst.name()));
    return Value{AddNamed(Opcode::kCopy, inst.name(), op->shape(), {op}), inst.shape(), target};
  }
  if (manual && inst.opcode() != Opcode::kParameter) return Manual(inst, target);
  switch (inst.opcode()) {
    case Opcode::kParameter: {
      std::vector<Shape> shapes;
      Shape local_shape = inst.shape();
      if (inst.shape().IsTuple()) {
        for (int64_t i = 0; i < inst.shape().tuple_size(); ++i) {
          Shape s = inst.shape().tuple_shapes(i);
          if (target[i]) {
            ASSIGN_OR_RETURN(s, LocalShape(*target[i], s, "%" + inst.name()));
          }
          (*local_shape.mutable_tuple_shapes())[i] = s;
        }
      } else if (target[0]) {
        ASSIGN_OR_RETURN(local_shape, LocalShape(*target[0], inst.shape(), "%" + inst.name()));
      }
      return Value{Clone(inst, {}, local_shape), inst.shape(), target};
    }
    case Opcode::kConstant: {
      Instruction* whole = Clone(inst, {}, inst.shape());
      if (!array) return Value{whole, inst.shape(), target};
      return Finish(inst, whole, ReplicatedGrid(inst.shape().rank(), devices_), *target[0]);
    }
    case Opcode::kGetTupleElement: {
      const Value& v = scope_->values.at(inst.operand(0));
      const int64_t index = inst.tuple_index();
      if (!v.global.IsTuple() || index < 0 || index >= v.global.tuple_size()) {
        return InvalidArgument("%" + inst.name() + ": bad tuple index");
      }
      Instruction* element = Clone(inst, {v.local}, v.local->shape().tuple_shapes(index));
      Value ev{element, inst.shape(), {v.leaves[index]}};
      ASSIGN_OR_RETURN(Instruction * out, ReshardValue(ev, target, inst.name(), inst.name(),
                                                       "%" + inst.name() + " is wanted split so"));
      return Value{out, inst.shape(), target};
    }
    case Opcode::kTuple: {
      std::vector<Instruction*> operands;
      std::vector<Shape> shapes;
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        const Value& v = scope_->values.at(inst.operand(i));
        ASSIGN_OR_RETURN(
            Instruction * op,
            ReshardValue(v, {target[i]}, inst.operand(i)->name(), inst.name(),
                         "%" + inst.name() + " holds it as element " + std::to_string(i)));
        operands.push_back(op);
        shapes.push_back(op->shape());
      }
      return Value{Clone(inst, operands, Shape::Tuple(shapes)), inst.shape(), target};
    }
    case Opcode::kWhile:
    case Opcode::kCall:
    case Opcode::kConditional:
      return ControlFlow(inst, target);
    default:
      break;
  }
  if (!array || !target[0]) {
    return Fallback(
        inst, target,
        "no native rule for a tuple-shaped or non-array " + std::string(OpcodeName(inst.opcode())));
  }
  const Grid& t = *target[0];
  const Opcode op = inst.opcode();
  bool same_dims = true;
  for (const Instruction* operand : inst.operands()) {
    const Shape& s = operand->shape();
    if (!s.IsArray() || (s.rank() != 0 && s.dimensions() != inst.shape().dimensions()))
      same_dims = false;
  }
  if ((IsElementwise(op) || op == Opcode::kCopy) && same_dims) return Elementwise(inst, t);
  switch (op) {
    case Opcode::kDot:
      if (inst.operand_count() == 2 && inst.attrs().dot_dimension_numbers &&
          inst.attrs().sparsity.empty()) {
        return Dot(inst, t);
      }
      break;
    case Opcode::kReduce:
      if (inst.operand_count() == 2) return Reduce(inst, t);
      break;
    case Opcode::kBroadcast: {
      std::vector<int64_t> from;
      for (int64_t d : inst.dimensions()) from.push_back(d);
      Grid want = Derived(t, from);
      ASSIGN_OR_RETURN(Shape shape, LocalShape(t, inst.shape(), "%" + inst.name()));
      ASSIGN_OR_RETURN(Instruction * operand,
                       Operand(inst, 0, want, "%" + inst.name() + " broadcasts it tile by tile"));
      return Value{Clone(inst, {operand}, shape), inst.shape(), {t}};
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t>& perm = inst.dimensions();
      std::vector<int64_t> from(perm.size(), -1);
      for (size_t i = 0; i < perm.size(); ++i) from[perm[i]] = static_cast<int64_t>(i);
      ASSIGN_OR_RETURN(Shape shape, LocalShape(t, inst.shape(), "%" + inst.name()));
      ASSIGN_OR_RETURN(
          Instruction * operand,
          Operand(inst, 0, Derived(t, from), "%" + inst.name() + " transposes it tile by tile"));
      return Value{Clone(inst, {operand}, shape), inst.shape(), {t}};
    }
    case Opcode::kReshape:
      return Reshape(inst, t);
    case Opcode::kSlice:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kConcatenate:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      return AlongUnsplitDims(inst, t);
    case Opcode::kConvolution:
      if (inst.attrs().feature_group_count == 1 && inst.attrs().batch_group_count == 1 &&
          inst.attrs().convolution_dimension_numbers) {
        return Convolution(inst, t);
      }
      break;
    case Opcode::kIota:
      return Iota(inst, t);
    default:
      break;
  }
  return Fallback(inst, target, "no native rule for " + std::string(OpcodeName(op)) + " here");
}

StatusOr<std::unique_ptr<Computation>> Partitioner::PartitionComputation(
    const Computation& old, const std::vector<std::vector<LeafGrid>>& params,
    const std::vector<LeafGrid>& root, const std::string& name, bool entry) {
  auto computation = std::make_unique<Computation>(name);
  computation->set_parent(&module_);
  computation->set_execution_thread(old.execution_thread());
  Scope scope;
  scope.computation = computation.get();
  scope_ = &scope;
  for (const Instruction* inst : old.PostOrder()) {
    StatusOr<Value> value = Visit(*inst);
    if (!value.ok()) return value.status();
    if (inst->opcode() == Opcode::kParameter && !entry) {
      // A called computation's parameter arrives as the caller passes it.
      const int64_t n = inst->parameter_number();
      if (n >= 0 && n < static_cast<int64_t>(params.size()) &&
          !SameLeaves(value->leaves, params[n])) {
        Instruction* p = value->local;
        Shape shape = inst->shape();
        if (shape.IsTuple()) {
          for (int64_t i = 0; i < shape.tuple_size(); ++i) {
            if (params[n][i]) {
              ASSIGN_OR_RETURN(
                  (*shape.mutable_tuple_shapes())[i],
                  LocalShape(*params[n][i], shape.tuple_shapes(i), "%" + inst->name()));
            }
          }
        } else if (params[n][0]) {
          ASSIGN_OR_RETURN(shape, LocalShape(*params[n][0], shape, "%" + inst->name()));
        }
        p->set_shape(shape);
        Value arrived{p, inst->shape(), params[n]};
        ASSIGN_OR_RETURN(Instruction * as_own,
                         ReshardValue(arrived, value->leaves, inst->name(), inst->name(),
                                      "%" + inst->name() + " has its own sharding"));
        value = Value{as_own, inst->shape(), value->leaves};
      }
    }
    if (entry && inst->opcode() == Opcode::kParameter && inst->has_attributes() &&
        inst->attrs().has_sharding) {
      value->local->mutable_attrs().has_sharding = true;
      value->local->mutable_attrs().sharding = inst->attrs().sharding;
    }
    if (!entry && value->local->has_attributes()) {
      value->local->mutable_attrs().has_sharding = false;
      value->local->mutable_attrs().sharding.clear();
    }
    scope.values[inst] = *value;
  }
  const Instruction* old_root = old.root();
  if (old_root == nullptr) return InvalidArgument("%" + old.name() + " has no root");
  const Value& result = scope.values.at(old_root);
  ASSIGN_OR_RETURN(Instruction * out,
                   ReshardValue(result, root, old_root->name(), old_root->name(),
                                "the result of %" + old.name() + " is wanted so"));
  if (entry) {
    // A parameter keeps its own sharding; the result's goes on a copy of it.
    if (out->opcode() == Opcode::kParameter) {
      out = AddNamed(Opcode::kCopy, old_root->name(), out->shape(), {out});
    }
    if (old_root->has_attributes() && old_root->attrs().has_sharding) {
      out->mutable_attrs().has_sharding = true;
      out->mutable_attrs().sharding = old_root->attrs().sharding;
    }
  }
  computation->set_root(out);
  return computation;
}

}  // namespace

// --- The pass -----------------------------------------------------------------------------

StatusOr<bool> SpmdPartitioner::Run(Module& module, PassContext& context) {
  if (!NeedsSpmdPartitioning(module)) return false;
  const int64_t devices = module.num_partitions.value_or(1);
  if (devices < 2) return false;
  if (module.replica_count.value_or(1) != 1) {
    return InvalidArgument(
        "spmd-partitioner: replica_count=" + std::to_string(*module.replica_count) +
        " with num_partitions; only one replica is supported");
  }
  Computation* old_entry = module.entry();
  if (old_entry == nullptr) return InvalidArgument("spmd-partitioner: the module has no entry");
  Partitioner partitioner(module, context, devices);
  std::vector<std::vector<LeafGrid>> params;  // entry parameters keep their own shardings
  std::vector<LeafGrid> root;
  {
    // The root's own sharding is the result's.
    const Instruction* r = old_entry->root();
    if (r == nullptr) return InvalidArgument("spmd-partitioner: the entry has no root");
    std::optional<Sharding> s;
    ASSIGN_OR_RETURN(s, ShardingOf(*r));
    Sharding sharding = s ? *s : Sharding::Replicated();
    auto leaf_grid = [&](const Sharding& leaf, const Shape& shape) -> StatusOr<LeafGrid> {
      if (!shape.IsArray()) return LeafGrid(ReplicatedGrid(0, devices));
      return GridOf(leaf, shape.rank(), devices, "%" + r->name());
    };
    if (r->shape().IsTuple()) {
      for (int64_t i = 0; i < r->shape().tuple_size(); ++i) {
        ASSIGN_OR_RETURN(LeafGrid g, leaf_grid(sharding.Leaf(static_cast<size_t>(i)),
                                               r->shape().tuple_shapes(i)));
        root.push_back(std::move(g));
      }
    } else {
      ASSIGN_OR_RETURN(LeafGrid g, leaf_grid(sharding.IsTuple() && sharding.elements.size() == 1
                                                 ? sharding.elements[0]
                                                 : sharding,
                                             r->shape()));
      root.push_back(std::move(g));
    }
  }
  const std::string name = old_entry->name() + "_spmd";
  ASSIGN_OR_RETURN(std::unique_ptr<Computation> partitioned,
                   partitioner.PartitionComputation(*old_entry, params, root, name, true));
  Computation* entry = module.AddComputation(std::move(partitioned));
  module.set_entry(entry);
  module.RemoveUnreachableComputations();
  if (module.entry_computation_layout) {
    ComputationLayout layout;
    for (const Instruction* p : entry->parameters()) {
      if (p != nullptr) layout.parameters.push_back(p->shape());
    }
    layout.result = entry->root()->shape();
    module.entry_computation_layout = layout;
  }
  return true;
}

// --- NeedsSpmdPartitioning -------------------------------------------------------------------

bool NeedsSpmdPartitioning(const Module& module) {
  bool marker = false;
  for (const auto& [key, value] : module.frontend_attributes) {
    if (key == "xla.sdy.meshes") marker = true;
  }
  bool partitioned_collective = false;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) {
      if (!inst->has_attributes()) continue;
      const InstructionAttributes& a = inst->attrs();
      if (inst->opcode() == Opcode::kCustomCall) {
        const std::string& t = a.custom_call_target;
        if (t == "Sharding" || t == "SPMDFullToShardShape" || t == "SPMDShardToFullShape" ||
            t.rfind("xla.sdy.", 0) == 0) {
          marker = true;
        }
      }
      for (const auto& [key, value] : a.frontend_attributes) {
        if (key.rfind("xla.sdy.", 0) == 0) marker = true;
      }
      const bool in_manual = a.has_sharding && a.sharding.find("manual") != std::string::npos;
      if (!in_manual && ((IsCrossDeviceCollective(inst->opcode()) && a.channel_id) ||
                         inst->opcode() == Opcode::kPartitionId)) {
        partitioned_collective = true;
      }
    }
    // Instructions without attributes: partition-id has none.
    for (const auto& inst : c->instructions()) {
      if (!inst->has_attributes() && inst->opcode() == Opcode::kPartitionId)
        partitioned_collective = true;
    }
  }
  if (module.num_partitions.value_or(1) <= 1 && !marker) return false;
  const Computation* entry = module.entry();
  if (entry != nullptr && entry->name().size() > 5 &&
      entry->name().compare(entry->name().size() - 5, 5, "_spmd") == 0) {
    return false;
  }
  if (module.is_scheduled.value_or(false)) return false;
  if (!marker && partitioned_collective) return false;
  return true;
}

// --- FormatCollectiveDecisions ---------------------------------------------------------------

std::string FormatCollectiveDecisions(const std::vector<CollectiveDecision>& decisions) {
  if (decisions.empty()) return "no collectives inserted\n";
  std::string out;
  for (const CollectiveDecision& d : decisions) {
    std::string line = d.computation + "  %" + d.collective + "  " + d.kind;
    if (!d.groups.empty()) line += "  groups=" + d.groups;
    if (d.bytes_per_device > 0) line += "  " + std::to_string(d.bytes_per_device) + " B/device";
    line += "  for %" + d.for_instruction + ": " + d.reason;
    out += line + "\n";
  }
  return out;
}

}  // namespace fusebox
