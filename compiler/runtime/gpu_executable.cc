// The GPU executable: device memory planned per program computation from buffer
// assignment, kernels launched with the ABI of gpu_compiler.h, control flow on the host.
#include "compiler/runtime/gpu_executable.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "compiler/backend/buffer_assignment.h"
#include "compiler/backend/layout_normalization.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/interpreter/random_inputs.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/gemm_plan.h"
#include "compiler/ir/library_calls.h"
#include "compiler/parser/parser.h"
#include "compiler/ir/conv_plan.h"
#include "compiler/runtime/cublas.h"
#include "compiler/runtime/cublas_lt.h"
#include "compiler/runtime/cudnn.h"
#include "compiler/runtime/cufft.h"
#include "compiler/runtime/cusolver.h"
#include "compiler/runtime/kernel_shapes.h"
#include "compiler/codegen/gpu_dot_plan.h"
#include "compiler/codegen/occupancy.h"
#include "compiler/codegen/ptx_tools.h"
#include "compiler/runtime/cuda_driver.h"

namespace fusebox::runtime {
namespace {

// Kernels may ask for this much dynamic shared memory without opting in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;
// cuMemAlloc returns 256-byte aligned memory; sub-buffers keep that alignment so vector
// loads and stores stay legal.
constexpr int64_t kDeviceAlignment = 256;

using Leaves = std::vector<DevicePtr>;
using LeafFn = std::function<Leaves(const Instruction*)>;

// Tuple paths of the array leaves of `shape`, depth first.
void AppendLeafPaths(const Shape& shape, std::vector<int64_t>& path,
                     std::vector<std::vector<int64_t>>& out) {
  if (shape.IsArray()) {
    out.push_back(path);
    return;
  }
  if (!shape.IsTuple()) return;
  for (int64_t i = 0; i < shape.tuple_size(); ++i) {
    path.push_back(i);
    AppendLeafPaths(shape.tuple_shapes(i), path, out);
    path.pop_back();
  }
}

std::vector<std::vector<int64_t>> LeafPaths(const Shape& shape) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> path;
  AppendLeafPaths(shape, path, out);
  return out;
}

int64_t ArrayBytes(const Shape& shape) {
  return shape.ElementCount() * std::max(1, ByteWidth(shape.element_type()));
}

std::vector<int64_t> LeafBytes(const Shape& shape) {
  std::vector<int64_t> out;
  for (const auto& path : LeafPaths(shape)) {
    const Shape* s = &shape;
    for (int64_t i : path) s = &s->tuple_shapes(i);
    out.push_back(ArrayBytes(*s));
  }
  return out;
}


// Whether something other than the parameter is written into a parameter allocation (an
// input_output_alias output, an in-place update): the program then works on a copy.
bool ParameterIsWritten(const backend::Allocation& a) {
  return a.kind == backend::Allocation::Kind::kParameter && (a.values.size() > 1 || a.maybe_live_out);
}

// The architecture to compile for on `device`: the requested one when it is the
// device's own (sm_90a on an sm_90 part), else the newest portable one not above it.
StatusOr<std::string> ArchForDevice(const CudaDeviceInfo& device, const std::string& requested) {
  const int have = device.compute_major * 10 + device.compute_minor;
  if (codegen::gpu::GpuArchNumber(requested) == have) return requested;
  std::string best;
  int best_number = -1;
  for (const std::string& arch : codegen::SupportedGpuArchs()) {
    const int n = codegen::gpu::GpuArchNumber(arch);
    if (arch.back() == 'a' || n <= 0 || n > have) continue;
    if (n > best_number) {
      best = arch;
      best_number = n;
    }
  }
  if (best.empty()) {
    return Unavailable(
        device.name + " is " + device.arch() + "; the GPU backend needs " +
        (codegen::SupportedGpuArchs().empty() ? std::string("a newer GPU") : codegen::SupportedGpuArchs().front()) +
        " or newer");
  }
  return best;
}

}  // namespace

// One program computation's device memory: one allocation for all its temps, outputs
// and written parameters (at assignment offsets), reused by every invocation.
struct GpuProgram {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> schedule;
  backend::BufferAssignment assignment;
  DeviceBuffer memory;
  std::vector<int64_t> allocation_offsets;
  std::unordered_map<const Instruction*, std::vector<backend::BufferSlice>> leaves;
};

struct GpuPrograms {
  std::unique_ptr<CudaModule> cuda_module;
  std::unordered_map<std::string, CudaFunction> functions;  // by PTX entry name
  std::unordered_map<const Computation*, std::unique_ptr<GpuProgram>> programs;
  std::unordered_map<const Instruction*, DeviceBuffer> constants;
  std::vector<std::vector<DeviceBuffer>> arguments;  // per entry parameter, per array leaf
  DeviceBuffer scratch;                              // the largest kernel scratch
  int64_t bytes = 0;
  // Gemm library calls and their cuBLAS plans; cuBLAS is loaded only when there are some.
  std::unique_ptr<Cublas> cublas;
  std::unordered_map<const Instruction*, GemmPlan> gemms;
  // The gemms with an epilogue run through cuBLASLt (loaded only when there are some),
  // with one workspace, the largest any needs.
  std::unique_ptr<CublasLt> cublas_lt;
  std::unordered_map<const Instruction*, std::unique_ptr<CublasLt::Matmul>> lt_matmuls;
  DeviceBuffer lt_workspace;
  // Gemm calls that run Fusebox's own kernel (GpuCode::GemmKernelFor), having timed
  // faster than the library's choice (ChooseGemmKernels).
  std::unordered_map<const Instruction*, const codegen::GpuKernel*> own_gemms;
  // Convolution library calls: cuDNN loaded only when there are some; one workspace and
  // one packed-kernel scratch, the largest any call needs.
  std::unique_ptr<Cudnn> cudnn;
  std::unordered_map<const Instruction*, std::unique_ptr<Cudnn::Convolution>> convs;
  DeviceBuffer cudnn_workspace;
  DeviceBuffer cudnn_packed_kernel;
  int64_t tf32_convs = 0;
  // Fourier transforms: cuFFT loaded only when there are some, a plan each, one work area
  // (the largest), a copy of the operand for the complex-to-real ones (cuFFT overwrites
  // their input); the scal after the inverse ones runs on `helper_blas` below.
  std::unique_ptr<Cufft> cufft;
  std::unordered_map<const Instruction*, std::unique_ptr<Cufft::Plan>> ffts;
  DeviceBuffer fft_workspace;
  DeviceBuffer fft_input_copy;
  // Triangular solves through cuBLAS's trsm, with one device buffer for the batched calls'
  // pointer arrays, the largest needed.
  std::unordered_map<const Instruction*, TrsmPlan> trsms;
  DeviceBuffer trsm_pointers;
  // Cholesky, LU and QR calls (solver_plan.h): cuSOLVER loaded only when some run on it
  // (cuBLAS's getrfBatched and geqrfBatched run on `helper_blas`), one work area and one device array of
  // the matrices' addresses for the batched routines, the largest any call needs.
  std::unique_ptr<Cusolver> cusolver;
  std::unordered_map<const Instruction*, SolverPlan> solvers;
  std::unordered_map<const Instruction*, int64_t> solver_workspace_bytes;
  DeviceBuffer solver_workspace;
  DeviceBuffer solver_pointers;
  // cuBLAS for the inverse transforms' scal, the triangular solves and the batched LU
  // (loaded only when there are some).
  std::unique_ptr<Cublas> helper_blas;
  std::vector<std::string> library_notes;  // fallbacks taken when the plans were prepared
  std::string ptx;                          // what was loaded (occupancy requests included)
  std::vector<std::string> occupancy_notes;
  // Kernels that run one of their variants (ChooseKernelVariants): its launches.
  std::unordered_map<const codegen::GpuKernel*, const std::vector<codegen::GpuLaunch>*> variant_launches;
  std::vector<std::string> variant_notes;

  // The launches `kernel` runs: its own, or the variant timed fastest.
  const std::vector<codegen::GpuLaunch>& LaunchesOf(const codegen::GpuKernel& kernel) const {
    auto it = variant_launches.find(&kernel);
    return it == variant_launches.end() ? kernel.launches : *it->second;
  }
};

class GpuExecutable::Frame {
 public:
  Frame(GpuExecutable& exe, const GpuRunOptions& options)
      : exe_(exe), ctx_(*exe.context_), options_(options) {}

  // Runs `comp` with its parameters' leaves at `params`; returns the root's leaves.
  StatusOr<Leaves> RunProgram(const Computation* comp, const std::vector<Leaves>& params) {
    auto it = exe_.programs_->programs.find(comp);
    if (it == exe_.programs_->programs.end())
      return Internal("no device plan for computation " + comp->name());
    GpuProgram& program = *it->second;
    std::vector<DevicePtr> bases(program.assignment.allocations().size(), 0);
    for (const backend::Allocation& a : program.assignment.allocations()) {
      const size_t index = static_cast<size_t>(a.index);
      switch (a.kind) {
        case backend::Allocation::Kind::kParameter: {
          const int64_t p = a.parameter_number;
          if (p < 0 || p >= static_cast<int64_t>(params.size()))
            return Internal("bad parameter allocation");
          const auto paths = LeafPaths(comp->parameter(p)->shape());
          auto pos = std::find(paths.begin(), paths.end(), a.parameter_index);
          const size_t leaf = static_cast<size_t>(pos - paths.begin());
          if (pos == paths.end() || leaf >= params[static_cast<size_t>(p)].size()) {
            return Internal("parameter leaf missing");
          }
          bases[index] = params[static_cast<size_t>(p)][leaf];
          if (ParameterIsWritten(a)) {
            // The program writes into this parameter's buffer: give it a copy so the
            // caller's value stays as it was.
            const DevicePtr own =
                program.memory.ptr() + static_cast<DevicePtr>(program.allocation_offsets[index]);
            RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(own, bases[index], a.size));
            bases[index] = own;
          }
          break;
        }
        case backend::Allocation::Kind::kConstant: {
          const backend::LogicalValue& v =
              program.assignment.values()[static_cast<size_t>(a.values.at(0).first)];
          auto c = exe_.programs_->constants.find(v.instruction);
          if (c == exe_.programs_->constants.end())
            return Internal("constant " + v.instruction->name() + " not uploaded");
          bases[index] = c->second.ptr();
          break;
        }
        default:
          bases[index] =
              program.memory.ptr() + static_cast<DevicePtr>(program.allocation_offsets[index]);
      }
    }
    LeafFn leaves = [&](const Instruction* inst) {
      Leaves out;
      auto found = program.leaves.find(inst);
      if (found == program.leaves.end()) return out;
      for (const backend::BufferSlice& s : found->second) {
        out.push_back(s.allocation < 0 ? 0
                                       : bases[static_cast<size_t>(s.allocation)] +
                                             static_cast<DevicePtr>(s.offset));
      }
      return out;
    };
    for (const Instruction* inst : program.schedule) RETURN_IF_ERROR(Execute(*inst, leaves));
    return leaves(comp->root());
  }

  int64_t launches() const { return launches_; }
  int64_t library_calls() const { return library_calls_; }

 private:
  bool TimeEachKernel() const {
    return options_.observer != nullptr && !options_.device_tracer_active;
  }

  void HostWork(const std::string& what, int64_t start) {
    if (options_.observer != nullptr) options_.observer->OnHostWork(what, start, profiler::NowNs());
  }

  Status Execute(const Instruction& inst, const LeafFn& leaves) {
    const codegen::GpuKernel* kernel = exe_.code_->KernelFor(&inst);
    if (kernel != nullptr) return RunKernel(*kernel, inst, leaves);
    if (auto own = exe_.programs_->own_gemms.find(&inst); own != exe_.programs_->own_gemms.end()) {
      return RunKernel(*own->second, inst, leaves);
    }
    if (auto gemm = exe_.programs_->gemms.find(&inst); gemm != exe_.programs_->gemms.end()) {
      return RunGemm(inst, gemm->second, leaves);
    }
    if (auto conv = exe_.programs_->convs.find(&inst); conv != exe_.programs_->convs.end()) {
      return RunConvolution(inst, *conv->second, leaves);
    }
    if (auto fft = exe_.programs_->ffts.find(&inst); fft != exe_.programs_->ffts.end()) {
      return RunFft(inst, *fft->second, leaves);
    }
    if (auto trsm = exe_.programs_->trsms.find(&inst); trsm != exe_.programs_->trsms.end()) {
      return RunTriangularSolve(inst, trsm->second, leaves);
    }
    if (auto solver = exe_.programs_->solvers.find(&inst); solver != exe_.programs_->solvers.end()) {
      return RunSolver(inst, solver->second, leaves);
    }
    switch (inst.opcode()) {
      case Opcode::kParameter:
      case Opcode::kConstant:
      case Opcode::kTuple:
      case Opcode::kGetTupleElement:
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kAfterAll:
      case Opcode::kAddDependency:
        return Status::Ok();
      case Opcode::kOptimizationBarrier:
      case Opcode::kDomain:
        return CopyLeaves(inst, leaves(inst.operand(0)), leaves(&inst));
      case Opcode::kPartitionId:
      case Opcode::kReplicaId: {
        Leaves out = leaves(&inst);
        if (out.empty() || out[0] == 0) return Status::Ok();
        return ctx_.Memset(out[0], 0, ArrayBytes(inst.shape()));
      }
      case Opcode::kGetDimensionSize: {
        Leaves out = leaves(&inst);
        const int64_t dim = inst.dimensions().empty() ? 0 : inst.dimensions()[0];
        const int32_t size = static_cast<int32_t>(inst.operand(0)->shape().dimensions(dim));
        if (out.empty() || out[0] == 0) return Status::Ok();
        return ctx_.CopyHostToDevice(out[0], &size, sizeof(size));
      }
      // Collectives over this one device (Create refused, by name, any whose groups need
      // more): every group is the device alone, so each exchange gives its own value back.
      case Opcode::kAllReduce:
      case Opcode::kAllGather:
      case Opcode::kReduceScatter:
      case Opcode::kAllToAll:
      case Opcode::kCollectiveBroadcast:
      case Opcode::kCollectivePermute:
      case Opcode::kAllReduceStart:
      case Opcode::kAllGatherStart:
      case Opcode::kCollectivePermuteStart:
        return RunLoneCollective(inst, leaves);
      case Opcode::kAllReduceDone:
      case Opcode::kAllGatherDone:
      case Opcode::kCollectivePermuteDone: {
        // The start holds the result: as its whole value, or as element 1 of its tuple.
        const Instruction* start = inst.operand(0);
        Leaves from = leaves(start);
        if (start->shape().IsTuple() && start->shape().tuple_size() >= 2) {
          const size_t skip = LeafBytes(start->shape().tuple_shapes(0)).size();
          const size_t count = LeafBytes(start->shape().tuple_shapes(1)).size();
          if (skip + count > from.size()) return Internal(inst.name() + ": its start has too few leaves");
          from = Leaves(from.begin() + static_cast<std::ptrdiff_t>(skip),
                        from.begin() + static_cast<std::ptrdiff_t>(skip + count));
        }
        return CopyLeaves(inst, from, leaves(&inst));
      }
      case Opcode::kWhile:
        return RunWhile(inst, leaves);
      case Opcode::kConditional:
        return RunConditional(inst, leaves);
      case Opcode::kCall: {
        std::vector<Leaves> params;
        for (const Instruction* op : inst.operands()) params.push_back(leaves(op));
        ASSIGN_OR_RETURN(Leaves result, RunProgram(inst.to_apply(), params));
        return CopyLeaves(inst, result, leaves(&inst));
      }
      default:
        return Unimplemented("GPU runtime: " + inst.name() + " (" +
                             std::string(OpcodeName(inst.opcode())) +
                             ") has no kernel and is not host work");
    }
  }

  // Device-to-device copies of `inst`'s leaves (control-flow boundaries).
  // A collective whose every group is this device alone: the operands' leaves, in order,
  // are the result's (an asynchronous start's tuple holds them twice: the operands, then
  // the result; leaves after those, a permute's context words, stay as they are). A
  // collective-permute whose pairs do not send this device its own value gives zeros, as
  // XLA's does to a device nothing is sent to.
  Status RunLoneCollective(const Instruction& inst, const LeafFn& leaves) {
    Leaves from;
    for (const Instruction* op : inst.operands()) {
      for (DevicePtr leaf : leaves(op)) from.push_back(leaf);
    }
    const Leaves out = leaves(&inst);
    const bool start_tuple = (inst.opcode() == Opcode::kAllGatherStart ||
                              inst.opcode() == Opcode::kCollectivePermuteStart ||
                              inst.opcode() == Opcode::kAllReduceStart) &&
                             inst.shape().IsTuple() && inst.shape().tuple_size() >= 2 &&
                             LeafBytes(inst.shape().tuple_shapes(0)).size() == from.size();
    const std::vector<int64_t> out_bytes = LeafBytes(inst.shape());
    Leaves to = out;
    std::vector<int64_t> to_bytes = out_bytes;
    if (start_tuple) {
      // The operands' copy first (element 0), then the result (element 1).
      const size_t result_leaves = LeafBytes(inst.shape().tuple_shapes(1)).size();
      if (2 * from.size() > out.size() || result_leaves != from.size()) {
        return Internal(inst.name() + ": a start tuple that does not hold its operands and result");
      }
      to = Leaves(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(2 * from.size()));
      to_bytes = std::vector<int64_t>(out_bytes.begin(), out_bytes.begin() + static_cast<std::ptrdiff_t>(2 * from.size()));
      const Leaves once = from;
      from.insert(from.end(), once.begin(), once.end());
    }
    if (from.size() != to.size()) {
      return Internal(inst.name() + ": a collective over one device whose result is not its operands (" +
                      std::to_string(from.size()) + " operand leaves, " + std::to_string(to.size()) + " result leaves)");
    }
    const bool permute =
        inst.opcode() == Opcode::kCollectivePermute || inst.opcode() == Opcode::kCollectivePermuteStart;
    bool sent_to_itself = !permute;
    for (const auto& [source, target] : inst.attrs().source_target_pairs) {
      sent_to_itself = sent_to_itself || (source == 0 && target == 0);
    }
    const int64_t start = profiler::NowNs();
    for (size_t i = 0; i < to.size(); ++i) {
      if (to[i] == 0) continue;
      const bool result_leaf = !start_tuple || i >= to.size() / 2;
      if (result_leaf && !sent_to_itself) {
        RETURN_IF_ERROR(ctx_.Memset(to[i], 0, to_bytes[i]));
      } else if (from[i] != 0 && from[i] != to[i]) {
        RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(to[i], from[i], to_bytes[i]));
      }
    }
    HostWork(inst.name() + " (" + std::string(OpcodeName(inst.opcode())) + " over one device)", start);
    return Status::Ok();
  }

  Status CopyLeaves(const Instruction& inst, const Leaves& from, const Leaves& to) {
    const std::vector<int64_t> bytes = LeafBytes(inst.shape());
    if (from.size() != to.size() || to.size() != bytes.size()) {
      return Internal(inst.name() + ": leaf counts differ in a device copy");
    }
    const int64_t start = profiler::NowNs();
    // A source that is also another leaf's destination (a loop state returned permuted)
    // is staged first, so no copy reads a buffer another copy already overwrote.
    std::vector<DeviceBuffer> staged;
    Leaves source = from;
    for (size_t i = 0; i < to.size(); ++i) {
      if (from[i] == 0 || from[i] == to[i]) continue;
      for (size_t j = 0; j < to.size(); ++j) {
        if (j == i || to[j] != from[i]) continue;
        ASSIGN_OR_RETURN(DeviceBuffer tmp, ctx_.Allocate(bytes[i]));
        RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(tmp.ptr(), from[i], bytes[i]));
        source[i] = tmp.ptr();
        staged.push_back(std::move(tmp));
        break;
      }
    }
    for (size_t i = 0; i < to.size(); ++i) {
      if (source[i] == 0 || to[i] == 0 || source[i] == to[i]) continue;
      RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(to[i], source[i], bytes[i]));
    }
    if (!staged.empty()) RETURN_IF_ERROR(ctx_.Synchronize());  // before the staging buffers go
    HostWork("copy " + inst.name(), start);
    return Status::Ok();
  }

  Status RunWhile(const Instruction& inst, const LeafFn& leaves) {
    Leaves state = leaves(&inst);
    RETURN_IF_ERROR(CopyLeaves(inst, leaves(inst.operand(0)), state));
    for (int64_t trip = 0;; ++trip) {
      ASSIGN_OR_RETURN(Leaves cond, RunProgram(inst.while_condition(), {state}));
      if (cond.empty() || cond[0] == 0)
        return Internal(inst.name() + ": the condition gave no value");
      const int64_t start = profiler::NowNs();
      uint8_t predicate = 0;
      // A synchronous copy: it waits for the condition's kernels.
      RETURN_IF_ERROR(ctx_.CopyDeviceToHost(&predicate, cond[0], 1));
      HostWork("while condition " + inst.name(), start);
      if (predicate == 0) break;
      if (trip >= (int64_t{1} << 31))
        return InvalidArgument(inst.name() + ": the while loop did not terminate");
      ASSIGN_OR_RETURN(Leaves next, RunProgram(inst.while_body(), {state}));
      RETURN_IF_ERROR(CopyLeaves(inst, next, state));
    }
    return Status::Ok();
  }

  Status RunConditional(const Instruction& inst, const LeafFn& leaves) {
    Leaves selector = leaves(inst.operand(0));
    if (selector.empty() || selector[0] == 0) return Internal(inst.name() + ": no branch selector");
    const int64_t branches = static_cast<int64_t>(inst.called_computations().size());
    const int64_t start = profiler::NowNs();
    int64_t branch;
    if (inst.operand(0)->shape().element_type() == PrimitiveType::kPred) {
      uint8_t pred = 0;
      RETURN_IF_ERROR(ctx_.CopyDeviceToHost(&pred, selector[0], 1));
      branch = pred != 0 ? 0 : 1;
    } else {
      int32_t index = 0;
      RETURN_IF_ERROR(ctx_.CopyDeviceToHost(&index, selector[0], sizeof(index)));
      branch = index < 0 || index >= branches ? branches - 1 : index;
    }
    HostWork("branch index " + inst.name(), start);
    ASSIGN_OR_RETURN(Leaves result,
                     RunProgram(inst.called_computations()[static_cast<size_t>(branch)],
                                {leaves(inst.operand(branch + 1))}));
    return CopyLeaves(inst, result, leaves(&inst));
  }

  // Kernel ABI (gpu_compiler.h): operand buffers, result leaves depth first, scratch when
  // the kernel has some, then the launch's scalars as i64.
  // A library call's own kernel reads the call's operands in its own order.
  Status RunKernel(const codegen::GpuKernel& kernel, const Instruction& inst, const LeafFn& leaves) {
    std::vector<DevicePtr> buffers;
    for (int64_t i = 0; i < kernel.operand_count(inst); ++i) {
      const Instruction* op = kernel.operand(inst, i);
      Leaves l = leaves(op);
      if (l.size() != 1)
        return Internal(inst.name() + ": operand " + op->name() + " is not one array");
      buffers.push_back(l[0]);
    }
    const size_t first_output = buffers.size();
    Leaves outputs = leaves(&inst);
    buffers.insert(buffers.end(), outputs.begin(), outputs.end());
    if (kernel.scratch_bytes > 0) {
      // As the kernel before left it: every kernel writes what it reads of scratch (a split
      // reduction's partials, a sort's positions; the emulator hands kernels scratch of
      // all ones to keep it so).
      buffers.push_back(exe_.programs_->scratch.ptr());
    }
    bool first = true;
    for (const codegen::GpuLaunch& launch : exe_.programs_->LaunchesOf(kernel)) {
      if (launch.skip_if_aliased >= 0 && first_output < buffers.size() &&
          static_cast<size_t>(launch.skip_if_aliased) < first_output &&
          buffers[static_cast<size_t>(launch.skip_if_aliased)] == buffers[first_output]) {
        continue;  // in place: the result already holds the operand
      }
      auto fn = exe_.programs_->functions.find(launch.function);
      if (fn == exe_.programs_->functions.end())
        return Internal(inst.name() + ": entry " + launch.function + " not loaded");
      std::vector<int64_t> scalars = launch.scalar_args;
      std::vector<void*> params;
      params.reserve(buffers.size() + scalars.size());
      for (DevicePtr& b : buffers) params.push_back(&b);
      for (int64_t& s : scalars) params.push_back(&s);
      const bool timed = TimeEachKernel();
      // Host timing needs an idle device at the start and the kernel done at the end.
      if (timed) RETURN_IF_ERROR(ctx_.Synchronize());
      const int64_t start = profiler::NowNs();
      Status launched =
          ctx_.Launch(fn->second, launch.grid, launch.block, launch.shared_bytes, params.data());
      if (!launched.ok()) return launched.WithPrefix(inst.name() + ": ");
      ++launches_;
      if (timed) {
        Status done = ctx_.Synchronize();
        if (!done.ok()) return done.WithPrefix(inst.name() + " (" + launch.function + "): ");
        profiler::KernelLaunch report;
        report.kernel = launch.function;
        report.hlo = inst.name();
        report.computation =
            inst.parent() != nullptr ? std::string_view(inst.parent()->name()) : std::string_view();
        report.kind = kernel.kind_name;
        // A kernel's traffic and work belong to it once: they go on its first launch.
        report.bytes_read = first ? kernel.bytes_read : 0;
        report.bytes_written = first ? kernel.bytes_written : 0;
        report.flops = first ? kernel.flops : 0;
        report.iteration = options_.iteration;
        options_.observer->OnKernel(report, start, profiler::NowNs(), 0);
      }
      first = false;
    }
    return Status::Ok();
  }

  // A gemm library call through cuBLAS (cuBLASLt with an epilogue): operands 0 and 1 are
  // the matrices, the value (tuple element 0 when the call returns (value, workspace)) the
  // result; with beta != 0 the result starts as a copy of operand 2.
  Status RunGemm(const Instruction& inst, const GemmPlan& plan, const LeafFn& leaves) {
    const Leaves lhs = leaves(inst.operand(0));
    const Leaves rhs = leaves(inst.operand(1));
    const Leaves out = leaves(&inst);
    if (lhs.size() != 1 || rhs.size() != 1 || out.empty() || out[0] == 0) {
      return Internal(inst.name() + ": a gemm's operands and value must be single arrays");
    }
    const int64_t out_bytes = ArrayBytes(inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape());
    if (plan.beta != 0) {
      const Leaves c = leaves(inst.operand(2));
      if (c.size() != 1) return Internal(inst.name() + ": beta != 0 without a c operand");
      if (c[0] != out[0]) RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(out[0], c[0], out_bytes));
    }
    if (plan.empty) return Status::Ok();
    if (auto lt = exe_.programs_->lt_matmuls.find(&inst); lt != exe_.programs_->lt_matmuls.end()) {
      DevicePtr bias = 0;
      int64_t bias_bytes = 0;
      if (plan.bias_operand >= 0) {
        const Leaves b = leaves(inst.operand(plan.bias_operand));
        if (b.size() != 1) return Internal(inst.name() + ": a gemm's bias must be a single array");
        bias = b[0];
        bias_bytes = ArrayBytes(inst.operand(plan.bias_operand)->shape());
      }
      // GELU_AUX: the GELU's input goes to the call's second output.
      const bool aux = GemmEpilogueHasAux(plan.epilogue);
      if (aux && (out.size() < 2 || out[1] == 0)) return Internal(inst.name() + ": a GELU_AUX call has no aux buffer");
      return RunLibraryCall(inst, "cuBLASLt " + plan.ToString(true), "library(cuBLASLt matmul)",
                            ArrayBytes(inst.operand(0)->shape()) + ArrayBytes(inst.operand(1)->shape()) +
                                (plan.beta != 0 ? out_bytes : 0) + bias_bytes,
                            out_bytes * (aux ? 2 : 1), plan.flops, "cuBLASLt", [&] {
                              return exe_.programs_->cublas_lt->Run(*lt->second, lhs[0], rhs[0], out[0], bias,
                                                                    exe_.programs_->lt_workspace.ptr(),
                                                                    aux ? out[1] : 0);
                            });
    }
    return RunLibraryCall(inst, "cuBLAS " + plan.ToString(false), "library(cuBLAS gemm)",
                          ArrayBytes(inst.operand(0)->shape()) + ArrayBytes(inst.operand(1)->shape()) +
                              (plan.beta != 0 ? out_bytes : 0),
                          out_bytes, plan.flops, "cuBLAS",
                          [&] { return exe_.programs_->cublas->Gemm(plan, lhs[0], rhs[0], out[0]); });
  }

  // A convolution library call through cuDNN (forward, backward data or backward filter;
  // the filter packed around the call when its buffer is a strided view), or XLA's fused
  // convolution, bias and activation through cudnnConvolutionBiasActivationForward.
  Status RunConvolution(const Instruction& inst, const Cudnn::Convolution& conv, const LeafFn& leaves) {
    const Leaves x = leaves(inst.operand(0));
    const Leaves w = leaves(inst.operand(1));
    const Leaves out = leaves(&inst);
    if (x.size() != 1 || w.size() != 1 || out.empty() || out[0] == 0) {
      return Internal(inst.name() + ": a convolution's operands and value must be single arrays");
    }
    const Shape& value = inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
    int64_t bytes_read = ArrayBytes(inst.operand(0)->shape()) + ArrayBytes(inst.operand(1)->shape());
    if (!conv.fused()) {
      return RunLibraryCall(inst, "cuDNN " + conv.algorithm(), "library(cuDNN conv)", bytes_read, ArrayBytes(value),
                            conv.flops(), "cuDNN", [&] {
                              return exe_.programs_->cudnn->Run(conv, x[0], w[0], out[0],
                                                                exe_.programs_->cudnn_packed_kernel.ptr(),
                                                                exe_.programs_->cudnn_workspace.ptr());
                            });
    }
    const ConvBiasActivation& epilogue = *conv.plan().bias_activation;
    const Leaves bias = leaves(inst.operand(2));
    Leaves side;
    if (epilogue.side_input) side = leaves(inst.operand(3));
    if (bias.size() != 1 || (epilogue.side_input && side.size() != 1)) {
      return Internal(inst.name() + ": a fused convolution's bias and side input must be single arrays");
    }
    bytes_read += ArrayBytes(inst.operand(2)->shape());
    if (epilogue.side_input && epilogue.alpha2 != 0) bytes_read += ArrayBytes(inst.operand(3)->shape());
    return RunLibraryCall(inst,
                          "cuDNN " + ConvBiasActivationName(epilogue) + (conv.split_reason().empty() ? " " : " split ") +
                              conv.algorithm(),
                          "library(cuDNN conv+bias+act)", bytes_read, ArrayBytes(value), conv.flops(), "cuDNN", [&] {
                            return exe_.programs_->cudnn->Run(conv, x[0], w[0], out[0],
                                                              exe_.programs_->cudnn_packed_kernel.ptr(),
                                                              exe_.programs_->cudnn_workspace.ptr(), bias[0],
                                                              epilogue.side_input ? side[0] : 0);
                          });
  }

  // A Fourier transform through cuFFT, then the scal of an inverse one through cuBLAS, as
  // XLA's FFT thunk runs it: both libraries' kernels under the fft instruction. A
  // complex-to-real transform reads a copy of its operand, which cuFFT overwrites.
  Status RunFft(const Instruction& inst, const Cufft::Plan& plan, const LeafFn& leaves) {
    const Leaves in = leaves(inst.operand(0));
    const Leaves out = leaves(&inst);
    if (in.size() != 1 || out.size() != 1) return Internal(inst.name() + ": an fft's operand and result are arrays");
    const FftPlan& fft = plan.plan();
    if (fft.empty) return Status::Ok();
    GpuPrograms& programs = *exe_.programs_;
    return RunLibraryCall(inst, "cuFFT " + fft.ToString(), "library(cuFFT)", fft.input_bytes, fft.output_bytes,
                          fft.flops, "cuFFT", [&]() -> Status {
                            DevicePtr source = in[0];
                            if (fft.copies_input) {
                              RETURN_IF_ERROR(
                                  ctx_.CopyDeviceToDevice(programs.fft_input_copy.ptr(), in[0], fft.input_bytes));
                              source = programs.fft_input_copy.ptr();
                            }
                            RETURN_IF_ERROR(programs.cufft->Run(plan, source, out[0], programs.fft_workspace.ptr()));
                            if (fft.scale == 1) return Status::Ok();
                            return programs.helper_blas->Scale(inst.shape().element_type(), fft.output_elements,
                                                            fft.scale, out[0]);
                          });
  }

  // A triangular solve through cuBLAS's trsm, as XLA's __cublas$triangularSolve runs it:
  // b copied into the result, solved there in place; a batch through trsmBatched with the
  // matrices' addresses uploaded first.
  Status RunTriangularSolve(const Instruction& inst, const TrsmPlan& plan, const LeafFn& leaves) {
    const Leaves a = leaves(inst.operand(0));
    const Leaves b = leaves(inst.operand(1));
    const Leaves out = leaves(&inst);
    if (a.size() != 1 || b.size() != 1 || out.size() != 1) {
      return Internal(inst.name() + ": a triangular-solve's operands and result are arrays");
    }
    if (plan.empty) return Status::Ok();
    GpuPrograms& programs = *exe_.programs_;
    return RunLibraryCall(inst, "cuBLAS " + plan.ToString(), "library(cuBLAS trsm)", plan.bytes_read,
                          plan.bytes_written, plan.flops, "cuBLAS", [&]() -> Status {
                            RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(out[0], b[0], plan.bytes_written));
                            if (plan.batch > 1) {
                              std::vector<DevicePtr> pointers(static_cast<size_t>(2 * plan.batch));
                              for (int64_t i = 0; i < plan.batch; ++i) {
                                pointers[static_cast<size_t>(i)] =
                                    a[0] + static_cast<DevicePtr>(i * plan.a_stride * plan.element_bytes);
                                pointers[static_cast<size_t>(plan.batch + i)] =
                                    out[0] + static_cast<DevicePtr>(i * plan.b_stride * plan.element_bytes);
                              }
                              RETURN_IF_ERROR(ctx_.CopyHostToDevice(programs.trsm_pointers.ptr(), pointers.data(),
                                                                    static_cast<int64_t>(pointers.size() *
                                                                                         sizeof(DevicePtr))));
                            }
                            return programs.helper_blas->Trsm(plan, a[0], out[0], programs.trsm_pointers.ptr());
                          });
  }

  // A Cholesky, LU or QR call as jaxlib runs it (solver_plan.h): the first operand copied
  // into the first result, factored (or multiplied out) there in place, the addresses
  // uploaded first for the batched routines; an empty call zeroes its info and taus.
  Status RunSolver(const Instruction& inst, const SolverPlan& plan, const LeafFn& leaves) {
    const Leaves a = leaves(inst.operand(0));
    const Leaves out = leaves(&inst);
    const Leaves taus_in = plan.householder_product() ? leaves(inst.operand(1)) : Leaves();
    if (a.size() != 1 || out.size() != static_cast<size_t>(plan.result_count()) ||
        (plan.householder_product() && taus_in.size() != 1)) {
      return Internal(inst.name() + ": a factorization call's operands and results are arrays, " +
                      std::to_string(plan.result_count()) + " results");
    }
    const SolverPlan::Slots slots = plan.slots();
    auto slot = [&](int i) { return i < 0 ? DevicePtr{0} : out[static_cast<size_t>(i)]; };
    const DevicePtr info = slot(slots.info);
    const DevicePtr pivots = slot(slots.pivots);
    const DevicePtr taus = plan.householder_product() ? taus_in[0] : slot(slots.taus);
    const int64_t tau_bytes = plan.batch * plan.taus * plan.element_bytes;
    GpuPrograms& programs = *exe_.programs_;
    if (plan.empty) {
      if (info != 0) RETURN_IF_ERROR(ctx_.Memset(info, 0, plan.batch * 4));
      if (plan.qr()) RETURN_IF_ERROR(ctx_.Memset(taus, 0, tau_bytes));
      return Status::Ok();
    }
    const char* library = plan.on_cublas() ? "cuBLAS" : "cuSOLVER";
    const std::string routine = plan.RoutineName();
    // "library(cuSOLVER potrf)", "library(cuBLAS getrfBatched)": the routine without its type letter.
    const std::string kind = std::string("library(") + library + " " +
                             routine.substr(plan.on_cublas() ? std::string("cublasS").size()
                                                             : std::string("cusolverDnS").size()) +
                             ")";
    return RunLibraryCall(inst, std::string(library) + " " + plan.ToString(), kind, plan.bytes_read,
                          plan.bytes_written, plan.flops, library, [&]() -> Status {
                            const int64_t bytes = plan.stride * plan.batch * plan.element_bytes;
                            if (a[0] != out[0]) RETURN_IF_ERROR(ctx_.CopyDeviceToDevice(out[0], a[0], bytes));
                            if (plan.batched()) {
                              // The matrices' addresses, then (geqrfBatched) their taus'.
                              std::vector<DevicePtr> pointers;
                              for (int64_t i = 0; i < plan.batch; ++i) {
                                pointers.push_back(out[0] + static_cast<DevicePtr>(i * plan.stride * plan.element_bytes));
                              }
                              for (int64_t i = 0; plan.qr() && i < plan.batch; ++i) {
                                pointers.push_back(taus + static_cast<DevicePtr>(i * plan.taus * plan.element_bytes));
                              }
                              RETURN_IF_ERROR(ctx_.CopyHostToDevice(
                                  programs.solver_pointers.ptr(), pointers.data(),
                                  static_cast<int64_t>(pointers.size() * sizeof(DevicePtr))));
                            }
                            if (plan.routine == SolverRoutine::kGetrfBatched) {
                              return programs.helper_blas->GetrfBatched(plan, programs.solver_pointers.ptr(), pivots,
                                                                        info);
                            }
                            if (plan.routine == SolverRoutine::kGeqrfBatched) {
                              return programs.helper_blas->GeqrfBatched(plan, programs.solver_pointers.ptr());
                            }
                            Cusolver::Buffers buffers;
                            buffers.a = out[0];
                            buffers.pivots = pivots;
                            buffers.info = info;
                            buffers.taus = taus;
                            buffers.values = slot(slots.values);
                            buffers.u = slot(slots.u);
                            buffers.v = slot(slots.v);
                            for (int i : {slots.u, slots.v}) {  // without vectors zeros, as the call's model has them
                              if (i >= 0 && !plan.vectors) {
                                RETURN_IF_ERROR(ctx_.Memset(slot(i), 0, ArrayBytes(inst.shape().tuple_shapes(i))));
                              }
                            }
                            buffers.workspace = programs.solver_workspace.ptr();
                            auto work = programs.solver_workspace_bytes.find(&inst);
                            buffers.workspace_bytes = work == programs.solver_workspace_bytes.end() ? 0 : work->second;
                            buffers.pointers = programs.solver_pointers.ptr();
                            return programs.cusolver->Run(plan, buffers);
                          });
  }

  // Queues one library call (`queue`) between the observer's begin and end, counts it,
  // and with host timing reports it as one kernel named `routine`.
  Status RunLibraryCall(const Instruction& inst, const std::string& routine, std::string_view kind,
                        int64_t bytes_read, int64_t bytes_written, int64_t flops, const char* library,
                        const std::function<Status()>& queue) {
    profiler::KernelLaunch report;
    report.kernel = routine;
    report.hlo = inst.name();
    report.computation = inst.parent() != nullptr ? std::string_view(inst.parent()->name()) : std::string_view();
    report.kind = kind;
    report.bytes_read = bytes_read;
    report.bytes_written = bytes_written;
    report.flops = flops;
    report.iteration = options_.iteration;
    const bool timed = TimeEachKernel();
    if (timed) RETURN_IF_ERROR(ctx_.Synchronize());
    if (options_.observer != nullptr) options_.observer->OnLibraryCallBegin(report);
    const int64_t start = profiler::NowNs();
    Status queued = queue();
    if (options_.observer != nullptr) options_.observer->OnLibraryCallEnd();
    if (!queued.ok()) return queued.WithPrefix(inst.name() + ": ");
    ++library_calls_;
    if (timed) {
      Status done = ctx_.Synchronize();
      if (!done.ok()) return done.WithPrefix(inst.name() + " (" + library + "): ");
      options_.observer->OnKernel(report, start, profiler::NowNs(), 0);
    }
    return Status::Ok();
  }

  GpuExecutable& exe_;
  CudaContext& ctx_;
  const GpuRunOptions& options_;
  int64_t launches_ = 0;
  int64_t library_calls_ = 0;
};

namespace {

// The run's note on a library's autotuning: how many of its `calls` timed their
// algorithms, and each call that moved away from the heuristic's first choice or could not
// be tuned, with why. No note when autotuning was off everywhere.
void AddTuningNote(GpuPrograms& programs, const std::string& library, int64_t calls, const std::string& how,
                   const std::vector<std::pair<const Instruction*, const AlgorithmTuning*>>& tunings) {
  std::string listed;
  int64_t ran = 0, moved = 0, cached = 0;
  for (const auto& [inst, tuning] : tunings) {
    if (tuning->text.empty()) continue;
    ran += tuning->ran ? 1 : 0;
    moved += tuning->moved ? 1 : 0;
    cached += tuning->cached ? 1 : 0;
    if (tuning->moved || !tuning->ran) listed += (listed.empty() ? "" : "; ") + inst->name() + ": " + tuning->text;
  }
  if (ran == 0 && listed.empty()) return;
  programs.library_notes.push_back(library + " algorithms autotuned for " + std::to_string(ran) + " of " +
                                   std::to_string(calls) + " call(s) (" + how + "), " + std::to_string(moved) +
                                   " away from the heuristic's first choice" +
                                   (cached > 0 ? ", " + std::to_string(cached) + " of them from the autotune cache"
                                               : std::string()) +
                                   (listed.empty() ? std::string() : ": " + listed));
}

// cuBLAS for the scal after inverse transforms and for triangular solves: one handle,
// loaded by the first that needs it; an error carries `why`.
Status LoadHelperBlas(CudaContext& ctx, GpuPrograms& programs, const std::string& why) {
  if (programs.helper_blas != nullptr) return Status::Ok();
  StatusOr<std::unique_ptr<Cublas>> blas = Cublas::Create(ctx);
  if (!blas.ok()) return blas.status().WithPrefix(why);
  programs.helper_blas = std::move(*blas);
  return Status::Ok();
}

// Loads cuFFT for the module's Fourier transforms and makes a plan of each (an `fft` cuFFT
// cannot plan is an error naming it), the work area and the operand copy of the
// complex-to-real ones; cuBLAS for the scal after the inverse ones.
Status PrepareFfts(CudaContext& ctx, const Module& module, GpuPrograms& programs) {
  std::vector<std::pair<const Instruction*, FftPlan>> plans;
  for (const Computation* comp : ProgramComputations(module, {.breadth_first = true})) {
    for (const auto& owned : comp->instructions()) {
      if (owned->opcode() != Opcode::kFft) continue;
      ASSIGN_OR_RETURN(FftPlan plan, PlanFft(*owned));
      plans.emplace_back(owned.get(), std::move(plan));
    }
  }
  if (plans.empty()) return Status::Ok();
  const std::string prefix = "the module has " + std::to_string(plans.size()) + " Fourier transform(s): ";
  StatusOr<std::unique_ptr<Cufft>> cufft = Cufft::Create(ctx);
  if (!cufft.ok()) return cufft.status().WithPrefix(prefix);
  programs.cufft = std::move(*cufft);
  int64_t workspace = 0, copy = 0;
  bool scales = false;
  std::string copied;
  for (const auto& [inst, plan] : plans) {
    StatusOr<std::unique_ptr<Cufft::Plan>> made = programs.cufft->Prepare(plan);
    if (!made.ok()) return made.status().WithPrefix(inst->name() + ": ");
    workspace = std::max(workspace, (*made)->workspace_bytes());
    if (plan.copies_input && !plan.empty) {
      copy = std::max(copy, plan.input_bytes);
      copied += (copied.empty() ? "" : ", ") + inst->name();
    }
    scales |= plan.scale != 1 && !plan.empty;
    programs.ffts.emplace(inst, std::move(*made));
  }
  if (scales) RETURN_IF_ERROR(LoadHelperBlas(ctx, programs, prefix + "the inverse transforms' scale runs through cuBLAS: "));
  if (workspace > 0) {
    ASSIGN_OR_RETURN(programs.fft_workspace, ctx.Allocate(workspace));
  }
  if (copy > 0) {
    ASSIGN_OR_RETURN(programs.fft_input_copy, ctx.Allocate(copy));
  }
  programs.bytes += workspace + copy;
  if (!copied.empty()) {
    programs.library_notes.push_back("cuFFT's complex-to-real transforms overwrite their input: " + copied +
                                     " transform(s) a device copy of the operand (one memcpy each)");
  }
  return Status::Ok();
}

// Plans the module's triangular solves for cuBLAS's trsm (one it cannot run is an error
// naming it) and loads cuBLAS for them.
Status PrepareTriangularSolves(CudaContext& ctx, const Module& module, GpuPrograms& programs) {
  int64_t pointers = 0;
  for (const Computation* comp : ProgramComputations(module, {.breadth_first = true})) {
    for (const auto& owned : comp->instructions()) {
      if (owned->opcode() != Opcode::kTriangularSolve) continue;
      ASSIGN_OR_RETURN(TrsmPlan plan, PlanTriangularSolve(*owned));
      if (plan.batch > 1) pointers = std::max<int64_t>(pointers, 2 * plan.batch * static_cast<int64_t>(sizeof(void*)));
      programs.trsms.emplace(owned.get(), plan);
    }
  }
  if (programs.trsms.empty()) return Status::Ok();
  RETURN_IF_ERROR(LoadHelperBlas(ctx, programs,
                                 "the module has " + std::to_string(programs.trsms.size()) +
                                     " triangular solve(s) for cuBLAS's trsm: "));
  if (pointers > 0) {
    ASSIGN_OR_RETURN(programs.trsm_pointers, ctx.Allocate(pointers));
    programs.bytes += pointers;
  }
  return Status::Ok();
}

// Plans the module's Cholesky, LU and QR calls (one the solvers cannot run is an error
// naming it), loads cuSOLVER for the ones it runs and cuBLAS for the batched LU and QR,
// and sizes the work area and the pointer array.
Status PrepareSolvers(CudaContext& ctx, const Module& module, GpuPrograms& programs) {
  int64_t pointers = 0, on_cusolver = 0, on_cublas = 0;
  for (const Computation* comp : ProgramComputations(module, {.breadth_first = true})) {
    for (const auto& owned : comp->instructions()) {
      if (!IsSolverCall(*owned)) continue;
      ASSIGN_OR_RETURN(SolverPlan plan, PlanSolverCall(*owned));
      if (plan.batched()) {
        pointers = std::max<int64_t>(pointers, (plan.qr() ? 2 : 1) * plan.batch * static_cast<int64_t>(sizeof(void*)));
      }
      (plan.on_cublas() ? on_cublas : on_cusolver) += 1;
      programs.solvers.emplace(owned.get(), plan);
    }
  }
  if (programs.solvers.empty()) return Status::Ok();
  if (on_cublas > 0) {
    RETURN_IF_ERROR(LoadHelperBlas(ctx, programs,
                                   "the module has " + std::to_string(on_cublas) +
                                       " batched LU or QR factorization(s) for cuBLAS's getrfBatched or "
                                       "geqrfBatched: "));
  }
  int64_t workspace = 0;
  if (on_cusolver > 0) {
    StatusOr<std::unique_ptr<Cusolver>> cusolver = Cusolver::Create(ctx);
    if (!cusolver.ok()) {
      return cusolver.status().WithPrefix("the module has " + std::to_string(on_cusolver) +
                                          " Cholesky, LU, QR, eigh or SVD call(s) for cuSOLVER: ");
    }
    programs.cusolver = std::move(*cusolver);
    for (auto& [inst, plan] : programs.solvers) {
      if (plan.on_cublas()) continue;
      // jaxlib on a cuSOLVER before 11.7.1: syevd per matrix, as here.
      if (plan.routine == SolverRoutine::kSyevBatched && !programs.cusolver->has_syev_batched()) {
        plan.routine = SolverRoutine::kSyevd;
      }
      StatusOr<int64_t> bytes = programs.cusolver->WorkspaceBytes(plan);
      if (!bytes.ok()) return bytes.status().WithPrefix(inst->name() + ": ");
      programs.solver_workspace_bytes[inst] = *bytes;
      workspace = std::max(workspace, *bytes);
    }
  }
  if (workspace > 0) {
    ASSIGN_OR_RETURN(programs.solver_workspace, ctx.Allocate(workspace));
  }
  if (pointers > 0) {
    ASSIGN_OR_RETURN(programs.solver_pointers, ctx.Allocate(pointers));
  }
  programs.bytes += workspace + pointers;
  return Status::Ok();
}

// Loads cuBLASLt for the gemm plans that run through it (GemmPlanRunsOnCublasLt) and
// prepares each matmul (its algorithm autotuned unless `autotune` is off) and the
// workspace; cuBLAS for the plain gemms left (f64, or cuBLASLt has no algorithm for the
// plan or cannot be loaded: the run's notes say which and why).
Status PrepareGemms(CudaContext& ctx, GpuPrograms& programs, bool autotune) {
  int64_t with_epilogue = 0, plain_for_lt = 0;
  for (const auto& [inst, plan] : programs.gemms) {
    if (plan.epilogue != GemmEpilogue::kDefault) {
      ++with_epilogue;
    } else if (GemmPlanRunsOnCublasLt(plan)) {
      ++plain_for_lt;
    }
  }
  std::string not_on_lt;  // plain gemms cuBLASLt refused, and why
  if (with_epilogue > 0 || plain_for_lt > 0) {
    StatusOr<std::unique_ptr<CublasLt>> lt = CublasLt::Create(ctx);
    if (lt.ok()) {
      programs.cublas_lt = std::move(*lt);
      programs.cublas_lt->set_autotune(autotune);
    } else if (with_epilogue > 0) {
      return lt.status().WithPrefix("the module has " + std::to_string(with_epilogue) +
                                    " gemm library call(s) with an epilogue: ");
    } else {
      programs.library_notes.push_back(lt.status().message() + ": the " + std::to_string(plain_for_lt) +
                                       " plain gemm(s) run through cuBLAS's cublasGemmStridedBatchedEx instead");
    }
  }
  constexpr int64_t kMaxLtWorkspace = int64_t{32} << 20;
  int64_t workspace = 0, plain = 0;
  for (const auto& [inst, plan] : programs.gemms) {
    const bool epilogue = plan.epilogue != GemmEpilogue::kDefault;
    if (programs.cublas_lt != nullptr && GemmPlanRunsOnCublasLt(plan)) {
      StatusOr<std::unique_ptr<CublasLt::Matmul>> matmul = programs.cublas_lt->Prepare(plan, kMaxLtWorkspace);
      if (matmul.ok()) {
        workspace = std::max(workspace, (*matmul)->workspace_bytes());
        programs.lt_matmuls.emplace(inst, std::move(*matmul));
        continue;
      }
      if (epilogue) return matmul.status().WithPrefix(inst->name() + ": ");
      not_on_lt += (not_on_lt.empty() ? "" : "; ") + inst->name() + ": " + matmul.status().message();
    }
    ++plain;
  }
  if (!not_on_lt.empty()) {
    programs.library_notes.push_back("cuBLASLt refused, ran through cuBLAS's cublasGemmStridedBatchedEx instead: " +
                                     not_on_lt);
  }
  if (plain > 0) {
    StatusOr<std::unique_ptr<Cublas>> cublas = Cublas::Create(ctx);
    if (!cublas.ok()) {
      return cublas.status().WithPrefix("the module has " + std::to_string(plain) + " gemm library call(s): ");
    }
    programs.cublas = std::move(*cublas);
  }
  if (programs.lt_matmuls.empty()) return Status::Ok();
  std::vector<std::pair<const Instruction*, const AlgorithmTuning*>> tunings;
  for (const auto& [inst, plan] : programs.gemms) {
    auto it = programs.lt_matmuls.find(inst);
    if (it != programs.lt_matmuls.end()) tunings.emplace_back(inst, &it->second->tuning());
  }
  AddTuningNote(programs, "cuBLASLt", static_cast<int64_t>(programs.lt_matmuls.size()),
                "each of the heuristic's candidates timed on one call at compile time, best of 3", tunings);
  if (workspace > 0) {
    ASSIGN_OR_RETURN(programs.lt_workspace, ctx.Allocate(workspace));
    programs.bytes += workspace;
  }
  return Status::Ok();
}

// Queues `launches` of `inst`'s kernel on buffers `args` as RunKernel passes them (the
// buffers, then each launch's scalars): the autotuners' timed calls.
Status LaunchOnBuffers(CudaContext& ctx, const GpuPrograms& programs, const Instruction& inst,
                       const std::vector<codegen::GpuLaunch>& launches, const std::vector<DevicePtr>& args) {
  for (const codegen::GpuLaunch& launch : launches) {
    auto fn = programs.functions.find(launch.function);
    if (fn == programs.functions.end()) return Internal(inst.name() + ": entry " + launch.function + " not loaded");
    std::vector<DevicePtr> copy = args;
    std::vector<int64_t> scalars = launch.scalar_args;
    std::vector<void*> params;
    for (DevicePtr& a : copy) params.push_back(&a);
    for (int64_t& v : scalars) params.push_back(&v);
    RETURN_IF_ERROR(ctx.Launch(fn->second, launch.grid, launch.block, launch.shared_bytes, params.data()));
  }
  return Status::Ok();
}

// The buffers a gemm call's own kernel takes (RunKernel's order): the call's operands it
// reads from `held` (the call's operands, then its value), the value, and the run's scratch
// when the kernel has some (a tensor-core dot's parts of k).
std::vector<DevicePtr> GemmKernelArgs(const GpuPrograms& programs, const codegen::GpuKernel& kernel,
                                      const std::vector<DeviceBuffer>& held) {
  std::vector<DevicePtr> args;
  for (int64_t operand : kernel.call_operands) args.push_back(held[static_cast<size_t>(operand)].ptr());
  args.push_back(held.back().ptr());
  if (kernel.scratch_bytes > 0) args.push_back(programs.scratch.ptr());
  return args;
}

// Runs the library and every shape of `inst`'s own kernel on the same random operands (in
// `held`: the call's operands, then its value) and says for each shape whether it agrees
// (CompareWithLibrary: "" when it does). A call with beta reads its result buffer first:
// operand 2 is copied there before the library runs.
Status CheckOwnAgainstLibrary(CudaContext& ctx, const GpuPrograms& programs, const Instruction& inst,
                              const codegen::GpuKernel& kernel, const GemmPlan& plan,
                              const std::vector<DeviceBuffer>& held,
                              const std::vector<const std::vector<codegen::GpuLaunch>*>& shapes,
                              const std::function<Status()>& run_library, std::vector<std::string>* disagree) {
  for (int64_t i = 0; i < inst.operand_count(); ++i) {
    const Shape& shape = inst.operand(i)->shape();
    if (!shape.IsArray()) continue;
    Literal values = interpreter::RandomLiteral(shape, 0x5eed + static_cast<uint64_t>(i));
    RETURN_IF_ERROR(ctx.CopyHostToDevice(held[static_cast<size_t>(i)].ptr(), values.untyped_data(),
                                         std::min<int64_t>(values.size_bytes(), ArrayBytes(shape))));
  }
  const Shape& value = inst.shape().IsTuple() ? inst.shape().tuple_shapes(0) : inst.shape();
  const DevicePtr out = held.back().ptr();
  const int64_t bytes = ArrayBytes(value);
  if (plan.beta != 0) {
    if (inst.operand_count() < 3) return Internal("a gemm call with beta and no operand 2");
    RETURN_IF_ERROR(ctx.CopyDeviceToDevice(out, held[2].ptr(), bytes));
  }
  RETURN_IF_ERROR(run_library());
  RETURN_IF_ERROR(ctx.Synchronize());
  Literal library(value);
  if (library.size_bytes() != bytes) return Internal("the result's buffer is not its shape's size");
  RETURN_IF_ERROR(ctx.CopyDeviceToHost(library.untyped_data(), out, bytes));
  const std::vector<DevicePtr> args = GemmKernelArgs(programs, kernel, held);
  disagree->clear();
  for (const auto* launches : shapes) {
    RETURN_IF_ERROR(ctx.Memset(out, 0, bytes));
    RETURN_IF_ERROR(LaunchOnBuffers(ctx, programs, inst, *launches, args));
    RETURN_IF_ERROR(ctx.Synchronize());
    Literal own(value);
    RETURN_IF_ERROR(ctx.CopyDeviceToHost(own.untyped_data(), out, bytes));
    disagree->push_back(CompareWithLibrary(own, library));
  }
  return Status::Ok();
}

// Times Fusebox's own kernel of each gemm call that has one (GpuCode::GemmKernelFor: a
// skinny dot, a tiled dot of one k slice, a small tensor-core dot) against the library's
// choice for the call, one call each on the same buffers of the call's shapes (0x3c
// bytes), after a warm-up, best of three, and keeps the faster, as XLA weighs its Triton GEMMs against cuBLAS. The
// choice is kept in `cache` under the library's key for the call and the kernel's launch
// shapes. A kernel with variants (a skinny dot's other rows a block) has each shape timed
// and its fastest (kernel_shapes.h's margin) weighed against the library; `only_shape` >= 0
// times that shape alone (GpuExecutableOptions::kernel_shape). Before the choice every
// shape's result is compared with the library's (CheckOwnAgainstLibrary); one that differs
// is not chosen, and the run's notes say so. The run's notes list every call weighed, with
// both times (and every shape's). `always`: every such call runs
// Fusebox's kernel, untimed, in its own shape.
Status ChooseGemmKernels(CudaContext& ctx, GpuPrograms& programs, const codegen::GpuCode& code, AutotuneCache* cache,
                         bool always, int64_t only_shape) {
  std::string own_list, library_list;
  int64_t weighed = 0, own = 0, cached = 0;
  if (always) {
    for (const auto& [inst, plan] : programs.gemms) {
      const codegen::GpuKernel* kernel = code.GemmKernelFor(inst);
      if (kernel == nullptr) continue;  // RunKernel gives it scratch if it has any
      programs.own_gemms[inst] = kernel;
      own_list += (own_list.empty() ? "" : ", ") + inst->name();
    }
    if (!own_list.empty()) {
      programs.library_notes.push_back("--gpu-gemm-kernels=fusebox: Fusebox's own kernel runs " +
                                       std::to_string(programs.own_gemms.size()) + " gemm call(s) untimed: " + own_list);
    }
    return Status::Ok();
  }
  for (const auto& [inst, plan] : programs.gemms) {
    const codegen::GpuKernel* kernel = code.GemmKernelFor(inst);
    if (kernel == nullptr) continue;
    auto lt = programs.lt_matmuls.find(inst);
    const bool on_lt = lt != programs.lt_matmuls.end();
    if (!on_lt && programs.cublas == nullptr) continue;
    const std::string library = on_lt ? "cuBLASLt" : "cuBLAS";
    // The kernel's shapes (its own launches and its variants': a skinny dot's rows a
    // block), or the one `only_shape` names.
    std::vector<const std::vector<codegen::GpuLaunch>*> shapes = {&kernel->launches};
    std::vector<std::string> labels = {kernel->label};
    for (const codegen::GpuKernelVariant& variant : kernel->variants) {
      shapes.push_back(&variant.launches);
      labels.push_back(variant.label);
    }
    if (only_shape >= 0) {
      const size_t v = static_cast<size_t>(only_shape) < shapes.size() ? static_cast<size_t>(only_shape) : 0;
      shapes = {shapes[v]};
      labels = {labels[v]};
    }
    std::string geometry;
    for (const auto* launches : shapes) {
      for (const codegen::GpuLaunch& launch : *launches) {
        geometry += "/" + std::to_string(launch.grid[0]) + "x" + std::to_string(launch.grid[1]) + "x" +
                    std::to_string(launch.grid[2]) + "x" + std::to_string(launch.block[0]);
      }
    }
    const CudaDeviceInfo& device = ctx.device();
    const std::string key =
        GemmAutotuneKey(AutotuneScope((on_lt ? programs.cublas_lt->description() : programs.cublas->description()) +
                                          " against Fusebox " + kernel->kind_name + " v2" + geometry,
                                      device.name, device.compute_major, device.compute_minor),
                        plan, int64_t{32} << 20);
    bool use_own = false;
    size_t fastest = 0;  // of shapes
    std::string text;
    if (std::optional<AutotuneRecord> hit = cache != nullptr ? cache->Find(key) : std::nullopt;
        hit && hit->numbers.size() == 2 && hit->numbers[1] < shapes.size()) {
      use_own = hit->numbers[0] == 1;
      fastest = static_cast<size_t>(hit->numbers[1]);
      text = hit->text + " (cached)";
      ++cached;
    } else {
      std::vector<int64_t> bytes;
      for (const Instruction* operand : inst->operands()) bytes.push_back(ArrayBytes(operand->shape()));
      const Shape& value = inst->shape().IsTuple() ? inst->shape().tuple_shapes(0) : inst->shape();
      bytes.push_back(ArrayBytes(value));
      StatusOr<std::vector<DeviceBuffer>> buffers = ctx.AllocateFilled(bytes, 0x3c);
      if (!buffers.ok()) {
        library_list += (library_list.empty() ? "" : "; ") + inst->name() + ": not timed (" +
                        buffers.status().message() + ")";
        continue;
      }
      const std::vector<DeviceBuffer>& held = *buffers;
      const DevicePtr out = held.back().ptr();
      auto run_library = [&]() -> Status {
        const DevicePtr lhs = held[0].ptr(), rhs = held[1].ptr();
        if (on_lt) {
          const DevicePtr bias = plan.bias_operand >= 0 ? held[static_cast<size_t>(plan.bias_operand)].ptr() : 0;
          return programs.cublas_lt->Run(*lt->second, lhs, rhs, out, bias, programs.lt_workspace.ptr());
        }
        return programs.cublas->Gemm(plan, lhs, rhs, out);
      };
      const std::vector<DevicePtr> args = GemmKernelArgs(programs, *kernel, held);
      auto best_of_three = [&](const std::function<Status()>& call) -> StatusOr<double> {
        RETURN_IF_ERROR(call());
        double best = -1;
        for (int repeat = 0; repeat < 3; ++repeat) {
          ASSIGN_OR_RETURN(double ms, ctx.TimeOnStream(call));
          best = best < 0 ? ms : std::min(best, ms);
        }
        return best;
      };
      StatusOr<double> library_ms = best_of_three(run_library);
      std::vector<double> own_ms;
      Status own_failed = Status::Ok();
      for (const auto* launches : shapes) {
        StatusOr<double> ms =
            best_of_three([&]() -> Status { return LaunchOnBuffers(ctx, programs, *inst, *launches, args); });
        if (!ms.ok()) {
          own_failed = ms.status();
          break;
        }
        own_ms.push_back(*ms);
      }
      RETURN_IF_ERROR(ctx.Synchronize());
      if (!library_ms.ok() || !own_failed.ok()) {
        library_list += (library_list.empty() ? "" : "; ") + inst->name() + ": not timed (" +
                        (library_ms.ok() ? own_failed : library_ms.status()).message() + ")";
        continue;
      }
      // Each shape's result against the library's on random operands: a shape that
      // computes something else is never chosen (a kernel first run on this device, whose
      // mistakes the emulator could not see, must not replace the library quietly).
      std::vector<std::string> disagree;
      Status checked = CheckOwnAgainstLibrary(ctx, programs, *inst, *kernel, plan, held, shapes, run_library, &disagree);
      if (!checked.ok()) {
        library_list += (library_list.empty() ? "" : "; ") + inst->name() + ": not checked (" + checked.message() + ")";
        continue;
      }
      std::string refused;
      for (size_t i = 0; i < shapes.size(); ++i) {
        if (disagree[i].empty()) continue;
        own_ms[i] = std::numeric_limits<double>::infinity();
        refused += (refused.empty() ? "" : ", ") + labels[i] + ": " + disagree[i];
      }
      if (!refused.empty()) {
        programs.library_notes.push_back(inst->name() + ": Fusebox's " + kernel->kind_name +
                                         " kernel differs from the library's result and is not used (" + refused + ")");
      }
      fastest = FastestShape(own_ms);
      use_own = own_ms[fastest] < *library_ms;
      char line[200];
      if (std::isfinite(own_ms[fastest])) {
        std::snprintf(line, sizeof(line), "%s %.1f us, %s %.1f us", kernel->kind_name.c_str(), own_ms[fastest] * 1e3,
                      library.c_str(), *library_ms * 1e3);
      } else {
        std::snprintf(line, sizeof(line), "%s differs from the library's result, %s %.1f us",
                      kernel->kind_name.c_str(), library.c_str(), *library_ms * 1e3);
      }
      text = line;
      if (shapes.size() > 1) text += " (shapes: " + ShapeTimesText(labels, own_ms, fastest) + ")";
      if (cache != nullptr) {
        (void)cache->Insert(key, AutotuneRecord{{use_own ? 1u : 0u, static_cast<uint64_t>(fastest)}, use_own, text});
      }
    }
    ++weighed;
    if (use_own) {
      ++own;
      programs.own_gemms[inst] = kernel;
      if (shapes[fastest] != &kernel->launches) programs.variant_launches[kernel] = shapes[fastest];
      own_list += (own_list.empty() ? "" : "; ") + inst->name() + ": " + text;
    } else {
      library_list += (library_list.empty() ? "" : "; ") + inst->name() + ": " + text;
    }
  }
  if (weighed == 0 && library_list.empty()) return Status::Ok();
  programs.library_notes.push_back(
      "Fusebox's own kernel timed against the library for " + std::to_string(weighed) +
      " gemm call(s) at compile time, best of 3" +
      (cached > 0 ? " (" + std::to_string(cached) + " from the autotune cache)" : std::string()) + ": " +
      std::to_string(own) + " run Fusebox's kernel" + (own_list.empty() ? std::string() : " (" + own_list + ")") +
      (library_list.empty() ? std::string() : "; the library kept: " + library_list));
  return Status::Ok();
}

// Times each kernel that has variants (GpuKernel::variants: other threads a row or a
// block) against its own launches, on buffers of its operands' and results' shapes
// filled with zeros (every index a gather or slice could read is then in bounds), and
// runs the fastest (kernel_shapes.h: a sample is enough back-to-back launches to take
// ~50 us after a warm-up launch sized them, best of 3; a variant replaces the kernel's
// own shape only when 3% faster). The choice is cached under the device and the PTX of
// every shape (occupancy requests included), so a repeat compile times nothing.
Status ChooseKernelVariants(CudaContext& ctx, GpuPrograms& programs, const codegen::GpuCode& code,
                            AutotuneCache* cache) {
  std::string list;
  int64_t timed = 0, moved = 0, cached = 0;
  for (const auto& owned : code.kernels()) {
    const codegen::GpuKernel* kernel = owned.get();
    if (kernel->variants.empty() || kernel->hlo == nullptr) continue;
    const Instruction& inst = *kernel->hlo;
    std::vector<int64_t> bytes;
    bool arrays = true;
    for (const Instruction* operand : inst.operands()) {
      arrays &= operand->shape().IsArray();
      bytes.push_back(ArrayBytes(operand->shape()));
    }
    for (int64_t leaf : LeafBytes(inst.shape())) bytes.push_back(leaf);
    if (!arrays) continue;
    std::vector<const std::vector<codegen::GpuLaunch>*> shapes = {&kernel->launches};
    std::vector<std::string> labels = {kernel->label};
    for (const codegen::GpuKernelVariant& variant : kernel->variants) {
      shapes.push_back(&variant.launches);
      labels.push_back(variant.label);
    }
    // The key: the device, then every shape's geometry and PTX.
    std::vector<KernelShapeText> described;
    for (size_t i = 0; i < shapes.size(); ++i) {
      KernelShapeText shape{labels[i], ""};
      for (const codegen::GpuLaunch& launch : *shapes[i]) {
        shape.launches += launch.function + "/" + std::to_string(launch.grid[0]) + "x" + std::to_string(launch.block[0]) + "\n";
        shape.launches += codegen::PtxEntryText(programs.ptx, launch.function);
      }
      described.push_back(std::move(shape));
    }
    const CudaDeviceInfo& device = ctx.device();
    const std::string key = KernelShapeKey(
        AutotuneScope("Fusebox kernel shapes v1", device.name, device.compute_major, device.compute_minor),
        kernel->kind_name, described);
    size_t chosen = 0;
    std::string text;
    if (std::optional<AutotuneRecord> hit = cache != nullptr ? cache->Find(key) : std::nullopt;
        hit && hit->numbers.size() == 1 && hit->numbers[0] < shapes.size()) {
      chosen = static_cast<size_t>(hit->numbers[0]);
      text = hit->text + " (cached)";
      ++cached;
    } else {
      StatusOr<std::vector<DeviceBuffer>> buffers = ctx.AllocateFilled(bytes, 0);
      if (!buffers.ok()) {
        list += (list.empty() ? "" : "; ") + inst.name() + ": not timed (" + buffers.status().message() + ")";
        continue;
      }
      std::vector<DevicePtr> args;
      for (const DeviceBuffer& buffer : *buffers) args.push_back(buffer.ptr());
      // The run's scratch (allocated above for the largest kernel): a tensor-core dot's
      // parts of k leave their partials there.
      if (kernel->scratch_bytes > 0) args.push_back(programs.scratch.ptr());
      auto run = [&](const std::vector<codegen::GpuLaunch>& launches, int64_t reps) -> Status {
        for (int64_t r = 0; r < reps; ++r) RETURN_IF_ERROR(LaunchOnBuffers(ctx, programs, inst, launches, args));
        return Status::Ok();
      };
      auto time = [&](const std::vector<codegen::GpuLaunch>& launches) -> StatusOr<double> {
        // A launch first, untimed: the driver loads a kernel on its first use (lazy
        // loading), which may wait for the device, and TimeOnStream's delay kernel holds it.
        RETURN_IF_ERROR(run(launches, 1));
        ASSIGN_OR_RETURN(double once, ctx.TimeOnStream([&] { return run(launches, 1); }));
        const int64_t reps = ShapeSampleLaunches(once);
        double best = -1;
        for (int sample = 0; sample < 3; ++sample) {
          ASSIGN_OR_RETURN(double ms, ctx.TimeOnStream([&] { return run(launches, reps); }));
          best = best < 0 ? ms / static_cast<double>(reps) : std::min(best, ms / static_cast<double>(reps));
        }
        return best;
      };
      std::vector<double> ms;
      Status failed = Status::Ok();
      for (const auto* launches : shapes) {
        StatusOr<double> t = time(*launches);
        if (!t.ok()) {
          failed = t.status();
          break;
        }
        ms.push_back(*t);
      }
      RETURN_IF_ERROR(ctx.Synchronize());
      if (!failed.ok()) {
        list += (list.empty() ? "" : "; ") + inst.name() + ": not timed (" + failed.message() + ")";
        continue;
      }
      chosen = FastestShape(ms);
      text = ShapeTimesText(labels, ms, chosen);
      if (cache != nullptr) (void)cache->Insert(key, AutotuneRecord{{static_cast<uint64_t>(chosen)}, chosen != 0, text});
    }
    ++timed;
    if (chosen != 0) {
      ++moved;
      programs.variant_launches[kernel] = shapes[chosen];
    }
    list += (list.empty() ? "" : "; ") + inst.name() + ": " + text;
  }
  if (list.empty()) return Status::Ok();
  programs.variant_notes.push_back(
      "kernel shapes timed for " + std::to_string(timed) + " kernel(s) at compile time, best of 3" +
      (cached > 0 ? " (" + std::to_string(cached) + " from the autotune cache)" : std::string()) + ", " +
      std::to_string(moved) + " moved: " + list);
  return Status::Ok();
}

}  // namespace

bool ParseGemmKernels(const std::string& text, GemmKernels* out) {
  if (text == "timed") {
    *out = GemmKernels::kTimed;
  } else if (text == "library") {
    *out = GemmKernels::kLibrary;
  } else if (text == "fusebox") {
    *out = GemmKernels::kFusebox;
  } else {
    return false;
  }
  return true;
}

namespace {

bool UsesTensorCores(const codegen::GpuCode& code) {
  for (const codegen::GpuKernel* kernel : code.AllKernels()) {
    if (kernel->kind_name == "dot(tensor core)") return true;
  }
  return false;
}

// Whether device `options.device`'s tensor cores compute what Fusebox's tensor-core dot
// assumes (the mma.sync fragment layout its emitter and the emulator share): the canary of
// kernel_shapes.h compiled on its own and run once per device and process. "" when every
// output is exact; else what went wrong (a module that cannot run it does not run
// tensor-core dots).
std::string TensorCoreCanary(const GpuExecutableOptions& options) {
  static std::mutex mutex;
  static std::map<int, std::string> verdicts;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = verdicts.find(options.device); it != verdicts.end()) return it->second;
  }
  std::string verdict = [&]() -> std::string {
    auto module = ParseModule(TensorCoreCanaryHlo());
    if (!module.ok()) return "the canary does not parse: " + module.status().message();
    const std::vector<Literal> args = TensorCoreCanaryArguments();
    GpuExecutableOptions canary = options;
    canary.check_tensor_cores = false;
    canary.allow_tf32 = true;
    canary.autotune = false;
    canary.kernel_variants = false;
    canary.tune_occupancy = false;
    canary.gemm_kernels = GemmKernels::kLibrary;
    canary.compile.mma_tile = -1;
    StatusOr<std::unique_ptr<GpuExecutable>> exe = GpuExecutable::Create(std::move(*module), canary);
    if (!exe.ok()) return "the canary did not compile: " + exe.status().message();
    if (!UsesTensorCores((*exe)->code())) return "the canary's dot is no tensor-core dot";
    StatusOr<Literal> got = (*exe)->Run(args);
    if (!got.ok()) return "the canary did not run: " + got.status().message();
    return TensorCoreCanaryVerdict(args, *got);
  }();
  std::lock_guard<std::mutex> lock(mutex);
  verdicts[options.device] = verdict;
  return verdict;
}

}  // namespace

StatusOr<std::unique_ptr<GpuExecutable>> GpuExecutable::Create(
    std::unique_ptr<Module> module, const GpuExecutableOptions& options) {
  if (module == nullptr || module->entry() == nullptr)
    return InvalidArgument("no module to compile");
  // Before the device: a module that needs more devices than a run has is refused the
  // same with or without a GPU.
  RETURN_IF_ERROR(CheckCollectivesFit(*module, /*devices=*/1));
  std::unique_ptr<GpuExecutable> exe(new GpuExecutable());
  // The device first: without one there is nothing to compile for.
  ASSIGN_OR_RETURN(exe->context_, CudaContext::Create(options.device));
  exe->context_->set_host_staging(options.host_staging);
  RETURN_IF_ERROR(backend::NormalizeLayoutsForBackend(*module, "GPU backend"));
  exe->module_ = std::move(module);
  codegen::GpuCompileOptions compile = options.compile;
  if (options.arch_from_device) {
    ASSIGN_OR_RETURN(compile.arch, ArchForDevice(exe->context_->device(), compile.arch));
  }
  // Row kernels get their other shapes, timed below (with autotuning).
  compile.kernel_variants = options.kernel_variants && options.autotune;
  // Tensor-core dots as the libraries' gemms: TF32 unless the run asks for full f32.
  compile.allow_tf32 = options.allow_tf32;
  // Skinny and small gemm calls get Fusebox's own kernel too, timed against the library below.
  compile.gemm_kernels = options.gemm_kernels == GemmKernels::kFusebox ||
                         (options.gemm_kernels == GemmKernels::kTimed && options.autotune);
  ASSIGN_OR_RETURN(exe->code_, CompileForGpu(*exe->module_, compile));
  std::string tensor_core_note;
  if (options.check_tensor_cores && UsesTensorCores(*exe->code_)) {
    if (std::string why = TensorCoreCanary(options); !why.empty()) {
      compile.allow_tf32 = false;
      ASSIGN_OR_RETURN(exe->code_, CompileForGpu(*exe->module_, compile));
      tensor_core_note = "tensor-core dots off, every dot in full f32: " + why;
    }
  }
  CudaContext& ctx = *exe->context_;
  exe->programs_ = std::make_unique<GpuPrograms>();
  GpuPrograms& programs = *exe->programs_;
  if (!tensor_core_note.empty()) programs.library_notes.push_back(tensor_core_note);

  // Load the code and resolve every launch's entry.
  auto load = [&](const std::string& ptx) -> StatusOr<std::unique_ptr<CudaModule>> {
    if (!options.ptx_to_cubin) return ctx.LoadPtx(ptx);
    ASSIGN_OR_RETURN(std::vector<uint8_t> cubin, options.ptx_to_cubin(ptx, exe->code_->arch()));
    return ctx.LoadCubin(cubin);
  };
  if (options.tune_occupancy) {
    // Kernels whose grid would need fewer waves with more blocks an SM ask for them; the
    // loaded module's attributes say whether each got them without spilling
    // (codegen/occupancy.h). Each probe's module is kept; the one for the PTX chosen runs.
    std::map<std::string, std::unique_ptr<CudaModule>> loaded;
    const std::vector<codegen::GpuLaunch> launches = codegen::AllLaunches(*exe->code_);
    codegen::ResourceProbe probe = [&](const std::string& ptx) -> StatusOr<std::vector<codegen::KernelResources>> {
      ASSIGN_OR_RETURN(std::unique_ptr<CudaModule> probed, load(ptx));
      std::vector<codegen::KernelResources> resources;
      std::set<std::string> seen;
      for (const codegen::GpuLaunch& launch : launches) {
        if (!seen.insert(launch.function).second) continue;
        ASSIGN_OR_RETURN(CudaFunctionAttributes a, probed->Attributes(launch.function));
        resources.push_back({launch.function, a.registers, a.shared_bytes, a.local_bytes});
      }
      loaded[ptx] = std::move(probed);
      return resources;
    };
    const codegen::SmLimits sm = codegen::SmLimitsForArch(exe->code_->arch(), ctx.device().multiprocessors);
    ASSIGN_OR_RETURN(codegen::TunedPtx tuned, codegen::TuneOccupancy(exe->code_->ptx(), launches, sm, probe));
    programs.ptx = std::move(tuned.ptx);
    programs.cuda_module = std::move(loaded[programs.ptx]);
    for (const codegen::OccupancyVerdict& v : tuned.verdicts) {
      programs.occupancy_notes.push_back("occupancy (" + std::to_string(sm.multiprocessors) + " SMs): " + v.ToString());
    }
    if (!tuned.note.empty()) programs.occupancy_notes.push_back(tuned.note);
  } else {
    programs.ptx = exe->code_->ptx();
    ASSIGN_OR_RETURN(programs.cuda_module, load(programs.ptx));
  }
  int64_t scratch_bytes = 0;
  for (const codegen::GpuKernel* kernel : exe->code_->AllKernels()) {
    scratch_bytes = std::max(scratch_bytes, kernel->scratch_bytes);
    for (const codegen::GpuLaunch* launch : kernel->EveryLaunch()) {
      auto it = programs.functions.find(launch->function);
      if (it == programs.functions.end()) {
        ASSIGN_OR_RETURN(CudaFunction fn, programs.cuda_module->GetFunction(launch->function));
        it = programs.functions.emplace(launch->function, std::move(fn)).first;
      }
      if (launch->shared_bytes > kDefaultSharedBytes) {
        RETURN_IF_ERROR(ctx.SetMaxDynamicSharedMemory(it->second, launch->shared_bytes));
      }
    }
  }
  if (scratch_bytes > 0) {
    ASSIGN_OR_RETURN(programs.scratch, ctx.Allocate(scratch_bytes));
    programs.bytes += scratch_bytes;
  }
  if (compile.kernel_variants && options.kernel_shape >= 0) {
    for (const codegen::GpuKernel* kernel : exe->code_->AllKernels()) {
      const size_t v = static_cast<size_t>(options.kernel_shape);
      if (v >= 1 && v <= kernel->variants.size()) programs.variant_launches[kernel] = &kernel->variants[v - 1].launches;
    }
  } else if (compile.kernel_variants) {
    RETURN_IF_ERROR(ChooseKernelVariants(ctx, programs, *exe->code_, &AutotuneCache::Process()));
  }

  // Device memory for every program computation, constants uploaded once.
  const codegen::GpuCode* code = exe->code_.get();
  for (const Computation* comp : ProgramComputations(*exe->module_, {.breadth_first = true})) {
    auto program = std::make_unique<GpuProgram>();
    program->computation = comp;
    for (Instruction* inst : comp->PostOrder()) program->schedule.push_back(inst);
    backend::BufferAssignmentOptions assign;
    assign.may_share_operand = [code](const Instruction& inst, int64_t operand) {
      const codegen::GpuKernel* kernel = code->KernelFor(&inst);
      return kernel != nullptr && kernel->in_place_operand == operand;
    };
    assign.is_alias = [](const Instruction& inst) {
      return inst.opcode() == Opcode::kBitcast || inst.opcode() == Opcode::kReshape ||
             inst.opcode() == Opcode::kAddDependency;
    };
    assign.alignment = kDeviceAlignment;
    ASSIGN_OR_RETURN(program->assignment, backend::AssignBuffers(*comp, program->schedule, assign));
    const int64_t align = std::max<int64_t>(program->assignment.alignment(), 1);
    int64_t total = 0;
    for (const backend::Allocation& a : program->assignment.allocations()) {
      program->allocation_offsets.push_back(total);
      if (a.kind == backend::Allocation::Kind::kTemp || a.kind == backend::Allocation::Kind::kOutput ||
          ParameterIsWritten(a)) {
        total += (a.size + align - 1) / align * align;
      }
      if (a.kind == backend::Allocation::Kind::kConstant) {
        const backend::LogicalValue& v =
            program->assignment.values()[static_cast<size_t>(a.values.at(0).first)];
        const Literal* literal = v.instruction->literal();
        if (literal == nullptr || v.instruction->literal_elided()) {
          return InvalidArgument("constant " + v.instruction->name() +
                                 " has no values (elided in the file)");
        }
        if (programs.constants.count(v.instruction) == 0) {
          const int64_t bytes = std::max(a.size, literal->size_bytes());
          ASSIGN_OR_RETURN(DeviceBuffer buffer, ctx.Allocate(bytes));
          RETURN_IF_ERROR(ctx.CopyHostToDevice(buffer.ptr(), literal->untyped_data(),
                                               std::min(a.size, literal->size_bytes())));
          programs.bytes += bytes;
          programs.constants.emplace(v.instruction, std::move(buffer));
        }
      }
    }
    if (total > 0) {
      ASSIGN_OR_RETURN(program->memory, ctx.Allocate(total));
      programs.bytes += total;
    }
    for (const Instruction* inst : program->schedule) {
      ASSIGN_OR_RETURN(program->leaves[inst], backend::LeafSlices(program->assignment, *inst));
    }
    programs.programs[comp] = std::move(program);
  }

  // Gemm library calls: a cuBLAS plan each, checked now (a call without one is an error
  // naming it: the pipeline lowers what cuBLAS cannot run), and cuBLAS loaded.
  GemmPlanOptions gemm_options;
  gemm_options.allow_tf32 = options.allow_tf32 && ctx.device().compute_major >= 8;
  ConvPlanOptions conv_options;
  conv_options.allow_tf32 = gemm_options.allow_tf32;
  std::vector<std::pair<const Instruction*, ConvPlan>> conv_plans;
  for (const Computation* comp : ProgramComputations(*exe->module_, {.breadth_first = true})) {
    for (const auto& owned : comp->instructions()) {
      const Instruction* inst = owned.get();
      const GpuCallRoute route = GpuRouteOf(*inst);
      // Not a library call, Fusebox's own kernel (a small batched orgqr), or a solver
      // call (PrepareSolvers) have nothing to plan here.
      if (route == GpuCallRoute::kNotLibraryCall || route == GpuCallRoute::kOwnKernel ||
          route == GpuCallRoute::kSolver) {
        continue;
      }
      if (route == GpuCallRoute::kNone) {
        return Unimplemented("GPU runtime: " + inst->name() + ": " + inst->attrs().custom_call_target +
                             " has no GPU library route (the library-call-lowering pass lowers such calls to "
                             "HLO; this module skipped it)");
      }
      if (route == GpuCallRoute::kGemm) {
        StatusOr<GemmPlan> plan = PlanGemmCall(*inst, gemm_options);
        if (!plan.ok()) {
          return Unimplemented("GPU runtime: " + plan.status().message() +
                               " (library calls cuBLAS cannot run are lowered to HLO by the "
                               "library-call-lowering pass; this module skipped it)");
        }
        programs.gemms.emplace(inst, *plan);
      } else {
        StatusOr<ConvPlan> plan = PlanConvolution(*inst, conv_options);
        if (!plan.ok()) {
          return Unimplemented("GPU runtime: " + plan.status().message() +
                               " (library calls cuDNN cannot run are lowered to HLO by the "
                               "library-call-lowering pass; this module skipped it)");
        }
        conv_plans.emplace_back(inst, *plan);
      }
    }
  }
  if (!conv_plans.empty()) {
    StatusOr<std::unique_ptr<Cudnn>> cudnn = Cudnn::Create(ctx);
    if (!cudnn.ok()) {
      return cudnn.status().WithPrefix("the module has " + std::to_string(conv_plans.size()) +
                                       " convolution library call(s): ");
    }
    programs.cudnn = std::move(*cudnn);
    programs.cudnn->set_autotune(options.autotune);
    constexpr int64_t kMaxConvWorkspace = int64_t{256} << 20;
    int64_t workspace = 0, packed = 0;
    std::string fused;  // the fused calls, named in the run's notes
    int64_t fused_calls = 0;
    for (const auto& [inst, plan] : conv_plans) {
      if (plan.bias_activation) {
        fused += (fused.empty() ? "" : ", ") + inst->name() + " (" + ConvBiasActivationName(*plan.bias_activation) + ")";
        ++fused_calls;
      }
      StatusOr<std::unique_ptr<Cudnn::Convolution>> conv = programs.cudnn->Prepare(plan, kMaxConvWorkspace);
      if (!conv.ok() && plan.call == ConvCall::kBackwardFilter && inst->opcode() == Opcode::kConvolution) {
        // An HLO weight gradient reads as a forward call too (same result), when cuDNN has
        // no backward-filter algorithm for these layouts; the run's notes say so.
        programs.library_notes.push_back(inst->name() + ": " + conv.status().message() + "; ran as a forward call");
        ConvPlanOptions forward_options = conv_options;
        forward_options.weight_gradients_as_backward_filter = false;
        ASSIGN_OR_RETURN(ConvPlan forward, PlanConvolution(*inst, forward_options));
        conv = programs.cudnn->Prepare(forward, kMaxConvWorkspace);
      }
      if (!conv.ok()) return conv.status().WithPrefix(inst->name() + ": ");
      if (!(*conv)->split_reason().empty()) {
        programs.library_notes.push_back(inst->name() + ": " + (*conv)->split_reason() +
                                         "; ran as cudnnConvolutionForward, cudnnAddTensor and cudnnActivationForward "
                                         "(the same result in more kernels)");
      }
      workspace = std::max(workspace, (*conv)->workspace_bytes());
      packed = std::max(packed, (*conv)->packed_kernel_bytes());
      programs.tf32_convs += plan.tf32 ? 1 : 0;
      programs.convs.emplace(inst, std::move(*conv));
    }
    std::vector<std::pair<const Instruction*, const AlgorithmTuning*>> tunings;
    for (const auto& [inst, plan] : conv_plans) {
      auto it = programs.convs.find(inst);
      if (it != programs.convs.end()) tunings.emplace_back(inst, &it->second->tuning());
    }
    AddTuningNote(programs, "cuDNN", static_cast<int64_t>(conv_plans.size()),
                  "the algorithms cudnnFind*AlgorithmEx returns, each timed warm at compile time, best of 3", tunings);
    if (fused_calls > 0) {
      programs.library_notes.push_back("cudnnConvolutionBiasActivationForward runs " + std::to_string(fused_calls) +
                                       " fused convolution call(s) with their bias and activation: " + fused);
    }
    if (workspace > 0) {
      ASSIGN_OR_RETURN(programs.cudnn_workspace, ctx.Allocate(workspace));
    }
    if (packed > 0) {
      ASSIGN_OR_RETURN(programs.cudnn_packed_kernel, ctx.Allocate(packed));
    }
    programs.bytes += workspace + packed;
  }
  RETURN_IF_ERROR(PrepareGemms(ctx, programs, options.autotune));
  RETURN_IF_ERROR(PrepareFfts(ctx, *exe->module_, programs));
  RETURN_IF_ERROR(PrepareTriangularSolves(ctx, *exe->module_, programs));
  RETURN_IF_ERROR(PrepareSolvers(ctx, *exe->module_, programs));
  if (compile.gemm_kernels) {
    RETURN_IF_ERROR(ChooseGemmKernels(ctx, programs, *exe->code_, &AutotuneCache::Process(),
                                      /*always=*/options.gemm_kernels == GemmKernels::kFusebox,
                                      compile.kernel_variants ? options.kernel_shape : 0));
  }

  // Device copies of the entry's arguments, filled by every run.
  for (const Instruction* param : exe->module_->entry()->parameters()) {
    std::vector<DeviceBuffer> leaves;
    if (param != nullptr) {
      for (int64_t bytes : LeafBytes(param->shape())) {
        ASSIGN_OR_RETURN(DeviceBuffer buffer, ctx.Allocate(bytes));
        programs.bytes += bytes;
        leaves.push_back(std::move(buffer));
      }
    }
    programs.arguments.push_back(std::move(leaves));
  }
  // Every compile-time timing above ran behind TimeOnStream's delay kernel (the device's
  // time alone) unless this says otherwise.
  if (const CudaContext::TimingStats& t = ctx.timing_stats(); t.host_waits + t.undelayed > 0) {
    const int64_t counted = t.host_waits + t.undelayed;
    programs.library_notes.push_back(
        "autotuning: " + std::to_string(counted) + " of " + std::to_string(counted + t.delayed) +
        " timing(s) counted the host's time queueing the work as well as the device's (" +
        (t.why_undelayed.empty() ? "the queueing outlasted the delay kernel" : t.why_undelayed) +
        "): their choices may favour what takes the host less time");
  }
  return exe;
}

GpuExecutable::~GpuExecutable() {
  // Buffers and the module go while the context still lives.
  programs_.reset();
  code_.reset();
}

std::string GpuExecutable::device_description() const { return context_->device().ToString(); }

int64_t GpuExecutable::device_bytes() const { return programs_->bytes; }

std::string GpuExecutable::library_description() const {
  std::string out = programs_->cublas != nullptr ? programs_->cublas->description() : std::string();
  if (programs_->cublas_lt != nullptr) out += (out.empty() ? "" : ", ") + programs_->cublas_lt->description();
  if (programs_->cudnn != nullptr) out += (out.empty() ? "" : ", ") + programs_->cudnn->description();
  if (programs_->cufft != nullptr) out += (out.empty() ? "" : ", ") + programs_->cufft->description();
  if (programs_->cusolver != nullptr) out += (out.empty() ? "" : ", ") + programs_->cusolver->description();
  // cuBLAS loaded for the scal of inverse transforms, triangular solves or batched LU only.
  if (programs_->cublas == nullptr && programs_->helper_blas != nullptr) {
    out += (out.empty() ? "" : ", ") + programs_->helper_blas->description();
  }
  return out;
}

const std::vector<std::string>& GpuExecutable::library_notes() const { return programs_->library_notes; }
const std::vector<std::string>& GpuExecutable::occupancy_notes() const { return programs_->occupancy_notes; }
const std::vector<std::string>& GpuExecutable::kernel_variant_notes() const { return programs_->variant_notes; }
const std::string& GpuExecutable::loaded_ptx() const { return programs_->ptx; }

int64_t GpuExecutable::tf32_gemms() const {
  return programs_->tf32_convs +
         std::count_if(programs_->gemms.begin(), programs_->gemms.end(), [](const auto& g) {
           return g.second.compute == GemmComputeType::kF32FastTf32;
         });
}

void GpuExecutable::set_host_staging(HostStaging mode) { context_->set_host_staging(mode); }

std::string GpuExecutable::host_staging_note() const { return context_->host_staging_note(); }

StatusOr<Literal> GpuExecutable::Run(const std::vector<Literal>& arguments,
                                     const GpuRunOptions& options) {
  Literal result = Literal::CreateUninitialized(module_->entry()->root()->shape());
  RETURN_IF_ERROR(RunInto(arguments, result, options));
  return result;
}


Status GpuExecutable::RunInto(const std::vector<Literal>& arguments, Literal& result,
                              const GpuRunOptions& options) {
  RETURN_IF_ERROR(interpreter::CheckArguments(*module_, arguments));
  const Shape& root_shape = module_->entry()->root()->shape();
  if (!(result.shape() == root_shape)) result = Literal::CreateUninitialized(root_shape);
  profiler::ExecutionObserver* observer = options.observer;
  if (observer != nullptr) observer->OnRunStart(options.iteration, profiler::NowNs());
  Frame frame(*this, options);
  auto run = [&]() -> Status {
    // Upload the arguments into their device copies (unless they are there already).
    const int64_t upload_start = profiler::NowNs();
    const bool upload = options.upload_arguments || !arguments_on_device_;
    arguments_on_device_ = false;  // until this upload has succeeded
    std::vector<Leaves> params;
    for (size_t p = 0; p < arguments.size(); ++p) {
      Leaves leaves;
      size_t leaf = 0;
      Status copied = Status::Ok();
      ForEachArrayLeaf(arguments[p], [&](const Literal& l) {
        if (!copied.ok()) return;
        if (p >= programs_->arguments.size() || leaf >= programs_->arguments[p].size()) {
          copied =
              Internal("argument " + std::to_string(p) + " has more leaves than its parameter");
          return;
        }
        const DeviceBuffer& buffer = programs_->arguments[p][leaf++];
        if (upload) {
          copied = context_->CopyHostToDevice(buffer.ptr(), l.untyped_data(),
                                              std::min(l.size_bytes(), buffer.size()));
        }
        leaves.push_back(buffer.ptr());
      });
      RETURN_IF_ERROR(copied);
      params.push_back(std::move(leaves));
    }
    arguments_on_device_ = true;
    if (observer != nullptr && upload) observer->OnHostWork("upload arguments", upload_start, profiler::NowNs());
    ASSIGN_OR_RETURN(Leaves computed, frame.RunProgram(module_->entry(), params));
    RETURN_IF_ERROR(context_->Synchronize());
    // Download the root's leaves into the result. Every leaf with bytes has a buffer
    // (LeafSlices): one without is a bug, never a result of zeros.
    const int64_t download_start = profiler::NowNs();
    size_t leaf = 0;
    Status copied = Status::Ok();
    ForEachArrayLeaf(result, [&](Literal& l) {
      if (!copied.ok()) return;
      if (leaf >= computed.size()) {
        copied = Internal("result has fewer leaves than the root's shape");
        return;
      }
      const size_t index = leaf;
      const DevicePtr from = computed[leaf++];
      if (l.size_bytes() == 0) return;
      if (from == 0) {
        const std::vector<std::vector<int64_t>> paths = LeafPaths(root_shape);
        copied = backend::MissingSliceError(*module_->entry()->root(),
                                   index < paths.size() ? paths[index] : std::vector<int64_t>{},
                                   "the run computed this output nowhere");
      } else {
        copied = context_->CopyDeviceToHost(l.untyped_data(), from, l.size_bytes());
      }
    });
    RETURN_IF_ERROR(copied);
    if (observer != nullptr) observer->OnHostWork("download results", download_start, profiler::NowNs());
    return Status::Ok();
  };
  Status status = run();
  last_kernel_launches_ = frame.launches();
  last_library_calls_ = frame.library_calls();
  if (observer != nullptr) observer->OnRunEnd(options.iteration, profiler::NowNs());
  return status;
}

}  // namespace fusebox::runtime
