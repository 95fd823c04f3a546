// External XLA stages and the XLA-vs-Fusebox fusion comparison for dump folders.
#include "importers/dump_stages.h"

#include <cstdio>


namespace fusebox::importers {

StatusOr<std::string> JoinDumpFiles(const std::vector<const DumpFile*>& files, const std::string& comment) {
  if (files.size() == 1) return ReadDumpText(*files[0]);
  std::string out;
  for (const DumpFile* f : files) {
    auto text = ReadDumpText(*f);
    if (!text.ok()) return text.status();
    std::string title = f->kernel.empty() ? f->filename : f->kernel + " (" + f->filename + ")";
    out += comment + " ---- " + title + " ----\n";
    out += *text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += '\n';
  }
  return out;
}

namespace {

std::string Sources(const std::vector<const DumpFile*>& files) {
  std::string out;
  for (const DumpFile* f : files) out += (out.empty() ? "" : ", ") + f->path;
  return out;
}

// The text of an HLO dump: the file itself for text, the module printed for a proto.
std::function<StatusOr<std::string>()> HloLoader(DumpFile file) {
  return [file]() -> StatusOr<std::string> {
    if (file.format == DumpFormat::kText) return ReadDumpText(file);
    auto loaded = LoadDumpHlo(file);
    if (!loaded.ok()) return loaded.status();
    return loaded->module->ToString();
  };
}

void AddJoined(session::CompileSession* session, const std::string& name, const std::string& description,
               std::vector<const DumpFile*> files, const std::string& comment, int* added) {
  if (files.empty()) return;
  std::vector<DumpFile> copies;
  for (const DumpFile* f : files) copies.push_back(*f);
  session::ExternalStage stage;
  stage.name = name;
  stage.description = description;
  stage.source = Sources(files);
  stage.load = [copies, comment]() {
    std::vector<const DumpFile*> ptrs;
    for (const DumpFile& f : copies) ptrs.push_back(&f);
    return JoinDumpFiles(ptrs, comment);
  };
  session->AddExternalStage(std::move(stage));
  ++*added;
}

}  // namespace

int AddXlaDumpStages(const DumpModule& module, session::CompileSession* session) {
  int added = 0;
  if (const DumpFile* after = module.AfterOptimizations()) {
    session::ExternalStage stage;
    stage.name = "xla_optimized_hlo";
    stage.description = "XLA: " + DescribeDumpFile(*after);
    stage.source = after->path;
    stage.load = HloLoader(*after);
    session->AddExternalStage(std::move(stage));
    ++added;
  }
  for (const DumpFile* pass : module.Passes()) {
    char name[32];
    std::snprintf(name, sizeof(name), "xla_pass_%04d", pass->step);
    session::ExternalStage stage;
    stage.name = name;
    stage.description = "XLA: " + DescribeDumpFile(*pass);
    stage.source = pass->path;
    stage.load = HloLoader(*pass);
    session->AddExternalStage(std::move(stage));
    ++added;
  }
  std::vector<const DumpFile*> no_opt, with_opt;
  for (const DumpFile* f : module.OfKind(DumpFileKind::kLlvmIr)) {
    if (f->detail == "noconst") continue;
    (f->optimized_ir ? with_opt : no_opt).push_back(f);
  }
  AddJoined(session, "xla_llvm_ir", "XLA: LLVM IR before LLVM's optimizations", no_opt, ";", &added);
  AddJoined(session, "xla_llvm_ir_optimized", "XLA: LLVM IR after LLVM's optimizations", with_opt, ";", &added);
  AddJoined(session, "xla_ptx", "XLA: PTX", module.OfKind(DumpFileKind::kPtx), "//", &added);
  AddJoined(session, "xla_asm", "XLA: assembly", module.OfKind(DumpFileKind::kAssembly), "#", &added);
  std::vector<const DumpFile*> buffers;
  for (const DumpFile* f : module.OfKind(DumpFileKind::kBufferAssignment)) {
    if (f->detail.empty()) buffers.push_back(f);
  }
  AddJoined(session, "xla_buffer_assignment", "XLA: buffer assignment", buffers, "//", &added);
  std::vector<const DumpFile*> live_ranges, reports;
  for (const DumpFile* f : module.OfKind(DumpFileKind::kBufferAssignment)) {
    if (f->detail == "live-range") live_ranges.push_back(f);
  }
  for (const DumpFile* f : module.OfKind(DumpFileKind::kMemoryReport)) {
    if (f->format == DumpFormat::kText) reports.push_back(f);
  }
  AddJoined(session, "xla_live_range", "XLA: buffer live ranges and the peak", live_ranges, "//", &added);
  AddJoined(session, "xla_memory_usage_report", "XLA: memory usage report", reports, "//", &added);
  return added;
}

StatusOr<DumpFusionComparison> CompareDumpFusion(const DumpModule& module, const passes::PipelineOptions& options) {
  const DumpFile* before = module.BeforeOptimizations();
  const DumpFile* after = module.AfterOptimizations();
  if (before == nullptr || after == nullptr) {
    std::string missing = before == nullptr ? "before_optimizations" : "";
    if (after == nullptr) missing += std::string(missing.empty() ? "" : " and ") + "after_optimizations";
    return InvalidArgument("module " + module.Label() + " has no " + missing +
                           " dump; comparing fusion needs both (XLA writes them with --xla_dump_to)");
  }
  DumpFusionComparison out;
  out.input_file = before->path;
  out.xla_file = after->path;
  auto input = LoadDumpHlo(*before);
  if (!input.ok()) return input.status();
  auto xla = LoadDumpHlo(*after);
  if (!xla.ok()) return xla.status();
  out.warnings = input->warnings;
  out.warnings.insert(out.warnings.end(), xla->warnings.begin(), xla->warnings.end());
  session::CompileSession session(input->module->Clone());
  Status st = session.Optimize(options);
  if (!st.ok()) return st.WithPrefix(before->path + ": Fusebox's pipeline failed: ");
  out.comparison = session::CompareFusion(*input->module, *xla->module, *session.optimized_module());
  return out;
}

}  // namespace fusebox::importers
