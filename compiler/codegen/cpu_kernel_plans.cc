// The CPU code generator's kernel plans: how a kernel's reductions run (split over
// threads, column partials, row-local operands for row chaining) and how much code each
// kernel makes, for spreading kernels over compile threads (CompileUnitSizes).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/cpu_compiler_internal.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/library_calls.h"

namespace fusebox::codegen::cpu {

namespace {

// The number of leading dimensions a column reduction reduces; 0 when `r` (in kernel
// `kernel`) is not one.
int64_t ColumnReducedRank(const Instruction& r, const Instruction& kernel) {
  if (r.opcode() != Opcode::kReduce || r.operand_count() != 2 || r.to_apply() == nullptr) return 0;
  const Shape& in = r.operand(0)->shape();
  if (!in.IsArray() || !r.shape().IsArray()) return 0;
  switch (in.element_type()) {
    case PrimitiveType::kF16: case PrimitiveType::kBF16: case PrimitiveType::kF32: case PrimitiveType::kF64:
    case PrimitiveType::kS32: case PrimitiveType::kS64: case PrimitiveType::kU32: case PrimitiveType::kU64:
      break;
    default:
      return 0;
  }
  if (r.operand(1)->shape().element_type() != in.element_type() || r.shape().element_type() != in.element_type()) {
    return 0;
  }
  std::vector<int64_t> dims = r.dimensions();
  std::sort(dims.begin(), dims.end());
  const int64_t reduced = static_cast<int64_t>(dims.size());
  if (reduced < 1 || reduced >= in.rank()) return 0;
  for (int64_t k = 0; k < reduced; ++k) {
    if (dims[k] != k) return 0;
  }
  int64_t rows = 1;
  for (int64_t d = 0; d < reduced; ++d) rows *= in.dimensions(d);
  // Small reductions gain nothing from a second pass.
  if (rows < 32 || in.ElementCount() < (int64_t{1} << 14)) return 0;
  // The init value is often a constant the fusion takes as a parameter.
  const Instruction* init = r.operand(1);
  if (init->opcode() == Opcode::kParameter && &r != &kernel && kernel.opcode() == Opcode::kFusion &&
      init->parameter_number() < kernel.operand_count()) {
    init = kernel.operand(init->parameter_number());
  }
  if (!IsIdentityInit(*r.to_apply(), *init)) return 0;
  // Inside a fusion the operand is computed in the pass: no reduce may feed it. A lone
  // reduce reads its operand from memory.
  std::unordered_set<const Instruction*> seen;
  if (&r != &kernel && FeedsFromReduce(r.operand(0), seen)) return 0;
  return reduced;
}

// A rough measure of the code an instruction makes, to balance the compile threads:
// transcendental functions (inline polynomials) and reductions count more.
int64_t EstimatedCodeSize(Opcode op) {
  if (IsTranscendental(op)) return 12;
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kBitcast: case Opcode::kReshape: case Opcode::kBroadcast:
      return 1;
    case Opcode::kReduce: case Opcode::kReduceWindow: case Opcode::kScatter: case Opcode::kSelectAndScatter:
      return 8;
    default:
      return 2;
  }
}

// The same for a kernel: its fused instructions.
int64_t EstimatedCodeSize(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return IsLibraryOp(inst.opcode()) || IsCpuLapackCall(inst) ? 2 : 4;
  int64_t size = 4;
  for (const auto& i : inst.fused_computation()->instructions()) size += EstimatedCodeSize(i->opcode());
  return size;
}

}  // namespace

// A full reduction big enough to split: every dimension reduced, a long major
// dimension to spread over threads, an identity init, one operand.
const Instruction* SplittableReduce(const Instruction& inst) {
  std::vector<const Instruction*> candidates;
  if (inst.opcode() == Opcode::kReduce) {
    candidates.push_back(&inst);
  } else if (inst.opcode() == Opcode::kFusion) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() == Opcode::kReduce) candidates.push_back(i.get());
    }
  }
  for (const Instruction* r : candidates) {
    if (r->operand_count() != 2 || r->to_apply() == nullptr) continue;
    const Shape& in = r->operand(0)->shape();
    if (in.rank() < 1 || static_cast<int64_t>(r->dimensions().size()) != in.rank()) continue;
    if (in.dimensions(0) < 64 || in.ElementCount() < (int64_t{1} << 16)) continue;
    if (!IsIdentityInit(*r->to_apply(), *r->operand(1))) continue;
    if (IsComplex(in.element_type())) continue;
    return r;
  }
  return nullptr;
}

// Partials accumulate in the reducer's register type: narrow floats as f32.
PrimitiveType ColumnAccumulatorType(PrimitiveType type) {
  return type == PrimitiveType::kF16 || type == PrimitiveType::kBF16 ? PrimitiveType::kF32 : type;
}

bool FeedsFromReduce(const Instruction* inst, std::unordered_set<const Instruction*>& seen) {
  if (!seen.insert(inst).second) return false;
  if (inst->opcode() == Opcode::kReduce || inst->opcode() == Opcode::kReduceWindow) return true;
  for (const Instruction* op : inst->operands()) {
    if (FeedsFromReduce(op, seen)) return true;
  }
  return false;
}


std::optional<ColumnPlan> PlanColumnReductions(const Instruction& inst) {
  std::vector<const Instruction*> candidates;
  if (inst.opcode() == Opcode::kReduce) {
    candidates.push_back(&inst);
  } else if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() == Opcode::kReduce) candidates.push_back(i.get());
    }
  }
  ColumnPlan plan;
  for (const Instruction* r : candidates) {
    const int64_t reduced = ColumnReducedRank(*r, inst);
    if (reduced == 0) continue;
    if (plan.reduces.empty()) {
      plan.operand = r->operand(0)->shape();
      plan.reduced_rank = reduced;
    } else if (reduced != plan.reduced_rank || r->operand(0)->shape().dimensions() != plan.operand.dimensions()) {
      continue;
    }
    plan.reduces.push_back(r);
  }
  if (plan.reduces.empty()) return std::nullopt;
  plan.rows = 1;
  for (int64_t d = 0; d < plan.reduced_rank; ++d) plan.rows *= plan.operand.dimensions(d);
  plan.columns = plan.operand.ElementCount() / plan.rows;
  // Kept elements per iteration: the whole row when it is short enough to stay in L1
  // with its partials, else blocks of 1024.
  plan.block = plan.columns <= 4096 ? plan.columns : 1024;
  plan.blocks = (plan.columns + plan.block - 1) / plan.block;
  int64_t row_bytes = 0;
  for (const Instruction* r : plan.reduces) {
    row_bytes += plan.columns * ByteWidth(ColumnAccumulatorType(r->shape().element_type()));
  }
  // Chunks of at least 64 rows, at most 64 of them, partials within 16 MiB.
  plan.chunks = std::clamp<int64_t>(plan.rows / 64, 1, 64);
  plan.chunks = std::max<int64_t>(1, std::min<int64_t>(plan.chunks, (int64_t{16} << 20) / std::max<int64_t>(row_bytes, 1)));
  for (const Instruction* r : plan.reduces) {
    plan.offsets.push_back(plan.scratch_bytes);
    const int64_t bytes = plan.chunks * plan.columns * ByteWidth(ColumnAccumulatorType(r->shape().element_type()));
    plan.scratch_bytes += (bytes + 63) / 64 * 64;
  }
  return plan;
}

// Operand elements folded into each output element by the reductions of `inst` (itself
// or fused) whose output has `shape`'s dimensions; 1 when there is none. A column
// reduction's output element folds only its chunks' partials.
int64_t ReducedElementsPerOutput(const Instruction& inst, const Shape& shape, const ColumnPlan* columns) {
  int64_t most = 1;
  auto consider = [&](const Instruction& r) {
    if (r.opcode() != Opcode::kReduce || r.operand_count() < 2) return;
    if (columns != nullptr && std::find(columns->reduces.begin(), columns->reduces.end(), &r) != columns->reduces.end()) {
      const Shape& out = r.shape();
      if (out.dimensions() == shape.dimensions()) most = std::max<int64_t>(most, columns->chunks);
      return;
    }
    const Shape& out = r.shape().IsTuple() ? r.shape().tuple_shapes(0) : r.shape();
    if (out.dimensions() != shape.dimensions()) return;
    const int64_t in = r.operand(0)->shape().ElementCount();
    most = std::max<int64_t>(most, in / std::max<int64_t>(1, out.ElementCount()));
  };
  if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) consider(*i);
  } else {
    consider(inst);
  }
  return most;
}

// Row chaining (see CpuKernel::rows): which parameters of fusion `inst` are read only at
// the row its outputs are computed for, when every output is computed at indices whose
// dimension 0 is the row. Follows the indices from the outputs to the parameters through
// ops that keep dimension 0 (elementwise ops, broadcasts and reduces that keep it,
// reshapes that keep its size); anything else reading a parameter makes it non-local.
std::vector<bool> RowLocalParameters(const Instruction& inst) {
  const Computation* fused = inst.fused_computation();
  enum State { kUnseen, kRow, kOther };
  std::unordered_map<const Instruction*, State> state;
  auto request = [&](const Instruction* i, State s) {
    State& cur = state[i];
    cur = cur == kUnseen ? s : (cur == s ? cur : kOther);
  };
  const Instruction* root = fused->root();
  if (root->opcode() == Opcode::kTuple) {
    for (const Instruction* op : root->operands()) request(op, kRow);
  } else {
    request(root, kRow);
  }
  std::vector<Instruction*> order = fused->PostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction* i = *it;
    if (i == root && root->opcode() == Opcode::kTuple) continue;
    const State s = state.count(i) ? state[i] : kUnseen;
    if (s == kUnseen) continue;
    const Shape& shape = i->shape();
    for (int64_t k = 0; k < i->operand_count(); ++k) {
      const Instruction* op = i->operand(k);
      const Shape& os = op->shape();
      State r = kOther;
      if (s == kRow && os.IsArray() && shape.IsArray() && os.rank() >= 1 && shape.rank() >= 1) {
        switch (i->opcode()) {
          case Opcode::kBroadcast:
            if (!i->dimensions().empty() && i->dimensions()[0] == 0) r = kRow;
            break;
          case Opcode::kReduce:
            if (k < i->operand_count() / 2 &&
                std::find(i->dimensions().begin(), i->dimensions().end(), 0) == i->dimensions().end()) {
              r = kRow;
            }
            break;
          case Opcode::kReshape:
          case Opcode::kBitcast:
            if (os.dimensions(0) == shape.dimensions(0)) r = kRow;
            break;
          default:
            if (IsElementwise(i->opcode()) && os.dimensions() == shape.dimensions()) r = kRow;
            break;
        }
      }
      request(op, r);
    }
  }
  std::vector<bool> local;
  for (int64_t p = 0; p < fused->parameter_count(); ++p) {
    auto it = state.find(fused->parameter(p));
    local.push_back(it == state.end() || it->second != kOther);
  }
  return local;
}

// Elementwise functions computed by polynomials or library calls: tens of operations per
// element instead of one.
bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kExp: case Opcode::kLogistic: case Opcode::kTanh: case Opcode::kLog: case Opcode::kPower:
    case Opcode::kSin: case Opcode::kCos: case Opcode::kExpm1: case Opcode::kLog1p: case Opcode::kErf:
    case Opcode::kCbrt: case Opcode::kAtan2:
      return true;
    default:
      return false;
  }
}

std::vector<RowLoop> RowLoops(const Instruction& inst, const passes::RowPlan& plan) {
  std::vector<RowLoop> loops;
  for (size_t loop = 0; loop <= plan.reduces.size(); ++loop) {
    std::unordered_set<const Instruction*> seen;
    for (size_t j = 0; j < plan.reduces.size(); ++j) {
      if (j != loop) seen.insert(plan.reduces[j]);
    }
    for (const passes::RowPlan::Materialized& m : plan.materialized) {
      if (static_cast<size_t>(m.pass) < loop) seen.insert(m.value);
    }
    std::vector<const Instruction*> stack;
    if (loop < plan.reduces.size()) {
      stack.push_back(plan.reduces[loop]);
    } else {
      for (const OutputLeaf& leaf : KernelOutputs(inst)) stack.push_back(leaf.inst);
    }
    RowLoop row_loop;
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      if (!seen.insert(i).second) continue;
      row_loop.size += EstimatedCodeSize(i->opcode());
      row_loop.outlined |= loop < plan.reduces.size() && IsTranscendental(i->opcode());
      for (const Instruction* op : i->operands()) stack.push_back(op);
    }
    loops.push_back(row_loop);
  }
  return loops;
}

// The units CompileForCpu spreads over modules for one kernel: a row kernel's outlined
// reduces, then the rest of it (its entry, inline loops included); or the whole kernel.
std::vector<int64_t> CompileUnitSizes(const Instruction& inst) {
  std::optional<passes::RowPlan> plan;
  if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr && InPlaceUpdate(inst) == nullptr) {
    const Opcode root = inst.fused_computation()->root()->opcode();
    if (root != Opcode::kScatter && root != Opcode::kSelectAndScatter) plan = passes::PlanRowKernel(inst);
  }
  if (!plan) return {EstimatedCodeSize(inst)};
  std::vector<int64_t> sizes;
  int64_t rest = 4;
  for (const RowLoop& loop : RowLoops(inst, *plan)) {
    if (loop.outlined) {
      sizes.push_back(4 + loop.size);
    } else {
      rest += loop.size;
    }
  }
  sizes.push_back(rest);
  return sizes;
}

}  // namespace fusebox::codegen::cpu

namespace fusebox::codegen::cpu {

namespace {

// The atoms of one loop group while its index is followed down to the buffers: every
// atom is a leaf or was split (by a reshape) into a major and a minor child.
class AtomWalk {
 public:
  using Layout = std::vector<std::vector<int64_t>>;  // per dimension, its atoms

  explicit AtomWalk(const Instruction& inst) : inst_(inst) {}

  Layout RootLayout(const Shape& shape) {
    Layout layout(shape.rank());
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (shape.dimensions(d) > 1) layout[d] = {NewAtom(shape.dimensions(d))};
    }
    return layout;
  }

  // Follows `layout` (the index of `i`) to the buffers; false when it cannot.
  bool Walk(const Instruction* i, const Layout& layout) {
    if (++steps_ > 256) return false;
    if (int64_t buffer = BufferOf(i); buffer >= 0) {
      leaves_.push_back({i, buffer, layout});
      return true;
    }
    const Shape& shape = i->shape();
    if (!shape.IsArray()) return false;
    const Opcode op = i->opcode();
    if (op == Opcode::kConstant) return shape.ElementCount() == 1;
    if (op == Opcode::kIota) return true;
    if (op == Opcode::kTranspose) {
      Layout in(layout.size());
      for (size_t d = 0; d < layout.size(); ++d) in[i->dimensions()[d]] = layout[d];
      return Walk(i->operand(0), in);
    }
    if (op == Opcode::kBroadcast) {
      Layout in;
      for (int64_t d : i->dimensions()) in.push_back(layout[d]);
      return Walk(i->operand(0), in);
    }
    if (op == Opcode::kReshape || op == Opcode::kBitcast) {
      std::optional<Layout> in = Carve(layout, i->operand(0)->shape());
      return in && Walk(i->operand(0), *in);
    }
    if (op == Opcode::kCopy || IsElementwise(op)) {
      for (const Instruction* operand : i->operands()) {
        const Shape& s = operand->shape();
        if (!s.IsArray()) return false;
        if (s.rank() == 0) {
          if (!Walk(operand, {})) return false;
          continue;
        }
        if (s.dimensions() != shape.dimensions() || !Walk(operand, layout)) return false;
      }
      return true;
    }
    return false;
  }

  // The leaf atoms of `atom`, major to minor.
  void Expand(int64_t atom, std::vector<int64_t>* out) const {
    if (children_[atom].empty()) {
      out->push_back(atom);
      return;
    }
    for (int64_t c : children_[atom]) Expand(c, out);
  }
  std::vector<int64_t> Flatten(const Layout& layout) const {
    std::vector<int64_t> out;
    for (const auto& dim : layout) {
      for (int64_t a : dim) Expand(a, &out);
    }
    return out;
  }
  int64_t Size(int64_t atom) const { return sizes_[atom]; }

  struct Leaf {
    const Instruction* inst;
    int64_t buffer;
    Layout layout;
  };
  const std::vector<Leaf>& leaves() const { return leaves_; }

 private:
  int64_t NewAtom(int64_t size) {
    sizes_.push_back(size);
    children_.emplace_back();
    return static_cast<int64_t>(sizes_.size()) - 1;
  }

  int64_t BufferOf(const Instruction* i) const {
    if (inst_.opcode() == Opcode::kFusion) return i->opcode() == Opcode::kParameter ? i->parameter_number() : -1;
    for (int64_t p = 0; p < inst_.operand_count(); ++p) {
      if (inst_.operand(p) == i) return p;
    }
    return -1;
  }

  // The operand dimensions `in` of a reshape carved out of its result's atoms, in order,
  // splitting an atom where an operand dimension ends inside it.
  std::optional<Layout> Carve(const Layout& layout, const Shape& in) {
    std::vector<int64_t> atoms = Flatten(layout);
    Layout out(in.rank());
    size_t next = 0;
    for (int64_t d = 0; d < in.rank(); ++d) {
      const int64_t need = in.dimensions(d);
      int64_t have = 1;
      while (have < need) {
        if (next >= atoms.size()) return std::nullopt;
        const int64_t a = atoms[next];
        const int64_t size = sizes_[a];
        if (need % (have * size) == 0) {
          out[d].push_back(a);
          have *= size;
          ++next;
          continue;
        }
        const int64_t major = need / have;
        if (size % major != 0) return std::nullopt;
        const int64_t hi = NewAtom(major), lo = NewAtom(size / major);
        children_[a] = {hi, lo};
        out[d].push_back(hi);
        atoms[next] = lo;
        have = need;
      }
    }
    if (next != atoms.size()) return std::nullopt;
    return out;
  }

  const Instruction& inst_;
  std::vector<int64_t> sizes_;
  std::vector<std::vector<int64_t>> children_;
  std::vector<Leaf> leaves_;
  int64_t steps_ = 0;
};

// The tile along an atom of `size`: 32, or 16 where that leaves no edge and 32 does
// (784 = 49 x 16), or for 16..31; 0 (no tiles) below 16. A narrow transpose gains
// nothing: an SGD step's f32[512,10] update from its transposed gradient ran in 3.2 us
// element by element and 6.0 us by 32x8 tiles plus 2-wide edges.
int64_t TileFor(int64_t size) {
  if (size < 16) return 0;
  if (size < 32 || (size % 32 != 0 && size % 16 == 0)) return 16;
  return 32;
}

}  // namespace

int64_t LoopAtoms::Iterations() const {
  int64_t n = 1;
  for (int64_t a = 0; a < static_cast<int64_t>(sizes.size()); ++a) {
    if (a == k) {
      n *= (sizes[a] + tile_k - 1) / tile_k;
    } else if (a != o) {
      n *= sizes[a];
    }
  }
  return n;
}

std::optional<LoopAtoms> PlanLoopAtoms(const Instruction& inst, const std::vector<const Instruction*>& roots,
                                       const Shape& shape) {
  if (shape.ElementCount() < 2) return std::nullopt;
  AtomWalk walk(inst);
  const AtomWalk::Layout root = walk.RootLayout(shape);
  for (const Instruction* r : roots) {
    if (!walk.Walk(r, root)) return std::nullopt;
  }
  LoopAtoms plan;
  // Atoms in loop order, numbered 0.. in that order.
  const std::vector<int64_t> order = walk.Flatten(root);
  std::unordered_map<int64_t, int64_t> position;
  for (int64_t a : order) {
    position[a] = static_cast<int64_t>(plan.sizes.size());
    plan.sizes.push_back(walk.Size(a));
  }
  auto renumber = [&](const AtomWalk::Layout& layout) {
    std::vector<std::vector<int64_t>> dims;
    for (const auto& dim : layout) {
      std::vector<int64_t> leaves;
      for (int64_t a : dim) walk.Expand(a, &leaves);
      for (int64_t& a : leaves) a = position.at(a);
      dims.push_back(std::move(leaves));
    }
    return dims;
  };
  plan.output_dims = renumber(root);
  for (const AtomWalk::Leaf& leaf : walk.leaves()) {
    LoopAtoms::Access access{leaf.inst, leaf.buffer, renumber(leaf.layout)};
    bool seen = false;
    for (const LoopAtoms::Access& a : plan.accesses) seen |= a.leaf == access.leaf && a.dims == access.dims;
    if (!seen) plan.accesses.push_back(std::move(access));
  }
  // Transposed accesses: they hold the output's minor atom, but another one is minor.
  plan.o = static_cast<int64_t>(plan.sizes.size()) - 1;
  int64_t k = -1;
  bool tileable = true;
  for (size_t j = 0; j < plan.accesses.size(); ++j) {
    const LoopAtoms::Access& a = plan.accesses[j];
    std::vector<int64_t> flat;
    for (const auto& dim : a.dims) flat.insert(flat.end(), dim.begin(), dim.end());
    if (std::find(flat.begin(), flat.end(), plan.o) == flat.end() || flat.back() == plan.o) continue;
    tileable &= k < 0 || k == flat.back();
    k = flat.back();
    plan.tiled.push_back(j);
  }
  for (size_t j : plan.tiled) {
    const LoopAtoms::Access& a = plan.accesses[j];
    tileable &= !IsComplex(a.leaf->shape().element_type());
    for (size_t other = 0; other < plan.accesses.size(); ++other) {
      tileable &= other == j || plan.accesses[other].leaf != a.leaf;
    }
  }
  if (k >= 0 && tileable && TileFor(plan.sizes[k]) > 0 && TileFor(plan.sizes[plan.o]) > 0) {
    plan.k = k;
    plan.tile_k = TileFor(plan.sizes[k]);
    plan.tile_o = TileFor(plan.sizes[plan.o]);
    return plan;
  }
  plan.tiled.clear();
  int64_t dims = 0;
  for (int64_t d = 0; d < shape.rank(); ++d) dims += shape.dimensions(d) > 1 ? 1 : 0;
  if (static_cast<int64_t>(plan.sizes.size()) == dims) return std::nullopt;
  return plan;
}

}  // namespace fusebox::codegen::cpu
