// Verifier tests: a clean module per opcode family, then one module per kind of mistake,
// each checked for the message text and the line it points at.
#include "compiler/verifier/verifier.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/parser/parser.h"
#include "compiler/verifier/shape_inference.h"

namespace fusebox {
namespace {

using ::testing::HasSubstr;

constexpr char kFile[] = "test.hlo";

std::unique_ptr<Module> MustParse(std::string_view text) {
  ParseOptions options;
  options.filename = kFile;
  auto m = ParseModule(text, options);
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

Instruction* Find(const Module& m, const std::string& name) {
  for (const auto& c : m.computations()) {
    if (Instruction* i = c->FindInstruction(name)) return i;
  }
  return nullptr;
}

std::vector<VerifierIssue> Issues(const Module& m) {
  VerifierOptions options;
  options.filename = kFile;
  return VerifyModule(m, options);
}

std::string AllMessages(const std::vector<VerifierIssue>& issues) {
  std::string out;
  for (const auto& i : issues) out += i.message + "\n";
  return out;
}

void ExpectClean(std::string_view text) {
  auto m = MustParse(text);
  ASSERT_TRUE(m);
  auto issues = Issues(*m);
  EXPECT_TRUE(issues.empty()) << AllMessages(issues);
}

// An error mentioning `substring`, located at `line` of the text.
::testing::AssertionResult HasErrorAt(const Module& m, std::string_view substring, int line) {
  const std::string where = std::string(kFile) + ":" + std::to_string(line) + ":";
  auto issues = Issues(m);
  for (const auto& i : issues) {
    if (i.severity == VerifierIssue::Severity::kError &&
        i.message.find(substring) != std::string::npos && i.message.rfind(where, 0) == 0) {
      return ::testing::AssertionSuccess();
    }
  }
  return ::testing::AssertionFailure()
         << "no error at line " << line << " containing \"" << substring << "\"; got:\n"
         << AllMessages(issues);
}

void ExpectError(std::string_view text, std::string_view substring, int line) {
  auto m = MustParse(text);
  ASSERT_TRUE(m);
  EXPECT_TRUE(HasErrorAt(*m, substring, line));
  EXPECT_FALSE(Verify(*m).ok());
}

// ---------------------------------------------------------------------------------
// Valid modules, one per opcode family.
// ---------------------------------------------------------------------------------

TEST(VerifierValidTest, Elementwise) {
  ExpectClean(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  i = s32[2,3] parameter(2)
  add = f32[2,3] add(a, b)
  mul = f32[2,3] multiply(add, b)
  cmp = pred[2,3] compare(a, b), direction=LT
  sel = f32[2,3] select(cmp, a, mul)
  sp = pred[] constant(true)
  sel2 = f32[2,3] select(sp, a, b)
  lo = f32[] constant(0)
  hi = f32[] constant(6)
  cl = f32[2,3] clamp(lo, sel, hi)
  cv = s32[2,3] convert(cl)
  an = s32[2,3] and(cv, i)
  sh = s32[2,3] shift-left(an, i)
  fin = pred[2,3] is-finite(a)
  nt = pred[2,3] not(fin)
  c = c64[2,3] complex(a, b)
  re = f32[2,3] real(c)
  ab = f32[2,3] abs(c)
  ex = f32[2,3] exponential(re)
  bc = u8[2,3,4] bitcast-convert(ex)
  back = f32[2,3] bitcast-convert(bc)
  same = s32[2,3] bitcast-convert(back)
  rp = f32[2,3] reduce-precision(ab), exponent_bits=5, mantissa_bits=10
  ROOT t = (f32[2,3], s32[2,3], pred[2,3], f32[2,3], s32[2,3], f32[2,3]) tuple(sel2, sh, nt, rp, same, ex)
}
)");
}

TEST(VerifierValidTest, DataMovement) {
  ExpectClean(R"(HloModule m
ENTRY main {
  p = f32[4,6] parameter(0)
  i = s32[] parameter(1)
  bc = f32[3,4,6] broadcast(p), dimensions={1,2}
  rs = f32[24] reshape(p)
  tr = f32[6,4] transpose(p), dimensions={1,0}
  sl = f32[2,2] slice(p), slice={[0:4:2], [1:6:3]}
  ds = f32[2,3] dynamic-slice(p, i, i), dynamic_slice_sizes={2,3}
  upd = f32[2,3] parameter(2)
  dus = f32[4,6] dynamic-update-slice(p, upd, i, i)
  cc = f32[4,12] concatenate(p, dus), dimensions={1}
  zero = f32[] constant(0)
  pd = f32[9,4] pad(p, zero), padding=1_1_1x0_-2
  io = s32[4,6] iota(), iota_dimension=1
  rv = f32[4,6] reverse(p), dimensions={0,1}
  ROOT t = (f32[3,4,6], f32[24], f32[6,4], f32[2,2], f32[2,3], f32[4,12], f32[9,4], s32[4,6], f32[4,6]) tuple(bc, rs, tr, sl, ds, cc, pd, io, rv)
}
)");
}

TEST(VerifierValidTest, Reductions) {
  ExpectClean(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  v = f32[] select(gt, av, bv)
  i = s32[] select(gt, ai, bi)
  ROOT best = (f32[], s32[]) tuple(v, i)
}
ge {
  g0 = f32[] parameter(0)
  g1 = f32[] parameter(1)
  ROOT g = pred[] compare(g0, g1), direction=GE
}
ENTRY main {
  p = f32[4,6] parameter(0)
  idx = s32[4,6] iota(), iota_dimension=1
  zero = f32[] constant(0)
  izero = s32[] constant(0)
  r = f32[4] reduce(p, zero), dimensions={1}, to_apply=add
  am = (f32[6], s32[6]) reduce(p, idx, zero, izero), dimensions={0}, to_apply=argmax
  rw = f32[2,3] reduce-window(p, zero), window={size=2x2 stride=2x2}, to_apply=add
  src = f32[2,3] parameter(1)
  ss = f32[4,6] select-and-scatter(p, src, zero), window={size=2x2 stride=2x2}, select=ge, scatter=add
  ROOT t = (f32[4], (f32[6], s32[6]), f32[2,3], f32[4,6]) tuple(r, am, rw, ss)
}
)");
}

TEST(VerifierValidTest, DotAndConvolution) {
  ExpectClean(R"(HloModule m
ENTRY main {
  a = f32[8,2,3] parameter(0)
  b = f32[8,3,5] parameter(1)
  d = f32[8,2,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  x = bf16[2,3] parameter(2)
  y = bf16[3,4] parameter(3)
  mixed = f32[2,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  img = f32[1,8,8,4] parameter(4)
  k = f32[3,3,4,16] parameter(5)
  conv = f32[1,4,4,16] convolution(img, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  dk = f32[3,3,1,4] parameter(6)
  depthwise = f32[1,8,8,4] convolution(img, dk), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4
  dil = f32[1,4,4,16] convolution(img, k), window={size=3x3 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[8,2,5], f32[2,4], f32[1,4,4,16], f32[1,8,8,4], f32[1,4,4,16]) tuple(d, mixed, conv, depthwise, dil)
}
)");
}

TEST(VerifierValidTest, GatherAndScatter) {
  ExpectClean(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  operand = f32[5,7] parameter(0)
  indices = s32[3] parameter(1)
  rows = f32[3,7] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7}
  idx2 = s32[2,4,2] parameter(2)
  win = f32[2,4,2,3] gather(operand, idx2), offset_dims={2,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=2, slice_sizes={2,3}
  bop = f32[4,5,7] parameter(3)
  bidx = s32[4,3,1] parameter(4)
  batched = f32[4,3,7] gather(bop, bidx), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,7}
  updates = f32[3,7] parameter(5)
  sc = f32[5,7] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[3,7], f32[2,4,2,3], f32[4,3,7], f32[5,7]) tuple(rows, win, batched, sc)
}
)");
}

TEST(VerifierValidTest, ControlFlowAndCalls) {
  ExpectClean(R"(HloModule m
cond {
  cp = (s32[], f32[4]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  lim = s32[] constant(10)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
body {
  bp = (s32[], f32[4]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bv = f32[4] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  ni = s32[] add(bi, one)
  nv = f32[4] add(bv, bv)
  ROOT bt = (s32[], f32[4]) tuple(ni, nv)
}
neg {
  np = f32[4] parameter(0)
  ROOT n = f32[4] negate(np)
}
id {
  ip = f32[4] parameter(0)
  ROOT c = f32[4] copy(ip)
}
sq {
  mx = f32[] parameter(0)
  ROOT m = f32[] multiply(mx, mx)
}
lt {
  l0 = f32[] parameter(0)
  l1 = f32[] parameter(1)
  l2 = s32[] parameter(2)
  l3 = s32[] parameter(3)
  ROOT r = pred[] compare(l0, l1), direction=LT
}
fused {
  f0 = f32[4] parameter(0)
  f1 = f32[4] parameter(1)
  ROOT fa = f32[4] add(f0, f1)
}
ENTRY main {
  v = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, v)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  wv = f32[4] get-tuple-element(w), index=1
  b = pred[] parameter(1)
  cond1 = f32[4] conditional(b, wv, v), true_computation=neg, false_computation=id
  k = s32[] parameter(2)
  cond2 = f32[4] conditional(k, v, wv, v), branch_computations={neg, id, neg}
  called = f32[4] call(cond1), to_apply=neg
  mapped = f32[4] map(called), dimensions={0}, to_apply=sq
  keys = s32[4] iota(), iota_dimension=0
  sorted = (f32[4], s32[4]) sort(mapped, keys), dimensions={0}, to_apply=lt
  fu = f32[4] fusion(cond2, mapped), kind=kLoop, calls=fused
  ROOT t = ((f32[4], s32[4]), f32[4]) tuple(sorted, fu)
}
)");
}

TEST(VerifierValidTest, LinalgFftBatchNormTopK) {
  ExpectClean(R"(HloModule m
ENTRY main {
  a = f32[2,4,4] parameter(0)
  b = f32[2,4,3] parameter(1)
  ts = f32[2,4,3] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  ch = f32[2,4,4] cholesky(a), lower=true
  r = f32[3,9] parameter(2)
  f = c64[3,5] fft(r), fft_type=RFFT, fft_length={9}
  inv = f32[3,9] fft(f), fft_type=IRFFT, fft_length={9}
  x = f32[8,4] parameter(3)
  sc = f32[4] parameter(4)
  of = f32[4] parameter(5)
  bn = (f32[8,4], f32[4], f32[4]) batch-norm-training(x, sc, of), epsilon=0.001, feature_index=1
  tk = (f32[8,2], s32[8,2]) topk(x), k=2, largest=true
  ROOT t = (f32[2,4,3], f32[2,4,4], f32[3,9], (f32[8,4], f32[4], f32[4]), (f32[8,2], s32[8,2])) tuple(ts, ch, inv, bn, tk)
}
)");
}

TEST(VerifierValidTest, CollectivesTokensAndMisc) {
  ExpectClean(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[8,4] parameter(0)
  ar = f32[8,4] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  ag = f32[8,16] all-gather(p), replica_groups={{0,1,2,3}}, dimensions={1}
  ag2 = f32[32,4] all-gather(p), replica_groups=[2,4]<=[8], dimensions={0}
  rs = f32[4,4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  a2a = f32[8,4] all-to-all(p), replica_groups={{0,1}}, dimensions={0}
  cp = f32[8,4] collective-permute(p), source_target_pairs={{0,1},{1,0}}
  tok = token[] after-all()
  dep = f32[8,4] add-dependency(p, tok)
  pair = (f32[8,4], f32[8,4]) tuple(p, dep)
  ob = (f32[8,4], f32[8,4]) opt-barrier(pair)
  cs = (f32[8,4], f32[8,4], u32[]) copy-start(p)
  cd = f32[8,4] copy-done(cs)
  gds = s32[] get-dimension-size(p), dimensions={1}
  sds = f32[8,<=4] set-dimension-size(p, gds), dimensions={1}
  pid = u32[] partition-id()
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  rn = f32[3,3] rng(lo, hi), distribution=rng_uniform
  ROOT t = (f32[8,4], f32[8,16], f32[32,4], f32[4,4], f32[8,4], f32[8,4], (f32[8,4], f32[8,4]), f32[8,4], f32[8,<=4], u32[], f32[3,3]) tuple(ar, ag, ag2, rs, a2a, cp, ob, cd, sds, pid, rn)
}
)");
}

TEST(VerifierValidTest, EntryLayoutAndAliasing) {
  ExpectClean(
      R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[2,3]{1,0}, s32[])}
ENTRY main {
  a = f32[2,3]{1,0} parameter(0)
  n = s32[] parameter(1)
  neg = f32[2,3]{1,0} negate(a)
  ROOT t = (f32[2,3]{1,0}, s32[]) tuple(neg, n)
}
)");
}

TEST(VerifierValidTest, InferShapeAnswers) {
  auto m = MustParse(R"(HloModule m
ENTRY main {
  p = f32[4,6] parameter(0)
  k = s32[] parameter(1)
  ROOT sl = f32[2,2] slice(p), slice={[1:3], [0:6:4]}
}
)");
  ASSERT_TRUE(m);
  auto shape = InferShape(*Find(*m, "sl"));
  ASSERT_TRUE(shape.ok()) << shape.status().message();
  EXPECT_EQ(shape->ToString(false), "f32[2,2]");
  auto param = InferShape(*Find(*m, "p"));
  EXPECT_EQ(param.status().code(), StatusCode::kUnimplemented);
}

// ---------------------------------------------------------------------------------
// Mistakes: each names the instruction, its computation and its line.
// ---------------------------------------------------------------------------------

TEST(VerifierErrorTest, AddOfDifferentDimensions) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[2] add(a, b)
}
)",
              "add operands have different dimensions: f32[2] and f32[3]", 5);
}

TEST(VerifierErrorTest, MessageFormatNamesComputationAndInstruction) {
  auto m = MustParse(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[2] add(a, b)
}
)");
  ASSERT_TRUE(m);
  auto issues = Issues(*m);
  ASSERT_FALSE(issues.empty());
  EXPECT_THAT(issues[0].message, HasSubstr("test.hlo:5:"));
  EXPECT_THAT(issues[0].message, HasSubstr(": in computation %main, instruction %s: "));
  EXPECT_EQ(issues[0].instruction, Find(*m, "s"));
}

TEST(VerifierErrorTest, AddOfDifferentElementTypes) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[2] parameter(1)
  ROOT s = f32[2] add(a, b)
}
)",
              "different element types: f32[2] and s32[2]", 5);
}

TEST(VerifierErrorTest, DeclaredShapeDiffersFromInferred) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[3] negate(a)
}
)",
              "declared shape f32[3] does not match the inferred shape f32[2]", 4);
}

TEST(VerifierErrorTest, BroadcastWithBadDimensions) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  ROOT b = f32[3,4] broadcast(a), dimensions={1}
}
)",
              "broadcast operand dimension 0 (size 3) maps to result dimension 1 (size 4)", 4);
}

TEST(VerifierErrorTest, ReshapeChangesElementCount) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  ROOT r = f32[7] reshape(a)
}
)",
              "reshape changes the element count: f32[2,3] has 6 elements but f32[7] has 7", 4);
}

TEST(VerifierErrorTest, TransposeWithBadPermutation) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  ROOT t = f32[3,2] transpose(a), dimensions={0,0}
}
)",
              "transpose dimensions={0,0} repeats a dimension", 4);
}

TEST(VerifierErrorTest, SliceOutOfRange) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT s = f32[3] slice(a), slice={[2:5]}
}
)",
              "slice [2:5] is out of range for dimension 0 of f32[4]", 4);
}

TEST(VerifierErrorTest, DotWithMismatchedContractingDims) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[4,5] parameter(1)
  ROOT d = f32[2,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
              "dot contracting dimensions differ: lhs dimension 1 of f32[2,3] is 3 but rhs "
              "dimension 0 of f32[4,5] is 4",
              5);
}

TEST(VerifierErrorTest, ConvolutionWithWrongFeatureCount) {
  ExpectError(R"(HloModule m
ENTRY main {
  img = f32[1,8,8,4] parameter(0)
  k = f32[3,3,5,16] parameter(1)
  ROOT c = f32[1,6,6,16] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
}
)",
              "convolution input has 4 features but the kernel expects 5", 5);
}

TEST(VerifierErrorTest, ReduceWithWrongInitType) {
  ExpectError(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[4,6] parameter(0)
  zero = s32[] constant(0)
  ROOT r = f32[4] reduce(p, zero), dimensions={1}, to_apply=add
}
)",
              "reduce to_apply computation %add accumulates f32[] but init value 0 is s32[]", 10);
}

TEST(VerifierErrorTest, ReduceToApplyWithWrongArity) {
  ExpectError(R"(HloModule m
add3 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  z = f32[] parameter(2)
  xy = f32[] add(x, y)
  ROOT s = f32[] add(xy, z)
}
ENTRY main {
  p = f32[4,6] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4] reduce(p, zero), dimensions={1}, to_apply=add3
}
)",
              "reduce to_apply computation %add3 takes 3 parameter(s) but must take 2", 12);
}

TEST(VerifierErrorTest, GetTupleElementIndexOutOfRange) {
  ExpectError(R"(HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=2
}
)",
              "get-tuple-element index=2 is out of range for (f32[2], s32[]) (2 element(s))", 4);
}

TEST(VerifierErrorTest, ParameterNumberGap) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(2)
  ROOT s = f32[2] add(a, b)
}
)",
              "parameter number 2 leaves a gap: the computation has 2 parameter(s)", 4);
}

TEST(VerifierErrorTest, DuplicateParameterNumber) {
  // The parser rejects duplicates, so build one by editing a parsed module.
  auto m = MustParse(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT s = f32[2] add(a, b)
}
)");
  ASSERT_TRUE(m);
  Find(*m, "b")->set_parameter_number(0);
  EXPECT_TRUE(HasErrorAt(*m, "duplicate parameter number 0: also used by %a (line 3)", 4));
}

TEST(VerifierErrorTest, DuplicateNames) {
  auto m = MustParse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(x, zero), dimensions={0}, to_apply=add
}
)");
  ASSERT_TRUE(m);
  // XLA's text format scopes names per computation, so reusing `x` is fine by default...
  EXPECT_TRUE(Issues(*m).empty()) << AllMessages(Issues(*m));
  // ...and an error when names must be unique module-wide.
  VerifierOptions strict;
  strict.filename = kFile;
  strict.module_unique_instruction_names = true;
  auto issues = VerifyModule(*m, strict);
  ASSERT_EQ(issues.size(), 1u) << AllMessages(issues);
  EXPECT_THAT(issues[0].message, HasSubstr("test.hlo:8:"));
  EXPECT_THAT(issues[0].message,
              HasSubstr("instruction name %x is already used in computation %add (line 3)"));
  // Within one computation, and between computations, a clash is always an error (the
  // parser rejects both, so make them by renaming).
  Find(*m, "zero")->set_name("r");
  EXPECT_TRUE(
      HasErrorAt(*m, "instruction name %r is already used in computation %main (line 9)", 10));
  m->computations()[0]->set_name("main");
  EXPECT_TRUE(HasErrorAt(*m, "computation name %main is already used", 7));
}

TEST(VerifierErrorTest, FusionWithWrongArity) {
  ExpectError(R"(HloModule m
fused {
  f0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(f0)
}
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT f = f32[4] fusion(a, b), kind=kLoop, calls=fused
}
)",
              "fusion computation %fused takes 1 parameter(s) but must take 2", 9);
}

TEST(VerifierErrorTest, FusedComputationWithTwoCallers) {
  ExpectError(R"(HloModule m
fused {
  f0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(f0)
}
ENTRY main {
  a = f32[4] parameter(0)
  f1 = f32[4] fusion(a), kind=kLoop, calls=fused
  ROOT f2 = f32[4] fusion(f1), kind=kLoop, calls=fused
}
)",
              "a fused computation must have one caller", 9);
}

TEST(VerifierErrorTest, WhileBodySignatureMismatch) {
  ExpectError(R"(HloModule m
cond {
  cp = s32[] parameter(0)
  lim = s32[] constant(10)
  ROOT lt = pred[] compare(cp, lim), direction=LT
}
body {
  bp = s32[] parameter(0)
  ROOT f = f32[] convert(bp)
}
ENTRY main {
  zero = s32[] constant(0)
  ROOT w = s32[] while(zero), condition=cond, body=body
}
)",
              "while body %body returns f32[] but the loop state is s32[]", 13);
}

TEST(VerifierErrorTest, ConditionalBranchResultMismatch) {
  ExpectError(R"(HloModule m
br0 {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
br1 {
  y = f32[4] parameter(0)
  ROOT s = f32[2] slice(y), slice={[0:2]}
}
ENTRY main {
  b = pred[] parameter(0)
  v = f32[4] parameter(1)
  ROOT c = f32[4] conditional(b, v, v), true_computation=br0, false_computation=br1
}
)",
              "conditional branch 1 %br1 returns f32[2] but branch 0 %br0 returns f32[4]", 13);
}

TEST(VerifierErrorTest, Cycle) {
  // The parser rejects cycles written in text, so make one by editing a parsed module.
  auto m = MustParse(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] add(p, p)
  b = f32[2] add(a, a)
  ROOT r = f32[2] negate(b)
}
)");
  ASSERT_TRUE(m);
  Find(*m, "a")->ReplaceOperand(1, Find(*m, "b"));
  EXPECT_TRUE(HasErrorAt(*m, "instruction is part of a cycle", 4));
  EXPECT_FALSE(Verify(*m).ok());
}

TEST(VerifierErrorTest, EntryComputationLayoutMismatch) {
  ExpectError(R"(HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}
ENTRY main {
  a = f32[3,2] parameter(0)
  ROOT n = f32[3,2] negate(a)
}
)",
              "entry_computation_layout parameter 0 is f32[2,3] but the parameter is declared "
              "f32[3,2]",
              3);
}

TEST(VerifierErrorTest, EntryComputationLayoutResultMismatch) {
  ExpectError(R"(HloModule m, entry_computation_layout={(f32[2]{0})->s32[2]{0}}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
)",
              "entry_computation_layout result is s32[2] but the entry root is f32[2]", 4);
}

TEST(VerifierErrorTest, SelectWithNonPredPredicate) {
  ExpectError(R"(HloModule m
ENTRY main {
  c = s32[4] parameter(0)
  a = f32[4] parameter(1)
  ROOT s = f32[4] select(c, a, a)
}
)",
              "select predicate must have element type pred, got s32[4]", 5);
}

TEST(VerifierErrorTest, CompareResultNotPred) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT c = f32[4] compare(a, a), direction=EQ
}
)",
              "declared shape f32[4] does not match the inferred shape pred[4]", 4);
}

TEST(VerifierErrorTest, ConcatenateDimensionMismatch) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[2,4] parameter(1)
  ROOT c = f32[4,3] concatenate(a, b), dimensions={0}
}
)",
              "concatenate operands differ in dimension 1 other than the concatenated dimension 0",
              5);
}

TEST(VerifierErrorTest, PadWrongResult) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT p = f32[7] pad(a, z), padding=1_2_1
}
)",
              "declared shape f32[7] does not match the inferred shape f32[8]", 5);
}

TEST(VerifierErrorTest, GatherWrongResultDims) {
  ExpectError(R"(HloModule m
ENTRY main {
  operand = f32[5,7] parameter(0)
  indices = s32[3] parameter(1)
  ROOT g = f32[3,5] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,7}
}
)",
              "declared shape f32[3,5] does not match the inferred shape f32[3,7]", 5);
}

TEST(VerifierErrorTest, ScatterWrongUpdateDims) {
  ExpectError(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  operand = f32[5,7] parameter(0)
  indices = s32[3] parameter(1)
  updates = f32[4,7] parameter(2)
  ROOT sc = f32[5,7] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
              "scatter update dimension 0 of f32[4,7] is 4 but the matching indices dimension of "
              "s32[3] is 3",
              11);
}

TEST(VerifierErrorTest, IotaDimensionOutOfRange) {
  ExpectError(R"(HloModule m
ENTRY main {
  ROOT i = s32[4,5] iota(), iota_dimension=2
}
)",
              "iota_dimension=2 is out of range for s32[4,5]", 3);
}

TEST(VerifierErrorTest, SortOperandDimsDiffer) {
  ExpectError(R"(HloModule m
lt {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  ROOT r = pred[] compare(a0, a1), direction=LT
}
ENTRY main {
  k = f32[4] parameter(0)
  v = s32[5] parameter(1)
  ROOT s = (f32[4], s32[5]) sort(k, v), dimensions={0}, to_apply=lt
}
)",
              "sort operands have different dimensions: f32[4] and s32[5]", 12);
}

TEST(VerifierErrorTest, DynamicSliceWrongOperandCount) {
  ExpectError(R"(HloModule m
ENTRY main {
  p = f32[4,6] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2,2] dynamic-slice(p, i), dynamic_slice_sizes={2,2}
}
)",
              "dynamic-slice expects 3 operands (operand + one start index per dimension of "
              "f32[4,6])",
              5);
}

TEST(VerifierErrorTest, LogicalOpOnFloats) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT x = f32[4] xor(a, a)
}
)",
              "xor expects pred or integer operands, got f32[4]", 4);
}

TEST(VerifierErrorTest, MapToApplyWrongParameterType) {
  ExpectError(R"(HloModule m
neg {
  x = s32[] parameter(0)
  ROOT n = s32[] negate(x)
}
ENTRY main {
  a = f32[4] parameter(0)
  ROOT m = f32[4] map(a), dimensions={0}, to_apply=neg
}
)",
              "map to_apply computation %neg parameter 0 is s32[] but must be f32[]", 8);
}

TEST(VerifierErrorTest, ReduceWindowWrongResult) {
  ExpectError(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[4,6] parameter(0)
  zero = f32[] constant(0)
  ROOT rw = f32[3,3] reduce-window(p, zero), window={size=2x2 stride=2x2}, to_apply=add
}
)",
              "declared shape f32[3,3] does not match the inferred shape f32[2,3]", 10);
}

TEST(VerifierErrorTest, BitcastConvertWidthMismatch) {
  ExpectError(R"(HloModule m
ENTRY main {
  a = u8[2,3] parameter(0)
  ROOT b = f32[2] bitcast-convert(a)
}
)",
              "bitcast-convert from u8[2,3] to f32 needs a last dimension of 4", 4);
}

TEST(VerifierErrorTest, AllGatherWrongGroupSize) {
  ExpectError(R"(HloModule m
ENTRY main {
  p = f32[8,4] parameter(0)
  ROOT ag = f32[8,12] all-gather(p), replica_groups={{0,1}}, dimensions={1}
}
)",
              "declared shape f32[8,12] does not match the inferred shape f32[8,8]", 4);
}

TEST(VerifierErrorTest, InputOutputAliasBadParameter) {
  ExpectError(R"(HloModule m, input_output_alias={ {}: (3, {}, may-alias) }
ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
)",
              "input_output_alias {}: (3, {}): the entry computation has no parameter 3", 2);
}

TEST(VerifierErrorTest, ConstantLiteralShapeMismatch) {
  // The parser checks literals against their shapes, so change the shape afterwards.
  auto m = MustParse(R"(HloModule m
ENTRY main {
  ROOT c = f32[2] constant({1, 2})
  elided = f32[5] constant({...})
}
)");
  ASSERT_TRUE(m);
  EXPECT_TRUE(Issues(*m).empty()) << AllMessages(Issues(*m));
  Find(*m, "c")->set_shape(Shape(PrimitiveType::kF32, {3}));
  EXPECT_TRUE(
      HasErrorAt(*m, "constant literal has shape f32[2] but the instruction declares f32[3]", 3));
}

TEST(VerifierErrorTest, ErrorInNestedComputationNamesIt) {
  ExpectError(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
)",
              "in computation %add, instruction %s: add operands have different element types", 5);
}

TEST(VerifierWarningTest, UnknownAttributeIsAWarning) {
  auto m = MustParse(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a), frobnicate=7, origin={{"x"}}
}
)");
  ASSERT_TRUE(m);
  auto issues = Issues(*m);
  ASSERT_EQ(issues.size(), 1u) << AllMessages(issues);
  EXPECT_EQ(issues[0].severity, VerifierIssue::Severity::kWarning);
  EXPECT_THAT(issues[0].message, HasSubstr("test.hlo:4:"));
  EXPECT_THAT(issues[0].message, HasSubstr("unknown attribute 'frobnicate'"));
  EXPECT_TRUE(Verify(*m).ok());
}

TEST(VerifierTest, VerifyListsErrorsOnePerLine) {
  auto m = MustParse(R"(HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[3] negate(a)
  ROOT c = f32[4] negate(a)
}
)");
  ASSERT_TRUE(m);
  Status s = Verify(*m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("<module>:4:"));
  EXPECT_THAT(s.message(), HasSubstr("\n<module>:5:"));
}

// Shardings must read and fit the shape they split.
TEST(VerifierShardingTest, MalformedOrMisfittingShardingsAreErrors) {
  ExpectError(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,4] parameter(0), sharding={devices=[2,2]0,1}
  ROOT n = f32[8,4] negate(p)
})", "names 4 tiles but the list has 2 devices", 3);
  ExpectError(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,4] parameter(0), sharding={devices=[4]<=[4]}
  ROOT n = f32[8,4] negate(p)
})", "splits 1 dim(s) of a rank-2 array", 3);
  ExpectError(R"(HloModule m, num_partitions=2
ENTRY e {
  p = f32[8] parameter(0)
  ROOT t = (f32[8], f32[8]) tuple(p, p), sharding={{replicated}, {replicated}, {maximal device=0}}
})", "tuple sharding has 3 element(s) for 2 leaves", 4);
  // A partially replicated tiling has its subgroup dim on top of the data dims.
  auto ok = MustParse(R"(HloModule m, num_partitions=4
ENTRY e {
  p = f32[8,4] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  ROOT n = f32[8,4] negate(p), sharding={replicated}
})");
  ASSERT_TRUE(ok);
  EXPECT_EQ(AllMessages(Issues(*ok)), "");
}

}  // namespace
}  // namespace fusebox
