// The SPMD partitioner's gather and scatter rules.
//
// gather: the result's batch dims split as the indices, its offset dims as the operand's
// dims they pass through whole, and the operand's batching dims as the indices' paired
// dims. An operand split along a dim the indices select from (one element of it per
// index: a vocabulary-sharded embedding table, take_along_axis over sharded logits) is
// gathered where it lies: each device looks its indices up in its own piece, zeros what
// lies in another device's piece, and the pieces' results are summed (XLA's masked
// gather and all-reduce). scatter: an operand split along a dim the indices select is
// updated where it lies, each device applying the updates whose index falls in its piece;
// no collective.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/spmd_partitioner_internal.h"

namespace fusebox::passes {
namespace spmd_internal {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Whether indices of integer type `t` hold every index into a dim of `size` (the local
// offsets and bounds the rules compute in that type, from s32 constants): an s8 index
// into 1000 rows would wrap.
bool IndexTypeHolds(PrimitiveType t, int64_t size) {
  if (!IsInteger(t) || size > (int64_t{1} << 31) - 1) return false;
  const int bits = BitWidth(t) - (IsSignedInt(t) ? 1 : 0);
  return bits >= 62 || size <= (int64_t{1} << bits) - 1;
}

// The dims of an indices array other than its index vector dim, in order (the dims that
// become a gather's batch dims, or index a scatter's update dims).
std::vector<int64_t> IndexBatchDims(int64_t rank, int64_t index_vector_dim) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i)
    if (i != index_vector_dim) out.push_back(i);
  return out;
}

// Types whose zero added to a value gives the value back: the masked pieces are summed.
bool SummableType(PrimitiveType t) { return IsInteger(t) || IsComplex(t) || (IsFloat(t) && BitWidth(t) >= 16); }

}  // namespace

// Index component `k` of `indices` (index_vector_dim `ivd`) as an array of the indices'
// batch shape.
Instruction* Partitioner::IndexComponent(Instruction* indices, int64_t ivd, int64_t k) {
  const Shape& s = indices->shape();
  if (ivd >= s.rank()) return indices;
  Shape sliced = s;
  sliced.set_dimension(ivd, 1);
  Instruction* slice = Add(Opcode::kSlice, "slice", sliced, {indices});
  std::vector<SliceDimension> dims;
  for (int64_t i = 0; i < s.rank(); ++i) dims.push_back({i == ivd ? k : 0, i == ivd ? k + 1 : s.dimensions(i), 1});
  slice->mutable_attrs().slice = dims;
  std::vector<int64_t> batch;
  for (int64_t i = 0; i < s.rank(); ++i)
    if (i != ivd) batch.push_back(s.dimensions(i));
  return Add(Opcode::kReshape, "reshape", Shape(s.element_type(), batch), {slice});
}

// Index components (each of the indices' batch shape) back into indices of `shape`, their
// vector along `ivd` (none past the last dim: one component).
Instruction* Partitioner::JoinIndexComponents(const std::vector<Instruction*>& parts, const Shape& shape, int64_t ivd) {
  if (ivd >= shape.rank()) return parts[0];
  std::vector<Instruction*> columns;
  Shape column = shape;
  column.set_dimension(ivd, 1);
  for (Instruction* c : parts) columns.push_back(Add(Opcode::kReshape, "reshape", column, {c}));
  if (columns.size() == 1) return columns[0];
  Instruction* joined = Add(Opcode::kConcatenate, "concatenate", shape, columns);
  joined->mutable_attrs().dimensions = std::vector<int64_t>{ivd};
  return joined;
}

// `component` (global indices into a dim of `size` split in tiles of `tile`, this device's
// starting at `offsets[device]`) as indices into this device's tile; `clamp` first clamps
// them into [0, size - 1] as a gather does. `in_tile` (when asked) is whether each lies in
// this device's tile.
Instruction* Partitioner::LocalIndex(Instruction* component, const std::vector<int64_t>& offsets, int64_t size,
                                     int64_t tile, bool clamp, Instruction** in_tile) {
  const Shape& s = component->shape();
  const PrimitiveType t = s.element_type();
  auto scalar = [&](Instruction* s32) {
    Instruction* v = s32;
    if (t != PrimitiveType::kS32) v = Add(Opcode::kConvert, "convert", Shape::Scalar(t), {s32});
    Instruction* b = Add(Opcode::kBroadcast, "broadcast", s, {v});
    b->mutable_attrs().dimensions = std::vector<int64_t>{};
    return b;
  };
  Instruction* x = component;
  if (clamp) x = Add(Opcode::kClamp, "clamp", s, {scalar(ScalarS32(0)), x, scalar(ScalarS32(size - 1))});
  Instruction* local = Add(Opcode::kSubtract, "subtract", s, {x, scalar(PerDeviceOffset(offsets))});
  if (in_tile != nullptr) {
    const Shape p(PrimitiveType::kPred, s.dimensions());
    auto compare = [&](Instruction* a, Instruction* b, ComparisonDirection dir) {
      Instruction* c = Add(Opcode::kCompare, "compare", p, {a, b});
      c->mutable_attrs().comparison_direction = dir;
      return c;
    };
    Instruction* lo = compare(local, scalar(ScalarS32(0)), ComparisonDirection::kGe);
    Instruction* hi = compare(local, scalar(ScalarS32(tile)), ComparisonDirection::kLt);
    *in_tile = Add(Opcode::kAnd, "and", p, {lo, hi});
  }
  return local;
}

StatusOr<Value> Partitioner::Gather(const Instruction& inst, const Grid& target) {
  const GatherDimensionNumbers& g = *inst.attrs().gather_dimension_numbers;
  const std::vector<int64_t>& sizes = inst.attrs().gather_slice_sizes;
  const Shape& os = inst.operand(0)->shape();
  const Shape& is = inst.operand(1)->shape();
  const int64_t orank = os.rank(), irank = is.rank(), rrank = inst.shape().rank();
  const int64_t ivd = g.index_vector_dim;
  std::vector<int64_t> batch_result;  // result dims that are not offset dims, in order
  for (int64_t r = 0; r < rrank; ++r)
    if (!Contains(g.offset_dims, r)) batch_result.push_back(r);
  const std::vector<int64_t> index_dims = IndexBatchDims(irank, ivd);
  std::vector<int64_t> window;  // operand dims that become offset dims, in order
  for (int64_t o = 0; o < orank; ++o)
    if (!Contains(g.collapsed_slice_dims, o) && !Contains(g.operand_batching_dims, o)) window.push_back(o);
  if (static_cast<int64_t>(sizes.size()) != orank || index_dims.size() != batch_result.size() ||
      window.size() != g.offset_dims.size() || g.operand_batching_dims.size() != g.start_indices_batching_dims.size()) {
    return Fallback(inst, {target}, "%" + inst.name() + " has gather dimension numbers the rule does not read");
  }
  // Where each indices dim and operand dim lands in the result (-1: nowhere).
  std::vector<int64_t> result_of_index(static_cast<size_t>(irank), -1);
  for (size_t j = 0; j < index_dims.size(); ++j) result_of_index[static_cast<size_t>(index_dims[j])] = batch_result[j];
  std::vector<int64_t> result_of_operand(static_cast<size_t>(orank), -1);
  Grid computed = target;
  for (size_t j = 0; j < window.size(); ++j) {
    const int64_t o = window[j];
    // A window dim passes the operand's split through only when the slice takes it whole.
    if (sizes[static_cast<size_t>(o)] == os.dimensions(o) && !Contains(g.start_index_map, o)) {
      result_of_operand[static_cast<size_t>(o)] = g.offset_dims[j];
    } else {
      computed = Relaxed(computed, {g.offset_dims[j]});
    }
  }
  for (size_t k = 0; k < g.operand_batching_dims.size(); ++k) {
    result_of_operand[static_cast<size_t>(g.operand_batching_dims[k])] =
        result_of_index[static_cast<size_t>(g.start_indices_batching_dims[k])];
  }
  ASSIGN_OR_RETURN(Grid cur, OperandGrid(inst, 0));
  // The operand dims split where the indices select single elements: looked up in place.
  std::vector<int64_t> split;
  for (int64_t o : g.start_index_map) {
    if (cur.counts[o] > 1 && sizes[static_cast<size_t>(o)] == 1 && Contains(g.collapsed_slice_dims, o) &&
        IndexTypeHolds(is.element_type(), os.dimensions(o)))
      split.push_back(o);
  }
  if (!split.empty() && !SummableType(inst.shape().element_type())) split.clear();
  ContractingSplit pieces;
  pieces.piece.resize(static_cast<size_t>(devices_));
  for (int64_t o : split) {
    pieces.ccounts.push_back(cur.counts[o]);
    pieces.pieces *= cur.counts[o];
    for (int64_t d = 0; d < devices_; ++d) pieces.piece[d].push_back(cur.index[d][o]);
    if (!pieces.text.empty()) pieces.text += ", ";
    pieces.text += "dim " + std::to_string(o) + " of %" + inst.operand(0)->name() + ", which the indices select from, is split " +
                   std::to_string(cur.counts[o]) + " ways";
  }
  std::optional<PartialPlan> plan;
  if (!split.empty()) plan = PlanPartialSums(computed, pieces, devices_);
  if (!plan) split.clear();
  const Grid& at = plan ? plan->computed : computed;

  Grid owant = Derived(at, result_of_operand);
  for (int64_t o : split) {
    owant.counts[o] = cur.counts[o];
    for (int64_t d = 0; d < devices_; ++d) owant.index[d][o] = cur.index[d][o];
  }
  RenumberCopies(owant);
  Grid iwant = Derived(at, result_of_index);
  const std::string why = split.empty()
                              ? "%" + inst.name() + " gathers tile by tile (" + DescribeGrid(at) + ")"
                              : "%" + inst.name() + " gathers each piece where it lies: " + pieces.text;
  ASSIGN_OR_RETURN(Instruction * operand, Operand(inst, 0, owant, why));
  ASSIGN_OR_RETURN(Instruction * indices, Operand(inst, 1, iwant, why));
  ASSIGN_OR_RETURN(Shape shape, LocalShape(at, inst.shape(), "%" + inst.name()));
  // A window dim taken whole takes this device's tile of it whole.
  auto local_gather = [&](Instruction* operand_piece, Instruction* index_piece) {
    Instruction* out = Clone(inst, {operand_piece, index_piece}, shape);
    for (int64_t o : window) {
      if (result_of_operand[static_cast<size_t>(o)] >= 0)
        out->mutable_attrs().gather_slice_sizes[static_cast<size_t>(o)] = operand_piece->shape().dimensions(o);
    }
    return out;
  };
  if (split.empty()) {
    return Finish(inst, local_gather(operand, indices), at, target);
  }
  // Indices into this device's piece, and whether each lies in it.
  const int64_t components = ivd >= irank ? 1 : is.dimensions(ivd);
  std::vector<Instruction*> parts;
  Instruction* mask = nullptr;
  for (int64_t k = 0; k < components; ++k) {
    Instruction* c = IndexComponent(indices, ivd, k);
    const int64_t o = g.start_index_map[static_cast<size_t>(k)];
    if (Contains(split, o)) {
      const int64_t tile = os.dimensions(o) / cur.counts[o];
      std::vector<int64_t> offsets(static_cast<size_t>(devices_));
      for (int64_t d = 0; d < devices_; ++d) offsets[d] = cur.index[d][o] * tile;
      Instruction* in_tile = nullptr;
      c = LocalIndex(c, offsets, os.dimensions(o), tile, true, &in_tile);
      mask = mask == nullptr ? in_tile : Add(Opcode::kAnd, "and", in_tile->shape(), {mask, in_tile});
    }
    parts.push_back(c);
  }
  Instruction* local_indices = JoinIndexComponents(parts, indices->shape(), ivd);
  Instruction* looked_up = local_gather(operand, local_indices);
  const Shape pshape(PrimitiveType::kPred, shape.dimensions());
  Instruction* wide_mask = Add(Opcode::kBroadcast, "broadcast", pshape, {mask});
  wide_mask->mutable_attrs().dimensions = batch_result;
  Shape zero_shape = Shape::Scalar(shape.element_type());
  Instruction* zero = Add(Opcode::kConstant, "constant", zero_shape, {});
  zero->set_literal(std::make_unique<Literal>(zero_shape));
  Instruction* zeros = Add(Opcode::kBroadcast, "broadcast", shape, {zero});
  zeros->mutable_attrs().dimensions = std::vector<int64_t>{};
  Instruction* partial = Add(Opcode::kSelect, "select", shape, {wide_mask, looked_up, zeros});
  ASSIGN_OR_RETURN(Value summed, ReducePartialSums(inst, partial, computed, *plan, pieces));
  if (computed.SameTiles(target)) return summed;
  return Finish(inst, summed.local, computed, target);
}

// A scatter-add (or -max, -min) whose indices are split along the dims that index the
// updates, into an operand wanted whole along the dims they select: each device scatters
// its updates into the combiner's identity, the pieces are reduced with the combiner over
// the devices that hold them, and the operand is combined with the result (XLA's plan for
// an embedding's gradient over a split batch, or a segment sum or max). Taken when the
// reduction moves no more bytes than gathering the indices and updates would; nullopt
// otherwise.
StatusOr<std::optional<Value>> Partitioner::ScatterPartialSums(const Instruction& inst, const Grid& computed,
                                                                const Grid& target,
                                                                const std::vector<int64_t>& index_dims,
                                                                const std::vector<int64_t>& update_scatter,
                                                                const std::vector<int64_t>& update_from) {
  const Shape& os = inst.operand(0)->shape();
  const PrimitiveType type = os.element_type();
  if (inst.called_computations().size() != 1 || os.rank() < 1) return std::optional<Value>();
  Computation* combiner = inst.called_computations()[0];
  const Instruction* root = combiner->root();
  if (root == nullptr || root->operand_count() != 2 || root->operand(0)->opcode() != Opcode::kParameter ||
      root->operand(1)->opcode() != Opcode::kParameter || root->operand(0) == root->operand(1)) {
    return std::optional<Value>();
  }
  // The combiner and the value of no update: 0 for a sum; for a max (min), the lowest
  // (highest) value of the type, -inf (+inf) for floats.
  const Opcode op = root->opcode();
  const bool sum = op == Opcode::kAdd && SummableType(type);
  const bool extreme = (op == Opcode::kMaximum || op == Opcode::kMinimum) && (IsFloat(type) || IsInteger(type)) &&
                       !IsComplex(type) && BitWidth(type) <= 32;
  if (!sum && !extreme) return std::optional<Value>();
  ASSIGN_OR_RETURN(Grid icur, OperandGrid(inst, 1));
  std::vector<int64_t> pieces_dims;
  for (int64_t i : index_dims)
    if (icur.counts[i] > 1) pieces_dims.push_back(i);
  const int64_t gathered = inst.operand(1)->shape().ByteSize() + inst.operand(2)->shape().ByteSize();
  if (pieces_dims.empty() || os.ByteSize() > gathered) return std::optional<Value>();
  ContractingSplit split = SplitOfContractingDims(icur, pieces_dims, inst.operand(1)->name(), devices_);
  split.text = "%" + inst.name() + "'s indices are split " + std::to_string(split.pieces) + " ways";
  std::optional<PartialPlan> plan = PlanPartialSums(computed, split, devices_);
  if (!plan) return std::optional<Value>();
  // Indices and updates: their pieces along the split index dims, the rest as computed.
  const int64_t irank = inst.operand(1)->shape().rank();
  Grid ig = Derived(plan->computed, std::vector<int64_t>(static_cast<size_t>(irank), -1));
  std::vector<int64_t> ufrom = update_from;
  for (size_t j = 0; j < update_scatter.size(); ++j) ufrom[static_cast<size_t>(update_scatter[j])] = -1;
  Grid ug = Derived(plan->computed, ufrom);
  for (size_t p = 0; p < pieces_dims.size(); ++p) {
    const int64_t i = pieces_dims[p];
    const auto at = std::find(index_dims.begin(), index_dims.end(), i) - index_dims.begin();
    const int64_t u = update_scatter[static_cast<size_t>(at)];
    ig.counts[i] = split.ccounts[p];
    ug.counts[u] = split.ccounts[p];
    for (int64_t d = 0; d < devices_; ++d) {
      ig.index[d][i] = split.piece[d][p];
      ug.index[d][u] = split.piece[d][p];
    }
  }
  RenumberCopies(ig);
  RenumberCopies(ug);
  const std::string why = "%" + inst.name() + " adds each device's updates into zeros, summed after";
  ASSIGN_OR_RETURN(Instruction * indices, Operand(inst, 1, ig, why));
  ASSIGN_OR_RETURN(Instruction * updates, Operand(inst, 2, ug, why));
  ASSIGN_OR_RETURN(Shape shape, LocalShape(plan->computed, inst.shape(), "%" + inst.name()));
  const Shape scalar(type, {});
  auto none = std::make_unique<Literal>(scalar);
  if (extreme) {
    const bool max = op == Opcode::kMaximum;
    if (IsFloat(type)) {
      none->SetDouble(0, max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
    } else {
      const int bits = BitWidth(type);
      const int64_t lowest = IsSignedInt(type) ? -(int64_t{1} << (bits - 1)) : 0;
      const int64_t highest = IsSignedInt(type) ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
      none->SetInt64(0, max ? lowest : highest);
    }
  }
  Instruction* identity = Add(Opcode::kConstant, "constant", scalar, {});
  identity->set_literal(std::move(none));
  Instruction* start = Add(Opcode::kBroadcast, "broadcast", shape, {identity});
  start->mutable_attrs().dimensions = std::vector<int64_t>{};
  Instruction* partial = Clone(inst, {start, indices, updates}, shape);
  ASSIGN_OR_RETURN(Value summed, ReducePartialSums(inst, partial, target, *plan, split, combiner));
  ASSIGN_OR_RETURN(Instruction * operand,
                   Operand(inst, 0, target, "%" + inst.name() + " combines the reduced updates with it"));
  Instruction* out = Add(op, std::string(OpcodeName(op)), summed.local->shape(), {operand, summed.local});
  return std::optional<Value>(Value{out, inst.shape(), {target}});
}

StatusOr<Value> Partitioner::Scatter(const Instruction& inst, const Grid& target) {
  const ScatterDimensionNumbers& sd = *inst.attrs().scatter_dimension_numbers;
  const Shape& os = inst.operand(0)->shape();
  const Shape& is = inst.operand(1)->shape();
  const Shape& us = inst.operand(2)->shape();
  const int64_t orank = os.rank(), irank = is.rank(), urank = us.rank();
  const int64_t ivd = sd.index_vector_dim;
  const std::vector<int64_t> index_dims = IndexBatchDims(irank, ivd);
  std::vector<int64_t> update_scatter;  // update dims that are not window dims, in order
  for (int64_t u = 0; u < urank; ++u)
    if (!Contains(sd.update_window_dims, u)) update_scatter.push_back(u);
  if (index_dims.size() != update_scatter.size() || sd.input_batching_dims.size() != sd.scatter_indices_batching_dims.size()) {
    return Fallback(inst, {target}, "%" + inst.name() + " has scatter dimension numbers the rule does not read");
  }
  ASSIGN_OR_RETURN(Grid cur, OperandGrid(inst, 0));
  // The operand is computed split on its batching dims (as the target) and on the dims the
  // indices select single elements of (as it lies); whole elsewhere.
  std::vector<int64_t> split;
  for (int64_t o : sd.scatter_dims_to_operand_dims) {
    if (cur.counts[o] > 1 && Contains(sd.inserted_window_dims, o) && IndexTypeHolds(is.element_type(), os.dimensions(o)))
      split.push_back(o);
  }
  // Operand dims that are window dims of the updates, spanned whole by them and selected by
  // no index, pass their split through: each device updates its tile with its tile of
  // the updates.
  std::vector<int64_t> window;  // operand dims that are window dims, in order
  for (int64_t o = 0; o < orank; ++o)
    if (!Contains(sd.inserted_window_dims, o) && !Contains(sd.input_batching_dims, o)) window.push_back(o);
  std::vector<int64_t> passed;  // per window dim j: passes its split through
  std::vector<int64_t> update_of_operand(static_cast<size_t>(orank), -1);
  if (window.size() == sd.update_window_dims.size()) {
    for (size_t j = 0; j < window.size(); ++j) {
      const int64_t o = window[j], u = sd.update_window_dims[j];
      if (u >= 0 && u < urank && us.dimensions(u) == os.dimensions(o) && !Contains(sd.scatter_dims_to_operand_dims, o)) {
        passed.push_back(o);
        update_of_operand[static_cast<size_t>(o)] = u;
      }
    }
  }
  std::vector<int64_t> whole;
  for (int64_t o = 0; o < orank; ++o)
    if (!Contains(sd.input_batching_dims, o) && !Contains(passed, o)) whole.push_back(o);
  Grid computed = Relaxed(target, whole);
  for (int64_t o : split) {
    computed.counts[o] = cur.counts[o];
    for (int64_t d = 0; d < devices_; ++d) computed.index[d][o] = cur.index[d][o];
  }
  RenumberCopies(computed);
  if (!split.empty() && !IsTiling(computed)) {
    // The operand's split and the window dims' split from the target pair up their tiles
    // on the devices (rows split over devices 0-3 | 4-7, columns wanted so too): no device
    // holds the other pairs. The window dims are then taken whole (the differential fuzzer,
    // --windows --partitions 8, seed 400010: "cannot form all-gather groups").
    computed = Relaxed(computed, passed);
    passed.clear();
    if (!IsTiling(computed)) {  // with the batching dims: the operand's pieces whole too
      computed = Relaxed(computed, split);
      split.clear();
    }
  }
  // Indices and updates follow the operand's batching dims.
  std::vector<int64_t> index_from(static_cast<size_t>(irank), -1);
  for (size_t k = 0; k < sd.input_batching_dims.size(); ++k)
    index_from[static_cast<size_t>(sd.scatter_indices_batching_dims[k])] = sd.input_batching_dims[k];
  std::vector<int64_t> update_from(static_cast<size_t>(urank), -1);
  for (size_t j = 0; j < update_scatter.size(); ++j)
    update_from[static_cast<size_t>(update_scatter[j])] = index_from[static_cast<size_t>(index_dims[j])];
  for (int64_t o : passed) update_from[static_cast<size_t>(update_of_operand[static_cast<size_t>(o)])] = o;
  if (split.empty() && sd.input_batching_dims.empty()) {
    ASSIGN_OR_RETURN(std::optional<Value> summed, ScatterPartialSums(inst, computed, target, index_dims, update_scatter,
                                                                     update_from));
    if (summed) return *summed;
  }
  const std::string why = split.empty() ? "%" + inst.name() + " scatters tile by tile (" + DescribeGrid(computed) + ")"
                                        : "%" + inst.name() + " updates each piece of %" + inst.operand(0)->name() +
                                              " where it lies, with the updates whose indices fall in it";
  ASSIGN_OR_RETURN(Instruction * operand, Operand(inst, 0, computed, why));
  ASSIGN_OR_RETURN(Instruction * indices, Operand(inst, 1, Derived(computed, index_from), why));
  ASSIGN_OR_RETURN(Instruction * updates, Operand(inst, 2, Derived(computed, update_from), why));
  ASSIGN_OR_RETURN(Shape shape, LocalShape(computed, inst.shape(), "%" + inst.name()));
  if (!split.empty()) {
    // Indices into this device's piece: those of other pieces fall outside it, and a
    // scatter skips an update whose window lies out of bounds.
    const int64_t components = ivd >= irank ? 1 : is.dimensions(ivd);
    std::vector<Instruction*> parts;
    for (int64_t k = 0; k < components; ++k) {
      Instruction* c = IndexComponent(indices, ivd, k);
      const int64_t o = sd.scatter_dims_to_operand_dims[static_cast<size_t>(k)];
      if (Contains(split, o)) {
        const int64_t tile = os.dimensions(o) / cur.counts[o];
        std::vector<int64_t> offsets(static_cast<size_t>(devices_));
        for (int64_t d = 0; d < devices_; ++d) offsets[d] = cur.index[d][o] * tile;
        c = LocalIndex(c, offsets, os.dimensions(o), tile, false, nullptr);
      }
      parts.push_back(c);
    }
    indices = JoinIndexComponents(parts, indices->shape(), ivd);
  }
  return Finish(inst, Clone(inst, {operand, indices, updates}, shape), computed, target);
}

}  // namespace spmd_internal
}  // namespace fusebox::passes
