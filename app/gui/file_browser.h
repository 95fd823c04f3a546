// The in-app file browser (ImGui has none): a modal listing one folder — folders first,
// HLO files (.hlo, .txt, .pb, .pb.gz) highlighted, other files dimmed — with a path box,
// parent/home buttons, and "Open this folder" for XLA dump folders. Errors reading a
// folder are shown inside it, never thrown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusebox::gui {

class FileBrowser {
 public:
  // Opens the modal at `dir` (the current directory when empty) at the next Draw.
  void Open(const std::string& dir = "");
  // Draws the modal when open; returns the chosen file or folder once.
  std::optional<std::string> Draw();

  // The listing of the current folder (for tests).
  struct Entry {
    std::string name;
    bool is_dir = false;
    bool is_hlo = false;  // a file Fusebox loads
    bool is_dump = false; // a folder that looks like an XLA dump
    int64_t bytes = 0;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  const std::string& dir() const { return dir_; }
  void Navigate(const std::string& dir);

 private:
  bool open_pending_ = false;
  std::string dir_;
  std::string error_;
  std::vector<Entry> entries_;
  char path_buffer_[1024] = {};
  int selected_ = -1;
};

// Whether Fusebox loads files of this name (.hlo, .txt, .pb, .pb.gz, .hlo.pb, .pbtxt).
bool LooksLikeHloFile(const std::string& name);

}  // namespace fusebox::gui
