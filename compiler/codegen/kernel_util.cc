#include "compiler/codegen/kernel_util.h"
#include "compiler/codegen/llvm_version.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <unordered_set>

#include "compiler/ir/collectives.h"
#include "compiler/ir/library_calls.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/support/timer.h"

namespace fusebox::codegen {

std::string ToText(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

Status FromLlvm(llvm::Error error, const std::string& what) {
  std::string message = llvm::toString(std::move(error));
  return Internal(what + ": " + message);
}

int64_t ArrayBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t total = 0;
    for (const Shape& s : shape.tuple_shapes()) total += ArrayBytes(s);
    return total;
  }
  if (!shape.IsArray()) return 0;
  return shape.ElementCount() * std::max(1, ByteWidth(shape.element_type()));
}

bool IsLibraryOp(Opcode op) {
  return op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kSort || op == Opcode::kTopK ||
         op == Opcode::kRngBitGenerator || op == Opcode::kFft;
}

// Ops the loop emitter cannot run as a kernel of their own (yet).
std::string UnsupportedReason(const Instruction& inst) {
  if (inst.opcode() == Opcode::kCustomCall && IsHostCallbackCustomCall(inst.attrs().custom_call_target)) {
    return "custom-call target \"" + inst.attrs().custom_call_target +
           "\" is a Python callback (jax.pure_callback, io_callback) that computes a value; Fusebox cannot run "
           "Python";
  }
  // jax's LAPACK calls the CPU pipeline keeps are the CPU runtime's library kernels
  // (library_kernels.h); the GPU emitter refuses them (they never reach it otherwise).
  if (IsCpuLapackCall(inst)) return "";
  if (inst.opcode() == Opcode::kCustomCall) {
    return "custom-call target \"" + inst.attrs().custom_call_target +
           "\" is external code Fusebox does not have (custom calls are not supported)";
  }
  switch (inst.opcode()) {
    case Opcode::kRng:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kTriangularSolve:
    case Opcode::kCholesky:
    case Opcode::kAllReduce:
    case Opcode::kAllGather:
    case Opcode::kAllToAll:
    case Opcode::kCollectivePermute:
    case Opcode::kReduceScatter:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      return "Fusebox's backends cannot emit " + std::string(OpcodeName(inst.opcode())) + " yet";
    default:
      return "";
  }
}

int64_t EstimateFlops(const Instruction& inst) {
  // Data movement costs no arithmetic, alone or fused.
  switch (inst.opcode()) {
    case Opcode::kBroadcast: case Opcode::kCopy: case Opcode::kTranspose: case Opcode::kSlice:
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse: case Opcode::kIota:
    case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice: case Opcode::kGather:
      return 0;
    default:
      break;
  }
  auto count_elementwise = [](const Computation& c, int64_t elements) {
    int64_t ops = 0;
    for (const auto& i : c.instructions()) {
      switch (i->opcode()) {
        case Opcode::kParameter: case Opcode::kConstant: case Opcode::kBroadcast:
        case Opcode::kReshape: case Opcode::kBitcast: case Opcode::kTranspose:
        case Opcode::kSlice: case Opcode::kTuple: case Opcode::kGetTupleElement:
        case Opcode::kCopy: case Opcode::kIota: case Opcode::kConcatenate: case Opcode::kPad:
          break;
        case Opcode::kReduce:
          ops += i->operand(0)->shape().ElementCount();
          break;
        default:
          ops += i->shape().IsArray() ? i->shape().ElementCount() : 0;
      }
    }
    (void)elements;
    return ops;
  };
  switch (inst.opcode()) {
    case Opcode::kFusion: {
      int64_t flops = count_elementwise(*inst.fused_computation(), inst.shape().ElementCount());
      for (const auto& i : inst.fused_computation()->instructions()) {
        if (i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution) {
          flops += EstimateFlops(*i) - (i->shape().IsArray() ? i->shape().ElementCount() : 0);
        }
      }
      return flops;
    }
    case Opcode::kDot: {
      int64_t k = 1;
      for (int64_t d : inst.attrs().dot_dimension_numbers->lhs_contracting_dimensions) {
        k *= inst.operand(0)->shape().dimensions(d);
      }
      return 2 * inst.shape().ElementCount() * k;
    }
    case Opcode::kConvolution: {
      const auto& dn = *inst.attrs().convolution_dimension_numbers;
      const Shape& kernel = inst.operand(1)->shape();
      int64_t per_output = kernel.dimensions(dn.kernel_input_feature_dimension);
      for (int64_t d : dn.kernel_spatial_dimensions) per_output *= kernel.dimensions(d);
      return 2 * inst.shape().ElementCount() * per_output;
    }
    case Opcode::kReduce:
      return inst.operand(0)->shape().ElementCount();
    case Opcode::kCustomCall:
      if (const int64_t lapack = LapackFlops(inst); lapack >= 0) return lapack;
      return inst.shape().IsArray() ? inst.shape().ElementCount() : 0;
    case Opcode::kFft: {
      // A radix-2 transform's 5 N log2 N per transform of N points (complex or real).
      double points = 1;
      for (int64_t n : inst.attrs().fft_length) points *= static_cast<double>(std::max<int64_t>(n, 1));
      const Shape& complex_side = inst.attrs().fft_type == FftType::kIrfft ? inst.operand(0)->shape() : inst.shape();
      const double transforms = static_cast<double>(complex_side.ElementCount()) /
                                std::max(1.0, points) * (inst.attrs().fft_type == FftType::kRfft ||
                                                                  inst.attrs().fft_type == FftType::kIrfft
                                                              ? 2.0
                                                              : 1.0);
      return static_cast<int64_t>(5 * points * std::log2(std::max(2.0, points)) * std::max(1.0, transforms));
    }
    default:
      return inst.shape().IsArray() ? inst.shape().ElementCount() : 0;
  }
}

// Whether `init` is the identity of `reducer` (add 0, multiply 1, max -inf, min +inf,
// and all-ones, or 0): then splitting the reduction into per-row partials is exact up to
// reassociation.
bool IsIdentityInit(const Computation& reducer, const Instruction& init) {
  const Instruction* root = reducer.root();
  if (reducer.parameter_count() != 2 || root->operand_count() != 2 ||
      root->operand(0)->opcode() != Opcode::kParameter || root->operand(1)->opcode() != Opcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return false;
  }
  if (init.opcode() != Opcode::kConstant || init.literal() == nullptr || init.literal_elided() ||
      init.literal()->element_count() != 1) {
    return false;
  }
  const PrimitiveType type = init.shape().element_type();
  const Literal& v = *init.literal();
  if (BugPlanted(PlantedBug::kAnyInitIsIdentity)) return true;
  switch (root->opcode()) {
    case Opcode::kAdd: return v.GetDouble(0) == 0 && !std::signbit(v.GetDouble(0));
    case Opcode::kMultiply: return v.GetDouble(0) == 1;
    case Opcode::kMaximum:
      if (IsFloat(type)) return std::isinf(v.GetDouble(0)) && v.GetDouble(0) < 0;
      return false;
    case Opcode::kMinimum:
      if (IsFloat(type)) return std::isinf(v.GetDouble(0)) && v.GetDouble(0) > 0;
      return false;
    case Opcode::kOr: return v.GetBits(0) == 0;
    default: return false;
  }
}

// A dynamic-update-slice (alone, or the root of a fusion whose operand 0 is a fused
// parameter that nothing else in the fusion reads) can write into its operand's buffer.
const Instruction* InPlaceUpdate(const Instruction& inst) {
  if (inst.opcode() == Opcode::kDynamicUpdateSlice) return inst.shape().IsArray() ? &inst : nullptr;
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr) return nullptr;
  const Instruction* root = inst.fused_computation()->root();
  if (root->opcode() != Opcode::kDynamicUpdateSlice || !root->shape().IsArray()) return nullptr;
  const Instruction* base = root->operand(0);
  if (base->opcode() != Opcode::kParameter) return nullptr;
  for (const Instruction* user : base->users()) {
    if (user != root) return nullptr;
  }
  for (int64_t i = 1; i < root->operand_count(); ++i) {
    if (root->operand(i) == base) return nullptr;
  }
  return root;
}


bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }


// Every array the kernel touches (operands, results, fused and called computations)
// must have an element type the emitter supports; say which one does not.
Status CheckElementTypes(llvm::LLVMContext& context, const Instruction& inst) {
  std::vector<const Instruction*> work = {&inst};
  for (const Instruction* op : inst.operands()) work.push_back(op);
  std::vector<const Computation*> comps(inst.called_computations().begin(), inst.called_computations().end());
  for (size_t c = 0; c < comps.size(); ++c) {
    for (const auto& i : comps[c]->instructions()) {
      work.push_back(i.get());
      for (const Computation* callee : i->called_computations()) {
        if (std::find(comps.begin(), comps.end(), callee) == comps.end()) comps.push_back(callee);
      }
    }
  }
  for (const Instruction* i : work) {
    Status bad = Status::Ok();
    ForEachSubshape(i->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (!bad.ok() || !s.IsArray()) return;
      auto type = codegen::StorageType(context, s.element_type());
      if (!type.ok()) bad = Unimplemented(inst.name() + ": " + i->name() + " is " + s.ToString(false) + ": " + type.status().message());
    });
    RETURN_IF_ERROR(bad);
  }
  return Status::Ok();
}


StatusOr<std::vector<Shape>> ScatterLikeResults(const Instruction& inst, const Instruction& root) {
  const bool is_scatter = root.opcode() == Opcode::kScatter;
  const int64_t n = is_scatter ? (root.operand_count() - 1) / 2 : 1;
  if (is_scatter && (root.operand_count() < 3 || root.operand_count() % 2 == 0 ||
                     !root.attrs().scatter_dimension_numbers || root.to_apply() == nullptr)) {
    return InvalidArgument(inst.name() + ": malformed scatter");
  }
  if (!is_scatter && (root.operand_count() != 3 || !root.attrs().window || root.called_computations().size() < 2)) {
    return InvalidArgument(inst.name() + ": malformed select-and-scatter");
  }
  std::vector<Shape> outs;
  ForEachSubshape(root.shape(), [&](const Shape& sh, const std::vector<int64_t>&) {
    if (sh.IsArray()) outs.push_back(sh);
  });
  if (static_cast<int64_t>(outs.size()) != n) return InvalidArgument(inst.name() + ": result shape does not match");
  return outs;
}

void EmitScatterUpdates(const Instruction& scatter, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                        const std::vector<IrArray>& results) {
  const int64_t n = (scatter.operand_count() - 1) / 2;
  const ScatterDimensionNumbers& dn = *scatter.attrs().scatter_dimension_numbers;
  const Instruction* indices = scatter.operand(n);
  const Shape& upd = scatter.operand(n + 1)->shape();
  const Shape& op = results[0].shape();
  const int64_t op_rank = op.rank();
  const int64_t idx_rank = indices->shape().rank();
  const bool implicit_vector = dn.index_vector_dim == idx_rank;
  std::vector<int64_t> window_dims;  // operand dims the update window covers, in order
  for (int64_t d = 0; d < op_rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) && !Contains(dn.input_batching_dims, d)) window_dims.push_back(d);
  }
  std::vector<int64_t> scatter_upd_dims;
  for (int64_t d = 0; d < upd.rank(); ++d) {
    if (!Contains(dn.update_window_dims, d)) scatter_upd_dims.push_back(d);
  }
  std::vector<int64_t> index_batch_dims;  // indices dims other than the index vector dim
  for (int64_t d = 0; d < idx_rank; ++d) {
    if (implicit_vector || d != dn.index_vector_dim) index_batch_dims.push_back(d);
  }
  std::vector<int64_t> window_size(op_rank, 1);
  for (size_t k = 0; k < window_dims.size() && k < dn.update_window_dims.size(); ++k) {
    window_size[window_dims[k]] = upd.dimensions(dn.update_window_dims[k]);
  }
  std::vector<int64_t> scatter_bounds, scatter_order;
  for (size_t k = 0; k < scatter_upd_dims.size(); ++k) {
    scatter_bounds.push_back(upd.dimensions(scatter_upd_dims[k]));
    scatter_order.push_back(static_cast<int64_t>(k));
  }
  emitter.EmitLoopNest(scatter_bounds, scatter_order, "scatter", [&](const IrIndex& sidx) {
    std::vector<llvm::Value*> start(op_rank, b.getInt64(0));
    for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
      IrIndex at(idx_rank, nullptr);
      for (size_t j = 0; j < index_batch_dims.size() && j < sidx.size(); ++j) at[index_batch_dims[j]] = sidx[j];
      if (!implicit_vector) at[dn.index_vector_dim] = b.getInt64(static_cast<int64_t>(k));
      llvm::Value* v = emitter.Emit(indices, at);
      v = IsUnsignedInt(indices->shape().element_type()) ? b.CreateZExt(v, b.getInt64Ty()) : b.CreateSExt(v, b.getInt64Ty());
      start[dn.scatter_dims_to_operand_dims[k]] = v;
    }
    for (size_t k = 0; k < dn.input_batching_dims.size(); ++k) {
      int64_t pos = std::find(index_batch_dims.begin(), index_batch_dims.end(), dn.scatter_indices_batching_dims[k]) -
                    index_batch_dims.begin();
      if (pos < static_cast<int64_t>(sidx.size())) start[dn.input_batching_dims[k]] = sidx[pos];
    }
    llvm::Value* in_bounds = b.getTrue();
    for (int64_t d = 0; d < op_rank; ++d) {
      in_bounds = b.CreateAnd(in_bounds, b.CreateICmpSGE(start[d], b.getInt64(0)));
      in_bounds = b.CreateAnd(in_bounds, b.CreateICmpSLE(start[d], b.getInt64(op.dimensions(d) - window_size[d])));
    }
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* then_block = llvm::BasicBlock::Create(b.getContext(), "scatter.apply", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "scatter.next", fn);
    b.CreateCondBr(in_bounds, then_block, next);
    b.SetInsertPoint(then_block);
    std::vector<int64_t> window_bounds, window_order;
    for (size_t k = 0; k < dn.update_window_dims.size(); ++k) {
      window_bounds.push_back(upd.dimensions(dn.update_window_dims[k]));
      window_order.push_back(static_cast<int64_t>(k));
    }
    emitter.EmitLoopNest(window_bounds, window_order, "window", [&](const IrIndex& widx) {
      IrIndex full = start;
      for (size_t k = 0; k < window_dims.size() && k < widx.size(); ++k) {
        full[window_dims[k]] = b.CreateAdd(start[window_dims[k]], widx[k]);
      }
      IrIndex u(upd.rank(), nullptr);
      for (size_t k = 0; k < scatter_upd_dims.size(); ++k) u[scatter_upd_dims[k]] = sidx[k];
      for (size_t k = 0; k < dn.update_window_dims.size(); ++k) u[dn.update_window_dims[k]] = widx[k];
      std::vector<llvm::Value*> args;
      std::vector<llvm::Value*> addresses;
      for (int64_t i = 0; i < n; ++i) {
        llvm::Value* address = results[i].Address(b, full);
        addresses.push_back(address);
        PrimitiveType t = results[i].shape().element_type();
        args.push_back(codegen::ToRegister(b, t, b.CreateLoad(*codegen::StorageType(b.getContext(), t), address)));
      }
      for (int64_t i = 0; i < n; ++i) args.push_back(emitter.Emit(scatter.operand(n + 1 + i), u));
      std::vector<llvm::Value*> combined = emitter.EmitScalarComputation(*scatter.to_apply(), args);
      for (int64_t i = 0; i < n && i < static_cast<int64_t>(combined.size()); ++i) {
        b.CreateStore(codegen::ToStorage(b, results[i].shape().element_type(), combined[i]), addresses[i]);
      }
    });
    b.CreateBr(next);
    b.SetInsertPoint(next);
  });
}


int64_t SelectAndScatterParallelDim(const Instruction& sas) {
  if (sas.opcode() != Opcode::kSelectAndScatter || !sas.attrs().window) return -1;
  const Shape& in = sas.operand(0)->shape();
  const Shape& source = sas.operand(1)->shape();
  const Window& window = *sas.attrs().window;
  for (int64_t d = 0; d < in.rank() && d < static_cast<int64_t>(window.dimensions.size()); ++d) {
    const WindowDimension& wd = window.dimensions[d];
    if (wd.size == 1 && wd.stride == 1 && wd.padding_low == 0 && wd.padding_high == 0 && wd.base_dilation == 1 &&
        wd.window_dilation == 1 && in.dimensions(d) > 1 && source.dimensions(d) == in.dimensions(d)) {
      return d;
    }
  }
  return -1;
}

namespace {

// Scans the window of source element `s` in the order XLA defines (taps in row-major
// order, padding and holes skipped) and leaves the operand position `select` keeps in
// `selected`, with `has` false when the window covers no operand element.
void EmitWindowSelection(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b, const IrIndex& s,
                         const std::vector<llvm::AllocaInst*>& selected, llvm::AllocaInst* has) {
  const Computation* select = sas.called_computation(0);
  const Shape& in = sas.operand(0)->shape();
  const Window& window = *sas.attrs().window;
  const int64_t rank = in.rank();
  llvm::Type* i64 = b.getInt64Ty();
  std::vector<int64_t> window_bounds, order;
  for (int64_t d = 0; d < rank; ++d) {
    window_bounds.push_back(window.dimensions[d].size);
    order.push_back(d);
  }
  b.CreateStore(b.getFalse(), has);
  emitter.EmitLoopNest(window_bounds, order, "tap", [&](const IrIndex& w) {
    llvm::Value* inside = b.getTrue();
    IrIndex pos(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      llvm::Value* p = b.CreateAdd(b.CreateMul(s[d], b.getInt64(wd.stride)), b.CreateMul(w[d], b.getInt64(wd.window_dilation)));
      p = b.CreateSub(p, b.getInt64(wd.padding_low));
      llvm::Value* ok = b.CreateICmpSGE(p, b.getInt64(0));
      if (wd.base_dilation != 1) {
        ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateSRem(p, b.getInt64(wd.base_dilation)), b.getInt64(0)));
        p = b.CreateSDiv(p, b.getInt64(wd.base_dilation));
      }
      ok = b.CreateAnd(ok, b.CreateICmpSLT(p, b.getInt64(in.dimensions(d))));
      inside = b.CreateAnd(inside, ok);
      pos[d] = p;
    }
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* tap = llvm::BasicBlock::Create(b.getContext(), "tap.inside", fn);
    llvm::BasicBlock* first = llvm::BasicBlock::Create(b.getContext(), "tap.first", fn);
    llvm::BasicBlock* compare = llvm::BasicBlock::Create(b.getContext(), "tap.compare", fn);
    llvm::BasicBlock* take = llvm::BasicBlock::Create(b.getContext(), "tap.take", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "tap.next", fn);
    b.CreateCondBr(inside, tap, next);
    b.SetInsertPoint(tap);
    b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), has), compare, first);
    b.SetInsertPoint(first);
    b.CreateBr(take);
    b.SetInsertPoint(compare);
    // Values emitted in a branch do not dominate what follows it: not cached past it (a
    // one-element operand's index is a constant, and its value emitted here was reused by
    // the scatter's add after the loop: "Instruction does not dominate all uses").
    emitter.PushScope();
    IrIndex current(rank);
    for (int64_t d = 0; d < rank; ++d) current[d] = b.CreateLoad(i64, selected[d]);
    llvm::Value* a = emitter.Emit(sas.operand(0), current);
    llvm::Value* c = emitter.Emit(sas.operand(0), pos);
    std::vector<llvm::Value*> keep = emitter.EmitScalarComputation(*select, {a, c});
    llvm::Value* keep_value = keep.empty() ? b.getTrue() : keep[0];
    emitter.PopScope();
    b.CreateCondBr(keep_value, next, take);
    b.SetInsertPoint(take);
    for (int64_t d = 0; d < rank; ++d) b.CreateStore(pos[d], selected[d]);
    b.CreateStore(b.getTrue(), has);
    b.CreateBr(next);
    b.SetInsertPoint(next);
  });
}

}  // namespace

void EmitSelectAndScatterUpdates(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                 const IrArray& result, int64_t outer_dim, llvm::Value* begin, llvm::Value* end) {
  const Computation* scatter = sas.called_computation(1);
  const Shape& source = sas.operand(1)->shape();
  const int64_t rank = sas.operand(0)->shape().rank();
  llvm::Type* i64 = b.getInt64Ty();
  std::vector<llvm::AllocaInst*> selected;
  for (int64_t d = 0; d < rank; ++d) selected.push_back(emitter.EntryAlloca(i64, "selected"));
  llvm::AllocaInst* has = emitter.EntryAlloca(b.getInt1Ty(), "has_selection");
  std::vector<int64_t> source_bounds(source.dimensions().begin(), source.dimensions().end()), order;
  for (int64_t d = 0; d < rank; ++d) order.push_back(d);
  auto per_source = [&](const IrIndex& s) {
    EmitWindowSelection(sas, emitter, b, s, selected, has);
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* apply = llvm::BasicBlock::Create(b.getContext(), "scatter.apply", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(b.getContext(), "scatter.done", fn);
    b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), has), apply, done);
    b.SetInsertPoint(apply);
    emitter.PushScope();
    IrIndex at(rank);
    for (int64_t d = 0; d < rank; ++d) at[d] = b.CreateLoad(i64, selected[d]);
    PrimitiveType t = result.shape().element_type();
    llvm::Value* address = result.Address(b, at);
    llvm::Value* current = codegen::ToRegister(b, t, b.CreateLoad(*codegen::StorageType(b.getContext(), t), address));
    llvm::Value* src = emitter.Emit(sas.operand(1), s);
    std::vector<llvm::Value*> combined = emitter.EmitScalarComputation(*scatter, {src, current});
    if (!combined.empty()) b.CreateStore(codegen::ToStorage(b, t, combined[0]), address);
    emitter.PopScope();
    b.CreateBr(done);
    b.SetInsertPoint(done);
  };
  if (outer_dim < 0 || begin == nullptr || end == nullptr) {
    emitter.EmitLoopNest(source_bounds, order, "source", per_source);
    return;
  }
  std::vector<int64_t> inner;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != outer_dim) inner.push_back(d);
  }
  emitter.EmitLoop(begin, end, "source.outer", [&](llvm::Value* o) {
    emitter.EmitLoopNest(source_bounds, inner, "source", [&](const IrIndex& partial) {
      IrIndex s = partial;
      s[outer_dim] = o;
      per_source(s);
    });
  });
}

llvm::Value* EmitSelectAndScatterGather(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                        const IrIndex& e) {
  const Computation* scatter = sas.called_computation(1);
  const Shape& in = sas.operand(0)->shape();
  const Shape& source = sas.operand(1)->shape();
  const Window& window = *sas.attrs().window;
  const int64_t rank = in.rank();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Value* init = emitter.Emit(sas.operand(2), {});
  llvm::AllocaInst* acc = emitter.EntryAlloca(init->getType(), "gathered");
  b.CreateStore(init, acc);
  std::vector<llvm::AllocaInst*> selected;
  for (int64_t d = 0; d < rank; ++d) selected.push_back(emitter.EntryAlloca(i64, "selected"));
  llvm::AllocaInst* has = emitter.EntryAlloca(b.getInt1Ty(), "has_selection");
  std::vector<int64_t> window_bounds, order;
  for (int64_t d = 0; d < rank; ++d) {
    window_bounds.push_back(window.dimensions[d].size);
    order.push_back(d);
  }
  // Tap w of window s lands on e when s*stride + w*dilation - pad_low == e*base_dilation.
  // Taps run from the last to the first, so that the windows come in the serial kernel's
  // order (row-major over the source) and an add combines the same values in the same order.
  emitter.EmitLoopNest(window_bounds, order, "covering", [&](const IrIndex& t) {
    llvm::Value* covers = b.getTrue();
    IrIndex s(rank);
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& wd = window.dimensions[d];
      llvm::Value* w = b.CreateSub(b.getInt64(wd.size - 1), t[d]);
      llvm::Value* num = b.CreateAdd(b.CreateMul(e[d], b.getInt64(wd.base_dilation)), b.getInt64(wd.padding_low));
      num = b.CreateSub(num, b.CreateMul(w, b.getInt64(wd.window_dilation)));
      llvm::Value* ok = b.CreateICmpSGE(num, b.getInt64(0));
      ok = b.CreateAnd(ok, b.CreateICmpEQ(b.CreateSRem(num, b.getInt64(wd.stride)), b.getInt64(0)));
      s[d] = b.CreateSDiv(num, b.getInt64(wd.stride));
      ok = b.CreateAnd(ok, b.CreateICmpSLT(s[d], b.getInt64(source.dimensions(d))));
      covers = b.CreateAnd(covers, ok);
    }
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* scan = llvm::BasicBlock::Create(b.getContext(), "covering.scan", fn);
    llvm::BasicBlock* apply = llvm::BasicBlock::Create(b.getContext(), "covering.apply", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "covering.next", fn);
    b.CreateCondBr(covers, scan, next);
    b.SetInsertPoint(scan);
    EmitWindowSelection(sas, emitter, b, s, selected, has);
    llvm::Value* mine = b.CreateLoad(b.getInt1Ty(), has);
    for (int64_t d = 0; d < rank; ++d) mine = b.CreateAnd(mine, b.CreateICmpEQ(b.CreateLoad(i64, selected[d]), e[d]));
    b.CreateCondBr(mine, apply, next);
    b.SetInsertPoint(apply);
    emitter.PushScope();
    llvm::Value* src = emitter.Emit(sas.operand(1), s);
    std::vector<llvm::Value*> combined =
        emitter.EmitScalarComputation(*scatter, {src, b.CreateLoad(init->getType(), acc)});
    if (!combined.empty()) b.CreateStore(combined[0], acc);
    emitter.PopScope();
    b.CreateBr(next);
    b.SetInsertPoint(next);
  });
  return b.CreateLoad(init->getType(), acc);
}

bool SelectAndScatterWindowsTile(const Instruction& sas) {
  if (sas.opcode() != Opcode::kSelectAndScatter || sas.operand_count() != 3 || !sas.attrs().window) return false;
  const Shape& in = sas.operand(0)->shape();
  const Shape& source = sas.operand(1)->shape();
  const Window& window = *sas.attrs().window;
  if (!in.IsArray() || !source.IsArray() || source.rank() != in.rank() ||
      static_cast<int64_t>(window.dimensions.size()) != in.rank()) {
    return false;
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    const WindowDimension& wd = window.dimensions[d];
    if (wd.size < 1 || wd.stride != wd.size || wd.padding_low != 0 || wd.padding_high != 0 || wd.window_dilation != 1 ||
        wd.base_dilation != 1 || in.dimensions(d) != source.dimensions(d) * wd.stride) {
      return false;
    }
  }
  return true;
}

void EmitSelectAndScatterWindow(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                const IrIndex& s, const IrArray& result) {
  const Computation* scatter = sas.called_computation(1);
  const Window& window = *sas.attrs().window;
  const int64_t rank = sas.operand(0)->shape().rank();
  llvm::Type* i64 = b.getInt64Ty();
  std::vector<llvm::AllocaInst*> selected;
  for (int64_t d = 0; d < rank; ++d) selected.push_back(emitter.EntryAlloca(i64, "selected"));
  llvm::AllocaInst* has = emitter.EntryAlloca(b.getInt1Ty(), "has_selection");
  EmitWindowSelection(sas, emitter, b, s, selected, has);
  // Every window has elements (size >= 1, inside the operand): the selection is set.
  IrIndex chosen(rank);
  for (int64_t d = 0; d < rank; ++d) chosen[d] = b.CreateLoad(i64, selected[d]);
  llvm::Value* init = emitter.Emit(sas.operand(2), {});
  llvm::Value* src = emitter.Emit(sas.operand(1), s);
  std::vector<llvm::Value*> combined = emitter.EmitScalarComputation(*scatter, {src, init});
  llvm::Value* picked = combined.empty() ? init : combined[0];
  const PrimitiveType t = result.shape().element_type();
  std::vector<int64_t> window_bounds, order;
  for (int64_t d = 0; d < rank; ++d) {
    window_bounds.push_back(window.dimensions[d].size);
    order.push_back(d);
  }
  emitter.EmitLoopNest(window_bounds, order, "window", [&](const IrIndex& w) {
    IrIndex at(rank);
    llvm::Value* is_selected = b.getTrue();
    for (int64_t d = 0; d < rank; ++d) {
      at[d] = b.CreateAdd(b.CreateMul(s[d], b.getInt64(window.dimensions[d].stride)), w[d]);
      is_selected = b.CreateAnd(is_selected, b.CreateICmpEQ(at[d], chosen[d]));
    }
    b.CreateStore(codegen::ToStorage(b, t, b.CreateSelect(is_selected, picked, init)), result.Address(b, at));
  });
}

// The kernel's outputs: root tuple operands, a variadic reduce's values, or the root.
std::vector<OutputLeaf> KernelOutputs(const Instruction& inst) {
  const Instruction* root = inst.opcode() == Opcode::kFusion ? inst.fused_computation()->root() : &inst;
  std::vector<OutputLeaf> leaves;
  if (root->opcode() == Opcode::kTuple) {
    for (const Instruction* op : root->operands()) {
      if (op->shape().IsTuple()) {
        for (int64_t k = 0; k < op->shape().tuple_size(); ++k) leaves.push_back({op, k, op->shape().tuple_shapes(k)});
      } else {
        leaves.push_back({op, -1, op->shape()});
      }
    }
  } else if (root->shape().IsTuple()) {
    for (int64_t k = 0; k < root->shape().tuple_size(); ++k) leaves.push_back({root, k, root->shape().tuple_shapes(k)});
  } else {
    leaves.push_back({root, -1, root->shape()});
  }
  return leaves;
}

bool VectorMathLibraryLoaded() {
  static const bool loaded = [] {
    std::string error;
    return !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1", &error);
  }();
  return loaded;
}

namespace {

// "no-unroll-vectorized": marks every loop the loop vectorizer made (llvm.loop.isvectorized)
// llvm.loop.unroll.disable, so a later loop-unroll leaves it as the vectorizer built it.
// The vectorizer already interleaves (2-4 vector bodies per iteration); unrolling that
// again (x86 targets whose scheduling model has a loop buffer, Zen 4 among them, ask for
// partial unrolling) or fully (a 1024-element row is 16 iterations of 64 lanes) multiplies
// the code without making memory-bound loops faster, and code generation's cost grows
// with it: reduce_sum's kernel over 3 x 64 MiB 20 -> 8-11 ms, softmax's three kernels
// 24-28 -> 15-21 ms of one thread's compile time (docs/cpu-backend.md, Optimization).
class NoUnrollVectorizedPass : public llvm::PassInfoMixin<NoUnrollVectorizedPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& fam) {
    llvm::LoopInfo& loops = fam.getResult<llvm::LoopAnalysis>(f);
    for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
      if (!llvm::getBooleanLoopAttribute(loop, "llvm.loop.isvectorized")) continue;
      if (llvm::getBooleanLoopAttribute(loop, "llvm.loop.unroll.disable")) continue;
      llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.disable", 1);
    }
    return llvm::PreservedAnalyses::all();  // only loop metadata changed: no analysis reads it
  }
};

// "loop-hints-from-attributes": in functions with the attribute kInterleaveAttribute or
// kVectorizeWidthAttribute, every innermost loop without such a hint of its own gets the
// attribute's value as llvm.loop.interleave.count / llvm.loop.vectorize.width, before the
// loop vectorizer decides them. Loops of a known trip count below kMinInterleavedTrips get
// no interleave count: interleaving a few iterations gains nothing, and LLVM 19's
// vectorizer, told to interleave a loop of fewer than 16 iterations, can spend forever in
// sinkScalarOperands (seen on a Zen 3 host with an f16 log-softmax row of 14: the
// differential fuzzer's seed 93 never finished compiling).
constexpr unsigned kMinInterleavedTrips = 32;
class LoopHintsFromAttributesPass : public llvm::PassInfoMixin<LoopHintsFromAttributesPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& fam) {
    const std::pair<const char*, const char*> hints[] = {{kInterleaveAttribute, "llvm.loop.interleave.count"},
                                                          {kVectorizeWidthAttribute, "llvm.loop.vectorize.width"}};
    llvm::LoopInfo* loops = nullptr;
    for (const auto& [attribute, hint] : hints) {
      unsigned value = 0;
      if (!f.hasFnAttribute(attribute) || f.getFnAttribute(attribute).getValueAsString().getAsInteger(10, value) ||
          value == 0) {
        continue;
      }
      if (loops == nullptr) loops = &fam.getResult<llvm::LoopAnalysis>(f);
      llvm::ScalarEvolution& scev = fam.getResult<llvm::ScalarEvolutionAnalysis>(f);
      for (llvm::Loop* loop : loops->getLoopsInPreorder()) {
        if (!loop->isInnermost() || llvm::getOptionalIntLoopAttribute(loop, hint)) continue;
        if (attribute == std::string_view(kInterleaveAttribute)) {
          const unsigned trips = scev.getSmallConstantTripCount(loop);  // 0: not a known constant
          if (trips != 0 && trips < kMinInterleavedTrips) continue;
        }
        llvm::addStringMetadataToLoop(loop, hint, value);
      }
    }
    return llvm::PreservedAnalyses::all();  // only loop metadata changed
  }
};

}  // namespace

namespace {

// Spans per function for Optimize: the function pass manager the module-to-function
// adaptor runs on each function opens a span before and closes it after. Only the
// outermost one counts (LLVM's -O2 nests function pipelines inside CGSCC passes).
class FunctionSpans {
 public:
  FunctionSpans(CompileTrace* trace, llvm::PassInstrumentationCallbacks& callbacks) : trace_(trace) {
    if (trace_ == nullptr) return;
    callbacks.registerBeforeNonSkippedPassCallback([this](llvm::StringRef pass, llvm::Any ir) {
      const llvm::Function* const* f = llvm::any_cast<const llvm::Function*>(&ir);
      if (f != nullptr && IsFunctionPipeline(pass) && depth_++ == 0) Begin(**f);
    });
    callbacks.registerAfterPassCallback([this](llvm::StringRef pass, llvm::Any ir, const llvm::PreservedAnalyses&) {
      if (llvm::any_cast<const llvm::Function*>(&ir) != nullptr && IsFunctionPipeline(pass)) Finish();
    });
    callbacks.registerAfterPassInvalidatedCallback([this](llvm::StringRef pass, const llvm::PreservedAnalyses&) {
      if (IsFunctionPipeline(pass)) Finish();
    });
  }

 private:
  static bool IsFunctionPipeline(llvm::StringRef pass) { return pass.starts_with("PassManager<") && pass.contains("Function>"); }
  void Begin(const llvm::Function& f) {
    name_ = f.getName().str();
    begin_ns_ = NowNanos();
  }
  void Finish() {
    if (depth_ == 0 || --depth_ > 0) return;
    trace_->Record(compile_category::kLlvm, name_, begin_ns_, NowNanos(), {{"function", name_}});
  }

  CompileTrace* trace_;
  int depth_ = 0;
  std::string name_;
  int64_t begin_ns_ = 0;
};

}  // namespace

Status Optimize(llvm::Module& module, llvm::TargetMachine* tm, int level, bool vector_math,
                std::string_view pipeline, CompileTrace* trace) {
  llvm::PassInstrumentationCallbacks instrumentation;
  FunctionSpans function_spans(trace, instrumentation);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  // The vector math library is registered before the default analyses (the first
  // registration of an analysis wins).
  llvm::Triple triple(module.getTargetTriple());
  llvm::TargetLibraryInfoImpl library_info(triple);
  if (vector_math && triple.getArch() == llvm::Triple::x86_64) {
    library_info.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library_info); });
  }
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  llvm::PassBuilder pb(tm, tuning, std::nullopt, trace != nullptr ? &instrumentation : nullptr);
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::FunctionPassManager& fpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name == "no-unroll-vectorized") {
      fpm.addPass(NoUnrollVectorizedPass());
      return true;
    }
    if (name == "loop-hints-from-attributes") {
      fpm.addPass(LoopHintsFromAttributesPass());
      return true;
    }
    return false;
  });
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level <= 0   ? llvm::OptimizationLevel::O0
                                : level == 1 ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm;
  if (!pipeline.empty()) {
    if (llvm::Error error = pb.parsePassPipeline(mpm, llvm::StringRef(pipeline.data(), pipeline.size()))) {
      return FromLlvm(std::move(error), "bad LLVM pass pipeline");
    }
  } else {
    mpm = level <= 0 ? pb.buildO0DefaultPipeline(opt) : pb.buildPerModuleDefaultPipeline(opt);
  }
  mpm.run(module, mam);
  return Status::Ok();
}

namespace {

// The process-wide "disable-lsr" option, shared by pipelines built with the same value.
class LoopStrengthReductionSwitch {
 public:
  static LoopStrengthReductionSwitch& Get() {
    static LoopStrengthReductionSwitch instance;
    return instance;
  }
  bool available() const { return option_ != nullptr; }
  void Enter(bool disable) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return users_ == 0 || disabled_ == disable; });
    if (disabled_ != disable) {
      // As if given on a command line (the pass configuration reads the parsed value).
      (void)option_->addOccurrence(1, "disable-lsr", disable ? "true" : "false");
      disabled_ = disable;
    }
    ++users_;
  }
  void Leave() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--users_ == 0) cv_.notify_all();
  }

 private:
  LoopStrengthReductionSwitch() {
    auto& options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("disable-lsr"); it != options.end()) option_ = it->second;
  }
  std::mutex mu_;
  std::condition_variable cv_;
  int users_ = 0;
  bool disabled_ = false;  // LLVM's default
  llvm::cl::Option* option_ = nullptr;
};

}  // namespace

Status AddCodegenPasses(llvm::TargetMachine& tm, llvm::legacy::PassManager& pm, llvm::raw_pwrite_stream& out,
                        llvm::CodeGenFileType type, bool loop_strength_reduction) {
  LoopStrengthReductionSwitch& lsr = LoopStrengthReductionSwitch::Get();
  // Without the option (an LLVM that renamed it) the pipeline keeps LLVM's default.
  const bool switched = lsr.available();
  if (switched) lsr.Enter(!loop_strength_reduction);
  const bool failed = tm.addPassesToEmitFile(pm, out, nullptr, type);
  if (switched) lsr.Leave();
  if (failed) return Internal("the " + tm.getTargetTriple().str() + " target cannot emit this kind of file");
  return Status::Ok();
}

StatusOr<KernelFacts> DescribeKernel(llvm::LLVMContext& context, const Instruction& inst, std::string_view backend) {
  KernelFacts facts;
  facts.kind_name = std::string(OpcodeName(inst.opcode()));
  if (inst.opcode() == Opcode::kFusion && inst.fusion_kind()) {
    facts.kind_name += "(" + std::string(FusionKindName(*inst.fusion_kind())) + ")";
  }
  for (const Instruction* op : inst.operands()) facts.bytes_read += ArrayBytes(op->shape());
  facts.bytes_written = ArrayBytes(inst.shape());
  facts.flops = EstimateFlops(inst);
  for (const Instruction* op : inst.operands()) {
    if (!op->shape().IsArray()) {
      return Unimplemented(inst.name() + ": the " + std::string(backend) + " needs array operands for kernels; operand " +
                           op->name() + " is a tuple");
    }
  }
  if (std::string why = UnsupportedReason(inst); !why.empty()) return Unimplemented(inst.name() + ": " + why);
  RETURN_IF_ERROR(CheckElementTypes(context, inst));
  return facts;
}


std::string LlvmVersionString() { return LLVM_VERSION_STRING; }

}  // namespace fusebox::codegen
