// Builds the memory view: the fused profile from the session's CPU compile, the unfused one
// from a compile of the module optimized without fusion, XLA's figures from the dump files
// the session carries as external stages.
#include "compiler/session/memory_view.h"

#include "compiler/ir/sharding.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox::session {

namespace {

StatusOr<backend::MemoryProfile> UnfusedProfile(const Module& input, const std::atomic<bool>* cancel) {
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForCpu(input, /*fused=*/false));
  runtime::CpuExecutableOptions options;
  options.compile.keep_llvm_ir = false;  // only the kernels' in-place choices matter here
  options.compile.keep_assembly = false;
  options.compile.cancel = cancel;
  options.devices = std::max<int64_t>(1, DevicesOfModule(input));
  ASSIGN_OR_RETURN(std::unique_ptr<runtime::CpuExecutable> exe,
                   runtime::CpuExecutable::Create(std::move(optimized), options));
  return exe->EntryMemoryProfile();
}

const ExternalStage* FindStage(const CompileSession& session, const std::string& name) {
  for (const ExternalStage& stage : session.external_stages()) {
    if (stage.name == name) return &stage;
  }
  return nullptr;
}

// The stage's text and its one source file; "" when the session has no such stage. A stage
// joined from several files is not read (its figures would mix programs); a note says so.
StatusOr<std::string> StageSource(CompileSession& session, const std::string& name, std::string* text,
                                  std::vector<std::string>* notes) {
  const ExternalStage* stage = FindStage(session, name);
  if (stage == nullptr) return std::string();
  if (stage->source.find(", ") != std::string::npos) {
    notes->push_back(name + " joins several files (" + stage->source + "); their figures are not read");
    return std::string();
  }
  ASSIGN_OR_RETURN(*text, session.ExternalStageText(name));
  return stage->source;
}

Status ReadBufferAssignment(CompileSession& session, XlaMemoryFigures* xla) {
  std::string text;
  ASSIGN_OR_RETURN(xla->buffer_assignment_file, StageSource(session, "xla_buffer_assignment", &text, &xla->notes));
  if (xla->buffer_assignment_file.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(xla->buffer_assignment, ParseXlaBufferAssignment(text, xla->buffer_assignment_file));
  if (xla->buffer_assignment.total_bytes_used < 0) {
    xla->notes.push_back(xla->buffer_assignment_file + " has no 'Total bytes used' line");
  }
  return Status::Ok();
}

Status ReadLiveRange(CompileSession& session, XlaMemoryFigures* xla) {
  std::string text;
  ASSIGN_OR_RETURN(xla->live_range_file, StageSource(session, "xla_live_range", &text, &xla->notes));
  if (xla->live_range_file.empty()) {
    xla->notes.push_back("no -live-range.txt: XLA's peak is not known");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(xla->live_range, ParseXlaLiveRange(text, xla->live_range_file));
  if (xla->live_range.peak_bytes < 0) {
    xla->notes.push_back(xla->live_range_file + " has no 'Stack trace breakdown for peak usage' line");
  }
  if (xla->live_range.peak_step < 0) xla->notes.push_back(xla->live_range_file + " has no 'Live ranges at N (peak)'");
  return Status::Ok();
}

Status ReadMemoryReport(CompileSession& session, XlaMemoryFigures* xla) {
  std::string text;
  ASSIGN_OR_RETURN(xla->memory_report_file, StageSource(session, "xla_memory_usage_report", &text, &xla->notes));
  if (xla->memory_report_file.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(xla->report_total_bytes, ParseXlaMemoryReportTotal(text, xla->memory_report_file));
  if (xla->report_total_bytes < 0) xla->notes.push_back(xla->memory_report_file + " has no 'Total bytes:' line");
  return Status::Ok();
}

}  // namespace

StatusOr<XlaMemoryFigures> ReadXlaMemory(CompileSession& session) {
  XlaMemoryFigures xla;
  if (FindStage(session, "xla_optimized_hlo") == nullptr && FindStage(session, "xla_buffer_assignment") == nullptr) {
    return xla;  // not from a dump folder
  }
  RETURN_IF_ERROR(ReadBufferAssignment(session, &xla));
  RETURN_IF_ERROR(ReadLiveRange(session, &xla));
  RETURN_IF_ERROR(ReadMemoryReport(session, &xla));
  return xla;
}

StatusOr<MemoryView> BuildMemoryView(CompileSession& session, const MemoryViewOptions& options) {
  MemoryView view;
  view.module_name = session.input().name();
  if (options.fused) {
    ASSIGN_OR_RETURN(runtime::CpuExecutable * exe, session.CpuCompile());
    ASSIGN_OR_RETURN(view.fused, exe->EntryMemoryProfile());
  }
  if (options.unfused) {
    ASSIGN_OR_RETURN(view.unfused, UnfusedProfile(session.input(), options.cancel));
  }
  ASSIGN_OR_RETURN(view.xla, ReadXlaMemory(session));
  return view;
}

}  // namespace fusebox::session
