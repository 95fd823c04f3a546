// The elemental LLVM IR emitter: for an HLO instruction and a multi-dimensional index of
// its result, emits the IR that computes that one element from its operands' elements.
// Kernels are loops over an output index space that ask this emitter for the root's
// element; a fused producer is then computed in registers where it is used and never
// touches memory. Shared by the CPU backend and (later) the GPU backend.
//
// Buffers are dense and row-major with one slot per element in the element type's native
// encoding (pred and sub-byte types one byte), exactly like `Literal`'s storage, so the
// runtime moves literals in and out with memcpy. In registers, pred is i1, integers are
// iN (s4 is i4), f16/bf16 and the f8/f4 types are float (rounded back to their type after
// every operation, as the reference interpreter does), f32/f64 are float/double, and
// c64/c128 are {re, im} structs.
//
// Only files under compiler/codegen include this header (it includes LLVM's).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

using IrIndex = std::vector<llvm::Value*>;  // one i64 per logical dimension

// The LLVM type of one element slot in memory, and of a value in registers.
StatusOr<llvm::Type*> StorageType(llvm::LLVMContext& context, PrimitiveType type);
StatusOr<llvm::Type*> RegisterType(llvm::LLVMContext& context, PrimitiveType type);

// An array in memory: a base pointer and its shape (row-major, layout ignored).
class IrArray {
 public:
  IrArray() = default;
  IrArray(llvm::Value* base, Shape shape) : base_(base), shape_(std::move(shape)) {}
  llvm::Value* base() const { return base_; }
  const Shape& shape() const { return shape_; }
  llvm::Value* LinearIndex(llvm::IRBuilder<>& b, const IrIndex& index) const;
  llvm::Value* Address(llvm::IRBuilder<>& b, const IrIndex& index) const;

 private:
  llvm::Value* base_ = nullptr;
  Shape shape_;
};

// Converts between the register and storage representation of an element type.
llvm::Value* ToRegister(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* stored);
llvm::Value* ToStorage(llvm::IRBuilder<>& b, PrimitiveType type, llvm::Value* value);

// Choices a backend makes about how math is emitted; the defaults are the GPU's.
struct ElementalEmitterOptions {
  // exp (and logistic's exp) as inline polynomial IR (EmitInlineExp in the .cc: Cody-Waite
  // reduction, Taylor polynomial, 2^k in the exponent bits; <= 1 ulp for f32) instead of
  // llvm.exp. On the CPU llvm.exp becomes calls into glibc's libmvec, which cost a third
  // of softmax; on the GPU llvm.exp is linked from libdevice, already inline.
  bool inline_exp = false;
  // f32 (and f16/bf16, computed in f32) tanh, erf, expm1, log1p, cbrt, atan2 and pow as
  // inline IR working in double (EmitInlineF32Math in elemental_math.h: at most 1 ulp for
  // every input, docs/cpu-backend.md) instead of scalar libm calls (tanhf, erff, ...: a
  // GELU loop spent 18-23 ns an element in tanhf). f64 keeps its calls. The GPU links
  // libdevice, already inline.
  bool inline_f32_math = false;
  // f32 sin and cos inline too (with inline_f32_math): where glibc's libmvec is loaded the
  // vectorizer calls its sinf/cosf, 8 lanes at a time and ~4x faster than the inline
  // version (whose exact reduction of huge arguments costs table gathers), so the CPU sets
  // this only without libmvec.
  bool inline_f32_sin_cos = false;
  // Complex division and functions (exp, log, sqrt, abs, ...) as calls into libgcc and
  // glibc (__divsc3, cexpf, ...: the x86-64 calling convention), which is what the
  // interpreter's std::complex computes. Without (the GPU, which has no C library), they
  // are IR: the division libgcc's algorithm bit for bit, the functions formulas over
  // libdevice's real functions, c64 in double (elemental_complex.cc).
  bool c_library_complex = false;
};

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& module,
                   const ElementalEmitterOptions& options = {});

  // Elements of `inst` are read from memory instead of being computed.
  void BindArray(const Instruction* inst, IrArray array);
  // Row kernels: elements of `inst` are read from `row`, a buffer holding the current row
  // (shaped like the trailing dimensions of `inst`; the leading ones of the index are the
  // row's and are dropped). Forgotten by Unbind.
  void BindRowArray(const Instruction* inst, IrArray row);
  // Reduction splitting: the full reduce `reduce` is computed from per-row partial
  // results already in `partials` (f[rows]) instead of from its operand.
  void BindPartials(const Instruction* reduce, IrArray partials);
  // Column reductions: the reduce `reduce` (leading dimensions reduced) is computed from
  // per-chunk partial results already in `partials` (shape [chunks, output dims...], the
  // accumulator type), folded in chunk order, instead of from its operand.
  void BindColumnPartials(const Instruction* reduce, IrArray partials);
  // Side outputs of a reduction: while the loop of `reduce` runs over its operand, `visit`
  // is called with every operand index, so a kernel can store elementwise outputs of the
  // operand's shape in the same pass (exp in softmax's exp-and-sum) instead of a second
  // loop recomputing them. Values emitted at the same index inside the visit are the
  // same SSA computations LLVM then merges with the reduction's own.
  void SetReduceVisitor(const Instruction* reduce, std::function<void(const IrIndex&)> visit) {
    reduce_visitor_target_ = reduce;
    reduce_visitor_ = std::move(visit);
  }
  // Reducer ops emitted while this is set may be reassociated (lets LLVM vectorize
  // reductions, as XLA's CPU reduction emitter does with several accumulators).
  void set_reassociate_reductions(bool on) { reassociate_ = on; }
  // The reduction of row `row` (dimension 0 fixed) of a full reduce's operand: the
  // partial result of reduction splitting, starting from the reduce's init value.
  llvm::Value* EmitReduceRow(const Instruction* reduce, llvm::Value* row);
  // `inst` (a scalar, e.g. a reducer parameter) has the value `value` at every index.
  void BindScalar(const Instruction* inst, llvm::Value* value);
  // The same for a tuple-shaped instruction (a variadic reduce): one value per element.
  void BindValues(const Instruction* inst, std::vector<llvm::Value*> values);
  // Forgets a BindScalar/BindValues/BindRowArray binding.
  void Unbind(const Instruction* inst);
  // Index factors: the i64 index value `v` (a dimension of some index) is
  // `sum(parts[j].first * product of the sizes after j)`, each part in [0, its size): a
  // loop nest that runs a dimension as several finer loops says so, and a reshape that
  // splits the dimension at the parts' boundaries then takes the parts as they are
  // instead of dividing (div/mod of a loop index make the vectorizer gather).
  void SetIndexFactors(llvm::Value* v, std::vector<std::pair<llvm::Value*, int64_t>> parts);

  // The element of `inst` at `index` (an i64 per dimension of its shape). A tuple-shaped
  // instruction (a variadic reduce) gives one value per tuple element via EmitAll.
  llvm::Value* Emit(const Instruction* inst, const IrIndex& index);
  std::vector<llvm::Value*> EmitAll(const Instruction* inst, const IrIndex& index);

  // Emits a scalar computation (reducer, comparator) applied to `args`: one value per
  // root tuple element (or one for an array root).
  std::vector<llvm::Value*> EmitScalarComputation(const Computation& computation,
                                                  const std::vector<llvm::Value*>& args);

  // A reducer applied to accumulators and elements: narrow floats (f16, bf16, f8) stay
  // unrounded f32 (round the final value with Round), as the CPU reduction loops and the
  // interpreter accumulate them; rounding every step loses far more than the type's
  // tolerance and makes the result depend on the summation order.
  std::vector<llvm::Value*> EmitReducer(const Computation& reducer, const std::vector<llvm::Value*>& args);

  // The first error met (an op or type the emitter cannot emit); emission continues with
  // placeholder values so that callers check once at the end.
  const Status& status() const { return status_; }

  // Emits `for (i = begin; i < end; ++i) body(i)`; the body's cached values stay inside.
  // `keep_rolled` marks the loop llvm.loop.unroll.disable (see EmitLoopNest).
  void EmitLoop(llvm::Value* begin, llvm::Value* end, const std::string& name,
                const std::function<void(llvm::Value*)>& body, bool keep_rolled = false);
  // Nested loops over `bounds` (outermost first); body gets the index in `order` order
  // mapped back to dimension order (order[k] is the dimension of loop k). Every loop that
  // holds another stays rolled: fully unrolled, a small outer loop's constant index is
  // reassociated into the inner index's `or disjoint` chain, the flag is dropped, and the
  // vectorizer no longer sees the inner accesses as consecutive (gathers and scatters
  // for every unrolled copy but the first; a [2,4,128,128] divide ran 4x slower).
  void EmitLoopNest(const std::vector<int64_t>& bounds, const std::vector<int64_t>& order,
                    const std::string& name, const std::function<void(const IrIndex&)>& body);

  // Allocas go to the function's entry block so that mem2reg promotes them.
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, const std::string& name);

  // Operations on register values (exposed for kernels that combine values themselves).
  llvm::Value* Constant(PrimitiveType type, double value);
  llvm::Value* Int64(int64_t value) { return b_.getInt64(value); }
  // `x op y` on register values of `type`, with the interpreter's semantics (errors are
  // reported against `inst`).
  llvm::Value* Arithmetic(const Instruction* inst, Opcode op, PrimitiveType type, llvm::Value* x, llvm::Value* y) {
    return EmitBinary(inst, op, type, x, y);
  }
  llvm::Value* Convert(const Instruction* inst, PrimitiveType from, PrimitiveType to, llvm::Value* x) {
    return EmitConvert(inst, from, to, x);
  }
  // A value computed in f32 (f16, bf16, f8 results) rounded to `type`, as every op's result is.
  llvm::Value* Round(PrimitiveType type, llvm::Value* value) { return RoundToType(type, value); }
  // Cached values computed between PushScope and PopScope are forgotten afterwards: use
  // around code that does not dominate what follows (a branch, a loop the caller emits).
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }

 private:
  using CacheKey = std::pair<const Instruction*, std::vector<llvm::Value*>>;
  struct KeyHash {
    size_t operator()(const CacheKey& key) const;
  };
  using Cache = std::unordered_map<CacheKey, std::vector<llvm::Value*>, KeyHash>;

  llvm::Value* Fail(const Instruction* inst, const std::string& message);
  llvm::Value* Poison(const Shape& shape);
  // Dispatches by opcode to the Emit* below.
  std::vector<llvm::Value*> EmitUncached(const Instruction* inst, const IrIndex& index);
  std::vector<llvm::Value*> EmitTupleElement(const Instruction* inst, const IrIndex& index);
  // Data movement (elemental_data_movement.cc): the operand at a remapped index.
  llvm::Value* EmitCopyOrBitcast(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitBroadcast(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitTranspose(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitReverse(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitSlice(const Instruction* inst, const IrIndex& index);
  // Elementwise arithmetic (elemental_arithmetic.cc).
  llvm::Value* EmitSelect(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitClamp(const Instruction* inst, const IrIndex& index);
  // A unary or binary elementwise op; an error for any other op.
  llvm::Value* EmitElementwise(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitUnary(const Instruction* inst, llvm::Value* x);
  llvm::Value* EmitBinary(const Instruction* inst, Opcode opcode, PrimitiveType type,
                          llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitIntegerDivide(bool is_signed, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitIntegerRemainder(bool is_signed, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitIntegerPower(bool is_signed, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitCompare(const Instruction* inst, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitConvert(const Instruction* inst, PrimitiveType from, PrimitiveType to,
                           llvm::Value* x);
  llvm::Value* EmitBitcastConvert(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitConstant(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitReducePrecision(const Instruction* inst, llvm::Value* x);
  llvm::Value* EmitReshape(const Instruction* inst, const IrIndex& index);
  // The operand index of a reshape from [out] to [in] when the two dimension lists have a
  // common refinement (every boundary of one is a boundary of a finer list both split
  // into): each output dimension split into its pieces (by its index factors where they
  // have those boundaries, else by div/mod of that dimension alone), each operand
  // dimension a multiply-add of its pieces. Empty when there is no such refinement.
  IrIndex RefinedReshapeIndex(const Shape& out, const Shape& in, const IrIndex& index);
  llvm::Value* EmitConcatenate(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitPad(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitDynamicSlice(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitDynamicUpdateSlice(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitIota(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitGather(const Instruction* inst, const IrIndex& index);
  std::vector<llvm::Value*> EmitReduce(const Instruction* inst, const IrIndex& index,
                                       llvm::Value* fixed_row = nullptr);
  std::vector<llvm::Value*> EmitReduceWindow(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitDot(const Instruction* inst, const IrIndex& index);
  llvm::Value* EmitConvolution(const Instruction* inst, const IrIndex& index);
  llvm::Value* RoundToType(PrimitiveType type, llvm::Value* value);
  // Complex values (c64, c128) are {re, im} structs in registers and memory; their math
  // is std::complex's: GCC's inline multiply, libgcc's division, glibc's C99 functions.
  llvm::Value* MakeComplex(llvm::Value* re, llvm::Value* im);
  llvm::Value* CallComplex(const std::string& name, PrimitiveType type,
                           const std::vector<llvm::Value*>& args, bool unpacked, bool real_result);
  llvm::Value* ComplexMultiply(PrimitiveType type, llvm::Value* x, llvm::Value* y);
  llvm::Value* ComplexDivide(PrimitiveType type, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitComplexUnary(const Instruction* inst, llvm::Value* x);
  // cexp, clog, csqrt, csin, ... ("exp", "log", ...) of x: glibc's call with
  // options_.c_library_complex, else formulas (nullptr for a function without one).
  llvm::Value* ComplexFunction(const std::string& name, PrimitiveType type, llvm::Value* x);
  llvm::Value* ComplexFormula(const std::string& name, llvm::Value* re, llvm::Value* im);
  llvm::Value* InlineComplexDivide(PrimitiveType type, llvm::Value* x, llvm::Value* y);
  llvm::Value* EmitComplexBinary(const Instruction* inst, Opcode opcode, PrimitiveType type,
                                 llvm::Value* x, llvm::Value* y);
  llvm::Value* CallLibm(const std::string& name, PrimitiveType type,
                        const std::vector<llvm::Value*>& args);
  llvm::Value* Intrinsic(llvm::Intrinsic::ID id, PrimitiveType type,
                         const std::vector<llvm::Value*>& args);
  // op(x) (or op(x, y)) as inline IR, rounded to `type`, when options_.inline_f32_math is
  // set and x is a float register; nullptr otherwise (the caller emits its call).
  llvm::Value* InlineF32Math(Opcode op, PrimitiveType type, llvm::Value* x, llvm::Value* y = nullptr);
  // e^x on a float/double register value (unrounded), as options_.inline_exp chooses.
  llvm::Value* Exp(llvm::Value* x);
  llvm::Value* ClampIndex(llvm::Value* start, int64_t max_start, PrimitiveType type);

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
  llvm::LLVMContext& context_;
  ElementalEmitterOptions options_;
  std::unordered_map<const Instruction*, IrArray> arrays_;
  std::unordered_map<const Instruction*, IrArray> row_arrays_;
  std::unordered_map<const Instruction*, std::vector<llvm::Value*>> scalars_;
  std::unordered_map<const Instruction*, IrArray> partials_;
  std::unordered_map<const Instruction*, IrArray> column_partials_;
  std::unordered_map<llvm::Value*, std::vector<std::pair<llvm::Value*, int64_t>>> index_factors_;
  bool reassociate_ = true;
  const Instruction* reduce_visitor_target_ = nullptr;
  std::function<void(const IrIndex&)> reduce_visitor_;
  bool skip_rounding_ = false;
  int64_t loops_emitted_ = 0;  // inside a reducer: f16/bf16 accumulate in f32
  std::vector<Cache> scopes_;
  Status status_;
};

// The CPU backend's emitter: the same emitter with the CPU's math choices (the CPU
// compiler names this type for every emitter it creates; the GPU compiler uses the base).
class CpuElementalEmitter : public ElementalEmitter {
 public:
  CpuElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& module)
      : ElementalEmitter(b, module, CpuOptions()) {}

  // inline_exp, inline_f32_math and, without libmvec, inline_f32_sin_cos. In the
  // environment, FUSEBOX_CPU_LIBM_MATH=1 turns the inline f32 math off (the libm calls)
  // and FUSEBOX_CPU_INLINE_SIN_COS=1 turns sin and cos on, for benchmarks and tests.
  static ElementalEmitterOptions CpuOptions();
};

}  // namespace fusebox::codegen
