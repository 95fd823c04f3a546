// For the graph and viewer tests: an HLO file through Fusebox's pipeline (no per-pass
// snapshots), in a session that owns the optimized module; null after a failed
// expectation when the file does not parse or the pipeline fails.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"

namespace fusebox::testing_util {

inline std::unique_ptr<session::CompileSession> OptimizedSession(const std::string& path) {
  auto parsed = ParseFile(path);
  EXPECT_TRUE(parsed.ok()) << path << ": " << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  auto session = std::make_unique<session::CompileSession>(std::move(parsed->modules.front()));
  passes::PipelineOptions options;
  options.snapshot_pass_regex = "";
  Status st = session->Optimize(options);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return st.ok() ? std::move(session) : nullptr;
}

}  // namespace fusebox::testing_util
