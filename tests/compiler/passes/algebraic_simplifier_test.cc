// AlgebraicSimplifier: one test per rewrite (the rewritten structure, plus the
// interpreter's result unchanged on random inputs), the "does not ..." cases, and every
// example module run through the pass unchanged in value.
#include "compiler/passes/algebraic_simplifier.h"

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
#include "compiler/verifier/verifier.h"

namespace fusebox::passes {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Runs the pass on a copy of `original` and checks what every rewrite must keep: the
// module verifies, prints as text that parses again, and computes the same values on
// random arguments (seed 1). Returns the rewritten module, or null after a failure.
std::unique_ptr<Module> SimplifyAndCheck(const Module& original, bool expect_changed) {
  std::unique_ptr<Module> module = original.Clone();
  if (module == nullptr) {
    ADD_FAILURE() << "cannot clone " << original.name();
    return nullptr;
  }
  PassContext context;
  StatusOr<bool> changed = AlgebraicSimplifier().Run(*module, context);
  if (!changed.ok()) {
    ADD_FAILURE() << changed.status().message();
    return nullptr;
  }
  EXPECT_EQ(*changed, expect_changed) << module->ToString();
  Status verified = Verify(*module);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << module->ToString();
  EXPECT_TRUE(ParseModule(module->ToString()).ok()) << "printed module does not parse again";

  // An unchanged module computes what it computed; the examples' 16384x16384 inputs
  // make the interpreter slow enough to skip that run when the text is identical.
  if (module->ToString() == original.ToString()) return module;
  if (!testing_util::ExpectBitIdenticalResult(original, *module)) return nullptr;
  return module;
}

std::unique_ptr<Module> Simplify(const std::string& text, bool expect_changed = true) {
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(text);
  if (!parsed.ok()) {
    ADD_FAILURE() << parsed.status().message();
    return nullptr;
  }
  return SimplifyAndCheck(**parsed, expect_changed);
}

const Instruction* Root(const Module& module) { return module.entry()->root(); }

TEST(AlgebraicSimplifierTest, NameIsAlgsimp) {
  EXPECT_EQ(AlgebraicSimplifier().name(), "algsimp");
}

TEST(AlgebraicSimplifierTest, AddZeroOnEitherSide) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  zb = f32[4] broadcast(z), dimensions={}
  a = f32[4] add(p, zb)
  zc = f32[4] constant({0, 0, 0, 0})
  ROOT b = f32[4] add(zc, a)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kParameter);
}

TEST(AlgebraicSimplifierTest, SubtractZeroAndDivideByOne) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = s32[3] parameter(0)
  z = s32[3] constant({0, 0, 0})
  s = s32[3] subtract(p, z)
  one = s32[] constant(1)
  ob = s32[3] broadcast(one), dimensions={}
  ROOT d = s32[3] divide(s, ob)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "p");
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteZeroMinusX) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  z = f32[3] constant({0, 0, 0})
  ROOT s = f32[3] subtract(z, p)
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kSubtract);
}

TEST(AlgebraicSimplifierTest, MultiplyByOneOnEitherSide) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = f32[2,2] parameter(0)
  one = f32[] constant(1)
  ob = f32[2,2] broadcast(one), dimensions={}
  a = f32[2,2] multiply(ob, p)
  ROOT b = f32[2,2] multiply(a, ob)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "p");
}

TEST(AlgebraicSimplifierTest, MultiplyIntegerByZeroIsZero) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  z = s32[] constant(0)
  zb = s32[4] broadcast(z), dimensions={}
  ROOT r = s32[4] multiply(p, zb)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "zb");
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteTimesZeroForFloats) {
  // NaN * 0 and inf * 0 are NaN, so x * 0 is not 0 for floats.
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  zb = f32[4] broadcast(z), dimensions={}
  ROOT r = f32[4] multiply(p, zb)
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kMultiply);
}

TEST(AlgebraicSimplifierTest, AndOrWithConstants) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = pred[4] parameter(0)
  t = pred[] constant(true)
  tb = pred[4] broadcast(t), dimensions={}
  f = pred[4] constant({false, false, false, false})
  and_true = pred[4] and(p, tb)
  and_false = pred[4] and(f, p)
  or_false = pred[4] or(p, f)
  or_true = pred[4] or(tb, p)
  ROOT r = (pred[4], pred[4], pred[4], pred[4]) tuple(and_true, and_false, or_false, or_true)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  EXPECT_EQ(root->operand(0)->name(), "p");
  EXPECT_EQ(root->operand(1)->name(), "f");
  EXPECT_EQ(root->operand(2)->name(), "p");
  EXPECT_EQ(root->operand(3)->name(), "tb");
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteIntegerAndWithOne) {
  // For integers `and` is bitwise: and(x, 1) keeps only the low bit.
  Simplify(R"(
HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  one = s32[] constant(1)
  ob = s32[4] broadcast(one), dimensions={}
  ROOT r = s32[4] and(p, ob)
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, SelectWithConstantPredicateOrEqualBranches) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  p = pred[3] parameter(0)
  a = f32[3] parameter(1)
  b = f32[3] parameter(2)
  t = pred[] constant(true)
  tb = pred[3] broadcast(t), dimensions={}
  f = pred[3] constant({false, false, false})
  s_true = f32[3] select(tb, a, b)
  s_false = f32[3] select(f, a, b)
  s_same = f32[3] select(p, b, b)
  ROOT r = (f32[3], f32[3], f32[3]) tuple(s_true, s_false, s_same)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->operand(0)->name(), "a");
  EXPECT_EQ(Root(*m)->operand(1)->name(), "b");
  EXPECT_EQ(Root(*m)->operand(2)->name(), "b");
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteSelectWithMixedPredicate) {
  Simplify(R"(
HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = pred[2] constant({true, false})
  ROOT s = f32[2] select(c, a, b)
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, NegateNegateAndNotNot) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  y = s32[3] parameter(1)
  n1 = f32[3] negate(x)
  n2 = f32[3] negate(n1)
  b1 = s32[3] not(y)
  b2 = s32[3] not(b1)
  ROOT r = (f32[3], s32[3]) tuple(n2, b2)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->operand(0)->name(), "x");
  EXPECT_EQ(Root(*m)->operand(1)->name(), "y");
}

TEST(AlgebraicSimplifierTest, BroadcastOfBroadcastComposesDimensions) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  b1 = f32[2,3] broadcast(x), dimensions={1}
  ROOT b2 = f32[4,2,3] broadcast(b1), dimensions={1,2}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  EXPECT_EQ(root->opcode(), Opcode::kBroadcast);
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_THAT(root->ToString(), HasSubstr("= f32[4,2,3] broadcast(%x), dimensions={2}"));
}

TEST(AlgebraicSimplifierTest, BroadcastWithIdentityDimensionsIsItsOperand) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  ROOT b = f32[2,3] broadcast(x), dimensions={0,1}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

TEST(AlgebraicSimplifierTest, ReshapeOfReshapeAndNoOpReshape) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  r1 = f32[3,4] reshape(x)
  r2 = f32[12] reshape(r1)
  y = f32[5] parameter(1)
  same = f32[5] reshape(y)
  ROOT t = (f32[12], f32[5]) tuple(r2, same)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* r = Root(*m)->operand(0);
  EXPECT_EQ(r->opcode(), Opcode::kReshape);
  EXPECT_EQ(r->operand(0)->name(), "x");
  EXPECT_EQ(Root(*m)->operand(1)->name(), "y");
}

TEST(AlgebraicSimplifierTest, ReshapeChainBackToTheOperandIsTheOperand) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,6] parameter(0)
  r1 = f32[12] reshape(x)
  ROOT r2 = f32[2,6] reshape(r1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

TEST(AlgebraicSimplifierTest, DoesNotRemoveAReshapeThatChangesLayout) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[2,3]{0,1} reshape(x)
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kReshape);
}

TEST(AlgebraicSimplifierTest, TransposeOfTransposeComposes) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3,4] parameter(0)
  t1 = f32[3,4,2] transpose(x), dimensions={1,2,0}
  ROOT t2 = f32[4,3,2] transpose(t1), dimensions={1,0,2}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  EXPECT_EQ(root->opcode(), Opcode::kTranspose);
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_THAT(root->ToString(), HasSubstr("transpose(%x), dimensions={2,1,0}"));
}

TEST(AlgebraicSimplifierTest, InverseTransposesAndIdentityTransposeVanish) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  t1 = f32[3,2] transpose(x), dimensions={1,0}
  t2 = f32[2,3] transpose(t1), dimensions={1,0}
  ROOT id = f32[2,3] transpose(t2), dimensions={0,1}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

// A weight gradient as jax writes it: a dot over batch and sequence, then a transpose
// into the weight's order. The swapped dot writes that order itself.
TEST(AlgebraicSimplifierTest, TransposeOfADotIsTheDotWithItsOperandsSwapped) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3,4] parameter(0)
  g = f32[2,3,5] parameter(1)
  d = f32[4,5] dot(x, g), lhs_contracting_dims={0,1}, rhs_contracting_dims={0,1}, operand_precision={high,default}
  ROOT t = f32[5,4] transpose(d), dimensions={1,0}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kDot);
  EXPECT_EQ(root->operand(0)->name(), "g");
  EXPECT_EQ(root->operand(1)->name(), "x");
  EXPECT_THAT(root->ToString(), HasSubstr("operand_precision={default,high}"));
}

TEST(AlgebraicSimplifierTest, TransposeOfABatchedDotSwapsTheFreeDimensionsOnly) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  q = f32[2,3,4,6] parameter(0)
  k = f32[2,3,5,6] parameter(1)
  s = f32[2,3,4,5] dot(q, k), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  ROOT t = f32[2,3,5,4] transpose(s), dimensions={0,1,3,2}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kDot);
  EXPECT_EQ(root->operand(0)->name(), "k");
  EXPECT_THAT(root->shape().ToString(), HasSubstr("f32[2,3,5,4]"));
}

// Attention's second einsum, "bhqk,bkhd->bqhd", as jax lowers it: V^T P^T gives
// [b,h,d,q] and a transpose moves d from the middle to the end. Swapped, P V gives
// [b,h,q,d] and the transpose left, {0,2,1,3}, keeps d minor.
TEST(AlgebraicSimplifierTest, TransposeOfADotMovingItsMinorDimensionKeepsItMinorAfterTheSwap) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  v = f32[2,5,3,4] parameter(0)
  p = f32[2,3,6,5] parameter(1)
  d = f32[2,3,4,6] dot(v, p), lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}
  ROOT t = f32[2,6,3,4] transpose(d), dimensions={0,3,1,2}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kTranspose);
  EXPECT_EQ(root->dimensions(), (std::vector<int64_t>{0, 2, 1, 3}));
  const Instruction* dot = root->operand(0);
  ASSERT_EQ(dot->opcode(), Opcode::kDot);
  EXPECT_EQ(dot->operand(0)->name(), "p");
  EXPECT_THAT(dot->shape().ToString(), HasSubstr("f32[2,3,6,4]"));
}

TEST(AlgebraicSimplifierTest, KeepsTransposesOfDotsThatSwappingCannotWrite) {
  // The dot has a second user (it would be computed twice); the transpose moves a batch
  // dimension; the transpose keeps the dot's minor dimension minor already (swapping
  // would leave a transpose that moves it).
  Simplify(R"(
HloModule m
ENTRY e {
  a = f32[3,4] parameter(0)
  b = f32[4,5] parameter(1)
  d = f32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[5,3] transpose(d), dimensions={1,0}
  ROOT r = (f32[3,5], f32[5,3]) tuple(d, t)
}
)",
           /*expect_changed=*/false);
  Simplify(R"(
HloModule m
ENTRY e {
  q = f32[2,4,6] parameter(0)
  k = f32[2,5,6] parameter(1)
  s = f32[2,4,5] dot(q, k), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  ROOT t = f32[5,4,2] transpose(s), dimensions={2,1,0}
}
)",
           /*expect_changed=*/false);
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3,4] parameter(0)
  w = f32[4,5] parameter(1)
  d = f32[2,3,5] dot(x, w), lhs_contracting_dims={2}, rhs_contracting_dims={0}
  ROOT t = f32[3,2,5] transpose(d), dimensions={1,0,2}
}
)",
           /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, ConvertToTheSameTypeIsItsOperand) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  same = f32[3] convert(x)
  ROOT other = s32[3] convert(same)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kConvert);
  EXPECT_EQ(Root(*m)->operand(0)->name(), "x");
}

TEST(AlgebraicSimplifierTest, WholeSliceIsItsOperand) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  ROOT s = f32[4,3] slice(x), slice={[0:4], [0:3]}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

TEST(AlgebraicSimplifierTest, DoesNotRemoveAPartialSlice) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  ROOT s = f32[2,3] slice(x), slice={[0:4:2], [0:3]}
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, ConcatenateOfOneAndZeroPadAreTheirOperand) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4,3] parameter(0)
  c = f32[4,3] concatenate(x), dimensions={0}
  z = f32[] constant(0)
  ROOT p = f32[4,3] pad(c, z), padding=0_0x0_0
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

TEST(AlgebraicSimplifierTest, DoesNotRemoveARealPad) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[6] pad(x, z), padding=1_1
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, ReduceOverNoDimensionsWithIdentityInit) {
  auto m = Simplify(R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[4] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[4] reduce(x, z), dimensions={}, to_apply=add
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
}

TEST(AlgebraicSimplifierTest, DoesNotRemoveReduceOverNoDimensionsWithOtherInit) {
  Simplify(R"(
HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY e {
  x = s32[4] parameter(0)
  one = s32[] constant(1)
  ROOT r = s32[4] reduce(x, one), dimensions={}, to_apply=add
}
)", /*expect_changed=*/false);
}

// Reducing only dimensions of size 1 adds the identity once per element: a reshape. The
// MNIST step has two (a [128,1] and a [1,10] reduce_sum); each was a kernel of its own.
constexpr char kF32AddModuleHeader[] = "HloModule m\nadd { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }\n";

TEST(AlgebraicSimplifierTest, ReduceOverSizeOneDimensionsBecomesReshape) {
  auto m = Simplify(kF32AddModuleHeader + std::string(R"(
ENTRY e {
  x = f32[1,10,1] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[10] reduce(x, z), dimensions={0,2}, to_apply=add
}
)"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->opcode(), Opcode::kReshape);
  EXPECT_EQ(Root(*m)->operand(0)->name(), "x");
  EXPECT_EQ(Root(*m)->shape().ToString(), "f32[10]");
}

TEST(AlgebraicSimplifierTest, KeepsReduceOverALongDimensionOrWithOtherInit) {
  Simplify(kF32AddModuleHeader + std::string(R"(
ENTRY e {
  x = f32[2,10,1] parameter(0)
  z = f32[] constant(0)
  long = f32[10] reduce(x, z), dimensions={0,2}, to_apply=add
  y = f32[1,10] parameter(1)
  one = f32[] constant(1)
  other = f32[10] reduce(y, one), dimensions={0}, to_apply=add
  ROOT t = (f32[10], f32[10]) tuple(long, other)
}
)"), /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, CopyKeepingLayoutAndCopyOfCopy) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3,4]{2,1,0} parameter(0)
  c1 = f32[2,3,4]{0,1,2} copy(x)
  c2 = f32[2,3,4]{1,0,2} copy(c1)
  y = f32[2]{0} parameter(1)
  same = f32[2]{0} copy(y)
  ROOT t = (f32[2,3,4]{1,0,2}, f32[2]{0}) tuple(c2, same)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* copy = Root(*m)->operand(0);
  EXPECT_EQ(copy->opcode(), Opcode::kCopy);
  EXPECT_EQ(copy->operand(0)->name(), "x");
  EXPECT_EQ(copy->shape().ToString(), "f32[2,3,4]{1,0,2}");
  EXPECT_EQ(Root(*m)->operand(1)->name(), "y");
}

TEST(AlgebraicSimplifierTest, DoesNotRemoveACopyThatChangesLayout) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT c = f32[2,3]{0,1} copy(x)
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, DynamicSliceWithConstantStartsBecomesClampedSlice) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4,5] parameter(0)
  i = s32[] constant(1)
  j = s32[] constant(7)
  ROOT d = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  EXPECT_EQ(root->opcode(), Opcode::kSlice);
  // Start 7 is clamped to 5 - 3 = 2, as XLA clamps dynamic-slice starts.
  EXPECT_THAT(root->ToString(), HasSubstr("slice(%x), slice={[1:3], [2:5]}"));
}

TEST(AlgebraicSimplifierTest, DynamicSliceClampsNegativeAndUnsignedStarts) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4,5] parameter(0)
  i = s32[] constant(-3)
  j = u32[] constant(4000000000)
  ROOT d = f32[2,2] dynamic-slice(x, i, j), dynamic_slice_sizes={2,2}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_THAT(Root(*m)->ToString(), HasSubstr("slice={[0:2], [3:5]}"));
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteDynamicSliceWithParameterStarts) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(x, i), dynamic_slice_sizes={2}
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, PowerOfTwoIsASquare) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  two = f32[] constant(2)
  tb = f32[3] broadcast(two), dimensions={}
  ROOT p = f32[3] power(x, tb)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  EXPECT_EQ(root->opcode(), Opcode::kMultiply);
  EXPECT_EQ(root->operand(0)->name(), "x");
  EXPECT_EQ(root->operand(1)->name(), "x");
}

TEST(AlgebraicSimplifierTest, DoesNotRewritePowerOfThree) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  c = f32[3] constant({3, 3, 3})
  ROOT p = f32[3] power(x, c)
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, DivideByPowerOfTwoMultipliesByReciprocal) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  four = f32[] constant(4)
  fb = f32[3] broadcast(four), dimensions={}
  d1 = f32[3] divide(x, fb)
  h = f32[3] constant({-0.5, -0.5, -0.5})
  ROOT d2 = f32[3] divide(d1, h)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kMultiply);
  EXPECT_THAT(root->operand(1)->ToString(), HasSubstr("constant({-2, -2, -2})"));
  const Instruction* inner = root->operand(0);
  ASSERT_EQ(inner->opcode(), Opcode::kMultiply);
  EXPECT_EQ(inner->operand(0)->name(), "x");
  ASSERT_EQ(inner->operand(1)->opcode(), Opcode::kBroadcast);
  EXPECT_THAT(inner->operand(1)->operand(0)->ToString(), HasSubstr("constant(0.25)"));
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteDivisionByNonPowersOfTwoOrIntegers) {
  Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  three = f32[3] constant({3, 3, 3})
  a = f32[3] divide(x, three)
  y = s32[3] parameter(1)
  two = s32[3] constant({2, 2, 2})
  b = s32[3] divide(y, two)
  z = f16[3] parameter(2)
  tiny = f16[3] constant({1.52587890625e-05, 1.52587890625e-05, 1.52587890625e-05})
  c = f16[3] divide(z, tiny)
  ROOT t = (f32[3], s32[3], f16[3]) tuple(a, b, c)
}
)", /*expect_changed=*/false);
}

TEST(AlgebraicSimplifierTest, FoldsScalarConstantArithmetic) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  a = f32[] constant(1.5)
  b = f32[] constant(2)
  s = f32[] add(a, b)
  c = f32[] constant(3)
  ROOT m = f32[] multiply(s, c)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kConstant);
  EXPECT_DOUBLE_EQ(root->literal()->GetDouble(0), 10.5);
}

TEST(AlgebraicSimplifierTest, FoldedScalarKeepsMetadataAndUniqueName) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  constant = s32[] constant(2)
  b = s32[] constant(5)
  ROOT s = s32[] subtract(constant, b), metadata={op_type="Sub" op_name="jit(f)/sub"}
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* root = Root(*m);
  ASSERT_EQ(root->opcode(), Opcode::kConstant);
  EXPECT_EQ(root->literal()->GetInt64(0), -3);
  EXPECT_NE(root->name(), "constant");
  ASSERT_NE(root->metadata(), nullptr);
  EXPECT_EQ(root->metadata()->op_name, "jit(f)/sub");
}

TEST(AlgebraicSimplifierTest, ReachesAFixedPointThroughChains) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  n1 = f32[2,3] negate(x)
  n2 = f32[2,3] negate(n1)
  t1 = f32[3,2] transpose(n2), dimensions={1,0}
  t2 = f32[2,3] transpose(t1), dimensions={1,0}
  one = f32[] constant(1)
  zero = f32[] constant(0)
  k = f32[] multiply(one, zero)
  kb = f32[2,3] broadcast(k), dimensions={}
  ROOT a = f32[2,3] add(t2, kb)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Root(*m)->name(), "x");
  // A second run finds nothing left to do.
  PassContext context;
  StatusOr<bool> again = AlgebraicSimplifier().Run(*m, context);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(AlgebraicSimplifierTest, SimplifiesCalledComputationsButNotFusedOnes) {
  auto m = Simplify(R"(
HloModule m
body {
  p = f32[2] parameter(0)
  z = f32[2] constant({0, 0})
  ROOT a = f32[2] add(p, z)
}
fused {
  q = f32[2] parameter(0)
  n1 = f32[2] negate(q)
  ROOT n2 = f32[2] negate(n1)
}
ENTRY e {
  x = f32[2] parameter(0)
  c = f32[2] call(x), to_apply=body
  ROOT f = f32[2] fusion(c), kind=kLoop, calls=fused
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->FindComputation("body")->root()->opcode(), Opcode::kParameter);
  EXPECT_EQ(m->FindComputation("fused")->root()->opcode(), Opcode::kNegate);
}

TEST(AlgebraicSimplifierTest, LeavesDeadCodeAloneWithoutLooping) {
  auto m = Simplify(R"(
HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  b1 = f32[2,3] broadcast(x), dimensions={1}
  dead = f32[4,2,3] broadcast(b1), dimensions={1,2}
  dead2 = f32[3] reshape(x)
  ROOT n = f32[3] negate(x)
}
)", /*expect_changed=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->entry()->FindInstruction("dead"), nullptr);
}

TEST(AlgebraicSimplifierTest, DoesNotFoldElidedConstants) {
  StatusOr<std::unique_ptr<Module>> parsed = ParseModule(R"(
HloModule m
ENTRY e {
  a = f32[] constant({...})
  b = f32[] constant(0)
  ROOT s = f32[] add(a, b)
}
)");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  PassContext context;
  StatusOr<bool> changed = AlgebraicSimplifier().Run(**parsed, context);
  ASSERT_TRUE(changed.ok());
  // x + 0 still applies; folding would need a's value.
  EXPECT_TRUE(*changed);
  EXPECT_EQ((*parsed)->entry()->root()->name(), "a");
}

// Every example module, and XLA's own optimized output for it, computes the same values
// after the pass. One test per file, so they run in parallel under ctest.
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

class AlgebraicSimplifierExampleTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AlgebraicSimplifierExampleTest, KeepsItsValues) {
  StatusOr<ParseResult> parsed = ParseFile((fs::path(FUSEBOX_SOURCE_DIR) / GetParam()).string());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Module& module = *parsed->modules[0];
  if (TooBigForThisBuild(module)) GTEST_SKIP() << "too big for a sanitizer build";
  std::unique_ptr<Module> probe = module.Clone();
  ASSERT_NE(probe, nullptr);
  PassContext context;
  StatusOr<bool> changed = AlgebraicSimplifier().Run(*probe, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  SimplifyAndCheck(module, /*expect_changed=*/*changed);
}

INSTANTIATE_TEST_SUITE_P(Examples, AlgebraicSimplifierExampleTest,
                         ::testing::ValuesIn(ExampleFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name;
                           for (char c : param_info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

}  // namespace
}  // namespace fusebox::passes
