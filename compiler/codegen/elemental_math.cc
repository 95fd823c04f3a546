// Inline polynomial math for the elemental emitter (see elemental_math.h): exp for f32 and
// f64, tanh in f32, and the other f32 transcendentals computed in double. Working in double makes every
// function's error a fraction of an f32 ulp before the final rounding, so the result is
// the correctly rounded one or its neighbour (<= 1 ulp), and keeps intermediate values
// (2^k scales, x^2, 1 + x) clear of f32's overflow and subnormal range. The vectorizer
// widens it to four doubles per AVX2 register, half of f32's width, still many times the
// throughput of a scalar libm call per element.
#include "compiler/codegen/elemental_math.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "compiler/support/planted_bugs.h"

namespace fusebox::codegen {

// e^x for a float or double `x`, as straight-line IR the loop vectorizer widens (no call):
//   k = round(x / ln 2), r = x - k ln 2 (Cody-Waite: ln 2 = hi + lo, hi with enough
//   trailing zero bits that k * hi is exact), e^r by its Taylor polynomial (|r| <= ln2/2;
//   degree 7 for float, 13 for double leaves truncation far below half an ulp), times 2^k
//   built in the exponent field.
// 2^k is applied as 2^(k/2) * 2^(k - k/2): both factors stay normal over the whole
// clamped range, so results that overflow become +inf and results in the subnormal range
// are rounded once, by the last multiply (gradual underflow, as glibc's exp gives the
// interpreter; nothing here assumes flush-to-zero). x is clamped first to a range just
// wider than where e^x is finite and nonzero (keeping k small enough for the shifter
// trick below): +inf gives +inf and -inf gives +0 through the same arithmetic. The
// clamp is a compare and select that passes NaN through, and NaN stays NaN through the
// arithmetic. f32 measured over every input: at most 1 ulp from the correctly rounded
// result (docs/cpu-backend.md).
llvm::Value* EmitInlineExp(llvm::IRBuilder<>& b, llvm::Value* x) {
  llvm::Type* t = x->getType();
  const bool f32 = t->isFloatTy();
  llvm::Type* int_type = f32 ? b.getInt32Ty() : b.getInt64Ty();
  const int mantissa_bits = f32 ? 23 : 52;
  const int64_t bias = f32 ? 127 : 1023;
  auto c = [&](double v) { return llvm::ConstantFP::get(t, v); };
  auto i = [&](int64_t v) {
    return llvm::ConstantInt::get(int_type, static_cast<uint64_t>(v), true);
  };
  auto fma = [&](llvm::Value* m1, llvm::Value* m2, llvm::Value* a) {
    // fmuladd: one rounding where the target has FMA, separate multiply and add elsewhere
    // (never a libcall); both keep the error bounds above.
    return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {t}, {m1, m2, a});
  };
  const double lowest = f32 ? -110.0 : -750.0;  // e^lowest rounds to +0
  const double highest = f32 ? 100.0 : 720.0;   // e^highest overflows
  x = b.CreateSelect(b.CreateFCmpOLT(x, c(lowest)), c(lowest), x);
  x = b.CreateSelect(b.CreateFCmpOGT(x, c(highest)), c(highest), x);

  // Adding 1.5 * 2^mantissa_bits rounds x / ln 2 to an integer (ties to even) held in
  // the low bits: subtracting the shifter's bit pattern gives k as an integer without a
  // float-to-int conversion (which would be poison for NaN).
  const double shifter = std::ldexp(1.5, mantissa_bits);
  const double log2e = f32 ? static_cast<double>(0x1.715476p+0f) : 0x1.71547652b82fep+0;
  llvm::Value* shifted = fma(x, c(log2e), c(shifter));
  llvm::Value* k_float = b.CreateFSub(shifted, c(shifter));
  llvm::Value* k =
      b.CreateSub(b.CreateBitCast(shifted, int_type), b.CreateBitCast(c(shifter), int_type));

  // ln 2 = hi + lo; hi has 9 (float) / 32 (double) significant bits, so k * hi is exact
  // for every k the clamp allows, and x - k * hi is exact too (Sterbenz).
  const double ln2_hi = f32 ? 0x1.63p-1 : 0x1.62e42fee00000p-1;
  const double ln2_lo = f32 ? static_cast<double>(-0x1.bd0106p-13f) : 0x1.a39ef35793c76p-33;
  llvm::Value* r = fma(k_float, c(-ln2_hi), x);
  r = fma(k_float, c(BugPlanted(PlantedBug::kExpCorrectionSignFlipped) ? ln2_lo : -ln2_lo), r);

  // Horner's rule down to the constant term: 1 + r (1 + r (1/2 + r (1/6 + ...))).
  const int degree = f32 ? 7 : 13;
  std::array<double, 14> inverse_factorial{1.0};
  for (int n = 1; n <= degree; ++n) inverse_factorial[n] = inverse_factorial[n - 1] / n;
  llvm::Value* p = c(inverse_factorial[degree]);
  for (int n = degree - 1; n >= 0; --n) p = fma(p, r, c(inverse_factorial[n]));

  llvm::Value* k_half = b.CreateAShr(k, i(1));
  auto power_of_two = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, i(bias)), i(mantissa_bits)), t);
  };
  llvm::Value* scaled = b.CreateFMul(p, power_of_two(k_half));
  return b.CreateFMul(scaled, power_of_two(b.CreateSub(k, k_half)));
}

namespace {

// Builders for double-precision IR (scalar; the loop vectorizer widens them).
class DoubleMath {
 public:
  // Double by default; the type-generic builders (C, Fma, Poly, arithmetic, compares,
  // selects, Abs, CopySign, Clamp) also serve f32 code given the float type.
  explicit DoubleMath(llvm::IRBuilder<>& b, llvm::Type* t = nullptr) : b_(b), t_(t != nullptr ? t : b.getDoubleTy()) {}

  llvm::IRBuilder<>& b() { return b_; }
  llvm::Value* C(double v) { return llvm::ConstantFP::get(t_, v); }
  llvm::Value* I(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value* Fma(llvm::Value* m1, llvm::Value* m2, llvm::Value* a) {
    return b_.CreateIntrinsic(llvm::Intrinsic::fmuladd, {t_}, {m1, m2, a});
  }
  // c[0] + c[1] x + c[2] x^2 + ... by Horner's rule.
  llvm::Value* Poly(llvm::Value* x, const std::vector<double>& c) {
    llvm::Value* p = C(c.back());
    for (size_t n = c.size() - 1; n-- > 0;) p = Fma(p, x, C(c[n]));
    return p;
  }
  llvm::Value* Add(llvm::Value* x, llvm::Value* y) { return b_.CreateFAdd(x, y); }
  llvm::Value* Sub(llvm::Value* x, llvm::Value* y) { return b_.CreateFSub(x, y); }
  llvm::Value* Mul(llvm::Value* x, llvm::Value* y) { return b_.CreateFMul(x, y); }
  llvm::Value* Div(llvm::Value* x, llvm::Value* y) { return b_.CreateFDiv(x, y); }
  llvm::Value* Neg(llvm::Value* x) { return b_.CreateFNeg(x); }
  llvm::Value* Abs(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); }
  llvm::Value* Floor(llvm::Value* x) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, x); }
  llvm::Value* CopySign(llvm::Value* magnitude, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  }
  llvm::Value* Select(llvm::Value* c, llvm::Value* x, llvm::Value* y) {
    return b_.CreateSelect(c, x, y);
  }
  llvm::Value* Lt(llvm::Value* x, llvm::Value* y) { return b_.CreateFCmpOLT(x, y); }
  llvm::Value* Gt(llvm::Value* x, llvm::Value* y) { return b_.CreateFCmpOGT(x, y); }
  llvm::Value* Eq(llvm::Value* x, llvm::Value* y) { return b_.CreateFCmpOEQ(x, y); }
  llvm::Value* IsNan(llvm::Value* x) { return b_.CreateFCmpUNO(x, x); }
  llvm::Value* SignBit(llvm::Value* x) { return b_.CreateICmpSLT(Bits(x), I(0)); }
  // x limited to [lo, hi] by compares and selects that let NaN through.
  llvm::Value* Clamp(llvm::Value* x, double lo, double hi) {
    x = Select(Lt(x, C(lo)), C(lo), x);
    return Select(Gt(x, C(hi)), C(hi), x);
  }
  llvm::Value* Bits(llvm::Value* x) { return b_.CreateBitCast(x, b_.getInt64Ty()); }
  llvm::Value* FromBits(llvm::Value* i) { return b_.CreateBitCast(i, t_); }
  // 2^k for an i64 k in the normal range.
  llvm::Value* Pow2(llvm::Value* k) {
    return FromBits(b_.CreateShl(b_.CreateAdd(k, I(1023)), I(52)));
  }
  // An integer-valued double (|k| < 2^31) as i64, without a vector i64 conversion (which
  // AVX2 lacks): adding 1.5 * 2^52 puts k in the low bits.
  llvm::Value* ToInt(llvm::Value* k) {
    const double shifter = 0x1.8p52;
    return b_.CreateSub(Bits(Add(k, C(shifter))), Bits(C(shifter)));
  }
  llvm::Value* Nan() { return C(std::numeric_limits<double>::quiet_NaN()); }
  llvm::Value* Inf() { return C(std::numeric_limits<double>::infinity()); }

 private:
  llvm::IRBuilder<>& b_;
  llvm::Type* t_;
};

constexpr double kLn2Hi = 0x1.62e42fee00000p-1;  // 32 significant bits: k * hi is exact
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
constexpr double kPi = std::numbers::pi;

// 1/n! for n = 0..count-1.
std::vector<double> InverseFactorials(int count) {
  std::vector<double> f(static_cast<size_t>(count), 1.0);
  for (int n = 1; n < count; ++n) f[static_cast<size_t>(n)] = f[static_cast<size_t>(n - 1)] / n;
  return f;
}

// e^x - 1 for a double x in [-40, 100], accurate relative to the result (no cancellation
// near 0): k = round(x / ln2), r = x - k ln2 (Cody-Waite, exact r = x for k = 0), e^r - 1
// = r + r^2 (1/2 + r/6 + ... + r^8/10!) (truncation below 2^-40 relative for |r| <= ln2/2),
// then 2^k (e^r - 1) + (2^k - 1) with 2^k - 1 exact.
llvm::Value* Expm1(DoubleMath& m, llvm::Value* x) {
  const double shifter = 0x1.8p52;
  llvm::Value* shifted = m.Fma(x, m.C(std::numbers::log2e), m.C(shifter));
  llvm::Value* k_float = m.Sub(shifted, m.C(shifter));
  llvm::Value* k = m.b().CreateSub(m.Bits(shifted), m.Bits(m.C(shifter)));
  llvm::Value* r = m.Fma(k_float, m.C(-kLn2Hi), x);
  r = m.Fma(k_float, m.C(-kLn2Lo), r);
  std::vector<double> f = InverseFactorials(11);
  llvm::Value* q = m.Poly(r, std::vector<double>(f.begin() + 2, f.end()));
  llvm::Value* p = m.Fma(m.Mul(r, r), q, r);
  llvm::Value* two_k = m.Pow2(k);
  return m.Fma(two_k, p, m.Sub(two_k, m.C(1.0)));
}

// log(u) for a positive, finite, normal double u: u = 2^k m with m in [sqrt(1/2), sqrt(2)),
// log m = 2 atanh(s) with s = (m - 1) / (m + 1), |s| <= 0.1716, by its series 2s + 2s^3/3
// + ... + 2s^19/19 (truncation below 2^-50 relative), plus k ln2.
llvm::Value* Log(DoubleMath& m, llvm::Value* u) {
  llvm::IRBuilder<>& b = m.b();
  llvm::Value* bits = m.Bits(u);
  llvm::Value* k = b.CreateTrunc(b.CreateSub(b.CreateLShr(bits, 52), m.I(1023)), b.getInt32Ty());
  llvm::Value* mantissa = m.FromBits(
      b.CreateOr(b.CreateAnd(bits, m.I((int64_t{1} << 52) - 1)), m.I(int64_t{1023} << 52)));
  llvm::Value* big = m.Gt(mantissa, m.C(std::numbers::sqrt2));
  mantissa = m.Select(big, m.Mul(mantissa, m.C(0.5)), mantissa);
  k = b.CreateAdd(k, b.CreateZExt(big, b.getInt32Ty()));
  llvm::Value* f = m.Sub(mantissa, m.C(1.0));
  llvm::Value* s = m.Div(f, m.Add(f, m.C(2.0)));
  llvm::Value* z = m.Mul(s, s);
  std::vector<double> c;
  for (int n = 3; n <= 19; n += 2) c.push_back(2.0 / n);
  llvm::Value* log_m = m.Fma(m.Mul(s, z), m.Poly(z, c), m.Add(s, s));
  return m.Fma(b.CreateSIToFP(k, b.getDoubleTy()), m.C(std::numbers::ln2), log_m);
}

// log(x) with its special cases: -inf at +-0, NaN below 0, +inf at +inf, NaN for NaN.
llvm::Value* LogWithSpecials(DoubleMath& m, llvm::Value* x, llvm::Value* log) {
  log = m.Select(m.Eq(x, m.C(0.0)), m.Neg(m.Inf()), log);
  log = m.Select(m.Lt(x, m.C(0.0)), m.Nan(), log);
  log = m.Select(m.Eq(x, m.Inf()), m.Inf(), log);
  return m.Select(m.IsNan(x), x, log);
}

// tanh for f32 in f32 arithmetic (16 lanes to a zmm register, twice the double
// version's; a GELU loop's tanh was bound by vdivpd): a = |x|; below 0.9,
// a + a^3 P(a^2) with P of degree 6, a least-squares fit (Chebyshev nodes in a^2 on
// [0, 0.81]) of (tanh a - a) / a^3, made for this function and rounded to f32
// (2^-27.6 relative before that rounding); from 0.9 on, 1 - 2 / (e^(2a) + 1) with the
// inline f32 exp, a clamped at 9.5 (tanh rounds to 1 beyond 9.01, and e^19 + 1 is
// finite). At 0.9 the subtracted term is at most 0.284, so the exp's error reaches the
// result shrunk by that factor. Tiny a: a^3 underflows and the result is a itself;
// NaN takes the second branch and stays NaN; ±0 and the sign come back by copysign.
// Measured over every input by CpuMathAccuracyTest.Tanh (docs/cpu-backend.md).
llvm::Value* TanhF32(llvm::IRBuilder<>& b, llvm::Value* x) {
  static const std::vector<double> kPoly = {-0x1.555554p-2, 0x1.1110b6p-3,  -0x1.b9fe84p-5, 0x1.648c1p-6,
                                            -0x1.151c84p-7, 0x1.6a7c32p-9, -0x1.123134p-11};
  DoubleMath m(b, b.getFloatTy());
  llvm::Value* a = m.Abs(x);
  llvm::Value* z = m.Mul(a, a);
  llvm::Value* small = m.Fma(m.Mul(a, z), m.Poly(z, kPoly), a);
  llvm::Value* clamped = m.Clamp(a, 0.0, 9.5);
  llvm::Value* e = EmitInlineExp(b, m.Add(clamped, clamped));
  llvm::Value* large = m.Sub(m.C(1.0), m.Div(m.C(2.0), m.Add(e, m.C(1.0))));
  return m.CopySign(m.Select(m.Lt(a, m.C(0.9)), small, large), x);
}

// erf x = sign(x) erf|x|. Below 1: |x| E(x^2), E a least-squares fit (Chebyshev nodes,
// degree 9 in 2x^2 - 1) of erf(sqrt s)/sqrt s, within 2.1e-14 relative. From 1 on:
// 1 - e^(-x^2) G(x), G a fit of erfc(x) e^(x^2) on [1, 4.5] (degree 18 in (x - 2.75) /
// 1.75, within 1.3e-12 relative); x^2 of an f32 is exact in double. Beyond 4.5 (clamped)
// erf is 1 in f32.
llvm::Value* Erf(DoubleMath& m, llvm::Value* x) {
  static const std::vector<double> kSmall = {
      0x1.ee51eb23cb88dp-1,  -0x1.1fd1629214f70p-3,  0x1.454368013c3c7p-6,  -0x1.2b902b7ba7b8ap-9,
      0x1.c82aa345cb92dp-13, -0x1.2639910d3afd4p-16, 0x1.4864d79c92b27p-20, -0x1.429efc899a6e4p-24,
      0x1.1c69aafee1ac9p-28, -0x1.c078574b4ae4ep-33};
  static const std::vector<double> kLarge = {
      0x1.8c9eb68ff32bep-3,  -0x1.c5499221cfb68p-4,  0x1.efb41dde8f7f0p-5,  -0x1.048a8a122f7c0p-5,
      0x1.083ce2c69818ep-6,  -0x1.0356122ec6c0ap-7,  0x1.edde66024c1f1p-9,  -0x1.c9345dc79445cp-10,
      0x1.9c4f58c57a567p-11, -0x1.6ae6f2195fb32p-12, 0x1.37d2e949ba3a4p-13, -0x1.04c7bc09fffccp-14,
      0x1.af81ea5cfd450p-16, -0x1.6e935967bc693p-17, 0x1.1a8cfd2d3a382p-18, -0x1.30e1d229f1827p-20,
      0x1.0baebbf05329bp-21, -0x1.dad2971bc70d9p-22, 0x1.40180001cb999p-23};
  llvm::Value* a = m.Clamp(m.Abs(x), 0.0, 4.5);
  llvm::Value* s = m.Mul(a, a);
  llvm::Value* small = m.Mul(a, m.Poly(m.Fma(s, m.C(2.0), m.C(-1.0)), kSmall));
  llvm::Value* g = m.Poly(m.Fma(a, m.C(1 / 1.75), m.C(-2.75 / 1.75)), kLarge);
  llvm::Value* large = m.Fma(m.Neg(EmitInlineExp(m.b(), m.Neg(s))), g, m.C(1.0));
  return m.CopySign(m.Select(m.Lt(a, m.C(1.0)), small, large), x);
}

// log1p x = log(u) + (x - (u - 1)) / u with u = 1 + x rounded (the quotient restores what
// the rounding of u lost); the sign of a zero is kept.
llvm::Value* Log1p(DoubleMath& m, llvm::Value* x) {
  llvm::Value* u = m.Add(m.C(1.0), x);
  llvm::Value* correction = m.Div(m.Sub(x, m.Sub(u, m.C(1.0))), u);
  llvm::Value* r = LogWithSpecials(m, u, m.Add(Log(m, u), correction));
  r = m.Select(m.Eq(x, m.Inf()), x, r);
  return m.Select(m.Eq(x, m.C(0.0)), x, r);
}

// 2^e (2/pi) mod 4 for every exponent e of an f32 (x = m 2^e with m a 24-bit integer),
// each split into three doubles c1 + c2 + c3 of 27, 27 and 53 bits (so m c1 and m c2 are
// exact): the reduction of Payne and Hanek, with the bits of 2/pi that matter for each
// exponent read from a table instead of a loop. Indexed by the f32's exponent field.
constexpr const char* kTwoOverPiHex =  // floor(2/pi * 2^320)
    "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424dd2e0";

std::array<std::vector<double>, 3> TwoOverPiTable() {
  std::vector<int> bit(1, 0);  // bit[i]: the bit of weight 2^-i of 2/pi
  for (const char* h = kTwoOverPiHex; *h != 0; ++h) {
    const int digit = *h <= '9' ? *h - '0' : *h - 'a' + 10;
    for (int j = 3; j >= 0; --j) bit.push_back((digit >> j) & 1);
  }
  auto chunk = [&](int first, int count, int e) {  // bits first..first+count-1, weight 2^e-i
    uint64_t v = 0;
    for (int i = first; i < first + count; ++i)
      v = v * 2 + static_cast<uint64_t>(bit[static_cast<size_t>(i)]);
    return std::ldexp(static_cast<double>(v), e - (first + count - 1));
  };
  std::array<std::vector<double>, 3> table;
  for (int field = 0; field < 256; ++field) {
    const int e = (field == 0 ? 1 : field) - 150;
    int first = std::max(1, e - 1);  // bits of weight >= 4 drop out mod 4
    while (bit[static_cast<size_t>(first)] == 0) ++first;
    table[0].push_back(field == 255 ? 0 : chunk(first, 27, e));
    table[1].push_back(field == 255 ? 0 : chunk(first + 27, 27, e));
    table[2].push_back(field == 255 ? 0 : chunk(first + 54, 53, e));
  }
  return table;
}

llvm::Value* LoadTable(llvm::IRBuilder<>& b, const std::string& name,
                       const std::vector<double>& values, llvm::Value* index) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::GlobalVariable* table = module.getGlobalVariable(name, true);
  if (table == nullptr) {
    llvm::Constant* init =
        llvm::ConstantDataArray::get(module.getContext(), llvm::ArrayRef<double>(values));
    table = new llvm::GlobalVariable(module, init->getType(), true,
                                     llvm::GlobalValue::PrivateLinkage, init, name);
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    table->setAlignment(llvm::Align(64));
  }
  llvm::Value* address = b.CreateInBoundsGEP(table->getValueType(), table, {b.getInt64(0), index});
  return b.CreateLoad(b.getDoubleTy(), address);
}

// sin x (cosine: true, cos x) of an f32 `x` (as float), for every input: |x| 2/pi = y =
// k + f with k an integer and |f| <= 1/2 (+ a hair), from y = m (c1 + c2 + c3) (table
// above; m c1 - k is exact, then each addition's rounding is relative to the result, so
// f keeps ~2^-52 relative error however close x lies to a multiple of pi/2), a = f pi/2,
// then sin or cos of a by Taylor series (|a| <= 0.786: below 2^-44 relative) picked and
// signed by k mod 4 (plus one for the cosine) and, for the sine, x's sign.
llvm::Value* SinCos(DoubleMath& m, llvm::Value* x, bool cosine) {
  static const std::array<std::vector<double>, 3> kTable = TwoOverPiTable();
  llvm::IRBuilder<>& b = m.b();
  llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value* field = b.CreateAnd(b.CreateLShr(bits, 23), b.getInt32(0xFF));
  llvm::Value* integer = b.CreateAnd(bits, b.getInt32(0x7FFFFF));
  llvm::Value* normal = b.CreateICmpNE(field, b.getInt32(0));
  integer = b.CreateOr(integer, b.CreateSelect(normal, b.getInt32(0x800000), b.getInt32(0)));
  llvm::Value* mant = b.CreateUIToFP(integer, b.getDoubleTy());
  llvm::Value* index = b.CreateZExt(field, b.getInt64Ty());
  llvm::Value* p1 = m.Mul(mant, LoadTable(b, "fusebox.two_over_pi.0", kTable[0], index));
  llvm::Value* p2 = m.Mul(mant, LoadTable(b, "fusebox.two_over_pi.1", kTable[1], index));
  llvm::Value* p3 = m.Mul(mant, LoadTable(b, "fusebox.two_over_pi.2", kTable[2], index));
  llvm::Value* k = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, m.Add(p1, p2));
  llvm::Value* f = m.Add(m.Add(m.Sub(p1, k), p2), p3);
  llvm::Value* a = m.Mul(f, m.C(kPi / 2));
  llvm::Value* z = m.Mul(a, a);
  std::vector<double> inv = InverseFactorials(17);
  std::vector<double> sin_c, cos_c;
  for (int n = 3, sign = -1; n <= 15; n += 2, sign = -sign)
    sin_c.push_back(sign * inv[static_cast<size_t>(n)]);
  for (int n = 2, sign = -1; n <= 16; n += 2, sign = -sign)
    cos_c.push_back(sign * inv[static_cast<size_t>(n)]);
  llvm::Value* sin_a = m.Fma(m.Mul(a, z), m.Poly(z, sin_c), a);
  llvm::Value* cos_a = m.Fma(z, m.Poly(z, cos_c), m.C(1.0));
  llvm::Value* quadrant = m.ToInt(k);
  if (cosine) quadrant = b.CreateAdd(quadrant, m.I(1));
  auto bit_set = [&](int64_t bit) {
    return b.CreateICmpNE(b.CreateAnd(quadrant, m.I(bit)), m.I(0));
  };
  llvm::Value* r = m.Select(bit_set(1), cos_a, sin_a);
  r = m.Select(bit_set(2), m.Neg(r), r);
  if (!cosine) r = m.Select(b.CreateICmpSLT(bits, b.getInt32(0)), m.Neg(r), r);
  return m.Select(b.CreateICmpEQ(field, b.getInt32(0xFF)), m.Nan(), r);
}

// cbrt x = sign(x) 2^q cbrt(a) with |x| = 2^(3q + r) mantissa, a = 2^r mantissa in [1, 8):
// a cubic least-squares guess (within 0.72%) and three Newton steps y -= (y - a/y^2) / 3
// (0.72% -> 5e-5 -> 3e-9 -> 1e-17). ±0, ±inf and NaN are their own cube roots.
llvm::Value* Cbrt(DoubleMath& m, llvm::Value* x) {
  llvm::IRBuilder<>& b = m.b();
  llvm::Value* a = m.Abs(x);
  llvm::Value* bits = m.Bits(a);
  llvm::Value* e = b.CreateTrunc(b.CreateSub(b.CreateLShr(bits, 52), m.I(1023)), b.getInt32Ty());
  llvm::Value* e_float = b.CreateSIToFP(e, b.getDoubleTy());
  llvm::Value* q = m.Floor(m.Div(e_float, m.C(3.0)));  // correctly rounded: exact at multiples of 3
  llvm::Value* r = m.Sub(e_float, m.Mul(q, m.C(3.0)));
  llvm::Value* scaled =
      m.FromBits(b.CreateOr(b.CreateAnd(bits, m.I((int64_t{1} << 52) - 1)),
                            b.CreateShl(b.CreateAdd(m.ToInt(r), m.I(1023)), m.I(52))));
  llvm::Value* y = m.Poly(
      m.Fma(scaled, m.C(1 / 3.5), m.C(-4.5 / 3.5)),
      {0x1.a81ac0710a062p+0, 0x1.a6049abb1559ep-2, -0x1.3298608abfa10p-3, 0x1.672a6352f10cdp-4});
  for (int step = 0; step < 3; ++step) {
    llvm::Value* residual = m.Sub(y, m.Div(scaled, m.Mul(y, y)));
    y = m.Fma(residual, m.C(-1.0 / 3.0), y);
  }
  llvm::Value* root = m.CopySign(m.Mul(y, m.Pow2(m.ToInt(q))), x);
  llvm::Value* special = b.CreateOr(m.Eq(a, m.C(0.0)), b.CreateOr(m.Eq(a, m.Inf()), m.IsNan(a)));
  return m.Select(special, x, root);
}

// atan2(y, x): t = min(|y|, |x|) / max(|y|, |x|) in [0, 1]; atan t by its Taylor series
// after t > tan(pi/8) is moved to pi/4 + atan((t - 1) / (t + 1)) (|u| <= 0.4142: terms to
// u^29, truncation below 2^-40 relative); then pi/2 - a when |y| > |x|, pi - a when x's
// sign is set, and y's sign. Both zero: t = 0 (so ±0 or ±pi); both infinite: t = 1 (±pi/4
// or ±3pi/4).
llvm::Value* Atan2(DoubleMath& m, llvm::Value* y, llvm::Value* x) {
  llvm::IRBuilder<>& b = m.b();
  llvm::Value* ay = m.Abs(y);
  llvm::Value* ax = m.Abs(x);
  llvm::Value* swap = m.Gt(ay, ax);
  llvm::Value* t = m.Div(m.Select(swap, ax, ay), m.Select(swap, ay, ax));
  t = m.Select(b.CreateAnd(m.Eq(ay, m.C(0.0)), m.Eq(ax, m.C(0.0))), m.C(0.0), t);
  t = m.Select(b.CreateAnd(m.Eq(ay, m.Inf()), m.Eq(ax, m.Inf())), m.C(1.0), t);
  llvm::Value* reduce = m.Gt(t, m.C(0.41421356237309503));
  llvm::Value* u = m.Select(reduce, m.Div(m.Sub(t, m.C(1.0)), m.Add(t, m.C(1.0))), t);
  llvm::Value* z = m.Mul(u, u);
  std::vector<double> c;
  for (int n = 1; n <= 14; ++n) c.push_back((n % 2 == 0 ? 1.0 : -1.0) / (2 * n + 1));
  llvm::Value* a = m.Fma(m.Mul(u, z), m.Poly(z, c), u);
  a = m.Select(reduce, m.Add(a, m.C(kPi / 4)), a);
  a = m.Select(swap, m.Sub(m.C(kPi / 2), a), a);
  a = m.Select(m.SignBit(x), m.Sub(m.C(kPi), a), a);
  return m.CopySign(a, y);
}

// pow(x, y) = ±e^(y log|x|) (log above, exp in double: y log|x| keeps ~2^-45 absolute
// error where the result is a finite nonzero f32), with C's powf special cases: 1 for
// y = ±0 or x = 1 (even NaN), x = ±1 with y = ±inf is 1, a negative finite x with a
// non-integer y is NaN, a negative x (or -0, -inf) with an odd integer y negates.
llvm::Value* Pow(DoubleMath& m, llvm::Value* x, llvm::Value* y) {
  llvm::IRBuilder<>& b = m.b();
  llvm::Value* ax = m.Abs(x);
  llvm::Value* log = LogWithSpecials(m, ax, Log(m, ax));
  llvm::Value* magnitude = EmitInlineExp(b, m.Mul(y, log));
  llvm::Value* y_integer = m.Eq(m.Floor(y), y);  // also for ±inf
  llvm::Value* half = m.Mul(y, m.C(0.5));
  llvm::Value* y_odd = b.CreateAnd(y_integer, b.CreateFCmpUNE(m.Floor(half), half));
  llvm::Value* r = m.Select(b.CreateAnd(m.SignBit(x), y_odd), m.Neg(magnitude), magnitude);
  llvm::Value* negative_finite = b.CreateAnd(m.Lt(x, m.C(0.0)), b.CreateFCmpONE(x, m.Neg(m.Inf())));
  r = m.Select(b.CreateAnd(negative_finite, b.CreateNot(y_integer)), m.Nan(), r);
  r = m.Select(b.CreateAnd(m.Eq(ax, m.C(1.0)), m.Eq(m.Abs(y), m.Inf())), m.C(1.0), r);
  r = m.Select(b.CreateOr(m.IsNan(x), m.IsNan(y)), m.Nan(), r);
  return m.Select(b.CreateOr(m.Eq(x, m.C(1.0)), m.Eq(y, m.C(0.0))), m.C(1.0), r);
}

}  // namespace

llvm::Value* EmitInlineF32Math(llvm::IRBuilder<>& b, Opcode op, llvm::Value* x, llvm::Value* y) {
  const bool binary = op == Opcode::kAtan2 || op == Opcode::kPower;
  const bool unary = op == Opcode::kTanh || op == Opcode::kErf || op == Opcode::kExpm1 ||
                     op == Opcode::kLog1p || op == Opcode::kSin || op == Opcode::kCos ||
                     op == Opcode::kCbrt;
  if (!x->getType()->isFloatTy() || !(unary || (binary && y != nullptr))) return nullptr;
  if (op == Opcode::kTanh) return TanhF32(b, x);
  DoubleMath m(b);
  auto wide = [&](llvm::Value* v) { return b.CreateFPExt(v, b.getDoubleTy()); };
  llvm::Value* d = wide(x);
  llvm::Value* r = nullptr;
  switch (op) {
    case Opcode::kErf:
      r = Erf(m, d);
      break;
    case Opcode::kExpm1: {
      // Beyond [-40, 100] e^x - 1 is -1 or overflows f32 anyway; ±0 keep their sign.
      r = Expm1(m, m.Clamp(d, -40.0, 100.0));
      r = m.Select(m.Eq(d, m.C(0.0)), d, r);
      break;
    }
    case Opcode::kLog1p:
      r = Log1p(m, d);
      break;
    case Opcode::kSin:
      r = SinCos(m, x, false);
      break;
    case Opcode::kCos:
      r = SinCos(m, x, true);
      break;
    case Opcode::kCbrt:
      r = Cbrt(m, d);
      break;
    case Opcode::kAtan2:
      r = Atan2(m, d, wide(y));
      break;
    case Opcode::kPower:
      r = Pow(m, d, wide(y));
      break;
    default:
      break;
  }
  return r == nullptr ? nullptr : b.CreateFPTrunc(r, b.getFloatTy());
}

}  // namespace fusebox::codegen
