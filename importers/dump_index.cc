// Dump folder indexing: file-name grammar, classification, grouping and merging.
#include "importers/dump_index.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "compiler/support/strings.h"
#include "importers/module_loader.h"

namespace fusebox::importers {

namespace fs = std::filesystem;

std::string_view DumpFileKindName(DumpFileKind kind) {
  switch (kind) {
    case DumpFileKind::kHloModule: return "hlo";
    case DumpFileKind::kSnapshot: return "hlo-snapshot";
    case DumpFileKind::kLlvmIr: return "llvm-ir";
    case DumpFileKind::kPtx: return "ptx";
    case DumpFileKind::kAssembly: return "asm";
    case DumpFileKind::kObjectFile: return "object";
    case DumpFileKind::kBufferAssignment: return "buffer-assignment";
    case DumpFileKind::kMemoryReport: return "memory-report";
    case DumpFileKind::kGraph: return "graph";
    case DumpFileKind::kMlir: return "mlir";
    case DumpFileKind::kThunkSequence: return "thunk-sequence";
    case DumpFileKind::kFusionDecisions: return "fusion-decisions";
    case DumpFileKind::kMetadata: return "metadata";
    case DumpFileKind::kOther: return "other";
  }
  return "other";
}

namespace {

// The pieces of `[<timestamp>.]module_<id>.<rest>`.
struct NameParts {
  std::string timestamp;
  std::string id;
  std::string rest;
};

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

bool SplitModulePrefix(const std::string& filename, NameParts* parts) {
  std::string_view s = filename;
  size_t dot = s.find('.');
  if (dot != std::string_view::npos && AllDigits(s.substr(0, dot)) &&
      s.substr(dot + 1).rfind("module_", 0) == 0) {
    parts->timestamp = std::string(s.substr(0, dot));
    s.remove_prefix(dot + 1);
  }
  if (s.rfind("module_", 0) != 0) return false;
  s.remove_prefix(7);
  size_t end = s.find('.');
  if (end == std::string_view::npos || end == 0 || !AllDigits(s.substr(0, end))) return false;
  parts->id = std::string(s.substr(0, end));
  parts->rest = std::string(s.substr(end + 1));
  return !parts->rest.empty();
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

bool StartsWith(std::string_view s, std::string_view head) { return s.rfind(head, 0) == 0; }

// XLA's HLO dump extensions, longest first.
const char* const kHloExtensions[] = {".top_level.html", ".hlo.pb.gz", ".hlo.pb", ".txt",
                                      ".dot", ".html", ".url"};

// Strips an HLO dump extension: returns false when `s` has none.
bool StripHloExtension(std::string_view s, std::string_view* stem, std::string_view* ext) {
  for (const char* e : kHloExtensions) {
    if (EndsWith(s, e)) {
      *stem = s.substr(0, s.size() - std::string_view(e).size());
      *ext = e;
      return true;
    }
  }
  return false;
}

void SetHloFormat(std::string_view ext, DumpFile* file) {
  if (ext == ".txt") {
    file->kind = DumpFileKind::kHloModule;
    file->format = DumpFormat::kText;
  } else if (ext == ".hlo.pb") {
    file->kind = DumpFileKind::kHloModule;
    file->format = DumpFormat::kProto;
  } else if (ext == ".hlo.pb.gz") {
    file->kind = DumpFileKind::kHloModule;
    file->format = DumpFormat::kProtoGz;
  } else {
    file->kind = DumpFileKind::kGraph;
    file->format = DumpFormat::kText;
    file->detail = std::string(ext.substr(1));
  }
}

// Platform prefixes of `<platform>_after_optimizations`: "cpu", "sm_9.0_gpu", "gpu",
// "gfx90a_gpu", ... (one token, or XLA GPU's sm_<major>.<minor> form).
const std::regex& AfterOptimizationsRe() {
  static const std::regex re(R"(^(?:(sm_\d+\.\d+[a-z]?_gpu|[A-Za-z0-9]+(?:_gpu)?)_)?after_optimizations(.*)$)");
  return re;
}

const std::regex& PassRe() {
  // NNNN.<pipeline>.after_<pass>[.before_<next>]  (XLA's between-pass dumps), and
  // NNNN.<pass>.<step>                             (dumps written during a pass).
  static const std::regex re(R"(^(\d{4,})\.([^.]+)\.(.+)$)");
  return re;
}

// What one suffix pattern says about a file name: not this pattern (try the next),
// classified, or this pattern's prefix but a name the grammar rejects.
enum class SuffixMatch { kNo, kClassified, kRejected };

// before_optimizations.<hlo extension>, and its memory usage report.
SuffixMatch MatchBeforeOptimizations(std::string_view suffix, DumpFile* file) {
  if (!StartsWith(suffix, "before_optimizations")) return SuffixMatch::kNo;
  std::string_view stem, ext;
  std::string_view tail = suffix.substr(std::string_view("before_optimizations").size());
  if (tail.empty() || !StripHloExtension(tail, &stem, &ext) || !stem.empty()) {
    if (tail == "-memory-usage-report.txt" || tail == "-memory-usage-report.pb") {
      file->kind = DumpFileKind::kMemoryReport;
      file->stage = DumpStage::kBeforeOptimizations;
      file->format = EndsWith(tail, ".pb") ? DumpFormat::kBinary : DumpFormat::kText;
      return SuffixMatch::kClassified;
    }
    return SuffixMatch::kRejected;
  }
  SetHloFormat(ext, file);
  file->stage = DumpStage::kBeforeOptimizations;
  return SuffixMatch::kClassified;
}

// [<platform>_]after_optimizations.<hlo extension>, and the buffer assignment and
// reports written with it.
SuffixMatch MatchAfterOptimizations(std::string_view suffix, DumpFile* file) {
  std::smatch m;
  std::string s(suffix);
  if (!std::regex_match(s, m, AfterOptimizationsRe())) return SuffixMatch::kNo;
  file->platform = m[1].matched ? m[1].str() : "";
  file->stage = DumpStage::kAfterOptimizations;
  std::string tail = m[2].str();
  struct Extra {
    const char* tail;
    DumpFileKind kind;
    const char* detail;
    DumpFormat format;
  };
  static const Extra kExtras[] = {
      {"-buffer-assignment.txt", DumpFileKind::kBufferAssignment, "", DumpFormat::kText},
      {"-buffer-assignment-values.txt", DumpFileKind::kBufferAssignment, "values", DumpFormat::kText},
      {"-live-range.txt", DumpFileKind::kBufferAssignment, "live-range", DumpFormat::kText},
      {"-memory-usage-report.txt", DumpFileKind::kMemoryReport, "", DumpFormat::kText},
      {"-memory-usage-report.pb", DumpFileKind::kMemoryReport, "proto", DumpFormat::kBinary},
      {"-thunk-sequence.txt", DumpFileKind::kThunkSequence, "", DumpFormat::kText},
  };
  for (const Extra& extra : kExtras) {
    if (tail == extra.tail) {
      file->kind = extra.kind;
      file->detail = extra.detail;
      file->format = extra.format;
      return SuffixMatch::kClassified;
    }
  }
  std::string_view stem, ext;
  if (StripHloExtension(tail, &stem, &ext) && stem.empty()) {
    SetHloFormat(ext, file);
    return SuffixMatch::kClassified;
  }
  file->stage = DumpStage::kNone;
  file->platform.clear();
  return SuffixMatch::kRejected;
}

// HLO snapshots: execution_NNNN.hlo_snapshot.pb
SuffixMatch MatchSnapshot(std::string_view suffix, DumpFile* file) {
  if (!StartsWith(suffix, "execution_") || !EndsWith(suffix, ".hlo_snapshot.pb")) return SuffixMatch::kNo;
  file->kind = DumpFileKind::kSnapshot;
  file->format = DumpFormat::kProto;
  std::string_view n = suffix.substr(10, suffix.size() - 10 - 16);
  file->detail = "execution " + std::string(n);
  return SuffixMatch::kClassified;
}

// LLVM IR: [<kernel>.]ir-no-opt.ll, ir-with-opt.ll, ir-with-opt-noconst.ll
SuffixMatch MatchLlvmIr(std::string_view suffix, DumpFile* file) {
  for (const char* tag : {"ir-no-opt", "ir-with-opt"}) {
    for (const char* tail : {".ll", "-noconst.ll"}) {
      std::string end = std::string(tag) + tail;
      if (EndsWith(suffix, end) &&
          (suffix.size() == end.size() || suffix[suffix.size() - end.size() - 1] == '.')) {
        file->kind = DumpFileKind::kLlvmIr;
        file->optimized_ir = std::string_view(tag) == "ir-with-opt";
        if (suffix.size() > end.size()) file->kernel = std::string(suffix.substr(0, suffix.size() - end.size() - 1));
        if (std::string_view(tail) == "-noconst.ll") file->detail = "noconst";
        return SuffixMatch::kClassified;
      }
    }
  }
  return SuffixMatch::kNo;
}

// Objects: obj-file.<kernel>.o (XLA CPU), .o, .cubin
SuffixMatch MatchObjectFile(std::string_view suffix, DumpFile* file) {
  if (!EndsWith(suffix, ".o") && !EndsWith(suffix, ".cubin")) return SuffixMatch::kNo;
  file->kind = DumpFileKind::kObjectFile;
  file->format = DumpFormat::kBinary;
  std::string_view k = suffix.substr(0, suffix.rfind('.'));
  if (StartsWith(k, "obj-file.")) k.remove_prefix(9);
  file->kernel = std::string(k);
  return SuffixMatch::kClassified;
}

// [<kernel>.]ptx, [<kernel>.]s and <what>.mlir: code of one stage.
SuffixMatch MatchCodeText(std::string_view suffix, DumpFile* file) {
  if (EndsWith(suffix, ".ptx")) {
    file->kind = DumpFileKind::kPtx;
    if (suffix != "ptx" && suffix.size() > 4) file->kernel = std::string(suffix.substr(0, suffix.size() - 4));
    return SuffixMatch::kClassified;
  }
  if (suffix == "s" || EndsWith(suffix, ".s")) {
    file->kind = DumpFileKind::kAssembly;
    if (suffix.size() > 2) file->kernel = std::string(suffix.substr(0, suffix.size() - 2));
    return SuffixMatch::kClassified;
  }
  if (EndsWith(suffix, ".mlir")) {
    file->kind = DumpFileKind::kMlir;
    file->detail = std::string(suffix.substr(0, suffix.size() - 5));
    return SuffixMatch::kClassified;
  }
  return SuffixMatch::kNo;
}

// Fusion decisions, thunk sequences, options and configs, fusion visualizations.
SuffixMatch MatchReportsAndMetadata(std::string_view suffix, DumpFile* file) {
  if (suffix == "fusion_decisions.json") {
    file->kind = DumpFileKind::kFusionDecisions;
    return SuffixMatch::kClassified;
  }
  if (suffix == "thunk_sequence.txt" || EndsWith(suffix, "thunk_sequence.txt")) {
    file->kind = DumpFileKind::kThunkSequence;
    return SuffixMatch::kClassified;
  }
  // XLA GPU: thunk_sequence_after_thunk_passes.txt, thunk_metadata.txt.
  if (StartsWith(suffix, "thunk_") && EndsWith(suffix, ".txt")) {
    file->kind = DumpFileKind::kThunkSequence;
    file->detail = std::string(suffix.substr(6, suffix.size() - 6 - 4));
    return SuffixMatch::kClassified;
  }
  // XLA GPU's priority fusion log (which producers fused into which consumers, and why).
  if (suffix == "priority_fusion_dump.txt") {
    file->kind = DumpFileKind::kMetadata;
    file->detail = std::string(suffix);
    return SuffixMatch::kClassified;
  }
  if (suffix == "debug_options" || suffix == "metadata.textproto" ||
      EndsWith(suffix, ".pbtxt") || StartsWith(suffix, "autotune_results") ||
      StartsWith(suffix, "execution_options") || StartsWith(suffix, "compile_options") ||
      StartsWith(suffix, "gpu_target_config")) {
    file->kind = DumpFileKind::kMetadata;
    file->format = EndsWith(suffix, ".pb") ? DumpFormat::kBinary : DumpFormat::kText;
    file->detail = std::string(suffix);
    return SuffixMatch::kClassified;
  }
  if (EndsWith(suffix, "_fusion.html")) {
    file->kind = DumpFileKind::kGraph;
    file->detail = "fusion-visualization";
    return SuffixMatch::kClassified;
  }
  return SuffixMatch::kNo;
}

// Per-pass snapshots: NNNN.<pipeline>.after_<pass>[.before_<next>].<hlo extension>, or
// NNNN.<pass>.<step>.<hlo extension> for dumps written during a pass.
SuffixMatch MatchPassSnapshot(std::string_view suffix, DumpFile* file) {
  std::smatch m;
  std::string s(suffix);
  if (!std::regex_match(s, m, PassRe())) return SuffixMatch::kNo;
  // A step beyond an int is no pass snapshot XLA writes (and std::stoi would throw).
  if (m[1].length() > 9) return SuffixMatch::kRejected;
  std::string_view rest_stem, rest_ext;
  std::string rest = m[3].str();
  if (!StripHloExtension(rest, &rest_stem, &rest_ext)) return SuffixMatch::kRejected;
  SetHloFormat(rest_ext, file);
  file->stage = DumpStage::kPass;
  file->step = std::stoi(m[1].str());
  file->pipeline = m[2].str();
  std::string what(rest_stem);
  if (StartsWith(what, "after_")) {
    size_t before = what.find(".before_");
    file->after_pass = what.substr(6, before == std::string::npos ? std::string::npos : before - 6);
    if (before != std::string::npos) file->before_pass = what.substr(before + 8);
  } else {
    // Written during a pass: <pass>.<step>.
    file->after_pass = what;
  }
  return SuffixMatch::kClassified;
}

// Modules XLA GPU dumps at named points of its pipeline, outside the numbered pass
// snapshots: after_spmd_partitioner.txt, before_config_assignment.hlo.pb, ...
SuffixMatch MatchNamedStage(std::string_view suffix, DumpFile* file) {
  if (!StartsWith(suffix, "before_") && !StartsWith(suffix, "after_")) return SuffixMatch::kNo;
  const size_t dot = suffix.find('.');
  if (dot == std::string_view::npos) return SuffixMatch::kNo;
  std::string_view name = suffix.substr(0, dot);
  for (char c : name) {
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return SuffixMatch::kNo;
    }
  }
  std::string_view stem, ext;
  if (!StripHloExtension(suffix.substr(dot), &stem, &ext) || !stem.empty()) return SuffixMatch::kNo;
  SetHloFormat(ext, file);
  file->detail = std::string(name);
  return SuffixMatch::kClassified;
}

// The suffix patterns in the order they are tried. Per-pass snapshots last: their
// grammar is the loosest.
using SuffixMatcher = SuffixMatch (*)(std::string_view suffix, DumpFile* file);
constexpr SuffixMatcher kSuffixMatchers[] = {
    MatchBeforeOptimizations, MatchAfterOptimizations, MatchSnapshot,
    MatchLlvmIr,              MatchObjectFile,         MatchCodeText,
    MatchReportsAndMetadata,  MatchNamedStage,         MatchPassSnapshot,
};

// Classifies `suffix` (the file name after the module name). Returns false when
// nothing matched.
bool ClassifySuffix(std::string_view suffix, DumpFile* file) {
  file->suffix = std::string(suffix);
  for (SuffixMatcher match : kSuffixMatchers) {
    const SuffixMatch result = match(suffix, file);
    if (result != SuffixMatch::kNo) return result == SuffixMatch::kClassified;
  }
  return false;
}

// Guesses the module name from one file's rest (the name followed by a suffix).
// Returns false when no known suffix pins it down.
bool NameFromRest(const std::string& rest, std::string* name) {
  // Lazy names: the shortest name that leaves a suffix of the known grammar (a name
  // with dots backtracks to its full length; "sm_8.0_gpu" stays in the suffix).
  static const std::regex before_re(R"(^(?:(.*?)\.)?before_optimizations[.-].*$)");
  static const std::regex after_re(
      R"(^(?:(.*?)\.)?(?:sm_\d+\.\d+[a-z]?_gpu_|[A-Za-z0-9]+(?:_gpu)?_)?after_optimizations[.-].*$)");
  static const std::regex pass_re(R"(^(?:(.*?)\.)?\d{4,}\.[^.]+\.after_.*$)");
  static const std::regex debug_re(R"(^(?:(.*?)\.)?debug_options$)");
  static const std::regex snapshot_re(R"(^(?:(.*?)\.)?execution_\d+\.hlo_snapshot\.pb$)");
  for (const std::regex* re : {&before_re, &after_re, &pass_re, &debug_re, &snapshot_re}) {
    std::smatch m;
    if (std::regex_match(rest, m, *re)) {
      *name = m[1].matched ? m[1].str() : "";
      return true;
    }
  }
  return false;
}

int64_t FileBytes(const fs::path& path) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

int StageOrder(const DumpFile& f) {
  switch (f.stage) {
    case DumpStage::kBeforeOptimizations: return 0;
    case DumpStage::kPass: return 1;
    case DumpStage::kAfterOptimizations: return 2;
    case DumpStage::kNone: return 3;
  }
  return 3;
}

bool FileLess(const DumpFile& a, const DumpFile& b) {
  return std::make_tuple(StageOrder(a), a.step, a.filename) <
         std::make_tuple(StageOrder(b), b.step, b.filename);
}

bool HasStage(const DumpModule& m, DumpStage stage) {
  return std::any_of(m.files.begin(), m.files.end(), [&](const DumpFile& f) {
    return f.kind == DumpFileKind::kHloModule && f.stage == stage;
  });
}

bool HasCodegen(const DumpModule& m) {
  return std::any_of(m.files.begin(), m.files.end(), [&](const DumpFile& f) {
    return f.kind == DumpFileKind::kLlvmIr || f.kind == DumpFileKind::kPtx ||
           f.kind == DumpFileKind::kAssembly || f.kind == DumpFileKind::kObjectFile;
  });
}

const DumpFile* PreferText(const DumpModule& m, DumpStage stage) {
  const DumpFile* best = nullptr;
  for (const DumpFile& f : m.files) {
    if (f.kind != DumpFileKind::kHloModule || f.stage != stage) continue;
    if (best == nullptr || (f.format == DumpFormat::kText && best->format != DumpFormat::kText)) best = &f;
  }
  return best;
}

}  // namespace

const DumpFile* DumpModule::BeforeOptimizations() const {
  return PreferText(*this, DumpStage::kBeforeOptimizations);
}

const DumpFile* DumpModule::AfterOptimizations() const {
  return PreferText(*this, DumpStage::kAfterOptimizations);
}

std::vector<const DumpFile*> DumpModule::Passes() const {
  std::map<int, const DumpFile*> by_step;
  for (const DumpFile& f : files) {
    if (f.kind != DumpFileKind::kHloModule || f.stage != DumpStage::kPass) continue;
    auto [it, inserted] = by_step.emplace(f.step, &f);
    if (!inserted && f.format == DumpFormat::kText && it->second->format != DumpFormat::kText) {
      it->second = &f;
    }
  }
  std::vector<const DumpFile*> out;
  for (const auto& [step, f] : by_step) out.push_back(f);
  return out;
}

std::vector<const DumpFile*> DumpModule::OfKind(DumpFileKind kind) const {
  std::vector<const DumpFile*> out;
  for (const DumpFile& f : files) {
    if (f.kind == kind) out.push_back(&f);
  }
  return out;
}

std::string DumpModule::Label() const {
  std::string label = key;
  label += " ";
  label += name.empty() ? "(name not in the file names)" : name;
  return label;
}

StatusOr<const DumpModule*> DumpIndex::Find(const std::string& selector) const {
  std::vector<const DumpModule*> hits;
  for (const DumpModule& m : modules) {
    if (m.key == selector) return &m;
  }
  if (AllDigits(selector)) {
    for (const DumpModule& m : modules) {
      for (const std::string& id : m.ids) {
        if (SameDecimalNumber(id, selector)) {
          hits.push_back(&m);
          break;
        }
      }
    }
  }
  if (hits.empty()) {
    for (const DumpModule& m : modules) {
      if (m.name == selector) hits.push_back(&m);
    }
  }
  std::string choices;
  for (const DumpModule& m : modules) choices += "\n  " + m.Label();
  if (hits.size() == 1) return hits[0];
  if (hits.empty()) {
    return InvalidArgument(dir + ": no module '" + selector + "' in this dump folder; it holds:" + choices);
  }
  std::string which;
  for (const DumpModule* m : hits) which += "\n  " + m->Label();
  return InvalidArgument(dir + ": '" + selector + "' names " + std::to_string(hits.size()) +
                         " modules; choose one by its key:" + which);
}

bool IsDumpFolder(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

namespace {

// One file found while listing the folder, before it is grouped into its module.
struct FolderEntry {
  NameParts parts;
  fs::path path;
  std::string filename;
  bool in_module_folder = false;  // a file inside PJRT's module_NNNN.<name>/ folder
};

// What listing the folder found, besides the notes and unrecognized files it records
// in the index.
struct FolderListing {
  std::vector<FolderEntry> entries;
  // Snapshots keyed by module name (XLA's overload without a module id).
  std::vector<FolderEntry> named_snapshots;
};

// (timestamp, id): the files of one module of one run.
using ModuleKey = std::pair<std::string, std::string>;
using NameVotes = std::map<ModuleKey, std::map<std::string, int>>;

DumpFile FileAt(const fs::path& path, const std::string& filename) {
  DumpFile file;
  file.path = path.string();
  file.filename = filename;
  file.bytes = FileBytes(path);
  return file;
}

// The folder's entries in path order; an error midway is noted and ends the listing.
StatusOr<std::vector<fs::directory_entry>> SortedListing(const std::string& dir, DumpIndex* index) {
  std::error_code ec;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return InvalidArgument(dir + ": cannot read folder: " + ec.message());
  std::vector<fs::directory_entry> listing;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      index->notes.push_back("stopped listing the folder early: " + ec.message());
      break;
    }
    listing.push_back(*it);
  }
  std::sort(listing.begin(), listing.end(),
            [](const fs::directory_entry& a, const fs::directory_entry& b) { return a.path() < b.path(); });
  return listing;
}

// PJRT writes module_NNNN.<name>/ with module.mlir and compile options: each file in it
// belongs to that module. Other subfolders are noted and skipped.
void ListModuleFolder(const fs::directory_entry& de, const std::string& filename, DumpIndex* index,
                      FolderListing* listing) {
  NameParts parts;
  std::string probe = filename + ".x";
  if (!SplitModulePrefix(probe, &parts)) {
    index->notes.push_back(filename + "/: a subfolder, not indexed");
    return;
  }
  parts.rest = parts.rest.substr(0, parts.rest.size() - 2);
  std::error_code sec;
  fs::directory_iterator sub(de.path(), fs::directory_options::skip_permission_denied, sec);
  std::vector<fs::path> inner;
  for (; !sec && sub != fs::directory_iterator(); sub.increment(sec)) {
    if (sub->is_regular_file()) inner.push_back(sub->path());
  }
  std::sort(inner.begin(), inner.end());
  for (const fs::path& p : inner) {
    ++index->total_files;
    FolderEntry e;
    e.parts = parts;
    e.path = p;
    e.filename = filename + "/" + p.filename().string();
    e.in_module_folder = true;
    listing->entries.push_back(std::move(e));
  }
}

// Sorts one folder entry: a module file, a snapshot named by module, or unrecognized.
void ListEntry(const fs::directory_entry& de, DumpIndex* index, FolderListing* listing) {
  std::string filename = de.path().filename().string();
  std::error_code sec;
  if (de.is_directory(sec)) {
    ListModuleFolder(de, filename, index, listing);
    return;
  }
  if (!de.is_regular_file(sec)) return;
  ++index->total_files;
  static const std::regex named_snapshot_re(R"(^module_(.+)\.execution_(\d+)\.hlo_snapshot\.pb$)");
  NameParts parts;
  std::smatch m;
  if (SplitModulePrefix(filename, &parts)) {
    listing->entries.push_back(FolderEntry{parts, de.path(), filename, false});
  } else if (std::regex_match(filename, m, named_snapshot_re)) {
    FolderEntry e;
    e.parts.rest = m[1].str();  // the module name
    e.parts.id = m[2].str();    // the execution number
    e.path = de.path();
    e.filename = filename;
    listing->named_snapshots.push_back(std::move(e));
  } else {
    index->unrecognized.push_back(FileAt(de.path(), filename));
  }
}

// Module names per (timestamp, id): from the files whose suffix pins it down.
NameVotes VoteNames(const std::vector<FolderEntry>& entries) {
  NameVotes name_votes;
  for (const FolderEntry& e : entries) {
    if (e.in_module_folder) continue;
    std::string name;
    if (NameFromRest(e.parts.rest, &name)) ++name_votes[{e.parts.timestamp, e.parts.id}][name];
  }
  return name_votes;
}

// The name: the most common one this id's files agree on (longest on ties, so a name
// that itself contains a suffix-like part wins over a shorter reading).
std::string VotedName(const NameVotes& name_votes, const ModuleKey& key) {
  std::string name;
  auto votes = name_votes.find(key);
  if (votes != name_votes.end()) {
    int best = -1;
    for (const auto& [candidate, count] : votes->second) {
      if (candidate.empty()) continue;
      if (count > best || (count == best && candidate.size() > name.size())) {
        best = count;
        name = candidate;
      }
    }
  }
  return name;
}

// A file of PJRT's module folder: its whole file name is the suffix; protos in it are
// metadata.
void AddModuleFolderFile(const FolderEntry& e, DumpModule* module) {
  DumpFile file = FileAt(e.path, e.filename);
  if (module->name.empty()) module->name = e.parts.rest;
  std::string inner = e.path.filename().string();
  if (!ClassifySuffix(inner, &file)) file.kind = DumpFileKind::kOther;
  if (EndsWith(inner, ".pb")) {
    file.kind = DumpFileKind::kMetadata;
    file.format = DumpFormat::kBinary;
    file.detail = inner;
  }
  file.suffix = inner;
  module->files.push_back(std::move(file));
}

// A module_<id>.<name>.<suffix> file, classified by what follows `name` (the voted
// module name, or "" when none) or, failing that, by a reading of its own.
void AddModuleFile(const FolderEntry& e, const std::string& name, DumpModule* module,
                   DumpIndex* index) {
  DumpFile file = FileAt(e.path, e.filename);
  const std::string& rest = e.parts.rest;
  bool classified = false;
  if (!name.empty() && StartsWith(rest, name + ".")) {
    classified = ClassifySuffix(std::string_view(rest).substr(name.size() + 1), &file);
    if (module->name.empty()) module->name = name;
  }
  if (!classified) {
    // The name was dropped (too long), or this file carries a different name.
    file = FileAt(e.path, e.filename);
    if (ClassifySuffix(rest, &file)) {
      file.name_dropped = true;
      classified = true;
    } else {
      std::string other;
      if (NameFromRest(rest, &other) && !other.empty() && ClassifySuffix(rest.substr(other.size() + 1), &file)) {
        classified = true;
        if (module->name.empty()) module->name = other;
        if (other != name && !name.empty()) {
          index->notes.push_back(e.filename + ": module name '" + other + "' differs from '" + name +
                                 "' of the other files of module " + e.parts.id);
        }
      }
    }
  }
  if (!classified) {
    file.kind = DumpFileKind::kOther;
    file.suffix = !name.empty() && StartsWith(rest, name + ".") ? rest.substr(name.size() + 1) : rest;
  }
  module->files.push_back(std::move(file));
}

// Groups the listed files into modules by (timestamp, id), in key order.
void GroupModules(const std::vector<FolderEntry>& entries, DumpIndex* index) {
  const NameVotes name_votes = VoteNames(entries);
  std::map<ModuleKey, DumpModule> grouped;
  for (const FolderEntry& e : entries) {
    ModuleKey key{e.parts.timestamp, e.parts.id};
    DumpModule& module = grouped[key];
    module.timestamp = e.parts.timestamp;
    module.id = e.parts.id;
    if (e.in_module_folder) {
      AddModuleFolderFile(e, &module);
    } else {
      AddModuleFile(e, VotedName(name_votes, key), &module, index);
    }
  }
  for (auto& [key, module] : grouped) {
    module.ids = {module.id};
    std::sort(module.files.begin(), module.files.end(), FileLess);
    index->modules.push_back(std::move(module));
  }
}

// XLA prefixes snapshot files with a timestamp even when the other files have none:
// snapshot-only groups join the module of the same id (and name) without one.
void JoinTimestampedSnapshots(DumpIndex* index) {
  for (size_t i = 0; i < index->modules.size();) {
    DumpModule& m = index->modules[i];
    bool only_snapshots = !m.timestamp.empty() && !m.files.empty() &&
                          std::all_of(m.files.begin(), m.files.end(),
                                      [](const DumpFile& f) { return f.kind == DumpFileKind::kSnapshot; });
    DumpModule* home = nullptr;
    if (only_snapshots) {
      for (DumpModule& other : index->modules) {
        if (&other != &m && other.timestamp.empty() && other.id == m.id && (m.name.empty() || other.name == m.name)) {
          home = &other;
        }
      }
    }
    if (home == nullptr) {
      ++i;
      continue;
    }
    for (DumpFile& f : m.files) home->files.push_back(std::move(f));
    index->modules.erase(index->modules.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

// Snapshots dumped without an id attach to the module of that name.
void AttachNamedSnapshots(const std::vector<FolderEntry>& named_snapshots, DumpIndex* index) {
  for (const FolderEntry& e : named_snapshots) {
    DumpFile file = FileAt(e.path, e.filename);
    file.kind = DumpFileKind::kSnapshot;
    file.format = DumpFormat::kProto;
    file.suffix = "execution_" + e.parts.id + ".hlo_snapshot.pb";
    file.detail = "execution " + e.parts.id;
    DumpModule* owner = nullptr;
    for (DumpModule& m : index->modules) {
      if (m.name == e.parts.rest) owner = &m;
    }
    if (owner == nullptr) {
      index->modules.push_back(DumpModule{});
      owner = &index->modules.back();
      owner->name = e.parts.rest;
      owner->id = "";
    }
    owner->files.push_back(std::move(file));
  }
}

// One compilation split across two ids: a module with the input HLO but no optimized
// HLO or code, followed by a module of the same name (same run) that has them but no
// input. XLA renumbers a module when a compiler clones it between the HLO passes and
// code generation.
void MergeRenumberedModules(DumpIndex* index) {
  for (size_t i = 0; i < index->modules.size(); ++i) {
    DumpModule& first = index->modules[i];
    if (first.name.empty() || !HasStage(first, DumpStage::kBeforeOptimizations) ||
        HasStage(first, DumpStage::kAfterOptimizations) || HasCodegen(first)) {
      continue;
    }
    for (size_t j = i + 1; j < index->modules.size(); ++j) {
      DumpModule& second = index->modules[j];
      if (second.name != first.name || second.timestamp.empty() != first.timestamp.empty() ||
          HasStage(second, DumpStage::kBeforeOptimizations) ||
          !(HasStage(second, DumpStage::kAfterOptimizations) || HasCodegen(second) ||
            HasStage(second, DumpStage::kPass))) {
        continue;
      }
      index->notes.push_back("module " + second.id + " (" + second.name + ") continues module " + first.id +
                             ": XLA renumbered the module during compilation; shown as one");
      for (DumpFile& f : second.files) first.files.push_back(std::move(f));
      first.ids.insert(first.ids.end(), second.ids.begin(), second.ids.end());
      std::stable_sort(first.files.begin(), first.files.end(), FileLess);
      index->modules.erase(index->modules.begin() + static_cast<std::ptrdiff_t>(j));
      break;
    }
  }
}

// Keys: the id alone unless several runs (timestamps) reuse it.
void AssignKeys(DumpIndex* index) {
  std::map<std::string, int> id_uses;
  for (const DumpModule& m : index->modules) ++id_uses[m.id];
  for (DumpModule& m : index->modules) {
    if (m.id.empty()) {
      m.key = m.name;
    } else {
      m.key = (id_uses[m.id] > 1 && !m.timestamp.empty()) ? m.timestamp + "." + m.id : m.id;
    }
  }
}

}  // namespace

StatusOr<DumpIndex> IndexDumpFolder(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return NotFound(dir + ": no such folder");
  if (!fs::is_directory(dir, ec)) return InvalidArgument(dir + ": not a folder");

  DumpIndex index;
  index.dir = dir;
  while (index.dir.size() > 1 && index.dir.back() == '/') index.dir.pop_back();

  ASSIGN_OR_RETURN(const std::vector<fs::directory_entry> entries, SortedListing(dir, &index));
  FolderListing listing;
  for (const fs::directory_entry& de : entries) ListEntry(de, &index, &listing);

  GroupModules(listing.entries, &index);
  JoinTimestampedSnapshots(&index);
  AttachNamedSnapshots(listing.named_snapshots, &index);
  MergeRenumberedModules(&index);
  AssignKeys(&index);

  if (index.modules.empty()) {
    std::string seen = std::to_string(index.total_files) + " file(s)";
    return InvalidArgument(dir + ": no XLA dump files here (" + seen +
                           "; expected names like module_0000.<name>.before_optimizations.txt, "
                           "as --xla_dump_to writes them)");
  }
  return index;
}

StatusOr<std::string> ReadDumpText(const DumpFile& file) {
  if (file.format != DumpFormat::kText) {
    return InvalidArgument(file.path + ": is a binary " + std::string(DumpFileKindName(file.kind)) +
                           " file, not text");
  }
  std::ifstream in(file.path, std::ios::binary);
  if (!in) return NotFound(file.path + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.find('\0') != std::string::npos) {
    return InvalidArgument(file.path + ": holds binary data where text was expected");
  }
  return s;
}

StatusOr<LoadedDumpModule> LoadDumpHlo(const DumpFile& file, bool allow_unknown_attributes) {
  if (file.kind != DumpFileKind::kHloModule && file.kind != DumpFileKind::kSnapshot) {
    return InvalidArgument(file.path + ": is a " + std::string(DumpFileKindName(file.kind)) +
                           " file, not an HLO module");
  }
  LoadOptions options;
  options.allow_unknown_attributes = allow_unknown_attributes;
  auto loaded = LoadFile(file.path, options);
  if (!loaded.ok()) {
    // A parse error on the file's last line means the file ends early: say so.
    const std::string& message = loaded.status().message();
    std::string prefix = file.path + ":";
    if (file.format == DumpFormat::kText && message.rfind(prefix, 0) == 0) {
      int64_t line = std::atoll(message.c_str() + prefix.size());
      auto text = ReadDumpText(file);
      if (line > 0 && text.ok()) {
        int64_t lines = std::count(text->begin(), text->end(), '\n') + (text->empty() || text->back() == '\n' ? 0 : 1);
        bool complete = text->size() >= 2 && text->compare(text->size() - 2, 2, "}\n") == 0;
        if (line >= lines && !complete) {
          return InvalidArgument(message + "\n" + file.path + ": the file ends at line " + std::to_string(lines) +
                                 " in the middle of the module: it looks truncated (XLA writes whole modules); "
                                 "the folder's other files still load");
        }
      }
    }
    return loaded.status();
  }
  if (loaded->modules.empty()) return InvalidArgument(file.path + ": holds no HLO module");
  LoadedDumpModule out;
  out.module = std::move(loaded->modules.front());
  for (const ParseWarning& w : loaded->warnings) {
    out.warnings.push_back(file.path + ":" + std::to_string(w.location.line) + ":" +
                           std::to_string(w.location.column) + ": " + w.message);
  }
  return out;
}

}  // namespace fusebox::importers

namespace fusebox::importers {

namespace {

std::string FormatName(DumpFormat format) {
  switch (format) {
    case DumpFormat::kText: return "text";
    case DumpFormat::kProto: return "proto";
    case DumpFormat::kProtoGz: return "proto.gz";
    case DumpFormat::kBinary: return "binary";
  }
  return "binary";
}

std::string StageName(DumpStage stage) {
  switch (stage) {
    case DumpStage::kNone: return "";
    case DumpStage::kBeforeOptimizations: return "before_optimizations";
    case DumpStage::kPass: return "pass";
    case DumpStage::kAfterOptimizations: return "after_optimizations";
  }
  return "";
}

// "txt+pb" for the formats an HLO stage was dumped in.
std::string Formats(const DumpModule& m, DumpStage stage) {
  bool text = false, proto = false;
  for (const DumpFile& f : m.files) {
    if (f.kind != DumpFileKind::kHloModule || f.stage != stage) continue;
    text = text || f.format == DumpFormat::kText;
    proto = proto || f.format != DumpFormat::kText;
  }
  if (text && proto) return "txt+pb";
  if (text) return "txt";
  if (proto) return "pb";
  return "-";
}

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

}  // namespace

std::string DescribeDumpFile(const DumpFile& f) {
  std::string out;
  switch (f.kind) {
    case DumpFileKind::kHloModule:
    case DumpFileKind::kGraph:
      if (f.stage == DumpStage::kPass) {
        char step[16];
        std::snprintf(step, sizeof(step), "%04d", f.step);
        out = std::string("pass ") + step + " " + f.pipeline + ": after " + f.after_pass;
        if (!f.before_pass.empty()) out += ", before " + f.before_pass;
      } else if (f.stage == DumpStage::kAfterOptimizations) {
        out = (f.platform.empty() ? std::string() : f.platform + " ") + "after optimizations";
      } else {
        out = StageName(f.stage);
        std::replace(out.begin(), out.end(), '_', ' ');
      }
      if (f.kind == DumpFileKind::kGraph) out += " (graph, " + f.detail + ")";
      break;
    case DumpFileKind::kLlvmIr:
      out = std::string("LLVM IR ") + (f.optimized_ir ? "optimized" : "unoptimized");
      if (!f.kernel.empty()) out += " of " + f.kernel;
      if (!f.detail.empty()) out += " (" + f.detail + ")";
      break;
    case DumpFileKind::kObjectFile:
      out = "object file" + (f.kernel.empty() ? std::string() : " of " + f.kernel);
      break;
    case DumpFileKind::kPtx:
      out = "PTX" + (f.kernel.empty() ? std::string() : " of " + f.kernel);
      break;
    case DumpFileKind::kAssembly:
      out = "assembly" + (f.kernel.empty() ? std::string() : " of " + f.kernel);
      break;
    case DumpFileKind::kBufferAssignment:
      out = "buffer assignment" + (f.detail.empty() ? std::string() : " (" + f.detail + ")");
      break;
    case DumpFileKind::kSnapshot:
      out = "HLO snapshot, " + f.detail;
      break;
    case DumpFileKind::kOther:
      out = "unrecognized: " + f.suffix;
      break;
    default:
      out = std::string(DumpFileKindName(f.kind)) + (f.detail.empty() ? std::string() : " (" + f.detail + ")");
      break;
  }
  return out;
}

std::string FormatDumpIndex(const DumpIndex& index) {
  std::ostringstream out;
  out << index.dir << ": " << index.modules.size() << " module(s), " << index.total_files << " file(s)\n\n";
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"module", "name", "before", "passes", "after", "llvm-ir", "ptx", "asm/obj", "buffers",
                  "snapshots", "other"});
  for (const DumpModule& m : index.modules) {
    std::set<std::string> ir_kernels;
    int ir_files = 0, ptx = 0, asm_obj = 0, buffers = 0, snapshots = 0, other = 0;
    std::string platform;
    for (const DumpFile& f : m.files) {
      switch (f.kind) {
        case DumpFileKind::kLlvmIr: ++ir_files; ir_kernels.insert(f.kernel); break;
        case DumpFileKind::kPtx: ++ptx; break;
        case DumpFileKind::kAssembly:
        case DumpFileKind::kObjectFile: ++asm_obj; break;
        case DumpFileKind::kBufferAssignment:
        case DumpFileKind::kMemoryReport: ++buffers; break;
        case DumpFileKind::kSnapshot: ++snapshots; break;
        case DumpFileKind::kHloModule:
          if (f.stage == DumpStage::kAfterOptimizations && platform.empty()) platform = f.platform;
          break;
        case DumpFileKind::kOther: ++other; break;
        default: break;
      }
    }
    std::string after = Formats(m, DumpStage::kAfterOptimizations);
    if (after != "-" && !platform.empty()) after = platform + " " + after;
    std::string ir = "-";
    if (ir_files > 0) {
      bool whole = ir_kernels.size() == 1 && ir_kernels.count("") == 1;
      ir = whole ? std::to_string(ir_files) + " file(s)"
                 : std::to_string(ir_kernels.size()) + " kernel(s)";
    }
    auto count = [](int n) { return n == 0 ? std::string("-") : std::to_string(n); };
    std::string key = m.key;
    if (m.ids.size() > 1) {
      for (size_t i = 1; i < m.ids.size(); ++i) key += "+" + m.ids[i];
    }
    rows.push_back({key, m.name.empty() ? "?" : m.name, Formats(m, DumpStage::kBeforeOptimizations),
                    count(static_cast<int>(m.Passes().size())), after, ir, count(ptx), count(asm_obj),
                    count(buffers), count(snapshots), count(other)});
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += Pad(row[i], i + 1 == row.size() ? 0 : width[i] + 2);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  if (!index.unrecognized.empty()) {
    out << "\n" << index.unrecognized.size() << " file(s) not from XLA's dump layout:\n";
    for (const DumpFile& f : index.unrecognized) out << "  " << f.filename << "\n";
  }
  for (const std::string& note : index.notes) out << "note: " << note << "\n";
  return out.str();
}

std::string FormatDumpModule(const DumpModule& m) {
  std::ostringstream out;
  out << "module " << m.key << " " << (m.name.empty() ? "(name not in the file names)" : m.name);
  if (m.ids.size() > 1) {
    out << " (dumped as ids";
    for (const std::string& id : m.ids) out << " " << id;
    out << ")";
  }
  out << ": " << m.files.size() << " file(s)\n";
  for (const DumpFile& f : m.files) {
    out << "  " << Pad(std::string(DumpFileKindName(f.kind)), 18) << Pad(FormatName(f.format), 9)
        << Pad(DescribeDumpFile(f), 72) << " " << f.filename << "\n";
  }
  return out.str();
}

std::string DumpIndexToJson(const DumpIndex& index) {
  nlohmann::json j;
  j["dir"] = index.dir;
  j["total_files"] = index.total_files;
  j["notes"] = index.notes;
  auto file_json = [](const DumpFile& f) {
    nlohmann::json jf;
    jf["file"] = f.filename;
    jf["kind"] = std::string(DumpFileKindName(f.kind));
    jf["format"] = FormatName(f.format);
    jf["bytes"] = f.bytes;
    if (f.stage != DumpStage::kNone) jf["stage"] = StageName(f.stage);
    if (!f.platform.empty()) jf["platform"] = f.platform;
    if (f.step >= 0) {
      jf["step"] = f.step;
      jf["pipeline"] = f.pipeline;
      jf["after_pass"] = f.after_pass;
      if (!f.before_pass.empty()) jf["before_pass"] = f.before_pass;
    }
    if (!f.kernel.empty()) jf["kernel"] = f.kernel;
    if (f.kind == DumpFileKind::kLlvmIr) jf["optimized"] = f.optimized_ir;
    if (!f.detail.empty()) jf["detail"] = f.detail;
    if (f.name_dropped) jf["name_dropped"] = true;
    jf["description"] = DescribeDumpFile(f);
    return jf;
  };
  j["modules"] = nlohmann::json::array();
  for (const DumpModule& m : index.modules) {
    nlohmann::json jm;
    jm["key"] = m.key;
    jm["id"] = m.id;
    jm["ids"] = m.ids;
    jm["name"] = m.name;
    if (!m.timestamp.empty()) jm["timestamp"] = m.timestamp;
    jm["files"] = nlohmann::json::array();
    for (const DumpFile& f : m.files) jm["files"].push_back(file_json(f));
    j["modules"].push_back(std::move(jm));
  }
  j["unrecognized"] = nlohmann::json::array();
  for (const DumpFile& f : index.unrecognized) j["unrecognized"].push_back(f.filename);
  return j.dump(2) + "\n";
}

}  // namespace fusebox::importers
