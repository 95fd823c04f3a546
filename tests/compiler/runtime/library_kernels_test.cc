// The CPU runtime's library kernels (dot, convolution, sort, fft) against the reference
// interpreter: random inputs over many element types, layouts and configurations, then
// every dot and convolution of the bundled examples and the XLA corpus.
#include "compiler/runtime/library_kernels.h"
#include "compiler/runtime/runtime_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compiler/check/numeric_check.h"
#include "compiler/interpreter/index_util.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/ops.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "compiler/verifier/shape_inference.h"
#include "tests/compiler/jax_programs.h"

namespace fusebox {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr double kCorpusFlopLimit = 2e7;  // sanitizers slow the interpreter down ~10x
#else
constexpr double kCorpusFlopLimit = 1e8;
#endif

// ---------------------------------------------------------------------------------------
// Buffers laid out by a shape's layout, and the interpreter as oracle
// ---------------------------------------------------------------------------------------

std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> order;
  if (shape.has_layout() && !shape.layout().minor_to_major.empty()) {
    order = shape.layout().minor_to_major;
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
  }
  std::vector<int64_t> strides(static_cast<size_t>(rank), 0);
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[d] = stride;
    stride *= std::max<int64_t>(shape.dimensions(d), 1);
  }
  return strides;
}

// `literal` (row-major) copied into a buffer laid out as `shape` says.
std::vector<uint8_t> ToBuffer(const Literal& literal, const Shape& shape) {
  const int64_t slot = literal.slot_bytes();
  std::vector<uint8_t> out(static_cast<size_t>(std::max<int64_t>(literal.size_bytes(), 1)));
  const std::vector<int64_t> strides = PhysicalStrides(shape);
  interpreter::ForEachIndex(shape.dimensions(), [&](const std::vector<int64_t>& index, int64_t linear) {
    std::memcpy(out.data() + interpreter::LinearIndex(index, strides) * slot,
                literal.untyped_data() + linear * slot, static_cast<size_t>(slot));
  });
  return out;
}

// A buffer laid out as `shape` says, read back into a row-major literal.
Literal FromBuffer(const std::vector<uint8_t>& buffer, const Shape& shape) {
  Literal literal(shape);
  const int64_t slot = literal.slot_bytes();
  const std::vector<int64_t> strides = PhysicalStrides(shape);
  interpreter::ForEachIndex(shape.dimensions(), [&](const std::vector<int64_t>& index, int64_t linear) {
    std::memcpy(literal.untyped_data() + linear * slot,
                buffer.data() + interpreter::LinearIndex(index, strides) * slot, static_cast<size_t>(slot));
  });
  return literal;
}

StatusOr<Literal> Oracle(const Instruction& inst, const std::vector<Literal>& args) {
  interpreter::Interpreter interpreter;
  interpreter::EvalContext ctx(&interpreter);
  std::vector<const Literal*> operands;
  for (const Literal& arg : args) operands.push_back(&arg);
  if (inst.opcode() == Opcode::kSort) return EvalDataMovement(inst, operands, ctx);
  return EvalReductionAndLinalg(inst, operands, ctx);
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Runs a dot or convolution through its library kernel and the interpreter on random
// inputs and compares. Returns false (after reporting) on a mismatch.
bool CheckInstruction(const Instruction& inst, int threads, uint64_t seed,
                      const std::string& context = "") {
  const std::string where = context + inst.ToString();
  std::vector<Literal> args;
  std::vector<std::vector<uint8_t>> buffers;
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    args.push_back(interpreter::RandomLiteral(inst.operand(i)->shape(), seed * 7919 + i));
    buffers.push_back(ToBuffer(args.back(), inst.operand(i)->shape()));
  }
  // An empty operand makes every sum empty: the result is all zeros. (Checked without the
  // interpreter, whose f32 operand load memcpys from a null pointer when an operand is empty,
  // which UBSan rejects.)
  bool empty_operand = false;
  for (const Literal& arg : args) empty_operand = empty_operand || arg.element_count() == 0;
  StatusOr<Literal> expected =
      empty_operand ? StatusOr<Literal>(Literal(inst.shape())) : Oracle(inst, args);
  if (!expected.ok()) {
    ADD_FAILURE() << "interpreter: " << expected.status().message() << "\n  " << where;
    return false;
  }
  // Poison the result so that an element the kernel never writes shows up.
  std::vector<uint8_t> out(static_cast<size_t>(std::max<int64_t>(expected->size_bytes(), 1)), 0x7d);
  const bool is_dot = inst.opcode() == Opcode::kDot;
  const Status status =
      is_dot ? runtime::RunDot(inst, buffers[0].data(), buffers[1].data(), out.data(), threads)
             : runtime::RunConvolution(inst, buffers[0].data(), buffers[1].data(), out.data(), threads);
  if (!status.ok()) {
    ADD_FAILURE() << "kernel: " << status.message() << "\n  " << where;
    return false;
  }
  const Literal actual = FromBuffer(out, inst.shape());
  const PrimitiveType type = inst.shape().element_type();
  interpreter::CompareOptions options = interpreter::DefaultToleranceFor(type);
  // Float sums of n terms drift apart by reassociation roughly as sqrt(n).
  const int64_t flops = is_dot ? runtime::DotFlops(inst) : runtime::ConvolutionFlops(inst);
  const int64_t elements = std::max<int64_t>(inst.shape().ElementCount(), 1);
  const double terms = std::max(1.0, static_cast<double>(flops) / (2.0 * elements));
  if (type == PrimitiveType::kF32 || type == PrimitiveType::kC64 || type == PrimitiveType::kF64 ||
      type == PrimitiveType::kC128) {
    options.atol *= std::sqrt(terms);
  }
  const interpreter::CompareResult result = CompareLiterals(actual, *expected, options);
  if (!result.ok()) {
    ADD_FAILURE() << result.ToString() << "\n  " << where;
    return false;
  }
  return true;
}

std::unique_ptr<Module> Parse(const std::string& hlo) {
  auto module = ParseModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status().message() << "\n" << hlo;
  return module.ok() ? std::move(*module) : nullptr;
}

// An entry computation of two parameters and `root` (text using %a and %b).
std::string TwoOperandModule(const std::string& a, const std::string& b, const std::string& root) {
  return "HloModule m\nENTRY e {\n  %a = " + a + " parameter(0)\n  %b = " + b +
         " parameter(1)\n  ROOT %r = " + root + "\n}\n";
}

// ---------------------------------------------------------------------------------------
// dot
// ---------------------------------------------------------------------------------------

struct DotCase {
  std::string name;
  std::string lhs, rhs, out;  // shapes with $T for the element type
  std::string dims;           // the dot's attributes
  int threads = 1;
};

const std::vector<DotCase>& DotCases() {
  static const std::vector<DotCase> cases = {
      {"matmul", "$T[17,33]{1,0}", "$T[33,9]{1,0}", "$T[17,9]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"lhs_col_major", "$T[17,33]{0,1}", "$T[33,9]{1,0}", "$T[17,9]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"rhs_col_major", "$T[17,33]{1,0}", "$T[33,9]{0,1}", "$T[17,9]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"all_col_major", "$T[17,33]{0,1}", "$T[33,9]{0,1}", "$T[17,9]{0,1}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"transposed_operands", "$T[33,17]{1,0}", "$T[9,33]{1,0}", "$T[17,9]{0,1}",
       "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
      {"matrix_vector", "$T[12,20]{1,0}", "$T[20]{0}", "$T[12]{0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"vector_matrix", "$T[20]{0}", "$T[20,7]{0,1}", "$T[7]{0}",
       "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      {"vector_vector", "$T[31]{0}", "$T[31]{0}", "$T[]",
       "lhs_contracting_dims={0}, rhs_contracting_dims={0}"},
      {"outer_product", "$T[5]{0}", "$T[6]{0}", "$T[5,6]{0,1}", ""},
      {"non_leading_batch", "$T[5,3,7]{2,1,0}", "$T[7,3,6]{2,1,0}", "$T[3,5,6]{2,1,0}",
       "lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={1}, "
       "rhs_contracting_dims={0}"},
      {"two_contracting_dims", "$T[4,3,5]{2,1,0}", "$T[5,6,3]{2,1,0}", "$T[4,6]{1,0}",
       "lhs_contracting_dims={1,2}, rhs_contracting_dims={2,0}"},
      {"two_contracting_dims_layouts", "$T[4,3,5]{0,2,1}", "$T[5,6,3]{1,0,2}", "$T[4,6]{0,1}",
       "lhs_contracting_dims={2,1}, rhs_contracting_dims={0,2}"},
      {"batches_contractions_and_free_dims", "$T[2,3,4,5,6]{4,3,2,1,0}", "$T[6,3,2,5,7]{4,3,2,1,0}",
       "$T[3,2,4,7]{3,2,1,0}",
       "lhs_batch_dims={1,0}, lhs_contracting_dims={4,3}, rhs_batch_dims={1,2}, "
       "rhs_contracting_dims={0,3}"},
      {"scrambled_layouts", "$T[2,3,4,5,6]{2,0,4,1,3}", "$T[6,3,2,5,7]{0,3,4,1,2}",
       "$T[3,2,4,7]{1,3,0,2}",
       "lhs_batch_dims={1,0}, lhs_contracting_dims={4,3}, rhs_batch_dims={1,2}, "
       "rhs_contracting_dims={0,3}"},
      {"batched_matmul", "$T[6,9,11]{2,1,0}", "$T[6,11,10]{1,2,0}", "$T[6,9,10]{2,1,0}",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}"},
      {"batch_minor_in_memory", "$T[6,9,11]{0,2,1}", "$T[6,11,10]{0,1,2}", "$T[6,9,10]{0,1,2}",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}"},
      {"unit_dims", "$T[1,8,1]{2,1,0}", "$T[1,8,1]{0,1,2}", "$T[1,1,1]{2,1,0}",
       "lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}"},
      {"empty_contraction", "$T[4,0]{1,0}", "$T[0,5]{1,0}", "$T[4,5]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"empty_result", "$T[0,3]{1,0}", "$T[3,5]{1,0}", "$T[0,5]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}"},
      {"threaded_matmul", "$T[130,70]{1,0}", "$T[70,150]{0,1}", "$T[130,150]{1,0}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 4},
      {"threaded_tall", "$T[400,64]{0,1}", "$T[64,40]{1,0}", "$T[400,40]{0,1}",
       "lhs_contracting_dims={1}, rhs_contracting_dims={0}", 3},
      {"threaded_batches", "$T[5,40,48]{2,1,0}", "$T[5,48,40]{2,1,0}", "$T[5,40,40]{1,2,0}",
       "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}",
       8},
      // Both operands transposed against a row-major result: the smallest of the three
      // matrices goes through a transposed scratch (the result, above: attention_context).
      {"transposed_both_lhs_smallest", "$T[3,9]{1,0}", "$T[12,3]{1,0}", "$T[9,12]{1,0}",
       "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
      {"transposed_both_rhs_smallest", "$T[3,12]{1,0}", "$T[9,3]{1,0}", "$T[12,9]{1,0}",
       "lhs_contracting_dims={0}, rhs_contracting_dims={1}"},
      // Attention as jax lowers it: [batch, seq, heads, head_dim] operands batched over
      // dimensions 0 and 2, which straddle the sequence dimension (no single batch stride).
      {"attention_scores", "$T[2,6,3,5]{3,2,1,0}", "$T[2,7,3,5]{3,2,1,0}", "$T[2,3,6,7]{3,2,1,0}",
       "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}"},
      // probs x values with both operands transposed against the result (V^T P^T).
      {"attention_context", "$T[2,7,3,5]{3,2,1,0}", "$T[2,3,6,7]{3,2,1,0}", "$T[2,3,5,6]{3,2,1,0}",
       "lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}"},
      // Batch dimensions listed out of memory order, a column-major result.
      {"attention_batch_swapped", "$T[2,6,3,5]{3,2,1,0}", "$T[3,2,5,7]{3,2,1,0}", "$T[3,2,6,7]{2,3,1,0}",
       "lhs_batch_dims={2,0}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}"},
      {"attention_threaded", "$T[2,33,4,16]{3,2,1,0}", "$T[2,4,33,40]{3,2,1,0}", "$T[2,4,16,40]{3,2,1,0}",
       "lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}", 3},
  };
  return cases;
}

std::string DotModule(const DotCase& c, const std::string& lhs_type, const std::string& rhs_type,
                      const std::string& out_type) {
  const std::string attrs = c.dims.empty() ? "" : ", " + c.dims;
  return TwoOperandModule(Replace(c.lhs, "$T", lhs_type), Replace(c.rhs, "$T", rhs_type),
                          Replace(c.out, "$T", out_type) + " dot(%a, %b)" + attrs);
}

void CheckDotCases(const std::string& lhs_type, const std::string& rhs_type,
                   const std::string& out_type, bool large_cases = true) {
  uint64_t seed = 1;
  for (const DotCase& c : DotCases()) {
    if (!large_cases && c.threads > 1) continue;
    SCOPED_TRACE(c.name + " " + lhs_type + " x " + rhs_type + " -> " + out_type);
    auto module = Parse(DotModule(c, lhs_type, rhs_type, out_type));
    if (module == nullptr) continue;
    CheckInstruction(*module->entry()->root(), c.threads, seed++);
  }
}

class DotTypeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DotTypeTest, MatchesInterpreter) { CheckDotCases(GetParam(), GetParam(), GetParam()); }

INSTANTIATE_TEST_SUITE_P(Types, DotTypeTest,
                         ::testing::Values("f32", "f64", "f16", "bf16", "c64", "c128", "s8", "s16",
                                           "s32", "s64", "u8", "u16", "u32", "u64", "pred",
                                           "f8e4m3fn", "f8e5m2", "s4", "u4", "s2", "f4e2m1fn"),
                         [](const auto& param_info) { return param_info.param; });

struct MixedTypes {
  std::string lhs, rhs, out;
};

class DotMixedTypeTest : public ::testing::TestWithParam<MixedTypes> {};

TEST_P(DotMixedTypeTest, ConvertsOperandsLikeTheInterpreter) {
  CheckDotCases(GetParam().lhs, GetParam().rhs, GetParam().out, /*large_cases=*/false);
}

INSTANTIATE_TEST_SUITE_P(
    Types, DotMixedTypeTest,
    ::testing::Values(MixedTypes{"bf16", "bf16", "f32"}, MixedTypes{"f16", "f16", "f32"},
                      MixedTypes{"f32", "f32", "bf16"}, MixedTypes{"bf16", "f32", "f16"},
                      MixedTypes{"f32", "f32", "f64"}, MixedTypes{"s8", "s8", "s32"},
                      MixedTypes{"u8", "s8", "s32"}, MixedTypes{"s32", "s32", "s8"},
                      MixedTypes{"s64", "u16", "u32"}, MixedTypes{"pred", "pred", "s32"},
                      MixedTypes{"s8", "s16", "pred"}, MixedTypes{"s32", "s32", "f32"},
                      MixedTypes{"f32", "f32", "s32"}, MixedTypes{"f32", "c64", "c64"},
                      MixedTypes{"s8", "f32", "c128"}),
    [](const auto& param_info) {
      const MixedTypes& types = param_info.param;
      return types.lhs + "_" + types.rhs + "_to_" + types.out;
    });

TEST(DotTest, IntegerSumsWrapAroundLikeTheInterpreter) {
  // 200 products of up to 8*8 overflow s8 and u8 many times over.
  for (const std::string type : {"s8", "u8", "s16"}) {
    auto module =
        Parse(TwoOperandModule(type + "[3,200]{1,0}", type + "[200,4]{0,1}",
                               type + "[3,4]{1,0} dot(%a, %b), "
                                      "lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(module, nullptr);
    CheckInstruction(*module->entry()->root(), 1, 3);
  }
}

TEST(DotTest, LargeF32MatmulWithThreadsMatches) {
  auto module = Parse(TwoOperandModule(
      "f32[257,300]{1,0}", "f32[300,263]{1,0}",
      "f32[257,263]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  ASSERT_NE(module, nullptr);
  const Instruction& dot = *module->entry()->root();
  EXPECT_EQ(runtime::DotFlops(dot), 2 * 257 * 263 * 300);
  for (int threads : {1, 2, 5}) CheckInstruction(dot, threads, 11);
}

// The attention einsums run as one batched GEMM call over (batch, head), every operand and
// the result used where it lies: batch dimensions on both sides of the sequence dimension
// are walked by offset, not packed.
TEST(DotTest, AttentionDotsAreBatchedGemmsInPlace) {
  const std::string in_place = "lhs in place, rhs in place, result in place";
  for (const char* name : {"attention_scores", "attention_context", "attention_batch_swapped"}) {
    SCOPED_TRACE(name);
    for (const DotCase& c : DotCases()) {
      if (c.name != name) continue;
      auto module = Parse(DotModule(c, "f32", "f32", "f32"));
      ASSERT_NE(module, nullptr);
      const std::string path = runtime::DotPath(*module->entry()->root());
      EXPECT_EQ(path.rfind("batched GEMM 6 x [", 0), 0u) << path;
      EXPECT_NE(path.find(in_place), std::string::npos) << path;
    }
  }
  // Operands of another type than the result are converted into a packed copy.
  auto mixed = Parse(DotModule(DotCases()[0], "bf16", "bf16", "f32"));
  ASSERT_NE(mixed, nullptr);
  EXPECT_NE(runtime::DotPath(*mixed->entry()->root()).find("lhs packed, rhs packed, result in place"),
            std::string::npos);
  // Contracting dimensions that do not merge into one stride are packed.
  auto split = Parse(TwoOperandModule("f32[4,3,5]{0,2,1}", "f32[5,6,3]{1,0,2}",
                                      "f32[4,6]{0,1} dot(%a, %b), lhs_contracting_dims={2,1}, "
                                      "rhs_contracting_dims={0,2}"));
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(runtime::DotPath(*split->entry()->root()).rfind("GEMM [4x15]*[15x6], lhs packed", 0), 0u)
      << runtime::DotPath(*split->entry()->root());
}

// Random operands of `dot` (seeds 1 and 2) as the buffers RunDot takes.
std::pair<std::vector<uint8_t>, std::vector<uint8_t>> RandomOperandBuffers(const Instruction& dot) {
  return {ToBuffer(interpreter::RandomLiteral(dot.operand(0)->shape(), 1), dot.operand(0)->shape()),
          ToBuffer(interpreter::RandomLiteral(dot.operand(1)->shape(), 2), dot.operand(1)->shape())};
}

// A runner that records what it is given and runs the pieces on threads of its own.
class RecordingRunner : public runtime::ParallelRunner {
 public:
  void Run(int64_t pieces, const Body& body) override {
    ++calls;
    largest = std::max(largest, pieces);
    std::vector<std::thread> threads;
    for (int64_t w = 1; w < pieces; ++w) threads.emplace_back([&, w] { body(w, w + 1, static_cast<int>(w)); });
    body(0, 1, 0);
    for (std::thread& t : threads) t.join();
  }
  int calls = 0;
  int64_t largest = 0;
};

// A batched dot's batches go to the runner lent by the caller (the CPU executable's
// pool), once per call, and nowhere else after the loan ends; the results are those of
// one thread.
TEST(DotTest, BatchesRunOnTheLentRunnerWhileItIsLent) {
  auto module = Parse(TwoOperandModule(
      "s32[6,100,100]{2,1,0}", "s32[6,100,100]{2,1,0}",
      "s32[6,100,100]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_batch_dims={0}, rhs_contracting_dims={1}"));
  ASSERT_NE(module, nullptr);
  const Instruction& dot = *module->entry()->root();
  const auto [ab, bb] = RandomOperandBuffers(dot);
  // 12 MFLOP: three threads' worth (ThreadsFor).
  std::vector<uint8_t> one(6 * 100 * 100 * 4), lent(one.size()), after(one.size());
  ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), one.data(), 1).ok());
  RecordingRunner runner;
  {
    runtime::ScopedParallelRunner scoped(&runner);
    ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), lent.data(), 3).ok());
  }
  EXPECT_EQ(runner.calls, 1);
  EXPECT_EQ(runner.largest, 3);
  EXPECT_EQ(one, lent);
  ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), after.data(), 3).ok());
  EXPECT_EQ(runner.calls, 1);
  EXPECT_EQ(one, after);
}

// One f32 GEMM split over threads: with a runner lent, its bands run there (one
// single-threaded sgemm each where oneDNN is loaded, Eigen otherwise), not on oneDNN's
// own threads; the result is the one-thread result up to the order of float sums.
TEST(DotTest, OneF32GemmRunsAsBandsOnTheLentRunner) {
  auto module = Parse(TwoOperandModule(
      "f32[200,300]{1,0}", "f32[300,256]{1,0}",
      "f32[200,256]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  ASSERT_NE(module, nullptr);
  const Instruction& dot = *module->entry()->root();
  const auto [ab, bb] = RandomOperandBuffers(dot);
  std::vector<float> one(200 * 256), lent(one.size());
  ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), one.data(), 1).ok());
  RecordingRunner runner;
  {
    runtime::ScopedParallelRunner scoped(&runner);
    ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), lent.data(), 2).ok());
  }
  EXPECT_EQ(runner.calls, 1);
  EXPECT_EQ(runner.largest, 2);
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_NEAR(lent[i], one[i], 1e-4f * (1.0f + std::fabs(one[i]))) << i;
  }
}

TEST(DotTest, ThreadCountDoesNotChangeIntegerResults) {
  auto module = Parse(TwoOperandModule(
      "s32[200,300]{0,1}", "s32[300,100]{1,0}",
      "s32[200,100]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  ASSERT_NE(module, nullptr);
  const Instruction& dot = *module->entry()->root();
  const auto [ab, bb] = RandomOperandBuffers(dot);
  std::vector<uint8_t> one(200 * 100 * 4), many(200 * 100 * 4);
  ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), one.data(), 1).ok());
  ASSERT_TRUE(runtime::RunDot(dot, ab.data(), bb.data(), many.data(), 7).ok());
  EXPECT_EQ(one, many);
}

// ---------------------------------------------------------------------------------------
// convolution
// ---------------------------------------------------------------------------------------

struct ConvCase {
  std::string name;
  std::string lhs, rhs;                  // shapes with $T
  std::string attrs;                     // window, dim_labels, group counts
  std::vector<int64_t> out_layout = {};  // minor_to_major of the result; empty: default
  int threads = 1;
};

const std::vector<ConvCase>& ConvCases() {
  static const std::vector<ConvCase> cases = {
      {"1d_valid", "$T[2,11,3]{2,1,0}", "$T[3,3,4]{2,1,0}",
       "window={size=3}, dim_labels=b0f_0io->b0f"},
      {"1d_stride_padding", "$T[2,11,3]{2,1,0}", "$T[4,3,5]{2,1,0}",
       "window={size=4 stride=2 pad=1_2}, dim_labels=b0f_0io->b0f"},
      {"2d_nhwc_same", "$T[2,7,8,5]{3,2,1,0}", "$T[3,3,5,6]{3,2,1,0}",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
      {"2d_nchw_strided", "$T[2,5,7,8]{3,2,1,0}", "$T[6,5,3,3]{3,2,1,0}",
       "window={size=3x3 stride=2x2 pad=0_1x1_0}, dim_labels=bf01_oi01->bf01"},
      {"negative_padding", "$T[2,9,8,3]{3,2,1,0}", "$T[2,3,3,4]{3,2,1,0}",
       "window={size=2x3 pad=-1_2x1_-2}, dim_labels=b01f_01io->b01f"},
      {"lhs_dilation", "$T[1,5,4,3]{3,2,1,0}", "$T[3,3,3,2]{3,2,1,0}",
       "window={size=3x3 pad=2_2x1_1 lhs_dilate=2x3}, dim_labels=b01f_01io->b01f"},
      {"rhs_dilation", "$T[2,12,11,3]{3,2,1,0}", "$T[3,2,3,4]{3,2,1,0}",
       "window={size=3x2 stride=1x2 rhs_dilate=2x3}, dim_labels=b01f_01io->b01f"},
      {"both_dilations_and_stride", "$T[2,6,7,2]{3,2,1,0}", "$T[3,3,2,3]{3,2,1,0}",
       "window={size=3x3 stride=2x3 pad=1_2x0_3 lhs_dilate=2x2 rhs_dilate=2x1}, "
       "dim_labels=b01f_01io->b01f"},
      {"window_reversal", "$T[2,7,6,3]{3,2,1,0}", "$T[3,2,3,4]{3,2,1,0}",
       "window={size=3x2 pad=1_1x0_1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f"},
      {"feature_groups", "$T[2,6,6,6]{3,2,1,0}", "$T[3,3,3,4]{3,2,1,0}",
       "window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
      {"depthwise", "$T[2,8,7,4]{3,2,1,0}", "$T[3,3,1,8]{3,2,1,0}",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=4"},
      {"batch_groups", "$T[4,6,5,3]{3,2,1,0}", "$T[3,2,3,6]{3,2,1,0}",
       "window={size=3x2}, dim_labels=b01f_01io->b01f, batch_group_count=2"},
      {"weight_gradient_batch_groups",
       "$T[3,8,8,4]{3,2,1,0}",
       "$T[3,6,6,8]{3,2,1,0}",
       "window={size=6x6 pad=0_1x1_0}, dim_labels=f01b_i01o->01bf, batch_group_count=4",
       {3, 2, 1, 0}},
      {"scrambled_labels", "$T[5,3,6,2]{3,2,1,0}", "$T[2,3,3,2]{3,2,1,0}",
       "window={size=3x2 stride=1x2 pad=1_0x0_1}, dim_labels=0f1b_o0i1->f01b"},
      {"non_default_layouts",
       "$T[2,7,8,5]{1,0,3,2}",
       "$T[3,3,5,6]{0,3,2,1}",
       "window={size=3x3 stride=2x1 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       {0, 3, 1, 2}},
      {"nchw_layout_nhwc_labels",
       "$T[2,7,8,5]{2,1,3,0}",
       "$T[3,3,5,6]{1,0,2,3}",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       {2, 1, 3, 0}},
      {"3d", "$T[1,5,6,4,2]{4,3,2,1,0}", "$T[2,3,2,2,3]{4,3,2,1,0}",
       "window={size=2x3x2 stride=1x2x1 pad=0_1x1_1x0_0}, dim_labels=b012f_012io->b012f"},
      {"no_spatial_dims", "$T[6,5]{1,0}", "$T[5,4]{0,1}", "dim_labels=bf_io->bf"},
      {"window_larger_than_input", "$T[2,3,3,2]{3,2,1,0}", "$T[5,5,2,3]{3,2,1,0}",
       "window={size=5x5 pad=2_2x3_1}, dim_labels=b01f_01io->b01f"},
      {"no_input_features", "$T[2,5,0]{2,1,0}", "$T[3,0,4]{2,1,0}",
       "window={size=3}, dim_labels=b0f_0io->b0f"},
      {"empty_output", "$T[2,2,3]{2,1,0}", "$T[3,3,4]{2,1,0}",
       "window={size=3}, dim_labels=b0f_0io->b0f"},
      {"threaded_nhwc",
       "$T[4,24,24,16]{3,2,1,0}",
       "$T[3,3,16,24]{3,2,1,0}",
       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
       {},
       3},
      {"threaded_groups_nchw",
       "$T[3,8,20,20]{3,2,1,0}",
       "$T[24,4,3,3]{3,2,1,0}",
       "window={size=3x3 stride=1x1 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, "
       "feature_group_count=2",
       {},
       4},
  };
  return cases;
}

// Parses the case with a placeholder result shape, then gives the convolution the shape
// that shape inference computes, with the case's result layout.
std::unique_ptr<Module> ConvModule(const ConvCase& c, const std::string& lhs_type,
                                   const std::string& rhs_type, const std::string& out_type) {
  auto module =
      Parse(TwoOperandModule(Replace(c.lhs, "$T", lhs_type), Replace(c.rhs, "$T", rhs_type),
                             out_type + "[] convolution(%a, %b), " + c.attrs));
  if (module == nullptr) return nullptr;
  Instruction* conv = module->entry()->root();
  StatusOr<Shape> shape = InferShape(*conv);
  EXPECT_TRUE(shape.ok()) << shape.status().message();
  if (!shape.ok()) return nullptr;
  Shape result = *shape;
  result.set_element_type(*ParsePrimitiveType(out_type));
  if (c.out_layout.empty()) {
    result.SetDefaultLayout();
  } else {
    result.set_layout(Layout(c.out_layout));
  }
  conv->set_shape(result);
  return module;
}

void CheckConvCases(const std::string& lhs_type, const std::string& rhs_type,
                    const std::string& out_type, bool large_cases = true) {
  uint64_t seed = 100;
  for (const ConvCase& c : ConvCases()) {
    if (!large_cases && c.threads > 1) continue;
    SCOPED_TRACE(c.name + " " + lhs_type + " x " + rhs_type + " -> " + out_type);
    auto module = ConvModule(c, lhs_type, rhs_type, out_type);
    if (module == nullptr) continue;
    CheckInstruction(*module->entry()->root(), c.threads, seed++);
  }
}

class ConvolutionTypeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvolutionTypeTest, MatchesInterpreter) {
  const std::string type = GetParam();
  const bool large = type == "f32" || type == "s32" || type == "bf16";
  CheckConvCases(type, type, type, large);
}

INSTANTIATE_TEST_SUITE_P(Types, ConvolutionTypeTest,
                         ::testing::Values("f32", "f64", "f16", "bf16", "c64", "s8", "s32", "s64",
                                           "u8", "u32", "pred", "f8e4m3fn", "s4"),
                         [](const auto& param_info) { return param_info.param; });

TEST(ConvolutionTest, MixedOperandTypesConvertLikeTheInterpreter) {
  CheckConvCases("bf16", "bf16", "f32", false);
  CheckConvCases("s8", "s8", "s32", false);
  CheckConvCases("f32", "f32", "bf16", false);
}

TEST(ConvolutionTest, ThreadCountDoesNotChangeIntegerResults) {
  const ConvCase& c = ConvCases()[ConvCases().size() - 2];  // threaded_nhwc
  auto module = ConvModule(c, "s32", "s32", "s32");
  ASSERT_NE(module, nullptr);
  const Instruction& conv = *module->entry()->root();
  Literal a = interpreter::RandomLiteral(conv.operand(0)->shape(), 1);
  Literal b = interpreter::RandomLiteral(conv.operand(1)->shape(), 2);
  std::vector<uint8_t> ab = ToBuffer(a, conv.operand(0)->shape());
  std::vector<uint8_t> bb = ToBuffer(b, conv.operand(1)->shape());
  const size_t bytes = static_cast<size_t>(conv.shape().ByteSize());
  std::vector<uint8_t> one(bytes), many(bytes);
  ASSERT_TRUE(runtime::RunConvolution(conv, ab.data(), bb.data(), one.data(), 1).ok());
  ASSERT_TRUE(runtime::RunConvolution(conv, ab.data(), bb.data(), many.data(), 5).ok());
  EXPECT_EQ(one, many);
}

// ---------------------------------------------------------------------------------------
// The direct and weight-gradient f32 convolution paths (AVX-512 machines)
// ---------------------------------------------------------------------------------------

bool HasAvx512() {
#if defined(__x86_64__) && defined(__GNUC__)
  return __builtin_cpu_supports("avx512f") != 0;
#else
  return false;
#endif
}

struct PathCase {
  ConvCase conv;
  std::string path;  // the path taken where AVX-512 is available
};

const std::vector<PathCase>& PathCases() {
  static const std::vector<PathCase> cases = {
      // The CIFAR step's convolutions, exactly.
      {{"cifar_forward_3_to_16", "$T[32,32,32,3]{3,2,1,0}", "$T[3,3,3,16]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"cifar_forward_16_to_32", "$T[32,16,16,16]{3,2,1,0}", "$T[3,3,16,32]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"cifar_input_gradient", "$T[32,16,16,32]{3,2,1,0}", "$T[3,3,16,32]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01oi->b01f"},
       "direct"},
      {{"cifar_weight_gradient_1",
        "$T[32,32,32,3]{3,2,1,0}",
        "$T[32,32,32,16]{3,2,1,0}",
        "window={size=32x32 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf",
        {3, 2, 1, 0}},
       "weight-gradient"},
      {{"cifar_weight_gradient_2",
        "$T[32,16,16,16]{3,2,1,0}",
        "$T[32,16,16,32]{3,2,1,0}",
        "window={size=16x16 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf",
        {3, 2, 1, 0}},
       "weight-gradient"},
      // Direct: odd sizes, feature tails, strides, dilation, negative padding, reversal,
      // 1-D, inputs whose features are not minor.
      {{"direct_odd_stride_padding", "$T[3,7,9,5]{3,2,1,0}", "$T[3,2,5,7]{3,2,1,0}",
        "window={size=3x2 stride=2x1 pad=2_1x0_2}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"direct_40_features_dilated", "$T[2,6,11,4]{3,2,1,0}", "$T[2,3,4,40]{3,2,1,0}",
        "window={size=2x3 stride=1x2 pad=-1_1x1_1 rhs_dilate=2x1}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"direct_128_features_reversed", "$T[2,5,6,3]{3,2,1,0}", "$T[3,3,3,128]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"direct_1d", "$T[3,17,6]{2,1,0}", "$T[5,6,20]{2,1,0}",
        "window={size=5 stride=2 pad=2_2}, dim_labels=b0f_0io->b0f"},
       "direct"},
      {{"direct_nchw_input", "$T[2,5,9,8]{3,2,1,0}", "$T[6,5,3,3]{3,2,1,0}",
        "window={size=3x3 pad=1_1x0_0}, dim_labels=bf01_oi01->b01f"},
       "direct"},
      {{"direct_input_layout_feature_major",
        "$T[2,7,8,5]{2,1,3,0}",
        "$T[3,3,5,6]{1,0,2,3}",
        "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        {3, 1, 2, 0}},
       "direct"},
      {{"direct_window_larger_than_input", "$T[2,3,3,2]{3,2,1,0}", "$T[5,5,2,3]{3,2,1,0}",
        "window={size=5x5 pad=2_2x3_1}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"direct_threaded_batch_1",
        "$T[1,23,19,7]{3,2,1,0}",
        "$T[3,3,7,17]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f",
        {},
        3},
       "direct"},
      // Weight gradient: odd sizes, feature tails, strides, dilation, a kernel whose
      // features are not minor, several chunk splits.
      {{"gradient_odd",
        "$T[5,9,7,3]{3,2,1,0}",
        "$T[5,8,6,7]{3,2,1,0}",
        "window={size=8x6 pad=1_0x0_1}, dim_labels=f01b_i01o->01bf",
        {3, 2, 1, 0}},
       "weight-gradient"},
      {{"gradient_33_features_37_chunks",
        "$T[37,10,9,2]{3,2,1,0}",
        "$T[37,9,8,33]{3,2,1,0}",
        "window={size=9x8 pad=1_1x0_1}, dim_labels=f01b_i01o->01bf",
        {3, 2, 1, 0},
        2},
       "weight-gradient"},
      {{"gradient_strided_dilated",
        "$T[16,12,12,1]{3,2,1,0}",
        "$T[16,4,4,5]{3,2,1,0}",
        "window={size=4x4 stride=2x2 rhs_dilate=2x1}, dim_labels=f01b_i01o->01bf",
        {0, 1, 2, 3}},
       "weight-gradient"},
      {{"gradient_kernel_features_major",
        "$T[6,8,8,3]{3,2,1,0}",
        "$T[6,8,8,9]{2,1,0,3}",
        "window={size=8x8 pad=1_1x1_1 rhs_reversal=0x1}, dim_labels=f01b_i01o->01bf",
        {},
        2},
       "weight-gradient"},
      {{"gradient_1d",
        "$T[12,30,2]{2,1,0}",
        "$T[12,28,4]{2,1,0}",
        "window={size=28 pad=1_1}, dim_labels=f0b_i0o->0bf",
        {},
        2},
       "weight-gradient"},
      // Every input column cut away by negative padding: all-zero padded rows.
      {{"direct_all_columns_padding", "$T[1,4,6,2]{3,2,1,0}", "$T[2,2,2,3]{3,2,1,0}",
        "window={size=2x2 pad=0_0x-6_6}, dim_labels=b01f_01io->b01f"},
       "direct"},
      {{"gradient_all_columns_padding", "$T[16,4,6,1]{3,2,1,0}", "$T[16,4,4,3]{3,2,1,0}",
        "window={size=4x4 pad=0_0x-6_6}, dim_labels=f01b_i01o->01bf"},
       "weight-gradient"},
      // Not taken: groups, lhs dilation, 3-D, too many features, result features not minor.
      {{"not_feature_groups", "$T[2,6,6,6]{3,2,1,0}", "$T[3,3,3,4]{3,2,1,0}",
        "window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=2"},
       "im2col"},
      {{"not_batch_groups", "$T[3,8,8,4]{3,2,1,0}", "$T[3,6,6,8]{3,2,1,0}",
        "window={size=6x6 pad=0_1x1_0}, dim_labels=f01b_i01o->01bf, batch_group_count=4"},
       "im2col"},
      {{"not_lhs_dilation", "$T[1,5,4,3]{3,2,1,0}", "$T[3,3,3,2]{3,2,1,0}",
        "window={size=3x3 pad=2_2x1_1 lhs_dilate=2x3}, dim_labels=b01f_01io->b01f"},
       "im2col"},
      {{"not_3d", "$T[1,5,6,4,2]{4,3,2,1,0}", "$T[2,3,2,2,3]{4,3,2,1,0}",
        "window={size=2x3x2}, dim_labels=b012f_012io->b012f"},
       "im2col"},
      {{"not_many_features", "$T[2,6,6,8]{3,2,1,0}", "$T[3,3,8,130]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"},
       "im2col"},
      {{"not_many_gradient_features", "$T[4,8,8,2]{3,2,1,0}", "$T[4,8,8,260]{3,2,1,0}",
        "window={size=8x8 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf"},
       "im2col"},
      {{"not_nchw_result", "$T[2,5,7,8]{3,2,1,0}", "$T[6,5,3,3]{3,2,1,0}",
        "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01"},
       "im2col"},
      {{"not_no_spatial_dims", "$T[6,5]{1,0}", "$T[5,4]{0,1}", "dim_labels=bf_io->bf"}, "im2col"},
  };
  return cases;
}

TEST(ConvolutionPathTest, FastPathsMatchInterpreter) {
  uint64_t seed = 500;
  for (const PathCase& c : PathCases()) {
    std::vector<int> thread_counts = {1, 2};
    if (c.conv.threads > 2) thread_counts.push_back(c.conv.threads);
    for (int threads : thread_counts) {
      SCOPED_TRACE(c.conv.name + " threads=" + std::to_string(threads));
      auto module = ConvModule(c.conv, "f32", "f32", "f32");
      ASSERT_NE(module, nullptr);
      const Instruction& conv = *module->entry()->root();
      EXPECT_EQ(runtime::ConvolutionPath(conv), HasAvx512() ? c.path : std::string("im2col"));
      CheckInstruction(conv, threads, seed++);
    }
  }
}

TEST(ConvolutionPathTest, OtherElementTypesKeepIm2col) {
  for (const char* type : {"f64", "bf16", "f16", "s32"}) {
    auto module = ConvModule(PathCases()[0].conv, type, type, type);
    ASSERT_NE(module, nullptr);
    EXPECT_STREQ(runtime::ConvolutionPath(*module->entry()->root()), "im2col") << type;
  }
  auto mixed = ConvModule(PathCases()[0].conv, "bf16", "bf16", "f32");
  ASSERT_NE(mixed, nullptr);
  EXPECT_STREQ(runtime::ConvolutionPath(*mixed->entry()->root()), "im2col");
}

// The fast paths sum every result element in an order that does not depend on the
// thread count: results are bit-identical for 1, 2 and 3 threads.
TEST(ConvolutionPathTest, ThreadCountDoesNotChangeFastPathResults) {
  for (const PathCase& c : PathCases()) {
    if (c.path == "im2col") continue;
    SCOPED_TRACE(c.conv.name);
    auto module = ConvModule(c.conv, "f32", "f32", "f32");
    ASSERT_NE(module, nullptr);
    const Instruction& conv = *module->entry()->root();
    const Literal a = interpreter::RandomLiteral(conv.operand(0)->shape(), 3);
    const Literal b = interpreter::RandomLiteral(conv.operand(1)->shape(), 4);
    const std::vector<uint8_t> ab = ToBuffer(a, conv.operand(0)->shape());
    const std::vector<uint8_t> bb = ToBuffer(b, conv.operand(1)->shape());
    const size_t bytes = static_cast<size_t>(conv.shape().ByteSize());
    std::vector<uint8_t> one(bytes), two(bytes), three(bytes);
    ASSERT_TRUE(runtime::RunConvolution(conv, ab.data(), bb.data(), one.data(), 1).ok());
    ASSERT_TRUE(runtime::RunConvolution(conv, ab.data(), bb.data(), two.data(), 2).ok());
    ASSERT_TRUE(runtime::RunConvolution(conv, ab.data(), bb.data(), three.data(), 3).ok());
    EXPECT_EQ(one, two);
    EXPECT_EQ(one, three);
  }
}

// An infinite input element reaches the results it feeds and turns none into NaN (the
// zero-padded scratch and the masked feature lanes add only finite zero terms).
TEST(ConvolutionPathTest, InfiniteInputsPropagateWithoutNaN) {
  for (size_t i : {size_t{0}, size_t{3}}) {
    const PathCase& c = PathCases()[i];
    auto module = ConvModule(c.conv, "f32", "f32", "f32");
    ASSERT_NE(module, nullptr);
    const Instruction& conv = *module->entry()->root();
    std::vector<float> in(static_cast<size_t>(conv.operand(0)->shape().ElementCount()), 1.0f);
    std::vector<float> ker(static_cast<size_t>(conv.operand(1)->shape().ElementCount()), 0.5f);
    in[5] = std::numeric_limits<float>::infinity();
    std::vector<float> out(static_cast<size_t>(conv.shape().ElementCount()), -1.0f);
    ASSERT_TRUE(runtime::RunConvolution(conv, in.data(), ker.data(), out.data(), 2).ok());
    int64_t nan = 0, inf = 0;
    for (float v : out) {
      nan += std::isnan(v) ? 1 : 0;
      inf += std::isinf(v) ? 1 : 0;
    }
    EXPECT_EQ(nan, 0) << c.conv.name;
    EXPECT_GT(inf, 0) << c.conv.name;
  }
}

// ---------------------------------------------------------------------------------------
// Every dot and convolution of the examples and the XLA corpus
// ---------------------------------------------------------------------------------------

struct CorpusCounts {
  int files = 0;
  int checked = 0;
  int unsupported = 0;
  int too_large = 0;
  int failed = 0;
  std::vector<std::string> unsupported_reasons;
};

void CheckFile(const std::filesystem::path& path, CorpusCounts* counts) {
  StatusOr<ParseResult> parsed = ParseFile(path.string());
  if (!parsed.ok()) return;  // the corpus holds deliberately malformed files too
  ++counts->files;
  uint64_t seed = 1;
  for (const auto& module : parsed->modules) {
    for (const auto& computation : module->computations()) {
      for (const auto& inst : computation->instructions()) {
        if (inst->opcode() != Opcode::kDot && inst->opcode() != Opcode::kConvolution) continue;
        const bool is_dot = inst->opcode() == Opcode::kDot;
        std::string why;
        if (!(is_dot ? runtime::CanRunDot(*inst, &why) : runtime::CanRunConvolution(*inst, &why))) {
          ++counts->unsupported;
          counts->unsupported_reasons.push_back(path.filename().string() + ": " + why);
          continue;
        }
        const int64_t flops = is_dot ? runtime::DotFlops(*inst) : runtime::ConvolutionFlops(*inst);
        if (static_cast<double>(flops) > kCorpusFlopLimit) {
          ++counts->too_large;
          continue;
        }
        ++counts->checked;
        const std::string where = path.filename().string() + ": ";
        if (!CheckInstruction(*inst, 2, seed++, where)) ++counts->failed;
      }
    }
  }
}

TEST(CorpusTest, EveryDotAndConvolutionMatchesInterpreter) {
  const std::filesystem::path root(FUSEBOX_SOURCE_DIR);
  CorpusCounts counts;
  for (const auto& entry : std::filesystem::directory_iterator(root / "assets/examples")) {
    if (entry.path().extension() == ".hlo") CheckFile(entry.path(), &counts);
  }
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root / "tests/data/xla_corpus")) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".hlo" || ext == ".txt") &&
        entry.path().filename() != "README.md") {
      CheckFile(entry.path(), &counts);
    }
  }
  EXPECT_GT(counts.checked, 20);
  EXPECT_EQ(counts.failed, 0);
  std::printf("corpus: %d files, %d dots/convolutions checked, %d unsupported, %d too large\n",
              counts.files, counts.checked, counts.unsupported, counts.too_large);
  for (const std::string& reason : counts.unsupported_reasons) {
    std::printf("  unsupported: %s\n", reason.c_str());
  }
}

// ---------------------------------------------------------------------------------------
// sort
// ---------------------------------------------------------------------------------------

template <typename T>
T At(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Comparators as the runtime would get them: C++ functions over element pointers.
bool F32Less(const void* const* args, void* context) {
  if (context != nullptr) ++*static_cast<int64_t*>(context);
  return At<float>(args[0]) < At<float>(args[1]);
}
bool S32GreaterKeysOnly(const void* const* args, void*) {
  return At<int32_t>(args[0]) > At<int32_t>(args[1]);
}
bool S32LessThenF32Less(const void* const* args, void*) {
  const int32_t a = At<int32_t>(args[0]), b = At<int32_t>(args[1]);
  if (a != b) return a < b;
  return At<float>(args[2]) < At<float>(args[3]);
}
bool U8LessKeysOnly(const void* const* args, void*) {
  return At<uint8_t>(args[0]) < At<uint8_t>(args[1]);
}

struct SortCase {
  std::string name;
  std::string hlo;
  runtime::SortComparator comparator;
};

const char kF32LessComputation[] =
    "%cmp (p0: f32[], p1: f32[]) -> pred[] {\n  %p0 = f32[] parameter(0)\n"
    "  %p1 = f32[] parameter(1)\n  ROOT %lt = pred[] compare(%p0, %p1), direction=LT\n}\n";

std::vector<SortCase> SortCases() {
  const std::string keys_values_greater =
      "%cmp (p0: s32[], p1: s32[], p2: f32[], p3: f32[]) -> pred[] {\n"
      "  %p0 = s32[] parameter(0)\n  %p1 = s32[] parameter(1)\n  %p2 = f32[] parameter(2)\n"
      "  %p3 = f32[] parameter(3)\n  ROOT %gt = pred[] compare(%p0, %p1), direction=GT\n}\n";
  const std::string lexicographic =
      "%cmp (p0: s32[], p1: s32[], p2: f32[], p3: f32[]) -> pred[] {\n"
      "  %p0 = s32[] parameter(0)\n  %p1 = s32[] parameter(1)\n  %p2 = f32[] parameter(2)\n"
      "  %p3 = f32[] parameter(3)\n  %lt0 = pred[] compare(%p0, %p1), direction=LT\n"
      "  %eq0 = pred[] compare(%p0, %p1), direction=EQ\n"
      "  %lt1 = pred[] compare(%p2, %p3), direction=LT\n"
      "  %both = pred[] and(%eq0, %lt1)\n  ROOT %or = pred[] or(%lt0, %both)\n}\n";
  const std::string three_operands =
      "%cmp (p0: u8[], p1: u8[], p2: f64[], p3: f64[], p4: pred[], p5: pred[]) -> pred[] {\n"
      "  %p0 = u8[] parameter(0)\n  %p1 = u8[] parameter(1)\n  %p2 = f64[] parameter(2)\n"
      "  %p3 = f64[] parameter(3)\n  %p4 = pred[] parameter(4)\n  %p5 = pred[] parameter(5)\n"
      "  ROOT %lt = pred[] compare(%p0, %p1), direction=LT\n}\n";
  return {
      {"f32_last_dim",
       std::string("HloModule s\n") + kF32LessComputation +
           "ENTRY %e {\n  %x = f32[3,50]{1,0} parameter(0)\n"
           "  ROOT %s = f32[3,50]{1,0} sort(%x), dimensions={1}, to_apply=%cmp\n}\n",
       &F32Less},
      {"f32_first_dim",
       std::string("HloModule s\n") + kF32LessComputation +
           "ENTRY %e {\n  %x = f32[40,3]{1,0} parameter(0)\n"
           "  ROOT %s = f32[40,3]{1,0} sort(%x), dimensions={0}, to_apply=%cmp\n}\n",
       &F32Less},
      {"f32_middle_dim_column_major",
       std::string("HloModule s\n") + kF32LessComputation +
           "ENTRY %e {\n  %x = f32[4,37,5]{0,2,1} parameter(0)\n"
           "  ROOT %s = f32[4,37,5]{0,2,1} sort(%x), dimensions={1}, to_apply=%cmp\n}\n",
       &F32Less},
      {"f32_long_rows",
       std::string("HloModule s\n") + kF32LessComputation +
           "ENTRY %e {\n  %x = f32[2,1000]{1,0} parameter(0)\n"
           "  ROOT %s = f32[2,1000]{1,0} sort(%x), dimensions={1}, to_apply=%cmp\n}\n",
       &F32Less},
      {"keys_values_stable_descending",
       "HloModule s\n" + keys_values_greater +
           "ENTRY %e {\n  %k = s32[6,70]{1,0} parameter(0)\n  %v = f32[6,70]{1,0} parameter(1)\n"
           "  ROOT %s = (s32[6,70]{1,0}, f32[6,70]{1,0}) sort(%k, %v), dimensions={1}, "
           "is_stable=true, to_apply=%cmp\n}\n",
       &S32GreaterKeysOnly},
      {"keys_values_unstable_flag_first_dim",
       "HloModule s\n" + keys_values_greater +
           "ENTRY %e {\n  %k = s32[70,6]{0,1} parameter(0)\n  %v = f32[70,6]{1,0} parameter(1)\n"
           "  ROOT %s = (s32[70,6]{0,1}, f32[70,6]{1,0}) sort(%k, %v), dimensions={0}, "
           "to_apply=%cmp\n}\n",
       &S32GreaterKeysOnly},
      {"lexicographic_two_keys",
       "HloModule s\n" + lexicographic +
           "ENTRY %e {\n  %k = s32[3,9,33]{2,1,0} parameter(0)\n"
           "  %v = f32[3,9,33]{1,2,0} parameter(1)\n"
           "  ROOT %s = (s32[3,9,33]{2,1,0}, f32[3,9,33]{1,2,0}) sort(%k, %v), dimensions={2}, "
           "is_stable=true, to_apply=%cmp\n}\n",
       &S32LessThenF32Less},
      {"three_operands_mixed_widths",
       "HloModule s\n" + three_operands +
           "ENTRY %e {\n  %k = u8[5,64]{1,0} parameter(0)\n  %v = f64[5,64]{0,1} parameter(1)\n"
           "  %w = pred[5,64]{1,0} parameter(2)\n"
           "  ROOT %s = (u8[5,64]{1,0}, f64[5,64]{0,1}, pred[5,64]{1,0}) sort(%k, %v, %w), "
           "dimensions={1}, is_stable=true, to_apply=%cmp\n}\n",
       &U8LessKeysOnly},
  };
}

TEST(SortTest, MatchesInterpreter) {
  uint64_t seed = 7;
  for (const SortCase& c : SortCases()) {
    SCOPED_TRACE(c.name);
    auto module = Parse(c.hlo);
    ASSERT_NE(module, nullptr);
    const Instruction& sort = *module->entry()->root();
    std::string why;
    ASSERT_TRUE(runtime::CanRunSort(sort, &why)) << why;
    std::vector<Literal> args;
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<void*> pointers;
    for (int64_t k = 0; k < sort.operand_count(); ++k) {
      const Shape& buffer_shape =
          sort.shape().IsTuple() ? sort.shape().tuple_shapes(k) : sort.shape();
      args.push_back(interpreter::RandomLiteral(sort.operand(k)->shape(), seed++));
      buffers.push_back(ToBuffer(args.back(), buffer_shape));
    }
    for (auto& b : buffers) pointers.push_back(b.data());
    StatusOr<Literal> expected = Oracle(sort, args);
    ASSERT_TRUE(expected.ok()) << expected.status().message();
    int64_t comparisons = 0;
    const Status status = runtime::RunSort(sort, pointers, c.comparator, &comparisons);
    ASSERT_TRUE(status.ok()) << status.message();
    for (int64_t k = 0; k < sort.operand_count(); ++k) {
      const Shape& buffer_shape =
          sort.shape().IsTuple() ? sort.shape().tuple_shapes(k) : sort.shape();
      const Literal& want = sort.shape().IsTuple() ? expected->tuple_elements()[k] : *expected;
      interpreter::CompareOptions exact;
      exact.atol = 0;
      exact.rtol = 0;
      const interpreter::CompareResult result =
          CompareLiterals(FromBuffer(buffers[k], buffer_shape), want, exact);
      EXPECT_TRUE(result.ok()) << "operand " << k << ": " << result.ToString();
    }
    if (c.comparator == &F32Less) {
      EXPECT_GT(comparisons, 0);  // the context reaches the comparator
    }
  }
}

TEST(SortTest, NaNsAndAnInconsistentComparatorStillGiveAPermutation) {
  auto module = Parse(std::string("HloModule s\n") + kF32LessComputation +
                      "ENTRY %e {\n  %x = f32[300]{0} parameter(0)\n"
                      "  ROOT %s = f32[300]{0} sort(%x), dimensions={0}, to_apply=%cmp\n}\n");
  ASSERT_NE(module, nullptr);
  std::vector<float> values(300);
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = i % 7 == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(i % 13);
  }
  std::vector<float> sorted = values;
  std::vector<void*> pointers = {sorted.data()};
  ASSERT_TRUE(runtime::RunSort(*module->entry()->root(), pointers, &F32Less, nullptr).ok());
  auto key = [](float v) { return std::isnan(v) ? 1e9f : v; };
  std::vector<float> a, b;
  for (float v : values) a.push_back(key(v));
  for (float v : sorted) b.push_back(key(v));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  // A comparator that answers at random must not break the sort either.
  auto coin = [](const void* const*, void* state) {
    uint64_t& s = *static_cast<uint64_t*>(state);
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (s >> 62) != 0;
  };
  uint64_t state = 1;
  ASSERT_TRUE(runtime::RunSort(*module->entry()->root(), pointers, +coin, &state).ok());
  b.clear();
  for (float v : sorted) b.push_back(key(v));
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

// ---------------------------------------------------------------------------------------
// Errors: a Status naming the op and the type, never a crash
// ---------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------
// fft (FFTW)
// ---------------------------------------------------------------------------------------

struct FftCase {
  std::string operand, result;  // shapes, with layouts where they are not row-major
  std::string type;             // FFT, IFFT, RFFT, IRFFT
  std::string lengths;          // fft_length's list
  int threads = 1;
};

// Runs the fft through FFTW and the interpreter's own transform on random inputs; the
// result buffer is poisoned first so that an element never written shows.
void CheckFft(const FftCase& c, uint64_t seed) {
  const std::string hlo = "HloModule m\nENTRY e {\n  %a = " + c.operand + " parameter(0)\n  ROOT %r = " + c.result +
                          " fft(%a), fft_type=" + c.type + ", fft_length={" + c.lengths + "}\n}\n";
  auto module = Parse(hlo);
  ASSERT_NE(module, nullptr);
  const Instruction& fft = *module->entry()->root();
  const std::string where = fft.ToString() + " threads=" + std::to_string(c.threads);
  std::string why;
  ASSERT_TRUE(runtime::CanRunFft(fft, &why)) << why << "\n  " << where;
  const Shape& in_shape = fft.operand(0)->shape();
  std::vector<Literal> args = {interpreter::RandomLiteral(in_shape, seed)};
  const std::vector<uint8_t> in = ToBuffer(args[0], in_shape);
  StatusOr<Literal> expected = Oracle(fft, args);
  ASSERT_TRUE(expected.ok()) << expected.status().message() << "\n  " << where;
  std::vector<uint8_t> out(static_cast<size_t>(std::max<int64_t>(expected->size_bytes(), 1)), 0x7d);
  const Status status = runtime::RunFft(fft, in.data(), out.data(), c.threads);
  ASSERT_TRUE(status.ok()) << status.message() << "\n  " << where;
  const Literal actual = FromBuffer(out, fft.shape());
  // Rounding grows about as log2(N) times the values' scale, sqrt(N) for random inputs.
  double points = 1;
  for (int64_t n : fft.attrs().fft_length) points *= static_cast<double>(n);
  const PrimitiveType type = fft.shape().element_type();
  interpreter::CompareOptions options = interpreter::DefaultToleranceFor(type);
  const bool inverse = c.type == "IFFT" || c.type == "IRFFT";
  options.atol *= std::log2(std::max(2.0, points)) * (inverse ? 1.0 : std::sqrt(points));
  const interpreter::CompareResult result = CompareLiterals(actual, *expected, options);
  EXPECT_TRUE(result.ok()) << result.ToString() << "\n  " << where;
}

TEST(FftTest, EveryTypeMatchesTheInterpreter) {
  const std::vector<FftCase> cases = {
      {"c64[3,8]", "c64[3,8]", "FFT", "8"},
      {"c64[4,12]", "c64[4,12]", "IFFT", "12"},
      {"c64[2,6,5]", "c64[2,6,5]", "FFT", "6,5"},
      {"c128[2,4,3,5]", "c128[2,4,3,5]", "IFFT", "4,3,5"},
      {"c64[131]", "c64[131]", "FFT", "131"},  // a prime, no batch
      {"f32[5,16]", "c64[5,9]", "RFFT", "16"},
      {"f32[3,7]", "c64[3,4]", "RFFT", "7"},
      {"f32[2,6,10]", "c64[2,6,6]", "RFFT", "6,10"},
      {"f64[2,3,4,8]", "c128[2,3,4,5]", "RFFT", "3,4,8"},
      {"c64[5,9]", "f32[5,16]", "IRFFT", "16"},
      {"c64[3,4]", "f32[3,7]", "IRFFT", "7"},
      {"c64[2,6,6]", "f32[2,6,10]", "IRFFT", "6,10"},
      {"c128[2,3,4,5]", "f64[2,3,4,8]", "IRFFT", "3,4,8"},
      {"c64[1,1]", "c64[1,1]", "FFT", "1"},
      {"f32[0,8]", "c64[0,5]", "RFFT", "8"},  // an empty batch writes nothing
  };
  uint64_t seed = 1;
  for (const FftCase& c : cases) CheckFft(c, seed++);
}

// Operands and results laid out otherwise than row-major run through FFTW's strides.
TEST(FftTest, LayoutsAreReadAndWrittenInPlace) {
  CheckFft({"c64[4,8]{0,1}", "c64[4,8]{1,0}", "FFT", "8"}, 21);
  CheckFft({"c64[4,8]{1,0}", "c64[4,8]{0,1}", "IFFT", "8"}, 22);
  CheckFft({"f32[3,5,6]{0,2,1}", "c64[3,5,4]{1,0,2}", "RFFT", "5,6"}, 23);
  CheckFft({"c64[3,5,4]{0,1,2}", "f32[3,5,6]{2,0,1}", "IRFFT", "5,6"}, 24);
}

// The batch split across threads gives each share its own plan (two extents at most);
// each of these is enough work for every thread (ThreadsFor: 4 MFLOP a thread).
TEST(FftTest, BatchesSplitAcrossThreads) {
  CheckFft({"f32[1001,512]", "c64[1001,257]", "RFFT", "512", 4}, 31);
  CheckFft({"c64[999,257]", "f32[999,512]", "IRFFT", "512", 3}, 32);
  CheckFft({"c64[41,64,64]", "c64[41,64,64]", "FFT", "64,64", 2}, 33);
  // The same shapes again reuse the cached plans.
  CheckFft({"f32[1001,512]", "c64[1001,257]", "RFFT", "512", 4}, 34);
}

TEST(FftTest, ShapesThatDoNotFitAreErrorsNamingTheFft) {
  int reached = 0;
  for (const auto& [operand, result, type, lengths] : std::vector<std::array<std::string, 4>>{
           {"c64[4,8]", "c64[4,8]", "FFT", "4"},        // fft_length is not the operand's
           {"f32[4,8]", "c64[4,8]", "RFFT", "8"},       // the result's last dimension is 5
           {"f16[4,8]", "c64[4,5]", "RFFT", "8"},       // FFTW has no f16
           {"c64[4,8]", "c128[4,8]", "FFT", "8"}}) {    // the types must agree
    // The verifier would refuse most of these: build them unverified.
    const std::string hlo = "HloModule m\nENTRY e {\n  %a = " + operand + " parameter(0)\n  ROOT %r = " + result +
                            " fft(%a), fft_type=" + type + ", fft_length={" + lengths + "}\n}\n";
    auto module = ParseModule(hlo);
    if (!module.ok()) continue;  // refused before it could reach the runtime: fine too
    ++reached;
    std::string why;
    EXPECT_FALSE(runtime::CanRunFft(*(*module)->entry()->root(), &why)) << hlo;
    EXPECT_NE(why.find("fft %r"), std::string::npos) << why;
    uint8_t buffer[512] = {};
    EXPECT_FALSE(runtime::RunFft(*(*module)->entry()->root(), buffer, buffer, 1).ok()) << hlo;
  }
  EXPECT_GT(reached, 0);
}

// ---------------------------------------------------------------------------------------
// LAPACK (jax's lapack_*_ffi calls on literals: the CPU backend's check reference)
// ---------------------------------------------------------------------------------------

// One call of `target` on `type` matrices (the result's leaves in `result` with $T).
std::unique_ptr<Module> LapackModule(const std::string& target, const std::string& type, const std::string& operand,
                                     const std::string& result, const std::string& config) {
  return Parse("HloModule m\nENTRY e {\n  %a = " + Replace(operand, "$T", type) + " parameter(0)\n  ROOT %r = " +
               Replace(result, "$T", type) + " custom-call(%a), custom_call_target=\"" + target +
               "\", api_version=API_VERSION_TYPED_FFI, backend_config={" + config + "}\n}\n");
}

// The largest |x - y| over two f64/f32 leaves of the same dimensions, read as doubles.
double LargestDifference(const Literal& x, const Literal& y) {
  double most = 0;
  for (int64_t i = 0; i < x.element_count(); ++i) most = std::max(most, std::abs(x.GetDouble(i) - y.GetDouble(i)));
  return most;
}

// The largest |x - y| over two leaves of the same dimensions, read as complex numbers.
double LargestComplexDifference(const Literal& x, const Literal& y) {
  double most = 0;
  for (int64_t i = 0; i < x.element_count(); ++i) most = std::max(most, std::abs(x.GetComplex(i) - y.GetComplex(i)));
  return most;
}

// The f32 call (`f32`, on `narrow_in`), its f64 shadow (`shadow`: the s target on f64
// operands) and the d routine alone (`f64`) on the same values widened, through
// RunLapackOnLiterals: {narrow, wide, plain}, or none after reporting a failure.
std::vector<Literal> RunShadowTriple(const Module& f32, const Module& shadow, const Module& f64, const Literal& narrow_in) {
  Literal wide_in(shadow.entry()->parameter(0)->shape());
  const bool complex = narrow_in.shape().element_type() == PrimitiveType::kC64;
  for (int64_t i = 0; i < narrow_in.element_count(); ++i) {
    if (complex) {
      wide_in.SetComplex(i, narrow_in.GetComplex(i));
    } else {
      wide_in.SetDouble(i, narrow_in.GetDouble(i));
    }
  }
  std::vector<Literal> runs;
  for (const auto& [module, in] : std::vector<std::pair<const Module*, const Literal*>>{
           {&f32, &narrow_in}, {&shadow, &wide_in}, {&f64, &wide_in}}) {
    StatusOr<Literal> run = runtime::RunLapackOnLiterals(*module->entry()->root(), {in});
    EXPECT_TRUE(run.ok()) << run.status().message();
    if (!run.ok()) return {};
    runs.push_back(std::move(*run));
  }
  return runs;
}

// The f64 shadow of an f32 call (an s routine's target with f64 operands) runs the d
// routine, whose eigen- and singular vectors often have the other sign (about 4 in 10 of
// these random symmetric 10x10 matrices): each vector takes the s routine's sign, so the
// shadow measures the f32 call's rounding, not a sign.
TEST(LapackTest, TheF64ShadowOfAnF32CallKeepsItsVectorsSigns) {
  struct Case {
    std::string routine, operand, result, config;
    std::vector<int> vectors;  // the leaves that hold vectors
  };
  const std::vector<Case> cases = {
      {"syevd", "$T[4,10,10]", "($T[4,10,10], $T[4,10], s32[4])", "mode = 86 : ui8, uplo = 76 : ui8", {0}},
      {"gesdd", "$T[3,9,7]", "($T[3,9,7], $T[3,7], $T[3,9,7], $T[3,7,7], s32[3])", "mode = 83 : ui8", {2, 3}}};
  for (const Case& c : cases) {
    const std::string s_target = "lapack_s" + c.routine + "_ffi", d_target = "lapack_d" + c.routine + "_ffi";
    auto f32 = LapackModule(s_target, "f32", c.operand, c.result, c.config);
    auto shadow = LapackModule(s_target, "f64", c.operand, c.result, c.config);
    auto f64 = LapackModule(d_target, "f64", c.operand, c.result, c.config);
    ASSERT_TRUE(f32 && shadow && f64);
    Literal narrow_in = interpreter::RandomLiteral(f32->entry()->parameter(0)->shape(), 5);
    if (c.routine == "syevd") {
      // Symmetric: the lower triangle is what LAPACK reads, the upper what it would.
      const std::vector<int64_t>& d = narrow_in.shape().dimensions();
      for (int64_t b = 0; b < d[0]; ++b) {
        for (int64_t i = 0; i < d[1]; ++i) {
          for (int64_t j = 0; j < i; ++j) narrow_in.SetDouble((b * d[1] + j) * d[2] + i, narrow_in.GetDouble((b * d[1] + i) * d[2] + j));
        }
      }
    }
    std::vector<Literal> runs = RunShadowTriple(*f32, *shadow, *f64, narrow_in);
    ASSERT_EQ(runs.size(), 3u);
    const Literal *narrow = &runs[0], *wide = &runs[1], *plain = &runs[2];
    for (int leaf : c.vectors) {
      EXPECT_LT(LargestDifference(wide->tuple_elements()[leaf], narrow->tuple_elements()[leaf]), 1e-4)
          << c.routine << " leaf " << leaf << ": the shadow's vectors are the f32 call's, to its rounding";
      EXPECT_GT(LargestDifference(plain->tuple_elements()[leaf], narrow->tuple_elements()[leaf]), 0.1)
          << c.routine << " leaf " << leaf << ": the d routine alone picks other signs here (else this test shows nothing)";
    }
    // The values are the same either way.
    EXPECT_LT(LargestDifference(wide->tuple_elements()[1], narrow->tuple_elements()[1]), 1e-4) << c.routine;
  }
}

// Runs the module's root LAPACK call through RunLapack on buffers laid out as its
// parameters and result say (a poisoned result, so that an element never written shows)
// and through the interpreter, which runs the plain HLO the call stands for; compares.
// Returns what RunLapack wrote, one literal per result leaf (none when it failed).
std::vector<Literal> CheckLapackCall(const Module& module, const std::vector<Literal>& args, int threads,
                                     const std::string& where, bool compare = true) {
  const Instruction& call = *module.entry()->root();
  std::vector<std::vector<uint8_t>> in;
  std::vector<void*> operands;
  for (int64_t i = 0; i < call.operand_count(); ++i) {
    in.push_back(ToBuffer(args[static_cast<size_t>(i)], call.operand(i)->shape()));
    operands.push_back(in.back().data());
  }
  std::vector<Shape> leaves;
  if (call.shape().IsTuple()) {
    for (const Shape& leaf : call.shape().tuple_shapes()) leaves.push_back(leaf);
  } else {
    leaves.push_back(call.shape());
  }
  std::vector<std::vector<uint8_t>> out;
  std::vector<void*> outputs;
  for (const Shape& leaf : leaves) {
    out.emplace_back(static_cast<size_t>(std::max<int64_t>(Literal(leaf).size_bytes(), 1)), 0x7d);
    outputs.push_back(out.back().data());
  }
  const Status status = runtime::RunLapack(call, operands, outputs, threads);
  EXPECT_TRUE(status.ok()) << status.message() << "\n  " << where;
  if (!status.ok()) return {};
  std::vector<Literal> actual;
  for (size_t i = 0; i < leaves.size(); ++i) actual.push_back(FromBuffer(out[i], leaves[i]));
  if (!compare) return actual;
  interpreter::Interpreter interp;
  StatusOr<Literal> expected = interp.Run(module, args);
  EXPECT_TRUE(expected.ok()) << expected.status().message() << "\n  " << where;
  if (!expected.ok()) return actual;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Literal& want = call.shape().IsTuple() ? expected->tuple_elements()[i] : *expected;
    interpreter::CompareOptions options = interpreter::DefaultToleranceFor(leaves[i].element_type());
    options.atol = std::max(options.atol, 1e-4);
    options.rtol = std::max(options.rtol, 1e-4);
    const interpreter::CompareResult result = CompareLiterals(actual[i], want, options);
    EXPECT_TRUE(result.ok()) << "leaf " << i << ": " << result.ToString() << "\n  " << where;
  }
  return actual;
}

// Well-conditioned triangles: random values, the diagonal moved away from 0.
Literal TriangleOperand(const Shape& shape, uint64_t seed) {
  Literal a = interpreter::RandomLiteral(Shape(shape.element_type(), shape.dimensions()), seed);
  const std::vector<int64_t>& d = shape.dimensions();
  const int64_t n = d.back();
  for (int64_t b = 0; b < a.element_count() / (n * n); ++b) {
    for (int64_t i = 0; i < n; ++i) a.SetDouble((b * n + i) * n + i, 3.0 + a.GetDouble((b * n + i) * n + i));
  }
  return a;
}

// BLAS's trsm as jax calls it, every side, triangle, op and diagonal, on operands laid
// out column-major (as jax asks: LAPACK's own order, used where it lies), row-major (what
// the CPU backend's layouts give: the transposed solve, where it lies) and mixed (copies),
// with one and two threads; against the plain HLO's triangular solve.
TEST(LapackTest, TriangularSolvesInEveryLayoutMatchThePlainHlo) {
  int cases = 0;
  for (const char* side : {"L", "R"}) {
    for (const char* uplo : {"L", "U"}) {
      for (const char* trans : {"N", "T"}) {
        for (const char* diag : {"N", "U"}) {
          for (const auto& [a_layout, b_layout, x_layout] : std::vector<std::array<const char*, 3>>{
                   {"{1,2,0}", "{1,2,0}", "{1,2,0}"}, {"{2,1,0}", "{2,1,0}", "{2,1,0}"},
                   {"{2,1,0}", "{1,2,0}", "{2,1,0}"}, {"{1,2,0}", "{2,1,0}", "{1,2,0}"},
                   {"{1,2,0}", "{2,1,0}", "{2,1,0}"}}) {
            const bool left = std::string(side) == "L";
            const std::string k = left ? "5" : "4";
            const std::string hlo =
                std::string("HloModule m\nENTRY e {\n  %a = f32[3,") + k + "," + k + "]" + a_layout +
                " parameter(0)\n  %b = f32[3,5,4]" + b_layout + " parameter(1)\n  ROOT %x = f32[3,5,4]" + x_layout +
                " custom-call(%a, %b), custom_call_target=\"lapack_strsm_ffi\", api_version=API_VERSION_TYPED_FFI, "
                "backend_config={diag = " + std::to_string(diag[0]) + " : ui8, side = " + std::to_string(side[0]) +
                " : ui8, trans_x = " + std::to_string(trans[0]) + " : ui8, uplo = " + std::to_string(uplo[0]) + " : ui8}\n}\n";
            auto module = Parse(hlo);
            ASSERT_NE(module, nullptr);
            const uint64_t seed = static_cast<uint64_t>(++cases);
            std::vector<Literal> args;
            args.push_back(TriangleOperand(module->entry()->parameter(0)->shape(), seed));
            args.push_back(interpreter::RandomLiteral(Shape(PrimitiveType::kF32, {3, 5, 4}), seed + 100));
            for (int threads : {1, 2}) CheckLapackCall(*module, args, threads, hlo);
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 80);
}

// LAPACK's Cholesky of a symmetric positive definite batch, either triangle, column-major
// (where it lies), row-major (the other triangle of its transpose, where it lies) and
// copied between layouts: the factor, the untouched triangle and info as the plain HLO's.
TEST(LapackTest, CholeskyInEveryLayoutMatchesThePlainHlo) {
  int cases = 0;
  for (const char* uplo : {"L", "U"}) {
    for (const auto& [a_layout, f_layout] : std::vector<std::array<const char*, 2>>{
             {"{1,2,0}", "{1,2,0}"}, {"{2,1,0}", "{2,1,0}"}, {"{2,1,0}", "{1,2,0}"}, {"{1,2,0}", "{2,1,0}"}}) {
      const std::string hlo = std::string("HloModule m\nENTRY e {\n  %a = f32[4,6,6]") + a_layout +
                              " parameter(0)\n  ROOT %c = (f32[4,6,6]" + f_layout +
                              ", s32[4]) custom-call(%a), custom_call_target=\"lapack_spotrf_ffi\", "
                              "api_version=API_VERSION_TYPED_FFI, backend_config={uplo = " +
                              std::to_string(uplo[0]) + " : ui8}\n}\n";
      auto module = Parse(hlo);
      ASSERT_NE(module, nullptr);
      // m m^T + 6 I over a random m.
      Literal m = interpreter::RandomLiteral(Shape(PrimitiveType::kF32, {4, 6, 6}), static_cast<uint64_t>(++cases));
      Literal a(Shape(PrimitiveType::kF32, {4, 6, 6}));
      for (int64_t b = 0; b < 4; ++b) {
        for (int64_t i = 0; i < 6; ++i) {
          for (int64_t j = 0; j < 6; ++j) {
            double sum = i == j ? 6.0 : 0.0;
            for (int64_t t = 0; t < 6; ++t) sum += m.GetDouble((b * 6 + i) * 6 + t) * m.GetDouble((b * 6 + j) * 6 + t);
            a.SetDouble((b * 6 + i) * 6 + j, sum);
          }
        }
      }
      std::vector<Literal> args;
      args.push_back(a);
      for (int threads : {1, 2}) CheckLapackCall(*module, args, threads, hlo);
      // One matrix that is not positive definite: info names its first bad column, 4
      // (LAPACK stops there; the plain HLO goes on with NaNs, which jax masks anyway).
      args[0].SetDouble((2 * 6 + 3) * 6 + 3, -1.0);
      std::vector<Literal> failed = CheckLapackCall(*module, args, 2, hlo, /*compare=*/false);
      ASSERT_EQ(failed.size(), 2u);
      for (int64_t b = 0; b < 4; ++b) EXPECT_EQ(failed[1].GetInt64(b), b == 2 ? 4 : 0) << b << "\n" << hlo;
    }
  }
  EXPECT_EQ(cases, 8);
}

// The same for a general eigendecomposition (geev), whose eigenvalues' order (where the
// QR iterations deflate) and vectors' phases (the largest component made real) are the
// algorithm's choices: the shadow takes the f32 call's order and phases. Without that the
// d routine's differ on these random 5x5 matrices, and the check's bound, which the
// shadow's distance from the f32 reference sets, grew until it measured nothing (0.25 of
// the bound on every input tried, against 0.03 aligned).
TEST(LapackTest, TheF64ShadowOfAGeneralEigendecompositionTakesTheF32OrderAndPhases) {
  auto module = [](const char* target, const char* real, const char* complex) {
    const std::string r = real, c = complex;
    return Parse("HloModule m\nENTRY e {\n  %a = " + r + "[6,5,5] parameter(0)\n  ROOT %r = (" + r + "[6,5], " + r +
                 "[6,5], " + c + "[6,5,5], " + c + "[6,5,5], s32[6]) custom-call(%a), custom_call_target=\"" + target +
                 "\", api_version=API_VERSION_TYPED_FFI, backend_config={compute_left = 86 : ui8, compute_right = 86 : "
                 "ui8}\n}\n");
  };
  auto f32 = module("lapack_sgeev_ffi", "f32", "c64");
  auto shadow = module("lapack_sgeev_ffi", "f64", "c128");
  auto f64 = module("lapack_dgeev_ffi", "f64", "c128");
  ASSERT_TRUE(f32 && shadow && f64);
  Literal narrow_in = interpreter::RandomLiteral(f32->entry()->parameter(0)->shape(), 7);
  std::vector<Literal> runs = RunShadowTriple(*f32, *shadow, *f64, narrow_in);
  ASSERT_EQ(runs.size(), 3u);
  const Literal *narrow = &runs[0], *wide = &runs[1], *plain = &runs[2];
  double plain_most = 0;
  for (int leaf : {0, 1, 2, 3}) {
    EXPECT_LT(LargestComplexDifference(wide->tuple_elements()[leaf], narrow->tuple_elements()[leaf]), 1e-3)
        << "leaf " << leaf << ": the shadow's are the f32 call's, to its rounding";
    plain_most = std::max(plain_most, LargestComplexDifference(plain->tuple_elements()[leaf], narrow->tuple_elements()[leaf]));
  }
  EXPECT_GT(plain_most, 0.1) << "the d routine alone orders or phases otherwise here (else this test shows nothing)";
  for (int64_t b = 0; b < 6; ++b) EXPECT_EQ(narrow->tuple_elements()[4].GetInt64(b), 0);
}

// A complex Hermitian eigendecomposition (heevd): each eigenvector's phase is the
// algorithm's choice, so the f64 shadow (the z routine) takes the c routine's phases.
TEST(LapackTest, TheF64ShadowOfAHermitianEigendecompositionTakesTheF32Phases) {
  auto module = [](const char* target, const char* real, const char* complex) {
    const std::string r = real, c = complex;
    return Parse("HloModule m\nENTRY e {\n  %a = " + c + "[4,6,6] parameter(0)\n  ROOT %r = (" + c + "[4,6,6], " + r +
                 "[4,6], s32[4]) custom-call(%a), custom_call_target=\"" + target +
                 "\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}\n}\n");
  };
  auto c64 = module("lapack_cheevd_ffi", "f32", "c64");
  auto shadow = module("lapack_cheevd_ffi", "f64", "c128");
  auto c128 = module("lapack_zheevd_ffi", "f64", "c128");
  ASSERT_TRUE(c64 && shadow && c128);
  Literal narrow_in = interpreter::RandomLiteral(c64->entry()->parameter(0)->shape(), 9);
  for (int64_t b = 0; b < 4; ++b) {  // Hermitian
    for (int64_t i = 0; i < 6; ++i) {
      narrow_in.SetComplex((b * 6 + i) * 6 + i, narrow_in.GetComplex((b * 6 + i) * 6 + i).real());
      for (int64_t j = 0; j < i; ++j) {
        narrow_in.SetComplex((b * 6 + j) * 6 + i, std::conj(narrow_in.GetComplex((b * 6 + i) * 6 + j)));
      }
    }
  }
  std::vector<Literal> runs = RunShadowTriple(*c64, *shadow, *c128, narrow_in);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_LT(LargestComplexDifference(runs[1].tuple_elements()[0], runs[0].tuple_elements()[0]), 1e-3) << "the shadow's phases are the c64 call's";
  EXPECT_LT(LargestComplexDifference(runs[1].tuple_elements()[1], runs[0].tuple_elements()[1]), 1e-3) << "the eigenvalues";
  EXPECT_GT(LargestComplexDifference(runs[2].tuple_elements()[0], runs[0].tuple_elements()[0]), 0.1)
      << "the z routine alone phases otherwise here (else this test shows nothing)";
}

// A complex SVD (gesdd): each pair of singular vectors is unique up to a common phase,
// so the f64 shadow (the z routine) takes the c routine's: u's column times p, vt's row
// times conj(p).
TEST(LapackTest, TheF64ShadowOfAComplexSvdTakesTheF32Phases) {
  auto module = [](const char* target, const char* real, const char* complex) {
    const std::string r = real, c = complex;
    return Parse("HloModule m\nENTRY e {\n  %a = " + c + "[6,12,8] parameter(0)\n  ROOT %r = (" + c + "[6,12,8], " + r +
                 "[6,8], " + c + "[6,12,8], " + c + "[6,8,8], s32[6]) custom-call(%a), custom_call_target=\"" + target +
                 "\", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 83 : ui8}\n}\n");
  };
  auto c64 = module("lapack_cgesdd_ffi", "f32", "c64");
  auto shadow = module("lapack_cgesdd_ffi", "f64", "c128");
  auto c128 = module("lapack_zgesdd_ffi", "f64", "c128");
  ASSERT_TRUE(c64 && shadow && c128);
  Literal narrow_in = interpreter::RandomLiteral(c64->entry()->parameter(0)->shape(), 11);
  std::vector<Literal> runs = RunShadowTriple(*c64, *shadow, *c128, narrow_in);
  ASSERT_EQ(runs.size(), 3u);
  double plain = 0;
  for (int leaf : {1, 2, 3}) {
    EXPECT_LT(LargestComplexDifference(runs[1].tuple_elements()[leaf], runs[0].tuple_elements()[leaf]), 1e-3) << "leaf " << leaf;
    plain = std::max(plain, LargestComplexDifference(runs[2].tuple_elements()[leaf], runs[0].tuple_elements()[leaf]));
  }
  EXPECT_GT(plain, 0.1) << "the z routine alone phases otherwise here (else this test shows nothing)";
}

// The profile's GFLOP/s for a LAPACK call come from LAPACK's operation counts (they were
// the result's element count before: 0.00 GFLOP/s for an LU).
// jax's GPU QR of 16 matrices of 64 x 64 (cusolver_geqrf_ffi, then cusolver_orgqr_ffi):
// its check through the plain HLO of the Householder loops bounds nothing (the magnitude
// shadow grows with every reflector: "would be vacuous"); with the reference's LAPACK hook
// the two calls run through LAPACK (IsLapackTwinGpuCall) and every output counts: the
// plain HLO's result (what the backends compute) passes, and one element 1e-3 off fails.
TEST(LapackTest, GpuQrIsCheckedThroughLapack) {
  const std::string text = R"(HloModule jit_qr
ENTRY main {
  a = f32[16,64,64]{2,1,0} parameter(0)
  geqrf = (f32[16,64,64]{1,2,0}, f32[16,64]{1,0}) custom-call(a), custom_call_target="cusolver_geqrf_ffi", operand_layout_constraints={f32[16,64,64]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f32[16,64,64]{1,2,0} get-tuple-element(geqrf), index=0
  taus = f32[16,64]{1,0} get-tuple-element(geqrf), index=1
  q = f32[16,64,64]{1,2,0} custom-call(r, taus), custom_call_target="cusolver_orgqr_ffi", operand_layout_constraints={f32[16,64,64]{1,2,0}, f32[16,64]{1,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = (f32[16,64,64]{1,2,0}, f32[16,64,64]{1,2,0}) tuple(q, r)
}
)";
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  for (const auto& inst : (*module)->entry()->instructions()) {
    if (inst->opcode() == Opcode::kCustomCall) EXPECT_TRUE(IsLapackTwinGpuCall(*inst)) << inst->name();
  }
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(**module, 1);
  ASSERT_TRUE(args.ok());
  StatusOr<Literal> plain = interpreter::Interpreter().Run(**module, *args);
  ASSERT_TRUE(plain.ok()) << plain.status().message();

  check::CheckOptions without;
  StatusOr<check::CheckReport> vacuous = check::CheckAgainstInterpreter(**module, *args, *plain, without);
  ASSERT_TRUE(vacuous.ok()) << vacuous.status().message();
  EXPECT_TRUE(vacuous->vacuous()) << vacuous->Summary();

  check::CheckOptions through_lapack;
  int64_t lapack_calls = 0;
  through_lapack.interpreter.library_call = [&lapack_calls](const Instruction& call,
                                                            const std::vector<const Literal*>& ops) {
    ++lapack_calls;
    return runtime::RunLapackOnLiterals(call, ops);
  };
  through_lapack.interpreter.library_call_gpu_twins_only = true;
  StatusOr<check::CheckReference> reference = check::ComputeCheckReference(**module, *args, through_lapack);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  // geqrf and orgqr in the reference, its f64 shadow and the shadows that perturb sums.
  EXPECT_GE(lapack_calls, 4);
  check::CheckReport report = check::CheckOutputs(*plain, *reference, *args, through_lapack);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_EQ(report.compared_outputs(), 2) << report.Details();
  Literal off = *plain;
  Literal& q = off.tuple_elements()[0];
  q.SetDouble(777, q.GetDouble(777) + 1e-3);
  report = check::CheckOutputs(off, *reference, *args, through_lapack);
  EXPECT_FALSE(report.ok()) << report.Details();
}

// jax's GPU pinv of matrices of 64 x 128 (cusolver_gesvdj_ffi, econ): its check with the
// Jacobi model in the reference was vacuous (16 of them: the model's magnitude shadow
// reached 2e17 on values up to 0.09; on the H200 too); with the call through LAPACK's gesdd in the
// reference (the GPU backend's check with its libraries) it counts, against a result the
// model computed (the other algorithm, as the GPU's cuSOLVER is), and fails an element off.
TEST(LapackTest, GpuPinvIsCheckedThroughLapack) {
  const std::string text = R"(HloModule pinv
ENTRY e {
  a = f32[4,64,128] parameter(0)
  svd = (f32[4,64,128]{1,2,0}, f32[4,64]{1,0}, f32[4,64,64]{1,2,0}, f32[4,128,64]{1,2,0}, s32[4]{0}) custom-call(a), custom_call_target="cusolver_gesvdj_ffi", operand_layout_constraints={f32[4,64,128]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={compute_uv = true, full_matrices = false}
  s = f32[4,64] get-tuple-element(svd), index=1
  u = f32[4,64,64] get-tuple-element(svd), index=2
  v = f32[4,128,64] get-tuple-element(svd), index=3
  one = f32[] constant(1)
  ones = f32[4,64] broadcast(one), dimensions={}
  inv = f32[4,64] divide(ones, s)
  invb = f32[4,128,64] broadcast(inv), dimensions={0,2}
  vs = f32[4,128,64] multiply(v, invb)
  ROOT p = f32[4,128,64] dot(vs, u), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
}
)";
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(**module, 1);
  ASSERT_TRUE(args.ok());
  StatusOr<Literal> model = interpreter::Interpreter().Run(**module, *args);
  ASSERT_TRUE(model.ok()) << model.status().message();
  check::CheckOptions options;
  options.interpreter.library_call = runtime::RunLapackOnLiterals;
  options.interpreter.library_call_gpu_twins_only = true;
  StatusOr<check::CheckReference> without = check::ComputeCheckReference(**module, *args, options);
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_TRUE(check::CheckOutputs(*model, *without, *args, options).vacuous());
  options.interpreter.library_call_gpu_vector_twins = true;
  StatusOr<check::CheckReference> reference = check::ComputeCheckReference(**module, *args, options);
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  check::CheckReport report = check::CheckOutputs(*model, *reference, *args, options);
  EXPECT_TRUE(report.passed()) << report.Details();
  EXPECT_LT(report.outputs[0].max_error_over_bound, 0.5) << report.Details();
  Literal off = *model;
  off.SetDouble(4321, off.GetDouble(4321) + 1e-3);
  EXPECT_FALSE(check::CheckOutputs(off, *reference, *args, options).ok());
}

// cuSOLVER's syevd and gesvdj through LAPACK (IsLapackTwinGpuVectorCall): the values the
// model's to rounding, the vectors the model's up to each one's sign (gesvdj's V, not Vᵀ;
// U and V negated together), gesvdj's a as given; an f64 call's vectors take the f32
// routine's signs (the f64 shadow of an f32 call cannot be told from it).
TEST(LapackTest, GpuEighAndSvdTwinsMatchTheModelUpToSigns) {
  for (const char* type : {"f32", "f64"}) {
    for (const char* full : {"true", "false"}) {
      const std::string t = type;
      const std::string u_cols = std::string(full) == "true" ? "7" : "5";
      const std::string text = "HloModule twins\nENTRY main {\n  a = " + t + "[2,7,5] parameter(0)\n  sym = " + t +
                               "[2,6,6] parameter(1)\n  svd = (" + t + "[2,7,5]{1,2,0}, " + t + "[2,5]{1,0}, " + t +
                               "[2,7," + u_cols + "]{1,2,0}, " + t + "[2,5,5]{1,2,0}, s32[2]{0}) custom-call(a), "
                               "custom_call_target=\"cusolver_gesvdj_ffi\", api_version=API_VERSION_TYPED_FFI, "
                               "backend_config={compute_uv = true, full_matrices = " + full + "}\n  eigh = (" + t +
                               "[2,6,6]{1,2,0}, " + t + "[2,6]{1,0}, s32[2]{0}) custom-call(sym), "
                               "custom_call_target=\"cusolver_syevd_ffi\", api_version=API_VERSION_TYPED_FFI, "
                               "backend_config={algorithm = 0 : ui8, lower = true}\n  ROOT t = ((" + t + "[2,7,5]{1,2,0}, " +
                               t + "[2,5]{1,0}, " + t + "[2,7," + u_cols + "]{1,2,0}, " + t + "[2,5,5]{1,2,0}, s32[2]{0}), (" +
                               t + "[2,6,6]{1,2,0}, " + t + "[2,6]{1,0}, s32[2]{0})) tuple(svd, eigh)\n}\n";
      SCOPED_TRACE(t + " full_matrices=" + full);
      auto module = ParseModule(text);
      ASSERT_TRUE(module.ok()) << module.status().message();
      const Instruction* svd = (*module)->entry()->root()->operand(0);
      const Instruction* eigh = (*module)->entry()->root()->operand(1);
      EXPECT_TRUE(IsLapackTwinGpuVectorCall(*svd));
      EXPECT_TRUE(IsLapackTwinGpuVectorCall(*eigh));
      EXPECT_FALSE(IsLapackTwinGpuCall(*svd));
      StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(**module, 2);
      ASSERT_TRUE(args.ok());
      // sym symmetric.
      Literal& sym = (*args)[1];
      for (int64_t b = 0; b < 2; ++b) {
        for (int64_t i = 0; i < 6; ++i) {
          for (int64_t j = 0; j < i; ++j) sym.SetDouble(b * 36 + j * 6 + i, sym.GetDouble(b * 36 + i * 6 + j));
        }
      }
      StatusOr<Literal> model = interpreter::Interpreter().Run(**module, *args);
      ASSERT_TRUE(model.ok()) << model.status().message();
      StatusOr<Literal> lapack_svd = runtime::RunLapackOnLiterals(*svd, {&(*args)[0]});
      ASSERT_TRUE(lapack_svd.ok()) << lapack_svd.status().message();
      StatusOr<Literal> lapack_eigh = runtime::RunLapackOnLiterals(*eigh, {&(*args)[1]});
      ASSERT_TRUE(lapack_eigh.ok()) << lapack_eigh.status().message();
      const double tol = t == "f32" ? 2e-5 : 1e-12;
      // Values.
      const Literal& ms = model->tuple_elements()[0].tuple_elements()[1];
      const Literal& ls = lapack_svd->tuple_elements()[1];
      for (int64_t i = 0; i < ms.element_count(); ++i) EXPECT_NEAR(ls.GetDouble(i), ms.GetDouble(i), tol * 10) << i;
      const Literal& mw = model->tuple_elements()[1].tuple_elements()[1];
      const Literal& lw = lapack_eigh->tuple_elements()[1];
      for (int64_t i = 0; i < mw.element_count(); ++i) EXPECT_NEAR(lw.GetDouble(i), mw.GetDouble(i), tol * 10) << i;
      // Vectors up to sign, column by column; U's and V's column j negated together.
      auto column_sign = [](const Literal& x, const Literal& y, int64_t b, int64_t j) {
        const auto& d = x.shape().dimensions();
        const int64_t rows = d[1], cols = d[2];
        double dot = 0;
        for (int64_t i = 0; i < rows; ++i) dot += x.GetDouble((b * rows + i) * cols + j) * y.GetDouble((b * rows + i) * cols + j);
        return dot < 0 ? -1.0 : 1.0;
      };
      auto expect_columns = [&](const Literal& x, const Literal& y, int64_t columns, const std::vector<double>* signs,
                                std::vector<double>* out_signs, const char* what) {
        const auto& d = x.shape().dimensions();
        const int64_t rows = d[1], cols = d[2];
        for (int64_t b = 0; b < 2; ++b) {
          for (int64_t j = 0; j < columns; ++j) {
            const double sign = signs ? (*signs)[b * columns + j] : column_sign(x, y, b, j);
            if (out_signs) out_signs->push_back(sign);
            for (int64_t i = 0; i < rows; ++i) {
              const int64_t at = (b * rows + i) * cols + j;
              EXPECT_NEAR(sign * x.GetDouble(at), y.GetDouble(at), tol * 50) << what << " b" << b << " [" << i << "," << j << "]";
            }
          }
        }
      };
      std::vector<double> u_signs;
      expect_columns(lapack_svd->tuple_elements()[2], model->tuple_elements()[0].tuple_elements()[2], 5, nullptr, &u_signs, "U");
      expect_columns(lapack_svd->tuple_elements()[3], model->tuple_elements()[0].tuple_elements()[3], 5, &u_signs, nullptr, "V");
      expect_columns(lapack_eigh->tuple_elements()[0], model->tuple_elements()[1].tuple_elements()[0], 6, nullptr, nullptr,
                     "eigenvectors");
      // gesvdj's a: the operand as given.
      EXPECT_TRUE(interpreter::CompareLiterals(lapack_svd->tuple_elements()[0], (*args)[0], {.atol = 0, .rtol = 0}).ok());
    }
  }
  // An f64 call takes the f32 routine's signs on the operands rounded to f32.
  auto module = ParseModule(R"(HloModule e
ENTRY main {
  a = f64[3,8,8] parameter(0)
  ROOT eigh = (f64[3,8,8]{1,2,0}, f64[3,8]{1,0}, s32[3]{0}) custom-call(a), custom_call_target="cusolver_syevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={algorithm = 0 : ui8, lower = true}
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto narrow_module = ParseModule(R"(HloModule e
ENTRY main {
  a = f32[3,8,8] parameter(0)
  ROOT eigh = (f32[3,8,8]{1,2,0}, f32[3,8]{1,0}, s32[3]{0}) custom-call(a), custom_call_target="cusolver_syevd_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={algorithm = 0 : ui8, lower = true}
})");
  ASSERT_TRUE(narrow_module.ok());
  Literal wide(Shape(PrimitiveType::kF64, {3, 8, 8}));
  Literal narrow(Shape(PrimitiveType::kF32, {3, 8, 8}));
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t i = 0; i < 8; ++i) {
      for (int64_t j = 0; j < 8; ++j) {
        const double v = static_cast<float>(std::sin(1.3 * static_cast<double>(b * 64 + std::min(i, j) * 8 + std::max(i, j))));
        wide.SetDouble((b * 8 + i) * 8 + j, v);
        narrow.SetDouble((b * 8 + i) * 8 + j, v);
      }
    }
  }
  StatusOr<Literal> w = runtime::RunLapackOnLiterals(*(*module)->entry()->root(), {&wide});
  StatusOr<Literal> n = runtime::RunLapackOnLiterals(*(*narrow_module)->entry()->root(), {&narrow});
  ASSERT_TRUE(w.ok() && n.ok());
  const Literal& wv = w->tuple_elements()[0];
  const Literal& nv = n->tuple_elements()[0];
  for (int64_t b = 0; b < 3; ++b) {
    for (int64_t j = 0; j < 8; ++j) {
      double dot = 0;
      for (int64_t i = 0; i < 8; ++i) dot += wv.GetDouble((b * 8 + i) * 8 + j) * nv.GetDouble((b * 8 + i) * 8 + j);
      EXPECT_GT(dot, 0) << "matrix " << b << ", vector " << j;
    }
  }
}

// Complex vectors have phases where real ones have signs: jax's complex eigh and SVD on the
// CPU (lapack_cheevd_ffi, lapack_cgesdd_ffi, read through jax's call and select of NaN)
// compare after each of the backend's vectors takes the reference's phase, u_j and Vᴴ's
// row j by one factor and its conjugate: a result whose vectors another LAPACK phased
// otherwise passes; u_j turned alone fails.
TEST(LapackTest, ComplexSolverVectorsAreComparedUpToTheirPhases) {
  for (const char* name : {"complex_svd_vectors", "complex_eigh_vectors"}) {
    SCOPED_TRACE(name);
    const bool svd = std::string(name) == "complex_svd_vectors";
    testing_util::JaxProgram program;
    ASSERT_NO_FATAL_FAILURE(testing_util::LoadJaxProgram("tests/data/linalg", name, 1, svd ? 3 : 2, &program));
    check::CheckOptions options;
    options.interpreter.library_call = runtime::RunLapackOnLiterals;
    auto reference = check::ComputeCheckReference(*program.module, program.args, options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    const size_t vectors = svd ? 0 : 1;  // eigh returns (values, vectors)
    ASSERT_NE(reference->sign_free[vectors].call, nullptr);
    // Column j of matrix b times `phase` (rows: row j).
    auto turn = [](Literal& l, int64_t b, int64_t j, std::complex<double> phase, bool row) {
      const auto& d = l.shape().dimensions();
      const int64_t rows = d[1], cols = d[2];
      for (int64_t i = 0; i < (row ? cols : rows); ++i) {
        const int64_t at = (b * rows + (row ? j : i)) * cols + (row ? i : j);
        l.SetComplex(at, l.GetComplex(at) * phase);
      }
    };
    const std::complex<double> phase = std::polar(1.0, 2.1);
    Literal turned = reference->reference;
    turn(turned.tuple_elements()[vectors], 1, 2, phase, false);
    if (svd) turn(turned.tuple_elements()[2], 1, 2, std::conj(phase), /*row=*/true);
    check::CheckReport report = check::CheckOutputs(turned, *reference, program.args, options);
    EXPECT_TRUE(report.passed()) << report.Details();
    EXPECT_EQ(report.outputs[vectors].sign_flipped_vectors, 1) << report.Details();
    EXPECT_THAT(report.Details(), ::testing::HasSubstr("vector(s) given the reference's phase first")) << report.Details();
    // XLA's own outputs (jaxlib's LAPACK) compare the same way.
    EXPECT_TRUE(check::CheckOutputsAgainstExpected(turned, program.want, *reference, program.args, options).passed());
    if (svd) {
      Literal alone = reference->reference;
      turn(alone.tuple_elements()[0], 1, 2, phase, false);
      EXPECT_FALSE(check::CheckOutputs(alone, *reference, program.args, options).ok());
    }
  }
}

// The GPU's Cholesky and LU calls run through LAPACK give the plain HLO's factors (to
// rounding) and the same pivots and infos.
TEST(LapackTest, GpuCholeskyAndLuTwinsMatchThePlainHlo) {
  const std::string text = R"(HloModule twins
ENTRY main {
  a = f32[3,6,6]{2,1,0} parameter(0)
  at = f32[3,6,6]{2,1,0} transpose(a), dimensions={0,2,1}
  spd0 = f32[3,6,6]{2,1,0} dot(a, at), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  six = f32[] constant(6)
  eye = f32[6,6]{1,0} iota(), iota_dimension=0
  eye2 = f32[6,6]{1,0} iota(), iota_dimension=1
  same = pred[6,6]{1,0} compare(eye, eye2), direction=EQ
  zero = f32[] constant(0)
  sixes = f32[6,6]{1,0} broadcast(six), dimensions={}
  zeros = f32[6,6]{1,0} broadcast(zero), dimensions={}
  diag = f32[6,6]{1,0} select(same, sixes, zeros)
  diags = f32[3,6,6]{2,1,0} broadcast(diag), dimensions={1,2}
  spd = f32[3,6,6]{2,1,0} add(spd0, diags)
  potrf = (f32[3,6,6]{1,2,0}, s32[3]{0}) custom-call(spd), custom_call_target="cusolver_potrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={lower = true}
  getrf = (f32[3,6,6]{1,2,0}, s32[3,6]{1,0}, s32[3]{0}) custom-call(a), custom_call_target="cusolver_getrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  ROOT t = ((f32[3,6,6]{1,2,0}, s32[3]{0}), (f32[3,6,6]{1,2,0}, s32[3,6]{1,0}, s32[3]{0})) tuple(potrf, getrf)
}
)";
  auto module = ParseModule(text);
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<std::vector<Literal>> args = interpreter::RandomArguments(**module, 3);
  ASSERT_TRUE(args.ok());
  StatusOr<Literal> plain = interpreter::Interpreter().Run(**module, *args);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  interpreter::InterpreterOptions hooked;
  hooked.library_call_gpu_twins_only = true;
  int64_t calls = 0;
  hooked.library_call = [&calls](const Instruction& call, const std::vector<const Literal*>& ops) {
    ++calls;
    return runtime::RunLapackOnLiterals(call, ops);
  };
  StatusOr<Literal> lapack = interpreter::Interpreter(hooked).Run(**module, *args);
  ASSERT_TRUE(lapack.ok()) << lapack.status().message();
  EXPECT_EQ(calls, 2);
  for (int call = 0; call < 2; ++call) {
    const Literal& p = plain->tuple_elements()[call];
    const Literal& l = lapack->tuple_elements()[call];
    const Literal& factor_p = p.tuple_elements()[0];
    const Literal& factor_l = l.tuple_elements()[0];
    for (int64_t i = 0; i < factor_p.element_count(); ++i) {
      EXPECT_NEAR(factor_p.GetDouble(i), factor_l.GetDouble(i), 1e-4 * (1 + std::abs(factor_p.GetDouble(i))))
          << "call " << call << " element " << i;
    }
    for (size_t leaf = 1; leaf < p.tuple_elements().size(); ++leaf) {
      EXPECT_EQ(p.tuple_elements()[leaf], l.tuple_elements()[leaf]) << "call " << call << " leaf " << leaf;
    }
  }
}

TEST(LapackTest, OperationCountsFollowLapacksFormulas) {
  auto trsm = [](const std::string& a, const char* side) {
    return Parse("HloModule m\nENTRY e {\n  %a = f32" + a + " parameter(0)\n  %b = f32[3,5,4] parameter(1)\n"
                 "  ROOT %x = f32[3,5,4] custom-call(%a, %b), custom_call_target=\"lapack_strsm_ffi\", "
                 "api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = " +
                 std::to_string(side[0]) + " : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}\n}\n");
  };
  auto left = trsm("[3,5,5]", "L"), right = trsm("[3,4,4]", "R");
  auto potrf = LapackModule("lapack_spotrf_ffi", "f32", "$T[4,6,6]", "($T[4,6,6], s32[4])", "uplo = 76 : ui8");
  auto getrf = LapackModule("lapack_dgetrf_ffi", "f64", "$T[2,8,6]", "($T[2,8,6], s32[2,6], s32[2])", "");
  auto values = LapackModule("lapack_ssyevd_ffi", "f32", "$T[6,6]", "($T[6,6], $T[6], s32[])", "mode = 78 : ui8, uplo = 76 : ui8");
  auto vectors = LapackModule("lapack_ssyevd_ffi", "f32", "$T[6,6]", "($T[6,6], $T[6], s32[])", "mode = 86 : ui8, uplo = 76 : ui8");
  ASSERT_TRUE(left && right && potrf && getrf && values && vectors);
  EXPECT_EQ(LapackFlops(*left->entry()->root()), 3 * 5 * 5 * 4);   // m^2 n
  EXPECT_EQ(LapackFlops(*right->entry()->root()), 3 * 5 * 4 * 4);  // m n^2
  EXPECT_EQ(LapackFlops(*potrf->entry()->root()), 4 * 6 * 6 * 6 / 3);
  EXPECT_EQ(LapackFlops(*getrf->entry()->root()), 2 * (6 * 6 * 8 - 6 * 6 * 6 / 3));
  EXPECT_EQ(LapackFlops(*values->entry()->root()), 4 * 6 * 6 * 6 / 3);
  EXPECT_EQ(LapackFlops(*vectors->entry()->root()), 14 * 6 * 6 * 6 / 3);
  EXPECT_EQ(LapackFlops(*potrf->entry()->parameter(0)), -1);
}

// A library the runtime loads that is not there (FFTW, LAPACK on a bare machine): ok()
// false, and the message names the library, why, and the package that brings it.
TEST(RuntimeLibraryTest, AMissingLibraryOrEntryPointIsNamed) {
  runtime::library::RuntimeLibrary absent("libfusebox_absent.so.7", "libfusebox-absent-dev");
  void (*fn)() = nullptr;
  absent.Bind(fn, "anything");
  EXPECT_FALSE(absent.ok());
  EXPECT_EQ(fn, nullptr);
  EXPECT_NE(absent.missing().find("libfusebox_absent.so.7 is not installed"), std::string::npos) << absent.missing();
  EXPECT_NE(absent.missing().find("libfusebox-absent-dev"), std::string::npos) << absent.missing();
  runtime::library::RuntimeLibrary lapack("liblapack.so.3", "liblapack3");
  void (*real)() = nullptr;
  lapack.Bind(real, "sgesdd_");
  EXPECT_TRUE(lapack.ok()) << lapack.missing();
  lapack.Bind(real, "no_such_routine_");
  EXPECT_FALSE(lapack.ok());
  EXPECT_EQ(lapack.missing(), "liblapack.so.3 lacks no_such_routine_");
}

TEST(ErrorTest, UnsupportedInputsAreErrorsThatNameTheOpAndType) {
  {
    auto module = Parse(TwoOperandModule(
        "s4[2,3]{1,0:E(4)}", "s4[3,2]{1,0}",
        "s4[2,2]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunDot(*module->entry()->root(), &why));
    EXPECT_NE(why.find("dot %r"), std::string::npos) << why;
    EXPECT_NE(why.find("s4[2,3]{1,0:E(4)}"), std::string::npos) << why;
    EXPECT_NE(why.find("packed"), std::string::npos) << why;
    uint8_t buffer[16] = {};
    const Status status = runtime::RunDot(*module->entry()->root(), buffer, buffer, buffer, 1);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.message(), why);
  }
  {
    auto module = Parse(TwoOperandModule(
        "c64[2,3]{1,0}", "c64[3,2]{1,0}",
        "f32[2,2]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunDot(*module->entry()->root(), &why));
    EXPECT_NE(why.find("c64"), std::string::npos) << why;
  }
  {
    auto module = Parse(TwoOperandModule(
        "f32[8,128]{1,0:T(8,128)}", "f32[128,8]{1,0}",
        "f32[8,8]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunDot(*module->entry()->root(), &why));
    EXPECT_NE(why.find("tiled"), std::string::npos) << why;
  }
  {
    auto module = Parse(TwoOperandModule(
        "f32[<=8,4]{1,0}", "f32[4,3]{1,0}",
        "f32[<=8,3]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunDot(*module->entry()->root(), &why));
    EXPECT_NE(why.find("dynamic"), std::string::npos) << why;
  }
  {
    auto module = Parse(TwoOperandModule("c64[1,5,2]{2,1,0}", "c64[3,2,2]{2,1,0}",
                                         "f32[1,3,2]{2,1,0} convolution(%a, %b), window={size=3}, "
                                         "dim_labels=b0f_0io->b0f"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunConvolution(*module->entry()->root(), &why));
    EXPECT_NE(why.find("convolution %r"), std::string::npos) << why;
    EXPECT_NE(why.find("c64 operands with a f32 result"), std::string::npos) << why;
  }
  {
    // Wrong declared result dimensions.
    auto module = Parse(TwoOperandModule("f32[1,5,2]{2,1,0}", "f32[3,2,2]{2,1,0}",
                                         "f32[1,4,2]{2,1,0} convolution(%a, %b), window={size=3}, "
                                         "dim_labels=b0f_0io->b0f"));
    ASSERT_NE(module, nullptr);
    float buffer[64] = {};
    const Status status = runtime::RunConvolution(*module->entry()->root(), buffer, buffer, buffer, 1);
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find("[1,3,2]"), std::string::npos) << status.message();
  }
  {
    // Not the op the kernel runs.
    auto module = Parse(TwoOperandModule("f32[2]{0}", "f32[2]{0}", "f32[2]{0} add(%a, %b)"));
    ASSERT_NE(module, nullptr);
    std::string why;
    EXPECT_FALSE(runtime::CanRunDot(*module->entry()->root(), &why));
    EXPECT_FALSE(runtime::CanRunConvolution(*module->entry()->root(), &why));
    EXPECT_FALSE(runtime::CanRunSort(*module->entry()->root(), &why));
    EXPECT_EQ(runtime::DotFlops(*module->entry()->root()), -1);
  }
  {
    auto module = Parse(std::string("HloModule s\n") + kF32LessComputation +
                        "ENTRY %e {\n  %x = f32[4]{0} parameter(0)\n"
                        "  ROOT %s = f32[4]{0} sort(%x), dimensions={0}, to_apply=%cmp\n}\n");
    ASSERT_NE(module, nullptr);
    float data[4] = {3, 1, 2, 0};
    std::vector<void*> one = {data};
    std::vector<void*> two = {data, data};
    EXPECT_FALSE(runtime::RunSort(*module->entry()->root(), one, nullptr, nullptr).ok());
    EXPECT_FALSE(runtime::RunSort(*module->entry()->root(), two, &F32Less, nullptr).ok());
    EXPECT_FALSE(runtime::RunSort(*module->entry()->root(), {nullptr}, &F32Less, nullptr).ok());
    ASSERT_TRUE(runtime::RunSort(*module->entry()->root(), one, &F32Less, nullptr).ok());
    EXPECT_EQ(std::vector<float>(data, data + 4), (std::vector<float>{0, 1, 2, 3}));
  }
}

}  // namespace
}  // namespace fusebox
