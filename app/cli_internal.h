// Internal to the CLI (app/cli*.cc): the input options every module command takes, the
// helpers the commands share, and each command's options, registration (Add*Command, on
// the CLI11 app) and body (Run*). cli.cc parses the command line and dispatches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/gui_app.h"
#include "compiler/session/compile_session.h"
#include "compiler/support/status.h"
#include "compiler/verifier/verifier.h"
#include "importers/module_loader.h"

namespace CLI {
class App;
}  // namespace CLI

namespace fusebox::cli::cli_internal {

// --- shared by the commands (cli_common.cc) ---

// FILE, --module, --dump-stage, --strict.
struct CommonInput {
  std::string path;
  std::string module;
  std::string dump_stage;
  bool strict = false;
};
void AddInputOptions(CLI::App* cmd, CommonInput* in);

// Prints `error: <message>` and gives the exit code: internal errors 2, the rest 1.
int ReportStatus(const Status& status);
// Loads FILE (a dump folder's module by --module), printing parse warnings and notes;
// with `trace`, as a span "parse".
StatusOr<importers::LoadedFile> Load(const CommonInput& in, bool quiet_warnings = false, CompileTrace* trace = nullptr);
// Prints each issue to stderr; returns the number of errors and sets *has_errors.
int PrintVerifierIssues(const std::vector<VerifierIssue>& issues, bool* has_errors);
// Writes `text` to `path`, or to stdout when `path` is empty.
Status WriteOutput(const std::string& path, const std::string& text);
// A compile session on the one module of the input, verified; from a dump folder, with
// XLA's own stages of that module beside Fusebox's. With `trace`, the parse, the
// verifier and everything the session compiles record spans there.
StatusOr<std::unique_ptr<session::CompileSession>> MakeSession(const CommonInput& in,
                                                                std::shared_ptr<CompileTrace> trace = nullptr);
// The command line as typed (reports and the workbench record it).
std::string& CommandLine();
// The hidden, test-only --plant-bug NAME (compiler/support/planted_bugs.h).
void AddPlantBugOption(CLI::App* cmd);

// --compile-trace T.json and --compile-trace-summary (compile, run): where the compile's
// time goes (compiler/support/compile_trace.h).
struct CompileTraceOptions {
  std::string path;      // Chrome trace JSON of the compile's spans
  bool summary = false;  // the summary alone, without a file
  bool wanted() const { return !path.empty() || summary; }
};
void AddCompileTraceOptions(CLI::App* cmd, CompileTraceOptions* opts);
// Writes the spans to opts.path (when given) and prints the summary to stderr.
Status FinishCompileTrace(const CompileTrace& trace, const CompileTraceOptions& opts);

// --- commands that read a module (cli_module.cc) ---

struct PrintOptions {
  bool verify = false;
  std::string output;
  std::string split_dir;
};
struct ExplainOptions {
  std::string instruction;
  bool collectives = false;
};
struct ExtractCommandOptions {
  std::string instruction;
  int height = 0;
  std::string stage;  // "" = where the instruction is found; "hlo" or "optimized_hlo"
  std::string output;
};
CLI::App* AddInspectCommand(CLI::App& app, CommonInput* in, bool* json);
CLI::App* AddPrintCommand(CLI::App& app, CommonInput* in, PrintOptions* opts);
CLI::App* AddVerifyCommand(CLI::App& app, CommonInput* in);
CLI::App* AddExplainCommand(CLI::App& app, CommonInput* in, ExplainOptions* opts);
CLI::App* AddExtractCommand(CLI::App& app, CommonInput* in, ExtractCommandOptions* opts);
int RunInspect(const CommonInput& in, bool json);
int RunPrint(const CommonInput& in, bool verify, const std::string& out_path,
             const std::string& split_dir);
int RunVerify(const CommonInput& in);
int RunExplain(const CommonInput& in, const std::string& instruction, bool collectives);
int RunExtract(const CommonInput& in, const ExtractCommandOptions& opts);

// --- run (cli_run.cc) ---

struct RunOptions {
  std::string backend = "interpreter";
  std::vector<std::string> inputs;
  bool explain_inputs = false;  // --explain-inputs: each parameter's values and why, to stdout
  uint64_t seed = 0;
  bool seed_given = false;  // --seed on the command line (an HloSnapshot FILE then runs random)
  std::string output_dir;
  bool print = false;
  bool save_inputs = false;
  int64_t print_limit = 1000;
  bool unfused = false;
  int64_t iterations = 1;
  std::string trace;
  bool roofline = false;        // --roofline: each kernel under the machine's roofs (CPU)
  bool check = false;
  std::vector<std::string> expected;  // --expected: one .npy per output leaf
  int threads = 0;
  std::string gpu_arch;         // empty: the device's own
  std::string gpu_library = "on";  // --gpu-library=on|off: cuBLAS for gemms, or Fusebox's kernels
  bool upload_every_run = false;   // --upload-every-run: arguments uploaded before each run
  std::string host_staging = "pinned";  // --host-staging=pinned|pageable: GPU host<->device copies
  std::string gpu_autotune = "on";      // --gpu-autotune=on|off: library algorithms timed at compile
  std::string gpu_gemm_kernels = "timed";  // --gpu-gemm-kernels=timed|library|fusebox
  std::string gpu_occupancy = "tuned";     // --gpu-occupancy=tuned|off
  std::string gpu_kernel_shapes = "timed";  // --gpu-kernel-shapes=timed|default
  std::string gpu_autotune_cache;       // --gpu-autotune-cache=FILE: loaded before, written after
  int64_t devices = 0;          // --devices: 0 = what the module needs
  std::string output_sharding;  // --output-sharding: the root's sharding, XLA's text
  std::string unpartitioned;    // --unpartitioned: the module before partitioning
  CompileTraceOptions compile_trace;
};
CLI::App* AddRunCommand(CLI::App& app, CommonInput* in, RunOptions* opts);
int RunRun(const CommonInput& in, const RunOptions& opts);

// --- compile (cli_compile.cc) ---

struct CompileOptions {
  std::string stage = "optimized_hlo";
  std::string dump_to;
  std::string dump_pass_re = ".*";
  std::vector<std::string> disabled_passes;
  std::vector<std::string> only_passes;
  std::string output;
  std::string backend = "cpu";
  std::string gpu_arch = "sm_90";
  std::string gpu_library = "on";  // --gpu-library=on|off: the GPU stages with cuBLAS/cuDNN calls, or without
  std::string compile_kernel_shapes = "default";  // --gpu-kernel-shapes=default|all
  bool list_stages = false;
  std::string source_map;  // --source-map FILE.json
  CompileTraceOptions compile_trace;
};
CLI::App* AddCompileCommand(CLI::App& app, CommonInput* in, CompileOptions* opts);
int RunCompile(const CommonInput& in, const CompileOptions& opts);

// --- dump folders: index, compare-fusion (cli_dump.cc) ---

struct IndexOptions {
  std::string dir;
  std::string module;
  bool json = false;
  bool check = false;
};

struct CompareFusionOptions {
  std::string path;
  std::string module;
  bool json = false;
  int max_names = 6;
};
CLI::App* AddIndexCommand(CLI::App& app, IndexOptions* opts);
CLI::App* AddCompareFusionCommand(CLI::App& app, CompareFusionOptions* opts);
int RunIndex(const IndexOptions& opts);
int RunCompareFusion(const CompareFusionOptions& opts);

// --- bisect (cli_bisect.cc) ---

struct BisectCommandOptions {
  uint64_t seed = 1;
  std::string repro;
  bool no_shrink = false;
  bool all = false;
  int max_tries = 400;
  std::string gpu_library = "off";
  std::string pass;
  std::string against;       // "cpu" or "gpu": a backend's mismatch down to a kernel
  std::string repro_inputs;  // with --against: where the kernel's inputs go
};
CLI::App* AddBisectCommand(CLI::App& app, CommonInput* in, BisectCommandOptions* opts);
int RunBisect(const CommonInput& in, const BisectCommandOptions& opts);

// --- diff (cli_diff.cc) ---

struct DiffCommandOptions {
  CommonInput a;  // A, --dump-stage-a
  CommonInput b;  // B, --dump-stage-b
  std::string module;    // --module, for both
  std::string optimize;  // --optimize a|b|both: Fusebox's optimized module of that side
  bool ignore_layouts = false;
  bool profile = false;
  int64_t iterations = 3;
  bool json = false;
};
CLI::App* AddDiffCommand(CLI::App& app, DiffCommandOptions* opts);
int RunDiff(const DiffCommandOptions& opts);

// --- memory (cli_memory.cc) ---

struct MemoryCommandOptions {
  bool unfused = false;  // the unfused module's table instead of the fused one
  bool both = false;     // both tables
  bool json = false;
  int top = -1;  // rows; -1: the default (20 for text, all for JSON), 0: all
};
CLI::App* AddMemoryCommand(CLI::App& app, CommonInput* in, MemoryCommandOptions* opts);
int RunMemory(const CommonInput& in, const MemoryCommandOptions& opts);

// --- report (cli_report.cc) ---

struct ReportCommandOptions {
  std::string out;
  std::string backend = "cpu";
  int64_t iterations = 3;
  uint64_t seed = 0;
  std::vector<std::string> inputs;
  int threads = 0;
  std::string gpu_arch;
  bool no_pack = false;
};
CLI::App* AddReportCommand(CLI::App& app, CommonInput* in, ReportCommandOptions* opts);
int RunReport(const CommonInput& in, const ReportCommandOptions& opts);

// --- gui and open (cli_gui.cc) ---

struct GuiCommandOptions {
  gui::GuiOptions gui;
  std::string positional;  // gui PATH
  std::string size;        // --size WxH
  std::string open_path;   // open PATH
  CLI::App* open_cmd = nullptr;
};
// Registers `gui` and `open`; returns `gui` (`open` is in opts->open_cmd).
CLI::App* AddGuiCommands(CLI::App& app, GuiCommandOptions* opts);
int RunGuiCommand(GuiCommandOptions& opts);

}  // namespace fusebox::cli::cli_internal
