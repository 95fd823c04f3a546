// Buffer assignment: values and their liveness over a schedule, then one linear scan that
// places parameters, constants, outputs and temps, reusing dead temps best-fit.
#include "compiler/backend/buffer_assignment.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <set>
#include <unordered_set>

#include "compiler/ir/module.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox {

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
  const int64_t steps = static_cast<int64_t>(schedule.size());
  auto is_alias = [&](const Instruction& inst) {
    return options.is_alias ? options.is_alias(inst) : inst.opcode() == Opcode::kBitcast;
  };

  // --- Values: what each instruction defines, and every instruction's leaves. ---
  std::unordered_map<const Instruction*, Role> role;
  for (int64_t s = 0; s < steps; ++s) {
    const Instruction& inst = *schedule[s];
    BufferAssignment::LeafMap& leaves = ba.leaves_[&inst];
    Role r = Role::kDefine;
    switch (inst.opcode()) {
      case Opcode::kParameter: r = Role::kParameter; break;
      case Opcode::kConstant: r = Role::kConstant; break;
      case Opcode::kTuple:
      case Opcode::kGetTupleElement: r = Role::kForward; break;
      default: r = is_alias(inst) ? Role::kForward : Role::kDefine; break;
    }
    role[&inst] = r;
    if (inst.opcode() == Opcode::kTuple) {
      for (int64_t i = 0; i < inst.operand_count(); ++i) {
        for (const auto& [path, v] : ba.leaves_.at(inst.operand(i))) {
          Path p = {i};
          p.insert(p.end(), path.begin(), path.end());
          leaves.emplace_back(std::move(p), v);
        }
      }
      continue;
    }
    if (inst.opcode() == Opcode::kGetTupleElement) {
      if (inst.operand_count() != 1) {
        return InvalidArgument(Name(inst) + " must have one operand");
      }
      const int64_t k = inst.tuple_index();
      for (const auto& [path, v] : ba.leaves_.at(inst.operand(0))) {
        if (!path.empty() && path[0] == k) leaves.emplace_back(Path(path.begin() + 1, path.end()), v);
      }
      continue;
    }
    Status status = Status::Ok();
    if (r == Role::kForward) {
      // An alias: the same buffers as operand 0, leaf for leaf.
      if (inst.operand_count() < 1) {
        return InvalidArgument(Name(inst) + " is treated as an alias but has no operand");
      }
      const BufferAssignment::LeafMap& source = ba.leaves_.at(inst.operand(0));
      ForEachSubshape(inst.shape(), [&](const Shape& sub, const Path& path) {
        if (!status.ok() || !sub.IsArray()) return;
        const int64_t* v = FindLeaf(source, path);
        StatusOr<int64_t> bytes = ArrayBytes(sub, inst);
        if (!bytes.ok()) {
          status = bytes.status();
        } else if (v == nullptr || ba.values_[*v].size != *bytes) {
          status = InvalidArgument(Name(inst) + " is treated as an alias of its operand " +
                                   Name(*inst.operand(0)) + ", but its array at " +
                                   PathToString(path) + " is not the same number of bytes");
        } else {
          leaves.emplace_back(path, *v);
        }
      });
      RETURN_IF_ERROR(status);
      continue;
    }
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
      value.defined_at = r == Role::kParameter ? -1 : s;
      value.last_use = value.defined_at;
      leaves.emplace_back(path, static_cast<int64_t>(ba.values_.size()));
      ba.values_.push_back(std::move(value));
    });
    RETURN_IF_ERROR(status);
  }

  // --- Liveness: a value is read wherever an instruction that is not a pure forwarder
  // reads a leaf that resolves to it. The root's leaves live to the end. ---
  const bool first_use_only = BugPlanted(PlantedBug::kLivenessEndsAtFirstUse);
  for (int64_t s = 0; s < steps; ++s) {
    const Instruction& inst = *schedule[s];
    if (role[&inst] == Role::kForward) continue;
    for (const Instruction* op : inst.operands()) {
      for (const auto& [path, v] : ba.leaves_.at(op)) {
        LogicalValue& read = ba.values_[v];
        if (first_use_only && read.last_use != read.defined_at) continue;
        ba.values_[v].last_use = std::max(ba.values_[v].last_use, s);
      }
    }
  }
  const BufferAssignment::LeafMap& root_leaves = ba.leaves_.at(computation.root());
  for (const auto& [path, v] : root_leaves) {
    ba.values_[v].live_out = true;
    ba.values_[v].last_use = steps;
  }

  // --- Allocations. ---
  ba.value_slices_.assign(ba.values_.size(), BufferSlice{});
  auto new_allocation = [&](Allocation::Kind kind) {
    Allocation a;
    a.index = static_cast<int64_t>(ba.allocations_.size());
    a.kind = kind;
    ba.allocations_.push_back(std::move(a));
    return ba.allocations_.back().index;
  };
  auto place = [&](int64_t v, int64_t alloc) {
    Allocation& a = ba.allocations_[alloc];
    a.size = std::max(a.size, ba.values_[v].size);
    a.values.emplace_back(v, 0);
    if (ba.values_[v].live_out) a.maybe_live_out = true;
    ba.value_slices_[v] = BufferSlice{alloc, 0, ba.values_[v].size};
  };

  // Parameters (by number) and constants first: they are never reused.
  std::vector<const Instruction*> params;
  for (const Instruction* inst : schedule) {
    if (inst->opcode() == Opcode::kParameter) params.push_back(inst);
  }
  std::stable_sort(params.begin(), params.end(), [](const Instruction* a, const Instruction* b) {
    return a->parameter_number() < b->parameter_number();
  });
  for (const Instruction* p : params) {
    for (const auto& [path, v] : ba.leaves_.at(p)) {
      int64_t alloc = new_allocation(Allocation::Kind::kParameter);
      ba.allocations_[alloc].parameter_number = p->parameter_number();
      ba.allocations_[alloc].parameter_index = path;
      place(v, alloc);
    }
  }
  for (const Instruction* inst : schedule) {
    if (inst->opcode() != Opcode::kConstant) continue;
    for (const auto& [path, v] : ba.leaves_.at(inst)) place(v, new_allocation(Allocation::Kind::kConstant));
  }

  // input_output_alias (entry only): output value -> the parameter value whose buffer it
  // should take over. Whether that is safe is decided when the output is defined.
  std::unordered_map<int64_t, std::pair<int64_t, const InputOutputAlias*>> alias_of;
  const Module* module = computation.parent();
  if (module != nullptr && module->entry() == &computation) {
    for (const InputOutputAlias& alias : module->input_output_alias) {
      const std::string what = "input_output_alias " + PathToString(alias.output_index) + ": (" +
                               std::to_string(alias.parameter_number) + ", " +
                               PathToString(alias.parameter_index) + ") not honoured: ";
      const int64_t* out = FindLeaf(root_leaves, alias.output_index);
      if (out == nullptr) {
        ba.notes_.push_back(what + "the output has no array at that index");
        continue;
      }
      const Instruction* param = nullptr;
      for (const Instruction* p : params) {
        if (p->parameter_number() == alias.parameter_number) param = p;
      }
      const int64_t* in = param ? FindLeaf(ba.leaves_.at(param), alias.parameter_index) : nullptr;
      if (in == nullptr) {
        ba.notes_.push_back(what + "no such parameter array");
        continue;
      }
      if (*in == *out) continue;  // the parameter is returned as is
      const LogicalValue& value = ba.values_[*out];
      Opcode op = value.instruction->opcode();
      if (op == Opcode::kParameter || op == Opcode::kConstant) {
        ba.notes_.push_back(what + "the output is " + Name(*value.instruction) +
                            ", which has its own buffer (the runtime copies it)");
        continue;
      }
      if (alias_of.count(*out)) {
        ba.notes_.push_back(what + "the same array is already aliased with another parameter");
        continue;
      }
      alias_of[*out] = {*in, &alias};
    }
  }

  // Whether `inst`, which defines one array of `size` bytes at step `s`, may write it over
  // value `u` it reads: the code generator allows it for every operand that reads `u`,
  // one of them is `u` itself, and `u` dies here.
  auto may_overwrite = [&](const Instruction& inst, int64_t u, int64_t size, int64_t s) {
    if (!options.may_share_operand || !inst.shape().IsArray()) return false;
    const LogicalValue& uv = ba.values_[u];
    if (uv.live_out || uv.last_use != s || uv.size != size) return false;
    bool direct = false;
    for (int64_t j = 0; j < inst.operand_count(); ++j) {
      const BufferAssignment::LeafMap& leaves = ba.leaves_.at(inst.operand(j));
      bool reads = std::any_of(leaves.begin(), leaves.end(),
                               [&](const auto& leaf) { return leaf.second == u; });
      if (!reads) continue;
      if (!options.may_share_operand(inst, j)) return false;
      if (leaves.size() == 1 && leaves[0].first.empty()) direct = true;
    }
    return direct;
  };

  // Temps: a linear scan. An allocation is busy until the last use of the value last
  // placed in it; at step s those busy until before s are free.
  std::vector<int64_t> busy_until(ba.allocations_.size(), 0);
  std::vector<bool> is_free(ba.allocations_.size(), false);
  using Busy = std::pair<int64_t, int64_t>;  // (until, allocation)
  std::priority_queue<Busy, std::vector<Busy>, std::greater<Busy>> busy;
  std::set<std::pair<int64_t, int64_t>> free_temps;  // (size, allocation)
  std::vector<bool> shares_operand(ba.values_.size(), false);
  auto occupy = [&](int64_t alloc, int64_t v) {
    if (static_cast<size_t>(alloc) >= busy_until.size()) {
      busy_until.resize(alloc + 1, 0);
      is_free.resize(alloc + 1, false);
    }
    is_free[alloc] = false;
    busy_until[alloc] = ba.values_[v].last_use;
    busy.emplace(busy_until[alloc], alloc);
  };
  for (int64_t s = 0; s < steps; ++s) {
    while (!busy.empty() && busy.top().first < s) {
      auto [until, alloc] = busy.top();
      busy.pop();
      if (until != busy_until[alloc] || is_free[alloc]) continue;  // stale entry
      is_free[alloc] = true;
      free_temps.emplace(ba.allocations_[alloc].size, alloc);
    }
    const Instruction& inst = *schedule[s];
    if (role[&inst] != Role::kDefine) continue;
    for (const auto& [path, v] : ba.leaves_.at(&inst)) {
      const LogicalValue& value = ba.values_[v];
      if (value.live_out) {
        auto alias = alias_of.find(v);
        if (alias != alias_of.end()) {
          auto [in, entry] = alias->second;
          const std::string what = "input_output_alias " + PathToString(entry->output_index) +
                                   ": (" + std::to_string(entry->parameter_number) + ", " +
                                   PathToString(entry->parameter_index) + ") not honoured: ";
          const LogicalValue& param = ba.values_[in];
          int64_t alloc = ba.value_slices_[in].allocation;
          std::string why;
          if (ba.allocations_[alloc].values.size() > 1) {
            why = "the parameter's buffer already holds another output";
          } else if (param.live_out) {
            why = "the parameter is returned too";
          } else if (value.size > ba.allocations_[alloc].size) {
            why = "the output is larger than the parameter";
          } else if (param.last_use > s ||
                     (param.last_use == s && !may_overwrite(inst, in, value.size, s))) {
            why = Name(inst) + " is computed while the parameter is still read";
          }
          if (why.empty()) {
            place(v, alloc);
            if (param.last_use == s) shares_operand[v] = true;
            continue;
          }
          ba.notes_.push_back(what + why + "; the output gets its own buffer");
        }
        // An output may also take over a temp operand that dies here (a while body's
        // dynamic-update-slice of its state): that allocation becomes an output for good.
        bool taken = false;
        for (int64_t j = 0; j < inst.operand_count() && !taken && alias == alias_of.end(); ++j) {
          const BufferAssignment::LeafMap& leaves = ba.leaves_.at(inst.operand(j));
          if (leaves.size() != 1 || !leaves[0].first.empty()) continue;
          int64_t u = leaves[0].second;
          int64_t alloc = ba.value_slices_[u].allocation;
          if (ba.allocations_[alloc].kind != Allocation::Kind::kTemp) continue;
          if (!may_overwrite(inst, u, value.size, s)) continue;
          ba.allocations_[alloc].kind = Allocation::Kind::kOutput;
          place(v, alloc);
          occupy(alloc, v);  // busy to the end: an output is never freed
          shares_operand[v] = true;
          taken = true;
        }
        if (taken) continue;
        place(v, new_allocation(Allocation::Kind::kOutput));
        continue;
      }
      // In place over an operand that dies here, when the code generator allows it.
      bool shared = false;
      for (int64_t j = 0; j < inst.operand_count() && !shared; ++j) {
        const BufferAssignment::LeafMap& leaves = ba.leaves_.at(inst.operand(j));
        if (leaves.size() != 1 || !leaves[0].first.empty()) continue;
        int64_t u = leaves[0].second;
        int64_t alloc = ba.value_slices_[u].allocation;
        if (ba.allocations_[alloc].kind != Allocation::Kind::kTemp) continue;
        if (!may_overwrite(inst, u, value.size, s)) continue;
        place(v, alloc);
        occupy(alloc, v);
        shares_operand[v] = true;
        shared = true;
      }
      if (shared) continue;
      // Best fit among free temps at least as large; else grow the largest free one (it
      // costs less than a new allocation); else a new one.
      int64_t alloc = -1;
      auto fit = free_temps.lower_bound({value.size, -1});
      if (fit == free_temps.end() && !free_temps.empty()) fit = std::prev(free_temps.end());
      if (fit != free_temps.end()) {
        alloc = fit->second;
        free_temps.erase(fit);
      } else {
        alloc = new_allocation(Allocation::Kind::kTemp);
      }
      place(v, alloc);
      occupy(alloc, v);
    }
  }

  // --- Totals. ---
  int64_t resident = 0;
  for (const Allocation& a : ba.allocations_) {
    ba.total_bytes_ += a.size;
    if (a.kind == Allocation::Kind::kTemp) ba.temp_bytes_ += a.size;
    if (a.kind == Allocation::Kind::kParameter || a.kind == Allocation::Kind::kConstant) {
      resident += a.size;
    }
  }
  std::vector<int64_t> delta(steps + 1, 0);
  for (size_t v = 0; v < ba.values_.size(); ++v) {
    const LogicalValue& value = ba.values_[v];
    Allocation::Kind kind = ba.allocations_[ba.value_slices_[v].allocation].kind;
    if (kind != Allocation::Kind::kTemp && kind != Allocation::Kind::kOutput) continue;
    // A value written over its operand shares the operand's bytes at the defining step.
    int64_t start = value.defined_at + (shares_operand[v] ? 1 : 0);
    int64_t end = std::min(value.last_use, steps - 1);
    if (start > end) continue;
    delta[start] += value.size;
    delta[end + 1] -= value.size;
  }
  int64_t live = 0, peak = 0;
  for (int64_t s = 0; s < steps; ++s) {
    live += delta[s];
    peak = std::max(peak, live);
  }
  ba.peak_live_bytes_ = resident + peak;
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

}  // namespace fusebox
