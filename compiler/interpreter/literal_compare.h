// Comparing literals with tolerances: what "the backend matches the interpreter" means.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"

namespace fusebox::interpreter {

struct CompareOptions {
  double atol = 1e-5;  // |a - b| <= atol + rtol * |b| passes (b: the expected value)
  double rtol = 1e-5;
  bool nan_equal = true;  // NaN matches NaN (any payload)
  int max_reported = 5;   // how many mismatches to describe
};

struct Mismatch {
  std::vector<int64_t> tuple_index;  // path into tuples, empty for arrays
  std::vector<int64_t> index;        // multi-index of the element
  std::string actual;
  std::string expected;
};

struct CompareResult {
  bool shapes_match = true;
  // Why shapes differ: "at tuple index {1}: actual shape s32[2] differs from expected
  // s32[3]", one clause per differing subshape joined by "; ". Tuple elements whose shapes
  // agree are still compared.
  std::string shape_message;
  int64_t elements_compared = 0;
  int64_t mismatch_count = 0;
  // Largest |a - b| and |a - b| / |b| over every compared pair, passing or not; pairs with
  // a NaN or an infinity count toward neither, and b == 0 toward the absolute one only.
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::vector<Mismatch> first_mismatches;  // the first `max_reported`, row-major order
  bool ok() const { return shapes_match && mismatch_count == 0; }
  // "12 of 4096 elements differ (max abs 0.5, max rel 1e-2); first: [0,3] actual 1.5 expected 1"
  std::string ToString() const;
};

// Compares `actual` with `expected` elementwise. Shapes must agree in element type and
// dimensions (layouts ignored). Integers and pred compare exactly; floats and complex with
// tolerance; inf only equals inf of the same sign. A complex value with a NaN in either
// part is NaN as a whole (matching another such value when nan_equal), and one with an
// infinite part matches only an identical value.
CompareResult CompareLiterals(const Literal& actual, const Literal& expected,
                              const CompareOptions& options = {});

// Tolerances suited to an element type (looser for bf16/f16/f8): two units in the last
// place at magnitude 1 for the narrow floats, room for reassociated sums for f32/f64;
// atol equals rtol. The table is in literal_compare.cc.
CompareOptions DefaultToleranceFor(PrimitiveType type);

}  // namespace fusebox::interpreter
