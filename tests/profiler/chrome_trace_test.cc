// Chrome trace JSON: the document parses back, events carry the fields Perfetto and
// chrome://tracing read, times convert exactly, and write errors name the path.
#include "profiler/chrome_trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace fusebox::profiler {
namespace {

using nlohmann::json;

// A trace whose clock origin is far from zero, as steady-clock readings are.
constexpr int64_t kOrigin = 1'700'000'000'123'456'789;

TraceEvent Kernel(std::string name, int track, int64_t start, int64_t end) {
  TraceEvent e;
  e.name = name;
  e.hlo = name;
  e.computation = "main";
  e.kind = "fusion(kLoop)";
  e.category = std::string(kCategoryKernel);
  e.track = track;
  e.start_ns = kOrigin + start;
  e.end_ns = kOrigin + end;
  return e;
}

Trace SampleTrace() {
  Trace trace;
  int worker = trace.AddTrack("CPU", "worker 0");
  int thread = trace.AddTrack("CPU", "thread 0");
  int stream = trace.AddTrack("GPU 0", "stream 7");
  TraceEvent fusion = Kernel("fusion.3", thread, 1'234'567, 1'334'568);
  fusion.bytes_read = 600'000;
  fusion.bytes_written = 200'000;
  fusion.flops = 50'000;
  fusion.iteration = 2;
  trace.AddEvent(fusion);
  TraceEvent shard = Kernel("fusion.3", worker, 1'234'600, 1'300'000);
  shard.category = std::string(kCategoryShard);
  trace.AddEvent(shard);
  TraceEvent run;
  run.name = "run 2";
  run.category = std::string(kCategoryRun);
  run.track = thread;
  run.start_ns = kOrigin;
  run.end_ns = kOrigin + 2'000'000;
  run.iteration = 2;
  trace.AddEvent(run);
  trace.AddEvent(Kernel("gemm", stream, 5, 1'005));
  return trace;
}

json Parse(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << text;
  return j;
}

std::vector<json> EventsWithPh(const json& doc, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

const json* FindComplete(const std::vector<json>& events, const std::string& name,
                         const std::string& cat) {
  for (const json& e : events) {
    if (e["name"] == name && e["cat"] == cat) return &e;
  }
  return nullptr;
}

TEST(ChromeTraceTest, DocumentHasTraceEventsAndNanosecondDisplay) {
  json doc = Parse(ToChromeTraceJson(SampleTrace()));
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["origin_ns"], kOrigin);
  EXPECT_EQ(EventsWithPh(doc, "X").size(), 4u);
}

TEST(ChromeTraceTest, EmptyTraceIsValidJson) {
  json doc = Parse(ToChromeTraceJson(Trace()));
  EXPECT_TRUE(doc["traceEvents"].is_array());
  EXPECT_TRUE(doc["traceEvents"].empty());
}

TEST(ChromeTraceTest, CompleteEventCarriesFieldsAndArgs) {
  json doc = Parse(ToChromeTraceJson(SampleTrace()));
  std::vector<json> complete = EventsWithPh(doc, "X");
  const json* k = FindComplete(complete, "fusion.3", "kernel");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ((*k)["ph"], "X");
  EXPECT_DOUBLE_EQ((*k)["ts"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ((*k)["dur"].get<double>(), 100.001);
  const json& args = (*k)["args"];
  EXPECT_EQ(args["hlo"], "fusion.3");
  EXPECT_EQ(args["computation"], "main");
  EXPECT_EQ(args["kind"], "fusion(kLoop)");
  EXPECT_EQ(args["bytes_read"], 600'000);
  EXPECT_EQ(args["bytes_written"], 200'000);
  EXPECT_EQ(args["flops"], 50'000);
  EXPECT_EQ(args["iteration"], 2);
  // 800,000 bytes in 100,001 ns.
  EXPECT_DOUBLE_EQ(args["achieved_GB/s"].get<double>(), 800'000.0 / 100'001.0);
  EXPECT_DOUBLE_EQ(args["achieved_GFLOP/s"].get<double>(), 50'000.0 / 100'001.0);

  const json* run = FindComplete(complete, "run 2", "run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ((*run)["ts"].get<double>(), 0.0);  // the trace starts at the run
  EXPECT_EQ((*run)["dur"].get<double>(), 2000.0);
  EXPECT_FALSE((*run)["args"].contains("hlo"));
  EXPECT_FALSE((*run)["args"].contains("achieved_GB/s"));
}

TEST(ChromeTraceTest, ProcessesAndTracksGetPidsTidsAndNames) {
  json doc = Parse(ToChromeTraceJson(SampleTrace()));
  std::map<int, std::string> process_names;
  std::map<int, int> process_sort;
  std::map<int, std::string> thread_names;
  std::map<int, int> thread_pid;
  std::map<int, int> thread_sort;
  for (const json& m : EventsWithPh(doc, "M")) {
    int pid = m["pid"].get<int>();
    int tid = m["tid"].get<int>();
    const json& args = m["args"];
    if (m["name"] == "process_name") process_names[pid] = args["name"].get<std::string>();
    if (m["name"] == "process_sort_index") process_sort[pid] = args["sort_index"].get<int>();
    if (m["name"] == "thread_name") {
      thread_names[tid] = args["name"].get<std::string>();
      thread_pid[tid] = pid;
    }
    if (m["name"] == "thread_sort_index") thread_sort[tid] = args["sort_index"].get<int>();
  }
  // Processes in name order, tracks in natural order: thread 0 before worker 0, although
  // the worker track was added first.
  EXPECT_EQ(process_names, (std::map<int, std::string>{{1, "CPU"}, {2, "GPU 0"}}));
  EXPECT_EQ(process_sort, (std::map<int, int>{{1, 1}, {2, 2}}));
  EXPECT_EQ(thread_names,
            (std::map<int, std::string>{{1, "thread 0"}, {2, "worker 0"}, {3, "stream 7"}}));
  EXPECT_EQ(thread_pid, (std::map<int, int>{{1, 1}, {2, 1}, {3, 2}}));
  EXPECT_EQ(thread_sort, (std::map<int, int>{{1, 1}, {2, 2}, {3, 3}}));

  std::vector<json> complete = EventsWithPh(doc, "X");
  const json* kernel = FindComplete(complete, "fusion.3", "kernel");
  const json* shard = FindComplete(complete, "fusion.3", "shard");
  const json* gemm = FindComplete(complete, "gemm", "kernel");
  ASSERT_TRUE(kernel && shard && gemm);
  EXPECT_EQ((*kernel)["pid"], 1);
  EXPECT_EQ((*kernel)["tid"], 1);
  EXPECT_EQ((*shard)["pid"], 1);
  EXPECT_EQ((*shard)["tid"], 2);
  EXPECT_EQ((*gemm)["pid"], 2);
  EXPECT_EQ((*gemm)["tid"], 3);
}

TEST(ChromeTraceTest, MetadataComesFirstThenEventsByStart) {
  json doc = Parse(ToChromeTraceJson(SampleTrace()));
  bool seen_complete = false;
  double last_ts = -1;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "M") {
      EXPECT_FALSE(seen_complete) << "metadata after a complete event";
      continue;
    }
    seen_complete = true;
    EXPECT_GE(e["ts"].get<double>(), last_ts);
    last_ts = e["ts"].get<double>();
  }
}

TEST(ChromeTraceTest, NanosecondsConvertToMicrosecondsExactly) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread 0");
  // Offsets across the range a run could have, each with a non-zero last digit.
  const std::vector<int64_t> offsets = {
      0, 1, 999, 1'001, 123'456'789, 987'654'321, 3'600'000'000'001};
  for (int64_t off : offsets) trace.AddEvent(Kernel("k" + std::to_string(off), t, off, off + 7));
  std::string text = ToChromeTraceJson(trace);
  // The text itself has the exact decimal value.
  EXPECT_NE(text.find("\"ts\":123456.789"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":3600000000.001"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":0.001"), std::string::npos) << text;
  EXPECT_NE(text.find("\"dur\":0.007"), std::string::npos) << text;
  json doc = Parse(text);
  for (const json& e : EventsWithPh(doc, "X")) {
    int64_t off = std::stoll(e["name"].get<std::string>().substr(1));
    EXPECT_EQ(std::llround(e["ts"].get<double>() * 1000.0), off) << e.dump();
    EXPECT_EQ(std::llround(e["dur"].get<double>() * 1000.0), 7) << e.dump();
  }
}

TEST(ChromeTraceTest, InvalidUtf8InNamesDoesNotBreakTheDocument) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread \xff");
  TraceEvent e = Kernel("bad\xc3", t, 0, 10);
  trace.AddEvent(e);
  json doc = Parse(ToChromeTraceJson(trace));
  EXPECT_EQ(EventsWithPh(doc, "X").size(), 1u);
}

TEST(ChromeTraceTest, EventOnUnknownTrackIsKept) {
  Trace trace;
  trace.AddEvent(Kernel("orphan", 5, 0, 10));
  json doc = Parse(ToChromeTraceJson(trace));
  std::vector<json> complete = EventsWithPh(doc, "X");
  ASSERT_EQ(complete.size(), 1u);
  EXPECT_EQ(complete[0]["pid"], 0);
  EXPECT_EQ(complete[0]["tid"], 0);
}

TEST(ChromeTraceTest, WriteChromeTraceWritesTheJson) {
  std::filesystem::path path =
      std::filesystem::path(testing::TempDir()) / "fusebox_chrome_trace_test.json";
  Trace trace = SampleTrace();
  Status st = WriteChromeTrace(trace, path.string());
  ASSERT_TRUE(st.ok()) << st.message();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), ToChromeTraceJson(trace));
  std::filesystem::remove(path);
}

TEST(ChromeTraceTest, UnwritablePathIsAnErrorNamingIt) {
  const std::string missing_dir = "/nonexistent-fusebox-dir/sub/trace.json";
  Status st = WriteChromeTrace(SampleTrace(), missing_dir);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(missing_dir), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("No such file"), std::string::npos) << st.message();

  // A folder is not a file either.
  const std::string folder = testing::TempDir();
  st = WriteChromeTrace(SampleTrace(), folder);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(folder), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fusebox::profiler
