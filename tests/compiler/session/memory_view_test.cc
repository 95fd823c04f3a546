// The memory view: on every example, fused and unfused, the peak equals the bytes of the
// buffers listed at it; a while loop's body counts while the loop runs; XLA's figures read
// from the committed dumps equal the numbers printed in those files; malformed XLA files
// give file:line:col.
#include "compiler/session/memory_view.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compiler/parser/parser.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"

namespace fusebox::session {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The invariants every profile keeps: the rows at the peak add up to it, the peak is the
// largest per-step figure and the first step reaching it, the rows come largest first.
void ExpectConsistent(const backend::MemoryProfile& p, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_FALSE(p.at_peak.empty());
  EXPECT_EQ(p.SumAtPeak(), p.peak_bytes);
  ASSERT_EQ(p.bytes_at.size(), p.schedule.size());
  EXPECT_EQ(p.bytes_at[p.peak_step], p.peak_bytes);
  for (int64_t s = 0; s < p.peak_step; ++s) EXPECT_LT(p.bytes_at[s], p.peak_bytes) << "step " << s;
  for (int64_t b : p.bytes_at) EXPECT_LE(b, p.peak_bytes);
  for (size_t i = 1; i < p.at_peak.size(); ++i) EXPECT_GE(p.at_peak[i - 1].bytes, p.at_peak[i].bytes);
  EXPECT_GE(p.peak_bytes, p.resident_bytes);
}

class ExampleMemoryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleMemoryTest, PeakIsTheSumOfTheBuffersListedAtIt) {
  auto file = importers::LoadFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + GetParam() + ".hlo");
  ASSERT_TRUE(file.ok()) << file.status().message();
  CompileSession session(std::move(file->modules[0]));
  auto view = BuildMemoryView(session);
  ASSERT_TRUE(view.ok()) << view.status().message();
  ASSERT_TRUE(view->fused && view->unfused);
  ExpectConsistent(*view->fused, "fused");
  ExpectConsistent(*view->unfused, "unfused");
  EXPECT_FALSE(view->xla.any());
  // Fusion never needs more memory at the peak than one kernel per op on these programs.
  EXPECT_LE(view->fused->peak_bytes, view->unfused->peak_bytes);
  std::string text = MemoryViewText(*view);
  EXPECT_THAT(text, HasSubstr("= the peak"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("!= the peak")));
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleMemoryTest,
                         ::testing::Values("reduce_sum", "running_example", "mnist_train_step",
                                           "cifar_cnn_train_step"));

TEST(MemoryViewTest, WhileBodyCountsWhileTheLoopRuns) {
  auto m = ParseModule(R"(
HloModule loop
%cond (s: (s32[], f32[64])) -> pred[] {
  %s = (s32[], f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], f32[64])) -> (s32[], f32[64]) {
  %s = (s32[], f32[64]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %v = f32[64]{0} get-tuple-element(%s), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %big = f32[64,64]{1,0} broadcast(%v), dimensions={1}
  %d = f32[64,64]{1,0} dot(%big, %big), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %row = f32[1,64]{1,0} slice(%d), slice={[0:1], [0:64]}
  %w = f32[64]{0} reshape(%row)
  ROOT %t = (s32[], f32[64]{0}) tuple(%j, %w)
}
ENTRY %main (x: f32[64]) -> f32[64] {
  %x = f32[64]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[64]{0}) tuple(%zero, %x)
  %loop = (s32[], f32[64]{0}) while(%init), condition=%cond, body=%body
  ROOT %r = f32[64]{0} get-tuple-element(%loop), index=1
}
)");
  ASSERT_TRUE(m.ok()) << m.status().message();
  CompileSession session(std::move(*m));
  auto view = BuildMemoryView(session, {.fused = true, .unfused = false});
  ASSERT_TRUE(view.ok()) << view.status().message();
  const backend::MemoryProfile& p = *view->fused;
  ExpectConsistent(p, "while");
  EXPECT_EQ(p.PeakInstruction(), "loop");
  int64_t in_body = 0;
  for (const backend::LiveBuffer& b : p.at_peak) {
    if (b.computation != p.computation) {
      EXPECT_EQ(b.computation, "body");
      in_body += b.bytes;
    }
  }
  EXPECT_GE(in_body, 2 * 64 * 64 * 4);  // the dot's operand and result, at least
  EXPECT_EQ(in_body, p.callee_bytes_at[p.peak_step]);
}

std::string DumpDir(const std::string& name) { return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/" + name; }

StatusOr<XlaMemoryFigures> XlaFiguresOf(const std::string& dump) {
  ASSIGN_OR_RETURN(importers::DumpIndex index, importers::IndexDumpFolder(DumpDir(dump)));
  const importers::DumpModule& m = index.modules[0];
  ASSIGN_OR_RETURN(importers::LoadedDumpModule input, importers::LoadDumpHlo(*m.BeforeOptimizations()));
  CompileSession session(std::move(input.module));
  importers::AddXlaDumpStages(m, &session);
  return ReadXlaMemory(session);
}

// The numbers below are copied from the files (reduce_sum's -live-range.txt says "Stack
// trace breakdown for peak usage: 786 436 bytes", its memory-usage-report "Total bytes:
// 786448 (768.0KiB)"); the buffer assignment has seven allocations and no total line.
TEST(XlaMemoryTest, ReduceSumFiguresAreTheFilesNumbers) {
  auto x = XlaFiguresOf("reduce_sum");
  ASSERT_TRUE(x.ok()) << x.status().message();
  EXPECT_EQ(x->live_range.peak_bytes, 786436);
  EXPECT_EQ(x->live_range.peak_step, 3);
  EXPECT_EQ(x->live_range.peak_instruction, "ynn_fusion");
  EXPECT_EQ(x->live_range.steps, 4);
  EXPECT_EQ(x->live_range.at_peak.size(), 4u);
  EXPECT_EQ(x->live_range.listed_bytes, 786436);
  EXPECT_EQ(x->report_total_bytes, 786448);
  EXPECT_EQ(x->buffer_assignment.allocations.size(), 7u);
  EXPECT_EQ(x->buffer_assignment.allocation_bytes, 786448);
  EXPECT_EQ(x->buffer_assignment.total_bytes_used, -1);
  EXPECT_THAT(x->live_range_file, HasSubstr("module_0000.jit_reduce_sum.cpu_after_optimizations-live-range.txt"));
  bool noted = false;
  for (const std::string& n : x->notes) noted |= n.find("no 'Total bytes used' line") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(XlaMemoryTest, TrainStepPeaksAreTheFilesNumbers) {
  auto mnist = XlaFiguresOf("mnist_train_step");
  ASSERT_TRUE(mnist.ok()) << mnist.status().message();
  EXPECT_EQ(mnist->live_range.peak_bytes, 559076);  // "559 076 bytes"
  EXPECT_EQ(mnist->live_range.peak_step, 27);
  EXPECT_EQ(mnist->live_range.listed_bytes, 559076);
  EXPECT_EQ(mnist->report_total_bytes, 592092);
  auto cifar = XlaFiguresOf("cifar_cnn_train_step");
  ASSERT_TRUE(cifar.ok()) << cifar.status().message();
  EXPECT_EQ(cifar->live_range.peak_bytes, 14014556);  // "14 014 556 bytes"
  EXPECT_EQ(cifar->live_range.peak_step, 27);
  EXPECT_EQ(cifar->live_range.peak_instruction, "ynn_fusion.8");
  EXPECT_EQ(cifar->report_total_bytes, 24060384);
  EXPECT_EQ(cifar->buffer_assignment.allocation_bytes, cifar->report_total_bytes);
}

TEST(XlaMemoryTest, MalformedLinesGiveFileLineColumn) {
  auto ba = ParseXlaBufferAssignment("BufferAssignment:\nallocation 0: size x, parameter 0:\n", "ba.txt");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(ba.status().message(), "ba.txt:2:20: expected the allocation's size");
  auto lr = ParseXlaLiveRange("HloLiveRange (max 1):\n  Live ranges at 0 (peak):\n    x{}: lots\n", "lr.txt");
  ASSERT_FALSE(lr.ok());
  EXPECT_EQ(lr.status().message(), "lr.txt:3:10: expected the buffer's bytes");
  auto none = ParseXlaBufferAssignment("nothing here\n", "empty.txt");
  EXPECT_FALSE(none.ok());
  auto report = ParseXlaMemoryReportTotal("Memory Space: default\n", "r.txt");
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(*report, -1);  // not in the file: unknown, not zero
}

}  // namespace
}  // namespace fusebox::session
