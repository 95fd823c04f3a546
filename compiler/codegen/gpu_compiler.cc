#include "compiler/codegen/gpu_compiler.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/codegen/gpu_emulator_internal.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/collectives.h"
#include "compiler/passes/row_fusion.h"
#include "compiler/passes/kernel_count.h"

namespace fusebox {

bool IsGpuKernel(const Instruction& inst) { return IsKernel(inst); }

const std::vector<std::string>& SupportedGpuArchs() {
  static const std::vector<std::string> archs = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};
  return archs;
}

namespace {

using namespace codegen;  // NOLINT: the shared kernel helpers

constexpr int64_t kBlock = 256;        // threads per block of most kernels
constexpr int64_t kWarp = 32;
constexpr int64_t kTile = 32;          // transpose tile
constexpr int64_t kDotTile = 16;       // dot tile (16x16 threads, 16-wide K slices)
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void InitializeNvptxOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

class GpuCodeImpl : public GpuCode {
 public:
  const GpuKernel* KernelFor(const Instruction* inst) const override {
    auto it = by_instruction_.find(inst);
    return it == by_instruction_.end() ? nullptr : it->second;
  }
  const std::vector<std::unique_ptr<GpuKernel>>& kernels() const override { return kernels_; }
  const std::string& llvm_ir() const override { return llvm_ir_; }
  const std::string& llvm_ir_optimized() const override { return llvm_ir_optimized_; }
  const std::string& ptx() const override { return ptx_; }
  const std::string& arch() const override { return arch_; }
  const std::map<std::string, std::string>& function_to_hlo() const override { return function_to_hlo_; }

  std::vector<std::unique_ptr<GpuKernel>> kernels_;
  std::unordered_map<const Instruction*, GpuKernel*> by_instruction_;
  std::string llvm_ir_, llvm_ir_optimized_, ptx_, arch_;
  std::map<std::string, std::string> function_to_hlo_;
};

// The reduces a reduction kernel is built around ("heroes", as XLA calls them): every
// reduce of the fusion, all over operands of one shape and the same dimensions, none
// feeding another, and every output of the kernel shaped like their result.
struct ReductionInfo {
  std::vector<const Instruction*> heroes;
  Shape operand;
  std::vector<int64_t> reduced, kept;  // operand dimensions
  int64_t outputs = 1;                 // elements of the reduce result
  int64_t length = 1;                  // elements reduced into each
  bool row = true;                     // the operand's minor dimension is reduced
};

bool DependsOn(const Instruction* from, const Instruction* target, std::unordered_set<const Instruction*>& seen) {
  if (from == target) return true;
  if (!seen.insert(from).second) return false;
  for (const Instruction* op : from->operands()) {
    if (DependsOn(op, target, seen)) return true;
  }
  return false;
}

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
  for (const OutputLeaf& leaf : outputs) {
    if (!leaf.shape.IsArray()) return std::nullopt;
    std::vector<int64_t> kept_dims;
    for (int64_t d : info.kept) kept_dims.push_back(info.operand.dimensions(d));
    if (leaf.shape.dimensions() != kept_dims) return std::nullopt;
  }
  info.row = true;
  for (int64_t d = info.operand.rank() - 1; d >= 0; --d) {
    if (info.operand.dimensions(d) > 1) {
      info.row = Contains(info.reduced, d);
      break;
    }
  }
  return info;
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

class GpuKernelEmitter {
 public:
  // `emulate`: kernels for the host CPU run by the GPU emulator (gpu_emulator.h): thread
  // ids, barriers and shuffles become calls into it, shared memory is ordinary memory.
  GpuKernelEmitter(llvm::Module& module, const GpuCompileOptions& options, bool emulate)
      : module_(module), context_(module.getContext()), options_(options), emulate_(emulate) {}

  // For the emulator: `<entry>_emu(ptr args)` calling each entry with its arguments read
  // from args[i] (a buffer pointer, or a pointer to an i64 scalar).
  void EmitEmulatorWrappers() {
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

  Status Emit(const Instruction& inst, GpuKernel* kernel) {
    kernel->hlo = &inst;
    kernel->name = EntryBaseName(inst.name());
    ASSIGN_OR_RETURN(KernelFacts facts, DescribeKernel(context_, inst, "GPU backend"));
    kernel->kind_name = facts.kind_name;
    kernel->bytes_read = facts.bytes_read;
    kernel->bytes_written = facts.bytes_written;
    kernel->flops = facts.flops;
    if (inst.opcode() == Opcode::kFusion) {
      const Computation* fused = inst.fused_computation();
      if (fused == nullptr) return InvalidArgument(inst.name() + ": fusion without a fused computation");
      for (const auto& i : fused->instructions()) {
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
    if (const Instruction* dus = InPlaceUpdate(inst); dus != nullptr) return EmitInPlaceUpdate(inst, *dus, kernel);

    std::vector<OutputLeaf> outputs = KernelOutputs(inst);
    for (const OutputLeaf& leaf : outputs) {
      if (!leaf.shape.IsArray()) return Unimplemented(inst.name() + ": nested tuple results are not supported");
    }
    if (std::optional<RowPlan> rows = PlanRowKernel(inst); rows) {
      kernel->kind_name = "reduction(row kernel)";
      return EmitRowKernel(inst, *rows, outputs, kernel);
    }
    if (std::optional<ReductionInfo> reduction = AnalyzeReduction(inst, outputs); reduction) {
      kernel->kind_name = reduction->row ? (reduction->kept.empty() ? "reduction(full)" : "reduction(row)")
                                         : "reduction(column)";
      return EmitReduction(inst, *reduction, outputs, kernel);
    }
    if (const Instruction* dot = TileableDot(inst); dot != nullptr) {
      kernel->kind_name = "dot(tiled)";
      return EmitTiledDot(inst, *dot, kernel);
    }
    if (const Instruction* transpose = TileableTranspose(inst, outputs); transpose != nullptr) {
      kernel->kind_name = "transpose(tiled)";
      return EmitTiledTranspose(inst, *transpose, kernel);
    }
    return EmitLoops(inst, outputs, kernel);
  }

 private:
  static bool IsScatterLike(Opcode op) { return op == Opcode::kScatter || op == Opcode::kSelectAndScatter; }

  // PTX identifiers take letters, digits, '_' and '$': "fusion.2" -> "fusion_2", made
  // unique in the module; entries are this plus "_kernel", "_partials", ...
  std::string EntryBaseName(const std::string& hlo_name) {
    std::string base;
    for (char c : hlo_name) base += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "k_" + base;
    std::string name = base;
    for (int n = 2; !used_names_.insert(name).second; ++n) name = base + "_" + std::to_string(n);
    return name;
  }

  // --- Kernel entries -------------------------------------------------------------

  // One kernel entry being emitted: the function, a builder and an elemental emitter with
  // the kernel's inputs bound.
  struct Entry {
    llvm::Function* fn = nullptr;
    std::unique_ptr<llvm::IRBuilder<>> b;
    std::unique_ptr<ElementalEmitter> emitter;
    int64_t buffer_count = 0;
    llvm::Value* buffer(int64_t i) const { return fn->getArg(static_cast<unsigned>(i)); }
    llvm::Value* scalar(int64_t i) const { return fn->getArg(static_cast<unsigned>(buffer_count + i)); }
  };

  // Declares `name(ptr buffers..., i64 scalars...)` as a kernel (PTX .entry) with
  // `block_threads` as its maximum block size, and binds the kernel's inputs.
  Entry BeginEntry(const Instruction& inst, const std::string& name, int64_t buffer_count, int64_t scalars,
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

  Status EndEntry(Entry& e) {
    e.b->CreateRetVoid();
    return e.emitter->status();
  }

  // A special register (thread or block index), as i64. `which` numbers them for the
  // emulator: 0 tid.x, 1 ctaid.x, 2 ctaid.y, 3 ctaid.z.
  llvm::Value* Special(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, int which) {
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
  llvm::Value* ThreadX(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, 0); }
  llvm::Value* BlockX(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, 1); }
  llvm::Value* BlockY(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, 2); }
  llvm::Value* BlockZ(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, 3); }
  void Barrier(llvm::IRBuilder<>& b) {
    if (emulate_) {
      b.CreateCall(module_.getOrInsertFunction("fusebox_gpu_emu_barrier", llvm::FunctionType::get(b.getVoidTy(), false)));
      return;
    }
    b.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_barrier0));
  }

  // The global thread id of a 1-D launch.
  llvm::Value* GlobalThread(llvm::IRBuilder<>& b, int64_t block) {
    return b.CreateAdd(b.CreateMul(BlockX(b), b.getInt64(block)), ThreadX(b));
  }

  // Runs `body` when `condition` holds. Values cached inside stay inside.
  void If(Entry& e, llvm::Value* condition, const std::string& name, const std::function<void()>& body) {
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

  // Row-major multi-index of `linear` over `dims`, in 32-bit arithmetic when the space
  // fits (64-bit division is a long instruction sequence on GPUs).
  IrIndex Delinearize(llvm::IRBuilder<>& b, llvm::Value* linear, const std::vector<int64_t>& dims) {
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

  // How many of begin, begin + stride, ... lie below `end` (0 unless `active`): the trip
  // count of a thread's strided loop.
  static llvm::Value* StridedCount(llvm::IRBuilder<>& b, llvm::Value* active, llvm::Value* begin, llvm::Value* end,
                                   int64_t stride) {
    llvm::Value* span = b.CreateAdd(b.CreateSub(end, begin), b.getInt64(stride - 1));
    return b.CreateSelect(b.CreateAnd(active, b.CreateICmpULT(begin, end)), b.CreateUDiv(span, b.getInt64(stride)),
                          b.getInt64(0));
  }

  // A `for (i = 0; i < count; ++i)` loop with the emitter's scoping.
  void Loop(Entry& e, llvm::Value* count, const std::string& name, const std::function<void(llvm::Value*)>& body) {
    e.emitter->EmitLoop(e.b->getInt64(0), count, name, body);
  }

  // Stores every output of `members` at `index`.
  void StoreOutputs(Entry& e, const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                    const std::vector<int64_t>& members, const IrIndex& index) {
    llvm::IRBuilder<>& b = *e.b;
    for (int64_t m : members) {
      const OutputLeaf& leaf = outputs[static_cast<size_t>(m)];
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

  static GpuLaunch Launch1D(const std::string& function, int64_t threads, int64_t block = kBlock) {
    GpuLaunch launch;
    launch.function = function;
    const int64_t b = std::min(block, std::max<int64_t>(kWarp, CeilDiv(threads, kWarp) * kWarp));
    launch.block = {b, 1, 1};
    launch.grid = {std::max<int64_t>(1, CeilDiv(threads, b)), 1, 1};
    return launch;
  }

  // --- Elementwise / generic loops ---------------------------------------------------

  // A loop kernel over `space`: thread t computes `per_thread` consecutive elements of the
  // minor dimension (when it divides), so that loads of same-shaped operands are
  // contiguous and 16-byte aligned and LLVM merges them into vector loads.
  Status EmitSpaceLoop(const Instruction& inst, GpuKernel* kernel, const std::string& name, const Shape& space,
                       int64_t buffer_count, int64_t skip_if_aliased,
                       const std::function<void(Entry&, const IrIndex&)>& body) {
    const int64_t n = space.ElementCount();
    if (n == 0) return Status::Ok();
    const int64_t rank = space.rank();
    int64_t per_thread = std::max(1, options_.elements_per_thread);
    if (rank == 0 || space.dimensions(rank - 1) % per_thread != 0 || n < per_thread * kWarp) per_thread = 1;
    std::vector<int64_t> dims(space.dimensions().begin(), space.dimensions().end());
    if (rank > 0) dims.back() /= per_thread;
    const int64_t threads = n / per_thread;
    GpuLaunch launch = Launch1D(name, threads);
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

  Status EmitLoops(const Instruction& inst, const std::vector<OutputLeaf>& outputs, GpuKernel* kernel) {
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
    for (size_t g = 0; g < groups.size(); ++g) {
      const std::string name = kernel->name + (groups.size() == 1 ? std::string("_kernel") : "_kernel" + std::to_string(g));
      const Shape& space = outputs[static_cast<size_t>(groups[g][0])].shape;
      RETURN_IF_ERROR(EmitSpaceLoop(inst, kernel, name, space, buffer_count, -1, [&](Entry& e, const IrIndex& index) {
        StoreOutputs(e, inst, outputs, groups[g], index);
      }));
    }
    return Status::Ok();
  }

  // --- In-place dynamic-update-slice ----------------------------------------------------

  Status EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, GpuKernel* kernel) {
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

  // --- scatter / select-and-scatter -------------------------------------------------------

  // The initial result in parallel, then the updates in one thread, in the interpreter's
  // order (updates to one element may collide; a serial pass keeps results exact).
  Status EmitScatterLike(const Instruction& inst, const Instruction& root, GpuKernel* kernel) {
    const bool is_scatter = root.opcode() == Opcode::kScatter;
    ASSIGN_OR_RETURN(const std::vector<Shape> outs, ScatterLikeResults(inst, root));
    const int64_t n = static_cast<int64_t>(outs.size());
    kernel->kind_name = std::string(OpcodeName(root.opcode())) + "(serial updates)";
    const int64_t operand_count = inst.operand_count();
    const int64_t buffer_count = operand_count + n;
    RETURN_IF_ERROR(EmitSpaceLoop(inst, kernel, kernel->name + "_init", outs[0], buffer_count, -1,
                                  [&](Entry& e, const IrIndex& index) {
                                    for (int64_t i = 0; i < n; ++i) {
                                      llvm::Value* v = is_scatter ? e.emitter->Emit(root.operand(i), index)
                                                                  : e.emitter->Emit(root.operand(2), {});
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
    if (is_scatter) {
      EmitScatterUpdates(root, *e.emitter, *e.b, results);
    } else {
      EmitSelectAndScatterUpdates(root, *e.emitter, *e.b, results[0]);
    }
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(apply);
    return Status::Ok();
  }

  // --- Sort: a bitonic network ----------------------------------------------------------

  // Copies the operands into the results and numbers the elements along the sort
  // dimension (the stable tie-break), then one launch per compare-exchange step of a
  // bitonic network over the next power of two; partners past the end are skipped, which
  // sorts any length when each merge starts with the "flip" step.
  Status EmitSort(const Instruction& sort, GpuKernel* kernel) {
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

  // --- Reductions -----------------------------------------------------------------------

  // The running value of a reduction in one thread: per hero, its values; and whether any
  // element has been folded in yet (the init value is applied once, at the end, so any
  // associative reducer works, identity init or not).
  struct Accumulator {
    std::vector<std::vector<llvm::AllocaInst*>> values;
    llvm::AllocaInst* valid = nullptr;
  };

  // Flattened register types of all hero values.
  std::vector<llvm::Type*> ValueTypes(const ReductionInfo& info) {
    std::vector<llvm::Type*> types;
    for (const Instruction* hero : info.heroes) {
      const int64_t n = hero->operand_count() / 2;
      for (int64_t k = 0; k < n; ++k) types.push_back(*RegisterType(context_, hero->operand(n + k)->shape().element_type()));
    }
    return types;
  }

  Accumulator MakeAccumulator(Entry& e, const ReductionInfo& info) {
    Accumulator acc;
    llvm::IRBuilder<>& b = *e.b;
    for (const Instruction* hero : info.heroes) {
      const int64_t n = hero->operand_count() / 2;
      std::vector<llvm::AllocaInst*> slots;
      for (int64_t k = 0; k < n; ++k) {
        llvm::Value* init = e.emitter->Emit(hero->operand(n + k), {});
        llvm::AllocaInst* slot = e.emitter->EntryAlloca(init->getType(), hero->name() + ".acc");
        b.CreateStore(init, slot);
        slots.push_back(slot);
      }
      acc.values.push_back(slots);
    }
    acc.valid = e.emitter->EntryAlloca(b.getInt1Ty(), "acc.valid");
    b.CreateStore(b.getFalse(), acc.valid);
    return acc;
  }

  std::vector<llvm::Value*> Load(Entry& e, const Accumulator& acc) {
    std::vector<llvm::Value*> flat;
    for (const auto& slots : acc.values) {
      for (llvm::AllocaInst* slot : slots) flat.push_back(e.b->CreateLoad(slot->getAllocatedType(), slot));
    }
    return flat;
  }

  // Folds `values` (flattened, one per hero value), valid when `valid`, into `acc`.
  void Fold(Entry& e, const ReductionInfo& info, const Accumulator& acc, const std::vector<llvm::Value*>& values,
            llvm::Value* valid) {
    llvm::IRBuilder<>& b = *e.b;
    llvm::Value* had = b.CreateLoad(b.getInt1Ty(), acc.valid);
    std::vector<llvm::Value*> current = Load(e, acc);
    size_t flat = 0;
    for (size_t h = 0; h < info.heroes.size(); ++h) {
      const Instruction* hero = info.heroes[h];
      const size_t n = acc.values[h].size();
      std::vector<llvm::Value*> args(current.begin() + static_cast<std::ptrdiff_t>(flat),
                                     current.begin() + static_cast<std::ptrdiff_t>(flat + n));
      args.insert(args.end(), values.begin() + static_cast<std::ptrdiff_t>(flat),
                  values.begin() + static_cast<std::ptrdiff_t>(flat + n));
      std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), args);
      for (size_t k = 0; k < n && k < combined.size(); ++k) {
        llvm::Value* next = b.CreateSelect(had, combined[k], values[flat + k]);
        next = b.CreateSelect(valid, next, current[flat + k]);
        b.CreateStore(next, acc.values[h][k]);
      }
      flat += n;
    }
    b.CreateStore(b.CreateOr(had, valid), acc.valid);
  }

  // Moves `v` down `offset` lanes of the warp, any register type.
  llvm::Value* ShuffleDown(llvm::IRBuilder<>& b, llvm::Value* v, int64_t offset) {
    llvm::Type* t = v->getType();
    if (auto* st = llvm::dyn_cast<llvm::StructType>(t)) {
      llvm::Value* out = llvm::PoisonValue::get(st);
      for (unsigned i = 0; i < st->getNumElements(); ++i) {
        out = b.CreateInsertValue(out, ShuffleDown(b, b.CreateExtractValue(v, {i}), offset), {i});
      }
      return out;
    }
    const unsigned bits = static_cast<unsigned>(t->getPrimitiveSizeInBits());
    auto shuffle32 = [&](llvm::Value* x) -> llvm::Value* {
      if (emulate_) {
        llvm::FunctionCallee f = module_.getOrInsertFunction(
            "fusebox_gpu_emu_shfl_down", llvm::FunctionType::get(b.getInt32Ty(), {b.getInt32Ty(), b.getInt32Ty()}, false));
        return b.CreateCall(f, {x, b.getInt32(static_cast<uint32_t>(offset))});
      }
      llvm::Function* shfl = llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::nvvm_shfl_sync_down_i32);
      return b.CreateCall(shfl, {b.getInt32(0xffffffffu), x, b.getInt32(static_cast<uint32_t>(offset)), b.getInt32(31)});
    };
    llvm::Type* int_type = b.getIntNTy(bits);
    llvm::Value* as_int = t->isIntegerTy() ? v : b.CreateBitCast(v, int_type);
    llvm::Value* moved = nullptr;
    if (bits <= 32) {
      moved = b.CreateTrunc(shuffle32(b.CreateZExt(as_int, b.getInt32Ty())), int_type);
    } else {
      llvm::Value* wide = b.CreateZExt(as_int, b.getInt64Ty());
      llvm::Value* lo = shuffle32(b.CreateTrunc(wide, b.getInt32Ty()));
      llvm::Value* hi = shuffle32(b.CreateTrunc(b.CreateLShr(wide, 32), b.getInt32Ty()));
      llvm::Value* joined = b.CreateOr(b.CreateZExt(lo, b.getInt64Ty()), b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), 32));
      moved = b.CreateTrunc(joined, int_type);
    }
    return t->isIntegerTy() ? moved : b.CreateBitCast(moved, t);
  }

  // Tree reduction across the warp's lanes by shuffles (lane 0 ends with the result of
  // lanes [0, width)).
  void WarpReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t width) {
    llvm::IRBuilder<>& b = *e.b;
    for (int64_t offset = width / 2; offset >= 1; offset /= 2) {
      std::vector<llvm::Value*> mine = Load(e, acc);
      std::vector<llvm::Value*> theirs;
      for (llvm::Value* v : mine) theirs.push_back(ShuffleDown(b, v, offset));
      llvm::Value* their_valid = ShuffleDown(b, b.CreateLoad(b.getInt1Ty(), acc.valid), offset);
      Fold(e, info, acc, theirs, their_valid);
    }
  }

  llvm::GlobalVariable* SharedArray(llvm::Type* element, int64_t count, const std::string& name) {
    llvm::Type* type = element->isIntegerTy(1) ? llvm::Type::getInt8Ty(context_) : element;
    auto* array = llvm::ArrayType::get(type, static_cast<uint64_t>(count));
    auto* g = new llvm::GlobalVariable(module_, array, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::UndefValue::get(array), name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, emulate_ ? 0 : 3);
    g->setAlignment(llvm::Align(16));
    return g;
  }

  void StoreShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Value* v) {
    llvm::Type* element = array->getValueType()->getArrayElementType();
    llvm::Value* address = b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), slot});
    b.CreateStore(v->getType()->isIntegerTy(1) ? b.CreateZExt(v, element) : v, address);
  }

  llvm::Value* LoadShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Type* type) {
    llvm::Type* element = array->getValueType()->getArrayElementType();
    llvm::Value* address = b.CreateInBoundsGEP(array->getValueType(), array, {b.getInt64(0), slot});
    llvm::Value* v = b.CreateLoad(element, address);
    return type->isIntegerTy(1) ? b.CreateICmpNE(v, llvm::ConstantInt::get(element, 0)) : v;
  }

  // The reduction of a group of `group` threads (lanes `lane`, `groups` groups per block):
  // shuffles within warps, then shared memory across the group's warps. Lane 0 of the
  // group ends with the result. Every thread of the block must call this (it has a barrier).
  void GroupReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t group, int64_t groups,
                   llvm::Value* group_in_block, llvm::Value* lane, const std::string& name) {
    llvm::IRBuilder<>& b = *e.b;
    WarpReduce(e, info, acc, std::min(group, kWarp));
    if (group <= kWarp) return;
    const int64_t warps = group / kWarp;
    std::vector<llvm::Type*> types = ValueTypes(info);
    std::vector<llvm::GlobalVariable*> shared;
    for (size_t v = 0; v < types.size(); ++v) shared.push_back(SharedArray(types[v], warps * groups, name + "_smem" + std::to_string(v)));
    llvm::GlobalVariable* shared_valid = SharedArray(b.getInt1Ty(), warps * groups, name + "_smem_valid");
    llvm::Value* warp = b.CreateUDiv(lane, b.getInt64(kWarp));
    llvm::Value* slot = b.CreateAdd(b.CreateMul(group_in_block, b.getInt64(warps)), warp);
    If(e, b.CreateICmpEQ(b.CreateURem(lane, b.getInt64(kWarp)), b.getInt64(0)), "warp_leader", [&] {
      std::vector<llvm::Value*> values = Load(e, acc);
      for (size_t v = 0; v < values.size(); ++v) StoreShared(b, shared[v], slot, values[v]);
      StoreShared(b, shared_valid, slot, b.CreateLoad(b.getInt1Ty(), acc.valid));
    });
    Barrier(b);
    // The first warp of the group folds the warps' results.
    llvm::Value* reads = b.CreateICmpULT(lane, b.getInt64(warps));
    llvm::Value* from = b.CreateAdd(b.CreateMul(group_in_block, b.getInt64(warps)), b.CreateSelect(reads, lane, b.getInt64(0)));
    b.CreateStore(b.getFalse(), acc.valid);
    If(e, reads, "gather_warps", [&] {
      std::vector<llvm::Value*> values;
      for (size_t v = 0; v < types.size(); ++v) values.push_back(LoadShared(b, shared[v], from, types[v]));
      Fold(e, info, acc, values, LoadShared(b, shared_valid, from, b.getInt1Ty()));
    });
    WarpReduce(e, info, acc, warps);
  }

  // Index of the heroes' operand for output element `o` (over the kept dimensions) and
  // reduced element `r` (over the reduced dimensions).
  IrIndex OperandIndex(llvm::IRBuilder<>& b, const ReductionInfo& info, const IrIndex& kept, llvm::Value* r) {
    std::vector<int64_t> reduced_dims;
    for (int64_t d : info.reduced) reduced_dims.push_back(info.operand.dimensions(d));
    IrIndex reduced = Delinearize(b, r, reduced_dims);
    IrIndex index(static_cast<size_t>(info.operand.rank()), b.getInt64(0));
    for (size_t k = 0; k < info.kept.size(); ++k) index[static_cast<size_t>(info.kept[k])] = kept[k];
    for (size_t k = 0; k < info.reduced.size(); ++k) index[static_cast<size_t>(info.reduced[k])] = reduced[k];
    return index;
  }

  std::vector<int64_t> OutputDims(const ReductionInfo& info) {
    std::vector<int64_t> dims;
    for (int64_t d : info.kept) dims.push_back(info.operand.dimensions(d));
    return dims;
  }

  // The heroes' operand values at `index`, flattened.
  std::vector<llvm::Value*> HeroInputs(Entry& e, const ReductionInfo& info, const IrIndex& index) {
    std::vector<llvm::Value*> values;
    for (const Instruction* hero : info.heroes) {
      const int64_t n = hero->operand_count() / 2;
      for (int64_t k = 0; k < n; ++k) values.push_back(e.emitter->Emit(hero->operand(k), index));
    }
    return values;
  }

  // Applies the init values, binds the heroes' results and stores every output at `o`.
  void FinishOutputs(Entry& e, const Instruction& inst, const ReductionInfo& info, const Accumulator& acc,
                     const std::vector<OutputLeaf>& outputs, llvm::Value* o) {
    llvm::IRBuilder<>& b = *e.b;
    llvm::Value* valid = b.CreateLoad(b.getInt1Ty(), acc.valid);
    std::vector<llvm::Value*> current = Load(e, acc);
    size_t flat = 0;
    for (size_t h = 0; h < info.heroes.size(); ++h) {
      const Instruction* hero = info.heroes[h];
      const int64_t n = hero->operand_count() / 2;
      std::vector<llvm::Value*> args, inits;
      for (int64_t k = 0; k < n; ++k) inits.push_back(e.emitter->Emit(hero->operand(n + k), {}));
      args = inits;
      args.insert(args.end(), current.begin() + static_cast<std::ptrdiff_t>(flat),
                  current.begin() + static_cast<std::ptrdiff_t>(flat + static_cast<size_t>(n)));
      std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), args);
      std::vector<llvm::Value*> result;
      for (int64_t k = 0; k < n && k < static_cast<int64_t>(combined.size()); ++k) {
        const PrimitiveType type = hero->operand(n + k)->shape().element_type();
        result.push_back(e.emitter->Round(
            type, b.CreateSelect(valid, combined[static_cast<size_t>(k)], inits[static_cast<size_t>(k)])));
      }
      e.emitter->BindValues(hero, result);
      flat += static_cast<size_t>(n);
    }
    std::vector<int64_t> members;
    for (int64_t m = 0; m < static_cast<int64_t>(outputs.size()); ++m) members.push_back(m);
    StoreOutputs(e, inst, outputs, members, Delinearize(b, o, OutputDims(info)));
    for (const Instruction* hero : info.heroes) e.emitter->Unbind(hero);
  }

  // Byte offsets of each flattened value's partials array (and of the valid bytes) in
  // scratch, `rows` entries each.
  std::vector<int64_t> PartialOffsets(const ReductionInfo& info, int64_t rows, int64_t* total) {
    const llvm::DataLayout& layout = module_.getDataLayout();
    std::vector<int64_t> offsets;
    int64_t at = 0;
    for (llvm::Type* t : ValueTypes(info)) {
      offsets.push_back(at);
      const int64_t size = static_cast<int64_t>(layout.getTypeAllocSize(t->isIntegerTy(1) ? llvm::Type::getInt8Ty(context_) : t));
      at += CeilDiv(size * rows, 16) * 16;
    }
    offsets.push_back(at);  // valid flags, one byte each
    at += CeilDiv(rows, 16) * 16;
    *total = at;
    return offsets;
  }

  llvm::Value* PartialAddress(llvm::IRBuilder<>& b, llvm::Value* scratch, int64_t offset, llvm::Type* t, llvm::Value* row) {
    llvm::Type* stored = t->isIntegerTy(1) ? b.getInt8Ty() : t;
    llvm::Value* base = b.CreateInBoundsGEP(b.getInt8Ty(), scratch, b.getInt64(offset));
    return b.CreateInBoundsGEP(stored, base, row);
  }

  Status EmitReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                       GpuKernel* kernel) {
    const int64_t operand_count = inst.operand_count();
    const int64_t n_outputs = static_cast<int64_t>(outputs.size());
    if (info.outputs == 0) return Status::Ok();
    if (!info.row) return EmitColumnReduction(inst, info, outputs, kernel);
    // Few outputs over long rows (a full reduction): split each row over `splits` blocks
    // writing partials, then fold the partials per output.
    int64_t splits = 1;
    if (info.outputs < 2048 && info.length >= 16384) {
      splits = std::min(CeilDiv(info.length, 4096), std::max<int64_t>(1, 4096 / info.outputs));
    }
    const std::vector<llvm::Type*> types = ValueTypes(info);
    const bool split = splits > 1;
    int64_t scratch_bytes = 0;
    std::vector<int64_t> offsets;
    if (split) {
      offsets = PartialOffsets(info, info.outputs * splits, &scratch_bytes);
      kernel->scratch_bytes = scratch_bytes;
    }
    const int64_t buffer_count = operand_count + n_outputs + (split ? 1 : 0);
    if (split) {
      // Phase 1: block (o, g) folds its chunk of row o into partials[o * splits + g].
      const int64_t chunk = CeilDiv(info.length, splits);
      GpuLaunch launch;
      launch.function = kernel->name + "_partials";
      launch.block = {kBlock, 1, 1};
      launch.grid = {info.outputs * splits, 1, 1};
      Entry e = BeginEntry(inst, launch.function, buffer_count, 0, kBlock);
      llvm::IRBuilder<>& b = *e.b;
      llvm::Value* row = BlockX(b);
      llvm::Value* lane = ThreadX(b);
      llvm::Value* o = b.CreateUDiv(row, b.getInt64(splits));
      llvm::Value* g = b.CreateURem(row, b.getInt64(splits));
      Accumulator acc = MakeAccumulator(e, info);
      IrIndex kept = Delinearize(b, o, OutputDims(info));
      llvm::Value* begin = b.CreateAdd(b.CreateMul(g, b.getInt64(chunk)), lane);
      llvm::Value* end = b.CreateMul(b.CreateAdd(g, b.getInt64(1)), b.getInt64(chunk));
      end = b.CreateSelect(b.CreateICmpULT(end, b.getInt64(info.length)), end, b.getInt64(info.length));
      llvm::Value* count = StridedCount(b, b.getTrue(), begin, end, kBlock);
      Loop(e, count, "r", [&](llvm::Value* i) {
        llvm::Value* r = b.CreateAdd(begin, b.CreateMul(i, b.getInt64(kBlock)));
        Fold(e, info, acc, HeroInputs(e, info, OperandIndex(b, info, kept, r)), b.getTrue());
      });
      GroupReduce(e, info, acc, kBlock, 1, b.getInt64(0), lane, launch.function);
      llvm::Value* scratch = e.buffer(buffer_count - 1);
      If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "write_partial", [&] {
        std::vector<llvm::Value*> values = Load(e, acc);
        for (size_t v = 0; v < values.size(); ++v) {
          llvm::Value* x = values[v];
          if (x->getType()->isIntegerTy(1)) x = b.CreateZExt(x, b.getInt8Ty());
          b.CreateStore(x, PartialAddress(b, scratch, offsets[v], types[v], row));
        }
        b.CreateStore(b.CreateZExt(b.CreateLoad(b.getInt1Ty(), acc.valid), b.getInt8Ty()),
                      PartialAddress(b, scratch, offsets.back(), b.getInt1Ty(), row));
      });
      RETURN_IF_ERROR(EndEntry(e));
      kernel->launches.push_back(launch);
    }
    // The kernel proper: a group of threads per output folds its row (or its partials).
    const int64_t length = split ? splits : info.length;
    GpuLaunch launch;
    ASSIGN_OR_RETURN(RowGroups rg, BeginRowGroups(inst, kernel->name + "_kernel", buffer_count, info.outputs, length, &launch));
    Entry& e = rg.e;
    llvm::IRBuilder<>& b = *e.b;
    const int64_t group = rg.group, groups = rg.groups;
    llvm::Value *group_in_block = rg.group_in_block, *lane = rg.lane, *active = rg.active, *o = rg.o;
    Accumulator acc = MakeAccumulator(e, info);
    llvm::Value* count = StridedCount(b, active, lane, b.getInt64(length), group);
    IrIndex kept = Delinearize(b, o, OutputDims(info));
    Loop(e, count, "r", [&](llvm::Value* i) {
      llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
      if (!split) {
        Fold(e, info, acc, HeroInputs(e, info, OperandIndex(b, info, kept, r)), b.getTrue());
        return;
      }
      llvm::Value* scratch = e.buffer(buffer_count - 1);
      llvm::Value* row = b.CreateAdd(b.CreateMul(o, b.getInt64(splits)), r);
      std::vector<llvm::Value*> values;
      for (size_t v = 0; v < types.size(); ++v) {
        llvm::Type* stored = types[v]->isIntegerTy(1) ? b.getInt8Ty() : types[v];
        llvm::Value* x = b.CreateLoad(stored, PartialAddress(b, scratch, offsets[v], types[v], row));
        values.push_back(types[v]->isIntegerTy(1) ? b.CreateICmpNE(x, b.getInt8(0)) : x);
      }
      llvm::Value* valid = b.CreateICmpNE(b.CreateLoad(b.getInt8Ty(), PartialAddress(b, scratch, offsets.back(), b.getInt1Ty(), row)),
                                          b.getInt8(0));
      Fold(e, info, acc, values, valid);
    });
    GroupReduce(e, info, acc, group, groups, group_in_block, lane, launch.function);
    If(e, b.CreateAnd(active, b.CreateICmpEQ(lane, b.getInt64(0))), "write", [&] {
      FinishOutputs(e, inst, info, acc, outputs, o);
    });
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }

  // A launch with a group of threads per row of `length` elements (a block of kBlock for
  // rows of 1024 or more, else a warp), `rows` rows: the entry, and per thread its group
  // in the block, its lane, its row `o` (0 for the threads past the last row) and whether
  // that row exists (`active`).
  struct RowGroups {
    Entry e;
    int64_t group = 0, groups = 0;
    llvm::Value *group_in_block = nullptr, *lane = nullptr, *active = nullptr, *o = nullptr;
  };
  StatusOr<RowGroups> BeginRowGroups(const Instruction& inst, const std::string& name, int64_t buffer_count,
                                     int64_t rows, int64_t length, GpuLaunch* launch) {
    RowGroups rg;
    rg.group = length >= 1024 ? kBlock : kWarp;
    rg.groups = kBlock / rg.group;
    launch->function = name;
    launch->block = {kBlock, 1, 1};
    launch->grid = {CeilDiv(rows, rg.groups), 1, 1};
    if (launch->grid[0] > kMaxGridX) return Unimplemented(inst.name() + ": too many rows for one launch");
    rg.e = BeginEntry(inst, name, buffer_count, 0, kBlock);
    llvm::IRBuilder<>& b = *rg.e.b;
    llvm::Value* tid = ThreadX(b);
    rg.group_in_block = b.CreateUDiv(tid, b.getInt64(rg.group));
    rg.lane = b.CreateURem(tid, b.getInt64(rg.group));
    llvm::Value* o_raw = b.CreateAdd(b.CreateMul(BlockX(b), b.getInt64(rg.groups)), rg.group_in_block);
    rg.active = b.CreateICmpULT(o_raw, b.getInt64(rows));
    rg.o = b.CreateSelect(rg.active, o_raw, b.getInt64(0));
    return rg;
  }

  // Row kernels (row_fusion.h: softmax, normalizations): a group of threads per row (a
  // block for rows of 1024 elements or more, else a warp). Each reduce in turn: every
  // thread folds its strided elements of the row (coalesced), the group combines them,
  // lane 0 applies the init value and leaves the result in shared memory, and the whole
  // group binds it for the rest of the row. Then the group stores the outputs over the
  // row. The values the CPU keeps in row buffers are computed again (arithmetic is cheap
  // next to memory traffic here).
  Status EmitRowKernel(const Instruction& inst, const RowPlan& plan, const std::vector<OutputLeaf>& outputs,
                       GpuKernel* kernel) {
    const int64_t k = plan.row_rank;
    const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size());
    GpuLaunch launch;
    ASSIGN_OR_RETURN(RowGroups rg, BeginRowGroups(inst, kernel->name + "_kernel", buffer_count, plan.rows, plan.row_length, &launch));
    Entry& e = rg.e;
    llvm::IRBuilder<>& b = *e.b;
    const int64_t group = rg.group, groups = rg.groups;
    llvm::Value *group_in_block = rg.group_in_block, *lane = rg.lane, *active = rg.active, *o = rg.o;
    const std::vector<int64_t> row_dims(plan.dims.begin(), plan.dims.begin() + k);
    const std::vector<int64_t> element_dims(plan.dims.begin() + k, plan.dims.end());
    const IrIndex row = Delinearize(b, o, row_dims);
    for (size_t j = 0; j < plan.reduces.size(); ++j) {
      const Instruction* hero = plan.reduces[j];
      ReductionInfo info;
      info.heroes = {hero};
      info.operand = hero->operand(0)->shape();
      for (int64_t d = 0; d < info.operand.rank(); ++d) (d < k ? info.kept : info.reduced).push_back(d);
      info.outputs = plan.rows;
      info.length = plan.row_length;
      Accumulator acc = MakeAccumulator(e, info);
      llvm::Value* count = StridedCount(b, active, lane, b.getInt64(plan.row_length), group);
      Loop(e, count, hero->name() + ".r", [&](llvm::Value* i) {
        llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
        Fold(e, info, acc, HeroInputs(e, info, OperandIndex(b, info, row, r)), b.getTrue());
      });
      const std::string name = launch.function + "_row" + std::to_string(j);
      GroupReduce(e, info, acc, group, groups, group_in_block, lane, name);
      llvm::Type* type = ValueTypes(info)[0];
      llvm::GlobalVariable* shared = SharedArray(type, groups, name + "_value");
      If(e, b.CreateICmpEQ(lane, b.getInt64(0)), "publish", [&] {
        llvm::Value* valid = b.CreateLoad(b.getInt1Ty(), acc.valid);
        llvm::Value* init = e.emitter->Emit(hero->operand(1), {});
        std::vector<llvm::Value*> combined = e.emitter->EmitReducer(*hero->to_apply(), {init, Load(e, acc)[0]});
        llvm::Value* value = combined.empty() ? init : b.CreateSelect(valid, combined[0], init);
        StoreShared(b, shared, group_in_block, e.emitter->Round(hero->shape().element_type(), value));
      });
      Barrier(b);
      e.emitter->BindValues(hero, {LoadShared(b, shared, group_in_block, type)});
    }
    std::vector<int64_t> members;
    for (int64_t m = 0; m < static_cast<int64_t>(outputs.size()); ++m) members.push_back(m);
    llvm::Value* count = StridedCount(b, active, lane, b.getInt64(plan.row_length), group);
    Loop(e, count, "i", [&](llvm::Value* i) {
      llvm::Value* r = b.CreateAdd(lane, b.CreateMul(i, b.getInt64(group)));
      IrIndex index = row;
      const IrIndex element = Delinearize(b, r, element_dims);
      index.insert(index.end(), element.begin(), element.end());
      StoreOutputs(e, inst, outputs, members, index);
    });
    for (const Instruction* hero : plan.reduces) e.emitter->Unbind(hero);
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }

  // Reductions that keep the operand's minor dimension: 32 consecutive outputs per block
  // (coalesced reads along it), 8 threads per output striding over the reduced elements,
  // folded through shared memory.
  Status EmitColumnReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                             GpuKernel* kernel) {
    constexpr int64_t kRows = kBlock / kWarp;  // threads per output
    const int64_t buffer_count = inst.operand_count() + static_cast<int64_t>(outputs.size());
    GpuLaunch launch;
    launch.function = kernel->name + "_kernel";
    launch.block = {kBlock, 1, 1};
    launch.grid = {CeilDiv(info.outputs, kWarp), 1, 1};
    if (launch.grid[0] > kMaxGridX) return Unimplemented(inst.name() + ": too many outputs for one launch");
    Entry e = BeginEntry(inst, launch.function, buffer_count, 0, kBlock);
    llvm::IRBuilder<>& b = *e.b;
    llvm::Value* tid = ThreadX(b);
    llvm::Value* tx = b.CreateURem(tid, b.getInt64(kWarp));
    llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(kWarp));
    llvm::Value* o_raw = b.CreateAdd(b.CreateMul(BlockX(b), b.getInt64(kWarp)), tx);
    llvm::Value* active = b.CreateICmpULT(o_raw, b.getInt64(info.outputs));
    llvm::Value* o = b.CreateSelect(active, o_raw, b.getInt64(0));
    Accumulator acc = MakeAccumulator(e, info);
    llvm::Value* count = StridedCount(b, active, ty, b.getInt64(info.length), kRows);
    IrIndex kept = Delinearize(b, o, OutputDims(info));
    Loop(e, count, "r", [&](llvm::Value* i) {
      llvm::Value* r = b.CreateAdd(ty, b.CreateMul(i, b.getInt64(kRows)));
      Fold(e, info, acc, HeroInputs(e, info, OperandIndex(b, info, kept, r)), b.getTrue());
    });
    std::vector<llvm::Type*> types = ValueTypes(info);
    std::vector<llvm::GlobalVariable*> shared;
    for (size_t v = 0; v < types.size(); ++v) {
      shared.push_back(SharedArray(types[v], kBlock, launch.function + "_smem" + std::to_string(v)));
    }
    llvm::GlobalVariable* shared_valid = SharedArray(b.getInt1Ty(), kBlock, launch.function + "_smem_valid");
    std::vector<llvm::Value*> mine = Load(e, acc);
    for (size_t v = 0; v < mine.size(); ++v) StoreShared(b, shared[v], tid, mine[v]);
    StoreShared(b, shared_valid, tid, b.CreateLoad(b.getInt1Ty(), acc.valid));
    Barrier(b);
    If(e, b.CreateAnd(active, b.CreateICmpEQ(ty, b.getInt64(0))), "write", [&] {
      for (int64_t k = 1; k < kRows; ++k) {
        llvm::Value* slot = b.CreateAdd(tx, b.getInt64(k * kWarp));
        std::vector<llvm::Value*> values;
        for (size_t v = 0; v < types.size(); ++v) values.push_back(LoadShared(b, shared[v], slot, types[v]));
        Fold(e, info, acc, values, LoadShared(b, shared_valid, slot, b.getInt1Ty()));
      }
      FinishOutputs(e, inst, info, acc, outputs, o);
    });
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }

  // --- Tiled transpose ------------------------------------------------------------------

  // 32x32 tiles of the two dimensions the transpose swaps into and out of the minor
  // position: a block reads a tile with consecutive threads along the input's minor
  // dimension, writes it through shared memory with consecutive threads along the
  // output's minor dimension. Remaining dimensions go to grid.z.
  Status EmitTiledTranspose(const Instruction& inst, const Instruction& transpose, GpuKernel* kernel) {
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

  // --- Tiled dot ------------------------------------------------------------------------

  // 16x16 output tiles per block of 16x16 threads; 16-wide slices of the contracted
  // dimension staged in shared memory; operands computed elementally (fused producers run
  // in the load), the epilogue applied at the store.
  Status EmitTiledDot(const Instruction& inst, const Instruction& dot, GpuKernel* kernel) {
    const DotDimensionNumbers& dn = *dot.attrs().dot_dimension_numbers;
    const Shape& lhs = dot.operand(0)->shape();
    const Shape& rhs = dot.operand(1)->shape();
    const PrimitiveType type = dot.shape().element_type();
    std::vector<int64_t> batch_sizes, m_dims, n_dims, k_sizes;
    for (int64_t d : dn.lhs_batch_dimensions) batch_sizes.push_back(lhs.dimensions(d));
    for (int64_t d = 0; d < lhs.rank(); ++d) {
      if (!Contains(dn.lhs_batch_dimensions, d) && !Contains(dn.lhs_contracting_dimensions, d)) m_dims.push_back(d);
    }
    for (int64_t d = 0; d < rhs.rank(); ++d) {
      if (!Contains(dn.rhs_batch_dimensions, d) && !Contains(dn.rhs_contracting_dimensions, d)) n_dims.push_back(d);
    }
    for (int64_t d : dn.lhs_contracting_dimensions) k_sizes.push_back(lhs.dimensions(d));
    std::vector<int64_t> m_sizes, n_sizes;
    int64_t batch = 1, m = 1, n = 1, k = 1;
    for (int64_t s : batch_sizes) batch *= s;
    for (int64_t d : m_dims) m_sizes.push_back(lhs.dimensions(d)), m *= lhs.dimensions(d);
    for (int64_t d : n_dims) n_sizes.push_back(rhs.dimensions(d)), n *= rhs.dimensions(d);
    for (int64_t s : k_sizes) k *= s;
    GpuLaunch launch;
    launch.function = kernel->name + "_kernel";
    launch.block = {kDotTile * kDotTile, 1, 1};
    launch.grid = {CeilDiv(n, kDotTile), CeilDiv(m, kDotTile), batch};
    if (launch.grid[1] > kMaxGridYZ || launch.grid[2] > kMaxGridYZ || dot.shape().ElementCount() == 0) {
      return EmitLoops(inst, KernelOutputs(inst), kernel);
    }
    const int64_t buffer_count = inst.operand_count() + 1;
    Entry e = BeginEntry(inst, launch.function, buffer_count, 0, launch.block[0]);
    llvm::IRBuilder<>& b = *e.b;
    ElementalEmitter& em = *e.emitter;
    const PrimitiveType math_type = (type == PrimitiveType::kF16 || type == PrimitiveType::kBF16) ? PrimitiveType::kF32 : type;  // tiled types only
    llvm::Type* acc_type = *RegisterType(context_, type);
    llvm::GlobalVariable* a_tile = SharedArray(acc_type, kDotTile * kDotTile, launch.function + "_lhs");
    llvm::GlobalVariable* b_tile = SharedArray(acc_type, kDotTile * kDotTile, launch.function + "_rhs");
    llvm::Value* tid = ThreadX(b);
    llvm::Value* tx = b.CreateURem(tid, b.getInt64(kDotTile));
    llvm::Value* ty = b.CreateUDiv(tid, b.getInt64(kDotTile));
    llvm::Value* n0 = b.CreateMul(BlockX(b), b.getInt64(kDotTile));
    llvm::Value* m0 = b.CreateMul(BlockY(b), b.getInt64(kDotTile));
    IrIndex batch_index = Delinearize(b, BlockZ(b), batch_sizes);
    llvm::AllocaInst* acc = em.EntryAlloca(acc_type, "dot.acc");
    b.CreateStore(em.Constant(type, 0), acc);
    auto lhs_index = [&](llvm::Value* mi, llvm::Value* ki) {
      IrIndex index(static_cast<size_t>(lhs.rank()), b.getInt64(0));
      for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) index[static_cast<size_t>(dn.lhs_batch_dimensions[i])] = batch_index[i];
      IrIndex mm = Delinearize(b, mi, m_sizes), kk = Delinearize(b, ki, k_sizes);
      for (size_t i = 0; i < m_dims.size(); ++i) index[static_cast<size_t>(m_dims[i])] = mm[i];
      for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) index[static_cast<size_t>(dn.lhs_contracting_dimensions[i])] = kk[i];
      return index;
    };
    auto rhs_index = [&](llvm::Value* ki, llvm::Value* ni) {
      IrIndex index(static_cast<size_t>(rhs.rank()), b.getInt64(0));
      for (size_t i = 0; i < dn.rhs_batch_dimensions.size(); ++i) index[static_cast<size_t>(dn.rhs_batch_dimensions[i])] = batch_index[i];
      IrIndex nn = Delinearize(b, ni, n_sizes), kk = Delinearize(b, ki, k_sizes);
      for (size_t i = 0; i < n_dims.size(); ++i) index[static_cast<size_t>(n_dims[i])] = nn[i];
      for (size_t i = 0; i < dn.rhs_contracting_dimensions.size(); ++i) index[static_cast<size_t>(dn.rhs_contracting_dimensions[i])] = kk[i];
      return index;
    };
    llvm::Value* row = b.CreateAdd(m0, ty);
    llvm::Value* col = b.CreateAdd(n0, tx);
    Loop(e, b.getInt64(CeilDiv(k, kDotTile)), "kslice", [&](llvm::Value* slice) {
      llvm::Value* k0 = b.CreateMul(slice, b.getInt64(kDotTile));
      llvm::Value* slot = b.CreateAdd(b.CreateMul(ty, b.getInt64(kDotTile)), tx);
      // lhs tile [ty][tx] = lhs(row, k0 + tx); rhs tile [ty][tx] = rhs(k0 + ty, col); zero outside.
      StoreShared(b, a_tile, slot, em.Constant(type, 0));
      StoreShared(b, b_tile, slot, em.Constant(type, 0));
      llvm::Value* ka = b.CreateAdd(k0, tx);
      If(e, b.CreateAnd(b.CreateICmpULT(row, b.getInt64(m)), b.CreateICmpULT(ka, b.getInt64(k))), "load_lhs", [&] {
        llvm::Value* v = em.Convert(&dot, lhs.element_type(), type, em.Emit(dot.operand(0), lhs_index(row, ka)));
        StoreShared(b, a_tile, slot, v);
      });
      llvm::Value* kb = b.CreateAdd(k0, ty);
      If(e, b.CreateAnd(b.CreateICmpULT(col, b.getInt64(n)), b.CreateICmpULT(kb, b.getInt64(k))), "load_rhs", [&] {
        llvm::Value* v = em.Convert(&dot, rhs.element_type(), type, em.Emit(dot.operand(1), rhs_index(kb, col)));
        StoreShared(b, b_tile, slot, v);
      });
      Barrier(b);
      for (int64_t kk = 0; kk < kDotTile; ++kk) {
        llvm::Value* x = LoadShared(b, a_tile, b.CreateAdd(b.CreateMul(ty, b.getInt64(kDotTile)), b.getInt64(kk)), acc_type);
        llvm::Value* y = LoadShared(b, b_tile, b.CreateAdd(b.getInt64(kk * kDotTile), tx), acc_type);
        llvm::Value* product = em.Arithmetic(&dot, Opcode::kMultiply, math_type, x, y);
        b.CreateStore(em.Arithmetic(&dot, Opcode::kAdd, math_type, b.CreateLoad(acc_type, acc), product), acc);
      }
      Barrier(b);
    });
    If(e, b.CreateAnd(b.CreateICmpULT(row, b.getInt64(m)), b.CreateICmpULT(col, b.getInt64(n))), "write", [&] {
      em.BindScalar(&dot, em.Round(type, b.CreateLoad(acc_type, acc)));
      // Output index: batch, lhs free, rhs free.
      IrIndex index;
      for (llvm::Value* v : batch_index) index.push_back(v);
      for (llvm::Value* v : Delinearize(b, row, m_sizes)) index.push_back(v);
      for (llvm::Value* v : Delinearize(b, col, n_sizes)) index.push_back(v);
      const Instruction* root = inst.opcode() == Opcode::kFusion ? inst.fused_computation()->root() : &inst;
      llvm::Value* value = em.Emit(root, index);
      IrArray out(e.buffer(inst.operand_count()), inst.shape());
      b.CreateStore(ToStorage(b, inst.shape().element_type(), value), out.Address(b, index));
      em.Unbind(&dot);
    });
    RETURN_IF_ERROR(EndEntry(e));
    kernel->launches.push_back(launch);
    return Status::Ok();
  }

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  const GpuCompileOptions& options_;
  const bool emulate_;
  std::unordered_set<std::string> used_names_;
};

// --- Math library -------------------------------------------------------------------------

// libdevice: CUDA's bitcode math library, linked into the module where kernels call math
// functions (the NVPTX backend has no instructions for exp, log, sin, ...).
std::vector<std::string> LibdeviceCandidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("FUSEBOX_LIBDEVICE"); env != nullptr && *env != '\0') paths.push_back(env);
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    paths.push_back(std::string(home) + "/nvvm/libdevice/libdevice.10.bc");
  }
  paths.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  paths.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  return paths;
}

// The libdevice function for a math intrinsic or C library call, or "".
std::string LibdeviceName(llvm::Function* callee) {
  llvm::Type* t = callee->getReturnType();
  const bool is_float = t->isFloatTy();
  if (!is_float && !t->isDoubleTy()) return "";
  const std::string suffix = is_float ? "f" : "";
  if (callee->isIntrinsic()) {
    switch (callee->getIntrinsicID()) {
      case llvm::Intrinsic::exp: return "__nv_exp" + suffix;
      case llvm::Intrinsic::exp2: return "__nv_exp2" + suffix;
      case llvm::Intrinsic::log: return "__nv_log" + suffix;
      case llvm::Intrinsic::log2: return "__nv_log2" + suffix;
      case llvm::Intrinsic::log10: return "__nv_log10" + suffix;
      case llvm::Intrinsic::sin: return "__nv_sin" + suffix;
      case llvm::Intrinsic::cos: return "__nv_cos" + suffix;
      case llvm::Intrinsic::pow: return "__nv_pow" + suffix;
      default: return "";
    }
  }
  static const std::unordered_set<std::string> kLibm = {
      "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cosh", "erf", "expm1",
      "log1p", "sinh", "tan", "tanh", "fmod", "exp", "log", "sin", "cos", "pow", "hypot"};
  std::string name = callee->getName().str();
  std::string base = is_float && !name.empty() && name.back() == 'f' ? name.substr(0, name.size() - 1) : name;
  if (kLibm.count(base) != 0) return "__nv_" + base + suffix;
  return "";
}

// Redirects math calls to libdevice and links it in. Returns the first function that
// stays unresolved afterwards (with the kernel that calls it), if any.
Status LinkMath(llvm::Module& module, const std::map<std::string, std::string>& function_to_hlo) {
  std::vector<llvm::CallInst*> calls;
  for (llvm::Function& f : module) {
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& i : block) {
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i); call != nullptr && call->getCalledFunction() != nullptr) {
          if (!LibdeviceName(call->getCalledFunction()).empty()) calls.push_back(call);
        }
      }
    }
  }
  if (!calls.empty()) {
    for (llvm::CallInst* call : calls) {
      llvm::Function* callee = call->getCalledFunction();
      llvm::FunctionCallee target = module.getOrInsertFunction(LibdeviceName(callee), callee->getFunctionType());
      call->setCalledFunction(target);
    }
    std::string found;
    for (const std::string& path : LibdeviceCandidates()) {
      if (std::filesystem::exists(path)) {
        found = path;
        break;
      }
    }
    if (found.empty()) {
      std::string looked;
      for (const std::string& path : LibdeviceCandidates()) looked += (looked.empty() ? "" : ", ") + path;
      return Unavailable("libdevice (CUDA's math library) not found, needed for " +
                         calls[0]->getCalledFunction()->getName().str() + "; looked in " + looked +
                         " (set FUSEBOX_LIBDEVICE)");
    }
    auto buffer = llvm::MemoryBuffer::getFile(found);
    if (!buffer) return Unavailable("cannot read " + found + ": " + buffer.getError().message());
    auto libdevice = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), module.getContext());
    if (!libdevice) return FromLlvm(libdevice.takeError(), "cannot parse " + found);
    (*libdevice)->setTargetTriple(module.getTargetTriple());
    (*libdevice)->setDataLayout(module.getDataLayout());
    if (llvm::Linker::linkModules(module, std::move(*libdevice), llvm::Linker::Flags::LinkOnlyNeeded)) {
      return Internal("linking libdevice failed");
    }
  }
  // Everything but the kernels is internal, so unused library code goes away.
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() && f.getCallingConv() != llvm::CallingConv::PTX_Kernel) {
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::Function& f : module) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() || f.getName().starts_with("__nvvm_reflect")) continue;
    std::string user = "a kernel";
    for (llvm::User* u : f.users()) {
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(u)) {
        std::string caller = inst->getFunction()->getName().str();
        auto it = function_to_hlo.find(caller);
        user = it != function_to_hlo.end() ? it->second : caller;
        break;
      }
    }
    return Unimplemented(user + ": the GPU backend has no device implementation of " + f.getName().str() +
                         " (complex arithmetic and this C library call run only on the CPU)");
  }
  return Status::Ok();
}

StatusOr<std::string> EmitPtx(llvm::Module& module, llvm::TargetMachine* tm) {
  std::string ptx;
  llvm::raw_string_ostream os(ptx);
  llvm::buffer_ostream buffer(os);
  llvm::legacy::PassManager pm;
  if (!AddCodegenPasses(*tm, pm, buffer, llvm::CodeGenFileType::AssemblyFile).ok()) {
    return Internal("the NVPTX target cannot emit PTX");
  }
  pm.run(module);
  return std::string(buffer.str());
}

// Emits every kernel of `module` into `llvm_module` and records them in `code`.
Status EmitKernels(const Module& module, const GpuCompileOptions& options, bool emulate, llvm::Module& llvm_module,
                   GpuCodeImpl& code) {
  GpuKernelEmitter emitter(llvm_module, options, emulate);
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& inst : comp->instructions()) {
      if (!IsGpuKernel(*inst)) continue;
      auto kernel = std::make_unique<GpuKernel>();
      Status st = emitter.Emit(*inst, kernel.get());
      if (!st.ok()) {
        const SourceLocation& at = inst->location();
        std::string where = at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "";
        return Status(st.code(), where + "GPU backend: " + st.message());
      }
      for (const GpuLaunch& launch : kernel->launches) code.function_to_hlo_[launch.function] = inst->name();
      code.by_instruction_[inst.get()] = kernel.get();
      code.kernels_.push_back(std::move(kernel));
    }
  }
  if (emulate) emitter.EmitEmulatorWrappers();
  return Status::Ok();
}

}  // namespace

namespace codegen {

StatusOr<HostGpuModule> EmitGpuKernelsForHost(const Module& module, const GpuCompileOptions& options,
                                              const std::string& triple, const llvm::DataLayout& layout,
                                              llvm::LLVMContext& context) {
  auto code = std::make_unique<GpuCodeImpl>();
  code->arch_ = "host-emulation";
  auto llvm_module = std::make_unique<llvm::Module>("fusebox_gpu_emulated", context);
  llvm_module->setTargetTriple(triple);
  llvm_module->setDataLayout(layout);
  RETURN_IF_ERROR(EmitKernels(module, options, /*emulate=*/true, *llvm_module, *code));
  code->llvm_ir_ = ToText(*llvm_module);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(*llvm_module, &verify_os)) {
    return Internal("GPU backend produced invalid LLVM IR: " + verify_errors);
  }
  HostGpuModule out;
  out.code = std::move(code);
  out.module = std::move(llvm_module);
  return out;
}

}  // namespace codegen

StatusOr<std::unique_ptr<GpuCode>> CompileForGpu(const Module& module, const GpuCompileOptions& options) {
  // The code is for one device: a collective over more would be emitted as a local value.
  RETURN_IF_ERROR(CheckCollectivesFit(module, /*devices=*/1));
  const auto& archs = SupportedGpuArchs();
  if (std::find(archs.begin(), archs.end(), options.arch) == archs.end()) {
    std::string list;
    for (const std::string& a : archs) list += (list.empty() ? "" : ", ") + a;
    return InvalidArgument("GPU architecture " + options.arch + " is not supported (use one of " + list + ")");
  }
  InitializeNvptxOnce();
  const std::string triple = "nvptx64-nvidia-cuda";
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (target == nullptr) return Unavailable("the NVPTX target is not available in this LLVM: " + error);
  llvm::TargetOptions target_options;
  // sm_90a needs PTX 8.0; everything else takes LLVM's default for the architecture.
  const std::string features = options.arch == "sm_90a" ? "+ptx80" : "";
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, options.arch, features, target_options, llvm::Reloc::PIC_, std::nullopt,
      options.opt_level >= 2 ? llvm::CodeGenOptLevel::Aggressive : llvm::CodeGenOptLevel::Default));
  if (tm == nullptr) return Unavailable("cannot create an NVPTX target machine for " + options.arch);

  auto code = std::make_unique<GpuCodeImpl>();
  code->arch_ = options.arch;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = std::make_unique<llvm::Module>(module.name().empty() ? "fusebox_gpu" : module.name(), *context);
  llvm_module->setTargetTriple(triple);
  llvm_module->setDataLayout(tm->createDataLayout());
  RETURN_IF_ERROR(EmitKernels(module, options, /*emulate=*/false, *llvm_module, *code));
  code->llvm_ir_ = ToText(*llvm_module);
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(*llvm_module, &verify_os)) {
    return Internal("GPU backend produced invalid LLVM IR: " + verify_errors);
  }
  if (Status linked = LinkMath(*llvm_module, code->function_to_hlo_); !linked.ok()) {
    return Status(linked.code(), "GPU backend: " + linked.message());
  }
  RETURN_IF_ERROR(Optimize(*llvm_module, tm.get(), options.opt_level));
  code->llvm_ir_optimized_ = ToText(*llvm_module);
  ASSIGN_OR_RETURN(code->ptx_, EmitPtx(*llvm_module, tm.get()));
  return std::unique_ptr<GpuCode>(std::move(code));
}

}  // namespace fusebox
