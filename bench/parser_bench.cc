// Parser and printer throughput (MB/s) on the largest corpus file and on a large
// synthetic module. Measures only; run `build/release/bench/parser_bench`.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/parser/parser.h"

namespace fusebox {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The largest .hlo file of the corpus (by bytes).
const std::string& LargestCorpusFile(std::string* name = nullptr) {
  static std::string text, file;
  if (text.empty()) {
    fs::path root = fs::path(FUSEBOX_SOURCE_DIR) / "tests/data/xla_corpus";
    uintmax_t best = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      if (e.is_regular_file() && e.path().extension() == ".hlo" && e.file_size() > best) {
        best = e.file_size();
        file = e.path().string();
      }
    }
    text = ReadFile(file);
  }
  if (name) *name = file;
  return text;
}

// A dump-like module of ~n instructions with metadata on every line, as XLA writes them.
std::string SyntheticModule(int n) {
  std::string out = "HloModule synthetic, entry_computation_layout={(f32[1024,256]{1,0})->f32[1024,256]{1,0}}\n\n";
  out += "ENTRY %main (p: f32[1024,256]) -> f32[1024,256] {\n";
  out += "  %p = f32[1024,256]{1,0} parameter(0), metadata={op_name=\"p\"}\n";
  std::string prev = "p";
  for (int i = 0; i < n; ++i) {
    std::string name = "v." + std::to_string(i);
    const char* op = i % 3 == 0 ? "add" : i % 3 == 1 ? "multiply" : "maximum";
    out += (i + 1 == n ? "  ROOT %" : "  %") + name + " = f32[1024,256]{1,0} " + op + "(%" + prev +
           ", %" + prev + "), metadata={op_type=\"AddV2\" op_name=\"model/layer_" +
           std::to_string(i) + "/" + op + "\" source_file=\"/home/user/model.py\" source_line=" +
           std::to_string(100 + i) + "}\n";
    prev = name;
  }
  out += "}\n";
  return out;
}

void BM_ParseLargestCorpusFile(benchmark::State& state) {
  std::string name;
  const std::string& text = LargestCorpusFile(&name);
  for (auto _ : state) {
    auto r = ParseModules(text);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.SetLabel(fs::path(name).filename().string());
}
BENCHMARK(BM_ParseLargestCorpusFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ParseSynthetic(benchmark::State& state) {
  std::string text = SyntheticModule(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = ParseModule(text);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
  state.counters["instructions"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_ParseSynthetic)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PrintLargestCorpusFile(benchmark::State& state) {
  auto r = ParseModules(LargestCorpusFile());
  if (!r.ok()) {
    state.SkipWithError(r.status().message().c_str());
    return;
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string out = r->modules[0]->ToString();
    bytes += out.size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}
BENCHMARK(BM_PrintLargestCorpusFile)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace fusebox

BENCHMARK_MAIN();
