// The CPU kernel emitter's loop kernels: Emit's dispatch by kind of kernel, loop groups
// (plain, streaming and cached variants), split and column reductions' partial loops,
// sort comparators, in-place dynamic-update-slice and scatters. Row kernels are in
// cpu_row_kernel.cc.
#include "compiler/codegen/cpu_kernel_emitter.h"

#include <llvm/IR/IntrinsicsX86.h>

#include <algorithm>
#include <string>
#include <unordered_set>

#include "compiler/ir/library_calls.h"

namespace fusebox::codegen::cpu {

Status KernelEmitter::Emit(const Instruction& inst, CpuKernel* kernel) {
  split_ = nullptr;
  columns_.reset();
  rows_.reset();
  kernel->hlo = &inst;
  kernel->name = inst.name();
  ASSIGN_OR_RETURN(KernelFacts facts, DescribeKernel(context_, inst, "CPU backend"));
  kernel->kind_name = facts.kind_name;
  kernel->bytes_read = facts.bytes_read;
  kernel->bytes_written = facts.bytes_written;
  kernel->flops = facts.flops;
  if (IsLibraryOp(inst.opcode()) || IsCpuLapackCall(inst)) {
    kernel->kind = CpuKernel::Kind::kLibrary;
    kernel->library_op = &inst;
    if (inst.opcode() == Opcode::kSort) return EmitComparator(inst, kernel);
    return Status::Ok();
  }
  if (IsScatterLike(inst.opcode())) return EmitScatterLike(inst, inst, kernel);
  if (const Instruction* dus = InPlaceUpdate(inst); dus != nullptr) return EmitInPlaceUpdate(inst, *dus, kernel);
  if (inst.opcode() == Opcode::kFusion) {
    const Computation* fused = inst.fused_computation();
    if (fused == nullptr) return InvalidArgument(inst.name() + ": fusion without a fused computation");
    for (const auto& i : fused->instructions()) {
      if (IsScatterLike(i->opcode()) && i.get() != fused->root()) {
        return Unimplemented(inst.name() + ": fused " + i->name() + " (" + std::string(OpcodeName(i->opcode())) +
                             ") is supported only as the root of a fusion");
      }
    }
    if (IsScatterLike(fused->root()->opcode())) return EmitScatterLike(inst, *fused->root(), kernel);
    for (const auto& i : fused->instructions()) {
      if (i->opcode() == Opcode::kFft) {
        return Unimplemented(inst.name() + ": fused " + i->name() + ": an fft runs as a library call of its own");
      }
      if (std::string why = UnsupportedReason(*i); !why.empty()) {
        return Unimplemented(inst.name() + ": fused " + i->name() + ": " + why);
      }
      if (i->opcode() == Opcode::kSort) {
        return Unimplemented(inst.name() + ": sort inside a fusion is not supported by the CPU backend");
      }
      if (i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution) {
        bool params_only = true;
        for (const Instruction* op : i->operands()) params_only &= op->opcode() == Opcode::kParameter;
        // A convolution fused with its producers is emitted elementally (a loop over
        // taps per output element); one over parameters runs as the library kernel.
        if (params_only && kernel->library_op == nullptr &&
            (i->opcode() == Opcode::kConvolution || inst.fusion_kind() == FusionKind::kOutput)) {
          kernel->kind = CpuKernel::Kind::kOutputFusion;
          kernel->library_op = i.get();
          for (const Instruction* op : i->operands()) kernel->library_operands.push_back(op->parameter_number());
          kernel->scratch_bytes = ArrayBytes(i->shape());
        }
      }
    }
  }
  return EmitLoops(inst, kernel);
}

// --- Loop kernels ---

Status KernelEmitter::EmitLoops(const Instruction& inst, CpuKernel* kernel) {
  std::vector<OutputLeaf> outputs = KernelOutputs(inst);
  for (const OutputLeaf& leaf : outputs) {
    if (!leaf.shape.IsArray()) return Unimplemented(inst.name() + ": nested tuple results are not supported");
  }
  const OutputGroups groups = GroupOutputsByDimensions(outputs);
  const int64_t operand_count = inst.operand_count();
  const Instruction* split = PlanReductions(inst, outputs, groups, kernel);
  const int64_t buffer_count =
      operand_count + static_cast<int64_t>(outputs.size()) +
      (kernel->kind == CpuKernel::Kind::kOutputFusion || split != nullptr || columns_ ? 1 : 0);
  std::vector<bool> merged(groups.size(), false);
  std::vector<int64_t> column_side;
  if (columns_) column_side = MergeColumnSideOutputs(outputs, groups, &merged);
  if (columns_) {
    CpuLoopGroup partial;
    partial.function = kernel->name + ".columns";
    partial.extent = columns_->chunks * columns_->blocks;
    partial.elements_per_iteration = columns_->rows / columns_->chunks * columns_->block;
    RETURN_IF_ERROR(EmitColumnPartials(inst, *kernel, *columns_, buffer_count, partial.function, outputs, column_side));
    kernel->groups.push_back(partial);
  }
  if (split != nullptr) {
    CpuLoopGroup partial;
    partial.function = kernel->name + ".partials";
    partial.extent = split->operand(0)->shape().dimensions(0);
    partial.elements_per_iteration = split->operand(0)->shape().ElementCount() / partial.extent;
    RETURN_IF_ERROR(EmitPartials(inst, *kernel, *split, buffer_count, partial.function));
    kernel->groups.push_back(partial);
    split_ = split;
  }
  std::vector<const Instruction*> side_reduce(groups.size(), nullptr);
  std::vector<std::vector<int64_t>> side_members(groups.size());
  if (split == nullptr && !rows_) FindSideReduces(outputs, groups, &merged, &side_reduce, &side_members);
  if (kernel->kind == CpuKernel::Kind::kLoop && split == nullptr && !columns_ && inst.opcode() == Opcode::kFusion &&
      !outputs.empty()) {
    PlanRowChaining(inst, outputs, kernel);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (merged[g]) continue;
    RETURN_IF_ERROR(EmitLoopGroup(inst, kernel, outputs, groups[g], g, groups.size(), buffer_count, side_reduce[g],
                                  side_members[g]));
  }
  return Status::Ok();
}

KernelEmitter::OutputGroups KernelEmitter::GroupOutputsByDimensions(const std::vector<OutputLeaf>& outputs) {
  OutputGroups groups;
  for (int64_t i = 0; i < static_cast<int64_t>(outputs.size()); ++i) {
    bool placed = false;
    for (auto& g : groups) {
      if (outputs[g[0]].shape.dimensions() == outputs[i].shape.dimensions()) {
        g.push_back(i);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({i});
  }
  return groups;
}

const Instruction* KernelEmitter::PlanReductions(const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                                                 const OutputGroups& groups, CpuKernel* kernel) {
  // Reduction splitting: a full reduction with a tiny result would run on one thread;
  // a first loop reduces each row of its operand in parallel into scratch, the kernel's
  // own loop then folds the rows.
  // Row kernels (softmax, normalizations; see row_fusion.h): every reduce once per row.
  if (kernel->kind == CpuKernel::Kind::kLoop && inst.opcode() == Opcode::kFusion && groups.size() == 1) {
    rows_ = passes::PlanRowKernel(inst);
    kernel->row_kernel = rows_.has_value();
  }
  const Instruction* split = nullptr;
  if (kernel->kind == CpuKernel::Kind::kLoop && groups.size() == 1 && !rows_ &&
      outputs[groups[0][0]].shape.ElementCount() <= 16) {
    split = SplittableReduce(inst);
  }
  if (split != nullptr) {
    const Shape& in = split->operand(0)->shape();
    kernel->scratch_bytes = in.dimensions(0) * std::max(1, ByteWidth(in.element_type()));
  }
  if (kernel->kind == CpuKernel::Kind::kLoop && split == nullptr && !rows_) columns_ = PlanColumnReductions(inst);
  if (columns_) kernel->scratch_bytes = columns_->scratch_bytes;
  return split;
}

std::vector<int64_t> KernelEmitter::MergeColumnSideOutputs(const std::vector<OutputLeaf>& outputs,
                                                           const OutputGroups& groups,
                                                           std::vector<bool>* merged) const {
  std::vector<int64_t> column_side;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (outputs[groups[g][0]].shape.dimensions() != columns_->operand.dimensions()) continue;
    bool elementwise = true;
    for (int64_t x : groups[g]) {
      std::unordered_set<const Instruction*> seen;
      elementwise &= !FeedsFromReduce(outputs[x].inst, seen);
    }
    if (!elementwise) continue;
    (*merged)[g] = true;
    column_side.insert(column_side.end(), groups[g].begin(), groups[g].end());
  }
  return column_side;
}

void KernelEmitter::FindSideReduces(const std::vector<OutputLeaf>& outputs, const OutputGroups& groups,
                                    std::vector<bool>* merged, std::vector<const Instruction*>* side_reduce,
                                    std::vector<std::vector<int64_t>>* side_members) {
  for (size_t g = 0; g < groups.size(); ++g) {
    if ((*merged)[g]) continue;
    for (int64_t m : groups[g]) {
      const Instruction* r = outputs[m].inst;
      if (r->opcode() != Opcode::kReduce || (*side_reduce)[g] != nullptr) continue;
      const Shape& in = r->operand(0)->shape();
      std::vector<int64_t> dims = r->dimensions();
      std::sort(dims.begin(), dims.end());
      const int64_t kept = in.rank() - static_cast<int64_t>(dims.size());
      bool trailing = !dims.empty() && kept >= 1;
      for (size_t k = 0; trailing && k < dims.size(); ++k) trailing = dims[k] == kept + static_cast<int64_t>(k);
      if (!trailing || outputs[m].shape.rank() != kept || outputs[m].shape.ElementCount() < 2) continue;
      for (size_t h = 0; h < groups.size(); ++h) {
        if (h == g || (*merged)[h] || (*side_reduce)[h] != nullptr) continue;
        if (outputs[groups[h][0]].shape.dimensions() != in.dimensions()) continue;
        bool elementwise = true;
        for (int64_t x : groups[h]) elementwise &= outputs[x].inst->opcode() != Opcode::kReduce;
        if (!elementwise) continue;
        (*side_reduce)[g] = r;
        (*side_members)[g] = groups[h];
        (*merged)[h] = true;
        break;
      }
    }
  }
}

void KernelEmitter::PlanRowChaining(const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                                    CpuKernel* kernel) {
  const int64_t rows = outputs[0].shape.rank() >= 1 ? outputs[0].shape.dimensions(0) : 0;
  bool all = rows > 1;
  for (const OutputLeaf& leaf : outputs) all &= leaf.shape.rank() >= 1 && leaf.shape.dimensions(0) == rows;
  if (all) {
    kernel->rows = rows;
    kernel->row_local_operands = RowLocalParameters(inst);
  }
}

Status KernelEmitter::EmitLoopGroup(const Instruction& inst, CpuKernel* kernel, const std::vector<OutputLeaf>& outputs,
                                    const std::vector<int64_t>& members, size_t g, size_t group_count,
                                    int64_t buffer_count, const Instruction* side_reduce,
                                    const std::vector<int64_t>& side_members) {
  CpuLoopGroup group;
  // Never the bare HLO name: "log" or "exp" would shadow the C library functions LLVM calls.
  group.function = kernel->name + (group_count == 1 ? std::string(".kernel") : ".kernel" + std::to_string(g));
  const Shape& shape = outputs[members[0]].shape;
  int64_t partition_dim = -1;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (shape.dimensions(d) > 1) {
      partition_dim = d;
      break;
    }
  }
  group.extent = partition_dim < 0 ? 1 : shape.dimensions(partition_dim);
  group.elements_per_iteration = group.extent == 0 ? 0 : std::max<int64_t>(1, shape.ElementCount() / std::max<int64_t>(group.extent, 1));
  // A reduction's output element costs a whole row of its operand: the runtime sizes
  // its shards (and so its thread count) by this work, not by the output alone — a
  // row reduction to f32[4096] over 1024 columns is 4M elements of work, not 4096.
  group.elements_per_iteration *= ReducedElementsPerOutput(inst, shape, columns_ ? &*columns_ : nullptr);
  // A row kernel loops over each row once per reduce and once more for its outputs.
  if (rows_) group.elements_per_iteration *= static_cast<int64_t>(rows_->reduces.size()) + 1;
  if (shape.ElementCount() == 0) group.extent = 0;
  atoms_.reset();
  if (kernel->kind == CpuKernel::Kind::kLoop && split_ == nullptr && !columns_ && !rows_ && side_reduce == nullptr &&
      partition_dim >= 0) {
    std::vector<const Instruction*> roots;
    for (int64_t m : members) roots.push_back(outputs[m].value < 0 ? outputs[m].inst : nullptr);
    if (std::find(roots.begin(), roots.end(), nullptr) == roots.end()) atoms_ = PlanLoopAtoms(inst, roots, shape);
  }
  const bool tiled = atoms_ && atoms_->k >= 0;
  if (tiled) {
    // Strips of tile_k along k: row chaining's "iteration i is row i" no longer holds.
    group.extent = atoms_->Iterations();
    group.elements_per_iteration = atoms_->tile_k * atoms_->sizes[atoms_->o];
    kernel->rows = 0;
  }
  if (rows_ && partition_dim >= 0 && partition_dim < rows_->row_rank && inst.opcode() == Opcode::kFusion) {
    RETURN_IF_ERROR(EmitRowKernel(inst, outputs, members, partition_dim, buffer_count, group.function));
  } else if (!rows_ && !tiled && StreamsOutputs(kernel->kind, outputs, members, partition_dim, side_reduce != nullptr)) {
    // Two variants: one whose vector stores bypass the caches (x86 non-temporal), for
    // output buffers aligned to 64 bytes, and the plain one; the entry picks at run time.
    streaming_ = true;
    RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, members, partition_dim, buffer_count,
                              group.function + kStreamingSuffix, side_reduce, side_members));
    streaming_ = false;
    RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, members, partition_dim, buffer_count,
                              group.function + ".cached", side_reduce, side_members));
    EmitStreamingDispatch(group.function, inst.operand_count(), members);
  } else {
    RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, members, partition_dim, buffer_count, group.function,
                              side_reduce, side_members));
  }
  atoms_.reset();
  kernel->groups.push_back(group);
  return Status::Ok();
}

Status KernelEmitter::EmitGroup(const Instruction& inst, const CpuKernel& kernel, const std::vector<OutputLeaf>& outputs,
                                const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                                const std::string& name, const Instruction* side_reduce,
                                const std::vector<int64_t>& side_members) {
  // The entry point loads the buffer pointers and calls an always-inlined body whose
  // pointer parameters are noalias (buffers of one kernel never overlap).
  llvm::Function* body = DeclareKernel(buffer_count, name);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
  ElementalEmitter emitter(b, module_);
  const int64_t operand_count = inst.operand_count();
  BindInputs(inst, kernel, body, emitter);
  if (split_ != nullptr) {
    const Shape& in = split_->operand(0)->shape();
    emitter.BindPartials(split_, IrArray(body->getArg(static_cast<unsigned>(buffer_count - 1)),
                                         Shape(in.element_type(), {in.dimensions(0)})));
  }
  if (columns_) {
    std::vector<IrArray> partials = ColumnPartials(b, body, buffer_count, false);
    for (size_t j = 0; j < partials.size(); ++j) emitter.BindColumnPartials(columns_->reduces[j], partials[j]);
  }
  if (streaming_) {
    // The dispatcher checked it: the outputs start on 64-byte boundaries (lets LLVM
    // prove the vector stores aligned, which non-temporal stores need).
    for (int64_t m : members) {
      llvm::Value* out = body->getArg(static_cast<unsigned>(operand_count + m));
      b.CreateAlignmentAssumption(module_.getDataLayout(), out, 64);
    }
  }
  const Shape& shape = outputs[members[0]].shape;
  llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
  llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
  auto store = [&](int64_t m, const IrIndex& index) {
    return StoreOutput(emitter, b, body, operand_count, outputs, m, index);
  };
  auto store_all = [&](const IrIndex& index) {
    for (int64_t m : members) {
      if (!store(m, index)) return;
    }
  };
  if (side_reduce != nullptr) {
    emitter.SetReduceVisitor(side_reduce, [&](const IrIndex& source) {
      for (int64_t m : side_members) store(m, source);
    });
  }
  if (partition_dim < 0) {
    // Scalars and all-ones shapes: one iteration when begin < end.
    llvm::Function* fn = body;
    llvm::BasicBlock* run = llvm::BasicBlock::Create(context_, "run", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "done", fn);
    b.CreateCondBr(b.CreateICmpSLT(begin, end), run, done);
    b.SetInsertPoint(run);
    IrIndex index(shape.rank(), b.getInt64(0));
    store_all(index);
    b.CreateBr(done);
    b.SetInsertPoint(done);
  } else if (atoms_ && atoms_->k >= 0) {
    EmitTiledLoops(emitter, b, body, *atoms_, begin, end, store_all);
  } else if (atoms_) {
    EmitAtomLoops(emitter, b, *atoms_, partition_dim, begin, end, store_all);
  } else {
    emitter.EmitLoop(begin, end, "i" + std::to_string(partition_dim), [&](llvm::Value* outer) {
      std::vector<int64_t> bounds(shape.dimensions().begin(), shape.dimensions().end());
      std::vector<int64_t> order;
      for (int64_t d = partition_dim + 1; d < shape.rank(); ++d) order.push_back(d);
      std::vector<int64_t> inner_bounds = bounds;
      emitter.EmitLoopNest(inner_bounds, order, "i", [&](const IrIndex& inner) {
        IrIndex index(shape.rank(), b.getInt64(0));
        for (int64_t d = partition_dim + 1; d < shape.rank(); ++d) index[d] = inner[d];
        index[partition_dim] = outer;
        store_all(index);
      });
    });
  }
  b.CreateRetVoid();
  RETURN_IF_ERROR(emitter.status());
  return Status::Ok();
}

void KernelEmitter::EmitPartitionedLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const Shape& shape, int64_t partition_dim,
                                         llvm::Value* begin, llvm::Value* end, const std::function<void(const IrIndex&)>& body) {
  if (partition_dim < 0) {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::BasicBlock* run = llvm::BasicBlock::Create(context_, "run", fn);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "done", fn);
    b.CreateCondBr(b.CreateICmpSLT(begin, end), run, done);
    b.SetInsertPoint(run);
    body(IrIndex(shape.rank(), b.getInt64(0)));
    b.CreateBr(done);
    b.SetInsertPoint(done);
    return;
  }
  emitter.EmitLoop(begin, end, "i" + std::to_string(partition_dim), [&](llvm::Value* outer) {
    std::vector<int64_t> bounds(shape.dimensions().begin(), shape.dimensions().end());
    std::vector<int64_t> order;
    for (int64_t d = partition_dim + 1; d < shape.rank(); ++d) order.push_back(d);
    emitter.EmitLoopNest(bounds, order, "i", [&](const IrIndex& inner) {
      IrIndex index(shape.rank(), b.getInt64(0));
      for (int64_t d = partition_dim + 1; d < shape.rank(); ++d) index[d] = inner[d];
      index[partition_dim] = outer;
      body(index);
    });
  });
}

Status KernelEmitter::EmitPartials(const Instruction& inst, const CpuKernel& kernel, const Instruction& reduce,
                                   int64_t buffer_count, const std::string& name) {
  llvm::Function* body = DeclareKernel(buffer_count, name);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
  ElementalEmitter emitter(b, module_);
  BindInputs(inst, kernel, body, emitter);
  const Shape& in = reduce.operand(0)->shape();
  IrArray partials(body->getArg(static_cast<unsigned>(buffer_count - 1)), Shape(in.element_type(), {in.dimensions(0)}));
  llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
  llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
  emitter.EmitLoop(begin, end, "row", [&](llvm::Value* row) {
    llvm::Value* value = emitter.EmitReduceRow(&reduce, row);
    b.CreateStore(codegen::ToStorage(b, in.element_type(), value), partials.Address(b, {row}));
  });
  b.CreateRetVoid();
  return emitter.status();
}

std::vector<IrArray> KernelEmitter::ColumnPartials(llvm::IRBuilder<>& b, llvm::Function* body, int64_t buffer_count, bool flat) {
  llvm::Value* scratch = body->getArg(static_cast<unsigned>(buffer_count - 1));
  std::vector<IrArray> partials;
  for (size_t j = 0; j < columns_->reduces.size(); ++j) {
    const Instruction* r = columns_->reduces[j];
    llvm::Value* base = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), scratch, static_cast<uint64_t>(columns_->offsets[j]));
    std::vector<int64_t> dims = {columns_->chunks};
    if (flat) {
      dims.push_back(columns_->columns);
    } else {
      dims.insert(dims.end(), r->shape().dimensions().begin(), r->shape().dimensions().end());
    }
    partials.emplace_back(base, Shape(ColumnAccumulatorType(r->shape().element_type()), dims));
  }
  return partials;
}

Status KernelEmitter::EmitColumnPartials(const Instruction& inst, const CpuKernel& kernel, const ColumnPlan& plan,
                                         int64_t buffer_count, const std::string& name, const std::vector<OutputLeaf>& outputs,
                                         const std::vector<int64_t>& side) {
  llvm::Function* body = DeclareKernel(buffer_count, name);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
  ElementalEmitter emitter(b, module_);
  BindInputs(inst, kernel, body, emitter);
  std::vector<IrArray> partials = ColumnPartials(b, body, buffer_count, true);
  const Shape& in = plan.operand;
  const int64_t rank = in.rank();
  llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
  llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
  emitter.EmitLoop(begin, end, "it", [&](llvm::Value* it) {
    llvm::Value* chunk = it;
    llvm::Value* k_begin = b.getInt64(0);
    llvm::Value* k_end = b.getInt64(plan.columns);
    if (plan.blocks > 1) {
      chunk = b.CreateUDiv(it, b.getInt64(plan.blocks));
      k_begin = b.CreateMul(b.CreateURem(it, b.getInt64(plan.blocks)), b.getInt64(plan.block));
      llvm::Value* e = b.CreateAdd(k_begin, b.getInt64(plan.block));
      k_end = b.CreateSelect(b.CreateICmpULT(e, b.getInt64(plan.columns)), e, b.getInt64(plan.columns));
    }
    llvm::Value* row_begin = b.CreateUDiv(b.CreateMul(chunk, b.getInt64(plan.rows)), b.getInt64(plan.chunks));
    llvm::Value* row_end =
        b.CreateUDiv(b.CreateMul(b.CreateAdd(chunk, b.getInt64(1)), b.getInt64(plan.rows)), b.getInt64(plan.chunks));
    // The partials start from the init value, the reducer's identity.
    emitter.EmitLoop(k_begin, k_end, "init", [&](llvm::Value* k) {
      for (size_t j = 0; j < plan.reduces.size(); ++j) {
        llvm::Value* init = emitter.Emit(plan.reduces[j]->operand(1), {});
        const PrimitiveType acc = partials[j].shape().element_type();
        b.CreateStore(codegen::ToStorage(b, acc, init), partials[j].Address(b, {chunk, k}));
      }
    });
    emitter.EmitLoop(row_begin, row_end, "row", [&](llvm::Value* row) {
      IrIndex index(rank, nullptr);
      llvm::Value* rest = row;
      for (int64_t d = plan.reduced_rank - 1; d > 0; --d) {
        index[d] = b.CreateURem(rest, b.getInt64(in.dimensions(d)));
        rest = b.CreateUDiv(rest, b.getInt64(in.dimensions(d)));
      }
      index[0] = rest;
      emitter.EmitLoop(k_begin, k_end, "col", [&](llvm::Value* k) {
        IrIndex at = index;
        llvm::Value* kept = k;
        for (int64_t d = rank - 1; d > plan.reduced_rank; --d) {
          at[d] = b.CreateURem(kept, b.getInt64(in.dimensions(d)));
          kept = b.CreateUDiv(kept, b.getInt64(in.dimensions(d)));
        }
        at[plan.reduced_rank] = kept;
        for (size_t j = 0; j < plan.reduces.size(); ++j) {
          const Instruction* r = plan.reduces[j];
          const PrimitiveType acc = partials[j].shape().element_type();
          llvm::Value* address = partials[j].Address(b, {chunk, k});
          llvm::Value* old = codegen::ToRegister(b, acc, b.CreateLoad(*codegen::StorageType(context_, acc), address));
          llvm::Value* v = emitter.Emit(r->operand(0), at);
          std::vector<llvm::Value*> folded = emitter.EmitReducer(*r->to_apply(), {old, v});
          if (folded.size() == 1) b.CreateStore(codegen::ToStorage(b, acc, folded[0]), address);
        }
        for (int64_t m : side) StoreOutput(emitter, b, body, inst.operand_count(), outputs, m, at);
      });
    });
  });
  b.CreateRetVoid();
  return emitter.status();
}

bool KernelEmitter::StreamsOutputs(CpuKernel::Kind kind, const std::vector<OutputLeaf>& outputs,
                                   const std::vector<int64_t>& members, int64_t partition_dim, bool side_reduce) const {
  if (kind != CpuKernel::Kind::kLoop || side_reduce || partition_dim < 0) return false;
  int64_t bytes = 0;
  for (int64_t m : members) {
    const Shape& shape = outputs[m].shape;
    if (outputs[m].inst->opcode() == Opcode::kReduce || outputs[m].value >= 0) return false;
    int64_t row = ArrayBytes(shape) / std::max<int64_t>(1, shape.dimensions(partition_dim));
    for (int64_t d = 0; d < partition_dim; ++d) row /= std::max<int64_t>(1, shape.dimensions(d));
    if (partition_dim + 1 >= shape.rank() || row % 64 != 0) return false;
    bytes += ArrayBytes(shape);
  }
  return bytes >= MinBytes(streaming_min_bytes_, StreamingThresholdBytes);
}

void KernelEmitter::EmitStreamingDispatch(const std::string& name, int64_t operand_count, const std::vector<int64_t>& members) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context_);
  llvm::FunctionType* type = llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i64, i64}, false);
  llvm::Function* entry = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", entry));
  llvm::Value* bits = b.getInt64(0);
  for (int64_t m : members) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), static_cast<uint64_t>(operand_count + m));
    bits = b.CreateOr(bits, b.CreatePtrToInt(b.CreateLoad(ptr, slot), i64));
  }
  llvm::Value* aligned = b.CreateICmpEQ(b.CreateAnd(bits, b.getInt64(63)), b.getInt64(0));
  llvm::BasicBlock* stream = llvm::BasicBlock::Create(context_, "stream", entry);
  llvm::BasicBlock* cached = llvm::BasicBlock::Create(context_, "cached", entry);
  b.CreateCondBr(aligned, stream, cached);
  std::vector<llvm::Value*> args = {entry->getArg(0), entry->getArg(1), entry->getArg(2)};
  // Kept out of line: the streaming stores are marked by function after optimization.
  for (const char* suffix : {kStreamingSuffix, ".cached"}) {
    module_.getFunction(name + suffix)->addFnAttr(llvm::Attribute::NoInline);
  }
  // The cached variant is the fallback for outputs that are not 64-byte aligned, which
  // CpuExecutable never passes (its buffers are aligned, and it computes into a caller's
  // destination only when that is aligned): it stays scalar, small to compile.
  llvm::Function* fallback = module_.getFunction(name + ".cached");
  fallback->addFnAttr(kVectorizeWidthAttribute, "1");
  fallback->addFnAttr(kInterleaveAttribute, "1");
  b.SetInsertPoint(stream);
  b.CreateCall(module_.getFunction(name + kStreamingSuffix), args);
  // Non-temporal stores are weakly ordered: fence them before the shard reports done.
  b.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::x86_sse_sfence));
  b.CreateRetVoid();
  b.SetInsertPoint(cached);
  b.CreateCall(module_.getFunction(name + ".cached"), args);
  b.CreateRetVoid();
}

// --- Sorts, in-place updates and scatters ---

Status KernelEmitter::EmitComparator(const Instruction& sort, CpuKernel* kernel) {
  const Computation* comparator = sort.to_apply();
  if (comparator == nullptr) return InvalidArgument(sort.name() + ": sort without a comparator");
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  std::string name = sort.name() + ".comparator";
  llvm::Function* fn = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getInt8Ty(context_), {ptr, ptr}, false),
      llvm::GlobalValue::ExternalLinkage, name, module_);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", fn));
  ElementalEmitter emitter(b, module_);
  std::vector<llvm::Value*> args;
  for (int64_t i = 0; i < comparator->parameter_count(); ++i) {
    const Shape& s = comparator->parameter(i)->shape();
    auto storage = codegen::StorageType(context_, s.element_type());
    if (!storage.ok()) return Unimplemented(sort.name() + ": " + storage.status().message());
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, fn->getArg(0), static_cast<uint64_t>(i));
    llvm::Value* p = b.CreateLoad(ptr, slot);
    args.push_back(codegen::ToRegister(b, s.element_type(), b.CreateLoad(*storage, p)));
  }
  std::vector<llvm::Value*> result = emitter.EmitScalarComputation(*comparator, args);
  RETURN_IF_ERROR(emitter.status());
  if (result.size() != 1 || !result[0]->getType()->isIntegerTy(1)) {
    return InvalidArgument(sort.name() + ": the comparator must return pred");
  }
  b.CreateRet(b.CreateZExt(result[0], b.getInt8Ty()));
  kernel->comparator_function = name;
  return Status::Ok();
}

Status KernelEmitter::EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, CpuKernel* kernel) {
  const int64_t base_operand = &dus == &inst ? 0 : dus.operand(0)->parameter_number();
  kernel->in_place_operand = base_operand;
  const int64_t operand_count = inst.operand_count();
  const int64_t buffer_count = operand_count + 1;
  const Shape& shape = dus.shape();
  const Shape& update = dus.operand(1)->shape();
  auto first_long_dim = [](const Shape& sh) {
    for (int64_t d = 0; d < sh.rank(); ++d) {
      if (sh.dimensions(d) > 1) return d;
    }
    return int64_t{-1};
  };
  for (int pass = 0; pass < 2; ++pass) {
    const bool copy = pass == 0;
    const Shape& space = copy ? shape : update;
    CpuLoopGroup group;
    group.function = kernel->name + (copy ? ".copy" : ".update");
    const int64_t partition_dim = first_long_dim(space);
    group.extent = space.ElementCount() == 0 ? 0 : partition_dim < 0 ? 1 : space.dimensions(partition_dim);
    group.elements_per_iteration = group.extent == 0 ? 0 : std::max<int64_t>(1, space.ElementCount() / group.extent);
    if (copy) group.skip_if_aliased = base_operand;
    llvm::Function* body = DeclareKernel(buffer_count, group.function);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
    ElementalEmitter emitter(b, module_);
    BindInputs(inst, *kernel, body, emitter);
    IrArray out(body->getArg(static_cast<unsigned>(operand_count)), shape);
    llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
    llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
    if (copy) {
      EmitPartitionedLoops(emitter, b, space, partition_dim, begin, end, [&](const IrIndex& index) {
        llvm::Value* v = emitter.Emit(dus.operand(0), index);
        b.CreateStore(codegen::ToStorage(b, shape.element_type(), v), out.Address(b, index));
      });
    } else {
      // Start indices, clamped so the whole update fits (XLA's rule), computed once.
      std::vector<llvm::Value*> starts;
      for (int64_t d = 0; d < shape.rank(); ++d) {
        const Instruction* start = dus.operand(2 + d);
        llvm::Value* v = emitter.Emit(start, {});
        v = IsUnsignedInt(start->shape().element_type()) ? b.CreateZExt(v, b.getInt64Ty()) : b.CreateSExt(v, b.getInt64Ty());
        v = b.CreateSelect(b.CreateICmpSLT(v, b.getInt64(0)), b.getInt64(0), v);
        const int64_t max_start = shape.dimensions(d) - update.dimensions(d);
        starts.push_back(b.CreateSelect(b.CreateICmpSGT(v, b.getInt64(max_start)), b.getInt64(max_start), v));
      }
      EmitPartitionedLoops(emitter, b, space, partition_dim, begin, end, [&](const IrIndex& u) {
        IrIndex at(shape.rank());
        for (int64_t d = 0; d < shape.rank(); ++d) at[d] = b.CreateAdd(starts[d], u[d]);
        llvm::Value* v = emitter.Emit(dus.operand(1), u);
        b.CreateStore(codegen::ToStorage(b, shape.element_type(), v), out.Address(b, at));
      });
    }
    b.CreateRetVoid();
    RETURN_IF_ERROR(emitter.status());
    kernel->groups.push_back(group);
  }
  return Status::Ok();
}

Status KernelEmitter::EmitScatterLike(const Instruction& inst, const Instruction& root, CpuKernel* kernel) {
  const bool is_scatter = root.opcode() == Opcode::kScatter;
  ASSIGN_OR_RETURN(const std::vector<Shape> outs, ScatterLikeResults(inst, root));
  const int64_t n = static_cast<int64_t>(outs.size());
  const int64_t operand_count = inst.operand_count();
  const int64_t buffer_count = operand_count + n;
  const Shape& shape = outs[0];
  // Group 0: the initial result, in parallel.
  {
    CpuLoopGroup init;
    init.function = kernel->name + ".init";
    int64_t partition_dim = -1;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (shape.dimensions(d) > 1) {
        partition_dim = d;
        break;
      }
    }
    init.extent = shape.ElementCount() == 0 ? 0 : partition_dim < 0 ? 1 : shape.dimensions(partition_dim);
    init.elements_per_iteration = init.extent == 0 ? 0 : std::max<int64_t>(1, shape.ElementCount() / init.extent);
    llvm::Function* body = DeclareKernel(buffer_count, init.function);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
    ElementalEmitter emitter(b, module_);
    BindInputs(inst, *kernel, body, emitter);
    llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
    llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
    auto store = [&](const IrIndex& index) {
      for (int64_t i = 0; i < n; ++i) {
        llvm::Value* v = is_scatter ? emitter.Emit(root.operand(i), index) : emitter.Emit(root.operand(2), {});
        IrArray out(body->getArg(static_cast<unsigned>(operand_count + i)), outs[i]);
        b.CreateStore(codegen::ToStorage(b, outs[i].element_type(), v), out.Address(b, index));
      }
    };
    EmitPartitionedLoops(emitter, b, shape, partition_dim, begin, end, store);
    b.CreateRetVoid();
    RETURN_IF_ERROR(emitter.status());
    kernel->groups.push_back(init);
  }
  // Group 1: the updates, serially; a select-and-scatter whose window leaves one
  // dimension alone (the batch of a max pool's gradient) in parallel slices along it.
  CpuLoopGroup apply;
  apply.function = kernel->name + ".apply";
  apply.extent = 1;
  apply.elements_per_iteration = 1;
  const int64_t sas_dim = is_scatter ? -1 : SelectAndScatterParallelDim(root);
  if (sas_dim >= 0) {
    const Shape& source = root.operand(1)->shape();
    int64_t taps = 1;
    for (const WindowDimension& wd : root.attrs().window->dimensions) taps *= wd.size;
    apply.extent = source.dimensions(sas_dim);
    apply.elements_per_iteration = std::max<int64_t>(1, source.ElementCount() / apply.extent * taps);
  }
  llvm::Function* body = DeclareKernel(buffer_count, apply.function);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
  ElementalEmitter emitter(b, module_);
  BindInputs(inst, *kernel, body, emitter);
  std::vector<IrArray> results;
  for (int64_t i = 0; i < n; ++i) results.emplace_back(body->getArg(static_cast<unsigned>(operand_count + i)), outs[i]);
  llvm::Function* fn = body;
  llvm::BasicBlock* run = llvm::BasicBlock::Create(context_, "run", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "done", fn);
  b.CreateCondBr(b.CreateICmpSLT(body->getArg(static_cast<unsigned>(buffer_count)),
                                 body->getArg(static_cast<unsigned>(buffer_count + 1))),
                 run, done);
  b.SetInsertPoint(run);
  if (is_scatter) {
    EmitScatterUpdates(root, emitter, b, results);
  } else if (sas_dim >= 0) {
    EmitSelectAndScatterUpdates(root, emitter, b, results[0], sas_dim, body->getArg(static_cast<unsigned>(buffer_count)),
                                body->getArg(static_cast<unsigned>(buffer_count + 1)));
  } else {
    EmitSelectAndScatterUpdates(root, emitter, b, results[0]);
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  RETURN_IF_ERROR(emitter.status());
  kernel->groups.push_back(apply);
  return Status::Ok();
}

// --- Shared by every kind of kernel ---

bool KernelEmitter::StoreOutput(ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Function* body,
                                int64_t operand_count, const std::vector<OutputLeaf>& outputs, int64_t m,
                                const IrIndex& index) {
  const OutputLeaf& leaf = outputs[m];
  llvm::Value* value = nullptr;
  if (leaf.value < 0) {
    value = emitter.Emit(leaf.inst, index);
  } else {
    std::vector<llvm::Value*> all = emitter.EmitAll(leaf.inst, index);
    value = leaf.value < static_cast<int64_t>(all.size()) ? all[leaf.value] : nullptr;
  }
  if (value == nullptr) return false;
  IrArray out(body->getArg(static_cast<unsigned>(operand_count + m)), leaf.shape);
  b.CreateStore(codegen::ToStorage(b, leaf.shape.element_type(), value), out.Address(b, index));
  return true;
}

void KernelEmitter::LoadPointers(llvm::IRBuilder<>& b, llvm::Value* array, int64_t count, const std::string& name,
                                 std::vector<llvm::Value*>& out) {
  llvm::Type* ptr = b.getPtrTy();
  for (int64_t i = 0; i < count; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, array, static_cast<uint64_t>(i));
    out.push_back(b.CreateLoad(ptr, slot, name + std::to_string(i)));
  }
}

llvm::Function* KernelEmitter::DeclareKernel(int64_t buffer_count, const std::string& name) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context_);
  std::vector<llvm::Type*> body_params(buffer_count, ptr);
  body_params.push_back(i64);
  body_params.push_back(i64);
  llvm::Function* body = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context_), body_params, false),
                                                llvm::GlobalValue::InternalLinkage, name + ".body", module_);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  body->addFnAttr(llvm::Attribute::NoUnwind);
  for (int64_t i = 0; i < buffer_count; ++i) {
    body->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    body->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::getWithAlignment(context_, llvm::Align(16)));
  }
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context_), {ptr, i64, i64}, false),
      llvm::GlobalValue::ExternalLinkage, name, module_);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", entry));
  std::vector<llvm::Value*> args;
  LoadPointers(b, entry->getArg(0), buffer_count, "buffer", args);
  args.push_back(entry->getArg(1));
  args.push_back(entry->getArg(2));
  b.CreateCall(body, args);
  b.CreateRetVoid();
  return body;
}

void KernelEmitter::BindInputs(const Instruction& inst, const CpuKernel& kernel, llvm::Function* body, ElementalEmitter& emitter) {
  const int64_t buffer_count = static_cast<int64_t>(body->arg_size()) - 2;
  if (inst.opcode() == Opcode::kFusion) {
    const Computation* fused = inst.fused_computation();
    for (int64_t p = 0; p < fused->parameter_count(); ++p) {
      emitter.BindArray(fused->parameter(p), IrArray(body->getArg(static_cast<unsigned>(p)), inst.operand(p)->shape()));
    }
    if (kernel.kind == CpuKernel::Kind::kOutputFusion) {
      emitter.BindArray(kernel.library_op, IrArray(body->getArg(static_cast<unsigned>(buffer_count - 1)),
                                                   kernel.library_op->shape()));
    }
  } else {
    for (int64_t p = 0; p < inst.operand_count(); ++p) {
      emitter.BindArray(inst.operand(p), IrArray(body->getArg(static_cast<unsigned>(p)), inst.operand(p)->shape()));
    }
  }
}

}  // namespace fusebox::codegen::cpu
