// The GPU kernel emitter's reductions: per-thread accumulators, warp shuffles and
// shared-memory trees, row reductions (a warp or block per row, split into partials when
// rows are few and long), row kernels and column reductions.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/passes/row_fusion.h"

namespace fusebox::codegen::gpu {

std::vector<llvm::Type*> GpuKernelEmitter::ValueTypes(const ReductionInfo& info) {
  std::vector<llvm::Type*> types;
  for (const Instruction* hero : info.heroes) {
    const int64_t n = hero->operand_count() / 2;
    for (int64_t k = 0; k < n; ++k) types.push_back(*RegisterType(context_, hero->operand(n + k)->shape().element_type()));
  }
  return types;
}

GpuKernelEmitter::Accumulator GpuKernelEmitter::MakeAccumulator(Entry& e, const ReductionInfo& info) {
  Accumulator acc;
  llvm::IRBuilder<>& b = *e.b;
  for (const Instruction* hero : info.heroes) {
    const int64_t n = hero->operand_count() / 2;
    std::vector<llvm::AllocaInst*> slots;
    for (int64_t k = 0; k < n; ++k) {
      llvm::Value* init = e.emitter->Emit(hero->operand(n + k), {});
      llvm::AllocaInst* slot = e.emitter->EntryAlloca(init->getType(), hero->name() + ".acc");
      b.CreateStore(init, slot);
      slots.push_back(slot);
    }
    acc.values.push_back(slots);
  }
  acc.valid = e.emitter->EntryAlloca(b.getInt1Ty(), "acc.valid");
  b.CreateStore(b.getFalse(), acc.valid);
  return acc;
}

std::vector<llvm::Value*> GpuKernelEmitter::Load(Entry& e, const Accumulator& acc) {
  std::vector<llvm::Value*> flat;
  for (const auto& slots : acc.values) {
    for (llvm::AllocaInst* slot : slots) flat.push_back(e.b->CreateLoad(slot->getAllocatedType(), slot));
  }
  return flat;
}

void GpuKernelEmitter::Fold(Entry& e, const ReductionInfo& info, const Accumulator& acc, const std::vector<llvm::Value*>& values,
                            llvm::Value* valid) {
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* had = b.CreateLoad(b.getInt1Ty(), acc.valid);
  std::vector<llvm::Value*> current = Load(e, acc);
  size_t flat = 0;
  for (size_t h = 0; h < info.heroes.size(); ++h) {
    const Instruction* hero = info.heroes[h];
    const size_t n = acc.values[h].size();
    std::vector<llvm::Value*> args(current.begin() + static_cast<std::ptrdiff_t>(flat),
                                   current.begin() + static_cast<std::ptrdiff_t>(flat + n));
    args.insert(args.end(), values.begin() + static_cast<std::ptrdiff_t>(flat),
                values.begin() + static_cast<std::ptrdiff_t>(flat + n));
    std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), args);
    for (size_t k = 0; k < n && k < combined.size(); ++k) {
      llvm::Value* next = b.CreateSelect(had, combined[k], values[flat + k]);
      next = b.CreateSelect(valid, next, current[flat + k]);
      b.CreateStore(next, acc.values[h][k]);
    }
    flat += n;
  }
  b.CreateStore(b.CreateOr(had, valid), acc.valid);
}

llvm::Value* GpuKernelEmitter::ShuffleDown(llvm::IRBuilder<>& b, llvm::Value* v, int64_t offset) {
  return Shuffle(b, v, /*index=*/false, offset);
}

llvm::Value* GpuKernelEmitter::Broadcast(llvm::IRBuilder<>& b, llvm::Value* v, int64_t lane) {
  return Shuffle(b, v, /*index=*/true, lane);
}

llvm::Value* GpuKernelEmitter::Shuffle(llvm::IRBuilder<>& b, llvm::Value* v, bool index, int64_t operand) {
  llvm::Type* t = v->getType();
  if (auto* st = llvm::dyn_cast<llvm::StructType>(t)) {
    llvm::Value* out = llvm::PoisonValue::get(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i) {
      out = b.CreateInsertValue(out, Shuffle(b, b.CreateExtractValue(v, {i}), index, operand), {i});
    }
    return out;
  }
  const unsigned bits = static_cast<unsigned>(t->getPrimitiveSizeInBits());
  auto shuffle32 = [&](llvm::Value* x) -> llvm::Value* {
    if (emulate_) {
      llvm::FunctionCallee f = module_.getOrInsertFunction(
          index ? "fusebox_gpu_emu_shfl_idx" : "fusebox_gpu_emu_shfl_down",
          llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()}, false));
      return b.CreateCall(f, {x, b.getInt32(static_cast<uint32_t>(operand))});
    }
    llvm::Function* shfl = llvm::Intrinsic::getDeclaration(
        &module_, index ? llvm::Intrinsic::nvvm_shfl_sync_idx_i32 : llvm::Intrinsic::nvvm_shfl_sync_down_i32);
    return b.CreateCall(shfl, {b.getInt32(0xffffffffu), x, b.getInt32(static_cast<uint32_t>(operand)), b.getInt32(31)});
  };
  llvm::Type* int_type = b.getIntNTy(bits);
  llvm::Value* as_int = t->isIntegerTy() ? v : b.CreateBitCast(v, int_type);
  llvm::Value* moved = nullptr;
  if (bits <= 32) {
    moved = b.CreateTrunc(shuffle32(b.CreateZExt(as_int, b.getInt32Ty())), int_type);
  } else {
    llvm::Value* wide = b.CreateZExt(as_int, b.getInt64Ty());
    llvm::Value* lo = shuffle32(b.CreateTrunc(wide, b.getInt32Ty()));
    llvm::Value* hi = shuffle32(b.CreateTrunc(b.CreateLShr(wide, 32), b.getInt32Ty()));
    llvm::Value* joined = b.CreateOr(b.CreateZExt(lo, b.getInt64Ty()), b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32));
    moved = b.CreateTrunc(joined, int_type);
  }
  return t->isIntegerTy() ? moved : b.CreateBitCast(moved, t);
}

void GpuKernelEmitter::WarpReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t width) {
  llvm::IRBuilder<>& b = *e.b;
  for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
    std::vector<llvm::Value*> mine = Load(e, acc);
    std::vector<llvm::Value*> theirs;
    for (llvm::Value* v : mine) theirs.push_back(ShuffleDown(b, v, offset));
    llvm::Value* their_valid = ShuffleDown(b, b.CreateLoad(b.getInt1Ty(), acc.valid), offset);
    Fold(e, info, acc, theirs, their_valid);
  }
}

llvm::GlobalVariable* GpuKernelEmitter::SharedArray(llvm::Type* element, int64_t count, const std::string& name) {
  llvm::Type* type = element->isIntegerTy(1) ? llvm::Type::getInt8Ty(context_) : element;
  auto* array = llvm::ArrayType::get(type, static_cast<uint64_t>(count));
  auto* g = new llvm::GlobalVariable(module_, array, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::UndefValue::get(array), name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, emulate_ ? 0 : 3);
  g->setAlignment(llvm::Align(16));
  return g;
}

void GpuKernelEmitter::StoreShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Value* v) {
  llvm::Type* element = array->getValueType()->getArrayElementType();
  llvm::Value* address = b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), slot});
  b.CreateStore(v->getType()->isIntegerTy(1) ? b.CreateZExt(v, element) : v, address);
}

llvm::Value* GpuKernelEmitter::LoadShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Type* type) {
  llvm::Type* element = array->getValueType()->getArrayElementType();
  llvm::Value* address = b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), slot});
  llvm::Value* v = b.CreateLoad(element, address);
  return type->isIntegerTy(1) ? b.CreateICmpNE(v, llvm::ConstantInt::get(element, 0)) : v;
}

void GpuKernelEmitter::GroupReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t group, int64_t groups,
                                   llvm::Value* group_in_block, llvm::Value* lane, const std::string& name) {
  llvm::IRBuilder<>& b = *e.b;
  WarpReduce(e, info, acc, std::min(group, kWarp));
  if (group <= kWarp) return;
  const int64_t warps = group / kWarp;
  std::vector<llvm::Type*> types = ValueTypes(info);
  std::vector<llvm::GlobalVariable*> shared;
  for (size_t v = 0; v < types.size(); ++v) shared.push_back(SharedArray(types[v], warps * groups, name + "_smem" + std::to_string(v)));
  llvm::GlobalVariable* shared_valid = SharedArray(b.getInt1Ty(), warps * groups, name + "_smem_valid");
  llvm::Value* warp = b.CreateUDiv(lane, b.getInt64(kWarp));
  llvm::Value* slot = b.CreateAdd(b.CreateMul(group_in_block, b.getInt64(warps)), warp);
  If(e, b.CreateICmpEQ(b.CreateURem(lane, b.getInt64(kWarp)), b.getInt64(0)), "warp_leader", [&] {
    std::vector<llvm::Value*> values = Load(e, acc);
    for (size_t v = 0; v < values.size(); ++v) StoreShared(b, shared[v], slot, values[v]);
    StoreShared(b, shared_valid, slot, b.CreateLoad(b.getInt1Ty(), acc.valid));
  });
  Barrier(b);
  // The first warp of the group folds the warps' results.
  llvm::Value* reads = b.CreateICmpULT(lane, b.getInt64(warps));
  llvm::Value* from = b.CreateAdd(b.CreateMul(group_in_block, b.getInt64(warps)), b.CreateSelect(reads, lane, b.getInt64(0)));
  b.CreateStore(b.getFalse(), acc.valid);
  If(e, reads, "gather_warps", [&] {
    std::vector<llvm::Value*> values;
    for (size_t v = 0; v < types.size(); ++v) values.push_back(LoadShared(b, shared[v], from, types[v]));
    Fold(e, info, acc, values, LoadShared(b, shared_valid, from, b.getInt1Ty()));
  });
  WarpReduce(e, info, acc, warps);
}

IrIndex GpuKernelEmitter::OperandIndex(llvm::IRBuilder<>& b, const ReductionInfo& info, const IrIndex& kept, llvm::Value* r) {
  std::vector<int64_t> reduced_dims;
  for (int64_t d : info.reduced) reduced_dims.push_back(info.operand.dimensions(d));
  IrIndex reduced = Delinearize(b, r, reduced_dims);
  IrIndex index(static_cast<size_t>(info.operand.rank()), b.getInt64(0));
  for (size_t k = 0; k < info.kept.size(); ++k) index[static_cast<size_t>(info.kept[k])] = kept[k];
  for (size_t k = 0; k < info.reduced.size(); ++k) index[static_cast<size_t>(info.reduced[k])] = reduced[k];
  return index;
}

int64_t GpuKernelEmitter::ReductionVector(const ReductionInfo& info, int64_t span, int64_t threads) {
  if (!info.row || info.reduced.empty() || info.operand.rank() == 0) return 1;
  const int64_t minor = info.operand.dimensions(info.operand.rank() - 1);
  if (info.reduced.back() != info.operand.rank() - 1) return 1;
  return minor % kReductionVector == 0 && span % (kReductionVector * threads) == 0 ? kReductionVector : 1;
}

IrIndex GpuKernelEmitter::VectorOperandIndex(llvm::IRBuilder<>& b, const ReductionInfo& info, const IrIndex& kept,
                                             llvm::Value* q, int64_t vector, int64_t v) {
  if (vector == 1) return OperandIndex(b, info, kept, q);
  std::vector<int64_t> reduced_dims;
  for (int64_t d : info.reduced) reduced_dims.push_back(info.operand.dimensions(d));
  reduced_dims.back() /= vector;
  IrIndex reduced = Delinearize(b, q, reduced_dims);
  reduced.back() = b.CreateAdd(b.CreateMul(reduced.back(), b.getInt64(vector), "", true, true), b.getInt64(v), "", true, true);
  IrIndex index(static_cast<size_t>(info.operand.rank()), b.getInt64(0));
  for (size_t k = 0; k < info.kept.size(); ++k) index[static_cast<size_t>(info.kept[k])] = kept[k];
  for (size_t k = 0; k < info.reduced.size(); ++k) index[static_cast<size_t>(info.reduced[k])] = reduced[k];
  return index;
}

std::vector<int64_t> GpuKernelEmitter::OutputDims(const ReductionInfo& info) {
  std::vector<int64_t> dims;
  for (int64_t d : info.kept) dims.push_back(info.operand.dimensions(d));
  return dims;
}

std::vector<llvm::Value*> GpuKernelEmitter::HeroInputs(Entry& e, const ReductionInfo& info, const IrIndex& index) {
  std::vector<llvm::Value*> values;
  for (const Instruction* hero : info.heroes) {
    const int64_t n = hero->operand_count() / 2;
    for (int64_t k = 0; k < n; ++k) values.push_back(e.emitter->Emit(hero->operand(k), index));
  }
  return values;
}

void GpuKernelEmitter::FinishOutputs(Entry& e, const Instruction& inst, const ReductionInfo& info, const Accumulator& acc,
                                     const std::vector<OutputLeaf>& outputs, llvm::Value* o) {
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* valid = b.CreateLoad(b.getInt1Ty(), acc.valid);
  std::vector<llvm::Value*> current = Load(e, acc);
  size_t flat = 0;
  for (size_t h = 0; h < info.heroes.size(); ++h) {
    const Instruction* hero = info.heroes[h];
    const int64_t n = hero->operand_count() / 2;
    std::vector<llvm::Value*> args, inits;
    for (int64_t k = 0; k < n; ++k) inits.push_back(e.emitter->Emit(hero->operand(n + k), {}));
    args = inits;
    args.insert(args.end(), current.begin() + static_cast<std::ptrdiff_t>(flat),
                current.begin() + static_cast<std::ptrdiff_t>(flat + static_cast<size_t>(n)));
    std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), args);
    std::vector<llvm::Value*> result;
    for (int64_t k = 0; k < n && k < static_cast<int64_t>(combined.size()); ++k) {
      const PrimitiveType type = hero->operand(n + k)->shape().element_type();
      result.push_back(e.emitter->Round(
          type, b.CreateSelect(valid, combined[static_cast<size_t>(k)], inits[static_cast<size_t>(k)])));
    }
    e.emitter->BindValues(hero, result);
    flat += static_cast<size_t>(n);
  }
  std::vector<int64_t> members = info.members;
  if (members.empty()) {
    for (int64_t m = 0; m < static_cast<int64_t>(outputs.size()); ++m) {
      if (!Contains(info.loop_outputs, m)) members.push_back(m);
    }
  }
  const std::vector<int64_t> dims = OutputDims(info);
  StoreOutputs(e, inst, outputs, members, Delinearize(b, o, dims), &dims);
  for (const Instruction* hero : info.heroes) e.emitter->Unbind(hero);
}

// Folds the operand element at `index` into the accumulator and writes the elementwise
// outputs of the operand's shape there (each operand element is folded exactly once).
void GpuKernelEmitter::FoldAndStore(Entry& e, const Instruction& inst, const ReductionInfo& info, Accumulator& acc,
                                    const std::vector<OutputLeaf>& outputs, const IrIndex& index) {
  Fold(e, info, acc, HeroInputs(e, info, index), e.b->getTrue());
  if (!info.loop_outputs.empty()) {
    const std::vector<int64_t>& dims = info.operand.dimensions();
    StoreOutputs(e, inst, outputs, info.loop_outputs, index, &dims);
  }
}

void GpuKernelEmitter::FoldPartial(Entry& e, const ReductionInfo& info, Accumulator& acc, llvm::Value* scratch,
                                   const std::vector<int64_t>& offsets, llvm::Value* row, bool fresh) {
  llvm::IRBuilder<>& b = *e.b;
  const std::vector<llvm::Type*> types = ValueTypes(info);
  auto load = [&](llvm::Type* t, llvm::Value* address) {
    llvm::LoadInst* x = b.CreateLoad(t, address);
    x->setVolatile(fresh);
    return x;
  };
  std::vector<llvm::Value*> values;
  for (size_t v = 0; v < types.size(); ++v) {
    llvm::Type* stored = types[v]->isIntegerTy(1) ? b.getInt8Ty() : types[v];
    llvm::Value* x = load(stored, PartialAddress(b, scratch, offsets[v], types[v], row));
    values.push_back(types[v]->isIntegerTy(1) ? b.CreateICmpNE(x, b.getInt8(0)) : x);
  }
  llvm::Value* valid =
      b.CreateICmpNE(load(b.getInt8Ty(), PartialAddress(b, scratch, offsets.back(), b.getInt1Ty(), row)), b.getInt8(0));
  Fold(e, info, acc, values, valid);
}

llvm::GlobalVariable* GpuKernelEmitter::ArrivalCounters(int64_t count, const std::string& name) {
  auto* array = llvm::ArrayType::get(llvm::Type::getInt32Ty(context_), static_cast<uint64_t>(count));
  auto* g = new llvm::GlobalVariable(module_, array, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantAggregateZero::get(array), name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, emulate_ ? 0 : 1);
  g->setAlignment(llvm::Align(4));
  return g;
}

void GpuKernelEmitter::DeviceFence(llvm::IRBuilder<>& b) {
  if (emulate_) {
    b.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
    return;
  }
  b.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_membar_gl));
}

llvm::Value* GpuKernelEmitter::LastToArrive(Entry& e, llvm::GlobalVariable* counters, llvm::Value* group,
                                            int64_t arrivals, llvm::Value* tid, const std::string& name) {
  llvm::IRBuilder<>& b = *e.b;
  llvm::GlobalVariable* flag = SharedArray(b.getInt1Ty(), 1, name + "_last");
  Barrier(b);  // every writer has stored and fenced its partial
  If(e, b.CreateICmpEQ(tid, b.getInt64(0)), "arrive", [&] {
    llvm::Value* counter = b.CreateInBoundsGEP(counters->getValueType(), counters, {b.getInt64(0), group});
    llvm::Value* before = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, counter, b.getInt32(1), llvm::MaybeAlign(4),
                                            llvm::AtomicOrdering::Monotonic);
    llvm::Value* last = b.CreateICmpEQ(before, b.getInt32(static_cast<uint32_t>(arrivals - 1)));
    StoreShared(b, flag, b.getInt64(0), last);
    If(e, last, "last_block", [&] {
      b.CreateStore(b.getInt32(0), counter);  // every other block has counted: ready for the next launch
      DeviceFence(b);                          // the others' partials before this block's reads
    });
  });
  Barrier(b);
  return LoadShared(b, flag, b.getInt64(0), b.getInt1Ty());
}

// Writes the accumulator (values, then its valid flag) into partials row `row` of scratch.
void GpuKernelEmitter::StorePartial(Entry& e, const ReductionInfo& info, const Accumulator& acc, llvm::Value* scratch,
                                    const std::vector<int64_t>& offsets, llvm::Value* row) {
  llvm::IRBuilder<>& b = *e.b;
  const std::vector<llvm::Type*> types = ValueTypes(info);
  std::vector<llvm::Value*> values = Load(e, acc);
  for (size_t v = 0; v < values.size(); ++v) {
    llvm::Value* x = values[v];
    if (x->getType()->isIntegerTy(1)) x = b.CreateZExt(x, b.getInt8Ty());
    b.CreateStore(x, PartialAddress(b, scratch, offsets[v], types[v], row));
  }
  b.CreateStore(b.CreateZExt(b.CreateLoad(b.getInt1Ty(), acc.valid), b.getInt8Ty()),
                PartialAddress(b, scratch, offsets.back(), b.getInt1Ty(), row));
}

std::vector<int64_t> GpuKernelEmitter::PartialOffsets(const ReductionInfo& info, int64_t rows, int64_t* total) {
  const llvm::DataLayout& layout = module_.getDataLayout();
  std::vector<int64_t> offsets;
  int64_t at = 0;
  for (llvm::Type* t : ValueTypes(info)) {
    offsets.push_back(at);
    const int64_t size = static_cast<int64_t>(layout.getTypeAllocSize(t->isIntegerTy(1) ? llvm::Type::getInt8Ty(context_) : t));
    at += CeilDiv(size * rows, 16) * 16;
  }
  offsets.push_back(at);  // valid flags, one byte each
  at += CeilDiv(rows, 16) * 16;
  *total = at;
  return offsets;
}

llvm::Value* GpuKernelEmitter::PartialAddress(llvm::IRBuilder<>& b, llvm::Value* scratch, int64_t offset, llvm::Type* t, llvm::Value* row) {
  llvm::Type* stored = t->isIntegerTy(1) ? b.getInt8Ty() : t;
  llvm::Value* base = b.CreateInBoundsGEP(b.getInt8Ty(), scratch, b.getInt64(offset));
  return b.CreateInBoundsGEP(stored, base, row);
}

Status GpuKernelEmitter::EmitReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                                       GpuKernel* kernel) {
  const int64_t operand_count = inst.operand_count();
  const int64_t n_outputs = static_cast<int64_t>(outputs.size());
  if (info.outputs == 0) return Status::Ok();
  if (!info.row) return EmitColumnReduction(inst, info, outputs, kernel);
  // Few outputs over long rows (a full reduction): split each row over `splits` blocks
  // writing partials, the last of them to finish folding the partials.
  int64_t splits = 1;
  if (info.outputs < 2048 && info.length >= 16384) {
    splits = std::min(CeilDiv(info.length, 4096), std::max<int64_t>(1, 4096 / info.outputs));
  }
  const bool split = splits > 1;
  int64_t scratch_bytes = 0;
  std::vector<int64_t> offsets;
  if (split) {
    offsets = PartialOffsets(info, info.outputs * splits, &scratch_bytes);
    kernel->scratch_bytes = std::max(kernel->scratch_bytes, scratch_bytes);
  }
  const int64_t buffer_count = operand_count + n_outputs + (split ? 1 : 0);
  if (split) {
    // Block (o, g) folds its chunk of row o into partials[o * splits + g]; the last of row
    // o's blocks to finish folds its `splits` partials into output o.
    const int64_t chunk = CeilDiv(info.length, splits);
    GpuLaunch launch;
    launch.function = kernel->name + info.launch_suffix + "_kernel";
    launch.block = {kBlock, 1, 1};
    launch.grid = {info.outputs * splits, 1, 1};
    Entry e = BeginEntry(inst, launch.function, buffer_count, 0, kBlock);
    llvm::IRBuilder<>& b = *e.b;
    llvm::Value* row = BlockX(b);
    llvm::Value* lane = ThreadX(b);
    llvm::Value* o = b.CreateUDiv(row, b.getInt64(splits));
    llvm::Value* g = b.CreateURem(row, b.getInt64(splits));
    Accumulator acc = MakeAccumulator(e, info);
    IrIndex kept = Delinearize(b, o, OutputDims(info));
    // Every chunk whole (no short last one) and a multiple of 4 x 256: each thread reads
    // 4 consecutive elements a step (one 16-byte load for f32).
    const int64_t vector = chunk * splits == info.length ? ReductionVector(info, chunk, kBlock) : 1;
    llvm::Value* begin = b.CreateAdd(b.CreateMul(g, b.getInt64(chunk / vector)), lane);
    llvm::Value* end = b.CreateMul(b.CreateAdd(g, b.getInt64(1)), b.getInt64(chunk / vector));
    end = b.CreateSelect(b.CreateICmpULT(end, b.getInt64(info.length / vector)), end, b.getInt64(info.length / vector));
    llvm::Value* count = StridedCount(b, b.getTrue(), begin, end, kBlock);
    Loop(e, count, "r", [&](llvm::Value* i) {
      llvm::Value* q = b.CreateAdd(begin, b.CreateMul(i, b.getInt64(kBlock)));
      for (int64_t v = 0; v < vector; ++v) {
        FoldAndStore(e, inst, info, acc, outputs, VectorOperandIndex(b, info, kept, q, vector, v));
      }
    });
    GroupReduce(e, info, acc, kBlock, 1, b.getInt64(0), lane, launch.function);
    llvm::Value* scratch = e.buffer(buffer_count - 1);
    If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "write_partial", [&] {
      StorePartial(e, info, acc, scratch, offsets, row);
      DeviceFence(b);
    });
    llvm::GlobalVariable* counters = ArrivalCounters(info.outputs, launch.function + "_arrivals");
    llvm::Value* last = LastToArrive(e, counters, o, splits, lane, launch.function);
    If(e, last, "fold_partials", [&] {
      b.CreateStore(b.getFalse(), acc.valid);
      llvm::Value* folds = StridedCount(b, b.getTrue(), lane, b.getInt64(splits), kBlock);
      Loop(e, folds, "p", [&](llvm::Value* i) {
        llvm::Value* p = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(kBlock)));
        FoldPartial(e, info, acc, scratch, offsets, b.CreateAdd(b.CreateMul(o, b.getInt64(splits)), p), /*fresh=*/true);
      });
      GroupReduce(e, info, acc, kBlock, 1, b.getInt64(0), lane, launch.function + "_fold");
      If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "write", [&] { FinishOutputs(e, inst, info, acc, outputs, o); });
    });
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }
  return EmitRowReduction(inst, info, outputs, kernel, buffer_count);
}

// An unsplit row reduction: a group of threads per output folds its row of the operand.
Status GpuKernelEmitter::EmitRowReduction(const Instruction& inst, const ReductionInfo& info,
                                          const std::vector<OutputLeaf>& outputs, GpuKernel* kernel,
                                          int64_t buffer_count) {
  const int64_t length = info.length;
  GpuLaunch launch;
  ASSIGN_OR_RETURN(RowGroups rg, BeginRowGroups(inst, kernel->name + info.launch_suffix + "_kernel", buffer_count,
                                                info.outputs, length, &launch));
  Entry& e = rg.e;
  llvm::IRBuilder<>& b = *e.b;
  const int64_t group = rg.group, groups = rg.groups;
  llvm::Value *group_in_block = rg.group_in_block, *lane = rg.lane, *active = rg.active, *o = rg.o;
  Accumulator acc = MakeAccumulator(e, info);
  // 4 consecutive elements a thread a step where the row is a whole number of such steps
  // of the group.
  const int64_t vector = ReductionVector(info, length, group);
  llvm::Value* count = StridedCount(b, active, lane, b.getInt64(length / vector), group);
  IrIndex kept = Delinearize(b, o, OutputDims(info));
  Loop(e, count, "r", [&](llvm::Value* i) {
    llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
    for (int64_t v = 0; v < vector; ++v) {
      FoldAndStore(e, inst, info, acc, outputs, VectorOperandIndex(b, info, kept, r, vector, v));
    }
  });
  GroupReduce(e, info, acc, group, groups, group_in_block, lane, launch.function);
  If(e, b.CreateAnd(active, b.CreateICmpEQ(lane, b.getInt64(0))), "write", [&] {
    FinishOutputs(e, inst, info, acc, outputs, o);
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

int64_t GpuKernelEmitter::DefaultRowGroup(int64_t length) { return length > 1024 ? kBlock : kWarp; }

std::vector<int64_t> GpuKernelEmitter::RowGroupVariants(int64_t length) {
  // Rows a warp takes: more threads a row, fewer elements each. Longer rows: the larger
  // groups first (blocks of the group), then a smaller one that holds more of the row.
  const std::vector<int64_t> candidates =
      DefaultRowGroup(length) == kWarp ? std::vector<int64_t>{64, 128, 256} : std::vector<int64_t>{512, 1024, 128};
  std::vector<int64_t> out;
  for (int64_t group : candidates) {
    if (length >= 4 * group) out.push_back(group);
  }
  return out;
}

std::string GpuKernelEmitter::ColumnBlockLabel(int64_t block, int64_t walkers) {
  return std::to_string(block) + " threads a block, " + std::to_string(walkers) + " an output";
}

std::string GpuKernelEmitter::SkinnyLabel(int64_t rows) {
  return std::to_string(rows) + (rows == 1 ? " row a block" : " rows a block");
}

std::string GpuKernelEmitter::RowGroupLabel(int64_t group) {
  return group == kWarp ? "a warp a row" : std::to_string(group) + " threads a row";
}

StatusOr<GpuKernelEmitter::RowGroups> GpuKernelEmitter::BeginRowGroups(const Instruction& inst, const std::string& name, int64_t buffer_count,
                                                                       int64_t rows, int64_t length, GpuLaunch* launch) {
  RowGroups rg;
  rg.group = shape_.row_group > 0 ? shape_.row_group : DefaultRowGroup(length);
  const int64_t block = std::max(kBlock, rg.group);
  rg.groups = block / rg.group;
  std::vector<LaunchShape> others;
  for (int64_t group : RowGroupVariants(length)) {
    others.push_back({group, 0, 0, RowGroupLabel(group), "_t" + std::to_string(group)});
  }
  OfferShapes(RowGroupLabel(rg.group), std::move(others));
  launch->function = name + shape_.suffix;
  launch->block = {block, 1, 1};
  launch->grid = {CeilDiv(rows, rg.groups), 1, 1};
  if (launch->grid[0] > kMaxGridX) return Unimplemented(inst.name() + ": too many rows for one launch");
  rg.e = BeginEntry(inst, launch->function, buffer_count, 0, block);
  llvm::IRBuilder<>& b = *rg.e.b;
  llvm::Value* tid = ThreadX(b);
  rg.group_in_block = b.CreateUDiv(tid, b.getInt64(rg.group));
  rg.lane = b.CreateURem(tid, b.getInt64(rg.group));
  llvm::Value* o_raw = b.CreateAdd(b.CreateMul(BlockX(b), b.getInt64(rg.groups)), rg.group_in_block);
  rg.active = b.CreateICmpULT(o_raw, b.getInt64(rows));
  rg.o = b.CreateSelect(rg.active, o_raw, b.getInt64(0));
  return rg;
}

GpuKernelEmitter::RowSlots GpuKernelEmitter::PlanRowSlots(const std::vector<int64_t>& element_dims, int64_t length,
                                                          int64_t group) {
  RowSlots slots;
  const int64_t minor = element_dims.empty() ? 1 : element_dims.back();
  // Four consecutive elements per slot (one 16-byte access for f32) when the row's minor
  // dimension splits into them and every thread of the group still gets a slot.
  slots.per_slot = minor % 4 == 0 && length / 4 >= group ? 4 : 1;
  slots.slots = length / slots.per_slot;
  slots.per_thread = CeilDiv(slots.slots, group);
  slots.held = slots.per_thread * slots.per_slot <= kMaxHeldRowElements;
  return slots;
}

std::vector<GpuKernelEmitter::RowElement> GpuKernelEmitter::HeldRowElements(llvm::IRBuilder<>& b, const IrIndex& row,
                                                                          const std::vector<int64_t>& element_dims,
                                                                          const RowSlots& slots, int64_t group,
                                                                          llvm::Value* lane, llvm::Value* active) {
  std::vector<int64_t> slot_dims = element_dims;
  if (!slot_dims.empty()) slot_dims.back() /= slots.per_slot;
  std::vector<RowElement> held;
  for (int64_t t = 0; t < slots.per_thread; ++t) {
    // Slot lane + t * group: consecutive lanes take consecutive slots (coalesced).
    llvm::Value* q = b.CreateAdd(lane, b.getInt64(t * group), "", /*HasNUW=*/true, /*HasNSW=*/true);
    llvm::Value* in_row = b.CreateICmpULT(q, b.getInt64(slots.slots));
    llvm::Value* valid = b.CreateAnd(active, in_row);
    const IrIndex at = Delinearize(b, b.CreateSelect(in_row, q, b.getInt64(0)), slot_dims);
    for (int64_t v = 0; v < slots.per_slot; ++v) {
      RowElement element{row, valid};
      element.index.insert(element.index.end(), at.begin(), at.end());
      if (slots.per_slot > 1) {
        element.index.back() = b.CreateAdd(b.CreateMul(at.back(), b.getInt64(slots.per_slot), "", true, true),
                                           b.getInt64(v), "", true, true);
      }
      held.push_back(std::move(element));
    }
  }
  return held;
}

Status GpuKernelEmitter::EmitRowKernel(const Instruction& inst, const passes::RowPlan& plan, const std::vector<OutputLeaf>& outputs,
                                       GpuKernel* kernel) {
  const int64_t k = plan.row_rank;
  const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size());
  GpuLaunch launch;
  ASSIGN_OR_RETURN(RowGroups rg, BeginRowGroups(inst, kernel->name + "_kernel", buffer_count, plan.rows, plan.row_length, &launch));
  Entry& e = rg.e;
  llvm::IRBuilder<>& b = *e.b;
  const int64_t group = rg.group, groups = rg.groups;
  llvm::Value *group_in_block = rg.group_in_block, *lane = rg.lane, *active = rg.active, *o = rg.o;
  const std::vector<int64_t> row_dims(plan.dims.begin(), plan.dims.begin() + k);
  const std::vector<int64_t> element_dims(plan.dims.begin() + k, plan.dims.end());
  const IrIndex row = Delinearize(b, o, row_dims);
  const RowSlots slots = PlanRowSlots(element_dims, plan.row_length, group);
  // Held in registers: every element of the thread's share of the row has its index
  // (clamped into the row, so that every read is in bounds) made once, here, before the
  // first pass. The emitter caches values by (instruction, index), so a value emitted at
  // one of these indices in one pass — the parameter loads, exp(x - max) — is the same
  // SSA value in every later pass: the row is read from memory once.
  std::vector<RowElement> held;
  if (slots.held) held = HeldRowElements(b, row, element_dims, slots, group, lane, active);
  for (size_t j = 0; j < plan.reduces.size(); ++j) {
    const Instruction* hero = plan.reduces[j];
    ReductionInfo info;
    info.heroes = {hero};
    info.operand = hero->operand(0)->shape();
    for (int64_t d = 0; d < info.operand.rank(); ++d) (d < k ? info.kept : info.reduced).push_back(d);
    info.outputs = plan.rows;
    info.length = plan.row_length;
    Accumulator acc = MakeAccumulator(e, info);
    if (slots.held) {
      for (const RowElement& element : held) Fold(e, info, acc, HeroInputs(e, info, element.index), element.valid);
    } else {
      llvm::Value* count = StridedCount(b, active, lane, b.getInt64(plan.row_length), group);
      Loop(e, count, hero->name() + ".r", [&](llvm::Value* i) {
        llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
        Fold(e, info, acc, HeroInputs(e, info, OperandIndex(b, info, row, r)), b.getTrue());
      });
    }
    const std::string name = launch.function + "_row" + std::to_string(j);
    GroupReduce(e, info, acc, group, groups, group_in_block, lane, name);
    llvm::Type* type = ValueTypes(info)[0];
    // The row's value, as the group's first lane holds it after the fold.
    auto row_value = [&] {
      llvm::Value* valid = b.CreateLoad(b.getInt1Ty(), acc.valid);
      llvm::Value* init = e.emitter->Emit(hero->operand(1), {});
      std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), {init, Load(e, acc)[0]});
      llvm::Value* value = combined.empty() ? init : b.CreateSelect(valid, combined[0], init);
      return e.emitter->Round(hero->shape().element_type(), value);
    };
    if (group == kWarp) {
      // A warp a row: the first lane's value reaches the others in one shuffle (no shared
      // memory, no barrier: the block's rows go on independently).
      e.emitter->BindValues(hero, {Broadcast(b, row_value(), 0)});
      continue;
    }
    llvm::GlobalVariable* shared = SharedArray(type, groups, name + "_value");
    If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "publish", [&] { StoreShared(b, shared, group_in_block, row_value()); });
    Barrier(b);
    e.emitter->BindValues(hero, {LoadShared(b, shared, group_in_block, type)});
  }
  // Outputs of the full shape are written per element; those of the row dimensions alone
  // (one value per row: a reduction's result, a function of several) once per row, by the
  // group's first lane.
  std::vector<int64_t> members, row_members;
  for (int64_t m = 0; m < static_cast<int64_t>(outputs.size()); ++m) {
    (outputs[static_cast<size_t>(m)].shape.rank() == k ? row_members : members).push_back(m);
  }
  if (!row_members.empty()) {
    If(e, b.CreateAnd(active, b.CreateICmpEQ(lane, b.getInt64(0))), "row_outputs",
       [&] { StoreOutputs(e, inst, outputs, row_members, row); });
  }
  if (slots.held) {
    // Slot by slot: its values, unconditionally (so they stay in the cache's outer scope),
    // then its `per_slot` consecutive stores under one branch (they merge into a vector
    // store). A slot's outputs are written before the next slot's are computed, so fewer
    // are live at once (ptxas -arch=sm_90: softmax 4096x1024 in 56 registers instead of
    // 63 with all values first, RMS norm 56 instead of 66).
    for (size_t s = 0; s < held.size(); s += static_cast<size_t>(slots.per_slot)) {
      for (size_t v = s; v < s + static_cast<size_t>(slots.per_slot); ++v) {
        for (int64_t m : members) e.emitter->EmitAll(outputs[static_cast<size_t>(m)].inst, held[v].index);
      }
      If(e, held[s].valid, "store", [&] {
        for (size_t v = s; v < s + static_cast<size_t>(slots.per_slot); ++v) StoreOutputs(e, inst, outputs, members, held[v].index);
      });
    }
  } else {
    llvm::Value* count = StridedCount(b, active, lane, b.getInt64(plan.row_length), group);
    Loop(e, count, "i", [&](llvm::Value* i) {
      llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
      IrIndex index = row;
      const IrIndex element = Delinearize(b, r, element_dims);
      index.insert(index.end(), element.begin(), element.end());
      StoreOutputs(e, inst, outputs, members, index);
    });
  }
  for (const Instruction* hero : plan.reduces) e.emitter->Unbind(hero);
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

// A column reduction: each block covers 32 adjacent outputs (a warp reads 32 consecutive
// elements of a row) with 8 threads per output walking the rows. Long columns over few
// outputs would leave the GPU idle (16 outputs of 32768 rows: one block, 4096 rows per
// thread), so the rows are split over `splits` blocks per group of outputs that write
// partials, folded by the group's last block as a split row reduction's are. Short columns in
// fewer blocks than the GPU has SMs (a bias gradient: 10 outputs of 256 rows, or 512 of
// 256) take blocks of 1024 threads, with as many lanes as the outputs rounded up to a
// power of two (at most 32) and the rest walking the rows: a thread walks a few rows
// instead of 32 one after the other (on the H200 the MLP step's 10 x 256 bias gradient
// took 13 us that way, most of it waiting on loads, and its 512 x 256 ones 2.4 us), and
// the threads of an output fold their partials as a tree in shared memory.
Status GpuKernelEmitter::EmitColumnReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                                             GpuKernel* kernel) {
  const int64_t column_blocks = CeilDiv(info.outputs, kWarp);
  // About 1024 blocks in all, each with at least 64 rows to walk.
  auto split_rule = [&] { return std::min(CeilDiv(1024, column_blocks), CeilDiv(info.length, 64)); };
  int64_t splits = 1;
  if (shape_.column_splits > 0) {
    splits = shape_.column_splits;
  } else if (info.length >= 512 && column_blocks < 1024) {
    splits = split_rule();
  }
  // Fewer blocks than the H100's and H200's 132 SMs, rows unsplit: 1024 threads a block
  // (the other block size is a variant the runtime times; kernel_variants).
  const bool few_blocks = shape_.column_block > 0 ? shape_.column_block == 1024 : splits == 1 && column_blocks < 128;
  int64_t lanes = kWarp;
  while (few_blocks && lanes / 2 >= info.outputs) lanes /= 2;
  const int64_t block = few_blocks ? 1024 : kBlock;
  const int64_t walkers = block / lanes;  // threads per output
  if (splits == 1) {
    const int64_t other = few_blocks ? kBlock : 1024;
    int64_t other_lanes = kWarp;
    while (other == 1024 && other_lanes / 2 >= info.outputs) other_lanes /= 2;
    std::vector<LaunchShape> others = {
        {0, other, 0, ColumnBlockLabel(other, other / other_lanes), "_b" + std::to_string(other)}};
    // Short columns over few blocks (the MLP's 512 bias gradients over a batch of 256: 16
    // blocks on 132 SMs) may also go faster with their rows in parts, as long columns are
    // by default: each block folds its part into a partial, the last folds the partials.
    const int64_t parts = split_rule();
    if (column_blocks < 128 && info.length >= 128 && parts >= 2) {
      LaunchShape split_shape;
      split_shape.label = ColumnBlockLabel(kBlock, kBlock / kWarp) + ", rows in " + std::to_string(parts) + " parts";
      split_shape.suffix = "_s" + std::to_string(parts);
      split_shape.column_splits = parts;
      others.push_back(split_shape);
    }
    OfferShapes(ColumnBlockLabel(block, walkers), std::move(others));
  }
  const bool split = splits > 1;
  int64_t scratch_bytes = 0;
  std::vector<int64_t> offsets;
  if (split) {
    offsets = PartialOffsets(info, info.outputs * splits, &scratch_bytes);
    kernel->scratch_bytes = std::max(kernel->scratch_bytes, scratch_bytes);
  }
  const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size()) + (split ? 1 : 0);
  const int64_t chunk = CeilDiv(info.length, splits);
  GpuLaunch launch;
  launch.function = kernel->name + info.launch_suffix + "_kernel" + shape_.suffix;
  launch.block = {block, 1, 1};
  launch.grid = {column_blocks * splits, 1, 1};
  if (launch.grid[0] > kMaxGridX) return Unimplemented(inst.name() + ": too many outputs for one launch");
  Entry e = BeginEntry(inst, launch.function, buffer_count, 0, block);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* tid = ThreadX(b);
  llvm::Value* tx = b.CreateURem(tid, b.getInt64(lanes));
  llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(lanes));
  llvm::Value* bx = b.CreateUDiv(BlockX(b), b.getInt64(splits));
  llvm::Value* g = b.CreateURem(BlockX(b), b.getInt64(splits));
  llvm::Value* o_raw = b.CreateAdd(b.CreateMul(bx, b.getInt64(lanes)), tx);
  llvm::Value* active = b.CreateICmpULT(o_raw, b.getInt64(info.outputs));
  llvm::Value* o = b.CreateSelect(active, o_raw, b.getInt64(0));
  Accumulator acc = MakeAccumulator(e, info);
  // Rows g*chunk + ty, + walkers, ... below min((g+1)*chunk, length).
  llvm::Value* begin = b.CreateAdd(b.CreateMul(g, b.getInt64(chunk)), ty);
  llvm::Value* end = b.CreateMul(b.CreateAdd(g, b.getInt64(1)), b.getInt64(chunk));
  end = b.CreateSelect(b.CreateICmpULT(end, b.getInt64(info.length)), end, b.getInt64(info.length));
  llvm::Value* count = StridedCount(b, active, begin, end, walkers);
  IrIndex kept = Delinearize(b, o, OutputDims(info));
  Loop(e, count, "r", [&](llvm::Value* i) {
    llvm::Value* r = b.CreateAdd(begin, b.CreateMul(i, b.getInt64(walkers)));
    FoldAndStore(e, inst, info, acc, outputs, OperandIndex(b, info, kept, r));
  });
  std::vector<llvm::Type*> types = ValueTypes(info);
  std::vector<llvm::GlobalVariable*> shared;
  for (size_t v = 0; v < types.size(); ++v) {
    shared.push_back(SharedArray(types[v], block, launch.function + "_smem" + std::to_string(v)));
  }
  llvm::GlobalVariable* shared_valid = SharedArray(b.getInt1Ty(), block, launch.function + "_smem_valid");
  auto publish = [&] {
    std::vector<llvm::Value*> mine = Load(e, acc);
    for (size_t v = 0; v < mine.size(); ++v) StoreShared(b, shared[v], tid, mine[v]);
    StoreShared(b, shared_valid, tid, b.CreateLoad(b.getInt1Ty(), acc.valid));
  };
  auto fold_slot = [&](llvm::Value* slot) {
    std::vector<llvm::Value*> values;
    for (size_t v = 0; v < types.size(); ++v) values.push_back(LoadShared(b, shared[v], slot, types[v]));
    Fold(e, info, acc, values, LoadShared(b, shared_valid, slot, b.getInt1Ty()));
  };
  // The threads of each output fold their values: many threads per output halve in rounds
  // (thread ty folds ty + half's value into its own), down to 8, which thread ty = 0 folds
  // in turn before `write`.
  auto fold_threads = [&](const std::string& name, const std::function<void()>& write) {
    publish();
    Barrier(b);
    int64_t left = walkers;
    for (; left > 8; left /= 2) {
      const int64_t half = left / 2;
      If(e, b.CreateICmpULT(ty, b.getInt64(half)), name + "tree", [&] {
        fold_slot(b.CreateAdd(tid, b.getInt64(half * lanes)));
        publish();
      });
      Barrier(b);
    }
    If(e, b.CreateAnd(active, b.CreateICmpEQ(ty, b.getInt64(0))), name + "write", [&] {
      for (int64_t k = 1; k < left; ++k) fold_slot(b.CreateAdd(tx, b.getInt64(k * lanes)));
      write();
    });
  };
  if (!split) {
    fold_threads("", [&] { FinishOutputs(e, inst, info, acc, outputs, o); });
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }
  // Split: each block's partials, then the last of a column group's `splits` blocks folds
  // the group's partials (its threads of each output striding over them, then the same
  // rounds) and writes the outputs.
  llvm::Value* scratch = e.buffer(buffer_count - 1);
  fold_threads("", [&] {
    StorePartial(e, info, acc, scratch, offsets, b.CreateAdd(b.CreateMul(o, b.getInt64(splits)), g));
    DeviceFence(b);
  });
  llvm::GlobalVariable* counters = ArrivalCounters(column_blocks, launch.function + "_arrivals");
  llvm::Value* last = LastToArrive(e, counters, bx, splits, tid, launch.function);
  If(e, last, "fold_partials", [&] {
    b.CreateStore(b.getFalse(), acc.valid);
    llvm::Value* folds = StridedCount(b, active, ty, b.getInt64(splits), walkers);
    Loop(e, folds, "p", [&](llvm::Value* i) {
      llvm::Value* p = b.CreateAdd(ty, b.CreateMul(i, b.getInt64(walkers)));
      FoldPartial(e, info, acc, scratch, offsets, b.CreateAdd(b.CreateMul(o, b.getInt64(splits)), p), /*fresh=*/true);
    });
    fold_threads("fold_", [&] { FinishOutputs(e, inst, info, acc, outputs, o); });
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
