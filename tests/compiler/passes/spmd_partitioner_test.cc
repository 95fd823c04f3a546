// Tests of the SPMD partitioner: hand-written fully sharded modules (as sharding
// propagation leaves them) become per-device programs with the collectives XLA would
// insert, a decision with a reason for each, and the global module's result when run on
// N devices by the multi-device runtime (interpreter per device).
#include "compiler/passes/spmd_partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/runtime/multi_device.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Parse;

struct Partitioned {
  std::unique_ptr<Module> module;
  PassContext context;
};

// Runs the pass; checks that it changed the module, that the result verifies, and that
// it prints as text that parses back to the same text.
std::unique_ptr<Partitioned> Partition(std::string_view text) {
  auto out = std::make_unique<Partitioned>();
  out->module = Parse(text);
  if (out->module == nullptr) return nullptr;
  SpmdPartitioner pass;
  StatusOr<bool> changed = pass.Run(*out->module, out->context);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  if (!changed.ok()) return nullptr;
  EXPECT_TRUE(*changed);
  Status verified = Verify(*out->module);
  EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << out->module->ToString();
  const std::string printed = out->module->ToString();
  auto reparsed = ParseModule(printed);
  EXPECT_TRUE(reparsed.ok()) << reparsed.status().message() << "\n" << printed;
  if (reparsed.ok()) {
    EXPECT_EQ((*reparsed)->ToString(), printed);
  }
  return out;
}

// Instructions per opcode name across the module.
std::map<std::string, int> OpcodeCounts(const Module& module) {
  std::map<std::string, int> counts;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) counts[std::string(OpcodeName(inst->opcode()))]++;
  }
  return counts;
}

int CollectiveCount(const Module& module) {
  int n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += IsCollective(inst->opcode()) ? 1 : 0;
  }
  return n;
}

// The per-device program on `devices` devices gives what the global `reference` gives
// on the same random global inputs (from `seed`), which `set` may edit first (random
// inputs seldom reach the edges a rule must get right).
void ExpectSameGlobalResult(const Module& reference, const Module& partitioned, int64_t devices, uint64_t seed = 1,
                            const std::function<void(std::vector<Literal>&)>& set = {}) {
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(reference, seed);
  ASSERT_TRUE(args.ok()) << args.status().message();
  if (set) set(*args);
  StatusOr<Literal> expected = interpreter::Interpreter().Run(reference, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  StatusOr<Literal> actual = runtime::RunGlobal(partitioned, *args, devices);
  ASSERT_TRUE(actual.ok()) << actual.status().message() << "\n" << partitioned.ToString();
  interpreter::CompareResult result = interpreter::CompareLiterals(*actual, *expected);
  EXPECT_TRUE(result.ok()) << result.ToString() << "\n" << partitioned.ToString();
}

void ExpectSameGlobalResult(std::string_view reference_text, const Module& partitioned,
                            int64_t devices) {
  auto reference = Parse(reference_text);
  ASSERT_NE(reference, nullptr);
  ExpectSameGlobalResult(*reference, partitioned, devices);
}

// On random inputs (seed 3) that `set` edits first.
void ExpectSameGlobalResultOn(std::string_view reference_text, const Module& partitioned, int64_t devices,
                              const std::function<void(std::vector<Literal>&)>& set) {
  auto reference = Parse(reference_text);
  ASSERT_NE(reference, nullptr);
  ExpectSameGlobalResult(*reference, partitioned, devices, 3, set);
}

// With integer parameter `param` holding `values`.
void ExpectSameGlobalResultWithInts(std::string_view reference_text, const Module& partitioned, int64_t devices,
                                    int64_t param, const std::vector<int64_t>& values) {
  ExpectSameGlobalResultOn(reference_text, partitioned, devices, [&](std::vector<Literal>& args) {
    for (size_t i = 0; i < values.size(); ++i) args[param].SetInt64(static_cast<int64_t>(i), values[i]);
  });
}

const CollectiveDecision* FindDecision(const PassContext& context, const std::string& kind) {
  for (const CollectiveDecision& d : context.collectives()) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

constexpr char kTpMlp[] = R"(
HloModule tp_mlp, num_partitions=4

ENTRY main {
  x = f32[8,16] parameter(0), sharding={replicated}
  w1 = f32[16,32] parameter(1), sharding={devices=[1,4]<=[4]}
  dot1 = f32[8,32] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[1,4]<=[4]}
  zero = f32[] constant(0), sharding={replicated}
  zeros = f32[8,32] broadcast(zero), dimensions={}, sharding={devices=[1,4]<=[4]}
  relu = f32[8,32] maximum(dot1, zeros), sharding={devices=[1,4]<=[4]}
  w2 = f32[32,16] parameter(2), sharding={devices=[4,1]<=[4]}
  ROOT dot2 = f32[8,16] dot(relu, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={replicated}
}
)";

TEST(SpmdPartitionerTest, TensorParallelMlpHasOneAllReduceAfterTheSecondDot) {
  auto p = Partition(kTpMlp);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  auto counts = OpcodeCounts(m);
  EXPECT_EQ(counts["all-reduce"], 1);
  EXPECT_EQ(CollectiveCount(m), 1) << m.ToString();
  // Per-device shapes, shardings kept on parameters and root, the header kept.
  EXPECT_EQ(m.num_partitions.value_or(0), 4);
  EXPECT_EQ(m.entry()->name(), "main_spmd");
  const Instruction* w1 = m.entry()->parameter(1);
  EXPECT_EQ(w1->shape().ToString(false), "f32[16,8]");
  EXPECT_TRUE(w1->attrs().has_sharding);
  EXPECT_EQ(m.entry()->parameter(2)->shape().ToString(false), "f32[8,16]");
  const Instruction* root = m.entry()->root();
  EXPECT_EQ(root->opcode(), Opcode::kAllReduce);
  EXPECT_EQ(root->operand(0)->name(), "dot2");
  EXPECT_EQ(root->operand(0)->opcode(), Opcode::kDot);
  EXPECT_EQ(root->operand(0)->shape().ToString(false), "f32[8,16]");
  EXPECT_TRUE(root->attrs().has_sharding);
  EXPECT_EQ(root->attrs().replica_groups->ToString(), "{{0,1,2,3}}");
  EXPECT_TRUE(root->attrs().channel_id.has_value());
  EXPECT_TRUE(root->attrs().use_global_device_ids.value_or(false));
  // The decision says why.
  ASSERT_EQ(p->context.collectives().size(), 1u);
  const CollectiveDecision& d = p->context.collectives()[0];
  EXPECT_EQ(d.kind, "all-reduce");
  EXPECT_EQ(d.for_instruction, "dot2");
  EXPECT_EQ(d.collective, root->name());
  EXPECT_EQ(d.bytes_per_device, 8 * 16 * 4);
  EXPECT_NE(d.reason.find("contracting dim 1 of %relu is split 4 ways"), std::string::npos)
      << d.reason;
  EXPECT_NE(FormatCollectiveDecisions(p->context.collectives()).find("all-reduce"),
            std::string::npos);
  EXPECT_FALSE(NeedsSpmdPartitioning(m));
  ExpectSameGlobalResult(kTpMlp, m, 4);
}

TEST(SpmdPartitionerTest, BatchShardedElementwiseNeedsNoCollectives) {
  constexpr char kText[] = R"(
HloModule batch, num_partitions=4

ENTRY main {
  a = f32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  b = f32[8,6] parameter(1), sharding={devices=[4,1]<=[4]}
  c = f32[] constant(3), sharding={replicated}
  cb = f32[8,6] broadcast(c), dimensions={}, sharding={devices=[4,1]<=[4]}
  s = f32[8,6] add(a, b), sharding={devices=[4,1]<=[4]}
  ROOT m = f32[8,6] multiply(s, cb), sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  EXPECT_TRUE(p->context.collectives().empty());
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[2,6]");
  EXPECT_EQ(FormatCollectiveDecisions(p->context.collectives()), "no collectives inserted\n");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, ReduceOverSplitDimAllReducesWithItsReducer) {
  constexpr char kText[] = R"(
HloModule reduce, num_partitions=4

max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8,16] parameter(0), sharding={devices=[4,1]<=[4]}
  zero = f32[] constant(0), sharding={replicated}
  ninf = f32[] constant(-inf), sharding={replicated}
  total = f32[16] reduce(p, zero), dimensions={0}, to_apply=sum, sharding={replicated}
  rowmax = f32[8] reduce(p, ninf), dimensions={1}, to_apply=max, sharding={devices=[4]<=[4]}
  colmax = f32[16] reduce(p, ninf), dimensions={0}, to_apply=max, sharding={devices=[4]<=[4]}
  ROOT t = (f32[16], f32[8], f32[16]) tuple(total, rowmax, colmax), sharding={{replicated}, {devices=[4]<=[4]}, {devices=[4]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  // total and colmax reduce the split dim; rowmax does not.
  EXPECT_EQ(counts["all-reduce"], 2) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0);
  int with_max = 0;
  for (const auto& inst : p->module->entry()->instructions()) {
    if (inst->opcode() == Opcode::kAllReduce && inst->to_apply()->name() == "max") ++with_max;
  }
  EXPECT_EQ(with_max, 1);
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("reduced dim 0 of %p is split 4 ways"), std::string::npos) << d->reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, ReduceWithNonIdentityInitGathersInstead) {
  constexpr char kText[] = R"(
HloModule reduce_init, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  one = f32[] constant(1), sharding={replicated}
  ROOT total = f32[4] reduce(p, one), dimensions={0}, to_apply=sum, sharding={replicated}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 0);
  EXPECT_EQ(counts["all-gather"], 1);
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, ContractingSplitOnTwoByTwoMeshReducesOverModelAxisOnly) {
  // Devices d = 2*data + model. lhs: rows by data, contracting by model; rhs: contracting
  // by model, replicated over data; result rows by data, replicated over model.
  constexpr char kText[] = R"(
HloModule mesh, num_partitions=4

ENTRY main {
  a = f32[8,16] parameter(0), sharding={devices=[2,2]<=[4]}
  b = f32[16,6] parameter(1), sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  ROOT d = f32[8,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  const Instruction* root = p->module->entry()->root();
  ASSERT_EQ(root->opcode(), Opcode::kAllReduce);
  EXPECT_EQ(root->attrs().replica_groups->ToString(), "{{0,1},{2,3}}");
  EXPECT_EQ(root->shape().ToString(false), "f32[4,6]");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, ContractingSplitWithSplitResultUsesReduceScatter) {
  constexpr char kText[] = R"(
HloModule rs, num_partitions=4

ENTRY main {
  a = f32[8,16] parameter(0), sharding={devices=[1,4]<=[4]}
  b = f32[16,6] parameter(1), sharding={devices=[4,1]<=[4]}
  ROOT d = f32[8,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["reduce-scatter"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1);
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[2,6]");
  const CollectiveDecision* d = FindDecision(p->context, "reduce-scatter");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("contracting dim 1 of %a is split 4 ways"), std::string::npos)
      << d->reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// fsdp_layer's first dot: the result splits rows (lhs free) over 'data' and columns (rhs
// free) over 'model'; w1 splits its contracting dim over 'data'. XLA's choice: gather w1
// along dim 0 over the 'data' devices ({0,2},{1,3}) so the dot is local, instead of
// moving x's split with an all-to-all and reduce-scattering partial sums.
TEST(SpmdPartitionerTest, DotSplitOverBothFreeDimsGathersTheContractingSplitOperand) {
  constexpr char kText[] = R"(
HloModule fsdp, num_partitions=4

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w1 = f32[16,32] parameter(1), sharding={devices=[2,2]<=[4]}
  ROOT d = f32[8,32] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,2]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  const Instruction* root = p->module->entry()->root();
  ASSERT_EQ(root->opcode(), Opcode::kDot);
  EXPECT_EQ(root->shape().ToString(false), "f32[4,16]");
  const Instruction* gathered = root->operand(1);
  ASSERT_EQ(gathered->opcode(), Opcode::kAllGather);
  EXPECT_EQ(gathered->attrs().replica_groups->ToString(), "{{0,2},{1,3}}");
  EXPECT_EQ(gathered->attrs().dimensions, std::vector<int64_t>{0});
  const CollectiveDecision* d = FindDecision(p->context, "all-gather");
  ASSERT_NE(d, nullptr);
  // 512 B gathered (w1's other [8,16] tile) against 256 B (x's tile) + 512 B (partials).
  EXPECT_NE(d->reason.find("gathering contracting dim 0 of %w1 makes it local and brings 512 B "
                           "to each device, not more than an all-to-all of %x (256 B/device) "
                           "and a reduce-scatter of partial sums (512 B/device)"),
            std::string::npos)
      << d->reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// The same split with a few rows and a large weight: gathering w1 (4096 B per device)
// would bring more than the all-to-all of x and the reduce-scatter of the partial sums
// (256 B + 256 B), so the dot computes partial sums.
TEST(SpmdPartitionerTest, DotKeepsPartialSumsWhenGatheringTheWeightIsLarger) {
  constexpr char kText[] = R"(
HloModule fsdp_wide, num_partitions=4

ENTRY main {
  x = f32[2,64] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w1 = f32[64,64] parameter(1), sharding={devices=[2,2]<=[4]}
  ROOT d = f32[2,64] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,2]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-to-all"], 1) << p->module->ToString();
  EXPECT_EQ(counts["reduce-scatter"], 1) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[1,32]");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, ReshardFromDimZeroToDimOneIsAnAllToAll) {
  constexpr char kText[] = R"(
HloModule a2a, num_partitions=4

ENTRY main {
  p = f32[8,12] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT c = f32[8,12] custom-call(p), custom_call_target="Sharding", sharding={devices=[1,4]<=[4]}
}
)";
  constexpr char kReference[] = R"(
HloModule a2a_ref
ENTRY main {
  p = f32[8,12] parameter(0)
  ROOT c = f32[8,12] copy(p)
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-to-all"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1);
  EXPECT_EQ(counts["custom-call"], 0);
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[8,3]");
  const CollectiveDecision* d = FindDecision(p->context, "all-to-all");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("from dim 0 to dim 1"), std::string::npos) << d->reason;
  ExpectSameGlobalResult(kReference, *p->module, 4);
}

// The same tiles in another device order: one collective-permute moves them (the
// devices that already hold theirs keep them), as XLA does.
TEST(SpmdPartitionerTest, ReshardToOtherDeviceOrderIsACollectivePermute) {
  constexpr char kText[] = R"(
HloModule regather, num_partitions=4

ENTRY main {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT c = f32[8,4] custom-call(p), custom_call_target="Sharding", sharding={devices=[4,1]3,2,1,0}
}
)";
  constexpr char kReference[] = R"(
HloModule regather_ref
ENTRY main {
  p = f32[8,4] parameter(0)
  ROOT c = f32[8,4] copy(p)
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["collective-permute"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "collective-permute");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->groups, "{{0,3},{1,2},{2,1},{3,0}}");
  ExpectSameGlobalResult(kReference, *p->module, 4);
  // Two devices swap, two keep theirs.
  constexpr char kSwap[] = R"(
HloModule swap, num_partitions=4

ENTRY main {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT c = f32[8,4] custom-call(p), custom_call_target="Sharding", sharding={devices=[4,1]0,2,1,3}
}
)";
  auto swap = Partition(kSwap);
  ASSERT_NE(swap, nullptr);
  const CollectiveDecision* s = FindDecision(swap->context, "collective-permute");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->groups, "{{1,2},{2,1}}");
  ExpectSameGlobalResult(kReference, *swap->module, 4);
}

TEST(SpmdPartitionerTest, SortAlongSplitDimWithNoDimToTakeTheSplitGathersIt) {
  // Dim 0 (3 rows) cannot take dim 1's 4-way split: the sort dim is gathered whole and the
  // result sliced back.
  constexpr char kText[] = R"(
HloModule sort, num_partitions=4

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY main {
  p = f32[3,8] parameter(0), sharding={devices=[1,4]<=[4]}
  ROOT s = f32[3,8] sort(p), dimensions={1}, to_apply=less, sharding={devices=[1,4]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 1) << p->module->ToString();
  EXPECT_EQ(counts["all-to-all"], 0);
  EXPECT_EQ(counts["dynamic-slice"] >= 1, true);
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr);
  const CollectiveDecision* gather = FindDecision(p->context, "all-gather");
  ASSERT_NE(gather, nullptr);
  EXPECT_NE(gather->reason.find("%s needs dim 1 whole"), std::string::npos) << gather->reason;
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[3,2]");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, SortMovesItsDimsSplitToAnotherDimWhileItSorts) {
  // keys [8,16] split 2 x 4, sorted along dim 1 with their positions (an argsort): dim 0's
  // 2-way split takes dim 1's 4 ways (8 ways, a row a device) by one all-to-all per
  // operand, and the results go back the same way; no all-gather.
  constexpr char kText[] = R"(
HloModule argsort, num_partitions=8

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY main {
  p = f32[8,16] parameter(0), sharding={devices=[2,4]<=[8]}
  iota = s32[8,16] iota(), iota_dimension=1, sharding={devices=[2,4]<=[8]}
  ROOT s = (f32[8,16], s32[8,16]) sort(p, iota), dimensions={1}, is_stable=true, to_apply=less, sharding={{devices=[2,4]<=[8]}, {devices=[2,4]<=[8]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-to-all"], 4) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0);
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr);
  const CollectiveDecision* a2a = FindDecision(p->context, "all-to-all");
  ASSERT_NE(a2a, nullptr);
  EXPECT_EQ(a2a->groups, "{{0,1,2,3},{4,5,6,7}}");
  EXPECT_NE(a2a->reason.find("moves its 4-way split from dim 1 to dim 0"), std::string::npos) << a2a->reason;
  const Instruction* sort = nullptr;
  for (const auto& inst : p->module->entry()->instructions())
    if (inst->opcode() == Opcode::kSort) sort = inst.get();
  ASSERT_NE(sort, nullptr);
  EXPECT_EQ(sort->shape().ToString(false), "(f32[1,16], s32[1,16])");
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "(f32[4,4], s32[4,4])");
  // Repeated keys within and across the pieces: the stable order must survive the moves.
  ExpectSameGlobalResultOn(kText, *p->module, 8, [](std::vector<Literal>& args) {
    for (int64_t i = 0; i < 128; ++i) args[0].SetDouble(i, static_cast<double>((i * 7) % 5));
  });
}

TEST(SpmdPartitionerTest, ArgmaxOverASplitDimGathersPartialsAndReducesThemAgain) {
  // jax's argmax: a variadic reduce of the values and their positions. Each device finds
  // its piece's (max, index) with the positions offset to its piece, then the 4 partials
  // per row are gathered along a new dim and reduced again (as XLA does): ties keep the
  // lowest index, an all -inf row gives 0, a NaN wins.
  constexpr char kText[] = R"(
HloModule argmax, num_partitions=8

argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  nan = pred[] compare(a, a), direction=NE
  take = pred[] or(gt, nan)
  v = f32[] select(take, a, b)
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lt)
  either = pred[] or(take, tie)
  k = s32[] select(either, i, j)
  ROOT r = (f32[], s32[]) tuple(v, k)
}

ENTRY main {
  x = f32[4,16] parameter(0), sharding={devices=[2,4]<=[8]}
  iota = s32[4,16] iota(), iota_dimension=1, sharding={devices=[2,4]<=[8]}
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax, sharding={{devices=[2,4]<=[8] last_tile_dim_replicate}, {devices=[2,4]<=[8] last_tile_dim_replicate}}
  ROOT index = s32[4] get-tuple-element(r), index=1, sharding={devices=[2,4]<=[8] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 2) << p->module->ToString();
  EXPECT_EQ(counts["all-reduce"], 0);
  EXPECT_EQ(counts["reduce"], 2);
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr);
  const CollectiveDecision* gather = FindDecision(p->context, "all-gather");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->groups, "{{0,1,2,3},{4,5,6,7}}");
  EXPECT_NE(gather->reason.find("reduced again with %argmax: reduced dim 1 of %x is split 4 ways"), std::string::npos)
      << gather->reason;
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "s32[2]");
  ExpectSameGlobalResultOn(kText, *p->module, 8, [](std::vector<Literal>& args) {
    const double ninf = -std::numeric_limits<double>::infinity();
    for (int64_t c = 0; c < 16; ++c) {
      args[0].SetDouble(0 * 16 + c, c == 3 || c == 9 ? 5.0 : 1.0);  // a tie across pieces: 3
      args[0].SetDouble(1 * 16 + c, ninf);                          // all -inf: 0
      args[0].SetDouble(2 * 16 + c, c == 13 ? std::nan("") : 2.0);  // NaN in the last piece: 13
      args[0].SetDouble(3 * 16 + c, c == 15 ? 7.0 : -1.0);          // the last element: 15
    }
  });
}

TEST(SpmdPartitionerTest, PadSliceAndConcatAlongASplitDimReadTheirWindows) {
  // Rows split 4 ways stay split through a pad, a slice, a strided slice and a
  // concatenation along them: each device reads the rows its output tile needs from the
  // devices that hold them (collective-permutes), the padding value beyond the edges.
  constexpr char kText[] = R"(
HloModule windows, num_partitions=4

ENTRY main {
  x = f32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  y = f32[4,6] parameter(1), sharding={devices=[4,1]<=[4]}
  v = f32[] constant(-7)
  padded = f32[12,6] pad(x, v), padding=1_3x0_0, sharding={devices=[4,1]<=[4]}
  cropped = f32[4,6] pad(x, v), padding=-3_-1x0_0, sharding={devices=[4,1]<=[4]}
  middle = f32[4,6] slice(x), slice={[2:6], [0:6]}, sharding={devices=[4,1]<=[4]}
  odd = f32[4,6] slice(x), slice={[1:8:2], [0:6]}, sharding={devices=[4,1]<=[4]}
  stacked = f32[12,6] concatenate(x, y), dimensions={0}, sharding={devices=[4,1]<=[4]}
  ROOT t = (f32[12,6], f32[4,6], f32[4,6], f32[4,6], f32[12,6]) tuple(padded, cropped, middle, odd, stacked), sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_GE(counts["collective-permute"], 5);
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr);
  const CollectiveDecision* d = FindDecision(p->context, "collective-permute");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("%padded reads elements of its operand that lie on other devices"), std::string::npos)
      << d->reason;
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false),
            "(f32[3,6], f32[1,6], f32[1,6], f32[1,6], f32[3,6])");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, RollAlongASplitDimReadsTheSlicedArraysWindows) {
  // jnp.roll(x, 3, 0) over rows split 4 ways: a concatenation of two slices (3 and 5
  // rows, neither splits evenly), a rotation of x. Each device's two rows are x's rows 5
  // after them around the ring: the last row of the tile two before and the first of the
  // tile three before, one collective-permute each over all four devices (XLA's plan; one
  // per slice and tile distance, four, before 2026-12-03). The slices' own values
  // (gathered whole) are dead and go, with their decisions.
  constexpr char kText[] = R"(
HloModule roll, num_partitions=4

ENTRY main {
  x = f32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  tail = f32[3,6] slice(x), slice={[5:8], [0:6]}
  head = f32[5,6] slice(x), slice={[0:5], [0:6]}
  ROOT rolled = f32[8,6] concatenate(tail, head), dimensions={0}, sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(counts["collective-permute"], 2) << p->module->ToString();
  std::vector<std::string> groups;
  for (const CollectiveDecision& d : p->context.collectives()) {
    EXPECT_EQ(d.kind, "collective-permute") << d.reason;
    EXPECT_EQ(d.for_instruction, "rolled") << d.reason;
    EXPECT_NE(d.reason.find("around the ring: %rolled is a rotation of it"), std::string::npos) << d.reason;
    EXPECT_NE(p->module->entry()->FindInstruction(d.collective), nullptr) << d.collective;
    groups.push_back(d.groups);
  }
  std::sort(groups.begin(), groups.end());
  EXPECT_EQ(groups, (std::vector<std::string>{"{{0,1},{1,2},{2,3},{3,0}}", "{{0,2},{1,3},{2,0},{3,1}}"}));
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[2,6]");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

TEST(SpmdPartitionerTest, RollsOnAMeshRotateWithinEachGroup) {
  // On a 2x4 mesh, rows split over 'model' (4 ways) and copied over 'data': rolls by 4
  // rows (two whole tiles: one collective-permute), by 7 (a device keeps one of its rows:
  // one), by 3 (two) and by 5 of a 16-row array with 4-row tiles (two), each within the
  // four devices of a copy. A concatenation of slices of two arrays is no rotation.
  constexpr char kText[] = R"(
HloModule rolls, num_partitions=8

ENTRY main {
  x = f32[8,3] parameter(0), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  y = f32[16,2] parameter(1), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  z = f32[8,3] parameter(2), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  a4 = f32[4,3] slice(x), slice={[4:8], [0:3]}
  b4 = f32[4,3] slice(x), slice={[0:4], [0:3]}
  by4 = f32[8,3] concatenate(a4, b4), dimensions={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  a7 = f32[7,3] slice(x), slice={[1:8], [0:3]}
  b7 = f32[1,3] slice(x), slice={[0:1], [0:3]}
  by7 = f32[8,3] concatenate(a7, b7), dimensions={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  a3 = f32[3,3] slice(x), slice={[5:8], [0:3]}
  b3 = f32[5,3] slice(x), slice={[0:5], [0:3]}
  by3 = f32[8,3] concatenate(a3, b3), dimensions={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  a5 = f32[5,2] slice(y), slice={[11:16], [0:2]}
  b5 = f32[11,2] slice(y), slice={[0:11], [0:2]}
  by5 = f32[16,2] concatenate(a5, b5), dimensions={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  z3 = f32[5,3] slice(z), slice={[0:5], [0:3]}
  mixed = f32[8,3] concatenate(a3, z3), dimensions={0}, sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  ROOT t = (f32[8,3], f32[8,3], f32[8,3], f32[16,2], f32[8,3]) tuple(by4, by7, by3, by5, mixed), sharding={{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}, {devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}, {devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}, {devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}, {devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(OpcodeCounts(*p->module)["all-gather"], 0) << p->module->ToString();
  std::map<std::string, int> permutes;
  for (const CollectiveDecision& d : p->context.collectives()) {
    EXPECT_EQ(d.kind, "collective-permute") << d.reason;
    ++permutes[d.for_instruction];
    if (d.for_instruction == "by4") {
      // Rows 4.. of each tile's position: the tile two after it, sent two tiles back.
      EXPECT_EQ(d.groups, "{{0,2},{1,3},{2,0},{3,1},{4,6},{5,7},{6,4},{7,5}}") << d.reason;
    }
  }
  EXPECT_EQ(permutes["by4"], 1);
  EXPECT_EQ(permutes["by7"], 1);
  EXPECT_EQ(permutes["by3"], 2);
  EXPECT_EQ(permutes["by5"], 2);
  EXPECT_GE(permutes["mixed"], 1);
  ExpectSameGlobalResult(kText, *p->module, 8);
}

TEST(SpmdPartitionerTest, WhileBodyIsPartitionedWithItsCarriedSharding) {
  constexpr char kText[] = R"(
HloModule loop, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

cond {
  st = (s32[], f32[8,4]) parameter(0), sharding={{replicated}, {devices=[4,1]<=[4]}}
  i = s32[] get-tuple-element(st), index=0, sharding={replicated}
  n = s32[] constant(3), sharding={replicated}
  ROOT lt = pred[] compare(i, n), direction=LT, sharding={replicated}
}

body {
  st = (s32[], f32[8,4]) parameter(0), sharding={{replicated}, {devices=[4,1]<=[4]}}
  i = s32[] get-tuple-element(st), index=0, sharding={replicated}
  x = f32[8,4] get-tuple-element(st), index=1, sharding={devices=[4,1]<=[4]}
  one = s32[] constant(1), sharding={replicated}
  i1 = s32[] add(i, one), sharding={replicated}
  zero = f32[] constant(0), sharding={replicated}
  col = f32[4] reduce(x, zero), dimensions={0}, to_apply=sum, sharding={replicated}
  colb = f32[8,4] broadcast(col), dimensions={1}, sharding={devices=[4,1]<=[4]}
  half = f32[] constant(0.125), sharding={replicated}
  halfb = f32[8,4] broadcast(half), dimensions={}, sharding={devices=[4,1]<=[4]}
  scaled = f32[8,4] multiply(colb, halfb), sharding={devices=[4,1]<=[4]}
  x1 = f32[8,4] add(x, scaled), sharding={devices=[4,1]<=[4]}
  ROOT out = (s32[], f32[8,4]) tuple(i1, x1), sharding={{replicated}, {devices=[4,1]<=[4]}}
}

ENTRY main {
  p = f32[8,4] parameter(0), sharding={devices=[4,1]<=[4]}
  z = s32[] constant(0), sharding={replicated}
  init = (s32[], f32[8,4]) tuple(z, p), sharding={{replicated}, {devices=[4,1]<=[4]}}
  w = (s32[], f32[8,4]) while(init), condition=cond, body=body, sharding={{replicated}, {devices=[4,1]<=[4]}}
  ROOT r = f32[8,4] get-tuple-element(w), index=1, sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  const Instruction* loop = nullptr;
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() == Opcode::kWhile) loop = inst.get();
  }
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape().ToString(false), "(s32[], f32[2,4])");
  int body_all_reduces = 0;
  for (const auto& inst : loop->while_body()->instructions()) {
    body_all_reduces += inst->opcode() == Opcode::kAllReduce ? 1 : 0;
  }
  EXPECT_EQ(body_all_reduces, 1) << m.ToString();
  EXPECT_EQ(CollectiveCount(m), 1);
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->computation, loop->while_body()->name());
  ExpectSameGlobalResult(kText, m, 4);
}

TEST(SpmdPartitionerTest, ManualRegionKeepsItsCodeAndAddsNoCollectives) {
  constexpr char kText[] = R"(
HloModule manual, num_partitions=4

sum {
  x = f32[] parameter(0), sharding={manual}
  y = f32[] parameter(1), sharding={manual}
  ROOT s = f32[] add(x, y), sharding={manual}
}

ENTRY main {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  c = f32[16,8] copy(x), sharding={devices=[4,1]<=[4]}
  local = f32[4,8] custom-call(c), custom_call_target="SPMDFullToShardShape", sharding={manual}
  all = f32[4,8] all-reduce(local), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=sum, sharding={manual}
  y = f32[4,8] add(all, local), sharding={manual}
  yc = f32[4,8] copy(y), sharding={manual}
  ROOT full = f32[16,8] custom-call(yc), custom_call_target="SPMDShardToFullShape", sharding={devices=[4,1]<=[4]}
}
)";
  // The same computation on the global array: every block plus the sum of the blocks.
  constexpr char kReference[] = R"(
HloModule manual_ref

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  x = f32[16,8] parameter(0)
  blocks = f32[4,4,8] reshape(x)
  zero = f32[] constant(0)
  total = f32[4,8] reduce(blocks, zero), dimensions={0}, to_apply=sum
  spread = f32[4,4,8] broadcast(total), dimensions={1,2}
  flat = f32[16,8] reshape(spread)
  ROOT out = f32[16,8] add(flat, x)
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  EXPECT_TRUE(p->context.collectives().empty());
  EXPECT_EQ(CollectiveCount(m), 1);  // the region's own all-reduce
  auto counts = OpcodeCounts(m);
  EXPECT_EQ(counts["custom-call"], 0) << m.ToString();
  EXPECT_EQ(m.entry()->parameter(0)->shape().ToString(false), "f32[4,8]");
  EXPECT_EQ(m.entry()->root()->shape().ToString(false), "f32[4,8]");
  ExpectSameGlobalResult(kReference, m, 4);
}

TEST(SpmdPartitionerTest, IotaConstantTransposeAndReshapeMapTiles) {
  constexpr char kText[] = R"(
HloModule mapping, num_partitions=4

ENTRY main {
  p = f32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  io = f32[8,6] iota(), iota_dimension=0, sharding={devices=[4,1]<=[4]}
  k = f32[8,6] constant({{0,1,2,3,4,5},{1,2,3,4,5,6},{2,3,4,5,6,7},{3,4,5,6,7,8},{4,5,6,7,8,9},{5,6,7,8,9,10},{6,7,8,9,10,11},{7,8,9,10,11,12}}), sharding={devices=[4,1]<=[4]}
  s = f32[8,6] add(p, io), sharding={devices=[4,1]<=[4]}
  s2 = f32[8,6] multiply(s, k), sharding={devices=[4,1]<=[4]}
  t = f32[6,8] transpose(s2), dimensions={1,0}, sharding={devices=[1,4]<=[4]}
  r = f32[6,4,2] reshape(t), sharding={devices=[1,4,1]<=[4]}
  f = f32[48] reshape(s2), sharding={devices=[4]<=[4]}
  ROOT out = (f32[6,4,2], f32[48]) tuple(r, f), sharding={{devices=[1,4,1]<=[4]}, {devices=[4]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// XLA's own modules just before its spmd-partitioning pass (shardings everywhere, GSPMD
// form): partitioned here, they compute what the global module computes.
std::unique_ptr<Module> ParseXlaDump(const std::string& program) {
  const std::string dir =
      std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/" + program + "/xla_dump/";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find("before_spmd-partitioning") == std::string::npos) continue;
    auto parsed = ParseFile(entry.path().string());
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    if (!parsed.ok() || parsed->modules.empty()) return nullptr;
    return std::move(parsed->modules[0]);
  }
  ADD_FAILURE() << "no before_spmd-partitioning dump in " << dir;
  return nullptr;
}

TEST(SpmdPartitionerTest, XlaDumpsBeforePartitioningComputeTheGlobalResult) {
  // program, devices, all-reduces XLA inserted (tests/data/multidevice/*/partitioned.hlo)
  const std::vector<std::tuple<std::string, int64_t, int>> programs = {
      {"tp_mlp", 4, 1}, {"fsdp_layer", 4, 1}, {"sharded_xent", 4, -1}};
  for (const auto& [program, devices, all_reduces] : programs) {
    SCOPED_TRACE(program);
    std::unique_ptr<Module> global = ParseXlaDump(program);
    ASSERT_NE(global, nullptr);
    EXPECT_TRUE(NeedsSpmdPartitioning(*global));
    std::unique_ptr<Module> m = global->Clone();
    PassContext context;
    StatusOr<bool> changed = SpmdPartitioner().Run(*m, context);
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    Status verified = Verify(*m);
    EXPECT_TRUE(verified.ok()) << verified.message() << "\n" << m->ToString();
    if (all_reduces >= 0) {
      EXPECT_EQ(OpcodeCounts(*m)["all-reduce"], all_reduces) << m->ToString();
    }
    EXPECT_EQ(context.collectives().size(),
              static_cast<size_t>(CollectiveCount(*m)) +
                  (FindDecision(context, "replicated-fallback") ? 1 : 0))
        << FormatCollectiveDecisions(context.collectives());
    ExpectSameGlobalResult(*global, *m, devices);
  }
}

TEST(SpmdPartitionerTest, UnevenSplitIsRefusedNamingTheInstruction) {
  auto m = Parse(R"(
HloModule uneven, num_partitions=4
ENTRY main {
  p = f32[6,3] parameter(0), sharding={devices=[4,1]<=[4]}
  ROOT n = f32[6,3] negate(p), sharding={devices=[4,1]<=[4]}
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context;
  StatusOr<bool> changed = SpmdPartitioner().Run(*m, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("%p"), std::string::npos) << changed.status().message();
  EXPECT_NE(changed.status().message().find("does not split evenly"), std::string::npos);
}

// Inside the program a split its tiles do not divide evenly (jax's sharding constraint on
// 10 rows over 4 devices; XLA pads the last tiles) is computed whole along that dim, each
// such instruction recorded; the outputs keep what they are given. One all-gather (of x for
// the slice): the uneven values need no other collective, and r's even split is a local
// slice of the whole sum.
TEST(SpmdPartitionerTest, UnevenSplitsInsideAreComputedWholeAlongThem) {
  constexpr char kText[] = R"(
HloModule uneven_inside, num_partitions=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  s = f32[10,8] slice(x), slice={[0:10], [0:8]}, sharding={devices=[4,1]<=[4]}
  c = f32[10,8] custom-call(s), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
  t = f32[10,8] tanh(c), sharding={devices=[4,1]<=[4]}
  zero = f32[] constant(0), sharding={replicated}
  r = f32[8] reduce(t, zero), dimensions={0}, to_apply=add, sharding={devices=[4]<=[4]}
  ROOT out = (f32[10,8], f32[8]) tuple(t, r), sharding={{replicated}, {devices=[4]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  std::set<std::string> uneven;
  for (const CollectiveDecision& d : p->context.collectives()) {
    if (d.kind != "uneven-split") continue;
    uneven.insert(d.for_instruction);
    EXPECT_NE(d.reason.find("dim 0 of size 10 into 4 tiles"), std::string::npos) << d.reason;
  }
  EXPECT_EQ(uneven, (std::set<std::string>{"s", "c", "t"}));
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// An op without a native rule whose operands and result are replicated (a jax key's
// bitcast to the generator's u64 state) is computed on every device as any replicated value
// is: no replicated-fallback decision. The generator whose bits are wanted split is one
// (each device draws them all and keeps its tile; XLA's expansion draws only the tile).
// A reduction over two split dims is two all-reduces, the last dim's first, as XLA's
// partitioner writes it (jax's x.sum((0, 1)) over a 2x4 mesh: over each row of the mesh,
// then each column); a dim split over both mesh axes is one dim, one all-reduce over all 8.
// A sum over a dim split 4 ways in a permuted device order, with 2 copies of each piece:
// each all-reduce group holds every piece once, and the groups list their devices in the
// order of the pieces, so both groups add them alike and the copies of the sum agree bit
// for bit. With groups by device number ({0,1,2,4} adds pieces 3,2,1,0; {3,5,6,7}
// adds 1,2,0,3) they differed in their last bits and the run stopped ("devices 4 and 5
// hold different values for the same tile"). Found by the differential fuzzer
// (--partitions 8, seed 200081).
TEST(SpmdPartitionerTest, AllReduceGroupsAddThePiecesInTheSameOrder) {
  constexpr char kText[] = R"(
HloModule copies_agree, num_partitions=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  p = f32[6,56] parameter(0), sharding={replicated}
  e = f32[6,56] exponential(p), sharding={devices=[1,4,2]6,4,2,3,5,1,7,0 last_tile_dim_replicate}
  zero = f32[] constant(0)
  ROOT s = f32[6] reduce(e, zero), dimensions={1}, to_apply=add, sharding={devices=[2,4]<=[8] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Instruction* all_reduce = nullptr;
  for (const auto& inst : p->module->entry()->instructions()) {
    if (inst->opcode() == Opcode::kAllReduce) all_reduce = inst.get();
  }
  ASSERT_NE(all_reduce, nullptr) << p->module->ToString();
  // Pieces (tiles of dim 1) 0..3 are held by {6,4}, {2,3}, {5,1}, {7,0}: each group lists
  // one holder of piece 0, then of piece 1, 2, 3.
  const std::vector<std::vector<int64_t>> piece_of_device = {{3}, {2}, {1}, {1}, {0}, {2}, {0}, {3}};
  for (const std::vector<int64_t>& group : all_reduce->attrs().replica_groups->groups) {
    ASSERT_EQ(group.size(), 4u);
    for (size_t r = 0; r < group.size(); ++r) {
      EXPECT_EQ(piece_of_device[static_cast<size_t>(group[r])][0], static_cast<int64_t>(r)) << p->module->ToString();
    }
  }
  auto reference = Parse(kText);
  ASSERT_NE(reference, nullptr);
  for (uint64_t seed = 1; seed <= 4; ++seed) ExpectSameGlobalResult(*reference, *p->module, 8, seed);
}

TEST(SpmdPartitionerTest, ReductionsOverTwoSplitDimsAllReduceOneDimAtATime) {
  constexpr char kText[] = R"(
HloModule two_dims, num_partitions=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8,16,4] parameter(0), sharding={devices=[2,4,1]<=[8]}
  y = f32[8,16,4] parameter(1), sharding={devices=[8,1,1]<=[8]}
  zero = f32[] constant(0), sharding={replicated}
  r = f32[4] reduce(x, zero), dimensions={0,1}, to_apply=add, sharding={replicated}
  q = f32[4] reduce(y, zero), dimensions={0,1}, to_apply=add, sharding={replicated}
  ROOT out = (f32[4], f32[4]) tuple(r, q), sharding={{replicated}, {replicated}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  std::vector<std::string> groups;
  for (const auto& c : p->module->computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() == Opcode::kAllReduce) groups.push_back(inst->attrs().replica_groups->ToString());
    }
  }
  std::sort(groups.begin(), groups.end());
  EXPECT_EQ(groups, (std::vector<std::string>{"{{0,1,2,3,4,5,6,7}}", "{{0,1,2,3},{4,5,6,7}}", "{{0,4},{1,5},{2,6},{3,7}}"}))
      << p->module->ToString();
  // The row all-reduce comes first: the column one reads it.
  for (const auto& c : p->module->computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->opcode() == Opcode::kAllReduce && inst->attrs().replica_groups->ToString() == "{{0,4},{1,5},{2,6},{3,7}}") {
        EXPECT_EQ(inst->operand(0)->opcode(), Opcode::kAllReduce) << p->module->ToString();
      }
    }
  }
  ExpectSameGlobalResult(kText, *p->module, 8);
}

TEST(SpmdPartitionerTest, ReplicatedOpsWithoutARuleAreNoFallback) {
  constexpr char kText[] = R"(
HloModule rng_split, num_partitions=4
ENTRY main {
  k = u32[2,2] parameter(0), sharding={replicated}
  x = f32[8,4] parameter(1), sharding={devices=[4,1]<=[4]}
  s = u64[2] bitcast-convert(k), sharding={replicated}
  r = (u64[2], u32[8,4]) rng-bit-generator(s), algorithm=rng_philox, sharding={{replicated}, {devices=[4,1]<=[4]}}
  bits = u32[8,4] get-tuple-element(r), index=1, sharding={devices=[4,1]<=[4]}
  f = f32[8,4] convert(bits), sharding={devices=[4,1]<=[4]}
  ROOT m = f32[8,4] multiply(x, f), sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  std::set<std::string> fallbacks;
  for (const CollectiveDecision& d : p->context.collectives()) {
    if (d.kind == "replicated-fallback") fallbacks.insert(d.for_instruction);
  }
  EXPECT_EQ(fallbacks, (std::set<std::string>{"r"}));
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A value computed on wider tiles and sliced to its split (u whole, e its even rows) keeps
// the wider copy: a user wanting e whole reads it there instead of gathering e's tiles.
TEST(SpmdPartitionerTest, UsersWantingWiderTilesReadTheCopyTheTilesWereSlicedFrom) {
  constexpr char kText[] = R"(
HloModule wider, num_partitions=4
ENTRY main {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  u = f32[10,8] slice(x), slice={[0:10], [0:8]}, sharding={devices=[4,1]<=[4]}
  e = f32[8,8] slice(u), slice={[1:9], [0:8]}, sharding={devices=[4,1]<=[4]}
  n = f32[8,8] negate(e), sharding={devices=[4,1]<=[4]}
  zero = f32[] constant(0), sharding={replicated}
  w = f32[10,8] pad(e, zero), padding=0_2x0_0, sharding={devices=[4,1]<=[4]}
  ROOT out = (f32[8,8], f32[10,8]) tuple(n, w), sharding={{devices=[4,1]<=[4]}, {replicated}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(OpcodeCounts(*p->module)["all-gather"], 1) << FormatCollectiveDecisions(p->context.collectives());
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A reduce over a split dim of an operand that is also replicated: each copy of the pieces
// reduces apart (groups along the split only), as XLA's, instead of gathering the operand.
TEST(SpmdPartitionerTest, ReduceOfAPartlyReplicatedOperandReducesEachCopyApart) {
  constexpr char kText[] = R"(
HloModule reduce_copies, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  zero = f32[] constant(0), sharding={replicated}
  ROOT total = f32[] reduce(p, zero), dimensions={0,1}, to_apply=sum, sharding={replicated}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->groups, "{{0,2},{1,3}}");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// The weight gradient of a data-parallel convolution contracts over the split batch (the
// input feature dim of dim_labels f01b_i01o->01bf): partial sums and one all-reduce.
TEST(SpmdPartitionerTest, ConvolutionOverASplitInputFeatureSumsPartials) {
  constexpr char kText[] = R"(
HloModule conv_grad, num_partitions=4

ENTRY main {
  x = f32[8,6,6,3] parameter(0), sharding={devices=[4,1,1,1]<=[4]}
  dy = f32[8,6,6,2] parameter(1), sharding={devices=[4,1,1,1]<=[4]}
  ROOT dw = f32[3,3,3,2] convolution(x, dy), window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, sharding={replicated}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 1) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("contracting dim 0 of %x is split 4 ways"), std::string::npos) << d->reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// FSDP: a weight split along its contracting dim over every device while the result is
// split over fewer: gather the weight, compute each tile, no reduction of whole results.
TEST(SpmdPartitionerTest, DotGathersAWeightSplitOverMoreDevicesThanItsResult) {
  constexpr char kText[] = R"(
HloModule fsdp, num_partitions=4

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w = f32[16,8] parameter(1), sharding={devices=[4,1]<=[4]}
  ROOT y = f32[8,8] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 1) << p->module->ToString();
  EXPECT_EQ(counts["all-reduce"], 0) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "all-gather");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("could only be computed whole on every device"), std::string::npos) << d->reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A table split over the rows the indices select (a vocabulary-sharded embedding): each
// device looks up its rows, zeros the others, and one all-reduce sums them. The random
// indices run past both ends of the table: clamped as the gather clamps them.
TEST(SpmdPartitionerTest, GatherFromASplitTableIsMaskedAndSummed) {
  constexpr char kText[] = R"(
HloModule embedding, num_partitions=4

ENTRY main {
  table = f32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ids = s32[3,5] parameter(1), sharding={replicated}
  ROOT rows = f32[3,5,4] gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,4}, sharding={replicated}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 1) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(p->module->entry()->parameter(0)->shape().ToString(false), "f32[4,4]");
  ExpectSameGlobalResult(kText, *p->module, 4);
  // Indices of every piece, the table's first and last rows included, and past both ends.
  ExpectSameGlobalResultWithInts(kText, *p->module, 4, 1, {0, 15, -4, 16, 40, 3, 4, 7, 8, 11, 12, 1, 14, 2, 9});
}

// Window dims the slices take whole keep their split: each device's slice is its tile of
// them (an embedding table split along its hidden dim; jnp.median's gather of a sorted
// array split along its other dims), masked and summed where the rows are split too.
TEST(SpmdPartitionerTest, GatherTakesSplitWindowDimsTileByTile) {
  constexpr char kText[] = R"(
HloModule window_split, num_partitions=4

ENTRY main {
  table = f32[16,8] parameter(0), sharding={devices=[1,4]<=[4]}
  ids = s32[3,5] parameter(1), sharding={replicated}
  rows = f32[3,5,8] gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,8}, sharding={devices=[1,1,4]<=[4]}
  both = f32[16,8] parameter(2), sharding={devices=[2,2]<=[4]}
  picked = f32[3,5,8] gather(both, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,8}, sharding={devices=[1,1,2,2]0,2,1,3 last_tile_dim_replicate}
  sorted = f32[4,6,5] parameter(3), sharding={devices=[2,2,1]<=[4]}
  k = s32[1] parameter(4), sharding={replicated}
  median = f32[4,6] gather(sorted, k), offset_dims={0,1}, collapsed_slice_dims={2}, start_index_map={2}, index_vector_dim=0, slice_sizes={4,6,1}, sharding={devices=[2,2]<=[4]}
  ROOT out = (f32[3,5,8], f32[3,5,8], f32[4,6]) tuple(rows, picked, median), sharding={{devices=[1,1,4]<=[4]}, {devices=[1,1,2,2]0,2,1,3 last_tile_dim_replicate}, {devices=[2,2]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(counts["all-reduce"], 1) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
  for (int64_t k : {0, 4}) {
    ExpectSameGlobalResultOn(kText, *p->module, 4, [&](std::vector<Literal>& args) {
      const std::vector<int64_t> ids = {0, 15, 7, 8, 3, 12, 1, 14, 2, 9, 4, 11, 5, 10, 6};
      for (size_t i = 0; i < ids.size(); ++i) args[1].SetInt64(static_cast<int64_t>(i), ids[i]);
      args[4].SetInt64(0, k);
    });
  }
}

// Indices of a type too narrow for the table's row count (s8 into 256 rows) cannot carry
// the local offsets: the table is gathered whole instead, and the result stays right.
TEST(SpmdPartitionerTest, GatherWithNarrowIndicesGathersTheTable) {
  constexpr char kText[] = R"(
HloModule narrow, num_partitions=4

ENTRY main {
  table = f32[256,2] parameter(0), sharding={devices=[4,1]<=[4]}
  ids = s8[5] parameter(1), sharding={replicated}
  ROOT rows = f32[5,2] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}, sharding={replicated}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 0) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 1) << p->module->ToString();
  ExpectSameGlobalResultWithInts(kText, *p->module, 4, 1, {5, 100, 127, -7, 64});
}

// take_along_axis over logits split on both dims: batching dims follow the batch split,
// the selected dim is masked and summed over its pieces only.
TEST(SpmdPartitionerTest, GatherWithBatchingDimsKeepsTheBatchSplit) {
  constexpr char kText[] = R"(
HloModule take_along, num_partitions=4

ENTRY main {
  logits = f32[4,16] parameter(0), sharding={devices=[2,2]<=[4]}
  idx = s32[4,1,1] parameter(1), sharding={devices=[2,1,1,2]<=[4] last_tile_dim_replicate}
  ROOT picked = f32[4,1] gather(logits, idx), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-reduce"], 1) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->groups, "{{0,1},{2,3}}");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A scatter whose updates span a split operand dim whole as a window dim (jnp.linalg.solve's
// pivot bookkeeping over a split batch: one column of every row set at once): each device
// updates its tile with its tile of the updates; no collective.
TEST(SpmdPartitionerTest, ScatterKeepsAWindowDimTheUpdatesSpanWhole) {
  constexpr char kText[] = R"(
HloModule column, num_partitions=4

set {
  x = f32[] parameter(0)
  ROOT y = f32[] parameter(1)
}

ENTRY main {
  perm = f32[8,5] parameter(0), sharding={devices=[4,1]<=[4]}
  col = s32[1] parameter(1), sharding={replicated}
  vals = f32[8] parameter(2), sharding={devices=[4]<=[4]}
  ROOT out = f32[8,5] scatter(perm, col, vals), update_window_dims={0}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, index_vector_dim=0, to_apply=set, sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  for (int64_t col : {0, 3, 4, 7}) ExpectSameGlobalResultWithInts(kText, *p->module, 4, 1, {col});
}

// An embedding's gradient over a split batch (a scatter-add of split ids and rows into a
// whole table) and a segment max: each device scatters its updates into the combiner's
// identity, one all-reduce with the combiner, then the table is combined with it, as XLA;
// ids out of range are skipped on every device. A table larger than the gathered updates
// gathers them instead.
TEST(SpmdPartitionerTest, ScatterWithSplitIndicesReducesEachDevicesUpdates) {
  constexpr char kText[] = R"(
HloModule embedding_grad, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

max {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] maximum(a, b)
}

ENTRY main {
  table = f32[6,4] parameter(0), sharding={replicated}
  ids = s32[8,1] parameter(1), sharding={devices=[4,1]<=[4]}
  rows = f32[8,4] parameter(2), sharding={devices=[4,1]<=[4]}
  grad = f32[6,4] scatter(table, ids, rows), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sum, sharding={replicated}
  best = s32[6,4] parameter(3), sharding={replicated}
  irows = s32[8,4] parameter(4), sharding={devices=[4,1]<=[4]}
  segmax = s32[6,4] scatter(best, ids, irows), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=max, sharding={replicated}
  ROOT out = (f32[6,4], s32[6,4]) tuple(grad, segmax), sharding={{replicated}, {replicated}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(counts["all-reduce"], 2) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
  ExpectSameGlobalResultWithInts(kText, *p->module, 4, 1, {0, 5, 2, 2, -1, 6, 40, 3});
  // A table of 64 rows is larger than the gathered ids and rows: they are gathered.
  std::string big = kText;
  for (const char* from : {"f32[6,4]", "s32[6,4]"}) {
    for (size_t at = big.find(from); at != std::string::npos; at = big.find(from, at))
      big.replace(at, 8, std::string(from).substr(0, 4) + "64,4]");
  }
  auto q = Partition(big);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(OpcodeCounts(*q->module)["all-reduce"], 0) << q->module->ToString();
  ExpectSameGlobalResult(big, *q->module, 4);
}

// A scatter into an operand split along the scattered dim: each device applies the
// updates whose indices fall in its piece; no collective.
TEST(SpmdPartitionerTest, ScatterIntoASplitOperandUpdatesEachPieceWhereItLies) {
  constexpr char kText[] = R"(
HloModule scatter, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  table = f32[16,4] parameter(0), sharding={devices=[4,1]<=[4]}
  ids = s32[6,1] parameter(1), sharding={replicated}
  upd = f32[6,4] parameter(2), sharding={replicated}
  ROOT out = f32[16,4] scatter(table, ids, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sum, sharding={devices=[4,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[4,4]");
  ExpectSameGlobalResult(kText, *p->module, 4);
  // A repeat, and two out of bounds (skipped by the scatter).
  ExpectSameGlobalResultWithInts(kText, *p->module, 4, 1, {0, 15, 4, 4, -1, 16});
}

// Ops that work along some dims (fft's transformed dims, a reduce-window's windowed dims,
// a sort's dim, topk's last) keep the other dims' splits: no collective when only those
// are split.
// The operand's rows split over devices 0-3 | 4-7 (the indices select rows) and the result
// wanted with its columns split over the same halves: kept together, devices would hold
// only the tiles (0,0) and (1,1), and no grouping gathers such a grid ("cannot form
// all-gather groups", found by the differential fuzzer: --windows --partitions 8, seed
// 400010). The columns are then taken whole while each piece of rows is updated.
TEST(SpmdPartitionerTest, ScatterWhoseSplitsPairUpTheirTilesTakesTheWindowWhole) {
  constexpr char kText[] = R"(
HloModule scatter_paired, num_partitions=8
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  t = f32[6,4] parameter(0), sharding={devices=[2,1,4]<=[8] last_tile_dim_replicate}
  i = s32[4] parameter(1), sharding={devices=[4,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  u = f32[4,4] parameter(2), sharding={replicated}
  ROOT s = f32[6,4] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add, sharding={devices=[1,2,4]<=[8] last_tile_dim_replicate}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[6,2]");
  // Rows 5, 0 and 3 (in range) and one past the end, dropped.
  ExpectSameGlobalResultWithInts(kText, *p->module, 8, 1, {5, 0, 3, 6});
}

TEST(SpmdPartitionerTest, OpsAlongSomeDimsKeepTheOtherDimsSplit) {
  constexpr char kText[] = R"(
HloModule along, num_partitions=4

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[4,1]<=[4]}
  zero = f32[] constant(0), sharding={replicated}
  cums = f32[8,16] reduce-window(x, zero), window={size=1x16 pad=0_0x15_0}, to_apply=sum, sharding={devices=[4,1]<=[4]}
  spec = c64[8,9] fft(x), fft_type=RFFT, fft_length={16}, sharding={devices=[4,1]<=[4]}
  iota = s32[8,16] iota(), iota_dimension=1, sharding={devices=[4,1]<=[4]}
  sorted = (f32[8,16], s32[8,16]) sort(x, iota), dimensions={1}, to_apply=less, sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
  top = (f32[8,3], s32[8,3]) topk(x), k=3, largest=true, sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
  keys = f32[8,16] get-tuple-element(sorted), index=0, sharding={devices=[4,1]<=[4]}
  perm = s32[8,16] get-tuple-element(sorted), index=1, sharding={devices=[4,1]<=[4]}
  tv = f32[8,3] get-tuple-element(top), index=0, sharding={devices=[4,1]<=[4]}
  ti = s32[8,3] get-tuple-element(top), index=1, sharding={devices=[4,1]<=[4]}
  ROOT t = (f32[8,16], c64[8,9], f32[8,16], s32[8,16], f32[8,3], s32[8,3]) tuple(cums, spec, keys, perm, tv, ti), sharding={{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  for (const CollectiveDecision& d : p->context.collectives()) ADD_FAILURE() << d.kind << ": " << d.reason;
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A convolution and a max pool split along a spatial dim keep it split: each device gets
// its neighbours' edge rows by collective-permutes (a halo), the global edges take the
// padding value, as XLA's spatial partitioning.
TEST(SpmdPartitionerTest, SpatiallySplitConvolutionAndPoolingExchangeHalos) {
  constexpr char kText[] = R"(
HloModule halo, num_partitions=4

max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT m = f32[] maximum(x, y)
}

ENTRY main {
  x = f32[2,16,8,3] parameter(0), sharding={devices=[1,4,1,1]<=[4]}
  w = f32[3,3,3,4] parameter(1), sharding={replicated}
  conv = f32[2,16,8,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, sharding={devices=[1,4,1,1]<=[4]}
  ninf = f32[] constant(-inf), sharding={replicated}
  ROOT pool = f32[2,8,4,4] reduce-window(conv, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=max, sharding={devices=[1,4,1,1]<=[4]}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  // The convolution's halo is a row from each side; the pool's, one row from below.
  EXPECT_EQ(counts["collective-permute"], 3) << p->module->ToString();
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 3) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "collective-permute");
  ASSERT_NE(d, nullptr);
  EXPECT_NE(d->reason.find("(a halo)"), std::string::npos) << d->reason;
  EXPECT_EQ(p->module->entry()->root()->shape().ToString(false), "f32[2,2,4,4]");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// Grouped convolutions: a depthwise one (8 groups of one channel) split on batch and
// channels needs no collective, each device convolving its 4 channels as 4 groups; one of
// 2 groups wanted split 4 ways computes its channels whole; a causal depthwise 1-D
// convolution split along time reads a 3-step halo from the device before.
TEST(SpmdPartitionerTest, GroupedConvolutionsSplitInWholeGroups) {
  constexpr char kText[] = R"(
HloModule grouped, num_partitions=4

ENTRY main {
  x = f32[2,6,6,8] parameter(0), sharding={devices=[2,1,1,2]<=[4]}
  w = f32[3,3,1,8] parameter(1), sharding={devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  depthwise = f32[2,6,6,8] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=8, sharding={devices=[2,1,1,2]<=[4]}
  w2 = f32[3,3,4,4] parameter(2), sharding={replicated}
  two = f32[2,6,6,4] convolution(x, w2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2, sharding={devices=[1,1,1,4]<=[4]}
  t = f32[2,16,4] parameter(3), sharding={devices=[1,4,1]<=[4]}
  w3 = f32[4,1,4] parameter(4), sharding={replicated}
  causal = f32[2,16,4] convolution(t, w3), window={size=4 pad=3_0}, dim_labels=b0f_0io->b0f, feature_group_count=4, sharding={devices=[1,4,1]<=[4]}
  ROOT out = (f32[2,6,6,8], f32[2,6,6,4], f32[2,16,4]) tuple(depthwise, two, causal), sharding={{devices=[2,1,1,2]<=[4]}, {devices=[1,1,1,4]<=[4]}, {devices=[1,4,1]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Computation* entry = p->module->entry();
  for (const auto& inst : entry->instructions()) {
    if (inst->name() == "depthwise") {
      EXPECT_EQ(inst->shape().ToString(false), "f32[1,6,6,4]");
      EXPECT_EQ(inst->attrs().feature_group_count, 4);
    }
    if (inst->name() == "two") {
      EXPECT_EQ(inst->attrs().feature_group_count, 2);
    }
    if (inst->name() == "causal") {
      EXPECT_EQ(inst->shape().ToString(false), "f32[2,4,4]");
    }
  }
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["collective-permute"], 1) << p->module->ToString();
  // The 2-group convolution gathers x's channels (split 2 ways) and nothing else.
  EXPECT_EQ(counts["all-gather"], 2) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 3) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A depthwise convolution's weight gradient (batch_group_count 8: the input batch holds
// the channels, the images are contracted): split on channels in whole groups (each
// device 4 groups) with partial sums over the split images, one all-reduce; with 3
// batch groups over 2 devices the channels are computed whole.
TEST(SpmdPartitionerTest, BatchGroupedConvolutionSplitsChannelsInWholeGroups) {
  constexpr char kText[] = R"(
HloModule wgrad, num_partitions=4

ENTRY main {
  x = f32[4,6,6,8] parameter(0), sharding={devices=[2,1,1,2]<=[4]}
  dy = f32[4,6,6,8] parameter(1), sharding={devices=[2,1,1,2]<=[4]}
  dw = f32[3,3,1,8] convolution(x, dy), window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=8, sharding={devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  x3 = f32[4,6,6,6] parameter(2), sharding={devices=[2,1,1,2]<=[4]}
  dy3 = f32[4,6,6,6] parameter(3), sharding={devices=[2,1,1,2]<=[4]}
  dw3 = f32[3,3,2,6] convolution(x3, dy3), window={size=6x6 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=3, sharding={devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  ROOT out = (f32[3,3,1,8], f32[3,3,2,6]) tuple(dw, dw3), sharding={{devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}, {devices=[1,1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  for (const auto& inst : p->module->entry()->instructions()) {
    if (inst->name() == "dw") {
      EXPECT_EQ(inst->attrs().batch_group_count, 4);
    }
    if (inst->name() == "dw3") {
      EXPECT_EQ(inst->attrs().batch_group_count, 3);
    }
  }
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr) << p->module->ToString();
  const CollectiveDecision* d = FindDecision(p->context, "all-reduce");
  ASSERT_NE(d, nullptr) << p->module->ToString();
  EXPECT_EQ(d->groups, "{{0,2},{1,3}}");
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A rematerialized value's barrier (jax.checkpoint) passes the tuple through split as
// it is; a custom call with a Shardy sharding rule (jax's batched Cholesky) is split along
// the factor the rule passes through, its other dims whole; its per-device call keeps its
// layout constraint in local dims and drops the rule.
TEST(SpmdPartitionerTest, BarriersAndRuledCustomCallsKeepTheBatchSplit) {
  constexpr char kText[] = R"(
HloModule ruled, num_partitions=4

ENTRY main {
  a = f32[8,4,4] parameter(0), sharding={devices=[4,1,1]<=[4]}
  eye = f32[4,4] parameter(1), sharding={replicated}
  at = f32[8,4,4] transpose(a), dimensions={0,2,1}, sharding={devices=[4,1,1]<=[4]}
  aat = f32[8,4,4] dot(a, at), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, sharding={devices=[4,1,1]<=[4]}
  four = f32[] constant(4)
  fours = f32[4,4] broadcast(four), dimensions={}
  eye4 = f32[4,4] multiply(eye, fours)
  eyes = f32[8,4,4] broadcast(eye4), dimensions={1,2}
  spd = f32[8,4,4] add(aat, eyes), sharding={devices=[4,1,1]<=[4]}
  pair = (f32[8,4,4], f32[8,4,4]) tuple(spd, a), sharding={{devices=[4,1,1]<=[4]}, {devices=[4,1,1]<=[4]}}
  barrier = (f32[8,4,4], f32[8,4,4]) opt-barrier(pair), sharding={{devices=[4,1,1]<=[4]}, {devices=[4,1,1]<=[4]}}
  held = f32[8,4,4] get-tuple-element(barrier), index=0, sharding={devices=[4,1,1]<=[4]}
  chol = (f32[8,4,4]{1,2,0}, s32[8]) custom-call(held), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[8,4,4]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, frontend_attributes={num_batch_dims="1",xla.sdy.sharding_rule="#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=4, k=4, l=4, m=4}, custom>"}, backend_config={uplo = 76 : ui8}, sharding={{devices=[4,1,1]<=[4]}, {devices=[4]<=[4]}}
  l = f32[8,4,4]{1,2,0} get-tuple-element(chol), index=0, sharding={devices=[4,1,1]<=[4]}
  info = s32[8] get-tuple-element(chol), index=1, sharding={devices=[4]<=[4]}
  ROOT out = (f32[8,4,4]{1,2,0}, s32[8]) tuple(l, info), sharding={{devices=[4,1,1]<=[4]}, {devices=[4]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  bool saw_call = false;
  for (const auto& inst : p->module->entry()->instructions()) {
    if (inst->opcode() == Opcode::kOptimizationBarrier) {
      EXPECT_EQ(inst->shape().ToString(false), "(f32[2,4,4], f32[2,4,4])");
    }
    if (inst->opcode() != Opcode::kCustomCall) continue;
    saw_call = true;
    EXPECT_EQ(inst->shape().ToString(false), "(f32[2,4,4], s32[2])");
    ASSERT_EQ(inst->attrs().operand_layout_constraints.size(), 1u);
    EXPECT_EQ(inst->attrs().operand_layout_constraints[0].ToString(true), "f32[2,4,4]{1,2,0}");
    for (const auto& [key, value] : inst->attrs().frontend_attributes) EXPECT_NE(key, "xla.sdy.sharding_rule");
  }
  EXPECT_TRUE(saw_call);
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A rule that does not fit the call (a factor's size is not its dim's) is not trusted:
// the call is computed whole, and the message says why.
TEST(SpmdPartitionerTest, CustomCallWithAMismatchedRuleIsComputedWhole) {
  constexpr char kText[] = R"(
HloModule ruled, num_partitions=4

ENTRY main {
  a = f32[8,4,4] parameter(0), sharding={devices=[4,1,1]<=[4]}
  ROOT chol = (f32[8,4,4], s32[8]) custom-call(a), custom_call_target="lapack_spotrf_ffi", api_version=API_VERSION_TYPED_FFI, frontend_attributes={xla.sdy.sharding_rule="#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=4, j=4, k=4, l=4, m=4}, custom>"}, backend_config={uplo = 76 : ui8}, sharding={{devices=[4,1,1]<=[4]}, {devices=[4]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const CollectiveDecision* d = FindDecision(p->context, "replicated-fallback");
  ASSERT_NE(d, nullptr) << p->module->ToString();
  EXPECT_NE(d->reason.find("sharding rule does not match"), std::string::npos) << d->reason;
}

// A reverse along a split dim mirrors the tiles' order: one collective-permute, then each
// device reverses its own tile; along both split dims of a 2x2 grid, still one.
TEST(SpmdPartitionerTest, ReverseAlongSplitDimsMirrorsTheTiles) {
  constexpr char kText[] = R"(
HloModule rev, num_partitions=4

ENTRY main {
  x = f32[8,12] parameter(0), sharding={devices=[2,2]<=[4]}
  one = f32[8,12] reverse(x), dimensions={1}, sharding={devices=[2,2]<=[4]}
  both = f32[8,12] reverse(x), dimensions={0,1}, sharding={devices=[2,2]<=[4]}
  ROOT out = (f32[8,12], f32[8,12]) tuple(one, both), sharding={{devices=[2,2]<=[4]}, {devices=[2,2]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["collective-permute"], 2) << p->module->ToString();
  EXPECT_EQ(CollectiveCount(*p->module), 2) << p->module->ToString();
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// A cache split along its sequence dim takes a one-step update where it lies (each device
// writes the part of the update in its tile): no collective. Starts past the end clamp
// as the op does; a wider update spans two tiles; a dim the update spans whole stays split.
TEST(SpmdPartitionerTest, DynamicUpdateSliceAlongASplitDimUpdatesEachTileWhereItLies) {
  constexpr char kText[] = R"(
HloModule cache, num_partitions=4

ENTRY main {
  cache = f32[2,16,6] parameter(0), sharding={devices=[1,4,1]<=[4]}
  step = f32[2,1,6] parameter(1), sharding={replicated}
  i = s32[] parameter(2), sharding={replicated}
  z = s32[] constant(0)
  one = f32[2,16,6] dynamic-update-slice(cache, step, z, i, z), sharding={devices=[1,4,1]<=[4]}
  block = f32[2,6,3] parameter(3), sharding={replicated}
  j = s32[] parameter(4), sharding={replicated}
  wide = f32[2,16,6] dynamic-update-slice(cache, block, z, j, j), sharding={devices=[1,4,1]<=[4]}
  grid = f32[4,16,6] parameter(5), sharding={devices=[2,2,1]<=[4]}
  rows = f32[4,3,6] parameter(6), sharding={replicated}
  both = f32[4,16,6] dynamic-update-slice(grid, rows, z, j, z), sharding={devices=[2,2,1]<=[4]}
  ROOT out = (f32[2,16,6], f32[2,16,6], f32[4,16,6]) tuple(one, wide, both), sharding={{devices=[1,4,1]<=[4]}, {devices=[1,4,1]<=[4]}, {devices=[2,2,1]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(CollectiveCount(*p->module), 0) << p->module->ToString();
  for (auto [i, j] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {3, 2}, {4, 5}, {15, 3}, {40, -3}, {-2, 9}, {7, 1}}) {
    SCOPED_TRACE(std::to_string(i) + ", " + std::to_string(j));
    ExpectSameGlobalResultOn(kText, *p->module, 4, [&](std::vector<Literal>& args) {
      args[2].SetInt64(0, i);
      args[4].SetInt64(0, j);
    });
  }
}

// A transposed convolution (input dilated by 2) split by height: each output tile of 4
// rows reads its own 2 input rows and one from the device before (a halo), the window
// starting inside the holes before the first: the local padding keeps what is left of it.
// Dilated by 3 with a wider window, the halo is a row from each side.
TEST(SpmdPartitionerTest, TransposedConvolutionSplitByHeightExchangesAHalo) {
  constexpr char kText[] = R"(
HloModule transposed, num_partitions=4

ENTRY main {
  x = f32[2,8,5,3] parameter(0), sharding={devices=[1,4,1,1]<=[4]}
  w = f32[3,3,3,2] parameter(1), sharding={replicated}
  up = f32[2,16,10,2] convolution(x, w), window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01io->b01f, sharding={devices=[1,4,1,1]<=[4]}
  w5 = f32[5,1,3,2] parameter(2), sharding={replicated}
  up3 = f32[2,24,5,2] convolution(x, w5), window={size=5x1 pad=3_3x0_0 lhs_dilate=3x1}, dim_labels=b01f_01io->b01f, sharding={devices=[1,4,1,1]<=[4]}
  ROOT out = (f32[2,16,10,2], f32[2,24,5,2]) tuple(up, up3), sharding={{devices=[1,4,1,1]<=[4]}, {devices=[1,4,1,1]<=[4]}}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  auto counts = OpcodeCounts(*p->module);
  EXPECT_EQ(counts["all-gather"], 0) << p->module->ToString();
  EXPECT_EQ(counts["collective-permute"], 3) << p->module->ToString();
  EXPECT_EQ(FindDecision(p->context, "replicated-fallback"), nullptr);
  ExpectSameGlobalResult(kText, *p->module, 4);
}

// --- Partially manual regions (a shard_map over some mesh axes) ----------------------------
//
// Four devices as a 2x2 mesh ('data', 'model'), device = 2*data + model: a region manual
// over 'data' (its groups {0,1} and {2,3}) whose values the partitioner still splits over
// 'model' inside; the program's own psum runs over 'data' ({0,2}, {1,3}).
constexpr char kPartialManual[] = R"(
HloModule pm, num_partitions=4

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w = f32[16,32] parameter(1), sharding={replicated}
  xc = f32[8,16] copy(x), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  wc = f32[16,32] copy(w), sharding={replicated}
  ws = f32[16,32] custom-call(wc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  h = f32[4,32] dot(xs, ws), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  t = f32[4,32] tanh(h), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  zero = f32[] constant(0), sharding={devices=[2,2]<=[4] last_tile_dims={manual, replicated}}
  r = f32[4] reduce(t, zero), dimensions={1}, to_apply=sum, sharding={devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}
  p = f32[4] all-reduce(r), channel_id=1, replica_groups={{0,2},{1,3}}, use_global_device_ids=true, to_apply=sum, sharding={devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT out = f32[4] custom-call(p), custom_call_target="SPMDShardToFullShape", sharding={replicated}
}
)";

TEST(SpmdPartitionerTest, PartiallyManualRegionIsSplitOverItsFreeAxisInside) {
  // Each data block's hidden layer split over 'model', summed over it within the block's
  // manual group, then the blocks summed by the program's psum.
  constexpr char kReference[] = R"(
HloModule pm_ref

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,16] parameter(0)
  w = f32[16,32] parameter(1)
  h = f32[8,32] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[8,32] tanh(h)
  zero = f32[] constant(0)
  r = f32[8] reduce(t, zero), dimensions={1}, to_apply=sum
  blocks = f32[2,4] reshape(r)
  ROOT out = f32[4] reduce(blocks, zero), dimensions={0}, to_apply=sum
}
)";
  auto p = Partition(kPartialManual);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  // The hidden layer's dot is local (the weight sliced by columns on each device); its
  // reduction over the split hidden dim is the partitioner's one collective, within each
  // manual group; the program's psum keeps its groups.
  ASSERT_EQ(p->context.collectives().size(), 1u) << FormatCollectiveDecisions(p->context.collectives());
  const CollectiveDecision& d = p->context.collectives()[0];
  EXPECT_EQ(d.kind, "all-reduce");
  EXPECT_EQ(d.groups, "{{0,1},{2,3}}");
  EXPECT_EQ(CollectiveCount(m), 2) << m.ToString();
  EXPECT_NE(m.ToString().find("replica_groups={{0,2},{1,3}}"), std::string::npos) << m.ToString();
  const Instruction* dot = nullptr;
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() == Opcode::kDot) dot = inst.get();
  }
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->shape().ToString(false), "f32[4,16]");
  ExpectSameGlobalResult(kReference, m, 4);
}

TEST(SpmdPartitionerTest, PartiallyManualCollectivesRunOnTheTilesTheirGroupsShare) {
  // y is split over 'model' along dim 1; the program's all-gather (along dim 0, over
  // 'data') and its permute (between the data groups) run on those tiles as they are:
  // their groups' devices hold the same 'model' tile. Only the region's end, which wants
  // the value whole in each group, gathers (within the groups).
  constexpr char kText[] = R"(
HloModule pm2, num_partitions=4

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xc = f32[8,16] copy(x), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  y = f32[4,16] multiply(xs, xs), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  g = f32[8,16] all-gather(y), channel_id=1, replica_groups={{0,2},{1,3}}, dimensions={0}, use_global_device_ids=true, sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  q = f32[4,16] collective-permute(y), channel_id=2, source_target_pairs={{0,2},{2,0},{1,3},{3,1}}, sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  qg = f32[8,16] all-gather(q), channel_id=3, replica_groups={{0,2},{1,3}}, dimensions={0}, use_global_device_ids=true, sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  s = f32[8,16] subtract(g, qg), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  sw = f32[8,16] copy(s), sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT out = f32[16,16] custom-call(sw), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)";
  // Group 0 holds [y0; y1] - [y1; y0], group 1 [y0; y1] - [y1; y0] too (the permute swaps
  // the groups' pieces): out = the two groups' values stacked.
  constexpr char kReference[] = R"(
HloModule pm2_ref

ENTRY main {
  x = f32[8,16] parameter(0)
  y = f32[8,16] multiply(x, x)
  top = f32[4,16] slice(y), slice={[0:4], [0:16]}
  bottom = f32[4,16] slice(y), slice={[4:8], [0:16]}
  swapped = f32[8,16] concatenate(bottom, top), dimensions={0}
  d = f32[8,16] subtract(y, swapped)
  ROOT out = f32[16,16] concatenate(d, d), dimensions={0}
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  ASSERT_EQ(p->context.collectives().size(), 1u) << FormatCollectiveDecisions(p->context.collectives());
  const CollectiveDecision& d = p->context.collectives()[0];
  EXPECT_EQ(d.kind, "all-gather");
  EXPECT_EQ(d.groups, "{{0,1},{2,3}}");
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() == Opcode::kCollectivePermute) {
      EXPECT_EQ(inst->shape().ToString(false), "f32[4,8]");
    }
  }
  ExpectSameGlobalResult(kReference, m, 4);
}

TEST(SpmdPartitionerTest, PartiallyManualReshardMovesTilesWithinEachGroup) {
  // Manual groups {0,3} and {1,2}; the copy swaps the 'model' tiles within each group. A
  // device receives its tile from the other device of its own group (0 <-> 3, 1 <-> 2),
  // never from the other group, whose value differs.
  constexpr char kText[] = R"(
HloModule pm3, num_partitions=4

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]0,3,1,2 last_tile_dim_replicate}
  xc = f32[8,16] copy(x), sharding={devices=[2,1,2]0,3,1,2 last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]0,3,1,2 last_tile_dims={manual, replicated}}
  a = f32[4,16] negate(xs), sharding={devices=[1,2,2]0,1,3,2 last_tile_dims={manual}}
  b = f32[4,16] copy(a), sharding={devices=[1,2,2]3,2,0,1 last_tile_dims={manual}}
  c = f32[4,16] exponential(b), sharding={devices=[1,2,2]3,2,0,1 last_tile_dims={manual}}
  cw = f32[4,16] copy(c), sharding={devices=[1,1,2,2]0,3,1,2 last_tile_dims={manual, replicated}}
  ROOT out = f32[8,16] custom-call(cw), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1,2]0,3,1,2 last_tile_dim_replicate}
}
)";
  constexpr char kReference[] = R"(
HloModule pm3_ref

ENTRY main {
  x = f32[8,16] parameter(0)
  a = f32[8,16] negate(x)
  ROOT c = f32[8,16] exponential(a)
}
)";
  auto p = Partition(kText);
  ASSERT_NE(p, nullptr);
  const Module& m = *p->module;
  bool permuted = false;
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->opcode() != Opcode::kCollectivePermute) continue;
    permuted = true;
    const std::vector<std::pair<int64_t, int64_t>> within = {{0, 3}, {1, 2}, {2, 1}, {3, 0}};
    EXPECT_EQ(inst->attrs().source_target_pairs, within) << inst->ToString();
  }
  EXPECT_TRUE(permuted) << m.ToString();
  ExpectSameGlobalResult(kReference, m, 4);
}

TEST(SpmdPartitionerTest, PartiallyManualShardingsOutsideARegionAreErrorsNamingTheInstruction) {
  auto run = [](const std::string& text) {
    auto m = Parse(text);
    EXPECT_NE(m, nullptr);
    PassContext context;
    StatusOr<bool> changed = SpmdPartitioner().Run(*m, context);
    EXPECT_FALSE(changed.ok());
    return changed.ok() ? std::string() : changed.status().message();
  };
  // An entry parameter already partially manual.
  EXPECT_NE(run(R"(
HloModule e1, num_partitions=4
ENTRY main {
  x = f32[4,16] parameter(0), sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT y = f32[4,16] custom-call(x), custom_call_target="SPMDShardToFullShape", sharding={replicated}
}
)").find("%x: an entry parameter with a partially manual sharding"),
            std::string::npos);
  // A region's value read outside the region without SPMDShardToFullShape.
  const std::string leaks = run(R"(
HloModule e2, num_partitions=4
ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xc = f32[8,16] copy(x), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT y = f32[4,16] negate(xs), sharding={replicated}
}
)");
  EXPECT_NE(leaks.find("%y: %xs would move between a partially manual and an automatic sharding"), std::string::npos)
      << leaks;
  // An operand split along the region's split dim by other devices than its groups'.
  const std::string mismatched = run(R"(
HloModule e3, num_partitions=4
ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  xc = f32[8,16] copy(x), sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  xw = f32[4,16] copy(xs), sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT y = f32[8,16] custom-call(xw), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)");
  EXPECT_NE(mismatched.find("%xs: device 1 would hold another tile of %xc"), std::string::npos) << mismatched;
}

// A manual region nested in a partially manual one (a shard_map over 'b' in the body of
// one over 'a', as shardy-import writes it): the inner region starts from the outer's
// value split over 'b' and is manual over both axes; each device's tile is its value.
constexpr char kNestedRegions[] = R"(
HloModule nested, num_partitions=4

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,2]<=[4]}
  xc = f32[8,16] copy(x), sharding={devices=[2,2]<=[4]}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  xi = f32[4,16] copy(xs), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}
  xm = f32[4,8] custom-call(xi), custom_call_target="SPMDFullToShardShape", sharding=INNER
  zero = f32[] constant(0), sharding={manual}
  r = f32[4] reduce(xm, zero), dimensions={1}, to_apply=sum, sharding={manual}
  rs = f32[4] all-reduce(r), channel_id=1, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, to_apply=sum, sharding={manual}
  rc = f32[4] copy(rs), sharding={manual}
  ro = f32[4] custom-call(rc), custom_call_target="SPMDShardToFullShape", sharding={devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}
  rw = f32[4] copy(ro), sharding={devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}
  ROOT y = f32[8] custom-call(rw), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,2]<=[4] last_tile_dim_replicate}
}
)";

// What the nested regions compute: each row's sum.
constexpr char kRowSums[] = R"(
HloModule rowsum
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[8,16] parameter(0)
  zero = f32[] constant(0)
  ROOT y = f32[8] reduce(x, zero), dimensions={1}, to_apply=sum
}
)";

std::string NestedRegions(const std::string& inner) {
  std::string text = kNestedRegions;
  text.replace(text.find("INNER"), 5, inner);
  return text;
}

TEST(SpmdPartitionerTest, NestedManualRegionStartsFromItsEnclosingRegionsTiles) {
  auto p = Partition(NestedRegions("{manual}"));
  ASSERT_NE(p, nullptr);
  // Row sums: each device's [4,8] tile summed, the two column tiles of a row block added
  // by the program's psum; nothing else moves.
  EXPECT_EQ(p->context.collectives().size(), 0u) << FormatCollectiveDecisions(p->context.collectives());
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  ExpectSameGlobalResult(kRowSums, *p->module, 4);
}

// Three axes: the outer region manual over 'a', the inner one over 'b' too, 'c' still free
// in both (each value replicated over it). The inner region is partially manual: its
// groups (a, b) lie within the outer's (a).
TEST(SpmdPartitionerTest, NestedPartiallyManualRegionKeepsItsFreeAxis) {
  auto p = Partition(R"(
HloModule nested3, num_partitions=8

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8,16] parameter(0), sharding={devices=[2,2,2]<=[8] last_tile_dim_replicate}
  xc = f32[8,16] copy(x), sharding={devices=[2,2,2]<=[8] last_tile_dim_replicate}
  xs = f32[4,16] custom-call(xc), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,2,2,2]<=[2,2,2]T(1,0,2) last_tile_dims={manual, replicated}}
  xi = f32[4,16] copy(xs), sharding={devices=[1,2,2,2]<=[2,2,2]T(1,0,2) last_tile_dims={manual, replicated}}
  xm = f32[4,8] custom-call(xi), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,4,2]<=[8] last_tile_dims={manual, replicated}}
  zero = f32[] constant(0), sharding={devices=[4,2]<=[8] last_tile_dims={manual, replicated}}
  r = f32[4] reduce(xm, zero), dimensions={1}, to_apply=sum, sharding={devices=[1,4,2]<=[8] last_tile_dims={manual, replicated}}
  rs = f32[4] all-reduce(r), channel_id=1, replica_groups={{0,2},{1,3},{4,6},{5,7}}, use_global_device_ids=true, to_apply=sum, sharding={devices=[1,4,2]<=[8] last_tile_dims={manual, replicated}}
  rc = f32[4] copy(rs), sharding={devices=[1,4,2]<=[8] last_tile_dims={manual, replicated}}
  ro = f32[4] custom-call(rc), custom_call_target="SPMDShardToFullShape", sharding={devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}
  rw = f32[4] copy(ro), sharding={devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}
  ROOT y = f32[8] custom-call(rw), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,4]<=[8] last_tile_dim_replicate}
}
)");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->context.collectives().size(), 0u) << FormatCollectiveDecisions(p->context.collectives());
  EXPECT_EQ(CollectiveCount(*p->module), 1) << p->module->ToString();
  ExpectSameGlobalResult(kRowSums, *p->module, 8);
}

TEST(SpmdPartitionerTest, NestedRegionManualOverOtherAxesThanItsEnclosingOnesIsAnError) {
  // Manual over 'b' only, inside a region manual over 'a': its groups ({0,2}, {1,3}) cut
  // across the enclosing region's ({0,1}, {2,3}).
  auto m = Parse(NestedRegions("{devices=[1,1,2,2]<=[2,2]T(1,0) last_tile_dims={manual, replicated}}"));
  ASSERT_NE(m, nullptr);
  PassContext context;
  StatusOr<bool> changed = SpmdPartitioner().Run(*m, context);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find(
                "%xm: SPMDFullToShardShape of %xi, which is already partially manual over axes the region does "
                "not make manual"),
            std::string::npos)
      << changed.status().message();
}

TEST(SpmdPartitionerTest, NeedsPartitioningTellsGlobalFromPerDevicePrograms) {
  auto global = Parse(kTpMlp);
  ASSERT_NE(global, nullptr);
  EXPECT_TRUE(NeedsSpmdPartitioning(*global));
  auto single = Parse("HloModule s\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n}\n");
  ASSERT_NE(single, nullptr);
  EXPECT_FALSE(NeedsSpmdPartitioning(*single));
  // XLA's own partitioned, optimized output.
  auto xla =
      ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/tp_mlp/partitioned.hlo");
  ASSERT_TRUE(xla.ok()) << xla.status().message();
  ASSERT_FALSE(xla->modules.empty());
  EXPECT_FALSE(NeedsSpmdPartitioning(*xla->modules[0]));
  auto before =
      ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/multidevice/tp_mlp/module.hlo");
  ASSERT_TRUE(before.ok()) << before.status().message();
  ASSERT_FALSE(before->modules.empty());
  EXPECT_TRUE(NeedsSpmdPartitioning(*before->modules[0]));
  // The pass leaves a module that needs nothing more.
  auto p = Partition(kTpMlp);
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(NeedsSpmdPartitioning(*p->module));
  PassContext again;
  StatusOr<bool> changed = SpmdPartitioner().Run(*p->module, again);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace fusebox::passes
