// The GPU kernel emitter's dots: the tiled dot (16x16 output tiles through shared memory)
// and the skinny dot (one side of at most kSkinnyNarrow elements: a classifier layer's ten
// outputs, its weight gradient, a batch of one), whose contracted dimension is split over
// the threads of a block instead of tiled.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/codegen/kernel_util.h"

namespace fusebox::codegen::gpu {

namespace {


int64_t NextPowerOfTwo(int64_t x) {
  int64_t p = 1;
  while (p < x) p *= 2;
  return p;
}

// Kernels with fewer blocks than this leave SMs idle (an H100 has 132, an H200 too).
constexpr int64_t kEnoughBlocks = 128;

}  // namespace

DotSpace DescribeDot(const Instruction& dot) {
  DotSpace s;
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  for (int64_t d : dn.lhs_batch_dimensions) s.batch_sizes.push_back(lhs.dimensions(d));
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(dn.lhs_batch_dimensions, d) && !Contains(dn.lhs_contracting_dimensions, d)) s.m_dims.push_back(d);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(dn.rhs_batch_dimensions, d) && !Contains(dn.rhs_contracting_dimensions, d)) s.n_dims.push_back(d);
  }
  for (int64_t d : dn.lhs_contracting_dimensions) s.k_sizes.push_back(lhs.dimensions(d));
  for (int64_t size : s.batch_sizes) s.batch *= size;
  for (int64_t d : s.m_dims) s.m_sizes.push_back(lhs.dimensions(d)), s.m *= lhs.dimensions(d);
  for (int64_t d : s.n_dims) s.n_sizes.push_back(rhs.dimensions(d)), s.n *= rhs.dimensions(d);
  for (int64_t size : s.k_sizes) s.k *= size;
  return s;
}

std::vector<int64_t> SkinnyRowChoices(const SkinnyDot& plan) {
  return plan.wide_k_minor ? std::vector<int64_t>{1, 2, 4, 8} : std::vector<int64_t>{8, 16, 32};
}

std::optional<SkinnyDot> PlanSkinnyDot(const Instruction& dot, int64_t rows) {
  if (!dot.attrs().dot_dimension_numbers || dot.operand_count() < 2) return std::nullopt;
  switch (dot.shape().element_type()) {
    case PrimitiveType::kF16: case PrimitiveType::kBF16: case PrimitiveType::kF32: case PrimitiveType::kF64:
      break;
    default:
      return std::nullopt;
  }
  const DotSpace space = DescribeDot(dot);
  SkinnyDot plan;
  if (space.n <= kSkinnyNarrow) {
    plan.narrow_is_n = true;
  } else if (space.m <= kSkinnyNarrow) {
    plan.narrow_is_n = false;
  } else {
    return std::nullopt;
  }
  plan.narrow = plan.narrow_is_n ? space.n : space.m;
  plan.wide = plan.narrow_is_n ? space.m : space.n;
  // Too short a contraction to split (the tiled dot does one slice), or nothing to compute.
  if (space.k < kSkinnyMinK || plan.narrow == 0 || plan.wide == 0 || space.batch > kMaxGridYZ) return std::nullopt;
  // Every wide row reads the whole narrow operand (k x Q values): it must stay in L1 for
  // that to cost less than the tiled dot's reads, which share each tile among 16 rows.
  if (space.k * plan.narrow > kSkinnyMaxNarrowOperand) return std::nullopt;
  // Which dimension of the wide operand is its minor one (row-major after layout
  // normalization): contracted, so a warp's lanes split k and read consecutive elements;
  // else free, so lanes take consecutive wide rows.
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const int64_t wide_operand = plan.narrow_is_n ? 0 : 1;
  const Shape& wide_shape = dot.operand(wide_operand)->shape();
  const std::vector<int64_t>& contracting = wide_operand == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
  const std::vector<int64_t>& free = plan.narrow_is_n ? space.m_dims : space.n_dims;
  plan.wide_k_minor = wide_shape.rank() == 0 || !Contains(free, wide_shape.rank() - 1) ||
                      Contains(contracting, wide_shape.rank() - 1);
  auto blocks = [&](int64_t r) { return CeilDiv(plan.wide, r) * space.batch; };
  const int64_t k_span = NextPowerOfTwo(space.k);
  if (plan.wide_k_minor) {
    // Rows of 256 threads' worth of k slices, fewer rows a block until the blocks fill the GPU.
    plan.rows = 1;
    for (int64_t r : {8, 4, 2}) {
      if (blocks(r) >= kEnoughBlocks) {
        plan.rows = r;
        break;
      }
    }
  } else {
    // A warp's lanes take 8, 16 or 32 consecutive wide rows (whole 32-byte sectors of f32).
    plan.rows = 8;
    for (int64_t r : {32, 16}) {
      if (blocks(r) >= kEnoughBlocks) {
        plan.rows = r;
        break;
      }
    }
  }
  if (rows > 0) {
    if (!Contains(SkinnyRowChoices(plan), rows)) return std::nullopt;
    plan.rows = rows;
  }
  plan.slices = plan.wide_k_minor ? std::max<int64_t>(kWarp, std::min(kBlock / plan.rows, k_span))
                                  : std::max(kWarp / plan.rows, std::min(kBlock / plan.rows, k_span));
  plan.blocks = CeilDiv(plan.wide, plan.rows);
  return plan;
}

IrIndex GpuKernelEmitter::DotOperandIndex(llvm::IRBuilder<>& b, const Instruction& dot, const DotSpace& space,
                                          int64_t operand, const IrIndex& batch_index, llvm::Value* free,
                                          llvm::Value* k) {
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const Shape& shape = dot.operand(operand)->shape();
  const std::vector<int64_t>& batch_dims = operand == 0 ? dn.lhs_batch_dimensions : dn.rhs_batch_dimensions;
  const std::vector<int64_t>& contracting = operand == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
  const std::vector<int64_t>& free_dims = operand == 0 ? space.m_dims : space.n_dims;
  IrIndex index(static_cast<size_t>(shape.rank()), b.getInt64(0));
  for (size_t i = 0; i < batch_dims.size(); ++i) index[static_cast<size_t>(batch_dims[i])] = batch_index[i];
  IrIndex ff = Delinearize(b, free, operand == 0 ? space.m_sizes : space.n_sizes);
  IrIndex kk = Delinearize(b, k, space.k_sizes);
  for (size_t i = 0; i < free_dims.size(); ++i) index[static_cast<size_t>(free_dims[i])] = ff[i];
  for (size_t i = 0; i < contracting.size(); ++i) index[static_cast<size_t>(contracting[i])] = kk[i];
  return index;
}

// Binds the dot's value for output (batch, m, n), evaluates the kernel's root there and
// stores it.
void GpuKernelEmitter::StoreDotOutput(Entry& e, const Instruction& inst, const Instruction& dot,
                                      const DotSpace& space, const IrIndex& batch_index, llvm::Value* m,
                                      llvm::Value* n, llvm::Value* value) {
  llvm::IRBuilder<>& b = *e.b;
  ElementalEmitter& em = *e.emitter;
  em.BindScalar(&dot, em.Round(dot.shape().element_type(), value));
  IrIndex index = batch_index;
  for (llvm::Value* v : Delinearize(b, m, space.m_sizes)) index.push_back(v);
  for (llvm::Value* v : Delinearize(b, n, space.n_sizes)) index.push_back(v);
  const Instruction* root = inst.opcode() == Opcode::kFusion ? inst.fused_computation()->root() : &inst;
  llvm::Value* result = em.Emit(root, index);
  IrArray out(e.buffer(inst.operand_count()), inst.shape());
  b.CreateStore(ToStorage(b, inst.shape().element_type(), result), out.Address(b, index));
  em.Unbind(&dot);
}

Status GpuKernelEmitter::EmitTiledDot(const Instruction& inst, const Instruction& dot, GpuKernel* kernel) {
  const DotSpace space = DescribeDot(dot);
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  const PrimitiveType type = dot.shape().element_type();
  const int64_t m = space.m, n = space.n, k = space.k;
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel";
  launch.block = {kDotTile * kDotTile, 1, 1};
  launch.grid = {CeilDiv(n, kDotTile), CeilDiv(m, kDotTile), space.batch};
  if (launch.grid[1] > kMaxGridYZ || launch.grid[2] > kMaxGridYZ || dot.shape().ElementCount() == 0) {
    return EmitLoops(inst, KernelOutputs(inst), kernel);
  }
  const int64_t buffer_count = inst.operand_count() + 1;
  Entry e = BeginEntry(inst, launch.function, buffer_count, 0, launch.block[0]);
  llvm::IRBuilder<>& b = *e.b;
  ElementalEmitter& em = *e.emitter;
  const PrimitiveType math_type = (type == PrimitiveType::kF16 || type == PrimitiveType::kBF16) ? PrimitiveType::kF32 : type;  // tiled types only
  llvm::Type* acc_type = *RegisterType(context_, type);
  llvm::GlobalVariable* a_tile = SharedArray(acc_type, kDotTile * kDotTile, launch.function + "_lhs");
  llvm::GlobalVariable* b_tile = SharedArray(acc_type, kDotTile * kDotTile, launch.function + "_rhs");
  llvm::Value* tid = ThreadX(b);
  llvm::Value* tx = b.CreateURem(tid, b.getInt64(kDotTile));
  llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(kDotTile));
  llvm::Value* n0 = b.CreateMul(BlockX(b), b.getInt64(kDotTile));
  llvm::Value* m0 = b.CreateMul(BlockY(b), b.getInt64(kDotTile));
  IrIndex batch_index = Delinearize(b, BlockZ(b), space.batch_sizes);
  llvm::AllocaInst* acc = em.EntryAlloca(acc_type, "dot.acc");
  b.CreateStore(em.Constant(type, 0), acc);
  llvm::Value* row = b.CreateAdd(m0, ty);
  llvm::Value* col = b.CreateAdd(n0, tx);
  Loop(e, b.getInt64(CeilDiv(k, kDotTile)), "kslice", [&](llvm::Value* slice) {
    llvm::Value* k0 = b.CreateMul(slice, b.getInt64(kDotTile));
    llvm::Value* slot = b.CreateAdd(b.CreateMul(ty, b.getInt64(kDotTile)), tx);
    // lhs tile [ty][tx] = lhs(row, k0 + tx); rhs tile [ty][tx] = rhs(k0 + ty, col); zero outside.
    StoreShared(b, a_tile, slot, em.Constant(type, 0));
    StoreShared(b, b_tile, slot, em.Constant(type, 0));
    llvm::Value* ka = b.CreateAdd(k0, tx);
    If(e, b.CreateAnd(b.CreateICmpULT(row, b.getInt64(m)), b.CreateICmpULT(ka, b.getInt64(k))), "load_lhs", [&] {
      llvm::Value* v = em.Convert(&dot, lhs.element_type(), type,
                                  em.Emit(dot.operand(0), DotOperandIndex(b, dot, space, 0, batch_index, row, ka)));
      StoreShared(b, a_tile, slot, v);
    });
    llvm::Value* kb = b.CreateAdd(k0, ty);
    If(e, b.CreateAnd(b.CreateICmpULT(col, b.getInt64(n)), b.CreateICmpULT(kb, b.getInt64(k))), "load_rhs", [&] {
      llvm::Value* v = em.Convert(&dot, rhs.element_type(), type,
                                  em.Emit(dot.operand(1), DotOperandIndex(b, dot, space, 1, batch_index, col, kb)));
      StoreShared(b, b_tile, slot, v);
    });
    Barrier(b);
    for (int64_t kk = 0; kk < kDotTile; ++kk) {
      llvm::Value* x = LoadShared(b, a_tile, b.CreateAdd(b.CreateMul(ty, b.getInt64(kDotTile)), b.getInt64(kk)), acc_type);
      llvm::Value* y = LoadShared(b, b_tile, b.CreateAdd(b.getInt64(kk * kDotTile), tx), acc_type);
      llvm::Value* product = em.Arithmetic(&dot, Opcode::kMultiply, math_type, x, y);
      b.CreateStore(em.Arithmetic(&dot, Opcode::kAdd, math_type, b.CreateLoad(acc_type, acc), product), acc);
    }
    Barrier(b);
  });
  If(e, b.CreateAnd(b.CreateICmpULT(row, b.getInt64(m)), b.CreateICmpULT(col, b.getInt64(n))), "write", [&] {
    StoreDotOutput(e, inst, dot, space, batch_index, row, col, b.CreateLoad(acc_type, acc));
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

Status GpuKernelEmitter::EmitSkinnyDot(const Instruction& inst, const Instruction& dot, const SkinnyDot& plan,
                                       GpuKernel* kernel) {
  const DotSpace space = DescribeDot(dot);
  const PrimitiveType type = dot.shape().element_type();
  const PrimitiveType math_type = (type == PrimitiveType::kF16 || type == PrimitiveType::kBF16) ? PrimitiveType::kF32 : type;
  const int64_t R = plan.rows, S = plan.slices, Q = plan.narrow, W = plan.wide, K = space.k;
  const int64_t threads = R * S;
  // The wide operand X (rows w, contracted k) and the narrow one Y (k, columns q).
  const int64_t x_operand = plan.narrow_is_n ? 0 : 1, y_operand = 1 - x_operand;
  std::vector<LaunchShape> others;
  for (int64_t rows : SkinnyRowChoices(plan)) {
    if (rows != R) others.push_back({0, 0, rows, SkinnyLabel(rows), "_r" + std::to_string(rows)});
  }
  OfferShapes(SkinnyLabel(R), std::move(others));
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel" + shape_.suffix;
  launch.block = {threads, 1, 1};
  launch.grid = {plan.blocks, space.batch, 1};
  const int64_t buffer_count = inst.operand_count() + 1;
  Entry e = BeginEntry(inst, launch.function, buffer_count, 0, threads);
  llvm::IRBuilder<>& b = *e.b;
  ElementalEmitter& em = *e.emitter;
  llvm::Type* acc_type = *RegisterType(context_, type);
  llvm::Value* t = ThreadX(b);
  // Thread t works on wide row r of the block and k slice s: k = s, s + S, ...
  llvm::Value* r = plan.wide_k_minor ? b.CreateUDiv(t, b.getInt64(S)) : b.CreateURem(t, b.getInt64(R));
  llvm::Value* s = plan.wide_k_minor ? b.CreateURem(t, b.getInt64(S)) : b.CreateUDiv(t, b.getInt64(R));
  llvm::Value* w0 = b.CreateMul(BlockX(b), b.getInt64(R));
  llvm::Value* w = b.CreateAdd(w0, r);
  IrIndex batch_index = Delinearize(b, BlockY(b), space.batch_sizes);
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t q = 0; q < Q; ++q) {
    acc.push_back(em.EntryAlloca(acc_type, "skinny.acc"));
    b.CreateStore(em.Constant(type, 0), acc.back());
  }
  llvm::Value* active = b.CreateICmpULT(w, b.getInt64(W));
  llvm::Value* count = StridedCount(b, active, s, b.getInt64(K), S);
  auto operand_index = [&](int64_t operand, llvm::Value* free, llvm::Value* k) {
    return DotOperandIndex(b, dot, space, operand, batch_index, free, k);
  };
  // Step i of the thread's k steps: k = s + i * S. Steps go kUnroll at a time in one basic
  // block (their loads issue together instead of each waiting on the one before), then the
  // rest one at a time; the sums keep the order of the steps.
  auto step = [&](llvm::Value* i) {
    llvm::Value* k = b.CreateAdd(s, b.CreateMul(i, b.getInt64(S)));
    const Instruction* x_hlo = dot.operand(x_operand);
    const Instruction* y_hlo = dot.operand(y_operand);
    llvm::Value* x = em.Convert(&dot, x_hlo->shape().element_type(), type, em.Emit(x_hlo, operand_index(x_operand, w, k)));
    for (int64_t q = 0; q < Q; ++q) {
      llvm::Value* y = em.Convert(&dot, y_hlo->shape().element_type(), type,
                                  em.Emit(y_hlo, operand_index(y_operand, b.getInt64(q), k)));
      llvm::Value* lhs = plan.narrow_is_n ? x : y;
      llvm::Value* rhs = plan.narrow_is_n ? y : x;
      llvm::Value* product = em.Arithmetic(&dot, Opcode::kMultiply, math_type, lhs, rhs);
      b.CreateStore(em.Arithmetic(&dot, Opcode::kAdd, math_type, b.CreateLoad(acc_type, acc[q]), product), acc[q]);
    }
  };
  constexpr int64_t kUnroll = 4;
  llvm::Value* groups = b.CreateUDiv(count, b.getInt64(kUnroll));
  Loop(e, groups, "ksteps", [&](llvm::Value* g) {
    for (int64_t u = 0; u < kUnroll; ++u) step(b.CreateAdd(b.CreateMul(g, b.getInt64(kUnroll)), b.getInt64(u)));
  });
  llvm::Value* done = b.CreateMul(groups, b.getInt64(kUnroll));
  Loop(e, b.CreateSub(count, done), "kstep", [&](llvm::Value* i) { step(b.CreateAdd(done, i)); });
  // The slices of a row within a warp fold by shuffles: lanes 1 apart (k-minor: the whole
  // warp is one row), or R apart (the warp holds R rows); the row's first lane keeps the sum.
  const int64_t lane_stride = plan.wide_k_minor ? 1 : R;
  std::vector<llvm::Value*> sums;
  for (int64_t q = 0; q < Q; ++q) {
    llvm::Value* v = b.CreateLoad(acc_type, acc[q]);
    for (int64_t offset = kWarp / 2; offset >= lane_stride; offset /= 2) {
      v = em.Arithmetic(&dot, Opcode::kAdd, math_type, v, ShuffleDown(b, v, offset));
    }
    sums.push_back(v);
  }
  // One partial per warp holding the row (k-minor: S / 32 warps a row; else every warp
  // holds all R rows): partials[p][r][q] in shared memory.
  const int64_t partials = plan.wide_k_minor ? S / kWarp : threads / kWarp;
  llvm::GlobalVariable* shared = SharedArray(acc_type, partials * R * Q, launch.function + "_partials");
  llvm::Value* lane = b.CreateURem(t, b.getInt64(kWarp));
  llvm::Value* leader = plan.wide_k_minor ? b.CreateICmpEQ(lane, b.getInt64(0)) : b.CreateICmpULT(lane, b.getInt64(R));
  llvm::Value* p = plan.wide_k_minor ? b.CreateUDiv(s, b.getInt64(kWarp)) : b.CreateUDiv(t, b.getInt64(kWarp));
  If(e, leader, "partials", [&] {
    llvm::Value* base = b.CreateMul(b.CreateAdd(b.CreateMul(p, b.getInt64(R)), r), b.getInt64(Q));
    for (int64_t q = 0; q < Q; ++q) StoreShared(b, shared, b.CreateAdd(base, b.getInt64(q)), sums[static_cast<size_t>(q)]);
  });
  Barrier(b);
  // Each of the block's R x Q outputs: the sum of its partials, in order, then the
  // epilogue. Consecutive threads write consecutive outputs (q minor when the narrow side
  // is the rhs's, which is the output's minor side; else w).
  Loop(e, StridedCount(b, b.getInt1(true), t, b.getInt64(R * Q), threads), "outputs", [&](llvm::Value* i) {
    llvm::Value* o = b.CreateAdd(t, b.CreateMul(i, b.getInt64(threads)));
    llvm::Value* orow = plan.narrow_is_n ? b.CreateUDiv(o, b.getInt64(Q)) : b.CreateURem(o, b.getInt64(R));
    llvm::Value* oq = plan.narrow_is_n ? b.CreateURem(o, b.getInt64(Q)) : b.CreateUDiv(o, b.getInt64(R));
    llvm::Value* ow = b.CreateAdd(w0, orow);
    If(e, b.CreateICmpULT(ow, b.getInt64(W)), "write", [&] {
      llvm::Value* slot = b.CreateAdd(b.CreateMul(orow, b.getInt64(Q)), oq);
      llvm::Value* value = LoadShared(b, shared, slot, acc_type);
      for (int64_t part = 1; part < partials; ++part) {
        llvm::Value* next = LoadShared(b, shared, b.CreateAdd(slot, b.getInt64(part * R * Q)), acc_type);
        value = em.Arithmetic(&dot, Opcode::kAdd, math_type, value, next);
      }
      StoreDotOutput(e, inst, dot, space, batch_index, plan.narrow_is_n ? ow : oq, plan.narrow_is_n ? oq : ow, value);
    });
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
