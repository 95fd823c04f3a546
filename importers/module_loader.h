// Loads HLO modules from what users hand Fusebox: an `.hlo`/`.txt` file (one or several
// modules), an HLO proto, or an XLA dump folder (see importers/dump_index.h), whose
// modules load at the stage LoadOptions::dump_stage names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"

namespace fusebox::importers {

struct LoadedFile {
  std::string path;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<ParseWarning> warnings;
  std::vector<Literal> arguments;  // an HloSnapshot's arguments; empty for everything else
  // Dump folders: each module's key in the folder ("0003"), parallel to `modules`, and
  // the file each was read from. Empty for a single file.
  std::vector<std::string> module_keys;
  std::vector<std::string> module_files;
  // Messages about what a dump folder held that could not be used (never fatal).
  std::vector<std::string> notes;
};

struct LoadOptions {
  bool allow_unknown_attributes = true;
  // Refuse files larger than this many bytes (a guard against pointing at a binary).
  int64_t max_bytes = int64_t{4} << 30;
  // Dump folders: load only the module this selects (key, id or name; "" = all), and
  // this stage of it: "before_optimizations" (default, the compiler's input),
  // "after_optimizations" (XLA's optimized module), or a pass snapshot by step ("0005").
  std::string module_selector;
  std::string dump_stage;
};

StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadOptions& options = {});

// Picks a module by index ("0", "1") or by name; empty selector means "the only module"
// (or all, when `allow_all`). Returns indices into `file.modules`.
StatusOr<std::vector<size_t>> SelectModules(const LoadedFile& file, const std::string& selector,
                                            bool allow_all);

}  // namespace fusebox::importers
