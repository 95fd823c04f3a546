// Shape inference for linear algebra, fft, batch norm and topk.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferTriangularSolve(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& a = OperandShape(ins, 0);
  const Shape& b = OperandShape(ins, 1);
  RETURN_IF_ERROR(ExpectArray(a, "triangular-solve a"));
  RETURN_IF_ERROR(ExpectArray(b, "triangular-solve b"));
  if (a.element_type() != b.element_type() ||
      (!IsFloat(a.element_type()) && !IsComplex(a.element_type()))) {
    return Invalid("triangular-solve expects floating-point or complex a and b of one type, got ",
                   Str(a), " and ", Str(b));
  }
  if (a.rank() < 2 || b.rank() != a.rank()) {
    return Invalid("triangular-solve expects a and b of equal rank >= 2, got ", Str(a), " and ",
                   Str(b));
  }
  const int64_t r = a.rank();
  if (a.dimensions(r - 1) != a.dimensions(r - 2)) {
    return Invalid("triangular-solve a must be square in its two minor dimensions, got ", Str(a));
  }
  for (int64_t i = 0; i < r - 2; ++i) {
    if (a.dimensions(i) != b.dimensions(i)) {
      return Invalid("triangular-solve batch dimensions differ: ", Str(a), " and ", Str(b));
    }
  }
  const bool left = ins.attrs().left_side.value_or(false);
  const int64_t bd = left ? b.dimensions(r - 2) : b.dimensions(r - 1);
  if (bd != a.dimensions(r - 1)) {
    return Invalid("triangular-solve b ", Str(b), " does not match a ", Str(a),
                   " for left_side=", left ? "true" : "false");
  }
  return NoLayout(b);
}

StatusOr<Shape> InferCholesky(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& a = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(a, "the cholesky operand"));
  if (!IsFloat(a.element_type()) && !IsComplex(a.element_type())) {
    return Invalid("cholesky expects a floating-point or complex operand, got ", Str(a));
  }
  if (a.rank() < 2 || a.dimensions(a.rank() - 1) != a.dimensions(a.rank() - 2)) {
    return Invalid("cholesky expects square matrices in the two minor dimensions, got ", Str(a));
  }
  return NoLayout(a);
}

StatusOr<Shape> InferFft(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the fft operand"));
  const auto& a = ins.attrs();
  const std::vector<int64_t>& len = a.fft_length;
  const int64_t n = static_cast<int64_t>(len.size());
  if (n < 1 || n > 3 || x.rank() < n) {
    return Invalid("fft_length=", DimList(len), " must have 1 to 3 entries, at most the rank of ",
                   Str(x));
  }
  const FftType type = a.fft_type.value_or(FftType::kFft);
  const PrimitiveType t = x.element_type();
  auto check_dims = [&](int64_t count) -> Status {
    for (int64_t i = 0; i < count; ++i) {
      if (x.dimensions(x.rank() - n + i) != len[i]) {
        return Invalid("fft operand ", Str(x), " does not end in fft_length=", DimList(len));
      }
    }
    return Status::Ok();
  };
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft:
      if (!IsComplex(t)) return Invalid("FFT/IFFT expects a complex operand, got ", Str(x));
      RETURN_IF_ERROR(check_dims(n));
      return NoLayout(x);
    case FftType::kRfft: {
      if (t != PrimitiveType::kF32 && t != PrimitiveType::kF64) {
        return Invalid("RFFT expects an f32 or f64 operand, got ", Str(x));
      }
      RETURN_IF_ERROR(check_dims(n));
      Shape out =
          WithType(x, t == PrimitiveType::kF32 ? PrimitiveType::kC64 : PrimitiveType::kC128);
      out.set_dimension(x.rank() - 1, len[n - 1] == 0 ? 0 : len[n - 1] / 2 + 1);
      return out;
    }
    case FftType::kIrfft: {
      if (!IsComplex(t)) return Invalid("IRFFT expects a complex operand, got ", Str(x));
      RETURN_IF_ERROR(check_dims(n - 1));
      const int64_t want = len[n - 1] == 0 ? 0 : len[n - 1] / 2 + 1;
      if (x.dimensions(x.rank() - 1) != want) {
        return Invalid("IRFFT operand ", Str(x), " must have ", want,
                       " elements in its last dimension for fft_length=", DimList(len));
      }
      Shape out = WithType(x, ComplexComponentType(t));
      out.set_dimension(x.rank() - 1, len[n - 1]);
      return out;
    }
  }
  return NotInferable("unknown fft type");
}

StatusOr<Shape> InferBatchNorm(const Instruction& ins) {
  const Opcode op = ins.opcode();
  const int64_t want = op == Opcode::kBatchNormTraining ? 3 : 5;
  RETURN_IF_ERROR(ExpectOperandCount(ins, want));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the batch-norm operand"));
  if (!IsFloat(x.element_type())) {
    return Invalid(OpcodeName(op), " expects a floating-point operand, got ", Str(x));
  }
  const int64_t f = ins.attrs().feature_index;
  if (f < 0 || f >= x.rank()) {
    return Invalid(OpcodeName(op), " feature_index=", f, " is out of range for ", Str(x));
  }
  const Shape feature(x.element_type(), {x.dimensions(f)});
  // batch-norm-grad's last operand is the output gradient, shaped like the operand.
  for (int64_t i = 1; i < want; ++i) {
    const Shape& s = OperandShape(ins, i);
    const bool full = op == Opcode::kBatchNormGrad && i == 4;
    const Shape& expected = full ? x : feature;
    if (!ShapesAgree(s, expected)) {
      return Invalid(OpcodeName(op), " operand ", i, " is ", Str(s), " but must be ",
                     Str(expected));
    }
  }
  if (op == Opcode::kBatchNormInference) return NoLayout(x);
  return Shape::Tuple({NoLayout(x), feature, feature});
}

StatusOr<Shape> InferTopK(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  RETURN_IF_ERROR(ExpectArray(x, "the topk operand"));
  if (x.rank() < 1) return Invalid("topk needs an operand of rank >= 1, got ", Str(x));
  const int64_t k = ins.attrs().k;
  if (k < 0 || k > x.dimensions(x.rank() - 1)) {
    return Invalid("topk k=", k, " is out of range for ", Str(x));
  }
  Shape values = NoLayout(x);
  values.set_dimension(x.rank() - 1, k);
  return Shape::Tuple({values, WithType(values, PrimitiveType::kS32)});
}

}  // namespace fusebox::shape_inference_internal
