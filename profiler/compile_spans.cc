// Compile spans as trace events.
#include "profiler/compile_spans.h"

#include <string>

#include "profiler/chrome_trace.h"

namespace fusebox::profiler {

void AddCompileSpans(const std::vector<CompileSpan>& spans, Trace* trace) {
  for (const CompileSpan& span : spans) {
    TraceEvent e;
    e.name = span.name;
    e.category = span.category;
    e.kind = span.category;  // the timeline colours events by kind
    e.hlo = std::string(span.Arg("kernel"));
    e.track = trace->FindOrAddTrack(kCompileProcess, "thread " + std::to_string(span.thread));
    e.start_ns = span.begin_ns;
    e.end_ns = span.end_ns;
    e.args = span.args;
    trace->AddEvent(std::move(e));
  }
}

Trace CompileSpansToTrace(const std::vector<CompileSpan>& spans) {
  Trace trace;
  AddCompileSpans(spans, &trace);
  trace.SortEvents();
  return trace;
}

Status WriteCompileTrace(const std::vector<CompileSpan>& spans, const std::string& path) {
  return WriteChromeTrace(CompileSpansToTrace(spans), path);
}

}  // namespace fusebox::profiler
