// Buffer assignment for the CPU backend: gives every array value a program computation
// produces a slice of an allocation, reusing temporary allocations once their values are
// dead. The runtime runs control flow on the host, so assignment is per computation (the
// entry, a while body, a branch): the caller hands in the order instructions run in.
//
// What it does not do: it does not look inside called computations (fusions, while
// bodies: each gets its own assignment), does not insert copies (an input_output_alias
// it cannot honour safely is declined and noted, and the output gets its own buffer), and
// does not pack several live values into one allocation at different offsets (every value
// sits at offset 0 of its allocation). See docs/buffer-assignment.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/computation.h"
#include "compiler/support/status.h"

namespace fusebox::backend {

// A leaf array value: the array at tuple path `index` (empty for arrays) of the result of
// `instruction`, which defines it. Instructions that only forward buffers (tuple,
// get-tuple-element, aliases such as bitcast) define no values.
struct LogicalValue {
  const Instruction* instruction = nullptr;
  std::vector<int64_t> index;
  Shape shape;
  int64_t size = 0;  // bytes

  // Liveness in schedule steps (positions in the schedule). Parameters are live on entry
  // (defined_at == -1); a value nothing reads has last_use == defined_at; a live-out value
  // (a leaf of the root) has last_use == schedule size.
  int64_t defined_at = 0;
  int64_t last_use = 0;
  bool live_out = false;
};

// Where an array lives: `size` bytes at `offset` in allocation `allocation`.
struct BufferSlice {
  int64_t allocation = -1;
  int64_t offset = 0;
  int64_t size = 0;
  bool operator==(const BufferSlice&) const = default;
};

struct Allocation {
  enum class Kind { kParameter, kConstant, kOutput, kTemp };
  int64_t index = 0;
  int64_t size = 0;  // bytes: the largest value it ever holds
  Kind kind = Kind::kTemp;
  // kParameter: which parameter leaf the caller passes in.
  int64_t parameter_number = -1;
  std::vector<int64_t> parameter_index;
  // Holds a leaf of the root: an output, a parameter or constant returned as is (the
  // runtime copies those out), or a parameter an input_output_alias output was put in.
  bool maybe_live_out = false;
  // (value id, offset) of every value assigned here, in the order they take it over.
  std::vector<std::pair<int64_t, int64_t>> values;
};

struct BufferAssignmentOptions {
  // Whether `inst` may write its result into the buffer of operand number `operand` (the
  // code generator says so: dynamic-update-slice in place, elementwise ops). Only asked
  // for array-shaped instructions; the operand's buffer is reused only when it is a temp
  // of the same size that dies at `inst` and no other operand reads it (unless that
  // operand may be shared too). Null: never.
  std::function<bool(const Instruction& inst, int64_t operand)> may_share_operand;
  // Whether `inst` defines no buffer of its own and aliases operand 0 (bitcast, reshapes
  // the backend treats as bitcasts, add-dependency, opt-barrier). Replaces the default
  // rather than adding to it. Null: bitcast only.
  std::function<bool(const Instruction& inst)> is_alias = [](const Instruction& inst) {
    return inst.opcode() == Opcode::kBitcast;
  };
  // The runtime must place every allocation at an address aligned to this (a power of two).
  int64_t alignment = 64;
};

class BufferAssignment {
 public:
  const std::vector<Allocation>& allocations() const { return allocations_; }
  // Indexed by value id.
  const std::vector<LogicalValue>& values() const { return values_; }
  const BufferSlice& value_slice(int64_t value_id) const { return value_slices_[value_id]; }

  // The slice holding the array at `index` of `inst`'s result, resolved through tuples,
  // get-tuple-element and aliases. An error when `inst` is not in the computation or
  // there is no array at `index` (a tuple, a token, past the shape).
  StatusOr<BufferSlice> GetSlice(const Instruction& inst,
                                 const std::vector<int64_t>& index = {}) const;
  // The value at `index` of `inst`'s result, or -1.
  int64_t GetValueId(const Instruction& inst, const std::vector<int64_t>& index = {}) const;

  int64_t temp_bytes() const { return temp_bytes_; }    // sum of kTemp allocation sizes
  int64_t total_bytes() const { return total_bytes_; }  // sum of all allocation sizes
  // Max over schedule steps of the bytes live at that step: every parameter and constant
  // allocation (resident for the whole run), plus each temp and output value from the
  // step that defines it to its last use (to the end for outputs).
  int64_t peak_live_bytes() const { return peak_live_bytes_; }
  int64_t alignment() const { return alignment_; }
  // What was asked and not done (declined input_output_alias entries), one line each.
  const std::vector<std::string>& notes() const { return notes_; }

  // In the spirit of XLA's buffer-assignment.txt: one block per allocation with its
  // values, then "Total bytes used: N (temp T, peak live P)".
  std::string ToString() const;

 private:
  friend StatusOr<BufferAssignment> AssignBuffers(const Computation&,
                                                  const std::vector<const Instruction*>&,
                                                  const BufferAssignmentOptions&);
  friend class BufferAssigner;  // AssignBuffers' phases (buffer_assignment.cc)
  using LeafMap = std::vector<std::pair<std::vector<int64_t>, int64_t>>;  // path -> value id

  std::string computation_name_;
  std::vector<Allocation> allocations_;
  std::vector<LogicalValue> values_;
  std::vector<BufferSlice> value_slices_;
  // Every instruction's array leaves, in ForEachSubshape order.
  std::unordered_map<const Instruction*, LeafMap> leaves_;
  std::vector<std::string> notes_;
  int64_t temp_bytes_ = 0;
  int64_t total_bytes_ = 0;
  int64_t peak_live_bytes_ = 0;
  int64_t alignment_ = 64;
};

// Assigns buffers for `computation` run in the order `schedule` gives (each instruction
// of the computation exactly once, operands and control predecessors first; otherwise an
// InvalidArgument error). The module's input_output_alias is honoured when `computation`
// is the entry.
StatusOr<BufferAssignment> AssignBuffers(const Computation& computation,
                                         const std::vector<const Instruction*>& schedule,
                                         const BufferAssignmentOptions& options = {});
// The same, for a schedule as Computation::PostOrder() returns it.
StatusOr<BufferAssignment> AssignBuffers(const Computation& computation,
                                         const std::vector<Instruction*>& schedule,
                                         const BufferAssignmentOptions& options = {});

// The slices of `inst`'s array leaves, depth first through tuples (tokens have none), as
// the runtimes bind them. A leaf without a slice (an instruction the assignment does not
// know, a value left without an allocation) is an internal error naming the instruction
// and the leaf: a runtime that ran on would hand a kernel a null pointer or return zeros,
// a plausible wrong result.
StatusOr<std::vector<BufferSlice>> LeafSlices(const BufferAssignment& assignment, const Instruction& inst);

// "internal error: buffer assignment has no slice for %x (output {1}); <why>; ...": the
// error for a missing slice, also for the runtimes' own checks (a root leaf computed
// nowhere).
Status MissingSliceError(const Instruction& inst, const std::vector<int64_t>& index, const std::string& why);

}  // namespace fusebox::backend
