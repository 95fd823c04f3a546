#include "app/gui/file_browser.h"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "importers/dump_index.h"

namespace fusebox::gui {
namespace fs = std::filesystem;

bool LooksLikeHloFile(const std::string& name) {
  auto ends_with = [&](const char* suffix) {
    std::string s = suffix;
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".hlo") || ends_with(".txt") || ends_with(".pb") || ends_with(".pb.gz") ||
         ends_with(".pbtxt");
}

void FileBrowser::Open(const std::string& dir) {
  open_pending_ = true;
  std::error_code ec;
  Navigate(dir.empty() ? fs::current_path(ec).string() : dir);
}

void FileBrowser::Navigate(const std::string& dir) {
  entries_.clear();
  error_.clear();
  selected_ = -1;
  std::error_code ec;
  fs::path path = fs::absolute(fs::path(dir), ec).lexically_normal();
  if (ec) path = dir;
  std::string text = path.string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  dir_ = text;
  std::snprintf(path_buffer_, sizeof(path_buffer_), "%s", dir_.c_str());
  fs::directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    error_ = dir_ + ": " + ec.message();
    return;
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      error_ = dir_ + ": " + ec.message();
      break;
    }
    Entry entry;
    entry.name = it->path().filename().string();
    if (!entry.name.empty() && entry.name[0] == '.') continue;
    std::error_code type_ec;
    entry.is_dir = it->is_directory(type_ec);
    if (entry.is_dir) {
      // Peeking into every folder would be slow on big trees; a name check is cheap and
      // the index decides for real when the folder is opened.
      entry.is_dump = false;
    } else {
      entry.bytes = static_cast<int64_t>(it->file_size(type_ec));
      entry.is_hlo = LooksLikeHloFile(entry.name);
    }
    entries_.push_back(std::move(entry));
  }
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    if (a.is_dir != b.is_dir) return a.is_dir;
    return a.name < b.name;
  });
  // A folder whose files are module_NNNN.* is a dump folder: mark the folder we are in.
  for (Entry& entry : entries_) {
    if (entry.is_dir) entry.is_dump = importers::IsDumpFolder(dir_ + "/" + entry.name);
  }
}

std::optional<std::string> FileBrowser::Draw() {
  if (open_pending_) {
    ImGui::OpenPopup("Open file or dump folder");
    open_pending_ = false;
  }
  std::optional<std::string> chosen;
  ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowSize(ImVec2(io.DisplaySize.x * 0.6f, io.DisplaySize.y * 0.7f), ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal("Open file or dump folder", nullptr)) return chosen;
  if (ImGui::Button("Up")) Navigate((fs::path(dir_) / "..").string());
  ImGui::SameLine();
  if (ImGui::Button("Home")) {
    const char* home = std::getenv("HOME");
    Navigate(home ? home : "/");
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##path", path_buffer_, sizeof(path_buffer_), ImGuiInputTextFlags_EnterReturnsTrue)) {
    std::error_code ec;
    if (fs::is_directory(path_buffer_, ec)) {
      Navigate(path_buffer_);
    } else if (fs::exists(path_buffer_, ec)) {
      chosen = std::string(path_buffer_);
    } else {
      error_ = std::string(path_buffer_) + ": no such file or folder";
    }
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", error_.c_str());
  float footer = ImGui::GetFrameHeightWithSpacing() * 1.3f;
  if (ImGui::BeginTable("files", 2,
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                        ImVec2(0, -footer))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 90);
    ImGui::TableHeadersRow();
    std::string navigate_to;
    for (int i = 0; i < static_cast<int>(entries_.size()); ++i) {
      const Entry& entry = entries_[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImVec4 colour = entry.is_dir ? ImVec4(0.55f, 0.75f, 1, 1)
                      : entry.is_hlo ? ImVec4(0.9f, 0.9f, 0.9f, 1)
                                     : ImVec4(0.5f, 0.5f, 0.5f, 1);
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      std::string label = entry.is_dir ? entry.name + "/" : entry.name;
      if (entry.is_dump) label += "   [XLA dump]";
      if (ImGui::Selectable(label.c_str(), selected_ == i,
                            ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        selected_ = i;
        if (ImGui::IsMouseDoubleClicked(0)) {
          if (entry.is_dir && !entry.is_dump) {
            navigate_to = dir_ + "/" + entry.name;
          } else {
            chosen = dir_ + "/" + entry.name;
          }
        }
      }
      ImGui::PopStyleColor();
      ImGui::TableNextColumn();
      if (!entry.is_dir) {
        if (entry.bytes >= (1 << 20)) {
          ImGui::Text("%.1f MiB", entry.bytes / 1048576.0);
        } else {
          ImGui::Text("%.1f KiB", entry.bytes / 1024.0);
        }
      }
    }
    ImGui::EndTable();
    if (!navigate_to.empty()) Navigate(navigate_to);
  }
  bool has_selection = selected_ >= 0 && selected_ < static_cast<int>(entries_.size());
  if (!has_selection) ImGui::BeginDisabled();
  if (ImGui::Button("Open")) {
    const Entry& entry = entries_[selected_];
    if (entry.is_dir && !entry.is_dump) {
      Navigate(dir_ + "/" + entry.name);
    } else {
      chosen = dir_ + "/" + entry.name;
    }
  }
  if (!has_selection) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Open this folder as a dump")) chosen = dir_;
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
    ImGui::CloseCurrentPopup();
  }
  if (chosen) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace fusebox::gui
