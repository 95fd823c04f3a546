// Library kernels of the CPU runtime: the comparator-driven stable sort here; dot
// (library_kernels_dot.cc) and convolution (library_kernels_conv.cc) apart, on the
// shared machinery of library_kernels_internal.h. See the header for the contract.
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/library_kernels_internal.h"

namespace fusebox::runtime::library {

namespace {
thread_local ParallelRunner* current_runner = nullptr;
}  // namespace

ParallelRunner* TakeParallelRunner() { return std::exchange(current_runner, nullptr); }
void ReturnParallelRunner(ParallelRunner* runner) { current_runner = runner; }
bool HasParallelRunner() { return current_runner != nullptr; }

}  // namespace fusebox::runtime::library

namespace fusebox::runtime::library {
namespace {

// ===========================================================================
// sort
// ===========================================================================

// Stable merge sort of the positions a[0, n) by less(x, y), with `tmp` of n slots:
// insertion-sorted runs of 16 merged bottom-up. Every index stays in range whatever the
// comparator answers.
template <typename Less>
void StableSort(int64_t* a, int64_t* tmp, int64_t n, Less&& less) {
  constexpr int64_t kRun = 16;
  for (int64_t lo = 0; lo < n; lo += kRun) {
    const int64_t hi = std::min(n, lo + kRun);
    for (int64_t i = lo + 1; i < hi; ++i) {
      const int64_t v = a[i];
      int64_t j = i;
      for (; j > lo && less(v, a[j - 1]); --j) a[j] = a[j - 1];
      a[j] = v;
    }
  }
  int64_t* src = a;
  int64_t* dst = tmp;
  for (int64_t width = kRun; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(n, lo + width);
      const int64_t hi = std::min(n, lo + 2 * width);
      int64_t i = lo, j = mid, k = lo;
      if (mid < hi && !less(src[mid], src[mid - 1])) {  // already in order
        std::copy(src + lo, src + hi, dst + lo);
        continue;
      }
      while (i < mid && j < hi) dst[k++] = less(src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    std::swap(src, dst);
  }
  if (src != a) std::copy(src, src + n, a);
}

struct SortPlan {
  std::vector<int64_t> dims;
  int64_t axis = 0;
  std::vector<std::vector<int64_t>> strides;  // per operand
  std::vector<int64_t> bytes;                 // per operand
};

Status PlanSort(const Instruction& sort, SortPlan* p) {
  if (sort.opcode() != Opcode::kSort) return Invalid(sort, "not a sort");
  const int64_t n = sort.operand_count();
  if (n == 0) return Invalid(sort, "expects at least one operand");
  const Shape& result = sort.shape();
  if (result.IsTuple() ? result.tuple_size() != n : n != 1) {
    return Invalid(
        sort, "result shape " + result.ToString() + " does not match " + Str(n) + " operand(s)");
  }
  p->dims = sort.operand(0)->shape().dimensions();
  for (int64_t k = 0; k < n; ++k) {
    const Shape& operand = sort.operand(k)->shape();
    const Shape& buffer = result.IsTuple() ? result.tuple_shapes(k) : result;
    const std::string what = "operand " + Str(k);
    if (!operand.IsArray() || !buffer.IsArray() ||
        operand.element_type() != buffer.element_type()) {
      return Invalid(sort, what + " and its result must be arrays of one element type");
    }
    if (operand.dimensions() != p->dims || buffer.dimensions() != p->dims) {
      return Invalid(sort, what + " must have dimensions " + DimsText(p->dims));
    }
    std::vector<int64_t> strides;
    RETURN_IF_ERROR(DenseStrides(sort, buffer, what, &strides));
    p->strides.push_back(std::move(strides));
    p->bytes.push_back(ByteWidth(buffer.element_type()));
    if (p->bytes.back() <= 0)
      return Unsupported(sort, "element type " + TypeName(buffer.element_type()));
  }
  const std::vector<int64_t>& dimensions = sort.dimensions();
  if (dimensions.size() != 1 || dimensions[0] < 0 ||
      dimensions[0] >= static_cast<int64_t>(p->dims.size())) {
    return Invalid(sort, "dimensions= must name one dimension of the operands");
  }
  p->axis = dimensions[0];
  return Status::Ok();
}

// ===========================================================================
// topk
// ===========================================================================

// How an element becomes its key (copied into the scan).
struct TopKKeying {
  int bits = 32;
  bool sign_extend = false;  // signed integers and floats
  uint64_t flip_mask = 0;    // floats: the bits below the sign (flipped in negative values)
  bool largest = true;
};

struct TopKPlan {
  std::vector<int64_t> dims;  // the operand's
  int64_t k = 0;
  std::vector<int64_t> in_strides, value_strides, index_strides;
  int bytes = 0;
  PrimitiveType type = PrimitiveType::kF32;
  TopKKeying how;
};

Status PlanTopK(const Instruction& topk, TopKPlan* p) {
  if (topk.opcode() != Opcode::kTopK) return Invalid(topk, "not a topk");
  if (topk.operand_count() != 1) return Invalid(topk, "expects one operand");
  const Shape& operand = topk.operand(0)->shape();
  const Shape& result = topk.shape();
  if (!operand.IsArray() || operand.rank() < 1) return Invalid(topk, "the operand must be an array of rank >= 1");
  if (!result.IsTuple() || result.tuple_size() != 2) return Invalid(topk, "the result must be a (values, indices) tuple");
  const Shape& values = result.tuple_shapes(0);
  const Shape& indices = result.tuple_shapes(1);
  p->dims = operand.dimensions();
  p->k = values.rank() == operand.rank() ? values.dimensions(values.rank() - 1) : -1;
  std::vector<int64_t> expected = p->dims;
  expected.back() = p->k;
  if (p->k < 0 || p->k > p->dims.back() || values.dimensions() != expected || indices.dimensions() != expected) {
    return Invalid(topk, "results " + result.ToString() + " do not fit the operand " + operand.ToString());
  }
  p->type = operand.element_type();
  if (values.element_type() != p->type) return Invalid(topk, "the values must have the operand's element type");
  if (indices.element_type() != PrimitiveType::kS32) return Invalid(topk, "the indices must be s32");
  if (!OrdersAsBits(p->type)) return Unsupported(topk, "element type " + TypeName(p->type) + " (no order as bits)");
  p->bytes = ByteWidth(p->type);
  if (p->bytes <= 0 || p->bytes > 8) return Unsupported(topk, "element type " + TypeName(p->type));
  const int bits = BitWidth(p->type);
  p->how.bits = bits;
  p->how.sign_extend = IsSignedInt(p->type) || IsFloat(p->type);
  p->how.flip_mask = IsFloat(p->type) ? (uint64_t{1} << (bits - 1)) - 1 : 0;
  p->how.largest = topk.attrs().largest.value_or(true);
  RETURN_IF_ERROR(DenseStrides(topk, operand, "the operand", &p->in_strides));
  RETURN_IF_ERROR(DenseStrides(topk, values, "the values", &p->value_strides));
  RETURN_IF_ERROR(DenseStrides(topk, indices, "the indices", &p->index_strides));
  return Status::Ok();
}


// An unsigned key whose order is the element's (largest first when compared greater):
// integers by value, floats with a sign bit in total order (negative values' magnitude
// bits flipped), every key offset so that unsigned comparison orders signed values. 32
// bits for elements of up to 32 bits, 64 for the rest. Branch-free, so that a block of
// keys is made in vector registers.
template <typename Key, int kBytes>
inline Key TopKKey(const uint8_t* element, const TopKKeying& how) {
  constexpr int kKeyBits = 8 * sizeof(Key);
  using Signed = std::make_signed_t<Key>;
  Key raw = 0;  // little-endian hosts only (x86-64)
  if constexpr (kBytes == 1) {
    raw = *element;
  } else if constexpr (kBytes == 2) {
    uint16_t v;
    std::memcpy(&v, element, 2);
    raw = v;
  } else if constexpr (kBytes == 4) {
    uint32_t v;
    std::memcpy(&v, element, 4);
    raw = v;
  } else {
    std::memcpy(&raw, element, sizeof(Key));
  }
  const int shift = kKeyBits - how.bits;
  raw = static_cast<Key>(raw << shift) >> shift;  // the element's bits alone (sub-byte types)
  Signed s = static_cast<Signed>(static_cast<Key>(raw << shift)) >> shift;  // sign-extended
  s ^= static_cast<Signed>((s >> (kKeyBits - 1)) & static_cast<Signed>(how.flip_mask));
  const Key key = how.sign_extend ? static_cast<Key>(static_cast<Key>(s) ^ (Key{1} << (kKeyBits - 1))) : raw;
  return how.largest ? key : static_cast<Key>(~key);
}

// One row's best k into `best` (best first): a row is scanned in order, so an element
// enters only with a greater key than the k-th (ties: the lower position first). Keys are
// made 16 at a time; a block none of whose keys beats the k-th costs no branch per element.
template <typename Key, int kBytes>
void TopKRow(const uint8_t* row, int64_t len, int64_t step, const TopKKeying how,
             std::vector<std::pair<uint64_t, int64_t>>& best) {
  constexpr int64_t kBlockKeys = 16;
  const int64_t k = static_cast<int64_t>(best.size());
  int64_t kept = 0;
  Key worst = 0;
  auto insert = [&](Key key, int64_t position) {
    if (kept == k && key <= worst) return;
    int64_t slot = kept < k ? kept++ : k - 1;
    while (slot > 0 && best[slot - 1].first < key) {
      best[slot] = best[slot - 1];
      --slot;
    }
    best[slot] = {key, position};
    worst = static_cast<Key>(best[k - 1].first);
  };
  Key keys[kBlockKeys];
  int64_t j = 0;
  for (; j + kBlockKeys <= len; j += kBlockKeys) {
    bool enter = kept < k;
    for (int64_t b = 0; b < kBlockKeys; ++b) {
      keys[b] = TopKKey<Key, kBytes>(row + (j + b) * step, how);
      enter |= keys[b] > worst;
    }
    if (!enter) continue;
    for (int64_t b = 0; b < kBlockKeys; ++b) insert(keys[b], j + b);
  }
  for (; j < len; ++j) insert(TopKKey<Key, kBytes>(row + j * step, how), j);
}

}  // namespace
}  // namespace fusebox::runtime::library

namespace fusebox::runtime {

ScopedParallelRunner::ScopedParallelRunner(ParallelRunner* runner)
    : previous_(library::TakeParallelRunner()) {
  library::ReturnParallelRunner(runner);
}

ScopedParallelRunner::~ScopedParallelRunner() { library::ReturnParallelRunner(previous_); }

using namespace runtime::library;  // NOLINT: the library kernels' shared machinery

bool CanRunSort(const Instruction& sort, std::string* why) {
  SortPlan plan;
  const Status status = PlanSort(sort, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunSort(const Instruction& sort, const std::vector<void*>& operands,
               SortComparator comparator, void* context) {
  SortPlan p;
  RETURN_IF_ERROR(PlanSort(sort, &p));
  const size_t n = p.strides.size();
  if (operands.size() != n) {
    return Invalid(sort, "got " + Str(static_cast<int64_t>(operands.size())) + " buffers for " +
                             Str(static_cast<int64_t>(n)) + " operands");
  }
  if (comparator == nullptr) return Invalid(sort, "no comparator");
  const int64_t len = p.dims[p.axis];
  if (Product(p.dims) == 0 || len <= 1) return Status::Ok();
  for (void* buffer : operands) {
    if (buffer == nullptr) return Invalid(sort, "null buffer");
  }
  try {
    std::vector<int64_t> perm(static_cast<size_t>(len)), tmp(static_cast<size_t>(len));
    std::vector<const void*> args(2 * n);
    const int64_t max_bytes = *std::max_element(p.bytes.begin(), p.bytes.end());
    std::vector<uint8_t> row(static_cast<size_t>(len * max_bytes));
    std::vector<uint8_t*> base(n);
    std::vector<int64_t> step(n);  // bytes between consecutive elements of a row
    for (size_t k = 0; k < n; ++k) step[k] = p.strides[k][p.axis] * p.bytes[k];

    // Every row: all dimensions but the axis, with one offset per operand.
    std::vector<int64_t> outer;
    for (size_t d = 0; d < p.dims.size(); ++d) {
      if (static_cast<int64_t>(d) != p.axis) outer.push_back(static_cast<int64_t>(d));
    }
    std::vector<int64_t> index(outer.size(), 0);
    auto less = [&](int64_t a, int64_t b) {
      for (size_t k = 0; k < n; ++k) {
        args[2 * k] = base[k] + a * step[k];
        args[2 * k + 1] = base[k] + b * step[k];
      }
      return comparator(args.data(), context);
    };
    while (true) {
      for (size_t k = 0; k < n; ++k) {
        int64_t offset = 0;
        for (size_t i = 0; i < outer.size(); ++i) offset += index[i] * p.strides[k][outer[i]];
        base[k] = static_cast<uint8_t*>(operands[k]) + offset * p.bytes[k];
      }
      std::iota(perm.begin(), perm.end(), 0);
      StableSort(perm.data(), tmp.data(), len, less);
      for (size_t k = 0; k < n; ++k) {
        const int64_t b = p.bytes[k];
        for (int64_t j = 0; j < len; ++j) std::memcpy(&row[j * b], base[k] + perm[j] * step[k], b);
        for (int64_t j = 0; j < len; ++j) std::memcpy(base[k] + j * step[k], &row[j * b], b);
      }
      int64_t d = static_cast<int64_t>(outer.size()) - 1;
      for (; d >= 0; --d) {
        if (++index[d] < p.dims[outer[d]]) break;
        index[d] = 0;
      }
      if (d < 0) break;
    }
  } catch (const std::bad_alloc&) {
    return OutOfMemory(sort);
  }
  return Status::Ok();
}

bool CanRunTopK(const Instruction& topk, std::string* why) {
  TopKPlan plan;
  const Status status = PlanTopK(topk, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunTopK(const Instruction& topk, const void* operand, void* values, void* indices, int threads) {
  TopKPlan p;
  RETURN_IF_ERROR(PlanTopK(topk, &p));
  const int64_t len = p.dims.back();
  const int64_t rows = len == 0 ? 0 : Product(p.dims) / len;
  if (rows == 0 || p.k == 0) return Status::Ok();
  if (operand == nullptr || values == nullptr || indices == nullptr) return Invalid(topk, "null buffer");
  const size_t last = p.dims.size() - 1;
  const auto* in = static_cast<const uint8_t*>(operand);
  auto* out_values = static_cast<uint8_t*>(values);
  auto* out_indices = static_cast<uint8_t*>(indices);
  const int64_t step = p.in_strides[last] * p.bytes;
  const TopKKeying how = p.how;
  // Rows split across the threads; about four operations an element.
  const int workers = ThreadsFor(4.0 * static_cast<double>(rows * len), threads);
  const bool ok = ParallelFor(rows, workers, [&](int64_t r0, int64_t r1, int) {
    std::vector<std::pair<uint64_t, int64_t>> best(static_cast<size_t>(p.k));  // (key, position)
    for (int64_t r = r0; r < r1; ++r) {
      int64_t in_base = 0, value_base = 0, index_base = 0;
      for (int64_t d = static_cast<int64_t>(last) - 1, rest = r; d >= 0; --d) {
        const int64_t i = rest % p.dims[d];
        rest /= p.dims[d];
        in_base += i * p.in_strides[d];
        value_base += i * p.value_strides[d];
        index_base += i * p.index_strides[d];
      }
      const uint8_t* row = in + in_base * p.bytes;
      switch (p.bytes) {
        case 1: TopKRow<uint32_t, 1>(row, len, step, how, best); break;
        case 2: TopKRow<uint32_t, 2>(row, len, step, how, best); break;
        case 4: TopKRow<uint32_t, 4>(row, len, step, how, best); break;
        default: TopKRow<uint64_t, 8>(row, len, step, how, best); break;
      }
      for (int64_t j = 0; j < p.k; ++j) {
        std::memcpy(out_values + (value_base + j * p.value_strides[last]) * p.bytes, row + best[j].second * step,
                    static_cast<size_t>(p.bytes));
        const int32_t position = static_cast<int32_t>(best[j].second);
        std::memcpy(out_indices + (index_base + j * p.index_strides[last]) * 4, &position, 4);
      }
    }
  });
  if (!ok) return OutOfMemory(topk);
  return Status::Ok();
}

namespace {

struct RngPlan {
  int64_t state_words = 0;
  int element_bits = 32;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // of the bits' dense layout
  BitGenerator generator = BitGenerator::kPhilox;
};

Status PlanRng(const Instruction& rng, RngPlan* p) {
  if (rng.opcode() != Opcode::kRngBitGenerator || rng.operand_count() != 1) return Invalid(rng, "not a rng-bit-generator");
  const Shape& state = rng.operand(0)->shape();
  if (!state.IsArray() || state.rank() != 1 || state.element_type() != PrimitiveType::kU64 || state.dimensions(0) < 2) {
    return Invalid(rng, "the state must be u64[n] with n >= 2, not " + state.ToString());
  }
  const Shape& result = rng.shape();
  if (!result.IsTuple() || result.tuple_size() != 2 || result.tuple_shapes(0).dimensions() != state.dimensions() ||
      result.tuple_shapes(0).element_type() != PrimitiveType::kU64 || !result.tuple_shapes(1).IsArray()) {
    return Invalid(rng, "the result must be (u64 state, bits), not " + result.ToString());
  }
  const Shape& bits = result.tuple_shapes(1);
  const PrimitiveType type = bits.element_type();
  p->element_bits = BitWidth(type);
  const bool narrow = type == PrimitiveType::kU8 || type == PrimitiveType::kU16;
  if (!narrow && ((p->element_bits != 32 && p->element_bits != 64) || !(IsInteger(type) || IsFloat(type)))) {
    return Unsupported(rng, "element type " + TypeName(type) + " (the generators make u8, u16 and 32- and 64-bit elements)");
  }
  p->state_words = state.dimensions(0);
  p->dims = bits.dimensions();
  RETURN_IF_ERROR(DenseStrides(rng, bits, "the bits", &p->strides));
  p->generator = rng.attrs().rng_algorithm.value_or(RandomAlgorithm::kDefault) == RandomAlgorithm::kThreeFry
                     ? BitGenerator::kThreeFry
                     : BitGenerator::kPhilox;
  return Status::Ok();
}

}  // namespace

bool CanRunRngBitGenerator(const Instruction& rng, std::string* why) {
  RngPlan plan;
  const Status status = PlanRng(rng, &plan);
  if (!status.ok() && why != nullptr) *why = status.message();
  return status.ok();
}

Status RunRngBitGenerator(const Instruction& rng, const void* state, void* new_state, void* bits) {
  RngPlan p;
  RETURN_IF_ERROR(PlanRng(rng, &p));
  if (state == nullptr || new_state == nullptr || bits == nullptr) return Invalid(rng, "null buffer");
  try {
    std::vector<uint64_t> words(static_cast<size_t>(p.state_words)), values, next;
    std::memcpy(words.data(), state, words.size() * 8);
    const std::string error = GenerateXlaBits(p.generator, words, p.dims, p.element_bits, &values, &next);
    if (!error.empty()) return Invalid(rng, error);
    std::memcpy(new_state, next.data(), next.size() * 8);
    // Row-major values into the bits' layout.
    const size_t rank = p.dims.size();
    std::vector<int64_t> index(rank, 0);
    auto* out = static_cast<uint8_t*>(bits);
    for (size_t e = 0; e < values.size(); ++e) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += index[d] * p.strides[d];
      if (p.element_bits == 8) {
        out[offset] = static_cast<uint8_t>(values[e]);
      } else if (p.element_bits == 16) {
        const uint16_t v = static_cast<uint16_t>(values[e]);
        std::memcpy(out + offset * 2, &v, 2);
      } else if (p.element_bits == 32) {
        const uint32_t v = static_cast<uint32_t>(values[e]);
        std::memcpy(out + offset * 4, &v, 4);
      } else {
        std::memcpy(out + offset * 8, &values[e], 8);
      }
      for (int64_t d = static_cast<int64_t>(rank) - 1; d >= 0; --d) {
        if (++index[d] < p.dims[d]) break;
        index[d] = 0;
      }
    }
  } catch (const std::bad_alloc&) {
    return OutOfMemory(rng);
  }
  return Status::Ok();
}

}  // namespace fusebox::runtime
