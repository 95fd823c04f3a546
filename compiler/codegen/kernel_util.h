// Helpers shared by the CPU and GPU kernel emitters: which instructions are kernels and
// what they produce, cost estimates, the ops no backend emits, and the serial scatter /
// select-and-scatter update loops (the same IR on both targets). Only files under
// compiler/codegen include this header (it includes LLVM's).
#pragma once

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <string>
#include <vector>

#include "compiler/codegen/elemental_emitter.h"
#include "compiler/ir/module.h"
#include "compiler/support/compile_trace.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

// One output of a kernel: an instruction and, for tuple-shaped instructions (variadic
// reduce), which of its values.
struct OutputLeaf {
  const Instruction* inst;
  int64_t value;  // -1: the array itself
  Shape shape;
};

std::string ToText(const llvm::Module& module);
Status FromLlvm(llvm::Error error, const std::string& what);
int64_t ArrayBytes(const Shape& shape);
bool IsLibraryOp(Opcode op);
// Why no backend can emit `inst` as a kernel, or "" when it can.
std::string UnsupportedReason(const Instruction& inst);
int64_t EstimateFlops(const Instruction& inst);
// Whether `init` is the identity of `reducer` (add 0, multiply 1, max -inf, min +inf, or 0).
bool IsIdentityInit(const Computation& reducer, const Instruction& init);
// The kernel's outputs: root tuple operands, a variadic reduce's values, or the root.
std::vector<OutputLeaf> KernelOutputs(const Instruction& inst);
// A dynamic-update-slice (alone, or the root of a fusion whose operand 0 is a fused
// parameter that nothing else in the fusion reads) can write into its operand's buffer.
const Instruction* InPlaceUpdate(const Instruction& inst);
bool Contains(const std::vector<int64_t>& v, int64_t x);
// Every array the kernel touches must have an element type the emitter supports.
Status CheckElementTypes(llvm::LLVMContext& context, const Instruction& inst);
// The result arrays of a scatter or select-and-scatter `root` (of kernel `inst`), after
// checking its operands and attributes; one per scattered operand.
StatusOr<std::vector<Shape>> ScatterLikeResults(const Instruction& inst, const Instruction& root);
// The updates of a scatter, serially in the interpreter's order, into `results` (already
// holding the initial values).
void EmitScatterUpdates(const Instruction& scatter, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                        const std::vector<IrArray>& results);
// The updates of a select-and-scatter, serially, into `result` (holding the init value).
// With `outer_dim` >= 0 (a dimension whose window neither spans nor strides nor pads, see
// SelectAndScatterParallelDim), only sources with that index in [begin, end): those
// updates touch only the same slice of the result, so slices may run in parallel.
void EmitSelectAndScatterUpdates(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                 const IrArray& result, int64_t outer_dim = -1, llvm::Value* begin = nullptr,
                                 llvm::Value* end = nullptr);
// The value of select-and-scatter `sas`'s result at operand position `e`, gathered:
// the init value combined with the source of every window that covers `e` and selects
// it (each window scanned as EmitSelectAndScatterUpdates does). Every result element is
// independent of the others, so a kernel computes them all in parallel without atomics;
// sources combine in the order of the window taps that reach `e`.
llvm::Value* EmitSelectAndScatterGather(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                        const IrIndex& e);
// Whether the windows of select-and-scatter `sas` tile its operand: every operand element
// lies in exactly one window (in every dimension stride = size, no padding, no dilation,
// the operand's size the source's times the stride), as a max pool's 2x2 stride-2 windows
// over even sizes do. Then each window can write its whole part of the result.
bool SelectAndScatterWindowsTile(const Instruction& sas);
// For a tiling select-and-scatter (SelectAndScatterWindowsTile), the window of source
// index `s`: selects as EmitSelectAndScatterUpdates does, then stores into `result` at
// every element of the window: the scatter of the source with the init value at the
// selected one (the gathered value, EmitSelectAndScatterGather: one window covers it),
// the init value at the others. One thread per window writes every result element once.
void EmitSelectAndScatterWindow(const Instruction& sas, ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                                const IrIndex& s, const IrArray& result);
// A dimension of select-and-scatter `sas` along which the source index is the operand's
// (window size 1, stride 1, no padding or dilation, more than one element); -1 if none.
int64_t SelectAndScatterParallelDim(const Instruction& sas);
// What every kernel reports (the trace's columns), and the checks every backend makes
// before emitting one: array operands, no op the backends cannot emit, element types the
// emitter knows. `backend` ("CPU backend") names who refuses.
struct KernelFacts {
  std::string kind_name;  // "fusion(kLoop)", "dot", ...
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
};
StatusOr<KernelFacts> DescribeKernel(llvm::LLVMContext& context, const Instruction& inst, std::string_view backend);

// LLVM's new-pass-manager pipeline at -O`level` for `tm`'s target, or, when `pipeline` is
// given, that pipeline (the text `opt -passes=` takes) with `tm`'s cost models.
// With `vector_math`, the loop vectorizer may call glibc's libmvec (expf, logf, sinf,
// powf... eight lanes at a time); the caller must have made libmvec's symbols resolvable
// (VectorMathLibraryLoaded()). Pipelines may name Fusebox's own function passes:
//  - "no-unroll-vectorized": loops the loop vectorizer made get llvm.loop.unroll.disable;
//  - "loop-hints-from-attributes": in functions with the attribute kInterleaveAttribute
//    ("fusebox-interleave-count") or kVectorizeWidthAttribute ("fusebox-vectorize-width"),
//    innermost loops get that interleave count / vectorization width (1: scalar).
inline constexpr const char* kInterleaveAttribute = "fusebox-interleave-count";
inline constexpr const char* kVectorizeWidthAttribute = "fusebox-vectorize-width";
// With `trace`, a span per function the function passes run on (category llvm, named
// after the function; the module-wide passes are the caller's span).
Status Optimize(llvm::Module& module, llvm::TargetMachine* tm, int level, bool vector_math = false,
                std::string_view pipeline = {}, CompileTrace* trace = nullptr);

// Adds `tm`'s code generation passes to `pm`, writing `type` to `out`, with LLVM's loop
// strength reduction on or off. LLVM 19 has that switch only as a process-wide command-line
// option ("disable-lsr") read while the passes are added, so pipelines are built under a
// lock: any number at once with the same setting, one with the other setting waits until
// they are built. Every code generation pipeline of the backends is built here.
Status AddCodegenPasses(llvm::TargetMachine& tm, llvm::legacy::PassManager& pm, llvm::raw_pwrite_stream& out,
                        llvm::CodeGenFileType type, bool loop_strength_reduction = true);

// Loads glibc's vector math library (libmvec.so.1) into the process once; false when it
// is not there (the vectorizer then keeps scalar calls).
bool VectorMathLibraryLoaded();

}  // namespace fusebox::codegen
