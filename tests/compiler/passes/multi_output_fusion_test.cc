// Tests of multi-output fusion: a shared producer joins its consumer fusion as an extra
// output, siblings reading one operand merge, and the refusals (cycle, shapes); modules
// verify, round-trip and compute the same, including the examples after both passes.
#include "compiler/passes/multi_output_fusion.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/literal_compare.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/fusion_utils.h"
#include "compiler/passes/instruction_fusion.h"
#include "compiler/passes/kernel_count.h"
#include "compiler/verifier/verifier.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::ExpectSameResult;
using testing_util::Fusions;
using testing_util::Parse;
using testing_util::RunPassAndCheck;


std::unique_ptr<Module> ParseExample(const std::string& name) {
  std::ifstream in(std::string(FUSEBOX_SOURCE_DIR) + "/assets/examples/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str());
}


// Instruction fusion then multi-output fusion; checks verification, the text round trip
// and (when `run`) the result. Returns the multi-output pass's context.
PassContext RunBoth(Module& module, bool run = true) {
  std::unique_ptr<Module> original = module.Clone();
  EXPECT_NE(original, nullptr);
  PassContext first;
  auto fused = InstructionFusion().Run(module, first);
  EXPECT_TRUE(fused.ok()) << fused.status().message();
  PassContext context;
  auto changed = MultiOutputFusion().Run(module, context);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  testing_util::ExpectValidAfterFusion(original.get(), module, run);
  return context;
}


const FusionDecision* FindReason(const PassContext& context, bool fused, const std::string& text) {
  for (const FusionDecision& d : context.decisions()) {
    if (d.fused == fused && d.reason.find(text) != std::string::npos) return &d;
  }
  return nullptr;
}

TEST(MultiOutputFusionTest, ExpensiveSharedProducerBecomesAnExtraOutput) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[64] parameter(0)
  exp.3 = f32[64] exponential(p0)
  a = f32[64] negate(exp.3)
  ROOT t = (f32[64], f32[64]) tuple(a, exp.3)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context = RunBoth(*m);
  auto fusions = Fusions(*m->entry());
  ASSERT_EQ(fusions.size(), 1u) << m->ToString();
  const Instruction* f = fusions[0];
  EXPECT_TRUE(IsMultiOutputFusion(*f));
  EXPECT_EQ(f->shape().tuple_size(), 2);
  EXPECT_EQ(m->entry()->FindInstruction("exp.3"), nullptr);
  for (const Instruction* op : m->entry()->root()->operands()) {
    EXPECT_EQ(op->opcode(), Opcode::kGetTupleElement);
  }
  const FusionDecision* d = FindReason(context, true, "extra output");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->producer, "exp.3");
  EXPECT_EQ(d->pass, "multi-output-fusion");
  EXPECT_EQ(CountKernels(*m).kernels, 1);
}

TEST(MultiOutputFusionTest, DoesNotCreateACycle) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p0 = f32[64] parameter(0)
  a = f32[64] add(p0, p0)
  x = f32[64] custom-call(a), custom_call_target="foo"
  mul = f32[64] multiply(a, x)
  ROOT n = f32[64] negate(mul)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context = RunBoth(*m, /*run=*/false);  // the interpreter cannot run "foo"
  const FusionDecision* d = FindReason(context, false, "would create a cycle through %x");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->producer, "a");
  EXPECT_NE(m->entry()->FindInstruction("a"), nullptr);
}

TEST(MultiOutputFusionTest, SiblingReductionsReadTheirInputOnce) {
  auto m = Parse(R"(
HloModule m
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[32,16] parameter(0)
  zero = f32[] constant(0)
  sum = f32[32] reduce(x, zero), dimensions={1}, to_apply=add_f32
  ninf = f32[] constant(-inf)
  mx = f32[32] reduce(x, ninf), dimensions={1}, to_apply=max_f32
  ROOT t = (f32[32], f32[32]) tuple(sum, mx)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context = RunBoth(*m);
  auto fusions = Fusions(*m->entry());
  ASSERT_EQ(fusions.size(), 1u) << m->ToString();
  EXPECT_TRUE(IsMultiOutputFusion(*fusions[0]));
  EXPECT_EQ(fusions[0]->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(fusions[0]->operand_count(), 1);
  ASSERT_NE(FindReason(context, true, "both read %x"), nullptr);
  EXPECT_EQ(CountKernels(*m).kernels, 1);
}

TEST(MultiOutputFusionTest, DoesNotMergeSiblingsOfDifferentShapes) {
  auto m = Parse(R"(
HloModule m
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[32,16] parameter(0)
  zero = f32[] constant(0)
  sum = f32[32] reduce(x, zero), dimensions={1}, to_apply=add_f32
  sl = f32[16,16] slice(x), slice={[0:16], [0:16]}
  neg = f32[16,16] negate(sl)
  ROOT t = (f32[32], f32[16,16]) tuple(sum, neg)
}
)");
  ASSERT_NE(m, nullptr);
  PassContext context = RunBoth(*m);
  EXPECT_EQ(Fusions(*m->entry()).size(), 2u) << m->ToString();
  EXPECT_NE(FindReason(context, false, "shapes incompatible with the emitter"), nullptr);
}

TEST(MultiOutputFusionTest, ExamplesComputeTheSameAfterBothPasses) {
  for (const char* name : {"reduce_sum.hlo", "mnist_train_step.hlo", "cifar_cnn_train_step.hlo"}) {
    SCOPED_TRACE(name);
    auto m = ParseExample(name);
    ASSERT_NE(m, nullptr);
    KernelCount before = CountKernels(*m);
    PassContext context = RunBoth(*m);
    std::cout << name << ": " << before.kernels << " kernels unfused, " << CountKernels(*m).ToString()
              << " after fusion + multi-output fusion\n";
  }
  // The running example is 1 GiB per input: counted, not run.
  auto m = ParseExample("running_example.hlo");
  ASSERT_NE(m, nullptr);
  RunBoth(*m, /*run=*/false);
  EXPECT_EQ(CountKernels(*m).kernels, 1);
}

}  // namespace
}  // namespace fusebox::passes
