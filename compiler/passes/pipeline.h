// A pass pipeline: runs passes in order, verifies the module after each, and records for
// every pass whether it changed anything, how long it took, and (optionally) a snapshot of
// the module text after it — what the pass stepper and `--dump-to` show.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/pass.h"
#include "compiler/support/compile_trace.h"

namespace fusebox::passes {

struct PassRecord {
  std::string name;
  bool changed = false;
  bool skipped = false;      // disabled by the options
  int64_t wall_ns = 0;
  int64_t instruction_count = 0;  // in the whole module, after the pass
  bool has_snapshot = false;
  std::string snapshot;      // module text after the pass
};

struct PipelineOptions {
  std::vector<std::string> disabled_passes;  // by name
  std::vector<std::string> only_passes;      // when non-empty, run just these
  // Keep a snapshot after passes whose name matches this ECMAScript regex (XLA's
  // --xla_dump_hlo_pass_re); empty keeps none, ".*" all.
  std::string snapshot_pass_regex = ".*";
  bool snapshot_only_when_changed = false;
  bool verify_between_passes = true;
  // Keep the module's text from before the first pass (PipelineResult::before), for the
  // stepper and diffs; a backend compile that shows nothing leaves it out.
  bool keep_text_before = true;
  // Checked before each pass: set from another thread, the run stops with Cancelled().
  const std::atomic<bool>* cancel = nullptr;
  // After each pass (run or skipped): passes done of the total, and the one just done.
  std::function<void(size_t done, size_t total, std::string_view pass)> progress;
  // Spans for every pass and verifier run (null: none). The pass's own span is the
  // PassRecord's time: one clock reading serves both.
  CompileTrace* trace = nullptr;
};

struct PipelineResult {
  std::string pipeline_name;
  std::string before;  // module text before the first pass
  std::vector<PassRecord> passes;
  int64_t total_ns = 0;
};

class Pipeline {
 public:
  explicit Pipeline(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  template <typename T, typename... Args>
  T& Add(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *pass;
    passes_.push_back(std::move(pass));
    return ref;
  }
  void AddPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  std::vector<std::string> PassNames() const;

  // Runs the passes. A pass that fails, or leaves a module that does not verify, stops
  // the pipeline with an error naming the pass (the records so far are in `result`).
  Status Run(Module& module, const PipelineOptions& options, PassContext& context,
             PipelineResult* result) const;

 private:
  std::string name_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace fusebox::passes
