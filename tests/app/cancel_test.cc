// Cancel that cancels: a job made to run for many seconds on the workbench's task runner
// stops within a second of CancelAll, whether it is in the interpreter's loop, between the
// passes of a pipeline or between the kernels of a CPU run; the runner is idle again.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "app/gui/task_runner.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/pipeline.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox::gui {
namespace {

using Clock = std::chrono::steady_clock;

// A loop of 2^31 iterations: far more than 10 s on either runtime.
constexpr char kLongLoop[] = R"(HloModule long_loop
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  y = f32[64] sine(x)
  ROOT r = (s32[], f32[64]) tuple(n, y)
}
cond {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  big = s32[] constant(2147483647)
  ROOT c = pred[] compare(i, big), direction=LT
}
ENTRY e {
  x = f32[64] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[64]) tuple(zero, x)
  w = (s32[], f32[64]) while(init), condition=cond, body=body
  ROOT y = f32[64] get-tuple-element(w), index=1
})";

// Submits `work`, lets it run `warm` long, cancels, and returns how long the runner took
// to become idle; `status` gets what the work returned.
double CancelAfter(std::chrono::milliseconds warm, std::function<Status(TaskContext&)> work, Status* status) {
  TaskRunner runner;
  bool done_ran = false;
  runner.Submit("long job", [&](TaskContext& ctx) { *status = work(ctx); }, [&] { done_ran = true; });
  std::this_thread::sleep_for(warm);
  TaskStatus running;
  EXPECT_TRUE(runner.Running(&running)) << "the job finished before it was cancelled";
  const auto cancelled_at = Clock::now();
  runner.CancelAll();
  while (!runner.idle() && Clock::now() - cancelled_at < std::chrono::seconds(30)) {
    runner.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double took = std::chrono::duration<double>(Clock::now() - cancelled_at).count();
  runner.Poll();
  EXPECT_FALSE(done_ran) << "a cancelled job's result was applied";
  return took;
}

TEST(CancelTest, InterpreterLoopStopsWithinASecond) {
  auto module = ParseModule(kLongLoop);
  ASSERT_TRUE(module.ok()) << module.status().message();
  Literal x(Shape(PrimitiveType::kF32, {64}));
  Status status;
  const double took = CancelAfter(std::chrono::milliseconds(300), [&](TaskContext& ctx) {
    interpreter::InterpreterOptions options;
    options.cancel = ctx.cancel_flag();
    return interpreter::Interpreter(options).Run(**module, {x}).status();
  }, &status);
  EXPECT_LT(took, 1.0);
  EXPECT_TRUE(IsCancelled(status)) << status.message();
}

TEST(CancelTest, CpuRunStopsBetweenKernelsWithinASecond) {
  auto module = ParseModule(kLongLoop);
  ASSERT_TRUE(module.ok()) << module.status().message();
  runtime::CpuExecutableOptions eo;
  eo.threads = 1;
  auto exe = runtime::CpuExecutable::Create(std::move(*module), eo);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal x(Shape(PrimitiveType::kF32, {64}));
  Status status;
  const double took = CancelAfter(std::chrono::milliseconds(300), [&](TaskContext& ctx) {
    runtime::CpuRunOptions options;
    options.cancel = ctx.cancel_flag();
    return (*exe)->Run({x}, options).status();
  }, &status);
  EXPECT_LT(took, 1.0);
  EXPECT_TRUE(IsCancelled(status)) << status.message();
}

// A pass that takes 100 ms (a stand-in for a slow pass on a big module).
class SlowPass : public passes::Pass {
 public:
  std::string_view name() const override { return "slow"; }
  StatusOr<bool> Run(Module&, passes::PassContext&) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ++runs;
    return false;
  }
  static inline std::atomic<int> runs{0};
};

TEST(CancelTest, PipelineStopsBetweenPassesWithinASecond) {
  auto module = ParseModule(kLongLoop);
  ASSERT_TRUE(module.ok());
  passes::Pipeline pipeline("slow-pipeline");
  for (int i = 0; i < 200; ++i) pipeline.Add<SlowPass>();  // 20 s in all
  Status status;
  std::vector<float> fractions;
  SlowPass::runs = 0;
  const double took = CancelAfter(std::chrono::milliseconds(350), [&](TaskContext& ctx) {
    passes::PipelineOptions options;
    options.cancel = ctx.cancel_flag();
    options.snapshot_pass_regex = "";
    options.progress = [&](size_t done, size_t total, std::string_view) {
      fractions.push_back(static_cast<float>(done) / static_cast<float>(total));
    };
    passes::PassContext context;
    passes::PipelineResult result;
    return pipeline.Run(**module, options, context, &result);
  }, &status);
  EXPECT_LT(took, 1.0);
  EXPECT_TRUE(IsCancelled(status)) << status.message();
  EXPECT_LT(SlowPass::runs.load(), 20);  // stopped long before the 200th pass
  ASSERT_FALSE(fractions.empty());       // real fractions: passes done of 200
  EXPECT_FLOAT_EQ(fractions.front(), 1.0f / 200);
}

}  // namespace
}  // namespace fusebox::gui
