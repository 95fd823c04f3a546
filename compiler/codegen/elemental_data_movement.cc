// The elemental emitter's data movement: constants, copies, bitcasts and reshapes,
// broadcast, transpose, reverse, slices, concatenate, pad, iota, dynamic slices and
// gather; each reads its operand at a remapped index.
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "compiler/codegen/elemental_emitter_internal.h"
#include "compiler/ir/literal.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::codegen {

using elemental::IsNarrowFloat;
using elemental::Strides;

llvm::Value* ElementalEmitter::EmitCopyOrBitcast(const Instruction* inst, const IrIndex& index) {
  const Shape& shape = inst->shape();
  const Opcode op = inst->opcode();
  llvm::Value* value = op == Opcode::kCopy || shape.SameDimensions(inst->operand(0)->shape())
                           ? Emit(inst->operand(0), index)
                           : EmitReshape(inst, index);
  const PrimitiveType from = inst->operand(0)->shape().element_type();
  const PrimitiveType to = shape.element_type();
  if (op != Opcode::kBitcast || from == to) return value;
  // A bitcast may also reinterpret the bits as another type of the same width.
  auto storage = StorageType(context_, to);
  if (!storage.ok() || BitWidth(from) != BitWidth(to) || from == PrimitiveType::kPred || to == PrimitiveType::kPred) {
    return Fail(inst, "bitcast between element types of different widths");
  }
  return ToRegister(b_, to, b_.CreateBitCast(ToStorage(b_, from, value), *storage));
}

llvm::Value* ElementalEmitter::EmitBroadcast(const Instruction* inst, const IrIndex& index) {
  const Shape& shape = inst->shape();
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
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitTranspose(const Instruction* inst, const IrIndex& index) {
  const std::vector<int64_t>& perm = inst->dimensions();
  IrIndex source(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) source[perm[i]] = index[i];
  if (BugPlanted(PlantedBug::kTransposeInversePermutation) &&
      inst->shape().dimensions() == inst->operand(0)->shape().dimensions()) {
    for (size_t i = 0; i < perm.size(); ++i) source[i] = index[perm[i]];
  }
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitReverse(const Instruction* inst, const IrIndex& index) {
  IrIndex source = index;
  for (int64_t d : inst->dimensions()) {
    source[d] = b_.CreateSub(b_.getInt64(inst->shape().dimensions(d) - 1), index[d]);
  }
  return Emit(inst->operand(0), source);
}

llvm::Value* ElementalEmitter::EmitSlice(const Instruction* inst, const IrIndex& index) {
  const auto& slice = inst->attrs().slice;
  IrIndex source(index.size());
  for (size_t d = 0; d < index.size(); ++d) {
    llvm::Value* v = index[d];
    if (slice[d].stride != 1) v = b_.CreateMul(v, b_.getInt64(slice[d].stride));
    const int64_t start =
        slice[d].start - (slice[d].start > 0 && BugPlanted(PlantedBug::kSliceStartOffByOne) ? 1 : 0);
    source[d] = start == 0 ? v : b_.CreateAdd(v, b_.getInt64(start));
  }
  return Emit(inst->operand(0), source);
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

namespace {

// Row-major suffix products of the dimensions larger than 1 (the boundaries of the
// linear index the dimensions split it at), largest first, ending with 1.
std::vector<int64_t> Boundaries(const std::vector<int64_t>& dims) {
  std::vector<int64_t> out = {1};
  int64_t p = 1;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (*it == 1) continue;
    p *= *it;
    out.push_back(p);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

IrIndex ElementalEmitter::RefinedReshapeIndex(const Shape& out, const Shape& in, const IrIndex& index) {
  if (out.ElementCount() == 0) return {};
  const std::vector<int64_t> out_bounds = Boundaries(out.dimensions());
  const std::vector<int64_t> in_bounds = Boundaries(in.dimensions());
  std::vector<int64_t> all(out_bounds);
  all.insert(all.end(), in_bounds.begin(), in_bounds.end());
  std::sort(all.begin(), all.end(), std::greater<>());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    if (all[i] % all[i + 1] != 0) return {};
  }
  // pieces[j]: the part of the linear index between boundaries all[j] and all[j + 1], as
  // a list of (value, size) parts, major to minor.
  using Parts = std::vector<std::pair<llvm::Value*, int64_t>>;
  std::vector<Parts> pieces(all.size() - 1);
  auto piece_of = [&](int64_t upper) {
    return static_cast<size_t>(std::find(all.begin(), all.end(), upper) - all.begin());
  };
  // The factors of v, when they span exactly `size` (an index a slice or a pad passed on
  // unchanged spans only part of the dimension it now indexes).
  auto factors_of = [&](llvm::Value* v, int64_t size) {
    auto f = index_factors_.find(v);
    if (f == index_factors_.end()) return index_factors_.end();
    int64_t product = 1;
    for (const auto& [part, part_size] : f->second) product *= part_size;
    return product == size ? f : index_factors_.end();
  };
  int64_t upper = out.ElementCount();
  for (int64_t d = 0; d < out.rank(); ++d) {
    const int64_t size = out.dimensions(d);
    if (size == 1) continue;
    const int64_t lower = upper / size;
    const size_t first = piece_of(upper), last = piece_of(lower);
    llvm::Value* v = index[d];
    if (last == first + 1) {
      auto f = factors_of(v, size);
      pieces[first] = f != index_factors_.end() ? f->second : Parts{{v, size}};
      upper = lower;
      continue;
    }
    // Factors of v whose boundaries include the pieces' serve as they are.
    auto f = factors_of(v, size);
    bool factored = f != index_factors_.end();
    std::vector<int64_t> factor_bounds;  // the suffix product below each factor (within d)
    if (factored) {
      int64_t p = size;
      for (const auto& [part, part_size] : f->second) {
        p /= part_size;
        factor_bounds.push_back(p);
      }
      for (size_t j = first + 1; j < last && factored; ++j) {
        factored = std::find(factor_bounds.begin(), factor_bounds.end(), all[j] / lower) != factor_bounds.end();
      }
    }
    size_t part = 0;
    for (size_t j = first; j < last; ++j) {
      const int64_t piece_size = all[j] / all[j + 1];
      const int64_t below = all[j + 1] / lower;  // the piece's stride within dimension d
      if (factored) {
        while (part < f->second.size() && factor_bounds[part] >= below) pieces[j].push_back(f->second[part++]);
        continue;
      }
      llvm::Value* p = below == 1 ? v : b_.CreateUDiv(v, b_.getInt64(below));
      if (j != first) p = b_.CreateURem(p, b_.getInt64(piece_size));
      pieces[j] = {{p, piece_size}};
    }
    upper = lower;
  }
  IrIndex source(in.rank(), b_.getInt64(0));
  upper = in.ElementCount();
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t size = in.dimensions(d);
    if (size == 1) continue;
    const int64_t lower = upper / size;
    Parts parts;
    for (size_t j = piece_of(upper); j < piece_of(lower); ++j) parts.insert(parts.end(), pieces[j].begin(), pieces[j].end());
    llvm::Value* v = nullptr;
    for (const auto& [part, part_size] : parts) {
      v = v == nullptr ? part : b_.CreateAdd(b_.CreateMul(v, b_.getInt64(part_size), "", true, true), part, "", true, true);
    }
    source[d] = v;
    SetIndexFactors(v, std::move(parts));
    upper = lower;
  }
  return source;
}

llvm::Value* ElementalEmitter::EmitReshape(const Instruction* inst, const IrIndex& index) {
  const Shape& out = inst->shape();
  const Shape& in = inst->operand(0)->shape();
  if (IrIndex refined = RefinedReshapeIndex(out, in, index); !refined.empty()) {
    return Emit(inst->operand(0), refined);
  }
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

}  // namespace fusebox::codegen
