// The workbench: documents (opening, verifying, the optimize job, stage builds), the
// selection and its cross-links, the frame with its panels, and what the views hold.
#include "app/gui/workbench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/gui/devices_panel.h"
#include "app/gui/workbench_internal.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/support/strings.h"
#include "compiler/verifier/verifier.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"

namespace fusebox::gui {
namespace fs = std::filesystem;

namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "pass 07 loop-fusion": the module after pipeline step 7 (stages_panel.cc names them).
std::optional<size_t> ParsePassStage(const std::string& stage) {
  if (!StartsWith(stage, "pass ")) return std::nullopt;
  return static_cast<size_t>(std::strtoul(stage.c_str() + 5, nullptr, 10));
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
  if (name == "timeline" || name == "profile" || name == "compile" || name == "roofline") return View::kProfile;
  if (name == "compare") return View::kCompare;
  if (name == "memory") return View::kMemory;
  return std::nullopt;
}

Workbench::Workbench(WorkbenchOptions options) : options_(std::move(options)) {
  start_s_ = NowSeconds();
  std::snprintf(export_dir_, sizeof(export_dir_), "%s", options_.export_dir.c_str());
  LoadRecent();
}

Workbench::~Workbench() { tasks_.CancelAll(); }

bool Workbench::busy() const { return !tasks_.idle(); }

std::string Workbench::document_path() const { return document_ ? document_->path : ""; }

std::shared_ptr<ModuleDoc> Workbench::Owned(const ModuleDoc* module) const {
  for (const auto& m : document_->modules) {
    if (m.get() == module) return m;
  }
  return nullptr;
}

ModuleDoc* Workbench::current_module() const {
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
  for (Panel* panel : panels()) panel->OnCancel();
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
        auto file = importers::LoadFile(path);
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
          auto index = importers::IndexDumpFolder(path);
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
          module->session = std::make_shared<session::CompileSession>(std::move(file->modules[i]));
          // Every compile of the module (pipeline, stages, runs) records its spans: the
          // profile's compile track (a few microseconds per compile).
          module->session->SetCompileTrace(std::make_shared<CompileTrace>());
          if (document->index && i < file->module_keys.size()) {
            auto dump_module = document->index->Find(file->module_keys[i]);
            if (dump_module.ok()) importers::AddXlaDumpStages(**dump_module, module->session.get());
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
          SameDecimalNumber(m.key, selector)) {
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
  for (Panel* panel : panels()) panel->OnModuleSelected(*this);
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
    const passes::PipelineResult& pipeline = module->session->pipeline_result();
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
        auto parsed = session::ParseStage(stage);
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
        if (*parsed >= session::Stage::kLlvmIr && *parsed <= session::Stage::kBufferAssignment) {
          auto cpu = session->CpuCompile();
          if (cpu.ok()) result->code.AddCpuCode((*cpu)->code());
        } else if (session::IsGpuStage(*parsed)) {
          // The GPU stages come from the GPU module, whose kernels may differ from the
          // optimized module's: its own side of the map.
          if (session->gpu_optimized_module() != nullptr) result->code.MapGpuKernels(*session->gpu_optimized_module());
          if (*parsed != session::Stage::kGpuOptimizedHlo) {
            auto gpu = session->GpuCompile();
            if (gpu.ok()) {
              result->code.AddGpuCode(**gpu);
              result->code.AddGpuLibraryCalls(session->gpu_library_calls());
            }
          }
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
  if (const Instruction* inst = find(module->session->input())) return inst;
  // A name only the GPU module has (a cuBLAS call, a fusion of the GPU pipeline), once a
  // GPU stage's job has made the module (the job that makes it writes it).
  bool gpu_built = false;
  for (const auto& [stage, text] : module->stages) {
    auto parsed = session::ParseStage(stage);
    gpu_built |= parsed && session::IsGpuStage(*parsed) && text.ready;
  }
  const Module* gpu = gpu_built ? module->session->gpu_optimized_module() : nullptr;
  if (gpu == nullptr) return nullptr;
  if (const Instruction* inst = find(*gpu)) {
    if (in_optimized) *in_optimized = true;
    return inst;
  }
  return nullptr;
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
  graph_.CenterOn(instruction);
}

void Workbench::ApplySelectionToViews() {
  std::vector<std::string> linked = LinkedNames(selection_);
  const ModuleDoc* module = current_module();
  std::string kernel = selection_;
  if (module) {
    if (const std::string* k = module->source_map.KernelOf(selection_)) kernel = *k;
  }
  for (Panel* panel : panels()) panel->OnSelection(selection_, linked, kernel);
}

void Workbench::SetPaneStage(int pane, const std::string& stage) { stages_.SetPaneStage(pane, stage); }

bool Workbench::SetGpuLibraries(bool on) { return stages_.SetGpuLibraries(*this, on); }

void Workbench::StartProfile() { profile_.Start(*this); }

std::vector<Panel*> Workbench::panels() {
  return {&browser_panel_, &stages_, &passes_, &graph_, &profile_, &compare_, &memory_, &inspector_};
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
    browser_panel_.Draw(*this);
    ImGui::EndChild();
    ImGui::TableSetColumnIndex(1);
    ImGui::BeginChild("main_panel", ImVec2(0, body_height));
    DrawMainTabs();
    ImGui::EndChild();
    ImGui::TableSetColumnIndex(2);
    ImGui::BeginChild("inspector_panel", ImVec2(0, body_height));
    inspector_.Draw(*this);
    ImGui::EndChild();
    ImGui::EndTable();
  }
  DrawStatusBar();
  ImGui::End();

  if (auto chosen = browser_.Draw()) Open(*chosen);
  DrawExportPopup();
  DrawErrorPanel();
}

// The main area: a tab per view; a requested view's tab opens once it is there.
void Workbench::DrawMainTabs() {
  if (ImGui::BeginTabBar("views")) {
    struct Tab {
      Panel* panel;
      View view;
    };
    const Tab tabs[] = {{&stages_, View::kStages},
                        {&passes_, View::kPasses},
                        {&graph_, View::kGraph},
                        {&profile_, View::kProfile},
                        {&compare_, View::kCompare},
                        {&memory_, View::kMemory}};
    bool switched = false;
    for (const Tab& tab : tabs) {
      if (tab.view == View::kCompare && !(current_module() && HasXlaDump(*current_module()))) continue;
      ImGuiTabItemFlags flags = view_switch_pending_ && view_ == tab.view ? ImGuiTabItemFlags_SetSelected : 0;
      if (flags) switched = true;
      if (ImGui::BeginTabItem(tab.panel->title(), nullptr, flags)) {
        if (!view_switch_pending_) view_ = tab.view;
        tab.panel->Draw(*this);
        ImGui::EndTabItem();
      }
    }
    // A switch waits for its tab (XLA vs Fusebox appears once a dump folder is open).
    if (switched) view_switch_pending_ = false;
    ImGui::EndTabBar();
  }
}

// ---------------------------------------------------------------------------------------
// What the views hold (for tests)

bool Workbench::HasXlaDump(const ModuleDoc& module) const {
  if (!document_ || !document_->index) return false;
  for (const session::ExternalStage& e : module.session->external_stages()) {
    if (e.name == "xla_optimized_hlo") return true;
  }
  return false;
}

std::string Workbench::pane_text(int pane) const {
  const ModuleDoc* module = current_module();
  if (module == nullptr || pane < 0 || pane >= 4) return "";
  auto it = module->stages.find(stages_.pane_stage(pane));
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
  if (passes_.showing_xla_passes()) {
    for (const std::string& s : module->stage_names) n += StartsWith(s, "xla_pass_") ? 1 : 0;
    return n;
  }
  const passes::PipelineResult* pipeline = PassesPanel::ShownPipeline(module, passes_.showing_gpu_pipeline());
  if (pipeline == nullptr) return 0;
  for (const passes::PassRecord& p : pipeline->passes) n += p.has_snapshot ? 1 : 0;
  return n;
}

std::string Workbench::stepper_pipeline_name() const {
  const passes::PipelineResult* pipeline =
      PassesPanel::ShownPipeline(current_module(), passes_.showing_gpu_pipeline());
  return pipeline != nullptr ? pipeline->pipeline_name : "";
}

std::vector<std::string> Workbench::stepper_changed_passes() const {
  std::vector<std::string> names;
  const passes::PipelineResult* pipeline =
      PassesPanel::ShownPipeline(current_module(), passes_.showing_gpu_pipeline());
  if (pipeline == nullptr) return names;
  for (const passes::PassRecord& p : pipeline->passes) {
    if (p.changed) names.push_back(p.name);
  }
  return names;
}

size_t Workbench::compare_group_count() const {
  const ModuleDoc* module = current_module();
  return module && module->comparison ? module->comparison->groups.size() : 0;
}

bool Workbench::compare_ready() const {
  const ModuleDoc* module = current_module();
  return module && (module->compare_done || !HasXlaDump(*module));
}

bool Workbench::memory_ready() const {
  const ModuleDoc* module = current_module();
  return module && module->memory_done;
}

const session::MemoryView* Workbench::memory_view() const {
  const ModuleDoc* module = current_module();
  return module && module->memory ? &*module->memory : nullptr;
}

std::string Workbench::devices_text() const { return DevicesText(current_module()); }

std::string Workbench::inspector_devices_text() const { return InspectorDevicesText(*this); }

}  // namespace fusebox::gui
