// The source map on the bundled examples: instructions map to the fusion that runs them,
// kernels to LLVM functions and PTX entries that the stage texts really define, at the
// lines the map says; the JSON holds the same.
#include "compiler/session/source_map.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/parser/parser.h"
#include "compiler/session/compile_session.h"
#include "tests/compiler/session/example_session.h"

namespace fusebox::session {
namespace {

// Line `line` (1-based) of `text`.
std::string LineOf(const std::string& text, int64_t line) {
  std::istringstream in(text);
  std::string l;
  for (int64_t i = 0; i < line && std::getline(in, l); ++i) {
  }
  return l;
}

// `name` is defined in `text` at the map's location for `stage`: the line defines it and
// the column points at the name.
void ExpectDefinedAt(const KernelSource& kernel, const std::string& name, const std::string& stage,
                     const std::string& text, const std::string& definition) {
  auto it = kernel.locations.find(name);
  ASSERT_NE(it, kernel.locations.end()) << name << " has no locations";
  const SourceLocation* found = nullptr;
  for (const SourceLocation& l : it->second) {
    if (l.stage == stage) found = &l;
  }
  ASSERT_NE(found, nullptr) << name << " has no location in " << stage;
  const std::string line = LineOf(text, found->line);
  EXPECT_NE(line.find(definition), std::string::npos) << stage << ":" << found->line << ": " << line;
  EXPECT_EQ(line.substr(found->column - 1, name.size()), name) << line;
}

bool Defines(const std::string& text, const std::string& definition) {
  return text.find(definition) != std::string::npos;
}

TEST(SourceMapTest, RunningExampleLinksEveryStage) {
  auto session = SessionOf("running_example.hlo");
  ASSERT_NE(session, nullptr);
  auto map = BuildSourceMap(*session);
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_TRUE(map->notes().empty());

  // The whole computation is one input fusion named "fusion"; the parameters are their
  // own; the divide became a multiply by the reciprocal (a new name).
  ASSERT_NE(map->KernelOf("integer_pow.1"), nullptr);
  EXPECT_EQ(*map->KernelOf("integer_pow.1"), "fusion");
  EXPECT_EQ(*map->KernelOf("reduce_sum.7"), "fusion");
  EXPECT_EQ(*map->KernelOf("x.1"), "x.1");
  EXPECT_EQ(map->KernelOf("div.1"), nullptr);
  bool saw_div = false;
  for (const InstructionSource& inst : map->instructions()) {
    if (inst.name == "add.1") {
      EXPECT_EQ(inst.kernel, "fusion");
    }
    if (inst.name == "div.1") {
      saw_div = true;
      EXPECT_EQ(inst.kernel, "");
      ASSERT_TRUE(inst.location.has_value());
      EXPECT_EQ(inst.location->ToString(), "hlo:40:9");  // ROOT %div.1 = ...
    }
  }
  EXPECT_TRUE(saw_div);

  const KernelSource* fusion = map->FindKernel("fusion");
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->fusion_kind, "kInput");
  EXPECT_TRUE(fusion->runs_code);
  EXPECT_EQ(fusion->cpu_functions, (std::vector<std::string>{"fusion.kernel", "fusion.partials"}));
  EXPECT_EQ(fusion->cpu_trace_names, (std::vector<std::string>{"fusion"}));
  // The GPU's code is on the GPU module's side (gpu_optimized_hlo: here the same fusion).
  const KernelSource* gpu_fusion = map->FindGpuKernel("fusion");
  ASSERT_NE(gpu_fusion, nullptr);
  EXPECT_TRUE(fusion->ptx_entries.empty());
  // One launch on the GPU (its last block folds the partials).
  EXPECT_EQ(gpu_fusion->ptx_entries, (std::vector<std::string>{"fusion_kernel"}));
  EXPECT_EQ(gpu_fusion->gpu_trace_names, (std::vector<std::string>{"fusion_kernel"}));
  ASSERT_NE(map->GpuKernelOf("integer_pow.1"), nullptr);
  EXPECT_EQ(*map->GpuKernelOf("integer_pow.1"), "fusion");
  EXPECT_EQ(map->LinkedNames("mul.3"),
            (std::vector<std::string>{"mul.3", "fusion", "fusion.kernel", "fusion.partials", "fusion_kernel"}));
  // A region a reduce applies links to itself and is no kernel.
  const KernelSource* region_add = map->FindKernel("reduce_sum.5");
  ASSERT_NE(region_add, nullptr);
  EXPECT_FALSE(region_add->runs_code);

  const std::string llvm_ir = StageOf(*session, Stage::kLlvmIr);
  const std::string ptx = StageOf(*session, Stage::kPtx);
  const std::string optimized = StageOf(*session, Stage::kOptimizedHlo);
  for (const std::string& f : fusion->cpu_functions) {
    EXPECT_TRUE(Defines(llvm_ir, "define void @" + f + "(")) << f;
    ExpectDefinedAt(*fusion, f, "llvm_ir", llvm_ir, "define void @" + f + "(");
  }
  for (const std::string& e : gpu_fusion->ptx_entries) {
    EXPECT_TRUE(Defines(ptx, ".entry " + e + "(")) << e;
    ExpectDefinedAt(*gpu_fusion, e, "ptx", ptx, ".entry " + e + "(");
  }
  ExpectDefinedAt(*fusion, "fusion", "optimized_hlo", optimized, "ROOT %fusion = f32[] fusion(");
  const std::string gpu_optimized = StageOf(*session, Stage::kGpuOptimizedHlo);
  ExpectDefinedAt(*gpu_fusion, "fusion", "gpu_optimized_hlo", gpu_optimized, "ROOT %fusion = f32[] fusion(");
}

// mnist_train_step's multi-output fusions: built in two levels (fusion, then
// multi-output-fusion merges siblings), fusion.5 runs as two kernels on each backend.
// Without GPU libraries both backends compile the same module.
TEST(SourceMapTest, MultiOutputFusionsOfMnist) {
  auto session = SessionOf("mnist_train_step.hlo");
  ASSERT_NE(session, nullptr);
  session->SetGpuLibraries(false);
  auto map = BuildSourceMap(*session);
  ASSERT_TRUE(map.ok()) << map.status().message();
  const std::string llvm_ir = StageOf(*session, Stage::kLlvmIr);
  const std::string ptx = StageOf(*session, Stage::kPtx);
  const std::string optimized = StageOf(*session, Stage::kOptimizedHlo);

  // An input instruction deep in fusion.1's fused computation runs in fusion.1.
  ASSERT_NE(map->KernelOf("mul.31"), nullptr);
  EXPECT_EQ(*map->KernelOf("mul.31"), "fusion.1");
  const KernelSource* fusion1 = map->FindKernel("fusion.1");
  ASSERT_NE(fusion1, nullptr);
  const KernelSource* gpu_fusion1 = map->FindGpuKernel("fusion.1");
  ASSERT_NE(gpu_fusion1, nullptr);
  EXPECT_EQ(fusion1->cpu_functions, (std::vector<std::string>{"fusion.1.kernel"}));
  EXPECT_EQ(gpu_fusion1->ptx_entries, (std::vector<std::string>{"fusion_1_kernel"}));
  ExpectDefinedAt(*fusion1, "fusion.1.kernel", "llvm_ir", llvm_ir, "define void @fusion.1.kernel(");
  ExpectDefinedAt(*gpu_fusion1, "fusion_1_kernel", "ptx", ptx, ".entry fusion_1_kernel(");
  ExpectDefinedAt(*fusion1, "fusion.1", "optimized_hlo", optimized, "%fusion.1 = ");

  ASSERT_NE(map->KernelOf("reduce_sum.54"), nullptr);
  EXPECT_EQ(*map->KernelOf("reduce_sum.54"), "fusion.5");
  const KernelSource* fusion5 = map->FindKernel("fusion.5");
  ASSERT_NE(fusion5, nullptr);
  const KernelSource* gpu_fusion5 = map->FindGpuKernel("fusion.5");
  ASSERT_NE(gpu_fusion5, nullptr);
  EXPECT_EQ(fusion5->cpu_functions, (std::vector<std::string>{"fusion.5.kernel0", "fusion.5.kernel1"}));
  // On the GPU the bias gradient's reduction also writes the elementwise output: one entry.
  EXPECT_EQ(gpu_fusion5->ptx_entries, (std::vector<std::string>{"fusion_5_kernel"}));
  for (const std::string& f : fusion5->cpu_functions) {
    ExpectDefinedAt(*fusion5, f, "llvm_ir", llvm_ir, "define void @" + f + "(");
  }
  for (const std::string& e : gpu_fusion5->ptx_entries) {
    ExpectDefinedAt(*gpu_fusion5, e, "ptx", ptx, ".entry " + e + "(");
  }

  // Every kernel's code names are defined in their stage; no two kernels share one.
  std::set<std::string> seen;
  for (const auto& [name, kernel] : map->kernels()) {
    for (const std::string& f : kernel.cpu_functions) EXPECT_TRUE(Defines(llvm_ir, "@" + f + "(")) << f;
    for (const std::string& c : kernel.code_names) EXPECT_TRUE(seen.insert(c).second) << c;
  }
  for (const auto& [name, kernel] : map->gpu_kernels()) {
    for (const std::string& e : kernel.ptx_entries) EXPECT_TRUE(Defines(ptx, ".entry " + e + "(")) << e;
    for (const std::string& c : kernel.code_names) EXPECT_TRUE(seen.insert(c).second) << c;
  }
}

TEST(SourceMapTest, JsonFollowsTheSchema) {
  auto session = SessionOf("running_example.hlo");
  ASSERT_NE(session, nullptr);
  auto map = BuildSourceMap(*session, {.cpu = true, .gpu = false});
  ASSERT_TRUE(map.ok()) << map.status().message();
  auto json = nlohmann::json::parse(map->ToJson());
  EXPECT_EQ(json["schema"], "fusebox.source_map/2");
  EXPECT_EQ(json["module"], "jit_running_example");
  EXPECT_EQ(json["stages"], nlohmann::json({"hlo", "optimized_hlo", "llvm_ir", "llvm_ir_optimized"}));
  ASSERT_EQ(json["kernels"].size(), 1u);  // only the fusion runs code
  const auto& kernel = json["kernels"][0];
  EXPECT_EQ(kernel["name"], "fusion");
  EXPECT_EQ(kernel["cpu"]["llvm_functions"], nlohmann::json({"fusion.kernel", "fusion.partials"}));
  EXPECT_FALSE(kernel.contains("gpu"));  // the GPU's kernels are gpu_kernels
  EXPECT_TRUE(json["gpu_kernels"].empty());
  EXPECT_EQ(kernel["locations"]["fusion"][0]["stage"], "optimized_hlo");
  bool found = false;
  for (const auto& inst : json["instructions"]) {
    if (inst["name"] != "mul.2") continue;
    found = true;
    EXPECT_EQ(inst["kernel"], "fusion");
    EXPECT_EQ(inst["gpu_kernel"], nullptr);
    EXPECT_EQ(inst["opcode"], "broadcast");
    EXPECT_EQ(inst["location"]["line"], 33);
  }
  EXPECT_TRUE(found);
}

// On the GPU side a library call runs NVIDIA's code ("library call" until the session
// names the library), but a small batched orgqr runs Fusebox's own kernel (jaxlib's plan):
// code of its own, no library; a single matrix's orgqr is cuSOLVER's.
TEST(SourceMapTest, SmallBatchedOrgqrIsAKernelNotALibraryCall) {
  auto orgqr = [](const std::string& dims, const std::string& taus) {
    auto module = ParseModule("HloModule m\nENTRY e {\n  t = f32" + dims + " parameter(0)\n  tau = f32" + taus +
                              " parameter(1)\n  ROOT q = f32" + dims +
                              " custom-call(t, tau), custom_call_target=\"__fusebox$orgqr_transposed\", "
                              "api_version=API_VERSION_TYPED_FFI\n}\n");
    EXPECT_TRUE(module.ok()) << module.status().message();
    return std::move(*module);
  };
  auto small = orgqr("[4,8,8]", "[4,8]");
  SourceMap map;
  map.MapGpuKernels(*small);
  const KernelSource* kernel = map.FindGpuKernel("q");
  ASSERT_NE(kernel, nullptr);
  EXPECT_TRUE(kernel->library.empty()) << kernel->library;
  EXPECT_TRUE(kernel->runs_code);
  auto one = orgqr("[8,8]", "[8]");
  SourceMap library_map;
  library_map.MapGpuKernels(*one);
  kernel = library_map.FindGpuKernel("q");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->library, "library call");
  EXPECT_FALSE(kernel->runs_code);
}

TEST(SourceMapTest, MergeKeepsTheOrderCodeArrivedIn) {
  auto session = SessionOf("running_example.hlo");
  ASSERT_NE(session, nullptr);
  ASSERT_TRUE(session->Optimize().ok());
  auto gpu = session->GpuCompile();
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  // What the workbench does: kernels when the pipeline is done, then each backend's code
  // as its stage is built (here the GPU's first).
  SourceMap map, kernels, code;
  kernels.MapKernels(*session->optimized_module());
  map.Merge(kernels);
  code.AddGpuCode(**gpu);
  map.Merge(code);
  map.Merge(code);  // each name once
  EXPECT_EQ(map.LinkedNames("add.1"), (std::vector<std::string>{"add.1", "fusion", "fusion_kernel"}));
  EXPECT_EQ(map.LinkedNames("fusion"), (std::vector<std::string>{"fusion", "fusion_kernel"}));
  // The CPU's code after it, merged twice: the CPU's names (listed before the GPU's) in
  // the order its code has them, each once.
  auto cpu = session->CpuCompile();
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  SourceMap cpu_code;
  cpu_code.AddCpuCode((*cpu)->code());
  map.Merge(cpu_code);
  map.Merge(cpu_code);
  EXPECT_EQ(map.LinkedNames("fusion"),
            (std::vector<std::string>{"fusion", "fusion.kernel", "fusion.partials", "fusion_kernel"}));
  EXPECT_EQ(map.LinkedNames("unknown"), (std::vector<std::string>{"unknown"}));
  EXPECT_TRUE(map.LinkedNames("").empty());
}

}  // namespace
}  // namespace fusebox::session
