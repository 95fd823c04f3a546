// Helpers for the CLI tests: run the real fusebox binary and capture what users read.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace fusebox::cli_test {

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr together
};

inline Result RunCommand(const std::string& cmd) {
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline Result RunFusebox(const std::string& args) {
  return RunCommand(std::string(FUSEBOX_BINARY) + " " + args + " 2>&1");
}

// stdout alone (stderr dropped): what a user redirects into a file.
inline Result RunFuseboxStdout(const std::string& args) {
  return RunCommand(std::string(FUSEBOX_BINARY) + " " + args + " 2>/dev/null");
}

inline std::string Example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

}  // namespace fusebox::cli_test
