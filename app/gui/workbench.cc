#include "app/gui/workbench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/workbench_internal.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/opcode.h"
#include "compiler/ir/sharding.h"
#include "compiler/support/strings.h"
#include "compiler/verifier/verifier.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"
#include "profiler/chrome_trace.h"
#include "report/report.h"

namespace fusebox::gui {
namespace fs = std::filesystem;

namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Fusebox's stages a session can show, in pipeline order, with the backend they need.
const char* const kCpuStages[] = {"llvm_ir", "llvm_ir_optimized", "cpu_asm", "buffer_assignment"};
const char* const kGpuStages[] = {"gpu_llvm_ir", "gpu_llvm_ir_optimized", "ptx", "ptxas_info", "sass"};

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

// "pass 07 loop-fusion" names the module after pipeline step 7.
std::string PassStageName(size_t index, const std::string& pass) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "pass %02zu ", index);
  return buffer + pass;
}

std::optional<size_t> ParsePassStage(const std::string& stage) {
  if (!StartsWith(stage, "pass ")) return std::nullopt;
  return static_cast<size_t>(std::strtoul(stage.c_str() + 5, nullptr, 10));
}

// Kernel statistics of every run but the first when there are several: the first run
// pays for one-time work (library JIT, page faults on fresh buffers) that is not the
// kernel's cost.
profiler::KernelSummary SummarizeWithoutWarmUp(const profiler::Trace& trace) {
  std::vector<int64_t> iterations = trace.Iterations();
  if (iterations.size() < 2) return profiler::Summarize(trace);
  profiler::Trace steady;
  for (const profiler::Track& track : trace.tracks()) steady.AddTrack(track.process, track.name);
  for (const profiler::TraceEvent& event : trace.events()) {
    if (event.iteration != iterations.front()) steady.AddEvent(event);
  }
  return profiler::Summarize(steady);
}

}  // namespace

std::string FormatBytes(int64_t bytes) {
  return fusebox::FormatBytes(bytes, {.largest = ByteUnit::kGiB, .two_decimals_from = ByteUnit::kMiB});
}

std::string FormatSeconds(double s) {
  char buffer[32];
  if (s >= 1) {
    std::snprintf(buffer, sizeof(buffer), "%.3f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buffer, sizeof(buffer), "%.3f ms", s * 1e3);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.1f us", s * 1e6);
  }
  return buffer;
}

std::optional<View> ParseView(std::string_view name) {
  if (name == "stages") return View::kStages;
  if (name == "passes") return View::kPasses;
  if (name == "graph") return View::kGraph;
  if (name == "timeline" || name == "profile") return View::kProfile;
  if (name == "compare") return View::kCompare;
  return std::nullopt;
}

Workbench::Workbench(WorkbenchOptions options) : options_(std::move(options)) {
  start_s_ = NowSeconds();
  std::snprintf(export_dir_, sizeof(export_dir_), "%s", options_.export_dir.c_str());
  LoadRecent();
  panes_[0].stage = "hlo";
  panes_[1].stage = "optimized_hlo";
  panes_[2].stage = "llvm_ir_optimized";
  panes_[3].stage = "cpu_asm";
}

Workbench::~Workbench() { tasks_.CancelAll(); }

bool Workbench::busy() const { return !tasks_.idle(); }

std::string Workbench::document_path() const { return document_ ? document_->path : ""; }

std::shared_ptr<Workbench::ModuleDoc> Workbench::Owned(const ModuleDoc* module) const {
  for (const auto& m : document_->modules) {
    if (m.get() == module) return m;
  }
  return nullptr;
}

Workbench::ModuleDoc* Workbench::current_module() const {
  if (!document_ || document_->modules.empty()) return nullptr;
  return document_->modules[document_->current].get();
}

void Workbench::CancelWork() {
  tasks_.CancelAll();
  // Cancelled jobs never report back: what waited on them says so instead of waiting.
  if (document_) {
    for (const auto& module : document_->modules) {
      for (auto& [name, stage] : module->stages) {
        if (!stage.loading) continue;
        stage.loading = false;
        stage.ready = true;
        stage.error = "cancelled (pick the stage again to build it)";
      }
      if (module->optimize_started && !module->optimized && module->optimize_error.empty()) {
        module->optimize_error = "the pipeline was cancelled (open the file again to run it)";
      }
    }
  }
  if (graph_loading_) {
    graph_loading_ = false;
    graph_message_ = "layout cancelled (change an option to lay the graph out again)";
  }
  if (profile_running_) {
    profile_running_ = false;
    profile_error_ = "cancelled";
  }
}

void Workbench::AddError(std::string message) {
  std::fprintf(stderr, "fusebox: %s\n", message.c_str());
  errors_.push_back(std::move(message));
}

// ---------------------------------------------------------------------------------------
// Documents

void Workbench::Open(const std::string& path, const std::string& module_selector) {
  if (path.empty()) return;
  loading_path_ = path;
  struct Loaded {
    Status status = Status::Ok();
    std::unique_ptr<Document> document;
  };
  auto loaded = std::make_shared<Loaded>();
  tasks_.Submit(
      "Opening " + path,
      [path, loaded](TaskContext& context) {
        context.SetProgress(-1, "reading and parsing");
        auto file = LoadFile(path);
        if (!file.ok()) {
          loaded->status = file.status();
          return;
        }
        if (file->modules.empty()) {
          loaded->status = InvalidArgument(path + ": holds no HLO module");
          return;
        }
        auto document = std::make_unique<Document>();
        document->path = path;
        document->notes = file->notes;
        for (const ParseWarning& warning : file->warnings) document->notes.push_back(warning.message);
        if (!file->module_keys.empty()) {
          context.SetProgress(-1, "indexing the dump folder");
          auto index = IndexDumpFolder(path);
          if (index.ok()) document->index = std::move(*index);
        }
        for (size_t i = 0; i < file->modules.size(); ++i) {
          if (context.cancelled()) return;
          context.SetProgress(static_cast<float>(i) / static_cast<float>(file->modules.size()),
                              "verifying module " + std::to_string(i + 1) + " of " +
                                  std::to_string(file->modules.size()));
          // A module that does not verify still opens — users come to see what is wrong
          // with it — but Fusebox will not compile it: the error panel lists the problems.
          VerifierOptions vopts;
          vopts.filename = path;
          std::string problems;
          int errors = 0;
          for (const auto& issue : VerifyModule(*file->modules[i], vopts)) {
            if (issue.severity != VerifierIssue::Severity::kError) continue;
            if (++errors <= 5) problems += "\n" + issue.message;
          }
          auto module = std::make_shared<ModuleDoc>();
          module->key = i < file->module_keys.size() ? file->module_keys[i] : std::to_string(i);
          module->label = file->modules[i]->name();
          if (i < file->module_keys.size()) module->label = file->module_keys[i] + " " + module->label;
          module->devices = fusebox::Summarize(*file->modules[i]).devices;
          module->input_global = module->devices.devices > 1 && !IsPerDeviceProgram(*file->modules[i]);
          module->session = std::make_shared<CompileSession>(std::move(file->modules[i]));
          if (document->index && i < file->module_keys.size()) {
            auto dump_module = document->index->Find(file->module_keys[i]);
            if (dump_module.ok()) AddXlaDumpStages(**dump_module, module->session.get());
          }
          if (file->modules.size() == 1) module->arguments = std::move(file->arguments);
          if (errors > 0) {
            module->verify_error = module->label + " does not verify (" + std::to_string(errors) +
                                   " error(s)); Fusebox will not compile it:" + problems;
          }
          document->modules.push_back(std::move(module));
        }
        if (document->modules.empty()) {
          std::string message = path + ": no module could be loaded";
          for (const std::string& note : document->notes) message += "\n" + note;
          loaded->status = InvalidArgument(message);
          return;
        }
        loaded->document = std::move(document);
      },
      [this, loaded, path, module_selector] {
        if (loading_path_ == path) loading_path_.clear();
        if (!loaded->status.ok()) {
          AddError(loaded->status.message());
          return;
        }
        SetDocument(std::move(loaded->document), module_selector);
      });
}

void Workbench::OpenInitial() {
  for (const std::string& path : recent_) {
    std::error_code ec;
    if (fs::exists(path, ec)) {
      Open(path);
      return;
    }
  }
  if (!options_.example_path.empty()) Open(options_.example_path);
}

void Workbench::OnDrop(const std::vector<std::string>& paths) {
  if (!paths.empty()) Open(paths.front());
}

void Workbench::SetDocument(std::unique_ptr<Document> document, const std::string& selector) {
  // Jobs of the old document still queued would only produce results nobody shows.
  tasks_.CancelAll();
  document_ = std::move(document);
  ++generation_;
  if (first_load_s_ < 0) first_load_s_ = NowSeconds() - start_s_;
  AddRecent(document_->path);
  int chosen = 0;
  if (!selector.empty()) {
    for (size_t i = 0; i < document_->modules.size(); ++i) {
      const ModuleDoc& m = *document_->modules[i];
      const std::string name = m.session->input().name();
      if (m.key == selector || name == selector || m.label == selector ||
          (std::all_of(selector.begin(), selector.end(), ::isdigit) && std::stoi(m.key.empty() ? "-1" : m.key) == std::stoi(selector))) {
        chosen = static_cast<int>(i);
        break;
      }
    }
  }
  SelectModule(chosen);
}

void Workbench::SelectModule(int index) {
  if (!document_ || index < 0 || index >= static_cast<int>(document_->modules.size())) return;
  document_->current = index;
  ModuleDoc* module = current_module();
  // Per-module views start fresh.
  for (StagePane& pane : panes_) {
    pane.shown.clear();
    pane.view.SetText("", viewers::TextLanguage::kPlain);
  }
  bool has_xla = false;
  for (const ExternalStage& e : module->session->external_stages()) has_xla |= e.name == "xla_optimized_hlo";
  if (has_xla) {
    pane_count_ = std::max(pane_count_, 3);
    panes_[2].stage = "xla_optimized_hlo";
  } else if (StartsWith(panes_[2].stage, "xla_")) {
    panes_[2].stage = "llvm_ir_optimized";
  }
  for (StagePane& pane : panes_) {
    if (StartsWith(pane.stage, "xla_") && !has_xla) pane.stage = "optimized_hlo";
  }
  selected_pass_ = -1;
  diff_shown_pass_ = -2;
  filter_module_ = nullptr;
  xla_selected_pass_ = 0;
  xla_diff_shown_.clear();
  graph_view_.Clear();
  graph_requested_ = false;
  graph_message_.clear();
  graph_loading_ = false;
  timeline_view_.Clear();
  run_fused_.reset();
  run_unfused_.reset();
  md_fused_.reset();
  md_unfused_.reset();
  profile_done_ = false;
  profile_running_ = false;
  profile_error_.clear();
  selection_.clear();
  StartOptimize(module);
  if (!pending_selection_.empty()) {
    Select(pending_selection_);
    pending_selection_.clear();
  }
}

void Workbench::StartOptimize(ModuleDoc* module) {
  if (module->optimize_started) return;
  module->optimize_started = true;
  if (!module->verify_error.empty()) {
    module->optimize_error = module->verify_error;
    AddError(module->verify_error);
    return;
  }
  struct Result {
    Status status = Status::Ok();
    session::SourceMap source_map;  // the kernel of every instruction
    std::vector<std::string> stage_names;
    DeviceSummary optimized_devices;
    bool optimized_global = false;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  const int generation = generation_;
  std::shared_ptr<ModuleDoc> keep = Owned(module);
  tasks_.Submit(
      "Optimizing " + module->label,
      [session, result](TaskContext& context) {
        context.SetProgress(-1, "running the pass pipeline");
        // Cancel stops the pipeline between passes; progress is passes done of all.
        session->SetCancel(context.cancel_flag());
        session->SetProgress([&context](float f, const std::string& step) { context.SetProgress(f, step); });
        result->status = session->Optimize();
        session->SetCancel(nullptr);
        session->SetProgress(nullptr);
        if (result->status.ok()) {
          result->source_map.MapKernels(*session->optimized_module());
          result->optimized_devices = fusebox::Summarize(*session->optimized_module()).devices;
          result->optimized_global =
              result->optimized_devices.devices > 1 && !IsPerDeviceProgram(*session->optimized_module());
        }
        result->stage_names = session->StageNames();
      },
      [this, keep, result, generation] {
        keep->optimized = result->status.ok();
        if (!result->status.ok()) {
          keep->optimize_error = result->status.message();
          if (generation == generation_) AddError(keep->label + ": " + keep->optimize_error);
        }
        keep->source_map.Merge(result->source_map);
        keep->optimized_devices = std::move(result->optimized_devices);
        keep->optimized_global = result->optimized_global;
        keep->stage_names = std::move(result->stage_names);
        if (generation == generation_) ApplySelectionToViews();
      });
}

void Workbench::RequestStage(ModuleDoc* module, const std::string& stage) {
  StageText& entry = module->stages[stage];
  if (entry.loading || entry.ready) return;
  if (auto pass = ParsePassStage(stage)) {
    if (!module->optimized) return;  // wait for the pipeline
    const PipelineResult& pipeline = module->session->pipeline_result();
    entry.ready = true;
    if (*pass < pipeline.passes.size() && pipeline.passes[*pass].has_snapshot) {
      entry.text = pipeline.passes[*pass].snapshot;
    } else {
      entry.error = "no snapshot was kept after this pass";
    }
    return;
  }
  entry.loading = true;
  struct Result {
    StatusOr<std::string> text = std::string();
    session::SourceMap code;  // the LLVM functions / PTX entries of each kernel
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  std::shared_ptr<ModuleDoc> keep = Owned(module);
  tasks_.Submit(
      "Building " + stage + " of " + module->label,
      [session, stage, result](TaskContext& context) {
        context.SetProgress(-1, "compiling");
        if (StartsWith(stage, "xla_")) {
          result->text = session->ExternalStageText(stage);
          return;
        }
        auto parsed = ParseStage(stage);
        if (!parsed) {
          result->text = InvalidArgument("unknown stage " + stage);
          return;
        }
        session->SetCancel(context.cancel_flag());
        session->SetProgress([&context](float f, const std::string& step) { context.SetProgress(f, step); });
        result->text = session->StageText(*parsed);
        // The code generators name each LLVM function / PTX entry after the kernel it
        // implements: remember which, so a selection lights up its code too.
        session->SetCancel(nullptr);
        session->SetProgress(nullptr);
        if (*parsed >= Stage::kLlvmIr && *parsed <= Stage::kBufferAssignment) {
          auto cpu = session->CpuCompile();
          if (cpu.ok()) result->code.AddCpuCode((*cpu)->code());
        } else if (*parsed >= Stage::kGpuLlvmIr) {
          auto gpu = session->GpuCompile();
          if (gpu.ok()) result->code.AddGpuCode(**gpu);
        }
      },
      [this, keep, stage, result] {
        StageText& done = keep->stages[stage];
        done.loading = false;
        done.ready = true;
        if (result->text.ok()) {
          done.text = std::move(*result->text);
        } else {
          done.error = result->text.status().message();
        }
        keep->source_map.Merge(result->code);
        ApplySelectionToViews();
      },
      "stage:" + module->key + ":" + stage);
}

void Workbench::AddRecent(const std::string& path) {
  std::error_code ec;
  std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  if (ec) absolute = path;
  recent_.erase(std::remove(recent_.begin(), recent_.end(), absolute), recent_.end());
  recent_.insert(recent_.begin(), absolute);
  if (recent_.size() > 10) recent_.resize(10);
  if (options_.config_dir.empty()) return;
  fs::create_directories(options_.config_dir, ec);
  std::ofstream out(options_.config_dir + "/recent.txt");
  for (const std::string& p : recent_) out << p << "\n";
}

void Workbench::LoadRecent() {
  if (options_.config_dir.empty()) return;
  std::ifstream in(options_.config_dir + "/recent.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) recent_.push_back(line);
  }
}

// ---------------------------------------------------------------------------------------
// Selection and cross-links

const Instruction* Workbench::FindInstruction(const std::string& name, bool* in_optimized) const {
  const ModuleDoc* module = current_module();
  if (!module || name.empty()) return nullptr;
  auto find = [&](const Module& m) -> const Instruction* {
    for (const auto& c : m.computations()) {
      if (const Instruction* inst = c->FindInstruction(name)) return inst;
    }
    return nullptr;
  };
  if (module->optimized) {
    if (const Instruction* inst = find(*module->session->optimized_module())) {
      if (in_optimized) *in_optimized = true;
      return inst;
    }
  }
  if (in_optimized) *in_optimized = false;
  return find(module->session->input());
}

std::vector<std::string> Workbench::LinkedNames(const std::string& instruction) const {
  const ModuleDoc* module = current_module();
  if (!module) return instruction.empty() ? std::vector<std::string>{} : std::vector<std::string>{instruction};
  return module->source_map.LinkedNames(instruction);
}

void Workbench::Select(const std::string& instruction) {
  if (!current_module()) {
    pending_selection_ = instruction;
    return;
  }
  selection_ = instruction;
  ApplySelectionToViews();
  graph_view_.CenterOn(instruction);
  if (graph_neighbourhood_) {
    graph_requested_ = false;  // a neighbourhood view follows the selection
  }
}

void Workbench::ApplySelectionToViews() {
  std::vector<std::string> linked = LinkedNames(selection_);
  for (StagePane& pane : panes_) pane.view.SetHighlight(linked);
  snapshot_view_.SetHighlight(linked);
  const ModuleDoc* module = current_module();
  std::string kernel = selection_;
  if (module) {
    if (const std::string* k = module->source_map.KernelOf(selection_)) kernel = *k;
  }
  // A fused instruction drawn inside a collapsed fusion lights up that fusion's node.
  graph_view_.SetSelection(selection_, kernel != selection_ ? kernel : "");
  timeline_view_.SetSelection(kernel);
}

void Workbench::SetPaneStage(int pane, const std::string& stage) {
  if (pane < 0 || pane >= 4) return;
  panes_[pane].stage = stage;
  pane_count_ = std::max(pane_count_, pane + 1);
}

void Workbench::ShowView(View view) {
  view_ = view;
  view_switch_pending_ = true;
}

// ---------------------------------------------------------------------------------------
// Frame

void Workbench::Frame() {
  tasks_.Poll();
  for (std::string& error : tasks_.TakeErrors()) AddError(std::move(error));

  ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && ImGui::IsKeyPressed('O', false)) browser_.Open();
  if (ImGui::IsKeyPressed(294 /* GLFW_KEY_F5 */, false)) StartProfile();

  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0);
  ImGui::Begin("Fusebox", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_MenuBar |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings);
  ImGui::PopStyleVar(2);
  DrawMenuBar();

  // Children sized to the cell: a child of height 0 would run to the window's bottom and
  // cover the status bar.
  const float status_height = ImGui::GetFrameHeightWithSpacing() + 6;
  const float body_height = std::max(50.0f, ImGui::GetContentRegionAvail().y - status_height);
  if (ImGui::BeginTable("layout", 3, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV,
                        ImVec2(0, body_height))) {
    ImGui::TableSetupColumn("browser", ImGuiTableColumnFlags_WidthStretch, 0.19f);
    ImGui::TableSetupColumn("main", ImGuiTableColumnFlags_WidthStretch, 0.59f);
    ImGui::TableSetupColumn("inspector", ImGuiTableColumnFlags_WidthStretch, 0.22f);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::BeginChild("browser_panel", ImVec2(0, body_height));
    DrawModuleBrowser();
    ImGui::EndChild();
    ImGui::TableSetColumnIndex(1);
    ImGui::BeginChild("main_panel", ImVec2(0, body_height));
    if (ImGui::BeginTabBar("views")) {
      struct Tab {
        const char* label;
        View view;
      };
      const Tab tabs[] = {{"Stages", View::kStages},
                          {"Passes", View::kPasses},
                          {"Fusion graph", View::kGraph},
                          {"Run & profile", View::kProfile},
                          {"XLA vs Fusebox", View::kCompare}};
      bool switched = false;
      for (const Tab& tab : tabs) {
        if (tab.view == View::kCompare && !(current_module() && HasXlaDump(*current_module()))) continue;
        ImGuiTabItemFlags flags = view_switch_pending_ && view_ == tab.view ? ImGuiTabItemFlags_SetSelected : 0;
        if (flags) switched = true;
        if (ImGui::BeginTabItem(tab.label, nullptr, flags)) {
          if (!view_switch_pending_) view_ = tab.view;
          switch (tab.view) {
            case View::kStages: DrawStages(); break;
            case View::kPasses: DrawPasses(); break;
            case View::kGraph: DrawGraph(); break;
            case View::kProfile: DrawProfile(); break;
            case View::kCompare: DrawCompare(); break;
          }
          ImGui::EndTabItem();
        }
      }
      // A switch waits for its tab (XLA vs Fusebox appears once a dump folder is open).
      if (switched) view_switch_pending_ = false;
      ImGui::EndTabBar();
    }
    ImGui::EndChild();
    ImGui::TableSetColumnIndex(2);
    ImGui::BeginChild("inspector_panel", ImVec2(0, body_height));
    DrawInspector();
    ImGui::EndChild();
    ImGui::EndTable();
  }
  DrawStatusBar();
  ImGui::End();

  if (auto chosen = browser_.Draw()) Open(*chosen);
  DrawExportPopup();
  DrawErrorPanel();
}

void Workbench::DrawMenuBar() {
  if (!ImGui::BeginMenuBar()) return;
  if (ImGui::BeginMenu("File")) {
    if (ImGui::MenuItem("Open file or dump folder...", "Ctrl+O")) browser_.Open();
    if (ImGui::MenuItem("Open the bundled example", nullptr, false, !options_.example_path.empty())) {
      Open(options_.example_path);
    }
    if (ImGui::BeginMenu("Open recent", !recent_.empty())) {
      for (const std::string& path : recent_) {
        if (ImGui::MenuItem(path.c_str())) Open(path);
      }
      ImGui::EndMenu();
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Export...", nullptr, false, has_document())) export_open_ = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_requested_ = true;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Stages", nullptr, view_ == View::kStages)) ShowView(View::kStages);
    if (ImGui::MenuItem("Passes", nullptr, view_ == View::kPasses)) ShowView(View::kPasses);
    if (ImGui::MenuItem("Fusion graph", nullptr, view_ == View::kGraph)) ShowView(View::kGraph);
    if (ImGui::MenuItem("Run & profile", nullptr, view_ == View::kProfile)) ShowView(View::kProfile);
    if (ImGui::MenuItem("XLA vs Fusebox", nullptr, view_ == View::kCompare,
                        current_module() && HasXlaDump(*current_module()))) {
      ShowView(View::kCompare);
    }
    ImGui::Separator();
    for (int n = 1; n <= 4; ++n) {
      std::string label = std::to_string(n) + " stage pane" + (n > 1 ? "s" : "");
      if (ImGui::MenuItem(label.c_str(), nullptr, pane_count_ == n)) pane_count_ = n;
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Run fused and unfused", "F5", false, has_document() && !profile_running_)) {
      ShowView(View::kProfile);
      StartProfile();
    }
    if (ImGui::MenuItem("Cancel background work", nullptr, false, busy())) CancelWork();
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Help")) {
    ImGui::TextUnformatted("Fusebox: a workbench for XLA-style tensor compilers.");
    ImGui::TextDisabled("Click a name in any pane, the graph or the timeline to select it everywhere.");
    ImGui::TextDisabled("Ctrl+F searches the focused pane; Ctrl+O opens; F5 runs and profiles.");
    ImGui::TextDisabled("Drop a file or dump folder onto the window to open it.");
    ImGui::EndMenu();
  }
  ImGui::EndMenuBar();
}


// ---------------------------------------------------------------------------------------
// Module browser

void Workbench::DrawInstructionLink(const std::string& name) {
  ImGui::PushID(name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
  if (ImGui::Selectable(("%" + name).c_str(), selection_ == name)) Select(name);
  ImGui::PopStyleColor();
  ImGui::PopID();
}

void Workbench::DrawModuleBrowser() {
  if (!document_) {
    if (!loading_path_.empty()) {
      ImGui::TextWrapped("Opening %s ...", loading_path_.c_str());
    } else {
      ImGui::TextWrapped("No module open. File > Open, or drop a file or XLA dump folder here.");
    }
    return;
  }
  ImGui::TextColored(kDimColour, "%s", fs::path(document_->path).filename().string().c_str());
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", document_->path.c_str());
  if (document_->index) {
    const DumpIndex& index = *document_->index;
    ImGui::Text("XLA dump: %zu module(s), %lld file(s)", index.modules.size(),
                static_cast<long long>(index.total_files));
    float height = std::min(8.0f, 1.5f + document_->modules.size()) * ImGui::GetTextLineHeightWithSpacing();
    if (ImGui::BeginTable("dump_modules", 4,
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                              ImGuiTableFlags_Resizable,
                          ImVec2(0, height))) {
      ImGui::TableSetupScrollFreeze(0, 1);
      ImGui::TableSetupColumn("module");
      ImGui::TableSetupColumn("passes", ImGuiTableColumnFlags_WidthFixed, 44);
      ImGui::TableSetupColumn("code", ImGuiTableColumnFlags_WidthFixed, 36);
      ImGui::TableSetupColumn("files", ImGuiTableColumnFlags_WidthFixed, 36);
      ImGui::TableHeadersRow();
      for (size_t i = 0; i < document_->modules.size(); ++i) {
        const ModuleDoc& m = *document_->modules[i];
        const DumpModule* dm = nullptr;
        for (const DumpModule& candidate : index.modules) {
          if (candidate.key == m.key) dm = &candidate;
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (ImGui::Selectable(m.label.c_str(), static_cast<int>(i) == document_->current,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          SelectModule(static_cast<int>(i));
        }
        if (dm) {
          int code = 0;
          for (const DumpFile& f : dm->files) {
            code += f.kind == DumpFileKind::kLlvmIr || f.kind == DumpFileKind::kPtx || f.kind == DumpFileKind::kAssembly;
          }
          ImGui::TableNextColumn();
          ImGui::Text("%zu", dm->Passes().size());
          ImGui::TableNextColumn();
          ImGui::Text("%d", code);
          ImGui::TableNextColumn();
          ImGui::Text("%zu", dm->files.size());
        }
      }
      ImGui::EndTable();
    }
  } else if (document_->modules.size() > 1) {
    for (size_t i = 0; i < document_->modules.size(); ++i) {
      if (ImGui::Selectable(document_->modules[i]->label.c_str(), static_cast<int>(i) == document_->current)) {
        SelectModule(static_cast<int>(i));
      }
    }
  }
  ImGui::PushStyleColor(ImGuiCol_Text, kNotFusedColour);
  for (const std::string& note : document_->notes) ImGui::TextWrapped("note: %s", note.c_str());
  ImGui::PopStyleColor();

  ModuleDoc* module = current_module();
  if (!module) return;
  const auto& external = module->session->external_stages();
  if (!external.empty() &&
      ImGui::CollapsingHeader("XLA's stages of this module", ImGuiTreeNodeFlags_DefaultOpen)) {
    // The dump's files by stage: a click shows one in the last stage pane, next to
    // Fusebox's own stages.
    const float height = std::min(7.0f, static_cast<float>(external.size()) + 0.5f) *
                         ImGui::GetTextLineHeightWithSpacing();
    ImGui::BeginChild("xla_stages", ImVec2(0, height));
    for (const ExternalStage& stage : external) {
      const int target = std::max(1, pane_count_ - 1);
      if (ImGui::Selectable(stage.name.c_str(), panes_[target].stage == stage.name)) {
        SetPaneStage(target, stage.name);
        ShowView(View::kStages);
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", stage.description.c_str(), stage.source.c_str());
      ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
      ImGui::TextColored(kDimColour, "%s", stage.description.c_str());
    }
    ImGui::EndChild();
  }
  const Module& input = module->session->input();
  ImGui::Separator();
  ImGui::Text("%s", input.name().c_str());
  ImGui::TextColored(kDimColour, "%zu computations, %lld instructions", input.computations().size(),
                     static_cast<long long>(input.instruction_count()));
  if (module->optimized) {
    ImGui::TextColored(kDimColour, "kernels: %lld before fusion, %lld after",
                       static_cast<long long>(module->session->kernels_before().kernels),
                       static_cast<long long>(module->session->kernels_after().kernels));
  } else if (!module->optimize_error.empty()) {
    ImGui::TextColored(kErrorColour, "pipeline failed");
  } else {
    ImGui::TextColored(kDimColour, "optimizing...");
  }
  DrawDevicesPanel(module);
  ImGui::RadioButton("input", &browser_module_, 0);
  ImGui::SameLine();
  if (!module->optimized) ImGui::BeginDisabled();
  ImGui::RadioButton("optimized", &browser_module_, 1);
  if (!module->optimized) ImGui::EndDisabled();
  const Module& shown = browser_module_ == 1 && module->optimized ? *module->session->optimized_module() : input;
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##filter", "search instructions (name, opcode, shape)", module_filter_,
                           sizeof(module_filter_));
  std::string filter = module_filter_;
  std::transform(filter.begin(), filter.end(), filter.begin(), ::tolower);
  ImGui::BeginChild("instructions");
  ImGui::PushFont(mono_font_);
  auto row = [&](const Instruction& inst) {
    std::string label = inst.name();
    ImGui::PushID(&inst);
    if (ImGui::Selectable(label.c_str(), selection_ == inst.name())) Select(inst.name());
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", inst.ToString().substr(0, 600).c_str());
    }
    // The opcode in a column of its own, pushed right past long names.
    const float column = ImGui::GetWindowContentRegionMax().x * 0.58f;
    const float after_name = ImGui::GetItemRectMin().x - ImGui::GetWindowPos().x +
                             ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFontSize();
    ImGui::SameLine(std::max(column, after_name));
    ImGui::TextColored(kDimColour, "%s", std::string(OpcodeName(inst.opcode())).c_str());
    ImGui::PopID();
  };
  if (!filter.empty()) {
    // A flat list of matches across computations, computed when the query or the module
    // changes (not every frame: big modules have hundreds of thousands of instructions).
    std::vector<const Instruction*>& matches = filter_matches_;
    if (filter != filter_query_ || &shown != filter_module_) {
      filter_query_ = filter;
      filter_module_ = &shown;
      matches.clear();
      for (const auto& c : shown.computations()) {
        for (const auto& inst : c->instructions()) {
          std::string hay = inst->name() + " " + std::string(OpcodeName(inst->opcode())) + " " +
                            inst->shape().ToString(false);
          std::transform(hay.begin(), hay.end(), hay.begin(), ::tolower);
          if (hay.find(filter) != std::string::npos) matches.push_back(inst.get());
        }
      }
    }
    ImGui::TextColored(kDimColour, "%zu match(es)", matches.size());
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(matches.size()));
    while (clipper.Step()) {
      for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) row(*matches[i]);
    }
  } else {
    for (const auto& c : shown.computations()) {
      ImGuiTreeNodeFlags flags = c->is_entry() ? ImGuiTreeNodeFlags_DefaultOpen : 0;
      std::string label = (c->is_entry() ? "ENTRY " : "") + c->name() + "  (" +
                          std::to_string(c->instruction_count()) + ")";
      ImGui::PushID(c.get());
      if (ImGui::TreeNodeEx(label.c_str(), flags)) {
        ImGuiListClipper clipper;
        clipper.Begin(static_cast<int>(c->instruction_count()));
        while (clipper.Step()) {
          for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) row(*c->instructions()[i]);
        }
        ImGui::TreePop();
      }
      ImGui::PopID();
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
}

// ---------------------------------------------------------------------------------------
// Stage panes

void Workbench::DrawStages() {
  ModuleDoc* module = current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to see its stages.");
    return;
  }
  ImGui::TextUnformatted("Panes:");
  for (int n = 1; n <= 4; ++n) {
    ImGui::SameLine();
    ImGui::PushID(n);
    if (ImGui::RadioButton(std::to_string(n).c_str(), pane_count_ == n)) pane_count_ = n;
    ImGui::PopID();
  }
  ImGui::SameLine();
  if (!selection_.empty()) {
    std::string linked;
    for (const std::string& name : LinkedNames(selection_)) linked += (linked.empty() ? "" : ", ") + name;
    ImGui::TextColored(kAccentColour, "  linked: %s", linked.c_str());
  } else {
    ImGui::TextColored(kDimColour, "  click a name to select it in every pane");
  }

  // Every stage this module can show: Fusebox's in pipeline order, the pass snapshots,
  // XLA's from a dump folder.
  std::vector<std::string> stages = {"hlo", "optimized_hlo"};
  for (const char* s : kCpuStages) stages.push_back(s);
  for (const char* s : kGpuStages) stages.push_back(s);
  if (module->optimized) {
    const PipelineResult& pipeline = module->session->pipeline_result();
    for (size_t i = 0; i < pipeline.passes.size(); ++i) {
      if (pipeline.passes[i].has_snapshot) stages.push_back(PassStageName(i, pipeline.passes[i].name));
    }
  }
  for (const ExternalStage& e : module->session->external_stages()) stages.push_back(e.name);

  if (!ImGui::BeginTable("panes", pane_count_, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableNextRow();
  for (int p = 0; p < pane_count_; ++p) {
    ImGui::TableSetColumnIndex(p);
    StagePane& pane = panes_[p];
    ImGui::PushID(p);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##stage", pane.stage.c_str(), ImGuiComboFlags_HeightLarge)) {
      for (const std::string& stage : stages) {
        if (ImGui::Selectable(stage.c_str(), stage == pane.stage)) {
          pane.stage = stage;
          pane.shown.clear();
          // Picking a stage whose build was cancelled or failed builds it again.
          auto it = module->stages.find(stage);
          if (it != module->stages.end() && it->second.ready && !it->second.error.empty()) module->stages.erase(it);
        }
      }
      ImGui::EndCombo();
    }
    // Stages past the pipeline wait for it; the first request starts their job.
    bool needs_pipeline = pane.stage != "hlo" && !StartsWith(pane.stage, "xla_");
    StageText* text = nullptr;
    if (!needs_pipeline || module->optimized) {
      RequestStage(module, pane.stage);
      text = &module->stages[pane.stage];
    }
    ImGui::BeginChild("pane_body", ImVec2(0, 0), false);
    if (!module->optimize_error.empty() && needs_pipeline) {
      ImGui::TextColored(kErrorColour, "The pipeline failed:");
      ImGui::TextWrapped("%s", module->optimize_error.c_str());
    } else if (!text || text->loading) {
      ImGui::TextColored(kDimColour, "building %s ...", pane.stage.c_str());
    } else if (!text->error.empty()) {
      ImGui::TextColored(kErrorColour, "%s is not available:", pane.stage.c_str());
      ImGui::TextWrapped("%s", text->error.c_str());
    } else {
      if (pane.shown != pane.stage) {
        pane.view.SetText(text->text, viewers::LanguageForStage(pane.stage));
        pane.view.SetHighlight(LinkedNames(selection_));
        pane.shown = pane.stage;
      }
      ImGui::PushFont(mono_font_);
      if (auto clicked = pane.view.Draw("text")) Select(*clicked);
      ImGui::PopFont();
    }
    ImGui::EndChild();
    ImGui::PopID();
  }
  ImGui::EndTable();
}

// ---------------------------------------------------------------------------------------
// Pass stepper

void Workbench::DrawXlaPasses(ModuleDoc* module) {
  std::vector<const ExternalStage*> passes;
  for (const ExternalStage& e : module->session->external_stages()) {
    if (StartsWith(e.name, "xla_pass_")) passes.push_back(&e);
  }
  const int count = static_cast<int>(passes.size());
  if (count == 0) return;
  xla_selected_pass_ = std::clamp(xla_selected_pass_, 0, count - 1);
  if (ImGui::Button("< Previous") && xla_selected_pass_ > 0) --xla_selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("Next >") && xla_selected_pass_ + 1 < count) ++xla_selected_pass_;
  ImGui::SameLine();
  ImGui::TextColored(kDimColour, "XLA's pass snapshots in this dump: %d", count);
  if (!ImGui::BeginTable("xla_passes_layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableSetupColumn("list", ImGuiTableColumnFlags_WidthStretch, 0.3f);
  ImGui::TableSetupColumn("diff", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::BeginChild("xla_pass_list", ImVec2(0, ImGui::GetContentRegionAvail().y));
  for (int i = 0; i < count; ++i) {
    std::string label = passes[i]->description;
    if (StartsWith(label, "XLA: ")) label = label.substr(5);
    ImGui::PushID(i);
    if (ImGui::Selectable(label.c_str(), xla_selected_pass_ == i)) xla_selected_pass_ = i;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", passes[i]->source.c_str());
    ImGui::PopID();
  }
  ImGui::EndChild();
  ImGui::TableSetColumnIndex(1);
  // XLA's first snapshot follows its first pass: before it is the module as dumped before
  // optimizations, which is this session's input.
  const std::string after = passes[xla_selected_pass_]->name;
  const std::string before = xla_selected_pass_ == 0 ? "hlo" : passes[xla_selected_pass_ - 1]->name;
  RequestStage(module, before);
  RequestStage(module, after);
  const StageText& b = module->stages[before];
  const StageText& a = module->stages[after];
  if (!b.ready || !a.ready) {
    ImGui::TextColored(kDimColour, "loading XLA's snapshots ...");
  } else if (!b.error.empty() || !a.error.empty()) {
    ImGui::TextColored(kErrorColour, "%s", (!a.error.empty() ? a.error : b.error).c_str());
  } else {
    const std::string key = before + ">" + after;
    if (xla_diff_shown_ != key) {
      xla_diff_view_.SetTexts(b.text, a.text, before == "hlo" ? "before optimizations" : before, after);
      xla_diff_view_.NextChange(1);
      xla_diff_shown_ = key;
    }
    ImGui::PushFont(mono_font_);
    xla_diff_view_.Draw("xla_pass_diff");
    ImGui::PopFont();
  }
  ImGui::EndTable();
}

void Workbench::DrawPasses() {
  ModuleDoc* module = current_module();
  bool has_xla_passes = false;
  if (module) {
    for (const ExternalStage& e : module->session->external_stages()) has_xla_passes |= StartsWith(e.name, "xla_pass_");
  }
  if (has_xla_passes) {
    ImGui::RadioButton("Fusebox's pipeline", &passes_source_, 0);
    ImGui::SameLine();
    ImGui::RadioButton("XLA's passes (from the dump)", &passes_source_, 1);
    if (passes_source_ == 1) {
      DrawXlaPasses(module);
      return;
    }
  }
  if (!module || !module->optimized) {
    ImGui::TextDisabled(module && !module->optimize_error.empty() ? "The pipeline failed." : "Running the pipeline...");
    return;
  }
  const PipelineResult& pipeline = module->session->pipeline_result();
  const int count = static_cast<int>(pipeline.passes.size());
  auto next_changed = [&](int from, int direction) {
    for (int i = from + direction; i >= 0 && i < count; i += direction) {
      if (pipeline.passes[i].changed) return i;
    }
    return from;
  };
  if (selected_pass_ < 0 && count > 0) selected_pass_ = next_changed(-1, 1);
  if (selected_pass_ >= count) selected_pass_ = count - 1;

  if (ImGui::Button("< Previous") && selected_pass_ > 0) --selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("Next >") && selected_pass_ + 1 < count) ++selected_pass_;
  ImGui::SameLine();
  if (ImGui::Button("<< Previous change")) selected_pass_ = next_changed(selected_pass_, -1);
  ImGui::SameLine();
  if (ImGui::Button("Next change >>")) selected_pass_ = next_changed(selected_pass_, 1);
  ImGui::SameLine();
  ImGui::Checkbox("module after the pass instead of the diff", &pass_show_snapshot_);
  int changed = 0;
  for (const PassRecord& r : pipeline.passes) changed += r.changed;
  ImGui::TextColored(kDimColour, "%s: %d passes, %d changed the module, %.2f ms in all",
                     pipeline.pipeline_name.c_str(), count, changed, pipeline.total_ns * 1e-6);

  if (!ImGui::BeginTable("passes_layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
  ImGui::TableSetupColumn("list", ImGuiTableColumnFlags_WidthStretch, 0.3f);
  ImGui::TableSetupColumn("diff", ImGuiTableColumnFlags_WidthStretch, 0.7f);
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  if (ImGui::BeginTable("pass_list", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, 24);
    ImGui::TableSetupColumn("pass", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("ms", ImGuiTableColumnFlags_WidthFixed, 52);
    ImGui::TableSetupColumn("instrs", ImGuiTableColumnFlags_WidthFixed, 48);
    ImGui::TableHeadersRow();
    for (int i = 0; i < count; ++i) {
      const PassRecord& r = pipeline.passes[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%d", i);
      ImGui::TableNextColumn();
      ImVec4 colour = r.skipped ? kDimColour : r.changed ? kFusedColour : ImGui::GetStyleColorVec4(ImGuiCol_Text);
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      std::string label = std::string(r.changed ? "* " : "  ") + r.name + (r.skipped ? " (skipped)" : "");
      ImGui::PushID(i);
      if (ImGui::Selectable(label.c_str(), selected_pass_ == i, ImGuiSelectableFlags_SpanAllColumns)) {
        selected_pass_ = i;
      }
      if (selected_pass_ == i && diff_shown_pass_ != i) ImGui::SetScrollHereY(0.3f);
      ImGui::PopID();
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", r.wall_ns * 1e-6);
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(r.instruction_count));
    }
    ImGui::EndTable();
  }
  ImGui::TableSetColumnIndex(1);
  if (selected_pass_ >= 0 && selected_pass_ < count) {
    const PassRecord& r = pipeline.passes[selected_pass_];
    // The module before this pass: the latest snapshot before it, or the input.
    std::string before = pipeline.before;
    std::string before_title = "before the pipeline";
    for (int j = selected_pass_ - 1; j >= 0; --j) {
      if (pipeline.passes[j].has_snapshot) {
        before = pipeline.passes[j].snapshot;
        before_title = "after " + pipeline.passes[j].name;
        break;
      }
    }
    if (diff_shown_pass_ != selected_pass_) {
      if (r.has_snapshot) {
        diff_view_.SetTexts(before, r.snapshot, before_title, "after " + r.name);
        if (r.changed) diff_view_.NextChange(1);  // open on the first change
        snapshot_view_.SetText(r.snapshot, viewers::TextLanguage::kHlo);
        snapshot_view_.SetHighlight(LinkedNames(selection_));
      }
      diff_shown_pass_ = selected_pass_;
    }
    ImGui::Text("%d. %s", selected_pass_, r.name.c_str());
    ImGui::SameLine();
    ImGui::TextColored(r.changed ? kFusedColour : kDimColour, "%s",
                       r.skipped ? "skipped" : r.changed ? "changed the module" : "no change");
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "  %.3f ms, %lld instructions after", r.wall_ns * 1e-6,
                       static_cast<long long>(r.instruction_count));
    if (!r.has_snapshot) {
      ImGui::TextDisabled("No snapshot was kept after this pass.");
    } else {
      ImGui::PushFont(mono_font_);
      if (pass_show_snapshot_) {
        if (auto clicked = snapshot_view_.Draw("snapshot")) Select(*clicked);
      } else {
        diff_view_.Draw("pass_diff");
      }
      ImGui::PopFont();
    }
  }
  ImGui::EndTable();
}

// ---------------------------------------------------------------------------------------
// Fusion graph

void Workbench::RequestGraph() {
  ModuleDoc* module = current_module();
  if (!module || graph_requested_) return;
  if (graph_stage_ == 1 && !module->optimized) return;  // wait for the pipeline
  graph_requested_ = true;
  const std::string key = std::to_string(graph_stage_) + "|" + std::to_string(graph_fusions_) + "|" +
                          (graph_neighbourhood_ ? selection_ + "|" + std::to_string(graph_radius_) : "");
  if (auto cached = module->graphs.find(key); cached != module->graphs.end()) {
    graph_message_ = cached->second->message;
    graph_view_.SetGraph(cached->second->graph, cached->second->layout);
    ApplySelectionToViews();
    graph_view_.FitToView();
    return;
  }
  graph_loading_ = true;
  graph::FusionGraphOptions options;
  options.fusions = graph_fusions_ == 0   ? graph::FusionDisplay::kCollapseAll
                    : graph_fusions_ == 1 ? graph::FusionDisplay::kExpandAll
                                          : graph::FusionDisplay::kExpandSmall;
  if (graph_neighbourhood_) {
    options.center = selection_;
    options.radius = graph_radius_;
  }
  struct Result {
    StatusOr<graph::FusionGraph> graph = graph::FusionGraph();
    StatusOr<graph::GraphLayout> layout = graph::GraphLayout();
    std::string note;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  const bool optimized = graph_stage_ == 1;
  const int generation = generation_;
  std::shared_ptr<ModuleDoc> keep = Owned(module);
  tasks_.Submit(
      "Laying out the fusion graph",
      [session, optimized, options, result](TaskContext& context) mutable {
        const Module& m = optimized ? *session->optimized_module() : session->input();
        context.SetProgress(-1, "building the graph");
        result->graph = graph::BuildFusionGraph(m, options);
        if (!result->graph.ok() && graph::IsGraphTooBig(result->graph.status()) && options.center.empty() &&
            m.entry() && m.entry()->root()) {
          // Too big to draw whole: open on the neighbourhood of the result instead.
          options.center = m.entry()->root()->name();
          result->note = "The whole module is over the node budget; showing the neighbourhood of the root " +
                         options.center + ". Select an instruction and tick 'neighbourhood' to move around.";
          result->graph = graph::BuildFusionGraph(m, options);
        }
        if (!result->graph.ok() || context.cancelled()) return;
        context.SetProgress(-1, "Graphviz dot layout of " +
                                    std::to_string(result->graph->nodes.size()) + " nodes");
        // Graphviz cannot be interrupted: with the cancel flag the layout runs in a child
        // process that Cancel kills.
        graph::LayoutOptions layout_options;
        layout_options.cancel = context.cancel_flag();
        result->layout = graph::Layout(*result->graph, layout_options);
      },
      [this, result, generation, keep, key] {
        if (generation != generation_) return;
        graph_loading_ = false;
        if (!result->graph.ok()) {
          graph_message_ = result->graph.status().message();
          return;
        }
        if (!result->layout.ok()) {
          graph_message_ = result->layout.status().message();
          return;
        }
        char buffer[160];
        std::snprintf(buffer, sizeof(buffer), "%d nodes, %zu edges, laid out in %.0f ms",
                      result->graph->instruction_node_count(), result->graph->edges.size(),
                      result->layout->layout_ms);
        graph_message_ = buffer;
        for (const std::string& note : result->graph->notes) graph_message_ += "; " + note;
        if (!result->note.empty()) graph_message_ += "; " + result->note;
        auto cached = std::make_shared<ModuleDoc::CachedGraph>();
        cached->graph = std::move(*result->graph);
        cached->layout = std::move(*result->layout);
        cached->message = graph_message_;
        keep->graphs[key] = cached;
        graph_view_.SetGraph(cached->graph, cached->layout);
        ApplySelectionToViews();
        graph_view_.FitToView();
      },
      "graph");
}

void Workbench::DrawGraph() {
  ModuleDoc* module = current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to see its fusion graph.");
    return;
  }
  bool changed = false;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("optimized module").x + 40);
  changed |= ImGui::Combo("##gstage", &graph_stage_, "input module\0optimized module\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("expand small fusions").x + 40);
  changed |= ImGui::Combo("##gfusions", &graph_fusions_, "collapse fusions\0expand fusions\0expand small fusions\0");
  ImGui::SameLine();
  changed |= ImGui::Checkbox("neighbourhood of the selection", &graph_neighbourhood_);
  if (graph_neighbourhood_) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(80);
    changed |= ImGui::SliderInt("radius", &graph_radius_, 1, 6);
  }
  ImGui::SameLine();
  if (ImGui::Button("Export...")) export_open_ = true;
  if (changed) {
    graph_requested_ = false;
    graph_view_.Clear();
  }
  if (graph_neighbourhood_ && selection_.empty()) {
    ImGui::TextColored(kNotFusedColour, "Select an instruction to centre the neighbourhood on.");
  }
  RequestGraph();
  if (graph_loading_) {
    ImGui::TextColored(kDimColour, "laying out ...");
  } else if (!graph_message_.empty()) {
    ImGui::TextColored(graph_view_.has_graph() ? kDimColour : kErrorColour, "%s", graph_message_.c_str());
  }
  if (graph_view_.has_graph()) {
    if (auto clicked = graph_view_.Draw("fusion_graph")) Select(*clicked);
  }
}

// ---------------------------------------------------------------------------------------
// Run & profile

void Workbench::StartProfile() {
  ModuleDoc* module = current_module();
  if (!module || profile_running_) return;
  if (module->devices.devices > 1) {
    StartMultiDeviceProfile(module);
    return;
  }
  profile_running_ = true;
  profile_error_.clear();
  struct Result {
    std::optional<session::ProfiledRun> fused, unfused;
    std::string error;
  };
  auto result = std::make_shared<Result>();
  auto session = module->session;
  std::vector<Literal> arguments;
  for (const Literal& a : module->arguments) arguments.push_back(a);
  session::ProfiledRunOptions options;
  options.backend = profile_backend_ == 1 ? "gpu" : "cpu";
  options.iterations = profile_iterations_;
  const int generation = generation_;
  tasks_.Submit(
      "Running " + module->label + " on the " + (profile_backend_ == 1 ? "GPU" : "CPU"),
      [session, options, result, arguments = std::move(arguments)](TaskContext& context) mutable {
        const Module& m = session->input();
        if (arguments.empty()) {
          context.SetProgress(0.05f, "random inputs");
          auto random = RandomArguments(m, 0);
          if (!random.ok()) {
            result->error = random.status().message();
            return;
          }
          arguments = std::move(*random);
        }
        context.SetProgress(0.1f, "compiling and running fused");
        session::ProfiledRunOptions fused = options;
        fused.fused = true;
        fused.cancel = context.cancel_flag();
        fused.progress = [&context](float f, const std::string& step) { context.SetProgress(0.1f + 0.45f * f, "fused: " + step); };
        auto run = session::RunProfiled(m, arguments, fused);
        if (!run.ok()) {
          result->error = run.status().message();
          return;
        }
        result->fused = std::move(*run);
        if (context.cancelled()) return;
        context.SetProgress(0.55f, "compiling and running unfused (one kernel per op)");
        session::ProfiledRunOptions unfused = options;
        unfused.fused = false;
        unfused.cancel = context.cancel_flag();
        unfused.progress = [&context](float f, const std::string& step) {
          context.SetProgress(0.55f + 0.45f * f, "unfused: " + step);
        };
        auto run2 = session::RunProfiled(m, arguments, unfused);
        if (!run2.ok()) {
          result->error = "unfused: " + run2.status().message();
          return;
        }
        result->unfused = std::move(*run2);
      },
      [this, result, generation] {
        if (generation != generation_) return;
        profile_running_ = false;
        profile_done_ = true;
        profile_error_ = result->error;
        if (result->fused) {
          summary_fused_ = SummarizeWithoutWarmUp(result->fused->trace);
          run_fused_ = std::move(result->fused);
        }
        if (result->unfused) {
          summary_unfused_ = SummarizeWithoutWarmUp(result->unfused->trace);
          run_unfused_ = std::move(result->unfused);
        }
        profile_show_unfused_ = false;
        if (run_fused_) {
          const auto iterations = run_fused_->trace.Iterations();
          timeline_view_.SetTrace(iterations.empty() ? run_fused_->trace
                                                     : run_fused_->trace.FilterIteration(iterations.back()),
                                  "fused");
          ApplySelectionToViews();
          timeline_view_.FitAll();
        }
      });
}

void Workbench::DrawProfile() {
  ModuleDoc* module = current_module();
  if (!module) {
    ImGui::TextDisabled("Open a module to run it.");
    return;
  }
  if (module->devices.devices > 1) {
    DrawMultiDeviceProfile();
    return;
  }
  ImGui::SetNextItemWidth(90);
  ImGui::Combo("##backend", &profile_backend_, "CPU\0GPU\0");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderInt("iterations", &profile_iterations_, 1, 50);
  ImGui::SameLine();
  if (profile_running_) ImGui::BeginDisabled();
  if (ImGui::Button(profile_done_ ? "Run again (F5)" : "Run fused and unfused (F5)")) StartProfile();
  if (profile_running_) ImGui::EndDisabled();
  if (run_fused_ && run_unfused_) {
    ImGui::SameLine();
    bool unfused = profile_show_unfused_;
    if (ImGui::Checkbox("show the unfused run", &unfused)) {
      profile_show_unfused_ = unfused;
      const session::ProfiledRun& run = unfused ? *run_unfused_ : *run_fused_;
      const auto iterations = run.trace.Iterations();
      timeline_view_.SetTrace(iterations.empty() ? run.trace : run.trace.FilterIteration(iterations.back()),
                              unfused ? "unfused" : "fused");
      ApplySelectionToViews();
      timeline_view_.FitAll();
    }
  }
  if (profile_running_) {
    ImGui::TextColored(kDimColour, "running ...");
    return;
  }
  if (!profile_error_.empty()) {
    ImGui::TextColored(kErrorColour, "The run failed:");
    ImGui::TextWrapped("%s", profile_error_.c_str());
  }
  if (!run_fused_) {
    if (profile_error_.empty()) {
      ImGui::TextDisabled("Run the module to see its kernels: fused (one kernel per fusion) and unfused "
                          "(one kernel per op), a timeline of the last run, and time per fusion cluster.");
    }
    return;
  }
  // Summary cards: kernels and time, fused against unfused.
  const session::ProfiledRun& fused = *run_fused_;
  if (ImGui::BeginTable("cards", 4, ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "kernels per run");
    ImGui::Text("%lld fused", static_cast<long long>(fused.launches_per_run));
    if (run_unfused_) ImGui::Text("%lld unfused", static_cast<long long>(run_unfused_->launches_per_run));
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "median run");
    ImGui::Text("%s fused", FormatSeconds(fused.median_s()).c_str());
    if (run_unfused_) ImGui::Text("%s unfused", FormatSeconds(run_unfused_->median_s()).c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "fusion speed-up");
    if (run_unfused_ && fused.min_s() > 0) {
      ImGui::TextColored(kFusedColour, "%.2fx", run_unfused_->min_s() / fused.min_s());
      ImGui::TextColored(kDimColour, "best of %zu runs", fused.times_s.size());
    }
    ImGui::TableNextColumn();
    ImGui::TextColored(kDimColour, "device");
    ImGui::TextWrapped("%s", fused.device.c_str());
    ImGui::EndTable();
  }
  // Run notes: CUPTI's kernel count against the launches made, dropped records, ...
  for (const std::string& note : session::RunNotes(&fused, run_unfused_ ? &*run_unfused_ : nullptr)) {
    ImGui::TextColored(kNotFusedColour, "note: %s", note.c_str());
  }

  const float avail = ImGui::GetContentRegionAvail().y;
  ImGui::BeginChild("timeline", ImVec2(0, avail * 0.55f), true);
  if (auto clicked = timeline_view_.Draw("timeline")) Select(*clicked);
  ImGui::EndChild();

  const profiler::KernelSummary& summary = profile_show_unfused_ && run_unfused_ ? summary_unfused_ : summary_fused_;
  ImGui::Text("Kernels per fusion cluster (%s, every run after the first): %lld launches, %s kernel time, %s moved",
              profile_show_unfused_ ? "unfused" : "fused", static_cast<long long>(summary.kernel_count),
              FormatSeconds(summary.total_kernel_ns * 1e-9).c_str(), FormatBytes(summary.bytes).c_str());
  if (ImGui::BeginTable("clusters", 8,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter |
                            ImGuiTableFlags_Resizable,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableSetupColumn("kind", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("calls", ImGuiTableColumnFlags_WidthFixed, 44);
    ImGui::TableSetupColumn("total", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("mean", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("bytes", ImGuiTableColumnFlags_WidthFixed, 76);
    ImGui::TableSetupColumn("GB/s", ImGuiTableColumnFlags_WidthFixed, 56);
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const profiler::KernelStats& k : summary.kernels) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::PushID(k.hlo.c_str());
      if (ImGui::Selectable(k.hlo.c_str(), selection_ == k.hlo, ImGuiSelectableFlags_SpanAllColumns)) {
        Select(k.hlo);
      }
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.kind.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(k.calls));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(k.total_ns * 1e-9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatSeconds(k.mean_ns * 1e-9).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(FormatBytes(k.bytes()).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", k.gb_per_s);
      ImGui::TableNextColumn();
      char overlay[16];
      std::snprintf(overlay, sizeof(overlay), "%.1f%%", k.share * 100);
      ImGui::ProgressBar(static_cast<float>(k.share), ImVec2(-1, 0), overlay);
    }
    ImGui::EndTable();
  }
}

// ---------------------------------------------------------------------------------------
// XLA vs Fusebox (dump folders)

bool Workbench::HasXlaDump(const ModuleDoc& module) const {
  if (!document_ || !document_->index) return false;
  for (const ExternalStage& e : module.session->external_stages()) {
    if (e.name == "xla_optimized_hlo") return true;
  }
  return false;
}

std::string Workbench::pane_text(int pane) const {
  const ModuleDoc* module = current_module();
  if (module == nullptr || pane < 0 || pane >= 4) return "";
  auto it = module->stages.find(panes_[pane].stage);
  if (it == module->stages.end() || !it->second.ready) return "";
  return it->second.error.empty() ? it->second.text : it->second.error;
}

std::vector<std::string> Workbench::stage_names() const {
  const ModuleDoc* module = current_module();
  return module ? module->stage_names : std::vector<std::string>{};
}

size_t Workbench::pass_snapshot_count() const {
  const ModuleDoc* module = current_module();
  if (module == nullptr) return 0;
  size_t n = 0;
  if (passes_source_ == 1) {
    for (const std::string& s : module->stage_names) n += StartsWith(s, "xla_pass_") ? 1 : 0;
    return n;
  }
  if (!module->optimized) return 0;
  for (const PassRecord& p : module->session->pipeline_result().passes) n += p.has_snapshot ? 1 : 0;
  return n;
}

size_t Workbench::compare_group_count() const {
  const ModuleDoc* module = current_module();
  return module && module->comparison ? module->comparison->groups.size() : 0;
}

bool Workbench::compare_ready() const {
  const ModuleDoc* module = current_module();
  return module && (module->compare_done || !HasXlaDump(*module));
}

void Workbench::DrawCompare() {
  ModuleDoc* module = current_module();
  if (!module || !HasXlaDump(*module)) {
    ImGui::TextDisabled("Open an XLA dump folder to compare XLA's fusion with Fusebox's.");
    return;
  }
  if (!module->compare_started) {
    module->compare_started = true;
    std::optional<DumpModule> dump_module;
    auto found = document_->index->Find(module->key);
    if (found.ok()) dump_module = **found;
    struct Result {
      StatusOr<DumpFusionComparison> comparison = InvalidArgument("not run");
    };
    auto result = std::make_shared<Result>();
    std::shared_ptr<ModuleDoc> keep = Owned(module);
    tasks_.Submit(
        "Comparing XLA's fusion with Fusebox's",
        [dump_module, result](TaskContext& context) {
          context.SetProgress(-1, "tracing every kernel's instructions to the input");
          if (!dump_module) {
            result->comparison = InvalidArgument("the module is not in the dump index");
            return;
          }
          result->comparison = CompareDumpFusion(*dump_module);
        },
        [this, keep, result, generation = generation_] {
          keep->compare_done = true;
          if (result->comparison.ok()) {
            keep->comparison = std::move(result->comparison->comparison);
          } else {
            keep->compare_error = result->comparison.status().message();
            // The view says so, and the error panel too (it is easy to miss in a tab).
            if (generation == generation_) AddError(keep->label + ": no XLA-vs-Fusebox comparison: " + keep->compare_error);
          }
        });
  }
  if (!module->compare_done) {
    ImGui::TextColored(kDimColour, "comparing ...");
    return;
  }
  if (!module->comparison) {
    ImGui::TextColored(kErrorColour, "No comparison:");
    ImGui::TextWrapped("%s", module->compare_error.c_str());
    return;
  }
  const FusionComparison& c = *module->comparison;
  ImGui::Text("Kernels: %lld in the input (one per op), %lld after XLA's fusion, %lld after Fusebox's",
              static_cast<long long>(c.input_kernels.kernels), static_cast<long long>(c.xla_count.kernels),
              static_cast<long long>(c.fusebox_count.kernels));
  ImGui::TextColored(kDimColour, "%d match, %d where XLA fuses more, %d where Fusebox fuses more, %d regrouped%s",
                     c.Count(FusionMatch::kMatch), c.Count(FusionMatch::kXlaFusesMore),
                     c.Count(FusionMatch::kFuseboxFusesMore), c.Count(FusionMatch::kRegrouped),
                     c.approximate_links > 0 ? "; some members matched by op_name/shape" : "");
  ImGui::TextColored(kDimColour, "Click a kernel to select it: XLA's names light up in xla_optimized_hlo, "
                                 "Fusebox's everywhere.");
  auto kernel_list = [&](const std::vector<int>& indices, const std::vector<ComparedKernel>& kernels) {
    for (int i : indices) {
      const ComparedKernel& k = kernels[i];
      ImGui::PushID(&k);
      if (ImGui::SmallButton(k.name.c_str())) Select(k.name);
      if (ImGui::IsItemHovered()) {
        std::string members;
        for (size_t m = 0; m < k.originals.size() && m < 12; ++m) members += (m ? ", " : "") + k.originals[m];
        ImGui::SetTooltip("%s, %lld instruction(s)\ncomputes: %s%s", k.kind.c_str(),
                          static_cast<long long>(k.instructions), members.c_str(),
                          k.originals.size() > 12 ? ", ..." : "");
      }
      ImGui::SameLine();
      ImGui::TextColored(kDimColour, "%s", k.kind.c_str());
      ImGui::PopID();
    }
  };
  if (ImGui::BeginTable("compare", 4,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH |
                            ImGuiTableFlags_Resizable,
                        ImVec2(0, ImGui::GetContentRegionAvail().y))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("Fusebox fuses more").x + 8);
    ImGui::TableSetupColumn("XLA's kernels", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("Fusebox's kernels", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("input instructions", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    for (const FusionGroup& g : c.groups) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const ImVec4 colour = g.match == FusionMatch::kMatch            ? kFusedColour
                            : g.match == FusionMatch::kFuseboxFusesMore ? kAccentColour
                                                                       : kNotFusedColour;
      ImGui::TextColored(colour, "%s",
                         g.match == FusionMatch::kMatch              ? "match"
                         : g.match == FusionMatch::kXlaFusesMore     ? "XLA fuses more"
                         : g.match == FusionMatch::kFuseboxFusesMore ? "Fusebox fuses more"
                                                                     : "regrouped");
      ImGui::TableNextColumn();
      kernel_list(g.xla, c.xla_kernels);
      ImGui::TableNextColumn();
      kernel_list(g.fusebox, c.fusebox_kernels);
      ImGui::TableNextColumn();
      std::string members;
      for (size_t m = 0; m < g.originals.size() && m < 8; ++m) members += (m ? ", " : "") + g.originals[m];
      if (g.originals.size() > 8) members += ", ... (" + std::to_string(g.originals.size()) + ")";
      ImGui::TextWrapped("%s", members.c_str());
    }
    if (!c.xla_unmatched.empty() || !c.fusebox_unmatched.empty()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(kDimColour, "only on one side");
      ImGui::TableNextColumn();
      kernel_list(c.xla_unmatched, c.xla_kernels);
      ImGui::TableNextColumn();
      kernel_list(c.fusebox_unmatched, c.fusebox_kernels);
      ImGui::TableNextColumn();
      ImGui::TextWrapped("kernels that compute no input instruction (layout copies, iotas, new ops)");
    }
    ImGui::EndTable();
  }
}

// ---------------------------------------------------------------------------------------
// Inspector: the selection and why (not) fused

void Workbench::DrawInspector() {
  ModuleDoc* module = current_module();
  ImGui::TextColored(kAccentColour, "Selection");
  if (!module) return;
  if (selection_.empty()) {
    ImGui::TextWrapped("Click an instruction in the browser, a stage pane, the graph or the timeline.");
  } else {
    bool in_optimized = false;
    const Instruction* inst = FindInstruction(selection_, &in_optimized);
    ImGui::PushFont(mono_font_);
    ImGui::TextWrapped("%%%s", selection_.c_str());
    ImGui::PopFont();
    if (!inst) {
      ImGui::TextColored(kDimColour, "(not an instruction of this module)");
    } else {
      ImGui::TextColored(kDimColour, "%s in %s%s", std::string(OpcodeName(inst->opcode())).c_str(),
                         inst->parent() ? inst->parent()->name().c_str() : "?",
                         in_optimized ? " (optimized)" : "");
      ImGui::PushFont(mono_font_);
      ImGui::TextWrapped("%s", inst->shape().ToString().c_str());
      ImGui::PopFont();
      if (inst->fusion_kind()) {
        ImGui::Text("fusion kind: %s", std::string(FusionKindName(*inst->fusion_kind())).c_str());
      }
      if (const OpMetadata* md = inst->metadata()) {
        if (!md->op_name.empty()) ImGui::TextWrapped("op_name: %s", md->op_name.c_str());
        if (!md->source_file.empty()) {
          ImGui::TextWrapped("source: %s:%lld", md->source_file.c_str(), static_cast<long long>(md->source_line));
        }
      }
      if (const std::string* kernel = module->source_map.KernelOf(selection_)) {
        ImGui::TextUnformatted(*kernel == selection_ ? "runs as its own kernel" : "runs in kernel");
        if (*kernel != selection_) {
          ImGui::SameLine();
          DrawInstructionLink(*kernel);
        }
      } else if (module->optimized) {
        ImGui::TextColored(kDimColour, "not in the optimized module (simplified away or renamed)");
      }
      DrawInfoLines(InspectorDevicesLines(*module));
      if (ImGui::TreeNodeEx("operands", ImGuiTreeNodeFlags_DefaultOpen, "operands (%lld)",
                            static_cast<long long>(inst->operand_count()))) {
        for (const Instruction* op : inst->operands()) DrawInstructionLink(op->name());
        ImGui::TreePop();
      }
      if (ImGui::TreeNodeEx("users", 0, "users (%lld)", static_cast<long long>(inst->user_count()))) {
        for (const Instruction* user : inst->users()) DrawInstructionLink(user->name());
        ImGui::TreePop();
      }
    }
  }
  ImGui::Separator();
  ImGui::TextColored(kAccentColour, "Why (not) fused");
  if (!module->optimized) {
    ImGui::TextDisabled(module->optimize_error.empty() ? "waiting for the pipeline" : "the pipeline did not run");
    return;
  }
  const PassContext& context = module->session->pass_context();
  auto draw_decision = [&](const FusionDecision& d, int id) {
    ImGui::PushID(id);
    ImGui::TextColored(d.fused ? kFusedColour : kNotFusedColour, "%s", d.fused ? "fused" : "not fused");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
    if (ImGui::SmallButton(("%" + d.producer).c_str())) Select(d.producer);
    ImGui::SameLine();
    ImGui::TextUnformatted("->");
    ImGui::SameLine();
    if (ImGui::SmallButton(("%" + d.consumer).c_str())) Select(d.consumer);
    ImGui::PopStyleColor();
    std::string reason = d.reason;
    for (const char* prefix : {"fused: ", "not fused: "}) {
      if (StartsWith(reason, prefix)) reason = reason.substr(std::string(prefix).size());
    }
    ImGui::Indent();
    ImGui::TextWrapped("%s%s [%s]", reason.c_str(), d.fusion.empty() ? "" : (" -> %" + d.fusion).c_str(),
                       d.pass.c_str());
    ImGui::Unindent();
    ImGui::PopID();
  };
  if (!selection_.empty()) {
    std::vector<FusionDecision> decisions = context.DecisionsFor(selection_);
    if (decisions.empty()) {
      ImGui::TextColored(kDimColour, "No fusion pass looked at an edge of %%%s.", selection_.c_str());
    }
    for (size_t i = 0; i < decisions.size(); ++i) draw_decision(decisions[i], static_cast<int>(i));
  }
  if (ImGui::CollapsingHeader("All fusion decisions")) {
    ImGui::RadioButton("all", &decisions_filter_, 0);
    ImGui::SameLine();
    ImGui::RadioButton("fused", &decisions_filter_, 1);
    ImGui::SameLine();
    ImGui::RadioButton("not fused", &decisions_filter_, 2);
    const auto& all = context.decisions();
    std::vector<int> shown;
    for (size_t i = 0; i < all.size(); ++i) {
      if (decisions_filter_ == 1 && !all[i].fused) continue;
      if (decisions_filter_ == 2 && all[i].fused) continue;
      shown.push_back(static_cast<int>(i));
    }
    // Wrapped reasons have varying heights, so no clipper: the list stops at a few
    // thousand (the filter and the selection's own decisions narrow it down).
    constexpr size_t kMaxListed = 2000;
    ImGui::TextColored(kDimColour, "%zu decision(s)%s", shown.size(),
                       shown.size() > kMaxListed ? "; the first 2000 are listed" : "");
    ImGui::BeginChild("all_decisions");
    for (size_t k = 0; k < shown.size() && k < kMaxListed; ++k) draw_decision(all[shown[k]], 100000 + shown[k]);
    ImGui::EndChild();
  }
}

// ---------------------------------------------------------------------------------------
// Status bar, errors, export

void Workbench::DrawStatusBar() {
  ImGui::Separator();
  TaskStatus status;
  if (tasks_.Running(&status)) {
    ImGui::TextUnformatted(status.name.c_str());
    ImGui::SameLine();
    float fraction = status.fraction;
    char overlay[96];
    std::snprintf(overlay, sizeof(overlay), "%s  %.1f s", status.step.c_str(), status.elapsed_s);
    if (fraction < 0) fraction = static_cast<float>(std::fmod(status.elapsed_s, 1.0));  // alive, not a measure
    ImGui::ProgressBar(fraction, ImVec2(260, 0), overlay);
    ImGui::SameLine();
    if (status.queued > 0) {
      ImGui::TextColored(kDimColour, "+%d queued", status.queued);
      ImGui::SameLine();
    }
    if (ImGui::SmallButton("Cancel")) CancelWork();
  } else if (!loading_path_.empty()) {
    ImGui::Text("Opening %s", loading_path_.c_str());
  } else {
    ImGui::TextColored(kDimColour, "Ready");
  }
  ImGui::SameLine(ImGui::GetWindowWidth() * 0.62f);
  if (const ModuleDoc* module = current_module()) {
    ImGui::TextColored(kDimColour, "%s", module->label.c_str());
    if (module->optimized) {
      ImGui::SameLine();
      ImGui::TextColored(kDimColour, "| kernels %lld -> %lld",
                         static_cast<long long>(module->session->kernels_before().kernels),
                         static_cast<long long>(module->session->kernels_after().kernels));
    }
  }
  ImGui::SameLine(ImGui::GetWindowWidth() - 80);
  ImGui::TextColored(kDimColour, "%.0f fps", ImGui::GetIO().Framerate);
}

void Workbench::DrawErrorPanel() {
  if (errors_.empty()) return;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.12f), ImGuiCond_Always,
                          ImVec2(0.5f, 0));
  ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x * 0.55f, 0), ImGuiCond_Always);
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.22f, 0.07f, 0.07f, 0.97f));
  ImGui::PushStyleColor(ImGuiCol_Border, ImVec4(0.9f, 0.3f, 0.3f, 1));
  ImGui::Begin("Error", nullptr,
               ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoMove);
  ImGui::TextColored(kErrorColour, "%zu problem(s)", errors_.size());
  if (document_) {
    ImGui::SameLine();
    ImGui::TextColored(kDimColour, "(still open: %s)", document_->path.c_str());
  }
  ImGui::PushTextWrapPos(io.DisplaySize.x * 0.53f);
  size_t first = errors_.size() > 6 ? errors_.size() - 6 : 0;
  ImGui::PushFont(mono_font_);
  for (size_t i = first; i < errors_.size(); ++i) ImGui::TextUnformatted(errors_[i].c_str());
  ImGui::PopFont();
  ImGui::PopTextWrapPos();
  if (ImGui::Button("Dismiss")) errors_.clear();
  ImGui::SameLine();
  if (ImGui::Button("Copy")) {
    std::string all;
    for (const std::string& e : errors_) all += e + "\n";
    ImGui::SetClipboardText(all.c_str());
  }
  ImGui::End();
  ImGui::PopStyleColor(2);
}

void Workbench::DrawExportPopup() {
  if (export_open_) {
    ImGui::OpenPopup("Export");
    export_open_ = false;
  }
  ImGui::SetNextWindowSize(ImVec2(560, 0), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal("Export", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
  ModuleDoc* module = current_module();
  ImGui::TextUnformatted("Folder:");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(420);
  ImGui::InputText("##export_dir", export_dir_, sizeof(export_dir_));
  const std::string dir = export_dir_;
  auto note = [this](std::string message) { export_message_ = std::move(message); };
  if (module) {
    auto session = module->session;
    const std::string name = session->input().name();
    if (ImGui::Button("Bug report (HTML, Markdown, traces, graph, stages, reproducer, .tar.gz)")) {
      auto result = std::make_shared<std::string>();
      report::ReportInput input;
      input.source = document_->path;
      report::ReportOptions options;
      options.out_dir = dir + "/report-" + name;
      options.backend = profile_backend_ == 1 ? "gpu" : "cpu";
      options.command_line = options_.command_line;
      for (const Literal& a : module->arguments) options.inputs.push_back(a);
      std::optional<DumpModule> dump_module;
      if (document_->index) {
        auto found = document_->index->Find(module->key);
        if (found.ok()) dump_module = **found;
      }
      tasks_.Submit(
          "Writing the report",
          [session, options, result, dump_module, source = document_->path](TaskContext& context) mutable {
            context.SetProgress(-1, "compiling, running and writing");
            report::ReportInput in;
            in.source = source;
            in.module = session->input().Clone();
            in.module->LocateInPrintedText();  // lines of the printed module, as before
            in.module->LocateInPrintedText();  // lines of the printed module, as before
            in.xla_stages = session->external_stages();
            if (dump_module) {
              auto compared = CompareDumpFusion(*dump_module);
              if (compared.ok()) in.xla_comparison = std::move(compared->comparison);
            }
            auto written = report::WriteReport(std::move(in), options);
            *result = written.ok() ? "wrote " + written->html + (written->tarball.empty() ? "" : " and " + written->tarball)
                                   : "report failed: " + written.status().message();
          },
          [result, note] { note(*result); });
      note("writing the report ...");
    }
    for (const char* format : {"dot", "svg", "png"}) {
      ImGui::SameLine();
      std::string label = std::string("Graph .") + format;
      if (ImGui::Button(label.c_str())) {
        if (!graph_view_.has_graph()) {
          note("Open the fusion graph first: the export draws the graph as shown there.");
        } else {
          auto result = std::make_shared<std::string>();
          auto graph = std::make_shared<graph::FusionGraph>(graph_view_.graph());
          std::string path = dir + "/" + name + "_graph." + format;
          std::string fmt = format;
          tasks_.Submit(
              "Exporting the graph",
              [graph, path, fmt, dir, result](TaskContext&) {
                std::error_code ec;
                fs::create_directories(dir, ec);
                auto text = graph::Render(*graph, fmt);
                if (!text.ok()) {
                  *result = text.status().message();
                  return;
                }
                std::ofstream out(path, std::ios::binary);
                out << *text;
                *result = out ? "wrote " + path : path + ": cannot write";
              },
              [result, note] { note(*result); });
        }
      }
    }
    if (ImGui::Button("Chrome trace (.json)")) {
      if (!run_fused_) {
        note("Run the module first (Run & profile).");
      } else {
        std::error_code ec;
        fs::create_directories(dir, ec);
        std::string path = dir + "/" + name + "_trace.json";
        Status st = profiler::WriteChromeTrace(run_fused_->trace, path);
        if (st.ok() && run_unfused_) {
          st = profiler::WriteChromeTrace(run_unfused_->trace, dir + "/" + name + "_trace_unfused.json");
        }
        note(st.ok() ? "wrote " + path + (run_unfused_ ? " and the unfused trace" : "") : st.message());
      }
    }
    ImGui::SameLine();
    if (ImGui::Button("Stage panes (.txt)")) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      int written = 0;
      for (int p = 0; p < pane_count_; ++p) {
        const StageText& text = module->stages[panes_[p].stage];
        if (!text.ready || !text.error.empty()) continue;
        std::string stage = panes_[p].stage;
        std::replace(stage.begin(), stage.end(), ' ', '_');
        std::ofstream out(dir + "/" + name + "." + stage + ".txt", std::ios::binary);
        out << text.text;
        written += out ? 1 : 0;
      }
      note("wrote " + std::to_string(written) + " stage file(s) to " + dir);
    }
  }
  if (!export_message_.empty()) ImGui::TextWrapped("%s", export_message_.c_str());
  if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
}

}  // namespace fusebox::gui
