// Frame cost of the workbench and its views, headless (an ImGui context with no window:
// the CPU side of a frame, which is what could make the UI stutter; the GPU side is one
// textured draw list). Measures, never asserts: "the UI never freezes" in numbers.
//
//   build/release/bench/workbench_bench
#include <benchmark/benchmark.h>
#include <imgui.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "app/gui/workbench.h"
#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "viewers/graph_view.h"
#include "viewers/text_view.h"
#include "viewers/timeline_view.h"

namespace fusebox {
namespace {

// An ImGui context with its font atlas built and a 1600x1000 display.
class HeadlessImGui {
 public:
  HeadlessImGui() {
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(1600, 1000);
    io.DeltaTime = 1.0f / 60;
    io.IniFilename = nullptr;
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;  // as the OpenGL3 backend
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(1)));
  }
  ~HeadlessImGui() { ImGui::DestroyContext(context_); }

  // One frame with `body` drawn in a full-display window; returns the vertices drawn.
  int Frame(const std::function<void()>& body) {
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("bench", nullptr, ImGuiWindowFlags_NoDecoration);
    body();
    ImGui::End();
    ImGui::Render();
    int vertices = 0;
    ImDrawData* data = ImGui::GetDrawData();
    for (int i = 0; data && i < data->CmdListsCount; ++i) vertices += data->CmdLists[i]->VtxBuffer.Size;
    return vertices;
  }

 private:
  ImGuiContext* context_;
};

std::string Example(const std::string& name) { return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name; }

void BM_TextViewMillionLines(benchmark::State& state) {
  HeadlessImGui imgui;
  std::string text;
  for (int i = 0; i < 1000000; ++i) {
    text += "  %add." + std::to_string(i) + " = f32[128,10]{1,0} add(%mul." + std::to_string(i) + ", %p.1)\n";
  }
  viewers::TextView view;
  view.SetText(text, viewers::TextLanguage::kHlo);
  view.ScrollToLine(500000);
  int vertices = 0;
  for (auto _ : state) vertices = imgui.Frame([&] { view.Draw("text"); });
  state.counters["vertices"] = vertices;
}
BENCHMARK(BM_TextViewMillionLines)->Unit(benchmark::kMillisecond);

void BM_TimelineHundredThousandEvents(benchmark::State& state) {
  HeadlessImGui imgui;
  profiler::Trace trace;
  for (int t = 0; t < 4; ++t) trace.AddTrack("CPU", "worker " + std::to_string(t));
  for (int i = 0; i < 100000; ++i) {
    profiler::TraceEvent e;
    e.name = "fusion." + std::to_string(i % 40);
    e.hlo = e.name;
    e.kind = "fusion(kLoop)";
    e.category = std::string(profiler::kCategoryKernel);
    e.track = i % 4;
    e.start_ns = int64_t{i} * 1000;
    e.end_ns = e.start_ns + 800;
    trace.AddEvent(e);
  }
  viewers::TimelineView view;
  view.SetTrace(trace, "bench");
  view.SetSelection("fusion.3");
  int vertices = 0;
  for (auto _ : state) vertices = imgui.Frame([&] { view.Draw("timeline"); });
  state.counters["vertices"] = vertices;
}
BENCHMARK(BM_TimelineHundredThousandEvents)->Unit(benchmark::kMillisecond);

void BM_GraphViewCifarExpanded(benchmark::State& state) {
  HeadlessImGui imgui;
  auto parsed = ParseFile(Example("cifar_cnn_train_step.hlo"));
  if (!parsed.ok()) {
    state.SkipWithError(parsed.status().message().c_str());
    return;
  }
  session::CompileSession session(std::move(parsed->modules.front()));
  if (!session.Optimize().ok()) {
    state.SkipWithError("pipeline failed");
    return;
  }
  graph::FusionGraphOptions options;
  options.fusions = graph::FusionDisplay::kExpandAll;
  auto graph = graph::BuildFusionGraph(*session.optimized_module(), options);
  auto layout = graph.ok() ? graph::Layout(*graph) : StatusOr<graph::GraphLayout>(graph.status());
  if (!layout.ok()) {
    state.SkipWithError(layout.status().message().c_str());
    return;
  }
  viewers::GraphView view;
  view.SetGraph(*graph, *layout);
  view.FitToView();
  int vertices = 0;
  for (auto _ : state) vertices = imgui.Frame([&] { view.Draw("graph"); });
  state.counters["nodes"] = static_cast<double>(graph->nodes.size());
  state.counters["vertices"] = vertices;
}
BENCHMARK(BM_GraphViewCifarExpanded)->Unit(benchmark::kMillisecond);

// The whole workbench on the MNIST step, each view, after its background work is done.
void BM_WorkbenchFrame(benchmark::State& state) {
  HeadlessImGui imgui;
  gui::WorkbenchOptions options;
  gui::Workbench workbench(options);
  workbench.Open(Example("mnist_train_step.hlo"));
  workbench.Select("fusion.13");
  const gui::View view = static_cast<gui::View>(state.range(0));
  workbench.ShowView(view);
  if (view == gui::View::kProfile) workbench.StartProfile();
  for (int i = 0; i < 20000 && (workbench.busy() || !workbench.has_document() ||
                                (view == gui::View::kGraph && !workbench.graph_ready()) ||
                                (view == gui::View::kProfile && !workbench.profile_ready()));
       ++i) {
    imgui.Frame([&] { workbench.Frame(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int vertices = 0;
  for (auto _ : state) vertices = imgui.Frame([&] { workbench.Frame(); });
  state.counters["vertices"] = vertices;
}
BENCHMARK(BM_WorkbenchFrame)
    ->Arg(static_cast<int>(gui::View::kStages))
    ->Arg(static_cast<int>(gui::View::kPasses))
    ->Arg(static_cast<int>(gui::View::kGraph))
    ->Arg(static_cast<int>(gui::View::kProfile))
    ->ArgName("view")
    ->Unit(benchmark::kMillisecond);

// Issue #27's check: from opening a ResNet-50-size jax model (stage/block/layer scopes,
// tests/data/graph/resnet50_scoped.hlo) to the graph view's first frame with the laid-out
// graph fitted: load, Fusebox's pipeline (the view shows the optimized module), grouping
// by scope, the composed layout (dot in a child process per part, as the GUI runs it) and
// the frame. Counters: the nodes drawn and the zoom Fit chose.
void BM_ResNet50OpenToReadableGraph(benchmark::State& state) {
  HeadlessImGui imgui;
  size_t nodes = 0;
  double zoom = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    gui::WorkbenchOptions options;
    gui::Workbench workbench(options);
    workbench.ShowView(gui::View::kGraph);
    workbench.Open(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/graph/resnet50_scoped.hlo");
    for (int i = 0; i < 20000 && !(workbench.has_document() && workbench.graph_ready()); ++i) {
      imgui.Frame([&] { workbench.Frame(); });
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    imgui.Frame([&] { workbench.Frame(); });  // the first frame that draws it
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    nodes = workbench.graph_node_count();
    zoom = workbench.graph_zoom();
    state.SetLabel(workbench.graph_message());
  }
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["zoom"] = zoom;
}
BENCHMARK(BM_ResNet50OpenToReadableGraph)
    ->UseManualTime()
    ->Iterations(3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
