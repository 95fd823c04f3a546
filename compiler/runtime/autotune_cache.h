// The library autotuners' choices, kept by content (compiler/runtime/cudnn.h,
// cublas_lt.h). A choice is looked up by a key that names everything it depends on: the
// library and its version, the device (name and architecture), the call's whole
// description (shapes, strides, layouts, types, precision, epilogue, workspace limit).
// Two calls with the same key are the same problem for the library, so a module's repeated
// convolutions (ResNet's blocks) are timed once, and a second compile in the process times
// nothing. `fusebox run --gpu-autotune-cache=FILE` loads the process's cache from FILE
// before compiling and writes it back after, as XLA's
// --xla_gpu_load_autotune_results_from / --xla_gpu_dump_autotune_results_to do.
//
// A cached choice is a hint, never trusted blindly: the library checks it against what it
// offers now (cuBLASLt: the algorithm is among the heuristic's candidates; cuDNN: the
// algorithm reports a workspace that fits) and times again when it does not hold.
//
// The file is text, one choice a line: `key<TAB>moved<TAB>numbers<TAB>text`, numbers
// comma-separated hexadecimal, after a first line naming the format. Keys and texts hold
// no tabs or newlines (Insert refuses them).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

// One library choice: the numbers the library needs to apply it again (cuDNN: algorithm,
// math type, workspace bytes; cuBLASLt: the opaque algorithm's eight words, workspace
// bytes), whether it moved away from the heuristic's first choice, and the tuning's words.
struct AutotuneRecord {
  std::vector<uint64_t> numbers;
  bool moved = false;
  std::string text;
  bool operator==(const AutotuneRecord& other) const {
    return numbers == other.numbers && moved == other.moved && text == other.text;
  }
};

class AutotuneCache {
 public:
  // The first line of a cache file.
  static constexpr const char* kHeader = "# fusebox autotune cache v1";

  // The cache every library of the process uses.
  static AutotuneCache& Process();

  std::optional<AutotuneRecord> Find(const std::string& key) const;
  // Adds or replaces. Keys or texts with a tab or newline, or empty keys, are refused.
  Status Insert(const std::string& key, const AutotuneRecord& record);
  size_t size() const;
  void Clear();

  // Merges the choices of a cache file (entries already here are replaced). A file that is
  // not one, or a malformed line, is an error naming `path:line`; nothing is merged then.
  // `loaded` (when set) gets the number of choices read.
  Status Load(const std::string& path, size_t* loaded = nullptr);
  // The same from text (`name` stands for the path in messages).
  Status LoadText(const std::string& text, const std::string& name, size_t* loaded = nullptr);
  // Writes every choice, sorted by key (through a temporary file renamed over `path`).
  Status Save(const std::string& path) const;
  std::string ToText() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, AutotuneRecord> records_;
};

// The keys. `scope` names the library (with its version) and the device; the rest is the
// call: every field of the plan the library sees, and the workspace limit. A gemm plan's
// loops are left out (autotuning times one call of them; every call is the same problem).
std::string AutotuneScope(const std::string& library, const std::string& device_name, int compute_major,
                          int compute_minor);
std::string GemmAutotuneKey(const std::string& scope, const GemmPlan& plan, int64_t max_workspace);
std::string ConvAutotuneKey(const std::string& scope, const ConvPlan& plan, FilterLayout layout, bool split,
                            int64_t max_workspace);

}  // namespace fusebox::runtime
