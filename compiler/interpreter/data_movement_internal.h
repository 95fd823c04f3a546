// Internal to the interpreter's data-movement evaluators (ops_data_movement.cc,
// ops_gather_scatter.cc, ops_sort.cc): errors, index operands, result literals, the
// strided slot-copy kernel most ops reduce to, and the scalar-computation caller that
// scatter and sort share. Not for use elsewhere.
//
// Sections:
//   1. Helpers (errors, index operands, result literals)
//   2. BlockCopy: the strided slot-copy kernel most ops reduce to
//   3. Calling a scalar computation (scatter's combiner, sort's comparator)
//   4. The evaluators of the other files
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compiler/interpreter/ops.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/strings.h"

namespace fusebox::interpreter {
namespace data_movement_internal {

// ---------------------------------------------------------------------------
// 1. Helpers

using Dims = std::vector<int64_t>;

inline Status Error(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode())) + ": " + message);
}

inline std::string DimsText(const Dims& dims) { return "[" + Join(dims, ",") + "]"; }

inline const Dims& DimsOf(const Literal& literal) { return literal.shape().dimensions(); }

// The array literal an op writes its result into (layouts are ignored: storage is
// always row-major over the logical dimensions). Ops that write every element ask for it
// unzeroed (a GiB-sized broadcast is not written twice).
enum class Zeroed { kYes, kNo };
inline StatusOr<Literal> NewArrayResult(const Instruction& inst, Zeroed zeroed = Zeroed::kYes) {
  if (!inst.shape().IsArray()) {
    return Error(inst, "expected an array result shape, got " + inst.shape().ToString());
  }
  Literal result = zeroed == Zeroed::kYes ? Literal(inst.shape()) : Literal::CreateUninitialized(inst.shape());
  if (result.element_count() != inst.shape().ElementCount()) {
    return Error(inst, "result shape " + inst.shape().ToString() + " is too large to evaluate");
  }
  return result;
}

inline Status CheckArrayOperand(const Instruction& inst, Operands operands, size_t i) {
  if (i >= operands.size()) {
    return Error(inst, "expected at least " + std::to_string(i + 1) + " operands, got " +
                           std::to_string(operands.size()));
  }
  if (!operands[i]->shape().IsArray()) {
    return Error(inst, "operand " + std::to_string(i) + " must be an array, got " +
                           operands[i]->shape().ToString());
  }
  return Status::Ok();
}

// Moving slots between literals needs them to share an element type.
inline Status CheckSameType(const Instruction& inst, const Literal& a, const Literal& b) {
  if (a.shape().element_type() != b.shape().element_type()) {
    return Error(inst, "element types differ: " + a.shape().ToString(false) + " vs " +
                           b.shape().ToString(false));
  }
  return Status::Ok();
}

inline bool IsPermutation(const Dims& perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return false;
    seen[p] = true;
  }
  return true;
}

inline bool Contains(const Dims& dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// Element `i` of an index operand of any integer type. Unsigned values past int64's
// range saturate (they are clamped or bounds-checked afterwards anyway).
inline int64_t ReadIndex(const Literal& literal, int64_t i) {
  const PrimitiveType type = literal.shape().element_type();
  if (IsUnsignedInt(type)) {
    const uint64_t v = literal.GetUint64(i);
    return v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(v);
  }
  return literal.GetInt64(i);
}

inline Status CheckIndexType(const Instruction& inst, const Literal& literal, const char* what) {
  if (!IsInteger(literal.shape().element_type())) {
    return Error(inst,
                 std::string(what) + " must be integers, got " + literal.shape().ToString(false));
  }
  return Status::Ok();
}

inline int64_t Clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

// Callers have checked that the two literals have the same type and element count.
inline void CopyAll(const Literal& from, Literal* to) {
  if (from.size_bytes() > 0) {
    std::memcpy(to->untyped_data(), from.untyped_data(), static_cast<size_t>(from.size_bytes()));
  }
}

// The array literals a variadic op (sort, scatter) writes: the result itself, or each
// element of its tuple.
inline std::vector<Literal*> ResultArrays(Literal* result, size_t n) {
  std::vector<Literal*> arrays;
  if (result->shape().IsTuple()) {
    for (Literal& element : result->tuple_elements()) arrays.push_back(&element);
  } else if (n == 1) {
    arrays.push_back(result);
  }
  return arrays;
}

// Calls fn(index, offsets...) for every index of `dims` in row-major order, keeping one
// running offset per stride vector (each offset is the dot product of index and strides).
// The index vector is reused; fn returns a Status to stop early.
template <size_t kN, typename Fn>
Status ForEachOffset(const Dims& dims, const std::array<const Dims*, kN>& strides, Fn&& fn) {
  for (int64_t d : dims) {
    if (d == 0) return Status::Ok();
  }
  Dims index(dims.size(), 0);
  std::array<int64_t, kN> offsets{};
  for (;;) {
    RETURN_IF_ERROR(
        fn(static_cast<const Dims&>(index), static_cast<const std::array<int64_t, kN>&>(offsets)));
    int64_t k = static_cast<int64_t>(dims.size()) - 1;
    for (; k >= 0; --k) {
      if (++index[k] < dims[k]) {
        for (size_t j = 0; j < kN; ++j) offsets[j] += (*strides[j])[k];
        break;
      }
      for (size_t j = 0; j < kN; ++j) offsets[j] -= (*strides[j])[k] * (dims[k] - 1);
      index[k] = 0;
    }
    if (k < 0) return Status::Ok();
  }
}

// ---------------------------------------------------------------------------
// 2. BlockCopy
//
// Copies a block of `dims` elements: for every index i of `dims`,
//   dst[dst_offset + sum_k i_k * dst_strides_k] = src[src_offset + sum_k i_k * src_strides_k]
// with offsets and strides counted in elements (a stride may be 0 to repeat or negative
// to reverse). The plan is built once and run at many offsets (gather runs it once per
// batch index). Size-1 dims are dropped and dims contiguous in both source and
// destination are merged, so most copies end up as long memcpy runs. The two innermost
// loops run without the odometer, so short inner dims cost little. When the innermost
// destination run reads the source with a large stride but another dim reads it with
// stride 1 (a transpose), those two dims are walked in tiles so that the source lines
// and pages stay in cache and TLB.
class BlockCopy {
 public:
  BlockCopy(int slot_bytes, const Dims& dims, const Dims& src_strides, const Dims& dst_strides)
      : slot_(slot_bytes) {
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k] == 0) empty_ = true;
      if (dims[k] <= 1) continue;
      if (!dims_.empty() && src_strides_.back() == src_strides[k] * dims[k] &&
          dst_strides_.back() == dst_strides[k] * dims[k]) {
        dims_.back() *= dims[k];
        src_strides_.back() = src_strides[k];
        dst_strides_.back() = dst_strides[k];
        continue;
      }
      dims_.push_back(dims[k]);
      src_strides_.push_back(src_strides[k]);
      dst_strides_.push_back(dst_strides[k]);
    }
    index_.assign(dims_.size(), 0);
    const int64_t rank = static_cast<int64_t>(dims_.size());
    if (rank >= 2) outer_ = rank - 2;
    if (rank >= 2 && dst_strides_.back() == 1 && std::abs(src_strides_.back()) != 1 &&
        dims_.back() >= kMinTiled) {
      for (int64_t k = rank - 2; k >= 0; --k) {
        if (std::abs(src_strides_[k]) == 1 && dims_[k] >= kMinTiled) {
          outer_ = k;
          tiled_ = true;
          break;
        }
      }
    }
  }

  void Run(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset) {
    switch (slot_) {
      case 1:
        return RunTyped<1>(src, src_offset, dst, dst_offset);
      case 2:
        return RunTyped<2>(src, src_offset, dst, dst_offset);
      case 4:
        return RunTyped<4>(src, src_offset, dst, dst_offset);
      case 8:
        return RunTyped<8>(src, src_offset, dst, dst_offset);
      default:
        return RunTyped<16>(src, src_offset, dst, dst_offset);
    }
  }

 private:
  // Tile extents (measured on 16384x16384 f32 transposes): few source rows at a time along
  // the dim read with stride 1, long runs along the destination's contiguous dim.
  static constexpr int64_t kTileOuter = 64;
  static constexpr int64_t kTileInner = 256;
  static constexpr int64_t kMinTiled = 8;

  template <int kBytes>
  void RunTyped(const uint8_t* src, int64_t src_offset, uint8_t* dst, int64_t dst_offset) {
    if (empty_) return;
    const int64_t rank = static_cast<int64_t>(dims_.size());
    if (rank == 0) {
      std::memcpy(dst + dst_offset * kBytes, src + src_offset * kBytes, kBytes);
      return;
    }
    const int64_t inner = rank - 1;
    const int64_t n = dims_[inner];
    const int64_t ss = src_strides_[inner] * kBytes;
    const int64_t ds = dst_strides_[inner] * kBytes;
    const bool contiguous = src_strides_[inner] == 1 && dst_strides_[inner] == 1;
    // The second loop handled in the body (1 iteration when rank is 1).
    const int64_t m = outer_ >= 0 ? dims_[outer_] : 1;
    const int64_t os = outer_ >= 0 ? src_strides_[outer_] * kBytes : 0;
    const int64_t od = outer_ >= 0 ? dst_strides_[outer_] * kBytes : 0;
    std::fill(index_.begin(), index_.end(), 0);
    int64_t s = src_offset;
    int64_t d = dst_offset;
    for (;;) {
      const uint8_t* sp = src + s * kBytes;
      uint8_t* dp = dst + d * kBytes;
      if (contiguous) {
        for (int64_t j = 0; j < m; ++j) {
          std::memcpy(dp + j * od, sp + j * os, static_cast<size_t>(n * kBytes));
        }
      } else if (tiled_) {
        for (int64_t j0 = 0; j0 < m; j0 += kTileOuter) {
          const int64_t j1 = std::min(m, j0 + kTileOuter);
          for (int64_t i0 = 0; i0 < n; i0 += kTileInner) {
            const int64_t i1 = std::min(n, i0 + kTileInner);
            for (int64_t j = j0; j < j1; ++j) {
              for (int64_t i = i0; i < i1; ++i) {
                std::memcpy(dp + j * od + i * ds, sp + j * os + i * ss, kBytes);
              }
            }
          }
        }
      } else {
        for (int64_t j = 0; j < m; ++j) {
          for (int64_t i = 0; i < n; ++i) {
            std::memcpy(dp + j * od + i * ds, sp + j * os + i * ss, kBytes);
          }
        }
      }
      // Advance the odometer over the dims the body did not cover.
      int64_t k = inner - 1;
      for (; k >= 0; --k) {
        if (k == outer_) continue;
        if (++index_[k] < dims_[k]) {
          s += src_strides_[k];
          d += dst_strides_[k];
          break;
        }
        index_[k] = 0;
        s -= src_strides_[k] * (dims_[k] - 1);
        d -= dst_strides_[k] * (dims_[k] - 1);
      }
      if (k < 0) return;
    }
  }

  int slot_;
  bool empty_ = false;
  Dims dims_, src_strides_, dst_strides_;
  Dims index_;
  int64_t outer_ = -1;  // the dim looped inside the body besides the innermost one
  bool tiled_ = false;
};

// Copies `block` elements from `src` (read with `src_strides` from `src_offset`) into
// `dst` (written with `dst_strides` from `dst_offset`).
inline void CopyBlock(const Literal& src, int64_t src_offset, const Dims& src_strides, Literal* dst,
                      int64_t dst_offset, const Dims& dst_strides, const Dims& block) {
  BlockCopy copy(src.slot_bytes(), block, src_strides, dst_strides);
  copy.Run(src.untyped_data(), src_offset, dst->untyped_data(), dst_offset);
}

// Fills every slot of `literal` with the single slot of `value`, doubling the filled
// prefix each step.
inline void FillWith(const Literal& value, Literal* literal) {
  const int64_t total = literal->size_bytes();
  if (total == 0) return;
  uint8_t* data = literal->untyped_data();
  const int64_t slot = literal->slot_bytes();
  std::memcpy(data, value.untyped_data(), static_cast<size_t>(slot));
  for (int64_t filled = slot; filled < total;) {
    const int64_t n = std::min(filled, total - filled);
    std::memcpy(data + filled, data, static_cast<size_t>(n));
    filled += n;
  }
}

// ---------------------------------------------------------------------------
// 3. Calling a scalar computation

// Whether `inst` is parameter `number` of its computation.
inline bool IsParameter(const Instruction* inst, int64_t number) {
  return inst->opcode() == Opcode::kParameter && inst->parameter_number() == number;
}

// Runs a scalar computation on slots: args[i] receives slot `indices[i]` of `arrays[i]`;
// the result (a scalar, or a tuple of scalars) is returned. The argument literals are
// allocated once and reused.
class ScalarCaller {
 public:
  ScalarCaller(const Computation& computation, EvalContext& ctx)
      : computation_(computation), ctx_(ctx) {}

  void AddArgumentType(PrimitiveType type) { args_.emplace_back(Shape::Scalar(type)); }

  void SetArgument(size_t i, const Literal& array, int64_t index) {
    std::memcpy(args_[i].untyped_data(), array.untyped_data() + index * array.slot_bytes(),
                static_cast<size_t>(array.slot_bytes()));
  }

  // The result stays the interpreter's until the next call (EvalContext::CallInPlace).
  StatusOr<const Literal*> Call() {
    if (pointers_.empty()) {
      for (const Literal& arg : args_) pointers_.push_back(&arg);
    }
    return ctx_.CallInPlace(computation_, pointers_);
  }

  // Element i of a call's result, checked to be a scalar of `type`.
  static StatusOr<const Literal*> ResultElement(const Literal& result, size_t i, size_t n,
                                                PrimitiveType type, const char* op) {
    const Literal* element = &result;
    if (result.shape().IsTuple()) {
      if (i >= result.tuple_elements().size()) {
        return InvalidArgument(std::string(op) + ": the computation returned too few values");
      }
      element = &result.tuple_elements()[i];
    } else if (n != 1) {
      return InvalidArgument(std::string(op) + ": the computation must return a tuple of " +
                             std::to_string(n) + " scalars");
    }
    if (element->element_count() != 1 || element->shape().element_type() != type) {
      return InvalidArgument(std::string(op) + ": the computation returned " +
                             element->shape().ToString(false) + ", expected a " +
                             std::string(PrimitiveTypeName(type)) + " scalar");
    }
    return element;
  }

 private:
  const Computation& computation_;
  EvalContext& ctx_;
  std::vector<Literal> args_;
  std::vector<const Literal*> pointers_;
};

// ---------------------------------------------------------------------------
// 4. The evaluators of the other files

// gather (ops_gather_scatter.cc).
StatusOr<Literal> EvalGather(const Instruction& inst, Operands operands);
// scatter, variadic (ops_gather_scatter.cc).
StatusOr<Literal> EvalScatter(const Instruction& inst, Operands operands, EvalContext& ctx);
// sort, variadic, always stable (ops_sort.cc).
StatusOr<Literal> EvalSort(const Instruction& inst, Operands operands, EvalContext& ctx);
// topk (ops_sort.cc).
StatusOr<Literal> EvalTopK(const Instruction& inst, Operands operands);

}  // namespace data_movement_internal
}  // namespace fusebox::interpreter
