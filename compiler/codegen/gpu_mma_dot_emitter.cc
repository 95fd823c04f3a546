// The GPU kernel emitter's tensor-core dot: f32 dots whose precision allows TF32, as
// warp-level mma.sync m16n8k8 tiles (gpu_dot_plan.h: MmaDot). The operands are read
// elementally (a fused producer, a transpose, a broadcast reads as in any other kernel),
// rounded to TF32 once, when a slice is staged in shared memory, and the kernel's epilogue
// (bias, activation) is evaluated at each output as in the tiled dot. A dot with few
// tiles walks k in parts (MmaDot::splits), each a block writing its partial tile to
// scratch; the last part of a tile to finish adds the parts in order and applies the
// epilogue.
//
// Fragments of mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 (PTX ISA, "Matrix Fragments for
// mma.m16n8k8"), lane = 4 * g + t:
//   A (16 x 8): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 x 8):  b0 (k t, n g), b1 (k t + 4, n g)
//   C (16 x 8): c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// The emulator computes the same product from every lane's fragments
// (gpu_emulator.cc: fusebox_gpu_emu_mma_tf32), so a kernel that places an element in the
// wrong lane gives a wrong result there as on the device.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/codegen/kernel_util.h"

namespace fusebox::codegen::gpu {

namespace {

constexpr int64_t kMmaMinSide = 16;
constexpr int64_t kEnoughMmaBlocks = 128;  // blocks that fill most of an H100's or H200's 132 SMs

// Padding of the shared tiles' rows (in f32 elements), so that a warp's fragment loads hit
// 32 different banks: A rows of block_k + 4 (lane (g, t) reads row g, column t), B rows of
// block_n + 8 (lane (g, t) reads row t, column g).
constexpr int64_t kPadA = 4;
constexpr int64_t kPadB = 8;

}  // namespace

int GpuArchNumber(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return 0;
  int n = 0;
  for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) n = n * 10 + (arch[i] - '0');
  return n;
}

bool DotPrecisionAllowsTf32(const Instruction& dot) {
  const std::vector<Precision>& precision = dot.attrs().operand_precision;
  return dot.attrs().dot_algorithm.empty() &&
         std::none_of(precision.begin(), precision.end(), [](Precision p) { return p == Precision::kHighest; });
}

std::optional<MmaDot> PlanMmaDot(const Instruction& dot, std::string_view arch, bool allow_tf32, int64_t tile,
                                 int64_t splits) {
  if (!allow_tf32 || GpuArchNumber(arch) < 80 || !dot.attrs().dot_dimension_numbers || dot.operand_count() < 2) {
    return std::nullopt;
  }
  auto f32 = [](const Instruction& i) { return i.shape().element_type() == PrimitiveType::kF32; };
  if (!f32(dot) || !f32(*dot.operand(0)) || !f32(*dot.operand(1)) || !DotPrecisionAllowsTf32(dot)) {
    return std::nullopt;
  }
  const DotSpace space = DescribeDot(dot);
  if (space.m < kMmaMinSide || space.n < kMmaMinSide || space.k < kMmaMinSide || space.batch > kMaxGridYZ) {
    return std::nullopt;
  }
  MmaDot plan;
  const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  plan.lhs_k_minor = Contains(dn.lhs_contracting_dimensions, lhs.rank() - 1);
  plan.rhs_n_minor = Contains(space.n_dims, rhs.rank() - 1);
  auto fill = [&](int64_t t) {
    plan.tile = t;
    plan.shape = kMmaTiles[t];
    plan.blocks_m = CeilDiv(space.m, plan.block_m());
    plan.blocks_n = CeilDiv(space.n, plan.block_n());
  };
  if (tile >= 0) {
    if (tile >= kMmaTileCount) return std::nullopt;
    fill(tile);
  } else {
    fill(0);
    for (int64_t t = kMmaTileCount - 1; t > 0; --t) {
      MmaDot candidate = plan;
      fill(t);
      if (plan.blocks_m * plan.blocks_n * space.batch >= kEnoughMmaBlocks) break;
      plan = candidate;
    }
  }
  if (plan.blocks_m > kMaxGridYZ) return std::nullopt;
  plan.slices = CeilDiv(space.k, plan.shape.block_k);
  const int64_t blocks = plan.blocks_m * plan.blocks_n * space.batch;
  if (splits < 1) {
    splits = 1;
    if (blocks < kMmaSplitBelowBlocks) {
      splits = std::min({CeilDiv(kMmaSplitTargetBlocks, blocks), plan.slices / kMmaMinSplitSlices, kMmaMaxSplits});
    }
  }
  // Grid z holds batch x parts.
  splits = std::clamp<int64_t>(std::min(splits, kMaxGridYZ / space.batch), 1, plan.slices);
  plan.slices_per_split = CeilDiv(plan.slices, splits);
  plan.splits = CeilDiv(plan.slices, plan.slices_per_split);  // no empty part
  return plan;
}

std::vector<MmaShape> MmaShapeVariants(const MmaDot& plan) {
  std::vector<MmaShape> out;
  if (plan.tile > 0) out.push_back({plan.tile - 1, -1});
  if (plan.tile + 1 < kMmaTileCount) out.push_back({plan.tile + 1, -1});
  if (plan.splits > 1) out.push_back({plan.tile, 1});
  return out;
}

std::string MmaTileLabel(int64_t tile) {
  const MmaTile& t = kMmaTiles[std::clamp<int64_t>(tile, 0, kMmaTileCount - 1)];
  return std::to_string(t.warps_m * t.tiles_m * 16) + "x" + std::to_string(t.warps_n * t.tiles_n * 8) + " tiles";
}

std::string MmaShapeLabel(const MmaDot& plan) {
  return MmaTileLabel(plan.tile) + (plan.splits > 1 ? ", k in " + std::to_string(plan.splits) + " parts" : "");
}

// f32 -> TF32 bits, rounded to nearest with ties away from zero (cvt.rna.tf32.f32): add
// half of the 13 dropped bits' weight, then clear them. NaN stays NaN (adding could carry
// a small payload into an infinity), and a value past TF32's largest rounds to infinity.
llvm::Value* GpuKernelEmitter::RoundToTf32(llvm::IRBuilder<>& b, llvm::Value* f32) {
  llvm::Value* bits = b.CreateBitCast(f32, b.getInt32Ty());
  llvm::Value* rounded = b.CreateAnd(b.CreateAdd(bits, b.getInt32(0x1000)), b.getInt32(~0x1fffu));
  llvm::Value* nan = b.CreateICmpUGT(b.CreateAnd(bits, b.getInt32(0x7fffffffu)), b.getInt32(0x7f800000u));
  return b.CreateSelect(nan, bits, rounded);
}

std::vector<llvm::Value*> GpuKernelEmitter::MmaTf32(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& a,
                                                    const std::vector<llvm::Value*>& bb,
                                                    const std::vector<llvm::Value*>& c) {
  std::vector<llvm::Value*> d;
  if (emulate_) {
    // The emulator gathers the warp's fragments through memory: a, b as TF32 bits, c in and
    // d out as f32.
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* fa = entry.CreateAlloca(b.getInt32Ty(), b.getInt32(4), "mma.a");
    llvm::AllocaInst* fb = entry.CreateAlloca(b.getInt32Ty(), b.getInt32(2), "mma.b");
    llvm::AllocaInst* fc = entry.CreateAlloca(b.getFloatTy(), b.getInt32(4), "mma.c");
    auto put = [&](llvm::AllocaInst* array, llvm::Type* type, const std::vector<llvm::Value*>& values) {
      for (size_t i = 0; i < values.size(); ++i) {
        b.CreateStore(values[i], b.CreateConstInBoundsGEP1_32(type, array, static_cast<unsigned>(i)));
      }
    };
    put(fa, b.getInt32Ty(), a);
    put(fb, b.getInt32Ty(), bb);
    put(fc, b.getFloatTy(), c);
    llvm::Type* ptr = b.getPtrTy();
    llvm::FunctionCallee hook = module_.getOrInsertFunction(
        "fusebox_gpu_emu_mma_tf32", llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false));
    b.CreateCall(hook, {fa, fb, fc});
    for (unsigned i = 0; i < 4; ++i) {
      d.push_back(b.CreateLoad(b.getFloatTy(), b.CreateConstInBoundsGEP1_32(b.getFloatTy(), fc, i)));
    }
    return d;
  }
  llvm::Function* mma = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_mma_m16n8k8_row_col_tf32);
  std::vector<llvm::Value*> args = a;
  args.insert(args.end(), bb.begin(), bb.end());
  args.insert(args.end(), c.begin(), c.end());
  llvm::Value* out = b.CreateCall(mma, args);
  for (unsigned i = 0; i < 4; ++i) d.push_back(b.CreateExtractValue(out, {i}));
  return d;
}

Status GpuKernelEmitter::EmitMmaDot(const Instruction& inst, const Instruction& dot, const MmaDot& plan,
                                    GpuKernel* kernel) {
  const DotSpace space = DescribeDot(dot);
  const int64_t M = space.m, N = space.n, K = space.k;
  const MmaTile& tile = plan.shape;
  const int64_t BM = plan.block_m(), BN = plan.block_n(), BK = tile.block_k, T = plan.threads();
  const int64_t a_stride = BK + kPadA, b_stride = BN + kPadB;
  const int64_t loads_a = BM * BK / T, loads_b = BK * BN / T;
  const int64_t splits = plan.splits;
  std::vector<LaunchShape> others;
  if (options_.mma_tile < 0 && options_.mma_splits < 1) {
    for (const MmaShape& v : MmaShapeVariants(plan)) {
      std::optional<MmaDot> other = PlanMmaDot(dot, options_.arch, options_.allow_tf32, v.tile, v.splits);
      if (!other) continue;
      const std::string suffix =
          "_m" + std::to_string(other->tile) + (other->splits > 1 ? "k" + std::to_string(other->splits) : "");
      others.push_back({0, 0, 0, MmaShapeLabel(*other), suffix, other->tile, other->splits});
    }
  }
  OfferShapes(MmaShapeLabel(plan), std::move(others));
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel" + shape_.suffix;
  launch.block = {T, 1, 1};
  launch.grid = {plan.blocks_n, plan.blocks_m, space.batch * splits};
  // Split k: each tile's parts write their accumulators to scratch, [tile][part][value][thread]
  // (a warp's stores consecutive), and the last part to finish adds them up.
  const int64_t values = tile.tiles_m * tile.tiles_n * 4;
  const int64_t groups = plan.blocks_m * plan.blocks_n * space.batch;
  if (splits > 1) kernel->scratch_bytes = std::max(kernel->scratch_bytes, groups * splits * values * T * 4);
  const int64_t buffer_count = inst.operand_count() + 1 + (splits > 1 ? 1 : 0);
  Entry e = BeginEntry(inst, launch.function, buffer_count, 0, T);
  if (!emulate_) {
    // Every register ptxas may give a thread (.maxnreg 255): left to itself it sometimes
    // stops at 128 and spills (the GPT block's weight gradients, two contracted dimensions:
    // 128 registers and 16 bytes of spills; 164 and none with the directive). An occupancy
    // request (.minnctapersm) is then weighed against this, as for any kernel.
    module_.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(
            context_, {llvm::ConstantAsMetadata::get(e.fn), llvm::MDString::get(context_, "maxnreg"),
                       llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context_), 255))}));
  }
  llvm::IRBuilder<>& b = *e.b;
  ElementalEmitter& em = *e.emitter;
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i32 = b.getInt32Ty();
  // The staged slice as TF32 bits: A [BM][BK + pad] (m rows), B [BK][BN + pad] (k rows).
  llvm::GlobalVariable* a_tile = SharedArray(i32, BM * a_stride, launch.function + "_lhs");
  llvm::GlobalVariable* b_tile = SharedArray(i32, BK * b_stride, launch.function + "_rhs");
  llvm::Value* tid = ThreadX(b);
  llvm::Value* warp = b.CreateUDiv(tid, b.getInt64(kWarp));
  llvm::Value* lane = b.CreateURem(tid, b.getInt64(kWarp));
  llvm::Value* g = b.CreateUDiv(lane, b.getInt64(4));
  llvm::Value* t4 = b.CreateURem(lane, b.getInt64(4));
  // The warp's place in the block tile, and its first row and column there.
  llvm::Value* warp_m = b.CreateUDiv(warp, b.getInt64(tile.warps_n));
  llvm::Value* warp_n = b.CreateURem(warp, b.getInt64(tile.warps_n));
  llvm::Value* row0 = b.CreateMul(warp_m, b.getInt64(tile.tiles_m * 16));
  llvm::Value* col0 = b.CreateMul(warp_n, b.getInt64(tile.tiles_n * 8));
  llvm::Value* m0 = b.CreateMul(BlockY(b), b.getInt64(BM));
  llvm::Value* n0 = b.CreateMul(BlockX(b), b.getInt64(BN));
  llvm::Value* batch_linear = b.CreateUDiv(BlockZ(b), b.getInt64(splits));
  llvm::Value* part = b.CreateURem(BlockZ(b), b.getInt64(splits));
  IrIndex batch_index = Delinearize(b, batch_linear, space.batch_sizes);
  // This part's slices: [first, first + count).
  llvm::Value* first = b.CreateMul(part, b.getInt64(plan.slices_per_split));
  llvm::Value* rest = b.CreateSub(b.getInt64(plan.slices), first);
  llvm::Value* count = b.CreateSelect(b.CreateICmpULT(rest, b.getInt64(plan.slices_per_split)), rest,
                                      b.getInt64(plan.slices_per_split));

  // Accumulators (tiles_m x tiles_n x 4) and the next slice's values, in registers.
  std::vector<llvm::AllocaInst*> acc;
  for (int64_t i = 0; i < tile.tiles_m * tile.tiles_n * 4; ++i) {
    acc.push_back(em.EntryAlloca(f32, "mma.acc"));
    b.CreateStore(llvm::ConstantFP::get(f32, 0.0), acc.back());
  }
  std::vector<llvm::AllocaInst*> next_a, next_b;
  for (int64_t j = 0; j < loads_a; ++j) next_a.push_back(em.EntryAlloca(i32, "mma.next_a"));
  for (int64_t j = 0; j < loads_b; ++j) next_b.push_back(em.EntryAlloca(i32, "mma.next_b"));

  // Element j of a thread's share of a slice: (row, column) of the staged tile, element
  // tid + j * T of it in the order whose minor side is the operand's minor dimension, so
  // that a warp's global loads are coalesced. Every tile's T is a multiple of its sides:
  // the minor coordinate is the thread's alone, the other steps by T / minor per j.
  auto split = [&](int64_t j, int64_t minor) -> std::pair<llvm::Value*, llvm::Value*> {  // (major, minor)
    return {b.CreateAdd(b.CreateUDiv(tid, b.getInt64(minor)), b.getInt64(j * (T / minor))),
            b.CreateURem(tid, b.getInt64(minor))};
  };
  auto a_place = [&](int64_t j) -> std::pair<llvm::Value*, llvm::Value*> {  // (m, k)
    if (plan.lhs_k_minor) return split(j, BK);
    auto [k, m] = split(j, BM);
    return {m, k};
  };
  auto b_place = [&](int64_t j) -> std::pair<llvm::Value*, llvm::Value*> {  // (k, n)
    if (plan.rhs_n_minor) return split(j, BN);
    auto [n, k] = split(j, BK);
    return {k, n};
  };
  // Loads slice k0's values into next_a / next_b, rounded to TF32; 0 outside the dot. Every
  // load reads an element inside the operand (its index clamped), so that the loads issue
  // together without branches, and a select puts the 0 in.
  auto operand_value = [&](int operand, llvm::Value* free, int64_t free_size, llvm::Value* k) {
    llvm::Value* inside = b.CreateAnd(b.CreateICmpULT(free, b.getInt64(free_size)), b.CreateICmpULT(k, b.getInt64(K)));
    llvm::Value* f = b.CreateSelect(b.CreateICmpULT(free, b.getInt64(free_size)), free, b.getInt64(free_size - 1));
    llvm::Value* kc = b.CreateSelect(b.CreateICmpULT(k, b.getInt64(K)), k, b.getInt64(K - 1));
    llvm::Value* v = em.Emit(dot.operand(operand), DotOperandIndex(b, dot, space, operand, batch_index, f, kc));
    return b.CreateSelect(inside, RoundToTf32(b, v), b.getInt32(0));
  };
  auto load_slice = [&](llvm::Value* k0) {
    e.emitter->PushScope();
    for (int64_t j = 0; j < loads_a; ++j) {
      auto [mm, kk] = a_place(j);
      b.CreateStore(operand_value(0, b.CreateAdd(m0, mm), M, b.CreateAdd(k0, kk)), next_a[static_cast<size_t>(j)]);
    }
    for (int64_t j = 0; j < loads_b; ++j) {
      auto [kk, nn] = b_place(j);
      b.CreateStore(operand_value(1, b.CreateAdd(n0, nn), N, b.CreateAdd(k0, kk)), next_b[static_cast<size_t>(j)]);
    }
    e.emitter->PopScope();
  };
  load_slice(b.CreateMul(first, b.getInt64(BK)));
  Loop(e, count, "mma.slice", [&](llvm::Value* step) {
    llvm::Value* slice = b.CreateAdd(first, step);
    for (int64_t j = 0; j < loads_a; ++j) {
      auto [mm, kk] = a_place(j);
      StoreShared(b, a_tile, b.CreateAdd(b.CreateMul(mm, b.getInt64(a_stride)), kk),
                  b.CreateLoad(i32, next_a[static_cast<size_t>(j)]));
    }
    for (int64_t j = 0; j < loads_b; ++j) {
      auto [kk, nn] = b_place(j);
      StoreShared(b, b_tile, b.CreateAdd(b.CreateMul(kk, b.getInt64(b_stride)), nn),
                  b.CreateLoad(i32, next_b[static_cast<size_t>(j)]));
    }
    Barrier(b);
    // The next slice's loads go out before this one's products (past the end: nothing).
    load_slice(b.CreateMul(b.CreateAdd(slice, b.getInt64(1)), b.getInt64(BK)));
    for (int64_t ks = 0; ks < BK; ks += 8) {
      llvm::Value* ka = b.CreateAdd(t4, b.getInt64(ks));
      llvm::Value* kb = b.CreateAdd(ka, b.getInt64(4));
      // The warp's B fragments for these 8 of k, then each row of tiles: its A fragment and
      // its tiles_n products (a's registers live for one row of tiles only).
      std::vector<std::vector<llvm::Value*>> fb(static_cast<size_t>(tile.tiles_n));
      for (int64_t tn = 0; tn < tile.tiles_n; ++tn) {
        llvm::Value* c = b.CreateAdd(b.CreateAdd(col0, b.getInt64(tn * 8)), g);
        auto at = [&](llvm::Value* k) {
          return LoadShared(b, b_tile, b.CreateAdd(b.CreateMul(k, b.getInt64(b_stride)), c), i32);
        };
        fb[static_cast<size_t>(tn)] = {at(ka), at(kb)};
      }
      for (int64_t tm = 0; tm < tile.tiles_m; ++tm) {
        llvm::Value* r_lo = b.CreateAdd(b.CreateAdd(row0, b.getInt64(tm * 16)), g);
        llvm::Value* r_hi = b.CreateAdd(r_lo, b.getInt64(8));
        auto at = [&](llvm::Value* r, llvm::Value* k) {
          return LoadShared(b, a_tile, b.CreateAdd(b.CreateMul(r, b.getInt64(a_stride)), k), i32);
        };
        const std::vector<llvm::Value*> fa = {at(r_lo, ka), at(r_hi, ka), at(r_lo, kb), at(r_hi, kb)};
        for (int64_t tn = 0; tn < tile.tiles_n; ++tn) {
          const size_t base = static_cast<size_t>((tm * tile.tiles_n + tn) * 4);
          std::vector<llvm::Value*> c;
          for (size_t i = 0; i < 4; ++i) c.push_back(b.CreateLoad(f32, acc[base + i]));
          std::vector<llvm::Value*> d = MmaTf32(b, fa, fb[static_cast<size_t>(tn)], c);
          for (size_t i = 0; i < 4; ++i) b.CreateStore(d[i], acc[base + i]);
        }
      }
    }
    Barrier(b);
  });
  auto write_outputs = [&] {
    // Each accumulator to its output: c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1).
    for (int64_t tm = 0; tm < tile.tiles_m; ++tm) {
      for (int64_t tn = 0; tn < tile.tiles_n; ++tn) {
        for (int64_t i = 0; i < 4; ++i) {
          llvm::Value* row =
              b.CreateAdd(b.CreateAdd(m0, b.CreateAdd(row0, b.getInt64(tm * 16 + (i >= 2 ? 8 : 0)))), g);
          llvm::Value* col = b.CreateAdd(b.CreateAdd(n0, b.CreateAdd(col0, b.getInt64(tn * 8 + (i & 1)))),
                                         b.CreateMul(t4, b.getInt64(2)));
          llvm::Value* value = b.CreateLoad(f32, acc[static_cast<size_t>((tm * tile.tiles_n + tn) * 4 + i)]);
          If(e, b.CreateAnd(b.CreateICmpULT(row, b.getInt64(M)), b.CreateICmpULT(col, b.getInt64(N))), "mma.write",
             [&] { StoreDotOutput(e, inst, dot, space, batch_index, row, col, value); });
        }
      }
    }
  };
  if (splits > 1) {
    llvm::Value* scratch = e.buffer(buffer_count - 1);
    llvm::Value* group = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(batch_linear, b.getInt64(plan.blocks_m)),
                                                             BlockY(b)),
                                                 b.getInt64(plan.blocks_n)),
                                     BlockX(b));
    auto partial = [&](llvm::Value* p, int64_t v) {  // value v of this thread in part p's partial
      llvm::Value* row = b.CreateAdd(b.CreateMul(group, b.getInt64(splits)), p);
      llvm::Value* at = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(row, b.getInt64(values)), b.getInt64(v)),
                                                b.getInt64(T)),
                                    tid);
      return b.CreateInBoundsGEP(f32, scratch, at);
    };
    for (int64_t v = 0; v < values; ++v) {
      b.CreateStore(b.CreateLoad(f32, acc[static_cast<size_t>(v)]), partial(part, v));
    }
    DeviceFence(b);
    llvm::GlobalVariable* counters = ArrivalCounters(groups, launch.function + "_arrivals");
    llvm::Value* last = LastToArrive(e, counters, group, splits, tid, launch.function);
    // Only the last part goes on: it adds the parts in order (its own among them) and writes.
    If(e, last, "mma.fold", [&] {
      for (llvm::AllocaInst* a : acc) b.CreateStore(llvm::ConstantFP::get(f32, 0.0), a);
      Loop(e, b.getInt64(splits), "mma.part", [&](llvm::Value* p) {
        for (int64_t v = 0; v < values; ++v) {
          llvm::LoadInst* x = b.CreateLoad(f32, partial(p, v));
          x->setVolatile(true);  // other blocks wrote it: past the L1 cache
          llvm::AllocaInst* a = acc[static_cast<size_t>(v)];
          b.CreateStore(b.CreateFAdd(b.CreateLoad(f32, a), x), a);
        }
      });
      write_outputs();
    });
  } else {
    write_outputs();
  }
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
