// Internal to the interpreter's reduction and linear-algebra evaluators
// (ops_reduction_linalg.cc, ops_dot_conv.cc, ops_linalg.cc): errors, element copies and
// rounding, integer bits, window taps, and the evaluators the dispatcher in
// ops_reduction_linalg.cc calls in the other files. Not for use elsewhere.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/ops.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"

namespace fusebox::interpreter {
namespace reduction_linalg_internal {

using Complex = std::complex<double>;

inline std::string Str(int64_t v) { return std::to_string(v); }

inline std::string DimsToString(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + Str(dims[i]);
  return out + "]";
}

inline Status Invalid(const Instruction& inst, const std::string& message) {
  return InvalidArgument(std::string(OpcodeName(inst.opcode())) + ": " + message);
}

inline Status CheckOperandCount(const Instruction& inst, Operands operands, size_t want) {
  if (operands.size() != want) {
    return Invalid(inst, "expects " + Str(static_cast<int64_t>(want)) + " operand(s), got " +
                             Str(static_cast<int64_t>(operands.size())));
  }
  for (const Literal* op : operands) {
    if (op == nullptr || !op->shape().IsArray()) return Invalid(inst, "operands must be arrays");
  }
  return Status::Ok();
}

inline Status CheckArrayResult(const Instruction& inst, const std::vector<int64_t>& dims) {
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.dimensions() != dims) {
    return Invalid(inst, "result shape " + shape.ToString(false) +
                             " does not match the computed dimensions " + DimsToString(dims));
  }
  return Status::Ok();
}

inline int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// dst[di] = src[si]; converts when the element types differ (used where a computation's
// declared type and the operand's disagree, e.g. an init value of another width).
inline void CopyElement(const Literal& src, int64_t si, Literal& dst, int64_t di) {
  const PrimitiveType st = src.shape().element_type();
  const PrimitiveType dt = dst.shape().element_type();
  if (st == dt) {
    std::memcpy(dst.untyped_data() + di * dst.slot_bytes(),
                src.untyped_data() + si * src.slot_bytes(), static_cast<size_t>(src.slot_bytes()));
  } else if (IsComplex(dt) || IsComplex(st)) {
    dst.SetComplex(di, src.GetComplex(si));
  } else if (IsFloat(dt)) {
    dst.SetDouble(di, src.GetDouble(si));
  } else if (IsPred(dt)) {
    dst.SetBool(di, src.GetBool(si));
  } else if (IsUnsignedInt(st)) {
    dst.SetUint64(di, src.GetUint64(si));
  } else {
    dst.SetInt64(di, src.GetInt64(si));
  }
}

// The value `v` rounded to the real float type `type` (round to nearest even).
inline double RoundToType(PrimitiveType type, double v) {
  if (type == PrimitiveType::kF64) return v;
  if (type == PrimitiveType::kF32) return static_cast<double>(static_cast<float>(v));
  return FloatBitsToDouble(type, DoubleToFloatBits(type, v));
}

inline uint64_t LoadIntBits(const Literal& lit, int64_t i) {
  return IsSignedInt(lit.shape().element_type()) ? static_cast<uint64_t>(lit.GetInt64(i))
                                                 : lit.GetUint64(i);
}

inline void StoreIntBits(Literal& lit, int64_t i, uint64_t v) {
  const PrimitiveType t = lit.shape().element_type();
  if (IsPred(t)) {
    lit.SetBool(i, v != 0);
  } else if (IsSignedInt(t)) {
    lit.SetInt64(i, static_cast<int64_t>(v));
  } else {
    lit.SetUint64(i, v);
  }
}

// --- Windows (reduce-window, select-and-scatter, convolution) ---

// Size of the windowed output along one dimension (XLA's shape inference): the input
// dilated by base_dilation and padded, the window dilated by window_dilation.
inline int64_t WindowedOutputSize(int64_t in_size, const WindowDimension& w) {
  const int64_t dilated_in = in_size == 0 ? 0 : (in_size - 1) * w.base_dilation + 1;
  const int64_t padded = dilated_in + w.padding_low + w.padding_high;
  const int64_t dilated_window = w.size == 0 ? 0 : (w.size - 1) * w.window_dilation + 1;
  if (w.stride <= 0 || padded < dilated_window) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

inline Status CheckWindow(const Instruction& inst, int64_t rank,
                          std::vector<WindowDimension>* dims) {
  const auto& window = inst.attrs().window;
  if (!window) {
    if (rank != 0) return Invalid(inst, "missing window attribute");
    dims->clear();
    return Status::Ok();
  }
  if (static_cast<int64_t>(window->dimensions.size()) != rank) {
    return Invalid(inst, "window has " + Str(window->dimensions.size()) +
                             " dimension(s) but the operand has rank " + Str(rank));
  }
  for (const WindowDimension& w : window->dimensions) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) {
      return Invalid(inst, "window sizes must be >= 0 and strides and dilations >= 1");
    }
  }
  *dims = window->dimensions;
  return Status::Ok();
}

// The taps of one window dimension at output position `out` that land on a real input
// element, in ascending tap order: input offsets (coordinate * in_stride) and `aux`
// offsets (the tap, possibly reversed, times aux_stride; the kernel offset for
// convolution). Taps in padding or in base-dilation holes are left out.
struct TapList {
  std::vector<int64_t> in_offset;
  std::vector<int64_t> aux_offset;
};

// `zero_aux`, when given, gets the aux offsets of the taps that fall in padding or in a
// hole of the base dilation (a convolution multiplies the zeros there).
inline void ComputeTaps(const WindowDimension& w, int64_t out, int64_t in_size, int64_t in_stride,
                        int64_t aux_stride, TapList* taps, std::vector<int64_t>* zero_aux = nullptr) {
  taps->in_offset.clear();
  taps->aux_offset.clear();
  if (zero_aux != nullptr) zero_aux->clear();
  for (int64_t k = 0; k < w.size; ++k) {
    int64_t pos = out * w.stride - w.padding_low + k * w.window_dilation;
    const int64_t kernel_tap = w.window_reversal ? w.size - 1 - k : k;
    bool inside = true;
    if (w.base_dilation > 1) {
      inside = pos % w.base_dilation == 0;
      pos /= w.base_dilation;
    }
    inside = inside && pos >= 0 && pos < in_size;
    if (!inside) {
      if (zero_aux != nullptr) zero_aux->push_back(kernel_tap * aux_stride);
      continue;
    }
    taps->in_offset.push_back(pos * in_stride);
    taps->aux_offset.push_back(kernel_tap * aux_stride);
  }
}

// Calls fn(in_offset_sum, aux_offset_sum) for every combination of taps, in row-major
// order of the window (the last dimension fastest). No dimensions: one call with zeros.
template <typename Fn>
void ForEachTap(const std::vector<TapList>& taps, std::vector<int64_t>* pick,
                std::vector<int64_t>* sizes, Fn&& fn) {
  const size_t rank = taps.size();
  sizes->resize(rank);
  pick->assign(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    (*sizes)[d] = static_cast<int64_t>(taps[d].in_offset.size());
    if ((*sizes)[d] == 0) return;
  }
  do {
    int64_t in = 0;
    int64_t aux = 0;
    for (size_t d = 0; d < rank; ++d) {
      in += taps[d].in_offset[(*pick)[d]];
      aux += taps[d].aux_offset[(*pick)[d]];
    }
    fn(in, aux);
  } while (NextIndex(pick, *sizes));
}

// --- The evaluators of ops_dot_conv.cc and ops_linalg.cc ---

StatusOr<Literal> EvalDot(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalRaggedDot(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalConvolution(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalCholesky(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalTriangularSolve(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalFft(const Instruction& inst, Operands operands, EvalContext& ctx);
StatusOr<Literal> EvalBatchNormInference(const Instruction& inst, Operands operands);
StatusOr<Literal> EvalBatchNormTraining(const Instruction& inst, Operands operands);
StatusOr<Literal> EvalBatchNormGrad(const Instruction& inst, Operands operands);

}  // namespace reduction_linalg_internal
}  // namespace fusebox::interpreter
