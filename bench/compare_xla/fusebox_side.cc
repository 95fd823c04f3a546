// The Fusebox half of bench/compare_xla: compiles one HLO module (as jax lowered it) with
// Fusebox's pipeline and CPU backend, runs it on the given inputs, times the compile
// stages and the runs, compares the outputs with XLA's, and prints one JSON object.
//
//   compare_xla_fusebox --hlo F.hlo --inputs a.npy,b.npy --expected o0.npy,o1.npy
//                       [--iterations N] [--threads N] [--unfused]
//
// Measures, never asserts: the Python driver puts XLA's numbers next to these.
#include <algorithm>
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
  int iterations = 10, threads = 0;
  bool unfused = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--hlo") hlo = next();
    else if (a == "--inputs") inputs = next();
    else if (a == "--expected") expected = next();
    else if (a == "--iterations") iterations = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--unfused") unfused = true;
    else return Fail("unknown argument " + a);
  }
  nlohmann::json j;
  Stopwatch parse_watch;
  auto parsed = ParseFile(hlo);
  if (!parsed.ok()) return Fail(parsed.status().message());
  std::unique_ptr<Module> module = std::move(parsed->modules[0]);
  j["compile_s"]["parse"] = parse_watch.ElapsedSeconds();

  Stopwatch pipeline_watch;
  auto optimized = OptimizeForBackend(*module, !unfused);
  if (!optimized.ok()) return Fail(optimized.status().message());
  j["compile_s"]["pipeline"] = pipeline_watch.ElapsedSeconds();
  j["kernels"] = CountKernels(**optimized).kernels;
  j["kernels_unfused"] = CountKernels(*module).kernels;

  Stopwatch codegen_watch;
  CpuExecutableOptions options;
  options.threads = threads;
  options.compile.keep_assembly = false;  // XLA does not print assembly either
  auto exe = CpuExecutable::Create(std::move(*optimized), options);
  if (!exe.ok()) return Fail(exe.status().message());
  j["compile_s"]["codegen_and_jit"] = codegen_watch.ElapsedSeconds();
  double total = 0;
  for (const auto& [k, v] : j["compile_s"].items()) total += v.get<double>();
  j["compile_s"]["total"] = total;

  std::vector<Literal> args;
  const Computation* entry = (*exe)->module().entry();
  for (const std::string& path : SplitCommas(inputs)) {
    if (path.empty()) continue;
    const Instruction* p = entry->parameter(static_cast<int64_t>(args.size()));
    auto lit = ReadNpy(path, &p->shape());
    if (!lit.ok()) return Fail(lit.status().message());
    args.push_back(std::move(*lit));
  }
  Literal result = Literal::CreateUninitialized(entry->root()->shape());
  std::vector<double> times;
  for (int it = 0; it < std::max(1, iterations) + 1; ++it) {  // the first run warms up
    Stopwatch watch;
    Status st = (*exe)->RunInto(args, result);
    if (!st.ok()) return Fail(st.message());
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
    auto want = ReadNpy(expected_paths[i], &outs[i]->shape());
    if (!want.ok()) return Fail(want.status().message());
    CompareOptions tol = DefaultToleranceFor(outs[i]->shape().element_type());
    tol.rtol = std::max(tol.rtol, 2e-4);  // two compilers, two summation orders
    tol.atol = std::max(tol.atol, 1e-5);
    CompareResult cmp = CompareLiterals(*outs[i], *want, tol);
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
