#include "compiler/passes/topk_decomposer.h"

#include <memory>
#include <vector>

#include "compiler/ir/plain_hlo_builder.h"

namespace fusebox::passes {

namespace {

// Adds instructions to one computation, with the topk's location and metadata.
class Builder {
 public:
  Builder(Module& module, Computation* computation, const Instruction& like)
      : module_(module), computation_(computation), like_(like) {}

  Instruction* Add(Opcode opcode, const Shape& shape, const std::vector<Instruction*>& operands) {
    auto inst = std::make_unique<Instruction>(opcode, module_.UniqueName(std::string(OpcodeName(opcode))), shape);
    for (Instruction* operand : operands) inst->AppendOperand(operand);
    inst->set_location(like_.location());
    if (like_.metadata() != nullptr) inst->set_metadata(*like_.metadata());
    return computation_->AddInstruction(std::move(inst));
  }

 private:
  Module& module_;
  Computation* computation_;
  const Instruction& like_;
};

void Decompose(Module& module, Instruction* topk) {
  Computation* parent = topk->parent();
  Builder build(module, parent, *topk);
  Instruction* x = topk->operand(0);
  const Shape& operand = x->shape();
  const int64_t last = operand.rank() - 1;
  const PrimitiveType type = operand.element_type();
  const bool largest = topk->attrs().largest.value_or(true);

  Shape positions = operand;
  positions.set_element_type(PrimitiveType::kS32);
  Instruction* iota = build.Add(Opcode::kIota, positions, {});
  iota->mutable_attrs().iota_dimension = last;

  Instruction* sort = build.Add(Opcode::kSort, Shape::Tuple({operand, positions}), {x, iota});
  sort->mutable_attrs().dimensions = std::vector<int64_t>{last};
  sort->mutable_attrs().is_stable = true;
  // compare(a, b) in topk's order: GT for the largest first, LT for the smallest.
  sort->AppendCalledComputation(library_call_internal::PlainHloBuilder::TotalOrderComparator(
      module, {type, PrimitiveType::kS32}, largest, largest ? "topk_greater" : "topk_less"));
  sort->set_call_form(CallForm::kToApply);

  std::vector<Instruction*> firsts;
  for (int64_t i = 0; i < 2; ++i) {
    Instruction* all = build.Add(Opcode::kGetTupleElement, i == 0 ? operand : positions, {sort});
    all->mutable_attrs().tuple_index = i;
    const Shape& result = topk->shape().tuple_shapes(i);
    Instruction* first = build.Add(Opcode::kSlice, result, {all});
    for (int64_t d = 0; d < operand.rank(); ++d) {
      first->mutable_attrs().slice.push_back({0, result.dimensions(d), 1});
    }
    firsts.push_back(first);
  }
  Instruction* tuple = build.Add(Opcode::kTuple, topk->shape(), firsts);
  parent->ReplaceInstruction(topk, tuple);
}

// A topk of one array operand of rank >= 1 with (values, indices) results: what either
// plan takes (the verifier has checked the rest).
bool WellFormed(const Instruction& topk) {
  return topk.opcode() == Opcode::kTopK && topk.operand_count() == 1 && topk.shape().IsTuple() &&
         topk.shape().tuple_size() == 2 && topk.operand(0)->shape().IsArray() && topk.operand(0)->shape().rank() >= 1;
}

}  // namespace

std::string TopKKernelRefusal(const Instruction& topk) {
  if (!WellFormed(topk)) return "not a topk of one array operand with (values, indices) results";
  const Shape& operand = topk.operand(0)->shape();
  const Shape& values = topk.shape().tuple_shapes(0);
  const int64_t k = values.rank() == operand.rank() ? values.dimensions(values.rank() - 1) : -1;
  if (k < 0 || k > kTopKKernelMaxK) {
    return "k=" + std::to_string(k) + " is more than the " + std::to_string(kTopKKernelMaxK) + " a topk kernel keeps";
  }
  const PrimitiveType type = operand.element_type();
  if (!OrdersAsBits(type)) {
    return std::string(PrimitiveTypeName(type)) + " elements have no order as bits (no sign bit, or no negative zero)";
  }
  if (BitWidth(type) > 32) return std::string(PrimitiveTypeName(type)) + " elements are wider than 32 bits";
  return "";
}

StatusOr<bool> TopKDecomposer::Run(Module& module, PassContext&) {
  std::vector<Instruction*> topks;
  for (const auto& computation : module.computations()) {
    for (const auto& inst : computation->instructions()) {
      if (WellFormed(*inst) && !TopKKernelRefusal(*inst).empty() &&
          OrdersAsBits(inst->operand(0)->shape().element_type())) {
        topks.push_back(inst.get());
      }
    }
  }
  for (Instruction* topk : topks) Decompose(module, topk);
  return !topks.empty();
}

}  // namespace fusebox::passes
