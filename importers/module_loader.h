// Loads HLO modules from what users hand Fusebox: an `.hlo`/`.txt` file (one or several
// modules). Dump folders arrive with the dump-importer work; a folder gets a clear
// message until then.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"

namespace fusebox {

struct LoadedFile {
  std::string path;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<ParseWarning> warnings;
};

struct LoadOptions {
  bool allow_unknown_attributes = true;
  // Refuse files larger than this many bytes (a guard against pointing at a binary).
  int64_t max_bytes = int64_t{4} << 30;
};

StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadOptions& options = {});

// Picks a module by index ("0", "1") or by name; empty selector means "the only module"
// (or all, when `allow_all`). Returns indices into `file.modules`.
StatusOr<std::vector<size_t>> SelectModules(const LoadedFile& file, const std::string& selector,
                                            bool allow_all);

}  // namespace fusebox
