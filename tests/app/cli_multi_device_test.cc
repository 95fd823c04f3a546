// CLI tests of multi-device runs: XLA's partitioned jax programs (tests/data/multidevice)
// run with `fusebox run --devices N` on the interpreter and the CPU backend, fused and
// unfused, reproduce XLA's outputs under --expected; wrong expected outputs fail; the
// Chrome trace of an 8-device run has 8 device processes with their collectives.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <iterator>
#include <set>
#include <string>

#include "compiler/interpreter/npy.h"
#include "tests/app/cli_test_util.h"

namespace {

using fusebox::cli_test::Result;
using fusebox::cli_test::RunFusebox;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Dir(const std::string& program) {
  return std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/" + program;
}

std::string ExpectedList(const std::string& program) {
  std::string list;
  for (int i = 0;; ++i) {
    std::string path = Dir(program) + "/expected" + std::to_string(i) + ".npy";
    if (!std::filesystem::exists(path)) break;
    list += (list.empty() ? "" : ",") + path;
  }
  return list;
}

class CliMultiDeviceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CliMultiDeviceTest, XlasPartitionedModuleMatchesXlasOutputs) {
  const std::string p = GetParam();
  for (const char* how : {"--backend interpreter", "--backend cpu", "--backend cpu --unfused"}) {
    SCOPED_TRACE(how);
    Result r = RunFusebox("run " + Dir(p) + "/partitioned.hlo --inputs " + Dir(p) + "/inputs.npz --expected " +
                          ExpectedList(p) + " " + how);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, AllOf(HasSubstr("expected: matches the expected outputs"), HasSubstr(" devices on "),
                             Not(HasSubstr("warning:"))));
  }
}

TEST_P(CliMultiDeviceTest, FuseboxPartitionsTheGlobalModuleAndMatchesXlasOutputs) {
  // module.hlo is what jax gave XLA (Shardy attributes, shardings, shard_map regions):
  // Fusebox partitions it itself, then runs it on the devices it names.
  const std::string p = GetParam();
  for (const char* how : {"--backend interpreter", "--backend cpu", "--backend cpu --unfused"}) {
    SCOPED_TRACE(how);
    Result r = RunFusebox("run " + Dir(p) + "/module.hlo --inputs " + Dir(p) + "/inputs.npz --expected " +
                          ExpectedList(p) + " " + how);
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, AllOf(HasSubstr("partitioned jit_"), HasSubstr("expected: matches the expected outputs"),
                             Not(HasSubstr("error:"))));
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, CliMultiDeviceTest,
                         ::testing::Values("dp_train_step", "tp_mlp", "fsdp_layer", "shard_map_collectives",
                                           "sharded_xent", "psum_8dev", "conv_dp_grad", "vocab_embedding",
                                           "vocab_xent_grad", "fsdp_adam_step", "sharded_cumsum",
                                           "spatial_conv_pool", "argmax_sort", "pad_slice_concat",
                                           "linalg_depthwise_remat", "kv_cache_decode", "uneven_splits",
                                           "partial_manual_step", "shard_map_grad",
                                           "nested_shard_map"));

// Collectives of Fusebox's per-device program (the spmd-partitioner's plus the program's
// own in shard_map regions) by kind, from `fusebox compile --stage optimized_hlo`.
std::map<std::string, int> CollectiveCounts(const std::string& text) {
  std::map<std::string, int> counts;
  for (const char* kind : {"all-reduce(", "all-gather(", "reduce-scatter(", "all-to-all(", "collective-permute("}) {
    size_t at = 0;
    while ((at = text.find(std::string(" ") + kind, at)) != std::string::npos) {
      ++counts[std::string(kind, std::string(kind).size() - 1)];
      ++at;
    }
  }
  return counts;
}

TEST(CliMultiDeviceTest, CollectivesAgainstXlas) {
  struct Want {
    const char* program;
    std::map<std::string, int> fusebox;  // what Fusebox's program has
    std::map<std::string, int> xla;      // what XLA's partitioned.hlo has (manifest.json)
  };
  const Want wants[] = {
      // The same as XLA's.
      {"tp_mlp", {{"all-reduce", 1}}, {{"all-reduce", 1}}},
      {"sharded_xent", {{"all-reduce", 3}}, {{"all-reduce", 3}}},
      {"psum_8dev", {{"all-reduce", 1}, {"all-gather", 1}}, {{"all-reduce", 1}, {"all-gather", 1}}},
      {"shard_map_collectives",
       {{"collective-permute", 1}, {"all-gather", 1}, {"reduce-scatter", 1}, {"all-to-all", 1}},
       {{"collective-permute", 1}, {"all-gather", 1}, {"reduce-scatter", 1}, {"all-to-all", 1}}},
      // The step's five pmeans are independent: one tuple all-reduce, as XLA's all-reduce
      // combiner makes it (Fusebox's all-reduce-combiner).
      {"dp_train_step", {{"all-reduce", 1}}, {{"all-reduce", 1}}},
      // The same as XLA's: propagation merges x's and w1's candidates so the first dot is
      // [2,2], whose contracting dim the partitioner gathers (w1 over 'data'); the second
      // dot all-gathers w2 and all-reduces; b2 is gathered before its broadcast.
      {"fsdp_layer", {{"all-gather", 3}, {"all-reduce", 1}}, {{"all-gather", 3}, {"all-reduce", 1}}},
      // The weight gradient's convolution contracts over the split batch: partial sums,
      // all-reduced together with the loss's (combined).
      {"conv_dp_grad", {{"all-reduce", 1}}, {{"all-reduce", 1}}},
      // The table's rows are looked up where they lie, masked, and summed.
      {"vocab_embedding", {{"all-reduce", 1}}, {{"all-reduce", 1}}},
      // Max and sum of the log-softmax, the masked gather of the labels' logits (combined
      // with the gradient's sum, as XLA's combiner does), the loss's mean. The gradient's
      // scatter-add lands on each vocabulary piece where it lies.
      {"vocab_xent_grad", {{"all-reduce", 4}}, {{"all-reduce", 4}}},
      // The weight split over all 8 devices is gathered for the dot; the two variance
      // sums and the weight gradient are all-reduced over 'data' only.
      {"fsdp_adam_step", {{"all-gather", 1}, {"all-reduce", 3}}, {{"all-gather", 1}, {"all-reduce", 3}}},
      // The summed dim is gathered; the batch stays split.
      {"sharded_cumsum", {{"all-gather", 1}}, {{"all-gather", 1}}},
      // The image split by height: the convolution's halo is a row from each neighbour,
      // the pool's one row from below; no gather of the image.
      {"spatial_conv_pool", {{"collective-permute", 3}}, {{"collective-permute", 3}}},
      // The argmax's partial (value, index) pairs gathered and reduced again, the max's
      // all-reduce, the sort's split moved to the batch dim and back: as XLA.
      {"argmax_sort", {{"all-gather", 2}, {"all-reduce", 1}, {"all-to-all", 2}},
       {{"all-gather", 2}, {"all-reduce", 1}, {"all-to-all", 2}}},
      // The pad's and the slice's windows come from the neighbours as in XLA's plan (1 and
      // 2 collective-permutes, the same pairs); the concatenation reads its operands'
      // windows (3 collective-permutes) where XLA moves the split to the columns and back
      // (3 all-to-alls); the roll is a rotation of x: 2 collective-permutes around the ring,
      // XLA's pairs (4, one per slice and distance, before 2026-12-03); CSE merges the pad's
      // and the concatenation's, which move x's tiles to the same devices.
      {"pad_slice_concat", {{"collective-permute", 7}}, {{"collective-permute", 5}, {"all-to-all", 3}}},
      // The Cholesky factorizations split by their sharding rule, the median's gather of
      // its split sorted array, the depthwise convolution split on channels in whole
      // groups and the rematerialized MLP's barrier need nothing; the weight gradients'
      // partial sums are one all-reduce (combined), as XLA.
      {"linalg_depthwise_remat", {{"all-reduce", 1}}, {{"all-reduce", 1}}},
      // The new key and value are written where they lie; the softmax over the split
      // sequence needs its max and sum, the weighted values their sum; the reversed cache
      // is one collective-permute mirroring the tiles: as XLA.
      {"kv_cache_decode", {{"all-reduce", 3}, {"collective-permute", 1}}, {{"all-reduce", 3}, {"collective-permute", 1}}},
      // Splits whose tiles do not divide their dim: XLA pads the last tiles and keeps them
      // split (halos for the pooling gradient and the scan's strided slices, all-to-alls to
      // move the scan's split); Fusebox computes such values whole along that dim, each one
      // recorded as an uneven-split decision, and gathers what they read (CSE merges the
      // gathers of the same tiles).
      {"uneven_splits", {{"all-gather", 11}},
       {{"all-gather", 1}, {"all-reduce", 1}, {"all-to-all", 15}, {"collective-permute", 26}}},
      // A shard_map manual over 'data' only, 'model' left open in the region ({?}): the
      // weights enter split over 'model' as they lie, the hidden layer stays split, the
      // second dot's partial sums are all-reduced over 'model', the program's pmeans are
      // one combined all-reduce over 'data' and its ppermute one permute: as XLA's, the
      // gradients' outputs split over 'model' as XLA's too.
      {"partial_manual_step", {{"all-reduce", 2}, {"collective-permute", 1}},
       {{"all-reduce", 2}, {"collective-permute", 1}}},
      // The gradient through a shard_map manual over 'model': the forward region's
      // residuals leave split over 'model' with the dim open ({"model", ?}) and the batch
      // split over 'data' inside; the open dim takes 'data' after 'model', as Shardy
      // extends it, so they reach the backward region as they lie. Until 2026-12-03 such
      // a dim was closed: 6 all-gathers over 'data' more than XLA's plan.
      {"shard_map_grad", {{"all-reduce", 3}}, {{"all-reduce", 3}}},
      // A shard_map over 'model' inside one over 'data': the inner region starts from the
      // outer's partially manual values (the weights split over 'model' as they lie) and
      // is manual over both axes; its psum and the outer's pmean are the program's own,
      // nothing moves between them. Refused by name until 2026-12-03.
      {"nested_shard_map", {{"all-reduce", 2}}, {{"all-reduce", 2}}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(w.program);
    Result r = fusebox::cli_test::RunFuseboxStdout("compile " + Dir(w.program) + "/module.hlo --stage optimized_hlo");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_EQ(CollectiveCounts(r.out), w.fusebox);
    std::ifstream in(Dir(w.program) + "/partitioned.hlo");
    std::string xla((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(CollectiveCounts(xla), w.xla);
  }
}

TEST(CliMultiDeviceTest, ExplainCollectivesGivesTheReasons) {
  Result r = RunFusebox("explain " + Dir("tp_mlp") + "/module.hlo --collectives");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("all-reduce"), HasSubstr("groups={{0,1,2,3}}"),
                           HasSubstr("contracting dim 1 of %"), HasSubstr("is split 4 ways")));
}

// Splits whose tiles do not divide their dim: the run's partitioning line counts the
// instructions computed whole along them apart from the collectives, and explain names each.
TEST(CliMultiDeviceTest, UnevenSplitsAreNamedApartFromTheCollectives) {
  Result r = RunFusebox("run " + Dir("uneven_splits") + "/module.hlo --inputs " + Dir("uneven_splits") +
                        "/inputs.npz --backend interpreter");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("all-gather; 17 computed whole along a dim their split does not divide"),
                           Not(HasSubstr("uneven-split"))));
  Result e = RunFusebox("explain " + Dir("uneven_splits") + "/module.hlo --collectives");
  EXPECT_EQ(e.code, 0) << e.out;
  EXPECT_THAT(e.out, AllOf(HasSubstr("uneven-split"), HasSubstr("do not split dim 0 of size 10 into 4 tiles evenly"),
                           HasSubstr("XLA pads the last tiles instead")));
}

// The corpus's two modules with 8-device collectives: XLA's L2-prefetch test (an
// all-reduce over 8 replicas) runs on 8 devices; the collective-CSE test calls an opaque
// custom-call target, which no backend can run faithfully, and says so.
TEST(CliMultiDeviceTest, CorpusModulesWithEightDeviceCollectives) {
  const std::string corpus = std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/xla_corpus/openxla_xla/xla/";
  const std::string prefetch = corpus + "service/gpu/tests/l2_prefetch.hlo";
  Result r = RunFusebox("run " + prefetch + " --backend cpu");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("on 8 devices"), HasSubstr("{0,1,2,3,4,5,6,7}"), HasSubstr("output: bf16[")));
  Result cse = RunFusebox("run " + corpus + "tools/hlo_opt/tests/gpu_hlo_collective_cse.hlo");
  EXPECT_EQ(cse.code, 1) << cse.out;
  EXPECT_THAT(cse.out, AllOf(HasSubstr("my_custom_call1"), Not(HasSubstr("output:"))));
}

// The report of XLA's partitioned module takes global .npy inputs (what run --save-inputs
// writes), not tiles.
TEST(CliMultiDeviceTest, ReportTakesGlobalInputsOfAPartitionedModule) {
  const std::string out = testing::TempDir() + "/psum_8dev_inputs";
  const std::string p = Dir("psum_8dev");
  Result saved = RunFusebox("run " + p + "/partitioned.hlo --inputs " + p + "/inputs.npz --save-inputs --output-dir " + out);
  ASSERT_EQ(saved.code, 0) << saved.out;
  Result report = RunFusebox("report " + p + "/partitioned.hlo --inputs " + out + "/input_0.npy --iterations 1 --out " +
                             testing::TempDir() + "/psum_8dev_report");
  EXPECT_EQ(report.code, 0) << report.out;
  EXPECT_THAT(report.out, Not(HasSubstr("error")));
}

// jax's module leaves its outputs' shardings to XLA's propagation (no sharding on its
// root): with it as --unpartitioned, XLA's per-device outputs are assembled by Fusebox's
// own propagation, accepted only where it splits them as XLA's program does.
TEST(CliMultiDeviceTest, OutputShardingsFromPropagationWhenTheModuleHasNone) {
  for (const char* p : {"vocab_embedding", "fsdp_adam_step", "sharded_cumsum", "vocab_xent_grad"}) {
    SCOPED_TRACE(p);
    Result r = RunFusebox("run " + Dir(p) + "/partitioned.hlo --unpartitioned " + Dir(p) + "/module.hlo --inputs " +
                          Dir(p) + "/inputs.npz --expected " + ExpectedList(p) + " --backend cpu");
    EXPECT_EQ(r.code, 0) << r.out;
    EXPECT_THAT(r.out, AllOf(HasSubstr("assembled by Fusebox's sharding propagation over it"),
                             HasSubstr("expected: matches the expected outputs")));
  }
  // Where propagation would split the output otherwise than the per-device program, the
  // run stops and says so: an FFT's transformed dim is cut by Fusebox's propagation
  // (replicated), while this per-device program keeps it split.
  const std::string dir = testing::TempDir() + "/propagation_disagrees";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/global.hlo") << "HloModule g, num_partitions=2\n\nENTRY main {\n"
                                        "  x = c64[4,8] parameter(0), sharding={devices=[1,2]<=[2]}\n"
                                        "  ROOT r = c64[4,8] fft(x), fft_type=FFT, fft_length={8}\n}\n";
  std::ofstream(dir + "/per_device.hlo") << "HloModule p, num_partitions=2\n\nENTRY main_spmd {\n"
                                            "  x = c64[4,4] parameter(0), sharding={devices=[1,2]<=[2]}\n"
                                            "  ROOT r = c64[4,4] fft(x), fft_type=FFT, fft_length={4}\n}\n";
  Result r = RunFusebox("run " + dir + "/per_device.hlo --unpartitioned " + dir + "/global.hlo --backend interpreter");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("the outputs carry no sharding"), HasSubstr("not the per-device program's c64[4,4]"),
                           HasSubstr("--output-sharding"), Not(HasSubstr("output_0:"))));
  // Given, it runs.
  Result given = RunFusebox("run " + dir + "/per_device.hlo --unpartitioned " + dir +
                            "/global.hlo --backend interpreter --output-sharding '{devices=[1,2]<=[2]}'");
  EXPECT_EQ(given.code, 0) << given.out;
}

TEST(CliMultiDeviceTest, WrongExpectedOutputsFail) {
  // tp_mlp's output scaled by 1.001: every element off by far more than rounding.
  const std::string p = "tp_mlp";
  auto expected = fusebox::interpreter::ReadNpy(Dir(p) + "/expected0.npy");
  ASSERT_TRUE(expected.ok());
  for (int64_t i = 0; i < expected->element_count(); ++i) expected->SetDouble(i, expected->GetDouble(i) * 1.001 + 1e-3);
  const std::string wrong = testing::TempDir() + "/tp_mlp_wrong.npy";
  ASSERT_TRUE(fusebox::interpreter::WriteNpy(wrong, *expected).ok());
  Result r = RunFusebox("run " + Dir(p) + "/partitioned.hlo --inputs " + Dir(p) + "/inputs.npz --expected " + wrong +
                        " --backend cpu");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("expected: MISMATCH"));
}

TEST(CliMultiDeviceTest, CheckAgainstTheInterpreterOnTheSameDevices) {
  const std::string p = "sharded_xent";
  Result r = RunFusebox("run " + Dir(p) + "/partitioned.hlo --inputs " + Dir(p) + "/inputs.npz --backend cpu --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("check: matches the interpreter"));
}

TEST(CliMultiDeviceTest, TooFewDevicesIsAnError) {
  Result r = RunFusebox("run " + Dir("tp_mlp") + "/partitioned.hlo --devices 2");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, AllOf(HasSubstr("needs 4 devices; this run has 2"), Not(HasSubstr("output:"))));
}

TEST(CliMultiDeviceTest, PerDeviceShapedInputsAreRefused) {
  // Device 0's tile of x (f32[8,16] split 4 ways on dim 0 in dp_train_step): 2 rows.
  const std::string tile = testing::TempDir() + "/tile.npy";
  fusebox::Literal l(fusebox::Shape(fusebox::PrimitiveType::kF32, {4, 16}));
  ASSERT_TRUE(fusebox::interpreter::WriteNpy(tile, l).ok());
  Result r = RunFusebox("run " + Dir("psum_8dev") + "/partitioned.hlo --inputs " + tile);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_THAT(r.out, Not(HasSubstr("output:")));
}

TEST(CliMultiDeviceTest, EightDeviceTraceHasATrackPerDeviceWithItsCollectives) {
  const std::string trace = testing::TempDir() + "/psum_8dev_trace.json";
  const std::string p = "psum_8dev";
  Result r = RunFusebox("run " + Dir(p) + "/partitioned.hlo --inputs " + Dir(p) + "/inputs.npz --backend cpu --trace " +
                        trace);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("8 device tracks"));
  std::ifstream in(trace);
  nlohmann::json j = nlohmann::json::parse(in);
  const nlohmann::json& events = j.is_array() ? j : j["traceEvents"];
  std::map<int, std::string> process_names;
  std::map<int, int> collectives_per_pid;
  std::set<std::string> kinds;
  for (const auto& e : events) {
    if (e.value("ph", "") == "M" && e.value("name", "") == "process_name") {
      process_names[e["pid"].get<int>()] = e["args"]["name"].get<std::string>();
    }
    if (e.value("cat", "") == "collective") {
      ++collectives_per_pid[e["pid"].get<int>()];
      kinds.insert(e["args"]["kind"].get<std::string>());
      EXPECT_GT(e["args"]["bytes_read"].get<int64_t>(), 0);
      EXPECT_EQ(e["args"]["group"].get<std::string>(), "{0,1,2,3,4,5,6,7}");
    }
  }
  std::set<std::string> devices;
  for (const auto& [pid, name] : process_names) {
    if (name.rfind("device ", 0) == 0) {
      devices.insert(name);
      EXPECT_EQ(collectives_per_pid[pid], 2) << name;  // one all-reduce, one all-gather each
    }
  }
  EXPECT_EQ(devices.size(), 8u);
  EXPECT_EQ(kinds, (std::set<std::string>{"all-reduce", "all-gather"}));
}

}  // namespace
