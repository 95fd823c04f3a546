// jax programs committed as test data (scripts/make_*_testdata.py): DIR/NAME.hlo, its
// inputs DIR/NAME.in<i>.npy and what XLA's CPU backend returned, DIR/NAME.out<i>.npy.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interpreter/literal_compare.h"
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

// `actual` (one output, or a tuple of them) against XLA's outputs, each within `type`'s
// default tolerance.
inline void ExpectMatchesXla(const Literal& actual, const std::vector<Literal>& want, PrimitiveType type) {
  const bool tuple = actual.shape().IsTuple();
  ASSERT_EQ(tuple ? actual.tuple_elements().size() : 1u, want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const Literal& got = tuple ? actual.tuple_elements()[i] : actual;
    interpreter::CompareResult cmp = interpreter::CompareLiterals(got, want[i], interpreter::DefaultToleranceFor(type));
    EXPECT_TRUE(cmp.ok()) << "output " << i << ": " << cmp.ToString();
  }
}

}  // namespace fusebox::testing_util
