// The dump index on real XLA dump folders (tests/data/xla_dumps, written by jax 0.10.2)
// and on synthetic folders for the edge cases of XLA's naming: timestamps, dropped
// module names, names with dots, one compilation under two ids, snapshots, unknown,
// truncated and corrupt files.
#include "importers/dump_index.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <string>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "importers/dump_stages.h"
#include "importers/module_loader.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

std::string DumpDir(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps/" + program;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Counts files in `dir` (recursively) by a predicate on the file name — an independent
// reckoning to hold the index against.
template <typename Pred>
int CountFiles(const std::string& dir, Pred pred) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && pred(e.path().filename().string())) ++n;
  }
  return n;
}

class RealDumpTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RealDumpTest, IndexesEveryFile) {
  const std::string program = GetParam();
  auto index = importers::IndexDumpFolder(DumpDir(program));
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  const importers::DumpModule& m = index->modules[0];
  EXPECT_EQ(m.id, "0000");
  EXPECT_EQ(m.key, "0000");
  EXPECT_EQ(m.name, "jit_" + program);
  EXPECT_TRUE(m.timestamp.empty());
  EXPECT_TRUE(index->unrecognized.empty());
  EXPECT_TRUE(index->notes.empty()) << index->notes.front();

  int all = CountFiles(DumpDir(program), [](const std::string&) { return true; });
  EXPECT_EQ(index->total_files, all - 0);
  // README.md is not in these folders; every file belongs to the module.
  EXPECT_EQ(static_cast<int>(m.files.size()), all);
  for (const importers::DumpFile& f : m.files) {
    EXPECT_NE(f.kind, importers::DumpFileKind::kOther) << f.filename;
    EXPECT_FALSE(f.name_dropped) << f.filename;
  }

  ASSERT_NE(m.BeforeOptimizations(), nullptr);
  EXPECT_EQ(m.BeforeOptimizations()->format, importers::DumpFormat::kText);
  ASSERT_NE(m.AfterOptimizations(), nullptr);
  EXPECT_EQ(m.AfterOptimizations()->platform, "cpu");

  // Pass snapshots: one per NNNN.*.txt, in step order, each with pipeline and pass.
  int pass_texts = CountFiles(DumpDir(program), [](const std::string& n) {
    return n.find("after_") != std::string::npos && n.find("after_optimizations") == std::string::npos &&
           EndsWith(n, ".txt");
  });
  auto passes = m.Passes();
  EXPECT_EQ(static_cast<int>(passes.size()), pass_texts);
  for (size_t i = 0; i < passes.size(); ++i) {
    EXPECT_EQ(passes[i]->step, static_cast<int>(i)) << passes[i]->filename;
    EXPECT_FALSE(passes[i]->pipeline.empty());
    EXPECT_FALSE(passes[i]->after_pass.empty());
    EXPECT_EQ(passes[i]->format, importers::DumpFormat::kText);
  }

  // Per-kernel LLVM IR and objects: as many as the folder holds, with kernel names.
  int ir = CountFiles(DumpDir(program), [](const std::string& n) { return EndsWith(n, ".ll"); });
  int objects = CountFiles(DumpDir(program), [](const std::string& n) { return EndsWith(n, ".o"); });
  EXPECT_EQ(static_cast<int>(m.OfKind(importers::DumpFileKind::kLlvmIr).size()), ir);
  EXPECT_EQ(static_cast<int>(m.OfKind(importers::DumpFileKind::kObjectFile).size()), objects);
  for (const importers::DumpFile* f : m.OfKind(importers::DumpFileKind::kLlvmIr)) {
    EXPECT_FALSE(f->kernel.empty()) << f->filename;
    EXPECT_EQ(f->optimized_ir, EndsWith(f->filename, "ir-with-opt.ll")) << f->filename;
  }
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kBufferAssignment).size(), 3u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kMemoryReport).size(), 2u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kMlir).size(), 1u);
}

TEST_P(RealDumpTest, LoadsEveryTextStage) {
  auto index = importers::IndexDumpFolder(DumpDir(GetParam()));
  ASSERT_TRUE(index.ok()) << index.status().message();
  int loaded = 0;
  for (const importers::DumpFile& f : index->modules[0].files) {
    if (f.kind != importers::DumpFileKind::kHloModule || f.format != importers::DumpFormat::kText) continue;
    auto module = LoadDumpHlo(f);
    ASSERT_TRUE(module.ok()) << module.status().message();
    EXPECT_EQ(module->module->name(), "jit_" + GetParam());
    ++loaded;
  }
  EXPECT_GE(loaded, 3);
}

TEST_P(RealDumpTest, LoadsEveryProtoStageLikeItsTextTwin) {
  auto index = importers::IndexDumpFolder(DumpDir(GetParam()));
  ASSERT_TRUE(index.ok()) << index.status().message();
  int compared = 0;
  for (const importers::DumpFile& f : index->modules[0].files) {
    if (f.kind != importers::DumpFileKind::kHloModule || f.format != importers::DumpFormat::kProto) continue;
    auto from_proto = LoadDumpHlo(f);
    ASSERT_TRUE(from_proto.ok()) << from_proto.status().message();
    importers::DumpFile twin = f;
    twin.path = f.path.substr(0, f.path.size() - std::string(".hlo.pb").size()) + ".txt";
    twin.format = importers::DumpFormat::kText;
    auto from_text = importers::LoadDumpHlo(twin);
    ASSERT_TRUE(from_text.ok()) << from_text.status().message();
    EXPECT_EQ(from_proto->module->entry() != nullptr, true);
    EXPECT_EQ(from_proto->module->computations().size(), from_text->module->computations().size()) << f.filename;
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

TEST_P(RealDumpTest, LoadFileTakesTheFolder) {
  auto file = importers::LoadFile(DumpDir(GetParam()));
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->modules.size(), 1u);
  ASSERT_EQ(file->module_keys.size(), 1u);
  EXPECT_EQ(file->module_keys[0], "0000");
  EXPECT_TRUE(EndsWith(file->module_files[0], ".before_optimizations.txt"));
  for (const std::string& selector : {std::string("0"), std::string("0000"), "jit_" + GetParam()}) {
    auto picked = importers::SelectModules(*file, selector, false);
    ASSERT_TRUE(picked.ok()) << selector << ": " << picked.status().message();
    EXPECT_EQ(picked->front(), 0u);
  }
  EXPECT_FALSE(importers::SelectModules(*file, "7", false).ok());

  importers::LoadOptions after;
  after.dump_stage = "after_optimizations";
  auto optimized = LoadFile(DumpDir(GetParam()), after);
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  EXPECT_TRUE(EndsWith(optimized->module_files[0], ".cpu_after_optimizations.txt"));

  importers::LoadOptions pass;
  pass.dump_stage = "0003";
  auto snapshot = importers::LoadFile(DumpDir(GetParam()), pass);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().message();
  EXPECT_NE(snapshot->module_files[0].find(".0003."), std::string::npos);

  importers::LoadOptions missing;
  missing.dump_stage = "9999";
  auto none = importers::LoadFile(DumpDir(GetParam()), missing);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no stage '9999'"), std::string::npos) << none.status().message();
  // The error names the folder (the input fuzzer found it did not).
  EXPECT_EQ(none.status().message().rfind(DumpDir(GetParam()) + ": module 0000 ", 0), 0u)
      << none.status().message();
  // A step number too long for an int is no step, not an uncaught std::out_of_range.
  importers::LoadOptions huge;
  huge.dump_stage = "99999999999999999999";
  auto no_step = importers::LoadFile(DumpDir(GetParam()), huge);
  ASSERT_FALSE(no_step.ok());
  EXPECT_NE(no_step.status().message().find("no stage '99999999999999999999'"), std::string::npos)
      << no_step.status().message();
}

TEST_P(RealDumpTest, XlaStagesJoinTheSession) {
  auto index = importers::IndexDumpFolder(DumpDir(GetParam()));
  ASSERT_TRUE(index.ok());
  const importers::DumpModule& m = index->modules[0];
  auto input = importers::LoadDumpHlo(*m.BeforeOptimizations());
  ASSERT_TRUE(input.ok());
  session::CompileSession session(std::move(input->module));
  int added = importers::AddXlaDumpStages(m, &session);
  EXPECT_EQ(added, static_cast<int>(session.external_stages().size()));
  auto optimized = session.ExternalStageText("xla_optimized_hlo");
  ASSERT_TRUE(optimized.ok()) << optimized.status().message();
  auto expected = importers::ReadDumpText(*m.AfterOptimizations());
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(*optimized, *expected);
  auto pass = session.ExternalStageText("xla_pass_0000");
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_NE(pass->find("HloModule jit_" + GetParam()), std::string::npos);
  auto buffers = session.ExternalStageText("xla_buffer_assignment");
  ASSERT_TRUE(buffers.ok()) << buffers.status().message();
  EXPECT_NE(buffers->find("allocation"), std::string::npos);
  auto live_range = session.ExternalStageText("xla_live_range");
  ASSERT_TRUE(live_range.ok()) << live_range.status().message();
  EXPECT_NE(live_range->find("(peak):"), std::string::npos);
  auto report = session.ExternalStageText("xla_memory_usage_report");
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_NE(report->find("Total bytes: "), std::string::npos);
  if (!m.OfKind(importers::DumpFileKind::kLlvmIr).empty()) {
    auto ir = session.ExternalStageText("xla_llvm_ir_optimized");
    ASSERT_TRUE(ir.ok()) << ir.status().message();
    EXPECT_NE(ir->find("define "), std::string::npos);
  }
  auto missing = session.ExternalStageText("xla_ptx");
  EXPECT_FALSE(missing.ok());
  std::vector<std::string> names = session.StageNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "xla_optimized_hlo"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "optimized_hlo"), names.end());
}

// Metadata's stack frames resolve to the Python call chain (XLA prints a frame's parent
// one higher than it stores it; the proto twin confirms the reading).
TEST(DumpStackFramesTest, RealDumpChainsResolve) {
  auto file = importers::LoadFile(DumpDir("running_example"));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->modules[0]->stack_frames.Describe(5),
            "scripts/seed_programs.py:19 (running_example) <- scripts/make_dumps.py:68 (run) <- "
            "scripts/make_dumps.py:98 (main) <- scripts/make_dumps.py:108 (<module>)");
  importers::DumpFile pb;
  auto index = importers::IndexDumpFolder(DumpDir("running_example"));
  ASSERT_TRUE(index.ok());
  for (const importers::DumpFile& f : index->modules[0].files) {
    if (f.stage == importers::DumpStage::kBeforeOptimizations && f.format == importers::DumpFormat::kProto) pb = f;
  }
  auto from_proto = importers::LoadDumpHlo(pb);
  ASSERT_TRUE(from_proto.ok()) << from_proto.status().message();
  EXPECT_EQ(from_proto->module->stack_frames.Describe(5), file->modules[0]->stack_frames.Describe(5));
}

INSTANTIATE_TEST_SUITE_P(XlaDumps, RealDumpTest, ::testing::Values("reduce_sum", "running_example", "mnist_train_step",
                                                                   "cifar_cnn_train_step"));

// ---- real XLA GPU dumps (tests/data/xla_dumps_gpu: jax 0.11.2 on an H200) ----

std::string GpuDumpDir(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_dumps_gpu/" + program;
}

class RealGpuDumpTest : public ::testing::TestWithParam<std::string> {};

// Every file of a GPU dump is recognized: the sm_9.0a optimized module, pass snapshots,
// buffer assignment, memory report, thunk sequences, autotune results and configs.
TEST_P(RealGpuDumpTest, IndexesEveryFile) {
  const std::string program = GetParam();
  auto index = importers::IndexDumpFolder(GpuDumpDir(program));
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  const importers::DumpModule& m = index->modules[0];
  EXPECT_EQ(m.name, "jit_" + program);
  EXPECT_TRUE(index->unrecognized.empty()) << index->unrecognized.front().filename;
  EXPECT_TRUE(index->notes.empty()) << index->notes.front();
  const int all = CountFiles(GpuDumpDir(program), [](const std::string&) { return true; });
  EXPECT_EQ(static_cast<int>(m.files.size()), all);
  for (const importers::DumpFile& f : m.files) EXPECT_NE(f.kind, importers::DumpFileKind::kOther) << f.filename;
  ASSERT_NE(m.AfterOptimizations(), nullptr);
  EXPECT_EQ(m.AfterOptimizations()->platform, "sm_9.0a_gpu");
  const int pass_texts = CountFiles(GpuDumpDir(program), [](const std::string& n) {
    static const std::regex numbered(R"(.*\.\d{4}\..*\.txt$)");
    return std::regex_match(n, numbered);
  });
  EXPECT_EQ(static_cast<int>(m.Passes().size()), pass_texts);
  EXPECT_GE(pass_texts, 40);
  EXPECT_GE(m.OfKind(importers::DumpFileKind::kThunkSequence).size(), 1u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kBufferAssignment).size(), 3u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kMemoryReport).size(), 2u);
  // The modules at named points of XLA GPU's pipeline.
  int named = 0;
  for (const importers::DumpFile* f : m.OfKind(importers::DumpFileKind::kHloModule)) {
    named += f->detail == "after_spmd_partitioner" || f->detail == "before_config_assignment";
  }
  EXPECT_EQ(named, 4) << "text and proto of after_spmd_partitioner and before_config_assignment";
}

// Every HLO text of the folder parses (newer XLA's `%tuple#i` operands included) and
// prints back to a text that parses to the same text.
TEST_P(RealGpuDumpTest, LoadsEveryTextStageAndPrintsItBack) {
  auto index = importers::IndexDumpFolder(GpuDumpDir(GetParam()));
  ASSERT_TRUE(index.ok()) << index.status().message();
  int loaded = 0;
  for (const importers::DumpFile& f : index->modules[0].files) {
    if (f.kind != importers::DumpFileKind::kHloModule || f.format != importers::DumpFormat::kText) continue;
    auto module = LoadDumpHlo(f);
    ASSERT_TRUE(module.ok()) << f.filename << ": " << module.status().message();
    const std::string printed = module->module->ToString();
    auto again = ParseModule(printed);
    ASSERT_TRUE(again.ok()) << f.filename << ": " << again.status().message();
    EXPECT_EQ((*again)->ToString(), printed) << f.filename;
    ++loaded;
  }
  EXPECT_GE(loaded, 42);
}

// XLA's GPU-optimized module (its cuDNN calls, Triton fusions and `#` operands) computes
// what the module before optimizations computes, in the interpreter, on the same inputs.
TEST_P(RealGpuDumpTest, XlasOptimizedGpuModuleComputesTheProgram) {
  auto index = importers::IndexDumpFolder(GpuDumpDir(GetParam()));
  ASSERT_TRUE(index.ok()) << index.status().message();
  const importers::DumpModule& m = index->modules[0];
  auto before = LoadDumpHlo(*m.BeforeOptimizations());
  ASSERT_TRUE(before.ok()) << before.status().message();
  auto after = LoadDumpHlo(*m.AfterOptimizations());
  ASSERT_TRUE(after.ok()) << after.status().message();
  auto args = interpreter::RandomArguments(*before->module, 1);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto want = interpreter::Interpreter().Run(*before->module, *args);
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto got = interpreter::Interpreter().Run(*after->module, *args);
  ASSERT_TRUE(got.ok()) << got.status().message();
  interpreter::CompareOptions tolerance = interpreter::DefaultToleranceFor(PrimitiveType::kF32);
  tolerance.atol = 1e-4;  // XLA's rewrites reassociate sums (the interpreter runs each as written)
  tolerance.rtol = 1e-4;
  tolerance.nan_equal = false;  // a NaN on either side is a failure, not a match
  interpreter::CompareResult cmp = interpreter::CompareLiterals(*got, *want, tolerance);
  EXPECT_TRUE(cmp.ok()) << cmp.ToString();
}

INSTANTIATE_TEST_SUITE_P(XlaGpuDumps, RealGpuDumpTest,
                         ::testing::Values("reduce_sum", "running_example", "mnist_train_step", "cifar_cnn_train_step"));

// ---- synthetic folders ----

class SyntheticDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("fusebox_dump_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream out(dir_ / name, std::ios::binary);
    out << text;
  }
  std::string Dir() const { return dir_.string(); }

  static std::string Module(const std::string& name) {
    return "HloModule " + name +
           "\n\nENTRY %main (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
           "  ROOT %add.1 = f32[4]{0} add(%p, %p)\n}\n\n";
  }

  fs::path dir_;
};

TEST_F(SyntheticDumpTest, TimestampsSeparateRunsThatReuseIds) {
  Write("1700000000000001.module_0001.jit_f.before_optimizations.txt", Module("jit_f"));
  Write("1700000000000001.module_0001.jit_f.cpu_after_optimizations.txt", Module("jit_f"));
  Write("1700000000999999.module_0001.jit_f.before_optimizations.txt", Module("jit_f"));
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 2u);
  EXPECT_EQ(index->modules[0].timestamp, "1700000000000001");
  EXPECT_EQ(index->modules[0].key, "1700000000000001.0001");
  EXPECT_EQ(index->modules[1].key, "1700000000999999.0001");
  EXPECT_NE(index->modules[0].AfterOptimizations(), nullptr);
  EXPECT_EQ(index->modules[1].AfterOptimizations(), nullptr);
  // An id alone is ambiguous now; the key is not.
  auto by_id = index->Find("1");
  ASSERT_FALSE(by_id.ok());
  EXPECT_NE(by_id.status().message().find("names 2 modules"), std::string::npos) << by_id.status().message();
  auto by_key = index->Find("1700000000999999.0001");
  ASSERT_TRUE(by_key.ok());
  EXPECT_EQ((*by_key)->timestamp, "1700000000999999");
}

TEST_F(SyntheticDumpTest, DroppedNamesAndNamesWithDots) {
  // XLA drops the module name when the file name would pass 255 characters.
  Write("module_0002.before_optimizations.txt", Module("a_very_long_name"));
  Write("module_0002.0001.simplification.after_algsimp.before_dce.txt", Module("a_very_long_name"));
  // A name with dots.
  Write("module_0005.jit_f.1.before_optimizations.txt", Module("jit_f.1"));
  Write("module_0005.jit_f.1.cpu_after_optimizations.hlo.pb.gz", "not read by the index");
  Write("module_0005.jit_f.1.0007.simplification.after_algsimp.before_dce.txt", Module("jit_f.1"));
  Write("module_0005.jit_f.1.fusion.3_kernel_module.ir-with-opt.ll", "define void @f() { ret void }\n");
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 2u);
  const importers::DumpModule& dropped = index->modules[0];
  EXPECT_EQ(dropped.id, "0002");
  EXPECT_EQ(dropped.name, "");
  ASSERT_NE(dropped.BeforeOptimizations(), nullptr);
  EXPECT_TRUE(dropped.BeforeOptimizations()->name_dropped);
  ASSERT_EQ(dropped.Passes().size(), 1u);
  EXPECT_EQ(dropped.Passes()[0]->after_pass, "algsimp");
  EXPECT_EQ(dropped.Passes()[0]->before_pass, "dce");
  auto loaded = importers::LoadDumpHlo(*dropped.BeforeOptimizations());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->module->name(), "a_very_long_name");

  const importers::DumpModule& dotted = index->modules[1];
  EXPECT_EQ(dotted.name, "jit_f.1");
  ASSERT_NE(dotted.AfterOptimizations(), nullptr);
  EXPECT_EQ(dotted.AfterOptimizations()->format, importers::DumpFormat::kProtoGz);
  EXPECT_EQ(dotted.AfterOptimizations()->platform, "cpu");
  ASSERT_EQ(dotted.Passes().size(), 1u);
  EXPECT_EQ(dotted.Passes()[0]->step, 7);
  ASSERT_EQ(dotted.OfKind(importers::DumpFileKind::kLlvmIr).size(), 1u);
  EXPECT_EQ(dotted.OfKind(importers::DumpFileKind::kLlvmIr)[0]->kernel, "fusion.3_kernel_module");
  EXPECT_TRUE(dotted.OfKind(importers::DumpFileKind::kLlvmIr)[0]->optimized_ir);
  auto found = index->Find("jit_f.1");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->id, "0005");
}

TEST_F(SyntheticDumpTest, OneCompilationUnderTwoIdsIsOneModule) {
  Write("module_0003.jit_g.before_optimizations.txt", Module("jit_g"));
  Write("module_0003.jit_g.0000.gpu-passes.after_pipeline-start.before_algsimp.txt", Module("jit_g"));
  Write("module_0004.jit_g.sm_8.0_gpu_after_optimizations.txt", Module("jit_g"));
  Write("module_0004.jit_g.sm_8.0_gpu_after_optimizations-buffer-assignment.txt", "allocation 0\n");
  Write("module_0004.jit_g.ir-no-opt.ll", "; no-opt\n");
  Write("module_0004.jit_g.ir-with-opt.ll", "; with-opt\n");
  Write("module_0004.jit_g.ptx", "// ptx\n.version 8.0\n");
  Write("module_0004.jit_g.thunk_sequence.txt", "kernel thunk\n");
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  const importers::DumpModule& m = index->modules[0];
  EXPECT_EQ(m.ids, (std::vector<std::string>{"0003", "0004"}));
  ASSERT_NE(m.AfterOptimizations(), nullptr);
  EXPECT_EQ(m.AfterOptimizations()->platform, "sm_8.0_gpu");
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kPtx).size(), 1u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kThunkSequence).size(), 1u);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kLlvmIr).size(), 2u);
  ASSERT_EQ(index->notes.size(), 1u);
  EXPECT_NE(index->notes[0].find("continues module 0003"), std::string::npos) << index->notes[0];
  ASSERT_TRUE(index->Find("4").ok());
  EXPECT_EQ((*index->Find("4"))->id, "0003");

  auto input = importers::LoadDumpHlo(*m.BeforeOptimizations());
  ASSERT_TRUE(input.ok());
  session::CompileSession session(std::move(input->module));
  importers::AddXlaDumpStages(m, &session);
  auto ptx = session.ExternalStageText("xla_ptx");
  ASSERT_TRUE(ptx.ok()) << ptx.status().message();
  EXPECT_EQ(*ptx, "// ptx\n.version 8.0\n");
  auto ir = session.ExternalStageText("xla_llvm_ir");
  ASSERT_TRUE(ir.ok());
  EXPECT_EQ(*ir, "; no-opt\n");
}

TEST_F(SyntheticDumpTest, SnapshotsJoinTheirModule) {
  Write("module_0006.jit_h.before_optimizations.txt", Module("jit_h"));
  // XLA always puts a timestamp in front of snapshot files.
  Write("1700000000000042.module_0006.jit_h.execution_0000.hlo_snapshot.pb", "x");
  Write("1700000000000042.module_0006.jit_h.execution_0001.hlo_snapshot.pb", "x");
  // The overload without a module id names the module instead.
  Write("module_jit_h.execution_0002.hlo_snapshot.pb", "x");
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  auto snapshots = index->modules[0].OfKind(importers::DumpFileKind::kSnapshot);
  ASSERT_EQ(snapshots.size(), 3u);
  std::set<std::string> details;
  for (const importers::DumpFile* f : snapshots) details.insert(f->detail);
  EXPECT_EQ(details, (std::set<std::string>{"execution 0000", "execution 0001", "execution 0002"}));
}

TEST_F(SyntheticDumpTest, UnknownFilesAreListedNotFatal) {
  Write("module_0007.jit_k.before_optimizations.txt", Module("jit_k"));
  Write("module_0007.jit_k.something_new.bin", "?");
  Write("notes.txt", "my notes");
  Write("autotune_results.pbtxt", "version: 3");
  fs::create_directories(dir_ / "unrelated");
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  auto other = index->modules[0].OfKind(importers::DumpFileKind::kOther);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0]->suffix, "something_new.bin");
  ASSERT_EQ(index->unrecognized.size(), 2u);
  std::string table = importers::FormatDumpIndex(*index);
  EXPECT_NE(table.find("notes.txt"), std::string::npos) << table;
  EXPECT_NE(table.find("unrelated/: a subfolder, not indexed"), std::string::npos) << table;
  std::string json = importers::DumpIndexToJson(*index);
  EXPECT_NE(json.find("\"module_0007.jit_k.something_new.bin\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"other\""), std::string::npos);
}

// Numbers in file names and selectors longer than any int: never std::stoi's exceptions
// (they stopped `fusebox inspect` with "internal error: stoi" for the whole folder).
TEST_F(SyntheticDumpTest, HugeNumbersAreNamesNotExceptions) {
  Write("1700000000000001.module_0003.jit_k.before_optimizations.txt", Module("jit_k"));
  Write("1700000000000001.module_0003.jit_k.99999999999.simplification.after_algsimp.txt",
        Module("jit_k"));
  Write("1700000000000001.module_0003.jit_k.0001.simplification.after_algsimp.txt", Module("jit_k"));
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  ASSERT_EQ(index->modules[0].Passes().size(), 1u);  // the long step is no pass snapshot
  EXPECT_EQ(index->modules[0].Passes()[0]->step, 1);
  auto by_id = index->Find("0000000000000000000000003");
  ASSERT_TRUE(by_id.ok()) << by_id.status().message();
  EXPECT_EQ((*by_id)->id, "0003");
  auto none = index->Find("99999999999999999999");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no module '99999999999999999999'"), std::string::npos)
      << none.status().message();

  auto loaded = importers::LoadFile(Dir());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // A timestamped key ("1700000000000001.0003") is not a number; the id in it still picks.
  auto picked = importers::SelectModules(*loaded, "3", false);
  ASSERT_TRUE(picked.ok()) << picked.status().message();
  EXPECT_FALSE(importers::SelectModules(*loaded, "99999999999999999999", false).ok());
}

TEST_F(SyntheticDumpTest, TruncatedTextSaysSoAndTheRestLoads) {
  std::string full;
  {
    std::ifstream in(DumpDir("mnist_train_step") + "/module_0000.jit_mnist_train_step.cpu_after_optimizations.txt");
    full.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(full.size(), 20000u);
  Write("module_0008.jit_t.before_optimizations.txt", Module("jit_t"));
  Write("module_0008.jit_t.cpu_after_optimizations.txt", full.substr(0, full.size() / 2));
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  const importers::DumpModule& m = index->modules[0];
  auto broken = importers::LoadDumpHlo(*m.AfterOptimizations());
  ASSERT_FALSE(broken.ok());
  const std::string& message = broken.status().message();
  EXPECT_NE(message.find(m.AfterOptimizations()->path + ":"), std::string::npos) << message;
  EXPECT_NE(message.find("looks truncated"), std::string::npos) << message;
  EXPECT_TRUE(LoadDumpHlo(*m.BeforeOptimizations()).ok());
  // Loading the folder still works at the stage that is whole.
  auto file = importers::LoadFile(Dir());
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->modules.size(), 1u);
  // Asking for the broken stage names the file.
  importers::LoadOptions after;
  after.dump_stage = "after_optimizations";
  auto bad = LoadFile(Dir(), after);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("looks truncated"), std::string::npos);
}

TEST_F(SyntheticDumpTest, CorruptProtoIsAnErrorNotACrash) {
  std::mt19937 rng(7);
  std::string junk(4096, '\0');
  for (char& c : junk) c = static_cast<char>(rng() & 0xff);
  Write("module_0009.jit_c.before_optimizations.hlo.pb", junk);
  Write("module_0009.jit_c.before_optimizations.txt", Module("jit_c"));
  Write("module_0010.jit_d.before_optimizations.hlo.pb", junk);
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 2u);
  // Text is preferred where both exist; the proto alone fails with the file named.
  auto ok = importers::LoadDumpHlo(*index->modules[0].BeforeOptimizations());
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  auto bad = LoadDumpHlo(*index->modules[1].BeforeOptimizations());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("module_0010.jit_d.before_optimizations.hlo.pb"), std::string::npos)
      << bad.status().message();
  // The folder loads with the module that works and a note on the one that does not.
  auto file = importers::LoadFile(Dir());
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ(file->modules.size(), 1u);
  EXPECT_EQ(file->module_keys[0], "0009");
  ASSERT_FALSE(file->notes.empty());
  EXPECT_NE(file->notes[0].find("skipped module 0010"), std::string::npos) << file->notes[0];
}

TEST_F(SyntheticDumpTest, EmptyOrForeignFoldersAreClearErrors) {
  auto empty = importers::IndexDumpFolder(Dir());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("no XLA dump files here (0 file(s)"), std::string::npos)
      << empty.status().message();
  Write("photo.jpg", "\xff\xd8");
  auto foreign = importers::IndexDumpFolder(Dir());
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("1 file(s)"), std::string::npos);
  auto missing = importers::IndexDumpFolder(Dir() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no such folder"), std::string::npos);
  auto load = importers::LoadFile(Dir());
  EXPECT_FALSE(load.ok());
}

TEST_F(SyntheticDumpTest, FuseboxOwnDumpIsIndexed) {
  // `fusebox compile --dump-to` writes XLA's layout; the index reads it back.
  auto parsed = ParseModule(Module("jit_own"));
  ASSERT_TRUE(parsed.ok());
  session::CompileSession session(std::move(*parsed));
  passes::PipelineOptions options;
  options.snapshot_pass_regex = ".*";
  ASSERT_TRUE(session.Optimize(options).ok());
  auto written = session::WriteDump(session, Dir(), 12, /*with_cpu=*/true);
  ASSERT_TRUE(written.ok()) << written.status().message();
  auto index = importers::IndexDumpFolder(Dir());
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->modules.size(), 1u);
  const importers::DumpModule& m = index->modules[0];
  EXPECT_EQ(m.id, "0012");
  EXPECT_EQ(m.name, "jit_own");
  EXPECT_NE(m.BeforeOptimizations(), nullptr);
  EXPECT_NE(m.AfterOptimizations(), nullptr);
  EXPECT_EQ(m.OfKind(importers::DumpFileKind::kFusionDecisions).size(), 1u);
  EXPECT_FALSE(m.OfKind(importers::DumpFileKind::kLlvmIr).empty());
  EXPECT_FALSE(m.OfKind(importers::DumpFileKind::kAssembly).empty());
  for (const importers::DumpFile& f : m.files) EXPECT_NE(f.kind, importers::DumpFileKind::kOther) << f.filename;
  for (const importers::DumpFile* pass : m.Passes()) EXPECT_TRUE(LoadDumpHlo(*pass).ok()) << pass->filename;
}

}  // namespace
}  // namespace fusebox
