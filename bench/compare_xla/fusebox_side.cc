// The Fusebox half of bench/compare_xla: compiles one HLO module (as jax lowered it) with
// Fusebox's pipeline and CPU backend, runs it on the given inputs, times the compile
// stages and the runs, compares the outputs with XLA's, and prints one JSON object.
//
//   compare_xla_fusebox --hlo F.hlo --inputs a.npy,b.npy --expected o0.npy,o1.npy
//                       [--iterations N] [--threads N] [--unfused] [--compile-repeats N]
//                       [--compile-threads N] [--llvm-o2] [--no-cpu-libraries]
//   --llvm-o2: LLVM's standard -O2 pipeline instead of Fusebox's kernel pipeline
//   --no-cpu-libraries: Fourier transforms as fft-expander's dots and jax's LAPACK calls as
//              library-call-lowering's loops (the GPU's plan, and the CPU's before FFTW and
//              LAPACK) instead of library calls, to measure the two side by side
//              (CpuCompileOptions::kernel_pipeline), to measure one against the other.
//   --compile-only: compile and report the compile times; neither reads inputs nor runs
//              (for profiling the compiler: `perf record ... --compile-repeats 200`).
//   --mode fair (default): both sides pay what XLA's CPU client pays per call: inputs,
//              temporaries and outputs in ordinary memory (no huge-page advice), each
//              call's temporaries and output allocated fresh and freed after it (the
//              freeing inside the timed span, as jax frees the returned array).
//   --mode reuse: Fusebox's own way: one output reused by every call, temporaries kept
//              between calls, huge pages where the kernel gives them.
//
// Measures, never asserts: the Python driver puts XLA's numbers next to these.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/support/large_buffer.h"
#include "compiler/support/timer.h"

namespace fusebox {
namespace {

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size() && !s.empty()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

void Flatten(const Literal& l, std::vector<const Literal*>* out) {
  if (!l.shape().IsTuple()) {
    out->push_back(&l);
    return;
  }
  for (const Literal& e : l.tuple_elements()) Flatten(e, out);
}

int Fail(const std::string& message) {
  nlohmann::json j;
  j["error"] = message;
  std::cout << j.dump() << "\n";
  return 1;
}

int Main(int argc, char** argv) {
  std::string hlo, inputs, expected;
  int iterations = 10, threads = 0, compile_repeats = 1, compile_threads = 0;
  bool unfused = false, llvm_o2 = false, compile_only = false, no_cpu_libraries = false;
  std::string mode = "fair";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--hlo") hlo = next();
    else if (a == "--inputs") inputs = next();
    else if (a == "--expected") expected = next();
    else if (a == "--iterations") iterations = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--compile-repeats") compile_repeats = std::max(1, std::stoi(next()));
    else if (a == "--compile-threads") compile_threads = std::stoi(next());
    else if (a == "--unfused") unfused = true;
    else if (a == "--llvm-o2") llvm_o2 = true;
    else if (a == "--no-cpu-libraries") no_cpu_libraries = true;
    else if (a == "--compile-only") compile_only = true;
    else if (a == "--mode") mode = next();
    else return Fail("unknown argument " + a);
  }
  if (mode != "fair" && mode != "reuse") return Fail("--mode is fair or reuse, not '" + mode + "'");
  const bool fair = mode == "fair";
  // Ordinary memory for everything from here on (the inputs read below, temporaries,
  // outputs), as XLA's allocator gives.
  if (fair) SetLargeBufferHugePages(false);
  nlohmann::json j;
  j["mode"] = mode;
  // Parsing and the HLO passes, like code generation below: a first, cold run (the
  // process's first allocations, page faults, static set-up) reported apart, then
  // --compile-repeats warm ones whose median counts, as XLA's compile is timed in a
  // process that has compiled before.
  std::unique_ptr<Module> module;
  StatusOr<std::unique_ptr<Module>> optimized = InvalidArgument("not compiled");
  std::vector<double> parse_s, pipeline_s;
  for (int r = 0; r <= compile_repeats; ++r) {
    optimized = InvalidArgument("not compiled");  // before the module it came from goes
    Stopwatch parse_watch;
    auto parsed = ParseFile(hlo);
    if (!parsed.ok()) return Fail(parsed.status().message());
    module = std::move(parsed->modules[0]);
    parse_s.push_back(parse_watch.ElapsedSeconds());
    Stopwatch pipeline_watch;
    optimized = no_cpu_libraries ? passes::OptimizeForBackend(*module, !unfused) : passes::OptimizeForCpu(*module, !unfused);
    if (!optimized.ok()) return Fail(optimized.status().message());
    pipeline_s.push_back(pipeline_watch.ElapsedSeconds());
  }
  j["cold_parse_s"] = parse_s.front();
  j["cold_pipeline_s"] = pipeline_s.front();
  auto warm_median = [](std::vector<double> v) {
    std::sort(v.begin() + 1, v.end());
    return v[1 + (v.size() - 1) / 2];
  };
  j["compile_s"]["parse"] = warm_median(parse_s);
  j["compile_s"]["pipeline"] = warm_median(pipeline_s);
  j["kernels"] = passes::CountKernels(**optimized).kernels;
  j["kernels_unfused"] = passes::CountKernels(*module).kernels;

  runtime::CpuExecutableOptions options;
  options.threads = threads;
  options.compile.keep_assembly = false;  // XLA prints neither assembly nor IR unless asked
  options.compile.keep_llvm_ir = false;
  options.compile.compile_threads = compile_threads;
  options.compile.kernel_pipeline = !llvm_o2;
  {
    // The first compile in a process also pays LLVM's one-time set-up (targets, pass
    // registries, the host's symbols): reported apart, as "cold". XLA's numbers come
    // from a process that has compiled before, so "codegen_and_jit" is the second
    // compile of the same module (Fusebox keeps no cache: it is a full recompile).
    auto copy = (*optimized)->Clone();
    Stopwatch cold_watch;
    auto cold = runtime::CpuExecutable::Create(std::move(copy), options);
    if (!cold.ok()) return Fail(cold.status().message());
    j["cold_codegen_and_jit_s"] = cold_watch.ElapsedSeconds();
  }
  // Further warm compiles (--compile-repeats): the median goes into codegen_and_jit.
  std::vector<double> warm;
  for (int r = 1; r < compile_repeats; ++r) {
    Stopwatch repeat_watch;
    auto again = runtime::CpuExecutable::Create((*optimized)->Clone(), options);
    if (!again.ok()) return Fail(again.status().message());
    warm.push_back(repeat_watch.ElapsedSeconds());
  }
  Stopwatch codegen_watch;
  auto exe = runtime::CpuExecutable::Create(std::move(*optimized), options);
  if (!exe.ok()) return Fail(exe.status().message());
  warm.push_back(codegen_watch.ElapsedSeconds());
  std::sort(warm.begin(), warm.end());
  j["compile_s"]["codegen_and_jit"] = warm[warm.size() / 2];
  j["codegen_and_jit_min_s"] = warm.front();  // the least noisy of the repeats, for A/B runs
  for (const codegen::CompileStepTime& t : (*exe)->code().step_times()) j["compile_steps_s"][t.step] = t.seconds;
  j["compile_threads"] = (*exe)->code().compile_threads();
  double total = 0;
  for (const auto& [k, v] : j["compile_s"].items()) total += v.get<double>();
  j["compile_s"]["total"] = total;
  if (compile_only) {
    std::cout << j.dump() << "\n";
    return 0;
  }

  std::vector<Literal> args;
  const Computation* entry = (*exe)->module().entry();
  for (const std::string& path : SplitCommas(inputs)) {
    if (path.empty()) continue;
    const Instruction* p = entry->parameter(static_cast<int64_t>(args.size()));
    auto lit = interpreter::ReadNpy(path, &p->shape());
    if (!lit.ok()) return Fail(lit.status().message());
    args.push_back(std::move(*lit));
  }
  Literal result = Literal::CreateUninitialized(entry->root()->shape());
  std::vector<double> times;
  runtime::CpuRunOptions run_options;
  run_options.fresh_buffers = fair;
  for (int it = 0; it < std::max(1, iterations) + 1; ++it) {  // the first run warms up
    Stopwatch watch;
    if (fair) {
      // A fresh output per call, freed inside the timed span (jax frees the array it
      // returned when the timing loop drops it).
      auto out = (*exe)->Run(args, run_options);
      if (!out.ok()) return Fail(out.status().message());
      if (it == 0) result = std::move(*out);  // the untimed warm-up's output is the one compared
    } else {
      Status st = (*exe)->RunInto(args, result, run_options);
      if (!st.ok()) return Fail(st.message());
    }
    if (it > 0) times.push_back(watch.ElapsedSeconds());
  }
  std::sort(times.begin(), times.end());
  j["run_s"]["min"] = times.front();
  j["run_s"]["median"] = times[times.size() / 2];
  j["threads"] = (*exe)->threads();

  std::vector<const Literal*> outs;
  Flatten(result, &outs);
  std::vector<std::string> expected_paths = SplitCommas(expected);
  double max_abs = 0, max_rel = 0;
  bool all_ok = true;
  for (size_t i = 0; i < outs.size() && i < expected_paths.size(); ++i) {
    auto want = interpreter::ReadNpy(expected_paths[i], &outs[i]->shape());
    if (!want.ok()) return Fail(want.status().message());
    interpreter::CompareOptions tol = interpreter::DefaultToleranceFor(outs[i]->shape().element_type());
    tol.rtol = std::max(tol.rtol, 2e-4);  // two compilers, two summation orders
    // An element that is a small difference of large terms (a residual sum near zero)
    // carries the rounding of those terms, not of itself: the absolute tolerance grows with
    // the output's largest magnitude (1e-5 of it; 1e-5 at least).
    double largest = 0;
    if (IsFloat(want->shape().element_type())) {
      for (int64_t e = 0; e < want->element_count(); ++e) {
        const double v = std::fabs(want->GetDouble(e));
        if (std::isfinite(v)) largest = std::max(largest, v);
      }
    }
    tol.atol = std::max(tol.atol, 1e-5 * std::max(1.0, largest));
    interpreter::CompareResult cmp = CompareLiterals(*outs[i], *want, tol);
    all_ok = all_ok && cmp.ok();
    max_abs = std::max(max_abs, cmp.max_abs_error);
    max_rel = std::max(max_rel, cmp.max_rel_error);
    if (!cmp.ok()) j["mismatch"].push_back(cmp.ToString());
  }
  j["outputs_compared"] = std::min(outs.size(), expected_paths.size());
  j["match"] = all_ok && outs.size() == expected_paths.size();
  j["max_abs_error"] = max_abs;
  j["max_rel_error"] = max_rel;
  std::cout << j.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace fusebox

int main(int argc, char** argv) { return fusebox::Main(argc, argv); }
