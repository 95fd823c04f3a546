// Wall-clock timing helpers shared by the pass pipeline, the CLI, benchmarks and the tracers.
#pragma once

#include <chrono>
#include <cstdint>

namespace fusebox {

// Nanoseconds on a monotonic clock.
int64_t NowNanos();

class Stopwatch {
 public:
  Stopwatch() : start_(NowNanos()) {}
  int64_t ElapsedNanos() const { return NowNanos() - start_; }
  double ElapsedSeconds() const { return static_cast<double>(ElapsedNanos()) * 1e-9; }
  void Reset() { start_ = NowNanos(); }

 private:
  int64_t start_;
};

}  // namespace fusebox
