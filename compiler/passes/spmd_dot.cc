// The SPMD partitioner's dot and convolution rules: a dot whose operands split batch or
// free dims is computed tile by tile; one whose operands split contracting dims computes
// partial sums and reduces them (all-reduce, or reduce-scatter onto the dot's own split),
// unless gathering the split operand brings no more bytes to a device (XLA's choice). A
// convolution's contracted input feature dim is treated as a dot's contracting dim.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/spmd_partitioner_internal.h"

namespace fusebox::passes {
namespace spmd_internal {

// A dot's dimension numbers with the free dims of each operand.
struct DotDims {
  explicit DotDims(const Instruction& inst);

  // Operand grids for a result computed as `c`, with contracting dim i split by piece[d][i]
  // (counts ccounts; empty piece: contracting dims whole).
  std::pair<Grid, Grid> OperandGrids(const Grid& c, const std::vector<std::vector<int64_t>>& piece,
                                     const std::vector<int64_t>& ccounts, int64_t devices) const;

  const DotDimensionNumbers& dn;
  int64_t lrank, rrank;
  std::vector<int64_t> lfree, rfree;
  int64_t nb, nc;  // batch and contracting dim counts
};

// The dims of one dot operand that are neither batch nor contracting dims, in order.
std::vector<int64_t> FreeDims(int64_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> out;
  for (int64_t k = 0; k < rank; ++k) {
    if (std::find(batch.begin(), batch.end(), k) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), k) == contracting.end()) {
      out.push_back(k);
    }
  }
  return out;
}

DotDims::DotDims(const Instruction& inst)
    : dn(*inst.attrs().dot_dimension_numbers),
      lrank(inst.operand(0)->shape().rank()),
      rrank(inst.operand(1)->shape().rank()),
      lfree(FreeDims(lrank, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions)),
      rfree(FreeDims(rrank, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions)),
      nb(static_cast<int64_t>(dn.lhs_batch_dimensions.size())),
      nc(static_cast<int64_t>(dn.lhs_contracting_dimensions.size())) {}

std::pair<Grid, Grid> DotDims::OperandGrids(const Grid& c,
                                            const std::vector<std::vector<int64_t>>& piece,
                                            const std::vector<int64_t>& ccounts,
                                            int64_t devices) const {
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
      for (int64_t d = 0; d < devices; ++d) {
        lg.index[d][lk] = piece[d][i];
        rg.index[d][rk] = piece[d][i];
      }
    }
    RenumberCopies(lg);
    RenumberCopies(rg);
  }
  return std::make_pair(lg, rg);
}

ContractingSplit SplitOfContractingDims(const Grid& src, const std::vector<int64_t>& cdims,
                                        const std::string& src_name, int64_t devices) {
  ContractingSplit split;
  split.piece.resize(devices);
  for (int64_t k : cdims) {
    split.ccounts.push_back(src.counts[k]);
    split.pieces *= src.counts[k];
  }
  for (int64_t d = 0; d < devices; ++d) {
    for (int64_t k : cdims) split.piece[d].push_back(src.index[d][k]);
  }
  for (size_t i = 0; i < cdims.size(); ++i) {
    if (src.counts[cdims[i]] == 1) continue;
    if (!split.text.empty()) split.text += ", ";
    split.text += "contracting dim " + std::to_string(cdims[i]) + " of %" + src_name +
                  " is split " + std::to_string(src.counts[cdims[i]]) + " ways";
  }
  return split;
}

// The devices of one tile of `c` reduce together; when they hold each piece more than once
// (the operands are also replicated), each copy of the pieces reduces apart: groups keyed by
// the tile and the device's rank among those holding the same piece of it, as XLA's groups
// along the split axes only. nullopt when neither grouping holds each piece once.
std::optional<std::vector<std::vector<int64_t>>> GroupsHoldingEachPiece(const Grid& c,
                                                                        const std::vector<std::vector<int64_t>>& piece,
                                                                        int64_t pieces, int64_t devices) {
  // Each group lists its devices in the order of the pieces they hold, so that every group
  // of an all-reduce adds the pieces in the same order and the copies of a result agree
  // bit for bit (the collective hub reduces in group order, as XLA's groups follow the tile
  // order); by device number, a bf16 sum's copies differed in their last bits (the
  // differential fuzzer, --partitions 8, seed 200081).
  auto by_piece = [&](int64_t d) { return piece[static_cast<size_t>(d)]; };
  // (Tile keys: a partially manual grid's groups stay within its manual groups.)
  auto groups = GroupDevices(devices, [&](int64_t d) { return c.TileKey(d); }, by_piece);
  if (GroupsHoldEachPieceOnce(groups, piece, pieces)) return groups;
  std::map<std::vector<int64_t>, int64_t> seen;
  std::vector<int64_t> rank(static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) {
    std::vector<int64_t> key = c.TileKey(d);
    key.insert(key.end(), piece[d].begin(), piece[d].end());
    rank[static_cast<size_t>(d)] = seen[key]++;
  }
  groups = GroupDevices(
      devices,
      [&](int64_t d) {
        std::vector<int64_t> key = c.TileKey(d);
        key.push_back(rank[static_cast<size_t>(d)]);
        return key;
      },
      by_piece);
  if (GroupsHoldEachPieceOnce(groups, piece, pieces)) return groups;
  return std::nullopt;
}

// Where the partial sums are computed and how they are reduced: (1) on the dot's own
// grid when its copies hold the pieces (all-reduce); (2) with one split dim j of it
// made whole when its devices hold the pieces (reduce-scatter along j); (3) whole on
// every device (all-reduce, then slice). nullopt when none of these holds the pieces.
std::optional<PartialPlan> PlanPartialSums(const Grid& target, const ContractingSplit& split,
                                           int64_t devices) {
  auto holding_groups = [&](const Grid& c) { return GroupsHoldingEachPiece(c, split.piece, split.pieces, devices); };
  std::optional<PartialPlan> plan;
  if (auto groups = holding_groups(target)) plan = PartialPlan{target, *groups, -1};
  for (int64_t j = 0; !plan && j < target.rank(); ++j) {
    if (target.counts[j] == 1) continue;
    auto rs_groups = GroupDevices(
        devices,
        [&](int64_t d) {
          std::vector<int64_t> key = target.index[d];
          key[j] = 0;
          key.push_back(target.copy[d]);
          return key;
        },
        [&](int64_t d) { return target.index[d][j]; });
    if (GroupsHoldEachPieceOnce(rs_groups, split.piece, split.pieces) &&
        split.pieces == target.counts[j])
      plan = PartialPlan{Relaxed(target, {j}), rs_groups, j};
  }
  if (!plan) {
    Grid whole = WholeLike(target, target.rank());
    if (auto all = holding_groups(whole)) plan = PartialPlan{whole, *all, -1};
  }
  return plan;
}

// (0) XLA's choice when the result splits an lhs-free dim and an rhs-free dim over
// different devices and one operand (`gi`) splits the contracting dims: gather that
// operand along them (over the devices that split them) so the dot is local, rather than
// move the other operand's split with an all-to-all and reduce partial sums, when the
// gather brings no more bytes to a device than that plan hands to its collectives.
// Bytes compared: what the all-gather adds to each device, against what that plan
// hands to its collectives per device (the other operand's tile, the partial sums).
// Returns the reason for gathering, or nullopt to keep the partial-sum plan.
std::optional<std::string> GatherInsteadWhy(const Instruction& inst, const Grid& target,
                                            const DotDims& dims, const Grid& lcur,
                                            const Grid& rcur, const PartialPlan& plan,
                                            const ContractingSplit& split, int64_t gi,
                                            int64_t devices) {
  const DotDimensionNumbers& dn = dims.dn;
  const int64_t nb = dims.nb;
  const int64_t oi = 1 - gi;
  const Grid& gcur = gi == 0 ? lcur : rcur;
  const Grid& ocur = gi == 0 ? rcur : lcur;
  const int64_t nl = static_cast<int64_t>(dims.lfree.size());
  std::set<std::vector<int64_t>> pairs;
  for (int64_t d = 0; d < devices; ++d) {
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
  auto [lg_local, rg_local] = dims.OperandGrids(target, {}, {}, devices);
  auto [lg_part, rg_part] = dims.OperandGrids(plan.computed, split.piece, split.ccounts, devices);
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
  StatusOr<Shape> partial = LocalShape(plan.computed, inst.shape(), inst.name());
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
         (plan.scatter_dim >= 0 ? "reduce-scatter" : "all-reduce") + " of partial sums (" +
         std::to_string(reduced) + " B/device)";
}

// (0b) When the partial sums could only be computed whole on every device (the result's
// split does not line up with the devices that hold the pieces) while the result itself is
// split, gather the operand that splits the contracting dims instead: each device then
// computes its own tile, with no reduction of the whole result (XLA's plan for a weight
// split over every device, FSDP's, under a batch split over fewer).
std::optional<std::string> GatherRatherThanWholeSums(const Instruction& inst, const Grid& target,
                                                     const DotDims& dims, const Grid& gcur,
                                                     const PartialPlan& plan, const ContractingSplit& split,
                                                     int64_t gi, int64_t devices) {
  if (!plan.computed.Replicated() || target.Replicated() || plan.scatter_dim >= 0) return std::nullopt;
  const std::vector<int64_t>& gcdims =
      gi == 0 ? dims.dn.lhs_contracting_dimensions : dims.dn.rhs_contracting_dimensions;
  auto [lg_local, rg_local] = dims.OperandGrids(target, {}, {}, devices);
  if (!HeldCovers(Relaxed(gcur, gcdims), gi == 0 ? lg_local : rg_local)) return std::nullopt;
  return "%" + inst.name() + " is split (" + DescribeGrid(target) + ") but its partial sums, where " + split.text +
         ", could only be computed whole on every device and all-reduced: gathering the contracting dims of %" +
         inst.operand(gi)->name() + " computes each tile locally";
}

StatusOr<Instruction*> Partitioner::LocalDot(const Instruction& inst, const Grid& c,
                                             const Grid& lg, const Grid& rg,
                                             const std::string& why) {
  ASSIGN_OR_RETURN(Shape shape, LocalShape(c, inst.shape(), "%" + inst.name()));
  ASSIGN_OR_RETURN(Instruction * lhs, Operand(inst, 0, lg, why));
  ASSIGN_OR_RETURN(Instruction * rhs, Operand(inst, 1, rg, why));
  return Clone(inst, {lhs, rhs}, shape);
}

StatusOr<Value> Partitioner::ReducePartialSums(const Instruction& inst, Instruction* partial,
                                               const Grid& target, const PartialPlan& plan,
                                               const ContractingSplit& split, Computation* reducer) {
  const bool scatter = plan.scatter_dim >= 0;
  const std::string text = GroupsText(plan.groups);
  Shape out = partial->shape();
  if (scatter) {
    ASSIGN_OR_RETURN(out, LocalShape(target, inst.shape(), "%" + inst.name()));
  }
  Instruction* sum = Add(scatter ? Opcode::kReduceScatter : Opcode::kAllReduce,
                         scatter ? "reduce-scatter" : "all-reduce", out, {partial});
  InstructionAttributes& attrs = sum->mutable_attrs();
  attrs.channel_id = next_channel_++;
  attrs.replica_groups = ReplicaGroups{};
  attrs.replica_groups->groups = plan.groups;
  attrs.use_global_device_ids = true;
  if (scatter) attrs.dimensions = std::vector<int64_t>{plan.scatter_dim};
  sum->AppendCalledComputation(reducer != nullptr ? reducer : Adder(inst.shape().element_type()));
  sum->set_call_form(CallForm::kToApply);
  if (scatter) {
    const std::string j = std::to_string(plan.scatter_dim);
    Record(sum, inst.name(), inst.name(), text,
           "reduce-scatter of %" + inst.name() + " along dim " + j + " over " + text + ": " +
               split.text + " and %" + inst.name() + " is split along dim " + j +
               " over the same devices");
    return Value{sum, inst.shape(), {target}};
  }
  Record(sum, inst.name(), inst.name(), text,
         "all-reduce of %" + inst.name() + " over " + text + ": " + split.text);
  if (plan.computed.SameTiles(target)) return Value{sum, inst.shape(), {target}};
  return Finish(inst, sum, plan.computed, target);
}

StatusOr<Value> Partitioner::Dot(const Instruction& inst, const Grid& target) {
  const DotDims dims(inst);
  const DotDimensionNumbers& dn = dims.dn;
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
    const ContractingSplit split = SplitOfContractingDims(
        lhs_split ? lcur : rcur,
        lhs_split ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions,
        inst.operand(lhs_split ? 0 : 1)->name(), devices_);
    const std::string why = "%" + inst.name() + " computes partial sums where " + split.text;
    const std::optional<PartialPlan> plan = PlanPartialSums(target, split, devices_);
    if (plan && lhs_split != rhs_split) {
      std::optional<std::string> gather_why = GatherInsteadWhy(
          inst, target, dims, lcur, rcur, *plan, split, lhs_split ? 0 : 1, devices_);
      if (!gather_why) gather_why = GatherRatherThanWholeSums(inst, target, dims, lhs_split ? lcur : rcur, *plan, split,
                                                              lhs_split ? 0 : 1, devices_);
      if (gather_why) {
        auto [lg, rg] = dims.OperandGrids(target, {}, {}, devices_);
        ASSIGN_OR_RETURN(Instruction * local, LocalDot(inst, target, lg, rg, *gather_why));
        return Value{local, inst.shape(), {target}};
      }
    }
    if (plan) {
      auto [lg, rg] = dims.OperandGrids(plan->computed, split.piece, split.ccounts, devices_);
      ASSIGN_OR_RETURN(Instruction * partial, LocalDot(inst, plan->computed, lg, rg, why));
      return ReducePartialSums(inst, partial, target, *plan, split);
    }
  }
  // Contracting dims whole: batch and free dims split as the result, no reduction.
  auto [lg, rg] = dims.OperandGrids(target, {}, {}, devices_);
  ASSIGN_OR_RETURN(Instruction * local,
                   LocalDot(inst, target, lg, rg,
                            "%" + inst.name() +
                                " needs its contracting dims whole and its batch "
                                "and free dims split as its result (" +
                                DescribeGrid(target) + ")"));
  return Value{local, inst.shape(), {target}};
}

// A convolution is computed split on batch and output feature (its spatial dims whole).
// When an operand splits the contracted input feature dim (the weight gradient of a
// data-parallel step contracts over the batch: dim_labels f01b_i01o->01bf), each device
// convolves its piece and the partial sums are reduced, as a dot's: XLA's plan.
//
// A grouped convolution (feature_group_count G: input and output features in G groups,
// each group's outputs reading only its inputs; depthwise when every group is one
// channel) splits its output features only in tiles of whole groups (G divisible by the
// tile count); the input features are then split alike and each device convolves its
// G / n groups. Its input features are never a contracted split. A convolution with
// batch groups (batch_group_count G: a depthwise convolution's weight gradient, whose
// input batch holds the channels) splits its output features the same way, the input
// batch alike; its output batch stays whole.
StatusOr<Value> Partitioner::Convolution(const Instruction& inst, const Grid& target_in) {
  const ConvolutionDimensionNumbers& dn = *inst.attrs().convolution_dimension_numbers;
  const int64_t fgroups = inst.attrs().feature_group_count, bgroups = inst.attrs().batch_group_count;
  const int64_t groups = std::max(fgroups, bgroups);
  const int64_t of = dn.output_feature_dimension, ob = dn.output_batch_dimension;
  const bool group_split = groups > 1 && target_in.counts[of] > 1 && groups % target_in.counts[of] == 0;
  Grid target = groups > 1 && !group_split ? Relaxed(target_in, {of}) : target_in;
  if (bgroups > 1) target = Relaxed(target, {ob});
  const Grid computed = Relaxed(target, dn.output_spatial_dimensions);
  std::vector<int64_t> lfrom(inst.operand(0)->shape().rank(), -1);
  std::vector<int64_t> rfrom(inst.operand(1)->shape().rank(), -1);
  lfrom[dn.input_batch_dimension] = bgroups > 1 ? (group_split ? of : -1) : ob;
  rfrom[dn.kernel_output_feature_dimension] = of;
  if (fgroups > 1 && group_split) lfrom[dn.input_feature_dimension] = of;
  // The per-device convolution's group count: the groups of its output feature tile.
  auto local_groups = [&](Instruction* local, const Grid& grid) {
    if (fgroups > 1) local->mutable_attrs().feature_group_count = fgroups / grid.counts[of];
    if (bgroups > 1) local->mutable_attrs().batch_group_count = bgroups / grid.counts[of];
    return local;
  };
  ASSIGN_OR_RETURN(Grid lcur, OperandGrid(inst, 0));
  ASSIGN_OR_RETURN(Grid rcur, OperandGrid(inst, 1));
  const int64_t lk = dn.input_feature_dimension, rk = dn.kernel_input_feature_dimension;
  const bool lhs_split = lcur.counts[lk] > 1, rhs_split = rcur.counts[rk] > 1;
  if (fgroups == 1 && (lhs_split || rhs_split)) {
    const ContractingSplit split = SplitOfContractingDims(
        lhs_split ? lcur : rcur, {lhs_split ? lk : rk}, inst.operand(lhs_split ? 0 : 1)->name(), devices_);
    std::optional<PartialPlan> plan = PlanPartialSums(computed, split, devices_);
    // Batch groups: the plan may not split the output batch, nor the features but in
    // whole groups.
    if (plan && bgroups > 1 &&
        (plan->computed.counts[ob] > 1 || bgroups % plan->computed.counts[of] != 0 ||
         (plan->computed.counts[of] > 1 && !group_split))) {
      plan.reset();
    }
    if (plan) {
      Grid lg = Derived(plan->computed, lfrom), rg = Derived(plan->computed, rfrom);
      lg.counts[lk] = split.ccounts[0];
      rg.counts[rk] = split.ccounts[0];
      for (int64_t d = 0; d < devices_; ++d) {
        lg.index[d][lk] = split.piece[d][0];
        rg.index[d][rk] = split.piece[d][0];
      }
      RenumberCopies(lg);
      RenumberCopies(rg);
      const std::string why = "%" + inst.name() + " computes partial sums where " + split.text;
      ASSIGN_OR_RETURN(Shape shape, LocalShape(plan->computed, inst.shape(), "%" + inst.name()));
      ASSIGN_OR_RETURN(Instruction * lhs, Operand(inst, 0, lg, why));
      ASSIGN_OR_RETURN(Instruction * rhs, Operand(inst, 1, rg, why));
      Instruction* partial = local_groups(Clone(inst, {lhs, rhs}, shape), plan->computed);
      ASSIGN_OR_RETURN(Value summed, ReducePartialSums(inst, partial, computed, *plan, split));
      if (computed.SameTiles(target_in)) return summed;
      return Finish(inst, summed.local, computed, target_in);
    }
  }
  // Spatial dims split in the target stay split where a halo exchange serves each
  // device's windows; the others are computed whole.
  const Shape& in = inst.operand(0)->shape();
  std::vector<int64_t> relax;
  std::vector<std::pair<size_t, Halo>> halos;
  for (size_t i = 0; i < dn.output_spatial_dimensions.size(); ++i) {
    const int64_t od = dn.output_spatial_dimensions[i], id = dn.input_spatial_dimensions[i];
    std::optional<Halo> h;
    if (target.counts[od] > 1 && inst.attrs().window && i < inst.attrs().window->dimensions.size()) {
      h = HaloOf(inst.attrs().window->dimensions[i], in.dimensions(id), inst.shape().dimensions(od), target.counts[od]);
    }
    if (h) {
      halos.push_back({i, *h});
      lfrom[id] = od;
    } else {
      relax.push_back(od);
    }
  }
  const Grid at = Relaxed(target, relax);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(at, inst.shape(), "%" + inst.name()));
  const std::string why = halos.empty() ? "%" + inst.name() + " is computed split on batch and output feature only"
                                        : "%" + inst.name() + " is computed split on batch, output feature and the "
                                          "spatial dims its halos serve";
  const Grid lgrid = Derived(at, lfrom);
  ASSIGN_OR_RETURN(Instruction * lhs, Operand(inst, 0, lgrid, why));
  ASSIGN_OR_RETURN(Instruction * rhs, Operand(inst, 1, Derived(at, rfrom), why));
  if (!halos.empty()) {
    const Shape zero_shape = Shape::Scalar(in.element_type());
    Instruction* zero = Add(Opcode::kConstant, "constant", zero_shape, {});
    zero->set_literal(std::make_unique<Literal>(zero_shape));
    for (const auto& [i, h] : halos) {
      ASSIGN_OR_RETURN(lhs, WithHalo(lhs, lgrid, dn.input_spatial_dimensions[i], h, zero, inst.name(),
                                     inst.operand(0)->name()));
    }
  }
  Instruction* local = local_groups(Clone(inst, {lhs, rhs}, shape), at);
  for (const auto& [i, h] : halos) {
    WindowDimension& w = local->mutable_attrs().window->dimensions[i];
    w.padding_low = h.local_pad_lo;
    w.padding_high = h.local_pad_hi;
  }
  return Finish(inst, local, at, target_in);
}

}  // namespace spmd_internal
}  // namespace fusebox::passes
