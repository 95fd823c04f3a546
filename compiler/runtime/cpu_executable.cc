#include "compiler/runtime/cpu_executable.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "compiler/backend/buffer_assignment.h"
#include "compiler/backend/layout_normalization.h"
#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/collectives.h"
#include "compiler/ir/library_calls.h"
#include "compiler/interpreter/collective_hub.h"
#include "compiler/runtime/library_kernels.h"
#include "compiler/support/large_buffer.h"
#include "compiler/support/planted_bugs.h"

namespace fusebox::runtime {

// A fixed pool of workers running [begin, end) shards of one kernel at a time; also the
// library kernels' runner (dots and convolutions split over batches or bands).
class ThreadPool : public ParallelRunner {
 public:
  explicit ThreadPool(int threads) : threads_(std::max(1, threads)) {
    for (int i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { Work(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }
  int threads() const { return threads_; }

  void Run(int64_t pieces, const Body& body) override {
    ParallelFor(pieces, pieces, [&](int64_t begin, int64_t end, int) {
      for (int64_t w = begin; w < end; ++w) body(w, w + 1, static_cast<int>(w));
    });
  }

  // Runs fn(begin, end, worker) over [0, extent) in about `shards` pieces; the caller's
  // thread takes part as worker 0.
  void ParallelFor(int64_t extent, int64_t shards,
                   const std::function<void(int64_t, int64_t, int)>& fn) {
    shards = std::clamp<int64_t>(shards, 1, extent);
    if (shards <= 1 || threads_ == 1) {
      if (extent > 0) fn(0, extent, 0);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &fn;
      extent_ = extent;
      chunk_ = (extent + shards - 1) / shards;
      next_ = 0;
      pending_ = (extent + chunk_ - 1) / chunk_;  // chunks actually handed out
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    RunShards(0);
    // The other shards are usually a few microseconds from done: wait for them awake
    // before sleeping (a futex wake-up costs 10-20 us on these VMs, per kernel).
    SpinUntil([this] { return pending_.load(std::memory_order_acquire) == 0; });
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return pending_.load(std::memory_order_relaxed) == 0; });
    job_ = nullptr;
  }

 private:
  // Kernels follow each other within microseconds: a worker that just finished, and the
  // caller waiting for the last shard, poll (yielding the core to anything runnable) for
  // up to kSpin before they sleep. Measured on a [2,4,128,128] softmax row kernel: two
  // 33 us shards ran as a 67 us kernel, 7 us to start the first, 9 more to wake the
  // second worker, 18 to wake the caller after the last.
  static constexpr std::chrono::microseconds kSpin{200};
  template <typename Done>
  static bool SpinUntil(Done done) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (int i = 0;; ++i) {
      if (done()) return true;
      if ((i & 63) == 63) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::yield();
      }
    }
  }

  void RunShards(int worker) {
    while (true) {
      int64_t begin;
      const std::function<void(int64_t, int64_t, int)>* job;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (job_ == nullptr || next_ >= extent_) return;
        begin = next_;
        next_ += chunk_;
        job = job_;
      }
      int64_t end = std::min(begin + chunk_, extent_);
      (*job)(begin, end, worker);
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) done_.notify_all();
    }
  }
  void Work(int worker) {
    uint64_t seen = 0;
    while (true) {
      SpinUntil([&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(); });
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return stop_ || (generation_.load(std::memory_order_relaxed) != seen && job_ != nullptr); });
        if (stop_) return;
        seen = generation_.load(std::memory_order_relaxed);
      }
      RunShards(worker);
    }
  }

  int threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::function<void(int64_t, int64_t, int)>* job_ = nullptr;
  int64_t extent_ = 0, chunk_ = 1, next_ = 0;
  std::atomic<int64_t> pending_{0};      // written under mu_, polled without it
  std::atomic<uint64_t> generation_{0};  // likewise
  std::atomic<bool> stop_{false};  // set under mu_, polled without it
};

namespace {

void CollectLeafPaths(const Shape& shape, std::vector<int64_t>* path, std::vector<std::vector<int64_t>>* out) {
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      path->push_back(i);
      CollectLeafPaths(shape.tuple_shapes(i), path, out);
      path->pop_back();
    }
  } else if (shape.IsArray()) {
    out->push_back(*path);
  }
}

std::vector<std::vector<int64_t>> LeafPaths(const Shape& shape) {
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> path;
  CollectLeafPaths(shape, &path, &out);
  return out;
}

std::vector<Shape> LeafShapes(const Shape& shape) {
  std::vector<Shape> out;
  for (const auto& path : LeafPaths(shape)) {
    const Shape* s = &shape;
    for (int64_t i : path) s = &s->tuple_shapes(i);
    out.push_back(*s);
  }
  return out;
}

int64_t LeafBytes(const Shape& shape) {
  return shape.ElementCount() * std::max(1, ByteWidth(shape.element_type()));
}


}  // namespace

// Whether something other than the parameter itself is written into a parameter
// allocation (a donated input_output_alias buffer, an in-place update).
bool WritesParameter(const backend::Allocation& a) {
  return a.kind == backend::Allocation::Kind::kParameter && (a.values.size() > 1 || a.maybe_live_out);
}

// Everything needed to run one program computation: its schedule, buffer assignment,
// memory for its temps and outputs (allocated once, reused by every invocation), and
// where each instruction's leaves live.
struct ProgramPlan {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> schedule;
  backend::BufferAssignment assignment;
  LargeBufferPtr memory;
  int64_t memory_bytes = 0;   // what `memory` holds (allocated again after a fresh-buffer run freed it)
  int64_t memory_align = 64;
  std::vector<int64_t> allocation_offsets;  // into memory, for temps and outputs
  // Per instruction: (allocation, offset) of each array leaf, DFS order.
  std::unordered_map<const Instruction*, std::vector<backend::BufferSlice>> leaves;
};

struct ProgramPlans {
  std::unordered_map<const Computation*, std::unique_ptr<ProgramPlan>> plans;
};

class CpuExecutable::Frame {
 public:
  Frame(CpuExecutable& exe, std::unordered_map<const Computation*, std::unique_ptr<ProgramPlan>>& plans,
        const CpuRunOptions& options)
      : exe_(exe), plans_(plans), options_(options) {}

  StatusOr<ProgramPlan*> PlanFor(const Computation* comp) {
    auto it = plans_.find(comp);
    if (it != plans_.end()) return it->second.get();
    auto plan = std::make_unique<ProgramPlan>();
    plan->computation = comp;
    for (Instruction* inst : comp->PostOrder()) plan->schedule.push_back(inst);
    backend::BufferAssignmentOptions options;
    const codegen::CpuCode* code = exe_.code_.get();
    options.may_share_operand = [code](const Instruction& inst, int64_t operand) {
      const codegen::CpuKernel* kernel = code->KernelFor(&inst);
      return kernel != nullptr && kernel->in_place_operand == operand;
    };
    options.is_alias = [](const Instruction& inst) {
      return inst.opcode() == Opcode::kBitcast || inst.opcode() == Opcode::kReshape ||
             inst.opcode() == Opcode::kAddDependency;
    };
    ScopedSpan span(exe_.trace_, compile_category::kBuffers, "buffer assignment");
    span.Arg("computation", comp->name());
    ASSIGN_OR_RETURN(plan->assignment, backend::AssignBuffers(*comp, plan->schedule, options));
    span.End();
    int64_t total = 0;
    const int64_t align = plan->assignment.alignment();
    for (const backend::Allocation& a : plan->assignment.allocations()) {
      plan->allocation_offsets.push_back(total);
      if (a.kind == backend::Allocation::Kind::kTemp || a.kind == backend::Allocation::Kind::kOutput || WritesParameter(a)) {
        total += (a.size + align - 1) / align * align;
      }
    }
    plan->memory_bytes = total;
    plan->memory_align = align;
    RETURN_IF_ERROR(EnsureMemory(*plan, *comp));
    for (const Instruction* inst : plan->schedule) {
      ASSIGN_OR_RETURN(plan->leaves[inst], backend::LeafSlices(plan->assignment, *inst));
    }
    ProgramPlan* raw = plan.get();
    plans_[comp] = std::move(plan);
    return raw;
  }

  // The plan's temps and outputs, allocated when the plan has none (first use, or after a
  // run with CpuRunOptions::fresh_buffers released them).
  static Status EnsureMemory(ProgramPlan& plan, const Computation& comp) {
    if (plan.memory != nullptr || plan.memory_bytes <= 0) return Status::Ok();
    void* p = AllocateLargeBuffer(static_cast<size_t>(plan.memory_bytes), static_cast<size_t>(plan.memory_align));
    if (p == nullptr) {
      return Unavailable("cannot allocate " + std::to_string(plan.memory_bytes) + " bytes for " + comp.name());
    }
    plan.memory.reset(static_cast<uint8_t*>(p));
    return Status::Ok();
  }

  // Runs `comp` with its parameters' leaves at `params` (one vector per parameter);
  // returns the root's leaf pointers (inside this program's memory or the inputs). With
  // `outputs` (one destination of `output_bytes[i]` bytes per root leaf), a root leaf
  // whose allocation holds nothing else at the end and fits is computed in place at its
  // destination, so the caller copies nothing for it (the returned pointer is the
  // destination).
  StatusOr<std::vector<void*>> RunProgram(const Computation* comp, const std::vector<std::vector<void*>>& params,
                                          const std::vector<void*>* outputs = nullptr,
                                          const std::vector<int64_t>* output_bytes = nullptr) {
    ASSIGN_OR_RETURN(ProgramPlan * plan, PlanFor(comp));
    RETURN_IF_ERROR(EnsureMemory(*plan, *comp));
    std::vector<void*> bases(plan->assignment.allocations().size(), nullptr);
    for (const backend::Allocation& a : plan->assignment.allocations()) {
      switch (a.kind) {
        case backend::Allocation::Kind::kParameter: {
          const int64_t p = a.parameter_number;
          if (p < 0 || p >= static_cast<int64_t>(params.size())) return Internal("bad parameter allocation");
          // Find the leaf position of parameter_index among the parameter's leaves.
          auto paths = LeafPaths(comp->parameter(p)->shape());
          auto pos = std::find(paths.begin(), paths.end(), a.parameter_index);
          if (pos == paths.end() || static_cast<size_t>(pos - paths.begin()) >= params[p].size()) {
            return Internal("parameter leaf missing");
          }
          bases[a.index] = params[p][pos - paths.begin()];
          if (WritesParameter(a)) {
            // An input_output_alias output (or an in-place write) lands in this parameter's
            // buffer: work on a copy, the caller's inputs stay as they were.
            uint8_t* own = plan->memory.get() + plan->allocation_offsets[a.index];
            std::memcpy(own, bases[a.index], static_cast<size_t>(a.size));
            bases[a.index] = own;
          }
          break;
        }
        case backend::Allocation::Kind::kConstant: {
          const backend::LogicalValue& v = plan->assignment.values()[a.values.at(0).first];
          const Literal* literal = v.instruction->literal();
          if (literal == nullptr || v.instruction->literal_elided()) {
            return InvalidArgument("constant " + v.instruction->name() + " has no values (elided in the file)");
          }
          bases[a.index] = const_cast<uint8_t*>(literal->untyped_data());
          break;
        }
        default:
          bases[a.index] = plan->memory.get() + plan->allocation_offsets[a.index];
      }
    }
    if (outputs != nullptr && output_bytes != nullptr) RedirectOutputs(*plan, comp, *outputs, *output_bytes, bases);
    auto leaf_ptrs = [&](const Instruction* inst) {
      std::vector<void*> ptrs;
      for (const backend::BufferSlice& s : plan->leaves[inst]) {
        ptrs.push_back(s.allocation < 0 ? nullptr : static_cast<uint8_t*>(bases[s.allocation]) + s.offset);
      }
      return ptrs;
    };
    const std::vector<const Instruction*>& schedule = plan->schedule;
    for (size_t s = 0; s < schedule.size(); ++s) {
      if (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed)) return Cancelled();
      // Untraced runs chain row kernels (a traced run times every kernel on its own).
      if (options_.observer == nullptr) {
        if (const size_t taken = RunRowChain(schedule, s, leaf_ptrs); taken > 0) {
          s += taken - 1;
          continue;
        }
      }
      RETURN_IF_ERROR(Execute(*schedule[s], leaf_ptrs));
    }
    return leaf_ptrs(comp->root());
  }

  int64_t kernel_launches() const { return launches_; }

 private:
  // Points output allocations at the caller's destinations where that is safe: the
  // allocation is an output (not a parameter or constant), only one root leaf lives in
  // it, that leaf starts at offset 0, everything ever placed in it fits the destination,
  // and the destination is aligned as the buffer assignment aligns (kernels with
  // streaming stores run their fast variant only on 64-byte aligned outputs).
  static void RedirectOutputs(const ProgramPlan& plan, const Computation* comp, const std::vector<void*>& outputs,
                              const std::vector<int64_t>& output_bytes, std::vector<void*>& bases) {
    auto it = plan.leaves.find(comp->root());
    if (it == plan.leaves.end() || it->second.size() != outputs.size() || output_bytes.size() != outputs.size()) {
      return;
    }
    const std::vector<backend::BufferSlice>& root = it->second;
    std::unordered_map<int64_t, int> uses;
    for (const backend::BufferSlice& slice : root) {
      if (slice.allocation >= 0) ++uses[slice.allocation];
    }
    for (size_t i = 0; i < root.size(); ++i) {
      const backend::BufferSlice& slice = root[i];
      if (slice.allocation < 0 || outputs[i] == nullptr || slice.offset != 0 || uses[slice.allocation] != 1) continue;
      const backend::Allocation& a = plan.assignment.allocations()[static_cast<size_t>(slice.allocation)];
      if (a.kind != backend::Allocation::Kind::kOutput || a.size > output_bytes[i]) continue;
      if (reinterpret_cast<uintptr_t>(outputs[i]) % static_cast<uintptr_t>(plan.assignment.alignment()) != 0) continue;
      bases[static_cast<size_t>(slice.allocation)] = outputs[i];
    }
  }

  Status Execute(const Instruction& inst, const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    const codegen::CpuKernel* kernel = exe_.code_->KernelFor(&inst);
    if (kernel != nullptr) return RunKernel(*kernel, inst, leaves);
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
        std::vector<void*> out = leaves(&inst);
        uint32_t id = inst.opcode() == Opcode::kPartitionId ? options_.partition_id : options_.replica_id;
        if (!out.empty() && out[0] != nullptr && LeafBytes(inst.shape()) == sizeof(id)) std::memcpy(out[0], &id, sizeof(id));
        return Status::Ok();
      }
      case Opcode::kAllReduce:
      case Opcode::kAllGather:
      case Opcode::kReduceScatter:
      case Opcode::kAllToAll:
      case Opcode::kCollectivePermute:
      case Opcode::kCollectiveBroadcast:
      case Opcode::kAllReduceStart:
      case Opcode::kAllGatherStart:
      case Opcode::kCollectivePermuteStart:
        return RunCollective(inst, leaves);
      case Opcode::kAllReduceDone:
      case Opcode::kAllGatherDone:
      case Opcode::kCollectivePermuteDone: {
        // The start produced the result: as the whole value, or as element 1 of its tuple.
        const Instruction* start = inst.operand(0);
        std::vector<void*> from = leaves(start);
        if (start->shape().IsTuple() && start->shape().tuple_size() >= 2) {
          size_t skip = LeafShapes(start->shape().tuple_shapes(0)).size();
          size_t count = LeafShapes(start->shape().tuple_shapes(1)).size();
          if (skip + count > from.size()) return Internal(inst.name() + ": start tuple has too few leaves");
          from = std::vector<void*>(from.begin() + static_cast<std::ptrdiff_t>(skip),
                                    from.begin() + static_cast<std::ptrdiff_t>(skip + count));
        }
        return CopyLeaves(inst, from, leaves(&inst));
      }
      case Opcode::kGetDimensionSize: {
        std::vector<void*> out = leaves(&inst);
        int64_t dim = inst.dimensions().empty() ? 0 : inst.dimensions()[0];
        int32_t size = static_cast<int32_t>(inst.operand(0)->shape().dimensions(dim));
        if (!out.empty() && out[0] != nullptr) std::memcpy(out[0], &size, sizeof(size));
        return Status::Ok();
      }
      case Opcode::kWhile:
        return RunWhile(inst, leaves);
      case Opcode::kConditional:
        return RunConditional(inst, leaves);
      case Opcode::kCall: {
        std::vector<std::vector<void*>> params;
        for (const Instruction* op : inst.operands()) params.push_back(leaves(op));
        ASSIGN_OR_RETURN(std::vector<void*> result, RunProgram(inst.to_apply(), params));
        return CopyLeaves(inst, result, leaves(&inst));
      }
      default:
        return Unimplemented("CPU runtime: " + inst.name() + " (" + std::string(OpcodeName(inst.opcode())) +
                             ") has no kernel and is not host work");
    }
  }

  // Row chaining: consecutive kernels that all iterate the rows (dimension 0) of their
  // outputs, each reading what earlier ones wrote only at its own row, run as one
  // parallel loop over blocks of rows: each block runs through every kernel in turn while
  // its rows are still in cache (softmax's max, exp-and-sum and divide read a row from
  // memory once instead of three times). Every row is computed by the same code as when
  // the kernels run one by one, so the results are the same. Buffers written by the chain
  // may not overlap any other buffer it reads. Returns how many schedule entries ran (0:
  // no chain of two or more kernels starts at `s`).
  size_t RunRowChain(const std::vector<const Instruction*>& schedule, size_t s,
                     const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    struct Range {
      const uint8_t* begin;
      const uint8_t* end;
      bool Overlaps(const Range& o) const { return begin < o.end && o.begin < end; }
    };
    struct Member {
      const codegen::CpuKernel* kernel;
      std::vector<void*> buffers;
      std::vector<Range> inputs, outputs;
    };
    auto chainable = [&](const Instruction* inst) -> const codegen::CpuKernel* {
      const codegen::CpuKernel* k = exe_.code_->KernelFor(inst);
      if (k == nullptr || k->kind != codegen::CpuKernel::Kind::kLoop || k->rows <= 1 || k->scratch_bytes > 0 ||
          k->row_local_operands.size() != static_cast<size_t>(inst->operand_count())) {
        return nullptr;
      }
      return k;
    };
    const codegen::CpuKernel* first = chainable(schedule[s]);
    if (first == nullptr) return 0;
    std::vector<Member> members;
    size_t end = s;
    for (size_t i = s; i < schedule.size(); ++i) {
      const Instruction* inst = schedule[i];
      if (exe_.code_->KernelFor(inst) == nullptr) {
        const Opcode op = inst->opcode();
        if (op == Opcode::kGetTupleElement || op == Opcode::kTuple || op == Opcode::kBitcast ||
            op == Opcode::kReshape || op == Opcode::kParameter || op == Opcode::kConstant) {
          continue;  // no work at run time
        }
        break;
      }
      const codegen::CpuKernel* k = chainable(inst);
      if (k == nullptr || k->rows != first->rows) break;
      Member m{k, {}, {}, {}};
      bool ok = true;
      for (int64_t p = 0; p < inst->operand_count() && ok; ++p) {
        std::vector<void*> l = leaves(inst->operand(p));
        ok = l.size() == 1 && l[0] != nullptr;
        if (!ok) break;
        const auto* b = static_cast<const uint8_t*>(l[0]);
        Range r{b, b + LeafBytes(inst->operand(p)->shape())};
        // Written by an earlier kernel of the chain: exactly that buffer, read row-locally.
        for (const Member& earlier : members) {
          for (const Range& w : earlier.outputs) {
            if (w.Overlaps(r) && !(w.begin == r.begin && r.end <= w.end && k->row_local_operands[p])) ok = false;
          }
        }
        m.buffers.push_back(l[0]);
        m.inputs.push_back(r);
      }
      std::vector<void*> outs = leaves(inst);
      std::vector<Shape> shapes = LeafShapes(inst->shape());
      ok = ok && outs.size() == shapes.size();
      for (size_t o = 0; ok && o < outs.size(); ++o) {
        ok = outs[o] != nullptr;
        if (!ok) break;
        const auto* b = static_cast<const uint8_t*>(outs[o]);
        Range r{b, b + LeafBytes(shapes[o])};
        // Nothing read or written by the chain (this kernel included) may share it.
        for (const Range& in : m.inputs) ok = ok && !in.Overlaps(r);
        for (const Range& out : m.outputs) ok = ok && !out.Overlaps(r);
        for (const Member& earlier : members) {
          for (const Range& in : earlier.inputs) ok = ok && !in.Overlaps(r);
          for (const Range& out : earlier.outputs) ok = ok && !out.Overlaps(r);
        }
        m.buffers.push_back(outs[o]);
        m.outputs.push_back(r);
      }
      if (!ok) break;
      members.push_back(std::move(m));
      end = i + 1;
    }
    if (members.size() < 2) return 0;
    // Blocks of rows whose data (every buffer's share) fits in about 512 KiB of L2.
    const int64_t rows = first->rows;
    int64_t bytes = 0, work = 0;
    for (const Member& m : members) {
      for (const Range& r : m.inputs) bytes += r.end - r.begin;
      for (const Range& r : m.outputs) bytes += r.end - r.begin;
      for (const codegen::CpuLoopGroup& g : m.kernel->groups) work += g.extent * g.elements_per_iteration;
    }
    const int64_t block = std::clamp<int64_t>((int64_t{512} << 10) / std::max<int64_t>(1, bytes / rows), 1, rows);
    const int64_t by_work = std::max<int64_t>(1, work / 16384);
    int64_t shards = std::min<int64_t>((rows + block - 1) / block, by_work);
    shards = std::max<int64_t>(shards, std::min<int64_t>(exe_.pool_->threads() * 4, by_work));
    exe_.pool_->ParallelFor(rows, shards, [&](int64_t begin, int64_t stop, int) {
      for (const Member& m : members) {
        for (const codegen::CpuLoopGroup& g : m.kernel->groups) {
          if (g.extent > 0) g.entry(m.buffers.data(), begin, std::min(stop, g.extent));
        }
      }
    });
    launches_ += static_cast<int64_t>(members.size());
    return end - s;
  }

  // A collective as host work: operands copied out of their buffers, exchanged through
  // the hub (or, on one device, checked to involve only this device), the result copied
  // into the instruction's buffers. A -start form with a tuple shape (operands, result,
  // ...) gets its operands in element 0 and the result in element 1.
  Status RunCollective(const Instruction& inst, const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    int64_t start = profiler::NowNs();
    std::vector<Literal> operands;
    for (const Instruction* op : inst.operands()) {
      Literal l = Literal::CreateUninitialized(op->shape());
      std::vector<void*> from = leaves(op);
      size_t i = 0;
      Status st = Status::Ok();
      ForEachArrayLeaf(l, [&](Literal& leaf) {
        if (i >= from.size() || from[i] == nullptr) {
          if (leaf.size_bytes() > 0) st = Internal(inst.name() + ": operand " + op->name() + " has no buffer");
        } else {
          std::memcpy(leaf.untyped_data(), from[i], static_cast<size_t>(leaf.size_bytes()));
        }
        ++i;
      });
      RETURN_IF_ERROR(st);
      operands.push_back(std::move(l));
    }
    Literal result;
    if (options_.hub != nullptr) {
      std::vector<const Literal*> ptrs;
      for (const Literal& l : operands) ptrs.push_back(&l);
      ASSIGN_OR_RETURN(result, options_.hub->Exchange(inst, options_.device, ptrs));
    } else {
      RETURN_IF_ERROR(CheckCollectiveFits(inst, /*devices=*/1));
      if (inst.opcode() == Opcode::kCollectivePermute || inst.opcode() == Opcode::kCollectivePermuteStart) {
        bool self = false;
        for (const auto& [src, dst] : inst.attrs().source_target_pairs) self |= src == 0 && dst == 0;
        result = self ? operands[0] : Literal(operands[0].shape());
      } else if (operands.size() == 1) {
        result = operands[0];
      } else {
        std::vector<Shape> shapes;
        for (const Literal& l : operands) shapes.push_back(l.shape());
        result = Literal(Shape::Tuple(shapes));
        for (size_t i = 0; i < operands.size(); ++i) result.tuple_elements()[i] = operands[i];
      }
    }
    std::vector<void*> to = leaves(&inst);
    std::vector<const Literal*> parts;
    const bool start_tuple = (inst.opcode() == Opcode::kAllGatherStart || inst.opcode() == Opcode::kCollectivePermuteStart ||
                              inst.opcode() == Opcode::kAllReduceStart) &&
                             inst.shape().IsTuple() && inst.shape().tuple_size() >= 2 && !result.shape().IsTuple();
    if (start_tuple) {
      if (operands.size() == 1) {
        ForEachArrayLeaf(operands[0], [&](const Literal& leaf) { parts.push_back(&leaf); });
      } else {
        for (const Literal& l : operands) ForEachArrayLeaf(l, [&](const Literal& leaf) { parts.push_back(&leaf); });
      }
    }
    ForEachArrayLeaf(result, [&](const Literal& leaf) { parts.push_back(&leaf); });
    std::vector<Shape> shapes = LeafShapes(inst.shape());
    if (parts.size() > to.size()) return Internal(inst.name() + ": the collective's result has more leaves than its shape");
    for (size_t i = 0; i < parts.size(); ++i) {
      if (to[i] == nullptr) continue;
      if (parts[i]->size_bytes() != LeafBytes(shapes[i]))
        return Internal(inst.name() + ": the collective's result leaf " + std::to_string(i) + " has " +
                        std::to_string(parts[i]->size_bytes()) + " bytes for " + shapes[i].ToString(false));
      std::memcpy(to[i], parts[i]->untyped_data(), static_cast<size_t>(parts[i]->size_bytes()));
    }
    (void)start;
    return Status::Ok();
  }

  Status CopyLeaves(const Instruction& inst, const std::vector<void*>& from, const std::vector<void*>& to) {
    std::vector<Shape> shapes = LeafShapes(inst.shape());
    if (from.size() != to.size() || to.size() != shapes.size()) {
      return Internal(inst.name() + ": leaf counts differ in a host copy");
    }
    int64_t start = profiler::NowNs();
    // A source may be another leaf's destination (a while body that returns its state
    // permuted, like threefry's key rotation): stage those sources first.
    std::vector<std::vector<uint8_t>> staged(to.size());
    std::vector<const void*> source(from.begin(), from.end());
    for (size_t i = 0; i < to.size(); ++i) {
      if (from[i] == nullptr || from[i] == to[i]) continue;
      for (size_t j = 0; j < to.size(); ++j) {
        if (j != i && to[j] == from[i]) {
          const auto* p = static_cast<const uint8_t*>(from[i]);
          staged[i].assign(p, p + LeafBytes(shapes[i]));
          source[i] = staged[i].data();
          break;
        }
      }
    }
    for (size_t i = 0; i < to.size(); ++i) {
      if (source[i] != to[i] && source[i] != nullptr && to[i] != nullptr) {
        std::memmove(to[i], source[i], static_cast<size_t>(LeafBytes(shapes[i])));
      }
    }
    if (options_.observer != nullptr) options_.observer->OnHostWork("copy " + inst.name(), start, profiler::NowNs());
    return Status::Ok();
  }

  Status RunWhile(const Instruction& inst, const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    std::vector<void*> state = leaves(&inst);
    RETURN_IF_ERROR(CopyLeaves(inst, leaves(inst.operand(0)), state));
    for (int64_t trip = 0;; ++trip) {
      ASSIGN_OR_RETURN(std::vector<void*> cond, RunProgram(inst.while_condition(), {state}));
      if (cond.empty() || cond[0] == nullptr) return Internal(inst.name() + ": the condition gave no value");
      if (*static_cast<uint8_t*>(cond[0]) == 0) break;
      if (trip >= (int64_t{1} << 31)) return InvalidArgument(inst.name() + ": the while loop did not terminate");
      ASSIGN_OR_RETURN(std::vector<void*> next, RunProgram(inst.while_body(), {state}));
      RETURN_IF_ERROR(CopyLeaves(inst, next, state));
    }
    return Status::Ok();
  }

  Status RunConditional(const Instruction& inst, const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    std::vector<void*> selector = leaves(inst.operand(0));
    if (selector.empty() || selector[0] == nullptr) return Internal(inst.name() + ": no branch selector");
    const int64_t branches = static_cast<int64_t>(inst.called_computations().size());
    int64_t branch;
    if (inst.operand(0)->shape().element_type() == PrimitiveType::kPred) {
      branch = *static_cast<uint8_t*>(selector[0]) != 0 ? 0 : 1;
      if (BugPlanted(PlantedBug::kConditionalBranchesSwapped)) branch = 1 - branch;
    } else {
      int32_t index;
      std::memcpy(&index, selector[0], sizeof(index));
      branch = index < 0 || index >= branches ? branches - 1 : index;
    }
    ASSIGN_OR_RETURN(std::vector<void*> result,
                     RunProgram(inst.called_computations()[branch], {leaves(inst.operand(branch + 1))}));
    return CopyLeaves(inst, result, leaves(&inst));
  }

  Status RunKernel(const codegen::CpuKernel& kernel, const Instruction& inst,
                   const std::function<std::vector<void*>(const Instruction*)>& leaves) {
    std::vector<void*> buffers;
    for (const Instruction* op : inst.operands()) {
      std::vector<void*> l = leaves(op);
      if (l.size() != 1) return Internal(inst.name() + ": operand " + op->name() + " is not one array");
      buffers.push_back(l[0]);
    }
    std::vector<void*> outputs = leaves(&inst);
    buffers.insert(buffers.end(), outputs.begin(), outputs.end());
    const int64_t start = profiler::NowNs();
    profiler::KernelLaunch launch;
    launch.kernel = kernel.name;
    launch.hlo = inst.name();
    launch.computation = inst.parent() != nullptr ? std::string_view(inst.parent()->name()) : std::string_view();
    launch.kind = kernel.kind_name;
    launch.bytes_read = kernel.bytes_read;
    launch.bytes_written = kernel.bytes_written;
    launch.flops = kernel.flops;
    launch.iteration = options_.iteration;
    const int threads = exe_.pool_->threads();
    ScopedParallelRunner runner(exe_.pool_.get());
    switch (kernel.kind) {
      case codegen::CpuKernel::Kind::kLibrary:
        RETURN_IF_ERROR(RunLibrary(kernel, inst, buffers, outputs, threads));
        break;
      case codegen::CpuKernel::Kind::kOutputFusion: {
        // Not zeroed: the dot or convolution writes every element of it.
        std::unique_ptr<uint8_t[]> scratch_memory(new uint8_t[static_cast<size_t>(std::max<int64_t>(kernel.scratch_bytes, 1))]);
        uint8_t* scratch = scratch_memory.get();
        const Instruction& op = *kernel.library_op;
        const void* lhs = buffers.at(kernel.library_operands.at(0));
        const void* rhs = buffers.at(kernel.library_operands.at(1));
        if (op.opcode() == Opcode::kDot) {
          RETURN_IF_ERROR(RunDot(op, lhs, rhs, scratch, threads));
        } else {
          RETURN_IF_ERROR(RunConvolution(op, lhs, rhs, scratch, threads));
        }
        buffers.push_back(scratch);
        RunGroups(kernel, buffers, launch);
        break;
      }
      case codegen::CpuKernel::Kind::kLoop: {
        std::vector<uint8_t> scratch(static_cast<size_t>(kernel.scratch_bytes));
        if (kernel.scratch_bytes > 0) buffers.push_back(scratch.data());
        RunGroups(kernel, buffers, launch);
        break;
      }
    }
    ++launches_;
    if (options_.observer != nullptr) options_.observer->OnKernel(launch, start, profiler::NowNs(), 0);
    return Status::Ok();
  }

  Status RunLibrary(const codegen::CpuKernel& kernel, const Instruction& inst, const std::vector<void*>& buffers,
                    const std::vector<void*>& outputs, int threads) {
    switch (inst.opcode()) {
      case Opcode::kDot:
        return RunDot(inst, buffers.at(0), buffers.at(1), outputs.at(0), threads);
      case Opcode::kConvolution:
        return RunConvolution(inst, buffers.at(0), buffers.at(1), outputs.at(0), threads);
      case Opcode::kSort: {
        if (outputs.size() != static_cast<size_t>(inst.operand_count())) return Internal(inst.name() + ": sort outputs");
        for (int64_t i = 0; i < inst.operand_count(); ++i) {
          if (outputs[i] != buffers[i]) {
            std::memmove(outputs[i], buffers[i], static_cast<size_t>(LeafBytes(inst.operand(i)->shape())));
          }
        }
        return RunSort(inst, outputs, kernel.comparator, nullptr);
      }
      case Opcode::kRngBitGenerator:
        if (outputs.size() != 2) return Internal(inst.name() + ": rng-bit-generator outputs");
        return RunRngBitGenerator(inst, buffers.at(0), outputs[0], outputs[1]);
      case Opcode::kTopK:
        if (outputs.size() != 2) return Internal(inst.name() + ": topk outputs");
        return RunTopK(inst, buffers.at(0), outputs[0], outputs[1], threads);
      case Opcode::kFft:
        return RunFft(inst, buffers.at(0), outputs.at(0), threads);
      case Opcode::kCustomCall:
        return RunLapack(inst, std::vector<void*>(buffers.begin(), buffers.begin() + inst.operand_count()), outputs,
                         threads);
      default:
        return Internal(inst.name() + ": not a library op");
    }
  }

  void RunGroups(const codegen::CpuKernel& kernel, const std::vector<void*>& buffers, const profiler::KernelLaunch& launch) {
    const size_t first_output = kernel.hlo != nullptr ? static_cast<size_t>(kernel.hlo->operand_count()) : 0;
    for (const codegen::CpuLoopGroup& g : kernel.groups) {
      if (g.extent <= 0) continue;
      if (g.skip_if_aliased >= 0 && first_output < buffers.size() &&
          buffers[static_cast<size_t>(g.skip_if_aliased)] == buffers[first_output]) {
        continue;  // in place: the result already holds the operand
      }
      // Shards of at least ~16K elements, up to 4 per thread for balance.
      const int64_t work = g.extent * g.elements_per_iteration;
      const int threads = exe_.pool_->threads();
      int64_t shards = std::min<int64_t>(threads * 4, std::max<int64_t>(1, work / 16384));
      profiler::ExecutionObserver* observer = options_.observer;
      exe_.pool_->ParallelFor(g.extent, shards, [&](int64_t begin, int64_t end, int worker) {
        const int64_t t0 = observer != nullptr ? profiler::NowNs() : 0;
        g.entry(buffers.data(), begin, end);
        if (observer != nullptr) observer->OnKernelShard(launch, t0, profiler::NowNs(), worker);
      });
    }
  }

  CpuExecutable& exe_;
  std::unordered_map<const Computation*, std::unique_ptr<ProgramPlan>>& plans_;
  const CpuRunOptions& options_;
  int64_t launches_ = 0;
};

StatusOr<std::unique_ptr<CpuExecutable>> CpuExecutable::Create(std::unique_ptr<Module> module,
                                                               const CpuExecutableOptions& options) {
  if (module == nullptr || module->entry() == nullptr) return InvalidArgument("no module to compile");
  // Collectives over more devices than the run has would compute a local value as if it
  // were the result.
  RETURN_IF_ERROR(CheckCollectivesFit(*module, std::max<int64_t>(1, options.devices)));
  ScopedSpan layout_span(options.compile.trace, compile_category::kPass, "layout-normalization");
  layout_span.Arg("backend", "cpu");
  RETURN_IF_ERROR(backend::NormalizeLayoutsForBackend(*module, "CPU backend"));
  layout_span.End();
  std::unique_ptr<CpuExecutable> exe(new CpuExecutable());
  exe->module_ = std::move(module);
  exe->trace_ = options.compile.trace;
  ASSIGN_OR_RETURN(exe->code_, CompileForCpu(*exe->module_, options.compile));
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  exe->pool_ = std::make_unique<ThreadPool>(std::max(1, threads));
  exe->plans_ = std::make_unique<ProgramPlans>();
  return exe;
}

std::vector<std::pair<std::string, double>> CpuExecutable::PrepareLibraries() {
  bool gemm = false, fft = false, lapack = false;
  for (const auto& kernel : code_->kernels()) {
    const Instruction* op = kernel->library_op;
    if (op == nullptr) continue;
    gemm |= (op->opcode() == Opcode::kDot || op->opcode() == Opcode::kConvolution) && op->shape().IsArray() &&
            op->shape().element_type() == PrimitiveType::kF32;
    fft |= op->opcode() == Opcode::kFft;
    lapack |= IsCpuLapackCall(*op);
  }
  std::vector<std::pair<std::string, double>> set_up;
  auto add = [&](const char* library, double seconds) {
    if (seconds > 0) set_up.emplace_back(library, seconds);
  };
  if (gemm) add("oneDNN", WarmUpGemmLibrary(threads()));
  if (fft) add("FFTW", LoadFftLibrary());
  if (lapack) add("LAPACK", LoadLapackLibrary());
  return set_up;
}

CpuExecutable::~CpuExecutable() = default;

int CpuExecutable::threads() const { return pool_->threads(); }

void CpuExecutable::PrepareSlots(int count) {
  while (static_cast<int>(slot_plans_.size()) + 1 < count) slot_plans_.push_back(std::make_unique<ProgramPlans>());
}

StatusOr<std::string> CpuExecutable::BufferAssignmentText() {
  CpuRunOptions options;
  Frame frame(*this, plans_->plans, options);
  std::string text;
  std::vector<const Computation*> order = {module_->entry()};
  for (size_t i = 0; i < order.size(); ++i) {
    ASSIGN_OR_RETURN(ProgramPlan * plan, frame.PlanFor(order[i]));
    if (i > 0) text += "\n";
    text += "computation " + order[i]->name() + ":\n" + plan->assignment.ToString();
    // The library calls among the kernels, with how each runs (a dot's GEMMs, in place or
    // packed; a convolution's path): what the buffers above feed.
    std::string calls;
    for (const auto& inst : order[i]->instructions()) {
      const codegen::CpuKernel* kernel = code_->KernelFor(inst.get());
      if (kernel == nullptr || kernel->library_op == nullptr) continue;
      const Instruction& op = *kernel->library_op;
      std::string path;
      if (op.opcode() == Opcode::kDot) path = DotPath(op);
      if (op.opcode() == Opcode::kConvolution) path = ConvolutionPath(op);
      if (path.empty()) continue;
      calls += "  " + std::string(OpcodeName(op.opcode())) + " %" + op.name() +
               (&op != inst.get() ? " (in %" + inst->name() + ")" : std::string()) + ": " + path + "\n";
    }
    if (!calls.empty()) text += "Library calls:\n" + calls;
    for (const auto& inst : order[i]->instructions()) {
      Opcode op = inst->opcode();
      if (op != Opcode::kWhile && op != Opcode::kConditional && op != Opcode::kCall) continue;
      for (const Computation* callee : inst->called_computations()) {
        if (std::find(order.begin(), order.end(), callee) == order.end()) order.push_back(callee);
      }
    }
  }
  return text;
}

StatusOr<int64_t> CpuExecutable::EntryPeakBytes() {
  CpuRunOptions options;
  Frame frame(*this, plans_->plans, options);
  ASSIGN_OR_RETURN(ProgramPlan * plan, frame.PlanFor(module_->entry()));
  return plan->assignment.peak_live_bytes();
}

StatusOr<backend::MemoryProfile> CpuExecutable::EntryMemoryProfile() {
  CpuRunOptions run_options;
  Frame frame(*this, plans_->plans, run_options);
  backend::MemoryProfileOptions options;
  options.parameter_copied = WritesParameter;
  options.callee = [&](const Computation& comp) -> StatusOr<backend::MemoryProfile> {
    ASSIGN_OR_RETURN(ProgramPlan * plan, frame.PlanFor(&comp));
    return backend::ProfileMemory(comp, plan->schedule, plan->assignment, options);
  };
  return options.callee(*module_->entry());
}

StatusOr<Literal> CpuExecutable::Run(const std::vector<Literal>& arguments, const CpuRunOptions& options) {
  Literal result = Literal::CreateUninitialized(module_->entry()->root()->shape());
  RETURN_IF_ERROR(RunInto(arguments, result, options));
  return result;
}


Status CpuExecutable::RunInto(const std::vector<Literal>& arguments, Literal& result, const CpuRunOptions& options) {
  RETURN_IF_ERROR(interpreter::CheckArguments(*module_, arguments));
  const Shape& root_shape = module_->entry()->root()->shape();
  if (!(result.shape() == root_shape)) result = Literal::CreateUninitialized(root_shape);
  ProgramPlans* plans = plans_.get();
  if (options.slot != 0) {
    if (options.slot < 0 || options.slot > static_cast<int>(slot_plans_.size()))
      return Internal("CPU run: buffer slot " + std::to_string(options.slot) + " was not prepared");
    plans = slot_plans_[static_cast<size_t>(options.slot - 1)].get();
  }
  Frame frame(*this, plans->plans, options);
  std::vector<std::vector<void*>> params;
  for (const Literal& arg : arguments) {
    std::vector<void*> leaves;
    ForEachArrayLeaf(arg, [&](const Literal& l) { leaves.push_back(const_cast<uint8_t*>(l.untyped_data())); });
    params.push_back(std::move(leaves));
  }
  std::vector<void*> destinations;
  std::vector<int64_t> destination_bytes;
  ForEachArrayLeaf(result, [&](Literal& l) {
    destinations.push_back(l.size_bytes() > 0 ? l.untyped_data() : nullptr);
    destination_bytes.push_back(l.size_bytes());
  });
  if (options.observer != nullptr) options.observer->OnRunStart(options.iteration, profiler::NowNs());
  auto ran = frame.RunProgram(module_->entry(), params, &destinations, &destination_bytes);
  last_kernel_launches_ = frame.kernel_launches();
  // Temps and outputs as a caller that allocates per call has them: released after this
  // run (once its results are copied out below), allocated again by the next.
  struct ReleaseAfter {
    ProgramPlans* plans;
    bool release;
    ~ReleaseAfter() {
      if (!release) return;
      for (auto& [comp, plan] : plans->plans) plan->memory.reset();
    }
  } release_after{plans, options.fresh_buffers};
  if (!ran.ok()) {
    if (options.observer != nullptr) options.observer->OnRunEnd(options.iteration, profiler::NowNs());
    return ran.status();
  }
  const std::vector<void*>& computed = *ran;
  if (computed.size() != destinations.size()) return Internal("result has fewer leaves than the root's shape");
  // Leaves not computed in place (parameters passed through, constants, shared
  // allocations) are copied. Every leaf with bytes has a buffer (LeafSlices): one without
  // is a bug, never a result of zeros.
  for (size_t i = 0; i < destinations.size(); ++i) {
    if (destinations[i] == nullptr || computed[i] == destinations[i]) continue;
    if (computed[i] == nullptr) {
      if (options.observer != nullptr) options.observer->OnRunEnd(options.iteration, profiler::NowNs());
      const std::vector<std::vector<int64_t>> paths = LeafPaths(root_shape);
      return backend::MissingSliceError(*module_->entry()->root(), i < paths.size() ? paths[i] : std::vector<int64_t>{},
                               "the run computed this output nowhere");
    }
    std::memmove(destinations[i], computed[i], static_cast<size_t>(destination_bytes[i]));
  }
  if (options.observer != nullptr) options.observer->OnRunEnd(options.iteration, profiler::NowNs());
  return Status::Ok();
}

}  // namespace fusebox::runtime
