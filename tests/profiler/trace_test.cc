// The trace model: tracks, span, kernel and per-iteration queries, display order.
#include "profiler/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace fusebox::profiler {
namespace {

TraceEvent Event(std::string name, std::string_view category, int track, int64_t start, int64_t end,
                 int64_t iteration = 0) {
  TraceEvent e;
  e.name = std::move(name);
  e.hlo = e.name;
  e.category = std::string(category);
  e.track = track;
  e.start_ns = start;
  e.end_ns = end;
  e.iteration = iteration;
  return e;
}

TEST(TraceTest, AddTrackNumbersTracksInOrder) {
  Trace trace;
  EXPECT_EQ(trace.AddTrack("CPU", "thread 0"), 0);
  EXPECT_EQ(trace.AddTrack("CPU", "worker 0"), 1);
  EXPECT_EQ(trace.AddTrack("GPU 0", "stream 7"), 2);
  ASSERT_EQ(trace.tracks().size(), 3u);
  EXPECT_EQ(trace.tracks()[2].id, 2);
  EXPECT_EQ(trace.tracks()[2].process, "GPU 0");
  EXPECT_EQ(trace.tracks()[2].name, "stream 7");
}

TEST(TraceTest, FindOrAddTrackReusesAnExistingTrack) {
  Trace trace;
  int a = trace.FindOrAddTrack("CPU", "thread 0");
  int b = trace.FindOrAddTrack("CPU", "thread 1");
  EXPECT_NE(a, b);
  EXPECT_EQ(trace.FindOrAddTrack("CPU", "thread 0"), a);
  // The same name in another process is another track.
  EXPECT_NE(trace.FindOrAddTrack("GPU 0", "thread 0"), a);
  EXPECT_EQ(trace.tracks().size(), 3u);
}

TEST(TraceTest, FindTrackRejectsUnknownIds) {
  Trace trace;
  int id = trace.AddTrack("CPU", "thread 0");
  ASSERT_NE(trace.FindTrack(id), nullptr);
  EXPECT_EQ(trace.FindTrack(id)->name, "thread 0");
  EXPECT_EQ(trace.FindTrack(-1), nullptr);
  EXPECT_EQ(trace.FindTrack(1), nullptr);
}

TEST(TraceTest, EmptyTraceHasZeroSpan) {
  Trace trace;
  EXPECT_TRUE(trace.empty());
  EXPECT_EQ(trace.start_ns(), 0);
  EXPECT_EQ(trace.end_ns(), 0);
  EXPECT_EQ(trace.duration_ns(), 0);
  EXPECT_TRUE(trace.Kernels().empty());
  EXPECT_TRUE(trace.KernelCountPerIteration().empty());
}

TEST(TraceTest, SpanCoversEveryEvent) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread 0");
  trace.AddEvent(Event("b", kCategoryKernel, t, 500, 900));
  trace.AddEvent(Event("a", kCategoryHost, t, 100, 200));
  trace.AddEvent(Event("c", kCategoryShard, t, 600, 1200));
  EXPECT_EQ(trace.start_ns(), 100);
  EXPECT_EQ(trace.end_ns(), 1200);
  EXPECT_EQ(trace.duration_ns(), 1100);
}

TEST(TraceTest, EventDurationAndBytes) {
  TraceEvent e = Event("k", kCategoryKernel, 0, 100, 350);
  e.bytes_read = 30;
  e.bytes_written = 12;
  EXPECT_EQ(e.duration_ns(), 250);
  EXPECT_EQ(e.bytes(), 42);
  EXPECT_TRUE(e.is_kernel());
  // A reversed event (clock trouble) has no negative duration.
  EXPECT_EQ(Event("r", kCategoryKernel, 0, 10, 5).duration_ns(), 0);
  EXPECT_FALSE(Event("s", kCategoryShard, 0, 0, 1).is_kernel());
}

TEST(TraceTest, KernelsAreKernelEventsByStartTime) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread 0");
  trace.AddEvent(Event("late", kCategoryKernel, t, 300, 400));
  trace.AddEvent(Event("shard", kCategoryShard, t, 100, 150));
  trace.AddEvent(Event("early", kCategoryKernel, t, 100, 200));
  trace.AddEvent(Event("run 0", kCategoryRun, t, 0, 500));
  trace.AddEvent(Event("copy", kCategoryHost, t, 250, 260));
  std::vector<TraceEvent> kernels = trace.Kernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "early");
  EXPECT_EQ(kernels[1].name, "late");
}

TEST(TraceTest, PerIterationViews) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread 0");
  int w = trace.AddTrack("CPU", "worker 0");
  trace.AddEvent(Event("run 0", kCategoryRun, t, 0, 100, 0));
  trace.AddEvent(Event("k1", kCategoryKernel, t, 10, 20, 0));
  trace.AddEvent(Event("k2", kCategoryKernel, t, 30, 40, 0));
  trace.AddEvent(Event("k2", kCategoryShard, w, 30, 35, 0));
  trace.AddEvent(Event("run 1", kCategoryRun, t, 200, 300, 1));
  trace.AddEvent(Event("k1", kCategoryKernel, t, 210, 220, 1));
  trace.AddEvent(Event("run 2", kCategoryRun, t, 400, 500, 2));  // no kernels

  EXPECT_EQ(trace.Iterations(), (std::vector<int64_t>{0, 1, 2}));
  std::map<int64_t, int64_t> expected = {{0, 2}, {1, 1}, {2, 0}};
  EXPECT_EQ(trace.KernelCountPerIteration(), expected);

  std::vector<TraceEvent> one = trace.EventsInIteration(1);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].name, "run 1");
  EXPECT_EQ(one[1].name, "k1");

  Trace zero = trace.FilterIteration(0);
  EXPECT_EQ(zero.tracks(), trace.tracks());
  EXPECT_EQ(zero.events().size(), 4u);
  EXPECT_EQ(zero.Kernels().size(), 2u);
  EXPECT_EQ(zero.end_ns(), 100);
  EXPECT_TRUE(trace.FilterIteration(7).empty());
}

TEST(TraceTest, SortEventsOrdersByStartThenTrack) {
  Trace trace;
  int a = trace.AddTrack("CPU", "thread 0");
  int b = trace.AddTrack("CPU", "thread 1");
  trace.AddEvent(Event("third", kCategoryKernel, a, 50, 60));
  trace.AddEvent(Event("second", kCategoryKernel, b, 10, 20));
  trace.AddEvent(Event("first", kCategoryKernel, a, 10, 30));
  trace.SortEvents();
  std::vector<std::string> names;
  for (const TraceEvent& e : trace.events()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"first", "second", "third"}));
}

TEST(TraceTest, IsAPlainValue) {
  Trace trace;
  int t = trace.AddTrack("CPU", "thread 0");
  trace.AddEvent(Event("k", kCategoryKernel, t, 1, 2));
  Trace copy = trace;
  EXPECT_EQ(copy, trace);
  copy.AddEvent(Event("k2", kCategoryKernel, t, 3, 4));
  EXPECT_NE(copy, trace);
  EXPECT_EQ(trace.events().size(), 1u);
}

TEST(TraceTest, NaturalOrderComparesNumbersByValue) {
  EXPECT_TRUE(NaturalLess("thread 2", "thread 10"));
  EXPECT_FALSE(NaturalLess("thread 10", "thread 2"));
  EXPECT_TRUE(NaturalLess("GPU 9", "GPU 10"));
  EXPECT_TRUE(NaturalLess("thread 9", "worker 0"));
  EXPECT_TRUE(NaturalLess("host", "runs"));
  EXPECT_TRUE(NaturalLess("stream", "stream 1"));
  EXPECT_FALSE(NaturalLess("thread 3", "thread 3"));
  // Numbers longer than any integer still compare by value.
  EXPECT_TRUE(NaturalLess("k 99999999999999999999999", "k 100000000000000000000000"));
  // Leading zeros do not change the value, and the order stays strict.
  EXPECT_NE(NaturalLess("k 07", "k 7"), NaturalLess("k 7", "k 07"));
}

TEST(TraceTest, TrackDisplayOrderGroupsProcessesAndSortsNames) {
  Trace trace;
  int w10 = trace.AddTrack("CPU", "worker 10");
  int gpu10 = trace.AddTrack("GPU 10", "stream 1");
  int t1 = trace.AddTrack("CPU", "thread 1");
  int gpu2 = trace.AddTrack("GPU 2", "stream 7");
  int w2 = trace.AddTrack("CPU", "worker 2");
  int t0 = trace.AddTrack("CPU", "thread 0");
  EXPECT_EQ(trace.TrackDisplayOrder(), (std::vector<int>{t0, t1, w2, w10, gpu2, gpu10}));
}

}  // namespace
}  // namespace fusebox::profiler
