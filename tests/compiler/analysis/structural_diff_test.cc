// Tests of the structural diff: a renamed or reordered copy has no changes; one added
// fusion is one change; a changed constant, comparison direction, operand order or reduce
// computation is one change where it happened; commutative operands may swap; two real
// per-pass dumps of XLA differ by the fusions the fusion pass made.
#include "compiler/analysis/structural_diff.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/parser/parser.h"

namespace fusebox::analysis {
namespace {

// A small program with the things the matcher must see through: a broadcast constant,
// a commutative and a non-commutative op, a comparison, a reduce with its computation.
constexpr char kBase[] = R"(
HloModule m

max_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  c = f32[] constant(2)
  b = f32[8] broadcast(c), dimensions={}
  add = f32[8] add(p0, p1)
  mul = f32[8] multiply(add, b)
  sub = f32[8] subtract(mul, p1)
  cmp = pred[8] compare(sub, p0), direction=LT
  sel = f32[8] select(cmp, sub, p0)
  init = f32[] constant(0)
  red = f32[] reduce(sel, init), dimensions={0}, to_apply=max_f32
  ROOT t = (f32[8], f32[]) tuple(sel, red)
}
)";

std::unique_ptr<Module> Parse(const std::string& text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(*module) : nullptr;
}

// `text` with `from` replaced by `to` (once).
std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Two modules and their diff, which points into them.
struct Compared {
  std::unique_ptr<Module> a;
  std::unique_ptr<Module> b;
  ModuleDiff diff;
  std::string Text() const { return DiffToText(diff, "a", "b"); }
};

Compared Compare(std::unique_ptr<Module> a, std::unique_ptr<Module> b) {
  Compared c{std::move(a), std::move(b), {}};
  c.diff = DiffModules(*c.a, *c.b);
  return c;
}

Compared Compare(const std::string& a, const std::string& b) { return Compare(Parse(a), Parse(b)); }

// kBase against kBase with `from` replaced by `to`.
Compared CompareEdit(const std::string& from, const std::string& to) {
  return Compare(kBase, Replaced(kBase, from, to));
}

// A copy of `module` with every instruction and computation renamed, printed and parsed
// again.
std::unique_ptr<Module> RenamedCopy(const Module& module) {
  std::unique_ptr<Module> copy = Parse(module.ToString());
  int next = 0;
  for (const auto& computation : copy->computations()) {
    computation->set_name("renamed_computation_" + std::to_string(next++));
    for (const auto& inst : computation->instructions())
      inst->set_name("v" + std::to_string(next++));
  }
  return Parse(copy->ToString());
}

// The one change of the diff, of `kind`; null (and the test fails) otherwise.
const InstructionChange* OnlyChange(const Compared& c, ChangeKind kind) {
  EXPECT_EQ(c.diff.changes(), 1) << c.Text();
  for (const ComputationDiff& section : c.diff.computations) {
    if (section.changes.empty()) continue;
    EXPECT_EQ(section.changes.front().kind, kind) << c.Text();
    return section.changes.front().kind == kind ? &section.changes.front() : nullptr;
  }
  return nullptr;
}

bool HasDetail(const InstructionChange& change, const std::string& text) {
  for (const std::string& d : change.details) {
    if (d.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(StructuralDiffTest, RenamedCopyHasNoChangesAndEveryInstructionIsIdentical) {
  auto a = Parse(kBase);
  auto b = RenamedCopy(*a);
  ASSERT_NE(b->entry()->root()->name(), a->entry()->root()->name());
  const int64_t count = a->entry()->instruction_count();
  Compared c = Compare(std::move(a), std::move(b));
  EXPECT_EQ(c.diff.changes(), 0) << c.Text();
  ASSERT_EQ(c.diff.computations.size(), 1u);  // the reduce computations are equal: no section
  EXPECT_EQ(c.diff.computations[0].matched, count);
  EXPECT_EQ(c.diff.computations[0].identical, count);
}

TEST(StructuralDiffTest, ReorderedCopyWithOtherNamesAndMetadataHasNoChanges) {
  Compared c = Compare(kBase, R"(
HloModule other
maximum_computation {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT out = f32[] maximum(lhs, rhs)
}
ENTRY e {
  y = f32[8] parameter(1)
  x = f32[8] parameter(0)
  zero = f32[] constant(0)
  two = f32[] constant(2), metadata={op_name="jit(f)/two"}
  sum = f32[8] add(x, y), metadata={op_name="jit(f)/add" source_file="f.py" source_line=3}
  two8 = f32[8] broadcast(two), dimensions={}
  prod = f32[8] multiply(sum, two8)
  diff = f32[8] subtract(prod, y)
  lt = pred[8] compare(diff, x), direction=LT
  pick = f32[8] select(lt, diff, x)
  top = f32[] reduce(pick, zero), dimensions={0}, to_apply=maximum_computation
  ROOT out = (f32[8], f32[]) tuple(pick, top)
}
)");
  EXPECT_EQ(c.diff.changes(), 0) << c.Text();
}

// kBase after a fusion pass put broadcast, add and multiply into one loop fusion, the
// constant duplicated into it as XLA does.
constexpr char kFused[] = R"(
HloModule m
max_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}
fused_computation {
  param_0 = f32[8] parameter(0)
  param_1 = f32[8] parameter(1)
  c.1 = f32[] constant(2)
  b.1 = f32[8] broadcast(c.1), dimensions={}
  add.1 = f32[8] add(param_0, param_1)
  ROOT mul.1 = f32[8] multiply(add.1, b.1)
}
ENTRY main {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  fusion = f32[8] fusion(p0, p1), kind=kLoop, calls=fused_computation
  sub = f32[8] subtract(fusion, p1)
  cmp = pred[8] compare(sub, p0), direction=LT
  sel = f32[8] select(cmp, sub, p0)
  init = f32[] constant(0)
  red = f32[] reduce(sel, init), dimensions={0}, to_apply=max_f32
  ROOT t = (f32[8], f32[]) tuple(sel, red)
}
)";

TEST(StructuralDiffTest, AddedFusionIsTheOnlyChangeAndItsOpsMovedIntoIt) {
  Compared c = Compare(kBase, kFused);
  const InstructionChange* change = OnlyChange(c, ChangeKind::kAdded);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->b->name(), "fusion");
  EXPECT_TRUE(HasDetail(*change, "fuses %c, %b, %add, %mul of a")) << c.Text();
  EXPECT_EQ(c.diff.computations[0].moved_into_fusion, 4);
}

TEST(StructuralDiffTest, FusionTakenApartIsOneRemovedFusion) {
  Compared c = Compare(kFused, kBase);
  const InstructionChange* change = OnlyChange(c, ChangeKind::kRemoved);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->a->name(), "fusion");
  EXPECT_EQ(c.diff.computations[0].moved_out_of_fusion, 4);
}

TEST(StructuralDiffTest, FusionThatFusesOneMoreOpIsOneChangedFusion) {
  std::string b = Replaced(kFused, "  ROOT mul.1 = f32[8] multiply(add.1, b.1)",
                           "  mul.1 = f32[8] multiply(add.1, b.1)\n"
                           "  ROOT sub.1 = f32[8] subtract(mul.1, param_1)");
  b = Replaced(b, "  sub = f32[8] subtract(fusion, p1)\n", "");
  b = Replaced(b, "compare(sub, p0)", "compare(fusion, p0)");
  b = Replaced(b, "select(cmp, sub, p0)", "select(cmp, fusion, p0)");
  Compared c = Compare(kFused, b);
  const InstructionChange* change = OnlyChange(c, ChangeKind::kChanged);
  ASSERT_NE(change, nullptr);
  EXPECT_TRUE(HasDetail(*change, "now also fuses %sub.1")) << c.Text();
}

// kBase with `from` replaced by `to` has exactly one change: instruction `name` changed,
// with each of `details`.
void ExpectOneChanged(const std::string& from, const std::string& to, const std::string& name,
                      const std::vector<std::string>& details) {
  Compared c = CompareEdit(from, to);
  const InstructionChange* change = OnlyChange(c, ChangeKind::kChanged);
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->b->name(), name);
  for (const std::string& detail : details) EXPECT_TRUE(HasDetail(*change, detail)) << c.Text();
}

TEST(StructuralDiffTest, ChangedConstantIsOneChange) {
  ExpectOneChanged("c = f32[] constant(2)", "c = f32[] constant(3)", "c", {"value: 2 -> 3"});
}

TEST(StructuralDiffTest, ChangedComparisonDirectionIsOneChange) {
  ExpectOneChanged("direction=LT", "direction=GT", "cmp", {"direction: LT -> GT"});
}

TEST(StructuralDiffTest, SwappedOperandsOfSubtractAreOneChange) {
  ExpectOneChanged("subtract(mul, p1)", "subtract(p1, mul)", "sub",
                   {"operand 0: %mul -> %p1", "operand 1: %p1 -> %mul"});
}

// Decided: add, multiply, maximum, minimum, and, or and xor compute the same with their
// operands swapped, so a swap is no change; the instructions have equal fingerprints, not
// only a match through their operands.
TEST(StructuralDiffTest, SwappedOperandsOfCommutativeOpsAreNoChange) {
  for (const auto& [from, to] : {std::pair{"add(p0, p1)", "add(p1, p0)"},
                                 std::pair{"multiply(add, b)", "multiply(b, add)"}}) {
    Compared c = CompareEdit(from, to);
    EXPECT_EQ(c.diff.changes(), 0) << c.Text();
    EXPECT_EQ(c.diff.computations[0].identical, c.a->entry()->instruction_count()) << from;
  }
}

TEST(StructuralDiffTest, ChangedReduceComputationIsOneChangeInItsOwnSection) {
  Compared c = CompareEdit("maximum(x, y)", "minimum(x, y)");
  const InstructionChange* change = OnlyChange(c, ChangeKind::kChanged);
  ASSERT_NE(change, nullptr);
  EXPECT_TRUE(HasDetail(*change, "opcode: maximum -> minimum"));
  ASSERT_EQ(c.diff.computations.size(), 2u);
  EXPECT_TRUE(c.diff.computations[0].changes.empty());  // the reduce itself is no change
  EXPECT_EQ(c.diff.computations[1].called_by, "%red / %red");
}

TEST(StructuralDiffTest, InsertedOpIsAddedAndItsUserChangesOperand) {
  Compared c =
      CompareEdit("  cmp = pred[8] compare(sub, p0), direction=LT",
                  "  neg = f32[8] negate(sub)\n  cmp = pred[8] compare(neg, p0), direction=LT");
  EXPECT_EQ(c.diff.Count(ChangeKind::kAdded), 1) << c.Text();
  EXPECT_EQ(c.diff.Count(ChangeKind::kChanged), 1);
  EXPECT_EQ(c.diff.Count(ChangeKind::kRemoved), 0);
}

// The root's opcode and a constant deep below it changed: no path of equal opcodes leads
// from the root to the constant, so the matcher goes up from the parameters (through
// operands matched in part) and down again from what it matched there.
TEST(StructuralDiffTest, ChangesBehindAChangedRootAreFoundThroughOperands) {
  constexpr char kA[] = R"(
HloModule m
ENTRY e {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  c = f32[] constant(2)
  b = f32[8] broadcast(c), dimensions={}
  m1 = f32[8] multiply(p0, b)
  m2 = f32[8] multiply(p0, p1)
  s = f32[8] subtract(m1, m2)
  ROOT r = f32[8] exponential(s)
}
)";
  Compared c =
      Compare(kA, Replaced(Replaced(kA, "constant(2)", "constant(3)"), "exponential(s)", "log(s)"));
  EXPECT_EQ(c.diff.changes(), 2) << c.Text();
  EXPECT_EQ(c.diff.Count(ChangeKind::kChanged), 2) << c.Text();
}

constexpr char kTwoBroadcasts[] = R"(
HloModule m
ENTRY e {
  c = f32[] constant(2)
  b1 = f32[8] broadcast(c), dimensions={}
  b2 = f32[8] broadcast(c), dimensions={}
  ROOT m = f32[8] multiply(b1, b2)
}
)";
constexpr char kOneBroadcast[] = R"(
HloModule m
ENTRY e {
  c = f32[] constant(3)
  b = f32[8] broadcast(c), dimensions={}
  ROOT m = f32[8] multiply(b, b)
}
)";

// The change of `kind` other than the changed constant, which must be the only other one.
const InstructionChange* CopyChange(const Compared& c, ChangeKind kind) {
  EXPECT_EQ(c.diff.changes(), 2) << c.Text();
  EXPECT_EQ(c.diff.Count(ChangeKind::kChanged), 1) << c.Text();
  for (const InstructionChange& change : c.diff.computations[0].changes) {
    if (change.kind == kind) return &change;
  }
  return nullptr;
}

// CSE merged two equal broadcasts of a constant that changed as well: one changed
// constant, one removed (merged) broadcast, and the multiply reading both is unchanged.
TEST(StructuralDiffTest, MergedCopyOverAChangedOperandIsOneRemoval) {
  Compared c = Compare(kTwoBroadcasts, kOneBroadcast);
  const InstructionChange* removed = CopyChange(c, ChangeKind::kRemoved);
  ASSERT_NE(removed, nullptr);
  EXPECT_TRUE(HasDetail(*removed, "merged: the same as %b of b")) << c.Text();
}

// The other way round: the broadcast copied is one added copy.
TEST(StructuralDiffTest, CopyOverAChangedOperandIsOneAddition) {
  Compared c = Compare(kOneBroadcast, kTwoBroadcasts);
  const InstructionChange* added = CopyChange(c, ChangeKind::kAdded);
  ASSERT_NE(added, nullptr);
  EXPECT_TRUE(HasDetail(*added, "a copy of %b of a")) << c.Text();
}

TEST(StructuralDiffTest, ChangedShapeIsOneChangeAndADefaultLayoutWrittenOutIsNone) {
  EXPECT_EQ(CompareEdit("p1 = f32[8] parameter(1)", "p1 = f32[8]{0} parameter(1)").diff.changes(),
            0);
  ExpectOneChanged("init = f32[] constant(0)", "init = f16[] constant(0)", "init",
                   {"shape: f32[] -> f16[]"});
}

TEST(StructuralDiffTest, TextAndJsonListCountsAndBothSides) {
  Compared c = CompareEdit("direction=LT", "direction=GT");
  SetCosts(&c.diff, EstimatedBytes, EstimatedBytes, "estimated bytes", "bytes");
  std::string text = DiffToText(c.diff, "a.hlo", "b.hlo");
  EXPECT_NE(text.find("1 change(s): 0 added, 0 removed, 1 changed"), std::string::npos) << text;
  EXPECT_NE(text.find("~ changed       72 B  a: %cmp = pred[8] compare(%sub, %p0), direction=LT"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("\n                        b: %cmp = pred[8] compare(%sub, %p0), direction=GT"),
      std::string::npos)
      << text;
  std::string json = DiffToJson(c.diff, "a.hlo", "b.hlo");
  EXPECT_NE(json.find("\"changed\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"changed\""), std::string::npos) << json;
}

TEST(StructuralDiffTest, CostsSortChangesLargestFirst) {
  Compared c =
      CompareEdit("  cmp = pred[8] compare(sub, p0), direction=LT",
                  "  neg = f32[8] negate(sub)\n  cmp = pred[8] compare(neg, p0), direction=LT");
  auto time_us = [](const std::string& name) -> std::optional<double> {
    if (name == "neg") return 1.0;
    if (name == "cmp") return 5.0;
    return std::nullopt;
  };
  SetCosts(&c.diff, KernelTimeCost(time_us), KernelTimeCost(time_us), "measured kernel time", "us");
  ASSERT_EQ(c.diff.computations[0].changes.size(), 2u);
  EXPECT_EQ(c.diff.computations[0].changes[0].b->name(), "cmp");
  EXPECT_EQ(c.diff.computations[0].changes[1].b->name(), "neg");
}

// An instruction inside a fusion has no kernel of its own: it takes its fusion's time.
TEST(StructuralDiffTest, KernelTimeOfAFusedInstructionIsItsFusions) {
  auto module = Parse(kFused);
  CostFunction cost = KernelTimeCost([](const std::string& name) -> std::optional<double> {
    return name == "fusion" ? std::optional<double>(7.0) : std::nullopt;
  });
  const Instruction* fused_add =
      module->FindComputation("fused_computation")->FindInstruction("add.1");
  ASSERT_NE(fused_add, nullptr);
  EXPECT_EQ(cost(*fused_add), 7.0);
  EXPECT_EQ(cost(*module->entry()->FindInstruction("sub")), std::nullopt);
}

}  // namespace
}  // namespace fusebox::analysis
