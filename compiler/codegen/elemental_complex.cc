// The elemental emitter's complex numbers (c64, c128): {re, im} structs in registers,
// std::complex's math (GCC's inline multiply, libgcc's division, glibc's C99 functions);
// on the GPU, which has no C library, the same division and multiply written out as IR
// and the functions as formulas over libdevice's real ones.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>

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
  if (options_.c_library_complex) {
    recovered = CallComplex(type == PrimitiveType::kC64 ? "__mulsc3" : "__muldc3", type, {x, y},
                            /*unpacked=*/true, false);
  } else {
    // No libgcc on the target (the GPU): the same recovery written out. Infinite parts are
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
  if (!options_.c_library_complex) return InlineComplexDivide(type, x, y);
  return CallComplex(type == PrimitiveType::kC64 ? "__divsc3" : "__divdc3", type, {x, y},
                     /*unpacked=*/true, false);
}

// (a + bi) / (c + di) as libgcc (GCC 12) divides, bit for bit (worked out against
// __divsc3 and __divdc3 on 2 million inputs each, specials included; in the tree,
// GpuComplexTest.DivisionIsLibgccsBitForBit compares with the interpreter). c64: in
// double, ((ac + bd) + (bc - ad) i) / (c^2 + d^2), which cannot overflow there. c128:
// Smith's division by the larger of |c| and |d|, with the operands scaled first when the
// divisor is huge (halved) or tiny (by 1/epsilon) and a subnormal ratio avoided. Then C99
// Annex G's recovery when both parts came out NaN: a zero divisor gives infinities, an
// infinite dividend over a finite divisor infinities, a finite dividend over an infinite
// divisor zeros (on the scaled values, as libgcc does).
llvm::Value* ElementalEmitter::InlineComplexDivide(PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  llvm::Value* a = b_.CreateExtractValue(x, {0});
  llvm::Value* b = b_.CreateExtractValue(x, {1});
  llvm::Value* c = b_.CreateExtractValue(y, {0});
  llvm::Value* d = b_.CreateExtractValue(y, {1});
  llvm::Type* t = a->getType();
  auto fabs = [&](llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); };
  auto k = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* re = nullptr;
  llvm::Value* im = nullptr;
  if (type == PrimitiveType::kC64) {
    llvm::Type* dt = b_.getDoubleTy();
    llvm::Value* aa = b_.CreateFPExt(a, dt);
    llvm::Value* bb = b_.CreateFPExt(b, dt);
    llvm::Value* cc = b_.CreateFPExt(c, dt);
    llvm::Value* dd = b_.CreateFPExt(d, dt);
    llvm::Value* denom = b_.CreateFAdd(b_.CreateFMul(cc, cc), b_.CreateFMul(dd, dd));
    re = b_.CreateFPTrunc(b_.CreateFDiv(b_.CreateFAdd(b_.CreateFMul(aa, cc), b_.CreateFMul(bb, dd)), denom), t);
    im = b_.CreateFPTrunc(b_.CreateFDiv(b_.CreateFSub(b_.CreateFMul(bb, cc), b_.CreateFMul(aa, dd)), denom), t);
  } else {
    const double max = std::numeric_limits<double>::max();
    const double big = max / 2;                                          // halve above
    const double min = std::numeric_limits<double>::min();              // smallest normal
    const double eps = std::numeric_limits<double>::epsilon();          // scale up below
    const double up = 1 / eps;
    const double mid = big * eps;
    llvm::Value* by_d = b_.CreateFCmpOLT(fabs(c), fabs(d));  // divide by d's side
    llvm::Value* divisor = b_.CreateSelect(by_d, fabs(d), fabs(c));
    llvm::Value* half = b_.CreateSelect(b_.CreateFCmpOGE(divisor, k(big)), k(0.5), k(1.0));
    a = b_.CreateFMul(a, half);
    b = b_.CreateFMul(b, half);
    c = b_.CreateFMul(c, half);
    d = b_.CreateFMul(d, half);
    divisor = b_.CreateFMul(divisor, half);
    llvm::Value* below_mid = b_.CreateFCmpOLT(divisor, k(mid));
    llvm::Value* tiny_part = b_.CreateOr(
        b_.CreateAnd(b_.CreateFCmpOLT(fabs(a), k(min)), b_.CreateFCmpOLT(fabs(b), k(mid))),
        b_.CreateAnd(b_.CreateFCmpOLT(fabs(b), k(min)), b_.CreateFCmpOLT(fabs(a), k(mid))));
    llvm::Value* scale_up = b_.CreateOr(b_.CreateFCmpOLT(divisor, k(eps)), b_.CreateAnd(tiny_part, below_mid));
    llvm::Value* scale = b_.CreateSelect(scale_up, k(up), k(1.0));
    a = b_.CreateFMul(a, scale);
    b = b_.CreateFMul(b, scale);
    c = b_.CreateFMul(c, scale);
    d = b_.CreateFMul(d, scale);
    llvm::Value* p = b_.CreateSelect(by_d, c, d);  // the smaller part of the divisor
    llvm::Value* q = b_.CreateSelect(by_d, d, c);  // the larger
    llvm::Value* u = b_.CreateSelect(by_d, a, b);
    llvm::Value* v = b_.CreateSelect(by_d, b, a);
    llvm::Value* ratio = b_.CreateFDiv(p, q);
    llvm::Value* denom = b_.CreateFAdd(b_.CreateFMul(p, ratio), q);
    llvm::Value* normal = b_.CreateFCmpOGT(fabs(ratio), k(min));
    llvm::Value* tu = b_.CreateSelect(normal, b_.CreateFMul(u, ratio), b_.CreateFMul(p, b_.CreateFDiv(u, q)));
    llvm::Value* tv = b_.CreateSelect(normal, b_.CreateFMul(v, ratio), b_.CreateFMul(p, b_.CreateFDiv(v, q)));
    re = b_.CreateFDiv(b_.CreateFAdd(tu, v), denom);
    im = b_.CreateFDiv(b_.CreateSelect(by_d, b_.CreateFSub(tv, u), b_.CreateFSub(u, tv)), denom);
  }
  auto is_nan = [&](llvm::Value* v) { return b_.CreateFCmpUNO(v, v); };
  auto is_inf = [&](llvm::Value* v) { return b_.CreateFCmpOEQ(fabs(v), llvm::ConstantFP::getInfinity(t)); };
  auto is_finite = [&](llvm::Value* v) { return b_.CreateFCmpOLT(fabs(v), llvm::ConstantFP::getInfinity(t)); };
  auto copysign = [&](llvm::Value* mag, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  };
  auto boxed = [&](llvm::Value* v) { return copysign(b_.CreateSelect(is_inf(v), k(1), k(0)), v); };
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  llvm::Value* zero_divisor = b_.CreateAnd(
      b_.CreateAnd(b_.CreateFCmpOEQ(c, k(0)), b_.CreateFCmpOEQ(d, k(0))),
      b_.CreateOr(b_.CreateNot(is_nan(a)), b_.CreateNot(is_nan(b))));
  llvm::Value* inf_dividend = b_.CreateAnd(b_.CreateOr(is_inf(a), is_inf(b)),
                                           b_.CreateAnd(is_finite(c), is_finite(d)));
  llvm::Value* inf_divisor = b_.CreateAnd(b_.CreateOr(is_inf(c), is_inf(d)),
                                          b_.CreateAnd(is_finite(a), is_finite(b)));
  llvm::Value* signed_inf = copysign(inf, c);
  llvm::Value* re1 = b_.CreateFMul(signed_inf, a);
  llvm::Value* im1 = b_.CreateFMul(signed_inf, b);
  llvm::Value* ba = boxed(a);
  llvm::Value* bb = boxed(b);
  llvm::Value* re2 = b_.CreateFMul(inf, b_.CreateFAdd(b_.CreateFMul(ba, c), b_.CreateFMul(bb, d)));
  llvm::Value* im2 = b_.CreateFMul(inf, b_.CreateFSub(b_.CreateFMul(bb, c), b_.CreateFMul(ba, d)));
  llvm::Value* bc = boxed(c);
  llvm::Value* bd = boxed(d);
  llvm::Value* re3 = b_.CreateFMul(k(0), b_.CreateFAdd(b_.CreateFMul(a, bc), b_.CreateFMul(b, bd)));
  llvm::Value* im3 = b_.CreateFMul(k(0), b_.CreateFSub(b_.CreateFMul(b, bc), b_.CreateFMul(a, bd)));
  llvm::Value* both_nan = b_.CreateAnd(is_nan(re), is_nan(im));
  llvm::Value* fixed_re = b_.CreateSelect(zero_divisor, re1, b_.CreateSelect(inf_dividend, re2, b_.CreateSelect(inf_divisor, re3, re)));
  llvm::Value* fixed_im = b_.CreateSelect(zero_divisor, im1, b_.CreateSelect(inf_dividend, im2, b_.CreateSelect(inf_divisor, im3, im)));
  return MakeComplex(b_.CreateSelect(both_nan, fixed_re, re), b_.CreateSelect(both_nan, fixed_im, im));
}

llvm::Value* ElementalEmitter::ComplexFunction(const std::string& name, PrimitiveType type, llvm::Value* x) {
  const bool c64 = type == PrimitiveType::kC64;
  if (options_.c_library_complex && c64 && name == "abs") {
    // glibc's cabsf is its hypotf: the squares summed and rooted in double, rounded once
    // to float, and +inf when either part is infinite (NaN otherwise). Inline, so that a
    // loop of them vectorizes, with the same bits as the call.
    llvm::Value* re = b_.CreateExtractValue(x, {0});
    llvm::Value* im = b_.CreateExtractValue(x, {1});
    llvm::Type* t = re->getType();
    llvm::Value* wide_re = b_.CreateFPExt(re, b_.getDoubleTy());
    llvm::Value* wide_im = b_.CreateFPExt(im, b_.getDoubleTy());
    llvm::Value* sum = b_.CreateFAdd(b_.CreateFMul(wide_re, wide_re), b_.CreateFMul(wide_im, wide_im));
    llvm::Value* modulus = b_.CreateFPTrunc(b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, sum), t);
    llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
    auto is_inf = [&](llvm::Value* v) { return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), inf); };
    return b_.CreateSelect(b_.CreateOr(is_inf(re), is_inf(im)), inf, modulus);
  }
  if (options_.c_library_complex) {
    return CallComplex("c" + name + (c64 ? "f" : ""), type, {x}, false, /*real_result=*/name == "abs");
  }
  // The formulas work in double: c64's parts are widened, and the result rounded once.
  llvm::Value* re = b_.CreateExtractValue(x, {0});
  llvm::Value* im = b_.CreateExtractValue(x, {1});
  llvm::Type* t = re->getType();
  if (c64) {
    re = b_.CreateFPExt(re, b_.getDoubleTy());
    im = b_.CreateFPExt(im, b_.getDoubleTy());
  }
  llvm::Value* r = ComplexFormula(name, re, im);
  if (r == nullptr || !c64) return r;
  if (name == "abs") return b_.CreateFPTrunc(r, t);
  return MakeComplex(b_.CreateFPTrunc(b_.CreateExtractValue(r, {0}), t),
                     b_.CreateFPTrunc(b_.CreateExtractValue(r, {1}), t));
}

// C99's complex functions of a + bi (doubles) from real ones, for targets without glibc.
// Each follows the textbook identity, arranged where it would lose accuracy: log's real
// part near |z| = 1 from log1p, sqrt from the larger of its two candidate parts, tanh as
// Kahan writes it (and its limit past |a| = 20), the inverse functions from Kahan's too.
// Infinite parts get C99's values where the identity alone would make a NaN of them (exp
// of +-inf, sqrt of an infinite part); other infinities and NaNs give NaN or infinite
// parts, not always C99's.
llvm::Value* ElementalEmitter::ComplexFormula(const std::string& name, llvm::Value* a, llvm::Value* b) {
  llvm::Type* t = a->getType();
  const PrimitiveType real = PrimitiveType::kF64;
  auto k = [&](double v) { return llvm::ConstantFP::get(t, v); };
  auto call = [&](const char* f, llvm::Value* v) { return CallLibm(f, real, {v}); };
  auto fabs = [&](llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); };
  auto sqrt = [&](llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v); };
  auto mul = [&](llvm::Value* x, llvm::Value* y) { return b_.CreateFMul(x, y); };
  auto add = [&](llvm::Value* x, llvm::Value* y) { return b_.CreateFAdd(x, y); };
  auto copysign = [&](llvm::Value* mag, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, mag, sign);
  };
  llvm::Value* inf = llvm::ConstantFP::getInfinity(t);
  auto is_inf = [&](llvm::Value* v) { return b_.CreateFCmpOEQ(fabs(v), inf); };
  // tanh(a + bi) (tan goes through it).
  auto tanh = [&](llvm::Value* x, llvm::Value* y) {
    llvm::Value* tan = call("tan", y);
    llvm::Value* beta = add(k(1), mul(tan, tan));
    llvm::Value* sinh = call("sinh", x);
    llvm::Value* sinh2 = mul(sinh, sinh);
    llvm::Value* rho = sqrt(add(k(1), sinh2));
    llvm::Value* denom = add(k(1), mul(beta, sinh2));
    llvm::Value* re = b_.CreateFDiv(mul(mul(beta, rho), sinh), denom);
    llvm::Value* im = b_.CreateFDiv(tan, denom);
    // Past |a| = 20 tanh is +-1 in double; the imaginary part 4 sin b cos b e^(-2|a|).
    llvm::Value* far = b_.CreateFCmpOGT(fabs(x), k(20));
    llvm::Value* far_im = mul(mul(mul(k(4), call("sin", y)), call("cos", y)), call("exp", mul(k(-2), fabs(x))));
    return MakeComplex(b_.CreateSelect(far, copysign(k(1), x), re), b_.CreateSelect(far, far_im, im));
  };
  // sqrt(x + yi): s = sqrt((|x| + |z|) / 2), then (s, y / 2s) for x >= 0, else
  // (|y| / 2s, s with y's sign); sqrt(+-0 + yi) for y = +-0 is (0, y), and
  // sqrt(x +- inf i) = inf +- inf i whatever x is.
  auto csqrt = [&](llvm::Value* x, llvm::Value* y) {
    llvm::Value* s = sqrt(mul(k(0.5), add(fabs(x), CallLibm("hypot", real, {x, y}))));
    llvm::Value* other = b_.CreateFDiv(y, mul(k(2), s));
    llvm::Value* positive = b_.CreateFCmpOGE(x, k(0));
    llvm::Value* re = b_.CreateSelect(positive, s, fabs(other));
    llvm::Value* im = b_.CreateSelect(positive, other, copysign(s, y));
    llvm::Value* zero = b_.CreateAnd(b_.CreateFCmpOEQ(x, k(0)), b_.CreateFCmpOEQ(y, k(0)));
    re = b_.CreateSelect(zero, k(0), re);
    im = b_.CreateSelect(zero, y, im);
    return std::pair{b_.CreateSelect(is_inf(y), inf, re), b_.CreateSelect(is_inf(y), y, im)};
  };
  // The inverse functions as Kahan writes them ("Branch cuts for complex elementary
  // functions", 1987): from square roots of 1 -+ z (their branch cuts give the functions'
  // own) and real atan2, asinh and log1p, so no part cancels near the branch points.
  auto casin = [&](llvm::Value* x, llvm::Value* y) {
    auto [s1r, s1i] = csqrt(b_.CreateFSub(k(1), x), b_.CreateFNeg(y));  // sqrt(1 - z)
    auto [s2r, s2i] = csqrt(add(k(1), x), y);                           // sqrt(1 + z)
    llvm::Value* re = CallLibm("atan2", real, {x, b_.CreateFSub(mul(s1r, s2r), mul(s1i, s2i))});
    llvm::Value* im = call("asinh", b_.CreateFSub(mul(s1r, s2i), mul(s1i, s2r)));
    return std::pair{re, im};
  };
  // atanh(x + yi): log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) - y^2) / 2,
  // the real part (odd in x) from |x|, where log1p's argument is not negative.
  auto catanh = [&](llvm::Value* x, llvm::Value* y) {
    llvm::Value* ax = fabs(x);
    llvm::Value* one_minus_abs = b_.CreateFSub(k(1), ax);
    llvm::Value* denom = add(mul(one_minus_abs, one_minus_abs), mul(y, y));
    llvm::Value* re = copysign(mul(k(0.25), call("log1p", b_.CreateFDiv(mul(k(4), ax), denom))), x);
    llvm::Value* one_minus = b_.CreateFSub(k(1), x);
    llvm::Value* im = mul(k(0.5), CallLibm("atan2", real, {mul(k(2), y),
                                                           b_.CreateFSub(mul(one_minus, add(k(1), x)), mul(y, y))}));
    return std::pair{re, im};
  };
  if (name == "asin") {
    auto [re, im] = casin(a, b);
    return MakeComplex(re, im);
  }
  if (name == "asinh") {
    // asinh z = -i asin(iz), iz = -b + ai.
    auto [re, im] = casin(b_.CreateFNeg(b), a);
    return MakeComplex(im, b_.CreateFNeg(re));
  }
  if (name == "acos") {
    // 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)) + i asinh(Im(conj(sqrt(1 + z)) sqrt(1 - z))).
    auto [s1r, s1i] = csqrt(b_.CreateFSub(k(1), a), b_.CreateFNeg(b));
    auto [s2r, s2i] = csqrt(add(k(1), a), b);
    return MakeComplex(mul(k(2), CallLibm("atan2", real, {s1r, s2r})),
                       call("asinh", b_.CreateFSub(mul(s2r, s1i), mul(s2i, s1r))));
  }
  if (name == "acosh") {
    // asinh(Re(conj(sqrt(z - 1)) sqrt(z + 1))) + 2i atan2(Im sqrt(z - 1), Re sqrt(z + 1)).
    auto [s1r, s1i] = csqrt(b_.CreateFSub(a, k(1)), b);
    auto [s2r, s2i] = csqrt(add(a, k(1)), b);
    return MakeComplex(call("asinh", add(mul(s1r, s2r), mul(s1i, s2i))),
                       mul(k(2), CallLibm("atan2", real, {s1i, s2r})));
  }
  if (name == "atanh") {
    auto [re, im] = catanh(a, b);
    return MakeComplex(re, im);
  }
  if (name == "atan") {
    // atan z = -i atanh(iz).
    auto [re, im] = catanh(b_.CreateFNeg(b), a);
    return MakeComplex(im, b_.CreateFNeg(re));
  }
  if (name == "abs") return CallLibm("hypot", real, {a, b});
  if (name == "exp") {
    // e^a (cos b + i sin b); a real argument keeps its imaginary zero (and e^inf).
    llvm::Value* e = call("exp", a);
    llvm::Value* real_arg = b_.CreateFCmpOEQ(b, k(0));
    return MakeComplex(b_.CreateSelect(real_arg, e, mul(e, call("cos", b))),
                       b_.CreateSelect(real_arg, b, mul(e, call("sin", b))));
  }
  if (name == "log") {
    // log|z| + i atan2(b, a); near |z| = 1, log1p((big - 1)(big + 1) + small^2) / 2.
    llvm::Value* big = b_.CreateMaxNum(fabs(a), fabs(b));
    llvm::Value* small = b_.CreateMinNum(fabs(a), fabs(b));
    llvm::Value* modulus = CallLibm("hypot", real, {a, b});
    llvm::Value* near_one = b_.CreateAnd(b_.CreateFCmpOGT(modulus, k(0.5)), b_.CreateFCmpOLT(modulus, k(2)));
    llvm::Value* near = mul(k(0.5), call("log1p", add(mul(b_.CreateFSub(big, k(1)), add(big, k(1))), mul(small, small))));
    return MakeComplex(b_.CreateSelect(near_one, near, call("log", modulus)), CallLibm("atan2", real, {b, a}));
  }
  if (name == "sqrt") {
    auto [re, im] = csqrt(a, b);
    return MakeComplex(re, im);
  }
  if (name == "sin") {
    return MakeComplex(mul(call("sin", a), call("cosh", b)), mul(call("cos", a), call("sinh", b)));
  }
  if (name == "cos") {
    return MakeComplex(mul(call("cos", a), call("cosh", b)), b_.CreateFNeg(mul(call("sin", a), call("sinh", b))));
  }
  if (name == "sinh") {
    return MakeComplex(mul(call("sinh", a), call("cos", b)), mul(call("cosh", a), call("sin", b)));
  }
  if (name == "cosh") {
    return MakeComplex(mul(call("cosh", a), call("cos", b)), mul(call("sinh", a), call("sin", b)));
  }
  if (name == "tanh") return tanh(a, b);
  if (name == "tan") {
    // tan z = -i tanh(iz), iz = -b + ai.
    llvm::Value* w = tanh(b_.CreateFNeg(b), a);
    return MakeComplex(b_.CreateExtractValue(w, {1}), b_.CreateFNeg(b_.CreateExtractValue(w, {0})));
  }
  return nullptr;
}

llvm::Value* ElementalEmitter::EmitComplexUnary(const Instruction* inst, llvm::Value* x) {
  const PrimitiveType type = inst->operand(0)->shape().element_type();
  const PrimitiveType real = ComplexComponentType(type);
  llvm::Value* re = b_.CreateExtractValue(x, {0});
  llvm::Value* im = b_.CreateExtractValue(x, {1});
  llvm::Type* t = re->getType();
  auto constant = [&](double v) { return llvm::ConstantFP::get(t, v); };
  auto libm = [&](const char* name, llvm::Value* v) { return CallLibm(name, real, {v}); };
  llvm::Value* one = MakeComplex(constant(1), constant(0));
  // std::complex's functions are glibc's C99 ones (cexpf, ...): the same calls, or on the
  // GPU the formulas of ComplexFormula.
  const char* c99 = nullptr;
  switch (inst->opcode()) {
    case Opcode::kReal:
      return re;
    case Opcode::kImag:
      return im;
    case Opcode::kNegate:
      return MakeComplex(b_.CreateFNeg(re), b_.CreateFNeg(im));
    case Opcode::kAbs:
      return ComplexFunction("abs", type, x);
    case Opcode::kSign: {
      llvm::Value* magnitude = ComplexFunction("abs", type, x);
      llvm::Value* unit = MakeComplex(b_.CreateFDiv(re, magnitude), b_.CreateFDiv(im, magnitude));
      return b_.CreateSelect(b_.CreateFCmpOEQ(magnitude, constant(0)),
                             MakeComplex(constant(0), constant(0)), unit);
    }
    case Opcode::kRsqrt:
      return ComplexDivide(type, one, ComplexFunction("sqrt", type, x));
    case Opcode::kLogistic: {
      llvm::Value* e = ComplexFunction("exp", type, MakeComplex(b_.CreateFNeg(re), b_.CreateFNeg(im)));
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
    case Opcode::kExp: c99 = "exp"; break;
    case Opcode::kLog: c99 = "log"; break;
    case Opcode::kSqrt: c99 = "sqrt"; break;
    case Opcode::kSin: c99 = "sin"; break;
    case Opcode::kCos: c99 = "cos"; break;
    case Opcode::kTan: c99 = "tan"; break;
    case Opcode::kTanh: c99 = "tanh"; break;
    case Opcode::kSinh: c99 = "sinh"; break;
    case Opcode::kCosh: c99 = "cosh"; break;
    case Opcode::kAsin: c99 = "asin"; break;
    case Opcode::kAcos: c99 = "acos"; break;
    case Opcode::kAtan: c99 = "atan"; break;
    case Opcode::kAsinh: c99 = "asinh"; break;
    case Opcode::kAcosh: c99 = "acosh"; break;
    case Opcode::kAtanh: c99 = "atanh"; break;
    default:
      break;
  }
  if (c99 == nullptr)
    return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
  llvm::Value* r = ComplexFunction(c99, type, x);
  if (r == nullptr) {
    return Fail(inst, "complex " + std::string(OpcodeName(inst->opcode())) +
                          " has no implementation on this target (the CPU backend computes it with the C "
                          "library's c" + c99 + ")");
  }
  return r;
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
  // The rest as std::complex computes them: libgcc's division, glibc's cpow, csqrt and
  // clog (or on the GPU their IR: InlineComplexDivide, ComplexFormula).
  switch (opcode) {
    case Opcode::kDivide:
      return ComplexDivide(type, x, y);
    case Opcode::kPower: {
      // 1^y = x^0 = 1; inf^(a + 0i) is inf for a > 0 and 0 for a < 0; else cpow, which
      // glibc computes as cexp(y clog(x)).
      llvm::Value* p = nullptr;
      if (options_.c_library_complex) {
        p = CallComplex(type == PrimitiveType::kC64 ? "cpowf" : "cpow", type, {x, y}, false, false);
      } else {
        p = ComplexFunction("exp", type, ComplexMultiply(type, y, ComplexFunction("log", type, x)));
      }
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
      llvm::Value* const a_y = x;  // atan2's first operand is its y
      llvm::Value* const a_x = y;
      llvm::Value* i = MakeComplex(constant(0), constant(1));
      llvm::Value* iy = ComplexMultiply(type, i, a_y);
      llvm::Value* numerator =
          MakeComplex(b_.CreateFAdd(re(a_x), re(iy)), b_.CreateFAdd(im(a_x), im(iy)));
      llvm::Value* xx = ComplexMultiply(type, a_x, a_x);
      llvm::Value* yy = ComplexMultiply(type, a_y, a_y);
      llvm::Value* sum = MakeComplex(b_.CreateFAdd(re(xx), re(yy)), b_.CreateFAdd(im(xx), im(yy)));
      llvm::Value* quotient = ComplexDivide(type, numerator, ComplexFunction("sqrt", type, sum));
      llvm::Value* log = ComplexFunction("log", type, quotient);
      return ComplexMultiply(type, MakeComplex(constant(-0.0), constant(-1)), log);
    }
    default:
      break;
  }
  return Fail(inst, "unsupported element type " + std::string(PrimitiveTypeName(type)));
}

}  // namespace fusebox::codegen
