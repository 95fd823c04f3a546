// Constant folding with the reference interpreter as the evaluator.
#include "compiler/passes/constant_folding.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/support/planted_bugs.h"
#include "compiler/verifier/shape_inference.h"

namespace fusebox::passes {

namespace {

// Ops whose value is not a function of their operands alone (side effects, randomness,
// the device they run on), or that call computations the folder does not look into.
bool IsUnfoldableOpcode(Opcode opcode) {
  if (IsCollective(opcode) || IsAsync(opcode)) return true;
  switch (opcode) {
    case Opcode::kParameter:
    case Opcode::kConstant:
    case Opcode::kIota:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kCustomCall:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
    case Opcode::kTuple:
    case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape:
      return true;
    default:
      return false;
  }
}

bool IsConstantWithValues(const Instruction* inst) {
  return inst->opcode() == Opcode::kConstant && inst->literal() != nullptr &&
         !inst->literal_elided();
}

bool ShouldFold(const Instruction& inst, const ConstantFoldingOptions& options) {
  if (IsUnfoldableOpcode(inst.opcode())) return false;
  if (inst.operand_count() == 0) return false;
  if (!inst.control_predecessors().empty() || !inst.control_successors().empty()) return false;
  // Dead code is DCE's business; folding it would only add constants.
  if (inst.user_count() == 0 && !inst.IsRoot()) return false;
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.is_dynamic()) return false;
  int64_t elements = shape.ElementCount();
  if (elements < 0 || elements > options.max_elements) return false;
  for (const Instruction* op : inst.operands()) {
    if (!IsConstantWithValues(op)) return false;
  }
  // A broadcast that expands its operand trades a small literal for a big one.
  if (inst.opcode() == Opcode::kBroadcast &&
      elements > inst.operand(0)->shape().ElementCount()) {
    return false;
  }
  return true;
}

}  // namespace

StatusOr<Literal> EvaluateOnConstantOperands(const Instruction& instruction) {
  // A scratch computation holding copies of the operands and of the instruction; called
  // computations (reducers, comparators) are shared with the module.
  Computation scratch("constant_folding_scratch");
  std::vector<Instruction*> operands;
  for (int64_t i = 0; i < instruction.operand_count(); ++i) {
    const Instruction* op = instruction.operand(i);
    if (!IsConstantWithValues(op)) {
      return InvalidArgument("operand " + std::to_string(i) + " of " + instruction.name() +
                             " is not a constant with known values");
    }
    operands.push_back(
        scratch.AddInstruction(op->CloneWithOperands({}, "operand." + std::to_string(i))));
  }
  if (BugPlanted(PlantedBug::kConstantFoldingOperandsReversed)) std::reverse(operands.begin(), operands.end());
  Instruction* root = scratch.AddInstruction(instruction.CloneWithOperands(operands, "folded"));
  scratch.set_root(root);
  interpreter::InterpreterOptions options;
  // Anything this large is beyond every folding limit; fail fast instead of allocating.
  options.max_result_bytes = int64_t{1} << 30;
  interpreter::Interpreter interpreter(options);
  return interpreter.RunComputation(scratch, {});
}

Instruction* ReplaceWithConstant(Instruction* replaced, const Literal& value) {
  Computation* computation = replaced->parent();
  Module* module = computation->parent();
  std::string name = module != nullptr ? module->UniqueName("constant") : "constant";
  auto constant = std::make_unique<Instruction>(Opcode::kConstant, name, replaced->shape());
  // The literal takes the instruction's shape (layout included); data is row-major
  // whatever the layout, so the interpreter's bytes carry over unchanged.
  auto literal = std::make_unique<Literal>(replaced->shape());
  std::memcpy(literal->untyped_data(), value.untyped_data(),
              static_cast<size_t>(literal->size_bytes()));
  constant->set_literal(std::move(literal));
  if (replaced->metadata() != nullptr) constant->set_metadata(*replaced->metadata());
  Instruction* added = computation->AddInstruction(std::move(constant));
  replaced->ReplaceAllUsesWith(added);
  return added;
}

StatusOr<bool> ConstantFolding::Run(Module& module, PassContext& /*context*/) {
  bool changed = false;
  std::vector<Computation*> computations;
  for (const auto& c : module.computations()) {
    if (!c->IsFusionComputation()) computations.push_back(c.get());
  }
  for (Computation* computation : computations) {
    // Post order: a folded operand is a constant by the time its users are visited.
    for (Instruction* inst : computation->PostOrder()) {
      if (!ShouldFold(*inst, options_)) continue;
      StatusOr<Literal> value = EvaluateOnConstantOperands(*inst);
      if (!value.ok()) continue;  // the interpreter cannot evaluate it: leave it be
      const Literal& literal = *value;
      if (!ShapesAgree(literal.shape(), inst->shape()) ||
          literal.shape().element_type() != inst->shape().element_type() ||
          literal.element_count() != inst->shape().ElementCount()) {
        continue;
      }
      ReplaceWithConstant(inst, literal);
      changed = true;
    }
  }
  return changed;
}

}  // namespace fusebox::passes
