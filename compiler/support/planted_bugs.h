// TEST-ONLY: deliberate compiler mistakes that can be switched on, one at a time, to prove
// that the numeric check (compiler/check/numeric_check.h) catches real miscompiles
// (tests/check/planted_bugs_test.cc, `fusebox run|bisect --plant-bug NAME`). Nothing outside
// those two may plant a bug. Each bug sits at the code site a compiler engineer could
// plausibly get wrong (docs/testing.md, "Planted bugs", lists them with their sites).
//
// Cost when off: a site reads one process-wide atomic (relaxed) when it compiles a kernel,
// runs a pass or runs a host step (a while loop's copy, a library dot call), never per
// element at run time. A bug planted while a compile is in flight may or may not reach it:
// plant before compiling.
#pragma once

#include <atomic>
#include <optional>
#include <string_view>
#include <vector>

namespace fusebox {

enum class PlantedBug : int {
  kNone = 0,
  // compiler/codegen/elemental_emitter.cc
  kReduceSkipsLastElement,
  kSubtractOperandsSwapped,
  kDivideOperandsSwapped,
  kBroadcastTrailingDimensions,
  kTransposeInversePermutation,
  kSliceStartOffByOne,
  kPadLowHighSwapped,
  kIotaOffByOne,
  kCompareGtLtSwapped,
  kSelectOperandsSwapped,
  kConvertRoundsToNearest,
  kExpCorrectionSignFlipped,
  kMaximumEmittedAsMinimum,
  kReduceInitIgnored,
  // compiler/codegen/cpu_compiler.cc
  kRowBufferInBf16,
  // compiler/codegen/kernel_util.cc
  kAnyInitIsIdentity,
  // compiler/passes/
  kMultiplyByOneFoldedToOne,
  kCseIgnoresConstantValues,
  kConstantFoldingOperandsReversed,
  kFusionDropsEpilogue,
  kMultiOutputFusionWrongOutput,
  kTupleSimplifierIgnoresOrder,
  // compiler/backend/buffer_assignment.cc
  kLivenessEndsAtFirstUse,
  // compiler/runtime/
  kConditionalBranchesSwapped,
  kDotRhsTransposed,
  // compiler/passes/spmd_partitioner.cc
  kAllGatherGroupsInDeviceOrder,
  kCount,  // not a bug: the number of enumerators
};

// Every bug (kNone and kCount excluded), in enum order.
std::vector<PlantedBug> AllPlantedBugs();
// Kebab-case name ("reduce-skips-last-element"); "none" for kNone.
std::string_view PlantedBugName(PlantedBug bug);
// Where it is planted ("compiler/codegen/elemental_emitter.cc, EmitReduce").
std::string_view PlantedBugSite(PlantedBug bug);
// What goes wrong, in one sentence.
std::string_view PlantedBugDescription(PlantedBug bug);
// The bug named `name`, or nullopt.
std::optional<PlantedBug> PlantedBugFromName(std::string_view name);

namespace planted_bugs_internal {
extern std::atomic<int> planted;
}  // namespace planted_bugs_internal

// Plants `bug` for the whole process (kNone: none).
void SetPlantedBug(PlantedBug bug);
inline PlantedBug CurrentPlantedBug() {
  return static_cast<PlantedBug>(planted_bugs_internal::planted.load(std::memory_order_relaxed));
}
// Whether `bug` is planted: what a site asks.
inline bool BugPlanted(PlantedBug bug) { return CurrentPlantedBug() == bug; }

// Plants a bug for a scope and restores the previous one (tests).
class ScopedPlantedBug {
 public:
  explicit ScopedPlantedBug(PlantedBug bug) : previous_(CurrentPlantedBug()) { SetPlantedBug(bug); }
  ~ScopedPlantedBug() { SetPlantedBug(previous_); }
  ScopedPlantedBug(const ScopedPlantedBug&) = delete;
  ScopedPlantedBug& operator=(const ScopedPlantedBug&) = delete;

 private:
  PlantedBug previous_;
};

}  // namespace fusebox
