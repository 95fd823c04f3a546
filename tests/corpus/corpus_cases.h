// The corpus cases shared by the differential tests: every module of every example and
// corpus file that parses, with helpers to size and name them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "compiler/interpreter/literal_compare.h"
#include "compiler/parser/parser.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_SANITIZED 1
#endif
#endif

namespace fusebox::testing_util {

namespace corpus_fs = std::filesystem;

struct Case {
  std::string file;
  size_t module_index;
  bool example;
};
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.file << "#" << c.module_index; }

inline std::vector<Case> AllCases() {
  std::vector<Case> cases;
  corpus_fs::path src(FUSEBOX_SOURCE_DIR);
  for (const char* dir : {"assets/examples", "tests/data/xla_corpus"}) {
    std::vector<corpus_fs::path> files;
    for (const auto& e : corpus_fs::recursive_directory_iterator(src / dir)) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".hlo" || ext == ".txt")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const corpus_fs::path& f : files) {
      auto parsed = ParseFile(f.string());
      if (!parsed.ok()) continue;
      for (size_t i = 0; i < parsed->modules.size(); ++i) {
        cases.push_back({corpus_fs::relative(f, src).string(), i, std::string(dir) == "assets/examples"});
      }
    }
  }
  return cases;
}

inline int64_t InputElements(const Module& m) {
  int64_t total = 0;
  for (const Instruction* p : m.entry()->parameters()) {
    if (p == nullptr) continue;
    ForEachSubshape(p->shape(), [&](const Shape& s, const std::vector<int64_t>&) {
      if (s.IsArray()) total += std::max<int64_t>(s.ElementCount(), 0);
    });
  }
  return total;
}

// Modules whose results depend on summation order more than the element type's default
// tolerance allows, with the tolerance they get and why. The interpreter sums in double
// in order; the backends sum in the element type, reassociated (vectorized, split, warp
// trees) or blocked (Eigen's GEMM).
struct LooseTolerance {
  interpreter::CompareOptions options;
  const char* why;
};
inline const std::map<std::string, LooseTolerance>& LooseTolerances() {
  static const auto* list = new std::map<std::string, LooseTolerance>{
      {"pairwise_biot_savart_grad_2048_f64.hlo", {{1e-9, 1e-9}, "2048-term f64 sums with cancellation"}},
      {"pairwise_gravity_grad_2048_f64.hlo", {{1e-9, 1e-9}, "2048-term f64 sums with cancellation"}},
      {"pairwise_rbf_gradient_grad_2048_f32.hlo", {{1e-2, 1e-3}, "2048-term f32 sums with cancellation"}},
      {"pairwise_sum_distances_grad_2048_f32.hlo", {{1e-2, 1e-3}, "2048-term f32 sums with cancellation"}},
      {"xnn.parallel_dots.optimized.hlo", {{1e-3, 1e-4}, "f32 dots: GEMM blocking order vs in-order double"}},
      {"xnn.sequential_dots.optimized.hlo", {{1e-3, 1e-4}, "chained f32 dots: GEMM blocking order"}},
  };
  return *list;
}

// "12_name_0": the case's index, file stem and module index, as a test name.
inline std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::to_string(info.index) + "_" + corpus_fs::path(info.param.file).stem().string() +
                     "_" + std::to_string(info.param.module_index);
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace fusebox::testing_util
