// Shape inference for elementwise ops: unary and binary ops, compare, select, clamp,
// conversions.
#include <algorithm>
#include <set>

#include "compiler/support/strings.h"
#include "compiler/verifier/shape_inference.h"
#include "compiler/verifier/shape_inference_internal.h"

namespace fusebox::shape_inference_internal {

StatusOr<Shape> InferUnary(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 1));
  const Shape& x = OperandShape(ins, 0);
  const Opcode op = ins.opcode();
  if (op == Opcode::kCopy) return NoLayout(x);
  RETURN_IF_ERROR(ExpectArray(x, "the operand"));
  const PrimitiveType t = x.element_type();
  auto bad = [&](std::string_view want) {
    return Invalid(OpcodeName(op), " expects ", want, " operand, got ", Str(x));
  };
  switch (op) {
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
      if (!IsFloat(t)) return bad("a floating-point");
      return NoLayout(x);
    case Opcode::kReducePrecision:
      if (!IsFloat(t)) return bad("a floating-point");
      if (ins.attrs().exponent_bits < 1 || ins.attrs().mantissa_bits < 0) {
        return Invalid("reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got ",
                       ins.attrs().exponent_bits, " and ", ins.attrs().mantissa_bits);
      }
      return NoLayout(x);
    case Opcode::kIsFinite:
      if (!IsFloat(t)) return bad("a floating-point");
      return WithType(x, PrimitiveType::kPred);
    case Opcode::kReal:
    case Opcode::kImag:
      if (IsComplex(t)) return WithType(x, ComplexComponentType(t));
      if (!IsFloat(t)) return bad("a floating-point or complex");
      return NoLayout(x);
    case Opcode::kAbs:
      if (IsComplex(t)) return WithType(x, ComplexComponentType(t));
      if (!IsFloat(t) && !IsSignedInt(t)) return bad("a signed or floating-point or complex");
      return NoLayout(x);
    case Opcode::kSign:
      if (!IsFloat(t) && !IsSignedInt(t) && !IsComplex(t)) {
        return bad("a signed or floating-point or complex");
      }
      return NoLayout(x);
    case Opcode::kNegate:
      if (IsPred(t)) return bad("a numeric");
      return NoLayout(x);
    case Opcode::kClz:
    case Opcode::kPopulationCount:
      if (!IsInteger(t)) return bad("an integer");
      return NoLayout(x);
    case Opcode::kNot:
      if (!IsInteger(t) && !IsPred(t)) return bad("a pred or integer");
      return NoLayout(x);
    case Opcode::kConvert: {
      if (!ins.shape().IsArray()) {
        return Invalid("convert must produce an array, declared ", Str(ins.shape()));
      }
      return WithType(x, ins.shape().element_type());
    }
    case Opcode::kBitcastConvert: {
      if (!ins.shape().IsArray()) {
        return Invalid("bitcast-convert must produce an array, declared ", Str(ins.shape()));
      }
      const PrimitiveType out_type = ins.shape().element_type();
      const int in_bits = BitWidth(t), out_bits = BitWidth(out_type);
      Shape out = WithType(x, out_type);
      if (in_bits == out_bits) return out;
      if (in_bits > out_bits) {
        // Each input element becomes in/out output elements along a new minor dimension.
        out.add_dimension(in_bits / out_bits);
        return out;
      }
      // Narrow to wide: the last input dimension holds the pieces of one output element.
      if (x.rank() == 0 || x.dimensions(x.rank() - 1) != out_bits / in_bits) {
        return Invalid("bitcast-convert from ", Str(x), " to ", TypeName(out_type),
                       " needs a last dimension of ", out_bits / in_bits);
      }
      std::vector<int64_t> dims(x.dimensions().begin(), x.dimensions().end() - 1);
      return Shape(out_type, dims);
    }
    case Opcode::kCos:
    case Opcode::kSin:
    case Opcode::kTan:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kRsqrt:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kTanh:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCosh:
    case Opcode::kSinh:
    case Opcode::kErf:
      if (!IsFloat(t) && !IsComplex(t)) return bad("a floating-point or complex");
      return NoLayout(x);
    default:
      return NotInferable("no unary rule for ", OpcodeName(op));
  }
}

StatusOr<Shape> InferBinary(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 2));
  const Shape& a = OperandShape(ins, 0);
  const Shape& b = OperandShape(ins, 1);
  const Opcode op = ins.opcode();
  RETURN_IF_ERROR(ExpectArray(a, "the lhs"));
  RETURN_IF_ERROR(ExpectArray(b, "the rhs"));
  if (!SameDims(a, b)) {
    return Invalid(OpcodeName(op), " operands have different dimensions: ", Str(a), " and ", Str(b),
                   " (HLO has no implicit broadcasting)");
  }
  const PrimitiveType t = a.element_type();
  if (op == Opcode::kStochasticConvert) {
    if (!IsFloat(t))
      return Invalid("stochastic-convert expects a floating-point operand, got ", Str(a));
    if (!IsUnsignedInt(b.element_type()) || BitWidth(b.element_type()) != BitWidth(t)) {
      return Invalid("stochastic-convert random bits must be unsigned of the operand's width, got ",
                     Str(b), " for ", Str(a));
    }
    return WithType(a, DeclaredElementType(ins, t));
  }
  if (t != b.element_type()) {
    return Invalid(OpcodeName(op), " operands have different element types: ", Str(a), " and ",
                   Str(b));
  }
  auto bad = [&](std::string_view want) {
    return Invalid(OpcodeName(op), " expects ", want, " operands, got ", Str(a));
  };
  switch (op) {
    case Opcode::kCompare:
      return WithType(a, PrimitiveType::kPred);
    case Opcode::kComplex:
      if (t == PrimitiveType::kF32) return WithType(a, PrimitiveType::kC64);
      if (t == PrimitiveType::kF64) return WithType(a, PrimitiveType::kC128);
      return bad("f32 or f64");
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (!IsPred(t) && !IsInteger(t)) return bad("pred or integer");
      return NoLayout(a);
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kMulhi:
      if (!IsInteger(t)) return bad("integer");
      return NoLayout(a);
    case Opcode::kAtan2:
      if (!IsFloat(t) && !IsComplex(t)) return bad("floating-point or complex");
      return NoLayout(a);
    default:
      return NoLayout(a);
  }
}

StatusOr<Shape> InferSelect(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 3));
  const Shape& pred = OperandShape(ins, 0);
  const Shape& on_true = OperandShape(ins, 1);
  const Shape& on_false = OperandShape(ins, 2);
  RETURN_IF_ERROR(ExpectArray(pred, "the select predicate"));
  RETURN_IF_ERROR(ExpectArray(on_true, "select's on_true"));
  RETURN_IF_ERROR(ExpectArray(on_false, "select's on_false"));
  if (pred.element_type() != PrimitiveType::kPred) {
    return Invalid("select predicate must have element type pred, got ", Str(pred));
  }
  if (!ShapesAgree(on_true, on_false)) {
    return Invalid("select branches differ: ", Str(on_true), " and ", Str(on_false));
  }
  if (!pred.IsScalar() && !SameDims(pred, on_true)) {
    return Invalid("select predicate ", Str(pred), " must be a scalar or match ", Str(on_true));
  }
  return NoLayout(on_true);
}

StatusOr<Shape> InferClamp(const Instruction& ins) {
  RETURN_IF_ERROR(ExpectOperandCount(ins, 3));
  const Shape& lo = OperandShape(ins, 0);
  const Shape& x = OperandShape(ins, 1);
  const Shape& hi = OperandShape(ins, 2);
  RETURN_IF_ERROR(ExpectArray(lo, "clamp's min"));
  RETURN_IF_ERROR(ExpectArray(x, "clamp's operand"));
  RETURN_IF_ERROR(ExpectArray(hi, "clamp's max"));
  for (const Shape* bound : {&lo, &hi}) {
    if (bound->element_type() != x.element_type()) {
      return Invalid("clamp bound ", Str(*bound), " has a different element type than ", Str(x));
    }
    if (!bound->IsScalar() && !SameDims(*bound, x)) {
      return Invalid("clamp bound ", Str(*bound), " must be a scalar or match ", Str(x));
    }
  }
  return NoLayout(x);
}

}  // namespace fusebox::shape_inference_internal
