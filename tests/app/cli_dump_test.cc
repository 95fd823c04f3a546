// The CLI on XLA dump folders: `index`, `compare-fusion`, and the other subcommands
// taking a folder plus --module / --dump-stage, through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/app/cli_test_util.h"

namespace fusebox {
namespace {

using cli_test::RunFusebox;
using cli_test::RunFuseboxStdout;

std::string Dump(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/" + program;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CliDumpTest, IndexPrintsModulesByStages) {
  auto r = RunFusebox("index " + Dump("mnist_train_step"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("1 module(s), 139 file(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("module  name"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0000    jit_mnist_train_step  txt+pb  33      cpu txt+pb  20 kernel(s)"), std::string::npos)
      << r.out;
}

TEST(CliDumpTest, IndexModuleListsFilesInOrder) {
  auto r = RunFusebox("index " + Dump("running_example") + " --module 0");
  ASSERT_EQ(r.code, 0) << r.out;
  size_t before = r.out.find("before optimizations");
  size_t pass = r.out.find("pass 0005 simplification: after pipeline-start, before algsimp");
  size_t after = r.out.find("cpu after optimizations");
  ASSERT_NE(before, std::string::npos) << r.out;
  ASSERT_NE(pass, std::string::npos) << r.out;
  ASSERT_NE(after, std::string::npos) << r.out;
  EXPECT_LT(before, pass);
  EXPECT_LT(pass, after);
  EXPECT_NE(r.out.find("LLVM IR optimized of __compute_module_wrapped_multiply"), std::string::npos) << r.out;
}

TEST(CliDumpTest, IndexJsonAndCheck) {
  auto json = RunFuseboxStdout("index " + Dump("reduce_sum") + " --json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_NE(json.out.find("\"name\": \"jit_reduce_sum\""), std::string::npos);
  EXPECT_NE(json.out.find("\"platform\": \"cpu\""), std::string::npos);
  auto check = RunFusebox("index " + Dump("reduce_sum") + " --check");
  ASSERT_EQ(check.code, 0) << check.out;
  EXPECT_NE(check.out.find("check: loaded 44 of 44 HLO file(s)"), std::string::npos) << check.out;
}

TEST(CliDumpTest, IndexRefusesWhatIsNotADumpFolder) {
  auto file = RunFusebox("index " + cli_test::Example("running_example.hlo"));
  EXPECT_EQ(file.code, 1);
  EXPECT_NE(file.out.find("not a folder"), std::string::npos) << file.out;
  auto foreign = RunFusebox("index " + std::string(FUSEBOX_SOURCE_DIR) + "/docs");
  EXPECT_EQ(foreign.code, 1);
  EXPECT_NE(foreign.out.find("no XLA dump files here"), std::string::npos) << foreign.out;
  auto unknown = RunFusebox("index " + Dump("reduce_sum") + " --module 42");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.out.find("no module '42'"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("0000 jit_reduce_sum"), std::string::npos) << unknown.out;
}

TEST(CliDumpTest, IndexCheckReportsBrokenFilesAndExitsOne) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("fusebox_cli_dump_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(Dump("running_example"))) {
    if (e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename());
  }
  std::string name = "module_0000.jit_running_example.cpu_after_optimizations.txt";
  std::string text = ReadFile((dir / name).string());
  std::ofstream(dir / name, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() / 2);
  std::ofstream(dir / "module_0000.jit_running_example.before_optimizations.hlo.pb",
                std::ios::binary | std::ios::trunc) << "\x0a\xff\xff\xff\x0f garbage";
  auto r = RunFusebox("index " + dir.string() + " --check");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find(name + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("looks truncated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("before_optimizations.hlo.pb"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 could not be loaded"), std::string::npos) << r.out;
  // Everything else still works on the folder: the text input is whole.
  auto run = RunFusebox("run " + dir.string() + " --module 0");
  EXPECT_EQ(run.code, 0) << run.out;
  auto cmp = RunFusebox("compare-fusion " + dir.string());
  EXPECT_EQ(cmp.code, 1) << cmp.out;
  EXPECT_NE(cmp.out.find("looks truncated"), std::string::npos) << cmp.out;
  fs::remove_all(dir);
}

TEST(CliDumpTest, CompareFusion) {
  auto r = RunFusebox("compare-fusion " + Dump("running_example"));
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("kernels: XLA 2, Fusebox 1 (the input, unfused: 6)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Fusebox fuses, XLA splits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("%ynn_fusion"), std::string::npos) << r.out;
  auto json = RunFuseboxStdout("compare-fusion " + Dump("reduce_sum") + " --module jit_reduce_sum --json");
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_NE(json.out.find("\"match\": 1"), std::string::npos) << json.out;
  auto file = RunFusebox("compare-fusion " + cli_test::Example("running_example.hlo"));
  EXPECT_EQ(file.code, 1);
  EXPECT_NE(file.out.find("not a folder"), std::string::npos) << file.out;
}

TEST(CliDumpTest, SubcommandsTakeAFolderAndModule) {
  std::string dir = Dump("mnist_train_step");
  auto inspect = RunFusebox("inspect " + dir);
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  EXPECT_NE(inspect.out.find("jit_mnist_train_step"), std::string::npos);
  auto print = RunFuseboxStdout("print " + dir + " --module 0 --dump-stage after_optimizations");
  ASSERT_EQ(print.code, 0) << print.out;
  EXPECT_NE(print.out.find("is_scheduled=true"), std::string::npos);
  auto run = RunFusebox("run " + dir + " --module jit_mnist_train_step --backend cpu --check");
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_NE(run.out.find("check: matches the interpreter"), std::string::npos) << run.out;
  auto explain = RunFusebox("explain " + dir + " --module 0000");
  EXPECT_EQ(explain.code, 0) << explain.out;
  auto bad_stage = RunFusebox("inspect " + dir + " --dump-stage 0999");
  EXPECT_EQ(bad_stage.code, 1);
  EXPECT_NE(bad_stage.out.find("no stage '0999'"), std::string::npos) << bad_stage.out;
}

TEST(CliDumpTest, CompileShowsXlaStagesNextToFuseboxs) {
  std::string dir = Dump("running_example");
  auto list = RunFuseboxStdout("compile " + dir + " --list-stages");
  ASSERT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find("optimized_hlo\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("xla_optimized_hlo  XLA: cpu after optimizations"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("xla_pass_0023"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("xla_llvm_ir_optimized"), std::string::npos) << list.out;
  auto xla = RunFuseboxStdout("compile " + dir + " --stage xla_optimized_hlo");
  ASSERT_EQ(xla.code, 0) << xla.out;
  EXPECT_EQ(xla.out, ReadFile(dir + "/module_0000.jit_running_example.cpu_after_optimizations.txt"));
  auto ours = RunFuseboxStdout("compile " + dir + " --stage optimized_hlo");
  ASSERT_EQ(ours.code, 0);
  EXPECT_NE(ours.out.find("kind=kInput"), std::string::npos);
  auto missing = RunFusebox("compile " + dir + " --stage xla_ptx");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("no stage 'xla_ptx'"), std::string::npos) << missing.out;
  auto single = RunFusebox("compile " + cli_test::Example("running_example.hlo") + " --stage xla_optimized_hlo");
  EXPECT_EQ(single.code, 1);
  EXPECT_NE(single.out.find("external stages come from an XLA dump folder"), std::string::npos) << single.out;
}

}  // namespace
}  // namespace fusebox
