// Subcommands of the `fusebox` CLI. Each one loads its input through the importers,
// works through the compiler's API, and writes text to stdout (results) or stderr
// (diagnostics).
#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "compiler/ir/summary.h"
#include "compiler/verifier/verifier.h"
#include "importers/module_loader.h"

#ifndef FUSEBOX_VERSION
#define FUSEBOX_VERSION "0.0.0"
#endif

namespace fusebox {

namespace {

struct CommonInput {
  std::string path;
  std::string module;
  bool strict = false;
};

void AddInputOptions(CLI::App* cmd, CommonInput* in) {
  cmd->add_option("FILE", in->path, "HLO text file (.hlo / .txt) as XLA prints it")->required();
  cmd->add_option("--module", in->module,
                  "Module to use when the file holds several: index (0, 1, ...) or name");
  cmd->add_flag("--strict", in->strict, "Treat unknown attributes as errors");
}

int ReportStatus(const Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitUserError;
}

StatusOr<LoadedFile> Load(const CommonInput& in, bool quiet_warnings = false) {
  LoadOptions options;
  options.allow_unknown_attributes = !in.strict;
  auto file = LoadFile(in.path, options);
  if (file.ok() && !quiet_warnings) {
    for (const ParseWarning& w : file->warnings) {
      std::cerr << in.path << ":" << w.location.line << ":" << w.location.column
                << ": warning: " << w.message << "\n";
    }
  }
  return file;
}

int PrintVerifierIssues(const std::vector<VerifierIssue>& issues, bool* has_errors) {
  int errors = 0;
  for (const VerifierIssue& issue : issues) {
    bool error = issue.severity == VerifierIssue::Severity::kError;
    std::cerr << (error ? "error: " : "warning: ") << issue.message << "\n";
    if (error) ++errors;
  }
  if (has_errors) *has_errors = errors > 0;
  return errors;
}

int RunInspect(const CommonInput& in, bool json) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
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

// Writes each module to DIR/<index>.<module name>.hlo (for tools that take one module per
// file, such as XLA's own parser).
int WriteSplit(const LoadedFile& file, const std::vector<size_t>& picked, const std::string& dir) {
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

int RunPrint(const CommonInput& in, bool verify, const std::string& out_path,
             const std::string& split_dir) {
  auto file = Load(in);
  if (!file.ok()) return ReportStatus(file.status());
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
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
  auto picked = SelectModules(*file, in.module, /*allow_all=*/true);
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

}  // namespace

int RunCli(int argc, char** argv) {
  try {
    CLI::App app{"Fusebox: a workbench for XLA-style tensor compilers (HLO, fusion, kernels)",
                 "fusebox"};
    app.set_version_flag("--version", std::string("fusebox ") + FUSEBOX_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);

    CommonInput inspect_in;
    bool inspect_json = false;
    CLI::App* inspect = app.add_subcommand(
        "inspect", "Summarize a module: computations, instruction counts by opcode, parameter "
                   "and result shapes, bytes, fusion count; runs the verifier");
    AddInputOptions(inspect, &inspect_in);
    inspect->add_flag("--json", inspect_json, "Write the summary as JSON");

    CommonInput print_in;
    bool print_verify = false;
    std::string print_out, print_split;
    CLI::App* print = app.add_subcommand(
        "print", "Print the module(s) in canonical HLO text (XLA's format)");
    AddInputOptions(print, &print_in);
    print->add_flag("--verify", print_verify, "Also run the verifier; exit 1 on errors");
    print->add_option("-o,--output", print_out, "Write to this file instead of stdout");
    print->add_option("--split-dir", print_split,
                      "Write each module to DIR/<index>.<name>.hlo (instead of stdout)");

    CommonInput verify_in;
    CLI::App* verify = app.add_subcommand(
        "verify", "Run the verifier (operand counts and types, shape inference, called "
                  "computations, names, cycles) and report every problem");
    AddInputOptions(verify, &verify_in);

    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      int code = app.exit(e);
      return code == 0 ? kExitOk : kExitUserError;
    }

    if (inspect->parsed()) return RunInspect(inspect_in, inspect_json);
    if (print->parsed()) return RunPrint(print_in, print_verify, print_out, print_split);
    if (verify->parsed()) return RunVerify(verify_in);
    std::cerr << app.help();
    return kExitUserError;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "internal error: unknown exception\n";
    return kExitInternal;
  }
}

}  // namespace fusebox
