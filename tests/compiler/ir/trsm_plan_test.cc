// Triangular solves as cuBLAS trsm plans: each plan is run on the host as cuBLAS defines its
// column-major trsm (RunTrsmPlanOnHost) on the row-major buffers the GPU runtime would
// pass, and held against the interpreter's `triangular-solve`, for both sides, both
// triangles, the three ops, unit and non-unit diagonals, batches, f32, f64, c64 and c128,
// with noise in the triangle the solve must not read. What cuBLAS cannot run is refused.
#include "compiler/ir/trsm_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

// Real numbers of a literal (complex elements as two).
std::vector<double> Reals(const Literal& literal) {
  std::vector<double> out;
  const int64_t n = literal.element_count();
  for (int64_t i = 0; i < n; ++i) {
    const std::complex<double> v = literal.GetComplex(i);
    out.push_back(v.real());
    if (literal.shape().element_type() == PrimitiveType::kC64 ||
        literal.shape().element_type() == PrimitiveType::kC128) {
      out.push_back(v.imag());
    }
  }
  return out;
}

// a: a well-conditioned triangle (diagonal 2..3), and large values elsewhere that a solve
// reading the wrong triangle or the diagonal of a unit solve would pick up.
Literal MatrixA(const Shape& shape) {
  Literal literal(shape);
  const int64_t k = shape.dimensions(shape.rank() - 1);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const int64_t r = i / k % k, c = i % k;
    const double re = r == c ? 2 + 0.5 * std::sin(0.3 * static_cast<double>(i)) : 0.4 * std::sin(0.7 * static_cast<double>(i) + 1);
    const double im = r == c ? 0.3 : 0.2 * std::cos(0.9 * static_cast<double>(i));
    literal.SetComplex(i, {re, im});
  }
  return literal;
}

Literal MatrixB(const Shape& shape) {
  Literal literal(shape);
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    literal.SetComplex(i, {std::cos(0.41 * static_cast<double>(i)), std::sin(0.23 * static_cast<double>(i) + 2)});
  }
  return literal;
}

void ExpectPlanSolves(const std::string& type, const std::string& a_dims, const std::string& b_dims, bool left,
                      bool lower, const std::string& transpose, bool unit) {
  const std::string line = type + b_dims + " triangular-solve(a, b), left_side=" + (left ? "true" : "false") +
                           ", lower=" + (lower ? "true" : "false") + ", unit_diagonal=" + (unit ? "true" : "false") +
                           ", transpose_a=" + transpose;
  SCOPED_TRACE(line);
  auto module = ParseModule("HloModule m\nENTRY e {\n  a = " + type + a_dims + " parameter(0)\n  b = " + type + b_dims +
                            " parameter(1)\n  ROOT x = " + line + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  const Instruction* solve = (*module)->entry()->root();
  auto plan = PlanTriangularSolve(*solve);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<Literal> args = {MatrixA(solve->operand(0)->shape()), MatrixB(solve->operand(1)->shape())};
  auto want = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  Literal got = args[1];  // the runtime copies b into the result, then solves in place
  ASSERT_TRUE(RunTrsmPlanOnHost(*plan, args[0].untyped_data(), got.untyped_data()).ok());
  const std::vector<double> g = Reals(got), w = Reals(*want);
  ASSERT_EQ(g.size(), w.size());
  const double tolerance = type == "f32" || type == "c64" ? 2e-5 : 1e-12;
  for (size_t i = 0; i < g.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], tolerance * (1 + std::fabs(w[i]))) << "real " << i << " of " << plan->ToString();
  }
}

TEST(TrsmPlanTest, EveryFormMatchesTheInterpreter) {
  for (const char* type : {"f32", "f64", "c64", "c128"}) {
    const std::string t = type;
    for (bool left : {true, false}) {
      for (bool lower : {true, false}) {
        for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          for (bool unit : {false, true}) {
            // b is 5 x 3: a is 5 x 5 on the left, 3 x 3 on the right; then a batch of 2 x 2.
            ExpectPlanSolves(t, left ? "[5,5]" : "[3,3]", "[5,3]", left, lower, transpose, unit);
            ExpectPlanSolves(t, left ? "[2,2,4,4]" : "[2,2,6,6]", "[2,2,4,6]", left, lower, transpose, unit);
          }
        }
      }
    }
  }
}

// cuBLAS's arguments: the side and the triangle flip, op and the diagonal stay; B' is b's
// last dimension by its second last.
TEST(TrsmPlanTest, PlansTheTransposedProblem) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f32[3,8,8] parameter(0)
  b = f32[3,8,16] parameter(1)
  ROOT x = f32[3,8,16] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=TRANSPOSE
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto plan = PlanTriangularSolve(*(*module)->entry()->root());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->side, 1);
  EXPECT_EQ(plan->fill, 1);
  EXPECT_EQ(plan->op, 1);
  EXPECT_EQ(plan->diag, 1);
  EXPECT_EQ(plan->m, 16);
  EXPECT_EQ(plan->n, 8);
  EXPECT_EQ(plan->lda, 8);
  EXPECT_EQ(plan->ldb, 16);
  EXPECT_EQ(plan->batch, 3);
  EXPECT_EQ(plan->a_stride, 64);
  EXPECT_EQ(plan->b_stride, 128);
  EXPECT_EQ(plan->flops, 8 * 8 * 16 * 3);
  EXPECT_EQ(plan->ToString(), "cublasStrsmBatched side=R fill=U op=T diag=U m=16 n=8 batch=3");
}

TEST(TrsmPlanTest, RefusesWhatCublasCannotSolve) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  a = f16[4,4] parameter(0)
  b = f16[4,2] parameter(1)
  ROOT x = f16[4,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto plan = PlanTriangularSolve(*(*module)->entry()->root());
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("x (triangular-solve): of f16"), std::string::npos) << plan.status().message();
}

}  // namespace
}  // namespace fusebox
