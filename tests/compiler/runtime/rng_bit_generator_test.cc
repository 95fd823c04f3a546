// rng-bit-generator against XLA: the interpreter and the CPU backend give the bits and the
// new state that jax's lax.rng_bit_generator gave on XLA's CPU backend (jax 0.10.2,
// JAX_ENABLE_X64=1; the values below are its output), for Philox (rng_default and
// rng_philox, a 128-bit counter that carries) and Threefry (32-bit elements over the
// halved shape, odd sizes, a scalar; 64-bit elements), u8 and u16 elements of both, and
// the GPU backend's kernel in the GPU emulator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/codegen/gpu_compiler.h"
#include "compiler/codegen/gpu_emulator.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/optimization_pipeline.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox {
namespace {

struct Golden {
  std::string algorithm;  // rng_default, rng_philox, rng_three_fry
  std::string type;       // u8, u16, u32 or u64
  std::vector<int64_t> dims;
  std::vector<uint64_t> state, bits, new_state;
};

// jax: lax.rng_bit_generator(state, dims, dtype, algorithm) under jax.jit on the CPU.
const std::vector<Golden>& Goldens() {
  static const auto* goldens = new std::vector<Golden>{
      {"rng_default", "u32", {2, 5}, {0x123456789abcdefull, 0xfedcba987654321ull},
       {0x3f79779ull, 0xa95e5444ull, 0x93fec51cull, 0xabf0e102ull, 0x4db1e210ull, 0xad8b885full, 0xa8abfe16ull,
        0x7096a2f4ull, 0x8db85903ull, 0x6d29129aull},
       {0x123456789abcdefull, 0xfedcba987654324ull}},
      {"rng_default", "u64", {3}, {0x2aull, 0x7ull},
       {0x3c8c395d559ee8e8ull, 0xb99419423efdb4dcull, 0x1d2f191647265eceull}, {0x2aull, 0x9ull}},
      {"rng_philox", "u32", {2, 3, 3}, {0x1ull, 0xfffffffffffffffeull},
       {0x7371d440ull, 0xa516a1a0ull, 0xe5b2a513ull, 0x3761a96cull, 0x586e44b1ull, 0x26dab12aull, 0xd8b888d9ull,
        0xd93830ccull, 0xe73404cfull, 0x8cedc5d3ull, 0x3f071736ull, 0xa0afdddull, 0xb7b4c173ull, 0xdb04b052ull,
        0x44541f91ull, 0xe0b3cf3ull, 0x93ef3e55ull, 0x5a8567b3ull},
       {0x1ull, 0x3ull}},
      {"rng_three_fry", "u32", {7, 3}, {0x63ull, 0x3039ull},
       {0x47ac74deull, 0x86b7c9bbull, 0x5cc78f1cull, 0x73cea2afull, 0x7703bdb9ull, 0xd3150280ull, 0xa392af10ull,
        0xf41baf38ull, 0x1f5bf947ull, 0x7eed0178ull, 0xc238f38bull, 0xda24ca92ull, 0x7c1a22f9ull, 0xf1f3c236ull,
        0xaf675e7aull, 0x2c03afd1ull, 0xc04d6e22ull, 0x55b52c73ull, 0xb56cc095ull, 0x14e5dbc6ull, 0x828a2239ull},
       {0x63ull, 0x3045ull}},
      {"rng_three_fry", "u32", {5, 3}, {0x5ull, 0x6ull},
       {0xaa55bea4ull, 0xee74f173ull, 0xa74d45ull, 0xecbe4fc8ull, 0x3f6592d8ull, 0x7aa38252ull, 0xe2c00f71ull,
        0xba630292ull, 0x18ab7d7ull, 0x5fa40d2aull, 0x21346aa2ull, 0xeca4aa7bull, 0x43f5f0ccull, 0x9de8de6bull,
        0x3e407ba3ull},
       {0x5ull, 0xfull}},
      {"rng_three_fry", "u32", {}, {0x8ull, 0x9ull}, {0x7a092602ull}, {0x8ull, 0xaull}},
      // Halved along the first even dimension (1, then 2), the counter wrapping.
      {"rng_three_fry", "u32", {3, 4}, {0xbull, 0xffffffffffffffffull},
       {0x3b13e4beull, 0xc3bbeb6eull, 0xeca82fb3ull, 0x2f595762ull, 0x8a615543ull, 0x90d465a7ull, 0x4683f44cull,
        0x4d07afdaull, 0xdb503fe8ull, 0xd5950437ull, 0xe5c21645ull, 0x3719c94dull},
       {0xbull, 0x5ull}},
      {"rng_three_fry", "u32", {3, 5, 2}, {0x7ull, 0x64ull},
       {0xc5dc1479ull, 0xb1e8e9bdull, 0x9f293db5ull, 0x64267947ull, 0xc0131456ull, 0x4c2147feull, 0x45bd236bull,
        0xd71926b1ull, 0xa54abc99ull, 0xa95c5361ull, 0x80478cf9ull, 0x87b25a05ull, 0x87a76d5bull, 0xf7c48a45ull,
        0xd4ff0860ull, 0xae837b00ull, 0xe4c45478ull, 0xe0fc5832ull, 0xa11a7a61ull, 0x62384497ull, 0x72077299ull,
        0xd365ed33ull, 0x63ac2101ull, 0xdd099d5dull, 0x29b17b95ull, 0x7958dea3ull, 0x6d663f9cull, 0x6cd08ee2ull,
        0x3e6875feull, 0x917f74a5ull},
       {0x7ull, 0x73ull}},
      {"rng_three_fry", "u64", {4, 3}, {0xdeadbeefull, 0x3ull},
       {0x151ce231fb821a1ull, 0xabcad31339a1179aull, 0x7ff428e1e7918484ull, 0xfc085a34db8040e8ull,
        0x71dad8bd742694bfull, 0xa3f080706121af1bull, 0x3e0648e0fc34c243ull, 0x43245ec4c07a144bull,
        0x81897b00a75f5ed8ull, 0xdc2a1fa65e25828cull, 0x99f0b3ecaf0f302full, 0x64529819629520feull},
       {0xdeadbeefull, 0xfull}},
      // u8 and u16: the low bits of the u32 elements of the same shape, the state advanced
      // as for those (the Philox counter wrapping).
      {"rng_philox", "u8", {3, 5}, {0x1234ull, 0xfffffffffffffffdull},
       {0x59ull, 0x20ull, 0x45ull, 0x3bull, 0xc5ull, 0x9eull, 0x1aull, 0xd8ull, 0x51ull, 0x93ull, 0x6ull, 0xa2ull,
        0xc2ull, 0xaaull, 0x72ull},
       {0x1234ull, 0x1ull}},
      {"rng_three_fry", "u16", {7}, {0x63ull, 0x3039ull},
       {0x74deull, 0xa2afull, 0xc9bbull, 0xbdb9ull, 0x8f1cull, 0x280ull, 0xaf10ull},
       {0x63ull, 0x303dull}},
      {"rng_three_fry", "u8", {2, 3}, {0x5ull, 0x6ull}, {0xa4ull, 0x73ull, 0x45ull, 0xc8ull, 0xd8ull, 0x52ull},
       {0x5ull, 0x9ull}},
      {"rng_default", "u16", {2, 2, 3}, {0x2aull, 0x7ull},
       {0xe8e8ull, 0x395dull, 0xb4dcull, 0x1942ull, 0x5eceull, 0x1916ull, 0x1f0ull, 0x2716ull, 0xed9cull, 0x4f45ull,
        0x43e6ull, 0xcdbbull},
       {0x2aull, 0xaull}},
  };
  return *goldens;
}

std::string ModuleFor(const Golden& g) {
  std::string dims;
  for (size_t d = 0; d < g.dims.size(); ++d) dims += (d == 0 ? "" : ",") + std::to_string(g.dims[d]);
  const std::string state = "u64[" + std::to_string(g.state.size()) + "]";
  return "HloModule rng\nENTRY e {\n  s = " + state + " parameter(0)\n  ROOT r = (" + state + ", " + g.type + "[" + dims +
         "]) rng-bit-generator(s), algorithm=" + g.algorithm + "\n}\n";
}

// The golden's state as the module's one argument.
std::vector<Literal> StateArgument(const Golden& g) {
  std::vector<Literal> args;
  args.emplace_back(Shape(PrimitiveType::kU64, {static_cast<int64_t>(g.state.size())}));
  for (size_t i = 0; i < g.state.size(); ++i) args[0].SetUint64(static_cast<int64_t>(i), g.state[i]);
  return args;
}

void ExpectGolden(const Literal& result, const Golden& g, const std::string& who) {
  ASSERT_TRUE(result.shape().IsTuple()) << who;
  const Literal& state = result.tuple_elements()[0];
  const Literal& bits = result.tuple_elements()[1];
  ASSERT_EQ(bits.element_count(), static_cast<int64_t>(g.bits.size())) << who;
  int64_t wrong = 0;
  for (int64_t i = 0; i < bits.element_count(); ++i) wrong += bits.GetBits(i) != g.bits[static_cast<size_t>(i)];
  EXPECT_EQ(wrong, 0) << who << ": " << wrong << " of " << g.bits.size() << " elements differ from XLA's; first "
                      << bits.ElementToString(0);
  for (int64_t i = 0; i < state.element_count(); ++i) {
    EXPECT_EQ(state.GetUint64(i), g.new_state[static_cast<size_t>(i)]) << who << ": new state word " << i;
  }
}

TEST(RngBitGeneratorTest, TheInterpreterAndTheCpuBackendDrawXlasBits) {
  for (const Golden& g : Goldens()) {
    SCOPED_TRACE(ModuleFor(g));
    auto module = ParseModule(ModuleFor(g));
    ASSERT_TRUE(module.ok()) << module.status().message();
    const std::vector<Literal> args = StateArgument(g);
    auto interpreted = interpreter::Interpreter().Run(**module, args);
    ASSERT_TRUE(interpreted.ok()) << interpreted.status().message();
    ExpectGolden(*interpreted, g, "interpreter");
    for (bool fused : {false, true}) {
      auto optimized = passes::OptimizeForBackend(**module, fused);
      ASSERT_TRUE(optimized.ok()) << optimized.status().message();
      runtime::CpuExecutableOptions options;
      auto cpu = runtime::CpuExecutable::Create(std::move(*optimized), options);
      ASSERT_TRUE(cpu.ok()) << cpu.status().message();
      auto ran = (*cpu)->Run(args);
      ASSERT_TRUE(ran.ok()) << ran.status().message();
      ExpectGolden(*ran, g, "CPU backend");
    }
  }
}

TEST(RngBitGeneratorTest, WhatTheGeneratorsCannotMakeIsAnError) {
  auto module = ParseModule(R"(HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], f16[16]) rng-bit-generator(s), algorithm=rng_default
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args;
  args.emplace_back((*module)->entry()->parameter(0)->shape());
  auto interpreted = interpreter::Interpreter().Run(**module, args);
  ASSERT_FALSE(interpreted.ok());
  EXPECT_NE(interpreted.status().message().find("u8, u16 and 32- and 64-bit elements (as XLA's generators do), not f16"),
            std::string::npos)
      << interpreted.status().message();
  // The GPU backend's kernel refuses it too, by name.
  auto optimized = passes::OptimizeForBackend(**module, true, true);
  ASSERT_TRUE(optimized.ok());
  auto code = codegen::CompileForGpu(**optimized);
  ASSERT_FALSE(code.ok());
  EXPECT_NE(code.status().message().find("r: the generators make u8, u16 and 32- and 64-bit elements, not f16"),
            std::string::npos)
      << code.status().message();
}

// The GPU kernel, run by the GPU emulator: the same bits and new state as XLA's, one
// launch (a thread a counter), and it assembles.
TEST(RngBitGeneratorTest, TheGpuKernelDrawsXlasBits) {
  for (const Golden& g : Goldens()) {
    SCOPED_TRACE(ModuleFor(g));
    auto module = ParseModule(ModuleFor(g));
    ASSERT_TRUE(module.ok()) << module.status().message();
    const std::vector<Literal> args = StateArgument(g);
    auto optimized = passes::OptimizeForBackend(**module, true, true);
    ASSERT_TRUE(optimized.ok()) << optimized.status().message();
    auto code = codegen::CompileForGpu(**optimized);
    ASSERT_TRUE(code.ok()) << code.status().message();
    ASSERT_EQ((*code)->kernels().size(), 1u);
    EXPECT_EQ((*code)->kernels()[0]->launches.size(), 1u);
    auto emulator = codegen::GpuEmulator::Create(std::move(*optimized));
    ASSERT_TRUE(emulator.ok()) << emulator.status().message();
    auto ran = (*emulator)->Run(args);
    ASSERT_TRUE(ran.ok()) << ran.status().message();
    ExpectGolden(*ran, g, "GPU emulator");
  }
  auto ptxas = codegen::FindPtxas();
  if (!ptxas.ok()) GTEST_SKIP() << "not assembled: " << ptxas.status().message();
  for (const Golden& g : {Goldens()[2], Goldens()[7], Goldens()[9], Goldens()[11]}) {  // Philox u32, u8; Threefry u32, u8
    auto module = ParseModule(ModuleFor(g));
    ASSERT_TRUE(module.ok());
    auto optimized = passes::OptimizeForBackend(**module, true, true);
    ASSERT_TRUE(optimized.ok());
    auto code = codegen::CompileForGpu(**optimized);
    ASSERT_TRUE(code.ok()) << code.status().message();
    auto assembled = codegen::AssemblePtx((*code)->ptx(), "sm_90");
    ASSERT_TRUE(assembled.ok()) << assembled.status().message();
    for (const codegen::PtxasKernelInfo& k : assembled->kernels) EXPECT_EQ(k.spill_store_bytes, 0) << k.name;
  }
}

}  // namespace
}  // namespace fusebox
