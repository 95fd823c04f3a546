// Module summaries for inspect and the module browser.
#include "compiler/ir/summary.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/support/strings.h"

namespace fusebox {

ModuleSummary Summarize(const Module& module) {
  ModuleSummary s;
  s.name = module.name();
  for (const auto& comp : module.computations()) {
    ComputationSummary cs;
    cs.name = comp->name();
    cs.instruction_count = comp->instruction_count();
    cs.parameter_count = comp->parameter_count();
    cs.is_entry = comp.get() == module.entry();
    cs.is_fusion = comp->IsFusionComputation();
    s.computations.push_back(cs);
    s.instruction_count += cs.instruction_count;
    for (const auto& inst : comp->instructions()) {
      ++s.opcode_counts[std::string(OpcodeName(inst->opcode()))];
      if (inst->opcode() == Opcode::kFusion && !comp->IsFusionComputation()) ++s.fusion_count;
      if (inst->opcode() == Opcode::kConstant) {
        int64_t b = inst->shape().ByteSize();
        if (b > 0) s.constant_bytes += b;
      }
    }
  }
  if (const Computation* entry = module.entry()) {
    for (const Instruction* p : entry->parameters()) {
      if (!p) continue;
      s.entry_parameters.emplace_back(p->name(), p->shape());
      int64_t b = p->shape().ByteSize();
      if (b < 0 || s.parameter_bytes < 0) {
        s.parameter_bytes = -1;
      } else {
        s.parameter_bytes += b;
      }
    }
    if (entry->root()) {
      s.entry_result = entry->root()->shape();
      s.result_bytes = s.entry_result.ByteSize();
    }
  }
  DeviceSummary& d = s.devices;
  d.num_partitions = module.num_partitions.value_or(1);
  d.replica_count = module.replica_count.value_or(1);
  d.devices = DevicesOfModule(module);
  const bool per_device = IsPerDeviceProgram(module);
  bool has_shardings = false;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->attrs().has_sharding) {
        ++d.sharded_instructions;
        has_shardings = true;
      }
      if (IsCrossDeviceCollective(inst->opcode())) {
        ++d.collective_counts[std::string(OpcodeName(inst->opcode()))];
        auto cd = DevicesOfCollective(*inst);
        if (d.collective_lines.size() < 40) {
          d.collective_lines.push_back("%" + inst->name() + ": " + std::string(OpcodeName(inst->opcode())) + " " +
                                       inst->shape().ToString(false) + " over " +
                                       (cd.ok() ? cd->written + " (" + std::to_string(cd->devices) + " devices)"
                                                : std::string("unreadable groups: ") + std::string(cd.status().message())));
        }
      }
    }
  }
  for (const auto& [key, value] : module.frontend_attributes) {
    if (key != "xla.sdy.meshes") continue;
    auto meshes = ParseSdyMeshes(value);
    if (!meshes.ok()) {
      d.meshes.push_back("unreadable: " + std::string(meshes.status().message()));
      continue;
    }
    for (const SdyMesh& m : *meshes) {
      std::string text = m.name + ": [";
      for (size_t i = 0; i < m.axes.size(); ++i)
        text += (i ? ", " : "") + m.axes[i].first + "=" + std::to_string(m.axes[i].second);
      d.meshes.push_back(text + "]");
    }
  }
  if (d.devices <= 1 && !has_shardings && d.meshes.empty()) {
    d.program = "single device";
  } else if (per_device) {
    d.program = "per-device program (partitioned; shapes are each device's tiles)";
  } else {
    d.program = "global program with shardings (needs SPMD partitioning to run on " + std::to_string(d.devices) +
                " devices)";
  }
  if (const Computation* entry = module.entry()) {
    std::vector<const Instruction*> values(entry->parameters().begin(), entry->parameters().end());
    if (entry->root()) values.push_back(entry->root());
    for (const Instruction* v : values) {
      if (v == nullptr) continue;
      auto sh = ShardingOf(*v);
      if (!sh.ok()) {
        d.values.push_back({v->name(), "unreadable: " + std::string(sh.status().message()), ""});
        continue;
      }
      if (!sh->has_value()) continue;
      std::string shard;
      if (!per_device) {
        auto shape = (*sh)->ShardShape(v->shape());
        shard = shape.ok() ? shape->ToString(false) : "?";
      }
      d.values.push_back({v->name(), (*sh)->ToString(), shard});
    }
  }
  return s;
}

namespace {
// Bytes of a shape for display; says why when there is no number.
std::string BytesText(const Shape& shape) {
  int64_t b = shape.ByteSize();
  if (b >= 0) return FormatBytes(b);
  if (shape.is_unbounded_dynamic()) return "unbounded dynamic size";
  return "size overflows 64 bits";
}
}  // namespace

std::string SummaryToText(const ModuleSummary& s) {
  std::string out;
  char line[512];
  out += "module " + s.name + "\n";
  std::snprintf(line, sizeof(line), "  %lld computations, %lld instructions, %lld fusions\n",
                static_cast<long long>(s.computations.size()),
                static_cast<long long>(s.instruction_count), static_cast<long long>(s.fusion_count));
  out += line;
  out += "\ncomputations:\n";
  for (const ComputationSummary& c : s.computations) {
    std::snprintf(line, sizeof(line), "  %-8s %6lld instructions %4lld params  %%%s\n",
                  c.is_entry ? "ENTRY" : c.is_fusion ? "fused" : "",
                  static_cast<long long>(c.instruction_count),
                  static_cast<long long>(c.parameter_count), c.name.c_str());
    out += line;
  }
  out += "\ninstructions by opcode:\n";
  std::vector<std::pair<std::string, int64_t>> counts(s.opcode_counts.begin(), s.opcode_counts.end());
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [op, n] : counts) {
    std::snprintf(line, sizeof(line), "  %-28s %lld\n", op.c_str(), static_cast<long long>(n));
    out += line;
  }
  out += "\nentry parameters:\n";
  for (const auto& [name, shape] : s.entry_parameters) {
    out += "  %" + name + ": " + shape.ToString(true) + "  (" + BytesText(shape) + ")\n";
  }
  out += "  total: " +
         (s.parameter_bytes < 0 ? std::string("unknown (unbounded or overflowing sizes)")
                                : FormatBytes(s.parameter_bytes) + " (" +
                                      std::to_string(s.parameter_bytes) + " bytes)") +
         "\n";
  out += "\nresult: " + s.entry_result.ToString(true) + "  (" + BytesText(s.entry_result) + ")\n";
  if (s.constant_bytes > 0) out += "constants: " + FormatBytes(s.constant_bytes) + "\n";
  const DeviceSummary& d = s.devices;
  if (d.program != "single device") {
    std::snprintf(line, sizeof(line), "\ndevices: %lld (num_partitions %lld, replica_count %lld): %s\n",
                  static_cast<long long>(d.devices), static_cast<long long>(d.num_partitions),
                  static_cast<long long>(d.replica_count), d.program.c_str());
    out += line;
    for (const std::string& m : d.meshes) out += "  mesh " + m + "\n";
    if (d.sharded_instructions > 0) out += "  " + std::to_string(d.sharded_instructions) + " instruction(s) with a sharding\n";
    for (const DeviceSummary::Value& v : d.values) {
      out += "  %" + v.name + ": sharding=" + v.sharding;
      if (!v.shard_shape.empty()) out += "  (each device: " + v.shard_shape + ")";
      out += "\n";
    }
    if (!d.collective_counts.empty()) {
      out += "  collectives:";
      for (const auto& [kind, n] : d.collective_counts) out += " " + kind + " " + std::to_string(n);
      out += "\n";
      for (const std::string& c : d.collective_lines) out += "    " + c + "\n";
    }
  }
  return out;
}

std::string SummaryToJson(const ModuleSummary& s) {
  nlohmann::ordered_json j;
  j["module"] = s.name;
  j["instruction_count"] = s.instruction_count;
  j["fusion_count"] = s.fusion_count;
  j["computations"] = nlohmann::ordered_json::array();
  for (const ComputationSummary& c : s.computations) {
    j["computations"].push_back({{"name", c.name},
                                 {"instructions", c.instruction_count},
                                 {"parameters", c.parameter_count},
                                 {"entry", c.is_entry},
                                 {"fusion", c.is_fusion}});
  }
  j["opcode_counts"] = s.opcode_counts;
  j["entry_parameters"] = nlohmann::ordered_json::array();
  for (const auto& [name, shape] : s.entry_parameters) {
    j["entry_parameters"].push_back(
        {{"name", name}, {"shape", shape.ToString(true)}, {"bytes", shape.ByteSize()}});
  }
  j["parameter_bytes"] = s.parameter_bytes;
  j["result"] = s.entry_result.ToString(true);
  j["result_bytes"] = s.result_bytes;
  j["constant_bytes"] = s.constant_bytes;
  const DeviceSummary& d = s.devices;
  nlohmann::ordered_json dj;
  dj["devices"] = d.devices;
  dj["num_partitions"] = d.num_partitions;
  dj["replica_count"] = d.replica_count;
  dj["program"] = d.program;
  dj["meshes"] = d.meshes;
  dj["sharded_instructions"] = d.sharded_instructions;
  dj["values"] = nlohmann::ordered_json::array();
  for (const DeviceSummary::Value& v : d.values) {
    dj["values"].push_back({{"name", v.name}, {"sharding", v.sharding}, {"shard_shape", v.shard_shape}});
  }
  dj["collective_counts"] = d.collective_counts;
  dj["collectives"] = d.collective_lines;
  j["devices"] = dj;
  return j.dump(2) + "\n";
}

}  // namespace fusebox
