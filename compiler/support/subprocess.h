// Running another program as a child process: posix_spawn (no shell, no fork of this
// process's threads and locks), its input fed from a string, its output captured, killed
// on a timeout or when a cancel flag is set. ptxas, the SASS disassemblers and Graphviz's
// `dot` (for a layout the GUI can cancel) run through it.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/support/status.h"

namespace fusebox {

struct ProcessOptions {
  // argv[0] is the program's path: no shell and no $PATH lookup (FindProgram finds one).
  std::vector<std::string> argv;
  // "NAME=value": replace or extend this process's environment for the child.
  std::vector<std::string> env_overrides;
  // Written to the child's standard input, which is then closed; empty: /dev/null.
  std::string input;
  // Killed after this long; 0 or less: no limit.
  double timeout_seconds = 60;
  // Polled every 20 ms while the child runs: when it becomes true the child is killed.
  const std::atomic<bool>* cancel = nullptr;
  // True: stderr goes into `output`, interleaved as written. False: into `errors`.
  bool merge_stderr = true;
};

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  bool cancelled = false;
  std::string output;  // standard output (and standard error when merged)
  std::string errors;  // standard error when not merged
};

// Errors only for a child that could not be started (no pipe, no such program); what
// the child itself did is in the result.
StatusOr<ProcessResult> RunProcess(const ProcessOptions& options);

// The first executable `name` in $PATH (or `name` itself when it holds a '/' and is
// executable); "" when there is none.
std::string FindProgram(std::string_view name);

}  // namespace fusebox
