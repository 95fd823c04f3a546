// The source map of a compile: which kernel runs each instruction, and what each kernel
// became — its LLVM functions, its PTX entries, the library call the GPU runtime makes
// instead, the names trace events give its runs, and where each of these is defined in
// the stage texts. `fusebox compile --source-map` writes it as JSON (schema in
// docs/passes-and-fusion.md, "The source map"); the workbench's cross-links read it.
//
// The two backends compile different modules (compiler/session/compile_session.h): the
// CPU's kernels are those of `optimized_hlo`, the GPU's those of `gpu_optimized_hlo`,
// whose fusions may be other ones under the same names. So the map keeps two sides:
// kernels() with the CPU code, gpu_kernels() with the GPU code and library calls.
//
// The map fills in as stages are compiled: MapKernels once the pipeline ran,
// MapGpuKernels once the GPU pipeline ran, AddCpuCode / AddGpuCode as the backends
// compile, AddLocations for each stage text there is. BuildSourceMap does it all from a
// session.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {
class CpuCode;
class GpuCode;
}  // namespace fusebox::codegen

namespace fusebox::session {
class CompileSession;
struct GpuLibraryCall;
}  // namespace fusebox::session

namespace fusebox::session {

// Where a name is defined in a stage's text: 1-based line, and the 1-based column of the
// name's first character (after its sigil: `%` in HLO, `@` in LLVM IR).
struct SourceLocation {
  std::string stage;  // "hlo", "optimized_hlo", "llvm_ir", "gpu_llvm_ir", "ptx", ...
  int64_t line = 0;
  int64_t column = 0;
  std::string ToString() const;  // "llvm_ir:12:9"
  bool operator==(const SourceLocation&) const = default;
};

// One instruction of the input module.
struct InstructionSource {
  std::string name;
  std::string opcode;
  // The kernel (a top-level instruction of the optimized module) that runs it; "" when
  // the pipeline simplified it away or renamed it.
  std::string kernel;
  // The same in the GPU module (gpu_optimized_hlo); "" also when that is not mapped.
  std::string gpu_kernel;
  std::optional<SourceLocation> location;  // its definition in the `hlo` stage
};

// One kernel: a top-level instruction of one of the optimized module's program
// computations (a fusion, or an op that runs alone), and the code made for it.
struct KernelSource {
  std::string name;
  std::string opcode;       // "fusion", "dot", "parameter", ...
  std::string fusion_kind;  // "kLoop", "kInput", ... for fusions; "" otherwise
  // Whether the backends run it as a kernel (parameters, tuples, control flow and
  // aliases are no kernels: they run no code of their own).
  bool runs_code = false;
  // Every instruction it runs: itself, then its fused instructions at any depth.
  std::vector<std::string> instructions;
  std::vector<std::string> cpu_functions;  // LLVM functions in llvm_ir / llvm_ir_optimized
  std::vector<std::string> gpu_functions;  // LLVM functions in gpu_llvm_ir (each a PTX entry)
  std::vector<std::string> ptx_entries;    // `.entry` functions in ptx
  // TraceEvent::name of its runs: the CPU kernel's name (CPU tracer) and its PTX entries
  // (CUPTI). Every such event also has TraceEvent::hlo == name.
  std::vector<std::string> cpu_trace_names;
  std::vector<std::string> gpu_trace_names;
  // GPU kernels only: a library call (__cublas$gemm, __cudnn$conv...) the runtime makes
  // instead of a kernel of Fusebox's: "cuBLAS", "cuBLASLt" or "cuDNN", the routine with
  // its sizes, or why there is no plan for it. No code names then.
  std::string library;
  std::string library_routine;
  std::string library_error;
  // The LLVM functions and PTX entries above, each once, in the order their backends were
  // added: what a selection of the kernel lights up in the code stages.
  std::vector<std::string> code_names;
  // Where the kernel (optimized_hlo or gpu_optimized_hlo) and its code names (code
  // stages) are defined:
  // name -> locations, in the order the stages were added.
  std::map<std::string, std::vector<SourceLocation>> locations;
};

class SourceMap {
 public:
  // Every instruction of `optimized` (fused ones at any depth) -> the kernel that runs it;
  // top-level instructions of program computations are kernels of their own.
  void MapKernels(const Module& optimized);
  // The same for the GPU module (gpu_optimized_hlo), on the GPU side.
  void MapGpuKernels(const Module& gpu_optimized);
  // The input module's instructions, in order, each with its kernels (call after
  // MapKernels / MapGpuKernels).
  void MapInput(const Module& input);
  // A backend's code: LLVM function / PTX entry -> the kernel it implements (the code
  // generators' function_to_hlo), plus the names the backend's tracer gives each run.
  // GPU code goes to the GPU side.
  void AddCpuCode(const codegen::CpuCode& code);
  void AddGpuCode(const codegen::GpuCode& code);
  // The GPU module's library calls (CompileSession::gpu_library_calls()).
  void AddGpuLibraryCalls(const std::vector<GpuLibraryCall>& calls);
  // Finds the definitions in a stage's text (HLO instructions, LLVM `define`s, PTX
  // `.entry`s, by the stage's name) and records those of the map's names: optimized_hlo
  // and the CPU stages on the CPU side, gpu_optimized_hlo and the GPU stages on the GPU
  // side.
  void AddLocations(const std::string& stage, const std::string& text);
  // Takes what `other` has that this map lacks: its kernel links (which win), its
  // kernels' code names, trace names and locations (appended, each once), on both sides.
  void Merge(const SourceMap& other);
  // Forgets the GPU side (the GPU module changed: SetGpuLibraries).
  void ClearGpu() { gpu_ = {}; }
  // Why a stage the map would draw on is missing ("gpu: cannot emit ...").
  void AddNote(std::string note) { notes_.push_back(std::move(note)); }

  // The kernel running `instruction` (a name of the optimized module), or null.
  const std::string* KernelOf(const std::string& instruction) const;
  const KernelSource* FindKernel(const std::string& name) const;
  // The same on the GPU side (a name of the GPU module).
  const std::string* GpuKernelOf(const std::string& instruction) const;
  const KernelSource* FindGpuKernel(const std::string& name) const;
  // What a selection of `instruction` lights up: the instruction, the CPU kernel running
  // it (when another), that kernel's code names, then the GPU kernel (when another name)
  // and its code names. Before MapGpuKernels, the GPU code is looked up under the CPU
  // kernel's name (the same module when the GPU runs without libraries).
  std::vector<std::string> LinkedNames(const std::string& instruction) const;

  const std::string& module_name() const { return module_name_; }
  const std::vector<InstructionSource>& instructions() const { return instructions_; }
  const std::map<std::string, KernelSource>& kernels() const { return cpu_.kernels; }
  const std::map<std::string, KernelSource>& gpu_kernels() const { return gpu_.kernels; }
  const std::vector<std::string>& stages() const { return stages_; }
  const std::vector<std::string>& notes() const { return notes_; }

  // The map as JSON (schema "fusebox.source_map/2"), indented by `indent` spaces.
  std::string ToJson(int indent = 2) const;

 private:
  // One module's kernels: instruction -> kernel, kernel name -> what it became.
  struct Side {
    std::map<std::string, std::string> kernel_of;
    std::map<std::string, KernelSource> kernels;
    KernelSource& KernelNamed(const std::string& name);
    void Map(const Module& module, bool gpu);
    void Merge(const Side& other);
    const std::string* KernelOf(const std::string& instruction) const;
    const KernelSource* Find(const std::string& name) const;
  };

  std::string module_name_;
  Side cpu_;
  Side gpu_;
  std::vector<InstructionSource> instructions_;
  std::vector<std::string> stages_;  // the stages AddLocations read, in order
  std::vector<std::string> notes_;
};

struct SourceMapOptions {
  bool cpu = true;  // compile for the CPU (llvm_ir, llvm_ir_optimized)
  bool gpu = true;  // generate GPU code (gpu_llvm_ir, ptx; needs no GPU)
};

// Builds the whole map from a session: runs the pipeline (its error is the result's) and
// the chosen backends (a backend that fails leaves a note and no code names), then reads
// the locations from the hlo, optimized_hlo and code stages.
StatusOr<SourceMap> BuildSourceMap(CompileSession& session, const SourceMapOptions& options = {});

}  // namespace fusebox::session
