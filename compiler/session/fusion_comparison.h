// XLA-vs-Fusebox fusion comparison. Both compilers start from the same input module
// (XLA's before_optimizations dump); each turns it into kernels (fusions and unfused
// ops). The comparison traces every instruction inside every kernel back to the input
// instruction it came from, by name (compilers keep or renumber names: `add.1` inside a
// fusion may come back as `add.0`) and by metadata `op_name` (which survives rewrites
// such as divide → multiply), then groups kernels that share input instructions:
//   - match:           one XLA kernel and one Fusebox kernel compute the same instructions;
//   - xla_fuses_more:  one XLA kernel covers what Fusebox splits over several kernels;
//   - fusebox_fuses_more: the reverse;
//   - regrouped:       several kernels on both sides overlap.
// Instructions one compiler removed or added (simplification, copies, layout changes)
// are listed, not matched.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/passes/kernel_count.h"

namespace fusebox::session {

struct ComparedKernel {
  std::string name;     // the kernel's instruction name ("fusion.3", "dot.1")
  std::string kind;     // "fusion(kLoop)", "reduce", ...
  std::string computation;  // where it runs (the entry or a loop body)
  std::vector<std::string> originals;  // input instructions it computes (names)
  int64_t instructions = 0;            // instructions inside it (fused ones for a fusion)
};

enum class FusionMatch { kMatch, kXlaFusesMore, kFuseboxFusesMore, kRegrouped };
std::string_view FusionMatchName(FusionMatch match);

struct FusionGroup {
  FusionMatch match = FusionMatch::kMatch;
  std::vector<int> xla;      // indices into FusionComparison::xla_kernels
  std::vector<int> fusebox;  // indices into FusionComparison::fusebox_kernels
  std::vector<std::string> originals;  // the input instructions the group covers
};

struct FusionComparison {
  std::string module_name;
  passes::KernelCount input_kernels;    // the input, one kernel per op
  passes::KernelCount xla_count;        // XLA's optimized module
  passes::KernelCount fusebox_count;    // Fusebox's optimized module
  std::vector<ComparedKernel> xla_kernels, fusebox_kernels;
  std::vector<FusionGroup> groups;   // kernels that share input instructions
  std::vector<int> xla_unmatched;      // kernels computing no input instruction (copies, new ops)
  std::vector<int> fusebox_unmatched;
  std::vector<std::string> only_in_xla;      // input instructions only XLA's kernels compute
  std::vector<std::string> only_in_fusebox;  // ... only Fusebox's
  int64_t approximate_links = 0;  // members matched by op_name/shape rather than by name

  int Count(FusionMatch match) const;
  std::string ToText(int max_names = 6) const;
  std::string ToJson() const;
};

// `input` is the module both compilers started from; `xla` XLA's optimized module and
// `fusebox` Fusebox's.
FusionComparison CompareFusion(const Module& input, const Module& xla, const Module& fusebox);

}  // namespace fusebox::session
