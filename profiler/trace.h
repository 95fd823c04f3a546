// The trace model: tracks (CPU threads, pool workers, GPU streams) and timed events on them.
// Tracers write it, exporters and summaries read it, the timeline view draws it. A plain
// value type: copy it, filter it, compare it; thread safety is the tracer's job.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusebox::profiler {

// Event categories. Kernels are what the runtime launches; shards are pieces of a kernel's
// iteration space run by pool workers (not kernels: they are never counted as such); host
// work is runtime bookkeeping between kernels; a run is one whole execution (iteration).
inline constexpr std::string_view kCategoryKernel = "kernel";
inline constexpr std::string_view kCategoryShard = "shard";
inline constexpr std::string_view kCategoryHost = "host";
inline constexpr std::string_view kCategoryRun = "run";
// A collective: one device's part of an exchange between devices (multi-device runs).
inline constexpr std::string_view kCategoryCollective = "collective";

// One horizontal lane of the timeline. `process` groups lanes ("CPU", "GPU 0"); `name` is
// the lane within it ("thread 0", "worker 3", "stream 7").
struct Track {
  int id = 0;
  std::string process;
  std::string name;

  bool operator==(const Track&) const = default;
};

struct TraceEvent {
  std::string name;         // kernel name ("fusion_3"), host work ("copy"), "run 0"
  std::string hlo;          // HLO instruction the event runs, if any
  std::string computation;  // HLO computation that instruction is in
  std::string kind;         // "fusion(kLoop)", "dot", ...
  std::string category;     // one of the kCategory* values
  int track = 0;            // Track::id
  int64_t start_ns = 0;     // steady-clock nanoseconds, absolute
  int64_t end_ns = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
  int64_t flops = 0;
  int64_t iteration = 0;  // which run of the executable (0-based)
  std::string group;      // collectives: the devices exchanged with, "{0,1,2,3}"
  // Further arguments, shown with the event (compile spans: the pass, the kernel, ptxas's
  // cache hit or miss).
  std::vector<std::pair<std::string, std::string>> args;

  int64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  int64_t bytes() const { return bytes_read + bytes_written; }
  bool is_kernel() const { return category == kCategoryKernel; }

  bool operator==(const TraceEvent&) const = default;
};

class Trace {
 public:
  // Adds a new track and returns its id (ids are 0, 1, 2, ... in the order added).
  int AddTrack(std::string process, std::string name);
  // The id of the track (process, name), added if it is not there yet.
  int FindOrAddTrack(std::string_view process, std::string_view name);
  // The track with `id`, or nullptr.
  const Track* FindTrack(int id) const;

  void AddEvent(TraceEvent event);

  const std::vector<Track>& tracks() const { return tracks_; }
  const std::vector<TraceEvent>& events() const { return events_; }
  bool empty() const { return events_.empty(); }

  // The span of all events: earliest start to latest end (0, 0 for an empty trace).
  int64_t start_ns() const;
  int64_t end_ns() const;
  int64_t duration_ns() const { return end_ns() - start_ns(); }

  // Events of category "kernel", ordered by start time.
  std::vector<TraceEvent> Kernels() const;
  // Every event of one iteration, in the order added.
  std::vector<TraceEvent> EventsInIteration(int64_t iteration) const;
  // The same trace (all tracks kept, so track ids stay valid) with only one iteration's events.
  Trace FilterIteration(int64_t iteration) const;
  // The distinct iterations that have any event, ascending.
  std::vector<int64_t> Iterations() const;
  // Kernel events per iteration; an iteration with events but no kernels maps to 0.
  std::map<int64_t, int64_t> KernelCountPerIteration() const;

  // Orders events by start time (then track, then end), stably.
  void SortEvents();
  // Track ids in display order: processes by name, then tracks by name, comparing numbers
  // inside names by value ("thread 2" before "thread 10", "GPU 2" before "GPU 10").
  std::vector<int> TrackDisplayOrder() const;

  bool operator==(const Trace&) const = default;

 private:
  std::vector<Track> tracks_;
  std::vector<TraceEvent> events_;
};

// "Natural" string order: runs of digits compare as numbers.
bool NaturalLess(std::string_view a, std::string_view b);

}  // namespace fusebox::profiler
