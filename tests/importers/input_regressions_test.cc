// Replays the input fuzzer's seeds (fuzz/input_corpus/) and the inputs it once failed on
// (fuzz/input_regressions/) through its own checks (fuzz/input_checks.h), so that a fix
// stays fixed in the ordinary build, which has no libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "fuzz/input_checks.h"
#include "importers/argument_files.h"
#include "importers/dump_index.h"
#include "importers/hlo_proto.h"
#include "importers/module_loader.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> FilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() != ".md") files.push_back(entry.path());
  }
  return files;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const fs::path kFuzzDir = fs::path(FUSEBOX_SOURCE_DIR) / "fuzz";

// Every file of `dir` through the fuzzer's checks; returns how many there were.
int ExpectChecksPass(const fs::path& dir) {
  int count = 0;
  for (const fs::path& path : FilesIn(dir)) {
    SCOPED_TRACE(path.filename().string());
    EXPECT_EQ(fuzz::CheckInput(ReadBytes(path)), "");
    ++count;
  }
  return count;
}

TEST(InputFuzzerTest, SeedsPassTheChecks) { EXPECT_GT(ExpectChecksPass(kFuzzDir / "input_corpus"), 40); }

// The seeds reach past the readers' first checks: every proto seed imports, every dump
// folder indexes every file and loads every module, every .npy
// seed read with its shape (npyas_*) reads, and so does every one read without it but
// NumPy's malformed fixtures (bad_*) and ml_dtypes' raw void arrays, which need the
// shape's type: the fuzzer starts from the paths that build modules and arrays. Every
// .npz archive reads too.
TEST(InputFuzzerTest, SeedsImport) {
  int protos = 0, arrays = 0, folders = 0, archives = 0;
  for (const fs::path& path : FilesIn(kFuzzDir / "input_corpus")) {
    SCOPED_TRACE(path.filename().string());
    const std::string input = ReadBytes(path);
    ASSERT_FALSE(input.empty());
    const std::string body = input.substr(1);
    const std::string name = path.filename().string();
    switch (fuzz::ReaderOf(input)) {
      case fuzz::InputReader::kHloProto: {
        auto imported = importers::ImportHloProto(body, name);
        EXPECT_TRUE(imported.ok()) << imported.status().message();
        ++protos;
        break;
      }
      case fuzz::InputReader::kGzipHloProto: {
        auto inflated = importers::Gunzip(body, name);
        ASSERT_TRUE(inflated.ok()) << inflated.status().message();
        auto imported = importers::ImportHloProto(*inflated, name);
        EXPECT_TRUE(imported.ok()) << imported.status().message();
        ++protos;
        break;
      }
      case fuzz::InputReader::kNpy: {
        auto literal = interpreter::ParseNpy(body, name);
        if (name.rfind("npy_bad_", 0) == 0) {
          EXPECT_FALSE(literal.ok());
        } else if (!literal.ok()) {
          EXPECT_NE(literal.status().message().find("raw values"), std::string::npos)
              << literal.status().message();
        }
        break;
      }
      case fuzz::InputReader::kNpyWithShape: {
        const size_t newline = body.find('\n');
        ASSERT_NE(newline, std::string::npos);
        auto shape = ParseShape(body.substr(0, newline));
        ASSERT_TRUE(shape.ok()) << shape.status().message();
        auto literal = interpreter::ParseNpy(body.substr(newline + 1), name, &*shape);
        EXPECT_TRUE(literal.ok()) << literal.status().message();
        arrays += literal.ok() ? 1 : 0;
        break;
      }
      case fuzz::InputReader::kDumpFolder: {
        const fs::path dir = fs::path(testing::TempDir()) / ("input_seed_" + name);
        ASSERT_TRUE(fuzz::WriteFolderRecords(body, dir));
        auto index = importers::IndexDumpFolder(dir.string());
        ASSERT_TRUE(index.ok()) << index.status().message();
        EXPECT_TRUE(index->unrecognized.empty());
        auto loaded = importers::LoadFile(dir.string());
        ASSERT_TRUE(loaded.ok()) << loaded.status().message();
        EXPECT_EQ(loaded->modules.size(), index->modules.size());
        folders += 1;
        fs::remove_all(dir);
        break;
      }
      case fuzz::InputReader::kNpz: {
        // Every archive reads and its members are .npy files; the ones written for the
        // checks' parameters match them (the wrong shape and the extra member, which
        // start the fuzzer on the mismatch messages, and jax's own inputs do not).
        const fs::path file = fs::path(testing::TempDir()) / (name + ".npz");
        std::ofstream(file, std::ios::binary) << body;
        auto members = importers::ReadNpz(file.string());
        ASSERT_TRUE(members.ok()) << members.status().message();
        for (const importers::NpzMember& member : *members) {
          auto literal = interpreter::ParseNpy(member.bytes, member.name);
          EXPECT_TRUE(literal.ok()) << literal.status().message();
        }
        auto module = ParseModule(R"(HloModule npz_arguments
ENTRY e {
  x.1 = f32[2,3] parameter(0)
  y = s32[4] parameter(1)
  ROOT t = (f32[2,3], s32[4]) tuple(x.1, y)
})");
        ASSERT_TRUE(module.ok());
        auto arguments = importers::LoadArgumentFiles(**module, {file.string()});
        const bool mismatch = name == "npz_wrong_shape" || name == "npz_extra_member" || name == "npz_jax_inputs";
        EXPECT_EQ(arguments.ok(), !mismatch) << (arguments.ok() ? "" : arguments.status().message());
        if (arguments.ok()) {
          ASSERT_EQ(arguments->arguments.size(), 2u);
          EXPECT_EQ(arguments->arguments[0].GetDouble(5), 6.5);
          EXPECT_EQ(arguments->arguments[1].GetInt64(3), 2147483647);
        }
        archives += 1;
        fs::remove(file);
        break;
      }
    }
  }
  EXPECT_GE(protos, 9);
  EXPECT_GE(arrays, 40);
  EXPECT_GE(folders, 3);
  EXPECT_GE(archives, 6);
}

// A snapshot seed carries its arguments, which the checks write and read back as .npy.
TEST(InputFuzzerTest, SnapshotSeedHasArguments) {
  const std::string input = ReadBytes(kFuzzDir / "input_corpus" / "proto_snapshot_tanh_dot");
  auto imported = importers::ImportHloProto(input.substr(1), "snapshot");
  ASSERT_TRUE(imported.ok()) << imported.status().message();
  EXPECT_EQ(imported->kind, importers::HloProtoKind::kSnapshot);
  EXPECT_EQ(imported->arguments.size(), 3u);
}

TEST(InputFuzzerTest, RegressionsPassTheChecks) {
  RecordProperty("regressions", ExpectChecksPass(kFuzzDir / "input_regressions"));
}

}  // namespace
}  // namespace fusebox
