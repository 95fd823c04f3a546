// The GPU kernel emitter's kernels other than reductions: the choice of kernel (Emit),
// entries and thread indexing, loops over an output space, in-place updates, scatters,
// sorts (a bitonic network in shared memory) and tiled transposes; and the analyses that
// choose reduction, dot and tiled-transpose kernels. Dots are in gpu_dot_emitter.cc.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/solver_plan.h"
#include "compiler/codegen/gpu_kernel_emitter.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/row_fusion.h"

namespace fusebox::codegen::gpu {

namespace {


bool DependsOn(const Instruction* from, const Instruction* target, std::unordered_set<const Instruction*>& seen) {
  if (from == target) return true;
  if (!seen.insert(from).second) return false;
  for (const Instruction* op : from->operands()) {
    if (DependsOn(op, target, seen)) return true;
  }
  return false;
}

// True when every path from `from` to a hero goes through elementwise instructions,
// reshapes, bitcasts and tuple elements only: the value at an output position reads the
// heroes at that same position (what a reduction kernel binds them to), never at another
// one (a broadcast, transpose or slice of a result reads its neighbours).
bool ReadsHeroesElementwise(const Instruction* from, const std::vector<const Instruction*>& heroes) {
  std::unordered_set<const Instruction*> seen;
  std::vector<const Instruction*> work = {from};
  while (!work.empty()) {
    const Instruction* inst = work.back();
    work.pop_back();
    if (!seen.insert(inst).second || std::find(heroes.begin(), heroes.end(), inst) != heroes.end()) continue;
    bool reads_hero = false;
    for (const Instruction* hero : heroes) {
      std::unordered_set<const Instruction*> visited;
      reads_hero = reads_hero || DependsOn(inst, hero, visited);
    }
    if (!reads_hero) continue;
    const Opcode op = inst->opcode();
    const bool in_place = op == Opcode::kReshape || op == Opcode::kBitcast || op == Opcode::kGetTupleElement ||
                          (IsElementwise(op) && std::all_of(inst->operands().begin(), inst->operands().end(),
                                                            [&](const Instruction* operand) {
                                                              return operand->shape().IsArray() &&
                                                                     inst->shape().IsArray() &&
                                                                     operand->shape().dimensions() ==
                                                                         inst->shape().dimensions();
                                                            }));
    if (!in_place) return false;
    for (const Instruction* operand : inst->operands()) work.push_back(operand);
  }
  return true;
}

// True when `a` and `b` are the same dimensions once those of size 1 are left out (a
// reshape between them keeps every element's linear position).
bool SameButUnitDimensions(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> x, y;
  for (int64_t d : a) {
    if (d != 1) x.push_back(d);
  }
  for (int64_t d : b) {
    if (d != 1) y.push_back(d);
  }
  return x == y;
}

}  // namespace

std::optional<ReductionInfo> AnalyzeReduction(const Instruction& inst, const std::vector<OutputLeaf>& outputs) {
  ReductionInfo info;
  if (inst.opcode() == Opcode::kReduce) {
    info.heroes.push_back(&inst);
  } else if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() == Opcode::kReduce) info.heroes.push_back(i.get());
    }
  }
  if (info.heroes.empty()) return std::nullopt;
  const Instruction* first = info.heroes[0];
  for (const Instruction* hero : info.heroes) {
    const int64_t n = hero->operand_count() / 2;
    if (hero->operand_count() < 2 || hero->operand_count() % 2 != 0 || hero->to_apply() == nullptr) return std::nullopt;
    if (hero->dimensions() != first->dimensions()) return std::nullopt;
    for (int64_t k = 0; k < n; ++k) {
      if (!hero->operand(k)->shape().IsArray() ||
          hero->operand(k)->shape().dimensions() != first->operand(0)->shape().dimensions()) {
        return std::nullopt;
      }
    }
    for (const Instruction* other : info.heroes) {
      std::unordered_set<const Instruction*> seen;
      for (int64_t k = 0; k < hero->operand_count(); ++k) {
        if (other != hero && DependsOn(hero->operand(k), other, seen)) return std::nullopt;
      }
    }
  }
  info.operand = first->operand(0)->shape();
  info.reduced = first->dimensions();
  std::sort(info.reduced.begin(), info.reduced.end());
  for (int64_t d = 0; d < info.operand.rank(); ++d) {
    if (!Contains(info.reduced, d)) {
      info.kept.push_back(d);
      info.outputs *= info.operand.dimensions(d);
    } else {
      info.length *= info.operand.dimensions(d);
    }
  }
  bool any_reduced_output = false;
  for (size_t m = 0; m < outputs.size(); ++m) {
    const OutputLeaf& leaf = outputs[m];
    if (!leaf.shape.IsArray()) return std::nullopt;
    // The result, or a reshape of it (jax's keepdims adds dimensions of size 1), each
    // element computed from the reduce values of its own row-major position.
    if (leaf.shape.ElementCount() == info.outputs && ReadsHeroesElementwise(leaf.inst, info.heroes)) {
      any_reduced_output = true;
      continue;
    }
    // An elementwise sibling of the operand's shape (or a reshape of it), written while the
    // operand is read: only when it does not need a reduction's result.
    if (leaf.shape.ElementCount() != info.operand.ElementCount() || info.outputs == info.operand.ElementCount()) {
      return std::nullopt;
    }
    for (const Instruction* hero : info.heroes) {
      std::unordered_set<const Instruction*> seen;
      if (DependsOn(leaf.inst, hero, seen)) return std::nullopt;
    }
    info.loop_outputs.push_back(static_cast<int64_t>(m));
  }
  if (!any_reduced_output) return std::nullopt;
  info.row = true;
  for (int64_t d = info.operand.rank() - 1; d >= 0; --d) {
    if (info.operand.dimensions(d) > 1) {
      info.row = Contains(info.reduced, d);
      break;
    }
  }
  return info;
}

std::optional<MixedReductions> AnalyzeMixedReductions(const Instruction& inst, const std::vector<OutputLeaf>& outputs) {
  if (inst.opcode() != Opcode::kFusion || inst.fused_computation() == nullptr || outputs.size() < 2) return std::nullopt;
  std::vector<const Instruction*> heroes;
  for (const auto& i : inst.fused_computation()->instructions()) {
    if (i->opcode() == Opcode::kReduce) heroes.push_back(i.get());
  }
  if (heroes.empty()) return std::nullopt;
  MixedReductions mixed;
  std::vector<std::vector<int64_t>> members(heroes.size());
  for (size_t m = 0; m < outputs.size(); ++m) {
    std::vector<size_t> deps;
    for (size_t h = 0; h < heroes.size(); ++h) {
      std::unordered_set<const Instruction*> seen;
      if (DependsOn(outputs[m].inst, heroes[h], seen)) deps.push_back(h);
    }
    if (deps.empty()) {
      mixed.loop_outputs.push_back(static_cast<int64_t>(m));
    } else if (deps.size() == 1) {
      members[deps[0]].push_back(static_cast<int64_t>(m));
    } else {
      return std::nullopt;
    }
  }
  for (size_t h = 0; h < heroes.size(); ++h) {
    if (members[h].empty()) continue;
    // The reduction alone, as AnalyzeReduction sees a kernel of just its outputs.
    std::vector<OutputLeaf> mine;
    for (int64_t m : members[h]) mine.push_back(outputs[static_cast<size_t>(m)]);
    const Instruction* hero = heroes[h];
    if (hero->operand_count() < 2 || hero->operand_count() % 2 != 0 || hero->to_apply() == nullptr) return std::nullopt;
    ReductionInfo info;
    info.heroes = {hero};
    info.operand = hero->operand(0)->shape();
    info.reduced = hero->dimensions();
    std::sort(info.reduced.begin(), info.reduced.end());
    for (int64_t d = 0; d < info.operand.rank(); ++d) {
      if (!Contains(info.reduced, d)) {
        info.kept.push_back(d);
        info.outputs *= info.operand.dimensions(d);
      } else {
        info.length *= info.operand.dimensions(d);
      }
    }
    // Its result or a reshape of it, read at its own position (as in AnalyzeReduction).
    for (const OutputLeaf& leaf : mine) {
      if (!leaf.shape.IsArray() || leaf.shape.ElementCount() != info.outputs ||
          !ReadsHeroesElementwise(leaf.inst, info.heroes)) {
        return std::nullopt;
      }
    }
    info.row = true;
    for (int64_t d = info.operand.rank() - 1; d >= 0; --d) {
      if (info.operand.dimensions(d) > 1) {
        info.row = Contains(info.reduced, d);
        break;
      }
    }
    info.members = members[h];
    info.launch_suffix = "_r" + std::to_string(mixed.reductions.size());
    mixed.reductions.push_back(std::move(info));
  }
  // One reduction with outputs of other shapes beside it (a loss next to parameter
  // updates: horizontal fusion's groups): its launch and the loops' merge into one.
  if (mixed.reductions.empty() || (mixed.reductions.size() == 1 && mixed.loop_outputs.empty())) return std::nullopt;
  return mixed;
}

// The dot at the heart of a kernel whose other instructions are all elementwise
// consumers of it of its shape (an output fusion's epilogue), or null.
const Instruction* TileableDot(const Instruction& inst) {
  const Instruction* dot = nullptr;
  if (inst.opcode() == Opcode::kDot) {
    dot = &inst;
  } else if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() != Opcode::kDot) continue;
      if (dot != nullptr) return nullptr;
      dot = i.get();
    }
    if (dot == nullptr || !inst.shape().IsArray()) return nullptr;
    for (const auto& i : inst.fused_computation()->instructions()) {
      std::unordered_set<const Instruction*> seen;
      if (i.get() == dot || !DependsOn(i.get(), dot, seen)) continue;
      if (!IsElementwise(i->opcode()) || !i->shape().IsArray() ||
          i->shape().dimensions() != dot->shape().dimensions()) {
        return nullptr;
      }
    }
  }
  if (dot == nullptr || !dot->attrs().dot_dimension_numbers) return nullptr;
  const PrimitiveType t = dot->shape().element_type();
  switch (t) {
    case PrimitiveType::kF16: case PrimitiveType::kBF16: case PrimitiveType::kF32: case PrimitiveType::kF64:
    case PrimitiveType::kS32: case PrimitiveType::kS64: case PrimitiveType::kU32: case PrimitiveType::kU64:
      return dot;
    default:
      return nullptr;
  }
}

// A kernel whose root is a transpose that moves the minor dimension (needs tiles through
// shared memory for coalesced reads and writes), or null.
const Instruction* TileableTranspose(const Instruction& inst, const std::vector<OutputLeaf>& outputs) {
  if (outputs.size() != 1) return nullptr;
  const Instruction* root = inst.opcode() == Opcode::kFusion ? inst.fused_computation()->root() : &inst;
  if (root->opcode() != Opcode::kTranspose || !root->shape().IsArray() || root->shape().rank() < 2) return nullptr;
  const std::vector<int64_t>& perm = root->dimensions();
  const int64_t rank = root->shape().rank();
  if (static_cast<int64_t>(perm.size()) != rank || perm[rank - 1] == rank - 1) return nullptr;
  const Shape& in = root->operand(0)->shape();
  if (in.dimensions(rank - 1) < 2 || in.dimensions(perm[rank - 1]) < 2) return nullptr;
  return root;
}

void GpuKernelEmitter::EmitEmulatorWrappers() {
  std::vector<llvm::Function*> entries;
  for (llvm::Function& f : module_) {
    if (!f.isDeclaration() && f.hasFnAttribute("fusebox-gpu-entry")) entries.push_back(&f);
  }
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  for (llvm::Function* f : entries) {
    llvm::Function* w = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr}, false),
                                               llvm::GlobalValue::ExternalLinkage, f->getName() + "_emu", module_);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", w));
    std::vector<llvm::Value*> args;
    for (unsigned i = 0; i < f->arg_size(); ++i) {
      llvm::Value* slot = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, w->getArg(0), i));
      llvm::Type* t = f->getArg(i)->getType();
      args.push_back(t->isPointerTy() ? slot : b.CreateLoad(t, slot));
    }
    b.CreateCall(f, args);
    b.CreateRetVoid();
  }
}

void GpuKernelEmitter::OfferShapes(const std::string& label, std::vector<LaunchShape> others) {
  if (!shape_.suffix.empty()) return;  // emitting a variant
  ++shaped_;
  shaped_label_ = label;
  other_shapes_ = std::move(others);
}

Status GpuKernelEmitter::Emit(const Instruction& inst, GpuKernel* kernel) {
  const int64_t shaped = shaped_;
  RETURN_IF_ERROR(EmitKernel(inst, kernel));
  // One launch that could take other shapes (a row kernel, an unsplit row or column
  // reduction, a skinny dot, a tensor-core dot's tiles; not a part of a merged launch): the
  // same kernel in each, for the runtime to time.
  // Row shapes differ in how much of the row a thread holds and how the group folds it:
  // below min_row_shape_bytes of traffic the launch's own cost hides that, and three more
  // entries would only lengthen the compile. Column and skinny-dot shapes (one to three
  // entries) and tensor-core tiles are offered at any size: small ones are latency-bound,
  // which is what their shapes change (the MLP's 10 x 256 bias gradient took 13.1 us in
  // 256-thread blocks).
  const bool rows = kernel->kind_name == "reduction(row kernel)" || kernel->kind_name == "reduction(row)";
  const bool kinds = (rows && kernel->bytes_read + kernel->bytes_written >= options_.min_row_shape_bytes) ||
                     kernel->kind_name == "reduction(column)" || kernel->kind_name == "dot(skinny)" ||
                     kernel->kind_name == "dot(tensor core)";
  // The shape it took, named whether or not others are compiled (the ptx stage's header).
  if (shaped_ == shaped + 1 && kernel->launches.size() == 1) kernel->label = shaped_label_;
  if (!options_.kernel_variants || !kinds || shaped_ != shaped + 1 || kernel->launches.size() != 1) {
    return Status::Ok();
  }
  const std::vector<LaunchShape> others = other_shapes_;
  for (const LaunchShape& other : others) {
    GpuKernel variant;
    variant.name = kernel->name;  // the variant's entries: <name>_kernel<suffix>
    shape_ = other;
    Status st = EmitKernel(inst, &variant);
    shape_ = LaunchShape();
    RETURN_IF_ERROR(st);
    if (variant.launches.size() != 1 || variant.kind_name != kernel->kind_name) {
      return Internal(inst.name() + ": its " + other.label + " variant is another kind of kernel (" +
                      variant.kind_name + ")");
    }
    // One scratch serves every shape (a tensor-core dot's parts of k write their partials
    // there): the largest any of them needs.
    kernel->scratch_bytes = std::max(kernel->scratch_bytes, variant.scratch_bytes);
    kernel->variants.push_back({other.label, std::move(variant.launches)});
  }
  return Status::Ok();
}

Status GpuKernelEmitter::EmitKernel(const Instruction& inst, GpuKernel* kernel) {
  kernel->hlo = &inst;
  if (shape_.suffix.empty()) kernel->name = EntryBaseName(inst.name());
  if (OrgqrRunsAsKernel(inst)) return EmitOrgqr(inst, kernel);
  ASSIGN_OR_RETURN(KernelFacts facts, DescribeKernel(context_, inst, "GPU backend"));
  kernel->kind_name = facts.kind_name;
  kernel->bytes_read = facts.bytes_read;
  kernel->bytes_written = facts.bytes_written;
  kernel->flops = facts.flops;
  if (inst.opcode() == Opcode::kFft) {
    return Internal(inst.name() + ": a Fourier transform runs through cuFFT, not as a kernel (IsGpuKernel)");
  }
  if (IsCpuLapackCall(inst)) {
    // The GPU pipelines expand jax's LAPACK calls into loops (library-call-lowering); one
    // that reaches the backend came through the CPU pipeline, which keeps them for LAPACK.
    return Unimplemented(inst.name() + ": the GPU backend runs " + inst.attrs().custom_call_target +
                         " as loops; this one was kept for the CPU backend's libraries (a module optimized for the "
                         "CPU)");
  }
  if (inst.opcode() == Opcode::kFusion) {
    const Computation* fused = inst.fused_computation();
    if (fused == nullptr) return InvalidArgument(inst.name() + ": fusion without a fused computation");
    for (const auto& i : fused->instructions()) {
      if (i->opcode() == Opcode::kFft) return Unimplemented(inst.name() + ": fused " + i->name() + ": fft");
      if (std::string why = UnsupportedReason(*i); !why.empty()) {
        return Unimplemented(inst.name() + ": fused " + i->name() + ": " + why);
      }
      if (i->opcode() == Opcode::kSort) {
        return Unimplemented(inst.name() + ": sort inside a fusion is not supported by the GPU backend");
      }
      if (IsScatterLike(i->opcode()) && i.get() != fused->root()) {
        return Unimplemented(inst.name() + ": fused " + i->name() + " (" + std::string(OpcodeName(i->opcode())) +
                             ") is supported only as the root of a fusion");
      }
    }
    if (IsScatterLike(fused->root()->opcode())) return EmitScatterLike(inst, *fused->root(), kernel);
  }
  if (IsScatterLike(inst.opcode())) return EmitScatterLike(inst, inst, kernel);
  if (inst.opcode() == Opcode::kSort) return EmitSort(inst, kernel);
  if (inst.opcode() == Opcode::kTopK) return EmitTopK(inst, kernel);
  if (inst.opcode() == Opcode::kRngBitGenerator) return EmitRngBitGenerator(inst, kernel);
  if (const Instruction* dus = InPlaceUpdate(inst); dus != nullptr) return EmitInPlaceUpdate(inst, *dus, kernel);

  std::vector<OutputLeaf> outputs = KernelOutputs(inst);
  for (const OutputLeaf& leaf : outputs) {
    if (!leaf.shape.IsArray()) return Unimplemented(inst.name() + ": nested tuple results are not supported");
  }
  if (std::optional<passes::RowPlan> rows = passes::PlanRowKernel(inst); rows) {
    kernel->kind_name = "reduction(row kernel)";
    return EmitRowKernel(inst, *rows, outputs, kernel);
  }
  if (std::optional<ReductionInfo> reduction = AnalyzeReduction(inst, outputs); reduction) {
    kernel->kind_name = reduction->row ? (reduction->kept.empty() ? "reduction(full)" : "reduction(row)")
                                       : "reduction(column)";
    return EmitReduction(inst, *reduction, outputs, kernel);
  }
  // A row kernel that also writes values of one number per row (row_fusion.h: the GPU
  // pipeline's merges of a row reduction read by others); after the plain reduction, so
  // that a reduction with a side output keeps its own kernel.
  if (std::optional<passes::RowPlan> rows = passes::PlanRowKernel(inst, /*row_outputs=*/true); rows) {
    kernel->kind_name = "reduction(row kernel)";
    return EmitRowKernel(inst, *rows, outputs, kernel);
  }
  if (std::optional<MixedReductions> mixed = AnalyzeMixedReductions(inst, outputs); mixed) {
    kernel->kind_name = "reduction(mixed)";
    return EmitMixedReductions(inst, *mixed, outputs, kernel);
  }
  if (const Instruction* dot = TileableDot(inst); dot != nullptr) {
    if (std::optional<SkinnyDot> skinny = PlanSkinnyDot(*dot, shape_.skinny_rows); skinny) {
      kernel->kind_name = "dot(skinny)";
      return EmitSkinnyDot(inst, *dot, *skinny, kernel);
    }
    if (std::optional<MmaDot> mma = PlanMmaDot(*dot, options_.arch, options_.allow_tf32,
                                                      options_.mma_tile >= 0 ? options_.mma_tile : shape_.mma_tile,
                                                      options_.mma_splits >= 1 ? options_.mma_splits : shape_.mma_splits);
        mma) {
      kernel->kind_name = "dot(tensor core)";
      return EmitMmaDot(inst, *dot, *mma, kernel);
    }
    kernel->kind_name = "dot(tiled)";
    return EmitTiledDot(inst, *dot, kernel);
  }
  if (const Instruction* transpose = TileableTranspose(inst, outputs); transpose != nullptr) {
    kernel->kind_name = "transpose(tiled)";
    return EmitTiledTranspose(inst, *transpose, kernel);
  }
  return EmitLoops(inst, outputs, kernel);
}

std::string GpuKernelEmitter::EntryBaseName(const std::string& hlo_name) {
  std::string base;
  for (char c : hlo_name) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "k_" + base;
  std::string name = base;
  for (int n = 2; !used_names_.insert(name).second; ++n) name = base + "_" + std::to_string(n);
  return name;
}

GpuKernelEmitter::Entry GpuKernelEmitter::BeginEntry(const Instruction& inst, const std::string& name, int64_t buffer_count, int64_t scalars,
                                                     int64_t block_threads) {
  Entry e;
  e.buffer_count = buffer_count;
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  std::vector<llvm::Type*> params(static_cast<size_t>(buffer_count), ptr);
  for (int64_t i = 0; i < scalars; ++i) params.push_back(llvm::Type::getInt64Ty(context_));
  e.fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), params, false),
                                llvm::GlobalValue::ExternalLinkage, name, module_);
  e.fn->addFnAttr(llvm::Attribute::NoUnwind);
  e.fn->addFnAttr("fusebox-gpu-entry");
  for (int64_t i = 0; i < buffer_count; ++i) {
    e.fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    e.fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithAlignment(context_, llvm::Align(16)));
  }
  if (!emulate_) {
    e.fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
    llvm::NamedMDNode* annotations = module_.getOrInsertNamedMetadata("nvvm.annotations");
    auto i32 = [&](int64_t v) {
      return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context_), v));
    };
    annotations->addOperand(llvm::MDNode::get(
        context_, {llvm::ConstantAsMetadata::get(e.fn), llvm::MDString::get(context_, "kernel"), i32(1)}));
    annotations->addOperand(llvm::MDNode::get(
        context_, {llvm::ConstantAsMetadata::get(e.fn), llvm::MDString::get(context_, "maxntidx"), i32(block_threads)}));
  }
  e.b = std::make_unique<llvm::IRBuilder<>>(llvm::BasicBlock::Create(context_, "entry", e.fn));
  e.emitter = std::make_unique<ElementalEmitter>(*e.b, module_);
  if (inst.opcode() == Opcode::kFusion) {
    const Computation* fused = inst.fused_computation();
    for (int64_t p = 0; p < fused->parameter_count(); ++p) {
      e.emitter->BindArray(fused->parameter(p), IrArray(e.buffer(p), inst.operand(p)->shape()));
    }
  } else {
    for (int64_t p = 0; p < inst.operand_count(); ++p) {
      e.emitter->BindArray(inst.operand(p), IrArray(e.buffer(p), inst.operand(p)->shape()));
    }
  }
  return e;
}

Status GpuKernelEmitter::EndEntry(Entry& e) {
  e.b->CreateRetVoid();
  return e.emitter->status();
}

llvm::Value* GpuKernelEmitter::Special(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, int which) {
  llvm::Value* v = nullptr;
  if (emulate_) {
    llvm::FunctionCallee f = module_.getOrInsertFunction(
        "fusebox_gpu_emu_sreg", llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty()}, false));
    v = b.CreateCall(f, {b.getInt32(static_cast<uint32_t>(which))});
  } else {
    v = b.CreateCall(llvm::Intrinsic::getDeclaration(&module_, id));
  }
  return b.CreateZExt(v, b.getInt64Ty());
}

void GpuKernelEmitter::Barrier(llvm::IRBuilder<>& b) {
  if (emulate_) {
    b.CreateCall(module_.getOrInsertFunction("fusebox_gpu_emu_barrier", llvm::FunctionType::get(b.getVoidTy(), false)));
    return;
  }
  b.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_barrier0));
}

llvm::Value* GpuKernelEmitter::GlobalThread(llvm::IRBuilder<>& b, int64_t block) {
  return b.CreateAdd(b.CreateMul(BlockX(b), b.getInt64(block)), ThreadX(b));
}

void GpuKernelEmitter::If(Entry& e, llvm::Value* condition, const std::string& name, const std::function<void()>& body) {
  llvm::IRBuilder<>& b = *e.b;
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, name, e.fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, name + ".done", e.fn);
  b.CreateCondBr(condition, then_block, done);
  b.SetInsertPoint(then_block);
  e.emitter->PushScope();
  body();
  e.emitter->PopScope();
  b.CreateBr(done);
  b.SetInsertPoint(done);
}

IrIndex GpuKernelEmitter::Delinearize(llvm::IRBuilder<>& b, llvm::Value* linear, const std::vector<int64_t>& dims) {
  int64_t total = 1;
  for (int64_t d : dims) total *= std::max<int64_t>(d, 1);
  const bool narrow = total < (int64_t{1} << 31);
  llvm::Type* t = narrow ? b.getInt32Ty() : b.getInt64Ty();
  llvm::Value* rest = narrow ? b.CreateTrunc(linear, t) : linear;
  IrIndex index(dims.size(), b.getInt64(0));
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    const int64_t size = dims[static_cast<size_t>(d)];
    if (size <= 1) continue;
    llvm::Value* size_value = llvm::ConstantInt::get(t, static_cast<uint64_t>(size));
    llvm::Value* component = d == 0 ? rest : b.CreateURem(rest, size_value);
    index[static_cast<size_t>(d)] = narrow ? b.CreateZExt(component, b.getInt64Ty()) : component;
    if (d > 0) rest = b.CreateUDiv(rest, size_value);
  }
  return index;
}

llvm::Value* GpuKernelEmitter::StridedCount(llvm::IRBuilder<>& b, llvm::Value* active, llvm::Value* begin, llvm::Value* end,
                                                   int64_t stride) {
  llvm::Value* span = b.CreateAdd(b.CreateSub(end, begin), b.getInt64(stride - 1));
  return b.CreateSelect(b.CreateAnd(active, b.CreateICmpULT(begin, end)), b.CreateUDiv(span, b.getInt64(stride)),
                        b.getInt64(0));
}

void GpuKernelEmitter::Loop(Entry& e, llvm::Value* count, const std::string& name, const std::function<void(llvm::Value*)>& body) {
  e.emitter->EmitLoop(e.b->getInt64(0), count, name, body);
}

void GpuKernelEmitter::StoreOutputs(Entry& e, const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                                    const std::vector<int64_t>& members, const IrIndex& space_index,
                                    const std::vector<int64_t>* index_dims) {
  llvm::IRBuilder<>& b = *e.b;
  for (int64_t m : members) {
    const OutputLeaf& leaf = outputs[static_cast<size_t>(m)];
    IrIndex index = space_index;
    if (index_dims != nullptr && leaf.shape.dimensions() != *index_dims) {
      if (SameButUnitDimensions(leaf.shape.dimensions(), *index_dims)) {
        // The same element in the output's shape: its dimensions of size 1 at 0, the
        // others in order from the index's dimensions that are not of size 1.
        index.assign(static_cast<size_t>(leaf.shape.rank()), b.getInt64(0));
        size_t from = 0;
        for (int64_t d = 0; d < leaf.shape.rank(); ++d) {
          if (leaf.shape.dimensions(d) == 1) continue;
          while (from < index_dims->size() && (*index_dims)[from] == 1) ++from;
          if (from < space_index.size()) index[static_cast<size_t>(d)] = space_index[from++];
        }
      } else {
        // A reshape of the space (a bitcast): the element at the same row-major position.
        llvm::Value* linear = b.getInt64(0);
        for (size_t d = 0; d < index_dims->size() && d < space_index.size(); ++d) {
          linear = b.CreateAdd(b.CreateMul(linear, b.getInt64((*index_dims)[d])), space_index[d]);
        }
        index = Delinearize(b, linear, leaf.shape.dimensions());
      }
    }
    llvm::Value* value = nullptr;
    if (leaf.value < 0) {
      value = e.emitter->Emit(leaf.inst, index);
    } else {
      std::vector<llvm::Value*> all = e.emitter->EmitAll(leaf.inst, index);
      if (leaf.value >= static_cast<int64_t>(all.size())) continue;
      value = all[static_cast<size_t>(leaf.value)];
    }
    IrArray out(e.buffer(inst.operand_count() + m), leaf.shape);
    b.CreateStore(ToStorage(b, leaf.shape.element_type(), value), out.Address(b, index));
  }
}

GpuLaunch GpuKernelEmitter::Launch1D(const std::string& function, int64_t threads, int64_t block) {
  GpuLaunch launch;
  launch.function = function;
  const int64_t b = std::min(block, std::max<int64_t>(kWarp, CeilDiv(threads, kWarp) * kWarp));
  launch.block = {b, 1, 1};
  launch.grid = {std::max<int64_t>(1, CeilDiv(threads, b)), 1, 1};
  return launch;
}

Status GpuKernelEmitter::EmitSpaceLoop(const Instruction& inst, GpuKernel* kernel, const std::string& name, const Shape& space,
                                       int64_t buffer_count, int64_t skip_if_aliased,
                                       const std::function<void(Entry&, const IrIndex&)>& body, bool full_block,
                                       bool one_per_thread) {
  const int64_t n = space.ElementCount();
  if (n == 0) return Status::Ok();
  const int64_t rank = space.rank();
  int64_t per_thread = one_per_thread ? 1 : std::max(1, options_.elements_per_thread);
  if (rank == 0 || space.dimensions(rank - 1) % per_thread != 0 || n < per_thread * kWarp) per_thread = 1;
  std::vector<int64_t> dims(space.dimensions().begin(), space.dimensions().end());
  if (rank > 0) dims.back() /= per_thread;
  const int64_t threads = n / per_thread;
  GpuLaunch launch = Launch1D(name, threads);
  if (full_block) {
    launch.block = {kBlock, 1, 1};
    launch.grid = {std::max<int64_t>(1, CeilDiv(threads, kBlock)), 1, 1};
  }
  if (launch.grid[0] > kMaxGridX) return Unimplemented(inst.name() + ": too many elements for one launch");
  launch.skip_if_aliased = skip_if_aliased;
  Entry e = BeginEntry(inst, name, buffer_count, 0, launch.block[0]);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* t = GlobalThread(b, launch.block[0]);
  If(e, b.CreateICmpULT(t, b.getInt64(threads)), "in_range", [&] {
    IrIndex base = Delinearize(b, t, dims);
    for (int64_t u = 0; u < per_thread; ++u) {
      IrIndex index = base;
      if (rank > 0 && per_thread > 1) {
        index.back() = b.CreateAdd(b.CreateMul(base.back(), b.getInt64(per_thread)), b.getInt64(u));
      }
      body(e, index);
    }
  });
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

Status GpuKernelEmitter::EmitLoops(const Instruction& inst, const std::vector<OutputLeaf>& outputs, GpuKernel* kernel) {
  // One launch per distinct output shape (a multi-output fusion's outputs of one shape
  // share a thread per element).
  std::vector<std::vector<int64_t>> groups;
  for (int64_t i = 0; i < static_cast<int64_t>(outputs.size()); ++i) {
    bool placed = false;
    for (auto& g : groups) {
      if (outputs[static_cast<size_t>(g[0])].shape.dimensions() == outputs[static_cast<size_t>(i)].shape.dimensions()) {
        g.push_back(i);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({i});
  }
  const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size());
  const size_t first = kernel->launches.size();
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string name = kernel->name + (groups.size() == 1 ? std::string("_kernel") : "_kernel" + std::to_string(g));
    const Shape& space = outputs[static_cast<size_t>(groups[g][0])].shape;
    RETURN_IF_ERROR(EmitSpaceLoop(
        inst, kernel, name, space, buffer_count, -1,
        [&](Entry& e, const IrIndex& index) { StoreOutputs(e, inst, outputs, groups[g], index); },
        /*full_block=*/groups.size() > 1));
  }
  // Outputs of different shapes: one launch, a range of blocks per shape.
  std::vector<size_t> parts;
  for (size_t l = first; l < kernel->launches.size(); ++l) parts.push_back(l);
  MergeLaunches(inst, kernel, parts, buffer_count);
  return Status::Ok();
}

void GpuKernelEmitter::MergeLaunches(const Instruction& inst, GpuKernel* kernel, const std::vector<size_t>& parts,
                                     int64_t buffer_count) {
  std::vector<size_t> merged;
  int64_t blocks = 0;
  for (size_t l : parts) {
    const GpuLaunch& launch = kernel->launches[l];
    const GpuLaunch& lead = kernel->launches[merged.empty() ? l : merged[0]];
    llvm::Function* f = module_.getFunction(launch.function);
    // The kernel's buffers, and scratch after them for a part that has it (a split
    // reduction folded by its last block).
    if (f == nullptr || f->isDeclaration() || static_cast<int64_t>(f->arg_size()) < buffer_count ||
        static_cast<int64_t>(f->arg_size()) > buffer_count + (kernel->scratch_bytes > 0 ? 1 : 0)) {
      continue;
    }
    if (launch.grid[1] != 1 || launch.grid[2] != 1 || launch.block != lead.block || launch.shared_bytes != 0 ||
        !launch.scalar_args.empty() || launch.skip_if_aliased >= 0 || blocks + launch.grid[0] > kMaxGridX) {
      continue;
    }
    merged.push_back(l);
    blocks += launch.grid[0];
  }
  if (merged.size() < 2) return;
  std::string name = kernel->name + "_kernel";
  for (int n = 2; module_.getFunction(name) != nullptr; ++n) name = kernel->name + "_kernel_" + std::to_string(n);
  const std::array<int64_t, 3> block = kernel->launches[merged[0]].block;
  // The parts' entries become device functions reading their block index from `base`.
  std::vector<std::pair<llvm::Function*, int64_t>> ranges;  // function, end of its blocks
  std::unordered_set<const llvm::Function*> demoted;
  int64_t base = 0;
  for (size_t l : merged) {
    llvm::Function* f = module_.getFunction(kernel->launches[l].function);
    std::vector<llvm::CallInst*> reads;
    for (llvm::BasicBlock& bb : *f) {
      for (llvm::Instruction& i : bb) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(&i);
        const llvm::Function* callee = call != nullptr ? call->getCalledFunction() : nullptr;
        if (callee == nullptr) continue;
        const bool block_x = emulate_ ? callee->getName() == "fusebox_gpu_emu_sreg" &&
                                            llvm::isa<llvm::ConstantInt>(call->getArgOperand(0)) &&
                                            llvm::cast<llvm::ConstantInt>(call->getArgOperand(0))->getZExtValue() == 1
                                      : callee->getIntrinsicID() == llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x;
        if (block_x) reads.push_back(call);
      }
    }
    for (llvm::CallInst* call : reads) {
      llvm::IRBuilder<> b(call->getNextNode());
      llvm::Value* local = b.CreateSub(call, llvm::ConstantInt::get(call->getType(), static_cast<uint64_t>(base)), "",
                                       /*HasNUW=*/true, /*HasNSW=*/true);
      call->replaceUsesWithIf(local, [&](llvm::Use& use) { return use.getUser() != local; });
    }
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->setCallingConv(llvm::CallingConv::C);
    f->removeFnAttr("fusebox-gpu-entry");
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    demoted.insert(f);
    base += kernel->launches[l].grid[0];
    ranges.push_back({f, base});
  }
  // Device functions are not kernels: their nvvm.annotations go.
  if (llvm::NamedMDNode* annotations = module_.getNamedMetadata("nvvm.annotations"); annotations != nullptr) {
    std::vector<llvm::MDNode*> kept;
    for (llvm::MDNode* node : annotations->operands()) {
      auto* value = node->getNumOperands() > 0 ? llvm::dyn_cast_or_null<llvm::ConstantAsMetadata>(node->getOperand(0)) : nullptr;
      if (value == nullptr || demoted.count(llvm::dyn_cast<llvm::Function>(value->getValue())) == 0) kept.push_back(node);
    }
    annotations->clearOperands();
    for (llvm::MDNode* node : kept) annotations->addOperand(node);
  }
  int64_t arguments = buffer_count;
  for (const auto& [f, end] : ranges) arguments = std::max(arguments, static_cast<int64_t>(f->arg_size()));
  Entry e = BeginEntry(inst, name, arguments, 0, block[0] * block[1] * block[2]);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* bid = BlockX(b);
  std::vector<llvm::Value*> args;
  for (int64_t i = 0; i < arguments; ++i) args.push_back(e.buffer(i));
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "done", e.fn);
  for (size_t r = 0; r < ranges.size(); ++r) {
    llvm::BasicBlock* run = llvm::BasicBlock::Create(context_, "part" + std::to_string(r), e.fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(context_, "after_part" + std::to_string(r), e.fn);
    b.CreateCondBr(b.CreateICmpULT(bid, b.getInt64(ranges[r].second)), run, next);
    b.SetInsertPoint(run);
    b.CreateCall(ranges[r].first, llvm::ArrayRef<llvm::Value*>(args).take_front(ranges[r].first->arg_size()));
    b.CreateBr(done);
    b.SetInsertPoint(next);
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
  (void)EndEntry(e);
  GpuLaunch launch;
  launch.function = name;
  launch.grid = {blocks, 1, 1};
  launch.block = block;
  const size_t at = merged[0];
  for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
    kernel->launches.erase(kernel->launches.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  kernel->launches.insert(kernel->launches.begin() + static_cast<std::ptrdiff_t>(at), launch);
}

// A mixed kernel: its reductions (one launch each, or two when split) and a loop per
// shape of the outputs that need no reduction, merged into one launch where they can be.
Status GpuKernelEmitter::EmitMixedReductions(const Instruction& inst, const MixedReductions& mixed,
                                             const std::vector<OutputLeaf>& outputs, GpuKernel* kernel) {
  // Every reduction that is one launch (not split into partials and a fold) and every
  // loop become one launch below.
  std::vector<size_t> parts;
  for (const ReductionInfo& info : mixed.reductions) {
    const size_t before = kernel->launches.size();
    RETURN_IF_ERROR(EmitReduction(inst, info, outputs, kernel));
    if (kernel->launches.size() == before + 1) parts.push_back(before);
  }
  std::vector<std::vector<int64_t>> groups;
  for (int64_t m : mixed.loop_outputs) {
    bool placed = false;
    for (auto& g : groups) {
      if (outputs[static_cast<size_t>(g[0])].shape.dimensions() == outputs[static_cast<size_t>(m)].shape.dimensions()) {
        g.push_back(m);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({m});
  }
  const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const Shape& space = outputs[static_cast<size_t>(groups[g][0])].shape;
    const size_t before = kernel->launches.size();
    RETURN_IF_ERROR(EmitSpaceLoop(inst, kernel, kernel->name + "_loop" + std::to_string(g), space, buffer_count, -1,
                                  [&](Entry& e, const IrIndex& index) { StoreOutputs(e, inst, outputs, groups[g], index); },
                                  /*full_block=*/true));
    if (kernel->launches.size() == before + 1) parts.push_back(before);
  }
  MergeLaunches(inst, kernel, parts, buffer_count);
  return Status::Ok();
}

Status GpuKernelEmitter::EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, GpuKernel* kernel) {
  const int64_t base_operand = &dus == &inst ? 0 : dus.operand(0)->parameter_number();
  kernel->in_place_operand = base_operand;
  kernel->kind_name = "dynamic-update-slice(in place)";
  const int64_t operand_count = inst.operand_count();
  const int64_t buffer_count = operand_count + 1;
  const Shape& shape = dus.shape();
  const Shape& update = dus.operand(1)->shape();
  // The copy of operand 0, skipped when the result took over its buffer.
  RETURN_IF_ERROR(EmitSpaceLoop(inst, kernel, kernel->name + "_copy", shape, buffer_count, base_operand,
                                [&](Entry& e, const IrIndex& index) {
                                  llvm::Value* v = e.emitter->Emit(dus.operand(0), index);
                                  IrArray out(e.buffer(operand_count), shape);
                                  e.b->CreateStore(ToStorage(*e.b, shape.element_type(), v), out.Address(*e.b, index));
                                }));
  // The update window, at clamped start indices.
  return EmitSpaceLoop(inst, kernel, kernel->name + "_update", update, buffer_count, -1,
                       [&](Entry& e, const IrIndex& u) {
                         llvm::IRBuilder<>& b = *e.b;
                         IrIndex at(static_cast<size_t>(shape.rank()));
                         for (int64_t d = 0; d < shape.rank(); ++d) {
                           const Instruction* start = dus.operand(2 + d);
                           llvm::Value* v = e.emitter->Emit(start, {});
                           v = IsUnsignedInt(start->shape().element_type()) ? b.CreateZExt(v, b.getInt64Ty())
                                                                            : b.CreateSExt(v, b.getInt64Ty());
                           v = b.CreateSelect(b.CreateICmpSLT(v, b.getInt64(0)), b.getInt64(0), v);
                           const int64_t max_start = shape.dimensions(d) - update.dimensions(d);
                           v = b.CreateSelect(b.CreateICmpSGT(v, b.getInt64(max_start)), b.getInt64(max_start), v);
                           at[static_cast<size_t>(d)] = b.CreateAdd(v, u[static_cast<size_t>(d)]);
                         }
                         llvm::Value* value = e.emitter->Emit(dus.operand(1), u);
                         IrArray out(e.buffer(operand_count), shape);
                         b.CreateStore(ToStorage(b, shape.element_type(), value), out.Address(b, at));
                       });
}

Status GpuKernelEmitter::EmitScatterLike(const Instruction& inst, const Instruction& root, GpuKernel* kernel) {
  const bool is_scatter = root.opcode() == Opcode::kScatter;
  ASSIGN_OR_RETURN(const std::vector<Shape> outs, ScatterLikeResults(inst, root));
  const int64_t n = static_cast<int64_t>(outs.size());
  const int64_t operand_count = inst.operand_count();
  const int64_t buffer_count = operand_count + n;
  if (!is_scatter && SelectAndScatterWindowsTile(root)) {
    // Windows that tile the operand (a max pool's gradient): one thread per window selects
    // once and writes its whole window (each result element written once, no atomics).
    kernel->kind_name = "select-and-scatter(windows)";
    return EmitSpaceLoop(inst, kernel, kernel->name, root.operand(1)->shape(), buffer_count, -1,
                         [&](Entry& e, const IrIndex& s) {
                           EmitSelectAndScatterWindow(root, *e.emitter, *e.b, s, IrArray(e.buffer(operand_count), outs[0]));
                         },
                         /*full_block=*/false, /*one_per_thread=*/true);
  }
  if (!is_scatter) {
    // select-and-scatter: one thread per result element gathers from the windows that
    // cover it (no serial updates, no atomics).
    kernel->kind_name = "select-and-scatter(gather)";
    return EmitSpaceLoop(inst, kernel, kernel->name, outs[0], buffer_count, -1, [&](Entry& e, const IrIndex& index) {
      llvm::Value* v = EmitSelectAndScatterGather(root, *e.emitter, *e.b, index);
      IrArray out(e.buffer(operand_count), outs[0]);
      e.b->CreateStore(ToStorage(*e.b, outs[0].element_type(), v), out.Address(*e.b, index));
    });
  }
  kernel->kind_name = std::string(OpcodeName(root.opcode())) + "(serial updates)";
  RETURN_IF_ERROR(EmitSpaceLoop(inst, kernel, kernel->name + "_init", outs[0], buffer_count, -1,
                                [&](Entry& e, const IrIndex& index) {
                                  for (int64_t i = 0; i < n; ++i) {
                                    llvm::Value* v = e.emitter->Emit(root.operand(i), index);
                                    IrArray out(e.buffer(operand_count + i), outs[static_cast<size_t>(i)]);
                                    e.b->CreateStore(ToStorage(*e.b, outs[static_cast<size_t>(i)].element_type(), v),
                                                     out.Address(*e.b, index));
                                  }
                                }));
  GpuLaunch apply;
  apply.function = kernel->name + "_apply";
  Entry e = BeginEntry(inst, apply.function, buffer_count, 0, 1);
  std::vector<IrArray> results;
  for (int64_t i = 0; i < n; ++i) results.emplace_back(e.buffer(operand_count + i), outs[static_cast<size_t>(i)]);
  EmitScatterUpdates(root, *e.emitter, *e.b, results);
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(apply);
  return Status::Ok();
}

Status GpuKernelEmitter::EmitSort(const Instruction& sort, GpuKernel* kernel) {
  const Computation* comparator = sort.to_apply();
  if (comparator == nullptr || sort.dimensions().size() != 1) return InvalidArgument(sort.name() + ": malformed sort");
  const int64_t n_ops = sort.operand_count();
  const Shape& shape = sort.operand(0)->shape();
  const int64_t dim = sort.dimensions()[0];
  if (dim < 0 || dim >= shape.rank()) return InvalidArgument(sort.name() + ": sort dimension out of range");
  const int64_t length = shape.dimensions(dim);
  const int64_t total = shape.ElementCount();
  kernel->kind_name = "sort(bitonic)";
  if (total == 0) return Status::Ok();
  if (length >= (int64_t{1} << 30)) return Unimplemented(sort.name() + ": sort dimension too long");
  kernel->scratch_bytes = total * 4;  // s32 positions
  const int64_t buffer_count = n_ops + n_ops + 1;
  const int64_t scratch = buffer_count - 1;
  const Shape positions(PrimitiveType::kS32, shape.dimensions());
  RETURN_IF_ERROR(EmitSpaceLoop(sort, kernel, kernel->name + "_init", shape, buffer_count, -1,
                                [&](Entry& e, const IrIndex& index) {
                                  llvm::IRBuilder<>& b = *e.b;
                                  for (int64_t k = 0; k < n_ops; ++k) {
                                    const Shape& s = sort.operand(k)->shape();
                                    llvm::Value* v = e.emitter->Emit(sort.operand(k), index);
                                    IrArray out(e.buffer(n_ops + k), s);
                                    b.CreateStore(ToStorage(b, s.element_type(), v), out.Address(b, index));
                                  }
                                  IrArray pos(e.buffer(scratch), positions);
                                  b.CreateStore(b.CreateTrunc(index[static_cast<size_t>(dim)], b.getInt32Ty()),
                                                pos.Address(b, index));
                                }));
  if (length < 2) return Status::Ok();
  int64_t padded = 1;
  while (padded < length) padded *= 2;
  const int64_t rows = total / length;
  const int64_t threads = rows * (padded / 2);
  const std::string step = kernel->name + "_step";
  GpuLaunch base = Launch1D(step, threads);
  if (base.grid[0] > kMaxGridX) return Unimplemented(sort.name() + ": too many elements for one launch");
  Entry e = BeginEntry(sort, step, buffer_count, 2, base.block[0]);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Value* flip = e.scalar(0);
  llvm::Value* distance = e.scalar(1);
  llvm::Value* t = GlobalThread(b, base.block[0]);
  If(e, b.CreateICmpULT(t, b.getInt64(threads)), "in_range", [&] {
    llvm::Value* half = b.getInt64(padded / 2);
    llvm::Value* row = b.CreateUDiv(t, half);
    llvm::Value* i = b.CreateURem(t, half);
    llvm::Value* group = b.CreateUDiv(i, distance);
    llvm::Value* offset = b.CreateURem(i, distance);
    llvm::Value* start = b.CreateMul(group, b.CreateMul(distance, b.getInt64(2)));
    llvm::Value* lo = b.CreateAdd(start, offset);
    llvm::Value* hi_flip = b.CreateSub(b.CreateAdd(start, b.CreateMul(distance, b.getInt64(2))), b.CreateAdd(offset, b.getInt64(1)));
    llvm::Value* hi = b.CreateSelect(b.CreateICmpNE(flip, b.getInt64(0)), hi_flip, b.CreateAdd(lo, distance));
    std::vector<int64_t> row_dims;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (d != dim) row_dims.push_back(shape.dimensions(d));
    }
    IrIndex row_index = Delinearize(b, row, row_dims);
    auto full_index = [&](llvm::Value* p) {
      IrIndex index;
      size_t r = 0;
      for (int64_t d = 0; d < shape.rank(); ++d) index.push_back(d == dim ? p : row_index[r++]);
      return index;
    };
    If(e, b.CreateICmpULT(hi, b.getInt64(length)), "partner", [&] {
      IrIndex lo_index = full_index(lo), hi_index = full_index(hi);
      std::vector<llvm::Value*> lo_addr, hi_addr, lo_val, hi_val;
      for (int64_t k = 0; k < n_ops; ++k) {
        const Shape& s = sort.operand(k)->shape();
        IrArray out(e.buffer(n_ops + k), s);
        llvm::Type* storage = *StorageType(context_, s.element_type());
        lo_addr.push_back(out.Address(b, lo_index));
        hi_addr.push_back(out.Address(b, hi_index));
        lo_val.push_back(b.CreateLoad(storage, lo_addr.back()));
        hi_val.push_back(b.CreateLoad(storage, hi_addr.back()));
      }
      IrArray pos(e.buffer(scratch), positions);
      llvm::Value* lo_pos_addr = pos.Address(b, lo_index);
      llvm::Value* hi_pos_addr = pos.Address(b, hi_index);
      llvm::Value* lo_pos = b.CreateLoad(b.getInt32Ty(), lo_pos_addr);
      llvm::Value* hi_pos = b.CreateLoad(b.getInt32Ty(), hi_pos_addr);
      auto less = [&](const std::vector<llvm::Value*>& x, const std::vector<llvm::Value*>& y) {
        std::vector<llvm::Value*> args;
        for (int64_t k = 0; k < n_ops; ++k) {
          const PrimitiveType type = sort.operand(k)->shape().element_type();
          args.push_back(ToRegister(b, type, x[static_cast<size_t>(k)]));
          args.push_back(ToRegister(b, type, y[static_cast<size_t>(k)]));
        }
        std::vector<llvm::Value*> r = e.emitter->EmitScalarComputation(*comparator, args);
        return r.empty() ? b.getFalse() : r[0];
      };
      // hi goes first when it compares less, or on a tie when it came first.
      llvm::Value* hi_first = less(hi_val, lo_val);
      llvm::Value* tie = b.CreateAnd(b.CreateNot(hi_first), b.CreateNot(less(lo_val, hi_val)));
      llvm::Value* swap = b.CreateOr(hi_first, b.CreateAnd(tie, b.CreateICmpSLT(hi_pos, lo_pos)));
      If(e, swap, "swap", [&] {
        for (int64_t k = 0; k < n_ops; ++k) {
          b.CreateStore(hi_val[static_cast<size_t>(k)], lo_addr[static_cast<size_t>(k)]);
          b.CreateStore(lo_val[static_cast<size_t>(k)], hi_addr[static_cast<size_t>(k)]);
        }
        b.CreateStore(hi_pos, lo_pos_addr);
        b.CreateStore(lo_pos, hi_pos_addr);
      });
    });
  });
  RETURN_IF_ERROR(EndEntry(e));
  for (int64_t size = 2; size <= padded; size *= 2) {
    for (int64_t d = size / 2; d >= 1; d /= 2) {
      GpuLaunch launch = base;
      launch.scalar_args = {d == size / 2 ? 1 : 0, d};
      kernel->launches.push_back(launch);
    }
  }
  return Status::Ok();
}

Status GpuKernelEmitter::EmitTiledTranspose(const Instruction& inst, const Instruction& transpose, GpuKernel* kernel) {
  const Shape& in = transpose.operand(0)->shape();
  const Shape& out = transpose.shape();
  const std::vector<int64_t>& perm = transpose.dimensions();
  const int64_t rank = in.rank();
  const int64_t a_dim = perm[static_cast<size_t>(rank - 1)];  // input dim that becomes the output's minor
  const int64_t b_dim = rank - 1;                              // input minor
  std::vector<int64_t> other_dims, other_sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != a_dim && d != b_dim) {
      other_dims.push_back(d);
      other_sizes.push_back(in.dimensions(d));
    }
  }
  int64_t others = 1;
  for (int64_t s : other_sizes) others *= s;
  const int64_t a_size = in.dimensions(a_dim), b_size = in.dimensions(b_dim);
  GpuLaunch launch;
  launch.function = kernel->name + "_kernel";
  launch.block = {kTile * 8, 1, 1};
  launch.grid = {CeilDiv(b_size, kTile), CeilDiv(a_size, kTile), others};
  if (launch.grid[1] > kMaxGridYZ || launch.grid[2] > kMaxGridYZ) {
    return EmitLoops(inst, KernelOutputs(inst), kernel);
  }
  const int64_t buffer_count = inst.operand_count() + 1;
  Entry e = BeginEntry(inst, launch.function, buffer_count, 0, launch.block[0]);
  llvm::IRBuilder<>& b = *e.b;
  llvm::Type* value_type = *RegisterType(context_, in.element_type());
  llvm::GlobalVariable* tile = SharedArray(value_type, kTile * (kTile + 1), launch.function + "_tile");
  llvm::Value* tid = ThreadX(b);
  llvm::Value* tx = b.CreateURem(tid, b.getInt64(kTile));
  llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(kTile));
  llvm::Value* b0 = b.CreateMul(BlockX(b), b.getInt64(kTile));
  llvm::Value* a0 = b.CreateMul(BlockY(b), b.getInt64(kTile));
  IrIndex other = Delinearize(b, BlockZ(b), other_sizes);
  auto input_index = [&](llvm::Value* a, llvm::Value* bb) {
    IrIndex index(static_cast<size_t>(rank), b.getInt64(0));
    for (size_t k = 0; k < other_dims.size(); ++k) index[static_cast<size_t>(other_dims[k])] = other[k];
    index[static_cast<size_t>(a_dim)] = a;
    index[static_cast<size_t>(b_dim)] = bb;
    return index;
  };
  // Read: rows a0 + ty + 8j, column b0 + tx.
  for (int64_t j = 0; j < kTile / 8; ++j) {
    llvm::Value* row = b.CreateAdd(ty, b.getInt64(8 * j));
    llvm::Value* a = b.CreateAdd(a0, row);
    llvm::Value* bb = b.CreateAdd(b0, tx);
    If(e, b.CreateAnd(b.CreateICmpULT(a, b.getInt64(a_size)), b.CreateICmpULT(bb, b.getInt64(b_size))), "read", [&] {
      llvm::Value* v = e.emitter->Emit(transpose.operand(0), input_index(a, bb));
      StoreShared(b, tile, b.CreateAdd(b.CreateMul(row, b.getInt64(kTile + 1)), tx), v);
    });
  }
  Barrier(b);
  // Write: output element for input (a0 + tx, b0 + ty + 8j).
  for (int64_t j = 0; j < kTile / 8; ++j) {
    llvm::Value* col = b.CreateAdd(ty, b.getInt64(8 * j));
    llvm::Value* a = b.CreateAdd(a0, tx);
    llvm::Value* bb = b.CreateAdd(b0, col);
    If(e, b.CreateAnd(b.CreateICmpULT(a, b.getInt64(a_size)), b.CreateICmpULT(bb, b.getInt64(b_size))), "write", [&] {
      llvm::Value* v = LoadShared(b, tile, b.CreateAdd(b.CreateMul(tx, b.getInt64(kTile + 1)), col), value_type);
      IrIndex src = input_index(a, bb);
      IrIndex dst(static_cast<size_t>(rank));
      for (int64_t d = 0; d < rank; ++d) dst[static_cast<size_t>(d)] = src[static_cast<size_t>(perm[static_cast<size_t>(d)])];
      IrArray result(e.buffer(inst.operand_count()), out);
      b.CreateStore(ToStorage(b, out.element_type(), v), result.Address(b, dst));
    });
  }
  RETURN_IF_ERROR(EndEntry(e));
  kernel->launches.push_back(launch);
  return Status::Ok();
}

}  // namespace fusebox::codegen::gpu
