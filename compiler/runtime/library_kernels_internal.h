// The machinery the CPU runtime's library kernels share (library_kernels.cc: sort and
// the entry points' common parts; library_kernels_dot.cc; library_kernels_conv.cc):
// errors and layouts, element conversion through the interpreter's accumulators, strided
// copies, threads, and GEMM through oneDNN or Eigen. Internal to compiler/runtime.
#pragma once

#include <Eigen/Core>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <numeric>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "compiler/ir/instruction.h"
#include "compiler/ir/literal.h"
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/runtime_library.h"
#include "compiler/support/bit_generators.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/support/status.h"

namespace fusebox::runtime::library {


using CFloat = std::complex<float>;
using CDouble = std::complex<double>;

// ===========================================================================
// Errors, element types and layouts
// ===========================================================================

inline std::string Str(int64_t v) { return std::to_string(v); }

inline std::string Prefix(const Instruction& inst) {
  return std::string(OpcodeName(inst.opcode())) + " %" + inst.name() + ": ";
}
inline Status Invalid(const Instruction& inst, const std::string& message) {
  return InvalidArgument(Prefix(inst) + message);
}
inline Status Unsupported(const Instruction& inst, const std::string& message) {
  return Unimplemented(Prefix(inst) + message);
}
inline std::string TypeName(PrimitiveType type) { return std::string(PrimitiveTypeName(type)); }

// Element types dot and convolution compute in: every type with an arithmetic meaning.
// Sub-byte types (s4, u2, f4e2m1fn, ...) take a byte per element, value in the low bits.
inline bool IsArithmeticType(PrimitiveType type) {
  return IsPred(type) || IsInteger(type) || IsFloat(type) || IsComplex(type);
}

// The low `bits` bits of v.
inline uint64_t LowBits(uint64_t v, int bits) { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }

// Whether an operand of type `from` can feed a result of type `to` (the interpreter's
// conversions; complex to real would silently drop the imaginary part, so it is refused).
inline bool Convertible(PrimitiveType from, PrimitiveType to) {
  if (from == to || IsComplex(to)) return true;
  return !IsComplex(from);
}

// Element strides (per logical dimension) of a dense array laid out by `shape`'s layout.
inline Status DenseStrides(const Instruction& inst, const Shape& shape, const std::string& what,
                    std::vector<int64_t>* strides) {
  if (!shape.IsArray()) return Invalid(inst, what + " must be an array, got " + shape.ToString());
  const int64_t rank = shape.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (shape.is_dynamic_dimension(d) || shape.dimensions(d) < 0) {
      return Unsupported(inst, what + " " + shape.ToString() + " has dynamic dimensions");
    }
  }
  std::vector<int64_t> minor_to_major(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) minor_to_major[d] = rank - 1 - d;
  if (shape.has_layout()) {
    const Layout& layout = shape.layout();
    if (!layout.tiles.empty()) {
      return Unsupported(inst, what + " " + shape.ToString() + " has a tiled layout");
    }
    for (DimLevelType level : layout.dim_level_types) {
      if (level != DimLevelType::kDense) {
        return Unsupported(inst, what + " " + shape.ToString() + " has a sparse layout");
      }
    }
    if (layout.element_size_in_bits != 0 &&
        layout.element_size_in_bits != 8 * ByteWidth(shape.element_type())) {
      return Unsupported(inst, what + " " + shape.ToString() + " has packed elements");
    }
    if (!layout.minor_to_major.empty() || rank == 0) {
      if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
        return Invalid(inst,
                       what + " layout " + layout.ToString() + " does not fit rank " + Str(rank));
      }
      std::vector<bool> seen(static_cast<size_t>(rank), false);
      for (int64_t d : layout.minor_to_major) {
        if (d < 0 || d >= rank || seen[d]) {
          return Invalid(inst, what + " layout " + layout.ToString() + " is not a permutation");
        }
        seen[d] = true;
      }
      minor_to_major = layout.minor_to_major;
    }
  }
  strides->assign(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int64_t d : minor_to_major) {
    (*strides)[d] = stride;
    const int64_t size = std::max<int64_t>(shape.dimensions(d), 1);
    if (stride > std::numeric_limits<int64_t>::max() / size) {
      return Invalid(inst, what + " " + shape.ToString() + " is too large");
    }
    stride *= size;
  }
  return Status::Ok();
}

inline int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline std::string DimsText(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + Str(dims[i]);
  return out + "]";
}

// ===========================================================================
// Element conversion
// ===========================================================================
//
// Accumulators: float (f32 and narrower floats), double (f64), CFloat (c64), CDouble
// (c128), uint32_t (integers of 32 bits or fewer: sums modulo 2^32 agree with the
// interpreter's modulo-2^64 sums in every bit the result keeps) and uint64_t (64-bit
// integers and pred, whose result is "any product was non-zero").

template <typename S>
S LoadRaw(const uint8_t* p) {
  S v;
  std::memcpy(&v, p, sizeof(S));
  return v;
}
template <typename S>
void StoreRaw(uint8_t* p, S v) {
  std::memcpy(p, &v, sizeof(S));
}

inline float HalfToFloat(uint16_t bits) { return static_cast<float>(std::bit_cast<Eigen::half>(bits)); }
inline float Bf16ToFloat(uint16_t bits) {
  return static_cast<float>(std::bit_cast<Eigen::bfloat16>(bits));
}
inline uint16_t FloatToHalf(float v) { return std::bit_cast<uint16_t>(Eigen::half(v)); }
inline uint16_t FloatToBf16(float v) { return std::bit_cast<uint16_t>(Eigen::bfloat16(v)); }

inline uint64_t ReadIntBits(PrimitiveType type, const uint8_t* p);

// The value of a real (or pred, or integer) element, exactly for every float type.
inline double ReadReal(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PrimitiveType::kPred:
      return *p != 0 ? 1.0 : 0.0;
    case PrimitiveType::kS8:
      return LoadRaw<int8_t>(p);
    case PrimitiveType::kS16:
      return LoadRaw<int16_t>(p);
    case PrimitiveType::kS32:
      return LoadRaw<int32_t>(p);
    case PrimitiveType::kS64:
      return static_cast<double>(LoadRaw<int64_t>(p));
    case PrimitiveType::kU8:
      return LoadRaw<uint8_t>(p);
    case PrimitiveType::kU16:
      return LoadRaw<uint16_t>(p);
    case PrimitiveType::kU32:
      return LoadRaw<uint32_t>(p);
    case PrimitiveType::kU64:
      return static_cast<double>(LoadRaw<uint64_t>(p));
    case PrimitiveType::kF16:
      return HalfToFloat(LoadRaw<uint16_t>(p));
    case PrimitiveType::kBF16:
      return Bf16ToFloat(LoadRaw<uint16_t>(p));
    case PrimitiveType::kF32:
      return LoadRaw<float>(p);
    case PrimitiveType::kF64:
      return LoadRaw<double>(p);
    case PrimitiveType::kC64:
      return LoadRaw<float>(p);
    case PrimitiveType::kC128:
      return LoadRaw<double>(p);
    default:
      break;
  }
  if (IsSignedInt(type)) return static_cast<double>(static_cast<int64_t>(ReadIntBits(type, p)));
  if (IsUnsignedInt(type)) return static_cast<double>(ReadIntBits(type, p));
  return FloatBitsToDouble(type, LowBits(*p, BitWidth(type)));  // f8 and f4 types
}

inline CDouble ReadComplex(PrimitiveType type, const uint8_t* p) {
  if (type == PrimitiveType::kC64) return {LoadRaw<float>(p), LoadRaw<float>(p + 4)};
  if (type == PrimitiveType::kC128) return {LoadRaw<double>(p), LoadRaw<double>(p + 8)};
  return {ReadReal(type, p), 0.0};
}

// An integer or pred element widened to 64 bits (sign-extended for signed types).
inline uint64_t ReadIntBits(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PrimitiveType::kPred:
      return *p != 0 ? 1 : 0;
    case PrimitiveType::kS8:
      return static_cast<uint64_t>(LoadRaw<int8_t>(p));
    case PrimitiveType::kS16:
      return static_cast<uint64_t>(LoadRaw<int16_t>(p));
    case PrimitiveType::kS32:
      return static_cast<uint64_t>(LoadRaw<int32_t>(p));
    case PrimitiveType::kS64:
      return static_cast<uint64_t>(LoadRaw<int64_t>(p));
    case PrimitiveType::kU8:
      return LoadRaw<uint8_t>(p);
    case PrimitiveType::kU16:
      return LoadRaw<uint16_t>(p);
    case PrimitiveType::kU32:
      return LoadRaw<uint32_t>(p);
    case PrimitiveType::kU64:
      return LoadRaw<uint64_t>(p);
    default:
      break;
  }
  const int bits = BitWidth(type);  // s1..s4, u1..u4
  const uint64_t v = LowBits(*p, bits);
  if (IsSignedInt(type) && (v >> (bits - 1)) != 0) return v | ~LowBits(~uint64_t{0}, bits);
  return v;
}

// `v` rounded to the real float type `type`.
inline double RoundTo(PrimitiveType type, double v) {
  if (type == PrimitiveType::kF64) return v;
  if (type == PrimitiveType::kF32) return static_cast<float>(v);
  return FloatBitsToDouble(type, DoubleToFloatBits(type, v));
}

inline int64_t ToInt64Saturating(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 0x1p63) return std::numeric_limits<int64_t>::max();
  if (v <= -0x1p63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// The bits of an operand element converted to the integer (or pred) result type `to`,
// modulo 2^64: what the interpreter's conversion through a scalar of `to` yields.
inline uint64_t IntBitsFor(PrimitiveType from, PrimitiveType to, const uint8_t* p) {
  if (from == to || (IsInteger(from) && IsInteger(to))) return ReadIntBits(from, p);
  if (IsPred(to)) {
    if (IsInteger(from)) return ReadIntBits(from, p) != 0 ? 1 : 0;
    return ReadReal(from, p) != 0.0 ? 1 : 0;  // NaN counts as non-zero
  }
  if (IsPred(from)) return *p != 0 ? 1 : 0;
  return static_cast<uint64_t>(ToInt64Saturating(ReadReal(from, p)));
}

// One operand element as accumulator T, converted to the result type `to` on the way.
template <typename T>
T ToAcc(PrimitiveType from, PrimitiveType to, const uint8_t* p) {
  if constexpr (std::is_same_v<T, float>) {
    const double v = ReadReal(from, p);
    return static_cast<float>(from == to ? v : RoundTo(to, v));
  } else if constexpr (std::is_same_v<T, double>) {
    return ReadReal(from, p);
  } else if constexpr (std::is_same_v<T, CFloat>) {
    const CDouble v = ReadComplex(from, p);
    return {static_cast<float>(v.real()), static_cast<float>(v.imag())};
  } else if constexpr (std::is_same_v<T, CDouble>) {
    return ReadComplex(from, p);
  } else {
    return static_cast<T>(IntBitsFor(from, to, p));
  }
}

// An accumulator written as one element of the result type `to`.
template <typename T>
void FromAcc(T v, PrimitiveType to, uint8_t* p) {
  if constexpr (std::is_same_v<T, float>) {
    switch (to) {
      case PrimitiveType::kF32:
        return StoreRaw<float>(p, v);
      case PrimitiveType::kF16:
        return StoreRaw<uint16_t>(p, FloatToHalf(v));
      case PrimitiveType::kBF16:
        return StoreRaw<uint16_t>(p, FloatToBf16(v));
      default:
        *p = static_cast<uint8_t>(DoubleToFloatBits(to, v));
        return;
    }
  } else if constexpr (std::is_same_v<T, double>) {
    StoreRaw<double>(p, v);
  } else if constexpr (std::is_same_v<T, CFloat> || std::is_same_v<T, CDouble>) {
    StoreRaw<T>(p, v);
  } else {
    switch (ByteWidth(to)) {
      case 1:
        *p = IsPred(to) ? (v != 0 ? 1 : 0) : static_cast<uint8_t>(LowBits(v, BitWidth(to)));
        return;
      case 2:
        return StoreRaw<uint16_t>(p, static_cast<uint16_t>(v));
      case 4:
        return StoreRaw<uint32_t>(p, static_cast<uint32_t>(v));
      default:
        return StoreRaw<uint64_t>(p, static_cast<uint64_t>(v));
    }
  }
}

// Loads n operand elements, `src_step` bytes apart, into dst[i * dst_step].
template <typename T>
using LoadRunFn = void (*)(const uint8_t* src, int64_t src_step, int64_t n, T* dst,
                           int64_t dst_step, PrimitiveType from, PrimitiveType to);
// Stores n accumulators src[i * src_step] as result elements `dst_step` bytes apart.
template <typename T>
using StoreRunFn = void (*)(const T* src, int64_t src_step, int64_t n, uint8_t* dst,
                            int64_t dst_step, PrimitiveType to);

template <typename T, typename S>
void LoadCastRun(const uint8_t* src, int64_t src_step, int64_t n, T* dst, int64_t dst_step,
                 PrimitiveType, PrimitiveType) {
  for (int64_t i = 0; i < n; ++i)
    dst[i * dst_step] = static_cast<T>(LoadRaw<S>(src + i * src_step));
}
template <typename T, float (*kConvert)(uint16_t)>
void LoadHalfRun(const uint8_t* src, int64_t src_step, int64_t n, T* dst, int64_t dst_step,
                 PrimitiveType, PrimitiveType) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i * dst_step] = static_cast<T>(kConvert(LoadRaw<uint16_t>(src + i * src_step)));
  }
}
template <typename T>
void LoadAnyRun(const uint8_t* src, int64_t src_step, int64_t n, T* dst, int64_t dst_step,
                PrimitiveType from, PrimitiveType to) {
  for (int64_t i = 0; i < n; ++i) dst[i * dst_step] = ToAcc<T>(from, to, src + i * src_step);
}

// The integer storage type of an integer element type (unsigned: only the bits matter).
template <typename T>
LoadRunFn<T> PickIntLoad(PrimitiveType from) {
  switch (from) {
    case PrimitiveType::kS8:
      return &LoadCastRun<T, int8_t>;
    case PrimitiveType::kS16:
      return &LoadCastRun<T, int16_t>;
    case PrimitiveType::kS32:
      return &LoadCastRun<T, int32_t>;
    case PrimitiveType::kS64:
      return &LoadCastRun<T, int64_t>;
    case PrimitiveType::kU8:
      return &LoadCastRun<T, uint8_t>;
    case PrimitiveType::kU16:
      return &LoadCastRun<T, uint16_t>;
    case PrimitiveType::kU32:
      return &LoadCastRun<T, uint32_t>;
    case PrimitiveType::kU64:
      return &LoadCastRun<T, uint64_t>;
    default:
      return &LoadAnyRun<T>;
  }
}

// The fastest loader that converts exactly as ToAcc does.
template <typename T>
LoadRunFn<T> PickLoad(PrimitiveType from, PrimitiveType to) {
  if constexpr (std::is_same_v<T, float>) {
    if (from == PrimitiveType::kF32 && to == PrimitiveType::kF32) return &LoadCastRun<T, float>;
    // f16 and bf16 values are exact in float; only a narrower result type would round them.
    const bool to_wide = to == from || to == PrimitiveType::kF32;
    if (from == PrimitiveType::kF16 && to_wide) return &LoadHalfRun<T, &HalfToFloat>;
    if (from == PrimitiveType::kBF16 && to_wide) return &LoadHalfRun<T, &Bf16ToFloat>;
  } else if constexpr (std::is_same_v<T, double>) {
    if (from == PrimitiveType::kF64) return &LoadCastRun<T, double>;
    if (from == PrimitiveType::kF32) return &LoadCastRun<T, float>;
  } else if constexpr (std::is_same_v<T, CFloat>) {
    if (from == PrimitiveType::kC64) return &LoadCastRun<T, CFloat>;
  } else if constexpr (std::is_same_v<T, CDouble>) {
    if (from == PrimitiveType::kC128) return &LoadCastRun<T, CDouble>;
  } else {
    if (IsInteger(from) && IsInteger(to)) return PickIntLoad<T>(from);
  }
  return &LoadAnyRun<T>;
}

template <typename T, typename D>
void StoreCastRun(const T* src, int64_t src_step, int64_t n, uint8_t* dst, int64_t dst_step,
                  PrimitiveType) {
  for (int64_t i = 0; i < n; ++i)
    StoreRaw<D>(dst + i * dst_step, static_cast<D>(src[i * src_step]));
}
template <uint16_t (*kConvert)(float)>
void StoreHalfRun(const float* src, int64_t src_step, int64_t n, uint8_t* dst, int64_t dst_step,
                  PrimitiveType) {
  for (int64_t i = 0; i < n; ++i)
    StoreRaw<uint16_t>(dst + i * dst_step, kConvert(src[i * src_step]));
}
template <typename T>
void StoreAnyRun(const T* src, int64_t src_step, int64_t n, uint8_t* dst, int64_t dst_step,
                 PrimitiveType to) {
  for (int64_t i = 0; i < n; ++i) FromAcc<T>(src[i * src_step], to, dst + i * dst_step);
}

template <typename T>
StoreRunFn<T> PickStore(PrimitiveType to) {
  if constexpr (std::is_same_v<T, float>) {
    if (to == PrimitiveType::kF32) return &StoreCastRun<T, float>;
    if (to == PrimitiveType::kF16) return &StoreHalfRun<&FloatToHalf>;
    if (to == PrimitiveType::kBF16) return &StoreHalfRun<&FloatToBf16>;
  } else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, CFloat> ||
                       std::is_same_v<T, CDouble>) {
    return &StoreCastRun<T, T>;
  } else {
    if (!IsPred(to) && BitWidth(to) == 8 * ByteWidth(to)) {
      switch (ByteWidth(to)) {
        case 1:
          return &StoreCastRun<T, uint8_t>;
        case 2:
          return &StoreCastRun<T, uint16_t>;
        case 4:
          return &StoreCastRun<T, uint32_t>;
        case 8:
          return &StoreCastRun<T, uint64_t>;
        default:
          break;
      }
    }
  }
  return &StoreAnyRun<T>;
}

// Whether a buffer of element type `type` can be read as accumulators T in place.
template <typename T>
bool StorageIs(PrimitiveType type) {
  if constexpr (std::is_same_v<T, float>) return type == PrimitiveType::kF32;
  if constexpr (std::is_same_v<T, double>) return type == PrimitiveType::kF64;
  if constexpr (std::is_same_v<T, CFloat>) return type == PrimitiveType::kC64;
  if constexpr (std::is_same_v<T, CDouble>) return type == PrimitiveType::kC128;
  if constexpr (std::is_same_v<T, uint32_t>) {
    return type == PrimitiveType::kS32 || type == PrimitiveType::kU32;
  }
  if constexpr (std::is_same_v<T, uint64_t>) {
    return type == PrimitiveType::kS64 || type == PrimitiveType::kU64;
  }
  return false;
}

template <typename T>
bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % alignof(T) == 0;
}

// ===========================================================================
// Strided copies
// ===========================================================================

// One dimension of a copy: its size and the element strides on both sides.
struct CopyDim {
  int64_t size;
  int64_t src_stride;
  int64_t dst_stride;
};

// Calls fn(src_offset, dst_offset, n, src_step, dst_step) for runs covering every index of
// `dims` once. Dimensions are ordered by the source strides (`by_source`) or the
// destination strides, major first, so one side streams; dimensions contiguous on both
// sides merge into longer runs.
template <typename Fn>
void ForEachRun(std::vector<CopyDim> dims, bool by_source, Fn&& fn) {
  std::vector<CopyDim> kept;
  for (const CopyDim& d : dims) {
    if (d.size == 0) return;
    if (d.size != 1) kept.push_back(d);
  }
  std::stable_sort(kept.begin(), kept.end(), [by_source](const CopyDim& a, const CopyDim& b) {
    return by_source ? a.src_stride > b.src_stride : a.dst_stride > b.dst_stride;
  });
  std::vector<CopyDim> merged;
  for (const CopyDim& d : kept) {
    if (!merged.empty()) {
      CopyDim& outer = merged.back();
      if (outer.src_stride == d.src_stride * d.size && outer.dst_stride == d.dst_stride * d.size) {
        outer = {outer.size * d.size, d.src_stride, d.dst_stride};
        continue;
      }
    }
    merged.push_back(d);
  }
  if (merged.empty()) {
    fn(int64_t{0}, int64_t{0}, int64_t{1}, int64_t{1}, int64_t{1});
    return;
  }
  const CopyDim inner = merged.back();
  merged.pop_back();
  std::vector<int64_t> index(merged.size(), 0);
  int64_t src = 0;
  int64_t dst = 0;
  while (true) {
    fn(src, dst, inner.size, inner.src_stride, inner.dst_stride);
    int64_t d = static_cast<int64_t>(merged.size()) - 1;
    for (; d >= 0; --d) {
      src += merged[d].src_stride;
      dst += merged[d].dst_stride;
      if (++index[d] < merged[d].size) break;
      src -= merged[d].src_stride * merged[d].size;
      dst -= merged[d].dst_stride * merged[d].size;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Packs a strided operand into accumulators: dims' src strides index `src` (elements of
// `from`), dst strides index `dst`.
template <typename T>
void PackInto(const std::vector<CopyDim>& dims, const uint8_t* src, PrimitiveType from,
              PrimitiveType to, T* dst) {
  const LoadRunFn<T> load = PickLoad<T>(from, to);
  const int64_t bytes = ByteWidth(from);
  ForEachRun(dims, /*by_source=*/true,
             [&](int64_t s, int64_t d, int64_t n, int64_t s_step, int64_t d_step) {
               load(src + s * bytes, s_step * bytes, n, dst + d, d_step, from, to);
             });
}

// Writes accumulators (src strides index `src`) into a result buffer of type `to`.
template <typename T>
void UnpackFrom(const std::vector<CopyDim>& dims, const T* src, PrimitiveType to, uint8_t* dst) {
  const StoreRunFn<T> store = PickStore<T>(to);
  const int64_t bytes = ByteWidth(to);
  ForEachRun(dims, /*by_source=*/false,
             [&](int64_t s, int64_t d, int64_t n, int64_t s_step, int64_t d_step) {
               store(src + s, s_step, n, dst + d * bytes, d_step * bytes, to);
             });
}

// ===========================================================================
// Threads
// ===========================================================================

// Below this much work (flops) a second thread costs more than it saves.
constexpr double kMinFlopsPerThread = 4e6;

inline int ThreadsFor(double flops, int threads) {
  if (threads <= 1) return 1;
  const double useful = std::max(1.0, std::floor(flops / kMinFlopsPerThread));
  return static_cast<int>(std::min<double>(threads, useful));
}

// The calling thread's runner (ScopedParallelRunner), taken away while a loop runs on it
// so that a loop nested inside starts its own threads, and given back after.
ParallelRunner* TakeParallelRunner();
void ReturnParallelRunner(ParallelRunner* runner);
bool HasParallelRunner();

// Splits [0, n) into `threads` contiguous ranges and calls fn(begin, end, worker) for each,
// on that many threads (the caller's included). Returns false if any call threw (the only
// thing that can is running out of memory); exceptions never leave this function.
template <typename Fn>
bool ParallelFor(int64_t n, int threads, Fn&& fn) {
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(threads, n));
  std::vector<char> worker_failed(static_cast<size_t>(workers), 0);
  auto run = [&](int64_t w) {
    const int64_t begin = n * w / workers;
    const int64_t end = n * (w + 1) / workers;
    try {
      fn(begin, end, static_cast<int>(w));
    } catch (...) {
      worker_failed[w] = 1;
    }
  };
  if (workers > 1) {
    if (ParallelRunner* runner = TakeParallelRunner(); runner != nullptr) {
      runner->Run(workers, [&](int64_t w, int64_t, int) { run(w); });
      ReturnParallelRunner(runner);
      return std::count(worker_failed.begin(), worker_failed.end(), 1) == 0;
    }
  }
  std::vector<std::thread> pool;
  for (int64_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(run, w);
    } catch (...) {
      run(w);  // no thread to be had: do that share here
    }
  }
  run(0);
  for (std::thread& t : pool) t.join();
  return std::count(worker_failed.begin(), worker_failed.end(), 1) == 0;
}

inline Status OutOfMemory(const Instruction& inst) {
  return Internal(Prefix(inst) + "out of memory for the kernel's scratch buffers");
}

// ===========================================================================
// GEMM through Eigen
// ===========================================================================

// A matrix in memory: element (i, j) at data[i * row_stride + j * col_stride].
template <typename T>
struct MatView {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

template <typename T>
MatView<T> Transposed(const MatView<T>& v) {
  return {v.data, v.cols, v.rows, v.col_stride, v.row_stride};
}
// Eigen maps a matrix whose columns (column-major) or rows (row-major) are contiguous.
template <typename T>
bool ColumnMajorOk(const MatView<T>& v) {
  return v.rows <= 1 || v.row_stride == 1;
}
template <typename T>
bool RowMajorOk(const MatView<T>& v) {
  return v.cols <= 1 || v.col_stride == 1;
}
template <typename T>
bool EigenCanMap(const MatView<T>& v) {
  return ColumnMajorOk(v) || RowMajorOk(v);
}

template <typename T, int kOrder>
using EigenMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, kOrder>;
template <typename T, int kOrder>
using ConstMap = Eigen::Map<const EigenMatrix<T, kOrder>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using OutMap = Eigen::Map<EigenMatrix<T, Eigen::ColMajor>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T, int kOrder>
ConstMap<T, kOrder> MapOf(const MatView<T>& v) {
  int64_t outer;
  if constexpr (kOrder == Eigen::ColMajor) {
    outer = v.cols <= 1 ? std::max<int64_t>(v.rows, 1) : v.col_stride;
  } else {
    outer = v.rows <= 1 ? std::max<int64_t>(v.cols, 1) : v.row_stride;
  }
  return ConstMap<T, kOrder>(v.data, v.rows, v.cols, Eigen::OuterStride<>(outer));
}

template <typename T, int kA, int kB>
void GemmMapped(const MatView<T>& a, const MatView<T>& b, const MatView<T>& c) {
  const int64_t outer = c.cols <= 1 ? std::max<int64_t>(c.rows, 1) : c.col_stride;
  OutMap<T> out(c.data, c.rows, c.cols, Eigen::OuterStride<>(outer));
  out.noalias() = MapOf<T, kA>(a) * MapOf<T, kB>(b);
}

// c = a * b on this thread. Every view must satisfy EigenCanMap.
template <typename T>
void Gemm(MatView<T> a, MatView<T> b, MatView<T> c) {
  if (c.rows == 0 || c.cols == 0) return;
  if (a.cols == 0) {
    for (int64_t j = 0; j < c.cols; ++j) {
      for (int64_t i = 0; i < c.rows; ++i) c.data[i * c.row_stride + j * c.col_stride] = T{};
    }
    return;
  }
  if (!ColumnMajorOk(c)) {  // a row-major result: c^T = b^T a^T is column-major
    const MatView<T> at = Transposed(a);
    a = Transposed(b);
    b = at;
    c = Transposed(c);
  }
  const bool a_col = ColumnMajorOk(a);
  const bool b_col = ColumnMajorOk(b);
  if (a_col && b_col) return GemmMapped<T, Eigen::ColMajor, Eigen::ColMajor>(a, b, c);
  if (a_col) return GemmMapped<T, Eigen::ColMajor, Eigen::RowMajor>(a, b, c);
  if (b_col) return GemmMapped<T, Eigen::RowMajor, Eigen::ColMajor>(a, b, c);
  return GemmMapped<T, Eigen::RowMajor, Eigen::RowMajor>(a, b, c);
}

// oneDNN's sgemm, loaded at run time from Debian's libdnnl (scripts/setup.sh installs
// it). It picks its kernels for the CPU it runs on (AVX-512, AVX2, ...) where Eigen is
// compiled for the baseline x86-64 (SSE2): on this project's machines a 256x784x512
// f32 GEMM runs at 130 GFLOP/s on two threads against Eigen's 27. Without the library
// f32 GEMMs stay on Eigen.
struct OneDnn {
  using Sgemm = int (*)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                        int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);
  Sgemm sgemm = nullptr;
  void (*set_num_threads)(int) = nullptr;  // OpenMP's, for the calling thread
};

inline const OneDnn* LoadOneDnn() {
#if defined(__SANITIZE_ADDRESS__)
  // LeakSanitizer's exit-time thread tracer crashes on libgomp's worker threads
  // ("Tracer caught signal 11"): sanitized builds keep every GEMM on Eigen.
  return nullptr;
#endif
  static const OneDnn* loaded = []() -> const OneDnn* {
    if (const char* off = std::getenv("FUSEBOX_NO_ONEDNN"); off != nullptr && *off != '\0' && *off != '0') {
      return nullptr;
    }
    // oneDNN runs on OpenMP: idle OpenMP threads must sleep rather than spin, or they
    // take the cores from the kernels that follow. libgomp reads this when it loads.
    setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
    void* handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return nullptr;
    auto* dnnl = new OneDnn;
    dnnl->sgemm = reinterpret_cast<OneDnn::Sgemm>(dlsym(handle, "dnnl_sgemm"));
    void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (gomp != nullptr) dnnl->set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads"));
    if (dnnl->sgemm == nullptr) {
      delete dnnl;
      return nullptr;
    }
    return dnnl;
  }();
  return loaded;
}

// dst(j, i) = src(i, j) for a rows x cols `src` (row-major, rows `src_ld` apart) into
// `dst` (row-major, rows `dst_ld` apart), in 32x32 tiles so that both sides stay in lines.
inline void TransposeInto(const float* src, int64_t rows, int64_t cols, int64_t src_ld, float* dst,
                          int64_t dst_ld) {
  constexpr int64_t kTile = 32;
  for (int64_t i0 = 0; i0 < rows; i0 += kTile) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        for (int64_t i = i0; i < i1; ++i) dst[j * dst_ld + i] = src[i * src_ld + j];
      }
    }
  }
}

// c = a * b through oneDNN's sgemm on `threads` threads; false when the library is
// missing or the views do not fit its row-major interface.
inline bool OneDnnGemm(MatView<float> a, MatView<float> b, MatView<float> c, int threads) {
  const OneDnn* dnnl = LoadOneDnn();
  if (dnnl == nullptr || c.rows == 0 || c.cols == 0 || a.cols == 0) return false;
  if (!RowMajorOk(c)) {  // a column-major result: c^T = b^T a^T is row-major
    if (!ColumnMajorOk(c)) return false;
    const MatView<float> at = Transposed(a);
    a = Transposed(b);
    b = at;
    c = Transposed(c);
  }
  // Row-major as is ('N', leading dimension = row stride), or row-major once transposed.
  auto operand = [](const MatView<float>& v, char* trans, int64_t* ld) {
    if (RowMajorOk(v)) {
      *trans = 'N';
      *ld = v.rows <= 1 ? std::max<int64_t>(v.cols, 1) : v.row_stride;
      return true;
    }
    if (ColumnMajorOk(v)) {
      *trans = 'T';
      *ld = v.cols <= 1 ? std::max<int64_t>(v.rows, 1) : v.col_stride;
      return true;
    }
    return false;
  };
  char ta, tb;
  int64_t lda, ldb;
  if (!operand(a, &ta, &lda) || !operand(b, &tb, &ldb)) return false;
  if (dnnl->set_num_threads != nullptr) dnnl->set_num_threads(std::max(1, threads));
  if (ta == 'T' && tb == 'T' && c.rows > 1 && c.cols > 1 && a.rows > 1 && b.cols > 1) {
    // Both operands transposed (attention's V^T P^T as jax writes probs x values, and its
    // gradients): oneDNN's 'T','T' kernels ran at half the speed of the others here (2x8
    // GEMMs of 64x512x512: 5.2 ms against 2.7). The smallest of the three matrices is
    // transposed through a scratch instead: an operand packed row-major ('N'), or the
    // result computed as c^T = b^T a^T with both operands as they lie ('N','N').
    const int64_t sa = a.rows * a.cols, sb = b.rows * b.cols, sc = c.rows * c.cols;
    const int64_t k = a.cols;
    std::unique_ptr<float[]> scratch(new float[static_cast<size_t>(std::min({sa, sb, sc}))]);
    if (sc <= std::min(sa, sb)) {
      if (dnnl->sgemm('N', 'N', c.cols, c.rows, k, 1.0f, b.data, ldb, a.data, lda, 0.0f, scratch.get(), c.rows) != 0) {
        return false;
      }
      const int64_t ldc = c.row_stride;
      TransposeInto(scratch.get(), c.cols, c.rows, c.rows, c.data, ldc);
      return true;
    }
    const int64_t ldc = c.row_stride;
    if (sa <= sb) {  // a^T lies row-major (k x m, rows lda apart): a row-major m x k
      TransposeInto(a.data, k, a.rows, lda, scratch.get(), k);
      return dnnl->sgemm('N', 'T', c.rows, c.cols, k, 1.0f, scratch.get(), k, b.data, ldb, 0.0f, c.data, ldc) == 0;
    }
    TransposeInto(b.data, b.cols, k, ldb, scratch.get(), b.cols);  // b^T (n x k) to b (k x n)
    return dnnl->sgemm('T', 'N', c.rows, c.cols, k, 1.0f, a.data, lda, scratch.get(), b.cols, 0.0f, c.data, ldc) == 0;
  }
  const int64_t ldc = c.rows <= 1 ? std::max<int64_t>(c.cols, 1) : c.row_stride;
  return dnnl->sgemm(ta, tb, c.rows, c.cols, a.cols, 1.0f, a.data, lda, b.data, ldb, 0.0f, c.data, ldc) == 0;
}

// c = a * b with up to `threads` threads, each computing a band of c's columns (or rows,
// whichever c has more of). Returns false when a worker ran out of memory.
// With a runner lent (the CPU executable's pool), an f32 GEMM through oneDNN is split
// into the same bands, one single-threaded sgemm each on the pool's workers, rather than
// handed to oneDNN's OpenMP threads: one set of threads, which poll between kernels,
// instead of two contending for the cores.
template <typename T>
bool GemmParallel(const MatView<T>& a, const MatView<T>& b, const MatView<T>& c, int threads) {
  const double flops =
      2.0 * static_cast<double>(c.rows) * static_cast<double>(c.cols) * static_cast<double>(a.cols);
  const int workers = ThreadsFor(flops, threads);
  const bool by_cols = c.cols >= c.rows;
  const int64_t extent = by_cols ? c.cols : c.rows;
  const bool banded = workers > 1 && extent >= 2 * workers;
  bool onednn_bands = false;
  if constexpr (std::is_same_v<T, float>) {
    onednn_bands = banded && HasParallelRunner() && LoadOneDnn() != nullptr;
    if (!onednn_bands && OneDnnGemm(a, b, c, workers)) return true;
  }
  // One band: oneDNN single-threaded where it serves the views, Eigen otherwise.
  auto band = [onednn_bands](const MatView<T>& aa, const MatView<T>& bb, const MatView<T>& cc) {
    if constexpr (std::is_same_v<T, float>) {
      if (onednn_bands && OneDnnGemm(aa, bb, cc, 1)) return;
    } else {
      (void)onednn_bands;  // captured for the float case only
    }
    Gemm(aa, bb, cc);
  };
  if (!banded) {
    try {
      Gemm(a, b, c);
    } catch (...) {
      return false;
    }
    return true;
  }
  // Bands of whole 16-element panels keep Eigen's kernels on full vectors.
  const int64_t panels = (extent + 15) / 16;
  return ParallelFor(std::min<int64_t>(panels, workers), workers, [&](int64_t w0, int64_t w1, int) {
    const int64_t pieces = std::min<int64_t>(panels, workers);
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t begin = std::min(extent, panels * w / pieces * 16);
      const int64_t end = std::min(extent, panels * (w + 1) / pieces * 16);
      if (begin >= end) continue;
      MatView<T> aa = a, bb = b, cc = c;
      if (by_cols) {
        bb.data += begin * b.col_stride;
        bb.cols = end - begin;
        cc.data += begin * c.col_stride;
        cc.cols = end - begin;
      } else {
        aa.data += begin * a.row_stride;
        aa.rows = end - begin;
        cc.data += begin * c.row_stride;
        cc.rows = end - begin;
      }
      band(aa, bb, cc);
    }
  });
}


// Calls fn(T{}) with the accumulator for the result type (see section 2).
template <typename Fn>
Status WithAccumulator(PrimitiveType type, Fn&& fn) {
  switch (type) {
    case PrimitiveType::kF64:
      return fn(double{});
    case PrimitiveType::kC64:
      return fn(CFloat{});
    case PrimitiveType::kC128:
      return fn(CDouble{});
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
    case PrimitiveType::kPred:
      return fn(uint64_t{});
    default:
      break;
  }
  if (IsInteger(type)) return fn(uint32_t{});
  return fn(float{});
}

}  // namespace fusebox::runtime::library
