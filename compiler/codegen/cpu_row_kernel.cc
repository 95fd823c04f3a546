// The CPU kernel emitter's row kernels (softmax, normalizations; passes/row_fusion.h):
// per row, each reduce in turn as a loop over the row, then the outputs; reduces that
// compute a transcendental function outlined into functions of their own.
#include <algorithm>
#include <string>

#include "compiler/codegen/cpu_kernel_emitter.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::codegen::cpu {

Status KernelEmitter::EmitRowKernel(const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                                    const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                                    const std::string& name) {
  const passes::RowPlan& plan = *rows_;
  const int64_t k = plan.row_rank;
  std::vector<int64_t> first_slot;
  int64_t slots = 0;
  for (const Instruction* reduce : plan.reduces) {
    first_slot.push_back(slots);
    slots += reduce->shape().IsTuple() ? reduce->shape().tuple_size() : 1;
  }
  const std::vector<RowLoop> loops = RowLoops(inst, plan);
  const Shape& shape = outputs[members[0]].shape;
  std::vector<size_t> outlined;
  for (size_t j = 0; j < plan.reduces.size(); ++j) {
    if (!loops[j].outlined) continue;
    const size_t piece = outlined.size();
    llvm::Module& target = piece < row_piece_modules_.size() && row_piece_modules_[piece] != nullptr
                               ? *row_piece_modules_[piece]
                               : module_;
    outlined.push_back(j);
    row_functions_.push_back(RowPieceName(name, j));
    RETURN_IF_ERROR(EmitRowReduce(target, inst, shape, buffer_count, row_functions_.back(), j, first_slot));
  }
  llvm::Function* body = DeclareKernel(buffer_count, name);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context_, "entry", body));
  ElementalEmitter emitter(b, module_);
  BindFusionParameters(inst, body, emitter);
  llvm::Type* ptr = llvm::PointerType::getUnqual(context_);
  const std::vector<int64_t> bounds(shape.dimensions().begin(), shape.dimensions().end());
  const std::vector<int64_t> trailing(bounds.begin() + k, bounds.end());
  std::vector<IrArray> row_buffers;
  for (const passes::RowPlan::Materialized& m : plan.materialized) {
    llvm::Type* storage = *codegen::StorageType(context_, m.value->shape().element_type());
    llvm::AllocaInst* row = emitter.EntryAlloca(
        llvm::ArrayType::get(storage, static_cast<uint64_t>(plan.row_length)), m.value->name() + ".row");
    row->setAlignment(llvm::Align(64));
    row_buffers.emplace_back(row, Shape(m.value->shape().element_type(), trailing));
  }
  // What the outlined reduces take (all on the stack): buffers, row, values, row buffers.
  std::vector<llvm::Value*> shared;
  llvm::Value* values = nullptr;
  std::vector<llvm::FunctionCallee> callees(plan.reduces.size());
  if (!outlined.empty()) {
    auto list = [&](const std::vector<llvm::Value*>& pointers, const std::string& what) {
      llvm::ArrayType* type = llvm::ArrayType::get(ptr, std::max<uint64_t>(1, pointers.size()));
      llvm::AllocaInst* array = emitter.EntryAlloca(type, what);
      for (size_t i = 0; i < pointers.size(); ++i) b.CreateStore(pointers[i], b.CreateConstInBoundsGEP2_64(type, array, 0, i));
      return array;
    };
    std::vector<llvm::Value*> buffers;
    for (int64_t i = 0; i < buffer_count; ++i) buffers.push_back(body->getArg(static_cast<unsigned>(i)));
    std::vector<llvm::Value*> rows;
    for (const IrArray& row : row_buffers) rows.push_back(row.base());
    llvm::AllocaInst* slot_array = emitter.EntryAlloca(
        llvm::ArrayType::get(b.getInt8Ty(), static_cast<uint64_t>(slots * kRowSlotBytes)), "row.values");
    slot_array->setAlignment(llvm::Align(kRowSlotBytes));
    values = slot_array;
    shared = {list(buffers, "buffers"), values, list(rows, "row.buffers")};
    for (size_t j : outlined) callees[j] = module_.getOrInsertFunction(RowPieceName(name, j), RowReduceType(context_, k));
  }
  const int64_t operand_count = inst.operand_count();
  llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
  llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
  Status bind_status;
  emitter.EmitLoop(begin, end, "i" + std::to_string(partition_dim), [&](llvm::Value* outer) {
    std::vector<int64_t> row_order;
    for (int64_t d = partition_dim + 1; d < k; ++d) row_order.push_back(d);
    emitter.EmitLoopNest(bounds, row_order, "row", [&](const IrIndex& inner) {
      IrIndex row(static_cast<size_t>(k), b.getInt64(0));
      for (int64_t d = partition_dim + 1; d < k; ++d) row[d] = inner[d];
      row[partition_dim] = outer;
      for (size_t j = 0; j < plan.reduces.size(); ++j) {
        const Instruction* reduce = plan.reduces[j];
        std::vector<llvm::Value*> found;
        if (loops[j].outlined) {
          std::vector<llvm::Value*> args = {shared[0]};
          args.insert(args.end(), row.begin(), row.end());
          args.push_back(shared[1]);
          args.push_back(shared[2]);
          b.CreateCall(callees[j], args);
          auto loaded = LoadRowValues(b, values, j, first_slot);
          if (!loaded.ok()) {
            bind_status = loaded.status();
            return;
          }
          found = std::move(*loaded);
        } else {
          found = EmitRowReduction(emitter, b, j, row, row_buffers);
          // For the outlined reduces after it.
          const bool needed = std::any_of(outlined.begin(), outlined.end(), [&](size_t o) { return o > j; });
          for (size_t v = 0; needed && v < found.size(); ++v) {
            if (found[v] != nullptr) b.CreateStore(found[v], RowSlot(b, values, j, v, first_slot).second);
          }
        }
        emitter.BindValues(reduce, found);
        for (size_t m = 0; m < plan.materialized.size(); ++m) {
          if (static_cast<size_t>(plan.materialized[m].pass) == j) {
            emitter.BindRowArray(plan.materialized[m].value, row_buffers[m]);
          }
        }
      }
      std::vector<int64_t> element_order;
      for (int64_t d = k; d < shape.rank(); ++d) element_order.push_back(d);
      emitter.EmitLoopNest(bounds, element_order, "i", [&](const IrIndex& element) {
        IrIndex index = element;
        for (int64_t d = 0; d < k; ++d) index[d] = row[d];
        for (int64_t m : members) {
          if (!StoreOutput(emitter, b, body, operand_count, outputs, m, index)) return;
        }
      });
      for (const Instruction* reduce : plan.reduces) emitter.Unbind(reduce);
      for (const passes::RowPlan::Materialized& m : plan.materialized) emitter.Unbind(m.value);
    });
  });
  b.CreateRetVoid();
  RETURN_IF_ERROR(bind_status);
  RETURN_IF_ERROR(emitter.status());
  return Status::Ok();
}

std::vector<llvm::Value*> KernelEmitter::EmitRowReduction(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t j,
                                                          const IrIndex& row, const std::vector<IrArray>& row_buffers) const {
  const passes::RowPlan& plan = *rows_;
  const Instruction* reduce = plan.reduces[j];
  const size_t k = static_cast<size_t>(plan.row_rank);
  std::vector<size_t> kept;
  for (size_t m = 0; m < plan.materialized.size(); ++m) {
    if (static_cast<size_t>(plan.materialized[m].pass) == j) kept.push_back(m);
  }
  const bool bf16_rows = BugPlanted(PlantedBug::kRowBufferInBf16);
  if (!kept.empty()) {
    emitter.SetReduceVisitor(reduce, [&](const IrIndex& source) {
      const IrIndex at(source.begin() + static_cast<std::ptrdiff_t>(k), source.end());
      for (size_t m : kept) {
        const Instruction* value = plan.materialized[m].value;
        llvm::Value* v = emitter.Emit(value, source);
        if (bf16_rows && value->shape().element_type() == PrimitiveType::kF32) {
          v = codegen::ToRegister(b, PrimitiveType::kBF16, codegen::ToStorage(b, PrimitiveType::kBF16, v));
        }
        b.CreateStore(codegen::ToStorage(b, value->shape().element_type(), v), row_buffers[m].Address(b, at));
      }
    });
  }
  std::vector<llvm::Value*> found = emitter.EmitAll(reduce, row);
  emitter.SetReduceVisitor(nullptr, nullptr);
  return found;
}

llvm::FunctionType* KernelEmitter::RowReduceType(llvm::LLVMContext& context, int64_t row_rank) {
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  std::vector<llvm::Type*> params = {ptr};
  params.insert(params.end(), static_cast<size_t>(row_rank), llvm::Type::getInt64Ty(context));
  params.push_back(ptr);
  params.push_back(ptr);
  return llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
}

StatusOr<std::vector<llvm::Value*>> KernelEmitter::LoadRowValues(llvm::IRBuilder<>& b, llvm::Value* values, size_t j,
                                                                 const std::vector<int64_t>& first_slot) const {
  const Instruction* reduce = rows_->reduces[j];
  const size_t count = reduce->shape().IsTuple() ? static_cast<size_t>(reduce->shape().tuple_size()) : 1;
  std::vector<llvm::Value*> found;
  for (size_t v = 0; v < count; ++v) {
    auto [type, at] = RowSlot(b, values, j, v, first_slot);
    ASSIGN_OR_RETURN(llvm::Type * reg, codegen::RegisterType(b.getContext(), type));
    found.push_back(b.CreateLoad(reg, at, reduce->name() + ".value"));
  }
  return found;
}

std::string KernelEmitter::RowPieceName(const std::string& kernel_function, size_t reduce) {
  return kernel_function + ".row" + std::to_string(reduce);
}

void KernelEmitter::BindFusionParameters(const Instruction& inst, llvm::Function* body, ElementalEmitter& emitter) {
  const Computation* fused = inst.fused_computation();
  for (int64_t p = 0; p < fused->parameter_count(); ++p) {
    emitter.BindArray(fused->parameter(p), IrArray(body->getArg(static_cast<unsigned>(p)), inst.operand(p)->shape()));
  }
}

std::pair<PrimitiveType, llvm::Value*> KernelEmitter::RowSlot(llvm::IRBuilder<>& b, llvm::Value* values, size_t j, size_t i,
                                                              const std::vector<int64_t>& first_slot) const {
  const Shape& shape = rows_->reduces[j]->shape();
  const PrimitiveType type = shape.IsTuple() ? shape.tuple_shapes(static_cast<int64_t>(i)).element_type()
                                             : shape.element_type();
  const int64_t at = (first_slot[j] + static_cast<int64_t>(i)) * kRowSlotBytes;
  return {type, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), values, static_cast<uint64_t>(at))};
}

Status KernelEmitter::BindRowState(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t done, llvm::Value* values,
                                   const std::vector<IrArray>& row_buffers, const std::vector<int64_t>& first_slot) const {
  const passes::RowPlan& plan = *rows_;
  for (size_t j = 0; j < done; ++j) {
    ASSIGN_OR_RETURN(std::vector<llvm::Value*> found, LoadRowValues(b, values, j, first_slot));
    emitter.BindValues(plan.reduces[j], std::move(found));
  }
  for (size_t m = 0; m < plan.materialized.size(); ++m) {
    if (static_cast<size_t>(plan.materialized[m].pass) < done) emitter.BindRowArray(plan.materialized[m].value, row_buffers[m]);
  }
  return Status::Ok();
}

Status KernelEmitter::EmitRowReduce(llvm::Module& target, const Instruction& inst, const Shape& shape, int64_t buffer_count,
                                    const std::string& name, size_t j, const std::vector<int64_t>& first_slot) {
  const passes::RowPlan& plan = *rows_;
  const int64_t k = plan.row_rank;
  const int64_t kept_rows = static_cast<int64_t>(plan.materialized.size());
  llvm::LLVMContext& context = target.getContext();
  llvm::Type* ptr = llvm::PointerType::getUnqual(context);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Type* void_type = llvm::Type::getVoidTy(context);
  // body(buffers..., row buffers..., row..., values)
  std::vector<llvm::Type*> body_params(static_cast<size_t>(buffer_count + kept_rows), ptr);
  body_params.insert(body_params.end(), static_cast<size_t>(k), i64);
  body_params.push_back(ptr);
  llvm::Function* body = llvm::Function::Create(llvm::FunctionType::get(void_type, body_params, false),
                                                llvm::GlobalValue::InternalLinkage, name + ".body", target);
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  body->addFnAttr(llvm::Attribute::NoUnwind);
  for (int64_t i = 0; i < buffer_count + kept_rows; ++i) {
    body->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
    body->addParamAttr(static_cast<unsigned>(i),
                       llvm::Attribute::getWithAlignment(context, llvm::Align(i < buffer_count ? 16 : 64)));
  }
  const unsigned values_arg = static_cast<unsigned>(buffer_count + kept_rows + k);
  body->addParamAttr(values_arg, llvm::Attribute::NoAlias);
  llvm::Function* entry =
      llvm::Function::Create(RowReduceType(context, k), llvm::GlobalValue::ExternalLinkage, name, target);
  entry->addFnAttr(llvm::Attribute::NoUnwind);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", entry));
    std::vector<llvm::Value*> args;
    LoadPointers(b, entry->getArg(0), buffer_count, "buffer", args);
    LoadPointers(b, entry->getArg(static_cast<unsigned>(k + 2)), kept_rows, "row.buffer", args);
    for (int64_t d = 0; d < k; ++d) args.push_back(entry->getArg(static_cast<unsigned>(1 + d)));
    args.push_back(entry->getArg(static_cast<unsigned>(k + 1)));
    b.CreateCall(body, args);
    b.CreateRetVoid();
  }
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", body));
  ElementalEmitter emitter(b, target);
  BindFusionParameters(inst, body, emitter);
  const std::vector<int64_t> trailing(shape.dimensions().begin() + k, shape.dimensions().end());
  std::vector<IrArray> row_buffers;
  for (int64_t m = 0; m < kept_rows; ++m) {
    row_buffers.emplace_back(body->getArg(static_cast<unsigned>(buffer_count + m)),
                             Shape(plan.materialized[static_cast<size_t>(m)].value->shape().element_type(), trailing));
  }
  IrIndex row(static_cast<size_t>(k));
  for (int64_t d = 0; d < k; ++d) row[d] = body->getArg(static_cast<unsigned>(buffer_count + kept_rows + d));
  llvm::Value* values = body->getArg(values_arg);
  RETURN_IF_ERROR(BindRowState(emitter, b, j, values, row_buffers, first_slot));
  std::vector<llvm::Value*> found = EmitRowReduction(emitter, b, j, row, row_buffers);
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i] != nullptr) b.CreateStore(found[i], RowSlot(b, values, j, i, first_slot).second);
  }
  b.CreateRetVoid();
  RETURN_IF_ERROR(emitter.status());
  return Status::Ok();
}

}  // namespace fusebox::codegen::cpu
