// Tests of `fusebox graph` through RunGraphCommand and AddGraphCommand's flag parsing
// (the subcommand is wired into app/cli.cc separately).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "app/graph_command.h"
#include "tests/test_util.h"

// Under the sanitizers Graphviz's own leaks are suppressed by graph/graph_layout.cc.

namespace fusebox::cli {
namespace {

using ::testing::HasSubstr;

std::string Example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fusebox_cli_graph_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the command; returns the exit code, stderr in *err.
  int Run(const GraphCommandOptions& options, std::string* err) {
    ::testing::internal::CaptureStderr();
    int code = RunGraphCommand(options);
    *err = ::testing::internal::GetCapturedStderr();
    return code;
  }

  std::string Out(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(CliGraphTest, WritesSvgOfTheOptimizedModule) {
  GraphCommandOptions options;
  options.path = Example("mnist_train_step.hlo");
  options.out = Out("mnist.svg");
  std::string err;
  ASSERT_EQ(Run(options, &err), 0) << err;
  EXPECT_THAT(err, HasSubstr("wrote " + options.out));
  std::string svg = ReadFile(options.out);
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("fusion"));
  EXPECT_THAT(svg, HasSubstr("jit_mnist_train_step (optimized_hlo)"));
}

TEST_F(CliGraphTest, WritesPngAndDot) {
  GraphCommandOptions options;
  options.path = Example("cifar_cnn_train_step.hlo");
  options.format = "png";
  options.expand_fusions = true;
  options.out = Out("cifar.png");
  std::string err;
  ASSERT_EQ(Run(options, &err), 0) << err;
  std::string png = ReadFile(options.out);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(1, 3), "PNG");

  options.format = "dot";
  options.stage = "hlo";
  options.out = Out("cifar.dot");
  ASSERT_EQ(Run(options, &err), 0) << err;
  EXPECT_THAT(ReadFile(options.out), HasSubstr("digraph"));
}

TEST_F(CliGraphTest, NeighbourhoodOfAnInstruction) {
  GraphCommandOptions options;
  options.path = Example("mnist_train_step.hlo");
  options.stage = "hlo";
  options.format = "dot";
  options.instruction = "add.17";
  options.radius = 1;
  options.out = Out("around.dot");
  std::string err;
  ASSERT_EQ(Run(options, &err), 0) << err;
  std::string dot = ReadFile(options.out);
  EXPECT_THAT(dot, HasSubstr("id=\"dot_general.2\""));
  EXPECT_THAT(dot, HasSubstr("more operands"));
  EXPECT_THAT(dot, ::testing::Not(HasSubstr("id=\"images.1\"")));
}

TEST_F(CliGraphTest, UnknownInstructionSuggestsNames) {
  GraphCommandOptions options;
  options.path = Example("mnist_train_step.hlo");
  options.stage = "hlo";
  options.instruction = "dot_general.22";
  options.out = Out("x.svg");
  std::string err;
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("error: no instruction %dot_general.22"));
  EXPECT_THAT(err, HasSubstr("did you mean %dot_general.2"));
  EXPECT_FALSE(std::filesystem::exists(options.out));
}

TEST_F(CliGraphTest, UserErrors) {
  GraphCommandOptions options;
  options.path = Example("mnist_train_step.hlo");
  options.out = Out("x.svg");
  std::string err;

  options.format = "gif";
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("error: unknown graph format 'gif'"));

  options.format = "svg";
  options.stage = "ptx";
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("error: unknown stage 'ptx'"));

  options.stage = "optimized_hlo";
  options.out = Out("no/such/dir/x.svg");
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("cannot write"));

  options.out = Out("x.svg");
  options.max_nodes = 10;
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("error: graph too big"));
  EXPECT_THAT(err, HasSubstr("--instruction"));

  options.path = Example("no_such_file.hlo");
  EXPECT_EQ(Run(options, &err), 1);
  EXPECT_THAT(err, HasSubstr("error: "));
}

TEST_F(CliGraphTest, FlagsParse) {
  CLI::App app("fusebox");
  GraphCommandOptions options;
  CLI::App* cmd = AddGraphCommand(app, &options);
  ASSERT_NE(cmd, nullptr);
  std::vector<std::string> args = {
      "graph", "m.hlo", "--instruction", "add.1", "--radius", "3", "--expand-fusions", "--stage",
      "hlo",   "-o",    "g.png"};
  std::vector<const char*> argv = {"fusebox"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  ASSERT_NO_THROW(app.parse(static_cast<int>(argv.size()), argv.data()));
  EXPECT_TRUE(cmd->parsed());
  EXPECT_EQ(options.path, "m.hlo");
  EXPECT_EQ(options.instruction, "add.1");
  EXPECT_EQ(options.radius, 3);
  EXPECT_TRUE(options.expand_fusions);
  EXPECT_EQ(options.stage, "hlo");
  EXPECT_EQ(options.out, "g.png");
  EXPECT_EQ(options.format, "png");  // from the --out name

  CLI::App app2("fusebox");
  GraphCommandOptions explicit_format;
  AddGraphCommand(app2, &explicit_format);
  std::vector<const char*> argv2 = {"fusebox", "graph", "m.hlo", "--format",
                                    "dot",     "--out", "g.png"};
  ASSERT_NO_THROW(app2.parse(static_cast<int>(argv2.size()), argv2.data()));
  EXPECT_EQ(explicit_format.format, "dot");
}

TEST_F(CliGraphTest, ClusterGroupsTheResNetByScope) {
  GraphCommandOptions options;
  options.path = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/graph/resnet50_scoped.hlo";
  options.format = "dot";
  options.out = Out("resnet.dot");
  options.cluster = true;
  std::string err;
  ASSERT_EQ(Run(options, &err), 0) << err;
  std::string dot = ReadFile(options.out);
  // Stages as boxes, blocks as nodes, parameters folded into their users.
  EXPECT_THAT(dot, HasSubstr("id=\"scope_resnet50/stage3\""));
  EXPECT_THAT(dot, HasSubstr("id=\"scope_resnet50/stage3/block6\""));
  EXPECT_THAT(dot, ::testing::Not(HasSubstr("<br/>parameter ")));
  EXPECT_THAT(err, HasSubstr("6 clusters"));
  // --collapse-depth 0: the top level only; --expand-scope opens one stage again.
  options.collapse_depth = 0;
  options.expand_scopes = {"resnet50/stage2"};
  ASSERT_EQ(Run(options, &err), 0) << err;
  dot = ReadFile(options.out);
  EXPECT_THAT(dot, HasSubstr("id=\"scope_resnet50/stage3\", label="));  // a node
  EXPECT_THAT(dot, HasSubstr("id=\"scope_resnet50/stage2\";"));         // a box
  EXPECT_THAT(dot, HasSubstr("id=\"scope_resnet50/stage2/block4\""));
  EXPECT_THAT(err, HasSubstr("1 clusters"));
}

}  // namespace
}  // namespace fusebox::cli
