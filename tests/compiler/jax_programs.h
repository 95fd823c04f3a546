// jax programs committed as test data (scripts/make_*_testdata.py): DIR/NAME.hlo, its
// inputs DIR/NAME.in<i>.npy and what XLA's CPU backend returned, DIR/NAME.out<i>.npy.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interpreter/npy.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/parser/parser.h"

namespace fusebox::testing_util {

struct JaxProgram {
  std::unique_ptr<Module> module;
  std::vector<Literal> args;  // the inputs
  std::vector<Literal> want;  // XLA's outputs
};

// Loads `dir`/`name`.* (dir under the source tree, e.g. "tests/data/fft"); a missing or
// malformed file is a test failure (check with ASSERT_NO_FATAL_FAILURE).
inline void LoadJaxProgram(const std::string& dir, const std::string& name, int inputs, int outputs,
                           JaxProgram* out) {
  const std::string prefix = std::string(FUSEBOX_SOURCE_DIR) + "/" + dir + "/" + name + ".";
  std::ifstream file(prefix + "hlo");
  ASSERT_TRUE(file.good()) << prefix << "hlo";
  std::stringstream text;
  text << file.rdbuf();
  auto module = ParseModule(text.str());
  ASSERT_TRUE(module.ok()) << module.status().message();
  out->module = std::move(*module);
  for (int i = 0; i < inputs + outputs; ++i) {
    const bool input = i < inputs;
    auto literal =
        interpreter::ReadNpy(prefix + (input ? "in" : "out") + std::to_string(input ? i : i - inputs) + ".npy");
    ASSERT_TRUE(literal.ok()) << literal.status().message();
    (input ? out->args : out->want).push_back(std::move(*literal));
  }
}

}  // namespace fusebox::testing_util
