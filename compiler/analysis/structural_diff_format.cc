// The structural diff's costs (measured kernel times or estimated bytes), its ordering, and
// its text and JSON forms.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "compiler/analysis/structural_diff.h"
#include "compiler/analysis/value_graph.h"
#include "compiler/support/strings.h"

namespace fusebox::analysis {

namespace {

constexpr size_t kMaxInstructionText = 240;

// The instruction as the diff prints it: XLA's text without metadata, backend config and
// other attributes that do not change the value.
std::string DisplayText(const Instruction& inst) {
  std::string text = "%" + inst.name() + " = " + inst.shape().ToString() + " " +
                     std::string(OpcodeName(inst.opcode())) + "(";
  if (inst.opcode() == Opcode::kParameter) {
    text += std::to_string(inst.parameter_number());
  } else if (inst.opcode() == Opcode::kConstant) {
    text += inst.literal_elided() || !inst.literal() ? "{...}" : inst.literal()->ToString();
  } else {
    for (int64_t i = 0; i < inst.operand_count(); ++i)
      text += (i ? ", %" : "%") + inst.operand(i)->name();
  }
  text += ")";
  for (const std::string& attribute : diff_internal::SemanticAttributes(inst, true))
    text += ", " + attribute;
  if (text.size() > kMaxInstructionText) text = text.substr(0, kMaxInstructionText) + "...";
  return text;
}

std::string FormatCost(double cost, const std::string& unit) {
  if (unit == "bytes") return FormatBytes(static_cast<int64_t>(cost));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f %s", cost, unit.c_str());
  return buf;
}

std::string Counts(int64_t added, int64_t removed, int64_t changed) {
  return std::to_string(added) + " added, " + std::to_string(removed) + " removed, " +
         std::to_string(changed) + " changed";
}

std::string SectionTitle(const ComputationDiff& c) {
  std::string title = "computation %" + c.a->name() + " (a) / %" + c.b->name() + " (b)";
  if (!c.called_by.empty()) title += ", called by " + c.called_by;
  return title;
}

// "  + added    91.9 KiB  %x = ...": the mark, the cost in a column of its own, the text;
// a changed pair's b side and the details below the text.
void AppendChange(const InstructionChange& change, const std::string& unit, std::string* out) {
  static const char* kMarks[] = {"+ added  ", "- removed", "~ changed"};
  char cost[32];
  std::snprintf(cost, sizeof cost, "%10s",
                change.cost ? FormatCost(*change.cost, unit).c_str() : "");
  const std::string indent(24, ' ');
  *out += "  " + std::string(kMarks[static_cast<int>(change.kind)]) + " " + cost + "  ";
  if (change.kind == ChangeKind::kChanged) {
    *out += "a: " + DisplayText(*change.a) + "\n";
    *out += indent + "b: " + DisplayText(*change.b) + "\n";
  } else {
    *out += DisplayText(change.kind == ChangeKind::kAdded ? *change.b : *change.a) + "\n";
  }
  for (const std::string& detail : change.details) *out += indent + "  " + detail + "\n";
}

void AppendSection(const ComputationDiff& c, const std::string& unit, std::string* out) {
  auto count = [&](ChangeKind kind) {
    return std::count_if(c.changes.begin(), c.changes.end(),
                         [&](const InstructionChange& ch) { return ch.kind == kind; });
  };
  *out +=
      "\n" + SectionTitle(c) + ": " +
      Counts(count(ChangeKind::kAdded), count(ChangeKind::kRemoved), count(ChangeKind::kChanged)) +
      "; " + std::to_string(c.matched) + " matched (" + std::to_string(c.identical) + " identical)";
  if (c.moved_into_fusion)
    *out += ", " + std::to_string(c.moved_into_fusion) + " moved into fusions";
  if (c.moved_out_of_fusion)
    *out += ", " + std::to_string(c.moved_out_of_fusion) + " moved out of fusions";
  if (c.copies_in_fusions)
    *out += ", " + std::to_string(c.copies_in_fusions) + " recomputed in fusions";
  *out += "\n";
  for (const InstructionChange& change : c.changes) AppendChange(change, unit, out);
}

int64_t InstructionCount(const Module& m) {
  int64_t n = 0;
  for (const auto& c : m.computations()) n += c->instruction_count();
  return n;
}

nlohmann::ordered_json InstructionJson(const Instruction* inst) {
  if (!inst) return nullptr;
  return {{"name", inst->name()},
          {"computation", inst->parent() ? inst->parent()->name() : ""},
          {"text", DisplayText(*inst)}};
}

nlohmann::ordered_json SectionJson(const ComputationDiff& c) {
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const InstructionChange& change : c.changes) {
    changes.push_back({{"kind", ChangeKindName(change.kind)},
                       {"a", InstructionJson(change.a)},
                       {"b", InstructionJson(change.b)},
                       {"details", change.details},
                       {"cost", change.cost ? nlohmann::ordered_json(*change.cost) : nullptr}});
  }
  return {{"a", c.a->name()},
          {"b", c.b->name()},
          {"called_by", c.called_by},
          {"matched", c.matched},
          {"identical", c.identical},
          {"moved_into_fusion", c.moved_into_fusion},
          {"moved_out_of_fusion", c.moved_out_of_fusion},
          {"recomputed_in_fusions", c.copies_in_fusions},
          {"changes", changes}};
}

}  // namespace

void SetCosts(ModuleDiff* diff, const CostFunction& cost_a, const CostFunction& cost_b,
              const std::string& sorted_by, const std::string& unit) {
  diff->sorted_by = sorted_by;
  diff->cost_unit = unit;
  for (ComputationDiff& c : diff->computations) {
    for (InstructionChange& change : c.changes) {
      std::optional<double> a = change.a ? cost_a(*change.a) : std::nullopt;
      std::optional<double> b = change.b ? cost_b(*change.b) : std::nullopt;
      change.cost = a && b ? std::max(*a, *b) : (a ? a : b);
    }
    std::stable_sort(c.changes.begin(), c.changes.end(),
                     [](const InstructionChange& x, const InstructionChange& y) {
                       return x.cost.value_or(-1) > y.cost.value_or(-1);
                     });
  }
}

std::optional<double> EstimatedBytes(const Instruction& inst) {
  int64_t bytes = std::max<int64_t>(inst.shape().ByteSize(), 0);
  for (const Instruction* operand : inst.operands()) {
    bytes += std::max<int64_t>(operand->shape().ByteSize(), 0);
  }
  return static_cast<double>(bytes);
}

CostFunction KernelTimeCost(std::function<std::optional<double>(const std::string&)> time_us) {
  return [time_us = std::move(time_us)](const Instruction& inst) {
    const Instruction* top = &inst;
    while (top->parent() && top->parent()->fusion_instruction())
      top = top->parent()->fusion_instruction();
    return time_us(top->name());
  };
}

std::string DiffToText(const ModuleDiff& diff, const std::string& name_a,
                       const std::string& name_b) {
  std::string out = "a: " + name_a + " (module " + diff.a->name() + ", " +
                    std::to_string(InstructionCount(*diff.a)) + " instructions)\n";
  out += "b: " + name_b + " (module " + diff.b->name() + ", " +
         std::to_string(InstructionCount(*diff.b)) + " instructions)\n";
  out += std::to_string(diff.changes()) + " change(s): " +
         Counts(diff.Count(ChangeKind::kAdded), diff.Count(ChangeKind::kRemoved),
                diff.Count(ChangeKind::kChanged)) +
         "\n";
  if (diff.changes() > 0) out += "sorted by " + diff.sorted_by + "\n";
  for (const ComputationDiff& c : diff.computations) AppendSection(c, diff.cost_unit, &out);
  return out;
}

std::string DiffToJson(const ModuleDiff& diff, const std::string& name_a,
                       const std::string& name_b) {
  nlohmann::ordered_json sections = nlohmann::ordered_json::array();
  for (const ComputationDiff& c : diff.computations) sections.push_back(SectionJson(c));
  nlohmann::ordered_json j = {{"schema", "fusebox.structural_diff/1"},
                              {"a", {{"file", name_a}, {"module", diff.a->name()}}},
                              {"b", {{"file", name_b}, {"module", diff.b->name()}}},
                              {"changes", diff.changes()},
                              {"added", diff.Count(ChangeKind::kAdded)},
                              {"removed", diff.Count(ChangeKind::kRemoved)},
                              {"changed", diff.Count(ChangeKind::kChanged)},
                              {"sorted_by", diff.sorted_by},
                              {"cost_unit", diff.cost_unit},
                              {"computations", sections}};
  return j.dump(2) + "\n";
}

}  // namespace fusebox::analysis
