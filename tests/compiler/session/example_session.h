// Session tests' helpers: a compile session on a bundled example, a stage's text.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"

namespace fusebox::session {

// A session on assets/examples/`example` (null, with a test failure, when it does not parse).
inline std::unique_ptr<CompileSession> SessionOf(const std::string& example) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + example);
  std::stringstream text;
  text << in.rdbuf();
  auto module = ParseModule(text.str());
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return nullptr;
  return std::make_unique<CompileSession>(std::move(*module));
}

// The stage's text ("" with a test failure when it cannot be built).
inline std::string StageOf(CompileSession& session, Stage stage) {
  auto text = session.StageText(stage);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

}  // namespace fusebox::session
