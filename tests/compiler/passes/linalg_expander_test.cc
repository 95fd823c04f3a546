// Triangular solves and Cholesky factorizations: the linalg-expander's loops on the CPU
// backend and the GPU emulator, fused and unfused, against the interpreter (which solves
// and factors in double), for every side, triangle, op(a) and diagonal; and jax's LAPACK
// and cuSOLVER calls that lower to them (attributes, the info output, the other triangle).
#include "compiler/passes/linalg_expander.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/npy.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/backend_config.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

// Values in [-1, 1), plus `diagonal` on the diagonal of each matrix (the last two dims).
Literal Matrices(const Shape& shape, uint64_t seed, double diagonal) {
  Literal literal(shape);
  const int64_t rows = shape.dimensions(shape.rank() - 2), cols = shape.dimensions(shape.rank() - 1);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 7;
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double v = static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
    if ((i / cols) % rows == i % cols) v += diagonal;
    literal.SetDouble(i, v);
  }
  return literal;
}

// m m^T + n I for each matrix of a [batch, n, n] literal: symmetric positive definite.
Literal PositiveDefinite(const Shape& shape, uint64_t seed) {
  const Literal m = Matrices(shape, seed, 0);
  Literal out(shape);
  const int64_t n = shape.dimensions(shape.rank() - 1);
  for (int64_t base = 0; base < out.element_count(); base += n * n) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) s += m.GetDouble(base + i * n + k) * m.GetDouble(base + j * n + k);
        out.SetDouble(base + i * n + j, s);
      }
    }
  }
  return out;
}

// PREFIX0.npy .. PREFIX<count-1>.npy; fewer when one cannot be read (the test then stops).
std::vector<Literal> ReadNpys(const std::string& prefix, int count) {
  std::vector<Literal> literals;
  for (int i = 0; i < count; ++i) {
    auto literal = interpreter::ReadNpy(prefix + std::to_string(i) + ".npy");
    EXPECT_TRUE(literal.ok()) << literal.status().message();
    if (!literal.ok()) break;
    literals.push_back(std::move(*literal));
  }
  return literals;
}

// A call of tests/data/linalg/NAME.* with LAPACK's own results: the module, its inputs and
// the expected outputs (a test checks `ok` before using them).
struct LapackCase {
  bool ok = false;
  std::unique_ptr<Module> module;
  std::vector<Literal> args, want;
};

LapackCase LoadLapackCase(const std::string& name, int inputs, int outputs) {
  LapackCase c;
  const std::string prefix = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/" + name + ".";
  std::ifstream file(prefix + "hlo");
  std::stringstream text;
  text << file.rdbuf();
  auto module = ParseModule(text.str());
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return c;
  c.module = std::move(*module);
  c.args = ReadNpys(prefix + "in", inputs);
  c.want = ReadNpys(prefix + "out", outputs);
  c.ok = static_cast<int>(c.args.size()) == inputs && static_cast<int>(c.want.size()) == outputs;
  return c;
}

// `check` on the interpreter's result, then on the CPU backend's fused and unfused (the GPU
// module compiled: a loop's while runs on the host).
void CheckInterpreterAndBackends(const Module& module, const std::vector<Literal>& args,
                                 const std::function<void(const Literal&, const std::string&)>& check) {
  auto interpreted = interpreter::Interpreter().Run(module, args);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  check(*interpreted, "interpreter");
  RunOnBothBackends(module, args, check, nullptr, GpuRun::kCompileOnly);
}

// The root call of `text` is refused, the message containing `message`.
void ExpectCallRefused(const std::string& text, const std::string& message) {
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto built = BuildLibraryCallComputation(*(*module)->entry()->root(), **module);
  ASSERT_FALSE(built.ok()) << text;
  EXPECT_NE(built.status().message().find(message), std::string::npos) << built.status().message();
}

int64_t Count(const Module& module, Opcode opcode) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += inst->opcode() == opcode;
  }
  return n;
}

void ExpectBackendsMatch(const std::string& text, const std::vector<Literal>& args, PrimitiveType type) {
  SCOPED_TRACE(text);
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  const auto tolerance = interpreter::DefaultToleranceFor(type);
  RunOnBothBackends(
      **module, args,
      [&](const Literal& got, const std::string& which) {
        interpreter::CompareResult cmp = interpreter::CompareLiterals(got, *expected, tolerance);
        EXPECT_TRUE(cmp.ok()) << which << ": " << cmp.ToString();
      },
      [](const Module& optimized, const std::string& which) {
        EXPECT_EQ(Count(optimized, Opcode::kTriangularSolve) + Count(optimized, Opcode::kCholesky), 0) << which;
      },
      // The loops for the GPU too: with its libraries a triangular solve is cuBLAS's trsm
      // (trsm_plan_test, gpu_complex_test).
      GpuRun::kCompileOnlyWithoutLibraries);
}

TEST(LinalgExpanderTest, TriangularSolvesMatchTheInterpreter) {
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
        for (bool unit : {false, true}) {
          const std::string b = left ? "f32[2,5,3]" : "f32[2,3,5]";
          const std::string text = std::string("HloModule t\n\nENTRY e {\n  a = f32[2,5,5] parameter(0)\n  b = ") + b +
                                   " parameter(1)\n  ROOT x = " + b + " triangular-solve(a, b), left_side=" +
                                   (left ? "true" : "false") + ", lower=" + (lower ? "true" : "false") +
                                   ", unit_diagonal=" + (unit ? "true" : "false") + ", transpose_a=" + transpose + "\n}\n";
          auto parsed = ParseModule(text);
          ASSERT_TRUE(parsed.ok()) << parsed.status().message();
          std::vector<Literal> args = {Matrices((*parsed)->entry()->parameter(0)->shape(), 1, 4),
                                       Matrices((*parsed)->entry()->parameter(1)->shape(), 2, 0)};
          ExpectBackendsMatch(text, args, PrimitiveType::kF32);
        }
      }
    }
  }
}

TEST(LinalgExpanderTest, OtherTypesAndOneMatrix) {
  // f64, and bf16 (solved in f32); a matrix without batch dimensions.
  for (const char* type : {"f64", "bf16"}) {
    const std::string t = type;
    const std::string text = "HloModule t\n\nENTRY e {\n  a = " + t + "[4,4] parameter(0)\n  b = " + t +
                             "[4,2] parameter(1)\n  ROOT x = " + t +
                             "[4,2] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}\n";
    auto parsed = ParseModule(text);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    std::vector<Literal> args = {Matrices((*parsed)->entry()->parameter(0)->shape(), 3, 4),
                                 Matrices((*parsed)->entry()->parameter(1)->shape(), 4, 0)};
    ExpectBackendsMatch(text, args, (*parsed)->entry()->root()->shape().element_type());
  }
}

TEST(LinalgExpanderTest, CholeskyMatchesTheInterpreter) {
  for (bool lower : {true, false}) {
    for (const char* shape : {"f32[3,6,6]", "f64[5,5]"}) {
      const std::string text = std::string("HloModule c\n\nENTRY e {\n  a = ") + shape + " parameter(0)\n  ROOT l = " +
                               shape + " cholesky(a), lower=" + (lower ? "true" : "false") + "\n}\n";
      auto parsed = ParseModule(text);
      ASSERT_TRUE(parsed.ok()) << parsed.status().message();
      const Shape& s = (*parsed)->entry()->parameter(0)->shape();
      ExpectBackendsMatch(text, {PositiveDefinite(s, 5)}, s.element_type());
    }
  }
}

// A matrix that is not positive definite comes out all NaN, as XLA's cholesky expander
// selects (where some diagonal square root is NaN), not NaN from its failing column on;
// the others in the batch keep their factors. Interpreter, CPU backend fused and unfused.
TEST(LinalgExpanderTest, CholeskyOfAMatrixNotPositiveDefiniteIsAllNan) {
  for (bool lower : {true, false}) {
    const std::string text = std::string("HloModule c\n\nENTRY e {\n  a = f32[3,4,4] parameter(0)\n  ROOT l = ") +
                             "f32[3,4,4] cholesky(a), lower=" + (lower ? "true" : "false") + "\n}\n";
    Literal a = PositiveDefinite(Shape(PrimitiveType::kF32, {3, 4, 4}), 6);
    a.SetDouble(16 + 2 * 4 + 2, -50);  // matrix 1 fails at its third pivot
    a.SetDouble(32 + 3 * 4 + 3, -50);  // matrix 2 at its last
    ExpectBackendsMatch(text, {a}, PrimitiveType::kF32);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    CheckInterpreterAndBackends(**module, {a}, [&](const Literal& l, const std::string& which) {
      for (int64_t i = 0; i < 16; ++i) {
        EXPECT_FALSE(std::isnan(l.GetDouble(i))) << which << " matrix 0, element " << i;
        EXPECT_TRUE(std::isnan(l.GetDouble(16 + i))) << which << " matrix 1, element " << i;
        EXPECT_TRUE(std::isnan(l.GetDouble(32 + i))) << which << " matrix 2, element " << i;
      }
    });
  }
}

// jax's LAPACK calls: the attributes read, the HLO they lower to, and potrf's info and
// untouched triangle.
TEST(LinalgExpanderTest, LapackAndCusolverCallsReadTheirAttributes) {
  auto attributes_of = [](const std::string& config) {
    auto module = ParseModule("HloModule m\n\nENTRY e {\n  a = f32[2,2] parameter(0)\n  ROOT c = f32[2,2] custom-call(a), "
                              "custom_call_target=\"x\", api_version=API_VERSION_TYPED_FFI, backend_config=" + config + "\n}\n");
    EXPECT_TRUE(module.ok()) << module.status().message();
    return FfiAttributes(*(*module)->entry()->root());
  };
  auto attrs = attributes_of("{diag = 85 : ui8, side = 76 : ui8, lower = true, dims = array<i64: 1, 2>}");
  ASSERT_TRUE(attrs.has_value());
  EXPECT_EQ(attrs->at("diag"), "85");
  EXPECT_EQ(attrs->at("lower"), "true");
  EXPECT_EQ(attrs->at("dims"), "array<i64: 1, 2>");
  EXPECT_FALSE(attributes_of("{\"json\": 1}").has_value());

  const std::string head = "HloModule m\n\nENTRY e {\n  a = f32[3,4,4] parameter(0)\n  b = f32[3,2,4] parameter(1)\n";
  auto trsm = ParseModule(head + "  ROOT x = f32[3,2,4] custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", "
                                 "api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 82 : ui8, "
                                 "trans_x = 67 : ui8, uplo = 85 : ui8}\n}\n");
  ASSERT_TRUE(trsm.ok()) << trsm.status().message();
  auto call = ParseLibraryCall(*(*trsm)->entry()->root());
  ASSERT_TRUE(call.ok()) << call.status().message();
  EXPECT_EQ(call->kind, LibraryCallKind::kTriangularSolve);
  EXPECT_FALSE(call->left_side);
  EXPECT_FALSE(call->lower);
  EXPECT_FALSE(call->unit_diagonal);
  EXPECT_EQ(call->transpose_a, TransposeA::kAdjoint);
  Module scratch("scratch");
  auto lowered = BuildLibraryCallComputation(*(*trsm)->entry()->root(), scratch);
  ASSERT_TRUE(lowered.ok());
  EXPECT_EQ((*lowered)->root()->ToString(),
            "%triangular-solve = f32[3,2,4] triangular-solve(%p, %p.1), left_side=false, lower=false, "
            "unit_diagonal=false, transpose_a=ADJOINT");
  auto bad = ParseModule(head + "  ROOT x = f32[3,2,4] custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", "
                                "backend_config={diag = 78 : ui8, side = 81 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8}\n}\n");
  ASSERT_TRUE(bad.ok());
  auto refused = ParseLibraryCall(*(*bad)->entry()->root());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(), "custom-call x (lapack_strsm_ffi): side = 81 is none of 'LR'");

  auto cusolver = ParseModule("HloModule m\n\nENTRY e {\n  a = f32[2,3,3] parameter(0)\n  ROOT c = (f32[2,3,3], s32[2]) "
                              "custom-call(a), custom_call_target=\"cusolver_potrf_ffi\", backend_config={lower = false}\n}\n");
  ASSERT_TRUE(cusolver.ok()) << cusolver.status().message();
  auto potrf = ParseLibraryCall(*(*cusolver)->entry()->root());
  ASSERT_TRUE(potrf.ok()) << potrf.status().message();
  EXPECT_EQ(potrf->kind, LibraryCallKind::kCholesky);
  EXPECT_FALSE(potrf->lower);
}

TEST(LinalgExpanderTest, PotrfInfoNamesTheFirstMinorThatFailsAndKeepsTheOtherTriangle) {
  auto module = ParseModule("HloModule m\n\nENTRY e {\n  a = f32[3,3,3] parameter(0)\n  ROOT c = (f32[3,3,3], s32[3]) "
                            "custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", backend_config={uplo = 76 : ui8}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  // Matrix 0 positive definite; matrix 1 fails at order 2; matrix 2 at order 1 (a
  // negative first entry).
  Literal a = PositiveDefinite(Shape(PrimitiveType::kF32, {3, 3, 3}), 8);
  a.SetDouble(9 + 4, -100);  // matrix 1, entry (1, 1)
  a.SetDouble(18 + 0, -1);   // matrix 2, entry (0, 0)
  auto got = interpreter::Interpreter().Run(**module, {a});
  ASSERT_TRUE(got.ok()) << got.status().message();
  const Literal& factor = got->tuple_elements()[0];
  const Literal& info = got->tuple_elements()[1];
  EXPECT_EQ(info.GetInt64(0), 0);
  EXPECT_EQ(info.GetInt64(1), 2);
  EXPECT_EQ(info.GetInt64(2), 1);
  // Above the diagonal: a's own values (LAPACK writes only the lower triangle).
  EXPECT_EQ(factor.GetDouble(1), a.GetDouble(1));
  EXPECT_EQ(factor.GetDouble(5), a.GetDouble(5));
  // L L^T = a for the positive definite one.
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = 0;
      for (int64_t k = 0; k <= j; ++k) s += factor.GetDouble(i * 3 + k) * factor.GetDouble(j * 3 + k);
      EXPECT_NEAR(s, a.GetDouble(i * 3 + j), 1e-4) << i << "," << j;
    }
  }
  // The CPU backend agrees, info included (the GPU side compiles).
  RunOnBothBackends(
      **module, {a},
      [&](const Literal& run, const std::string& which) {
        EXPECT_EQ(run.tuple_elements()[1].GetInt64(1), 2) << which;
        EXPECT_EQ(run.tuple_elements()[1].GetInt64(2), 1) << which;
        EXPECT_EQ(run.tuple_elements()[0].GetDouble(1), a.GetDouble(1)) << which;
      },
      nullptr, GpuRun::kCompileOnly);
}

// jax's LU (lapack_sgetrf_ffi): the first largest |a[i, j]| is the pivot (ties go to the
// upper row, as LAPACK's isamax); a zero pivot divides nothing and info names its column
// (from 1); the factors rebuild P a.
TEST(LinalgExpanderTest, LuPivotsAsLapackAndNamesTheFirstZeroPivot) {
  auto module = ParseModule("HloModule m\n\nENTRY e {\n  a = f32[3,3,3] parameter(0)\n  ROOT lu = (f32[3,3,3], s32[3,3], s32[3]) "
                            "custom-call(a), custom_call_target=\"lapack_sgetrf_ffi\", backend_config={}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  Literal a(Shape(PrimitiveType::kF32, {3, 3, 3}));
  const double values[27] = {// 0: a tie for the first pivot (rows 1 and 2, |-4| = |4|): row 1 wins
                             1, 2, 3, -4, 1, 0, 4, 2, 1,
                             // 1: singular, its second column a multiple of the first
                             1, 2, 1, 2, 4, 0, 3, 6, 5,
                             // 2: zeros
                             0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t i = 0; i < 27; ++i) a.SetDouble(i, values[i]);
  auto check = [&](const Literal& got, const std::string& which) {
    const Literal& lu = got.tuple_elements()[0];
    const Literal& pivots = got.tuple_elements()[1];
    const Literal& info = got.tuple_elements()[2];
    EXPECT_EQ(pivots.GetInt64(0), 2) << which;  // row 1 (from 1: 2), not row 2
    EXPECT_EQ(info.GetInt64(0), 0) << which;
    EXPECT_EQ(info.GetInt64(1), 2) << which;
    EXPECT_EQ(info.GetInt64(2), 1) << which;
    for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(pivots.GetInt64(6 + i), i + 1) << which;
    for (int64_t i = 0; i < 27; ++i) EXPECT_TRUE(std::isfinite(lu.GetDouble(i))) << which << " " << i;
    // Matrix 0: L U = P a, P from the pivots.
    double pa[9];
    for (int64_t i = 0; i < 9; ++i) pa[i] = values[i];
    for (int64_t i = 0; i < 3; ++i) {
      const int64_t p = pivots.GetInt64(i) - 1;
      for (int64_t c = 0; c < 3; ++c) std::swap(pa[i * 3 + c], pa[p * 3 + c]);
    }
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t c = 0; c < 3; ++c) {
        double s = 0;
        for (int64_t t = 0; t <= std::min(i, c); ++t) s += (t == i ? 1.0 : lu.GetDouble(i * 3 + t)) * lu.GetDouble(t * 3 + c);
        EXPECT_NEAR(s, pa[i * 3 + c], 1e-5) << which << " " << i << "," << c;
      }
    }
  };
  auto interpreted = interpreter::Interpreter().Run(**module, {a});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  check(*interpreted, "interpreter");
  RunOnBothBackends(**module, {a}, check, nullptr, GpuRun::kCompileOnly);
}

// jax's QR: geqrf then orgqr of the first min(m, n) columns (what jnp.linalg.qr calls),
// for tall, square and wide matrices in a batch, f32 and f64, LAPACK's and cuSOLVER's
// names. From the interpreter: Q has orthonormal columns, Q R = a with R the upper
// triangle, every tau is 0 or in [1, 2] (LAPACK's reflectors: beta = -sign(alpha) |x|);
// then the CPU backend (fused and unfused) against the interpreter, the GPU module
// compiled.
TEST(LinalgExpanderTest, HouseholderQrFactorsAndItsProductIsQ) {
  struct Case {
    int64_t batch, m, n;
    const char* type;
    const char* geqrf;
    const char* orgqr;
  };
  for (const Case& c : {Case{2, 6, 4, "f32", "lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"},
                        Case{1, 5, 5, "f64", "lapack_dgeqrf_ffi", "lapack_dorgqr_ffi"},
                        Case{2, 3, 5, "f32", "cusolver_geqrf_ffi", "cusolver_orgqr_ffi"},
                        Case{3, 1, 1, "f32", "lapack_sgeqrf_ffi", "lapack_sorgqr_ffi"}}) {
    const int64_t k = std::min(c.m, c.n);
    auto dims = [&](std::vector<int64_t> d) {
      std::string out = std::string(c.type) + "[" + std::to_string(c.batch);
      for (int64_t x : d) out += "," + std::to_string(x);
      return out + "]";
    };
    const std::string a = dims({c.m, c.n}), taus = dims({k}), square = dims({c.m, k});
    const std::string text = "HloModule qr\n\nENTRY e {\n  a = " + a + " parameter(0)\n  g = (" + a + ", " + taus +
                             ") custom-call(a), custom_call_target=\"" + c.geqrf + "\", backend_config={}\n  r = " + a +
                             " get-tuple-element(g), index=0\n  t = " + taus + " get-tuple-element(g), index=1\n  s = " +
                             square + " slice(r), slice={[0:" + std::to_string(c.batch) + "], [0:" + std::to_string(c.m) +
                             "], [0:" + std::to_string(k) + "]}\n  q = " + square + " custom-call(s, t), custom_call_target=\"" +
                             c.orgqr + "\", backend_config={}\n  ROOT out = (" + a + ", " + taus + ", " + square +
                             ") tuple(r, t, q)\n}\n";
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Shape shape(std::string(c.type) == "f64" ? PrimitiveType::kF64 : PrimitiveType::kF32, {c.batch, c.m, c.n});
    const Literal input = Matrices(shape, 21, 0);
    const double tolerance = std::string(c.type) == "f64" ? 1e-12 : 2e-6;
    auto interpreted = interpreter::Interpreter().Run(**module, {input});
    ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
    const Literal& r = interpreted->tuple_elements()[0];
    const Literal& t = interpreted->tuple_elements()[1];
    const Literal& q = interpreted->tuple_elements()[2];
    for (int64_t b = 0; b < c.batch; ++b) {
      for (int64_t i = 0; i < k; ++i) {
        const double tau = t.GetDouble(b * k + i);
        EXPECT_TRUE(tau == 0 || (tau >= 1 && tau <= 2)) << "tau " << tau;
        for (int64_t j = 0; j < k; ++j) {  // Q^T Q = I
          double dot = 0;
          for (int64_t row = 0; row < c.m; ++row) dot += q.GetDouble((b * c.m + row) * k + i) * q.GetDouble((b * c.m + row) * k + j);
          EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tolerance) << b << ": column " << i << " . column " << j;
        }
      }
      for (int64_t row = 0; row < c.m; ++row) {  // Q R = a, R the upper triangle of r's first k rows
        for (int64_t col = 0; col < c.n; ++col) {
          double sum = 0;
          for (int64_t i = 0; i <= std::min(col, k - 1); ++i) {
            sum += q.GetDouble((b * c.m + row) * k + i) * r.GetDouble((b * c.m + i) * c.n + col);
          }
          EXPECT_NEAR(sum, input.GetDouble((b * c.m + row) * c.n + col), tolerance * 4) << b << ": " << row << "," << col;
        }
      }
    }
    RunOnBothBackends(
        **module, {input},
        [&](const Literal& got, const std::string& which) {
          for (int64_t e = 0; e < 3; ++e) {
            const Literal& want = interpreted->tuple_elements()[e];
            for (int64_t i = 0; i < want.element_count(); ++i) {
              EXPECT_NEAR(got.tuple_elements()[e].GetDouble(i), want.GetDouble(i), tolerance * 4)
                  << which << ": output " << e << " element " << i;
            }
          }
        },
        nullptr, GpuRun::kCompileOnly);
  }
}

// What QR does not model is an error naming the call: complex matrices (LAPACK's cgeqrf,
// zungqr), taus longer than the columns.
TEST(LinalgExpanderTest, QrCallsItDoesNotModelAreErrorsNamingTheCall) {
  for (const char* text :
       {"HloModule m\n\nENTRY e {\n  a = c64[4,3] parameter(0)\n  ROOT g = (c64[4,3], c64[3]) custom-call(a), "
        "custom_call_target=\"lapack_cgeqrf_ffi\", backend_config={}\n}\n",
        "HloModule m\n\nENTRY e {\n  a = c128[4,3] parameter(0)\n  t = c128[3] parameter(1)\n  ROOT q = c128[4,3] "
        "custom-call(a, t), custom_call_target=\"lapack_zungqr_ffi\", backend_config={}\n}\n",
        "HloModule m\n\nENTRY e {\n  a = f32[4,3] parameter(0)\n  t = f32[4] parameter(1)\n  ROOT q = f32[4,3] "
        "custom-call(a, t), custom_call_target=\"lapack_sorgqr_ffi\", backend_config={}\n}\n"}) {
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Instruction* call = (*module)->entry()->root();
    // Complex calls read (the CPU runtime runs them through LAPACK) but have no plain HLO;
    // the f32 one's taus do not fit its matrix.
    auto parsed = ParseLibraryCall(*call);
    auto built = BuildLibraryCallComputation(*call, **module);
    ASSERT_FALSE(built.ok()) << text;
    EXPECT_NE(built.status().message().find(call->name()), std::string::npos) << built.status().message();
    if (call->operand(0)->shape().element_type() == PrimitiveType::kF32) {
      EXPECT_FALSE(parsed.ok()) << text;
    } else {
      EXPECT_TRUE(parsed.ok()) << parsed.status().message();
      EXPECT_NE(built.status().message().find("has no plain-HLO model"), std::string::npos) << built.status().message();
      EXPECT_FALSE(HasPlainHloModel(*call));
    }
  }
}

// jax's eigh (lapack_?syevd_ffi, cusolver_syevd_ffi): from the interpreter and from the CPU
// backend (fused and unfused): eigenvalues ascending, orthonormal vectors, A V = V diag(w)
// with A the symmetric matrix of the triangle the call reads (the other triangle holds
// noise), info 0 (1 for a NaN). Odd and even orders, 1 x 1, a repeated eigenvalue, f32 and
// f64; the GPU emulator's run of cuSOLVER's plan too. Vectors are compared through these identities, not entry
// by entry: each is unique only up to sign.
TEST(LinalgExpanderTest, SymmetricEigenDecomposes) {
  struct Case {
    int64_t batch, n;
    const char* type;
    const char* target;
    const char* attributes;
    bool lower;
    bool repeated;  // 2 I (every eigenvalue the same)
  };
  for (const Case& c : {Case{2, 7, "f32", "lapack_ssyevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}", true, false},
                        Case{1, 6, "f64", "lapack_dsyevd_ffi", "{mode = 86 : ui8, uplo = 85 : ui8}", false, false},
                        Case{3, 1, "f32", "lapack_ssyevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}", true, false},
                        Case{1, 2, "f32", "cusolver_syevd_ffi", "{algorithm = 0 : ui8, lower = true}", true, false},
                        Case{1, 5, "f32", "lapack_ssyevd_ffi", "{mode = 86 : ui8, uplo = 76 : ui8}", true, true}}) {
    const std::string n = std::to_string(c.n), batch = std::to_string(c.batch);
    const std::string a = std::string(c.type) + "[" + batch + "," + n + "," + n + "]";
    const std::string w = std::string(c.type) + "[" + batch + "," + n + "]";
    const std::string text = "HloModule eigh\n\nENTRY e {\n  a = " + a + " parameter(0)\n  ROOT eigh = (" + a + ", " + w +
                             ", s32[" + batch + "]) custom-call(a), custom_call_target=\"" + c.target +
                             "\", backend_config=" + c.attributes + "\n}\n";
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const bool f64 = std::string(c.type) == "f64";
    const Shape shape(f64 ? PrimitiveType::kF64 : PrimitiveType::kF32, {c.batch, c.n, c.n});
    Literal input = Matrices(shape, 9, 0);
    if (c.repeated) {
      for (int64_t i = 0; i < input.element_count(); ++i) input.SetDouble(i, (i / c.n) % c.n == i % c.n ? 2 : 0);
    }
    // The symmetric matrix of the triangle read.
    auto entry = [&](int64_t b, int64_t i, int64_t j) {
      const bool in_triangle = c.lower ? i >= j : i <= j;
      return in_triangle ? input.GetDouble((b * c.n + i) * c.n + j) : input.GetDouble((b * c.n + j) * c.n + i);
    };
    const double tolerance = f64 ? 1e-12 : 4e-6;
    auto check = [&](const Literal& got, const std::string& which) {
      const Literal& v = got.tuple_elements()[0];
      const Literal& values = got.tuple_elements()[1];
      const Literal& info = got.tuple_elements()[2];
      for (int64_t b = 0; b < c.batch; ++b) {
        EXPECT_EQ(info.GetInt64(b), 0) << which;
        for (int64_t j = 0; j + 1 < c.n; ++j) {
          EXPECT_LE(values.GetDouble(b * c.n + j), values.GetDouble(b * c.n + j + 1)) << which << ": ascending";
        }
        for (int64_t i = 0; i < c.n; ++i) {
          for (int64_t j = 0; j < c.n; ++j) {
            double gram = 0, av = 0;
            for (int64_t r = 0; r < c.n; ++r) {
              gram += v.GetDouble((b * c.n + r) * c.n + i) * v.GetDouble((b * c.n + r) * c.n + j);
              av += entry(b, i, r) * v.GetDouble((b * c.n + r) * c.n + j);
            }
            EXPECT_NEAR(gram, i == j ? 1.0 : 0.0, tolerance) << which << ": V^T V at " << i << "," << j;
            EXPECT_NEAR(av, v.GetDouble((b * c.n + i) * c.n + j) * values.GetDouble(b * c.n + j), 2 * tolerance)
                << which << ": (A V - V diag(w)) at " << i << "," << j;
          }
        }
      }
    };
    auto interpreted = interpreter::Interpreter().Run(**module, {input});
    ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
    check(*interpreted, "interpreter");
    if (c.repeated) {
      for (int64_t j = 0; j < c.n; ++j) EXPECT_EQ(interpreted->tuple_elements()[1].GetDouble(j), 2.0);
    }
    // The GPU emulator runs the call as cuSOLVER's syevj or syevd plan on the host.
    RunOnBothBackends(**module, {input}, check);
    // The loader says that the vectors' signs are not the library's to compare.
    const std::vector<std::string> notes = LibraryCallNotes(**module);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("%eigh (line 5): " + std::string(c.target) + ": the eigenvalues"), std::string::npos)
        << notes[0];
    EXPECT_NE(notes[0].find("unique only up to sign"), std::string::npos) << notes[0];
  }
}

TEST(LinalgExpanderTest, SymmetricEigenOfANanIsInfoOne) {
  auto module = ParseModule(
      "HloModule m\n\nENTRY e {\n  a = f32[2,3,3] parameter(0)\n  ROOT eigh = (f32[2,3,3], f32[2,3], s32[2]) "
      "custom-call(a), custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 86 : ui8, uplo = 76 : "
      "ui8}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  Literal a = Matrices(Shape(PrimitiveType::kF32, {2, 3, 3}), 4, 3);
  a.SetDouble(9 + 3, std::nan(""));  // matrix 1, row 1, column 0: in the lower triangle
  auto got = interpreter::Interpreter().Run(**module, {a});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->tuple_elements()[2].GetInt64(0), 0);
  EXPECT_EQ(got->tuple_elements()[2].GetInt64(1), 1);
}

// jax's SVD (lapack_?gesdd_ffi) from the interpreter and the CPU backend (fused and
// unfused): singular values descending and >= 0, U's and V's columns orthonormal (all m of
// U's for mode 'A', completed where singular values are 0), U diag(s) V^T = a; tall, wide,
// square and rank deficient (two equal columns), f32 and f64, 1 x 1, mode 'N' (u and vt
// zeros). The vectors are compared through these identities: a pair is unique only up to
// sign.
TEST(LinalgExpanderTest, SingularValueDecompositionFactors) {
  struct Case {
    int64_t batch, m, n;
    const char* type;
    char mode;
    bool repeated_column;
  };
  for (const Case& c : {Case{2, 6, 4, "f32", 'S', false}, Case{1, 3, 5, "f32", 'A', false},
                        Case{1, 5, 5, "f32", 'A', true}, Case{2, 4, 3, "f64", 'S', false},
                        Case{1, 1, 1, "f32", 'A', false}, Case{1, 4, 7, "f32", 'N', false}}) {
    const int64_t k = std::min(c.m, c.n);
    const int64_t ucols = c.mode == 'A' ? c.m : k, vrows = c.mode == 'A' ? c.n : k;
    auto dims = [&](std::vector<int64_t> d) {
      std::string out = std::string(c.type) + "[" + std::to_string(c.batch);
      for (int64_t x : d) out += "," + std::to_string(x);
      return out + "]";
    };
    const std::string a = dims({c.m, c.n});
    const std::string text = "HloModule svd\n\nENTRY e {\n  a = " + a + " parameter(0)\n  ROOT svd = (" + a + ", " +
                             dims({k}) + ", " + dims({c.m, ucols}) + ", " + dims({vrows, c.n}) + ", s32[" +
                             std::to_string(c.batch) + "]) custom-call(a), custom_call_target=\"lapack_" +
                             (std::string(c.type) == "f64" ? "d" : "s") + "gesdd_ffi\", backend_config={mode = " +
                             std::to_string(static_cast<int>(c.mode)) + " : ui8}\n}\n";
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const bool f64 = std::string(c.type) == "f64";
    Literal input = Matrices(Shape(f64 ? PrimitiveType::kF64 : PrimitiveType::kF32, {c.batch, c.m, c.n}), 13, 0);
    if (c.repeated_column) {
      for (int64_t row = 0; row < c.m; ++row) input.SetDouble(row * c.n + 2, input.GetDouble(row * c.n + 1));
    }
    const double tolerance = f64 ? 1e-12 : 2e-6;
    auto check = [&](const Literal& got, const std::string& which) {
      const Literal& values = got.tuple_elements()[1];
      const Literal& u = got.tuple_elements()[2];
      const Literal& vt = got.tuple_elements()[3];
      for (int64_t b = 0; b < c.batch; ++b) {
        EXPECT_EQ(got.tuple_elements()[4].GetInt64(b), 0) << which;
        for (int64_t j = 0; j < k; ++j) {
          EXPECT_GE(values.GetDouble(b * k + j), 0) << which;
          if (j + 1 < k) {
            EXPECT_GE(values.GetDouble(b * k + j), values.GetDouble(b * k + j + 1)) << which << ": descending";
          }
        }
        if (c.mode == 'N') {
          for (int64_t i = 0; i < u.element_count(); ++i) EXPECT_EQ(u.GetDouble(i), 0) << which;
          // The singular values are the square roots of a^T a's eigenvalues: their squares
          // sum to |a|_F^2.
          double frobenius = 0, squares = 0;
          for (int64_t i = 0; i < c.m * c.n; ++i) frobenius += std::pow(input.GetDouble(b * c.m * c.n + i), 2);
          for (int64_t j = 0; j < k; ++j) squares += std::pow(values.GetDouble(b * k + j), 2);
          EXPECT_NEAR(squares, frobenius, tolerance * frobenius) << which;
          continue;
        }
        for (int64_t i = 0; i < ucols; ++i) {  // U^T U = I
          for (int64_t j = 0; j < ucols; ++j) {
            double dot = 0;
            for (int64_t r = 0; r < c.m; ++r) dot += u.GetDouble((b * c.m + r) * ucols + i) * u.GetDouble((b * c.m + r) * ucols + j);
            EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 2 * tolerance) << which << ": U^T U at " << i << "," << j;
          }
        }
        for (int64_t i = 0; i < vrows; ++i) {  // V^T's rows orthonormal
          for (int64_t j = 0; j < vrows; ++j) {
            double dot = 0;
            for (int64_t r = 0; r < c.n; ++r) dot += vt.GetDouble((b * vrows + i) * c.n + r) * vt.GetDouble((b * vrows + j) * c.n + r);
            EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 2 * tolerance) << which << ": V^T V at " << i << "," << j;
          }
        }
        for (int64_t r = 0; r < c.m; ++r) {  // U diag(s) V^T = a
          for (int64_t col = 0; col < c.n; ++col) {
            double sum = 0;
            for (int64_t j = 0; j < k; ++j) {
              sum += u.GetDouble((b * c.m + r) * ucols + j) * values.GetDouble(b * k + j) * vt.GetDouble((b * vrows + j) * c.n + col);
            }
            EXPECT_NEAR(sum, input.GetDouble((b * c.m + r) * c.n + col), 4 * tolerance) << which << ": at " << r << "," << col;
          }
        }
      }
    };
    auto interpreted = interpreter::Interpreter().Run(**module, {input});
    ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
    check(*interpreted, "interpreter");
    if (c.repeated_column) {  // rank 4 of 5: the last singular value is 0
      EXPECT_NEAR(interpreted->tuple_elements()[1].GetDouble(4), 0, 1e-6);
    }
    RunOnBothBackends(**module, {input}, check, nullptr, GpuRun::kCompileOnly);
    const std::vector<std::string> notes = LibraryCallNotes(**module);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("each pair of singular vectors is unique only up to a common sign"), std::string::npos)
        << notes[0];
  }
}

// jax's GPU pivots to permutation (cu_lu_pivots_to_permutation): the identity, then row i
// and row pivots[i] swapped in order; a pivot outside the permutation swaps nothing.
TEST(LinalgExpanderTest, PivotsBecomeThePermutationTheirSwapsMake) {
  auto module = ParseModule(
      "HloModule m\n\nENTRY e {\n  p = s32[2,3] parameter(0)\n  ROOT perm = s32[2,4] custom-call(p), "
      "custom_call_target=\"cu_lu_pivots_to_permutation\", backend_config={}\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  Literal pivots(Shape(PrimitiveType::kS32, {2, 3}));
  const int64_t values[6] = {2, 2, 3,     // 0<->2, 1<->2, 2<->3: [2, 0, 3, 1]
                             -1, 7, 0};  // nothing, nothing, 2<->0: [2, 1, 0, 3]
  for (int64_t i = 0; i < 6; ++i) pivots.SetInt64(i, values[i]);
  const int64_t want[8] = {2, 0, 3, 1, 2, 1, 0, 3};
  auto check = [&](const Literal& got, const std::string& which) {
    for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(got.GetInt64(i), want[i]) << which << " " << i;
  };
  auto interpreted = interpreter::Interpreter().Run(**module, {pivots});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  check(*interpreted, "interpreter");
  // As jax's one kernel: no loop, and one fused kernel on both backends (the emulator runs
  // it, which it cannot a loop).
  auto one_kernel = [](const Module& optimized, const std::string& which) {
    if (which.find(" fused") == std::string::npos) return;
    int loops = 0, kernels = 0;
    for (const auto& computation : optimized.computations()) {
      for (const auto& inst : computation->instructions()) loops += inst->opcode() == Opcode::kWhile;
    }
    for (const auto& inst : optimized.entry()->instructions()) kernels += inst->opcode() == Opcode::kFusion;
    EXPECT_EQ(loops, 0) << which;
    EXPECT_EQ(kernels, 1) << which << "\n" << optimized.ToString();
  };
  RunOnBothBackends(**module, {pivots}, check, one_kernel);

  // 70 pivots of 80 rows (a loop of kernels over blocks of them), against the swaps done
  // one by one; pivots that repeat, point back, or out of range.
  auto long_module = ParseModule(
      "HloModule m\n\nENTRY e {\n  p = s32[3,70] parameter(0)\n  ROOT perm = s32[3,80] custom-call(p), "
      "custom_call_target=\"cu_lu_pivots_to_permutation\", backend_config={}\n}\n");
  ASSERT_TRUE(long_module.ok()) << long_module.status().message();
  Literal long_pivots(Shape(PrimitiveType::kS32, {3, 70}));
  std::vector<int64_t> long_want(3 * 80);
  for (int64_t b = 0; b < 3; ++b) {
    std::vector<int64_t> perm(80);
    for (int64_t r = 0; r < 80; ++r) perm[static_cast<size_t>(r)] = r;
    for (int64_t i = 0; i < 70; ++i) {
      const int64_t p = b == 2 && i % 7 == 3 ? 80 + i : (i * 37 + b * 11) % 80;
      long_pivots.SetInt64(b * 70 + i, p);
      if (p >= 0 && p < 80) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(p)]);
    }
    for (int64_t r = 0; r < 80; ++r) long_want[static_cast<size_t>(b * 80 + r)] = perm[static_cast<size_t>(r)];
  }
  auto long_check = [&](const Literal& got, const std::string& which) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < 3 * 80; ++i) wrong += got.GetInt64(i) != long_want[static_cast<size_t>(i)];
    EXPECT_EQ(wrong, 0) << which;
  };
  auto long_interpreted = interpreter::Interpreter().Run(**long_module, {long_pivots});
  ASSERT_TRUE(long_interpreted.ok()) << long_interpreted.status().message();
  long_check(*long_interpreted, "interpreter");
  RunOnBothBackends(**long_module, {long_pivots}, long_check, nullptr, GpuRun::kCompileOnly);
}

// jax's tridiagonal solve (lapack_sgtsv_ffi) with all five results against LAPACK's own
// (tests/data/linalg/gtsv_lapack.*, from scipy's sgtsv, the LAPACK jaxlib calls): rows
// swapped where the sub-diagonal is larger (system 0), none swapped (1), and a zero pivot
// at row 3 (2), where LAPACK returns with info 3 and the arrays as they were at that step.
// Every element bit for bit, info exactly, on the interpreter and the CPU backend, fused
// and unfused (the GPU module compiled: its while loops run on the host); then a complex
// gtsv (LAPACK eliminates otherwise) and a malformed call are errors naming the call.
TEST(LinalgExpanderTest, TridiagonalSolvesEliminateAsLapack) {
  const LapackCase c = LoadLapackCase("gtsv_lapack", 4, 5);
  ASSERT_TRUE(c.ok);
  const std::vector<Literal>& want = c.want;
  ASSERT_EQ(want[4].GetInt64(2), 3);  // the data's zero pivot
  auto check = [&](const Literal& got, const std::string& which) {
    ASSERT_TRUE(got.shape().IsTuple()) << which;
    for (size_t t = 0; t < want.size(); ++t) {
      const Literal& g = got.tuple_elements()[t];
      ASSERT_EQ(g.element_count(), want[t].element_count()) << which << " result " << t;
      int64_t wrong = 0;
      for (int64_t i = 0; i < g.element_count(); ++i) wrong += g.GetDouble(i) != want[t].GetDouble(i);
      EXPECT_EQ(wrong, 0) << which << ": result " << t << ", " << wrong << " of " << g.element_count()
                          << " elements differ from LAPACK's";
    }
  };
  CheckInterpreterAndBackends(*c.module, c.args, check);

  for (const auto& [call, message] : std::vector<std::pair<std::string, std::string>>{
           {"(c64[4], c64[4], c64[4], c64[4,1], s32[]) custom-call(v, v, v, b), custom_call_target=\"lapack_cgtsv_ffi\"",
            "a tridiagonal solve of c64 is not modelled"},
           {"(c64[4], c64[4], c64[4], c64[4,1], s32[]) custom-call(v, v, b), custom_call_target=\"lapack_cgtsv_ffi\"",
            "takes four operands"}}) {
    ExpectCallRefused("HloModule m\nENTRY e {\n  v = c64[4] parameter(0)\n  b = c64[4,1] parameter(1)\n  ROOT s = " +
                          call + "\n}\n",
                      "custom-call s (lapack_cgtsv_ffi): " + message);
  }
}

// jax's Hessenberg reduction (lapack_sgehrd_ffi) with its three results against LAPACK's
// own (tests/data/linalg/gehrd_lapack.*, scipy's sgehrd): H on and above the sub-diagonal
// and the reflectors below with LAPACK's signs, the taus (0 for a column already zero below
// its sub-diagonal, and for the last), info 0; within the f32 check's bounds (the
// reflectors' sums run in another order than LAPACK's gemv), on the interpreter and the CPU
// backend, fused and unfused. A reduction of part of the matrix (low > 1) is an error
// naming the call.
TEST(LinalgExpanderTest, HessenbergReductionsAsLapack) {
  const LapackCase c = LoadLapackCase("gehrd_lapack", 1, 3);
  ASSERT_TRUE(c.ok);
  const std::vector<Literal>& want = c.want;
  ASSERT_EQ(want[1].GetDouble(5), 0.0);  // the data's zero column
  const auto tolerance = interpreter::DefaultToleranceFor(PrimitiveType::kF32);
  auto check = [&](const Literal& got, const std::string& which) {
    ASSERT_TRUE(got.shape().IsTuple()) << which;
    for (size_t t = 0; t < 3; ++t) {
      const Literal& g = got.tuple_elements()[t];
      const Literal& w = want[t];
      ASSERT_EQ(g.element_count(), w.element_count()) << which;
      interpreter::CompareResult cmp = interpreter::CompareLiterals(g, w, tolerance);
      EXPECT_TRUE(cmp.ok()) << which << ": result " << t << ": " << cmp.ToString();
    }
    EXPECT_EQ(got.tuple_elements()[1].GetDouble(5), 0.0) << which;  // tau 0, exactly
    EXPECT_EQ(got.tuple_elements()[1].GetDouble(4), 0.0) << which;
  };
  CheckInterpreterAndBackends(*c.module, c.args, check);

  ExpectCallRefused(
      "HloModule m\nENTRY e {\n  a = f32[4,4] parameter(0)\n  ROOT h = (f32[4,4], f32[3], s32[]) custom-call(a), "
      "custom_call_target=\"lapack_sgehrd_ffi\", backend_config={high = 4 : i32, low = 2 : i32}\n}\n",
      "custom-call h (lapack_sgehrd_ffi): only the whole matrix (low = 1, high = 4)");
}

// jax's QR with column pivoting (lapack_sgeqp3_ffi) against LAPACK's own
// (tests/data/linalg/geqp3_lapack.*, scipy's sgeqp3): the pivots exactly (one matrix has a
// column nearly parallel to another, whose norm LAPACK recomputes), the factors and taus
// within 2e-4 + 2e-3 |x| (the nearly parallel column's last entries cancel: LAPACK's f32
// and these loops differ by 7e-5 there, 0.07 of the f64 shadow's bound that
// CliCpuRunTest.JaxLapackCallsMatchLapack applies), on the interpreter and the CPU
// backend; a jpvt that is not
// known to be all zeros (LAPACK would fix its nonzero columns in front) is an error naming
// the call.
TEST(LinalgExpanderTest, PivotingQrChoosesLapacksPivots) {
  const LapackCase c = LoadLapackCase("geqp3_lapack", 1, 3);
  ASSERT_TRUE(c.ok);
  const std::vector<Literal>& want = c.want;
  interpreter::CompareOptions tolerance = interpreter::DefaultToleranceFor(PrimitiveType::kF32);
  tolerance.atol = 2e-4;
  tolerance.rtol = 2e-3;
  auto check = [&](const Literal& got, const std::string& which) {
    ASSERT_TRUE(got.shape().IsTuple()) << which;
    for (size_t t : {size_t{0}, size_t{2}}) {
      interpreter::CompareResult cmp = interpreter::CompareLiterals(got.tuple_elements()[t], want[t], tolerance);
      EXPECT_TRUE(cmp.ok()) << which << ": result " << t << ": " << cmp.ToString();
    }
    for (int64_t i = 0; i < want[1].element_count(); ++i) {
      EXPECT_EQ(got.tuple_elements()[1].GetInt64(i), want[1].GetInt64(i)) << which << ": jpvt " << i;
    }
  };
  CheckInterpreterAndBackends(*c.module, c.args, check);

  ExpectCallRefused(
      "HloModule m\nENTRY e {\n  a = f32[4,3] parameter(0)\n  j = s32[3] parameter(1)\n  ROOT q = (f32[4,3], s32[3], f32[3]) "
      "custom-call(a, j), custom_call_target=\"lapack_sgeqp3_ffi\"\n}\n",
      "custom-call q (lapack_sgeqp3_ffi): jpvt %j is not known to be all zeros");
}

// ragged-dot (jax's ragged_dot and its gradients): rows grouped onto rhs [g, k, n] and
// [g, n, k], and ragged contracted rows (out [g, k, n]); group sizes with an empty group, a
// negative size (counts as 0), rows left past the last group (zeros) and sizes past m
// (cut). The interpreter against sums written here; the CPU backend and the GPU emulator,
// fused and unfused, against the interpreter; another form is an error naming it.
TEST(LinalgExpanderTest, RaggedDotGroupsRowsAsJaxDefinesIt) {
  struct Case {
    const char* rhs;
    const char* out;
    const char* dims;
    int mode;  // 0: rows, rhs [g, k, n]; 1: rows, rhs [g, n, k]; 2: ragged contracting
  };
  const int64_t m = 9, k = 3, n = 2, g = 4;
  for (const Case& c : {Case{"f32[4,3,2]", "f32[9,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}", 0},
                        Case{"f32[4,2,3]", "f32[9,2]", "lhs_contracting_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={0}, rhs_group_dims={0}", 1},
                        Case{"f32[9,2]", "f32[4,3,2]", "lhs_contracting_dims={0}, rhs_contracting_dims={0}, lhs_ragged_dims={0}", 2}}) {
    for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{2, 0, 3, 1}, std::vector<int64_t>{4, -2, 3, 5}}) {
      const std::string text = std::string("HloModule r\n\nENTRY e {\n  a = f32[9,3] parameter(0)\n  b = ") + c.rhs +
                               " parameter(1)\n  s = s32[4] parameter(2)\n  ROOT d = " + c.out +
                               " ragged-dot(a, b, s), " + c.dims + "\n}\n";
      SCOPED_TRACE(text);
      auto module = ParseModule(text);
      ASSERT_TRUE(module.ok()) << module.status().message();
      std::vector<Literal> args;
      args.push_back(Matrices(Shape(PrimitiveType::kF32, {m, k}), 3, 0));
      args.push_back(Matrices((*module)->entry()->parameter(1)->shape(), 5, 0));
      Literal s32(Shape(PrimitiveType::kS32, {g}));
      for (int64_t j = 0; j < g; ++j) s32.SetInt64(j, sizes[j]);
      args.push_back(std::move(s32));
      // Each row's group: the first j with row < start_j + max(0, size_j); none past them.
      std::vector<int64_t> group_of(m, -1);
      int64_t start = 0;
      for (int64_t j = 0; j < g; ++j) {
        const int64_t size = std::max<int64_t>(0, sizes[j]);
        for (int64_t r = start; r < std::min(m, start + size); ++r) group_of[r] = j;
        start += size;
      }
      Literal want((*module)->entry()->root()->shape());
      const Literal& a = args[0];
      const Literal& b = args[1];
      if (c.mode < 2) {
        for (int64_t r = 0; r < m; ++r) {
          for (int64_t col = 0; col < n; ++col) {
            double sum = 0;
            for (int64_t t = 0; t < k && group_of[r] >= 0; ++t) {
              const int64_t j = group_of[r];
              sum += a.GetDouble(r * k + t) * b.GetDouble(c.mode == 0 ? (j * k + t) * n + col : (j * n + col) * k + t);
            }
            want.SetDouble(r * n + col, sum);
          }
        }
      } else {
        for (int64_t j = 0; j < g; ++j) {
          for (int64_t t = 0; t < k; ++t) {
            for (int64_t col = 0; col < n; ++col) {
              double sum = 0;
              for (int64_t r = 0; r < m; ++r) {
                if (group_of[r] == j) sum += a.GetDouble(r * k + t) * b.GetDouble(r * n + col);
              }
              want.SetDouble((j * k + t) * n + col, sum);
            }
          }
        }
      }
      auto interpreted = interpreter::Interpreter().Run(**module, args);
      ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
      for (int64_t i = 0; i < want.element_count(); ++i) {
        EXPECT_NEAR(interpreted->GetDouble(i), want.GetDouble(i), 1e-6) << "interpreter " << i;
      }
      RunOnBothBackends(
          **module, args,
          [&](const Literal& got, const std::string& which) {
            for (int64_t i = 0; i < want.element_count(); ++i) {
              EXPECT_NEAR(got.GetDouble(i), interpreted->GetDouble(i), 1e-5) << which << " " << i;
            }
          },
          [](const Module& optimized, const std::string& which) {
            EXPECT_EQ(Count(optimized, Opcode::kRaggedDot), 0) << which;
          });
    }
  }
  // A batch dimension: not a form Fusebox models, named.
  auto batched = ParseModule(
      "HloModule r\n\nENTRY e {\n  a = f32[2,9,3] parameter(0)\n  b = f32[2,4,3,2] parameter(1)\n  s = s32[4] "
      "parameter(2)\n  ROOT d = f32[2,9,2] ragged-dot(a, b, s), lhs_batch_dims={0}, rhs_batch_dims={0}, "
      "lhs_contracting_dims={2}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={1}\n}\n");
  ASSERT_TRUE(batched.ok()) << batched.status().message();
  auto refused = ReadRaggedDot(*(*batched)->entry()->root());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("%d (ragged-dot): only"), std::string::npos) << refused.status().message();
}

// `fusebox run --seed` gives a Cholesky factorization positive definite matrices (through
// jax's symmetrization), so that a random run factors instead of returning NaN.
TEST(LinalgExpanderTest, RandomInputsOfACholeskyArePositiveDefinite) {
  auto module = ParseModule(R"(HloModule c

ENTRY e {
  a = f32[2,5,5] parameter(0)
  t = f32[2,5,5] transpose(a), dimensions={0,2,1}
  s = f32[2,5,5] add(a, t)
  two = f32[] constant(2)
  h = f32[2,5,5] broadcast(two), dimensions={}
  m = f32[2,5,5] divide(s, h)
  ROOT l = f32[2,5,5] cholesky(m), lower=true
}
)");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto choices = interpreter::ExplainRandomArguments(**module);
  ASSERT_TRUE(choices.ok()) << choices.status().message();
  EXPECT_EQ((*choices)[0].distribution, "symmetric positive definite matrices m·mᵀ/n + I, m uniform [-1, 1)");
  EXPECT_EQ((*choices)[0].reason.rfind("reaches cholesky (%l), a Cholesky factorization through", 0), 0u)
      << (*choices)[0].reason;
  for (uint64_t seed : {1, 2, 3}) {
    auto args = interpreter::RandomArguments(**module, seed);
    ASSERT_TRUE(args.ok());
    const Literal& a = (*args)[0];
    for (int64_t i = 0; i < 5; ++i) {
      for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(a.GetDouble(25 + i * 5 + j), a.GetDouble(25 + j * 5 + i));
    }
    auto l = interpreter::Interpreter().Run(**module, *args);
    ASSERT_TRUE(l.ok());
    for (int64_t i = 0; i < l->element_count(); ++i) ASSERT_TRUE(std::isfinite(l->GetDouble(i))) << i;
  }
}

}  // namespace
}  // namespace fusebox
