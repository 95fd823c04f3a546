// libFuzzer target for the files users hand Fusebox besides HLO text: XLA's binary HLO
// protos (plain or gzip), NumPy .npy and .npz arguments and XLA dump folders. The first
// byte of an input chooses the reader, the rest is the file; fuzz/input_checks.h says what
// must hold. Seeds: fuzz/input_corpus/ (real dump protos, an HloSnapshot, NumPy's own .npy
// files, dump folders, .npz archives). Run by
// `scripts/fuzz.sh --inputs SECONDS`.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz/input_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string failed = fusebox::fuzz::CheckInput(input);
  if (!failed.empty()) {
    std::fprintf(stderr, "input_fuzzer (%s): %s\n",
                 std::string(fusebox::fuzz::InputReaderName(fusebox::fuzz::ReaderOf(input))).c_str(),
                 failed.c_str());
    __builtin_trap();
  }
  return 0;
}
