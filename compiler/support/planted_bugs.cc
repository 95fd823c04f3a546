// TEST-ONLY planted compiler bugs (see planted_bugs.h): the table of names and sites.
#include "compiler/support/planted_bugs.h"

#include <array>

namespace fusebox {
namespace planted_bugs_internal {
std::atomic<int> planted{0};
}  // namespace planted_bugs_internal

namespace {

struct BugInfo {
  PlantedBug bug;
  std::string_view name;
  std::string_view site;
  std::string_view description;
};

constexpr std::array<BugInfo, static_cast<size_t>(PlantedBug::kCount)> kBugs = {{
    {PlantedBug::kNone, "none", "", "no bug planted"},
    {PlantedBug::kReduceSkipsLastElement, "reduce-skips-last-element",
     "compiler/codegen/elemental_reductions.cc, EmitReduce",
     "a reduction's loop over its innermost reduced dimension stops one element early"},
    {PlantedBug::kSubtractOperandsSwapped, "subtract-operands-swapped",
     "compiler/codegen/elemental_arithmetic.cc, EmitBinary", "a floating subtract computes y - x"},
    {PlantedBug::kDivideOperandsSwapped, "divide-operands-swapped",
     "compiler/codegen/elemental_arithmetic.cc, EmitBinary", "a floating divide computes y / x"},
    {PlantedBug::kBroadcastTrailingDimensions, "broadcast-trailing-dimensions",
     "compiler/codegen/elemental_data_movement.cc, EmitBroadcast",
     "a broadcast maps its operand onto the trailing output dimensions (NumPy's rule) instead "
     "of the listed ones (only where both are in bounds)"},
    {PlantedBug::kTransposeInversePermutation, "transpose-inverse-permutation",
     "compiler/codegen/elemental_data_movement.cc, EmitTranspose",
     "a transpose applies the inverse of its permutation (only where it stays in bounds)"},
    {PlantedBug::kSliceStartOffByOne, "slice-start-off-by-one",
     "compiler/codegen/elemental_data_movement.cc, EmitSlice",
     "a slice with a nonzero start begins one element early"},
    {PlantedBug::kPadLowHighSwapped, "pad-low-high-swapped", "compiler/codegen/elemental_data_movement.cc, EmitPad",
     "a pad places its operand after the high edge padding instead of the low one"},
    {PlantedBug::kIotaOffByOne, "iota-off-by-one", "compiler/codegen/elemental_data_movement.cc, EmitIota",
     "an iota counts from 1"},
    {PlantedBug::kCompareGtLtSwapped, "compare-gt-lt-swapped",
     "compiler/codegen/elemental_arithmetic.cc, EmitCompare", "a floating compare GT is emitted as LT and LT as GT"},
    {PlantedBug::kSelectOperandsSwapped, "select-operands-swapped",
     "compiler/codegen/elemental_arithmetic.cc, EmitSelect", "select returns on_false where pred holds"},
    {PlantedBug::kConvertRoundsToNearest, "convert-rounds-to-nearest",
     "compiler/codegen/elemental_arithmetic.cc, EmitConvert",
     "a float to integer convert rounds to nearest instead of truncating"},
    {PlantedBug::kExpCorrectionSignFlipped, "exp-correction-sign-flipped",
     "compiler/codegen/elemental_emitter.cc, EmitInlineExp",
     "the inline exp's Cody-Waite correction (ln 2's low part) has the wrong sign: errors of "
     "about 4e-4 * k relative for x near k ln 2"},
    {PlantedBug::kMaximumEmittedAsMinimum, "maximum-emitted-as-minimum",
     "compiler/codegen/elemental_arithmetic.cc, EmitBinary", "a floating maximum is emitted as minimum"},
    {PlantedBug::kReduceInitIgnored, "reduce-init-ignored", "compiler/codegen/elemental_reductions.cc, EmitReduce",
     "a reduction starts from 0 instead of its init value"},
    {PlantedBug::kRowBufferInBf16, "row-buffer-in-bf16", "compiler/codegen/cpu_row_kernel.cc, EmitRowReduction",
     "a row kernel keeps its row buffer (softmax's exp) rounded to bf16"},
    {PlantedBug::kAnyInitIsIdentity, "any-init-is-identity", "compiler/codegen/kernel_util.cc, IsIdentityInit",
     "every init value counts as its reducer's identity, so a split reduction adds the init once per row"},
    {PlantedBug::kMultiplyByOneFoldedToOne, "multiply-by-one-folded-to-one",
     "compiler/passes/algebraic_simplifier.cc, HandleMultiply",
     "x * 1 is replaced by the 1 (the x * 0 -> 0 rule's operand) instead of by x"},
    {PlantedBug::kCseIgnoresConstantValues, "cse-ignores-constant-values", "compiler/passes/cse.cc, Equivalent",
     "CSE merges constants of one shape whatever their values"},
    {PlantedBug::kConstantFoldingOperandsReversed, "constant-folding-operands-reversed",
     "compiler/passes/constant_folding.cc, EvaluateOnConstantOperands",
     "constant folding evaluates an op with its operands in reverse order"},
    {PlantedBug::kFusionDropsEpilogue, "fusion-drops-epilogue",
     "compiler/passes/fusion_utils.cc, FusionBuilder::BuildFusedComputation",
     "a single-output fusion whose root is an elementwise op returns that op's first operand "
     "(the epilogue is dropped)"},
    {PlantedBug::kMultiOutputFusionWrongOutput, "multi-output-fusion-wrong-output",
     "compiler/passes/fusion_utils.cc, FusionBuilder::RewireOutputs",
     "the users of a multi-output fusion's side output read its first output when the shapes agree"},
    {PlantedBug::kTupleSimplifierIgnoresOrder, "tuple-simplifier-ignores-order",
     "compiler/passes/tuple_simplifier.cc, Simplified",
     "a tuple of all the elements of another tuple, in another order, is replaced by that tuple "
     "(the elements come out permuted: a reordered result or while-loop update)"},
    {PlantedBug::kLivenessEndsAtFirstUse, "liveness-ends-at-first-use",
     "compiler/backend/buffer_assignment.cc, BufferAssigner::ComputeLiveness",
     "a value's live range ends at its first use, so a later value can share its buffer while it "
     "is still read"},
    {PlantedBug::kConditionalBranchesSwapped, "conditional-branches-swapped",
     "compiler/runtime/cpu_executable.cc, RunConditional",
     "a conditional on a pred runs false_computation when the pred is true and the other way round"},
    {PlantedBug::kDotRhsTransposed, "dot-rhs-transposed", "compiler/runtime/library_kernels_dot.cc, DotImpl",
     "the library dot reads a square right-hand side in the other majorness (transposed)"},
    {PlantedBug::kAllGatherGroupsInDeviceOrder, "all-gather-groups-in-device-order",
     "compiler/passes/spmd_partitioner.cc, Partitioner::AllGather",
     "an all-gather's groups list their devices by number, not in the order of their tiles: "
     "the gathered tiles come out permuted where the sharding orders its devices otherwise"},
}};

constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kBugs.size(); ++i) {
    if (static_cast<size_t>(kBugs[i].bug) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(), "kBugs lists the bugs in enum order");

}  // namespace

std::vector<PlantedBug> AllPlantedBugs() {
  std::vector<PlantedBug> all;
  for (const BugInfo& info : kBugs) {
    if (info.bug != PlantedBug::kNone) all.push_back(info.bug);
  }
  return all;
}

std::string_view PlantedBugName(PlantedBug bug) {
  const auto i = static_cast<size_t>(bug);
  return i < kBugs.size() ? kBugs[i].name : "unknown";
}

std::string_view PlantedBugSite(PlantedBug bug) {
  const auto i = static_cast<size_t>(bug);
  return i < kBugs.size() ? kBugs[i].site : "";
}

std::string_view PlantedBugDescription(PlantedBug bug) {
  const auto i = static_cast<size_t>(bug);
  return i < kBugs.size() ? kBugs[i].description : "";
}

std::optional<PlantedBug> PlantedBugFromName(std::string_view name) {
  for (const BugInfo& info : kBugs) {
    if (info.name == name) return info.bug;
  }
  return std::nullopt;
}

void SetPlantedBug(PlantedBug bug) {
  planted_bugs_internal::planted.store(static_cast<int>(bug), std::memory_order_relaxed);
}

}  // namespace fusebox
