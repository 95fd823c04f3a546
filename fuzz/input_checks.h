// What the input fuzzer (fuzz/input_fuzzer.cc) checks on one input, shared with the test
// that replays the inputs it once failed on (tests/importers/input_regressions_test.cc).
//
// An input is one byte that chooses the reader, then the file's bytes:
//   byte % 6 == 0  an HLO proto (HloModuleProto, HloProto or HloSnapshot), as
//                  importers::ImportHloProto reads it
//   byte % 6 == 1  the same behind gzip (importers::Gunzip, then the import)
//   byte % 6 == 2  a NumPy .npy file (interpreter::ParseNpy)
//   byte % 6 == 3  a shape's text (`bf16[2,3]`), a newline, then an .npy file read as a
//                  parameter of that shape (ParseNpy with an expected shape)
//   byte % 6 == 4  an XLA dump folder: files as records (the name's length in a byte, the
//                  name, the content's length in two bytes little-endian, the content),
//                  written to a temporary folder, indexed (importers::IndexDumpFolder),
//                  every HLO file of every module loaded (LoadDumpHlo), and the folder
//                  loaded as `fusebox run DIR` loads it (LoadFile)
//   byte % 6 == 5  an .npz archive (a zip of .npy files): its members read
//                  (importers::ReadNpz, each member as .npy), then the archive matched to
//                  the parameters `x.1: f32[2,3]` and `y: s32[4]` as `--inputs` does it
//                  (LoadArgumentFiles: by name, by name without ".N", or arr_<p>)
// Whatever the bytes, the reader returns a value or an error whose message starts with the
// file's name (names the folder or the file, for dump folders); the index's JSON parses; a module it returns prints to HLO text that parses again and prints the
// same; an array it returns (an .npy file's, a snapshot's arguments and result) writes as
// .npy and reads back to the same bytes, and has the expected shape when one was given;
// arguments matched to parameters have the parameters' shapes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fusebox::fuzz {

enum class InputReader { kHloProto, kGzipHloProto, kNpy, kNpyWithShape, kDumpFolder, kNpz };

// The reader `input` goes to (kHloProto for an empty input).
InputReader ReaderOf(std::string_view input);
std::string_view InputReaderName(InputReader reader);

// Writes the records of a dump-folder input's body (a name's length in one byte, the name,
// the content's length in two bytes little-endian, the content; the last record takes what
// is left; at most 64) as files of `dir`, which it empties first. Names keep [A-Za-z0-9._-],
// anything else becomes '_', and "." and ".." become "_". False when `dir` cannot be made.
bool WriteFolderRecords(std::string_view body, const std::filesystem::path& dir);

// Feeds input[1:] to its reader and checks the properties above. Returns "" when they all
// hold, else what did not (with enough of the reader's answer to see why).
std::string CheckInput(std::string_view input);

}  // namespace fusebox::fuzz
