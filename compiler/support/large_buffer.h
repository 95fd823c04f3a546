// Memory for big arrays (literals, executable temporaries): allocations of 2 MiB or more
// are aligned to 2 MiB and, on Linux, marked for transparent huge pages. With 4 KiB pages
// a kernel streaming through GiB-sized inputs spends a measurable part of its time on TLB
// misses (about 25% of read bandwidth on the development machines, see
// docs/cpu-backend.md); huge pages remove most of them. Smaller allocations are plain
// aligned allocations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

namespace fusebox {

// At least `alignment` (a power of two) aligned; nullptr when out of memory. Zeroed
// memory is not promised. Release with FreeLargeBuffer.
void* AllocateLargeBuffer(size_t bytes, size_t alignment = 64);

// Whether large allocations get the huge-page advice (default on; off when the
// environment has FUSEBOX_HUGE_PAGES=0, as scripts/test.sh runs the tests). Off makes
// them ordinary memory, as another runtime's allocator gives (bench/compare_xla's fair
// mode).
void SetLargeBufferHugePages(bool enabled);
bool LargeBufferHugePages();
// Freed blocks of 2 MiB or more (up to an eighth of the machine's memory, 512 MiB to
// 4 GiB, in all) are kept and handed out again for
// the same size and alignment: a caller allocating per call gets faulted-in pages back.
void FreeLargeBuffer(void* p);
// Bytes of freed blocks held for reuse (for tests and diagnostics).
size_t LargeBufferCachedBytes();

struct LargeBufferFree {
  void operator()(void* p) const { FreeLargeBuffer(p); }
};
using LargeBufferPtr = std::unique_ptr<uint8_t, LargeBufferFree>;

// A std::allocator replacement for containers of trivially copyable elements.
template <typename T>
struct LargeBufferAllocator {
  using value_type = T;
  LargeBufferAllocator() = default;
  template <typename U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) noexcept {}  // NOLINT: allocator rebind
  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    void* p = AllocateLargeBuffer(n * sizeof(T), alignof(T) > 64 ? alignof(T) : 64);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) noexcept { FreeLargeBuffer(p); }
  // Default-initialization where std::allocator value-initializes: resize() leaves the
  // new elements' bytes as they are (assign(n, 0) still zeroes them).
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <typename U>
  bool operator==(const LargeBufferAllocator<U>&) const noexcept { return true; }
};

}  // namespace fusebox
