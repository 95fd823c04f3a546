// Kernel summaries on a hand-made trace: counts, per-iteration counts, time, bandwidth,
// ordering, the text table and the JSON form.
#include "profiler/kernel_summary.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace fusebox::profiler {
namespace {

struct Builder {
  Trace trace;
  int thread = trace.AddTrack("CPU", "thread 0");
  int worker = trace.AddTrack("CPU", "worker 0");
  int runs = trace.AddTrack("CPU", "runs");

  void Kernel(const std::string& hlo, int64_t start, int64_t end, int64_t read, int64_t written,
              int64_t flops, int64_t iteration) {
    TraceEvent e;
    e.name = hlo + "_kernel";
    e.hlo = hlo;
    e.computation = "main";
    e.kind = hlo.rfind("dot", 0) == 0 ? "dot" : "fusion(kLoop)";
    e.category = std::string(kCategoryKernel);
    e.track = thread;
    e.start_ns = start;
    e.end_ns = end;
    e.bytes_read = read;
    e.bytes_written = written;
    e.flops = flops;
    e.iteration = iteration;
    trace.AddEvent(e);
    // A shard of every kernel, which must never count as a kernel.
    e.category = std::string(kCategoryShard);
    e.track = worker;
    trace.AddEvent(e);
  }
  void Run(int64_t iteration, int64_t start, int64_t end) {
    TraceEvent e;
    e.name = "run " + std::to_string(iteration);
    e.category = std::string(kCategoryRun);
    e.track = runs;
    e.start_ns = start;
    e.end_ns = end;
    e.iteration = iteration;
    trace.AddEvent(e);
  }
  void Host(int64_t start, int64_t end, int64_t iteration) {
    TraceEvent e;
    e.name = "copy";
    e.category = std::string(kCategoryHost);
    e.track = thread;
    e.start_ns = start;
    e.end_ns = end;
    e.iteration = iteration;
    trace.AddEvent(e);
  }
};

// Two iterations: three kernels in the first, two in the second.
Trace HandMade() {
  Builder b;
  b.Run(0, 0, 10'000);
  b.Kernel("fusion.1", 100, 1'100, 3'000, 1'000, 2'000, 0);  // 1000 ns
  b.Kernel("dot.2", 2'000, 5'000, 6'000, 0, 30'000, 0);      // 3000 ns
  b.Host(5'000, 5'100, 0);
  b.Kernel("add.3", 5'100, 5'600, 500, 500, 0, 0);  // 500 ns
  b.Run(1, 20'000, 28'000);
  b.Kernel("fusion.1", 20'100, 23'100, 3'000, 1'000, 2'000, 1);  // 3000 ns
  b.Kernel("dot.2", 23'100, 24'600, 6'000, 0, 30'000, 1);        // 1500 ns
  return b.trace;
}

TEST(KernelSummaryTest, CountsAndTotals) {
  KernelSummary s = Summarize(HandMade());
  EXPECT_EQ(s.kernel_count, 5);
  EXPECT_EQ(s.total_kernel_ns, 9'000);
  EXPECT_EQ(s.wall_ns, 18'000);  // 10,000 + 8,000 of runs
  EXPECT_EQ(s.bytes, 21'000);
  EXPECT_EQ(s.flops, 64'000);
  ASSERT_EQ(s.iterations.size(), 2u);
  EXPECT_EQ(s.iterations[0].iteration, 0);
  EXPECT_EQ(s.iterations[0].kernels, 3);
  EXPECT_EQ(s.iterations[0].kernel_ns, 4'500);
  EXPECT_EQ(s.iterations[0].wall_ns, 10'000);
  EXPECT_EQ(s.iterations[1].iteration, 1);
  EXPECT_EQ(s.iterations[1].kernels, 2);
  EXPECT_EQ(s.iterations[1].kernel_ns, 4'500);
  EXPECT_EQ(s.iterations[1].wall_ns, 8'000);
  EXPECT_EQ(s.KernelsPerIteration(), -1);  // 3 then 2
}

TEST(KernelSummaryTest, PerKernelStatsSortedByTotalTime) {
  KernelSummary s = Summarize(HandMade());
  ASSERT_EQ(s.kernels.size(), 3u);
  const KernelStats& dot = s.kernels[0];
  const KernelStats& fusion = s.kernels[1];
  const KernelStats& add = s.kernels[2];
  EXPECT_EQ(dot.hlo, "dot.2");
  EXPECT_EQ(fusion.hlo, "fusion.1");
  EXPECT_EQ(add.hlo, "add.3");

  EXPECT_EQ(dot.name, "dot.2_kernel");
  EXPECT_EQ(dot.kind, "dot");
  EXPECT_EQ(dot.computation, "main");
  EXPECT_EQ(dot.calls, 2);
  EXPECT_EQ(dot.total_ns, 4'500);
  EXPECT_EQ(dot.min_ns, 1'500);
  EXPECT_EQ(dot.max_ns, 3'000);
  EXPECT_DOUBLE_EQ(dot.mean_ns, 2'250.0);
  EXPECT_EQ(dot.bytes_read, 12'000);
  EXPECT_EQ(dot.bytes_written, 0);
  EXPECT_DOUBLE_EQ(dot.gb_per_s, 12'000.0 / 4'500.0);
  EXPECT_DOUBLE_EQ(dot.gflop_per_s, 60'000.0 / 4'500.0);
  EXPECT_DOUBLE_EQ(dot.share, 0.5);

  EXPECT_EQ(fusion.calls, 2);
  EXPECT_EQ(fusion.total_ns, 4'000);
  EXPECT_EQ(fusion.min_ns, 1'000);
  EXPECT_EQ(fusion.max_ns, 3'000);
  EXPECT_EQ(fusion.bytes(), 8'000);
  EXPECT_DOUBLE_EQ(fusion.gb_per_s, 2.0);  // 8,000 bytes in 4,000 ns
  EXPECT_DOUBLE_EQ(fusion.gflop_per_s, 1.0);
  EXPECT_DOUBLE_EQ(fusion.share, 4'000.0 / 9'000.0);

  EXPECT_EQ(add.calls, 1);
  EXPECT_DOUBLE_EQ(add.gb_per_s, 2.0);  // 1,000 bytes in 500 ns
  EXPECT_DOUBLE_EQ(add.gflop_per_s, 0.0);

  double shares = 0;
  for (const KernelStats& k : s.kernels) shares += k.share;
  EXPECT_NEAR(shares, 1.0, 1e-12);
}

TEST(KernelSummaryTest, EqualTimesOrderByName) {
  Builder b;
  b.Kernel("b", 0, 100, 0, 0, 0, 0);
  b.Kernel("c", 100, 200, 0, 0, 0, 0);
  b.Kernel("a", 200, 300, 0, 0, 0, 0);
  KernelSummary s = Summarize(b.trace);
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].hlo, "a");
  EXPECT_EQ(s.kernels[1].hlo, "b");
  EXPECT_EQ(s.kernels[2].hlo, "c");
  EXPECT_DOUBLE_EQ(s.kernels[0].gb_per_s, 0.0);
}

TEST(KernelSummaryTest, SameKernelCountEveryIteration) {
  Builder b;
  for (int64_t i = 0; i < 3; ++i) {
    b.Run(i, i * 1'000, i * 1'000 + 900);
    b.Kernel("fusion", i * 1'000 + 10, i * 1'000 + 20, 0, 0, 0, i);
    b.Kernel("dot", i * 1'000 + 30, i * 1'000 + 50, 0, 0, 0, i);
  }
  KernelSummary s = Summarize(b.trace);
  EXPECT_EQ(s.kernel_count, 6);
  EXPECT_EQ(s.KernelsPerIteration(), 2);
  EXPECT_EQ(s.iterations.size(), 3u);
  EXPECT_EQ(s.wall_ns, 2'700);
}

TEST(KernelSummaryTest, WithoutRunsWallTimeIsTheKernelSpan) {
  Builder b;
  b.Kernel("x", 1'000, 1'200, 0, 0, 0, 0);
  b.Kernel("y", 1'500, 2'000, 0, 0, 0, 0);
  b.Host(0, 5'000, 0);  // host work is not a kernel and does not stretch the span
  KernelSummary s = Summarize(b.trace);
  EXPECT_EQ(s.wall_ns, 1'000);
  EXPECT_EQ(s.total_kernel_ns, 700);
}

TEST(KernelSummaryTest, EventsWithoutHloGroupByKernelName) {
  Builder b;
  b.Kernel("", 0, 10, 0, 0, 0, 0);
  b.Kernel("", 10, 30, 0, 0, 0, 0);
  KernelSummary s = Summarize(b.trace);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].hlo, "_kernel");
  EXPECT_EQ(s.kernels[0].calls, 2);
}

TEST(KernelSummaryTest, EmptyTrace) {
  KernelSummary s = Summarize(Trace());
  EXPECT_EQ(s.kernel_count, 0);
  EXPECT_EQ(s.wall_ns, 0);
  EXPECT_EQ(s.KernelsPerIteration(), 0);
  EXPECT_TRUE(s.kernels.empty());
  std::string table = FormatSummaryTable(s, 10);
  EXPECT_NE(table.find("Kernels: 0"), std::string::npos) << table;
  EXPECT_NE(table.find("(no kernels)"), std::string::npos) << table;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(KernelSummaryTest, TableIsAlignedAndHeaviestFirst) {
  std::string table = FormatSummaryTable(Summarize(HandMade()), -1);
  std::vector<std::string> lines = Lines(table);
  // Two lines of totals, blank, header, rule, three rows.
  ASSERT_EQ(lines.size(), 8u) << table;
  EXPECT_EQ(lines[0], "Kernels: 5 in 2 iterations (per iteration: 3 2)");
  EXPECT_EQ(lines[1],
            "Kernel time: 9.000 us   Wall time: 18.000 us   Bytes: 21000   Achieved: 2.33 GB/s, "
            "7.11 GFLOP/s");
  EXPECT_EQ(lines[2], "");
  const std::string& header = lines[3];
  EXPECT_EQ(header.rfind("Time (%)", 0), 0u) << header;
  size_t hlo_col = header.find("HLO");
  size_t kind_col = header.find("Kind");
  size_t calls_end = header.find("Calls") + 5;
  ASSERT_NE(hlo_col, std::string::npos);
  EXPECT_EQ(lines[4].find_first_not_of("- "), std::string::npos) << lines[4];
  EXPECT_EQ(lines[4].size(), lines[6].size());  // the rule spans the widest row ("fusion.1")

  const std::vector<std::string> order = {"dot.2", "fusion.1", "add.3"};
  const std::vector<std::string> percent = {"50.0", "44.4", "5.6"};
  for (size_t r = 0; r < order.size(); ++r) {
    const std::string& row = lines[5 + r];
    EXPECT_EQ(row.substr(hlo_col), order[r]) << row;  // left-aligned text column
    EXPECT_EQ(row.compare(kind_col, 3, r == 0 ? "dot" : "fus"), 0) << row;
    EXPECT_EQ(row[calls_end - 1], r == 2 ? '1' : '2') << row;  // right-aligned numbers
    EXPECT_EQ(row.substr(8 - percent[r].size(), percent[r].size()), percent[r]) << row;
  }
  EXPECT_NE(lines[5].find("2.67"), std::string::npos) << lines[5];   // dot GB/s
  EXPECT_NE(lines[5].find("13.33"), std::string::npos) << lines[5];  // dot GFLOP/s
  EXPECT_NE(lines[5].find("2250.0"), std::string::npos) << lines[5];
}

TEST(KernelSummaryTest, TableFoldsRowsPastTheLimit) {
  KernelSummary s = Summarize(HandMade());
  std::vector<std::string> lines = Lines(FormatSummaryTable(s, 1));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_NE(lines[5].find("dot.2"), std::string::npos);
  EXPECT_EQ(lines[6], "... 2 more kernels (50.0% of kernel time)");
  std::vector<std::string> none = Lines(FormatSummaryTable(s, 0));
  EXPECT_EQ(none.back(), "... 3 more kernels (100.0% of kernel time)");
}

TEST(KernelSummaryTest, UniformIterationsPrintOneCount) {
  Builder b;
  b.Run(0, 0, 100);
  b.Kernel("k", 0, 10, 0, 0, 0, 0);
  b.Run(1, 200, 300);
  b.Kernel("k", 200, 210, 0, 0, 0, 1);
  std::vector<std::string> lines = Lines(FormatSummaryTable(Summarize(b.trace)));
  EXPECT_EQ(lines[0], "Kernels: 2 in 2 iterations (1 per iteration)");
}

TEST(KernelSummaryTest, JsonCarriesEveryNumber) {
  nlohmann::ordered_json j = ToJson(Summarize(HandMade()));
  EXPECT_EQ(j["kernel_count"], 5);
  EXPECT_EQ(j["kernels_per_iteration"], -1);
  EXPECT_EQ(j["total_kernel_ns"], 9'000);
  EXPECT_EQ(j["wall_ns"], 18'000);
  ASSERT_EQ(j["iterations"].size(), 2u);
  EXPECT_EQ(j["iterations"][0]["kernels"], 3);
  EXPECT_EQ(j["iterations"][1]["kernels"], 2);
  ASSERT_EQ(j["kernels"].size(), 3u);
  EXPECT_EQ(j["kernels"][0]["hlo"], "dot.2");
  EXPECT_EQ(j["kernels"][0]["calls"], 2);
  EXPECT_DOUBLE_EQ(j["kernels"][1]["gb_per_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["kernels"][0]["share"].get<double>(), 0.5);
  // It survives a round trip through text.
  EXPECT_EQ(nlohmann::ordered_json::parse(j.dump()), j);
}

}  // namespace
}  // namespace fusebox::profiler
