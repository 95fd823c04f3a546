// The commands that read one module and report on it: inspect, print, verify, explain
// (fusion decisions and the partitioner's collectives), extract (a standalone module around
// one instruction).
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli.h"
#include "app/cli_internal.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/sharding.h"
#include "compiler/ir/summary.h"
#include "compiler/passes/extract.h"
#include "compiler/passes/spmd_partitioner.h"
#include "compiler/session/compile_session.h"
#include "compiler/verifier/verifier.h"
#include "importers/module_loader.h"

namespace fusebox::cli::cli_internal {

namespace {

// Writes each module to DIR/<index>.<module name>.hlo (for tools that take one module per
// file, such as XLA's own parser).
int WriteSplit(const importers::LoadedFile& file, const std::vector<size_t>& picked, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return ReportStatus(InvalidArgument(dir + ": cannot create folder: " + ec.message()));
  for (size_t index : picked) {
    const Module& module = *file.modules[index];
    std::string name = module.name();
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    }
    std::string path = dir + "/" + std::to_string(index) + "." + name + ".hlo";
    std::ofstream out(path, std::ios::binary);
    if (!out) return ReportStatus(InvalidArgument(path + ": cannot write"));
    out << module.ToString();
  }
  return kExitOk;
}

}  // namespace

int RunInspect(const CommonInput& in, bool json) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  bool any_errors = false;
  bool first = true;
  if (json && picked->size() > 1) std::cout << "[\n";
  for (size_t index : *picked) {
    const Module& module = *file->modules[index];
    ModuleSummary summary = Summarize(module);
    if (json) {
      if (!first) std::cout << ",\n";
      std::cout << SummaryToJson(summary);
    } else {
      if (!first) std::cout << "\n";
      if (picked->size() > 1) std::cout << "[" << index << "] ";
      std::cout << SummaryToText(summary);
    }
    first = false;
    VerifierOptions vopts;
    vopts.filename = in.path;
    bool errors = false;
    auto issues = VerifyModule(module, vopts);
    int n = PrintVerifierIssues(issues, &errors);
    if (!json) {
      std::cout << "verifier: " << (n == 0 ? std::string("ok") : std::to_string(n) + " error(s)")
                << "\n";
    }
    any_errors = any_errors || errors;
  }
  if (json && picked->size() > 1) std::cout << "]\n";
  return any_errors ? kExitUserError : kExitOk;
}

int RunPrint(const CommonInput& in, bool verify, const std::string& out_path,
             const std::string& split_dir) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  if (!split_dir.empty()) {
    int rc = WriteSplit(*file, *picked, split_dir);
    if (rc != kExitOk) return rc;
  }
  std::string text;
  bool any_errors = false;
  for (size_t k = 0; k < picked->size(); ++k) {
    const Module& module = *file->modules[(*picked)[k]];
    if (verify) {
      VerifierOptions vopts;
      vopts.filename = in.path;
      bool errors = false;
      PrintVerifierIssues(VerifyModule(module, vopts), &errors);
      any_errors = any_errors || errors;
    }
    if (k > 0) text += "\n// -----\n\n";
    text += module.ToString();
  }
  if (out_path.empty() && !split_dir.empty()) {
    // Written to the folder only.
  } else if (out_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(out_path, std::ios::binary);
    if (!out) return ReportStatus(InvalidArgument(out_path + ": cannot write"));
    out << text;
  }
  return any_errors ? kExitUserError : kExitOk;
}

int RunVerify(const CommonInput& in) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = importers::SelectModules(*file, in.module, /*allow_all=*/true);
  if (!picked.ok()) return ReportStatus(picked.status());
  int total_errors = 0;
  for (size_t index : *picked) {
    VerifierOptions vopts;
    vopts.filename = in.path;
    total_errors += PrintVerifierIssues(VerifyModule(*file->modules[index], vopts), nullptr);
  }
  if (total_errors == 0) {
    std::cout << in.path << ": " << picked->size() << " module(s) verified\n";
    return kExitOk;
  }
  std::cerr << in.path << ": " << total_errors << " verifier error(s)\n";
  return kExitUserError;
}

int RunExplain(const CommonInput& in, const std::string& instruction, bool collectives) {
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  Status st = (*session)->Optimize();
  if (!st.ok()) return ReportStatus(st);
  const passes::PassContext& ctx = (*session)->pass_context();
  if (collectives) {
    // The collectives the spmd-partitioner inserted, each with its reason.
    const Module& input = (*session)->input();
    if (ctx.collectives().empty()) {
      if (IsPerDeviceProgram(input)) {
        std::cout << input.name()
                  << " is already a per-device program: its collectives were written before "
                  << "Fusebox saw it (fusebox inspect lists them)\n";
      } else if (DevicesOfModule(input) <= 1) {
        std::cout << input.name() << " runs on one device: no collectives\n";
      } else {
        // The program's own collectives (shard_map regions) run as written.
        int64_t own = 0;
        for (const auto& c : input.computations()) {
          for (const auto& i : c->instructions())
            own += IsCrossDeviceCollective(i->opcode()) ? 1 : 0;
        }
        std::cout << "the spmd-partitioner inserted no collectives: every device computes its "
                     "tiles alone";
        if (own > 0)
          std::cout << "; the program's own " << own
                    << " collective(s) (in its manual regions) run as written";
        std::cout << "\n";
      }
      return kExitOk;
    }
    std::cout << FormatCollectiveDecisions(ctx.collectives());
    return kExitOk;
  }
  std::vector<passes::FusionDecision> decisions =
      instruction.empty() ? ctx.decisions() : ctx.DecisionsFor(instruction);
  if (!instruction.empty() && decisions.empty()) {
    if ((*session)->input().entry() && !(*session)->input().FindComputation(instruction)) {
      bool exists = false;
      for (const auto& c : (*session)->input().computations())
        exists |= c->FindInstruction(instruction) != nullptr;
      if (!exists)
        return ReportStatus(InvalidArgument("no instruction %" + instruction + " in " + in.path));
    }
    std::cout << "%" << instruction << ": no fusion decisions (no fusion pass considered it)\n";
    return kExitOk;
  }
  for (const passes::FusionDecision& d : decisions) {
    std::cout << (d.fused ? "fused     " : "not fused ") << "%" << d.producer << " -> %"
              << d.consumer;
    if (!d.fusion.empty()) std::cout << "  (into %" << d.fusion << ")";
    std::cout << "  [" << d.pass << ", in %" << d.computation << "]";
    std::string reason = d.reason;
    for (const char* prefix : {"fused: ", "not fused: "}) {
      if (reason.rfind(prefix, 0) == 0) reason = reason.substr(std::string(prefix).size());
    }
    if (!reason.empty()) std::cout << ": " << reason;
    std::cout << "\n";
  }
  std::cout << "kernels: " << (*session)->kernels_before().kernels << " before fusion, "
            << (*session)->kernels_after().kernels << " after\n";
  return kExitOk;
}

// `fusebox extract PATH --instruction NAME [--height N]`: a standalone module around one
// instruction. Fusions exist only after the pipeline: a name the input lacks is looked
// for in Fusebox's optimized module (or asked for with --stage optimized_hlo).
int RunExtract(const CommonInput& in, const ExtractCommandOptions& opts) {
  if (opts.stage != "" && opts.stage != "hlo" && opts.stage != "optimized_hlo") {
    return ReportStatus(
        InvalidArgument("--stage is hlo or optimized_hlo, not '" + opts.stage + "'"));
  }
  auto session = MakeSession(in);
  if (!session.ok()) return ReportStatus(session.status());
  const Module* source = &(*session)->input();
  bool optimized = opts.stage == "optimized_hlo" ||
                   (opts.stage.empty() && !passes::HasInstruction(*source, opts.instruction));
  if (optimized) {
    Status st = (*session)->Optimize();
    if (!st.ok()) return ReportStatus(st);
    source = (*session)->optimized_module();
  }
  passes::ExtractOptions options;
  options.height = opts.height;
  auto extracted = ExtractInstruction(*source, opts.instruction, options);
  if (!extracted.ok()) {
    std::string where = optimized ? " (after Fusebox's pipeline)" : "";
    return ReportStatus(extracted.status().WithPrefix(in.path + where + ": "));
  }
  std::string text = (*extracted)->ToString();
  if (Status st = WriteOutput(opts.output, text); !st.ok()) return ReportStatus(st);
  const Computation* entry = (*extracted)->entry();
  std::cerr << "extracted %" << entry->root()->name()
            << (optimized ? " from Fusebox's optimized module" : "") << ": "
            << entry->instructions().size() << " instruction(s), "
            << std::count_if(entry->instructions().begin(), entry->instructions().end(),
                             [](const auto& i) { return i->opcode() == Opcode::kParameter; })
            << " parameter(s), height " << opts.height << "\n";
  return kExitOk;
}

CLI::App* AddInspectCommand(CLI::App& app, CommonInput* in, bool* json) {
  CLI::App* cmd = app.add_subcommand(
      "inspect",
      "Summarize a module: computations, instruction counts by opcode, parameter "
      "and result shapes, bytes, fusion count; runs the verifier");
  AddInputOptions(cmd, in);
  cmd->add_flag("--json", *json, "Write the summary as JSON");
  return cmd;
}

CLI::App* AddPrintCommand(CLI::App& app, CommonInput* in, PrintOptions* opts) {
  CLI::App* cmd =
      app.add_subcommand("print", "Print the module(s) in canonical HLO text (XLA's format)");
  AddInputOptions(cmd, in);
  cmd->add_flag("--verify", opts->verify, "Also run the verifier; exit 1 on errors");
  cmd->add_option("-o,--output", opts->output, "Write to this file instead of stdout");
  cmd->add_option("--split-dir", opts->split_dir,
                  "Write each module to DIR/<index>.<name>.hlo (instead of stdout)");
  return cmd;
}

CLI::App* AddVerifyCommand(CLI::App& app, CommonInput* in) {
  CLI::App* cmd =
      app.add_subcommand("verify",
                         "Run the verifier (operand counts and types, shape inference, called "
                         "computations, names, cycles) and report every problem");
  AddInputOptions(cmd, in);
  return cmd;
}

CLI::App* AddExplainCommand(CLI::App& app, CommonInput* in, ExplainOptions* opts) {
  CLI::App* cmd =
      app.add_subcommand("explain", "Why each producer was or was not fused into its consumer");
  AddInputOptions(cmd, in);
  cmd->add_flag("--collectives", opts->collectives,
                "The collectives the SPMD partitioner inserted, each with its reason (which dim of "
                "which operand is split how many ways), its groups and bytes");
  cmd->add_option("--instruction", opts->instruction,
                  "Only decisions about this instruction (name without %)");
  return cmd;
}

CLI::App* AddExtractCommand(CLI::App& app, CommonInput* in, ExtractCommandOptions* opts) {
  CLI::App* cmd = app.add_subcommand(
      "extract",
      "Write a standalone, runnable module holding one instruction (or fusion) and N levels "
      "of its operands, parameters for the rest: the smallest thing to attach to a bug");
  AddInputOptions(cmd, in);
  cmd->add_option("--instruction", opts->instruction, "The instruction or fusion (name)")
      ->required();
  cmd->add_option("--height", opts->height, "Levels of operands to keep (default 0)");
  cmd->add_option("--stage", opts->stage,
                  "hlo (the input) or optimized_hlo (after Fusebox's pipeline, where fusions are); "
                  "default: the input, or the optimized module when only it has the name");
  cmd->add_option("-o,--output", opts->output, "Write the module to this file");
  return cmd;
}

}  // namespace fusebox::cli::cli_internal
