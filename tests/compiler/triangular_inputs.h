// Arguments for linear-algebra test modules. TriangularSolveArguments: parameters 0, 2, ...
// are the matrices ([..., k, k], a diagonal of about 4 so every solve is well
// conditioned), parameters 1, 3, ... the right-hand sides; real and imaginary parts set (an
// imaginary part is dropped for real types). kCholeskyOpsModule and CholeskyOpsArguments:
// XLA's `cholesky` op, lower and upper, with Hermitian positive definite operands except
// one matrix of the f32 batch.
#pragma once

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"

namespace fusebox::testing_util {

inline std::vector<Literal> TriangularSolveArguments(const Module& module) {
  std::vector<Literal> args;
  for (const Instruction* p : module.entry()->parameters()) {
    Literal literal(p->shape());
    const bool matrix = p->parameter_number() % 2 == 0;
    const int64_t k = p->shape().dimensions(p->shape().rank() - 1);
    for (int64_t i = 0; i < literal.element_count(); ++i) {
      const bool diagonal = matrix && i / k % k == i % k;
      literal.SetComplex(i, {std::sin(0.37 * static_cast<double>(i)) + (diagonal ? 4 : 0),
                             std::cos(0.53 * static_cast<double>(i)) * 0.5});
    }
    args.push_back(std::move(literal));
  }
  return args;
}

inline constexpr const char* kCholeskyOpsModule = R"(HloModule m
ENTRY e {
  a = f32[3,5,5] parameter(0)
  z = c128[4,4] parameter(1)
  l = f32[3,5,5] cholesky(a), lower=true
  u = c128[4,4] cholesky(z), lower=false
  ROOT t = (f32[3,5,5], c128[4,4]) tuple(l, u)
})";

// x xᴴ + n I for each matrix of kCholeskyOpsModule's parameters, except the f32 batch's
// second matrix, made indefinite at its fourth leading minor (that diagonal entry -4).
inline std::vector<Literal> CholeskyOpsArguments() {
  std::mt19937 rng(5);
  std::normal_distribution<double> normal;
  auto fill = [&](Literal& out, int64_t batch, int64_t n, bool complex) {
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<std::complex<double>> x(static_cast<size_t>(n * n));
      for (auto& v : x) v = {normal(rng), complex ? normal(rng) : 0.0};
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          std::complex<double> sum = i == j ? static_cast<double>(n) : 0.0;
          for (int64_t k = 0; k < n; ++k) sum += x[i * n + k] * std::conj(x[j * n + k]);
          out.SetComplex(b * n * n + i * n + j, sum);
        }
      }
    }
  };
  Literal a(Shape(PrimitiveType::kF32, {3, 5, 5}));
  Literal z(Shape(PrimitiveType::kC128, {4, 4}));
  fill(a, 3, 5, false);
  fill(z, 1, 4, true);
  a.SetComplex(25 + 3 * 5 + 3, -4.0);
  std::vector<Literal> args;
  args.push_back(std::move(a));
  args.push_back(std::move(z));
  return args;
}

// What a run of kCholeskyOpsModule must give against the interpreter's `expected`: the
// factors of the positive definite matrices (zeros above the f32 diagonal), and the
// indefinite matrix all NaN on both sides, as XLA's backends give it.
inline void ExpectCholeskyOpsResult(const Literal& actual, const Literal& expected) {
  const Literal& got_l = actual.tuple_elements()[0];
  const Literal& want_l = expected.tuple_elements()[0];
  for (int64_t i = 0; i < 75; ++i) {
    const double got = got_l.GetDouble(i), want = want_l.GetDouble(i);
    if (i >= 25 && i < 50) {
      EXPECT_TRUE(std::isnan(got)) << "element " << i << " of the indefinite matrix: " << got;
      // The interpreter's too (XLA's meaning, not NaN from the failing column on).
      EXPECT_TRUE(std::isnan(want)) << "element " << i << " of the interpreter's indefinite matrix: " << want;
    } else {
      EXPECT_NEAR(got, want, 1e-5 * (1 + std::abs(want))) << "element " << i;
      if ((i % 25) / 5 < (i % 5)) EXPECT_EQ(got, 0) << "element " << i << " above the diagonal";
    }
  }
  const Literal& got_u = actual.tuple_elements()[1];
  const Literal& want_u = expected.tuple_elements()[1];
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_LE(std::abs(got_u.GetComplex(i) - want_u.GetComplex(i)), 1e-12 * (1 + std::abs(want_u.GetComplex(i))))
        << "element " << i << " of the c128 factor";
  }
}

}  // namespace fusebox::testing_util
