// `fusebox graph`: draws a module's fusion graph (before or after Fusebox's pipeline) as
// DOT, SVG or PNG, whole or as the neighbourhood of one instruction.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace fusebox::cli {

struct GraphCommandOptions {
  std::string path;            // HLO file, HLO proto or XLA dump folder
  std::string module;          // which module (index, name; in a dump folder its id)
  std::string dump_stage;      // dump folders: before_optimizations, after_optimizations, 0005
  std::string instruction;     // neighbourhood center; empty draws the whole module
  std::string format = "svg";  // dot, svg or png
  std::string out;             // output file; empty or "-" writes to stdout
  std::string stage =
      "optimized_hlo";  // hlo (as loaded) or optimized_hlo (after Fusebox's pipeline)
  int radius = 2;
  bool expand_fusions = false;
  int expand_small = 0;         // > 0: expand fusions of at most this many instructions
  bool hide_trivial = false;    // bypass get-tuple-element, tuple and bitcast
  bool show_constants = false;  // every constant as a node
  int max_nodes = 1500;
  bool strict = false;
  // Grouping by op_name scope (--cluster): collapsed below this depth (-1: as deep as the
  // budget allows), these scopes expanded or collapsed whatever the depth; parameters and
  // tuples folded.
  bool cluster = false;
  int collapse_depth = -1;
  std::vector<std::string> expand_scopes;
  std::vector<std::string> collapse_scopes;
};

// Registers the `graph` subcommand on `app`, filling `options`. When --format is not
// given, an --out name ending in .dot/.gv, .svg or .png picks the format.
CLI::App* AddGraphCommand(CLI::App& app, GraphCommandOptions* options);

// Runs it: 0 on success, 1 for a user error (printed as `error: ...` on stderr), 2 for
// an internal error.
int RunGraphCommand(const GraphCommandOptions& options);

}  // namespace fusebox::cli
