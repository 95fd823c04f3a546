// Buffer assignment: values and their liveness over a schedule, then one linear scan that
// places parameters, constants, outputs and temps, reusing dead temps best-fit. The
// phases are BufferAssigner's member functions; AssignBuffers runs them in order.
#include "compiler/backend/buffer_assignment.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_set>

#include "compiler/ir/module.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::backend {

namespace {

using Path = std::vector<int64_t>;

std::string PathToString(const Path& path) {
  std::string out = "{";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(path[i]);
  }
  return out + "}";
}

std::string Name(const Instruction& inst) { return "%" + inst.name(); }

// Bytes of an array as the CPU runtime stores it: one byte per element at least (sub-byte
// types are not packed, pred is a byte), bounded dynamic dimensions at their bound.
StatusOr<int64_t> ArrayBytes(const Shape& shape, const Instruction& inst) {
  int64_t elements = shape.ElementCount();
  if (elements < 0) {
    return InvalidArgument("cannot size the buffer of " + Name(inst) + " (" + shape.ToString() +
                           "): unbounded dynamic dimension or too many elements");
  }
  int64_t width = ByteWidth(shape.element_type());
  if (width > 0 && elements > INT64_MAX / width) {
    return InvalidArgument("the buffer of " + Name(inst) + " (" + shape.ToString() +
                           ") is larger than 2^63 bytes");
  }
  return elements * width;
}

// What an instruction does with buffers.
enum class Role { kDefine, kParameter, kConstant, kForward };

const int64_t* FindLeaf(const std::vector<std::pair<Path, int64_t>>& leaves, const Path& path) {
  for (const auto& [p, v] : leaves) {
    if (p == path) return &v;
  }
  return nullptr;
}

// The start of a note on an input_output_alias entry that is declined.
std::string AliasNotHonoured(const InputOutputAlias& alias) {
  return "input_output_alias " + PathToString(alias.output_index) + ": (" +
         std::to_string(alias.parameter_number) + ", " + PathToString(alias.parameter_index) +
         ") not honoured: ";
}

Status ValidateSchedule(const Computation& computation,
                        const std::vector<const Instruction*>& schedule,
                        std::unordered_map<const Instruction*, int64_t>* step_of) {
  const std::string where = "schedule of computation %" + computation.name() + ": ";
  for (size_t s = 0; s < schedule.size(); ++s) {
    const Instruction* inst = schedule[s];
    if (inst == nullptr) return InvalidArgument(where + "null entry at step " + std::to_string(s));
    if (inst->parent() != &computation) {
      return InvalidArgument(where + Name(*inst) + " (step " + std::to_string(s) +
                             ") is not an instruction of this computation");
    }
    if (!step_of->emplace(inst, static_cast<int64_t>(s)).second) {
      return InvalidArgument(where + Name(*inst) + " appears twice (steps " +
                             std::to_string(step_of->at(inst)) + " and " + std::to_string(s) +
                             ")");
    }
  }
  for (const auto& inst : computation.instructions()) {
    if (!step_of->count(inst.get())) {
      return InvalidArgument(where + Name(*inst) + " is missing");
    }
  }
  for (size_t s = 0; s < schedule.size(); ++s) {
    const Instruction* inst = schedule[s];
    auto check = [&](const Instruction* dep, const char* what) -> Status {
      auto it = step_of->find(dep);
      if (it == step_of->end()) {
        return InvalidArgument(where + Name(*inst) + " has " + what + " " + Name(*dep) +
                               " from another computation");
      }
      if (it->second >= static_cast<int64_t>(s)) {
        return InvalidArgument(where + Name(*inst) + " (step " + std::to_string(s) +
                               ") runs before its " + what + " " + Name(*dep) + " (step " +
                               std::to_string(it->second) + ")");
      }
      return Status::Ok();
    };
    for (const Instruction* op : inst->operands()) RETURN_IF_ERROR(check(op, "operand"));
    for (const Instruction* pred : inst->control_predecessors()) {
      RETURN_IF_ERROR(check(pred, "control predecessor"));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<BufferAssignment> AssignBuffers(const Computation& computation,
                                         const std::vector<Instruction*>& schedule,
                                         const BufferAssignmentOptions& options) {
  return AssignBuffers(computation,
                       std::vector<const Instruction*>(schedule.begin(), schedule.end()),
                       options);
}

// The phases of AssignBuffers over the assignment they fill in, in the order they run:
// values and aliases, liveness, parameters and constants, input_output_alias requests,
// the linear scan over temps and outputs, totals. Each phase reads what the ones before
// it left in the assignment and in the members below.
class BufferAssigner {
 public:
  BufferAssigner(const Computation& computation, const std::vector<const Instruction*>& schedule,
                 const BufferAssignmentOptions& options, BufferAssignment* ba)
      : computation_(computation),
        schedule_(schedule),
        options_(options),
        ba_(*ba),
        steps_(static_cast<int64_t>(schedule.size())) {}

  // Values: what each instruction defines, and every instruction's leaves (tuples and
  // get-tuple-element forward their operands' leaves, aliases operand 0's).
  Status DefineValues();
  // Liveness: a value is read wherever an instruction that is not a pure forwarder reads
  // a leaf that resolves to it. The root's leaves live to the end.
  void ComputeLiveness();
  // Parameters (by number) and constants first, one allocation per leaf: they are never
  // reused.
  void PlaceParametersAndConstants();
  // input_output_alias (entry only): output value -> the parameter value whose buffer it
  // should take over. Whether that is safe is decided when the output is defined; the
  // requests that cannot be honoured at all are noted here.
  void CollectAliasRequests();
  // Temps: a linear scan. An allocation is busy until the last use of the value last
  // placed in it; at step s those busy until before s are free.
  void PlaceTempsAndOutputs();
  // Total and temp bytes, and the peak of the bytes live at any step.
  void ComputeTotals();

 private:
  using LeafMap = BufferAssignment::LeafMap;
  using Busy = std::pair<int64_t, int64_t>;  // (until, allocation)

  bool IsAlias(const Instruction& inst) const {
    return options_.is_alias ? options_.is_alias(inst) : inst.opcode() == Opcode::kBitcast;
  }
  Role RoleOf(const Instruction& inst) const;
  // The leaves of a tuple: each operand's, under the operand's number.
  void ForwardTupleLeaves(const Instruction& inst, LeafMap* leaves) const;
  // The leaves of a get-tuple-element: its operand's under the tuple index.
  Status ForwardTupleElementLeaves(const Instruction& inst, LeafMap* leaves) const;
  // An alias: the same buffers as operand 0, leaf for leaf.
  Status ForwardAliasLeaves(const Instruction& inst, LeafMap* leaves) const;
  // A new value for every array of `inst`'s result, defined at step `defined_at`.
  Status DefineArrayValues(const Instruction& inst, int64_t defined_at, LeafMap* leaves);

  int64_t NewAllocation(Allocation::Kind kind);
  void Place(int64_t v, int64_t alloc);
  // Marks `alloc` busy until the last use of value `v`, just placed in it.
  void Occupy(int64_t alloc, int64_t v);
  // Frees the temps whose last value died before step `s`.
  void ReleaseDeadTemps(int64_t s);
  // Whether `inst`, which defines one array of `size` bytes at step `s`, may write it
  // over value `u` it reads: the code generator allows it for every operand that reads
  // `u`, one of them is `u` itself, and `u` dies here.
  bool MayOverwrite(const Instruction& inst, int64_t u, int64_t size, int64_t s) const;
  // Places output value `v`: in the parameter buffer input_output_alias asks for when
  // that is safe, else over a dying temp operand, else in an allocation of its own.
  void PlaceOutput(const Instruction& inst, int64_t v, int64_t s);
  // Places output value `v` in the buffer of parameter value `in` as `entry` asks, or
  // notes why not and returns false.
  bool TryParameterBuffer(const Instruction& inst, int64_t v, int64_t s, int64_t in,
                          const InputOutputAlias& entry);
  // Places value `v` in place over a temp operand of `inst` that dies at step `s`, when
  // the code generator allows it; `becomes_output`: that allocation becomes an output
  // for good (a while body's dynamic-update-slice of its state).
  bool TryOperandBuffer(const Instruction& inst, int64_t v, int64_t s, bool becomes_output);
  // Places temp value `v`: in place over a dying operand, else best fit among free temps
  // at least as large; else grow the largest free one (it costs less than a new
  // allocation); else a new one.
  void PlaceTemp(const Instruction& inst, int64_t v, int64_t s);

  const Computation& computation_;
  const std::vector<const Instruction*>& schedule_;
  const BufferAssignmentOptions& options_;
  BufferAssignment& ba_;
  const int64_t steps_;
  std::unordered_map<const Instruction*, Role> role_;
  std::vector<const Instruction*> params_;  // by parameter number
  std::unordered_map<int64_t, std::pair<int64_t, const InputOutputAlias*>> alias_of_;
  // The linear scan's state.
  std::vector<int64_t> busy_until_;
  std::vector<bool> is_free_;
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy_;
  std::set<std::pair<int64_t, int64_t>> free_temps_;  // (size, allocation)
  std::vector<bool> shares_operand_;
};

Role BufferAssigner::RoleOf(const Instruction& inst) const {
  switch (inst.opcode()) {
    case Opcode::kParameter: return Role::kParameter;
    case Opcode::kConstant: return Role::kConstant;
    case Opcode::kTuple:
    case Opcode::kGetTupleElement: return Role::kForward;
    default: return IsAlias(inst) ? Role::kForward : Role::kDefine;
  }
}

void BufferAssigner::ForwardTupleLeaves(const Instruction& inst, LeafMap* leaves) const {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    for (const auto& [path, v] : ba_.leaves_.at(inst.operand(i))) {
      Path p = {i};
      p.insert(p.end(), path.begin(), path.end());
      leaves->emplace_back(std::move(p), v);
    }
  }
}

Status BufferAssigner::ForwardTupleElementLeaves(const Instruction& inst, LeafMap* leaves) const {
  if (inst.operand_count() != 1) {
    return InvalidArgument(Name(inst) + " must have one operand");
  }
  const int64_t k = inst.tuple_index();
  for (const auto& [path, v] : ba_.leaves_.at(inst.operand(0))) {
    if (!path.empty() && path[0] == k) leaves->emplace_back(Path(path.begin() + 1, path.end()), v);
  }
  return Status::Ok();
}

Status BufferAssigner::ForwardAliasLeaves(const Instruction& inst, LeafMap* leaves) const {
  if (inst.operand_count() < 1) {
    return InvalidArgument(Name(inst) + " is treated as an alias but has no operand");
  }
  Status status = Status::Ok();
  const LeafMap& source = ba_.leaves_.at(inst.operand(0));
  ForEachSubshape(inst.shape(), [&](const Shape& sub, const Path& path) {
    if (!status.ok() || !sub.IsArray()) return;
    const int64_t* v = FindLeaf(source, path);
    StatusOr<int64_t> bytes = ArrayBytes(sub, inst);
    if (!bytes.ok()) {
      status = bytes.status();
    } else if (v == nullptr || ba_.values_[*v].size != *bytes) {
      status = InvalidArgument(Name(inst) + " is treated as an alias of its operand " +
                               Name(*inst.operand(0)) + ", but its array at " +
                               PathToString(path) + " is not the same number of bytes");
    } else {
      leaves->emplace_back(path, *v);
    }
  });
  return status;
}

Status BufferAssigner::DefineArrayValues(const Instruction& inst, int64_t defined_at,
                                         LeafMap* leaves) {
  Status status = Status::Ok();
  ForEachSubshape(inst.shape(), [&](const Shape& sub, const Path& path) {
    if (!status.ok() || !sub.IsArray()) return;
    StatusOr<int64_t> bytes = ArrayBytes(sub, inst);
    if (!bytes.ok()) {
      status = bytes.status();
      return;
    }
    LogicalValue value;
    value.instruction = &inst;
    value.index = path;
    value.shape = sub;
    value.size = *bytes;
    value.defined_at = defined_at;
    value.last_use = value.defined_at;
    leaves->emplace_back(path, static_cast<int64_t>(ba_.values_.size()));
    ba_.values_.push_back(std::move(value));
  });
  return status;
}

Status BufferAssigner::DefineValues() {
  for (int64_t s = 0; s < steps_; ++s) {
    const Instruction& inst = *schedule_[s];
    LeafMap& leaves = ba_.leaves_[&inst];
    const Role r = RoleOf(inst);
    role_[&inst] = r;
    if (inst.opcode() == Opcode::kTuple) {
      ForwardTupleLeaves(inst, &leaves);
    } else if (inst.opcode() == Opcode::kGetTupleElement) {
      RETURN_IF_ERROR(ForwardTupleElementLeaves(inst, &leaves));
    } else if (r == Role::kForward) {
      RETURN_IF_ERROR(ForwardAliasLeaves(inst, &leaves));
    } else {
      RETURN_IF_ERROR(DefineArrayValues(inst, r == Role::kParameter ? -1 : s, &leaves));
    }
  }
  return Status::Ok();
}

void BufferAssigner::ComputeLiveness() {
  const bool first_use_only = BugPlanted(PlantedBug::kLivenessEndsAtFirstUse);
  for (int64_t s = 0; s < steps_; ++s) {
    const Instruction& inst = *schedule_[s];
    if (role_[&inst] == Role::kForward) continue;
    for (const Instruction* op : inst.operands()) {
      for (const auto& [path, v] : ba_.leaves_.at(op)) {
        LogicalValue& read = ba_.values_[v];
        if (first_use_only && read.last_use != read.defined_at) continue;
        ba_.values_[v].last_use = std::max(ba_.values_[v].last_use, s);
      }
    }
  }
  for (const auto& [path, v] : ba_.leaves_.at(computation_.root())) {
    ba_.values_[v].live_out = true;
    ba_.values_[v].last_use = steps_;
  }
}

int64_t BufferAssigner::NewAllocation(Allocation::Kind kind) {
  Allocation a;
  a.index = static_cast<int64_t>(ba_.allocations_.size());
  a.kind = kind;
  ba_.allocations_.push_back(std::move(a));
  return ba_.allocations_.back().index;
}

void BufferAssigner::Place(int64_t v, int64_t alloc) {
  Allocation& a = ba_.allocations_[alloc];
  a.size = std::max(a.size, ba_.values_[v].size);
  a.values.emplace_back(v, 0);
  if (ba_.values_[v].live_out) a.maybe_live_out = true;
  ba_.value_slices_[v] = BufferSlice{alloc, 0, ba_.values_[v].size};
}

void BufferAssigner::PlaceParametersAndConstants() {
  ba_.value_slices_.assign(ba_.values_.size(), BufferSlice{});
  for (const Instruction* inst : schedule_) {
    if (inst->opcode() == Opcode::kParameter) params_.push_back(inst);
  }
  std::stable_sort(params_.begin(), params_.end(), [](const Instruction* a, const Instruction* b) {
    return a->parameter_number() < b->parameter_number();
  });
  for (const Instruction* p : params_) {
    for (const auto& [path, v] : ba_.leaves_.at(p)) {
      int64_t alloc = NewAllocation(Allocation::Kind::kParameter);
      ba_.allocations_[alloc].parameter_number = p->parameter_number();
      ba_.allocations_[alloc].parameter_index = path;
      Place(v, alloc);
    }
  }
  for (const Instruction* inst : schedule_) {
    if (inst->opcode() != Opcode::kConstant) continue;
    for (const auto& [path, v] : ba_.leaves_.at(inst)) Place(v, NewAllocation(Allocation::Kind::kConstant));
  }
}

void BufferAssigner::CollectAliasRequests() {
  const Module* module = computation_.parent();
  if (module == nullptr || module->entry() != &computation_) return;
  const LeafMap& root_leaves = ba_.leaves_.at(computation_.root());
  for (const InputOutputAlias& alias : module->input_output_alias) {
    const std::string what = AliasNotHonoured(alias);
    const int64_t* out = FindLeaf(root_leaves, alias.output_index);
    if (out == nullptr) {
      ba_.notes_.push_back(what + "the output has no array at that index");
      continue;
    }
    const Instruction* param = nullptr;
    for (const Instruction* p : params_) {
      if (p->parameter_number() == alias.parameter_number) param = p;
    }
    const int64_t* in = param ? FindLeaf(ba_.leaves_.at(param), alias.parameter_index) : nullptr;
    if (in == nullptr) {
      ba_.notes_.push_back(what + "no such parameter array");
      continue;
    }
    if (*in == *out) continue;  // the parameter is returned as is
    const LogicalValue& value = ba_.values_[*out];
    Opcode op = value.instruction->opcode();
    if (op == Opcode::kParameter || op == Opcode::kConstant) {
      ba_.notes_.push_back(what + "the output is " + Name(*value.instruction) +
                           ", which has its own buffer (the runtime copies it)");
      continue;
    }
    if (alias_of_.count(*out)) {
      ba_.notes_.push_back(what + "the same array is already aliased with another parameter");
      continue;
    }
    alias_of_[*out] = {*in, &alias};
  }
}

bool BufferAssigner::MayOverwrite(const Instruction& inst, int64_t u, int64_t size,
                                  int64_t s) const {
  if (!options_.may_share_operand || !inst.shape().IsArray()) return false;
  const LogicalValue& uv = ba_.values_[u];
  if (uv.live_out || uv.last_use != s || uv.size != size) return false;
  bool direct = false;
  for (int64_t j = 0; j < inst.operand_count(); ++j) {
    const LeafMap& leaves = ba_.leaves_.at(inst.operand(j));
    bool reads = std::any_of(leaves.begin(), leaves.end(),
                             [&](const auto& leaf) { return leaf.second == u; });
    if (!reads) continue;
    if (!options_.may_share_operand(inst, j)) return false;
    if (leaves.size() == 1 && leaves[0].first.empty()) direct = true;
  }
  return direct;
}

void BufferAssigner::Occupy(int64_t alloc, int64_t v) {
  if (static_cast<size_t>(alloc) >= busy_until_.size()) {
    busy_until_.resize(alloc + 1, 0);
    is_free_.resize(alloc + 1, false);
  }
  is_free_[alloc] = false;
  busy_until_[alloc] = ba_.values_[v].last_use;
  busy_.emplace(busy_until_[alloc], alloc);
}

void BufferAssigner::ReleaseDeadTemps(int64_t s) {
  while (!busy_.empty() && busy_.top().first < s) {
    auto [until, alloc] = busy_.top();
    busy_.pop();
    if (until != busy_until_[alloc] || is_free_[alloc]) continue;  // stale entry
    is_free_[alloc] = true;
    free_temps_.emplace(ba_.allocations_[alloc].size, alloc);
  }
}

bool BufferAssigner::TryParameterBuffer(const Instruction& inst, int64_t v, int64_t s, int64_t in,
                                        const InputOutputAlias& entry) {
  const LogicalValue& value = ba_.values_[v];
  const LogicalValue& param = ba_.values_[in];
  int64_t alloc = ba_.value_slices_[in].allocation;
  std::string why;
  if (ba_.allocations_[alloc].values.size() > 1) {
    why = "the parameter's buffer already holds another output";
  } else if (param.live_out) {
    why = "the parameter is returned too";
  } else if (value.size > ba_.allocations_[alloc].size) {
    why = "the output is larger than the parameter";
  } else if (param.last_use > s ||
             (param.last_use == s && !MayOverwrite(inst, in, value.size, s))) {
    why = Name(inst) + " is computed while the parameter is still read";
  }
  if (why.empty()) {
    Place(v, alloc);
    if (param.last_use == s) shares_operand_[v] = true;
    return true;
  }
  ba_.notes_.push_back(AliasNotHonoured(entry) + why + "; the output gets its own buffer");
  return false;
}

bool BufferAssigner::TryOperandBuffer(const Instruction& inst, int64_t v, int64_t s,
                                      bool becomes_output) {
  const int64_t size = ba_.values_[v].size;
  for (int64_t j = 0; j < inst.operand_count(); ++j) {
    const LeafMap& leaves = ba_.leaves_.at(inst.operand(j));
    if (leaves.size() != 1 || !leaves[0].first.empty()) continue;
    int64_t u = leaves[0].second;
    int64_t alloc = ba_.value_slices_[u].allocation;
    if (ba_.allocations_[alloc].kind != Allocation::Kind::kTemp) continue;
    if (!MayOverwrite(inst, u, size, s)) continue;
    if (becomes_output) ba_.allocations_[alloc].kind = Allocation::Kind::kOutput;
    Place(v, alloc);
    Occupy(alloc, v);  // for an output: busy to the end, an output is never freed
    shares_operand_[v] = true;
    return true;
  }
  return false;
}

void BufferAssigner::PlaceOutput(const Instruction& inst, int64_t v, int64_t s) {
  auto alias = alias_of_.find(v);
  if (alias != alias_of_.end()) {
    auto [in, entry] = alias->second;
    if (TryParameterBuffer(inst, v, s, in, *entry)) return;
  } else if (TryOperandBuffer(inst, v, s, /*becomes_output=*/true)) {
    return;
  }
  Place(v, NewAllocation(Allocation::Kind::kOutput));
}

void BufferAssigner::PlaceTemp(const Instruction& inst, int64_t v, int64_t s) {
  if (TryOperandBuffer(inst, v, s, /*becomes_output=*/false)) return;
  int64_t alloc = -1;
  auto fit = free_temps_.lower_bound({ba_.values_[v].size, -1});
  if (fit == free_temps_.end() && !free_temps_.empty()) fit = std::prev(free_temps_.end());
  if (fit != free_temps_.end()) {
    alloc = fit->second;
    free_temps_.erase(fit);
  } else {
    alloc = NewAllocation(Allocation::Kind::kTemp);
  }
  Place(v, alloc);
  Occupy(alloc, v);
}

void BufferAssigner::PlaceTempsAndOutputs() {
  busy_until_.assign(ba_.allocations_.size(), 0);
  is_free_.assign(ba_.allocations_.size(), false);
  shares_operand_.assign(ba_.values_.size(), false);
  for (int64_t s = 0; s < steps_; ++s) {
    ReleaseDeadTemps(s);
    const Instruction& inst = *schedule_[s];
    if (role_[&inst] != Role::kDefine) continue;
    for (const auto& [path, v] : ba_.leaves_.at(&inst)) {
      if (ba_.values_[v].live_out) {
        PlaceOutput(inst, v, s);
      } else {
        PlaceTemp(inst, v, s);
      }
    }
  }
}

void BufferAssigner::ComputeTotals() {
  int64_t resident = 0;
  for (const Allocation& a : ba_.allocations_) {
    ba_.total_bytes_ += a.size;
    if (a.kind == Allocation::Kind::kTemp) ba_.temp_bytes_ += a.size;
    if (a.kind == Allocation::Kind::kParameter || a.kind == Allocation::Kind::kConstant) {
      resident += a.size;
    }
  }
  std::vector<int64_t> delta(steps_ + 1, 0);
  for (size_t v = 0; v < ba_.values_.size(); ++v) {
    const LogicalValue& value = ba_.values_[v];
    Allocation::Kind kind = ba_.allocations_[ba_.value_slices_[v].allocation].kind;
    if (kind != Allocation::Kind::kTemp && kind != Allocation::Kind::kOutput) continue;
    // A value written over its operand shares the operand's bytes at the defining step.
    int64_t start = value.defined_at + (shares_operand_[v] ? 1 : 0);
    int64_t end = std::min(value.last_use, steps_ - 1);
    if (start > end) continue;
    delta[start] += value.size;
    delta[end + 1] -= value.size;
  }
  int64_t live = 0, peak = 0;
  for (int64_t s = 0; s < steps_; ++s) {
    live += delta[s];
    peak = std::max(peak, live);
  }
  ba_.peak_live_bytes_ = resident + peak;
}

StatusOr<BufferAssignment> AssignBuffers(const Computation& computation,
                                         const std::vector<const Instruction*>& schedule,
                                         const BufferAssignmentOptions& options) {
  if (options.alignment <= 0 || (options.alignment & (options.alignment - 1)) != 0) {
    return InvalidArgument("buffer alignment must be a power of two, not " +
                           std::to_string(options.alignment));
  }
  if (computation.root() == nullptr) {
    return InvalidArgument("computation %" + computation.name() + " has no root");
  }
  std::unordered_map<const Instruction*, int64_t> step_of;
  RETURN_IF_ERROR(ValidateSchedule(computation, schedule, &step_of));

  BufferAssignment ba;
  ba.computation_name_ = computation.name();
  ba.alignment_ = options.alignment;
  BufferAssigner assigner(computation, schedule, options, &ba);
  RETURN_IF_ERROR(assigner.DefineValues());
  assigner.ComputeLiveness();
  assigner.PlaceParametersAndConstants();
  assigner.CollectAliasRequests();
  assigner.PlaceTempsAndOutputs();
  assigner.ComputeTotals();
  return ba;
}

int64_t BufferAssignment::GetValueId(const Instruction& inst,
                                     const std::vector<int64_t>& index) const {
  auto it = leaves_.find(&inst);
  if (it == leaves_.end()) return -1;
  const int64_t* v = FindLeaf(it->second, index);
  return v ? *v : -1;
}

StatusOr<BufferSlice> BufferAssignment::GetSlice(const Instruction& inst,
                                                 const std::vector<int64_t>& index) const {
  auto it = leaves_.find(&inst);
  if (it == leaves_.end()) {
    return NotFound(Name(inst) + " is not an instruction of computation %" + computation_name_);
  }
  const int64_t* v = FindLeaf(it->second, index);
  if (v == nullptr) {
    return NotFound(Name(inst) + " has no array buffer at index " + PathToString(index) +
                    " of " + inst.shape().ToString());
  }
  return value_slices_[*v];
}

std::string BufferAssignment::ToString() const {
  std::string out = "BufferAssignment:\n";
  for (const Allocation& a : allocations_) {
    out += "allocation " + std::to_string(a.index) + ": size " + std::to_string(a.size);
    if (a.kind == Allocation::Kind::kParameter) {
      out += ", parameter " + std::to_string(a.parameter_number) + ", shape |";
      // The whole parameter's shape, as XLA prints it.
      const Instruction* param = a.values.empty() ? nullptr : values_[a.values[0].first].instruction;
      out += param ? param->shape().ToString(false) : "?";
      out += "| at ShapeIndex " + PathToString(a.parameter_index);
    }
    if (a.kind == Allocation::Kind::kConstant) out += ", constant";
    if (a.maybe_live_out) out += ", maybe-live-out";
    out += ":\n";
    for (const auto& [v, offset] : a.values) {
      const LogicalValue& value = values_[v];
      out += " value: <" + std::to_string(v) + " " + value.instruction->name();
      if (value.instruction->shape().IsTuple()) out += PathToString(value.index);
      out += " @0> (size=" + std::to_string(value.size) + ",offset=" + std::to_string(offset) +
             "): " + value.shape.ToString() + "\n";
    }
  }
  for (const std::string& note : notes_) out += "note: " + note + "\n";
  out += "Total bytes used: " + std::to_string(total_bytes_) + " (temp " +
         std::to_string(temp_bytes_) + ", peak live " + std::to_string(peak_live_bytes_) + ")\n";
  return out;
}

Status MissingSliceError(const Instruction& inst, const std::vector<int64_t>& index, const std::string& why) {
  return Internal("internal error: buffer assignment has no slice for " + Name(inst) + " (output " +
                  PathToString(index) + ")" + (why.empty() ? "" : "; " + why) +
                  "; not running on with a null pointer or zeros in its place (a Fusebox bug: please report "
                  "it with this module)");
}

StatusOr<std::vector<BufferSlice>> LeafSlices(const BufferAssignment& assignment, const Instruction& inst) {
  std::vector<BufferSlice> slices;
  Status status = Status::Ok();
  Path path;
  // Depth first through tuples, arrays only: the order the runtimes bind leaves in.
  std::function<void(const Shape&)> walk = [&](const Shape& shape) {
    if (!status.ok()) return;
    if (shape.IsTuple()) {
      for (int64_t i = 0; i < shape.tuple_size(); ++i) {
        path.push_back(i);
        walk(shape.tuple_shapes(i));
        path.pop_back();
      }
      return;
    }
    if (!shape.IsArray()) return;
    StatusOr<BufferSlice> slice = assignment.GetSlice(inst, path);
    if (!slice.ok()) {
      status = MissingSliceError(inst, path, slice.status().message());
    } else if (slice->allocation < 0 ||
               slice->allocation >= static_cast<int64_t>(assignment.allocations().size())) {
      status = MissingSliceError(inst, path, "its value was given no allocation");
    } else {
      slices.push_back(*slice);
    }
  };
  walk(inst.shape());
  if (!status.ok()) return status;
  return slices;
}

}  // namespace fusebox::backend
