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

namespace {
constexpr int64_t kCanaryM = 48, kCanaryK = 40, kCanaryN = 56;
}  // namespace

std::string TensorCoreCanaryHlo() {
  return "HloModule tensor_core_canary\nENTRY e {\n  a = f32[48,40] parameter(0)\n  b = f32[40,56] parameter(1)\n"
         "  ROOT d = f32[48,56] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
}

std::vector<Literal> TensorCoreCanaryArguments() {
  std::vector<Literal> args;
  uint64_t state = 12345;
  for (const Shape& shape : {Shape(PrimitiveType::kF32, {kCanaryM, kCanaryK}), Shape(PrimitiveType::kF32, {kCanaryK, kCanaryN})}) {
    Literal literal(shape);
    for (int64_t i = 0; i < shape.ElementCount(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      literal.SetDouble(i, static_cast<double>(static_cast<int>((state >> 33) % 9) - 4));
    }
    args.push_back(std::move(literal));
  }
  return args;
}

std::string TensorCoreCanaryVerdict(const std::vector<Literal>& args, const Literal& result) {
  if (args.size() != 2 || !result.shape().IsArray() || result.shape().ElementCount() != kCanaryM * kCanaryN) {
    return "the canary's result is not f32[48,56]";
  }
  for (int64_t m = 0; m < kCanaryM; ++m) {
    for (int64_t n = 0; n < kCanaryN; ++n) {
      double want = 0;
      for (int64_t k = 0; k < kCanaryK; ++k) want += args[0].GetDouble(m * kCanaryK + k) * args[1].GetDouble(k * kCanaryN + n);
      const double got = result.GetDouble(m * kCanaryN + n);
      if (got == want) continue;
      char text[200];
      std::snprintf(text, sizeof(text),
                    "a 48x40 by 40x56 dot of whole numbers gave %g at [%lld,%lld] instead of %g on this device "
                    "(Fusebox's mma.sync fragment layout is not the device's)",
                    got, static_cast<long long>(m), static_cast<long long>(n), want);
      return text;
    }
  }
  return "";
}

}  // namespace fusebox::runtime
