// A module summary for `fusebox inspect` and the GUI's module browser: computations,
// instruction counts by opcode, entry parameters and result, bytes, fusion count.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/ir/module.h"

namespace fusebox {

struct ComputationSummary {
  std::string name;
  int64_t instruction_count = 0;
  int64_t parameter_count = 0;
  bool is_entry = false;
  bool is_fusion = false;  // called by a fusion instruction
};

struct ModuleSummary {
  std::string name;
  std::vector<ComputationSummary> computations;
  std::map<std::string, int64_t> opcode_counts;  // all computations, by opcode name
  int64_t instruction_count = 0;
  std::vector<std::pair<std::string, Shape>> entry_parameters;  // name, shape
  Shape entry_result;
  int64_t parameter_bytes = 0;  // -1 if unknown (dynamic/unbounded)
  int64_t result_bytes = 0;
  int64_t fusion_count = 0;     // fusion instructions outside fused computations
  int64_t constant_bytes = 0;
};

ModuleSummary Summarize(const Module& module);

// Plain-text table as `fusebox inspect` prints it.
std::string SummaryToText(const ModuleSummary& summary);
// The same as a JSON object (for scripts).
std::string SummaryToJson(const ModuleSummary& summary);

}  // namespace fusebox
