// The memory profile of one program computation: from its buffer assignment and the order
// its instructions run in (the schedule), every value's live range in schedule steps, the
// bytes in use at every step, the peak step and the buffers alive there.
//
// What counts at a step, by allocation, not by value: a parameter or constant allocation
// is resident for the whole run (all of its bytes); a temp or output allocation holds, at
// a step, the largest of its values live there. When one allocation holds two values at
// once (a kernel writing its result over an operand that dies there: in place, or an
// honoured input_output_alias) it is counted once. A parameter the runtime copies before
// the run (`MemoryProfileOptions::parameter_copied`: one written in place) counts twice,
// as the caller's input and as the copy. While a `while`, `conditional` or `call` runs,
// the computation it runs adds its own peak (for a while, the larger of condition and
// body; for a conditional, of the branches), less that computation's parameters, which
// are the caller's operand buffers and already counted.
//
// What it does not do: no padding to the runtime's alignment (sizes are the values' bytes,
// as XLA prints them), no memory inside kernels (fusions, thread-local accumulators), and
// no time: a step is one instruction, however long it runs. See docs/memory-view.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/backend/buffer_assignment.h"
#include "compiler/support/status.h"

namespace fusebox::backend {

// What a buffer is to the program: its allocation's kind, and the runtime's copy of a
// parameter it writes.
enum class MemoryKind { kParameter, kParameterCopy, kConstant, kOutput, kTemp };
std::string_view MemoryKindName(MemoryKind kind);

// One value's live range: defined at step `defined_at` (-1: a parameter, live on entry),
// last read at `last_use` (== the schedule's size: live out).
struct ValueRange {
  std::string instruction;
  std::vector<int64_t> index;  // tuple path of the leaf, empty for an array result
  std::string shape;
  std::string op_name;  // metadata op_name, or empty
  int64_t bytes = 0;
  int64_t allocation = -1;
  MemoryKind kind = MemoryKind::kTemp;
  int64_t defined_at = 0;
  int64_t last_use = 0;
};

// A buffer alive at one step, with the bytes it counts there.
struct LiveBuffer {
  std::string computation;  // where its value lives (a callee's while the caller runs it)
  int64_t allocation = -1;
  MemoryKind kind = MemoryKind::kTemp;
  int64_t bytes = 0;             // counted at this step
  int64_t allocation_bytes = 0;  // the allocation's size (its largest value)
  std::string instruction;       // the value it holds (the one written last, if two)
  std::vector<int64_t> index;
  std::string shape;
  std::string op_name;
  int64_t defined_at = 0;
  int64_t last_use = 0;
  int64_t steps = 0;  // of its computation's schedule (last_use == steps: live out)
  // The other value in the same allocation at this step (an operand the instruction
  // writes over), counted once with it; empty when there is none.
  std::string shared_with;
};

struct MemoryProfile {
  std::string computation;
  std::vector<std::string> schedule;  // instruction names in the order they run
  std::vector<ValueRange> values;     // every value with a buffer, in definition order
  std::vector<int64_t> bytes_at;      // bytes in use at each step (callees included)
  std::vector<int64_t> callee_bytes_at;  // of which a running callee's own buffers
  int64_t resident_bytes = 0;    // parameters, their copies and constants: every step
  int64_t allocation_bytes = 0;  // sum of all allocation sizes (the assignment's total)
  int64_t peak_bytes = 0;
  int64_t peak_step = -1;  // the first step at the peak; -1 for an empty schedule
  // The buffers alive at the peak step, largest first; their bytes add up to peak_bytes.
  std::vector<LiveBuffer> at_peak;

  // The instruction at the peak step ("" when there is none).
  std::string PeakInstruction() const;
  int64_t SumAtPeak() const;
};

struct MemoryProfileOptions {
  // The profile of a computation a while, conditional or call runs (from its own
  // assignment). Null: what callees hold is not counted.
  std::function<StatusOr<MemoryProfile>(const Computation& callee)> callee;
  // Whether the runtime copies this parameter allocation before a run (it writes it).
  // Null: never.
  std::function<bool(const Allocation& allocation)> parameter_copied;
};

// The profile of `computation` run in `schedule`'s order, whose buffers `assignment`
// placed (AssignBuffers over the same computation and schedule).
StatusOr<MemoryProfile> ProfileMemory(const Computation& computation,
                                      const std::vector<const Instruction*>& schedule,
                                      const BufferAssignment& assignment,
                                      const MemoryProfileOptions& options = {});

}  // namespace fusebox::backend
