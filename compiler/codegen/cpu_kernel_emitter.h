// The CPU kernel emitter: one kernel (a fusion or a single op) to LLVM IR functions, its
// loop groups recorded in a CpuKernel. Loop kernels, split and column reductions,
// streaming variants, in-place updates, scatters and sort comparators are emitted in
// cpu_kernel_emitter.cc; row kernels (softmax, normalizations) in cpu_row_kernel.cc;
// loops over loop atoms and tiled transposes in cpu_atom_loops.cc.
// Internal to compiler/codegen: CompileForCpu (cpu_compiler.cc) drives it.
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/codegen/cpu_compiler.h"
#include "compiler/codegen/cpu_compiler_internal.h"
#include "compiler/codegen/elemental_emitter.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/passes/row_fusion.h"

namespace fusebox::codegen::cpu {

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

  // Emits `inst`'s kernel into the module and describes it in `kernel`.
  Status Emit(const Instruction& inst, CpuKernel* kernel);

 private:
  // Output indices grouped by dimensions: one loop nest per group.
  using OutputGroups = std::vector<std::vector<int64_t>>;

  // --- Loop kernels (cpu_kernel_emitter.cc) ---

  // A loop kernel: its outputs grouped by dimensions, the reduction plans chosen, then the
  // partial loops those plans need and a loop group per output group.
  Status EmitLoops(const Instruction& inst, CpuKernel* kernel);
  static OutputGroups GroupOutputsByDimensions(const std::vector<OutputLeaf>& outputs);
  // Chooses how the kernel's reductions run (rows_, columns_, the returned split reduce)
  // and sizes the scratch they need.
  const Instruction* PlanReductions(const Instruction& inst, const std::vector<OutputLeaf>& outputs,
                                    const OutputGroups& groups, CpuKernel* kernel);
  // Elementwise outputs shaped like the column reductions' operand are stored from
  // inside their loop (each element is visited once), not by a second pass: their
  // groups are marked `merged`, their outputs returned.
  std::vector<int64_t> MergeColumnSideOutputs(const std::vector<OutputLeaf>& outputs, const OutputGroups& groups,
                                              std::vector<bool>* merged) const;
  // Side outputs: a group of elementwise outputs shaped like a row reduction's operand
  // is stored from inside that reduction's loop, one pass over the rows with each
  // value computed once (softmax's exp and its sum), instead of a second loop nest.
  static void FindSideReduces(const std::vector<OutputLeaf>& outputs, const OutputGroups& groups,
                              std::vector<bool>* merged, std::vector<const Instruction*>* side_reduce,
                              std::vector<std::vector<int64_t>>* side_members);
  // Row chaining: every group iterates dimension 0 of its outputs, all of one extent.
  static void PlanRowChaining(const Instruction& inst, const std::vector<OutputLeaf>& outputs, CpuKernel* kernel);
  // The loop group of output group `g` (of `group_count`): a row kernel, a streaming
  // and a cached variant behind a dispatcher, or one plain loop nest.
  Status EmitLoopGroup(const Instruction& inst, CpuKernel* kernel, const std::vector<OutputLeaf>& outputs,
                       const std::vector<int64_t>& members, size_t g, size_t group_count, int64_t buffer_count,
                       const Instruction* side_reduce, const std::vector<int64_t>& side_members);

  Status EmitGroup(const Instruction& inst, const CpuKernel& kernel, const std::vector<OutputLeaf>& outputs,
                   const std::vector<int64_t>& members, int64_t partition_dim, int64_t buffer_count,
                   const std::string& name, const Instruction* side_reduce = nullptr,
                   const std::vector<int64_t>& side_members = {});

  // for i in [begin, end) of `partition_dim`, then every inner dimension: body(index).
  void EmitPartitionedLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const Shape& shape, int64_t partition_dim,
                            llvm::Value* begin, llvm::Value* end, const std::function<void(const IrIndex&)>& body);

  // --- Loop atoms and tiled transposes (cpu_atom_loops.cc) ---

  // A group planned by PlanLoopAtoms without tiles: for i in [begin, end) of
  // `partition_dim` (split into its atoms), then every later atom; the output index a
  // multiply-add of the atoms, its factors told to the emitter.
  void EmitAtomLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, const LoopAtoms& plan, int64_t partition_dim,
                     llvm::Value* begin, llvm::Value* end, const std::function<void(const IrIndex&)>& store_all);
  // A tiled group: iteration i of [begin, end) is a strip of plan.tile_k values of atom k
  // (LoopAtoms::Iterations); along o, per tile of tile_k x tile_o, each tiled buffer's
  // tile is loaded by rows along k, transposed in registers by 8x8 blocks into a stack
  // tile, and the outputs are computed with o inner reading the tiled buffers from their
  // tiles (BindScalar). Edges that are not whole tiles run element by element.
  void EmitTiledLoops(ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Function* body, const LoopAtoms& plan,
                      llvm::Value* begin, llvm::Value* end, const std::function<void(const IrIndex&)>& store_all);

  // The partial (per-row) loop of a split reduction: partials[row] = reduce of row.
  Status EmitPartials(const Instruction& inst, const CpuKernel& kernel, const Instruction& reduce,
                      int64_t buffer_count, const std::string& name);

  // Each column reduction's partials in the kernel's scratch (its last buffer): shape
  // [chunks, columns] (`flat`) or [chunks, output dimensions...].
  std::vector<IrArray> ColumnPartials(llvm::IRBuilder<>& b, llvm::Function* body, int64_t buffer_count, bool flat);

  // The first loop of column reductions: iteration `it` folds the rows of chunk
  // it / blocks into the partials of the kept elements in block it % blocks, the rows
  // outer and the kept elements (contiguous in the operand and in the partials) inner.
  // Outputs `side` (of the operand's shape) are stored at every visited element.
  Status EmitColumnPartials(const Instruction& inst, const CpuKernel& kernel, const ColumnPlan& plan,
                            int64_t buffer_count, const std::string& name, const std::vector<OutputLeaf>& outputs,
                            const std::vector<int64_t>& side);

  // Whether a loop group's outputs are big enough to stream past the caches: plain
  // elementwise groups (no reduction folded in) over rows (buffers are row-major, see
  // layout_normalization.h) of whole 64-byte multiples,
  // writing more than StreamingThresholdBytes() (what they write would mostly be evicted
  // before anything read it again anyway).
  bool StreamsOutputs(CpuKernel::Kind kind, const std::vector<OutputLeaf>& outputs,
                      const std::vector<int64_t>& members, int64_t partition_dim, bool side_reduce) const;

  // `name(buffers, begin, end)`: the streaming variant when every output of the group is
  // 64-byte aligned, else the cached one.
  void EmitStreamingDispatch(const std::string& name, int64_t operand_count, const std::vector<int64_t>& members);

  // --- Sorts, in-place updates and scatters (cpu_kernel_emitter.cc) ---

  // `NAME.comparator(ptr args, ptr context) -> i8`: a sort's comparator for the library
  // sort.
  Status EmitComparator(const Instruction& sort, CpuKernel* kernel);

  // In place: a parallel copy of operand 0 (skipped at run time when the result already
  // shares its buffer), then a parallel loop over the update writing only that window.
  Status EmitInPlaceUpdate(const Instruction& inst, const Instruction& dus, CpuKernel* kernel);

  static bool IsScatterLike(Opcode op) { return op == Opcode::kScatter || op == Opcode::kSelectAndScatter; }

  // scatter / select-and-scatter (alone or as a fusion's root): a parallel loop writes the
  // initial result (the operands' copy, or the init value), then one serial loop applies
  // the updates in the interpreter's order, reading and writing the result buffers.
  Status EmitScatterLike(const Instruction& inst, const Instruction& root, CpuKernel* kernel);

  // --- Row kernels (cpu_row_kernel.cc) ---

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
                       const std::string& name);

  // Reduce `j` of the row plan over `row`, storing the values kept for later loops into
  // their row buffers as its loop computes them.
  std::vector<llvm::Value*> EmitRowReduction(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t j,
                                             const IrIndex& row, const std::vector<IrArray>& row_buffers) const;

  // `name.row<j>(void** buffers, i64 row..., values, void** row_buffers)`.
  static llvm::FunctionType* RowReduceType(llvm::LLVMContext& context, int64_t row_rank);

  // Reduce `j`'s values from their slots.
  StatusOr<std::vector<llvm::Value*>> LoadRowValues(llvm::IRBuilder<>& b, llvm::Value* values, size_t j,
                                                    const std::vector<int64_t>& first_slot) const;

  static std::string RowPieceName(const std::string& kernel_function, size_t reduce);
  static constexpr int64_t kRowSlotBytes = 16;  // one reduce value (complex128 at most)

  static void BindFusionParameters(const Instruction& inst, llvm::Function* body, ElementalEmitter& emitter);

  // Address of value `i` of reduce `j` among a row kernel's value slots, and its type.
  std::pair<PrimitiveType, llvm::Value*> RowSlot(llvm::IRBuilder<>& b, llvm::Value* values, size_t j, size_t i,
                                                 const std::vector<int64_t>& first_slot) const;

  // Binds what a row kernel's first `done` reduces found (their values, from the slots)
  // and kept (their row buffers).
  Status BindRowState(ElementalEmitter& emitter, llvm::IRBuilder<>& b, size_t done, llvm::Value* values,
                      const std::vector<IrArray>& row_buffers, const std::vector<int64_t>& first_slot) const;

  // Reduce `j` of a row kernel, in `target`: `name(void** buffers, i64 row..., values,
  // void** row_buffers)` and its always-inlined body (noalias buffers, row buffers and
  // value slots): the reduce over one row, the reduces before it bound, its value stored
  // in its slot.
  Status EmitRowReduce(llvm::Module& target, const Instruction& inst, const Shape& shape, int64_t buffer_count,
                       const std::string& name, size_t j, const std::vector<int64_t>& first_slot);

  // --- Shared by every kind of kernel (cpu_kernel_emitter.cc) ---

  // Stores output `m` of a kernel at `index` into its buffer (the body's parameter after
  // the operands'); false when a variadic reduce gave no such value.
  static bool StoreOutput(ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Function* body,
                          int64_t operand_count, const std::vector<OutputLeaf>& outputs, int64_t m,
                          const IrIndex& index);

  // Appends the first `count` pointers of the array `array` points to, loaded.
  static void LoadPointers(llvm::IRBuilder<>& b, llvm::Value* array, int64_t count, const std::string& name,
                           std::vector<llvm::Value*>& out);

  // Declares `name(void** buffers, i64 begin, i64 end)` and its always-inlined body with
  // noalias buffer parameters; returns the body.
  llvm::Function* DeclareKernel(int64_t buffer_count, const std::string& name);

  // Binds the kernel's operand buffers (and an output fusion's library result).
  void BindInputs(const Instruction& inst, const CpuKernel& kernel, llvm::Function* body, ElementalEmitter& emitter);

  llvm::Module& module_;
  llvm::LLVMContext& context_;
  const Instruction* split_ = nullptr;
  std::optional<ColumnPlan> columns_;
  std::optional<passes::RowPlan> rows_;
  std::optional<LoopAtoms> atoms_;  // the loop group being emitted runs over these atoms
  std::vector<llvm::Module*> row_piece_modules_;
  std::vector<std::string> row_functions_;
  bool streaming_ = false;  // emitting the streaming variant of a loop group
  int64_t streaming_min_bytes_ = 0;  // CpuCompileOptions::streaming_store_min_bytes
};

}  // namespace fusebox::codegen::cpu
