// The memory profile over hand-written modules whose peak is known by hand: three temps
// with overlapping lives, a value written in place over its operand (one allocation, counted
// once), a parameter the runtime copies, a callee's buffers while its caller runs, and
// agreement with the assignment's own peak_live_bytes.
#include "compiler/backend/memory_profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::backend {
namespace {

using testing_util::Parse;

std::vector<const Instruction*> Schedule(const Computation& comp, const std::vector<std::string>& names) {
  std::vector<const Instruction*> out;
  for (const std::string& name : names) {
    const Instruction* inst = comp.FindInstruction(name);
    EXPECT_NE(inst, nullptr) << name;
    out.push_back(inst);
  }
  return out;
}

MemoryProfile Profile(const Computation& comp, const std::vector<const Instruction*>& schedule,
                      const BufferAssignmentOptions& assign = {}, const MemoryProfileOptions& options = {}) {
  auto ba = AssignBuffers(comp, schedule, assign);
  EXPECT_TRUE(ba.ok()) << ba.status().message();
  if (!ba.ok()) return {};
  auto profile = ProfileMemory(comp, schedule, *ba, options);
  EXPECT_TRUE(profile.ok()) << profile.status().message();
  return profile.ok() ? *profile : MemoryProfile{};
}

std::vector<std::string> Names(const MemoryProfile& p) {
  std::vector<std::string> out;
  for (const LiveBuffer& b : p.at_peak) out.push_back(b.instruction);
  return out;
}

// x (4 B, resident); a (40), b (80), c (120) broadcast one after the other; ab (120)
// concatenates a and b, which die there; r = ab + c is the output. At ab's step a, b, c
// and ab are all live: 4 + 40 + 80 + 120 + 120 = 364 B, the peak.
constexpr char kThreeTemps[] = R"(
HloModule three_temps
ENTRY %main (x: f32[]) -> f32[30] {
  %x = f32[] parameter(0)
  %a = f32[10]{0} broadcast(%x), dimensions={}
  %b = f32[20]{0} broadcast(%x), dimensions={}
  %c = f32[30]{0} broadcast(%x), dimensions={}
  %ab = f32[30]{0} concatenate(%a, %b), dimensions={0}
  ROOT %r = f32[30]{0} add(%ab, %c)
}
)";

TEST(MemoryProfileTest, ThreeOverlappingTempsPeakByHand) {
  auto m = Parse(kThreeTemps);
  ASSERT_NE(m, nullptr);
  const Computation& comp = *m->entry();
  MemoryProfile p = Profile(comp, Schedule(comp, {"x", "a", "b", "c", "ab", "r"}));
  EXPECT_EQ(p.bytes_at, (std::vector<int64_t>{4, 44, 124, 244, 364, 364}));
  EXPECT_EQ(p.peak_bytes, 364);
  EXPECT_EQ(p.peak_step, 4);  // the first step at the peak
  EXPECT_EQ(p.PeakInstruction(), "ab");
  EXPECT_THAT(Names(p), ::testing::ElementsAre("c", "ab", "b", "a", "x"));
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
  EXPECT_EQ(p.resident_bytes, 4);
  ASSERT_EQ(p.at_peak.size(), 5u);
  EXPECT_EQ(p.at_peak[0].shape, "f32[30]{0}");
  EXPECT_EQ(p.at_peak[0].defined_at, 3);
  EXPECT_EQ(p.at_peak[0].last_use, 5);
  EXPECT_EQ(p.at_peak[4].kind, MemoryKind::kParameter);
  EXPECT_EQ(p.at_peak[4].defined_at, -1);
}

TEST(MemoryProfileTest, OtherScheduleOtherPeak) {
  // ab before c: a and b are dead by the time c comes, so the peak is lower (244 B at c
  // and at r, where ab, c and r are live).
  auto m = Parse(kThreeTemps);
  ASSERT_NE(m, nullptr);
  const Computation& comp = *m->entry();
  MemoryProfile p = Profile(comp, Schedule(comp, {"x", "a", "b", "ab", "c", "r"}));
  EXPECT_EQ(p.bytes_at, (std::vector<int64_t>{4, 44, 124, 244, 244, 364}));
  EXPECT_EQ(p.peak_bytes, 364);
  EXPECT_EQ(p.PeakInstruction(), "r");
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
}

// a (400 B) is negated into b, which the code generator writes over a: one allocation
// holds both at b's step, so that step counts 400 B, not 800.
constexpr char kInPlace[] = R"(
HloModule in_place
ENTRY %main (x: f32[]) -> f32[100] {
  %x = f32[] parameter(0)
  %a = f32[100]{0} broadcast(%x), dimensions={}
  ROOT %b = f32[100]{0} negate(%a)
}
)";

TEST(MemoryProfileTest, SharedAllocationCountsOnce) {
  auto m = Parse(kInPlace);
  ASSERT_NE(m, nullptr);
  const Computation& comp = *m->entry();
  BufferAssignmentOptions in_place;
  in_place.may_share_operand = [](const Instruction& inst, int64_t) { return inst.opcode() == Opcode::kNegate; };
  auto schedule = Schedule(comp, {"x", "a", "b"});
  auto ba = AssignBuffers(comp, schedule, in_place);
  ASSERT_TRUE(ba.ok());
  ASSERT_EQ(ba->GetSlice(*comp.FindInstruction("a"))->allocation, ba->GetSlice(*comp.FindInstruction("b"))->allocation);
  MemoryProfile p = Profile(comp, schedule, in_place);
  EXPECT_EQ(p.bytes_at, (std::vector<int64_t>{4, 404, 404}));
  EXPECT_EQ(p.peak_bytes, 404);
  EXPECT_EQ(p.peak_bytes, ba->peak_live_bytes());
  ASSERT_EQ(p.at_peak.size(), 2u);
  EXPECT_EQ(p.at_peak[0].instruction, "a");  // the first step at the peak is a's
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
}

TEST(MemoryProfileTest, CopiedParameterCountsTwice) {
  auto m = Parse(kInPlace);
  ASSERT_NE(m, nullptr);
  const Computation& comp = *m->entry();
  MemoryProfileOptions options;
  options.parameter_copied = [](const Allocation& a) { return a.kind == Allocation::Kind::kParameter; };
  MemoryProfile p = Profile(comp, Schedule(comp, {"x", "a", "b"}), {}, options);
  EXPECT_EQ(p.resident_bytes, 8);
  EXPECT_EQ(p.peak_bytes, 8 + 800);  // without in place, a and b both live at b
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
  EXPECT_EQ(std::count_if(p.at_peak.begin(), p.at_peak.end(),
                          [](const LiveBuffer& b) { return b.kind == MemoryKind::kParameterCopy; }),
            1);
}

TEST(MemoryProfileTest, CalleeBuffersCountWhileTheCallerRuns) {
  auto m = Parse(R"(
HloModule callee
%body (s: f32[8]) -> f32[8] {
  %s = f32[8]{0} parameter(0)
  %big = f32[1000]{0} broadcast(%s), dimensions={}
  %small = f32[8]{0} slice(%big), slice={[0:8]}
  ROOT %n = f32[8]{0} negate(%small)
}
ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %c = f32[8]{0} call(%x), to_apply=%body
}
)");
  ASSERT_NE(m, nullptr);
  const Computation& entry = *m->entry();
  const Computation* body = m->FindComputation("body");
  ASSERT_NE(body, nullptr);
  MemoryProfileOptions options;
  options.callee = [&](const Computation& comp) -> StatusOr<MemoryProfile> {
    std::vector<Instruction*> order = comp.PostOrder();
    std::vector<const Instruction*> schedule(order.begin(), order.end());
    ASSIGN_OR_RETURN(BufferAssignment ba, AssignBuffers(comp, schedule));
    return ProfileMemory(comp, schedule, ba);
  };
  MemoryProfile p = Profile(entry, Schedule(entry, {"x", "c"}), {}, options);
  // At the call: x (32) and c (32) of the caller, and the body's peak less its parameter:
  // big (4000) and small (32) at small's step.
  EXPECT_EQ(p.callee_bytes_at, (std::vector<int64_t>{0, 4032}));
  EXPECT_EQ(p.peak_bytes, 32 + 32 + 4032);
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
  int in_body = 0;
  for (const LiveBuffer& b : p.at_peak) in_body += b.computation == "body";
  EXPECT_EQ(in_body, 2);
}

TEST(MemoryProfileTest, AgreesWithTheAssignmentsPeakLiveBytes) {
  auto m = Parse(kThreeTemps);
  ASSERT_NE(m, nullptr);
  const Computation& comp = *m->entry();
  for (auto names : std::vector<std::vector<std::string>>{{"x", "a", "b", "c", "ab", "r"},
                                                          {"x", "a", "b", "ab", "c", "r"},
                                                          {"x", "c", "a", "b", "ab", "r"}}) {
    auto schedule = Schedule(comp, names);
    auto ba = AssignBuffers(comp, schedule);
    ASSERT_TRUE(ba.ok());
    MemoryProfile p = Profile(comp, schedule);
    EXPECT_EQ(p.peak_bytes, ba->peak_live_bytes());
    EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
  }
}

}  // namespace
}  // namespace fusebox::backend
