#include "compiler/runtime/library_kernels.h"
#include "compiler/session/multi_device_run.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/cuda_driver.h"
#include "profiler/execution_observer.h"
#include "compiler/runtime/multi_device.h"
#include "compiler/support/timer.h"
#include "profiler/cpu_tracer.h"

namespace fusebox::session {

// The profiler's tracers and trace model, which the profiled runs drive.
using namespace profiler;  // NOLINT(google-build-using-namespace)

std::string FindUnpartitionedDump(const std::string& path, const std::string& module_name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::is_directory(path, ec) ? fs::path(path) : fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 2) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    if (name.find("." + module_name + ".") == std::string::npos) continue;
    if (name.find("before_spmd-partitioning") != std::string::npos) return it->path().string();
  }
  return "";
}

namespace {

// The reference runner of a check: the same per-device program on the same devices in the
// interpreter (outputs assembled with the same shardings).
struct ReferenceRunner {
  int64_t devices;
  std::optional<Sharding> root_sharding;
  std::optional<Shape> global_shape;
  StatusOr<Literal> operator()(const Module& m, const std::vector<Literal>& args, const interpreter::InterpreterOptions& io) const {
    runtime::MultiDeviceOptions ref;
    ref.devices = devices;
    ref.interpreter = io;
    if (root_sharding) ref.root_sharding = &*root_sharding;
    if (global_shape) ref.global_result_shape = &*global_shape;
    ASSIGN_OR_RETURN(runtime::MultiDeviceResult r, runtime::RunOnDevices(m, args, ref));
    return std::move(r.global);
  }
};

}  // namespace

namespace {

// The GPU needs one GPU per device and NCCL: say which part is missing here.
Status RefuseGpuRun(int64_t devices) {
  const std::string what = "multi-device runs on the GPU need one GPU per device (" + std::to_string(devices) + ")";
  auto gpus = runtime::CudaDeviceCount();
  if (!gpus.ok()) return Unavailable(what + ": " + std::string(gpus.status().message()));
  if (*gpus < devices) {
    return Unavailable(what + "; this machine has " + std::to_string(*gpus) + " GPU(s): use the interpreter or "
                       "the CPU backend, which run any number of devices");
  }
  return Unimplemented(what + " and NCCL (libnccl.so.2) for the collectives, which Fusebox does not drive yet; "
                       "use the interpreter or the CPU backend");
}

// The per-device program: a global program (shardings on global shapes, Shardy attributes,
// shard_map regions) partitioned by the same passes `fusebox compile` runs, with a note
// and the partitioner's decisions in `run`; a per-device program copied as it is.
StatusOr<std::unique_ptr<Module>> PerDeviceProgram(const Module& module, int64_t devices, MultiDeviceRun& run) {
  if (IsPerDeviceProgram(module)) {
    std::unique_ptr<Module> copy = module.Clone();
    if (copy == nullptr) return Internal(module.name() + ": the module could not be copied");
    copy->LocateInPrintedText();  // messages point into the printed module, as PartitionForDevices's
    return copy;
  }
  const int64_t partitions = module.num_partitions.value_or(1);
  if (partitions != devices) {
    return InvalidArgument(module.name() + " is a global program for num_partitions=" + std::to_string(partitions) +
                           "; it runs on that many devices (or on 1, shardings ignored), not " +
                           std::to_string(devices));
  }
  passes::PassContext context;
  Stopwatch watch;
  auto made = PartitionForDevices(module, context);
  if (!made.ok()) {
    return Status(made.status().code(), "SPMD partitioning failed: " + std::string(made.status().message()) +
                                            " (on 1 device it runs with its shardings ignored)");
  }
  run.global_program = &module;
  run.decisions = context.collectives();
  // Collectives by kind; then the decisions about how instructions are computed, which
  // insert none themselves.
  std::map<std::string, int64_t> kinds;
  int64_t fallbacks = 0, uneven = 0;
  for (const passes::CollectiveDecision& d : run.decisions) {
    if (d.kind == "replicated-fallback") {
      ++fallbacks;
    } else if (d.kind == "uneven-split") {
      ++uneven;
    } else {
      ++kinds[d.kind];
    }
  }
  std::string list;
  for (const auto& [kind, n] : kinds) list += (list.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  if (list.empty()) list = "no collectives inserted";
  if (fallbacks > 0) list += "; " + std::to_string(fallbacks) + " computed whole on every device (replicated fallback)";
  if (uneven > 0) list += "; " + std::to_string(uneven) + " computed whole along a dim their split does not divide";
  char line[256];
  std::snprintf(line, sizeof(line), "partitioned %s for %lld devices in %.3f s: %s", module.name().c_str(),
                static_cast<long long>(devices), watch.ElapsedSeconds(), list.c_str());
  run.notes.push_back(std::string(line) + " (fusebox explain --collectives: why)");
  return std::move(*made);
}

// The output sharding of a global program whose root has none (jax leaves the outputs'
// shardings to XLA's propagation): Fusebox's propagation over it, accepted only when every
// output's tile is the per-device program's output shape.
StatusOr<Sharding> PropagatedOutputSharding(const Module& unpartitioned, const Module& per_device,
                                            const std::string& path) {
  const std::string why = path + ": the outputs carry no sharding and ";
  passes::PassContext context;
  auto partitioned = PartitionForDevices(unpartitioned, context);
  if (!partitioned.ok()) {
    return InvalidArgument(why + "Fusebox's propagation over it failed (" + std::string(partitioned.status().message()) +
                           "); give the output sharding (run --output-sharding '{devices=[4,1]<=[4]}')");
  }
  ASSIGN_OR_RETURN(std::optional<Sharding> chosen, ShardingOf(*(*partitioned)->entry()->root()));
  if (!chosen) return InvalidArgument(why + "Fusebox's propagation over it chose none; give --output-sharding");
  const Shape& global = unpartitioned.entry()->root()->shape();
  const Shape& local = per_device.entry()->root()->shape();
  const Shape& ours = (*partitioned)->entry()->root()->shape();
  if (!ours.Compatible(local)) {
    return InvalidArgument(why + "the sharding Fusebox's propagation chose, " + chosen->ToString() + ", splits " +
                           global.ToString() + " into " + ours.ToString() + ", not the per-device program's " +
                           local.ToString() + ": give the output sharding XLA chose (run --output-sharding)");
  }
  return *chosen;
}

// How the outputs are split and what they assemble into.
struct OutputLayout {
  std::optional<Sharding> root_sharding;
  std::optional<Shape> global_result_shape;
  std::unique_ptr<Module> unpartitioned;  // the module before partitioning, when read
};

// The root's sharding, --output-sharding, or the module before partitioning (XLA's
// optimized text drops the output shardings: found beside the source when not given).
StatusOr<OutputLayout> ResolveOutputs(const Module& module, const Module& per_device,
                                      const MultiDeviceRunOptions& options, MultiDeviceRun& run) {
  OutputLayout out;
  std::string unpartitioned_path = options.unpartitioned_path;
  ASSIGN_OR_RETURN(std::optional<Sharding> own, ShardingOf(*per_device.entry()->root()));
  if (run.global_program != nullptr) {
    out.global_result_shape = run.global_program->entry()->root()->shape();
    unpartitioned_path.clear();
  } else if (unpartitioned_path.empty() && !own.has_value() && options.output_sharding.empty() &&
             !options.source_path.empty()) {
    unpartitioned_path = FindUnpartitionedDump(options.source_path, module.name());
  }
  if (!unpartitioned_path.empty()) {
    ASSIGN_OR_RETURN(ParseResult parsed, ParseFile(unpartitioned_path));
    if (parsed.modules.empty()) return InvalidArgument(unpartitioned_path + ": no module");
    out.unpartitioned = std::move(parsed.modules[0]);
    auto outputs = runtime::GlobalOutputsOf(*out.unpartitioned);
    if (outputs.ok()) {
      out.root_sharding = outputs->sharding;
      out.global_result_shape = outputs->shape;
      run.notes.push_back("global shapes and output shardings from " + unpartitioned_path);
    } else if (options.output_sharding.empty()) {
      ASSIGN_OR_RETURN(out.root_sharding, PropagatedOutputSharding(*out.unpartitioned, per_device, unpartitioned_path));
      out.global_result_shape = out.unpartitioned->entry()->root()->shape();
      run.notes.push_back("global shapes from " + unpartitioned_path + "; its outputs carry no sharding (XLA chose "
                          "them: allow_spmd_sharding_propagation_to_output), so they are assembled by Fusebox's "
                          "sharding propagation over it: " + out.root_sharding->ToString() +
                          " (--output-sharding overrides)");
    }
  }
  // The optimized program's root may lose the attribute (tuple simplification, fusion):
  // keep the per-device program's own.
  if (!out.root_sharding && own.has_value()) out.root_sharding = *own;
  if (!options.output_sharding.empty()) {
    auto parsed = ParseSharding(options.output_sharding);
    if (!parsed.ok()) return InvalidArgument("output sharding: " + std::string(parsed.status().message()));
    out.root_sharding = *parsed;
  }
  return out;
}

// Global arguments: given, or random by a view of the module with global parameters.
Status GlobalArguments(const Module& per_device, const OutputLayout& outputs, MultiDeviceRunOptions& options,
                       MultiDeviceRun& run) {
  ASSIGN_OR_RETURN(std::vector<Shape> global_shapes,
                   runtime::GlobalParameterShapes(per_device, run.global_program != nullptr ? run.global_program
                                                                                   : outputs.unpartitioned.get()));
  if (!options.arguments.empty()) {
    run.arguments = std::move(options.arguments);
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Module> view, runtime::GlobalParameterView(per_device, global_shapes));
  ASSIGN_OR_RETURN(run.arguments, interpreter::RandomArguments(*view, options.seed));
  return Status::Ok();
}

// The CPU backend's side of a run: the per-device program compiled once (one thread per
// device, as XLA's host devices) and a tracer per device.
struct CpuDevices {
  std::unique_ptr<runtime::CpuExecutable> exe;
  std::vector<std::unique_ptr<CpuTracer>> tracers;
};

Status PrepareCpu(const Module& per_device, int64_t devices, const MultiDeviceRunOptions& options,
                  runtime::MultiDeviceOptions& mopts, CpuDevices& cpu, MultiDeviceRun& run) {
  Stopwatch compile_watch;
  ASSIGN_OR_RETURN(std::unique_ptr<Module> optimized, passes::OptimizeForCpu(per_device, options.fused));
  runtime::CpuExecutableOptions eo;
  eo.threads = 1;
  eo.devices = devices;
  eo.compile.cancel = options.cancel;
  ASSIGN_OR_RETURN(cpu.exe, runtime::CpuExecutable::Create(std::move(optimized), eo));
  run.compile_s = compile_watch.ElapsedSeconds();
  mopts.backend = runtime::DeviceBackend::kCpu;
  mopts.cpu = cpu.exe.get();
  for (int64_t d = 0; d < devices; ++d) {
    cpu.tracers.push_back(std::make_unique<CpuTracer>());
    mopts.observers.push_back(cpu.tracers.back().get());
  }
  run.backend = "cpu";
  run.how = std::string("the CPU backend (") + (options.fused ? "fused" : "unfused") + ", one thread per device)";
  return Status::Ok();
}

// Runs `iterations` times; the last run's result, every run's collectives and each
// device's span of the last run are kept, the times sorted into `run`.
StatusOr<runtime::MultiDeviceResult> RunIterations(const Module& program, int64_t devices, int64_t iterations,
                                          const std::atomic<bool>* cancel, runtime::MultiDeviceOptions& mopts,
                                          MultiDeviceRun& run, std::vector<interpreter::CollectiveEvent>& collectives,
                                          std::vector<std::pair<int64_t, int64_t>>& spans) {
  runtime::MultiDeviceResult last;
  for (int64_t it = 0; it < iterations; ++it) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return Cancelled();
    const int64_t start = NowNs();
    Stopwatch watch;
    mopts.iteration = it;
    ASSIGN_OR_RETURN(last, runtime::RunOnDevices(program, run.arguments, mopts));
    run.times_s.push_back(watch.ElapsedSeconds());
    for (const interpreter::CollectiveEvent& e : last.collectives) collectives.push_back(e);
    for (int64_t d = 0; d < devices; ++d) {
      spans[static_cast<size_t>(d)] = {start, start + last.device_wall_ns[static_cast<size_t>(d)]};
    }
  }
  std::sort(run.times_s.begin(), run.times_s.end());
  return last;
}

// Devices that hold the same part of an output must agree: otherwise the assembled result
// would be one device's view presented as the answer.
Status CheckAgreement(const runtime::MultiDeviceResult& last, bool outputs_known) {
  if (last.disagreements.empty()) return Status::Ok();
  std::string all;
  for (const std::string& d : last.disagreements) all += "\n  " + d;
  if (!outputs_known) {
    return InvalidArgument("the per-device program does not say how its outputs are split (XLA's optimized text "
                           "drops output shardings), and its devices hold different values for them; give the "
                           "output sharding (run --output-sharding '{devices=[4,1]<=[4]}') or the module before "
                           "partitioning (run --unpartitioned FILE):" + all);
  }
  return InvalidArgument("devices disagree on output parts they should hold alike; no result:" + all);
}

}  // namespace

StatusOr<MultiDeviceRun> RunOnDevicesProfiled(const Module& module, MultiDeviceRunOptions options) {
  MultiDeviceRun run;
  const int64_t devices = options.devices > 0 ? options.devices : DevicesOfModule(module);
  run.devices = devices;
  if (options.backend == "gpu") return RefuseGpuRun(devices);
  if (options.backend != "interpreter" && options.backend != "cpu") {
    return InvalidArgument("unknown backend '" + options.backend + "' for a multi-device run");
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Module> partitioned, PerDeviceProgram(module, devices, run));
  const Module& per_device = *partitioned;
  ASSIGN_OR_RETURN(OutputLayout outputs, ResolveOutputs(module, per_device, options, run));
  RETURN_IF_ERROR(GlobalArguments(per_device, outputs, options, run));

  runtime::MultiDeviceOptions mopts;
  mopts.devices = devices;
  mopts.cancel = options.cancel;
  if (outputs.root_sharding) mopts.root_sharding = &*outputs.root_sharding;
  if (outputs.global_result_shape) mopts.global_result_shape = &*outputs.global_result_shape;
  CpuDevices cpu;
  run.backend = "interpreter";
  run.how = "the interpreter";
  if (options.backend == "cpu") RETURN_IF_ERROR(PrepareCpu(per_device, devices, options, mopts, cpu, run));
  const Module& program = cpu.exe ? cpu.exe->module() : per_device;
  std::vector<interpreter::CollectiveEvent> collectives;
  std::vector<std::pair<int64_t, int64_t>> spans(static_cast<size_t>(devices));
  const int64_t iterations = options.backend == "cpu" ? std::max<int64_t>(1, options.iterations) : 1;
  ASSIGN_OR_RETURN(runtime::MultiDeviceResult last,
                   RunIterations(program, devices, iterations, options.cancel, mopts, run, collectives, spans));
  std::vector<Trace> traces;
  for (auto& tracer : cpu.tracers) traces.push_back(tracer->TakeTrace());
  run.trace = MergeDeviceTraces(traces, collectives, spans);
  run.device_rows = SummarizeDevices(run.trace);
  run.collective_rows = SummarizeCollectives(run.trace);
  for (const DeviceRow& r : run.device_rows) {
    run.kernels_per_device = std::max(run.kernels_per_device, iterations > 0 ? r.kernels / iterations : r.kernels);
  }
  RETURN_IF_ERROR(CheckAgreement(last, outputs.root_sharding.has_value()));
  run.result = std::move(last.global);
  run.per_device = std::move(partitioned);
  // Keep the root sharding and global shape for the check's reference runs.
  if (outputs.root_sharding) {
    const std::string text = outputs.root_sharding->ToString();
    run.per_device->entry()->root()->mutable_attrs().sharding = text.substr(1, text.size() - 2);
    run.per_device->entry()->root()->mutable_attrs().has_sharding = true;
  }
  return run;
}

StatusOr<MultiDeviceCheck> CheckMultiDeviceRun(const MultiDeviceRun& run, bool check,
                                               const std::vector<Literal>* expected) {
  MultiDeviceCheck out;
  if (!check && expected == nullptr) return out;
  const Module* reference_module = run.per_device.get();
  check::CheckOptions options;
  // The CPU backend's LAPACK calls run through LAPACK in the reference too (library_kernels.h).
  if (run.backend == "cpu") options.interpreter.library_call = runtime::RunLapackOnLiterals;
  if (run.global_program != nullptr) {
    // A program Fusebox partitioned is judged against the global program on one device,
    // so that the check covers the partitioning too; one the interpreter cannot run whole
    // (shard_map regions are per-device code) falls back to the per-device program.
    auto whole = check::ComputeCheckReference(*run.global_program, run.arguments, options);
    if (whole.ok()) {
      if (check) out.against_interpreter = check::CheckOutputs(run.result, *whole, run.arguments, options);
      if (expected != nullptr) {
        out.against_expected = check::CheckOutputsAgainstExpected(run.result, *expected, *whole, run.arguments, options);
      }
      return out;
    }
    out.note = "the check's reference runs the partitioned program on " + std::to_string(run.devices) +
               " devices in the interpreter (the global program does not run on one: " +
               std::string(whole.status().message()) + ")";
  }
  ReferenceRunner runner{run.devices, std::nullopt, std::nullopt};
  auto own = ShardingOf(*reference_module->entry()->root());
  if (own.ok() && own->has_value()) runner.root_sharding = **own;
  if (run.result.shape().IsArray() || run.result.shape().IsTuple()) runner.global_shape = run.result.shape();
  options.run = runner;
  ASSIGN_OR_RETURN(check::CheckReference reference, check::ComputeCheckReference(*reference_module, run.arguments, options));
  if (check) out.against_interpreter = check::CheckOutputs(run.result, reference, run.arguments, options);
  if (expected != nullptr) {
    out.against_expected = check::CheckOutputsAgainstExpected(run.result, *expected, reference, run.arguments, options);
  }
  return out;
}

}  // namespace fusebox::session
