// The CUDA toolkit's command-line tools as library calls: ptxas (PTX -> cubin, with the
// per-kernel resource usage `ptxas -v` reports) and a SASS disassembler (cuobjdump, which
// in CUDA 13 hands the work to nvdisasm, or nvdisasm alone). Needs no GPU and no driver.
//
// Where the tools are looked for (first hit wins; see docs/gpu-tools.md):
//   ptxas:     $FUSEBOX_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, $PATH
//   cuobjdump: $FUSEBOX_CUOBJDUMP, $CUDA_HOME/bin, /usr/local/cuda/bin, CudaToolsDir(), $PATH
//   nvdisasm:  $FUSEBOX_NVDISASM,  $CUDA_HOME/bin, /usr/local/cuda/bin, CudaToolsDir(), $PATH
// CudaToolsDir() is the Python venv `scripts/setup.sh --with-cuda-tools` fills from PyPI.
// It comes before $PATH because a distribution's older cuobjdump on $PATH (Debian ships
// CUDA 11.8's) cannot read cubins from CUDA 13's ptxas.
//
// The tools run as child processes (posix_spawn, no shell) with a timeout; their files
// live in a private temporary folder that is removed afterwards. Messages name the
// temporary files "<ptx>" and "<cubin>" so they read the same on every run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/compile_trace.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

// Which places the Find* functions search. Tests turn places off to get a known answer.
struct ToolSearchOptions {
  bool use_environment = true;  // $FUSEBOX_PTXAS, $FUSEBOX_CUOBJDUMP, $FUSEBOX_NVDISASM
  bool use_cuda_dirs = true;    // $CUDA_HOME/bin, /usr/local/cuda/bin
  bool use_tools_dir = true;    // CudaToolsDir(): bin/, then the venv's site-packages
  bool use_path = true;         // every directory of $PATH
};

// The venv `scripts/setup.sh --with-cuda-tools` creates: $FUSEBOX_CUDA_TOOLS_DIR, else
// ${XDG_DATA_HOME:-$HOME/.local/share}/fusebox/cuda-tools. Empty when neither HOME nor
// XDG_DATA_HOME is set.
std::string CudaToolsDir();

// The path of an executable ptxas, or kUnavailable naming every place looked in. A
// $FUSEBOX_PTXAS that names no executable file is an error, not a reason to look on.
StatusOr<std::string> FindPtxas(const ToolSearchOptions& search = {});

// What can disassemble a cubin. At least one path is set. cuobjdump is preferred (its
// listing is the one engineers know); CUDA 13's cuobjdump needs nvdisasm to print SASS.
struct SassDisassembler {
  std::string cuobjdump;  // empty when not found
  std::string nvdisasm;   // empty when not found
};

// kUnavailable "no cuobjdump or nvdisasm found (looked in ...)" when neither is found.
StatusOr<SassDisassembler> FindSassDisassembler(const ToolSearchOptions& search = {});

// What `ptxas -v` says about one entry function.
struct PtxasKernelInfo {
  std::string name;            // the .entry name
  std::string arch;            // "sm_90"
  int64_t registers = 0;       // per thread
  int64_t shared_bytes = 0;    // static shared memory (smem)
  int64_t constant_bytes = 0;  // cmem[0]: kernel parameters and driver constants
  int64_t stack_frame_bytes = 0;
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t barriers = 0;
};

struct PtxasOptions {
  int opt_level = 3;  // -O<n>; -1 leaves ptxas's default
  int timeout_seconds = 120;
  std::vector<std::string> extra_args;  // passed through, e.g. "-maxrregcount=64"
  ToolSearchOptions search;
  // ptxas's --split-compile: threads optimizing functions at once (0: one per CPU, 1: one).
  // A big module's kernels assemble side by side (ResNet-50: 60 kernels, 9.4 s on one
  // thread, 7.2 s on two).
  int threads = 0;
  // Cubins kept by content (the PTX, the arch, the options and the ptxas binary's path,
  // size and time) under this folder; empty: no cache. PtxasCacheDir() is the usual one.
  std::string cache_dir;
  // A span per call, with the cache's hit or miss (null: none).
  CompileTrace* trace = nullptr;
};

struct PtxasResult {
  std::string cubin;                     // the ELF file's bytes
  std::vector<PtxasKernelInfo> kernels;  // in ptxas's order
  std::string log;                       // ptxas's stdout + stderr, temp paths rewritten
  bool from_cache = false;               // found under cache_dir; ptxas did not run
};

// $FUSEBOX_CACHE_DIR/ptxas, else $XDG_CACHE_HOME/fusebox/ptxas, else
// ~/.cache/fusebox/ptxas; "" when none of them can be named.
std::string PtxasCacheDir();

// Runs `ptxas -arch=<arch> -v [-O<n>] [--split-compile N] [extra_args] -o <cubin> <ptx>`,
// or returns the cubin an earlier identical run left in `cache_dir`. `arch` is sm_NN with
// an optional a/f suffix. Errors: kUnavailable when ptxas is missing, fails to start or
// times out; kInvalidArgument when ptxas refuses the PTX (the message carries ptxas's
// error lines, "ptxas <ptx>, line 12; error   : ...") or the arch.
StatusOr<PtxasResult> AssemblePtx(std::string_view ptx, std::string_view arch,
                                  const PtxasOptions& options = {});

// Reads the per-kernel lines of `ptxas -v` output. Lines it does not know are skipped;
// fields a line leaves out stay 0. Non-entry functions (device functions compiled
// separately) are not reported.
std::vector<PtxasKernelInfo> ParsePtxasInfo(std::string_view text);

struct SassOptions {
  int timeout_seconds = 120;
  ToolSearchOptions search;
};

// The SASS listing of `cubin` (cuobjdump -sass, else nvdisasm). `arch`, when not empty,
// is what the cubin was assembled for; a cubin for another arch is an error. Without a
// disassembler: kUnavailable "SASS unavailable: no cuobjdump or nvdisasm found (looked in
// ...); run scripts/setup.sh --with-cuda-tools to install ...".
StatusOr<std::string> DisassembleCubin(std::string_view cubin, std::string_view arch,
                                       const SassOptions& options = {});

// The text of entry `name` in `ptx`, from its `.entry` line to its closing brace; empty
// when the PTX has no such entry.
std::string_view PtxEntryText(std::string_view ptx, std::string_view name);

// A table for the `ptxas_info` stage: one row per kernel with its registers, smem,
// cmem[0], stack frame, spill stores/loads and barriers (bytes as plain numbers).
std::string FormatPtxasInfo(const std::vector<PtxasKernelInfo>& kernels);

}  // namespace fusebox::codegen
