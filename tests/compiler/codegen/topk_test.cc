// topk on both backends: the topk-decomposer pass (large k and 64-bit elements become a
// stable sort and slices), the CPU runtime's selection and the GPU's block-a-row kernel
// (run by the GPU emulator, assembled by ptxas), each bit for bit against the reference
// interpreter on rows full of ties, signed zeros, NaNs and infinities.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/passes/topk_decomposer.h"
#include "compiler/runtime/cpu_executable.h"
#include "compiler/runtime/library_kernels.h"
#include "tests/backend_runs.h"

namespace fusebox {
namespace {

// A topk module over `operand` (e.g. "f32[3,37]").
std::string TopKModule(const std::string& type, const std::vector<int64_t>& dims, int64_t k, bool largest) {
  std::string shape = type + "[", result = type + "[", positions = "s32[";
  for (size_t d = 0; d < dims.size(); ++d) {
    const std::string sep = d == 0 ? "" : ",";
    shape += sep + std::to_string(dims[d]);
    const std::string size = std::to_string(d + 1 == dims.size() ? k : dims[d]);
    result += sep + size;
    positions += sep + size;
  }
  shape += "]";
  result += "]";
  positions += "]";
  return "HloModule topk\n\nENTRY e {\n  x = " + shape + " parameter(0)\n  ROOT t = (" + result + ", " + positions +
         ") topk(x), k=" + std::to_string(k) + ", largest=" + (largest ? "true" : "false") + "\n}\n";
}

// Elements drawn from a few values, so that rows hold many ties: for floats both zeros,
// both infinities, NaNs of both signs, and negative and positive numbers; for integers
// the extremes of the type.
Literal TieHeavyInput(const Shape& shape, uint64_t seed) {
  Literal literal(shape);
  std::mt19937_64 rng(seed);
  const PrimitiveType type = shape.element_type();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> pool;
  if (IsFloat(type)) {
    pool = {0.0, -0.0, 1.5, -1.5, 2.0, -3.25, inf, -inf, 0.5, 7.0, -7.0, 100.0};
  } else if (type == PrimitiveType::kPred) {
    pool = {0, 1};
  } else if (IsSignedInt(type)) {
    const double lo = -std::ldexp(1.0, BitWidth(type) - 1), hi = std::ldexp(1.0, BitWidth(type) - 1) - 1;
    pool = {lo, hi, 0, -1, 1, BitWidth(type) > 4 ? 5.0 : 3.0, BitWidth(type) > 4 ? -5.0 : -3.0};
  } else {
    pool = {0, 1, 5, BitWidth(type) > 4 ? 17.0 : 9.0, std::ldexp(1.0, BitWidth(type)) - 1};
  }
  for (int64_t i = 0; i < literal.element_count(); ++i) {
    const uint64_t pick = rng() % (pool.size() + (IsFloat(type) ? 2 : 0) + 6);
    if (pick < pool.size()) {
      literal.SetDouble(i, pool[pick]);
    } else if (IsFloat(type) && pick < pool.size() + 2) {
      literal.SetDouble(i, pick == pool.size() ? std::nan("") : -std::nan(""));
    } else {
      // Some distinct values too, so that the order is not all ties.
      const double v = static_cast<double>(static_cast<int64_t>(rng() % 2000) - 1000);
      const double span = BitWidth(type) > 4 ? 100 : 8;  // within s4 and u4 too
      literal.SetDouble(i, IsFloat(type) ? v / 8 : (IsSignedInt(type) ? std::fmod(v, span) : std::fabs(std::fmod(v, span))));
    }
  }
  return literal;
}

// Every element of both results the same bits.
void ExpectSameBits(const Literal& actual, const Literal& expected, const std::string& what) {
  ASSERT_TRUE(actual.shape().IsTuple()) << what;
  ASSERT_EQ(actual.tuple_elements().size(), expected.tuple_elements().size()) << what;
  for (size_t t = 0; t < expected.tuple_elements().size(); ++t) {
    const Literal& a = actual.tuple_elements()[t];
    const Literal& e = expected.tuple_elements()[t];
    ASSERT_EQ(a.shape().dimensions(), e.shape().dimensions()) << what;
    int64_t wrong = 0;
    std::string first;
    for (int64_t i = 0; i < e.element_count(); ++i) {
      if (a.GetBits(i) == e.GetBits(i)) continue;
      if (wrong++ == 0) {
        first = (t == 0 ? "value " : t == 1 ? "position " : "workspace byte ") + std::to_string(i) + ": " + a.ElementToString(i) + " instead of " +
                e.ElementToString(i);
      }
    }
    EXPECT_EQ(wrong, 0) << what << ": " << wrong << " of " << e.element_count() << " differ; first " << first;
  }
}

int64_t CountOpcode(const Module& module, Opcode op) {
  int64_t n = 0;
  for (const auto& c : module.computations()) {
    for (const auto& inst : c->instructions()) n += inst->opcode() == op;
  }
  return n;
}

struct Case {
  std::string type;
  std::vector<int64_t> dims;
  int64_t k;
  bool largest;
};

// The CPU backend and the GPU emulator, fused and unfused, against the interpreter.
void ExpectBackendsMatch(const std::string& text, uint64_t seed) {
  SCOPED_TRACE(text);
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args;
  args.push_back(TieHeavyInput((*module)->entry()->parameter(0)->shape(), seed));
  auto expected = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message();
  RunOnBothBackends(**module, args,
                    [&](const Literal& got, const std::string& which) { ExpectSameBits(got, *expected, which); });
}

void ExpectBackendsMatch(const Case& c, uint64_t seed) {
  ExpectBackendsMatch(TopKModule(c.type, c.dims, c.k, c.largest), seed);
}

TEST(TopKTest, KernelsMatchTheInterpreterBitForBit) {
  const std::vector<Case> cases = {
      {"f32", {3, 37}, 5, true},     {"f32", {3, 37}, 5, false},   {"f32", {2, 3, 300}, 16, true},
      {"f32", {4, 16}, 16, true},    {"f32", {5, 9}, 1, false},    {"bf16", {1, 5000}, 10, true},
      {"f16", {6, 40}, 7, false},    {"s32", {3, 100}, 8, true},   {"s32", {3, 100}, 8, false},
      {"s8", {2, 70}, 4, true},      {"u8", {2, 70}, 4, false},    {"u32", {2, 64}, 3, true},
      {"pred", {2, 33}, 5, true},    {"f8e4m3fn", {2, 50}, 6, true}, {"f32", {0, 8}, 2, true},
      {"f32", {3, 8}, 0, true},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) ExpectBackendsMatch(c, seed++);
}

TEST(TopKTest, LargeKAndWideElementsBecomeASort) {
  for (const Case& c : std::vector<Case>{{"f32", {3, 90}, 17, true},
                                         {"f32", {2, 40}, 40, false},
                                         {"f64", {3, 50}, 4, true},
                                         {"s64", {3, 50}, 4, false},
                                         {"u64", {2, 30}, 3, true}}) {
    const std::string text = TopKModule(c.type, c.dims, c.k, c.largest);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    EXPECT_NE(passes::TopKKernelRefusal(*(*module)->entry()->root()), "") << text;
    for (bool gpu : {false, true}) {
      auto optimized = passes::OptimizeForBackend(**module, true, gpu);
      ASSERT_TRUE(optimized.ok()) << optimized.status().message();
      EXPECT_EQ(CountOpcode(**optimized, Opcode::kTopK), 0) << (*optimized)->ToString();
      EXPECT_EQ(CountOpcode(**optimized, Opcode::kSort), 1) << (*optimized)->ToString();
    }
    ExpectBackendsMatch(c, 7);
  }
  // Up to 16 of 32-bit elements keep their kernel.
  auto small = ParseModule(TopKModule("f32", {3, 90}, 16, true));
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(passes::TopKKernelRefusal(*(*small)->entry()->root()), "");
  auto optimized = passes::OptimizeForBackend(**small, true, true);
  ASSERT_TRUE(optimized.ok());
  EXPECT_EQ(CountOpcode(**optimized, Opcode::kTopK), 1);
  EXPECT_EQ(CountOpcode(**optimized, Opcode::kSort), 0);
}

// A jax sampling step's shape: one long row of bf16 logits (XLA's CPU benchmark
// topk_logits_k10_1x50000_bf16), one launch on the GPU.
TEST(TopKTest, OneLongRowIsOneLaunch) {
  ExpectBackendsMatch({"bf16", {1, 50000}, 10, true}, 3);
  auto module = ParseModule(TopKModule("bf16", {1, 50000}, 10, true));
  ASSERT_TRUE(module.ok());
  auto optimized = passes::OptimizeForBackend(**module, true, true);
  ASSERT_TRUE(optimized.ok());
  auto code = codegen::CompileForGpu(**optimized);
  ASSERT_TRUE(code.ok()) << code.status().message();
  ASSERT_EQ((*code)->kernels().size(), 1u);
  const codegen::GpuKernel& kernel = *(*code)->kernels()[0];
  EXPECT_EQ(kernel.kind_name, "topk");
  ASSERT_EQ(kernel.launches.size(), 1u);
  EXPECT_EQ(kernel.launches[0].grid[0], 1);
  EXPECT_EQ(kernel.launches[0].block[0], 256);
  auto ptxas = codegen::FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << "not assembled: " << ptxas.status().message();
  auto assembled = codegen::AssemblePtx((*code)->ptx(), "sm_90");
  ASSERT_TRUE(assembled.ok()) << assembled.status().message();
  ASSERT_EQ(assembled->kernels.size(), 1u);
  // The lists live in registers: no stack, no spills.
  EXPECT_EQ(assembled->kernels[0].stack_frame_bytes, 0);
  EXPECT_EQ(assembled->kernels[0].spill_store_bytes, 0);
}

// XLA's topk as a custom call (its CPU and GPU pipelines write TopK and __gpu$TopK), with
// the comparators XLA gives it: a total-order compare, or the comparison expander's
// integer form over the floats' bits. Both run as Fusebox's topk.
std::string BitsComparator(const std::string& name, const std::string& type, const std::string& bits,
                           const std::string& magnitude, const std::string& direction) {
  return name + " {\n  p0 = " + type + "[] parameter(0)\n  p1 = " + type + "[] parameter(1)\n  zero = " + bits +
         "[] constant(0)\n  mag = " + bits + "[] constant(" + magnitude + ")\n  b0 = " + bits +
         "[] bitcast-convert(p0)\n  n0 = pred[] compare(b0, zero), direction=LT\n  x0 = " + bits +
         "[] xor(mag, b0)\n  k0 = " + bits + "[] select(n0, x0, b0)\n  b1 = " + bits +
         "[] bitcast-convert(p1)\n  n1 = pred[] compare(b1, zero), direction=LT\n  x1 = " + bits +
         "[] xor(b1, mag)\n  k1 = " + bits + "[] select(n1, x1, b1)\n  ROOT c = pred[] compare(k0, k1), direction=" +
         direction + "\n}\n";
}

TEST(TopKTest, XlasTopKCallsRunAsTopK) {
  const std::string gpu_call = "HloModule m\n" + BitsComparator("gt", "f32", "s32", "2147483647", "GT") + R"(
ENTRY e {
  x = f32[6,200] parameter(0)
  ROOT t = (f32[6,8], s32[6,8]) custom-call(x), custom_call_target="__gpu$TopK", api_version=API_VERSION_TYPED_FFI, called_computations={gt}
})";
  const std::string bf16_less = "HloModule m\n" + BitsComparator("lt", "bf16", "s16", "32767", "LT") + R"(
ENTRY e {
  x = bf16[3,300] parameter(0)
  ROOT t = (bf16[3,5], s32[3,5], u8[64]) custom-call(x), custom_call_target="TopK", to_apply=lt
})";
  const std::string total_order = R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(b, a), direction=GT, type=TOTALORDER
}
ENTRY e {
  x = f32[4,64] parameter(0)
  ROOT t = (f32[4,3], s32[4,3]) custom-call(x), custom_call_target="TopK", to_apply=less
})";
  struct CallCase {
    std::string text;
    Case as_topk;  // what the call computes, as a topk instruction
  };
  const std::vector<CallCase> calls = {{gpu_call, {"f32", {6, 200}, 8, true}},
                                       {bf16_less, {"bf16", {3, 300}, 5, false}},
                                       {total_order, {"f32", {4, 64}, 3, false}}};
  for (const CallCase& call : calls) {
    const std::string& text = call.text;
    ExpectBackendsMatch(text, 11);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    // The reference above reads the call as the backends do; here the interpreter's own
    // topk, written as an instruction, on the same input.
    auto plain = ParseModule(TopKModule(call.as_topk.type, call.as_topk.dims, call.as_topk.k, call.as_topk.largest));
    ASSERT_TRUE(plain.ok());
    std::vector<Literal> args;
    args.push_back(TieHeavyInput((*module)->entry()->parameter(0)->shape(), 11));
    auto from_call = interpreter::Interpreter().Run(**module, args);
    auto from_topk = interpreter::Interpreter().Run(**plain, args);
    ASSERT_TRUE(from_call.ok()) << from_call.status().message();
    ASSERT_TRUE(from_topk.ok()) << from_topk.status().message();
    from_call->tuple_elements().resize(2);  // the workspace apart
    ExpectSameBits(*from_call, *from_topk, "the call against topk");
    for (bool gpu : {false, true}) {
      auto optimized = passes::OptimizeForBackend(**module, true, gpu);
      ASSERT_TRUE(optimized.ok()) << optimized.status().message();
      EXPECT_EQ(CountOpcode(**optimized, Opcode::kTopK), 1) << (*optimized)->ToString();
      EXPECT_EQ(CountOpcode(**optimized, Opcode::kCustomCall), 0) << (*optimized)->ToString();
    }
  }
  // largest=false: the smallest first.
  auto less = ParseModule(total_order);
  ASSERT_TRUE(less.ok());
  auto optimized = passes::OptimizeForBackend(**less, true);
  ASSERT_TRUE(optimized.ok());
  for (const auto& inst : (*optimized)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kTopK) {
      EXPECT_EQ(inst->attrs().largest, std::optional<bool>(false));
    }
  }
}

// XLA's own optimized CPU modules of jax.lax.top_k (tests/data/library_calls/README.md):
// the f32 one's TopK call is read as topk, the bf16 one is XLA's sort decomposition.
TEST(TopKTest, XlasOwnTopKModulesRun) {
  for (const char* name : {"xla_cpu_topk_f32_8x1000_k8.hlo", "xla_cpu_topk_bf16_2x3000_k10.hlo"}) {
    std::ifstream file(std::string(FUSEBOX_SOURCE_DIR) + "/tests/data/library_calls/" + name);
    std::stringstream text;
    text << file.rdbuf();
    ASSERT_FALSE(text.str().empty()) << name;
    ExpectBackendsMatch(text.str(), 13);
    auto module = ParseModule(text.str());
    ASSERT_TRUE(module.ok()) << module.status().message();
    auto optimized = passes::OptimizeForBackend(**module, true, true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    const bool is_call = std::string(name).find("f32") != std::string::npos;
    EXPECT_EQ(CountOpcode(**optimized, Opcode::kTopK), is_call ? 1 : 0) << name;
    EXPECT_EQ(CountOpcode(**optimized, Opcode::kSort), is_call ? 0 : 1) << name;
  }
}

// XLA's TopK call with an IEEE greater-than, as jax's lax.approx_max_k on XLA's CPU
// writes it (jax 0.10.2's optimized module): XLA's runtime orders the row in total order
// whatever the comparator says. Its outputs for NaNs of both signs, signed zeros and ties
// (XLA's, below) come out of the interpreter, the CPU backend and the GPU emulator.
TEST(TopKTest, XlasIeeeGreaterThanRunsInTotalOrder) {
  const std::string text = R"(HloModule jit_approx_max_k
%top_k_gt_f32_comparator.1.clone (approx_top_k.0: f32[], approx_top_k.1: f32[], approx_top_k.2: s32[], approx_top_k.3: s32[]) -> pred[] {
  %approx_top_k.0 = f32[] parameter(0)
  %approx_top_k.1 = f32[] parameter(1)
  %approx_top_k.2 = s32[] parameter(2)
  %approx_top_k.3 = s32[] parameter(3)
  ROOT %approx_top_k.4 = pred[] compare(%approx_top_k.0, %approx_top_k.1), direction=GT
}
ENTRY %main.2 (x.1: f32[2,8]) -> (f32[2,5], s32[2,5]) {
  %x.1 = f32[2,8]{1,0} parameter(0)
  ROOT %custom-call = (f32[2,5]{1,0}, s32[2,5]{1,0}) custom-call(%x.1), custom_call_target="TopK", called_computations={%top_k_gt_f32_comparator.1.clone}
})";
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::kF32, {2, 8}));
  const std::vector<float> x = {1.0f, nan, -0.0f, 0.0f, 3.0f, -nan, inf, 2.0f, 0.0f, -0.0f, 0.0f, -1.0f, -inf, -0.0f, 5.0f, 5.0f};
  for (size_t i = 0; i < x.size(); ++i) args[0].SetDouble(static_cast<int64_t>(i), x[i]);
  // XLA: values [[nan inf 3 2 1] [5 5 0 0 -0]], positions [[1 6 4 7 0] [6 7 0 2 1]].
  Literal expected(Shape::Tuple({Shape(PrimitiveType::kF32, {2, 5}), Shape(PrimitiveType::kS32, {2, 5})}));
  const std::vector<float> values = {nan, inf, 3.0f, 2.0f, 1.0f, 5.0f, 5.0f, 0.0f, 0.0f, -0.0f};
  const std::vector<int32_t> positions = {1, 6, 4, 7, 0, 6, 7, 0, 2, 1};
  for (size_t i = 0; i < values.size(); ++i) {
    expected.tuple_elements()[0].SetDouble(static_cast<int64_t>(i), values[i]);
    expected.tuple_elements()[1].SetDouble(static_cast<int64_t>(i), positions[i]);
  }
  auto interpreted = interpreter::Interpreter().Run(**module, args);
  ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
  ExpectSameBits(*interpreted, expected, "interpreter");
  RunOnBothBackends(**module, args, [&](const Literal& got, const std::string& which) { ExpectSameBits(got, expected, which); });
}

// An IEEE less-than (or greater-than of the parameters swapped) is no form of XLA's topk
// and orders NaNs and signed zeros otherwise than topk: no guess, an error naming the
// call, in the interpreter and the compiler alike.
TEST(TopKTest, AComparatorOfAnotherOrderIsAnError) {
  auto module = ParseModule(R"(HloModule m
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4,64] parameter(0)
  ROOT t = (f32[4,3], s32[4,3]) custom-call(x), custom_call_target="TopK", to_apply=gt
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args;
  args.emplace_back((*module)->entry()->parameter(0)->shape());
  auto interpreted = interpreter::Interpreter().Run(**module, args);
  ASSERT_FALSE(interpreted.ok());
  EXPECT_NE(interpreted.status().message().find("custom-call t (TopK): comparator %gt is not a total-order"),
            std::string::npos)
      << interpreted.status().message();
  auto optimized = passes::OptimizeForBackend(**module, true);
  ASSERT_FALSE(optimized.ok());
  EXPECT_NE(optimized.status().message().find("comparator %gt"), std::string::npos) << optimized.status().message();
}

// The CPU runtime's selection also takes what the pipeline hands to a sort (64-bit
// elements, k above 16) and sub-byte types, called directly.
TEST(TopKTest, TheRuntimeSelectsEveryOrderedType) {
  for (const Case& c : std::vector<Case>{{"f64", {3, 70}, 5, true},
                                         {"f64", {2, 70}, 20, false},
                                         {"s64", {3, 40}, 6, false},
                                         {"u64", {2, 40}, 6, true},
                                         {"s4", {2, 30}, 4, true},
                                         {"u4", {2, 30}, 4, false},
                                         {"f32", {2, 1000}, 40, true}}) {
    const std::string text = TopKModule(c.type, c.dims, c.k, c.largest);
    SCOPED_TRACE(text);
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    const Instruction& topk = *(*module)->entry()->root();
    std::vector<Literal> args;
    args.push_back(TieHeavyInput(topk.operand(0)->shape(), 5));
    auto expected = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    Literal actual(topk.shape());
    for (int threads : {1, 2}) {
      Status run = runtime::RunTopK(topk, args[0].untyped_data(), actual.tuple_elements()[0].untyped_data(),
                                    actual.tuple_elements()[1].untyped_data(), threads);
      ASSERT_TRUE(run.ok()) << run.message();
      ExpectSameBits(actual, *expected, "the runtime");
    }
  }
}

TEST(TopKTest, TheRuntimeRefusesWhatItCannotRun) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  x = f8e8m0fnu[2,8] parameter(0)
  ROOT t = (f8e8m0fnu[2,3], s32[2,3]) topk(x), k=3, largest=true
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  const Instruction& topk = *(*module)->entry()->root();
  std::string why;
  EXPECT_FALSE(runtime::CanRunTopK(topk, &why));
  EXPECT_NE(why.find("f8e8m0fnu"), std::string::npos) << why;
  EXPECT_NE(passes::TopKKernelRefusal(topk).find("no order"), std::string::npos);
  // The pass leaves it; each backend names it.
  auto optimized = passes::OptimizeForBackend(**module, true);
  ASSERT_TRUE(optimized.ok());
  EXPECT_EQ(CountOpcode(**optimized, Opcode::kTopK), 1);
  auto gpu = codegen::CompileForGpu(**optimized);
  ASSERT_FALSE(gpu.ok());
  EXPECT_NE(gpu.status().message().find("t: the GPU's topk kernel cannot run it"), std::string::npos)
      << gpu.status().message();
  runtime::CpuExecutableOptions options;
  auto cpu = runtime::CpuExecutable::Create(std::move(*optimized), options);
  if (cpu.ok()) {
    std::vector<Literal> args;
    args.emplace_back((*module)->entry()->parameter(0)->shape());
    auto run = (*cpu)->Run(args);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.status().message().find("f8e8m0fnu"), std::string::npos) << run.status().message();
  } else {
    EXPECT_NE(cpu.status().message().find("t"), std::string::npos) << cpu.status().message();
  }
}

}  // namespace
}  // namespace fusebox
