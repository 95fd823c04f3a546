// Matching the nodes of two value graphs (internal to compiler/analysis): which node of
// side b computes what a node of side a computes, by structure and operands alone.
//
// The phases, each only over nodes still unmatched:
//   1. parameters by number;
//   2. equal full fingerprints (the same op over the same operands, all the way down);
//   3. until nothing changes: bottom-up (the same opcode over operands already matched),
//      operands matched in part (the one candidate that agrees where they are matched),
//      top-down (the operands of a matched pair, position by position, when their
//      opcodes agree; the roots first); and when none of these matches anything more,
//      another opcode over the same matched operands (a changed op).
// A node left over that equals a matched node of the other side (same fingerprint, or
// same opcode and attributes over the same matched operands) is a copy of it: what a
// fusion pass makes when it duplicates a producer into several fusions, or what CSE
// removes.
#pragma once

#include <array>
#include <vector>

#include "compiler/analysis/value_graph.h"

namespace fusebox::analysis::diff_internal {

// Sides: 0 is module a (the old one), 1 is module b.
struct NodeMatching {
  std::array<std::vector<int>, 2> partner;  // node -> its match on the other side, or -1
  std::array<std::vector<int>, 2> copy_of;  // node -> the node of the other side it copies, or -1

  // The node of the other side that computes this node's value: its partner, or what it
  // is a copy of; -1 when none.
  int Counterpart(int side, int node) const {
    int p = partner[side][node];
    return p >= 0 ? p : copy_of[side][node];
  }
};

NodeMatching MatchGraphs(const ValueGraph& a, const ValueGraph& b);

}  // namespace fusebox::analysis::diff_internal
