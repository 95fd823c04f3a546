// PLACEHOLDER: being written; returns NotMine() for every opcode until then.
#include "compiler/interpreter/ops.h"

namespace fusebox {

StatusOr<Literal> EvalDataMovement(const Instruction& inst, Operands operands, EvalContext& ctx) {
  (void)inst;
  (void)operands;
  (void)ctx;
  return NotMine();
}

}  // namespace fusebox
