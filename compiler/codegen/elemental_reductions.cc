// The elemental emitter's reductions and contractions: reduce (with split, column and
// row-kernel partials), reduce-window, dot and convolution, each a loop per output
// element.
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
using elemental::Strides;

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
  // over the contracting dims, in order. Output dims: batch, lhs free, rhs free. Complex
  // products are std::complex's (ComplexMultiply), summed part by part.
  const DotDimensionNumbers& dn = *inst->attrs().dot_dimension_numbers;
  const Shape& lhs = inst->operand(0)->shape();
  const Shape& rhs = inst->operand(1)->shape();
  const PrimitiveType type = inst->shape().element_type();
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
// window reversal). Taps outside the input contribute nothing. Complex products are
// std::complex's, as in the dot.
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
      // Outside taps (padding, holes of the lhs dilation) read element 0 (always there)
      // and multiply a zero in its place.
      li[dn.input_spatial_dimensions[s]] = b_.CreateSelect(inside, pos, Int64(0));
      ri[dn.kernel_spatial_dimensions[s]] = w.window_reversal ? b_.CreateSub(Int64(w.size - 1), tap[s]) : tap[s];
    }
    llvm::Value* z = tap[spatial];
    li[dn.input_batch_dimension] = lhs_batch;
    li[dn.input_feature_dimension] = b_.CreateAdd(b_.CreateMul(feature_group, Int64(k_in)), z);
    ri[dn.kernel_input_feature_dimension] = z;
    ri[dn.kernel_output_feature_dimension] = out_feature;
    // XLA pads and dilates the input with zeros, and multiplies them like any input: a NaN
    // or infinite kernel value over padding makes the result NaN, as XLA:CPU computes it
    // (and the interpreter, ops_dot_conv.cc). So no branch: a zero in place of the input.
    llvm::Value* a = EmitConvert(inst, lhs.element_type(), type, Emit(inst->operand(0), li));
    a = b_.CreateSelect(inside, a, Constant(type, 0));
    llvm::Value* w = EmitConvert(inst, rhs.element_type(), type, Emit(inst->operand(1), ri));
    llvm::Value* product = EmitBinary(inst, Opcode::kMultiply, math_type, a, w);
    b_.CreateStore(EmitBinary(inst, Opcode::kAdd, math_type, b_.CreateLoad(acc_type, acc), product), acc);
  });
  return RoundToType(type, b_.CreateLoad(acc_type, acc));
}

}  // namespace fusebox::codegen
