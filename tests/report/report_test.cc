// Reports: the HTML parses as XML with every section and no external URL, the tarball
// holds every file, the reproducer replays to the same result, missing pieces (a GPU)
// leave notes instead of failures, and headless Chromium renders the page. Modules for
// several devices run on them: the Devices section, a trace process per device, XLA's
// collectives beside Fusebox's from a dump folder.
#include "report/report.h"

#include <gtest/gtest.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <stb_image.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "importers/dump_index.h"
#include "importers/dump_stages.h"
#include "report/tarball.h"
#include "tests/app/cli_test_util.h"

namespace fusebox::report {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<Module> Example(const std::string& name) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return std::move(parsed->modules[0]);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string OutDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "/fusebox_report_" + std::to_string(::getpid()) + "_" + name;
  fs::remove_all(dir);
  return dir;
}

// The values of an XPath query over the document, as strings.
std::vector<std::string> XPathValues(xmlDocPtr doc, const char* query) {
  std::vector<std::string> out;
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  xmlXPathRegisterNs(ctx, BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
  xmlXPathObjectPtr result = xmlXPathEvalExpression(BAD_CAST query, ctx);
  if (result && result->nodesetval) {
    for (int i = 0; i < result->nodesetval->nodeNr; ++i) {
      xmlChar* value = xmlNodeGetContent(result->nodesetval->nodeTab[i]);
      out.emplace_back(value ? reinterpret_cast<const char*>(value) : "");
      xmlFree(value);
    }
  }
  xmlXPathFreeObject(result);
  xmlXPathFreeContext(ctx);
  return out;
}

class MnistReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(OutDir("mnist"));
    ReportInput input;
    input.module = Example("mnist_train_step.hlo");
    input.source = "assets/examples/mnist_train_step.hlo";
    ReportOptions options;
    options.out_dir = *dir_;
    options.iterations = 2;
    options.seed = 4;
    options.command_line = "report_test";
    auto written = WriteReport(std::move(input), options);
    ASSERT_TRUE(written.ok()) << written.status().message();
    result_ = new ReportResult(std::move(*written));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete result_;
  }
  static std::string* dir_;
  static ReportResult* result_;
};
std::string* MnistReportTest::dir_ = nullptr;
ReportResult* MnistReportTest::result_ = nullptr;

TEST_F(MnistReportTest, WritesEveryFile) {
  for (const char* f : {"report.html", "report.md", "trace.json", "trace_unfused.json", "graph.dot", "graph.svg",
                        "graph.png", "stages/hlo.txt", "stages/optimized_hlo.txt", "stages/llvm_ir_optimized.ll",
                        "stages/cpu_asm.s", "repro/replay.sh",
                        "repro/module_0000.jit_mnist_train_step.before_optimizations.txt",
                        "repro/inputs/input_0.npy", "repro/expected/output_0.npy"}) {
    EXPECT_TRUE(fs::exists(*dir_ + "/" + f)) << f;
  }
  EXPECT_TRUE(result_->warnings.empty()) << result_->warnings.front();
  EXPECT_TRUE(result_->check_ran);
  EXPECT_TRUE(result_->check_ok);
  std::string md = ReadFile(result_->markdown);
  EXPECT_NE(md.find("kernels: 92 before fusion, 11 after"), std::string::npos) << md;
  EXPECT_NE(md.find("numerical check: ok"), std::string::npos) << md;
}

TEST_F(MnistReportTest, HtmlParsesWithEverySectionAndNoExternalUrls) {
  std::string html = ReadFile(result_->html);
  xmlDocPtr doc = xmlReadMemory(html.data(), static_cast<int>(html.size()), "report.html", "utf-8",
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  ASSERT_NE(doc, nullptr) << "report.html is not well-formed: " << xmlGetLastError()->message;
  std::vector<std::string> ids = XPathValues(doc, "//h:section/@id");
  std::set<std::string> got(ids.begin(), ids.end());
  for (const char* id : {"summary", "clusters", "timeline", "graph", "decisions", "stages", "passes", "memory",
                         "roofline", "check", "environment", "reproducer"}) {
    EXPECT_TRUE(got.count(id)) << "missing section " << id;
  }
  // The roofline plots the fused run's kernels that count flops under the measured roofs.
  EXPECT_GT(XPathValues(doc, "//*[local-name()='circle'][@class='kernel']/@cx").size(), 0u);
  // Nothing is fetched: links stay inside the report folder, and no scripts, styles or
  // images come from elsewhere.
  for (const std::string& link : XPathValues(doc, "//@href | //@src | //@*[local-name()='href']")) {
    EXPECT_EQ(link.find("//"), std::string::npos) << link;
    EXPECT_EQ(link.find(':'), std::string::npos) << link;
  }
  EXPECT_TRUE(XPathValues(doc, "//h:script | //h:link | //h:iframe | //h:img").empty());
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("<!DOCTYPE svg"), std::string::npos);
  // The graph and both timelines are inline SVG; the timeline has one rect per kernel of
  // the last run at least, with tooltips.
  EXPECT_GE(XPathValues(doc, "//*[local-name()='svg']").size(), 3u);
  EXPECT_GE(XPathValues(doc, "//*[@id='timeline']//*[local-name()='rect']/*[local-name()='title']").size(), 11u);
  // Tables: 11 fused kernels, decisions, the environment with LLVM.
  EXPECT_EQ(XPathValues(doc, "//*[@id='clusters']/h:table[1]/h:tr").size(), 12u);
  EXPECT_FALSE(XPathValues(doc, "//*[@id='decisions']//h:tr").empty());
  EXPECT_NE(html.find("19.1"), std::string::npos);
  // Pass diffs for the passes that changed something.
  EXPECT_GE(XPathValues(doc, "//*[@id='passes']//h:pre[@class='diff']").size(), 2u);
  xmlFreeDoc(doc);
}

TEST_F(MnistReportTest, TarballHoldsEveryFile) {
  ASSERT_FALSE(result_->tarball.empty());
  auto names = ListTarGz(result_->tarball);
  ASSERT_TRUE(names.ok()) << names.status().message();
  std::set<std::string> members(names->begin(), names->end());
  for (const std::string& f : result_->files) {
    EXPECT_TRUE(members.count("fusebox-report-jit_mnist_train_step/" + f)) << f;
  }
  EXPECT_EQ(members.size(), result_->files.size());
}

TEST_F(MnistReportTest, ReproducerReplaysToTheSameResult) {
  std::string replayed = *dir_ + "/replayed";
  auto run = cli_test::RunCommand("FUSEBOX=" + std::string(FUSEBOX_BINARY) + " sh " + *dir_ + "/repro/replay.sh " +
                                  replayed + " 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("check: matches the interpreter"), std::string::npos) << run.out;
  int compared = 0;
  for (const auto& e : fs::directory_iterator(*dir_ + "/repro/expected")) {
    auto expected = interpreter::ReadNpy(e.path().string());
    auto actual = interpreter::ReadNpy(replayed + "/" + e.path().filename().string());
    ASSERT_TRUE(expected.ok() && actual.ok()) << e.path();
    interpreter::CompareOptions exact;
    exact.atol = 0;
    exact.rtol = 1e-6;
    EXPECT_TRUE(CompareLiterals(*actual, *expected, exact).ok()) << e.path();
    ++compared;
  }
  EXPECT_EQ(compared, 8);
}

TEST_F(MnistReportTest, HeadlessChromiumRendersIt) {
  auto which = cli_test::RunCommand("command -v chromium");
  if (which.code != 0) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  std::string png = *dir_ + "/screenshot.png";
  auto shot = cli_test::RunCommand("timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
                                   "--screenshot=" + png + " --window-size=1280,2000 file://" + result_->html +
                                   " 2>&1");
  ASSERT_TRUE(fs::exists(png)) << shot.out;
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr);
  EXPECT_EQ(w, 1280);
  EXPECT_EQ(h, 2000);
  // Not blank: the header band is dark blue, the page light, and many colours appear.
  std::set<int> colours;
  for (int i = 0; i < w * h; i += 97) {
    colours.insert((pixels[3 * i] << 16) | (pixels[3 * i + 1] << 8) | pixels[3 * i + 2]);
  }
  int header = (20 * w + 600) * 3;
  EXPECT_LT(pixels[header] + pixels[header + 1] + pixels[header + 2], 3 * 110);
  EXPECT_GT(colours.size(), 50u);
  stbi_image_free(pixels);
}

TEST(ReportTest, MissingGpuLeavesNotesNotFailures) {
  std::string dir = OutDir("gpu");
  ReportInput input;
  input.source = "small";
  // A small module of its own (64 x 64; the bundled reduce_sum example is 1024 x 1024).
  auto small = ParseModule(R"(HloModule small
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[64,64], y: f32[64,64]) -> f32[] {
  %x = f32[64,64]{1,0} parameter(0)
  %y = f32[64,64]{1,0} parameter(1)
  %m = f32[64,64]{1,0} multiply(%x, %y)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(%m, %zero), dimensions={0,1}, to_apply=%sum
}
)");
  ASSERT_TRUE(small.ok());
  input.module = std::move(*small);
  ReportOptions options;
  options.out_dir = dir;
  options.backend = "gpu";
  options.iterations = 1;
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  bool no_gpu = false;
  for (const std::string& w : written->warnings) no_gpu = no_gpu || w.find("CUDA") != std::string::npos;
  if (!no_gpu) GTEST_SKIP() << "this machine has a GPU: the runs worked";
  EXPECT_FALSE(written->check_ran);
  std::string html = ReadFile(written->html);
  EXPECT_NE(html.find("did not run"), std::string::npos);
  EXPECT_NE(html.find("no CUDA"), std::string::npos);
  // The GPU stages compile without a GPU.
  EXPECT_TRUE(fs::exists(dir + "/stages/kernels.ptx"));
  fs::remove_all(dir);
}

TEST(ReportTest, DumpFolderReportComparesWithXla) {
  std::string dump = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/running_example";
  auto index = importers::IndexDumpFolder(dump);
  ASSERT_TRUE(index.ok());
  const importers::DumpModule& m = index->modules[0];
  auto loaded = LoadDumpHlo(*m.BeforeOptimizations());
  ASSERT_TRUE(loaded.ok());
  ReportInput input;
  input.module = std::move(loaded->module);
  input.source = dump;
  session::CompileSession stages(input.module->Clone());
  AddXlaDumpStages(m, &stages);
  input.xla_stages = stages.external_stages();
  auto compared = CompareDumpFusion(m);
  ASSERT_TRUE(compared.ok());
  input.xla_comparison = compared->comparison;
  ReportOptions options;
  options.out_dir = OutDir("dump");
  options.iterations = 1;
  options.pack = false;
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_TRUE(written->tarball.empty());
  std::string html = ReadFile(written->html);
  EXPECT_NE(html.find("<section id=\"xla\">"), std::string::npos);
  EXPECT_NE(html.find("kernels: XLA 2, Fusebox 1"), std::string::npos);
  EXPECT_TRUE(fs::exists(options.out_dir + "/stages/xla_optimized_hlo.txt"));
  EXPECT_NE(ReadFile(written->markdown).find("XLA vs Fusebox: XLA 2 kernels, Fusebox 1"), std::string::npos);
  // The memory section: Fusebox's peaks and XLA's, read from its -live-range.txt
  // ("Stack trace breakdown for peak usage: 524 300 bytes").
  EXPECT_NE(html.find("<section id=\"memory\">"), std::string::npos);
  EXPECT_NE(html.find("cpu_after_optimizations-live-range.txt"), std::string::npos);
  std::string md = ReadFile(written->markdown);
  EXPECT_NE(md.find("- memory peak (CPU buffer assignment): fused "), std::string::npos) << md;
  EXPECT_NE(md.find("- XLA's memory peak: 512.0 KiB at `%wrapped_multiply`"), std::string::npos) << md;
  fs::remove_all(options.out_dir);
}

// Inputs too large to attach replay from the seed, and still reproduce the result.
TEST(ReportTest, LargeInputsReplayFromTheSeed) {
  std::string dir = OutDir("seed");
  ReportInput input;
  input.module = Example("mnist_train_step.hlo");
  input.source = "mnist";
  ReportOptions options;
  options.out_dir = dir;
  options.iterations = 1;
  options.seed = 9;
  options.pack = false;
  options.max_repro_bytes = 1024;  // the MNIST step's inputs are ~460 KiB
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  std::string script = ReadFile(dir + "/repro/replay.sh");
  EXPECT_NE(script.find("--seed 9"), std::string::npos) << script;
  EXPECT_EQ(script.find("--inputs"), std::string::npos) << script;
  EXPECT_FALSE(fs::exists(dir + "/repro/inputs/input_0.npy"));
  // The outputs (~250 KiB) are over the limit too: expected/ is empty and a note says so.
  EXPECT_FALSE(fs::exists(dir + "/repro/expected/output_0.npy"));
  bool noted = false;
  for (const std::string& w : written->warnings) noted = noted || w.find("too large to attach") != std::string::npos;
  EXPECT_TRUE(noted);
  auto run = cli_test::RunCommand("FUSEBOX=" + std::string(FUSEBOX_BINARY) + " sh " + dir + "/repro/replay.sh " + dir +
                                  "/replayed 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("check: matches the interpreter"), std::string::npos) << run.out;
  fs::remove_all(dir);
}

// A second report into the same folder packs only its own files.
TEST(ReportTest, RewritingAFolderDropsStaleFiles) {
  std::string dir = OutDir("rewrite");
  fs::create_directories(dir + "/repro/inputs");
  std::ofstream(dir + "/repro/inputs/stale.npy") << "old";
  ReportInput input;
  input.module = Example("mnist_train_step.hlo");
  ReportOptions options;
  options.out_dir = dir;
  options.iterations = 1;
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_FALSE(fs::exists(dir + "/repro/inputs/stale.npy"));
  auto names = ListTarGz(written->tarball);
  ASSERT_TRUE(names.ok());
  for (const std::string& n : *names) EXPECT_EQ(n.find("stale"), std::string::npos) << n;
  fs::remove_all(dir);
}

TEST(ReportTest, BadOutputFolderIsAnError) {
  ReportInput input;
  input.module = Example("mnist_train_step.hlo");
  ReportOptions options;
  options.out_dir = "/proc/fusebox_cannot_write_here";
  auto written = WriteReport(std::move(input), options);
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("cannot create folder"), std::string::npos) << written.status().message();
}

// ---- modules for several devices ----

std::string MultiDevice(const std::string& path) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/" + path;
}

// The text of every row (tr with td) under the element with `id`, cells joined by '|'.
std::vector<std::string> RowsUnder(xmlDocPtr doc, const std::string& id) {
  std::vector<std::string> rows;
  const std::string query = "//*[@id='" + id + "']//h:tr[h:td]";
  xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
  xmlXPathRegisterNs(ctx, BAD_CAST "h", BAD_CAST "http://www.w3.org/1999/xhtml");
  xmlXPathObjectPtr result = xmlXPathEvalExpression(BAD_CAST query.c_str(), ctx);
  if (result && result->nodesetval) {
    for (int i = 0; i < result->nodesetval->nodeNr; ++i) {
      std::string row;
      for (xmlNodePtr cell = result->nodesetval->nodeTab[i]->children; cell != nullptr;
           cell = cell->next) {
        if (cell->type != XML_ELEMENT_NODE) continue;
        xmlChar* value = xmlNodeGetContent(cell);
        row += (row.empty() ? "" : "|") +
               std::string(value ? reinterpret_cast<const char*>(value) : "");
        xmlFree(value);
      }
      rows.push_back(row);
    }
  }
  xmlXPathFreeObject(result);
  xmlXPathFreeContext(ctx);
  return rows;
}

xmlDocPtr ParseHtml(const std::string& html) {
  return xmlReadMemory(html.data(), static_cast<int>(html.size()), "report.html", "utf-8",
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

// tp_mlp: a global program for 4 devices that Fusebox partitions (one all-reduce of the
// second dot's partial sums) and runs on 4 devices, fused and unfused.
class TpMlpReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(OutDir("tp_mlp"));
    ReportInput input;
    auto parsed = ParseFile(MultiDevice("tp_mlp/module.hlo"));
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    input.module = std::move(parsed->modules[0]);
    input.source = MultiDevice("tp_mlp/module.hlo");
    ReportOptions options;
    options.out_dir = *dir_;
    options.iterations = 2;
    options.seed = 3;
    options.pack = false;
    auto written = WriteReport(std::move(input), options);
    ASSERT_TRUE(written.ok()) << written.status().message();
    result_ = new ReportResult(std::move(*written));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete result_;
  }
  static std::string* dir_;
  static ReportResult* result_;
};
std::string* TpMlpReportTest::dir_ = nullptr;
ReportResult* TpMlpReportTest::result_ = nullptr;

TEST_F(TpMlpReportTest, RunsOnFourDevicesAndTheCheckPasses) {
  ASSERT_NE(result_, nullptr);
  for (const std::string& w : result_->warnings) {
    EXPECT_EQ(w.find("run: "), std::string::npos) << "a run failed: " << w;
  }
  EXPECT_TRUE(result_->check_ran);
  EXPECT_TRUE(result_->check_ok);
}

TEST_F(TpMlpReportTest, HtmlHasTheDevicesSection) {
  ASSERT_NE(result_, nullptr);
  std::string html = ReadFile(result_->html);
  xmlDocPtr doc = ParseHtml(html);
  ASSERT_NE(doc, nullptr) << "report.html is not well-formed: " << xmlGetLastError()->message;
  EXPECT_EQ(XPathValues(doc, "//h:section[@id='devices']").size(), 1u);
  EXPECT_EQ(XPathValues(doc, "//h:nav/h:a[@href='#devices']").size(), 1u);
  // A row per device, fused and unfused, each with the one all-reduce and its bytes.
  for (const char* id : {"devices-fused", "devices-unfused"}) {
    std::vector<std::string> rows = RowsUnder(doc, id);
    ASSERT_EQ(rows.size(), 4u) << id;
    for (size_t d = 0; d < rows.size(); ++d) {
      EXPECT_EQ(rows[d].rfind(std::to_string(d) + "|", 0), 0u) << rows[d];
      EXPECT_NE(rows[d].find("|1|512 B|512 B|"), std::string::npos) << rows[d];
    }
  }
  // The partitioner's decision with its reason.
  std::vector<std::string> decisions = RowsUnder(doc, "collective-decisions");
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_NE(decisions[0].find("all-reduce"), std::string::npos) << decisions[0];
  EXPECT_NE(decisions[0].find("is split 4 ways"), std::string::npos) << decisions[0];
  // Communication: the all-reduce on 4 devices, 2 runs each.
  std::vector<std::string> collectives = RowsUnder(doc, "collectives-fused");
  ASSERT_EQ(collectives.size(), 1u);
  EXPECT_NE(collectives[0].find("|all-reduce|4|8|512 B|4.0 KiB|"), std::string::npos)
      << collectives[0];
  // Shardings of the parameters and the root; the check's verdict.
  EXPECT_NE(html.find("{devices=[1,4]&lt;=[4]}"), std::string::npos);
  std::vector<std::string> check = XPathValues(doc, "//*[@id='check']//h:span[@class='ok']");
  EXPECT_EQ(check.size(), 1u);
  // The timeline draws the collectives each device took part in.
  EXPECT_FALSE(
      XPathValues(
          doc,
          "//*[@id='timeline']//*[local-name()='text'][starts-with(., 'device 3 / collectives')]")
          .empty());
  xmlFreeDoc(doc);
}

TEST_F(TpMlpReportTest, TraceHasAProcessPerDevice) {
  ASSERT_NE(result_, nullptr);
  auto trace =
      nlohmann::json::parse(ReadFile(*dir_ + "/trace.json"), nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(trace.is_discarded());
  const nlohmann::json& events = trace.is_object() ? trace["traceEvents"] : trace;
  std::map<int, std::string> processes;
  std::set<int> with_collectives;
  for (const auto& e : events) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") {
      processes[e.value("pid", -1)] = e["args"].value("name", "");
    }
    if (e.value("cat", "") == "collective") with_collectives.insert(e.value("pid", -1));
  }
  std::set<std::string> names;
  for (const auto& [pid, name] : processes) names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"device 0", "device 1", "device 2", "device 3"}));
  EXPECT_EQ(with_collectives.size(), 4u);
  EXPECT_TRUE(fs::exists(*dir_ + "/trace_unfused.json"));
}

TEST_F(TpMlpReportTest, MarkdownHasDevicesAndCollectives) {
  ASSERT_NE(result_, nullptr);
  std::string md = ReadFile(result_->markdown);
  EXPECT_NE(md.find("- devices: 4, global program"), std::string::npos) << md;
  EXPECT_NE(md.find("1 all-reduce (512 B/device)"), std::string::npos) << md;
  EXPECT_NE(md.find("is split 4 ways"), std::string::npos) << md;
  EXPECT_NE(md.find("numerical check: ok"), std::string::npos) << md;
}

// The reproducer holds global inputs: `fusebox run` replays on the 4 devices.
TEST_F(TpMlpReportTest, ReproducerReplaysOnTheDevices) {
  ASSERT_NE(result_, nullptr);
  std::string replayed = *dir_ + "/replayed";
  auto run = cli_test::RunCommand("FUSEBOX=" + std::string(FUSEBOX_BINARY) + " sh " + *dir_ +
                                  "/repro/replay.sh " + replayed + " 2>&1");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("check: matches the interpreter"), std::string::npos) << run.out;
  auto expected = interpreter::ReadNpy(*dir_ + "/repro/expected/output.npy");
  auto actual = interpreter::ReadNpy(replayed + "/output.npy");
  ASSERT_TRUE(expected.ok() && actual.ok());
  interpreter::CompareOptions exact;
  exact.atol = 0;
  exact.rtol = 1e-6;
  EXPECT_TRUE(CompareLiterals(*actual, *expected, exact).ok());
}

// From XLA's dump folder: XLA's optimized module's collectives beside Fusebox's.
TEST(ReportTest, MultiDeviceDumpFolderSetsXlaCollectivesBesideFusebox) {
  const std::string dump = MultiDevice("tp_mlp/xla_dump");
  auto index = importers::IndexDumpFolder(dump);
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_FALSE(index->modules.empty());
  const importers::DumpModule& m = index->modules[0];
  ASSERT_NE(m.BeforeOptimizations(), nullptr);
  auto loaded = LoadDumpHlo(*m.BeforeOptimizations());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ReportInput input;
  input.module = std::move(loaded->module);
  input.source = dump;
  session::CompileSession stages(input.module->Clone());
  AddXlaDumpStages(m, &stages);
  input.xla_stages = stages.external_stages();
  ReportOptions options;
  options.out_dir = OutDir("tp_mlp_dump");
  options.iterations = 1;
  options.pack = false;
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  std::string html = ReadFile(written->html);
  xmlDocPtr doc = ParseHtml(html);
  ASSERT_NE(doc, nullptr) << "report.html is not well-formed: " << xmlGetLastError()->message;
  std::vector<std::string> rows = RowsUnder(doc, "xla-collectives");
  ASSERT_EQ(rows.size(), 1u);
  // kind | XLA | XLA bytes | Fusebox | Fusebox bytes | sent | verdict
  EXPECT_EQ(rows[0], "all-reduce|1|512 B|1|512 B|512 B|same");
  xmlFreeDoc(doc);
  EXPECT_NE(ReadFile(written->markdown).find("- XLA's collectives: 1 all-reduce (512 B/device)"),
            std::string::npos);
  fs::remove_all(options.out_dir);
}

// The GPU does not run multi-device programs: the report shows the library's reason
// where the runs would be, and still writes everything else.
TEST(ReportTest, MultiDeviceOnTheGpuSaysWhyItHasNoRuns) {
  ReportInput input;
  auto parsed = ParseFile(MultiDevice("tp_mlp/module.hlo"));
  ASSERT_TRUE(parsed.ok());
  input.module = std::move(parsed->modules[0]);
  input.source = "tp_mlp";
  ReportOptions options;
  options.out_dir = OutDir("tp_mlp_gpu");
  options.backend = "gpu";
  options.iterations = 1;
  options.pack = false;
  auto written = WriteReport(std::move(input), options);
  ASSERT_TRUE(written.ok()) << written.status().message();
  EXPECT_FALSE(written->check_ran);
  std::string html = ReadFile(written->html);
  EXPECT_NE(html.find("multi-device runs on the GPU need one GPU per device (4)"),
            std::string::npos);
  EXPECT_NE(html.find("<section id=\"devices\">"), std::string::npos);
  EXPECT_NE(html.find("no fused run: "), std::string::npos);
  fs::remove_all(options.out_dir);
}

TEST(ReportTest, EscapesHtml) {
  EXPECT_EQ(EscapeHtml("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(EscapeHtml(std::string("a\x01" "b")), "a&#xFFFD;b");
}

}  // namespace
}  // namespace fusebox::report
