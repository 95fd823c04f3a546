// The workbench driven headless: ImGui frames without a window or GL (the harness of the
// view tests), real files, real background jobs. Checks what users rely on: documents
// load off the UI thread, a bad file leaves the open document alone, the selection links
// an instruction to its fusion and its LLVM function, each view gets its data.
#include "app/gui/workbench.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "app/gui/task_runner.h"
#include "compiler/support/planted_bugs.h"
#include "tests/viewers/imgui_harness.h"

namespace fusebox::gui {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string Example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

class WorkbenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fusebox_workbench_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    WorkbenchOptions options;
    options.example_path = Example("reduce_sum.hlo");
    options.config_dir = (dir_ / "config").string();
    options.export_dir = (dir_ / "export").string();
    workbench_ = std::make_unique<Workbench>(options);
  }
  void TearDown() override {
    workbench_.reset();
    fs::remove_all(dir_);
  }

  // Draws frames until the background work is done (and `until` holds), at most `limit_s`.
  bool Settle(const std::function<bool()>& until = [] { return true; }, double limit_s = 180) {
    auto start = std::chrono::steady_clock::now();
    for (;;) {
      harness_.Frame([&] { workbench_->Frame(); });
      if (!workbench_->busy() && until()) {
        harness_.Frame([&] { workbench_->Frame(); });
        return true;
      }
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit_s) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  viewers::testing::ImGuiHarness harness_{1400, 900};
  fs::path dir_;
  std::unique_ptr<Workbench> workbench_;
};

TEST(TaskRunnerTest, RunsInOrderAndAppliesOnPoll) {
  TaskRunner runner;
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) {
    runner.Submit("job", [](TaskContext&) {}, [&order, i] { order.push_back(i); });
  }
  while (!runner.idle()) {
    runner.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(TaskRunnerTest, CancelDropsResultsAndGroupsReplaceQueuedJobs) {
  TaskRunner runner;
  std::atomic<bool> release{false};
  int done = 0;
  runner.Submit("blocker", [&](TaskContext& c) {
    while (!release && !c.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }, [&] { ++done; });
  std::vector<int> ran;
  for (int i = 0; i < 4; ++i) runner.Submit("stage", [](TaskContext&) {}, [&ran, i] { ran.push_back(i); }, "g");
  release = true;
  while (!runner.idle()) {
    runner.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(done, 1);
  EXPECT_EQ(ran, (std::vector<int>{3}));  // only the newest of the group ran

  runner.Submit("long", [](TaskContext& c) {
    while (!c.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }, [&] { ++done; });
  while (!runner.Running(nullptr)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  runner.CancelAll();
  while (!runner.idle()) {
    runner.Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(done, 1);  // the cancelled job's result was dropped
}

TEST(TaskRunnerTest, AJobThatThrowsBecomesAnError) {
  TaskRunner runner;
  runner.Submit("bad job", [](TaskContext&) { throw std::runtime_error("boom"); }, [] { FAIL(); });
  while (!runner.idle()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto errors = runner.TakeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_THAT(errors[0], HasSubstr("bad job: internal error: boom"));
}

TEST_F(WorkbenchTest, FirstStartOpensTheExampleThenRemembersIt) {
  workbench_->OpenInitial();
  ASSERT_TRUE(Settle());
  EXPECT_TRUE(workbench_->has_document());
  EXPECT_THAT(workbench_->document_path(), HasSubstr("reduce_sum.hlo"));
  EXPECT_GE(workbench_->first_load_s(), 0);
  std::ifstream recent(dir_ / "config" / "recent.txt");
  std::string line;
  std::getline(recent, line);
  EXPECT_THAT(line, HasSubstr("reduce_sum.hlo"));
}

TEST_F(WorkbenchTest, BadFileKeepsTheOpenDocument) {
  workbench_->Open(Example("running_example.hlo"));
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document());
  const fs::path bad = dir_ / "bad.hlo";
  std::ofstream(bad) << "HloModule m\nENTRY %e {\n  ROOT %x = f32[2] bogus-op(\n";
  workbench_->Open(bad.string());
  ASSERT_TRUE(Settle());
  ASSERT_FALSE(workbench_->errors().empty());
  EXPECT_THAT(workbench_->errors().back(), HasSubstr("bad.hlo:"));
  EXPECT_THAT(workbench_->document_path(), HasSubstr("running_example.hlo"));
  // Missing files and folders with nothing of XLA's are errors too.
  workbench_->Open((dir_ / "missing.hlo").string());
  fs::create_directories(dir_ / "empty");
  workbench_->Open((dir_ / "empty").string());
  ASSERT_TRUE(Settle());
  EXPECT_GE(workbench_->errors().size(), 3u);
  EXPECT_THAT(workbench_->document_path(), HasSubstr("running_example.hlo"));
}

// A model with layer scopes opens grouped: stages as boxes, blocks as nodes, parameters
// folded; a scope asked for expanded (as a click asks) is drawn as a box of its fusions.
TEST_F(WorkbenchTest, ResNetGraphOpensGroupedByScope) {
  const std::string resnet =
      std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/graph/resnet50_scoped.hlo";
  workbench_->ShowView(View::kGraph);
  workbench_->Open(resnet);
  ASSERT_TRUE(Settle([&] { return workbench_->has_document() && workbench_->graph_ready(); }));
  const graph::FusionGraph& grouped = workbench_->graph_view().graph();
  EXPECT_EQ(grouped.scope_prefix, "resnet50") << workbench_->graph_message();
  EXPECT_LE(grouped.instruction_node_count(), 40);
  auto has_scope_box = [](const graph::FusionGraph& g, const std::string& scope) {
    return std::any_of(g.clusters.begin(), g.clusters.end(), [&](const graph::GraphCluster& c) {
      return c.kind == graph::ClusterKind::kScope && c.scope == scope;
    });
  };
  EXPECT_TRUE(has_scope_box(grouped, "resnet50/stage3"));
  EXPECT_FALSE(has_scope_box(grouped, "resnet50/stage3/block2"));
  for (const graph::GraphNode& node : grouped.nodes) {  // fused parameters are fusions' ports
    if (node.fusion.empty()) {
      EXPECT_NE(node.category, graph::NodeCategory::kParameter) << node.title;
    }
  }
  // Every node lies in the layout (the composed one: the stages side by side).
  ASSERT_EQ(workbench_->graph_view().layout().nodes.size(), grouped.nodes.size());

  workbench_->ExpandGraphScopes({"resnet50/stage3/block2"});
  ASSERT_TRUE(Settle(
      [&] {
        return workbench_->graph_ready() &&
               has_scope_box(workbench_->graph_view().graph(), "resnet50/stage3/block2");
      },
      60));
  EXPECT_NE(workbench_->graph_view().graph().FindNode("fusion.26"), nullptr);
}

TEST_F(WorkbenchTest, EveryViewGetsItsData) {
  workbench_->Open(Example("mnist_train_step.hlo"));
  workbench_->Select("dot_general.2");  // before the module is open: applied once it is
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document());
  EXPECT_EQ(workbench_->selection(), "dot_general.2");
  // What each view holds, not which view was asked for: the stage panes' text, the pass
  // stepper's snapshots, the graph's nodes, the profile's trace.
  workbench_->ShowView(View::kStages);
  workbench_->SetPaneStage(0, "hlo");
  workbench_->SetPaneStage(1, "optimized_hlo");
  ASSERT_TRUE(Settle([&] { return !workbench_->pane_text(1).empty(); }));
  EXPECT_THAT(workbench_->pane_text(0), HasSubstr("dot_general.2 = "));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("fusion"));
  workbench_->ShowView(View::kPasses);
  ASSERT_TRUE(Settle());
  EXPECT_GE(workbench_->pass_snapshot_count(), 5u);  // every pass of the pipeline kept one
  workbench_->ShowView(View::kGraph);
  ASSERT_TRUE(Settle([&] { return workbench_->graph_ready(); }));
  EXPECT_GT(workbench_->graph_node_count(), 10u) << workbench_->graph_message();
  workbench_->ShowView(View::kProfile);
  workbench_->StartProfile();
  ASSERT_TRUE(Settle([&] { return workbench_->profile_ready(); }));
  ASSERT_NE(workbench_->timeline_trace(), nullptr);
  EXPECT_FALSE(workbench_->timeline_trace()->Kernels().empty());
  // The roofline of the run: the machine's roofs were measured (or read from the cache)
  // with it, and every kernel that counts flops is a point.
  workbench_->ShowRoofline(true);
  ASSERT_TRUE(Settle());
  EXPECT_GT(workbench_->roofline_points(), 3u);
  workbench_->ShowRoofline(false);
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
  // The compile track: the session's spans of the pipeline, the stages' CPU backend and
  // the two runs' compiles, on a "compile" process.
  workbench_->ShowCompileTrack(true);
  ASSERT_TRUE(Settle());
  const profiler::Trace* compile = workbench_->timeline_trace();
  ASSERT_NE(compile, nullptr);
  std::set<std::string> processes, names;
  for (const profiler::Track& track : compile->tracks()) processes.insert(track.process);
  for (const profiler::TraceEvent& e : compile->events()) names.insert(e.category + " " + e.name);
  EXPECT_EQ(processes, std::set<std::string>{"compile"});
  for (const char* name : {"pass fusion", "stage compile (fused)", "stage compile (unfused)", "codegen fusion.6",
                           "llvm optimize", "machine-code object", "buffers buffer assignment"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

// The stepper's bisect: with a rewrite planted in the fusion pass it marks fusion, and
// without one it says no pass diverges.
TEST_F(WorkbenchTest, BisectMarksTheFirstPassThatMovesTheOutputs) {
  workbench_->Open(Example("mnist_train_step.hlo"));
  ASSERT_TRUE(Settle());
  workbench_->ShowView(View::kPasses);
  workbench_->StartBisect();
  ASSERT_TRUE(Settle([&] { return workbench_->bisect_done(); }));
  EXPECT_EQ(workbench_->diverging_pass(), "");
  EXPECT_THAT(workbench_->bisect_summary(), HasSubstr("no pass diverges"));
  {
    ScopedPlantedBug planted(PlantedBug::kFusionDropsEpilogue);
    workbench_->StartBisect();
    ASSERT_TRUE(Settle([&] { return workbench_->bisect_done(); }));
  }
  EXPECT_EQ(workbench_->diverging_pass(), "fusion");
  EXPECT_THAT(workbench_->bisect_summary(), HasSubstr("pass fusion"));
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
}

TEST_F(WorkbenchTest, SelectionLinksTheFusionAndItsLlvmFunction) {
  workbench_->Open(Example("running_example.hlo"));
  workbench_->SetPaneStage(1, "llvm_ir");
  ASSERT_TRUE(Settle());
  // running_example fuses everything into one reduction kernel: its multiply runs there.
  workbench_->Select("mul.3");
  ASSERT_TRUE(Settle());
  std::vector<std::string> linked = workbench_->linked_names();
  ASSERT_GE(linked.size(), 3u) << ::testing::PrintToString(linked);
  EXPECT_EQ(linked[0], "mul.3");
  EXPECT_THAT(linked[1], HasSubstr("fusion"));
  EXPECT_THAT(linked[2], HasSubstr("fusion"));  // the LLVM function of that kernel
}

// The GPU stages are the GPU module's, as `fusebox run --backend gpu` compiles it: MNIST's
// dots are cuBLAS calls the ptx pane's header names, and an input dot links to its call.
// The GPU libraries switch off gives Fusebox's own dot kernels.
TEST_F(WorkbenchTest, GpuStagesShowTheLibraryCallsTheGpuRuns) {
  workbench_->Open(Example("mnist_train_step.hlo"));
  ASSERT_TRUE(Settle());
  workbench_->ShowView(View::kStages);
  workbench_->SetPaneStage(1, "ptx");
  ASSERT_TRUE(Settle([&] { return !workbench_->pane_text(1).empty(); }));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("// Library calls"));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("(__cublas$gemm, for %dot_general.3) -> cuBLAS"));
  EXPECT_THAT(workbench_->pane_text(1), ::testing::Not(HasSubstr("dot(skinny)")));
  workbench_->Select("dot_general.3");
  ASSERT_TRUE(Settle());
  const std::vector<std::string> linked = workbench_->linked_names();
  EXPECT_THAT(linked, ::testing::Contains(::testing::StartsWith("cublas-gemm"))) << ::testing::PrintToString(linked);
  workbench_->SetPaneStage(2, "gpu_optimized_hlo");
  ASSERT_TRUE(Settle([&] { return !workbench_->pane_text(2).empty(); }));
  EXPECT_THAT(workbench_->pane_text(2), HasSubstr("__cublas$gemm"));
  // The switch off: Fusebox's own dot kernels, and the dot links to no call.
  ASSERT_TRUE(workbench_->SetGpuLibraries(false));
  ASSERT_TRUE(Settle([&] { return !workbench_->pane_text(1).empty() && !workbench_->pane_text(2).empty(); }));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("dot(skinny)"));
  EXPECT_THAT(workbench_->pane_text(1), ::testing::Not(HasSubstr("// Library calls")));
  EXPECT_THAT(workbench_->pane_text(2), ::testing::Not(HasSubstr("__cublas$")));
  EXPECT_THAT(workbench_->linked_names(), ::testing::Not(::testing::Contains(::testing::StartsWith("cublas-"))));
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
}

// The pass stepper steps through the GPU pipeline too: for the CIFAR step, the passes
// that make gpu_optimized_hlo, where gemm-rewriter and conv-rewriter turn the dots and
// convolutions into library calls (Fusebox's own pipeline has neither); with the GPU
// libraries switched off it is Fusebox's pipeline again, and switching back shows the
// CPU pipeline.
TEST_F(WorkbenchTest, PassStepperStepsThroughTheGpuPipeline) {
  workbench_->Open(Example("cifar_cnn_train_step.hlo"));
  ASSERT_TRUE(Settle());
  workbench_->ShowView(View::kPasses);
  ASSERT_TRUE(Settle([&] { return !workbench_->stepper_pipeline_name().empty(); }));
  EXPECT_EQ(workbench_->stepper_pipeline_name(), "cpu-optimizations");
  EXPECT_THAT(workbench_->stepper_changed_passes(), ::testing::Not(::testing::Contains("conv-rewriter")));
  const size_t cpu_snapshots = workbench_->pass_snapshot_count();
  workbench_->ShowGpuPipelinePasses(true);
  ASSERT_TRUE(Settle([&] { return workbench_->stepper_pipeline_name() == "gpu-optimizations"; }));
  const std::vector<std::string> changed = workbench_->stepper_changed_passes();
  EXPECT_THAT(changed, ::testing::Contains("gemm-rewriter")) << ::testing::PrintToString(changed);
  EXPECT_THAT(changed, ::testing::Contains("conv-rewriter")) << ::testing::PrintToString(changed);
  EXPECT_GT(workbench_->pass_snapshot_count(), cpu_snapshots) << "the two rewriters' snapshots";
  ASSERT_TRUE(workbench_->SetGpuLibraries(false));
  ASSERT_TRUE(Settle([&] { return !workbench_->stepper_pipeline_name().empty(); }));
  EXPECT_EQ(workbench_->stepper_pipeline_name(), "cpu-optimizations");
  ASSERT_TRUE(workbench_->SetGpuLibraries(true));
  ASSERT_TRUE(Settle([&] { return workbench_->stepper_pipeline_name() == "gpu-optimizations"; }));
  workbench_->ShowGpuPipelinePasses(false);
  ASSERT_TRUE(Settle());
  EXPECT_EQ(workbench_->stepper_pipeline_name(), "cpu-optimizations");
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
}

TEST_F(WorkbenchTest, DroppedFileOpens) {
  workbench_->OnDrop({Example("reduce_sum.hlo"), Example("running_example.hlo")});
  ASSERT_TRUE(Settle());
  EXPECT_THAT(workbench_->document_path(), HasSubstr("reduce_sum.hlo"));  // the first of a drop
}

TEST_F(WorkbenchTest, ModuleOverTheNodeBudgetOpensOnANeighbourhood) {
  // 2,000 chained dots: none fuse, so even collapsed the graph is over the budget.
  const fs::path big = dir_ / "chain.hlo";
  {
    std::ofstream out(big);
    out << "HloModule chain\n\nENTRY %main (d0: f32[2,2]) -> f32[2,2] {\n  %d0 = f32[2,2]{1,0} parameter(0)\n";
    for (int i = 1; i <= 2000; ++i) {
      out << "  " << (i == 2000 ? "ROOT " : "") << "%d" << i << " = f32[2,2]{1,0} dot(%d" << i - 1 << ", %d" << i - 1
          << "), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    }
    out << "}\n";
  }
  workbench_->Open(big.string());
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document()) << (workbench_->errors().empty() ? "" : workbench_->errors().front());
  workbench_->ShowView(View::kGraph);
  ASSERT_TRUE(Settle([&] { return workbench_->graph_ready(); }));
  EXPECT_THAT(workbench_->graph_message(), HasSubstr("neighbourhood of the root d2000"));
}

TEST_F(WorkbenchTest, DumpFolderOpens) {
  workbench_->Open(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/mnist_train_step");
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document()) << (workbench_->errors().empty() ? "" : workbench_->errors().front());
  EXPECT_TRUE(workbench_->errors().empty());
  // XLA's stages are listed, and one opens in a pane.
  const std::vector<std::string> stages = workbench_->stage_names();
  EXPECT_NE(std::find(stages.begin(), stages.end(), "xla_optimized_hlo"), stages.end())
      << ::testing::PrintToString(stages);
  workbench_->ShowView(View::kStages);
  workbench_->SetPaneStage(1, "xla_optimized_hlo");
  ASSERT_TRUE(Settle([&] { return !workbench_->pane_text(1).empty(); }));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("HloModule"));
  EXPECT_THAT(workbench_->pane_text(1), HasSubstr("fusion"));
  // The comparison has its kernel groups.
  workbench_->ShowView(View::kCompare);
  ASSERT_TRUE(Settle([&] { return workbench_->compare_ready(); }));
  EXPECT_GT(workbench_->compare_group_count(), 0u);
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
  // The memory view: both profiles, their peaks the sums of the buffers listed, and XLA's
  // peak from the dump's -live-range.txt ("559 076 bytes").
  workbench_->ShowView(View::kMemory);
  ASSERT_TRUE(Settle([&] { return workbench_->memory_ready(); }));
  const session::MemoryView* memory = workbench_->memory_view();
  ASSERT_NE(memory, nullptr) << (workbench_->errors().empty() ? "" : workbench_->errors().front());
  ASSERT_TRUE(memory->fused && memory->unfused);
  EXPECT_EQ(memory->fused->SumAtPeak(), memory->fused->peak_bytes);
  EXPECT_EQ(memory->unfused->SumAtPeak(), memory->unfused->peak_bytes);
  EXPECT_EQ(memory->xla.live_range.peak_bytes, 559076);
  workbench_->ShowUnfusedMemory(true);
  ASSERT_TRUE(Settle());
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
}

// A dump folder whose optimized module is damaged: the comparison fails, and the error
// reaches the error panel (it used to stay inside the comparison tab).
TEST_F(WorkbenchTest, ComparisonErrorReachesTheErrorPanel) {
  const fs::path source = fs::path(FUSEBOX_SOURCE_DIR) / "tests/data/xla_dumps/reduce_sum";
  const fs::path copy = dir_ / "damaged_dump";
  fs::create_directories(copy);
  for (const auto& entry : fs::directory_iterator(source)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.find("after_optimizations.txt") != std::string::npos) {
      std::ofstream(copy / name) << "HloModule broken\nENTRY e {\n  this is not HLO\n";
    } else {
      fs::copy_file(entry.path(), copy / name);
    }
  }
  workbench_->Open(copy.string());
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document());
  workbench_->ShowView(View::kCompare);
  ASSERT_TRUE(Settle([&] { return workbench_->compare_ready(); }));
  EXPECT_EQ(workbench_->compare_group_count(), 0u);
  ASSERT_FALSE(workbench_->errors().empty());
  EXPECT_THAT(workbench_->errors().back(), HasSubstr("no XLA-vs-Fusebox comparison"));
}

// A global program sharded over 4 devices (jax's tensor-parallel MLP): the devices panel,
// the inspector on the collective the partitioner inserted, and a run on 4 devices.
TEST_F(WorkbenchTest, MultiDeviceProgramShowsDevicesShardingsAndRunsOnEachDevice) {
  workbench_->Open(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/tp_mlp/module.hlo");
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document()) << (workbench_->errors().empty() ? "" : workbench_->errors().front());
  EXPECT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();

  const std::string devices = workbench_->devices_text();
  EXPECT_THAT(devices, HasSubstr("4 devices (num_partitions 4"));
  EXPECT_THAT(devices, HasSubstr("global program"));
  EXPECT_THAT(devices, HasSubstr("mesh mesh: [d=4]"));
  EXPECT_THAT(devices, HasSubstr("%w1.1  {devices=[1,4]<=[4]}"));
  EXPECT_THAT(devices, HasSubstr("each device: f32[16,8]"));
  EXPECT_THAT(devices, HasSubstr("%w2.1  {devices=[4,1]<=[4]}"));
  EXPECT_THAT(devices, HasSubstr("per-device program (optimized) collectives: 1 all-reduce"));
  // The decisions table: the collective, what it serves and why.
  EXPECT_THAT(devices, HasSubstr("%all-reduce  all-reduce {{0,1,2,3}}, 512 B/device  for %dot_general.4: "));

  // The input's parameter: its sharding and the shape each device holds.
  workbench_->Select("w1.1");
  ASSERT_TRUE(Settle());
  EXPECT_THAT(workbench_->inspector_devices_text(), HasSubstr("sharding: {devices=[1,4]<=[4]}"));
  EXPECT_THAT(workbench_->inspector_devices_text(), HasSubstr("each device holds: f32[16,8]"));

  // The all-reduce of the optimized (per-device) program: groups, bytes and the reason.
  workbench_->Select("all-reduce");
  ASSERT_TRUE(Settle());
  const std::string inspector = workbench_->inspector_devices_text();
  EXPECT_THAT(inspector, HasSubstr("collective: all-reduce"));
  EXPECT_THAT(inspector, HasSubstr("groups: replica_groups={{0,1,2,3}}"));
  EXPECT_THAT(inspector, HasSubstr("1 group(s): {0,1,2,3}"));
  EXPECT_THAT(inspector, HasSubstr("devices: 4"));
  EXPECT_THAT(inspector, HasSubstr("bytes: 512 B per device"));
  EXPECT_THAT(inspector, HasSubstr("inserted by spmd-partitioner for %dot_general.4"));
  EXPECT_THAT(inspector, HasSubstr("is split 4 ways"));
  // ... and the instruction it serves points back at it.
  workbench_->Select("dot_general.4");
  ASSERT_TRUE(Settle());
  EXPECT_THAT(workbench_->inspector_devices_text(), HasSubstr("the partitioner added %all-reduce (all-reduce over {{0,1,2,3}})"));

  // Run & profile: the run goes to the 4 devices, fused and unfused.
  workbench_->ShowView(View::kProfile);
  workbench_->StartProfile();
  ASSERT_TRUE(Settle([&] { return workbench_->profile_ready(); }));
  ASSERT_TRUE(workbench_->errors().empty()) << workbench_->errors().front();
  const session::MultiDeviceRun* fused = workbench_->multi_device_run();
  const session::MultiDeviceRun* unfused = workbench_->multi_device_run(/*unfused=*/true);
  ASSERT_NE(fused, nullptr);
  ASSERT_NE(unfused, nullptr);
  EXPECT_EQ(fused->devices, 4);
  EXPECT_EQ(fused->device_rows.size(), 4u);
  EXPECT_GT(fused->kernels_per_device, 0);
  EXPECT_GT(unfused->kernels_per_device, fused->kernels_per_device);
  ASSERT_EQ(fused->collective_rows.size(), 1u);
  EXPECT_EQ(fused->collective_rows[0].kind, "all-reduce");
  EXPECT_EQ(fused->collective_rows[0].devices, 4);
  for (const profiler::DeviceRow& row : fused->device_rows) EXPECT_GT(row.collectives, 0);
  // The timeline holds the merged trace: a process per device, each with collectives.
  const profiler::Trace* trace = workbench_->timeline_trace();
  ASSERT_NE(trace, nullptr);
  std::map<std::string, int> collectives_by_process;
  for (const profiler::Track& track : trace->tracks()) collectives_by_process[track.process] += 0;
  for (const profiler::TraceEvent& e : trace->events()) {
    if (e.category != profiler::kCategoryCollective) continue;
    const profiler::Track* track = trace->FindTrack(e.track);
    ASSERT_NE(track, nullptr);
    ++collectives_by_process[track->process];
    EXPECT_EQ(e.group, "{0,1,2,3}");
    EXPECT_GT(e.bytes(), 0);
  }
  EXPECT_EQ(collectives_by_process.size(), 4u) << ::testing::PrintToString(collectives_by_process);
  for (int d = 0; d < 4; ++d) {
    EXPECT_GT(collectives_by_process["device " + std::to_string(d)], 0) << "device " << d;
  }
}

// A multi-device run on the GPU is refused with the library's reason; nothing is lost.
TEST_F(WorkbenchTest, MultiDeviceRunOnTheGpuSaysWhatItNeeds) {
  workbench_->Open(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/tp_mlp/module.hlo");
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document());
  workbench_->SetProfileBackend(1);
  workbench_->ShowView(View::kProfile);
  workbench_->StartProfile();
  ASSERT_TRUE(Settle([&] { return workbench_->profile_ready(); }));
  ASSERT_FALSE(workbench_->errors().empty());
  EXPECT_THAT(workbench_->errors().back(), HasSubstr("multi-device runs on the GPU need one GPU per device (4)"));
  EXPECT_TRUE(workbench_->has_document());
  EXPECT_THAT(workbench_->devices_text(), HasSubstr("4 devices"));
}

// A single-device module shows no devices panel and keeps the single-device profile.
TEST_F(WorkbenchTest, SingleDeviceModuleHasNoDevicesPanel) {
  workbench_->Open(Example("running_example.hlo"));
  ASSERT_TRUE(Settle());
  ASSERT_TRUE(workbench_->has_document());
  EXPECT_EQ(workbench_->devices_text(), "");
  workbench_->Select("mul.3");
  ASSERT_TRUE(Settle());
  EXPECT_EQ(workbench_->inspector_devices_text(), "");
}

}  // namespace
}  // namespace fusebox::gui
