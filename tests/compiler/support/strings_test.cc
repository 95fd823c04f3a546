// The shared string helpers: byte counts in each view's style and HTML escaping for
// documents and Graphviz labels.
#include "compiler/support/strings.h"

#include <gtest/gtest.h>

#include <string>

namespace fusebox {
namespace {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = kKiB * 1024;
constexpr int64_t kGiB = kMiB * 1024;
constexpr int64_t kTiB = kGiB * 1024;
constexpr int64_t kPiB = kTiB * 1024;

TEST(FormatBytesTest, DefaultOneDecimalUpToPiB) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.0 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(kMiB - 1), "1024.0 KiB");
  EXPECT_EQ(FormatBytes(3 * kMiB / 2), "1.5 MiB");
  EXPECT_EQ(FormatBytes(2 * kGiB), "2.0 GiB");
  EXPECT_EQ(FormatBytes(5 * kTiB), "5.0 TiB");
  EXPECT_EQ(FormatBytes(3 * kPiB), "3.0 PiB");
  EXPECT_EQ(FormatBytes(2048 * kPiB), "2048.0 PiB");
  EXPECT_EQ(FormatBytes(-5), "-5 B");
}

TEST(FormatBytesTest, LargestUnitCaps) {
  const ByteFormat mib = {.largest = ByteUnit::kMiB};
  EXPECT_EQ(FormatBytes(512, mib), "512 B");
  EXPECT_EQ(FormatBytes(1536, mib), "1.5 KiB");
  EXPECT_EQ(FormatBytes(3 * kGiB, mib), "3072.0 MiB");
  const ByteFormat tib = {.largest = ByteUnit::kTiB};
  EXPECT_EQ(FormatBytes(2 * kPiB, tib), "2048.0 TiB");
  EXPECT_EQ(FormatBytes(100, {.largest = ByteUnit::kB}), "100 B");
  EXPECT_EQ(FormatBytes(4096, {.largest = ByteUnit::kB}), "4096 B");
}

TEST(FormatBytesTest, TwoDecimalsFromAUnitOn) {
  // The workbench: two decimals from MiB, up to GiB.
  const ByteFormat workbench = {.largest = ByteUnit::kGiB, .two_decimals_from = ByteUnit::kMiB};
  EXPECT_EQ(FormatBytes(1000, workbench), "1000 B");
  EXPECT_EQ(FormatBytes(1536, workbench), "1.5 KiB");
  EXPECT_EQ(FormatBytes(2 * kMiB, workbench), "2.00 MiB");
  EXPECT_EQ(FormatBytes(kGiB + kGiB / 4, workbench), "1.25 GiB");
  EXPECT_EQ(FormatBytes(2 * kTiB, workbench), "2048.00 GiB");
  // The timeline: two decimals for GiB only.
  const ByteFormat timeline = {.largest = ByteUnit::kGiB, .two_decimals_from = ByteUnit::kGiB};
  EXPECT_EQ(FormatBytes(3 * kMiB / 2, timeline), "1.5 MiB");
  EXPECT_EQ(FormatBytes(3 * kGiB / 2, timeline), "1.50 GiB");
}

TEST(HtmlEscapeTest, DocumentEscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape("plain text"), "plain text");
  EXPECT_EQ(HtmlEscape(""), "");
}

TEST(HtmlEscapeTest, DocumentReplacesControlCharactersButWhitespace) {
  EXPECT_EQ(HtmlEscape(std::string("a\x01" "b")), "a&#xFFFD;b");
  EXPECT_EQ(HtmlEscape("a\tb\nc\rd"), "a\tb\nc\rd");
  EXPECT_EQ(HtmlEscape("caf\xc3\xa9"), "caf\xc3\xa9") << "UTF-8 passes through";
}

TEST(HtmlEscapeTest, GraphvizLabelBreaksLinesAndDropsControls) {
  const HtmlContext label = HtmlContext::kGraphvizLabel;
  EXPECT_EQ(HtmlEscape("<b>&\"'", label), "&lt;b&gt;&amp;&quot;'");
  EXPECT_EQ(HtmlEscape("one\ntwo", label), "one<br/>two");
  EXPECT_EQ(HtmlEscape(std::string("a\x01\tb\r"), label), "ab");
  EXPECT_EQ(HtmlEscape("caf\xc3\xa9", label), "caf\xc3\xa9");
}

TEST(SameDecimalNumberTest, LeadingZerosAndAnyLength) {
  EXPECT_TRUE(SameDecimalNumber("3", "0003"));
  EXPECT_TRUE(SameDecimalNumber("0", "0000"));
  EXPECT_TRUE(SameDecimalNumber("99999999999999999999999", "0099999999999999999999999"));
  EXPECT_FALSE(SameDecimalNumber("99999999999999999999999", "99999999999999999999998"));
  EXPECT_FALSE(SameDecimalNumber("30", "3"));
  EXPECT_FALSE(SameDecimalNumber("", "0"));
  EXPECT_FALSE(SameDecimalNumber("1700000000000001.0003", "3"));
  EXPECT_FALSE(SameDecimalNumber("-3", "3"));
}

}  // namespace
}  // namespace fusebox
