// The CPU code generator's memory hints: thresholds from the cache size (or the
// environment) above which loop groups stream their stores past the caches and kernels
// prefetch, the function attributes that ask for it, and the passes after optimization
// that act on them (non-temporal stores, prefetches).
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "compiler/codegen/cpu_compiler_internal.h"
#include "compiler/codegen/kernel_util.h"

namespace fusebox::codegen::cpu {

namespace {

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

// Functions given this attribute (by kernels reading past the cache) prefetch their
// vector loads in loops this many bytes ahead; see InsertPrefetches.
constexpr const char* kPrefetchAttribute = "fusebox-prefetch-distance";
constexpr int64_t kPrefetchDistance = 1024;

}  // namespace

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

// Whether a loop kernel does enough arithmetic per element to be bound by it rather than
// by memory: a transcendental function among its elementwise ops.
bool ComputeBound(const Instruction& inst) {
  if (inst.opcode() != Opcode::kFusion) return false;
  const auto& fused = inst.fused_computation()->instructions();
  return std::any_of(fused.begin(), fused.end(), [](const auto& i) { return IsTranscendental(i->opcode()); });
}

void MarkKernelFunctions(const Instruction& inst, const CpuKernel& kernel, int64_t prefetch_min_bytes,
                         const std::vector<std::pair<llvm::Module*, size_t>>& functions_before) {
  auto mark = [&](const char* attribute, const std::string& value) {
    for (auto [m, before] : functions_before) {
      for (auto f = std::next(m->begin(), static_cast<std::ptrdiff_t>(before)); f != m->end(); ++f) {
        if (!f->isDeclaration()) f->addFnAttr(attribute, value);
      }
    }
  };
  if (kernel.bytes_read >= prefetch_min_bytes) mark(kPrefetchAttribute, std::to_string(kPrefetchDistance));
  if (ComputeBound(inst)) {
    // Polynomials (inline exp) are bound by arithmetic, not memory: 512-bit vectors where
    // the CPU has them (LLVM prefers 256 on AVX-512 parts unless told).
    mark("prefer-vector-width", "512");
    // A row kernel's loops run over a row in L1: two vectors per iteration hide the
    // polynomial's latency nearly as well as LLVM's four for a smaller kernel (softmax
    // f32[4096,1024], alternating processes: run 1.07-1.17 ms against 1.00-1.06,
    // compile 10.0-10.3 ms against 12.6-13.3; one vector: 1.28-1.59 ms, 9.1-10.0 ms).
    if (kernel.row_kernel) mark(kInterleaveAttribute, "2");
  } else if (kernel.bytes_read + kernel.bytes_written >= PastCacheBytes()) {
    // Loops of kernels bound by memory take one vector per iteration: interleaving more
    // (2-4 by LLVM's cost model) multiplies their code, not their speed.
    mark(kInterleaveAttribute, "1");
  }
}

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

}  // namespace fusebox::codegen::cpu
