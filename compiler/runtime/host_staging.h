// Host<->device copies through a few page-locked (pinned) staging slots, so that the CPU's
// memcpy of one chunk overlaps the DMA of the next. The pipeline is written against a small
// queue interface (allocate a slot, queue a copy from/to a slot, record/wait a slot's
// event): cuda_driver.cc implements it with the driver, host_staging_test.cc with a fake
// that performs a queued copy only when it is waited for. It does not pin the caller's own
// buffers, and it does not make a copy asynchronous for the caller: every call returns
// with the host side done (an upload's last chunks may still be in flight, in stream
// order before whatever is queued next). See docs/gpu-runtime.md "Host copies".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/support/status.h"

namespace fusebox::runtime {

// How host<->device copies of a context go: through pinned staging slots (the default),
// or straight from/to the caller's pageable memory with the driver's synchronous calls.
enum class HostStaging { kPinned, kPageable };

// "pinned" / "pageable", and back (false for anything else).
const char* HostStagingName(HostStaging staging);
bool ParseHostStaging(const std::string& text, HostStaging* out);

// What the pipeline needs from a device. Copies and events of one queue run in the order
// they are queued (one stream). Slot indices are 0 .. slots-1.
class StagingQueue {
 public:
  virtual ~StagingQueue() = default;
  // Page-locked host memory of `bytes` for slot `slot`, and its event. An error makes the
  // pipeline fall back to the pageable calls for good.
  virtual StatusOr<void*> AllocateSlot(int slot, int64_t bytes) = 0;
  // Frees what AllocateSlot gave (nothing of the slot's may be queued any more).
  virtual void FreeSlot(int slot, void* host) = 0;
  // Queues a copy from the pinned `src` to the device, or from the device into the pinned
  // `dst`; the bytes are read or written when the queue gets to it, not before.
  virtual Status QueueToDevice(uint64_t dst, const void* src, int64_t bytes) = 0;
  virtual Status QueueFromDevice(void* dst, uint64_t src, int64_t bytes) = 0;
  // Marks everything queued so far as slot `slot`'s event; WaitSlot blocks until then.
  virtual Status RecordSlot(int slot) = 0;
  virtual Status WaitSlot(int slot) = 0;
  // The synchronous pageable calls (ordered after everything queued before them).
  virtual Status CopyToDevice(uint64_t dst, const void* src, int64_t bytes) = 0;
  virtual Status CopyFromDevice(void* dst, uint64_t src, int64_t bytes) = 0;
};

struct StagingConfig {
  // Four 4 MiB slots (16 MiB pinned per context): a chunk's DMA (~0.1-0.2 ms at PCIe 4/5
  // pinned rates) is long against the ~10 us of driver calls per chunk, and three chunks
  // can be in flight while the CPU fills or drains the fourth.
  int slots = 4;
  int64_t slot_bytes = int64_t{4} << 20;
  // Copies below this keep the one synchronous call: predicates, scalars and small
  // arguments. At 256 KiB a pageable copy takes ~30-50 us, mostly the call's fixed
  // latency, which a single staged chunk pays too (memcpy + queue + event wait) with
  // nothing to overlap it with; the driver also handles small pageable copies itself.
  int64_t threshold_bytes = int64_t{256} << 10;
};

class StagingPipeline {
 public:
  // `queue` must outlive the pipeline.
  explicit StagingPipeline(StagingQueue* queue, StagingConfig config = {});
  ~StagingPipeline();  // waits for the slots' copies, then frees them
  StagingPipeline(const StagingPipeline&) = delete;
  StagingPipeline& operator=(const StagingPipeline&) = delete;

  void set_mode(HostStaging mode) { mode_ = mode; }
  HostStaging mode() const { return mode_; }
  const StagingConfig& config() const { return config_; }

  // Copies `bytes` (<= 0: nothing). Pinned mode and at least threshold_bytes: through the
  // slots (allocated on the first such copy); otherwise the synchronous call. Returns with
  // `src` no longer needed (upload) or `dst` filled (download).
  Status ToDevice(uint64_t dst, const void* src, int64_t bytes);
  Status FromDevice(void* dst, uint64_t src, int64_t bytes);

  // Whether the slots are allocated; why they could not be (empty when they could, or
  // before the first large copy): "pinned host staging unavailable (...); copies go
  // through pageable memory".
  bool has_slots() const { return !slots_.empty(); }
  const std::string& note() const { return note_; }

 private:
  struct Slot {
    void* host = nullptr;
    bool pending = false;  // a queued copy reads or writes `host` until WaitSlot
  };
  // Allocates the slots once; false (and note_ set) when pinned memory is refused.
  bool EnsureSlots();
  bool Staged(int64_t bytes);
  // Before the host touches slot `i`.
  Status Drain(int i);

  StagingQueue* queue_;
  StagingConfig config_;
  HostStaging mode_ = HostStaging::kPinned;
  std::vector<Slot> slots_;
  int next_slot_ = 0;  // copies go round the slots, the least recently used first
  bool refused_ = false;
  std::string note_;
};

}  // namespace fusebox::runtime
