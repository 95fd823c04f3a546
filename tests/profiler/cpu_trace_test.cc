// The CPU tracer on real runs: examples compiled fused and unfused run on CpuExecutable with
// a CpuTracer, and the trace must agree with the compiled module — one kernel event per
// kernel the module launches (per while trip for loop bodies), every event naming a real
// instruction, shards inside their kernel, traffic and flops where there is work, and a
// Chrome trace that parses back with every kernel in it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/codegen/cpu_compiler.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "profiler/chrome_trace.h"
#include "profiler/cpu_tracer.h"
#include "profiler/kernel_summary.h"
#include "profiler/trace.h"

namespace fusebox {
namespace {

using profiler::CpuTracer;
using profiler::Trace;
using profiler::TraceEvent;

constexpr int kIterations = 2;
constexpr int kThreads = 2;

// A counted loop: five trips, each updating a vector with one fusible chain and bumping
// the counter; the condition is one compare. Entry work before and after the loop.
constexpr char kWhileModule[] = R"(
HloModule counted_loop

cond {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4096]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4096] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  half = f32[] constant(0.5)
  hb = f32[4096] broadcast(half), dimensions={}
  m = f32[4096] multiply(v, hb)
  t = f32[4096] tanh(m)
  v1 = f32[4096] add(t, v)
  ROOT r = (s32[], f32[4096]) tuple(i1, v1)
}

ENTRY e {
  x = f32[4096] parameter(0)
  y = f32[4096] parameter(1)
  xy = f32[4096] multiply(x, y)
  zero = s32[] constant(0)
  init = (s32[], f32[4096]) tuple(zero, xy)
  w = (s32[], f32[4096]) while(init), condition=cond, body=body
  v = f32[4096] get-tuple-element(w), index=1
  ROOT out = f32[4096] negate(v)
}
)";
constexpr int64_t kWhileTrips = 5;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string ExamplePath(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

std::unique_ptr<Module> Parse(const std::string& text) {
  auto parsed = ParseModule(text);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.status().message();
    return nullptr;
  }
  return std::move(*parsed);
}

// Kernels one execution of `comp`'s instructions launches (not counting callees).
int64_t KernelsIn(const Computation& comp) {
  int64_t n = 0;
  for (const auto& inst : comp.instructions()) n += passes::IsKernel(*inst) ? 1 : 0;
  return n;
}

// The instruction an event names, looked up in its computation; null when either is missing.
const Instruction* EventInstruction(const Module& module, const TraceEvent& e) {
  const Computation* comp = module.FindComputation(e.computation);
  return comp == nullptr ? nullptr : comp->FindInstruction(e.hlo);
}

// Whether a fused computation (or, for a plain op, the op itself) does arithmetic.
bool DoesArithmetic(const Instruction& inst) {
  auto arithmetic = [](Opcode op) {
    switch (op) {
      case Opcode::kAdd: case Opcode::kSubtract: case Opcode::kMultiply: case Opcode::kDivide:
      case Opcode::kExp: case Opcode::kLog: case Opcode::kTanh: case Opcode::kDot:
      case Opcode::kConvolution: case Opcode::kReduce: case Opcode::kMaximum: case Opcode::kMinimum:
        return true;
      default:
        return false;
    }
  };
  if (inst.opcode() != Opcode::kFusion) return arithmetic(inst.opcode());
  for (const auto& i : inst.fused_computation()->instructions()) {
    if (arithmetic(i->opcode())) return true;
  }
  return false;
}

struct TracedRun {
  std::unique_ptr<runtime::CpuExecutable> exe;
  std::vector<Literal> args;
  std::vector<Literal> results;  // one per iteration
  std::vector<int64_t> launches;  // last_kernel_launches() after each iteration
  Trace trace;
};

// Optimizes (fused or not), compiles with cheap LLVM settings (the trace does not depend on
// code quality) and runs kIterations times under one tracer.
void CompileAndTrace(const Module& module, bool fused, TracedRun* out) {
  auto optimized = passes::OptimizeForBackend(module, fused);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  runtime::CpuExecutableOptions options;
  options.threads = kThreads;
  options.compile.opt_level = 1;
  options.compile.keep_assembly = false;
  auto exe = runtime::CpuExecutable::Create(std::move(*optimized), options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  out->exe = std::move(*exe);
  auto args = interpreter::RandomArguments(module, 7);
  ASSERT_TRUE(args.ok()) << args.status().message();
  out->args = std::move(*args);
  CpuTracer tracer;
  for (int it = 0; it < kIterations; ++it) {
    runtime::CpuRunOptions run;
    run.observer = &tracer;
    run.iteration = it;
    auto result = out->exe->Run(out->args, run);
    ASSERT_TRUE(result.ok()) << result.status().message();
    out->results.push_back(std::move(*result));
    out->launches.push_back(out->exe->last_kernel_launches());
  }
  out->trace = tracer.TakeTrace();
  // The executable reads its arguments in place; running must not write into them.
  auto fresh = interpreter::RandomArguments(module, 7);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh->size(), out->args.size());
  for (size_t i = 0; i < fresh->size(); ++i) EXPECT_TRUE((*fresh)[i] == out->args[i]) << "argument " << i << " changed";
}

// Everything that must hold for any traced run, whatever the module.
void ExpectConsistentTrace(const TracedRun& run, int64_t expected_per_iteration) {
  const Module& module = run.exe->module();
  const Trace& trace = run.trace;

  // Kernel events per iteration: the compiled count, and what the executable reports.
  std::map<int64_t, int64_t> per_iteration = trace.KernelCountPerIteration();
  ASSERT_EQ(per_iteration.size(), static_cast<size_t>(kIterations));
  for (int it = 0; it < kIterations; ++it) {
    EXPECT_EQ(per_iteration[it], expected_per_iteration) << "iteration " << it;
    EXPECT_EQ(run.launches[it], expected_per_iteration) << "iteration " << it;
  }
  EXPECT_EQ(profiler::Summarize(trace).KernelsPerIteration(), expected_per_iteration);

  // Runs are deterministic.
  for (int it = 1; it < kIterations; ++it) EXPECT_TRUE(run.results[it] == run.results[0]) << "iteration " << it;

  // One run event per iteration, holding every event of its iteration.
  std::map<int64_t, const TraceEvent*> runs;
  for (const TraceEvent& e : trace.events()) {
    if (e.category == profiler::kCategoryRun) {
      EXPECT_TRUE(runs.emplace(e.iteration, &e).second) << "two run events for iteration " << e.iteration;
    }
  }
  ASSERT_EQ(runs.size(), static_cast<size_t>(kIterations));

  std::vector<const TraceEvent*> kernels;
  for (const TraceEvent& e : trace.events()) {
    ASSERT_TRUE(runs.count(e.iteration)) << e.name << " in iteration " << e.iteration;
    const TraceEvent& r = *runs[e.iteration];
    EXPECT_GE(e.start_ns, r.start_ns) << e.name;
    EXPECT_LE(e.end_ns, r.end_ns) << e.name;
    EXPECT_LE(e.start_ns, e.end_ns) << e.name;
    ASSERT_NE(trace.FindTrack(e.track), nullptr) << e.name;
    EXPECT_EQ(trace.FindTrack(e.track)->process, CpuTracer::kProcess);
    if (e.is_kernel()) kernels.push_back(&e);
  }

  // Every kernel event names a kernel instruction of the compiled module, with its
  // compiled kernel's name and kind, and traffic and work where there is some.
  for (const TraceEvent* k : kernels) {
    SCOPED_TRACE(k->computation + "/" + k->hlo);
    const Instruction* inst = EventInstruction(module, *k);
    ASSERT_NE(inst, nullptr) << "the event names no instruction of the module";
    EXPECT_TRUE(passes::IsKernel(*inst));
    const codegen::CpuKernel* compiled = run.exe->code().KernelFor(inst);
    ASSERT_NE(compiled, nullptr);
    EXPECT_EQ(k->name, compiled->name);
    EXPECT_EQ(k->kind, compiled->kind_name);
    EXPECT_EQ(k->bytes_read, compiled->bytes_read);
    EXPECT_EQ(k->bytes_written, compiled->bytes_written);
    EXPECT_EQ(k->flops, compiled->flops);
    EXPECT_GT(k->bytes_written, 0);
    bool reads_data = false;
    for (const Instruction* op : inst->operands()) reads_data |= op->shape().IsArray() && op->shape().ElementCount() > 0;
    if (reads_data) {
      EXPECT_GT(k->bytes_read, 0);
    }
    if (DoesArithmetic(*inst)) {
      EXPECT_GT(k->flops, 0);
    }
    EXPECT_TRUE(trace.FindTrack(k->track)->name.starts_with("thread ")) << trace.FindTrack(k->track)->name;
  }

  // Shards lie inside a launch of their kernel (same instruction, same iteration) and carry
  // no traffic of their own.
  for (const TraceEvent& s : trace.events()) {
    if (s.category != profiler::kCategoryShard) continue;
    bool inside = false;
    for (const TraceEvent* k : kernels) {
      inside |= k->hlo == s.hlo && k->computation == s.computation && k->iteration == s.iteration &&
                k->start_ns <= s.start_ns && s.end_ns <= k->end_ns;
    }
    EXPECT_TRUE(inside) << "shard of " << s.hlo << " [" << s.start_ns << ", " << s.end_ns
                        << "] is outside every launch of its kernel";
    EXPECT_EQ(s.bytes(), 0) << s.hlo;
    EXPECT_EQ(s.flops, 0) << s.hlo;
    EXPECT_TRUE(trace.FindTrack(s.track)->name.starts_with("worker ")) << trace.FindTrack(s.track)->name;
  }

  // The Chrome export parses back and holds exactly the kernel events, by name.
  const std::string text = profiler::ToChromeTraceJson(trace);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << "Chrome trace is not JSON";
  ASSERT_TRUE(doc.contains("traceEvents") && doc["traceEvents"].is_array());
  std::multiset<std::string> exported, traced;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") == "X" && e.value("cat", "") == "kernel") {
      exported.insert(e.value("name", ""));
      ASSERT_TRUE(e.contains("args"));
      EXPECT_FALSE(e["args"].value("hlo", "").empty());
      EXPECT_GE(e.value("dur", -1.0), 0.0);
    }
  }
  for (const TraceEvent* k : kernels) traced.insert(k->name);
  EXPECT_EQ(exported, traced);
}

class CpuTraceTest : public testing::TestWithParam<bool> {
 protected:
  bool fused() const { return GetParam(); }
};

TEST_P(CpuTraceTest, ReduceSum) {
  auto module = Parse(ReadText(ExamplePath("reduce_sum.hlo")));
  ASSERT_NE(module, nullptr);
  TracedRun run;
  CompileAndTrace(*module, fused(), &run);
  if (HasFatalFailure()) return;
  const int64_t expected = passes::CountKernels(run.exe->module()).kernels;
  EXPECT_EQ(expected, fused() ? 1 : 3);
  ExpectConsistentTrace(run, expected);
  // The fused kernel reads the three 4 MiB inputs once and writes one float.
  if (fused()) {
    std::vector<TraceEvent> kernels = run.trace.Kernels();
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0].bytes_read, 3 * 1024 * 1024 * 4);
    EXPECT_EQ(kernels[0].bytes_written, 4);
    EXPECT_GE(kernels[0].flops, 3 * 1024 * 1024);
  }
}

TEST_P(CpuTraceTest, MnistTrainStep) {
  auto module = Parse(ReadText(ExamplePath("mnist_train_step.hlo")));
  ASSERT_NE(module, nullptr);
  TracedRun run;
  CompileAndTrace(*module, fused(), &run);
  if (HasFatalFailure()) return;
  ExpectConsistentTrace(run, passes::CountKernels(run.exe->module()).kernels);
}

TEST_P(CpuTraceTest, WhileLoopLaunchesBodyKernelsPerTrip) {
  auto module = Parse(kWhileModule);
  ASSERT_NE(module, nullptr);
  TracedRun run;
  CompileAndTrace(*module, fused(), &run);
  if (HasFatalFailure()) return;
  const Module& compiled = run.exe->module();
  const Instruction* loop = nullptr;
  for (const auto& inst : compiled.entry()->instructions()) {
    if (inst->opcode() == Opcode::kWhile) loop = inst.get();
  }
  ASSERT_NE(loop, nullptr) << compiled.ToString();
  const int64_t entry = KernelsIn(*compiled.entry());
  const int64_t body = KernelsIn(*loop->while_body());
  const int64_t cond = KernelsIn(*loop->while_condition());
  ASSERT_GT(body, 0);
  ASSERT_GT(cond, 0);
  EXPECT_EQ(entry + body + cond, passes::CountKernels(compiled).kernels);
  // The body runs once per trip, the condition once more than that (the final test).
  ExpectConsistentTrace(run, entry + kWhileTrips * body + (kWhileTrips + 1) * cond);
  // Each body kernel appears kWhileTrips times per iteration, in the body computation.
  std::map<std::string, int64_t> body_calls;
  for (const TraceEvent& k : run.trace.FilterIteration(0).Kernels()) {
    if (k.computation == loop->while_body()->name()) ++body_calls[k.hlo];
  }
  EXPECT_EQ(static_cast<int64_t>(body_calls.size()), body);
  for (const auto& [hlo, calls] : body_calls) EXPECT_EQ(calls, kWhileTrips) << hlo;
  // The loop's state copies are host work, not kernels.
  int64_t host = 0;
  for (const TraceEvent& e : run.trace.EventsInIteration(0)) host += e.category == profiler::kCategoryHost ? 1 : 0;
  EXPECT_GT(host, 0);
  // The result is the interpreter's.
  auto expected = interpreter::Interpreter().Run(*module, run.args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  interpreter::CompareResult cmp = interpreter::CompareLiterals(run.results[0], *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32));
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
}

INSTANTIATE_TEST_SUITE_P(FusedAndUnfused, CpuTraceTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& p) { return p.param ? "Fused" : "Unfused"; });

TEST(CpuTraceFusionTest, FusedMnistLaunchesFewerKernelsAndMovesFewerBytes) {
  auto module = Parse(ReadText(ExamplePath("mnist_train_step.hlo")));
  ASSERT_NE(module, nullptr);
  TracedRun fused, unfused;
  CompileAndTrace(*module, true, &fused);
  if (HasFatalFailure()) return;
  CompileAndTrace(*module, false, &unfused);
  if (HasFatalFailure()) return;
  profiler::KernelSummary f = profiler::Summarize(fused.trace);
  profiler::KernelSummary u = profiler::Summarize(unfused.trace);
  EXPECT_LT(f.KernelsPerIteration(), u.KernelsPerIteration());
  EXPECT_GT(f.KernelsPerIteration(), 0);
  EXPECT_LT(f.bytes, u.bytes);
  // Both compute the same step.
  for (size_t i = 0; i < fused.results.size(); ++i) {
    interpreter::CompareResult cmp = interpreter::CompareLiterals(fused.results[i], unfused.results[i], interpreter::DefaultToleranceFor(PrimitiveType::kF32));
    EXPECT_TRUE(cmp.ok()) << cmp.ToString();
  }
}

// A dot output fusion does the dot's 2*M*N*K flops plus its epilogue; fusing must not make
// the work disappear from the trace. DISABLED: EstimateFlops (compiler/codegen/
// cpu_compiler.cc) counts a dot inside a fused computation as one flop per output element,
// so this fusion reports 6,144 flops instead of about 1,052,672. Enable with the fix.
TEST(CpuTraceFusionTest, DotOutputFusionCountsTheDotsFlops) {
  auto module = Parse(R"(
HloModule dot_bias
ENTRY e {
  a = f32[64,256] parameter(0)
  b = f32[256,32] parameter(1)
  bias = f32[32] parameter(2)
  d = f32[64,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,32] broadcast(bias), dimensions={1}
  s = f32[64,32] add(d, bb)
  ROOT r = f32[64,32] maximum(s, bb)
})");
  ASSERT_NE(module, nullptr);
  TracedRun run;
  CompileAndTrace(*module, true, &run);
  if (HasFatalFailure()) return;
  std::vector<TraceEvent> kernels = run.trace.FilterIteration(0).Kernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].kind, "fusion(kOutput)");
  EXPECT_GE(kernels[0].flops, 2 * 64 * 32 * 256);
}

// The trace written to disk is the one ToChromeTraceJson prints, and parses.
TEST(CpuTraceFusionTest, WrittenChromeTraceParses) {
  auto module = Parse(ReadText(ExamplePath("reduce_sum.hlo")));
  ASSERT_NE(module, nullptr);
  TracedRun run;
  CompileAndTrace(*module, false, &run);
  if (HasFatalFailure()) return;
  const std::string path = testing::TempDir() + "/cpu_trace_test.json";
  Status written = profiler::WriteChromeTrace(run.trace, path);
  ASSERT_TRUE(written.ok()) << written.message();
  const std::string text = ReadText(path);
  EXPECT_EQ(text, profiler::ToChromeTraceJson(run.trace));
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  std::set<std::string> hlos;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("cat", "") == "kernel") hlos.insert(e["args"].value("hlo", ""));
  }
  EXPECT_EQ(hlos, (std::set<std::string>{"add.1", "mul.1", "reduce_sum.7"}));
}

}  // namespace
}  // namespace fusebox
