// The CPU code generator: turns every kernel of an (optimized) HLO module into LLVM IR
// functions, optimizes them, keeps the IR and x86 assembly as compile stages, and JITs
// them with ORC LLJIT. Dots, convolutions and sorts run as library kernels
// (compiler/runtime/library_kernels.h); a dot or convolution output fusion runs the
// library op, then its elementwise epilogue as an emitted loop.
//
// This header has no LLVM types: the runtime and the CLI include it.
#pragma once

#include <atomic>
#include <functional>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/compile_trace.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

// `void kernel(void* const* buffers, int64_t begin, int64_t end)`: runs iterations
// [begin, end) of the group's outermost parallel dimension. buffers = the kernel's
// operand buffers, then its result buffers (tuple leaves in order), then scratch.
using CpuKernelFunction = void (*)(void* const* buffers, int64_t begin, int64_t end);
// Sort comparators: args[2k] / args[2k+1] point at the lhs / rhs element of operand k.
using CpuComparatorFunction = bool (*)(const void* const* args, void* context);

struct CpuLoopGroup {
  std::string function;         // LLVM function name
  CpuKernelFunction entry = nullptr;
  int64_t extent = 1;           // iterations of the parallel dimension
  int64_t elements_per_iteration = 1;
  // The runtime skips this group when kernel operand `skip_if_aliased` shares the buffer
  // of the kernel's first result (an in-place dynamic-update-slice needs no copy then).
  int64_t skip_if_aliased = -1;
};

struct CpuKernel {
  enum class Kind { kLoop, kLibrary, kOutputFusion };
  const Instruction* hlo = nullptr;   // the kernel's instruction (a fusion or a single op)
  std::string name;                   // base name of its LLVM functions
  Kind kind = Kind::kLoop;
  std::vector<CpuLoopGroup> groups;   // loops run in order (kLoop, kOutputFusion epilogue)
  const Instruction* library_op = nullptr;  // dot / convolution / sort (kLibrary, kOutputFusion)
  // For kOutputFusion: which kernel operands feed the library op, in its operand order.
  std::vector<int64_t> library_operands;
  int64_t scratch_bytes = 0;          // the library op's result for kOutputFusion
  // The operand whose buffer the result may take over (dynamic-update-slice in place):
  // buffer assignment shares it when the operand dies here.
  int64_t in_place_operand = -1;
  // Row chaining: when every loop group of this kernel iterates the rows (dimension 0)
  // of its outputs, `rows` is that extent and iteration i writes only row i of every
  // output; `row_local_operands[p]` says operand p is read only at row i by iteration i.
  // The runtime may then run consecutive such kernels block of rows by block of rows.
  int64_t rows = 0;
  std::vector<bool> row_local_operands;
  // A row kernel (passes/row_fusion.h): per row, each reduction once, then the outputs.
  bool row_kernel = false;
  std::string comparator_function;
  CpuComparatorFunction comparator = nullptr;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
  std::string kind_name;              // "fusion(kLoop)", "dot", ...
};

struct CpuCompileOptions {
  int opt_level = 2;           // LLVM -O level for the kernels
  bool keep_assembly = true;   // produce the cpu_asm stage
  bool keep_llvm_ir = true;    // produce the llvm_ir and llvm_ir_optimized stages
  // Threads that optimize and compile kernels (grouped into LLVM modules, see
  // CompileForCpu); 0: one per hardware thread. The code is the same for any count.
  int compile_threads = 0;
  // Loop groups writing at least this many bytes (rows of whole 64-byte multiples, no
  // reduction) also get a variant with non-temporal vector stores, taken at run time when
  // the outputs are 64-byte aligned: results that cannot stay in the caches skip the
  // read-for-ownership of every line written. 0: FUSEBOX_STREAMING_MIN_BYTES, else an
  // eighth of the last-level cache (at least 8 MiB); -1: never.
  int64_t streaming_store_min_bytes = 0;
  // Kernels reading at least this many bytes (their operands) prefetch the vector loads of
  // their loops 1 KiB ahead (the hardware prefetchers alone leave reads from memory ~20%
  // short of the bandwidth). 0: FUSEBOX_PREFETCH_MIN_BYTES, else an eighth of the
  // last-level cache (at least 8 MiB); -1: never.
  int64_t prefetch_min_bytes = 0;
  // At opt_level 2: Fusebox's kernel pipeline (kKernelPipeline in cpu_jit.cc: the
  // function passes of LLVM's -O2 that loop kernels need, and code generation without
  // loop strength reduction; about a third less compile time for the same run time) or,
  // false, LLVM's standard -O2 pipeline and code generation.
  bool kernel_pipeline = true;
  // Checked between kernels emitted and between LLVM modules compiled: set from another
  // thread, the compile stops with Cancelled() (modules already compiling finish).
  const std::atomic<bool>* cancel = nullptr;
  // Progress: steps done of the total (every kernel emitted, then every module compiled).
  std::function<void(int64_t done, int64_t total)> progress;
  // Spans for IR emission per kernel, LLVM optimization and code generation per module,
  // printing and the JIT link (null: none). Changes nothing in the code.
  CompileTrace* trace = nullptr;
};

// Wall time of one compile step: "target", "emit_ir", "optimize_and_compile" (LLVM's
// optimizations and code generation, kernels in parallel), "print_ir", "jit_link".
struct CompileStepTime {
  std::string step;
  double seconds = 0;
};

// Compiled kernels of one module and the JIT that owns their code.
class CpuCode {
 public:
  virtual ~CpuCode() = default;
  // The kernel of `inst` (an instruction of a program computation), or null when the
  // instruction needs no kernel (parameters, tuples, control flow, aliases).
  virtual const CpuKernel* KernelFor(const Instruction* inst) const = 0;
  virtual const std::vector<std::unique_ptr<CpuKernel>>& kernels() const = 0;
  // Compile stages.
  virtual const std::string& llvm_ir() const = 0;            // before LLVM optimization
  virtual const std::string& llvm_ir_optimized() const = 0;
  virtual const std::string& assembly() const = 0;           // x86 assembly of the kernels
  virtual const std::string& target_cpu() const = 0;
  // LLVM function name -> HLO instruction name (fusion or op) it implements.
  virtual const std::map<std::string, std::string>& function_to_hlo() const = 0;
  // Where the compile's time went, in order.
  virtual const std::vector<CompileStepTime>& step_times() const = 0;
  // Threads the kernels were optimized and compiled on.
  virtual int compile_threads() const = 0;
};

// Compiles every kernel of `module`'s program computations (entry, while bodies and
// conditions, conditional branches, called computations). `module` must outlive the
// result. Errors name the instruction the backend cannot emit.
StatusOr<std::unique_ptr<CpuCode>> CompileForCpu(const Module& module, const CpuCompileOptions& options = {});

// Whether the CPU runtime treats `inst` as a kernel (vs. free or host-side work).
bool IsCpuKernel(const Instruction& inst);

}  // namespace fusebox::codegen
