// The machine and build a report was made on: what a compiler engineer asks first.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fusebox::report {

struct Environment {
  std::string fusebox_version;
  std::string llvm_version;
  std::string cxx_compiler;  // the compiler Fusebox was built with
  std::string build;         // "optimized" / "debug", sanitizers
  std::string os;            // uname: sysname release machine
  std::string host;
  std::string cpu;           // model name
  int logical_cpus = 0;
  double memory_gib = 0;
  std::string gpu;           // device, or why there is none ("no CUDA driver (...)")
  std::string ptxas;         // path and version, or why there is none
  std::string command_line;
  std::string date;          // UTC, ISO 8601

  // Label/value rows in a fixed order.
  std::vector<std::pair<std::string, std::string>> Rows() const;
};

Environment CollectEnvironment(const std::string& command_line);

}  // namespace fusebox::report
