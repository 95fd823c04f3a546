// Grouping a fusion graph by op_name scope: a model's layers, blocks and stages as
// clusters that can be expanded or collapsed, so that a ResNet-50 draws as its stages and
// blocks instead of four hundred nodes in a row. Works on the FusionGraph model alone (no
// module, no Graphviz); BuildFusionGraph calls it when FusionGraphOptions::scopes says so.
// It does not change what a node is: fusions, folded constants and parameters are decided
// before, by the builder.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/fusion_graph.h"

namespace fusebox::graph {

// The longest run of leading '/'-separated components `a` and `b` share ("" for none).
std::string CommonScope(std::string_view a, std::string_view b);

// "conv ×12, fusion ×3, …": the most frequent names first, at most `max_listed` of them.
std::string CountSummary(const std::vector<std::string>& names, size_t max_listed = 6);

// `flat` (clusters of expanded fusions and called computations allowed, no neighbourhood
// markers) grouped by its nodes' `scope`: each scope holding two or more nodes becomes a
// kScope cluster (expanded) or a kScope node (collapsed), as `options` decides. Edges into
// or out of a collapsed scope are merged per pair of endpoints (`count`), edges inside one
// are dropped. A graph without scopes comes back unchanged.
FusionGraph GroupByScope(const FusionGraph& flat, const ScopeOptions& options);

}  // namespace fusebox::graph
