// Interpreter data-movement ops (broadcast, reshape, bitcast, transpose, slices, pad,
// iota, reverse, gather, scatter, sort, topk, ...) on small modules, against values
// worked out by hand or by an independent index formula in the test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"

namespace fusebox::interpreter {
namespace {

using Ints = std::vector<int64_t>;
using PT = PrimitiveType;

// Parses and runs `text`; a parse or run failure fails the test and returns an empty tuple.
Literal RunHlo(const std::string& text, const std::vector<Literal>& args = {}) {
  auto module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return Literal();
  auto result = Interpreter().Run(**module, args);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? std::move(result).value() : Literal();
}

Ints IntsOf(const Literal& l) {
  Ints out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetInt64(i));
  return out;
}

std::vector<double> DoublesOf(const Literal& l) {
  std::vector<double> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetDouble(i));
  return out;
}

std::vector<uint64_t> BitsOf(const Literal& l) {
  std::vector<uint64_t> out;
  for (int64_t i = 0; i < l.element_count(); ++i) out.push_back(l.GetBits(i));
  return out;
}

// s32 array whose element at linear position i is i.
Literal Counting(Ints dims) {
  Literal l(Shape(PT::kS32, std::move(dims)));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetInt64(i, i);
  return l;
}

const Literal& Element(const Literal& tuple, size_t i) { return tuple.tuple_elements().at(i); }

// ---------------------------------------------------------------------------
// broadcast, reshape, bitcast, copy, transpose

TEST(BroadcastTest, IntoMiddleDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2] constant({5, 9})
  ROOT b = s32[3,2,4] broadcast(a), dimensions={1}
})");
  ASSERT_EQ(r.shape().dimensions(), (Ints{3, 2, 4}));
  Ints expected;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 4; ++k) expected.push_back(j == 0 ? 5 : 9);
    }
  }
  EXPECT_EQ(IntsOf(r), expected);
}

TEST(BroadcastTest, ScalarAndMinorDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  s = f32[] constant(2.5)
  a = f32[3] constant({1, 2, 3})
  bs = f32[2,2] broadcast(s), dimensions={}
  ba = f32[2,3] broadcast(a), dimensions={1}
  ROOT t = (f32[2,2], f32[2,3]) tuple(bs, ba)
})");
  EXPECT_EQ(DoublesOf(Element(r, 0)), (std::vector<double>{2.5, 2.5, 2.5, 2.5}));
  EXPECT_EQ(DoublesOf(Element(r, 1)), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(BroadcastTest, MajorDimensionOfMatrix) {
  // Operand dim 0 -> result dim 0, operand dim 1 -> result dim 2; dim 1 repeats.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[2,2,3] broadcast(a), dimensions={0,2}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
}

TEST(BroadcastTest, RepeatsAlongTheMinorDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[2,3,2] broadcast(a), dimensions={0,1}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}));
}

TEST(ReshapeTest, KeepsRowMajorOrder) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[3,1,2] reshape(a)
})");
  ASSERT_EQ(r.shape().dimensions(), (Ints{3, 1, 2}));
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 4, 5, 6}));
}

TEST(BitcastTest, DefaultLayoutsActAsReshape) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[6] bitcast(a)
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 4, 5, 6}));
}

TEST(BitcastTest, LayoutsReinterpretPhysicalOrder) {
  // Physical bytes of a{1,0}: 1 2 3 4 5 6. Read as [3,2]{0,1} (dim 0 minor):
  // b[0][0]=1 b[1][0]=2 b[2][0]=3 b[0][1]=4 b[1][1]=5 b[2][1]=6.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3]{1,0} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[3,2]{0,1} bitcast(a)
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 4, 2, 5, 3, 6}));
}

TEST(BitcastTest, OperandLayoutTransposesBeforeReshape) {
  // a{0,1} is stored column-major: 1 4 2 5 3 6; as s32[6] that is the row-major result.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  ROOT b = s32[6]{0} bitcast(a)
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 4, 2, 5, 3, 6}));
}

TEST(CopyTest, CopiesValues) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,2]{1,0} constant({{1, 2}, {3, 4}})
  ROOT c = s32[2,2]{0,1} copy(a)
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 4}));  // layouts do not change logical values
}

TEST(TransposeTest, ThreeDimensional) {
  // result dim i = operand dim perm[i]: out[a][b][c] = in[b][c][a], in[i][j][k] = 12i+4j+k.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3,4] parameter(0)
  ROOT t = s32[4,2,3] transpose(a), dimensions={2,0,1}
})",
                     {Counting({2, 3, 4})});
  ASSERT_EQ(r.shape().dimensions(), (Ints{4, 2, 3}));
  Ints expected;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 3; ++c) expected.push_back(12 * b + 4 * c + a);
    }
  }
  EXPECT_EQ(IntsOf(r), expected);
}

TEST(TransposeTest, LargeMatricesUseEveryPath) {
  // Big enough for the tiled path (ragged tiles: 70 and 45 are not multiples of 32).
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[45,70] parameter(0)
  b = s32[6,20,35] parameter(1)
  ta = s32[70,45] transpose(a), dimensions={1,0}
  tb = s32[35,20,6] transpose(b), dimensions={2,1,0}
  tc = s32[20,6,35] transpose(b), dimensions={1,0,2}
  ROOT t = (s32[70,45], s32[35,20,6], s32[20,6,35]) tuple(ta, tb, tc)
})",
                     {Counting({45, 70}), Counting({6, 20, 35})});
  Ints ea, eb, ec;
  for (int i = 0; i < 70; ++i) {
    for (int j = 0; j < 45; ++j) ea.push_back(j * 70 + i);
  }
  for (int i = 0; i < 35; ++i) {
    for (int j = 0; j < 20; ++j) {
      for (int k = 0; k < 6; ++k) eb.push_back(k * 700 + j * 35 + i);
    }
  }
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 6; ++j) {
      for (int k = 0; k < 35; ++k) ec.push_back(j * 700 + i * 35 + k);
    }
  }
  EXPECT_EQ(IntsOf(Element(r, 0)), ea);
  EXPECT_EQ(IntsOf(Element(r, 1)), eb);
  EXPECT_EQ(IntsOf(Element(r, 2)), ec);
}

TEST(TransposeTest, OneAndSixteenByteElements) {
  Literal bytes(Shape(PT::kU8, {9, 10}));
  Literal wide(Shape(PT::kC128, {8, 9}));
  for (int64_t i = 0; i < 90; ++i) bytes.SetInt64(i, i);
  for (int64_t i = 0; i < 72; ++i) wide.SetComplex(i, {static_cast<double>(i), -0.5 * i});
  Literal r = RunHlo(R"(
ENTRY e {
  a = u8[9,10] parameter(0)
  b = c128[8,9] parameter(1)
  ta = u8[10,9] transpose(a), dimensions={1,0}
  tb = c128[9,8] transpose(b), dimensions={1,0}
  ROOT t = (u8[10,9], c128[9,8]) tuple(ta, tb)
})",
                     {bytes, wide});
  Ints ea;
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 9; ++j) ea.push_back(j * 10 + i);
  }
  EXPECT_EQ(IntsOf(Element(r, 0)), ea);
  const Literal& tb = Element(r, 1);
  for (int i = 0; i < 9; ++i) {
    for (int j = 0; j < 8; ++j) {
      const double v = j * 9 + i;
      EXPECT_EQ(tb.GetComplex(i * 8 + j), std::complex<double>(v, -0.5 * v)) << i << "," << j;
    }
  }
}

// ---------------------------------------------------------------------------
// slice, dynamic-slice, dynamic-update-slice, concatenate, pad, iota, reverse

TEST(SliceTest, StridedAndMinorDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[10] parameter(0)
  m = s32[3,5] parameter(1)
  s1 = s32[3] slice(a), slice={[1:8:3]}
  s2 = s32[2,3] slice(m), slice={[1:3], [2:5]}
  s3 = s32[2,2] slice(m), slice={[0:3:2], [0:5:4]}
  ROOT t = (s32[3], s32[2,3], s32[2,2]) tuple(s1, s2, s3)
})",
                     {Counting({10}), Counting({3, 5})});
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{1, 4, 7}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{7, 8, 9, 12, 13, 14}));
  EXPECT_EQ(IntsOf(Element(r, 2)), (Ints{0, 4, 10, 14}));
}

TEST(DynamicSliceTest, StartIsClampedIntoRange) {
  // Start 5 on a dim of 4 with size 2 clamps to 2; -3 clamps to 0.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[4] constant({10, 11, 12, 13})
  five = s32[] constant(5)
  minus = s64[] constant(-3)
  hi = s32[2] dynamic-slice(a, five), dynamic_slice_sizes={2}
  lo = s32[2] dynamic-slice(a, minus), dynamic_slice_sizes={2}
  ROOT t = (s32[2], s32[2]) tuple(hi, lo)
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{12, 13}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{10, 11}));
}

TEST(DynamicSliceTest, TwoDimensionalWithUnsignedIndex) {
  Literal r = RunHlo(R"(
ENTRY e {
  m = s32[3,4] parameter(0)
  i = u8[] constant(1)
  j = u32[] constant(4000000000)
  ROOT ds = s32[2,2] dynamic-slice(m, i, j), dynamic_slice_sizes={2,2}
})",
                     {Counting({3, 4})});
  // Rows 1..2, columns clamped to 2..3.
  EXPECT_EQ(IntsOf(r), (Ints{6, 7, 10, 11}));
}

TEST(DynamicUpdateSliceTest, StartIsClampedIntoRange) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[5] constant({0, 0, 0, 0, 0})
  u = s32[2] constant({7, 8})
  four = s32[] constant(4)
  ROOT d = s32[5] dynamic-update-slice(a, u, four)
})");
  EXPECT_EQ(IntsOf(r), (Ints{0, 0, 0, 7, 8}));
}

TEST(DynamicUpdateSliceTest, TwoDimensional) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[3,3] constant({{0, 0, 0}, {0, 0, 0}, {0, 0, 0}})
  u = s32[2,1] constant({{1}, {2}})
  i = s32[] constant(-1)
  j = s32[] constant(2)
  ROOT d = s32[3,3] dynamic-update-slice(a, u, i, j)
})");
  EXPECT_EQ(IntsOf(r), (Ints{0, 0, 1, 0, 0, 2, 0, 0, 0}));
}

TEST(ConcatenateTest, ThreeOperandsAlongMinorDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,1] constant({{1}, {2}})
  b = s32[2,2] constant({{3, 4}, {5, 6}})
  c = s32[2,3] constant({{7, 8, 9}, {10, 11, 12}})
  ROOT k = s32[2,6] concatenate(a, b, c), dimensions={1}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 3, 4, 7, 8, 9, 2, 5, 6, 10, 11, 12}));
}

TEST(ConcatenateTest, AlongMajorDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[1,2] constant({{1, 2}})
  b = s32[2,2] constant({{3, 4}, {5, 6}})
  c = s32[0,2] constant({})
  ROOT k = s32[3,2] concatenate(a, c, b), dimensions={0}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 4, 5, 6}));
}

TEST(PadTest, NegativeLowAndInteriorPadding) {
  // Interior 1: 1 0 2 0 3; low -1 drops the 1; high 2 appends two zeros.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  z = s32[] constant(0)
  ROOT p = s32[6] pad(a, z), padding=-1_2_1
})");
  EXPECT_EQ(IntsOf(r), (Ints{0, 2, 0, 3, 0, 0}));
}

TEST(PadTest, TwoDimensionalWithCroppingHigh) {
  // dim 0: one row of padding before; dim 1: interior 1, then high -2 crops the last
  // element and one padding slot: {a, p, b, p, c} -> {a, p, b}.
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  z = s32[] constant(-1)
  ROOT p = s32[3,3] pad(a, z), padding=1_0x0_-2_1
})");
  EXPECT_EQ(IntsOf(r), (Ints{-1, -1, -1, 1, -1, 2, 4, -1, 5}));
}

TEST(PadTest, CroppingEverythingLeavesPadding) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2] constant({1, 2})
  z = s32[] constant(9)
  ROOT p = s32[3] pad(a, z), padding=-4_5
})");
  EXPECT_EQ(IntsOf(r), (Ints{9, 9, 9}));
}

TEST(IotaTest, FloatAndIntegerAlongDimension) {
  Literal r = RunHlo(R"(
ENTRY e {
  f = f32[2,3] iota(), iota_dimension=1
  s = s32[3,2] iota(), iota_dimension=1
  s0 = s32[3,2] iota(), iota_dimension=0
  c = c64[3] iota(), iota_dimension=0
  ROOT t = (f32[2,3], s32[3,2], s32[3,2], c64[3]) tuple(f, s, s0, c)
})");
  EXPECT_EQ(DoublesOf(Element(r, 0)), (std::vector<double>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(IntsOf(Element(r, 2)), (Ints{0, 0, 1, 1, 2, 2}));
  const Literal& c = Element(r, 3);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(c.GetComplex(i), std::complex<double>(static_cast<double>(i), 0.0));
  }
}

TEST(IotaTest, Bf16RoundsLargeIndices) {
  // bf16 has 8 significant bits: 257 rounds to 256 (ties to even), 259 to 260.
  Literal r = RunHlo(R"(
ENTRY e {
  ROOT i = bf16[260] iota(), iota_dimension=0
})");
  EXPECT_EQ(r.GetDouble(255), 255);
  EXPECT_EQ(r.GetDouble(257), 256);
  EXPECT_EQ(r.GetDouble(259), 260);
}

TEST(ReverseTest, TwoDimensions) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})
  b = s32[2,2,2] parameter(0)
  r1 = s32[2,3] reverse(a), dimensions={0,1}
  r2 = s32[2,2,2] reverse(b), dimensions={0,2}
  ROOT t = (s32[2,3], s32[2,2,2]) tuple(r1, r2)
})",
                     {Counting({2, 2, 2})});
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{6, 5, 4, 3, 2, 1}));
  // out[i][j][k] = in[1-i][j][1-k], in = 4i+2j+k.
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{5, 4, 7, 6, 1, 0, 3, 2}));
}

// ---------------------------------------------------------------------------
// gather

TEST(GatherTest, RowsWithImplicitIndexVectorDim) {
  // index_vector_dim == rank of the indices: each index is a 1-vector.
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  idx = s32[2] constant({0, 2})
  ROOT g = s32[2,3] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 3, 7, 8, 9}));
}

TEST(GatherTest, ColumnsWithOffsetDimFirst) {
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  idx = s32[2] constant({0, 2})
  ROOT g = s32[3,2] gather(op, idx), offset_dims={0}, collapsed_slice_dims={1},
      start_index_map={1}, index_vector_dim=1, slice_sizes={3,1}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 3, 4, 6, 7, 9}));
}

TEST(GatherTest, StartIndicesAreClamped) {
  // Windows of 2 rows: start 2 clamps to 1, start -5 clamps to 0.
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  idx = s32[2,1] constant({{2}, {-5}})
  ROOT g = s32[2,2,2] gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={},
      start_index_map={0}, index_vector_dim=1, slice_sizes={2,2}
})");
  EXPECT_EQ(IntsOf(r), (Ints{3, 4, 5, 6, 1, 2, 3, 4}));
}

TEST(GatherTest, PointGatherWithIndexVectorDimFirst) {
  // index_vector_dim=0: the index vectors are the columns (0,1) and (1,2).
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  idx = s32[2,2] constant({{0, 1}, {1, 2}})
  ROOT g = s32[2] gather(op, idx), offset_dims={}, collapsed_slice_dims={0,1},
      start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}
})");
  EXPECT_EQ(IntsOf(r), (Ints{2, 6}));
}

TEST(GatherTest, StartIndexMapPermutesComponents) {
  // Index vector (a, b) addresses op[b][a].
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,3] constant({{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
  idx = s32[2,2] constant({{0, 1}, {2, 0}})
  ROOT g = s32[2] gather(op, idx), offset_dims={}, collapsed_slice_dims={0,1},
      start_index_map={1,0}, index_vector_dim=1, slice_sizes={1,1}
})");
  EXPECT_EQ(IntsOf(r), (Ints{4, 3}));
}

TEST(GatherTest, BatchedDynamicSliceWithBatchingDims) {
  // Row b of the operand is sliced at column idx[b] (clamped): a batched dynamic-slice.
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[2,4] constant({{0, 1, 2, 3}, {10, 11, 12, 13}})
  idx = s32[2,1] constant({{1}, {3}})
  ROOT g = s32[2,2] gather(op, idx), offset_dims={1}, collapsed_slice_dims={},
      start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0},
      index_vector_dim=1, slice_sizes={1,2}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 2, 12, 13}));
}

TEST(GatherTest, BatchingDimAfterIndexDims) {
  // Indices [2 (positions), 3 (batch)]; operand [3 (batch), 4]; the result's batch dims are
  // the index dims in order: out[p][b] = op[b][idx[p][b]].
  Literal r = RunHlo(R"(
ENTRY e {
  op = s32[3,4] parameter(0)
  idx = s32[2,3] constant({{0, 1, 2}, {3, 3, 0}})
  ROOT g = s32[2,3] gather(op, idx), offset_dims={}, collapsed_slice_dims={1},
      start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={1},
      index_vector_dim=2, slice_sizes={1,1}
})",
                     {Counting({3, 4})});
  EXPECT_EQ(IntsOf(r), (Ints{0, 5, 10, 3, 7, 8}));
}

// ---------------------------------------------------------------------------
// scatter

constexpr const char* kAddF32 = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
)";

TEST(ScatterTest, AddAccumulatesDuplicateIndices) {
  Literal r = RunHlo(std::string(kAddF32) + R"(
ENTRY e {
  op = f32[4] constant({1, 1, 1, 1})
  idx = s32[3,1] constant({{1}, {1}, {3}})
  upd = f32[3] constant({10, 20, 5})
  ROOT s = f32[4] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  EXPECT_EQ(DoublesOf(r), (std::vector<double>{1, 31, 1, 6}));
}

TEST(ScatterTest, OutOfBoundsWindowsAreSkippedNotClamped) {
  // Windows of 2 at 1 (fits), 4 (would end past 5) and -1: only the first is applied.
  Literal r = RunHlo(R"(
overwrite {
  x = s32[] parameter(0)
  ROOT y = s32[] parameter(1)
}
ENTRY e {
  op = s32[5] constant({0, 0, 0, 0, 0})
  idx = s32[3,1] constant({{1}, {4}, {-1}})
  upd = s32[3,2] constant({{1, 2}, {3, 4}, {5, 6}})
  ROOT s = s32[5] scatter(op, idx, upd), update_window_dims={1}, inserted_window_dims={},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})");
  EXPECT_EQ(IntsOf(r), (Ints{0, 1, 2, 0, 0}));
}

TEST(ScatterTest, RowWindowsWithImplicitIndexVectorDim) {
  Literal r = RunHlo(R"(
overwrite {
  x = s32[] parameter(0)
  ROOT y = s32[] parameter(1)
}
ENTRY e {
  op = s32[3,2] constant({{0, 0}, {0, 0}, {0, 0}})
  idx = s32[2] constant({2, 0})
  upd = s32[2,2] constant({{1, 2}, {3, 4}})
  ROOT s = s32[3,2] scatter(op, idx, upd), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=overwrite
})");
  EXPECT_EQ(IntsOf(r), (Ints{3, 4, 0, 0, 1, 2}));
}

TEST(ScatterTest, BatchingDims) {
  // Update b goes to op[b][idx[b]].
  Literal r = RunHlo(R"(
max {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT m = s32[] maximum(x, y)
}
ENTRY e {
  op = s32[2,3] constant({{1, 1, 1}, {1, 1, 1}})
  idx = s32[2,1] constant({{2}, {0}})
  upd = s32[2] constant({5, -7})
  ROOT s = s32[2,3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={1},
      scatter_dims_to_operand_dims={1}, input_batching_dims={0},
      scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=max
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 1, 5, 1, 1, 1}));
}

TEST(ScatterTest, VariadicWithCalledCombiner) {
  // The combiner keeps operand 0's value and takes operand 1's update: not a pattern the
  // interpreter applies directly, so the computation is called for each element.
  Literal r = RunHlo(R"(
keep_then_take {
  a0 = s32[] parameter(0)
  a1 = f32[] parameter(1)
  u0 = s32[] parameter(2)
  u1 = f32[] parameter(3)
  ROOT t = (s32[], f32[]) tuple(a0, u1)
}
ENTRY e {
  op0 = s32[3] constant({1, 2, 3})
  op1 = f32[3] constant({0.5, 1.5, 2.5})
  idx = s32[2] constant({2, 0})
  u0 = s32[2] constant({7, 8})
  u1 = f32[2] constant({-1, -2})
  ROOT s = (s32[3], f32[3]) scatter(op0, op1, idx, u0, u1), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=keep_then_take
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{1, 2, 3}));
  EXPECT_EQ(DoublesOf(Element(r, 1)), (std::vector<double>{-2, 1.5, -1}));
}

TEST(ScatterTest, VariadicOverwrite) {
  Literal r = RunHlo(R"(
take {
  a0 = s32[] parameter(0)
  a1 = pred[] parameter(1)
  u0 = s32[] parameter(2)
  u1 = pred[] parameter(3)
  ROOT t = (s32[], pred[]) tuple(u0, u1)
}
ENTRY e {
  op0 = s32[3] constant({1, 2, 3})
  op1 = pred[3] constant({false, false, false})
  idx = s32[1] constant({1})
  u0 = s32[1] constant({9})
  u1 = pred[1] constant({true})
  ROOT s = (s32[3], pred[3]) scatter(op0, op1, idx, u0, u1), update_window_dims={},
      inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1,
      to_apply=take
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{1, 9, 3}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{0, 1, 0}));
}

TEST(ScatterTest, NarrowTypesCombineWithTheirOwnArithmetic) {
  // s4 add wraps (7 + 1 = -8); bf16 add rounds (256 + 1 = 257 -> 256); bf16 max keeps NaN.
  Literal r = RunHlo(R"(
add4 {
  x = s4[] parameter(0)
  y = s4[] parameter(1)
  ROOT s = s4[] add(x, y)
}
addb {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(y, x)
}
maxb {
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] maximum(x, y)
}
ENTRY e {
  a = s4[2] constant({7, -3})
  b = bf16[2] constant({256, 1})
  idx = s32[2] constant({0, 1})
  ua = s4[2] constant({1, 2})
  ub = bf16[2] constant({1, 2})
  un = bf16[2] constant({nan, 0.5})
  sa = s4[2] scatter(a, idx, ua), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add4
  sb = bf16[2] scatter(b, idx, ub), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=addb
  sm = bf16[2] scatter(b, idx, un), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=maxb
  ROOT t = (s4[2], bf16[2], bf16[2]) tuple(sa, sb, sm)
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{-8, -1}));
  EXPECT_EQ(DoublesOf(Element(r, 1)), (std::vector<double>{256, 3}));
  EXPECT_TRUE(std::isnan(Element(r, 2).GetDouble(0)));
  EXPECT_EQ(Element(r, 2).GetDouble(1), 1);
}

TEST(ScatterTest, CompoundCombinerIsCalled) {
  // x + 2y needs the elementwise ops: the combiner is evaluated per element.
  Literal r = RunHlo(R"(
comb {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  y2 = s32[] add(y, y)
  ROOT s = s32[] add(x, y2)
}
ENTRY e {
  op = s32[3] constant({1, 1, 1})
  idx = s32[3] constant({0, 0, 2})
  upd = s32[3] constant({1, 2, 3})
  ROOT s = s32[3] scatter(op, idx, upd), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=comb
})");
  EXPECT_EQ(IntsOf(r), (Ints{7, 1, 7}));
}

// ---------------------------------------------------------------------------
// sort, topk

TEST(SortTest, StableMultiOperandKeepsTieOrder) {
  Literal r = RunHlo(R"(
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = s32[6] constant({3, 1, 2, 1, 3, 1})
  v = s32[6] constant({0, 1, 2, 3, 4, 5})
  ROOT s = (s32[6], s32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=lt
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{1, 3, 5, 2, 0, 4}));
}

TEST(SortTest, DescendingTotalOrderWithNaN) {
  // Total order descending: +NaN > 3 > 1 > +0 > -0 > -inf > -NaN.
  Literal r = RunHlo(R"(
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT g = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  k = f32[7] constant({1, nan, -inf, 0, -nan, -0, 3})
  ROOT s = f32[7] sort(k), dimensions={0}, to_apply=gt
})");
  const std::vector<uint64_t> bits = BitsOf(r);
  ASSERT_EQ(bits.size(), 7u);
  EXPECT_TRUE(std::isnan(r.GetDouble(0)));
  EXPECT_EQ(bits[0] >> 31, 0u);  // +NaN first
  EXPECT_EQ(r.GetDouble(1), 3);
  EXPECT_EQ(r.GetDouble(2), 1);
  EXPECT_EQ(bits[3], 0x00000000u);  // +0
  EXPECT_EQ(bits[4], 0x80000000u);  // -0
  EXPECT_EQ(r.GetDouble(5), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(r.GetDouble(6)));
  EXPECT_EQ(bits[6] >> 31, 1u);  // -NaN last
}

TEST(SortTest, AlongMajorDimensionWithSwappedOperands) {
  // compare(b, a) LT sorts descending.
  Literal r = RunHlo(R"(
desc {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT l = pred[] compare(b, a), direction=LT
}
ENTRY e {
  k = s32[3,2] constant({{1, 6}, {3, 4}, {2, 5}})
  ROOT s = s32[3,2] sort(k), dimensions={0}, to_apply=desc
})");
  EXPECT_EQ(IntsOf(r), (Ints{3, 6, 2, 5, 1, 4}));
}

TEST(SortTest, TwoKeyComparatorIsCalled) {
  // Lexicographic on (key0 ascending, key1 descending); needs the elementwise ops.
  Literal r = RunHlo(R"(
lex {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  lt0 = pred[] compare(a0, b0), direction=LT
  eq0 = pred[] compare(a0, b0), direction=EQ
  gt1 = pred[] compare(a1, b1), direction=GT
  tie = pred[] and(eq0, gt1)
  ROOT o = pred[] or(lt0, tie)
}
ENTRY e {
  k0 = s32[5] constant({2, 1, 2, 1, 0})
  k1 = f32[5] constant({0.5, 1, 1.5, 2, 3})
  ROOT s = (s32[5], f32[5]) sort(k0, k1), dimensions={0}, to_apply=lex
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{0, 1, 1, 2, 2}));
  EXPECT_EQ(DoublesOf(Element(r, 1)), (std::vector<double>{3, 2, 1, 1.5, 0.5}));
}

// jax's sort comparator: both keys canonicalized (every NaN one +NaN, -0 as +0), then a
// total-order compare. The interpreter orders such rows by mapped keys instead of calling
// the comparator (ops_sort.cc); it must give exactly the permutation the computation gives,
// which the same comparator behind an `and` with true (no fast path) computes.
std::string JaxSortModule(const std::string& type, const std::string& direction, bool swapped,
                          bool plain_root) {
  const std::string lhs = swapped ? "cb" : "ca";
  const std::string rhs = swapped ? "ca" : "cb";
  std::string root =
      "compare(" + lhs + ", " + rhs + "), direction=" + direction + ", type=TOTALORDER";
  std::string cmp = plain_root ? "  ROOT c = pred[] " + root + "\n"
                               : "  c = pred[] " + root +
                                     "\n  t = pred[] constant(true)\n  ROOT r = pred[] and(c, t)\n";
  const std::string T = type + "[]";
  return "cmp {\n  a = " + T + " parameter(0)\n  b = " + T +
         " parameter(1)\n  ia = s32[] parameter(2)\n  ib = s32[] parameter(3)\n"
         "  nan = " +
         T + " constant(nan)\n  zero = " + T +
         " constant(0)\n"
         "  na = pred[] compare(a, a), direction=NE\n  ea = pred[] compare(a, zero), direction=EQ\n"
         "  za = " +
         T + " select(ea, zero, a)\n  ca = " + T +
         " select(na, nan, za)\n"
         "  nb = pred[] compare(b, b), direction=NE\n  eb = pred[] compare(b, zero), direction=EQ\n"
         "  zb = " +
         T + " select(eb, zero, b)\n  cb = " + T + " select(nb, nan, zb)\n" + cmp +
         "}\nENTRY e {\n  k = " + type +
         "[2,12] parameter(0)\n"
         "  i = s32[2,12] iota(), iota_dimension=1\n"
         "  ROOT s = (" +
         type + "[2,12], s32[2,12]) sort(k, i), dimensions={1}, to_apply=cmp\n}\n";
}

TEST(SortTest, JaxCanonicalizingComparatorMatchesCallingIt) {
  for (const std::string type : {"f32", "bf16"}) {
    const PT pt = type == "f32" ? PT::kF32 : PT::kBF16;
    const int width = type == "f32" ? 32 : 16;
    // Row 0: NaNs of both signs and payloads, both zeros, infinities; row 1: ties.
    const uint64_t qnan = type == "f32" ? 0x7FC00000u : 0x7FC0u;
    const uint64_t neg = uint64_t{1} << (width - 1);
    const uint64_t other_nan = type == "f32" ? 0x7FC00123u : 0x7FC3u;
    auto bits = [&](double v) { return DoubleToFloatBits(pt, v); };
    Literal keys(Shape(pt, {2, 12}));
    const std::vector<uint64_t> row0 = {bits(1),         qnan,    neg,       qnan | neg, bits(0),
                                        bits(-INFINITY), bits(2), other_nan, neg,        bits(3),
                                        bits(INFINITY),  bits(-1)};
    const std::vector<uint64_t> row1 = {bits(2), neg,     bits(2),  bits(0), bits(-2), neg,
                                        bits(0), bits(2), bits(-2), neg,     bits(0),  bits(2)};
    for (int j = 0; j < 12; ++j) {
      keys.SetBits(j, row0[j]);
      keys.SetBits(12 + j, row1[j]);
    }
    for (const std::string direction : {"LT", "GT"}) {
      for (bool swapped : {false, true}) {
        SCOPED_TRACE(type + " " + direction + (swapped ? " swapped" : ""));
        std::vector<Literal> args;
        args.push_back(keys);
        Literal fast = RunHlo(JaxSortModule(type, direction, swapped, true), args);
        Literal called = RunHlo(JaxSortModule(type, direction, swapped, false), args);
        ASSERT_TRUE(fast.shape().IsTuple() && called.shape().IsTuple());
        EXPECT_EQ(IntsOf(Element(fast, 1)), IntsOf(Element(called, 1)));
        EXPECT_EQ(BitsOf(Element(fast, 0)), BitsOf(Element(called, 0)));
      }
    }
    // Ascending, unswapped: -inf, -1, then the three zeros in their order (equal keys),
    // ..., and the three NaNs last in their order.
    std::vector<Literal> args;
    args.push_back(keys);
    Literal fast = RunHlo(JaxSortModule(type, "LT", false, true), args);
    const Ints order = IntsOf(Element(fast, 1));
    EXPECT_EQ(Ints(order.begin(), order.begin() + 12),
              (Ints{5, 11, 2, 4, 8, 0, 6, 9, 10, 1, 3, 7}));
  }
}

TEST(TopKTest, LargestWithTiesAndNaN) {
  Literal r = RunHlo(R"(
ENTRY e {
  x = f32[2,5] constant({{1, 5, 3, 5, 2}, {-1, nan, 0, 7, 7}})
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
})");
  const Literal& values = Element(r, 0);
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{1, 3, 2, 1, 3, 4}));
  EXPECT_EQ(values.GetDouble(0), 5);
  EXPECT_EQ(values.GetDouble(1), 5);
  EXPECT_EQ(values.GetDouble(2), 3);
  EXPECT_TRUE(std::isnan(values.GetDouble(3)));
  EXPECT_EQ(values.GetDouble(4), 7);
  EXPECT_EQ(values.GetDouble(5), 7);
}

TEST(TopKTest, Smallest) {
  Literal r = RunHlo(R"(
ENTRY e {
  x = s32[6] constant({4, -2, 9, -2, 0, 8})
  ROOT t = (s32[2], s32[2]) topk(x), k=2, largest=false
})");
  EXPECT_EQ(IntsOf(Element(r, 0)), (Ints{-2, -2}));
  EXPECT_EQ(IntsOf(Element(r, 1)), (Ints{1, 3}));
}

// ---------------------------------------------------------------------------
// dynamic dimensions

TEST(DimensionSizeTest, GetAndSet) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = f32[3,7] parameter(0)
  g = s32[] get-dimension-size(a), dimensions={1}
  n = s32[] constant(2)
  s = f32[<=3,7] set-dimension-size(a, n), dimensions={0}
  ROOT t = (s32[], f32[<=3,7]) tuple(g, s)
})",
                     {Literal(Shape(PT::kF32, {3, 7}))});
  EXPECT_EQ(Element(r, 0).GetInt64(0), 7);
  EXPECT_EQ(Element(r, 1).element_count(), 21);  // dynamic sizes are not modelled
}

// ---------------------------------------------------------------------------
// element types move bit-exactly

TEST(ElementTypeTest, Bf16ConcatenateAndSliceKeepBits) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = bf16[2] constant({0.1, -3})
  b = bf16[1] constant({inf})
  c = bf16[3] concatenate(a, b), dimensions={0}
  ROOT s = bf16[2] slice(c), slice={[1:3]}
})");
  EXPECT_EQ(BitsOf(r), (std::vector<uint64_t>{0xC040, 0x7F80}));
}

TEST(ElementTypeTest, S4ReverseAndPad) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = s4[4] constant({-8, -1, 0, 7})
  z = s4[] constant(5)
  r = s4[4] reverse(a), dimensions={0}
  ROOT p = s4[6] pad(r, z), padding=1_1
})");
  EXPECT_EQ(IntsOf(r), (Ints{5, 7, 0, -1, -8, 5}));
}

TEST(ElementTypeTest, PredTransposeAndBroadcast) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = pred[2,3] constant({{1, 0, 0}, {0, 1, 1}})
  t = pred[3,2] transpose(a), dimensions={1,0}
  ROOT b = pred[2,3,2] broadcast(t), dimensions={1,2}
})");
  EXPECT_EQ(IntsOf(r), (Ints{1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1}));
}

TEST(ElementTypeTest, C64TransposeAndGather) {
  Literal r = RunHlo(R"(
ENTRY e {
  a = c64[2,2] constant({{(1, 2), (3, 4)}, {(5, 6), (7, 8)}})
  t = c64[2,2] transpose(a), dimensions={1,0}
  idx = s32[1] constant({1})
  ROOT g = c64[1,2] gather(t, idx), offset_dims={1}, collapsed_slice_dims={0},
      start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}
})");
  ASSERT_EQ(r.element_count(), 2);
  EXPECT_EQ(r.GetComplex(0), std::complex<double>(3, 4));
  EXPECT_EQ(r.GetComplex(1), std::complex<double>(7, 8));
}

TEST(ElementTypeTest, NaNPayloadSurvivesMoves) {
  Literal a(Shape(PT::kF32, {2, 2}));
  const uint64_t payload = 0x7FC01234;
  a.SetBits(0, payload);
  a.SetBits(3, 0xFF800001);  // a signalling NaN
  Literal r = RunHlo(R"(
ENTRY e {
  a = f32[2,2] parameter(0)
  t = f32[2,2] transpose(a), dimensions={1,0}
  ROOT r = f32[2,2] reverse(t), dimensions={0}
})",
                     {a});
  EXPECT_EQ(BitsOf(r), (std::vector<uint64_t>{0, 0xFF800001, payload, 0}));
}

// ---------------------------------------------------------------------------
// errors

TEST(ErrorTest, MalformedShapesAreErrorsNotCrashes) {
  auto module = ParseModule(R"(
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  ROOT s = s32[4] slice(a), slice={[0:4]}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto r = Interpreter().Run(**module, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("slice"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace fusebox::interpreter
