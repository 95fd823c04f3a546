// Reports for bug filing: `fusebox report PATH --out DIR` writes everything a compiler
// engineer asks for, self-contained, into one folder and one .tar.gz:
//   report.html   the whole report, no network: styles inline, graphs and timeline as SVG
//   report.md     a short summary to paste into an issue
//   trace.json    the fused run's kernels as Chrome trace events (trace_unfused.json too)
//   graph.dot / graph.svg / graph.png   the fusion graph of Fusebox's optimized module
//   stages/       every stage's full text (hlo, optimized_hlo, LLVM IR, assembly or PTX)
//   repro/        a reproducer in XLA's dump layout: the module, its inputs as .npy, the
//                 expected outputs, and replay.sh, one `fusebox run` line that replays it
//   fusebox-report-<module>.tar.gz   all of the above
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/fusion_comparison.h"
#include "compiler/support/status.h"

namespace fusebox::report {

struct ReportOptions {
  std::string out_dir;
  std::string backend = "cpu";   // the backend the runs use: cpu or gpu
  int64_t iterations = 3;        // runs of each executable (the timeline shows the last)
  uint64_t seed = 0;             // random inputs (when `inputs` is empty)
  std::vector<Literal> inputs;   // explicit inputs (e.g. an HloSnapshot's arguments)
  int threads = 0;
  std::string gpu_arch;
  // The numerical check runs the interpreter when the inputs hold at most this many
  // elements (it is a reference, not fast); larger modules say it was skipped.
  int64_t check_max_input_elements = int64_t{1} << 22;
  // Stage text above this many bytes is cut in report.html (stages/ has it whole).
  int64_t max_stage_bytes_in_html = 400 * 1024;
  bool pack = true;              // write the .tar.gz
  // The reproducer carries inputs and expected outputs as .npy up to this many bytes;
  // larger inputs replay from the seed (explicit larger inputs are still written).
  int64_t max_repro_bytes = int64_t{64} << 20;
  std::string command_line;      // for the environment section
};

struct ReportInput {
  std::unique_ptr<Module> module;  // the module as loaded (the compiler's input)
  std::string source;              // where it came from (file or dump folder + module)
  // From a dump folder: XLA's stages and its fusion compared with Fusebox's.
  std::vector<session::ExternalStage> xla_stages;
  std::optional<session::FusionComparison> xla_comparison;
};

struct ReportResult {
  std::string html;       // path of report.html
  std::string markdown;   // path of report.md
  std::string tarball;    // path of the .tar.gz ("" when not packed)
  std::string repro_dir;  // the reproducer folder
  std::vector<std::string> files;     // every file written, relative to out_dir
  std::vector<std::string> warnings;  // sections that could not be made, and why
  bool check_ran = false;
  bool check_ok = false;
};

// Makes the report. Fails only when the output cannot be written or the module cannot be
// optimized; a backend that cannot run the module, a missing GPU, a graph too big to
// draw and an interpreter too slow for the module each leave a note in their section.
StatusOr<ReportResult> WriteReport(ReportInput input, const ReportOptions& options);

// HTML escaping for text and attribute values.
std::string EscapeHtml(std::string_view text);

}  // namespace fusebox::report
