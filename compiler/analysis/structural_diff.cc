// The structural diff: builds the value graphs of each pair of computations, matches them
// (graph_matcher.h) and turns the matching into added, removed and changed instructions,
// fusions included; called computations that differ are diffed in turn.
#include "compiler/analysis/structural_diff.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "compiler/analysis/graph_matcher.h"
#include "compiler/analysis/value_graph.h"

namespace fusebox::analysis {

using diff_internal::GraphBuilder;
using diff_internal::LocalSignature;
using diff_internal::NodeMatching;
using diff_internal::ValueGraph;
using diff_internal::ValueNode;

namespace {

constexpr size_t kMaxValueText = 80;
constexpr size_t kMaxNames = 8;

std::string Truncated(const std::string& text) {
  return text.size() <= kMaxValueText ? text : text.substr(0, kMaxValueText) + "...";
}

std::string Name(const Instruction* inst) { return "%" + inst->name(); }

// "%a, %b, %c and 4 more"
std::string NameList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < kMaxNames; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kMaxNames) out += " and " + std::to_string(names.size() - kMaxNames) + " more";
  return out;
}

std::pair<std::string, std::string> KeyValue(const std::string& attribute) {
  size_t eq = attribute.find('=');
  if (eq == std::string::npos) return {attribute, ""};
  return {attribute.substr(0, eq), attribute.substr(eq + 1)};
}

// "direction: LT -> GT" for each key whose value differs, "+key=value" / "-key=value" for
// a key only one side has.
void AttributeDetails(const std::vector<std::string>& a, const std::vector<std::string>& b,
                      std::vector<std::string>* details) {
  std::unordered_map<std::string, std::string> b_values;
  for (const std::string& attribute : b) b_values.insert(KeyValue(attribute));
  std::unordered_set<std::string> a_keys;
  for (const std::string& attribute : a) {
    auto [key, value] = KeyValue(attribute);
    a_keys.insert(key);
    auto it = b_values.find(key);
    if (it == b_values.end()) {
      details->push_back("-" + Truncated(attribute));
    } else if (it->second != value) {
      details->push_back(key + ": " + Truncated(value) + " -> " + Truncated(it->second));
    }
  }
  for (const std::string& attribute : b) {
    if (!a_keys.count(KeyValue(attribute).first)) details->push_back("+" + Truncated(attribute));
  }
}

// Which nodes each top-level fusion holds (the glue of multi-output fusions left out).
std::unordered_map<const Instruction*, std::vector<int>> FusionMembers(const ValueGraph& g) {
  std::unordered_map<const Instruction*, std::vector<int>> members;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (g.nodes[n].fusion && !g.nodes[n].fusion_glue)
      members[g.nodes[n].fusion].push_back(static_cast<int>(n));
  }
  return members;
}

// The top-level fusion whose value is node `n`, or null.
const Instruction* FusionRootedAt(const ValueGraph& g, int n) {
  const Instruction* fusion = n >= 0 ? g.nodes[n].fusion : nullptr;
  return fusion && g.value_of.at(fusion) == n ? fusion : nullptr;
}

struct CalleePair {
  const Computation* a;
  const Computation* b;
  std::string called_by;
};

// The differences of one pair of computations.
class PairDiff {
 public:
  PairDiff(const ValueGraph& a, const ValueGraph& b, std::array<GraphBuilder, 2>& builders,
           std::vector<CalleePair>* callees, ComputationDiff* out)
      : g_{&a, &b},
        builders_(builders),
        callees_(callees),
        out_(out),
        m_(diff_internal::MatchGraphs(a, b)),
        members_{FusionMembers(a), FusionMembers(b)} {}

  void Run() {
    for (size_t n = 0; n < g_[1]->nodes.size(); ++n) ReportNodeOfB(static_cast<int>(n));
    for (size_t n = 0; n < g_[0]->nodes.size(); ++n) ReportNodeOfA(static_cast<int>(n));
    ReportFusions();
  }

 private:
  const ValueNode& Node(int side, int n) const { return g_[side]->nodes[n]; }

  void Add(ChangeKind kind, const Instruction* a, const Instruction* b,
           std::vector<std::string> details) {
    out_->changes.push_back(InstructionChange{kind, a, b, std::move(details), std::nullopt});
  }

  void ReportNodeOfB(int n) {
    const ValueNode& node = Node(1, n);
    if (node.fusion_glue) return;
    const int partner = m_.partner[1][n];
    const int copy = m_.copy_of[1][n];
    if (partner >= 0) {
      ++out_->matched;
      out_->identical += Node(0, partner).full == node.full ? 1 : 0;
      const bool fused_in_a = Node(0, partner).fusion != nullptr;
      out_->moved_into_fusion += node.fusion && !fused_in_a ? 1 : 0;
      out_->moved_out_of_fusion += !node.fusion && fused_in_a ? 1 : 0;
      std::vector<std::string> details = ComparePair(partner, n);
      if (!details.empty())
        Add(ChangeKind::kChanged, Node(0, partner).inst, node.inst, std::move(details));
    } else if (copy >= 0 && node.fusion) {
      ++out_->matched;
      ++out_->copies_in_fusions;
    } else if (copy >= 0) {
      Add(ChangeKind::kAdded, nullptr, node.inst,
          {"a copy of " + Name(Node(0, copy).inst) + " of a"});
    } else {
      std::vector<std::string> details;
      if (node.fusion) details.push_back("inside fusion " + Name(node.fusion));
      Add(ChangeKind::kAdded, nullptr, node.inst, std::move(details));
    }
  }

  void ReportNodeOfA(int n) {
    const ValueNode& node = Node(0, n);
    if (node.fusion_glue || m_.partner[0][n] >= 0) return;
    const int copy = m_.copy_of[0][n];
    if (copy >= 0 && node.fusion) return;  // a fusion's recomputed producer
    std::vector<std::string> details;
    if (copy >= 0) details.push_back("merged: the same as " + Name(Node(1, copy).inst) + " of b");
    if (node.fusion) details.push_back("inside fusion " + Name(node.fusion));
    Add(ChangeKind::kRemoved, node.inst, nullptr, std::move(details));
  }

  // Whether b's operand computes a's operand.
  bool SameValue(int a_operand, int b_operand) const {
    return m_.Counterpart(1, b_operand) == a_operand || m_.Counterpart(0, a_operand) == b_operand ||
           Node(0, a_operand).full == Node(1, b_operand).full;
  }

  std::string OperandNames(const ValueNode& node, int side) const {
    std::vector<std::string> names;
    for (int operand : node.operands) names.push_back(Name(Node(side, operand).inst));
    return "(" + NameList(names) + ")";
  }

  void OperandDetails(const ValueNode& a, const ValueNode& b,
                      std::vector<std::string>* details) const {
    if (a.operands.size() != b.operands.size() || IsCommutative(b.inst->opcode())) {
      std::vector<int> unused = a.operands;
      for (int b_operand : b.operands) {
        auto it = std::find_if(unused.begin(), unused.end(),
                               [&](int x) { return SameValue(x, b_operand); });
        if (it != unused.end()) unused.erase(it);
      }
      if (!unused.empty() || a.operands.size() != b.operands.size()) {
        details->push_back("operands: " + OperandNames(a, 0) + " -> " + OperandNames(b, 1));
      }
      return;
    }
    for (size_t i = 0; i < a.operands.size(); ++i) {
      if (SameValue(a.operands[i], b.operands[i])) continue;
      details->push_back("operand " + std::to_string(i) + ": " + Name(Node(0, a.operands[i]).inst) +
                         " -> " + Name(Node(1, b.operands[i]).inst));
    }
  }

  // Called computations that differ are diffed later, in sections of their own; the
  // caller is not a change for that alone.
  void QueueCallees(const Instruction& a, const Instruction& b, const LocalSignature& sa,
                    const LocalSignature& sb, std::vector<std::string>* details) {
    if (sa.callees.size() != sb.callees.size()) {
      details->push_back("called computations: " + std::to_string(sa.callees.size()) + " -> " +
                         std::to_string(sb.callees.size()));
      return;
    }
    for (size_t i = 0; i < sa.callees.size(); ++i) {
      if (sa.callees[i] == sb.callees[i]) continue;
      const Computation* ca = a.called_computations()[i];
      const Computation* cb = b.called_computations()[i];
      if (ca && cb) callees_->push_back({ca, cb, Name(&a) + " / " + Name(&b)});
    }
  }

  std::vector<std::string> ComparePair(int a, int b) {
    const ValueNode& na = Node(0, a);
    const ValueNode& nb = Node(1, b);
    std::vector<std::string> details;
    LocalSignature sa = builders_[0].Signature(*na.inst);
    LocalSignature sb = builders_[1].Signature(*nb.inst);
    if (na.inst->opcode() != nb.inst->opcode()) {
      details.push_back("opcode: " + std::string(OpcodeName(na.inst->opcode())) + " -> " +
                        std::string(OpcodeName(nb.inst->opcode())));
    }
    if (sa.shape != sb.shape) details.push_back("shape: " + sa.shape + " -> " + sb.shape);
    AttributeDetails(sa.attributes, sb.attributes, &details);
    if (sa.literal != sb.literal) {
      details.push_back("value: " + Truncated(sa.literal) + " -> " + Truncated(sb.literal));
    }
    if (sa.parameter_number != sb.parameter_number) {
      details.push_back("parameter: " + std::to_string(sa.parameter_number) + " -> " +
                        std::to_string(sb.parameter_number));
    }
    QueueCallees(*na.inst, *nb.inst, sa, sb, &details);
    OperandDetails(na, nb, &details);
    if (!details.empty() && (na.fusion || nb.fusion)) {
      details.push_back("inside fusion " + (na.fusion ? Name(na.fusion) : "-") + " / " +
                        (nb.fusion ? Name(nb.fusion) : "-"));
    }
    return details;
  }

  // Names of the other side's counterparts of `members`, split by whether they run alone
  // there or inside a fusion (then the fusion's name), each once.
  void CounterpartNames(int side, const std::vector<int>& members, std::vector<std::string>* alone,
                        std::vector<std::string>* fusions) const {
    std::set<std::string> seen_fusions;
    for (int n : members) {
      int c = m_.Counterpart(side, n);
      if (c < 0) continue;
      const ValueNode& other = Node(1 - side, c);
      if (!other.fusion) {
        alone->push_back(Name(other.inst));
      } else if (seen_fusions.insert(Name(other.fusion)).second) {
        fusions->push_back(Name(other.fusion));
      }
    }
  }

  void ReportAddedFusion(const Instruction* fb) {
    std::vector<std::string> alone, fusions, details;
    CounterpartNames(1, members_[1][fb], &alone, &fusions);
    if (!alone.empty()) details.push_back("fuses " + NameList(alone) + " of a");
    if (!fusions.empty()) details.push_back("takes ops of a's " + NameList(fusions));
    Add(ChangeKind::kAdded, nullptr, fb, std::move(details));
  }

  void ReportRemovedFusion(const Instruction* fa) {
    std::vector<std::string> alone, fusions, details;
    CounterpartNames(0, members_[0][fa], &alone, &fusions);
    if (!alone.empty()) details.push_back("its ops run alone in b: " + NameList(alone));
    if (!fusions.empty()) details.push_back("its ops are in b's " + NameList(fusions));
    Add(ChangeKind::kRemoved, fa, nullptr, std::move(details));
  }

  // Members of one fusion whose counterparts are not in the other: "now also fuses" /
  // "no longer fuses".
  std::vector<std::string> MovedMembers(int side, const Instruction* fusion,
                                        const Instruction* other) {
    std::vector<std::string> names;
    for (int n : members_[side][fusion]) {
      int c = m_.Counterpart(side, n);
      if (c >= 0 && Node(1 - side, c).fusion != other) names.push_back(Name(Node(side, n).inst));
    }
    return names;
  }

  void CompareFusions(const Instruction* fa, const Instruction* fb) {
    std::vector<std::string> details;
    AttributeDetails(diff_internal::SemanticAttributes(*fa, false),
                     diff_internal::SemanticAttributes(*fb, false), &details);
    std::vector<std::string> in = MovedMembers(1, fb, fa);
    std::vector<std::string> out = MovedMembers(0, fa, fb);
    if (!in.empty()) details.push_back("now also fuses " + NameList(in));
    if (!out.empty()) details.push_back("no longer fuses " + NameList(out));
    if (!details.empty()) Add(ChangeKind::kChanged, fa, fb, std::move(details));
  }

  // The unclaimed fusion of a holding the most counterparts of fb's ops, or null.
  const Instruction* MostOverlapping(const Instruction* fb,
                                     const std::unordered_set<const Instruction*>& claimed) const {
    std::unordered_map<const Instruction*, int> overlap;
    for (int n : members_[1].at(fb)) {
      int c = m_.Counterpart(1, n);
      const Instruction* fa = c >= 0 ? Node(0, c).fusion : nullptr;
      if (fa && !claimed.count(fa)) ++overlap[fa];
    }
    const Instruction* best = nullptr;
    for (const Instruction* fa : g_[0]->fusions) {
      if (overlap.count(fa) && (!best || overlap[fa] > overlap[best])) best = fa;
    }
    return best;
  }

  // Fusions correspond when one's root computes the other's; then, among the rest, by the
  // most ops they share. A fusion of b without one is added, one of a is removed.
  void ReportFusions() {
    std::unordered_set<const Instruction*> claimed;
    std::unordered_map<const Instruction*, const Instruction*> a_of_b;
    for (const Instruction* fb : g_[1]->fusions) {
      const Instruction* fa = FusionRootedAt(*g_[0], m_.Counterpart(1, g_[1]->value_of.at(fb)));
      if (fa && claimed.insert(fa).second) a_of_b[fb] = fa;
    }
    for (const Instruction* fb : g_[1]->fusions) {
      if (a_of_b.count(fb) || !members_[1].count(fb)) continue;
      const Instruction* fa = MostOverlapping(fb, claimed);
      if (fa && claimed.insert(fa).second) a_of_b[fb] = fa;
    }
    for (const Instruction* fb : g_[1]->fusions) {
      auto it = a_of_b.find(fb);
      it != a_of_b.end() ? CompareFusions(it->second, fb) : ReportAddedFusion(fb);
    }
    for (const Instruction* fa : g_[0]->fusions) {
      if (!claimed.count(fa)) ReportRemovedFusion(fa);
    }
  }

  std::array<const ValueGraph*, 2> g_;
  std::array<GraphBuilder, 2>& builders_;
  std::vector<CalleePair>* callees_;
  ComputationDiff* out_;
  NodeMatching m_;
  std::array<std::unordered_map<const Instruction*, std::vector<int>>, 2> members_;
};

}  // namespace

std::string_view ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kAdded:
      return "added";
    case ChangeKind::kRemoved:
      return "removed";
    case ChangeKind::kChanged:
      return "changed";
  }
  return "?";
}

int64_t ModuleDiff::Count(ChangeKind kind) const {
  int64_t count = 0;
  for (const ComputationDiff& c : computations) {
    count += std::count_if(c.changes.begin(), c.changes.end(),
                           [&](const InstructionChange& change) { return change.kind == kind; });
  }
  return count;
}

int64_t ModuleDiff::changes() const {
  return Count(ChangeKind::kAdded) + Count(ChangeKind::kRemoved) + Count(ChangeKind::kChanged);
}

ModuleDiff DiffModules(const Module& a, const Module& b, const DiffOptions& options) {
  ModuleDiff diff;
  diff.a = &a;
  diff.b = &b;
  diff.sorted_by = "text order";
  diff_internal::GraphSettings settings{options.compare_layouts};
  std::array<GraphBuilder, 2> builders{GraphBuilder(settings), GraphBuilder(settings)};
  std::vector<CalleePair> queue;
  if (a.entry() && b.entry()) queue.push_back({a.entry(), b.entry(), ""});
  std::set<std::pair<const Computation*, const Computation*>> done;
  for (size_t next = 0; next < queue.size(); ++next) {
    CalleePair pair = queue[next];  // a copy: Run() may grow the queue
    if (!done.insert({pair.a, pair.b}).second) continue;
    ComputationDiff section;
    section.a = pair.a;
    section.b = pair.b;
    section.called_by = pair.called_by;
    ValueGraph ga = builders[0].Build(*pair.a);
    ValueGraph gb = builders[1].Build(*pair.b);
    PairDiff(ga, gb, builders, &queue, &section).Run();
    diff.computations.push_back(std::move(section));
  }
  return diff;
}

}  // namespace fusebox::analysis
