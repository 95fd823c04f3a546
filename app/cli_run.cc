// `fusebox run`: the module on the interpreter, the CPU or the GPU backend, or on N
// logical devices; inputs from files or a seed, outputs printed or written as .npy, the
// trace, and the numerical checks (--check, --expected).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/check/numeric_check.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/npy.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/ir/library_calls.h"
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/multi_device.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/session/machine_peaks.h"
#include "compiler/session/profiled_run.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/support/timer.h"
#include "importers/argument_files.h"
#include "importers/module_loader.h"
#include "profiler/chrome_trace.h"
#include "profiler/kernel_summary.h"
#include "profiler/multi_device_trace.h"
#include "profiler/roofline.h"

namespace fusebox::cli::cli_internal {

namespace {

// Prints one check report as `run --check` does (verdict, then a line per output) and
// sets *check_failed when it does not pass.
void PrintCheckReport(const char* label, const check::CheckReport& report, bool* check_failed) {
  std::cerr << label << ": " << report.Summary() << "\n";
  if (!report.shadow_note.empty()) {
    std::cerr << "  no f64 shadow (" << report.shadow_note
              << "): bounds are the element types' floors\n";
  }
  constexpr size_t kMaxLines = 20;
  for (size_t i = 0; i < report.outputs.size() && i < kMaxLines; ++i) {
    std::cerr << "  " << report.outputs[i].ToString() << "\n";
  }
  if (report.outputs.size() > kMaxLines) {
    std::cerr << "  ... and " << report.outputs.size() - kMaxLines << " more output(s)\n";
  }
  if (!report.passed()) *check_failed = true;
}

// --check and --expected (compiler/check/numeric_check.h): judges `result` against the
// interpreter and its f64 shadow, or against the user's outputs, prints the verdict and a
// line per output (with the bound used) to stderr, and sets *check_failed when the check
// fails or would be vacuous.
Status CheckResult(const Module& module, const std::vector<Literal>& args, const Literal& result,
                   const RunOptions& opts, bool* check_failed,
                   const check::CheckOptions& check_options = {}) {
  if (!opts.check && opts.expected.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(check::CheckReference reference, check::ComputeCheckReference(module, args, check_options));
  auto print = [&](const char* label, const check::CheckReport& report) {
    PrintCheckReport(label, report, check_failed);
  };
  if (opts.check) print("check", check::CheckOutputs(result, reference, args, check_options));
  if (opts.check && check_options.interpreter.library_call) {
    // Say what the reference's LAPACK calls mean for the check: not an independent model.
    std::vector<std::string> calls;
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation->instructions()) {
        if (interpreter::TakesLibraryCall(check_options.interpreter, *inst)) {
          calls.push_back("%" + inst->name() + " (" + inst->attrs().custom_call_target + ")");
        }
      }
    }
    if (!calls.empty()) {
      std::string names;
      for (size_t i = 0; i < calls.size() && i < 4; ++i) names += (i ? ", " : "") + calls[i];
      if (calls.size() > 4) names += ", ...";
      std::cerr << "check: note: " << calls.size() << " LAPACK call(s) run LAPACK in the reference too (" << names
                << "): an f32 call is measured against its f64 shadow (the d routine), an f64 call only by what "
                   "the module computes from it (jax's GPU solver calls count: LAPACK answers them alike)\n";
    }
  }
  if (!opts.expected.empty()) {
    std::vector<const Literal*> leaves;
    ForEachArrayLeaf(result, [&](const Literal& leaf) { leaves.push_back(&leaf); });
    if (leaves.size() != opts.expected.size()) {
      return InvalidArgument("--expected has " + std::to_string(opts.expected.size()) +
                             " file(s) but the module has " + std::to_string(leaves.size()) +
                             " output(s)");
    }
    std::vector<Literal> expected;
    for (size_t i = 0; i < leaves.size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, interpreter::ReadNpy(opts.expected[i], &leaves[i]->shape()));
      expected.push_back(std::move(e));
    }
    print("expected",
          check::CheckOutputsAgainstExpected(result, expected, reference, args, check_options));
  }
  return Status::Ok();
}

// --roofline: the kernels under the machine's roofs (profiler/roofline.h): the CPU's
// measured once per machine, the GPU's from its attributes and a measured bandwidth
// (compiler/session/machine_peaks.h).
Status PrintRoofline(const profiler::KernelSummary& summary, const RunOptions& opts) {
  ASSIGN_OR_RETURN(profiler::MachinePeaks peaks, session::MachinePeaksFor(opts.backend, opts.threads));
  std::cerr << profiler::FormatRoofline(profiler::Roofline(summary, peaks), peaks, 20);
  return Status::Ok();
}

// After a backend run: the kernel summary table, the trace file (--trace), and the checks.
Status ReportTraceAndCheck(const Module& module, const std::vector<Literal>& args,
                           const profiler::Trace& trace, const Literal& result,
                           const RunOptions& opts, bool* check_failed) {
  profiler::KernelSummary summary = profiler::Summarize(trace);
  std::cerr << profiler::FormatSummaryTable(summary, 20);
  if (opts.roofline) RETURN_IF_ERROR(PrintRoofline(summary, opts));
  if (!opts.trace.empty()) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(trace, opts.trace));
    std::cerr << "wrote the trace (" << trace.events().size() << " events) to " << opts.trace
              << "\n";
  }
  // The CPU backend runs jax's LAPACK calls through LAPACK: so does its reference, where
  // the library's choices (an eigenvector's sign) are the library's (library_kernels.h).
  // jax's GPU Cholesky, LU and QR calls, which LAPACK answers alike, run through LAPACK in
  // the reference of both backends (IsLapackTwinGpuCall): their plain HLO's magnitude
  // shadow bounds nothing at a QR of 64 x 64.
  check::CheckOptions check_options;
  if (opts.backend == "cpu" || opts.backend == "gpu") check_options.interpreter.library_call = runtime::RunLapackOnLiterals;
  check_options.interpreter.library_call_gpu_twins_only = opts.backend == "gpu";
  // jax's GPU eigh and SVD calls too where the GPU runs them through cuSOLVER (its
  // libraries on): the vectors' signs are a library's either way, and the comparison
  // aligns them (numeric_check.h); with the libraries off the GPU runs the Jacobi model,
  // as the reference does.
  check_options.interpreter.library_call_gpu_vector_twins = opts.backend == "gpu" && opts.gpu_library == "on";
  return CheckResult(module, args, result, opts, check_failed, check_options);
}

// Runs `module` with the CPU or GPU backend (compiler/session/profiled_run.h): compiles (fused,
// or with --unfused one kernel per op), runs --iterations times under the backend's
// tracer, prints the kernel summary, writes the trace, and with --check compares the
// result with the interpreter's.
StatusOr<Literal> RunOnBackend(const Module& module, const std::vector<Literal>& args,
                               const RunOptions& opts, CompileTrace* trace, bool* check_failed) {
  session::ProfiledRunOptions run_opts;
  run_opts.compile_trace = trace;
  run_opts.backend = opts.backend;
  run_opts.fused = !opts.unfused;
  run_opts.iterations = opts.iterations;
  run_opts.threads = opts.threads;
  run_opts.gpu_arch = opts.gpu_arch;
  run_opts.gpu_libraries = opts.gpu_library == "on";
  run_opts.upload_every_run = opts.upload_every_run;
  if (opts.gpu_autotune != "on" && opts.gpu_autotune != "off")
    return InvalidArgument("--gpu-autotune: on or off, not '" + opts.gpu_autotune + "'");
  run_opts.gpu_autotune = opts.gpu_autotune == "on";
  run_opts.gpu_autotune_cache = opts.gpu_autotune_cache;
  if (!runtime::ParseGemmKernels(opts.gpu_gemm_kernels, &run_opts.gpu_gemm_kernels))
    return InvalidArgument("--gpu-gemm-kernels: timed, library or fusebox, not '" + opts.gpu_gemm_kernels + "'");
  if (opts.gpu_occupancy != "tuned" && opts.gpu_occupancy != "off")
    return InvalidArgument("--gpu-occupancy: tuned or off, not '" + opts.gpu_occupancy + "'");
  run_opts.gpu_tune_occupancy = opts.gpu_occupancy == "tuned";
  if (opts.gpu_kernel_shapes != "timed" && opts.gpu_kernel_shapes != "default")
    return InvalidArgument("--gpu-kernel-shapes: timed or default, not '" + opts.gpu_kernel_shapes + "'");
  run_opts.gpu_kernel_variants = opts.gpu_kernel_shapes == "timed";
  if (!runtime::ParseHostStaging(opts.host_staging, &run_opts.gpu_host_staging))
    return InvalidArgument("--host-staging: pinned or pageable, not '" + opts.host_staging + "'");
  // A checked run holds the GPU to the interpreter's f32 bound: its gemms and dots compute
  // in full f32 (TF32's 10-bit mantissa would fail that bound without anything being wrong;
  // the tensor-core dots are checked by their own tests, gpu_mma_dot_test on the emulator
  // and TensorCoreDotsMatchOnTheDevice on a GPU).
  run_opts.gpu_tf32 = !(opts.check || !opts.expected.empty());
  if (opts.backend == "gpu" && !run_opts.gpu_tf32) {
    std::cerr << "note: --check/--expected: " << (run_opts.gpu_libraries ? "cuBLAS gemms and " : "")
              << "Fusebox's own dots compute in full f32 (not TF32 as XLA's DEFAULT precision would), "
                 "so the interpreter's bound applies\n";
  }
  ASSIGN_OR_RETURN(session::ProfiledRun run, session::RunProfiled(module, args, run_opts));
  for (const std::string& note : run.notes) std::cerr << note << "\n";
  std::cerr << run.Describe(module.name()) << "\n";
  RETURN_IF_ERROR(ReportTraceAndCheck(module, args, run.trace, run.result, opts, check_failed));
  return std::move(run.result);
}

// Flattens a (possibly nested) tuple result into named leaves: "output", or "output_0",
// "output_1_0", ...
void FlattenResult(const Literal& literal, const std::string& name,
                   std::vector<std::pair<std::string, const Literal*>>* leaves) {
  if (!literal.shape().IsTuple()) {
    leaves->emplace_back(name, &literal);
    return;
  }
  for (size_t i = 0; i < literal.tuple_elements().size(); ++i) {
    FlattenResult(literal.tuple_elements()[i], name + "_" + std::to_string(i), leaves);
  }
}

// Prints the outputs (shapes, --print values), writes --output-dir, and gives the exit
// code of the run.
int WriteRunOutputs(const Literal& result_literal, const std::vector<Literal>& args,
                    const RunOptions& opts, bool check_failed) {
  const Literal* result = &result_literal;
  std::vector<std::pair<std::string, const Literal*>> leaves;
  FlattenResult(*result, "output", &leaves);
  for (const auto& [name, lit] : leaves) {
    std::cout << name << ": " << lit->shape().ToString(false);
    if (opts.print) {
      if (lit->element_count() <= opts.print_limit) {
        std::cout << " " << lit->ToString();
      } else {
        std::cout << " (" << lit->element_count() << " elements; more than --print-limit "
                  << opts.print_limit << ", not printed)";
      }
    }
    std::cout << "\n";
  }
  if (!opts.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opts.output_dir, ec);
    if (ec)
      return ReportStatus(
          InvalidArgument(opts.output_dir + ": cannot create folder: " + ec.message()));
    for (const auto& [name, lit] : leaves) {
      std::string path = opts.output_dir + "/" + name + ".npy";
      Status st = interpreter::WriteNpy(path, *lit);
      if (!st.ok()) return ReportStatus(st);
    }
    if (opts.save_inputs) {
      for (size_t i = 0; i < args.size(); ++i) {
        std::vector<std::pair<std::string, const Literal*>> in_leaves;
        FlattenResult(args[i], "input_" + std::to_string(i), &in_leaves);
        for (const auto& [name, lit] : in_leaves) {
          Status st = interpreter::WriteNpy(opts.output_dir + "/" + name + ".npy", *lit);
          if (!st.ok()) return ReportStatus(st);
        }
      }
    }
    std::cerr << "wrote " << leaves.size() << " output(s)"
              << (opts.save_inputs ? " and the inputs" : "") << " to " << opts.output_dir << "\n";
  }
  return check_failed ? kExitUserError : kExitOk;
}


// `fusebox run FILE --devices N` (compiler/session/multi_device_run.h): partitions a global
// program, runs the per-device one on N logical devices, prints the per-device and
// per-collective tables, writes the trace, and checks.
Status RunOnDevicesCommand(const CommonInput& in, const Module& module, const RunOptions& opts,
                           int64_t devices, std::vector<Literal>* global_args,
                           std::optional<Literal>* result_value, bool* check_failed) {
  session::MultiDeviceRunOptions mo;
  mo.devices = devices;
  mo.backend = opts.backend;
  mo.fused = !opts.unfused;
  mo.iterations = opts.iterations;
  mo.output_sharding = opts.output_sharding;
  mo.unpartitioned_path = opts.unpartitioned;
  mo.source_path = in.path;
  mo.seed = opts.seed;
  if (!opts.inputs.empty()) {
    // Global arrays: read against a view of the module with global parameter shapes.
    std::unique_ptr<Module> global_view;
    const Module* shapes_from = &module;
    if (IsPerDeviceProgram(module)) {
      std::unique_ptr<Module> unpartitioned;
      std::string path = opts.unpartitioned;
      if (path.empty() && opts.output_sharding.empty())
        path = session::FindUnpartitionedDump(in.path, module.name());
      if (!path.empty()) {
        ASSIGN_OR_RETURN(ParseResult parsed, ParseFile(path));
        if (!parsed.modules.empty()) unpartitioned = std::move(parsed.modules[0]);
      }
      ASSIGN_OR_RETURN(std::vector<Shape> shapes,
                       runtime::GlobalParameterShapes(module, unpartitioned.get()));
      ASSIGN_OR_RETURN(global_view, runtime::GlobalParameterView(module, shapes));
      shapes_from = global_view.get();
    }
    ASSIGN_OR_RETURN(importers::ArgumentFiles loaded, importers::LoadArgumentFiles(*shapes_from, opts.inputs));
    for (const std::string& note : loaded.notes) std::cerr << "note: " << note << "\n";
    mo.arguments = std::move(loaded.arguments);
  }
  ASSIGN_OR_RETURN(session::MultiDeviceRun run,
                   session::RunOnDevicesProfiled(module, std::move(mo)));
  for (const std::string& note : run.notes) std::cerr << "note: " << note << "\n";
  if (opts.backend == "cpu") {
    std::fprintf(stderr, "compiled %s for the CPU (%s) in %.3f s\n", module.name().c_str(),
                 opts.unfused ? "unfused" : "fused", run.compile_s);
  }
  std::fprintf(stderr, "ran %s on %lld devices on %s: %.3f ms%s\n", module.name().c_str(),
               static_cast<long long>(run.devices), run.how.c_str(), run.times_s.front() * 1e3,
               run.times_s.size() > 1
                   ? (" (fastest of " + std::to_string(run.times_s.size()) + ")").c_str()
                   : "");
  std::cerr << profiler::FormatDeviceTable(run.device_rows);
  std::cerr << profiler::FormatCollectiveTable(run.collective_rows);
  if (!opts.trace.empty()) {
    RETURN_IF_ERROR(profiler::WriteChromeTrace(run.trace, opts.trace));
    std::cerr << "wrote the trace (" << run.trace.events().size() << " events, " << run.devices
              << " device tracks) to " << opts.trace << "\n";
  }
  std::optional<std::vector<Literal>> expected;
  if (!opts.expected.empty()) {
    std::vector<const Literal*> leaves;
    ForEachArrayLeaf(run.result, [&](const Literal& leaf) { leaves.push_back(&leaf); });
    if (leaves.size() != opts.expected.size()) {
      return InvalidArgument("--expected has " + std::to_string(opts.expected.size()) +
                             " file(s) but the module has " + std::to_string(leaves.size()) +
                             " output(s)");
    }
    expected.emplace();
    for (size_t i = 0; i < leaves.size(); ++i) {
      ASSIGN_OR_RETURN(Literal e, interpreter::ReadNpy(opts.expected[i], &leaves[i]->shape()));
      expected->push_back(std::move(e));
    }
  }
  if (opts.check && opts.backend == "interpreter") {
    return InvalidArgument(
        "--check compares a backend with the interpreter; use --backend cpu, or --expected");
  }
  ASSIGN_OR_RETURN(session::MultiDeviceCheck checked,
                   session::CheckMultiDeviceRun(run, opts.check, expected ? &*expected : nullptr));
  if (!checked.note.empty()) std::cerr << "note: " << checked.note << "\n";
  if (checked.against_interpreter)
    PrintCheckReport("check", *checked.against_interpreter, check_failed);
  if (checked.against_expected)
    PrintCheckReport("expected", *checked.against_expected, check_failed);
  *global_args = std::move(run.arguments);
  *result_value = std::move(run.result);
  return Status::Ok();
}

}  // namespace

int RunRun(const CommonInput& in, const RunOptions& opts) {
  CompileTrace trace;
  CompileTrace* tracing = opts.compile_trace.wanted() ? &trace : nullptr;
  auto file = Load(in, false, tracing);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/false);
  if (!picked.ok()) return ReportStatus(picked.status());
  const Module& module = *file->modules[picked->front()];
  VerifierOptions vopts;
  vopts.filename = in.path;
  bool verify_errors = false;
  ScopedSpan verify_span(tracing, compile_category::kVerify, "verify");
  verify_span.Arg("after", "parse");
  PrintVerifierIssues(VerifyModule(module, vopts), &verify_errors);
  verify_span.End();
  if (verify_errors) {
    std::cerr << "error: " << in.path << ": the module does not verify; not running it\n";
    return kExitUserError;
  }

  // Several devices: --devices N, or a per-device program that needs more than one.
  const int64_t needed = DevicesOfModule(module);
  const int64_t devices = opts.devices > 0 ? opts.devices : needed;
  if (devices > 1) {
    if (tracing != nullptr) std::cerr << "note: --compile-trace covers runs on one device; not traced\n";
    std::vector<Literal> global_args;
    std::optional<Literal> result_value;
    bool check_failed = false;
    Status ran =
        RunOnDevicesCommand(in, module, opts, devices, &global_args, &result_value, &check_failed);
    if (!ran.ok()) {
      // "file:line:col: ..." when the message starts with a location, else "file: ...";
      // as it is when it names the file already ("device 2: file:12:3: ...").
      const std::string& m = ran.message();
      if (m.find(in.path) != std::string::npos) return ReportStatus(ran);
      const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0]));
      return ReportStatus(ran.WithPrefix(in.path + (located ? ":" : ": ")));
    }
    return WriteRunOutputs(*result_value, global_args, opts, check_failed);
  }

  // Arguments: from --inputs (.npy files, one .npz, one HloSnapshot), or random with the
  // seed, each parameter's distribution chosen from its uses.
  std::vector<Literal> args;
  std::vector<std::string> inputs = opts.inputs;
  if (inputs.empty() && !file->arguments.empty() && !opts.seed_given) {
    // An HloSnapshot as FILE brings the arguments it recorded.
    std::cerr << "note: using the " << file->arguments.size()
              << " argument(s) recorded in the snapshot (--seed N for random ones)\n";
    inputs = {in.path};
  }
  if (!inputs.empty()) {
    auto loaded = importers::LoadArgumentFiles(module, inputs);
    if (!loaded.ok()) return ReportStatus(loaded.status());
    for (const std::string& note : loaded->notes) std::cerr << "note: " << note << "\n";
    if (opts.explain_inputs) {
      std::cout << "inputs of " << module.name() << " (from "
                << (opts.inputs.empty() ? "the snapshot" : "--inputs") << "):\n";
      const Computation* entry = module.entry();
      for (int64_t p = 0; p < entry->parameter_count(); ++p) {
        const Instruction* parameter = entry->parameter(p);
        std::cout << "  parameter " << p << " (%" << parameter->name() << ", "
                  << parameter->shape().ToString(false) << "): " << loaded->sources[p] << "\n";
      }
    }
    args = std::move(loaded->arguments);
  } else {
    if (opts.explain_inputs) {
      auto choices = interpreter::ExplainRandomArguments(module);
      if (!choices.ok()) return ReportStatus(choices.status());
      std::cout << "inputs of " << module.name() << " (random, seed " << opts.seed << "):\n";
      for (const interpreter::InputChoice& choice : *choices) std::cout << "  " << choice.ToString() << "\n";
    }
    auto random = interpreter::RandomArguments(module, opts.seed);
    if (!random.ok()) return ReportStatus(random.status());
    args = std::move(random).value();
  }
  std::cout.flush();

  std::optional<Literal> result_value;
  bool check_failed = false;
  if (opts.backend == "cpu" || opts.backend == "gpu") {
    auto ran = RunOnBackend(module, args, opts, tracing, &check_failed);
    if (tracing != nullptr) {
      if (Status st = FinishCompileTrace(trace, opts.compile_trace); !st.ok()) return ReportStatus(st);
    }
    if (!ran.ok()) {
      // "file:line:col: ..." when the message starts with a location, else "file: ...".
      const std::string& m = ran.status().message();
      const bool located = !m.empty() && std::isdigit(static_cast<unsigned char>(m[0]));
      return ReportStatus(ran.status().WithPrefix(in.path + (located ? ":" : ": ")));
    }
    result_value = std::move(*ran);
  } else {
    // A call with no plain HLO (LAPACK's geev) runs LAPACK itself, and the run says so.
    interpreter::InterpreterOptions interpreter_options;
    interpreter_options.library_call = runtime::RunLapackOnLiterals;
    interpreter_options.library_call_unmodelled_only = true;
    for (const auto& computation : module.computations()) {
      for (const auto& inst : computation->instructions()) {
        if (IsCpuLapackTarget(*inst) && !HasPlainHloModel(*inst)) {
          std::cerr << "note: %" << inst->name() << " (" << inst->attrs().custom_call_target
                    << ") has no plain-HLO model: the interpreter runs LAPACK for it, as the CPU backend does\n";
        }
      }
    }
    interpreter::Interpreter interpreter(interpreter_options);
    Stopwatch watch;
    auto ran = interpreter.Run(module, args);
    double seconds = watch.ElapsedSeconds();
    if (!ran.ok()) return ReportStatus(ran.status());
    const interpreter::InterpreterStats& stats = interpreter.stats();
    std::fprintf(
        stderr, "ran %s on the interpreter in %.3f s: %lld instructions, %.3g elements/s\n",
        module.name().c_str(), seconds, static_cast<long long>(stats.instructions_evaluated),
        seconds > 0 ? static_cast<double>(stats.elements_produced) / seconds : 0.0);
    result_value = std::move(*ran);
    if (opts.check) {
      std::cerr << "check: --check compares a backend with the interpreter; use --backend cpu|gpu, "
                   "or --expected to compare the interpreter with given outputs\n";
      return kExitUserError;
    }
    check::CheckOptions check_options;
    check_options.interpreter.library_call = interpreter_options.library_call;
    check_options.interpreter.library_call_unmodelled_only = true;
    Status checked = CheckResult(module, args, *result_value, opts, &check_failed, check_options);
    if (!checked.ok()) return ReportStatus(checked);
  }
  return WriteRunOutputs(*result_value, args, opts, check_failed);
}

CLI::App* AddRunCommand(CLI::App& app, CommonInput* in, RunOptions* opts) {
  CLI::App* cmd = app.add_subcommand("run",
                                     "Run the module on the reference interpreter, the CPU backend "
                                     "(LLVM JIT) or the GPU backend (CUDA), "
                                     "with inputs from .npy files or random ones from a seed");
  AddInputOptions(cmd, in);
  cmd->add_flag("--unfused", opts->unfused,
                "CPU/GPU: one kernel per op (the pipeline without fusion)");
  cmd->add_option("--iterations", opts->iterations,
                  "CPU/GPU: run this many times (timings, traces)");
  cmd->add_option("--trace", opts->trace,
                  "CPU/GPU: write a Chrome trace-event JSON (opens in Perfetto)");
  cmd->add_flag("--roofline", opts->roofline,
                "CPU: each kernel's flop/byte, GFLOP/s and GB/s under the machine's measured roofs, and what bounds it");
  AddCompileTraceOptions(cmd, &opts->compile_trace);
  cmd->add_flag(
      "--check", opts->check,
      "CPU/GPU: compare with the interpreter and its f64 shadow, output by output, within a bound "
      "derived from the interpreter's own rounding error (printed); NaN/inf compared by class; "
      "exit 1 on a mismatch, or when the check would be vacuous (every output NaN, constant or a "
      "parameter passed through)");
  cmd->add_option("--expected", opts->expected,
                  "One .npy per output (in order; XLA's own outputs, say): compare the run's "
                  "outputs with them "
                  "by the same rules as --check; exit 1 on a mismatch")
      ->delimiter(',');
  cmd->add_option("--threads", opts->threads,
                  "CPU: worker threads (default: one per hardware thread)");
  cmd->add_option(
      "--devices", opts->devices,
      "Run the per-device (SPMD-partitioned) program on N logical devices, one thread each, "
      "with collectives exchanged in the process; --inputs and outputs are global arrays "
      "(default: what the module needs)");
  cmd->add_option(
      "--output-sharding", opts->output_sharding,
      "Multi-device: how the outputs are split, in XLA's text ('{devices=[4,1]<=[4]}', tuples "
      "'{{replicated}, {...}}'), for a partitioned module whose root does not say");
  cmd->add_option(
      "--unpartitioned", opts->unpartitioned,
      "Multi-device: the module before partitioning (XLA's before_spmd-partitioning dump): "
      "global parameter shapes and output shardings (found beside FILE when it is in a dump)");
  cmd->add_option("--gpu-arch", opts->gpu_arch,
                  "GPU: compile for this target (default: the device's own)");
  cmd->add_option("--gpu-library", opts->gpu_library,
                  "GPU: on (default): dots cuBLAS can run, and XLA's __cublas$gemm calls, go to cuBLASLt (f64: cuBLAS) "
                  "(f32 DEFAULT/HIGH precision in TF32 as XLA does; full f32 under --check), convolutions to cuDNN, "
                  "Fourier transforms to cuFFT, triangular solves to cuBLAS's trsm, Cholesky and LU factorizations to "
                  "cuSOLVER; off: "
                  "Fusebox's own kernels for everything (XLA's library calls lowered to HLO)")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--gpu-autotune", opts->gpu_autotune,
                  "GPU: on (default): cuDNN's and cuBLASLt's algorithms for each library call are timed at "
                  "compile time and the fastest kept (within the call's precision), as XLA's autotuner does; "
                  "off: the libraries' heuristics choose")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--gpu-gemm-kernels", opts->gpu_gemm_kernels,
                  "GPU: timed (default): gemm library calls with a side of at most 16 elements (a classifier's "
                  "outputs) or a contraction of at most 16 also get Fusebox's own kernel, timed against the library's choice at compile time "
                  "(with --gpu-autotune=on), the faster runs; library: the library always; fusebox: Fusebox's "
                  "kernel always")
      ->check(CLI::IsMember({"timed", "library", "fusebox"}));
  cmd->add_option("--gpu-occupancy", opts->gpu_occupancy,
                  "GPU: tuned (default): a kernel whose grid would run in fewer waves with more blocks an SM asks "
                  "ptxas for them, kept where it got them without spilling (the run's notes say which); off: "
                  "ptxas's own register choice")
      ->check(CLI::IsMember({"tuned", "off"}));
  cmd->add_option("--gpu-kernel-shapes", opts->gpu_kernel_shapes,
                  "GPU: timed (default, with --gpu-autotune=on): row kernels (softmax, normalizations) and row "
                  "reductions are also compiled with other numbers of threads a row, column reductions (bias "
                  "gradients) with the other block size, skinny dots with other rows a block, each shape timed "
                  "at compile time and the fastest run (the run's notes give the times); default: the emitter's "
                  "shape")
      ->check(CLI::IsMember({"timed", "default"}));
  cmd->add_option("--gpu-autotune-cache", opts->gpu_autotune_cache,
                  "GPU: a file of autotuned choices, loaded before compiling (started when missing) and "
                  "written back after; a choice is reused only for the same library version, device and call, "
                  "and only while the library still offers it");
  cmd->add_flag("--upload-every-run", opts->upload_every_run,
                "GPU: upload the arguments before every run (default: once; they stay on the device)");
  cmd->add_option(
         "--host-staging", opts->host_staging,
         "GPU: pinned (default): host<->device copies of 256 KiB and more go through a few "
         "page-locked staging slots, memcpy overlapping the DMA; pageable: the driver's "
         "synchronous copies from the caller's memory (to compare)")
      ->check(CLI::IsMember({"pinned", "pageable"}));
  cmd->add_option(
         "--backend", opts->backend,
         "interpreter (default) | cpu | gpu (CUDA driver and a GPU); each runs one device: a "
         "module "
         "whose collectives span more (replica groups over 4 devices) is refused, naming the "
         "instruction and the devices it needs")
      ->check(CLI::IsMember({"interpreter", "cpu", "gpu"}));
  cmd->add_option(
         "--inputs", opts->inputs,
         "The arguments: a.npy,b.npy,... (one .npy per entry parameter, in order) | x.npz (one "
         "archive as numpy.savez writes it; members named like the parameters, with or without "
         "XLA's .N suffix, or arr_0, arr_1, ... by position) | snapshot.pb (an HloSnapshot from "
         "XLA's --xla_dump_hlo_snapshots: the arguments it recorded)")
      ->delimiter(',');
  cmd->add_option(
      "--seed", opts->seed,
      "Seed of the random inputs (when --inputs is not given). Each parameter's values "
      "follow its uses: uniform [-1, 1) by default, [0.5, 1.5) where they reach sqrt, "
      "rsqrt, log, pow's base or a divisor, integers in range for indices and shift amounts");
  cmd->add_flag("--explain-inputs", opts->explain_inputs,
                "Before running, print to stdout each parameter's values and why: the distribution "
                "chosen and the use that asked for it (or the file it came from)");
  cmd->add_option("--output-dir", opts->output_dir,
                  "Write each output as .npy into this folder (output.npy, or output_0.npy, "
                  "output_1.npy, ... for tuples)");
  cmd->add_flag("--save-inputs", opts->save_inputs,
                "With --output-dir, also write the inputs used (input_0.npy, ...)");
  cmd->add_flag("--print", opts->print, "Print the outputs in XLA's literal syntax");
  cmd->add_option("--print-limit", opts->print_limit,
                  "Largest output (in elements) that --print writes out (default 1000)");
  AddPlantBugOption(cmd);
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
