// CLI tests for the CPU backend: `fusebox run --backend cpu` and the CPU compile stages and
// dump files, run through the real binary; exit codes and what users read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <sys/wait.h>

#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Example;
using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using fusebox::cli_test::RunFuseboxStdout;
using ::testing::HasSubstr;
using ::testing::Not;

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// The N of "N kernels per run" in a CPU run's report; -1 when absent.
long long KernelsPerRun(const std::string& out) {
  std::smatch m;
  static const std::regex re("(\\d+) kernels per run");
  return std::regex_search(out, m, re) ? std::stoll(m[1]) : -1;
}

constexpr char kSmallChain[] =
    "HloModule small_chain\nENTRY e {\n  x = f32[64,32] parameter(0)\n  y = f32[64,32] parameter(1)\n"
    "  m = f32[64,32] multiply(x, y)\n  a = f32[64,32] add(m, x)\n  ROOT t = f32[64,32] tanh(a)\n}\n";

// The stateful rng (jax never writes it; its state is the runtime's): no backend emits it.
constexpr char kRng[] =
    "HloModule rng_mod\nENTRY e {\n  a = f32[] parameter(0)\n"
    "  ROOT f = f32[8,16] rng(a, a), distribution=rng_uniform\n}\n";

TEST(CliCpuRunTest, CheckMatchesTheInterpreterOnTheExamples) {
  for (const char* name : {"reduce_sum.hlo", "mnist_train_step.hlo"}) {
    Result r = RunFusebox("run " + Example(name) + " --backend cpu --check --threads 2 --seed 3");
    EXPECT_EQ(r.code, 0) << name << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter")) << name;
    EXPECT_THAT(r.out, HasSubstr("on the CPU (fused, 2 threads)")) << name;
    EXPECT_THAT(r.out, HasSubstr("output")) << name;
  }
}

TEST(CliCpuRunTest, UnfusedRunsMoreKernels) {
  Result fused = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --threads 2");
  ASSERT_EQ(fused.code, 0) << fused.out;
  Result unfused = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --unfused --threads 2 --check");
  ASSERT_EQ(unfused.code, 0) << unfused.out;
  EXPECT_THAT(unfused.out, HasSubstr("(unfused, 2 threads)"));
  EXPECT_EQ(KernelsPerRun(fused.out), 1) << fused.out;
  EXPECT_EQ(KernelsPerRun(unfused.out), 3) << unfused.out;
  EXPECT_THAT(unfused.out, HasSubstr("check: matches the interpreter"));

  std::string chain = WriteTemp("cpu_chain.hlo", kSmallChain);
  Result f2 = RunFusebox("run " + chain + " --backend cpu --threads 1");
  Result u2 = RunFusebox("run " + chain + " --backend cpu --threads 1 --unfused");
  ASSERT_EQ(f2.code, 0) << f2.out;
  ASSERT_EQ(u2.code, 0) << u2.out;
  EXPECT_LT(KernelsPerRun(f2.out), KernelsPerRun(u2.out)) << f2.out << "\n" << u2.out;
  EXPECT_THAT(f2.out, HasSubstr("1 threads"));
}

TEST(CliCpuRunTest, TraceIsChromeJsonWithTheKernels) {
  std::string path = testing::TempDir() + "/cli_cpu_trace.json";
  std::filesystem::remove(path);
  Result r = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --unfused --threads 2 --iterations 2 --trace " +
                        path);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("wrote the trace"));
  EXPECT_THAT(r.out, HasSubstr(path));
  nlohmann::json doc = nlohmann::json::parse(ReadFile(path), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << "not JSON: " << path;
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::set<std::string> hlos;
  int kernels = 0, runs = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") != "X") continue;
    if (e.value("cat", "") == "kernel") {
      ++kernels;
      hlos.insert(e["args"].value("hlo", ""));
    }
    if (e.value("cat", "") == "run") ++runs;
  }
  EXPECT_EQ(kernels, 6);  // three kernels, two iterations
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(hlos, (std::set<std::string>{"add.1", "mul.1", "reduce_sum.7"}));
}

TEST(CliCpuRunTest, TraceToAnUnwritablePathIsAUserError) {
  Result r = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --threads 1 --trace /nonexistent/dir/t.json");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("/nonexistent/dir/t.json"));
}

// oneDNN sets itself up on its first sgemm (tens of milliseconds): the executable pays that
// while it is made, and the run's compile steps name it, so that the kernel table does not
// charge it to the program's first dot. Without oneDNN (FUSEBOX_NO_ONEDNN) there is no
// such step.
TEST(CliCpuRunTest, OneDnnSetUpIsACompileStep) {
  const std::string dot = WriteTemp("cpu_small_dot.hlo", R"(HloModule small_dot
ENTRY e {
  a = f32[3,5] parameter(0)
  b = f32[5,32] parameter(1)
  ROOT d = f32[3,32] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  Result path = RunFusebox("compile " + dot + " --stage buffer_assignment");
  ASSERT_EQ(path.code, 0) << path.out;
  if (path.out.find("oneDNN sgemm") == std::string::npos) GTEST_SKIP() << "no oneDNN here:\n" << path.out;
  Result r = RunFusebox("run " + dot + " --backend cpu --iterations 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(" ms, oneDNN set-up ")) << r.out;
  Result off = fusebox::cli_test::RunCommand("FUSEBOX_NO_ONEDNN=1 " + std::string(FUSEBOX_BINARY) + " run " + dot + " --backend cpu 2>&1");
  ASSERT_EQ(off.code, 0) << off.out;
  EXPECT_THAT(off.out, Not(HasSubstr("oneDNN set-up"))) << off.out;
}

TEST(CliCpuRunTest, IterationsAreReported) {
  Result r = RunFusebox("run " + Example("reduce_sum.hlo") + " --backend cpu --threads 2 --iterations 3");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("3 time(s)"));
  EXPECT_THAT(r.out, HasSubstr("3 iterations"));
  EXPECT_EQ(KernelsPerRun(r.out), 1);
}

TEST(CliCpuRunTest, OutputsAreWrittenLikeTheInterpreters) {
  std::string cpu = testing::TempDir() + "/cpu_out", interp = testing::TempDir() + "/interp_out";
  std::string chain = WriteTemp("cpu_chain_out.hlo", kSmallChain);
  ASSERT_EQ(RunFusebox("run " + chain + " --backend cpu --threads 2 --seed 9 --output-dir " + cpu).code, 0);
  ASSERT_EQ(RunFusebox("run " + chain + " --seed 9 --output-dir " + interp).code, 0);
  const std::string a = ReadFile(cpu + "/output.npy"), b = ReadFile(interp + "/output.npy");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.size(), b.size());  // same header and shape; values are compared by --check
}

TEST(CliCpuRunTest, UnsupportedOpNamesTheOpAndExitsOne) {
  std::string hlo = WriteTemp("cpu_rng.hlo", kRng);
  Result r = RunFusebox("run " + hlo + " --backend cpu");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("cannot emit rng"));
  EXPECT_THAT(r.out, HasSubstr("error:"));
  Result c = RunFusebox("compile " + hlo + " --stage llvm_ir");
  EXPECT_EQ(c.code, 1) << c.out;
  EXPECT_THAT(c.out, HasSubstr("cannot emit rng"));
  // The HLO stages do not need the backend.
  EXPECT_EQ(RunFusebox("compile " + hlo + " --stage optimized_hlo").code, 0);
}

TEST(CliCpuRunTest, BadInputsAreClearErrors) {
  Result missing = RunFusebox("run /nonexistent/x.hlo --backend cpu");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.out, HasSubstr("no such file"));
  std::string bad = WriteTemp("cpu_bad.hlo", "HloModule m\nENTRY e {\n  x = f32[4] parameter(0\n}\n");
  Result garbage = RunFusebox("run " + bad + " --backend cpu");
  EXPECT_EQ(garbage.code, 1);
  EXPECT_THAT(garbage.out, HasSubstr(bad + ":4:"));
  std::string binary = WriteTemp("cpu_bin.hlo", std::string("\x7f" "ELF\x02\x01\x01\x00", 8));
  Result b = RunFusebox("run " + binary + " --backend cpu");
  EXPECT_EQ(b.code, 1) << b.out;
  EXPECT_THAT(b.out, HasSubstr("error"));
  Result compile_missing = RunFusebox("compile /nonexistent/x.hlo --stage llvm_ir");
  EXPECT_EQ(compile_missing.code, 1);
  EXPECT_THAT(compile_missing.out, HasSubstr("no such file"));
}

TEST(CliCpuRunTest, UnknownBackendIsAUserError) {
  EXPECT_EQ(RunFusebox("run " + Example("reduce_sum.hlo") + " --backend tpu").code, 1);
}

TEST(CliCpuCompileTest, LlvmIrStageIsTheUnoptimizedModule) {
  Result r = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("; ModuleID = 'jit_reduce_sum'"));
  EXPECT_THAT(r.out, HasSubstr("define void @fusion.kernel("));
  EXPECT_THAT(r.out, HasSubstr("alwaysinline"));  // bodies are not inlined yet
  EXPECT_THAT(r.out, Not(HasSubstr("kernels:")));  // the report goes to stderr
}

TEST(CliCpuCompileTest, LlvmIrOptimizedStageIsOptimized) {
  Result plain = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir");
  Result r = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir_optimized");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("define void @fusion.kernel("));
  EXPECT_THAT(r.out, Not(HasSubstr("define internal void @fusion.kernel.body(")));  // inlined
  EXPECT_THAT(r.out, Not(HasSubstr("alloca")));  // accumulators promoted to registers
  EXPECT_NE(r.out, plain.out);
}

TEST(CliCpuCompileTest, CpuAsmStageIsX86Assembly) {
  Result r = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage cpu_asm");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("fusion.kernel:"));
  EXPECT_THAT(r.out, HasSubstr(".text"));
  EXPECT_THAT(r.out, HasSubstr("ret"));
  EXPECT_THAT(r.out, Not(HasSubstr("define void")));
}

TEST(CliCpuCompileTest, BufferAssignmentStage) {
  Result r = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage buffer_assignment");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("BufferAssignment:"));
  EXPECT_THAT(r.out, HasSubstr("parameter 0"));
  EXPECT_THAT(r.out, HasSubstr("x.1"));
  EXPECT_THAT(r.out, HasSubstr("maybe-live-out"));
  EXPECT_THAT(r.out, HasSubstr("Total bytes used:"));
}

TEST(CliCpuCompileTest, UnknownStageIsAUserError) {
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage ptx_asm");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("ptx_asm"));
}

TEST(CliCpuCompileTest, StageToAFileMatchesStdout) {
  std::string path = testing::TempDir() + "/cpu_stage.ll";
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir -o " + path);
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string printed = RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir").out;
  EXPECT_FALSE(printed.empty());
  EXPECT_TRUE(ReadFile(path) == printed) << "-o " << path << " differs from what stdout gets";
}

TEST(CliCpuCompileTest, DumpToWritesTheCpuFiles) {
  std::string dir = testing::TempDir() + "/dump_cpu_cli";
  std::filesystem::remove_all(dir);
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --dump-to " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string base = dir + "/module_0000.jit_reduce_sum.";
  EXPECT_THAT(ReadFile(base + "ir-no-opt.ll"), HasSubstr("define void @fusion.kernel("));
  EXPECT_THAT(ReadFile(base + "ir-with-opt.ll"), HasSubstr("define void @fusion.kernel("));
  EXPECT_THAT(ReadFile(base + "s"), HasSubstr("fusion.kernel:"));
  EXPECT_THAT(ReadFile(base + "cpu_after_optimizations-buffer-assignment.txt"), HasSubstr("BufferAssignment:"));
  EXPECT_TRUE(std::filesystem::exists(base + "cpu_after_optimizations.txt"));
  EXPECT_TRUE(std::filesystem::exists(base + "before_optimizations.txt"));
  // The dumped stages are the ones the --stage flag prints.
  EXPECT_TRUE(ReadFile(base + "ir-no-opt.ll") ==
              RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage llvm_ir").out)
      << "the dumped ir-no-opt.ll differs from --stage llvm_ir";
  EXPECT_TRUE(ReadFile(base + "s") ==
              RunFuseboxStdout("compile " + Example("reduce_sum.hlo") + " --stage cpu_asm").out)
      << "the dumped .s differs from --stage cpu_asm";
}

// A jax program whose key uses the rbg implementation (tests/data/rng/README.md) draws the
// numbers XLA drew, on the interpreter and on the CPU backend: rng-bit-generator is XLA's
// Philox, and the key's Sharding annotation is its value.
TEST(CliCpuRunTest, JaxRbgKeysDrawXlasNumbers) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/rng/";
  for (const char* backend : {"interpreter", "cpu"}) {
    Result r = RunFusebox("run " + dir + "jax_rbg_uniform.hlo --backend " + backend + " --inputs " + dir +
                          "rbg_key_42.npy --expected " + dir + "jax_rbg_uniform_expected.npy");
    EXPECT_EQ(r.code, 0) << backend << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs")) << backend << "\n" << r.out;
  }
}

// jax's programs with cuDNN's fused attention (`implementation="cudnn"`: __cudnn$fmha*
// calls, forward and backward, with a bias, padding, causal and sliding-window masks,
// grouped-query heads, both layouts) on the interpreter and the CPU backend, against what
// jax's own XLA attention computes from the same inputs (tests/data/fused_attention/).
TEST(CliCpuRunTest, JaxCudnnAttentionMatchesXlasOwnAttention) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/fused_attention/";
  struct Data {
    const char* name;
    int inputs, outputs;
  };
  for (const Data& d : {Data{"causal_forward", 3, 1}, Data{"bias_padding_gqa_train", 7, 5},
                        Data{"sliding_window_train", 4, 4}, Data{"bnth_forward", 3, 1}}) {
    std::string inputs, expected;
    for (int i = 0; i < d.inputs; ++i) inputs += (i ? "," : "") + dir + d.name + ".in" + std::to_string(i) + ".npy";
    for (int i = 0; i < d.outputs; ++i) expected += " " + dir + d.name + ".out" + std::to_string(i) + ".npy";
    for (const char* backend : {"interpreter", "cpu"}) {
      Result r = RunFusebox("run " + dir + d.name + ".hlo --backend " + backend + " --inputs " + inputs + " --expected" +
                            expected);
      EXPECT_EQ(r.code, 0) << d.name << " " << backend << "\n" << r.out;
      EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs: " + std::to_string(d.outputs) + " of " +
                                   std::to_string(d.outputs)))
          << d.name << " " << backend << "\n" << r.out;
    }
  }
}

// jax's linear algebra on the CPU calls LAPACK (lapack_spotrf_ffi, lapack_strsm_ffi,
// lapack_sgetrf_ffi, lapack_sgeqrf_ffi, lapack_sorgqr_ffi, lapack_ssyevd_ffi,
// lapack_sgesdd_ffi, lapack_sgtsv_ffi, lapack_sgehrd_ffi, lapack_sgeqp3_ffi); the interpreter (the
// linalg-expander's loops, the LU's, QR's and Jacobi rotations' own) and the CPU backend
// (LAPACK itself for potrf, getrf, geqrf, orgqr, syevd and gesdd; the loops for the others)
// match what LAPACK gave, pivots and the reflectors' signs included (eigen- and singular
// vectors through what does not depend on their signs; tests/data/linalg/).
TEST(CliCpuRunTest, JaxLapackCallsMatchLapack) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  struct Data {
    const char* name;
    int inputs;
  };
  struct Outputs {
    Data data;
    int outputs;
  };
  for (const Outputs& o : {Outputs{{"cho_solve", 2}, 1}, Outputs{{"cholesky_upper", 1}, 1},
                           Outputs{{"solve_triangular_trans_unit", 2}, 1}, Outputs{{"solve_triangular_upper_right", 2}, 1},
                           Outputs{{"lu_factor", 1}, 2}, Outputs{{"solve", 2}, 1}, Outputs{{"inv", 1}, 1},
                           Outputs{{"det", 1}, 1}, Outputs{{"lu_wide", 1}, 2}, Outputs{{"qr_reduced", 1}, 2},
                           Outputs{{"qr_complete", 1}, 2}, Outputs{{"qr_wide_batched", 1}, 2},
                           Outputs{{"qr_triangular", 1}, 2}, Outputs{{"qr_least_squares", 2}, 1},
                           Outputs{{"eigvalsh_odd", 1}, 1}, Outputs{{"eigh_reconstruct", 1}, 2},
                           Outputs{{"eigh_projector", 1}, 1}, Outputs{{"svdvals", 1}, 2}, Outputs{{"pinv", 1}, 1},
                           Outputs{{"pinv_wide", 1}, 1}, Outputs{{"lstsq", 2}, 1},
                           Outputs{{"svd_reconstruct_full", 1}, 2}, Outputs{{"svd_rank_deficient", 1}, 2},
                           Outputs{{"svd_norm2_cond", 1}, 2}, Outputs{{"tridiagonal_solve", 4}, 1}, Outputs{{"hessenberg", 1}, 2},
                           Outputs{{"qr_pivoting", 1}, 3}, Outputs{{"geqp3_lapack", 1}, 3},
                           Outputs{{"gtsv_lapack", 4}, 5}}) {
    const Data& d = o.data;
    std::string inputs, expected;
    for (int i = 0; i < d.inputs; ++i) inputs += (i ? "," : "") + dir + d.name + ".in" + std::to_string(i) + ".npy";
    for (int i = 0; i < o.outputs; ++i) expected += " " + dir + d.name + ".out" + std::to_string(i) + ".npy";
    const std::string matches = "expected: matches the expected outputs: " + std::to_string(o.outputs) + " of " +
                                std::to_string(o.outputs);
    for (const char* backend : {"interpreter", "cpu"}) {
      Result r = RunFusebox("run " + dir + d.name + ".hlo --backend " + backend + " --inputs " + inputs + " --expected" +
                            expected);
      EXPECT_EQ(r.code, 0) << d.name << " " << backend << "\n" << r.out;
      EXPECT_THAT(r.out, HasSubstr(matches)) << d.name << " " << backend << "\n" << r.out;
    }
  }
  // jax's GPU modules (cuSOLVER's getrf with jax's pivots-to-permutation kernel, geqrf and
  // orgqr, syevd, gesvdj), against what jax computes on the CPU for the same functions.
  for (const Outputs& o : {Outputs{{"gpu_solve", 2}, 1}, Outputs{{"gpu_qr", 1}, 2},
                           Outputs{{"gpu_eigh_reconstruct", 1}, 2}, Outputs{{"gpu_pinv", 1}, 1}}) {
    const Data& d = o.data;
    std::string inputs, expected;
    for (int i = 0; i < d.inputs; ++i) inputs += (i ? "," : "") + dir + d.name + ".in" + std::to_string(i) + ".npy";
    for (int i = 0; i < o.outputs; ++i) expected += " " + dir + d.name + ".out" + std::to_string(i) + ".npy";
    Result r = RunFusebox("run " + dir + d.name + ".hlo --backend cpu --inputs " + inputs + " --expected" + expected);
    EXPECT_EQ(r.code, 0) << d.name << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs: " + std::to_string(o.outputs) + " of " +
                                 std::to_string(o.outputs)))
        << d.name << "\n" << r.out;
  }
  // A reconstruction from 36 singular vectors found by Jacobi rotations: its magnitude
  // shadow is no bound (the rotations steer by the values), so that output is not counted
  // and the run says why; the singular values are compared.
  Result econ = RunFusebox("run " + dir + "gpu_svd_econ.hlo --backend cpu --inputs " + dir + "gpu_svd_econ.in0.npy --expected " +
                           dir + "gpu_svd_econ.out0.npy " + dir + "gpu_svd_econ.out1.npy");
  EXPECT_EQ(econ.code, 0) << econ.out;
  EXPECT_THAT(econ.out, HasSubstr("expected: matches the expected outputs: 1 of 2 output(s) compared")) << econ.out;
  EXPECT_THAT(econ.out, HasSubstr("not counted: 1 with a bound wider than its values")) << econ.out;
  // An eigendecomposition's vectors are unique only up to sign: the run says so.
  Result eigen = RunFusebox("run " + dir + "eigh_projector.hlo --backend cpu --seed 1");
  EXPECT_EQ(eigen.code, 0) << eigen.out;
  EXPECT_THAT(eigen.out, HasSubstr("lapack_ssyevd_ffi: the eigenvalues are the library's to rounding; each eigenvector "
                                   "is unique only up to sign"))
      << eigen.out;
  // The raw vectors: the CPU backend runs these calls through LAPACK, as XLA does; their
  // signs are each LAPACK build's choice (OpenBLAS's on an AVX-512 Xeon negates some of
  // jaxlib's), so both comparisons align them first (numeric_check.h); the check runs
  // LAPACK in the reference too, against the f64 shadow's d routine with the s routine's
  // signs.
  for (const Outputs& o : {Outputs{{"eigh_vectors", 1}, 2}, Outputs{{"svd_vectors", 1}, 3},
                           Outputs{{"svd_vectors_f64", 1}, 3}}) {
    const std::string name = o.data.name;
    std::string expected;
    for (int i = 0; i < o.outputs; ++i) expected += " " + dir + name + ".out" + std::to_string(i) + ".npy";
    Result r = RunFusebox("run " + dir + name + ".hlo --backend cpu --check --inputs " + dir + name + ".in0.npy --expected" +
                          expected);
    EXPECT_EQ(r.code, 0) << name << "\n" << r.out;
    const std::string n = std::to_string(o.outputs);
    EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs: " + n + " of " + n)) << name << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter: " + n + " of " + n)) << name << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("LAPACK call(s) run LAPACK in the reference too")) << name << "\n" << r.out;
    EXPECT_THAT(r.out, HasSubstr("against the f64 shadow")) << name << "\n" << r.out;
  }
  {
    // The plan: one library call, one kernel.
    Result plan = RunFusebox("compile " + dir + "svd_vectors.hlo --stage optimized_hlo");
    EXPECT_EQ(plan.code, 0) << plan.out;
    EXPECT_THAT(plan.out, HasSubstr("custom_call_target=\"lapack_sgesdd_ffi\"")) << plan.out;
    EXPECT_THAT(plan.out, Not(HasSubstr(" while("))) << plan.out;
  }
  // Random inputs: a Cholesky's operand is drawn positive definite, so the check compares
  // numbers, not NaNs.
  Result r = RunFusebox("run " + dir + "cho_solve.hlo --backend cpu --seed 1 --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter: 1 of 1")) << r.out;
}

// jax's Fourier transforms (the fft op: ducc in XLA's CPU backend) on the interpreter and
// the CPU backend (FFTW), against what XLA computed
// (tests/data/fft/): every fft_type, one to three dimensions, a long prime, c128.
TEST(CliCpuRunTest, JaxFourierTransformsMatchXla) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/fft/";
  struct Data {
    const char* name;
    int inputs;
  };
  for (const Data& d : {Data{"ifft_1000", 1}, Data{"fft_prime_1009", 1}, Data{"rfft2", 1}, Data{"irfft_odd", 1},
                        Data{"fftn_3d", 1}, Data{"fft2_c128", 1}, Data{"fft_convolution", 2}}) {
    std::string inputs;
    for (int i = 0; i < d.inputs; ++i) inputs += (i ? "," : "") + dir + d.name + ".in" + std::to_string(i) + ".npy";
    for (const char* backend : {"interpreter", "cpu"}) {
      Result r = RunFusebox("run " + dir + d.name + ".hlo --backend " + backend + " --inputs " + inputs +
                            " --expected " + dir + d.name + ".out0.npy");
      EXPECT_EQ(r.code, 0) << d.name << " " << backend << "\n" << r.out;
      EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs: 1 of 1")) << d.name << " " << backend
                                                                                     << "\n" << r.out;
    }
  }
  Result r = RunFusebox("run " + dir + "fft_convolution.hlo --backend cpu --seed 1 --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter: 1 of 1")) << r.out;
}

// The CPU backend's plan keeps each fft as one library call (FFTW), as XLA's CPU plan hands
// them to ducc; the GPU's, with or without NVIDIA's libraries, expands them into dots.
// The GPU with its libraries keeps them for cuFFT (the ptx stage's header lists each plan,
// the inverse with cuBLAS's scal); with --gpu-library=off they are the fft-expander's dots.
TEST(CliCpuRunTest, FourierTransformsAreLibraryCallsOnTheCpuAndTheGpu) {
  const std::string hlo = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/fft/fft_convolution.hlo";
  Result cpu = RunFusebox("compile " + hlo + " --stage optimized_hlo");
  ASSERT_EQ(cpu.code, 0) << cpu.out;
  EXPECT_THAT(cpu.out, HasSubstr("fft_type=RFFT, fft_length={512}")) << cpu.out;
  EXPECT_THAT(cpu.out, HasSubstr("fft_type=IRFFT, fft_length={512}")) << cpu.out;
  for (const char* library : {"on", "off"}) {
    const bool on = std::string(library) == "on";
    Result gpu = RunFusebox("compile " + hlo + " --stage gpu_optimized_hlo --gpu-library=" + library);
    ASSERT_EQ(gpu.code, 0) << library << "\n" << gpu.out;
    if (on) {
      EXPECT_THAT(gpu.out, HasSubstr("fft_type=IRFFT, fft_length={512}")) << gpu.out;
      EXPECT_THAT(gpu.out, Not(HasSubstr(" dot("))) << gpu.out;
    } else {
      EXPECT_THAT(gpu.out, Not(HasSubstr(" fft("))) << gpu.out;
      EXPECT_THAT(gpu.out, HasSubstr(" dot(")) << gpu.out;
    }
  }
  Result ptx = RunFusebox("compile " + hlo + " --stage ptx");
  ASSERT_EQ(ptx.code, 0) << ptx.out;
  EXPECT_THAT(ptx.out, HasSubstr("(fft) -> cuFFT cufftExecR2C n=512 batch=4\n")) << ptx.out;
  EXPECT_THAT(ptx.out, HasSubstr("(fft) -> cuFFT cufftExecC2R n=512 batch=4, cublasSscal 1/512\n")) << ptx.out;
  // The run's kernels: one per transform, named by it.
  const std::string trace = testing::TempDir() + "/fft_trace.json";
  Result run = RunFusebox("run " + hlo + " --backend cpu --seed 1 --threads 2 --trace " + trace);
  ASSERT_EQ(run.code, 0) << run.out;
  nlohmann::json doc = nlohmann::json::parse(ReadFile(trace), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded());
  std::multiset<std::string> ffts;
  for (const auto& e : doc["traceEvents"]) {
    if (e.value("ph", "") == "X" && e.value("cat", "") == "kernel" && e["args"].value("kind", "") == "fft") {
      ffts.insert(e["args"].value("hlo", ""));
    }
  }
  EXPECT_EQ(ffts.size(), 3u) << run.out;  // two RFFTs and one IRFFT
  // FFTW is loaded before the first run, its time a compile step of its own, not the
  // first transform's.
  EXPECT_THAT(run.out, HasSubstr("FFTW set-up")) << run.out;
}

// " PATH.out0.npy PATH.out1.npy ...": a test case's expected outputs for --expected.
std::string ExpectedOutputs(const std::string& path, int outputs) {
  std::string expected;
  for (int i = 0; i < outputs; ++i) expected += " " + path + ".out" + std::to_string(i) + ".npy";
  return expected;
}

// jax's eigendecomposition of a general matrix (lapack_?geev_ffi: jnp.linalg.eig,
// eigvals, lax.linalg.eig with left vectors) runs LAPACK's geev on the CPU backend, as
// XLA does: jax's eigenvalues and vectors, order and phases included; --check measures an
// f32 call against LAPACK's f64 routine. It has no plain-HLO model: the interpreter
// backend runs LAPACK for it too and says so; the GPU refuses it by name.
TEST(CliCpuRunTest, GeneralEigendecompositionsRunLapackOnTheCpu) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  for (const auto& [name, outputs] : std::vector<std::pair<std::string, int>>{
           {"eig_vectors", 2}, {"eigvals_general", 1}, {"eig_left_right_f64", 3}}) {
    Result cpu = RunFusebox("run " + dir + name + ".hlo --backend cpu --check --inputs " + dir + name + ".in0.npy --expected" +
                            ExpectedOutputs(dir + name, outputs));
    EXPECT_EQ(cpu.code, 0) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("expected: matches the expected outputs: " + std::to_string(outputs) + " of " +
                                   std::to_string(outputs)))
        << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("check: matches the interpreter")) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("run LAPACK in the reference too")) << name << "\n" << cpu.out;
  }
  Result interpreter = RunFusebox("run " + dir + "eig_vectors.hlo --backend interpreter --inputs " + dir +
                                  "eig_vectors.in0.npy --expected " + dir + "eig_vectors.out0.npy " + dir + "eig_vectors.out1.npy");
  EXPECT_EQ(interpreter.code, 0) << interpreter.out;
  EXPECT_THAT(interpreter.out, HasSubstr("(lapack_sgeev_ffi) has no plain-HLO model: the interpreter runs LAPACK for it"))
      << interpreter.out;
  EXPECT_THAT(interpreter.out, HasSubstr("expected: matches the expected outputs: 2 of 2")) << interpreter.out;
  Result gpu = RunFusebox("compile " + dir + "eig_vectors.hlo --stage gpu_optimized_hlo");
  EXPECT_NE(gpu.code, 0) << gpu.out;
  EXPECT_THAT(gpu.out, HasSubstr("has no plain-HLO model")) << gpu.out;
}

// jax's complex linear algebra (lapack_c..._ffi and lapack_z..._ffi: getrf, trsm with the
// adjoint too, potrf, geqrf and ungqr, heevd) runs LAPACK on the CPU backend, as XLA does,
// measured against the z routines in the check's f64 shadow; with no plain HLO the
// interpreter backend runs LAPACK for it too and says so.
TEST(CliCpuRunTest, ComplexLinearAlgebraRunsLapack) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  for (const auto& [name, inputs, outputs] : std::vector<std::tuple<std::string, int, int>>{
           {"complex_solve", 2, 1}, {"complex_cholesky", 1, 1}, {"complex_qr", 1, 2}, {"complex_eigh_vectors", 1, 2},
           {"complex_solve_triangular_adjoint", 2, 1}, {"complex128_inv", 1, 1}, {"complex_svd_vectors", 1, 3},
           {"complex_pinv", 1, 1}}) {
    std::string in, expected;
    for (int i = 0; i < inputs; ++i) in += (i ? "," : "") + dir + name + ".in" + std::to_string(i) + ".npy";
    for (int i = 0; i < outputs; ++i) expected += " " + dir + name + ".out" + std::to_string(i) + ".npy";
    const std::string matches = "expected: matches the expected outputs: " + std::to_string(outputs) + " of " +
                                std::to_string(outputs);
    Result cpu = RunFusebox("run " + dir + name + ".hlo --backend cpu --check --inputs " + in + " --expected" + expected);
    EXPECT_EQ(cpu.code, 0) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr(matches)) << name << "\n" << cpu.out;
    // Every output counted: raw vectors too, their phases aligned in the shadow.
    EXPECT_THAT(cpu.out, HasSubstr("check: matches the interpreter: " + std::to_string(outputs) + " of " +
                                   std::to_string(outputs)))
        << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("against the f64 shadow")) << name << "\n" << cpu.out;
    Result interpreter = RunFusebox("run " + dir + name + ".hlo --backend interpreter --inputs " + in + " --expected" + expected);
    EXPECT_EQ(interpreter.code, 0) << name << "\n" << interpreter.out;
    EXPECT_THAT(interpreter.out, HasSubstr(matches)) << name << "\n" << interpreter.out;
    EXPECT_THAT(interpreter.out, HasSubstr("has no plain-HLO model: the interpreter runs LAPACK for it"))
        << name << "\n" << interpreter.out;
  }
}

// jax's Schur decomposition (lapack_?gees_ffi: jax.scipy.linalg.schur, sqrtm through the
// complex Schur form, funm) and complex eig (lapack_cgeev_ffi) run LAPACK on the CPU
// backend and the interpreter backend. What is computed from a Schur form (sqrtm, funm) is
// checked against the f64 shadow; the raw Schur form is the algorithm's choice (the f64
// routine orders and phases it otherwise), so its outputs are not counted and the run
// says why, where a bound wide enough to hold both would have passed anything.
TEST(CliCpuRunTest, SchurDecompositionsRunLapack) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  for (const auto& [name, outputs] : std::vector<std::pair<std::string, int>>{
           {"sqrtm", 1}, {"funm_exp", 1}, {"complex_eig", 2}}) {
    const std::string expected = ExpectedOutputs(dir + name, outputs);
    const std::string matches = "matches the expected outputs: " + std::to_string(outputs) + " of " + std::to_string(outputs);
    Result cpu = RunFusebox("run " + dir + name + ".hlo --backend cpu --check --inputs " + dir + name + ".in0.npy --expected" +
                            expected);
    EXPECT_EQ(cpu.code, 0) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr(matches)) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("check: matches the interpreter: " + std::to_string(outputs) + " of " +
                                   std::to_string(outputs)))
        << name << "\n" << cpu.out;
    Result interpreter = RunFusebox("run " + dir + name + ".hlo --backend interpreter --inputs " + dir + name +
                                    ".in0.npy --expected" + expected);
    EXPECT_EQ(interpreter.code, 0) << name << "\n" << interpreter.out;
    EXPECT_THAT(interpreter.out, HasSubstr(matches)) << name << "\n" << interpreter.out;
  }
  for (const char* name : {"schur_real", "schur_complex_output"}) {
    Result raw = RunFusebox("run " + dir + name + ".hlo --backend cpu --check --inputs " + dir + name + ".in0.npy");
    EXPECT_NE(raw.code, 0) << name << "\n" << raw.out;
    EXPECT_THAT(raw.out, HasSubstr("not counted: the reference and its f64 shadow differ by up to")) << name << "\n" << raw.out;
    EXPECT_THAT(raw.out, Not(HasSubstr("check: matches"))) << name << "\n" << raw.out;
  }
}

// XLA's own optimized GPU modules of jax's solve, inv and QR (an H200's, with XLA's
// __cublas$triangularSolve calls and jax's cuSOLVER calls) run on the CPU backend, and
// their checks count every output: the QR's through LAPACK in the reference, where the
// plain HLO of its Householder loops left the check vacuous.
TEST(CliCpuRunTest, XlasOptimizedGpuLinalgModulesRunAndCount) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  for (const auto& [name, outputs] : std::vector<std::pair<std::string, int>>{
           {"xla_gpu_optimized_solve", 1}, {"xla_gpu_optimized_inv", 1}, {"xla_gpu_optimized_qr", 2}}) {
    Result cpu = RunFusebox("run " + dir + name + ".hlo --backend cpu --seed 1 --check");
    EXPECT_EQ(cpu.code, 0) << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, HasSubstr("check: matches the interpreter: " + std::to_string(outputs) + " of " +
                                   std::to_string(outputs)))
        << name << "\n" << cpu.out;
    EXPECT_THAT(cpu.out, Not(HasSubstr("not counted"))) << name << "\n" << cpu.out;
  }
}

// LAPACK is loaded and set up (OpenBLAS's buffers) before the first run: a compile step of
// its own, so that the first call's kernel time is the call's (about 6 ms of loading was
// charged to a microsecond solve before; bench/README.md).
TEST(CliCpuRunTest, LapackIsSetUpBeforeTheFirstCall) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/linalg/";
  Result run = RunFusebox("run " + dir + "gtsv_lapack.hlo --backend cpu --inputs " + dir + "gtsv_lapack.in0.npy," + dir +
                          "gtsv_lapack.in1.npy," + dir + "gtsv_lapack.in2.npy," + dir + "gtsv_lapack.in3.npy");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("LAPACK set-up")) << run.out;
  EXPECT_THAT(run.out, HasSubstr("1 kernels per run")) << run.out;
}

// jax's ragged_dot (a mixture of experts' grouped matmul) as jax lowers it for CUDA, where
// it stays the ragged-dot op: the forward pass and a training step's gradients (both
// forms), on the interpreter and the CPU backend, against jax's results on the CPU
// (tests/data/ragged_dot/).
TEST(CliCpuRunTest, JaxRaggedDotMatchesXla) {
  const std::string dir = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/ragged_dot/";
  const std::string inputs = " --inputs " + dir + "NAME.in0.npy," + dir + "NAME.in1.npy," + dir + "NAME.in2.npy";
  for (const auto& [name, outputs] : std::vector<std::pair<std::string, int>>{{"forward", 1}, {"gradients", 2}}) {
    std::string args = inputs;
    for (size_t at = args.find("NAME"); at != std::string::npos; at = args.find("NAME")) args.replace(at, 4, name);
    std::string expected;
    for (int i = 0; i < outputs; ++i) expected += " " + dir + name + ".out" + std::to_string(i) + ".npy";
    for (const char* backend : {"interpreter", "cpu"}) {
      Result r = RunFusebox("run " + dir + name + ".hlo --backend " + backend + args + " --expected" + expected);
      EXPECT_EQ(r.code, 0) << name << " " << backend << "\n" << r.out;
      EXPECT_THAT(r.out, HasSubstr("expected: matches the expected outputs: " + std::to_string(outputs) + " of " +
                                   std::to_string(outputs)))
          << name << " " << backend << "\n" << r.out;
    }
  }
}

// jax.debug.print in a jitted function: the program runs on both, the print is skipped and
// the note says so (a pure_callback, which computes a value, is HostCallbackRemoverTest's).
TEST(CliCpuRunTest, JaxDebugPrintsAreSkippedWithANote) {
  const std::string hlo = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/callbacks/jax_debug_print.hlo";
  Result r = RunFusebox("run " + hlo + " --backend cpu --seed 1 --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("note: %debug_print.1 (line 13): a Python callback without results")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter")) << r.out;
}

// A backend's line:col is in the optimized module it compiled, and says so: the input
// file's lines are another text.
TEST(CliCpuCompileTest, BackendErrorsNameTheStageTheirLinesAreIn) {
  std::string hlo = WriteTemp("cpu_rng_stage.hlo", kRng);
  Result cpu = RunFusebox("compile " + hlo + " --stage cpu_asm");
  EXPECT_EQ(cpu.code, 1) << cpu.out;
  EXPECT_THAT(cpu.out, HasSubstr("error: optimized_hlo:5:8: CPU backend: f: ")) << cpu.out;
  Result gpu = RunFusebox("compile " + hlo + " --stage ptx");
  EXPECT_EQ(gpu.code, 1) << gpu.out;
  EXPECT_THAT(gpu.out, HasSubstr("error: gpu_optimized_hlo:5:8: GPU backend: f: ")) << gpu.out;
}

TEST(CliCpuCompileTest, DumpOfAnUnsupportedModuleStillWritesTheHlo) {
  std::string hlo = WriteTemp("cpu_rng_dump.hlo", kRng);
  std::string dir = testing::TempDir() + "/dump_cpu_rng";
  std::filesystem::remove_all(dir);
  Result r = RunFusebox("compile " + hlo + " --dump-to " + dir);
  EXPECT_THAT(r.out, HasSubstr("rng"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/module_0000.rng_mod.cpu_after_optimizations.txt")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir + "/module_0000.rng_mod.ir-no-opt.ll"));
  // What stopped the backend is in the dump, for the bug report.
  EXPECT_THAT(ReadFile(dir + "/module_0000.rng_mod.cpu_backend_error.txt"), HasSubstr("cannot emit rng"));
}

}  // namespace

namespace {

// --roofline: every kernel of the MNIST step under the measured roofs with what bounds
// it, the peaks measured on the first run and read from the cache on the next.
TEST(CliCpuTest, RooflineShowsEachKernelUnderTheMeasuredRoofs) {
  const std::string cache = ::testing::TempDir() + "/fusebox_roofline_cache_" + std::to_string(::getpid());
  const std::string env = "FUSEBOX_CACHE_DIR=" + cache + " ";
  const std::string command = std::string(FUSEBOX_BINARY) + " run " + std::string(FUSEBOX_SOURCE_DIR) +
                              "/assets/examples/mnist_train_step.hlo --backend cpu --roofline 2>&1";
  auto [code, out] = fusebox::cli_test::RunCommand(env + command);
  EXPECT_EQ(code, 0) << out;
  EXPECT_THAT(out, HasSubstr("roofline of the CPU"));
  EXPECT_THAT(out, HasSubstr("measured: an f32 1024^3 dot"));
  EXPECT_THAT(out, HasSubstr("bound by"));
  // What bounds a kernel depends on the machine (a sanitizer build's dot is slow enough to
  // put the ridge below every kernel): each row names one of the two.
  EXPECT_TRUE(std::regex_search(out, std::regex("%dot_general\\.[0-9]+ +dot .*% +(memory|compute)\n"))) << out;
  auto again = fusebox::cli_test::RunCommand(env + command);
  EXPECT_THAT(again.out, HasSubstr("(cached in " + cache + "/machine_peaks.json)"));
  std::filesystem::remove_all(cache);
}

}  // namespace
