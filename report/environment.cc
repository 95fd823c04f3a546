// Collecting the environment: /proc, uname, the CUDA driver probe, ptxas.
#include "report/environment.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "compiler/session/toolchain.h"

#ifndef FUSEBOX_VERSION
#define FUSEBOX_VERSION "0.0.0"
#endif

namespace fusebox::report {

namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

double MemoryGib() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemTotal:") return static_cast<double>(kib) / (1024.0 * 1024.0);
  }
  return 0;
}

std::string BuildFlavor() {
  std::string out;
#ifdef NDEBUG
  out = "optimized";
#else
  out = "debug (assertions on)";
#endif
#if defined(__SANITIZE_ADDRESS__)
  out += ", AddressSanitizer";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  out += ", AddressSanitizer";
#endif
#endif
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Environment::Rows() const {
  char mem[32];
  std::snprintf(mem, sizeof(mem), "%.1f GiB", memory_gib);
  return {
      {"Fusebox", fusebox_version},
      {"LLVM", llvm_version},
      {"built with", cxx_compiler + ", " + build},
      {"OS", os},
      {"host", host},
      {"CPU", cpu + " (" + std::to_string(logical_cpus) + " logical CPUs)"},
      {"memory", mem},
      {"GPU", gpu},
      {"ptxas", ptxas},
      {"command", command_line},
      {"date", date},
  };
}

Environment CollectEnvironment(const std::string& command_line) {
  Environment env;
  env.fusebox_version = FUSEBOX_VERSION;
  const session::Toolchain toolchain = session::ProbeToolchain();
  env.llvm_version = toolchain.llvm_version;
#if defined(__clang__)
  env.cxx_compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  env.cxx_compiler = std::string("GCC ") + __VERSION__;
#else
  env.cxx_compiler = "unknown";
#endif
  env.build = BuildFlavor();
  struct utsname u;
  if (uname(&u) == 0) {
    env.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    env.host = u.nodename;
  }
  env.cpu = CpuModel();
  env.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  env.memory_gib = MemoryGib();
  env.gpu = toolchain.gpu;
  env.ptxas = toolchain.ptxas;
  env.command_line = command_line;
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  env.date = date;
  return env;
}

}  // namespace fusebox::report
