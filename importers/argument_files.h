// Arguments for a module's entry parameters from the files users already have: one
// NumPy `.npy` per parameter, one `.npz` archive (what numpy.savez and savez_compressed
// write: a zip of .npy members), or the arguments XLA recorded in an HloSnapshot
// (`--xla_dump_hlo_snapshots`: `module_0001.jit_f.snapshot.0.pb`).
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::importers {

// One member of an .npz archive: its name without the `.npy` suffix ("arr_0", "x") and
// its bytes (an .npy file).
struct NpzMember {
  std::string name;
  std::string bytes;
};

// The members of an .npz archive in archive order, stored or deflated, zip64 or not.
// Errors start with the file name.
StatusOr<std::vector<NpzMember>> ReadNpz(const std::string& path);

struct ArgumentFiles {
  std::vector<Literal> arguments;    // one per entry parameter, with the parameter's shape
  std::vector<std::string> sources;  // per parameter: "x.npy", "a.npz member 'arr_0'", ...
  std::vector<std::string> notes;    // worth telling the user (a snapshot of another module)
};

// Reads the arguments of `module`'s entry computation from `paths`, as `--inputs` takes
// them:
//   * one .npy file per parameter, in order;
//   * one .npz archive (by its zip signature, or the `.npz` name). Each parameter takes
//     the member named like it: its name ("var.1"), its name without the ".N" suffix
//     XLA appends ("var"), or, as numpy names the arrays of savez(a, b, ...), "arr_<p>"
//     for parameter p; in that order of preference. Every member must be taken by
//     exactly one parameter;
//   * one HloSnapshot (binary proto, plain or gzip; the `.pb` name or binary content):
//     its arguments, one per parameter.
// Every array must have its parameter's element type and dimensions. Errors name the
// file, the member or argument, and the parameter.
StatusOr<ArgumentFiles> LoadArgumentFiles(const Module& module,
                                          const std::vector<std::string>& paths);

}  // namespace fusebox::importers
