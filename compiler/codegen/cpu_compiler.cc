#include "compiler/codegen/cpu_compiler.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cmath>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/passes/kernel_count.h"

namespace fusebox {

bool IsCpuKernel(const Instruction& inst) { return IsKernel(inst); }

namespace {

using codegen::ElementalEmitter;
using codegen::IrArray;
using codegen::IrIndex;

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

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

// The computations whose instructions run as programs on the host.
std::vector<const Computation*> ProgramComputations(const Module& module) {
  std::vector<const Computation*> out;
  if (module.entry() == nullptr) return out;
  std::vector<const Computation*> work = {module.entry()};
  std::unordered_set<const Computation*> seen = {module.entry()};
  while (!work.empty()) {
    const Computation* comp = work.back();
    work.pop_back();
    out.push_back(comp);
    for (const auto& inst : comp->instructions()) {
      Opcode op = inst->opcode();
      if (op != Opcode::kWhile && op != Opcode::kConditional && op != Opcode::kCall) continue;
      for (const Computation* callee : inst->called_computations()) {
        if (callee != nullptr && seen.insert(callee).second) work.push_back(callee);
      }
    }
  }
  return out;
}

// One output of a kernel: an instruction and, for tuple-shaped instructions (variadic
// reduce), which of its values.
struct OutputLeaf {
  const Instruction* inst;
  int64_t value;  // -1: the array itself
  Shape shape;
};

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
  return op == Opcode::kDot || op == Opcode::kConvolution || op == Opcode::kSort;
}

// Ops the loop emitter cannot run as a kernel of their own (yet).
std::string UnsupportedReason(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kScatter:
    case Opcode::kSelectAndScatter:
    case Opcode::kFft:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kCustomCall:
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
      return "the CPU backend cannot emit " + std::string(OpcodeName(inst.opcode())) + " yet";
    default:
      return "";
  }
}

int64_t EstimateFlops(const Instruction& inst) {
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
    case Opcode::kFusion:
      return count_elementwise(*inst.fused_computation(), inst.shape().ElementCount());
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

// A full reduction big enough to split: every dimension reduced, a long major
// dimension to spread over threads, an identity init, one operand.
const Instruction* SplittableReduce(const Instruction& inst) {
  std::vector<const Instruction*> candidates;
  if (inst.opcode() == Opcode::kReduce) {
    candidates.push_back(&inst);
  } else if (inst.opcode() == Opcode::kFusion) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() == Opcode::kReduce) candidates.push_back(i.get());
    }
  }
  for (const Instruction* r : candidates) {
    if (r->operand_count() != 2 || r->to_apply() == nullptr) continue;
    const Shape& in = r->operand(0)->shape();
    if (in.rank() < 1 || static_cast<int64_t>(r->dimensions().size()) != in.rank()) continue;
    if (in.dimensions(0) < 64 || in.ElementCount() < (int64_t{1} << 16)) continue;
    if (!IsIdentityInit(*r->to_apply(), *r->operand(1))) continue;
    if (IsComplex(in.element_type())) continue;
    return r;
  }
  return nullptr;
}

class CpuCodeImpl : public CpuCode {
 public:
  const CpuKernel* KernelFor(const Instruction* inst) const override {
    auto it = by_instruction_.find(inst);
    return it == by_instruction_.end() ? nullptr : it->second;
  }
  const std::vector<std::unique_ptr<CpuKernel>>& kernels() const override { return kernels_; }
  const std::string& llvm_ir() const override { return llvm_ir_; }
  const std::string& llvm_ir_optimized() const override { return llvm_ir_optimized_; }
  const std::string& assembly() const override { return assembly_; }
  const std::string& target_cpu() const override { return target_cpu_; }
  const std::map<std::string, std::string>& function_to_hlo() const override { return function_to_hlo_; }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<std::unique_ptr<CpuKernel>> kernels_;
  std::unordered_map<const Instruction*, CpuKernel*> by_instruction_;
  std::string llvm_ir_, llvm_ir_optimized_, assembly_, target_cpu_;
  std::map<std::string, std::string> function_to_hlo_;
};

class KernelEmitter {
 public:
  KernelEmitter(llvm::Module& module) : module_(module), context_(module.getContext()) {}

  Status Emit(const Instruction& inst, CpuKernel* kernel) {
    split_ = nullptr;
    kernel->hlo = &inst;
    kernel->name = inst.name();
    kernel->kind_name = std::string(OpcodeName(inst.opcode()));
    if (inst.opcode() == Opcode::kFusion && inst.fusion_kind()) {
      kernel->kind_name += "(" + std::string(FusionKindName(*inst.fusion_kind())) + ")";
    }
    for (const Instruction* op : inst.operands()) kernel->bytes_read += ArrayBytes(op->shape());
    kernel->bytes_written = ArrayBytes(inst.shape());
    kernel->flops = EstimateFlops(inst);
    for (const Instruction* op : inst.operands()) {
      if (!op->shape().IsArray()) {
        return Unimplemented(inst.name() + ": the CPU backend needs array operands for kernels; operand " +
                             op->name() + " is a tuple");
      }
    }
    if (std::string why = UnsupportedReason(inst); !why.empty()) return Unimplemented(inst.name() + ": " + why);
    RETURN_IF_ERROR(CheckElementTypes(inst));
    if (IsLibraryOp(inst.opcode())) {
      kernel->kind = CpuKernel::Kind::kLibrary;
      kernel->library_op = &inst;
      if (inst.opcode() == Opcode::kSort) return EmitComparator(inst, kernel);
      return Status::Ok();
    }
    if (inst.opcode() == Opcode::kFusion) {
      const Computation* fused = inst.fused_computation();
      if (fused == nullptr) return InvalidArgument(inst.name() + ": fusion without a fused computation");
      for (const auto& i : fused->instructions()) {
        if (std::string why = UnsupportedReason(*i); !why.empty()) {
          return Unimplemented(inst.name() + ": fused " + i->name() + ": " + why);
        }
        if (i->opcode() == Opcode::kSort) {
          return Unimplemented(inst.name() + ": sort inside a fusion is not supported by the CPU backend");
        }
        if (i->opcode() == Opcode::kDot || i->opcode() == Opcode::kConvolution) {
          bool params_only = true;
          for (const Instruction* op : i->operands()) params_only &= op->opcode() == Opcode::kParameter;
          if (!params_only && i->opcode() == Opcode::kConvolution) {
            return Unimplemented(inst.name() + ": a convolution fused with its producers is not supported");
          }
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

 private:
  // The kernel's outputs: root tuple operands, a variadic reduce's values, or the root.
  std::vector<OutputLeaf> Outputs(const Instruction& inst) {
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

  Status EmitLoops(const Instruction& inst, CpuKernel* kernel) {
    std::vector<OutputLeaf> outputs = Outputs(inst);
    for (const OutputLeaf& leaf : outputs) {
      if (!leaf.shape.IsArray()) return Unimplemented(inst.name() + ": nested tuple results are not supported");
    }
    // Group outputs by dimensions: one loop nest per group.
    std::vector<std::vector<int64_t>> groups;
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
    const int64_t operand_count = inst.operand_count();
    // Reduction splitting: a full reduction with a tiny result would run on one thread;
    // a first loop reduces each row of its operand in parallel into scratch, the kernel's
    // own loop then folds the rows.
    const Instruction* split = nullptr;
    if (kernel->kind == CpuKernel::Kind::kLoop && groups.size() == 1 &&
        outputs[groups[0][0]].shape.ElementCount() <= 16) {
      split = SplittableReduce(inst);
    }
    if (split != nullptr) {
      const Shape& in = split->operand(0)->shape();
      kernel->scratch_bytes = in.dimensions(0) * std::max(1, ByteWidth(in.element_type()));
    }
    const int64_t buffer_count = operand_count + static_cast<int64_t>(outputs.size()) +
                                 (kernel->kind == CpuKernel::Kind::kOutputFusion || split != nullptr ? 1 : 0);
    if (split != nullptr) {
      CpuLoopGroup partial;
      partial.function = kernel->name + ".partials";
      partial.extent = split->operand(0)->shape().dimensions(0);
      partial.elements_per_iteration = split->operand(0)->shape().ElementCount() / partial.extent;
      RETURN_IF_ERROR(EmitPartials(inst, *kernel, *split, buffer_count, partial.function));
      kernel->groups.push_back(partial);
      split_ = split;
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      CpuLoopGroup group;
      // Never the bare HLO name: "log" or "exp" would shadow the C library functions LLVM calls.
      group.function = kernel->name + (groups.size() == 1 ? std::string(".kernel") : ".kernel" + std::to_string(g));
      const Shape& shape = outputs[groups[g][0]].shape;
      int64_t partition_dim = -1;
      for (int64_t d = 0; d < shape.rank(); ++d) {
        if (shape.dimensions(d) > 1) {
          partition_dim = d;
          break;
        }
      }
      group.extent = partition_dim < 0 ? 1 : shape.dimensions(partition_dim);
      group.elements_per_iteration = group.extent == 0 ? 0 : std::max<int64_t>(1, shape.ElementCount() / std::max<int64_t>(group.extent, 1));
      if (shape.ElementCount() == 0) group.extent = 0;
      RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, groups[g], partition_dim, buffer_count, group.function));
      kernel->groups.push_back(group);
    }
    return Status::Ok();
  }

  Status EmitGroup(const Instruction& inst, const CpuKernel& kernel, const std::vector<OutputLeaf>& outputs,
                   const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                   const std::string& name) {
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
    const Shape& shape = outputs[members[0]].shape;
    llvm::Value* begin = body->getArg(static_cast<unsigned>(buffer_count));
    llvm::Value* end = body->getArg(static_cast<unsigned>(buffer_count + 1));
    auto store_all = [&](const IrIndex& index) {
      for (int64_t m : members) {
        const OutputLeaf& leaf = outputs[m];
        llvm::Value* value = nullptr;
        if (leaf.value < 0) {
          value = emitter.Emit(leaf.inst, index);
        } else {
          std::vector<llvm::Value*> all = emitter.EmitAll(leaf.inst, index);
          value = leaf.value < static_cast<int64_t>(all.size()) ? all[leaf.value] : nullptr;
          if (value == nullptr) return;
        }
        IrArray out(body->getArg(static_cast<unsigned>(operand_count + m)), leaf.shape);
        b.CreateStore(codegen::ToStorage(b, leaf.shape.element_type(), value), out.Address(b, index));
      }
    };
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

  Status EmitComparator(const Instruction& sort, CpuKernel* kernel) {
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

  // Every array the kernel touches (operands, results, fused and called computations)
  // must have an element type the emitter supports; say which one does not.
  Status CheckElementTypes(const Instruction& inst) {
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
        auto type = codegen::StorageType(context_, s.element_type());
        if (!type.ok()) bad = Unimplemented(inst.name() + ": " + i->name() + " is " + s.ToString(false) + ": " + type.status().message());
      });
      RETURN_IF_ERROR(bad);
    }
    return Status::Ok();
  }

  // The partial (per-row) loop of a split reduction: partials[row] = reduce of row.
  Status EmitPartials(const Instruction& inst, const CpuKernel& kernel, const Instruction& reduce,
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

  // Declares `name(void** buffers, i64 begin, i64 end)` and its always-inlined body with
  // noalias buffer parameters; returns the body.
  llvm::Function* DeclareKernel(int64_t buffer_count, const std::string& name) {
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
    for (int64_t i = 0; i < buffer_count; ++i) {
      llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), static_cast<uint64_t>(i));
      args.push_back(b.CreateLoad(ptr, slot, "buffer" + std::to_string(i)));
    }
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    b.CreateCall(body, args);
    b.CreateRetVoid();
    return body;
  }

  // Binds the kernel's operand buffers (and an output fusion's library result).
  void BindInputs(const Instruction& inst, const CpuKernel& kernel, llvm::Function* body, ElementalEmitter& emitter) {
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

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  const Instruction* split_ = nullptr;
};

Status Optimize(llvm::Module& module, llvm::TargetMachine* tm, int level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level <= 0   ? llvm::OptimizationLevel::O0
                                : level == 1 ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level <= 0 ? pb.buildO0DefaultPipeline(opt) : pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(module, mam);
  return Status::Ok();
}

StatusOr<std::string> EmitAssembly(const llvm::Module& module, llvm::TargetMachine* tm) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return Internal("the target machine cannot emit assembly");
  }
  pm.run(*clone);
  return std::string(buffer.str());
}

}  // namespace

StatusOr<std::unique_ptr<CpuCode>> CompileForCpu(const Module& module, const CpuCompileOptions& options) {
  InitializeLlvmOnce();
  if (module.entry() == nullptr) return InvalidArgument("module " + module.name() + " has no entry computation");
  auto code = std::make_unique<CpuCodeImpl>();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name(), *context);

  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return FromLlvm(jtmb.takeError(), "cannot describe the host CPU");
  jtmb->setCodeGenOptLevel(options.opt_level <= 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Default);
  auto tm = jtmb->createTargetMachine();
  if (!tm) return FromLlvm(tm.takeError(), "cannot create the target machine");
  code->target_cpu_ = (*tm)->getTargetCPU().str();
  llvm_module->setDataLayout((*tm)->createDataLayout());
  llvm_module->setTargetTriple((*tm)->getTargetTriple().str());

  KernelEmitter emitter(*llvm_module);
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& inst : comp->instructions()) {
      if (!IsCpuKernel(*inst)) continue;
      auto kernel = std::make_unique<CpuKernel>();
      Status st = emitter.Emit(*inst, kernel.get());
      if (!st.ok()) {
        std::string where = inst->location().line > 0 ? " (line " + std::to_string(inst->location().line) + ")" : "";
        return Status(st.code(), "CPU backend: " + st.message() + where);
      }
      for (const CpuLoopGroup& g : kernel->groups) code->function_to_hlo_[g.function] = inst->name();
      if (!kernel->comparator_function.empty()) code->function_to_hlo_[kernel->comparator_function] = inst->name();
      code->by_instruction_[inst.get()] = kernel.get();
      code->kernels_.push_back(std::move(kernel));
    }
  }
  code->llvm_ir_ = ToText(*llvm_module);
  {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*llvm_module, &os)) return Internal("CPU backend produced invalid LLVM IR: " + errors);
  }
  RETURN_IF_ERROR(Optimize(*llvm_module, tm->get(), options.opt_level));
  code->llvm_ir_optimized_ = ToText(*llvm_module);
  if (options.keep_assembly) {
    ASSIGN_OR_RETURN(code->assembly_, EmitAssembly(*llvm_module, tm->get()));
  }

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return FromLlvm(jit.takeError(), "cannot create the JIT");
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return FromLlvm(generator.takeError(), "cannot search the process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(llvm_module), std::move(context)))) {
    return FromLlvm(std::move(err), "cannot add the kernels to the JIT");
  }
  for (auto& kernel : code->kernels_) {
    for (CpuLoopGroup& g : kernel->groups) {
      auto symbol = (*jit)->lookup(g.function);
      if (!symbol) return FromLlvm(symbol.takeError(), "cannot find kernel " + g.function);
      g.entry = symbol->toPtr<CpuKernelFunction>();
    }
    if (!kernel->comparator_function.empty()) {
      auto symbol = (*jit)->lookup(kernel->comparator_function);
      if (!symbol) return FromLlvm(symbol.takeError(), "cannot find comparator " + kernel->comparator_function);
      kernel->comparator = symbol->toPtr<CpuComparatorFunction>();
    }
  }
  code->jit_ = std::move(*jit);
  return std::unique_ptr<CpuCode>(std::move(code));
}

}  // namespace fusebox
