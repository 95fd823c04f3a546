// gemm-rewriter: dots cuBLAS can run become XLA-style __cublas$gemm calls whose
// backend_config reads back (ParseLibraryCall) as the same product: the rewritten module
// computes what the original did (the interpreter evaluates the calls by their meaning),
// prints and parses back, and keeps the dots cuBLAS cannot run. Only the GPU pipeline
// with libraries rewrites; the CPU pipeline keeps dots, and XLA's calls the library
// cannot run (cuBLASLt epilogues, cuDNN) are lowered.
#include "compiler/passes/library_rewriters.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "compiler/ir/conv_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/library_call_lowering.h"
#include "compiler/passes/optimization_pipeline.h"
#include "tests/compiler/passes/pass_test_util.h"

namespace fusebox::passes {
namespace {

using testing_util::ExpectSameResult;
using testing_util::Parse;
using testing_util::RunPassAndCheck;

int Count(const Module& module, bool (*pick)(const Instruction&)) {
  int count = 0;
  for (const Computation* c : ProgramComputations(module)) {
    for (const auto& inst : c->instructions()) count += pick(*inst);
  }
  return count;
}
bool IsDot(const Instruction& i) { return i.opcode() == Opcode::kDot; }
bool IsGemm(const Instruction& i) { return IsLibraryCall(i); }

std::unique_ptr<Module> FromFile(const std::string& relative) {
  auto parsed = ParseFile(std::string(FUSEBOX_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok() || parsed->modules.empty()) return nullptr;
  return std::move(parsed->modules[0]);
}

TEST(GemmRewriterTest, DotsBecomeCallsThatComputeTheSame) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  a = f32[3,5,7] parameter(0)
  b = f32[3,4,7] parameter(1)
  w = f32[6,7] parameter(2)
  i = s32[5,7] parameter(3)
  j = s32[7,2] parameter(4)
  d = f32[3,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  e = f32[3,5,6] dot(a, w), lhs_contracting_dims={2}, rhs_contracting_dims={1}, operand_precision={highest,highest}
  k = s32[5,2] dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = (f32[3,5,4], f32[3,5,6], s32[5,2]) tuple(d, e, k)
})");
  ASSERT_NE(module, nullptr);
  auto before = module->Clone();
  GemmRewriter rewriter;
  EXPECT_TRUE(RunPassAndCheck(rewriter, *module));  // verifies, and the same result
  EXPECT_EQ(Count(*module, IsGemm), 2) << module->ToString();
  EXPECT_EQ(Count(*module, IsDot), 1) << "the s32 dot is not a cuBLAS GEMM";
  // The calls read back as the products they replaced, precision included.
  for (const auto& inst : module->entry()->instructions()) {
    if (!IsLibraryCall(*inst)) continue;
    auto call = ParseLibraryCall(*inst);
    ASSERT_TRUE(call.ok()) << call.status().message();
    auto plan = PlanGemmCall(*inst);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    if (inst->shape().dimensions(2) == 6) {
      EXPECT_EQ(plan->compute, GemmComputeType::kF32) << "HIGHEST precision keeps full f32";
    } else {
      EXPECT_EQ(plan->batch, 3);
      EXPECT_EQ(plan->compute, GemmComputeType::kF32FastTf32);
    }
  }
  auto reparsed = ParseModule(module->ToString());
  ASSERT_TRUE(reparsed.ok()) << reparsed.status().message();
  EXPECT_EQ((*reparsed)->ToString(), module->ToString());
  ExpectSameResult(*before, **reparsed);
}

TEST(GemmRewriterTest, OnlyTheGpuPipelineWithLibrariesRewrites) {
  auto mnist = FromFile("assets/examples/mnist_train_step.hlo");
  ASSERT_NE(mnist, nullptr);
  const int dots = Count(*mnist, IsDot);
  ASSERT_GT(dots, 0);
  auto cpu = OptimizeForBackend(*mnist, /*fused=*/true);
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  EXPECT_EQ(Count(**cpu, IsGemm), 0);
  auto gpu = OptimizeForBackend(*mnist, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(Count(**gpu, IsGemm), dots);
  EXPECT_EQ(Count(**gpu, IsDot), 0) << (*gpu)->ToString();
  ExpectSameResult(*mnist, **gpu);
}

// Attention's per-head dots on [batch, seq, heads, head_dim] buffers become calls that
// read their operands in place (no transpose added), and a dot cuBLAS cannot run stays
// Fusebox's kernel with the plan's reason as a decision.
TEST(GemmRewriterTest, AttentionDotsBecomeCallsAndTheRestSayWhyNot) {
  const std::string text = R"(HloModule m
ENTRY e {
  q = f32[2,5,3,4] parameter(0)
  k = f32[2,6,3,4] parameter(1)
  v = f32[2,6,3,4] parameter(2)
  i = s32[5,7] parameter(3)
  j = s32[7,2] parameter(4)
  s = f32[2,3,5,6] dot(q, k), lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}
  o = f32[2,3,5,4] dot(s, v), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}
  n = s32[5,2] dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = (f32[2,3,5,4], s32[5,2]) tuple(o, n)
})";
  auto module = Parse(text);
  ASSERT_NE(module, nullptr);
  const int instructions = static_cast<int>(module->entry()->instructions().size());
  GemmRewriter rewriter;
  EXPECT_TRUE(RunPassAndCheck(rewriter, *module));  // verifies, and the same result
  EXPECT_EQ(Count(*module, IsGemm), 2) << module->ToString();
  EXPECT_EQ(Count(*module, IsDot), 1);
  EXPECT_EQ(static_cast<int>(module->entry()->instructions().size()), instructions) << "nothing added around the calls";
  for (const auto& inst : module->entry()->instructions()) {
    if (!IsLibraryCall(*inst)) continue;
    auto plan = PlanGemmCall(*inst);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->batch, 3) << "the heads are cuBLAS's batch";
    EXPECT_EQ(plan->calls(), 2) << "the batch is a loop of calls";
  }
  auto again = Parse(text);
  ASSERT_NE(again, nullptr);
  PassContext context;
  ASSERT_TRUE(rewriter.Run(*again, context).ok());
  ASSERT_EQ(context.decisions().size(), 1u);
  EXPECT_EQ(context.decisions()[0].producer, "n");
  EXPECT_NE(context.decisions()[0].reason.find("s32 x s32 -> s32 are not a cuBLAS GEMM"), std::string::npos)
      << context.decisions()[0].reason;
}

bool IsConvCall(const Instruction& i) { return IsLibraryCall(i) && i.attrs().custom_call_target == "__cudnn$convForward"; }
bool IsConvolution(const Instruction& i) { return i.opcode() == Opcode::kConvolution; }
bool IsBackwardFilterCall(const Instruction& i) {
  return IsLibraryCall(i) && i.attrs().custom_call_target == "__cudnn$convBackwardFilter";
}
bool IsBackwardInputCall(const Instruction& i) {
  return IsLibraryCall(i) && i.attrs().custom_call_target == "__cudnn$convBackwardInput";
}
bool IsReverse(const Instruction& i) { return i.opcode() == Opcode::kReverse; }
bool IsFusedConvCall(const Instruction& i) {
  return IsLibraryCall(i) && i.attrs().custom_call_target == "__cudnn$convBiasActivationForward";
}

ConvActivation ActivationOf(const Instruction& call) {
  auto parsed = ParseLibraryCall(call);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? parsed->activation : ConvActivation::kNone;
}

// The CIFAR step's convolutions (forward, input and weight gradients, stride 1, SAME)
// each become a cuDNN call. The two forward ones take their bias add and their relu into a
// __cudnn$convBiasActivationForward call (the relu gradient's mask, which read the
// pre-activation, reads the relu: XLA's plan keeps the relu outside for that mask), and the
// two weight gradients are __cudnn$convBackwardFilter calls of
// the forward convolutions they differentiate (3x3 filters), as XLA's own plan of the same
// step has them; each computes what the convolution did.
TEST(ConvRewriterTest, TheCnnStepsConvolutionsBecomeCudnnCalls) {
  auto cifar = FromFile("assets/examples/cifar_cnn_train_step.hlo");
  ASSERT_NE(cifar, nullptr);
  const int convs = Count(*cifar, IsConvolution);
  ASSERT_GT(convs, 0);
  auto gpu = OptimizeForBackend(*cifar, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(Count(**gpu, IsConvCall) + Count(**gpu, IsFusedConvCall) + Count(**gpu, IsBackwardFilterCall) +
                Count(**gpu, IsBackwardInputCall),
            convs)
      << (*gpu)->ToString();
  EXPECT_EQ(Count(**gpu, IsConvolution), 0);
  // The input gradient reads the kernel through a reverse: XLA's backward-input call of
  // the kernel itself, and the reverse goes.
  EXPECT_EQ(Count(**gpu, IsBackwardInputCall), 1);
  EXPECT_EQ(Count(**gpu, IsReverse), 0) << (*gpu)->ToString();
  auto xla = FromFile(
      "tests/data/xla_dumps_gpu/cifar_cnn_train_step/"
      "module_0000.jit_cifar_cnn_train_step.sm_9.0a_gpu_after_optimizations.txt");
  ASSERT_NE(xla, nullptr);
  EXPECT_EQ(Count(**gpu, IsFusedConvCall), Count(*xla, IsFusedConvCall)) << "as many fused calls as XLA's plan";
  EXPECT_EQ(Count(**gpu, IsFusedConvCall), 2);
  EXPECT_EQ(Count(**gpu, IsBackwardFilterCall), Count(*xla, IsBackwardFilterCall)) << "weight gradients as XLA's";
  EXPECT_EQ(Count(**gpu, IsBackwardFilterCall), 2);
  for (const Computation* c : ProgramComputations(**gpu)) {
    for (const auto& inst : c->instructions()) {
      if (!IsBackwardFilterCall(*inst)) continue;
      auto plan = PlanConvolution(*inst);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      EXPECT_EQ(plan->call, ConvCall::kBackwardFilter);
      EXPECT_EQ(plan->kernel.dims[2] * plan->kernel.dims[3], 9) << inst->name() << ": the filter is 3x3";
    }
  }
  for (const Module* module : {&**gpu, &*xla}) {
    for (const Computation* c : ProgramComputations(*module)) {
      for (const auto& inst : c->instructions()) {
        if (IsFusedConvCall(*inst)) {
          EXPECT_EQ(ActivationOf(*inst), module == &*xla ? ConvActivation::kNone : ConvActivation::kRelu)
              << inst->name();
        }
      }
    }
  }
  EXPECT_EQ(Count(**gpu, [](const Instruction& i) { return i.opcode() == Opcode::kMaximum; }), 0)
      << "no relu left outside the calls";
  // Every call's filter is packed as cuDNN takes it (KRSC, as XLA's o01i), so the runtime
  // moves none: the two weights each through one transpose (the second layer's forward
  // call and its input gradient share it), the weight gradients written packed and read
  // back through a transpose fused into their update (the two small filter transposes
  // then share a launch). XLA's calls are packed already.
  std::set<const Instruction*> filter_transposes;
  for (const Module* module : {&**gpu, &*xla}) {
    for (const Computation* c : ProgramComputations(*module)) {
      for (const auto& inst : c->instructions()) {
        if (!IsConvCall(*inst) && !IsFusedConvCall(*inst) && !IsBackwardFilterCall(*inst) &&
            !IsBackwardInputCall(*inst)) {
          continue;
        }
        auto plan = PlanConvolution(*inst);
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        EXPECT_EQ(PackedFilterLayout(*plan), FilterLayout::kKrsc) << inst->name();
        if (module == &**gpu && !IsBackwardFilterCall(*inst)) {
          // The transpose, or its output of the loop fusion the small transposes share
          // (horizontal fusion).
          const Instruction* filter = inst->operand(1);
          if (filter->opcode() == Opcode::kGetTupleElement && filter->operand(0)->opcode() == Opcode::kFusion) {
            filter = filter->operand(0)->fused_computation()->root()->operand(filter->tuple_index());
          }
          EXPECT_EQ(filter->opcode(), Opcode::kTranspose) << inst->name();
          filter_transposes.insert(filter);
        }
      }
    }
  }
  EXPECT_EQ(filter_transposes.size(), 2u);
  ExpectSameResult(*cifar, **gpu);
  // Asymmetric padding moves into a pad of the input; a convolution with lhs dilation (an
  // input gradient of a strided convolution) becomes a backward-input call, its kernel
  // reversed and (cuDNN's padding being symmetric) its longer result sliced.
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = f32[2,8,8,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  dy = f32[2,4,4,4] parameter(2)
  c = f32[2,4,4,4] convolution(x, w), window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=b01f_01io->b01f
  dx = f32[2,8,8,3] convolution(dy, w), window={size=3x3 pad=2_1x2_1 lhs_dilate=2x2}, dim_labels=b01f_01oi->b01f
  ROOT t = (f32[2,4,4,4], f32[2,8,8,3]) tuple(c, dx)
})");
  ASSERT_NE(module, nullptr);
  ConvRewriter rewriter;
  EXPECT_TRUE(RunPassAndCheck(rewriter, *module));  // verifies and computes the same
  EXPECT_EQ(Count(*module, IsConvCall), 1) << module->ToString();
  EXPECT_EQ(Count(*module, IsConvolution), 0);
  EXPECT_EQ(Count(*module, [](const Instruction& i) { return i.opcode() == Opcode::kPad; }), 1);
  EXPECT_EQ(Count(*module, [](const Instruction& i) { return i.opcode() == Opcode::kReverse; }), 1);
  EXPECT_EQ(Count(*module, [](const Instruction& i) { return i.opcode() == Opcode::kSlice; }), 1);
  for (const auto& inst : module->entry()->instructions()) {
    if (!IsLibraryCall(*inst)) continue;
    auto plan = PlanConvolution(*inst);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    if (IsConvCall(*inst)) {
      EXPECT_EQ(plan->padding[0], 0);
      EXPECT_EQ(plan->padding[1], 0);
      EXPECT_EQ(plan->input.dims[2], 9) << "the input padded by 0_1";
      continue;
    }
    EXPECT_EQ(inst->attrs().custom_call_target, "__cudnn$convBackwardInput");
    EXPECT_EQ(plan->call, ConvCall::kBackwardData) << plan->ToString();
    EXPECT_EQ(plan->stride[0], 2) << plan->ToString();
    EXPECT_EQ(plan->padding[0], 0) << "d*(R-1) - padding_low = 2 - 2";
    EXPECT_EQ(plan->input.dims[2], 9) << "dx computed 9 long, sliced to 8";
  }
}

// jax's input gradient of a strided SAME convolution (dy lhs-dilated, the kernel reversed
// by a reverse op, features swapped): one backward-input call, the two reverses cancel,
// and the result is the same at every stride and padding tried.
TEST(ConvRewriterTest, InputGradientsOfStridedConvolutionsBecomeBackwardInputCalls) {
  struct Case {
    std::string dy, dx, window;
  };
  const std::vector<Case> cases = {
      {"f32[2,4,4,4]", "f32[2,8,8,3]", "size=3x3 pad=1_2x1_2 lhs_dilate=2x2"},    // SAME, stride 2
      {"f32[2,3,3,4]", "f32[2,7,7,3]", "size=3x3 pad=2_2x2_2 lhs_dilate=2x2"},    // VALID, stride 2
      {"f32[2,3,4,4]", "f32[2,8,10,3]", "size=3x3 pad=2_1x2_0 lhs_dilate=3x3"},   // stride 3, dx sliced 9->8, 12->10
      {"f32[2,4,4,4]", "f32[2,8,8,3]", "size=3x3 pad=3_2x3_2 lhs_dilate=2x2 rhs_dilate=2x2"},  // dilated kernel
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.window);
    auto module = Parse("HloModule m\nENTRY e {\n  dy = " + c.dy + " parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n"
                        "  r = f32[3,3,3,4] reverse(w), dimensions={0,1}\n  ROOT dx = " + c.dx +
                        " convolution(dy, r), window={" + c.window + "}, dim_labels=b01f_01oi->b01f\n}\n");
    ASSERT_NE(module, nullptr);
    ConvRewriter rewriter;
    EXPECT_TRUE(RunPassAndCheck(rewriter, *module));  // verifies and computes the same
    EXPECT_EQ(Count(*module, IsConvolution), 0) << module->ToString();
    int calls = 0;
    for (const auto& inst : module->entry()->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      ++calls;
      // w itself, packed for cuDNN (KRSC) by a transpose.
      const Instruction* filter = inst->operand(1);
      EXPECT_EQ(filter->opcode(), Opcode::kTranspose);
      if (filter->opcode() == Opcode::kTranspose) filter = filter->operand(0);
      EXPECT_EQ(filter->opcode(), Opcode::kParameter) << "reverse(reverse(w)) is w";
      auto plan = PlanConvolution(*inst);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      EXPECT_EQ(PackedFilterLayout(*plan), FilterLayout::kKrsc);
      EXPECT_EQ(plan->call, ConvCall::kBackwardData);
    }
    EXPECT_EQ(calls, 1);
  }
  // Groups stay a convolution for Fusebox's kernels.
  auto grouped = Parse(R"(HloModule m
ENTRY e {
  dy = f32[2,4,4,4] parameter(0)
  w = f32[3,3,4,2] parameter(1)
  ROOT dx = f32[2,8,8,4] convolution(dy, w), window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2}, dim_labels=b01f_01oi->b01f, feature_group_count=2
})");
  ASSERT_NE(grouped, nullptr);
  ConvRewriter rewriter;
  EXPECT_FALSE(RunPassAndCheck(rewriter, *grouped));
}

TEST(GemmRewriterTest, XlasCallsStayWhenCublasRunsThemAndAreLoweredOtherwise) {
  // The CNN step's calls: three cuDNN convolutions (forward with bias and relu, and the two
  // gradients, stride 2 with padding 1_0) and a cuBLASLt matmul with a BIAS_RELU epilogue.
  // The matmul runs as it is (cuBLASLt); the convolutions are lowered (asymmetric padding
  // cuDNN's calls cannot take), then the forward convolution and the weight gradient
  // become cuDNN calls on a padded input (the forward one taking its bias and relu back
  // into a fused call, the weight gradient a backward-filter call), and the input gradient
  // (lhs dilation) a backward-input call.
  auto cnn = FromFile("tests/data/library_calls/cnn_step_gpu.hlo");
  ASSERT_NE(cnn, nullptr);
  auto gpu = OptimizeForBackend(*cnn, /*fused=*/true, /*gpu_libraries=*/true);
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(Count(**gpu, [](const Instruction& i) {
              return IsLibraryCall(i) && i.attrs().custom_call_target == "__cublas$lt$matmul";
            }), 1) << (*gpu)->ToString();
  EXPECT_EQ(Count(**gpu, IsDot), 0);
  EXPECT_EQ(Count(**gpu, IsConvCall), 0);
  EXPECT_EQ(Count(**gpu, IsBackwardFilterCall), 1);
  EXPECT_EQ(Count(**gpu, IsFusedConvCall), 1);
  EXPECT_EQ(Count(**gpu, [](const Instruction& i) {
              return IsFusedConvCall(i) && ActivationOf(i) == ConvActivation::kRelu;
            }), 1) << (*gpu)->ToString();
  EXPECT_EQ(Count(**gpu, [](const Instruction& i) {
              return IsLibraryCall(i) && i.attrs().custom_call_target == "__cudnn$convBackwardInput";
            }), 1);
  EXPECT_EQ(Count(**gpu, IsConvolution), 0);
  ExpectSameResult(*cnn, **gpu);
  // An XLA gemm cuBLAS runs as it is stays the call it was.
  auto xla = Parse(R"(HloModule m
ENTRY e {
  a = f32[4,6]{1,0} parameter(0)
  b = f32[5,6]{1,0} parameter(1)
  g = (f32[4,5]{1,0}, s8[1024]{0}) custom-call(a, b), custom_call_target="__cublas$gemm", backend_config={"gemm_backend_config":{"alpha_real":1,"beta":0,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["1"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]},"alpha_imag":0,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"]},"epilogue":"DEFAULT"}}
  ROOT v = f32[4,5]{1,0} get-tuple-element(g), index=0
})");
  ASSERT_NE(xla, nullptr);
  auto kept = OptimizeForBackend(*xla, true, true);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_EQ(Count(**kept, IsGemm), 1);
  auto lowered = OptimizeForBackend(*xla, true, false);
  ASSERT_TRUE(lowered.ok()) << lowered.status().message();
  EXPECT_EQ(Count(**lowered, IsGemm), 0);
  EXPECT_EQ(Count(**lowered, IsDot), 1);
}

bool IsAddOrMaximum(const Instruction& i) { return i.opcode() == Opcode::kAdd || i.opcode() == Opcode::kMaximum; }

// The entry `body` parsed, rewritten by `pass` (which must change it), verified and
// checked to compute what it did.
std::unique_ptr<Module> Rewritten(Pass& pass, const std::string& body) {
  auto module = Parse("HloModule m\nENTRY e {\n" + body + "}\n");
  if (module != nullptr) {
    EXPECT_TRUE(RunPassAndCheck(pass, *module));
  }
  return module;
}

GemmEpilogue EpilogueOf(const Instruction& call) {
  auto parsed = ParseLibraryCall(call);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? parsed->epilogue : GemmEpilogue::kDefault;
}

// A bias add along the last dimension and a relu after a dot become a cuBLASLt epilogue
// (one call, no elementwise op left); a bias along another dimension, a pre-activation
// that has another user, and a maximum with a non-zero do not; every module computes
// what it did, and the calls plan as cublasLtMatmul with the bias as operand 2.
// The module has one gemm call, with epilogue `want` as XLA writes it and as the plan
// reads it: the bias (when the epilogue has one) as operand 2, cuBLASLt's target when
// there is an epilogue.
void ExpectOneGemmCallWithEpilogue(const Module& module, GemmEpilogue want) {
  EXPECT_EQ(Count(module, IsLibraryCall), 1) << module.ToString();
  const bool bias = GemmEpilogueHasBias(want);
  for (const auto& inst : module.entry()->instructions()) {
    if (!IsLibraryCall(*inst)) continue;
    EXPECT_EQ(EpilogueOf(*inst), want) << module.ToString();
    auto plan = PlanGemmCall(*inst);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->epilogue, want);
    EXPECT_EQ(plan->bias_operand, bias ? 2 : -1);
    EXPECT_EQ(inst->attrs().custom_call_target, want == GemmEpilogue::kDefault ? "__cublas$gemm" : "__cublas$lt$matmul");
  }
}

TEST(GemmRewriterTest, BiasAndReluAfterADotBecomeItsEpilogue) {
  struct Case {
    std::string body;
    GemmEpilogue want;
    int elementwise_left;
  };
  const std::string dot = "  d = f32[8,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
  const std::vector<Case> cases = {
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  s = f32[8,16] add(d, bb)\n"
             "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n"
             "  ROOT r = f32[8,16] maximum(s, zz)\n",
       GemmEpilogue::kBiasRelu, 0},
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  ROOT s = f32[8,16] add(bb, d)\n", GemmEpilogue::kBias, 0},
      {dot + "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n  ROOT r = f32[8,16] maximum(zz, d)\n",
       GemmEpilogue::kRelu, 0},
      // The pre-activation has a second user (a backward pass would): bias only.
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  s = f32[8,16] add(d, bb)\n"
             "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n"
             "  r = f32[8,16] maximum(s, zz)\n  ROOT t = (f32[8,16], f32[8,16]) tuple(r, s)\n",
       GemmEpilogue::kBias, 1},
      // jax's relu gradient, select(s > 0, g, 0): its test reads the relu instead (s > 0
      // exactly when max(s, 0) > 0), and the relu folds; also written as 0 < s.
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  s = f32[8,16] add(d, bb)\n"
             "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n"
             "  r = f32[8,16] maximum(s, zz)\n  g = f32[8,16] parameter(3)\n"
             "  m = pred[8,16] compare(s, zz), direction=GT\n  dg = f32[8,16] select(m, g, zz)\n"
             "  ROOT t = (f32[8,16], f32[8,16]) tuple(r, dg)\n",
       GemmEpilogue::kBiasRelu, 0},
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  s = f32[8,16] add(d, bb)\n"
             "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n"
             "  r = f32[8,16] maximum(s, zz)\n  g = f32[8,16] parameter(3)\n"
             "  m = pred[8,16] compare(zz, s), direction=LT\n  dg = f32[8,16] select(m, g, zz)\n"
             "  ROOT t = (f32[8,16], f32[8,16]) tuple(r, dg)\n",
       GemmEpilogue::kBiasRelu, 0},
      // A test the relu does not answer the same way (s < 0) keeps the pre-activation.
      {dot + "  bb = f32[8,16] broadcast(b), dimensions={1}\n  s = f32[8,16] add(d, bb)\n"
             "  z = f32[] constant(0)\n  zz = f32[8,16] broadcast(z), dimensions={}\n"
             "  r = f32[8,16] maximum(s, zz)\n  g = f32[8,16] parameter(3)\n"
             "  m = pred[8,16] compare(s, zz), direction=LT\n  dg = f32[8,16] select(m, g, zz)\n"
             "  ROOT t = (f32[8,16], f32[8,16]) tuple(r, dg)\n",
       GemmEpilogue::kBias, 1},
      // A bias along the rows is not cuBLASLt's.
      {dot + "  c = f32[8] parameter(3)\n  cc = f32[8,16] broadcast(c), dimensions={0}\n  ROOT s = f32[8,16] add(d, cc)\n",
       GemmEpilogue::kDefault, 1},
      // maximum with 1 is not a relu.
      {dot + "  one = f32[] constant(1)\n  oo = f32[8,16] broadcast(one), dimensions={}\n  ROOT r = f32[8,16] maximum(d, oo)\n",
       GemmEpilogue::kDefault, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    GemmRewriter rewriter;
    auto module = Rewritten(
        rewriter, "  x = f32[8,32] parameter(0)\n  w = f32[32,16] parameter(1)\n  b = f32[16] parameter(2)\n" + c.body);
    ASSERT_NE(module, nullptr);
    EXPECT_EQ(Count(*module, IsAddOrMaximum), c.elementwise_left) << module->ToString();
    ExpectOneGemmCallWithEpilogue(*module, c.want);
  }
}

bool IsTanh(const Instruction& i) { return i.opcode() == Opcode::kTanh; }

// GELU's tanh form after a dot (and its bias), as jax.nn.gelu writes it, becomes the
// cuBLASLt call's GELU or BIAS_GELU epilogue: in any order and association of its
// products. When the pre-activation has another user (a backward pass), the call is
// GELU_AUX or BIAS_GELU_AUX and its second output replaces the pre-activation, as XLA's
// gemm-rewriter writes it; where cuBLASLt cannot write that output (a leading dimension
// not a multiple of 8) only the bias folds, and a decision says why. Not when a constant
// or the power differs (that is another function).
TEST(GemmRewriterTest, GeluAfterADotBecomesItsEpilogue) {
  const std::string dot = "  d = f32[8,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
  const std::string bias = "  bb = f32[8,16] broadcast(b), dimensions={1}\n  v = f32[8,16] add(d, bb)\n";
  // jax.nn.gelu(v, approximate=True), as jax 0.10 lowers it (x**3 as two multiplies).
  auto gelu = [](const std::string& v, const std::string& c0 = "0.044715", const std::string& cube = "p3") {
    return "  p2 = f32[8,16] multiply(" + v + ", " + v + ")\n" +
           (cube == "p3" ? "  p3 = f32[8,16] multiply(p2, " + v + ")\n" : std::string()) +
           "  c0 = f32[] constant(" + c0 + ")\n  c0b = f32[8,16] broadcast(c0), dimensions={}\n" +
           "  m0 = f32[8,16] multiply(" + cube + ", c0b)\n  s0 = f32[8,16] add(" + v + ", m0)\n" +
           "  c1 = f32[] constant(0.797884583)\n  c1b = f32[8,16] broadcast(c1), dimensions={}\n" +
           "  m1 = f32[8,16] multiply(s0, c1b)\n  t = f32[8,16] tanh(m1)\n" +
           "  one = f32[] constant(1)\n  oneb = f32[8,16] broadcast(one), dimensions={}\n" +
           "  a1 = f32[8,16] add(t, oneb)\n  half = f32[] constant(0.5)\n" +
           "  halfb = f32[8,16] broadcast(half), dimensions={}\n";
  };
  const std::string m2 = "  m2 = f32[8,16] multiply(a1, halfb)\n";
  struct Case {
    std::string body;
    GemmEpilogue want;
    int tanh_left;
  };
  const std::vector<Case> cases = {
      {dot + bias + gelu("v") + m2 + "  ROOT g = f32[8,16] multiply(v, m2)\n", GemmEpilogue::kBiasGelu, 0},
      {dot + gelu("d") + m2 + "  ROOT g = f32[8,16] multiply(m2, d)\n", GemmEpilogue::kGelu, 0},
      // (0.5 * x) * (1 + tanh(...)): another association of the outer product.
      {dot + bias + gelu("v") + "  hx = f32[8,16] multiply(halfb, v)\n  ROOT g = f32[8,16] multiply(hx, a1)\n",
       GemmEpilogue::kBiasGelu, 0},
      // The pre-activation is also an output (a backward pass reads it): the aux output.
      {dot + bias + gelu("v") + m2 + "  g = f32[8,16] multiply(v, m2)\n  ROOT o = (f32[8,16], f32[8,16]) tuple(g, v)\n",
       GemmEpilogue::kBiasGeluAux, 0},
      {dot + gelu("d") + m2 + "  g = f32[8,16] multiply(m2, d)\n  n = f32[8,16] negate(d)\n"
             "  ROOT o = (f32[8,16], f32[8,16]) tuple(n, g)\n",
       GemmEpilogue::kGeluAux, 0},
      // The backward pass reads tanh(...) too (jax's GELU gradient does): it stays, on the aux.
      {dot + bias + gelu("v") + m2 + "  g = f32[8,16] multiply(v, m2)\n  ROOT o = (f32[8,16], f32[8,16]) tuple(g, t)\n",
       GemmEpilogue::kBiasGeluAux, 1},
      // Another constant, and x^2 for x^3: not GELU.
      {dot + bias + gelu("v", "0.05") + m2 + "  ROOT g = f32[8,16] multiply(v, m2)\n", GemmEpilogue::kBias, 1},
      {dot + bias + gelu("v", "0.044715", "p2") + m2 + "  ROOT g = f32[8,16] multiply(v, m2)\n", GemmEpilogue::kBias,
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    GemmRewriter rewriter;
    auto module = Rewritten(
        rewriter, "  x = f32[8,32] parameter(0)\n  w = f32[32,16] parameter(1)\n  b = f32[16] parameter(2)\n" + c.body);
    ASSERT_NE(module, nullptr);  // Rewritten checks the result against the original's
    EXPECT_EQ(Count(*module, IsTanh), c.tanh_left) << module->ToString();
    ExpectOneGemmCallWithEpilogue(*module, c.want);
    if (GemmEpilogueHasAux(c.want)) {
      // (value, aux): the GELU's users read element 0, the pre-activation's element 1 (and
      // what the backward pass reads of the GELU's steps is computed from it).
      std::vector<int64_t> indices;
      for (const auto& inst : module->entry()->instructions()) {
        if (inst->opcode() != Opcode::kGetTupleElement) continue;
        EXPECT_TRUE(IsLibraryCall(*inst->operand(0))) << module->ToString();
        indices.push_back(inst->tuple_index());
      }
      std::sort(indices.begin(), indices.end());
      EXPECT_EQ(indices, (std::vector<int64_t>{0, 1})) << module->ToString();
    } else if (c.tanh_left == 0) {
      EXPECT_EQ(module->entry()->instructions().size(), 4u) << "only the call and its operands stay\n"
                                                            << module->ToString();
    }
  }
  // 12 columns: cuBLASLt's aux leading dimension would not be a multiple of 8, so the GELU
  // stays HLO (its bias folds), and the decision says why.
  std::string body = dot + bias + gelu("v") + m2 + "  g = f32[8,16] multiply(v, m2)\n"
                     "  ROOT o = (f32[8,16], f32[8,16]) tuple(g, v)\n";
  for (size_t at = body.find("8,16"); at != std::string::npos; at = body.find("8,16", at)) body.replace(at, 4, "8,12");
  auto module = Parse("HloModule m\nENTRY e {\n  x = f32[8,32] parameter(0)\n  w = f32[32,12] parameter(1)\n"
                      "  b = f32[12] parameter(2)\n" + body + "}\n");
  ASSERT_NE(module, nullptr);
  std::unique_ptr<Module> original = module->Clone();
  GemmRewriter rewriter;
  PassContext context;
  auto changed = rewriter.Run(*module, context);
  ASSERT_TRUE(changed.ok() && *changed) << changed.status().message();
  ExpectSameResult(*original, *module);
  EXPECT_EQ(Count(*module, IsTanh), 1) << module->ToString();
  ExpectOneGemmCallWithEpilogue(*module, GemmEpilogue::kBias);
  bool said = false;
  for (const FusionDecision& d : context.decisions()) {
    said = said || (d.reason.find("BIAS_GELU_AUX epilogue stays HLO") != std::string::npos &&
                    d.reason.find("multiples of 8") != std::string::npos);
  }
  EXPECT_TRUE(said) << "no decision says why the GELU stayed";
}

// The bias add along the output features after a forward convolution and a relu after it
// fold into one __cudnn$convBiasActivationForward call, each only where it is the only
// user of the one before (as XLA's cudnn-fused-convolution-rewriter folds them); a weight
// gradient's add does not. Every module computes what it did, and the calls plan as
// cuDNN's fused call.
TEST(ConvRewriterTest, BiasAndReluAfterAConvolutionFoldIntoCudnnsFusedCall) {
  struct Case {
    std::string body;
    int fused;  // fused calls (0 or 1)
    ConvActivation want;
    int elementwise_left;  // adds and maximums left outside
  };
  const std::string conv =
      "  c = f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n";
  const std::string relu = "  z = f32[] constant(0)\n  zz = f32[2,6,5,4] broadcast(z), dimensions={}\n";
  const std::vector<Case> cases = {
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  s = f32[2,6,5,4] add(c, bb)\n" + relu +
           "  ROOT r = f32[2,6,5,4] maximum(s, zz)\n",
       1, ConvActivation::kRelu, 0},
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  ROOT s = f32[2,6,5,4] add(bb, c)\n", 1,
       ConvActivation::kNone, 0},
      // A relu gradient's mask (s > 0) reads the pre-activation: it reads the relu instead
      // (s > 0 exactly when max(s, 0) > 0), and the relu folds.
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  s = f32[2,6,5,4] add(c, bb)\n" + relu +
           "  r = f32[2,6,5,4] maximum(s, zz)\n  m = pred[2,6,5,4] compare(s, zz), direction=GT\n"
           "  ROOT t = (f32[2,6,5,4], pred[2,6,5,4]) tuple(r, m)\n",
       1, ConvActivation::kRelu, 0},
      // s >= 0 is not max(s, 0) >= 0 (s = -1), and a total order tells a NaN's sign: the
      // pre-activation has a second user and only the bias folds.
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  s = f32[2,6,5,4] add(c, bb)\n" + relu +
           "  r = f32[2,6,5,4] maximum(s, zz)\n  m = pred[2,6,5,4] compare(s, zz), direction=GE\n"
           "  ROOT t = (f32[2,6,5,4], pred[2,6,5,4]) tuple(r, m)\n",
       1, ConvActivation::kNone, 1},
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  s = f32[2,6,5,4] add(c, bb)\n" + relu +
           "  r = f32[2,6,5,4] maximum(s, zz)\n  m = pred[2,6,5,4] compare(s, zz), direction=GT, type=TOTALORDER\n"
           "  ROOT t = (f32[2,6,5,4], pred[2,6,5,4]) tuple(r, m)\n",
       1, ConvActivation::kNone, 1},
      // The convolution has a second user: nothing folds.
      {conv + "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n  s = f32[2,6,5,4] add(c, bb)\n"
              "  ROOT t = (f32[2,6,5,4], f32[2,6,5,4]) tuple(s, c)\n",
       0, ConvActivation::kNone, 1},
      // NCHW: the bias along dimension 1.
      {"  xn = f32[2,3,6,5] parameter(3)\n  wn = f32[4,3,3,3] parameter(4)\n"
       "  cn = f32[2,4,6,5] convolution(xn, wn), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01\n"
       "  bn = f32[2,4,6,5] broadcast(b), dimensions={1}\n  s = f32[2,4,6,5] add(cn, bn)\n"
       "  z = f32[] constant(0)\n  zz = f32[2,4,6,5] broadcast(z), dimensions={}\n"
       "  ROOT r = f32[2,4,6,5] maximum(s, zz)\n",
       1, ConvActivation::kRelu, 0},
      // A weight gradient (planned as backward filter) keeps its add outside.
      {"  dy = f32[2,6,5,4] parameter(3)\n"
       "  dw = f32[3,3,3,4] convolution(x, dy), window={size=6x5 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf\n"
       "  bw = f32[3,3,3,4] broadcast(b), dimensions={3}\n  ROOT s = f32[3,3,3,4] add(dw, bw)\n",
       0, ConvActivation::kNone, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    ConvRewriter rewriter;
    auto module = Rewritten(
        rewriter, "  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n  b = f32[4] parameter(2)\n" + c.body);
    ASSERT_NE(module, nullptr);
    EXPECT_EQ(Count(*module, IsAddOrMaximum), c.elementwise_left) << module->ToString();
    EXPECT_EQ(Count(*module, IsLibraryCall), 1) << module->ToString();
    for (const auto& inst : module->entry()->instructions()) {
      if (!IsLibraryCall(*inst)) continue;
      auto plan = PlanConvolution(*inst);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      if (!IsFusedConvCall(*inst)) continue;
      EXPECT_EQ(ActivationOf(*inst), c.want) << module->ToString();
      ASSERT_TRUE(plan->bias_activation.has_value());
      EXPECT_EQ(plan->bias_activation->activation,
                c.want == ConvActivation::kRelu ? ConvFusedActivation::kRelu : ConvFusedActivation::kIdentity);
      EXPECT_EQ(inst->operand(2)->name(), "b") << "the bias vector is operand 2";
    }
    EXPECT_EQ(Count(*module, IsFusedConvCall), c.fused) << module->ToString();
  }
}

bool IsElementwise(const Instruction& i) {
  return i.opcode() == Opcode::kAdd || i.opcode() == Opcode::kMaximum || i.opcode() == Opcode::kMultiply;
}

// The rest of XLA's folds into cuDNN's fused call y = act(alpha1 * conv + alpha2 * z + bias):
// a multiply by a broadcast constant right after the convolution (conv_result_scale), a
// broadcast scalar as the bias, any other addend as the side input z (a multiply of it by a
// broadcast constant as side_input_scale), a relu without a bias (a zero bias), in either
// order of bias and side input; and what stays outside: a second side input, a scale after
// the bias, a depthwise convolution. Every module computes what it did (the interpreter
// evaluates the call by its meaning), and every call plans as cuDNN's fused call.
TEST(ConvRewriterTest, ScalesSideInputsAndBareRelusFoldAsXlasRewriterFoldsThem) {
  struct Case {
    std::string name;
    std::string body;
    int fused;               // fused calls (0 or 1)
    ConvActivation want;
    std::string bias;        // operand 2: "b", "zero" (a zero constant) or "scalar" (a broadcast scalar)
    std::string side;        // operand 3's name, "" for none
    double alpha1, alpha2;
    int elementwise_left;    // adds, maximums and multiplies left outside
  };
  const std::string conv =
      "  c = f32[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n";
  const std::string bias = "  bb = f32[2,6,5,4] broadcast(b), dimensions={3}\n";
  const std::string zero = "  z = f32[] constant(0)\n  zz = f32[2,6,5,4] broadcast(z), dimensions={}\n";
  auto constant = [](const std::string& name, const std::string& value) {
    return "  " + name + "0 = f32[] constant(" + value + ")\n  " + name + " = f32[2,6,5,4] broadcast(" + name +
           "0), dimensions={}\n";
  };
  const std::vector<Case> cases = {
      {"relu without a bias", conv + zero + "  ROOT y = f32[2,6,5,4] maximum(c, zz)\n", 1, ConvActivation::kRelu, "zero",
       "", 1, 0, 0},
      {"scale, bias, relu",
       conv + constant("k", "0.5") + "  m = f32[2,6,5,4] multiply(k, c)\n" + bias + "  s = f32[2,6,5,4] add(m, bb)\n" +
           zero + "  ROOT y = f32[2,6,5,4] maximum(s, zz)\n",
       1, ConvActivation::kRelu, "b", "", 0.5, 0, 0},
      {"residual after the bias, then relu",
       conv + bias + "  s = f32[2,6,5,4] add(c, bb)\n  t = f32[2,6,5,4] add(s, r)\n" + zero +
           "  ROOT y = f32[2,6,5,4] maximum(t, zz)\n",
       1, ConvActivation::kRelu, "b", "r", 1, 1, 0},
      {"residual before the bias",
       conv + bias + "  s = f32[2,6,5,4] add(r, c)\n  ROOT t = f32[2,6,5,4] add(bb, s)\n", 1, ConvActivation::kNone,
       "b", "r", 1, 1, 0},
      {"scaled residual",
       conv + constant("k", "-0.75") + "  rk = f32[2,6,5,4] multiply(r, k)\n  ROOT t = f32[2,6,5,4] add(c, rk)\n", 1,
       ConvActivation::kNone, "zero", "r", 1, -0.75, 0},
      {"scalar bias", conv + "  sb = f32[] parameter(4)\n  sbb = f32[2,6,5,4] broadcast(sb), dimensions={}\n"
                      "  ROOT t = f32[2,6,5,4] add(c, sbb)\n",
       1, ConvActivation::kNone, "scalar", "", 1, 0, 0},
      // A bias along another dimension is a side input (XLA's reading): materialized.
      {"bias along the width",
       conv + "  e = f32[5] parameter(4)\n  ee = f32[2,6,5,4] broadcast(e), dimensions={2}\n"
              "  s = f32[2,6,5,4] add(c, ee)\n" + zero + "  ROOT y = f32[2,6,5,4] maximum(s, zz)\n",
       1, ConvActivation::kRelu, "zero", "ee", 1, 1, 0},
      {"a second side input stays outside",
       conv + "  s = f32[2,6,5,4] add(c, r)\n  r2 = f32[2,6,5,4] parameter(4)\n  ROOT t = f32[2,6,5,4] add(s, r2)\n",
       1, ConvActivation::kNone, "zero", "r", 1, 1, 1},
      {"a scale after the bias stays outside",
       conv + bias + "  s = f32[2,6,5,4] add(c, bb)\n" + constant("k", "2") +
           "  ROOT m = f32[2,6,5,4] multiply(s, k)\n",
       1, ConvActivation::kNone, "b", "", 1, 0, 1},
      {"a multiply by a non-constant stays outside",
       conv + "  ROOT m = f32[2,6,5,4] multiply(c, r)\n", 0, ConvActivation::kNone, "", "", 1, 0, 1},
      {"the pre-activation read twice keeps the relu outside",
       conv + "  s = f32[2,6,5,4] add(c, r)\n" + zero +
           "  y = f32[2,6,5,4] maximum(s, zz)\n  ROOT t = (f32[2,6,5,4], f32[2,6,5,4]) tuple(y, s)\n",
       1, ConvActivation::kNone, "zero", "r", 1, 1, 1},
      // Depthwise (3 groups of one input feature each): XLA leaves it unfused.
      {"depthwise", "  wd = f32[3,3,1,3] parameter(4)\n"
                    "  c = f32[2,6,5,3] convolution(x, wd), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, "
                    "feature_group_count=3\n  zd = f32[] constant(0)\n  zz = f32[2,6,5,3] broadcast(zd), dimensions={}\n"
                    "  ROOT y = f32[2,6,5,3] maximum(c, zz)\n",
       0, ConvActivation::kNone, "", "", 1, 0, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ConvRewriter rewriter;
    auto module = Rewritten(rewriter,
                            "  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n  b = f32[4] parameter(2)\n"
                            "  r = f32[2,6,5,4] parameter(3)\n" + c.body);
    ASSERT_NE(module, nullptr);
    EXPECT_EQ(Count(*module, IsElementwise), c.elementwise_left) << module->ToString();
    EXPECT_EQ(Count(*module, IsLibraryCall), 1) << module->ToString();
    EXPECT_EQ(Count(*module, IsFusedConvCall), c.fused) << module->ToString();
    for (const auto& inst : module->entry()->instructions()) {
      if (!IsFusedConvCall(*inst)) continue;
      auto parsed = ParseLibraryCall(*inst);
      ASSERT_TRUE(parsed.ok()) << parsed.status().message();
      EXPECT_EQ(parsed->activation, c.want);
      EXPECT_EQ(parsed->conv_result_scale, c.alpha1);
      EXPECT_EQ(parsed->side_input_scale, c.alpha2);
      auto plan = PlanConvolution(*inst);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      ASSERT_TRUE(plan->bias_activation.has_value());
      EXPECT_EQ(plan->bias_activation->side_input, !c.side.empty());
      const Instruction* b = inst->operand(2);
      if (c.bias == "zero") {
        EXPECT_EQ(b->opcode(), Opcode::kConstant) << module->ToString();
        ASSERT_NE(b->literal(), nullptr);
        for (int64_t i = 0; i < b->literal()->element_count(); ++i) EXPECT_EQ(b->literal()->GetDouble(i), 0.0);
      } else if (c.bias == "scalar") {
        EXPECT_EQ(b->opcode(), Opcode::kBroadcast) << module->ToString();
        EXPECT_EQ(b->operand(0)->name(), "sb");
      } else {
        EXPECT_EQ(b->name(), c.bias);
      }
      EXPECT_EQ(b->shape().dimensions(), std::vector<int64_t>{4});
      ASSERT_EQ(inst->operand_count(), c.side.empty() ? 3 : 4) << module->ToString();
      if (!c.side.empty()) {
        EXPECT_EQ(inst->operand(3)->name(), c.side);
      }
    }
  }
}

// What cuDNN's fused call cannot compute (bf16 here) keeps its bias add outside, and the
// pass says why.
TEST(ConvRewriterTest, ABiasCudnnCannotFuseStaysOutsideWithAReason) {
  auto module = Parse(R"(HloModule m
ENTRY e {
  x = bf16[2,6,5,3] parameter(0)
  w = bf16[3,3,3,4] parameter(1)
  b = bf16[4] parameter(2)
  c = bf16[2,6,5,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  bb = bf16[2,6,5,4] broadcast(b), dimensions={3}
  ROOT s = bf16[2,6,5,4] add(c, bb)
})");
  ASSERT_NE(module, nullptr);
  ConvRewriter rewriter;
  PassContext context;
  auto changed = rewriter.Run(*module, context);
  ASSERT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(Count(*module, IsConvCall), 1);
  EXPECT_EQ(Count(*module, IsFusedConvCall), 0);
  ASSERT_EQ(context.decisions().size(), 1u);
  EXPECT_FALSE(context.decisions()[0].fused);
  EXPECT_NE(context.decisions()[0].reason.find("element type bf16"), std::string::npos) << context.decisions()[0].reason;
}

// XLA's fused calls stay calls on the GPU path when cuDNN's fused call runs them (the real
// CIFAR step's two bias-only calls, a relu with a side input and a scale), and the others
// (an ELU) are lowered with the plan's reason as the decision.
TEST(LibraryCallLoweringTest, XlasFusedConvolutionCallsStayWhenCudnnRunsThem) {
  auto xla = FromFile(
      "tests/data/xla_dumps_gpu/cifar_cnn_train_step/"
      "module_0000.jit_cifar_cnn_train_step.sm_9.0a_gpu_after_optimizations.txt");
  ASSERT_NE(xla, nullptr);
  EXPECT_EQ(Count(*xla, IsFusedConvCall), 2);
  LibraryCallLowering keep(/*keep_library_calls=*/true);
  PassContext context;
  ASSERT_TRUE(keep.Run(*xla, context).ok());
  EXPECT_EQ(Count(*xla, IsFusedConvCall), 2) << "XLA's conv+bias calls run as they are";
  EXPECT_TRUE(context.decisions().empty());
  const std::string call =
      R"(custom-call(x, w, b, z), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convBiasActivationForward", backend_config={"cudnn_conv_backend_config":{"activation_mode":"MODE","conv_result_scale":0.5,"side_input_scale":0.25,"leakyrelu_alpha":0.1}})";
  for (const std::string mode : {"kRelu", "kElu"}) {
    SCOPED_TRACE(mode);
    std::string text = call;
    text.replace(text.find("MODE"), 4, mode);
    auto module = Parse("HloModule m\nENTRY e {\n  x = f32[2,6,5,3] parameter(0)\n  w = f32[3,3,3,4] parameter(1)\n"
                        "  b = f32[4] parameter(2)\n  z = f32[2,6,5,4] parameter(3)\n"
                        "  f = (f32[2,6,5,4], u8[0]) " + text + "\n  ROOT v = f32[2,6,5,4] get-tuple-element(f), index=0\n}\n");
    ASSERT_NE(module, nullptr);
    auto before = module->Clone();
    LibraryCallLowering lowering(true);
    PassContext decisions;
    auto changed = lowering.Run(*module, decisions);
    ASSERT_TRUE(changed.ok()) << changed.status().message();
    if (mode == "kRelu") {
      EXPECT_FALSE(*changed);
      EXPECT_EQ(Count(*module, IsFusedConvCall), 1);
      EXPECT_TRUE(decisions.decisions().empty());
    } else {
      EXPECT_TRUE(*changed);
      EXPECT_EQ(Count(*module, IsFusedConvCall), 0);
      ASSERT_EQ(decisions.decisions().size(), 1u);
      EXPECT_NE(decisions.decisions()[0].reason.find("activation kElu"), std::string::npos)
          << decisions.decisions()[0].reason;
    }
    // Either way the GPU plan computes what the call does. The lowered ELU call's scale,
    // bias and scaled side input fold into a fused call again (kNone), the ELU outside.
    auto gpu = OptimizeForBackend(*before, true, true);
    ASSERT_TRUE(gpu.ok()) << gpu.status().message();
    EXPECT_EQ(Count(**gpu, IsFusedConvCall), 1) << (*gpu)->ToString();
    for (const Computation* c : ProgramComputations(**gpu)) {
      for (const auto& inst : c->instructions()) {
        if (!IsFusedConvCall(*inst)) continue;
        auto parsed = ParseLibraryCall(*inst);
        ASSERT_TRUE(parsed.ok()) << parsed.status().message();
        EXPECT_EQ(parsed->activation, mode == "kRelu" ? ConvActivation::kRelu : ConvActivation::kNone);
        EXPECT_EQ(parsed->conv_result_scale, 0.5);
        EXPECT_EQ(parsed->side_input_scale, 0.25);
      }
    }
    ExpectSameResult(*before, **gpu);
  }
}

}  // namespace
}  // namespace fusebox::passes
