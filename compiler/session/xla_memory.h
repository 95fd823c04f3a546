// XLA's own memory figures for a module, read from the files its dump writes beside the
// optimized HLO:
//   *-buffer-assignment.txt     one "allocation N: size S, <tags>:" block per allocation;
//   *-live-range.txt            the schedule, each buffer's live range, "Live ranges at N
//                               (peak):" with the buffers there, and "Stack trace breakdown
//                               for peak usage: 786 436 bytes";
//   *-memory-usage-report.txt   "Total bytes: N (...)".
// Only numbers printed in the files are taken as XLA's; the sums this code forms (the
// allocations' sizes added up, the listed peak buffers added up) are labelled as sums.
// A figure a file does not have stays unknown (-1) and a note says which file lacked it.
//
// What it does not do: it does not read the protos (memory-usage-report.pb), the
// -buffer-assignment-values.txt listing, or the per-allocation value lists beyond counting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/status.h"

namespace fusebox::session {

struct XlaAllocation {
  int64_t index = 0;
  int64_t size = 0;
  std::string tags;  // "parameter 0, shape |f32[256]| at ShapeIndex {}", "thread-local", ...
};

// From -buffer-assignment.txt.
struct XlaBufferAssignment {
  std::vector<XlaAllocation> allocations;
  int64_t allocation_bytes = 0;  // the sizes added up (this code's sum, not a line of XLA's)
  int64_t total_bytes_used = -1;  // a "Total bytes used: N" line, when the file has one
};

struct XlaPeakBuffer {
  std::string name;  // "x.1{}"
  int64_t bytes = 0;
};

// From -live-range.txt.
struct XlaLiveRange {
  int64_t steps = -1;      // instructions in "InstructionSequence"
  int64_t peak_step = -1;  // "Live ranges at N (peak):"
  std::string peak_instruction;  // the instruction at that step in the sequence
  std::vector<XlaPeakBuffer> at_peak;
  int64_t listed_bytes = 0;  // the listed buffers added up
  int64_t peak_bytes = -1;   // "Stack trace breakdown for peak usage: N bytes"
};

struct XlaMemoryFigures {
  std::string buffer_assignment_file, live_range_file, memory_report_file;  // "" when absent
  XlaBufferAssignment buffer_assignment;
  XlaLiveRange live_range;
  int64_t report_total_bytes = -1;  // memory-usage-report "Total bytes: N"
  std::vector<std::string> notes;   // figures a file lacked, files missing
  bool any() const {
    return !buffer_assignment_file.empty() || !live_range_file.empty() || !memory_report_file.empty();
  }
};

// Each parser fails with `file:line:col: ...` on a line it recognises but cannot read.
StatusOr<XlaBufferAssignment> ParseXlaBufferAssignment(std::string_view text, const std::string& file);
StatusOr<XlaLiveRange> ParseXlaLiveRange(std::string_view text, const std::string& file);
// -1 when the report has no "Total bytes:" line.
StatusOr<int64_t> ParseXlaMemoryReportTotal(std::string_view text, const std::string& file);

}  // namespace fusebox::session
