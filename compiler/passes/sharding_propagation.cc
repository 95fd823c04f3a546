// Sharding propagation (see sharding_propagation.h).
//
//   1. helpers: device lists, dim maps, reshape groups
//   2. the graph: one node per array leaf, classes (while loops), edges with rules
//   3. the solver: rounds of best candidates until nothing changes
#include "compiler/passes/sharding_propagation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/ir/collectives.h"

namespace fusebox::passes {

// --- 1. helpers -------------------------------------------------------------------------

namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Row-major `devices` over `dims`, with the axes put in `perm` order.
std::vector<int64_t> TransposeDevices(const std::vector<int64_t>& devices,
                                      const std::vector<int64_t>& dims,
                                      const std::vector<int64_t>& perm) {
  const size_t rank = dims.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  std::vector<int64_t> out_dims(rank);
  for (size_t i = 0; i < rank; ++i) out_dims[i] = dims[static_cast<size_t>(perm[i])];
  std::vector<int64_t> out;
  out.reserve(devices.size());
  std::vector<int64_t> index(rank, 0);
  for (size_t n = 0; n < devices.size(); ++n) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * strides[static_cast<size_t>(perm[i])];
    out.push_back(devices[static_cast<size_t>(src)]);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < out_dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

// Ordered factorizations of n into `k` factors, each at least 2.
void Factorizations(int64_t n, int k, std::vector<int64_t>& current,
                    std::vector<std::vector<int64_t>>& out) {
  if (k == 1) {
    if (n >= 2) {
      current.push_back(n);
      out.push_back(current);
      current.pop_back();
    }
    return;
  }
  for (int64_t f = 2; f * 2 <= n; ++f) {
    if (n % f != 0) continue;
    current.push_back(f);
    Factorizations(n / f, k - 1, current, out);
    current.pop_back();
  }
}

bool HasManual(const Sharding& s) {
  if (s.kind == Sharding::Kind::kManual) return true;
  return s.IsTiled() && std::find(s.subgroups.begin(), s.subgroups.end(), SubgroupKind::kManual) !=
                            s.subgroups.end();
}

int64_t DataTiles(const Sharding& s) {
  int64_t t = 1;
  for (int64_t d = 0; d < s.DataRank(); ++d) t *= s.TilesAlong(d);
  return t;
}

}  // namespace

std::string DeviceListText(const std::vector<int64_t>& devices) {
  const int64_t n = static_cast<int64_t>(devices.size());
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = true;
  for (int64_t i = 0; i < n; ++i) permutation &= sorted[static_cast<size_t>(i)] == i;
  std::string explicit_list;
  for (int64_t i = 0; i < n; ++i)
    explicit_list += (i ? "," : "") + std::to_string(devices[static_cast<size_t>(i)]);
  if (!permutation || n == 0) return explicit_list;
  bool identity = true;
  for (int64_t i = 0; i < n; ++i) identity &= devices[static_cast<size_t>(i)] == i;
  if (identity) return "<=[" + std::to_string(n) + "]";
  if (n > 4096) return explicit_list;
  for (int k = 2; k <= 4; ++k) {
    std::vector<std::vector<int64_t>> dims_list;
    std::vector<int64_t> current;
    Factorizations(n, k, current, dims_list);
    for (const std::vector<int64_t>& dims : dims_list) {
      std::vector<int64_t> perm(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
      while (std::next_permutation(perm.begin(), perm.end())) {
        auto ids = ExpandIotaDeviceList(dims, perm);
        if (!ids.ok() || *ids != devices) continue;
        std::string text = "<=[";
        for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
        text += "]T(";
        for (size_t i = 0; i < perm.size(); ++i) text += (i ? "," : "") + std::to_string(perm[i]);
        return text + ")";
      }
    }
  }
  return explicit_list;
}

std::optional<Sharding> MapShardingDims(const Sharding& s, const std::vector<int64_t>& source_dim) {
  switch (s.kind) {
    case Sharding::Kind::kReplicated:
      return Sharding::Replicated();
    case Sharding::Kind::kManual:
      return Sharding::Manual();
    case Sharding::Kind::kMaximal:
      return Sharding::Maximal(s.device);
    case Sharding::Kind::kTiled:
      break;
    default:
      return std::nullopt;
  }
  const int64_t rank = s.DataRank();
  std::vector<bool> used(static_cast<size_t>(rank), false);
  std::vector<int64_t> perm, tiles;
  for (int64_t src : source_dim) {
    if (src >= 0 && src < rank && !used[static_cast<size_t>(src)]) {
      used[static_cast<size_t>(src)] = true;
      perm.push_back(src);
      tiles.push_back(s.tile_dims[static_cast<size_t>(src)]);
    } else {
      tiles.push_back(1);
    }
  }
  int64_t manual = 1, replicated = 1;
  for (size_t k = 0; k < s.subgroups.size(); ++k) {
    if (s.subgroups[k] == SubgroupKind::kManual) {
      perm.push_back(rank + static_cast<int64_t>(k));
      manual *= s.tile_dims[static_cast<size_t>(rank) + k];
    } else if (s.subgroups[k] != SubgroupKind::kReplicated) {
      return std::nullopt;
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (used[static_cast<size_t>(d)]) continue;
    perm.push_back(d);
    replicated *= s.tile_dims[static_cast<size_t>(d)];
  }
  for (size_t k = 0; k < s.subgroups.size(); ++k) {
    if (s.subgroups[k] != SubgroupKind::kReplicated) continue;
    perm.push_back(rank + static_cast<int64_t>(k));
    replicated *= s.tile_dims[static_cast<size_t>(rank) + k];
  }
  const bool data_tiled = Product(tiles) > 1;
  if (!data_tiled) {
    if (manual == 1) return Sharding::Replicated();
    if (replicated == 1) return Sharding::Manual();
  }
  std::vector<int64_t> devices = TransposeDevices(s.tile_devices, s.tile_dims, perm);
  std::vector<SubgroupKind> subgroups;
  if (manual > 1) {
    tiles.push_back(manual);
    subgroups.push_back(SubgroupKind::kManual);
  }
  if (replicated > 1) {
    tiles.push_back(replicated);
    subgroups.push_back(SubgroupKind::kReplicated);
  }
  Sharding out =
      Sharding::TiledWithDevices(std::move(tiles), std::move(devices), std::move(subgroups));
  out.device_list_text = DeviceListText(out.tile_devices);
  return out;
}

std::optional<Sharding> MergeShardings(const Sharding& a, const Sharding& b) {
  if (!a.IsTiled() || !b.IsTiled()) return std::nullopt;
  for (const Sharding* s : {&a, &b})
    for (SubgroupKind kind : s->subgroups)
      if (kind != SubgroupKind::kReplicated) return std::nullopt;
  const int64_t rank = a.DataRank();
  const size_t n = a.tile_devices.size();
  if (b.DataRank() != rank || b.tile_devices.size() != n || n == 0) return std::nullopt;
  if (Product(a.tile_dims) != static_cast<int64_t>(n) ||
      Product(b.tile_dims) != static_cast<int64_t>(n))
    return std::nullopt;
  // Each device's data tile under `s` (positions are row-major over all tile dims).
  auto tiles_of = [rank](const Sharding& s) {
    std::unordered_map<int64_t, std::vector<int64_t>> out;
    std::vector<int64_t> index(s.tile_dims.size(), 0);
    for (int64_t device : s.tile_devices) {
      if (!out.emplace(device, std::vector<int64_t>(index.begin(), index.begin() + rank)).second)
        return std::unordered_map<int64_t, std::vector<int64_t>>{};  // a device twice
      for (size_t i = index.size(); i-- > 0;) {
        if (++index[i] < s.tile_dims[i]) break;
        index[i] = 0;
      }
    }
    return out;
  };
  const auto ta = tiles_of(a), tb = tiles_of(b);
  if (ta.size() != n || tb.size() != n) return std::nullopt;
  // A dim split by both must be split alike (same tiles, same devices in each): checked
  // per device below; a dim split by one takes that one's tiles.
  std::vector<int64_t> tiles(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t x = a.TilesAlong(d), y = b.TilesAlong(d);
    if (x != y && x != 1 && y != 1) return std::nullopt;
    tiles[static_cast<size_t>(d)] = std::max(x, y);
  }
  const int64_t data_tiles = Product(tiles);
  if (static_cast<int64_t>(n) % data_tiles != 0) return std::nullopt;
  const int64_t copies = static_cast<int64_t>(n) / data_tiles;
  // Every device goes where both put it; each merged tile must then hold the same number
  // of devices, else no tile assignment satisfies both (the parts split over shared axes).
  std::vector<std::vector<int64_t>> holders(static_cast<size_t>(data_tiles));
  for (const auto& [device, ia] : ta) {
    auto it = tb.find(device);
    if (it == tb.end()) return std::nullopt;
    const std::vector<int64_t>& ib = it->second;
    int64_t linear = 0;
    for (int64_t d = 0; d < rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      if (a.TilesAlong(d) > 1 && b.TilesAlong(d) > 1 && ia[k] != ib[k]) return std::nullopt;
      linear = linear * tiles[k] + (a.TilesAlong(d) > 1 ? ia[k] : ib[k]);
    }
    holders[static_cast<size_t>(linear)].push_back(device);
  }
  std::vector<int64_t> devices;
  for (std::vector<int64_t>& h : holders) {
    if (static_cast<int64_t>(h.size()) != copies) return std::nullopt;
    std::sort(h.begin(), h.end());  // the order among copies means nothing; keep it short
    devices.insert(devices.end(), h.begin(), h.end());
  }
  std::vector<SubgroupKind> subgroups;
  if (copies > 1) {
    tiles.push_back(copies);
    subgroups.push_back(SubgroupKind::kReplicated);
  }
  Sharding out =
      Sharding::TiledWithDevices(std::move(tiles), std::move(devices), std::move(subgroups));
  out.device_list_text = DeviceListText(out.tile_devices);
  return out;
}

std::vector<int64_t> ReshapeDimSources(const Shape& from, const Shape& to,
                                       const Sharding& sharding) {
  std::vector<int64_t> sources(static_cast<size_t>(to.rank()), -1);
  if (from.ElementCount() != to.ElementCount() || from.ElementCount() <= 0) return sources;
  const int64_t rin = from.rank(), rout = to.rank();
  int64_t i = 0, j = 0;
  while (i < rin && j < rout) {
    if (from.dimensions(i) == 1) {
      ++i;
      continue;
    }
    if (to.dimensions(j) == 1) {
      ++j;
      continue;
    }
    const int64_t i0 = i, j0 = j;
    int64_t pi = from.dimensions(i), pj = to.dimensions(j);
    while (pi != pj) {
      if (pi < pj) {
        if (++i >= rin) return sources;
        pi *= from.dimensions(i);
      } else {
        if (++j >= rout) return sources;
        pj *= to.dimensions(j);
      }
    }
    // The group from[i0..i] == to[j0..j]; the major dims carry whole tiles when both
    // divide by the tile count (each tile is then one contiguous run of the group).
    const int64_t t = sharding.TilesAlong(i0);
    if (t > 1 && from.dimensions(i0) % t == 0 && to.dimensions(j0) % t == 0)
      sources[static_cast<size_t>(j0)] = i0;
    ++i;
    ++j;
  }
  return sources;
}

// --- open dims and region boundaries ------------------------------------------------------

StatusOr<std::vector<int64_t>> UnspecifiedDimsOf(const Instruction& inst) {
  std::vector<int64_t> dims;
  if (inst.opcode() != Opcode::kCustomCall || !inst.has_attributes()) return dims;
  const InstructionAttributes& a = inst.attrs();
  const std::string& target = a.custom_call_target;
  if (target != "Sharding" && target != "SPMDFullToShardShape" && target != "SPMDShardToFullShape")
    return dims;
  if (!a.has_backend_config) return dims;
  std::string_view text = a.backend_config;
  constexpr std::string_view kKey = "unspecified_dims=[";
  if (text.empty()) return dims;
  auto bad = [&](const std::string& why) {
    return InvalidArgument("%" + inst.name() + ": backend_config \"" + std::string(text) + "\": " + why);
  };
  if (text.substr(0, kKey.size()) != kKey || text.back() != ']')
    return bad("expected unspecified_dims=[d, ...]");
  std::string_view list = text.substr(kKey.size(), text.size() - kKey.size() - 1);
  const int64_t rank = inst.shape().IsArray() ? inst.shape().rank() : -1;
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string_view item = list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    int64_t d = 0;
    if (item.empty() || item.size() > 9) return bad("expected a dim number, got '" + std::string(item) + "'");
    for (char c : item) {
      if (c < '0' || c > '9') return bad("expected a dim number, got '" + std::string(item) + "'");
      d = d * 10 + (c - '0');
    }
    if (d >= rank) return bad("dim " + std::to_string(d) + " is not a dim of " + inst.shape().ToString(false));
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) return bad("dim " + std::to_string(d) + " named twice");
    dims.push_back(d);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

namespace {

// Each device's data tile and manual group under a sharding of `rank` data dims.
struct DeviceView {
  std::vector<int64_t> tiles;               // per data dim
  std::vector<std::vector<int64_t>> coord;  // per device, per data dim
  std::vector<int64_t> group;               // per device: its manual group's smallest device, or -1
};

std::optional<DeviceView> ViewOf(const Sharding& s, int64_t rank, int64_t devices) {
  DeviceView v;
  v.tiles.assign(static_cast<size_t>(rank), 1);
  v.coord.assign(static_cast<size_t>(devices), std::vector<int64_t>(static_cast<size_t>(rank), 0));
  v.group.assign(static_cast<size_t>(devices), -1);
  if (s.kind == Sharding::Kind::kReplicated) return v;
  if (s.kind == Sharding::Kind::kManual) {
    for (int64_t d = 0; d < devices; ++d) v.group[static_cast<size_t>(d)] = d;
    return v;
  }
  if (!s.IsTiled() || s.DataRank() != rank || static_cast<int64_t>(s.tile_devices.size()) != devices)
    return std::nullopt;
  for (int64_t k = 0; k < rank; ++k) v.tiles[static_cast<size_t>(k)] = s.tile_dims[static_cast<size_t>(k)];
  std::vector<int64_t> manual_dims;
  for (size_t k = 0; k < s.subgroups.size(); ++k) {
    if (s.subgroups[k] == SubgroupKind::kManual) {
      if (s.tile_dims[static_cast<size_t>(rank) + k] > 1) manual_dims.push_back(rank + static_cast<int64_t>(k));
    } else if (s.subgroups[k] != SubgroupKind::kReplicated) {
      return std::nullopt;
    }
  }
  // One walk over the tile grid (row-major, as tile_devices lists it): each device's index.
  std::map<std::vector<int64_t>, int64_t> group_of_key;
  std::vector<std::vector<int64_t>> keys(static_cast<size_t>(devices));
  std::vector<bool> seen(static_cast<size_t>(devices), false);
  std::vector<int64_t> index(s.tile_dims.size(), 0);
  for (int64_t d : s.tile_devices) {
    if (d < 0 || d >= devices || seen[static_cast<size_t>(d)]) return std::nullopt;
    seen[static_cast<size_t>(d)] = true;
    for (int64_t k = 0; k < rank; ++k) v.coord[static_cast<size_t>(d)][static_cast<size_t>(k)] = index[static_cast<size_t>(k)];
    if (!manual_dims.empty()) {
      std::vector<int64_t>& key = keys[static_cast<size_t>(d)];
      for (int64_t m : manual_dims) key.push_back(index[static_cast<size_t>(m)]);
      auto [it, fresh] = group_of_key.emplace(key, d);
      if (!fresh) it->second = std::min(it->second, d);
    }
    for (size_t k = index.size(); k-- > 0;) {
      if (++index[k] < s.tile_dims[k]) break;
      index[k] = 0;
    }
  }
  if (!manual_dims.empty())
    for (int64_t d = 0; d < devices; ++d) v.group[static_cast<size_t>(d)] = group_of_key.at(keys[static_cast<size_t>(d)]);
  return v;
}

// The sharding that puts each device in its tile and manual group, when every (tile,
// group) pair has the same number of devices; nullopt otherwise.
std::optional<Sharding> FromView(const DeviceView& v) {
  const int64_t devices = static_cast<int64_t>(v.group.size());
  const int64_t rank = static_cast<int64_t>(v.tiles.size());
  std::vector<int64_t> groups;
  for (int64_t g : v.group)
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  std::sort(groups.begin(), groups.end());
  const bool manual = groups.size() > 1;
  if (manual && groups[0] < 0) return std::nullopt;  // some devices in no group
  const int64_t n_groups = manual ? static_cast<int64_t>(groups.size()) : 1;
  const int64_t data = Product(v.tiles);
  if (data <= 0 || devices % (data * n_groups) != 0) return std::nullopt;
  const int64_t copies = devices / (data * n_groups);
  // Slot (linear tile, group index) -> devices, ascending.
  std::vector<std::vector<int64_t>> slots(static_cast<size_t>(data * n_groups));
  for (int64_t d = 0; d < devices; ++d) {
    int64_t linear = 0;
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t c = v.coord[static_cast<size_t>(d)][static_cast<size_t>(k)];
      if (c < 0 || c >= v.tiles[static_cast<size_t>(k)]) return std::nullopt;
      linear = linear * v.tiles[static_cast<size_t>(k)] + c;
    }
    const int64_t g = manual ? std::lower_bound(groups.begin(), groups.end(), v.group[static_cast<size_t>(d)]) - groups.begin() : 0;
    slots[static_cast<size_t>(linear * n_groups + g)].push_back(d);
  }
  std::vector<int64_t> list;
  for (const auto& slot : slots) {
    if (static_cast<int64_t>(slot.size()) != copies) return std::nullopt;
    list.insert(list.end(), slot.begin(), slot.end());
  }
  if (data == 1 && !manual) return Sharding::Replicated();
  if (data == 1 && copies == 1) return Sharding::Manual();
  std::vector<int64_t> dims = v.tiles;
  std::vector<SubgroupKind> subgroups;
  if (manual) {
    dims.push_back(n_groups);
    subgroups.push_back(SubgroupKind::kManual);
  }
  if (copies > 1) {
    dims.push_back(copies);
    subgroups.push_back(SubgroupKind::kReplicated);
  }
  Sharding out = Sharding::TiledWithDevices(std::move(dims), std::move(list), std::move(subgroups));
  out.device_list_text = DeviceListText(out.tile_devices);
  return out;
}

int64_t RankOf(const Sharding& s) { return s.IsTiled() ? s.DataRank() : -1; }

// The rank both shardings agree on (a tiled one's data rank), or `fallback`.
int64_t CommonRank(const Sharding& a, const Sharding& b, int64_t fallback) {
  if (RankOf(a) >= 0) return RankOf(a);
  if (RankOf(b) >= 0) return RankOf(b);
  return fallback;
}

// Per dim, how many of `global0`'s tiles the manual axes make, and each device's index
// among them (the major part of its tile index along the dim).
struct ManualSplit {
  std::vector<int64_t> tiles;
  std::vector<std::vector<int64_t>> index;  // per device, per dim
};

std::optional<ManualSplit> ManualSplitOf(const DeviceView& g0, const DeviceView& l0) {
  ManualSplit m;
  const size_t rank = g0.tiles.size();
  if (l0.tiles.size() != rank) return std::nullopt;
  for (size_t k = 0; k < rank; ++k) {
    if (g0.tiles[k] % l0.tiles[k] != 0) return std::nullopt;
    m.tiles.push_back(g0.tiles[k] / l0.tiles[k]);
  }
  for (size_t d = 0; d < g0.coord.size(); ++d) {
    m.index.emplace_back();
    for (size_t k = 0; k < rank; ++k) m.index.back().push_back(g0.coord[d][k] / l0.tiles[k]);
  }
  return m;
}

}  // namespace

bool RefinesOpenSharding(const Sharding& candidate, const Sharding& floor,
                         const std::vector<bool>& open, int64_t devices) {
  const int64_t rank = static_cast<int64_t>(open.size());
  std::optional<DeviceView> c = ViewOf(candidate, rank, devices);
  std::optional<DeviceView> f = ViewOf(floor, rank, devices);
  if (!c || !f || c->group != f->group) return false;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t ct = c->tiles[static_cast<size_t>(k)], ft = f->tiles[static_cast<size_t>(k)];
    if (open[static_cast<size_t>(k)] ? ct % ft != 0 : ct != ft) return false;
    for (int64_t d = 0; d < devices; ++d)
      if (c->coord[static_cast<size_t>(d)][static_cast<size_t>(k)] / (ct / ft) != f->coord[static_cast<size_t>(d)][static_cast<size_t>(k)])
        return false;
  }
  return true;
}

std::optional<Sharding> EnterManualRegion(const Sharding& global, const Sharding& global0,
                                          const Sharding& local0, int64_t devices) {
  const int64_t rank = CommonRank(global0, local0, RankOf(global));
  if (rank < 0) return std::nullopt;
  std::optional<DeviceView> g = ViewOf(global, rank, devices), g0 = ViewOf(global0, rank, devices),
                            l0 = ViewOf(local0, rank, devices);
  if (!g || !g0 || !l0) return std::nullopt;
  for (int64_t x : g->group) if (x >= 0) return std::nullopt;
  std::optional<ManualSplit> m = ManualSplitOf(*g0, *l0);
  if (!m) return std::nullopt;
  DeviceView l;
  l.group = l0->group;
  for (int64_t k = 0; k < rank; ++k) {
    const int64_t t = g->tiles[static_cast<size_t>(k)], mt = m->tiles[static_cast<size_t>(k)];
    if (t % mt != 0) return std::nullopt;
    l.tiles.push_back(t / mt);
  }
  for (int64_t d = 0; d < devices; ++d) {
    l.coord.emplace_back();
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t c = g->coord[static_cast<size_t>(d)][static_cast<size_t>(k)], lt = l.tiles[static_cast<size_t>(k)];
      if (c / lt != m->index[static_cast<size_t>(d)][static_cast<size_t>(k)]) return std::nullopt;
      l.coord.back().push_back(c % lt);
    }
  }
  return FromView(l);
}

std::optional<Sharding> LeaveManualRegion(const Sharding& local, const Sharding& global0,
                                          const Sharding& local0, int64_t devices) {
  const int64_t rank = CommonRank(global0, local0, RankOf(local));
  if (rank < 0) return std::nullopt;
  std::optional<DeviceView> l = ViewOf(local, rank, devices), g0 = ViewOf(global0, rank, devices),
                            l0 = ViewOf(local0, rank, devices);
  if (!l || !g0 || !l0 || l->group != l0->group) return std::nullopt;
  std::optional<ManualSplit> m = ManualSplitOf(*g0, *l0);
  if (!m) return std::nullopt;
  DeviceView g;
  g.group.assign(static_cast<size_t>(devices), -1);
  for (int64_t k = 0; k < rank; ++k) g.tiles.push_back(m->tiles[static_cast<size_t>(k)] * l->tiles[static_cast<size_t>(k)]);
  for (int64_t d = 0; d < devices; ++d) {
    g.coord.emplace_back();
    for (int64_t k = 0; k < rank; ++k)
      g.coord.back().push_back(m->index[static_cast<size_t>(d)][static_cast<size_t>(k)] * l->tiles[static_cast<size_t>(k)] +
                               l->coord[static_cast<size_t>(d)][static_cast<size_t>(k)]);
  }
  return FromView(g);
}

// --- 2. the graph ------------------------------------------------------------------------

// Which dims of an fft, reduce-window, select-and-scatter or topk result pass through
// untouched (empty: the op is not one the rule reads).
std::vector<bool> DimsKeptByWindowOp(const Instruction& op) {
  const Instruction* inst = &op;
  const Shape& in = inst->operand(0)->shape();
  if (!in.IsArray()) return {};
  const int64_t rank = in.rank();
  std::vector<bool> keep(static_cast<size_t>(rank), true);
  const InstructionAttributes& a = inst->attrs();
  switch (inst->opcode()) {
    case Opcode::kFft: {
      const int64_t n = static_cast<int64_t>(a.fft_length.size());
      if (n > rank) return {};
      for (int64_t k = rank - n; k < rank; ++k) keep[static_cast<size_t>(k)] = false;
      return keep;
    }
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter: {
      if (!a.window || static_cast<int64_t>(a.window->dimensions.size()) != rank) return {};
      for (int64_t k = 0; k < rank; ++k) {
        const WindowDimension& w = a.window->dimensions[static_cast<size_t>(k)];
        keep[static_cast<size_t>(k)] = w.size == 1 && w.stride == 1 && w.padding_low == 0 && w.padding_high == 0 &&
                                        w.window_dilation == 1 && w.base_dilation == 1;
      }
      return keep;
    }
    case Opcode::kTopK:
      if (rank == 0) return {};
      keep[static_cast<size_t>(rank - 1)] = false;
      return keep;
    default:
      return {};
  }
}


namespace {

// Which of BuildEdges' rules an instruction's edges come from.
enum class EdgeFamily {
  kNone, kElementwise, kLayout, kDot, kReduce, kConvolution, kGather, kScatter, kKeptDims,
  kTuple, kControlFlow, kCustomCall, kCollective
};

EdgeFamily FamilyOf(const Instruction& inst) {
  const Opcode op = inst.opcode();
  if (IsElementwise(op) || op == Opcode::kMap ||
      (op == Opcode::kCustomCall && inst.attrs().custom_call_target == "Sharding"))
    return EdgeFamily::kElementwise;
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kTranspose:
      return EdgeFamily::kLayout;
    case Opcode::kDot:
      return EdgeFamily::kDot;
    case Opcode::kReduce:
      return EdgeFamily::kReduce;
    case Opcode::kConvolution:
      return EdgeFamily::kConvolution;
    case Opcode::kGather:
      return EdgeFamily::kGather;
    case Opcode::kScatter:
      return EdgeFamily::kScatter;
    case Opcode::kSlice:
    case Opcode::kPad:
    case Opcode::kConcatenate:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kReverse:
    case Opcode::kSort:
    case Opcode::kFft:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kTopK:
      return EdgeFamily::kKeptDims;
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
    case Opcode::kOptimizationBarrier:
      return EdgeFamily::kTuple;
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
      return EdgeFamily::kControlFlow;
    case Opcode::kCustomCall:
      return EdgeFamily::kCustomCall;
    case Opcode::kAllReduce:
    case Opcode::kCollectivePermute:
    case Opcode::kAllGather:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
      return EdgeFamily::kCollective;
    default:
      return EdgeFamily::kNone;
  }
}

}  // namespace

bool PropagationReaches(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kRng:
      return true;  // they take their users' sharding
    case Opcode::kParameter:  // of a called computation: linked to its caller's operand
      return inst.parent() != nullptr && inst.parent()->parent() != nullptr &&
             inst.parent() != inst.parent()->parent()->entry();
    case Opcode::kCustomCall:  // only Sharding: other custom calls' rules are their own
      return FamilyOf(inst) == EdgeFamily::kElementwise;
    default:
      return FamilyOf(inst) != EdgeFamily::kNone;
  }
}

namespace {

using Rule = std::function<std::optional<Sharding>(const Sharding&)>;

struct Edge {
  int64_t src = 0;  // node
  int64_t dst = 0;
  int order = 0;  // 0: from an operand, 1: from a user, 2: through a call boundary
  int64_t index = 0;
  Rule rule;
  const char* what = "";
  // Forward through a broadcast: loses ties to users' candidates, as in XLA, which
  // propagates forward through broadcasts last so that a broadcast is built the way its
  // users want it rather than resharded after.
  bool weak = false;
};

struct Score {
  int manual = 0;
  int tiled = 0;
  int fixed = 0;
  int64_t tiles = 1;
  int strong = 1;  // 0: from a weak edge
  auto operator<=>(const Score&) const = default;
};

Score ScoreOf(const Sharding& s, bool from_fixed, bool strong = true) {
  Score score;
  score.strong = strong ? 1 : 0;
  score.manual = HasManual(s) ? 1 : 0;
  score.tiles = DataTiles(s);
  score.tiled = score.tiles > 1 ? 1 : 0;
  score.fixed = from_fixed ? 1 : 0;
  return score;
}

void CollectLeaves(const Shape& shape, std::vector<const Shape*>& out) {
  if (!shape.IsTuple()) {
    out.push_back(&shape);
    return;
  }
  for (const Shape& e : shape.tuple_shapes()) CollectLeaves(e, out);
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& e : shape.tuple_shapes()) n += LeafCount(e);
  return n;
}

int64_t LeafOffset(const Shape& shape, int64_t element) {
  int64_t n = 0;
  for (int64_t i = 0; i < element && i < shape.tuple_size(); ++i)
    n += LeafCount(shape.tuple_shapes(i));
  return n;
}

Rule Identity() {
  return [](const Sharding& s) -> std::optional<Sharding> { return s; };
}

Rule Dims(std::vector<int64_t> sources) {
  return [sources = std::move(sources)](const Sharding& s) { return MapShardingDims(s, sources); };
}

Rule Reshape(Shape from, Shape to) {
  return [from = std::move(from), to = std::move(to)](const Sharding& s) {
    return MapShardingDims(s, ReshapeDimSources(from, to, s));
  };
}

bool SortDimCanMove(const Sharding& s, const Shape& shape, int64_t dim) {
  std::vector<int64_t> tiles;
  for (int64_t j = 0; j < shape.rank(); ++j) tiles.push_back(s.TilesAlong(j));
  return tiles[static_cast<size_t>(dim)] <= 1 || DimTakingTheSortSplit(tiles, shape, dim).has_value();
}

// From a value of shape `from` to one of shape `to` (same rank) whose dims of different
// sizes are cut, padded or joined: every dim keeps its tiles where both sizes have at
// least one element a tile, as XLA's propagation keeps them (the partitioner reads a
// changed dim's windows from the devices that hold them where the tiles are even, and
// computes it whole where they are not); the others become one tile.
Rule KeepSplits(const Shape& from, const Shape& to) {
  return [from, to](const Sharding& s) -> std::optional<Sharding> {
    if (!s.IsTiled()) return MapShardingDims(s, {});
    if (s.DataRank() != from.rank() || from.rank() != to.rank()) return std::nullopt;
    std::vector<int64_t> sources;
    for (int64_t d = 0; d < from.rank(); ++d) {
      const int64_t t = s.TilesAlong(d);
      const bool same = from.dimensions(d) == to.dimensions(d);
      sources.push_back(same || (from.dimensions(d) >= t && to.dimensions(d) >= t) ? d : -1);
    }
    return MapShardingDims(s, sources);
  };
}

// `s` with the dims it splits unevenly over `shape` made one tile.
Sharding EvenSplitsOnly(const Sharding& s, const Shape& shape) {
  if (!s.IsTiled() || !shape.IsArray() || s.DataRank() != shape.rank()) return s;
  std::vector<int64_t> sources;
  bool uneven = false;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    const bool even = shape.dimensions(d) % s.TilesAlong(d) == 0;
    uneven = uneven || !even;
    sources.push_back(even ? d : -1);
  }
  if (!uneven) return s;
  std::optional<Sharding> mapped = MapShardingDims(s, sources);
  return mapped ? *mapped : s;
}

// Dims kept as they are where `keep[d]`, others one tile.
std::vector<int64_t> KeepDims(const std::vector<bool>& keep) {
  std::vector<int64_t> sources;
  for (size_t d = 0; d < keep.size(); ++d)
    sources.push_back(keep[d] ? static_cast<int64_t>(d) : -1);
  return sources;
}

struct ClassState {
  std::optional<Sharding> sharding;
  bool fixed = false;
  // Given with open dims: the sharding may only become one that refines `floor`.
  std::optional<Sharding> floor;
  std::vector<bool> open;
  Score score;
  std::string reason;
};

class Propagator {
 public:
  Propagator(Module& module, std::vector<std::string>& log) : module_(module), log_(log) {}
  StatusOr<bool> Run();

 private:
  void CollectScope(Computation* comp);
  int64_t Node(const Instruction* inst, int64_t leaf) const { return base_.at(inst) + leaf; }
  int64_t Find(int64_t node) {
    while (parent_[static_cast<size_t>(node)] != node) {
      parent_[static_cast<size_t>(node)] =
          parent_[static_cast<size_t>(parent_[static_cast<size_t>(node)])];
      node = parent_[static_cast<size_t>(node)];
    }
    return node;
  }
  void Union(int64_t a, int64_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }
  void AddEdge(const Instruction* from, int64_t from_leaf, const Instruction* to, int64_t to_leaf,
               int order, int64_t index, Rule rule, const char* what);
  // Both ways between an operand and its user, array leaves.
  void Link(const Instruction* user, int64_t operand_index, int64_t user_leaf, int64_t operand_leaf,
            Rule forward, Rule backward, const char* what);
  // Leaf-by-leaf identity between two same-shaped values (tuples included).
  void LinkLeaves(const Instruction* a, int64_t a_offset, const Instruction* b, int64_t b_offset,
                  int64_t count, int order, const char* what);
  void BuildEdges(const Instruction* inst);
  // BuildEdges per op family.
  void LayoutEdges(const Instruction* inst);
  void DotEdges(const Instruction* inst);
  void ReduceEdges(const Instruction* inst);
  void ConvolutionEdges(const Instruction* inst);
  void GatherEdges(const Instruction* inst);
  void ScatterEdges(const Instruction* inst);
  void KeptDimsEdges(const Instruction* inst);
  void TieLeaves(const Instruction* inst);
  void ShardingRuleEdges(const Instruction* inst);
  void TupleEdges(const Instruction* inst);
  void ControlFlowEdges(const Instruction* inst);
  bool BoundaryEdges(const Instruction* inst);
  void CollectiveEdges(const Instruction* inst);
  Status Seed();
  // Whether `candidate` may replace an open class's sharding: it refines the floor, or
  // does once the dims the floor fixes are made whole in it (then `candidate` is that).
  bool WithinFloor(const ClassState& st, Sharding& candidate) const;
  void Solve();
  bool Accepts(int64_t node, const Sharding& s) const;
  bool Write();

  Module& module_;
  std::vector<std::string>& log_;
  std::vector<Computation*> scope_;
  std::vector<const Instruction*> instructions_;  // scope, post order per computation
  std::unordered_map<const Instruction*, int64_t> base_;
  std::vector<const Instruction*> node_inst_;
  std::vector<const Shape*> node_shape_;
  std::vector<int64_t> parent_;
  std::vector<Edge> edges_;
  std::vector<ClassState> state_;  // by class root
  std::unordered_set<const Instruction*> had_sharding_;
  std::unordered_set<const Instruction*> open_;  // given with open dims: written again
  int64_t devices_ = 1;
  // Region boundaries with open dims: the nodes outside and inside, their given shardings.
  struct Boundary {
    int64_t global = 0, local = 0;
    Sharding global0, local0;
    const Instruction* inst = nullptr;
  };
  std::vector<Boundary> boundaries_;
  // Makes each boundary's two sides agree (each side takes its best candidate on its own)
  // and fixes them; whether any changed.
  bool AgreeAtBoundaries();
};

void Propagator::CollectScope(Computation* comp) {
  if (comp == nullptr || std::find(scope_.begin(), scope_.end(), comp) != scope_.end()) return;
  scope_.push_back(comp);
  for (const auto& inst : comp->instructions()) {
    Opcode op = inst->opcode();
    if (op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall) {
      for (Computation* callee : inst->called_computations()) CollectScope(callee);
    }
  }
}

void Propagator::AddEdge(const Instruction* from, int64_t from_leaf, const Instruction* to,
                         int64_t to_leaf, int order, int64_t index, Rule rule, const char* what) {
  if (!base_.count(from) || !base_.count(to)) return;
  Edge e;
  e.src = Node(from, from_leaf);
  e.dst = Node(to, to_leaf);
  if (!node_shape_[static_cast<size_t>(e.src)]->IsArray() ||
      !node_shape_[static_cast<size_t>(e.dst)]->IsArray())
    return;
  e.order = order;
  e.index = index;
  e.rule = std::move(rule);
  e.what = what;
  edges_.push_back(std::move(e));
}

void Propagator::Link(const Instruction* user, int64_t operand_index, int64_t user_leaf,
                      int64_t operand_leaf, Rule forward, Rule backward, const char* what) {
  const Instruction* operand = user->operand(operand_index);
  if (forward)
    AddEdge(operand, operand_leaf, user, user_leaf, 0, operand_index, std::move(forward), what);
  if (backward)
    AddEdge(user, user_leaf, operand, operand_leaf, 1, operand_index, std::move(backward), what);
}

void Propagator::LinkLeaves(const Instruction* a, int64_t a_offset, const Instruction* b,
                            int64_t b_offset, int64_t count, int order, const char* what) {
  for (int64_t k = 0; k < count; ++k) {
    AddEdge(a, a_offset + k, b, b_offset + k, order, k, Identity(), what);
    AddEdge(b, b_offset + k, a, a_offset + k, order, k, Identity(), what);
  }
}

// Whether operand k of `inst` is an array of the rank of `inst`'s (array) result.
bool SameRank(const Instruction* inst, int64_t k) {
  const Shape& s = inst->operand(k)->shape();
  const Shape& shape = inst->shape();
  return s.IsArray() && shape.IsArray() && s.rank() == shape.rank();
}

void Propagator::BuildEdges(const Instruction* inst) {
  switch (FamilyOf(*inst)) {
    case EdgeFamily::kElementwise:
      for (int64_t k = 0; k < inst->operand_count(); ++k)
        if (SameRank(inst, k)) Link(inst, k, 0, 0, Identity(), Identity(), "elementwise");
      return;
    case EdgeFamily::kLayout:
      return LayoutEdges(inst);
    case EdgeFamily::kDot:
      return DotEdges(inst);
    case EdgeFamily::kReduce:
      return ReduceEdges(inst);
    case EdgeFamily::kConvolution:
      return ConvolutionEdges(inst);
    case EdgeFamily::kGather:
      return GatherEdges(inst);
    case EdgeFamily::kScatter:
      return ScatterEdges(inst);
    case EdgeFamily::kKeptDims:
      return KeptDimsEdges(inst);
    case EdgeFamily::kTuple:
      return TupleEdges(inst);
    case EdgeFamily::kControlFlow:
      return ControlFlowEdges(inst);
    case EdgeFamily::kCustomCall:
      if (BoundaryEdges(inst)) return;
      return ShardingRuleEdges(inst);
    case EdgeFamily::kCollective:
      return CollectiveEdges(inst);
    case EdgeFamily::kNone:
      return;
  }
}

// The program's own collectives (in a manual region, over its manual axes): all-reduce
// and collective-permute keep every dim's split, all-gather, reduce-scatter and
// all-to-all every dim but the one they move data along (the partitioner runs them on
// the tiles their groups' devices share).
void Propagator::CollectiveEdges(const Instruction* inst) {
  const Opcode op = inst->opcode();
  if (op == Opcode::kAllReduce || op == Opcode::kCollectivePermute) {
    const bool tuple = inst->shape().IsTuple();
    if (tuple && inst->shape().tuple_size() != inst->operand_count()) return;
    if (!tuple && inst->operand_count() != 1) return;
    for (int64_t k = 0; k < inst->operand_count(); ++k) {
      const Shape& in = inst->operand(k)->shape();
      const Shape& out = tuple ? inst->shape().tuple_shapes(k) : inst->shape();
      if (!in.IsArray() || !out.IsArray() || in.rank() != out.rank()) continue;
      Link(inst, k, tuple ? k : 0, 0, Identity(), Identity(), "collective");
    }
    return;
  }
  if (inst->operand_count() != 1 || !SameRank(inst, 0) || inst->dimensions().size() != 1) return;
  const int64_t along = inst->dimensions()[0];
  std::vector<bool> keep(static_cast<size_t>(inst->shape().rank()), true);
  if (along < 0 || along >= inst->shape().rank()) return;
  keep[static_cast<size_t>(along)] = false;
  Link(inst, 0, 0, 0, Dims(KeepDims(keep)), Dims(KeepDims(keep)), "collective");
}

// SPMDFullToShardShape / SPMDShardToFullShape with open dims on either side: the two
// sides move together, each device's tile the same (the partitioner moves no data there).
bool Propagator::BoundaryEdges(const Instruction* inst) {
  const std::string& target = inst->attrs().custom_call_target;
  const bool enter = target == "SPMDFullToShardShape";
  if ((!enter && target != "SPMDShardToFullShape") || inst->operand_count() != 1 ||
      !inst->shape().IsArray() || !inst->operand(0)->shape().IsArray())
    return false;
  const Instruction* operand = inst->operand(0);
  StatusOr<std::vector<int64_t>> open_here = UnspecifiedDimsOf(*inst);
  StatusOr<std::vector<int64_t>> open_there = UnspecifiedDimsOf(*operand);
  if (!open_here.ok() || !open_there.ok() || (open_here->empty() && open_there->empty())) return false;
  StatusOr<std::optional<Sharding>> here = ShardingOf(*inst);
  StatusOr<std::optional<Sharding>> there = ShardingOf(*operand);
  if (!here.ok() || !there.ok() || !here->has_value() || !there->has_value()) return false;
  const Sharding global0 = enter ? **there : **here;
  const Sharding local0 = enter ? **here : **there;
  const int64_t devices = devices_;
  Rule in = [=](const Sharding& g) { return EnterManualRegion(g, global0, local0, devices); };
  Rule out = [=](const Sharding& l) { return LeaveManualRegion(l, global0, local0, devices); };
  Link(inst, 0, 0, 0, enter ? in : out, enter ? out : in, "manual region boundary");
  Boundary b;
  b.global = enter ? Node(operand, 0) : Node(inst, 0);
  b.local = enter ? Node(inst, 0) : Node(operand, 0);
  b.global0 = global0;
  b.local0 = local0;
  b.inst = inst;
  boundaries_.push_back(std::move(b));
  return true;
}

bool Propagator::AgreeAtBoundaries() {
  bool changed = false;
  for (const Boundary& b : boundaries_) {
    ClassState& g = state_[static_cast<size_t>(Find(b.global))];
    ClassState& l = state_[static_cast<size_t>(Find(b.local))];
    const Sharding gs = g.sharding ? *g.sharding : b.global0;
    const Sharding ls = l.sharding ? *l.sharding : b.local0;
    std::optional<Sharding> entered = EnterManualRegion(gs, b.global0, b.local0, devices_);
    if (!(entered && entered->SameMeaning(ls))) {
      // The side with more tiles decides, where the other may follow; else both given.
      auto fits = [&](const ClassState& st, std::optional<Sharding>& s) {
        return s.has_value() && !st.fixed && WithinFloor(st, *s);
      };
      std::optional<Sharding> from_global = entered;
      std::optional<Sharding> from_local = LeaveManualRegion(ls, b.global0, b.local0, devices_);
      const bool inward = fits(l, from_global);
      const bool outward = fits(g, from_local);
      std::string why;
      if (outward && (!inward || DataTiles(*from_local) > DataTiles(gs))) {
        g.sharding = *from_local;
        why = "its region side's split";
      } else if (inward) {
        l.sharding = *from_global;
        why = "its outside's split";
      } else {
        g.sharding = b.global0;
        l.sharding = b.local0;
        why = "the two sides' given shardings";
      }
      const std::string reason = "region boundary %" + b.inst->name() + " keeps " + why;
      g.reason = reason;
      l.reason = reason;
      log_.push_back("%" + b.inst->name() + ": the boundary's two sides took different splits; " + why + " kept");
      changed = true;
    }
    g.fixed = true;
    l.fixed = true;
  }
  return changed;
}

bool Propagator::WithinFloor(const ClassState& st, Sharding& candidate) const {
  if (!st.floor) return true;
  if (RefinesOpenSharding(candidate, *st.floor, st.open, devices_)) return true;
  std::vector<int64_t> sources;
  for (size_t k = 0; k < st.open.size(); ++k) sources.push_back(st.open[k] ? static_cast<int64_t>(k) : -1);
  std::optional<Sharding> projected = MapShardingDims(candidate, sources);
  if (!projected || !RefinesOpenSharding(*projected, *st.floor, st.open, devices_)) return false;
  candidate = std::move(*projected);
  return true;
}

// broadcast, reshape / bitcast, transpose: dims map one to one where they survive; a
// broadcast's forward edge is weak.
void Propagator::LayoutEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  switch (inst->opcode()) {
    case Opcode::kBroadcast: {
      const std::vector<int64_t>& dims = inst->dimensions();
      std::vector<int64_t> fwd(static_cast<size_t>(shape.rank()), -1), bwd;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] >= 0 && dims[i] < shape.rank())
          fwd[static_cast<size_t>(dims[i])] = static_cast<int64_t>(i);
        bwd.push_back(dims[i]);
      }
      const size_t first = edges_.size();
      Link(inst, 0, 0, 0, Dims(fwd), Dims(bwd), "broadcast");
      for (size_t k = first; k < edges_.size(); ++k) edges_[k].weak = edges_[k].order == 0;
      return;
    }
    case Opcode::kReshape:
    case Opcode::kBitcast: {
      const Shape& from = inst->operand(0)->shape();
      if (!from.IsArray() || !shape.IsArray() || from.element_type() != shape.element_type())
        return;
      Link(inst, 0, 0, 0, Reshape(from, shape), Reshape(shape, from), "reshape");
      return;
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t>& perm = inst->dimensions();
      std::vector<int64_t> bwd(perm.size(), -1);
      for (size_t i = 0; i < perm.size(); ++i)
        if (perm[i] >= 0 && perm[i] < static_cast<int64_t>(perm.size()))
          bwd[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
      Link(inst, 0, 0, 0, Dims(perm), Dims(bwd), "transpose");
      return;
    }
    default:
      return;
  }
}

// dot: batch and free dims of each operand map to the result's; contracting dims to none.
void Propagator::DotEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  if (!inst->attrs().dot_dimension_numbers || inst->operand_count() != 2) return;
  const DotDimensionNumbers& dn = *inst->attrs().dot_dimension_numbers;
  auto free_dims = [](int64_t rank, const std::vector<int64_t>& batch,
                      const std::vector<int64_t>& contracting) {
    std::vector<int64_t> out;
    for (int64_t d = 0; d < rank; ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) == contracting.end())
        out.push_back(d);
    return out;
  };
  const int64_t lrank = inst->operand(0)->shape().rank(),
                rrank = inst->operand(1)->shape().rank();
  std::vector<int64_t> lfree =
      free_dims(lrank, dn.lhs_batch_dimensions, dn.lhs_contracting_dimensions);
  std::vector<int64_t> rfree =
      free_dims(rrank, dn.rhs_batch_dimensions, dn.rhs_contracting_dimensions);
  const int64_t nb = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  if (nb + static_cast<int64_t>(lfree.size() + rfree.size()) != shape.rank() ||
      dn.rhs_batch_dimensions.size() != dn.lhs_batch_dimensions.size())
    return;
  std::vector<int64_t> fl(static_cast<size_t>(shape.rank()), -1), fr = fl;
  std::vector<int64_t> bl(static_cast<size_t>(lrank), -1), br(static_cast<size_t>(rrank), -1);
  for (int64_t b = 0; b < nb; ++b) {
    fl[static_cast<size_t>(b)] = dn.lhs_batch_dimensions[static_cast<size_t>(b)];
    fr[static_cast<size_t>(b)] = dn.rhs_batch_dimensions[static_cast<size_t>(b)];
    bl[static_cast<size_t>(dn.lhs_batch_dimensions[static_cast<size_t>(b)])] = b;
    br[static_cast<size_t>(dn.rhs_batch_dimensions[static_cast<size_t>(b)])] = b;
  }
  for (size_t j = 0; j < lfree.size(); ++j) {
    fl[static_cast<size_t>(nb) + j] = lfree[j];
    bl[static_cast<size_t>(lfree[j])] = nb + static_cast<int64_t>(j);
  }
  const size_t roff = static_cast<size_t>(nb) + lfree.size();
  for (size_t j = 0; j < rfree.size(); ++j) {
    fr[roff + j] = rfree[j];
    br[static_cast<size_t>(rfree[j])] = static_cast<int64_t>(roff + j);
  }
  Link(inst, 0, 0, 0, Dims(fl), Dims(bl), "dot lhs");
  Link(inst, 1, 0, 0, Dims(fr), Dims(br), "dot rhs");
  return;
}

// reduce: each input's kept dims map to its result's.
void Propagator::ReduceEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  const int64_t n = inst->operand_count() / 2;
  const std::vector<int64_t>& reduced = inst->dimensions();
  for (int64_t k = 0; k < n; ++k) {
    const Shape& in = inst->operand(k)->shape();
    if (!in.IsArray()) continue;
    std::vector<int64_t> fwd, bwd(static_cast<size_t>(in.rank()), -1);
    for (int64_t d = 0; d < in.rank(); ++d) {
      if (std::find(reduced.begin(), reduced.end(), d) != reduced.end()) continue;
      bwd[static_cast<size_t>(d)] = static_cast<int64_t>(fwd.size());
      fwd.push_back(d);
    }
    Link(inst, k, shape.IsTuple() ? k : 0, 0, Dims(fwd), Dims(bwd), "reduce");
  }
  TieLeaves(inst);
}

// The results of a variadic reduce, a sort or a topk (a value and its index, keys and what
// moves with them) are split alike: one class for all leaves of the same rank.
void Propagator::TieLeaves(const Instruction* inst) {
  const Shape& shape = inst->shape();
  if (!shape.IsTuple() || !base_.count(inst)) return;
  for (int64_t k = 1; k < shape.tuple_size(); ++k) {
    const Shape& a = shape.tuple_shapes(0);
    const Shape& b = shape.tuple_shapes(k);
    if (a.IsArray() && b.IsArray() && a.rank() == b.rank()) Union(Node(inst, 0), Node(inst, k));
  }
}

// A custom call with a Shardy sharding rule (jax's LAPACK calls): each operand dim and
// result dim named by the same pass-through factor split alike.
void Propagator::ShardingRuleEdges(const Instruction* inst) {
  StatusOr<std::optional<SdyOpShardingRule>> found = ShardingRuleOf(*inst);
  if (!found.ok() || !found->has_value()) return;
  const SdyOpShardingRule* rule = &**found;
  const int64_t results = inst->shape().IsTuple() ? inst->shape().tuple_size() : 1;
  if (static_cast<int64_t>(rule->operands.size()) != inst->operand_count() ||
      static_cast<int64_t>(rule->results.size()) != results)
    return;
  auto shape_of_result = [&](int64_t r) -> const Shape& {
    return inst->shape().IsTuple() ? inst->shape().tuple_shapes(r) : inst->shape();
  };
  // sources[d]: the dim of `from` with dim d's pass-through factor (-1: none).
  auto sources = [&](const SdyOpShardingRule::Dims& to, const SdyOpShardingRule::Dims& from) {
    std::vector<int64_t> out(to.size(), -1);
    for (size_t d = 0; d < to.size(); ++d) {
      const std::string f = rule->PassThrough(to[d]);
      for (size_t s = 0; s < from.size() && !f.empty(); ++s)
        if (from[s].size() == 1 && from[s][0] == f) out[d] = static_cast<int64_t>(s);
    }
    return out;
  };
  for (int64_t k = 0; k < inst->operand_count(); ++k) {
    const SdyOpShardingRule::Dims& od = rule->operands[static_cast<size_t>(k)];
    if (!rule->Fits(od, inst->operand(k)->shape())) continue;
    for (int64_t r = 0; r < results; ++r) {
      const SdyOpShardingRule::Dims& rd = rule->results[static_cast<size_t>(r)];
      if (!rule->Fits(rd, shape_of_result(r))) continue;
      Link(inst, k, r, 0, Dims(sources(rd, od)), Dims(sources(od, rd)), "custom-call sharding rule");
    }
  }
}

// convolution (no feature or batch groups): the input batch dim and the kernel's output
// feature dim map to the result's batch and feature dims.
void Propagator::ConvolutionEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  const InstructionAttributes& a = inst->attrs();
  if (!a.convolution_dimension_numbers || a.feature_group_count < 1 || a.batch_group_count < 1 ||
      (a.feature_group_count > 1 && a.batch_group_count > 1) || inst->operand_count() != 2)
    return;
  const ConvolutionDimensionNumbers& cd = *a.convolution_dimension_numbers;
  const int64_t rank = shape.rank();
  std::vector<int64_t> fl(static_cast<size_t>(rank), -1), fr = fl;
  std::vector<int64_t> bl(static_cast<size_t>(inst->operand(0)->shape().rank()), -1);
  std::vector<int64_t> br(static_cast<size_t>(inst->operand(1)->shape().rank()), -1);
  if (cd.output_batch_dimension >= rank || cd.output_feature_dimension >= rank ||
      cd.input_batch_dimension >= static_cast<int64_t>(bl.size()) ||
      cd.kernel_output_feature_dimension >= static_cast<int64_t>(br.size()))
    return;
  fl[static_cast<size_t>(cd.output_batch_dimension)] = cd.input_batch_dimension;
  bl[static_cast<size_t>(cd.input_batch_dimension)] = cd.output_batch_dimension;
  fr[static_cast<size_t>(cd.output_feature_dimension)] = cd.kernel_output_feature_dimension;
  br[static_cast<size_t>(cd.kernel_output_feature_dimension)] = cd.output_feature_dimension;
  // Spatial dims too, as XLA: the partitioner keeps them split with halo exchanges where
  // the windows allow it, and computes them whole where not.
  if (cd.input_spatial_dimensions.size() == cd.output_spatial_dimensions.size()) {
    for (size_t i = 0; i < cd.output_spatial_dimensions.size(); ++i) {
      const int64_t od = cd.output_spatial_dimensions[i], id = cd.input_spatial_dimensions[i];
      if (od < 0 || od >= rank || id < 0 || id >= static_cast<int64_t>(bl.size())) continue;
      fl[static_cast<size_t>(od)] = id;
      bl[static_cast<size_t>(id)] = od;
    }
  }
  if (a.feature_group_count == 1 && a.batch_group_count == 1) {
    Link(inst, 0, 0, 0, Dims(fl), Dims(bl), "convolution batch");
    Link(inst, 1, 0, 0, Dims(fr), Dims(br), "convolution feature");
    return;
  }
  // Grouped: the output features split only in tiles of whole groups, and the input
  // features (feature groups) or the input batch (batch groups: the output batch then
  // splits with nothing) with them.
  const int64_t of = cd.output_feature_dimension;
  const int64_t in_f = a.batch_group_count > 1 ? cd.input_batch_dimension : cd.input_feature_dimension;
  if (in_f >= static_cast<int64_t>(bl.size())) return;
  if (a.batch_group_count > 1) {
    fl[static_cast<size_t>(cd.output_batch_dimension)] = -1;
    bl[static_cast<size_t>(cd.input_batch_dimension)] = -1;
  }
  fl[static_cast<size_t>(of)] = in_f;
  bl[static_cast<size_t>(in_f)] = of;
  const int64_t groups = std::max(a.feature_group_count, a.batch_group_count);
  auto whole_groups = [groups](Rule rule, int64_t dim) -> Rule {
    return [groups, dim, rule = std::move(rule)](const Sharding& s) -> std::optional<Sharding> {
      std::optional<Sharding> out = rule(s);
      if (!out || !out->IsTiled() || groups % out->TilesAlong(dim) == 0) return out;
      std::vector<int64_t> keep;
      for (int64_t d = 0; d < out->DataRank(); ++d) keep.push_back(d == dim ? -1 : d);
      return MapShardingDims(*out, keep);
    };
  };
  Link(inst, 0, 0, 0, whole_groups(Dims(fl), of), whole_groups(Dims(bl), in_f), "grouped convolution batch and groups");
  Link(inst, 1, 0, 0, whole_groups(Dims(fr), of), whole_groups(Dims(br), cd.kernel_output_feature_dimension),
       "grouped convolution feature");
}

// gather: the result's batch dims are the indices' dims (but the index vector dim), in
// order; its offset dims are the operand's dims a slice takes whole and no index selects
// (passed through), and the operand's batching dims pair with the indices'.
void Propagator::GatherEdges(const Instruction* inst) {
  const InstructionAttributes& a = inst->attrs();
  if (!a.gather_dimension_numbers || inst->operand_count() != 2) return;
  const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
  const Shape& os = inst->operand(0)->shape();
  const Shape& is = inst->operand(1)->shape();
  const Shape& shape = inst->shape();
  if (!os.IsArray() || !is.IsArray() || !shape.IsArray() || static_cast<int64_t>(a.gather_slice_sizes.size()) != os.rank())
    return;
  auto has = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<int64_t> batch_result, index_dims, window;
  for (int64_t r = 0; r < shape.rank(); ++r)
    if (!has(g.offset_dims, r)) batch_result.push_back(r);
  for (int64_t i = 0; i < is.rank(); ++i)
    if (i != g.index_vector_dim) index_dims.push_back(i);
  for (int64_t o = 0; o < os.rank(); ++o)
    if (!has(g.collapsed_slice_dims, o) && !has(g.operand_batching_dims, o)) window.push_back(o);
  if (batch_result.size() != index_dims.size() || window.size() != g.offset_dims.size() ||
      g.operand_batching_dims.size() != g.start_indices_batching_dims.size())
    return;
  std::vector<int64_t> fi(static_cast<size_t>(shape.rank()), -1), fo = fi;
  std::vector<int64_t> bi(static_cast<size_t>(is.rank()), -1), bo(static_cast<size_t>(os.rank()), -1);
  for (size_t j = 0; j < index_dims.size(); ++j) {
    fi[static_cast<size_t>(batch_result[j])] = index_dims[j];
    bi[static_cast<size_t>(index_dims[j])] = batch_result[j];
  }
  for (size_t j = 0; j < window.size(); ++j) {
    const int64_t o = window[j];
    if (a.gather_slice_sizes[static_cast<size_t>(o)] != os.dimensions(o) || has(g.start_index_map, o)) continue;
    fo[static_cast<size_t>(g.offset_dims[j])] = o;
    bo[static_cast<size_t>(o)] = g.offset_dims[j];
  }
  for (size_t k = 0; k < g.operand_batching_dims.size(); ++k) {
    const int64_t o = g.operand_batching_dims[k];
    const int64_t r = bi[static_cast<size_t>(g.start_indices_batching_dims[k])];
    if (o < 0 || o >= os.rank() || r < 0) continue;
    fo[static_cast<size_t>(r)] = o;
    bo[static_cast<size_t>(o)] = r;
  }
  Link(inst, 1, 0, 0, Dims(fi), Dims(bi), "gather indices");
  Link(inst, 0, 0, 0, Dims(fo), Dims(bo), "gather operand");
}

// scatter (one operand): the result is the operand, element for element (the indices and
// updates take what the partitioner's rule asks).
void Propagator::ScatterEdges(const Instruction* inst) {
  const InstructionAttributes& a = inst->attrs();
  if (!a.scatter_dimension_numbers || inst->operand_count() != 3 || !SameRank(inst, 0)) return;
  Link(inst, 0, 0, 0, Identity(), Identity(), "scatter operand");
}

// slice, pad, concatenate, dynamic-slice, dynamic-update-slice, reverse, sort: the dims
// the op leaves whole keep their sharding; the dims it cuts, moves or reorders do not.
void Propagator::KeptDimsEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  switch (inst->opcode()) {
    // slice, pad and concatenate keep a dim they change split (KeepSplits): the
    // partitioner reads each tile's window from the devices that hold it, as XLA keeps it
    // split, where the tiles are even.
    case Opcode::kSlice: {
      const Shape& in = inst->operand(0)->shape();
      const auto& slice = inst->attrs().slice;
      if (!in.IsArray() || static_cast<int64_t>(slice.size()) != in.rank()) return;
      Link(inst, 0, 0, 0, KeepSplits(in, shape), KeepSplits(shape, in), "slice");
      return;
    }
    case Opcode::kPad: {
      const auto& padding = inst->attrs().padding;
      if (!SameRank(inst, 0) || static_cast<int64_t>(padding.size()) != shape.rank()) return;
      const Shape& in = inst->operand(0)->shape();
      Link(inst, 0, 0, 0, KeepSplits(in, shape), KeepSplits(shape, in), "pad");
      return;
    }
    case Opcode::kConcatenate: {
      if (inst->dimensions().size() != 1) return;
      const int64_t cat = inst->dimensions()[0];
      for (int64_t k = 0; k < inst->operand_count(); ++k) {
        if (!SameRank(inst, k)) continue;
        const Shape& in = inst->operand(k)->shape();
        Link(inst, k, 0, 0, KeepSplits(in, shape), KeepSplits(shape, in), "concatenate");
        // A slice along the concatenated dim (a roll's parts, which seldom split evenly):
        // the result also takes the sliced array's split, forward.
        const Instruction* slice = inst->operand(k);
        if (slice->opcode() != Opcode::kSlice || slice->operand_count() != 1) continue;
        const Shape& from = slice->operand(0)->shape();
        bool along = from.IsArray() && from.rank() == shape.rank();
        for (int64_t d = 0; along && d < from.rank(); ++d) {
          const SliceDimension& sd = slice->attrs().slice[static_cast<size_t>(d)];
          along = sd.stride == 1 && (d == cat || (sd.start == 0 && sd.limit == from.dimensions(d)));
        }
        if (along)
          AddEdge(slice->operand(0), 0, inst, 0, 0, k, KeepSplits(from, shape), "concatenate of slices");
      }
      return;
    }
    case Opcode::kDynamicSlice: {
      const auto& sizes = inst->attrs().dynamic_slice_sizes;
      if (!SameRank(inst, 0)) return;
      std::vector<bool> keep;
      for (int64_t d = 0; d < shape.rank(); ++d)
        keep.push_back(shape.dimensions(d) == inst->operand(0)->shape().dimensions(d) &&
                       (sizes.empty() || sizes[static_cast<size_t>(d)] == shape.dimensions(d)));
      Link(inst, 0, 0, 0, Dims(KeepDims(keep)), Dims(KeepDims(keep)), "dynamic-slice");
      return;
    }
    case Opcode::kDynamicUpdateSlice: {
      if (inst->operand_count() < 2 || !SameRank(inst, 0) || !SameRank(inst, 1)) return;
      // The operand keeps every split (the partitioner updates each tile where it lies); the
      // update, the dims it spans whole.
      std::vector<bool> keep;
      for (int64_t d = 0; d < shape.rank(); ++d)
        keep.push_back(inst->operand(1)->shape().dimensions(d) == shape.dimensions(d));
      Link(inst, 0, 0, 0, Identity(), Identity(), "dynamic-update-slice");
      Link(inst, 1, 0, 0, Dims(KeepDims(keep)), Dims(KeepDims(keep)), "dynamic-update-slice");
      return;
    }
    case Opcode::kReverse:
      // Every dim keeps its split: the partitioner mirrors the tiles' order.
      if (SameRank(inst, 0)) Link(inst, 0, 0, 0, Identity(), Identity(), "reverse");
      return;
    case Opcode::kFft:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter:
    case Opcode::kTopK: {
      // The dims the op works along (transformed, windowed, searched) are cut; the others
      // keep their sharding, for every array operand of the result's rank.
      std::vector<bool> keep = DimsKeptByWindowOp(*inst);
      if (keep.empty()) return;
      // A reduce-window or select-and-scatter passes every dim's sharding through (what
      // jax's propagation gives, a cumulative sum's output split as its input): the
      // partitioner computes the windowed dims whole and slices the result back.
      if (inst->opcode() == Opcode::kReduceWindow || inst->opcode() == Opcode::kSelectAndScatter)
        keep.assign(keep.size(), true);
      for (int64_t k = 0; k < inst->operand_count(); ++k) {
        const Shape& in = inst->operand(k)->shape();
        if (!in.IsArray() || in.rank() != static_cast<int64_t>(keep.size())) continue;
        if (inst->opcode() == Opcode::kSelectAndScatter && k != 0) continue;
        if (shape.IsTuple()) {
          for (int64_t leaf = 0; leaf < shape.tuple_size(); ++leaf)
            Link(inst, k, leaf, 0, Dims(KeepDims(keep)), Dims(KeepDims(keep)), "windowed op");
        } else {
          Link(inst, k, 0, 0, Dims(KeepDims(keep)), Dims(KeepDims(keep)), "windowed op");
        }
      }
      return;
    }
    case Opcode::kSort: {
      // The sort dim keeps its split when another dim can take it over while the sort runs
      // (the partitioner moves it there and back with all-to-alls, as XLA does); otherwise
      // the sort dim is whole.
      if (inst->dimensions().size() != 1) return;
      for (int64_t k = 0; k < inst->operand_count(); ++k) {
        const Shape& in = inst->operand(k)->shape();
        if (!in.IsArray()) continue;
        const int64_t dim = inst->dimensions()[0];
        Rule rule = [in, dim](const Sharding& s) -> std::optional<Sharding> {
          if (!s.IsTiled() || dim < 0 || dim >= in.rank() || s.DataRank() != in.rank()) return s;
          if (SortDimCanMove(s, in, dim)) return s;
          std::vector<int64_t> sources;
          for (int64_t d = 0; d < in.rank(); ++d) sources.push_back(d == dim ? -1 : d);
          return MapShardingDims(s, sources);
        };
        Link(inst, k, shape.IsTuple() ? k : 0, 0, rule, rule, "sort");
      }
      TieLeaves(inst);
      return;
    }
    default:
      return;
  }
}

// get-tuple-element, tuple, opt-barrier: leaf to leaf.
void Propagator::TupleEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  const Opcode op = inst->opcode();
  switch (inst->opcode()) {
    case Opcode::kGetTupleElement: {
      const Shape& in = inst->operand(0)->shape();
      if (!in.IsTuple() || inst->tuple_index() < 0 || inst->tuple_index() >= in.tuple_size())
        return;
      const int64_t off = LeafOffset(in, inst->tuple_index());
      for (int64_t k = 0; k < LeafCount(shape); ++k)
        Link(inst, 0, k, off + k, Identity(), Identity(), "get-tuple-element");
      return;
    }
    case Opcode::kTuple:
    case Opcode::kOptimizationBarrier: {
      if (op == Opcode::kOptimizationBarrier) {
        for (int64_t k = 0; k < LeafCount(shape); ++k)
          Link(inst, 0, k, k, Identity(), Identity(), "opt-barrier");
        return;
      }
      int64_t off = 0;
      for (int64_t k = 0; k < inst->operand_count(); ++k) {
        const int64_t n = LeafCount(inst->operand(k)->shape());
        for (int64_t l = 0; l < n; ++l) Link(inst, k, off + l, l, Identity(), Identity(), "tuple");
        off += n;
      }
      return;
    }
    default:
      return;
  }
}

// while (its body and condition tied into one class per leaf), conditional and call
// (operands to parameters, roots to the result, across the call boundary).
void Propagator::ControlFlowEdges(const Instruction* inst) {
  const Shape& shape = inst->shape();
  switch (inst->opcode()) {
    case Opcode::kWhile: {
      const Computation* cond = inst->while_condition();
      const Computation* body = inst->while_body();
      const int64_t n = LeafCount(shape);
      for (int64_t k = 0; k < n; ++k) Link(inst, 0, k, k, Identity(), Identity(), "while init");
      auto tie = [&](const Instruction* other) {
        if (other == nullptr || !base_.count(other) || LeafCount(other->shape()) != n) return;
        for (int64_t k = 0; k < n; ++k) Union(Node(inst, k), Node(other, k));
      };
      if (body != nullptr && body->parameter_count() == 1) {
        tie(body->parameter(0));
        tie(body->root());
      }
      if (cond != nullptr && cond->parameter_count() == 1) tie(cond->parameter(0));
      return;
    }
    case Opcode::kConditional: {
      const auto& branches = inst->called_computations();
      for (size_t c = 0; c < branches.size(); ++c) {
        const Computation* branch = branches[c];
        if (branch == nullptr || static_cast<int64_t>(c) + 1 >= inst->operand_count()) continue;
        const Instruction* operand = inst->operand(static_cast<int64_t>(c) + 1);
        if (branch->parameter_count() == 1 && branch->parameter(0) != nullptr)
          LinkLeaves(operand, 0, branch->parameter(0), 0, LeafCount(operand->shape()), 2,
                     "conditional operand");
        if (branch->root() != nullptr && LeafCount(branch->root()->shape()) == LeafCount(shape))
          LinkLeaves(branch->root(), 0, inst, 0, LeafCount(shape), 2, "conditional result");
      }
      return;
    }
    case Opcode::kCall: {
      const Computation* callee = inst->to_apply();
      if (callee == nullptr) return;
      for (int64_t k = 0; k < inst->operand_count() && k < callee->parameter_count(); ++k) {
        const Instruction* param = callee->parameter(k);
        if (param != nullptr)
          LinkLeaves(inst->operand(k), 0, param, 0, LeafCount(inst->operand(k)->shape()), 2,
                     "call operand");
      }
      if (callee->root() != nullptr && LeafCount(callee->root()->shape()) == LeafCount(shape))
        LinkLeaves(callee->root(), 0, inst, 0, LeafCount(shape), 2, "call result");
      return;
    }
    default:
      return;
  }
}
Status Propagator::Seed() {
  const Computation* entry = module_.entry();
  for (const Instruction* inst : instructions_) {
    auto sharding = ShardingOf(*inst);
    if (!sharding.ok())
      return InvalidArgument("sharding-propagation: " + std::string(sharding.status().message()));
    const int64_t n = LeafCount(inst->shape());
    std::vector<std::optional<Sharding>> leaves(static_cast<size_t>(n));
    std::vector<bool> open;
    if (sharding->has_value()) {
      had_sharding_.insert(inst);
      StatusOr<std::vector<int64_t>> open_dims = UnspecifiedDimsOf(*inst);
      if (!open_dims.ok())
        return InvalidArgument("sharding-propagation: " + std::string(open_dims.status().message()));
      if (!open_dims->empty() && n == 1 && inst->shape().IsArray()) {
        open.assign(static_cast<size_t>(inst->shape().rank()), false);
        for (int64_t d : *open_dims) open[static_cast<size_t>(d)] = true;
        open_.insert(inst);
      }
      const Sharding& s = **sharding;
      if (s.IsTuple() && static_cast<int64_t>(s.elements.size()) != n)
        return InvalidArgument("sharding-propagation: %" + inst->name() +
                               " has a tuple sharding of " + std::to_string(s.elements.size()) +
                               " for " + std::to_string(n) + " leaves");
      for (int64_t k = 0; k < n; ++k)
        leaves[static_cast<size_t>(k)] = s.Leaf(static_cast<size_t>(k));
    } else if (inst->parent() == entry) {
      // Entry parameters and outputs the header keeps as they are (unsharded: replicated).
      auto pinned = [](const std::vector<bool>& flags, bool has, int64_t i) {
        if (!has || flags.empty()) return false;
        bool allow =
            flags.size() == 1
                ? flags[0]
                : (i < static_cast<int64_t>(flags.size()) ? flags[static_cast<size_t>(i)] : true);
        return !allow;
      };
      if (inst->opcode() == Opcode::kParameter &&
          pinned(module_.allow_spmd_sharding_propagation_to_parameters,
                 module_.has_allow_spmd_to_parameters, inst->parameter_number()))
        for (auto& l : leaves) l = Sharding::Replicated();
      if (inst->IsRoot())
        for (int64_t k = 0; k < n; ++k)
          if (pinned(module_.allow_spmd_sharding_propagation_to_output,
                     module_.has_allow_spmd_to_output, k))
            leaves[static_cast<size_t>(k)] = Sharding::Replicated();
    }
    for (int64_t k = 0; k < n; ++k) {
      if (!leaves[static_cast<size_t>(k)]) continue;
      ClassState& c = state_[static_cast<size_t>(Find(Node(inst, k)))];
      if (!open.empty()) {
        // Given with open dims: a starting point, and what any change must keep.
        if (c.fixed || c.floor) continue;
        c.sharding = leaves[static_cast<size_t>(k)];
        c.floor = c.sharding;
        c.open = open;
        c.score = ScoreOf(*c.sharding, false);
        c.reason = "given, open dims";
        continue;
      }
      if (c.fixed) {
        if (!c.sharding->SameMeaning(*leaves[static_cast<size_t>(k)]))
          log_.push_back("%" + inst->name() + ": given " +
                         leaves[static_cast<size_t>(k)]->ToString() + " differs from " +
                         c.sharding->ToString() +
                         " given to the same loop-carried value; the loop uses the latter");
        continue;
      }
      c.sharding = leaves[static_cast<size_t>(k)];
      c.fixed = true;
      c.reason = "given";
    }
  }
  return Status::Ok();
}

bool Propagator::Accepts(int64_t node, const Sharding& s) const {
  const Shape& shape = *node_shape_[static_cast<size_t>(node)];
  if (!s.IsTiled()) return true;
  if (s.DataRank() != shape.rank()) return false;
  for (int64_t d = 0; d < shape.rank(); ++d)
    if (s.TilesAlong(d) > std::max<int64_t>(shape.dimensions(d), 1)) return false;
  return true;
}

void Propagator::Solve() {
  // Incoming edges of each class, operands (in order) before users before call links.
  std::unordered_map<int64_t, std::vector<const Edge*>> incoming;
  std::vector<int64_t> classes;
  for (size_t n = 0; n < parent_.size(); ++n) {
    int64_t c = Find(static_cast<int64_t>(n));
    if (c == static_cast<int64_t>(n)) classes.push_back(c);
  }
  for (const Edge& e : edges_) incoming[Find(e.dst)].push_back(&e);
  for (auto& [c, list] : incoming) {
    std::stable_sort(list.begin(), list.end(), [](const Edge* a, const Edge* b) {
      if (a->order != b->order) return a->order < b->order;
      return a->order == 0 && a->index < b->index;
    });
  }
  for (int round = 0; round < 1000; ++round) {
    bool changed = false;
    for (int64_t c : classes) {
      ClassState& st = state_[static_cast<size_t>(c)];
      if (st.fixed) continue;
      auto it = incoming.find(c);
      if (it == incoming.end()) continue;
      std::optional<Sharding> best;
      Score best_score;
      std::string best_reason;
      // Operand candidates, for merging: sharding, score, reason.
      struct Candidate {
        Sharding sharding;
        Score score;
        std::string reason;
      };
      std::vector<Candidate> forward;
      for (const Edge* e : it->second) {
        const ClassState& src = state_[static_cast<size_t>(Find(e->src))];
        if (!src.sharding) continue;
        std::optional<Sharding> candidate = e->rule(*src.sharding);
        if (!candidate || !Accepts(e->dst, *candidate) || !WithinFloor(st, *candidate)) continue;
        Score score = ScoreOf(*candidate, src.fixed, !e->weak);
        std::string reason = std::string(e->what) + ") from %" +
                             node_inst_[static_cast<size_t>(e->src)]->name() +
                             (score.fixed ? " (given)" : "");
        if (e->order == 0 && score.tiled && !score.manual)
          forward.push_back({*candidate, score, "(" + reason});
        if (!best || score > best_score) {
          best = std::move(candidate);
          best_score = score;
          best_reason = std::string(e->order == 1 ? "backward" : "forward") + " (" + reason;
        }
      }
      if (forward.size() > 1) {
        // The best operand candidate, refined by the others it merges with (best first).
        std::stable_sort(forward.begin(), forward.end(),
                         [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
        Candidate merged = forward[0];
        bool any = false;
        for (size_t k = 1; k < forward.size(); ++k) {
          std::optional<Sharding> m = MergeShardings(merged.sharding, forward[k].sharding);
          if (!m || !Accepts(c, *m) || !WithinFloor(st, *m) ||
              DataTiles(*m) <= DataTiles(merged.sharding))
            continue;
          merged.sharding = std::move(*m);
          merged.score = ScoreOf(merged.sharding, merged.score.fixed || forward[k].score.fixed,
                                 merged.score.strong && forward[k].score.strong);
          merged.reason += " + " + forward[k].reason;
          any = true;
        }
        if (any && (!best || merged.score > best_score)) {
          best = std::move(merged.sharding);
          best_score = merged.score;
          best_reason = "forward, merged " + merged.reason;
        }
      }
      if (!best || (st.sharding && !(best_score > st.score))) continue;
      st.sharding = std::move(best);
      st.score = best_score;
      st.reason = std::move(best_reason);
      changed = true;
    }
    if (!changed) break;
  }
}

bool Propagator::Write() {
  bool changed = false;
  for (const Instruction* inst : instructions_) {
    if (had_sharding_.count(inst) && !open_.count(inst)) continue;
    const int64_t n = LeafCount(inst->shape());
    std::vector<Sharding> leaves;
    std::string reasons;
    // The program's outputs are its interface: a dim their tiles would split unevenly is
    // whole there (XLA also gives such outputs whole; inside, the partitioner computes
    // them whole too).
    const bool output = inst->IsRoot() && inst->parent() == module_.entry();
    for (int64_t k = 0; k < n; ++k) {
      const ClassState& st = state_[static_cast<size_t>(Find(Node(inst, k)))];
      leaves.push_back(st.sharding ? *st.sharding : Sharding::Replicated());
      std::string why = st.sharding ? st.reason : "no candidate: replicated";
      if (output) {
        const Shape& shape = *node_shape_[static_cast<size_t>(Node(inst, k))];
        Sharding even = EvenSplitsOnly(leaves.back(), shape);
        if (!even.SameMeaning(leaves.back())) {
          why += "; uneven dims made whole for the output";
          leaves.back() = std::move(even);
        }
      }
      if (n > 1) why = "{" + std::to_string(k) + "} " + why;
      reasons += (k ? "; " : "") + why;
    }
    Sharding s;
    if (inst->shape().IsTuple()) {
      s.kind = Sharding::Kind::kTuple;
      s.elements = std::move(leaves);
    } else {
      s = std::move(leaves[0]);
    }
    std::string text = s.ToString();
    Instruction* mutable_inst = const_cast<Instruction*>(inst);
    mutable_inst->mutable_attrs().sharding = text.substr(1, text.size() - 2);
    mutable_inst->mutable_attrs().has_sharding = true;
    log_.push_back("%" + inst->name() + ": " + text + " <- " + reasons);
    changed = true;
  }
  return changed;
}

StatusOr<bool> Propagator::Run() {
  if (module_.num_partitions.value_or(1) <= 1 || module_.entry() == nullptr) return false;
  CollectScope(module_.entry());
  for (Computation* comp : scope_) {
    for (Instruction* inst : comp->PostOrder()) {
      base_[inst] = static_cast<int64_t>(node_inst_.size());
      instructions_.push_back(inst);
      std::vector<const Shape*> leaves;
      CollectLeaves(inst->shape(), leaves);
      for (const Shape* leaf : leaves) {
        node_inst_.push_back(inst);
        node_shape_.push_back(leaf);
      }
    }
  }
  parent_.resize(node_inst_.size());
  std::iota(parent_.begin(), parent_.end(), 0);
  devices_ = DevicesOfModule(module_);
  for (const Instruction* inst : instructions_) BuildEdges(inst);
  state_.resize(node_inst_.size());
  RETURN_IF_ERROR(Seed());
  Solve();
  // Boundaries fixed where they agree (or made to); the rest adapts to them.
  for (int pass = 0; pass < 4 && AgreeAtBoundaries(); ++pass) Solve();
  return Write();
}

}  // namespace

StatusOr<bool> ShardingPropagation::Run(Module& module, PassContext& context) {
  (void)context;
  log_.clear();
  Propagator propagator(module, log_);
  return propagator.Run();
}

std::optional<int64_t> DimTakingTheSortSplit(const std::vector<int64_t>& tiles, const Shape& shape, int64_t dim) {
  if (dim < 0 || dim >= shape.rank() || static_cast<int64_t>(tiles.size()) != shape.rank()) return std::nullopt;
  const int64_t t = tiles[static_cast<size_t>(dim)];
  std::optional<int64_t> best;
  for (int64_t j = 0; j < shape.rank(); ++j) {
    if (j == dim || shape.dimensions(j) % (tiles[static_cast<size_t>(j)] * t) != 0) continue;
    const int64_t local = shape.dimensions(j) / tiles[static_cast<size_t>(j)];
    if (!best || local > shape.dimensions(*best) / tiles[static_cast<size_t>(*best)]) best = j;
  }
  return best;
}

}  // namespace fusebox::passes
