// Debian libraries the CPU runtime loads at run time (FFTW, LAPACK), as the GPU runtime
// loads NVIDIA's: a machine without one runs everything but the kernels that need it,
// which say what is missing.
#pragma once

#include <dlfcn.h>

#include <chrono>
#include <mutex>
#include <string>

namespace fusebox::runtime::library {


// A Debian library the runtime loads when a kernel first needs it (FFTW, LAPACK), its
// entry points bound by name. Anything missing makes ok() false, and missing() says what
// and which package scripts/setup.sh installs for it.
class RuntimeLibrary {
 public:
  RuntimeLibrary(const char* soname, const char* package) : soname_(soname) {
    handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* error = dlerror();
      missing_ = std::string(soname) + " is not installed (" + (error != nullptr ? error : soname) +
                 "; scripts/setup.sh installs Debian's " + package + ")";
    }
  }
  template <typename Fn>
  void Bind(Fn& fn, const std::string& symbol) {
    fn = handle_ != nullptr ? reinterpret_cast<Fn>(dlsym(handle_, symbol.c_str())) : nullptr;
    if (fn == nullptr && missing_.empty()) missing_ = std::string(soname_) + " lacks " + symbol;
  }
  // An entry point only some builds of the library have: nullptr where it lacks it.
  template <typename Fn>
  void BindOptional(Fn& fn, const std::string& symbol) {
    fn = handle_ != nullptr ? reinterpret_cast<Fn>(dlsym(handle_, symbol.c_str())) : nullptr;
  }
  bool ok() const { return missing_.empty(); }
  const std::string& missing() const { return missing_; }

 private:
  const char* soname_;
  void* handle_ = nullptr;  // never closed: bound entry points outlive any caller
  std::string missing_;
};

// The API `fill` binds (it returns what is missing, or ""), made once per Fill type and
// kept for the process; nullptr with *why set when something is missing.
template <typename Api, typename Fill>
const Api* LoadApiOnce(Fill fill, std::string* why) {
  static std::string* missing = new std::string();
  static const Api* api = [&]() -> const Api* {
    auto* a = new Api();
    *missing = fill(*a);
    if (missing->empty()) return a;
    delete a;
    return nullptr;
  }();
  if (api == nullptr && why != nullptr) *why = *missing;
  return api;
}

// Runs `load` (returning whether it succeeded) once per process for each Tag: the seconds
// it took for the first caller when it succeeded, 0 otherwise and for every later caller.
template <typename Tag, typename Load>
double TimeOnce(Load load) {
  static std::once_flag once;
  double seconds = 0;
  std::call_once(once, [&] {
    const auto start = std::chrono::steady_clock::now();
    if (load()) seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  });
  return seconds;
}

}  // namespace fusebox::runtime::library
