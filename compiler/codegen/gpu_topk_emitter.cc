// The GPU's topk kernel: a block a row. Every thread keeps the best k (value key,
// position) pairs of its strided share of the row, sorted, in registers; then k rounds
// pick the block's best head (shuffles within warps, shared memory across them), the
// thread holding it drops it, and thread 0 writes it. One launch, however long the row, as
// XLA's own topk kernel is; larger k become a sort (passes/topk_decomposer.h).
#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/passes/topk_decomposer.h"

namespace fusebox::codegen::gpu {

int64_t GpuKernelEmitter::TopKThreads(int64_t length) {
  int64_t threads = kWarp;
  while (threads < kBlock && threads * 8 < length) threads *= 2;
  return threads;
}

Status GpuKernelEmitter::EmitTopK(const Instruction& topk, GpuKernel* kernel) {
  if (std::string why = passes::TopKKernelRefusal(topk); !why.empty()) {
    return Unimplemented(topk.name() + ": the GPU's topk kernel cannot run it: " + why +
                         " (the topk-decomposer pass makes a sort of such a topk)");
  }
  kernel->kind_name = "topk";
  const Shape& shape = topk.operand(0)->shape();
  const Shape& values = topk.shape().tuple_shapes(0);
  const Shape& positions = topk.shape().tuple_shapes(1);
  const PrimitiveType type = shape.element_type();
  const int64_t n = shape.dimensions(shape.rank() - 1);
  const int64_t k = values.dimensions(values.rank() - 1);
  const int64_t rows = n == 0 ? 0 : shape.ElementCount() / n;
  if (rows == 0 || k == 0) return Status::Ok();
  if (rows > kMaxGridX) return Unimplemented(topk.name() + ": too many rows for one launch");
  if (n >= (int64_t{1} << 31)) return Unimplemented(topk.name() + ": rows longer than 2^31 elements");
  const int64_t threads = TopKThreads(n);
  const int64_t warps = threads / kWarp;
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel";
  launch.grid = {rows, 1, 1};
  launch.block = {threads, 1, 1};
  Entry e = BeginEntry(topk, launch.function, 3, 0, threads);
  llvm::IRBuilder<>& b = *e.b;
  ASSIGN_OR_RETURN(llvm::Type * storage, StorageType(context_, type));
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  const int bits = BitWidth(type);
  const bool largest = topk.attrs().largest.value_or(true);

  // The thread's list, best first: keys and positions, promoted to registers (every
  // access has a constant index). Empty slots hold a key below every element's.
  llvm::Value* const kNoKey = b.getInt64(static_cast<uint64_t>(INT64_MIN));
  llvm::Value* const kNoPosition = b.getInt32(INT32_MAX);
  std::vector<llvm::AllocaInst*> keys, places;
  for (int64_t j = 0; j < k; ++j) {
    keys.push_back(b.CreateAlloca(i64, nullptr, "key" + std::to_string(j)));
    places.push_back(b.CreateAlloca(i32, nullptr, "position" + std::to_string(j)));
    b.CreateStore(kNoKey, keys.back());
    b.CreateStore(kNoPosition, places.back());
  }

  llvm::Value* row = BlockX(b);
  llvm::Value* tid = ThreadX(b);
  const std::vector<int64_t> row_dims(shape.dimensions().begin(), shape.dimensions().end() - 1);
  const IrIndex row_index = Delinearize(b, row, row_dims);
  auto element = [&](llvm::Value* p) {
    IrIndex index = row_index;
    index.push_back(p);
    return index;
  };
  const IrArray in(e.buffer(0), shape), out_values(e.buffer(1), values), out_positions(e.buffer(2), positions);

  // The element's key: integers by value; floats in total order (negative values'
  // magnitude bits flipped, so that -0 < +0 and -NaN < -inf < ... < +inf < +NaN); the
  // smallest first by negating (keys of at most 32 bits never overflow).
  auto key_of = [&](llvm::Value* stored) {
    llvm::Value* raw = stored;
    if (!raw->getType()->isIntegerTy()) {
      raw = b.CreateBitCast(raw, b.getIntNTy(static_cast<unsigned>(raw->getType()->getPrimitiveSizeInBits())));
    }
    llvm::Type* narrow = b.getIntNTy(static_cast<unsigned>(bits));
    raw = b.CreateTrunc(raw, narrow);
    llvm::Value* key = nullptr;
    if (IsFloat(type)) {
      llvm::Value* magnitude = llvm::ConstantInt::get(narrow, (uint64_t{1} << (bits - 1)) - 1);
      raw = b.CreateSelect(b.CreateICmpSLT(raw, llvm::ConstantInt::get(narrow, 0)), b.CreateXor(raw, magnitude), raw);
      key = b.CreateSExt(raw, i64);
    } else if (IsSignedInt(type)) {
      key = b.CreateSExt(raw, i64);
    } else {
      key = b.CreateZExt(raw, i64);
    }
    return largest ? key : b.CreateNeg(key);
  };

  // The scan: this thread's elements in order, each inserted where it belongs. Positions
  // only grow, so an equal key stays behind the ones already kept (ties: lower first).
  llvm::Value* count = StridedCount(b, b.getTrue(), tid, b.getInt64(n), threads);
  Loop(e, count, "topk_scan", [&](llvm::Value* i) {
    llvm::Value* p = b.CreateAdd(tid, b.CreateMul(i, b.getInt64(threads)));
    llvm::Value* key = key_of(b.CreateLoad(storage, in.Address(b, element(p))));
    llvm::Value* position = b.CreateTrunc(p, i32);
    llvm::Value* worst = b.CreateLoad(i64, keys[static_cast<size_t>(k - 1)]);
    If(e, b.CreateICmpSGT(key, worst), "topk_insert", [&] {
      std::vector<llvm::Value*> old_keys, old_places, beats;
      for (int64_t j = 0; j < k; ++j) {
        old_keys.push_back(b.CreateLoad(i64, keys[static_cast<size_t>(j)]));
        old_places.push_back(b.CreateLoad(i32, places[static_cast<size_t>(j)]));
        beats.push_back(b.CreateICmpSGT(key, old_keys.back()));
      }
      // Slot j takes slot j-1's pair when the new one goes above j-1, the new pair when it
      // goes exactly at j, else keeps its own.
      for (int64_t j = 0; j < k; ++j) {
        const size_t s = static_cast<size_t>(j);
        llvm::Value* new_key = b.CreateSelect(beats[s], key, old_keys[s]);
        llvm::Value* new_place = b.CreateSelect(beats[s], position, old_places[s]);
        if (j > 0) {
          new_key = b.CreateSelect(beats[s - 1], old_keys[s - 1], new_key);
          new_place = b.CreateSelect(beats[s - 1], old_places[s - 1], new_place);
        }
        b.CreateStore(new_key, keys[s]);
        b.CreateStore(new_place, places[s]);
      }
    });
  });

  // The better of two pairs: the greater key, on a tie the lower position.
  auto better = [&](llvm::Value* key, llvm::Value* place, llvm::Value* other_key, llvm::Value* other_place) {
    return b.CreateOr(b.CreateICmpSGT(other_key, key),
                      b.CreateAnd(b.CreateICmpEQ(other_key, key), b.CreateICmpULT(other_place, place)));
  };
  llvm::GlobalVariable* shared_keys = warps > 1 ? SharedArray(i64, warps, kernel->name + "_topk_keys") : nullptr;
  llvm::GlobalVariable* shared_places = warps > 1 ? SharedArray(i32, warps, kernel->name + "_topk_positions") : nullptr;
  llvm::Value* lane = b.CreateAnd(tid, b.getInt64(kWarp - 1));
  llvm::Value* warp = b.CreateLShr(tid, b.getInt64(5));
  for (int64_t j = 0; j < k; ++j) {
    llvm::Value* head_key = b.CreateLoad(i64, keys[0]);
    llvm::Value* head_place = b.CreateLoad(i32, places[0]);
    llvm::Value* best_key = head_key;
    llvm::Value* best_place = head_place;
    for (int64_t offset = kWarp / 2; offset >= 1; offset /= 2) {
      llvm::Value* their_key = ShuffleDown(b, best_key, offset);
      llvm::Value* their_place = ShuffleDown(b, best_place, offset);
      llvm::Value* take = better(best_key, best_place, their_key, their_place);
      best_key = b.CreateSelect(take, their_key, best_key);
      best_place = b.CreateSelect(take, their_place, best_place);
    }
    if (warps > 1) {
      llvm::Value* key_to_share = best_key;
      llvm::Value* place_to_share = best_place;
      If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "topk_share", [&] {
        StoreShared(b, shared_keys, warp, key_to_share);
        StoreShared(b, shared_places, warp, place_to_share);
      });
      Barrier(b);
      best_key = LoadShared(b, shared_keys, b.getInt64(0), i64);
      best_place = LoadShared(b, shared_places, b.getInt64(0), i32);
      for (int64_t w = 1; w < warps; ++w) {
        llvm::Value* their_key = LoadShared(b, shared_keys, b.getInt64(w), i64);
        llvm::Value* their_place = LoadShared(b, shared_places, b.getInt64(w), i32);
        llvm::Value* take = better(best_key, best_place, their_key, their_place);
        best_key = b.CreateSelect(take, their_key, best_key);
        best_place = b.CreateSelect(take, their_place, best_place);
      }
      Barrier(b);  // every thread has read the round's entries before the next writes
    } else {
      best_key = Broadcast(b, best_key, 0);
      best_place = Broadcast(b, best_place, 0);
    }
    // Positions are unique in a row, and an empty slot never wins while real elements
    // remain (k <= n): the thread whose head it is drops it.
    llvm::Value* pop = b.CreateICmpEQ(head_place, best_place);
    for (int64_t m = 0; m < k; ++m) {
      const size_t s = static_cast<size_t>(m);
      llvm::Value* next_key = m + 1 < k ? b.CreateLoad(i64, keys[s + 1]) : kNoKey;
      llvm::Value* next_place = m + 1 < k ? b.CreateLoad(i32, places[s + 1]) : kNoPosition;
      b.CreateStore(b.CreateSelect(pop, next_key, b.CreateLoad(i64, keys[s])), keys[s]);
      b.CreateStore(b.CreateSelect(pop, next_place, b.CreateLoad(i32, places[s])), places[s]);
    }
    llvm::Value* place = b.CreateZExt(best_place, i64);
    If(e, b.CreateICmpEQ(tid, b.getInt64(0)), "topk_write", [&] {
      llvm::Value* value = b.CreateLoad(storage, in.Address(b, element(place)));
      b.CreateStore(value, out_values.Address(b, element(b.getInt64(j))));
      b.CreateStore(best_place, out_positions.Address(b, element(b.getInt64(j))));
    });
  }
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
