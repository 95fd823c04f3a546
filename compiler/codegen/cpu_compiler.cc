#include "compiler/codegen/cpu_compiler.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/SmallVectorMemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <limits>
#include <string>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <unistd.h>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/row_fusion.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/support/timer.h"

namespace fusebox {

bool IsCpuKernel(const Instruction& inst) { return IsKernel(inst); }

namespace {

using namespace codegen;  // NOLINT: the shared kernel helpers
using ElementalEmitter = codegen::CpuElementalEmitter;  // CPU math choices (inline exp)
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

// Loop groups with a streaming variant (see KernelEmitter::StreamsOutputs) name it so.
constexpr char kStreamingSuffix[] = ".streaming";

// Bytes `variable` says (0 or less: never, as the largest value), or `otherwise`.
int64_t BytesFromEnvironment(const char* variable, int64_t otherwise) {
  if (const char* env = std::getenv(variable); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long long v = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0') return v > 0 ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::max();
  }
  return otherwise;
}

// The last-level cache in bytes as the kernel describes CPU 0's caches
// (/sys/devices/system/cpu/cpu0/cache/index*/: the highest level's data or unified cache),
// or glibc's sysconf where that is missing; 0 when neither knows. The kernel's view comes
// first: on KVM guests sysconf's CPUID walk can report the host's whole L3 (seen: 320 MiB
// on a guest whose L3 is 32 MiB), which put 16-40 MiB working sets "in cache".
int64_t LastLevelCacheBytes() {
  int best_level = 0;
  int64_t best_bytes = 0;
  for (int index = 0; index < 16; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream level_file(dir + "level"), type_file(dir + "type"), size_file(dir + "size");
    int level = 0;
    std::string type, size;
    if (!(level_file >> level) || !(type_file >> type) || !(size_file >> size)) break;
    if (type == "Instruction" || level < best_level) continue;
    char* end = nullptr;
    const long long value = std::strtoll(size.c_str(), &end, 10);
    if (end == size.c_str() || value <= 0) continue;
    const int64_t unit = *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : *end == 'G' ? int64_t{1} << 30 : 1;
    best_level = level;
    best_bytes = static_cast<int64_t>(value) * unit;
  }
  if (best_bytes > 0) return best_bytes;
  long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return llc > 0 ? static_cast<int64_t>(llc) : 0;
}

// An eighth of the last-level cache (the cache is shared with the inputs, other threads
// and, on a VM, other tenants), at least 8 MiB; 64 MiB when unknown: data past this is
// taken to come from and go to memory, not the caches.
int64_t PastCacheBytes() {
  static const int64_t bytes = [] {
    const int64_t llc = LastLevelCacheBytes();
    if (llc <= 0) return int64_t{64} << 20;
    return std::max<int64_t>(int64_t{8} << 20, llc / 8);
  }();
  return bytes;
}

// Loop groups writing at least this many bytes get a streaming variant
// (CpuCompileOptions::streaming_store_min_bytes). Measured on the 480 MiB-L3 development
// VM: an elementwise fusion writing 64 MiB ran 7.6-8.3 ms with cached stores and 5.9-6.3
// ms streaming (68-80% -> 94-97% of memcpy's bandwidth).
int64_t StreamingThresholdBytes() {
  static const int64_t bytes = BytesFromEnvironment("FUSEBOX_STREAMING_MIN_BYTES", PastCacheBytes());
  return bytes;
}

// Kernels reading at least this many bytes prefetch (CpuCompileOptions::prefetch_min_bytes).
int64_t PrefetchThresholdBytes() {
  static const int64_t bytes = BytesFromEnvironment("FUSEBOX_PREFETCH_MIN_BYTES", PastCacheBytes());
  return bytes;
}

// A threshold option as CpuCompileOptions spells them: bytes when positive, `fallback()`
// (the environment or the cache size) when 0, never (the largest value) when negative.
int64_t MinBytes(int64_t option, int64_t (*fallback)()) {
  return option > 0 ? option : option == 0 ? fallback() : std::numeric_limits<int64_t>::max();
}

// Functions given this attribute (by kernels reading past the cache) prefetch their
// vector loads in loops this many bytes ahead; see InsertPrefetches.
constexpr const char* kPrefetchAttribute = "fusebox-prefetch-distance";
constexpr int64_t kPrefetchDistance = 1024;

// After optimization: in marked functions, every vector load inside a loop (the
// vectorized loops' contiguous loads; gathers are calls) is preceded by a prefetch of the
// address `distance` bytes further into L2 (x86 prefetcht1; a prefetch never faults, past
// the end of a buffer included). The hardware prefetchers alone may keep too few lines in
// flight for two cores to reach the memory's read bandwidth: a pure read of 1 GiB on 2
// threads ran 31 GB/s with 512-bit loads, 39-40 GB/s prefetching 512-1024 bytes ahead,
// 35 GB/s at 4096 (development VM, copy 46-49 GB/s). Into L2, not L1: on a Zen 4 VM
// prefetcht0 1 KiB ahead cut that read from 36-41 to 24-26 GB/s while prefetcht1 kept
// 45-51 (/tmp probe, alternating), and reduce_sum over 3 x 64 MiB ran 9.7-11.0 ms with
// prefetcht0 against 5.1-7.8 with prefetcht1.
void InsertPrefetches(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || !f.hasFnAttribute(kPrefetchAttribute)) continue;
    uint64_t distance = 0;
    if (f.getFnAttribute(kPrefetchAttribute).getValueAsString().getAsInteger(10, distance) || distance == 0) continue;
    llvm::DominatorTree dominators(f);
    llvm::LoopInfo loops(dominators);
    std::vector<llvm::LoadInst*> loads;
    for (llvm::BasicBlock& block : f) {
      if (loops.getLoopFor(&block) == nullptr) continue;
      for (llvm::Instruction& i : block) {
        auto* load = llvm::dyn_cast<llvm::LoadInst>(&i);
        if (load == nullptr || !load->getType()->isVectorTy()) continue;
        if (layout.getTypeStoreSize(load->getType()).getFixedValue() < 16) continue;
        loads.push_back(load);
      }
    }
    for (llvm::LoadInst* load : loads) {
      llvm::IRBuilder<> b(load);
      llvm::Value* ahead = b.CreateConstGEP1_64(b.getInt8Ty(), load->getPointerOperand(), distance, "prefetch");
      // read, locality 2 (prefetcht1: L2 and outward), data
      b.CreateIntrinsic(llvm::Intrinsic::prefetch, {ahead->getType()},
                        {ahead, b.getInt32(0), b.getInt32(2), b.getInt32(1)});
    }
  }
}

// After optimization: the vector stores of streaming variants that LLVM proved aligned to
// their size become non-temporal (x86 movntps and friends need that alignment; stores it
// could not prove aligned stay ordinary).
void MarkStreamingStores(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  for (llvm::Function& f : module) {
    if (f.isDeclaration() || !f.getName().ends_with(kStreamingSuffix)) continue;
    for (llvm::BasicBlock& block : f) {
      for (llvm::Instruction& i : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
        if (store == nullptr || !store->getValueOperand()->getType()->isVectorTy()) continue;
        const uint64_t size = layout.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue();
        if (size < 16 || store->getAlign().value() < size) continue;
        store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                           llvm::MDNode::get(module.getContext(), {llvm::ConstantAsMetadata::get(
                                                                      llvm::ConstantInt::get(
                                                                          llvm::Type::getInt32Ty(module.getContext()), 1))}));
      }
    }
  }
}

// Code generation to ELF objects through one legacy pass manager, kept with its target
// machine and run on every module that target machine compiles: building LLVM's codegen
// pipeline costs ~0.4 ms and its first run schedules the passes, per module otherwise
// (softmax's module: 8.2-8.9 ms -> 7.1-7.6 ms of code generation). The pipeline is made
// for this: at the end of each module the assembly printer finishes and resets its
// streamer and the machine module info resets its MC context (a module compiled twice
// gives the same bytes twice).
class ObjectEmitter {
 public:
  static StatusOr<std::unique_ptr<ObjectEmitter>> Create(llvm::TargetMachine& tm, bool loop_strength_reduction) {
    auto emitter = std::unique_ptr<ObjectEmitter>(new ObjectEmitter());
    RETURN_IF_ERROR(AddCodegenPasses(tm, emitter->pm_, emitter->os_, llvm::CodeGenFileType::ObjectFile,
                                     loop_strength_reduction));
    return emitter;
  }
  std::unique_ptr<llvm::MemoryBuffer> Emit(llvm::Module& module) {
    object_.clear();
    pm_.run(module);
    // The stream appends to object_ whatever its storage: moving the bytes out leaves it
    // empty for the next module.
    return std::make_unique<llvm::SmallVectorMemoryBuffer>(
        std::move(object_), module.getModuleIdentifier() + "-jitted-objectbuffer", /*RequiresNullTerminator=*/false);
  }

 private:
  ObjectEmitter() = default;
  llvm::SmallVector<char, 0> object_;
  llvm::raw_svector_ostream os_{object_};
  llvm::legacy::PassManager pm_;
};

// Target machines for the host, kept between compiles. Making one parses the host's
// feature string into a subtarget (measured: ~15% of a small module's compile, and each
// compile made three: ours, the JIT's for its data layout, the JIT's compiler). A
// compile borrows one per code-generation level and gives it back, so compiles on
// several threads never share a target machine (nor its object emitters).
class HostTargets {
 public:
  struct Target {
    std::unique_ptr<llvm::TargetMachine> tm;
    std::unique_ptr<ObjectEmitter> emitters[2];  // without, with loop strength reduction
  };

  class Lease {
   public:
    Lease(HostTargets* owner, bool optimize, std::unique_ptr<Target> target)
        : owner_(owner), optimize_(optimize), target_(std::move(target)) {}
    Lease(Lease&&) = default;
    ~Lease() {
      if (target_) owner_->GiveBack(optimize_, std::move(target_));
    }
    llvm::TargetMachine* get() const { return target_->tm.get(); }
    llvm::TargetMachine* operator->() const { return target_->tm.get(); }
    // This target machine's object emitter (made on first use).
    StatusOr<ObjectEmitter*> Emitter(bool loop_strength_reduction) {
      std::unique_ptr<ObjectEmitter>& emitter = target_->emitters[loop_strength_reduction ? 1 : 0];
      if (!emitter) {
        ASSIGN_OR_RETURN(emitter, ObjectEmitter::Create(*target_->tm, loop_strength_reduction));
      }
      return emitter.get();
    }

   private:
    HostTargets* owner_;
    bool optimize_;
    std::unique_ptr<Target> target_;
  };

  static HostTargets& Get() {
    static HostTargets* targets = new HostTargets();  // outlives every compile
    return *targets;
  }

  StatusOr<llvm::orc::JITTargetMachineBuilder> Builder(bool optimize) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!host_) {
      auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
      if (!jtmb) return FromLlvm(jtmb.takeError(), "cannot describe the host CPU");
      host_ = std::move(*jtmb);
    }
    llvm::orc::JITTargetMachineBuilder copy = *host_;
    copy.setCodeGenOptLevel(optimize ? llvm::CodeGenOptLevel::Default : llvm::CodeGenOptLevel::None);
    return copy;
  }

  StatusOr<Lease> Borrow(bool optimize) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto& free = free_[optimize ? 1 : 0];
      if (!free.empty()) {
        std::unique_ptr<Target> target = std::move(free.back());
        free.pop_back();
        return Lease(this, optimize, std::move(target));
      }
    }
    ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb, Builder(optimize));
    auto tm = jtmb.createTargetMachine();
    if (!tm) return FromLlvm(tm.takeError(), "cannot create the target machine");
    auto target = std::make_unique<Target>();
    target->tm = std::move(*tm);
    return Lease(this, optimize, std::move(target));
  }

 private:
  void GiveBack(bool optimize, std::unique_ptr<Target> target) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_[optimize ? 1 : 0].push_back(std::move(target));
  }

  std::mutex mutex_;
  std::optional<llvm::orc::JITTargetMachineBuilder> host_;
  std::vector<std::unique_ptr<Target>> free_[2];
};

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

// Column reductions: reduces whose reduced dimensions are the operand's leading ones,
// so that the kept dimensions are minor and contiguous (a bias gradient, f32[N,H,W,C] to
// f32[C]). Emitted per output element, each output walks its column with a stride of the
// row. Instead, a first loop group (NAME.columns) splits the reduced rows into a fixed
// number of chunks; each iteration folds one chunk's rows into per-chunk partials in
// scratch, rows outer and the kept elements inner (contiguous, vectorized). The kernel's
// own loops then fold each output's partials in chunk order: deterministic whatever the
// thread count. Done only with the reducer's identity as init (the partials start from
// it), one operand, and no reduce feeding the operand.
struct ColumnPlan {
  std::vector<const Instruction*> reduces;  // same operand dimensions and reduced dimensions
  Shape operand;                            // the reduces' operand dimensions
  int64_t reduced_rank = 0;                 // leading dimensions reduced
  int64_t rows = 0;                         // product of the reduced dimensions
  int64_t columns = 0;                      // product of the kept dimensions
  int64_t chunks = 0;                       // the rows are split into this many chunks
  int64_t block = 0;                        // kept elements per iteration
  int64_t blocks = 0;                       // ceil(columns / block)
  std::vector<int64_t> offsets;             // byte offset of each reduce's partials in scratch
  int64_t scratch_bytes = 0;
};

// Partials accumulate in the reducer's register type: narrow floats as f32.
PrimitiveType ColumnAccumulatorType(PrimitiveType type) {
  return type == PrimitiveType::kF16 || type == PrimitiveType::kBF16 ? PrimitiveType::kF32 : type;
}

bool FeedsFromReduce(const Instruction* inst, std::unordered_set<const Instruction*>& seen) {
  if (!seen.insert(inst).second) return false;
  if (inst->opcode() == Opcode::kReduce || inst->opcode() == Opcode::kReduceWindow) return true;
  for (const Instruction* op : inst->operands()) {
    if (FeedsFromReduce(op, seen)) return true;
  }
  return false;
}

// The number of leading dimensions a column reduction reduces; 0 when `r` (in kernel
// `kernel`) is not one.
int64_t ColumnReducedRank(const Instruction& r, const Instruction& kernel) {
  if (r.opcode() != Opcode::kReduce || r.operand_count() != 2 || r.to_apply() == nullptr) return 0;
  const Shape& in = r.operand(0)->shape();
  if (!in.IsArray() || !r.shape().IsArray()) return 0;
  switch (in.element_type()) {
    case PrimitiveType::kF16: case PrimitiveType::kBF16: case PrimitiveType::kF32: case PrimitiveType::kF64:
    case PrimitiveType::kS32: case PrimitiveType::kS64: case PrimitiveType::kU32: case PrimitiveType::kU64:
      break;
    default:
      return 0;
  }
  if (r.operand(1)->shape().element_type() != in.element_type() || r.shape().element_type() != in.element_type()) {
    return 0;
  }
  std::vector<int64_t> dims = r.dimensions();
  std::sort(dims.begin(), dims.end());
  const int64_t reduced = static_cast<int64_t>(dims.size());
  if (reduced < 1 || reduced >= in.rank()) return 0;
  for (int64_t k = 0; k < reduced; ++k) {
    if (dims[k] != k) return 0;
  }
  int64_t rows = 1;
  for (int64_t d = 0; d < reduced; ++d) rows *= in.dimensions(d);
  // Small reductions gain nothing from a second pass.
  if (rows < 32 || in.ElementCount() < (int64_t{1} << 14)) return 0;
  // The init value is often a constant the fusion takes as a parameter.
  const Instruction* init = r.operand(1);
  if (init->opcode() == Opcode::kParameter && &r != &kernel && kernel.opcode() == Opcode::kFusion &&
      init->parameter_number() < kernel.operand_count()) {
    init = kernel.operand(init->parameter_number());
  }
  if (!IsIdentityInit(*r.to_apply(), *init)) return 0;
  // Inside a fusion the operand is computed in the pass: no reduce may feed it. A lone
  // reduce reads its operand from memory.
  std::unordered_set<const Instruction*> seen;
  if (&r != &kernel && FeedsFromReduce(r.operand(0), seen)) return 0;
  return reduced;
}

std::optional<ColumnPlan> PlanColumnReductions(const Instruction& inst) {
  std::vector<const Instruction*> candidates;
  if (inst.opcode() == Opcode::kReduce) {
    candidates.push_back(&inst);
  } else if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) {
      if (i->opcode() == Opcode::kReduce) candidates.push_back(i.get());
    }
  }
  ColumnPlan plan;
  for (const Instruction* r : candidates) {
    const int64_t reduced = ColumnReducedRank(*r, inst);
    if (reduced == 0) continue;
    if (plan.reduces.empty()) {
      plan.operand = r->operand(0)->shape();
      plan.reduced_rank = reduced;
    } else if (reduced != plan.reduced_rank || r->operand(0)->shape().dimensions() != plan.operand.dimensions()) {
      continue;
    }
    plan.reduces.push_back(r);
  }
  if (plan.reduces.empty()) return std::nullopt;
  plan.rows = 1;
  for (int64_t d = 0; d < plan.reduced_rank; ++d) plan.rows *= plan.operand.dimensions(d);
  plan.columns = plan.operand.ElementCount() / plan.rows;
  // Kept elements per iteration: the whole row when it is short enough to stay in L1
  // with its partials, else blocks of 1024.
  plan.block = plan.columns <= 4096 ? plan.columns : 1024;
  plan.blocks = (plan.columns + plan.block - 1) / plan.block;
  int64_t row_bytes = 0;
  for (const Instruction* r : plan.reduces) {
    row_bytes += plan.columns * ByteWidth(ColumnAccumulatorType(r->shape().element_type()));
  }
  // Chunks of at least 64 rows, at most 64 of them, partials within 16 MiB.
  plan.chunks = std::clamp<int64_t>(plan.rows / 64, 1, 64);
  plan.chunks = std::max<int64_t>(1, std::min<int64_t>(plan.chunks, (int64_t{16} << 20) / std::max<int64_t>(row_bytes, 1)));
  for (const Instruction* r : plan.reduces) {
    plan.offsets.push_back(plan.scratch_bytes);
    const int64_t bytes = plan.chunks * plan.columns * ByteWidth(ColumnAccumulatorType(r->shape().element_type()));
    plan.scratch_bytes += (bytes + 63) / 64 * 64;
  }
  return plan;
}

// Operand elements folded into each output element by the reductions of `inst` (itself
// or fused) whose output has `shape`'s dimensions; 1 when there is none. A column
// reduction's output element folds only its chunks' partials.
int64_t ReducedElementsPerOutput(const Instruction& inst, const Shape& shape, const ColumnPlan* columns = nullptr) {
  int64_t most = 1;
  auto consider = [&](const Instruction& r) {
    if (r.opcode() != Opcode::kReduce || r.operand_count() < 2) return;
    if (columns != nullptr && std::find(columns->reduces.begin(), columns->reduces.end(), &r) != columns->reduces.end()) {
      const Shape& out = r.shape();
      if (out.dimensions() == shape.dimensions()) most = std::max<int64_t>(most, columns->chunks);
      return;
    }
    const Shape& out = r.shape().IsTuple() ? r.shape().tuple_shapes(0) : r.shape();
    if (out.dimensions() != shape.dimensions()) return;
    const int64_t in = r.operand(0)->shape().ElementCount();
    most = std::max<int64_t>(most, in / std::max<int64_t>(1, out.ElementCount()));
  };
  if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr) {
    for (const auto& i : inst.fused_computation()->instructions()) consider(*i);
  } else {
    consider(inst);
  }
  return most;
}

// Row chaining (see CpuKernel::rows): which parameters of fusion `inst` are read only at
// the row its outputs are computed for, when every output is computed at indices whose
// dimension 0 is the row. Follows the indices from the outputs to the parameters through
// ops that keep dimension 0 (elementwise ops, broadcasts and reduces that keep it,
// reshapes that keep its size); anything else reading a parameter makes it non-local.
std::vector<bool> RowLocalParameters(const Instruction& inst) {
  const Computation* fused = inst.fused_computation();
  enum State { kUnseen, kRow, kOther };
  std::unordered_map<const Instruction*, State> state;
  auto request = [&](const Instruction* i, State s) {
    State& cur = state[i];
    cur = cur == kUnseen ? s : (cur == s ? cur : kOther);
  };
  const Instruction* root = fused->root();
  if (root->opcode() == Opcode::kTuple) {
    for (const Instruction* op : root->operands()) request(op, kRow);
  } else {
    request(root, kRow);
  }
  std::vector<Instruction*> order = fused->PostOrder();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction* i = *it;
    if (i == root && root->opcode() == Opcode::kTuple) continue;
    const State s = state.count(i) ? state[i] : kUnseen;
    if (s == kUnseen) continue;
    const Shape& shape = i->shape();
    for (int64_t k = 0; k < i->operand_count(); ++k) {
      const Instruction* op = i->operand(k);
      const Shape& os = op->shape();
      State r = kOther;
      if (s == kRow && os.IsArray() && shape.IsArray() && os.rank() >= 1 && shape.rank() >= 1) {
        switch (i->opcode()) {
          case Opcode::kBroadcast:
            if (!i->dimensions().empty() && i->dimensions()[0] == 0) r = kRow;
            break;
          case Opcode::kReduce:
            if (k < i->operand_count() / 2 &&
                std::find(i->dimensions().begin(), i->dimensions().end(), 0) == i->dimensions().end()) {
              r = kRow;
            }
            break;
          case Opcode::kReshape:
          case Opcode::kBitcast:
            if (os.dimensions(0) == shape.dimensions(0)) r = kRow;
            break;
          default:
            if (IsElementwise(i->opcode()) && os.dimensions() == shape.dimensions()) r = kRow;
            break;
        }
      }
      request(op, r);
    }
  }
  std::vector<bool> local;
  for (int64_t p = 0; p < fused->parameter_count(); ++p) {
    auto it = state.find(fused->parameter(p));
    local.push_back(it == state.end() || it->second != kOther);
  }
  return local;
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
  const std::vector<CompileStepTime>& step_times() const override { return step_times_; }
  int compile_threads() const override { return compile_threads_; }

  void EndStep(const char* step, Stopwatch& watch) {
    step_times_.push_back({step, watch.ElapsedSeconds()});
    watch.Reset();
  }

  std::unique_ptr<llvm::orc::LLJIT> jit_;
  std::vector<CompileStepTime> step_times_;
  int compile_threads_ = 1;
  std::vector<std::unique_ptr<CpuKernel>> kernels_;
  std::unordered_map<const Instruction*, CpuKernel*> by_instruction_;
  std::string llvm_ir_, llvm_ir_optimized_, assembly_, target_cpu_;
  std::map<std::string, std::string> function_to_hlo_;
};

// Elementwise functions computed by polynomials or library calls: tens of operations per
// element instead of one.
bool IsTranscendental(Opcode op) {
  switch (op) {
    case Opcode::kExp: case Opcode::kLogistic: case Opcode::kTanh: case Opcode::kLog: case Opcode::kPower:
    case Opcode::kSin: case Opcode::kCos: case Opcode::kExpm1: case Opcode::kLog1p: case Opcode::kErf:
      return true;
    default:
      return false;
  }
}

// A rough measure of the code an instruction makes, to balance the compile threads:
// transcendental functions (inline polynomials) and reductions count more.
int64_t EstimatedCodeSize(Opcode op) {
  if (IsTranscendental(op)) return 12;
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kBitcast: case Opcode::kReshape: case Opcode::kBroadcast:
      return 1;
    case Opcode::kReduce: case Opcode::kReduceWindow: case Opcode::kScatter: case Opcode::kSelectAndScatter:
      return 8;
    default:
      return 2;
  }
}

// The same for a kernel: its fused instructions.
int64_t EstimatedCodeSize(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return IsLibraryOp(inst.opcode()) ? 2 : 4;
  int64_t size = 4;
  for (const auto& i : inst.fused_computation()->instructions()) size += EstimatedCodeSize(i->opcode());
  return size;
}

// The loops of a row kernel (see KernelEmitter::EmitRowKernel): one per reduce, then the
// outputs'. Each with the estimate of its code (the instructions it computes, not the
// reduces before it, bound, nor the values it loads from row buffers) and, for a reduce,
// whether it gets a function of its own: when its loop computes a transcendental function
// (softmax's exp and sum), the code that costs the most to compile, which then compiles
// on another thread than the rest. Every function costs LLVM ~1-1.5 ms here however small
// (softmax's max loop alone: ~2 ms of optimization, ~2.5 of code generation), so cheap
// loops stay inline: layer norm's two sums in a function each compiled in 6.2 ms on two
// threads, 10.4 on one, against 6.5 as one function.
struct RowLoop {
  int64_t size = 0;
  bool outlined = false;
};

std::vector<RowLoop> RowLoops(const Instruction& inst, const RowPlan& plan) {
  std::vector<RowLoop> loops;
  for (size_t loop = 0; loop <= plan.reduces.size(); ++loop) {
    std::unordered_set<const Instruction*> seen;
    for (size_t j = 0; j < plan.reduces.size(); ++j) {
      if (j != loop) seen.insert(plan.reduces[j]);
    }
    for (const RowPlan::Materialized& m : plan.materialized) {
      if (static_cast<size_t>(m.pass) < loop) seen.insert(m.value);
    }
    std::vector<const Instruction*> stack;
    if (loop < plan.reduces.size()) {
      stack.push_back(plan.reduces[loop]);
    } else {
      for (const OutputLeaf& leaf : KernelOutputs(inst)) stack.push_back(leaf.inst);
    }
    RowLoop row_loop;
    while (!stack.empty()) {
      const Instruction* i = stack.back();
      stack.pop_back();
      if (!seen.insert(i).second) continue;
      row_loop.size += EstimatedCodeSize(i->opcode());
      row_loop.outlined |= loop < plan.reduces.size() && IsTranscendental(i->opcode());
      for (const Instruction* op : i->operands()) stack.push_back(op);
    }
    loops.push_back(row_loop);
  }
  return loops;
}

// The units CompileForCpu spreads over modules for one kernel: a row kernel's outlined
// reduces, then the rest of it (its entry, inline loops included); or the whole kernel.
std::vector<int64_t> CompileUnitSizes(const Instruction& inst) {
  std::optional<RowPlan> plan;
  if (inst.opcode() == Opcode::kFusion && inst.fused_computation() != nullptr && InPlaceUpdate(inst) == nullptr) {
    const Opcode root = inst.fused_computation()->root()->opcode();
    if (root != Opcode::kScatter && root != Opcode::kSelectAndScatter) plan = PlanRowKernel(inst);
  }
  if (!plan) return {EstimatedCodeSize(inst)};
  std::vector<int64_t> sizes;
  int64_t rest = 4;
  for (const RowLoop& loop : RowLoops(inst, *plan)) {
    if (loop.outlined) {
      sizes.push_back(4 + loop.size);
    } else {
      rest += loop.size;
    }
  }
  sizes.push_back(rest);
  return sizes;
}

class KernelEmitter {
 public:
  KernelEmitter(llvm::Module& module, int64_t streaming_min_bytes = 0)
      : module_(module), context_(module.getContext()), streaming_min_bytes_(streaming_min_bytes) {}

  // Modules for the outlined reduces of a row kernel (EmitRowKernel), in order; missing
  // ones: the kernel's module.
  void SetRowPieceModules(std::vector<llvm::Module*> modules) { row_piece_modules_ = std::move(modules); }
  // The functions of a row kernel's outlined reduces, in the order emitted (each before the
  // kernel's entry, which calls them).
  const std::vector<std::string>& row_functions() const { return row_functions_; }

  Status Emit(const Instruction& inst, CpuKernel* kernel) {
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

 private:
  Status EmitLoops(const Instruction& inst, CpuKernel* kernel) {
    std::vector<OutputLeaf> outputs = KernelOutputs(inst);
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
    // Row kernels (softmax, normalizations; see row_fusion.h): every reduce once per row.
    if (kernel->kind == CpuKernel::Kind::kLoop && inst.opcode() == Opcode::kFusion && groups.size() == 1) {
      rows_ = PlanRowKernel(inst);
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
    const int64_t buffer_count =
        operand_count + static_cast<int64_t>(outputs.size()) +
        (kernel->kind == CpuKernel::Kind::kOutputFusion || split != nullptr || columns_ ? 1 : 0);
    // Elementwise outputs shaped like the column reductions' operand are stored from
    // inside their loop (each element is visited once), not by a second pass.
    std::vector<bool> merged(groups.size(), false);
    std::vector<int64_t> column_side;
    if (columns_) {
      for (size_t g = 0; g < groups.size(); ++g) {
        if (outputs[groups[g][0]].shape.dimensions() != columns_->operand.dimensions()) continue;
        bool elementwise = true;
        for (int64_t x : groups[g]) {
          std::unordered_set<const Instruction*> seen;
          elementwise &= !FeedsFromReduce(outputs[x].inst, seen);
        }
        if (!elementwise) continue;
        merged[g] = true;
        column_side.insert(column_side.end(), groups[g].begin(), groups[g].end());
      }
    }
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
    // Side outputs: a group of elementwise outputs shaped like a row reduction's operand
    // is stored from inside that reduction's loop, one pass over the rows with each
    // value computed once (softmax's exp and its sum), instead of a second loop nest.
    std::vector<const Instruction*> side_reduce(groups.size(), nullptr);
    std::vector<std::vector<int64_t>> side_members(groups.size());
    if (split == nullptr && !rows_) {
      for (size_t g = 0; g < groups.size(); ++g) {
        if (merged[g]) continue;
        for (int64_t m : groups[g]) {
          const Instruction* r = outputs[m].inst;
          if (r->opcode() != Opcode::kReduce || side_reduce[g] != nullptr) continue;
          const Shape& in = r->operand(0)->shape();
          std::vector<int64_t> dims = r->dimensions();
          std::sort(dims.begin(), dims.end());
          const int64_t kept = in.rank() - static_cast<int64_t>(dims.size());
          bool trailing = !dims.empty() && kept >= 1;
          for (size_t k = 0; trailing && k < dims.size(); ++k) trailing = dims[k] == kept + static_cast<int64_t>(k);
          if (!trailing || outputs[m].shape.rank() != kept || outputs[m].shape.ElementCount() < 2) continue;
          for (size_t h = 0; h < groups.size(); ++h) {
            if (h == g || merged[h] || side_reduce[h] != nullptr) continue;
            if (outputs[groups[h][0]].shape.dimensions() != in.dimensions()) continue;
            bool elementwise = true;
            for (int64_t x : groups[h]) elementwise &= outputs[x].inst->opcode() != Opcode::kReduce;
            if (!elementwise) continue;
            side_reduce[g] = r;
            side_members[g] = groups[h];
            merged[h] = true;
            break;
          }
        }
      }
    }
    // Row chaining: every group iterates dimension 0 of its outputs, all of one extent.
    if (kernel->kind == CpuKernel::Kind::kLoop && split == nullptr && !columns_ && inst.opcode() == Opcode::kFusion &&
        !outputs.empty()) {
      const int64_t rows = outputs[0].shape.rank() >= 1 ? outputs[0].shape.dimensions(0) : 0;
      bool all = rows > 1;
      for (const OutputLeaf& leaf : outputs) all &= leaf.shape.rank() >= 1 && leaf.shape.dimensions(0) == rows;
      if (all) {
        kernel->rows = rows;
        kernel->row_local_operands = RowLocalParameters(inst);
      }
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      if (merged[g]) continue;
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
      // A reduction's output element costs a whole row of its operand: the runtime sizes
      // its shards (and so its thread count) by this work, not by the output alone — a
      // row reduction to f32[4096] over 1024 columns is 4M elements of work, not 4096.
      group.elements_per_iteration *= ReducedElementsPerOutput(inst, shape, columns_ ? &*columns_ : nullptr);
      // A row kernel loops over each row once per reduce and once more for its outputs.
      if (rows_) group.elements_per_iteration *= static_cast<int64_t>(rows_->reduces.size()) + 1;
      if (shape.ElementCount() == 0) group.extent = 0;
      if (rows_ && partition_dim >= 0 && partition_dim < rows_->row_rank && inst.opcode() == Opcode::kFusion) {
        RETURN_IF_ERROR(EmitRowKernel(inst, outputs, groups[g], partition_dim, buffer_count, group.function));
      } else if (!rows_ && StreamsOutputs(kernel->kind, outputs, groups[g], partition_dim, side_reduce[g] != nullptr)) {
        // Two variants: one whose vector stores bypass the caches (x86 non-temporal), for
        // output buffers aligned to 64 bytes, and the plain one; the entry picks at run time.
        streaming_ = true;
        RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, groups[g], partition_dim, buffer_count,
                                  group.function + kStreamingSuffix, side_reduce[g], side_members[g]));
        streaming_ = false;
        RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, groups[g], partition_dim, buffer_count,
                                  group.function + ".cached", side_reduce[g], side_members[g]));
        EmitStreamingDispatch(group.function, inst.operand_count(), groups[g]);
      } else {
        RETURN_IF_ERROR(EmitGroup(inst, *kernel, outputs, groups[g], partition_dim, buffer_count, group.function,
                                  side_reduce[g], side_members[g]));
      }
      kernel->groups.push_back(group);
    }
    return Status::Ok();
  }

  Status EmitGroup(const Instruction& inst, const CpuKernel& kernel, const std::vector<OutputLeaf>& outputs,
                   const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                   const std::string& name, const Instruction* side_reduce = nullptr,
                   const std::vector<int64_t>& side_members = {}) {
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

  // A row kernel (see row_fusion.h): the loop group's entry `name` loops over the rows
  // (the partition dimension split across threads, the other row dimensions nested); per
  // row, each reduce in turn is a loop over the row whose value is then bound for the
  // rest of the row (BindValues), storing the values the plan keeps in row buffers (an
  // aligned stack array each) as it goes, loaded by the later loops (BindRowArray); a
  // last loop stores the outputs. The row stays in L1 from one loop to the next. A reduce
  // whose loop computes a transcendental function (RowLoops: softmax's exp and sum) is a
  // function of its own, `name.row<j>`, called once per row, so that CompileForCpu can
  // put it in another module and the kernel compiles on two threads, not one (a call
  // costs a few ns a row). It shares, through the entry's stack: the buffer pointers,
  // the reduce values found so far (one 16-byte slot each, in reduce order) and the row
  // buffers.
  Status EmitRowKernel(const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                       const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                       const std::string& name) {
    const RowPlan& plan = *rows_;
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
    for (const RowPlan::Materialized& m : plan.materialized) {
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
        for (const RowPlan::Materialized& m : plan.materialized) emitter.Unbind(m.value);
      });
    });
    b.CreateRetVoid();
    RETURN_IF_ERROR(bind_status);
    RETURN_IF_ERROR(emitter.status());
    return Status::Ok();
  }

  // Reduce `j` of the row plan over `row`, storing the values kept for later loops into
  // their row buffers as its loop computes them.
  std::vector<llvm::Value*> EmitRowReduction(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t j,
                                             const IrIndex& row, const std::vector<IrArray>& row_buffers) const {
    const RowPlan& plan = *rows_;
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

  // `name.row<j>(void** buffers, i64 row..., values, void** row_buffers)`.
  static llvm::FunctionType* RowReduceType(llvm::LLVMContext& context, int64_t row_rank) {
    llvm::Type* ptr = llvm::PointerType::getUnqual(context);
    std::vector<llvm::Type*> params = {ptr};
    params.insert(params.end(), static_cast<size_t>(row_rank), llvm::Type::getInt64Ty(context));
    params.push_back(ptr);
    params.push_back(ptr);
    return llvm::FunctionType::get(llvm::Type::getVoidTy(context), params, false);
  }

  // Reduce `j`'s values from their slots.
  StatusOr<std::vector<llvm::Value*>> LoadRowValues(llvm::IRBuilder<>& b, llvm::Value* values, size_t j,
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

  static std::string RowPieceName(const std::string& kernel_function, size_t reduce) {
    return kernel_function + ".row" + std::to_string(reduce);
  }
  static constexpr int64_t kRowSlotBytes = 16;  // one reduce value (complex128 at most)

  static void BindFusionParameters(const Instruction& inst, llvm::Function* body, ElementalEmitter& emitter) {
    const Computation* fused = inst.fused_computation();
    for (int64_t p = 0; p < fused->parameter_count(); ++p) {
      emitter.BindArray(fused->parameter(p), IrArray(body->getArg(static_cast<unsigned>(p)), inst.operand(p)->shape()));
    }
  }

  // Address of value `i` of reduce `j` among a row kernel's value slots, and its type.
  std::pair<PrimitiveType, llvm::Value*> RowSlot(llvm::IRBuilder<>& b, llvm::Value* values, size_t j, size_t i,
                                                 const std::vector<int64_t>& first_slot) const {
    const Shape& shape = rows_->reduces[j]->shape();
    const PrimitiveType type = shape.IsTuple() ? shape.tuple_shapes(static_cast<int64_t>(i)).element_type()
                                               : shape.element_type();
    const int64_t at = (first_slot[j] + static_cast<int64_t>(i)) * kRowSlotBytes;
    return {type, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), values, static_cast<uint64_t>(at))};
  }

  // Binds what a row kernel's first `done` reduces found (their values, from the slots)
  // and kept (their row buffers).
  Status BindRowState(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t done, llvm::Value* values,
                      const std::vector<IrArray>& row_buffers, const std::vector<int64_t>& first_slot) const {
    const RowPlan& plan = *rows_;
    for (size_t j = 0; j < done; ++j) {
      ASSIGN_OR_RETURN(std::vector<llvm::Value*> found, LoadRowValues(b, values, j, first_slot));
      emitter.BindValues(plan.reduces[j], std::move(found));
    }
    for (size_t m = 0; m < plan.materialized.size(); ++m) {
      if (static_cast<size_t>(plan.materialized[m].pass) < done) emitter.BindRowArray(plan.materialized[m].value, row_buffers[m]);
    }
    return Status::Ok();
  }

  // Reduce `j` of a row kernel, in `target`: `name(void** buffers, i64 row..., values,
  // void** row_buffers)` and its always-inlined body (noalias buffers, row buffers and
  // value slots): the reduce over one row, the reduces before it bound, its value stored
  // in its slot.
  Status EmitRowReduce(llvm::Module& target, const Instruction& inst, const Shape& shape, int64_t buffer_count,
                       const std::string& name, size_t j, const std::vector<int64_t>& first_slot) {
    const RowPlan& plan = *rows_;
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

  // Each column reduction's partials in the kernel's scratch (its last buffer): shape
  // [chunks, columns] (`flat`) or [chunks, output dimensions...].
  std::vector<IrArray> ColumnPartials(llvm::IRBuilder<>& b, llvm::Function* body, int64_t buffer_count, bool flat) {
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

  // The first loop of column reductions: iteration `it` folds the rows of chunk
  // it / blocks into the partials of the kept elements in block it % blocks, the rows
  // outer and the kept elements (contiguous in the operand and in the partials) inner.
  // Outputs `side` (of the operand's shape) are stored at every visited element.
  Status EmitColumnPartials(const Instruction& inst, const CpuKernel& kernel, const ColumnPlan& plan,
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

  // Whether a loop group's outputs are big enough to stream past the caches: plain
  // elementwise groups (no reduction folded in) over rows (buffers are row-major, see
  // layout_normalization.h) of whole 64-byte multiples,
  // writing more than StreamingThresholdBytes() (what they write would mostly be evicted
  // before anything read it again anyway).
  bool StreamsOutputs(CpuKernel::Kind kind, const std::vector<OutputLeaf>& outputs,
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

  // `name(buffers, begin, end)`: the streaming variant when every output of the group is
  // 64-byte aligned, else the cached one.
  void EmitStreamingDispatch(const std::string& name, int64_t operand_count, const std::vector<int64_t>& members) {
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

  // Stores output `m` of a kernel at `index` into its buffer (the body's parameter after
  // the operands'); false when a variadic reduce gave no such value.
  static bool StoreOutput(ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Function* body,
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

  // Appends the first `count` pointers of the array `array` points to, loaded.
  static void LoadPointers(llvm::IRBuilder<>& b, llvm::Value* array, int64_t count, const std::string& name,
                           std::vector<llvm::Value*>& out) {
    llvm::Type* ptr = b.getPtrTy();
    for (int64_t i = 0; i < count; ++i) {
      llvm::Value* slot = b.CreateConstInBoundsGEP1_64(ptr, array, static_cast<uint64_t>(i));
      out.push_back(b.CreateLoad(ptr, slot, name + std::to_string(i)));
    }
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
    LoadPointers(b, entry->getArg(0), buffer_count, "buffer", args);
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
  std::optional<ColumnPlan> columns_;
  std::optional<RowPlan> rows_;
  std::vector<llvm::Module*> row_piece_modules_;
  std::vector<std::string> row_functions_;
  bool streaming_ = false;  // emitting the streaming variant of a loop group
  int64_t streaming_min_bytes_ = 0;  // CpuCompileOptions::streaming_store_min_bytes
};

StatusOr<std::string> EmitAssembly(const llvm::Module& module, llvm::TargetMachine* tm,
                                   bool loop_strength_reduction) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(module);
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  RETURN_IF_ERROR(AddCodegenPasses(*tm, pm, os, llvm::CodeGenFileType::AssemblyFile, loop_strength_reduction));
  pm.run(*clone);
  return std::string(buffer.str());
}

// One kernel's LLVM module in its own context, so that kernels optimize and compile on
// several threads at once (an LLVMContext is single-threaded).
struct KernelModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  bool has_code = false;         // defines at least one function
  Status status = Status::Ok();
  std::unique_ptr<llvm::MemoryBuffer> object;  // compiled machine code (ELF)
  llvm::SmallVector<char, 0> bitcode, bitcode_optimized;  // for the printed stages
  std::string assembly;
};

llvm::SmallVector<char, 0> ToBitcode(const llvm::Module& module) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(module, os);
  return buffer;
}

// The LLVM passes of CpuCompileOptions::kernel_pipeline. Kernels arrive as a small entry
// function calling an always-inlined body of plain loop nests (no other calls, no
// allocas but reduction accumulators), so LLVM's -O2 module machinery (the inliner's
// call-graph walk, global and interprocedural passes, coroutines, OpenMP) has nothing to
// do; what remains is its function simplification and vectorization, in -O2's order,
// minus passes that changed neither the code nor the run time of our workloads.
// Measured against -O2 on bench/compare_xla's workloads (ratios of medians, same run):
// compile 0.65-0.75 of -O2's with code generation without loop strength reduction, run
// time within noise of -O2's. Each kept pass earns its place:
//  - jump-threading after the full unrolling of small constant loops: the window loops
//    of select-and-scatter and reduce-window (1.3x slower without);
//  - loop-idiom: zero fills and copies become memset / memcpy;
//  - inject-tli-mappings before the vectorizer: libmvec's vector functions;
//  - loop-hints-from-attributes (Optimize's own pass) before it: the interleave counts and
//    widths kernels ask for by function attribute (memory-bound kernels: 1; the cached
//    fallback of streaming groups: scalar);
//  - no-unroll-vectorized right after it (Optimize's own pass) and loop-unroll without
//    partial or runtime unrolling: the vectorizer's loops stay as it interleaved them,
//    only small constant loops it left scalar unroll fully. x86 targets whose scheduling
//    model has a loop buffer (Zen 4) otherwise unroll vectorized loops 2-4x again and
//    fully unroll 1024-element rows: twice the machine code, 1.3-2.5x the compile time
//    of a kernel (reduce_sum 15.8-20.3 -> 7.2-8.2 ms, softmax 14.8-15.1 -> 10.8-11.9 ms,
//    CNN step 109-114 -> 103-104 ms), run times within noise;
//  - alignment-from-assumptions last: the streaming variants' vector stores must be
//    proven aligned (MarkStreamingStores).
// Without loop strength reduction (a sixth of code generation here), x86's indexed
// addressing serves our loops as well as the strength-reduced pointers. instcombine runs
// as in -O2, without the fixpoint check that pipeline text turns on by default.
constexpr const char* kKernelPipeline =
    "always-inline,"
    "function("
    "sroa,early-cse,simplifycfg,instcombine<no-verify-fixpoint>,"
    "loop-mssa(licm,loop-rotate,licm),simplifycfg,instcombine<no-verify-fixpoint>,"
    "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),"
    "sroa,jump-threading,gvn,instcombine<no-verify-fixpoint>,loop-mssa(licm),simplifycfg,"
    "inject-tli-mappings,loop-hints-from-attributes,loop-vectorize,no-unroll-vectorized,infer-alignment,instcombine<no-verify-fixpoint>,simplifycfg,"
    "loop-unroll<O2;no-partial;no-runtime>,instcombine<no-verify-fixpoint>,alignment-from-assumptions)";

bool UsesKernelPipeline(const CpuCompileOptions& options) {
  return options.kernel_pipeline && options.opt_level == 2;
}

// Verifies, optimizes and compiles one kernel module with a target machine of its own.
void CompileKernelModule(KernelModule& km, const CpuCompileOptions& options) {
  auto fail = [&](Status st) { km.status = std::move(st); };
  {
    std::string errors;
    llvm::raw_string_ostream os(errors);
    if (llvm::verifyModule(*km.module, &os)) return fail(Internal("CPU backend produced invalid LLVM IR: " + errors));
  }
  auto tm = HostTargets::Get().Borrow(options.opt_level > 0);
  if (!tm.ok()) return fail(tm.status());
  if (options.keep_llvm_ir) km.bitcode = ToBitcode(*km.module);
  const bool kernel_pipeline = UsesKernelPipeline(options);
  if (Status st = Optimize(*km.module, tm->get(), options.opt_level, VectorMathLibraryLoaded(),
                           kernel_pipeline ? kKernelPipeline : "");
      !st.ok()) {
    return fail(st);
  }
  MarkStreamingStores(*km.module);
  InsertPrefetches(*km.module);
  if (options.keep_llvm_ir) km.bitcode_optimized = ToBitcode(*km.module);
  if (options.keep_assembly) {
    auto text = EmitAssembly(*km.module, tm->get(), !kernel_pipeline);
    if (!text.ok()) return fail(text.status());
    km.assembly = std::move(*text);
  }
  auto emitter = tm->Emitter(!kernel_pipeline);
  if (!emitter.ok()) return fail(emitter.status());
  km.object = (*emitter)->Emit(*km.module);
}

// The modules' IR linked into one module and printed, globals and functions in the order
// they were emitted (`order`: "g" or "f" + name), as one module would have held them.
StatusOr<std::string> LinkedText(std::vector<KernelModule>& modules, bool optimized,
                                 const std::vector<std::string>& order, const std::string& name,
                                 const llvm::DataLayout& layout, const std::string& triple) {
  llvm::LLVMContext context;
  llvm::Module linked(name, context);
  linked.setDataLayout(layout);
  linked.setTargetTriple(triple);
  llvm::Linker linker(linked);
  for (KernelModule& km : modules) {
    if (!km.has_code) continue;
    const auto& bitcode = optimized ? km.bitcode_optimized : km.bitcode;
    auto part = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name),
                                       context);
    if (!part) return FromLlvm(part.takeError(), "cannot read back a kernel's LLVM IR");
    if (linker.linkInModule(std::move(*part))) return Internal("cannot link the kernels' LLVM IR for printing");
  }
  // The same text whatever the partition: llvm.compiler.used (the vectorizer's list of
  // vector math variants, appended per module) deduplicated and sorted, declarations
  // sorted by name, then definitions in the order they were emitted (the linker moves
  // things around; optimization may have dropped some).
  if (llvm::GlobalVariable* used = linked.getGlobalVariable("llvm.compiler.used", true)) {
    std::map<std::string, llvm::Constant*> unique;
    if (auto* array = llvm::dyn_cast_or_null<llvm::ConstantArray>(used->getInitializer())) {
      for (llvm::Use& op : array->operands()) {
        auto* c = llvm::cast<llvm::Constant>(op.get());
        unique.emplace(c->stripPointerCasts()->getName().str(), c);
      }
    }
    used->eraseFromParent();
    std::vector<llvm::Constant*> values;
    for (const auto& [n, c] : unique) values.push_back(c);
    if (!values.empty()) {
      auto* type = llvm::ArrayType::get(llvm::PointerType::getUnqual(context), values.size());
      auto* list = new llvm::GlobalVariable(linked, type, false, llvm::GlobalValue::AppendingLinkage,
                                            llvm::ConstantArray::get(type, values), "llvm.compiler.used");
      list->setSection("llvm.metadata");
    }
  }
  for (const std::string& entry : order) {
    if (entry[0] != 'g') continue;
    if (llvm::GlobalVariable* v = linked.getGlobalVariable(entry.substr(1), true)) {
      v->removeFromParent();
      linked.insertGlobalVariable(v);
    }
  }
  std::map<std::string, llvm::Function*> declarations;
  for (llvm::Function& f : linked) {
    if (f.isDeclaration()) declarations.emplace(f.getName().str(), &f);
  }
  for (auto& [n, f] : declarations) {
    f->removeFromParent();
    linked.getFunctionList().push_back(f);
  }
  for (const std::string& entry : order) {
    if (entry[0] != 'f') continue;
    llvm::Function* fn = linked.getFunction(entry.substr(1));
    if (fn != nullptr && !fn->isDeclaration()) {
      fn->removeFromParent();
      linked.getFunctionList().push_back(fn);
    }
  }
  return ToText(linked);
}

// Whether a loop kernel does enough arithmetic per element to be bound by it rather than
// by memory: a transcendental function among its elementwise ops.
bool ComputeBound(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return false;
  const auto& fused = inst.fused_computation()->instructions();
  return std::any_of(fused.begin(), fused.end(), [](const auto& i) { return IsTranscendental(i->opcode()); });
}

// The JIT's IR compiler: never used, kernels reach the JIT as objects.
class ObjectsOnly : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  ObjectsOnly() : IRCompiler(llvm::orc::IRSymbolMapper::ManglingOptions()) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "module " + module.getName().str() + ": the CPU JIT links compiled kernels only");
  }
};

}  // namespace

StatusOr<std::unique_ptr<CpuCode>> CompileForCpu(const Module& module, const CpuCompileOptions& options) {
  Stopwatch watch;
  InitializeLlvmOnce();
  if (module.entry() == nullptr) return InvalidArgument("module " + module.name() + " has no entry computation");
  auto code = std::make_unique<CpuCodeImpl>();

  const bool optimize_codegen = options.opt_level > 0;
  ASSIGN_OR_RETURN(llvm::orc::JITTargetMachineBuilder jtmb, HostTargets::Get().Builder(optimize_codegen));
  llvm::DataLayout data_layout("");
  std::string triple;
  {
    ASSIGN_OR_RETURN(HostTargets::Lease tm, HostTargets::Get().Borrow(optimize_codegen));
    code->target_cpu_ = tm->getTargetCPU().str();
    data_layout = tm->createDataLayout();
    triple = tm->getTargetTriple().str();
  }
  code->EndStep("target", watch);

  // The kernels go into modules, each in a context of its own (an LLVMContext is
  // single-threaded), by units: a kernel, or a piece of a row kernel (EmitRowKernel), so
  // that a program of one softmax still compiles on several threads. Units are assigned
  // biggest first to the least loaded module by an estimate of their code, then the
  // kernels are emitted in program order on this thread (emitting is cheap). The threads
  // then take modules, biggest first, until none is left. Every module costs LLVM's set-up
  // once (~0.5-1 ms here), while more modules than threads let the threads even out the
  // estimate's errors: one module per thread for up to two units a thread, then one more
  // per thread for every two units a thread, up to four. (Measured on 2 threads, compile
  // ms: softmax and layer norm, 3 kernels: 9.1 on 3 modules, 8.1-8.5 on 2; MNIST, 11
  // kernels: 25 on 8, 22.5 on 2 or 4; MLP, 20 kernels: 38 on 2, 37 on 4, 34 on 8; CNN, 24
  // kernels: 73-74 on 2, 4 or 8.)
  std::vector<const Instruction*> kernel_insts;
  for (const Computation* comp : ProgramComputations(module)) {
    for (const auto& inst : comp->instructions()) {
      if (IsCpuKernel(*inst)) kernel_insts.push_back(inst.get());
    }
  }
  struct Unit {
    size_t kernel = 0;
    int64_t size = 0;
  };
  std::vector<Unit> units;
  std::vector<std::vector<size_t>> units_of(kernel_insts.size());
  for (size_t i = 0; i < kernel_insts.size(); ++i) {
    for (int64_t size : CompileUnitSizes(*kernel_insts[i])) {
      units_of[i].push_back(units.size());
      units.push_back({i, size});
    }
  }
  int threads = options.compile_threads > 0 ? options.compile_threads
                                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(units.size())));
  const size_t per_thread = std::clamp<size_t>(units.size() / (2 * static_cast<size_t>(threads)), 1, 4);
  const size_t partitions = std::max<size_t>(1, std::min<size_t>(units.size(), per_thread * static_cast<size_t>(threads)));
  std::vector<int> partition_of(units.size(), 0);
  std::vector<int64_t> load(partitions, 0);
  {
    std::vector<size_t> by_size(units.size());
    for (size_t u = 0; u < units.size(); ++u) by_size[u] = u;
    std::stable_sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) { return units[a].size > units[b].size; });
    for (size_t u : by_size) {
      const size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      partition_of[u] = static_cast<int>(least);
      load[least] += units[u].size;
    }
  }
  std::vector<KernelModule> modules(partitions);
  for (size_t p = 0; p < modules.size(); ++p) {
    KernelModule& km = modules[p];
    km.context = std::make_unique<llvm::LLVMContext>();
    km.module = std::make_unique<llvm::Module>(module.name() + "." + std::to_string(p), *km.context);
    km.module->setDataLayout(data_layout);
    km.module->setTargetTriple(triple);
  }
  std::vector<std::string> emitted;  // global and function names in program order (printing)
  std::unordered_set<std::string> seen;
  const int64_t prefetch_min = MinBytes(options.prefetch_min_bytes, PrefetchThresholdBytes);
  auto cancelled = [&] { return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed); };
  std::atomic<int64_t> steps_done{0};
  const int64_t steps_total = static_cast<int64_t>(kernel_insts.size() + modules.size());
  for (size_t i = 0; i < kernel_insts.size(); ++i) {
    if (cancelled()) return Cancelled();
    if (options.progress) options.progress(steps_done++, steps_total);
    const Instruction* inst = kernel_insts[i];
    // A row kernel's entry goes with its last piece (the outputs).
    llvm::Module& target = *modules[static_cast<size_t>(partition_of[units_of[i].back()])].module;
    auto kernel = std::make_unique<CpuKernel>();
    KernelEmitter emitter(target, options.streaming_store_min_bytes);
    std::vector<std::pair<llvm::Module*, size_t>> functions_before;  // the modules this kernel emits into
    if (units_of[i].size() > 1) {
      std::vector<llvm::Module*> pieces;
      for (size_t u : units_of[i]) pieces.push_back(modules[static_cast<size_t>(partition_of[u])].module.get());
      emitter.SetRowPieceModules(pieces);
      for (llvm::Module* m : pieces) {
        if (m != &target) functions_before.emplace_back(m, m->size());
      }
    }
    std::sort(functions_before.begin(), functions_before.end());
    functions_before.erase(std::unique(functions_before.begin(), functions_before.end()), functions_before.end());
    functions_before.emplace(functions_before.begin(), &target, target.size());
    Status st = emitter.Emit(*inst, kernel.get());
    if (!st.ok()) {
      // "line:col: CPU backend: ..." (the CLI puts the file in front, as parse errors read).
      const SourceLocation& at = inst->location();
      std::string where = at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "";
      return Status(st.code(), where + "CPU backend: " + st.message());
    }
    // Attributes for the functions this kernel defined.
    auto mark = [&](const char* attribute, const std::string& value) {
      for (auto [m, before] : functions_before) {
        for (auto f = std::next(m->begin(), static_cast<std::ptrdiff_t>(before)); f != m->end(); ++f) {
          if (!f->isDeclaration()) f->addFnAttr(attribute, value);
        }
      }
    };
    if (kernel->bytes_read >= prefetch_min) mark(kPrefetchAttribute, std::to_string(kPrefetchDistance));
    if (ComputeBound(*inst)) {
      // Polynomials (inline exp) are bound by arithmetic, not memory: 512-bit vectors where
      // the CPU has them (LLVM prefers 256 on AVX-512 parts unless told).
      mark("prefer-vector-width", "512");
      // A row kernel's loops run over a row in L1: two vectors per iteration hide the
      // polynomial's latency nearly as well as LLVM's four for a smaller kernel (softmax
      // f32[4096,1024], alternating processes: run 1.07-1.17 ms against 1.00-1.06,
      // compile 10.0-10.3 ms against 12.6-13.3; one vector: 1.28-1.59 ms, 9.1-10.0 ms).
      if (kernel->row_kernel) mark(kInterleaveAttribute, "2");
    } else if (kernel->bytes_read + kernel->bytes_written >= PastCacheBytes()) {
      // Loops of kernels bound by memory take one vector per iteration: interleaving more
      // (2-4 by LLVM's cost model) multiplies their code, not their speed.
      mark(kInterleaveAttribute, "1");
    }
    if (options.keep_llvm_ir) {
      // In the order of emission. A row kernel's pieces may be spread over modules: its
      // globals by name, its functions piece by piece as one module would hold them.
      std::vector<std::string> globals, functions;
      for (auto [m, before] : functions_before) {
        for (const llvm::GlobalVariable& g : m->globals()) {
          if (seen.insert("g" + g.getName().str()).second) globals.push_back("g" + g.getName().str());
        }
        for (const llvm::Function& f : *m) {
          if (seen.insert("f" + f.getName().str()).second) functions.push_back("f" + f.getName().str());
        }
      }
      if (!emitter.row_functions().empty()) {
        std::vector<std::string> order;
        for (const std::string& f : emitter.row_functions()) {
          order.push_back("f" + f + ".body");
          order.push_back("f" + f);
        }
        auto rank = [&](const std::string& f) { return std::find(order.begin(), order.end(), f) - order.begin(); };
        std::stable_sort(functions.begin(), functions.end(),
                         [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
        std::sort(globals.begin(), globals.end());
      }
      emitted.insert(emitted.end(), globals.begin(), globals.end());
      emitted.insert(emitted.end(), functions.begin(), functions.end());
    }
    for (const CpuLoopGroup& g : kernel->groups) code->function_to_hlo_[g.function] = inst->name();
    for (const std::string& f : emitter.row_functions()) code->function_to_hlo_[f] = inst->name();
    if (!kernel->comparator_function.empty()) code->function_to_hlo_[kernel->comparator_function] = inst->name();
    code->by_instruction_[inst] = kernel.get();
    code->kernels_.push_back(std::move(kernel));
  }
  for (KernelModule& km : modules) {
    km.has_code = std::any_of(km.module->begin(), km.module->end(),
                              [](const llvm::Function& f) { return !f.isDeclaration(); });
  }
  code->EndStep("emit_ir", watch);

  // Optimize and compile the modules on `threads` threads, biggest first.
  std::vector<size_t> order;
  for (size_t p = 0; p < modules.size(); ++p) {
    if (modules[p].has_code) order.push_back(p);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return load[a] > load[b]; });
  threads = std::max(1, std::min<int>(threads, static_cast<int>(order.size())));
  {
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k = next++; k < order.size(); k = next++) {
        if (cancelled()) break;
        CompileKernelModule(modules[order[k]], options);
        if (options.progress) options.progress(steps_done++ + 1, steps_total);
      }
    };
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(work);
    work();
    for (std::thread& t : helpers) t.join();
  }
  code->compile_threads_ = threads;
  if (cancelled()) return Cancelled();
  for (const KernelModule& km : modules) RETURN_IF_ERROR(km.status);
  code->EndStep("optimize_and_compile", watch);

  if (options.keep_llvm_ir) {
    ASSIGN_OR_RETURN(code->llvm_ir_, LinkedText(modules, false, emitted, module.name(), data_layout, triple));
    ASSIGN_OR_RETURN(code->llvm_ir_optimized_,
                     LinkedText(modules, true, emitted, module.name(), data_layout, triple));
    code->EndStep("print_ir", watch);
  }
  if (options.keep_assembly) {
    for (const KernelModule& km : modules) code->assembly_ += km.assembly;
  }

  // The JIT only links the compiled objects. No platform: kernels have no static
  // initializers (the generic platform would compile a module of its own per JIT). No IR
  // compiler either (its target machine cost ~0.3 ms a compile). Symbols (libm, libmvec,
  // memcpy) come from the process.
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(jtmb))
                 .setDataLayout(data_layout)
                 .setCompileFunctionCreator([](llvm::orc::JITTargetMachineBuilder)
                                                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                   return std::make_unique<ObjectsOnly>();
                 })
                 .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
                 .setLinkProcessSymbolsByDefault(false)
                 .create();
  if (!jit) return FromLlvm(jit.takeError(), "cannot create the JIT");
  auto generator = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return FromLlvm(generator.takeError(), "cannot search the process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  for (KernelModule& km : modules) {
    if (!km.object) continue;
    if (auto err = (*jit)->addObjectFile(std::move(km.object))) {
      return FromLlvm(std::move(err), "cannot add the kernels to the JIT");
    }
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
  code->EndStep("jit_link", watch);
  return std::unique_ptr<CpuCode>(std::move(code));
}

}  // namespace fusebox
