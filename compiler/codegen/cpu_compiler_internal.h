// What the pieces of the CPU code generator share. CompileForCpu (cpu_compiler.cc) drives
// them: the kernel plans (cpu_kernel_plans.cc), the kernel emitter (cpu_kernel_emitter.h),
// the memory hints (cpu_memory_hints.cc) and the JIT with its object and text output
// (cpu_jit.cc). Internal to compiler/codegen.
#pragma once

#include <llvm/ADT/SmallVector.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/codegen/cpu_compiler.h"
#include "compiler/codegen/elemental_emitter.h"
#include "compiler/passes/row_fusion.h"

namespace fusebox::codegen::cpu {

using ElementalEmitter = CpuElementalEmitter;  // CPU math choices (inline exp)

// --- Kernel plans (cpu_kernel_plans.cc) ---

// A full reduction big enough to split: every dimension reduced, a long major
// dimension to spread over threads, an identity init, one operand.
const Instruction* SplittableReduce(const Instruction& inst);

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
PrimitiveType ColumnAccumulatorType(PrimitiveType type);

// Whether a reduce or reduce-window feeds `inst` (`seen`: instructions already visited).
bool FeedsFromReduce(const Instruction* inst, std::unordered_set<const Instruction*>& seen);

// The column reductions of `inst` (itself or fused) that share one operand shape and
// reduced rank, with their chunking and scratch layout; none when there are none.
std::optional<ColumnPlan> PlanColumnReductions(const Instruction& inst);

// Operand elements folded into each output element by the reductions of `inst` (itself
// or fused) whose output has `shape`'s dimensions; 1 when there is none. A column
// reduction's output element folds only its chunks' partials.
int64_t ReducedElementsPerOutput(const Instruction& inst, const Shape& shape, const ColumnPlan* columns = nullptr);

// Row chaining (see CpuKernel::rows): which parameters of fusion `inst` are read only at
// the row its outputs are computed for, when every output is computed at indices whose
// dimension 0 is the row.
std::vector<bool> RowLocalParameters(const Instruction& inst);

// Elementwise functions computed by polynomials or library calls: tens of operations per
// element instead of one.
bool IsTranscendental(Opcode op);

// Loop atoms (see KernelEmitter::EmitAtomLoops): a loop group whose index reaches every
// buffer it reads through elementwise ops, transposes, broadcasts and reshapes runs over
// the finest split of its output dimensions those reshapes need (the common refinement:
// f32[2,128,256] read as transpose(f32[2,4,128,64]) runs over [2,128,4,64]), so that no
// index is divided; each buffer read is then a permutation of the atoms (minus the ones
// broadcast). When some buffer's minor atom `k` is not the output's minor atom `o` but
// holds `o` (a transpose of the two), the group runs by tiles of k x o: each such
// buffer's tile is read by rows along k (vector loads), transposed in registers (8x8
// blocks) into a stack tile laid out along o, and the elements are then computed and
// stored with o inner, every access contiguous.
struct LoopAtoms {
  struct Access {
    const Instruction* leaf = nullptr;  // a fused parameter or the kernel's operand
    int64_t buffer = -1;                // its buffer (the kernel's operand number)
    std::vector<std::vector<int64_t>> dims;  // per dimension of the leaf, its atoms
  };
  std::vector<int64_t> sizes;                     // atoms, major to minor (the loop order)
  std::vector<std::vector<int64_t>> output_dims;  // per output dimension, its atoms
  std::vector<Access> accesses;
  // Tiling: the atoms k (the transposed buffers' minor one) and o (the output's minor
  // one), the tile, and the accesses read through the tile; k < 0 when not tiled.
  int64_t k = -1;
  int64_t o = -1;
  int64_t tile_k = 0;
  int64_t tile_o = 0;
  std::vector<size_t> tiled;
  // Tiled groups: the parallel iterations (the atoms but k and o, times the k tiles).
  int64_t Iterations() const;
};

// The loop atoms of the outputs `roots` (of dimensions `shape`) of kernel `inst`; none
// when some index reaches a buffer through another op, when a reshape has no common
// refinement with the index, or when the atoms are the output's dimensions and no
// buffer is transposed (the plain loop nest is the same loop).
std::optional<LoopAtoms> PlanLoopAtoms(const Instruction& inst, const std::vector<const Instruction*>& roots,
                                       const Shape& shape);

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

std::vector<RowLoop> RowLoops(const Instruction& inst, const passes::RowPlan& plan);

// The units CompileForCpu spreads over modules for one kernel: a row kernel's outlined
// reduces, then the rest of it (its entry, inline loops included); or the whole kernel.
std::vector<int64_t> CompileUnitSizes(const Instruction& inst);

// --- Memory hints (cpu_memory_hints.cc) ---

// Loop groups with a streaming variant (see KernelEmitter::StreamsOutputs) name it so.
inline constexpr char kStreamingSuffix[] = ".streaming";

// An eighth of the last-level cache, at least 8 MiB; 64 MiB when unknown: data past this
// is taken to come from and go to memory, not the caches.
int64_t PastCacheBytes();
// Loop groups writing at least this many bytes get a streaming variant.
int64_t StreamingThresholdBytes();
// Kernels reading at least this many bytes prefetch.
int64_t PrefetchThresholdBytes();
// A threshold option as CpuCompileOptions spells them: bytes when positive, `fallback()`
// (the environment or the cache size) when 0, never (the largest value) when negative.
int64_t MinBytes(int64_t option, int64_t (*fallback)());

// Whether a loop kernel does enough arithmetic per element to be bound by it rather than
// by memory: a transcendental function among its elementwise ops.
bool ComputeBound(const Instruction& inst);

// The function attributes for the functions one kernel defined (in each module of
// `functions_before`, those past the count it held before the kernel was emitted):
// prefetching when it reads at least `prefetch_min_bytes`, wide vectors when it is
// compute bound, one vector an iteration when it is bound by memory.
void MarkKernelFunctions(const Instruction& inst, const CpuKernel& kernel, int64_t prefetch_min_bytes,
                         const std::vector<std::pair<llvm::Module*, size_t>>& functions_before);

// After optimization: prefetches ahead of the vector loads in loops of the functions
// MarkKernelFunctions asked it of.
void InsertPrefetches(llvm::Module& module);

// After optimization: the aligned vector stores of streaming variants become
// non-temporal.
void MarkStreamingStores(llvm::Module& module);

// --- JIT, objects and printed stages (cpu_jit.cc) ---

// LLVM's native target, once per process.
void InitializeLlvmOnce();

// What CompileForCpu needs of the host's target machine.
struct HostTarget {
  std::string cpu;
  llvm::DataLayout data_layout{""};
  std::string triple;
};
StatusOr<HostTarget> DescribeHostTarget(bool optimize);
// A builder of the host's target machines, for the JIT.
StatusOr<llvm::orc::JITTargetMachineBuilder> HostJitTargetBuilder(bool optimize);

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

// Verifies, optimizes and compiles one kernel module with a target machine of its own.
void CompileKernelModule(KernelModule& km, const CpuCompileOptions& options);

// The modules' IR linked into one module and printed, globals and functions in the order
// they were emitted (`order`: "g" or "f" + name), as one module would have held them.
StatusOr<std::string> LinkedText(std::vector<KernelModule>& modules, bool optimized,
                                 const std::vector<std::string>& order, const std::string& name,
                                 const llvm::DataLayout& layout, const std::string& triple);

// The JIT holding the modules' compiled objects, with every kernel's loop groups and
// comparator resolved to their entry points.
StatusOr<std::unique_ptr<llvm::orc::LLJIT>> LinkKernels(llvm::orc::JITTargetMachineBuilder jtmb,
                                                        const llvm::DataLayout& data_layout,
                                                        std::vector<KernelModule>& modules,
                                                        std::vector<std::unique_ptr<CpuKernel>>& kernels);

}  // namespace fusebox::codegen::cpu
