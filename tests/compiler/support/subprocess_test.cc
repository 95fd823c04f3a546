// Child processes: input fed in, output and errors captured apart or together, exit
// codes and signals, timeouts and cancels that kill, and no SIGPIPE for this process when
// a child stops reading its input.
#include "compiler/support/subprocess.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "compiler/support/timer.h"

namespace fusebox {
namespace {

ProcessResult MustRun(const ProcessOptions& options) {
  auto run = RunProcess(options);
  EXPECT_TRUE(run.ok()) << run.status().message();
  return run.ok() ? *run : ProcessResult();
}

std::string Shell() { return FindProgram("sh"); }

TEST(SubprocessTest, FindsProgramsInPathAndRejectsWhatIsNotOne) {
  const std::string sh = Shell();
  ASSERT_FALSE(sh.empty());
  EXPECT_EQ(sh.front(), '/');
  EXPECT_EQ(FindProgram(sh), sh);
  EXPECT_EQ(FindProgram("fusebox-no-such-program-anywhere"), "");
  EXPECT_EQ(FindProgram("/tmp"), "") << "a folder is not a program";
  EXPECT_EQ(FindProgram(""), "");
}

TEST(SubprocessTest, InputGoesInAndOutputComesBackLargeBothWays) {
  // 8 MiB each way: more than a pipe holds, so writing and reading must interleave.
  std::string input;
  for (int i = 0; input.size() < (8u << 20); ++i) input += "line " + std::to_string(i) + "\n";
  ProcessOptions options;
  options.argv = {FindProgram("cat")};
  options.input = input;
  ProcessResult run = MustRun(options);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output.size(), input.size());
  EXPECT_TRUE(run.output == input);
}

TEST(SubprocessTest, ErrorsApartOrMergedAndTheExitCode) {
  ProcessOptions options;
  options.argv = {Shell(), "-c", "echo out; echo err >&2; exit 3"};
  options.merge_stderr = false;
  ProcessResult apart = MustRun(options);
  EXPECT_EQ(apart.exit_code, 3);
  EXPECT_EQ(apart.output, "out\n");
  EXPECT_EQ(apart.errors, "err\n");
  options.merge_stderr = true;
  ProcessResult merged = MustRun(options);
  EXPECT_EQ(merged.output, "out\nerr\n");
  EXPECT_EQ(merged.errors, "");
}

TEST(SubprocessTest, EnvironmentOverridesReplaceAndExtend) {
  ProcessOptions options;
  options.argv = {Shell(), "-c", "echo \"$HOME|$FUSEBOX_SUBPROCESS_TEST\""};
  options.env_overrides = {"HOME=/nowhere", "FUSEBOX_SUBPROCESS_TEST=yes"};
  EXPECT_EQ(MustRun(options).output, "/nowhere|yes\n");
}

TEST(SubprocessTest, TimeoutKills) {
  ProcessOptions options;
  options.argv = {Shell(), "-c", "sleep 30"};
  options.timeout_seconds = 0.3;
  Stopwatch watch;
  ProcessResult run = MustRun(options);
  EXPECT_TRUE(run.timed_out);
  EXPECT_EQ(run.signal, 9);
  EXPECT_EQ(run.exit_code, -1);
  EXPECT_LT(watch.ElapsedSeconds(), 5);
}

TEST(SubprocessTest, CancelKillsWithinAPollInterval) {
  std::atomic<bool> cancel{false};
  ProcessOptions options;
  options.argv = {Shell(), "-c", "sleep 30"};
  options.timeout_seconds = 0;  // no limit: only the cancel ends it
  options.cancel = &cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  Stopwatch watch;
  ProcessResult run = MustRun(options);
  canceller.join();
  EXPECT_TRUE(run.cancelled);
  EXPECT_FALSE(run.timed_out);
  EXPECT_LT(watch.ElapsedSeconds(), 5);
}

TEST(SubprocessTest, AChildThatIgnoresItsInputDoesNotRaiseSigpipeHere) {
  // `true` exits without reading: writing the rest of 4 MiB fails with EPIPE. Without the
  // blocked signal this test process would die of SIGPIPE.
  ProcessOptions options;
  options.argv = {FindProgram("true")};
  options.input = std::string(4u << 20, 'x');
  ProcessResult run = MustRun(options);
  EXPECT_EQ(run.exit_code, 0);
}

TEST(SubprocessTest, AMissingProgramIsAnErrorNamingIt) {
  ProcessOptions options;
  options.argv = {"/nonexistent/fusebox-tool"};
  auto run = RunProcess(options);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("/nonexistent/fusebox-tool"), std::string::npos);
  EXPECT_FALSE(RunProcess(ProcessOptions()).ok());
}

}  // namespace
}  // namespace fusebox
