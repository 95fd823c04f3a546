#include "fuzz/input_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/interpreter/npy.h"
#include "compiler/parser/parser.h"
#include "compiler/support/strings.h"
#include "importers/argument_files.h"
#include "importers/dump_index.h"
#include "importers/hlo_proto.h"
#include "importers/module_loader.h"

namespace fusebox::fuzz {
namespace {

// Gzip input may inflate to far more than the fuzzer's few kilobytes; the import of a
// 64 MiB proto is still quick, and the limit's own error is one of the checked answers.
constexpr int64_t kMaxInflatedBytes = int64_t{64} << 20;

std::string Clip(std::string_view text) {
  constexpr size_t kMax = 2000;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

// An array written as .npy reads back, with its own shape expected, to the same bytes.
std::string CheckArrayRoundTrip(const Literal& literal, std::string_view what) {
  if (!literal.shape().IsArray()) return "";
  const std::string bytes = interpreter::SerializeNpy(literal);
  if (bytes.empty()) return "";  // an array without storage (an elided constant's)
  const Shape shape = literal.shape();
  auto again = interpreter::ParseNpy(bytes, "again.npy", &shape);
  if (!again.ok()) {
    return std::string(what) + " " + shape.ToString() +
           " written as .npy does not read back: " + again.status().message();
  }
  if (interpreter::SerializeNpy(*again) != bytes) {
    return std::string(what) + " " + shape.ToString() + " reads back from .npy with other values";
  }
  return "";
}

std::string CheckModulePrints(const Module& module) {
  const std::string printed = module.ToString();
  auto reparsed = ParseModules(printed);
  if (!reparsed.ok()) {
    return "the imported module prints to text that does not parse: " +
           reparsed.status().message() + "\n--- printed:\n" + Clip(printed);
  }
  if (reparsed->modules.size() != 1) return "the imported module prints as several modules";
  const std::string again = reparsed->modules.front()->ToString();
  if (again != printed) {
    return "the imported module's print is not a fixed point\n--- first:\n" + Clip(printed) +
           "\n--- second:\n" + Clip(again);
  }
  return "";
}

std::string CheckProto(std::string_view bytes, const std::string& name) {
  auto imported = importers::ImportHloProto(bytes, name);
  if (!imported.ok()) {
    if (!StartsWith(imported.status().message(), name)) {
      return "the import's error does not name the file: " + imported.status().message();
    }
    return "";
  }
  if (imported->module == nullptr) return "the import succeeded without a module";
  std::string failed = CheckModulePrints(*imported->module);
  for (size_t i = 0; failed.empty() && i < imported->arguments.size(); ++i) {
    failed = CheckArrayRoundTrip(imported->arguments[i], "snapshot argument " + std::to_string(i));
  }
  if (failed.empty() && imported->result) {
    failed = CheckArrayRoundTrip(*imported->result, "snapshot result");
  }
  return failed;
}

std::string CheckGzipProto(std::string_view bytes) {
  const std::string name = "fuzz.pb.gz";
  auto inflated = importers::Gunzip(bytes, name, kMaxInflatedBytes);
  if (!inflated.ok()) {
    if (!StartsWith(inflated.status().message(), name)) {
      return "gunzip's error does not name the file: " + inflated.status().message();
    }
    return "";
  }
  return CheckProto(*inflated, name);
}

// `bytes`: an .npy file, or (with an expected shape) the shape's text, a newline, then the
// file, as a module's parameter would ask for it (the only way to read ml_dtypes' raw
// void arrays: bfloat16, float8, int4).
std::string CheckNpy(std::string_view bytes, bool with_expected_shape) {
  const std::string name = "fuzz.npy";
  std::optional<Shape> expected;
  if (with_expected_shape) {
    const size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) return "";
    auto shape = ParseShape(bytes.substr(0, newline));
    if (!shape.ok()) return "";
    expected = std::move(*shape);
    bytes.remove_prefix(newline + 1);
  }
  auto literal = interpreter::ParseNpy(std::string(bytes), name, expected ? &*expected : nullptr);
  if (!literal.ok()) {
    if (!StartsWith(literal.status().message(), name)) {
      return "the .npy reader's error does not name the file: " + literal.status().message();
    }
    return "";
  }
  if (expected && literal->shape() != *expected) {
    return "the array read as " + expected->ToString() + " has shape " + literal->shape().ToString();
  }
  return CheckArrayRoundTrip(*literal, "the array");
}

// The folder one fuzzing process writes its files in (libFuzzer's fork mode runs several).
const std::filesystem::path& ProcessDir() {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fusebox_input_fuzzer_" + std::to_string(getpid()));
  return dir;
}

bool Contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

std::string CheckDumpFolder(std::string_view bytes) {
  // One folder per process, emptied for each input (libFuzzer's fork mode runs several).
  const std::filesystem::path dir = ProcessDir() / "dump";
  if (!WriteFolderRecords(bytes, dir)) return "";
  const std::string path = dir.string();
  auto index = importers::IndexDumpFolder(path);
  if (!index.ok()) {
    if (!Contains(index.status().message(), path)) {
      return "the dump index's error does not name the folder: " + index.status().message();
    }
  } else {
    (void)importers::FormatDumpIndex(*index);
    const std::string json = importers::DumpIndexToJson(*index);
    if (!nlohmann::json::accept(json)) return "the dump index's JSON does not parse:\n" + Clip(json);
    for (const importers::DumpModule& module : index->modules) {
      (void)importers::FormatDumpModule(module);
      (void)module.Label();
      for (const importers::DumpFile& file : module.files) {
        (void)importers::DescribeDumpFile(file);
        if (file.kind != importers::DumpFileKind::kHloModule) continue;
        auto loaded = importers::LoadDumpHlo(file);
        if (!loaded.ok()) {
          if (!Contains(loaded.status().message(), file.path)) {
            return "a dump file's error does not name it: " + loaded.status().message();
          }
          continue;
        }
        if (loaded->module == nullptr) return file.filename + " loaded without a module";
        std::string failed = CheckModulePrints(*loaded->module);
        if (!failed.empty()) return file.filename + ": " + failed;
      }
    }
  }
  // What `fusebox run DIR` loads: every module's compiler input.
  auto loaded = importers::LoadFile(path);
  if (!loaded.ok()) {
    if (!Contains(loaded.status().message(), path)) {
      return "loading the dump folder fails without naming it: " + loaded.status().message();
    }
    return "";
  }
  for (const auto& module : loaded->modules) {
    if (module == nullptr) return "the dump folder loaded a null module";
    std::string failed = CheckModulePrints(*module);
    if (!failed.empty()) return failed;
  }
  return "";
}

constexpr char kNpzModule[] = R"(HloModule npz_arguments
ENTRY e {
  x.1 = f32[2,3] parameter(0)
  y = s32[4] parameter(1)
  ROOT t = (f32[2,3], s32[4]) tuple(x.1, y)
})";

std::string CheckNpz(std::string_view bytes) {
  const std::filesystem::path dir = ProcessDir() / "npz";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (dir / "fuzz.npz").string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return "";
  }
  auto members = importers::ReadNpz(path);
  if (!members.ok()) {
    if (!StartsWith(members.status().message(), path)) {
      return "the .npz reader's error does not name the file: " + members.status().message();
    }
  } else {
    for (const importers::NpzMember& member : *members) {
      const std::string name = member.name + ".npy";
      auto literal = interpreter::ParseNpy(member.bytes, name);
      if (!literal.ok()) {
        if (!StartsWith(literal.status().message(), name)) {
          return "a member's .npy error does not name it: " + literal.status().message();
        }
        continue;
      }
      std::string failed = CheckArrayRoundTrip(*literal, "member '" + member.name + "'");
      if (!failed.empty()) return failed;
    }
  }
  static const Module* module = [] {
    auto parsed = ParseModules(kNpzModule);
    return parsed.ok() ? parsed->modules.front().release() : nullptr;
  }();
  if (module == nullptr) return "the .npz check's own module does not parse";
  auto arguments = importers::LoadArgumentFiles(*module, {path});
  if (!arguments.ok()) {
    if (!Contains(arguments.status().message(), path)) {
      return "matching the .npz to parameters fails without naming it: " + arguments.status().message();
    }
    return "";
  }
  const Computation& entry = *module->entry();
  if (arguments->arguments.size() != static_cast<size_t>(entry.parameter_count())) {
    return "the .npz gave " + std::to_string(arguments->arguments.size()) + " arguments for " +
           std::to_string(entry.parameter_count()) + " parameters";
  }
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const Literal& argument = arguments->arguments[static_cast<size_t>(p)];
    if (!argument.shape().SameDimensions(entry.parameter(p)->shape()) ||
        argument.shape().element_type() != entry.parameter(p)->shape().element_type()) {
      return "argument " + std::to_string(p) + " is " + argument.shape().ToString() + " for parameter " +
             entry.parameter(p)->shape().ToString();
    }
  }
  return "";
}

}  // namespace

InputReader ReaderOf(std::string_view input) {
  if (input.empty()) return InputReader::kHloProto;
  switch (static_cast<uint8_t>(input[0]) % 6) {
    case 0: return InputReader::kHloProto;
    case 1: return InputReader::kGzipHloProto;
    case 2: return InputReader::kNpy;
    case 3: return InputReader::kNpyWithShape;
    case 4: return InputReader::kDumpFolder;
    default: return InputReader::kNpz;
  }
}

std::string_view InputReaderName(InputReader reader) {
  switch (reader) {
    case InputReader::kHloProto: return "HLO proto";
    case InputReader::kGzipHloProto: return "gzip HLO proto";
    case InputReader::kNpy: return ".npy";
    case InputReader::kNpyWithShape: return ".npy with an expected shape";
    case InputReader::kDumpFolder: return "dump folder";
    case InputReader::kNpz: return ".npz archive";
  }
  return "?";
}

bool WriteFolderRecords(std::string_view bytes, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir, ec);
  if (ec) return false;
  constexpr int kMaxFiles = 64;
  for (int files = 0; !bytes.empty() && files < kMaxFiles; ++files) {
    const size_t name_size = std::min<size_t>(static_cast<uint8_t>(bytes[0]), bytes.size() - 1);
    std::string name(bytes.substr(1, name_size));
    bytes.remove_prefix(1 + name_size);
    for (char& c : name) {
      const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '.' || c == '_' || c == '-';
      if (!keep) c = '_';
    }
    if (name.empty() || name == "." || name == "..") name = "_";
    size_t content_size = bytes.size();
    if (bytes.size() >= 2) {
      content_size = std::min<size_t>(
          static_cast<uint8_t>(bytes[0]) | static_cast<size_t>(static_cast<uint8_t>(bytes[1])) << 8,
          bytes.size() - 2);
      bytes.remove_prefix(2);
    }
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(content_size));
    bytes.remove_prefix(content_size);
  }
  return true;
}

std::string CheckInput(std::string_view input) {
  const std::string_view body = input.empty() ? input : input.substr(1);
  switch (ReaderOf(input)) {
    case InputReader::kHloProto: return CheckProto(body, "fuzz.pb");
    case InputReader::kGzipHloProto: return CheckGzipProto(body);
    case InputReader::kNpy: return CheckNpy(body, false);
    case InputReader::kNpyWithShape: return CheckNpy(body, true);
    case InputReader::kDumpFolder: return CheckDumpFolder(body);
    case InputReader::kNpz: return CheckNpz(body);
  }
  return "";
}

}  // namespace fusebox::fuzz
