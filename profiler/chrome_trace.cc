// Chrome trace-event JSON: metadata events first (names and sort order of processes and
// tracks), then one complete event per trace event.
#include "profiler/chrome_trace.h"
#include "profiler/compile_spans.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace fusebox::profiler {
namespace {

using Json = nlohmann::ordered_json;

// Nanoseconds to the format's microseconds. A double holds every ns count below 2^53 (104
// days) exactly, and the shortest decimal that reads back to ns/1000 has at most three
// fractional digits, so "1234.567" in the file is exactly 1234567 ns.
double NsToUs(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// Where each track goes in the file.
struct Placement {
  int pid = 0;
  int tid = 0;
};

std::string Dump(const Json& j) {
  // Replace rather than throw on invalid UTF-8 (names come from user files).
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json Metadata(const char* name, int pid, int tid, Json args) {
  Json j;
  j["ph"] = "M";
  j["name"] = name;
  j["pid"] = pid;
  j["tid"] = tid;
  j["args"] = std::move(args);
  return j;
}

// A compile span's arguments are its own (compile_spans.h); it has no run counters.
Json CompileArgsFor(const TraceEvent& e) {
  Json args = Json::object();
  for (const auto& [key, value] : e.args) args[key] = value;
  return args;
}

Json ArgsFor(const TraceEvent& e) {
  Json args = Json::object();
  for (const auto& [key, value] : e.args) args[key] = value;
  if (!e.hlo.empty()) args["hlo"] = e.hlo;
  if (!e.computation.empty()) args["computation"] = e.computation;
  if (!e.kind.empty()) args["kind"] = e.kind;
  if (!e.group.empty()) args["group"] = e.group;
  args["iteration"] = e.iteration;
  args["bytes_read"] = e.bytes_read;
  args["bytes_written"] = e.bytes_written;
  args["flops"] = e.flops;
  int64_t dur = e.duration_ns();
  if (dur > 0) {
    // bytes per nanosecond is GB/s (10^9 bytes per second), flops per ns is GFLOP/s.
    if (e.bytes() > 0) args["achieved_GB/s"] = static_cast<double>(e.bytes()) / dur;
    if (e.flops > 0) args["achieved_GFLOP/s"] = static_cast<double>(e.flops) / dur;
  }
  return args;
}

}  // namespace

std::string ToChromeTraceJson(const Trace& trace) {
  const int64_t origin = trace.start_ns();

  std::vector<Json> metadata;
  std::map<int, Placement> placement;  // by track id
  std::map<std::string, int> pids;     // by process name
  int next_tid = 1;
  for (int id : trace.TrackDisplayOrder()) {
    const Track& track = *trace.FindTrack(id);
    auto [it, inserted] = pids.emplace(track.process, static_cast<int>(pids.size()) + 1);
    int pid = it->second;
    if (inserted) {
      metadata.push_back(Metadata("process_name", pid, 0, {{"name", track.process}}));
      metadata.push_back(Metadata("process_sort_index", pid, 0, {{"sort_index", pid}}));
    }
    int tid = next_tid++;
    placement[id] = Placement{pid, tid};
    metadata.push_back(Metadata("thread_name", pid, tid, {{"name", track.name}}));
    metadata.push_back(Metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
  }

  std::vector<const TraceEvent*> events;
  events.reserve(trace.events().size());
  for (const TraceEvent& e : trace.events()) events.push_back(&e);
  std::stable_sort(events.begin(), events.end(), [](const TraceEvent* a, const TraceEvent* b) {
    return a->start_ns < b->start_ns;
  });

  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  auto append = [&](const Json& j) {
    if (!first) out += ",\n";
    first = false;
    out += Dump(j);
  };
  for (const Json& m : metadata) append(m);
  for (const TraceEvent* e : events) {
    // An event on a track the trace does not have lands on pid 0 / tid 0 rather than vanish.
    auto it = placement.find(e->track);
    Placement where = it == placement.end() ? Placement{} : it->second;
    Json j;
    j["name"] = e->name;
    j["cat"] = e->category;
    j["ph"] = "X";
    j["ts"] = NsToUs(e->start_ns - origin);
    j["dur"] = NsToUs(e->duration_ns());
    j["pid"] = where.pid;
    j["tid"] = where.tid;
    const Track* track = trace.FindTrack(e->track);
    j["args"] = track != nullptr && track->process == kCompileProcess ? CompileArgsFor(*e) : ArgsFor(*e);
    append(j);
  }
  out += "\n],\n\"displayTimeUnit\":\"ns\",\n";
  out += "\"otherData\":" + Dump(Json{{"generator", "fusebox"}, {"origin_ns", origin}}) + "}\n";
  return out;
}

Status WriteChromeTrace(const Trace& trace, const std::string& path) {
  std::string text = ToChromeTraceJson(trace);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) {
    return InvalidArgument("cannot write Chrome trace to '" + path + "': " + std::strerror(errno));
  }
  size_t written = std::fwrite(text.data(), 1, text.size(), file);
  int write_errno = errno;
  bool closed = std::fclose(file) == 0;
  if (written != text.size() || !closed) {
    int err = written != text.size() ? write_errno : errno;
    return InvalidArgument("cannot write Chrome trace to '" + path + "': " + std::strerror(err));
  }
  return Status::Ok();
}

}  // namespace fusebox::profiler
