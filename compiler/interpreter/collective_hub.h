// The meeting point of the devices of one multi-device run. Each device runs its copy of
// the per-device program on its own thread (interpreter or CPU backend); when it reaches
// a collective it hands its operands to the hub and waits until every device of its
// group has arrived; then each gets its result, computed here with XLA's semantics:
//
//   all-reduce          the group's operands reduced elementwise, in group order, with the
//                       instruction's own computation (add, max, ... done in the element
//                       type, one step at a time, as a device would)
//   all-gather          the operands concatenated along `dimensions` in group order
//   reduce-scatter      the reduction, then this device's block along `dimensions`
//   all-to-all          array form: block j of each operand goes to member j, received
//                       blocks concatenated along `dimensions`; tuple form: operand j to
//                       member j
//   collective-permute  the operand of the device whose pair targets this one; zeros when
//                       none does
//   collective-broadcast the first member's operand
//
// Instances of an instruction are matched by their occurrence count on each device (a
// collective inside a loop meets its own iteration on the other devices). A device that
// fails or finishes wakes the others: a collective that can no longer complete is an
// error naming the instruction and the devices that did not come, never a hang.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::interpreter {

// One collective as one device saw it, for the profile.
struct CollectiveEvent {
  int64_t device = 0;
  std::string instruction;   // name
  std::string kind;          // opcode name
  std::string groups;        // replica groups / source-target pairs as written
  std::vector<int64_t> group;  // the devices this device exchanged with (global ids)
  int64_t bytes_sent = 0;      // this device's operand bytes
  int64_t bytes_received = 0;  // result bytes that came from other devices
  int64_t start_ns = 0;        // arrival at the hub (steady clock, absolute ns, as NowNs)
  int64_t end_ns = 0;          // result handed back
  int64_t occurrence = 0;      // which instance of the instruction on this device
};

class CollectiveHub {
 public:
  explicit CollectiveHub(int64_t devices);
  int64_t devices() const { return devices_; }

  // Performs `inst` (a cross-device collective, or its -start form) for `device`, whose
  // operands are `operands`; blocks until the device's group has met. Returns the value
  // the instruction produces on this device (for a -start form: the collective's result,
  // the caller builds the start tuple).
  StatusOr<Literal> Exchange(const Instruction& inst, int64_t device,
                             const std::vector<const Literal*>& operands);

  // The device stopped (finished, or failed with `status`): devices waiting for it to
  // reach a collective get an error instead of waiting forever.
  void DeviceStopped(int64_t device, const Status& status);

  std::vector<CollectiveEvent> events() const;
  int64_t NowNs() const;  // steady clock, absolute (the runtime's NowNs)

 private:
  struct Round {
    std::vector<int64_t> group;                // members, in group order
    std::map<int64_t, std::vector<Literal>> in;  // operands by member
    std::map<int64_t, Literal> out;            // results by member, once complete
    bool complete = false;
    Status error;
    int64_t taken = 0;
  };
  StatusOr<std::vector<int64_t>> GroupOf(const Instruction& inst, int64_t device, bool* permute) const;
  Status Compute(const Instruction& inst, Round& round, bool permute);
  void CheckDeadlockLocked();

  const int64_t devices_;
  const int64_t start_ns_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Key: "<computation>/<instruction>#<occurrence>", plus the group's first member.
  std::map<std::string, Round> rounds_;
  std::vector<std::map<std::string, int64_t>> occurrences_;  // per device
  std::vector<int> state_;  // per device: 0 running, 1 waiting, 2 stopped
  std::vector<std::string> waiting_at_;
  std::vector<Status> stopped_status_;
  std::vector<CollectiveEvent> events_;
};

// Row-major helpers on dense literals, shared with the multi-device runner.
// The block [start, start+size) of `literal` along `dim`.
Literal SliceAlong(const Literal& literal, int64_t dim, int64_t start, int64_t size);
// `parts` (same shape except along `dim`) concatenated along `dim`.
Literal ConcatAlong(const std::vector<const Literal*>& parts, int64_t dim);

}  // namespace fusebox::interpreter
