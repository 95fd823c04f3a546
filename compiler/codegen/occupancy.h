// Occupancy tuning: how many blocks of a kernel an SM holds at once, and asking ptxas for
// more where that saves a wave.
//
// ptxas chooses a kernel's registers without knowing its grid. Left to itself it gave
// layer norm 4096x1024 (a warp a row, 512 blocks of 256 threads) 78 registers a thread:
// 3 blocks an SM, 396 at once on a 132-SM H100/H200, so the last 116 blocks ran in a
// second wave. With `.minnctapersm 4` it fits the same kernel in 64 registers without a
// spill and all 512 blocks run at once. The same request can also make ptxas spill (a
// softmax backward went from 77 registers to 64 and 56 bytes of spill stores), so it is
// a question the assembler answers: TuneOccupancy assembles, asks for more blocks an SM
// only for kernels whose grid would then need fewer waves, assembles again and keeps
// each request only where the kernel reached those blocks without new local memory.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/support/status.h"

namespace fusebox::codegen {

// What an SM holds (CUDA's occupancy rules for one architecture).
struct SmLimits {
  int64_t multiprocessors = 132;
  int64_t registers = 65536;               // 32-bit registers an SM
  int64_t register_unit = 256;             // registers are given to warps in units of this
  int64_t max_registers_per_thread = 255;
  int64_t max_threads = 2048;              // resident threads an SM
  int64_t max_blocks = 32;                 // resident blocks an SM
  int64_t shared_bytes = 228 * 1024;       // shared memory an SM
  int64_t reserved_shared_per_block = 1024;  // the driver's own, sm_80 and newer
};

// The limits of `arch` ("sm_90", "sm_80", ...; an a/f suffix is ignored) with
// `multiprocessors` SMs; 0 takes the architecture's largest data-center part (sm_90: the
// H100 SXM's and H200's 132, sm_80: the A100's 108).
SmLimits SmLimitsForArch(std::string_view arch, int64_t multiprocessors = 0);

// What one kernel entry uses, from ptxas -v or the driver's function attributes.
struct KernelResources {
  std::string function;
  int64_t registers = 0;     // a thread
  int64_t shared_bytes = 0;  // static shared memory a block
  int64_t local_bytes = 0;   // local memory a thread (stack frame: spills and arrays)
};

// Blocks of `threads` threads an SM holds at once with `registers` registers a thread
// and `shared_bytes` of shared memory (static and dynamic) a block; 0 if one does not fit.
int64_t BlocksPerSm(const SmLimits& sm, int64_t threads, int64_t registers, int64_t shared_bytes);

// The most registers a thread may use for `blocks` blocks of `threads` to fit on an SM
// (registers alone; a multiple of 8); 0 if none.
int64_t RegistersForBlocks(const SmLimits& sm, int64_t threads, int64_t blocks);

// One kernel asked to fit `blocks_per_sm` blocks an SM.
struct OccupancyRequest {
  std::string function;
  int64_t grid_blocks = 0;  // its largest launch
  int64_t threads = 0;
  int64_t shared_bytes = 0;  // a block, static and dynamic
  int64_t registers_before = 0;
  int64_t blocks_per_sm_before = 0;
  int64_t waves_before = 0;
  int64_t blocks_per_sm = 0;  // asked for
  int64_t waves = 0;          // with them
  int64_t register_limit = 0;
};

// Kernels worth asking: a grid of at most kMaxTunedWaves waves on `sm` that would need
// fewer waves with more blocks an SM, and registers alone in the way, with a register
// limit of at least 32 and at least two thirds of what ptxas chose. The smallest such
// number of blocks each (the least cut in registers). A kernel's largest launch counts.
inline constexpr int64_t kMaxTunedWaves = 4;
std::vector<OccupancyRequest> PlanOccupancy(const std::vector<GpuLaunch>& launches,
                                            const std::vector<KernelResources>& resources, const SmLimits& sm);

// `ptx` with `.minnctapersm N` after the `.maxntid` line of each requested entry (an
// entry without one is left as it is: ptxas needs both).
std::string WithMinBlocksPerSm(std::string_view ptx, const std::vector<OccupancyRequest>& requests);

// What assembling with a request gave.
struct OccupancyVerdict {
  OccupancyRequest request;
  int64_t registers_after = 0;
  int64_t local_bytes_before = 0;
  int64_t local_bytes_after = 0;
  bool kept = false;  // it reached the blocks asked for without more local memory
  // "fusion_kernel: 4 blocks an SM asked for (512 blocks, 132 SMs): 78 -> 64 registers,
  // 1 wave instead of 2" or "... not kept: 56 bytes of local memory (spills)".
  std::string ToString() const;
};
std::vector<OccupancyVerdict> JudgeOccupancy(const std::vector<OccupancyRequest>& requests,
                                             const std::vector<KernelResources>& before,
                                             const std::vector<KernelResources>& after, const SmLimits& sm);

// Assembles or loads `ptx` and says what each entry uses (ptxas -v, or a loaded module's
// attributes). The PTX TuneOccupancy returns is always one it probed, so a caller that
// keeps what each probe made (a cubin, a loaded module) has the one to run.
using ResourceProbe = std::function<StatusOr<std::vector<KernelResources>>(const std::string& ptx)>;

struct TunedPtx {
  std::string ptx;                        // the PTX to run: `ptx` with the kept requests
  std::vector<OccupancyVerdict> verdicts;  // every request, kept or not
  // Set when a probe with requests failed: the PTX is then `ptx` as it was.
  std::string note;
};

// Probes `ptx`; plans; when something is asked for, probes the PTX with every request,
// judges, and when only some were kept, probes the PTX with those (ptxas allocates each
// entry's registers on its own, so they come out the same). At most three probes; one
// when nothing is worth asking. Only the first probe's failure is an error; a later one
// leaves the PTX as it was, with `note` saying why.
StatusOr<TunedPtx> TuneOccupancy(const std::string& ptx, const std::vector<GpuLaunch>& launches, const SmLimits& sm,
                                 const ResourceProbe& probe);

// Every launch of `code`'s kernels (AllKernels()).
std::vector<GpuLaunch> AllLaunches(const GpuCode& code);

}  // namespace fusebox::codegen
