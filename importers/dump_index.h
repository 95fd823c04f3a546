// The dump index: makes sense of a folder that XLA's `--xla_dump_to=DIR` filled (or that
// `fusebox compile --dump-to` wrote, which uses the same layout).
//
// XLA names every file `[<timestamp>.]module_<id>[.<module name>].<suffix>`:
//   - <timestamp> (microseconds) only with --xla_dump_include_timestamp;
//   - <id> is the module's unique id, four digits or more;
//   - the module name is dropped when the whole name would pass 255 characters;
//   - <suffix> says what the file is: `before_optimizations.txt`,
//     `cpu_after_optimizations.hlo.pb`, `sm_9.0_gpu_after_optimizations.txt`,
//     `0005.simplification.after_algsimp.before_cse.txt` (one per pass that changed
//     the module), `<kernel>.ir-with-opt.ll`, `.ptx`, `-buffer-assignment.txt`, ...
// The index groups files by module (timestamp + id), classifies each, orders the pass
// snapshots, and links a compilation that XLA split across two module ids (the module
// renumbered between optimization and code generation). Files it cannot place are
// listed, never fatal. Indexing reads names and sizes only; LoadDumpModule /
// ReadDumpFile read contents.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::importers {

enum class DumpFileKind {
  kHloModule,         // an HLO module at some stage (text or proto)
  kSnapshot,          // HloSnapshot: a module with the arguments of one execution
  kLlvmIr,            // ir-no-opt.ll / ir-with-opt.ll (whole module or one kernel)
  kPtx,               // .ptx
  kAssembly,          // .s
  kObjectFile,        // .o, .cubin
  kBufferAssignment,  // -buffer-assignment.txt, -buffer-assignment-values.txt, -live-range.txt
  kMemoryReport,      // -memory-usage-report.txt / .pb
  kGraph,             // .dot, .html, .url, <computation>_fusion.html
  kMlir,              // .mlir (StableHLO as the framework handed it over)
  kThunkSequence,     // GPU thunk sequence
  kFusionDecisions,   // Fusebox's own fusion_decisions.json
  kMetadata,          // debug_options, metadata.textproto, compile options, autotune results
  kOther,             // belongs to a module, suffix not recognized
};
std::string_view DumpFileKindName(DumpFileKind kind);

// Where in the compilation a file was written.
enum class DumpStage { kNone, kBeforeOptimizations, kPass, kAfterOptimizations };

enum class DumpFormat { kText, kProto, kProtoGz, kBinary };

struct DumpFile {
  std::string path;      // full path
  std::string filename;  // file name only (or "<folder>/<file>" inside a module folder)
  std::string suffix;    // the part after the module name
  DumpFileKind kind = DumpFileKind::kOther;
  DumpStage stage = DumpStage::kNone;
  DumpFormat format = DumpFormat::kText;
  std::string platform;  // after_optimizations: "cpu", "sm_9.0_gpu", "gpu", ... ("" otherwise)
  // Pass snapshots: step number, pipeline, the pass it follows and the pass it precedes.
  int step = -1;
  std::string pipeline, after_pass, before_pass;
  // Per-kernel LLVM IR and objects: the kernel's module name (XLA CPU writes one per
  // kernel); "" for files about the whole module.
  std::string kernel;
  bool optimized_ir = false;  // ir-with-opt.ll
  std::string detail;         // e.g. "values", "live-range", "execution 0003"
  int64_t bytes = 0;
  bool name_dropped = false;  // XLA left the module name out (name too long)
};

struct DumpModule {
  std::string timestamp;         // "" without --xla_dump_include_timestamp
  std::string id;                // "0000" as in the file names
  std::vector<std::string> ids;  // every id this compilation was dumped under (first = id)
  std::string name;              // "" when every file dropped it
  std::vector<DumpFile> files;   // pass snapshots in step order, then the rest by name

  // "0003", or "<timestamp>.0003" when the folder holds several runs.
  std::string key;

  // The module's HLO at a stage; prefers text over proto. nullptr when absent.
  const DumpFile* BeforeOptimizations() const;
  const DumpFile* AfterOptimizations() const;
  std::vector<const DumpFile*> Passes() const;  // HLO snapshots in step order (text preferred)
  std::vector<const DumpFile*> OfKind(DumpFileKind kind) const;
  // A label that names the module to users: "0003 jit_train_step".
  std::string Label() const;
};

struct DumpIndex {
  std::string dir;
  std::vector<DumpModule> modules;    // by timestamp, then id
  std::vector<DumpFile> unrecognized; // files that belong to no module
  std::vector<std::string> notes;     // merged ids, ambiguous names, unreadable entries
  int64_t total_files = 0;

  // Finds a module by key, id ("3" matches "0003"), or name; error lists the choices.
  StatusOr<const DumpModule*> Find(const std::string& selector) const;
};

// Whether `path` is a folder (a dump folder to index).
bool IsDumpFolder(const std::string& path);

// Indexes `dir`. Fails only when the folder cannot be read; an empty folder or one with
// no XLA files gives an error naming what was found.
StatusOr<DumpIndex> IndexDumpFolder(const std::string& dir);

// Reads a dump file's text (decompressing .gz). Binary files are refused with a message.
StatusOr<std::string> ReadDumpText(const DumpFile& file);

// The HLO module in a dump file (text or proto). Parse errors name the file, line and
// column; a file that ends early says so.
struct LoadedDumpModule {
  std::unique_ptr<Module> module;
  std::vector<std::string> warnings;
};
StatusOr<LoadedDumpModule> LoadDumpHlo(const DumpFile& file, bool allow_unknown_attributes = true);

// Text views for the CLI (and the report): the modules × stages table, one module's
// files in compilation order, and the index as JSON.
std::string FormatDumpIndex(const DumpIndex& index);
std::string FormatDumpModule(const DumpModule& module);
std::string DumpIndexToJson(const DumpIndex& index);
// One line saying what a file is: "pass 0005 simplification: after algsimp, before cse".
std::string DescribeDumpFile(const DumpFile& file);

}  // namespace fusebox::importers
