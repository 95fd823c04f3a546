// The commands on XLA dump folders: index (modules x stages, every file classified) and
// compare-fusion (XLA's fusions against Fusebox's on the same input).
#include <CLI/CLI.hpp>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"

namespace fusebox::cli::cli_internal {

namespace {

// The modules of a dump folder a command works on: the one `selector` names, or all
// (with `with_both_ends`, those that have both their input and XLA's optimized module).
StatusOr<std::vector<const importers::DumpModule*>> ChooseDumpModules(const importers::DumpIndex& index,
                                                           const std::string& selector,
                                                           bool with_both_ends) {
  std::vector<const importers::DumpModule*> out;
  if (!selector.empty()) {
    ASSIGN_OR_RETURN(const importers::DumpModule* found, index.Find(selector));
    out.push_back(found);
    return out;
  }
  for (const importers::DumpModule& m : index.modules) {
    if (!with_both_ends || (m.BeforeOptimizations() && m.AfterOptimizations())) out.push_back(&m);
  }
  if (out.empty()) {
    return InvalidArgument(index.dir +
                           ": no module has both a before_optimizations and an "
                           "after_optimizations dump");
  }
  return out;
}

}  // namespace

// `fusebox index DIR`: the modules × stages table of a dump folder; with --module, that
// module's files in compilation order; with --check, every HLO file is loaded.
int RunIndex(const IndexOptions& opts) {
  if (!importers::IsDumpFolder(opts.dir)) {
    return ReportStatus(InvalidArgument(opts.dir + ": not a folder; `index` reads XLA dump folders "
                                                   "(use `inspect` for a single file)"));
  }
  auto index = importers::IndexDumpFolder(opts.dir);
  if (!index.ok()) return ReportStatus(index.status());
  auto chosen = ChooseDumpModules(*index, opts.module, /*with_both_ends=*/false);
  if (!chosen.ok()) return ReportStatus(chosen.status());
  const std::vector<const importers::DumpModule*>& shown = *chosen;
  if (opts.json) {
    std::cout << importers::DumpIndexToJson(*index);
  } else if (!opts.module.empty()) {
    std::cout << importers::FormatDumpModule(*shown.front());
  } else {
    std::cout << importers::FormatDumpIndex(*index);
  }
  if (!opts.check) return kExitOk;
  int loaded = 0, failed = 0;
  for (const importers::DumpModule* m : shown) {
    for (const importers::DumpFile& f : m->files) {
      if (f.kind != importers::DumpFileKind::kHloModule && f.kind != importers::DumpFileKind::kSnapshot) continue;
      auto module = LoadDumpHlo(f);
      if (module.ok()) {
        ++loaded;
      } else {
        ++failed;
        std::cerr << "error: " << module.status().message() << "\n";
      }
    }
  }
  std::cerr << "check: loaded " << loaded << " of " << (loaded + failed) << " HLO file(s)";
  if (failed > 0) std::cerr << "; " << failed << " could not be loaded (above)";
  std::cerr << "\n";
  return failed > 0 ? kExitUserError : kExitOk;
}

// `fusebox compare-fusion DIR`: XLA's fusions (after_optimizations) against Fusebox's on
// the same input (before_optimizations), for one module or every module of the folder.
int RunCompareFusion(const CompareFusionOptions& opts) {
  if (!importers::IsDumpFolder(opts.path)) {
    return ReportStatus(
        InvalidArgument(opts.path +
                        ": not a folder; compare-fusion reads an XLA dump folder "
                        "(XLA_FLAGS=--xla_dump_to=DIR), which holds both XLA's input and its "
                        "optimized module"));
  }
  auto index = importers::IndexDumpFolder(opts.path);
  if (!index.ok()) return ReportStatus(index.status());
  auto chosen = ChooseDumpModules(*index, opts.module, /*with_both_ends=*/true);
  if (!chosen.ok()) return ReportStatus(chosen.status());
  const std::vector<const importers::DumpModule*>& modules = *chosen;
  int failures = 0;
  bool first = true;
  if (opts.json) std::cout << "[\n";
  for (const importers::DumpModule* m : modules) {
    auto result = CompareDumpFusion(*m);
    if (!result.ok()) {
      std::cerr << "error: " << result.status().message() << "\n";
      ++failures;
      continue;
    }
    for (const std::string& w : result->warnings) std::cerr << "warning: " << w << "\n";
    if (opts.json) {
      if (!first) std::cout << ",\n";
      std::cout << result->comparison.ToJson();
    } else {
      if (!first) std::cout << "\n";
      std::cout << "module " << m->key << " (XLA: " << result->xla_file << ")\n";
      std::cout << result->comparison.ToText(opts.max_names);
    }
    first = false;
  }
  if (opts.json) std::cout << "]\n";
  return failures > 0 ? kExitUserError : kExitOk;
}

CLI::App* AddIndexCommand(CLI::App& app, IndexOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "index", "Index an XLA dump folder (--xla_dump_to): modules x stages, every file classified");
  cmd->add_option("DIR", opts->dir, "The dump folder")->required();
  cmd->add_option("--module", opts->module, "Show this module's files (id, 0003 or 3, or name)");
  cmd->add_flag("--json", opts->json, "Write the index as JSON");
  cmd->add_flag("--check", opts->check,
                "Also load every HLO file (text and proto); exit 1 if any cannot be loaded");
  return cmd;
}

CLI::App* AddCompareFusionCommand(CLI::App& app, CompareFusionOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "compare-fusion",
      "Compare XLA's fusions (from a dump folder) with Fusebox's on the same input: "
      "matching kernels, what one fuses and the other splits, kernel counts");
  cmd->add_option("DIR", opts->path, "XLA dump folder")->required();
  cmd->add_option("--module", opts->module, "Only this module (id or name); default: every module");
  cmd->add_flag("--json", opts->json, "Write the comparison as JSON");
  cmd->add_option("--max-names", opts->max_names,
                  "Instruction names listed per kernel (default 6)");
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
