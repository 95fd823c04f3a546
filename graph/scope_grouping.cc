// Scope grouping: the graph's units (top-level nodes, and top-level clusters with all
// they hold) go into a tree of their scopes; a scope with two or more units is a group;
// the depth rule and per-scope choices decide which groups are expanded; the graph is then
// rebuilt with each collapsed group as one node and its edges merged.
#include "graph/scope_grouping.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <tuple>

namespace fusebox::graph {

namespace {

// '/'-separated components; a '/' inside parentheses (transpose(jvp(f/g))) does not split.
std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i < path.size()) {
      if (path[i] == '(') ++depth;
      if (path[i] == ')' && depth > 0) --depth;
      if (path[i] != '/' || depth > 0) continue;
    }
    if (i > start) out.push_back(path.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string_view>& parts, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < parts.size(); ++i) {
    if (!out.empty()) out += '/';
    out += parts[i];
  }
  return out;
}

bool IsWrapper(std::string_view component) {
  return (component.rfind("jit(", 0) == 0 || component.rfind("pjit(", 0) == 0) &&
         component.back() == ')';
}

// A node of the tree of scopes, below the shared prefix.
struct ScopeTrie {
  std::string name;
  std::string path;  // full path, prefix included
  std::map<std::string, int> children;
  std::vector<int> units;
  int total_units = 0;
};

// A scope that holds two or more units: a cluster or a collapsed node.
struct Group {
  std::string label;
  std::string path;
  int parent = -1;
  int depth = 0;
  std::vector<int> children;
  int nodes = 0;  // flat nodes under it, at any depth
  std::vector<std::string> opcodes;
  int parameters = 0;
  bool expanded = false;
  int collapsed_into = -1;  // the outermost collapsed group holding it (itself included)
  int out = -1;             // its cluster (expanded) or node (collapsed) in the result
};

struct Unit {
  int node = -1;     // a top-level node, or
  int cluster = -1;  // a top-level cluster
  std::string scope;
  int group = -1;  // innermost group, -1 for none
};

// "blocks 1–4" when the children are one name numbered, else "3 scopes".
std::string ChildrenText(const std::vector<Group>& groups, const std::vector<int>& children) {
  if (children.empty()) return "";
  std::string stem;
  std::vector<std::string> numbers;
  for (int c : children) {
    const std::string& label = groups[c].label;
    size_t digits = label.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(label[digits - 1]))) --digits;
    std::string this_stem = label.substr(0, digits);
    if (digits == 0 || digits == label.size() || (!stem.empty() && this_stem != stem)) {
      stem.clear();
      break;
    }
    stem = this_stem;
    numbers.push_back(label.substr(digits));
  }
  const std::string count = std::to_string(children.size());
  if (stem.empty() || numbers.size() != children.size())
    return count + (children.size() == 1 ? " scope" : " scopes");
  if (numbers.size() == 1) return stem + " " + numbers[0];
  return stem + "s " + numbers.front() + "-" + numbers.back();
}

}  // namespace

std::string ScopeOfOpName(std::string_view op_name) {
  std::vector<std::string_view> parts = Components(op_name);
  size_t begin = 0;
  while (begin < parts.size() && IsWrapper(parts[begin])) ++begin;
  if (parts.size() < begin + 2) return "";
  return Join(parts, begin, parts.size() - 1);
}

std::string CommonScope(std::string_view a, std::string_view b) {
  std::vector<std::string_view> pa = Components(a), pb = Components(b);
  size_t n = 0;
  while (n < pa.size() && n < pb.size() && pa[n] == pb[n]) ++n;
  return Join(pa, 0, n);
}

std::string CountSummary(const std::vector<std::string>& names, size_t max_listed) {
  std::map<std::string, int> counts;
  for (const std::string& name : names) ++counts[name];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < max_listed; ++i) {
    if (i) out += ", ";
    out += sorted[i].first;
    if (sorted[i].second > 1) out += " \u00d7" + std::to_string(sorted[i].second);
  }
  if (sorted.size() > max_listed) out += ", \u2026";
  return out;
}

FusionGraph GroupByScope(const FusionGraph& flat, const ScopeOptions& options) {
  const int n = static_cast<int>(flat.nodes.size());
  const int cluster_count = static_cast<int>(flat.clusters.size());

  // Units: every node belongs to the one its top-level cluster (or itself) makes.
  std::vector<Unit> units;
  std::vector<int> unit_of_cluster(cluster_count, -1);
  auto top_cluster = [&](int c) {
    for (int guard = 0; c >= 0 && c < cluster_count && flat.clusters[c].parent >= 0 && guard < 256;
         ++guard)
      c = flat.clusters[c].parent;
    return c >= 0 && c < cluster_count ? c : -1;
  };
  for (int c = 0; c < cluster_count; ++c) {
    if (flat.clusters[c].parent >= 0) continue;
    unit_of_cluster[c] = static_cast<int>(units.size());
    units.push_back({-1, c, "", -1});
  }
  std::vector<int> unit_of_node(n, -1);
  std::vector<std::optional<std::string>> cluster_scope(units.size());
  for (int v = 0; v < n; ++v) {
    const GraphNode& node = flat.nodes[v];
    int top = node.cluster >= 0 ? top_cluster(node.cluster) : -1;
    if (top < 0) {
      unit_of_node[v] = static_cast<int>(units.size());
      units.push_back({v, -1, node.scope, -1});
      continue;
    }
    int u = unit_of_cluster[top];
    unit_of_node[v] = u;
    // An expanded fusion is where its instructions' scopes meet.
    if (flat.clusters[top].kind == ClusterKind::kFusion && !node.scope.empty()) {
      auto& scope = cluster_scope[u];
      scope = scope ? CommonScope(*scope, node.scope) : node.scope;
    }
  }
  // A called computation is in its caller's scope.
  for (Unit& unit : units) {
    if (unit.cluster < 0) continue;
    const GraphCluster& cluster = flat.clusters[unit.cluster];
    if (cluster.kind == ClusterKind::kFusion) {
      unit.scope = cluster_scope[unit_of_cluster[unit.cluster]].value_or("");
      continue;
    }
    for (const GraphNode& node : flat.nodes) {
      if (node.cluster < 0 && node.instruction == cluster.instruction) unit.scope = node.scope;
    }
  }

  // The prefix every scoped unit shares.
  std::optional<std::string> prefix;
  for (const Unit& unit : units) {
    if (unit.scope.empty()) continue;
    prefix = prefix ? CommonScope(*prefix, unit.scope) : unit.scope;
  }
  const size_t prefix_parts = prefix ? Components(*prefix).size() : 0;

  std::vector<ScopeTrie> trie(1);
  for (int u = 0; u < static_cast<int>(units.size()); ++u) {
    std::vector<std::string_view> parts = Components(units[u].scope);
    int t = 0;
    ++trie[0].total_units;
    for (size_t i = prefix_parts; i < parts.size(); ++i) {
      std::string name(parts[i]);
      auto it = trie[t].children.find(name);
      int child;
      if (it == trie[t].children.end()) {
        child = static_cast<int>(trie.size());
        trie[t].children.emplace(name, child);
        ScopeTrie next;
        next.name = name;
        next.path = Join(parts, 0, i + 1);
        trie.push_back(std::move(next));
      } else {
        child = it->second;
      }
      t = child;
      ++trie[t].total_units;
    }
    trie[t].units.push_back(u);
  }
  // Children in the order their first unit comes (the graph's order), not by name.
  std::vector<int> first_unit(trie.size(), static_cast<int>(units.size()));
  for (int t = static_cast<int>(trie.size()) - 1; t >= 0; --t) {
    if (!trie[t].units.empty()) first_unit[t] = std::min(first_unit[t], trie[t].units.front());
    for (const auto& [name, child] : trie[t].children)
      first_unit[t] = std::min(first_unit[t], first_unit[child]);
  }

  // Groups: scopes with two or more units. A scope that only wraps one other is merged
  // into it ("head/dense" rather than a box around a box).
  std::vector<Group> groups;
  auto build = [&](auto&& self, int t, int parent, const std::string& label_prefix) -> void {
    const ScopeTrie& node = trie[t];
    int group = parent;
    std::string next_prefix;
    const bool wraps_one = node.units.empty() && node.children.size() == 1;
    if (t != 0 && node.total_units >= 2 && !wraps_one) {
      Group g;
      g.label = label_prefix + node.name;
      g.path = node.path;
      g.parent = parent;
      g.depth = parent >= 0 ? groups[parent].depth + 1 : 0;
      group = static_cast<int>(groups.size());
      if (parent >= 0) groups[parent].children.push_back(group);
      groups.push_back(std::move(g));
    } else if (t != 0 && wraps_one) {
      next_prefix = label_prefix + node.name + "/";
    }
    for (int u : node.units) units[u].group = group;
    std::vector<int> children;
    for (const auto& [name, child] : node.children) children.push_back(child);
    std::sort(children.begin(), children.end(),
              [&](int a, int b) { return first_unit[a] < first_unit[b]; });
    for (int child : children) self(self, child, group, next_prefix);
  };
  build(build, 0, -1, "");
  if (groups.empty()) return flat;

  // What each group holds, counted into every enclosing group.
  for (int v = 0; v < n; ++v) {
    for (int g = units[unit_of_node[v]].group; g >= 0; g = groups[g].parent) {
      ++groups[g].nodes;
      groups[g].opcodes.push_back(flat.nodes[v].opcode);
      groups[g].parameters += flat.nodes[v].folded_parameters;
    }
  }

  // The depth rule: collapse at the deepest level that draws within the budget.
  int max_depth = 0;
  for (const Group& g : groups) max_depth = std::max(max_depth, g.depth);
  int depth = options.collapse_depth;
  if (depth < 0) {
    depth = 0;
    for (int d = 0; d <= max_depth + 1; ++d) {
      int drawn = 0;
      for (const Group& g : groups) drawn += g.depth == d;
      for (const Unit& unit : units) drawn += unit.group < 0 || groups[unit.group].depth < d;
      if (drawn <= options.budget) depth = d;
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    Group& group = groups[g];
    auto choice = options.expanded.find(group.path);
    group.expanded = choice != options.expanded.end() ? choice->second : group.depth < depth;
    // Parents come before children.
    int outer = group.parent >= 0 ? groups[group.parent].collapsed_into : -1;
    group.collapsed_into = outer >= 0 ? outer : (group.expanded ? -1 : static_cast<int>(g));
  }

  FusionGraph out;
  out.title = flat.title;
  out.notes = flat.notes;
  out.fusions_auto_collapsed = flat.fusions_auto_collapsed;
  out.scope_prefix = prefix.value_or("");
  if (!out.scope_prefix.empty()) out.title += ": " + out.scope_prefix;

  for (Group& group : groups) {
    if (!group.expanded || group.collapsed_into >= 0) continue;
    GraphCluster cluster;
    cluster.id = static_cast<int>(out.clusters.size());
    cluster.parent = group.parent >= 0 ? groups[group.parent].out : -1;
    cluster.kind = ClusterKind::kScope;
    // Short: the box is often one block wide; what it holds is drawn inside it.
    cluster.label = group.label + " (" + std::to_string(group.nodes) + " ops)";
    cluster.scope = group.path;
    cluster.member_count = group.nodes;
    group.out = cluster.id;
    out.clusters.push_back(std::move(cluster));
  }
  // The flat graph's clusters that are still drawn, inside their unit's innermost group.
  std::vector<int> cluster_map(cluster_count, -1);
  for (int c = 0; c < cluster_count; ++c) {
    const Unit& unit = units[unit_of_cluster[top_cluster(c)]];
    if (unit.group >= 0 && groups[unit.group].collapsed_into >= 0) continue;
    GraphCluster cluster = flat.clusters[c];
    cluster.id = static_cast<int>(out.clusters.size());
    cluster.parent = cluster.parent >= 0 ? cluster_map[cluster.parent]
                                         : (unit.group >= 0 ? groups[unit.group].out : -1);
    cluster_map[c] = cluster.id;
    out.clusters.push_back(std::move(cluster));
  }

  std::vector<int> node_map(n, -1);
  std::vector<char> is_scope_node;
  for (int v = 0; v < n; ++v) {
    const GraphNode& node = flat.nodes[v];
    const int g = units[unit_of_node[v]].group;
    const int collapsed = g >= 0 ? groups[g].collapsed_into : -1;
    if (collapsed < 0) {
      GraphNode copy = node;
      copy.id = static_cast<int>(out.nodes.size());
      copy.cluster = node.cluster >= 0 ? cluster_map[node.cluster] : (g >= 0 ? groups[g].out : -1);
      node_map[v] = copy.id;
      out.nodes.push_back(std::move(copy));
      is_scope_node.push_back(0);
      continue;
    }
    Group& group = groups[collapsed];
    if (group.out < 0) {
      // The scope's node, where its first instruction would have been.
      GraphNode scope;
      scope.id = static_cast<int>(out.nodes.size());
      scope.kind = NodeKind::kScope;
      scope.category = NodeCategory::kScope;
      scope.scope = group.path;
      scope.cluster = group.parent >= 0 ? groups[group.parent].out : -1;
      scope.title = group.label;
      scope.member_count = group.nodes;
      scope.folded_parameters = group.parameters;
      // Three lines: the name, what is inside, how much.
      std::string children = ChildrenText(groups, group.children);
      std::string size = (children.empty() ? "" : children + ", ") + std::to_string(group.nodes) +
                         (group.nodes == 1 ? " op" : " ops");
      if (group.parameters > 0) size += ", " + std::to_string(group.parameters) + " params";
      scope.lines.push_back(CountSummary(group.opcodes, 3));
      scope.lines.push_back(size);
      scope.tooltip = "scope " + group.path + "\n" + size + "\n" + CountSummary(group.opcodes, 12) +
                      "\nclick to expand";
      group.out = scope.id;
      out.nodes.push_back(std::move(scope));
      is_scope_node.push_back(1);
    }
    node_map[v] = group.out;
    if (!node.instruction.empty()) out.in_collapsed_scope[node.instruction] = group.out;
  }

  // Edges: into, out of and between collapsed scopes merged per endpoint pair.
  std::map<std::tuple<int, int, int>, int> merged;
  for (const GraphEdge& e : flat.edges) {
    if (e.from < 0 || e.from >= n || e.to < 0 || e.to >= n) continue;
    int from = node_map[e.from], to = node_map[e.to];
    const bool scoped = is_scope_node[from] || is_scope_node[to];
    if (!scoped) {
      out.edges.push_back({from, to, e.kind, e.operand_index, e.count});
      continue;
    }
    if (from == to) continue;
    auto key = std::make_tuple(from, to, static_cast<int>(e.kind));
    auto it = merged.find(key);
    if (it != merged.end()) {
      out.edges[it->second].count += e.count;
      continue;
    }
    merged.emplace(key, static_cast<int>(out.edges.size()));
    out.edges.push_back({from, to, e.kind, -1, e.count});
  }
  return out;
}

}  // namespace fusebox::graph
