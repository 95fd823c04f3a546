// Matching two value graphs: exact fingerprints first, then propagation through operands
// and users until nothing more matches (see graph_matcher.h).
#include "compiler/analysis/graph_matcher.h"

#include <algorithm>
#include <unordered_map>

namespace fusebox::analysis::diff_internal {

namespace {

uint64_t SequenceKey(uint64_t seed, const std::vector<int>& operands) {
  for (int id : operands) seed = MixHash(seed, static_cast<uint64_t>(id));
  return MixHash(seed, operands.size());
}

// The opcode and the operands (in order, or sorted for a commutative opcode).
uint64_t OperandKey(Opcode opcode, std::vector<int> operands) {
  if (IsCommutative(opcode)) std::sort(operands.begin(), operands.end());
  return SequenceKey(static_cast<uint64_t>(opcode), operands);
}

// The operands as a set, whatever the opcode.
uint64_t OperandSetKey(std::vector<int> operands) {
  std::sort(operands.begin(), operands.end());
  return SequenceKey(0, operands);
}

class Matcher {
 public:
  Matcher(const ValueGraph& a, const ValueGraph& b) : graph_{&a, &b} {
    for (int side : {0, 1}) {
      const std::vector<ValueNode>& nodes = graph_[side]->nodes;
      m_.partner[side].assign(nodes.size(), -1);
      m_.copy_of[side].assign(nodes.size(), -1);
      for (size_t n = 0; n < nodes.size(); ++n) {
        by_operands_[side][OperandKey(nodes[n].inst->opcode(), nodes[n].operands)].push_back(
            static_cast<int>(n));
        by_operand_set_[side][OperandSetKey(nodes[n].operands)].push_back(static_cast<int>(n));
      }
    }
  }

  NodeMatching Run() {
    MatchParameters();
    MatchEqualFingerprints();
    TryPair(graph_[0]->root, graph_[1]->root);
    for (bool progress = true; progress;) {
      progress = BottomUp(1);
      progress |= BottomUp(0);
      progress |= PartlyMatchedOperands();
      progress |= TopDown();
      // Last: another opcode over the same operands is a changed op, not a removed and
      // an added one (maximum -> minimum).
      if (!progress) progress = OtherOpcodeOverSameOperands();
    }
    return m_;
  }

 private:
  const ValueNode& Node(int side, int n) const { return graph_[side]->nodes[n]; }
  bool Unmatched(int side, int n) const { return m_.Counterpart(side, n) < 0; }

  void Pair(int a, int b) {
    m_.partner[0][a] = b;
    m_.partner[1][b] = a;
  }

  // Pairs two unmatched nodes of the same opcode.
  bool TryPair(int a, int b) {
    if (a < 0 || b < 0 || !Unmatched(0, a) || !Unmatched(1, b)) return false;
    if (Node(0, a).inst->opcode() != Node(1, b).inst->opcode()) return false;
    Pair(a, b);
    return true;
  }

  void MatchParameters() {
    std::unordered_map<int64_t, int> a_by_number;
    for (size_t n = 0; n < graph_[0]->nodes.size(); ++n) {
      const Instruction* inst = Node(0, static_cast<int>(n)).inst;
      if (inst->opcode() == Opcode::kParameter)
        a_by_number[inst->parameter_number()] = static_cast<int>(n);
    }
    for (size_t n = 0; n < graph_[1]->nodes.size(); ++n) {
      const Instruction* inst = Node(1, static_cast<int>(n)).inst;
      if (inst->opcode() != Opcode::kParameter) continue;
      auto it = a_by_number.find(inst->parameter_number());
      if (it != a_by_number.end()) Pair(it->second, static_cast<int>(n));
    }
  }

  // The unmatched ones of `nodes`, those outside fusions first: an op that runs alone on
  // both sides pairs with its like, the copies fusions make of it are copies.
  std::vector<int> Free(int side, const std::vector<int>& nodes) const {
    std::vector<int> free;
    for (int n : nodes)
      if (Unmatched(side, n)) free.push_back(n);
    std::stable_partition(free.begin(), free.end(), [&](int n) { return !Node(side, n).fusion; });
    return free;
  }

  // Where a node sits: 0 outside fusions, else a fingerprint of its fusion's root.
  uint64_t Container(int side, int n) const {
    const Instruction* fusion = Node(side, n).fusion;
    return fusion ? MixHash(Node(side, graph_[side]->value_of.at(fusion)).full, 1) : 0;
  }

  // Equal nodes pair: those in like places first (in fusions with equal roots, or both
  // outside fusions; of those, ones with the same name first, so that the report names
  // what a reader expects), then the rest in order. A node left over is a copy of the
  // first equal node of the other side.
  void PairEqual(const std::vector<int>& a_nodes, const std::vector<int>& b_nodes) {
    for (bool same_name : {true, false}) {
      for (int b : b_nodes) {
        for (int a : a_nodes) {
          if (!Unmatched(1, b) || !Unmatched(0, a) || Container(0, a) != Container(1, b)) continue;
          if (!same_name || Node(0, a).inst->name() == Node(1, b).inst->name()) Pair(a, b);
        }
      }
    }
    std::vector<int> a_free = Free(0, a_nodes);
    std::vector<int> b_free = Free(1, b_nodes);
    for (size_t i = 0; i < std::min(a_free.size(), b_free.size()); ++i) Pair(a_free[i], b_free[i]);
    for (size_t i = a_free.size(); i < b_free.size(); ++i)
      m_.copy_of[1][b_free[i]] = a_nodes.front();
    for (size_t i = b_free.size(); i < a_free.size(); ++i)
      m_.copy_of[0][a_free[i]] = b_nodes.front();
  }

  void MatchEqualFingerprints() {
    std::array<std::unordered_map<uint64_t, std::vector<int>>, 2> by_full;
    for (int side : {0, 1}) {
      for (size_t n = 0; n < graph_[side]->nodes.size(); ++n) {
        by_full[side][Node(side, static_cast<int>(n)).full].push_back(static_cast<int>(n));
      }
    }
    for (const auto& [full, b_nodes] : by_full[1]) {
      auto it = by_full[0].find(full);
      if (it != by_full[0].end()) PairEqual(it->second, b_nodes);
    }
  }

  // The other side's counterparts of the node's operands; false when one has none.
  bool MapOperands(int side, const ValueNode& node, std::vector<int>* mapped) const {
    for (int operand : node.operands) {
      int counterpart = m_.Counterpart(side, operand);
      if (counterpart < 0) return false;
      mapped->push_back(counterpart);
    }
    return true;
  }

  // Nodes of `side` with this opcode over exactly these operands.
  std::vector<int> WithOperands(int side, Opcode opcode, const std::vector<int>& operands) const {
    auto it = by_operands_[side].find(OperandKey(opcode, operands));
    if (it == by_operands_[side].end()) return {};
    std::vector<int> sorted = operands;
    const bool commutative = IsCommutative(opcode);
    if (commutative) std::sort(sorted.begin(), sorted.end());
    std::vector<int> found;
    for (int n : it->second) {
      std::vector<int> theirs = Node(side, n).operands;
      if (commutative) std::sort(theirs.begin(), theirs.end());
      if (Node(side, n).inst->opcode() == opcode && theirs == sorted) found.push_back(n);
    }
    return found;
  }

  // Of the other side's nodes with this opcode over these operands: the first unmatched
  // one with the same attributes, the first unmatched one with others, and the first
  // matched one with the same attributes.
  struct Candidates {
    int free_equal = -1;
    int free_other = -1;
    int matched_equal = -1;
  };
  Candidates FindCandidates(int other, const ValueNode& node,
                            const std::vector<int>& mapped) const {
    Candidates found;
    for (int c : WithOperands(other, node.inst->opcode(), mapped)) {
      const bool equal = Node(other, c).local == node.local;
      if (!Unmatched(other, c)) {
        if (equal && found.matched_equal < 0) found.matched_equal = c;
      } else if (equal) {
        if (found.free_equal < 0) found.free_equal = c;
      } else if (found.free_other < 0) {
        found.free_other = c;
      }
    }
    return found;
  }

  // An unmatched node over matched operands: the other side's unmatched node with the
  // same opcode over the same operands (one with the same attributes first), or else a
  // copy of an equal node that is matched already.
  bool MatchOverMatchedOperands(int side, int n) {
    const ValueNode& node = Node(side, n);
    std::vector<int> mapped;
    if (node.operands.empty() || !MapOperands(side, node, &mapped)) return false;
    const Candidates found = FindCandidates(1 - side, node, mapped);
    const int pair = found.free_equal >= 0     ? found.free_equal
                     : found.matched_equal < 0 ? found.free_other
                                               : -1;
    if (pair >= 0) {
      side == 0 ? Pair(n, pair) : Pair(pair, n);
    } else if (found.matched_equal >= 0) {
      m_.copy_of[side][n] = found.matched_equal;
    } else {
      return false;
    }
    return true;
  }

  // Ops outside fusions first, so that they pair with their like and what fusions
  // recompute of them are the copies.
  bool BottomUp(int side) {
    bool progress = false;
    for (bool fused : {false, true}) {
      for (size_t n = 0; n < graph_[side]->nodes.size(); ++n) {
        const int id = static_cast<int>(n);
        if ((Node(side, id).fusion != nullptr) == fused && Unmatched(side, id)) {
          progress |= MatchOverMatchedOperands(side, id);
        }
      }
    }
    return progress;
  }

  // An unmatched b node some of whose operands are matched: the one unmatched a node of
  // the same opcode and operand count that has those operands at the same positions.
  int PartlyMatchedCandidate(const ValueNode& node) const {
    int found = -1;
    for (size_t i = 0; i < node.operands.size(); ++i) {
      int a_operand = m_.Counterpart(1, node.operands[i]);
      if (a_operand < 0) continue;
      std::vector<int> candidates;
      for (int user : Node(0, a_operand).users) {
        const ValueNode& u = Node(0, user);
        if (Unmatched(0, user) && u.inst->opcode() == node.inst->opcode() &&
            u.operands.size() == node.operands.size() && u.operands[i] == a_operand) {
          candidates.push_back(user);
        }
      }
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      if (candidates.size() != 1 || (found >= 0 && found != candidates[0])) return -1;
      found = candidates[0];
    }
    return found;
  }

  // Pairs each unmatched node of b with the unmatched node of a that `candidate` finds
  // for it (-1: none).
  template <typename Candidate>
  bool PairEachUnmatched(Candidate candidate) {
    bool progress = false;
    for (size_t n = 0; n < graph_[1]->nodes.size(); ++n) {
      const int b = static_cast<int>(n);
      if (!Unmatched(1, b)) continue;
      const int a = candidate(Node(1, b));
      if (a >= 0 && Unmatched(0, a)) {
        Pair(a, b);
        progress = true;
      }
    }
    return progress;
  }

  bool PartlyMatchedOperands() {
    return PairEachUnmatched(
        [this](const ValueNode& node) { return PartlyMatchedCandidate(node); });
  }

  // Users before operands: the operands of a matched pair, position by position (either
  // order for a commutative binary op).
  bool TopDown() {
    bool progress = false;
    for (int b = static_cast<int>(graph_[1]->nodes.size()) - 1; b >= 0; --b) {
      int a = m_.partner[1][b];
      if (a < 0) continue;
      const ValueNode& na = Node(0, a);
      const ValueNode& nb = Node(1, b);
      if (na.operands.size() != nb.operands.size()) continue;
      for (size_t i = 0; i < na.operands.size(); ++i)
        progress |= TryPair(na.operands[i], nb.operands[i]);
      if (IsCommutative(nb.inst->opcode()) && nb.operands.size() == 2) {
        progress |= TryPair(na.operands[0], nb.operands[1]);
        progress |= TryPair(na.operands[1], nb.operands[0]);
      }
    }
    return progress;
  }

  // The one unmatched a node with another opcode over the same operands (in any order).
  int OtherOpcodeCandidate(const ValueNode& node) const {
    std::vector<int> mapped;
    if (node.operands.empty() || !MapOperands(1, node, &mapped)) return -1;
    std::sort(mapped.begin(), mapped.end());
    auto it = by_operand_set_[0].find(OperandSetKey(mapped));
    if (it == by_operand_set_[0].end()) return -1;
    int found = -1;
    for (int a : it->second) {
      std::vector<int> theirs = Node(0, a).operands;
      std::sort(theirs.begin(), theirs.end());
      if (!Unmatched(0, a) || theirs != mapped) continue;
      if (found >= 0) return -1;
      found = a;
    }
    return found;
  }

  bool OtherOpcodeOverSameOperands() {
    return PairEachUnmatched([this](const ValueNode& node) { return OtherOpcodeCandidate(node); });
  }

  std::array<const ValueGraph*, 2> graph_;
  std::array<std::unordered_map<uint64_t, std::vector<int>>, 2> by_operands_;
  // By operands alone, as a set.
  std::array<std::unordered_map<uint64_t, std::vector<int>>, 2> by_operand_set_;
  NodeMatching m_;
};

}  // namespace

NodeMatching MatchGraphs(const ValueGraph& a, const ValueGraph& b) { return Matcher(a, b).Run(); }

}  // namespace fusebox::analysis::diff_internal
