// The roofline: a kernel's intensity decides its roof (intensity x bandwidth below the
// ridge, the compute peak above it), what bounds it, and how close it came; kernels that
// count no flops are judged on bandwidth. The peaks: measured with Fusebox's own kernels,
// cached per CPU and thread count, measured again when the cache is damaged.
#include "profiler/roofline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compiler/session/machine_peaks.h"

namespace fusebox::profiler {
namespace {

KernelStats Kernel(const std::string& name, int64_t flops, int64_t bytes, int64_t ns) {
  KernelStats k;
  k.hlo = name;
  k.kind = "fusion";
  k.calls = 1;
  k.total_ns = k.min_ns = ns;
  k.flops = flops;
  k.bytes_read = bytes;
  k.gflop_per_s = static_cast<double>(flops) / static_cast<double>(ns);
  k.gb_per_s = static_cast<double>(bytes) / static_cast<double>(ns);
  return k;
}

TEST(RooflineTest, TheRidgeDecidesTheRoofAndTheBound) {
  MachinePeaks peaks;
  peaks.device = "test";
  peaks.gflop_per_s = 100;  // ridge at 10 flop/byte
  peaks.gb_per_s = 10;
  ASSERT_DOUBLE_EQ(peaks.ridge(), 10);
  KernelSummary summary;
  summary.kernels = {Kernel("saxpy", 2'000'000, 12'000'000, 2'000'000),  // 0.167 flop/byte at 1 GFLOP/s
                     Kernel("gemm", 400'000'000, 4'000'000, 8'000'000),   // 100 flop/byte at 50 GFLOP/s
                     Kernel("copy", 0, 8'000'000, 1'000'000)};            // 8 GB/s, no flops
  const std::vector<RooflineRow> rows = Roofline(summary, peaks);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].bound, Bound::kMemory);
  EXPECT_NEAR(rows[0].intensity, 1.0 / 6, 1e-12);
  EXPECT_NEAR(rows[0].attainable_gflop_per_s, 10.0 / 6, 1e-9) << "intensity x bandwidth";
  EXPECT_NEAR(rows[0].fraction_of_roof, 0.6, 1e-9);
  EXPECT_EQ(rows[1].bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(rows[1].attainable_gflop_per_s, 100) << "the compute peak";
  EXPECT_NEAR(rows[1].fraction_of_roof, 0.5, 1e-12);
  EXPECT_EQ(rows[2].bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(rows[2].attainable_gflop_per_s, 0);
  EXPECT_NEAR(rows[2].fraction_of_roof, 0.8, 1e-12) << "bandwidth over the peak";
  const std::string table = FormatRoofline(rows, peaks);
  EXPECT_NE(table.find("ridge 10.00 flop/byte"), std::string::npos) << table;
  EXPECT_NE(table.find("%gemm"), std::string::npos) << table;
  EXPECT_NE(table.find("compute"), std::string::npos) << table;
  const auto json = RooflineToJson(rows, peaks);
  EXPECT_EQ(json["kernels"][1]["bound_by"], "compute");
  EXPECT_DOUBLE_EQ(json["ridge_flop_per_byte"].get<double>(), 10);
}

TEST(MachinePeaksTest, MeasuredOnceThenCachedAndRemeasuredWhenDamaged) {
  const std::string dir = ::testing::TempDir() + "/fusebox_peaks_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/machine_peaks.json";
  auto first = session::CpuPeaks(1, file);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_NE(first->how.find("measured"), std::string::npos) << first->how;
  EXPECT_EQ(first->how.find("cached"), std::string::npos) << first->how;
  // Sane for any machine this runs on: more than 1 GFLOP/s and 1 GB/s on one thread.
  EXPECT_GT(first->gflop_per_s, 1) << first->how;
  EXPECT_GT(first->gb_per_s, 1) << first->how;
  auto second = session::CpuPeaks(1, file);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(second->how.find("cached"), std::string::npos) << second->how;
  EXPECT_DOUBLE_EQ(second->gflop_per_s, first->gflop_per_s);
  EXPECT_DOUBLE_EQ(second->gb_per_s, first->gb_per_s);
  std::ofstream(file) << "{ not json";
  auto third = session::CpuPeaks(1, file);
  ASSERT_TRUE(third.ok()) << third.status().message();
  EXPECT_EQ(third->how.find("cached"), std::string::npos) << "a damaged cache is measured again";
  std::filesystem::remove_all(dir);
}

// Entries are kept per CPU, thread count and build flavour: a sanitizer build's peaks are
// not used by a release build (nor the other way round).
TEST(MachinePeaksTest, CacheEntriesAreKeyedByCpuThreadsAndBuildFlavour) {
  const std::string key = session::MachinePeaksCacheKey(1);
  EXPECT_NE(key.find(" / 1 thread(s) / "), std::string::npos) << key;
#if defined(__SANITIZE_ADDRESS__)
  const std::string flavour = "sanitizer", other = "optimized";
#elif defined(__OPTIMIZE__)
  const std::string flavour = "optimized", other = "sanitizer";
#else
  const std::string flavour = "unoptimized", other = "optimized";
#endif
  ASSERT_GT(key.size(), flavour.size());
  ASSERT_EQ(key.substr(key.size() - flavour.size()), flavour) << key;
  const std::string other_key = key.substr(0, key.size() - flavour.size()) + other;

  const std::string dir = ::testing::TempDir() + "/fusebox_peaks_key_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/machine_peaks.json";
  auto write_entry = [&](const std::string& entry_key) {
    std::ofstream(file) << "{\"" << entry_key << "\": {\"gflop_per_s\": 12345, \"gb_per_s\": 6789}}";
  };
  // Only the other flavour's entry: this build measures its own.
  write_entry(other_key);
  auto measured = session::CpuPeaks(1, file);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  EXPECT_EQ(measured->how.find("cached"), std::string::npos) << measured->how;
  EXPECT_NE(measured->gflop_per_s, 12345);
  // This flavour's entry is used as it is.
  write_entry(key);
  auto cached = session::CpuPeaks(1, file);
  ASSERT_TRUE(cached.ok()) << cached.status().message();
  EXPECT_NE(cached->how.find("cached"), std::string::npos) << cached->how;
  EXPECT_DOUBLE_EQ(cached->gflop_per_s, 12345);
  EXPECT_DOUBLE_EQ(cached->gb_per_s, 6789);
  std::filesystem::remove_all(dir);
}

// The GPU's compute roof from its attributes: an H100 SXM's figures (132 SMs at 1.98 GHz,
// 128 FP32 lanes each; HBM3 at 2.619 GHz over 5120 bits) give its data sheet's 67 TFLOP/s
// and 3.35 TB/s.
TEST(GpuPeaksTest, ComputeRoofFromTheDevicesAttributes) {
  runtime::CudaDeviceInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.compute_major = 9;
  h100.multiprocessors = 132;
  h100.clock_khz = 1980000;
  h100.memory_clock_khz = 2619000;
  h100.memory_bus_bits = 5120;
  auto peaks = session::GpuPeaksFromAttributes(h100);
  ASSERT_TRUE(peaks.ok()) << peaks.status().message();
  EXPECT_NEAR(peaks->gflop_per_s, 66908.16, 0.01);
  EXPECT_NEAR(peaks->gb_per_s, 3352.32, 0.01);
  EXPECT_NE(peaks->how.find("132 SMs x 128 FP32 lanes x 1.98 GHz x 2"), std::string::npos) << peaks->how;
  EXPECT_NE(peaks->device.find("H100"), std::string::npos) << peaks->device;

  // An A100 has 64 FP32 lanes per SM, an RTX 4090 (sm_89) 128, a V100 64.
  EXPECT_EQ(*session::Fp32LanesPerSm(8, 0), 64);
  EXPECT_EQ(*session::Fp32LanesPerSm(8, 9), 128);
  EXPECT_EQ(*session::Fp32LanesPerSm(7, 0), 64);
  EXPECT_EQ(*session::Fp32LanesPerSm(10, 0), 128);
  // An architecture it does not know, or a driver that reports no clock: no roof, said so.
  auto unknown = session::Fp32LanesPerSm(5, 2);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("sm_52"), std::string::npos) << unknown.status().message();
  runtime::CudaDeviceInfo no_clock = h100;
  no_clock.clock_khz = 0;
  auto refused = session::GpuPeaksFromAttributes(no_clock);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("clock"), std::string::npos) << refused.status().message();
  // Without the memory clock the memory roof is left to the measurement.
  runtime::CudaDeviceInfo no_memory_clock = h100;
  no_memory_clock.memory_clock_khz = 0;
  auto compute_only = session::GpuPeaksFromAttributes(no_memory_clock);
  ASSERT_TRUE(compute_only.ok());
  EXPECT_EQ(compute_only->gb_per_s, 0);
  EXPECT_FALSE(compute_only->valid());
}

// Without a GPU the roofs say what is missing rather than showing a roofline.
TEST(GpuPeaksTest, WithoutAGpuTheErrorNamesWhatIsMissing) {
  if (runtime::CudaDeviceCount().ok()) GTEST_SKIP() << "a GPU is present";
  auto peaks = session::MachinePeaksFor("gpu", 0);
  ASSERT_FALSE(peaks.ok());
  EXPECT_NE(peaks.status().message().find("CUDA"), std::string::npos) << peaks.status().message();
  EXPECT_FALSE(session::MachinePeaksFor("tpu", 0).ok());
}

}  // namespace
}  // namespace fusebox::profiler
