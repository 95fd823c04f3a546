#include "compiler/support/large_buffer.h"

#include <atomic>

#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fusebox {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void* AllocateLargeBuffer(size_t bytes, size_t alignment) {
  if (bytes == 0) bytes = 1;
  if (bytes >= kHugePage && alignment < kHugePage) alignment = kHugePage;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded < bytes) return nullptr;
  void* p = std::aligned_alloc(alignment, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Advice only: where transparent huge pages are off, the kernel ignores it.
  if (p != nullptr && rounded >= kHugePage && LargeBufferHugePages()) madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

void FreeLargeBuffer(void* p) { std::free(p); }

namespace {
std::atomic<bool> huge_pages{true};
}  // namespace

void SetLargeBufferHugePages(bool enabled) { huge_pages.store(enabled, std::memory_order_relaxed); }
bool LargeBufferHugePages() { return huge_pages.load(std::memory_order_relaxed); }

}  // namespace fusebox
