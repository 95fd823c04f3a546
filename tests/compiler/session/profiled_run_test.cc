// Profiled runs without a GPU: the CUPTI kernel count held against the launches made, the
// order that keeps the records of CUPTI's final flush, and the refusal of collectives over
// more devices than a run has, on the CPU and before the GPU backend needs a device.
#include "compiler/session/profiled_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "profiler/cupti_tracer.h"

namespace fusebox::session {
namespace {

using namespace profiler;  // NOLINT(google-build-using-namespace): the trace model and tracers

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(KernelCountNoteTest, SilentWhenTheCountsAgree) {
  EXPECT_EQ(KernelCountNote(12, 12, 3), "");
  EXPECT_EQ(KernelCountNote(0, 0, 1), "");
}

TEST(KernelCountNoteTest, SaysHowManyTheTraceMisses) {
  EXPECT_EQ(KernelCountNote(10, 12, 3),
            "CUPTI recorded 10 kernel(s) but the executable made 12 launch(es) over 3 run(s): the "
            "trace misses 2; "
            "kernel counts and times are incomplete");
}

TEST(KernelCountNoteTest, SaysWhenTheTraceHasMore) {
  EXPECT_THAT(
      KernelCountNote(5, 4, 1),
      AllOf(StartsWith(
                "CUPTI recorded 5 kernel(s) but the executable made 4 launch(es) over 1 run(s): "),
            HasSubstr("the trace has 1 kernel(s) this module did not launch")));
}

TEST(KernelCountNoteTest, CountsKernelEventsOnly) {
  Trace trace;
  const int track = trace.FindOrAddTrack("GPU 0", "stream 7");
  for (std::string_view category :
       {kCategoryKernel, kCategoryMemcpy, kCategoryKernel, kCategoryHost, kCategoryRun}) {
    TraceEvent e;
    e.name = "e";
    e.category = std::string(category);
    e.track = track;
    trace.AddEvent(std::move(e));
  }
  EXPECT_EQ(CountKernelEvents(trace), 2);
  EXPECT_EQ(KernelCountNote(CountKernelEvents(trace), 3, 1).empty(), false);
}

TEST(RunNotesTest, EachNoteSaysWhichRun) {
  session::ProfiledRun fused, unfused;
  fused.notes.push_back(KernelCountNote(10, 12, 3));
  unfused.notes.push_back("CUPTI dropped 4 record(s): the trace misses kernels");
  std::vector<std::string> notes = RunNotes(&fused, &unfused);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_THAT(notes[0],
              StartsWith("fused run: CUPTI recorded 10 kernel(s) but the executable made 12"));
  EXPECT_EQ(notes[1], "unfused run: CUPTI dropped 4 record(s): the trace misses kernels");
  EXPECT_EQ(RunNotes(nullptr, &unfused).size(), 1u);
  EXPECT_TRUE(RunNotes(nullptr, nullptr).empty());
}

// Stands in for CUPTI: its final flush in Stop() hands over the last kernel's record, as
// cuptiActivityFlushAll(FORCED) does for buffers still in flight.
class FinalFlushTracer : public CuptiTracer {
 public:
  Status Stop() override {
    GpuActivity last;
    last.name = "fusion_kernel";
    last.start = 2'000;
    last.end = 3'000;
    AddActivities({last}, 0);
    ++stops;
    return CuptiTracer::Stop();
  }
  int stops = 0;
};

TEST(StopAndTakeTraceTest, KeepsTheRecordsOfTheFinalFlush) {
  FinalFlushTracer tracer;
  tracer.SetClockMapping(ClockMapping::FromSample(0, 1'000'000));
  GpuActivity first;
  first.name = "fusion_kernel";
  first.start = 1'000;
  first.end = 1'500;
  tracer.AddActivities({first}, 0);  // delivered during the run
  FinishedTrace finished = StopAndTakeTrace(tracer);
  EXPECT_TRUE(finished.stopped.ok());
  EXPECT_EQ(tracer.stops, 1);
  // Both kernels: the one delivered during the run and the one from the final flush.
  EXPECT_EQ(CountKernelEvents(finished.trace), 2);
  EXPECT_EQ(KernelCountNote(CountKernelEvents(finished.trace), 2, 1), "");
}

std::string Collectives(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/collectives/" + name;
}

TEST(RunProfiledTest, RefusesCollectivesOverMoreDevicesOnEveryBackend) {
  auto parsed = ParseFile(Collectives("all_reduce_mesh.hlo"));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Module& module = *parsed->modules[0];
  auto args = interpreter::RandomArguments(module, 1);
  ASSERT_TRUE(args.ok());
  for (const char* backend : {"cpu", "gpu"}) {
    SCOPED_TRACE(backend);
    session::ProfiledRunOptions options;
    options.backend = backend;
    auto run = RunProfiled(module, *args, options);
    ASSERT_FALSE(run.ok());
    // Located in the file as given (the CLI puts the file in front); the GPU says this
    // before it looks for a driver.
    EXPECT_THAT(
        run.status().message(),
        AllOf(StartsWith(
                  "41:8: %all-reduce: all-reduce over replica_groups=mesh['axis_0'=4,'axis_1'=1] "
                  "{'axis_0'} (group {0,1,2,3}) needs 4 devices; this run has 1"),
              ::testing::Not(HasSubstr("CUDA"))));
  }
}

}  // namespace
}  // namespace fusebox::session
