// Reads XLA's memory figures from its buffer-assignment, live-range and memory-usage
// report dumps, line by line; see xla_memory.h for what is taken and what is summed.
#include "compiler/session/xla_memory.h"

#include <cctype>

#include "compiler/support/strings.h"

namespace fusebox::session {

namespace {

// A line of a dump with its 1-based number, for file:line:col messages.
struct Line {
  std::string_view text;
  int64_t number = 0;
};

std::vector<Line> Lines(std::string_view text) {
  std::vector<Line> lines;
  int64_t number = 1;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back({text.substr(start, end - start), number++});
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

Status BadLine(const std::string& file, const Line& line, size_t column, const std::string& what) {
  return InvalidArgument(file + ":" + std::to_string(line.number) + ":" + std::to_string(column + 1) + ": " + what);
}

// Reads the decimal digits at `*pos`, allowing single spaces between groups ("14 014 556")
// when `spaced`; advances `*pos`. False when there is no digit there.
bool ReadNumber(std::string_view text, size_t* pos, bool spaced, int64_t* out) {
  size_t i = *pos;
  int64_t value = 0;
  bool any = false;
  while (i < text.size()) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (value > (INT64_MAX - 9) / 10) return false;
      value = value * 10 + (c - '0');
      any = true;
      ++i;
    } else if (spaced && c == ' ' && any && i + 1 < text.size() &&
               std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
    } else {
      break;
    }
  }
  if (!any) return false;
  *pos = i;
  *out = value;
  return true;
}

// "allocation 3: size 4, output shape is |f32[]|, maybe-live-out:"
StatusOr<XlaAllocation> ParseAllocationLine(const Line& line, const std::string& file) {
  std::string_view t = line.text;
  size_t pos = std::string_view("allocation ").size();
  XlaAllocation a;
  if (!ReadNumber(t, &pos, false, &a.index)) return BadLine(file, line, pos, "expected an allocation number");
  if (t.substr(pos, 7) != ": size ") return BadLine(file, line, pos, "expected ': size N'");
  pos += 7;
  if (!ReadNumber(t, &pos, false, &a.size)) return BadLine(file, line, pos, "expected the allocation's size");
  std::string_view rest = t.substr(pos);
  if (StartsWith(rest, ", ")) rest.remove_prefix(2);
  if (EndsWith(rest, ":")) rest.remove_suffix(1);
  a.tags = std::string(rest);
  return a;
}

// "    x.1{}: 262144 bytes (cumulative: 262144 bytes)"
StatusOr<XlaPeakBuffer> ParsePeakBufferLine(const Line& line, const std::string& file) {
  std::string_view t = line.text;
  size_t colon = t.find("}: ");
  if (colon == std::string_view::npos) return BadLine(file, line, 0, "expected 'name{index}: N bytes'");
  size_t first = t.find_first_not_of(' ');
  XlaPeakBuffer b;
  b.name = std::string(t.substr(first, colon + 1 - first));
  size_t pos = colon + 3;
  if (!ReadNumber(t, &pos, false, &b.bytes)) return BadLine(file, line, pos, "expected the buffer's bytes");
  return b;
}

bool IsSequenceLine(std::string_view t) {
  size_t first = t.find_first_not_of(' ');
  return first != std::string_view::npos && first >= 4 && std::isdigit(static_cast<unsigned char>(t[first])) &&
         t.find(':', first) != std::string_view::npos;
}

}  // namespace

StatusOr<XlaBufferAssignment> ParseXlaBufferAssignment(std::string_view text, const std::string& file) {
  XlaBufferAssignment out;
  for (const Line& line : Lines(text)) {
    if (StartsWith(line.text, "allocation ")) {
      ASSIGN_OR_RETURN(XlaAllocation a, ParseAllocationLine(line, file));
      out.allocation_bytes += a.size;
      out.allocations.push_back(std::move(a));
    } else if (StartsWith(line.text, "Total bytes used: ")) {
      size_t pos = std::string_view("Total bytes used: ").size();
      if (!ReadNumber(line.text, &pos, false, &out.total_bytes_used)) {
        return BadLine(file, line, pos, "expected a byte count");
      }
    }
  }
  if (out.allocations.empty()) return InvalidArgument(file + ": no 'allocation N: size S' lines");
  return out;
}

StatusOr<XlaLiveRange> ParseXlaLiveRange(std::string_view text, const std::string& file) {
  XlaLiveRange out;
  std::vector<std::string> sequence;
  enum class Section { kNone, kSequence, kPeak } section = Section::kNone;
  const std::string_view kPeakAt = "  Live ranges at ";
  const std::string_view kBreakdown = "  Stack trace breakdown for peak usage: ";
  for (const Line& line : Lines(text)) {
    std::string_view t = line.text;
    if (t == "  InstructionSequence:") {
      section = Section::kSequence;
    } else if (StartsWith(t, kPeakAt)) {
      size_t pos = kPeakAt.size();
      if (!ReadNumber(t, &pos, false, &out.peak_step)) return BadLine(file, line, pos, "expected the peak's step");
      section = Section::kPeak;
    } else if (StartsWith(t, kBreakdown)) {
      size_t pos = kBreakdown.size();
      if (!ReadNumber(t, &pos, true, &out.peak_bytes)) return BadLine(file, line, pos, "expected the peak's bytes");
      section = Section::kNone;
    } else if (section == Section::kSequence && IsSequenceLine(t)) {
      sequence.emplace_back(t.substr(t.find(':') + 1));
    } else if (section == Section::kPeak && StartsWith(t, "    ")) {
      ASSIGN_OR_RETURN(XlaPeakBuffer b, ParsePeakBufferLine(line, file));
      out.listed_bytes += b.bytes;
      out.at_peak.push_back(std::move(b));
    } else if (!StartsWith(t, "    ")) {
      section = Section::kNone;
    }
  }
  if (!sequence.empty()) out.steps = static_cast<int64_t>(sequence.size());
  if (out.peak_step >= 0 && out.peak_step < static_cast<int64_t>(sequence.size())) {
    out.peak_instruction = sequence[out.peak_step];
  }
  return out;
}

StatusOr<int64_t> ParseXlaMemoryReportTotal(std::string_view text, const std::string& file) {
  for (const Line& line : Lines(text)) {
    if (!StartsWith(line.text, "Total bytes: ")) continue;
    size_t pos = std::string_view("Total bytes: ").size();
    int64_t total = -1;
    if (!ReadNumber(line.text, &pos, false, &total)) return BadLine(file, line, pos, "expected a byte count");
    return total;
  }
  return int64_t{-1};
}

}  // namespace fusebox::session
