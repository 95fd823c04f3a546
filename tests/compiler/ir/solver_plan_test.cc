// Cholesky and LU calls as cuSOLVER / cuBLAS plans: the routine jaxlib picks, the fill mode
// flipped for the row-major buffers, the transposed LU's column-major sizes; each plan run
// on the host as the solvers define potrf and getrf (RunSolverPlanOnHost) on the buffers
// the GPU runtime would pass, held against the interpreter's plain model of the call
// (factor, pivots, info), for batches, both triangles, f32, f64, c64 and c128, wide and
// tall LU, a singular matrix and one that is not positive definite. What the solvers
// cannot run is refused by name.
#include "compiler/ir/solver_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

std::unique_ptr<Module> Parse(const std::string& text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message() << "\n" << text;
  return module.ok() ? std::move(*module) : nullptr;
}

std::string PotrfModule(const std::string& type, const std::string& dims, const std::string& batch, bool lower) {
  return "HloModule m\nENTRY e {\n  a = " + type + dims + " parameter(0)\n  ROOT c = (" + type + dims + ", s32" + batch +
         ") custom-call(a), custom_call_target=\"cusolver_potrf_ffi\", api_version=API_VERSION_TYPED_FFI, "
         "backend_config={lower = " + (lower ? "true" : "false") + "}\n}\n";
}

// The GPU pipeline's LU call on t = aᵀ ([..., n, m]).
std::string GetrfModule(const std::string& type, const std::string& dims, const std::string& pivots,
                        const std::string& batch) {
  return "HloModule m\nENTRY e {\n  t = " + type + dims + " parameter(0)\n  ROOT c = (" + type + dims + ", s32" + pivots +
         ", s32" + batch + ") custom-call(t), custom_call_target=\"__fusebox$getrf_transposed\", "
         "api_version=API_VERSION_TYPED_FFI\n}\n";
}

SolverPlan PlanOf(const Module& module) {
  auto plan = PlanSolverCall(*module.entry()->root());
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? *plan : SolverPlan{};
}

TEST(SolverPlanTest, RoutinesAreJaxlibs) {
  auto one = Parse(PotrfModule("f32", "[6,6]", "[]", true));
  SolverPlan plan = PlanOf(*one);
  EXPECT_EQ(plan.routine, SolverRoutine::kPotrf);
  EXPECT_EQ(plan.fill, 1);  // a's lower triangle is the column-major view's upper one
  EXPECT_EQ(plan.ToString(), "cusolverDnSpotrf fill=U n=6");
  auto batch = Parse(PotrfModule("c128", "[2,3,5,5]", "[2,3]", false));
  plan = PlanOf(*batch);
  EXPECT_EQ(plan.routine, SolverRoutine::kPotrfBatched);
  EXPECT_EQ(plan.fill, 0);
  EXPECT_EQ(plan.batch, 6);
  EXPECT_EQ(plan.ToString(), "cusolverDnZpotrfBatched fill=L n=5 batch=6");
  EXPECT_EQ(plan.flops, static_cast<int64_t>(4.0 * 6 * 125 / 3));
  // Several small square matrices: cuBLAS's getrfBatched; one, large ones or wide ones:
  // cuSOLVER's getrf per matrix (jaxlib: batch > 1, square, order / batch <= 128).
  auto small = Parse(GetrfModule("f32", "[4,6,6]", "[4,6]", "[4]"));
  plan = PlanOf(*small);
  EXPECT_EQ(plan.routine, SolverRoutine::kGetrfBatched);
  EXPECT_TRUE(plan.on_cublas());
  EXPECT_EQ(plan.ToString(), "cublasSgetrfBatched m=6 n=6 batch=4");
  auto large = Parse(GetrfModule("f64", "[2,300,300]", "[2,300]", "[2]"));
  plan = PlanOf(*large);
  EXPECT_EQ(plan.routine, SolverRoutine::kGetrf);
  EXPECT_EQ(plan.ToString(), "cusolverDnDgetrf m=300 n=300 x2");
  auto wide = Parse(GetrfModule("f32", "[3,7,3]", "[3,3]", "[3]"));  // a is 3 x 7, its transpose 7 x 3
  plan = PlanOf(*wide);
  EXPECT_EQ(plan.routine, SolverRoutine::kGetrf);
  EXPECT_EQ(plan.m, 3);
  EXPECT_EQ(plan.n, 7);
  EXPECT_EQ(plan.pivots, 3);
}

// The GPU pipeline's QR calls on t = aᵀ: geqrf (a, taus) and orgqr (q of (a, taus)).
std::string GeqrfModule(const std::string& type, const std::string& dims, const std::string& taus) {
  return "HloModule m\nENTRY e {\n  t = " + type + dims + " parameter(0)\n  ROOT c = (" + type + dims + ", " + type +
         taus + ") custom-call(t), custom_call_target=\"__fusebox$geqrf_transposed\", "
         "api_version=API_VERSION_TYPED_FFI\n}\n";
}
std::string OrgqrModule(const std::string& type, const std::string& dims, const std::string& taus) {
  return "HloModule m\nENTRY e {\n  t = " + type + dims + " parameter(0)\n  tau = " + type + taus +
         " parameter(1)\n  ROOT q = " + type + dims +
         " custom-call(t, tau), custom_call_target=\"__fusebox$orgqr_transposed\", api_version=API_VERSION_TYPED_FFI\n}\n";
}

TEST(SolverPlanTest, QrRoutinesAreJaxlibs) {
  // Both sides small against the batch: cuBLAS's geqrfBatched; otherwise cuSOLVER's geqrf.
  auto batched = Parse(GeqrfModule("f32", "[4,3,5]", "[4,3]"));  // a: 4 of 5 x 3
  SolverPlan plan = PlanOf(*batched);
  EXPECT_EQ(plan.routine, SolverRoutine::kGeqrfBatched);
  EXPECT_EQ(plan.ToString(), "cublasSgeqrfBatched m=5 n=3 batch=4");
  auto one = Parse(GeqrfModule("f64", "[4,6]", "[4]"));
  plan = PlanOf(*one);
  EXPECT_EQ(plan.routine, SolverRoutine::kGeqrf);
  EXPECT_EQ(plan.ToString(), "cusolverDnDgeqrf m=6 n=4");
  auto large = Parse(GeqrfModule("f32", "[2,100,300]", "[2,100]"));
  EXPECT_EQ(PlanOf(*large).routine, SolverRoutine::kGeqrf);
  auto product = Parse(OrgqrModule("f32", "[5,5]", "[3]"));
  plan = PlanOf(*product);
  EXPECT_EQ(plan.routine, SolverRoutine::kOrgqr);
  EXPECT_EQ(plan.ToString(), "cusolverDnSorgqr m=5 n=5 k=3");
  // A batch of matrices up to 128 x 128 is jaxlib's own kernel (Fusebox's on the GPU), not
  // a cuSOLVER call; a side over 128 is orgqr per matrix again.
  auto small = Parse(OrgqrModule("f32", "[2,5,5]", "[2,3]"));
  EXPECT_TRUE(OrgqrRunsAsKernel(*small->entry()->root()));
  EXPECT_FALSE(IsSolverCall(*small->entry()->root()));
  auto tall = Parse(OrgqrModule("f32", "[2,5,129]", "[2,3]"));
  EXPECT_FALSE(OrgqrRunsAsKernel(*tall->entry()->root()));
  plan = PlanOf(*tall);
  EXPECT_EQ(plan.ToString(), "cusolverDnSorgqr m=129 n=5 k=3 x2");
}

// Where the GPU runtime sends each call: a small batched orgqr is Fusebox's kernel, never
// a cuDNN call (the runtime once planned every library call that was not a solver's or a
// gemm as a convolution, and refused the QR workload's orgqr on an H200); calls no route
// takes are kNone, which the runtime refuses by name.
TEST(SolverPlanTest, GpuRoutesOfLibraryCalls) {
  auto route = [](const std::string& text) { return GpuRouteOf(*Parse(text)->entry()->root()); };
  EXPECT_EQ(route(OrgqrModule("f32", "[2,5,5]", "[2,3]")), GpuCallRoute::kOwnKernel);
  EXPECT_EQ(route(OrgqrModule("f32", "[2,5,129]", "[2,3]")), GpuCallRoute::kSolver);
  EXPECT_EQ(route(OrgqrModule("f32", "[5,5]", "[3]")), GpuCallRoute::kSolver);
  EXPECT_EQ(route(PotrfModule("f32", "[4,4]", "[]", true)), GpuCallRoute::kSolver);
  const std::string head = "HloModule m\nENTRY e {\n  a = f32[4,4] parameter(0)\n  b = f32[4,4] parameter(1)\n  ROOT c = ";
  EXPECT_EQ(route(head + "(f32[4,4], s8[0]) custom-call(a, b), custom_call_target=\"__cublas$gemm\"\n}\n"),
            GpuCallRoute::kGemm);
  EXPECT_EQ(route(head + "(f32[4,4], s8[0]) custom-call(a, b), custom_call_target=\"__cublas$lt$matmul\"\n}\n"),
            GpuCallRoute::kGemm);
  EXPECT_EQ(route(head + "(f32[4,4], u8[0]) custom-call(a, b), custom_call_target=\"__cudnn$convForward\"\n}\n"),
            GpuCallRoute::kConvolution);
  EXPECT_EQ(route(head + "(f32[4,4], u8[0]) custom-call(a, b), custom_call_target=\"__cudnn$convBackwardFilter\"\n}\n"),
            GpuCallRoute::kConvolution);
  // A triangular solve starts with __cublas but is no gemm: lowered to HLO before the runtime.
  EXPECT_EQ(route(head + "(f32[4,4], s8[0]) custom-call(a, b), custom_call_target=\"__cublas$triangularSolve\"\n}\n"),
            GpuCallRoute::kNone);
  EXPECT_EQ(route(head + "f32[4,4] custom-call(a, b), custom_call_target=\"my_own_call\"\n}\n"),
            GpuCallRoute::kNotLibraryCall);
  EXPECT_EQ(route(head + "f32[4,4] add(a, b)\n}\n"), GpuCallRoute::kNotLibraryCall);
  EXPECT_EQ(GpuCallRouteName(GpuCallRoute::kOwnKernel), "Fusebox's kernel");
}

TEST(SolverPlanTest, WhatTheSolversCannotRunIsRefusedByName) {
  auto half = Parse(PotrfModule("f16", "[4,4]", "[]", true));
  auto refused = PlanSolverCall(*half->entry()->root());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("c (cusolver_potrf_ffi)"), std::string::npos) << refused.status().message();
  auto complex_lu = Parse(GetrfModule("c64", "[4,4]", "[4]", "[]"));
  EXPECT_FALSE(PlanSolverCall(*complex_lu->entry()->root()).ok());
}

// Deterministic operands: Hermitian positive definite (x xᴴ + n I) for potrf, general
// for getrf.
Literal Operand(const Shape& shape, bool hermitian, int seed) {
  Literal literal(shape);
  const int64_t cols = shape.dimensions(shape.rank() - 1), rows = shape.dimensions(shape.rank() - 2);
  const int64_t matrices = literal.element_count() / (rows * cols);
  // Pseudo-random (full rank: a low-rank operand leaves the last pivots to rounding noise).
  std::mt19937 rng(static_cast<unsigned>(seed));
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<std::complex<double>> values(static_cast<size_t>(matrices * rows * cols));
  for (auto& v : values) v = {uniform(rng), 0.4 * uniform(rng)};
  auto x = [&](int64_t b, int64_t i, int64_t j) { return values[static_cast<size_t>((b * rows + i) * cols + j)]; };
  for (int64_t b = 0; b < matrices; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        std::complex<double> v = x(b, i, j);
        if (hermitian) {
          v = i == j ? static_cast<double>(cols) : 0.0;
          for (int64_t k = 0; k < cols; ++k) v += x(b, i, k) * std::conj(x(b, j, k));
        }
        literal.SetComplex(b * rows * cols + i * cols + j, v);
      }
    }
  }
  return literal;
}

// Runs the plan on the host on the call's operand and compares with the interpreter's
// plain model: the factor where `compare_factor(matrix)`, pivots, info and taus always.
void ExpectHostPlanMatchesInterpreter(const Module& module, Literal operand, double tolerance,
                                      const std::vector<bool>& compare_factor = {}, Literal taus = Literal()) {
  const Instruction* call = module.entry()->root();
  auto plan = PlanSolverCall(*call);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<Literal> args;
  args.push_back(operand);
  if (plan->householder_product()) args.push_back(taus);
  auto expected = interpreter::Interpreter().Run(module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  std::vector<int32_t> pivots(static_cast<size_t>(std::max<int64_t>(1, plan->batch * plan->pivots)));
  std::vector<int32_t> info(static_cast<size_t>(plan->batch));
  if (plan->qr()) taus = Literal(call->shape().tuple_shapes(1));
  SolverHostBuffers buffers;
  buffers.a = operand.untyped_data();
  buffers.pivots = pivots.data();
  buffers.info = info.data();
  if (plan->qr() || plan->householder_product()) buffers.taus = taus.untyped_data();
  ASSERT_TRUE(RunSolverPlanOnHost(*plan, buffers).ok());
  std::vector<Literal> want;
  if (expected->shape().IsTuple()) {
    want = std::move(expected->tuple_elements());
  } else {
    want.push_back(std::move(*expected));
  }
  for (int64_t b = 0; b < plan->batch; ++b) {
    if (plan->cholesky() || plan->lu()) EXPECT_EQ(info[b], want.back().GetDouble(b)) << "info of matrix " << b;
    if (!compare_factor.empty() && !compare_factor[static_cast<size_t>(b)]) continue;
    for (int64_t i = 0; i < plan->stride; ++i) {
      const int64_t at = b * plan->stride + i;
      const std::complex<double> got = operand.GetComplex(at), w = want[0].GetComplex(at);
      EXPECT_LE(std::abs(got - w), tolerance * (1 + std::abs(w))) << "element " << at << ": " << got << " vs " << w;
    }
  }
  if (plan->lu()) {
    for (int64_t i = 0; i < plan->batch * plan->pivots; ++i) {
      EXPECT_EQ(pivots[static_cast<size_t>(i)], want[1].GetDouble(i)) << "pivot " << i;
    }
  }
  if (plan->qr()) {
    for (int64_t i = 0; i < plan->batch * plan->taus; ++i) {
      EXPECT_NEAR(taus.GetDouble(i), want[1].GetDouble(i), tolerance * (1 + std::abs(want[1].GetDouble(i))))
          << "tau " << i;
    }
  }
}

TEST(SolverPlanTest, HostQrMatchesTheInterpreter) {
  struct Case {
    const char* type;
    const char* dims;  // the transposed operand's
    const char* taus;
    double tolerance;
  };
  // Tall, wide and square, batched and single.
  for (const Case& c : {Case{"f32", "[4,3,5]", "[4,3]", 1e-5}, Case{"f64", "[6,9]", "[6]", 1e-12},
                        Case{"f64", "[2,7,4]", "[2,4]", 1e-12}, Case{"f32", "[5,5]", "[5]", 1e-5}}) {
    SCOPED_TRACE(std::string("geqrf ") + c.type + c.dims);
    auto module = Parse(GeqrfModule(c.type, c.dims, c.taus));
    ASSERT_NE(module, nullptr);
    Literal t = Operand(module->entry()->parameter(0)->shape(), false, 6);
    ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, std::move(t), c.tolerance));
  }
  // A column already zero below its diagonal: tau 0, the column kept.
  auto module = Parse(GeqrfModule("f64", "[3,5]", "[3]"));
  Literal t = Operand(module->entry()->parameter(0)->shape(), false, 7);
  for (int64_t i = 1; i < 5; ++i) t.SetDouble(i, 0);  // a's first column: (x, 0, 0, 0, 0)
  ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, std::move(t), 1e-12));
  // orgqr of geqrf's output: reduced (5 x 3 from 3 reflectors) and complete (5 x 5 from 3).
  for (const auto& [dims, taus] : std::vector<std::pair<std::string, std::string>>{{"[3,5]", "[3]"}, {"[5,5]", "[3]"}}) {
    SCOPED_TRACE("orgqr f64" + dims);
    auto product = Parse(OrgqrModule("f64", dims, taus));
    ASSERT_NE(product, nullptr);
    const Shape& shape = product->entry()->parameter(0)->shape();
    Literal reflectors = Operand(shape, false, 8);
    Literal tau(product->entry()->parameter(1)->shape());
    for (int64_t i = 0; i < tau.element_count(); ++i) tau.SetDouble(i, 1.2 + 0.1 * static_cast<double>(i % 5));
    ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*product, std::move(reflectors), 1e-12, {}, std::move(tau)));
  }
}

TEST(SolverPlanTest, HostPotrfMatchesTheInterpreter) {
  struct Case {
    const char* type;
    const char* dims;
    const char* batch;
    bool lower;
    double tolerance;
  };
  for (const Case& c : {Case{"f32", "[5,5]", "[]", true, 2e-6}, Case{"f64", "[3,7,7]", "[3]", false, 1e-13},
                        Case{"c64", "[2,4,4]", "[2]", true, 2e-6}, Case{"c128", "[6,6]", "[]", false, 1e-13}}) {
    SCOPED_TRACE(std::string(c.type) + c.dims + (c.lower ? " lower" : " upper"));
    auto module = Parse(PotrfModule(c.type, c.dims, c.batch, c.lower));
    ASSERT_NE(module, nullptr);
    const Shape& shape = module->entry()->parameter(0)->shape();
    ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, Operand(shape, true, 1), c.tolerance));
  }
  // The second matrix is not positive definite at its third leading minor: info 3 on both
  // sides (the factors past it differ: the solver stops, the model goes on with NaN).
  auto module = Parse(PotrfModule("f64", "[3,5,5]", "[3]", true));
  Literal a = Operand(module->entry()->parameter(0)->shape(), true, 2);
  a.SetDouble(25 + 2 * 5 + 2, -50);
  ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, a, 1e-13, {true, false, true}));
}

TEST(SolverPlanTest, HostGetrfMatchesTheInterpreter) {
  struct Case {
    const char* type;
    const char* dims;  // the transposed operand's
    const char* pivots;
    const char* batch;
    double tolerance;
  };
  for (const Case& c : {Case{"f32", "[4,6,6]", "[4,6]", "[4]", 1e-5}, Case{"f64", "[9,9]", "[9]", "[]", 1e-12},
                        Case{"f64", "[2,7,3]", "[2,3]", "[2]", 1e-12}, Case{"f32", "[3,5]", "[3]", "[]", 1e-5}}) {
    SCOPED_TRACE(std::string(c.type) + c.dims);
    auto module = Parse(GetrfModule(c.type, c.dims, c.pivots, c.batch));
    ASSERT_NE(module, nullptr);
    const Shape& shape = module->entry()->parameter(0)->shape();
    ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, Operand(shape, false, 3), c.tolerance));
  }
  // A singular matrix: a's third column (the transpose's third row) zero, so the third
  // pivot is 0: info 3, nothing divided, the same factor on both sides.
  auto module = Parse(GetrfModule("f64", "[5,5]", "[5]", "[]"));
  Literal t = Operand(module->entry()->parameter(0)->shape(), false, 4);
  for (int64_t j = 0; j < 5; ++j) t.SetDouble(2 * 5 + j, 0);
  ASSERT_NO_FATAL_FAILURE(ExpectHostPlanMatchesInterpreter(*module, t, 1e-12));
}

std::string SyevdModule(const std::string& dims, const std::string& values, const std::string& batch,
                        const std::string& attributes) {
  return "HloModule m\nENTRY e {\n  t = f64" + dims + " parameter(0)\n  ROOT c = (f64" + dims + ", f64" + values +
         ", s32" + batch + ") custom-call(t), custom_call_target=\"__fusebox$syevd_transposed\", "
         "api_version=API_VERSION_TYPED_FFI, backend_config=" + attributes + "\n}\n";
}

// eigh: Jacobi up to 32 x 32 with jax's default algorithm (batched for a batch), syevd
// beyond or with the QR algorithm; the triangle as the call reads it (the operand holds
// aᵀ, which is a column-major). The host run against the interpreter's: eigenvalues, and
// the vectors up to each one's sign.
// jaxlib's syevBatched takes the batch in chunks of calls under 2^31 bytes (at most 32768
// matrices); a matrix of 2^30 bytes or more goes through syevd alone (planned, not run).
TEST(SolverPlanTest, SyevBatchedTakesTheBatchInJaxlibsChunks) {
  struct Case {
    const char* dims;
    const char* values;
    const char* batch;
    SolverRoutine routine;
    int64_t chunk;
    const char* text;
  };
  for (const Case& c : {Case{"[5,8192,8192]", "[5,8192]", "[5]", SolverRoutine::kSyevBatched, 3,
                             "cusolverDnXsyevBatched fill=L n=8192 batch=5 in calls of 3"},
                        Case{"[40000,64,64]", "[40000,64]", "[40000]", SolverRoutine::kSyevBatched, 32768,
                             "cusolverDnXsyevBatched fill=L n=64 batch=40000 in calls of 32768"},
                        Case{"[16384,16384]", "[16384]", "[]", SolverRoutine::kSyevd, 1,
                             "cusolverDnDsyevd fill=L n=16384"}}) {
    SCOPED_TRACE(c.dims);
    auto module = Parse(SyevdModule(c.dims, c.values, c.batch, "{algorithm = 0 : ui8, lower = true}"));
    ASSERT_NE(module, nullptr);
    SolverPlan plan = PlanOf(*module);
    EXPECT_EQ(plan.routine, c.routine);
    EXPECT_EQ(plan.chunk, c.chunk);
    EXPECT_EQ(plan.ToString(), c.text);
  }
}

TEST(SolverPlanTest, EighRoutinesAreJaxlibsAndMatchTheInterpreter) {
  struct Case {
    const char* dims;
    const char* values;
    const char* batch;
    const char* attributes;
    SolverRoutine routine;
    const char* text;
  };
  for (const Case& c : {Case{"[6,6]", "[6]", "[]", "{algorithm = 0 : ui8, lower = true}", SolverRoutine::kSyevj,
                             "cusolverDnDsyevj fill=L n=6"},
                        Case{"[3,5,5]", "[3,5]", "[3]", "{algorithm = 0 : ui8, lower = false}",
                             SolverRoutine::kSyevjBatched, "cusolverDnDsyevjBatched fill=U n=5 batch=3"},
                        Case{"[2,7,7]", "[2,7]", "[2]", "{algorithm = 1 : ui8, lower = true}",
                             SolverRoutine::kSyevBatched, "cusolverDnXsyevBatched fill=L n=7 batch=2"},
                        Case{"[34,34]", "[34]", "[]", "{algorithm = 0 : ui8, lower = true}",
                             SolverRoutine::kSyevBatched, "cusolverDnXsyevBatched fill=L n=34"}}) {
    SCOPED_TRACE(c.dims);
    auto module = Parse(SyevdModule(c.dims, c.values, c.batch, c.attributes));
    ASSERT_NE(module, nullptr);
    SolverPlan plan = PlanOf(*module);
    EXPECT_EQ(plan.routine, c.routine);
    EXPECT_EQ(plan.ToString(), c.text);
    // The operand: noise in the triangle the call does not read.
    Literal t = Operand(module->entry()->parameter(0)->shape(), false, 9);
    std::vector<Literal> args;
    args.push_back(t);
    auto expected = interpreter::Interpreter().Run(*module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    const Shape& values_shape = module->entry()->root()->shape().tuple_shapes(1);
    Literal values(values_shape);
    std::vector<int32_t> info(static_cast<size_t>(plan.batch));
    SolverHostBuffers buffers;
    buffers.a = t.untyped_data();
    buffers.info = info.data();
    buffers.values = values.untyped_data();
    ASSERT_TRUE(RunSolverPlanOnHost(plan, buffers).ok());
    const int64_t n = plan.n;
    for (int64_t b = 0; b < plan.batch; ++b) {
      EXPECT_EQ(info[static_cast<size_t>(b)], expected->tuple_elements()[2].GetInt64(b));
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_NEAR(values.GetDouble(b * n + j), expected->tuple_elements()[1].GetDouble(b * n + j), 1e-10);
        // Column j of V is row j of the result (it holds Vᵀ); up to sign.
        double dot = 0;
        for (int64_t i = 0; i < n; ++i) {
          dot += t.GetDouble(b * n * n + j * n + i) * expected->tuple_elements()[0].GetDouble(b * n * n + j * n + i);
        }
        EXPECT_NEAR(std::abs(dot), 1.0, 1e-9) << "vector " << j << " of matrix " << b;
      }
    }
  }
}

// The SVD (jax's gesvdj on the transposed matrix): gesvdjBatched for a batch up to 32 x 32
// with full U and V, gesvdj otherwise; the host run's singular values against the
// interpreter's, U and V orthonormal (full bases completed) and U diag(s) Vᵀ = a, for tall,
// wide, full and econ, a rank-deficient matrix (a zero singular value), and without
// vectors.
TEST(SolverPlanTest, SvdRoutinesAreJaxlibsAndFactor) {
  struct Case {
    int64_t batch, m, n;
    bool full, vectors;
    SolverRoutine routine;
    bool deficient = false;
  };
  for (const Case& c : {Case{3, 5, 3, true, true, SolverRoutine::kGesvdjBatched},
                        Case{1, 6, 4, false, true, SolverRoutine::kGesvdj},
                        Case{2, 3, 5, true, true, SolverRoutine::kGesvdjBatched},
                        Case{2, 40, 3, true, true, SolverRoutine::kGesvdj},
                        Case{1, 4, 6, false, true, SolverRoutine::kGesvdj},
                        Case{1, 5, 4, true, true, SolverRoutine::kGesvdj, true},
                        Case{2, 4, 3, true, false, SolverRoutine::kGesvdjBatched}}) {
    const int64_t m = c.m, n = c.n, k = std::min(m, n);
    const int64_t uc = c.full ? m : k, vc = c.full ? n : k;
    const std::string b = c.batch > 1 ? std::to_string(c.batch) + "," : "";
    auto dims = [&](int64_t x, int64_t y) { return "[" + b + std::to_string(x) + "," + std::to_string(y) + "]"; };
    const std::string batch = c.batch > 1 ? "[" + std::to_string(c.batch) + "]" : "[]";
    // The call on aᵀ: operand and first result [n, m], U held as [uc, m], V as [vc, n].
    const std::string text = "HloModule m\nENTRY e {\n  t = f64" + dims(n, m) + " parameter(0)\n  ROOT c = (f64" +
                             dims(n, m) + ", f64[" + b + std::to_string(k) + "], f64" + dims(uc, m) + ", f64" +
                             dims(vc, n) + ", s32" + batch +
                             ") custom-call(t), custom_call_target=\"__fusebox$gesvdj_transposed\", "
                             "api_version=API_VERSION_TYPED_FFI, backend_config={compute_uv = " +
                             (c.vectors ? "true" : "false") + ", full_matrices = " + (c.full ? "true" : "false") +
                             "}\n}\n";
    SCOPED_TRACE(text);
    auto module = Parse(text);
    ASSERT_NE(module, nullptr);
    SolverPlan plan = PlanOf(*module);
    EXPECT_EQ(plan.routine, c.routine) << plan.ToString();
    EXPECT_EQ(plan.m, m);
    EXPECT_EQ(plan.n, n);
    Literal t = Operand(module->entry()->parameter(0)->shape(), false, 10);
    if (c.deficient) {  // a's last column a copy of its first: rank 3 of 4
      for (int64_t i = 0; i < m; ++i) t.SetDouble((n - 1) * m + i, t.GetDouble(i));
    }
    std::vector<Literal> args;
    args.push_back(t);
    auto expected = interpreter::Interpreter().Run(*module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    const Shape& shape = module->entry()->root()->shape();
    Literal s(shape.tuple_shapes(1)), u(shape.tuple_shapes(2)), v(shape.tuple_shapes(3));
    std::vector<int32_t> info(static_cast<size_t>(c.batch));
    SolverHostBuffers buffers;
    buffers.a = t.untyped_data();
    buffers.info = info.data();
    buffers.values = s.untyped_data();
    buffers.u = u.untyped_data();
    buffers.v = v.untyped_data();
    ASSERT_TRUE(RunSolverPlanOnHost(plan, buffers).ok());
    for (int64_t bi = 0; bi < c.batch; ++bi) {
      EXPECT_EQ(info[static_cast<size_t>(bi)], 0);
      for (int64_t j = 0; j < k; ++j) {
        EXPECT_NEAR(s.GetDouble(bi * k + j), expected->tuple_elements()[1].GetDouble(bi * k + j), 1e-10) << j;
      }
      if (!c.vectors) continue;
      // U(i, j) held at [j][i]: u[bi][j * m + i]; V likewise.
      auto U = [&](int64_t i, int64_t j) { return u.GetDouble(bi * m * uc + j * m + i); };
      auto V = [&](int64_t i, int64_t j) { return v.GetDouble(bi * n * vc + j * n + i); };
      auto A = [&](int64_t i, int64_t j) { return args[0].GetDouble(bi * m * n + j * m + i); };
      for (int64_t p = 0; p < uc; ++p) {
        for (int64_t q = 0; q < uc; ++q) {
          double dot = 0;
          for (int64_t i = 0; i < m; ++i) dot += U(i, p) * U(i, q);
          EXPECT_NEAR(dot, p == q ? 1 : 0, 1e-10) << "UᵀU at " << p << "," << q;
        }
      }
      for (int64_t p = 0; p < vc; ++p) {
        for (int64_t q = 0; q < vc; ++q) {
          double dot = 0;
          for (int64_t i = 0; i < n; ++i) dot += V(i, p) * V(i, q);
          EXPECT_NEAR(dot, p == q ? 1 : 0, 1e-10) << "VᵀV at " << p << "," << q;
        }
      }
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = 0;
          for (int64_t l = 0; l < k; ++l) sum += U(i, l) * s.GetDouble(bi * k + l) * V(j, l);
          EXPECT_NEAR(sum, A(i, j), 1e-10) << "U diag(s) Vᵀ at " << i << "," << j;
        }
      }
    }
  }
}

}  // namespace
}  // namespace fusebox
