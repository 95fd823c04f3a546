// Elementwise literal comparison with NaN/inf-aware tolerances, and the per-type default
// tolerances the interpreter's checks use.
#include "compiler/interpreter/literal_compare.h"

#include <cmath>
#include <complex>
#include <limits>

#include "compiler/interpreter/index_util.h"
#include "compiler/support/strings.h"

namespace fusebox::interpreter {

namespace {

std::string TupleIndexToString(const std::vector<int64_t>& path) {
  return "{" + Join(path, ",") + "}";
}

std::string IndexToString(const std::vector<int64_t>& index) {
  return "[" + Join(index, ",") + "]";
}

// Where the comparison of one element ended up.
struct ElementVerdict {
  bool match = true;
  // Errors to fold into the maxima; NaN when the pair has none (NaN or inf involved, or a
  // zero expected value for the relative error).
  double abs_error = std::numeric_limits<double>::quiet_NaN();
  double rel_error = std::numeric_limits<double>::quiet_NaN();
};

void SetErrors(double diff, double expected_magnitude, ElementVerdict* verdict) {
  verdict->abs_error = diff;
  if (expected_magnitude != 0) verdict->rel_error = diff / expected_magnitude;
}

ElementVerdict CompareReal(double a, double b, const CompareOptions& options) {
  ElementVerdict verdict;
  if (std::isnan(a) || std::isnan(b)) {
    verdict.match = options.nan_equal && std::isnan(a) && std::isnan(b);
    return verdict;
  }
  if (std::isinf(a) || std::isinf(b)) {
    verdict.match = a == b;  // same-sign infinities only
    return verdict;
  }
  const double diff = std::fabs(a - b);
  SetErrors(diff, std::fabs(b), &verdict);
  verdict.match = diff <= options.atol + options.rtol * std::fabs(b);
  return verdict;
}

bool HasNan(std::complex<double> c) { return std::isnan(c.real()) || std::isnan(c.imag()); }
bool HasInf(std::complex<double> c) { return std::isinf(c.real()) || std::isinf(c.imag()); }

ElementVerdict CompareComplex(std::complex<double> a, std::complex<double> b,
                              const CompareOptions& options) {
  ElementVerdict verdict;
  // A NaN anywhere makes the whole value NaN-like: no meaningful distance exists.
  if (HasNan(a) || HasNan(b)) {
    verdict.match = options.nan_equal && HasNan(a) && HasNan(b);
    return verdict;
  }
  if (HasInf(a) || HasInf(b)) {
    verdict.match = a == b;
    return verdict;
  }
  const double diff = std::abs(a - b);
  SetErrors(diff, std::abs(b), &verdict);
  verdict.match = diff <= options.atol + options.rtol * std::abs(b);
  return verdict;
}

ElementVerdict CompareExact(const Literal& actual, const Literal& expected, int64_t i) {
  ElementVerdict verdict;
  const PrimitiveType type = expected.shape().element_type();
  double a;
  double b;
  if (IsUnsignedInt(type)) {
    const uint64_t ua = actual.GetUint64(i);
    const uint64_t ub = expected.GetUint64(i);
    verdict.match = ua == ub;
    a = static_cast<double>(ua);
    b = static_cast<double>(ub);
    SetErrors(ua > ub ? static_cast<double>(ua - ub) : static_cast<double>(ub - ua), std::fabs(b),
              &verdict);
  } else {
    const int64_t ia = actual.GetInt64(i);
    const int64_t ib = expected.GetInt64(i);
    verdict.match = ia == ib;
    a = static_cast<double>(ia);
    b = static_cast<double>(ib);
    SetErrors(std::fabs(a - b), std::fabs(b), &verdict);
  }
  return verdict;
}

class Comparer {
 public:
  Comparer(const CompareOptions& options, CompareResult* result)
      : options_(options), result_(result) {}

  void Compare(const Literal& actual, const Literal& expected) {
    const Shape& as = actual.shape();
    const Shape& es = expected.shape();
    if (as.IsTuple() != es.IsTuple() || (as.IsTuple() && as.tuple_size() != es.tuple_size()) ||
        (!as.IsTuple() &&
         (as.element_type() != es.element_type() || as.dimensions() != es.dimensions()))) {
      ShapeMismatch(as, es);
      return;
    }
    if (as.IsTuple()) {
      const auto& a_elements = actual.tuple_elements();
      const auto& e_elements = expected.tuple_elements();
      if (a_elements.size() != e_elements.size()) {
        ShapeMismatch(as, es);
        return;
      }
      for (size_t i = 0; i < a_elements.size(); ++i) {
        path_.push_back(static_cast<int64_t>(i));
        Compare(a_elements[i], e_elements[i]);
        path_.pop_back();
      }
      return;
    }
    if (!as.IsArray()) return;  // tokens and opaque values carry nothing to compare
    if (actual.element_count() != expected.element_count()) {
      // Same shape text but different storage: an unbounded dynamic dimension.
      ShapeMismatch(as, es);
      return;
    }
    CompareArrays(actual, expected);
  }

 private:
  void ShapeMismatch(const Shape& actual, const Shape& expected) {
    result_->shapes_match = false;
    if (!result_->shape_message.empty()) result_->shape_message += "; ";
    if (!path_.empty())
      result_->shape_message += "at tuple index " + TupleIndexToString(path_) + ": ";
    result_->shape_message += "actual shape " + actual.ToString(/*print_layout=*/false) +
                              " differs from expected " + expected.ToString(false);
  }

  void CompareArrays(const Literal& actual, const Literal& expected) {
    const PrimitiveType type = expected.shape().element_type();
    const int64_t count = expected.element_count();
    for (int64_t i = 0; i < count; ++i) {
      ElementVerdict verdict;
      if (IsFloat(type)) {
        verdict = CompareReal(actual.GetDouble(i), expected.GetDouble(i), options_);
      } else if (IsComplex(type)) {
        verdict = CompareComplex(actual.GetComplex(i), expected.GetComplex(i), options_);
      } else {
        verdict = CompareExact(actual, expected, i);
      }
      ++result_->elements_compared;
      if (!std::isnan(verdict.abs_error) && verdict.abs_error > result_->max_abs_error) {
        result_->max_abs_error = verdict.abs_error;
      }
      if (!std::isnan(verdict.rel_error) && verdict.rel_error > result_->max_rel_error) {
        result_->max_rel_error = verdict.rel_error;
      }
      if (verdict.match) continue;
      ++result_->mismatch_count;
      if (static_cast<int64_t>(result_->first_mismatches.size()) < options_.max_reported) {
        Mismatch mismatch;
        mismatch.tuple_index = path_;
        mismatch.index = MultiIndex(i, expected.shape().dimensions());
        mismatch.actual = actual.ElementToString(i);
        mismatch.expected = expected.ElementToString(i);
        result_->first_mismatches.push_back(std::move(mismatch));
      }
    }
  }

  const CompareOptions& options_;
  CompareResult* result_;
  std::vector<int64_t> path_;
};

}  // namespace

std::string CompareResult::ToString() const {
  std::string out;
  if (!shapes_match) {
    out = shape_message;
    if (elements_compared == 0) return out;
    out += "; elsewhere ";
  }
  const std::string errors =
      "max abs " + FormatDouble(max_abs_error) + ", max rel " + FormatDouble(max_rel_error);
  if (mismatch_count == 0) {
    return out + "all " + std::to_string(elements_compared) + " elements match (" + errors + ")";
  }
  out += std::to_string(mismatch_count) + " of " + std::to_string(elements_compared) +
         " elements differ (" + errors + "); first:";
  for (size_t i = 0; i < first_mismatches.size(); ++i) {
    const Mismatch& m = first_mismatches[i];
    out += i == 0 ? " " : ", ";
    if (!m.tuple_index.empty()) out += TupleIndexToString(m.tuple_index);
    out += IndexToString(m.index) + " actual " + m.actual + " expected " + m.expected;
  }
  return out;
}

CompareResult CompareLiterals(const Literal& actual, const Literal& expected,
                              const CompareOptions& options) {
  CompareResult result;
  Comparer(options, &result).Compare(actual, expected);
  return result;
}

// Tolerances let results that differ only by rounding order pass (a reduction summed in
// another order, an op computed in f32 and rounded once more) while a wrong element fails.
// For the narrow floats that is two units in the last place at magnitude 1 (atol + rtol);
// f32 and f64 leave room for long accumulations:
//   f64, c128          1e-12   (eps 2.2e-16: room for long accumulations)
//   f32, c64           1e-5    (eps 1.2e-7)
//   f16                1e-3    (eps 9.8e-4)
//   bf16               1e-2    (eps 7.8e-3)
//   f8e3m4             0.0625  (eps 2^-4)
//   f8e4m3*            0.125   (eps 2^-3)
//   f8e5m2*            0.25    (eps 2^-2)
//   f4e2m1fn           0.5     (eps 2^-1)
//   f8e8m0fnu          0.5     (powers of two: 2b passes for expected b, 4b fails)
//   integers, pred     0       (compared exactly whatever the tolerance)
// atol equals rtol, so values near zero get the same absolute slack as values near one.
CompareOptions DefaultToleranceFor(PrimitiveType type) {
  double tolerance = 0;
  switch (type) {
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      tolerance = 1e-12;
      break;
    case PrimitiveType::kF32:
    case PrimitiveType::kC64:
      tolerance = 1e-5;
      break;
    case PrimitiveType::kF16:
      tolerance = 1e-3;
      break;
    case PrimitiveType::kBF16:
      tolerance = 1e-2;
      break;
    case PrimitiveType::kF8E8M0FNU:
      tolerance = 0.5;
      break;
    default:
      if (IsFloat(type)) tolerance = std::ldexp(1.0, -MantissaBits(type));
      break;
  }
  CompareOptions options;
  options.atol = tolerance;
  options.rtol = tolerance;
  return options;
}

}  // namespace fusebox::interpreter
