// --inputs files (importers/argument_files.h): .npz archives as NumPy writes them (stored
// and deflated, positional and named members), HloSnapshots dumped by XLA, .npy lists, and
// the messages for every kind of mismatch. The files are made by
// scripts/make_input_testdata.py (numpy and jax) and committed under tests/data/inputs/.
#include "importers/argument_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "importers/module_loader.h"

namespace fusebox {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kData = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/inputs/";
const std::string kSnapshot = kData + "batch_norm/module_0000.jit_batch_norm.snapshot.0.pb";

std::unique_ptr<Module> BatchNormModule() {
  auto file = importers::LoadFile(kData + "batch_norm/module_0000.jit_batch_norm.before_optimizations.txt");
  EXPECT_TRUE(file.ok()) << file.status().message();
  return file.ok() ? std::move(file->modules.front()) : nullptr;
}

std::unique_ptr<Module> MustParse(std::string_view text) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return module.ok() ? std::move(module).value() : nullptr;
}

std::string ErrorOf(const Module& module, const std::vector<std::string>& paths) {
  auto loaded = importers::LoadArgumentFiles(module, paths);
  EXPECT_FALSE(loaded.ok());
  return loaded.ok() ? "" : loaded.status().message();
}

// Running the module on the loaded arguments gives jax's result (to float rounding).
void ExpectJaxResult(const Module& module, const importers::ArgumentFiles& files) {
  auto result = interpreter::Interpreter().Run(module, files.arguments);
  ASSERT_TRUE(result.ok()) << result.status().message();
  auto expected = interpreter::ReadNpy(kData + "batch_norm_expected.npy");
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  ASSERT_EQ(result->element_count(), 32);
  for (int64_t i = 0; i < 32; ++i) {
    EXPECT_NEAR(result->GetDouble(i), expected->GetDouble(i),
                1e-5 * std::max(1.0, std::abs(expected->GetDouble(i))))
        << "element " << i;
  }
}

TEST(ArgumentFilesTest, ReadsStoredAndDeflatedArchives) {
  auto stored = importers::ReadNpz(kData + "batch_norm_positional.npz");
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  std::vector<std::string> names;
  for (const importers::NpzMember& member : *stored) names.push_back(member.name);
  EXPECT_THAT(names, ElementsAre("arr_0", "arr_1", "arr_2", "arr_3", "arr_4"));
  auto deflated = importers::ReadNpz(kData + "batch_norm_named.npz");
  ASSERT_TRUE(deflated.ok()) << deflated.status().message();
  names.clear();
  for (const importers::NpzMember& member : *deflated) names.push_back(member.name);
  EXPECT_THAT(names, ElementsAre("x", "mean", "var", "scale", "offset"));
  // The same arrays either way.
  for (size_t m = 0; m < 5; ++m) {
    auto a = interpreter::ParseNpy((*stored)[m].bytes, "stored");
    auto b = interpreter::ParseNpy((*deflated)[m].bytes, "deflated");
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b) << m;
  }
}

TEST(ArgumentFilesTest, PositionalNpzGivesJaxResult) {
  auto module = BatchNormModule();
  ASSERT_TRUE(module);
  auto files = importers::LoadArgumentFiles(*module, {kData + "batch_norm_positional.npz"});
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_EQ(files->sources[2], kData + "batch_norm_positional.npz member 'arr_2'");
  ExpectJaxResult(*module, *files);
}

TEST(ArgumentFilesTest, NamedNpzMatchesNamesWithoutXlaSuffix) {
  // Members x, mean, var, ... for parameters %x.1, %mean.1, %var.1, ...
  auto module = BatchNormModule();
  ASSERT_TRUE(module);
  auto files = importers::LoadArgumentFiles(*module, {kData + "batch_norm_named.npz"});
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_EQ(files->sources[2], kData + "batch_norm_named.npz member 'var'");
  ExpectJaxResult(*module, *files);
}

TEST(ArgumentFilesTest, SnapshotArgumentsGiveJaxResult) {
  auto module = BatchNormModule();
  ASSERT_TRUE(module);
  auto files = importers::LoadArgumentFiles(*module, {kSnapshot});
  ASSERT_TRUE(files.ok()) << files.status().message();
  EXPECT_EQ(files->sources[4], kSnapshot + " argument 4");
  EXPECT_TRUE(files->notes.empty());
  ExpectJaxResult(*module, *files);
  // The snapshot's arguments are the positional archive's arrays.
  auto npz = importers::LoadArgumentFiles(*module, {kData + "batch_norm_positional.npz"});
  ASSERT_TRUE(npz.ok());
  for (size_t p = 0; p < 5; ++p) EXPECT_EQ(files->arguments[p], npz->arguments[p]) << p;
}

TEST(ArgumentFilesTest, NpzMismatchesNameMemberAndParameter) {
  auto module = BatchNormModule();
  ASSERT_TRUE(module);
  EXPECT_EQ(ErrorOf(*module, {kData + "bad_extra.npz"}),
            kData +
                "bad_extra.npz: member 'arr_5' matches no parameter: the archive holds 6 "
                "arrays but the entry computation %main.1 takes 5 parameter(s) (x.1, mean.1, "
                "var.1, scale.1, offset.1; positionally arr_0 .. arr_4)");
  EXPECT_EQ(ErrorOf(*module, {kData + "bad_shape.npz"}),
            kData +
                "bad_shape.npz member 'arr_2': holds float32[4] but parameter 2 (%var.1) is "
                "f32[8]");
  EXPECT_EQ(ErrorOf(*module, {kData + "bad_dtype.npz"}),
            kData +
                "bad_dtype.npz member 'arr_0': holds float64[4,8] but parameter 0 (%x.1) is "
                "f32[4,8]");
  // Too few arrays: the first parameter without a member says what it looked for.
  auto six = MustParse(R"(
HloModule six
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8] parameter(1)
  c = f32[8] parameter(2)
  d = f32[8] parameter(3)
  e = f32[8] parameter(4)
  f = f32[2] parameter(5)
  ROOT t = (f32[4,8], f32[2]) tuple(a, f)
})");
  ASSERT_TRUE(six);
  EXPECT_EQ(ErrorOf(*six, {kData + "batch_norm_positional.npz"}),
            kData +
                "batch_norm_positional.npz: no member for parameter 5 (%f, f32[2]): expected "
                "'f' or 'arr_5'; the archive holds 5 (arr_0, arr_1, arr_2, arr_3, arr_4) for 6 "
                "parameter(s)");
  // Named members that name no parameter.
  EXPECT_THAT(ErrorOf(*six, {kData + "batch_norm_named.npz"}),
              HasSubstr("batch_norm_named.npz: no member for parameter 0 (%a, f32[4,8]): "
                        "expected 'a' or 'arr_0'; the archive holds 5 (x, mean, var, scale, "
                        "offset)"));
}

TEST(ArgumentFilesTest, SnapshotMismatches) {
  auto two = MustParse(R"(
HloModule two
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8] parameter(1)
  ROOT t = (f32[4,8], f32[8]) tuple(a, b)
})");
  ASSERT_TRUE(two);
  EXPECT_EQ(ErrorOf(*two, {kSnapshot}),
            kSnapshot +
                ": the snapshot holds 5 argument(s) but the entry computation %e takes 2 "
                "parameter(s)");
  auto wrong = MustParse(R"(
HloModule wrong
ENTRY e {
  a = f32[4,8] parameter(0)
  b = f32[8] parameter(1)
  c = s32[8] parameter(2)
  d = f32[8] parameter(3)
  e = f32[8] parameter(4)
  ROOT t = (f32[4,8], s32[8]) tuple(a, c)
})");
  ASSERT_TRUE(wrong);
  auto files = importers::LoadArgumentFiles(*wrong, {kSnapshot});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().message(),
            kSnapshot + " argument 2 (for parameter 2 (%c)) is f32[8] but should be s32[8]");
  // A module proto is not a snapshot.
  const std::string proto = std::string(FUSEBOX_SOURCE_DIR) +
                            "/tests/data/xla_dumps/reduce_sum/"
                            "module_0000.jit_reduce_sum.before_optimizations.hlo.pb";
  EXPECT_THAT(ErrorOf(*two, {proto}),
              HasSubstr("holds a module but no arguments; --inputs takes an HloSnapshot"));
}

TEST(ArgumentFilesTest, NpyListsAndNotArchives) {
  auto module = BatchNormModule();
  ASSERT_TRUE(module);
  // One .npy for five parameters.
  const std::string dir = testing::TempDir() + "/argument_files";
  std::filesystem::create_directories(dir);
  auto x = interpreter::ReadNpy(kData + "batch_norm_expected.npy");
  ASSERT_TRUE(x.ok());
  ASSERT_TRUE(interpreter::WriteNpy(dir + "/x.npy", *x).ok());
  EXPECT_EQ(ErrorOf(*module, {dir + "/x.npy"}),
            "--inputs has 1 file(s) (" + dir +
                "/x.npy) but the entry computation %main.1 takes 5 parameter(s) (or give one .npz, or one "
                "HloSnapshot .pb)");
  // A .npy array in a file named .npz (the input fuzzer's first find in CI): named, and
  // said to be an array.
  std::filesystem::copy_file(dir + "/x.npy", dir + "/array.npz", std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(ErrorOf(*module, {dir + "/array.npz"}),
              HasSubstr("--inputs has 1 file(s) (" + dir + "/array.npz: a .npy array, not an .npz archive) but"));
  // Something named .npz that is no zip.
  std::ofstream(dir + "/not.npz") << "hello";
  EXPECT_THAT(ErrorOf(*module, {dir + "/not.npz"}),
              HasSubstr(dir + "/not.npz: not an .npz archive (a zip of .npy files)"));
  EXPECT_EQ(ErrorOf(*module, {dir + "/missing.npz"}), dir + "/missing.npz: no such file");
}

}  // namespace
}  // namespace fusebox
