#include "compiler/codegen/cpu_compiler.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
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
    // Fully unrolling nests of small constant loops (a broadcast into f32[3,3,16,32])
    // makes bodies of thousands of stores that later passes take seconds over (measured:
    // 9 s for that one kernel); the vectorizer handles innermost loops better anyway.
    // PipelineTuningOptions has no knob for it in LLVM 19, the pass's option does.
    auto& options = llvm::cl::getRegisteredOptions();
    if (auto it = options.find("unroll-full-max-count"); it != options.end()) {
      // As if given on a command line: the pass reads it only when it "occurred".
      (void)it->second->addOccurrence(1, "unroll-full-max-count", "8");
    }
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
  if (inst.opcode() == Opcode::kCustomCall) {
    return "custom-call target \"" + inst.attrs().custom_call_target +
           "\" is external code the CPU backend does not have (custom calls are not supported)";
  }
  switch (inst.opcode()) {
    case Opcode::kFft:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
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
      return "the CPU backend cannot emit " + std::string(OpcodeName(inst.opcode())) + " yet";
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

  // A dynamic-update-slice (alone, or the root of a fusion whose operand 0 is a fused
  // parameter that nothing else in the fusion reads) can write into its operand's buffer.
  static const Instruction* InPlaceUpdate(const Instruction& inst) {
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

  // In place: a parallel copy of operand 0 (skipped at run time when the result already
  // shares its buffer), then a parallel loop over the update writing only that window.
  Status EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, CpuKernel* kernel) {
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

  static bool IsScatterLike(Opcode op) { return op == Opcode::kScatter || op == Opcode::kSelectAndScatter; }

  // scatter / select-and-scatter (alone or as a fusion's root): a parallel loop writes the
  // initial result (the operands' copy, or the init value), then one serial loop applies
  // the updates in the interpreter's order, reading and writing the result buffers.
  Status EmitScatterLike(const Instruction& inst, const Instruction& root, CpuKernel* kernel) {
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
    // Group 1: the updates, serially.
    CpuLoopGroup apply;
    apply.function = kernel->name + ".apply";
    apply.extent = 1;
    apply.elements_per_iteration = 1;
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

  // for i in [begin, end) of `partition_dim`, then every inner dimension: body(index).
  void EmitPartitionedLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const Shape& shape, int64_t partition_dim,
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

  static bool Contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

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
      llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "scatter.apply", fn);
      llvm::BasicBlock* next = llvm::BasicBlock::Create(context_, "scatter.next", fn);
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
          args.push_back(codegen::ToRegister(b, t, b.CreateLoad(*codegen::StorageType(context_, t), address)));
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

  void EmitSelectAndScatterUpdates(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                   const IrArray& result) {
    const Computation* select = sas.called_computation(0);
    const Computation* scatter = sas.called_computation(1);
    const Shape& in = sas.operand(0)->shape();
    const Shape& source = sas.operand(1)->shape();
    const Window& window = *sas.attrs().window;
    const int64_t rank = in.rank();
    llvm::Type* i64 = b.getInt64Ty();
    std::vector<llvm::AllocaInst*> selected;
    for (int64_t d = 0; d < rank; ++d) selected.push_back(emitter.EntryAlloca(i64, "selected"));
    llvm::AllocaInst* has = emitter.EntryAlloca(b.getInt1Ty(), "has_selection");
    std::vector<int64_t> source_bounds(source.dimensions().begin(), source.dimensions().end()), order;
    for (int64_t d = 0; d < rank; ++d) order.push_back(d);
    emitter.EmitLoopNest(source_bounds, order, "source", [&](const IrIndex& s) {
      b.CreateStore(b.getFalse(), has);
      std::vector<int64_t> window_bounds;
      for (int64_t d = 0; d < rank; ++d) window_bounds.push_back(window.dimensions[d].size);
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
        llvm::BasicBlock* tap = llvm::BasicBlock::Create(context_, "tap.inside", fn);
        llvm::BasicBlock* first = llvm::BasicBlock::Create(context_, "tap.first", fn);
        llvm::BasicBlock* compare = llvm::BasicBlock::Create(context_, "tap.compare", fn);
        llvm::BasicBlock* take = llvm::BasicBlock::Create(context_, "tap.take", fn);
        llvm::BasicBlock* next = llvm::BasicBlock::Create(context_, "tap.next", fn);
        b.CreateCondBr(inside, tap, next);
        b.SetInsertPoint(tap);
        b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), has), compare, first);
        b.SetInsertPoint(first);
        b.CreateBr(take);
        b.SetInsertPoint(compare);
        IrIndex current(rank);
        for (int64_t d = 0; d < rank; ++d) current[d] = b.CreateLoad(i64, selected[d]);
        llvm::Value* a = emitter.Emit(sas.operand(0), current);
        llvm::Value* c = emitter.Emit(sas.operand(0), pos);
        std::vector<llvm::Value*> keep = emitter.EmitScalarComputation(*select, {a, c});
        llvm::Value* keep_value = keep.empty() ? b.getTrue() : keep[0];
        b.CreateCondBr(keep_value, next, take);
        b.SetInsertPoint(take);
        for (int64_t d = 0; d < rank; ++d) b.CreateStore(pos[d], selected[d]);
        b.CreateStore(b.getTrue(), has);
        b.CreateBr(next);
        b.SetInsertPoint(next);
      });
      llvm::Function* fn = b.GetInsertBlock()->getParent();
      llvm::BasicBlock* apply = llvm::BasicBlock::Create(context_, "scatter.apply", fn);
      llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "scatter.done", fn);
      b.CreateCondBr(b.CreateLoad(b.getInt1Ty(), has), apply, done);
      b.SetInsertPoint(apply);
      IrIndex at(rank);
      for (int64_t d = 0; d < rank; ++d) at[d] = b.CreateLoad(i64, selected[d]);
      PrimitiveType t = result.shape().element_type();
      llvm::Value* address = result.Address(b, at);
      llvm::Value* current = codegen::ToRegister(b, t, b.CreateLoad(*codegen::StorageType(context_, t), address));
      llvm::Value* src = emitter.Emit(sas.operand(1), s);
      std::vector<llvm::Value*> combined = emitter.EmitScalarComputation(*scatter, {src, current});
      if (!combined.empty()) b.CreateStore(codegen::ToStorage(b, t, combined[0]), address);
      b.CreateBr(done);
      b.SetInsertPoint(done);
    });
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
        // "line:col: CPU backend: ..." (the CLI puts the file in front, as parse errors read).
        const SourceLocation& at = inst->location();
        std::string where = at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "";
        return Status(st.code(), where + "CPU backend: " + st.message());
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
