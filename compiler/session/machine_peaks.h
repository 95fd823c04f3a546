// The machine's roofs for the roofline (profiler/roofline.h). The CPU's are measured with
// Fusebox's own CPU kernels so that the peaks and the kernels they judge pay the same costs:
//   - compute: an f32 1024x1024x1024 dot (the CPU backend's library GEMM), best of 5 runs;
//   - memory: an elementwise kernel over 64 MiB in and 64 MiB out, best of 5 runs.
// They are what this machine achieves, not its data-sheet peaks (a kernel can exceed the
// memory roof when its data sits in cache). Measured once per CPU model, thread count and
// build flavour (a sanitizer build's kernels and GEMM are several times slower, and must
// not be judged against a release build's roofs, nor the other way round), then cached
// in $FUSEBOX_CACHE_DIR, $XDG_CACHE_HOME/fusebox or ~/.cache/fusebox (machine_peaks.json);
// a damaged cache is measured again.
#pragma once

#include <string>

#include "compiler/runtime/cuda_driver.h"
#include "compiler/support/status.h"
#include "profiler/roofline.h"

namespace fusebox::session {

// Measures the CPU's peaks with `threads` worker threads (0: one per hardware thread).
StatusOr<profiler::MachinePeaks> MeasureCpuPeaks(int threads);

// The cached peaks for this CPU and thread count, measured (and cached) when absent.
// `cache_file` "" uses the default place; the returned `how` says which it was.
StatusOr<profiler::MachinePeaks> CpuPeaks(int threads, const std::string& cache_file = "");

// The cache entry's key: "<CPU model> / <threads> thread(s) / <flavour>", the flavour
// being "optimized", "sanitizer" or "unoptimized" as this binary was built.
std::string MachinePeaksCacheKey(int threads);

// The default cache file ("" when no cache folder can be found).
std::string MachinePeaksCacheFile();

// --- the GPU ------------------------------------------------------------------------------
// The compute roof comes from the device's attributes: SMs x FP32 lanes per SM (by
// architecture) x the typical SM clock x 2 (one FMA a lane a clock). It is the CUDA cores'
// f32 roof: a cuBLAS GEMM on tensor cores (TF32, the default for f32 dots of DEFAULT
// precision, as in XLA), or Fusebox's own dot(tensor core) kernel, can run above it. The memory roof is measured: the same 128 MiB
// elementwise kernel as the CPU's, on Fusebox's GPU backend (CUPTI kernel time), best of 5;
// the data-sheet figure from the memory clock and bus width is named next to it. Measured
// at each call (a fraction of a second), not cached.

// FP32 lanes (CUDA cores) per SM of compute capability major.minor; an error for an
// architecture Fusebox does not know.
StatusOr<int> Fp32LanesPerSm(int major, int minor);
// The roofs that the attributes give: compute, and the data-sheet memory bandwidth (0
// when the driver reports no memory clock or bus width).
StatusOr<profiler::MachinePeaks> GpuPeaksFromAttributes(const runtime::CudaDeviceInfo& info);
// Device 0's roofs: compute from its attributes, memory measured. Errors name what is
// missing (no driver, no device).
StatusOr<profiler::MachinePeaks> GpuPeaks();

// The roofs of `backend` ("cpu": CpuPeaks(threads) from the default cache; "gpu": GpuPeaks()).
StatusOr<profiler::MachinePeaks> MachinePeaksFor(const std::string& backend, int threads);

}  // namespace fusebox::session
