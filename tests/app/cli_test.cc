// CLI tests: run the real `fusebox` binary and check output and exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

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
  // `fusebox` alone opens the workbench; without a display that is a clear error.
  Result alone;
  {
    std::string cmd = "env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(FUSEBOX_BINARY) + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) alone.out.append(buf.data(), n);
    int status = pclose(pipe);
    alone.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  EXPECT_EQ(alone.code, 1);
  EXPECT_THAT(alone.out, HasSubstr("cannot open a window"));
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
  // A folder is read as an XLA dump folder; one without dump files says so.
  EXPECT_THAT(dir.out, HasSubstr("no XLA dump files here"));
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

namespace {

TEST(CliRunTest, RunsAnExampleOnTheInterpreterAndPrints) {
  std::string hlo = WriteTemp("small.hlo",
                              "HloModule small\nENTRY e {\n  x = f32[3] parameter(0)\n"
                              "  c = f32[] constant(2)\n  b = f32[3] broadcast(c), dimensions={}\n"
                              "  ROOT m = f32[3] multiply(x, b)\n}\n");
  Result r = RunFusebox("run " + hlo + " --backend interpreter --seed 3 --print");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("output: f32[3] {"));
  EXPECT_THAT(r.out, HasSubstr("on the interpreter"));
}

TEST(CliRunTest, SavedInputsReplayToTheSameOutputs) {
  std::string dir1 = testing::TempDir() + "/run1", dir2 = testing::TempDir() + "/run2";
  Result first = RunFusebox("run " + Example("mnist_train_step.hlo") +
                            " --seed 5 --save-inputs --output-dir " + dir1);
  ASSERT_EQ(first.code, 0) << first.out;
  std::string inputs;
  for (int i = 0; i < 64; ++i) {
    std::string path = dir1 + "/input_" + std::to_string(i) + ".npy";
    if (!std::ifstream(path)) break;
    inputs += (inputs.empty() ? "" : ",") + path;
  }
  ASSERT_FALSE(inputs.empty());
  Result second = RunFusebox("run " + Example("mnist_train_step.hlo") + " --inputs " + inputs +
                             " --output-dir " + dir2);
  ASSERT_EQ(second.code, 0) << second.out;
  for (int i = 0; i < 64; ++i) {
    std::string name = "/output_" + std::to_string(i) + ".npy";
    std::ifstream a(dir1 + name, std::ios::binary), b(dir2 + name, std::ios::binary);
    if (!a) break;
    std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(sa, sb) << name;
  }
}

TEST(CliRunTest, WrongInputsAreClearErrors) {
  std::string hlo = WriteTemp("two.hlo",
                              "HloModule two\nENTRY e {\n  x = f32[2] parameter(0)\n"
                              "  y = f32[2] parameter(1)\n  ROOT s = f32[2] add(x, y)\n}\n");
  std::string dir = testing::TempDir() + "/one_run";
  ASSERT_EQ(RunFusebox("run " + Example("reduce_sum.hlo") + " --seed 1 --output-dir " + dir).code, 0);
  Result count = RunFusebox("run " + hlo + " --inputs " + dir + "/output.npy");
  EXPECT_EQ(count.code, 1);
  EXPECT_THAT(count.out, HasSubstr("takes 2 parameter(s)"));
  Result shape = RunFusebox("run " + hlo + " --inputs " + dir + "/output.npy," + dir + "/output.npy");
  EXPECT_EQ(shape.code, 1);
  EXPECT_THAT(shape.out, HasSubstr("output.npy"));
  Result backend = RunFusebox("run " + hlo + " --backend tpu");
  EXPECT_EQ(backend.code, 1);
}

TEST(CliRunTest, UnsupportedOpNamesFileLineAndExitsOne) {
  std::string hlo = WriteTemp("cc.hlo",
                              "HloModule cc\nENTRY e {\n  x = f32[2] parameter(0)\n"
                              "  ROOT c = f32[2] custom-call(x), custom_call_target=\"mystery\"\n}\n");
  Result r = RunFusebox("run " + hlo);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr(hlo + ":4:8: %c (custom-call)"));
}

}  // namespace

namespace {

TEST(CliCompileTest, SeedProgramFusesIntoOneKernel) {
  std::string out = testing::TempDir() + "/opt.hlo";
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " -o " + out);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("3 kernels"));
  EXPECT_THAT(r.out, HasSubstr("1 kernel (fusion(kInput) 1) after"));
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_THAT(text, HasSubstr("kind=kInput, calls=%fused_computation"));
  // The optimized module is valid input again.
  EXPECT_EQ(RunFusebox("verify " + out).code, 0);
}

TEST(CliCompileTest, DumpToWritesXlaLayout) {
  std::string dir = testing::TempDir() + "/dump_cli";
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --dump-to " + dir +
                        " --dump-pass-re fusion");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(std::ifstream(dir + "/module_0000.jit_reduce_sum.before_optimizations.txt").good());
  EXPECT_TRUE(std::ifstream(dir + "/module_0000.jit_reduce_sum.cpu_after_optimizations.txt").good());
  EXPECT_TRUE(std::ifstream(dir + "/module_0000.jit_reduce_sum.fusion_decisions.json").good());
  Result ls = RunFusebox("inspect " + dir + "/module_0000.jit_reduce_sum.cpu_after_optimizations.txt");
  EXPECT_EQ(ls.code, 0) << ls.out;
}

// --source-map: the JSON names, for an instruction inside the fusion, the fusion and the
// code made for it; each code name is defined in the stage the CLI prints.
TEST(CliCompileTest, SourceMapLinksInstructionsToCode) {
  const std::string path = testing::TempDir() + "/running_example.source_map.json";
  std::remove(path.c_str());
  Result r = RunFusebox("compile " + Example("running_example.hlo") + " --source-map " + path + " -o /dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("wrote the source map to " + path));
  std::ifstream in(path);
  nlohmann::json map = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(map.is_discarded());
  EXPECT_EQ(map["schema"], "fusebox.source_map/2");
  bool found = false;
  for (const auto& inst : map["instructions"]) {
    if (inst["name"] == "mul.3") {
      found = true;
      EXPECT_EQ(inst["kernel"], "fusion");
      EXPECT_EQ(inst["gpu_kernel"], "fusion");
    }
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(map["kernels"].size(), 1u) << map.dump(1);
  const auto& kernel = map["kernels"][0];
  EXPECT_EQ(kernel["name"], "fusion");
  EXPECT_EQ(kernel["cpu"]["llvm_functions"], nlohmann::json({"fusion.kernel", "fusion.partials"}));
  EXPECT_EQ(kernel["cpu"]["trace_names"], nlohmann::json({"fusion"}));
  // The GPU's kernels are those of gpu_optimized_hlo (here the same fusion).
  ASSERT_EQ(map["gpu_kernels"].size(), 1u) << map.dump(1);
  const auto& gpu_kernel = map["gpu_kernels"][0];
  EXPECT_EQ(gpu_kernel["name"], "fusion");
  EXPECT_EQ(gpu_kernel["gpu"]["ptx_entries"], nlohmann::json({"fusion_kernel"}));
  EXPECT_EQ(gpu_kernel["library_call"], nullptr);
  EXPECT_EQ(gpu_kernel["locations"]["fusion"][0]["stage"], "gpu_optimized_hlo");
  Result ll = RunFusebox("compile " + Example("running_example.hlo") + " --stage llvm_ir");
  Result ptx = RunFusebox("compile " + Example("running_example.hlo") + " --stage ptx");
  for (const auto& f : kernel["cpu"]["llvm_functions"]) {
    EXPECT_THAT(ll.out, HasSubstr("define void @" + f.get<std::string>() + "("));
  }
  for (const auto& e : gpu_kernel["gpu"]["ptx_entries"]) {
    EXPECT_THAT(ptx.out, HasSubstr(".entry " + e.get<std::string>() + "("));
  }
  Result bad = RunFusebox("compile " + Example("running_example.hlo") + " --source-map /no/such/dir/map.json");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr("/no/such/dir/map.json: cannot write"));
}

TEST(CliCompileTest, DisabledFusionKeepsThreeKernelsAndUnknownPassIsAnError) {
  Result r = RunFusebox("compile " + Example("reduce_sum.hlo") + " --disable-pass fusion,multi-output-fusion");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("3 kernels (add 1, multiply 1, reduce 1) after"));
  Result bad = RunFusebox("compile " + Example("reduce_sum.hlo") + " --disable-pass no-such-pass");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.out, HasSubstr("no pass named 'no-such-pass'"));
}

// --backend gpu compiles the module the GPU runs: with --gpu-library=on (the default, as
// `run --backend gpu`) MNIST's dots are cuBLAS calls in gpu_optimized_hlo, which
// `--stage optimized_hlo --backend gpu` prints, and the ptx stage's header names them.
TEST(CliCompileTest, GpuStagesWithAndWithoutLibraries) {
  const std::string mnist = Example("mnist_train_step.hlo");
  Result on = RunFusebox("compile " + mnist + " --backend gpu");
  ASSERT_EQ(on.code, 0) << on.out;
  EXPECT_THAT(on.out, HasSubstr("custom_call_target=\"__cublas$gemm\""));
  EXPECT_THAT(on.out, HasSubstr("after (GPU module, with GPU libraries)"));
  EXPECT_THAT(on.out, HasSubstr("of them library calls"));
  EXPECT_THAT(on.out, HasSubstr("pass gemm-rewriter"));
  EXPECT_THAT(on.out, ::testing::Not(HasSubstr(" dot(")));
  Result named = RunFusebox("compile " + mnist + " --stage gpu_optimized_hlo");
  ASSERT_EQ(named.code, 0) << named.out;
  EXPECT_THAT(named.out, HasSubstr("__cublas$gemm"));
  Result cpu = RunFusebox("compile " + mnist + " --stage optimized_hlo");
  ASSERT_EQ(cpu.code, 0) << cpu.out;
  EXPECT_THAT(cpu.out, ::testing::Not(HasSubstr("__cublas$")));
  EXPECT_THAT(cpu.out, HasSubstr(" dot("));

  Result off = RunFusebox("compile " + mnist + " --backend gpu --gpu-library=off");
  ASSERT_EQ(off.code, 0) << off.out;
  EXPECT_THAT(off.out, ::testing::Not(HasSubstr("__cublas$")));
  EXPECT_THAT(off.out, HasSubstr(" dot("));
  EXPECT_THAT(off.out, HasSubstr("after (GPU module, --gpu-library=off)"));

  Result ptx = RunFusebox("compile " + mnist + " --stage ptx");
  ASSERT_EQ(ptx.code, 0) << ptx.out;
  EXPECT_THAT(ptx.out, HasSubstr("// Library calls (no kernel here"));
  EXPECT_THAT(ptx.out, HasSubstr("(__cublas$gemm, for %dot"));
  // f32 gemms run through cuBLASLt, so that their algorithms are autotuned.
  EXPECT_THAT(ptx.out, HasSubstr(") -> cuBLASLt cublasLtMatmul m="));
  EXPECT_THAT(ptx.out, ::testing::Not(HasSubstr("dot(skinny)")));
  Result ptx_off = RunFusebox("compile " + mnist + " --stage ptx --gpu-library=off");
  ASSERT_EQ(ptx_off.code, 0) << ptx_off.out;
  EXPECT_THAT(ptx_off.out, HasSubstr("dot(skinny)"));
  EXPECT_THAT(ptx_off.out, ::testing::Not(HasSubstr("// Library calls")));

  Result bad = RunFusebox("compile " + mnist + " --backend gpu --gpu-library=maybe");
  EXPECT_NE(bad.code, 0);
  EXPECT_THAT(bad.out, HasSubstr("--gpu-library"));
  Result list = RunFusebox("compile " + mnist + " --list-stages");
  ASSERT_EQ(list.code, 0) << list.out;
  EXPECT_THAT(list.out, HasSubstr("buffer_assignment\ngpu_optimized_hlo\ngpu_llvm_ir\n"));
  Result help = RunFusebox("compile --help");
  EXPECT_THAT(help.out, HasSubstr("--gpu-library"));
  EXPECT_THAT(help.out, HasSubstr("gpu_optimized_hlo"));
}

// --backend gpu --dump-to: XLA GPU's layout, the GPU module as <arch>_gpu_after_optimizations.
TEST(CliCompileTest, GpuDumpFollowsXlaGpuNames) {
  const std::string dir = testing::TempDir() + "/gpu_dump_mnist";
  std::filesystem::remove_all(dir);
  Result r = RunFusebox("compile " + Example("mnist_train_step.hlo") + " --backend gpu --dump-to " + dir +
                        " -o /dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string prefix = dir + "/module_0000.jit_mnist_train_step";
  std::ifstream after(prefix + ".sm_9.0_gpu_after_optimizations.txt");
  ASSERT_TRUE(after.good()) << r.out;
  std::stringstream text;
  text << after.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("__cublas$gemm"));
  EXPECT_TRUE(std::ifstream(prefix + ".before_optimizations.txt").good());
  EXPECT_TRUE(std::ifstream(prefix + ".ptx").good());
  EXPECT_TRUE(std::ifstream(prefix + ".ir-with-opt.ll").good());
  EXPECT_FALSE(std::ifstream(prefix + ".cpu_after_optimizations.txt").good());
  bool gpu_pass_file = false;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    gpu_pass_file |= entry.path().filename().string().find(".gpu-optimizations.after_gemm-rewriter.") != std::string::npos;
  }
  EXPECT_TRUE(gpu_pass_file);
  // The dump reads back as a GPU dump.
  Result index = RunFusebox("inspect " + prefix + ".sm_9.0_gpu_after_optimizations.txt");
  EXPECT_EQ(index.code, 0) << index.out;
}

TEST(CliExplainTest, ReasonsForFusedAndNotFused) {
  Result r = RunFusebox("explain " + Example("reduce_sum.hlo"));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("fused     %mul.1 -> %add.1"));
  EXPECT_THAT(r.out, HasSubstr("not fused %x.1 -> %add.1"));
  EXPECT_THAT(r.out, HasSubstr("parameter"));
  Result one = RunFusebox("explain " + Example("reduce_sum.hlo") + " --instruction mul.1");
  EXPECT_EQ(one.code, 0);
  EXPECT_THAT(one.out, ::testing::Not(HasSubstr("%x.1 -> %add.1")));
  EXPECT_EQ(RunFusebox("explain " + Example("reduce_sum.hlo") + " --instruction nope").code, 1);
}

}  // namespace
