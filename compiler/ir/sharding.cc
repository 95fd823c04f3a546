#include "compiler/ir/sharding.h"

#include "compiler/support/text_cursor.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "compiler/ir/collectives.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/ir/module.h"

namespace fusebox {
namespace {

constexpr int64_t kMaxShardingDevices = int64_t{1} << 20;

// A cursor over sharding text; errors quote it and say the column.
class Cursor : public TextCursor {
 public:
  explicit Cursor(std::string_view text)
      : TextCursor(text, [text](const std::string& what, size_t pos) {
          return "sharding: " + what + " at column " + std::to_string(pos + 1) + " of '" + std::string(text) + "'";
        }) {}
};

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

StatusOr<Sharding> ParseOne(Cursor& in);

// The inside of one non-tuple sharding, after its '{'.
StatusOr<Sharding> ParseCore(Cursor& in) {
  Sharding s;
  if (in.Keyword("replicated")) {
    s.kind = Sharding::Kind::kReplicated;
  } else if (in.Keyword("manual")) {
    s.kind = Sharding::Kind::kManual;
  } else if (in.Keyword("unknown")) {
    s.kind = Sharding::Kind::kUnknown;
  } else if (in.Keyword("maximal")) {
    s.kind = Sharding::Kind::kMaximal;
    if (!in.Keyword("device") || !in.Consume("=")) return in.Fail("expected 'device=' after maximal");
    ASSIGN_OR_RETURN(s.device, in.Int());
    if (s.device < 0 || s.device >= kMaxShardingDevices) return in.Fail("device out of range");
  } else if (in.Keyword("devices")) {
    s.kind = Sharding::Kind::kTiled;
    if (!in.Consume("=")) return in.Fail("expected '=' after devices");
    ASSIGN_OR_RETURN(s.tile_dims, in.IntList('[', ']'));
    int64_t n = 1;
    for (int64_t d : s.tile_dims) {
      if (d <= 0 || n > kMaxShardingDevices / d) return in.Fail("tile dimensions out of range");
      n *= d;
    }
    if (s.tile_dims.empty()) return in.Fail("devices=[] needs at least one dimension");
    const size_t list_start = in.pos();
    if (in.Consume("<=")) {
      ASSIGN_OR_RETURN(std::vector<int64_t> dims, in.IntList('[', ']'));
      std::vector<int64_t> perm;
      if (in.Consume("T")) {
        ASSIGN_OR_RETURN(perm, in.IntList('(', ')'));
      }
      auto ids = ExpandIotaDeviceList(dims, perm);
      if (!ids.ok()) return in.Fail(ids.status().message());
      s.tile_devices = std::move(*ids);
      std::string text = "<=[";
      for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
      text += "]";
      if (!perm.empty()) {
        text += "T(";
        for (size_t i = 0; i < perm.size(); ++i) text += (i ? "," : "") + std::to_string(perm[i]);
        text += ")";
      }
      s.device_list_text = text;
    } else {
      do {
        ASSIGN_OR_RETURN(int64_t id, in.Int());
        if (id < 0 || id >= kMaxShardingDevices) return in.Fail("device id out of range");
        s.tile_devices.push_back(id);
      } while (in.Consume(","));
      std::string text;
      for (size_t i = 0; i < s.tile_devices.size(); ++i)
        text += (i ? "," : "") + std::to_string(s.tile_devices[i]);
      s.device_list_text = text;
    }
    (void)list_start;
    if (static_cast<int64_t>(s.tile_devices.size()) != n) {
      return in.Fail("devices=[...] names " + std::to_string(n) + " tiles but the list has " +
                     std::to_string(s.tile_devices.size()) + " devices");
    }
    std::vector<int64_t> sorted = s.tile_devices;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return in.Fail("a device appears twice in the tile assignment");
    if (in.Keyword("last_tile_dim_replicate")) {
      s.last_tile_dim_replicate = true;
      s.subgroups.push_back(SubgroupKind::kReplicated);
    } else if (in.Keyword("last_tile_dims")) {
      if (!in.Consume("=") || !in.Consume("{")) return in.Fail("expected last_tile_dims={...}");
      do {
        ASSIGN_OR_RETURN(std::string kind, in.Name());
        if (kind == "manual") s.subgroups.push_back(SubgroupKind::kManual);
        else if (kind == "replicated") s.subgroups.push_back(SubgroupKind::kReplicated);
        else if (kind == "unreduced") s.subgroups.push_back(SubgroupKind::kUnreduced);
        else if (kind == "maximal") s.subgroups.push_back(SubgroupKind::kMaximal);
        else return in.Fail("unknown subgroup kind '" + kind + "'");
      } while (in.Consume(","));
      if (!in.Consume("}")) return in.Fail("expected '}' after last_tile_dims");
    }
    if (s.subgroups.size() > s.tile_dims.size())
      return in.Fail("more subgroup dims than tile dims");
  } else {
    return in.Fail("expected replicated, maximal, manual, unknown or devices=");
  }
  // Metadata and other trailing words, up to the closing brace.
  size_t start = in.pos();
  int depth = 0;
  std::string_view rest = in.Rest();
  size_t i = 0;
  bool quoted = false;
  for (; i < rest.size(); ++i) {
    char c = rest[i];
    if (quoted) {
      if (c == '\\') ++i;
      else if (c == '"') quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    else if (c == '{') ++depth;
    else if (c == '}') {
      if (depth == 0) break;
      --depth;
    }
  }
  (void)start;
  s.trailing = std::string(rest.substr(0, i));
  while (!s.trailing.empty() && std::isspace(static_cast<unsigned char>(s.trailing.back())))
    s.trailing.pop_back();
  for (size_t k = 0; k < i; ++k) in.Consume(std::string_view(&rest[k], 1));
  return s;
}

StatusOr<Sharding> ParseOne(Cursor& in) {
  if (!in.Consume("{")) return in.Fail("expected '{'");
  if (in.Peek() == '{' || in.Peek() == '}') {
    Sharding t;
    t.kind = Sharding::Kind::kTuple;
    if (in.Consume("}")) return t;  // {} : a tuple of no leaves
    do {
      ASSIGN_OR_RETURN(Sharding e, ParseOne(in));
      if (e.IsTuple()) return in.Fail("nested tuple shardings are flattened in XLA's text");
      t.elements.push_back(std::move(e));
    } while (in.Consume(","));
    if (!in.Consume("}")) return in.Fail("expected '}' after a tuple sharding");
    return t;
  }
  ASSIGN_OR_RETURN(Sharding s, ParseCore(in));
  if (!in.Consume("}")) return in.Fail("expected '}'");
  return s;
}

void AppendList(std::string& out, const std::vector<int64_t>& v) {
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
}

}  // namespace

std::string_view SubgroupKindName(SubgroupKind kind) {
  switch (kind) {
    case SubgroupKind::kReplicated: return "replicated";
    case SubgroupKind::kManual: return "manual";
    case SubgroupKind::kUnreduced: return "unreduced";
    case SubgroupKind::kMaximal: return "maximal";
  }
  return "?";
}

Sharding Sharding::Tiled(std::vector<int64_t> tile_dims, bool replicate_last) {
  Sharding s;
  s.kind = Kind::kTiled;
  s.tile_dims = std::move(tile_dims);
  int64_t n = Product(s.tile_dims);
  s.tile_devices.resize(static_cast<size_t>(n));
  std::iota(s.tile_devices.begin(), s.tile_devices.end(), 0);
  s.device_list_text = "<=[" + std::to_string(n) + "]";
  if (replicate_last) {
    s.last_tile_dim_replicate = true;
    s.subgroups = {SubgroupKind::kReplicated};
  }
  return s;
}

Sharding Sharding::TiledWithDevices(std::vector<int64_t> tile_dims, std::vector<int64_t> devices,
                                    std::vector<SubgroupKind> subgroups) {
  Sharding s;
  s.kind = Kind::kTiled;
  s.tile_dims = std::move(tile_dims);
  s.tile_devices = std::move(devices);
  bool iota = true;
  for (size_t i = 0; i < s.tile_devices.size(); ++i) iota &= s.tile_devices[i] == static_cast<int64_t>(i);
  if (iota) {
    s.device_list_text = "<=[" + std::to_string(s.tile_devices.size()) + "]";
  } else {
    AppendList(s.device_list_text, s.tile_devices);
  }
  if (subgroups.size() == 1 && subgroups[0] == SubgroupKind::kReplicated) s.last_tile_dim_replicate = true;
  s.subgroups = std::move(subgroups);
  return s;
}

int64_t Sharding::DataRank() const {
  if (kind != Kind::kTiled) return 0;
  return static_cast<int64_t>(tile_dims.size() - subgroups.size());
}

int64_t Sharding::TilesAlong(int64_t dim) const {
  if (kind != Kind::kTiled || dim < 0 || dim >= DataRank()) return 1;
  return tile_dims[static_cast<size_t>(dim)];
}

bool Sharding::IsFullyReplicated() const {
  if (kind == Kind::kReplicated) return true;
  if (kind != Kind::kTiled) return false;
  for (int64_t d = 0; d < DataRank(); ++d)
    if (tile_dims[static_cast<size_t>(d)] != 1) return false;
  for (SubgroupKind k : subgroups)
    if (k != SubgroupKind::kReplicated) return false;
  return true;
}

bool Sharding::IsManual() const {
  if (kind == Kind::kManual) return true;
  if (kind != Kind::kTiled) return false;
  for (int64_t d = 0; d < DataRank(); ++d)
    if (tile_dims[static_cast<size_t>(d)] != 1) return false;
  bool manual = false;
  for (SubgroupKind k : subgroups) manual |= k == SubgroupKind::kManual;
  return manual;
}

int64_t Sharding::DeviceCount() const {
  switch (kind) {
    case Kind::kTiled: {
      int64_t m = 0;
      for (int64_t d : tile_devices) m = std::max(m, d + 1);
      return m;
    }
    case Kind::kMaximal: return device + 1;
    case Kind::kTuple: {
      int64_t m = 1;
      for (const Sharding& e : elements) m = std::max(m, e.DeviceCount());
      return m;
    }
    default: return 1;
  }
}

std::optional<std::vector<int64_t>> Sharding::TileIndexOf(int64_t dev) const {
  if (kind != Kind::kTiled) return std::nullopt;
  auto it = std::find(tile_devices.begin(), tile_devices.end(), dev);
  if (it == tile_devices.end()) return std::nullopt;
  int64_t linear = it - tile_devices.begin();
  std::vector<int64_t> index(tile_dims.size());
  for (size_t i = tile_dims.size(); i-- > 0;) {
    index[i] = linear % tile_dims[i];
    linear /= tile_dims[i];
  }
  return index;
}

int64_t Sharding::DeviceAt(const std::vector<int64_t>& tile_index) const {
  int64_t linear = 0;
  for (size_t i = 0; i < tile_dims.size(); ++i) linear = linear * tile_dims[i] + tile_index[i];
  return tile_devices[static_cast<size_t>(linear)];
}

StatusOr<Shape> Sharding::ShardShape(const Shape& global) const {
  if (global.IsTuple()) {
    Shape out = global;
    for (size_t i = 0; i < out.tuple_shapes().size(); ++i) {
      const Sharding& leaf = kind == Kind::kTuple ? (i < elements.size() ? elements[i] : *this) : *this;
      if (kind == Kind::kTuple && i >= elements.size())
        return InvalidArgument("tuple sharding has " + std::to_string(elements.size()) +
                               " elements for a tuple of " + std::to_string(out.tuple_shapes().size()));
      ASSIGN_OR_RETURN((*out.mutable_tuple_shapes())[i], leaf.ShardShape(global.tuple_shapes()[i]));
    }
    return out;
  }
  if (kind == Kind::kTuple) {
    if (elements.size() != 1) return InvalidArgument("tuple sharding on an array shape");
    return elements[0].ShardShape(global);
  }
  if (kind != Kind::kTiled) return global;
  if (DataRank() != static_cast<int64_t>(global.rank())) {
    return InvalidArgument("sharding " + ToString() + " has " + std::to_string(DataRank()) +
                           " data dims for a rank-" + std::to_string(global.rank()) + " array");
  }
  Shape out = global;
  for (int64_t d = 0; d < DataRank(); ++d) {
    int64_t t = tile_dims[static_cast<size_t>(d)];
    int64_t n = global.dimensions(d);
    out.set_dimension(d, (n + t - 1) / t);
  }
  return out;
}

StatusOr<std::vector<int64_t>> Sharding::ShardOffsets(const Shape& global, int64_t dev) const {
  std::vector<int64_t> offsets(global.rank(), 0);
  if (kind == Kind::kMaximal && dev != device)
    return InvalidArgument("device " + std::to_string(dev) + " holds nothing of " + ToString());
  if (kind != Kind::kTiled) return offsets;
  auto index = TileIndexOf(dev);
  if (!index) return InvalidArgument("device " + std::to_string(dev) + " is not in " + ToString());
  ASSIGN_OR_RETURN(Shape shard, ShardShape(global));
  for (size_t d = 0; d < offsets.size(); ++d) offsets[d] = (*index)[d] * shard.dimensions()[d];
  return offsets;
}

const Sharding& Sharding::Leaf(size_t index) const {
  if (kind == Kind::kTuple && index < elements.size()) return elements[index];
  return *this;
}

std::string Sharding::ToString() const {
  std::string out = "{";
  switch (kind) {
    case Kind::kReplicated: out += "replicated"; break;
    case Kind::kManual: out += "manual"; break;
    case Kind::kUnknown: out += "unknown"; break;
    case Kind::kMaximal: out += "maximal device=" + std::to_string(device); break;
    case Kind::kTuple:
      for (size_t i = 0; i < elements.size(); ++i) out += (i ? ", " : "") + elements[i].ToString();
      return out + "}";
    case Kind::kTiled:
      out += "devices=[";
      AppendList(out, tile_dims);
      out += "]" + device_list_text;
      if (last_tile_dim_replicate) {
        out += " last_tile_dim_replicate";
      } else if (!subgroups.empty()) {
        out += " last_tile_dims={";
        for (size_t i = 0; i < subgroups.size(); ++i)
          out += std::string(i ? ", " : "") + std::string(SubgroupKindName(subgroups[i]));
        out += "}";
      }
      break;
  }
  if (!trailing.empty()) out += " " + trailing;
  return out + "}";
}

bool Sharding::SameMeaning(const Sharding& o) const {
  if (IsFullyReplicated() && o.IsFullyReplicated()) return true;
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::kMaximal: return device == o.device;
    case Kind::kTiled:
      return tile_dims == o.tile_dims && tile_devices == o.tile_devices && subgroups == o.subgroups;
    case Kind::kTuple:
      if (elements.size() != o.elements.size()) return false;
      for (size_t i = 0; i < elements.size(); ++i)
        if (!elements[i].SameMeaning(o.elements[i])) return false;
      return true;
    default: return true;
  }
}

StatusOr<Sharding> ParseSharding(std::string_view text) {
  Cursor in(text);
  if (in.Peek() != '{') {
    // Without the outer braces.
    std::string braced = "{" + std::string(text) + "}";
    Cursor b(braced);
    ASSIGN_OR_RETURN(Sharding s, ParseOne(b));
    if (!b.AtEnd()) return b.Fail("unexpected text after the sharding");
    return s;
  }
  ASSIGN_OR_RETURN(Sharding s, ParseOne(in));
  if (!in.AtEnd()) {
    // "replicated}" style text without the opening brace reads as a core.
    return in.Fail("unexpected text after the sharding");
  }
  return s;
}

StatusOr<std::optional<Sharding>> ShardingOf(const Instruction& inst) {
  if (!inst.attrs().has_sharding) return std::optional<Sharding>();
  auto s = ParseSharding("{" + inst.attrs().sharding + "}");
  if (!s.ok()) return InvalidArgument("%" + inst.name() + ": " + std::string(s.status().message()));
  return std::optional<Sharding>(std::move(*s));
}

// --- Programs -----------------------------------------------------------------------

int64_t DevicesOfModule(const Module& module) {
  int64_t n = std::max<int64_t>(1, module.num_partitions.value_or(1)) *
              std::max<int64_t>(1, module.replica_count.value_or(1));
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (IsCrossDeviceCollective(inst->opcode())) {
        auto cd = DevicesOfCollective(*inst);
        if (cd.ok()) n = std::max(n, cd->devices);
      }
      auto s = ShardingOf(*inst);
      if (s.ok() && s->has_value()) n = std::max(n, (*s)->DeviceCount());
    }
  }
  return n;
}

bool IsPerDeviceProgram(const Module& module) {
  for (const auto& [key, value] : module.frontend_attributes) {
    if (key.rfind("xla.sdy.", 0) == 0) return false;
  }
  // XLA names a partitioned entry computation `<name>_spmd`, as the spmd-partitioner does.
  const std::string& entry_name = module.entry() != nullptr ? module.entry()->name() : std::string();
  bool per_device = module.is_scheduled.value_or(false) ||
                    (entry_name.size() > 5 && entry_name.compare(entry_name.size() - 5, 5, "_spmd") == 0);
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      const Opcode op = inst->opcode();
      if (op == Opcode::kCustomCall) {
        const std::string& t = inst->attrs().custom_call_target;
        if (t == "Sharding" || t == "SPMDFullToShardShape" || t == "SPMDShardToFullShape" ||
            t.rfind("xla.sdy.", 0) == 0)
          return false;
      }
      if (IsCrossDeviceCollective(op) || op == Opcode::kPartitionId || op == Opcode::kReplicaId) per_device = true;
    }
  }
  return per_device;
}

// --- Shardy ----------------------------------------------------------------------------

std::string UnescapeFrontendValue(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i];
    } else {
      out += text[i];
    }
  }
  return out;
}

int64_t SdyMesh::DeviceCount() const {
  int64_t n = 1;
  for (const auto& [name, size] : axes) n *= size;
  return n;
}

namespace {

// `<["d"=4, "x"=2], device_ids=[...]>` after `#sdy.mesh`.
StatusOr<SdyMesh> ParseSdyMeshBody(Cursor& in, std::string name) {
  SdyMesh mesh;
  mesh.name = std::move(name);
  if (!in.Consume("<")) return in.Fail("expected '<' after #sdy.mesh");
  if (in.Consume("[")) {
    if (!in.Consume("]")) {
      do {
        ASSIGN_OR_RETURN(std::string axis, in.Name());
        if (!in.Consume("=")) return in.Fail("expected '=' after mesh axis " + axis);
        ASSIGN_OR_RETURN(int64_t size, in.Int());
        if (size <= 0 || size > kMaxShardingDevices) return in.Fail("mesh axis size out of range");
        mesh.axes.push_back({axis, size});
      } while (in.Consume(","));
      if (!in.Consume("]")) return in.Fail("expected ']' after mesh axes");
    }
    if (in.Consume(",")) {
      if (!in.Keyword("device_ids") || !in.Consume("=")) return in.Fail("expected device_ids=");
      ASSIGN_OR_RETURN(mesh.device_ids, in.IntList('[', ']'));
    }
  } else if (in.Keyword("device_ids")) {
    // maximal mesh: <device_ids=[3]>
    if (!in.Consume("=")) return in.Fail("expected '='");
    ASSIGN_OR_RETURN(mesh.device_ids, in.IntList('[', ']'));
  }
  if (!in.Consume(">")) return in.Fail("expected '>' after the mesh");
  if (mesh.DeviceCount() > kMaxShardingDevices) return in.Fail("mesh too large");
  if (!mesh.device_ids.empty() && static_cast<int64_t>(mesh.device_ids.size()) != mesh.DeviceCount() &&
      !mesh.axes.empty())
    return in.Fail("device_ids do not match the mesh size");
  return mesh;
}

StatusOr<SdyTensorSharding> ParseSdyTensorSharding(Cursor& in) {
  SdyTensorSharding s;
  if (!in.Consume("<")) return in.Fail("expected '<' to open a Shardy sharding");
  if (in.Consume("@")) {
    ASSIGN_OR_RETURN(s.mesh, in.Name());
  } else if (in.Consume("#sdy.mesh")) {
    // An inline mesh: not named; keep its text as the name.
    ASSIGN_OR_RETURN(std::string_view body, in.Balanced('<', '>'));
    s.mesh = "#inline<" + std::string(body) + ">";
  } else {
    return in.Fail("expected @mesh");
  }
  if (!in.Consume(",") || !in.Consume("[")) return in.Fail("expected ', [' after the mesh");
  if (!in.Consume("]")) {
    do {
      if (!in.Consume("{")) return in.Fail("expected '{' for a dimension's axes");
      std::vector<std::string> axes;
      bool closed = true;
      if (!in.Consume("}")) {
        do {
          if (in.Consume("?")) {
            closed = false;
            continue;
          }
          ASSIGN_OR_RETURN(std::string axis, in.Name());
          if (in.Peek() == ':') return in.Fail("sub-axes ('" + axis + "':(k)n) are not supported");
          axes.push_back(axis);
        } while (in.Consume(","));
        if (!in.Consume("}")) return in.Fail("expected '}' after a dimension's axes");
      }
      if (in.Consume("p")) {  // priority p0, p1...
        (void)in.Int();
      }
      s.dims.push_back(std::move(axes));
      s.dim_closed.push_back(closed);
    } while (in.Consume(","));
    if (!in.Consume("]")) return in.Fail("expected ']' after the dimensions");
  }
  while (in.Consume(",")) {
    bool replicated = in.Keyword("replicated");
    if (!replicated && !in.Keyword("unreduced")) return in.Fail("expected replicated= or unreduced=");
    if (!in.Consume("=") || !in.Consume("{")) return in.Fail("expected ={...}");
    if (!in.Consume("}")) {
      do {
        ASSIGN_OR_RETURN(std::string axis, in.Name());
        (replicated ? s.replicated : s.unreduced).push_back(axis);
      } while (in.Consume(","));
      if (!in.Consume("}")) return in.Fail("expected '}'");
    }
  }
  if (!in.Consume(">")) return in.Fail("expected '>' to close a Shardy sharding");
  return s;
}

}  // namespace

StatusOr<std::vector<SdyMesh>> ParseSdyMeshes(std::string_view raw) {
  std::string text = UnescapeFrontendValue(raw);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  Cursor in(text);
  std::vector<SdyMesh> meshes;
  if (!in.Consume("{")) return in.Fail("expected '{' to open xla.sdy.meshes");
  if (in.Consume("}")) return meshes;
  do {
    ASSIGN_OR_RETURN(std::string name, in.Name());
    if (!in.Consume("=")) return in.Fail("expected '=' after mesh name " + name);
    if (!in.Consume("#sdy.mesh")) return in.Fail("expected #sdy.mesh");
    ASSIGN_OR_RETURN(SdyMesh mesh, ParseSdyMeshBody(in, name));
    meshes.push_back(std::move(mesh));
  } while (in.Consume(","));
  if (!in.Consume("}")) return in.Fail("expected '}' to close xla.sdy.meshes");
  return meshes;
}

StatusOr<std::vector<SdyTensorSharding>> ParseSdyShardings(std::string_view raw) {
  std::string text = UnescapeFrontendValue(raw);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  Cursor in(text);
  std::vector<SdyTensorSharding> out;
  bool wrapped = false;
  if (in.Consume("#sdy.sharding_per_value")) {
    if (!in.Consume("<")) return in.Fail("expected '<'");
    wrapped = true;
  } else if (in.Consume("#sdy.sharding")) {
    ASSIGN_OR_RETURN(SdyTensorSharding s, ParseSdyTensorSharding(in));
    out.push_back(std::move(s));
    if (!in.AtEnd()) return in.Fail("unexpected text after the sharding");
    return out;
  }
  if (!in.Consume("[")) return in.Fail("expected '['");
  if (!in.Consume("]")) {
    do {
      in.Consume("#sdy.sharding");
      ASSIGN_OR_RETURN(SdyTensorSharding s, ParseSdyTensorSharding(in));
      out.push_back(std::move(s));
    } while (in.Consume(","));
    if (!in.Consume("]")) return in.Fail("expected ']'");
  }
  if (wrapped && !in.Consume(">")) return in.Fail("expected '>'");
  if (!in.AtEnd()) return in.Fail("unexpected text after the shardings");
  return out;
}

StatusOr<std::vector<std::string>> ParseSdyManualAxes(std::string_view raw) {
  std::string text = UnescapeFrontendValue(raw);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  Cursor in(text);
  bool wrapped = in.Consume("#sdy<manual_axes");
  if (!in.Consume("{")) return in.Fail("expected '{' for manual axes");
  std::vector<std::string> axes;
  if (!in.Consume("}")) {
    do {
      ASSIGN_OR_RETURN(std::string axis, in.Name());
      axes.push_back(axis);
    } while (in.Consume(","));
    if (!in.Consume("}")) return in.Fail("expected '}'");
  }
  if (wrapped && !in.Consume(">")) return in.Fail("expected '>'");
  return axes;
}

StatusOr<Sharding> SdyToSharding(const SdyTensorSharding& sharding, const SdyMesh& mesh, int64_t rank,
                                 const std::vector<std::string>& manual_axes) {
  // A mesh without axes (jax's `maximal_mesh_N`, device_ids=[N]) splits nothing: the value
  // lives on that one device (or everywhere), whatever its rank. jax writes no dimensions
  // for it (`<@maximal_mesh_0, []>`) or empty ones.
  bool splits = false;
  for (const auto& axes : sharding.dims) splits = splits || !axes.empty();
  if (mesh.axes.empty() && !splits) {
    if (mesh.device_ids.size() == 1) return Sharding::Maximal(mesh.device_ids[0]);
    return Sharding::Replicated();
  }
  if (static_cast<int64_t>(sharding.dims.size()) != rank) {
    return InvalidArgument("Shardy sharding on @" + sharding.mesh + " has " +
                           std::to_string(sharding.dims.size()) + " dimensions for a rank-" +
                           std::to_string(rank) + " value");
  }
  auto axis_index = [&](const std::string& name) -> int64_t {
    for (size_t i = 0; i < mesh.axes.size(); ++i)
      if (mesh.axes[i].first == name) return static_cast<int64_t>(i);
    return -1;
  };
  std::vector<bool> used(mesh.axes.size(), false);
  std::vector<int64_t> order;  // mesh axes in tile-dim order
  std::vector<int64_t> tile_dims;
  for (const auto& axes : sharding.dims) {
    int64_t tiles = 1;
    for (const std::string& a : axes) {
      int64_t k = axis_index(a);
      if (k < 0) return InvalidArgument("Shardy sharding names axis '" + a + "' not in mesh @" + mesh.name);
      if (used[static_cast<size_t>(k)]) return InvalidArgument("Shardy sharding uses axis '" + a + "' twice");
      used[static_cast<size_t>(k)] = true;
      order.push_back(k);
      tiles *= mesh.axes[static_cast<size_t>(k)].second;
    }
    tile_dims.push_back(tiles);
  }
  std::vector<SubgroupKind> subgroups;
  int64_t manual = 1;
  for (const std::string& a : manual_axes) {
    int64_t k = axis_index(a);
    if (k < 0) return InvalidArgument("manual axis '" + a + "' not in mesh @" + mesh.name);
    if (used[static_cast<size_t>(k)]) continue;
    used[static_cast<size_t>(k)] = true;
    order.push_back(k);
    manual *= mesh.axes[static_cast<size_t>(k)].second;
  }
  if (manual > 1) {
    tile_dims.push_back(manual);
    subgroups.push_back(SubgroupKind::kManual);
  }
  int64_t replicated = 1;
  for (size_t k = 0; k < mesh.axes.size(); ++k) {
    if (used[k]) continue;
    order.push_back(static_cast<int64_t>(k));
    replicated *= mesh.axes[k].second;
  }
  if (replicated > 1) {
    tile_dims.push_back(replicated);
    subgroups.push_back(SubgroupKind::kReplicated);
  }
  // Devices: the mesh's device order (iota or device_ids) reshaped to the axes and
  // transposed into `order`.
  std::vector<int64_t> sizes;
  for (const auto& [name, size] : mesh.axes) sizes.push_back(size);
  ASSIGN_OR_RETURN(std::vector<int64_t> positions, ExpandIotaDeviceList(sizes, order));
  std::vector<int64_t> devices;
  devices.reserve(positions.size());
  for (int64_t p : positions)
    devices.push_back(mesh.device_ids.empty() ? p : mesh.device_ids[static_cast<size_t>(p)]);
  bool all_one = true;
  for (int64_t d = 0; d < rank; ++d) all_one &= tile_dims[static_cast<size_t>(d)] == 1;
  if (all_one && manual == 1) return Sharding::Replicated();
  if (all_one && manual > 1 && replicated == 1 && rank == 0) return Sharding::Manual();
  Sharding s = Sharding::TiledWithDevices(tile_dims, devices, subgroups);
  if (subgroups.size() == 1 && subgroups[0] == SubgroupKind::kReplicated) s.last_tile_dim_replicate = true;
  // XLA writes iota lists with their transpose when that is shorter.
  if (!mesh.device_ids.empty() || order.empty()) return s;
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity &= order[i] == static_cast<int64_t>(i);
  if (!identity) {
    std::string text = "<=[";
    for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
    text += "]T(";
    for (size_t i = 0; i < order.size(); ++i) text += (i ? "," : "") + std::to_string(order[i]);
    s.device_list_text = text + ")";
  }
  return s;
}

namespace {

// "ij" -> {"i", "j"}; "z_1k" -> {"z_1", "k"}.
std::vector<std::string> SplitFactors(const std::string& name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < name.size();) {
    size_t end = i + 1;
    if (end < name.size() && name[end] == '_') {
      ++end;
      while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
    }
    out.push_back(name.substr(i, end - i));
    i = end;
  }
  return out;
}

StatusOr<std::vector<SdyOpShardingRule::Dims>> ParseRuleTensors(Cursor& in) {
  std::vector<SdyOpShardingRule::Dims> tensors;
  if (!in.Consume("(")) return in.Fail("expected '(' before a rule's tensors");
  if (in.Consume(")")) return tensors;
  do {
    if (!in.Consume("[")) return in.Fail("expected '[' before a tensor's factors");
    SdyOpShardingRule::Dims dims;
    if (!in.Consume("]")) {
      do {
        ASSIGN_OR_RETURN(std::string name, in.Name("factor", ""));
        for (char c : name) {
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return in.Fail("bad factor name '" + name + "'");
        }
        if (!std::isalpha(static_cast<unsigned char>(name[0]))) return in.Fail("bad factor name '" + name + "'");
        dims.push_back(SplitFactors(name));
      } while (in.Consume(","));
      if (!in.Consume("]")) return in.Fail("expected ']' after a tensor's factors");
    }
    tensors.push_back(std::move(dims));
  } while (in.Consume(","));
  if (!in.Consume(")")) return in.Fail("expected ')' after a rule's tensors");
  return tensors;
}

}  // namespace

StatusOr<SdyOpShardingRule> ParseSdyOpShardingRule(std::string_view raw) {
  std::string text = UnescapeFrontendValue(raw);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = text.substr(1, text.size() - 2);
  Cursor in(text);
  if (!in.Consume("#sdy.op_sharding_rule<")) return in.Fail("expected '#sdy.op_sharding_rule<'");
  SdyOpShardingRule rule;
  ASSIGN_OR_RETURN(rule.operands, ParseRuleTensors(in));
  if (!in.Consume("->")) return in.Fail("expected '->'");
  ASSIGN_OR_RETURN(rule.results, ParseRuleTensors(in));
  if (!in.Consume("{")) return in.Fail("expected '{' before the factor sizes");
  if (!in.Consume("}")) {
    do {
      ASSIGN_OR_RETURN(std::string name, in.Name("factor", ""));
      if (!in.Consume("=")) return in.Fail("expected '=' after factor " + name);
      ASSIGN_OR_RETURN(int64_t size, in.Int());
      if (size < 1) return in.Fail("factor " + name + " has size " + std::to_string(size));
      rule.sizes.push_back({name, size});
    } while (in.Consume(","));
    if (!in.Consume("}")) return in.Fail("expected '}' after the factor sizes");
  }
  while (in.Consume(",")) {
    if (in.Keyword("custom")) {
      rule.custom = true;
      continue;
    }
    ASSIGN_OR_RETURN(std::string key, in.Name("rule attribute", ""));
    if (key != "reduction" && key != "need_replication" && key != "permutation" && key != "blocked_propagation")
      return in.Fail("unknown rule attribute '" + key + "'");
    if (!in.Consume("=") || !in.Consume("{")) return in.Fail("expected '={' after " + key);
    if (!in.Consume("}")) {
      do {
        ASSIGN_OR_RETURN(std::string name, in.Name("factor", ""));
        rule.restricted.push_back(name);
      } while (in.Consume(","));
      if (!in.Consume("}")) return in.Fail("expected '}' after " + key);
    }
  }
  if (!in.Consume(">") || !in.AtEnd()) return in.Fail("expected '>' ending the rule");
  for (const auto* side : {&rule.operands, &rule.results}) {
    for (const auto& dims : *side) {
      for (const auto& dim : dims) {
        for (const std::string& f : dim) {
          if (rule.SizeOf(f) < 0) return InvalidArgument("sharding rule: factor '" + f + "' has no size in '" + text + "'");
        }
      }
    }
  }
  return rule;
}

bool SdyOpShardingRule::Fits(const Dims& dims, const Shape& shape) const {
  if (!shape.IsArray() || static_cast<int64_t>(dims.size()) != shape.rank()) return false;
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string f = PassThrough(dims[d]);
    if (!f.empty() && SizeOf(f) != shape.dimensions(static_cast<int64_t>(d))) return false;
  }
  return true;
}

StatusOr<std::optional<SdyOpShardingRule>> ShardingRuleOf(const Instruction& inst) {
  if (!inst.has_attributes()) return std::optional<SdyOpShardingRule>();
  for (const auto& [key, value] : inst.attrs().frontend_attributes) {
    if (key != "xla.sdy.sharding_rule") continue;
    ASSIGN_OR_RETURN(SdyOpShardingRule rule, ParseSdyOpShardingRule(value));
    return std::optional<SdyOpShardingRule>(std::move(rule));
  }
  return std::optional<SdyOpShardingRule>();
}

int64_t SdyOpShardingRule::SizeOf(const std::string& factor) const {
  for (const auto& [name, size] : sizes)
    if (name == factor) return size;
  return -1;
}

std::string SdyOpShardingRule::PassThrough(const std::vector<std::string>& dim) const {
  if (dim.size() != 1) return "";
  const std::string& f = dim[0];
  if (std::find(restricted.begin(), restricted.end(), f) != restricted.end()) return "";
  bool in_operand = false, in_result = false;
  for (const auto* side : {&operands, &results}) {
    for (const auto& dims : *side) {
      for (const auto& d : dims) {
        if (std::find(d.begin(), d.end(), f) == d.end()) continue;
        if (d.size() != 1) return "";
        (side == &operands ? in_operand : in_result) = true;
      }
    }
  }
  return in_operand && in_result ? f : "";
}

}  // namespace fusebox
