// Golden tests: every tests/golden/*.hlo is compiled by the real `fusebox` binary to the
// stage its `// STAGE:` line names, and the printed stage is matched by LLVM FileCheck
// against the `// CHECK...` patterns in the same file (the way XLA's and LLVM's lit tests
// work, without lit). `// FLAGS:` adds flags to the compile command. Skipped when no
// FileCheck binary is installed (llvm-19-tools).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out;
};

// Runs `cmd` through the shell; the output is whatever the command sends to stdout.
Result RunShell(const std::string& cmd) {
  Result r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Single-quoted for /bin/sh, so paths with spaces or quotes survive.
std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

fs::path GoldenDir() { return fs::path(FUSEBOX_SOURCE_DIR) / "tests" / "golden"; }

// FileCheck from $FILECHECK, then PATH (FileCheck-19, FileCheck), then LLVM 19's own folder.
std::string FindFileCheck() {
  auto executable = [](const fs::path& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
  if (const char* env = std::getenv("FILECHECK"); env != nullptr && executable(env)) return env;
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
      if (!dir.empty()) dirs.emplace_back(dir);
    }
  }
  for (const char* name : {"FileCheck-19", "FileCheck"}) {
    for (const fs::path& dir : dirs) {
      if (executable(dir / name)) return (dir / name).string();
    }
  }
  for (const char* p : {"/usr/lib/llvm-19/bin/FileCheck", "/usr/bin/FileCheck-19"}) {
    if (executable(p)) return p;
  }
  return "";
}

// The value after `// KEY:` on the first line that has one ("" when none).
std::string Directive(const std::string& text, const std::string& key) {
  const std::string marker = "// " + key + ":";
  std::stringstream ss(text);
  std::string line;
  while (std::getline(ss, line)) {
    size_t at = line.find(marker);
    if (at == std::string::npos) continue;
    std::string value = line.substr(at + marker.size());
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    return value;
  }
  return "";
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(GoldenDir(), ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") files.push_back(entry.path().filename());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct FileCheckRun {
  Result fusebox;    // exit code and stderr of the compile; the stage text goes to `stage`
  std::string stage;
  Result filecheck;  // exit code and diagnostics of FileCheck
};

// Compiles `hlo_path` to `stage` with the binary and matches the printout against the
// patterns of `check_path`.
FileCheckRun CompileAndCheck(const std::string& filecheck, const fs::path& hlo_path, const std::string& stage,
                             const std::string& flags, const fs::path& check_path, const std::string& tag) {
  FileCheckRun run;
  const fs::path out = fs::path(testing::TempDir()) / ("golden_" + tag + ".out");
  const fs::path err = fs::path(testing::TempDir()) / ("golden_" + tag + ".err");
  std::string cmd = ShellQuote(FUSEBOX_BINARY) + " compile " + ShellQuote(hlo_path.string()) + " --stage " +
                    ShellQuote(stage) + (flags.empty() ? "" : " " + flags) + " > " + ShellQuote(out.string()) +
                    " 2> " + ShellQuote(err.string());
  run.fusebox = RunShell(cmd);
  run.fusebox.out = ReadFile(err);
  run.stage = ReadFile(out);
  if (run.fusebox.code != 0) return run;
  run.filecheck = RunShell(ShellQuote(filecheck) + " --dump-input=fail --input-file=" + ShellQuote(out.string()) +
                           " " + ShellQuote(check_path.string()) + " 2>&1");
  return run;
}

class GoldenTest : public testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, StageMatchesCheckPatterns) {
  const std::string filecheck = FindFileCheck();
  if (filecheck.empty()) GTEST_SKIP() << "FileCheck not found (install llvm-19-tools, or set FILECHECK)";
  const fs::path path = GoldenDir() / GetParam();
  const std::string text = ReadFile(path);
  const std::string stage = Directive(text, "STAGE");
  ASSERT_FALSE(stage.empty()) << path << " has no '// STAGE: <stage>' line";
  ASSERT_THAT(text, testing::HasSubstr("CHECK")) << path << " has no FileCheck patterns";
  const std::string tag = fs::path(GetParam()).stem().string();
  FileCheckRun run = CompileAndCheck(filecheck, path, stage, Directive(text, "FLAGS"), path, tag);
  ASSERT_EQ(run.fusebox.code, 0) << "fusebox compile " << path << " --stage " << stage << " failed:\n"
                                 << run.fusebox.out;
  EXPECT_EQ(run.filecheck.code, 0) << "FileCheck failed for " << path << ":\n" << run.filecheck.out;
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest, testing::ValuesIn(GoldenFiles()), TestName);

TEST(GoldenHarnessTest, FindsTheGoldenFiles) {
  std::vector<std::string> files = GoldenFiles();
  EXPECT_GE(files.size(), 4u) << "expected the golden .hlo files in " << GoldenDir();
  for (const std::string& f : files) {
    EXPECT_FALSE(Directive(ReadFile(GoldenDir() / f), "STAGE").empty()) << f;
  }
}

// The harness must fail when the patterns do not match: a pattern that the IR never
// contains is reported with FileCheck's diagnostic, naming the pattern.
TEST(GoldenHarnessTest, MismatchIsReported) {
  const std::string filecheck = FindFileCheck();
  if (filecheck.empty()) GTEST_SKIP() << "FileCheck not found (install llvm-19-tools, or set FILECHECK)";
  const fs::path path = fs::path(testing::TempDir()) / "golden_mismatch.hlo";
  std::ofstream(path) << "// STAGE: llvm_ir\n"
                         "// CHECK: define void @no_such_kernel(\n"
                         "HloModule m\nENTRY e {\n  x = f32[8] parameter(0)\n  ROOT n = f32[8] negate(x)\n}\n";
  FileCheckRun run = CompileAndCheck(filecheck, path, "llvm_ir", "", path, "mismatch");
  ASSERT_EQ(run.fusebox.code, 0) << run.fusebox.out;
  EXPECT_THAT(run.stage, testing::HasSubstr("define void @n.kernel("));
  EXPECT_NE(run.filecheck.code, 0);
  EXPECT_THAT(run.filecheck.out, testing::HasSubstr("no_such_kernel"));
}

// The same patterns hold for the fused module and fail for the unfused one: the elementwise
// golden really pins the fusion, not just any IR.
TEST(GoldenHarnessTest, ElementwiseChainPatternsRejectUnfusedIr) {
  const std::string filecheck = FindFileCheck();
  if (filecheck.empty()) GTEST_SKIP() << "FileCheck not found (install llvm-19-tools, or set FILECHECK)";
  const fs::path path = GoldenDir() / "elementwise_chain.hlo";
  FileCheckRun run = CompileAndCheck(filecheck, path, "llvm_ir", "--disable-pass fusion,multi-output-fusion", path,
                                     "unfused_chain");
  ASSERT_EQ(run.fusebox.code, 0) << run.fusebox.out;
  EXPECT_NE(run.filecheck.code, 0) << run.stage;
}

}  // namespace
