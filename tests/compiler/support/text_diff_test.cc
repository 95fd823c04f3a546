// Line diffs: the edit script rebuilds both sides, is as short as GNU diff's minimal one,
// and the unified text has diff -u's shape.
#include "compiler/support/text_diff.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "tests/app/cli_test_util.h"

namespace fusebox {
namespace {

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(TextDiffTest, IdenticalAndEmpty) {
  TextDiff same = DiffText("a\nb\n", "a\nb\n");
  EXPECT_TRUE(same.identical());
  EXPECT_TRUE(same.hunks.empty());
  EXPECT_EQ(same.lines.size(), 2u);
  TextDiff from_empty = DiffText("", "x\ny\n");
  EXPECT_EQ(from_empty.added, 2);
  ASSERT_EQ(from_empty.hunks.size(), 1u);
  EXPECT_EQ(from_empty.Unified("a", "b"), "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
}

TEST(TextDiffTest, UnifiedMatchesDiffU) {
  std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
  std::string after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\nthirteen\n";
  TextDiff d = DiffText(before, after);
  EXPECT_EQ(d.Unified("before", "after"),
            "--- before\n+++ after\n"
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"
            "@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+thirteen\n");
  // Closer changes merge into one hunk.
  TextDiff close = DiffText("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", 3);
  EXPECT_EQ(close.hunks.size(), 1u);
  TextDiff apart = DiffText("a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", 1);
  EXPECT_EQ(apart.hunks.size(), 2u);
}

// Random edits: both sides come back from the script, and the script is as short as
// GNU diff's minimal (-d) one.
TEST(TextDiffTest, RandomEditsRoundTripAndAreMinimal) {
  std::mt19937 rng(5);
  for (int round = 0; round < 30; ++round) {
    std::vector<std::string> a;
    int n = 5 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) a.push_back("line " + std::to_string(rng() % 12));
    std::vector<std::string> b = a;
    int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) {
      size_t at = b.empty() ? 0 : rng() % b.size();
      switch (rng() % 3) {
        case 0: b.insert(b.begin() + static_cast<long>(at), "new " + std::to_string(rng() % 5)); break;
        case 1: if (!b.empty()) b.erase(b.begin() + static_cast<long>(at)); break;
        default: if (!b.empty()) b[at] = "changed " + std::to_string(rng() % 5); break;
      }
    }
    TextDiff d = DiffText(Join(a), Join(b));
    std::vector<std::string> old_side, new_side;
    for (const DiffLine& l : d.lines) {
      if (l.kind != DiffLine::Kind::kAdded) old_side.push_back(l.text);
      if (l.kind != DiffLine::Kind::kRemoved) new_side.push_back(l.text);
    }
    EXPECT_EQ(old_side, a);
    EXPECT_EQ(new_side, b);
    std::string pa = ::testing::TempDir() + "/diff_a.txt", pb = ::testing::TempDir() + "/diff_b.txt";
    std::ofstream(pa) << Join(a);
    std::ofstream(pb) << Join(b);
    auto gnu = cli_test::RunCommand("diff -d " + pa + " " + pb + " | grep -c '^[<>]'");
    EXPECT_EQ(std::stoll(gnu.out), d.added + d.removed) << "round " << round;
  }
}

// Texts differing in more lines than the O(ND) search takes (kMaxEdits): the lines between
// the common prefix and suffix are shown removed then added, and both sides still read back.
TEST(TextDiffTest, HugeDifferenceFallsBackToRemoveThenAdd) {
  std::string a = "head\n", b = "head\n";
  for (int i = 0; i < 4000; ++i) {
    a += "old " + std::to_string(i) + "\n";
    b += "new " + std::to_string(i) + "\n";
  }
  a += "tail\n";
  b += "tail\n";
  TextDiff d = DiffText(a, b);
  EXPECT_EQ(d.removed, 4000);
  EXPECT_EQ(d.added, 4000);
  ASSERT_EQ(d.lines.size(), 8002u);
  EXPECT_EQ(d.lines.front().text, "head");
  EXPECT_EQ(d.lines[1].kind, DiffLine::Kind::kRemoved);
  EXPECT_EQ(d.lines[4001].kind, DiffLine::Kind::kAdded);
  EXPECT_EQ(d.lines.back().text, "tail");
  EXPECT_EQ(d.lines.back().old_line, 4002);
  EXPECT_EQ(d.lines.back().new_line, 4002);
}

}  // namespace
}  // namespace fusebox
