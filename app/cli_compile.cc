// `fusebox compile`: Fusebox's pipeline on a module, a stage printed or written, XLA's
// dump layout (--dump-to), the stages listed, the source map as JSON (--source-map).
// With --backend gpu the module is the GPU pipeline's (gpu_optimized_hlo), as
// `fusebox run --backend gpu` compiles it: with --gpu-library=on (the default) its dots
// and convolutions are cuBLAS / cuDNN calls, its Fourier transforms cuFFT's and its
// factorizations cuSOLVER's.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/source_map.h"
#include "importers/dump_stages.h"

namespace fusebox::cli::cli_internal {

int RunCompile(const CommonInput& in, const CompileOptions& opts) {
  auto stage = session::ParseStage(opts.stage);
  bool external = opts.stage.rfind("xla_", 0) == 0;
  if (!stage && !external && !opts.list_stages) {
    return ReportStatus(InvalidArgument("unknown stage '" + opts.stage +
                                        "' (--list-stages shows the stages of a module)"));
  }
  if (opts.backend != "cpu" && opts.backend != "gpu") {
    return ReportStatus(InvalidArgument("unknown backend '" + opts.backend + "' (cpu or gpu)"));
  }
  // --backend gpu names the GPU backend's own stage where both backends have one.
  if (opts.backend == "gpu" && stage) {
    if (*stage == session::Stage::kOptimizedHlo) stage = session::Stage::kGpuOptimizedHlo;
    if (*stage == session::Stage::kLlvmIr) stage = session::Stage::kGpuLlvmIr;
    if (*stage == session::Stage::kLlvmIrOptimized) stage = session::Stage::kGpuLlvmIrOptimized;
  }
  auto trace = opts.compile_trace.wanted() ? std::make_shared<CompileTrace>() : nullptr;
  auto session = MakeSession(in, trace);
  if (!session.ok()) return ReportStatus(session.status());
  if (opts.list_stages) {
    for (const std::string& name : (*session)->StageNames()) {
      std::string description;
      for (const session::ExternalStage& e : (*session)->external_stages()) {
        if (e.name == name) description = e.description;
      }
      std::cout << name << (description.empty() ? "" : "  " + description) << "\n";
    }
    return kExitOk;
  }
  if (external) {
    auto text = (*session)->ExternalStageText(opts.stage);
    if (!text.ok()) return ReportStatus(text.status());
    if (Status st = WriteOutput(opts.output, *text); !st.ok()) return ReportStatus(st);
    return kExitOk;
  }
  codegen::GpuCompileOptions gpu_options;
  gpu_options.arch = opts.gpu_arch;
  gpu_options.kernel_variants = opts.compile_kernel_shapes == "all";
  gpu_options.allow_tf32 = true;  // as a run without --check compiles
  (*session)->SetGpuOptions(gpu_options);
  (*session)->SetGpuLibraries(opts.gpu_library == "on");
  passes::PipelineOptions popts;
  popts.disabled_passes = opts.disabled_passes;
  popts.only_passes = opts.only_passes;
  popts.snapshot_pass_regex = opts.dump_to.empty() ? "" : opts.dump_pass_re;
  // The GPU stages and the GPU dump come from the GPU module: the CPU pipeline's failure
  // is theirs only without libraries (then the GPU module is the CPU's).
  const bool gpu = session::IsGpuStage(*stage) || (opts.backend == "gpu" && !opts.dump_to.empty());
  if (*stage != session::Stage::kHlo || !opts.dump_to.empty()) {
    Status st = (*session)->Optimize(popts);
    if (!st.ok() && !gpu) return ReportStatus(st);
  }
  auto text = (*session)->StageText(*stage);
  if (!text.ok()) return ReportStatus(text.status());
  if (Status st = WriteOutput(opts.output, *text); !st.ok()) return ReportStatus(st);
  std::cerr << "kernels: " << (*session)->kernels_before().ToString() << " before fusion";
  const bool gpu_optimized = gpu && (*session)->gpu_optimized_module() != nullptr;
  if (gpu_optimized) {
    std::cerr << "; " << (*session)->gpu_kernels_after().ToString() << " after (GPU module"
              << ((*session)->gpu_libraries() ? ", with GPU libraries" : ", --gpu-library=off") << ")";
    if (!(*session)->gpu_library_calls().empty()) {
      std::cerr << ", " << (*session)->gpu_library_calls().size() << " of them library calls";
    }
  } else if ((*session)->optimized()) {
    std::cerr << "; " << (*session)->kernels_after().ToString() << " after";
  }
  std::cerr << "\n";
  if (gpu_optimized || (*session)->optimized()) {
    const passes::PipelineResult& pipeline =
        gpu_optimized ? (*session)->gpu_pipeline_result() : (*session)->pipeline_result();
    for (const passes::PassRecord& r : pipeline.passes) {
      std::fprintf(stderr, "  pass %-24s %s %8.3f ms  %lld instructions\n", r.name.c_str(),
                   r.skipped   ? "skipped"
                   : r.changed ? "changed"
                               : "-      ",
                   r.wall_ns * 1e-6, static_cast<long long>(r.instruction_count));
    }
  }
  if (!opts.dump_to.empty()) {
    // One backend's dump, as XLA writes one per platform.
    auto written = opts.backend == "gpu" ? session::WriteGpuDump(**session, opts.dump_to, 0)
                                         : session::WriteDump(**session, opts.dump_to, 0, /*with_cpu=*/true);
    if (!written.ok()) return ReportStatus(written.status());
    std::cerr << "wrote " << written->size() << " file(s) to " << opts.dump_to << "\n";
  }
  if (!opts.source_map.empty()) {
    // Instruction -> kernel -> LLVM functions / PTX entries / trace names, with where each
    // is defined in the stages (compiler/session/source_map.h).
    auto map = session::BuildSourceMap(**session);
    if (!map.ok()) return ReportStatus(map.status());
    if (Status st = WriteOutput(opts.source_map, map->ToJson()); !st.ok()) return ReportStatus(st);
    for (const std::string& note : map->notes()) std::cerr << "note: source map: " << note << "\n";
    std::cerr << "wrote the source map to " << opts.source_map << "\n";
  }
  if (trace != nullptr) {
    if (Status st = FinishCompileTrace(*trace, opts.compile_trace); !st.ok()) return ReportStatus(st);
  }
  return kExitOk;
}

CLI::App* AddCompileCommand(CLI::App& app, CommonInput* in, CompileOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "compile",
      "Run Fusebox's optimization pipeline and print a stage; with --dump-to, write "
      "XLA's dump layout (before/after optimizations, one file per pass, decisions)");
  AddInputOptions(cmd, in);
  cmd->add_option(
      "--stage", opts->stage,
      "hlo | optimized_hlo (default) | llvm_ir | llvm_ir_optimized | cpu_asm | buffer_assignment | "
      "gpu_optimized_hlo | gpu_llvm_ir | gpu_llvm_ir_optimized | ptx | ptxas_info | sass; from a dump folder also "
      "XLA's own: xla_optimized_hlo | xla_pass_NNNN | xla_llvm_ir | xla_llvm_ir_optimized | "
      "xla_ptx | "
      "xla_asm | xla_buffer_assignment | xla_live_range | xla_memory_usage_report");
  cmd->add_option("--backend", opts->backend,
                  "cpu (default) | gpu: which backend's optimized_hlo / llvm_ir / llvm_ir_optimized to print "
                  "(gpu: gpu_optimized_hlo / gpu_llvm_ir / gpu_llvm_ir_optimized), and which dump --dump-to "
                  "writes (gpu: XLA GPU's layout)");
  cmd->add_option("--gpu-arch", opts->gpu_arch, "GPU target for the GPU stages (default sm_90)");
  cmd->add_option("--gpu-library", opts->gpu_library,
                  "GPU stages: on (default, as `run --backend gpu`): the GPU pipeline turns dots and "
                  "convolutions cuBLAS / cuDNN run into library calls and keeps Fourier transforms for cuFFT, "
                  "triangular solves for cuBLAS and Cholesky and LU factorizations for cuSOLVER (the "
                  "ptx stage's header lists them); "
                  "off: Fusebox's own kernels for everything")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--gpu-kernel-shapes", opts->compile_kernel_shapes,
                  "GPU stages: default (the default): each kernel's default shape, as a run without autotuning "
                  "loads it; all: also the other shapes a GPU run times (row kernels with other threads a row, "
                  "column reductions with the other block size, skinny dots with other rows a block: their "
                  "entries in ptx, with the launch map's header, and their registers in ptxas_info)")
      ->check(CLI::IsMember({"default", "all"}));
  cmd->add_option("--dump-to", opts->dump_to, "Write dumps into this folder");
  cmd->add_option("--dump-pass-re", opts->dump_pass_re,
                  "Snapshot only after passes matching this regex (default .*)");
  cmd->add_option("--disable-pass", opts->disabled_passes, "Skip a pass by name")->delimiter(',');
  cmd->add_option("--only-pass", opts->only_passes, "Run only these passes (by name)")
      ->delimiter(',');
  cmd->add_option("-o,--output", opts->output, "Write the stage to this file");
  cmd->add_option(
      "--source-map", opts->source_map,
      "Write the source map (instruction -> kernel -> LLVM functions, PTX entries, trace "
      "names, with their lines in the stages) to this JSON file");
  AddCompileTraceOptions(cmd, &opts->compile_trace);
  cmd->add_flag("--list-stages", opts->list_stages,
                "List the stages of the module (with XLA's own, xla_*, for a dump folder)");
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
