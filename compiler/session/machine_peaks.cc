// The CPU's roofs, measured with Fusebox's own kernels (see machine_peaks.h).
#include "compiler/session/machine_peaks.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/cuda_driver.h"
#include "compiler/session/profiled_run.h"
#include "profiler/kernel_summary.h"

namespace fusebox::session {
namespace {

constexpr const char* kDotModule = R"(HloModule peak_compute
ENTRY e {
  a = f32[1024,1024] parameter(0)
  b = f32[1024,1024] parameter(1)
  ROOT d = f32[1024,1024] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";

constexpr const char* kCopyModule = R"(HloModule peak_bandwidth
ENTRY e {
  x = f32[16777216] parameter(0)
  two = f32[] constant(2)
  t = f32[16777216] broadcast(two), dimensions={}
  ROOT y = f32[16777216] multiply(x, t)
})";

struct Best {
  double per_ns = 0;  // flops or bytes per ns of the fastest call of the heaviest kernel
  std::string device;
};

// Runs `text` 5 times on `backend`; the heaviest kernel's best rate (flops or bytes per ns).
StatusOr<Best> BestRate(const char* text, int threads, bool flops, const std::string& backend = "cpu") {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseModule(text));
  ASSIGN_OR_RETURN(std::vector<Literal> args, interpreter::RandomArguments(*module, 1));
  ProfiledRunOptions options;
  options.backend = backend;
  options.iterations = 5;
  options.threads = threads;
  ASSIGN_OR_RETURN(ProfiledRun run, RunProfiled(*module, args, options));
  const profiler::KernelSummary summary = profiler::Summarize(run.trace);
  if (summary.kernels.empty() || summary.kernels.front().min_ns <= 0) {
    return Internal("the peak measurement's kernel did not run");
  }
  const profiler::KernelStats& k = summary.kernels.front();
  const double per_call = static_cast<double>(flops ? k.flops : k.bytes()) / static_cast<double>(k.calls);
  return Best{per_call / static_cast<double>(k.min_ns), run.device};
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

int Threads(int threads) {
  return threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

// How this binary was built, as far as it changes the speed of the measured kernels.
const char* BuildFlavour() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return "sanitizer";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
  return "sanitizer";
#endif
#endif
#if defined(__OPTIMIZE__)
  return "optimized";
#else
  return "unoptimized";
#endif
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

std::string MachinePeaksCacheFile() {
  if (std::string dir = Env("FUSEBOX_CACHE_DIR"); !dir.empty()) return dir + "/machine_peaks.json";
  if (std::string dir = Env("XDG_CACHE_HOME"); !dir.empty()) return dir + "/fusebox/machine_peaks.json";
  if (std::string home = Env("HOME"); !home.empty()) return home + "/.cache/fusebox/machine_peaks.json";
  return "";
}

StatusOr<profiler::MachinePeaks> MeasureCpuPeaks(int threads) {
  ASSIGN_OR_RETURN(Best compute, BestRate(kDotModule, threads, /*flops=*/true));
  ASSIGN_OR_RETURN(Best memory, BestRate(kCopyModule, threads, /*flops=*/false));
  profiler::MachinePeaks peaks;
  peaks.device = compute.device + ": " + CpuModel();
  peaks.gflop_per_s = compute.per_ns;
  peaks.gb_per_s = memory.per_ns;
  peaks.how = "measured: an f32 1024^3 dot and a 128 MiB elementwise kernel on Fusebox's CPU backend, best of 5";
  return peaks;
}

std::string MachinePeaksCacheKey(int threads) {
  return CpuModel() + " / " + std::to_string(Threads(threads)) + " thread(s) / " + BuildFlavour();
}

StatusOr<profiler::MachinePeaks> CpuPeaks(int threads, const std::string& cache_file) {
  const std::string file = cache_file.empty() ? MachinePeaksCacheFile() : cache_file;
  const std::string key = MachinePeaksCacheKey(threads);
  nlohmann::json cache = nlohmann::json::object();
  if (!file.empty()) {
    std::ifstream in(file);
    if (in) cache = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!cache.is_object()) cache = nlohmann::json::object();  // damaged: measure again
    const nlohmann::json* entry = cache.contains(key) ? &cache[key] : nullptr;
    if (entry != nullptr && entry->is_object() && entry->value("gflop_per_s", 0.0) > 0 &&
        entry->value("gb_per_s", 0.0) > 0) {
      profiler::MachinePeaks peaks;
      peaks.device = entry->value("device", key);
      peaks.gflop_per_s = entry->value("gflop_per_s", 0.0);
      peaks.gb_per_s = entry->value("gb_per_s", 0.0);
      peaks.how = entry->value("how", std::string("measured")) + " (cached in " + file + ")";
      return peaks;
    }
  }
  ASSIGN_OR_RETURN(profiler::MachinePeaks peaks, MeasureCpuPeaks(threads));
  if (!file.empty()) {
    cache[key] = {{"device", peaks.device}, {"gflop_per_s", peaks.gflop_per_s}, {"gb_per_s", peaks.gb_per_s},
                  {"how", peaks.how}};
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ec);
    const std::string temp = file + ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(temp);
      out << cache.dump(2) << "\n";
    }
    std::filesystem::rename(temp, file, ec);  // atomic; a failed cache write only costs a remeasure
  }
  return peaks;
}

// --- the GPU ------------------------------------------------------------------------------

StatusOr<int> Fp32LanesPerSm(int major, int minor) {
  // FP32 CUDA cores per SM, from NVIDIA's architecture whitepapers.
  switch (major) {
    case 6:
      return minor == 0 ? 64 : 128;  // sm_60 (P100) 64; sm_61/62 128
    case 7:
      return 64;  // sm_70 (V100), sm_72, sm_75 (Turing)
    case 8:
      return minor == 0 ? 64 : 128;  // sm_80 (A100) 64; sm_86/87/89 128
    case 9:
    case 10:
    case 11:
    case 12:
      return 128;  // sm_90 (H100/H200), sm_100/103 (B200/B300), sm_110, sm_120/121
  }
  return InvalidArgument("FP32 lanes per SM unknown for sm_" + std::to_string(major) + std::to_string(minor) +
                         ": the GPU's compute roof cannot be told");
}

StatusOr<profiler::MachinePeaks> GpuPeaksFromAttributes(const runtime::CudaDeviceInfo& info) {
  if (info.multiprocessors <= 0 || info.clock_khz <= 0) {
    return Unavailable("the driver does not report " + info.name +
                       "'s SM count and clock: the GPU's compute roof cannot be told");
  }
  ASSIGN_OR_RETURN(int lanes, Fp32LanesPerSm(info.compute_major, info.compute_minor));
  profiler::MachinePeaks peaks;
  peaks.device = info.ToString();
  // One fused multiply-add (two flops) per lane per clock.
  peaks.gflop_per_s = 2.0 * lanes * info.multiprocessors * (info.clock_khz * 1e3) / 1e9;
  // Double data rate: two transfers per memory clock over the bus.
  if (info.memory_clock_khz > 0 && info.memory_bus_bits > 0)
    peaks.gb_per_s = 2.0 * (info.memory_clock_khz * 1e3) * (info.memory_bus_bits / 8.0) / 1e9;
  char how[256];
  std::snprintf(how, sizeof(how), "compute from the device's attributes: %d SMs x %d FP32 lanes x %.2f GHz x 2",
                info.multiprocessors, lanes, info.clock_khz / 1e6);
  peaks.how = how;
  if (peaks.gb_per_s > 0) peaks.how += "; memory from the memory clock and bus width (data sheet)";
  return peaks;
}

StatusOr<profiler::MachinePeaks> GpuPeaks() {
  ASSIGN_OR_RETURN(runtime::CudaDeviceInfo info, runtime::DiscoverCudaDevice(0));
  ASSIGN_OR_RETURN(profiler::MachinePeaks peaks, GpuPeaksFromAttributes(info));
  const double data_sheet = peaks.gb_per_s;
  ASSIGN_OR_RETURN(Best memory, BestRate(kCopyModule, 0, /*flops=*/false, "gpu"));
  peaks.gb_per_s = memory.per_ns;
  peaks.how = peaks.how.substr(0, peaks.how.find("; memory"));
  char how[160];
  std::snprintf(how, sizeof(how),
                "; memory measured: a 128 MiB elementwise kernel on Fusebox's GPU backend, best of 5 "
                "(the memory clock and bus say %.0f GB/s)",
                data_sheet);
  peaks.how += how;
  return peaks;
}

StatusOr<profiler::MachinePeaks> MachinePeaksFor(const std::string& backend, int threads) {
  if (backend == "cpu") return CpuPeaks(threads);
  if (backend == "gpu") return GpuPeaks();
  return InvalidArgument("no roofs for backend '" + backend + "' (cpu or gpu)");
}

}  // namespace fusebox::session
