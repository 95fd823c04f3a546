// The elemental emitter's core: element types in registers and memory (narrow-float
// codecs, sub-byte integers), bindings and the value cache, loops, reducers, and
// EmitUncached's dispatch by opcode. The ops themselves are emitted in
// elemental_data_movement.cc, elemental_reductions.cc, elemental_arithmetic.cc and
// elemental_complex.cc.
#include "compiler/codegen/elemental_emitter.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <map>

#include "compiler/codegen/elemental_emitter_internal.h"
#include "compiler/codegen/elemental_math.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/literal.h"

namespace fusebox::codegen {

using elemental::IsNarrowFloat;
using elemental::Strides;

namespace {

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
      return Unimplemented("Fusebox's backends do not support element type " +
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

void ElementalEmitter::SetIndexFactors(llvm::Value* v, std::vector<std::pair<llvm::Value*, int64_t>> parts) {
  // A constant (a folded index) is shared by unrelated indices: it carries no factors.
  if (v == nullptr || llvm::isa<llvm::Constant>(v) || parts.size() < 2) return;
  index_factors_[v] = std::move(parts);
}

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
                                const std::function<void(llvm::Value*)>& body, bool keep_rolled) {
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
  llvm::BranchInst* latch = b_.CreateBr(header);
  if (keep_rolled) {
    llvm::MDNode* disable = llvm::MDNode::get(context_, {llvm::MDString::get(context_, "llvm.loop.unroll.disable")});
    llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context_, {nullptr, disable});
    loop_id->replaceOperandWith(0, loop_id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  }
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
    bool holds_a_loop = false;
    for (size_t inner = k + 1; inner < order.size(); ++inner) holds_a_loop |= bounds[order[inner]] > 1;
    EmitLoop(
        b_.getInt64(0), b_.getInt64(bounds[dim]), name + "." + std::to_string(dim),
        [&](llvm::Value* i) {
          index[dim] = i;
          level(k + 1);
        },
        holds_a_loop);
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

ElementalEmitterOptions CpuElementalEmitter::CpuOptions() {
  auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && std::string(value) == "1";
  };
  const bool libm = set("FUSEBOX_CPU_LIBM_MATH");
  return ElementalEmitterOptions{
      .inline_exp = true,
      .inline_f32_math = !libm,
      .inline_f32_sin_cos = !libm && (set("FUSEBOX_CPU_INLINE_SIN_COS") || !VectorMathLibraryLoaded()),
      .c_library_complex = true};
}

llvm::Value* ElementalEmitter::InlineF32Math(Opcode op, PrimitiveType type, llvm::Value* x, llvm::Value* y) {
  if (!options_.inline_f32_math) return nullptr;
  if ((op == Opcode::kSin || op == Opcode::kCos) && !options_.inline_f32_sin_cos) return nullptr;
  llvm::Value* r = EmitInlineF32Math(b_, op, x, y);
  return r == nullptr ? nullptr : RoundToType(type, r);
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
    case Opcode::kGetTupleElement:
      return EmitTupleElement(inst, index);
    case Opcode::kCopy:
    case Opcode::kBitcast:
    case Opcode::kReshape:
      return {EmitCopyOrBitcast(inst, index)};
    case Opcode::kBroadcast:
      return {EmitBroadcast(inst, index)};
    case Opcode::kTranspose:
      return {EmitTranspose(inst, index)};
    case Opcode::kReverse:
      return {EmitReverse(inst, index)};
    case Opcode::kSlice:
      return {EmitSlice(inst, index)};
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
    case Opcode::kSelect:
      return {EmitSelect(inst, index)};
    case Opcode::kClamp:
      return {EmitClamp(inst, index)};
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
      return {EmitElementwise(inst, index)};
  }
}

std::vector<llvm::Value*> ElementalEmitter::EmitTupleElement(const Instruction* inst, const IrIndex& index) {
  const Instruction* tuple = inst->operand(0);
  if (tuple->opcode() == Opcode::kTuple) return EmitAll(tuple->operand(inst->tuple_index()), index);
  std::vector<llvm::Value*> all = EmitAll(tuple, index);
  if (inst->tuple_index() < 0 || inst->tuple_index() >= static_cast<int64_t>(all.size())) {
    return {Fail(inst, "tuple index out of range")};
  }
  return {all[inst->tuple_index()]};
}

}  // namespace fusebox::codegen
