// The CPU backend end to end: modules compiled fused and unfused, run by the CPU
// executable, compared with the reference interpreter on random inputs.
#include "compiler/runtime/cpu_executable.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "compiler/passes/kernel_count.h"
#include "compiler/support/large_buffer.h"
#include "tests/compiler/row_kernel_modules.h"
#include "tests/compiler/runtime/cpu_test_util.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_util::CompileCpu;
using testing_util::CompileRunAndCompare;
using testing_util::ExpectCpuMatchesInterpreter;
using testing_util::LayerNormEntry;
using testing_util::ParseOrFail;
using testing_util::RowKernelModule;
using testing_util::SoftmaxEntry;

constexpr char kAddF32[] = "add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }\n";
constexpr char kMaxF32[] = "max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] maximum(a, b) }\n";

std::string WithReducers(const std::string& body) { return "HloModule m\n" + std::string(kAddF32) + kMaxF32 + body; }

TEST(CpuExecutableTest, ElementwiseChain) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[33,65] parameter(0)
  y = f32[33,65] parameter(1)
  m = f32[33,65] multiply(x, y)
  a = f32[33,65] add(m, x)
  t = f32[33,65] tanh(a)
  ex = f32[33,65] exponential(y)
  ROOT d = f32[33,65] divide(t, ex)
})"));
}

// Runs that allocate their temporaries and output per call (bench/compare_xla's fair
// mode) give what runs reusing them give, run after run, with a while loop whose body's
// buffers come and go too, in ordinary memory and with huge pages.
TEST(CpuExecutableTest, FreshBuffersPerRunGiveTheSameResults) {
  auto module = ParseOrFail(WithReducers(R"(
body {
  s = (s32[], f32[300,300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[300,300] get-tuple-element(s), index=1
  one = s32[] constant(1)
  n = s32[] add(i, one)
  t = f32[300,300] tanh(x)
  y = f32[300,300] add(t, x)
  ROOT r = (s32[], f32[300,300]) tuple(n, y)
}
cond {
  s = (s32[], f32[300,300]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT c = pred[] compare(i, three), direction=LT
}
ENTRY e {
  x = f32[300,300] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[300,300]) tuple(zero, x)
  w = (s32[], f32[300,300]) while(init), condition=cond, body=body
  y = f32[300,300] get-tuple-element(w), index=1
  c = f32[] constant(0)
  ROOT r = f32[300] reduce(y, c), dimensions={1}, to_apply=add
})"));
  ASSERT_TRUE(module);
  Literal x(Shape(PrimitiveType::kF32, {300, 300}));
  for (int64_t i = 0; i < x.element_count(); ++i) x.SetDouble(i, static_cast<double>(i % 17) / 17.0 - 0.5);
  auto exe = CompileCpu(*module, /*fused=*/true);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto reused = (*exe)->Run({x});
  ASSERT_TRUE(reused.ok()) << reused.status().message();
  for (bool huge_pages : {false, true}) {
    SetLargeBufferHugePages(huge_pages);
    runtime::CpuRunOptions fresh;
    fresh.fresh_buffers = true;
    for (int run = 0; run < 3; ++run) {
      auto r = (*exe)->Run({x}, fresh);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_TRUE(*r == *reused) << "run " << run << (huge_pages ? " with" : " without") << " huge pages";
    }
    // And reuse again after fresh runs released the buffers.
    auto again = (*exe)->Run({x});
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(*again == *reused);
  }
  EXPECT_TRUE(LargeBufferHugePages());
}

TEST(CpuExecutableTest, ReduceSumSeedAtSmallSize) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[64,128] parameter(0)
  y = f32[64,128] parameter(1)
  z = f32[64,128] parameter(2)
  yz = f32[64,128] multiply(y, z)
  s = f32[64,128] add(x, yz)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(s, c), dimensions={0,1}, to_apply=add
})"));
}

// A full reduction with a big operand is split: per-row partials in parallel, then the
// kernel folds the rows and applies the epilogue (the running example's shape of work).
TEST(CpuExecutableTest, SplitFullReductionWithEpilogue) {
  const std::string text = WithReducers(R"(
ENTRY e {
  x = f32[512,300] parameter(0)
  y = f32[512,300] parameter(1)
  sq = f32[512,300] multiply(x, x)
  three = f32[] constant(3)
  tb = f32[512,300] broadcast(three), dimensions={}
  m = f32[512,300] multiply(sq, tb)
  a = f32[512,300] add(m, y)
  c = f32[] constant(0)
  s = f32[] reduce(a, c), dimensions={0,1}, to_apply=add
  n = f32[] constant(153600)
  mean = f32[] divide(s, n)
  ninf = f32[] constant(-inf)
  mx = f32[] reduce(y, ninf), dimensions={0,1}, to_apply=max
  ROOT t = (f32[], f32[]) tuple(mean, mx)
})");
  ExpectCpuMatchesInterpreter(text);
  auto m = ParseOrFail(text);
  ASSERT_NE(m, nullptr);
  auto exe = CompileCpu(*m, true);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int split = 0;
  for (const auto& k : (*exe)->code().kernels()) {
    for (const codegen::CpuLoopGroup& g : k->groups) split += g.function.ends_with(".partials");
  }
  EXPECT_GE(split, 1) << (*exe)->code().llvm_ir();
}

TEST(CpuExecutableTest, RowColumnAndPartialReductionsWithEpilogue) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[16,24,8] parameter(0)
  c = f32[] constant(0)
  ninf = f32[] constant(-inf)
  row = f32[16,24] reduce(x, c), dimensions={2}, to_apply=add
  col = f32[24,8] reduce(x, ninf), dimensions={0}, to_apply=max
  mid = f32[16,8] reduce(x, c), dimensions={1}, to_apply=add
  k = f32[] constant(0.25)
  kb = f32[16,24] broadcast(k), dimensions={}
  scaled = f32[16,24] multiply(row, kb)
  ROOT t = (f32[16,24], f32[24,8], f32[16,8]) tuple(scaled, col, mid)
})"));
}

// Column reductions (the leading dimensions reduced, the kept ones minor: bias
// gradients) fold chunks of rows into per-chunk partials in a first loop group
// (NAME.columns), then combine them in chunk order. Covers a multi-output fusion of two
// (add and max) over a relu gradient, a row too long for one block (5000 = 4 blocks of
// 1024 and a partial one), two kept dimensions, f16 (accumulated in f32), s32, and an
// epilogue and a broadcast consumer of the reduced result.
TEST(CpuExecutableTest, ColumnReductionsInChunks) {
  const std::string text = "HloModule m\n" + std::string(kAddF32) + kMaxF32 + R"(
addh { a = f16[] parameter(0)  b = f16[] parameter(1)  ROOT s = f16[] add(a, b) }
addi { a = s32[] parameter(0)  b = s32[] parameter(1)  ROOT s = s32[] add(a, b) }
ENTRY e {
  x = f32[32,16,16,32] parameter(0)
  g = f32[32,16,16,32] parameter(1)
  zero = f32[] constant(0)
  zb = f32[32,16,16,32] broadcast(zero), dimensions={}
  pos = pred[32,16,16,32] compare(x, zb), direction=GT
  relu_grad = f32[32,16,16,32] select(pos, g, zb)
  db = f32[32] reduce(relu_grad, zero), dimensions={0,1,2}, to_apply=add
  ninf = f32[] constant(-inf)
  mx = f32[32] reduce(g, ninf), dimensions={2,0,1}, to_apply=max
  wide = f32[300,5000] parameter(2)
  wsum = f32[5000] reduce(wide, zero), dimensions={0}, to_apply=add
  half = f32[] constant(0.5)
  hb = f32[5000] broadcast(half), dimensions={}
  wscaled = f32[5000] multiply(wsum, hb)
  two = f32[256,8,12] parameter(3)
  tsum = f32[8,12] reduce(two, zero), dimensions={0}, to_apply=add
  tb = f32[256,8,12] broadcast(tsum), dimensions={1,2}
  centered = f32[256,8,12] subtract(two, tb)
  h = f16[512,64] parameter(4)
  hz = f16[] constant(0)
  hsum = f16[64] reduce(h, hz), dimensions={0}, to_apply=addh
  i = s32[1024,48] parameter(5)
  iz = s32[] constant(0)
  isum = s32[48] reduce(i, iz), dimensions={0}, to_apply=addi
  lr = f32[] constant(0.01)
  lrb = f32[32] broadcast(lr), dimensions={}
  step = f32[32] multiply(db, lrb)
  bias = f32[32] parameter(6)
  new_bias = f32[32] subtract(bias, step)
  ROOT t = (f32[32,16,16,32], f32[32], f32[32], f32[5000], f32[256,8,12], f16[64], s32[48])
      tuple(relu_grad, new_bias, mx, wscaled, centered, hsum, isum)
})";
  ExpectCpuMatchesInterpreter(text);
  auto m = ParseOrFail(text);
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 3);
  ASSERT_TRUE(args.ok()) << args.status().message();
  // Deterministic: the same bits on one thread and on four.
  std::vector<Literal> results;
  for (int threads : {1, 4}) {
    auto exe = CompileCpu(*m, true, threads);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    int columns = 0;
    for (const auto& k : (*exe)->code().kernels()) {
      for (const codegen::CpuLoopGroup& g : k->groups) columns += g.function.ends_with(".columns");
    }
    EXPECT_GE(columns, 5) << (*exe)->module().ToString();
    auto out = (*exe)->Run(*args);
    ASSERT_TRUE(out.ok()) << out.status().message();
    results.push_back(std::move(*out));
  }
  EXPECT_TRUE(results[0] == results[1]);
}

// Row chaining: softmax (max, exp-and-sum, divide) and layer norm are kernels that all
// iterate the same rows; an untraced run takes them block of rows by block of rows.
// Also a kernel reading a chained result transposed and column-reduced (not row-local:
// it must wait for the whole chain), and a row kernel over other rows after it.
TEST(CpuExecutableTest, RowChainedKernelsMatchTheInterpreter) {
  const std::string text = WithReducers(R"(
ENTRY e {
  x = f32[512,300] parameter(0)
  ninf = f32[] constant(-inf)
  zero = f32[] constant(0)
  mx = f32[512] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[512,300] broadcast(mx), dimensions={0}
  d = f32[512,300] subtract(x, mb)
  ex = f32[512,300] exponential(d)
  s = f32[512] reduce(ex, zero), dimensions={1}, to_apply=add
  sb = f32[512,300] broadcast(s), dimensions={0}
  sm = f32[512,300] divide(ex, sb)
  y = f32[300,256] parameter(1)
  gamma = f32[256] parameter(2)
  ysum = f32[300] reduce(y, zero), dimensions={1}, to_apply=add
  n = f32[] constant(0.00390625)
  nb = f32[300] broadcast(n), dimensions={}
  mean = f32[300] multiply(ysum, nb)
  meanb = f32[300,256] broadcast(mean), dimensions={0}
  c = f32[300,256] subtract(y, meanb)
  c2 = f32[300,256] multiply(c, c)
  var = f32[300] reduce(c2, zero), dimensions={1}, to_apply=add
  varn = f32[300] multiply(var, nb)
  eps = f32[] constant(1e-5)
  epsb = f32[300] broadcast(eps), dimensions={}
  ve = f32[300] add(varn, epsb)
  r = f32[300] rsqrt(ve)
  rb = f32[300,256] broadcast(r), dimensions={0}
  gb = f32[300,256] broadcast(gamma), dimensions={1}
  cr = f32[300,256] multiply(c, rb)
  ln = f32[300,256] multiply(cr, gb)
  smt = f32[300,512] transpose(sm), dimensions={1,0}
  colsum = f32[300] reduce(sm, zero), dimensions={0}, to_apply=add
  smts = f32[300] reduce(smt, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[512,300], f32[300,256], f32[300,512], f32[300], f32[300]) tuple(sm, ln, smt, smts, colsum)
})");
  ExpectCpuMatchesInterpreter(text);
  auto m = ParseOrFail(text);
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 5);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto exe = CompileCpu(*m, true, 3);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int row_kernels = 0;
  for (const auto& k : (*exe)->code().kernels()) row_kernels += k->rows > 1;
  EXPECT_GE(row_kernels, 4) << (*exe)->module().ToString();
  auto out = (*exe)->Run(*args);
  ASSERT_TRUE(out.ok()) << out.status().message();
  // Chained or not, every kernel counts as one launch.
  EXPECT_EQ((*exe)->last_kernel_launches(), passes::CountKernels((*exe)->module()).kernels);
}

// A max pool's gradient: the window leaves the batch (and here the features) alone, so the
// updates run in parallel slices along the batch; overlapping windows with padding (ties
// between windows, resolved in the interpreter's order within each slice) and a window
// that spans every dimension (serial) too.
TEST(CpuExecutableTest, SelectAndScatterInParallelSlices) {
  const std::string text = WithReducers(R"(
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
ENTRY e {
  x = f32[8,16,16,4] parameter(0)
  g = f32[8,8,8,4] parameter(1)
  zero = f32[] constant(0)
  pool = f32[8,16,16,4] select-and-scatter(x, g, zero), window={size=1x2x2x1 stride=1x2x2x1}, select=ge, scatter=add
  g2 = f32[8,8,8,4] parameter(2)
  overlap = f32[8,16,16,4] select-and-scatter(x, g2, zero), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, select=ge, scatter=add
  y = f32[6,6] parameter(3)
  h = f32[3,3] parameter(4)
  serial = f32[6,6] select-and-scatter(y, h, zero), window={size=2x2 stride=2x2}, select=ge, scatter=add
  ROOT t = (f32[8,16,16,4], f32[8,16,16,4], f32[6,6]) tuple(pool, overlap, serial)
})");
  ExpectCpuMatchesInterpreter(text);
  auto m = ParseOrFail(text);
  ASSERT_NE(m, nullptr);
  auto exe = CompileCpu(*m, true);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  int parallel = 0;
  for (const auto& k : (*exe)->code().kernels()) {
    for (const codegen::CpuLoopGroup& g : k->groups) parallel += g.function.ends_with(".apply") && g.extent == 8;
  }
  EXPECT_EQ(parallel, 2) << (*exe)->module().ToString();
}

TEST(CpuExecutableTest, DataMovement) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[6,10] parameter(0)
  y = f32[4,10] parameter(1)
  t = f32[10,6] transpose(x), dimensions={1,0}
  r = f32[60] reshape(x)
  r2 = f32[3,20] reshape(r)
  s = f32[3,4] slice(x), slice={[1:6:2], [2:10:2]}
  cat = f32[10,10] concatenate(x, y), dimensions={0}
  z = f32[] constant(-1)
  p = f32[9,19] pad(x, z), padding=1_2_0x0_0_1
  rev = f32[6,10] reverse(x), dimensions={0,1}
  b = f32[2,6,10] broadcast(x), dimensions={1,2}
  ROOT out = (f32[10,6], f32[3,20], f32[3,4], f32[10,10], f32[9,19], f32[6,10], f32[2,6,10]) tuple(t, r2, s, cat, p, rev, b)
})"));
}

// Loop atoms and tiled transposes (PlanLoopAtoms, cpu_atom_loops.cc): sizes that are not
// multiples of the tiles (edges element by element), size-1 dimensions, f64, bf16 and s8
// tiles, elementwise ops on both sides of the transpose, attention's head merge and
// split through reshapes, and a buffer read both transposed and not (no tiles then).
TEST(CpuExecutableTest, TiledTransposesAndReshapedLoopsMatchTheInterpreter) {
  const char* modules[] = {
      R"(HloModule odd_2d
ENTRY e {
  x = f32[75,130] parameter(0)
  y = f32[130,75] parameter(1)
  n = f32[75,130] negate(x)
  t = f32[130,75] transpose(n), dimensions={1,0}
  ROOT a = f32[130,75] add(t, y)
})",
      R"(HloModule ones
ENTRY e {
  x = f32[3,1,40,36] parameter(0)
  c = f32[] constant(1.5)
  cb = f32[3,1,40,36] broadcast(c), dimensions={}
  m = f32[3,1,40,36] multiply(x, cb)
  ROOT t = f32[36,1,3,40] transpose(m), dimensions={3,1,0,2}
})",
      R"(HloModule f64
ENTRY e {
  x = f64[48,72] parameter(0)
  y = f64[72,48] parameter(1)
  s = f64[48,72] sqrt(x)
  t = f64[72,48] transpose(s), dimensions={1,0}
  ROOT m = f64[72,48] multiply(t, y)
})",
      R"(HloModule bf16
ENTRY e {
  x = bf16[40,33] parameter(0)
  y = bf16[33,40] parameter(1)
  t = bf16[33,40] transpose(x), dimensions={1,0}
  ROOT a = bf16[33,40] add(t, y)
})",
      R"(HloModule s8
ENTRY e {
  x = s8[37,64] parameter(0)
  ROOT t = s8[64,37] transpose(x), dimensions={1,0}
})",
      R"(HloModule heads
ENTRY e {
  heads = f32[2,4,24,16] parameter(0)
  c = f32[] constant(0.25)
  cb = f32[2,4,24,16] broadcast(c), dimensions={}
  scaled = f32[2,4,24,16] multiply(heads, cb)
  t = f32[2,24,4,16] transpose(scaled), dimensions={0,2,1,3}
  merged = f32[2,24,64] reshape(t)
  seq = f32[2,40,64] parameter(1)
  split = f32[2,40,4,16] reshape(seq)
  e = f32[2,40,4,16] exponential(split)
  kt = f32[2,4,16,40] transpose(e), dimensions={0,2,3,1}
  bias = f32[2,4,16,40] parameter(2)
  kb = f32[2,4,16,40] add(kt, bias)
  ROOT r = (f32[2,24,64], f32[2,4,16,40]) tuple(merged, kb)
})",
      R"(HloModule both_ways
ENTRY e {
  x = f32[40,40] parameter(0)
  t = f32[40,40] transpose(x), dimensions={1,0}
  ROOT a = f32[40,40] add(x, t)
})",
      R"(HloModule batched
ENTRY e {
  x = f32[3,50,34] parameter(0)
  t = f32[3,34,50] transpose(x), dimensions={0,2,1}
  ROOT l = f32[3,34,50] tanh(t)
})",
  };
  for (const char* text : modules) {
    SCOPED_TRACE(text);
    ExpectCpuMatchesInterpreter(text);
  }
}

TEST(CpuExecutableTest, IotaCompareSelectConvert) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[8,16] parameter(0)
  i = s32[8,16] iota(), iota_dimension=1
  f = f32[8,16] convert(i)
  lt = pred[8,16] compare(x, f), direction=LT
  sel = f32[8,16] select(lt, x, f)
  back = s32[8,16] convert(sel)
  u = u8[8,16] convert(back)
  h = f16[8,16] convert(x)
  bf = bf16[8,16] convert(x)
  hh = f16[8,16] multiply(h, h)
  bb = bf16[8,16] add(bf, bf)
  ROOT t = (f32[8,16], s32[8,16], u8[8,16], f16[8,16], bf16[8,16], pred[8,16]) tuple(sel, back, u, hh, bb, lt)
})"));
}

TEST(CpuExecutableTest, DynamicSliceAndUpdateSlice) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
ENTRY e {
  x = f32[10,12] parameter(0)
  u = f32[3,4] parameter(1)
  i = s32[] constant(8)
  j = s32[] constant(-3)
  ds = f32[3,4] dynamic-slice(x, i, j), dynamic_slice_sizes={3,4}
  k = s32[] constant(2)
  dus = f32[10,12] dynamic-update-slice(x, u, k, i)
  ROOT t = (f32[3,4], f32[10,12]) tuple(ds, dus)
})"));
}

// dynamic-update-slice writes into its operand's buffer when the operand dies there
// (then only the update window is written), and copies first when it does not.
TEST(CpuExecutableTest, DynamicUpdateSliceInPlaceAndCopied) {
  for (const char* root : {"ROOT t = (f32[64,48]) tuple(d)", "ROOT t = (f32[64,48], f32[64,48]) tuple(d, a)"}) {
    SCOPED_TRACE(root);
    const std::string text = std::string(R"(
HloModule m
ENTRY e {
  x = f32[64,48] parameter(0)
  u = f32[5,7] parameter(1)
  a = f32[64,48] add(x, x)
  i = s32[] constant(60)
  j = s32[] constant(3)
  d = f32[64,48] dynamic-update-slice(a, u, i, j)
  )") + root + "\n}\n";
    ExpectCpuMatchesInterpreter(text);
    auto m = ParseOrFail(text);
    ASSERT_NE(m, nullptr);
    auto exe = CompileCpu(*m, false);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    const codegen::CpuKernel* dus = nullptr;
    for (const auto& k : (*exe)->code().kernels()) {
      if (k->hlo->opcode() == Opcode::kDynamicUpdateSlice) dus = k.get();
    }
    ASSERT_NE(dus, nullptr);
    EXPECT_EQ(dus->in_place_operand, 0);
    auto buffers = (*exe)->BufferAssignmentText();
    ASSERT_TRUE(buffers.ok()) << buffers.status().message();
  }
}

// A scan-like while loop updating one row of its carried state per trip.
TEST(CpuExecutableTest, WhileLoopWithInPlaceRowUpdates) {
  ExpectCpuMatchesInterpreter(R"(
HloModule m
cond {
  s = (s32[], f32[16,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(16)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16,32]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[16,32] get-tuple-element(s), index=1
  z = s32[] constant(0)
  row = f32[1,32] dynamic-slice(v, i, z), dynamic_slice_sizes={1,32}
  two = f32[] constant(2)
  tb = f32[1,32] broadcast(two), dimensions={}
  r2 = f32[1,32] multiply(row, tb)
  v2 = f32[16,32] dynamic-update-slice(v, r2, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[16,32]) tuple(i2, v2)
}
ENTRY e {
  x = f32[16,32] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[16,32]) tuple(z, x)
  w = (s32[], f32[16,32]) while(init), condition=cond, body=body
  ROOT v = f32[16,32] get-tuple-element(w), index=1
})");
}

// CIFAR's first convolution: NHWC with padding on every edge and 3 input features (an
// im2col fast path for contiguous taps once got the right edge wrong; it is gone).
TEST(CpuExecutableTest, ConvolutionPaddingEdges) {
  ExpectCpuMatchesInterpreter(R"(
HloModule m
ENTRY e {
  a = f32[2,32,32,3] parameter(0)
  w = f32[3,3,3,16] parameter(1)
  ROOT c = f32[2,32,32,16] convolution(a, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})");
}

TEST(CpuExecutableTest, IntegerEdgeCases) {
  ExpectCpuMatchesInterpreter(R"(
HloModule m
ENTRY e {
  x = s32[64] parameter(0)
  y = s32[64] parameter(1)
  d = s32[64] divide(x, y)
  r = s32[64] remainder(x, y)
  sl = s32[64] shift-left(x, y)
  sr = s32[64] shift-right-arithmetic(x, y)
  srl = s32[64] shift-right-logical(x, y)
  mx = s32[64] maximum(x, y)
  pc = s32[64] popcnt(x)
  cl = s32[64] count-leading-zeros(x)
  a = s32[64] abs(x)
  sg = s32[64] sign(x)
  ROOT t = (s32[64], s32[64], s32[64], s32[64], s32[64], s32[64], s32[64], s32[64], s32[64], s32[64]) tuple(d, r, sl, sr, srl, mx, pc, cl, a, sg)
})");
}

TEST(CpuExecutableTest, WhileLoopAndConditional) {
  ExpectCpuMatchesInterpreter(R"(
HloModule m
cond {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[8] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  half = f32[] constant(0.5)
  hb = f32[8] broadcast(half), dimensions={}
  v2 = f32[8] multiply(v, hb)
  v3 = f32[8] add(v2, hb)
  ROOT t = (s32[], f32[8]) tuple(i2, v3)
}
neg { p = f32[8] parameter(0)  ROOT n = f32[8] negate(p) }
ident { p = f32[8] parameter(0)  ROOT c = f32[8] copy(p) }
ENTRY e {
  x = f32[8] parameter(0)
  flag = pred[] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[8]) tuple(z, x)
  w = (s32[], f32[8]) while(init), condition=cond, body=body
  v = f32[8] get-tuple-element(w), index=1
  ROOT c = f32[8] conditional(flag, v, v), true_computation=neg, false_computation=ident
})");
}

TEST(CpuExecutableTest, ReduceWindowGatherAndVariadicReduce) {
  ExpectCpuMatchesInterpreter(WithReducers(R"(
argmax {
  v0 = f32[] parameter(0)
  i0 = s32[] parameter(1)
  v1 = f32[] parameter(2)
  i1 = s32[] parameter(3)
  gt = pred[] compare(v0, v1), direction=GT
  eq = pred[] compare(v0, v1), direction=EQ
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, v0, v1)
  i = s32[] select(keep, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4,9,9,3] parameter(0)
  ninf = f32[] constant(-inf)
  pool = f32[4,5,5,3] reduce-window(x, ninf), window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=max
  table = f32[10,6] parameter(1)
  idx = s32[5,1] constant({{3},{0},{9},{11},{-2}})
  g = f32[5,6] gather(table, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  iota = s32[10,6] iota(), iota_dimension=0
  zero = s32[] constant(0)
  am = (f32[6], s32[6]) reduce(table, iota, ninf, zero), dimensions={0}, to_apply=argmax
  amv = s32[6] get-tuple-element(am), index=1
  ROOT t = (f32[4,5,5,3], f32[5,6], s32[6]) tuple(pool, g, amv)
})"));
}

std::string ReadExample(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CpuExecutableTest, MnistTrainingStep) {
  auto m = ParseOrFail(ReadExample("mnist_train_step.hlo"));
  ASSERT_NE(m, nullptr);
  ExpectCpuMatchesInterpreter(*m);
}

TEST(CpuExecutableTest, FusedRunsFewerKernelsThanUnfused) {
  auto m = ParseOrFail(ReadExample("mnist_train_step.hlo"));
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 3);
  ASSERT_TRUE(args.ok());
  int64_t launches[2] = {0, 0};
  for (bool fused : {false, true}) {
    auto exe = CompileCpu(*m, fused);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    ASSERT_TRUE((*exe)->Run(*args).ok());
    launches[fused] = (*exe)->last_kernel_launches();
    // Without control flow every static kernel runs once.
    EXPECT_EQ(launches[fused], passes::CountKernels((*exe)->module()).kernels);
  }
  EXPECT_EQ(launches[1], 11);
  EXPECT_GT(launches[0], 3 * launches[1]);
}

// RunInto writes kernel outputs straight into the caller's result and reuses it across
// runs; leaves that cannot be computed in place (a parameter passed through, a constant,
// one value returned twice) are copied. Every run must equal the interpreter.
TEST(CpuExecutableTest, RunIntoReusesTheResultAndComputesOutputsInPlace) {
  auto m = ParseOrFail(R"(
HloModule run_into

ENTRY e {
  x = f32[64,32]{1,0} parameter(0)
  y = f32[64,32]{1,0} parameter(1)
  mul = f32[64,32]{1,0} multiply(x, y)
  c = f32[3]{0} constant({1, 2, 3})
  neg = f32[64,32]{1,0} negate(x)
  ROOT t = (f32[64,32]{1,0}, f32[64,32]{1,0}, f32[3]{0}, f32[64,32]{1,0}, f32[64,32]{1,0}) tuple(mul, y, c, neg, neg)
}
)");
  ASSERT_NE(m, nullptr);
  for (bool fused : {false, true}) {
    SCOPED_TRACE(fused ? "fused" : "unfused");
    auto exe = CompileCpu(*m, fused);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    Literal result;  // an empty tuple: RunInto gives it the root's shape
    const uint8_t* first_leaf = nullptr;
    for (uint64_t seed : {1, 2, 3}) {
      auto args = interpreter::RandomArguments(*m, seed);
      ASSERT_TRUE(args.ok());
      auto expected = interpreter::Interpreter().Run(*m, *args);
      ASSERT_TRUE(expected.ok());
      ASSERT_TRUE((*exe)->RunInto(*args, result).ok());
      EXPECT_EQ(result, *expected) << "seed " << seed;
      // The same storage every run: nothing reallocated.
      if (first_leaf == nullptr) first_leaf = result.tuple_elements()[0].untyped_data();
      EXPECT_EQ(result.tuple_elements()[0].untyped_data(), first_leaf);
    }
    // Run() gives the same values as RunInto.
    auto args = interpreter::RandomArguments(*m, 3);
    ASSERT_TRUE(args.ok());
    auto ran = (*exe)->Run(*args);
    ASSERT_TRUE(ran.ok());
    EXPECT_EQ(*ran, result);
  }
}

// Row kernels (row_fusion.h): softmax is one kernel whose two reductions run once per
// row, exp kept in a row buffer between the sum's loop and the division; layer norm with
// two row dimensions and bf16 values; results match the interpreter on 1-3 threads.
TEST(CpuExecutableTest, RowKernelsComputeEachReductionOncePerRow) {
  auto softmax = ParseOrFail(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 67, 300)));
  ASSERT_NE(softmax, nullptr);
  ExpectCpuMatchesInterpreter(*softmax, 3);
  std::string first_ir;
  for (int threads : {1, 3}) {
    // Run threads and compile threads: the exp-and-sum loop, a function of its own,
    // compiles on a second thread, into the same code.
    codegen::CpuCompileOptions compile;
    compile.compile_threads = threads;
    auto exe = CompileCpu(*softmax, true, threads, compile);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    const codegen::CpuCode& code = (*exe)->code();
    ASSERT_EQ(code.kernels().size(), 1u);
    EXPECT_EQ(code.compile_threads(), std::min(threads, 2));
    if (first_ir.empty()) first_ir = code.llvm_ir();
    EXPECT_EQ(code.llvm_ir(), first_ir);
    // One loop group; the row buffer for exp; the two reduction loops and the outputs'
    // loop sit inside the row loop (no reduction recomputed per element); the second
    // reduction (exp and sum) is `.row1`, called once per row.
    ASSERT_EQ(code.kernels()[0]->groups.size(), 1u);
    const std::string& fn = code.kernels()[0]->groups[0].function;
    EXPECT_THAT(code.llvm_ir(), HasSubstr("%ex.row = alloca [300 x float], align 64"));
    EXPECT_THAT(code.llvm_ir(), HasSubstr("define void @" + fn + ".row1("));
    EXPECT_THAT(code.llvm_ir(), HasSubstr("call void @" + fn + ".row1("));
    EXPECT_THAT(code.llvm_ir(), Not(HasSubstr("@" + fn + ".row0")));
    EXPECT_EQ(code.function_to_hlo().at(fn + ".row1"), code.kernels()[0]->hlo->name());
    EXPECT_THAT(code.assembly(), HasSubstr(fn + ".row1:"));
    auto count = [&](const std::string& needle) {
      int n = 0;
      for (size_t at = code.llvm_ir().find(needle); at != std::string::npos; at = code.llvm_ir().find(needle, at + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count("\nmax.reduce.0.header:"), 1);
    EXPECT_EQ(count("\nsum.reduce.0.header:"), 1);
    EXPECT_EQ(count("\ni.1.header:"), 1);  // the outputs' loop over the row
    // In the entry, the max loop, then the call, then the outputs' loop (a reduce
    // emitted per output element would cost a whole row per element).
    const size_t entry = code.llvm_ir().find("define internal void @" + fn + ".body(");
    ASSERT_NE(entry, std::string::npos);
    EXPECT_LT(code.llvm_ir().find("\nsum.reduce.0.header:"), entry);
    EXPECT_LT(entry, code.llvm_ir().find("\nmax.reduce.0.header:"));
    EXPECT_LT(code.llvm_ir().find("\nmax.reduce.0.header:"), code.llvm_ir().find("call void @" + fn + ".row1("));
    EXPECT_LT(code.llvm_ir().find("call void @" + fn + ".row1("), code.llvm_ir().find("\ni.1.header:"));
    auto args = interpreter::RandomArguments(*softmax, 5);
    ASSERT_TRUE(args.ok());
    auto expected = interpreter::Interpreter().Run(*softmax, *args);
    ASSERT_TRUE(expected.ok());
    auto actual = (*exe)->Run(*args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    EXPECT_TRUE(interpreter::CompareLiterals(*actual, *expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32)).ok());
  }
  ExpectCpuMatchesInterpreter(RowKernelModule("layer_norm", "bf16", LayerNormEntry("bf16", {3, 5, 96})), 4);
  // Layer norm's sums are cheap loops: they stay in the kernel's function (another
  // function costs more compile time than it moves to a second thread).
  auto layer_norm = ParseOrFail(RowKernelModule("layer_norm", "f32", LayerNormEntry("f32", {64, 256})));
  ASSERT_NE(layer_norm, nullptr);
  auto exe = CompileCpu(*layer_norm, true, 2);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  ASSERT_EQ((*exe)->code().kernels().size(), 1u);
  EXPECT_TRUE((*exe)->code().kernels()[0]->row_kernel);
  EXPECT_THAT((*exe)->code().llvm_ir(), Not(HasSubstr(".row0")));
  EXPECT_THAT((*exe)->code().llvm_ir(), Not(HasSubstr(".row1")));
  EXPECT_EQ((*exe)->code().compile_threads(), 1);
}

// Code generation keeps one pass manager per pooled target machine and runs it on module
// after module (ObjectEmitter in cpu_jit.cc): modules compiled one after another on
// one thread, the same module twice among them, all run right, and the first ones still
// do after the later compiles.
TEST(CpuExecutableTest, ModulesCompiledOneAfterAnotherShareCodeGeneration) {
  auto softmax = ParseOrFail(RowKernelModule("softmax", "f32", SoftmaxEntry("f32", 67, 300)));
  auto layer_norm = ParseOrFail(RowKernelModule("layer_norm", "f32", LayerNormEntry("f32", {64, 256})));
  ASSERT_NE(softmax, nullptr);
  ASSERT_NE(layer_norm, nullptr);
  codegen::CpuCompileOptions compile;
  compile.compile_threads = 1;
  compile.keep_assembly = false;
  compile.keep_llvm_ir = false;
  struct Case {
    std::vector<Literal> args;
    Literal expected;
    std::unique_ptr<runtime::CpuExecutable> exe;
  };
  std::vector<Case> cases;
  for (const Module* m : {softmax.get(), layer_norm.get(), softmax.get(), layer_norm.get()}) {
    auto args = interpreter::RandomArguments(*m, 7 + cases.size());
    ASSERT_TRUE(args.ok());
    auto expected = interpreter::Interpreter().Run(*m, *args);
    ASSERT_TRUE(expected.ok());
    auto exe = CompileRunAndCompare(*m, *args, *expected, 2, compile);
    ASSERT_NE(exe, nullptr);
    cases.push_back({std::move(*args), std::move(*expected), std::move(exe)});
  }
  for (const Case& c : cases) {
    auto actual = c.exe->Run(c.args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    EXPECT_TRUE(interpreter::CompareLiterals(*actual, c.expected, interpreter::DefaultToleranceFor(PrimitiveType::kF32)).ok());
  }
}

TEST(CpuExecutableTest, StagesAreKeptAndMapBackToHlo) {
  auto m = ParseOrFail(WithReducers(R"(
ENTRY e {
  x = f32[256] parameter(0)
  y = f32[256] parameter(1)
  s = f32[256] add(x, y)
  ROOT n = f32[256] negate(s)
})"));
  ASSERT_NE(m, nullptr);
  auto exe = CompileCpu(*m, true);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  const codegen::CpuCode& code = (*exe)->code();
  ASSERT_EQ(code.kernels().size(), 1u);
  const std::string& fn = code.kernels()[0]->groups.at(0).function;
  EXPECT_THAT(code.llvm_ir(), HasSubstr("define void @" + fn + "("));
  EXPECT_THAT(code.llvm_ir_optimized(), HasSubstr("fadd"));
  EXPECT_THAT(code.assembly(), HasSubstr(fn));
  EXPECT_EQ(code.function_to_hlo().at(fn), code.kernels()[0]->hlo->name());
}

// Kernels are optimized and compiled in several modules on several threads; the printed
// stages are one module again, in program order, and neither they nor the results depend
// on the thread count. The compile reports where its time went.
TEST(CpuExecutableTest, CompileThreadsChangeNeitherStagesNorResults) {
  auto m = ParseOrFail(ReadExample("mnist_train_step.hlo"));
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 5);
  ASSERT_TRUE(args.ok());
  std::string ir, ir_optimized;
  std::optional<Literal> first;
  for (int compile_threads : {1, 2, 3, 8}) {
    SCOPED_TRACE("compile threads " + std::to_string(compile_threads));
    codegen::CpuCompileOptions compile;
    compile.compile_threads = compile_threads;
    auto exe = CompileCpu(*m, true, 2, compile);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    const codegen::CpuCode& code = (*exe)->code();
    EXPECT_EQ(code.compile_threads(), compile_threads);
    std::vector<std::string> steps;
    for (const codegen::CompileStepTime& t : code.step_times()) {
      steps.push_back(t.step);
      EXPECT_GE(t.seconds, 0);
    }
    EXPECT_THAT(steps, ::testing::IsSupersetOf({"emit_ir", "optimize_and_compile", "print_ir", "jit_link"}));
    // One module: one header, every kernel defined once, in the order they were emitted.
    EXPECT_EQ(code.llvm_ir().find("target datalayout"), code.llvm_ir().rfind("target datalayout"));
    size_t last = 0;
    for (const auto& kernel : code.kernels()) {
      for (const codegen::CpuLoopGroup& g : kernel->groups) {
        const size_t at = code.llvm_ir().find("define void @" + g.function + "(");
        ASSERT_NE(at, std::string::npos) << g.function;
        EXPECT_GT(at, last) << g.function << " out of order";
        last = at;
        EXPECT_THAT(code.llvm_ir_optimized(), HasSubstr("@" + g.function + "("));
        EXPECT_THAT(code.assembly(), HasSubstr(g.function + ":"));
      }
    }
    if (ir.empty()) {
      ir = code.llvm_ir();
      ir_optimized = code.llvm_ir_optimized();
    } else {
      EXPECT_EQ(code.llvm_ir(), ir);
      EXPECT_EQ(code.llvm_ir_optimized(), ir_optimized);
    }
    auto result = (*exe)->Run(*args);
    ASSERT_TRUE(result.ok()) << result.status().message();
    if (!first) {
      first = std::move(*result);
    } else {
      EXPECT_EQ(*result, *first);
    }
  }
}

// Fusebox's kernel pipeline (the default) and LLVM's standard -O2 compute the same thing
// on kernels of every kind the workloads have: softmax's row reductions and exp, a max
// pool and its gradient (reduce-window, select-and-scatter: small constant window loops),
// a zero fill, a library function the vectorizer maps to libmvec. The kernel pipeline
// still vectorizes, calls libmvec where -O2 does, and runs no loop strength reduction.
TEST(CpuExecutableTest, KernelPipelineMatchesLlvmO2) {
  auto m = ParseOrFail(R"(
HloModule kernels
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ge_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT p = pred[] compare(a, b), direction=GE
}
ENTRY e {
  x = f32[64,256] parameter(0)
  img = f32[8,16,16,4] parameter(1)
  lo = f32[] constant(-inf)
  mx = f32[64] reduce(x, lo), dimensions={1}, to_apply=max_f32
  mxb = f32[64,256] broadcast(mx), dimensions={0}
  xs = f32[64,256] subtract(x, mxb)
  ex = f32[64,256] exponential(xs)
  zero = f32[] constant(0)
  sum = f32[64] reduce(ex, zero), dimensions={1}, to_apply=add_f32
  sumb = f32[64,256] broadcast(sum), dimensions={0}
  soft = f32[64,256] divide(ex, sumb)
  pool = f32[8,8,8,4] reduce-window(img, lo), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max_f32
  grad = f32[8,16,16,4] select-and-scatter(img, pool, zero), window={size=1x2x2x1 stride=1x2x2x1}, select=ge_f32, scatter=add_f32
  fill = f32[64,256] broadcast(zero), dimensions={}
  one = f32[] constant(1)
  oneb = f32[64,256] broadcast(one), dimensions={}
  sq = f32[64,256] multiply(x, x)
  sq1 = f32[64,256] add(sq, oneb)
  lg = f32[64,256] log(sq1)
  ROOT t = (f32[64,256], f32[8,8,8,4], f32[8,16,16,4], f32[64,256], f32[64,256]) tuple(soft, pool, grad, fill, lg)
}
)");
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 11);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(*m, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  std::string assembly[2];
  for (bool kernel_pipeline : {true, false}) {
    SCOPED_TRACE(kernel_pipeline ? "kernel pipeline" : "LLVM -O2");
    codegen::CpuCompileOptions compile;
    compile.kernel_pipeline = kernel_pipeline;
    auto exe = CompileRunAndCompare(*m, *args, *expected, 2, compile);
    ASSERT_NE(exe, nullptr);
    const codegen::CpuCode& code = exe->code();
    EXPECT_THAT(code.llvm_ir_optimized(), HasSubstr("x float>"));  // vectorized
    assembly[kernel_pipeline ? 0 : 1] = code.assembly();
  }
  // libmvec's vector log where -O2 calls it (when glibc's libmvec is installed).
  if (assembly[1].find("_ZGV") != std::string::npos) {
    EXPECT_THAT(assembly[0], HasSubstr("_ZGV"));
  }
  // Different code generation (no loop strength reduction), same kernels.
  EXPECT_NE(assembly[0], assembly[1]);
}

// The kernel pipeline leaves the vectorizer's loops as it interleaved them: every loop
// it vectorized is marked llvm.loop.unroll.disable (no-unroll-vectorized) and still
// loops (a 1024-element row is not unrolled into straight-line code); -O2's unroller
// may unroll them again, so the kernel pipeline's machine code is never the larger.
TEST(CpuExecutableTest, KernelPipelineKeepsVectorizedLoops) {
  auto m = ParseOrFail(R"(
HloModule rows
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64,1024] parameter(0)
  y = f32[64,1024] parameter(1)
  p = f32[64,1024] multiply(x, y)
  zero = f32[] constant(0)
  ROOT r = f32[64] reduce(p, zero), dimensions={1}, to_apply=add_f32
}
)");
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 5);
  ASSERT_TRUE(args.ok()) << args.status().message();
  auto expected = interpreter::Interpreter().Run(*m, *args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  size_t assembly_lines[2] = {0, 0};
  for (bool kernel_pipeline : {true, false}) {
    SCOPED_TRACE(kernel_pipeline ? "kernel pipeline" : "LLVM -O2");
    codegen::CpuCompileOptions compile;
    compile.kernel_pipeline = kernel_pipeline;
    auto exe = CompileRunAndCompare(*m, *args, *expected, 1, compile);
    ASSERT_NE(exe, nullptr);
    const std::string& ir = exe->code().llvm_ir_optimized();
    const std::string& assembly = exe->code().assembly();
    assembly_lines[kernel_pipeline ? 0 : 1] = static_cast<size_t>(std::count(assembly.begin(), assembly.end(), '\n'));
    if (!kernel_pipeline) continue;
    EXPECT_THAT(ir, HasSubstr("vector.body"));
    // Each loop ID naming llvm.loop.isvectorized also names llvm.loop.unroll.disable.
    std::istringstream lines(ir);
    std::string line, vectorized_id, disable_id;
    std::vector<std::string> loop_ids;
    while (std::getline(lines, line)) {
      if (line.find("!{!\"llvm.loop.isvectorized\", i32 1}") != std::string::npos) vectorized_id = line.substr(0, line.find(' '));
      if (line.find("!{!\"llvm.loop.unroll.disable\", i32 1}") != std::string::npos) disable_id = line.substr(0, line.find(' '));
      if (line.find("= distinct !{") != std::string::npos) loop_ids.push_back(line);
    }
    ASSERT_FALSE(vectorized_id.empty()) << ir;
    ASSERT_FALSE(disable_id.empty()) << ir;
    int vectorized_loops = 0;
    for (const std::string& id : loop_ids) {
      if (id.find(vectorized_id + ",") == std::string::npos && id.find(vectorized_id + "}") == std::string::npos) continue;
      ++vectorized_loops;
      EXPECT_TRUE(id.find(disable_id + ",") != std::string::npos || id.find(disable_id + "}") != std::string::npos) << id;
    }
    EXPECT_GT(vectorized_loops, 0);
  }
  EXPECT_LE(assembly_lines[0], assembly_lines[1]);
}

// Kernels reading at least prefetch_min_bytes prefetch their loops' vector loads 1 KiB
// ahead (prefetcht1 in the assembly, llvm.prefetch in the optimized IR); smaller ones and
// -1 get none; results are the interpreter's either way.
TEST(CpuExecutableTest, PrefetchesForBigReads) {
  auto m = ParseOrFail(R"(
HloModule prefetch
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[96,256] parameter(0)
  y = f32[96,256] parameter(1)
  p = f32[96,256] multiply(x, y)
  zero = f32[] constant(0)
  ROOT r = f32[96] reduce(p, zero), dimensions={1}, to_apply=add_f32
})");
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 4);
  ASSERT_TRUE(args.ok());
  auto expected = interpreter::Interpreter().Run(*m, *args);
  ASSERT_TRUE(expected.ok());
  const int64_t reads = 2 * 96 * 256 * 4;
  for (int64_t min_bytes : {int64_t{1}, reads, reads + 1, int64_t{-1}}) {
    SCOPED_TRACE("prefetch_min_bytes " + std::to_string(min_bytes));
    codegen::CpuCompileOptions compile;
    compile.prefetch_min_bytes = min_bytes;
    auto exe = CompileRunAndCompare(*m, *args, *expected, 2, compile);
    ASSERT_NE(exe, nullptr);
    const bool prefetches = min_bytes > 0 && min_bytes <= reads;
    const codegen::CpuCode& code = exe->code();
    EXPECT_EQ(code.llvm_ir_optimized().find("@llvm.prefetch") != std::string::npos, prefetches);
    EXPECT_EQ(code.assembly().find("prefetcht1") != std::string::npos, prefetches);
    EXPECT_EQ(code.llvm_ir().find("@llvm.prefetch"), std::string::npos);  // added after optimization
  }
}

// Loop groups writing more than the threshold get a streaming variant (non-temporal
// vector stores) and a dispatcher that takes it only for 64-byte aligned outputs, else a
// scalar cached variant; both compute what the interpreter does, and small groups get no
// variant.
TEST(CpuExecutableTest, StreamingStoresForBigOutputs) {
  auto m = ParseOrFail(R"(
HloModule streaming
ENTRY e {
  x = f32[96,256] parameter(0)
  y = f32[96,256] parameter(1)
  z = f32[96,256] parameter(2)
  p = f32[96,256] multiply(x, y)
  s = f32[96,256] add(p, z)
  zero = f32[] constant(0)
  zeros = f32[96,256] broadcast(zero), dimensions={}
  ROOT r = f32[96,256] maximum(s, zeros)
})");
  ASSERT_NE(m, nullptr);
  auto args = interpreter::RandomArguments(*m, 7);
  ASSERT_TRUE(args.ok());
  auto expected = interpreter::Interpreter().Run(*m, *args);
  ASSERT_TRUE(expected.ok());
  for (int64_t min_bytes : {int64_t{4096}, int64_t{-1}}) {
    SCOPED_TRACE("streaming_store_min_bytes " + std::to_string(min_bytes));
    codegen::CpuCompileOptions compile;
    compile.streaming_store_min_bytes = min_bytes;
    auto exe = CompileCpu(*m, true, 2, compile);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    const codegen::CpuCode& code = (*exe)->code();
    ASSERT_EQ(code.kernels().size(), 1u);
    const codegen::CpuLoopGroup& group = code.kernels()[0]->groups.at(0);
    const bool streaming = min_bytes > 0;
    EXPECT_EQ(code.llvm_ir_optimized().find("define void @" + group.function + ".streaming(") != std::string::npos,
              streaming);
    EXPECT_EQ(code.llvm_ir_optimized().find("!nontemporal") != std::string::npos, streaming);
    EXPECT_EQ(code.assembly().find("movntps") != std::string::npos, streaming);
    if (streaming) {
      // The cached variant (the fallback for unaligned outputs) stays scalar; the streaming
      // one is vectorized.
      const std::string& ir = code.llvm_ir_optimized();
      auto body = [&](const std::string& suffix) {
        const size_t begin = ir.find("define void @" + group.function + suffix + "(");
        return begin == std::string::npos ? std::string() : ir.substr(begin, ir.find("\n}\n", begin) - begin);
      };
      EXPECT_THAT(body(".streaming"), HasSubstr("x float>"));
      const std::string cached = body(".cached");
      ASSERT_FALSE(cached.empty());
      EXPECT_THAT(cached, Not(HasSubstr("x float>")));
    }
    auto result = (*exe)->Run(*args);
    ASSERT_TRUE(result.ok()) << result.status().message();
    EXPECT_EQ(*result, *expected);
    // The kernel entry by hand, output aligned (streaming variant) and 4 bytes off a
    // 64-byte boundary (the cached one): same values either way.
    const int64_t n = 96 * 256;
    std::vector<float, LargeBufferAllocator<float>> out(n + 16);
    for (int64_t offset : {0, 1}) {
      SCOPED_TRACE("output offset " + std::to_string(offset));
      std::fill(out.begin(), out.end(), -1.0f);
      void* buffers[4] = {(*args)[0].untyped_data(), (*args)[1].untyped_data(), (*args)[2].untyped_data(),
                          out.data() + offset};
      group.entry(buffers, 0, group.extent);
      EXPECT_EQ(std::memcmp(out.data() + offset, expected->untyped_data(), n * sizeof(float)), 0);
      EXPECT_EQ(out[static_cast<size_t>(n + offset)], -1.0f) << "wrote past the end";
    }
  }
}

TEST(CpuExecutableTest, UnsupportedOpIsAClearCompileError) {
  auto m = ParseOrFail(R"(
HloModule m
ENTRY e {
  a = f32[] parameter(0)
  ROOT f = f32[8] rng(a, a), distribution=rng_uniform
})");
  ASSERT_NE(m, nullptr);
  auto exe = CompileCpu(*m, true);
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(), HasSubstr("rng"));
  EXPECT_THAT(exe.status().message(), HasSubstr("cannot emit"));
}

}  // namespace
}  // namespace fusebox
