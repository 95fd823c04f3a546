// Small helpers shared by tests: sanitizer detection and input sizes, so that tests that
// run the interpreter on the big examples can skip them where they would take minutes.
#pragma once

#include <algorithm>
#include <cstdint>

#include "compiler/ir/module.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_TEST_SANITIZED 1
#endif
#endif

namespace fusebox {

inline bool SanitizerBuild() {
#ifdef FUSEBOX_TEST_SANITIZED
  return true;
#else
  return false;
#endif
}

// Elements of all entry parameters.
inline int64_t EntryInputElements(const Module& m) {
  int64_t total = 0;
  if (m.entry() == nullptr) return 0;
  for (const Instruction* p : m.entry()->parameters()) {
    if (p == nullptr) continue;
    ForEachSubshape(p->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) total += std::max<int64_t>(s.ElementCount(), 0);
    });
  }
  return total;
}

// True when running the interpreter on `m` would be too slow for this build.
inline bool TooBigForThisBuild(const Module& m) {
  return SanitizerBuild() && EntryInputElements(m) > (int64_t{1} << 22);
}

}  // namespace fusebox
