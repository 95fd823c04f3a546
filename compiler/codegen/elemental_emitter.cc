#include "compiler/codegen/elemental_emitter.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <map>

#include "compiler/ir/literal.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::codegen {
namespace {


// Row-major strides of `shape`'s dimensions, in elements.
std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  for (int64_t d = shape.rank() - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  return strides;
}

}  // namespace

namespace {

// Narrow floats (f16, bf16, the f8 types and f4e2m1fn) live in float registers and are
// rounded back to their type after every operation, as the reference interpreter does.
bool IsNarrowFloat(PrimitiveType t) {
  return IsFloat(t) && t != PrimitiveType::kF32 && t != PrimitiveType::kF64;
}

// s1..s4 and u1..u4: one byte per element holding the low bits, zero-extended (what
// Literal::SetBits stores, so a negative s4 is 0x0F..0x08), and iN in registers.
bool IsSubByteInt(PrimitiveType t) { return IsInteger(t) && BitWidth(t) < 8; }

// A decoded narrow-float NaN keeps its encoding in the low bits of the float's payload,
// under this tag, so that loads and stores (moves, bitcast-convert, total-order compares)
// keep every NaN's bits; arithmetic results are canonicalized by RoundToType first.
constexpr uint32_t kNanTag = 0x7FC00100;
constexpr uint32_t kNanTagMask = 0x7FFFFF00;

// What the literal codec (compiler/ir/literal.cc, DoubleToFloatBits) does with a narrow
// float, read off the codec itself so that the emitted encoder matches it bit for bit.
struct NarrowFloatCodec {
  int width = 0;
  int mantissa_bits = 0;
  int bias = 0;
  bool is_signed = true;          // f8e8m0fnu has no sign bit
  bool has_subnormals = true;     // f8e8m0fnu has none (and no zero)
  bool no_negative_zero = false;  // fnuz types: -0 encodes as +0
  uint64_t max_finite = 0;        // the largest finite magnitude's encoding
  uint64_t nan[2] = {0, 0};       // by sign: the NaN encoding of +NaN, -NaN
  uint64_t overflow[2] = {0, 0};  // by sign: too large or infinite
};

NarrowFloatCodec MakeCodec(PrimitiveType type) {
  NarrowFloatCodec c;
  c.width = BitWidth(type);
  c.mantissa_bits = MantissaBits(type);
  // Exponent field 1 with a zero mantissa is the smallest normal, 2^(1 - bias).
  c.bias = 1 - std::ilogb(FloatBitsToDouble(type, uint64_t{1} << c.mantissa_bits));
  c.is_signed = type != PrimitiveType::kF8E8M0FNU;
  c.has_subnormals = c.is_signed;
  c.no_negative_zero = c.is_signed && DoubleToFloatBits(type, -0.0) == 0;
  const uint64_t magnitudes = uint64_t{1} << (c.is_signed ? c.width - 1 : c.width);
  for (uint64_t bits = 0; bits < magnitudes; ++bits) {
    if (std::isfinite(FloatBitsToDouble(type, bits))) c.max_finite = bits;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  c.nan[0] = DoubleToFloatBits(type, nan);
  c.nan[1] = DoubleToFloatBits(type, -nan);
  c.overflow[0] = DoubleToFloatBits(type, inf);
  c.overflow[1] = DoubleToFloatBits(type, -inf);
  return c;
}

const NarrowFloatCodec& CodecFor(PrimitiveType type) {
  static const auto* codecs = [] {
    auto* table = new std::map<PrimitiveType, NarrowFloatCodec>();
    for (PrimitiveType t :
         {PrimitiveType::kF16, PrimitiveType::kBF16, PrimitiveType::kF8E5M2, PrimitiveType::kF8E4M3,
          PrimitiveType::kF8E4M3FN, PrimitiveType::kF8E4M3B11FNUZ, PrimitiveType::kF8E5M2FNUZ,
          PrimitiveType::kF8E4M3FNUZ, PrimitiveType::kF8E3M4, PrimitiveType::kF8E8M0FNU,
          PrimitiveType::kF4E2M1FN}) {
      (*table)[t] = MakeCodec(t);
    }
    return table;
  }();
  return codecs->at(type);
}

// The encoding of the double `value` in narrow float `type` (an i64), rounded to nearest
// even with the codec's overflow, NaN and zero rules: DoubleToFloatBits in IR.
llvm::Value* EncodeNarrowFloat(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value) {
  const NarrowFloatCodec& c = CodecFor(type);
  auto k = [&](uint64_t v) { return b.getInt64(v); };
  llvm::Value* bits = b.CreateBitCast(value, b.getInt64Ty());
  llvm::Value* negative = b.CreateICmpSLT(bits, k(0));
  llvm::Value* magnitude = b.CreateAnd(bits, k(0x7FFFFFFFFFFFFFFF));
  llvm::Value* exponent = b.CreateLShr(magnitude, 52);
  // Normal range: round the double's bits at the type's last mantissa bit; a carry moves
  // into the exponent, and rebiasing the exponent field gives the encoding. Without
  // mantissa bits (f8e8m0fnu) the significand 1 is odd, so ties round up.
  const int shift = 52 - c.mantissa_bits;
  llvm::Value* round = k(uint64_t{1} << (shift - 1));
  if (c.mantissa_bits > 0) {
    round = b.CreateAdd(k((uint64_t{1} << (shift - 1)) - 1),
                        b.CreateAnd(b.CreateLShr(magnitude, shift), k(1)));
  }
  llvm::Value* normal = b.CreateSub(b.CreateLShr(b.CreateAdd(magnitude, round), shift),
                                    k(static_cast<uint64_t>(1023 - c.bias) << c.mantissa_bits));
  // Below the smallest normal: a count of the smallest subnormal (exact scaling, then
  // round half to even); f8e8m0fnu gives its smallest value 2^-127 instead.
  const int64_t min_normal_exponent = 1023 - c.bias + (c.has_subnormals ? 1 : 0);
  llvm::Value* small = k(0);
  if (c.has_subnormals) {
    llvm::Value* abs = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, value);
    llvm::Value* scaled = b.CreateFMul(
        abs, llvm::ConstantFP::get(b.getDoubleTy(), std::ldexp(1.0, c.bias + c.mantissa_bits - 1)));
    llvm::Value* rounded = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, scaled);
    llvm::Function* to_int = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(),
                                                             llvm::Intrinsic::fptoui_sat,
                                                             {b.getInt64Ty(), b.getDoubleTy()});
    small = b.CreateCall(to_int, {rounded});
  }
  llvm::Value* encoded =
      b.CreateSelect(b.CreateICmpSLT(exponent, k(min_normal_exponent)), small, normal);
  llvm::Value* result = encoded;
  if (c.is_signed)
    result = b.CreateOr(result, b.CreateSelect(negative, k(uint64_t{1} << (c.width - 1)), k(0)));
  if (c.no_negative_zero) result = b.CreateSelect(b.CreateICmpEQ(encoded, k(0)), k(0), result);
  llvm::Value* overflow = b.CreateICmpUGT(encoded, k(c.max_finite));
  result = b.CreateSelect(overflow, b.CreateSelect(negative, k(c.overflow[1]), k(c.overflow[0])),
                          result);
  llvm::Value* is_nan = b.CreateFCmpUNO(value, value);
  result = b.CreateSelect(is_nan, b.CreateSelect(negative, k(c.nan[1]), k(c.nan[0])), result);
  if (!c.is_signed) {
    // No zero and no negatives (not even -0): NaN.
    llvm::Value* zero = b.CreateFCmpOEQ(value, llvm::ConstantFP::get(b.getDoubleTy(), 0.0));
    result = b.CreateSelect(b.CreateOr(negative, zero), k(c.nan[0]), result);
  }
  return result;
}

// Every value of an f8/f4 type as float, indexed by encoding (NaNs tagged with theirs).
llvm::GlobalVariable* DecodeTable(llvm::Module& module, PrimitiveType type) {
  const std::string name = "fusebox.decode." + std::string(PrimitiveTypeName(type));
  if (llvm::GlobalVariable* table = module.getGlobalVariable(name, true)) return table;
  std::vector<float> values(size_t{1} << BitWidth(type));
  for (uint64_t bits = 0; bits < values.size(); ++bits) {
    const double v = FloatBitsToDouble(type, bits);
    values[bits] = static_cast<float>(v);
    if (std::isnan(v)) {
      const uint32_t sign = std::signbit(v) ? 0x80000000u : 0u;
      values[bits] = std::bit_cast<float>(sign | kNanTag | static_cast<uint32_t>(bits));
    }
  }
  llvm::Constant* init =
      llvm::ConstantDataArray::get(module.getContext(), llvm::ArrayRef<float>(values));
  auto* table = new llvm::GlobalVariable(module, init->getType(), true,
                                         llvm::GlobalValue::PrivateLinkage, init, name);
  table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  table->setAlignment(llvm::Align(64));
  return table;
}

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

}  // namespace

StatusOr<llvm::Type*> StorageType(llvm::LLVMContext& c, PrimitiveType type) {
  if (IsSubByteInt(type) || (IsNarrowFloat(type) && BitWidth(type) <= 8))
    return llvm::Type::getInt8Ty(c);
  switch (type) {
    case PrimitiveType::kPred:
    case PrimitiveType::kS8:
    case PrimitiveType::kU8:
      return llvm::Type::getInt8Ty(c);
    case PrimitiveType::kS16:
    case PrimitiveType::kU16:
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return llvm::Type::getInt16Ty(c);
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
      return llvm::Type::getInt32Ty(c);
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      return llvm::Type::getInt64Ty(c);
    case PrimitiveType::kF32:
      return llvm::Type::getFloatTy(c);
    case PrimitiveType::kF64:
      return llvm::Type::getDoubleTy(c);
    case PrimitiveType::kC64:  // {re, im}, laid out like std::complex
      return llvm::StructType::get(c, {llvm::Type::getFloatTy(c), llvm::Type::getFloatTy(c)});
    case PrimitiveType::kC128:
      return llvm::StructType::get(c, {llvm::Type::getDoubleTy(c), llvm::Type::getDoubleTy(c)});
    default:
      return Unimplemented("the CPU backend does not support element type " +
                           std::string(PrimitiveTypeName(type)) + " yet");
  }
}

StatusOr<llvm::Type*> RegisterType(llvm::LLVMContext& c, PrimitiveType type) {
  if (type == PrimitiveType::kPred) return llvm::Type::getInt1Ty(c);
  if (IsSubByteInt(type)) return llvm::Type::getIntNTy(c, BitWidth(type));
  if (IsNarrowFloat(type)) return llvm::Type::getFloatTy(c);
  return StorageType(c, type);
}

llvm::Value* IrArray::LinearIndex(llvm::IRBuilder<>& b, const IrIndex& index) const {
  std::vector<int64_t> strides = Strides(shape_);
  llvm::Value* linear = b.getInt64(0);
  for (size_t d = 0; d < index.size(); ++d) {
    if (shape_.dimensions(d) == 1) continue;
    llvm::Value* term =
        strides[d] == 1 ? index[d] : b.CreateMul(index[d], b.getInt64(strides[d]), "", true, true);
    linear = d == 0 && linear == b.getInt64(0) ? term : b.CreateAdd(linear, term, "", true, true);
  }
  return linear;
}

llvm::Value* IrArray::Address(llvm::IRBuilder<>& b, const IrIndex& index) const {
  llvm::Type* type = *StorageType(b.getContext(), shape_.element_type());
  return b.CreateInBoundsGEP(type, base_, {LinearIndex(b, index)});
}

llvm::Value* ToRegister(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* stored) {
  if (type == PrimitiveType::kPred) return b.CreateICmpNE(stored, b.getInt8(0));
  if (IsSubByteInt(type)) return b.CreateTrunc(stored, b.getIntNTy(BitWidth(type)));
  if (type == PrimitiveType::kF16) {
    // fpext quiets a signaling NaN: NaNs move their sign and payload over bit by bit.
    llvm::Value* value = b.CreateFPExt(b.CreateBitCast(stored, b.getHalfTy()), b.getFloatTy());
    llvm::Value* wide = b.CreateZExt(stored, b.getInt32Ty());
    llvm::Value* is_nan = b.CreateICmpUGT(b.CreateAnd(wide, 0x7FFF), b.getInt32(0x7C00));
    llvm::Value* nan =
        b.CreateOr(b.CreateShl(b.CreateAnd(wide, 0x8000), 16),
                   b.CreateOr(b.CreateShl(b.CreateAnd(wide, 0x3FF), 13), b.getInt32(0x7F800000)));
    return b.CreateSelect(is_nan, b.CreateBitCast(nan, b.getFloatTy()), value);
  }
  if (type == PrimitiveType::kBF16) {
    llvm::Value* wide = b.CreateShl(b.CreateZExt(stored, b.getInt32Ty()), 16);
    return b.CreateBitCast(wide, b.getFloatTy());
  }
  if (IsNarrowFloat(type)) {
    llvm::GlobalVariable* table = DecodeTable(*b.GetInsertBlock()->getModule(), type);
    const uint64_t mask = (uint64_t{1} << BitWidth(type)) - 1;
    llvm::Value* index =
        b.CreateZExt(b.CreateAnd(stored, b.getInt8(static_cast<uint8_t>(mask))), b.getInt64Ty());
    return b.CreateLoad(b.getFloatTy(),
                        b.CreateInBoundsGEP(table->getValueType(), table, {b.getInt64(0), index}));
  }
  return stored;
}

llvm::Value* ToStorage(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value) {
  if (type == PrimitiveType::kPred) return b.CreateZExt(value, b.getInt8Ty());
  if (IsSubByteInt(type)) return b.CreateZExt(value, b.getInt8Ty());
  if (IsNarrowFloat(type) && value->getType()->isDoubleTy()) {
    // Straight from a double (convert from f64): one rounding, as the interpreter does.
    return b.CreateTrunc(EncodeNarrowFloat(b, type, value),
                         b.getIntNTy(BitWidth(type) > 8 ? 16 : 8));
  }
  if (type == PrimitiveType::kF16) {
    llvm::Value* half = b.CreateBitCast(b.CreateFPTrunc(value, b.getHalfTy()), b.getInt16Ty());
    // fptrunc quiets a signaling NaN: NaNs keep their sign and top payload bits instead
    // (a payload that does not reach them becomes the quiet bit).
    llvm::Value* bits = b.CreateBitCast(value, b.getInt32Ty());
    llvm::Value* payload = b.CreateAnd(b.CreateLShr(bits, 13), 0x3FF);
    payload = b.CreateSelect(b.CreateICmpEQ(payload, b.getInt32(0)), b.getInt32(0x200), payload);
    llvm::Value* nan =
        b.CreateOr(b.CreateAnd(b.CreateLShr(bits, 16), 0x8000), b.CreateOr(payload, 0x7C00));
    return b.CreateSelect(b.CreateFCmpUNO(value, value), b.CreateTrunc(nan, b.getInt16Ty()), half);
  }
  if (type == PrimitiveType::kBF16) {
    // Round to nearest even on the bits; a NaN keeps its sign and top payload bits (the
    // quiet bit when none of the payload reaches them).
    llvm::Value* bits = b.CreateBitCast(value, b.getInt32Ty());
    llvm::Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), b.getInt32(1));
    llvm::Value* rounded = b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7FFF)));
    llvm::Value* top = b.CreateLShr(bits, 16);
    llvm::Value* no_payload = b.CreateICmpEQ(b.CreateAnd(top, 0x7F), b.getInt32(0));
    llvm::Value* nan = b.CreateOr(top, b.CreateSelect(no_payload, b.getInt32(0x40), b.getInt32(0)));
    llvm::Value* chosen =
        b.CreateSelect(b.CreateFCmpUNO(value, value), nan, b.CreateLShr(rounded, 16));
    return b.CreateTrunc(chosen, b.getInt16Ty());
  }
  if (IsNarrowFloat(type)) {
    // A value just read from the type's decode table stores back as the encoding it was
    // read at (moves of f8 data need no encoder).
    if (auto* load = llvm::dyn_cast<llvm::LoadInst>(value)) {
      auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(load->getPointerOperand());
      if (gep != nullptr && gep->getNumIndices() == 2 && b.GetInsertBlock() != nullptr &&
          gep->getPointerOperand() == DecodeTable(*b.GetInsertBlock()->getModule(), type)) {
        return b.CreateTrunc(gep->getOperand(2), b.getInt8Ty());
      }
    }
    llvm::Value* encoded = EncodeNarrowFloat(b, type, b.CreateFPExt(value, b.getDoubleTy()));
    // A NaN decoded from memory goes back to its own encoding.
    llvm::Value* bits = b.CreateBitCast(value, b.getInt32Ty());
    llvm::Value* tagged = b.CreateICmpEQ(b.CreateAnd(bits, kNanTagMask), b.getInt32(kNanTag));
    llvm::Value* own = b.CreateZExt(b.CreateAnd(bits, 0xFF), b.getInt64Ty());
    return b.CreateTrunc(b.CreateSelect(tagged, own, encoded), b.getInt8Ty());
  }
  return value;
}

size_t ElementalEmitter::KeyHash::operator()(const CacheKey& key) const {
  size_t h = std::hash<const void*>()(key.first);
  for (llvm::Value* v : key.second) h = h * 31 + std::hash<const void*>()(v);
  return h;
}

ElementalEmitter::ElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& module,
                                   const ElementalEmitterOptions& options)
    : b_(b), module_(module), context_(module.getContext()), options_(options) {
  scopes_.emplace_back();
}

void ElementalEmitter::BindArray(const Instruction* inst, IrArray array) {
  arrays_[inst] = std::move(array);
}

void ElementalEmitter::BindPartials(const Instruction* reduce, IrArray partials) {
  partials_[reduce] = std::move(partials);
}

void ElementalEmitter::BindColumnPartials(const Instruction* reduce, IrArray partials) {
  column_partials_[reduce] = std::move(partials);
}

void ElementalEmitter::BindScalar(const Instruction* inst, llvm::Value* value) {
  scalars_[inst] = {value};
}

void ElementalEmitter::BindValues(const Instruction* inst, std::vector<llvm::Value*> values) {
  scalars_[inst] = std::move(values);
}

void ElementalEmitter::BindRowArray(const Instruction* inst, IrArray row) { row_arrays_[inst] = std::move(row); }

void ElementalEmitter::Unbind(const Instruction* inst) {
  scalars_.erase(inst);
  row_arrays_.erase(inst);
}

llvm::Value* ElementalEmitter::Poison(const Shape& shape) {
  if (!shape.IsArray()) return llvm::PoisonValue::get(b_.getInt64Ty());
  auto type = RegisterType(context_, shape.element_type());
  return llvm::PoisonValue::get(type.ok() ? *type : b_.getInt64Ty());
}

llvm::Value* ElementalEmitter::Fail(const Instruction* inst, const std::string& message) {
  if (status_.ok()) {
    status_ = Unimplemented("cannot emit " + inst->name() + " (" +
                            std::string(OpcodeName(inst->opcode())) + "): " + message);
  }
  return Poison(inst->shape());
}

llvm::AllocaInst* ElementalEmitter::EntryAlloca(llvm::Type* type, const std::string& name) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

llvm::Value* ElementalEmitter::Emit(const Instruction* inst, const IrIndex& index) {
  std::vector<llvm::Value*> values = EmitAll(inst, index);
  if (values.size() != 1) return Fail(inst, "a tuple-shaped value is used as an array");
  return values[0];
}

std::vector<llvm::Value*> ElementalEmitter::EmitAll(const Instruction* inst, const IrIndex& index) {
  if (auto it = scalars_.find(inst); it != scalars_.end()) return it->second;
  CacheKey key{inst, index};
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    if (auto it = scope->find(key); it != scope->end()) return it->second;
  }
  std::vector<llvm::Value*> values;
  auto bound = arrays_.find(inst);
  auto row = row_arrays_.find(inst);
  if (bound != arrays_.end() || row != row_arrays_.end()) {
    const IrArray& array = row != row_arrays_.end() ? row->second : bound->second;
    IrIndex at = index;
    if (row != row_arrays_.end()) {
      const size_t drop = at.size() - std::min(at.size(), static_cast<size_t>(array.shape().rank()));
      at.erase(at.begin(), at.begin() + static_cast<std::ptrdiff_t>(drop));
    }
    PrimitiveType type = array.shape().element_type();
    auto storage = StorageType(context_, type);
    if (!storage.ok()) {
      values = {Fail(inst, storage.status().message())};
    } else {
      llvm::Value* loaded = b_.CreateLoad(*storage, array.Address(b_, at), inst->name());
      values = {ToRegister(b_, type, loaded)};
    }
  } else {
    values = EmitUncached(inst, index);
  }
  scopes_.back()[key] = values;
  return values;
}

void ElementalEmitter::EmitLoop(llvm::Value* begin, llvm::Value* end, const std::string& name,
                                const std::function<void(llvm::Value*)>& body) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(context_, name + ".header", fn);
  llvm::BasicBlock* loop_body = llvm::BasicBlock::Create(context_, name + ".body", fn);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(context_, name + ".exit", fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, name);
  i->addIncoming(begin, preheader);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), loop_body, exit);
  b_.SetInsertPoint(loop_body);
  scopes_.emplace_back();
  body(i);
  scopes_.pop_back();
  llvm::Value* next = b_.CreateAdd(i, b_.getInt64(1), name + ".next", true, true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
}

void ElementalEmitter::EmitLoopNest(const std::vector<int64_t>& bounds,
                                    const std::vector<int64_t>& order, const std::string& name,
                                    const std::function<void(const IrIndex&)>& body) {
  IrIndex index(bounds.size(), nullptr);
  std::function<void(size_t)> level = [&](size_t k) {
    if (k == order.size()) {
      body(index);
      return;
    }
    int64_t dim = order[k];
    if (bounds[dim] == 1) {
      index[dim] = b_.getInt64(0);
      level(k + 1);
      return;
    }
    EmitLoop(b_.getInt64(0), b_.getInt64(bounds[dim]), name + "." + std::to_string(dim),
             [&](llvm::Value* i) {
               index[dim] = i;
               level(k + 1);
             });
  };
  level(0);
}

llvm::Value* ElementalEmitter::Constant(PrimitiveType type, double value) {
  llvm::Type* t = *RegisterType(context_, type);
  // A narrow float constant is the type's value nearest `value`.
  if (IsNarrowFloat(type)) value = FloatBitsToDouble(type, DoubleToFloatBits(type, value));
  if (t->isFloatingPointTy()) return llvm::ConstantFP::get(t, value);
  if (IsComplex(type)) {
    llvm::Type* real = t->getStructElementType(0);
    return llvm::ConstantStruct::get(
        llvm::cast<llvm::StructType>(t),
        {llvm::ConstantFP::get(real, value), llvm::ConstantFP::get(real, 0.0)});
  }
  if (type == PrimitiveType::kPred) return b_.getInt1(value != 0);
  return llvm::ConstantInt::get(t, static_cast<uint64_t>(static_cast<int64_t>(value)), true);
}

llvm::Value* ElementalEmitter::RoundToType(PrimitiveType type, llvm::Value* value) {
  if (!IsNarrowFloat(type) || skip_rounding_) return value;
  if (value->getType()->isFloatTy()) {
    // A NaN result is the type's quiet NaN with the result's sign, as the interpreter
    // stores it (a NaN operand's payload does not survive arithmetic).
    llvm::Value* sign = b_.CreateAnd(b_.CreateBitCast(value, b_.getInt32Ty()), 0x80000000);
    llvm::Value* quiet = b_.CreateBitCast(b_.CreateOr(sign, 0x7FC00000), b_.getFloatTy());
    value = b_.CreateSelect(b_.CreateFCmpUNO(value, value), quiet, value);
  }
  return ToRegister(b_, type, ToStorage(b_, type, value));
}

llvm::Value* ElementalEmitter::CallLibm(const std::string& name, PrimitiveType type,
                                        const std::vector<llvm::Value*>& args) {
  llvm::Type* t = args[0]->getType();
  std::string symbol = name + (t->isFloatTy() ? "f" : "");
  std::vector<llvm::Type*> params(args.size(), t);
  llvm::FunctionCallee callee =
      module_.getOrInsertFunction(symbol, llvm::FunctionType::get(t, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    f->setOnlyAccessesInaccessibleMemory();
  }
  return RoundToType(type, b_.CreateCall(callee, args));
}

llvm::Value* ElementalEmitter::Exp(llvm::Value* x) {
  llvm::Type* t = x->getType();
  if (options_.inline_exp && (t->isFloatTy() || t->isDoubleTy())) return EmitInlineExp(b_, x);
  return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
}

llvm::Value* ElementalEmitter::Intrinsic(llvm::Intrinsic::ID id, PrimitiveType type,
                                         const std::vector<llvm::Value*>& args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(&module_, id, {args[0]->getType()});
  return RoundToType(type, b_.CreateCall(f, args));
}

std::vector<llvm::Value*> ElementalEmitter::EmitReducer(const Computation& reducer,
                                                       const std::vector<llvm::Value*>& args) {
  const bool saved_rounding = skip_rounding_;
  skip_rounding_ = true;
  std::vector<llvm::Value*> results = EmitScalarComputation(reducer, args);
  skip_rounding_ = saved_rounding;
  return results;
}

std::vector<llvm::Value*> ElementalEmitter::EmitScalarComputation(
    const Computation& computation, const std::vector<llvm::Value*>& args) {
  for (int64_t i = 0; i < computation.parameter_count() && i < static_cast<int64_t>(args.size()); ++i) {
    scalars_[computation.parameter(i)] = {args[i]};
  }
  // Values of the computation's body depend on the arguments: keep them in a scope.
  scopes_.emplace_back();
  std::vector<llvm::Value*> results;
  const Instruction* root = computation.root();
  if (root->opcode() == Opcode::kTuple) {
    for (const Instruction* op : root->operands()) results.push_back(Emit(op, {}));
  } else {
    results = EmitAll(root, {});
  }
  scopes_.pop_back();
  for (int64_t i = 0; i < computation.parameter_count(); ++i) scalars_.erase(computation.parameter(i));
  return results;
}

std::vector<llvm::Value*> ElementalEmitter::EmitUncached(const Instruction* inst, const IrIndex& index) {
  const Shape& shape = inst->shape();
  const Opcode op = inst->opcode();
  auto operand_at = [&](int64_t i) { return Emit(inst->operand(i), index); };
  switch (op) {
    case Opcode::kParameter:
      return {Fail(inst, "parameter has no bound buffer")};
    case Opcode::kConstant:
      return {EmitConstant(inst, index)};
    case Opcode::kTuple:
      return {Fail(inst, "tuple is only supported as a kernel's root")};
    case Opcode::kGetTupleElement: {
      const Instruction* tuple = inst->operand(0);
      if (tuple->opcode() == Opcode::kTuple) return EmitAll(tuple->operand(inst->tuple_index()), index);
      std::vector<llvm::Value*> all = EmitAll(tuple, index);
      if (inst->tuple_index() < 0 || inst->tuple_index() >= static_cast<int64_t>(all.size())) {
        return {Fail(inst, "tuple index out of range")};
      }
      return {all[inst->tuple_index()]};
    }
    case Opcode::kCopy:
    case Opcode::kBitcast:
    case Opcode::kReshape: {
      llvm::Value* value = op == Opcode::kCopy || shape.SameDimensions(inst->operand(0)->shape())
                               ? operand_at(0)
                               : EmitReshape(inst, index);
      const PrimitiveType from = inst->operand(0)->shape().element_type();
      const PrimitiveType to = shape.element_type();
      if (op != Opcode::kBitcast || from == to) return {value};
      // A bitcast may also reinterpret the bits as another type of the same width.
      auto storage = StorageType(context_, to);
      if (!storage.ok() || BitWidth(from) != BitWidth(to) || from == PrimitiveType::kPred || to == PrimitiveType::kPred) {
        return {Fail(inst, "bitcast between element types of different widths")};
      }
      return {ToRegister(b_, to, b_.CreateBitCast(ToStorage(b_, from, value), *storage))};
    }
    case Opcode::kBroadcast: {
      const std::vector<int64_t>& dims = inst->dimensions();
      IrIndex source;
      for (int64_t d : dims) source.push_back(index[d]);
      if (BugPlanted(PlantedBug::kBroadcastTrailingDimensions)) {
        // NumPy's rule (operand dims aligned with the trailing output dims), where in bounds.
        const size_t skip = index.size() - dims.size();
        bool fits = true;
        for (size_t i = 0; i < dims.size(); ++i) {
          fits &= shape.dimensions(static_cast<int64_t>(skip + i)) <= inst->operand(0)->shape().dimensions(i);
        }
        if (fits) source.assign(index.begin() + static_cast<std::ptrdiff_t>(skip), index.end());
      }
      return {Emit(inst->operand(0), source)};
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t>& perm = inst->dimensions();
      IrIndex source(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) source[perm[i]] = index[i];
      if (BugPlanted(PlantedBug::kTransposeInversePermutation) &&
          shape.dimensions() == inst->operand(0)->shape().dimensions()) {
        for (size_t i = 0; i < perm.size(); ++i) source[i] = index[perm[i]];
      }
      return {Emit(inst->operand(0), source)};
    }
    case Opcode::kReverse: {
      IrIndex source = index;
      for (int64_t d : inst->dimensions()) {
        source[d] = b_.CreateSub(b_.getInt64(shape.dimensions(d) - 1), index[d]);
      }
      return {Emit(inst->operand(0), source)};
    }
    case Opcode::kSlice: {
      const auto& slice = inst->attrs().slice;
      IrIndex source(index.size());
      for (size_t d = 0; d < index.size(); ++d) {
        llvm::Value* v = index[d];
        if (slice[d].stride != 1) v = b_.CreateMul(v, b_.getInt64(slice[d].stride));
        const int64_t start =
            slice[d].start - (slice[d].start > 0 && BugPlanted(PlantedBug::kSliceStartOffByOne) ? 1 : 0);
        source[d] = start == 0 ? v : b_.CreateAdd(v, b_.getInt64(start));
      }
      return {Emit(inst->operand(0), source)};
    }
    case Opcode::kConcatenate:
      return {EmitConcatenate(inst, index)};
    case Opcode::kPad:
      return {EmitPad(inst, index)};
    case Opcode::kIota:
      return {EmitIota(inst, index)};
    case Opcode::kDynamicSlice:
      return {EmitDynamicSlice(inst, index)};
    case Opcode::kDynamicUpdateSlice:
      return {EmitDynamicUpdateSlice(inst, index)};
    case Opcode::kGather:
      return {EmitGather(inst, index)};
    case Opcode::kReduce:
      return EmitReduce(inst, index);
    case Opcode::kReduceWindow:
      return EmitReduceWindow(inst, index);
    case Opcode::kDot:
      return {EmitDot(inst, index)};
    case Opcode::kConvolution:
      return {EmitConvolution(inst, index)};
    case Opcode::kSelect: {
      llvm::Value* pred = inst->operand(0)->shape().IsScalar() && !shape.IsScalar()
                              ? Emit(inst->operand(0), {})
                              : operand_at(0);
      if (BugPlanted(PlantedBug::kSelectOperandsSwapped)) return {b_.CreateSelect(pred, operand_at(2), operand_at(1))};
      return {b_.CreateSelect(pred, operand_at(1), operand_at(2))};
    }
    case Opcode::kClamp: {
      auto at = [&](int64_t i) {
        return inst->operand(i)->shape().IsScalar() && !shape.IsScalar() ? Emit(inst->operand(i), {})
                                                                          : operand_at(i);
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
      return {r};
    }
    case Opcode::kCompare:
      return {EmitCompare(inst, operand_at(0), operand_at(1))};
    case Opcode::kConvert:
      return {EmitConvert(inst, inst->operand(0)->shape().element_type(), shape.element_type(), operand_at(0))};
    case Opcode::kBitcastConvert:
      return {EmitBitcastConvert(inst, index)};
    case Opcode::kMap: {
      std::vector<llvm::Value*> args;
      for (int64_t i = 0; i < inst->operand_count(); ++i) args.push_back(operand_at(i));
      return EmitScalarComputation(*inst->to_apply(), args);
    }
    case Opcode::kReducePrecision:
      return {EmitReducePrecision(inst, operand_at(0))};
    default:
      break;
  }
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
        return {EmitUnary(inst, operand_at(0))};
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
        return {EmitBinary(inst, op, shape.element_type(), operand_at(0), operand_at(1))};
      default:
        break;
    }
  }
  return {Fail(inst, "the CPU backend has no emitter for this op")};
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

llvm::Value* ElementalEmitter::EmitConstant(const Instruction* inst, const IrIndex& index) {
  const Literal* literal = inst->literal();
  const PrimitiveType type = inst->shape().element_type();
  if (literal == nullptr || inst->literal_elided()) return Fail(inst, "constant has no values");
  if (!inst->shape().IsArray()) return Fail(inst, "tuple constants are not supported");
  auto storage = StorageType(context_, type);
  if (!storage.ok()) return Fail(inst, storage.status().message());
  if (literal->element_count() == 1 && IsComplex(type)) {
    const std::complex<double> v = literal->GetComplex(0);
    llvm::Type* real = (*storage)->getStructElementType(0);
    return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(*storage),
                                     {llvm::ConstantFP::get(real, v.real()), llvm::ConstantFP::get(real, v.imag())});
  }
  if (literal->element_count() == 1) {
    uint64_t bits = literal->GetBits(0);
    llvm::Value* stored = (*storage)->isFloatingPointTy()
                              ? b_.CreateBitCast(llvm::ConstantInt::get(
                                                     b_.getIntNTy((*storage)->getPrimitiveSizeInBits()), bits),
                                                 *storage)
                              : llvm::ConstantInt::get(*storage, bits);
    if (auto* c = llvm::dyn_cast<llvm::Constant>(stored)) stored = c;
    return ToRegister(b_, type, stored);
  }
  // An array constant becomes a private global in storage encoding.
  std::string name = "constant_" + inst->name();
  llvm::GlobalVariable* global = module_.getGlobalVariable(name, true);
  if (global == nullptr) {
    llvm::Constant* init = nullptr;
    llvm::ArrayRef<uint8_t> bytes(literal->untyped_data(), literal->size_bytes());
    init = llvm::ConstantDataArray::get(context_, bytes);
    global = new llvm::GlobalVariable(module_, init->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                      init, name);
    global->setAlignment(llvm::Align(64));
    global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  IrArray array(global, inst->shape());
  return ToRegister(b_, type, b_.CreateLoad(*storage, array.Address(b_, index)));
}

llvm::Value* ElementalEmitter::EmitReshape(const Instruction* inst, const IrIndex& index) {
  const Shape& out = inst->shape();
  const Shape& in = inst->operand(0)->shape();
  IrArray out_view(nullptr, out);
  llvm::Value* linear = out_view.LinearIndex(b_, index);
  IrIndex source(in.rank());
  std::vector<int64_t> strides = Strides(in);
  for (int64_t d = 0; d < in.rank(); ++d) {
    llvm::Value* v = strides[d] == 1 ? linear : b_.CreateUDiv(linear, b_.getInt64(strides[d]));
    source[d] = d == 0 ? v : b_.CreateURem(v, b_.getInt64(in.dimensions(d)));
  }
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitConcatenate(const Instruction* inst, const IrIndex& index) {
  const int64_t dim = inst->dimensions().at(0);
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "concat.merge", fn);
  llvm::Type* type = *RegisterType(context_, inst->shape().element_type());
  std::vector<std::pair<llvm::Value*, llvm::BasicBlock*>> incoming;
  int64_t offset = 0;
  for (int64_t i = 0; i < inst->operand_count(); ++i) {
    const int64_t size = inst->operand(i)->shape().dimensions(dim);
    const bool last = i + 1 == inst->operand_count();
    llvm::BasicBlock* here = llvm::BasicBlock::Create(context_, "concat.operand", fn);
    llvm::BasicBlock* next = last ? nullptr : llvm::BasicBlock::Create(context_, "concat.next", fn);
    if (last) {
      b_.CreateBr(here);
    } else {
      b_.CreateCondBr(b_.CreateICmpSLT(index[dim], b_.getInt64(offset + size)), here, next);
    }
    b_.SetInsertPoint(here);
    scopes_.emplace_back();
    IrIndex source = index;
    source[dim] = b_.CreateSub(index[dim], b_.getInt64(offset));
    llvm::Value* v = Emit(inst->operand(i), source);
    scopes_.pop_back();
    incoming.emplace_back(v, b_.GetInsertBlock());
    b_.CreateBr(merge);
    if (next != nullptr) b_.SetInsertPoint(next);
    offset += size;
  }
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(type, incoming.size());
  for (auto& [v, block] : incoming) phi->addIncoming(v, block);
  return phi;
}

llvm::Value* ElementalEmitter::EmitPad(const Instruction* inst, const IrIndex& index) {
  const auto& padding = inst->attrs().padding;
  const Shape& in = inst->operand(0)->shape();
  llvm::Value* in_bounds = b_.getTrue();
  IrIndex source(index.size());
  for (size_t d = 0; d < index.size(); ++d) {
    // position = index - low; it is an operand element when position >= 0, divisible by
    // (interior + 1), and position / (interior + 1) < operand dim.
    const int64_t low = BugPlanted(PlantedBug::kPadLowHighSwapped) ? padding[d].high : padding[d].low;
    llvm::Value* pos = b_.CreateSub(index[d], b_.getInt64(low));
    const int64_t step = padding[d].interior + 1;
    llvm::Value* q = pos;
    llvm::Value* ok = b_.CreateICmpSGE(pos, b_.getInt64(0));
    if (step != 1) {
      ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateSRem(pos, b_.getInt64(step)), b_.getInt64(0)));
      q = b_.CreateSDiv(pos, b_.getInt64(step));
    }
    ok = b_.CreateAnd(ok, b_.CreateICmpSLT(q, b_.getInt64(in.dimensions(d))));
    in_bounds = b_.CreateAnd(in_bounds, ok);
    // Clamp so that the (discarded) load stays inside the operand.
    llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSLT(q, b_.getInt64(0)), b_.getInt64(0), q);
    source[d] = b_.CreateSelect(b_.CreateICmpSGT(lo, b_.getInt64(in.dimensions(d) - 1)),
                                b_.getInt64(std::max<int64_t>(in.dimensions(d) - 1, 0)), lo);
  }
  llvm::Value* pad_value = Emit(inst->operand(1), {});
  if (in.ElementCount() == 0) return pad_value;
  return b_.CreateSelect(in_bounds, Emit(inst->operand(0), source), pad_value);
}

llvm::Value* ElementalEmitter::EmitIota(const Instruction* inst, const IrIndex& index) {
  const PrimitiveType type = inst->shape().element_type();
  llvm::Value* i = index.at(inst->attrs().iota_dimension);
  if (BugPlanted(PlantedBug::kIotaOffByOne)) i = b_.CreateAdd(i, b_.getInt64(1));
  llvm::Type* t = *RegisterType(context_, type);
  if (IsFloat(type)) return RoundToType(type, b_.CreateSIToFP(i, t));
  if (IsComplex(type)) {
    llvm::Type* real = t->getStructElementType(0);
    return MakeComplex(b_.CreateSIToFP(i, real), llvm::ConstantFP::get(real, 0.0));
  }
  if (type == PrimitiveType::kPred) return b_.CreateICmpNE(i, b_.getInt64(0));
  return b_.CreateTrunc(i, t);
}

llvm::Value* ElementalEmitter::ClampIndex(llvm::Value* start, int64_t max_start, PrimitiveType type) {
  llvm::Value* s = IsUnsignedInt(type) ? b_.CreateZExt(start, b_.getInt64Ty())
                                       : b_.CreateSExt(start, b_.getInt64Ty());
  s = b_.CreateSelect(b_.CreateICmpSLT(s, b_.getInt64(0)), b_.getInt64(0), s);
  return b_.CreateSelect(b_.CreateICmpSGT(s, b_.getInt64(max_start)), b_.getInt64(max_start), s);
}

llvm::Value* ElementalEmitter::EmitDynamicSlice(const Instruction* inst, const IrIndex& index) {
  const Shape& in = inst->operand(0)->shape();
  IrIndex source(index.size());
  for (int64_t d = 0; d < in.rank(); ++d) {
    const Instruction* start_inst = inst->operand(d + 1);
    llvm::Value* start = ClampIndex(Emit(start_inst, {}), in.dimensions(d) - inst->shape().dimensions(d),
                                    start_inst->shape().element_type());
    source[d] = b_.CreateAdd(index[d], start);
  }
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitDynamicUpdateSlice(const Instruction* inst, const IrIndex& index) {
  const Shape& in = inst->operand(0)->shape();
  const Shape& update = inst->operand(1)->shape();
  llvm::Value* inside = b_.getTrue();
  IrIndex update_index(index.size());
  for (int64_t d = 0; d < in.rank(); ++d) {
    const Instruction* start_inst = inst->operand(d + 2);
    llvm::Value* start = ClampIndex(Emit(start_inst, {}), in.dimensions(d) - update.dimensions(d),
                                    start_inst->shape().element_type());
    llvm::Value* rel = b_.CreateSub(index[d], start);
    inside = b_.CreateAnd(inside, b_.CreateAnd(b_.CreateICmpSGE(rel, b_.getInt64(0)),
                                               b_.CreateICmpSLT(rel, b_.getInt64(update.dimensions(d)))));
    update_index[d] = rel;
  }
  if (update.ElementCount() == 0) return Emit(inst->operand(0), index);
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "dus.update", fn);
  llvm::BasicBlock* else_block = llvm::BasicBlock::Create(context_, "dus.operand", fn);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "dus.merge", fn);
  b_.CreateCondBr(inside, then_block, else_block);
  b_.SetInsertPoint(then_block);
  scopes_.emplace_back();
  llvm::Value* u = Emit(inst->operand(1), update_index);
  scopes_.pop_back();
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_block);
  scopes_.emplace_back();
  llvm::Value* o = Emit(inst->operand(0), index);
  scopes_.pop_back();
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI(u->getType(), 2);
  phi->addIncoming(u, then_end);
  phi->addIncoming(o, else_end);
  return phi;
}

llvm::Value* ElementalEmitter::EmitGather(const Instruction* inst, const IrIndex& index) {
  const GatherDimensionNumbers& dnums = *inst->attrs().gather_dimension_numbers;
  const Shape& operand = inst->operand(0)->shape();
  const Shape& indices = inst->operand(1)->shape();
  const std::vector<int64_t>& slice_sizes = inst->attrs().gather_slice_sizes;
  const int64_t out_rank = inst->shape().rank();
  // Output dims that are not offset dims are batch dims; they index the start indices
  // (with the index vector dimension inserted).
  std::vector<int64_t> batch_dims;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (std::find(dnums.offset_dims.begin(), dnums.offset_dims.end(), d) == dnums.offset_dims.end()) {
      batch_dims.push_back(d);
    }
  }
  const bool vector_dim_implicit = dnums.index_vector_dim == indices.rank();
  auto index_element = [&](int64_t k) {
    IrIndex idx;
    size_t b = 0;
    for (int64_t d = 0; d < indices.rank(); ++d) {
      if (!vector_dim_implicit && d == dnums.index_vector_dim) {
        idx.push_back(b_.getInt64(k));
      } else {
        idx.push_back(index[batch_dims[b++]]);
      }
    }
    return Emit(inst->operand(1), idx);
  };
  // Operand dims in order: those not collapsed and not batching take the offset dims.
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    bool collapsed = std::find(dnums.collapsed_slice_dims.begin(), dnums.collapsed_slice_dims.end(), d) !=
                     dnums.collapsed_slice_dims.end();
    bool batching = std::find(dnums.operand_batching_dims.begin(), dnums.operand_batching_dims.end(), d) !=
                    dnums.operand_batching_dims.end();
    if (!collapsed && !batching) window_operand_dims.push_back(d);
  }
  IrIndex source(operand.rank(), b_.getInt64(0));
  for (size_t k = 0; k < dnums.start_index_map.size(); ++k) {
    int64_t d = dnums.start_index_map[k];
    llvm::Value* start = ClampIndex(index_element(static_cast<int64_t>(k)), operand.dimensions(d) - slice_sizes[d],
                                    indices.element_type());
    source[d] = start;
  }
  // Batching dims: operand_batching_dims[i] takes the batch index of start_indices_batching_dims[i].
  for (size_t i = 0; i < dnums.operand_batching_dims.size(); ++i) {
    int64_t indices_dim = dnums.start_indices_batching_dims[i];
    // Position of indices_dim among the batch dims (skipping the index vector dim).
    int64_t pos = indices_dim;
    if (!vector_dim_implicit && indices_dim > dnums.index_vector_dim) --pos;
    source[dnums.operand_batching_dims[i]] = index[batch_dims[pos]];
  }
  for (size_t k = 0; k < window_operand_dims.size(); ++k) {
    int64_t d = window_operand_dims[k];
    source[d] = b_.CreateAdd(source[d], index[dnums.offset_dims[k]]);
  }
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitReduceRow(const Instruction* reduce, llvm::Value* row) {
  std::vector<llvm::Value*> values = EmitReduce(reduce, {}, row);
  return values.empty() ? Fail(reduce, "no value") : values[0];
}

std::vector<llvm::Value*> ElementalEmitter::EmitReduce(const Instruction* inst, const IrIndex& index,
                                                       llvm::Value* fixed_row) {
  const int64_t n = inst->operand_count() / 2;
  const Shape& in = inst->operand(0)->shape();
  std::vector<int64_t> reduced = inst->dimensions();
  if (fixed_row != nullptr) {
    // One row of a full reduction: dimension 0 is fixed, the others are reduced.
    reduced.clear();
    for (int64_t d = 1; d < in.rank(); ++d) reduced.push_back(d);
  }
  std::vector<llvm::AllocaInst*> accumulators;
  for (int64_t k = 0; k < n; ++k) {
    llvm::Value* init = Emit(inst->operand(n + k), {});
    if (BugPlanted(PlantedBug::kReduceInitIgnored)) init = Constant(inst->operand(n + k)->shape().element_type(), 0);
    llvm::AllocaInst* acc = EntryAlloca(init->getType(), inst->name() + ".acc");
    b_.CreateStore(init, acc);
    accumulators.push_back(acc);
  }
  // Kept dims come from the output index, in order.
  IrIndex base(in.rank(), nullptr);
  size_t out_d = 0;
  std::vector<bool> is_reduced(in.rank(), false);
  for (int64_t d : reduced) is_reduced[d] = true;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!is_reduced[d]) base[d] = fixed_row != nullptr ? fixed_row : index[out_d++];
  }
  std::vector<int64_t> bounds;
  std::vector<int64_t> order;  // reduced dims, major to minor
  std::vector<int64_t> reduced_sorted(reduced.begin(), reduced.end());
  std::sort(reduced_sorted.begin(), reduced_sorted.end());
  for (int64_t d : reduced_sorted) bounds.push_back(in.dimensions(d));
  if (!bounds.empty() && bounds.back() > 1 && BugPlanted(PlantedBug::kReduceSkipsLastElement)) --bounds.back();
  for (size_t k = 0; k < reduced_sorted.size(); ++k) order.push_back(static_cast<int64_t>(k));
  const Computation* reducer = inst->to_apply();
  // Reassociating the reducer's ops (only those) lets LLVM keep several accumulators and
  // vectorize the loop.
  auto apply_reducer = [&](const std::vector<llvm::Value*>& args) {
    llvm::FastMathFlags saved = b_.getFastMathFlags();
    if (reassociate_) {
      llvm::FastMathFlags fmf = saved;
      fmf.setAllowReassoc();
      b_.setFastMathFlags(fmf);
    }
    // f16/bf16 accumulate in f32 and round once at the end (as XLA's evaluator and CPU
    // backend do): rounding every step would lose far more than the type's tolerance.
    const bool saved_rounding = skip_rounding_;
    skip_rounding_ = true;
    std::vector<llvm::Value*> results = EmitScalarComputation(*reducer, args);
    skip_rounding_ = saved_rounding;
    b_.setFastMathFlags(saved);
    return results;
  };
  if (auto it = partials_.find(inst); it != partials_.end() && n == 1 && fixed_row == nullptr) {
    const IrArray& partials = it->second;
    EmitLoop(b_.getInt64(0), b_.getInt64(partials.shape().dimensions(0)), inst->name() + ".partials",
             [&](llvm::Value* k) {
               llvm::Value* acc = b_.CreateLoad(accumulators[0]->getAllocatedType(), accumulators[0]);
               llvm::Value* stored = b_.CreateLoad(*StorageType(context_, partials.shape().element_type()),
                                                   partials.Address(b_, {k}));
               llvm::Value* v = ToRegister(b_, partials.shape().element_type(), stored);
               std::vector<llvm::Value*> results = apply_reducer({acc, v});
               if (!results.empty()) b_.CreateStore(results[0], accumulators[0]);
             });
  } else if (auto col = column_partials_.find(inst);
             col != column_partials_.end() && n == 1 && fixed_row == nullptr) {
    // A column reduction: fold the per-chunk partials of this output element, in chunk
    // order (deterministic whatever the thread count).
    const IrArray& partials = col->second;
    const PrimitiveType acc_type = partials.shape().element_type();
    EmitLoop(b_.getInt64(0), b_.getInt64(partials.shape().dimensions(0)), inst->name() + ".chunks",
             [&](llvm::Value* c) {
               IrIndex at;
               at.push_back(c);
               at.insert(at.end(), index.begin(), index.end());
               llvm::Value* acc = b_.CreateLoad(accumulators[0]->getAllocatedType(), accumulators[0]);
               llvm::Value* stored = b_.CreateLoad(*StorageType(context_, acc_type), partials.Address(b_, at));
               std::vector<llvm::Value*> results = apply_reducer({acc, ToRegister(b_, acc_type, stored)});
               if (!results.empty()) b_.CreateStore(results[0], accumulators[0]);
             });
  } else {
    EmitLoopNest(bounds, order, inst->name() + ".reduce", [&](const IrIndex& inner) {
      IrIndex source = base;
      for (size_t k = 0; k < reduced_sorted.size(); ++k) source[reduced_sorted[k]] = inner[k];
      std::vector<llvm::Value*> args;
      for (int64_t k = 0; k < n; ++k) args.push_back(b_.CreateLoad(accumulators[k]->getAllocatedType(), accumulators[k]));
      for (int64_t k = 0; k < n; ++k) args.push_back(Emit(inst->operand(k), source));
      std::vector<llvm::Value*> results = apply_reducer(args);
      for (int64_t k = 0; k < n && k < static_cast<int64_t>(results.size()); ++k) {
        b_.CreateStore(results[k], accumulators[k]);
      }
      if (inst == reduce_visitor_target_ && reduce_visitor_) reduce_visitor_(source);
    });
  }
  std::vector<llvm::Value*> values;
  for (int64_t k = 0; k < n; ++k) {
    PrimitiveType type = inst->operand(n + k)->shape().element_type();
    values.push_back(RoundToType(type, b_.CreateLoad(accumulators[k]->getAllocatedType(), accumulators[k])));
  }
  return values;
}

std::vector<llvm::Value*> ElementalEmitter::EmitReduceWindow(const Instruction* inst, const IrIndex& index) {
  const int64_t n = inst->operand_count() / 2;
  const Shape& in = inst->operand(0)->shape();
  const Window& window = *inst->attrs().window;
  std::vector<llvm::Value*> inits;
  std::vector<llvm::AllocaInst*> accumulators;
  for (int64_t k = 0; k < n; ++k) {
    llvm::Value* init = Emit(inst->operand(n + k), {});
    inits.push_back(init);
    llvm::AllocaInst* acc = EntryAlloca(init->getType(), inst->name() + ".acc");
    b_.CreateStore(init, acc);
    accumulators.push_back(acc);
  }
  std::vector<int64_t> bounds;
  std::vector<int64_t> order;
  for (int64_t d = 0; d < in.rank(); ++d) {
    bounds.push_back(window.dimensions[d].size);
    order.push_back(d);
  }
  EmitLoopNest(bounds, order, inst->name() + ".window", [&](const IrIndex& w) {
    llvm::Value* inside = b_.getTrue();
    IrIndex source(in.rank());
    for (int64_t d = 0; d < in.rank(); ++d) {
      const WindowDimension& wd = window.dimensions[d];
      // Position in the padded, base-dilated input.
      llvm::Value* pos = b_.CreateAdd(b_.CreateMul(index[d], b_.getInt64(wd.stride)),
                                      b_.CreateMul(w[d], b_.getInt64(wd.window_dilation)));
      pos = b_.CreateSub(pos, b_.getInt64(wd.padding_low));
      llvm::Value* ok = b_.CreateICmpSGE(pos, b_.getInt64(0));
      llvm::Value* q = pos;
      if (wd.base_dilation != 1) {
        ok = b_.CreateAnd(ok, b_.CreateICmpEQ(b_.CreateSRem(pos, b_.getInt64(wd.base_dilation)), b_.getInt64(0)));
        q = b_.CreateSDiv(pos, b_.getInt64(wd.base_dilation));
      }
      ok = b_.CreateAnd(ok, b_.CreateICmpSLT(q, b_.getInt64(in.dimensions(d))));
      inside = b_.CreateAnd(inside, ok);
      llvm::Value* lo = b_.CreateSelect(b_.CreateICmpSLT(q, b_.getInt64(0)), b_.getInt64(0), q);
      source[d] = b_.CreateSelect(b_.CreateICmpSGT(lo, b_.getInt64(in.dimensions(d) - 1)),
                                  b_.getInt64(in.dimensions(d) - 1), lo);
    }
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "window.inside", fn);
    llvm::BasicBlock* merge = llvm::BasicBlock::Create(context_, "window.next", fn);
    b_.CreateCondBr(inside, then_block, merge);
    b_.SetInsertPoint(then_block);
    scopes_.emplace_back();
    std::vector<llvm::Value*> args;
    for (int64_t k = 0; k < n; ++k) args.push_back(b_.CreateLoad(accumulators[k]->getAllocatedType(), accumulators[k]));
    for (int64_t k = 0; k < n; ++k) args.push_back(Emit(inst->operand(k), source));
    std::vector<llvm::Value*> results = EmitScalarComputation(*inst->to_apply(), args);
    for (int64_t k = 0; k < n && k < static_cast<int64_t>(results.size()); ++k) {
      b_.CreateStore(results[k], accumulators[k]);
    }
    scopes_.pop_back();
    b_.CreateBr(merge);
    b_.SetInsertPoint(merge);
  });
  std::vector<llvm::Value*> values;
  for (int64_t k = 0; k < n; ++k) values.push_back(b_.CreateLoad(accumulators[k]->getAllocatedType(), accumulators[k]));
  return values;
}

llvm::Value* ElementalEmitter::EmitDot(const Instruction* inst, const IrIndex& index) {
  // Elemental dot (used inside fusions and for small dots): one output element is a sum
  // over the contracting dims. Output dims: batch, lhs free, rhs free.
  const DotDimensionNumbers& dn = *inst->attrs().dot_dimension_numbers;
  const Shape& lhs = inst->operand(0)->shape();
  const Shape& rhs = inst->operand(1)->shape();
  const PrimitiveType type = inst->shape().element_type();
  if (IsComplex(type)) return Fail(inst, "complex dot is not supported");
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  IrIndex lhs_index(lhs.rank()), rhs_index(rhs.rank());
  size_t out = 0;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i, ++out) {
    lhs_index[dn.lhs_batch_dimensions[i]] = index[out];
    rhs_index[dn.rhs_batch_dimensions[i]] = index[out];
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!contains(dn.lhs_batch_dimensions, d) && !contains(dn.lhs_contracting_dimensions, d)) lhs_index[d] = index[out++];
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!contains(dn.rhs_batch_dimensions, d) && !contains(dn.rhs_contracting_dimensions, d)) rhs_index[d] = index[out++];
  }
  llvm::Type* acc_type = *RegisterType(context_, type);
  llvm::AllocaInst* acc = EntryAlloca(acc_type, inst->name() + ".acc");
  b_.CreateStore(Constant(type, 0), acc);
  std::vector<int64_t> bounds, order;
  for (size_t k = 0; k < dn.lhs_contracting_dimensions.size(); ++k) {
    bounds.push_back(lhs.dimensions(dn.lhs_contracting_dimensions[k]));
    order.push_back(static_cast<int64_t>(k));
  }
  EmitLoopNest(bounds, order, inst->name() + ".k", [&](const IrIndex& k) {
    IrIndex li = lhs_index, ri = rhs_index;
    for (size_t c = 0; c < k.size(); ++c) {
      li[dn.lhs_contracting_dimensions[c]] = k[c];
      ri[dn.rhs_contracting_dimensions[c]] = k[c];
    }
    llvm::Value* a = EmitConvert(inst, inst->operand(0)->shape().element_type(), type, Emit(inst->operand(0), li));
    llvm::Value* bv = EmitConvert(inst, inst->operand(1)->shape().element_type(), type, Emit(inst->operand(1), ri));
    llvm::Value* sum = b_.CreateLoad(acc_type, acc);
    llvm::Value* product = EmitBinary(inst, Opcode::kMultiply, IsNarrowFloat(type) ? PrimitiveType::kF32 : type, a, bv);
    b_.CreateStore(EmitBinary(inst, Opcode::kAdd, IsNarrowFloat(type) ? PrimitiveType::kF32 : type, sum, product), acc);
  });
  return RoundToType(type, b_.CreateLoad(acc_type, acc));
}

// Elemental convolution (the GPU backend's, and any fused one): one output element is a
// sum over the window's taps and the group's input features, in the interpreter's
// semantics (feature and batch groups, strides, padding, base and window dilation,
// window reversal). Taps outside the input contribute nothing.
llvm::Value* ElementalEmitter::EmitConvolution(const Instruction* inst, const IrIndex& index) {
  if (!inst->attrs().convolution_dimension_numbers || !inst->attrs().window) {
    return Fail(inst, "convolution without dim_labels or window");
  }
  if (inst->operand_count() != 2) return Fail(inst, "quantized convolutions (extra operands) are not supported");
  const ConvolutionDimensionNumbers& dn = *inst->attrs().convolution_dimension_numbers;
  const Window& window = *inst->attrs().window;
  const Shape& lhs = inst->operand(0)->shape();
  const Shape& rhs = inst->operand(1)->shape();
  const PrimitiveType type = inst->shape().element_type();
  if (IsComplex(type)) return Fail(inst, "complex convolution is not supported");
  const size_t spatial = dn.input_spatial_dimensions.size();
  if (window.dimensions.size() != spatial) return Fail(inst, "window rank does not match the spatial dimensions");
  const int64_t feature_groups = std::max<int64_t>(1, inst->attrs().feature_group_count);
  const int64_t batch_groups = std::max<int64_t>(1, inst->attrs().batch_group_count);
  const int64_t k_in = rhs.dimensions(dn.kernel_input_feature_dimension);
  const int64_t k_out = rhs.dimensions(dn.kernel_output_feature_dimension);
  const int64_t per_feature_group = std::max<int64_t>(1, k_out / feature_groups);
  const int64_t per_batch_group = std::max<int64_t>(1, k_out / batch_groups);
  const int64_t batch_group_size = lhs.dimensions(dn.input_batch_dimension) / batch_groups;
  llvm::Value* out_feature = index[dn.output_feature_dimension];
  llvm::Value* feature_group = b_.CreateSDiv(out_feature, Int64(per_feature_group));
  llvm::Value* batch_group = b_.CreateSDiv(out_feature, Int64(per_batch_group));
  llvm::Value* lhs_batch =
      b_.CreateAdd(index[dn.output_batch_dimension], b_.CreateMul(batch_group, Int64(batch_group_size)));
  const PrimitiveType math_type = IsNarrowFloat(type) ? PrimitiveType::kF32 : type;
  llvm::Type* acc_type = *RegisterType(context_, type);
  llvm::AllocaInst* acc = EntryAlloca(acc_type, inst->name() + ".acc");
  b_.CreateStore(Constant(type, 0), acc);
  // Loops: the window's taps (spatial dimensions in order), then the input features.
  std::vector<int64_t> bounds, order;
  for (size_t s = 0; s < spatial; ++s) {
    bounds.push_back(window.dimensions[s].size);
    order.push_back(static_cast<int64_t>(s));
  }
  bounds.push_back(k_in);
  order.push_back(static_cast<int64_t>(spatial));
  EmitLoopNest(bounds, order, inst->name() + ".tap", [&](const IrIndex& tap) {
    IrIndex li(lhs.rank(), Int64(0)), ri(rhs.rank(), Int64(0));
    llvm::Value* inside = b_.getTrue();
    for (size_t s = 0; s < spatial; ++s) {
      const WindowDimension& w = window.dimensions[s];
      llvm::Value* pos = b_.CreateAdd(b_.CreateMul(index[dn.output_spatial_dimensions[s]], Int64(w.stride)),
                                      b_.CreateMul(tap[s], Int64(w.window_dilation)));
      pos = b_.CreateSub(pos, Int64(w.padding_low));
      if (w.base_dilation > 1) {
        inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateSRem(pos, Int64(w.base_dilation)), Int64(0)));
        pos = b_.CreateSDiv(pos, Int64(w.base_dilation));
      }
      const int64_t size = lhs.dimensions(dn.input_spatial_dimensions[s]);
      inside = b_.CreateAnd(inside, b_.CreateICmpSGE(pos, Int64(0)));
      inside = b_.CreateAnd(inside, b_.CreateICmpSLT(pos, Int64(size)));
      // Outside taps read element 0 (always there) and contribute nothing.
      li[dn.input_spatial_dimensions[s]] = b_.CreateSelect(inside, pos, Int64(0));
      ri[dn.kernel_spatial_dimensions[s]] = w.window_reversal ? b_.CreateSub(Int64(w.size - 1), tap[s]) : tap[s];
    }
    llvm::Value* z = tap[spatial];
    li[dn.input_batch_dimension] = lhs_batch;
    li[dn.input_feature_dimension] = b_.CreateAdd(b_.CreateMul(feature_group, Int64(k_in)), z);
    ri[dn.kernel_input_feature_dimension] = z;
    ri[dn.kernel_output_feature_dimension] = out_feature;
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    llvm::BasicBlock* take = llvm::BasicBlock::Create(context_, "conv.tap", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(context_, "conv.next", fn);
    b_.CreateCondBr(inside, take, next);
    b_.SetInsertPoint(take);
    scopes_.emplace_back();  // values read under the branch stay under it
    llvm::Value* a = EmitConvert(inst, lhs.element_type(), type, Emit(inst->operand(0), li));
    llvm::Value* w = EmitConvert(inst, rhs.element_type(), type, Emit(inst->operand(1), ri));
    llvm::Value* product = EmitBinary(inst, Opcode::kMultiply, math_type, a, w);
    b_.CreateStore(EmitBinary(inst, Opcode::kAdd, math_type, b_.CreateLoad(acc_type, acc), product), acc);
    scopes_.pop_back();
    b_.CreateBr(next);
    b_.SetInsertPoint(next);
  });
  return RoundToType(type, b_.CreateLoad(acc_type, acc));
}

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
      llvm::Value* e = Exp(b_.CreateFNeg(x));
      llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
      return RoundToType(type, b_.CreateFDiv(one, b_.CreateFAdd(one, e)));
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
  auto all_ones = [&] { return llvm::ConstantInt::get(t, -1, true); };
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
      if (is_int) {
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
      break;
    case Opcode::kRemainder:
      if (is_float) return RoundToType(type, b_.CreateFRem(x, y));
      if (is_int) {
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
        llvm::Value* one = llvm::ConstantFP::get(t, 1.0);
        llvm::Value* p = b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
        llvm::Value* trivial = b_.CreateOr(b_.CreateFCmpOEQ(x, one), b_.CreateFCmpOEQ(y, llvm::ConstantFP::get(t, 0.0)));
        return RoundToType(type, b_.CreateSelect(trivial, one, p));
      }
      if (is_pred) return b_.CreateOr(x, b_.CreateNot(y));
      if (is_int) {
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
      break;
    case Opcode::kAtan2:
      if (is_float) return CallLibm("atan2", type, {x, y});
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
