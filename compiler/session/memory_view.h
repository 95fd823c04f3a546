// The memory view of a module: the CPU backend's memory profile of its entry computation
// (backend/memory_profile.h: live ranges over the schedule, bytes in use per step, the
// peak and the buffers alive there), for the module optimized with fusion and without,
// and, for a module from an XLA dump folder, XLA's own figures from its dump files
// (xla_memory.h) beside them. `fusebox memory`, the workbench's memory panel and the
// report's memory section all show this.
//
// What it does not do: it does not run the module (the profile is what buffer assignment
// plans, not a measurement), and it does not profile the GPU backend's assignment.
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "compiler/backend/memory_profile.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/xla_memory.h"

namespace fusebox::session {

struct MemoryView {
  std::string module_name;
  std::optional<backend::MemoryProfile> fused;    // the session's optimized module
  std::optional<backend::MemoryProfile> unfused;  // the pipeline without fusion passes
  XlaMemoryFigures xla;  // xla.any() is false for a module that is not from a dump folder
};

struct MemoryViewOptions {
  bool fused = true;
  bool unfused = true;
  const std::atomic<bool>* cancel = nullptr;  // checked by the unfused compile
};

// Compiles what is asked (the fused profile comes from session.CpuCompile(), so it is the
// module `compile --stage buffer_assignment` prints) and reads XLA's files when the session
// has them as external stages (xla_buffer_assignment, xla_live_range,
// xla_memory_usage_report). An error when a profile cannot be computed or an XLA file
// cannot be read (file:line:col).
StatusOr<MemoryView> BuildMemoryView(CompileSession& session, const MemoryViewOptions& options = {});

// XLA's figures from the session's external stages alone (nothing compiled).
StatusOr<XlaMemoryFigures> ReadXlaMemory(CompileSession& session);

// Text for `fusebox memory`: both peaks, then the table of buffers at the peak of each
// profile in `tables` ("fused", "unfused" or both), at most `top` rows each (the rest
// summed in one line), then XLA's figures with their files.
struct MemoryTextOptions {
  bool fused_table = true;
  bool unfused_table = false;
  int top = 20;  // <= 0: every row
};
std::string MemoryViewText(const MemoryView& view, const MemoryTextOptions& options = {});
// JSON: every profile's peak, per-step bytes, rows at the peak (at most `top` when
// top > 0, with the rest counted), values' live ranges, and XLA's figures.
std::string MemoryViewJson(const MemoryView& view, int top = 0);

// "fusion.6{1}": the instruction and, for a leaf of a tuple result, its index.
std::string BufferName(const backend::LiveBuffer& buffer);

// "[3, 7]", "[in, 7]" (a parameter), "[3, out]" (live out).
std::string LiveRangeText(int64_t defined_at, int64_t last_use, int64_t steps);

}  // namespace fusebox::session
