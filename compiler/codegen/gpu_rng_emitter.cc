// The GPU's rng-bit-generator kernel: XLA's generators bit for bit, as the interpreter and
// the CPU runtime compute them (compiler/support/bit_generators.h). One launch: for
// Philox a thread a 128-bit counter block (four 32-bit words, or two 64-bit elements), for
// Threefry a thread an enciphered counter (one 64-bit element, or two 32-bit elements at
// positions 2q and 2q + 1 of the halved dimension); thread 0 also writes the new state.
#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/support/bit_generators.h"

namespace fusebox::codegen::gpu {

namespace {

using Words = std::vector<llvm::Value*>;  // i32 words

Words Philox(llvm::IRBuilder<>& b, Words x, Words key) {
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  auto mul = [&](llvm::Value* v, uint32_t k, llvm::Value** hi, llvm::Value** lo) {
    llvm::Value* p = b.CreateMul(b.CreateZExt(v, i64), b.getInt64(k));
    *lo = b.CreateTrunc(p, i32);
    *hi = b.CreateTrunc(b.CreateLShr(p, 32), i32);
  };
  for (int round = 0; round < 10; ++round) {
    llvm::Value *a_hi, *a_lo, *c_hi, *c_lo;
    mul(x[0], 0xD2511F53u, &a_hi, &a_lo);
    mul(x[2], 0xCD9E8D57u, &c_hi, &c_lo);
    x = {b.CreateXor(b.CreateXor(c_hi, x[1]), key[0]), c_lo, b.CreateXor(b.CreateXor(a_hi, x[3]), key[1]), a_lo};
    key[0] = b.CreateAdd(key[0], b.getInt32(0x9E3779B9u));
    key[1] = b.CreateAdd(key[1], b.getInt32(0xBB67AE85u));
  }
  return x;
}

Words Threefry(llvm::IRBuilder<>& b, Words x, Words key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  llvm::Value* ks[3] = {key[0], key[1], b.CreateXor(b.CreateXor(b.getInt32(0x1BD11BDAu), key[0]), key[1])};
  x[0] = b.CreateAdd(x[0], ks[0]);
  x[1] = b.CreateAdd(x[1], ks[1]);
  for (int group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      const int rotation = kRotations[(group % 2) * 4 + r];
      x[0] = b.CreateAdd(x[0], x[1]);
      x[1] = b.CreateOr(b.CreateShl(x[1], rotation), b.CreateLShr(x[1], 32 - rotation));
      x[1] = b.CreateXor(x[1], x[0]);
    }
    x[0] = b.CreateAdd(x[0], ks[(group + 1) % 3]);
    x[1] = b.CreateAdd(b.CreateAdd(x[1], ks[(group + 2) % 3]), b.getInt32(static_cast<uint32_t>(group + 1)));
  }
  return x;
}

}  // namespace

Status GpuKernelEmitter::EmitRngBitGenerator(const Instruction& rng, GpuKernel* kernel) {
  kernel->kind_name = "rng-bit-generator";
  const Shape& state = rng.operand(0)->shape();
  if (!state.IsArray() || state.rank() != 1 || state.element_type() != PrimitiveType::kU64 || state.dimensions(0) < 2 ||
      !rng.shape().IsTuple() || rng.shape().tuple_size() != 2 || !rng.shape().tuple_shapes(1).IsArray()) {
    return InvalidArgument(rng.name() + ": rng-bit-generator needs a u64[n >= 2] state and (state, bits) results");
  }
  const Shape& bits = rng.shape().tuple_shapes(1);
  const PrimitiveType type = bits.element_type();
  // u8 and u16 elements are the low bits of the u32 elements of the same shape.
  const bool narrow = type == PrimitiveType::kU8 || type == PrimitiveType::kU16;
  const int stored_width = BitWidth(type);
  const int width = narrow ? 32 : stored_width;
  if (!narrow && ((width != 32 && width != 64) || !(IsInteger(type) || IsFloat(type)))) {
    return Unimplemented(rng.name() + ": the generators make u8, u16 and 32- and 64-bit elements, not " +
                         std::string(PrimitiveTypeName(type)));
  }
  const int64_t words = state.dimensions(0);
  const std::vector<int64_t>& dims = bits.dimensions();
  const int64_t n = bits.ElementCount();
  const bool philox = rng.attrs().rng_algorithm.value_or(RandomAlgorithm::kDefault) != RandomAlgorithm::kThreeFry;
  // Threefry's 32-bit elements come in pairs along ThreefryHalvedDimension, the shape
  // halved there.
  int64_t split = -1;
  std::vector<int64_t> half = dims;
  int64_t halves = std::max<int64_t>(n, 1);
  if (!philox && width == 32 && !dims.empty()) {
    split = ThreefryHalvedDimension(dims);
    half[static_cast<size_t>(split)] = (dims[static_cast<size_t>(split)] + 1) / 2;
    halves = 1;
    for (int64_t d : half) halves *= d;
  }
  const int64_t per_counter = philox ? (width == 32 ? 4 : 2) : 1;
  const int64_t counters = philox ? CeilDiv(n * (width / 32), 4) : (width == 32 ? halves : n);
  const int64_t threads = std::max<int64_t>(counters, 1);
  GpuLaunch launch = Launch1D(kernel->name + "_kernel", threads);
  if (launch.grid[0] > kMaxGridX) return Unimplemented(rng.name() + ": too many elements for one launch");
  Entry e = BeginEntry(rng, launch.function, 3, 0, launch.block[0]);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* i32 = b.getInt32Ty();
  auto state_word = [&](llvm::Value* buffer, int64_t k) { return b.CreateInBoundsGEP(i64, buffer, b.getInt64(k)); };
  llvm::Value* key = b.CreateLoad(i64, state_word(e.buffer(0), 0));
  llvm::Value* first = b.CreateLoad(i64, state_word(e.buffer(0), 1));
  const Words key_words = {b.CreateTrunc(key, i32), b.CreateTrunc(b.CreateLShr(key, 32), i32)};
  llvm::Value* t = GlobalThread(b, launch.block[0]);
  const PrimitiveType stored = narrow ? type : (width == 32 ? PrimitiveType::kU32 : PrimitiveType::kU64);
  const Shape flat(stored, {std::max<int64_t>(n, 1)});
  const IrArray out(e.buffer(2), flat);
  auto store = [&](llvm::Value* element, llvm::Value* value) {
    If(e, b.CreateICmpULT(element, b.getInt64(n)), "rng_store", [&] {
      if (narrow) value = b.CreateTrunc(value, b.getIntNTy(static_cast<unsigned>(stored_width)));
      b.CreateStore(value, out.Address(b, {element}));
    });
  };
  If(e, b.CreateICmpULT(t, b.getInt64(counters)), "rng_counter", [&] {
    if (philox) {
      llvm::Value* high = words >= 3 ? b.CreateLoad(i64, state_word(e.buffer(0), 2)) : key;
      llvm::Value* lo = b.CreateAdd(first, t);
      llvm::Value* hi = b.CreateAdd(high, b.CreateZExt(b.CreateICmpULT(lo, first), i64));
      const Words x = Philox(b, {b.CreateTrunc(lo, i32), b.CreateTrunc(b.CreateLShr(lo, 32), i32), b.CreateTrunc(hi, i32),
                                 b.CreateTrunc(b.CreateLShr(hi, 32), i32)},
                             key_words);
      for (int64_t j = 0; j < per_counter; ++j) {
        llvm::Value* element = b.CreateAdd(b.CreateMul(t, b.getInt64(per_counter)), b.getInt64(j));
        llvm::Value* value = width == 32 ? x[static_cast<size_t>(j)]
                                         : b.CreateOr(b.CreateZExt(x[static_cast<size_t>(2 * j)], i64),
                                                      b.CreateShl(b.CreateZExt(x[static_cast<size_t>(2 * j + 1)], i64), 32));
        store(element, value);
      }
      return;
    }
    llvm::Value* v = b.CreateAdd(first, t);
    const Words x = Threefry(b, {b.CreateTrunc(v, i32), b.CreateTrunc(b.CreateLShr(v, 32), i32)}, key_words);
    if (width == 64) {
      store(t, b.CreateOr(b.CreateZExt(x[0], i64), b.CreateShl(b.CreateZExt(x[1], i64), 32)));
      return;
    }
    if (dims.empty()) {
      store(t, x[0]);
      return;
    }
    // Half element t at index (.., q, ..) gives full elements (.., 2q, ..) and (.., 2q + 1, ..).
    const IrIndex h = Delinearize(b, t, half);
    for (int64_t r = 0; r < 2; ++r) {
      llvm::Value* along = b.CreateAdd(b.CreateMul(h[static_cast<size_t>(split)], b.getInt64(2)), b.getInt64(r));
      llvm::Value* element = b.getInt64(0);
      for (size_t d = 0; d < dims.size(); ++d) {
        llvm::Value* i = static_cast<int64_t>(d) == split ? along : h[d];
        element = b.CreateAdd(b.CreateMul(element, b.getInt64(dims[d])), i);
      }
      If(e, b.CreateICmpULT(along, b.getInt64(dims[static_cast<size_t>(split)])), "rng_pair", [&] {
        store(element, x[static_cast<size_t>(r)]);
      });
    }
  });
  // The new state: the key and the counter advanced by the counters used.
  If(e, b.CreateICmpEQ(t, b.getInt64(0)), "rng_state", [&] {
    for (int64_t k = 0; k < words; ++k) {
      llvm::Value* word = k == 0 ? key : b.CreateLoad(i64, state_word(e.buffer(0), k));
      if (k == 1) word = b.CreateAdd(first, b.getInt64(counters));
      if (k == 2 && philox) {
        llvm::Value* advanced = b.CreateAdd(first, b.getInt64(counters));
        word = b.CreateAdd(word, b.CreateZExt(b.CreateICmpULT(advanced, first), i64));
      }
      b.CreateStore(word, state_word(e.buffer(1), k));
    }
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
