// File loading with clear messages for the common mistakes (missing file, folder,
// binary file, empty file).
#include "importers/module_loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fusebox {

StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return NotFound(path + ": no such file");
  if (fs::is_directory(st)) {
    return Unimplemented(path +
                         ": is a directory; XLA dump folders are not supported yet — pass one of "
                         "its *.txt / *.hlo module files instead");
  }
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
  if (text.find('\0') != std::string::npos) {
    if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
        static_cast<unsigned char>(text[1]) == 0x8b) {
      return InvalidArgument(path + ": is gzip-compressed; HLO protos (.hlo.pb[.gz]) are not supported yet");
    }
    return InvalidArgument(path + ": is a binary file, not HLO text (HLO protos are not supported yet)");
  }
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
      names += "\n  " + std::to_string(i) + ": " + file.modules[i]->name();
    }
    return InvalidArgument(file.path + ": holds " + std::to_string(file.modules.size()) +
                           " modules; choose one with --module INDEX|NAME:" + names);
  }
  bool numeric = !selector.empty() && selector.find_first_not_of("0123456789") == std::string::npos;
  for (size_t i = 0; i < file.modules.size(); ++i) {
    if ((numeric && std::to_string(i) == selector) || file.modules[i]->name() == selector) {
      picked.push_back(i);
      return picked;
    }
  }
  return InvalidArgument(file.path + ": no module '" + selector + "' (the file has " +
                         std::to_string(file.modules.size()) + ")");
}

}  // namespace fusebox
