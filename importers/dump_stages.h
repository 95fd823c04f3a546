// Bringing XLA's own artifacts from a dump folder into Fusebox's compile session, and
// comparing XLA's fusion decisions with Fusebox's on the same input module.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/session/compile_session.h"
#include "compiler/session/fusion_comparison.h"
#include "importers/dump_index.h"

namespace fusebox::importers {

// Adds the dump's stages to `session` as external stages (loaded on first use):
//   xla_optimized_hlo          <platform>_after_optimizations (text, or the proto printed)
//   xla_pass_NNNN              each per-pass snapshot XLA wrote
//   xla_llvm_ir                ir-no-opt.ll (per-kernel files joined, each under a header)
//   xla_llvm_ir_optimized      ir-with-opt.ll
//   xla_ptx, xla_asm           .ptx / .s files
//   xla_buffer_assignment      -buffer-assignment.txt
//   xla_live_range             -live-range.txt (XLA's peak; the memory view reads it)
//   xla_memory_usage_report    -memory-usage-report.txt
// Returns how many stages were added.
int AddXlaDumpStages(const DumpModule& module, session::CompileSession* session);

// Joins several text files of one stage, each under a `<comment> ---- <file> ----` header.
StatusOr<std::string> JoinDumpFiles(const std::vector<const DumpFile*>& files, const std::string& comment);

// Compares XLA's fusion (the module's after_optimizations dump) with Fusebox's pipeline run
// on the module's before_optimizations dump. Fails, naming what is missing, when the
// dump lacks either stage.
struct DumpFusionComparison {
  session::FusionComparison comparison;
  std::string input_file, xla_file;
  std::vector<std::string> warnings;
};
StatusOr<DumpFusionComparison> CompareDumpFusion(const DumpModule& module, const passes::PipelineOptions& options = {});

}  // namespace fusebox::importers
