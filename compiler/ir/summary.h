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

// How a module spreads over devices: what `inspect` shows of an SPMD program.
struct DeviceSummary {
  int64_t devices = 1;            // what the module needs (partitions × replicas, groups)
  int64_t num_partitions = 1;
  int64_t replica_count = 1;
  std::string program;            // "single device", "per-device program (partitioned)", "global program ..."
  std::vector<std::string> meshes;  // Shardy meshes, "mesh: [\"d\"=4]"
  // Entry parameters and root with a sharding: name, sharding text, per-device shape
  // (for a global program; empty for a per-device one, whose shapes are tiles already).
  struct Value {
    std::string name;
    std::string sharding;
    std::string shard_shape;
  };
  std::vector<Value> values;
  // Collectives by kind: count and the groups they use (first few).
  std::map<std::string, int64_t> collective_counts;
  std::vector<std::string> collective_lines;  // "%all-reduce.3: all-reduce over replica_groups=... (4 devices)"
  int64_t sharded_instructions = 0;  // instructions with a sharding attribute
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
  DeviceSummary devices;
};

ModuleSummary Summarize(const Module& module);

// Plain-text table as `fusebox inspect` prints it.
std::string SummaryToText(const ModuleSummary& summary);
// The same as a JSON object (for scripts).
std::string SummaryToJson(const ModuleSummary& summary);

}  // namespace fusebox
