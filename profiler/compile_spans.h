// The compile-time trace (compiler/support/compile_trace.h) in the trace model: one process
// "compile" with a track per thread that recorded, so that the Chrome-trace exporter writes
// it (`fusebox compile --compile-trace`) and the timeline view draws it (the workbench's
// compile track). Spans keep their category, name and arguments; a span about one kernel
// names it as the event's HLO instruction, so clicking it selects the instruction.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/support/compile_trace.h"
#include "compiler/support/status.h"
#include "profiler/trace.h"

namespace fusebox::profiler {

inline constexpr std::string_view kCompileProcess = "compile";

// Adds `spans` to `trace` as events of process "compile", tracks "thread 0", "thread 1"...
void AddCompileSpans(const std::vector<CompileSpan>& spans, Trace* trace);

// A trace holding only the spans.
Trace CompileSpansToTrace(const std::vector<CompileSpan>& spans);

// Writes the spans as Chrome trace JSON to `path`.
Status WriteCompileTrace(const std::vector<CompileSpan>& spans, const std::string& path);

}  // namespace fusebox::profiler
