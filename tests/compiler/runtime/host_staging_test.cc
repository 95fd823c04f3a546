// The pinned staging pipeline (compiler/runtime/host_staging.h) against a fake device whose
// queued copies run only when an event after them is waited for (or at a synchronize),
// reading or writing the slot's bytes at that moment. A pipeline that writes into a slot
// before its previous copy ran, or reads a slot before its copy landed, moves the wrong
// bytes and these tests fail. No GPU needed; small slots keep every buffer under a few MiB.
#include "compiler/runtime/host_staging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fusebox {
namespace {

using runtime::HostStaging;
using runtime::StagingConfig;
using runtime::StagingPipeline;
using ::testing::HasSubstr;

constexpr uint64_t kDeviceBase = 0x10000;

class FakeQueue : public runtime::StagingQueue {
 public:
  explicit FakeQueue(int64_t device_bytes) : device_(static_cast<size_t>(device_bytes), 0xEE) {}
  ~FakeQueue() override { EXPECT_TRUE(slots_.empty()) << "a slot was never freed"; }

  StatusOr<void*> AllocateSlot(int slot, int64_t bytes) override {
    ++allocations_;
    if (slot == refuse_slot_) return Unavailable("cuMemHostAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)");
    // Garbage to start with: a chunk read from a slot before its copy landed shows.
    auto memory = std::make_unique<std::vector<uint8_t>>(static_cast<size_t>(bytes), 0xCD);
    void* host = memory->data();
    slots_[slot] = std::move(memory);
    return host;
  }

  void FreeSlot(int slot, void* host) override {
    for (const Op& op : queue_)
      EXPECT_NE(op.slot, slot) << "slot " << slot << " freed with a copy queued";
    ASSERT_EQ(slots_.count(slot), 1u);
    EXPECT_EQ(slots_[slot]->data(), host);
    slots_.erase(slot);
  }

  Status QueueToDevice(uint64_t dst, const void* src, int64_t bytes) override {
    if (fail_queue_) return Internal("cuMemcpyHtoDAsync_v2: CUDA_ERROR_INVALID_VALUE (1)");
    return Push(Op{true, dst, const_cast<void*>(src), bytes, SlotOf(src, bytes)});
  }
  Status QueueFromDevice(void* dst, uint64_t src, int64_t bytes) override {
    if (fail_queue_) return Internal("cuMemcpyDtoHAsync_v2: CUDA_ERROR_INVALID_VALUE (1)");
    return Push(Op{false, src, dst, bytes, SlotOf(dst, bytes)});
  }
  Status RecordSlot(int slot) override {
    events_[slot] = queued_;
    return Status::Ok();
  }
  Status WaitSlot(int slot) override {
    auto it = events_.find(slot);
    if (it == events_.end())
      return Internal("WaitSlot: slot " + std::to_string(slot) + " has no event");
    RunUntil(it->second);
    return Status::Ok();
  }
  // The legacy default stream's synchronous calls run after everything queued.
  Status CopyToDevice(uint64_t dst, const void* src, int64_t bytes) override {
    Synchronize();
    ++sync_copies_;
    std::memcpy(Device(dst, bytes), src, static_cast<size_t>(bytes));
    return Status::Ok();
  }
  Status CopyFromDevice(void* dst, uint64_t src, int64_t bytes) override {
    Synchronize();
    ++sync_copies_;
    std::memcpy(dst, Device(src, bytes), static_cast<size_t>(bytes));
    return Status::Ok();
  }

  // What a kernel launch or cuCtxSynchronize sees: everything queued has run.
  void Synchronize() { RunUntil(queued_); }
  std::vector<uint8_t>& device() { return device_; }

  int refuse_slot_ = -1;
  bool fail_queue_ = false;
  int allocations_ = 0;
  int64_t async_copies_ = 0;
  int64_t sync_copies_ = 0;
  size_t max_in_flight_ = 0;
  size_t live_slots() const { return slots_.size(); }

 private:
  struct Op {
    bool to_device;
    uint64_t device;
    void* host;
    int64_t bytes;
    int slot;
  };

  uint8_t* Device(uint64_t address, int64_t bytes) {
    EXPECT_GE(address, kDeviceBase);
    EXPECT_LE(address - kDeviceBase + static_cast<uint64_t>(bytes), device_.size());
    return device_.data() + (address - kDeviceBase);
  }

  // Async copies go only from and into pinned slots (never the caller's own memory).
  int SlotOf(const void* host, int64_t bytes) const {
    const auto* p = static_cast<const uint8_t*>(host);
    for (const auto& [slot, memory] : slots_) {
      if (p >= memory->data() && p + bytes <= memory->data() + memory->size()) return slot;
    }
    ADD_FAILURE() << "an async copy outside every pinned slot";
    return -1;
  }

  Status Push(Op op) {
    ++async_copies_;
    queue_.push_back(op);
    ++queued_;
    max_in_flight_ = std::max(max_in_flight_, queue_.size());
    return Status::Ok();
  }

  void RunUntil(int64_t sequence) {
    while (done_ < sequence && !queue_.empty()) {
      const Op op = queue_.front();
      queue_.pop_front();
      ++done_;
      if (op.to_device) {
        std::memcpy(Device(op.device, op.bytes), op.host, static_cast<size_t>(op.bytes));
      } else {
        std::memcpy(op.host, Device(op.device, op.bytes), static_cast<size_t>(op.bytes));
      }
    }
  }

  std::vector<uint8_t> device_;
  std::map<int, std::unique_ptr<std::vector<uint8_t>>> slots_;
  std::deque<Op> queue_;
  std::map<int, int64_t> events_;
  int64_t queued_ = 0;
  int64_t done_ = 0;
};

// Three 4 KiB slots from 1 KiB on: many chunks and several trips round the slots with
// buffers of tens of KiB.
StagingConfig SmallConfig() {
  StagingConfig config;
  config.slots = 3;
  config.slot_bytes = 4096;
  config.threshold_bytes = 1024;
  return config;
}

std::vector<uint8_t> Pattern(size_t bytes, uint32_t seed) {
  std::vector<uint8_t> out(bytes);
  uint32_t x = seed * 2654435761u + 1;
  for (uint8_t& b : out) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(x >> 24);
  }
  return out;
}

std::vector<int64_t> Sizes(const StagingConfig& c) {
  const int64_t chunk = c.slot_bytes;
  return {0,         1,         c.threshold_bytes - 1, c.threshold_bytes, chunk - 1,     chunk,
          chunk + 1, 2 * chunk, 3 * chunk + 7,         7 * chunk + 13,    10 * chunk + 1};
}

// Every size of Sizes() from host offsets 0, 1, 3 (unaligned) to device offsets 0, 5.
template <typename Fn>
void ForEachCopy(const StagingConfig& config, Fn fn) {
  for (int64_t bytes : Sizes(config)) {
    for (int64_t host_offset : {0, 1, 3}) {
      for (int64_t device_offset : {0, 5}) {
        SCOPED_TRACE("bytes " + std::to_string(bytes) + ", host offset " +
                     std::to_string(host_offset) + ", device offset " +
                     std::to_string(device_offset));
        fn(bytes, host_offset, device_offset);
      }
    }
  }
}

int64_t Chunks(int64_t bytes, const StagingConfig& c) {
  return (bytes + c.slot_bytes - 1) / c.slot_bytes;
}

TEST(HostStagingTest, UploadsEverySizeFromAnyAlignment) {
  const StagingConfig config = SmallConfig();
  ForEachCopy(config, [&](int64_t bytes, int64_t host_offset, int64_t device_offset) {
    FakeQueue fake(12 * config.slot_bytes);
    std::vector<uint8_t> before = fake.device();
    {
      StagingPipeline pipeline(&fake, config);
      std::vector<uint8_t> source = Pattern(static_cast<size_t>(bytes + host_offset), 7);
      ASSERT_TRUE(pipeline
                      .ToDevice(kDeviceBase + static_cast<uint64_t>(device_offset),
                                source.data() + host_offset, bytes)
                      .ok());
      const std::vector<uint8_t> expected(source.begin() + host_offset, source.end());
      // The caller's memory is free to reuse on return, before the device has the bytes.
      std::fill(source.begin(), source.end(), 0x00);
      fake.Synchronize();
      std::vector<uint8_t> want = before;
      std::copy(expected.begin(), expected.end(), want.begin() + device_offset);
      EXPECT_EQ(fake.device(), want);
      const bool staged = bytes >= config.threshold_bytes;
      EXPECT_EQ(fake.async_copies_, staged ? Chunks(bytes, config) : 0);
      EXPECT_EQ(fake.sync_copies_, !staged && bytes > 0 ? 1 : 0);
      // The next chunk is written while the one before is still queued.
      if (Chunks(bytes, config) >= 2 && staged) {
        EXPECT_GE(fake.max_in_flight_, 2u);
      }
    }
  });
}

TEST(HostStagingTest, DownloadsEverySizeToAnyAlignment) {
  const StagingConfig config = SmallConfig();
  ForEachCopy(config, [&](int64_t bytes, int64_t host_offset, int64_t device_offset) {
    FakeQueue fake(12 * config.slot_bytes);
    fake.device() = Pattern(fake.device().size(), 11);
    StagingPipeline pipeline(&fake, config);
    std::vector<uint8_t> dest(static_cast<size_t>(bytes + host_offset + 4), 0x5A);
    ASSERT_TRUE(pipeline
                    .FromDevice(dest.data() + host_offset,
                                kDeviceBase + static_cast<uint64_t>(device_offset), bytes)
                    .ok());
    // Filled on return, without a synchronize; nothing around it touched.
    std::vector<uint8_t> want(dest.size(), 0x5A);
    std::copy(fake.device().begin() + device_offset, fake.device().begin() + device_offset + bytes,
              want.begin() + host_offset);
    EXPECT_EQ(dest, want);
    const bool staged = bytes >= config.threshold_bytes;
    EXPECT_EQ(fake.async_copies_, staged ? Chunks(bytes, config) : 0);
    // Every slot has a chunk queued before the first is copied out.
    if (staged) {
      EXPECT_EQ(fake.max_in_flight_,
                static_cast<size_t>(std::min<int64_t>(Chunks(bytes, config), config.slots)));
    }
  });
}

// Copies one after another without a synchronize between them: a later copy finds its
// slots still holding an earlier copy's queued chunks.
TEST(HostStagingTest, BackToBackCopiesShareTheSlotsSafely) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(64 * config.slot_bytes);
  StagingPipeline pipeline(&fake, config);
  const std::vector<int64_t> sizes = {5 * config.slot_bytes + 3, 2000, 1 * config.slot_bytes,
                                      7 * config.slot_bytes + 999, 4 * config.slot_bytes};
  std::vector<std::vector<uint8_t>> sources;
  int64_t at = 0;
  std::vector<int64_t> offsets;
  for (size_t i = 0; i < sizes.size(); ++i) {
    sources.push_back(Pattern(static_cast<size_t>(sizes[i]), static_cast<uint32_t>(100 + i)));
    offsets.push_back(at);
    ASSERT_TRUE(
        pipeline.ToDevice(kDeviceBase + static_cast<uint64_t>(at), sources[i].data(), sizes[i])
            .ok());
    at += sizes[i] + 17;
  }
  // Downloads queue behind the uploads, as on one stream.
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<uint8_t> back(static_cast<size_t>(sizes[i]), 0);
    ASSERT_TRUE(
        pipeline.FromDevice(back.data(), kDeviceBase + static_cast<uint64_t>(offsets[i]), sizes[i])
            .ok());
    EXPECT_EQ(back, sources[i]) << "copy " << i;
  }
}

TEST(HostStagingTest, SlotsAreAllocatedOnTheFirstLargeCopyOnly) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(4 * config.slot_bytes);
  StagingPipeline pipeline(&fake, config);
  std::vector<uint8_t> data = Pattern(static_cast<size_t>(2 * config.slot_bytes), 3);
  EXPECT_EQ(fake.allocations_, 0);
  ASSERT_TRUE(pipeline.ToDevice(kDeviceBase, data.data(), 8).ok());
  EXPECT_FALSE(pipeline.has_slots());
  EXPECT_EQ(fake.allocations_, 0);
  ASSERT_TRUE(pipeline.ToDevice(kDeviceBase, data.data(), 2 * config.slot_bytes).ok());
  EXPECT_TRUE(pipeline.has_slots());
  ASSERT_TRUE(pipeline.FromDevice(data.data(), kDeviceBase, 2 * config.slot_bytes).ok());
  EXPECT_EQ(fake.allocations_, config.slots);
  EXPECT_EQ(fake.live_slots(), static_cast<size_t>(config.slots));
  EXPECT_TRUE(pipeline.note().empty());
}

TEST(HostStagingTest, FallsBackToPageableWhenPinnedMemoryIsRefused) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(8 * config.slot_bytes);
  fake.refuse_slot_ = 1;  // the first slot is given, the second refused
  StagingPipeline pipeline(&fake, config);
  std::vector<uint8_t> source = Pattern(static_cast<size_t>(3 * config.slot_bytes + 5), 21);
  ASSERT_TRUE(
      pipeline.ToDevice(kDeviceBase, source.data(), static_cast<int64_t>(source.size())).ok());
  EXPECT_FALSE(pipeline.has_slots());
  EXPECT_EQ(fake.live_slots(), 0u);  // the one given back
  EXPECT_THAT(pipeline.note(),
              HasSubstr("pinned host staging unavailable (cuMemHostAlloc: "
                        "CUDA_ERROR_OUT_OF_MEMORY (2)); copies go through pageable memory"));
  std::vector<uint8_t> back(source.size(), 0);
  ASSERT_TRUE(
      pipeline.FromDevice(back.data(), kDeviceBase, static_cast<int64_t>(back.size())).ok());
  EXPECT_EQ(back, source);
  EXPECT_EQ(fake.async_copies_, 0);
  EXPECT_EQ(fake.sync_copies_, 2);
  EXPECT_EQ(fake.allocations_, 2);  // not asked again
}

TEST(HostStagingTest, PageableModeUsesTheSynchronousCalls) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(8 * config.slot_bytes);
  StagingPipeline pipeline(&fake, config);
  pipeline.set_mode(HostStaging::kPageable);
  std::vector<uint8_t> source = Pattern(static_cast<size_t>(3 * config.slot_bytes), 5);
  const int64_t bytes = static_cast<int64_t>(source.size());
  ASSERT_TRUE(pipeline.ToDevice(kDeviceBase, source.data(), bytes).ok());
  EXPECT_EQ(fake.allocations_, 0);
  EXPECT_EQ(fake.sync_copies_, 1);
  pipeline.set_mode(HostStaging::kPinned);
  std::vector<uint8_t> back(source.size(), 0);
  ASSERT_TRUE(pipeline.FromDevice(back.data(), kDeviceBase, bytes).ok());
  EXPECT_EQ(back, source);
  EXPECT_EQ(fake.async_copies_, 3);
}

// The real sizes: four 4 MiB slots from 256 KiB on.
TEST(HostStagingTest, DefaultSlotsRoundTripAFewMiB) {
  const StagingConfig config;
  EXPECT_EQ(config.slot_bytes, 4 << 20);
  EXPECT_EQ(config.threshold_bytes, 256 << 10);
  const int64_t big = 2 * config.slot_bytes + 12345;
  FakeQueue fake(big + 64);
  StagingPipeline pipeline(&fake, config);
  for (int64_t bytes : {config.threshold_bytes - 1, config.threshold_bytes, big}) {
    SCOPED_TRACE("bytes " + std::to_string(bytes));
    std::vector<uint8_t> source = Pattern(static_cast<size_t>(bytes), static_cast<uint32_t>(bytes));
    ASSERT_TRUE(pipeline.ToDevice(kDeviceBase + 3, source.data(), bytes).ok());
    std::vector<uint8_t> back(static_cast<size_t>(bytes), 0);
    ASSERT_TRUE(pipeline.FromDevice(back.data(), kDeviceBase + 3, bytes).ok());
    EXPECT_TRUE(back == source);
  }
  EXPECT_EQ(fake.sync_copies_, 2);  // the copies below the threshold
  EXPECT_EQ(fake.async_copies_, 2 * (1 + 3));
}

TEST(HostStagingTest, DestroyingWaitsForQueuedCopiesBeforeFreeingSlots) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(8 * config.slot_bytes);
  std::vector<uint8_t> source = Pattern(static_cast<size_t>(5 * config.slot_bytes), 9);
  {
    StagingPipeline pipeline(&fake, config);
    ASSERT_TRUE(
        pipeline.ToDevice(kDeviceBase, source.data(), static_cast<int64_t>(source.size())).ok());
  }  // FreeSlot fails the test if a slot still has a copy queued
  EXPECT_TRUE(std::equal(source.begin(), source.end(), fake.device().begin()));
}

TEST(HostStagingTest, DriverErrorsComeBackNamed) {
  const StagingConfig config = SmallConfig();
  FakeQueue fake(8 * config.slot_bytes);
  StagingPipeline pipeline(&fake, config);
  fake.fail_queue_ = true;
  std::vector<uint8_t> data(static_cast<size_t>(2 * config.slot_bytes), 1);
  Status up = pipeline.ToDevice(kDeviceBase, data.data(), static_cast<int64_t>(data.size()));
  EXPECT_THAT(up.message(), HasSubstr("cuMemcpyHtoDAsync_v2"));
  Status down = pipeline.FromDevice(data.data(), kDeviceBase, static_cast<int64_t>(data.size()));
  EXPECT_THAT(down.message(), HasSubstr("cuMemcpyDtoHAsync_v2"));
}

TEST(HostStagingTest, ParsesTheFlagValues) {
  HostStaging mode = HostStaging::kPinned;
  EXPECT_TRUE(runtime::ParseHostStaging("pageable", &mode));
  EXPECT_EQ(mode, HostStaging::kPageable);
  EXPECT_STREQ(runtime::HostStagingName(mode), "pageable");
  EXPECT_TRUE(runtime::ParseHostStaging("pinned", &mode));
  EXPECT_EQ(mode, HostStaging::kPinned);
  EXPECT_FALSE(runtime::ParseHostStaging("Pinned", &mode));
  EXPECT_EQ(mode, HostStaging::kPinned);
}

}  // namespace
}  // namespace fusebox
