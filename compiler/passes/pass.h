// The pass interface. A pass is one class with a short kebab-case name (used in dumps,
// the UI and --disable-pass) and Run(module) -> changed. Passes record what they decided
// (fusion decisions with reasons) in the PassContext.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox::passes {

// One producer -> consumer edge a fusion pass looked at, and what it decided.
struct FusionDecision {
  std::string pass;         // the pass that decided ("loop-fusion", ...)
  std::string computation;  // where the edge is
  std::string producer;     // instruction names as they were when decided
  std::string consumer;
  bool fused = false;
  std::string reason;       // why (not) fused, in words a user understands
  std::string fusion;       // the fusion instruction it ended up in, when fused
};

// One collective an SPMD pass inserted (or one instruction it computed whole on every
// device: kind "replicated-fallback"), and why.
struct CollectiveDecision {
  std::string pass;             // "spmd-partitioner"
  std::string computation;      // where the collective is
  std::string collective;       // name of the inserted instruction
  std::string kind;             // opcode name: "all-reduce", "all-gather", ...
  std::string for_instruction;  // the instruction it serves
  std::string operand;          // the value it moves
  std::string groups;           // replica_groups / source_target_pairs text
  int64_t bytes_per_device = 0;  // the collective's result bytes on one device
  std::string reason;           // in words a user understands
};

// A readable table of `decisions`, one line per collective (explain --collectives).
std::string FormatCollectiveDecisions(const std::vector<CollectiveDecision>& decisions);

class PassContext {
 public:
  void RecordDecision(FusionDecision decision) { decisions_.push_back(std::move(decision)); }
  const std::vector<FusionDecision>& decisions() const { return decisions_; }
  // Decisions whose producer or consumer is `instruction`.
  std::vector<FusionDecision> DecisionsFor(const std::string& instruction) const;

  void RecordCollective(CollectiveDecision decision) { collectives_.push_back(std::move(decision)); }
  const std::vector<CollectiveDecision>& collectives() const { return collectives_; }
  // Forgets the decisions about `collective` in `computation` (an inserted instruction
  // that turned out dead and was removed).
  void ForgetCollective(const std::string& computation, const std::string& collective) {
    std::erase_if(collectives_, [&](const CollectiveDecision& d) {
      return d.computation == computation && d.collective == collective;
    });
  }

 private:
  std::vector<FusionDecision> decisions_;
  std::vector<CollectiveDecision> collectives_;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  // Returns whether the module changed.
  virtual StatusOr<bool> Run(Module& module, PassContext& context) = 0;
};

}  // namespace fusebox::passes
