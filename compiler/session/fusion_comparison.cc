// Tracing kernels back to input instructions and grouping them.
#include "compiler/session/fusion_comparison.h"

#include "compiler/passes/instruction_fusion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace fusebox::session {

std::string_view FusionMatchName(FusionMatch match) {
  switch (match) {
    case FusionMatch::kMatch: return "match";
    case FusionMatch::kXlaFusesMore: return "xla_fuses_more";
    case FusionMatch::kFuseboxFusesMore: return "fusebox_fuses_more";
    case FusionMatch::kRegrouped: return "regrouped";
  }
  return "match";
}

namespace {

// Instructions that compute something a user would recognize: what runs as a kernel,
// plus reshapes (free in a kernel count, but real operations of the input), and not the
// fusion wrappers themselves (their fused instructions are traced instead).
bool Traceable(const Instruction& inst) {
  if (inst.opcode() == Opcode::kFusion) return false;
  return passes::IsKernel(inst) || inst.opcode() == Opcode::kReshape;
}

// "add.12" -> "add"; "param_0.3" -> "param_0"; "multiply.1.clone" -> "multiply".
std::string Stem(const std::string& name) {
  std::string s = name;
  for (;;) {
    size_t dot = s.rfind('.');
    if (dot == std::string::npos || dot == 0) break;
    std::string tail = s.substr(dot + 1);
    bool digits = !tail.empty() && tail.find_first_not_of("0123456789") == std::string::npos;
    if (!digits && tail != "clone") break;
    s.resize(dot);
  }
  return s;
}

std::string OpName(const Instruction& inst) {
  return inst.metadata() ? inst.metadata()->op_name : std::string();
}

struct InputOp {
  const Instruction* inst;
  std::string stem;
  std::string op_name;
};

// The last component of an op_name path: "jit(f)/jvp(g)/log" -> "log".
std::string LastComponent(const std::string& op_name) {
  size_t slash = op_name.rfind('/');
  return slash == std::string::npos ? op_name : op_name.substr(slash + 1);
}

// Whether two op_names can name the same operation: equal, or one is the other with a
// caller's path in front (XLA prefixes the caller's op_name when it inlines a call).
bool CompatibleOpNames(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  const std::string& longer = a.size() > b.size() ? a : b;
  const std::string& shorter = a.size() > b.size() ? b : a;
  return longer.size() > shorter.size() && longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0 &&
         longer[longer.size() - shorter.size() - 1] == '/';
}

// Finds, for instructions of an optimized module, the input instruction each came from.
// Candidates share the name stem and opcode, or a compatible op_name; each is scored
// (exact name, stem, opcode, op_name, dimensions, not yet taken) and the best wins.
class Tracer {
 public:
  explicit Tracer(const Module& input) {
    for (const Computation* comp : ProgramComputations(input, {.skip_fused = true})) {
      for (const auto& inst : comp->instructions()) {
        if (!Traceable(*inst)) continue;
        int id = static_cast<int>(ops_.size());
        ops_.push_back(InputOp{inst.get(), Stem(inst->name()), OpName(*inst)});
        by_name_.emplace(inst->name(), id);
        by_stem_[StemKey(ops_.back().stem, inst->opcode())].push_back(id);
        if (!ops_.back().op_name.empty()) by_last_[LastComponent(ops_.back().op_name)].push_back(id);
      }
    }
  }

  const std::vector<InputOp>& ops() const { return ops_; }

  // Starts tracing a new optimized module (the taken-marks are per module).
  void Reset(const Module& module) {
    used_.assign(ops_.size(), false);
    traced_.clear();
    caller_.clear();
    for (const auto& comp : module.computations()) {
      for (const auto& inst : comp->instructions()) {
        if (inst->opcode() == Opcode::kFusion && inst->fused_computation()) {
          caller_[inst->fused_computation()] = inst.get();
        }
      }
    }
  }

  // The input op `inst` computes, or -1. `approximate` is set when neither the name nor
  // the name stem and opcode tie them (only the op_name does).
  int Trace(const Instruction& inst, bool* approximate) {
    *approximate = false;
    auto named = by_name_.find(inst.name());
    if (named != by_name_.end() && ops_[named->second].inst->opcode() == inst.opcode() && !used_[named->second]) {
      used_[named->second] = true;
      traced_[&inst] = named->second;
      return named->second;
    }
    std::string stem = Stem(inst.name());
    std::string op_name = OpName(inst);
    std::vector<int> candidates;
    auto by_stem = by_stem_.find(StemKey(stem, inst.opcode()));
    if (by_stem != by_stem_.end()) candidates = by_stem->second;
    if (!op_name.empty()) {
      auto by_last = by_last_.find(LastComponent(op_name));
      if (by_last != by_last_.end()) candidates.insert(candidates.end(), by_last->second.begin(), by_last->second.end());
    }
    int best = -1, best_score = -1;
    bool best_approx = false;
    std::string dims = inst.shape().ToString(false);
    // What each operand of `inst` is in input terms: a traced input op, or a constant.
    std::vector<const Instruction*> operand_origin;
    for (const Instruction* operand : inst.operands()) operand_origin.push_back(Origin(operand, 0));
    for (int id : candidates) {
      const InputOp& op = ops_[id];
      bool same_stem = op.stem == stem && op.inst->opcode() == inst.opcode();
      bool op_names = CompatibleOpNames(op.op_name, op_name);
      if (!same_stem && !op_names) continue;
      int score = (same_stem ? 40 : 0) + (op.op_name == op_name && !op_name.empty() ? 30 : op_names ? 20 : 0) +
                  (op.inst->shape().ToString(false) == dims ? 10 : 0) + (used_[id] ? 0 : 5) +
                  (op.inst->opcode() == inst.opcode() ? 5 : 0);
      // Operands that agree (the same input op, or equal constants) tell apart
      // look-alikes such as the two moment updates of an optimizer.
      for (size_t i = 0; i < operand_origin.size() && i < op.inst->operands().size(); ++i) {
        if (SameOperand(operand_origin[i], op.inst->operand(static_cast<int64_t>(i)))) score += 8;
      }
      if (score > best_score) {
        best_score = score;
        best = id;
        best_approx = !same_stem;
      }
    }
    if (best >= 0) {
      used_[best] = true;
      *approximate = best_approx;
      traced_[&inst] = best;
    }
    return best;
  }


 private:
  // What an optimized-module instruction stands for in the input: the input instruction
  // it was traced to, a constant (itself), or nullptr. Follows fused parameters out to
  // the fusion's operands and fusions in to their roots.
  const Instruction* Origin(const Instruction* inst, int depth) const {
    if (inst == nullptr || depth > 8) return nullptr;
    auto traced = traced_.find(inst);
    if (traced != traced_.end()) return ops_[traced->second].inst;
    switch (inst->opcode()) {
      case Opcode::kConstant:
        return inst;
      case Opcode::kParameter: {
        auto caller = caller_.find(inst->parent());
        if (caller == caller_.end()) return nullptr;
        int64_t n = inst->parameter_number();
        if (n < 0 || n >= static_cast<int64_t>(caller->second->operands().size())) return nullptr;
        return Origin(caller->second->operand(n), depth + 1);
      }
      case Opcode::kFusion:
        return inst->fused_computation() ? Origin(inst->fused_computation()->root(), depth + 1) : nullptr;
      case Opcode::kBitcast:
      case Opcode::kCopy:
        return inst->operands().empty() ? nullptr : Origin(inst->operand(0), depth + 1);
      default:
        return nullptr;
    }
  }

  static bool SameOperand(const Instruction* origin, const Instruction* input_operand) {
    if (origin == nullptr || input_operand == nullptr) return false;
    if (origin == input_operand) return true;
    if (origin->opcode() == Opcode::kConstant && input_operand->opcode() == Opcode::kConstant &&
        origin->literal() && input_operand->literal() && origin->shape().ElementCount() <= 16 &&
        input_operand->shape().ElementCount() <= 16) {
      return origin->literal()->ToString() == input_operand->literal()->ToString();
    }
    return false;
  }

  static std::string StemKey(const std::string& stem, Opcode opcode) {
    return stem + '\x1f' + std::string(OpcodeName(opcode));
  }

  std::vector<InputOp> ops_;
  std::unordered_map<std::string, int> by_name_;
  std::unordered_map<std::string, std::vector<int>> by_stem_;
  std::unordered_map<std::string, std::vector<int>> by_last_;
  std::vector<bool> used_;
  std::unordered_map<const Instruction*, int> traced_;
  std::unordered_map<const Computation*, const Instruction*> caller_;
};

std::string KindOf(const Instruction& inst) {
  std::string kind(OpcodeName(inst.opcode()));
  if (inst.opcode() == Opcode::kFusion && inst.fusion_kind()) {
    kind += "(" + std::string(FusionKindName(*inst.fusion_kind())) + ")";
  }
  return kind;
}

// The instructions a kernel runs: a fusion's fused computation (and nested fusions), or
// the instruction itself.
void Members(const Instruction& kernel, std::vector<const Instruction*>* out) {
  if (kernel.opcode() != Opcode::kFusion || kernel.fused_computation() == nullptr) {
    out->push_back(&kernel);
    return;
  }
  for (const auto& inst : kernel.fused_computation()->instructions()) {
    if (inst->opcode() == Opcode::kFusion) {
      Members(*inst, out);
    } else {
      out->push_back(inst.get());
    }
  }
}

// Kernels of `module`, each with the input ops it computes. `owner[op]` receives the
// kernel index of every input op (-1: none).
std::vector<ComparedKernel> TraceKernels(const Module& module, Tracer& tracer, std::vector<int>* owner,
                                         int64_t* approximate) {
  tracer.Reset(module);
  owner->assign(tracer.ops().size(), -1);
  std::vector<ComparedKernel> kernels;
  for (const Computation* comp : ProgramComputations(module, {.skip_fused = true})) {
    for (const auto& inst : comp->instructions()) {
      if (!passes::IsKernel(*inst)) continue;
      ComparedKernel kernel;
      kernel.name = inst->name();
      kernel.kind = KindOf(*inst);
      kernel.computation = comp->name();
      std::vector<const Instruction*> members;
      Members(*inst, &members);
      int index = static_cast<int>(kernels.size());
      for (const Instruction* m : members) {
        if (m->opcode() != Opcode::kParameter) ++kernel.instructions;
        if (!Traceable(*m)) continue;
        bool approx = false;
        int op = tracer.Trace(*m, &approx);
        if (op < 0) continue;
        if (approx) ++*approximate;
        if ((*owner)[op] < 0) {
          (*owner)[op] = index;
          kernel.originals.push_back(tracer.ops()[op].inst->name());
        }
      }
      kernels.push_back(std::move(kernel));
    }
  }
  return kernels;
}

std::string Join(const std::vector<std::string>& names, int max_names) {
  std::string out;
  int shown = 0;
  for (const std::string& n : names) {
    if (shown == max_names) {
      out += ", … " + std::to_string(names.size() - static_cast<size_t>(max_names)) + " more";
      break;
    }
    if (!out.empty()) out += ", ";
    out += n;
    ++shown;
  }
  return out;
}

std::string Describe(const ComparedKernel& k, int max_names) {
  std::string out = "%" + k.name + " [" + k.kind + ", " + std::to_string(k.originals.size()) + " op";
  if (k.originals.size() != 1) out += "s";
  out += "]";
  if (k.originals.size() > 1 || k.originals.empty() || k.originals[0] != k.name) {
    out += ": " + (k.originals.empty() ? std::string("(no input instruction)") : Join(k.originals, max_names));
  }
  return out;
}

}  // namespace

int FusionComparison::Count(FusionMatch match) const {
  return static_cast<int>(std::count_if(groups.begin(), groups.end(),
                                        [&](const FusionGroup& g) { return g.match == match; }));
}

FusionComparison CompareFusion(const Module& input, const Module& xla, const Module& fusebox) {
  FusionComparison result;
  result.module_name = input.name();
  result.input_kernels = passes::CountKernels(input);
  result.xla_count = passes::CountKernels(xla);
  result.fusebox_count = passes::CountKernels(fusebox);

  Tracer tracer(input);
  std::vector<int> xla_owner, fb_owner;
  result.xla_kernels = TraceKernels(xla, tracer, &xla_owner, &result.approximate_links);
  result.fusebox_kernels = TraceKernels(fusebox, tracer, &fb_owner, &result.approximate_links);

  // Union-find over kernels: node i = XLA kernel i, node nx + j = Fusebox kernel j.
  int nx = static_cast<int>(result.xla_kernels.size());
  int nf = static_cast<int>(result.fusebox_kernels.size());
  std::vector<int> parent(static_cast<size_t>(nx + nf));
  std::iota(parent.begin(), parent.end(), 0);
  std::function<int(int)> find = [&](int a) { return parent[a] == a ? a : parent[a] = find(parent[a]); };
  for (size_t op = 0; op < tracer.ops().size(); ++op) {
    int x = xla_owner[op], f = fb_owner[op];
    if (x >= 0 && f >= 0) parent[find(x)] = find(nx + f);
    const std::string& name = tracer.ops()[op].inst->name();
    if (x >= 0 && f < 0) result.only_in_xla.push_back(name);
    if (x < 0 && f >= 0) result.only_in_fusebox.push_back(name);
  }
  std::map<int, FusionGroup> by_root;
  std::vector<int> root_order;
  for (int i = 0; i < nx + nf; ++i) {
    int root = find(i);
    bool is_xla = i < nx;
    const ComparedKernel& k = is_xla ? result.xla_kernels[i] : result.fusebox_kernels[i - nx];
    if (k.originals.empty()) {
      (is_xla ? result.xla_unmatched : result.fusebox_unmatched).push_back(is_xla ? i : i - nx);
      continue;
    }
    auto [it, inserted] = by_root.try_emplace(root);
    if (inserted) root_order.push_back(root);
    (is_xla ? it->second.xla : it->second.fusebox).push_back(is_xla ? i : i - nx);
  }
  for (int root : root_order) {
    FusionGroup& g = by_root[root];
    if (g.xla.empty() || g.fusebox.empty()) {
      // Kernels whose every input op the other compiler removed: not a pairing.
      for (int x : g.xla) result.xla_unmatched.push_back(x);
      for (int f : g.fusebox) result.fusebox_unmatched.push_back(f);
      continue;
    }
    std::set<std::string> covered;
    for (int x : g.xla) covered.insert(result.xla_kernels[x].originals.begin(), result.xla_kernels[x].originals.end());
    for (int f : g.fusebox) {
      covered.insert(result.fusebox_kernels[f].originals.begin(), result.fusebox_kernels[f].originals.end());
    }
    g.originals.assign(covered.begin(), covered.end());
    if (g.xla.size() == 1 && g.fusebox.size() == 1) {
      g.match = FusionMatch::kMatch;
    } else if (g.xla.size() == 1) {
      g.match = FusionMatch::kXlaFusesMore;
    } else if (g.fusebox.size() == 1) {
      g.match = FusionMatch::kFuseboxFusesMore;
    } else {
      g.match = FusionMatch::kRegrouped;
    }
    result.groups.push_back(std::move(g));
  }
  std::sort(result.xla_unmatched.begin(), result.xla_unmatched.end());
  std::sort(result.fusebox_unmatched.begin(), result.fusebox_unmatched.end());
  return result;
}

std::string FusionComparison::ToText(int max_names) const {
  std::ostringstream out;
  out << "fusion comparison for module " << module_name << "\n";
  out << "kernels: XLA " << xla_count.kernels << ", Fusebox " << fusebox_count.kernels << " (the input, unfused: "
      << input_kernels.kernels << ")\n";
  out << "  XLA:     " << xla_count.ToString() << "\n";
  out << "  Fusebox: " << fusebox_count.ToString() << "\n";
  out << "groups: " << Count(FusionMatch::kMatch) << " match, " << Count(FusionMatch::kXlaFusesMore)
      << " XLA fuses more, " << Count(FusionMatch::kFuseboxFusesMore) << " Fusebox fuses more, "
      << Count(FusionMatch::kRegrouped) << " regrouped\n";

  auto section = [&](FusionMatch match, const char* title) {
    if (Count(match) == 0) return;
    out << "\n" << title << ":\n";
    for (const FusionGroup& g : groups) {
      if (g.match != match) continue;
      if (match == FusionMatch::kMatch) {
        const ComparedKernel& x = xla_kernels[g.xla[0]];
        const ComparedKernel& f = fusebox_kernels[g.fusebox[0]];
        out << "  XLA %" << x.name << " [" << x.kind << "] = Fusebox %" << f.name << " [" << f.kind << "]: "
            << Join(g.originals, max_names) << "\n";
        continue;
      }
      // Each kernel with where its instructions went on the other side.
      auto overlap = [&](const ComparedKernel& k, const std::vector<int>& others,
                         const std::vector<ComparedKernel>& pool) {
        std::set<std::string> mine(k.originals.begin(), k.originals.end());
        std::string where;
        for (int o : others) {
          int shared = 0;
          for (const std::string& n : pool[o].originals) shared += mine.count(n) ? 1 : 0;
          if (shared == 0) continue;
          where += (where.empty() ? "" : ", ") + ("%" + pool[o].name) + " (" + std::to_string(shared) + ")";
        }
        return where;
      };
      for (int x : g.xla) {
        out << "  XLA     " << Describe(xla_kernels[x], max_names) << "\n"
            << "          -> Fusebox " << overlap(xla_kernels[x], g.fusebox, fusebox_kernels) << "\n";
      }
      for (int f : g.fusebox) {
        out << "  Fusebox " << Describe(fusebox_kernels[f], max_names) << "\n"
            << "          -> XLA " << overlap(fusebox_kernels[f], g.xla, xla_kernels) << "\n";
      }
      out << "\n";
    }
  };
  section(FusionMatch::kXlaFusesMore, "XLA fuses, Fusebox splits (one XLA kernel, several Fusebox kernels)");
  section(FusionMatch::kFuseboxFusesMore, "Fusebox fuses, XLA splits (one Fusebox kernel, several XLA kernels)");
  section(FusionMatch::kRegrouped, "regrouped (several kernels on both sides)");
  section(FusionMatch::kMatch, "match (the same input instructions in one kernel each)");

  if (!xla_unmatched.empty()) {
    out << "\nXLA kernels with no input instruction Fusebox computes (copies, layout changes, rewrites):\n";
    for (int x : xla_unmatched) out << "  " << Describe(xla_kernels[x], max_names) << "\n";
  }
  if (!fusebox_unmatched.empty()) {
    out << "\nFusebox kernels with no input instruction XLA computes:\n";
    for (int f : fusebox_unmatched) out << "  " << Describe(fusebox_kernels[f], max_names) << "\n";
  }
  if (!only_in_xla.empty()) {
    out << "\ninput instructions only XLA's kernels compute (" << only_in_xla.size()
        << "): " << Join(only_in_xla, max_names * 2) << "\n";
  }
  if (!only_in_fusebox.empty()) {
    out << "input instructions only Fusebox's kernels compute (" << only_in_fusebox.size()
        << "): " << Join(only_in_fusebox, max_names * 2) << "\n";
  }
  if (approximate_links > 0) {
    out << "\nnote: " << approximate_links
        << " fused instruction(s) were traced to the input by metadata op_name and shape only "
           "(their names and opcodes changed)\n";
  }
  return out.str();
}

std::string FusionComparison::ToJson() const {
  using nlohmann::json;
  auto count_json = [](const passes::KernelCount& c) {
    json j;
    j["kernels"] = c.kernels;
    j["by_opcode"] = c.by_opcode;
    return j;
  };
  auto kernel_json = [](const ComparedKernel& k) {
    json j;
    j["name"] = k.name;
    j["kind"] = k.kind;
    j["computation"] = k.computation;
    j["instructions"] = k.instructions;
    j["originals"] = k.originals;
    return j;
  };
  json j;
  j["module"] = module_name;
  j["input"] = count_json(input_kernels);
  j["xla"] = count_json(xla_count);
  j["fusebox"] = count_json(fusebox_count);
  j["xla_kernels"] = json::array();
  for (const ComparedKernel& k : xla_kernels) j["xla_kernels"].push_back(kernel_json(k));
  j["fusebox_kernels"] = json::array();
  for (const ComparedKernel& k : fusebox_kernels) j["fusebox_kernels"].push_back(kernel_json(k));
  j["groups"] = json::array();
  for (const FusionGroup& g : groups) {
    json jg;
    jg["match"] = std::string(FusionMatchName(g.match));
    jg["xla"] = json::array();
    for (int x : g.xla) jg["xla"].push_back(xla_kernels[x].name);
    jg["fusebox"] = json::array();
    for (int f : g.fusebox) jg["fusebox"].push_back(fusebox_kernels[f].name);
    jg["originals"] = g.originals;
    j["groups"].push_back(std::move(jg));
  }
  j["summary"] = {{"match", Count(FusionMatch::kMatch)},
                  {"xla_fuses_more", Count(FusionMatch::kXlaFusesMore)},
                  {"fusebox_fuses_more", Count(FusionMatch::kFuseboxFusesMore)},
                  {"regrouped", Count(FusionMatch::kRegrouped)}};
  j["xla_unmatched"] = json::array();
  for (int x : xla_unmatched) j["xla_unmatched"].push_back(xla_kernels[x].name);
  j["fusebox_unmatched"] = json::array();
  for (int f : fusebox_unmatched) j["fusebox_unmatched"].push_back(fusebox_kernels[f].name);
  j["only_in_xla"] = only_in_xla;
  j["only_in_fusebox"] = only_in_fusebox;
  j["approximate_links"] = approximate_links;
  return j.dump(2) + "\n";
}

}  // namespace fusebox::session
