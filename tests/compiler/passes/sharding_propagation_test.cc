// Tests of sharding propagation on hand-written modules: tensor-parallel MLP, batch-sharded
// chains, reduce over a sharded dim, transpose, reshape split/merge, broadcast, while
// loops, calls, conflicts, merged partial candidates (MergeShardings); given shardings
// never change; the module computes the same.
#include "compiler/passes/sharding_propagation.h"

#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>

#include "compiler/ir/sharding.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::Parse;
using testing_util::RunPassAndCheck;

std::string S(const Module& m, const std::string& name, const Computation* comp = nullptr) {
  const Instruction* inst = (comp != nullptr ? comp : m.entry())->FindInstruction(name);
  if (inst == nullptr) return "<no " + name + ">";
  if (!inst->has_attributes() || !inst->attrs().has_sharding) return "<none>";
  return "{" + inst->attrs().sharding + "}";
}

// Runs the pass (verifies; compares interpreter results before/after unless the module has
// a manual region, which means nothing on one device); every instruction
// of the entry ends up with a sharding.
std::unique_ptr<Module> Propagate(const std::string& text, ShardingPropagation* pass = nullptr,
                                  bool compare = true) {
  auto m = Parse(text);
  if (m == nullptr) return nullptr;
  ShardingPropagation local;
  ShardingPropagation& p = pass != nullptr ? *pass : local;
  RunPassAndCheck(p, *m, compare);
  for (const auto& inst : m->entry()->instructions())
    EXPECT_TRUE(inst->has_attributes() && inst->attrs().has_sharding) << inst->ToString();
  for (const std::string& line : p.log()) std::cout << "  " << line << "\n";
  return m;
}

TEST(ShardingPropagationTest, TensorParallelMlp) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={replicated}
  w1 = f32[16,32] parameter(1), sharding={devices=[1,4]<=[4]}
  w2 = f32[32,16] parameter(2), sharding={devices=[4,1]<=[4]}
  h = f32[8,32] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  zeros = f32[8,32] broadcast(zero), dimensions={}
  relu = f32[8,32] maximum(h, zeros)
  ROOT y = f32[8,16] dot(relu, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "h"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "zeros"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "relu"), "{devices=[1,4]<=[4]}");
  // Contracting dims sharded on both sides: a partial sum; its free dims are whole.
  EXPECT_EQ(S(*m, "y"), "{replicated}");
  EXPECT_EQ(S(*m, "zero"), "{replicated}");
  // Given shardings stay as written.
  EXPECT_EQ(S(*m, "x"), "{replicated}");
  EXPECT_EQ(S(*m, "w2"), "{devices=[4,1]<=[4]}");
}

// w2's sharding comes from a Sharding custom call (with_sharding_constraint); the
// unsharded parameter takes it backward; the output follows the root's wish.
TEST(ShardingPropagationTest, ConstraintShardsAnUnshardedParameter) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0)
  w2 = f32[16,4] parameter(1)
  c = f32[16,4] custom-call(w2), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
  d = f32[8,4] dot(x, c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[8,4] negate(d), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "w2"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "c"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "d"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "x"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
}

TEST(ShardingPropagationTest, BatchShardedElementwiseChain) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  y = f32[16,8] parameter(1)
  e1 = f32[16,8] exponential(x)
  one = f32[] constant(1)
  ones = f32[16,8] broadcast(one), dimensions={}
  a = f32[16,8] add(e1, ones)
  t = f32[16,8] tanh(a)
  s = f32[16,8] subtract(t, y)
  p = pred[16,8] compare(s, ones), direction=GT
  ROOT r = f32[16,8] select(p, s, ones)
}
)");
  ASSERT_NE(m, nullptr);
  for (const char* name : {"y", "e1", "ones", "a", "t", "s", "p", "r"})
    EXPECT_EQ(S(*m, name), "{devices=[4,1]<=[4]}") << name;
}

TEST(ShardingPropagationTest, GatherScatterAndWindowedOpsPassTheirOtherDims) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  table = f32[64,8] parameter(0), sharding={devices=[4,1]<=[4]}
  ids = s32[4,6] parameter(1), sharding={devices=[4,1]<=[4]}
  rows = f32[4,6,8] gather(table, ids), offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,8}
  zero = f32[] constant(0)
  zeros = f32[64,8] broadcast(zero), dimensions={}
  upd = f32[4,6,8] parameter(2)
  grad = f32[64,8] scatter(table, ids, upd), update_window_dims={2}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=2, to_apply=sum
  img = f32[2,16,16,3] parameter(3), sharding={devices=[1,4,1,1]<=[4]}
  w = f32[3,3,3,4] parameter(4), sharding={replicated}
  conv = f32[2,16,16,4] convolution(img, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  cums = f32[2,16,16,4] reduce-window(conv, zero), window={size=1x16x1x1 pad=0_0x15_0x0_0x0_0}, to_apply=sum
  x = f32[8,16] parameter(5), sharding={devices=[4,1]<=[4]}
  spec = c64[8,9] fft(x), fft_type=RFFT, fft_length={16}
  ROOT t = (f32[4,6,8], f32[64,8], f32[2,16,16,4], c64[8,9]) tuple(rows, grad, cums, spec)
}
)");
  ASSERT_NE(m, nullptr);
  // The gather's batch dims follow the indices (the table's split rows map to no dim of
  // the result: the partitioner looks them up where they lie).
  EXPECT_EQ(S(*m, "rows"), "{devices=[4,1,1]<=[4]}");
  // The scatter's result is its operand.
  EXPECT_EQ(S(*m, "grad"), "{devices=[4,1]<=[4]}");
  // A convolution's spatial dims and a reduce-window's dims pass through.
  EXPECT_EQ(S(*m, "conv"), "{devices=[1,4,1,1]<=[4]}");
  EXPECT_EQ(S(*m, "cums"), "{devices=[1,4,1,1]<=[4]}");
  // An fft keeps the dims it does not transform.
  EXPECT_EQ(S(*m, "spec"), "{devices=[4,1]<=[4]}");
}

TEST(ShardingPropagationTest, VariadicReduceAndSortResultsAreSplitAlike) {
  auto m = Propagate(R"(
HloModule m, num_partitions=8
argmax {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT r = (f32[], s32[]) tuple(v, k)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
less2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[8,64] parameter(0), sharding={devices=[2,4]<=[8]}
  iota = s32[8,64] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[8], s32[8]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
  index = s32[8] get-tuple-element(r), index=1
  sorted = f32[8,64] sort(x), dimensions={1}, to_apply=less
  y = f32[64] parameter(1), sharding={devices=[8]<=[8]}
  pos = s32[64] iota(), iota_dimension=0
  both = (f32[64], s32[64]) sort(y, pos), dimensions={0}, to_apply=less2
  order = s32[64] get-tuple-element(both), index=1
  ROOT t = (s32[8], f32[8,64], s32[64]) tuple(index, sorted, order)
}
)");
  ASSERT_NE(m, nullptr);
  // The index follows the values (the positions' iota has no sharding of its own).
  EXPECT_EQ(S(*m, "index"), "{devices=[2,4]<=[8] last_tile_dim_replicate}");
  // A sort dim keeps its split where another dim can take it over while the sort runs...
  EXPECT_EQ(S(*m, "sorted"), "{devices=[2,4]<=[8]}");
  // ...and is whole where none can (one dim); keys and positions alike.
  EXPECT_EQ(S(*m, "both"), "{{replicated}, {replicated}}");
  EXPECT_EQ(S(*m, "order"), "{replicated}");
}

TEST(ShardingPropagationTest, ReduceKeepsKeptDimsAndReplicatesReducedOnes) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[2,2]<=[4]}
  z = f32[] constant(0)
  rows = f32[8] reduce(x, z), dimensions={1}, to_apply=sum
  cols = f32[16] reduce(x, z), dimensions={0}, to_apply=sum
  v = f32[8,16] parameter(1), sharding={devices=[1,4]<=[4]}
  all = f32[8] reduce(v, z), dimensions={1}, to_apply=sum
  ROOT t = (f32[8], f32[16], f32[8]) tuple(rows, cols, all)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "rows"), "{devices=[2,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "cols"), "{devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "all"), "{replicated}");
  EXPECT_EQ(S(*m, "t"),
            "{{devices=[2,2]<=[4] last_tile_dim_replicate}, {devices=[2,2]<=[2,2]T(1,0) "
            "last_tile_dim_replicate}, "
            "{replicated}}");
}

TEST(ShardingPropagationTest, TransposePermutesTiles) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[4,1]<=[4]}
  t = f32[16,8] transpose(x), dimensions={1,0}
  y = f32[8,16,4] parameter(1), sharding={devices=[2,2,1]<=[4]}
  u = f32[4,8,16] transpose(y), dimensions={2,0,1}
  w = f32[16,8,4] transpose(y), dimensions={1,0,2}
  ROOT r = (f32[16,8], f32[4,8,16], f32[16,8,4]) tuple(t, u, w)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "t"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "u"), "{devices=[1,2,2]<=[4]}");
  EXPECT_EQ(S(*m, "w"), "{devices=[2,2,1]<=[2,2]T(1,0)}");
}

TEST(ShardingPropagationTest, ReshapeSplitAndMerge) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  split = f32[4,4,8] reshape(x)
  merged = f32[128] reshape(split)
  y = f32[8,16] parameter(1), sharding={devices=[1,4]<=[4]}
  minor = f32[8,4,4] reshape(y)
  z = f32[6,4] parameter(2), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  uneven = f32[3,8] reshape(z)
  ones = f32[1,16,8] reshape(x)
  ROOT r = (f32[128], f32[8,4,4], f32[3,8], f32[1,16,8]) tuple(merged, minor, uneven, ones)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "split"), "{devices=[4,1,1]<=[4]}");
  EXPECT_EQ(S(*m, "merged"), "{devices=[4]<=[4]}");
  EXPECT_EQ(S(*m, "minor"), "{devices=[1,4,1]<=[4]}");
  // 2 tiles of 6 rows do not make whole rows of 8: replicated.
  EXPECT_EQ(S(*m, "uneven"), "{replicated}");
  EXPECT_EQ(S(*m, "ones"), "{devices=[1,4,1]<=[4]}");
}

TEST(ShardingPropagationTest, BroadcastForwardAndBackward) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  b = f32[8] parameter(0), sharding={devices=[4]<=[4]}
  bb = f32[8,16] broadcast(b), dimensions={0}
  c = f32[16] parameter(1)
  cb = f32[8,16] broadcast(c), dimensions={1}
  x = f32[8,16] parameter(2), sharding={devices=[1,4]<=[4]}
  s = f32[8,16] add(x, cb)
  ROOT r = (f32[8,16], f32[8,16]) tuple(bb, s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "bb"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "cb"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "c"), "{devices=[4]<=[4]}");  // backward through the broadcast
}

TEST(ShardingPropagationTest, WhileLoopCarriesOneSharding) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
cond {
  cp = (s32[], f32[16,8]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  bp = (s32[], f32[16,8]) parameter(0)
  i = s32[] get-tuple-element(bp), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  v = f32[16,8] get-tuple-element(bp), index=1
  v2 = f32[16,8] multiply(v, v)
  ROOT bt = (s32[], f32[16,8]) tuple(i1, v2)
}
ENTRY e {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  zero = s32[] constant(0)
  init = (s32[], f32[16,8]) tuple(zero, x)
  w = (s32[], f32[16,8]) while(init), condition=cond, body=body
  ROOT out = f32[16,8] get-tuple-element(w), index=1
}
)");
  ASSERT_NE(m, nullptr);
  const std::string carried = "{{replicated}, {devices=[4,1]<=[4]}}";
  EXPECT_EQ(S(*m, "init"), carried);
  EXPECT_EQ(S(*m, "w"), carried);
  EXPECT_EQ(S(*m, "out"), "{devices=[4,1]<=[4]}");
  const Computation* body = m->FindComputation("body");
  const Computation* cond = m->FindComputation("cond");
  EXPECT_EQ(S(*m, "bp", body), carried);
  EXPECT_EQ(S(*m, "bt", body), carried);
  EXPECT_EQ(S(*m, "v2", body), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "i1", body), "{replicated}");
  EXPECT_EQ(S(*m, "cp", cond), carried);
}

TEST(ShardingPropagationTest, CallBodyGetsShardings) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
f {
  a = f32[8,16] parameter(0)
  ROOT n = f32[8,16] negate(a)
}
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[1,4]<=[4]}
  c = f32[8,16] call(x), to_apply=f
  ROOT r = f32[8,16] exponential(c)
}
)");
  ASSERT_NE(m, nullptr);
  const Computation* f = m->FindComputation("f");
  EXPECT_EQ(S(*m, "a", f), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "n", f), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "c"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "r"), "{devices=[1,4]<=[4]}");
}

TEST(ShardingPropagationTest, DotBatchAndFreeDims) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[4,8,16] parameter(0), sharding={devices=[2,1,1,2]<=[4] last_tile_dim_replicate}
  b = f32[4,16,32] parameter(1), sharding={devices=[1,1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  ROOT d = f32[4,8,32] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}
)");
  ASSERT_NE(m, nullptr);
  // The lhs splits the batch dim over devices {0,1}|{2,3}, the rhs its free dim over
  // {0,2}|{1,3}: disjoint groups, so the two merge into one 4-way tiling.
  EXPECT_EQ(S(*m, "d"), "{devices=[2,1,2]<=[4]}");
}

TEST(ShardingPropagationTest, ConflictsPreferTiledThenGivenThenMoreTiles) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[8,8] parameter(0), sharding={devices=[4,1]<=[4]}
  b = f32[8,8] parameter(1), sharding={devices=[1,4]<=[4]}
  tie = f32[8,8] add(a, b)
  r = f32[8,8] parameter(2), sharding={replicated}
  eb = f32[8,8] exponential(b)
  tiled = f32[8,8] add(r, eb)
  g = f32[8,8] parameter(3), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  given = f32[8,8] add(eb, g)
  ROOT t = (f32[8,8], f32[8,8], f32[8,8]) tuple(tie, tiled, given)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "tie"), "{devices=[4,1]<=[4]}");    // equal: operand 0
  EXPECT_EQ(S(*m, "tiled"), "{devices=[1,4]<=[4]}");  // tiled beats replicated, given or not
  // A given operand's 2 tiles beat a propagated operand's 4.
  EXPECT_EQ(S(*m, "given"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "r"), "{replicated}");
}

TEST(ShardingPropagationTest, SliceConcatPadKeepTheirSplitsAsXla) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  s = f32[16,4] slice(x), slice={[0:16], [2:6]}
  cut = f32[8,8] slice(x), slice={[0:8], [0:8]}
  uneven = f32[6,8] slice(x), slice={[1:7], [0:8]}
  z = f32[] constant(0)
  p = f32[16,10] pad(x, z), padding=0_0x1_1
  rows = f32[20,8] pad(x, z), padding=1_3x0_0
  spread = f32[47,8] pad(x, z), padding=1_0_2x0_0
  c = f32[16,18] concatenate(p, x), dimensions={1}
  y = f32[4,8] parameter(1)
  stacked = f32[20,8] concatenate(x, y), dimensions={0}
  i = s32[] constant(1)
  ds = f32[16,2] dynamic-slice(x, i, i), dynamic_slice_sizes={16,2}
  two = f32[2,8] slice(x), slice={[5:7], [0:8]}
  last = f32[3,8] slice(x), slice={[13:16], [0:8]}
  first = f32[13,8] slice(x), slice={[0:13], [0:8]}
  rolled = f32[16,8] concatenate(last, first), dimensions={0}
  ROOT t = (f32[16,4], f32[8,8], f32[6,8], f32[16,18], f32[16,2], f32[20,8], f32[47,8], f32[20,8], f32[16,8], f32[2,8]) tuple(s, cut, uneven, c, ds, rows, spread, stacked, rolled, two)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "s"), "{devices=[4,1]<=[4]}");
  // A changed dim keeps its split, as XLA's propagation keeps it: evenly (the partitioner
  // reads each tile's window from its neighbours)...
  EXPECT_EQ(S(*m, "cut"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "rows"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "stacked"), "{devices=[4,1]<=[4]}");
  // ...or not (6 and 47 rows over 4 devices, interior padding: the partitioner computes
  // those whole)...
  EXPECT_EQ(S(*m, "uneven"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "spread"), "{devices=[4,1]<=[4]}");
  // ...but not over fewer elements than tiles.
  EXPECT_EQ(S(*m, "two"), "{replicated}");
  // The outputs are the program's interface: an uneven split is whole there (XLA's too).
  EXPECT_EQ(S(*m, "t"),
            "{{devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {replicated}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, "
            "{devices=[4,1]<=[4]}, {replicated}, {devices=[4,1]<=[4]}, {devices=[4,1]<=[4]}, {replicated}}");
  // A roll (slices of 3 and 13 rows concatenated) takes the sliced array's split.
  EXPECT_EQ(S(*m, "rolled"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "p"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "c"), "{devices=[4,1]<=[4]}");
  EXPECT_EQ(S(*m, "ds"), "{devices=[4,1]<=[4]}");
}

TEST(ShardingPropagationTest, ConvolutionBatchAndFeature) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[4,8,8,3] parameter(0), sharding={devices=[4,1,1,1]<=[4]}
  k = f32[3,3,3,16] parameter(1)
  ROOT c = f32[4,8,8,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "c"), "{devices=[4,1,1,1]<=[4]}");
  EXPECT_EQ(S(*m, "k"), "{replicated}");
}

// A grouped convolution's channels split with its input's where the split keeps groups
// whole: 8 depthwise groups over 4 devices do; 2 groups over 4 do not.
TEST(ShardingPropagationTest, GroupedConvolutionSplitsWholeGroups) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[2,8,8,8] parameter(0), sharding={devices=[1,1,1,4]<=[4]}
  k = f32[3,3,1,8] parameter(1)
  c = f32[2,8,8,8] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=8
  k2 = f32[3,3,4,4] parameter(2)
  ROOT c2 = f32[2,8,8,4] convolution(x, k2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "c"), "{devices=[1,1,1,4]<=[4]}");
  EXPECT_EQ(S(*m, "k"), "{devices=[1,1,1,4]<=[4]}");
  EXPECT_EQ(S(*m, "c2"), "{replicated}");
  // The weight gradient (batch groups): its channels split with the input batch's.
  auto g = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[2,8,8,8] parameter(0), sharding={devices=[1,1,1,4]<=[4]}
  dy = f32[2,8,8,8] parameter(1)
  ROOT dw = f32[3,3,1,8] convolution(x, dy), window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf, batch_group_count=8
}
)");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(S(*g, "dw"), "{devices=[1,1,1,4]<=[4]}");
  EXPECT_EQ(S(*g, "dy"), "{devices=[1,1,1,4]<=[4]}");
}

// A custom call's Shardy rule carries its batch split to its results and back to its
// operand; the matrix dims stay whole.
TEST(ShardingPropagationTest, ShardingRuleOfACustomCallCarriesTheBatch) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[8,4,4] parameter(0), sharding={devices=[4,1,1]<=[4]}
  chol = (f32[8,4,4], s32[8]) custom-call(a), custom_call_target="lapack_spotrf_ffi", frontend_attributes={xla.sdy.sharding_rule="#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=4, k=4, l=4, m=4}, custom>"}, backend_config={uplo = 76 : ui8}
  l = f32[8,4,4] get-tuple-element(chol), index=0
  info = s32[8] get-tuple-element(chol), index=1
  b = f32[8,4,4] parameter(1)
  solve = (f32[8,4,4], s32[8]) custom-call(b), custom_call_target="lapack_spotrf_ffi", frontend_attributes={xla.sdy.sharding_rule="#sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i]) {i=8, j=4, k=4, l=4, m=4}, custom>"}, backend_config={uplo = 76 : ui8}
  info2 = s32[8] get-tuple-element(solve), index=1
  c = s32[8] parameter(2)
  picked = s32[8] add(info2, c), sharding={devices=[4]<=[4]}
  ROOT out = (f32[8,4,4], s32[8], s32[8]) tuple(l, info, picked)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "l"), "{devices=[4,1,1]<=[4]}");
  EXPECT_EQ(S(*m, "info"), "{devices=[4]<=[4]}");
  // Backward from a user of the second result to the operand.
  EXPECT_EQ(S(*m, "b"), "{devices=[4,1,1]<=[4]}");
}

// A reverse keeps every dim's split; a dynamic-update-slice keeps its operand's split on
// the dim it updates, and its update is whole along it.
TEST(ShardingPropagationTest, ReverseAndDynamicUpdateSliceKeepTheirSplits) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[1,4]<=[4]}
  r = f32[8,16] reverse(x), dimensions={1}
  u = f32[8,1] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT d = f32[8,16] dynamic-update-slice(r, u, z, i)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "r"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "d"), "{devices=[1,4]<=[4]}");
  EXPECT_EQ(S(*m, "u"), "{replicated}");
}

// The header pins an unsharded parameter to replicated.
TEST(ShardingPropagationTest, HeaderFlagsPinParameters) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4, allow_spmd_sharding_propagation_to_parameters={false,true}
ENTRY e {
  x = f32[16,8] parameter(0)
  y = f32[16,8] parameter(1)
  c = f32[16,8] custom-call(x), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
  ROOT a = f32[16,8] add(c, y)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "x"), "{replicated}");
  EXPECT_EQ(S(*m, "y"), "{devices=[4,1]<=[4]}");
}

// Manual values stay manual through whatever reads them.
TEST(ShardingPropagationTest, ManualSpreads) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[16,8] parameter(0), sharding={devices=[4,1]<=[4]}
  c = f32[16,8] copy(x), sharding={devices=[4,1]<=[4]}
  l = f32[4,8] custom-call(c), custom_call_target="SPMDFullToShardShape", sharding={manual}
  n = f32[4,8] negate(l)
  k = f32[] constant(2)
  kb = f32[4,8] broadcast(k), dimensions={}
  m = f32[4,8] multiply(n, kb)
  c2 = f32[4,8] copy(m), sharding={manual}
  ROOT g = f32[16,8] custom-call(c2), custom_call_target="SPMDShardToFullShape", sharding={devices=[4,1]<=[4]}
}
)",
                     nullptr, /*compare=*/false);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "n"), "{manual}");
  EXPECT_EQ(S(*m, "kb"), "{manual}");
  EXPECT_EQ(S(*m, "m"), "{manual}");
  EXPECT_EQ(S(*m, "k"), "{manual}");
}

TEST(ShardingPropagationTest, SinglePartitionModulesAreLeftAlone) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
)");
  ASSERT_NE(m, nullptr);
  ShardingPropagation pass;
  EXPECT_FALSE(RunPassAndCheck(pass, *m));
  EXPECT_EQ(S(*m, "n"), "<none>");
}

// fsdp_layer's first dot: x splits the batch over 'data' (devices {0,1}|{2,3}), w1 its
// contracting dim over 'data' and its free dim over 'model' ({0,2}|{1,3}). The lhs and
// rhs candidates merge into XLA's [2,2]; the bias add keeps it.
TEST(ShardingPropagationTest, DotMergesLhsAndRhsFreeSplitsOnTwoByTwoMesh) {
  ShardingPropagation pass;
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w1 = f32[16,32] parameter(1), sharding={devices=[2,2]<=[4]}
  d = f32[8,32] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[8,32] negate(d)
}
)",
                     &pass);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "d"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(S(*m, "n"), "{devices=[2,2]<=[4]}");
  bool logged = false;
  for (const std::string& line : pass.log())
    logged |= line.find(
                  "%d: {devices=[2,2]<=[4]} <- forward, merged (dot lhs) from %x (given) + "
                  "(dot rhs) from %w1 (given)") != std::string::npos;
  EXPECT_TRUE(logged);
}

// The same mesh with the axes the other way round in the device order: dim 0 over
// {0,2}|{1,3}, dim 1 over {0,1}|{2,3}. The merged tiling must put device 2 at (0,1),
// which only the transposed iota list does.
TEST(ShardingPropagationTest, ElementwiseMergesPartialSplitsWithTransposedDeviceOrder) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  b = f32[8,16] parameter(1), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}
  ROOT s = f32[8,16] add(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "s"), "{devices=[2,2]<=[2,2]T(1,0)}");
}

// Both operands split over the same devices ({0,1}|{2,3}), one on dim 0 and one on dim
// 1: no tiling puts each device where both say, so nothing merges and operand 0 wins.
TEST(ShardingPropagationTest, SplitsOverTheSameDevicesDoNotMerge) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  a = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  b = f32[8,16] parameter(1), sharding={devices=[1,2,2]<=[4] last_tile_dim_replicate}
  ROOT s = f32[8,16] add(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "s"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
}

// fsdp_layer's bias: its broadcast could split its columns as the bias does or its rows
// as the add it feeds; on a tie the user wins (XLA propagates forward through broadcasts
// last), so the partitioner gathers the small bias rather than reshard the broadcast.
TEST(ShardingPropagationTest, BroadcastTakesItsUsersSplitOnATie) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  b = f32[16] parameter(0), sharding={devices=[2,2]<=[4] last_tile_dim_replicate}
  n = f32[16] negate(b)
  bb = f32[8,16] broadcast(n), dimensions={1}
  y = f32[8,16] parameter(1), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  ROOT s = f32[8,16] add(y, bb)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "s"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "bb"), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "n"), "{devices=[2,2]<=[4] last_tile_dim_replicate}");
}

TEST(ShardingPropagationTest, LogSaysWhy) {
  ShardingPropagation pass;
  auto m = Propagate(R"(
HloModule m, num_partitions=2
ENTRY e {
  x = f32[4] parameter(0), sharding={devices=[2]<=[2]}
  ROOT n = f32[4] negate(x)
}
)",
                     &pass);
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(pass.log().size(), 1u);
  EXPECT_NE(pass.log()[0].find("%n: {devices=[2]<=[2]} <- forward (elementwise) from %x (given)"),
            std::string::npos)
      << pass.log()[0];
}

TEST(ShardingBuildingBlocksTest, DeviceListText) {
  EXPECT_EQ(DeviceListText({0, 1, 2, 3}), "<=[4]");
  EXPECT_EQ(DeviceListText({0, 2, 1, 3}), "<=[2,2]T(1,0)");
  EXPECT_EQ(DeviceListText({0, 4, 1, 5, 2, 6, 3, 7}), "<=[2,4]T(1,0)");
  EXPECT_EQ(DeviceListText({3, 1, 0, 2}), "3,1,0,2");
}

TEST(ShardingBuildingBlocksTest, MapDims) {
  auto s = ParseSharding("{devices=[2,2]<=[4]}");
  ASSERT_TRUE(s.ok());
  auto t = MapShardingDims(*s, {1, 0});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->ToString(), "{devices=[2,2]<=[2,2]T(1,0)}");
  auto dropped = MapShardingDims(*s, {0, -1});
  ASSERT_TRUE(dropped.has_value());
  EXPECT_EQ(dropped->ToString(), "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  auto none = MapShardingDims(*s, {-1});
  ASSERT_TRUE(none.has_value());
  EXPECT_EQ(none->ToString(), "{replicated}");
  auto manual = ParseSharding("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
  ASSERT_TRUE(manual.ok());
  auto kept = MapShardingDims(*manual, {-1, -1, 1});
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(kept->ToString(), "{devices=[1,1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
}

TEST(ShardingBuildingBlocksTest, MergeShardings) {
  auto merge = [](const std::string& a, const std::string& b) -> std::string {
    auto sa = ParseSharding(a);
    auto sb = ParseSharding(b);
    if (!sa.ok() || !sb.ok()) return "<parse error>";
    std::optional<Sharding> m = MergeShardings(*sa, *sb);
    return m ? m->ToString() : "<none>";
  };
  // 2x2 mesh ('data', 'model'), devices in mesh order.
  EXPECT_EQ(merge("{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
                  "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
            "{devices=[2,2]<=[4]}");
  // The same, with dim 0 over 'model' and dim 1 over 'data'.
  EXPECT_EQ(merge("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
                  "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"),
            "{devices=[2,2]<=[2,2]T(1,0)}");
  // A dim both split alike merges with a dim one of them splits.
  EXPECT_EQ(merge("{devices=[2,2]<=[4]}", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"),
            "{devices=[2,2]<=[4]}");
  // 8 devices (2x2x2): two dims over the first two axes; the third stays replicated.
  EXPECT_EQ(merge("{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
                  "{devices=[1,2,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}"),
            "{devices=[2,2,2]<=[8] last_tile_dim_replicate}");
  // Not merged: both split over the same devices; a dim split alike in count but over
  // other devices; more tiles than devices; a manual subgroup; different ranks.
  EXPECT_EQ(merge("{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
                  "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"),
            "<none>");
  EXPECT_EQ(merge("{devices=[2,2]<=[4]}", "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
            "<none>");
  EXPECT_EQ(merge("{devices=[4,1]<=[4]}", "{devices=[1,4]<=[4]}"), "<none>");
  EXPECT_EQ(merge("{devices=[2,1,2]<=[4] last_tile_dims={manual}}",
                  "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"),
            "<none>");
  EXPECT_EQ(merge("{devices=[2,2]<=[4] last_tile_dim_replicate}",
                  "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"),
            "<none>");
  EXPECT_EQ(merge("{replicated}", "{devices=[2,2]<=[4]}"), "<none>");
}

// XLA's `unspecified_dims` (Shardy's `{?}`): a constraint fixes its other dims only.
// `a` keeps dim 0 whole and takes x's split of dim 1; `b` takes x's split whole; `c`,
// without open dims, stays as given.
TEST(ShardingPropagationTest, OpenDimsOfAConstraintTakeTheirNeighboursSplit) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[2,2]<=[4]}
  a = f32[8,16] custom-call(x), custom_call_target="Sharding", sharding={replicated}, backend_config="unspecified_dims=[1]"
  b = f32[8,16] custom-call(x), custom_call_target="Sharding", sharding={replicated}, backend_config="unspecified_dims=[0,1]"
  c = f32[8,16] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  ROOT t = (f32[8,16], f32[8,16], f32[8,16]) tuple(a, b, c)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(S(*m, "a"), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "b"), "{devices=[2,2]<=[4]}");
  EXPECT_EQ(S(*m, "c"), "{replicated}");
}

TEST(ShardingPropagationTest, MalformedUnspecifiedDimsAreAnErrorNamingTheInstruction) {
  for (const char* config : {"unspecified_dims=[2]", "unspecified_dims=[x]", "unspecified=[0]"}) {
    SCOPED_TRACE(config);
    auto m = Parse(std::string(R"(
HloModule m, num_partitions=2
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[2,1]<=[2]}
  ROOT a = f32[8,16] custom-call(x), custom_call_target="Sharding", sharding={replicated}, backend_config=")") +
                   config + "\"\n}\n");
    ASSERT_NE(m, nullptr);
    ShardingPropagation pass;
    PassContext context;
    auto result = pass.Run(*m, context);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(std::string(result.status().message()).find("%a: backend_config"), std::string::npos)
        << result.status().message();
  }
}

// A region manual over 'data' of a 2x2 ('data', 'model') mesh whose boundaries leave dims
// open: w enters split over 'model' as it lies, the dot and what follows keep that split
// inside (manual groups {0,1} and {2,3}), and the result leaves split over both axes.
TEST(ShardingPropagationTest, PartiallyManualRegionKeepsTheFreeAxisSplitAcrossItsBoundaries) {
  auto m = Propagate(R"(
HloModule m, num_partitions=4
ENTRY e {
  x = f32[8,16] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  w = f32[16,8] parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  xs = f32[8,16] custom-call(x), custom_call_target="Sharding", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}, backend_config="unspecified_dims=[1]"
  xl = f32[4,16] custom-call(xs), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}, backend_config="unspecified_dims=[1]"
  ws = f32[16,8] custom-call(w), custom_call_target="Sharding", sharding={replicated}, backend_config="unspecified_dims=[0,1]"
  wl = f32[16,8] custom-call(ws), custom_call_target="SPMDFullToShardShape", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}, backend_config="unspecified_dims=[0,1]"
  d = f32[4,8] dot(xl, wl), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,8] tanh(d)
  ts = f32[4,8] custom-call(t), custom_call_target="Sharding", sharding={devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}, backend_config="unspecified_dims=[0,1]"
  ROOT g = f32[8,8] custom-call(ts), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}, backend_config="unspecified_dims=[1]"
}
)",
                     nullptr, /*compare=*/false);
  ASSERT_NE(m, nullptr);
  const std::string model_in_region = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={manual}}";
  EXPECT_EQ(S(*m, "ws"), "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(S(*m, "wl"), model_in_region);
  EXPECT_EQ(S(*m, "xl"), "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  EXPECT_EQ(S(*m, "d"), model_in_region);
  EXPECT_EQ(S(*m, "t"), model_in_region);
  EXPECT_EQ(S(*m, "ts"), model_in_region);
  EXPECT_EQ(S(*m, "g"), "{devices=[2,2]<=[4]}");
}

TEST(ShardingPropagationTest, RegionBoundaryMapsEachDevicesTile) {
  auto parse = [](const char* text) { return *ParseSharding(text); };
  const Sharding global0 = parse("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  const Sharding local0 = parse("{devices=[1,1,2,4]<=[8] last_tile_dims={manual, replicated}}");
  std::optional<Sharding> in = EnterManualRegion(parse("{devices=[2,4]<=[8]}"), global0, local0, 8);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->ToString(), "{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dims={manual}}");
  std::optional<Sharding> out = LeaveManualRegion(*in, global0, local0, 8);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->ToString(), "{devices=[2,4]<=[8]}");
  // A split that moves the manual axis's part of dim 0 cannot enter; one with other
  // manual groups cannot leave.
  EXPECT_FALSE(EnterManualRegion(parse("{devices=[2,4]<=[4,2]T(1,0)}"), global0, local0, 8).has_value());
  EXPECT_FALSE(LeaveManualRegion(parse("{devices=[1,4,2]<=[8] last_tile_dims={manual}}"), global0, local0, 8)
                   .has_value());
  // What a refinement keeps: closed dims, the open dims' given split as their major part,
  // the manual groups.
  const std::vector<bool> open_1 = {false, true};
  EXPECT_TRUE(RefinesOpenSharding(*in, local0, open_1, 8));
  EXPECT_FALSE(RefinesOpenSharding(parse("{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dims={manual}}"), local0,
                                   open_1, 8));
  EXPECT_FALSE(RefinesOpenSharding(parse("{devices=[1,4,2]<=[8] last_tile_dims={manual}}"), local0, open_1, 8));
  EXPECT_TRUE(RefinesOpenSharding(parse("{devices=[2,4]<=[8]}"), global0, open_1, 8));
  EXPECT_FALSE(RefinesOpenSharding(parse("{devices=[2,4]<=[8]}"), global0, {false, false}, 8));
}

}  // namespace
}  // namespace fusebox::passes
