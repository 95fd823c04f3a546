// The compile-time trace: recording spans from several threads, and the self-time summary.
#include "compiler/support/compile_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "compiler/support/timer.h"

namespace fusebox {

std::string_view CompileSpan::Arg(std::string_view key) const {
  for (const auto& [k, v] : args) {
    if (k == key) return v;
  }
  return {};
}

void CompileTrace::Record(CompileSpan span) {
  std::lock_guard<std::mutex> lock(mutex_);
  spans_.push_back(std::move(span));
}

void CompileTrace::Record(std::string_view category, std::string_view name, int64_t begin_ns, int64_t end_ns,
                          std::vector<std::pair<std::string, std::string>> args) {
  CompileSpan span;
  span.category = category;
  span.name = name;
  span.args = std::move(args);
  span.begin_ns = begin_ns;
  span.end_ns = end_ns;
  span.thread = ThreadNumber();
  Record(std::move(span));
}

std::vector<CompileSpan> CompileTrace::Spans() const {
  std::vector<CompileSpan> spans;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    spans = spans_;
  }
  std::stable_sort(spans.begin(), spans.end(), [](const CompileSpan& a, const CompileSpan& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.begin_ns != b.begin_ns) return a.begin_ns < b.begin_ns;
    return a.end_ns > b.end_ns;
  });
  return spans;
}

size_t CompileTrace::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spans_.size();
}

int CompileTrace::thread_count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(threads_.size());
}

int CompileTrace::ThreadNumber() {
  const std::thread::id self = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(threads_.begin(), threads_.end(), self);
  if (it != threads_.end()) return static_cast<int>(it - threads_.begin());
  threads_.push_back(self);
  return static_cast<int>(threads_.size()) - 1;
}

ScopedSpan::ScopedSpan(CompileTrace* trace, std::string_view category, std::string_view name) : trace_(trace) {
  if (trace_ == nullptr) return;
  span_.category = category;
  span_.name = name;
  span_.thread = trace_->ThreadNumber();
  span_.begin_ns = NowNanos();
}

ScopedSpan& ScopedSpan::Arg(std::string_view key, std::string_view value) {
  if (trace_ != nullptr) span_.args.emplace_back(key, value);
  return *this;
}

ScopedSpan& ScopedSpan::Arg(std::string_view key, int64_t value) {
  if (trace_ != nullptr) span_.args.emplace_back(key, std::to_string(value));
  return *this;
}

void ScopedSpan::End() {
  if (trace_ == nullptr) return;
  span_.end_ns = NowNanos();
  trace_->Record(std::move(span_));
  trace_ = nullptr;
}

namespace {

// Each span's self time: its duration less its direct children's. `spans` must be in
// CompileTrace::Spans() order, so that a thread's enclosing spans form a stack.
std::vector<int64_t> SelfTimes(const std::vector<CompileSpan>& spans) {
  std::vector<int64_t> self(spans.size());
  std::vector<size_t> open;
  for (size_t i = 0; i < spans.size(); ++i) {
    const CompileSpan& s = spans[i];
    self[i] = s.duration_ns();
    while (!open.empty() && (spans[open.back()].thread != s.thread || spans[open.back()].end_ns <= s.begin_ns)) {
      open.pop_back();
    }
    if (!open.empty()) self[open.back()] -= s.duration_ns();
    open.push_back(i);
  }
  return self;
}

std::vector<CompileTimeRow> BySelfTime(std::map<std::pair<std::string, std::string>, CompileTimeRow> rows) {
  std::vector<CompileTimeRow> out;
  for (auto& [key, row] : rows) out.push_back(std::move(row));
  std::stable_sort(out.begin(), out.end(),
                   [](const CompileTimeRow& a, const CompileTimeRow& b) { return a.self_ns > b.self_ns; });
  return out;
}

}  // namespace

CompileTimeSummary SummarizeCompileTrace(const std::vector<CompileSpan>& spans) {
  CompileTimeSummary summary;
  if (spans.empty()) return summary;
  const std::vector<int64_t> self = SelfTimes(spans);
  std::map<std::pair<std::string, std::string>, CompileTimeRow> by_name, by_category;
  int64_t first = spans[0].begin_ns, last = spans[0].end_ns;
  for (size_t i = 0; i < spans.size(); ++i) {
    const CompileSpan& s = spans[i];
    first = std::min(first, s.begin_ns);
    last = std::max(last, s.end_ns);
    for (auto* rows : {&by_name, &by_category}) {
      const std::string name = rows == &by_name ? s.name : "";
      CompileTimeRow& row = (*rows)[{s.category, name}];
      row.category = s.category;
      row.name = name;
      ++row.count;
      row.total_ns += s.duration_ns();
      row.self_ns += self[i];
    }
  }
  summary.wall_ns = last - first;
  summary.by_name = BySelfTime(std::move(by_name));
  summary.by_category = BySelfTime(std::move(by_category));
  return summary;
}

std::string FormatCompileTimeSummary(const CompileTimeSummary& summary, size_t top) {
  auto ms = [](int64_t ns) { return static_cast<double>(ns) * 1e-6; };
  char line[256];
  std::string out;
  std::snprintf(line, sizeof(line), "compile trace: %.1f ms wall\n  self time by category (all threads):\n",
                ms(summary.wall_ns));
  out += line;
  for (const CompileTimeRow& row : summary.by_category) {
    std::snprintf(line, sizeof(line), "    %-14s %10.2f ms  %5lld spans\n", row.category.c_str(), ms(row.self_ns),
                  static_cast<long long>(row.count));
    out += line;
  }
  std::snprintf(line, sizeof(line), "  top %zu spans by self time:\n", std::min(top, summary.by_name.size()));
  out += line;
  for (size_t i = 0; i < summary.by_name.size() && i < top; ++i) {
    const CompileTimeRow& row = summary.by_name[i];
    std::snprintf(line, sizeof(line), "    %10.2f ms self %10.2f ms total  %4lldx  %-12s %s\n", ms(row.self_ns),
                  ms(row.total_ns), static_cast<long long>(row.count), row.category.c_str(), row.name.c_str());
    out += line;
  }
  return out;
}

}  // namespace fusebox
