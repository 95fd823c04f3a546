// The compile-time trace: the recorder itself (threads, nesting, self times), and a session
// compiling the MNIST step with tracing on — a span for every pass of the pipeline, every
// kernel's IR emission, LLVM's optimization of every kernel function, code generation,
// the JIT link and buffer assignment, nested properly on each thread — whose Chrome trace
// JSON reads back, and whose stages equal those of a compile without tracing.
#include "compiler/support/compile_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/session/compile_session.h"
#include "tests/compiler/session/example_session.h"
#include "profiler/chrome_trace.h"
#include "profiler/compile_spans.h"

namespace fusebox::session {
namespace {

std::vector<const CompileSpan*> Find(const std::vector<CompileSpan>& spans, std::string_view category,
                                     std::string_view name = {}) {
  std::vector<const CompileSpan*> found;
  for (const CompileSpan& s : spans) {
    if (s.category == category && (name.empty() || s.name == name)) found.push_back(&s);
  }
  return found;
}

bool Within(const CompileSpan& inner, const CompileSpan& outer) {
  return inner.thread == outer.thread && inner.begin_ns >= outer.begin_ns && inner.end_ns <= outer.end_ns;
}

// Whether some span of `category` (and `name`, when given) contains `inner`.
bool InsideOne(const CompileSpan& inner, const std::vector<CompileSpan>& spans, std::string_view category,
               std::string_view name = {}) {
  for (const CompileSpan* outer : Find(spans, category, name)) {
    if (outer != &inner && Within(inner, *outer)) return true;
  }
  return false;
}

// On every thread, spans form a tree by time: each span lies inside the span open around
// it, or starts after it ended. Returns the first violation, "" if none.
std::string NestingViolation(const std::vector<CompileSpan>& spans) {
  std::vector<const CompileSpan*> open;
  for (const CompileSpan& s : spans) {  // CompileTrace::Spans() order: thread, begin, longer first
    if (s.end_ns < s.begin_ns) return s.name + " ends before it begins";
    while (!open.empty() && (open.back()->thread != s.thread || open.back()->end_ns <= s.begin_ns)) open.pop_back();
    if (!open.empty() && s.end_ns > open.back()->end_ns) {
      return s.category + " " + s.name + " overlaps " + open.back()->category + " " + open.back()->name +
             " on thread " + std::to_string(s.thread);
    }
    open.push_back(&s);
  }
  return "";
}

// --- The recorder ---

TEST(CompileTraceTest, NullTraceRecordsNothingAndReadsNoClock) {
  ScopedSpan span(nullptr, compile_category::kPass, "dce");
  span.Arg("changed", "yes").Arg("instructions", int64_t{3});
  EXPECT_FALSE(span.active());
  span.End();
  CompileTrace trace;
  EXPECT_EQ(trace.size(), 0u);
  EXPECT_TRUE(SummarizeCompileTrace(trace.Spans()).by_name.empty());
}

TEST(CompileTraceTest, SpansFromSeveralThreadsNestAndGetSelfTimes) {
  CompileTrace trace;
  {
    ScopedSpan outer(&trace, compile_category::kStage, "outer");
    { ScopedSpan a(&trace, compile_category::kPass, "a"); }
    std::thread worker([&] {
      ScopedSpan w(&trace, compile_category::kLlvm, "worker");
      w.Arg("module", "m.0");
    });
    worker.join();
    { ScopedSpan b(&trace, compile_category::kPass, "b"); }
  }
  const std::vector<CompileSpan> spans = trace.Spans();
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(trace.thread_count(), 2);
  EXPECT_EQ(NestingViolation(spans), "");
  EXPECT_EQ(spans[0].name, "outer");  // a parent before its children
  const CompileSpan* worker = Find(spans, compile_category::kLlvm, "worker").front();
  EXPECT_EQ(worker->thread, 1);
  EXPECT_EQ(worker->Arg("module"), "m.0");
  EXPECT_FALSE(InsideOne(*worker, spans, compile_category::kStage)) << "another thread's span is no child";

  // Self times: the outer span less its two children on its own thread.
  CompileTimeSummary summary = SummarizeCompileTrace(spans);
  std::map<std::string, CompileTimeRow> rows;
  for (const CompileTimeRow& row : summary.by_name) rows[row.name] = row;
  const CompileSpan& outer = spans[0];
  const int64_t children = Find(spans, compile_category::kPass, "a")[0]->duration_ns() +
                           Find(spans, compile_category::kPass, "b")[0]->duration_ns();
  EXPECT_EQ(rows["outer"].self_ns, outer.duration_ns() - children);
  EXPECT_EQ(rows["worker"].self_ns, worker->duration_ns());
  EXPECT_EQ(summary.by_category.size(), 3u);
  EXPECT_NE(FormatCompileTimeSummary(summary).find("self time by category"), std::string::npos);
}

// Hand-made spans with known times: the summary's arithmetic.
TEST(CompileTraceTest, SummaryTotalsPerCategoryAndName) {
  std::vector<CompileSpan> spans = {
      {"stage", "cpu backend", {}, 0, 100, 0},
      {"codegen", "fusion", {}, 10, 30, 0},
      {"llvm", "fusion.kernel", {}, 30, 80, 0},
      {"llvm", "fusion.kernel", {}, 0, 40, 1},
  };
  CompileTimeSummary summary = SummarizeCompileTrace(spans);
  EXPECT_EQ(summary.wall_ns, 100);
  ASSERT_FALSE(summary.by_category.empty());
  EXPECT_EQ(summary.by_category[0].category, "llvm");
  EXPECT_EQ(summary.by_category[0].self_ns, 90);
  EXPECT_EQ(summary.by_category[0].count, 2);
  ASSERT_EQ(summary.by_name.size(), 3u);
  EXPECT_EQ(summary.by_name[0].name, "fusion.kernel");
  EXPECT_EQ(summary.by_name[0].total_ns, 90);
  EXPECT_EQ(summary.by_name[1].name, "cpu backend");
  EXPECT_EQ(summary.by_name[1].self_ns, 30);  // 100 less its two children
  EXPECT_EQ(summary.by_name[1].total_ns, 100);
  EXPECT_EQ(summary.by_name[2].name, "fusion");
}

// --- A session's compile ---

class SessionTraceTest : public ::testing::Test {
 protected:
  // One traced compile of the MNIST step for the whole suite: the pipeline, the CPU backend
  // with its stages and buffer assignment.
  static void SetUpTestSuite() {
    auto trace = std::make_shared<CompileTrace>();
    trace_ = trace.get();
    traced_ = SessionOf("mnist_train_step.hlo").release();
    ASSERT_NE(traced_, nullptr);
    traced_->SetCompileTrace(trace);
    ASSERT_TRUE(traced_->StageText(Stage::kBufferAssignment).ok());
    spans_ = new std::vector<CompileSpan>(trace_->Spans());
  }
  static void TearDownTestSuite() {
    delete traced_;  // and the trace it keeps
    delete spans_;
  }
  static CompileTrace* trace_;
  static CompileSession* traced_;
  static std::vector<CompileSpan>* spans_;
};
CompileTrace* SessionTraceTest::trace_ = nullptr;
CompileSession* SessionTraceTest::traced_ = nullptr;
std::vector<CompileSpan>* SessionTraceTest::spans_ = nullptr;

TEST_F(SessionTraceTest, EveryPassOfThePipelineHasASpanInsideThePipelines) {
  const std::vector<CompileSpan>& spans = *spans_;
  std::unique_ptr<Module> copy = traced_->input().Clone();
  // The session's pipeline is the CPU backend's (its libraries: no fft-expander).
  const std::vector<std::string> names =
      passes::MakeOptimizationPipeline(copy.get(), /*gpu_libraries=*/false, /*cpu_libraries=*/true).PassNames();
  ASSERT_GE(names.size(), 5u);
  std::vector<std::string> traced;
  for (const CompileSpan* s : Find(spans, compile_category::kPass)) {
    if (s->Arg("pipeline").empty()) continue;  // a backend's own (layout normalization)
    traced.push_back(s->name);
    EXPECT_TRUE(InsideOne(*s, spans, compile_category::kStage)) << s->name;
  }
  EXPECT_EQ(traced, names) << "one span per pass, in the pipeline's order";
  // The record the stepper shows and the span are one measurement.
  const auto& records = traced_->pipeline_result().passes;
  for (size_t i = 0; i < records.size() && i < traced.size(); ++i) {
    const CompileSpan* span = Find(spans, compile_category::kPass, records[i].name).front();
    EXPECT_EQ(span->duration_ns(), records[i].wall_ns) << records[i].name;
    EXPECT_EQ(span->Arg("changed"), records[i].changed ? "yes" : "no");
  }
  // The verifier ran after every pass that changed the module, each run a span of its own.
  const int64_t changed = std::count_if(records.begin(), records.end(), [](const auto& r) { return r.changed; });
  EXPECT_EQ(static_cast<int64_t>(Find(spans, compile_category::kVerify).size()), changed);
}

TEST_F(SessionTraceTest, EveryKernelIsEmittedAndOptimizedInsideItsSteps) {
  const std::vector<CompileSpan>& spans = *spans_;
  auto exe = traced_->CpuCompile();
  ASSERT_TRUE(exe.ok());
  const auto& kernels = (*exe)->code().kernels();
  ASSERT_GE(kernels.size(), 5u);
  std::set<std::string> optimized;
  for (const CompileSpan* s : Find(spans, compile_category::kLlvm)) {
    optimized.insert(s->name);
    if (s->name != "optimize" && !s->Arg("function").empty()) {
      EXPECT_TRUE(InsideOne(*s, spans, compile_category::kLlvm, "optimize")) << s->name;
    }
  }
  for (const auto& kernel : kernels) {
    const std::string& name = kernel->hlo->name();
    const std::vector<const CompileSpan*> emitted = Find(spans, compile_category::kCodegen, name);
    ASSERT_EQ(emitted.size(), 1u) << name;
    EXPECT_EQ(emitted[0]->Arg("kernel"), name);
    EXPECT_EQ(emitted[0]->Arg("kind"), kernel->kind_name);
    EXPECT_TRUE(InsideOne(*emitted[0], spans, compile_category::kStage, "emit IR")) << name;
    for (const codegen::CpuLoopGroup& group : kernel->groups) {
      EXPECT_EQ(optimized.count(group.function), 1u) << "no LLVM optimization span for " << group.function;
    }
  }
  // Per LLVM module: one optimization and one object, on the compile threads, inside the
  // module's span; the JIT link once.
  const auto modules = Find(spans, compile_category::kStage);
  const size_t module_count = std::count_if(modules.begin(), modules.end(),
                                            [](const CompileSpan* s) { return s->name.rfind("module ", 0) == 0; });
  ASSERT_GE(module_count, 1u);
  EXPECT_EQ(Find(spans, compile_category::kLlvm, "optimize").size(), module_count);
  EXPECT_EQ(Find(spans, compile_category::kMachineCode, "object").size(), module_count);
  EXPECT_EQ(Find(spans, compile_category::kMachineCode, "assembly").size(), module_count);
  for (const CompileSpan* s : Find(spans, compile_category::kMachineCode, "object")) {
    EXPECT_TRUE(InsideOne(*s, spans, compile_category::kStage)) << "object outside its module";
  }
  EXPECT_EQ(Find(spans, compile_category::kJit, "jit link").size(), 1u);
  EXPECT_EQ(Find(spans, compile_category::kBuffers, "buffer assignment").size(), 1u);
}

TEST_F(SessionTraceTest, SpansNestOnEveryThread) {
  EXPECT_EQ(NestingViolation(*spans_), "");
  for (const CompileSpan& s : *spans_) {
    EXPECT_GE(s.thread, 0);
    EXPECT_LT(s.thread, trace_->thread_count());
  }
}

TEST_F(SessionTraceTest, ChromeTraceJsonHasOneCompileProcessAndATrackPerThread) {
  const nlohmann::json j = nlohmann::json::parse(profiler::ToChromeTraceJson(profiler::CompileSpansToTrace(*spans_)));
  ASSERT_TRUE(j.contains("traceEvents"));
  std::set<std::string> processes, threads;
  size_t complete = 0;
  bool saw_pass_args = false;
  for (const auto& e : j["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") && e.contains("name"));
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] != "X") continue;
    ++complete;
    ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("cat") && e.contains("args"));
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    EXPECT_FALSE(e["args"].contains("bytes_read")) << "a compile span has no run counters";
    if (e["cat"] == "pass" && e["args"].contains("changed")) saw_pass_args = true;
  }
  EXPECT_EQ(complete, spans_->size());
  EXPECT_EQ(processes, std::set<std::string>{"compile"});
  EXPECT_EQ(static_cast<int>(threads.size()), trace_->thread_count());
  EXPECT_TRUE(threads.count("thread 0"));
  EXPECT_TRUE(saw_pass_args);
}

TEST_F(SessionTraceTest, TracingChangesNoStageAndAnUntracedSessionRecordsNothing) {
  const size_t before = trace_->size();
  std::unique_ptr<CompileSession> plain = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(plain, nullptr);
  for (Stage stage : {Stage::kOptimizedHlo, Stage::kLlvmIr, Stage::kLlvmIrOptimized, Stage::kCpuAsm,
                      Stage::kBufferAssignment}) {
    EXPECT_EQ(StageOf(*plain, stage), StageOf(*traced_, stage)) << StageName(stage);
  }
  EXPECT_EQ(trace_->size(), before) << "an untraced session recorded into a trace";
  EXPECT_EQ(plain->compile_trace(), nullptr);
}

// The GPU code generator (no GPU needed): a span per kernel, LLVM's optimization per
// kernel function, and the NVPTX code generation, with the same PTX as without tracing.
TEST(GpuCompileTraceTest, KernelsOptimizationAndPtxHaveSpans) {
  std::unique_ptr<CompileSession> traced = SessionOf("reduce_sum.hlo");
  std::unique_ptr<CompileSession> plain = SessionOf("reduce_sum.hlo");
  ASSERT_TRUE(traced && plain);
  auto trace = std::make_shared<CompileTrace>();
  traced->SetCompileTrace(trace);
  auto code = traced->GpuCompile();
  if (!code.ok()) GTEST_SKIP() << code.status().message();
  const std::vector<CompileSpan> spans = trace->Spans();
  EXPECT_EQ(NestingViolation(spans), "");
  ASSERT_FALSE((*code)->kernels().empty());
  for (const auto& kernel : (*code)->kernels()) {
    EXPECT_EQ(Find(spans, compile_category::kCodegen, kernel->hlo->name()).size(), 1u) << kernel->hlo->name();
    for (const codegen::GpuLaunch& launch : kernel->launches) {
      // LLVM's -O2 runs function pipelines at several points (simplification, the inliner's
      // SCCs, late optimization): a span each time, all inside the module's optimization.
      const auto optimized = Find(spans, compile_category::kLlvm, launch.function);
      ASSERT_GE(optimized.size(), 1u) << launch.function;
      for (const CompileSpan* s : optimized) {
        EXPECT_TRUE(InsideOne(*s, spans, compile_category::kLlvm, "optimize")) << launch.function;
      }
    }
  }
  EXPECT_EQ(Find(spans, compile_category::kMachineCode, "ptx").size(), 1u);
  EXPECT_EQ(StageOf(*traced, Stage::kPtx), StageOf(*plain, Stage::kPtx));
}

}  // namespace
}  // namespace fusebox::session
