#include "compiler/codegen/occupancy.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fusebox::codegen {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t Waves(int64_t blocks, int64_t blocks_per_sm, const SmLimits& sm) {
  return blocks_per_sm <= 0 ? 0 : CeilDiv(blocks, blocks_per_sm * sm.multiprocessors);
}

const KernelResources* Find(const std::vector<KernelResources>& resources, const std::string& function) {
  for (const KernelResources& r : resources) {
    if (r.function == function) return &r;
  }
  return nullptr;
}

// A kernel's largest launch: blocks, threads a block, dynamic shared memory.
struct Footprint {
  int64_t blocks = 0, threads = 0, dynamic_shared = 0;
};

}  // namespace

SmLimits SmLimitsForArch(std::string_view arch, int64_t multiprocessors) {
  std::string digits;
  for (char c : arch.substr(std::min<size_t>(arch.size(), 3))) {
    if (c < '0' || c > '9') break;
    digits += c;
  }
  const int version = digits.empty() ? 90 : std::stoi(digits);
  SmLimits sm;  // sm_90: H100 SXM, H200
  if (version >= 100 && version < 120) {
    sm.multiprocessors = 148;  // B200
  } else if (version >= 120 || version == 89 || version == 86 || version == 87) {
    sm.max_threads = 1536;
    sm.max_blocks = version == 86 ? 16 : 24;
    sm.shared_bytes = 100 * 1024;
    sm.multiprocessors = version >= 120 ? 170 : version == 89 ? 142 : version == 86 ? 84 : 16;
  } else if (version == 80) {
    sm.multiprocessors = 108;  // A100
    sm.shared_bytes = 164 * 1024;
  } else if (version < 80) {
    sm.multiprocessors = 40;  // T4
    sm.max_threads = 1024;
    sm.max_blocks = 16;
    sm.shared_bytes = 64 * 1024;
    sm.reserved_shared_per_block = 0;
  }
  if (multiprocessors > 0) sm.multiprocessors = multiprocessors;
  return sm;
}

int64_t BlocksPerSm(const SmLimits& sm, int64_t threads, int64_t registers, int64_t shared_bytes) {
  if (threads <= 0 || threads > sm.max_threads || registers > sm.max_registers_per_thread) return 0;
  const int64_t warps = CeilDiv(threads, 32);
  int64_t blocks = std::min(sm.max_blocks, sm.max_threads / (warps * 32));
  if (registers > 0) {
    const int64_t per_warp = CeilDiv(registers * 32, sm.register_unit) * sm.register_unit;
    blocks = std::min(blocks, sm.registers / (per_warp * warps));
  }
  const int64_t shared = shared_bytes + sm.reserved_shared_per_block;
  if (shared > 0) blocks = std::min(blocks, sm.shared_bytes / shared);
  return std::max<int64_t>(blocks, 0);
}

int64_t RegistersForBlocks(const SmLimits& sm, int64_t threads, int64_t blocks) {
  if (threads <= 0 || blocks <= 0) return 0;
  const int64_t warps = blocks * CeilDiv(threads, 32);
  const int64_t per_warp = sm.registers / warps / sm.register_unit * sm.register_unit;
  const int64_t per_thread = std::min(per_warp / 32, sm.max_registers_per_thread) / 8 * 8;
  return per_thread;
}

std::vector<OccupancyRequest> PlanOccupancy(const std::vector<GpuLaunch>& launches,
                                            const std::vector<KernelResources>& resources, const SmLimits& sm) {
  std::map<std::string, Footprint> footprints;  // by function, in name order
  std::vector<std::string> order;               // first launch order, for the result
  for (const GpuLaunch& launch : launches) {
    const int64_t blocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
    const int64_t threads = launch.block[0] * launch.block[1] * launch.block[2];
    auto [it, added] = footprints.try_emplace(launch.function);
    if (added) order.push_back(launch.function);
    Footprint& f = it->second;
    f.blocks = std::max(f.blocks, blocks);
    f.threads = std::max(f.threads, threads);
    f.dynamic_shared = std::max(f.dynamic_shared, launch.shared_bytes);
  }
  std::vector<OccupancyRequest> requests;
  for (const std::string& function : order) {
    const Footprint& f = footprints[function];
    const KernelResources* r = Find(resources, function);
    if (r == nullptr || r->registers <= 0) continue;
    const int64_t shared = r->shared_bytes + f.dynamic_shared;
    const int64_t before = BlocksPerSm(sm, f.threads, r->registers, shared);
    if (before <= 0) continue;
    const int64_t waves = Waves(f.blocks, before, sm);
    if (waves <= 1 || waves > kMaxTunedWaves) continue;
    for (int64_t blocks = before + 1; blocks <= sm.max_blocks; ++blocks) {
      // Threads and shared memory must allow it: only registers may give way.
      if (BlocksPerSm(sm, f.threads, 0, shared) < blocks) break;
      const int64_t limit = RegistersForBlocks(sm, f.threads, blocks);
      if (limit < 32 || 3 * limit < 2 * r->registers) break;
      if (Waves(f.blocks, blocks, sm) >= waves) continue;
      OccupancyRequest request;
      request.function = function;
      request.grid_blocks = f.blocks;
      request.threads = f.threads;
      request.shared_bytes = shared;
      request.registers_before = r->registers;
      request.blocks_per_sm_before = before;
      request.waves_before = waves;
      request.blocks_per_sm = blocks;
      request.waves = Waves(f.blocks, blocks, sm);
      request.register_limit = limit;
      requests.push_back(std::move(request));
      break;
    }
  }
  return requests;
}

std::string WithMinBlocksPerSm(std::string_view ptx, const std::vector<OccupancyRequest>& requests) {
  std::string out(ptx);
  for (const OccupancyRequest& request : requests) {
    // ".entry <name>(" then, after the parameter list, the ".maxntid" line.
    const std::string entry = ".entry " + request.function + "(";
    size_t at = out.find(entry);
    if (at == std::string::npos) continue;
    const size_t body = out.find('{', at);
    const size_t maxntid = out.find("\n.maxntid", at);
    if (maxntid == std::string::npos || (body != std::string::npos && maxntid > body)) continue;
    const size_t line_end = out.find('\n', maxntid + 1);
    if (line_end == std::string::npos) continue;
    out.insert(line_end + 1, ".minnctapersm " + std::to_string(request.blocks_per_sm) + "\n");
  }
  return out;
}

std::string OccupancyVerdict::ToString() const {
  const OccupancyRequest& r = request;
  std::string s = r.function + ": " + std::to_string(r.blocks_per_sm) + " blocks an SM asked for (" +
                  std::to_string(r.grid_blocks) + " blocks of " + std::to_string(r.threads) + ", " +
                  std::to_string(r.blocks_per_sm_before) + " an SM with " + std::to_string(r.registers_before) +
                  " registers): ";
  if (kept) {
    return s + std::to_string(registers_after) + " registers, " + std::to_string(r.waves) + " wave" +
           (r.waves == 1 ? "" : "s") + " instead of " + std::to_string(r.waves_before);
  }
  if (local_bytes_after > local_bytes_before) {
    return s + "not kept: " + std::to_string(registers_after) + " registers and " +
           std::to_string(local_bytes_after) + " bytes of local memory a thread (spills; " +
           std::to_string(local_bytes_before) + " before)";
  }
  return s + "not kept: ptxas used " + std::to_string(registers_after) + " registers (at most " +
         std::to_string(r.register_limit) + " fit)";
}

std::vector<OccupancyVerdict> JudgeOccupancy(const std::vector<OccupancyRequest>& requests,
                                             const std::vector<KernelResources>& before,
                                             const std::vector<KernelResources>& after, const SmLimits& sm) {
  std::vector<OccupancyVerdict> verdicts;
  for (const OccupancyRequest& request : requests) {
    OccupancyVerdict v;
    v.request = request;
    const KernelResources* b = Find(before, request.function);
    const KernelResources* a = Find(after, request.function);
    if (b != nullptr) v.local_bytes_before = b->local_bytes;
    if (a != nullptr) {
      v.registers_after = a->registers;
      v.local_bytes_after = a->local_bytes;
      v.kept = b != nullptr && a->local_bytes <= b->local_bytes &&
               BlocksPerSm(sm, request.threads, a->registers, request.shared_bytes) >= request.blocks_per_sm;
    }
    verdicts.push_back(std::move(v));
  }
  return verdicts;
}

StatusOr<TunedPtx> TuneOccupancy(const std::string& ptx, const std::vector<GpuLaunch>& launches, const SmLimits& sm,
                                 const ResourceProbe& probe) {
  TunedPtx tuned;
  ASSIGN_OR_RETURN(std::vector<KernelResources> before, probe(ptx));
  std::vector<OccupancyRequest> requests = PlanOccupancy(launches, before, sm);
  tuned.ptx = ptx;
  if (requests.empty()) return tuned;
  const std::string asked = WithMinBlocksPerSm(ptx, requests);
  // A probe of the requests that fails (the JIT or ptxas refusing them) leaves the PTX as
  // it was, which loaded: a note, not an error.
  StatusOr<std::vector<KernelResources>> after = probe(asked);
  if (!after.ok()) {
    tuned.note = "occupancy requests for " + std::to_string(requests.size()) + " kernel(s) not made: " +
                 after.status().message();
    return tuned;
  }
  tuned.verdicts = JudgeOccupancy(requests, before, *after, sm);
  std::vector<OccupancyRequest> kept;
  for (const OccupancyVerdict& v : tuned.verdicts) {
    if (v.kept) kept.push_back(v.request);
  }
  if (kept.size() == requests.size()) {
    tuned.ptx = asked;
  } else if (!kept.empty()) {
    const std::string some = WithMinBlocksPerSm(ptx, kept);
    if (Status again = probe(some).status(); again.ok()) {
      tuned.ptx = some;
    } else {
      for (OccupancyVerdict& v : tuned.verdicts) v.kept = false;
      tuned.note = "occupancy requests not made: " + again.message();
    }
  }
  return tuned;
}

std::vector<GpuLaunch> AllLaunches(const GpuCode& code) {
  std::vector<GpuLaunch> launches;
  for (const GpuKernel* kernel : code.AllKernels()) {
    for (const GpuLaunch* launch : kernel->EveryLaunch()) launches.push_back(*launch);
  }
  return launches;
}

}  // namespace fusebox::codegen
