#include "compiler/codegen/gpu_emulator.h"

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Support/TargetSelect.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "compiler/backend/layout_normalization.h"
#include "compiler/codegen/gpu_emulator_internal.h"
#include "compiler/codegen/kernel_util.h"
#include "compiler/ir/conv_plan.h"
#include "compiler/ir/fft_plan.h"
#include "compiler/ir/solver_plan.h"
#include "compiler/ir/trsm_plan.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/passes/kernel_count.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUSEBOX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUSEBOX_ASAN 1
#endif
#ifdef FUSEBOX_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace fusebox::codegen {

namespace {

// --- Fibers: the threads of one block --------------------------------------------------

constexpr size_t kFiberStack = size_t{256} << 10;
constexpr int kWarpSize = 32;

enum class Wait { kNone, kBlock, kWarp };

struct Fiber {
  ucontext_t context;
  std::vector<uint8_t> stack;
  int64_t tid = 0;
  bool done = false;
  Wait wait = Wait::kNone;
  int32_t shuffle_value = 0;
  // A warp-wide mma: this lane's A and B fragments (TF32 bits), published for the others.
  const uint32_t* mma_a = nullptr;
  const uint32_t* mma_b = nullptr;
};

// The block being run. One at a time, on the thread that called Run.
struct Block {
  using Entry = void (*)(void* const*);
  Entry entry = nullptr;
  void* const* args = nullptr;
  int64_t ctaid[3] = {0, 0, 0};
  std::vector<Fiber> fibers;
  Fiber* current = nullptr;
  ucontext_t scheduler;
#ifdef FUSEBOX_ASAN
  const void* scheduler_stack = nullptr;
  size_t scheduler_stack_size = 0;
#endif
};

Block* g_block = nullptr;
std::mutex g_emulator_mutex;  // the emulator's globals serve one Run at a time

void SwitchToScheduler(Fiber& fiber) {
#ifdef FUSEBOX_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(fiber.done ? nullptr : &fake, g_block->scheduler_stack,
                                 g_block->scheduler_stack_size);
  swapcontext(&fiber.context, &g_block->scheduler);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
  swapcontext(&fiber.context, &g_block->scheduler);
#endif
}

void SwitchToFiber(Fiber& fiber) {
  g_block->current = &fiber;
#ifdef FUSEBOX_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, fiber.stack.data(), fiber.stack.size());
  swapcontext(&g_block->scheduler, &fiber.context);
  __sanitizer_finish_switch_fiber(fake, &g_block->scheduler_stack, &g_block->scheduler_stack_size);
#else
  swapcontext(&g_block->scheduler, &fiber.context);
#endif
}

void FiberMain() {
#ifdef FUSEBOX_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &g_block->scheduler_stack, &g_block->scheduler_stack_size);
#endif
  Fiber& self = *g_block->current;
  g_block->entry(g_block->args);
  self.done = true;
  SwitchToScheduler(self);
}

// Waits until every live thread of the block (kBlock) or of the caller's warp (kWarp)
// has arrived.
void Arrive(Wait kind) {
  Fiber& self = *g_block->current;
  self.wait = kind;
  while (self.wait != Wait::kNone) SwitchToScheduler(self);
}

extern "C" int32_t fusebox_gpu_emu_sreg(int32_t which) {
  switch (which) {
    case 0: return static_cast<int32_t>(g_block->current->tid);
    case 1: return static_cast<int32_t>(g_block->ctaid[0]);
    case 2: return static_cast<int32_t>(g_block->ctaid[1]);
    case 3: return static_cast<int32_t>(g_block->ctaid[2]);
    default: return 0;
  }
}

extern "C" void fusebox_gpu_emu_barrier() { Arrive(Wait::kBlock); }

extern "C" int32_t fusebox_gpu_emu_shfl_down(int32_t value, int32_t offset) {
  Fiber& self = *g_block->current;
  self.shuffle_value = value;
  Arrive(Wait::kWarp);  // every lane has published its value
  const int64_t lane = self.tid % kWarpSize;
  const size_t partner = static_cast<size_t>(self.tid + offset);
  int32_t result = value;
  if (lane + offset < kWarpSize && partner < g_block->fibers.size()) result = g_block->fibers[partner].shuffle_value;
  Arrive(Wait::kWarp);  // every lane has read before values change again
  return result;
}

extern "C" int32_t fusebox_gpu_emu_shfl_idx(int32_t value, int32_t source_lane) {
  Fiber& self = *g_block->current;
  self.shuffle_value = value;
  Arrive(Wait::kWarp);  // every lane has published its value
  const size_t source = static_cast<size_t>(self.tid - self.tid % kWarpSize + (source_lane & (kWarpSize - 1)));
  const int32_t result = source < g_block->fibers.size() ? g_block->fibers[source].shuffle_value : value;
  Arrive(Wait::kWarp);  // every lane has read before values change again
  return result;
}

float Tf32Value(uint32_t bits) {
  bits &= ~0x1fffu;  // what the tensor cores read of an operand register
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 for the calling lane (4g + t): its
// d = A . B + c over the warp's fragments (the layout in gpu_mma_dot_emitter.cc), each
// output's eight products summed in f64 and added to c in f32.
extern "C" void fusebox_gpu_emu_mma_tf32(const uint32_t* a, const uint32_t* b, float* c) {
  Fiber& self = *g_block->current;
  self.mma_a = a;
  self.mma_b = b;
  Arrive(Wait::kWarp);  // every lane has published its fragments
  const size_t warp0 = static_cast<size_t>(self.tid - self.tid % kWarpSize);
  if (warp0 + kWarpSize > g_block->fibers.size()) {
    std::fprintf(stderr, "GPU emulator: mma.sync in a partial warp\n");
    std::abort();
  }
  auto fiber = [&](int64_t lane) -> const Fiber& { return g_block->fibers[warp0 + static_cast<size_t>(lane)]; };
  // A(row, k): lane 4 * (row % 8) + k % 4, register (row >= 8) + 2 * (k >= 4).
  auto a_at = [&](int64_t row, int64_t k) { return Tf32Value(fiber(4 * (row % 8) + k % 4).mma_a[(row >= 8) + 2 * (k >= 4)]); };
  // B(k, n): lane 4 * n + k % 4, register k >= 4.
  auto b_at = [&](int64_t k, int64_t n) { return Tf32Value(fiber(4 * n + k % 4).mma_b[k >= 4]); };
  const int64_t lane = self.tid % kWarpSize, g = lane / 4, t = lane % 4;
  float d[4];
  for (int i = 0; i < 4; ++i) {
    const int64_t row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
    double sum = 0;
    for (int64_t k = 0; k < 8; ++k) sum += static_cast<double>(a_at(row, k)) * static_cast<double>(b_at(k, col));
    d[i] = static_cast<float>(static_cast<double>(c[i]) + sum);
  }
  Arrive(Wait::kWarp);  // every lane has read before fragments change again
  std::copy(d, d + 4, c);
}

// Runs every thread of the block until all are done; releases barriers when every live
// thread waits at one.
Status RunBlock(Block& block) {
  for (Fiber& f : block.fibers) {
    f.done = false;
    f.wait = Wait::kNone;
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.data();
    f.context.uc_stack.ss_size = f.stack.size();
    f.context.uc_link = nullptr;
    makecontext(&f.context, FiberMain, 0);
  }
  const size_t n = block.fibers.size();
  while (true) {
    bool all_done = true;
    for (Fiber& f : block.fibers) {
      if (f.done) continue;
      all_done = false;
      if (f.wait == Wait::kNone) SwitchToFiber(f);
    }
    if (all_done) return Status::Ok();
    // Release a block barrier when every live thread waits at it, a warp's shuffle step
    // when every live lane of the warp does.
    bool released = false;
    bool block_ready = true;
    for (Fiber& f : block.fibers) block_ready &= f.done || f.wait == Wait::kBlock;
    if (block_ready) {
      for (Fiber& f : block.fibers) {
        if (!f.done) f.wait = Wait::kNone;
      }
      released = true;
    }
    for (size_t w = 0; w < n; w += kWarpSize) {
      bool warp_ready = true, any = false;
      for (size_t i = w; i < std::min(n, w + kWarpSize); ++i) {
        const Fiber& f = block.fibers[i];
        warp_ready &= f.done || f.wait == Wait::kWarp;
        any |= !f.done;
      }
      if (warp_ready && any) {
        for (size_t i = w; i < std::min(n, w + kWarpSize); ++i) {
          if (!block.fibers[i].done) block.fibers[i].wait = Wait::kNone;
        }
        released = true;
      }
    }
    bool runnable = false;
    for (const Fiber& f : block.fibers) runnable |= !f.done && f.wait == Wait::kNone;
    if (!released && !runnable) {
      return Internal("GPU emulator: the block's threads wait at different barriers (divergent __syncthreads)");
    }
  }
}

// A block whose threads never wait for each other: each runs to the end in turn.
Status RunBlockSequentially(Block& block) {
  for (Fiber& f : block.fibers) {
    block.current = &f;
    block.entry(block.args);
  }
  return Status::Ok();
}

// --- Host side --------------------------------------------------------------------------

struct Buffer {
  std::vector<uint8_t> bytes;
};

int64_t LeafBytes(const Shape& shape) {
  return shape.ElementCount() * std::max(1, ByteWidth(shape.element_type()));
}

std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  ForEachSubshape(shape, [&](const Shape& s, const std::vector<int64_t>&) {
    if (s.IsArray()) out.push_back(s);
  });
  return out;
}

void InitializeHostOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

}  // namespace

struct GpuEmulator::Jit {
  std::unique_ptr<GpuCode> code;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unordered_map<std::string, Block::Entry> entries;
  std::unordered_map<std::string, bool> synchronizes;  // has barriers or shuffles
};

GpuEmulator::~GpuEmulator() = default;

const GpuCode& GpuEmulator::code() const { return *jit_->code; }

StatusOr<std::unique_ptr<GpuEmulator>> GpuEmulator::Create(std::unique_ptr<Module> module,
                                                           const GpuCompileOptions& options) {
  if (module == nullptr || module->entry() == nullptr) return InvalidArgument("no module to emulate");
  InitializeHostOnce();
  RETURN_IF_ERROR(backend::NormalizeLayoutsForBackend(*module, "GPU backend"));
  std::unique_ptr<GpuEmulator> emulator(new GpuEmulator());
  emulator->module_ = std::move(module);
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return codegen::FromLlvm(jtmb.takeError(), "cannot describe the host CPU");
  auto layout = jtmb->getDefaultDataLayoutForTarget();
  if (!layout) return codegen::FromLlvm(layout.takeError(), "cannot get the host data layout");
  auto context = std::make_unique<llvm::LLVMContext>();
  ASSIGN_OR_RETURN(codegen::HostGpuModule host,
                   codegen::EmitGpuKernelsForHost(*emulator->module_, options, jtmb->getTargetTriple().str(), *layout,
                                                  *context));
  auto tm = jtmb->createTargetMachine();
  if (!tm) return codegen::FromLlvm(tm.takeError(), "cannot create the target machine");
  RETURN_IF_ERROR(codegen::Optimize(*host.module, tm->get(), 1));
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(*jtmb)).create();
  if (!jit) return codegen::FromLlvm(jit.takeError(), "cannot create the JIT");
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess((*jit)->getDataLayout().getGlobalPrefix());
  if (!generator) return codegen::FromLlvm(generator.takeError(), "cannot search the process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  llvm::orc::SymbolMap runtime;
  auto add = [&](const char* name, auto* fn) {
    runtime[(*jit)->mangleAndIntern(name)] =
        llvm::orc::ExecutorSymbolDef(llvm::orc::ExecutorAddr::fromPtr(fn), llvm::JITSymbolFlags::Exported);
  };
  add("fusebox_gpu_emu_sreg", &fusebox_gpu_emu_sreg);
  add("fusebox_gpu_emu_barrier", &fusebox_gpu_emu_barrier);
  add("fusebox_gpu_emu_shfl_down", &fusebox_gpu_emu_shfl_down);
  add("fusebox_gpu_emu_shfl_idx", &fusebox_gpu_emu_shfl_idx);
  add("fusebox_gpu_emu_mma_tf32", &fusebox_gpu_emu_mma_tf32);
  if (auto err = (*jit)->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(runtime)))) {
    return codegen::FromLlvm(std::move(err), "cannot define the emulator's runtime");
  }
  // Entries that never synchronize run their threads one after another on this stack;
  // only the others need fibers.
  std::unordered_map<std::string, bool> synchronizes;
  for (llvm::Function& f : *host.module) {
    if (f.isDeclaration() || !f.hasFnAttribute("fusebox-gpu-entry")) continue;
    bool sync = false;
    for (llvm::BasicBlock& bb : f) {
      for (llvm::Instruction& i : bb) {
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i); call != nullptr && call->getCalledFunction() != nullptr) {
          const llvm::StringRef callee = call->getCalledFunction()->getName();
          sync |= callee == "fusebox_gpu_emu_barrier" || callee == "fusebox_gpu_emu_shfl_down" ||
                  callee == "fusebox_gpu_emu_shfl_idx" || callee == "fusebox_gpu_emu_mma_tf32";
        }
      }
    }
    synchronizes[f.getName().str()] = sync;
  }
  if (auto err = (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(host.module), std::move(context)))) {
    return codegen::FromLlvm(std::move(err), "cannot add the kernels to the JIT");
  }
  emulator->jit_ = std::make_unique<Jit>();
  for (const GpuKernel* kernel : host.code->AllKernels()) {
    for (const GpuLaunch* launch : kernel->EveryLaunch()) {
      if (emulator->jit_->entries.count(launch->function) != 0) continue;
      auto symbol = (*jit)->lookup(launch->function + "_emu");
      if (!symbol) return codegen::FromLlvm(symbol.takeError(), "cannot find kernel " + launch->function);
      emulator->jit_->entries[launch->function] = symbol->toPtr<Block::Entry>();
      emulator->jit_->synchronizes[launch->function] = synchronizes[launch->function];
    }
  }
  emulator->jit_->code = std::move(host.code);
  emulator->gemm_kernels_ = options.gemm_kernels;
  emulator->jit_->jit = std::move(*jit);
  return emulator;
}

namespace {

// The host side of a Run: every value's array leaves, in buffers the run owns.
struct HostValues {
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::unordered_map<const Instruction*, std::vector<uint8_t*>> leaves;

  // A zeroed buffer of `bytes` (at least one byte).
  uint8_t* Fresh(int64_t bytes) {
    buffers.push_back(std::make_unique<Buffer>());
    buffers.back()->bytes.assign(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 0);
    return buffers.back()->bytes.data();
  }
};

// Runs one launch over its whole grid, block after block, each block's threads as
// fibers of `block` (made anew when the launch's block size changes). Errors are
// prefixed with the launch's function.
Status RunLaunch(const GpuLaunch& launch, const std::vector<void*>& args, Block::Entry entry, bool synchronizes,
                 Block& block) {
  std::vector<int64_t> scalars = launch.scalar_args;
  std::vector<void*> launch_args = args;
  for (int64_t& s : scalars) launch_args.push_back(&s);
  block.entry = entry;
  block.args = launch_args.data();
  const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
  if (block.fibers.size() != static_cast<size_t>(threads)) {
    block.fibers = std::vector<Fiber>(static_cast<size_t>(threads));
    for (size_t t = 0; t < block.fibers.size(); ++t) {
      block.fibers[t].stack.resize(kFiberStack);
      block.fibers[t].tid = static_cast<int64_t>(t);
    }
  }
  const bool sequential = !synchronizes;
  g_block = &block;
  for (int64_t z = 0; z < launch.grid[2]; ++z) {
    for (int64_t y = 0; y < launch.grid[1]; ++y) {
      for (int64_t x = 0; x < launch.grid[0]; ++x) {
        block.ctaid[0] = x;
        block.ctaid[1] = y;
        block.ctaid[2] = z;
        Status st = sequential ? RunBlockSequentially(block) : RunBlock(block);
        if (!st.ok()) {
          g_block = nullptr;
          return Status(st.code(), launch.function + ": " + st.message());
        }
      }
    }
  }
  g_block = nullptr;
  return Status::Ok();
}

// The leaves of an instruction the host handles (parameters, constants, tuples and
// aliases); an error for anything else (control flow).
Status RunOnHost(const Instruction* inst, const std::vector<Literal>& arguments, HostValues& values) {
  auto& leaves = values.leaves;
  const Opcode op = inst->opcode();
  switch (op) {
    case Opcode::kParameter: {
      const Literal& arg = arguments[static_cast<size_t>(inst->parameter_number())];
      std::vector<uint8_t*> l;
      std::function<void(const Literal&)> collect = [&](const Literal& lit) {
        if (lit.shape().IsTuple()) {
          for (const Literal& e : lit.tuple_elements()) collect(e);
        } else if (lit.shape().IsArray()) {
          uint8_t* p = values.Fresh(lit.size_bytes());
          if (lit.size_bytes() > 0) std::memcpy(p, lit.untyped_data(), static_cast<size_t>(lit.size_bytes()));
          l.push_back(p);
        }
      };
      collect(arg);
      leaves[inst] = std::move(l);
      break;
    }
    case Opcode::kConstant: {
      const Literal* lit = inst->literal();
      if (lit == nullptr || inst->literal_elided()) return InvalidArgument(inst->name() + " has no values");
      uint8_t* p = values.Fresh(lit->size_bytes());
      if (lit->size_bytes() > 0) std::memcpy(p, lit->untyped_data(), static_cast<size_t>(lit->size_bytes()));
      leaves[inst] = {p};
      break;
    }
    case Opcode::kTuple: {
      std::vector<uint8_t*> l;
      for (const Instruction* operand : inst->operands()) {
        const auto& o = leaves[operand];
        l.insert(l.end(), o.begin(), o.end());
      }
      leaves[inst] = std::move(l);
      break;
    }
    case Opcode::kGetTupleElement: {
      const Shape& tuple = inst->operand(0)->shape();
      size_t start = 0;
      for (int64_t i = 0; i < inst->tuple_index(); ++i) start += Leaves(tuple.tuple_shapes(i)).size();
      const size_t count = Leaves(inst->shape()).size();
      const auto& o = leaves[inst->operand(0)];
      if (start + count > o.size()) return Internal("GPU emulator: bad tuple leaves for " + inst->name());
      leaves[inst] = std::vector<uint8_t*>(o.begin() + static_cast<std::ptrdiff_t>(start),
                                           o.begin() + static_cast<std::ptrdiff_t>(start + count));
      break;
    }
    case Opcode::kBitcast:
    case Opcode::kReshape:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
      leaves[inst] = leaves[inst->operand(0)];
      break;
    case Opcode::kAfterAll:
      leaves[inst] = {};
      break;
    case Opcode::kFft: {
      // What the runtime hands cuFFT (and the scal after an inverse), run on the host as
      // they define it. The operand stays as it was (the runtime hands cuFFT's
      // complex-to-real transforms a copy).
      ASSIGN_OR_RETURN(FftPlan plan, PlanFft(*inst));
      const auto& in = leaves[inst->operand(0)];
      if (in.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad operand");
      uint8_t* out = values.Fresh(LeafBytes(inst->shape()));
      RETURN_IF_ERROR(RunFftPlanOnHost(plan, in[0], out).WithPrefix("GPU emulator: " + inst->name() + ": "));
      leaves[inst] = {out};
      break;
    }
    case Opcode::kTriangularSolve: {
      // What the runtime hands cuBLAS's trsm: b copied into the result, solved in place.
      ASSIGN_OR_RETURN(TrsmPlan plan, PlanTriangularSolve(*inst));
      const auto& a = leaves[inst->operand(0)];
      const auto& b = leaves[inst->operand(1)];
      if (a.size() != 1 || b.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad operands");
      uint8_t* out = values.Fresh(LeafBytes(inst->shape()));
      if (plan.bytes_written > 0) std::memcpy(out, b[0], static_cast<size_t>(plan.bytes_written));
      RETURN_IF_ERROR(RunTrsmPlanOnHost(plan, a[0], out).WithPrefix("GPU emulator: " + inst->name() + ": "));
      leaves[inst] = {out};
      break;
    }
    case Opcode::kCustomCall: {
      if (!IsLibraryCall(*inst)) break;  // reported below
      if (IsSolverCall(*inst)) {
        // What the runtime hands cuSOLVER (or cuBLAS's batched routines): the operand copied
        // into the first result, factored in place, run on the host as the solvers define it.
        ASSIGN_OR_RETURN(SolverPlan plan, PlanSolverCall(*inst));
        const auto& a = leaves[inst->operand(0)];
        std::vector<uint8_t*> outs;
        for (const Shape& s : Leaves(inst->shape())) outs.push_back(values.Fresh(LeafBytes(s)));
        if (a.size() != 1 || outs.size() != static_cast<size_t>(plan.result_count()) ||
            (plan.householder_product() && leaves[inst->operand(1)].size() != 1)) {
          return Internal("GPU emulator: " + inst->name() + ": bad operand or result");
        }
        const int64_t bytes = plan.stride * plan.batch * plan.element_bytes;
        if (bytes > 0) std::memcpy(outs[0], a[0], static_cast<size_t>(bytes));
        const SolverPlan::Slots slots = plan.slots();
        auto slot = [&](int i) { return i < 0 ? nullptr : outs[static_cast<size_t>(i)]; };
        SolverHostBuffers buffers;
        buffers.a = outs[0];
        buffers.pivots = reinterpret_cast<int32_t*>(slot(slots.pivots));
        buffers.info = reinterpret_cast<int32_t*>(slot(slots.info));
        buffers.taus = plan.householder_product() ? leaves[inst->operand(1)][0] : slot(slots.taus);
        buffers.values = slot(slots.values);
        buffers.u = slot(slots.u);
        buffers.v = slot(slots.v);
        // Without vectors U and V stay zeros, as the call's model has them.
        for (int i : {slots.u, slots.v}) {
          if (i >= 0) std::memset(outs[static_cast<size_t>(i)], 0, static_cast<size_t>(LeafBytes(inst->shape().tuple_shapes(i))));
        }
        RETURN_IF_ERROR(RunSolverPlanOnHost(plan, buffers).WithPrefix("GPU emulator: " + inst->name() + ": "));
        leaves[inst] = std::move(outs);
        return Status::Ok();
      }
      if (inst->attrs().custom_call_target.rfind("__cudnn", 0) == 0) {
        // What the runtime hands cuDNN, run on the host as cuDNN defines it.
        ASSIGN_OR_RETURN(ConvPlan conv, PlanConvolution(*inst, ConvPlanOptions{.allow_tf32 = false}));
        const auto& x = leaves[inst->operand(0)];
        const auto& w = leaves[inst->operand(1)];
        if (x.size() != 1 || w.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad operands");
        std::vector<uint8_t*> outs;
        for (const Shape& s : Leaves(inst->shape())) outs.push_back(values.Fresh(LeafBytes(s)));
        if (outs.empty()) return Internal("GPU emulator: " + inst->name() + " has no value");
        if (conv.bias_activation) {
          // cudnnConvolutionBiasActivationForward: operand 2 the bias, operand 3 the side input.
          const auto& bias = leaves[inst->operand(2)];
          const uint8_t* side = nullptr;
          if (conv.bias_activation->side_input) {
            const auto& z = leaves[inst->operand(3)];
            if (z.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad side input");
            side = z[0];
          }
          if (bias.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad bias");
          RETURN_IF_ERROR(RunConvBiasActivationPlanOnHost(conv, x[0], w[0], bias[0], side, outs[0])
                              .WithPrefix("GPU emulator: " + inst->name() + ": "));
        } else {
          RETURN_IF_ERROR(RunConvPlanOnHost(conv, x[0], w[0], outs[0]).WithPrefix("GPU emulator: " + inst->name() + ": "));
        }
        leaves[inst] = std::move(outs);
        return Status::Ok();
      }
      // What the runtime hands cuBLAS, run on the host as cuBLAS defines it (full f32).
      ASSIGN_OR_RETURN(GemmPlan plan, PlanGemmCall(*inst, GemmPlanOptions{.allow_tf32 = false}));
      const auto& lhs = leaves[inst->operand(0)];
      const auto& rhs = leaves[inst->operand(1)];
      if (lhs.size() != 1 || rhs.size() != 1) return Internal("GPU emulator: " + inst->name() + ": bad operands");
      std::vector<uint8_t*> outs;
      for (const Shape& s : Leaves(inst->shape())) outs.push_back(values.Fresh(LeafBytes(s)));
      if (outs.empty()) return Internal("GPU emulator: " + inst->name() + " has no value");
      if (plan.beta != 0) {
        const auto& c = leaves[inst->operand(2)];
        const Shape& value = inst->shape().IsTuple() ? inst->shape().tuple_shapes(0) : inst->shape();
        if (c.size() != 1) return Internal("GPU emulator: " + inst->name() + ": no c operand");
        std::memcpy(outs[0], c[0], static_cast<size_t>(LeafBytes(value)));
      }
      const uint8_t* bias = nullptr;
      if (plan.bias_operand >= 0) {
        const auto& b = leaves[inst->operand(plan.bias_operand)];
        if (b.size() != 1) return Internal("GPU emulator: " + inst->name() + ": no bias operand");
        bias = b[0];
      }
      // GELU_AUX: the GELU's input is the call's second output.
      uint8_t* aux = GemmEpilogueHasAux(plan.epilogue) && outs.size() > 1 ? outs[1] : nullptr;
      RETURN_IF_ERROR(RunGemmPlanOnHost(plan, lhs[0], rhs[0], outs[0], bias, aux)
                          .WithPrefix("GPU emulator: " + inst->name() + ": "));
      leaves[inst] = std::move(outs);
      return Status::Ok();
    }
    default:
      return Unimplemented("GPU emulator: " + inst->name() + " (" + std::string(OpcodeName(op)) +
                           ") runs on the host; the emulator runs straight-line kernels only");
  }
  if (op == Opcode::kCustomCall && !IsLibraryCall(*inst)) {
    return Unimplemented("GPU emulator: " + inst->name() + " is a custom call no library runs");
  }
  return Status::Ok();
}

// A literal of `shape` filled from the root's leaves, in order.
StatusOr<Literal> ResultLiteral(const Shape& shape, const std::vector<uint8_t*>& root) {
  Literal result = Literal::CreateUninitialized(shape);
  size_t next = 0;
  Status filled = Status::Ok();
  std::function<void(Literal&)> fill = [&](Literal& l) {
    if (l.shape().IsTuple()) {
      for (Literal& e : l.tuple_elements()) fill(e);
    } else if (l.shape().IsArray()) {
      if (next >= root.size()) {
        filled = Internal("GPU emulator: the root has fewer leaves than its shape");
        return;
      }
      if (l.size_bytes() > 0) std::memcpy(l.untyped_data(), root[next], static_cast<size_t>(l.size_bytes()));
      ++next;
    }
  };
  fill(result);
  RETURN_IF_ERROR(filled);
  return result;
}

}  // namespace

StatusOr<Literal> GpuEmulator::Run(const std::vector<Literal>& arguments) {
  const Computation* entry = module_->entry();
  if (static_cast<int64_t>(arguments.size()) != entry->parameter_count()) {
    return InvalidArgument("expected " + std::to_string(entry->parameter_count()) + " arguments");
  }
  std::lock_guard<std::mutex> lock(g_emulator_mutex);
  last_launches_ = 0;
  last_variants_run_ = 0;
  HostValues values;
  Block block;
  for (const Instruction* inst : entry->PostOrder()) {
    const GpuKernel* kernel = jit_->code->KernelFor(inst);
    // Gemm library calls run Fusebox's own kernel when they have one (the runtime's
    // choice when it times faster than the library).
    if (kernel == nullptr && gemm_kernels_) kernel = jit_->code->GemmKernelFor(inst);
    if (kernel == nullptr) {
      RETURN_IF_ERROR(RunOnHost(inst, arguments, values));
      continue;
    }
    std::vector<uint8_t*> outs;
    for (const Shape& s : Leaves(inst->shape())) outs.push_back(values.Fresh(LeafBytes(s)));
    std::vector<void*> args;
    for (int64_t i = 0; i < kernel->operand_count(*inst); ++i) {
      const Instruction* operand = kernel->operand(*inst, i);
      const auto& l = values.leaves[operand];
      if (l.size() != 1) return Unimplemented("GPU emulator: operand " + operand->name() + " is not an array");
      args.push_back(l[0]);
    }
    for (uint8_t* o : outs) args.push_back(o);
    if (kernel->scratch_bytes > 0) {
      // Scratch as the GPU leaves it between kernels: whatever the last one wrote (the
      // runtime does not clear it). All ones: NaN partials, "valid" flags set, so a kernel
      // reading a partial it did not write shows in its result.
      uint8_t* scratch = values.Fresh(kernel->scratch_bytes);
      std::memset(scratch, 0xff, static_cast<size_t>(kernel->scratch_bytes));
      args.push_back(scratch);
    }
    const std::vector<GpuLaunch>* launches = &kernel->launches;
    if (kernel_variant_ > 0 && kernel_variant_ <= static_cast<int64_t>(kernel->variants.size())) {
      launches = &kernel->variants[static_cast<size_t>(kernel_variant_ - 1)].launches;
      ++last_variants_run_;
    }
    for (const GpuLaunch& launch : *launches) {
      RETURN_IF_ERROR(RunLaunch(launch, args, jit_->entries.at(launch.function),
                                jit_->synchronizes.at(launch.function), block));
      ++last_launches_;
    }
    values.leaves[inst] = std::move(outs);
  }
  return ResultLiteral(entry->root()->shape(), values.leaves[entry->root()]);
}

}  // namespace fusebox::codegen
