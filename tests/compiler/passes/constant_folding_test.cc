// ConstantFolding: what it folds (structure and values), what it must leave alone (rng,
// expanding broadcasts, iota, control flow, results over the size limit, elided
// constants, what the interpreter rejects), and the examples unchanged in value after
// constant folding followed by the algebraic simplifier.
#include "compiler/passes/constant_folding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/compiler/passes/pass_test_util.h"
#include "tests/test_util.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/algebraic_simplifier.h"
#include "compiler/verifier/verifier.h"

namespace fusebox::passes {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Runs `passes` on a copy of `original`; checks the copy verifies, prints as text that
// parses again and computes the same values on random arguments (seed 1).
std::unique_ptr<Module> RunAndCheck(const Module& original, std::vector<Pass*> passes,
                                    bool expect_changed) {
  std::unique_ptr<Module> module = original.Clone();
  if (module == nullptr) {
    ADD_FAILURE() << "cannot clone " << original.name();
    return nullptr;
  }
  PassContext context;
  bool any_changed = false;
  for (Pass* pass : passes) {
    StatusOr<bool> changed = pass->Run(*module, context);
    if (!changed.ok()) {
      ADD_FAILURE() << pass->name() << ": " << changed.status().message();
      return nullptr;
    }
    any_changed = any_changed || *changed;
  }
  EXPECT_EQ(any_changed, expect_changed) << module->ToString();
  Status verified = Verify(*module);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << module->ToString();
  EXPECT_TRUE(ParseModule(module->ToString()).ok()) << "printed module does not parse again";

  // An unchanged module computes what it computed; the examples' 16384x16384 inputs
  // make the interpreter slow enough to skip that run when the text is identical.
  if (module->ToString() == original.ToString()) return module;
  if (!testing_util::ExpectBitIdenticalResult(original, *module)) return nullptr;
  return module;
}

std::unique_ptr<Module> Fold(const std::string& text, bool expect_changed = true,
                             ConstantFoldingOptions options = {}) {
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(text);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.status().message();
    return nullptr;
  }
  ConstantFolding pass(options);
  return RunAndCheck(**parsed, {&pass}, expect_changed);
}

const Instruction* Root(const Module& module) { return module.entry()->root(); }

TEST(ConstantFoldingTest, NameIsConstantFolding) {
  EXPECT_EQ(ConstantFolding().name(), "constant-folding");
}

TEST(ConstantFoldingTest, FoldsAChainInOneRun) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({10, 20, 30})
  s = f32[3] add(a, b)
  n = f32[3] negate(s)
  p = f32[3] parameter(0)
  ROOT r = f32[3] multiply(n, p)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* folded = Root(*m)->operand(0);
  ASSERT_EQ(folded->opcode(), Opcode::kConstant);
  EXPECT_THAT(folded->ToString(), HasSubstr("f32[3] constant({-11, -22, -33})"));
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kMultiply);
}

TEST(ConstantFoldingTest, FoldsTheRootAndKeepsLayoutAndMetadata) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  a = s32[2,2]{0,1} constant({{1, 2}, {3, 4}})
  ROOT t = s32[2,2]{1,0} transpose(a), dimensions={1,0}, metadata={op_type="transpose" op_name="jit(f)/t"}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kConstant);
  EXPECT_EQ(root->shape().ToString(), "s32[2,2]{1,0}");
  EXPECT_THAT(root->ToString(), HasSubstr("constant({ { 1, 3 }, { 2, 4 } })"));
  ASSERT_NE(root->metadata(), nullptr);
  EXPECT_EQ(root->metadata()->op_name, "jit(f)/t");
}

TEST(ConstantFoldingTest, NewConstantsHaveUniqueNames) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  constant = f32[] constant(1)
  constant.1 = f32[] constant(2)
  a = f32[] add(constant, constant.1)
  b = f32[] subtract(constant, constant.1)
  ROOT t = (f32[], f32[]) tuple(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* a = Root(*m)->operand(0);
  const Instruction* b = Root(*m)->operand(1);
  ASSERT_EQ(a->opcode(), Opcode::kConstant);
  ASSERT_EQ(b->opcode(), Opcode::kConstant);
  EXPECT_NE(a->name(), b->name());
  EXPECT_NE(a->name(), "constant");
  EXPECT_NE(a->name(), "constant.1");
  EXPECT_EQ(a->literal()->GetDouble(0), 3);
  EXPECT_EQ(b->literal()->GetDouble(0), -1);
}

TEST(ConstantFoldingTest, FoldsReducesWithTheirReducer) {
  auto m = Fold(R"(
HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = s32[] constant(0)
  ROOT r = s32[2] reduce(a, z), dimensions={1}, to_apply=add
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Root(*m)->ToString(), HasSubstr("s32[2] constant({6, 15})"));
}

TEST(ConstantFoldingTest, DoesNotFoldRng) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[4] rng(lo, hi), distribution=rng_uniform
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kRng);
}

TEST(ConstantFoldingTest, DoesNotFoldABroadcastToALargeShape) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  c = f32[2] constant({1, 2})
  ROOT b = f32[1000,2] broadcast(c), dimensions={1}
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kBroadcast);
}

TEST(ConstantFoldingTest, DoesNotFoldScalarBroadcastsOrIotaButFoldsTheirNeighbours) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  c = f32[] constant(2)
  b = f32[8] broadcast(c), dimensions={}
  i = s32[8] iota(), iota_dimension=0
  one = f32[] constant(1)
  two = f32[] constant(2)
  s = f32[] add(one, two)
  ROOT t = (f32[8], s32[8], f32[]) tuple(b, i, s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->operand(0)->opcode(), Opcode::kBroadcast);
  EXPECT_EQ(Root(*m)->operand(1)->opcode(), Opcode::kIota);
  EXPECT_EQ(Root(*m)->operand(2)->opcode(), Opcode::kConstant);
}

TEST(ConstantFoldingTest, FoldsABroadcastThatDoesNotExpand) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  c = f32[2] constant({1, 2})
  ROOT b = f32[2,1] broadcast(c), dimensions={0}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kConstant);
}

TEST(ConstantFoldingTest, DoesNotFoldBeyondTheSizeLimit) {
  ConstantFoldingOptions options;
  options.max_elements = 4;
  const char* text = R"(
HloModule m
ENTRY e {
  a = f32[8] constant({1, 2, 3, 4, 5, 6, 7, 8})
  n = f32[8] negate(a)
  b = f32[4] constant({1, 2, 3, 4})
  m = f32[4] negate(b)
  ROOT t = (f32[8], f32[4]) tuple(n, m)
}
)";
  auto m = Fold(text, /*expect_changed=*/true, options);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->operand(0)->opcode(), Opcode::kNegate);
  EXPECT_EQ(Root(*m)->operand(1)->opcode(), Opcode::kConstant);
  // The default limit (2^20 elements) folds both.
  auto d = Fold(text);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Root(*d)->operand(0)->opcode(), Opcode::kConstant);
}

TEST(ConstantFoldingTest, DoesNotFoldControlFlowOrCalls) {
  Fold(R"(
HloModule m
callee {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
cond {
  s = s32[] parameter(0)
  k = s32[] constant(3)
  ROOT lt = pred[] compare(s, k), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT a = s32[] add(s, one)
}
ENTRY e {
  c = f32[] constant(1)
  r = f32[] call(c), to_apply=callee
  z = s32[] constant(0)
  w = s32[] while(z), condition=cond, body=body
  ROOT t = (f32[], s32[]) tuple(r, w)
}
)", /*expect_changed=*/false);
}

TEST(ConstantFoldingTest, DoesNotFoldElidedConstants) {
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(R"(
HloModule m
ENTRY e {
  a = f32[3] constant({...})
  ROOT n = f32[3] negate(a)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  PassContext context;
  StatusOr<bool> changed = ConstantFolding().Run(**parsed, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ((*parsed)->entry()->root()->opcode(), Opcode::kNegate);
}

TEST(ConstantFoldingTest, NeverFoldsCustomCallsButFoldsTheirNeighbours) {
  // The interpreter cannot run the custom call, so only the structure is checked.
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(R"(
HloModule m
ENTRY e {
  a = f32[2,2] constant({{1, 2}, {3, 4}})
  cc = f32[2,2] custom-call(a), custom_call_target="foo"
  d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,2], f32[2,2]) tuple(cc, d)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  PassContext context;
  StatusOr<bool> changed = ConstantFolding().Run(**parsed, context);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  const Instruction* root = (*parsed)->entry()->root();
  EXPECT_EQ(root->operand(0)->opcode(), Opcode::kCustomCall);
  EXPECT_THAT(root->operand(1)->ToString(), HasSubstr("constant({ { 7, 10 }, { 15, 22 } })"));
  EXPECT_TRUE(Verify(**parsed).ok());
}

TEST(ConstantFoldingTest, EvaluateOnConstantOperandsRejectsNonConstants) {
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(R"(
HloModule m
ENTRY e {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
)");
  ASSERT_TRUE(parsed.ok());
  StatusOr<Literal> value = EvaluateOnConstantOperands(*(*parsed)->entry()->root());
  EXPECT_FALSE(value.ok());
}

TEST(ConstantFoldingTest, LeavesDeadInstructionsForDce) {
  auto m = Fold(R"(
HloModule m
ENTRY e {
  a = f32[] constant(1)
  dead = f32[] negate(a)
  ROOT p = f32[] parameter(0)
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->entry()->FindInstruction("dead"), nullptr);
}

// Every example module, and XLA's optimized output for it, computes the same values
// after constant folding followed by the algebraic simplifier.
std::vector<std::string> ExampleFiles() {
  std::vector<std::string> files;
  fs::path root(FUSEBOX_SOURCE_DIR);
  for (const char* dir : {"assets/examples", "assets/examples/xla_cpu"}) {
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
        files.push_back(fs::relative(entry.path(), root).string());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class ConstantFoldingExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConstantFoldingExampleTest, KeepsItsValues) {
  StatusOr<ParseResult> parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / GetParam()).string());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Module& module = *parsed->modules[0];
  if (TooBigForThisBuild(module)) GTEST_SKIP() << "too big for a sanitizer build";
  std::unique_ptr<Module> probe = module.Clone();
  ASSERT_NE(probe, nullptr);
  ConstantFolding folding;
  AlgebraicSimplifier simplifier;
  PassContext context;
  StatusOr<bool> folded = folding.Run(*probe, context);
  StatusOr<bool> simplified = simplifier.Run(*probe, context);
  ASSERT_TRUE(folded.ok() && simplified.ok());
  RunAndCheck(module, {&folding, &simplifier}, /*expect_changed=*/*folded || *simplified);
}

INSTANTIATE_TEST_SUITE_P(Examples, ConstantFoldingExampleTest,
                         ::testing::ValuesIn(ExampleFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name;
                           for (char c : param_info.param) {
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace fusebox::passes
