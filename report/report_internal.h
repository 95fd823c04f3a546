// Internal to report/: what the gathering (report.cc) hands the writers (report_html.cc,
// report_markdown.cc), and the formatting and verdicts they share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/summary.h"
#include "compiler/session/memory_view.h"
#include "profiler/roofline.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/session/profiled_run.h"
#include "profiler/kernel_summary.h"
#include "report/environment.h"
#include "report/report.h"

namespace fusebox::report::report_internal {

// printf of one number.
std::string Fmt(const char* format, double value);
// The report's byte counts: one decimal, up to TiB.
std::string Bytes(int64_t bytes);

// A cross-device collective of a per-device program, as the Devices section lists it.
struct CollectiveInstruction {
  std::string name;
  std::string kind;    // opcode without "-start"
  std::string groups;  // the attribute as written
  int64_t bytes = 0;   // its result on one device
};

// One multi-device run's tables (Gathered::devices_fused, _unfused). At namespace scope:
// clang does not take a nested struct with member initializers as default-constructible
// inside its enclosing class, so std::optional<DeviceRun>::emplace() would not compile.
struct GatheredDeviceRun {
  std::string how;
  std::vector<std::string> notes;
  std::vector<profiler::DeviceRow> device_rows;
  std::vector<profiler::CollectiveRow> collective_rows;
  int64_t runs = 1;
};

// Everything the writers need, gathered once.
struct Gathered {
  std::string module_name;
  std::string source;
  ModuleSummary summary;
  passes::KernelCount before, after;
  std::optional<session::ProfiledRun> unfused, fused;
  std::string unfused_error, fused_error;
  profiler::KernelSummary fused_summary, unfused_summary;
  std::string graph_svg, graph_note;
  std::vector<passes::FusionDecision> decisions;
  struct StageText {
    std::string name, file, title, text;
  };
  std::vector<StageText> stages;
  std::vector<std::string> stage_notes;
  struct PassDiff {
    std::string name;
    bool changed = false;
    double ms = 0;
    int64_t instructions = 0;
    int64_t added = 0, removed = 0;
    std::string unified;
  };
  std::vector<PassDiff> passes;
  bool check_ran = false, check_ok = false;
  std::string check_text;
  Environment env;
  std::vector<session::ExternalStage> xla_stages;
  std::optional<session::FusionComparison> xla_comparison;
  std::vector<Literal> args;
  std::string repro_command;
  // The CPU backend's memory profile, fused and unfused, with XLA's figures from a dump
  // folder; `memory_note` says why there is none.
  std::optional<session::MemoryView> memory;
  std::string memory_note;
  // The fused run's kernels under the machine's measured roofs (CPU runs); `roofline_note`
  // says why there is none.
  std::optional<profiler::MachinePeaks> peaks;
  std::vector<profiler::RooflineRow> roofline;
  std::string roofline_note;

  // Modules for more than one device: the runs above are multi-device runs (their traces
  // hold a process per device), and the Devices section shows what follows.
  int64_t devices = 1;
  using DeviceRun = GatheredDeviceRun;
  std::optional<DeviceRun> devices_fused, devices_unfused;
  std::vector<passes::CollectiveDecision> collective_decisions;
  bool per_device_listed = false;
  std::vector<CollectiveInstruction> fusebox_collectives;  // of the per-device program that ran
  std::string check_note;  // which reference the multi-device check used
  bool xla_collectives_listed = false;
  std::vector<CollectiveInstruction> xla_collectives;  // of XLA's optimized module
  std::string xla_collectives_note;
};

// A check that ran but could not have failed (numeric_check.h's vacuous verdict).
bool CheckVacuous(const Gathered& g);
// The check's verdict in one word, as the summary card and report.md show it.
std::string CheckWord(const Gathered& g);

// Collectives by kind: how many, and the bytes their results hold on one device.
struct KindTotal {
  int64_t count = 0;
  int64_t bytes = 0;
};
std::map<std::string, KindTotal> ByKind(const std::vector<CollectiveInstruction>& list);

// report.html, self-contained (report_html.cc).
std::string MakeHtml(const Gathered& g, const ReportOptions& options);
// report.md, to paste into an issue (report_markdown.cc).
std::string MakeMarkdown(const Gathered& g, const ReportOptions& options);

}  // namespace fusebox::report::report_internal
