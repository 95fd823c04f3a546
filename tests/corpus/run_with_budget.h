// Runs the interpreter with a wall-clock budget (some corpus modules are benchmarks of
// 10^12 operations). Past the budget the run is cancelled and fails with "cancelled".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "compiler/interpreter/interpreter.h"

namespace fusebox {

inline StatusOr<Literal> RunWithBudget(const Module& module, const std::vector<Literal>& args,
                                       int seconds, InterpreterOptions options = {}) {
  std::atomic<bool> cancel{false};
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(seconds), [&] { return done; })) cancel = true;
  });
  options.cancel = &cancel;
  auto result = Interpreter(options).Run(module, args);
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  return result;
}

}  // namespace fusebox
