// HLO modules: computations (entry last, as XLA prints them) plus the header
// attributes and the stack-frame tables real dumps carry.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/ir/computation.h"

namespace fusebox {

// input_output_alias={ {0}: (0, {}, may-alias) }
struct InputOutputAlias {
  std::vector<int64_t> output_index;
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  std::string kind;  // "may-alias", "must-alias" or empty when not written
  bool operator==(const InputOutputAlias&) const = default;
};

// buffer_donor={ (0, {}), (1, {0}) }
struct BufferDonor {
  int64_t parameter_number = 0;
  std::vector<int64_t> parameter_index;
  bool operator==(const BufferDonor&) const = default;
};

// entry_computation_layout={(f32[2]{0}, s32[])->f32[2]{0}}
struct ComputationLayout {
  std::vector<Shape> parameters;
  Shape result;
  std::string ToString() const;
};

// The tables XLA prints after the header (FileNames, FunctionNames, FileLocations,
// StackFrames) that `metadata={stack_frame_id=N}` refers to. Ids are 1-based.
struct StackFrameIndex {
  struct FileLocation {
    int64_t file_name_id = 0;
    int64_t function_name_id = 0;
    int64_t line = 0;
    int64_t end_line = 0;
    int64_t column = 0;
    int64_t end_column = 0;
  };
  struct Frame {
    int64_t file_location_id = 0;
    int64_t parent_frame_id = 0;
  };
  std::vector<std::string> file_names;
  std::vector<std::string> function_names;
  std::vector<FileLocation> file_locations;
  std::vector<Frame> stack_frames;
  bool empty() const {
    return file_names.empty() && function_names.empty() && file_locations.empty() &&
           stack_frames.empty();
  }
  // "file.py:12 (fn)" for a frame id, innermost first, or "" if unknown.
  std::string Describe(int64_t frame_id) const;
};

// Which computations ProgramComputations walks into, and in which order. The defaults
// are what the fusion passes and the CPU and GPU code generators use; each field names
// a place that differs.
struct ProgramWalk {
  // Also the computations an async-start wraps: the fusion graph draws them and the
  // kernel count counts their kernels, while the backends run an async-start whole.
  bool through_async_start = false;
  // Leave out callees that are fused computations (only a malformed module calls one
  // from a while or call; the fusion passes must not fuse inside a fusion again).
  bool skip_fused = false;
  // Breadth first: the entry, what it calls in call order, then what those call (the
  // GPU runtime sets up its programs in this order). Otherwise depth first, the last
  // callee found walked next.
  bool breadth_first = false;
};

class Module;

// The computations whose instructions run as programs rather than inside a kernel: the
// entry and, transitively, the conditions, bodies, branches and callees of its while,
// conditional and call instructions; each once, the entry first. Empty without an entry.
std::vector<Computation*> ProgramComputations(const Module& module, const ProgramWalk& walk = {});

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  // The file the module was parsed from (for messages); "<text>" when parsed from a string.
  const std::string& source_name() const { return source_name_; }
  void set_source_name(std::string name) { source_name_ = std::move(name); }

  Computation* AddComputation(std::unique_ptr<Computation> computation);
  const std::vector<std::unique_ptr<Computation>>& computations() const { return computations_; }
  Computation* FindComputation(const std::string& name) const;
  Computation* entry() const { return entry_; }
  void set_entry(Computation* entry);
  // Removes computations nothing calls (except the entry).
  int RemoveUnreachableComputations();

  // Next unique instruction id; the parser and passes use it.
  int64_t NextInstructionId() { return next_id_++; }

  // A name no instruction or computation of the module has yet: `prefix`, or
  // `prefix.N` with the smallest free N. Passes name what they create with it.
  std::string UniqueName(const std::string& prefix);

  // A deep copy built in memory: computations and instructions in the order ToString()
  // prints them, every field copied (ids, literals, attributes, metadata, source
  // locations), operands, control edges and called computations pointing into the copy,
  // the header and stack-frame tables. The copy prints exactly as this module does and
  // names what passes create in it as a module parsed from that text would (its
  // UniqueName state starts afresh). Locations still point into the file this module was
  // read from; LocateInPrintedText() moves them into the printed text. Null when an
  // operand, control edge or called computation lies outside the module.
  std::unique_ptr<Module> Clone() const;

  // Sets every computation's and instruction's location to where ToString() prints it
  // (line and column of `ENTRY`/`%name`, 1-based): the locations the module would have
  // if its printed text were parsed again. For copies whose messages refer to a printed
  // stage (the optimized HLO a compile shows) rather than to the input file.
  void LocateInPrintedText();

  // Header attributes.
  std::optional<ComputationLayout> entry_computation_layout;
  std::vector<InputOutputAlias> input_output_alias;
  bool has_input_output_alias = false;
  std::vector<BufferDonor> buffer_donor;
  bool has_buffer_donor = false;
  std::optional<bool> is_scheduled;
  std::optional<int64_t> replica_count;
  std::optional<int64_t> num_partitions;
  std::vector<std::pair<std::string, std::string>> frontend_attributes;
  bool has_frontend_attributes = false;
  std::optional<bool> alias_passthrough_params;
  std::vector<bool> allow_spmd_sharding_propagation_to_parameters;
  bool has_allow_spmd_to_parameters = false;
  std::vector<bool> allow_spmd_sharding_propagation_to_output;
  bool has_allow_spmd_to_output = false;
  // Other header attributes (spmd_output_sharding, ...) kept verbatim in order.
  std::vector<RawAttribute> raw_attributes;

  StackFrameIndex stack_frames;

  // Counts for `inspect`.
  int64_t instruction_count() const;

  // The module in XLA's text form: header, stack-frame tables, computations.
  std::string ToString() const;

 private:
  std::string name_;
  std::string source_name_ = "<text>";
  std::vector<std::unique_ptr<Computation>> computations_;
  // Name index; computations renamed after being added are found by a linear scan.
  std::unordered_map<std::string, Computation*> by_name_;
  Computation* entry_ = nullptr;
  int64_t next_id_ = 0;
  std::unordered_set<std::string> names_in_use_;  // filled on first UniqueName call
  std::unordered_map<std::string, int64_t> next_suffix_;
};

}  // namespace fusebox
