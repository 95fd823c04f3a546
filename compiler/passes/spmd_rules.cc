// The SPMD partitioner's rules per opcode: how each instruction becomes per-device code
// (elementwise, reduce, reshape, ops along unsplit dims, convolution, iota, control flow,
// manual regions, sharding markers, tuples), and the replicated fallback for the rest.
// The dot rule has a file of its own (spmd_dot.cc).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/passes/sharding_propagation.h"
#include "compiler/passes/spmd_partitioner_internal.h"

namespace fusebox::passes {
namespace spmd_internal {

// --- Rules ----------------------------------------------------------------------------------

StatusOr<std::vector<LeafGrid>> Partitioner::TargetLeaves(const Instruction& inst) {
  ASSIGN_OR_RETURN(std::vector<LeafGrid> leaves, ShardedLeaves(inst));
  // An entry parameter's tiles are the program's inputs: an uneven one stays refused
  // (LocalShape names it). Elsewhere a dim its tiles do not split evenly (a sharding
  // constraint on 10 rows over 4 devices) is computed whole: XLA pads such tiles instead.
  if (inst.opcode() == Opcode::kParameter && inst.parent() == module_.entry()) return leaves;
  std::string uneven;
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]) continue;
    const Shape& shape = inst.shape().IsTuple() ? inst.shape().tuple_shapes(static_cast<int64_t>(i)) : inst.shape();
    if (!shape.IsArray() || shape.rank() != leaves[i]->rank()) continue;
    std::vector<int64_t> dims;
    for (int64_t k = 0; k < shape.rank(); ++k) {
      if (shape.dimensions(k) % leaves[i]->counts[k] == 0) continue;
      dims.push_back(k);
      uneven += std::string(uneven.empty() ? "" : ", ") +
                (inst.shape().IsTuple() ? "element " + std::to_string(i) + " " : "") + "dim " + std::to_string(k) +
                " of size " + std::to_string(shape.dimensions(k)) + " into " + std::to_string(leaves[i]->counts[k]) +
                " tiles";
    }
    if (!dims.empty()) leaves[i] = Relaxed(*leaves[i], dims);
  }
  if (!uneven.empty()) RecordUneven(inst, uneven);
  return leaves;
}

StatusOr<std::vector<LeafGrid>> Partitioner::ShardedLeaves(const Instruction& inst) {
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
  Value value{out, inst.shape(), {target}};
  if (!computed.SameTiles(target) && HeldCovers(computed, target)) {
    value.wider = local;
    value.wider_grid = computed;
  }
  return value;
}

StatusOr<Value> Partitioner::Elementwise(const Instruction& inst, const Grid& target) {
  ASSIGN_OR_RETURN(Shape local_shape, LocalShape(target, inst.shape(), "%" + inst.name()));
  std::vector<Instruction*> operands;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& s = inst.operand(i)->shape();
    Grid want = s.rank() == 0 ? Whole(0) : target;
    ASSIGN_OR_RETURN(Instruction * op, Operand(inst, i, want,
                                               "%" + inst.name() +
                                                   " needs its operands split as "
                                                   "its result (" +
                                                   DescribeGrid(want) + ")"));
    operands.push_back(op);
  }
  return Value{Clone(inst, operands, local_shape), inst.shape(), {target}};
}

// A reduce, one array or several (a variadic reduce: argmax, a value and its index). Reduced
// dims split in the operand are reduced where they lie: each device reduces its piece, and
// the groups that hold every piece once combine the partial results, by one all-reduce for
// one array, or, for several (no all-reduce combines arrays jointly), by gathering the
// partials along a new dim and reducing that dim again with the same computation, as XLA
// does. The combination applies the init values once per piece: a single reduce takes that
// path only when its init is the identity of a known reducer; a variadic reduce always (its
// inits are meant to be identities too; StableHLO leaves other inits implementation-defined).
StatusOr<Value> Partitioner::Reduce(const Instruction& inst, const std::vector<LeafGrid>& target) {
  const int64_t n = inst.operand_count() / 2;
  const bool variadic = inst.shape().IsTuple();
  const Grid& t = *target[0];
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
  std::vector<Instruction*> inits;
  for (int64_t i = n; i < 2 * n; ++i) inits.push_back(scope_->values.at(inst.operand(i)).local);
  // The local reduce of operands split as `want`, giving results split as `c`.
  auto local_reduce = [&](const Grid& want, const Grid& c, const std::string& why) -> StatusOr<Instruction*> {
    std::vector<Instruction*> operands;
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Instruction * op, Operand(inst, i, want, why));
      operands.push_back(op);
    }
    operands.insert(operands.end(), inits.begin(), inits.end());
    if (!variadic) {
      ASSIGN_OR_RETURN(Shape shape, LocalShape(c, inst.shape(), "%" + inst.name()));
      return Clone(inst, operands, shape);
    }
    std::vector<Shape> shapes;
    for (int64_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(Shape shape, LocalShape(c, inst.shape().tuple_shapes(i), "%" + inst.name()));
      shapes.push_back(std::move(shape));
    }
    return Clone(inst, operands, Shape::Tuple(shapes));
  };
  // `local`, computed split as `c`, resharded to the targets.
  auto finish = [&](Instruction* local, const Grid& c) -> StatusOr<Value> {
    if (!variadic) return Finish(inst, local, c, t);
    Value value{local, inst.shape(), std::vector<LeafGrid>(static_cast<size_t>(n), c)};
    ASSIGN_OR_RETURN(Instruction * out, ReshardValue(value, target, inst.name(), inst.name(),
                                                     "%" + inst.name() + " is wanted so"));
    return Value{out, inst.shape(), target};
  };
  if (!split.empty() && (variadic || InitIsIdentity(*inst.to_apply(), *inst.operand(1)))) {
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
    for (const Grid& c : {t, Whole(t.rank())}) {
      Grid want = Derived(c, kept_from);
      for (int64_t k : split) {
        want.counts[k] = cur.counts[k];
        for (int64_t d = 0; d < devices_; ++d) want.index[d][k] = cur.index[d][k];
      }
      RenumberCopies(want);
      std::optional<std::vector<std::vector<int64_t>>> holding = GroupsHoldingEachPiece(c, piece, pieces, devices_);
      if (!holding) continue;
      const std::vector<std::vector<int64_t>>& groups = *holding;
      const std::string text = GroupsText(groups);
      ASSIGN_OR_RETURN(Instruction * partial,
                       local_reduce(want, c, "%" + inst.name() + " reduces partial pieces where " + split_text));
      if (variadic) {
        ASSIGN_OR_RETURN(Instruction * whole, CombineVariadicPartials(inst, partial, groups, pieces, inits, split_text));
        return finish(whole, c);
      }
      // One all-reduce per split reduced dim, the last dim first, as XLA's partitioner
      // reduces them (a dim split over two mesh axes is one dim, one all-reduce): each over
      // the devices of a group that hold the same pieces of the other split dims.
      std::vector<int64_t> group_of(static_cast<size_t>(devices_), 0);
      for (size_t g = 0; g < groups.size(); ++g) {
        for (int64_t d : groups[g]) group_of[static_cast<size_t>(d)] = static_cast<int64_t>(g);
      }
      Instruction* sum = partial;
      for (size_t s = split.size(); s-- > 0;) {
        const std::vector<std::vector<int64_t>> step_groups =
            split.size() == 1 ? groups
                              : GroupDevices(
                                    devices_,
                                    [&](int64_t d) {
                                      std::vector<int64_t> key = {group_of[static_cast<size_t>(d)]};
                                      for (size_t o = 0; o < split.size(); ++o) {
                                        if (o != s) key.push_back(piece[d][o]);
                                      }
                                      return key;
                                    },
                                    // In the order of the pieces along dim s: every group adds
                                    // them alike (GroupsHoldingEachPiece).
                                    [&](int64_t d) { return piece[d][s]; });
        const std::string step_text = GroupsText(step_groups);
        sum = Add(Opcode::kAllReduce, "all-reduce", partial->shape(), {sum});
        InstructionAttributes& attrs = sum->mutable_attrs();
        attrs.channel_id = next_channel_++;
        attrs.replica_groups = ReplicaGroups{};
        attrs.replica_groups->groups = step_groups;
        attrs.use_global_device_ids = true;
        sum->AppendCalledComputation(inst.to_apply());
        sum->set_call_form(CallForm::kToApply);
        const std::string dim_text = "reduced dim " + std::to_string(split[s]) + " of %" + operand.name() +
                                     " is split " + std::to_string(cur.counts[split[s]]) + " ways";
        Record(sum, inst.name(), inst.name(), step_text,
               "all-reduce of %" + inst.name() + " over " + step_text + " with %" + inst.to_apply()->name() + ": " +
                   (split.size() == 1 ? split_text
                                      : dim_text + " (one all-reduce per split dim, the last first, as XLA's)"));
      }
      return finish(sum, c);
    }
  }
  std::string why = "%" + inst.name() + " needs its reduced dims whole";
  if (!split.empty() && !variadic) {
    why += " (its init value is not a known identity of %" + inst.to_apply()->name() + ")";
  }
  ASSIGN_OR_RETURN(Instruction * local, local_reduce(Derived(t, kept_from), t, why));
  return finish(local, t);
}

StatusOr<Instruction*> Partitioner::CombineVariadicPartials(const Instruction& inst, Instruction* partial,
                                                           const std::vector<std::vector<int64_t>>& groups,
                                                           int64_t pieces, const std::vector<Instruction*>& inits,
                                                           const std::string& split_text) {
  const std::string text = GroupsText(groups);
  std::vector<Instruction*> gathered;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < partial->shape().tuple_size(); ++i) {
    const Shape& leaf = partial->shape().tuple_shapes(i);
    Instruction* element = Add(Opcode::kGetTupleElement, "get-tuple-element", leaf, {partial});
    element->mutable_attrs().tuple_index = i;
    std::vector<int64_t> dims = leaf.dimensions();
    dims.push_back(1);
    Instruction* one = Add(Opcode::kReshape, "reshape", Shape(leaf.element_type(), dims), {element});
    dims.back() = pieces;
    Instruction* gather = Add(Opcode::kAllGather, "all-gather", Shape(leaf.element_type(), dims), {one});
    InstructionAttributes& attrs = gather->mutable_attrs();
    attrs.channel_id = next_channel_++;
    attrs.replica_groups = ReplicaGroups{};
    attrs.replica_groups->groups = groups;
    attrs.dimensions = std::vector<int64_t>{leaf.rank()};
    attrs.use_global_device_ids = true;
    Record(gather, inst.name(), inst.name(), text,
           "all-gather of the partial results of %" + inst.name() + " (element " + std::to_string(i) + ") over " +
               text + ", reduced again with %" + inst.to_apply()->name() + ": " + split_text +
               " (no all-reduce combines the arrays of a variadic reduce)");
    gathered.push_back(gather);
    shapes.push_back(leaf);
  }
  std::vector<Instruction*> operands = gathered;
  operands.insert(operands.end(), inits.begin(), inits.end());
  Instruction* combined = Add(Opcode::kReduce, inst.name() + ".combined", Shape::Tuple(shapes), operands);
  combined->mutable_attrs().dimensions = std::vector<int64_t>{shapes[0].rank()};
  combined->AppendCalledComputation(inst.to_apply());
  combined->set_call_form(CallForm::kToApply);
  return combined;
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
      case Opcode::kFft:
      case Opcode::kReduceWindow:
      case Opcode::kSelectAndScatter: {
        const std::vector<bool> keep = DimsKeptByWindowOp(inst);
        c = static_cast<int64_t>(keep.size()) != rank || !keep[static_cast<size_t>(k)];
        break;
      }
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
        array_operand ? computed : Whole(inst.operand(k)->shape().rank());
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

// Whether operand i of concatenation `inst` is a slice (unit strides) of an array that
// differs from it only along dim k, which splits evenly into n tiles and is split
// automatically: its windows can be read from that array.
bool Partitioner::SlicedAlong(const Instruction& inst, int64_t i, int64_t k, int64_t n) {
  const Instruction& slice = *inst.operand(i);
  if (slice.opcode() != Opcode::kSlice || slice.operand_count() != 1) return false;
  const Instruction& source = *slice.operand(0);
  const Shape& from = source.shape();
  if (!from.IsArray() || from.rank() != slice.shape().rank() || from.dimensions(k) % n != 0) return false;
  for (int64_t d = 0; d < from.rank(); ++d) {
    const SliceDimension& sd = slice.attrs().slice[d];
    if (sd.stride != 1 || (d != k && (sd.start != 0 || sd.limit != from.dimensions(d)))) return false;
  }
  auto it = scope_->values.find(&source);
  return it != scope_->values.end() && it->second.leaves.size() == 1 && it->second.leaves[0].has_value();
}

std::optional<int64_t> Partitioner::RotationAlong(const Instruction& inst, int64_t k, int64_t n) {
  if (inst.operand_count() < 2 || !SlicedAlong(inst, 0, k, n)) return std::nullopt;
  const Instruction* source = inst.operand(0)->operand(0);
  const int64_t size = source->shape().dimensions(k);
  if (size != inst.shape().dimensions(k)) return std::nullopt;
  const int64_t s = inst.operand(0)->attrs().slice[k].start;
  int64_t at = s;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Instruction& slice = *inst.operand(i);
    if (slice.operand_count() != 1 || slice.operand(0) != source || !SlicedAlong(inst, i, k, n)) return std::nullopt;
    const SliceDimension& sd = slice.attrs().slice[k];
    if (sd.start != at % size) return std::nullopt;
    at = sd.limit;
  }
  // The pieces cover the ring once: they end where the first began.
  if (at % size != s) return std::nullopt;
  return s;
}

// pad, slice and concatenate with a dim they change split in the target: each device
// reads the window of its operands its output tile needs (WindowAlong: collective-permutes
// of the parts of other devices' tiles it reaches, the padding value beyond the array's
// edges), so that the dim stays split as XLA keeps it. A dim takes this path when the
// operands split along it as evenly as the result (no interior padding); the other
// changed dims are computed whole (AlongUnsplitDims).
StatusOr<Value> Partitioner::Windowed(const Instruction& inst, const Grid& target) {
  const Shape& global = inst.shape();
  const int64_t rank = global.rank();
  const InstructionAttributes& attrs = inst.attrs();
  const Opcode op = inst.opcode();
  if (op == Opcode::kConcatenate && inst.dimensions().size() != 1) return AlongUnsplitDims(inst, target);
  std::vector<int64_t> windowed;  // changed dims that stay split
  std::vector<int64_t> whole;     // changed dims computed whole
  for (int64_t k = 0; k < rank; ++k) {
    bool changed = false, evenly = true;
    const int64_t n = target.counts[k];
    for (int64_t i = 0; i < (op == Opcode::kConcatenate ? inst.operand_count() : 1); ++i) {
      const Shape& in = inst.operand(i)->shape();
      if (in.rank() != rank) return AlongUnsplitDims(inst, target);
      const bool sliced = op == Opcode::kConcatenate && inst.dimensions()[0] == k && SlicedAlong(inst, i, k, n);
      evenly = evenly && (in.dimensions(k) % n == 0 || sliced);
    }
    const Shape& in = inst.operand(0)->shape();
    if (op == Opcode::kPad) {
      const PaddingDimension& p = attrs.padding[k];
      changed = p.low != 0 || p.high != 0 || p.interior != 0;
      evenly = evenly && p.interior == 0;
    } else if (op == Opcode::kSlice) {
      changed = in.dimensions(k) != global.dimensions(k) || attrs.slice[k].stride != 1;
    } else {
      changed = inst.dimensions()[0] == k;
    }
    if (!changed) continue;
    (n > 1 && evenly ? windowed : whole).push_back(k);
  }
  if (windowed.empty()) return AlongUnsplitDims(inst, target);
  const Grid at = Relaxed(target, whole);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(at, global, "%" + inst.name()));
  const std::string why = "%" + inst.name() + " reads the window of its operand its tile needs";
  Instruction* pad = nullptr;
  if (op == Opcode::kPad) {
    ASSIGN_OR_RETURN(pad, Operand(inst, 1, Whole(0), why));
  } else {
    auto zero = std::make_unique<Literal>(Shape::Scalar(global.element_type()));
    pad = Add(Opcode::kConstant, "constant", Shape::Scalar(global.element_type()), {});
    pad->set_literal(std::move(zero));
  }
  const std::string reads = " reads elements of its operand that lie on other devices";
  auto window = [&](Instruction* x, const Instruction& operand, int64_t k, int64_t first, int64_t length) {
    std::vector<int64_t> starts;
    const int64_t step = shape.dimensions(k) * (op == Opcode::kSlice ? attrs.slice[k].stride : 1);
    for (int64_t d = 0; d < devices_; ++d) starts.push_back(first + at.index[d][k] * step);
    return WindowAlong(x, at, k, operand.shape().dimensions(k), starts, length, pad, inst.name(), operand.name(), reads);
  };
  if (op != Opcode::kConcatenate) {
    ASSIGN_OR_RETURN(Instruction * x, Operand(inst, 0, at, why));
    for (int64_t k : windowed) {
      const int64_t tile = shape.dimensions(k);
      if (op == Opcode::kPad) {
        ASSIGN_OR_RETURN(x, window(x, *inst.operand(0), k, -attrs.padding[k].low, tile));
      } else {
        ASSIGN_OR_RETURN(x, window(x, *inst.operand(0), k, attrs.slice[k].start, (tile - 1) * attrs.slice[k].stride + 1));
      }
    }
    Instruction* local = Clone(inst, op == Opcode::kPad ? std::vector<Instruction*>{x, pad} : std::vector<Instruction*>{x}, shape);
    for (int64_t k = 0; k < rank; ++k) {
      if (op == Opcode::kPad && std::find(windowed.begin(), windowed.end(), k) != windowed.end()) {
        local->mutable_attrs().padding[k] = PaddingDimension{};
      }
      if (op == Opcode::kSlice && at.counts[k] > 1) {
        SliceDimension& sd = local->mutable_attrs().slice[k];
        const bool w = std::find(windowed.begin(), windowed.end(), k) != windowed.end();
        sd.start = 0;
        sd.limit = w ? (shape.dimensions(k) - 1) * sd.stride + 1 : shape.dimensions(k);
        if (!w) sd.stride = 1;
      }
    }
    return Finish(inst, local, at, target);
  }
  const int64_t k = windowed[0];
  const int64_t tile = shape.dimensions(k);
  // A rotation of one array (jnp.roll): each device's tile is the window of that array
  // starting s elements after its own tile's position, around the ring: the parts of (at
  // most) two tiles, one collective-permute each, as XLA's partitioner rotates.
  if (std::optional<int64_t> s = RotationAlong(inst, k, target.counts[k])) {
    const Instruction& source = *inst.operand(0)->operand(0);
    const Value& v = scope_->values.at(&source);
    ASSIGN_OR_RETURN(Instruction * x, Reshard(v.local, *v.leaves[0], at, v.global, source.name(), inst.name(), why));
    std::vector<int64_t> starts;
    for (int64_t d = 0; d < devices_; ++d) starts.push_back(at.index[d][k] * tile + *s);
    ASSIGN_OR_RETURN(x, WindowAlong(x, at, k, source.shape().dimensions(k), starts, tile, pad, inst.name(),
                                    source.name(), " is a rotation of it (a roll)", /*wrap=*/true));
    Instruction* local = AddNamed(Opcode::kCopy, inst.name(), shape, {x});
    return Finish(inst, local, at, target);
  }
  // Otherwise each output element comes from the operand that covers its position; every
  // operand's window at the tile's position is read and the positions it covers selected.
  Shape positions_shape(PrimitiveType::kS32, shape.dimensions());
  Instruction* iota = Add(Opcode::kIota, "iota", positions_shape, {});
  iota->mutable_attrs().iota_dimension = k;
  std::vector<int64_t> tile_start;
  for (int64_t d = 0; d < devices_; ++d) tile_start.push_back(at.index[d][k] * tile);
  Instruction* start = Add(Opcode::kBroadcast, "broadcast", positions_shape, {PerDeviceOffset(tile_start)});
  start->mutable_attrs().dimensions = std::vector<int64_t>{};
  Instruction* position = Add(Opcode::kAdd, "add", positions_shape, {iota, start});
  auto compare = [&](int64_t bound, ComparisonDirection direction) {
    Instruction* b = Add(Opcode::kBroadcast, "broadcast", positions_shape, {ScalarS32(bound)});
    b->mutable_attrs().dimensions = std::vector<int64_t>{};
    Instruction* c = Add(Opcode::kCompare, "compare", Shape(PrimitiveType::kPred, shape.dimensions()), {position, b});
    c->mutable_attrs().comparison_direction = direction;
    return c;
  };
  Instruction* result = nullptr;
  int64_t offset = 0;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const int64_t size = inst.operand(i)->shape().dimensions(k);
    Instruction* x = nullptr;
    if (size % target.counts[k] != 0) {
      // A slice whose piece does not split evenly (a roll's two parts): the window is
      // read from the array it slices, shifted by where the slice starts.
      const Instruction& source = *inst.operand(i)->operand(0);
      const Value& v = scope_->values.at(&source);
      ASSIGN_OR_RETURN(x, Reshard(v.local, *v.leaves[0], at, v.global, source.name(), inst.name(), why));
      ASSIGN_OR_RETURN(x, window(x, source, k, inst.operand(i)->attrs().slice[k].start - offset, tile));
    } else {
      ASSIGN_OR_RETURN(x, Operand(inst, i, at, why));
      ASSIGN_OR_RETURN(x, window(x, *inst.operand(i), k, -offset, tile));
    }
    if (result == nullptr) {
      result = x;
    } else {
      Instruction* mask = compare(offset, ComparisonDirection::kGe);
      result = Add(Opcode::kSelect, "select", x->shape(), {mask, x, result});
    }
    offset += size;
  }
  Instruction* local = AddNamed(Opcode::kCopy, inst.name(), shape, {result});
  return Finish(inst, local, at, target);
}

// A sort of several arrays (keys and values) along one dim, or a topk (values and
// positions along the last): computed with that dim whole and the others split as the
// first result is wanted. A sort whose dim is wanted split moves that split to another dim
// while it runs (an all-to-all there and back, as XLA does) when one can take it.
StatusOr<Value> Partitioner::SortAlongOneDim(const Instruction& inst, const std::vector<LeafGrid>& target) {
  const Shape& in = inst.operand(0)->shape();
  const int64_t dim = inst.opcode() == Opcode::kTopK ? in.rank() - 1 : inst.dimensions()[0];
  Grid computed = Relaxed(*target[0], {dim});
  const Grid& t = *target[0];
  if (inst.opcode() == Opcode::kSort && t.counts[dim] > 1) {
    if (std::optional<int64_t> j = DimTakingTheSortSplit(t.counts, in, dim)) {
      computed = t;
      const int64_t n = t.counts[dim];
      computed.counts[*j] *= n;
      computed.counts[dim] = 1;
      for (int64_t d = 0; d < devices_; ++d) {
        computed.index[d][*j] = t.index[d][*j] * n + t.index[d][dim];
        computed.index[d][dim] = 0;
      }
      RenumberCopies(computed);
    }
  }
  const std::string why = "%" + inst.name() + " needs dim " + std::to_string(dim) + " whole";
  std::vector<Instruction*> operands;
  for (int64_t k = 0; k < inst.operand_count(); ++k) {
    if (inst.operand(k)->shape().rank() != in.rank()) return Fallback(inst, target, "operands of different ranks");
    ASSIGN_OR_RETURN(Instruction * op, Operand(inst, k, computed, why));
    operands.push_back(op);
  }
  if (!inst.shape().IsTuple()) {
    ASSIGN_OR_RETURN(Shape shape, LocalShape(computed, inst.shape(), "%" + inst.name()));
    return Finish(inst, Clone(inst, operands, shape), computed, t);
  }
  std::vector<Shape> leaves;
  std::vector<LeafGrid> grids;
  for (int64_t i = 0; i < inst.shape().tuple_size(); ++i) {
    ASSIGN_OR_RETURN(Shape leaf, LocalShape(computed, inst.shape().tuple_shapes(i), "%" + inst.name()));
    leaves.push_back(std::move(leaf));
    grids.push_back(computed);
  }
  Value local{Clone(inst, operands, Shape::Tuple(leaves)), inst.shape(), grids};
  ASSIGN_OR_RETURN(Instruction * out, ReshardValue(local, target, inst.name(), inst.name(), "%" + inst.name() + " is wanted so"));
  return Value{out, inst.shape(), target};
}

// A reverse along split dims: the result's tile j along such a dim is the operand's tile
// n-1-j reversed. The operand is wanted with its tiles in mirrored order (one
// collective-permute moves them) and each device reverses its own.
StatusOr<Value> Partitioner::Reverse(const Instruction& inst, const Grid& target) {
  Grid want = target;
  bool mirrored = false;
  for (int64_t k : inst.dimensions()) {
    if (k < 0 || k >= target.rank() || target.counts[k] <= 1) continue;
    mirrored = true;
    for (int64_t d = 0; d < devices_; ++d) want.index[d][k] = target.counts[k] - 1 - target.index[d][k];
  }
  RenumberCopies(want);
  ASSIGN_OR_RETURN(Shape shape, LocalShape(target, inst.shape(), "%" + inst.name()));
  ASSIGN_OR_RETURN(Instruction * operand,
                   Operand(inst, 0, want,
                           "%" + inst.name() + (mirrored ? " reverses the order of its split dims' tiles" : " reverses tile by tile")));
  return Value{Clone(inst, {operand}, shape), inst.shape(), {target}};
}

// A dynamic-update-slice along split dims keeps them split: each device clamps the start
// as the op does, takes the part of the update (whole along those dims) that falls in its
// tile, and selects it over its own elements; no collective. XLA's plan for a cache
// split along its sequence dim.
StatusOr<Value> Partitioner::DynamicUpdateSlice(const Instruction& inst, const Grid& target) {
  const Shape& global = inst.shape();
  const int64_t rank = global.rank();
  if (inst.operand_count() != 2 + rank || !inst.operand(1)->shape().IsArray() ||
      inst.operand(1)->shape().rank() != rank) {
    return AlongUnsplitDims(inst, target);
  }
  const Shape& us = inst.operand(1)->shape();
  std::vector<int64_t> split;
  for (int64_t k = 0; k < rank; ++k)
    if (us.dimensions(k) != global.dimensions(k) && target.counts[k] > 1) split.push_back(k);
  bool indices_ok = true;
  for (int64_t k = 0; k < rank; ++k) indices_ok = indices_ok && global.dimensions(k) < (int64_t{1} << 30);
  for (int64_t k = 0; k < rank; ++k) {
    const Shape& is = inst.operand(2 + k)->shape();
    // Computed in s32: wider or unsigned 32-bit starts could wrap there.
    indices_ok = indices_ok && is.IsArray() && is.rank() == 0 && IsInteger(is.element_type()) &&
                 BitWidth(is.element_type()) <= 32 && (IsSignedInt(is.element_type()) || BitWidth(is.element_type()) < 32);
  }
  if (split.empty() || !indices_ok) return AlongUnsplitDims(inst, target);
  const std::string why = "%" + inst.name() + " updates each tile of its split dims where it lies";
  std::vector<int64_t> ufrom(static_cast<size_t>(rank), -1);
  for (int64_t k = 0; k < rank; ++k)
    if (us.dimensions(k) == global.dimensions(k)) ufrom[static_cast<size_t>(k)] = k;
  ASSIGN_OR_RETURN(Shape shape, LocalShape(target, global, "%" + inst.name()));
  ASSIGN_OR_RETURN(Instruction * operand, Operand(inst, 0, target, why));
  ASSIGN_OR_RETURN(Instruction * update, Operand(inst, 1, Derived(target, ufrom), why));
  const Shape s32 = Shape::Scalar(PrimitiveType::kS32);
  std::vector<Instruction*> starts;  // clamped global starts, s32
  for (int64_t k = 0; k < rank; ++k) {
    ASSIGN_OR_RETURN(Instruction * index, Operand(inst, 2 + k, Whole(0), why));
    if (index->shape().element_type() != PrimitiveType::kS32) index = Add(Opcode::kConvert, "convert", s32, {index});
    starts.push_back(Add(Opcode::kClamp, "clamp", s32,
                         {ScalarS32(0), index, ScalarS32(global.dimensions(k) - us.dimensions(k))}));
  }
  // The update padded by a tile on each side of its split dims, then the window at this
  // tile's place: position p of the tile reads update element t0 + p - start.
  Shape padded = update->shape();
  padded.clear_layout();
  std::vector<PaddingDimension> config(static_cast<size_t>(rank));
  Shape window = update->shape();
  window.clear_layout();
  std::vector<Instruction*> window_at(static_cast<size_t>(rank), nullptr);
  std::vector<Instruction*> relative(static_cast<size_t>(rank), nullptr);  // t0 - start
  for (int64_t k : split) {
    const int64_t tile = shape.dimensions(k);
    config[static_cast<size_t>(k)].low = tile;
    config[static_cast<size_t>(k)].high = tile;
    padded.set_dimension(k, us.dimensions(k) + 2 * tile);
    window.set_dimension(k, tile);
    std::vector<int64_t> t0;
    for (int64_t d = 0; d < devices_; ++d) t0.push_back(target.index[d][k] * tile);
    relative[static_cast<size_t>(k)] = Add(Opcode::kSubtract, "subtract", s32, {PerDeviceOffset(t0), starts[k]});
    window_at[static_cast<size_t>(k)] =
        Add(Opcode::kAdd, "add", s32, {relative[static_cast<size_t>(k)], ScalarS32(tile)});
  }
  const Shape scalar(global.element_type(), {});
  Instruction* zero = Add(Opcode::kConstant, "constant", scalar, {});
  zero->set_literal(std::make_unique<Literal>(scalar));
  Instruction* pad = Add(Opcode::kPad, "pad", padded, {update, zero});
  pad->mutable_attrs().padding = config;
  std::vector<Instruction*> ds_operands = {pad};
  std::vector<Instruction*> at_operands;  // where the window lies in this device's tile
  for (int64_t k = 0; k < rank; ++k) {
    const bool is_split = window_at[static_cast<size_t>(k)] != nullptr;
    ds_operands.push_back(is_split ? window_at[static_cast<size_t>(k)] : ScalarS32(0));
    at_operands.push_back(is_split || us.dimensions(k) == global.dimensions(k) ? ScalarS32(0) : starts[k]);
  }
  Instruction* part = Add(Opcode::kDynamicSlice, "dynamic-slice", window, ds_operands);
  part->mutable_attrs().dynamic_slice_sizes = window.dimensions();
  // Which window positions the update covers: t0 - start + p in [0, u) along each split dim.
  const Shape pred(PrimitiveType::kPred, window.dimensions());
  const Shape positions(PrimitiveType::kS32, window.dimensions());
  Instruction* mask = nullptr;
  for (int64_t k : split) {
    Instruction* iota = Add(Opcode::kIota, "iota", positions, {});
    iota->mutable_attrs().iota_dimension = k;
    Instruction* rel = Add(Opcode::kBroadcast, "broadcast", positions, {relative[static_cast<size_t>(k)]});
    rel->mutable_attrs().dimensions = std::vector<int64_t>{};
    Instruction* pos = Add(Opcode::kAdd, "add", positions, {iota, rel});
    auto compare = [&](int64_t bound, ComparisonDirection direction) {
      Instruction* b = Add(Opcode::kBroadcast, "broadcast", positions, {ScalarS32(bound)});
      b->mutable_attrs().dimensions = std::vector<int64_t>{};
      Instruction* c = Add(Opcode::kCompare, "compare", pred, {pos, b});
      c->mutable_attrs().comparison_direction = direction;
      return c;
    };
    Instruction* in = Add(Opcode::kAnd, "and", pred,
                          {compare(0, ComparisonDirection::kGe), compare(us.dimensions(k), ComparisonDirection::kLt)});
    mask = mask == nullptr ? in : Add(Opcode::kAnd, "and", pred, {mask, in});
  }
  std::vector<Instruction*> old_operands = {operand};
  old_operands.insert(old_operands.end(), at_operands.begin(), at_operands.end());
  Instruction* old = Add(Opcode::kDynamicSlice, "dynamic-slice", window, old_operands);
  old->mutable_attrs().dynamic_slice_sizes = window.dimensions();
  Instruction* merged = Add(Opcode::kSelect, "select", window, {mask, part, old});
  std::vector<Instruction*> dus_operands = {operand, merged};
  dus_operands.insert(dus_operands.end(), at_operands.begin(), at_operands.end());
  Instruction* local = Add(Opcode::kDynamicUpdateSlice, inst.name(), shape, dus_operands);
  return Value{local, global, {target}};
}

// A reduce-window: dims its window leaves alone keep their split; a windowed dim split in
// the target stays split where a halo exchange serves each device's windows (filled with
// the init value at the global edges, as the window's padding); the others are computed
// whole.
StatusOr<Value> Partitioner::ReduceWindow(const Instruction& inst, const Grid& target) {
  const Shape& in = inst.operand(0)->shape();
  const std::vector<bool> keep = DimsKeptByWindowOp(inst);
  if (static_cast<int64_t>(keep.size()) != in.rank() || in.rank() != inst.shape().rank()) {
    return AlongUnsplitDims(inst, target);
  }
  std::vector<int64_t> relax;
  std::vector<std::pair<int64_t, Halo>> halos;
  for (int64_t k = 0; k < in.rank(); ++k) {
    if (keep[static_cast<size_t>(k)] || target.counts[k] <= 1) continue;
    std::optional<Halo> h =
        HaloOf(inst.attrs().window->dimensions[static_cast<size_t>(k)], in.dimensions(k), inst.shape().dimensions(k),
               target.counts[k]);
    if (h) {
      halos.push_back({k, *h});
    } else {
      relax.push_back(k);
    }
  }
  if (halos.empty()) return AlongUnsplitDims(inst, target);
  const Grid at = Relaxed(target, relax);
  const std::string why = "%" + inst.name() + " is computed split along the dims its halos serve";
  ASSIGN_OR_RETURN(Instruction * operand, Operand(inst, 0, at, why));
  ASSIGN_OR_RETURN(Instruction * init, Operand(inst, 1, Whole(0), why));
  for (const auto& [k, h] : halos) {
    ASSIGN_OR_RETURN(operand, WithHalo(operand, at, k, h, init, inst.name(), inst.operand(0)->name()));
  }
  ASSIGN_OR_RETURN(Shape shape, LocalShape(at, inst.shape(), "%" + inst.name()));
  Instruction* local = Clone(inst, {operand, init}, shape);
  for (const auto& [k, h] : halos) {
    WindowDimension& w = local->mutable_attrs().window->dimensions[static_cast<size_t>(k)];
    w.padding_low = h.local_pad_lo;
    w.padding_high = h.local_pad_hi;
  }
  return Finish(inst, local, at, target);
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
    std::vector<LeafGrid> pred_leaves = {Whole(0)};
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
                   Operand(inst, 0, Whole(inst.operand(0)->shape().rank()),
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
    for (const LeafGrid& leaf : v.leaves) ok = ok && (!leaf || (leaf->Replicated() && !leaf->PartlyManual()));
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

StatusOr<std::optional<Value>> Partitioner::UserCollective(const Instruction& inst, const Grid& t) {
  const Opcode op = inst.opcode();
  if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray() ||
      inst.operand(0)->shape().rank() != inst.shape().rank() || !inst.has_attributes()) {
    return std::optional<Value>();
  }
  // The dims the collective moves data along are whole on every device; the others stay
  // split as the result wants them, and each group's devices must hold the same tile of
  // them (a psum over a manual axis adds the same tile of each group's value).
  std::vector<int64_t> along;
  if (op == Opcode::kAllGather || op == Opcode::kReduceScatter || op == Opcode::kAllToAll) {
    along = inst.dimensions();
    if (along.size() != 1) return std::optional<Value>();
  } else if (op != Opcode::kAllReduce && op != Opcode::kCollectivePermute) {
    return std::optional<Value>();
  }
  ASSIGN_OR_RETURN(CollectiveDevices devices, DevicesOfCollective(inst));
  std::vector<std::vector<int64_t>> groups = devices.groups;
  if (groups.empty()) {
    groups.emplace_back();
    for (int64_t d = 0; d < devices_; ++d) groups.back().push_back(d);
  }
  const Grid g = Relaxed(t, along);
  for (const std::vector<int64_t>& group : groups) {
    for (int64_t d : group) {
      if (d < 0 || d >= devices_) return InvalidArgument("%" + inst.name() + ": device " + std::to_string(d) + " is not one of the module's partitions");
      if (g.index[static_cast<size_t>(d)] != g.index[static_cast<size_t>(group[0])]) return std::optional<Value>();
    }
  }
  ASSIGN_OR_RETURN(Instruction * operand,
                   Operand(inst, 0, g, "%" + inst.name() + " exchanges the tiles its groups' devices share"));
  ASSIGN_OR_RETURN(Shape shape, LocalShape(g, inst.shape(), "%" + inst.name()));
  Instruction* local = Clone(inst, {operand}, shape);
  ASSIGN_OR_RETURN(Value done, Finish(inst, local, g, t));
  return std::optional<Value>(std::move(done));
}

StatusOr<Value> Partitioner::Fallback(const Instruction& inst, const std::vector<LeafGrid>& target,
                                      const std::string& why) {
  // Replicated operands and a replicated result: every device computing the whole value is
  // the plan itself (XLA's too), not a fallback.
  bool replicated = true;
  for (const LeafGrid& leaf : target) replicated = replicated && leaf && leaf->Replicated();
  for (int64_t i = 0; replicated && i < inst.operand_count(); ++i) {
    for (const LeafGrid& leaf : scope_->values.at(inst.operand(i)).leaves) replicated = replicated && leaf && leaf->Replicated();
  }
  if (!replicated) RecordFallback(inst, why);
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
      whole.push_back(Whole(v.leaves[l]->rank()));
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
    whole.push_back(Whole(leaf->rank()));
  }
  Value computed{local, inst.shape(), whole};
  ASSIGN_OR_RETURN(Instruction * out, ReshardValue(computed, target, inst.name(), inst.name(),
                                                   "%" + inst.name() + " is wanted split"));
  return Value{out, inst.shape(), target};
}

StatusOr<Value> Partitioner::ShardingMarker(const Instruction& inst, const std::string& target_name,
                                            const std::vector<LeafGrid>& target) {
  const bool array = !inst.shape().IsTuple() && inst.shape().IsArray();
  if (target_name == "SPMDFullToShardShape") {
    const Value& v = scope_->values.at(inst.operand(0));
    if (v.leaves.size() != 1 || !v.leaves[0]) {
      return InvalidArgument("%" + inst.name() +
                             ": SPMDFullToShardShape of a value that is not split automatically");
    }
    // A nested region (a shard_map in another's body) starts from a partially manual
    // value and makes more axes manual: each of its manual groups lies within one of the
    // operand's.
    if (v.leaves[0]->PartlyManual() && array && target.size() == 1 && target[0] &&
        !ManualGroupsWithin(*target[0], *v.leaves[0])) {
      return InvalidArgument("%" + inst.name() + ": SPMDFullToShardShape of %" + inst.operand(0)->name() +
                             ", which is already partially manual over axes the region does not make manual");
    }
    if (array && target.size() == 1 && target[0] && target[0]->PartlyManual()) {
      // A region manual over some mesh axes: each device's tile of the operand becomes its
      // tile of the region's value (XLA's reading, the data unmoved). Devices of one
      // manual group holding the same region tile must then hold the same operand tile.
      const Grid& region = *target[0];
      const Grid& held = *v.leaves[0];
      ASSIGN_OR_RETURN(Shape shape, LocalShape(region, inst.shape(), "%" + inst.name()));
      if (!v.local->shape().SameDimensions(shape)) {
        return InvalidArgument("%" + inst.name() + ": SPMDFullToShardShape gives " + inst.shape().ToString(false) +
                               " split as " + DescribeGrid(region) + " (tiles " + shape.ToString(false) + ") but %" +
                               inst.operand(0)->name() + "'s tile is " + v.local->shape().ToString(false));
      }
      std::map<std::vector<int64_t>, std::vector<int64_t>> source;
      for (int64_t d = 0; d < devices_; ++d) {
        auto [it, fresh] = source.emplace(region.TileKey(d), held.TileKey(d));
        if (!fresh && it->second != held.TileKey(d)) {
          return InvalidArgument("%" + inst.name() + ": device " + std::to_string(d) +
                                 " would hold another tile of %" + inst.operand(0)->name() +
                                 " than the devices of its manual group that hold the same tile of the region's "
                                 "value; the operand's sharding does not split it along the manual axes");
        }
      }
      return Value{AddNamed(Opcode::kCopy, inst.name(), shape, {v.local}), inst.shape(), target};
    }
    if (!v.local->shape().SameDimensions(inst.shape())) {
      return InvalidArgument("%" + inst.name() + ": SPMDFullToShardShape gives " +
                             inst.shape().ToString(false) + " but %" + inst.operand(0)->name() +
                             "'s tile is " + v.local->shape().ToString(false));
    }
    Instruction* local = AddNamed(Opcode::kCopy, inst.name(), inst.shape(), {v.local});
    return Value{local, inst.shape(), {std::nullopt}};
  }
  if (target_name == "SPMDShardToFullShape") {
    const Value& v = scope_->values.at(inst.operand(0));
    if (!array || target.size() != 1 || !target[0]) {
      return InvalidArgument("%" + inst.name() +
                             ": SPMDShardToFullShape needs an array with an automatic sharding");
    }
    if (v.leaves.size() != 1 || (v.leaves[0] && !v.leaves[0]->PartlyManual() && !v.leaves[0]->Replicated())) {
      return InvalidArgument("%" + inst.name() + ": SPMDShardToFullShape of %" + inst.operand(0)->name() +
                             ", which is not manual");
    }
    // The end of a nested region: back to the enclosing region's partially manual value,
    // whose manual groups are unions of the nested region's.
    if (target[0]->PartlyManual() && v.leaves[0] &&
        (!v.leaves[0]->PartlyManual() || !ManualGroupsWithin(*v.leaves[0], *target[0]))) {
      return InvalidArgument("%" + inst.name() + ": SPMDShardToFullShape of %" + inst.operand(0)->name() +
                             " into a partially manual value whose manual groups do not contain its own");
    }
    ASSIGN_OR_RETURN(Shape shape, LocalShape(*target[0], inst.shape(), "%" + inst.name()));
    if (!v.local->shape().SameDimensions(shape)) {
      return InvalidArgument("%" + inst.name() + ": SPMDShardToFullShape of a " +
                             v.local->shape().ToString(false) +
                             " tile, but its sharding's tile is " + shape.ToString(false));
    }
    return Value{AddNamed(Opcode::kCopy, inst.name(), shape, {v.local}), inst.shape(), target};
  }
  // "Sharding": a constraint, met by resharding the operand.
  const Value& v = scope_->values.at(inst.operand(0));
  ASSIGN_OR_RETURN(Instruction * op, ReshardValue(v, target, inst.operand(0)->name(), inst.name(),
                                                  "sharding constraint %" + inst.name()));
  return Value{AddNamed(Opcode::kCopy, inst.name(), op->shape(), {op}), inst.shape(), target};
}

StatusOr<Value> Partitioner::Parameter(const Instruction& inst,
                                       const std::vector<LeafGrid>& target) {
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

StatusOr<Value> Partitioner::GetTupleElement(const Instruction& inst,
                                             const std::vector<LeafGrid>& target) {
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

StatusOr<Value> Partitioner::Tuple(const Instruction& inst, const std::vector<LeafGrid>& target) {
  std::vector<Instruction*> operands;
  std::vector<Shape> shapes;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Value& v = scope_->values.at(inst.operand(i));
    ASSIGN_OR_RETURN(Instruction * op,
                     ReshardValue(v, {target[i]}, inst.operand(i)->name(), inst.name(),
                                  "%" + inst.name() + " holds it as element " + std::to_string(i)));
    operands.push_back(op);
    shapes.push_back(op->shape());
  }
  return Value{Clone(inst, operands, Shape::Tuple(shapes)), inst.shape(), target};
}

StatusOr<Value> Partitioner::ArrayOp(const Instruction& inst, const Grid& t,
                                     const std::vector<LeafGrid>& target) {
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
      if (inst.operand_count() == 2) return Reduce(inst, target);
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
    case Opcode::kConcatenate:
      return Windowed(inst, t);
    case Opcode::kReverse:
      if (inst.operand_count() == 1) return Reverse(inst, t);
      return AlongUnsplitDims(inst, t);
    case Opcode::kDynamicUpdateSlice:
      return DynamicUpdateSlice(inst, t);
    case Opcode::kDynamicSlice:
    case Opcode::kReduceWindow:
      if (inst.operand_count() == 2) return ReduceWindow(inst, t);
      return AlongUnsplitDims(inst, t);
    case Opcode::kFft:
    case Opcode::kSelectAndScatter:
      return AlongUnsplitDims(inst, t);
    case Opcode::kConvolution:
      if (inst.attrs().feature_group_count >= 1 && inst.attrs().batch_group_count >= 1 &&
          (inst.attrs().feature_group_count == 1 || inst.attrs().batch_group_count == 1) &&
          inst.attrs().convolution_dimension_numbers) {
        return Convolution(inst, t);
      }
      break;
    case Opcode::kIota:
      return Iota(inst, t);
    case Opcode::kGather:
      if (inst.attrs().gather_dimension_numbers && inst.operand_count() == 2) return Gather(inst, t);
      break;
    case Opcode::kScatter:
      if (inst.attrs().scatter_dimension_numbers && inst.operand_count() == 3) return Scatter(inst, t);
      break;
    default:
      break;
  }
  return Fallback(inst, target, "no native rule for " + std::string(OpcodeName(op)) + " here");
}

std::optional<StatusOr<Value>> Partitioner::CustomCallByShardingRule(const Instruction& inst,
                                                                     const std::vector<LeafGrid>& target) {
  StatusOr<std::optional<SdyOpShardingRule>> parsed = ShardingRuleOf(inst);
  if (parsed.ok() && !parsed->has_value()) return std::nullopt;
  const std::string name = "%" + inst.name();
  if (!parsed.ok()) return Fallback(inst, target, name + "'s sharding rule is not understood: " + parsed.status().message());
  const SdyOpShardingRule& rule = **parsed;
  // The rule must name every operand's and result's dims.
  std::vector<const Shape*> results;
  if (inst.shape().IsTuple()) {
    for (const Shape& s : inst.shape().tuple_shapes()) results.push_back(&s);
  } else {
    results.push_back(&inst.shape());
  }
  auto fits = [&](const std::vector<SdyOpShardingRule::Dims>& side, const std::vector<const Shape*>& shapes) {
    if (side.size() != shapes.size()) return false;
    for (size_t i = 0; i < shapes.size(); ++i)
      if (!rule.Fits(side[i], *shapes[i])) return false;
    return true;
  };
  std::vector<const Shape*> operands;
  for (const Instruction* o : inst.operands()) operands.push_back(&o->shape());
  if (!fits(rule.operands, operands) || !fits(rule.results, results) || target.size() != results.size() ||
      !std::all_of(target.begin(), target.end(), [](const LeafGrid& l) { return l.has_value(); })) {
    return Fallback(inst, target, name + "'s sharding rule does not match its operands and results");
  }
  // The splits come from one result: the first whose wanted grid splits a pass-through
  // factor. Each pass-through factor is split as that result's dim of it; the rest whole.
  size_t ref = 0;
  for (size_t r = 0; r < results.size(); ++r) {
    bool splits = false;
    for (size_t d = 0; d < rule.results[r].size(); ++d)
      splits = splits || (target[r]->counts[d] > 1 && !rule.PassThrough(rule.results[r][d]).empty());
    if (splits) {
      ref = r;
      break;
    }
  }
  auto from_ref = [&](const SdyOpShardingRule::Dims& dims) {
    std::vector<int64_t> from(dims.size(), -1);
    for (size_t d = 0; d < dims.size(); ++d) {
      const std::string f = rule.PassThrough(dims[d]);
      if (f.empty()) continue;
      for (size_t rd = 0; rd < rule.results[ref].size(); ++rd)
        if (rule.results[ref][rd].size() == 1 && rule.results[ref][rd][0] == f) from[d] = static_cast<int64_t>(rd);
    }
    return from;
  };
  const Grid& reference = *target[ref];
  std::vector<LeafGrid> computed;
  std::string split_dims;
  for (size_t r = 0; r < results.size(); ++r) computed.push_back(Derived(reference, from_ref(rule.results[r])));
  for (size_t d = 0; d < computed[ref]->counts.size(); ++d) {
    if (computed[ref]->counts[d] > 1) split_dims += (split_dims.empty() ? "" : ", ") + rule.results[ref][d][0];
  }
  const std::string why = split_dims.empty()
                              ? name + " is computed whole: its sharding rule lets no wanted split through"
                              : name + " is computed split along the factors its sharding rule passes through (" +
                                    split_dims + ")";
  std::vector<Instruction*> locals;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    ASSIGN_OR_RETURN(Instruction * o, Operand(inst, i, Derived(reference, from_ref(rule.operands[i])), why));
    locals.push_back(o);
  }
  Shape shape = inst.shape();
  for (size_t r = 0; r < results.size(); ++r) {
    ASSIGN_OR_RETURN(Shape local, LocalShape(*computed[r], *results[r], name));
    if (shape.IsTuple()) {
      (*shape.mutable_tuple_shapes())[r] = local;
    } else {
      shape = local;
    }
  }
  Instruction* call = Clone(inst, locals, shape);
  // The rule's factor sizes are the global ones: the per-device call drops it, as XLA's does.
  std::erase_if(call->mutable_attrs().frontend_attributes,
                [](const auto& kv) { return kv.first == "xla.sdy.sharding_rule"; });
  call->mutable_attrs().has_frontend_attributes = !call->attrs().frontend_attributes.empty();
  if (call->attrs().has_operand_layout_constraints) {
    std::vector<Shape>& constraints = call->mutable_attrs().operand_layout_constraints;
    for (size_t i = 0; i < constraints.size() && i < locals.size(); ++i) {
      if (constraints[i].IsArray() && constraints[i].rank() == locals[i]->shape().rank()) {
        for (int64_t d = 0; d < constraints[i].rank(); ++d) constraints[i].set_dimension(d, locals[i]->shape().dimensions(d));
      }
    }
  }
  ASSIGN_OR_RETURN(Instruction * out, ReshardValue(Value{call, inst.shape(), computed}, target, inst.name(), inst.name(),
                                                   name + " is wanted so"));
  return Value{out, inst.shape(), target};
}

StatusOr<std::vector<int64_t>> Partitioner::ManualGroupsOf(const Instruction& inst,
                                                            const std::vector<LeafGrid>& target) {
  std::vector<int64_t> groups;
  std::string from;
  auto take = [&](const std::vector<LeafGrid>& leaves, const std::string& whose) -> Status {
    for (const LeafGrid& leaf : leaves) {
      if (!leaf || !leaf->PartlyManual()) continue;
      if (groups.empty()) {
        groups = leaf->manual;
        from = whose;
      } else if (groups != leaf->manual) {
        return Unimplemented("%" + inst.name() + ": " + whose + " and " + from +
                             " are partially manual over different device groups");
      }
    }
    return Status::Ok();
  };
  RETURN_IF_ERROR(take(target, "its sharding"));
  // A region's boundary moves no data between devices; at a nested region's its two
  // sides' groups differ (ShardingMarker checks that one side's lie within the other's).
  if (inst.opcode() == Opcode::kCustomCall && inst.has_attributes() &&
      (inst.attrs().custom_call_target == "SPMDFullToShardShape" ||
       inst.attrs().custom_call_target == "SPMDShardToFullShape")) {
    return groups;
  }
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    auto it = scope_->values.find(inst.operand(i));
    if (it != scope_->values.end()) RETURN_IF_ERROR(take(it->second.leaves, "%" + inst.operand(i)->name()));
  }
  return groups;
}

StatusOr<Value> Partitioner::Visit(const Instruction& inst) {
  ASSIGN_OR_RETURN(std::vector<LeafGrid> target, TargetLeaves(inst));
  ASSIGN_OR_RETURN(manual_, ManualGroupsOf(inst, target));
  manual_violation_.clear();
  StatusOr<Value> value = VisitRules(inst, target);
  if (value.ok() && !manual_violation_.empty()) {
    return Unimplemented("%" + inst.name() + ": in a partially manual region, " + manual_violation_ +
                         " (spmd-partitioner has no rule that keeps them apart here)");
  }
  return value;
}

StatusOr<Value> Partitioner::VisitRules(const Instruction& inst, const std::vector<LeafGrid>& target) {
  const bool manual =
      std::all_of(target.begin(), target.end(), [](const LeafGrid& l) { return !l; });
  const bool array = !inst.shape().IsTuple() && inst.shape().IsArray();
  const std::string target_name = inst.has_attributes() && inst.attrs().has_custom_call_target
                                      ? inst.attrs().custom_call_target
                                      : std::string();
  if (inst.opcode() == Opcode::kCustomCall &&
      (target_name == "SPMDFullToShardShape" || target_name == "SPMDShardToFullShape" ||
       target_name == "Sharding")) {
    return ShardingMarker(inst, target_name, target);
  }
  if (manual && inst.opcode() != Opcode::kParameter) return Manual(inst, target);
  if (array && target.size() == 1 && target[0] && target[0]->PartlyManual() &&
      IsCrossDeviceCollective(inst.opcode())) {
    ASSIGN_OR_RETURN(std::optional<Value> done, UserCollective(inst, *target[0]));
    if (done) return std::move(*done);
    return Fallback(inst, target,
                    "the devices of its groups hold different tiles of %" + inst.operand(0)->name() +
                        " (each computes its manual group's whole value)");
  }
  switch (inst.opcode()) {
    case Opcode::kParameter:
      return Parameter(inst, target);
    case Opcode::kConstant: {
      Instruction* whole = Clone(inst, {}, inst.shape());
      if (!array) return Value{whole, inst.shape(), target};
      return Finish(inst, whole, Whole(inst.shape().rank()), *target[0]);
    }
    case Opcode::kGetTupleElement:
      return GetTupleElement(inst, target);
    case Opcode::kTuple:
      return Tuple(inst, target);
    case Opcode::kWhile:
    case Opcode::kCall:
    case Opcode::kConditional:
      return ControlFlow(inst, target);
    default:
      break;
  }
  const bool sorts = (inst.opcode() == Opcode::kSort && inst.dimensions().size() == 1) ||
                     (inst.opcode() == Opcode::kTopK && inst.shape().IsTuple());
  if (sorts && !target.empty() && std::all_of(target.begin(), target.end(), [](const LeafGrid& l) { return l.has_value(); })) {
    return SortAlongOneDim(inst, target);
  }
  if (inst.opcode() == Opcode::kReduce && inst.shape().IsTuple() && inst.operand_count() >= 2 &&
      inst.shape().tuple_size() == inst.operand_count() / 2 && !target.empty() &&
      std::all_of(target.begin(), target.end(), [&](const LeafGrid& l) { return l && l->rank() == target[0]->rank(); })) {
    return Reduce(inst, target);
  }
  if (inst.opcode() == Opcode::kOptimizationBarrier && inst.operand_count() == 1) {
    // A barrier passes its values through as they are wanted; it computes nothing.
    const Value& v = scope_->values.at(inst.operand(0));
    if (v.leaves.size() == target.size() &&
        std::all_of(target.begin(), target.end(), [](const LeafGrid& l) { return l.has_value(); })) {
      ASSIGN_OR_RETURN(Instruction * operand, ReshardValue(v, target, inst.operand(0)->name(), inst.name(),
                                                           "%" + inst.name() + " holds it so"));
      return Value{Clone(inst, {operand}, operand->shape()), inst.shape(), target};
    }
  }
  if (inst.opcode() == Opcode::kCustomCall) {
    std::optional<StatusOr<Value>> by_rule = CustomCallByShardingRule(inst, target);
    if (by_rule) return std::move(*by_rule);
  }
  if (!array || !target[0]) {
    return Fallback(
        inst, target,
        "no native rule for a tuple-shaped or non-array " + std::string(OpcodeName(inst.opcode())));
  }
  return ArrayOp(inst, *target[0], target);
}

}  // namespace spmd_internal
}  // namespace fusebox::passes
