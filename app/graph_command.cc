// The `graph` subcommand: load → (optimize) → fusion graph → DOT/SVG/PNG file.
#include "app/graph_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/cli.h"
#include "compiler/session/compile_session.h"
#include "compiler/support/strings.h"
#include "compiler/verifier/verifier.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "importers/dump_index.h"
#include "importers/module_loader.h"

namespace fusebox::cli {

namespace {

int Fail(const Status& status) {
  std::cerr << "error: " << status.message() << "\n";
  return status.code() == StatusCode::kInternal ? kExitInternal : kExitUserError;
}

std::string FormatFromName(const std::string& path) {
  if (EndsWith(path, ".dot") || EndsWith(path, ".gv")) return "dot";
  if (EndsWith(path, ".svg")) return "svg";
  if (EndsWith(path, ".png")) return "png";
  return "";
}

Status WriteOutput(const std::string& path, const std::string& data) {
  if (path.empty() || path == "-") {
    std::cout.write(data.data(), static_cast<std::streamsize>(data.size()));
    std::cout.flush();
    return std::cout ? Status::Ok() : InvalidArgument("cannot write to stdout");
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return InvalidArgument(path + ": cannot write");
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  if (!out) return InvalidArgument(path + ": cannot write");
  return Status::Ok();
}

}  // namespace

CLI::App* AddGraphCommand(CLI::App& app, GraphCommandOptions* options) {
  CLI::App* cmd = app.add_subcommand(
      "graph", "Draw the fusion graph of a module as DOT, SVG or PNG (Graphviz layout)");
  cmd->add_option("FILE", options->path,
                  "HLO text, an HLO proto or an XLA dump folder (--xla_dump_to)")
      ->required();
  cmd->add_option("--module", options->module,
                  "Module to draw when the input holds several: index or name; in a dump folder "
                  "its id (0003 or 3) or name");
  cmd->add_option(
      "--dump-stage", options->dump_stage,
      "Dump folders: which dump of the module to load: before_optimizations (default), "
      "after_optimizations (XLA's fusions; use with --stage hlo) or a pass step (0005)");
  cmd->add_option(
      "--stage", options->stage,
      "hlo (the module as loaded) or optimized_hlo (after Fusebox's pipeline, the default)");
  CLI::Option* format = cmd->add_option("--format", options->format, "dot, svg (default) or png");
  cmd->add_option("--out,-o", options->out, "Output file (default: stdout)");
  cmd->add_option("--instruction", options->instruction,
                  "Draw only the neighbourhood of this instruction (fused ones too)");
  cmd->add_option("--radius", options->radius,
                  "Neighbourhood size: operand and user hops from --instruction (default 2)");
  cmd->add_flag("--expand-fusions", options->expand_fusions,
                "Draw each fusion as a cluster of its fused instructions");
  cmd->add_option("--expand-small", options->expand_small,
                  "Expand only fusions with at most this many instructions");
  cmd->add_flag(
      "--hide-trivial", options->hide_trivial,
      "Leave out get-tuple-element, tuple and bitcast (their operands connect to their users)");
  cmd->add_flag(
      "--show-constants", options->show_constants,
      "Draw every constant as a node (by default small ones are folded into their users)");
  cmd->add_option("--max-nodes", options->max_nodes,
                  "Node budget: above it fusions are collapsed, and if still above the command "
                  "asks for --instruction (default 1500, 0 = no limit)");
  cmd->add_flag("--strict", options->strict, "Treat unknown attributes as errors");
  cmd->add_flag("--cluster", options->cluster,
                "Group nodes by their op_name scope (jax/Keras layer paths) into clusters, "
                "collapse the deep ones, fold parameters, tuples and get-tuple-elements");
  cmd->add_option("--collapse-depth", options->collapse_depth,
                  "With --cluster: scopes this deep and deeper (0 = top level) are drawn as one "
                  "node each (default: the deepest level that draws at most 40 nodes)");
  cmd->add_option("--expand-scope", options->expand_scopes,
                  "With --cluster: draw this scope (its full path, as in op_name without "
                  "jit(...)) expanded whatever its depth; repeatable");
  cmd->add_option("--collapse-scope", options->collapse_scopes,
                  "With --cluster: draw this scope as one node; repeatable");
  cmd->parse_complete_callback([options, format] {
    if (format->count() == 0) {
      std::string inferred = FormatFromName(options->out);
      if (!inferred.empty()) options->format = inferred;
    }
  });
  return cmd;
}

int RunGraphCommand(const GraphCommandOptions& options) {
  if (options.format != "dot" && options.format != "svg" && options.format != "png") {
    return Fail(InvalidArgument("unknown graph format '" + options.format + "' (dot, svg or png)"));
  }
  if (options.stage != "hlo" && options.stage != "optimized_hlo") {
    return Fail(
        InvalidArgument("unknown stage '" + options.stage + "' for graph (hlo or optimized_hlo)"));
  }
  if (options.radius < 0) return Fail(InvalidArgument("--radius must be 0 or more"));
  if (options.max_nodes < 0) return Fail(InvalidArgument("--max-nodes must be 0 or more"));

  importers::LoadOptions load;
  load.allow_unknown_attributes = !options.strict;
  load.dump_stage = options.dump_stage;
  if (importers::IsDumpFolder(options.path)) load.module_selector = options.module;
  auto file = importers::LoadFile(options.path, load);
  if (!file.ok()) return Fail(file.status());
  for (const std::string& note : file->notes) std::cerr << "note: " << note << "\n";
  auto picked = importers::SelectModules(*file, options.module, /*allow_all=*/false);
  if (!picked.ok()) return Fail(picked.status());
  std::unique_ptr<Module> loaded = std::move(file->modules[picked->front()]);

  VerifierOptions vopts;
  vopts.filename = options.path;
  Status verified = Verify(*loaded, vopts);
  if (!verified.ok()) {
    return Fail(
        InvalidArgument(options.path + ": the module does not verify:\n" + verified.message()));
  }

  std::unique_ptr<session::CompileSession> session;
  const Module* module = loaded.get();
  if (options.stage == "optimized_hlo") {
    session = std::make_unique<session::CompileSession>(std::move(loaded));
    passes::PipelineOptions popts;
    popts.snapshot_pass_regex = "";  // the graph needs the result only
    Status st = session->Optimize(popts);
    if (!st.ok()) return Fail(st);
    module = session->optimized_module();
  }

  graph::FusionGraphOptions gopts;
  gopts.fusions = options.expand_fusions     ? graph::FusionDisplay::kExpandAll
                  : options.expand_small > 0 ? graph::FusionDisplay::kExpandSmall
                                             : graph::FusionDisplay::kCollapseAll;
  gopts.expand_max_instructions = options.expand_small;
  gopts.show_trivial = !options.hide_trivial;
  gopts.constants = options.show_constants ? graph::ConstantDisplay::kShowAll
                                           : graph::ConstantDisplay::kFoldSmall;
  gopts.center = options.instruction;
  gopts.radius = options.radius;
  gopts.max_nodes = options.max_nodes;
  if (options.cluster || options.collapse_depth >= 0 || !options.expand_scopes.empty() ||
      !options.collapse_scopes.empty()) {
    gopts.scopes.enabled = true;
    gopts.scopes.collapse_depth = options.collapse_depth;
    for (const std::string& scope : options.expand_scopes) gopts.scopes.expanded[scope] = true;
    for (const std::string& scope : options.collapse_scopes) gopts.scopes.expanded[scope] = false;
    gopts.fold_parameters = true;
    gopts.show_trivial = false;
  }
  gopts.title = module->name() + " (" + options.stage + ")";
  if (!options.instruction.empty()) {
    gopts.title += ", radius " + std::to_string(options.radius) + " around %" + options.instruction;
  }
  auto graph = graph::BuildFusionGraph(*module, gopts);
  if (!graph.ok()) {
    if (graph::IsGraphTooBig(graph.status())) {
      return Fail(InvalidArgument(graph.status().message() +
                                  " (--instruction NAME --radius N, or raise --max-nodes)"));
    }
    return Fail(graph.status());
  }
  for (const std::string& note : graph->notes) std::cerr << "note: " << note << "\n";

  auto rendered = graph::Render(*graph, options.format);
  if (!rendered.ok()) return Fail(rendered.status());
  Status written = WriteOutput(options.out, *rendered);
  if (!written.ok()) return Fail(written);
  if (!options.out.empty() && options.out != "-") {
    std::cerr << "wrote " << options.out << ": " << graph->instruction_node_count() << " nodes, "
              << graph->edges.size() << " edges, " << graph->clusters.size() << " clusters\n";
  }
  return kExitOk;
}

}  // namespace fusebox::cli
