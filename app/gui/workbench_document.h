// What the workbench holds of an open file or dump folder: the document, one ModuleDoc per
// module with its compile session and what has been computed for it (stage texts, laid-out
// graphs, the comparison with XLA, the source map). Data only: the panels keep their view
// state themselves (panels.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/summary.h"
#include "compiler/session/compile_session.h"
#include "compiler/session/fusion_comparison.h"
#include "compiler/session/memory_view.h"
#include "compiler/session/source_map.h"
#include "graph/fusion_graph.h"
#include "graph/graph_layout.h"
#include "importers/dump_index.h"

namespace fusebox::gui {

struct StageText {
  bool loading = false;
  bool ready = false;
  std::string text;
  std::string error;
};

// One module of the open document and what has been computed for it.
struct ModuleDoc {
  std::string key;    // dump key, or the module's index
  std::string label;  // "0003 jit_f" / module name
  std::shared_ptr<session::CompileSession> session;
  std::vector<Literal> arguments;  // an HloSnapshot's
  std::string verify_error;        // the verifier's errors ("" when it verifies)
  // How the input spreads over devices (computed when it loads) and, once optimized,
  // the per-device program's collectives.
  DeviceSummary devices;
  DeviceSummary optimized_devices;
  // Whether the input / the optimized module is a global program on several devices
  // (shapes are whole arrays; each device holds a shard).
  bool input_global = false;
  bool optimized_global = false;
  // Laid-out fusion graphs by their options (Graphviz is the slow part: a graph is laid
  // out once per module and option set).
  struct CachedGraph {
    graph::FusionGraph graph;
    graph::GraphLayout layout;
    std::string message;
  };
  std::map<std::string, std::shared_ptr<const CachedGraph>> graphs;
  // XLA's fusion against Fusebox's (dump folders only; computed on first view).
  bool compare_started = false;
  bool compare_done = false;
  std::optional<session::FusionComparison> comparison;
  std::string compare_error;
  // The memory view: fused and unfused profiles, XLA's figures (computed on first view).
  bool memory_started = false;
  bool memory_done = false;
  std::optional<session::MemoryView> memory;
  std::string memory_error;
  bool optimize_started = false;
  bool optimized = false;
  std::string optimize_error;
  // Instruction -> the fusion (kernel) that runs it in the optimized module (when the
  // pipeline reports back) -> the LLVM functions / PTX entries implementing it (as the
  // code stages are built).
  session::SourceMap source_map;
  std::map<std::string, StageText> stages;
  std::vector<std::string> stage_names;
};

struct Document {
  std::string path;
  std::optional<importers::DumpIndex> index;  // dump folders
  std::vector<std::shared_ptr<ModuleDoc>> modules;
  int current = 0;
  std::vector<std::string> notes;
};

}  // namespace fusebox::gui
