// Shardy import (see shardy_import.h).
#include "compiler/passes/shardy_import.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "compiler/ir/sharding.h"
#include "compiler/passes/sharding_propagation.h"

namespace fusebox::passes {
namespace {

constexpr std::string_view kSdyPrefix = "xla.sdy.";
constexpr std::string_view kGlobalToLocal = "xla.sdy.GlobalToLocalShape";
constexpr std::string_view kLocalToGlobal = "xla.sdy.LocalToGlobalShape";
constexpr std::string_view kFuncResultSharding = "xla.sdy.FuncResultSharding";
constexpr std::string_view kShardingAttr = "xla.sdy.sharding";
constexpr std::string_view kShardingRuleAttr = "xla.sdy.sharding_rule";
constexpr std::string_view kInShardings = "xla.sdy.in_shardings";
constexpr std::string_view kOutShardings = "xla.sdy.out_shardings";
constexpr std::string_view kManualAxes = "xla.sdy.manual_axes";
constexpr std::string_view kMeshes = "xla.sdy.meshes";

Status Error(const Instruction& inst, const std::string& message) {
  std::string where;
  if (inst.location().known()) where = " (line " + std::to_string(inst.location().line) + ")";
  return InvalidArgument("shardy-import: %" + inst.name() + where + ": " + message);
}

bool IsCustomCall(const Instruction& inst, std::string_view target) {
  return inst.opcode() == Opcode::kCustomCall && inst.has_attributes() &&
         inst.attrs().custom_call_target == target;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<std::string> FrontendAttr(const Instruction& inst, std::string_view key) {
  if (!inst.has_attributes()) return std::nullopt;
  for (const auto& [k, v] : inst.attrs().frontend_attributes)
    if (k == key) return v;
  return std::nullopt;
}

void EraseFrontendAttrs(std::vector<std::pair<std::string, std::string>>& attrs, bool& has,
                        const std::vector<std::string_view>& keys) {
  std::erase_if(attrs, [&](const auto& kv) {
    return std::find(keys.begin(), keys.end(), kv.first) != keys.end();
  });
  if (attrs.empty()) has = false;
}

void EraseFrontendAttrs(Instruction& inst, const std::vector<std::string_view>& keys) {
  if (!inst.has_attributes()) return;
  InstructionAttributes& a = inst.mutable_attrs();
  EraseFrontendAttrs(a.frontend_attributes, a.has_frontend_attributes, keys);
}

void SetSharding(Instruction& inst, const Sharding& sharding) {
  std::string text = sharding.ToString();
  InstructionAttributes& a = inst.mutable_attrs();
  a.sharding = text.substr(1, text.size() - 2);
  a.has_sharding = true;
}

void CollectLeaves(const Shape& shape, std::vector<const Shape*>& out) {
  if (!shape.IsTuple()) {
    out.push_back(&shape);
    return;
  }
  for (const Shape& e : shape.tuple_shapes()) CollectLeaves(e, out);
}

// One sharding per leaf of `shape`, as one sharding (a tuple sharding for tuples).
Sharding Combine(const Shape& shape, std::vector<Sharding> leaves) {
  if (!shape.IsTuple()) return leaves.empty() ? Sharding::Replicated() : leaves[0];
  Sharding t;
  t.kind = Sharding::Kind::kTuple;
  t.elements = std::move(leaves);
  return t;
}

// `{devices=[1,1,4]<=[4] last_tile_dims={manual}}` is `{manual}`, as XLA writes it.
Sharding CanonicalManual(Sharding s) {
  if (s.IsTiled() && s.subgroups.size() == 1 && s.subgroups[0] == SubgroupKind::kManual) {
    bool ones = true;
    for (int64_t d = 0; d < s.DataRank(); ++d) ones &= s.TilesAlong(d) == 1;
    if (ones) return Sharding::Manual();
  }
  return s;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// A manual region: its mesh and the axes the program handles itself. A shard_map inside
// another's body is a nested region: its boundary makes its own axes manual, and inside it
// every axis of the enclosing regions is manual too.
struct Region {
  const SdyMesh* mesh = nullptr;
  const Region* parent = nullptr;        // the enclosing region, if nested
  std::vector<std::string> own_axes;     // the axes this region's boundary makes manual
  std::vector<std::string> manual_axes;  // own_axes and those of every enclosing region
  // Some mesh axis of more than one device is left to the partitioner.
  bool Partial() const {
    for (const auto& [name, size] : mesh->axes)
      if (size > 1 && !Contains(manual_axes, name)) return true;
    return false;
  }
  // Whether `other` encloses this region.
  bool Within(const Region* other) const {
    for (const Region* p = parent; p != nullptr; p = p->parent)
      if (p == other) return true;
    return false;
  }
};

// The dims of `s` Shardy leaves open (`{?}`, `{"x", ?}`): XLA's `unspecified_dims`, which
// propagation may split further. An open dim with axes keeps them as the major part of
// its split and may take more axes after them, as Shardy's propagation extends it (the
// given sharding is the floor every refinement keeps: RefinesOpenSharding). XLA's own
// `unspecified_dims` would free such a dim whole; jax's modules never reach XLA with one,
// Shardy has extended it by then.
std::vector<int64_t> OpenDims(const SdyTensorSharding& s) {
  std::vector<int64_t> open;
  for (size_t d = 0; d < s.dims.size() && d < s.dim_closed.size(); ++d)
    if (!s.dim_closed[d]) open.push_back(static_cast<int64_t>(d));
  return open;
}

// backend_config="unspecified_dims=[...]" on a Sharding or SPMD*Shape custom call.
void SetOpenDims(Instruction& inst, const std::vector<int64_t>& dims) {
  if (dims.empty()) return;
  std::string text = "unspecified_dims=[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? "," : "") + std::to_string(dims[i]);
  InstructionAttributes& a = inst.mutable_attrs();
  a.backend_config = text + "]";
  a.has_backend_config = true;
  a.backend_config_is_string = true;
}

// The sharding a value inside `region` has when Shardy gives it `s` over the free axes.
StatusOr<Sharding> InRegionSharding(const SdyTensorSharding& s, const Region& region,
                                    int64_t rank) {
  SdyTensorSharding free = s;
  for (auto& axes : free.dims)
    std::erase_if(axes, [&](const std::string& a) { return Contains(region.manual_axes, a); });
  std::erase_if(free.replicated,
                [&](const std::string& a) { return Contains(region.manual_axes, a); });
  ASSIGN_OR_RETURN(Sharding out, SdyToSharding(free, *region.mesh, rank, region.manual_axes));
  return CanonicalManual(std::move(out));
}

// The sharding a region's boundary value `s` has on the outside: global, or in the
// enclosing region of a nested one (its manual axes a manual subgroup).
StatusOr<Sharding> OutsideSharding(const SdyTensorSharding& s, const Region& region, int64_t rank) {
  if (region.parent != nullptr) return InRegionSharding(s, *region.parent, rank);
  return SdyToSharding(s, *region.mesh, rank);
}

// The sharding of a region value Shardy says nothing about: manual, free axes replicated.
StatusOr<Sharding> RegionDefault(const Region& region, int64_t rank) {
  SdyTensorSharding none;
  none.mesh = region.mesh->name;
  none.dims.assign(static_cast<size_t>(rank), {});
  none.dim_closed.assign(static_cast<size_t>(rank), true);
  return InRegionSharding(none, region, rank);
}

StatusOr<Sharding> RegionDefaultFor(const Region& region, const Shape& shape) {
  std::vector<const Shape*> leaves;
  CollectLeaves(shape, leaves);
  std::vector<Sharding> out;
  for (const Shape* leaf : leaves) {
    ASSIGN_OR_RETURN(Sharding s, RegionDefault(region, leaf->IsArray() ? leaf->rank() : 0));
    out.push_back(std::move(s));
  }
  return Combine(shape, std::move(out));
}

// Per dim, how many pieces the region's boundary cuts it into (its own manual axes; an
// enclosing region's have cut it already, and a boundary may not name them).
StatusOr<std::vector<int64_t>> ManualTiles(const SdyTensorSharding& s, const Region& region) {
  std::vector<int64_t> tiles;
  for (const auto& axes : s.dims) {
    int64_t t = 1;
    for (const std::string& a : axes) {
      if (region.parent != nullptr && Contains(region.parent->manual_axes, a))
        return InvalidArgument("axis '" + a + "' is already manual in the enclosing region");
      if (!Contains(region.own_axes, a)) continue;
      bool found = false;
      for (const auto& [name, size] : region.mesh->axes) {
        if (name == a) {
          t *= size;
          found = true;
        }
      }
      if (!found) return InvalidArgument("axis '" + a + "' is not in mesh @" + region.mesh->name);
    }
    tiles.push_back(t);
  }
  return tiles;
}

class Importer {
 public:
  Importer(Module& module, std::vector<std::string>& log) : module_(module), log_(log) {}

  StatusOr<bool> Run();

 private:
  Status CheckKnown();
  StatusOr<const SdyMesh*> Mesh(const std::string& name, const Instruction& where);
  StatusOr<Region> RegionOf(const Instruction& cc, std::string_view shardings_key,
                            std::vector<SdyTensorSharding>* shardings,
                            const Region* parent = nullptr);
  // The region around an instruction (its own mark, else its computation's), if any.
  const Region* Context(Instruction* inst) const;
  Status FindRegions();
  Status EnterRegion(Instruction* gtl);
  Status LeaveRegion(Instruction* ltg);
  Status Claim(Instruction* inst, const Region* region, std::vector<Instruction*>& work);
  // One Region per mesh, enclosing region and manual axes: boundaries that agree on them
  // (a region's start and end, or two shard_maps alike) share it.
  const Region* Intern(Region region);
  // The region a boundary custom call starts or ends (recorded in boundary_region_).
  StatusOr<const Region*> BoundaryRegion(Instruction* boundary, std::string_view shardings_key);
  Status MarkComputation(Computation* comp, const Region* region);
  Status Assign(Instruction* inst, const Region* region);
  Status RewriteGlobalToLocal(Instruction* gtl);
  Status RewriteLocalToGlobal(Instruction* ltg);
  Status ConvertAttributes();
  Status MarkRegions();
  Status CheckNoLeftovers();

  Instruction* Add(Computation* comp, Opcode opcode, const std::string& base, Shape shape,
                   std::vector<Instruction*> operands, const Instruction& like);
  // The value a region boundary reads, given `sharding`: a copy, or with `open` dims a
  // Sharding custom call carrying them.
  Instruction* AddBoundary(Computation* comp, const std::string& base, const Shape& shape,
                           Instruction* operand, const Sharding& sharding,
                           const std::vector<int64_t>& open, const Instruction& like);

  Module& module_;
  std::vector<std::string>& log_;
  std::vector<SdyMesh> meshes_;
  std::deque<SdyMesh> inline_meshes_;
  std::deque<Region> regions_;
  std::unordered_map<Instruction*, const Region*> region_of_;
  std::unordered_map<Computation*, const Region*> region_comp_;
  std::vector<Instruction*> global_to_local_, local_to_global_;
  std::unordered_map<Instruction*, const Region*> boundary_region_;
};

Status Importer::CheckKnown() {
  for (const auto& [key, value] : module_.frontend_attributes) {
    if (StartsWith(key, kSdyPrefix) && key != kMeshes)
      return InvalidArgument("shardy-import: module frontend attribute " + key +
                             " is not supported (only xla.sdy.meshes)");
  }
  for (const auto& comp : module_.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == Opcode::kCustomCall &&
          StartsWith(inst->attrs().custom_call_target, kSdyPrefix)) {
        const std::string& t = inst->attrs().custom_call_target;
        if (t != kGlobalToLocal && t != kLocalToGlobal && t != kFuncResultSharding)
          return Error(*inst,
                       "unsupported Shardy custom call " + t +
                           " (known: GlobalToLocalShape, LocalToGlobalShape, FuncResultSharding)");
      }
      if (!inst->has_attributes()) continue;
      for (const auto& [key, value] : inst->attrs().frontend_attributes) {
        if (!StartsWith(key, kSdyPrefix)) continue;
        // xla.sdy.sharding_rule (jax's rule for splitting a custom call, such as its LAPACK
        // calls, along its batch dims) stays on the call for Fusebox's propagation and
        // partitioner; elsewhere (jax copies it onto the call's get-tuple-elements) it is
        // dropped.
        if (key != kShardingAttr && key != kInShardings && key != kOutShardings &&
            key != kManualAxes && key != kShardingRuleAttr)
          return Error(*inst, "unsupported Shardy frontend attribute " + key);
      }
    }
  }
  return Status::Ok();
}

StatusOr<const SdyMesh*> Importer::Mesh(const std::string& name, const Instruction& where) {
  for (const SdyMesh& m : meshes_)
    if (m.name == name) return &m;
  for (const SdyMesh& m : inline_meshes_)
    if (m.name == name) return &m;
  if (StartsWith(name, "#inline<")) {
    std::string body = name.substr(std::string_view("#inline").size());
    auto parsed = ParseSdyMeshes("{inline = #sdy.mesh" + body + "}");
    if (!parsed.ok() || parsed->size() != 1) return Error(where, "cannot read inline mesh " + name);
    SdyMesh mesh = (*parsed)[0];
    mesh.name = name;
    inline_meshes_.push_back(std::move(mesh));
    return &inline_meshes_.back();
  }
  return Error(where, "mesh @" + name + " is not in the module's xla.sdy.meshes");
}

StatusOr<Region> Importer::RegionOf(const Instruction& cc, std::string_view shardings_key,
                                    std::vector<SdyTensorSharding>* shardings,
                                    const Region* parent) {
  std::optional<std::string> axes_text = FrontendAttr(cc, kManualAxes);
  if (!axes_text) return Error(cc, "has no " + std::string(kManualAxes));
  auto axes = ParseSdyManualAxes(*axes_text);
  if (!axes.ok()) return Error(cc, std::string(axes.status().message()));
  std::optional<std::string> text = FrontendAttr(cc, shardings_key);
  if (!text) return Error(cc, "has no " + std::string(shardings_key));
  auto parsed = ParseSdyShardings(*text);
  if (!parsed.ok()) return Error(cc, std::string(parsed.status().message()));
  *shardings = std::move(*parsed);
  Region region;
  region.own_axes = std::move(*axes);
  region.parent = parent;
  std::string mesh_name = shardings->empty()
                              ? (parent != nullptr ? parent->mesh->name : meshes_.empty() ? "" : meshes_[0].name)
                              : (*shardings)[0].mesh;
  for (const SdyTensorSharding& s : *shardings)
    if (s.mesh != mesh_name) return Error(cc, "shardings on different meshes in one manual region");
  ASSIGN_OR_RETURN(region.mesh, Mesh(mesh_name, cc));
  if (parent != nullptr && parent->mesh != region.mesh)
    return Error(cc, "a manual region on mesh @" + mesh_name + " inside one on mesh @" + parent->mesh->name);
  if (parent != nullptr) region.manual_axes = parent->manual_axes;
  for (const std::string& a : region.own_axes) {
    bool found = false;
    for (const auto& [name, size] : region.mesh->axes) found |= name == a;
    if (!found) return Error(cc, "manual axis '" + a + "' is not in mesh @" + mesh_name);
    if (Contains(region.manual_axes, a))
      return Error(cc, "manual axis '" + a + "' is already manual in the enclosing region");
    region.manual_axes.push_back(a);
  }
  return region;
}

const Region* Importer::Context(Instruction* inst) const {
  auto it = region_of_.find(inst);
  if (it != region_of_.end()) return it->second;
  auto jt = region_comp_.find(inst->parent());
  return jt != region_comp_.end() ? jt->second : nullptr;
}

// Region membership: forward from each GlobalToLocalShape and backward from each
// LocalToGlobalShape, stopping at the other end; computations called from the region
// belong to it whole. Boundaries are taken from the outside in (callers before callees,
// operands before users), so that a nested boundary's enclosing region is known when it
// is reached: the instructions and computations of the nested region are then claimed
// from the enclosing one.
Status Importer::FindRegions() {
  ProgramWalk walk;
  walk.breadth_first = true;
  std::vector<Computation*> order = ProgramComputations(module_, walk);
  std::unordered_set<Computation*> listed(order.begin(), order.end());
  for (const auto& comp : module_.computations())
    if (!listed.count(comp.get())) order.push_back(comp.get());
  for (Computation* comp : order) {
    for (Instruction* inst : comp->PostOrder()) {
      if (IsCustomCall(*inst, kGlobalToLocal)) global_to_local_.push_back(inst);
      if (IsCustomCall(*inst, kLocalToGlobal)) local_to_global_.push_back(inst);
    }
  }
  for (Instruction* gtl : global_to_local_) RETURN_IF_ERROR(EnterRegion(gtl));
  // Ends from the outside in too: users before operands.
  for (Computation* comp : order) {
    std::vector<Instruction*> post = comp->PostOrder();
    for (auto it = post.rbegin(); it != post.rend(); ++it)
      if (IsCustomCall(**it, kLocalToGlobal)) RETURN_IF_ERROR(LeaveRegion(*it));
  }
  return Status::Ok();
}

// Claims `inst` (and the computations it calls) for `region`. An instruction or
// computation already in an enclosing region is taken over by the nested one; one in an
// unrelated region is an error.
Status Importer::Claim(Instruction* inst, const Region* region, std::vector<Instruction*>& work) {
  auto it = region_of_.find(inst);
  if (it != region_of_.end()) {
    if (it->second == region || it->second->Within(region)) return Status::Ok();
    if (!region->Within(it->second))
      return Error(*inst, "belongs to two manual regions with different manual axes");
  } else if (const Region* around = Context(inst);
             around != nullptr && around != region && !region->Within(around)) {
    return Error(*inst, "belongs to two manual regions with different manual axes");
  }
  region_of_[inst] = region;
  work.push_back(inst);
  if (inst->opcode() == Opcode::kCall || inst->opcode() == Opcode::kWhile ||
      inst->opcode() == Opcode::kConditional) {
    for (Computation* callee : inst->called_computations())
      RETURN_IF_ERROR(MarkComputation(callee, region));
  }
  return Status::Ok();
}

const Region* Importer::Intern(Region region) {
  std::vector<std::string> axes = region.own_axes;
  std::sort(axes.begin(), axes.end());
  for (const Region& r : regions_) {
    std::vector<std::string> other = r.own_axes;
    std::sort(other.begin(), other.end());
    if (r.mesh == region.mesh && r.parent == region.parent && other == axes) return &r;
  }
  regions_.push_back(std::move(region));
  return &regions_.back();
}

StatusOr<const Region*> Importer::BoundaryRegion(Instruction* boundary, std::string_view shardings_key) {
  std::vector<SdyTensorSharding> shardings;
  ASSIGN_OR_RETURN(Region r, RegionOf(*boundary, shardings_key, &shardings, Context(boundary)));
  const Region* region = Intern(std::move(r));
  boundary_region_[boundary] = region;
  return region;
}

Status Importer::EnterRegion(Instruction* gtl) {
  ASSIGN_OR_RETURN(const Region* region, BoundaryRegion(gtl, kInShardings));
  std::vector<Instruction*> work;
  for (Instruction* user : gtl->users()) RETURN_IF_ERROR(Claim(user, region, work));
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    // A nested region's start sits in this region; what it starts is the nested one's.
    if (IsCustomCall(*inst, kGlobalToLocal)) continue;
    for (Instruction* user : inst->users()) {
      if (IsCustomCall(*user, kLocalToGlobal)) continue;
      RETURN_IF_ERROR(Claim(user, region, work));
    }
  }
  return Status::Ok();
}

Status Importer::LeaveRegion(Instruction* ltg) {
  ASSIGN_OR_RETURN(const Region* region, BoundaryRegion(ltg, kOutShardings));
  // The region the values come from: the one its start made, found through them.
  std::vector<Instruction*> work;
  auto visit = [&](Instruction* op) -> Status {
    Instruction* start = op;
    if (op->opcode() == Opcode::kGetTupleElement) start = op->operand(0);
    if (IsCustomCall(*start, kGlobalToLocal)) {
      if (boundary_region_.at(start) != region)
        return Error(*ltg, "ends a manual region that %" + start->name() + " did not start");
      return Status::Ok();
    }
    if (op->opcode() == Opcode::kParameter) {
      const Region* around = Context(op);
      if (around == nullptr || around == region->parent)
        return Error(*ltg, "manual region reads %" + op->name() +
                               " without going through xla.sdy.GlobalToLocalShape");
    }
    // The end of a region nested in this one: its result is this region's.
    if (IsCustomCall(*op, kLocalToGlobal)) {
      auto it = region_of_.find(op);
      if (it == region_of_.end() || it->second->Within(region)) region_of_[op] = region;
      return Status::Ok();
    }
    return Claim(op, region, work);
  };
  for (Instruction* op : ltg->operands()) RETURN_IF_ERROR(visit(op));
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    for (Instruction* op : inst->operands()) RETURN_IF_ERROR(visit(op));
  }
  return Status::Ok();
}

// Marks `comp` and what it calls as `region`'s; a computation an enclosing region marked
// is taken over (a nested region's body), one of an unrelated region is an error.
Status Importer::MarkComputation(Computation* comp, const Region* region) {
  if (comp == nullptr) return Status::Ok();
  auto it = region_comp_.find(comp);
  if (it != region_comp_.end()) {
    if (it->second == region || it->second->Within(region)) return Status::Ok();
    if (!region->Within(it->second))
      return InvalidArgument("shardy-import: computation %" + comp->name() +
                             " is called from two manual regions with different manual axes");
  }
  region_comp_[comp] = region;
  for (const auto& inst : comp->instructions()) {
    if (inst->opcode() == Opcode::kCall || inst->opcode() == Opcode::kWhile ||
        inst->opcode() == Opcode::kConditional) {
      for (Computation* callee : inst->called_computations())
        RETURN_IF_ERROR(MarkComputation(callee, region));
    }
  }
  return Status::Ok();
}

Instruction* Importer::Add(Computation* comp, Opcode opcode, const std::string& base, Shape shape,
                           std::vector<Instruction*> operands, const Instruction& like) {
  auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(base), std::move(shape));
  for (Instruction* op : operands) inst->AppendOperand(op);
  if (like.metadata() != nullptr) inst->set_metadata(*like.metadata());
  return comp->AddInstruction(std::move(inst));
}

Instruction* Importer::AddBoundary(Computation* comp, const std::string& base, const Shape& shape,
                                   Instruction* operand, const Sharding& sharding,
                                   const std::vector<int64_t>& open, const Instruction& like) {
  Instruction* inst =
      Add(comp, open.empty() ? Opcode::kCopy : Opcode::kCustomCall, base, shape, {operand}, like);
  if (!open.empty()) {
    inst->mutable_attrs().custom_call_target = "Sharding";
    inst->mutable_attrs().has_custom_call_target = true;
  }
  SetSharding(*inst, sharding);
  SetOpenDims(*inst, open);
  return inst;
}

// x -> copy(x) {global} -> SPMDFullToShardShape {manual}, per operand (a Sharding custom
// call in place of the copy where Shardy leaves dims open).
Status Importer::RewriteGlobalToLocal(Instruction* gtl) {
  const Region& region = *boundary_region_.at(gtl);
  std::vector<SdyTensorSharding> in;
  ASSIGN_OR_RETURN(Region unused, RegionOf(*gtl, kInShardings, &in));
  (void)unused;
  const int64_t n = gtl->operand_count();
  if (static_cast<int64_t>(in.size()) != n)
    return Error(*gtl, "has " + std::to_string(n) + " operands but " + std::to_string(in.size()) +
                           " in_shardings");
  const bool tuple_result = gtl->shape().IsTuple();
  if (tuple_result ? gtl->shape().tuple_size() != n : n != 1)
    return Error(*gtl, "result shape " + gtl->shape().ToString() + " does not match its " +
                           std::to_string(n) + " operands");
  Computation* comp = gtl->parent();
  std::vector<Instruction*> locals;
  for (int64_t i = 0; i < n; ++i) {
    Instruction* x = gtl->operand(i);
    const Shape& global = x->shape();
    if (!global.IsArray()) return Error(*gtl, "operand " + std::to_string(i) + " is not an array");
    const Shape& written = tuple_result ? gtl->shape().tuple_shapes(i) : gtl->shape();
    StatusOr<std::vector<int64_t>> cut = ManualTiles(in[i], region);
    if (!cut.ok()) return Error(*gtl, "in_sharding " + std::to_string(i) + ": " + std::string(cut.status().message()));
    const std::vector<int64_t>& tiles = *cut;
    if (static_cast<int64_t>(tiles.size()) != global.rank())
      return Error(*gtl, "in_sharding " + std::to_string(i) + " has " +
                             std::to_string(tiles.size()) + " dims for " + global.ToString());
    Shape local = global;
    for (int64_t d = 0; d < global.rank(); ++d) {
      if (global.dimensions(d) % tiles[d] != 0)
        return Error(*gtl, "dim " + std::to_string(d) + " of " + global.ToString() +
                               " does not divide into " + std::to_string(tiles[d]) +
                               " manual pieces");
      local.set_dimension(d, global.dimensions(d) / tiles[d]);
    }
    if (written.Compatible(local)) {
      local = written;
    } else if (!written.Compatible(global)) {
      return Error(*gtl, "result " + std::to_string(i) + " is " + written.ToString() +
                             ", neither the per-device shape " + local.ToString() +
                             " nor the global shape " + global.ToString());
    } else {
      log_.push_back("%" + gtl->name() + ": result " + std::to_string(i) +
                     " written with the global shape; made per-device " + local.ToString());
    }
    ASSIGN_OR_RETURN(Sharding global_sharding, OutsideSharding(in[i], region, global.rank()));
    ASSIGN_OR_RETURN(Sharding manual, InRegionSharding(in[i], region, global.rank()));
    // Dims Shardy leaves open on both sides of a partially manual region: propagation may
    // split them further, the two sides alike (a Sharding custom call, not a copy, holds
    // the outside's open dims, as XLA writes it).
    const std::vector<int64_t> open = region.Partial() ? OpenDims(in[i]) : std::vector<int64_t>{};
    Instruction* copy = AddBoundary(comp, gtl->name(), global, x, global_sharding, open, *gtl);
    Instruction* f2s = Add(comp, Opcode::kCustomCall, gtl->name(), local, {copy}, *gtl);
    f2s->mutable_attrs().custom_call_target = "SPMDFullToShardShape";
    f2s->mutable_attrs().has_custom_call_target = true;
    SetSharding(*f2s, manual);
    SetOpenDims(*f2s, open);
    locals.push_back(f2s);
    log_.push_back("%" + f2s->name() + ": SPMDFullToShardShape of %" + x->name() + " " +
                   global_sharding.ToString() + " -> " + local.ToString() + " " +
                   manual.ToString());
  }
  if (!tuple_result) {
    gtl->ReplaceAllUsesWith(locals[0]);
  } else {
    std::vector<Instruction*> users = gtl->users();
    Instruction* tuple = nullptr;
    for (Instruction* user : users) {
      if (user->opcode() == Opcode::kGetTupleElement && user->tuple_index() >= 0 &&
          user->tuple_index() < n) {
        user->ReplaceAllUsesWith(locals[static_cast<size_t>(user->tuple_index())]);
        region_of_.erase(user);
        comp->RemoveInstruction(user);
        continue;
      }
      if (tuple == nullptr) {
        std::vector<Shape> shapes;
        for (Instruction* l : locals) shapes.push_back(l->shape());
        tuple = Add(comp, Opcode::kTuple, gtl->name(), Shape::Tuple(shapes), locals, *gtl);
        ASSIGN_OR_RETURN(Sharding s, RegionDefaultFor(region, tuple->shape()));
        SetSharding(*tuple, s);
      }
      for (int64_t k = 0; k < user->operand_count(); ++k)
        if (user->operand(k) == gtl) user->ReplaceOperand(k, tuple);
    }
    if (gtl->IsRoot()) gtl->ReplaceAllUsesWith(tuple != nullptr ? tuple : locals[0]);
  }
  if (gtl->user_count() != 0 || gtl->IsRoot() || !comp->RemoveInstruction(gtl))
    return Error(*gtl, "could not be replaced");
  return Status::Ok();
}

// y -> copy(y) {manual} -> SPMDShardToFullShape {global}, per operand.
Status Importer::RewriteLocalToGlobal(Instruction* ltg) {
  const Region& region = *boundary_region_.at(ltg);
  std::vector<SdyTensorSharding> out;
  ASSIGN_OR_RETURN(Region unused, RegionOf(*ltg, kOutShardings, &out));
  (void)unused;
  const int64_t n = ltg->operand_count();
  if (static_cast<int64_t>(out.size()) != n)
    return Error(*ltg, "has " + std::to_string(n) + " operands but " + std::to_string(out.size()) +
                           " out_shardings");
  const bool tuple_result = ltg->shape().IsTuple();
  if (tuple_result ? ltg->shape().tuple_size() != n : n != 1)
    return Error(*ltg, "result shape " + ltg->shape().ToString() + " does not match its " +
                           std::to_string(n) + " operands");
  Computation* comp = ltg->parent();
  std::vector<Instruction*> globals;
  for (int64_t i = 0; i < n; ++i) {
    Instruction* y = ltg->operand(i);
    const Shape& local = y->shape();
    if (!local.IsArray()) return Error(*ltg, "operand " + std::to_string(i) + " is not an array");
    const Shape& written = tuple_result ? ltg->shape().tuple_shapes(i) : ltg->shape();
    StatusOr<std::vector<int64_t>> cut = ManualTiles(out[i], region);
    if (!cut.ok()) return Error(*ltg, "out_sharding " + std::to_string(i) + ": " + std::string(cut.status().message()));
    const std::vector<int64_t>& tiles = *cut;
    if (static_cast<int64_t>(tiles.size()) != local.rank())
      return Error(*ltg, "out_sharding " + std::to_string(i) + " has " +
                             std::to_string(tiles.size()) + " dims for " + local.ToString());
    Shape global = written;
    bool written_global = written.rank() == local.rank();
    for (int64_t d = 0; written_global && d < local.rank(); ++d)
      written_global = written.dimensions(d) == local.dimensions(d) * tiles[d];
    if (!written_global) {
      if (!written.Compatible(local))
        return Error(*ltg, "result " + std::to_string(i) + " is " + written.ToString() +
                               ", not the global shape of " + local.ToString() +
                               " under the out_sharding");
      for (int64_t d = 0; d < local.rank(); ++d)
        global.set_dimension(d, local.dimensions(d) * tiles[d]);
      log_.push_back("%" + ltg->name() + ": result " + std::to_string(i) +
                     " written with the per-device shape; made global " + global.ToString());
    }
    ASSIGN_OR_RETURN(Sharding manual, InRegionSharding(out[i], region, local.rank()));
    ASSIGN_OR_RETURN(Sharding global_sharding, OutsideSharding(out[i], region, local.rank()));
    const std::vector<int64_t> open = region.Partial() ? OpenDims(out[i]) : std::vector<int64_t>{};
    Instruction* copy = AddBoundary(comp, ltg->name(), local, y, manual, open, *ltg);
    Instruction* s2f = Add(comp, Opcode::kCustomCall, ltg->name(), global, {copy}, *ltg);
    s2f->mutable_attrs().custom_call_target = "SPMDShardToFullShape";
    s2f->mutable_attrs().has_custom_call_target = true;
    SetSharding(*s2f, global_sharding);
    SetOpenDims(*s2f, open);
    globals.push_back(s2f);
    log_.push_back("%" + s2f->name() + ": SPMDShardToFullShape of %" + y->name() + " -> " +
                   global.ToString() + " " + global_sharding.ToString());
  }
  if (!tuple_result) {
    ltg->ReplaceAllUsesWith(globals[0]);
  } else {
    std::vector<Instruction*> users = ltg->users();
    Instruction* tuple = nullptr;
    auto make_tuple = [&]() {
      if (tuple != nullptr) return;
      std::vector<Shape> shapes;
      for (Instruction* g : globals) shapes.push_back(g->shape());
      tuple = Add(comp, Opcode::kTuple, ltg->name(), Shape::Tuple(shapes), globals, *ltg);
    };
    for (Instruction* user : users) {
      if (user->opcode() == Opcode::kGetTupleElement && user->tuple_index() >= 0 &&
          user->tuple_index() < n) {
        // The element keeps its name and users; it now reads the full-shape value.
        user->ReplaceAllUsesWith(globals[static_cast<size_t>(user->tuple_index())]);
        comp->RemoveInstruction(user);
        continue;
      }
      make_tuple();
      for (int64_t k = 0; k < user->operand_count(); ++k)
        if (user->operand(k) == ltg) user->ReplaceOperand(k, tuple);
    }
    if (ltg->IsRoot()) {
      make_tuple();
      ltg->ReplaceAllUsesWith(tuple);
    }
  }
  if (ltg->user_count() != 0 || ltg->IsRoot() || !comp->RemoveInstruction(ltg))
    return Error(*ltg, "could not be replaced");
  return Status::Ok();
}

const Region* RegionFor(const std::unordered_map<Instruction*, const Region*>& region_of,
                        const std::unordered_map<Computation*, const Region*>& region_comp,
                        Instruction* inst) {
  auto it = region_of.find(inst);
  if (it != region_of.end()) return it->second;
  auto jt = region_comp.find(inst->parent());
  return jt != region_comp.end() ? jt->second : nullptr;
}

// xla.sdy.sharding -> sharding=; FuncResultSharding -> Sharding.
Status Importer::ConvertAttributes() {
  for (const auto& comp : module_.computations()) {
    for (const auto& holder : comp->instructions()) {
      Instruction* inst = holder.get();
      if (inst->opcode() != Opcode::kCustomCall && FrontendAttr(*inst, kShardingRuleAttr))
        EraseFrontendAttrs(*inst, {kShardingRuleAttr});
      std::optional<std::string> text = FrontendAttr(*inst, kShardingAttr);
      if (!text) {
        if (IsCustomCall(*inst, kFuncResultSharding))
          return Error(*inst, "has no xla.sdy.sharding");
        continue;
      }
      auto parsed = ParseSdyShardings(*text);
      if (!parsed.ok()) return Error(*inst, std::string(parsed.status().message()));
      std::vector<const Shape*> leaves;
      CollectLeaves(inst->shape(), leaves);
      if (leaves.empty() && parsed->size() == 1) {
        // A result without leaves (jax's `()` of a debug print) has nothing to shard; jax
        // still writes one sharding for it, as XLA requires one element for such shapes.
        EraseFrontendAttrs(*inst, {kShardingAttr});
        continue;
      }
      if (parsed->size() != leaves.size())
        return Error(*inst, "xla.sdy.sharding has " + std::to_string(parsed->size()) +
                                " shardings for " + std::to_string(leaves.size()) +
                                " result leaves");
      const Region* region = RegionFor(region_of_, region_comp_, inst);
      std::vector<Sharding> out;
      for (size_t i = 0; i < leaves.size(); ++i) {
        ASSIGN_OR_RETURN(const SdyMesh* mesh, Mesh((*parsed)[i].mesh, *inst));
        int64_t rank = leaves[i]->IsArray() ? leaves[i]->rank() : 0;
        StatusOr<Sharding> s = InvalidArgument("");
        if (region != nullptr) {
          if (mesh != region->mesh)
            return Error(*inst, "sharding on another mesh than its manual region's");
          s = InRegionSharding((*parsed)[i], *region, rank);
        } else {
          s = SdyToSharding((*parsed)[i], *mesh, rank);
        }
        if (!s.ok()) return Error(*inst, std::string(s.status().message()));
        out.push_back(std::move(*s));
      }
      Sharding sharding = Combine(inst->shape(), std::move(out));
      SetSharding(*inst, sharding);
      EraseFrontendAttrs(*inst, {kShardingAttr});
      // A constraint's open dims stay open (outside regions and in partially manual ones;
      // in a fully manual region no axis is left to split them).
      const bool constraint = IsCustomCall(*inst, "Sharding") || IsCustomCall(*inst, kFuncResultSharding);
      if (constraint && leaves.size() == 1 && inst->shape().IsArray() &&
          !(inst->has_attributes() && inst->attrs().has_backend_config) &&
          (region == nullptr || region->Partial())) {
        SetOpenDims(*inst, OpenDims((*parsed)[0]));
      }
      if (IsCustomCall(*inst, kFuncResultSharding)) {
        InstructionAttributes& a = inst->mutable_attrs();
        a.custom_call_target = "Sharding";
        a.custom_call_has_side_effect = false;
        log_.push_back("%" + inst->name() + ": xla.sdy.FuncResultSharding -> Sharding " +
                       sharding.ToString());
      } else {
        log_.push_back("%" + inst->name() + ": sharding " + sharding.ToString());
      }
    }
  }
  return Status::Ok();
}

// Region instructions without a sharding of their own: callee parameters take their
// caller's operand sharding, the rest are manual with the free axes replicated. In a
// partially manual region Shardy leaves such values open: propagation gives them their
// sharding (manual first, then split over the free axes as their neighbours are), except
// where it has no rule to (custom calls, fusions): those keep the default.
Status Importer::Assign(Instruction* inst, const Region* region) {
  if (inst->has_attributes() && inst->attrs().has_sharding) return Status::Ok();
  if (region->Partial() && PropagationReaches(*inst)) return Status::Ok();
  ASSIGN_OR_RETURN(Sharding s, RegionDefaultFor(*region, inst->shape()));
  SetSharding(*inst, s);
  return Status::Ok();
}

Status Importer::MarkRegions() {
  std::unordered_set<Computation*> done;
  // Callee parameters first from their callers (in the caller's order), then the rest.
  std::function<Status(Computation*, const Region*)> mark_comp;
  auto mark_callees = [&](Instruction* inst, const Region* region) -> Status {
    if (inst->opcode() != Opcode::kCall && inst->opcode() != Opcode::kWhile &&
        inst->opcode() != Opcode::kConditional)
      return Status::Ok();
    for (size_t c = 0; c < inst->called_computations().size(); ++c) {
      Computation* callee = inst->called_computations()[c];
      if (callee == nullptr || done.count(callee)) continue;
      // Which operand feeds the callee's parameter 0 (and, for call, each parameter).
      for (int64_t p = 0; p < callee->parameter_count(); ++p) {
        Instruction* param = callee->parameter(p);
        if (param == nullptr || (param->has_attributes() && param->attrs().has_sharding)) continue;
        Instruction* feed = nullptr;
        if (inst->opcode() == Opcode::kCall && p < inst->operand_count()) feed = inst->operand(p);
        if (inst->opcode() == Opcode::kWhile && p == 0) feed = inst->operand(0);
        if (inst->opcode() == Opcode::kConditional && p == 0 &&
            static_cast<int64_t>(c) + 1 < inst->operand_count())
          feed = inst->operand(static_cast<int64_t>(c) + 1);
        // In a partially manual region, a parameter fed by a boundary with open dims is
        // left to propagation (linked to its caller's operand, it ends up split alike).
        bool open_feed = false;
        if (feed != nullptr && region->Partial()) {
          StatusOr<std::vector<int64_t>> open = UnspecifiedDimsOf(*feed);
          open_feed = !open.ok() || !open->empty();
        }
        if (feed != nullptr && !open_feed && feed->has_attributes() && feed->attrs().has_sharding &&
            feed->shape().Compatible(param->shape())) {
          param->mutable_attrs().sharding = feed->attrs().sharding;
          param->mutable_attrs().has_sharding = true;
        }
      }
      RETURN_IF_ERROR(mark_comp(callee, region));
    }
    return Status::Ok();
  };
  mark_comp = [&](Computation* comp, const Region* region) -> Status {
    done.insert(comp);
    for (Instruction* inst : comp->PostOrder()) {
      RETURN_IF_ERROR(Assign(inst, region));
      RETURN_IF_ERROR(mark_callees(inst, region));
    }
    return Status::Ok();
  };
  for (const auto& comp : module_.computations()) {
    for (Instruction* inst : comp->PostOrder()) {
      auto it = region_of_.find(inst);
      if (it == region_of_.end()) continue;
      RETURN_IF_ERROR(Assign(inst, it->second));
      RETURN_IF_ERROR(mark_callees(inst, it->second));
    }
  }
  // Region computations no caller reached above (called twice, or from a callee).
  for (const auto& [comp, region] : region_comp_)
    if (!done.count(comp)) RETURN_IF_ERROR(mark_comp(comp, region));
  return Status::Ok();
}

Status Importer::CheckNoLeftovers() {
  for (const auto& comp : module_.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == Opcode::kCustomCall &&
          StartsWith(inst->attrs().custom_call_target, kSdyPrefix))
        return Error(
            *inst, "Shardy custom call " + inst->attrs().custom_call_target + " left after import");
      if (!inst->has_attributes()) continue;
      for (const auto& [key, value] : inst->attrs().frontend_attributes)
        if (StartsWith(key, kSdyPrefix) && !(key == kShardingRuleAttr && inst->opcode() == Opcode::kCustomCall))
          return Error(*inst,
                       "Shardy attribute " + key + " left after import (not on a region boundary)");
    }
  }
  return Status::Ok();
}

StatusOr<bool> Importer::Run() {
  bool any = false;
  for (const auto& [key, value] : module_.frontend_attributes) any |= StartsWith(key, kSdyPrefix);
  for (const auto& comp : module_.computations()) {
    for (const auto& inst : comp->instructions()) {
      if (inst->opcode() == Opcode::kCustomCall &&
          StartsWith(inst->attrs().custom_call_target, kSdyPrefix))
        any = true;
      if (!inst->has_attributes()) continue;
      for (const auto& [key, value] : inst->attrs().frontend_attributes)
        any |= StartsWith(key, kSdyPrefix);
    }
  }
  if (!any) return false;
  RETURN_IF_ERROR(CheckKnown());
  for (const auto& [key, value] : module_.frontend_attributes) {
    if (key != kMeshes) continue;
    auto meshes = ParseSdyMeshes(value);
    if (!meshes.ok())
      return InvalidArgument("shardy-import: module attribute xla.sdy.meshes: " +
                             std::string(meshes.status().message()));
    meshes_ = std::move(*meshes);
  }
  const int64_t partitions = module_.num_partitions.value_or(1) * module_.replica_count.value_or(1);
  for (const SdyMesh& mesh : meshes_) {
    int64_t used = mesh.DeviceCount();
    for (int64_t id : mesh.device_ids) used = std::max(used, id + 1);
    if (used > partitions)
      return InvalidArgument("shardy-import: mesh @" + mesh.name + " needs " +
                             std::to_string(used) + " devices but the module has num_partitions=" +
                             std::to_string(module_.num_partitions.value_or(1)));
  }
  RETURN_IF_ERROR(FindRegions());
  RETURN_IF_ERROR(ConvertAttributes());
  for (Instruction* gtl : global_to_local_) RETURN_IF_ERROR(RewriteGlobalToLocal(gtl));
  RETURN_IF_ERROR(MarkRegions());
  for (Instruction* ltg : local_to_global_) RETURN_IF_ERROR(RewriteLocalToGlobal(ltg));
  EraseFrontendAttrs(module_.frontend_attributes, module_.has_frontend_attributes, {kMeshes});
  RETURN_IF_ERROR(CheckNoLeftovers());
  return true;
}

}  // namespace

StatusOr<bool> ShardyImport::Run(Module& module, PassContext& context) {
  (void)context;
  log_.clear();
  Importer importer(module, log_);
  return importer.Run();
}

}  // namespace fusebox::passes
