#include "compiler/runtime/kernel_shapes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fusebox::runtime {

std::string KernelShapeKey(const std::string& scope, const std::string& kind, const std::vector<KernelShapeText>& shapes) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a, 64 bits
  auto mix = [&hash](const std::string& text) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    hash = (hash ^ 0xffu) * 1099511628211ull;  // a separator no text byte equals in UTF-8
  };
  for (const KernelShapeText& shape : shapes) {
    mix(shape.label);
    mix(shape.launches);
  }
  char hex[24];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return scope + "|" + kind + "|" + std::to_string(shapes.size()) + " shapes|ptx " + hex;
}

int64_t ShapeSampleLaunches(double one_launch_ms, double target_ms) {
  if (!(one_launch_ms > 0)) return 20;
  return std::clamp<int64_t>(static_cast<int64_t>(target_ms / one_launch_ms), 1, 20);
}

size_t FastestShape(const std::vector<double>& ms, double margin) {
  size_t chosen = 0;
  for (size_t i = 1; i < ms.size(); ++i) {
    if (ms[i] < ms[chosen] && ms[i] < margin * ms[0]) chosen = i;
  }
  return chosen;
}

std::string ShapeTimesText(const std::vector<std::string>& labels, const std::vector<double>& ms, size_t chosen) {
  std::string text;
  for (size_t i = 0; i < ms.size() && i < labels.size(); ++i) {
    char part[48];
    if (std::isfinite(ms[i])) {
      std::snprintf(part, sizeof(part), " %.1f us", ms[i] * 1e3);
    } else {
      std::snprintf(part, sizeof(part), " (differs from the library)");
    }
    text += (i == 0 ? "" : ", ") + labels[i] + part;
  }
  if (chosen < labels.size()) text += " -> " + labels[chosen];
  return text;
}

std::string CompareWithLibrary(const Literal& own, const Literal& library, double tolerance) {
  if (!own.shape().IsArray() || !library.shape().IsArray() ||
      own.shape().dimensions() != library.shape().dimensions() ||
      own.shape().element_type() != library.shape().element_type()) {
    return "the results' shapes differ";
  }
  const int64_t n = library.shape().ElementCount();
  double largest = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = library.GetDouble(i);
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  }
  const double allowed = tolerance * largest;
  for (int64_t i = 0; i < n; ++i) {
    const double want = library.GetDouble(i), got = own.GetDouble(i);
    const bool agree = std::isfinite(want) ? std::fabs(got - want) <= allowed : (std::isnan(want) ? std::isnan(got) : got == want);
    if (agree) continue;
    char text[160];
    std::snprintf(text, sizeof(text), "element %lld (of %lld): %.6g against the library's %.6g; allowed %.3g",
                  static_cast<long long>(i), static_cast<long long>(n), got, want, allowed);
    return text;
  }
  return "";
}

}  // namespace fusebox::runtime
