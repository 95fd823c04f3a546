// The GPU kernel emitter: one kernel (a fusion or a single op) to NVPTX entries (or, for
// the GPU emulator, host functions), its launches recorded in a GpuKernel. Loops,
// in-place updates, scatters, sorts and tiled transposes and dots are emitted in
// gpu_kernel_emitter.cc; reductions (warp and block trees, row kernels, column
// reductions) in gpu_reduction_emitter.cc. Internal to compiler/codegen: CompileForGpu
// and EmitGpuKernelsForHost (gpu_compiler.cc) drive it.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/passes/row_fusion.h"

namespace fusebox::codegen::gpu {

inline constexpr int64_t kBlock = 256;        // threads per block of most kernels
inline constexpr int64_t kWarp = 32;
// Row kernels hold at most this many elements of a row per thread in registers.
inline constexpr int64_t kMaxHeldRowElements = 32;
// Consecutive reduced elements a thread of a row reduction reads in one step.
inline constexpr int64_t kReductionVector = 4;
inline constexpr int64_t kTile = 32;          // transpose tile
inline constexpr int64_t kDotTile = 16;       // dot tile (16x16 threads, 16-wide K slices)
inline constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
inline constexpr int64_t kMaxGridYZ = 65535;

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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
  // Outputs (indices into the kernel's output leaves) shaped like the operand rather than
  // the result: a multi-output fusion's elementwise siblings of the reduction. The
  // reduction writes them where it reads the operand (each element once), so the whole
  // fusion is one pass over the operand instead of a loop kernel plus a reduction that
  // one thread per output would run serially.
  std::vector<int64_t> loop_outputs;
  // The outputs this reduction writes; empty: every output that is not a loop output. A
  // kernel with several reductions of different dimensions (MixedReductions) runs one
  // per group, each writing its own members, launch names told apart by launch_suffix.
  std::vector<int64_t> members;
  std::string launch_suffix;
};

// A multi-output fusion whose reductions differ in dimensions (a loss's row reduction and
// a bias gradient's column reduction), or with one reduction beside outputs of other
// shapes that do not read it (a loss next to parameter updates): each reduction with the
// outputs that are it or its epilogue (depending on no other reduction, of its result's
// shape), and the outputs that depend on no reduction. nullopt when an output fits
// neither.
struct MixedReductions {
  std::vector<ReductionInfo> reductions;
  std::vector<int64_t> loop_outputs;
};
std::optional<MixedReductions> AnalyzeMixedReductions(const Instruction& inst, const std::vector<OutputLeaf>& outputs);

// The reduction `inst` is built around, when it is one: every output of the kernel
// shaped like the heroes' result, or like their operand without depending on them (see
// ReductionInfo::loop_outputs).
std::optional<ReductionInfo> AnalyzeReduction(const Instruction& inst, const std::vector<OutputLeaf>& outputs);

// The dot at the heart of a kernel whose other instructions are all elementwise
// consumers of it of its shape (an output fusion's epilogue), or null.
const Instruction* TileableDot(const Instruction& inst);


// Fusebox's own kernel for gemm library call `call` of `module` (normalized layouts): a
// module whose entry computes the call's value (library_calls.h: its plain HLO) as one
// fusion named `<call>.fusebox` around its dot, its parameters the call's operands by
// number. Only for dots the libraries are weakest at: skinny ones (PlanSkinnyDot), ones
// contracting at most kDotTile elements (an outer product's few columns: one k slice of
// the tiled dot), and small tensor-core dots (PlanMmaDot with `options`' arch and TF32
// rule, at most kOwnMmaGemmFlops: a layer of a small MLP, where a library call's own
// overhead shows). Null otherwise, or when the call writes more than its value (a
// GELU_AUX epilogue); errors only for a call the plan or extraction refuses.
inline constexpr int64_t kOwnMmaGemmFlops = int64_t{1} << 29;
StatusOr<std::unique_ptr<Module>> GemmCallAsFusion(const Module& module, const Instruction& call,
                                                   const GpuCompileOptions& options);

// A kernel whose root is a transpose that moves the minor dimension (needs tiles through
// shared memory for coalesced reads and writes), or null.
const Instruction* TileableTranspose(const Instruction& inst, const std::vector<OutputLeaf>& outputs);

class GpuKernelEmitter {
 public:
  // `emulate`: kernels for the host CPU run by the GPU emulator (gpu_emulator.h): thread
  // ids, barriers and shuffles become calls into it, shared memory is ordinary memory.
  GpuKernelEmitter(llvm::Module& module, const GpuCompileOptions& options, bool emulate)
      : module_(module), context_(module.getContext()), options_(options), emulate_(emulate) {}

  // For the emulator: `<entry>_emu(ptr args)` calling each entry with its arguments read
  // from args[i] (a buffer pointer, or a pointer to an i64 scalar).
  void EmitEmulatorWrappers();

  // Emits `inst`'s kernel; with options.kernel_variants, a kernel launched through
  // BeginRowGroups also gets its other shapes (RowGroupVariants) as kernel->variants.
  Status Emit(const Instruction& inst, GpuKernel* kernel);

  // Threads a row: the default for rows of `length` elements (a block of kBlock past 1024
  // elements, else a warp), and the other shapes compiled as variants: at most three,
  // each giving every thread at least one 4-element slot of the row, up to 1024 threads.
  static int64_t DefaultRowGroup(int64_t length);
  static std::vector<int64_t> RowGroupVariants(int64_t length);
  static std::string RowGroupLabel(int64_t group);
  // An unsplit column reduction's threads a block and threads an output: 1024 when its
  // blocks are fewer than the GPU has SMs (128), else 256; the other is its variant.
  static std::string ColumnBlockLabel(int64_t block, int64_t walkers);
  // A skinny dot's wide rows a block (SkinnyRowChoices; the others are its variants).
  static std::string SkinnyLabel(int64_t rows);

 private:
  Status EmitKernel(const Instruction& inst, GpuKernel* kernel);
  static bool IsScatterLike(Opcode op) { return op == Opcode::kScatter || op == Opcode::kSelectAndScatter; }

  // PTX identifiers take letters, digits, '_' and '$': "fusion.2" -> "fusion_2", made
  // unique in the module; entries are this plus "_kernel", "_partials", ...
  std::string EntryBaseName(const std::string& hlo_name);

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
                   int64_t block_threads);

  Status EndEntry(Entry& e);

  // A special register (thread or block index), as i64. `which` numbers them for the
  // emulator: 0 tid.x, 1 ctaid.x, 2 ctaid.y, 3 ctaid.z.
  llvm::Value* Special(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, int which);
  llvm::Value* ThreadX(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, 0); }
  llvm::Value* BlockX(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, 1); }
  llvm::Value* BlockY(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y, 2); }
  llvm::Value* BlockZ(llvm::IRBuilder<>& b) { return Special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z, 3); }
  void Barrier(llvm::IRBuilder<>& b);

  // The global thread id of a 1-D launch.
  llvm::Value* GlobalThread(llvm::IRBuilder<>& b, int64_t block);

  // Runs `body` when `condition` holds. Values cached inside stay inside.
  void If(Entry& e, llvm::Value* condition, const std::string& name, const std::function<void()>& body);

  // Row-major multi-index of `linear` over `dims`, in 32-bit arithmetic when the space
  // fits (64-bit division is a long instruction sequence on GPUs).
  IrIndex Delinearize(llvm::IRBuilder<>& b, llvm::Value* linear, const std::vector<int64_t>& dims);

  // How many of begin, begin + stride, ... lie below `end` (0 unless `active`): the trip
  // count of a thread's strided loop.
  static llvm::Value* StridedCount(llvm::IRBuilder<>& b, llvm::Value* active, llvm::Value* begin, llvm::Value* end,
                                   int64_t stride);

  // A `for (i = 0; i < count; ++i)` loop with the emitter's scoping.
  void Loop(Entry& e, llvm::Value* count, const std::string& name, const std::function<void(llvm::Value*)>& body);

  // Stores every output of `members` at `index`. With `index_dims`, `index` runs over
  // those dimensions, and an output whose shape is the same but for dimensions of size 1
  // (a reduction's result reshaped to keep the reduced dimension, as jax's keepdims
  // writes it) is evaluated and stored at the same element of its own shape.
  void StoreOutputs(Entry& e, const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                    const std::vector<int64_t>& members, const IrIndex& index,
                    const std::vector<int64_t>* index_dims = nullptr);

  static GpuLaunch Launch1D(const std::string& function, int64_t threads, int64_t block = kBlock);

  // --- Elementwise / generic loops ---------------------------------------------------

  // A loop kernel over `space`: thread t computes `per_thread` consecutive elements of the
  // minor dimension (when it divides), so that loads of same-shaped operands are
  // contiguous and 16-byte aligned and LLVM merges them into vector loads. `full_block`:
  // blocks of kBlock threads however small the space is (a part of a merged launch, whose
  // parts share one block shape: MergeLaunches). `one_per_thread`: one element a thread,
  // for bodies that loop and branch (they do not merge into vector loads, and a thread
  // walking several of them one after the other leaves the GPU's memory system idle).
  Status EmitSpaceLoop(const Instruction& inst, GpuKernel* kernel, const std::string& name, const Shape& space,
                       int64_t buffer_count, int64_t skip_if_aliased,
                       const std::function<void(Entry&, const IrIndex&)>& body, bool full_block = false,
                       bool one_per_thread = false);

  Status EmitLoops(const Instruction& inst, const std::vector<OutputLeaf>& outputs, GpuKernel* kernel);
  // Launches `parts` of `kernel` (indices into its launches) are independent of each
  // other: they read the kernel's operands and write disjoint outputs. One launch runs
  // them all, each on its own range of blocks, in the order given: their entries become
  // device functions (internal, always inlined) whose block index counts from the start
  // of their range, and the merged entry calls the one its block belongs to. Parts with a
  // 2-D or 3-D grid, another block shape, dynamic shared memory, scalar arguments, a skip
  // condition or another parameter count than `buffer_count` stay launches of their own.
  void MergeLaunches(const Instruction& inst, GpuKernel* kernel, const std::vector<size_t>& parts, int64_t buffer_count);

  // --- In-place dynamic-update-slice ----------------------------------------------------

  Status EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, GpuKernel* kernel);

  // --- scatter / select-and-scatter -------------------------------------------------------

  // The initial result in parallel, then the updates in one thread, in the interpreter's
  // order (updates to one element may collide; a serial pass keeps results exact).
  Status EmitScatterLike(const Instruction& inst, const Instruction& root, GpuKernel* kernel);

  // --- Sort: a bitonic network ----------------------------------------------------------

  // Copies the operands into the results and numbers the elements along the sort
  // dimension (the stable tie-break), then one launch per compare-exchange step of a
  // bitonic network over the next power of two; partners past the end are skipped, which
  // sorts any length when each merge starts with the "flip" step.
  Status EmitSort(const Instruction& sort, GpuKernel* kernel);

  // --- TopK: a block a row ---------------------------------------------------------------

  // A topk the backends run as a kernel (passes::TopKKernelRefusal empty): one block of
  // TopKThreads(n) threads a row (gpu_topk_emitter.cc).
  Status EmitTopK(const Instruction& topk, GpuKernel* kernel);
  // jaxlib's small batched orgqr as one launch: a block a matrix, a thread a column of Q
  // (gpu_orgqr_emitter.cc; OrgqrRunsAsKernel).
  Status EmitOrgqr(const Instruction& call, GpuKernel* kernel);

  // rng-bit-generator: XLA's Philox and Threefry, a thread a counter (gpu_rng_emitter.cc).
  Status EmitRngBitGenerator(const Instruction& rng, GpuKernel* kernel);

 public:
  // Threads a row of a topk over rows of `length`: a warp, doubled up to kBlock while a
  // thread would scan more than 8 elements.
  static int64_t TopKThreads(int64_t length);

 private:
  // --- Reductions -----------------------------------------------------------------------

  // The running value of a reduction in one thread: per hero, its values; and whether any
  // element has been folded in yet (the init value is applied once, at the end, so any
  // associative reducer works, identity init or not).
  struct Accumulator {
    std::vector<std::vector<llvm::AllocaInst*>> values;
    llvm::AllocaInst* valid = nullptr;
  };

  // Flattened register types of all hero values.
  std::vector<llvm::Type*> ValueTypes(const ReductionInfo& info);

  Accumulator MakeAccumulator(Entry& e, const ReductionInfo& info);

  std::vector<llvm::Value*> Load(Entry& e, const Accumulator& acc);

  // Folds `values` (flattened, one per hero value), valid when `valid`, into `acc`.
  void Fold(Entry& e, const ReductionInfo& info, const Accumulator& acc, const std::vector<llvm::Value*>& values,
            llvm::Value* valid);

  // Moves `v` down `offset` lanes of the warp, any register type.
  llvm::Value* ShuffleDown(llvm::IRBuilder<>& b, llvm::Value* v, int64_t offset);
  // Lane `lane`'s value of `v` in every lane of the warp (shfl.sync.idx).
  llvm::Value* Broadcast(llvm::IRBuilder<>& b, llvm::Value* v, int64_t lane);
  llvm::Value* Shuffle(llvm::IRBuilder<>& b, llvm::Value* v, bool index, int64_t operand);

  // Tree reduction across the warp's lanes by shuffles (lane 0 ends with the result of
  // lanes [0, width)).
  void WarpReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t width);

  llvm::GlobalVariable* SharedArray(llvm::Type* element, int64_t count, const std::string& name);

  void StoreShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Value* v);

  llvm::Value* LoadShared(llvm::IRBuilder<>& b, llvm::GlobalVariable* array, llvm::Value* slot, llvm::Type* type);

  // The reduction of a group of `group` threads (lanes `lane`, `groups` groups per block):
  // shuffles within warps, then shared memory across the group's warps. Lane 0 of the
  // group ends with the result. Every thread of the block must call this (it has a barrier).
  void GroupReduce(Entry& e, const ReductionInfo& info, const Accumulator& acc, int64_t group, int64_t groups,
                   llvm::Value* group_in_block, llvm::Value* lane, const std::string& name);

  // Index of the heroes' operand for output element `o` (over the kept dimensions) and
  // reduced element `r` (over the reduced dimensions).
  IrIndex OperandIndex(llvm::IRBuilder<>& b, const ReductionInfo& info, const IrIndex& kept, llvm::Value* r);
  // Reduced elements a thread reads at once, consecutive in memory: kReductionVector when
  // the operand's minor dimension is reduced and splits into them and `span` (the elements
  // `threads` threads walk) is a whole number of such steps, else 1. Four f32 elements
  // are one 16-byte load (the load/store vectorizer merges them).
  static int64_t ReductionVector(const ReductionInfo& info, int64_t span, int64_t threads);
  // The operand index of reduced element `q * vector + v` of output `kept` (vector from
  // ReductionVector): the minor index made as a multiple of `vector` plus `v`, so that the
  // `vector` elements visibly sit side by side.
  IrIndex VectorOperandIndex(llvm::IRBuilder<>& b, const ReductionInfo& info, const IrIndex& kept, llvm::Value* q,
                             int64_t vector, int64_t v);

  std::vector<int64_t> OutputDims(const ReductionInfo& info);

  // The heroes' operand values at `index`, flattened.
  std::vector<llvm::Value*> HeroInputs(Entry& e, const ReductionInfo& info, const IrIndex& index);

  // Applies the init values, binds the heroes' results and stores every output at `o`.
  void FoldAndStore(Entry& e, const Instruction& inst, const ReductionInfo& info, Accumulator& acc,
                    const std::vector<OutputLeaf>& outputs, const IrIndex& index);
  void FinishOutputs(Entry& e, const Instruction& inst, const ReductionInfo& info, const Accumulator& acc,
                     const std::vector<OutputLeaf>& outputs, llvm::Value* o);

  // Byte offsets of each flattened value's partials array (and of the valid bytes) in
  // scratch, `rows` entries each.
  void StorePartial(Entry& e, const ReductionInfo& info, const Accumulator& acc, llvm::Value* scratch,
                    const std::vector<int64_t>& offsets, llvm::Value* row);
  std::vector<int64_t> PartialOffsets(const ReductionInfo& info, int64_t rows, int64_t* total);

  llvm::Value* PartialAddress(llvm::IRBuilder<>& b, llvm::Value* scratch, int64_t offset, llvm::Type* t, llvm::Value* row);
  // Folds partials row `row` of scratch into the accumulator. `fresh`: read past the L1
  // cache (volatile), for partials other blocks of the same launch wrote.
  void FoldPartial(Entry& e, const ReductionInfo& info, Accumulator& acc, llvm::Value* scratch,
                   const std::vector<int64_t>& offsets, llvm::Value* row, bool fresh);

  // --- Split reductions folded by their last block ---------------------------------------
  // A split reduction is one launch: every block writes its partial, and the block that
  // finishes last among those of the same outputs (an arrival counter per group of
  // outputs, in device memory zeroed when the module loads) folds their partials and
  // writes the outputs, then sets the counter back to 0 for the next launch. The writers
  // fence after their partials (__threadfence), the counting thread increments with an
  // atomic and fences again when its block is the last, and the block learns it behind a
  // barrier: the pattern of CUDA's threadFenceReduction sample.
  //
  // `count` zeroed u32 counters, device memory of the module (host memory in the emulator).
  llvm::GlobalVariable* ArrivalCounters(int64_t count, const std::string& name);
  // A memory fence at device scope (membar.gl; a host fence in the emulator).
  void DeviceFence(llvm::IRBuilder<>& b);
  // Called by every thread of the block after the writers fenced their partials: whether
  // this block is the last of `arrivals` to arrive at counter `group` (the same answer in
  // every thread). Two barriers; the last block's thread 0 resets the counter.
  llvm::Value* LastToArrive(Entry& e, llvm::GlobalVariable* counters, llvm::Value* group, int64_t arrivals,
                            llvm::Value* tid, const std::string& name);

  Status EmitReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                       GpuKernel* kernel);

  // A launch with a group of threads per row of `length` elements (DefaultRowGroup, or the
  // variant's; blocks of kBlock threads, or of the group when it is larger), `rows` rows:
  // the entry, and per thread its group
  // in the block, its lane, its row `o` (0 for the threads past the last row) and whether
  // that row exists (`active`).
  struct RowGroups {
    Entry e;
    int64_t group = 0, groups = 0;
    llvm::Value *group_in_block = nullptr, *lane = nullptr, *active = nullptr, *o = nullptr;
  };
  StatusOr<RowGroups> BeginRowGroups(const Instruction& inst, const std::string& name, int64_t buffer_count,
                                     int64_t rows, int64_t length, GpuLaunch* launch);

  // Row kernels (row_fusion.h: softmax, normalizations): a group of threads per row (a
  // block for rows of more than 1024 elements, else a warp: a 1024-element row is 32
  // elements a thread, held in registers, with shuffles and no block-wide fold between
  // the passes; the H200 ran softmax 4096x1024 at 12.6 us with a block per row, XLA at
  // 6.8 us). Each reduce in turn: every
  // thread folds its elements of the row, the group combines them, lane 0 applies the
  // init value and leaves the result in shared memory, and the whole group binds it for
  // the rest of the row. Then the group stores the outputs over the row.
  //
  // Rows of at most kMaxHeldRowElements per thread are held in registers: each thread's
  // elements (slots of 4 consecutive elements where the row allows: 16-byte accesses) are
  // indexed once, every pass is unrolled over them, and the values emitted at those
  // indices (the loads, exp(x - max)) are computed once and reused by later passes, so
  // the row is read from memory once. Longer rows loop over strided elements and read
  // the row again in each pass (from L1).
  struct RowSlots {
    bool held = false;       // the thread's elements are held in registers
    int64_t per_slot = 1;    // consecutive elements of a slot
    int64_t slots = 0;       // slots of a row
    int64_t per_thread = 0;  // slots of a thread: lane, lane + group, ...
  };
  struct RowElement {
    IrIndex index;                 // clamped into the row: every read is in bounds
    llvm::Value* valid = nullptr;  // the row exists and the element is in it
  };
  static RowSlots PlanRowSlots(const std::vector<int64_t>& element_dims, int64_t length, int64_t group);
  std::vector<RowElement> HeldRowElements(llvm::IRBuilder<>& b, const IrIndex& row, const std::vector<int64_t>& element_dims,
                                          const RowSlots& slots, int64_t group, llvm::Value* lane, llvm::Value* active);
  Status EmitRowKernel(const Instruction& inst, const passes::RowPlan& plan, const std::vector<OutputLeaf>& outputs,
                       GpuKernel* kernel);

  // Reductions that keep the operand's minor dimension: 32 consecutive outputs per block
  // (coalesced reads along it), 8 threads per output striding over the reduced elements,
  // folded through shared memory.
  Status EmitMixedReductions(const Instruction& inst, const MixedReductions& mixed, const std::vector<OutputLeaf>& outputs,
                             GpuKernel* kernel);
  Status EmitRowReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                          GpuKernel* kernel, int64_t buffer_count);
  Status EmitColumnReduction(const Instruction& inst, const ReductionInfo& info, const std::vector<OutputLeaf>& outputs,
                             GpuKernel* kernel);

  // --- Tiled transpose ------------------------------------------------------------------

  // 32x32 tiles of the two dimensions the transpose swaps into and out of the minor
  // position: a block reads a tile with consecutive threads along the input's minor
  // dimension, writes it through shared memory with consecutive threads along the
  // output's minor dimension. Remaining dimensions go to grid.z.
  Status EmitTiledTranspose(const Instruction& inst, const Instruction& transpose, GpuKernel* kernel);

  // --- Tiled dot ------------------------------------------------------------------------

  // 16x16 output tiles per block of 16x16 threads; 16-wide slices of the contracted
  // dimension staged in shared memory; operands computed elementally (fused producers run
  // in the load), the epilogue applied at the store.
  Status EmitTiledDot(const Instruction& inst, const Instruction& dot, GpuKernel* kernel);
  // The skinny dot (PlanSkinnyDot above).
  Status EmitSkinnyDot(const Instruction& inst, const Instruction& dot, const SkinnyDot& plan, GpuKernel* kernel);
  // A tensor-core dot (gpu_mma_dot_emitter.cc).
  Status EmitMmaDot(const Instruction& inst, const Instruction& dot, const MmaDot& plan, GpuKernel* kernel);
  // f32 -> its TF32 bits (i32), rounded to nearest, ties away from zero.
  static llvm::Value* RoundToTf32(llvm::IRBuilder<>& b, llvm::Value* f32);
  // One warp-wide mma.sync m16n8k8 TF32: this lane's fragments a (4 x i32), b (2 x i32)
  // and accumulators c (4 x f32); returns d = a . b + c (this lane's 4 f32).
  std::vector<llvm::Value*> MmaTf32(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& a,
                                    const std::vector<llvm::Value*>& bb, const std::vector<llvm::Value*>& c);
  // The index into dot operand `operand` (0: lhs, 1: rhs) of batch element `batch_index`,
  // free element `free` (linear over its free dimensions) and contracted element `k`.
  IrIndex DotOperandIndex(llvm::IRBuilder<>& b, const Instruction& dot, const DotSpace& space, int64_t operand,
                          const IrIndex& batch_index, llvm::Value* free, llvm::Value* k);
  // Binds the dot to `value` at output (batch, m, n), evaluates the kernel's root there and
  // stores it.
  void StoreDotOutput(Entry& e, const Instruction& inst, const Instruction& dot, const DotSpace& space,
                      const IrIndex& batch_index, llvm::Value* m, llvm::Value* n, llvm::Value* value);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  const GpuCompileOptions& options_;
  const bool emulate_;
  std::unordered_set<std::string> used_names_;
  // A launch shape a kernel may take besides its default (GpuKernel::variants): threads a
  // row for row kernels and row reductions, threads a block for unsplit column reductions.
  struct LaunchShape {
    int64_t row_group = 0;     // threads a row (0: not set)
    int64_t column_block = 0;  // threads a block of a column reduction (0: not set)
    int64_t skinny_rows = 0;   // wide rows a block of a skinny dot (0: not set)
    std::string label;         // "64 threads a row"
    std::string suffix;        // of the variant's entry name: "_t64", "_b1024"
    int64_t mma_tile = -1;     // block tile of a tensor-core dot (-1: not set)
    int64_t mma_splits = -1;   // its parts of k (-1: by the plan's rule)
    int64_t column_splits = 0; // parts of the rows of a column reduction (0: by its rule)
  };
  // While a variant is emitted: its shape (else all 0).
  LaunchShape shape_;
  // Emissions that could take other shapes so far, and the last one's label and others.
  int64_t shaped_ = 0;
  std::string shaped_label_;
  std::vector<LaunchShape> other_shapes_;
  // Records a shaped emission (when not emitting a variant).
  void OfferShapes(const std::string& label, std::vector<LaunchShape> others);
};

}  // namespace fusebox::codegen::gpu
