// Row fusion, the "row-fusion" pass: softmax and normalization layers as one kernel.
//
// After producer -> consumer and multi-output fusion, softmax is three kernels (the row
// max; exp(x - max) and its row sum; the division) and a layer norm three as well (mean,
// variance, the normalization), each reading the whole input from memory. All their
// reductions reduce the trailing dimensions of a row ("row reductions") and everything
// after them reads the reduced value back through a broadcast along the same row. Such a
// chain fuses into one kernel that, per row, first computes each reduction once (a loop
// over the row, the row then in L1) and binds its value, then runs the elementwise rest
// over the row: the input is read from memory once and the intermediates never leave the
// caches. XLA's GPU backend does the same for softmax ("normalization fusion").
//
// The pass merges a producer fusion (or reduce) into its consumer fusion when the producer
// computes a row reduction, the consumer is its only user, and the merged fusion is a row
// kernel (PlanRowKernel). Each edge looked at gets a FusionDecision.
//
// With row outputs (the GPU pipeline: RowFusion(true)), a row kernel may also write values
// that are one number per row (a reduction's result, a function of several), beside its
// full-shaped outputs, and a producer read by others besides the consumer merges too: its
// values those others read become outputs of the merged kernel (a multi-output fusion), so
// nothing is computed twice. A loss after a softmax (the row max; exp and its row sum; the
// per-row log-likelihood) is then one launch instead of three. On a GPU every launch costs
// microseconds however small it is; the CPU backend's row kernels write full rows only, so
// its pipeline keeps the strict form.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/pass.h"

namespace fusebox::passes {

// How a fusion runs as a row kernel. Its outputs all have dimensions `dims` (rank n);
// the first `row_rank` dimensions index a row, the others an element of the row. With row
// outputs allowed, some outputs may have the row dimensions alone (one value per row). Every
// reduce in it reduces exactly the trailing dimensions of an operand shaped `dims`, and
// is read only at its row (through elementwise ops, broadcasts that keep the row
// dimensions in place and reshapes that keep them): its value is one number per row.
struct RowPlan {
  int64_t row_rank = 0;
  std::vector<int64_t> dims;
  int64_t rows = 1;        // product of the row dimensions
  int64_t row_length = 1;  // elements per row
  // Every reduce, operands first (a reduce reading another's value comes after it).
  std::vector<const Instruction*> reduces;
  // Expensive elementwise values (exp in softmax) that the loop of reduces[pass] computes
  // and a later loop reads again: stored per row while that reduce runs (a row buffer)
  // and loaded afterwards instead of computed twice.
  struct Materialized {
    const Instruction* value = nullptr;
    int64_t pass = 0;
  };
  std::vector<Materialized> materialized;
};

// The row plan of a fusion, or nullopt when it is not a row kernel (no reduce, a reduce
// whose value is needed at more than its row, fewer than two rows, an op row kernels do
// not take). `row_outputs`: outputs shaped like the row dimensions alone are allowed
// beside at least one full-shaped output (the GPU's row kernels write them; the CPU's do not).
std::optional<RowPlan> PlanRowKernel(const Instruction& fusion, bool row_outputs = false);

// The same for the fusion `outputs` would form, where `resolve` maps a parameter of their
// computation to the instruction computing it in a producer about to be merged (or null
// for a real parameter). Used by the pass to try a merge before making it; `why` gets the
// reason when there is no plan.
std::optional<RowPlan> PlanRowKernel(const std::vector<const Instruction*>& outputs,
                                     const std::function<const Instruction*(const Instruction*)>& resolve,
                                     std::string* why = nullptr, bool row_outputs = false);

// Row buffers hold at most this many bytes per materialized value (the row stays in L1
// with its inputs); longer rows compute the value again.
inline constexpr int64_t kMaxRowBufferBytes = 32 * 1024;

class RowFusion : public Pass {
 public:
  explicit RowFusion(bool row_outputs = false) : row_outputs_(row_outputs) {}
  std::string_view name() const override { return "row-fusion"; }
  StatusOr<bool> Run(Module& module, PassContext& context) override;

 private:
  bool row_outputs_;
};

}  // namespace fusebox::passes
