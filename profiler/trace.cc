// The trace model's queries: span, kernels, per-iteration views, display order.
#include "profiler/trace.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

namespace fusebox::profiler {

int Trace::AddTrack(std::string process, std::string name) {
  int id = static_cast<int>(tracks_.size());
  tracks_.push_back(Track{id, std::move(process), std::move(name)});
  return id;
}

int Trace::FindOrAddTrack(std::string_view process, std::string_view name) {
  for (const Track& track : tracks_) {
    if (track.process == process && track.name == name) return track.id;
  }
  return AddTrack(std::string(process), std::string(name));
}

const Track* Trace::FindTrack(int id) const {
  if (id < 0 || id >= static_cast<int>(tracks_.size())) return nullptr;
  return &tracks_[static_cast<size_t>(id)];
}

void Trace::AddEvent(TraceEvent event) { events_.push_back(std::move(event)); }

int64_t Trace::start_ns() const {
  if (events_.empty()) return 0;
  int64_t start = std::numeric_limits<int64_t>::max();
  for (const TraceEvent& e : events_) start = std::min(start, e.start_ns);
  return start;
}

int64_t Trace::end_ns() const {
  if (events_.empty()) return 0;
  int64_t end = std::numeric_limits<int64_t>::min();
  for (const TraceEvent& e : events_) end = std::max({end, e.end_ns, e.start_ns});
  return end;
}

std::vector<TraceEvent> Trace::Kernels() const {
  std::vector<TraceEvent> kernels;
  for (const TraceEvent& e : events_) {
    if (e.is_kernel()) kernels.push_back(e);
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.start_ns < b.start_ns;
  });
  return kernels;
}

std::vector<TraceEvent> Trace::EventsInIteration(int64_t iteration) const {
  std::vector<TraceEvent> out;
  for (const TraceEvent& e : events_) {
    if (e.iteration == iteration) out.push_back(e);
  }
  return out;
}

Trace Trace::FilterIteration(int64_t iteration) const {
  Trace out;
  out.tracks_ = tracks_;
  out.events_ = EventsInIteration(iteration);
  return out;
}

std::vector<int64_t> Trace::Iterations() const {
  std::set<int64_t> seen;
  for (const TraceEvent& e : events_) seen.insert(e.iteration);
  return std::vector<int64_t>(seen.begin(), seen.end());
}

std::map<int64_t, int64_t> Trace::KernelCountPerIteration() const {
  std::map<int64_t, int64_t> counts;
  for (const TraceEvent& e : events_) {
    int64_t& count = counts[e.iteration];
    if (e.is_kernel()) ++count;
  }
  return counts;
}

void Trace::SortEvents() {
  std::stable_sort(events_.begin(), events_.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return std::tie(a.start_ns, a.track, a.end_ns) < std::tie(b.start_ns, b.track, b.end_ns);
  });
}

std::vector<int> Trace::TrackDisplayOrder() const {
  std::vector<int> order;
  order.reserve(tracks_.size());
  for (const Track& track : tracks_) order.push_back(track.id);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    const Track& ta = tracks_[static_cast<size_t>(a)];
    const Track& tb = tracks_[static_cast<size_t>(b)];
    if (ta.process != tb.process) return NaturalLess(ta.process, tb.process);
    return NaturalLess(ta.name, tb.name);
  });
  return order;
}

namespace {
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t ei = i;
      size_t ej = j;
      while (ei < a.size() && IsDigit(a[ei])) ++ei;
      while (ej < b.size() && IsDigit(b[ej])) ++ej;
      // Compare the runs as numbers without parsing them (they may overflow any integer):
      // strip leading zeros, then the longer run is larger, else compare digit by digit.
      std::string_view ra = a.substr(i, ei - i);
      std::string_view rb = b.substr(j, ej - j);
      ra.remove_prefix(std::min(ra.find_first_not_of('0'), ra.size()));
      rb.remove_prefix(std::min(rb.find_first_not_of('0'), rb.size()));
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      if (ra != rb) return ra < rb;
      i = ei;
      j = ej;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  // Equal under natural order ("07" vs "7"): fall back to plain order so the order is total.
  return a < b;
}

}  // namespace fusebox::profiler
