// Differential fuzzer of the compiler: random valid modules (module_generator.h) run in
// the reference interpreter and on the CPU backend, fused and unfused (and in the GPU
// emulator when small and straight-line), on the same random inputs; every result must
// pass the numeric check. Each module runs in a forked child, so a crash or a hang is
// counted and kept instead of ending the run. Failing modules are written (the text is
// the repro) to the save directory, named by seed; --replay runs such files again.
//
//   differential_fuzzer [--seconds N] [--seeds A:B] [--replay FILE|DIR] [--print SEED]
//                       [--save-dir DIR] [--no-save] [--no-fork] [--no-gpu] [--complex]
//                       [--windows] [--partitions N [--manual | --partial-manual | --open-dims | --nested-manual]] [--timeout SECONDS] [--quiet]
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_emulator.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/session/multi_device_run.h"
#include "compiler/verifier/verifier.h"
#include "fuzz/module_generator.h"
#ifdef FUSEBOX_HAVE_NUMERIC_CHECK
#include "compiler/check/numeric_check.h"
#endif
#if __has_include("compiler/support/planted_bugs.h")
#include "compiler/support/planted_bugs.h"
#define FUSEBOX_HAVE_PLANTED_BUGS 1
#endif

namespace fusebox::fuzz {
namespace {

struct Options {
  double seconds = 0;
  uint64_t first_seed = 1, last_seed = 0;  // inclusive; last < first: no seed range
  std::string replay;
  std::string save_dir = "tests/regressions";
  bool save = true;
  bool fork = true;
  bool gpu = true;
  bool quiet = false;
  int timeout_s = 60;
  GeneratorOptions generator;
};

// What one module's run came to.
// kRefused: a multi-device run stopped with a clear refusal (Unimplemented, naming the
// instruction: an uneven split where the run needs even ones, an op the partitioner has
// no rule for); not a failure, counted apart.
enum class Outcome { kPassed, kVacuous, kMismatch, kError, kInvalid, kCrash, kTimeout, kRefused };

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPassed:
      return "passed";
    case Outcome::kVacuous:
      return "vacuous";
    case Outcome::kMismatch:
      return "MISMATCH";
    case Outcome::kError:
      return "ERROR";
    case Outcome::kInvalid:
      return "INVALID";
    case Outcome::kCrash:
      return "CRASH";
    case Outcome::kTimeout:
      return "TIMEOUT";
    case Outcome::kRefused:
      return "refused";
  }
  return "?";
}

bool IsFailure(Outcome o) { return o != Outcome::kPassed && o != Outcome::kVacuous && o != Outcome::kRefused; }

struct Result {
  Outcome outcome = Outcome::kPassed;
  std::string detail;  // first line says what failed
  bool gpu_emulated = false;
};

// The check of one backend's result. With numeric_check: the bound derived from the
// computation; before it exists, each leaf against the interpreter with its type's
// default tolerance.
class Checker {
 public:
  static StatusOr<Checker> Create(const Module& module, const std::vector<Literal>& args) {
    Checker c;
    c.args_ = &args;
#ifdef FUSEBOX_HAVE_NUMERIC_CHECK
    ASSIGN_OR_RETURN(c.reference_, check::ComputeCheckReference(module, args));
#else
    ASSIGN_OR_RETURN(c.reference_, Interpreter().Run(module, args));
#endif
    return c;
  }

  // Empty when `actual` passes; "vacuous" when nothing could be compared; else why not.
  std::string Check(const Literal& actual, bool* vacuous, std::string* summary) const {
    *vacuous = false;
#ifdef FUSEBOX_HAVE_NUMERIC_CHECK
    check::CheckReport report = CheckOutputs(actual, reference_, *args_);
    if (!report.ok()) return report.Details();
    *vacuous = report.vacuous();
    *summary = report.Summary();
    return "";
#else
    std::vector<const Literal*> actual_leaves, expected_leaves;
    ForEachArrayLeaf(actual, [&](const Literal& l) { actual_leaves.push_back(&l); });
    ForEachArrayLeaf(reference_, [&](const Literal& l) { expected_leaves.push_back(&l); });
    if (actual_leaves.size() != expected_leaves.size())
      return "the result has another number of outputs";
    std::string why;
    for (size_t i = 0; i < actual_leaves.size(); ++i) {
      interpreter::CompareResult cmp =
          CompareLiterals(*actual_leaves[i], *expected_leaves[i],
                          DefaultToleranceFor(expected_leaves[i]->shape().element_type()));
      if (!cmp.ok()) why += "output " + std::to_string(i) + ": " + cmp.ToString() + "\n";
    }
    *summary = why.empty() ? "matches the interpreter" : "";
    return why;
#endif
  }

 private:
#ifdef FUSEBOX_HAVE_NUMERIC_CHECK
  check::CheckReference reference_;
#else
  Literal reference_;
#endif
  const std::vector<Literal>* args_ = nullptr;
};

bool StraightLine(const Module& module) {
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      if (instruction->opcode() == Opcode::kWhile || instruction->opcode() == Opcode::kConditional)
        return false;
    }
  }
  return true;
}

int64_t LargestArray(const Module& module) {
  int64_t largest = 0;
  for (const auto& computation : module.computations()) {
    for (const auto& instruction : computation->instructions()) {
      ForEachSubshape(instruction->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
        if (s.IsArray()) largest = std::max(largest, s.ElementCount());
      });
    }
  }
  return largest;
}

// A global SPMD program (num_partitions > 1): partitioned by Fusebox and run on that many
// devices (the interpreter, the CPU unfused and fused, one thread a device) on the same
// global arguments; each assembled result against the global program in the interpreter.
Result RunSharded(const Module& module, const std::vector<Literal>& args, const Checker& checker) {
  Result r;
  bool all_vacuous = true;
  struct Backend {
    const char* name;
    const char* backend;
    bool fused;
  };
  for (const Backend& b : {Backend{"interpreter", "interpreter", true}, Backend{"cpu unfused", "cpu", false},
                           Backend{"cpu fused", "cpu", true}}) {
    const std::string what = std::to_string(*module.num_partitions) + " devices, " + b.name;
    session::MultiDeviceRunOptions options;
    options.devices = *module.num_partitions;
    options.backend = b.backend;
    options.fused = b.fused;
    options.arguments = args;
    auto run = session::RunOnDevicesProfiled(module, std::move(options));
    if (!run.ok()) {
      const bool refused = run.status().code() == StatusCode::kUnimplemented;
      return {refused ? Outcome::kRefused : Outcome::kError, what + ": " + run.status().message()};
    }
    bool vacuous = false;
    std::string summary;
    std::string why = checker.Check(run->result, &vacuous, &summary);
    if (r.detail.empty()) r.detail = summary;
    if (!why.empty()) return {Outcome::kMismatch, what + " differs from the interpreter:\n" + why};
    all_vacuous = all_vacuous && vacuous;
  }
  r.outcome = all_vacuous ? Outcome::kVacuous : Outcome::kPassed;
  return r;
}

// Parses, verifies and runs one module everywhere; runs in the child.
Result RunModule(const std::string& text, uint64_t input_seed, bool gpu) {
  Result r;
  auto parsed = ParseModules(text);
  if (!parsed.ok()) return {Outcome::kInvalid, "does not parse: " + parsed.status().message()};
  if (parsed->modules.empty() || parsed->modules.size() > 2)
    return {Outcome::kInvalid, "expected a module, or a module and its reference"};
  const Module& module = *parsed->modules[0];
  // A second module is the first's reference: the same values computed without what the
  // interpreter cannot run on one device (manual regions with collectives).
  const Module& reference = *parsed->modules.back();
  for (const Module* m : {&module, &reference}) {
    if (Status s = Verify(*m); !s.ok())
      return {Outcome::kInvalid, "%" + m->name() + " does not verify: " + s.message()};
  }
  auto args = interpreter::RandomArguments(module, input_seed);
  if (!args.ok()) return {Outcome::kError, "random inputs: " + args.status().message()};
  auto checker = Checker::Create(reference, *args);
  if (!checker.ok()) return {Outcome::kError, "interpreter: " + checker.status().message()};
  if (module.num_partitions.value_or(1) > 1) return RunSharded(module, *args, *checker);
  bool all_vacuous = true;
  auto judge = [&](const std::string& backend, const StatusOr<Literal>& actual) -> bool {
    if (!actual.ok()) {
      r = {Outcome::kError, backend + ": " + actual.status().message()};
      return false;
    }
    bool vacuous = false;
    std::string summary;
    std::string why = checker->Check(*actual, &vacuous, &summary);
    if (r.detail.empty()) r.detail = summary;
    if (!why.empty()) {
      r = {Outcome::kMismatch, backend + " differs from the interpreter:\n" + why};
      return false;
    }
    all_vacuous = all_vacuous && vacuous;
    return true;
  };
  for (bool fused : {false, true}) {
    std::string backend = std::string("cpu ") + (fused ? "fused" : "unfused");
    auto optimized = passes::OptimizeForCpu(module, fused);
    if (!optimized.ok())
      return {Outcome::kError, backend + " optimize: " + optimized.status().message()};
    runtime::CpuExecutableOptions options;
    options.threads = 2;
    options.compile.keep_assembly = false;
    options.compile.keep_llvm_ir = false;
    auto exe = runtime::CpuExecutable::Create(std::move(*optimized), options);
    if (!exe.ok()) return {Outcome::kError, backend + " compile: " + exe.status().message()};
    if (!judge(backend, (*exe)->Run(*args))) return r;
  }
  // The emulator runs straight-line modules only and is slow: small ones. Unfused with
  // Fusebox's own kernels for everything (`--gpu-library=off`); fused with the GPU's
  // libraries, as `run --backend gpu` compiles: dots, convolutions and the rest the
  // libraries take run as their plans on the host (gemm_plan.h, conv_plan.h, ...).
  if (gpu && StraightLine(module) && LargestArray(module) <= 1024) {
    for (bool fused : {false, true}) {
      std::string backend = std::string("gpu emulator ") + (fused ? "fused, libraries" : "unfused, no libraries");
      auto optimized = passes::OptimizeForBackend(module, fused, /*gpu_libraries=*/fused);
      if (!optimized.ok())
        return {Outcome::kError, backend + " optimize: " + optimized.status().message()};
      auto emulator = codegen::GpuEmulator::Create(std::move(*optimized));
      if (!emulator.ok())
        return {Outcome::kError, backend + " compile: " + emulator.status().message()};
      if (!judge(backend, (*emulator)->Run(*args))) return r;
    }
    r.gpu_emulated = true;
  }
  r.outcome = all_vacuous ? Outcome::kVacuous : Outcome::kPassed;
  return r;  // detail: the first backend's summary
}

// The child running now, killed with the parent (ctest's timeout, Ctrl-C).
volatile pid_t g_child = 0;

void KillChildAndExit(int sig) {
  if (g_child > 0) kill(g_child, SIGKILL);
  _exit(128 + sig);
}

// Runs RunModule in a forked child (a crash or a hang is a result too).
Result RunIsolated(const std::string& text, uint64_t input_seed, const Options& options) {
  if (!options.fork) return RunModule(text, input_seed, options.gpu);
  int fds[2];
  if (pipe(fds) != 0) return {Outcome::kError, "pipe failed"};
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return {Outcome::kError, "fork failed"};
  if (pid == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    close(fds[0]);
    alarm(static_cast<unsigned>(options.timeout_s));
    Result r = RunModule(text, input_seed, options.gpu);
    std::string out = std::to_string(static_cast<int>(r.outcome)) + " " +
                      (r.gpu_emulated ? "1" : "0") + "\n" + r.detail;
    size_t done = 0;
    while (done < out.size()) {
      ssize_t n = write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  g_child = pid;
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  g_child = 0;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGALRM)
      return {Outcome::kTimeout, "no result after " + std::to_string(options.timeout_s) + " s"};
    return {Outcome::kCrash,
            std::string("killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")"};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty()) {
    return {Outcome::kCrash,
            "exited with status " + std::to_string(WEXITSTATUS(status)) + " without a result"};
  }
  Result r;
  size_t eol = out.find('\n');
  std::istringstream head(out.substr(0, eol));
  int outcome = 0, gpu = 0;
  head >> outcome >> gpu;
  r.outcome = static_cast<Outcome>(outcome);
  r.gpu_emulated = gpu != 0;
  r.detail = eol == std::string::npos ? "" : out.substr(eol + 1);
  return r;
}

// "// differential_fuzzer: seed 17, inputs seed 17: MISMATCH cpu fused differs ..."
std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

void Save(const Options& options, uint64_t seed, const std::string& text, const Result& r) {
  std::filesystem::create_directories(options.save_dir);
  std::string path = options.save_dir + "/seed_" + std::to_string(seed) + ".hlo";
  std::ofstream out(path);
  out << "// differential_fuzzer --print " << seed << " (inputs seed " << seed
      << "): " << OutcomeName(r.outcome) << ": " << FirstLine(r.detail) << "\n"
      << text;
  std::printf("  kept as %s\n", path.c_str());
}

// The inputs seed of a kept module: "(inputs seed N)" in its first line, else 1.
uint64_t InputsSeedOf(const std::string& text) {
  size_t at = text.find("(inputs seed ");
  if (at == std::string::npos || at > text.find('\n')) return 1;
  return std::stoull(text.substr(at + 13));
}

struct Stats {
  int64_t tried = 0, compared = 0, vacuous = 0, mismatches = 0, errors = 0, invalid = 0,
          crashes = 0, timeouts = 0, refused = 0, gpu_emulated = 0;
  void Add(const Result& r) {
    ++tried;
    gpu_emulated += r.gpu_emulated;
    switch (r.outcome) {
      case Outcome::kPassed:
        ++compared;
        break;
      case Outcome::kVacuous:
        ++vacuous;
        break;
      case Outcome::kMismatch:
        ++mismatches;
        break;
      case Outcome::kError:
        ++errors;
        break;
      case Outcome::kInvalid:
        ++invalid;
        break;
      case Outcome::kCrash:
        ++crashes;
        break;
      case Outcome::kTimeout:
        ++timeouts;
        break;
      case Outcome::kRefused:
        ++refused;
        break;
    }
  }
  int64_t failures() const { return mismatches + errors + invalid + crashes + timeouts; }
};

void Report(const Result& r, const std::string& what, const Options& options) {
  if (!IsFailure(r.outcome) && options.quiet) return;
  std::printf("%s: %s%s%s\n", what.c_str(), OutcomeName(r.outcome), r.detail.empty() ? "" : ": ",
              IsFailure(r.outcome) ? r.detail.c_str() : FirstLine(r.detail).c_str());
  std::fflush(stdout);
}

int Usage(const char* argv0, int code) {
  std::printf(
      "usage: %s [options]\n"
      "Random valid HLO modules, interpreter against the CPU backend fused and unfused (and\n"
      "the GPU emulator for small straight-line ones), compared with the numeric check.\n"
      "  --seconds N        run for N seconds (seeds from --seeds' start on)\n"
      "  --seeds A:B        run seeds A to B inclusive (default 1:100 without --seconds);\n"
      "                     A: from A on (with --seconds), A alone: that seed\n"
      "  --replay PATH      run the module file PATH, or every *.hlo in the folder PATH\n"
      "  --print SEED       print the module of SEED and exit\n"
      "  --ops N            at most N random operations in the entry computation (default 24;\n"
      "                     before --print)\n"
      "  --max-elements N   largest array of a generated module (default 2048; before --print)\n"
      "  --save-dir DIR     where failing modules go (default tests/regressions)\n"
      "  --no-save          keep no failing modules\n"
      "  --no-fork          run modules in this process (for a debugger)\n"
      "  --complex          complex islands in the modules (c64 values, functions, division,\n"
      "                     dots, sums; before --print)\n"
      "  --windows          convolutions, max-pool gradients (select-and-scatter), gathers,\n"
      "                     scatters and rolls in the modules (before --print)\n"
      "  --partitions N     global SPMD programs for N devices (2, 4 or 8): random shardings on\n"
      "                     the parameters and some instructions; Fusebox partitions and runs\n"
      "                     them on N devices (interpreter, CPU unfused and fused) against the\n"
      "                     global program in the interpreter (before --print)\n"
      "  --manual           with --partitions: manual regions (shard_map) with their own\n"
      "                     all-reduce, reduce-scatter, all-gather and collective-permute,\n"
      "                     checked against a reference module without them (before --print)\n"
      "  --partial-manual   --manual over one axis of a 2-D device mesh (4 or 8 partitions):\n"
      "                     regions split automatically over the other axis inside, their\n"
      "                     collectives over the manual axis (before --print)\n"
      "  --open-dims        --partial-manual with values inside regions now and then left\n"
      "                     to propagation and boundaries with open dims (unspecified_dims)\n"
      "  --nested-manual    --partial-manual with elementwise ops now and then in a region\n"
      "                     nested in the partially manual one, manual over both axes\n"
      "  --no-gpu           skip the GPU emulator\n"
      "  --timeout S        a module running longer is a failure (default 60)\n"
      "  --quiet            print failures and the totals only\n"
      "  --plant-bug NAME   plant a deliberate compiler bug (tests/check; shows the fuzzer\n"
      "                     catches it)\n"
      "Exit status: 0 when every module passed (or was vacuous), 1 otherwise.\n",
      argv0);
  return code;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) try {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seconds") {
      options.seconds = std::stod(next());
    } else if (a == "--seeds") {
      std::string v = next();
      size_t colon = v.find(':');
      options.first_seed = std::stoull(v.substr(0, colon));
      // N:M inclusive; N: open-ended (with --seconds); N alone: one seed.
      options.last_seed = colon == std::string::npos   ? options.first_seed
                          : colon + 1 == v.size() ? std::numeric_limits<uint64_t>::max()
                                                  : std::stoull(v.substr(colon + 1));
    } else if (a == "--replay") {
      options.replay = next();
    } else if (a == "--print") {
      std::printf("%s", GenerateModuleText(std::stoull(next()), options.generator).c_str());
      return 0;
    } else if (a == "--ops") {
      options.generator.max_instructions = std::stoi(next());
    } else if (a == "--max-elements") {
      options.generator.max_elements = std::stoll(next());
    } else if (a == "--save-dir") {
      options.save_dir = next();
    } else if (a == "--no-save") {
      options.save = false;
    } else if (a == "--no-fork") {
      options.fork = false;
    } else if (a == "--complex") {
      options.generator.complex_numbers = true;
    } else if (a == "--windows") {
      options.generator.windows = true;
    } else if (a == "--partitions") {
      options.generator.partitions = std::stoi(next());
      if (options.generator.partitions != 2 && options.generator.partitions != 4 &&
          options.generator.partitions != 8) {
        std::fprintf(stderr, "--partitions takes 2, 4 or 8\n");
        return 2;
      }
    } else if (a == "--manual") {
      options.generator.manual_regions = true;
    } else if (a == "--partial-manual") {
      options.generator.manual_regions = true;
      options.generator.partial_manual = true;
    } else if (a == "--nested-manual") {
      options.generator.manual_regions = true;
      options.generator.partial_manual = true;
      options.generator.nested_manual = true;
    } else if (a == "--open-dims") {
      options.generator.manual_regions = true;
      options.generator.partial_manual = true;
      options.generator.open_dims = true;
    } else if (a == "--no-gpu") {
      options.gpu = false;
    } else if (a == "--timeout") {
      options.timeout_s = std::stoi(next());
    } else if (a == "--quiet") {
      options.quiet = true;
    } else if (a == "--plant-bug") {
      std::string name = next();
#ifdef FUSEBOX_HAVE_PLANTED_BUGS
      auto bug = PlantedBugFromName(name);
      if (!bug) {
        std::fprintf(stderr, "unknown planted bug %s\n", name.c_str());
        return 2;
      }
      SetPlantedBug(*bug);  // before any fork: every child inherits it
#else
      std::fprintf(stderr, "this build has no planted bugs\n");
      return 2;
#endif
    } else if (a == "--help" || a == "-h") {
      return Usage(argv[0], 0);
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return Usage(argv[0], 2);
    }
  } catch (const std::logic_error&) {  // std::sto*: not a number, or out of range
    std::fprintf(stderr, "%s: bad value %s\n", argv[i - 1], argv[i]);
    return 2;
  }
  if (options.seconds <= 0 && options.replay.empty() && options.last_seed < options.first_seed) {
    options.last_seed = options.first_seed + 99;
  }
  signal(SIGTERM, KillChildAndExit);
  signal(SIGINT, KillChildAndExit);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Stats stats;

  if (!options.replay.empty()) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(options.replay)) {
      for (const auto& e : std::filesystem::directory_iterator(options.replay)) {
        if (e.path().extension() == ".hlo") files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
    } else if (std::filesystem::exists(options.replay)) {
      files.push_back(options.replay);
    }
    if (files.empty()) {
      std::fprintf(stderr, "differential_fuzzer: no module to replay in %s\n",
                   options.replay.c_str());
      return 1;
    }
    for (const auto& file : files) {
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      Result r = RunIsolated(text.str(), InputsSeedOf(text.str()), options);
      stats.Add(r);
      Report(r, file.string(), options);
    }
  } else {
    for (uint64_t seed = options.first_seed;; ++seed) {
      if (options.seconds > 0 ? elapsed() >= options.seconds : seed > options.last_seed) break;
      std::string text = GenerateModuleText(seed, options.generator);
      Result r = RunIsolated(text, seed, options);
      stats.Add(r);
      Report(r, "seed " + std::to_string(seed), options);
      if (IsFailure(r.outcome) && options.save) Save(options, seed, text, r);
    }
  }
  std::printf(
      "differential_fuzzer: %lld modules tried, %lld compared, %lld vacuous, %lld mismatches, %lld "
      "errors, "
      "%lld invalid, %lld crashes, %lld timeouts; %lld refused clearly (multi-device); %lld also on the "
      "GPU emulator; %.1f s\n",
      static_cast<long long>(stats.tried), static_cast<long long>(stats.compared),
      static_cast<long long>(stats.vacuous), static_cast<long long>(stats.mismatches),
      static_cast<long long>(stats.errors), static_cast<long long>(stats.invalid),
      static_cast<long long>(stats.crashes), static_cast<long long>(stats.timeouts),
      static_cast<long long>(stats.refused), static_cast<long long>(stats.gpu_emulated), elapsed());
  return stats.failures() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace fusebox::fuzz

int main(int argc, char** argv) { return fusebox::fuzz::Main(argc, argv); }
