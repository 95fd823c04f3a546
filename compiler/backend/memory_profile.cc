// The memory profile of a program computation: per-allocation bytes at every step from
// the values' live ranges, resident parameters and constants, callees' peaks at the steps
// that run them, then the peak and what is alive there.
#include "compiler/backend/memory_profile.h"

#include <algorithm>
#include <unordered_map>

namespace fusebox::backend {

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kParameter: return "parameter";
    case MemoryKind::kParameterCopy: return "parameter copy";
    case MemoryKind::kConstant: return "constant";
    case MemoryKind::kOutput: return "output";
    case MemoryKind::kTemp: return "temp";
  }
  return "?";
}

std::string MemoryProfile::PeakInstruction() const {
  if (peak_step < 0 || peak_step >= static_cast<int64_t>(schedule.size())) return "";
  return schedule[peak_step];
}

int64_t MemoryProfile::SumAtPeak() const {
  int64_t sum = 0;
  for (const LiveBuffer& b : at_peak) sum += b.bytes;
  return sum;
}

namespace {

MemoryKind KindOf(const Allocation& a) {
  switch (a.kind) {
    case Allocation::Kind::kParameter: return MemoryKind::kParameter;
    case Allocation::Kind::kConstant: return MemoryKind::kConstant;
    case Allocation::Kind::kOutput: return MemoryKind::kOutput;
    case Allocation::Kind::kTemp: return MemoryKind::kTemp;
  }
  return MemoryKind::kTemp;
}

bool IsResident(MemoryKind kind) {
  return kind == MemoryKind::kParameter || kind == MemoryKind::kParameterCopy || kind == MemoryKind::kConstant;
}

ValueRange RangeOf(const LogicalValue& value, const BufferSlice& slice, MemoryKind kind) {
  ValueRange r;
  r.instruction = value.instruction->name();
  r.index = value.index;
  r.shape = value.shape.ToString();
  if (const OpMetadata* m = value.instruction->metadata()) r.op_name = m->op_name;
  r.bytes = value.size;
  r.allocation = slice.allocation;
  r.kind = kind;
  r.defined_at = value.defined_at;
  r.last_use = value.last_use;
  return r;
}

LiveBuffer BufferOf(const std::string& computation, const ValueRange& v, int64_t allocation_bytes, int64_t steps) {
  LiveBuffer b;
  b.steps = steps;
  b.computation = computation;
  b.allocation = v.allocation;
  b.kind = v.kind;
  b.bytes = v.bytes;
  b.allocation_bytes = allocation_bytes;
  b.instruction = v.instruction;
  b.index = v.index;
  b.shape = v.shape;
  b.op_name = v.op_name;
  b.defined_at = v.defined_at;
  b.last_use = v.last_use;
  return b;
}

// The steps a temp or output value occupies its allocation: its definition to its last
// read, clipped to the schedule (a live-out value to the last step).
std::pair<int64_t, int64_t> StepsOf(const ValueRange& v, int64_t steps) {
  return {std::max<int64_t>(v.defined_at, 0), std::min(v.last_use, steps - 1)};
}

// What one callee adds while its caller's instruction runs: its peak buffers, less its
// parameters (the caller's operands, counted by the caller).
struct CalleeLoad {
  int64_t bytes = 0;
  std::vector<LiveBuffer> buffers;
};

CalleeLoad LoadOf(const MemoryProfile& callee) {
  CalleeLoad load;
  for (const LiveBuffer& b : callee.at_peak) {
    if (b.kind == MemoryKind::kParameter && b.computation == callee.computation) continue;
    load.bytes += b.bytes;
    load.buffers.push_back(b);
  }
  return load;
}

class Profiler {
 public:
  Profiler(const Computation& computation, const std::vector<const Instruction*>& schedule,
           const BufferAssignment& assignment, const MemoryProfileOptions& options)
      : computation_(computation), schedule_(schedule), assignment_(assignment), options_(options) {}

  StatusOr<MemoryProfile> Run() {
    profile_.computation = computation_.name();
    for (const Instruction* inst : schedule_) profile_.schedule.push_back(inst->name());
    steps_ = static_cast<int64_t>(schedule_.size());
    profile_.bytes_at.assign(steps_, 0);
    profile_.callee_bytes_at.assign(steps_, 0);
    profile_.allocation_bytes = assignment_.total_bytes();
    CollectValues();
    CountResident();
    CountAllocations();
    RETURN_IF_ERROR(CountCallees());
    FindPeak();
    ListPeakBuffers();
    return std::move(profile_);
  }

 private:
  void CollectValues() {
    by_allocation_.assign(assignment_.allocations().size(), {});
    for (size_t v = 0; v < assignment_.values().size(); ++v) {
      const BufferSlice& slice = assignment_.value_slice(static_cast<int64_t>(v));
      if (slice.allocation < 0) continue;  // no buffer (should not happen for arrays)
      const Allocation& a = assignment_.allocations()[slice.allocation];
      profile_.values.push_back(RangeOf(assignment_.values()[v], slice, KindOf(a)));
      by_allocation_[slice.allocation].push_back(profile_.values.size() - 1);
    }
  }

  // Parameters (and the runtime's copies of the written ones) and constants: all of an
  // allocation at every step.
  void CountResident() {
    for (const Allocation& a : assignment_.allocations()) {
      if (a.kind != Allocation::Kind::kParameter && a.kind != Allocation::Kind::kConstant) continue;
      int64_t bytes = a.size;
      if (a.kind == Allocation::Kind::kParameter && options_.parameter_copied && options_.parameter_copied(a)) {
        bytes += a.size;
      }
      profile_.resident_bytes += bytes;
    }
    for (int64_t& b : profile_.bytes_at) b += profile_.resident_bytes;
  }

  // Temps and outputs: at each step, the largest value of the allocation live there (two
  // live at once share the allocation: one written over the other).
  void CountAllocations() {
    std::vector<int64_t> held(steps_, -1);  // -1: nothing of this allocation live
    std::vector<int64_t> touched;
    for (size_t alloc = 0; alloc < by_allocation_.size(); ++alloc) {
      if (IsResident(KindOf(assignment_.allocations()[alloc]))) continue;
      for (size_t v : by_allocation_[alloc]) {
        auto [first, last] = StepsOf(profile_.values[v], steps_);
        for (int64_t s = first; s <= last; ++s) {
          if (held[s] < 0) touched.push_back(s);
          held[s] = std::max(held[s], profile_.values[v].bytes);
        }
      }
      for (int64_t s : touched) {
        profile_.bytes_at[s] += held[s];
        held[s] = -1;
      }
      touched.clear();
    }
  }

  Status CountCallees() {
    if (!options_.callee) return Status::Ok();
    for (int64_t s = 0; s < steps_; ++s) {
      const Instruction& inst = *schedule_[s];
      Opcode op = inst.opcode();
      if (op != Opcode::kWhile && op != Opcode::kConditional && op != Opcode::kCall) continue;
      CalleeLoad largest;
      for (const Computation* callee : inst.called_computations()) {
        ASSIGN_OR_RETURN(MemoryProfile profile, options_.callee(*callee));
        CalleeLoad load = LoadOf(profile);
        if (load.bytes > largest.bytes || largest.buffers.empty()) largest = std::move(load);
      }
      profile_.callee_bytes_at[s] = largest.bytes;
      profile_.bytes_at[s] += largest.bytes;
      callee_buffers_[s] = std::move(largest.buffers);
    }
    return Status::Ok();
  }

  void FindPeak() {
    for (int64_t s = 0; s < steps_; ++s) {
      if (profile_.peak_step < 0 || profile_.bytes_at[s] > profile_.peak_bytes) {
        profile_.peak_step = s;
        profile_.peak_bytes = profile_.bytes_at[s];
      }
    }
  }

  void ListPeakBuffers() {
    const int64_t s = profile_.peak_step;
    if (s < 0) return;
    for (size_t alloc = 0; alloc < by_allocation_.size(); ++alloc) AddPeakBuffer(alloc, s);
    auto callee = callee_buffers_.find(s);
    if (callee != callee_buffers_.end()) {
      for (const LiveBuffer& b : callee->second) profile_.at_peak.push_back(b);
    }
    std::stable_sort(profile_.at_peak.begin(), profile_.at_peak.end(),
                     [](const LiveBuffer& a, const LiveBuffer& b) { return a.bytes > b.bytes; });
  }

  // The allocation's row at step `s`: resident ones always (and a parameter's copy as a
  // row of its own), others when a value is live there; the largest value names it, the
  // one written at `s` when two have the same size.
  void AddPeakBuffer(size_t alloc, int64_t s) {
    const Allocation& a = assignment_.allocations()[alloc];
    const MemoryKind kind = KindOf(a);
    std::vector<size_t> live;
    for (size_t v : by_allocation_[alloc]) {
      auto [first, last] = StepsOf(profile_.values[v], steps_);
      if (IsResident(kind) || (first <= s && s <= last)) live.push_back(v);
    }
    if (live.empty()) return;
    size_t shown = live[0];
    for (size_t v : live) {
      const ValueRange& cand = profile_.values[v];
      const ValueRange& best = profile_.values[shown];
      if (cand.bytes > best.bytes || (cand.bytes == best.bytes && cand.defined_at > best.defined_at)) shown = v;
    }
    LiveBuffer row = BufferOf(profile_.computation, profile_.values[shown], a.size, steps_);
    if (IsResident(kind)) row.bytes = a.size;
    for (size_t v : live) {
      if (v != shown && !IsResident(kind)) row.shared_with = profile_.values[v].instruction;
    }
    if (row.bytes > 0) profile_.at_peak.push_back(row);
    if (kind == MemoryKind::kParameter && options_.parameter_copied && options_.parameter_copied(a) && a.size > 0) {
      row.kind = MemoryKind::kParameterCopy;
      profile_.at_peak.push_back(row);
    }
  }

  const Computation& computation_;
  const std::vector<const Instruction*>& schedule_;
  const BufferAssignment& assignment_;
  const MemoryProfileOptions& options_;
  int64_t steps_ = 0;
  MemoryProfile profile_;
  std::vector<std::vector<size_t>> by_allocation_;  // indices into profile_.values
  std::unordered_map<int64_t, std::vector<LiveBuffer>> callee_buffers_;  // step -> callee's
};

}  // namespace

StatusOr<MemoryProfile> ProfileMemory(const Computation& computation,
                                      const std::vector<const Instruction*>& schedule,
                                      const BufferAssignment& assignment,
                                      const MemoryProfileOptions& options) {
  if (schedule.empty()) return InvalidArgument("computation %" + computation.name() + " has an empty schedule");
  return Profiler(computation, schedule, assignment, options).Run();
}

}  // namespace fusebox::backend
