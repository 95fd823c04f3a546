// ptxas and SASS disassembler wrappers: the `ptxas -v` parser on canned text, the tool
// search, and (where the CUDA toolkit is installed) real runs of ptxas and cuobjdump.
#include "compiler/codegen/ptx_tools.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace fusebox::codegen {
namespace {

// Sets (or unsets) an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A private folder for fake tools, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ptx-tools-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  // Writes an executable shell script and returns its path.
  std::string Script(const std::string& name, const std::string& body) const {
    std::string path = path_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0755);
    return path;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An f32 add kernel, as LLVM 19's NVPTX backend writes one. Line 34 is the add.
std::string AddKernelPtx(const std::string& target, const std::string& add = "add.f32") {
  return R"(.version 7.8
.target )" +
         target + R"(
.address_size 64

.visible .entry add_f32(
	.param .u64 add_f32_param_0,
	.param .u64 add_f32_param_1,
	.param .u64 add_f32_param_2,
	.param .u32 add_f32_param_3
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<6>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<11>;

	ld.param.u64 	%rd1, [add_f32_param_0];
	ld.param.u64 	%rd2, [add_f32_param_1];
	ld.param.u64 	%rd3, [add_f32_param_2];
	ld.param.u32 	%r2, [add_f32_param_3];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd4, %rd1;
	mul.wide.s32 	%rd5, %r1, 4;
	add.s64 	%rd6, %rd4, %rd5;
	cvta.to.global.u64 	%rd7, %rd2;
	add.s64 	%rd8, %rd7, %rd5;
	ld.global.f32 	%f1, [%rd8];
	ld.global.f32 	%f2, [%rd6];
	)" +
         add + R"( 	%f3, %f2, %f1;
	cvta.to.global.u64 	%rd9, %rd3;
	add.s64 	%rd10, %rd9, %rd5;
	st.global.f32 	[%rd10], %f3;
$L__BB0_2:
	ret;
}
)";
}

// Two kernels: one with static shared memory and a barrier.
constexpr const char* kTwoKernelsPtx = R"(.version 7.8
.target sm_80
.address_size 64

.visible .entry smem_kernel(.param .u64 p)
{
	.shared .align 4 .b8 tile[1024];
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	st.shared.u32 [tile], %r1;
	bar.sync 0;
	ld.shared.u32 %r2, [tile+4];
	st.global.u32 [%rd2], %r2;
	ret;
}

.visible .entry store_tid(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	st.global.u32 [%rd2], %r1;
	ret;
}
)";

#define SKIP_WITHOUT_PTXAS()                                     \
  do {                                                           \
    auto ptxas_ = FindPtxas();                                   \
    if (!ptxas_.ok()) GTEST_SKIP() << ptxas_.status().message(); \
  } while (0)

// ---------------------------------------------------------------------------------------
// ParsePtxasInfo on canned text (CUDA 13.0's ptxas wrote all of these)
// ---------------------------------------------------------------------------------------

TEST(ParsePtxasInfoTest, OneKernelSm80) {
  auto kernels = ParsePtxasInfo(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'add_f32' for 'sm_80'\n"
      "ptxas info    : Function properties for add_f32\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 12 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compile time = 2.474 ms");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "add_f32");
  EXPECT_EQ(kernels[0].arch, "sm_80");
  EXPECT_EQ(kernels[0].registers, 12);
  EXPECT_EQ(kernels[0].constant_bytes, 380);
  EXPECT_EQ(kernels[0].shared_bytes, 0);
  EXPECT_EQ(kernels[0].barriers, 0);
  EXPECT_EQ(kernels[0].stack_frame_bytes, 0);
}

TEST(ParsePtxasInfoTest, SeveralKernelsSmemBarriersAndADeviceFunction) {
  // sm_90 prints no cmem; a device function compiled on its own (-c) gets properties but
  // is no kernel.
  auto kernels = ParsePtxasInfo(
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for helper\n"
      "    48 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compile time = 2.130 ms\n"
      "ptxas info    : Compiling entry function 'calls_helper' for 'sm_90'\n"
      "ptxas info    : Function properties for calls_helper\n"
      "    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 13 registers, used 0 barriers, 64 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 1.349 ms\n"
      "ptxas info    : Compiling entry function 'smem_kernel' for 'sm_90'\n"
      "ptxas info    : Function properties for smem_kernel\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compile time = 0.930 ms\n");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "calls_helper");
  EXPECT_EQ(kernels[0].stack_frame_bytes, 64);
  EXPECT_EQ(kernels[0].registers, 13);
  EXPECT_EQ(kernels[0].constant_bytes, 0);
  EXPECT_EQ(kernels[1].name, "smem_kernel");
  EXPECT_EQ(kernels[1].arch, "sm_90");
  EXPECT_EQ(kernels[1].registers, 8);
  EXPECT_EQ(kernels[1].barriers, 1);
  EXPECT_EQ(kernels[1].shared_bytes, 1024);
  EXPECT_EQ(kernels[1].stack_frame_bytes, 0);
}

TEST(ParsePtxasInfoTest, Spills) {
  auto kernels = ParsePtxasInfo(
      "ptxas info    : Overriding maximum register limit 256 for 'spiller' with  24 of "
      "maxrregcount option\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'spiller' for 'sm_80'\n"
      "ptxas info    : Function properties for spiller\n"
      "    800 bytes stack frame, 796 bytes spill stores, 832 bytes spill loads\n"
      "ptxas info    : Used 24 registers, used 0 barriers, 800 bytes cumulative stack size, 368 "
      "bytes cmem[0]\n");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].registers, 24);
  EXPECT_EQ(kernels[0].stack_frame_bytes, 800);
  EXPECT_EQ(kernels[0].spill_store_bytes, 796);
  EXPECT_EQ(kernels[0].spill_load_bytes, 832);
  EXPECT_EQ(kernels[0].constant_bytes, 368);
}

TEST(ParsePtxasInfoTest, OlderFormatsOrderAndPastedOutputs) {
  // Older ptxas: no barriers, smem before cmem, a second constant bank; properties line
  // before the entry line; two runs pasted together without a newline; CRLF; noise.
  auto kernels = ParsePtxasInfo(
      "ptxas info    : Function properties for 'k1':\r\n"
      "    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\r\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_75'\r\n"
      "ptxas info    : Used 10 registers, 256 bytes smem, 348 bytes cmem[0], 4 bytes cmem[2]\r\n"
      "ptxas warning : something harmless\n"
      "ptxas info    : Compile time = 1.0 msptxas info    : Compiling entry function 'k2' for "
      "'sm_90a'\n"
      "ptxas info    : Used 7 registers\n"
      "random text 12 bytes stack frame\n");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "k1");
  EXPECT_EQ(kernels[0].arch, "sm_75");
  EXPECT_EQ(kernels[0].registers, 10);
  EXPECT_EQ(kernels[0].shared_bytes, 256);
  EXPECT_EQ(kernels[0].constant_bytes, 348);
  EXPECT_EQ(kernels[0].stack_frame_bytes, 16);
  EXPECT_EQ(kernels[0].spill_store_bytes, 4);
  EXPECT_EQ(kernels[0].spill_load_bytes, 8);
  EXPECT_EQ(kernels[1].name, "k2");
  EXPECT_EQ(kernels[1].arch, "sm_90a");
  EXPECT_EQ(kernels[1].registers, 7);
  EXPECT_EQ(kernels[1].stack_frame_bytes, 0);
}

TEST(ParsePtxasInfoTest, NothingToReport) {
  EXPECT_TRUE(ParsePtxasInfo("").empty());
  EXPECT_TRUE(ParsePtxasInfo("ptxas info    : 0 bytes gmem\n").empty());
  EXPECT_TRUE(ParsePtxasInfo("ptxas info    : Used 12 registers\n").empty());
}

TEST(FormatPtxasInfoTest, Table) {
  PtxasKernelInfo a{"add_f32", "sm_80", 12, 0, 380, 0, 0, 0, 0};
  PtxasKernelInfo b{"spiller", "sm_80", 24, 1024, 368, 800, 796, 832, 1};
  std::string table = FormatPtxasInfo({a, b});
  EXPECT_EQ(table,
            "kernel   arch   registers  smem  cmem[0]  stack  spill stores  spill loads  barriers\n"
            "add_f32  sm_80         12     0      380      0             0            0         0\n"
            "spiller  sm_80         24  1024      368    800           796          832         1\n"
            "2 kernels, 1 with register spills\n");
  EXPECT_EQ(FormatPtxasInfo({}), "no kernels\n");
}

// ---------------------------------------------------------------------------------------
// Finding the tools
// ---------------------------------------------------------------------------------------

TEST(FindToolsTest, NothingSearchedSaysSo) {
  ToolSearchOptions none{false, false, false, false};
  auto ptxas = FindPtxas(none);
  ASSERT_FALSE(ptxas.ok());
  EXPECT_EQ(ptxas.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(ptxas.status().message(),
            "ptxas not found: looked in nowhere (every search place is turned off)");
}

TEST(FindToolsTest, MessageNamesEveryPlace) {
  ScopedEnv ptxas_env("FUSEBOX_PTXAS", std::nullopt);
  ScopedEnv path("PATH", "/nonexistent-dir");
  ScopedEnv cuda_home("CUDA_HOME", "/nonexistent-cuda");
  ToolSearchOptions search;
  search.use_cuda_dirs = false;  // /usr/local/cuda/bin may hold a real ptxas
  auto ptxas = FindPtxas(search);
  ASSERT_FALSE(ptxas.ok());
  EXPECT_EQ(ptxas.status().message(), "ptxas not found: looked in $FUSEBOX_PTXAS, $PATH");

  search.use_cuda_dirs = true;
  if (!std::filesystem::exists("/usr/local/cuda/bin/ptxas")) {
    auto again = FindPtxas(search);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.status().message(),
              "ptxas not found: looked in $FUSEBOX_PTXAS, /nonexistent-cuda/bin, "
              "/usr/local/cuda/bin, $PATH");
  }
}

TEST(FindToolsTest, EnvironmentVariableWinsAndMustBeExecutable) {
  ScratchDir dir;
  std::string fake = dir.Script("my-ptxas", "exit 0\n");
  {
    ScopedEnv env("FUSEBOX_PTXAS", fake);
    auto found = FindPtxas();
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(*found, fake);
  }
  {
    ScopedEnv env("FUSEBOX_PTXAS", dir.path() + "/missing");
    auto found = FindPtxas();
    ASSERT_FALSE(found.ok());
    EXPECT_EQ(found.status().message(), "$FUSEBOX_PTXAS is set to '" + dir.path() +
                                            "/missing', which is not an executable file");
  }
}

TEST(FindToolsTest, ToolsDirFromTheSetupScript) {
  // The venv layout pip leaves, without setup.sh's links in bin/.
  ScratchDir dir;
  std::filesystem::create_directories(dir.path() + "/lib/python3.11/site-packages/nvidia/cu13/bin");
  std::string nvdisasm =
      dir.Script("lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm", "exit 0\n");
  ScopedEnv tools_dir("FUSEBOX_CUDA_TOOLS_DIR", dir.path());
  EXPECT_EQ(CudaToolsDir(), dir.path());
  ToolSearchOptions search{false, false, true, false};
  auto found = FindSassDisassembler(search);
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->cuobjdump, "");
  EXPECT_EQ(found->nvdisasm, nvdisasm);
}

TEST(FindToolsTest, ToolsDirDefault) {
  ScopedEnv tools_dir("FUSEBOX_CUDA_TOOLS_DIR", std::nullopt);
  ScopedEnv xdg("XDG_DATA_HOME", std::nullopt);
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(CudaToolsDir(), "/home/someone/.local/share/fusebox/cuda-tools");
  ScopedEnv xdg2("XDG_DATA_HOME", "/data");
  EXPECT_EQ(CudaToolsDir(), "/data/fusebox/cuda-tools");
}

// ---------------------------------------------------------------------------------------
// AssemblePtx with a stand-in ptxas (runs everywhere)
// ---------------------------------------------------------------------------------------

TEST(AssemblePtxTest, InvalidArchIsRefusedBeforeRunning) {
  auto result = AssemblePtx(AddKernelPtx("sm_80"), "compute_80");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("invalid GPU arch 'compute_80'"), std::string::npos);
}

TEST(AssemblePtxTest, FailureMessagesNameThePtxNotTheTempFile) {
  ScratchDir dir;
  // Prints what ptxas prints for a bad instruction, naming its last argument (the PTX).
  std::string fake = dir.Script(
      "ptxas",
      "for last; do :; done\n"
      "echo \"ptxas $last, line 34; error   : Not a name of any known instruction: 'addx'\" >&2\n"
      "echo 'ptxas fatal   : Ptx assembly aborted due to errors' >&2\n"
      "exit 255\n");
  ScopedEnv env("FUSEBOX_PTXAS", fake);
  auto result = AssemblePtx("whatever", "sm_80");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "ptxas rejected the PTX for sm_80 (exit 255):\n"
            "ptxas <ptx>, line 34; error   : Not a name of any known instruction: 'addx'\n"
            "ptxas fatal   : Ptx assembly aborted due to errors");
}

TEST(AssemblePtxTest, TimeoutKillsTheTool) {
  ScratchDir dir;
  std::string fake = dir.Script("ptxas", "exec sleep 30\n");
  ScopedEnv env("FUSEBOX_PTXAS", fake);
  PtxasOptions options;
  options.timeout_seconds = 1;
  auto result = AssemblePtx("whatever", "sm_80", options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("did not finish within 1 s"), std::string::npos);
}

TEST(AssemblePtxTest, ReadsTheCubinAndTheInfoLines) {
  ScratchDir dir;
  // Writes "CUBIN" to the file after -o and reports one kernel.
  std::string fake =
      dir.Script("ptxas",
                 "while [ $# -gt 0 ]; do\n"
                 "  if [ \"$1\" = -o ]; then printf CUBIN > \"$2\"; fi\n"
                 "  shift\n"
                 "done\n"
                 "echo \"ptxas info    : Compiling entry function 'k' for 'sm_86'\" >&2\n"
                 "echo 'ptxas info    : Used 5 registers, used 0 barriers' >&2\n");
  ScopedEnv env("FUSEBOX_PTXAS", fake);
  auto result = AssemblePtx("whatever", "sm_86");
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->cubin, "CUBIN");
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].name, "k");
  EXPECT_EQ(result->kernels[0].registers, 5);
}

// The cache: a second identical assembly reads the cubin instead of running ptxas; a
// change of PTX, arch or options runs it again; a damaged entry is replaced. The fake
// ptxas counts its runs and records its arguments.
TEST(AssemblePtxTest, CacheByContentAndSplitCompileThreads) {
  ScratchDir dir;
  const std::string runs = dir.path() + "/runs";
  std::string fake =
      dir.Script("ptxas",
                 "echo \"$@\" >> '" + runs + "'\n"
                 "while [ $# -gt 0 ]; do\n"
                 "  if [ \"$1\" = -o ]; then printf '\\177ELFcubin' > \"$2\"; fi\n"
                 "  shift\n"
                 "done\n"
                 "echo \"ptxas info    : Compiling entry function 'k' for 'sm_90'\" >&2\n"
                 "echo 'ptxas info    : Used 7 registers, used 0 barriers' >&2\n");
  ScopedEnv env("FUSEBOX_PTXAS", fake);
  auto count_runs = [&] {
    std::ifstream in(runs);
    int n = 0;
    for (std::string line; std::getline(in, line);) ++n;
    return n;
  };
  PtxasOptions options;
  options.cache_dir = dir.path() + "/cache";
  auto first = AssemblePtx("ptx one", "sm_90", options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_FALSE(first->from_cache);
  EXPECT_EQ(count_runs(), 1);
  auto second = AssemblePtx("ptx one", "sm_90", options);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(count_runs(), 1) << "the cached cubin was not used";
  EXPECT_EQ(second->cubin, first->cubin);
  ASSERT_EQ(second->kernels.size(), 1u);
  EXPECT_EQ(second->kernels[0].registers, 7);
  // Anything that decides the cubin is part of the key.
  ASSERT_TRUE(AssemblePtx("ptx two", "sm_90", options).ok());
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_80", options).ok());
  options.opt_level = 1;
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", options).ok());
  EXPECT_EQ(count_runs(), 4);
  // A damaged entry (not an ELF file) is assembled again and replaced.
  for (const auto& entry : std::filesystem::directory_iterator(options.cache_dir)) {
    if (entry.path().extension() == ".cubin") std::ofstream(entry.path()) << "garbage";
  }
  auto repaired = AssemblePtx("ptx one", "sm_90", options);
  ASSERT_TRUE(repaired.ok());
  EXPECT_FALSE(repaired->from_cache);
  EXPECT_EQ(repaired->cubin, first->cubin);
  EXPECT_EQ(count_runs(), 5);
  // All CPUs optimize functions at once unless told otherwise; no cache without a folder.
  std::ifstream in(runs);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("--split-compile=0"), std::string::npos) << line;
  PtxasOptions plain;
  plain.threads = 1;
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", plain).ok());
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", plain).ok());
  EXPECT_EQ(count_runs(), 7);
  std::string last;
  for (std::ifstream again(runs); std::getline(again, line);) last = line;
  EXPECT_EQ(last.find("--split-compile"), std::string::npos) << last;
}

// With a compile trace, each call is a "ptxas" span saying whether the cache served it.
TEST(AssemblePtxTest, EachCallIsATracedSpanWithTheCacheOutcome) {
  ScratchDir dir;
  std::string fake = dir.Script("ptxas",
                                "while [ $# -gt 0 ]; do\n"
                                "  if [ \"$1\" = -o ]; then printf '\\177ELFcubin' > \"$2\"; fi\n"
                                "  shift\n"
                                "done\n");
  ScopedEnv env("FUSEBOX_PTXAS", fake);
  CompileTrace trace;
  PtxasOptions options;
  options.cache_dir = dir.path() + "/cache";
  options.trace = &trace;
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", options).ok());
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", options).ok());
  options.cache_dir.clear();
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", options).ok());
  const std::vector<CompileSpan> spans = trace.Spans();
  ASSERT_EQ(spans.size(), 3u);
  std::vector<std::string> outcomes;
  for (const CompileSpan& s : spans) {
    EXPECT_EQ(s.category, compile_category::kPtxas);
    EXPECT_EQ(s.Arg("arch"), "sm_90");
    EXPECT_EQ(s.Arg("ptx_bytes"), "7");
    outcomes.emplace_back(s.Arg("cache"));
  }
  EXPECT_EQ(outcomes, (std::vector<std::string>{"miss", "hit", "off"}));
  options.trace = nullptr;
  ASSERT_TRUE(AssemblePtx("ptx one", "sm_90", options).ok());
  EXPECT_EQ(trace.size(), 3u) << "an untraced call recorded a span";
}

// ---------------------------------------------------------------------------------------
// The real ptxas (CUDA 13 at /usr/local/cuda where installed)
// ---------------------------------------------------------------------------------------

TEST(RealPtxasTest, AssemblesAddKernelForSm80AndSm90) {
  SKIP_WITHOUT_PTXAS();
  for (const std::string arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    auto result = AssemblePtx(AddKernelPtx(arch), arch);
    ASSERT_TRUE(result.ok()) << result.status().message();
    ASSERT_GE(result->cubin.size(), 4u);
    EXPECT_EQ(result->cubin.substr(0, 4),
              "\x7f"
              "ELF");
    ASSERT_EQ(result->kernels.size(), 1u) << result->log;
    EXPECT_EQ(result->kernels[0].name, "add_f32");
    EXPECT_EQ(result->kernels[0].arch, arch);
    EXPECT_GT(result->kernels[0].registers, 0);
    EXPECT_EQ(result->kernels[0].spill_store_bytes, 0);
    EXPECT_EQ(result->log.find("/tmp"), std::string::npos) << result->log;
  }
}

TEST(RealPtxasTest, SharedMemoryAndBarriers) {
  SKIP_WITHOUT_PTXAS();
  auto result = AssemblePtx(kTwoKernelsPtx, "sm_80");
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_EQ(result->kernels.size(), 2u) << result->log;
  // ptxas does not report kernels in the PTX's order.
  auto find = [&](const std::string& name) -> const PtxasKernelInfo& {
    return result->kernels[0].name == name ? result->kernels[0] : result->kernels[1];
  };
  EXPECT_EQ(find("smem_kernel").name, "smem_kernel");
  EXPECT_EQ(find("smem_kernel").shared_bytes, 1024);
  EXPECT_EQ(find("smem_kernel").barriers, 1);
  EXPECT_EQ(find("store_tid").name, "store_tid");
  EXPECT_EQ(find("store_tid").shared_bytes, 0);
  EXPECT_EQ(find("store_tid").barriers, 0);
  std::string table = FormatPtxasInfo(result->kernels);
  EXPECT_NE(table.find("smem_kernel  sm_80"), std::string::npos) << table;
}

TEST(RealPtxasTest, SyntaxErrorNamesThePtxLine) {
  SKIP_WITHOUT_PTXAS();
  auto result = AssemblePtx(AddKernelPtx("sm_80", "addx.f32"), "sm_80");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  const std::string& message = result.status().message();
  EXPECT_NE(message.find("ptxas <ptx>, line 34; error"), std::string::npos) << message;
  EXPECT_NE(message.find("addx"), std::string::npos) << message;
  EXPECT_EQ(message.find("/tmp"), std::string::npos) << message;
  EXPECT_EQ(message.find("ptxas info"), std::string::npos) << message;
}

TEST(RealPtxasTest, Sm70IsRefused) {
  SKIP_WITHOUT_PTXAS();
  auto result = AssemblePtx(AddKernelPtx("sm_70"), "sm_70");
  if (result.ok()) GTEST_SKIP() << "this ptxas still supports sm_70 (older than CUDA 13)";
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("does not support sm_70"), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("sm_75"), std::string::npos);
}

TEST(RealPtxasTest, TargetNewerThanArch) {
  SKIP_WITHOUT_PTXAS();
  auto result = AssemblePtx(AddKernelPtx("sm_90"), "sm_80");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("newer GPU than sm_80"), std::string::npos)
      << result.status().message();
}

// ---------------------------------------------------------------------------------------
// SASS
// ---------------------------------------------------------------------------------------

TEST(DisassembleCubinTest, NoDisassemblerSaysHowToGetOne) {
  SassOptions options;
  options.search = ToolSearchOptions{false, false, false, false};
  auto sass = DisassembleCubin(
      "\x7f"
      "ELF",
      "sm_80", options);
  ASSERT_FALSE(sass.ok());
  EXPECT_EQ(sass.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(sass.status().message(),
            "SASS unavailable: no cuobjdump or nvdisasm found (looked in nowhere (every search "
            "place is turned off)); run scripts/setup.sh --with-cuda-tools to install "
            "nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm from PyPI");
}

TEST(DisassembleCubinTest, MissingOverrideIsNamed) {
  ScopedEnv env("FUSEBOX_CUOBJDUMP", "/nonexistent/cuobjdump");
  auto sass = DisassembleCubin(
      "\x7f"
      "ELF",
      "sm_80");
  ASSERT_FALSE(sass.ok());
  EXPECT_EQ(sass.status().message(),
            "SASS unavailable: $FUSEBOX_CUOBJDUMP is set to '/nonexistent/cuobjdump', which is "
            "not an executable file");
}

TEST(DisassembleCubinTest, NotFoundListsThePlaces) {
  ScopedEnv cuobjdump("FUSEBOX_CUOBJDUMP", std::nullopt);
  ScopedEnv nvdisasm("FUSEBOX_NVDISASM", std::nullopt);
  ScopedEnv path("PATH", "/nonexistent-dir");
  ScopedEnv tools_dir("FUSEBOX_CUDA_TOOLS_DIR", "/nonexistent-tools");
  SassOptions options;
  options.search.use_cuda_dirs = false;
  auto sass = DisassembleCubin(
      "\x7f"
      "ELF",
      "sm_80", options);
  ASSERT_FALSE(sass.ok());
  EXPECT_EQ(
      sass.status().message(),
      "SASS unavailable: no cuobjdump or nvdisasm found (looked in $FUSEBOX_CUOBJDUMP, "
      "$FUSEBOX_NVDISASM, /nonexistent-tools, $PATH); run scripts/setup.sh "
      "--with-cuda-tools to install nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm from PyPI");
}

TEST(DisassembleCubinTest, RealCubin) {
  SKIP_WITHOUT_PTXAS();
  auto tools = FindSassDisassembler();
  if (!tools.ok()) GTEST_SKIP() << tools.status().message();
  auto assembled = AssemblePtx(AddKernelPtx("sm_80"), "sm_80");
  ASSERT_TRUE(assembled.ok()) << assembled.status().message();
  auto sass = DisassembleCubin(assembled->cubin, "sm_80");
  ASSERT_TRUE(sass.ok()) << sass.status().message();
  EXPECT_NE(sass->find("add_f32"), std::string::npos) << *sass;
  EXPECT_NE(sass->find("EXIT"), std::string::npos) << *sass;

  auto wrong_arch = DisassembleCubin(assembled->cubin, "sm_90");
  ASSERT_FALSE(wrong_arch.ok());
  EXPECT_EQ(wrong_arch.status().message(), "the cubin holds code for sm_80, not sm_90");

  auto not_elf = DisassembleCubin("not a cubin", "");
  ASSERT_FALSE(not_elf.ok());
  EXPECT_EQ(not_elf.status().message().find("/tmp"), std::string::npos)
      << not_elf.status().message();
}

}  // namespace
}  // namespace fusebox::codegen
