// The elemental emitter's elementwise arithmetic: select and clamp, unary and binary
// ops with the interpreter's semantics (integer division by zero, NaN-propagating
// max/min, shifts past the width), compares, conversions, bitcast-convert and
// reduce-precision.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "compiler/codegen/elemental_emitter_internal.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::codegen {

using elemental::IsNarrowFloat;

llvm::Value* ElementalEmitter::EmitSelect(const Instruction* inst, const IrIndex& index) {
  auto operand_at = [&](int64_t i) { return Emit(inst->operand(i), index); };
  llvm::Value* pred = inst->operand(0)->shape().IsScalar() && !inst->shape().IsScalar()
                          ? Emit(inst->operand(0), {})
                          : operand_at(0);
  if (BugPlanted(PlantedBug::kSelectOperandsSwapped)) return b_.CreateSelect(pred, operand_at(2), operand_at(1));
  return b_.CreateSelect(pred, operand_at(1), operand_at(2));
}

llvm::Value* ElementalEmitter::EmitClamp(const Instruction* inst, const IrIndex& index) {
  const Shape& shape = inst->shape();
  auto at = [&](int64_t i) {
    return inst->operand(i)->shape().IsScalar() && !shape.IsScalar() ? Emit(inst->operand(i), {})
                                                                      : Emit(inst->operand(i), index);
  };
  llvm::Value* lo = at(0);
  llvm::Value* x = at(1);
  llvm::Value* hi = at(2);
  PrimitiveType type = shape.element_type();
  llvm::Value* m = EmitBinary(inst, Opcode::kMaximum, type, x, lo);
  llvm::Value* r = EmitBinary(inst, Opcode::kMinimum, type, m, hi);
  if (IsFloat(type)) {
    // A NaN in lo, x or hi (checked in that order) is the result.
    r = b_.CreateSelect(b_.CreateFCmpUNO(hi, hi), hi, r);
    r = b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
    r = b_.CreateSelect(b_.CreateFCmpUNO(lo, lo), lo, r);
  }
  return r;
}

llvm::Value* ElementalEmitter::EmitElementwise(const Instruction* inst, const IrIndex& index) {
  const Shape& shape = inst->shape();
  const Opcode op = inst->opcode();
  auto operand_at = [&](int64_t i) { return Emit(inst->operand(i), index); };
  if (inst->operand_count() == 1 && IsArrayType(shape.element_type())) {
    switch (op) {
      case Opcode::kAbs: case Opcode::kNegate: case Opcode::kSign: case Opcode::kNot:
      case Opcode::kPopulationCount: case Opcode::kClz: case Opcode::kIsFinite:
      case Opcode::kExp: case Opcode::kExpm1: case Opcode::kLog: case Opcode::kLog1p:
      case Opcode::kLogistic: case Opcode::kSqrt: case Opcode::kRsqrt: case Opcode::kCbrt:
      case Opcode::kSin: case Opcode::kCos: case Opcode::kTan: case Opcode::kTanh:
      case Opcode::kSinh: case Opcode::kCosh: case Opcode::kAsin: case Opcode::kAcos:
      case Opcode::kAtan: case Opcode::kAsinh: case Opcode::kAcosh: case Opcode::kAtanh:
      case Opcode::kErf: case Opcode::kFloor: case Opcode::kCeil:
      case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven:
      case Opcode::kReal: case Opcode::kImag:
        return EmitUnary(inst, operand_at(0));
      default:
        break;
    }
  }
  if (inst->operand_count() == 2) {
    switch (op) {
      case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
      case Opcode::kRemainder: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kPower:
      case Opcode::kAtan2: case Opcode::kAnd: case Opcode::kOr: case Opcode::kXor:
      case Opcode::kShiftLeft: case Opcode::kShiftRightLogical:
      case Opcode::kShiftRightArithmetic: case Opcode::kMulhi: case Opcode::kComplex:
        return EmitBinary(inst, op, shape.element_type(), operand_at(0), operand_at(1));
      default:
        break;
    }
  }
  return Fail(inst, "no emitter for this op (the CPU and GPU backends share it)");
}

// reduce-precision on the register's bits (f32 for f32 and the narrow floats, f64 for
// f64), as the interpreter does it: round to nearest even at `mantissa_bits`, flush what
// falls below the reduced normal range to a signed zero, send what lies above it to a
// signed infinity; NaN stays NaN, or becomes infinity when no mantissa bits remain.
llvm::Value* ElementalEmitter::EmitReducePrecision(const Instruction* inst, llvm::Value* x) {
  const PrimitiveType type = inst->shape().element_type();
  const int64_t exponent_bits = inst->attrs().exponent_bits;
  const int64_t mantissa_bits = inst->attrs().mantissa_bits;
  if (!IsFloat(type) || IsComplex(type)) return Fail(inst, "reduce-precision needs a real floating-point operand");
  if (exponent_bits < 1 || mantissa_bits < 0) {
    return Fail(inst, "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  llvm::Type* float_type = x->getType();
  const bool is_double = float_type->isDoubleTy();
  const int width = is_double ? 64 : 32;
  const int src_mantissa = is_double ? 52 : 23;
  const int src_exponent = width - src_mantissa - 1;
  llvm::Type* int_type = b_.getIntNTy(static_cast<unsigned>(width));
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(int_type, v); };
  llvm::Value* bits = b_.CreateBitCast(x, int_type);
  if (mantissa_bits < src_mantissa) {
    const uint64_t last_kept = uint64_t{1} << (src_mantissa - mantissa_bits);
    llvm::Value* odd = b_.CreateZExt(b_.CreateICmpNE(b_.CreateAnd(bits, c(last_kept)), c(0)), int_type);
    llvm::Value* bias = b_.CreateAdd(c((last_kept >> 1) - 1), odd);
    bits = b_.CreateAnd(b_.CreateAdd(bits, bias), c(~(last_kept - 1)));
  }
  if (exponent_bits < src_exponent) {
    const uint64_t sign_mask = uint64_t{1} << (width - 1);
    const uint64_t exponent_mask = ((uint64_t{1} << src_exponent) - 1) << src_mantissa;
    const uint64_t bias = (uint64_t{1} << (src_exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    const uint64_t max_exponent = (bias + reduced_bias) << src_mantissa;
    const uint64_t min_exponent = (bias - reduced_bias) << src_mantissa;
    llvm::Value* exponent = b_.CreateAnd(bits, c(exponent_mask));
    llvm::Value* sign = b_.CreateAnd(bits, c(sign_mask));
    llvm::Value* overflow = b_.CreateICmpUGT(exponent, c(max_exponent));
    llvm::Value* underflow = b_.CreateICmpULE(exponent, c(min_exponent));
    bits = b_.CreateSelect(overflow, b_.CreateOr(sign, c(exponent_mask)), b_.CreateSelect(underflow, sign, bits));
  }
  llvm::Value* reduced = b_.CreateBitCast(bits, float_type);
  llvm::Value* nan_result = mantissa_bits > 0 ? x : llvm::ConstantFP::getInfinity(float_type);
  return RoundToType(type, b_.CreateSelect(b_.CreateFCmpUNO(x, x), nan_result, reduced));
}

llvm::Value* ElementalEmitter::EmitUnary(const Instruction* inst, llvm::Value* x) {
  const PrimitiveType type = inst->operand(0)->shape().element_type();
  const PrimitiveType out_type = inst->shape().element_type();
  if (IsComplex(type)) return EmitComplexUnary(inst, x);
  const bool is_float = IsFloat(type);
  const bool is_signed = IsSignedInt(type);
  const int width = BitWidth(type);
  switch (inst->opcode()) {
    case Opcode::kAbs:
      if (is_float) return Intrinsic(llvm::Intrinsic::fabs, type, {x});
      if (is_signed) return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)), b_.CreateNeg(x), x);
      if (IsUnsignedInt(type)) return x;
      break;
    case Opcode::kNegate:
      if (is_float) return RoundToType(type, b_.CreateFNeg(x));
      if (IsInteger(type)) return b_.CreateNeg(x);
      break;
    case Opcode::kSign:
      if (is_float) {
        llvm::Value* zero = llvm::ConstantFP::get(x->getType(), 0.0);
        llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
        llvm::Value* nonzero = b_.CreateFCmpUNE(x, zero);
        llvm::Value* magnitude = b_.CreateSelect(nonzero, one, zero);
        llvm::Value* r = b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, x);
        return RoundToType(type, b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r));
      }
      if (is_signed) {
        llvm::Value* zero = llvm::ConstantInt::get(x->getType(), 0);
        llvm::Value* pos = b_.CreateZExt(b_.CreateICmpSGT(x, zero), x->getType());
        llvm::Value* neg = b_.CreateZExt(b_.CreateICmpSLT(x, zero), x->getType());
        return b_.CreateSub(pos, neg);
      }
      if (IsUnsignedInt(type)) return b_.CreateZExt(b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0)), x->getType());
      break;
    case Opcode::kNot:
      if (type == PrimitiveType::kPred || IsInteger(type)) return b_.CreateNot(x);
      break;
    case Opcode::kPopulationCount:
      if (IsInteger(type)) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
      break;
    case Opcode::kClz:
      if (IsInteger(type)) {
        llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::ctlz, {x->getType()});
        return b_.CreateCall(f, {x, b_.getFalse()});
      }
      break;
    case Opcode::kIsFinite:
      if (is_float) {
        llvm::Value* a = b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
        return b_.CreateFCmpONE(a, llvm::ConstantFP::getInfinity(x->getType()));
      }
      break;
    case Opcode::kReal:
      if (is_float) return x;
      break;
    case Opcode::kImag:
      if (is_float) return RoundToType(type, llvm::ConstantFP::get(x->getType(), 0.0));
      break;
    default:
      break;
  }
  (void)width;
  (void)out_type;
  if (!is_float) return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
  if (llvm::Value* inline_math = InlineF32Math(inst->opcode(), type, x)) return inline_math;
  switch (inst->opcode()) {
    case Opcode::kExp: return RoundToType(type, Exp(x));
    case Opcode::kLog: return Intrinsic(llvm::Intrinsic::log, type, {x});
    case Opcode::kSqrt: return Intrinsic(llvm::Intrinsic::sqrt, type, {x});
    case Opcode::kFloor: return Intrinsic(llvm::Intrinsic::floor, type, {x});
    case Opcode::kCeil: return Intrinsic(llvm::Intrinsic::ceil, type, {x});
    case Opcode::kRoundNearestAfz: return Intrinsic(llvm::Intrinsic::round, type, {x});
    case Opcode::kRoundNearestEven: return Intrinsic(llvm::Intrinsic::roundeven, type, {x});
    case Opcode::kSin: return Intrinsic(llvm::Intrinsic::sin, type, {x});
    case Opcode::kCos: return Intrinsic(llvm::Intrinsic::cos, type, {x});
    case Opcode::kRsqrt: {
      llvm::Value* s = b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);
      return RoundToType(type, b_.CreateFDiv(llvm::ConstantFP::get(x->getType(), 1.0), s));
    }
    case Opcode::kLogistic: {
      // e = e^-|x| never overflows: 1 / (1 + e) for x >= 0 and e / (1 + e) for x < 0, so
      // results below x = -88.7 keep their subnormal values (1 / (1 + e^-x) gave 0 there).
      llvm::Value* e = Exp(b_.CreateFNeg(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
      llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
      llvm::Value* negative = b_.CreateFCmpOLT(x, llvm::ConstantFP::get(x->getType(), 0.0));
      return RoundToType(type, b_.CreateFDiv(b_.CreateSelect(negative, e, one), b_.CreateFAdd(one, e)));
    }
    case Opcode::kExpm1: return CallLibm("expm1", type, {x});
    case Opcode::kLog1p: return CallLibm("log1p", type, {x});
    case Opcode::kCbrt: return CallLibm("cbrt", type, {x});
    case Opcode::kTan: return CallLibm("tan", type, {x});
    case Opcode::kTanh: return CallLibm("tanh", type, {x});
    case Opcode::kSinh: return CallLibm("sinh", type, {x});
    case Opcode::kCosh: return CallLibm("cosh", type, {x});
    case Opcode::kAsin: return CallLibm("asin", type, {x});
    case Opcode::kAcos: return CallLibm("acos", type, {x});
    case Opcode::kAtan: return CallLibm("atan", type, {x});
    case Opcode::kAsinh: return CallLibm("asinh", type, {x});
    case Opcode::kAcosh: return CallLibm("acosh", type, {x});
    case Opcode::kAtanh: return CallLibm("atanh", type, {x});
    case Opcode::kErf: return CallLibm("erf", type, {x});
    default:
      break;
  }
  return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
}

llvm::Value* ElementalEmitter::EmitBinary(const Instruction* inst, Opcode opcode, PrimitiveType type,
                                          llvm::Value* x, llvm::Value* y) {
  if (IsComplex(type)) return EmitComplexBinary(inst, opcode, type, x, y);
  const bool is_float = IsFloat(type);
  const bool is_signed = IsSignedInt(type);
  const bool is_pred = type == PrimitiveType::kPred;
  const bool is_int = IsInteger(type);
  llvm::Type* t = x->getType();
  auto zero = [&] { return llvm::ConstantInt::get(t, 0); };
  switch (opcode) {
    case Opcode::kAdd:
      if (is_float) return RoundToType(type, b_.CreateFAdd(x, y));
      if (is_pred) return b_.CreateOr(x, y);
      if (is_int) return b_.CreateAdd(x, y);
      break;
    case Opcode::kSubtract:
      if (is_float && BugPlanted(PlantedBug::kSubtractOperandsSwapped)) return RoundToType(type, b_.CreateFSub(y, x));
      if (is_float) return RoundToType(type, b_.CreateFSub(x, y));
      if (is_int) return b_.CreateSub(x, y);
      break;
    case Opcode::kMultiply:
      if (is_float) return RoundToType(type, b_.CreateFMul(x, y));
      if (is_pred) return b_.CreateAnd(x, y);
      if (is_int) return b_.CreateMul(x, y);
      break;
    case Opcode::kDivide:
      if (is_float && BugPlanted(PlantedBug::kDivideOperandsSwapped)) return RoundToType(type, b_.CreateFDiv(y, x));
      if (is_float) return RoundToType(type, b_.CreateFDiv(x, y));
      if (is_int) return EmitIntegerDivide(is_signed, x, y);
      break;
    case Opcode::kRemainder:
      if (is_float) return RoundToType(type, b_.CreateFRem(x, y));
      if (is_int) return EmitIntegerRemainder(is_signed, x, y);
      break;
    case Opcode::kMaximum:
    case Opcode::kMinimum: {
      const bool max = opcode == Opcode::kMaximum;
      if (is_float && max && BugPlanted(PlantedBug::kMaximumEmittedAsMinimum)) {
        return b_.CreateBinaryIntrinsic(llvm::Intrinsic::minimum, x, y);
      }
      if (is_float) {
        // A NaN operand wins (XLA's semantics). LLVM's maximum/minimum intrinsics say so
        // too, and the vectorizer turns loops of them into vector max/min and
        // reductions of them into vector reductions (select chains it cannot).
        return b_.CreateBinaryIntrinsic(max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, x, y);
      }
      if (is_pred || IsUnsignedInt(type)) {
        llvm::Value* pick_y = max ? b_.CreateICmpULT(x, y) : b_.CreateICmpULT(y, x);
        return b_.CreateSelect(pick_y, y, x);
      }
      if (is_signed) {
        llvm::Value* pick_y = max ? b_.CreateICmpSLT(x, y) : b_.CreateICmpSLT(y, x);
        return b_.CreateSelect(pick_y, y, x);
      }
      break;
    }
    case Opcode::kPower:
      if (is_float) {
        if (llvm::Value* inline_math = InlineF32Math(opcode, type, x, y)) return inline_math;
        llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
        llvm::Value* p = b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
        llvm::Value* trivial = b_.CreateOr(b_.CreateFCmpOEQ(x, one), b_.CreateFCmpOEQ(y, llvm::ConstantFP::get(t, 0.0)));
        return RoundToType(type, b_.CreateSelect(trivial, one, p));
      }
      if (is_pred) return b_.CreateOr(x, b_.CreateNot(y));
      if (is_int) return EmitIntegerPower(is_signed, x, y);
      break;
    case Opcode::kAtan2:
      if (is_float) {
        if (llvm::Value* inline_math = InlineF32Math(opcode, type, x, y)) return inline_math;
        return CallLibm("atan2", type, {x, y});
      }
      break;
    case Opcode::kAnd:
      if (is_pred || is_int) return b_.CreateAnd(x, y);
      break;
    case Opcode::kOr:
      if (is_pred || is_int) return b_.CreateOr(x, y);
      break;
    case Opcode::kXor:
      if (is_pred || is_int) return b_.CreateXor(x, y);
      break;
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic:
      if (is_int) {
        llvm::Value* width = llvm::ConstantInt::get(t, t->getIntegerBitWidth());
        llvm::Value* too_far = b_.CreateICmpUGE(y, width);
        llvm::Value* safe = b_.CreateSelect(too_far, zero(), y);
        if (opcode == Opcode::kShiftLeft) return b_.CreateSelect(too_far, zero(), b_.CreateShl(x, safe));
        if (opcode == Opcode::kShiftRightLogical) return b_.CreateSelect(too_far, zero(), b_.CreateLShr(x, safe));
        llvm::Value* sign = b_.CreateAShr(x, llvm::ConstantInt::get(t, t->getIntegerBitWidth() - 1));
        return b_.CreateSelect(too_far, sign, b_.CreateAShr(x, safe));
      }
      break;
    case Opcode::kMulhi:
      if (is_int) {
        unsigned w = t->getIntegerBitWidth();
        llvm::Type* wide = b_.getIntNTy(2 * w);
        llvm::Value* xw = is_signed ? b_.CreateSExt(x, wide) : b_.CreateZExt(x, wide);
        llvm::Value* yw = is_signed ? b_.CreateSExt(y, wide) : b_.CreateZExt(y, wide);
        return b_.CreateTrunc(b_.CreateLShr(b_.CreateMul(xw, yw), w), t);
      }
      break;
    default:
      break;
  }
  return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
}

// Integer x / y with the interpreter's answers where C++ has none: x / 0 = -1 and,
// signed, x / -1 = -x.
llvm::Value* ElementalEmitter::EmitIntegerDivide(bool is_signed, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  auto zero = [&] { return llvm::ConstantInt::get(t, 0); };
  auto all_ones = [&] { return llvm::ConstantInt::get(t, -1, true); };
  // x / 0 = -1; signed x / -1 = -x (INT_MIN / -1 wraps to INT_MIN).
  llvm::Value* y_zero = b_.CreateICmpEQ(y, zero());
  if (is_signed) {
    llvm::Value* y_minus_one = b_.CreateICmpEQ(y, all_ones());
    llvm::Value* safe = b_.CreateSelect(b_.CreateOr(y_zero, y_minus_one), llvm::ConstantInt::get(t, 1), y);
    llvm::Value* q = b_.CreateSDiv(x, safe);
    q = b_.CreateSelect(y_minus_one, b_.CreateNeg(x), q);
    return b_.CreateSelect(y_zero, all_ones(), q);
  }
  llvm::Value* safe = b_.CreateSelect(y_zero, llvm::ConstantInt::get(t, 1), y);
  return b_.CreateSelect(y_zero, all_ones(), b_.CreateUDiv(x, safe));
}

// Integer x % y: x % 0 = x and, signed, x % -1 = 0.
llvm::Value* ElementalEmitter::EmitIntegerRemainder(bool is_signed, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  auto zero = [&] { return llvm::ConstantInt::get(t, 0); };
  auto all_ones = [&] { return llvm::ConstantInt::get(t, -1, true); };
  llvm::Value* y_zero = b_.CreateICmpEQ(y, zero());
  if (is_signed) {
    llvm::Value* y_minus_one = b_.CreateICmpEQ(y, all_ones());
    llvm::Value* safe = b_.CreateSelect(b_.CreateOr(y_zero, y_minus_one), llvm::ConstantInt::get(t, 1), y);
    llvm::Value* r = b_.CreateSRem(x, safe);
    r = b_.CreateSelect(y_minus_one, zero(), r);
    return b_.CreateSelect(y_zero, x, r);
  }
  llvm::Value* safe = b_.CreateSelect(y_zero, llvm::ConstantInt::get(t, 1), y);
  return b_.CreateSelect(y_zero, x, b_.CreateURem(x, safe));
}

// Integer x ** y: 0 for a negative signed exponent, 1 for y == 0 or x == 1.
llvm::Value* ElementalEmitter::EmitIntegerPower(bool is_signed, llvm::Value* x, llvm::Value* y) {
  llvm::Type* t = x->getType();
  auto zero = [&] { return llvm::ConstantInt::get(t, 0); };
  // Square-and-multiply over the exponent's bits: unrolled up to 16 bits (straight
  // code that vectorizes), a loop until the exponent runs out above (64 unrolled
  // steps of dependent multiplies cost LLVM seconds per kernel).
  llvm::Value* one = llvm::ConstantInt::get(t, 1);
  llvm::Value* result = one;
  auto step = [&](llvm::Value* r, llvm::Value* base, llvm::Value* e) {
    llvm::Value* bit = b_.CreateTrunc(b_.CreateAnd(e, one), b_.getInt1Ty());
    return std::array<llvm::Value*, 3>{b_.CreateSelect(bit, b_.CreateMul(r, base), r), b_.CreateMul(base, base),
                                       b_.CreateLShr(e, one)};
  };
  if (t->getIntegerBitWidth() <= 16) {
    std::array<llvm::Value*, 3> state = {one, x, y};
    for (unsigned i = 0; i < t->getIntegerBitWidth(); ++i) state = step(state[0], state[1], state[2]);
    result = state[0];
  } else {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* entry = b_.GetInsertBlock();
    llvm::BasicBlock* header = llvm::BasicBlock::Create(context_, "ipow.header", fn);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(context_, "ipow.body", fn);
    llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, "ipow.exit", fn);
    b_.CreateBr(header);
    b_.SetInsertPoint(header);
    llvm::PHINode* r = b_.CreatePHI(t, 2);
    llvm::PHINode* base = b_.CreatePHI(t, 2);
    llvm::PHINode* e = b_.CreatePHI(t, 2);
    b_.CreateCondBr(b_.CreateICmpNE(e, zero()), body, exit);
    b_.SetInsertPoint(body);
    std::array<llvm::Value*, 3> next = step(r, base, e);
    b_.CreateBr(header);
    r->addIncoming(one, entry);
    r->addIncoming(next[0], body);
    base->addIncoming(x, entry);
    base->addIncoming(next[1], body);
    e->addIncoming(y, entry);
    e->addIncoming(next[2], body);
    b_.SetInsertPoint(exit);
    result = r;
  }
  if (is_signed) result = b_.CreateSelect(b_.CreateICmpSLT(y, zero()), zero(), result);
  llvm::Value* trivial = b_.CreateICmpEQ(y, zero());
  // x == 1 gives 1; s1 has no 1 (its one bit is -1).
  if (!is_signed || t->getIntegerBitWidth() > 1) trivial = b_.CreateOr(b_.CreateICmpEQ(x, one), trivial);
  return b_.CreateSelect(trivial, one, result);
}

llvm::Value* ElementalEmitter::EmitCompare(const Instruction* inst, llvm::Value* x,
                                           llvm::Value* y) {
  const PrimitiveType type = inst->operand(0)->shape().element_type();
  const ComparisonDirection dir = *inst->attrs().comparison_direction;
  const bool total_order = inst->attrs().comparison_type == ComparisonType::kTotalOrder;
  if (IsComplex(type)) {
    // Equal when both parts are (NaN parts are unequal).
    auto part = [&](llvm::Value* v, unsigned k) { return b_.CreateExtractValue(v, {k}); };
    if (dir == ComparisonDirection::kEq) {
      return b_.CreateAnd(b_.CreateFCmpOEQ(part(x, 0), part(y, 0)),
                          b_.CreateFCmpOEQ(part(x, 1), part(y, 1)));
    }
    if (dir == ComparisonDirection::kNe) {
      return b_.CreateOr(b_.CreateFCmpUNE(part(x, 0), part(y, 0)),
                         b_.CreateFCmpUNE(part(x, 1), part(y, 1)));
    }
    return Fail(inst, "complex values compare only for EQ and NE");
  }
  if (IsFloat(type) && !total_order) {
    if (BugPlanted(PlantedBug::kCompareGtLtSwapped) && dir == ComparisonDirection::kGt) return b_.CreateFCmpOLT(x, y);
    if (BugPlanted(PlantedBug::kCompareGtLtSwapped) && dir == ComparisonDirection::kLt) return b_.CreateFCmpOGT(x, y);
    switch (dir) {
      case ComparisonDirection::kEq:
        return b_.CreateFCmpOEQ(x, y);
      case ComparisonDirection::kNe:
        return b_.CreateFCmpUNE(x, y);
      case ComparisonDirection::kGe:
        return b_.CreateFCmpOGE(x, y);
      case ComparisonDirection::kGt:
        return b_.CreateFCmpOGT(x, y);
      case ComparisonDirection::kLe:
        return b_.CreateFCmpOLE(x, y);
      case ComparisonDirection::kLt:
        return b_.CreateFCmpOLT(x, y);
    }
  }
  bool is_signed = IsSignedInt(type);
  if (IsFloat(type)) {
    // Total order on the encodings: sign-magnitude read as a position, negatives mirrored
    // (-NaN < -inf < ... < -0 < +0 < ... < inf < NaN); f8e8m0fnu has no sign bit.
    const int width = BitWidth(type);
    auto key = [&](llvm::Value* v) {
      llvm::Value* bits = ToStorage(b_, type, v);
      if (bits->getType()->isFloatingPointTy()) bits = b_.CreateBitCast(bits, b_.getIntNTy(width));
      bits = b_.CreateZExt(bits, b_.getInt64Ty());
      if (type == PrimitiveType::kF8E8M0FNU) return bits;
      const uint64_t sign = uint64_t{1} << (width - 1);
      llvm::Value* magnitude = b_.CreateAnd(bits, b_.getInt64(sign - 1));
      llvm::Value* negative =
          b_.CreateICmpNE(b_.CreateAnd(bits, b_.getInt64(sign)), b_.getInt64(0));
      return b_.CreateSelect(negative, b_.CreateSub(b_.getInt64(~uint64_t{0}), magnitude),
                             magnitude);
    };
    x = key(x);
    y = key(y);
    is_signed = true;
  }
  switch (dir) {
    case ComparisonDirection::kEq:
      return b_.CreateICmpEQ(x, y);
    case ComparisonDirection::kNe:
      return b_.CreateICmpNE(x, y);
    case ComparisonDirection::kGe:
      return is_signed ? b_.CreateICmpSGE(x, y) : b_.CreateICmpUGE(x, y);
    case ComparisonDirection::kGt:
      return is_signed ? b_.CreateICmpSGT(x, y) : b_.CreateICmpUGT(x, y);
    case ComparisonDirection::kLe:
      return is_signed ? b_.CreateICmpSLE(x, y) : b_.CreateICmpULE(x, y);
    case ComparisonDirection::kLt:
      return is_signed ? b_.CreateICmpSLT(x, y) : b_.CreateICmpULT(x, y);
  }
  return Fail(inst, "unknown comparison");
}

llvm::Value* ElementalEmitter::EmitConvert(const Instruction* inst, PrimitiveType from,
                                           PrimitiveType to, llvm::Value* x) {
  if (from == to) return x;
  auto to_type_or = RegisterType(context_, to);
  if (!to_type_or.ok()) return Fail(inst, to_type_or.status().message());
  if (!RegisterType(context_, from).ok())
    return Fail(inst, RegisterType(context_, from).status().message());
  llvm::Type* t = *to_type_or;
  if (IsComplex(from) && to == PrimitiveType::kPred) {
    llvm::Value* zero = llvm::ConstantFP::get(b_.CreateExtractValue(x, {0})->getType(), 0.0);
    return b_.CreateOr(b_.CreateFCmpUNE(b_.CreateExtractValue(x, {0}), zero),
                       b_.CreateFCmpUNE(b_.CreateExtractValue(x, {1}), zero));
  }
  if (IsComplex(from) && IsComplex(to)) {
    const PrimitiveType from_real = ComplexComponentType(from), to_real = ComplexComponentType(to);
    return MakeComplex(EmitConvert(inst, from_real, to_real, b_.CreateExtractValue(x, {0})),
                       EmitConvert(inst, from_real, to_real, b_.CreateExtractValue(x, {1})));
  }
  if (IsComplex(from)) {
    // To a real type: the real part, converted as its component type.
    return EmitConvert(inst, ComplexComponentType(from), to, b_.CreateExtractValue(x, {0}));
  }
  if (IsComplex(to)) {
    const PrimitiveType real = ComplexComponentType(to);
    llvm::Value* re = EmitConvert(inst, from, real, x);
    return MakeComplex(re, llvm::ConstantFP::get(re->getType(), 0.0));
  }
  if (from == PrimitiveType::kPred) {
    if (IsFloat(to)) return RoundToType(to, b_.CreateUIToFP(x, t));
    return b_.CreateZExt(x, t);
  }
  if (to == PrimitiveType::kPred) {
    if (IsFloat(from)) return b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0));
    return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  if (IsFloat(from) && IsFloat(to)) {
    if (IsNarrowFloat(to)) {
      // From f64 round once, straight from the double; narrower sources are floats.
      if (x->getType()->isDoubleTy()) return ToRegister(b_, to, ToStorage(b_, to, x));
      return RoundToType(to, x);
    }
    if (x->getType() == t) return x;
    return t->getPrimitiveSizeInBits() > x->getType()->getPrimitiveSizeInBits()
               ? b_.CreateFPExt(x, t)
               : b_.CreateFPTrunc(x, t);
  }
  if (IsFloat(from) && IsInteger(to)) {
    // Truncate toward zero, saturate, NaN -> 0.
    if (BugPlanted(PlantedBug::kConvertRoundsToNearest)) x = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, x);
    llvm::Intrinsic::ID id =
        IsSignedInt(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, id, {t, x->getType()});
    return b_.CreateCall(f, {x});
  }
  if (IsInteger(from) && IsFloat(to)) {
    // To narrow floats through float (one rounding to float, one to the type), as the
    // interpreter converts integers.
    llvm::Value* f = IsSignedInt(from) ? b_.CreateSIToFP(x, t) : b_.CreateUIToFP(x, t);
    return RoundToType(to, f);
  }
  if (IsInteger(from) && IsInteger(to)) {
    return b_.CreateIntCast(x, t, IsSignedInt(from));
  }
  return Fail(inst, "unsupported conversion " + std::string(PrimitiveTypeName(from)) + " -> " +
                        std::string(PrimitiveTypeName(to)));
}

llvm::Value* ElementalEmitter::EmitBitcastConvert(const Instruction* inst, const IrIndex& index) {
  const Instruction* operand = inst->operand(0);
  const PrimitiveType from = operand->shape().element_type();
  const PrimitiveType to = inst->shape().element_type();
  if (from == PrimitiveType::kPred || to == PrimitiveType::kPred)
    return Fail(inst, "bitcast-convert of pred");
  auto storage = StorageType(context_, to);
  if (!storage.ok()) return Fail(inst, storage.status().message());
  auto from_storage = StorageType(context_, from);
  if (!from_storage.ok()) return Fail(inst, from_storage.status().message());
  const int from_width = BitWidth(from);
  const int to_width = BitWidth(to);
  // Bits are moved in an i64, or an i128 when c128 is involved.
  llvm::Type* word = b_.getIntNTy(std::max({from_width, to_width, 64}));
  // The operand element's encoding (sub-byte types: their low bits), zero-extended to
  // `word`; read straight from memory when the operand is there (no decode and re-encode).
  auto array = arrays_.find(operand);
  const bool in_memory = array != arrays_.end() && scalars_.count(operand) == 0;
  auto bits_at = [&](const IrIndex& at) {
    llvm::Value* stored = in_memory ? b_.CreateLoad(*from_storage, array->second.Address(b_, at))
                                    : ToStorage(b_, from, Emit(operand, at));
    if (IsComplex(from)) {
      // The real part is the low half (std::complex's layout, little-endian).
      const int half = from_width / 2;
      llvm::Value* re = b_.CreateZExt(
          b_.CreateBitCast(b_.CreateExtractValue(stored, {0}), b_.getIntNTy(half)), word);
      llvm::Value* im = b_.CreateZExt(
          b_.CreateBitCast(b_.CreateExtractValue(stored, {1}), b_.getIntNTy(half)), word);
      return b_.CreateOr(re, b_.CreateShl(im, static_cast<uint64_t>(half)));
    }
    if (stored->getType()->isFloatingPointTy())
      stored = b_.CreateBitCast(stored, b_.getIntNTy(from_width));
    return b_.CreateZExt(stored, word);
  };
  llvm::Value* bits = nullptr;
  if (from_width == to_width) {
    bits = bits_at(index);
  } else if (from_width > to_width) {
    // Wide to narrow: the new minor dimension picks the piece, low bits first.
    IrIndex at(index.begin(), index.end() - 1);
    llvm::Value* shift = b_.CreateMul(b_.CreateZExtOrTrunc(index.back(), word),
                                      llvm::ConstantInt::get(word, to_width));
    bits = b_.CreateLShr(bits_at(at), shift);
  } else {
    // Narrow to wide: the operand's minor dimension holds the pieces, low bits first.
    const int64_t pieces = to_width / from_width;
    bits = llvm::ConstantInt::get(word, 0);
    for (int64_t k = 0; k < pieces; ++k) {
      IrIndex at = index;
      at.push_back(b_.getInt64(k));
      bits = b_.CreateOr(bits, b_.CreateShl(bits_at(at), static_cast<uint64_t>(k * from_width)));
    }
  }
  if (IsComplex(to)) {
    const int half = to_width / 2;
    llvm::Type* real = (*storage)->getStructElementType(0);
    llvm::Value* re = b_.CreateBitCast(b_.CreateTrunc(bits, b_.getIntNTy(half)), real);
    llvm::Value* im = b_.CreateBitCast(
        b_.CreateTrunc(b_.CreateLShr(bits, static_cast<uint64_t>(half)), b_.getIntNTy(half)), real);
    return MakeComplex(re, im);
  }
  // Keep the result's width; sub-byte types occupy the low bits of their byte.
  llvm::Value* narrowed = b_.CreateTrunc(bits, b_.getIntNTy(to_width));
  llvm::Value* stored = (*storage)->isFloatingPointTy() ? b_.CreateBitCast(narrowed, *storage)
                                                        : b_.CreateZExt(narrowed, *storage);
  return ToRegister(b_, to, stored);
}

}  // namespace fusebox::codegen
