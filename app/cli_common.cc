// What the CLI's commands share: the input options, loading with warnings, verifier
// output, exit codes from a status, writing a stage, a compile session from the input.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/verifier/verifier.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"
#include "profiler/compile_spans.h"

namespace fusebox::cli::cli_internal {

void AddInputOptions(CLI::App* cmd, CommonInput* in) {
  cmd->add_option(
         "FILE", in->path,
         "HLO text (.hlo / .txt as XLA prints it), an HLO proto (.hlo.pb[.gz], HloSnapshot) "
         "or an XLA dump folder (--xla_dump_to)")
      ->required();
  cmd->add_option(
      "--module", in->module,
      "Module to use when the input holds several: index (0, 1, ...) or name; in a dump "
      "folder its id (0003 or 3) or name");
  cmd->add_option(
      "--dump-stage", in->dump_stage,
      "Dump folders: which of the module's dumps to load: before_optimizations (default), "
      "after_optimizations (XLA's optimized HLO) or a pass step (0005)");
  cmd->add_flag("--strict", in->strict, "Treat unknown attributes as errors");
}

int ReportStatus(const Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitUserError;
}

StatusOr<importers::LoadedFile> Load(const CommonInput& in, bool quiet_warnings, CompileTrace* trace) {
  ScopedSpan span(trace, compile_category::kParse, "parse");
  span.Arg("file", in.path);
  importers::LoadOptions options;
  options.allow_unknown_attributes = !in.strict;
  options.dump_stage = in.dump_stage;
  if (importers::IsDumpFolder(in.path)) options.module_selector = in.module;
  auto file = importers::LoadFile(in.path, options);
  if (file.ok() && !quiet_warnings) {
    for (const ParseWarning& w : file->warnings) {
      std::cerr << in.path << ":" << w.location.line << ":" << w.location.column
                << ": warning: " << w.message << "\n";
    }
    for (const std::string& note : file->notes) std::cerr << "note: " << note << "\n";
  }
  return file;
}

int PrintVerifierIssues(const std::vector<VerifierIssue>& issues, bool* has_errors) {
  int errors = 0;
  for (const VerifierIssue& issue : issues) {
    bool error = issue.severity == VerifierIssue::Severity::kError;
    std::cerr << (error ? "error: " : "warning: ") << issue.message << "\n";
    if (error) ++errors;
  }
  if (has_errors) *has_errors = errors > 0;
  return errors;
}

// Writes `text` to `path`, or to stdout when `path` is empty.
Status WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return Status::Ok();
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) return InvalidArgument(path + ": cannot write");
  out << text;
  if (!out) return InvalidArgument(path + ": write failed");
  return Status::Ok();
}

StatusOr<std::unique_ptr<session::CompileSession>> MakeSession(const CommonInput& in,
                                                                std::shared_ptr<CompileTrace> trace) {
  auto file = Load(in, false, trace.get());
  if (!file.ok()) return file.status();
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return picked.status();
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool errors = false;
  ScopedSpan verify_span(trace.get(), compile_category::kVerify, "verify");
  verify_span.Arg("after", "parse");
  PrintVerifierIssues(VerifyModule(*file->modules[picked->front()], vopts), &errors);
  verify_span.End();
  if (errors) return InvalidArgument(in.path + ": the module does not verify; not compiling it");
  size_t chosen = picked->front();
  auto session = std::make_unique<session::CompileSession>(std::move(file->modules[chosen]));
  session->SetCompileTrace(std::move(trace));
  if (!file->module_keys.empty()) {
    // From a dump folder: XLA's own stages of this module sit next to Fusebox's.
    auto index = importers::IndexDumpFolder(in.path);
    if (index.ok()) {
      auto module = index->Find(file->module_keys[chosen]);
      if (module.ok()) importers::AddXlaDumpStages(**module, session.get());
    }
  }
  return session;
}

void AddCompileTraceOptions(CLI::App* cmd, CompileTraceOptions* opts) {
  cmd->add_option("--compile-trace", opts->path,
                  "Write the compile's spans (parsing, every pass, the verifier, kernel IR emission, LLVM "
                  "optimization per function, code generation, JIT link, ptxas) as Chrome trace JSON, and "
                  "print where the time went");
  cmd->add_flag("--compile-trace-summary", opts->summary,
                "Print where the compile's time went (self time per category and the top spans)");
}

Status FinishCompileTrace(const CompileTrace& trace, const CompileTraceOptions& opts) {
  const std::vector<CompileSpan> spans = trace.Spans();
  if (!opts.path.empty()) {
    RETURN_IF_ERROR(profiler::WriteCompileTrace(spans, opts.path));
    std::cerr << "wrote the compile trace (" << spans.size() << " spans on " << trace.thread_count()
              << " thread(s)) to " << opts.path << "\n";
  }
  std::cerr << FormatCompileTimeSummary(SummarizeCompileTrace(spans));
  return Status::Ok();
}

std::string& CommandLine() {
  static std::string line;
  return line;
}

void AddPlantBugOption(CLI::App* cmd) {
  // Hidden and test-only: compiles with a deliberate bug (compiler/support/planted_bugs.h),
  // so that a user can watch --check fail and bisect find the pass.
  cmd->add_option_function<std::string>(
         "--plant-bug",
         [](const std::string& name) {
           const std::optional<PlantedBug> bug = PlantedBugFromName(name);
           if (!bug) throw CLI::ValidationError("--plant-bug", "no planted bug is named " + name);
           SetPlantedBug(*bug);
           std::cerr << "planted bug " << name << " (" << PlantedBugSite(*bug)
                     << "): results are wrong on purpose\n";
         },
         "TEST ONLY: compile with a deliberate bug (docs/testing.md, Planted bugs)")
      ->group("");
}

}  // namespace fusebox::cli::cli_internal
