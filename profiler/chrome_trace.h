// Chrome trace-event JSON export: the format chrome://tracing and Perfetto (ui.perfetto.dev)
// open. One "X" (complete) event per trace event, one pid per process and one tid per track,
// named by "M" metadata events; times in microseconds relative to the trace's start. Events
// of the "compile" process (compile_spans.h) carry their own arguments, no run counters.
#pragma once

#include <string>

#include "compiler/support/status.h"
#include "profiler/trace.h"

namespace fusebox::profiler {

// The whole trace as {"traceEvents":[...],"displayTimeUnit":"ns",...}, one event per line.
// ts/dur are fractional microseconds (nanosecond precision kept); pids number processes from
// 1 and tids number tracks from 1 across the whole trace (unique, as some viewers key
// threads by tid alone), both in Trace::TrackDisplayOrder(). Events are sorted by start.
std::string ToChromeTraceJson(const Trace& trace);

// Writes ToChromeTraceJson(trace) to `path`; an error naming the path if it cannot.
Status WriteChromeTrace(const Trace& trace, const std::string& path);

}  // namespace fusebox::profiler
