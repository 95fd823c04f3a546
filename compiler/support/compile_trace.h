// The compile-time trace: where a compile's time goes, as timed spans (parsing, every pass,
// the verifier, buffer assignment, kernel IR emission, LLVM optimization, code generation,
// the JIT link, ptxas) on the threads that ran them. `fusebox compile --compile-trace`
// writes it as Chrome trace JSON; the workbench draws it as a "compile" track.
//
// What it does: a CompileTrace collects spans from any thread (a mutex around a vector);
// a ScopedSpan times one piece of work from its construction to its destruction (or
// End()) and records it with its category, name, a few string arguments and a small
// thread number. Spans nest by time: a span opened inside another on the same thread ends
// before it. Summaries (self time, totals per category) are computed from the spans.
//
// What it does not do: sample, count allocations, or look inside LLVM beyond the spans its
// callers open. With a null CompileTrace a ScopedSpan reads no clock, copies no string and
// takes no lock: callers pass `options.trace` unchanged whether tracing is on or off.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace fusebox {

// Span categories; the summary totals time by these.
namespace compile_category {
inline constexpr std::string_view kParse = "parse";
inline constexpr std::string_view kPass = "pass";
inline constexpr std::string_view kVerify = "verify";
inline constexpr std::string_view kBuffers = "buffers";
inline constexpr std::string_view kCodegen = "codegen";  // HLO -> LLVM IR, per kernel
inline constexpr std::string_view kLlvm = "llvm";        // LLVM optimization
inline constexpr std::string_view kMachineCode = "machine-code";  // LLVM's back end: objects, assembly, PTX
inline constexpr std::string_view kJit = "jit";
inline constexpr std::string_view kPtxas = "ptxas";
inline constexpr std::string_view kPrint = "print";  // stage text: snapshots, printed IR
inline constexpr std::string_view kStage = "stage";  // an enclosing step (a whole backend compile)
}  // namespace compile_category

struct CompileSpan {
  std::string category;
  std::string name;
  std::vector<std::pair<std::string, std::string>> args;
  int64_t begin_ns = 0;  // steady clock (NowNanos), absolute
  int64_t end_ns = 0;
  int thread = 0;  // 0 for the first thread that recorded, 1 for the next, ...

  int64_t duration_ns() const { return end_ns > begin_ns ? end_ns - begin_ns : 0; }
  // The value of argument `key`, or "".
  std::string_view Arg(std::string_view key) const;
};

class CompileTrace {
 public:
  void Record(CompileSpan span);
  // Records a span timed by the caller (who needs the time for itself too) on the
  // calling thread.
  void Record(std::string_view category, std::string_view name, int64_t begin_ns, int64_t end_ns,
              std::vector<std::pair<std::string, std::string>> args = {});
  // The spans so far, by thread, then begin (earlier first), then end (longer first):
  // a parent comes before its children.
  std::vector<CompileSpan> Spans() const;
  size_t size() const;
  // How many threads have recorded.
  int thread_count() const;
  // The calling thread's number, given on first use.
  int ThreadNumber();

 private:
  mutable std::mutex mutex_;
  std::vector<CompileSpan> spans_;
  std::vector<std::thread::id> threads_;
};

// Times the enclosing scope into `trace`; does nothing when `trace` is null.
class ScopedSpan {
 public:
  ScopedSpan(CompileTrace* trace, std::string_view category, std::string_view name);
  ~ScopedSpan() { End(); }
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

  bool active() const { return trace_ != nullptr; }
  // Adds an argument shown with the span ("pass", "kernel", "cache"...).
  ScopedSpan& Arg(std::string_view key, std::string_view value);
  ScopedSpan& Arg(std::string_view key, int64_t value);
  // Records the span now rather than at the end of the scope (once).
  void End();

 private:
  CompileTrace* trace_ = nullptr;
  CompileSpan span_;
};

// Time per span name and category, with self time: a span's duration less that of its
// direct children on its thread.
struct CompileTimeRow {
  std::string category;
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
};
struct CompileTimeSummary {
  int64_t wall_ns = 0;                 // first begin to last end
  std::vector<CompileTimeRow> by_name;      // by self time, largest first
  std::vector<CompileTimeRow> by_category;  // self time per category, largest first
};
CompileTimeSummary SummarizeCompileTrace(const std::vector<CompileSpan>& spans);

// The summary as text: totals per category, then the `top` spans by self time.
std::string FormatCompileTimeSummary(const CompileTimeSummary& summary, size_t top = 15);

}  // namespace fusebox
