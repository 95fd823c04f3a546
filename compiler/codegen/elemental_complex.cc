// The elemental emitter's complex numbers (c64, c128): {re, im} structs in registers,
// std::complex's math (GCC's inline multiply, libgcc's division, glibc's C99 functions).
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

llvm::Value* ElementalEmitter::MakeComplex(llvm::Value* re, llvm::Value* im) {
  llvm::Type* type = llvm::StructType::get(context_, {re->getType(), re->getType()});
  llvm::Value* value = llvm::PoisonValue::get(type);
  value = b_.CreateInsertValue(value, re, {0});
  return b_.CreateInsertValue(value, im, {1});
}

llvm::Value* ElementalEmitter::CallComplex(const std::string& name, PrimitiveType type,
                                           const std::vector<llvm::Value*>& args, bool unpacked,
                                           bool real_result) {
  // The x86-64 System V ABI, as clang lowers C's _Complex: a c64 argument is one
  // <2 x float> (libgcc's __mulsc3/__divsc3 take four floats), a c128 argument two doubles;
  // a c64 result is a <2 x float>, a c128 result {double, double}.
  const bool c64 = type == PrimitiveType::kC64;
  llvm::Type* real = c64 ? b_.getFloatTy() : b_.getDoubleTy();
  llvm::Type* pair = llvm::FixedVectorType::get(b_.getFloatTy(), 2);
  std::vector<llvm::Value*> values;
  for (llvm::Value* arg : args) {
    llvm::Value* re = b_.CreateExtractValue(arg, {0});
    llvm::Value* im = b_.CreateExtractValue(arg, {1});
    if (c64 && !unpacked) {
      llvm::Value* v = b_.CreateInsertElement(llvm::PoisonValue::get(pair), re, b_.getInt64(0));
      values.push_back(b_.CreateInsertElement(v, im, b_.getInt64(1)));
    } else {
      values.push_back(re);
      values.push_back(im);
    }
  }
  std::vector<llvm::Type*> params;
  for (llvm::Value* v : values) params.push_back(v->getType());
  llvm::Type* result = real_result ? real
                       : c64       ? static_cast<llvm::Type*>(pair)
                                   : llvm::StructType::get(context_, {real, real});
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyAccessesInaccessibleMemory();
  }
  llvm::Value* call = b_.CreateCall(callee, values);
  if (real_result || !c64) return call;
  return MakeComplex(b_.CreateExtractElement(call, b_.getInt64(0)),
                     b_.CreateExtractElement(call, b_.getInt64(1)));
}

llvm::Value* ElementalEmitter::ComplexMultiply(PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  // As GCC compiles std::complex's *: the textbook formula, and libgcc's __mulsc3 /
  // __muldc3 (C99 Annex G's recovery of infinities) when both parts come out NaN.
  llvm::Value* a = b_.CreateExtractValue(x, {0});
  llvm::Value* b = b_.CreateExtractValue(x, {1});
  llvm::Value* c = b_.CreateExtractValue(y, {0});
  llvm::Value* d = b_.CreateExtractValue(y, {1});
  llvm::Value* re = b_.CreateFSub(b_.CreateFMul(a, c), b_.CreateFMul(b, d));
  llvm::Value* im = b_.CreateFAdd(b_.CreateFMul(a, d), b_.CreateFMul(b, c));
  llvm::Value* product = MakeComplex(re, im);
  llvm::Value* both_nan = b_.CreateAnd(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b_.GetInsertBlock();
  llvm::BasicBlock* slow = llvm::BasicBlock::Create(context_, "cmul.nan", fn);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "cmul.merge", fn);
  b_.CreateCondBr(both_nan, slow, merge);
  b_.SetInsertPoint(slow);
  llvm::Value* recovered = nullptr;
  if (llvm::Triple(module_.getTargetTriple()).getArch() == llvm::Triple::x86_64) {
    recovered = CallComplex(type == PrimitiveType::kC64 ? "__mulsc3" : "__muldc3", type, {x, y},
                            /*unpacked=*/true, false);
  } else {
    // No libgcc on the target (NVPTX): the same recovery written out. Infinite parts are
    // boxed to +-1 and NaN partners zeroed, then the product is scaled by infinity.
    llvm::Type* t = a->getType();
    llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
    llvm::Value* zero = llvm::ConstantFP::get(t, 0.0);
    llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
    auto is_inf = [&](llvm::Value* v) {
      return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), inf);
    };
    auto is_nan = [&](llvm::Value* v) { return b_.CreateFCmpUNO(v, v); };
    auto copysign = [&](llvm::Value* mag, llvm::Value* sign) {
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
    };
    auto boxed = [&](llvm::Value* v) { return copysign(b_.CreateSelect(is_inf(v), one, zero), v); };
    auto nan_to_zero = [&](llvm::Value* v) { return b_.CreateSelect(is_nan(v), copysign(zero, v), v); };
    llvm::Value* ac = b_.CreateFMul(a, c);
    llvm::Value* bd = b_.CreateFMul(b, d);
    llvm::Value* ad = b_.CreateFMul(a, d);
    llvm::Value* bc = b_.CreateFMul(b, c);
    llvm::Value* inf_ab = b_.CreateOr(is_inf(a), is_inf(b));
    llvm::Value* a1 = b_.CreateSelect(inf_ab, boxed(a), a);
    llvm::Value* b1 = b_.CreateSelect(inf_ab, boxed(b), b);
    llvm::Value* c1 = b_.CreateSelect(inf_ab, nan_to_zero(c), c);
    llvm::Value* d1 = b_.CreateSelect(inf_ab, nan_to_zero(d), d);
    llvm::Value* inf_cd = b_.CreateOr(is_inf(c1), is_inf(d1));
    llvm::Value* c2 = b_.CreateSelect(inf_cd, boxed(c1), c1);
    llvm::Value* d2 = b_.CreateSelect(inf_cd, boxed(d1), d1);
    llvm::Value* a2 = b_.CreateSelect(inf_cd, nan_to_zero(a1), a1);
    llvm::Value* b2 = b_.CreateSelect(inf_cd, nan_to_zero(b1), b1);
    llvm::Value* recalc = b_.CreateOr(inf_ab, inf_cd);
    llvm::Value* overflow = b_.CreateAnd(
        b_.CreateNot(recalc),
        b_.CreateOr(b_.CreateOr(is_inf(ac), is_inf(bd)), b_.CreateOr(is_inf(ad), is_inf(bc))));
    llvm::Value* a3 = b_.CreateSelect(overflow, nan_to_zero(a2), a2);
    llvm::Value* b3 = b_.CreateSelect(overflow, nan_to_zero(b2), b2);
    llvm::Value* c3 = b_.CreateSelect(overflow, nan_to_zero(c2), c2);
    llvm::Value* d3 = b_.CreateSelect(overflow, nan_to_zero(d2), d2);
    recalc = b_.CreateOr(recalc, overflow);
    llvm::Value* re2 = b_.CreateFMul(inf, b_.CreateFSub(b_.CreateFMul(a3, c3), b_.CreateFMul(b3, d3)));
    llvm::Value* im2 = b_.CreateFMul(inf, b_.CreateFAdd(b_.CreateFMul(a3, d3), b_.CreateFMul(b3, c3)));
    recovered = MakeComplex(b_.CreateSelect(recalc, re2, re), b_.CreateSelect(recalc, im2, im));
  }
  llvm::BasicBlock* slow_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(product->getType(), 2);
  phi->addIncoming(product, before);
  phi->addIncoming(recovered, slow_end);
  return phi;
}

llvm::Value* ElementalEmitter::ComplexDivide(PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  return CallComplex(type == PrimitiveType::kC64 ? "__divsc3" : "__divdc3", type, {x, y},
                     /*unpacked=*/true, false);
}

llvm::Value* ElementalEmitter::EmitComplexUnary(const Instruction* inst, llvm::Value* x) {
  const PrimitiveType type = inst->operand(0)->shape().element_type();
  const PrimitiveType real = ComplexComponentType(type);
  const std::string f = type == PrimitiveType::kC64 ? "f" : "";
  llvm::Value* re = b_.CreateExtractValue(x, {0});
  llvm::Value* im = b_.CreateExtractValue(x, {1});
  llvm::Type* t = re->getType();
  auto constant = [&](double v) { return llvm::ConstantFP::get(t, v); };
  auto libm = [&](const char* name, llvm::Value* v) { return CallLibm(name, real, {v}); };
  llvm::Value* one = MakeComplex(constant(1), constant(0));
  // std::complex's functions are glibc's C99 ones (cexpf, ...): call the same.
  const char* c99 = nullptr;
  switch (inst->opcode()) {
    case Opcode::kReal:
      return re;
    case Opcode::kImag:
      return im;
    case Opcode::kNegate:
      return MakeComplex(b_.CreateFNeg(re), b_.CreateFNeg(im));
    default:
      break;
  }
  // The rest call the C library's complex routines.
  if (llvm::Triple(module_.getTargetTriple()).getArch() != llvm::Triple::x86_64) {
    return Fail(inst, "complex " + std::string(OpcodeName(inst->opcode())) +
                          " calls C library routines that follow the x86-64 calling convention; this target is " +
                          module_.getTargetTriple());
  }
  switch (inst->opcode()) {
    case Opcode::kAbs:
      return CallComplex("cabs" + f, type, {x}, false, /*real_result=*/true);
    case Opcode::kNegate:
      return MakeComplex(b_.CreateFNeg(re), b_.CreateFNeg(im));
    case Opcode::kSign: {
      llvm::Value* magnitude = CallComplex("cabs" + f, type, {x}, false, true);
      llvm::Value* unit = MakeComplex(b_.CreateFDiv(re, magnitude), b_.CreateFDiv(im, magnitude));
      return b_.CreateSelect(b_.CreateFCmpOEQ(magnitude, constant(0)),
                             MakeComplex(constant(0), constant(0)), unit);
    }
    case Opcode::kRsqrt:
      return ComplexDivide(type, one, CallComplex("csqrt" + f, type, {x}, false, false));
    case Opcode::kLogistic: {
      llvm::Value* e = CallComplex(
          "cexp" + f, type, {MakeComplex(b_.CreateFNeg(re), b_.CreateFNeg(im))}, false, false);
      llvm::Value* denominator =
          MakeComplex(b_.CreateFAdd(constant(1), b_.CreateExtractValue(e, {0})),
                      b_.CreateFAdd(constant(0), b_.CreateExtractValue(e, {1})));
      return ComplexDivide(type, one, denominator);
    }
    case Opcode::kExpm1: {
      // expm1(a) cos(b) - 2 sin^2(b / 2) + i exp(a) sin(b): accurate near zero.
      llvm::Value* half_sin = libm("sin", b_.CreateFDiv(im, constant(2)));
      llvm::Value* r = b_.CreateFSub(b_.CreateFMul(libm("expm1", re), libm("cos", im)),
                                     b_.CreateFMul(b_.CreateFMul(constant(2), half_sin), half_sin));
      return MakeComplex(r, b_.CreateFMul(libm("exp", re), libm("sin", im)));
    }
    case Opcode::kLog1p: {
      // log1p(a (2 + a) + b^2) / 2 + i atan2(b, 1 + a).
      llvm::Value* sum =
          b_.CreateFAdd(b_.CreateFMul(re, b_.CreateFAdd(constant(2), re)), b_.CreateFMul(im, im));
      llvm::Value* r = b_.CreateFDiv(libm("log1p", sum), constant(2));
      return MakeComplex(r, CallLibm("atan2", real, {im, b_.CreateFAdd(constant(1), re)}));
    }
    case Opcode::kExp:
      c99 = "cexp";
      break;
    case Opcode::kLog:
      c99 = "clog";
      break;
    case Opcode::kSqrt:
      c99 = "csqrt";
      break;
    case Opcode::kSin:
      c99 = "csin";
      break;
    case Opcode::kCos:
      c99 = "ccos";
      break;
    case Opcode::kTan:
      c99 = "ctan";
      break;
    case Opcode::kTanh:
      c99 = "ctanh";
      break;
    case Opcode::kSinh:
      c99 = "csinh";
      break;
    case Opcode::kCosh:
      c99 = "ccosh";
      break;
    case Opcode::kAsin:
      c99 = "casin";
      break;
    case Opcode::kAcos:
      c99 = "cacos";
      break;
    case Opcode::kAtan:
      c99 = "catan";
      break;
    case Opcode::kAsinh:
      c99 = "casinh";
      break;
    case Opcode::kAcosh:
      c99 = "cacosh";
      break;
    case Opcode::kAtanh:
      c99 = "catanh";
      break;
    default:
      break;
  }
  if (c99 == nullptr)
    return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
  return CallComplex(c99 + f, type, {x}, false, false);
}

llvm::Value* ElementalEmitter::EmitComplexBinary(const Instruction* inst, Opcode opcode,
                                                 PrimitiveType type, llvm::Value* x,
                                                 llvm::Value* y) {
  // complex(re, im) builds the value from its parts.
  if (opcode == Opcode::kComplex) return MakeComplex(x, y);
  auto re = [&](llvm::Value* v) { return b_.CreateExtractValue(v, {0}); };
  auto im = [&](llvm::Value* v) { return b_.CreateExtractValue(v, {1}); };
  llvm::Type* t = re(x)->getType();
  auto constant = [&](double v) { return llvm::ConstantFP::get(t, v); };
  if (opcode == Opcode::kAdd) return MakeComplex(b_.CreateFAdd(re(x), re(y)), b_.CreateFAdd(im(x), im(y)));
  if (opcode == Opcode::kSubtract) return MakeComplex(b_.CreateFSub(re(x), re(y)), b_.CreateFSub(im(x), im(y)));
  if (opcode == Opcode::kMultiply) return ComplexMultiply(type, x, y);
  // The rest call the C library's complex routines (libgcc's __mulsc3 keeps C's rules for
  // infinities and NaN).
  if (llvm::Triple(module_.getTargetTriple()).getArch() != llvm::Triple::x86_64) {
    return Fail(inst, "complex " + std::string(OpcodeName(opcode)) +
                          " calls C library routines that follow the x86-64 calling convention; this target is " +
                          module_.getTargetTriple());
  }
  switch (opcode) {
    case Opcode::kDivide:
      return ComplexDivide(type, x, y);
    case Opcode::kPower: {
      // 1^y = x^0 = 1; inf^(a + 0i) is inf for a > 0 and 0 for a < 0; else cpow.
      const std::string name = type == PrimitiveType::kC64 ? "cpowf" : "cpow";
      llvm::Value* p = CallComplex(name, type, {x, y}, false, false);
      llvm::Value* zero = MakeComplex(constant(0), constant(0));
      llvm::Value* x_pos_inf =
          b_.CreateAnd(b_.CreateFCmpOEQ(im(x), constant(0)),
                       b_.CreateFCmpOEQ(re(x), llvm::ConstantFP::getInfinity(t)));
      llvm::Value* y_real = b_.CreateFCmpOEQ(im(y), constant(0));
      p = b_.CreateSelect(
          b_.CreateAnd(x_pos_inf, b_.CreateAnd(y_real, b_.CreateFCmpOLT(re(y), constant(0)))), zero,
          p);
      p = b_.CreateSelect(
          b_.CreateAnd(x_pos_inf, b_.CreateAnd(y_real, b_.CreateFCmpOGT(re(y), constant(0)))), x,
          p);
      llvm::Value* x_one =
          b_.CreateAnd(b_.CreateFCmpOEQ(re(x), constant(1)), b_.CreateFCmpOEQ(im(x), constant(0)));
      llvm::Value* y_zero =
          b_.CreateAnd(b_.CreateFCmpOEQ(re(y), constant(0)), b_.CreateFCmpOEQ(im(y), constant(0)));
      return b_.CreateSelect(b_.CreateOr(x_one, y_zero), MakeComplex(constant(1), constant(0)), p);
    }
    case Opcode::kAtan2: {
      // atan2(y, x) = -i log((x + i y) / sqrt(x^2 + y^2)), with std::complex's operations.
      const std::string f = type == PrimitiveType::kC64 ? "f" : "";
      llvm::Value* const a_y = x;  // atan2's first operand is its y
      llvm::Value* const a_x = y;
      llvm::Value* i = MakeComplex(constant(0), constant(1));
      llvm::Value* iy = ComplexMultiply(type, i, a_y);
      llvm::Value* numerator =
          MakeComplex(b_.CreateFAdd(re(a_x), re(iy)), b_.CreateFAdd(im(a_x), im(iy)));
      llvm::Value* xx = ComplexMultiply(type, a_x, a_x);
      llvm::Value* yy = ComplexMultiply(type, a_y, a_y);
      llvm::Value* sum = MakeComplex(b_.CreateFAdd(re(xx), re(yy)), b_.CreateFAdd(im(xx), im(yy)));
      llvm::Value* quotient =
          ComplexDivide(type, numerator, CallComplex("csqrt" + f, type, {sum}, false, false));
      llvm::Value* log = CallComplex("clog" + f, type, {quotient}, false, false);
      return ComplexMultiply(type, MakeComplex(constant(-0.0), constant(-1)), log);
    }
    default:
      break;
  }
  return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
}

}  // namespace fusebox::codegen
