// The workbench's chrome: the menu bar, the status bar (the running job, its progress and
// Cancel), the error panel, and the export popup (bug report, graph, trace, stage panes).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "app/gui/workbench.h"
#include "app/gui/workbench_internal.h"
#include "graph/fusion_graph.h"
#include "importers/dump_stages.h"
#include "profiler/chrome_trace.h"
#include "report/report.h"

namespace fusebox::gui {
namespace fs = std::filesystem;

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
    if (ImGui::MenuItem("Memory", nullptr, view_ == View::kMemory)) ShowView(View::kMemory);
    ImGui::Separator();
    for (int n = 1; n <= 4; ++n) {
      std::string label = std::to_string(n) + " stage pane" + (n > 1 ? "s" : "");
      if (ImGui::MenuItem(label.c_str(), nullptr, stages_.pane_count() == n)) stages_.SetPaneCount(n);
    }
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("Run")) {
    if (ImGui::MenuItem("Run fused and unfused", "F5", false, has_document() && !profile_.running())) {
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
      options.backend = profile_.backend() == 1 ? "gpu" : "cpu";
      options.command_line = options_.command_line;
      for (const Literal& a : module->arguments) options.inputs.push_back(a);
      std::optional<importers::DumpModule> dump_module;
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
            in.xla_stages = session->external_stages();
            if (dump_module) {
              auto compared = importers::CompareDumpFusion(*dump_module);
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
        if (!graph_.view().has_graph()) {
          note("Open the fusion graph first: the export draws the graph as shown there.");
        } else {
          auto result = std::make_shared<std::string>();
          auto graph = std::make_shared<graph::FusionGraph>(graph_.view().graph());
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
      if (!profile_.run_fused()) {
        note("Run the module first (Run & profile).");
      } else {
        std::error_code ec;
        fs::create_directories(dir, ec);
        std::string path = dir + "/" + name + "_trace.json";
        Status st = profiler::WriteChromeTrace(profile_.run_fused()->trace, path);
        if (st.ok() && profile_.run_unfused()) {
          st = profiler::WriteChromeTrace(profile_.run_unfused()->trace, dir + "/" + name + "_trace_unfused.json");
        }
        note(st.ok() ? "wrote " + path + (profile_.run_unfused() ? " and the unfused trace" : "") : st.message());
      }
    }
    ImGui::SameLine();
    if (ImGui::Button("Stage panes (.txt)")) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      int written = 0;
      for (int p = 0; p < stages_.pane_count(); ++p) {
        const StageText& text = module->stages[stages_.pane_stage(p)];
        if (!text.ready || !text.error.empty()) continue;
        std::string stage = stages_.pane_stage(p);
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
