// File loading with clear messages for the common mistakes (missing file, folder,
// binary file, empty file).
#include "importers/module_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>

#include "compiler/ir/collectives.h"
#include "compiler/ir/library_calls.h"
#include "compiler/support/strings.h"
#include "importers/dump_index.h"
#include "importers/hlo_proto.h"

namespace fusebox::importers {

namespace {

// The file holding `module` at `stage` ("" = before optimizations).
StatusOr<const DumpFile*> StageFile(const DumpModule& module, const std::string& stage) {
  const DumpFile* file = nullptr;
  if (stage.empty() || stage == "before_optimizations" || stage == "hlo") {
    file = module.BeforeOptimizations();
    if (file == nullptr) {
      return InvalidArgument("module " + module.Label() +
                             " has no before_optimizations dump (its input HLO); pick another stage "
                             "with --dump-stage after_optimizations or a pass step");
    }
    return file;
  }
  if (stage == "after_optimizations" || stage == "optimized_hlo" || stage == "xla_optimized_hlo") {
    file = module.AfterOptimizations();
    if (file == nullptr) return InvalidArgument("module " + module.Label() + " has no after_optimizations dump");
    return file;
  }
  // A step number ("5", "0005"); one too long for an int is no step (std::stoi would throw).
  const bool numeric = !stage.empty() && stage.size() <= 9 &&
                       stage.find_first_not_of("0123456789") == std::string::npos;
  const int step = numeric ? std::stoi(stage) : -1;
  for (const DumpFile* pass : module.Passes()) {
    if ((numeric && pass->step == step) || pass->filename == stage || pass->suffix == stage) {
      return pass;
    }
  }
  std::string steps;
  for (const DumpFile* pass : module.Passes()) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%04d", pass->step);
    steps += std::string(steps.empty() ? "" : ", ") + buf;
  }
  return InvalidArgument("module " + module.Label() + " has no stage '" + stage +
                         "'; stages: before_optimizations, after_optimizations" +
                         (steps.empty() ? std::string() : ", pass steps " + steps));
}

StatusOr<LoadedFile> LoadDumpFolder(const std::string& path, const LoadOptions& options) {
  auto index = IndexDumpFolder(path);
  if (!index.ok()) return index.status();
  std::vector<const DumpModule*> wanted;
  if (!options.module_selector.empty()) {
    auto found = index->Find(options.module_selector);
    if (!found.ok()) return found.status();
    wanted.push_back(*found);
  } else {
    for (const DumpModule& m : index->modules) wanted.push_back(&m);
  }
  LoadedFile file;
  file.path = path;
  file.notes = index->notes;
  for (const DumpModule* m : wanted) {
    auto stage_file = StageFile(*m, options.dump_stage);
    if (!stage_file.ok()) {
      // With one module asked for, that is an error (naming the folder); with all, skip it
      // and say so.
      if (wanted.size() == 1) return InvalidArgument(path + ": " + stage_file.status().message());
      file.notes.push_back(stage_file.status().message());
      continue;
    }
    auto loaded = LoadDumpHlo(**stage_file, options.allow_unknown_attributes);
    if (!loaded.ok()) {
      if (wanted.size() == 1) return loaded.status();
      file.notes.push_back("skipped module " + m->Label() + ": " + loaded.status().message());
      continue;
    }
    for (const std::string& w : loaded->warnings) file.notes.push_back(w);
    file.modules.push_back(std::move(loaded->module));
    file.module_keys.push_back(m->key);
    file.module_files.push_back((*stage_file)->path);
  }
  if (file.modules.empty()) {
    std::string why;
    for (const std::string& n : file.notes) why += "\n  " + n;
    return InvalidArgument(path + ": no module of this dump folder could be loaded" + why);
  }
  return file;
}

}  // namespace

namespace {

StatusOr<LoadedFile> LoadFileOrFolder(const std::string& path, const LoadOptions& options);

}  // namespace

StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadOptions& options) {
  StatusOr<LoadedFile> file = LoadFileOrFolder(path, options);
  if (!file.ok()) return file;
  // What in the modules does not run here though the program does (a debug print).
  for (const std::unique_ptr<Module>& module : file->modules) {
    for (std::string& note : HostCallbackNotes(*module)) file->notes.push_back(std::move(note));
    for (std::string& note : LibraryCallNotes(*module)) file->notes.push_back(std::move(note));
  }
  return file;
}

namespace {

StatusOr<LoadedFile> LoadFileOrFolder(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return NotFound(path + ": no such file");
  if (fs::is_directory(st)) return LoadDumpFolder(path, options);
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return InvalidArgument(path + ": cannot read file size: " + ec.message());
  if (static_cast<int64_t>(size) > options.max_bytes) {
    return InvalidArgument(path + ": file is " + std::to_string(size) +
                           " bytes, larger than the limit of " + std::to_string(options.max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(path + ": cannot open file");
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<size_t>(in.gcount()));
  if (LooksLikeHloProtoFile(path, text)) return LoadHloProtoFile(path);
  ParseOptions popts;
  popts.filename = path;
  popts.allow_unknown_attributes = options.allow_unknown_attributes;
  auto parsed = ParseModules(text, popts);
  if (!parsed.ok()) return parsed.status();
  LoadedFile file;
  file.path = path;
  file.modules = std::move(parsed->modules);
  file.warnings = std::move(parsed->warnings);
  return file;
}

}  // namespace

StatusOr<std::vector<size_t>> SelectModules(const LoadedFile& file, const std::string& selector,
                                            bool allow_all) {
  std::vector<size_t> picked;
  if (selector.empty()) {
    if (file.modules.size() == 1 || allow_all) {
      for (size_t i = 0; i < file.modules.size(); ++i) picked.push_back(i);
      return picked;
    }
    std::string names;
    for (size_t i = 0; i < file.modules.size(); ++i) {
      names += "\n  " + (file.module_keys.empty() ? std::to_string(i) + ":" : file.module_keys[i]) + " " +
               file.modules[i]->name();
    }
    return InvalidArgument(file.path + ": holds " + std::to_string(file.modules.size()) +
                           " modules; choose one with --module INDEX|NAME:" + names);
  }
  bool numeric = !selector.empty() && selector.find_first_not_of("0123456789") == std::string::npos;
  if (!file.module_keys.empty()) {
    // A dump folder: modules go by their key or id ("3" = "0003") or name.
    for (size_t i = 0; i < file.modules.size(); ++i) {
      const std::string& key = file.module_keys[i];
      const bool id_match = SameDecimalNumber(key, selector);
      if (key == selector || id_match || file.modules[i]->name() == selector) {
        picked.push_back(i);
        return picked;
      }
    }
    std::string names;
    for (size_t i = 0; i < file.modules.size(); ++i) {
      names += "\n  " + file.module_keys[i] + " " + file.modules[i]->name();
    }
    return InvalidArgument(file.path + ": no module '" + selector + "' in this dump folder:" + names);
  }
  for (size_t i = 0; i < file.modules.size(); ++i) {
    if ((numeric && std::to_string(i) == selector) || file.modules[i]->name() == selector) {
      picked.push_back(i);
      return picked;
    }
  }
  return InvalidArgument(file.path + ": no module '" + selector + "' (the file has " +
                         std::to_string(file.modules.size()) + ")");
}

}  // namespace fusebox::importers
