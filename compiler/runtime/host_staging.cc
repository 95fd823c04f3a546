// The staging pipeline of host_staging.h: chunks of a copy go round the pinned slots, each
// slot reused only after the copy queued from or into it has been waited for.
#include "compiler/runtime/host_staging.h"

#include <algorithm>
#include <cstring>

namespace fusebox::runtime {

const char* HostStagingName(HostStaging staging) {
  return staging == HostStaging::kPinned ? "pinned" : "pageable";
}

bool ParseHostStaging(const std::string& text, HostStaging* out) {
  if (text == "pinned") {
    *out = HostStaging::kPinned;
    return true;
  }
  if (text == "pageable") {
    *out = HostStaging::kPageable;
    return true;
  }
  return false;
}

StagingPipeline::StagingPipeline(StagingQueue* queue, StagingConfig config)
    : queue_(queue), config_(config) {
  config_.slots = std::max(config_.slots, 1);
  config_.slot_bytes = std::max<int64_t>(config_.slot_bytes, 1);
  config_.threshold_bytes = std::max<int64_t>(config_.threshold_bytes, 1);
}

StagingPipeline::~StagingPipeline() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    // A failed wait (a faulted context) still frees: the driver refuses nothing more.
    if (slots_[i].pending) (void)queue_->WaitSlot(static_cast<int>(i));
    queue_->FreeSlot(static_cast<int>(i), slots_[i].host);
  }
}

bool StagingPipeline::EnsureSlots() {
  if (!slots_.empty()) return true;
  if (refused_) return false;
  std::vector<Slot> slots(static_cast<size_t>(config_.slots));
  for (int i = 0; i < config_.slots; ++i) {
    StatusOr<void*> host = queue_->AllocateSlot(i, config_.slot_bytes);
    if (!host.ok() || *host == nullptr) {
      for (int j = 0; j < i; ++j) queue_->FreeSlot(j, slots[static_cast<size_t>(j)].host);
      refused_ = true;
      note_ = "pinned host staging unavailable (" +
              (host.ok() ? std::string("no memory returned") : host.status().message()) +
              "); copies go through pageable memory";
      return false;
    }
    slots[static_cast<size_t>(i)].host = *host;
  }
  slots_ = std::move(slots);
  return true;
}

bool StagingPipeline::Staged(int64_t bytes) {
  return mode_ == HostStaging::kPinned && bytes >= config_.threshold_bytes && EnsureSlots();
}

Status StagingPipeline::Drain(int i) {
  Slot& slot = slots_[static_cast<size_t>(i)];
  if (!slot.pending) return Status::Ok();
  RETURN_IF_ERROR(queue_->WaitSlot(i));
  slot.pending = false;
  return Status::Ok();
}

Status StagingPipeline::ToDevice(uint64_t dst, const void* src, int64_t bytes) {
  if (bytes <= 0) return Status::Ok();
  if (!Staged(bytes)) return queue_->CopyToDevice(dst, src, bytes);
  const auto* from = static_cast<const uint8_t*>(src);
  const int slots = config_.slots;
  for (int64_t offset = 0; offset < bytes; offset += config_.slot_bytes) {
    const int64_t n = std::min(config_.slot_bytes, bytes - offset);
    const int i = next_slot_;
    next_slot_ = (next_slot_ + 1) % slots;
    // The slot's previous copy must have read it before the CPU overwrites it; the other
    // slots' DMAs go on meanwhile.
    RETURN_IF_ERROR(Drain(i));
    Slot& slot = slots_[static_cast<size_t>(i)];
    std::memcpy(slot.host, from + offset, static_cast<size_t>(n));
    RETURN_IF_ERROR(queue_->QueueToDevice(dst + static_cast<uint64_t>(offset), slot.host, n));
    slot.pending = true;
    RETURN_IF_ERROR(queue_->RecordSlot(i));
  }
  // The last chunks may still be in flight: whatever the stream runs next comes after them,
  // and the next host write into their slots waits for them.
  return Status::Ok();
}

Status StagingPipeline::FromDevice(void* dst, uint64_t src, int64_t bytes) {
  if (bytes <= 0) return Status::Ok();
  if (!Staged(bytes)) return queue_->CopyFromDevice(dst, src, bytes);
  auto* to = static_cast<uint8_t*>(dst);
  const int slots = config_.slots;
  const int64_t chunks = (bytes + config_.slot_bytes - 1) / config_.slot_bytes;
  const int first = next_slot_;
  next_slot_ = static_cast<int>((first + chunks) % slots);
  auto slot_of = [&](int64_t chunk) { return static_cast<int>((first + chunk) % slots); };
  auto chunk_bytes = [&](int64_t chunk) {
    return std::min(config_.slot_bytes, bytes - chunk * config_.slot_bytes);
  };
  auto queue_chunk = [&](int64_t chunk) -> Status {
    const int i = slot_of(chunk);
    RETURN_IF_ERROR(Drain(i));
    Slot& slot = slots_[static_cast<size_t>(i)];
    RETURN_IF_ERROR(queue_->QueueFromDevice(
        slot.host, src + static_cast<uint64_t>(chunk * config_.slot_bytes), chunk_bytes(chunk)));
    slot.pending = true;
    return queue_->RecordSlot(i);
  };
  // Every slot gets a chunk in flight; as each lands it is copied out and its slot takes
  // the chunk `slots` further on, so the DMA engine always has the next ones queued.
  for (int64_t c = 0; c < std::min<int64_t>(chunks, slots); ++c) RETURN_IF_ERROR(queue_chunk(c));
  for (int64_t c = 0; c < chunks; ++c) {
    const int i = slot_of(c);
    RETURN_IF_ERROR(Drain(i));
    std::memcpy(to + c * config_.slot_bytes, slots_[static_cast<size_t>(i)].host,
                static_cast<size_t>(chunk_bytes(c)));
    if (c + slots < chunks) RETURN_IF_ERROR(queue_chunk(c + slots));
  }
  return Status::Ok();
}

}  // namespace fusebox::runtime
