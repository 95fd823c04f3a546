// The SPMD partitioner (see spmd_partitioner.h): one walk over each computation in post
// order that builds the per-device computation beside the global one.
//
// Sections: grids (a sharding as each device's tile) · building blocks (offsets from
// partition-id, collectives with their decisions) · resharding · the walk · the pass ·
// NeedsSpmdPartitioning · FormatCollectiveDecisions. The rules per opcode are in
// spmd_rules.cc, the dot rule in spmd_dot.cc; spmd_partitioner_internal.h joins them.
#include "compiler/passes/spmd_partitioner.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/passes/dce.h"
#include "compiler/passes/spmd_partitioner_internal.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::passes {
namespace spmd_internal {

// --- Grids ------------------------------------------------------------------------------

void RenumberCopies(Grid& grid) {
  std::map<std::vector<int64_t>, int64_t> seen;
  const int64_t devices = grid.devices();
  grid.copy.assign(grid.index.size(), 0);
  for (size_t d = 0; d < grid.index.size(); ++d) {
    const int64_t group = grid.manual.empty() ? 0 : grid.manual[d];
    grid.copy[d] = group * devices + seen[grid.TileKey(static_cast<int64_t>(d))]++;
  }
}

bool IsTiling(const Grid& grid) {
  int64_t tiles = 1;
  for (int64_t c : grid.counts) tiles *= std::max<int64_t>(c, 1);
  if (tiles <= 0 || grid.devices() % tiles != 0) return false;
  std::map<std::vector<int64_t>, int64_t> holders;
  for (const std::vector<int64_t>& index : grid.index) {
    for (size_t k = 0; k < index.size(); ++k) {
      if (index[k] < 0 || index[k] >= grid.counts[k]) return false;
    }
    ++holders[index];
  }
  if (static_cast<int64_t>(holders.size()) != tiles) return false;
  for (const auto& [index, count] : holders) {
    if (count != grid.devices() / tiles) return false;
  }
  return true;
}

Grid ReplicatedGrid(int64_t rank, int64_t devices) {
  Grid g;
  g.counts.assign(rank, 1);
  g.index.assign(devices, std::vector<int64_t>(rank, 0));
  RenumberCopies(g);
  return g;
}

Grid WholeLike(const Grid& like, int64_t rank) {
  Grid g = ReplicatedGrid(rank, like.devices());
  g.manual = like.manual;
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
  g.manual = source.manual;
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
  // Manual over every device (no subgroup of more than one device replicates): per-device
  // code, no grid. A manual subgroup beside a replicated one of several devices, or beside
  // split data dims, is partially manual (a grid with manual groups, below).
  bool fully_manual = s.IsManual();
  for (size_t k = 0; fully_manual && k < s.subgroups.size(); ++k) {
    const size_t dim = static_cast<size_t>(s.DataRank()) + k;
    if (s.subgroups[k] != SubgroupKind::kManual && dim < s.tile_dims.size() && s.tile_dims[dim] > 1) fully_manual = false;
  }
  if (fully_manual) return std::optional<Grid>();
  bool partly_manual = false;
  for (SubgroupKind kind : s.subgroups) {
    if (kind == SubgroupKind::kManual) {
      partly_manual = true;
    } else if (kind != SubgroupKind::kReplicated) {
      return InvalidArgument(where + ": sharding " + s.ToString() + " has a " +
                             std::string(SubgroupKindName(kind)) +
                             " subgroup (spmd-partitioner knows replicated and manual subgroups)");
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
    if (partly_manual) {
      // The device's place along the manual subgroup dims, as one number.
      int64_t place = 0;
      for (size_t k = 0; k < s.subgroups.size(); ++k) {
        const size_t dim = static_cast<size_t>(s.DataRank()) + k;
        if (s.subgroups[k] == SubgroupKind::kManual) place = place * s.tile_dims[dim] + (*idx)[dim];
      }
      g.manual.push_back(place);
    }
  }
  if (partly_manual) {
    // Each group named by its smallest device, so that shardings over the same groups
    // (however their devices are listed) give the same grid.
    std::map<int64_t, int64_t> smallest;
    for (int64_t d = devices - 1; d >= 0; --d) smallest[g.manual[d]] = d;
    for (int64_t& m : g.manual) m = smallest[m];
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
      return Unimplemented(where + ": dim " + std::to_string(k) + " of size " +
                             std::to_string(n) + " does not split evenly into " +
                             std::to_string(t) +
                             " tiles (spmd-partitioner computes such splits whole inside the program; "
                             "on its inputs and outputs they are not supported)");
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

std::string GroupsText(const std::vector<std::vector<int64_t>>& groups) {
  ReplicaGroups rg;
  rg.groups = groups;
  return rg.ToString();
}

bool ManualGroupsWithin(const Grid& inner, const Grid& outer) {
  std::map<int64_t, int64_t> outer_of;
  for (int64_t d = 0; d < inner.devices() && d < outer.devices(); ++d) {
    const int64_t in = inner.manual.empty() ? 0 : inner.manual[static_cast<size_t>(d)];
    const int64_t out = outer.manual.empty() ? 0 : outer.manual[static_cast<size_t>(d)];
    auto [it, fresh] = outer_of.emplace(in, out);
    if (!fresh && it->second != out) return false;
  }
  return inner.devices() == outer.devices();
}

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
    if (from.counts[k] > to.counts[k] && a < 0) {
      a = k;
    } else if (from.counts[k] < to.counts[k] && b < 0) {
      b = k;
    } else {
      return std::nullopt;
    }
  }
  if (a < 0 || b < 0 || from.counts[a] % to.counts[a] != 0) return std::nullopt;
  const int64_t n = from.counts[a] / to.counts[a];
  if (to.counts[b] != from.counts[b] * n) return std::nullopt;
  // Dim a's tile q*n + r becomes tile q, and dim b's tile p becomes p*n + r: the minor
  // n-way part of a's split moves to b's.
  for (int64_t d = 0; d < from.devices(); ++d) {
    const int64_t r = from.index[d][a] % n;
    if (from.index[d][a] / n != to.index[d][a] || to.index[d][b] != from.index[d][b] * n + r) return std::nullopt;
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

Grid Partitioner::Whole(int64_t rank) const {
  Grid g = ReplicatedGrid(rank, devices_);
  g.manual = manual_;
  RenumberCopies(g);
  return g;
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
  // In a partially manual region every device group the partitioner forms must lie within
  // one manual group: the groups hold different values. A rule that formed one across them
  // fails the instruction (PartitionComputation reports it) rather than mix the values.
  if (manual_.empty() || !manual_violation_.empty() || !collective->has_attributes()) return;
  const InstructionAttributes& a = collective->attrs();
  auto crosses = [&](const std::vector<int64_t>& members) {
    for (int64_t d : members) {
      if (d < 0 || d >= devices_ || manual_[static_cast<size_t>(d)] != manual_[static_cast<size_t>(members[0])]) return true;
    }
    return false;
  };
  bool crossed = false;
  if (a.has_source_target_pairs) {
    for (const auto& [from, to] : a.source_target_pairs) crossed = crossed || crosses({from, to});
  } else if (a.replica_groups && !a.replica_groups->groups.empty()) {
    for (const std::vector<int64_t>& g : a.replica_groups->groups) crossed = crossed || (!g.empty() && crosses(g));
  } else {
    std::vector<int64_t> all(static_cast<size_t>(devices_));
    for (int64_t d = 0; d < devices_; ++d) all[static_cast<size_t>(d)] = d;
    crossed = crosses(all);
  }
  if (crossed) {
    manual_violation_ = "the " + std::string(OpcodeName(collective->opcode())) + " it needs for %" + operand +
                        " (" + groups + ") would mix the values of different manual groups";
  }
}

// A decision about `inst` itself (how it is computed), not about a collective it needs.
void Partitioner::RecordAbout(const Instruction& inst, const std::string& kind, int64_t bytes,
                              const std::string& reason) {
  CollectiveDecision decision;
  decision.pass = kPassName;
  decision.computation = scope_->computation->name();
  decision.collective = inst.name();
  decision.kind = kind;
  decision.for_instruction = inst.name();
  decision.bytes_per_device = bytes;
  decision.reason = reason;
  context_.RecordCollective(std::move(decision));
}

void Partitioner::RecordFallback(const Instruction& inst, const std::string& why) {
  RecordAbout(inst, "replicated-fallback", std::max<int64_t>(inst.shape().ByteSize(), 0),
              "replicated fallback: %" + inst.name() + " (" + std::string(OpcodeName(inst.opcode())) +
                  ") is computed whole on every device: " + why);
}

void Partitioner::RecordUneven(const Instruction& inst, const std::string& dims) {
  StatusOr<std::optional<Sharding>> sharding = ShardingOf(inst);
  const std::string wanted = sharding.ok() && sharding->has_value() ? (**sharding).ToString() : "split";
  RecordAbout(inst, "uneven-split", 0,
              "uneven split: %" + inst.name() + " is wanted " + wanted + ", whose tiles do not split " + dims +
                  " evenly; it is computed whole along those dims (XLA pads the last tiles instead)");
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
  if (BugPlanted(PlantedBug::kAllGatherGroupsInDeviceOrder)) {
    for (std::vector<int64_t>& group : attrs.replica_groups->groups) std::sort(group.begin(), group.end());
  }
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
  const int64_t n = from.counts[a] / to.counts[a];
  ASSIGN_OR_RETURN(Shape to_shape, LocalShape(to, global, "%" + for_instruction));
  auto groups = GroupDevices(
      devices_,
      [&](int64_t d) {
        std::vector<int64_t> key = from.index[d];
        key[a] /= n;
        key.push_back(from.copy[d]);
        return key;
      },
      [&](int64_t d) { return from.index[d][a] % n; });
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
  if (from.manual != to.manual) {
    return InvalidArgument(where + ": %" + operand +
                           (from.PartlyManual() && to.PartlyManual()
                                ? " moves between partially manual shardings over different manual groups"
                                : " would move between a partially manual and an automatic sharding without "
                                  "SPMDFullToShardShape / SPMDShardToFullShape"));
  }
  RETURN_IF_ERROR(LocalShape(to, global, where).status());
  if (auto sliced = TrySliceTo(local, from, to, global, where)) return *sliced;
  ASSIGN_OR_RETURN(std::optional<Instruction*> exchanged,
                   TryAllToAll(local, from, to, global, operand, for_instruction, why));
  if (exchanged) return *exchanged;
  if (auto permuted = TryPermute(local, from, to, operand, for_instruction, why)) return *permuted;
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

std::optional<Instruction*> Partitioner::TryPermute(Instruction* local, const Grid& from, const Grid& to,
                                                    const std::string& operand, const std::string& for_instruction,
                                                    const std::string& why) {
  if (from.counts != to.counts) return std::nullopt;
  // Per tile, its holders under `from`; each device that does not hold its `to` tile
  // receives it from a holder, each holder sending at most once.
  // (Keys are tiles within a manual group: a device receives from its own group.)
  std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
  for (int64_t d = 0; d < devices_; ++d) holders[from.TileKey(d)].push_back(d);
  std::map<std::vector<int64_t>, size_t> next;
  std::vector<std::pair<int64_t, int64_t>> pairs;  // (source, target)
  std::vector<int64_t> receives(static_cast<size_t>(devices_), 0);
  for (int64_t d = 0; d < devices_; ++d) {
    if (from.index[d] == to.index[d]) continue;
    auto it = holders.find(to.TileKey(d));
    size_t& n = next[to.TileKey(d)];
    if (it == holders.end() || n >= it->second.size()) return std::nullopt;
    pairs.push_back({it->second[n++], d});
    receives[d] = 1;
  }
  if (pairs.empty()) return std::nullopt;
  std::sort(pairs.begin(), pairs.end());
  Instruction* moved = Add(Opcode::kCollectivePermute, "collective-permute", local->shape(), {local});
  InstructionAttributes& a = moved->mutable_attrs();
  a.channel_id = next_channel_++;
  a.source_target_pairs = pairs;
  a.has_source_target_pairs = true;
  std::string pairs_text = "{";
  for (size_t i = 0; i < pairs.size(); ++i)
    pairs_text += (i ? ",{" : "{") + std::to_string(pairs[i].first) + "," + std::to_string(pairs[i].second) + "}";
  pairs_text += "}";
  Record(moved, for_instruction, operand, pairs_text,
         "collective-permute of %" + operand + "'s tiles to the devices that hold them as " + DescribeGrid(to) +
             ": " + why);
  if (static_cast<int64_t>(pairs.size()) == devices_) return moved;
  // Devices that already hold their tile keep it (a permute gives non-targets zeros).
  Instruction* flag = Add(Opcode::kCompare, "compare", Shape::Scalar(PrimitiveType::kPred),
                          {PerDeviceOffset(receives), ScalarS32(1)});
  flag->mutable_attrs().comparison_direction = ComparisonDirection::kEq;
  Instruction* mask = Add(Opcode::kBroadcast, "broadcast", Shape(PrimitiveType::kPred, local->shape().dimensions()), {flag});
  mask->mutable_attrs().dimensions = std::vector<int64_t>{};
  return Add(Opcode::kSelect, "select", local->shape(), {mask, moved, local});
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
  // Wider tiles than the value's, which it was sliced from: read there, no collective.
  if (v.wider != nullptr && !HeldCovers(from, grid) && HeldCovers(*v.wider_grid, grid)) {
    return Reshard(v.wider, *v.wider_grid, grid, v.global, inst.operand(i)->name(), inst.name(), why);
  }
  return Reshard(v.local, from, grid, v.global, inst.operand(i)->name(), inst.name(), why);
}

// --- The walk -------------------------------------------------------------------------------

StatusOr<std::unique_ptr<Computation>> Partitioner::PartitionComputation(
    const Computation& old, const std::vector<std::vector<LeafGrid>>& params,
    const std::vector<LeafGrid>& root, const std::string& name, bool entry) {
  auto computation = std::make_unique<Computation>(name);
  computation->set_parent(&module_);
  computation->set_execution_thread(old.execution_thread());
  Scope scope;
  scope.computation = computation.get();
  scope_ = &scope;
  // A called computation is partitioned while its caller is visited: the caller's manual
  // groups come back after it.
  struct RestoreManual {
    std::vector<int64_t>& groups;
    std::vector<int64_t> saved;
    ~RestoreManual() { groups = std::move(saved); }
  } restore{manual_, manual_};
  for (const Instruction* inst : old.PostOrder()) {
    StatusOr<Value> value = Visit(*inst);
    if (!value.ok()) return value.status();
    if (entry && inst->opcode() == Opcode::kParameter &&
        std::any_of(value->leaves.begin(), value->leaves.end(),
                    [](const LeafGrid& l) { return l && l->PartlyManual(); })) {
      return Unimplemented("%" + inst->name() +
                           ": an entry parameter with a partially manual sharding (last_tile_dims={manual}); a "
                           "manual region starts inside the program with SPMDFullToShardShape");
    }
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
  RemoveDeadCode(*computation);
  return computation;
}

// What the walk computed that nothing uses (a value a later rule read from elsewhere: a
// concatenation of slices reads the sliced array's windows, not the slices) is removed
// with the decisions about it. Only what computes a value goes: the partitioner's own
// collectives and pure ops; anything else with a side effect stays.
void Partitioner::RemoveDeadCode(Computation& computation) {
  std::unordered_set<std::string> recorded;
  for (const CollectiveDecision& d : context_.collectives()) {
    if (d.computation == computation.name()) recorded.insert(d.collective);
  }
  bool removed = true;
  while (removed) {
    removed = false;
    std::vector<Instruction*> dead;
    for (const auto& inst : computation.instructions()) {
      if (inst->user_count() != 0 || inst.get() == computation.root() || inst->opcode() == Opcode::kParameter ||
          !inst->control_predecessors().empty() || !inst->control_successors().empty()) {
        continue;
      }
      if (HasSideEffect(*inst) && !recorded.count(inst->name())) continue;
      dead.push_back(inst.get());
    }
    for (Instruction* inst : dead) {
      const std::string name = inst->name();
      if (inst == scope_->partition_id) scope_->partition_id = nullptr;
      if (computation.RemoveInstruction(inst)) {
        context_.ForgetCollective(computation.name(), name);
        removed = true;
      }
    }
  }
}

}  // namespace spmd_internal

using spmd_internal::GridOf;
using spmd_internal::LeafGrid;
using spmd_internal::Partitioner;
using spmd_internal::ReplicatedGrid;

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
      ASSIGN_OR_RETURN(LeafGrid g, GridOf(leaf, shape.rank(), devices, "%" + r->name()));
      if (g && g->PartlyManual()) {
        return Unimplemented("%" + r->name() +
                             ": the entry's result has a partially manual sharding (last_tile_dims={manual}); "
                             "a manual region ends inside the program with SPMDShardToFullShape");
      }
      return g;
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

}  // namespace fusebox::passes
