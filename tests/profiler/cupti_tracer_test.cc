// The CUPTI tracer without a GPU: Start() fails cleanly ("CUPTI unavailable"), and the
// pure parts — clock mapping, record decoding, record-to-event conversion, iteration
// attribution, annotations from compiled code — are checked directly.
#include "profiler/cupti_tracer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/session/profiled_run.h"
#include "profiler/kernel_summary.h"

#ifdef FUSEBOX_HAVE_CUPTI_HEADERS
#include <cupti_activity.h>
#endif

namespace fusebox::profiler {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string TrackName(const Trace& trace, int id) {
  const Track* track = trace.FindTrack(id);
  return track == nullptr ? "<none>" : track->process + "/" + track->name;
}

TEST(CuptiTracerTest, StartWithoutAGpuFailsCleanly) {
  CuptiTracer tracer;
  Status started = tracer.Start();
  if (started.ok()) {
    EXPECT_TRUE(tracer.started());
    EXPECT_TRUE(tracer.Stop().ok());
    GTEST_SKIP() << "CUPTI works on this machine (a GPU is present)";
  }
  EXPECT_THAT(started.message(), StartsWith("CUPTI unavailable: "));
  EXPECT_EQ(started.code(), StatusCode::kUnavailable);
  EXPECT_FALSE(tracer.started());
  EXPECT_EQ(tracer.dropped_records(), 0);
  EXPECT_TRUE(tracer.TakeTrace().empty());
  EXPECT_TRUE(tracer.Stop().ok());
  // The tracer released CUPTI: another one gets the same clean answer, not "another
  // tracer is active".
  CuptiTracer second;
  Status again = second.Start();
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.message(), StartsWith("CUPTI unavailable: "));
  EXPECT_THAT(again.message(), ::testing::Not(HasSubstr("another")));
}

TEST(ClockMappingTest, OneSampleAppliesTheOffset) {
  ClockMapping m = ClockMapping::FromSample(1'000'000, 5'000'000'000);
  EXPECT_EQ(m.ToHostNs(1'000'000), 5'000'000'000);
  EXPECT_EQ(m.ToHostNs(1'000'250), 5'000'000'250);
  EXPECT_EQ(m.ToHostNs(999'000), 4'999'999'000);  // before the sample
}

TEST(ClockMappingTest, TwoSamplesInterpolateLinearly) {
  // The GPU clock runs 1% fast against the host's: 1'010 GPU ns per 1'000 host ns.
  ClockMapping m =
      ClockMapping::FromSample(10'000, 1'000'000).WithSecondSample(10'000 + 101'000, 1'100'000);
  EXPECT_EQ(m.ToHostNs(10'000), 1'000'000);
  EXPECT_EQ(m.ToHostNs(111'000), 1'100'000);
  EXPECT_EQ(m.ToHostNs(10'000 + 50'500), 1'050'000);   // half way
  EXPECT_EQ(m.ToHostNs(10'000 + 202'000), 1'200'000);  // extrapolated past the second sample
}

TEST(ClockMappingTest, LargeTimestampsKeepNanosecondPrecision) {
  // CUPTI's clock near 1.7e18 (epoch-based), the host's steady clock near 3.6e12.
  const uint64_t gpu0 = 1'700'000'000'123'456'789ull;
  const int64_t host0 = 3'600'000'000'000;
  ClockMapping m = ClockMapping::FromSample(gpu0, host0)
                       .WithSecondSample(gpu0 + 2'000'000'000, host0 + 2'000'000'000);
  EXPECT_EQ(m.ToHostNs(gpu0 + 1'234'567'891), host0 + 1'234'567'891);
  // Samples at the same GPU time: offset only, no division by zero.
  ClockMapping same = ClockMapping::FromSample(gpu0, host0).WithSecondSample(gpu0, host0 + 5);
  EXPECT_EQ(same.ToHostNs(gpu0 + 7), host0 + 7);
}

TEST(IterationAtTest, PicksTheRunThatContainsTheTime) {
  std::vector<RunWindow> runs = {{0, 100, 200}, {1, 300, 400}, {2, 500, 600}};
  EXPECT_EQ(IterationAt(runs, 150), 0);
  EXPECT_EQ(IterationAt(runs, 300), 1);
  EXPECT_EQ(IterationAt(runs, 450), 1);  // between runs: the last one started
  EXPECT_EQ(IterationAt(runs, 5000), 2);
  EXPECT_EQ(IterationAt(runs, 50), 0);  // before every run: the first
  EXPECT_EQ(IterationAt({}, 50), 0);
}

KernelAnnotations SampleAnnotations() {
  KernelAnnotations a;
  a["fusion_3_kernel"] = KernelAnnotation{"fusion.3", "main.7", "fusion(kLoop)", 4096, 1024, 512};
  return a;
}

TEST(ActivityToEventTest, KernelGetsItsHloAndMappedTimes) {
  GpuActivity k;
  k.kind = GpuActivity::Kind::kKernel;
  k.name = "fusion_3_kernel";
  k.start = 2'000;
  k.end = 2'500;
  k.device = 0;
  k.stream = 7;
  const ClockMapping clock = ClockMapping::FromSample(1'000, 10'000);
  TraceEvent e = ActivityToEvent(k, clock, SampleAnnotations(), 4);
  EXPECT_EQ(e.name, "fusion_3_kernel");
  EXPECT_EQ(e.category, kCategoryKernel);
  EXPECT_EQ(e.hlo, "fusion.3");
  EXPECT_EQ(e.computation, "main.7");
  EXPECT_EQ(e.kind, "fusion(kLoop)");
  EXPECT_EQ(e.start_ns, 11'000);
  EXPECT_EQ(e.end_ns, 11'500);
  EXPECT_EQ(e.bytes_read, 4096);
  EXPECT_EQ(e.bytes_written, 1024);
  EXPECT_EQ(e.flops, 512);
  EXPECT_EQ(e.iteration, 4);
  EXPECT_TRUE(e.is_kernel());

  // A kernel the compiler did not make (a library's) keeps its name, without an HLO.
  k.name = "cutlass_gemm";
  TraceEvent other = ActivityToEvent(k, clock, SampleAnnotations(), 0);
  EXPECT_EQ(other.name, "cutlass_gemm");
  EXPECT_TRUE(other.hlo.empty());
  EXPECT_EQ(other.bytes(), 0);
}

TEST(ActivityToEventTest, MemcpyCarriesItsBytes) {
  GpuActivity m;
  m.kind = GpuActivity::Kind::kMemcpy;
  m.copy_kind = "HtoD";
  m.bytes = 1 << 20;
  m.start = 100;
  m.end = 90;  // a bad record never ends before it starts
  TraceEvent e = ActivityToEvent(m, ClockMapping::FromSample(0, 0), {}, 1);
  EXPECT_EQ(e.name, "memcpy HtoD");
  EXPECT_EQ(e.category, kCategoryMemcpy);
  EXPECT_EQ(e.bytes_written, 1 << 20);
  EXPECT_EQ(e.bytes_read, 0);
  EXPECT_EQ(e.start_ns, 100);
  EXPECT_EQ(e.end_ns, 100);
  EXPECT_FALSE(e.is_kernel());
}

#ifdef FUSEBOX_HAVE_CUPTI_HEADERS
TEST(DecodeCuptiRecordTest, KernelRecord) {
  CUpti_ActivityKernel10 record;
  std::memset(&record, 0, sizeof(record));
  record.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  record.start = 123'456'789;
  record.end = 123'460'000;
  record.deviceId = 1;
  record.streamId = 13;
  record.correlationId = 99;
  record.name = "reduce_2_partials";
  auto a = DecodeCuptiRecord(&record);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->kind, GpuActivity::Kind::kKernel);
  EXPECT_EQ(a->name, "reduce_2_partials");
  EXPECT_EQ(a->start, 123'456'789u);
  EXPECT_EQ(a->end, 123'460'000u);
  EXPECT_EQ(a->device, 1u);
  EXPECT_EQ(a->stream, 13u);
  EXPECT_EQ(a->correlation, 99u);

  record.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  record.name = nullptr;
  auto serial = DecodeCuptiRecord(&record);
  ASSERT_TRUE(serial.ok());
  EXPECT_EQ(serial->name, "<unnamed kernel>");
}

TEST(DecodeCuptiRecordTest, MemcpyRecordAndOtherKinds) {
  CUpti_ActivityMemcpy6 record;
  std::memset(&record, 0, sizeof(record));
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  record.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  record.bytes = 4096;
  record.start = 10;
  record.end = 20;
  record.deviceId = 0;
  record.streamId = 7;
  auto a = DecodeCuptiRecord(&record);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->kind, GpuActivity::Kind::kMemcpy);
  EXPECT_EQ(a->copy_kind, "DtoH");
  EXPECT_EQ(a->bytes, 4096u);
  EXPECT_EQ(a->stream, 7u);

  record.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  auto other = DecodeCuptiRecord(&record);
  EXPECT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kNotFound);
}
#endif

// The whole path without CUPTI: activities as the buffer callback hands them over, the
// observer's run windows, a fixed clock; the trace has GPU tracks, iterations and a
// kernel summary that counts only kernels.
TEST(CuptiTracerTest, BuildsTheTraceFromActivitiesAndRuns) {
  CuptiTracer tracer;
  tracer.SetAnnotations(SampleAnnotations());
  tracer.SetClockMapping(ClockMapping::FromSample(0, 1'000'000));
  ExecutionObserver& observer = tracer;
  observer.OnRunStart(0, 1'000'000);
  observer.OnHostWork("upload arguments", 1'000'010, 1'000'020);
  KernelLaunch ignored;
  ignored.kernel = "fusion_3_kernel";
  observer.OnKernel(ignored, 1'000'100, 1'000'200, 0);  // CUPTI has the kernels
  observer.OnRunEnd(0, 1'010'000);
  observer.OnRunStart(1, 1'020'000);
  observer.OnRunEnd(1, 1'030'000);

  std::vector<GpuActivity> activities(3);
  activities[0].name = "fusion_3_kernel";
  activities[0].start = 1'000;
  activities[0].end = 5'000;
  activities[0].stream = 7;
  activities[1].name = "fusion_3_kernel";
  activities[1].start = 21'000;
  activities[1].end = 24'000;
  activities[1].stream = 7;
  activities[2].kind = GpuActivity::Kind::kMemcpy;
  activities[2].copy_kind = "DtoH";
  activities[2].bytes = 64;
  activities[2].start = 25'000;
  activities[2].end = 26'000;
  activities[2].device = 1;
  activities[2].stream = 9;
  GpuActivity incomplete;
  incomplete.name = "never_finished";
  tracer.AddActivities(activities, 2);
  tracer.AddActivities({incomplete}, 1);
  EXPECT_EQ(tracer.dropped_records(), 3);

  Trace trace = tracer.TakeTrace();
  std::vector<TraceEvent> kernels = trace.Kernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].iteration, 0);
  EXPECT_EQ(kernels[1].iteration, 1);
  EXPECT_EQ(kernels[0].start_ns, 1'001'000);
  EXPECT_EQ(TrackName(trace, kernels[0].track), "GPU 0/stream 7");
  EXPECT_EQ(kernels[0].hlo, "fusion.3");
  int memcpys = 0, runs = 0, host = 0;
  for (const TraceEvent& e : trace.events()) {
    if (e.category == kCategoryMemcpy) {
      ++memcpys;
      EXPECT_EQ(TrackName(trace, e.track), "GPU 1/stream 9");
      EXPECT_EQ(e.iteration, 1);
    }
    runs += e.category == kCategoryRun;
    if (e.category == kCategoryHost) {
      ++host;
      EXPECT_EQ(TrackName(trace, e.track), "CPU/host");
    }
  }
  EXPECT_EQ(memcpys, 1);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(host, 1);
  EXPECT_EQ(Summarize(trace).kernel_count, 2);
  // Taken: the next trace starts empty.
  EXPECT_TRUE(tracer.TakeTrace().empty());
}

// Kernels a library (cuBLAS) launched carry the HLO instruction of the call they ran for:
// CUPTI's external-correlation records tie their correlation ids to the id pushed around
// the call (OnLibraryCallBegin/End). The call's flops go on its first kernel only; a
// kernel of the same name outside any call stays unattributed.
TEST(CuptiTracerTest, LibraryKernelsCarryTheirCallsInstruction) {
  CuptiTracer tracer;
  tracer.SetClockMapping(ClockMapping::FromSample(0, 1'000'000));
  ExecutionObserver& observer = tracer;
  observer.OnRunStart(0, 1'000'000);
  KernelLaunch call;
  call.kernel = "cuBLAS cublasGemmStridedBatchedEx";
  call.hlo = "cublas-gemm.3";
  call.computation = "main";
  call.kind = "library(cuBLAS gemm)";
  call.flops = 4096;
  call.bytes_read = 512;
  observer.OnLibraryCallBegin(call);  // external id 1 (CUPTI not started: nothing pushed)
  observer.OnLibraryCallEnd();
  observer.OnRunEnd(0, 1'010'000);

  std::vector<GpuActivity> activities(5);
  for (int i = 0; i < 3; ++i) {
    activities[i].name = "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x64x32";
    activities[i].start = 1'000 + 1'000 * static_cast<uint64_t>(i);
    activities[i].end = activities[i].start + 500;
    activities[i].correlation = 40 + static_cast<uint32_t>(i);
  }
  activities[3].kind = GpuActivity::Kind::kExternalCorrelation;
  activities[3].correlation = 40;
  activities[3].external_id = 1;
  activities[4].kind = GpuActivity::Kind::kExternalCorrelation;
  activities[4].correlation = 41;
  activities[4].external_id = 1;
  // Correlation records may arrive after the kernels' (another buffer).
  tracer.AddActivities({activities[0], activities[1], activities[2]}, 0);
  tracer.AddActivities({activities[3], activities[4]}, 0);

  Trace trace = tracer.TakeTrace();
  std::vector<TraceEvent> kernels = trace.Kernels();
  ASSERT_EQ(kernels.size(), 3u);  // correlation records are not events
  EXPECT_EQ(kernels[0].hlo, "cublas-gemm.3");
  EXPECT_EQ(kernels[0].kind, "library(cuBLAS gemm)");
  EXPECT_EQ(kernels[0].name, activities[0].name);  // the library's own kernel name
  EXPECT_EQ(kernels[0].flops, 4096);
  EXPECT_EQ(kernels[0].bytes_read, 512);
  EXPECT_EQ(kernels[1].hlo, "cublas-gemm.3");
  EXPECT_EQ(kernels[1].flops, 0);  // counted once per call
  EXPECT_EQ(kernels[2].hlo, "");   // correlation 42 belongs to no call
  EXPECT_EQ(Summarize(trace).kernel_count, 3);
}

// A fake compiled module: two kernels, one with two launches.
class FakeGpuCode : public codegen::GpuCode {
 public:
  explicit FakeGpuCode(const Module& module) {
    const Computation* entry = module.entry();
    auto reduce = std::make_unique<codegen::GpuKernel>();
    reduce->hlo = entry->root();
    reduce->name = "reduce_2";
    reduce->kind_name = "reduction(row)";
    reduce->launches.resize(2);
    reduce->launches[0].function = "reduce_2_partials";
    reduce->launches[1].function = "reduce_2_final";
    reduce->bytes_read = 800;
    reduce->bytes_written = 4;
    reduce->flops = 200;
    kernels_.push_back(std::move(reduce));
  }
  const codegen::GpuKernel* KernelFor(const Instruction*) const override { return nullptr; }
  const std::vector<std::unique_ptr<codegen::GpuKernel>>& kernels() const override { return kernels_; }
  const std::string& llvm_ir() const override { return empty_; }
  const std::string& llvm_ir_optimized() const override { return empty_; }
  const std::string& ptx() const override { return empty_; }
  const std::string& arch() const override { return empty_; }
  const std::map<std::string, std::string>& function_to_hlo() const override { return map_; }

 private:
  std::vector<std::unique_ptr<codegen::GpuKernel>> kernels_;
  std::string empty_;
  std::map<std::string, std::string> map_;
};

TEST(AnnotationsFromGpuCodeTest, EveryLaunchIsNamedAndCostsCountOnce) {
  auto module = ParseModule(R"(HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main.3 {
  x = f32[200] parameter(0)
  c = f32[] constant(0)
  ROOT reduce.2 = f32[] reduce(x, c), dimensions={0}, to_apply=add
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  FakeGpuCode code(**module);
  KernelAnnotations a = session::AnnotationsFromGpuCode(code);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a["reduce_2_partials"].hlo, "reduce.2");
  EXPECT_EQ(a["reduce_2_partials"].computation, "main.3");
  EXPECT_EQ(a["reduce_2_partials"].kind, "reduction(row)");
  EXPECT_EQ(a["reduce_2_partials"].bytes_read, 800);
  EXPECT_EQ(a["reduce_2_partials"].flops, 200);
  EXPECT_EQ(a["reduce_2_final"].hlo, "reduce.2");
  EXPECT_EQ(a["reduce_2_final"].bytes_read, 0);
  EXPECT_EQ(a["reduce_2_final"].flops, 0);
}

}  // namespace
}  // namespace fusebox::profiler
