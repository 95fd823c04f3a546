// libFuzzer target for the HLO text parser. Any input must parse or fail with a
// located message; anything that parses must print to text that parses again and
// prints the same (print is a fixed point), and the verifier must not crash on it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "compiler/parser/parser.h"
#ifdef FUSEBOX_FUZZ_VERIFIER
#include "compiler/verifier/verifier.h"
#endif

namespace {

[[noreturn]] void Die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "parser_fuzzer: %s\n%s\n", what, detail.c_str());
  __builtin_trap();
}

void CheckModule(const fusebox::Module& module) {
  std::string printed = module.ToString();
  auto reparsed = fusebox::ParseModules(printed);
  if (!reparsed.ok()) {
    Die("printed module does not parse again", reparsed.status().message() + "\n--- printed:\n" + printed);
  }
  if (reparsed->modules.size() != 1) {
    Die("printed module parses as several modules", printed);
  }
  std::string again = reparsed->modules.front()->ToString();
  if (again != printed) {
    Die("print is not a fixed point", "--- first print:\n" + printed + "\n--- second print:\n" + again);
  }
#ifdef FUSEBOX_FUZZ_VERIFIER
  // Errors are fine (most fuzzed modules are ill-typed); crashes are not.
  (void)fusebox::VerifyModule(module);
  (void)fusebox::VerifyModule(*reparsed->modules.front());
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);

  auto shape = fusebox::ParseShape(text);
  if (shape.ok()) {
    std::string printed = shape->ToString();
    auto again = fusebox::ParseShape(printed);
    if (!again.ok() || again->ToString() != printed) Die("shape does not round-trip", printed);
  }

  auto parsed = fusebox::ParseModules(text);
  if (!parsed.ok()) {
    // Every error is located: "<text>:LINE:COL: ..." (or "<text>: ..." for resource limits).
    if (parsed.status().message().rfind("<text>:", 0) != 0) {
      Die("error message without a location", parsed.status().message());
    }
    return 0;
  }
  for (const auto& module : parsed->modules) CheckModule(*module);
  return 0;
}
