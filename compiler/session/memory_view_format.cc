// The memory view as text (`fusebox memory`) and JSON (`--json`).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "compiler/session/memory_view.h"
#include "compiler/support/strings.h"

namespace fusebox::session {

namespace {

std::string Bytes(int64_t bytes) { return FormatBytes(bytes) + " (" + std::to_string(bytes) + " B)"; }

std::string IndexText(const std::vector<int64_t>& index) {
  if (index.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < index.size(); ++i) out += (i ? "," : "") + std::to_string(index[i]);
  return out + "}";
}

std::string PeakLine(const char* label, const backend::MemoryProfile& p) {
  return std::string(label) + "peak " + Bytes(p.peak_bytes) + " at step " + std::to_string(p.peak_step) + " of " +
         std::to_string(p.schedule.size()) + ", %" + p.PeakInstruction() + "\n" +
         "           resident " + FormatBytes(p.resident_bytes) + " (parameters and constants), allocations " +
         FormatBytes(p.allocation_bytes) + " in all\n";
}

std::string Comparison(const backend::MemoryProfile& fused, const backend::MemoryProfile& unfused) {
  const int64_t saved = unfused.peak_bytes - fused.peak_bytes;
  if (saved == 0) return "fusion leaves the peak as it is\n";
  char pct[32];
  std::snprintf(pct, sizeof(pct), "%.1f%%", unfused.peak_bytes > 0 ? 100.0 * saved / unfused.peak_bytes : 0.0);
  return std::string(saved > 0 ? "fusion lowers the peak by " : "fusion raises the peak by ") +
         FormatBytes(saved > 0 ? saved : -saved) + " (" + pct + " of the unfused peak)\n";
}

// One row of the table; `where` names the callee a buffer lives in ("" for the profile's own).
std::string Row(const backend::LiveBuffer& b, const std::string& where) {
  std::string name = BufferName(b);
  if (!b.shared_with.empty()) name += " (over " + b.shared_with + ")";
  char line[512];
  std::snprintf(line, sizeof(line), "  %12lld  %-14s %-28s %-26s %-12s %s", static_cast<long long>(b.bytes),
                std::string(backend::MemoryKindName(b.kind)).c_str(), name.c_str(), b.shape.c_str(),
                LiveRangeText(b.defined_at, b.last_use, b.steps).c_str(), b.op_name.c_str());
  std::string out = line;
  if (!where.empty()) out += "  [in %" + where + "]";
  return out + "\n";
}

std::string Table(const char* label, const backend::MemoryProfile& p, int top) {
  std::string out = std::string("\nbuffers alive at the ") + label + " peak (step " + std::to_string(p.peak_step) +
                    ", %" + p.PeakInstruction() + "), largest first:\n";
  char head[256];
  std::snprintf(head, sizeof(head), "  %12s  %-14s %-28s %-26s %-12s %s\n", "bytes", "kind", "instruction", "shape",
                "live", "op_name");
  out += head;
  int64_t shown = 0, rest_bytes = 0, rest = 0;
  for (const backend::LiveBuffer& b : p.at_peak) {
    if (top > 0 && shown >= top) {
      rest_bytes += b.bytes;
      ++rest;
      continue;
    }
    out += Row(b, b.computation == p.computation ? "" : b.computation);
    ++shown;
  }
  if (rest > 0) out += "  " + std::to_string(rest) + " more buffer(s): " + std::to_string(rest_bytes) + " B\n";
  out += "  sum " + std::to_string(p.SumAtPeak()) + " B" +
         (p.SumAtPeak() == p.peak_bytes ? " = the peak\n" : " != the peak " + std::to_string(p.peak_bytes) + "\n");
  return out;
}

std::string XlaText(const XlaMemoryFigures& x) {
  std::string out = "\nXLA's own figures (from its dump):\n";
  const XlaLiveRange& lr = x.live_range;
  if (lr.peak_bytes >= 0) {
    out += "  peak " + Bytes(lr.peak_bytes) + " at step " + std::to_string(lr.peak_step) +
           (lr.peak_instruction.empty() ? "" : ", %" + lr.peak_instruction) + "  (" + x.live_range_file + ")\n";
    out += "    the " + std::to_string(lr.at_peak.size()) + " buffers it lists at the peak add up to " +
           std::to_string(lr.listed_bytes) + " B\n";
  }
  if (!x.buffer_assignment_file.empty()) {
    const XlaBufferAssignment& ba = x.buffer_assignment;
    out += "  " + std::to_string(ba.allocations.size()) + " allocations, sizes adding up to " +
           Bytes(ba.allocation_bytes) + "  (" + x.buffer_assignment_file + ")\n";
    if (ba.total_bytes_used >= 0) out += "    'Total bytes used: " + std::to_string(ba.total_bytes_used) + "'\n";
  }
  if (x.report_total_bytes >= 0) {
    out += "  total bytes " + Bytes(x.report_total_bytes) + "  (" + x.memory_report_file + ")\n";
  }
  for (const std::string& note : x.notes) out += "  note: " + note + "\n";
  return out;
}

nlohmann::json BufferJson(const backend::LiveBuffer& b) {
  return {{"bytes", b.bytes},
          {"kind", std::string(backend::MemoryKindName(b.kind))},
          {"computation", b.computation},
          {"allocation", b.allocation},
          {"allocation_bytes", b.allocation_bytes},
          {"instruction", b.instruction},
          {"index", b.index},
          {"shape", b.shape},
          {"op_name", b.op_name},
          {"defined_at", b.defined_at},
          {"last_use", b.last_use},
          {"steps", b.steps},
          {"shared_with", b.shared_with}};
}

nlohmann::json ProfileJson(const backend::MemoryProfile& p, int top) {
  nlohmann::json j;
  j["computation"] = p.computation;
  j["steps"] = p.schedule.size();
  j["schedule"] = p.schedule;
  j["peak_bytes"] = p.peak_bytes;
  j["peak_step"] = p.peak_step;
  j["peak_instruction"] = p.PeakInstruction();
  j["resident_bytes"] = p.resident_bytes;
  j["allocation_bytes"] = p.allocation_bytes;
  j["bytes_at"] = p.bytes_at;
  j["callee_bytes_at"] = p.callee_bytes_at;
  nlohmann::json rows = nlohmann::json::array();
  int64_t omitted = 0, omitted_bytes = 0;
  for (const backend::LiveBuffer& b : p.at_peak) {
    if (top > 0 && static_cast<int64_t>(rows.size()) >= top) {
      ++omitted;
      omitted_bytes += b.bytes;
    } else {
      rows.push_back(BufferJson(b));
    }
  }
  j["at_peak"] = rows;
  j["at_peak_omitted"] = {{"buffers", omitted}, {"bytes", omitted_bytes}};
  nlohmann::json values = nlohmann::json::array();
  for (const backend::ValueRange& v : p.values) {
    values.push_back({{"instruction", v.instruction}, {"index", v.index}, {"bytes", v.bytes},
                      {"kind", std::string(backend::MemoryKindName(v.kind))}, {"allocation", v.allocation},
                      {"defined_at", v.defined_at}, {"last_use", v.last_use}});
  }
  j["values"] = values;
  return j;
}

nlohmann::json XlaJson(const XlaMemoryFigures& x) {
  auto known = [](int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json j;
  j["buffer_assignment_file"] = x.buffer_assignment_file;
  j["allocations"] = x.buffer_assignment.allocations.size();
  j["allocation_bytes_sum"] = x.buffer_assignment.allocation_bytes;
  j["total_bytes_used"] = known(x.buffer_assignment.total_bytes_used);
  j["live_range_file"] = x.live_range_file;
  j["peak_bytes"] = known(x.live_range.peak_bytes);
  j["peak_step"] = known(x.live_range.peak_step);
  j["peak_instruction"] = x.live_range.peak_instruction;
  j["peak_listed_bytes_sum"] = x.live_range.listed_bytes;
  j["memory_report_file"] = x.memory_report_file;
  j["report_total_bytes"] = known(x.report_total_bytes);
  j["notes"] = x.notes;
  return j;
}

}  // namespace

std::string BufferName(const backend::LiveBuffer& buffer) { return buffer.instruction + IndexText(buffer.index); }

std::string LiveRangeText(int64_t defined_at, int64_t last_use, int64_t steps) {
  std::string from = defined_at < 0 ? "in" : std::to_string(defined_at);
  std::string to = last_use >= steps ? "out" : std::to_string(last_use);
  return "[" + from + ", " + to + "]";
}

std::string MemoryViewText(const MemoryView& view, const MemoryTextOptions& options) {
  const backend::MemoryProfile* any = view.fused ? &*view.fused : view.unfused ? &*view.unfused : nullptr;
  std::string out = "memory of " + view.module_name + " (CPU backend's buffer assignment";
  out += any ? ", entry computation %" + any->computation + ")\n" : ")\n";
  if (view.fused) out += PeakLine("fused:     ", *view.fused);
  if (view.unfused) out += PeakLine("unfused:   ", *view.unfused);
  if (view.fused && view.unfused) out += Comparison(*view.fused, *view.unfused);
  if (view.fused && options.fused_table) out += Table("fused", *view.fused, options.top);
  if (view.unfused && options.unfused_table) out += Table("unfused", *view.unfused, options.top);
  if (view.xla.any()) out += XlaText(view.xla);
  return out;
}

std::string MemoryViewJson(const MemoryView& view, int top) {
  nlohmann::json j;
  j["module"] = view.module_name;
  if (view.fused) j["fused"] = ProfileJson(*view.fused, top);
  if (view.unfused) j["unfused"] = ProfileJson(*view.unfused, top);
  if (view.xla.any()) j["xla"] = XlaJson(view.xla);
  return j.dump(1) + "\n";
}

}  // namespace fusebox::session
