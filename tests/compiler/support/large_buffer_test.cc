// Large buffers: alignment, and the cache of freed blocks of 2 MiB or more that a program
// allocating its temporaries per call gets back (compiler/support/large_buffer.h).
#include "compiler/support/large_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace fusebox {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST(LargeBufferTest, AlignedAndWritable) {
  for (size_t bytes : {size_t{1}, size_t{100}, size_t{3} << 20}) {
    void* p = AllocateLargeBuffer(bytes, 64);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (bytes >= (size_t{2} << 20) ? (size_t{2} << 20) : 64), 0u);
    std::memset(p, 0x5a, bytes);
    FreeLargeBuffer(p);
  }
  FreeLargeBuffer(nullptr);
}

// A freed large block comes back for the next allocation of its size (its pages are
// already faulted in), never for another size, and never while it is in use.
TEST(LargeBufferTest, FreedLargeBlocksAreReusedForTheSameSize) {
  if (kSanitized) GTEST_SKIP() << "sanitized builds keep no cache";
  const size_t bytes = (size_t{6} << 20) + 12345;
  void* a = AllocateLargeBuffer(bytes, 64);
  void* b = AllocateLargeBuffer(bytes, 64);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  const size_t cached = LargeBufferCachedBytes();
  FreeLargeBuffer(a);
  EXPECT_EQ(LargeBufferCachedBytes(), cached + (size_t{8} << 20));  // rounded to 2 MiB
  void* other = AllocateLargeBuffer(size_t{10} << 20, 64);
  EXPECT_NE(other, a);
  void* again = AllocateLargeBuffer(bytes, 64);
  EXPECT_EQ(again, a);
  EXPECT_EQ(LargeBufferCachedBytes(), cached);
  FreeLargeBuffer(again);
  FreeLargeBuffer(b);
  FreeLargeBuffer(other);
  // Small blocks are plain allocations, not cached.
  void* small = AllocateLargeBuffer(4096, 64);
  ASSERT_NE(small, nullptr);
  FreeLargeBuffer(small);
}

}  // namespace
}  // namespace fusebox
