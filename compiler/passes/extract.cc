// Extraction through the printer and parser: the kept instructions are printed exactly as
// in the original, with parameters standing in for what is cut off under the same names,
// so the result parses back into a module that reads like the original.
#include "compiler/passes/extract.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compiler/parser/parser.h"
#include "compiler/verifier/verifier.h"

namespace fusebox::passes {

namespace {

// Names are unique in XLA's modules; where a hand-written one repeats a name, the entry
// computation wins, then other program computations, then fused ones.
const Instruction* Find(const Module& module, const std::string& name) {
  if (module.entry() != nullptr) {
    if (const Instruction* inst = module.entry()->FindInstruction(name)) return inst;
  }
  const Instruction* fused_hit = nullptr;
  for (const auto& comp : module.computations()) {
    const Instruction* inst = comp->FindInstruction(name);
    if (inst == nullptr) continue;
    if (!inst->IsFused()) return inst;
    fused_hit = inst;
  }
  return fused_hit;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string Suggestions(const Module& module, const std::string& name) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      size_t d = EditDistance(name, inst->name());
      if (inst->name().find(name) != std::string::npos) d = std::min<size_t>(d, 1);
      scored.emplace_back(d, inst->name());
    }
  }
  std::sort(scored.begin(), scored.end());
  std::string out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) {
    if (scored[i].first > std::max<size_t>(3, name.size() / 2)) break;
    out += (out.empty() ? "" : ", ") + ("%" + scored[i].second);
  }
  return out.empty() ? "" : "; did you mean " + out + "?";
}

// Operand references of other instructions that may not be kept: control predecessors.
std::string WithoutControlPredecessors(const std::string& line) {
  static const std::regex re(R"(, control-predecessors=\{[^}]*\})");
  return std::regex_replace(line, re, "");
}

}  // namespace

bool HasInstruction(const Module& module, const std::string& name) {
  std::string n = !name.empty() && name[0] == '%' ? name.substr(1) : name;
  return Find(module, n) != nullptr;
}

StatusOr<std::unique_ptr<Module>> ExtractInstruction(const Module& module, const std::string& instruction,
                                                     const ExtractOptions& options) {
  std::string name = !instruction.empty() && instruction[0] == '%' ? instruction.substr(1) : instruction;
  if (options.height < 0) return InvalidArgument("--height must be 0 or more");
  const Instruction* target = Find(module, name);
  if (target == nullptr) {
    return InvalidArgument("no instruction %" + name + " in module " + module.name() + Suggestions(module, name));
  }

  // Levels: the target at 0; operands of an instruction at level d < height at d + 1.
  std::unordered_map<const Instruction*, int> level;
  std::vector<const Instruction*> work = {target};
  level[target] = 0;
  std::set<const Instruction*> frontier;  // operands that become parameters
  auto keep_constant = [&](const Instruction* inst) {
    return inst->opcode() == Opcode::kConstant && inst->shape().IsArray() &&
           inst->shape().ElementCount() <= options.max_constant_elements;
  };
  for (size_t i = 0; i < work.size(); ++i) {
    const Instruction* inst = work[i];
    int d = level[inst];
    for (const Instruction* operand : inst->operands()) {
      if (level.count(operand)) continue;
      bool keep = operand->opcode() != Opcode::kParameter && (d < options.height || keep_constant(operand));
      if (keep) {
        level[operand] = d + 1;
        work.push_back(operand);
      } else {
        frontier.insert(operand);
      }
    }
  }
  for (const auto& [inst, d] : level) frontier.erase(inst);

  // Parameters in order of first use (a stable order users can predict), numbered from 0.
  std::vector<const Instruction*> params;
  {
    std::unordered_set<const Instruction*> seen;
    const Computation* comp = target->parent();
    for (const auto& inst : comp->instructions()) {
      if (!level.count(inst.get())) continue;
      for (const Instruction* operand : inst->operands()) {
        if (frontier.count(operand) && seen.insert(operand).second) params.push_back(operand);
      }
    }
  }

  // Called computations, callees first.
  std::vector<const Computation*> called;
  std::unordered_set<const Computation*> visited;
  std::function<void(const Computation*)> visit = [&](const Computation* comp) {
    if (comp == nullptr || !visited.insert(comp).second) return;
    for (const auto& inst : comp->instructions()) {
      for (const Computation* callee : inst->called_computations()) visit(callee);
    }
    called.push_back(comp);
  };
  for (const auto& [inst, d] : level) {
    for (const Computation* callee : inst->called_computations()) visit(callee);
  }
  // Deterministic order: as the original module lists them (it lists callees first).
  std::vector<const Computation*> ordered;
  for (const auto& comp : module.computations()) {
    if (visited.count(comp.get())) ordered.push_back(comp.get());
  }

  std::string text = "HloModule extracted_" + name + "\n\n";
  for (const Computation* comp : ordered) {
    std::string body = comp->ToString();
    // A computation that was the entry is printed with ENTRY; here it is a callee.
    if (body.rfind("ENTRY ", 0) == 0) body = body.substr(6);
    text += body + "\n\n";
  }
  text += "ENTRY %extracted (";
  for (size_t i = 0; i < params.size(); ++i) {
    text += (i ? ", " : "") + params[i]->name() + ": " + params[i]->shape().ToString(false);
  }
  text += ") -> " + target->shape().ToString(false) + " {\n";
  for (size_t i = 0; i < params.size(); ++i) {
    text += "  %" + params[i]->name() + " = " + params[i]->shape().ToString(true) + " parameter(" +
            std::to_string(i) + ")\n";
  }
  for (const auto& inst : target->parent()->instructions()) {
    if (!level.count(inst.get())) continue;
    std::string line = WithoutControlPredecessors(inst->ToString());
    text += std::string(inst.get() == target ? "  ROOT " : "  ") + line + "\n";
  }
  text += "}\n";

  ParseOptions popts;
  popts.filename = "<extracted from " + module.name() + ">";
  auto parsed = ParseModule(text, popts);
  if (!parsed.ok()) return Internal("the extracted module does not parse: " + parsed.status().message());
  std::unique_ptr<Module> out = std::move(*parsed);
  out->stack_frames = module.stack_frames;
  Status verified = Verify(*out);
  if (!verified.ok()) return Internal("the extracted module does not verify: " + verified.message());
  return out;
}

}  // namespace fusebox::passes
