#include "compiler/support/large_buffer.h"

#include <atomic>

#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fusebox {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

// Freed blocks of 2 MiB or more are kept (up to kCacheBytes in all) and handed out again
// for the same size and alignment: a program run in a loop that allocates its
// temporaries and output per call (bench/compare_xla's fair mode, as XLA's client does)
// gets already-faulted pages back, where glibc maps every block above 32 MiB anew and
// returns large freed heap tops to the kernel (multi-head attention at 512x512: 42 MiB
// of temporaries, 51 ms a call, 25 ms with its pages kept). XLA's CPU client reuses
// freed buffers the same way. Sanitized builds keep no cache (it would hide a use after
// free from AddressSanitizer).
namespace {

constexpr size_t kCacheBytes = size_t{512} << 20;

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
      if (cache.free_bytes + key.first <= kCacheBytes) {
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
std::atomic<bool> huge_pages{true};
}  // namespace

void SetLargeBufferHugePages(bool enabled) { huge_pages.store(enabled, std::memory_order_relaxed); }
bool LargeBufferHugePages() { return huge_pages.load(std::memory_order_relaxed); }

}  // namespace fusebox
