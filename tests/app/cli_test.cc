// CLI tests: run the real `fusebox` binary and check output and exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace {

using ::testing::HasSubstr;

struct Result {
  int code = -1;
  std::string out;  // stdout and stderr together
};

Result RunFusebox(const std::string& args) {
  std::string cmd = std::string(FUSEBOX_BINARY) + " " + args + " 2>&1";
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string Example(const std::string& name) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CliTest, HelpForEverySubcommand) {
  for (const char* cmd : {"inspect", "print", "verify"}) {
    Result r = RunFusebox(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("FILE")) << cmd;
  }
  Result r = RunFusebox("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("inspect"));
  EXPECT_THAT(RunFusebox("--version").out, HasSubstr("fusebox "));
}

TEST(CliTest, NoSubcommandOrBadFlagIsUserError) {
  EXPECT_EQ(RunFusebox("").code, 1);
  EXPECT_EQ(RunFusebox("inspect").code, 1);  // FILE missing
  EXPECT_EQ(RunFusebox("inspect --bogus x").code, 1);
}

TEST(CliTest, InspectRunningExample) {
  Result r = RunFusebox("inspect " + Example("running_example.hlo"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("f32[16384,16384]"));
  EXPECT_THAT(r.out, HasSubstr("2.0 GiB"));  // two 1 GiB parameters
  EXPECT_THAT(r.out, HasSubstr("reduce"));
  EXPECT_THAT(r.out, HasSubstr("verifier: ok"));
}

TEST(CliTest, InspectJsonCountsFusions) {
  Result r = RunFusebox("inspect --json " + Example("xla_cpu/running_example.after_optimizations.hlo"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"fusion_count\": 2"));
  EXPECT_THAT(r.out, HasSubstr("\"parameter_bytes\": 2147483648"));
}

TEST(CliTest, PrintIsAFixedPoint) {
  Result first = RunFusebox("print " + Example("mnist_train_step.hlo"));
  ASSERT_EQ(first.code, 0) << first.out;
  std::string path = WriteTemp("printed.hlo", first.out);
  Result second = RunFusebox("print " + path);
  ASSERT_EQ(second.code, 0);
  EXPECT_EQ(first.out, second.out);
}

TEST(CliTest, ParseErrorIsFileLineColAndExitOne) {
  std::string path = WriteTemp("bad.hlo", "HloModule m\nENTRY e {\n  p = f32[2 parameter(0)\n}\n");
  Result r = RunFusebox("print " + path);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr(path + ":3:"));
  EXPECT_THAT(r.out, HasSubstr("error:"));
}

TEST(CliTest, VerifierErrorIsExitOne) {
  std::string path = WriteTemp("invalid.hlo",
                               "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[3] "
                               "parameter(1)\n  ROOT c = f32[2] add(a, b)\n}\n");
  Result r = RunFusebox("verify " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr(":5:"));
  EXPECT_THAT(r.out, HasSubstr("%c"));
}

TEST(CliTest, MissingFileDirectoryAndBinaryAreClearErrors) {
  Result missing = RunFusebox("inspect /nonexistent/x.hlo");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.out, HasSubstr("no such file"));
  Result dir = RunFusebox("inspect " + testing::TempDir());
  EXPECT_EQ(dir.code, 1);
  EXPECT_THAT(dir.out, HasSubstr("is a directory"));
  std::string bin = WriteTemp("bin.hlo", std::string("\x1f\x8b\x00\x01", 4));
  Result b = RunFusebox("inspect " + bin);
  EXPECT_EQ(b.code, 1);
  EXPECT_THAT(b.out, HasSubstr("gzip"));
}

TEST(CliTest, MultiModuleFileNeedsNoSelectorForPrintButAcceptsOne) {
  std::string path = WriteTemp("multi.hlo",
                               "HloModule a\nENTRY e { ROOT p = f32[] parameter(0) }\n// -----\n"
                               "HloModule b\nENTRY e { ROOT p = s32[] parameter(0) }\n");
  Result all = RunFusebox("print " + path);
  EXPECT_EQ(all.code, 0);
  EXPECT_THAT(all.out, HasSubstr("HloModule a"));
  EXPECT_THAT(all.out, HasSubstr("HloModule b"));
  Result one = RunFusebox("print --module b " + path);
  EXPECT_EQ(one.code, 0);
  EXPECT_THAT(one.out, ::testing::Not(HasSubstr("HloModule a")));
  EXPECT_EQ(RunFusebox("print --module 7 " + path).code, 1);
}

TEST(CliTest, StrictRejectsUnknownAttributes) {
  std::string path = WriteTemp("unknown_attr.hlo",
                               "HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0), fancy=1\n}\n");
  Result lenient = RunFusebox("print " + path);
  EXPECT_EQ(lenient.code, 0);
  EXPECT_THAT(lenient.out, HasSubstr("warning: unknown attribute 'fancy'"));
  EXPECT_THAT(lenient.out, HasSubstr("fancy=1"));
  EXPECT_EQ(RunFusebox("print --strict " + path).code, 1);
}

}  // namespace
