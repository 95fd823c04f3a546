// Monotonic clock access.
#include "compiler/support/timer.h"

namespace fusebox {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace fusebox
