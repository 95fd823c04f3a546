// Buffer assignment: temp reuse, forwarding through tuples and aliases, outputs, parameter
// leaves, input_output_alias, in-place operands, liveness totals, the text form, schedule
// errors, and no two live values sharing bytes on MNIST after fusion and the XLA corpus.
#include "compiler/backend/buffer_assignment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing_util::Parse;

const Instruction& Find(const Module& m, const std::string& name) {
  const Instruction* inst = m.entry()->FindInstruction(name);
  EXPECT_NE(inst, nullptr) << name;
  return *inst;
}

std::vector<const Instruction*> PostOrder(const Computation& comp) {
  std::vector<Instruction*> order = comp.PostOrder();
  return {order.begin(), order.end()};
}

backend::BufferAssignment Assign(const Module& m, const backend::BufferAssignmentOptions& options = {}) {
  StatusOr<backend::BufferAssignment> ba = backend::AssignBuffers(*m.entry(), PostOrder(*m.entry()), options);
  EXPECT_TRUE(ba.ok()) << ba.status().message();
  return ba.ok() ? std::move(ba).value() : backend::BufferAssignment();
}

backend::BufferSlice Slice(const backend::BufferAssignment& ba, const Module& m, const std::string& name,
                  const std::vector<int64_t>& index = {}) {
  StatusOr<backend::BufferSlice> slice = ba.GetSlice(Find(m, name), index);
  EXPECT_TRUE(slice.ok()) << slice.status().message();
  return slice.ok() ? *slice : backend::BufferSlice{};
}

const backend::Allocation& AllocationOf(const backend::BufferAssignment& ba, const Module& m,
                               const std::string& name, const std::vector<int64_t>& index = {}) {
  return ba.allocations()[Slice(ba, m, name, index).allocation];
}

int64_t CountKind(const backend::BufferAssignment& ba, backend::Allocation::Kind kind) {
  return std::count_if(ba.allocations().begin(), ba.allocations().end(),
                       [&](const backend::Allocation& a) { return a.kind == kind; });
}

// Code generation that writes elementwise results and dynamic-update-slice in place.
bool ElementwiseOrDusInPlace(const Instruction& inst, int64_t operand) {
  if (inst.opcode() == Opcode::kDynamicUpdateSlice) return operand == 0;
  return IsElementwise(inst.opcode()) && inst.operand(operand)->shape().IsArray() &&
         inst.operand(operand)->shape().SameDimensions(inst.shape());
}

// Checks an assignment against liveness recomputed here, independently of the one it
// carries: every read of a value is within its live range, slices fit their allocations,
// outputs are alone in theirs, and two values whose bytes overlap are never live at once
// (except a value written in place over an operand that dies where it is defined, when
// `in_place` allows that).
void ExpectConsistent(const Computation& comp, const std::vector<const Instruction*>& schedule,
                      const backend::BufferAssignment& ba, bool in_place) {
  const auto& values = ba.values();
  const int64_t steps = static_cast<int64_t>(schedule.size());
  std::vector<int64_t> first(values.size(), INT64_MAX), last(values.size(), -2);
  for (size_t v = 0; v < values.size(); ++v) {
    first[v] = values[v].instruction->opcode() == Opcode::kParameter ? -1 : steps;
  }
  for (int64_t s = 0; s < steps; ++s) {
    const Instruction* inst = schedule[s];
    ForEachSubshape(inst->shape(), [&](const Shape& sub, const std::vector<int64_t>& index) {
      if (!sub.IsArray()) return;
      int64_t v = ba.GetValueId(*inst, index);
      ASSERT_GE(v, 0) << inst->name() << " has no value at an array index";
      first[v] = std::min(first[v], s);
      if (inst->opcode() == Opcode::kParameter) first[v] = -1;
    });
    if (inst->opcode() == Opcode::kTuple || inst->opcode() == Opcode::kGetTupleElement ||
        inst->opcode() == Opcode::kBitcast) {
      continue;
    }
    for (const Instruction* op : inst->operands()) {
      ForEachSubshape(op->shape(), [&](const Shape& sub, const std::vector<int64_t>& index) {
        if (!sub.IsArray()) return;
        int64_t v = ba.GetValueId(*op, index);
        ASSERT_GE(v, 0);
        last[v] = std::max(last[v], s);
      });
    }
  }
  ForEachSubshape(comp.root()->shape(), [&](const Shape& sub, const std::vector<int64_t>& index) {
    if (sub.IsArray()) last[ba.GetValueId(*comp.root(), index)] = steps;
  });
  for (size_t v = 0; v < values.size(); ++v) {
    EXPECT_EQ(values[v].defined_at, first[v]) << values[v].instruction->name();
    EXPECT_EQ(values[v].last_use, std::max(last[v], first[v])) << values[v].instruction->name();
    const backend::BufferSlice& slice = ba.value_slice(v);
    ASSERT_GE(slice.allocation, 0);
    EXPECT_LE(slice.offset + slice.size, ba.allocations()[slice.allocation].size);
  }
  for (const backend::Allocation& a : ba.allocations()) {
    if (a.kind == backend::Allocation::Kind::kConstant) {
      EXPECT_EQ(a.values.size(), 1u) << "allocation " << a.index;
    }
    if (a.kind == backend::Allocation::Kind::kOutput) {
      // An output holds one live-out value; before it, only temps the output took over in
      // place (their lifetimes end where the output is defined).
      int64_t live_out = 0;
      for (const auto& [v, offset] : a.values) live_out += values[v].live_out ? 1 : 0;
      EXPECT_EQ(live_out, 1) << "allocation " << a.index;
      EXPECT_TRUE(values[a.values.back().first].live_out) << "allocation " << a.index;
    }
    for (size_t i = 0; i < a.values.size(); ++i) {
      for (size_t j = i + 1; j < a.values.size(); ++j) {
        int64_t x = a.values[i].first, y = a.values[j].first;
        const backend::BufferSlice& sx = ba.value_slice(x);
        const backend::BufferSlice& sy = ba.value_slice(y);
        bool bytes_overlap = sx.size > 0 && sy.size > 0 && sx.offset < sy.offset + sy.size &&
                             sy.offset < sx.offset + sx.size;
        int64_t lx = std::max(last[x], first[x]), ly = std::max(last[y], first[y]);
        bool live_overlap = !(lx < first[y] || ly < first[x]);
        if (!bytes_overlap || !live_overlap) continue;
        // Allowed only for a value defined where the other (its operand) dies.
        int64_t earlier = first[x] <= first[y] ? x : y, later = earlier == x ? y : x;
        bool touching = std::max(last[earlier], first[earlier]) == first[later];
        const auto& ops = values[later].instruction->operands();
        bool reads = std::any_of(ops.begin(), ops.end(), [&](const Instruction* op) {
          return ba.GetValueId(*op) == earlier;
        });
        EXPECT_TRUE(in_place && touching && reads)
            << "allocation " << a.index << ": " << values[x].instruction->name() << " ["
            << first[x] << "," << lx << "] and " << values[y].instruction->name() << " ["
            << first[y] << "," << ly << "] are live together";
      }
    }
  }
}

TEST(BufferAssignmentTest, ChainReusesTemps) {
  auto m = Parse(R"(
HloModule chain
ENTRY %main (p: f32[16]) -> f32[16] {
  %p = f32[16]{0} parameter(0)
  %a = f32[16]{0} negate(%p)
  %b = f32[16]{0} exponential(%a)
  %c = f32[16]{0} negate(%b)
  ROOT %d = f32[16]{0} exponential(%c)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(CountKind(ba, backend::Allocation::Kind::kTemp), 2);
  EXPECT_EQ(ba.temp_bytes(), 128);
  EXPECT_EQ(Slice(ba, *m, "a"), Slice(ba, *m, "c"));  // a is dead when c is defined
  EXPECT_NE(Slice(ba, *m, "a").allocation, Slice(ba, *m, "b").allocation);
  EXPECT_EQ(AllocationOf(ba, *m, "d").kind, backend::Allocation::Kind::kOutput);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);

  // Written in place, the chain needs one buffer: the output d takes over a = b = c.
  backend::BufferAssignmentOptions in_place;
  in_place.may_share_operand = ElementwiseOrDusInPlace;
  backend::BufferAssignment shared = Assign(*m, in_place);
  EXPECT_EQ(CountKind(shared, backend::Allocation::Kind::kTemp), 0);
  EXPECT_EQ(CountKind(shared, backend::Allocation::Kind::kOutput), 1);
  EXPECT_EQ(Slice(shared, *m, "a"), Slice(shared, *m, "b"));
  EXPECT_EQ(Slice(shared, *m, "b"), Slice(shared, *m, "c"));
  EXPECT_EQ(Slice(shared, *m, "c"), Slice(shared, *m, "d"));
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), shared, true);
}

TEST(BufferAssignmentTest, BestFitAndGrowth) {
  // a (64) dies before c (32) and d (128) are defined; c takes a's allocation (the only
  // one large enough is the best fit), d needs a new one as nothing free is left.
  auto m = Parse(R"(
HloModule fit
ENTRY %main (p: f32[16]) -> (f32[8], f32[32]) {
  %p = f32[16]{0} parameter(0)
  %a = f32[16]{0} negate(%p)
  %b = f32[16]{0} exponential(%a)
  %c = f32[8]{0} slice(%b), slice={[0:8]}
  %e = f32[8]{0} negate(%c)
  %d = f32[32]{0} concatenate(%b, %b)
  ROOT %t = (f32[8]{0}, f32[32]{0}) tuple(%e, %d)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(Slice(ba, *m, "c").allocation, Slice(ba, *m, "a").allocation);
  EXPECT_EQ(AllocationOf(ba, *m, "a").size, 64);
  EXPECT_EQ(Slice(ba, *m, "c").size, 32);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);

  // A dead temp smaller than the new value is grown rather than a new one made.
  auto g = Parse(R"(
HloModule grow
ENTRY %main (p: f32[4]) -> f32[8] {
  %p = f32[4]{0} parameter(0)
  %a = f32[4]{0} negate(%p)
  %b = f32[4]{0} exponential(%a)
  %c = f32[8]{0} concatenate(%b, %b)
  ROOT %d = f32[8]{0} negate(%c)
}
)");
  ASSERT_NE(g, nullptr);
  backend::BufferAssignment grown = Assign(*g);
  EXPECT_EQ(Slice(grown, *g, "c").allocation, Slice(grown, *g, "a").allocation);
  EXPECT_EQ(AllocationOf(grown, *g, "a").size, 32);
  EXPECT_EQ(CountKind(grown, backend::Allocation::Kind::kTemp), 2);
  ExpectConsistent(*g->entry(), PostOrder(*g->entry()), grown, false);
}

TEST(BufferAssignmentTest, TupleAndGetTupleElementForwardBuffers) {
  auto m = Parse(R"(
HloModule tuples
ENTRY %main (p: f32[4], q: s32[3]) -> (f32[4], s32[3]) {
  %p = f32[4]{0} parameter(0)
  %q = s32[3]{0} parameter(1)
  %a = f32[4]{0} negate(%p)
  %b = s32[3]{0} negate(%q)
  %t = (f32[4]{0}, s32[3]{0}) tuple(%a, %b)
  %g1 = s32[3]{0} get-tuple-element(%t), index=1
  %g0 = f32[4]{0} get-tuple-element(%t), index=0
  %n = s32[3]{0} negate(%g1)
  ROOT %r = (f32[4]{0}, s32[3]{0}) tuple(%g0, %n)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(ba.values().size(), 5u);  // p, q, a, b, n
  EXPECT_EQ(Slice(ba, *m, "t", {0}), Slice(ba, *m, "a"));
  EXPECT_EQ(Slice(ba, *m, "t", {1}), Slice(ba, *m, "b"));
  EXPECT_EQ(Slice(ba, *m, "g1"), Slice(ba, *m, "b"));
  EXPECT_EQ(Slice(ba, *m, "r", {0}), Slice(ba, *m, "a"));
  EXPECT_EQ(Slice(ba, *m, "r", {1}), Slice(ba, *m, "n"));
  // A tuple has no buffer of its own, and nothing lies past the shape.
  StatusOr<backend::BufferSlice> whole = ba.GetSlice(Find(*m, "t"));
  ASSERT_FALSE(whole.ok());
  EXPECT_THAT(whole.status().message(), HasSubstr("no array buffer at index {}"));
  EXPECT_FALSE(ba.GetSlice(Find(*m, "t"), {2}).ok());
  EXPECT_FALSE(ba.GetSlice(Find(*m, "n"), {0}).ok());
  // b is read through the tuple and gte by n; a lives out through the root.
  const backend::LogicalValue& b = ba.values()[ba.GetValueId(Find(*m, "b"))];
  EXPECT_EQ(b.last_use, ba.values()[ba.GetValueId(Find(*m, "n"))].defined_at);
  EXPECT_EQ(AllocationOf(ba, *m, "a").kind, backend::Allocation::Kind::kOutput);
  EXPECT_EQ(AllocationOf(ba, *m, "b").kind, backend::Allocation::Kind::kTemp);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);
}

TEST(BufferAssignmentTest, BitcastAndCustomAliases) {
  auto m = Parse(R"(
HloModule aliases
ENTRY %main (p: f32[4,4]) -> f32[16] {
  %p = f32[4,4]{1,0} parameter(0)
  %a = f32[4,4]{1,0} negate(%p)
  %bc = f32[16]{0} bitcast(%a)
  %rs = f32[2,8]{1,0} reshape(%bc)
  %e = f32[2,8]{1,0} exponential(%rs)
  ROOT %r = f32[16]{0} reshape(%e)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(Slice(ba, *m, "bc"), Slice(ba, *m, "a"));
  EXPECT_NE(Slice(ba, *m, "rs"), Slice(ba, *m, "a"));  // reshape copies by default
  EXPECT_EQ(ba.values().size(), 5u);

  backend::BufferAssignmentOptions options;
  options.is_alias = [](const Instruction& inst) {
    return inst.opcode() == Opcode::kBitcast || inst.opcode() == Opcode::kReshape;
  };
  backend::BufferAssignment aliased = Assign(*m, options);
  EXPECT_EQ(aliased.values().size(), 3u);  // p, a, e
  EXPECT_EQ(Slice(aliased, *m, "rs"), Slice(aliased, *m, "a"));
  // The root is e seen through a reshape: e is the output.
  EXPECT_EQ(Slice(aliased, *m, "r"), Slice(aliased, *m, "e"));
  EXPECT_EQ(AllocationOf(aliased, *m, "e").kind, backend::Allocation::Kind::kOutput);
  // a is read (through two aliases) by e.
  EXPECT_EQ(aliased.values()[aliased.GetValueId(Find(*m, "a"))].last_use,
            aliased.values()[aliased.GetValueId(Find(*m, "e"))].defined_at);

  // An "alias" whose bytes differ from its operand's is the caller's mistake.
  options.is_alias = [](const Instruction& inst) { return inst.opcode() == Opcode::kBroadcast; };
  auto b = Parse(R"(
HloModule bad_alias
ENTRY %main (p: f32[4]) -> f32[4,4] {
  %p = f32[4]{0} parameter(0)
  ROOT %b = f32[4,4]{1,0} broadcast(%p), dimensions={0}
}
)");
  ASSERT_NE(b, nullptr);
  StatusOr<backend::BufferAssignment> bad = backend::AssignBuffers(*b->entry(), PostOrder(*b->entry()), options);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not the same number of bytes"));
}

TEST(BufferAssignmentTest, RootLeavesAreOutputs) {
  auto m = Parse(R"(
HloModule outputs
ENTRY %main (p: f32[4]) -> (f32[4], f32[4], f32[], f32[4], f32[4]) {
  %p = f32[4]{0} parameter(0)
  %c = f32[] constant(1)
  %a = f32[4]{0} negate(%p)
  %b = f32[4]{0} exponential(%a)
  ROOT %t = (f32[4]{0}, f32[4]{0}, f32[], f32[4]{0}, f32[4]{0}) tuple(%a, %p, %c, %b, %a)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(CountKind(ba, backend::Allocation::Kind::kOutput), 2);  // a (twice in the tuple) and b
  EXPECT_EQ(CountKind(ba, backend::Allocation::Kind::kTemp), 0);
  EXPECT_EQ(Slice(ba, *m, "t", {0}), Slice(ba, *m, "t", {4}));
  const backend::Allocation& a = AllocationOf(ba, *m, "a");
  EXPECT_EQ(a.kind, backend::Allocation::Kind::kOutput);
  EXPECT_TRUE(a.maybe_live_out);
  EXPECT_EQ(a.values.size(), 1u);
  // A returned parameter or constant keeps its allocation; the runtime copies it out.
  EXPECT_EQ(AllocationOf(ba, *m, "t", {1}).kind, backend::Allocation::Kind::kParameter);
  EXPECT_TRUE(AllocationOf(ba, *m, "t", {1}).maybe_live_out);
  EXPECT_EQ(AllocationOf(ba, *m, "t", {2}).kind, backend::Allocation::Kind::kConstant);
  EXPECT_TRUE(AllocationOf(ba, *m, "t", {2}).maybe_live_out);
  for (const backend::LogicalValue& v : ba.values()) EXPECT_TRUE(v.live_out) << v.instruction->name();
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);
}

TEST(BufferAssignmentTest, TupleParameterLeavesAndSizes) {
  auto m = Parse(R"(
HloModule leaves
ENTRY %main (p: (f32[4], (s32[2], pred[3]), s4[5], c64[2], token[])) -> s32[2] {
  %p = (f32[4]{0}, (s32[2]{0}, pred[3]{0}), s4[5]{0}, c64[2]{0}, token[]) parameter(0)
  %inner = (s32[2]{0}, pred[3]{0}) get-tuple-element(%p), index=1
  ROOT %s = s32[2]{0} get-tuple-element(%inner), index=0
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  ASSERT_EQ(CountKind(ba, backend::Allocation::Kind::kParameter), 5);  // the token has no buffer
  std::map<std::vector<int64_t>, int64_t> sizes;
  for (const backend::Allocation& a : ba.allocations()) {
    EXPECT_EQ(a.kind, backend::Allocation::Kind::kParameter);
    EXPECT_EQ(a.parameter_number, 0);
    sizes[a.parameter_index] = a.size;
  }
  // s4: one byte per element (unpacked); pred one byte; c64 eight.
  std::map<std::vector<int64_t>, int64_t> expected = {
      {{0}, 16}, {{1, 0}, 8}, {{1, 1}, 3}, {{2}, 5}, {{3}, 16}};
  EXPECT_EQ(sizes, expected);
  EXPECT_EQ(Slice(ba, *m, "s"), Slice(ba, *m, "p", {1, 0}));
  EXPECT_TRUE(AllocationOf(ba, *m, "p", {1, 0}).maybe_live_out);
  EXPECT_FALSE(AllocationOf(ba, *m, "p", {1, 1}).maybe_live_out);
  EXPECT_FALSE(ba.GetSlice(Find(*m, "p"), {4}).ok());  // token
}

TEST(BufferAssignmentTest, InputOutputAliasHonoured) {
  auto m = Parse(R"(
HloModule aliased, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY %main (p0: f32[16], p1: f32[16]) -> (f32[16], f32[16]) {
  %p0 = f32[16]{0} parameter(0)
  %p1 = f32[16]{0} parameter(1)
  %a = f32[16]{0} negate(%p0)
  %b = f32[16]{0} exponential(%a)
  %c = f32[16]{0} add(%p1, %b)
  ROOT %r = (f32[16]{0}, f32[16]{0}) tuple(%b, %c)
}
)");
  ASSERT_NE(m, nullptr);
  // b is defined after p0's last read: it takes over p0's buffer. c reads p1 while it
  // computes, which only in-place code generation makes safe.
  backend::BufferAssignment ba = Assign(*m);
  const backend::Allocation& p0 = AllocationOf(ba, *m, "p0");
  EXPECT_EQ(Slice(ba, *m, "b"), Slice(ba, *m, "p0"));
  EXPECT_EQ(p0.kind, backend::Allocation::Kind::kParameter);
  EXPECT_TRUE(p0.maybe_live_out);
  EXPECT_EQ(p0.values.size(), 2u);
  EXPECT_EQ(AllocationOf(ba, *m, "c").kind, backend::Allocation::Kind::kOutput);
  ASSERT_EQ(ba.notes().size(), 1u);
  EXPECT_THAT(ba.notes()[0], HasSubstr("input_output_alias {1}: (1, {}) not honoured"));
  EXPECT_THAT(ba.ToString(), HasSubstr("note: input_output_alias {1}"));
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);

  backend::BufferAssignmentOptions in_place;
  in_place.may_share_operand = ElementwiseOrDusInPlace;
  backend::BufferAssignment shared = Assign(*m, in_place);
  EXPECT_EQ(Slice(shared, *m, "c"), Slice(shared, *m, "p1"));
  EXPECT_TRUE(shared.notes().empty());
  EXPECT_EQ(CountKind(shared, backend::Allocation::Kind::kOutput), 0);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), shared, true);

  // A parameter still read after the output is computed keeps its own buffer.
  auto late = Parse(R"(
HloModule late, input_output_alias={ {0}: (0, {}, must-alias) }
ENTRY %main (p0: f32[16]) -> (f32[16], f32[16]) {
  %p0 = f32[16]{0} parameter(0)
  %a = f32[16]{0} negate(%p0)
  %c = f32[16]{0} exponential(%p0)
  ROOT %t = (f32[16]{0}, f32[16]{0}) tuple(%a, %c)
}
)");
  ASSERT_NE(late, nullptr);
  backend::BufferAssignment declined = Assign(*late, in_place);
  EXPECT_NE(Slice(declined, *late, "a").allocation, Slice(declined, *late, "p0").allocation);
  ASSERT_EQ(declined.notes().size(), 1u);
  EXPECT_THAT(declined.notes()[0], HasSubstr("computed while the parameter is still read"));
}

TEST(BufferAssignmentTest, InPlaceDynamicUpdateSlice) {
  const char* kText = R"(
HloModule dus
ENTRY %main (p: f32[16], u: f32[4], i: s32[]) -> f32[16] {
  %p = f32[16]{0} parameter(0)
  %u = f32[4]{0} parameter(1)
  %i = s32[] parameter(2)
  %a = f32[16]{0} negate(%p)
  %d = f32[16]{0} dynamic-update-slice(%a, %u, %i)
  ROOT %r = f32[16]{0} exponential(%d)
}
)";
  auto m = Parse(kText);
  ASSERT_NE(m, nullptr);
  backend::BufferAssignmentOptions in_place;
  in_place.may_share_operand = [](const Instruction& inst, int64_t operand) {
    return inst.opcode() == Opcode::kDynamicUpdateSlice && operand == 0;
  };
  backend::BufferAssignment shared = Assign(*m, in_place);
  EXPECT_EQ(Slice(shared, *m, "d"), Slice(shared, *m, "a"));
  EXPECT_EQ(AllocationOf(shared, *m, "d").values.size(), 2u);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), shared, true);

  backend::BufferAssignment copied = Assign(*m);
  EXPECT_NE(Slice(copied, *m, "d").allocation, Slice(copied, *m, "a").allocation);

  // Not when the operand is read later.
  auto later = Parse(R"(
HloModule dus_later
ENTRY %main (p: f32[16], u: f32[4], i: s32[]) -> f32[16] {
  %p = f32[16]{0} parameter(0)
  %u = f32[4]{0} parameter(1)
  %i = s32[] parameter(2)
  %a = f32[16]{0} negate(%p)
  %d = f32[16]{0} dynamic-update-slice(%a, %u, %i)
  ROOT %r = f32[16]{0} add(%d, %a)
}
)");
  ASSERT_NE(later, nullptr);
  backend::BufferAssignment not_shared = Assign(*later, in_place);
  EXPECT_NE(Slice(not_shared, *later, "d").allocation, Slice(not_shared, *later, "a").allocation);

  // Into a donated parameter: the classic in-place update of an aliased input.
  auto donated = Parse(R"(
HloModule dus_alias, input_output_alias={ {}: (0, {}) }
ENTRY %main (p: f32[16], u: f32[4], i: s32[]) -> f32[16] {
  %p = f32[16]{0} parameter(0)
  %u = f32[4]{0} parameter(1)
  %i = s32[] parameter(2)
  ROOT %d = f32[16]{0} dynamic-update-slice(%p, %u, %i)
}
)");
  ASSERT_NE(donated, nullptr);
  backend::BufferAssignment into_param = Assign(*donated, in_place);
  EXPECT_EQ(Slice(into_param, *donated, "d"), Slice(into_param, *donated, "p"));
  EXPECT_TRUE(into_param.notes().empty());
  ExpectConsistent(*donated->entry(), PostOrder(*donated->entry()), into_param, true);
  backend::BufferAssignment no_codegen_support = Assign(*donated);
  EXPECT_EQ(AllocationOf(no_codegen_support, *donated, "d").kind, backend::Allocation::Kind::kOutput);
  EXPECT_EQ(no_codegen_support.notes().size(), 1u);
}

TEST(BufferAssignmentTest, PeakLiveBytesByHand) {
  auto m = Parse(R"(
HloModule peak
ENTRY %main (p: f32[8]) -> f32[2,4] {
  %p = f32[8]{0} parameter(0)
  %a = f32[8]{0} negate(%p)
  %b = f32[8,4]{1,0} broadcast(%a), dimensions={0}
  %s = f32[2,4]{1,0} slice(%b), slice={[0:2], [0:4]}
  ROOT %d = f32[2,4]{1,0} negate(%s)
}
)");
  ASSERT_NE(m, nullptr);
  // Steps: p 0, a 1, b 2, s 3, d 4. The parameter (32) is resident throughout.
  //   step 1: a 32            -> 64
  //   step 2: a 32 + b 128    -> 192
  //   step 3: b 128 + s 32    -> 192
  //   step 4: s 32 + d 32     -> 96
  // Temps: a (32); b (128, a is still read at step 2); s takes a's allocation.
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(ba.peak_live_bytes(), 192);
  EXPECT_EQ(ba.temp_bytes(), 160);
  EXPECT_EQ(ba.total_bytes(), 32 + 160 + 32);
  EXPECT_EQ(Slice(ba, *m, "s").allocation, Slice(ba, *m, "a").allocation);
  ExpectConsistent(*m->entry(), PostOrder(*m->entry()), ba, false);
}

TEST(BufferAssignmentTest, ToStringFormat) {
  auto m = Parse(R"(
HloModule text
ENTRY %main (x.1: f32[16]) -> f32[16] {
  %x.1 = f32[16]{0} parameter(0)
  %c.1 = f32[] constant(2)
  %b.1 = f32[16]{0} broadcast(%c.1), dimensions={}
  %add.2 = f32[16]{0} add(%x.1, %b.1)
  ROOT %mul.3 = f32[16]{0} multiply(%add.2, %add.2)
}
)");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  EXPECT_EQ(ba.ToString(),
            "BufferAssignment:\n"
            "allocation 0: size 64, parameter 0, shape |f32[16]| at ShapeIndex {}:\n"
            " value: <0 x.1 @0> (size=64,offset=0): f32[16]{0}\n"
            "allocation 1: size 4, constant:\n"
            " value: <1 c.1 @0> (size=4,offset=0): f32[]\n"
            "allocation 2: size 64:\n"
            " value: <2 b.1 @0> (size=64,offset=0): f32[16]{0}\n"
            "allocation 3: size 64:\n"
            " value: <3 add.2 @0> (size=64,offset=0): f32[16]{0}\n"
            "allocation 4: size 64, maybe-live-out:\n"
            " value: <4 mul.3 @0> (size=64,offset=0): f32[16]{0}\n"
            "Total bytes used: 260 (temp 128, peak live 196)\n");

  auto t = Parse(R"(
HloModule tuple_text
ENTRY %main (p: (f32[2], s32[])) -> (f32[2], s32[]) {
  %p = (f32[2]{0}, s32[]) parameter(0)
  %g = f32[2]{0} get-tuple-element(%p), index=0
  %n = f32[2]{0} negate(%g)
  %i = s32[] get-tuple-element(%p), index=1
  ROOT %r = (f32[2]{0}, s32[]) tuple(%n, %i)
}
)");
  ASSERT_NE(t, nullptr);
  std::string text = Assign(*t).ToString();
  EXPECT_THAT(text, HasSubstr("allocation 0: size 8, parameter 0, shape |(f32[2], s32[])| at "
                              "ShapeIndex {0}:\n value: <0 p{0} @0> (size=8,offset=0): f32[2]{0}\n"));
  EXPECT_THAT(text, HasSubstr("allocation 1: size 4, parameter 0, shape |(f32[2], s32[])| at "
                              "ShapeIndex {1}, maybe-live-out:\n"));
}

TEST(BufferAssignmentTest, InvalidSchedules) {
  auto m = Parse(R"(
HloModule sched
ENTRY %main (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  %a = f32[4]{0} negate(%p)
  ROOT %b = f32[4]{0} exponential(%a)
}
)");
  auto other = Parse(R"(
HloModule other
ENTRY %main (q: f32[4]) -> f32[4] {
  ROOT %q = f32[4]{0} parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(other, nullptr);
  const Computation& comp = *m->entry();
  const Instruction* p = &Find(*m, "p");
  const Instruction* a = &Find(*m, "a");
  const Instruction* b = &Find(*m, "b");
  auto error = [&](const std::vector<const Instruction*>& schedule) {
    StatusOr<backend::BufferAssignment> ba = backend::AssignBuffers(comp, schedule);
    EXPECT_FALSE(ba.ok());
    return ba.ok() ? std::string() : ba.status().message();
  };
  EXPECT_THAT(error({p, a}), HasSubstr("%b is missing"));
  EXPECT_THAT(error({p, a, a, b}), HasSubstr("%a appears twice"));
  EXPECT_THAT(error({p, b, a}), HasSubstr("%b (step 1) runs before its operand %a (step 2)"));
  EXPECT_THAT(error({p, a, b, &Find(*other, "q")}),
              HasSubstr("%q (step 3) is not an instruction of this computation"));
  EXPECT_THAT(error({p, nullptr, a, b}), HasSubstr("null entry"));
  EXPECT_TRUE(backend::AssignBuffers(comp, {p, a, b}).ok());

  backend::BufferAssignmentOptions odd;
  odd.alignment = 48;
  EXPECT_FALSE(backend::AssignBuffers(comp, {p, a, b}, odd).ok());

  // A schedule must respect control edges too.
  auto ctrl = Parse(R"(
HloModule ctrl
ENTRY %main (p: f32[4]) -> (f32[4], f32[4]) {
  %p = f32[4]{0} parameter(0)
  %a = f32[4]{0} negate(%p)
  %b = f32[4]{0} exponential(%p), control-predecessors={%a}
  ROOT %t = (f32[4]{0}, f32[4]{0}) tuple(%a, %b)
}
)");
  ASSERT_NE(ctrl, nullptr);
  const Instruction* cp = &Find(*ctrl, "p");
  const Instruction* ca = &Find(*ctrl, "a");
  const Instruction* cb = &Find(*ctrl, "b");
  const Instruction* ct = &Find(*ctrl, "t");
  StatusOr<backend::BufferAssignment> bad = backend::AssignBuffers(*ctrl->entry(), {cp, cb, ca, ct});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("control predecessor %a"));

  // An unbounded dynamic dimension has no size.
  auto dynamic = Parse(R"(
HloModule dyn
ENTRY %main (p: f32[?]) -> f32[?] {
  %p = f32[?]{0} parameter(0)
  ROOT %n = f32[?]{0} negate(%p)
}
)");
  ASSERT_NE(dynamic, nullptr);
  StatusOr<backend::BufferAssignment> unbounded =
      backend::AssignBuffers(*dynamic->entry(), PostOrder(*dynamic->entry()));
  ASSERT_FALSE(unbounded.ok());
  EXPECT_THAT(unbounded.status().message(), HasSubstr("unbounded dynamic dimension"));
}

TEST(BufferAssignmentTest, WhileBodyIsItsOwnProgram) {
  auto m = Parse(R"(
HloModule loop, input_output_alias={ {1}: (0, {1}, may-alias) }
%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[4])) -> (s32[], f32[4]) {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %i1 = s32[] add(%i, %one)
  %x = f32[4]{0} get-tuple-element(%s), index=1
  %y = f32[4]{0} exponential(%x)
  ROOT %t = (s32[], f32[4]{0}) tuple(%i1, %y)
}
ENTRY %main (init: (s32[], f32[4])) -> (s32[], f32[4]) {
  %init = (s32[], f32[4]{0}) parameter(0)
  ROOT %w = (s32[], f32[4]{0}) while(%init), condition=%cond, body=%body
}
)");
  ASSERT_NE(m, nullptr);
  const Computation* body = m->FindComputation("body");
  ASSERT_NE(body, nullptr);
  StatusOr<backend::BufferAssignment> ba = backend::AssignBuffers(*body, PostOrder(*body));
  ASSERT_TRUE(ba.ok()) << ba.status().message();
  EXPECT_EQ(CountKind(*ba, backend::Allocation::Kind::kParameter), 2);
  EXPECT_EQ(CountKind(*ba, backend::Allocation::Kind::kOutput), 2);  // the module's alias is the entry's
  EXPECT_TRUE(ba->notes().empty());
  ExpectConsistent(*body, PostOrder(*body), *ba, false);

  // In the entry the while defines new buffers for its results (the runtime copies the
  // body's results into them). It reads the donated parameter while it runs, so its
  // result cannot take the parameter's buffer.
  backend::BufferAssignment entry = Assign(*m);
  EXPECT_EQ(CountKind(entry, backend::Allocation::Kind::kParameter), 2);
  EXPECT_EQ(CountKind(entry, backend::Allocation::Kind::kOutput), 2);
  EXPECT_THAT(entry.notes(), ::testing::ElementsAre(HasSubstr("still read")));
}

TEST(BufferAssignmentTest, MnistAfterFusionHasNoLiveOverlap) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/mnist_train_step.hlo");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  Module& m = *parsed->modules[0];
  passes::PassContext context;
  passes::PipelineResult result;
  passes::PipelineOptions options;
  options.snapshot_pass_regex = "";
  Status run = passes::MakeOptimizationPipeline().Run(m, options, context, &result);
  ASSERT_TRUE(run.ok()) << run.message();
  const Computation& entry = *m.entry();
  ASSERT_GT(testing_util::Fusions(entry).size(), 0u);
  std::vector<const Instruction*> schedule = PostOrder(entry);

  backend::BufferAssignment ba = Assign(m);
  ExpectConsistent(entry, schedule, ba, false);
  int64_t temp_values = 0;
  for (size_t v = 0; v < ba.values().size(); ++v) {
    if (ba.allocations()[ba.value_slice(v).allocation].kind == backend::Allocation::Kind::kTemp) {
      ++temp_values;
    }
  }
  EXPECT_LT(CountKind(ba, backend::Allocation::Kind::kTemp), temp_values);  // temps are reused
  EXPECT_EQ(CountKind(ba, backend::Allocation::Kind::kParameter), 9);
  EXPECT_LE(ba.peak_live_bytes(), ba.total_bytes());

  backend::BufferAssignmentOptions in_place;
  in_place.may_share_operand = ElementwiseOrDusInPlace;
  ExpectConsistent(entry, schedule, Assign(m, in_place), true);
}

// Every verifying corpus module's entry (post-order schedule) gets an assignment with no
// two live values sharing bytes, with and without in-place code generation.
TEST(BufferAssignmentTest, CorpusAssignsWithoutLiveOverlap) {
  constexpr int64_t kMaxInstructions = 3000;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(FUSEBOX_SOURCE_DIR) /
                                                        "tests/data/xla_corpus")) {
    std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".hlo" || ext == ".txt")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  int64_t assigned = 0, unbounded = 0;
  backend::BufferAssignmentOptions in_place;
  in_place.may_share_operand = ElementwiseOrDusInPlace;
  for (const fs::path& file : files) {
    auto parsed = ParseFile(file.string());
    if (!parsed.ok()) continue;  // corpus_test reports parse failures
    for (size_t i = 0; i < parsed->modules.size(); ++i) {
      const Module& m = *parsed->modules[i];
      SCOPED_TRACE(file.string() + "#" + std::to_string(i));
      if (m.entry() == nullptr || m.entry()->instruction_count() > kMaxInstructions) continue;
      if (!Verify(m).ok()) continue;
      std::vector<const Instruction*> schedule = PostOrder(*m.entry());
      for (const backend::BufferAssignmentOptions& options : {backend::BufferAssignmentOptions{}, in_place}) {
        StatusOr<backend::BufferAssignment> ba = backend::AssignBuffers(*m.entry(), schedule, options);
        if (!ba.ok() && ba.status().message().find("unbounded dynamic") != std::string::npos) {
          ++unbounded;
          continue;
        }
        ASSERT_TRUE(ba.ok()) << ba.status().message();
        ExpectConsistent(*m.entry(), schedule, *ba, options.may_share_operand != nullptr);
        ++assigned;
      }
    }
  }
  EXPECT_GT(assigned, 100);
  EXPECT_LE(unbounded, 8);  // only modules with `?` dimensions
}

// What the runtimes bind: every array leaf's slice, tokens skipped; a leaf without one is
// an internal error naming the instruction and the leaf (the CPU and GPU runtimes used to
// hand kernels a null pointer and return zeros for it).
TEST(BufferAssignmentTest, LeafSlicesOrAnInternalErrorNamingTheLeaf) {
  auto m = Parse(R"(
HloModule m
ENTRY %e (p: f32[4], q: s32[2]) -> (f32[4], (s32[2], token[])) {
  %p = f32[4]{0} parameter(0)
  %q = s32[2]{0} parameter(1)
  %t = token[] after-all()
  %n = f32[4]{0} negate(%p)
  %inner = (s32[2]{0}, token[]) tuple(%q, %t)
  ROOT %out = (f32[4]{0}, (s32[2]{0}, token[])) tuple(%n, %inner)
})");
  ASSERT_NE(m, nullptr);
  backend::BufferAssignment ba = Assign(*m);
  StatusOr<std::vector<backend::BufferSlice>> slices = backend::LeafSlices(ba, Find(*m, "out"));
  ASSERT_TRUE(slices.ok()) << slices.status().message();
  ASSERT_EQ(slices->size(), 2u);
  EXPECT_EQ((*slices)[0], Slice(ba, *m, "n"));
  EXPECT_EQ((*slices)[1], Slice(ba, *m, "q"));
  StatusOr<std::vector<backend::BufferSlice>> token = LeafSlices(ba, Find(*m, "t"));
  ASSERT_TRUE(token.ok());
  EXPECT_TRUE(token->empty());

  // An instruction this assignment has no slice for: an error, never a null pointer.
  auto other = Parse(R"(
HloModule other
ENTRY %e (p: f32[4]) -> (f32[4], f32[4]) {
  %p = f32[4]{0} parameter(0)
  %x = f32[4]{0} negate(%p)
  ROOT %pair = (f32[4]{0}, f32[4]{0}) tuple(%x, %p)
})");
  ASSERT_NE(other, nullptr);
  StatusOr<std::vector<backend::BufferSlice>> missing = LeafSlices(ba, Find(*other, "pair"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kInternal);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("internal error: buffer assignment has no slice for %pair (output {0}); %pair is not an "
                        "instruction of computation %e"));

  Status error = backend::MissingSliceError(Find(*m, "out"), {1, 0}, "the run computed this output nowhere");
  EXPECT_EQ(error.code(), StatusCode::kInternal);
  EXPECT_THAT(error.message(), HasSubstr("internal error: buffer assignment has no slice for %out (output {1,0}); "
                                         "the run computed this output nowhere; not running on"));
}

}  // namespace
}  // namespace fusebox
