// The HLO text parser: the full format XLA prints in dumps and tests, into the IR.
// Errors are `file:line:col: message` followed by the offending source line and a caret.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox {

struct ParseOptions {
  // Name used in error messages ("<text>" when parsing a string).
  std::string filename = "<text>";
  // When false, attributes the parser does not know are errors; when true (default)
  // they are kept verbatim on the instruction (InstructionAttributes::raw) and listed
  // in `warnings`.
  bool allow_unknown_attributes = true;
};

struct ParseWarning {
  SourceLocation location;
  std::string message;
};

struct ParseResult {
  std::vector<std::unique_ptr<Module>> modules;  // one per module in the file
  std::vector<ParseWarning> warnings;
};

// Parses every module in `text`. Several modules may be separated by `// -----` lines
// (as XLA's test files do) or follow each other with `HloModule` headers; a module
// may be given as bare computations without a header (the last computation, or the one
// marked ENTRY, is the entry).
StatusOr<ParseResult> ParseModules(std::string_view text, const ParseOptions& options = {});

// Parses exactly one module (the first, if the text holds several).
StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                              const ParseOptions& options = {});

// Reads and parses a file; errors name the file.
StatusOr<ParseResult> ParseFile(const std::string& path, const ParseOptions& options = {});

// Parses a shape (`f32[2,3]{1,0}`, `(s32[], pred[4])`) on its own.
StatusOr<Shape> ParseShape(std::string_view text);

}  // namespace fusebox
