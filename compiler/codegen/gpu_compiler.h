// The GPU code generator: turns every kernel of an (optimized) HLO module into NVPTX
// kernels with LLVM 19 and keeps the GPU LLVM IR and the PTX as compile stages. The
// elemental emitter is the CPU backend's; what differs is the kernel around it: a thread
// per output element (several, contiguous, for vectorized loads), warps and shared memory
// for reductions and transposes, a tiled shared-memory kernel for dots, a bitonic network
// for sorts.
//
// Kernel ABI (what the runtime passes to cuLaunchKernel): one pointer parameter per
// buffer, in order: the kernel's operands, its result leaves (depth first), then its
// scratch buffer when scratch_bytes > 0; then the launch's scalar arguments (i64 each).
//
// This header has no LLVM types: the runtime and the CLI include it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/compile_trace.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

// One cuLaunchKernel of a kernel's `.entry` function.
struct GpuLaunch {
  std::string function;                    // PTX entry name
  std::array<int64_t, 3> grid = {1, 1, 1};  // blocks
  std::array<int64_t, 3> block = {1, 1, 1}; // threads per block
  int64_t shared_bytes = 0;                 // dynamic shared memory (0: static only)
  std::vector<int64_t> scalar_args;         // after the buffer pointers
  // The runtime skips this launch when kernel operand `skip_if_aliased` shares the
  // buffer of the kernel's first result (an in-place dynamic-update-slice needs no copy).
  int64_t skip_if_aliased = -1;
};

// Another launch shape of the same kernel: its own entries in the same PTX, the same
// buffers and results (GpuCompileOptions::kernel_variants).
struct GpuKernelVariant {
  std::string label;  // "128 threads a row"
  std::vector<GpuLaunch> launches;
};

struct GpuKernel {
  const Instruction* hlo = nullptr;  // the kernel's instruction (a fusion or a single op)
  std::string name;                  // base name of its PTX entries
  std::string kind_name;             // "fusion(kLoop)", "reduction(row)", "dot(tiled)", ...
  std::vector<GpuLaunch> launches;   // run in order on one stream
  int64_t scratch_bytes = 0;         // device scratch (reduction partials, sort indices)
  // The operand whose buffer the result may take over (dynamic-update-slice in place).
  int64_t in_place_operand = -1;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
  // Fusebox's own kernel for a library call (GpuCode::GemmKernelFor): the call's operand
  // each kernel operand buffer is, in the kernel's order. Empty for every other kernel
  // (its operands are its instruction's, in order).
  std::vector<int64_t> call_operands;
  // What `launches` are for a kernel whose shape could differ ("a warp a row", "32x32
  // tiles, k in 4 parts"; empty for others), and with kernel_variants the other shapes the
  // runtime may time against them.
  std::string label;
  std::vector<GpuKernelVariant> variants;

  // Every launch the kernel may make: its own, then its variants'.
  std::vector<const GpuLaunch*> EveryLaunch() const {
    std::vector<const GpuLaunch*> out;
    for (const GpuLaunch& launch : launches) out.push_back(&launch);
    for (const GpuKernelVariant& variant : variants) {
      for (const GpuLaunch& launch : variant.launches) out.push_back(&launch);
    }
    return out;
  }

  // The operand buffers the kernel takes when it runs for `inst`, and the i-th of them.
  int64_t operand_count(const Instruction& inst) const {
    return call_operands.empty() ? inst.operand_count() : static_cast<int64_t>(call_operands.size());
  }
  const Instruction* operand(const Instruction& inst, int64_t i) const {
    return inst.operand(call_operands.empty() ? i : call_operands[static_cast<size_t>(i)]);
  }
};

struct GpuCompileOptions {
  std::string arch = "sm_90";  // sm_75 ... sm_90a (ptxas refuses lower with CUDA 13)
  int opt_level = 2;
  // Contiguous elements per thread in elementwise kernels (lets LLVM merge loads into
  // ld.global.v4 when buffers are aligned).
  int elements_per_thread = 4;
  // Spans for IR emission per kernel, LLVM optimization and NVPTX code generation (null:
  // none). Changes nothing in the code.
  CompileTrace* trace = nullptr;
  // Also compiles Fusebox's own kernel for each gemm library call whose dot is skinny
  // (one side of at most 16 elements) or contracts at most 16 elements
  // (GpuCode::GemmKernelFor), into the same PTX. The
  // runtime's autotuning times it against the library's choice and runs the faster
  // (gpu_executable.h). Off for the compile stages, which show the kernels that run
  // without autotuning.
  bool gemm_kernels = false;
  // Also compiles other launch shapes of the kernels whose best shape depends on the
  // device (GpuKernel::variants): row kernels and unsplit row reductions with other
  // numbers of threads a row (a warp, 64, 128, 256, ... up to 1024), unsplit column
  // reductions with the other block size (256 or 1024 threads), skinny dots with other
  // rows a block. The runtime's
  // autotuning times them against the default shape and runs the fastest (as XLA's
  // autotuner picks its Triton fusions' tiles); the compile stages show the default.
  bool kernel_variants = false;
  // Row kernels and row reductions moving fewer bytes get no other shapes: 4 MiB, about a
  // microsecond at HBM speed, below which a launch's own cost hides the shapes' difference
  // (without it the GPT block's training step had 18 more entries, its PTX assembled in
  // 1.31 s instead of 0.67 s; with it 14, 1.25 s). Tests set 0 to check small ones.
  int64_t min_row_shape_bytes = int64_t{4} << 20;
  // f32 dots of DEFAULT or HIGH precision run on tensor cores with TF32 operands on sm_80
  // and later (gpu_dot_plan.h: MmaDot), as cuBLAS runs them for XLA. Off here, so that the
  // emulator's and a checked run's dots compute in full f32 (the interpreter's bound);
  // the GPU runtime sets it from GpuExecutableOptions::allow_tf32, the compile stages on.
  bool allow_tf32 = false;
  // >= 0: every tensor-core dot in that block tile (gpu_dot_plan.h: kMmaTiles; tests and
  // benchmarks), instead of the plan's choice and its timed variants.
  int64_t mma_tile = -1;
  // >= 1: every tensor-core dot walks k in that many parts (1: not split; gpu_dot_plan.h:
  // kMmaSplitBelowBlocks), instead of the plan's rule and its timed variants.
  int64_t mma_splits = -1;
};

// Compiled kernels of one module: PTX text and where each entry came from.
class GpuCode {
 public:
  virtual ~GpuCode() = default;
  virtual const GpuKernel* KernelFor(const Instruction* inst) const = 0;
  virtual const std::vector<std::unique_ptr<GpuKernel>>& kernels() const = 0;
  virtual const std::string& llvm_ir() const = 0;            // before LLVM optimization
  virtual const std::string& llvm_ir_optimized() const = 0;
  virtual const std::string& ptx() const = 0;
  virtual const std::string& arch() const = 0;
  // PTX entry / LLVM function name -> HLO instruction name (fusion or op; a library
  // call's for its own kernel).
  virtual const std::map<std::string, std::string>& function_to_hlo() const = 0;
  // Fusebox's own kernel for gemm library call `call` (compiled with gemm_kernels), or
  // null; and all of them. They are not in kernels(): the call stays a library call unless
  // the runtime chooses its kernel.
  virtual const GpuKernel* GemmKernelFor(const Instruction* call) const {
    (void)call;
    return nullptr;
  }
  virtual std::vector<const GpuKernel*> GemmKernels() const { return {}; }
  // Every kernel that may run: GemmKernels() and kernels().
  std::vector<const GpuKernel*> AllKernels() const {
    std::vector<const GpuKernel*> out = GemmKernels();
    for (const auto& kernel : kernels()) out.push_back(kernel.get());
    return out;
  }
};

// Compiles every kernel of `module`'s program computations for NVPTX. `module` must
// outlive the result; its layouts should be normalized (row-major). Errors name the
// instruction the backend cannot emit. Needs no GPU, driver or CUDA toolkit.
StatusOr<std::unique_ptr<GpuCode>> CompileForGpu(const Module& module, const GpuCompileOptions& options = {});

// Whether the GPU runtime treats `inst` as a kernel (the same rule as the CPU backend,
// except that library calls (__cublas$gemm, ...) go to NVIDIA's libraries).
bool IsGpuKernel(const Instruction& inst);

// Architectures accepted by --gpu-arch, e.g. {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"}.
const std::vector<std::string>& SupportedGpuArchs();

}  // namespace fusebox::codegen
