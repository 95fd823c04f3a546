#include "compiler/support/large_buffer.h"

#include <algorithm>
#include <atomic>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace fusebox {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

// Freed blocks of 2 MiB or more are kept (up to CacheBytes() in all) and handed out again
// for the same size and alignment: a program run in a loop that allocates its
// temporaries and output per call (bench/compare_xla's fair mode, as XLA's client does)
// gets already-faulted pages back, where glibc maps every block above 32 MiB anew and
// returns large freed heap tops to the kernel (multi-head attention at 512x512: 42 MiB
// of temporaries, 51 ms a call, 25 ms with its pages kept). XLA's CPU client reuses
// freed buffers the same way. Sanitized builds keep no cache (it would hide a use after
// free from AddressSanitizer).
namespace {

// An eighth of the machine's memory, from 512 MiB to 4 GiB: enough to keep a 1 GiB
// temporary of an interpreted 16384^2 program for the next instruction (the kernel zeroes
// every page a process touches first, about 1 s a GiB on a virtual machine; the running
// example's interpreter run spent 18 of its 23 s there), without holding much of a small
// machine's memory.
size_t CacheBytes() {
  static const size_t bytes = [] {
    size_t physical = 0;
#if defined(__linux__)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page > 0) physical = static_cast<size_t>(pages) * static_cast<size_t>(page);
#endif
    return std::clamp(physical / 8, size_t{512} << 20, size_t{4} << 30);
  }();
  return bytes;
}

struct BlockCache {
  std::mutex mu;
  std::unordered_map<void*, std::pair<size_t, size_t>> live;     // block -> (bytes, alignment)
  std::multimap<std::pair<size_t, size_t>, void*> free_blocks;  // (bytes, alignment) -> block
  size_t free_bytes = 0;
};

BlockCache& Cache() {
  static BlockCache* cache = new BlockCache;  // never destroyed: frees may come at exit
  return *cache;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kCacheBlocks = false;
#else
constexpr bool kCacheBlocks = true;
#endif

}  // namespace

void* AllocateLargeBuffer(size_t bytes, size_t alignment) {
  if (bytes == 0) bytes = 1;
  if (bytes >= kHugePage && alignment < kHugePage) alignment = kHugePage;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes) return nullptr;
  const bool cached = kCacheBlocks && rounded >= kHugePage;
  if (cached) {
    BlockCache& cache = Cache();
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.free_blocks.find({rounded, alignment});
    if (it != cache.free_blocks.end()) {
      void* p = it->second;
      cache.free_blocks.erase(it);
      cache.free_bytes -= rounded;
      cache.live[p] = {rounded, alignment};
      return p;
    }
  }
  void* p = std::aligned_alloc(alignment, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where transparent huge pages are off, the kernel ignores it.
  if (p != nullptr && rounded >= kHugePage && LargeBufferHugePages()) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  if (p != nullptr && cached) {
    BlockCache& cache = Cache();
    std::lock_guard<std::mutex> lock(cache.mu);
    cache.live[p] = {rounded, alignment};
  }
  return p;
}

void FreeLargeBuffer(void* p) {
  if (p == nullptr) return;
  if (kCacheBlocks) {
    BlockCache& cache = Cache();
    std::lock_guard<std::mutex> lock(cache.mu);
    auto it = cache.live.find(p);
    if (it != cache.live.end()) {
      const std::pair<size_t, size_t> key = it->second;
      cache.live.erase(it);
      if (cache.free_bytes + key.first <= CacheBytes()) {
        cache.free_blocks.emplace(key, p);
        cache.free_bytes += key.first;
        return;
      }
    }
  }
  std::free(p);
}

size_t LargeBufferCachedBytes() {
  BlockCache& cache = Cache();
  std::lock_guard<std::mutex> lock(cache.mu);
  return cache.free_bytes;
}

namespace {
// FUSEBOX_HUGE_PAGES=0 turns the advice off from the start. Whether it pays depends on the
// machine (docs/cpu-backend.md, "Memory"): on the 2-core Zen 3 KVM guests of 2026-11-29 a
// first touch of advised memory cost twice the kernel time and streaming reads were no
// faster, where the older hosts read 25% faster through huge pages.
bool DefaultHugePages() {
  const char* env = std::getenv("FUSEBOX_HUGE_PAGES");
  return env == nullptr || std::string_view(env) != "0";
}
std::atomic<bool> huge_pages{DefaultHugePages()};
}  // namespace

void SetLargeBufferHugePages(bool enabled) { huge_pages.store(enabled, std::memory_order_relaxed); }
bool LargeBufferHugePages() { return huge_pages.load(std::memory_order_relaxed); }

}  // namespace fusebox
