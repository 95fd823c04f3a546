// Collective instructions' devices, in every replica-group syntax, and the check that a
// run has the devices they need. See collectives.h.
#include "compiler/ir/collectives.h"

#include "compiler/support/text_cursor.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace fusebox {

namespace {

// Far more devices than any machine; guards the expansions against absurd sizes.
constexpr int64_t kMaxDevices = int64_t{1} << 22;

std::string Braced(const std::vector<int64_t>& ids) {
  std::string out = "{";
  // Long groups are cut: the message names the group, not every member of 8192.
  const size_t shown = ids.size() > 16 ? 15 : ids.size();
  for (size_t i = 0; i < shown; ++i) {
    if (i) out += ',';
    out += std::to_string(ids[i]);
  }
  if (shown < ids.size()) out += ",...," + std::to_string(ids.back());
  return out + "}";
}

std::string PairsText(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  std::string out = "{";
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i) out += ',';
    out += "{" + std::to_string(pairs[i].first) + "," + std::to_string(pairs[i].second) + "}";
  }
  return out + "}";
}

// A cursor over the mesh text; errors name the attribute and the offset.
class MeshText : public TextCursor {
 public:
  explicit MeshText(std::string_view text)
      : TextCursor(text, [text](const std::string& what, size_t pos) {
          return "cannot read replica_groups=" + std::string(text) + ": " + what + " at offset " + std::to_string(pos);
        }) {}
  StatusOr<std::string> Name() { return TextCursor::Name("axis name", "."); }
};

// Row-major ids of an iota [reshape_dims] transposed by `perm`, flattened.
StatusOr<std::vector<int64_t>> IotaDevices(const std::vector<int64_t>& dims,
                                           const std::vector<int64_t>& perm) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0 || n > kMaxDevices / d)
      return InvalidArgument("iota device list with dimensions out of range");
    n *= d;
  }
  std::vector<int64_t> order = perm;
  if (order.empty()) {
    for (size_t i = 0; i < dims.size(); ++i) order.push_back(static_cast<int64_t>(i));
  }
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != dims.size()) {
      return InvalidArgument(
          "iota transpose T(...) is not a permutation of the reshape dimensions");
    }
  }
  // Strides of the original (untransposed) dims.
  std::vector<int64_t> stride(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) stride[i - 1] = stride[i] * dims[i];
  std::vector<int64_t> tdims;
  for (int64_t k : order) tdims.push_back(dims[static_cast<size_t>(k)]);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(n));
  std::vector<int64_t> t(tdims.size(), 0);
  for (int64_t j = 0; j < n; ++j) {
    int64_t value = 0;
    for (size_t k = 0; k < t.size(); ++k) value += t[k] * stride[static_cast<size_t>(order[k])];
    out.push_back(value);
    for (size_t k = t.size(); k-- > 0;) {
      if (++t[k] < tdims[k]) break;
      t[k] = 0;
    }
  }
  return out;
}

// "[2,2]<=[2,2]T(1,0)" as reshape dims and permutation (the group shape is ignored).
StatusOr<std::vector<int64_t>> ParseIotaDeviceList(MeshText& in) {
  auto list = [&](char open, char close) -> StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> v;
    if (!in.Consume(std::string(1, open))) return in.Fail(std::string("expected '") + open + "'");
    if (in.Consume(std::string(1, close))) return v;
    do {
      ASSIGN_OR_RETURN(int64_t x, in.Int());
      v.push_back(x);
    } while (in.Consume(","));
    if (!in.Consume(std::string(1, close))) return in.Fail(std::string("expected '") + close + "'");
    return v;
  };
  // [shape]<=[reshape]T(perm), or, in a mesh's device order, only [reshape]T(perm): the
  // mesh's axes are the shape.
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, list('[', ']'));
  if (in.Consume("<=")) {
    ASSIGN_OR_RETURN(dims, list('[', ']'));
  }
  std::vector<int64_t> perm;
  if (in.Consume("T")) {
    ASSIGN_OR_RETURN(perm, list('(', ')'));
  }
  return IotaDevices(dims, perm);
}

// XLA's mode for `inst`: all-reduce, all-gather and reduce-scatter always have a
// use_global_device_ids (false unless written); the other collectives have none.
CollectiveGroupMode ModeOf(const Instruction& inst) {
  const InstructionAttributes& a = inst.attrs();
  if (!a.channel_id.has_value()) return CollectiveGroupMode::kCrossReplica;
  switch (inst.opcode()) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveReduce:
      return a.use_global_device_ids.value_or(false)
                 ? CollectiveGroupMode::kFlattenedId
                 : CollectiveGroupMode::kCrossReplicaAndPartition;
    default:
      return a.use_global_device_ids.value_or(false) ? CollectiveGroupMode::kFlattenedId
                                                     : CollectiveGroupMode::kCrossPartition;
  }
}

int64_t MaxId(const std::vector<std::vector<int64_t>>& groups) {
  int64_t m = -1;
  for (const auto& g : groups) {
    for (int64_t id : g) m = std::max(m, id);
  }
  return m;
}

}  // namespace

std::string_view CollectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "?";
}

bool IsCrossDeviceCollective(Opcode opcode) { return IsCollective(opcode); }

bool IsAnnotationCustomCall(std::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
         target == "MoveToHost" || target == "MoveToDevice" || target == "annotate_device_placement" ||
         target == "xla.sdy.GlobalToLocalShape" || target == "xla.sdy.LocalToGlobalShape" ||
         target == "LayoutConstraint" || target == "xla.sdy.FuncResultSharding" ||
         target == "xla.sdy.ShardingConstraint";
}

bool IsHostCallbackCustomCall(std::string_view target) {
  return target == "xla_python_cpu_callback" || target == "xla_ffi_python_cpu_callback" ||
         target == "xla_python_gpu_callback" || target == "xla_ffi_python_gpu_callback";
}

bool IsResultlessHostCallback(const Instruction& instruction) {
  if (instruction.opcode() != Opcode::kCustomCall || !IsHostCallbackCustomCall(instruction.attrs().custom_call_target)) {
    return false;
  }
  const Shape& shape = instruction.shape();
  return shape.IsTuple() && shape.tuple_size() == 0;
}

std::vector<std::string> HostCallbackNotes(const Module& module) {
  std::vector<std::string> notes;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (!IsResultlessHostCallback(*inst)) continue;
      std::string where = "%" + inst->name();
      if (inst->location().known()) where += " (line " + std::to_string(inst->location().line) + ")";
      notes.push_back(where + ": a Python callback without results (" + inst->attrs().custom_call_target +
                      ": jax.debug.print, io_callback) is skipped: Fusebox cannot run Python, so nothing it "
                      "would print appears; no value depends on it");
    }
  }
  return notes;
}

StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaReplicaGroups(const ReplicaGroups& groups) {
  if (groups.iota_group_shape.size() != 2) {
    return InvalidArgument("iota replica groups need a [groups,size] shape, not [" +
                           std::to_string(groups.iota_group_shape.size()) + " dims]");
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> ids,
                   IotaDevices(groups.iota_reshape_dims, groups.iota_transpose_perm));
  const int64_t count = groups.iota_group_shape[0];
  const int64_t size = groups.iota_group_shape[1];
  if (count < 0 || size < 0 || count * size != static_cast<int64_t>(ids.size())) {
    return InvalidArgument("iota replica groups " + groups.ToString() + ": " +
                           std::to_string(count) + "x" + std::to_string(size) +
                           " ids from a list of " + std::to_string(ids.size()));
  }
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(count));
  for (int64_t g = 0; g < count; ++g) {
    out[static_cast<size_t>(g)].assign(ids.begin() + g * size, ids.begin() + (g + 1) * size);
  }
  return out;
}

StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshReplicaGroups(std::string_view text) {
  MeshText in(text);
  if (in.Consume("maximal_mesh")) {
    if (!in.Consume("[") || !in.Consume("device_id") || !in.Consume("="))
      return in.Fail("expected [device_id=N]");
    ASSIGN_OR_RETURN(int64_t device, in.Int());
    if (!in.Consume("]")) return in.Fail("expected ']'");
    if (device < 0) return in.Fail("negative device id");
    return std::vector<std::vector<int64_t>>{{device}};
  }
  if (!in.Consume("mesh") || !in.Consume("[")) return in.Fail("expected mesh[...]");
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  int64_t devices = 1;
  if (!in.Consume("]")) {
    do {
      ASSIGN_OR_RETURN(std::string name, in.Name());
      if (!in.Consume("=")) return in.Fail("expected '=' after axis " + name);
      ASSIGN_OR_RETURN(int64_t size, in.Int());
      if (size <= 0 || devices > kMaxDevices / size)
        return in.Fail("axis " + name + " has size out of range");
      devices *= size;
      names.push_back(std::move(name));
      sizes.push_back(size);
    } while (in.Consume(","));
    if (!in.Consume("]")) return in.Fail("expected ']'");
  }
  // An optional device order: device_ids=(<iota> or a list of ids).
  std::vector<int64_t> device_ids;
  if (in.Consume(",")) {
    if (!in.Consume("device_ids") || !in.Consume("=") || !in.Consume("("))
      return in.Fail("expected device_ids=(...)");
    ASSIGN_OR_RETURN(std::string_view inside, in.UntilClosingParen());
    if (inside.find("<=") != std::string_view::npos || inside.find('T') != std::string_view::npos) {
      MeshText iota(inside);
      ASSIGN_OR_RETURN(device_ids, ParseIotaDeviceList(iota));
    } else {
      std::string digits;
      for (char c : inside) {
        if (std::isdigit(static_cast<unsigned char>(c))) {
          digits += c;
          // No device number has 19 digits (std::stoll would throw on some).
          if (digits.size() > 18) return in.Fail("device id " + digits + "... is out of range");
        } else if (!digits.empty()) {
          device_ids.push_back(std::stoll(digits));
          digits.clear();
        }
      }
      if (!digits.empty()) device_ids.push_back(std::stoll(digits));
    }
    if (static_cast<int64_t>(device_ids.size()) != devices) {
      return in.Fail("device_ids has " + std::to_string(device_ids.size()) + " ids for a mesh of " +
                     std::to_string(devices) + " devices");
    }
  }
  // The grouped axes: name or name:(pre_size)size.
  struct Piece {
    size_t axis;
    int64_t pre;
    int64_t size;
  };
  std::vector<Piece> pieces;
  if (!in.Consume("{")) return in.Fail("expected '{' and the axes of the groups");
  if (!in.Consume("}")) {
    do {
      ASSIGN_OR_RETURN(std::string name, in.Name());
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) return in.Fail("axis '" + name + "' is not an axis of the mesh");
      const size_t axis = static_cast<size_t>(it - names.begin());
      Piece piece{axis, 1, sizes[axis]};
      if (in.Consume(":")) {
        if (!in.Consume("(")) return in.Fail("expected ':(pre-size)size'");
        ASSIGN_OR_RETURN(piece.pre, in.Int());
        if (!in.Consume(")")) return in.Fail("expected ')'");
        ASSIGN_OR_RETURN(piece.size, in.Int());
        if (piece.pre <= 0 || piece.size <= 0 || sizes[axis] % (piece.pre * piece.size) != 0) {
          return in.Fail("sub-axis " + name + ":(" + std::to_string(piece.pre) + ")" +
                         std::to_string(piece.size) + " does not divide the axis of size " +
                         std::to_string(sizes[axis]));
        }
      }
      pieces.push_back(piece);
    } while (in.Consume(","));
    if (!in.Consume("}")) return in.Fail("expected '}'");
  }
  if (!in.AtEnd()) return in.Fail("unexpected text");

  // A device's group is keyed by its mesh coordinates with the grouped (sub-)axes zeroed.
  std::map<int64_t, size_t> group_of_key;
  std::vector<std::vector<int64_t>> groups;
  std::vector<int64_t> coord(sizes.size(), 0);
  for (int64_t linear = 0; linear < devices; ++linear) {
    std::vector<int64_t> key = coord;
    for (const Piece& p : pieces) {
      const int64_t post = sizes[p.axis] / (p.pre * p.size);
      const int64_t b = (coord[p.axis] / post) % p.size;
      key[p.axis] -= b * post;
    }
    int64_t key_linear = 0;
    for (size_t i = 0; i < sizes.size(); ++i) key_linear = key_linear * sizes[i] + key[i];
    auto [it, inserted] = group_of_key.emplace(key_linear, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(device_ids.empty() ? linear
                                                    : device_ids[static_cast<size_t>(linear)]);
    for (size_t i = sizes.size(); i-- > 0;) {
      if (++coord[i] < sizes[i]) break;
      coord[i] = 0;
    }
  }
  return groups;
}

StatusOr<CollectiveDevices> DevicesOfCollective(const Instruction& inst) {
  if (!IsCrossDeviceCollective(inst.opcode())) {
    return NotFound("%" + inst.name() + " (" + std::string(OpcodeName(inst.opcode())) +
                    ") is not a collective");
  }
  const Computation* comp = inst.parent();
  const Module* module = comp != nullptr ? comp->parent() : nullptr;
  int64_t replicas = module != nullptr ? module->replica_count.value_or(1) : 1;
  int64_t partitions = module != nullptr ? module->num_partitions.value_or(1) : 1;
  replicas = std::max<int64_t>(replicas, 1);
  partitions = std::max<int64_t>(partitions, 1);
  const InstructionAttributes& a = inst.attrs();
  CollectiveDevices out;
  out.mode = ModeOf(inst);

  // The ids as written, in the id space of the mode.
  std::vector<std::vector<int64_t>> written;
  bool all_in_one = false;  // replica_groups={} or none: one group of every id
  const bool permute = inst.opcode() == Opcode::kCollectivePermute ||
                       inst.opcode() == Opcode::kCollectivePermuteStart;
  if (permute) {
    out.pairs = true;
    out.written = "source_target_pairs=" + PairsText(a.source_target_pairs);
    for (const auto& [s, t] : a.source_target_pairs) written.push_back({s, t});
  } else if (!a.replica_groups.has_value()) {
    out.written = "no replica_groups";
    all_in_one = true;
  } else {
    const ReplicaGroups& rg = *a.replica_groups;
    out.written = "replica_groups=" + rg.ToString();
    if (!rg.raw.empty()) {
      auto expanded = ExpandMeshReplicaGroups(rg.raw);
      if (!expanded.ok()) return expanded.status();
      written = std::move(*expanded);
    } else if (rg.iota) {
      ASSIGN_OR_RETURN(written, ExpandIotaReplicaGroups(rg));
    } else {
      written = rg.groups;
      all_in_one = written.empty();
    }
  }
  for (const auto& g : written) {
    for (int64_t id : g) {
      if (id < 0) return InvalidArgument("%" + inst.name() + ": negative id in " + out.written);
      if (id >= kMaxDevices)
        return InvalidArgument("%" + inst.name() + ": id out of range in " + out.written);
    }
  }
  const int64_t max_id = MaxId(written);
  // The header may say less than the groups name (a module cut from a larger one).
  switch (out.mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      replicas = std::max(replicas, max_id + 1);
      break;
    case CollectiveGroupMode::kCrossPartition:
      partitions = std::max(partitions, max_id + 1);
      break;
    case CollectiveGroupMode::kFlattenedId:
      break;
  }
  if (replicas > kMaxDevices / partitions) {
    return InvalidArgument("%" + inst.name() + ": " + std::to_string(replicas) + " replicas x " +
                           std::to_string(partitions) + " partitions is out of range");
  }
  auto all = [](int64_t n) {
    std::vector<int64_t> ids(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) ids[static_cast<size_t>(i)] = i;
    return ids;
  };
  if (all_in_one) {
    switch (out.mode) {
      case CollectiveGroupMode::kCrossReplica:
        written = {all(replicas)};
        break;
      case CollectiveGroupMode::kCrossPartition:
        written = {all(partitions)};
        break;
      default:
        written = {all(replicas * partitions)};
        break;
    }
  }
  // To global device ids: device = replica * partitions + partition.
  switch (out.mode) {
    case CollectiveGroupMode::kFlattenedId:
      out.groups = std::move(written);
      break;
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t p = 0; p < partitions; ++p) {
        for (const auto& g : written) {
          std::vector<int64_t> ids;
          for (int64_t r : g) ids.push_back(r * partitions + p);
          out.groups.push_back(std::move(ids));
        }
      }
      break;
    case CollectiveGroupMode::kCrossPartition:
      for (int64_t r = 0; r < replicas; ++r) {
        for (const auto& g : written) {
          std::vector<int64_t> ids;
          for (int64_t p : g) ids.push_back(r * partitions + p);
          out.groups.push_back(std::move(ids));
        }
      }
      break;
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      for (const auto& g : written) {
        std::vector<int64_t> ids;
        for (int64_t r : g) {
          for (int64_t p = 0; p < partitions; ++p) ids.push_back(r * partitions + p);
        }
        out.groups.push_back(std::move(ids));
      }
      break;
  }
  out.devices = std::max<int64_t>(MaxId(out.groups) + 1, 1);
  return out;
}

Status CheckCollectiveFits(const Instruction& inst, int64_t devices) {
  if (!IsCrossDeviceCollective(inst.opcode())) return Status::Ok();
  const SourceLocation& at = inst.location();
  const std::string where =
      (at.known() ? std::to_string(at.line) + ":" + std::to_string(at.column) + ": " : "") + "%" +
      inst.name() + ": ";
  const std::string op(OpcodeName(inst.opcode()));
  auto found = DevicesOfCollective(inst);
  if (!found.ok()) return InvalidArgument(where + found.status().message());
  const CollectiveDevices& d = *found;

  // The first group that holds a device of the run and one outside it; for
  // collective-permute, the first pair that sends to a device of the run from outside it
  // (what a device sends away does not change its own result).
  const std::vector<int64_t>* misfit = nullptr;
  for (const auto& g : d.groups) {
    const bool touches =
        d.pairs ? g[1] < devices
                : std::any_of(g.begin(), g.end(), [&](int64_t id) { return id < devices; });
    const bool leaves =
        d.pairs ? g[0] >= devices
                : std::any_of(g.begin(), g.end(), [&](int64_t id) { return id >= devices; });
    if (touches && leaves) {
      misfit = &g;
      break;
    }
  }
  std::string detail;
  if (misfit == nullptr && !d.pairs) {
    // A device of the run in no group: XLA refuses such a module on that device.
    for (int64_t device = 0; device < devices && detail.empty(); ++device) {
      const bool listed =
          std::any_of(d.groups.begin(), d.groups.end(), [&](const std::vector<int64_t>& g) {
            return std::find(g.begin(), g.end(), device) != g.end();
          });
      if (!listed) detail = " (device " + std::to_string(device) + " is in none of its groups)";
    }
    if (detail.empty()) return Status::Ok();
  } else if (misfit == nullptr) {
    return Status::Ok();
  }
  if (misfit != nullptr) {
    std::vector<int64_t> sorted = *misfit;
    std::sort(sorted.begin(), sorted.end());
    // Name the group unless it is already plain in the text as written.
    const std::string group =
        d.pairs ? "{" + std::to_string((*misfit)[0]) + "," + std::to_string((*misfit)[1]) + "}"
                : Braced(sorted);
    if (d.written.find(group) == std::string::npos) {
      detail = d.pairs ? " (pair " + group + ")" : " (group " + group + ")";
    }
  }
  return Unimplemented(where + op + " over " + d.written + detail + " needs " +
                       std::to_string(d.devices) + " device" + (d.devices == 1 ? "" : "s") +
                       "; this run has " + std::to_string(devices) + " (fusebox run --devices " +
                       std::to_string(d.devices) + " runs it on the interpreter or the CPU backend)");
}

Status CheckCollectivesFit(const Module& module, int64_t devices) {
  Status first = Status::Ok();
  int64_t others = 0;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      Status st = CheckCollectiveFits(*inst, devices);
      if (st.ok()) continue;
      if (first.ok()) {
        first = st;
      } else {
        ++others;
      }
    }
  }
  if (others == 0) return first;
  return Status(first.code(), first.message() + " (and " + std::to_string(others) +
                                  " other collective" + (others == 1 ? "" : "s") + " like it)");
}

Status WithModuleFile(const Module& module, const Status& status) {
  if (status.ok()) return status;
  const std::string& m = status.message();
  const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0])) != 0;
  return status.WithPrefix(module.source_name() + (located ? ":" : ": "));
}

StatusOr<std::vector<int64_t>> ExpandIotaDeviceList(const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& perm) {
  return IotaDevices(dims, perm);
}

}  // namespace fusebox
